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
#include <stdlib.h>

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
  int huge;       /* set (with align64): huge pages for blocks >= 2 MiB */
  int lazy;       /* set: blocks as the allocator returns them, their pages
                     faulted in when first written (but with align64 the
                     allocator zeroes calloc()'s blocks itself); else (the
                     default) a write to every page of every block when it
                     is allocated, as rtel-collect(8) allocates: the tables
                     are resident before the first packet
                     (tests/bench/README.md, "Resident tables") */
  unsigned nlog;  /* allocations logged since the last reset */
  uint64_t log[BENCH_LOG_MAX][2]; /* nmemb, size */
} bench_counting;

extern bench_counting bench_cnt;
extern const rtel_mem bench_mem;

/* How bench_mem allocates, for a program's first line: "; ..." */
const char *bench_alloc_desc(void);

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
/* The same with callbacks |cb| (may be NULL) and |user_data|. */
int bench_ctx_new_cb(rtel_ctx **pctx, const rtel_settings *s,
                     const rtel_callbacks *cb, void *user_data,
                     bench_alloc_log *lg);

/* ------------------------------------------------------------ timed passes */

/* packets per rtel_ctx_read_pkts() call (and the floors' batch); a
 * compile-time experiment may set another (-DBENCH_BURST=256u) */
#ifndef BENCH_BURST
#  define BENCH_BURST 32u
#endif

/* |n| bytes, 64-byte aligned, as a NIC's receive buffers are: a packet's
 * headers (54 to 70 bytes) are then in its first cache line or two, not
 * spread over two or three by malloc()'s 16-byte alignment. free() it. */
uint8_t *bench_arena_alloc(size_t n);

/* A timed loop: bench_timer_start() before it, bench_timer_stop() after
 * it with the packets it handled. stop() returns the thread CPU seconds
 * in between, adds them and the wall time to the load tally
 * (bench_print_load()), adds the packets and the allocator calls made in
 * between to the allocation tally (bench_print_allocs()), and aborts if
 * there was any allocator call: no timed loop may allocate. */
typedef struct bench_timer {
  double w0, t0;
  uint64_t calls0;
} bench_timer;

void bench_timer_start(bench_timer *tm);
double bench_timer_stop(const bench_timer *tm, uint64_t pkts);

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

/* The last line: CPU time / wall time of the timed loops. */
void bench_print_load(void);

/* The line "alloc/pkt": allocator calls (malloc, calloc, realloc, free)
 * in the timed loops since the last call / packets timed since then, and
 * both counts. It can only print 0: bench_timer_stop() aborts at the
 * first timed loop that calls the allocator. */
void bench_print_allocs(void);

/* ------------------------------------------------------------ the floor */

/* The bare floor of a flow table: a plain open-addressing hash table
 * (linear probing, power-of-two size, no resizing, nothing else) of
 * 64-byte entries, 64-byte aligned, written here and not in the library,
 * updated once per packet. Key: three 32-bit words; for a packet, its
 * (source address, destination address, destination QPN) read from the
 * bytes at fixed offsets (Ethernet without VLAN, IPv4 without options:
 * 26, 30, 47). Update: packets, bytes, first and last timestamp, highest
 * PSN, PSN gaps, CE marks.
 *
 * BENCH_FLOOR_SHAPE, a compile-time experiment (default 1), sets how many
 * lines the flow floor's update writes and where they are, to measure
 * what a second line costs a flow table (tests/bench/README.md, session
 * of 2026-12-07):
 *   1  one line: the entry (64 bytes)
 *   2  two adjacent lines: 128-byte entries whose second line holds a
 *      message's packets, bytes and last time, written by every packet
 *   3  two independent lines: the 64-byte entry and, at a place of its
 *      own (the high half of the key's hash), a line of a second table
 *      of as many lines holding the same message counters (written by
 *      bench_floor_pkt_update() and the batched pass, which prefetches it
 *      with the entry)
 *   4  the library's shape: an open-addressing index of 32-bit slots
 *      (the flow table's buckets: 4 bytes each, 2 or more per key) that
 *      name 448-byte entries (the library's flow stride, 64-byte aligned)
 *      taken in the order keys first come (bench_floor_big); the update
 *      writes lines 0-2 of the entry, as a data packet reads the flow's
 *      key and writes its highest PSN (line 0), its data line (1) and its
 *      own open message's line 0 (2). The batched pass prefetches the slot
 *      when it hashes the packet and, some packets later, reads it and
 *      prefetches the entry's three lines (bench_floor_pass_batch()).
 *      bench_floor_pkt_update() takes this shape too (bench_nvme's flow
 *      floor); bench_floor_get(), _find() and _del() keep the 64-byte
 *      entries (bench_nvme's I/O floor)
 * e.g. make tests/bench/bench_flow CFLAGS='-O2 -DBENCH_FLOOR_SHAPE=2'
 * (after touching tests/bench/bench_util.c and the program's own .c). */
#ifndef BENCH_FLOOR_SHAPE
#  define BENCH_FLOOR_SHAPE 1
#endif
/* BENCH_FLOOR_DECODES (shape 4 only, default 0): the batched pass also
 * runs the public decoder this many times on each packet just before its
 * update: instructions added to the floor's memory traffic, to measure
 * what instructions cost at the library's memory shape. */
#ifndef BENCH_FLOOR_DECODES
#  define BENCH_FLOOR_DECODES 0
#endif
#if BENCH_FLOOR_DECODES > 0 && BENCH_FLOOR_SHAPE != 4
#  error "BENCH_FLOOR_DECODES needs BENCH_FLOOR_SHAPE=4"
#endif
/* BENCH_FLOOR_FUSED (shape 4 only, without BENCH_FLOOR_DECODES; default
 * 0): the batched pass becomes a prototype of a fused fast path, the least
 * a library must do for a data packet of an existing flow if it decodes
 * only what the flow table reads and updates the flow at once, with no
 * rtel_pkt_hd and no generic hub (bench_fused_decode(),
 * bench_fused_update()): the header checks a decoder needs before it may
 * trust the packet's key and lengths, the key as 16-byte addresses and a
 * hash of the library's cost, the hub's four counters, and the flow's and
 * its open message's fields a data packet moves. What it still leaves out
 * (so it is a lower bound): the 36-byte key comparison (3 words here), the
 * idle, active-timeout and LRU-tick tests, the pairing and settle checks. */
#ifndef BENCH_FLOOR_FUSED
#  define BENCH_FLOOR_FUSED 0
#endif
#if BENCH_FLOOR_FUSED && (BENCH_FLOOR_SHAPE != 4 || BENCH_FLOOR_DECODES > 0)
#  error "BENCH_FLOOR_FUSED needs BENCH_FLOOR_SHAPE=4, no BENCH_FLOOR_DECODES"
#endif

/* A message's counters (BENCH_FLOOR_SHAPE 2, 3 and 4): one line. */
typedef struct bench_floor_msg {
  uint64_t pkts, bytes, last_ts;
  uint64_t pad[5];
} bench_floor_msg;

typedef struct bench_floor_ent {
  uint32_t a, b, c; /* the key */
  uint32_t used;    /* 1: taken */
  uint64_t pkts, bytes;
  uint64_t first_ts, last_ts;
  uint32_t psn;  /* highest PSN (the packet's; for a (queue, CID) entry:
                    what the caller keeps there) */
  uint32_t gaps; /* PSNs that jumped ahead by more than one */
  uint32_t ce;   /* packets marked CE */
  uint32_t h;    /* the low 32 bits of the key's hash */
#if BENCH_FLOOR_SHAPE == 2
  bench_floor_msg msg; /* the entry's second line */
#endif
} bench_floor_ent;

/* BENCH_FLOOR_SHAPE 4: the library-shaped entry, 7 lines. */
typedef struct bench_floor_big {
  bench_floor_ent ent; /* line 0: the key, the flow's counters and PSN */
  bench_floor_msg hot; /* line 1: the data line's counters */
  bench_floor_msg msg; /* line 2: its message's counters */
  uint64_t cold[32];   /* lines 3-6: not touched */
} bench_floor_big;

#if BENCH_FLOOR_SHAPE == 4
_Static_assert(sizeof(bench_floor_big) == 448 &&
                   offsetof(bench_floor_big, hot) == 64 &&
                   offsetof(bench_floor_big, msg) == 128,
               "shape 4: the library's stride, whole lines");
#endif

/* An entry of the second table: shape 3, a line (|cap| of them); shape 4,
 * a bench_floor_big (|cap| / 2). */
#if BENCH_FLOOR_SHAPE == 4
typedef bench_floor_big bench_floor_m;
#else
typedef bench_floor_msg bench_floor_m;
#endif

typedef struct bench_floor {
  bench_floor_ent *e;
  bench_floor_m *m; /* BENCH_FLOOR_SHAPE 3 and 4: the second table */
  uint32_t *idx;    /* BENCH_FLOOR_SHAPE 4: cap slots, each naming an entry
                       of m or UINT32_MAX (empty) */
  size_t cap, mask; /* entries: a power of two */
  size_t mmask;     /* the second table's entries - 1 */
  size_t n;         /* taken */
} bench_floor;

/* A table for up to |keys| keys: the least power of two >= 2 |keys|
 * entries (load <= 1/2), zeroed (BENCH_FLOOR_SHAPE 4: as many index
 * slots, and half as many entries of the second table). Returns 0, or -1 out
 * of memory. Not through bench_mem: not part of what the allocator counts. */
int bench_floor_init(bench_floor *t, size_t keys);
void bench_floor_free(bench_floor *t);

static inline uint32_t bench_rd32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
         p[3];
}
static inline uint32_t bench_rd24(const uint8_t *p) {
  return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint64_t bench_floor_hash(uint32_t a, uint32_t b, uint32_t c) {
  uint64_t h = ((uint64_t)a << 32 | b) ^ ((uint64_t)c * 0x9e3779b97f4a7c15ull);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

#if BENCH_FLOOR_FUSED
static inline uint64_t bench_rotl(uint64_t x, int r) {
  return x << r | x >> (64 - r);
}

/* BENCH_FLOOR_FUSED: the key's hash at the library's cost. The library
 * holds a key as IPv4-mapped 16-byte addresses and a QPN and hashes five
 * words with a multiply each; so does this (the zero words made opaque to
 * the compiler, as words loaded from a key would be). */
static inline uint64_t bench_fused_hash(uint32_t a, uint32_t b, uint32_t c) {
  uint64_t s_lo = 0, d_lo = 0, h;
  uint64_t s_hi = (uint64_t)a << 32 | 0xffffu,
           d_hi = (uint64_t)b << 32 | 0xffffu;
  __asm__("" : "+r"(s_lo), "+r"(d_lo));
  h = (s_lo + 0x51) * 0x9ddfea08eb382d69ull ^
      bench_rotl((s_hi + 0x52) * 0xc6a4a7935bd1e995ull, 11) ^
      bench_rotl((d_lo - 0x53) * 0xff51afd7ed558ccdull, 23) ^
      bench_rotl((d_hi - 0x54) * 0xc4ceb9fe1a85ec53ull, 37) ^
      bench_rotl((uint64_t)c * 0x94d049bb133111ebull, 47);
  return h ^ h >> 29;
}
#endif

/* The entry of key (a, b, c) of hash |h|, taken if it was not there
 * (zeroed but for the key); aborts if the table is full. */
static inline bench_floor_ent *bench_floor_get(bench_floor *t, uint64_t h,
                                               uint32_t a, uint32_t b,
                                               uint32_t c) {
  size_t i = (size_t)h & t->mask;
  for (;;) {
    bench_floor_ent *e = &t->e[i];
    if (!e->used) {
      if (t->n + 1 >= t->cap) {
        abort();
      }
      t->n++;
      e->a = a;
      e->b = b;
      e->c = c;
      e->used = 1;
      e->h = (uint32_t)h;
      return e;
    }
    if (e->a == a && e->b == b && e->c == c) {
      return e;
    }
    i = (i + 1) & t->mask;
  }
}

/* The entry of key (a, b, c) of hash |h|, or NULL. */
static inline bench_floor_ent *bench_floor_find(const bench_floor *t,
                                                uint64_t h, uint32_t a,
                                                uint32_t b, uint32_t c) {
  size_t i = (size_t)h & t->mask;
  for (;;) {
    bench_floor_ent *e = &t->e[i];
    if (!e->used) {
      return NULL;
    }
    if (e->a == a && e->b == b && e->c == c) {
      return e;
    }
    i = (i + 1) & t->mask;
  }
}

/* Removes |e| (backward-shift deletion: no tombstones). */
void bench_floor_del(bench_floor *t, bench_floor_ent *e);

/* The update of a flow entry by one packet: |p| its bytes (BTH at 42),
 * |wire| its length on the wire, |ts| its time. */
static inline void bench_floor_update(bench_floor_ent *e, const uint8_t *p,
                                      uint32_t wire, uint64_t ts) {
  uint32_t psn = bench_rd24(p + 51), d = (psn - e->psn) & 0xffffff;
  if (e->pkts == 0) {
    e->first_ts = ts;
  } else if (d > 1 && d < 0x800000) {
    e->gaps++;
  }
  if (e->pkts == 0 || d < 0x800000) {
    e->psn = psn;
  }
  e->pkts++;
  e->bytes += wire;
  e->last_ts = ts;
  e->ce += (p[15] & 3) == 3;
#if BENCH_FLOOR_SHAPE == 2
  e->msg.pkts++;
  e->msg.bytes += wire;
  e->msg.last_ts = ts;
#endif
}

#if BENCH_FLOOR_SHAPE == 4
/* The entry of key (a, b, c) of hash |h| through the index, taken (the
 * next unused, zeroed but for the key) if it was not there; aborts if the
 * table is full. */
static inline bench_floor_big *bench_floor_get4(bench_floor *t, uint64_t h,
                                                uint32_t a, uint32_t b,
                                                uint32_t c) {
  size_t i = (size_t)h & t->mask;
  for (;;) {
    uint32_t x = t->idx[i];
    bench_floor_big *g;
    if (x == UINT32_MAX) {
      if (t->n > t->mmask) { /* all cap / 2 entries taken */
        abort();
      }
      x = (uint32_t)t->n++;
      t->idx[i] = x;
      g = &t->m[x];
      g->ent.a = a;
      g->ent.b = b;
      g->ent.c = c;
      g->ent.used = 1;
      g->ent.h = (uint32_t)h;
      return g;
    }
    g = &t->m[x];
    if (g->ent.a == a && g->ent.b == b && g->ent.c == c) {
      return g;
    }
    i = (i + 1) & t->mask;
  }
}

/* The update of a library-shaped entry by one packet: the flow's counters
 * on line 0 (bench_floor_update()), and lines 1 and 2. */
static inline void bench_floor_update4(bench_floor_big *g, const uint8_t *p,
                                       uint32_t wire, uint64_t ts) {
  bench_floor_update(&g->ent, p, wire, ts);
  g->hot.pkts++;
  g->hot.bytes += wire;
  g->hot.last_ts = ts;
  g->msg.pkts++;
  g->msg.bytes += wire;
  g->msg.last_ts = ts;
}
#endif

#if BENCH_FLOOR_FUSED
/* What bench_fused_decode() reads of a packet for bench_fused_update(). */
typedef struct bench_fused {
  uint64_t h;       /* the key's hash */
  uint32_t a, b, c; /* the floor's key: source, destination, QPN */
  uint32_t psn, plen, wire;
  uint8_t opcode, ecn, fecn, trunc;
} bench_fused;

/* The hub's counters the fused path moves. */
typedef struct bench_fused_stats {
  uint64_t pkts, bytes, roce, truncated;
} bench_fused_stats;

/* The fast path's checks and fields for the packet at |p| (|cap| bytes
 * captured, |wire| on the wire): Ethernet, at most one 802.1Q tag, IPv4
 * without options or fragments, UDP to 4791 with lengths that hold, a
 * known RC opcode of transport version 0 whose headers and pad fit.
 * Returns 0 if the packet is not one (the library would take its general
 * walk), else 1 with |o| filled. */
int bench_fused_decode(const uint8_t *p, size_t cap, size_t wire,
                       bench_fused *o);

static inline void bench_fused_update(bench_floor_big *g, const bench_fused *o,
                                      uint64_t ts, bench_fused_stats *st) {
  bench_floor_ent *e = &g->ent;
  uint32_t d = (o->psn - e->psn) & 0xffffff;
  uint8_t op = o->opcode;
  int first = op == 0x06 || op == 0x0a || op == 0x00 || op == 0x04;
  int last = op == 0x08 || op == 0x09 || op == 0x0a || op == 0x0b ||
             op == 0x02 || op == 0x03 || op == 0x04 || op == 0x05;
  st->pkts++;
  st->bytes += o->wire;
  st->roce++;
  st->truncated += o->trunc;
  if (e->pkts != 0 && (d == 0 || d >= 0x800000)) {
    g->hot.pad[0]++; /* a resend: counted, the PSN stays */
  } else {
    if (e->pkts != 0 && d > 1) {
      e->gaps++;
    }
    e->psn = o->psn;
  }
  if (e->pkts == 0) {
    e->first_ts = ts;
  } else {
    g->hot.pad[1] += o->wire; /* wire bytes: not the first packet's */
  }
  if (ts > e->last_ts) {
    e->last_ts = ts;
  }
  e->pkts++;
  e->bytes += o->plen;
  g->hot.pad[2] |= 1u << (op & 31); /* the operations seen */
  e->ce += o->ecn == 3;
  g->hot.pad[3] += o->fecn;
  if (first) {
    g->msg.pkts = 0;
    g->msg.bytes = 0;
    g->msg.pad[0] = ts; /* first time, first PSN */
    g->msg.pad[1] = o->psn;
    g->msg.pad[2] = 0;
  }
  g->msg.pkts++;
  g->msg.bytes += o->plen;
  g->msg.pad[3] += o->wire;
  if (ts > g->msg.last_ts) {
    g->msg.last_ts = ts;
  }
  g->msg.pad[4] = o->psn;
  g->msg.pad[2] |= (uint64_t)last; /* the message's end is known */
}
#endif

/* BENCH_FLOOR_SHAPE 3: the update of the second table's line of the key
 * of hash |h| (else nothing). */
static inline void bench_floor_update_msg(bench_floor *t, uint64_t h,
                                          uint32_t wire, uint64_t ts) {
#if BENCH_FLOOR_SHAPE == 3
  bench_floor_msg *m = &t->m[(size_t)(h >> 32) & t->mmask];
  m->pkts++;
  m->bytes += wire;
  m->last_ts = ts;
#else
  (void)t;
  (void)h;
  (void)wire;
  (void)ts;
#endif
}

/* The floor's key (|a|, |b|, |c|) of the packet at |p|; returns its
 * hash. */
static inline uint64_t bench_floor_key(const uint8_t *p, uint32_t *a,
                                       uint32_t *b, uint32_t *c) {
  *a = bench_rd32(p + 26);
  *b = bench_rd32(p + 30);
  *c = bench_rd24(p + 47);
#if BENCH_FLOOR_FUSED
  return bench_fused_hash(*a, *b, *c); /* the batched pass's hash */
#else
  return bench_floor_hash(*a, *b, *c);
#endif
}

/* The flow floor's update by the packet at |p| (|wire| its length on the
 * wire, |ts| its time): its entry, taken if need be, and
 * (BENCH_FLOOR_SHAPE 3) its line of the second table; shape 4: its
 * library-shaped entry through the index. */
static inline void bench_floor_pkt_update(bench_floor *t, const uint8_t *p,
                                          uint32_t wire, uint64_t ts) {
  uint32_t a, b, c;
  uint64_t h = bench_floor_key(p, &a, &b, &c);
#if BENCH_FLOOR_SHAPE == 4
  bench_floor_update4(bench_floor_get4(t, h, a, b, c), p, wire, ts);
#else
  bench_floor_update(bench_floor_get(t, h, a, b, c), p, wire, ts);
  bench_floor_update_msg(t, h, wire, ts);
#endif
}

/* Takes (and updates) the entries of an arena's packets, untimed: the
 * floor's pass 0, so that its timed passes find every key there. */
void bench_floor_fill(bench_floor *t, const uint8_t *arena, size_t slot,
                      size_t n, const uint16_t *wire, uint64_t ts0,
                      uint32_t ts_step);

/* A timed pass that reads the floor's key bytes of every packet (and the
 * PSN and ECN bytes) and no table: what reading the arena costs. */
double bench_floor_pass_walk(const uint8_t *arena, size_t slot, size_t n,
                             const uint16_t *wire);

/* The floor's timed passes over an arena laid out as bench_read_arena()'s
 * (packet i at arena + i * slot, wire length wire[i], time ts0 + i *
 * ts_step), timed as bench_read_arena() (bench_timer): plain, one packet
 * after the other (hash, probe, update); batched, BENCH_BURST packets at
 * a time: first each packet's key is read and hashed and its slot
 * prefetched, then each is probed and updated (BENCH_FLOOR_SHAPE 4: the
 * whole pass as one pipeline, bench_util.c). Return CPU seconds. */
double bench_floor_pass_plain(bench_floor *t, const uint8_t *arena,
                              size_t slot, size_t n, const uint16_t *wire,
                              uint64_t ts0, uint32_t ts_step);
double bench_floor_pass_batch(bench_floor *t, const uint8_t *arena,
                              size_t slot, size_t n, const uint16_t *wire,
                              uint64_t ts0, uint32_t ts_step);

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
