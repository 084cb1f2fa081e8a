/* SPDX-License-Identifier: MIT */
#include "rtel_table.h"

RTEL__STATIC_ASSERT(RTEL__NIL == UINT32_MAX, "an empty bucket is all ones");

/* Every bucket empty. */
static void buckets_empty(rtel__qtab *t, uint32_t nb) {
  memset(t->buckets, 0xff, (size_t)nb * sizeof(uint32_t));
}

int rtel__qtab_init(rtel__qtab *t, uint32_t cap, size_t stride, uint64_t seed,
                    const rtel_mem *mem) {
  uint32_t nb = 1;

  memset(t, 0, sizeof(*t));
  if (cap == 0 || cap >= (UINT32_MAX >> 2)) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  while (nb < cap * 2u) {
    nb <<= 1;
  }
  /* rtel_mem promises no alignment: 63 bytes more, aligned inside */
  if (stride > (SIZE_MAX - 63) / cap) {
    return RTEL_ERR_NOMEM;
  }
  t->alloc = mem->calloc(1, (size_t)cap * stride + 63, mem->user_data);
  t->buckets = mem->malloc((size_t)nb * sizeof(uint32_t), mem->user_data);
  if (t->alloc == NULL || t->buckets == NULL) {
    rtel__qtab_free(t, mem);
    return RTEL_ERR_NOMEM;
  }
  t->ents = (uint8_t *)rtel__align64(t->alloc);
  buckets_empty(t, nb);
  t->stride = stride;
  t->cap = cap;
  t->mask = nb - 1;
  t->seed = seed;
  t->free_head = RTEL__NIL;
  t->fresh = 0;
  rtel__list_init(&t->lru);
  return 0;
}

void rtel__qtab_free(rtel__qtab *t, const rtel_mem *mem) {
  if (t->alloc) {
    mem->free(t->alloc, mem->user_data);
  }
  if (t->buckets) {
    mem->free(t->buckets, mem->user_data);
  }
  t->alloc = NULL;
  t->ents = NULL;
  t->buckets = NULL;
}

rtel__qent *rtel__qtab_find(const rtel__qtab *t, const rtel__qkey *k,
                            uint32_t h) {
  uint32_t i = t->buckets[h & t->mask];
  while (i != RTEL__NIL) {
    rtel__qent *e = rtel__qtab_at(t, i);
    if (e->hash == h && rtel__qkey_eq(&e->key, k)) {
      return e;
    }
    i = e->hnext;
  }
  return NULL;
}

rtel__qent *rtel__qtab_insert(rtel__qtab *t, const rtel__qkey *k, uint32_t h) {
  uint32_t i = t->free_head;
  rtel__qent *e;
  if (i != RTEL__NIL) {
    e = rtel__qtab_at(t, i);
    t->free_head = e->hnext;
  } else if (t->fresh < t->cap) {
    i = t->fresh++;
    e = rtel__qtab_at(t, i);
  } else {
    return NULL;
  }
  memset(e, 0, t->stride);
  e->idx = i;
  e->key = *k;
  e->hash = h;
  e->hnext = t->buckets[h & t->mask];
  t->buckets[h & t->mask] = i;
  rtel__list_append(&t->lru, rtel__qtab_lru(t), i);
  t->used++;
  return e;
}

void rtel__qtab_remove(rtel__qtab *t, rtel__qent *e) {
  uint32_t i = rtel__qtab_idx(t, e);
  uint32_t *pp = &t->buckets[e->hash & t->mask];
  while (*pp != i) {
    pp = &rtel__qtab_at(t, *pp)->hnext;
  }
  *pp = e->hnext;
  rtel__list_unlink(&t->lru, rtel__qtab_lru(t), i);
  e->hnext = t->free_head;
  t->free_head = i;
  t->used--;
}

void rtel__qtab_remove_oldest_all(rtel__qtab *t, rtel__qent *e) {
  uint32_t i = rtel__qtab_idx(t, e);
  if (!t->stale && t->used < (t->mask >> 6) + 1) {
    t->buckets[e->hash & t->mask] = RTEL__NIL;
  } else {
    t->stale = 1;
  }
  rtel__list_unlink(&t->lru, rtel__qtab_lru(t), i);
  if (--t->used == 0) {
    /* every entry is free: the free list starts over empty, and the next
     * insertion takes the first entry */
    t->free_head = RTEL__NIL;
    t->fresh = 0;
    if (t->stale) {
      buckets_empty(t, t->mask + 1);
      t->stale = 0;
    }
  } else {
    e->hnext = t->free_head;
    t->free_head = i;
  }
}
