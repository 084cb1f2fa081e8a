/* SPDX-License-Identifier: MIT */
/*
 * Log-linear latency histogram of fixed size: values below 32 ns are
 * counted exactly; above, each power of two is split into 32 equal
 * buckets, so a bucket's midpoint is within 1/64 (1.6 %) of any value in
 * it. Values are clamped to [0, 2^48) ns (about 78 hours).
 */
#ifndef RTEL_HIST_H
#define RTEL_HIST_H

#include "rtel_int.h"

#define RTEL__HIST_SUB_BITS 5
#define RTEL__HIST_SUB (1u << RTEL__HIST_SUB_BITS)
#define RTEL__HIST_MAX_EXP 47
#define RTEL__HIST_BUCKETS                                                    \
  ((RTEL__HIST_MAX_EXP - RTEL__HIST_SUB_BITS + 2) * RTEL__HIST_SUB)

typedef struct rtel__hist {
  uint64_t count;
  int64_t min;
  int64_t max;
#ifdef __SIZEOF_INT128__
  unsigned __int128 sum; /* of the clamped values, for the mean (2^48 x
                          * 2^64 values would overflow 64 bits) */
#else
  double sum;
#endif
  uint32_t b[RTEL__HIST_BUCKETS];
} rtel__hist;

#define RTEL__HIST_VMAX ((UINT64_C(1) << (RTEL__HIST_MAX_EXP + 1)) - 1)

/* rtel__hist_index(), inline. */
static inline uint32_t rtel__hist_idx(uint64_t v) {
  unsigned e;
  if (v < RTEL__HIST_SUB) {
    return (uint32_t)v;
  }
  if (v > RTEL__HIST_VMAX) {
    v = RTEL__HIST_VMAX;
  }
  e = 63u - (unsigned)__builtin_clzll(v);
  return (e - RTEL__HIST_SUB_BITS + 1) * RTEL__HIST_SUB +
         (uint32_t)((v >> (e - RTEL__HIST_SUB_BITS)) & (RTEL__HIST_SUB - 1));
}

/* A value clamped to [0, 2^48) and its bucket, for adding to several
 * histograms. */
typedef struct rtel__hist_val {
  uint64_t u;
  uint32_t idx;
} rtel__hist_val;

static inline rtel__hist_val rtel__hist_value(int64_t v) {
  rtel__hist_val hv;
  hv.u = v < 0 ? 0 : (uint64_t)v;
  if (hv.u > RTEL__HIST_VMAX) {
    hv.u = RTEL__HIST_VMAX;
  }
  hv.idx = rtel__hist_idx(hv.u);
  return hv;
}

/* rtel__hist_add() of a prepared value, inline. */
static inline void rtel__hist_put(rtel__hist *h, rtel__hist_val hv) {
  int64_t u = (int64_t)hv.u;
  h->min = h->count == 0 || u < h->min ? u : h->min;
  h->max = h->count == 0 || u > h->max ? u : h->max;
  h->count++;
  h->sum += hv.u;
  h->b[hv.idx]++;
}

void rtel__hist_reset(rtel__hist *h);
void rtel__hist_add(rtel__hist *h, int64_t v);
/* Adds the values of |o| to |h|: as if each had been added to it (with
 * a double sum, where there is no 128-bit integer, up to rounding). */
void rtel__hist_merge(rtel__hist *h, const rtel__hist *o);
/* The nearest-rank |q| quantile (0 < q <= 1) as its bucket's midpoint,
 * clamped to [min, max]; 0 if empty. */
int64_t rtel__hist_quantile(const rtel__hist *h, double q);
/* Fills a public summary. */
void rtel__hist_summary(const rtel__hist *h, rtel_latency *out);

/* Bucket of a (clamped, non-negative) value, and a bucket's bounds. */
uint32_t rtel__hist_index(uint64_t v);
uint64_t rtel__hist_low(uint32_t idx);
uint64_t rtel__hist_width(uint32_t idx);

#endif /* RTEL_HIST_H */
