/* SPDX-License-Identifier: MIT */
#include "rtel_table.h"

int rtel__qtab_init(rtel__qtab *t, uint32_t cap, size_t stride, uint64_t seed,
                    const rtel_mem *mem) {
  uint32_t nb = 1, i;

  memset(t, 0, sizeof(*t));
  if (cap == 0 || cap >= (UINT32_MAX >> 2)) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  while (nb < cap * 2u) {
    nb <<= 1;
  }
  t->ents = mem->calloc(cap, stride, mem->user_data);
  t->buckets = mem->malloc((size_t)nb * sizeof(uint32_t), mem->user_data);
  if (t->ents == NULL || t->buckets == NULL) {
    rtel__qtab_free(t, mem);
    return RTEL_ERR_NOMEM;
  }
  for (i = 0; i < nb; i++) {
    t->buckets[i] = RTEL__NIL;
  }
  t->stride = stride;
  t->cap = cap;
  t->mask = nb - 1;
  t->seed = seed;
  for (i = 0; i < cap; i++) {
    rtel__qtab_at(t, i)->hnext = i + 1 < cap ? i + 1 : RTEL__NIL;
    rtel__qtab_at(t, i)->idx = i;
  }
  t->free_head = 0;
  rtel__list_init(&t->lru);
  return 0;
}

void rtel__qtab_free(rtel__qtab *t, const rtel_mem *mem) {
  if (t->ents) {
    mem->free(t->ents, mem->user_data);
  }
  if (t->buckets) {
    mem->free(t->buckets, mem->user_data);
  }
  t->ents = NULL;
  t->buckets = NULL;
}

/* 64-bit multiply-xorshift over the 40-byte key; the seed is a setting so
 * that an embedder can randomise it against crafted collisions. */
static inline uint32_t hash(uint64_t seed, const rtel__qkey *k) {
  const uint64_t m = 0x9E3779B97F4A7C15ull;
  uint64_t w[5], h = seed ^ 0x243F6A8885A308D3ull;
  size_t i;
  memcpy(w, k, sizeof(w));
  for (i = 0; i < 5; i++) {
    h = (h ^ w[i]) * m;
    h ^= h >> 29;
  }
  return (uint32_t)(h ^ (h >> 32));
}

uint32_t rtel__qkey_hash(const rtel__qtab *t, const rtel__qkey *k) {
  return hash(t->seed, k);
}

uint32_t rtel__qkey_hash_seed(uint64_t seed, const rtel__qkey *k) {
  return hash(seed, k);
}

static int key_eq(const rtel__qkey *a, const rtel__qkey *b) {
  return a->qpn == b->qpn && a->obs == b->obs &&
         memcmp(a->src, b->src, 32) == 0;
}

rtel__qent *rtel__qtab_find(const rtel__qtab *t, const rtel__qkey *k,
                            uint32_t h) {
  uint32_t i = t->buckets[h & t->mask];
  while (i != RTEL__NIL) {
    rtel__qent *e = rtel__qtab_at(t, i);
    if (e->hash == h && key_eq(&e->key, k)) {
      return e;
    }
    i = e->hnext;
  }
  return NULL;
}

rtel__qent *rtel__qtab_insert(rtel__qtab *t, const rtel__qkey *k, uint32_t h) {
  uint32_t i = t->free_head;
  rtel__qent *e;
  if (i == RTEL__NIL) {
    return NULL;
  }
  e = rtel__qtab_at(t, i);
  t->free_head = e->hnext;
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
