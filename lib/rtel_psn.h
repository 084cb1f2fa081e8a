/* SPDX-License-Identifier: MIT */
/*
 * 24-bit packet sequence numbers (BTH PSN) as serial numbers (RFC 1982):
 * they wrap, so "after" means less than half the space ahead.
 */
#ifndef RTEL_PSN_H
#define RTEL_PSN_H

#include "rtel_int.h"

#define RTEL__PSN_MASK 0xffffffu

/* |v| reduced to 24 bits. */
static inline uint32_t rtel__psn(uint32_t v) { return v & RTEL__PSN_MASK; }

/* |psn| + |n| (n may be negative), wrapped to 24 bits. */
static inline uint32_t rtel__psn_add(uint32_t psn, int32_t n) {
  return (psn + (uint32_t)n) & RTEL__PSN_MASK;
}

/* Serial difference a - b, in [-2^23, 2^23). */
static inline int32_t rtel__psn_diff(uint32_t a, uint32_t b) {
  uint32_t d = (a - b) & RTEL__PSN_MASK;
  return d & 0x800000u ? (int32_t)d - 0x1000000 : (int32_t)d;
}

/* Is |a| after |b|? */
static inline int rtel__psn_after(uint32_t a, uint32_t b) {
  return rtel__psn_diff(a, b) > 0;
}

/* Is |a| before |b|? */
static inline int rtel__psn_before(uint32_t a, uint32_t b) {
  return rtel__psn_diff(a, b) < 0;
}

/* Is |psn| in [lo, hi]? */
static inline int rtel__psn_in(uint32_t psn, uint32_t lo, uint32_t hi) {
  return !rtel__psn_before(psn, lo) && !rtel__psn_after(psn, hi);
}

#endif /* RTEL_PSN_H */
