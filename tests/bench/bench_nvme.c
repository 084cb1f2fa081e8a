/* SPDX-License-Identifier: MIT */
/*
 * make bench: NVMe-oF I/O correlator throughput and memory.
 *
 * For Q NVMe-oF/RDMA queues (default Q = 64, then Q = 4096) builds an arena
 * of RoCEv2 packets with its own byte builder (not the library's decoder).
 * Queue q is an RC QP pair between host q / 16 (10.3.x.x, QP 0x100000 + q)
 * and target (q / 4) mod 4 (10.4.0.x, QP 0x200000 + q), 4 queues per
 * host-target pair. Each queue runs waves of DEPTH (8) I/Os of 4 KiB, 70%
 * reads and 30% writes:
 *   DEPTH command capsules   host -> target SEND ONLY, 64-byte SQE: read
 *                            (0x02) or write (0x01), CID, NSID 1, SLBA,
 *                            NLB, SGL1 keyed data block (addr, len, key)
 *   ACK                      target -> host
 *   read data                target -> host RDMA WRITE FIRST (RETH = the
 *                            SGL's address and key), MIDDLE, MIDDLE, LAST
 *   write data requests      target -> host RDMA READ REQUEST (RETH = SGL)
 *   ACK                      host -> target
 *   write data               host -> target READ RESPONSE FIRST, MIDDLE,
 *                            MIDDLE, LAST, PSN = the request's onward
 *   DEPTH responses          target -> host SEND ONLY, 16-byte CQE (CID,
 *                            status 0)
 *   ACK                      host -> target
 * Queues are interleaved round robin, packet by packet. Data packets are
 * 128-byte mirror copies of ~1100-byte packets; capsules, READ REQUESTs
 * and ACKs are whole. The queues are made known by an RDMA CM REQ/REP
 * exchange each (service ID 0x0000000001061144: port 4420; NVMe-RDMA
 * private data with the QID), fed to every context before pass 0. Before
 * each pass the arena is rebuilt for that pass (not timed): PSNs move on
 * and CIDs change, so every pass is new I/Os.
 *
 * Three contexts read the same passes, alternately, in the same process:
 *   decode    flow table and NVMe-oF correlator disabled (reference)
 *   baseline  flow table on, NVMe-oF correlator disabled
 *   nvme      flow table and NVMe-oF correlator on
 * so "nvme" minus "baseline" is the correlator's cost, the flow table being
 * on in both; and, alternately with them on the same passes, two bare
 * floors written here (bench_util.h), not the library:
 *   flowfloor the flow-table floor of bench_flow: a plain open-addressing
 *             table of 64-byte entries keyed by the packet's (source,
 *             destination, destination QPN) read at fixed offsets (2 keys
 *             per queue), one update per packet
 *   floor     the same, and for every packet of an I/O (capsule, data,
 *             READ REQUEST, response) one update of a second such table
 *             keyed by (queue, CID): taken at the command (its time), the
 *             data packets' bytes added, the latency summed and the entry
 *             removed at the response. The floor is told each packet's
 *             (queue, CID) by the builder (an array made with the arena,
 *             untimed): finding it from the bytes (capsule and response
 *             CID, SGL key of a RETH, PSN ranges of MIDDLE/LAST) is the
 *             correlator's work and is left out, so this is a lower bound.
 * with the ratios nvme / floor and baseline / flowfloor.
 * Pass 0 (warm-up) is timed by none. After every pass the nvme
 * context must have completed exactly the pass's I/Os, with no data
 * unmatched, no orphan and no timeout.
 *
 * Memory is measured with a counting allocator: bytes per outstanding I/O
 * are the difference of what rtel_ctx_new() allocates with max_ios = 2 X
 * and with max_ios = X, divided by X; likewise bytes per queue with
 * max_nvme_queues. The same allocator checks that the timed loops allocate
 * nothing (abort if they do).
 *
 * The nvme context holds an aggregate for every (host, target, namespace)
 * of the arena (max_aggregates; aggregates_dropped must stay 0). Without
 * -a it has no on_io_aggregate callback, so it keeps the aggregates' keys
 * but not their figures (rtel_agg.c); with -a a callback takes them at
 * the end (rtel_ctx_flush(), untimed), so the timed passes add every I/O
 * to its aggregates.
 *
 * Usage: bench_nvme [-a] [-L] [-q QUEUES] [-j MAX_IO_JOINS] [SECONDS_PER_CASE]
 *        (default 1.0: CPU seconds of the nvme context's timed passes, at
 *        least 3 passes)
 *   -q QUEUES        one case with QUEUES queues instead of 64 and 4096
 *   -a               an on_io_aggregate callback on the nvme context
 *   -L               lazy tables: pages faulted in when the library first
 *                    writes them, maybe in a timed pass (default: every
 *                    block written at allocation, as bench_flow)
 *   -j MAX_IO_JOINS  the join table's capacity (default: max_ios, which
 *                    is twice the outstanding I/Os); -j 1 nearly removes
 *                    it, to measure what it costs
 *        bench_nvme -n PASSES ...   exactly PASSES timed passes per context,
 *        for instruction counts under valgrind --tool=callgrind: the timed
 *        loops are bench_nvme_pass_decode(), bench_nvme_pass_base() and
 *        bench_nvme_pass_full() (the floors': bench_floor_pass_plain() and
 *        bench_nvme_pass_floor()), e.g.
 *          ./libtool --mode=execute valgrind --tool=callgrind \
 *            --toggle-collect=bench_nvme_pass_full tests/bench/bench_nvme \
 *            -n 3 -q 64
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rocetel/rocetel.h>

#include "bench_util.h"

#define SLOT 128 /* arena bytes per packet = the mirror's snap length */
#define IOS_TARGET 100000u /* I/Os per pass (rounded to whole waves) */
#define DEPTH 8u           /* I/Os per wave and queue */
#define IO_PKTS 4u         /* data packets per I/O: 4 KiB at MTU 1024 */
#define PAYLOAD 1024u
#define BURST BENCH_BURST
#define TS_STEP 20u /* ns between packets */
#define QPN_HOST 0x100000u
#define QPN_TGT 0x200000u
#define QUEUES_PER_PAIR 4u
#define TARGETS 4u
#define ECN 2u /* ECT(0) on every packet */

/* ------------------------------------------------------------ the arena */

/* packet kinds */
enum { K_CMD, K_ACKC, K_WR, K_RREQ, K_ACKD, K_RRSP, K_RSP };

typedef struct pdesc {
  uint32_t q;
  uint16_t io; /* the queue's I/O number within the pass */
  uint8_t kind;
  uint8_t sub;  /* data packet number within the I/O */
  uint32_t psn; /* offset within the pass, in the sender's PSN space (ACKs:
                   the acknowledged one's) */
} pdesc;

/* What the floor is told of a packet: its I/O's queue and CID, and what
 * it is of the I/O (IO_NONE: an ACK). */
enum { IO_NONE, IO_CMD, IO_DATA, IO_RSP };
typedef struct iokey {
  uint32_t q;
  uint16_t cid;
  uint8_t op;
  uint8_t pad;
} iokey;

typedef struct bench {
  uint32_t nq;  /* queues */
  uint32_t nio; /* I/Os per queue per pass */
  size_t n;     /* packets per pass */
  size_t nreads, nwrites;
  uint8_t *arena;
  pdesc *desc;
  iokey *iok; /* per slot, for the floor */
  uint16_t *cap, *wire;
  uint32_t *hpsn0, *tpsn0; /* per queue: first host / target PSN */
} bench;

static int is_write(uint32_t q, uint32_t io) {
  return mix(q * 7919u + io) % 10 < 3;
}
static uint32_t host_ip(uint32_t q) {
  return 0x0a030000u | (q / (QUEUES_PER_PAIR * TARGETS));
}
static uint32_t tgt_ip(uint32_t q) {
  return 0x0a040000u | ((q / QUEUES_PER_PAIR) % TARGETS);
}
static uint32_t io_key(uint32_t q, uint32_t io) {
  return mix(q * 0x9e3779b9u ^ io) | 1u;
}
static uint64_t io_va(uint32_t q, uint32_t io) {
  return 0x7f0000000000ull + (uint64_t)q * 0x10000000ull +
         (uint64_t)io * 0x10000u;
}

/* Per-pass PSN advance of each direction of a queue. */
static uint32_t host_psn(const bench *b, uint32_t q, uint64_t pass,
                         uint32_t off) {
  return (uint32_t)(b->hpsn0[q] + pass * b->nio + off) & 0xffffff;
}
static uint32_t tgt_psn(const bench *b, uint32_t q, uint64_t pass,
                        uint32_t off) {
  return (uint32_t)(b->tpsn0[q] + pass * b->nio * (IO_PKTS + 1) + off) &
         0xffffff;
}

static void build(const bench *b, uint8_t *p, const pdesc *d, uint64_t pass,
                  uint16_t *cap, uint16_t *wire) {
  uint32_t q = d->q, hip = host_ip(q), tip = tgt_ip(q);
  uint32_t hq = QPN_HOST + q, tq = QPN_TGT + q;
  unsigned cid = (unsigned)((pass * b->nio + d->io) & 0xffff);
  unsigned sport = 0xc000u | (q & 0x3fff);
  size_t off, w, c;
  uint8_t op;

  switch (d->kind) {
  case K_CMD: {
    int wr = is_write(q, d->io);
    uint64_t slba = ((uint64_t)q << 24) + (uint64_t)d->io * 8;
    off = put_hdrs(p, hip, tip, sport, ECN, 0x04, 1, tq,
                   host_psn(b, q, pass, d->psn), 64, &w);
    memset(p + off, 0, 64);
    p[off] = wr ? 0x01 : 0x02;
    p[off + 1] = 0x40; /* PSDT: SGL */
    le16(p + off + 2, cid);
    le32(p + off + 4, 1); /* NSID */
    le64(p + off + 24, io_va(q, d->io));
    p[off + 32] = 0x00; /* length 4096, LE24 */
    p[off + 33] = 0x10;
    p[off + 34] = 0x00;
    le32(p + off + 35, io_key(q, d->io));
    p[off + 39] = 0x40; /* keyed data block, address */
    le64(p + off + 40, slba);
    le16(p + off + 48, 7); /* NLB - 1: 8 x 512 bytes */
    c = off + 64 + 4;
    memset(p + off + 64, 0, 4); /* ICRC (not verified) */
    break;
  }
  case K_RSP:
    off = put_hdrs(p, tip, hip, sport, ECN, 0x04, 1, hq,
                   tgt_psn(b, q, pass, d->psn), 16, &w);
    memset(p + off, 0, 16 + 4);
    le16(p + off + 8, (unsigned)(pass * b->nio + d->io) & 0x7f); /* SQHD */
    le16(p + off + 10, 1 + q % QUEUES_PER_PAIR);                 /* SQID */
    le16(p + off + 12, cid);
    le16(p + off + 14, 0); /* status 0, phase 0 */
    c = off + 16 + 4;
    break;
  case K_WR:
    op = d->sub == 0 ? 0x06 : d->sub == IO_PKTS - 1 ? 0x08 : 0x07;
    off = put_hdrs(p, tip, hip, sport, ECN, op, d->sub == IO_PKTS - 1, hq,
                   tgt_psn(b, q, pass, d->psn),
                   (op == 0x06 ? 16 : 0) + PAYLOAD, &w);
    if (op == 0x06) {
      put64(p + off, io_va(q, d->io));
      put32(p + off + 8, io_key(q, d->io));
      put32(p + off + 12, IO_PKTS * PAYLOAD);
    }
    c = SLOT;
    break;
  case K_RREQ:
    off = put_hdrs(p, tip, hip, sport, ECN, 0x0c, 1, hq,
                   tgt_psn(b, q, pass, d->psn), 16, &w);
    put64(p + off, io_va(q, d->io));
    put32(p + off + 8, io_key(q, d->io));
    put32(p + off + 12, IO_PKTS * PAYLOAD);
    memset(p + off + 16, 0, 4);
    c = off + 16 + 4;
    break;
  case K_RRSP:
    op = d->sub == 0 ? 0x0d : d->sub == IO_PKTS - 1 ? 0x0f : 0x0e;
    off = put_hdrs(p, hip, tip, sport, ECN, op, 0, tq,
                   tgt_psn(b, q, pass, d->psn), (op == 0x0e ? 0 : 4) + PAYLOAD,
                   &w);
    if (op != 0x0e) {
      p[off] = 0x1f;
      put24(p + off + 1, (uint32_t)(pass * b->nio + d->io) & 0xffffff);
    }
    c = SLOT;
    break;
  case K_ACKC: /* target acknowledges the host's capsules */
  case K_ACKD: /* host acknowledges the target's requests */
  default:
    off = put_hdrs(p, d->kind == K_ACKC ? tip : hip,
                   d->kind == K_ACKC ? hip : tip, sport, ECN, 0x11, 0,
                   d->kind == K_ACKC ? hq : tq,
                   d->kind == K_ACKC ? host_psn(b, q, pass, d->psn)
                                     : tgt_psn(b, q, pass, d->psn),
                   4, &w);
    p[off] = 0x1f;
    put24(p + off + 1, d->psn & 0xffffff);
    memset(p + off + 4, 0, 4);
    c = off + 8;
    break;
  }
  *cap = (uint16_t)c;
  *wire = (uint16_t)w;
}

static void build_pass(const bench *b, uint64_t pass) {
  size_t i;
  for (i = 0; i < b->n; i++) {
    const pdesc *d = &b->desc[i];
    build(b, b->arena + i * SLOT, d, pass, &b->cap[i], &b->wire[i]);
    b->iok[i].q = d->q;
    b->iok[i].cid = (uint16_t)((pass * b->nio + d->io) & 0xffff);
    b->iok[i].op = d->kind == K_CMD                         ? IO_CMD
                   : d->kind == K_RSP                       ? IO_RSP
                   : d->kind == K_ACKC || d->kind == K_ACKD ? IO_NONE
                                                            : IO_DATA;
    b->iok[i].pad = 0;
  }
}

/* The packets of one queue for one pass, in order. */
static size_t queue_seq(const bench *b, uint32_t q, pdesc *out, size_t *nr,
                        size_t *nw) {
  uint32_t h = 0, t = 0, io0, d, s, rreq[DEPTH];
  size_t n = 0;
#define EMIT(K, IO, SUB, PSN)                                                 \
  do {                                                                        \
    out[n].q = q;                                                             \
    out[n].io = (uint16_t)(IO);                                               \
    out[n].kind = (K);                                                        \
    out[n].sub = (uint8_t)(SUB);                                              \
    out[n].psn = (PSN);                                                       \
    n++;                                                                      \
  } while (0)
  for (io0 = 0; io0 < b->nio; io0 += DEPTH) {
    int reads = 0;
    for (d = 0; d < DEPTH; d++) {
      EMIT(K_CMD, io0 + d, 0, h++);
    }
    EMIT(K_ACKC, 0, 0, h - 1);
    for (d = 0; d < DEPTH; d++) {
      if (is_write(q, io0 + d)) {
        rreq[d] = t;
        EMIT(K_RREQ, io0 + d, 0, t);
        t += IO_PKTS; /* a READ uses as many PSNs as its response */
        (*nw)++;
      } else {
        for (s = 0; s < IO_PKTS; s++) {
          EMIT(K_WR, io0 + d, s, t++);
        }
        reads = 1;
        (*nr)++;
      }
    }
    if (reads) {
      EMIT(K_ACKD, 0, 0, t - 1);
    }
    for (d = 0; d < DEPTH; d++) {
      if (is_write(q, io0 + d)) {
        for (s = 0; s < IO_PKTS; s++) {
          EMIT(K_RRSP, io0 + d, s, rreq[d] + s);
        }
      }
    }
    for (d = 0; d < DEPTH; d++) {
      EMIT(K_RSP, io0 + d, 0, t++);
    }
    EMIT(K_ACKD, 0, 0, t - 1);
  }
#undef EMIT
  return n;
}

static int bench_init(bench *b, uint32_t nq) {
  uint32_t q, waves;
  size_t maxq = 0, i, *len, *pos, *start;
  pdesc *tmp;
  memset(b, 0, sizeof(*b));
  b->nq = nq;
  waves = (IOS_TARGET + nq * DEPTH / 2) / (nq * DEPTH);
  b->nio = (waves ? waves : 1) * DEPTH;
  if (b->nio > 65536 / 2) {
    b->nio = 65536 / 2; /* CIDs are 16 bits */
  }
  /* at most DEPTH x (command, READ REQUEST, IO_PKTS responses, response)
   * + 3 ACKs per wave */
  maxq = (size_t)(b->nio / DEPTH) * (DEPTH * (IO_PKTS + 3) + 3);
  tmp = malloc((size_t)nq * maxq * sizeof(*tmp));
  len = calloc(nq, sizeof(*len));
  pos = calloc(nq, sizeof(*pos));
  start = calloc(nq, sizeof(*start));
  b->hpsn0 = malloc(nq * sizeof(*b->hpsn0));
  b->tpsn0 = malloc(nq * sizeof(*b->tpsn0));
  if (!tmp || !len || !pos || !start || !b->hpsn0 || !b->tpsn0) {
    return -1;
  }
  for (q = 0; q < nq; q++) {
    b->hpsn0[q] = mix(q * 2u + 1) & 0xffffff;
    b->tpsn0[q] = mix(q * 2u + 2) & 0xffffff;
    start[q] = (size_t)q * maxq;
    len[q] = queue_seq(b, q, tmp + start[q], &b->nreads, &b->nwrites);
    b->n += len[q];
  }
  b->arena = bench_arena_alloc(b->n * SLOT);
  b->desc = malloc(b->n * sizeof(*b->desc));
  b->iok = malloc(b->n * sizeof(*b->iok));
  b->cap = malloc(b->n * sizeof(*b->cap));
  b->wire = malloc(b->n * sizeof(*b->wire));
  if (!b->arena || !b->desc || !b->iok || !b->cap || !b->wire) {
    return -1;
  }
  /* round robin over the queues, packet by packet */
  for (i = 0; i < b->n;) {
    for (q = 0; q < nq; q++) {
      if (pos[q] < len[q]) {
        b->desc[i++] = tmp[start[q] + pos[q]++];
      }
    }
  }
  free(tmp);
  free(len);
  free(pos);
  free(start);
  return 0;
}

static void bench_free(bench *b) {
  free(b->arena);
  free(b->desc);
  free(b->iok);
  free(b->cap);
  free(b->wire);
  free(b->hpsn0);
  free(b->tpsn0);
}

/* The RDMA CM REQ (host -> target) or REP (target -> host) of queue q. */
static size_t build_cm(const bench *b, uint8_t *p, uint32_t q, int rep,
                       size_t *wire) {
  uint8_t *m, *d;
  size_t off;
  memset(p, 0, 400);
  off = put_hdrs(p, rep ? tgt_ip(q) : host_ip(q), rep ? host_ip(q) : tgt_ip(q),
                 0xc000u, ECN, 0x64, 0, 1, q, 8 + 256, wire);
  put32(p + off, 0x80010000u); /* DETH: Q_Key, source QP 1 */
  put24(p + off + 5, 1);
  m = p + off + 8;
  m[0] = 1;    /* base version */
  m[1] = 0x07; /* CM */
  m[2] = 2;
  m[3] = 0x03;                       /* Send */
  put64(m + 8, 0x2000000000ull + q); /* TID */
  put16(m + 16, rep ? 0x0013 : 0x0010);
  d = m + 24;
  if (!rep) {
    put32(d, 0x100000u + q);             /* local comm ID */
    put64(d + 8, 0x0000000001061144ull); /* IP-CM, TCP port space, 4420 */
    put24(d + 32, QPN_HOST + q);         /* local QPN */
    put24(d + 44, b->hpsn0[q]);          /* starting PSN */
    /* private data: IP-CM header (version, IPv4, source port, addresses),
     * then NVMe-RDMA: RECFMT 0, QID, HRQSIZE, HSQSIZE */
    d[140] = 0x00;
    d[141] = 0x40;
    put16(d + 142, 0xc000u);
    put32(d + 140 + 16, host_ip(q));
    put32(d + 140 + 32, tgt_ip(q));
    le16(d + 176, 0);
    le16(d + 178, 1 + q % QUEUES_PER_PAIR);
    le16(d + 180, 128);
    le16(d + 182, 127);
  } else {
    put32(d, 0x200000u + q);
    put32(d + 4, 0x100000u + q);
    put24(d + 12, QPN_TGT + q);
    put24(d + 20, b->tpsn0[q]);
  }
  return off + 8 + 256 + 4;
}

/* ------------------------------------------------------------ timing */

static double read_arena(rtel_ctx *ctx, const bench *b, rtel_tstamp ts0) {
  return bench_read_arena(ctx, b->arena, SLOT, b->n, b->cap, b->wire, ts0,
                          TS_STEP);
}

/* Separate functions so that callgrind can count each one alone. */
double bench_nvme_pass_warm(rtel_ctx *ctx, const bench *b, rtel_tstamp ts0);
double bench_nvme_pass_decode(rtel_ctx *ctx, const bench *b, rtel_tstamp ts0);
double bench_nvme_pass_base(rtel_ctx *ctx, const bench *b, rtel_tstamp ts0);
double bench_nvme_pass_full(rtel_ctx *ctx, const bench *b, rtel_tstamp ts0);

__attribute__((noinline)) double
bench_nvme_pass_warm(rtel_ctx *ctx, const bench *b, rtel_tstamp ts0) {
  return read_arena(ctx, b, ts0);
}
__attribute__((noinline)) double
bench_nvme_pass_decode(rtel_ctx *ctx, const bench *b, rtel_tstamp ts0) {
  return read_arena(ctx, b, ts0);
}
__attribute__((noinline)) double
bench_nvme_pass_base(rtel_ctx *ctx, const bench *b, rtel_tstamp ts0) {
  return read_arena(ctx, b, ts0);
}
__attribute__((noinline)) double
bench_nvme_pass_full(rtel_ctx *ctx, const bench *b, rtel_tstamp ts0) {
  return read_arena(ctx, b, ts0);
}

/* The floor's tables and tallies. */
typedef struct nvme_floor {
  bench_floor flows; /* (source, destination, QPN) */
  bench_floor ios;   /* (queue, CID) */
  uint64_t done;     /* responses that found their command */
  uint64_t unmatched;
  uint64_t lat_sum; /* ns, command to response */
} nvme_floor;

/* One pass of the floor: each packet's flow entry, then its I/O's. */
static inline void floor_loop(nvme_floor *fl, const bench *b,
                              rtel_tstamp ts0) {
  size_t i;
  for (i = 0; i < b->n; i++) {
    const uint8_t *p = b->arena + i * SLOT;
    const iokey *k = &b->iok[i];
    rtel_tstamp ts = ts0 + i * TS_STEP;
    bench_floor_ent *e;
    uint64_t h;
    bench_floor_pkt_update(&fl->flows, p, b->wire[i], ts);
    if (k->op == IO_NONE) {
      continue;
    }
    h = bench_floor_hash(k->q, k->cid, 0);
    if (k->op == IO_CMD) {
      e = bench_floor_get(&fl->ios, h, k->q, k->cid, 0);
      e->first_ts = e->last_ts = ts;
      e->pkts = 1;
      e->bytes = 0;
      e->psn = p[54]; /* the command's opcode */
    } else if ((e = bench_floor_find(&fl->ios, h, k->q, k->cid, 0)) == NULL) {
      fl->unmatched++;
    } else if (k->op == IO_DATA) {
      e->pkts++;
      e->bytes += b->wire[i];
      e->last_ts = ts;
    } else {
      fl->lat_sum += ts - e->first_ts;
      fl->done++;
      bench_floor_del(&fl->ios, e);
    }
  }
}

static void floor_warm(nvme_floor *fl, const bench *b, rtel_tstamp ts0) {
  floor_loop(fl, b, ts0);
}

double bench_nvme_pass_floor(nvme_floor *fl, const bench *b, rtel_tstamp ts0);

__attribute__((noinline)) double
bench_nvme_pass_floor(nvme_floor *fl, const bench *b, rtel_tstamp ts0) {
  bench_timer tm;
  bench_timer_start(&tm);
  floor_loop(fl, b, ts0);
  return bench_timer_stop(&tm, b->n);
}

static double print_rate(const char *name, double secs, uint64_t pkts,
                         double ppio, double base_ns, const char *note_) {
  double ns = secs * 1e9 / (double)pkts;
  bench_print_rate(9, name, ns, ppio, base_ns, "baseline", note_);
  return ns;
}

/* ------------------------------------------------------------ memory */

/* Bytes rtel_ctx_new() allocates per unit of a setting: |s1| and |s2|
 * differ in one capacity, by |units|. Prints the allocations that differ
 * (same call order in both), named from |names| (rtel__nvme_init()'s
 * order) when there are exactly |nnames| of them. */
static int per_unit(const char *what, const rtel_settings *s1,
                    const rtel_settings *s2, uint64_t units,
                    const char *const *names, unsigned nnames) {
  bench_alloc_log a, b;
  rtel_ctx *c1 = NULL, *c2 = NULL;
  unsigned i, ndiff = 0;
  int rv;
  if ((rv = bench_ctx_new(&c1, s1, &a)) != 0 ||
      (rv = bench_ctx_new(&c2, s2, &b)) != 0) {
    fprintf(stderr, "bench_nvme: rtel_ctx_new: %s\n", rtel_strerror(rv));
    return -1;
  }
  printf("memory    %9.1f B per %s\n",
         (double)(b.bytes - a.bytes) / (double)units, what);
  if (a.n == b.n) {
    for (i = 0; i < a.n; i++) {
      ndiff += a.a[i][0] != b.a[i][0] || a.a[i][1] != b.a[i][1];
    }
    for (i = 0; i < a.n; i++) {
      if (a.a[i][0] != b.a[i][0] || a.a[i][1] != b.a[i][1]) {
        uint64_t d = b.a[i][0] * b.a[i][1] - a.a[i][0] * a.a[i][1];
        printf("          %-22s %8llu x %5llu B -> %8llu x %5llu B: %7.1f "
               "B\n",
               ndiff == nnames ? *names++ : "allocation",
               (unsigned long long)a.a[i][0], (unsigned long long)a.a[i][1],
               (unsigned long long)b.a[i][0], (unsigned long long)b.a[i][1],
               (double)d / (double)units);
      }
    }
  }
  rtel_ctx_del(c1);
  rtel_ctx_del(c2);
  return 0;
}

static int memory(uint32_t nq) {
  static const char *const io_names[] = {"I/O entries", "(queue, CID) buckets",
                                         "SGL key buckets", "join entries",
                                         "join buckets"};
  static const char *const q_names[] = {"queue entries", "queue buckets",
                                        "reverse entries", "reverse buckets"};
  rtel_settings s1, s2;
  const uint32_t x = 65536;
  rtel_settings_default(&s1);
  s1.flow_flags = RTEL_FLOW_DISABLE;
  s1.max_nvme_queues = nq;
  s1.max_ios = x;
  s1.max_io_joins = 0; /* 0: max_ios */
  s2 = s1;
  s2.max_ios = 2 * x;
  if (per_unit("outstanding I/O (max_io_joins = max_ios)", &s1, &s2, x,
               io_names, 5) != 0) {
    return -1;
  }
  s1.max_io_joins = s2.max_io_joins = 1024;
  if (per_unit("outstanding I/O (max_io_joins fixed)", &s1, &s2, x, io_names,
               3) != 0) {
    return -1;
  }
  s1.max_ios = s2.max_ios = x;
  s1.max_io_joins = s2.max_io_joins = 0;
  s1.max_nvme_queues = 4096;
  s2.max_nvme_queues = 8192;
  return per_unit("NVMe-oF queue", &s1, &s2, 4096, q_names, 4);
}

/* ------------------------------------------------------------ a case */

static double secs_per_case = 1.0;
static long fixed_passes;
static long io_joins = -1; /* -j: max_io_joins; -1: = max_ios */
static int agg_cb;         /* -a: on_io_aggregate */

/* -a: counts the aggregates the nvme context reports and the I/Os in them
 * (reads and writes of namespace 1: every I/O of the arena once). */
typedef struct agg_tally {
  uint64_t n;
  uint64_t ios;
} agg_tally;

static int on_agg(rtel_ctx *ctx, const rtel_io_aggregate *a, void *user) {
  agg_tally *t = user;
  (void)ctx;
  t->n++;
  if (a->nsid == 1) {
    t->ios += a->count;
  }
  return 0;
}

static int stats_ok(const rtel_ctx_stats *st, uint64_t want_complete) {
  return st->ios_complete == want_complete && st->ios_timeout == 0 &&
         st->ios_orphan == 0 && st->ios_evicted == 0 &&
         st->ios_untracked == 0 && st->nvme_data_unmatched == 0 &&
         st->nvme_capsule_dups == 0 && st->pkts_roce == st->pkts &&
         st->aggregates_dropped == 0;
}

static int run_case(uint32_t nq) {
  bench b;
  rtel_settings sd, sb, sf;
  rtel_callbacks cbs;
  agg_tally tally = {0, 0};
  rtel_ctx *cd = NULL, *cb = NULL, *cf = NULL;
  rtel_ctx_stats st;
  bench_alloc_log lg;
  nvme_floor fl;
  bench_floor ffl; /* the flow-table floor alone */
  rtel_tstamp ts = 1000000000ull;
  double t_dec = 0, t_base = 0, t_full = 0, base_ns, ppio;
  double t_ffloor = 0, t_floor = 0, full_ns, ffloor_ns, floor_ns;
  uint64_t pass = 0, npass = 0, ios_pass;
  uint32_t q, npairs = (nq + QUEUES_PER_PAIR - 1) / QUEUES_PER_PAIR;
  char note_[160];
  int rv;

  memset(&fl, 0, sizeof(fl));
  if (bench_init(&b, nq) != 0 || bench_floor_init(&ffl, 2 * (size_t)nq) != 0 ||
      bench_floor_init(&fl.flows, 2 * (size_t)nq) != 0 ||
      bench_floor_init(&fl.ios, (size_t)nq * DEPTH) != 0) {
    fprintf(stderr, "bench_nvme: out of memory for the arena\n");
    return 1;
  }
  ios_pass = (uint64_t)nq * b.nio;
  ppio = (double)b.n / (double)ios_pass;
  rtel_settings_default(&sd);
  sd.flow_flags = RTEL_FLOW_DISABLE;
  sd.nvme_flags = RTEL_NVME_DISABLE;
  sb = sd;
  sb.flow_flags = 0;
  sb.max_flows = 4 * nq < 1024 ? 1024 : 4 * nq; /* 3 flows per queue */
  sb.max_qp_pairs = sb.max_flows;               /* 2 entries per queue */
  sb.flow_idle_timeout = 3600000000000ull;
  sf = sb;
  sf.nvme_flags = 0;
  sf.max_nvme_queues = nq;
  sf.max_ios = 2 * nq * DEPTH; /* twice what is outstanding */
  sf.max_io_joins = io_joins < 0 ? 0u : (uint32_t)io_joins; /* 0: max_ios */
  /* per (host, target): namespace 1 and all namespaces */
  sf.max_aggregates = 2 * npairs;
  if (sf.max_aggregates < 128) {
    sf.max_aggregates = 128;
  }
  memset(&cbs, 0, sizeof(cbs));
  cbs.on_io_aggregate = on_agg;
  if ((rv = bench_ctx_new(&cd, &sd, &lg)) != 0 ||
      (rv = bench_ctx_new(&cb, &sb, &lg)) != 0 ||
      (rv = bench_ctx_new_cb(&cf, &sf, agg_cb ? &cbs : NULL, &tally, &lg)) !=
          0) {
    fprintf(stderr, "bench_nvme: rtel_ctx_new: %s\n", rtel_strerror(rv));
    return 1;
  }
  printf("\nQ = %u queues: %zu packets per pass, %llu I/Os (%zu reads, %zu "
         "writes of %u KiB; %u per queue, %u outstanding per queue), %.2f "
         "packets per I/O, round robin, %zu MB arena\n",
         nq, b.n, (unsigned long long)ios_pass, b.nreads, b.nwrites,
         IO_PKTS * PAYLOAD / 1024, b.nio, DEPTH, ppio, b.n * SLOT >> 20);
  printf("settings  max_flows %u, max_qp_pairs %u; nvme: max_nvme_queues %u, "
         "max_ios %u, max_io_joins %u, max_aggregates %u%s; nvme context: "
         "%.1f MB\n",
         sb.max_flows, sb.max_qp_pairs, sf.max_nvme_queues, sf.max_ios,
         sf.max_io_joins ? sf.max_io_joins : sf.max_ios, sf.max_aggregates,
         agg_cb ? " (on_io_aggregate)" : "", (double)lg.bytes / 1e6);

  /* queues: RDMA CM REQ/REP, to every context (not timed) */
  {
    uint8_t pkt[512];
    rtel_pkt_info pi;
    memset(&pi, 0, sizeof(pi));
    for (q = 0; q < nq; q++) {
      int r;
      for (r = 0; r < 2; r++) {
        size_t w, len = build_cm(&b, pkt, q, r, &w);
        pi.ts = ts;
        pi.wire_len = (uint32_t)w;
        if (rtel_ctx_read_pkt(cd, &pi, pkt, len) != 0 ||
            rtel_ctx_read_pkt(cb, &pi, pkt, len) != 0 ||
            rtel_ctx_read_pkt(cf, &pi, pkt, len) != 0) {
          abort();
        }
      }
      ts += TS_STEP;
    }
  }

  /* pass 0: warm-up */
  build_pass(&b, pass);
  bench_nvme_pass_warm(cd, &b, ts);
  bench_nvme_pass_warm(cb, &b, ts);
  bench_nvme_pass_warm(cf, &b, ts);
  bench_floor_fill(&ffl, b.arena, SLOT, b.n, b.wire, ts, TS_STEP);
  floor_warm(&fl, &b, ts);
  ts += b.n * TS_STEP;
  pass++;
  if (rtel_ctx_get_stats(cf, &st) != 0 || st.nvme_queues_cm != nq ||
      !stats_ok(&st, ios_pass)) {
    fprintf(stderr,
            "bench_nvme: after pass 0: queues %llu (want %u), "
            "complete %llu (want %llu), timeout %llu, orphan %llu, "
            "evicted %llu, untracked %llu, data unmatched %llu, "
            "dups %llu\n",
            (unsigned long long)st.nvme_queues_cm, nq,
            (unsigned long long)st.ios_complete, (unsigned long long)ios_pass,
            (unsigned long long)st.ios_timeout,
            (unsigned long long)st.ios_orphan,
            (unsigned long long)st.ios_evicted,
            (unsigned long long)st.ios_untracked,
            (unsigned long long)st.nvme_data_unmatched,
            (unsigned long long)st.nvme_capsule_dups);
    return 1;
  }

  do {
    build_pass(&b, pass);
    t_dec += bench_nvme_pass_decode(cd, &b, ts);
    t_base += bench_nvme_pass_base(cb, &b, ts);
    t_full += bench_nvme_pass_full(cf, &b, ts);
    t_ffloor +=
        bench_floor_pass_plain(&ffl, b.arena, SLOT, b.n, b.wire, ts, TS_STEP);
    t_floor += bench_nvme_pass_floor(&fl, &b, ts);
    ts += b.n * TS_STEP;
    pass++;
    npass++;
    if (fl.done != pass * ios_pass || fl.unmatched != 0 || fl.ios.n != 0 ||
        ffl.n != 2 * (size_t)nq || fl.flows.n != 2 * (size_t)nq) {
      fprintf(stderr,
              "bench_nvme: pass %llu: the floor completed %llu I/Os (want "
              "%llu), %llu packets unmatched, %zu left open, %zu flow keys "
              "(want %u)\n",
              (unsigned long long)pass, (unsigned long long)fl.done,
              (unsigned long long)(pass * ios_pass),
              (unsigned long long)fl.unmatched, fl.ios.n, fl.flows.n, 2 * nq);
      return 1;
    }
    if (rtel_ctx_get_stats(cf, &st) != 0 || !stats_ok(&st, pass * ios_pass)) {
      fprintf(stderr, "bench_nvme: pass %llu: complete %llu (want %llu)\n",
              (unsigned long long)pass, (unsigned long long)st.ios_complete,
              (unsigned long long)(pass * ios_pass));
      return 1;
    }
  } while (fixed_passes ? (long)npass < fixed_passes
                        : t_full < secs_per_case || npass < 3);

  print_rate("decode", t_dec, npass * b.n, ppio, 0,
             "(flows and NVMe-oF off: decode + counters)");
  base_ns = t_base * 1e9 / (double)(npass * b.n);
  print_rate("baseline", t_base, npass * b.n, ppio, 0,
             "(flows on, NVMe-oF off)");
  snprintf(note_, sizeof(note_), "(%llu timed passes each)",
           (unsigned long long)npass);
  full_ns = print_rate("nvme", t_full, npass * b.n, ppio, base_ns, note_);
  snprintf(note_, sizeof(note_),
           "(bare floor of the flow table: plain hash table of 64-byte "
           "entries, %zu keys in %zu, one update per packet)",
           ffl.n, ffl.cap);
  ffloor_ns = print_rate("flowfloor", t_ffloor, npass * b.n, ppio, 0, note_);
  snprintf(note_, sizeof(note_),
           "(flowfloor + a (queue, CID) table, %zu entries, per I/O packet; "
           "mean command-response %.0f ns)",
           fl.ios.cap, fl.done ? (double)fl.lat_sum / (double)fl.done : 0.0);
  floor_ns = print_rate("floor", t_floor, npass * b.n, ppio, 0, note_);
  printf("ratio     nvme / floor %.2f; baseline / flowfloor %.2f; (nvme - "
         "baseline) / (floor - flowfloor) %.1f\n",
         full_ns / floor_ns, base_ns / ffloor_ns,
         floor_ns > ffloor_ns ? (full_ns - base_ns) / (floor_ns - ffloor_ns)
                              : 0.0);
  bench_print_allocs();
  /* the aggregates (untimed): with -a every I/O of every pass in one */
  if (rtel_ctx_flush(cf, ts) != 0 ||
      (agg_cb &&
       (tally.n != 4 * (uint64_t)npairs || tally.ios != pass * ios_pass))) {
    fprintf(stderr,
            "bench_nvme: %llu aggregates (want %llu: reads, writes of "
            "namespace 1 and of all, per host and target) of %llu I/Os "
            "(want %llu)\n",
            (unsigned long long)tally.n, 4 * (unsigned long long)npairs,
            (unsigned long long)tally.ios,
            (unsigned long long)(pass * ios_pass));
    return 1;
  }
  printf("check     ios_complete %llu (%llu per pass), timeout %llu, orphan "
         "%llu, evicted %llu, data unmatched %llu, aggregates_dropped %llu; "
         "flows %llu, io_join_unmatched %llu; allocator calls in timed "
         "loops 0\n",
         (unsigned long long)st.ios_complete, (unsigned long long)ios_pass,
         (unsigned long long)st.ios_timeout, (unsigned long long)st.ios_orphan,
         (unsigned long long)st.ios_evicted,
         (unsigned long long)st.nvme_data_unmatched,
         (unsigned long long)st.aggregates_dropped,
         (unsigned long long)st.flows_active,
         (unsigned long long)st.io_join_unmatched);
  rtel_ctx_del(cd);
  rtel_ctx_del(cb);
  rtel_ctx_del(cf);
  bench_floor_free(&ffl);
  bench_floor_free(&fl.flows);
  bench_floor_free(&fl.ios);
  bench_free(&b);
  return 0;
}

int main(int argc, char **argv) {
  uint32_t one = 0;
  int i, rv = 0;

  bench_prog = "bench_nvme";
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
      fixed_passes = atol(argv[++i]);
    } else if (strcmp(argv[i], "-q") == 0 && i + 1 < argc) {
      one = (uint32_t)strtoul(argv[++i], NULL, 10);
    } else if (strcmp(argv[i], "-a") == 0) {
      agg_cb = 1;
    } else if (strcmp(argv[i], "-L") == 0) {
      bench_cnt.lazy = 1;
    } else if (strcmp(argv[i], "-j") == 0 && i + 1 < argc) {
      io_joins = atol(argv[++i]);
    } else if (argv[i][0] != '-') {
      secs_per_case = atof(argv[i]);
    } else {
      fprintf(stderr, "usage: bench_nvme [-a] [-L] [-n PASSES] [-q QUEUES] "
                      "[-j MAX_IO_JOINS] [SECONDS_PER_CASE]\n");
      return 2;
    }
  }
  if (fixed_passes < 0 || one > 65536 || io_joins > (1L << 26)) {
    fprintf(stderr, "bench_nvme: -n must be >= 0, -q at most 65536, -j at "
                    "most 2^26\n");
    return 2;
  }
  printf("librocetel %s NVMe-oF benchmark: parse + flows + I/O correlation, "
         "one core; %u-packet bursts to rtel_ctx_read_pkts(), %u ns apart%s\n",
         rtel_version(0)->version_str, BURST, TS_STEP, bench_alloc_desc());
  if (memory(one ? one : 4096) != 0) {
    return 1;
  }
  if (one) {
    rv = run_case(one);
  } else {
    rv = run_case(64);
    if (rv == 0) {
      rv = run_case(4096);
    }
  }
  if (rv == 0) {
    bench_print_load();
  }
  return rv;
}
