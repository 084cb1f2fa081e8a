/* SPDX-License-Identifier: MIT */
/*
 * make bench: flow-path throughput and memory with many concurrent flows.
 *
 * For F concurrent flows (default F = 1000, 100000, then 1000000) builds an
 * arena of RoCEv2 packets with its own byte builder (not the library's
 * decoder): about 10^6 data packets, F x K, interleaved round robin across
 * the flows (flow = data index mod F: the worst case for the caches'
 * reuse; with -R each round of F packets visits the flows in an order of
 * its own, which the hardware cannot predict either), each a
 * 128-byte mirror copy of a ~1100-byte packet; every flow sends RDMA WRITE
 * messages of MSG_PKTS packets (FIRST with a RETH, MIDDLEs, LAST with
 * AckReq), and every tenth packet is an ACK on the reverse QP naming a data
 * PSN sent half a round earlier (plus pass mod 10 packets: at F = 10^6,
 * where a pass is one round, the ACKs of a pass name one flow in nine, and
 * this shift moves them on, so that in round robin every flow's messages
 * are acknowledged within 10 passes at the default sizes and the open
 * messages stop growing after about 10 passes (with -R, every 8 passes or
 * so on average; at some sizes above 500000 a few flows are never named):
 * ack_flow()). Flow f goes from host f mod H to host
 * f / H (H = ceil(sqrt F)) to QP 0x10000 + f; its reverse QP is
 * 0x800000 + f. Before each pass the arena is rebuilt for that pass (not
 * timed): PSNs move on and the message positions rotate, so flows always
 * see new data, never retransmissions.
 *
 * Two contexts read the same passes, alternately, in the same process:
 *   baseline  flow table and NVMe-oF correlator disabled: decode + counters
 *   flow      flow table with max_flows = F, max_qp_pairs = 2 F (each
 *             connection takes two pairing entries), NVMe-oF disabled
 * and, alternately with them on the same passes, the bare floor of a flow
 * table (bench_util.h): a plain open-addressing hash table of 64-byte
 * entries written here, one update per packet in the same order, keyed by
 * the packet's (source, destination, destination QPN) read at fixed
 * offsets: F data flows and the F reverse QPs the ACKs go to, all taken
 * before the timed passes (at F = 10^6 a pass's ACKs name 111111 of them):
 *   walk      read the key bytes of every packet, no table: what reading
 *             the arena costs, inside the floor
 *   floor     one packet after the other: hash, probe, update
 *   floor+pf  BENCH_BURST packets at a time: hash all and prefetch their
 *             slots, then probe and update each
 * (BENCH_FLOOR_SHAPE 4, a compile-time experiment, gives the floor the
 * library's shape instead: bench_util.h)
 * and the ratios flow / floor and baseline / floor. At the end the flow
 * context's rtel_ctx_flush() is timed ("flush" line, ns per flow: every
 * flow ended and its record made, least recently active first, no
 * callback), once (it empties the table), after the "check" line; with -E
 * instead rtel_ctx_handle_expiry() one idle timeout after the last packet
 * ("expire" line: every flow ends idle, one at a time, as a collector's flows
 * do). Pass 0 is not part of any figure: the flow context creates its F flows
 * there ("first" line). QP pairs are learned from an RDMA CM REQ/REP exchange
 * per connection fed to both contexts before pass 0 (untimed), so the timed
 * passes are the steady state of paired flows; with -P there is no CM and
 * pairs are learned from ACK PSNs only (at F = 10^3 within pass 0; at F =
 * 10^6, where a flow sees an ACK about every tenth pass, about 10^5 more
 * flows are paired each pass, so a short run measures mostly the unpaired
 * path: one more hash and a PSN-index write per data packet).
 *
 * Memory is measured with a counting allocator: what rtel_ctx_new()
 * allocates with max_flows = F minus what it allocates with the flow table
 * disabled, per flow, with the allocations that make the difference. The
 * same allocator checks that the timed loops allocate nothing (abort if
 * they do).
 *
 * Usage: bench_flow [-f FLOWS] [-P] [-R] [-A] [-H] [-L] [-d] [-E]
 *                   [SECONDS_PER_CASE]
 *        (default 1.0: CPU seconds of the flow context's timed passes, at
 *        least 3 passes)
 *        bench_flow -n PASSES ...   exactly PASSES timed passes per context,
 *        for instruction counts under valgrind --tool=callgrind: the timed
 *        loops are bench_flow_pass_base(), bench_flow_pass_full() and the
 *        floor's bench_floor_pass_walk(), bench_floor_pass_plain() and
 *        bench_floor_pass_batch(), e.g.
 *          ./libtool --mode=execute valgrind --tool=callgrind \
 *            --toggle-collect=bench_flow_pass_full tests/bench/bench_flow \
 *            -n 3 -f 1000
 *        and Ir / (PASSES x packets per pass) is instructions per packet.
 *   -f FLOWS  one case with FLOWS flows instead of 1000, 100000 and
 *             1000000
 *   -P        no RDMA CM: pairs from ACK PSNs only
 *   -R        each round of one packet per flow in an order of its own
 *             (flow_of()) instead of round robin: the LRU neighbours of a
 *             flow (the flows touched just before and after it last round)
 *             are then as cold as any other flow
 *   -A        64-byte-aligned allocations (an experiment: the default
 *             allocator returns 16-byte-aligned blocks)
 *   -H        as -A, and blocks of 2 MiB or more 2 MiB-aligned with
 *             transparent huge pages asked for (madvise): what an
 *             embedder's allocator can do for large tables
 *             (rtel_mem_default(3))
 *   -L        lazy tables: blocks left as the allocator returns them, so
 *             that a page is faulted in when the library first writes it,
 *             in a timed pass if that is when (at 10^6 flows the
 *             open-message slab takes fresh entries in the first ~10
 *             passes); by default the counting allocator writes every page
 *             of every block when it allocates it, as rtel-collect(8)
 *             does, so that the timed passes measure the packet path and
 *             not the kernel's first touch of the tables
 *             (tests/bench/README.md, "Resident tables"). With -A or -H
 *             the allocator zeroes calloc()'s blocks itself, so -L leaves
 *             only malloc()'s blocks lazy
 *   -E        end the flows by the idle timeout, not by a flush
 *   -d        leave max_qp_pairs at rtel_settings_default()'s value
 *             instead of 2 F (each connection takes two pairing entries):
 *             shows what the pairing table does then
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rocetel/rocetel.h>

#include "bench_util.h"

#define SLOT 128 /* arena bytes per packet = the mirror's snap length */
#define DATA_TARGET 1000000u /* data packets per pass (rounded to F x K) */
#define MSG_PKTS 8u          /* FIRST, 6 x MIDDLE, LAST */
#define ACK_EVERY 10u        /* every 10th packet is an ACK */
#define PAYLOAD 1024u        /* payload on the wire (MTU 1024) */
#define BURST BENCH_BURST    /* packets per rtel_ctx_read_pkts() call */
#define TS_STEP 20u          /* ns between packets */
#define QPN_RSP 0x10000u     /* responder (data destination) QPN base */
#define QPN_REQ 0x800000u    /* requester (data source, ACK destination) */
#define ACK_BIT 0x80000000u

/* ------------------------------------------------------------ the arena */

typedef struct bench {
  uint32_t nflows, k; /* flows, data packets per flow per pass */
  uint32_t hosts;     /* H */
  uint32_t lag;       /* an ACK names the data packet this many data
                         packets before it */
  size_t ndata, nack, n;
  uint8_t *arena; /* n slots of SLOT bytes */
  uint32_t *desc; /* per slot: data index, or ACK_BIT | data index */
  uint16_t *cap;  /* per slot: captured and wire length */
  uint16_t *wire;
  uint32_t *psn0; /* per flow: first PSN */
} bench;

static int shuffled; /* -R */

static uint32_t gcd32(uint32_t a, uint32_t b) {
  while (b) {
    uint32_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* The flow of the |j|-th data packet of round |s| (a round: one data
 * packet of every flow): round robin, or with -R in an order of its own
 * per round, j -> (a j + c) mod F with a coprime to F from the round, so
 * that the flows a packet's flow was touched between last round are
 * touched far from it this round (as in traffic whose flows interleave at
 * random), while every flow still sends its PSNs in order. */
static uint32_t flow_of(const bench *b, uint64_t s, uint32_t j) {
  uint32_t a, c;
  if (!shuffled || b->nflows < 3) {
    return j;
  }
  a = mix((uint32_t)s * 2654435761u + 7u) % b->nflows;
  while (a == 0 || gcd32(a, b->nflows) != 1) {
    a = a + 1 < b->nflows ? a + 1 : 1;
  }
  c = mix((uint32_t)s ^ 0x5bd1e995u) % b->nflows;
  return (uint32_t)(((uint64_t)a * j + c) % b->nflows);
}

static uint32_t src_ip(const bench *b, uint32_t f) {
  return 0x0a010000u | (f % b->hosts);
}
static uint32_t dst_ip(const bench *b, uint32_t f) {
  return 0x0a020000u | (f / b->hosts);
}

/* Data packet |d| of pass |pass|. */
static void build_data(const bench *b, uint8_t *p, uint64_t d, uint64_t pass,
                       uint16_t *cap, uint16_t *wire) {
  uint64_t s = pass * b->k + d / b->nflows; /* the flow's sequence number */
  uint32_t f = flow_of(b, s, (uint32_t)(d % b->nflows));
  unsigned pos = (unsigned)((s + f) % MSG_PKTS);
  uint8_t opcode = pos == 0 ? 0x06 : pos == MSG_PKTS - 1 ? 0x08 : 0x07;
  size_t ext = pos == 0 ? 16 : 0, off, w;
  uint8_t ecn = mix(f ^ (uint32_t)s * 0x9e3779b9u) % 100 == 0 ? 3 : 2;

  off = put_hdrs(p, src_ip(b, f), dst_ip(b, f), 0xc000u | (f & 0x3fff), ecn,
                 opcode, pos == MSG_PKTS - 1, QPN_RSP + f,
                 (uint32_t)(b->psn0[f] + s), ext + PAYLOAD, &w);
  if (ext) {
    put64(p + off, 0x7f0000000000ull + (uint64_t)f * 0x100000u);
    put32(p + off + 8, mix(f) | 1u);
    put32(p + off + 12, MSG_PKTS * PAYLOAD);
  }
  *cap = SLOT;
  *wire = (uint16_t)w;
}

/* The flow whose data packet the ACK after data packet |d| of pass |pass|
 * names, and (|*seq|) that packet's sequence number in its flow: the data
 * packet b->lag + pass mod ACK_EVERY data packets earlier (of the previous
 * pass if need be). The shift with the pass matters where the ACKs of a
 * pass name only part of the flows (one packet per flow per pass, F >
 * 500000, or F divisible by 3): without it they would name the same flows
 * every pass, and the other flows' messages, never acknowledged,
 * would pile up open all run (until max_open_msgs, then delivered early:
 * a regime that depends on the run's length). With it every flow of the
 * default cases is acknowledged within ACK_EVERY passes. */
static uint32_t ack_flow(const bench *b, uint64_t d, uint64_t pass,
                         int64_t *seq) {
  int64_t t = (int64_t)d - (int64_t)b->lag - (int64_t)(pass % ACK_EVERY);
  int64_t tp = (int64_t)pass;
  if (t < 0) {
    t += (int64_t)b->ndata;
    tp--;
  }
  *seq = tp * (int64_t)b->k + (int64_t)((uint64_t)t / b->nflows);
  return flow_of(b, (uint64_t)*seq, (uint32_t)((uint64_t)t % b->nflows));
}

/* An ACK of flow |f|'s data packet of sequence number |s|. */
static void build_ack_of(const bench *b, uint8_t *p, uint32_t f, int64_t s,
                         uint16_t *cap, uint16_t *wire) {
  size_t off, w;

  off =
      put_hdrs(p, dst_ip(b, f), src_ip(b, f), 0xc000u | (f & 0x3fff), 2, 0x11,
               0, QPN_REQ + f, (uint32_t)((int64_t)b->psn0[f] + s), 4, &w);
  p[off] = 0x1f; /* ACK, 31 credits */
  put24(p + off + 1, (uint32_t)s & 0xffffff);
  put32(p + off + 4, 0); /* ICRC (not verified) */
  *cap = (uint16_t)(off + 8);
  *wire = (uint16_t)w;
}

/* The ACK after data packet |d| of pass |pass|. */
static void build_ack(const bench *b, uint8_t *p, uint64_t d, uint64_t pass,
                      uint16_t *cap, uint16_t *wire) {
  int64_t s;
  uint32_t f = ack_flow(b, d, pass, &s);
  build_ack_of(b, p, f, s, cap, wire);
}

static void build_pass(const bench *b, uint64_t pass) {
  size_t i;
  for (i = 0; i < b->n; i++) {
    uint32_t x = b->desc[i];
    uint8_t *p = b->arena + i * SLOT;
    if (x & ACK_BIT) {
      build_ack(b, p, x & ~ACK_BIT, pass, &b->cap[i], &b->wire[i]);
    } else {
      build_data(b, p, x, pass, &b->cap[i], &b->wire[i]);
    }
  }
}

/* Takes every flow's reverse QP, the key of its ACKs, into the floor (not
 * timed): one ACK of each flow, so that the timed passes find all the keys
 * the ACKs will name, whichever pass names them. */
static void floor_take_acks(const bench *b, bench_floor *fl, rtel_tstamp ts) {
  uint8_t p[SLOT];
  uint16_t cap, wire;
  uint32_t f;
  for (f = 0; f < b->nflows; f++) {
    build_ack_of(b, p, f, -1, &cap, &wire);
    bench_floor_fill(fl, p, SLOT, 1, &wire, ts, 0);
  }
}

static int bench_init(bench *b, uint32_t nflows) {
  size_t i, d = 0;
  uint32_t f;
  memset(b, 0, sizeof(*b));
  b->nflows = nflows;
  b->k = DATA_TARGET / nflows ? DATA_TARGET / nflows : 1;
  b->hosts = 1;
  while ((uint64_t)b->hosts * b->hosts < nflows) {
    b->hosts++;
  }
  b->lag = nflows / 2 ? nflows / 2 : 1;
  b->ndata = (size_t)nflows * b->k;
  b->nack = b->ndata / (ACK_EVERY - 1);
  b->n = b->ndata + b->nack;
  b->arena = bench_arena_alloc(b->n * SLOT);
  b->desc = malloc(b->n * sizeof(*b->desc));
  b->cap = malloc(b->n * sizeof(*b->cap));
  b->wire = malloc(b->n * sizeof(*b->wire));
  b->psn0 = malloc((size_t)nflows * sizeof(*b->psn0));
  if (!b->arena || !b->desc || !b->cap || !b->wire || !b->psn0) {
    return -1;
  }
  for (f = 0; f < nflows; f++) {
    b->psn0[f] = mix(f * 2654435761u + 1) & 0xffffff;
  }
  /* 9 data packets, then an ACK */
  for (i = 0; i < b->n; i++) {
    if (i % ACK_EVERY == ACK_EVERY - 1 && d > 0) {
      b->desc[i] = ACK_BIT | (uint32_t)(d - 1);
    } else if (d < b->ndata) {
      b->desc[i] = (uint32_t)d++;
    } else {
      b->desc[i] = ACK_BIT | (uint32_t)(d - 1);
    }
  }
  return 0;
}

static void bench_free(bench *b) {
  free(b->arena);
  free(b->desc);
  free(b->cap);
  free(b->wire);
  free(b->psn0);
}

/* One RDMA CM REQ (host -> responder) or REP (responder -> host) of flow
 * f's connection, to QP1. */
static size_t build_cm(const bench *b, uint8_t *p, uint32_t f, int rep,
                       size_t *wire) {
  uint8_t *m, *d;
  size_t off;
  memset(p, 0, 400);
  off = put_hdrs(p, rep ? dst_ip(b, f) : src_ip(b, f),
                 rep ? src_ip(b, f) : dst_ip(b, f), 0xc000u, 2, 0x64, 0, 1, f,
                 8 + 256, wire);
  put32(p + off, 0x80010000u); /* DETH: Q_Key, source QP 1 */
  put24(p + off + 5, 1);
  m = p + off + 8;
  m[0] = 1;    /* base version */
  m[1] = 0x07; /* CM */
  m[2] = 2;
  m[3] = 0x03;                       /* Send */
  put64(m + 8, 0x1000000000ull + f); /* TID */
  put16(m + 16, rep ? 0x0013 : 0x0010);
  d = m + 24;
  if (!rep) {
    put32(d, 0x100000u + f);             /* local comm ID */
    put64(d + 8, 0x0000000001064853ull); /* IP-CM, TCP port space, 18515 */
    put24(d + 32, QPN_REQ + f);          /* local QPN */
    put24(d + 44, b->psn0[f]);           /* starting PSN */
  } else {
    put32(d, 0x200000u + f);
    put32(d + 4, 0x100000u + f);
    put24(d + 12, QPN_RSP + f);
    put24(d + 20, mix(f) & 0xffffff);
  }
  return off + 8 + 256 + 4;
}

/* ------------------------------------------------------------ timing */

/* Reads the arena into |ctx| with timestamps from |ts0|; returns seconds. */
static double read_arena(rtel_ctx *ctx, const bench *b, rtel_tstamp ts0) {
  return bench_read_arena(ctx, b->arena, SLOT, b->n, b->cap, b->wire, ts0,
                          TS_STEP);
}

/* Separate functions so that callgrind can count each one alone. */
double bench_flow_pass_warm(rtel_ctx *ctx, const bench *b, rtel_tstamp ts0);
double bench_flow_pass_first(rtel_ctx *ctx, const bench *b, rtel_tstamp ts0);
double bench_flow_pass_base(rtel_ctx *ctx, const bench *b, rtel_tstamp ts0);
double bench_flow_pass_full(rtel_ctx *ctx, const bench *b, rtel_tstamp ts0);

__attribute__((noinline)) double
bench_flow_pass_warm(rtel_ctx *ctx, const bench *b, rtel_tstamp ts0) {
  return read_arena(ctx, b, ts0);
}
__attribute__((noinline)) double
bench_flow_pass_first(rtel_ctx *ctx, const bench *b, rtel_tstamp ts0) {
  return read_arena(ctx, b, ts0);
}
__attribute__((noinline)) double
bench_flow_pass_base(rtel_ctx *ctx, const bench *b, rtel_tstamp ts0) {
  return read_arena(ctx, b, ts0);
}
__attribute__((noinline)) double
bench_flow_pass_full(rtel_ctx *ctx, const bench *b, rtel_tstamp ts0) {
  return read_arena(ctx, b, ts0);
}

static double print_rate(const char *name, double secs, uint64_t pkts,
                         double base_ns, const char *note_) {
  double ns = secs * 1e9 / (double)pkts;
  bench_print_rate(9, name, ns, 0, base_ns, "baseline", note_);
  return ns;
}

/* ------------------------------------------------------------ memory */

/* Prints the allocations of |full| that |base| does not have: what the
 * flow table costs. Both logs are in call order and differ by one run of
 * calls (rtel__pair_init()'s and rtel__flow_init()'s), found as what is
 * left between their common prefix and common suffix. The names follow
 * that order (pairing entries and buckets, PSN index, flow entries and
 * buckets, the slab of open messages); they are only given when there are
 * exactly six. */
static void print_breakdown(const bench_alloc_log *lf,
                            const bench_alloc_log *lb, uint32_t nflows) {
  static const char *const names[] = {"pair entries", "pair buckets",
                                      "PSN index",    "flow entries",
                                      "flow buckets", "open messages"};
  const uint64_t(*full)[2] = lf->a, (*base)[2] = lb->a;
  unsigned nfull = lf->n, nbase = lb->n;
  unsigned pre = 0, suf = 0, i;
  while (pre < nfull && pre < nbase && full[pre][0] == base[pre][0] &&
         full[pre][1] == base[pre][1]) {
    pre++;
  }
  while (suf < nfull - pre && suf < nbase - pre &&
         full[nfull - 1 - suf][0] == base[nbase - 1 - suf][0] &&
         full[nfull - 1 - suf][1] == base[nbase - 1 - suf][1]) {
    suf++;
  }
  for (i = pre; i < nfull - suf; i++) {
    uint64_t n = full[i][0], sz = full[i][1];
    printf("          %-13s %9llu x %5llu B = %7.1f B/flow\n",
           nfull - suf - pre == 6 ? names[i - pre] : "allocation",
           (unsigned long long)n, (unsigned long long)sz,
           (double)(n * sz) / nflows);
  }
}

/* ------------------------------------------------------------ a case */

static double secs_per_case = 1.0;
static long fixed_passes;
static int psn_pairing;
static int default_pairs; /* -d: max_qp_pairs left at its default */
static int end_idle;      /* -E: end by the idle timeout, not a flush */

static int run_case(uint32_t nflows) {
  bench b;
  rtel_settings sb, sf;
  rtel_ctx *base = NULL, *full = NULL;
  rtel_ctx_stats st, stb;
  bench_alloc_log lb, lf;
  bench_floor fl;
  rtel_tstamp ts = 1000000000ull;
  double t_base = 0, t_full = 0, t_first, base_ns, full_ns;
  double t_walk = 0, t_floor = 0, t_floor_pf = 0, floor_ns, floor_pf_ns;
  uint64_t pass = 0, npass = 0;
  size_t floor_keys = 2 * (size_t)nflows; /* data flows, reverse QPs */
  uint32_t f;
  char note_[160];
  int rv;

  if (bench_init(&b, nflows) != 0 || bench_floor_init(&fl, floor_keys) != 0) {
    fprintf(stderr, "bench_flow: out of memory for the arena\n");
    return 1;
  }
  rtel_settings_default(&sb);
  sb.flow_flags = RTEL_FLOW_DISABLE;
  sb.nvme_flags = RTEL_NVME_DISABLE;
  sf = sb;
  sf.flow_flags = 0;
  sf.max_flows = nflows;
  if (!default_pairs) {
    sf.max_qp_pairs = 2 * nflows;
  }
  sf.flow_idle_timeout = 3600000000000ull; /* no flow ends during the run */
  if ((rv = bench_ctx_new(&base, &sb, &lb)) != 0 ||
      (rv = bench_ctx_new(&full, &sf, &lf)) != 0) {
    fprintf(stderr, "bench_flow: rtel_ctx_new: %s\n", rtel_strerror(rv));
    return 1;
  }

  printf("\nF = %u flows: %zu packets per pass (%zu data, %u per flow, "
         "RDMA WRITE FIRST+RETH/%u MIDDLE/LAST; %zu ACKs), %s, "
         "%d-byte copies of ~%u-byte packets, %zu MB arena; pairs from %s\n",
         nflows, b.n, b.ndata, b.k, MSG_PKTS - 2, b.nack,
         shuffled ? "each round in its own order (-R)" : "round robin", SLOT,
         14 + 20 + 8 + 12 + PAYLOAD + 4, b.n * SLOT >> 20,
         psn_pairing ? "ACK PSNs" : "RDMA CM");
  printf("memory    %9.1f B/flow  (rtel_ctx_new: %.1f MB with max_flows = "
         "%u, max_qp_pairs = %u; %.3f MB with flows disabled)\n",
         (double)(lf.bytes - lb.bytes) / nflows, (double)lf.bytes / 1e6,
         nflows, sf.max_qp_pairs ? sf.max_qp_pairs : nflows,
         (double)lb.bytes / 1e6);
  print_breakdown(&lf, &lb, nflows);

  /* connections: RDMA CM REQ/REP, to both contexts (not timed) */
  if (!psn_pairing) {
    uint8_t pkt[512];
    rtel_pkt_info pi;
    memset(&pi, 0, sizeof(pi));
    for (f = 0; f < nflows; f++) {
      int r;
      for (r = 0; r < 2; r++) {
        size_t w, len = build_cm(&b, pkt, f, r, &w);
        pi.ts = ts;
        pi.wire_len = (uint32_t)w;
        if (rtel_ctx_read_pkt(base, &pi, pkt, len) != 0 ||
            rtel_ctx_read_pkt(full, &pi, pkt, len) != 0) {
          abort();
        }
      }
      ts += TS_STEP;
    }
  }

  /* pass 0: the flow context creates its flows */
  build_pass(&b, pass);
  bench_flow_pass_warm(base, &b, ts);
  t_first = bench_flow_pass_first(full, &b, ts);
  bench_floor_fill(&fl, b.arena, SLOT, b.n, b.wire, ts, TS_STEP);
  floor_take_acks(&b, &fl, ts);
  ts += b.n * TS_STEP;
  pass++;
  if (rtel_ctx_get_stats(full, &st) != 0 || st.flows_created != nflows ||
      st.flows_evicted != 0 || st.pkts_roce != st.pkts ||
      (!psn_pairing && !default_pairs &&
       (st.pairs_cm != nflows || st.pairs_evicted != 0))) {
    fprintf(stderr,
            "bench_flow: after pass 0: flows_created %llu (want %u), "
            "flows_evicted %llu, pairs_cm %llu, pairs_evicted %llu, "
            "RoCE %llu of %llu\n",
            (unsigned long long)st.flows_created, nflows,
            (unsigned long long)st.flows_evicted,
            (unsigned long long)st.pairs_cm,
            (unsigned long long)st.pairs_evicted,
            (unsigned long long)st.pkts_roce, (unsigned long long)st.pkts);
    return 1;
  }

  /* timed passes, the two contexts alternately on the same packets */
  do {
    build_pass(&b, pass);
    t_base += bench_flow_pass_base(base, &b, ts);
    t_full += bench_flow_pass_full(full, &b, ts);
    t_walk += bench_floor_pass_walk(b.arena, SLOT, b.n, b.wire);
    t_floor +=
        bench_floor_pass_plain(&fl, b.arena, SLOT, b.n, b.wire, ts, TS_STEP);
    t_floor_pf +=
        bench_floor_pass_batch(&fl, b.arena, SLOT, b.n, b.wire, ts, TS_STEP);
    ts += b.n * TS_STEP;
    pass++;
    npass++;
  } while (fixed_passes ? (long)npass < fixed_passes
                        : t_full < secs_per_case || npass < 3);

  if (rtel_ctx_get_stats(full, &st) != 0 ||
      rtel_ctx_get_stats(base, &stb) != 0) {
    return 1;
  }
  snprintf(note_, sizeof(note_), "(pass 0: creates %u flows)", nflows);
  print_rate("first", t_first, b.n, 0, note_);
  base_ns = t_base * 1e9 / (double)(npass * b.n);
  print_rate("baseline", t_base, npass * b.n, 0, "(decode + counters)");
  snprintf(note_, sizeof(note_), "(%llu timed passes each)",
           (unsigned long long)npass);
  full_ns = print_rate("flow", t_full, npass * b.n, base_ns, note_);
  print_rate("walk", t_walk, npass * b.n, 0,
             "(read the floor's key bytes of each packet, no table)");
#if BENCH_FLOOR_SHAPE == 4
  snprintf(note_, sizeof(note_),
           "(bare floor, shape 4: an index of %zu 4-byte slots naming "
           "%zu-byte entries, %zu keys, lines 0-2 of an entry written per "
           "packet)",
           fl.cap, sizeof(bench_floor_m), floor_keys);
#else
  snprintf(note_, sizeof(note_),
           "(bare floor: plain hash table of %zu-byte entries, %zu keys in "
           "%zu, one update per packet%s)",
           sizeof(bench_floor_ent), floor_keys, fl.cap,
           BENCH_FLOOR_SHAPE == 3 ? ", + a line of a second table" : "");
#endif
  floor_ns = print_rate("floor", t_floor, npass * b.n, 0, note_);
#if BENCH_FLOOR_SHAPE == 4
  snprintf(note_, sizeof(note_),
           "(the same, one pipeline over the pass: slot prefetched %u "
           "packets ahead, entry %u ahead)",
           BURST / 2, BURST / 4);
#else
  snprintf(note_, sizeof(note_),
           "(the same, %u packets at a time: hash and prefetch, then update)",
           BURST);
#endif
  floor_pf_ns = print_rate("floor+pf", t_floor_pf, npass * b.n, 0, note_);
  printf("ratio     flow / floor %.2f (plain), %.2f (batched + prefetched); "
         "baseline / floor %.2f\n",
         full_ns / floor_ns, full_ns / floor_pf_ns, base_ns / floor_ns);
  bench_print_allocs();
  printf("check     flows_created %llu, flows_evicted %llu, flows_active "
         "%llu, pairs_cm %llu, pairs_psn %llu, pairs_evicted %llu, "
         "ctrl_unattributed %llu, messages delivered %llu, msgs_overflow "
         "%llu, allocator calls in timed loops 0; floor keys %zu\n",
         (unsigned long long)st.flows_created,
         (unsigned long long)st.flows_evicted,
         (unsigned long long)st.flows_active, (unsigned long long)st.pairs_cm,
         (unsigned long long)st.pairs_psn,
         (unsigned long long)st.pairs_evicted,
         (unsigned long long)st.ctrl_unattributed,
         (unsigned long long)st.messages, (unsigned long long)st.msgs_overflow,
         fl.n);
  if (st.flows_created != nflows || st.flows_evicted != 0 ||
      fl.n != floor_keys || st.pkts_roce != st.pkts ||
      stb.pkts_roce != stb.pkts || st.pkts != stb.pkts) {
    fprintf(stderr, "bench_flow: unexpected counters at the end\n");
    return 1;
  }
  {
    double t0 = bench_cpu_s(), t_end;
    rv = end_idle ? rtel_ctx_handle_expiry(full, ts + sf.flow_idle_timeout)
                  : rtel_ctx_flush(full, ts);
    t_end = bench_cpu_s() - t0;
    if (rv != 0) {
      fprintf(stderr, "bench_flow: %s: %s\n",
              end_idle ? "rtel_ctx_handle_expiry" : "rtel_ctx_flush",
              rtel_strerror(rv));
      return 1;
    }
    if (rtel_ctx_get_stats(full, &st) != 0 || st.flows_active != 0) {
      fprintf(stderr, "bench_flow: %llu flows left after %s\n",
              (unsigned long long)st.flows_active,
              end_idle ? "rtel_ctx_handle_expiry" : "rtel_ctx_flush");
      return 1;
    }
    printf("%s    %9.1f ns/flow  (%s: ends the %u flows, least recently "
           "active first; no callback)\n",
           end_idle ? "expire" : "flush ", t_end * 1e9 / nflows,
           end_idle ? "rtel_ctx_handle_expiry one idle timeout after the "
                      "last packet"
                    : "rtel_ctx_flush",
           nflows);
  }
  rtel_ctx_del(full);
  rtel_ctx_del(base);
  bench_floor_free(&fl);
  bench_free(&b);
  return 0;
}

int main(int argc, char **argv) {
  uint32_t one = 0;
  int i, rv = 0;

  bench_prog = "bench_flow";
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
      fixed_passes = atol(argv[++i]);
    } else if (strcmp(argv[i], "-f") == 0 && i + 1 < argc) {
      one = (uint32_t)strtoul(argv[++i], NULL, 10);
    } else if (strcmp(argv[i], "-P") == 0) {
      psn_pairing = 1;
    } else if (strcmp(argv[i], "-A") == 0) {
      bench_cnt.align64 = 1;
    } else if (strcmp(argv[i], "-H") == 0) {
      bench_cnt.align64 = bench_cnt.huge = 1;
    } else if (strcmp(argv[i], "-L") == 0) {
      bench_cnt.lazy = 1;
    } else if (strcmp(argv[i], "-d") == 0) {
      default_pairs = 1;
    } else if (strcmp(argv[i], "-E") == 0) {
      end_idle = 1;
    } else if (strcmp(argv[i], "-R") == 0) {
      shuffled = 1;
    } else if (argv[i][0] != '-') {
      secs_per_case = atof(argv[i]);
    } else {
      fprintf(stderr, "usage: bench_flow [-n PASSES] [-f FLOWS] [-P] [-R] "
                      "[-A] [-H] [-L] [-d] [-E] [SECONDS_PER_CASE]\n");
      return 2;
    }
  }
  if (fixed_passes < 0 || one > 4000000) {
    fprintf(stderr, "bench_flow: -n must be >= 0, -f at most 4000000\n");
    return 2;
  }
  printf("librocetel %s flow benchmark: parse + flow update, one core; "
         "%u-packet bursts to rtel_ctx_read_pkts(), %u ns apart%s\n",
         rtel_version(0)->version_str, BURST, TS_STEP, bench_alloc_desc());
  if (one) {
    rv = run_case(one);
  } else {
    rv = run_case(1000);
    if (rv == 0) {
      rv = run_case(100000);
    }
    if (rv == 0) {
      rv = run_case(1000000);
    }
  }
  if (rv == 0) {
    bench_print_load();
  }
  return rv;
}
