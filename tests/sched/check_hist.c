/* SPDX-License-Identifier: MIT */
/*
 * White-box tests of the log-linear latency histogram (lib/rtel_hist.h):
 * exact below 32 ns, 32 buckets per power of two, a quantile is its
 * bucket's midpoint within 1/64 of the exact nearest-rank quantile (the
 * smallest value with at least ceil(q * count) values at or below it),
 * min / max / mean exact, values clamped to [0, 2^48).
 *
 * Expected values come from sorting the (clamped) values here.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "rtel_hist.h"

#define VMAX ((UINT64_C(1) << 48) - 1)

static uint64_t rs;
static uint64_t rnd(void) {
  uint64_t z = (rs += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static double unit(void) { return (double)(rnd() >> 11) / 9007199254740992.0; }

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static uint64_t clamp(int64_t v) {
  if (v < 0) {
    return 0;
  }
  return (uint64_t)v > VMAX ? VMAX : (uint64_t)v;
}

/* ------------------------------------------------------------- layout */

START_TEST(test_layout) {
  uint32_t i;
  ck_assert_uint_eq(rtel__hist_low(0), 0);
  for (i = 0; i < RTEL__HIST_BUCKETS; i++) {
    uint64_t lo = rtel__hist_low(i), w = rtel__hist_width(i);
    ck_assert_uint_gt(w, 0);
    if (i < 32) {
      ck_assert_uint_eq(lo, i); /* exact */
      ck_assert_uint_eq(w, 1);
    } else {
      /* 32 buckets per power of two: width = 2^(e - 5) for [2^e, 2^(e+1))
       * so that the midpoint is within 1/64 of any value in the bucket */
      uint64_t e = 63 - (uint64_t)__builtin_clzll(lo);
      ck_assert_uint_eq(w, UINT64_C(1) << (e - 5));
      ck_assert_uint_le(w * 32, lo);
      ck_assert_uint_eq((lo - (UINT64_C(1) << e)) % w, 0);
    }
    /* contiguous, increasing */
    if (i + 1 < RTEL__HIST_BUCKETS) {
      ck_assert_uint_eq(rtel__hist_low(i + 1), lo + w);
    } else {
      ck_assert_uint_eq(lo + w, VMAX + 1); /* ends at 2^48 */
    }
    ck_assert_uint_eq(rtel__hist_index(lo), i);
    ck_assert_uint_eq(rtel__hist_index(lo + w - 1), i);
  }
  /* the buckets of a power of two: exactly 32 */
  for (i = 5; i < 48; i++) {
    ck_assert_uint_eq(rtel__hist_index((UINT64_C(1) << (i + 1)) - 1) -
                          rtel__hist_index(UINT64_C(1) << i),
                      31);
  }
  ck_assert_uint_eq(rtel__hist_index(VMAX + 1), RTEL__HIST_BUCKETS - 1);
  ck_assert_uint_eq(rtel__hist_index(UINT64_MAX), RTEL__HIST_BUCKETS - 1);
}
END_TEST

START_TEST(test_index_random) {
  int k;
  rs = 0x1D3A;
  for (k = 0; k < 2000000; k++) {
    uint64_t v = rnd() >> (rnd() % 64);
    uint32_t i = rtel__hist_index(v);
    uint64_t c = v > VMAX ? VMAX : v;
    ck_assert_uint_lt(i, RTEL__HIST_BUCKETS);
    ck_assert_msg(
        rtel__hist_low(i) <= c && c - rtel__hist_low(i) < rtel__hist_width(i),
        "value %llu in bucket %u [%llu, +%llu)", (unsigned long long)c, i,
        (unsigned long long)rtel__hist_low(i),
        (unsigned long long)rtel__hist_width(i));
  }
}
END_TEST

/* ------------------------------------------------------------- quantiles */

static rtel__hist hist;

static int64_t draw(unsigned dist) {
  double u = unit();
  switch (dist) {
  case 0:
    return (int64_t)(rnd() % 32); /* exact region */
  case 1:
    return (int64_t)(rnd() % 1000);
  case 2:
    return (int64_t)(rnd() % 1000000000);
  case 3:
    return (int64_t)exp(u * log(1e12)); /* log-uniform */
  case 4: {
    double z = -6;
    int k;
    for (k = 0; k < 12; k++) {
      z += unit();
    }
    return (int64_t)exp(log(2e5) + 1.2 * z); /* log-normal */
  }
  case 5:
    return 777777;
  case 6:
    return (int64_t)(VMAX - 5000 + rnd() % 10000); /* around 2^48 */
  case 7:
    return (int64_t)(rnd() >> 1); /* far beyond 2^48: clamped */
  case 8:
    return -(int64_t)(rnd() % 100000) + (int64_t)(rnd() % 3); /* <= 0 */
  case 9:
    return u < 0.5 ? (int64_t)(rnd() % 40) : (int64_t)(1000 + rnd() % 40);
  case 10:
    return (int64_t)(64 + rnd() % 64); /* first 2-wide row */
  default: {
    /* mixture of everything */
    unsigned d = (unsigned)(rnd() % 11);
    return draw(d);
  }
  }
}

START_TEST(test_quantiles) {
  static const double qd[] = {0.5, 0.9, 0.99, 0.999};
  static const unsigned qn[] = {500, 900, 990, 999};
  unsigned dist = (unsigned)_i % 12;
  size_t n, i;
  uint64_t *v, sum_lo = 0, sum_hi = 0;
  rtel_latency sm;

  rs = 0xB0B0ull + (uint64_t)_i * 0x10001ull;
  switch (rnd() % 4) {
  case 0:
    n = 1 + rnd() % 5;
    break;
  case 1:
    n = 1 + rnd() % 100;
    break;
  default:
    n = 1 + rnd() % 20000;
  }
  v = malloc(n * sizeof(*v));
  ck_assert_ptr_nonnull(v);
  rtel__hist_reset(&hist);
  for (i = 0; i < n; i++) {
    int64_t x = draw(dist);
    rtel__hist_add(&hist, x);
    v[i] = clamp(x);
    /* 128-bit sum */
    sum_lo += v[i];
    sum_hi += sum_lo < v[i];
  }
  qsort(v, n, sizeof(*v), cmp_u64);
  rtel__hist_summary(&hist, &sm);
  ck_assert_uint_eq(sm.count, n);
  ck_assert_uint_eq((uint64_t)sm.min, v[0]);
  ck_assert_uint_eq((uint64_t)sm.max, v[n - 1]);
  ck_assert_uint_eq(sum_hi, 0); /* n <= 20000 values below 2^48 */
  ck_assert_uint_eq((uint64_t)sm.mean, sum_lo / n);
  for (i = 0; i < 4; i++) {
    uint64_t r = ((uint64_t)qn[i] * n + 999) / 1000;
    uint64_t x = v[r - 1];
    int64_t got = rtel__hist_quantile(&hist, qd[i]);
    double err = fabs((double)got - (double)x);
    ck_assert_msg(err <= (double)x / 64.0,
                  "dist %u n=%zu q=%g: %lld, exact %llu (rank %llu), "
                  "error %.4f%%",
                  dist, n, qd[i], (long long)got, (unsigned long long)x,
                  (unsigned long long)r, x ? 100.0 * err / (double)x : 100.0);
  }
  ck_assert_int_eq(sm.p50, rtel__hist_quantile(&hist, 0.5));
  ck_assert_int_eq(sm.p90, rtel__hist_quantile(&hist, 0.9));
  ck_assert_int_eq(sm.p99, rtel__hist_quantile(&hist, 0.99));
  ck_assert_int_eq(sm.p999, rtel__hist_quantile(&hist, 0.999));
  /* any q = k / 1000 */
  for (i = 0; i < 50; i++) {
    unsigned kq = 1 + (unsigned)(rnd() % 1000);
    uint64_t r = ((uint64_t)kq * n + 999) / 1000;
    uint64_t x = v[r - 1];
    int64_t got = rtel__hist_quantile(&hist, kq / 1000.0);
    ck_assert_msg(fabs((double)got - (double)x) <= (double)x / 64.0,
                  "dist %u n=%zu q=%u/1000: %lld, exact %llu", dist, n, kq,
                  (long long)got, (unsigned long long)x);
  }
  free(v);
}
END_TEST

START_TEST(test_constant_and_empty) {
  int64_t c;
  rtel_latency sm;
  rtel__hist_reset(&hist);
  ck_assert_int_eq(rtel__hist_quantile(&hist, 0.5), 0);
  rtel__hist_summary(&hist, &sm);
  ck_assert_uint_eq(sm.count, 0);
  ck_assert_int_eq(sm.max, 0);
  /* a constant is reported exactly at every quantile (clamped to
   * [min, max]) */
  for (c = 0; c < 3000000; c = c * 3 + 7) {
    int k;
    rtel__hist_reset(&hist);
    for (k = 0; k < 10; k++) {
      rtel__hist_add(&hist, c);
    }
    rtel__hist_summary(&hist, &sm);
    ck_assert_int_eq(sm.p50, c);
    ck_assert_int_eq(sm.p999, c);
    ck_assert_int_eq(sm.mean, c);
  }
  /* clamping */
  rtel__hist_reset(&hist);
  rtel__hist_add(&hist, -5);
  rtel__hist_add(&hist, INT64_MAX);
  rtel__hist_summary(&hist, &sm);
  ck_assert_int_eq(sm.min, 0);
  ck_assert_int_eq(sm.max, (int64_t)VMAX);
  ck_assert_int_eq(sm.mean, (int64_t)(VMAX / 2));
  ck_assert_int_eq(sm.p50, 0);
  ck_assert(fabs((double)sm.p999 - (double)VMAX) <= (double)VMAX / 64.0);
}
END_TEST

/* "min, max and mean are exact" and values are clamped to [0, 2^48): the
 * mean of 70000 values of 2^48 - 1 is 2^48 - 1 (their sum does not fit in
 * 64 bits). */
START_TEST(test_mean_large_count) {
  rtel_latency sm;
  int k;
  rtel__hist_reset(&hist);
  for (k = 0; k < 70000; k++) {
    rtel__hist_add(&hist, (int64_t)VMAX);
  }
  rtel__hist_summary(&hist, &sm);
  ck_assert_uint_eq(sm.count, 70000);
  ck_assert_int_eq(sm.max, (int64_t)VMAX);
  ck_assert_msg(sm.mean == (int64_t)VMAX,
                "mean of 70000 x (2^48 - 1) = %lld, expected %lld",
                (long long)sm.mean, (long long)VMAX);
}
END_TEST

/* rtel__hist_merge(): two histograms of a random split of the values
 * (either part possibly empty) merged equal one histogram of them all. */
static rtel__hist part[2], whole;

START_TEST(test_merge) {
  size_t n = (size_t)(rnd() % 3000), i;
  unsigned dist = (unsigned)_i % 12;
  int split = (int)(rnd() % 3); /* 0: all in part 0, 1: random, 2: all 1 */
  rtel__hist_reset(&part[0]);
  rtel__hist_reset(&part[1]);
  rtel__hist_reset(&whole);
  for (i = 0; i < n; i++) {
    int64_t x = draw(dist);
    rtel__hist_add(&part[split == 1 ? (int)(rnd() & 1) : split / 2], x);
    rtel__hist_add(&whole, x);
  }
  rtel__hist_merge(&part[0], &part[1]);
  ck_assert_uint_eq(part[0].count, whole.count);
  if (whole.count) {
    ck_assert_int_eq(part[0].min, whole.min);
    ck_assert_int_eq(part[0].max, whole.max);
  }
  ck_assert_msg(part[0].sum == whole.sum, "sum");
  ck_assert_msg(memcmp(part[0].b, whole.b, sizeof(whole.b)) == 0, "buckets");
}
END_TEST

static Suite *hist_suite(void) {
  Suite *s = suite_create("hist");
  TCase *tc = tcase_create("layout");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_layout);
  tcase_add_test(tc, test_index_random);
  suite_add_tcase(s, tc);
  tc = tcase_create("quantiles");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, test_quantiles, 0, 480);
  tcase_add_test(tc, test_constant_and_empty);
  tcase_add_test(tc, test_mean_large_count);
  tcase_add_loop_test(tc, test_merge, 0, 60);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(hist_suite());
  int failed;
  srunner_run_all(sr, CK_ENV);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
