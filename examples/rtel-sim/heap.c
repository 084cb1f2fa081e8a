/* heap.c - 4-ary min-heap of events */
#include "heap.h"

#include <stdlib.h>

static inline int ev_lt(const struct ev *a, const struct ev *b) {
  return a->t < b->t || (a->t == b->t && a->key < b->key);
}

int heap_push(struct heap *h, uint64_t t, uint32_t kind, uint32_t arg) {
  if (h->n == h->cap) {
    size_t nc = h->cap ? h->cap * 2 : 4096;
    struct ev *nv = realloc(h->v, nc * sizeof *nv);
    if (!nv)
      return -1;
    h->v = nv;
    h->cap = nc;
  }
  struct ev e = {t, (h->seq++ << 5) | (kind & 31u), arg};
  size_t i = h->n++;
  while (i > 0) {
    size_t p = (i - 1) / 4;
    if (!ev_lt(&e, &h->v[p]))
      break;
    h->v[i] = h->v[p];
    i = p;
  }
  h->v[i] = e;
  return 0;
}

int heap_pop(struct heap *h, struct ev *out) {
  if (h->n == 0)
    return 0;
  *out = h->v[0];
  struct ev last = h->v[--h->n];
  size_t n = h->n, i = 0;
  struct ev *v = h->v;
  for (;;) {
    size_t c = 4 * i + 1;
    if (c >= n)
      break;
    size_t best = c, end = c + 4 < n ? c + 4 : n;
    for (size_t k = c + 1; k < end; k++)
      if (ev_lt(&v[k], &v[best]))
        best = k;
    if (!ev_lt(&v[best], &last))
      break;
    v[i] = v[best];
    i = best;
  }
  if (n)
    v[i] = last;
  return 1;
}

void heap_free(struct heap *h) {
  free(h->v);
  h->v = NULL;
  h->n = h->cap = 0;
}
