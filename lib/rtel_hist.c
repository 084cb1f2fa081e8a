/* SPDX-License-Identifier: MIT */
#include "rtel_hist.h"

uint32_t rtel__hist_index(uint64_t v) { return rtel__hist_idx(v); }

uint64_t rtel__hist_low(uint32_t idx) {
  uint32_t row = idx / RTEL__HIST_SUB, col = idx % RTEL__HIST_SUB;
  unsigned e;
  if (row == 0) {
    return idx;
  }
  e = row + RTEL__HIST_SUB_BITS - 1;
  return (UINT64_C(1) << e) + ((uint64_t)col << (e - RTEL__HIST_SUB_BITS));
}

uint64_t rtel__hist_width(uint32_t idx) {
  uint32_t row = idx / RTEL__HIST_SUB;
  if (row == 0) {
    return 1;
  }
  return UINT64_C(1) << (row - 1);
}

void rtel__hist_reset(rtel__hist *h) { memset(h, 0, sizeof(*h)); }

void rtel__hist_add(rtel__hist *h, int64_t v) {
  rtel__hist_put(h, rtel__hist_value(v));
}

void rtel__hist_merge(rtel__hist *h, const rtel__hist *o) {
  uint32_t i;
  if (o->count == 0) {
    return;
  }
  if (h->count == 0 || o->min < h->min) {
    h->min = o->min;
  }
  if (h->count == 0 || o->max > h->max) {
    h->max = o->max;
  }
  h->count += o->count;
  h->sum += o->sum;
  for (i = 0; i < RTEL__HIST_BUCKETS; i++) {
    h->b[i] += o->b[i];
  }
}

int64_t rtel__hist_quantile(const rtel__hist *h, double q) {
  uint64_t rank, seen = 0;
  uint32_t i;
  int64_t v;
  if (h->count == 0) {
    return 0;
  }
  rank = (uint64_t)(q * (double)h->count);
  if ((double)rank < q * (double)h->count) {
    rank++; /* ceil */
  }
  if (rank == 0) {
    rank = 1;
  }
  for (i = 0; i < RTEL__HIST_BUCKETS; i++) {
    seen += h->b[i];
    if (seen >= rank) {
      break;
    }
  }
  if (i == RTEL__HIST_BUCKETS) {
    return h->max;
  }
  v = (int64_t)(rtel__hist_low(i) + rtel__hist_width(i) / 2);
  if (rtel__hist_width(i) == 1) {
    v = (int64_t)rtel__hist_low(i);
  }
  return v < h->min ? h->min : v > h->max ? h->max : v;
}

void rtel__hist_summary(const rtel__hist *h, rtel_latency *out) {
  out->count = h->count;
  out->min = h->count ? h->min : 0;
  out->max = h->count ? h->max : 0;
  out->mean = h->count ? (int64_t)(h->sum / h->count) : 0; /* floor */
  out->p50 = rtel__hist_quantile(h, 0.50);
  out->p90 = rtel__hist_quantile(h, 0.90);
  out->p99 = rtel__hist_quantile(h, 0.99);
  out->p999 = rtel__hist_quantile(h, 0.999);
}
