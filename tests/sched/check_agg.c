/* SPDX-License-Identifier: MIT */
/*
 * I/O aggregates (rtel-metrics(7), rocetel.h rtel_io_aggregate /
 * rtel_latency / report_interval): NVMe-oF reads with IOL and DAL drawn
 * from random distributions, one reporting period; count, bytes, errors,
 * min / max / mean exact, p50 / p90 / p99 / p99.9 within 1/64 of the exact
 * nearest-rank quantile computed here by sorting.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define VMAX ((UINT64_C(1) << 48) - 1)

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Exact nearest-rank quantile q = num / 1000 of sorted |v| (n > 0). */
static uint64_t nearest_rank(const uint64_t *v, size_t n, unsigned num) {
  uint64_t r = ((uint64_t)num * n + 999) / 1000;
  return v[(r ? r : 1) - 1];
}

/* Checks |l| against the values |v| (clamped here, then sorted). */
static void ck_latency(const rtel_latency *l, uint64_t *v, size_t n,
                       const char *what) {
  static const unsigned qs[4] = {500, 900, 990, 999};
  const int64_t got[4] = {l->p50, l->p90, l->p99, l->p999};
  uint64_t sum = 0;
  size_t i;
  for (i = 0; i < n; i++) {
    if (v[i] > VMAX) {
      v[i] = VMAX;
    }
    sum += v[i];
  }
  qsort(v, n, sizeof(v[0]), cmp_u64);
  ck_assert_uint_eq(l->count, n);
  ck_assert_msg((uint64_t)l->min == v[0], "%s min %lld, expected %llu", what,
                (long long)l->min, (unsigned long long)v[0]);
  ck_assert_msg((uint64_t)l->max == v[n - 1], "%s max %lld, expected %llu",
                what, (long long)l->max, (unsigned long long)v[n - 1]);
  ck_assert_msg((uint64_t)l->mean == sum / n, "%s mean %lld, expected %llu",
                what, (long long)l->mean, (unsigned long long)(sum / n));
  for (i = 0; i < 4; i++) {
    uint64_t x = nearest_rank(v, n, qs[i]);
    double err = fabs((double)got[i] - (double)x);
    ck_assert_msg(err <= (double)x / 64.0,
                  "%s q=0.%u (n=%zu): %lld, exact %llu, error %.4f%% > 1/64",
                  what, qs[i], n, (long long)got[i], (unsigned long long)x,
                  x ? 100.0 * err / (double)x : 100.0);
  }
}

static uint64_t draw(rng *r, unsigned dist) {
  double u = rng_unit(r);
  switch (dist) {
  case 0:
    return 1 + rng_below(r, 31); /* exact region */
  case 1:
    return 32 + rng_below(r, 2000);
  case 2:
    return 1 + rng_below(r, 1000000);
  case 3:
    return 1 + (uint64_t)exp(u * log(1e9)); /* log-uniform */
  case 4: {
    /* log-normal: exp(N(ln 50 us, 0.8)) with N from 12 uniforms */
    double z = -6;
    int k;
    for (k = 0; k < 12; k++) {
      z += rng_unit(r);
    }
    return (uint64_t)exp(log(50000.0) + 0.8 * z);
  }
  case 5:
    return 12345;
  case 6:
    return u < 0.9 ? 9900 + rng_below(r, 200) : 4900000 + rng_below(r, 200000);
  case 7:
    return 1 + rng_below(r, 10000000);
  case 8:
    /* near 2^48 and beyond: clamped */
    return VMAX - 1000 + rng_below(r, UINT64_C(1) << 41);
  default: {
    double x = 1000.0 / pow(1.0 - u, 1.5); /* Pareto tail */
    return x > 1e12 ? (uint64_t)1e12 : (uint64_t)x;
  }
  }
}

START_TEST(test_agg_quantiles) {
  H h;
  rtel_settings st;
  rng r;
  unsigned dist = (unsigned)_i % 10;
  size_t n, k, m;
  uint64_t *iol, *dal, errors = 0;
  const rtel_tstamp T0 = 1000, IV = UINT64_C(1) << 62;
  nvq q = {6, 0x0A010001u, 0x0A020001u, 0x11, 0x22, 100, 500};
  rtel_tstamp t;
  const entry *g[2];
  size_t ng = 0, i;

  rng_seed(&r, 0xA66A66ull + (uint64_t)_i * 31337u);
  n = dist == 7   ? 1 + rng_below(&r, 5)
      : dist == 8 ? 40
                  : 200 + rng_below(&r, 1800);
  iol = calloc(n, sizeof(*iol));
  dal = calloc(n, sizeof(*dal));
  ck_assert(iol && dal);
  rtel_settings_default(&st);
  st.report_interval = IV;
  st.io_timeout = IV;
  st.max_ios = 64;
  h_init(&h, &st);
  nv_open(&h, &q, T0, 1);
  t = T0 + 100;
  for (k = 0; k < n; k++) {
    uint16_t cid = (uint16_t)(100 + k);
    uint64_t va = 0xB0000000ull + (uint64_t)k * 0x10000ull;
    uint16_t sf = k % 17 == 3 ? 0x0002 : 0;
    iol[k] = draw(&r, dist);
    dal[k] = (uint64_t)((double)iol[k] * rng_unit(&r));
    nv_cmd(&h, &q, t, RTEL_NVME_OP_READ, cid, 1, k * 8, va, 4096,
           0x1000u + (uint32_t)k);
    nv_wdata(&h, &q, t + dal[k], va, 0x1000u + (uint32_t)k, 4096);
    nv_rsp(&h, &q, t + iol[k], cid, sf);
    errors += sf != 0;
    t += iol[k] + 1;
  }
  ck_assert_uint_eq(h_stats(&h).ios_complete, n + 2);
  m = h.n;
  ck_assert_uint_le(rtel_ctx_get_expiry(h.ctx), T0 + IV);
  h_expire(&h, T0 + IV);
  for (i = m; i < h.n; i++) {
    if (h.e[i].kind == EV_AGG) {
      ck_assert_uint_lt(ng, 2);
      g[ng++] = &h.e[i];
    }
  }
  ck_assert_uint_eq(ng, 2);
  for (i = 0; i < 2; i++) {
    const rtel_io_aggregate *a = &g[i]->agg;
    ck_assert(a->nsid == 1 || a->nsid == RTEL_NSID_ALL);
    ck_assert_uint_eq(a->opcode, RTEL_NVME_OP_READ);
    ck_assert(h_addr_is(a->host, q.host));
    ck_assert(h_addr_is(a->target, q.target));
    ck_assert_uint_eq(a->period_start, T0);
    ck_assert_uint_eq(a->period_end, T0 + IV);
    ck_assert_uint_eq(a->count, n);
    ck_assert_uint_eq(a->bytes, 4096ull * n);
    ck_assert_uint_eq(a->errors, errors);
    ck_assert_uint_eq(a->timeouts, 0);
    ck_latency(&a->iol, iol, n, "IOL");
    ck_latency(&a->dal, dal, n, "DAL");
    ck_assert_uint_eq(a->dpl.count, 0);
  }
  ck_assert_uint_ne(g[0]->agg.nsid, g[1]->agg.nsid);
  free(iol);
  free(dal);
  h_free(&h);
}
END_TEST

/* Reporting periods of report_interval, aligned to the first packet: one
 * report per aggregate that saw an I/O, none for an empty period, and a
 * late caller gets one report covering the periods that ended. Timeouts
 * and NVMe errors are counted. */
START_TEST(test_agg_periods) {
  H h;
  rtel_settings st;
  const rtel_tstamp T0 = 5000, IV = 1000000;
  nvq q = {6, 0x0A010001u, 0x0A020001u, 0x11, 0x22, 100, 500};
  size_t m, i;

  rtel_settings_default(&st);
  st.report_interval = IV;
  st.io_timeout = 100000;
  h_init(&h, &st);
  nv_open(&h, &q, T0, 1);
  /* period 1: a read (IOL 2000), a write (IOL 3000) with an error */
  nv_cmd(&h, &q, 10000, RTEL_NVME_OP_READ, 2, 1, 0, 0xC0000000ull, 4096, 1);
  nv_wdata(&h, &q, 11000, 0xC0000000ull, 1, 4096);
  nv_rsp(&h, &q, 12000, 2, 0);
  nv_cmd(&h, &q, 20000, RTEL_NVME_OP_WRITE, 3, 2, 0, 0xC1000000ull, 4096, 2);
  {
    uint32_t psn = nv_rdreq(&h, &q, 20500, 0xC1000000ull, 2, 4096);
    nv_rdresp(&h, &q, 21500, psn, 4096);
  }
  nv_rsp(&h, &q, 23000, 3, 0x0281);
  m = h.n;
  h_advance(&h, T0 + IV);
  /* read: nsid 1 and all; write: nsid 2 and all */
  ck_assert_uint_eq(h_count(&h, m, EV_AGG), 4);
  for (i = 0; i < 4; i++) {
    const rtel_io_aggregate *a = &h_nth(&h, m, EV_AGG, i)->agg;
    int wr = a->opcode == RTEL_NVME_OP_WRITE;
    ck_assert_uint_eq(a->period_start, T0);
    ck_assert_uint_eq(a->period_end, T0 + IV);
    ck_assert_uint_eq(a->count, 1);
    ck_assert_uint_eq(a->bytes, 4096);
    ck_assert(a->nsid == RTEL_NSID_ALL || a->nsid == (wr ? 2u : 1u));
    ck_assert_uint_eq(a->errors, (uint64_t)wr);
    ck_assert_uint_eq(a->timeouts, 0);
    ck_assert_int_eq(a->iol.p50, wr ? 3000 : 2000);
    ck_assert_int_eq(a->iol.max, wr ? 3000 : 2000);
    ck_assert_int_eq(a->dal.min, wr ? 500 + 1500 : 1000);
    ck_assert_uint_eq(a->dpl.count, (uint64_t)wr);
    if (wr) {
      ck_assert_int_eq(a->dpl.mean, 1000);
    }
  }
  /* period 2: nothing, no report */
  m = h.n;
  h_advance(&h, T0 + 2 * IV);
  ck_assert_uint_eq(h_count(&h, m, EV_AGG), 0);
  /* period 3: a read; one without a response; then a late call at the
   * middle of period 5 */
  nv_cmd(&h, &q, T0 + 2 * IV + 100, RTEL_NVME_OP_READ, 4, 1, 8, 0xC2000000ull,
         4096, 3);
  nv_rsp(&h, &q, T0 + 2 * IV + 5100, 4, 0);
  nv_cmd(&h, &q, T0 + 2 * IV + 6000, RTEL_NVME_OP_READ, 5, 1, 16,
         0xC3000000ull, 4096, 4);
  m = h.n;
  h_expire(&h, T0 + 4 * IV + IV / 2);
  ck_assert_uint_eq(h_count(&h, m, EV_AGG), 2);
  for (i = 0; i < 2; i++) {
    const rtel_io_aggregate *a = &h_nth(&h, m, EV_AGG, i)->agg;
    ck_assert_uint_eq(a->opcode, RTEL_NVME_OP_READ);
    ck_assert_uint_eq(a->period_start, T0 + 2 * IV);
    ck_assert_uint_eq(a->period_end, T0 + 4 * IV);
    ck_assert_uint_eq(a->count, 1);
    ck_assert_uint_eq(a->timeouts, 1);
    ck_assert_int_eq(a->iol.p999, 5000);
  }
  ck_assert_uint_eq(rtel_ctx_get_expiry(h.ctx), T0 + 5 * IV);
  h_free(&h);
}
END_TEST

/* rtel_settings.period_origin: two contexts whose first packets are in
 * different places report the same periods, those of the origin (300 +
 * k x IV here), not of their first packets; the first period is the one
 * holding the first packet. By hand. */
START_TEST(test_agg_origin) {
  const rtel_tstamp IV = 1000000, O = 300 + 7 * IV;
  const rtel_tstamp first[2] = {5000, 700000};
  nvq q = {6, 0x0A010001u, 0x0A020001u, 0x11, 0x22, 100, 500};
  int c;
  for (c = 0; c < 2; c++) {
    H h;
    rtel_settings st;
    rtel_tstamp t = first[c];
    size_t m, i;
    rtel_settings_default(&st);
    st.report_interval = IV;
    st.period_origin = O;
    h_init(&h, &st);
    nv_open(&h, &q, t, 1);
    nv_cmd(&h, &q, t + 5000, RTEL_NVME_OP_READ, 2, 1, 0, 0xC0000000ull, 4096,
           1);
    nv_wdata(&h, &q, t + 6000, 0xC0000000ull, 1, 4096);
    nv_rsp(&h, &q, t + 7000, 2, 0);
    ck_assert_uint_eq(rtel_ctx_get_expiry(h.ctx) <= IV + 300, 1);
    m = h.n;
    h_advance(&h, IV + 300);
    ck_assert_uint_eq(h_count(&h, m, EV_AGG), 2); /* nsid 1 and all */
    for (i = 0; i < 2; i++) {
      const rtel_io_aggregate *a = &h_nth(&h, m, EV_AGG, i)->agg;
      ck_assert_uint_eq(a->period_start, 300);
      ck_assert_uint_eq(a->period_end, IV + 300);
      ck_assert_uint_eq(a->count, 1);
      ck_assert_int_eq(a->iol.max, 2000);
    }
    h_free(&h);
  }
}
END_TEST

Suite *agg_suite(void) {
  Suite *s = suite_create("agg");
  TCase *tc = tcase_create("quantiles");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, test_agg_quantiles, 0, 40);
  tcase_add_test(tc, test_agg_periods);
  tcase_add_test(tc, test_agg_origin);
  suite_add_tcase(s, tc);
  return s;
}
