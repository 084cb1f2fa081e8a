/* SPDX-License-Identifier: MIT */
/*
 * A fixed-capacity hash table of QP-keyed entries with LRU order, shared by
 * the flow table and the QP pairing table.
 *
 * Key: (observation point, source address, destination address, QPN).
 * Entries live in one array allocated at setup; each begins with an
 * rtel__qent header. Lookups walk a bucket chain; the LRU list runs from
 * the least recently touched (head) to the most recent (tail). Nothing is
 * allocated after rtel__qtab_init().
 */
#ifndef RTEL_TABLE_H
#define RTEL_TABLE_H

#include "rtel_int.h"
#include "rtel_list.h"

typedef struct rtel__qkey {
  uint8_t src[16];
  uint8_t dst[16];
  uint32_t obs;
  uint32_t qpn;
} rtel__qkey;

typedef struct rtel__qent {
  rtel__qkey key;
  uint32_t hnext; /* next in bucket chain */
  rtel__link lru;
  uint32_t hash;
  uint32_t idx; /* own index (a division by the stride costs more) */
} rtel__qent;   /* 60 bytes: an entry may put 4 of its own in its first line */

typedef struct rtel__qtab {
  uint8_t *ents;     /* cap entries of |stride| bytes, 64-byte aligned */
  void *alloc;       /* what was allocated for them */
  uint32_t *buckets; /* nbuckets heads */
  size_t stride;
  uint32_t cap;
  uint32_t mask; /* nbuckets - 1 */
  uint32_t used;
  uint32_t free_head; /* entries removed, a list through hnext */
  uint32_t fresh;     /* entries [fresh, cap) free and not on the free
                         list: never used (untouched, so a table larger
                         than its use costs only the pages it uses), or
                         given back whole by rtel__qtab_remove_oldest_all() */
  rtel__list lru;     /* head: least recently touched */
  uint64_t seed;
  int stale; /* buckets left naming removed entries, until the table is
                empty: rtel__qtab_remove_oldest_all() */
} rtel__qtab;

/* Allocates a table of |cap| entries of |stride| bytes (>= sizeof(qent)),
 * the first at a 64-byte boundary (so that an entry whose stride is a
 * multiple of 64 keeps its hot fields in the cache lines it chose).
 * Returns 0 or RTEL_ERR_NOMEM. */
int rtel__qtab_init(rtel__qtab *t, uint32_t cap, size_t stride, uint64_t seed,
                    const rtel_mem *mem);
void rtel__qtab_free(rtel__qtab *t, const rtel_mem *mem);

static inline rtel__qent *rtel__qtab_at(const rtel__qtab *t, uint32_t i) {
  return (rtel__qent *)(void *)(t->ents + (size_t)i * t->stride);
}

static inline uint32_t rtel__qtab_idx(const rtel__qtab *t,
                                      const rtel__qent *e) {
  (void)t;
  return e->idx;
}

static inline void rtel__qkey_set(rtel__qkey *k, uint32_t obs,
                                  const uint8_t *src, const uint8_t *dst,
                                  uint32_t qpn) {
  memcpy(k->src, src, 16);
  memcpy(k->dst, dst, 16);
  k->obs = obs;
  k->qpn = qpn;
}

static inline uint64_t rtel__rotl64(uint64_t x, unsigned r) {
  return x << r | x >> (64 - r);
}

static inline uint64_t rtel__word64(const uint8_t *p) {
  uint64_t w;
  rtel__wordcpy(&w, p, 8);
  return w;
}

/* The hash of the key (|obs|, |src|, |dst|, |qpn|) with a table's seed
 * (a setting, so that an embedder can randomise it against crafted
 * collisions). Each of the key's five words, offset by the seed, is
 * multiplied by its own odd constant; the products, rotated apart (a
 * flipped top bit of two words would otherwise cancel), are folded by XOR
 * and mixed once: five independent multiplies, not a chain of five (the
 * hub hashes every packet's key once, and the flow, pairing and NVMe-oF
 * tables, all with the context's seed, use that hash; tests/check_table.c
 * checks its spread on sequential QPNs and addresses). Inline, and from the
 * parts so that a caller need not build the key first. */
static inline uint32_t rtel__qkey_hash_parts(uint64_t seed, uint32_t obs,
                                             const uint8_t *src,
                                             const uint8_t *dst,
                                             uint32_t qpn) {
  uint64_t s = seed, r = rtel__rotl64(seed, 32);
  uint64_t x =
      (rtel__word64(src) + s) * 0x9E3779B97F4A7C15ull ^
      rtel__rotl64((rtel__word64(src + 8) + r) * 0xC2B2AE3D27D4EB4Full, 13) ^
      rtel__rotl64((rtel__word64(dst) - s) * 0x165667B19E3779F9ull, 26) ^
      rtel__rotl64((rtel__word64(dst + 8) - r) * 0x27D4EB2F165667C5ull, 39) ^
      rtel__rotl64((((uint64_t)obs << 32 | qpn) ^ s) * 0xD6E8FEB86659FD93ull,
                   52);
  return rtel__mix32(x);
}

/* The hash of |k| with a table's seed |seed|, and in table |t|. */
static inline uint32_t rtel__qkey_hash_seed(uint64_t seed,
                                            const rtel__qkey *k) {
  return rtel__qkey_hash_parts(seed, k->obs, k->src, k->dst, k->qpn);
}

static inline uint32_t rtel__qkey_hash(const rtel__qtab *t,
                                       const rtel__qkey *k) {
  return rtel__qkey_hash_seed(t->seed, k);
}

/* Finds the entry of |k| (hash |h|), or NULL. */
rtel__qent *rtel__qtab_find(const rtel__qtab *t, const rtel__qkey *k,
                            uint32_t h);

/* Is |k| the key (|obs|, |src|, |dst|, |qpn|)? The five words compared
 * at once, without a branch per word or a call to memcmp() (which
 * compilers do not inline for 32 bytes). */
static inline int rtel__qkey_is(const rtel__qkey *k, uint32_t obs,
                                const uint8_t *src, const uint8_t *dst,
                                uint32_t qpn) {
  return ((rtel__word64(k->src) ^ rtel__word64(src)) |
          (rtel__word64(k->src + 8) ^ rtel__word64(src + 8)) |
          (rtel__word64(k->dst) ^ rtel__word64(dst)) |
          (rtel__word64(k->dst + 8) ^ rtel__word64(dst + 8)) |
          (uint64_t)(k->obs ^ obs) | (uint64_t)(k->qpn ^ qpn)) == 0;
}

static inline int rtel__qkey_eq(const rtel__qkey *a, const rtel__qkey *b) {
  return rtel__qkey_is(a, b->obs, b->src, b->dst, b->qpn);
}

/* rtel__qtab_find() of the key (|obs|, |src|, |dst|, |qpn|) from its
 * parts, inline: for a packet's lookups, which need not build the key
 * (40 bytes) first. */
static inline rtel__qent *
rtel__qtab_find_parts(const rtel__qtab *t, uint32_t h, uint32_t obs,
                      const uint8_t *src, const uint8_t *dst, uint32_t qpn) {
  uint32_t i = t->buckets[h & t->mask];
  while (i != RTEL__NIL) {
    rtel__qent *e = rtel__qtab_at(t, i);
    if (e->hash == h && rtel__qkey_is(&e->key, obs, src, dst, qpn)) {
      return e;
    }
    i = e->hnext;
  }
  return NULL;
}

/* Inserts |k| (not present) as the most recent entry and returns it with
 * its payload zeroed, or NULL if the table is full. */
rtel__qent *rtel__qtab_insert(rtel__qtab *t, const rtel__qkey *k, uint32_t h);

/* Removes |e| from the table. */
void rtel__qtab_remove(rtel__qtab *t, rtel__qent *e);

/* Removes |e|, the least recently used entry, when the whole table is
 * being emptied from its LRU end (a flush), without walking its bucket's
 * chain (with many entries the chain walk's load of the bucket, a random
 * line, was most of what a removal cost). With few entries for the
 * buckets (fewer than one per 64: four lines of buckets each), each
 * empties its bucket whole, a store; with more, the buckets are left as
 * they are and all set empty at once, in order, when the last entry goes:
 * written in order, the whole array costs less than that many stores at
 * random (tests/bench/README.md). So until the last entry is removed a
 * lookup may miss entries still in the table or find entries removed: the
 * caller removes every entry this way before the next lookup or
 * insertion. Once the table is empty, entries are taken from the first
 * again (rtel__qtab_insert() zeroes each). */
void rtel__qtab_remove_oldest_all(rtel__qtab *t, rtel__qent *e);

/* The LRU links of the entries. */
static inline rtel__links rtel__qtab_lru(const rtel__qtab *t) {
  rtel__links lk = {t->ents + offsetof(rtel__qent, lru), t->stride};
  return lk;
}

/* Moves |e| to the most recent end of the LRU list. */
static inline void rtel__qtab_touch(rtel__qtab *t, rtel__qent *e) {
  rtel__list_move_tail(&t->lru, rtel__qtab_lru(t), rtel__qtab_idx(t, e));
}

static inline rtel__qent *rtel__qtab_oldest(const rtel__qtab *t) {
  return t->lru.head == RTEL__NIL ? NULL : rtel__qtab_at(t, t->lru.head);
}

#endif /* RTEL_TABLE_H */
