/* SPDX-License-Identifier: MIT */
/*
 * tests/bench/bench_util.h - what the three benchmarks share (README.md):
 * the clocks and the CPU-load tally, the timed burst loop over an arena,
 * the result lines, a counting rtel_mem allocator that also proves the
 * packet path allocates nothing, and the byte writers of the packet
 * builders. Built into each benchmark (tests/bench/local.mk).
 */
#ifndef RTEL_BENCH_UTIL_H
#define RTEL_BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <rocetel/rocetel.h>

/* Program name for messages ("bench_flow"); main() sets it. */
extern const char *bench_prog;

/* ------------------------------------------------------------ clocks */

/* Seconds of CLOCK_MONOTONIC (wall) and CLOCK_THREAD_CPUTIME_ID (the
 * thread's CPU time, which leaves out the time it waited for a CPU). */
double bench_wall_s(void);
double bench_cpu_s(void);

/* ------------------------------------------------------------ allocator */

#define BENCH_LOG_MAX 64

/* The counting allocator's state; bench_mem passes it as user_data. */
typedef struct bench_counting {
  uint64_t calls; /* malloc + calloc + realloc */
  uint64_t frees;
  uint64_t bytes; /* requested by those calls */
  int align64;    /* set: 64-byte-aligned blocks (an experiment) */
  unsigned nlog;  /* allocations logged since the last reset */
  uint64_t log[BENCH_LOG_MAX][2]; /* nmemb, size */
} bench_counting;

extern bench_counting bench_cnt;
extern const rtel_mem bench_mem;

/* What one rtel_ctx_new() allocated: total bytes and each call's (nmemb,
 * size), in call order. */
typedef struct bench_alloc_log {
  uint64_t bytes;
  unsigned n;
  uint64_t a[BENCH_LOG_MAX][2];
} bench_alloc_log;

/* rtel_ctx_new() with bench_mem, logging its allocations in |lg|. */
int bench_ctx_new(rtel_ctx **pctx, const rtel_settings *s,
                  bench_alloc_log *lg);

/* ------------------------------------------------------------ timed passes */

#define BENCH_BURST 32u /* packets per rtel_ctx_read_pkts() call */

/* |n| bytes, 64-byte aligned, as a NIC's receive buffers are: a packet's
 * headers (54 to 70 bytes) are then in its first cache line or two, not
 * spread over two or three by malloc()'s 16-byte alignment. free() it. */
uint8_t *bench_arena_alloc(size_t n);

/* Reads the |n| packets of |arena| (slot i at arena + i * slot, captured
 * length cap[i], wire length wire[i]) into |ctx| in bursts of BENCH_BURST,
 * packet i with timestamp ts0 + i * ts_step. Returns the thread CPU
 * seconds it took and adds them and the wall time to the load tally.
 * Aborts if a read fails or the allocator was called. */
double bench_read_arena(rtel_ctx *ctx, const uint8_t *arena, size_t slot,
                        size_t n, const uint16_t *cap, const uint16_t *wire,
                        rtel_tstamp ts0, uint32_t ts_step);

/* One result line: NAME (left-aligned in |width| columns), packets per
 * second and |ns| per packet; I/Os per second when |pkts_per_io| > 0; the
 * difference to |base_ns| "over BASE_NAME" when |base_ns| > 0; |note|
 * when not NULL. */
void bench_print_rate(int width, const char *name, double ns,
                      double pkts_per_io, double base_ns,
                      const char *base_name, const char *note);

/* The last line: CPU time / wall time of bench_read_arena()'s loops. */
void bench_print_load(void);

/* ------------------------------------------------------------ bytes */

static inline void put16(uint8_t *p, unsigned v) {
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
}
static inline void put24(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 16);
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)v;
}
static inline void put32(uint8_t *p, uint32_t v) {
  put16(p, v >> 16);
  put16(p + 2, v & 0xffff);
}
static inline void put64(uint8_t *p, uint64_t v) {
  put32(p, (uint32_t)(v >> 32));
  put32(p + 4, (uint32_t)v);
}
static inline void le16(uint8_t *p, unsigned v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}
static inline void le32(uint8_t *p, uint32_t v) {
  le16(p, v & 0xffff);
  le16(p + 2, v >> 16);
}
static inline void le64(uint8_t *p, uint64_t v) {
  le32(p, (uint32_t)v);
  le32(p + 4, (uint32_t)(v >> 32));
}

/* A 32-bit integer hash (for addresses, PSNs, keys of the builders). */
static inline uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

/* Ethernet, IPv4 (DSCP 26, |ecn|), UDP and BTH of a RoCEv2 packet whose BTH
 * is followed by |rest| bytes on the wire (extension headers + payload,
 * ICRC excluded). Returns the offset after the BTH; *wire gets the length
 * on the wire. */
size_t put_hdrs(uint8_t *p, uint32_t sip, uint32_t dip, unsigned sport,
                uint8_t ecn, uint8_t opcode, int ackreq, uint32_t dqpn,
                uint32_t psn, size_t rest, size_t *wire);

#endif
