/* SPDX-License-Identifier: MIT */
/* tests/bench/bench_util.c - what the benchmarks share (bench_util.h). */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE 1 /* madvise(MADV_HUGEPAGE) */

#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

const char *bench_prog = "bench";

/* ------------------------------------------------------------ clocks */

/* Timed loops are measured in the thread's CPU time; the wall time is
 * kept to report how loaded the machine was. */
static double wall_total, cpu_total;

static double clock_s(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double bench_wall_s(void) { return clock_s(CLOCK_MONOTONIC); }

double bench_cpu_s(void) { return clock_s(CLOCK_THREAD_CPUTIME_ID); }

/* ------------------------------------------------------------ allocator */

bench_counting bench_cnt;

static void note(bench_counting *c, size_t nmemb, size_t size) {
  c->calls++;
  c->bytes += (uint64_t)nmemb * size;
  if (c->nlog < BENCH_LOG_MAX) {
    c->log[c->nlog][0] = nmemb;
    c->log[c->nlog][1] = size;
    c->nlog++;
  }
}

/* 64-byte aligned; with huge set, blocks of 2 MiB and more 2 MiB aligned
 * and given to transparent huge pages */
static void *aligned(const bench_counting *c, size_t n) {
  void *p = NULL;
  if (c->huge && n >= (2u << 20)) {
    if (posix_memalign(&p, 2u << 20, n) != 0) {
      return NULL;
    }
#ifdef MADV_HUGEPAGE
    (void)madvise(p, n, MADV_HUGEPAGE);
#endif
    return p;
  }
  return posix_memalign(&p, 64, n ? n : 1) == 0 ? p : NULL;
}

/* Makes the |n| bytes at |p| resident: a write to every page, through a
 * volatile pointer (a compiler removes a memset() of a block calloc() has
 * just returned, as it knows the block is zero, and turns malloc() and
 * memset() into calloc()). Writes 0: the contents stay as they were for a
 * zeroed block, and any content will do for malloc()'s. */
static void touch(void *p, size_t n) {
  volatile unsigned char *b = p;
  size_t i;
  for (i = 0; i < n; i += 4096) {
    b[i] = 0;
  }
  if (n) {
    b[n - 1] = 0;
  }
}

static void *c_malloc(size_t size, void *ud) {
  bench_counting *c = ud;
  void *p;
  note(c, 1, size);
  p = c->align64 ? aligned(c, size) : malloc(size);
  if (p && !c->lazy) {
    touch(p, size);
  }
  return p;
}

static void *c_calloc(size_t nmemb, size_t size, void *ud) {
  bench_counting *c = ud;
  void *p;
  note(c, nmemb, size);
  if (!c->align64) {
    p = calloc(nmemb, size);
    if (p && !c->lazy) {
      touch(p, nmemb * size); /* a large calloc(): fresh zero pages */
    }
    return p;
  }
  if (size && nmemb > SIZE_MAX / size) {
    return NULL;
  }
  p = aligned(c, nmemb * size);
  if (p) {
    memset(p, 0, nmemb * size); /* (so resident even with lazy) */
  }
  return p;
}

static void *c_realloc(void *ptr, size_t size, void *ud) {
  note(ud, 1, size);
  return realloc(ptr, size); /* the library does not use it */
}

static void c_free(void *ptr, void *ud) {
  bench_counting *c = ud;
  c->frees++;
  free(ptr);
}

const rtel_mem bench_mem = {&bench_cnt, c_malloc, c_free, c_calloc, c_realloc};

const char *bench_alloc_desc(void) {
  static char buf[128];
  snprintf(buf, sizeof(buf), "; %s%s",
           bench_cnt.huge      ? "64-byte-aligned allocations, huge pages, "
           : bench_cnt.align64 ? "64-byte-aligned allocations, "
                               : "",
           !bench_cnt.lazy ? "tables written at allocation (resident)"
           : bench_cnt.align64
               ? "malloc()'s blocks lazy (-L)"
               : "lazy tables (-L): pages faulted on first write");
  return buf;
}

int bench_ctx_new(rtel_ctx **pctx, const rtel_settings *s,
                  bench_alloc_log *lg) {
  return bench_ctx_new_cb(pctx, s, NULL, NULL, lg);
}

int bench_ctx_new_cb(rtel_ctx **pctx, const rtel_settings *s,
                     const rtel_callbacks *cb, void *user_data,
                     bench_alloc_log *lg) {
  uint64_t b0 = bench_cnt.bytes;
  int rv;
  bench_cnt.nlog = 0;
  rv = rtel_ctx_new(pctx, s, cb, &bench_mem, user_data);
  lg->bytes = bench_cnt.bytes - b0;
  lg->n = bench_cnt.nlog;
  memcpy(lg->a, bench_cnt.log, sizeof(lg->a));
  return rv;
}

/* ------------------------------------------------------------ timed passes */

uint8_t *bench_arena_alloc(size_t n) {
  void *p = NULL;
  return posix_memalign(&p, 64, n) == 0 ? p : NULL;
}

/* allocator calls and packets of the timed loops since the last
 * bench_print_allocs() */
static uint64_t timed_calls, timed_pkts;

void bench_timer_start(bench_timer *tm) {
  tm->calls0 = bench_cnt.calls + bench_cnt.frees;
  tm->w0 = bench_wall_s();
  tm->t0 = bench_cpu_s();
}

double bench_timer_stop(const bench_timer *tm, uint64_t pkts) {
  double t1 = bench_cpu_s();
  uint64_t calls = bench_cnt.calls + bench_cnt.frees - tm->calls0;
  wall_total += bench_wall_s() - tm->w0;
  cpu_total += t1 - tm->t0;
  timed_calls += calls;
  timed_pkts += pkts;
  if (calls != 0) {
    fprintf(stderr,
            "%s: the packet path allocated memory (%llu "
            "allocator calls)\n",
            bench_prog, (unsigned long long)calls);
    abort();
  }
  return t1 - tm->t0;
}

double bench_read_arena(rtel_ctx *ctx, const uint8_t *arena, size_t slot,
                        size_t n, const uint16_t *cap, const uint16_t *wire,
                        rtel_tstamp ts0, uint32_t ts_step) {
  rtel_pkt_info pis[BENCH_BURST];
  const uint8_t *pk[BENCH_BURST];
  size_t ln[BENCH_BURST];
  size_t i, j, m;
  bench_timer tm;

  memset(pis, 0, sizeof(pis));
  bench_timer_start(&tm);
  for (i = 0; i < n; i += m) {
    m = n - i < BENCH_BURST ? n - i : BENCH_BURST;
    for (j = 0; j < m; j++) {
      pis[j].ts = ts0 + (i + j) * ts_step;
      pis[j].wire_len = wire[i + j];
      pk[j] = arena + (i + j) * slot;
      ln[j] = cap[i + j];
    }
    if (rtel_ctx_read_pkts(ctx, pis, pk, ln, m) != (rtel_ssize)m) {
      fprintf(stderr, "%s: rtel_ctx_read_pkts failed\n", bench_prog);
      abort();
    }
  }
  return bench_timer_stop(&tm, n);
}

void bench_print_rate(int width, const char *name, double ns,
                      double pkts_per_io, double base_ns,
                      const char *base_name, const char *note_) {
  printf("%-*s %12.0f pkt/s %8.2f ns/pkt", width, name, 1e9 / ns, ns);
  if (pkts_per_io > 0) {
    printf(" %11.0f IO/s", 1e9 / ns / pkts_per_io);
  }
  if (base_ns > 0) {
    printf("   (%+.2f ns/pkt over %s)", ns - base_ns, base_name);
  }
  if (note_) {
    printf("   %s", note_);
  }
  putchar('\n');
}

void bench_print_load(void) {
  printf("\nload      the timed loops had %.0f%% of a CPU (thread CPU time / "
         "wall time; figures above are CPU time)\n",
         wall_total > 0 ? 100.0 * cpu_total / wall_total : 0.0);
}

void bench_print_allocs(void) {
  printf("alloc/pkt %.0f   (%llu allocator calls in the timed loops over "
         "%llu packets)\n",
         timed_pkts ? (double)timed_calls / (double)timed_pkts : 0.0,
         (unsigned long long)timed_calls, (unsigned long long)timed_pkts);
  timed_calls = timed_pkts = 0;
}

/* ------------------------------------------------------------ the floor */

int bench_floor_init(bench_floor *t, size_t keys) {
  size_t cap = 16;
#if BENCH_FLOOR_SHAPE == 3 || BENCH_FLOOR_SHAPE == 4
  size_t mcap;
#endif
  while (cap < 2 * keys) {
    cap *= 2;
  }
  memset(t, 0, sizeof(*t));
  t->e = (bench_floor_ent *)bench_arena_alloc(cap * sizeof(*t->e));
  if (t->e == NULL) {
    return -1;
  }
  memset(t->e, 0, cap * sizeof(*t->e));
#if BENCH_FLOOR_SHAPE == 3 || BENCH_FLOOR_SHAPE == 4
  /* shape 3: as many lines as entries; 4: half as many 448-byte entries
   * (about one per key, as the library's flow table when full) */
  mcap = BENCH_FLOOR_SHAPE == 3 ? cap : cap / 2;
  if ((t->m = (bench_floor_m *)bench_arena_alloc(mcap * sizeof(*t->m))) ==
      NULL) {
    bench_floor_free(t);
    return -1;
  }
  memset(t->m, 0, mcap * sizeof(*t->m));
  t->mmask = mcap - 1;
#endif
#if BENCH_FLOOR_SHAPE == 4
  if ((t->idx = (uint32_t *)bench_arena_alloc(cap * sizeof(*t->idx))) ==
      NULL) {
    bench_floor_free(t);
    return -1;
  }
  memset(t->idx, 0xff, cap * sizeof(*t->idx));
#endif
  t->cap = cap;
  t->mask = cap - 1;
  return 0;
}

void bench_floor_free(bench_floor *t) {
  free(t->e);
  free(t->m);
  free(t->idx);
  memset(t, 0, sizeof(*t));
}

void bench_floor_del(bench_floor *t, bench_floor_ent *e) {
  size_t i = (size_t)(e - t->e), j = i;
  for (;;) {
    size_t k;
    j = (j + 1) & t->mask;
    if (!t->e[j].used) {
      break;
    }
    /* the entry at j may move to the hole at i unless its home slot k is
     * cyclically in (i, j] */
    k = t->e[j].h & t->mask;
    if ((i <= j) ? (k <= i || k > j) : (k <= i && k > j)) {
      t->e[i] = t->e[j];
      i = j;
    }
  }
  memset(&t->e[i], 0, sizeof(t->e[i]));
  t->n--;
}

void bench_floor_fill(bench_floor *t, const uint8_t *arena, size_t slot,
                      size_t n, const uint16_t *wire, uint64_t ts0,
                      uint32_t ts_step) {
  size_t i;
  for (i = 0; i < n; i++) {
    const uint8_t *p = arena + i * slot;
    bench_floor_pkt_update(t, p, wire[i], ts0 + i * ts_step);
  }
}

static volatile uint64_t walk_sink;

__attribute__((noinline)) double bench_floor_pass_walk(const uint8_t *arena,
                                                       size_t slot, size_t n,
                                                       const uint16_t *wire) {
  bench_timer tm;
  uint64_t acc = 0;
  size_t i;
  bench_timer_start(&tm);
  for (i = 0; i < n; i++) {
    const uint8_t *p = arena + i * slot;
    acc += (bench_rd32(p + 26) ^ bench_rd32(p + 30) ^ bench_rd24(p + 47)) +
           bench_rd24(p + 51) + p[15] + wire[i];
  }
  walk_sink += acc;
  return bench_timer_stop(&tm, n);
}

__attribute__((noinline)) double
bench_floor_pass_plain(bench_floor *t, const uint8_t *arena, size_t slot,
                       size_t n, const uint16_t *wire, uint64_t ts0,
                       uint32_t ts_step) {
  bench_timer tm;
  size_t i;
  bench_timer_start(&tm);
  for (i = 0; i < n; i++) {
    const uint8_t *p = arena + i * slot;
    bench_floor_pkt_update(t, p, wire[i], ts0 + i * ts_step);
  }
  return bench_timer_stop(&tm, n);
}

#if BENCH_FLOOR_FUSED
/* The length of the extended headers of each RC opcode, + 1 (0: an opcode
 * the prototype does not know): IBA, the RC opcodes 0x00-0x17. */
static const uint8_t fused_ext[256] = {
    [0x00] = 1,  [0x01] = 1,  [0x02] = 1,  [0x03] = 5,  [0x04] = 1,
    [0x05] = 5,  [0x06] = 17, [0x07] = 1,  [0x08] = 1,  [0x09] = 5,
    [0x0a] = 17, [0x0b] = 21, [0x0c] = 17, [0x0d] = 5,  [0x0e] = 1,
    [0x0f] = 5,  [0x10] = 5,  [0x11] = 5,  [0x12] = 13, [0x13] = 29,
    [0x14] = 29, [0x16] = 5,  [0x17] = 5};

int bench_fused_decode(const uint8_t *p, size_t cap, size_t wire,
                       bench_fused *o) {
  size_t off = 14, ip_end, end, poff;
  const uint8_t *ip, *bth;
  unsigned et;
  uint32_t b0, x;
  if (cap < 18 + 20 + 8 + 12) {
    return 0;
  }
  et = (unsigned)p[12] << 8 | p[13];
  if (et == 0x8100) {
    off = 18;
    et = (unsigned)p[16] << 8 | p[17];
  }
  ip = p + off;
  if (et != 0x0800 || ip[0] != 0x45 || ip[9] != 17 ||
      ((ip[6] << 8 | ip[7]) & 0x3fff) != 0) {
    return 0;
  }
  ip_end = off + ((size_t)ip[2] << 8 | ip[3]);
  if (ip_end > wire) {
    wire = ip_end;
  }
  end = off + 20 + ((size_t)ip[24] << 8 | ip[25]);
  if (end > ip_end || end < off + 20 + 8 + 12 + 4 ||
      (ip[22] << 8 | ip[23]) != 4791) {
    return 0;
  }
  bth = ip + 28;
  b0 = bench_rd32(bth);
  x = fused_ext[b0 >> 24];
  poff = off + 20 + 8 + 12 + x - 1;
  if (x == 0 || (b0 & 0x000f0000u) != 0 || poff > cap ||
      poff + 4 + ((b0 >> 20) & 3) > end) {
    return 0;
  }
  o->opcode = (uint8_t)(b0 >> 24);
  o->psn = bench_rd24(bth + 9);
  o->c = bench_rd24(bth + 5);
  o->a = bench_rd32(ip + 12);
  o->b = bench_rd32(ip + 16);
  o->plen = (uint32_t)(end - poff - 4 - ((b0 >> 20) & 3));
  o->wire = (uint32_t)wire;
  o->trunc = cap < wire;
  o->ecn = ip[1] & 3;
  o->fecn = bth[4] >> 7;
  o->h = bench_fused_hash(o->a, o->b, o->c);
  return 1;
}
#endif

#if BENCH_FLOOR_SHAPE == 4
/* The library's look-ahead, across the whole pass: a packet's index slot
 * is prefetched when it is hashed, D0 packets before its turn; D1 packets
 * before it, the slot is read and the entry it names prefetched (lines
 * 0-2). Twice the library's distances (it decodes 8 packets ahead, in
 * bursts, and fetches the entry 4 ahead), which suit its longer packets:
 * at 8 and 4 this floor is slower (tests/bench/README.md). */
__attribute__((noinline)) double
bench_floor_pass_batch(bench_floor *t, const uint8_t *arena, size_t slot,
                       size_t n, const uint16_t *wire, uint64_t ts0,
                       uint32_t ts_step) {
  enum { D0 = BENCH_BURST / 2, D1 = BENCH_BURST / 4, R = BENCH_BURST };
  uint32_t ka[R], kb[R], kc[R];
  uint64_t kh[R];
#  if BENCH_FLOOR_FUSED
  static bench_fused_stats fst;
  bench_fused fo[R];
#  endif
  bench_timer tm;
  size_t i;
  bench_timer_start(&tm);
  for (i = 0; i < n + D0; i++) {
    if (i < n) {
#  if BENCH_FLOOR_FUSED
      /* decoded here, D0 packets before its update, as the library's
       * look-ahead decodes ahead; every packet of the arena passes */
      bench_fused *o = &fo[i % R];
      if (!bench_fused_decode(arena + i * slot,
                              wire[i] < slot ? wire[i] : slot, wire[i], o)) {
        abort();
      }
      kh[i % R] = o->h;
      ka[i % R] = o->a;
      kb[i % R] = o->b;
      kc[i % R] = o->c;
#  else
      kh[i % R] = bench_floor_key(arena + i * slot, &ka[i % R], &kb[i % R],
                                  &kc[i % R]);
#  endif
      __builtin_prefetch(&t->idx[(size_t)kh[i % R] & t->mask]);
    }
    if (i >= D0 - D1 && i - (D0 - D1) < n) {
      uint32_t x = t->idx[(size_t)kh[(i - (D0 - D1)) % R] & t->mask];
      if (x != UINT32_MAX) {
        const bench_floor_big *g = &t->m[x];
        __builtin_prefetch(g);
        __builtin_prefetch(&g->hot, 1);
        __builtin_prefetch(&g->msg, 1);
      }
    }
    if (i >= D0) {
      size_t k = i - D0, r = k % R;
#  if BENCH_FLOOR_DECODES > 0
      {
        /* instructions without memory traffic of their own (the packet's
         * lines are in cache by now, the header is one static struct, in
         * cache): the public decoder (the full one; a context without
         * on_packet runs the lite one), BENCH_FLOOR_DECODES times, on the
         * bytes a context would get (a copy of at most |slot| bytes) */
        static rtel_pkt_hd hd;
        size_t cap = wire[k] < slot ? wire[k] : slot;
        int d;
        for (d = 0; d < BENCH_FLOOR_DECODES; d++) {
          if (rtel_pkt_decode(&hd, NULL, arena + k * slot, cap, wire[k]) !=
              0) {
            abort();
          }
          __asm__ __volatile__("" : : "r"(&hd) : "memory");
        }
      }
#  endif
#  if BENCH_FLOOR_FUSED
      bench_fused_update(bench_floor_get4(t, kh[r], ka[r], kb[r], kc[r]),
                         &fo[r], ts0 + k * ts_step, &fst);
#  else
      bench_floor_update4(bench_floor_get4(t, kh[r], ka[r], kb[r], kc[r]),
                          arena + k * slot, wire[k], ts0 + k * ts_step);
#  endif
    }
  }
  return bench_timer_stop(&tm, n);
}
#else
__attribute__((noinline)) double
bench_floor_pass_batch(bench_floor *t, const uint8_t *arena, size_t slot,
                       size_t n, const uint16_t *wire, uint64_t ts0,
                       uint32_t ts_step) {
  uint32_t ka[BENCH_BURST], kb[BENCH_BURST], kc[BENCH_BURST];
  uint64_t kh[BENCH_BURST];
  bench_timer tm;
  size_t i, j, m;
  bench_timer_start(&tm);
  for (i = 0; i < n; i += m) {
    m = n - i < BENCH_BURST ? n - i : BENCH_BURST;
    for (j = 0; j < m; j++) {
      const uint8_t *p = arena + (i + j) * slot;
      kh[j] = bench_floor_key(p, &ka[j], &kb[j], &kc[j]);
      __builtin_prefetch(&t->e[(size_t)kh[j] & t->mask], 1);
#  if BENCH_FLOOR_SHAPE == 2
      __builtin_prefetch(&t->e[(size_t)kh[j] & t->mask].msg, 1);
#  elif BENCH_FLOOR_SHAPE == 3
      __builtin_prefetch(&t->m[(size_t)(kh[j] >> 32) & t->mmask], 1);
#  endif
    }
    for (j = 0; j < m; j++) {
      const uint8_t *p = arena + (i + j) * slot;
      bench_floor_update(bench_floor_get(t, kh[j], ka[j], kb[j], kc[j]), p,
                         wire[i + j], ts0 + (i + j) * ts_step);
      bench_floor_update_msg(t, kh[j], wire[i + j], ts0 + (i + j) * ts_step);
    }
  }
  return bench_timer_stop(&tm, n);
}
#endif

/* ------------------------------------------------------------ bytes */

size_t put_hdrs(uint8_t *p, uint32_t sip, uint32_t dip, unsigned sport,
                uint8_t ecn, uint8_t opcode, int ackreq, uint32_t dqpn,
                uint32_t psn, size_t rest, size_t *wire) {
  size_t udp_len = 8 + 12 + rest + 4;
  memcpy(p, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
  put16(p + 12, 0x0800);
  p[14] = 0x45;
  p[15] = (uint8_t)(26 << 2 | ecn);
  put16(p + 16, (unsigned)(20 + udp_len));
  put16(p + 18, 0);
  put16(p + 20, 0x4000); /* DF */
  p[22] = 64;
  p[23] = 17;
  put16(p + 24, 0);
  put32(p + 26, sip);
  put32(p + 30, dip);
  put16(p + 34, sport);
  put16(p + 36, 4791);
  put16(p + 38, (unsigned)udp_len);
  put16(p + 40, 0);
  p[42] = opcode;
  p[43] = 0;
  put16(p + 44, 0xffff);
  p[46] = 0;
  put24(p + 47, dqpn & 0xffffff);
  p[50] = (uint8_t)(ackreq ? 0x80 : 0);
  put24(p + 51, psn & 0xffffff);
  *wire = 14 + 20 + udp_len;
  return 54;
}
