/* SPDX-License-Identifier: MIT */
/*
 * White-box tests of the QP-key hash (lib/rtel_table.h
 * rtel__qkey_hash_parts()), which the hub computes once per packet for the
 * flow, pairing and NVMe-oF tables: on the key sets a capture gives (QPNs
 * handed out in sequence, addresses of one subnet) its buckets must be
 * spread as a uniform random function would spread them. The expected
 * figures are those of a uniform hash (balls in bins), not of this one.
 * And the pairing PSN index's slot match (lib/rtel_pair.h) on slots that
 * collide, with hand-picked collisions, and its layout in blocks of 8
 * PSNs per line; and the table's emptying by a
 * flush (rtel__qtab_remove_oldest_all()).
 */
#include "rtel_test_util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rtel_pair.h"
#include "rtel_table.h"

/* How |n| keys fall into |m| buckets (a power of two, h & (m - 1) as the
 * tables do). */
typedef struct spread {
  double empty; /* fraction of empty buckets */
  double sumsq; /* sum of squared bucket counts */
  unsigned max; /* longest chain */
} spread;

/* Key |i| of the set |set|: 0 sequential QPNs between two hosts, 1
 * sequential host addresses (IPv4, one /12) to one target QP, 2
 * sequential IPv6 host addresses and QPNs together, 3 the observation
 * point alone. */
static void key_of(unsigned set, uint32_t i, uint32_t *obs, uint8_t src[16],
                   uint8_t dst[16], uint32_t *qpn) {
  static const uint8_t v4[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  memcpy(src, v4, 12);
  memcpy(dst, v4, 12);
  src[12] = 10, src[13] = 0, src[14] = 0, src[15] = 1;
  dst[12] = 10, dst[13] = 0, dst[14] = 1, dst[15] = 1;
  *obs = 0;
  *qpn = 0x11;
  switch (set) {
  case 0:
    *qpn = i & 0xffffffu;
    break;
  case 1:
    src[13] = (uint8_t)(i >> 16);
    src[14] = (uint8_t)(i >> 8);
    src[15] = (uint8_t)i;
    break;
  case 2:
    src[0] = 0xfd;
    src[12] = (uint8_t)(i >> 24);
    src[13] = (uint8_t)(i >> 16);
    src[14] = (uint8_t)(i >> 8);
    src[15] = (uint8_t)i;
    *qpn = 0x100 + (i & 0xffffu);
    break;
  default:
    *obs = i;
    break;
  }
}

static spread spread_of(unsigned set, uint32_t n, uint32_t m, uint64_t seed) {
  uint32_t *cnt = calloc(m, sizeof(*cnt));
  spread sp = {0, 0, 0};
  uint32_t i, empty = 0;
  ck_assert_ptr_nonnull(cnt);
  for (i = 0; i < n; i++) {
    uint8_t src[16], dst[16];
    uint32_t obs, qpn;
    key_of(set, i, &obs, src, dst, &qpn);
    cnt[rtel__qkey_hash_parts(seed, obs, src, dst, qpn) & (m - 1)]++;
  }
  for (i = 0; i < m; i++) {
    empty += cnt[i] == 0;
    sp.sumsq += (double)cnt[i] * cnt[i];
    if (cnt[i] > sp.max) {
      sp.max = cnt[i];
    }
  }
  sp.empty = (double)empty / m;
  free(cnt);
  return sp;
}

/* 10^6 keys in 2^21 buckets (a 10^6-entry table: buckets are the power of
 * two >= 2 x entries) and 2000 in 4096, each key set, two seeds. A uniform
 * hash leaves (1 - 1/m)^n of the buckets empty (62.07% and 61.38%), gives
 * E[sum c^2] = n + n (n - 1) / m (one chain step per lookup more than the
 * ideal, on average, is the excess) and a longest chain of 8-9 at 10^6
 * (10 at most in practice; 12 is allowed). */
START_TEST(test_qkey_hash_spread) {
  static const struct {
    uint32_t n, m;
  } sz[] = {{1000000, 1u << 21}, {2000, 4096}};
  static const uint64_t seeds[] = {0, 0x0123456789abcdefull};
  unsigned set, k, s;
  for (set = 0; set < 4; set++) {
    for (k = 0; k < 2; k++) {
      for (s = 0; s < 2; s++) {
        double n = sz[k].n, m = sz[k].m;
        spread sp = spread_of(set, sz[k].n, sz[k].m, seeds[s]);
        double empty = pow(1.0 - 1.0 / m, n);
        double sumsq = n + n * (n - 1.0) / m;
        /* the sum of squares: sd ~ sqrt(2 n^2 / m) (Poisson counts) */
        double tol = 6.0 * sqrt(2.0 * n * n / m) + 0.002 * sumsq;
        ck_assert_msg(fabs(sp.empty - empty) < (k == 0 ? 0.003 : 0.03),
                      "set %u n %u seed %u: %.4f empty, uniform %.4f", set,
                      sz[k].n, s, sp.empty, empty);
        ck_assert_msg(fabs(sp.sumsq - sumsq) < tol,
                      "set %u n %u seed %u: sum c^2 %.0f, uniform %.0f", set,
                      sz[k].n, s, sp.sumsq, sumsq);
        ck_assert_msg(sp.max <= 12, "set %u n %u seed %u: chain of %u", set,
                      sz[k].n, s, sp.max);
      }
    }
  }
}
END_TEST

/* Every bit of every word of the key reaches the bucket bits: flipping
 * one input bit flips each of the low 21 hash bits about half the time
 * (avalanche, over 2000 random keys per bit: 0.5 +- 0.1). */
START_TEST(test_qkey_hash_avalanche) {
  uint64_t rng = 0x9e3779b97f4a7c15ull;
  unsigned bit, out, t;
  for (bit = 0; bit < 320; bit++) {
    unsigned flips[21] = {0};
    for (t = 0; t < 2000; t++) {
      uint8_t key[40], alt[40];
      uint32_t obs, qpn, h0, h1, aobs, aqpn;
      unsigned j;
      for (j = 0; j < 40; j++) {
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        key[j] = (uint8_t)rng;
      }
      memcpy(alt, key, 40);
      alt[bit / 8] ^= (uint8_t)(1u << (bit % 8));
      memcpy(&obs, key + 32, 4);
      memcpy(&qpn, key + 36, 4);
      memcpy(&aobs, alt + 32, 4);
      memcpy(&aqpn, alt + 36, 4);
      h0 = rtel__qkey_hash_parts(7, obs, key, key + 16, qpn);
      h1 = rtel__qkey_hash_parts(7, aobs, alt, alt + 16, aqpn);
      for (out = 0; out < 21; out++) {
        flips[out] += ((h0 ^ h1) >> out) & 1u;
      }
    }
    for (out = 0; out < 21; out++) {
      ck_assert_msg(flips[out] > 800 && flips[out] < 1200,
                    "input bit %u -> hash bit %u: %u of 2000 flipped", bit,
                    out, flips[out]);
    }
  }
}
END_TEST

/* The PSN index (lib/rtel_pair.h): with one flow (4 slots) slots collide,
 * and a slot names a data PSN only for the same PSN of the same host pair:
 * another PSN of the pair on the same slot, or the same PSN of another
 * pair whose tag differs in its top 16 bits, must not match; a PSN two
 * flows of the pair used names neither. */
static uint8_t *v4(uint8_t *a, uint32_t host) {
  memset(a, 0, 16);
  a[10] = a[11] = 0xff;
  a[12] = 10;
  a[13] = (uint8_t)(host >> 16);
  a[14] = (uint8_t)(host >> 8);
  a[15] = (uint8_t)host;
  return a;
}

/* A pairing table of |max_flows| flows (its PSN index: 4 slots per flow,
 * 8 at least) counting into |st|, which must outlive it. */
static void pair_setup(rtel__pairtab *pt, rtel_ctx_stats *st,
                       uint32_t max_flows) {
  rtel_settings s;
  rtel__env env;
  rtel_settings_default(&s);
  s.max_flows = max_flows;
  memset(st, 0, sizeof(*st));
  env.mem = rtel_mem_default();
  env.stats = st;
  env.sink = NULL;
  ck_assert_int_eq(rtel__pair_init(pt, &s, &env), 0);
}

START_TEST(test_psn_index_match) {
  rtel_ctx_stats st;
  rtel__pairtab pt;
  rtel__qkey k;
  uint8_t a[16], b[16], c[16];
  uint32_t tag, psn2, i;
  const rtel__pair *p;
  size_t bytes;

  pair_setup(&pt, &st, 1);
  ck_assert_uint_eq(pt.psn_mask, 7); /* one line, the least */
  bytes = (pt.psn_mask + 1) * sizeof(*pt.psn_index);
  v4(a, 1);
  v4(b, 2);
  tag = rtel__pair_psn_tag(&pt, 0, a, b);

  /* data a -> (b, 0x123) PSN 1000, its ACK b -> (a, 0x456) PSN 1000 */
  rtel__pair_note_psn(&pt, 0, a, b, 0x123, 1000);
  rtel__qkey_set(&k, 0, b, a, 0x456);
  p = rtel__pair_ack_psn(&pt, NULL, &k, 1000);
  ck_assert_ptr_nonnull(p);
  ck_assert_uint_eq(p->cand, 0x123);
  ck_assert_uint_eq(p->hits, 1);

  /* another PSN of the pair on PSN 1000's slot */
  for (psn2 = 1001; rtel__pair_psn_slot(&pt, tag, psn2) !=
                    rtel__pair_psn_slot(&pt, tag, 1000);
       psn2++) {
  }
  memset(pt.psn_index, 0, bytes);
  rtel__pair_note_psn(&pt, 0, a, b, 0x123, 1000);
  rtel__qkey_set(&k, 0, b, a, 0x457);
  ck_assert_ptr_null(rtel__pair_ack_psn(&pt, NULL, &k, psn2));

  /* another pair c -> b, PSN 1000 on the same slot, other top 16 tag bits */
  for (i = 3;; i++) {
    uint32_t t2 = rtel__pair_psn_tag(&pt, 0, v4(c, i), b);
    if ((t2 >> 16) != (tag >> 16) && rtel__pair_psn_slot(&pt, t2, 1000) ==
                                         rtel__pair_psn_slot(&pt, tag, 1000)) {
      break;
    }
  }
  memset(pt.psn_index, 0, bytes);
  rtel__pair_note_psn(&pt, 0, a, b, 0x123, 1000);
  rtel__qkey_set(&k, 0, b, c, 0x458);
  ck_assert_ptr_null(rtel__pair_ack_psn(&pt, NULL, &k, 1000));

  /* two flows of the pair, PSN 1000 each: it names neither */
  memset(pt.psn_index, 0, bytes);
  rtel__pair_note_psn(&pt, 0, a, b, 0x123, 1000);
  rtel__pair_note_psn(&pt, 0, a, b, 0x124, 1000);
  rtel__qkey_set(&k, 0, b, a, 0x459);
  ck_assert_ptr_null(rtel__pair_ack_psn(&pt, NULL, &k, 1000));
  /* and the same flow twice still does */
  memset(pt.psn_index, 0, bytes);
  rtel__pair_note_psn(&pt, 0, a, b, 0x123, 1000);
  rtel__pair_note_psn(&pt, 0, a, b, 0x123, 1000);
  p = rtel__pair_ack_psn(&pt, NULL, &k, 1000);
  ck_assert_ptr_nonnull(p);
  ck_assert_uint_eq(p->cand, 0x123);
  rtel__pair_free(&pt);
}
END_TEST

/* The PSN index's layout (lib/rtel_pair.h): 64-byte aligned, and a block
 * of 8 consecutive PSNs of a host pair is one line, slot by slot in PSN
 * order, so that a flow's data packets write one line per 8 (a random line
 * each was the most of what an unpaired flow's packet waited for). The
 * lines of the blocks must still spread as a uniform random function
 * would spread them: the expected figures are those of balls in bins. */
START_TEST(test_psn_index_blocks) {
  rtel_ctx_stats st;
  rtel__pairtab pt;
  uint8_t a[16], b[16];
  uint32_t i, j, nlines, used = 0, same_next = 0;
  static const uint32_t base[3] = {1000, 0, 0xfffff8};
  static uint8_t seen[512];

  pair_setup(&pt, &st, 1024);
  ck_assert_uint_eq(pt.psn_mask + 1, 4096); /* 4 slots per flow */
  nlines = (pt.psn_mask + 1) / 8;
  ck_assert_uint_eq((uintptr_t)pt.psn_index & 63u, 0);
  v4(b, 100000);
  memset(seen, 0, sizeof(seen));
  for (i = 1; i <= 512; i++) {
    uint32_t tag = rtel__pair_psn_tag(&pt, 0, v4(a, i), b), k;
    for (k = 0; k < 3; k++) {
      const rtel__psn_slot *first = rtel__pair_psn_slot(&pt, tag, base[k]);
      ck_assert_uint_eq((size_t)(first - pt.psn_index) % 8, 0);
      for (j = 1; j < 8; j++) {
        ck_assert_ptr_eq(rtel__pair_psn_slot(&pt, tag, base[k] + j),
                         first + j);
      }
    }
    /* a PSN is taken modulo 2^24, as on the wire: the line and the slot
     * of PSN 2^24 + 1000 are those of 1000 */
    ck_assert_ptr_eq(rtel__pair_psn_slot(&pt, tag, 0x1000000u | 1000u),
                     rtel__pair_psn_slot(&pt, tag, 1000));
    /* the line of PSNs 1000-1007 */
    j = (uint32_t)(rtel__pair_psn_slot(&pt, tag, 1000) - pt.psn_index) / 8;
    used += !seen[j];
    seen[j] = 1;
    same_next += rtel__pair_psn_slot(&pt, tag, 1008) ==
                 rtel__pair_psn_slot(&pt, tag, 1000);
  }
  /* 512 host pairs' block into 512 lines: 512 (1 - (1 - 1/512)^512) = 324
   * lines expected, standard deviation about 7; the next block on the
   * same line: once in 512 expected */
  ck_assert_uint_eq(nlines, 512);
  ck_assert_uint_ge(used, 290);
  ck_assert_uint_le(used, 360);
  ck_assert_uint_le(same_next, 6);
  rtel__pair_free(&pt);
}
END_TEST

/* The key of entry |i| of generation |gen| in test_qtab_remove_oldest_all:
 * sequential QPNs of two host pairs. */
static rtel__qkey gen_key(uint32_t gen, uint32_t i) {
  rtel__qkey k;
  memset(&k, 0, sizeof(k));
  k.src[10] = k.src[11] = k.dst[10] = k.dst[11] = 0xff;
  k.src[12] = 10, k.src[15] = (uint8_t)(1 + gen);
  k.dst[12] = 10, k.dst[15] = 100;
  k.obs = gen;
  k.qpn = 0x40 + i;
  return k;
}

/* The entry of gen_key(|gen|, |i|) in |t|, or NULL. */
static rtel__qent *gen_find(const rtel__qtab *t, uint32_t gen, uint32_t i) {
  rtel__qkey k = gen_key(gen, i);
  return rtel__qtab_find(t, &k, rtel__qkey_hash(t, &k));
}

/* Inserts gen_key(|gen|, |i|) into |t|. */
static rtel__qent *gen_insert(rtel__qtab *t, uint32_t gen, uint32_t i) {
  rtel__qkey k = gen_key(gen, i);
  return rtel__qtab_insert(t, &k, rtel__qkey_hash(t, &k));
}

/* |t| is empty after a flush: every bucket empty, none of the keys
 * gen_key(|gen|, 0 .. |n| - 1) found. */
static void check_emptied(const rtel__qtab *t, uint32_t gen, uint32_t n) {
  uint32_t i;
  ck_assert_uint_eq(t->used, 0);
  ck_assert_ptr_null(rtel__qtab_oldest(t));
  for (i = 0; i <= t->mask; i++) {
    ck_assert_uint_eq(t->buckets[i], RTEL__NIL);
  }
  for (i = 0; i < n; i++) {
    ck_assert_ptr_null(gen_find(t, gen, i));
  }
}

/* The keys gen_key(|gen|, 0 .. |n| - 1) are all found in |t|. */
static void check_found(const rtel__qtab *t, uint32_t gen, uint32_t n) {
  uint32_t i;
  for (i = 0; i < n; i++) {
    rtel__qent *e = gen_find(t, gen, i);
    ck_assert_ptr_nonnull(e);
    ck_assert_uint_eq(e->key.qpn, 0x40 + i);
  }
}

/* rtel__qtab_remove_oldest_all() (a flush's removal: the bucket emptied
 * whole, no chain walk): 48 entries of a 64-entry table with 128 buckets
 * (so chains of two and more), 8 of them removed the ordinary way first
 * (a free list), 4 moved to the recent end. Emptied from the LRU end, the
 * entries come out in the order this test touched them; the table is then
 * empty (every bucket empty, no entry found), takes the first entry again,
 * and takes exactly 64 new keys, all found, before it is full. 40 entries
 * for 128 buckets are more than one per 64: the buckets are left as they
 * are until the last entry goes (t.stale), then all emptied at once. */
START_TEST(test_qtab_remove_oldest_all) {
  rtel__qtab t;
  uint32_t i, n = 0, order[48], seen[64];
  rtel__qent *e;

  ck_assert_int_eq(rtel__qtab_init(&t, 64, 64, 0x1234, rtel_mem_default()), 0);
  ck_assert_uint_eq(t.mask + 1, 128);
  for (i = 0; i < 48; i++) {
    ck_assert_ptr_nonnull(gen_insert(&t, 0, i));
  }
  for (i = 0; i < 48; i += 6) { /* 0, 6, ..., 42 go the ordinary way */
    ck_assert_ptr_nonnull(e = gen_find(&t, 0, i));
    rtel__qtab_remove(&t, e);
  }
  for (i = 1; i < 48; i += 12) { /* 1, 13, 25, 37 become the most recent */
    ck_assert_ptr_nonnull(e = gen_find(&t, 0, i));
    rtel__qtab_touch(&t, e);
  }
  /* the expected order, from this test's own steps */
  for (i = 0; i < 48; i++) {
    if (i % 6 != 0 && i % 12 != 1) {
      order[n++] = i;
    }
  }
  for (i = 1; i < 48; i += 12) {
    order[n++] = i;
  }
  ck_assert_uint_eq(n, 40);
  ck_assert_uint_eq(t.used, 40);
  {
    uint32_t heads = 0; /* fewer non-empty buckets than entries: chains */
    for (i = 0; i <= t.mask; i++) {
      heads += t.buckets[i] != RTEL__NIL;
    }
    ck_assert_uint_lt(heads, 40);
  }
  for (i = 0; i < 40; i++) {
    e = rtel__qtab_oldest(&t);
    ck_assert_ptr_nonnull(e);
    ck_assert_uint_eq(e->key.qpn, 0x40 + order[i]);
    rtel__qtab_remove_oldest_all(&t, e);
    ck_assert_uint_eq(t.used, 39 - i);
    ck_assert_int_eq(t.stale, i < 39);
  }
  check_emptied(&t, 0, 48);
  memset(seen, 0, sizeof(seen));
  for (i = 0; i < 64; i++) {
    ck_assert_ptr_nonnull(e = gen_insert(&t, 1, i));
    if (i == 0) {
      ck_assert_uint_eq(e->idx, 0);
    }
    ck_assert_uint_lt(e->idx, 64);
    ck_assert_uint_eq(seen[e->idx]++, 0);
  }
  ck_assert_ptr_null(gen_insert(&t, 2, 0));
  check_found(&t, 1, 64);
  rtel__qtab_free(&t, rtel_mem_default());
}
END_TEST

/* The same with few entries for the buckets: 20 of a 1024-entry table
 * with 2048 buckets (fewer than one per 64), 5 of them removed the ordinary
 * way first. Each removal empties its own bucket at once (t.stale stays 0):
 * afterwards every bucket is empty and no key is found; 20 new keys are
 * then all found. */
START_TEST(test_qtab_remove_oldest_all_sparse) {
  rtel__qtab t;
  uint32_t i;
  rtel__qent *e;

  ck_assert_int_eq(rtel__qtab_init(&t, 1024, 64, 0x4321, rtel_mem_default()),
                   0);
  ck_assert_uint_eq(t.mask + 1, 2048);
  for (i = 0; i < 20; i++) {
    ck_assert_ptr_nonnull(gen_insert(&t, 0, i));
  }
  for (i = 0; i < 20; i += 4) {
    ck_assert_ptr_nonnull(e = gen_find(&t, 0, i));
    rtel__qtab_remove(&t, e);
  }
  for (i = 0; i < 15; i++) {
    e = rtel__qtab_oldest(&t);
    ck_assert_ptr_nonnull(e);
    rtel__qtab_remove_oldest_all(&t, e);
    ck_assert_int_eq(t.stale, 0);
  }
  check_emptied(&t, 0, 20);
  for (i = 0; i < 20; i++) {
    ck_assert_ptr_nonnull(gen_insert(&t, 1, i));
  }
  check_found(&t, 1, 20);
  rtel__qtab_free(&t, rtel_mem_default());
}
END_TEST

Suite *rtel_test_table_suite(void) {
  Suite *s = suite_create("table");
  TCase *tc = tcase_create("qkey_hash");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_qkey_hash_spread);
  tcase_add_test(tc, test_qkey_hash_avalanche);
  tcase_add_test(tc, test_psn_index_match);
  tcase_add_test(tc, test_psn_index_blocks);
  tcase_add_test(tc, test_qtab_remove_oldest_all);
  tcase_add_test(tc, test_qtab_remove_oldest_all_sparse);
  suite_add_tcase(s, tc);
  return s;
}
