/* SPDX-License-Identifier: MIT */
/*
 * Flow-table scenario tests (rtel-metrics(7), "THROUGHPUT FIGURES"; the rules
 * in the design comment of lib/rtel_flow.c).
 *
 * Every packet is built byte by byte (the shared builder of
 * tests/rtel_test_util.h) and fed through the public
 * API with timestamps chosen here; records are captured from on_flow and
 * on_message. Every expected value below is computed by hand from the
 * packets of the scenario (the arithmetic is in the comments); nothing is
 * derived from library output.
 *
 * Conventions: host A = 10.0.0.1 (QP QA), host B = 10.0.0.2 (QP QB); data
 * A -> B is addressed to QB, its ACKs/NAKs/CNPs go B -> A to QA. T0 = 1 s.
 */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rocetel/rocetel.h>

#include "rtel_test_util.h"

/* ------------------------------------------------------------ constants */

static const uint8_t IP_A[16] = {0, 0, 0,    0,    0,  0, 0, 0,
                                 0, 0, 0xff, 0xff, 10, 0, 0, 1};
static const uint8_t IP_B[16] = {0, 0, 0,    0,    0,  0, 0, 0,
                                 0, 0, 0xff, 0xff, 10, 0, 0, 2};
static const uint8_t IP_C[16] = {0, 0, 0,    0,    0,  0, 0, 0,
                                 0, 0, 0xff, 0xff, 10, 0, 0, 3};
static const uint8_t IP6_A[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
                                  0,    0,    0,    0,    0, 0, 0, 0x0a};
static const uint8_t IP6_B[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
                                  0,    0,    0,    0,    0, 0, 0, 0x0b};

#define QA 0x00A1A1u
#define QB 0x00B2B2u
#define QA2 0x00A2A2u
#define QB2 0x00B3B3u
#define QB3 0x00C4C4u
#define T0 UINT64_C(1000000000)
#define IDLE UINT64_C(1000000) /* 1 ms */
#define OBS 7u

#define SPORT 0xC0DEu
#define DSCP 26u
/* the IPv4 TOS / IPv6 traffic class byte of a DSCP and an ECN codepoint */
#define TOS(dscp, ecn) ((uint8_t)((dscp) << 2 | (ecn)))

/* opcodes (IBTA) */
#define OP_SEND_FIRST 0x00
#define OP_SEND_MIDDLE 0x01
#define OP_SEND_LAST 0x02
#define OP_SEND_LAST_IMM 0x03
#define OP_SEND_ONLY 0x04
#define OP_WRITE_FIRST 0x06
#define OP_WRITE_MIDDLE 0x07
#define OP_WRITE_LAST 0x08
#define OP_WRITE_LAST_IMM 0x09
#define OP_WRITE_ONLY 0x0A
#define OP_READ_REQ 0x0C
#define OP_RRESP_FIRST 0x0D
#define OP_RRESP_MIDDLE 0x0E
#define OP_RRESP_LAST 0x0F
#define OP_RRESP_ONLY 0x10
#define OP_ACK 0x11
#define OP_ATOMIC_ACK 0x12
#define OP_CMP_SWAP 0x13
#define OP_SEND_ONLY_INV 0x17
#define OP_CNP 0x81

/* ------------------------------------------------------------ capture */

typedef struct cap {
  rtel_flow_record *fl;
  size_t nfl;
  rtel_msg_record *ms;
  size_t nms;
  char *ev; /* 'F' / 'M' in delivery order */
  size_t nev;
  int fail_flow;
  int fail_msg;
} cap;

#define CAP_FL 4096
#define CAP_MS 8192

static int on_flow(rtel_ctx *ctx, const rtel_flow_record *r, void *ud) {
  cap *c = ud;
  (void)ctx;
  ck_assert_msg(c->nfl < CAP_FL, "too many flow records");
  c->fl[c->nfl++] = *r;
  c->ev[c->nev++] = 'F';
  return c->fail_flow;
}

static int on_message(rtel_ctx *ctx, const rtel_msg_record *r, void *ud) {
  cap *c = ud;
  (void)ctx;
  ck_assert_msg(c->nms < CAP_MS, "too many message records");
  c->ms[c->nms++] = *r;
  c->ev[c->nev++] = 'M';
  return c->fail_msg;
}

typedef struct env {
  rtel_ctx *ctx;
  cap c;
  uint32_t obs;
} env;

/* What the current test allocated: a failed assertion leaves its test
 * without running env_free(); the teardown frees what is left (no-fork
 * mode, valgrind). Copies of the pointers are kept, not the env, which
 * lives in the test's stack frame. */
#define MAX_LIVE 8
typedef struct live_ent {
  const env *owner;
  rtel_ctx *ctx;
  void *fl, *ms, *ev;
} live_ent;
static live_ent live[MAX_LIVE];

static void live_release(live_ent *l) {
  rtel_ctx_del(l->ctx);
  free(l->fl);
  free(l->ms);
  free(l->ev);
  memset(l, 0, sizeof(*l));
}

static void teardown(void) {
  int i;
  for (i = 0; i < MAX_LIVE; i++) {
    if (live[i].owner) {
      live_release(&live[i]);
    }
  }
}

static void env_init_s(env *e, const rtel_settings *s) {
  rtel_callbacks cb;
  int i;
  memset(e, 0, sizeof(*e));
  for (i = 0; i < MAX_LIVE && live[i].owner; i++) {
  }
  ck_assert_int_lt(i, MAX_LIVE);
  e->c.fl = calloc(CAP_FL, sizeof(rtel_flow_record));
  e->c.ms = calloc(CAP_MS, sizeof(rtel_msg_record));
  e->c.ev = calloc(CAP_FL + CAP_MS, 1);
  live[i].owner = e;
  live[i].fl = e->c.fl;
  live[i].ms = e->c.ms;
  live[i].ev = e->c.ev;
  ck_assert(e->c.fl && e->c.ms && e->c.ev);
  e->obs = OBS;
  memset(&cb, 0, sizeof(cb));
  cb.on_flow = on_flow;
  cb.on_message = on_message;
  ck_assert_int_eq(rtel_ctx_new(&e->ctx, s, &cb, NULL, &e->c), 0);
  live[i].ctx = e->ctx;
}

/* Defaults, except a 1 ms idle timeout. */
static void env_init(env *e) {
  rtel_settings s;
  rtel_settings_default(&s);
  s.flow_idle_timeout = IDLE;
  env_init_s(e, &s);
}

static void env_free(env *e) {
  int i;
  for (i = 0; i < MAX_LIVE; i++) {
    if (live[i].owner == e && live[i].ctx == e->ctx) {
      live_release(&live[i]);
      return;
    }
  }
  ck_abort_msg("env_free of an unknown env");
}

static rtel_ctx_stats stats(const env *e) {
  rtel_ctx_stats st;
  memset(&st, 0, sizeof(st));
  ck_assert_int_eq(rtel_ctx_get_stats(e->ctx, &st), 0);
  return st;
}

static void feed(env *e, rtel_tstamp ts, const tb *f) {
  rtel_pkt_info pi;
  memset(&pi, 0, sizeof(pi));
  pi.ts = ts;
  pi.obs = e->obs;
  pi.port = 1;
  ck_assert_int_eq(rtel_ctx_read_pkt(e->ctx, &pi, f->b, f->n), 0);
}

/* As an embedder with a timer: runs every expired timer before the packet. */
static void feed_timed(env *e, rtel_tstamp ts, const tb *f) {
  rtel_tstamp x;
  int guard = 0;
  while ((x = rtel_ctx_get_expiry(e->ctx)) <= ts) {
    ck_assert_int_eq(rtel_ctx_handle_expiry(e->ctx, x), 0);
    ck_assert_msg(++guard < 1000, "expiry does not advance");
  }
  feed(e, ts, f);
}

static void flush(env *e, rtel_tstamp now) {
  ck_assert_int_eq(rtel_ctx_flush(e->ctx, now), 0);
}

/* ------------------------------------------------------------ packets */

/* The network headers and BTH of a packet (IPv6 unless the addresses are
 * IPv4-mapped). */
static tu_spec hdr(const uint8_t *src, const uint8_t *dst, uint32_t dqpn,
                   uint8_t op, uint32_t psn) {
  tu_spec h;
  static const uint8_t v4pre[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  tu_spec_init(&h, op, 0);
  memcpy(h.src, src, 16);
  memcpy(h.dst, dst, 16);
  h.ipver = memcmp(src, v4pre, 12) != 0 ? 6 : 4;
  h.sport = SPORT;
  h.tos = TOS(DSCP, 0);
  h.dqpn = dqpn;
  h.psn = psn;
  return h;
}

/* The packet of |h| with the extended headers its opcode implies (RETH DMA
 * length |reth|, AETH syndrome |syn|) and |payload| bytes. Returns the
 * number of extended-header bytes. */
static size_t build(tb *f, const tu_spec *h, uint32_t reth, uint8_t syn,
                    size_t payload) {
  tu_spec s = *h;
  s.reth_len = reth;
  s.aeth_syn = syn;
  s.paylen = payload;
  tb_init(f);
  tu_build(f, &s);
  return f->payload_off - f->bth_off - 12;
}

/* The UDP length field of a built packet. */
static unsigned udp_len(const tb *f) { return tb_get16(f, f->udp_off[0] + 4); }

static void pkh(env *e, rtel_tstamp ts, const tu_spec *h, uint32_t reth,
                uint8_t syn, size_t payload) {
  tb f;
  build(&f, h, reth, syn, payload);
  feed(e, ts, &f);
}

static void pk(env *e, rtel_tstamp ts, const uint8_t *src, const uint8_t *dst,
               uint32_t dqpn, uint8_t op, uint32_t psn, uint32_t reth,
               size_t payload) {
  tu_spec h = hdr(src, dst, dqpn, op, psn);
  pkh(e, ts, &h, reth, 0, payload);
}

/* RDMA WRITE ONLY A -> (B, QB). */
static void W(env *e, rtel_tstamp ts, uint32_t psn, size_t payload) {
  pk(e, ts, IP_A, IP_B, QB, OP_WRITE_ONLY, psn, (uint32_t)payload, payload);
}

/* WRITE ONLY A -> (B, dqpn). */
static void Wq(env *e, rtel_tstamp ts, uint32_t dqpn, uint32_t psn,
               size_t payload) {
  pk(e, ts, IP_A, IP_B, dqpn, OP_WRITE_ONLY, psn, (uint32_t)payload, payload);
}

/* ACK / NAK (opcode 0x11, AETH |syn|). */
static void ctl(env *e, rtel_tstamp ts, const uint8_t *src, const uint8_t *dst,
                uint32_t dqpn, uint32_t psn, uint8_t syn) {
  tu_spec h = hdr(src, dst, dqpn, OP_ACK, psn);
  pkh(e, ts, &h, 0, syn, 0);
}

/* NAK/ACK from B to QA (the reverse of flow A -> QB). */
static void bk(env *e, rtel_tstamp ts, uint32_t psn, uint8_t syn) {
  ctl(e, ts, IP_B, IP_A, QA, psn, syn);
}

static void cnp(env *e, rtel_tstamp ts, const uint8_t *src, const uint8_t *dst,
                uint32_t dqpn) {
  tu_spec h = hdr(src, dst, dqpn, OP_CNP, 0);
  h.becn = 1;
  pkh(e, ts, &h, 0, 0, 0);
}

/* CM REQ from |a| (local QPN |qa|) to |b|, then REP from |b| (local QPN
 * |qb|) to |a| 100 ns later, with the same TID. */
static void cm_req(env *e, rtel_tstamp ts, const uint8_t *a, const uint8_t *b,
                   uint32_t qa, uint64_t tid) {
  tb f;
  tu_spec h = hdr(a, b, 1, 0x64, 0x000010);
  tu_cm cm;
  memset(&cm, 0, sizeof(cm));
  cm.attr = RTEL_CM_REQ;
  cm.tid = tid;
  cm.lcid = 0x11000000u | qa;
  cm.service_id = UINT64_C(0x0000000001061234);
  cm.local_qpn = qa;
  cm.start_psn = 0x000100;
  tb_init(&f);
  tu_build_cm_on(&f, &h, &cm);
  feed(e, ts, &f);
}

static void cm_rep(env *e, rtel_tstamp ts, const uint8_t *a, const uint8_t *b,
                   uint32_t qa, uint32_t qb, uint64_t tid) {
  tb f;
  tu_spec h = hdr(b, a, 1, 0x64, 0x000020);
  tu_cm cm;
  memset(&cm, 0, sizeof(cm));
  cm.attr = RTEL_CM_REP;
  cm.tid = tid;
  cm.lcid = 0x22000000u | qb;
  cm.rcid = 0x11000000u | qa;
  cm.local_qpn = qb;
  cm.start_psn = 0x000200;
  tb_init(&f);
  tu_build_cm_on(&f, &h, &cm);
  feed(e, ts, &f);
}

static void cm_pair(env *e, rtel_tstamp ts, const uint8_t *a, const uint8_t *b,
                    uint32_t qa, uint32_t qb, uint64_t tid) {
  cm_req(e, ts, a, b, qa, tid);
  cm_rep(e, ts + 100, a, b, qa, qb, tid);
}

/* ------------------------------------------------------------ records */

typedef rtel_flow_record FR;
typedef rtel_msg_record MR;

static void fr_init(FR *x, const uint8_t *src, const uint8_t *dst,
                    uint32_t dqpn) {
  memset(x, 0, sizeof(*x));
  x->obs = OBS;
  memcpy(x->src, src, 16);
  memcpy(x->dst, dst, 16);
  x->dqpn = dqpn;
  x->peer_qpn = RTEL_QPN_NONE;
  x->sport = SPORT;
  x->dscp = DSCP;
  x->end = RTEL_END_FLUSH;
  x->ops = RTEL_OP_WRITE;
  x->port = 1;
  x->coverage_end = RTEL_TSTAMP_NONE;
}

static void fr_paired(FR *x, uint32_t peer) {
  x->flags |= RTEL_FLOW_F_PAIRED;
  x->peer_qpn = peer;
}

static void mr_init(MR *x, const uint8_t *src, const uint8_t *dst,
                    uint32_t dqpn, uint32_t op) {
  memset(x, 0, sizeof(*x));
  x->obs = OBS;
  memcpy(x->src, src, 16);
  memcpy(x->dst, dst, 16);
  x->dqpn = dqpn;
  x->peer_qpn = RTEL_QPN_NONE;
  x->op = op;
  /* a READ RESPONSE message belongs to a response flow (the key's class) */
  x->flags = op == RTEL_OP_READ_RESP ? RTEL_FLOW_F_RESPONSE : 0u;
  x->end = RTEL_END_FLUSH;
  x->port = 1;
  x->coverage_end = RTEL_TSTAMP_NONE;
}

#define CKF(g, x, f, tag)                                                     \
  ck_assert_msg((uint64_t)(g)->f == (uint64_t)(x)->f,                         \
                "%s: " #f " = %" PRIu64 " (0x%" PRIx64 "), expected %" PRIu64 \
                " (0x%" PRIx64 ")",                                           \
                tag, (uint64_t)(g)->f, (uint64_t)(g)->f, (uint64_t)(x)->f,    \
                (uint64_t)(x)->f)
#define CKD(g, x, f, tag)                                                     \
  ck_assert_msg(fabs((g)->f - (x)->f) < 1e-12,                                \
                "%s: " #f " = %.15g, expected %.15g", tag, (g)->f, (x)->f)

static void fr_check(const FR *g, const FR *x, const char *tag) {
  ck_assert_msg(memcmp(g->src, x->src, 16) == 0, "%s: src", tag);
  ck_assert_msg(memcmp(g->dst, x->dst, 16) == 0, "%s: dst", tag);
  CKF(g, x, obs, tag);
  CKF(g, x, flags, tag);
  CKF(g, x, dqpn, tag);
  CKF(g, x, peer_qpn, tag);
  CKF(g, x, sport, tag);
  CKF(g, x, vlan, tag);
  CKF(g, x, dscp, tag);
  CKF(g, x, end, tag);
  CKF(g, x, ops, tag);
  CKF(g, x, first_ts, tag);
  CKF(g, x, last_ts, tag);
  CKF(g, x, fct, tag);
  CKF(g, x, bytes, tag);
  CKF(g, x, packets, tag);
  CKF(g, x, retx_packets, tag);
  CKF(g, x, retx_bytes, tag);
  CKF(g, x, fet_bps, tag);
  CKF(g, x, naks_seq, tag);
  CKF(g, x, naks_rnr, tag);
  CKF(g, x, naks_fatal, tag);
  CKF(g, x, cnps, tag);
  CKF(g, x, ecn_ce, tag);
  CKF(g, x, fecn, tag);
  CKF(g, x, becn, tag);
  CKF(g, x, psn_gaps, tag);
  CKF(g, x, losses_upstream, tag);
  CKF(g, x, losses_downstream, tag);
  CKF(g, x, retx_after_nak, tag);
  CKF(g, x, retx_after_timeout, tag);
  CKF(g, x, retx_after_rnr, tag);
  CKF(g, x, lost_upstream, tag);
  CKF(g, x, orphan_packets, tag);
  CKF(g, x, messages, tag);
  if (x->flags & RTEL_FLOW_F_PAIRED) { /* fnr is valid only when paired */
    CKD(g, x, fnr, tag);
  }
  CKD(g, x, retx_ratio, tag);
  /* the polling scheduler's fields: full mode, every port measured */
  CKF(g, x, port, tag);
  CKF(g, x, coverage_end, tag);
  ck_assert_msg(g->coverage_start <= g->first_ts, "%s: coverage_start", tag);
}

static void mr_check(const MR *g, const MR *x, const char *tag) {
  ck_assert_msg(memcmp(g->src, x->src, 16) == 0, "%s: src", tag);
  ck_assert_msg(memcmp(g->dst, x->dst, 16) == 0, "%s: dst", tag);
  CKF(g, x, obs, tag);
  CKF(g, x, flags, tag);
  CKF(g, x, dqpn, tag);
  CKF(g, x, peer_qpn, tag);
  CKF(g, x, op, tag);
  CKF(g, x, first_psn, tag);
  CKF(g, x, last_psn, tag);
  CKF(g, x, reth_len, tag);
  CKF(g, x, first_ts, tag);
  CKF(g, x, last_ts, tag);
  CKF(g, x, fct, tag);
  CKF(g, x, bytes, tag);
  CKF(g, x, packets, tag);
  CKF(g, x, retx_packets, tag);
  CKF(g, x, retx_bytes, tag);
  CKF(g, x, port, tag);
  CKF(g, x, coverage_end, tag);
  CKF(g, x, end, tag);
  CKF(g, x, naks_seq, tag);
  CKF(g, x, naks_rnr, tag);
  CKF(g, x, naks_fatal, tag);
  CKF(g, x, cnps, tag);
  CKF(g, x, ecn_ce, tag);
  CKF(g, x, losses_upstream, tag);
  CKF(g, x, losses_downstream, tag);
  CKF(g, x, losses_nak, tag);
  CKF(g, x, losses_rnr, tag);
  CKF(g, x, losses_timeout, tag);
  CKF(g, x, lost_upstream, tag);
  CKF(g, x, fet_bps, tag);
}

/* The one flow record of (src, dst, dqpn) at obs |obs|. */
static const FR *find_flow_obs(const env *e, uint32_t obs, const uint8_t *src,
                               const uint8_t *dst, uint32_t dqpn) {
  const FR *r = NULL;
  size_t i, n = 0;
  for (i = 0; i < e->c.nfl; i++) {
    const FR *g = &e->c.fl[i];
    if (g->obs == obs && g->dqpn == dqpn && memcmp(g->src, src, 16) == 0 &&
        memcmp(g->dst, dst, 16) == 0) {
      r = g;
      n++;
    }
  }
  ck_assert_msg(n == 1, "%zu flow records for dqpn 0x%06x, expected 1", n,
                (unsigned)dqpn);
  return r;
}

/* The one flow record of (src, dst, dqpn) whose ops are |ops|. */
static const FR *find_flow_ops(const env *e, const uint8_t *src,
                               const uint8_t *dst, uint32_t dqpn,
                               uint32_t ops) {
  const FR *r = NULL;
  size_t i, n = 0;
  for (i = 0; i < e->c.nfl; i++) {
    const FR *g = &e->c.fl[i];
    if (g->dqpn == dqpn && g->ops == ops && memcmp(g->src, src, 16) == 0 &&
        memcmp(g->dst, dst, 16) == 0) {
      r = g;
      n++;
    }
  }
  ck_assert_msg(n == 1, "%zu flow records for dqpn 0x%06x ops %u", n,
                (unsigned)dqpn, (unsigned)ops);
  return r;
}

static const FR *find_flow(const env *e, const uint8_t *src,
                           const uint8_t *dst, uint32_t dqpn) {
  return find_flow_obs(e, OBS, src, dst, dqpn);
}

static const MR *find_msg(const env *e, uint32_t dqpn, uint32_t first_psn) {
  const MR *r = NULL;
  size_t i, n = 0;
  for (i = 0; i < e->c.nms; i++) {
    if (e->c.ms[i].dqpn == dqpn && e->c.ms[i].first_psn == first_psn) {
      r = &e->c.ms[i];
      n++;
    }
  }
  ck_assert_msg(n == 1, "%zu message records for dqpn 0x%06x psn %u", n,
                (unsigned)dqpn, (unsigned)first_psn);
  return r;
}

/* Position in the delivery order of the k-th record of |type|. */
static size_t ev_pos(const env *e, char type, size_t k) {
  size_t i;
  for (i = 0; i < e->c.nev; i++) {
    if (e->c.ev[i] == type && k-- == 0) {
      return i;
    }
  }
  ck_abort_msg("no such event");
  return 0;
}

/* ================================================================ 1 */

/* WRITE FIRST/MIDDLE/LAST then WRITE ONLY, A -> QB, VLAN 100 (PCP 3), DSCP
 * 26, UDP source port 0xC0DE. Checks the UDP lengths the builder wrote
 * against the payload formula. */
static void s1_packets(env *e) {
  tb f;
  tu_spec h = hdr(IP_A, IP_B, QB, OP_WRITE_FIRST, 100);
  h.nvlan = 1;
  h.vlan_tci[0] = 0x6064; /* PCP 3, DEI 0, VID 100 */

  /* FIRST: RETH (16) + 1024 payload: UDP = 8 + 12 + 16 + 1024 + 0 + 4 */
  ck_assert_uint_eq(build(&f, &h, 2998, 0, 1024), 16);
  ck_assert_uint_eq(udp_len(&f), 1064);
  feed(e, T0, &f);
  /* MIDDLE: UDP = 8 + 12 + 1024 + 4 */
  h.opcode = OP_WRITE_MIDDLE;
  h.psn = 101;
  ck_assert_uint_eq(build(&f, &h, 0, 0, 1024), 0);
  ck_assert_uint_eq(udp_len(&f), 1048);
  feed(e, T0 + 1000, &f);
  /* LAST: 950 payload + pad 2: UDP = 8 + 12 + 950 + 2 + 4 = 976 */
  h.opcode = OP_WRITE_LAST;
  h.psn = 102;
  h.pad = 2;
  build(&f, &h, 0, 0, 950);
  ck_assert_uint_eq(udp_len(&f), 976);
  feed(e, T0 + 2000, &f);
  /* ONLY: RETH + 61 payload + pad 3: UDP = 8 + 12 + 16 + 61 + 3 + 4 = 104 */
  h.opcode = OP_WRITE_ONLY;
  h.psn = 103;
  h.pad = 3;
  build(&f, &h, 61, 0, 61);
  ck_assert_uint_eq(udp_len(&f), 104);
  feed(e, T0 + 5000, &f);
}

/* Expected flow record of s1_packets (end set by the caller). */
static void s1_expect(FR *x) {
  fr_init(x, IP_A, IP_B, QB);
  x->flags = RTEL_FLOW_F_VLAN;
  x->vlan = 100;
  x->first_ts = T0;
  x->last_ts = T0 + 5000;
  x->fct = 5000;
  x->bytes = 1024 + 1024 + 950 + 61; /* 3059 */
  x->packets = 4;
  /* FET: the packets after the first, frame (14 + 4 VLAN + 20 IP + UDP
   * length) + 24 each: MIDDLE 1086 + 24 = 1110, LAST 1014 + 24 = 1038,
   * ONLY 142 + 24 = 166: (1110 + 1038 + 166) * 8 / 5000 ns = 3.7024 Gb/s */
  x->fet_bps = UINT64_C(3702400000);
  x->messages = 2;
}

/* Both messages are delivered when the flow ends (|end|): no ACK. */
static void s1_check_msgs(const env *e, uint32_t end) {
  MR x;
  ck_assert_uint_eq(e->c.nms, 2);
  mr_init(&x, IP_A, IP_B, QB, RTEL_OP_WRITE);
  x.end = end;
  x.flags = RTEL_FLOW_F_VLAN;
  x.first_psn = 100;
  x.last_psn = 102;
  x.reth_len = 2998;
  x.first_ts = T0;
  x.last_ts = T0 + 2000;
  x.fct = 2000;
  x.bytes = 2998; /* 1024 + 1024 + 950 */
  x.packets = 3;
  x.fet_bps = UINT64_C(8592000000); /* (1110 + 1038) * 8 / 2000 ns */
  mr_check(&e->c.ms[0], &x, "message 1");
  x.fet_bps = 0; /* one packet: fct 0 */
  x.first_psn = x.last_psn = 103;
  x.reth_len = 61;
  x.first_ts = x.last_ts = T0 + 5000;
  x.fct = 0;
  x.bytes = 61;
  x.packets = 1;
  mr_check(&e->c.ms[1], &x, "message 2");
}

START_TEST(t01_write_inorder_flush) {
  env e;
  FR x;
  rtel_ctx_stats st;
  env_init(&e);
  ck_assert_uint_eq(rtel_ctx_get_expiry(e.ctx), RTEL_TSTAMP_NONE);
  s1_packets(&e);
  ck_assert_uint_eq(rtel_ctx_get_expiry(e.ctx), T0 + 5000 + IDLE);
  st = stats(&e);
  ck_assert_uint_eq(st.flows_created, 1);
  ck_assert_uint_eq(st.flows_active, 1);
  ck_assert_uint_eq(st.messages, 0); /* open until an ACK or the settle */
  ck_assert_uint_eq(e.c.nfl, 0);
  flush(&e, T0 + 10000);
  ck_assert_uint_eq(e.c.nfl, 1);
  ck_assert_str_eq(e.c.ev, "MMF");
  s1_expect(&x);
  x.end = RTEL_END_FLUSH;
  fr_check(&e.c.fl[0], &x, "flow");
  ck_assert_uint_eq(e.c.fl[0].coverage_start, T0); /* the first packet */
  s1_check_msgs(&e, x.end);
  st = stats(&e);
  ck_assert_uint_eq(st.flows_active, 0);
  ck_assert_uint_eq(rtel_ctx_get_expiry(e.ctx), RTEL_TSTAMP_NONE);
  env_free(&e);
}
END_TEST

START_TEST(t01_idle_boundary) {
  env e;
  FR x;
  env_init(&e);
  s1_packets(&e);
  ck_assert_uint_eq(rtel_ctx_get_expiry(e.ctx), T0 + 5000 + IDLE);
  /* one ns before last_ts + idle: nothing ends */
  ck_assert_int_eq(rtel_ctx_handle_expiry(e.ctx, T0 + 5000 + IDLE - 1), 0);
  ck_assert_uint_eq(e.c.nfl, 0);
  ck_assert_uint_eq(stats(&e).flows_active, 1);
  ck_assert_uint_eq(rtel_ctx_get_expiry(e.ctx), T0 + 5000 + IDLE);
  /* exactly last_ts + idle: ends idle */
  ck_assert_int_eq(rtel_ctx_handle_expiry(e.ctx, T0 + 5000 + IDLE), 0);
  ck_assert_uint_eq(e.c.nfl, 1);
  s1_expect(&x);
  x.end = RTEL_END_IDLE;
  fr_check(&e.c.fl[0], &x, "idle flow");
  s1_check_msgs(&e, x.end);
  ck_assert_uint_eq(stats(&e).flows_active, 0);
  ck_assert_uint_eq(rtel_ctx_get_expiry(e.ctx), RTEL_TSTAMP_NONE);
  flush(&e, T0 + 5000 + IDLE + 1);
  ck_assert_uint_eq(e.c.nfl, 1);
  env_free(&e);

  /* rtel_ctx_flush at exactly last_ts + idle ends it idle, not flushed */
  env_init(&e);
  s1_packets(&e);
  flush(&e, T0 + 5000 + IDLE);
  ck_assert_uint_eq(e.c.nfl, 1);
  ck_assert_uint_eq(e.c.fl[0].end, RTEL_END_IDLE);
  env_free(&e);

  /* ... and one ns earlier it is flushed */
  env_init(&e);
  s1_packets(&e);
  flush(&e, T0 + 5000 + IDLE - 1);
  ck_assert_uint_eq(e.c.nfl, 1);
  ck_assert_uint_eq(e.c.fl[0].end, RTEL_END_FLUSH);
  env_free(&e);
}
END_TEST

/* Caller never runs the timers: the next packet after idle_timeout ends
 * the flow (idle) and starts a new one. */
START_TEST(t01_idle_by_packet) {
  env e;
  FR x;
  env_init(&e);
  W(&e, T0, 10, 100);
  W(&e, T0 + IDLE + 5000, 11, 200);
  ck_assert_uint_eq(e.c.nfl, 1);
  fr_init(&x, IP_A, IP_B, QB);
  x.end = RTEL_END_IDLE;
  x.first_ts = x.last_ts = T0;
  x.bytes = 100;
  x.packets = 1;
  x.messages = 1;
  fr_check(&e.c.fl[0], &x, "first");
  flush(&e, T0 + IDLE + 6000);
  ck_assert_uint_eq(e.c.nfl, 2);
  x.end = RTEL_END_FLUSH;
  x.first_ts = x.last_ts = T0 + IDLE + 5000;
  x.bytes = 200;
  fr_check(&e.c.fl[1], &x, "second");
  ck_assert_uint_eq(stats(&e).flows_created, 2);
  env_free(&e);
}
END_TEST

/* The LRU tick of a 1 ms idle timeout, as rtel_settings(3) states it: the
 * largest power of two of ns <= IDLE / 64 (15625 ns): 8192 ns. */
#define TICK UINT64_C(8192)

/* The expiry is the earliest last_ts + idle over all flows, when the
 * packets are more than a tick apart (the table's order is that of each
 * flow's first packet in a tick). */
START_TEST(t01_expiry_two_flows) {
  env e;
  env_init(&e);
  Wq(&e, T0, QB, 10, 64);
  Wq(&e, T0 + 3 * TICK, QB2, 20, 64);
  Wq(&e, T0 + 6 * TICK, QB, 11, 64);
  ck_assert_uint_eq(rtel_ctx_get_expiry(e.ctx), T0 + 3 * TICK + IDLE);
  ck_assert_int_eq(rtel_ctx_handle_expiry(e.ctx, T0 + 3 * TICK + IDLE), 0);
  ck_assert_uint_eq(e.c.nfl, 1);
  ck_assert_uint_eq(e.c.fl[0].dqpn, QB2);
  ck_assert_uint_eq(e.c.fl[0].end, RTEL_END_IDLE);
  ck_assert_uint_eq(rtel_ctx_get_expiry(e.ctx), T0 + 6 * TICK + IDLE);
  ck_assert_int_eq(rtel_ctx_handle_expiry(e.ctx, T0 + 6 * TICK + IDLE), 0);
  ck_assert_uint_eq(e.c.nfl, 2);
  ck_assert_uint_eq(e.c.fl[1].dqpn, QB);
  ck_assert_uint_eq(e.c.fl[1].packets, 2);
  env_free(&e);
}
END_TEST

/* Inside one tick the table keeps the order of the flows' first packets:
 * QB, whose latest packet came after QB2's in the same tick, stays ahead
 * of it. The documented bound holds: QB2 ends no earlier than its idle
 * time and less than a tick after it, QB not before its own. */
START_TEST(t01_expiry_within_tick) {
  env e;
  rtel_tstamp t = (T0 / TICK + 1) * TICK; /* a tick's first ns */
  env_init(&e);
  Wq(&e, t, QB, 10, 64);
  Wq(&e, t + 500, QB2, 20, 64);
  Wq(&e, t + 1000, QB, 11, 64);
  ck_assert_uint_ge(rtel_ctx_get_expiry(e.ctx), t + 500 + IDLE);
  ck_assert_uint_lt(rtel_ctx_get_expiry(e.ctx), t + 500 + IDLE + TICK);
  /* nothing ends before QB2's idle time */
  ck_assert_int_eq(rtel_ctx_handle_expiry(e.ctx, t + 500 + IDLE - 1), 0);
  ck_assert_uint_eq(e.c.nfl, 0);
  ck_assert_int_eq(rtel_ctx_handle_expiry(e.ctx, t + 500 + IDLE + TICK - 1),
                   0);
  ck_assert_uint_eq(e.c.nfl, 2);
  ck_assert_uint_eq(e.c.fl[0].dqpn, QB);
  ck_assert_uint_eq(e.c.fl[0].last_ts, t + 1000);
  ck_assert_uint_eq(e.c.fl[1].dqpn, QB2);
  ck_assert_uint_eq(e.c.fl[1].end, RTEL_END_IDLE);
  env_free(&e);
}
END_TEST

/* The tick's length, pinned: with max_flows 2, QB at a tick's first ns, QB2
 * 1 ns later, QB again at |again|, then a new flow evicts the one ahead.
 * QB's second packet inside the tick (last ns) leaves it ahead: QB goes;
 * at the next tick's first ns it moves QB behind QB2: QB2 goes. A packet
 * older than QB's latest, a tick earlier, moves nothing either. */
static uint32_t evicted_after(rtel_tstamp again, rtel_tstamp older) {
  env e;
  rtel_settings s;
  uint32_t q;
  rtel_tstamp t = (T0 / TICK + 1) * TICK;
  rtel_settings_default(&s);
  s.flow_idle_timeout = IDLE;
  s.max_flows = 2;
  env_init_s(&e, &s);
  Wq(&e, t + TICK, QB, 10, 64);
  Wq(&e, t + TICK + 1, QB2, 20, 64);
  if (older) {
    Wq(&e, t + TICK - older, QB, 9, 64);
  }
  Wq(&e, t + TICK + again, QB, 11, 64);
  Wq(&e, t + 4 * TICK, QB3, 30, 64);
  ck_assert_uint_eq(e.c.nfl, 1);
  ck_assert_uint_eq(e.c.fl[0].end, RTEL_END_EVICTED);
  q = e.c.fl[0].dqpn;
  env_free(&e);
  return q;
}

START_TEST(t01_tick_boundary) {
  ck_assert_uint_eq(evicted_after(TICK - 1, 0), QB);
  ck_assert_uint_eq(evicted_after(TICK, 0), QB2);
  /* the older packet (a tick back) does not move QB; its later one in the
   * first tick does not either */
  ck_assert_uint_eq(evicted_after(TICK - 1, 1), QB);
}
END_TEST

/* Eviction takes the least recently active flow (packets more than a tick
 * apart): QB, touched again after QB2, stays; QB2 goes. */
START_TEST(t01_evict_least_recent) {
  env e;
  rtel_settings s;
  rtel_settings_default(&s);
  s.flow_idle_timeout = IDLE;
  s.max_flows = 2;
  env_init_s(&e, &s);
  Wq(&e, T0, QB, 10, 64);
  Wq(&e, T0 + 2 * TICK, QB2, 20, 64);
  Wq(&e, T0 + 4 * TICK, QB, 11, 64);
  Wq(&e, T0 + 6 * TICK, QB3, 30, 64);
  ck_assert_uint_eq(stats(&e).flows_evicted, 1);
  ck_assert_uint_eq(e.c.nfl, 1);
  ck_assert_uint_eq(e.c.fl[0].dqpn, QB2);
  ck_assert_uint_eq(e.c.fl[0].end, RTEL_END_EVICTED);
  Wq(&e, T0 + 8 * TICK, QB, 12, 64);
  Wq(&e, T0 + 10 * TICK, QB2, 21, 64); /* QB3 is now the least recent */
  ck_assert_uint_eq(e.c.nfl, 2);
  ck_assert_uint_eq(e.c.fl[1].dqpn, QB3);
  env_free(&e);
}
END_TEST

/* A burst of WRITE ONLY packets A -> (B, dqpn) with 64 payload bytes, for
 * rtel_ctx_read_pkts() / rtel_ctx_read_pkts_timed(), in a context with a
 * 1 ms idle timeout and 4096 flows, or 8192 (|big|: >= 2 MiB of flow
 * entries, the look-ahead path). */
#define BURST_MAX 8

typedef struct bpkt {
  rtel_tstamp ts;
  uint32_t dqpn, psn;
} bpkt;

typedef struct burst {
  env e;
  tb f[BURST_MAX];
  rtel_pkt_info pis[BURST_MAX];
  const uint8_t *pkts[BURST_MAX];
  size_t lens[BURST_MAX];
} burst;

static void burst_init(burst *b, const bpkt *p, size_t n, int big) {
  rtel_settings s;
  size_t i;
  ck_assert_uint_le(n, BURST_MAX);
  rtel_settings_default(&s);
  s.flow_idle_timeout = IDLE;
  s.max_flows = big ? 8192 : 4096;
  env_init_s(&b->e, &s);
  for (i = 0; i < n; i++) {
    tu_spec h = hdr(IP_A, IP_B, p[i].dqpn, OP_WRITE_ONLY, p[i].psn);
    build(&b->f[i], &h, 64, 0, 64);
    memset(&b->pis[i], 0, sizeof(b->pis[i]));
    b->pis[i].ts = p[i].ts;
    b->pis[i].obs = b->e.obs;
    b->pis[i].port = 1;
    b->pkts[i] = b->f[i].b;
    b->lens[i] = b->f[i].n;
  }
}

/* Packets |from| .. |from| + |n| - 1 of the burst, timed or not. */
static rtel_ssize burst_read(burst *b, size_t from, size_t n, int timed) {
  return timed ? rtel_ctx_read_pkts_timed(b->e.ctx, b->pis + from,
                                          b->pkts + from, b->lens + from, n)
               : rtel_ctx_read_pkts(b->e.ctx, b->pis + from, b->pkts + from,
                                    b->lens + from, n);
}

/* rtel_ctx_read_pkts_timed(): timers that packets of the burst create
 * run inside it, before the first later packet they are due for. By hand:
 * QB's idle timer (T0 + IDLE, made by the burst's first packet) ends QB
 * before the third packet; QB2's (T0 + IDLE + 100 + IDLE, made by the
 * third) ends QB2, with its two packets, before the fourth, which starts a
 * new QB2 flow. Without the timers the third packet would have ended QB2
 * after one packet (idle by packet) and QB would still be open. Both the
 * plain loop (4096 flows) and the look-ahead path (8192 flows: >= 2 MiB of
 * entries) are run. */
START_TEST(t01_idle_in_timed_burst) {
  static const bpkt p[4] = {{T0, QB, 10},
                            {T0 + 500, QB2, 20},
                            {T0 + IDLE + 100, QB2, 21},
                            {T0 + 2 * IDLE + 600, QB2, 22}};
  int big;
  for (big = 0; big < 2; big++) {
    burst *b = calloc(1, sizeof(*b));
    FR x;
    ck_assert_ptr_nonnull(b);
    burst_init(b, p, 4, big);
    ck_assert_int_eq(burst_read(b, 0, 4, 1), 4);
    ck_assert_str_eq(b->e.c.ev, "MFMMF");
    ck_assert_uint_eq(b->e.c.nfl, 2);
    fr_init(&x, IP_A, IP_B, QB);
    x.end = RTEL_END_IDLE;
    x.first_ts = x.last_ts = T0;
    x.bytes = 64;
    x.packets = 1;
    x.messages = 1;
    fr_check(&b->e.c.fl[0], &x, "QB");
    fr_init(&x, IP_A, IP_B, QB2);
    x.end = RTEL_END_IDLE;
    x.first_ts = T0 + 500;
    x.last_ts = T0 + IDLE + 100;
    x.fct = IDLE - 400;
    x.bytes = 128;
    x.packets = 2;
    x.messages = 2;
    /* FET: the second packet's frame (14 + 20 IP + UDP 8 + 12 + 16 RETH +
     * 64 + 4 ICRC = 138) + 24 = 162 bytes over IDLE - 400 ns */
    x.fet_bps = UINT64_C(162) * 8 * 1000000000u / (IDLE - 400);
    fr_check(&b->e.c.fl[1], &x, "QB2");
    ck_assert_uint_eq(stats(&b->e).flows_active, 1); /* the new QB2 */
    ck_assert_uint_eq(rtel_ctx_get_expiry(b->e.ctx),
                      T0 + 2 * IDLE + 600 + IDLE);
    env_free(&b->e);
    free(b);
  }
}
END_TEST

/* IPv6 with two VLAN tags (802.1ad outer VID 200, 802.1Q inner VID 100),
 * DSCP 46: the VLAN attribute is the outermost VID. */
START_TEST(t01_ipv6_qinq) {
  env e;
  FR x;
  tu_spec h = hdr(IP6_A, IP6_B, QB, OP_SEND_ONLY, 0x123456);
  env_init(&e);
  ck_assert_int_eq(h.ipver, 6);
  h.nvlan = 2;
  h.vlan_tpid[0] = 0x88A8;
  h.vlan_tci[0] = 0x00C8; /* VID 200 */
  h.vlan_tpid[1] = 0x8100;
  h.vlan_tci[1] = 0x2064; /* PCP 1, VID 100 */
  h.tos = TOS(46, 0);
  pkh(&e, T0, &h, 0, 0, 100);
  h.psn = 0x123457;
  pkh(&e, T0 + 4000, &h, 0, 0, 200);
  flush(&e, T0 + 5000);
  ck_assert_uint_eq(e.c.nfl, 1);
  fr_init(&x, IP6_A, IP6_B, QB);
  x.flags = RTEL_FLOW_F_IPV6 | RTEL_FLOW_F_VLAN;
  x.vlan = 200;
  x.dscp = 46;
  x.ops = RTEL_OP_SEND;
  x.first_ts = T0;
  x.last_ts = T0 + 4000;
  x.fct = 4000;
  x.bytes = 300;
  x.packets = 2;
  /* the SEND ONLY of 200 bytes after the first: frame 14 + 2 * 4 VLAN +
   * 40 IPv6 + 8 UDP + 12 BTH + 200 + 4 ICRC = 286: (286 + 24) * 8 / 4000 ns
   * = 0.62 Gb/s */
  x.fet_bps = UINT64_C(620000000);
  x.messages = 2;
  fr_check(&e.c.fl[0], &x, "ipv6");
  ck_assert_uint_eq(e.c.nms, 2);
  ck_assert_uint_eq(e.c.ms[0].flags, RTEL_FLOW_F_IPV6 | RTEL_FLOW_F_VLAN);
  ck_assert_uint_eq(e.c.ms[1].bytes, 200);
  env_free(&e);
}
END_TEST

/* The observation point is part of the key: the same packets seen at two
 * points are two flows, and the second copy is not a retransmission. */
START_TEST(t01_obs_in_key) {
  env e;
  FR x;
  env_init(&e);
  e.obs = 1;
  W(&e, T0, 10, 1000);
  e.obs = 2;
  W(&e, T0 + 100, 10, 1000);
  e.obs = 1;
  W(&e, T0 + 1000, 11, 1000);
  e.obs = 2;
  W(&e, T0 + 1100, 11, 1000);
  flush(&e, T0 + 2000);
  ck_assert_uint_eq(e.c.nfl, 2);
  fr_init(&x, IP_A, IP_B, QB);
  x.obs = 1;
  x.first_ts = T0;
  x.last_ts = T0 + 1000;
  x.fct = 1000;
  x.bytes = 2000;
  x.packets = 2;
  /* one WRITE ONLY of 1000 bytes after the first, frame 1074:
   * (1074 + 24) * 8 / 1000 ns */
  x.fet_bps = UINT64_C(8784000000);
  x.messages = 2;
  fr_check(find_flow_obs(&e, 1, IP_A, IP_B, QB), &x, "obs 1");
  x.obs = 2;
  x.first_ts = T0 + 100;
  x.last_ts = T0 + 1100;
  fr_check(find_flow_obs(&e, 2, IP_A, IP_B, QB), &x, "obs 2");
  env_free(&e);
}
END_TEST

/* Timestamps of one flow slightly out of order (capture merged from
 * several queues): FCT is the span from the earliest to the latest data
 * packet, never a wrapped-around difference. Packets at +1000 (PSN 10),
 * +0 (11), +2000 (12), +1500 (13), 1000 bytes each. */
START_TEST(t01_timestamps_out_of_order) {
  env e;
  const FR *g;
  /* the second packet is the earlier one: FCT 1000, not 2^64 - 1000 */
  env_init(&e);
  W(&e, T0 + 1000, 10, 1000);
  W(&e, T0, 11, 1000);
  flush(&e, T0 + 3000);
  ck_assert_uint_eq(e.c.nfl, 1);
  g = &e.c.fl[0];
  ck_assert_msg(g->fct == 1000 && g->last_ts - g->first_ts == 1000,
                "two packets 1000 ns apart, in reverse order: fct %" PRIu64
                " (first_ts +%" PRId64 ", last_ts +%" PRId64 ")",
                g->fct, (int64_t)(g->first_ts - T0),
                (int64_t)(g->last_ts - T0));
  env_free(&e);

  env_init(&e);
  W(&e, T0 + 1000, 10, 1000);
  W(&e, T0, 11, 1000);
  W(&e, T0 + 2000, 12, 1000);
  W(&e, T0 + 1500, 13, 1000);
  flush(&e, T0 + 3000);
  ck_assert_uint_eq(stats(&e).pkts_ts_backwards, 2);
  ck_assert_uint_eq(e.c.nfl, 1);
  g = &e.c.fl[0];
  ck_assert_uint_eq(g->packets, 4);
  ck_assert_uint_eq(g->retx_packets, 0);
  ck_assert_msg(g->first_ts == T0 && g->last_ts == T0 + 2000 &&
                    /* WRITE ONLY of 1000 bytes: frame 14 + 20 + 8 + 12 +
                     * 16 + 1000 + 4 = 1074; the three after the first:
                     * (1074 + 24) * 8 * 3 / 2000 ns = 13.176 Gb/s */
                    g->fct == 2000 && g->fet_bps == UINT64_C(13176000000),
                "first_ts +%" PRId64 ", last_ts +%" PRId64 ", fct %" PRIu64
                ", fet_bps %" PRIu64 "; expected +0, +2000, 2000, 13.176e9",
                (int64_t)(g->first_ts - T0), (int64_t)(g->last_ts - T0),
                g->fct, g->fet_bps);
  env_free(&e);
}
END_TEST

/* ================================================================ 2-5 */

/* 10, 11, 13, 14 seen (12 lost before the observer); NAK(12) B -> QA;
 * go-back-N 12, 13, 14, then 15. Paired by CM. WRITE ONLY, 1000 bytes each.
 *   13: d = 2 > 1: gap [12,12]            psn_gaps = 1
 *   12: d = -2: new episode, 12 in the gap losses_upstream = 1, NAK-caused
 *   13, 14: continue the episode          retx = 3, retx_after_nak = 3
 *   15: new data
 * packets 8, bytes 8000, retx_bytes 3000, fct 8000 ns, FNR = 1/8,
 * FET over the new packets after the first (11, 13, 14, 15), WRITE ONLY of
 * 1000 bytes, frame 14 + 20 + 8 + 12 + 16 + 1000 + 4 = 1074:
 * (1074 + 24) * 8 * 4 / 8000 ns = 4.392 Gb/s.
 * Messages (one per PSN): 10 and 11 delivered ACKED by the ACK of 11; the
 * resend of 12 is a message of its own (its only packet was lost before
 * this point: lost_upstream 1), then 13, 14, 15 delivered at the flush. */
START_TEST(t02_upstream_loss) {
  env e;
  FR x;
  env_init(&e);
  cm_pair(&e, T0 - 2000, IP_A, IP_B, QA, QB, 0x1001);
  W(&e, T0, 10, 1000);
  W(&e, T0 + 1000, 11, 1000);
  bk(&e, T0 + 1500, 11, 0x1F); /* a plain ACK: counted nowhere */
  W(&e, T0 + 2000, 13, 1000);
  W(&e, T0 + 3000, 14, 1000);
  bk(&e, T0 + 3500, 12, 0x60); /* NAK PSN sequence error */
  W(&e, T0 + 4000, 12, 1000);
  W(&e, T0 + 5000, 13, 1000);
  W(&e, T0 + 6000, 14, 1000);
  W(&e, T0 + 8000, 15, 1000);
  flush(&e, T0 + 9000);
  ck_assert_uint_eq(e.c.nfl, 1);
  fr_init(&x, IP_A, IP_B, QB);
  fr_paired(&x, QA);
  x.first_ts = T0;
  x.last_ts = T0 + 8000;
  x.fct = 8000;
  x.bytes = 8000;
  x.packets = 8;
  x.retx_packets = 3;
  x.retx_bytes = 3000;
  x.fet_bps = UINT64_C(4392000000); /* (1074 + 24) * 8 * 4 / 8000 ns */
  x.naks_seq = 1;
  x.psn_gaps = 1;
  x.losses_upstream = 1;
  x.retx_after_nak = 3;
  x.messages = 6; /* 10, 11, 12, 13, 14, 15; resends of delivered ones: none */
  x.fnr = 0.125;
  x.retx_ratio = 0.375;
  x.lost_upstream = 1; /* 12 */
  fr_check(&e.c.fl[0], &x, "upstream");
  ck_assert_uint_eq(stats(&e).ctrl_unattributed, 0);
  ck_assert_uint_eq(stats(&e).messages, 6);
  ck_assert_uint_eq(e.c.nms, 6);
  ck_assert_uint_eq(e.c.ms[0].end, RTEL_END_ACKED); /* 10 */
  ck_assert_uint_eq(e.c.ms[1].end, RTEL_END_ACKED); /* 11 */
  {
    MR m;
    mr_init(&m, IP_A, IP_B, QB, RTEL_OP_WRITE);
    m.flags = RTEL_FLOW_F_PAIRED;
    m.peer_qpn = QA;
    /* 12: its one packet, the resend at +4000; the NAK of 12 (+3500) came
     * before it was seen, while it was open nowhere */
    m.first_psn = m.last_psn = 12;
    m.reth_len = 1000;
    m.first_ts = m.last_ts = T0 + 4000;
    m.bytes = m.retx_bytes = 1000;
    m.packets = m.retx_packets = 1;
    m.losses_upstream = 1;
    m.losses_nak = 1;
    m.lost_upstream = 1;
    mr_check(&e.c.ms[2], &m, "message 12");
    /* 13: at +2000 and its resend at +5000, in the episode of 12 */
    m.first_psn = m.last_psn = 13;
    m.first_ts = T0 + 2000;
    m.last_ts = T0 + 5000;
    m.fct = 3000;
    m.bytes = 2000;
    m.packets = 2;
    m.losses_upstream = m.losses_nak = m.lost_upstream = 0;
    mr_check(&e.c.ms[3], &m, "message 13");
  }
  env_free(&e);
}
END_TEST

/* 10..14 all seen, NAK(12), resend 12, 13, 14: the originals had passed the
 * observer: one downstream loss. fct 8000; FET over the new packets after
 * the first, 11..14: (1074 + 24) * 8 * 4 / 8000 ns = 4.392 Gb/s. */
START_TEST(t03_downstream_loss) {
  env e;
  FR x;
  uint32_t p;
  env_init(&e);
  cm_pair(&e, T0 - 2000, IP_A, IP_B, QA, QB, 0x1002);
  for (p = 10; p <= 14; p++) {
    W(&e, T0 + (p - 10) * 1000, p, 1000);
  }
  bk(&e, T0 + 4500, 12, 0x60);
  W(&e, T0 + 6000, 12, 1000);
  W(&e, T0 + 7000, 13, 1000);
  W(&e, T0 + 8000, 14, 1000);
  flush(&e, T0 + 9000);
  fr_init(&x, IP_A, IP_B, QB);
  fr_paired(&x, QA);
  x.first_ts = T0;
  x.last_ts = T0 + 8000;
  x.fct = 8000;
  x.bytes = 8000;
  x.packets = 8;
  x.retx_packets = 3;
  x.retx_bytes = 3000;
  x.fet_bps = UINT64_C(4392000000); /* (1074 + 24) * 8 * 4 / 8000 ns */
  x.naks_seq = 1;
  x.losses_downstream = 1;
  x.retx_after_nak = 3;
  x.messages = 5;
  x.fnr = 0.125;
  x.retx_ratio = 0.375;
  ck_assert_uint_eq(e.c.nfl, 1);
  fr_check(&e.c.fl[0], &x, "downstream");
  env_free(&e);
}
END_TEST

/* As t03 without the NAK: timeout-driven. */
START_TEST(t04_timeout_retx) {
  env e;
  FR x;
  uint32_t p;
  env_init(&e);
  cm_pair(&e, T0 - 2000, IP_A, IP_B, QA, QB, 0x1003);
  for (p = 10; p <= 14; p++) {
    W(&e, T0 + (p - 10) * 1000, p, 1000);
  }
  bk(&e, T0 + 4500, 14, 0x00); /* ACK, not a NAK */
  W(&e, T0 + 6000, 12, 1000);
  W(&e, T0 + 7000, 13, 1000);
  W(&e, T0 + 8000, 14, 1000);
  flush(&e, T0 + 9000);
  fr_init(&x, IP_A, IP_B, QB);
  fr_paired(&x, QA);
  x.first_ts = T0;
  x.last_ts = T0 + 8000;
  x.fct = 8000;
  x.bytes = 8000;
  x.packets = 8;
  x.retx_packets = 3;
  x.retx_bytes = 3000;
  x.fet_bps = UINT64_C(4392000000); /* (1074 + 24) * 8 * 4 / 8000 ns */
  x.losses_downstream = 1;
  x.retx_after_timeout = 3;
  x.messages = 5;
  x.fnr = 0.0;
  x.retx_ratio = 0.375;
  ck_assert_uint_eq(e.c.nfl, 1);
  /* the ACK of 14 delivered messages 10..14: the resends of 12, 13, 14
   * come after their records */
  x.orphan_packets = 3;
  fr_check(&e.c.fl[0], &x, "timeout");
  env_free(&e);
}
END_TEST

/* 10..20, NAK(15), resend 15, 16, 17 (episode 1, NAK), then a go-back-N that
 * restarts lower, 13..20 (episode 2: 13 is not after 17; no NAK since the
 * previous episode: timeout), then 21. 1100 bytes each.
 * packets 11 + 3 + 8 + 1 = 23, retx 11, bytes 25300, retx_bytes 12100,
 * fct 22000; FET over the new packets after the first, 11..21, WRITE ONLY
 * of 1100 bytes, frame 14 + 20 + 8 + 12 + 16 + 1100 + 4 = 1174:
 * (1174 + 24) * 8 * 11 / 22000 ns = 4.792 Gb/s. The NAK of 15 delivers
 * 10..14 (ACKED): the resends of 13 and 14 are orphans. */
START_TEST(t05_two_episodes) {
  env e;
  FR x;
  uint32_t p;
  rtel_tstamp t = T0;
  env_init(&e);
  cm_pair(&e, T0 - 2000, IP_A, IP_B, QA, QB, 0x1004);
  for (p = 10; p <= 20; p++, t += 1000) {
    W(&e, t, p, 1100);
  }
  bk(&e, T0 + 10500, 15, 0x60);
  for (p = 15; p <= 17; p++, t += 1000) {
    W(&e, t, p, 1100);
  }
  for (p = 13; p <= 20; p++, t += 1000) {
    W(&e, t, p, 1100);
  }
  ck_assert_uint_eq(t, T0 + 22000);
  W(&e, t, 21, 1100);
  flush(&e, T0 + 30000);
  fr_init(&x, IP_A, IP_B, QB);
  fr_paired(&x, QA);
  x.first_ts = T0;
  x.last_ts = T0 + 22000;
  x.fct = 22000;
  x.bytes = 25300;
  x.packets = 23;
  x.retx_packets = 11;
  x.retx_bytes = 12100;
  x.fet_bps = UINT64_C(4792000000); /* (1174 + 24) * 8 * 11 / 22000 ns */
  x.naks_seq = 1;
  x.losses_downstream = 2;
  x.retx_after_nak = 3;
  x.retx_after_timeout = 8;
  x.messages = 12;
  x.fnr = 1.0 / 23.0;
  x.retx_ratio = 11.0 / 23.0;
  ck_assert_uint_eq(e.c.nfl, 1);
  x.orphan_packets = 2;
  fr_check(&e.c.fl[0], &x, "two episodes");
  env_free(&e);
}
END_TEST

/* Two NAK-driven episodes: 10..14, NAK(12), 12..14, NAK(13), 13, 14, 15. */
START_TEST(t05_two_nak_episodes) {
  env e;
  FR x;
  uint32_t p;
  env_init(&e);
  cm_pair(&e, T0 - 2000, IP_A, IP_B, QA, QB, 0x1005);
  for (p = 10; p <= 14; p++) {
    W(&e, T0 + (p - 10) * 1000, p, 1000);
  }
  bk(&e, T0 + 4500, 12, 0x60);
  W(&e, T0 + 5000, 12, 1000);
  W(&e, T0 + 6000, 13, 1000);
  W(&e, T0 + 7000, 14, 1000);
  bk(&e, T0 + 7500, 13, 0x60);
  W(&e, T0 + 8000, 13, 1000);
  W(&e, T0 + 9000, 14, 1000);
  W(&e, T0 + 10000, 15, 1000);
  flush(&e, T0 + 20000);
  fr_init(&x, IP_A, IP_B, QB);
  fr_paired(&x, QA);
  x.first_ts = T0;
  x.last_ts = T0 + 10000;
  x.fct = 10000;
  x.bytes = 11000;
  x.packets = 11;
  x.retx_packets = 5;
  x.retx_bytes = 5000;
  /* 11..15 after the first: (1074 + 24) * 8 * 5 / 10000 ns */
  x.fet_bps = UINT64_C(4392000000);
  x.naks_seq = 2;
  x.losses_downstream = 2;
  x.retx_after_nak = 5;
  x.messages = 6;
  x.fnr = 2.0 / 11.0;
  x.retx_ratio = 5.0 / 11.0;
  ck_assert_uint_eq(e.c.nfl, 1);
  fr_check(&e.c.fl[0], &x, "two NAK episodes");
  env_free(&e);
}
END_TEST

/* Two upstream gaps (11 and 14 never passed the observer) before one
 * go-back-N episode that starts at 11. rtel-metrics(7): a loss is upstream
 * when the original never passed here. 11 was never seen, so the episode is an
 * upstream loss; it must not be reported as downstream. */
START_TEST(t05_two_gaps_one_episode) {
  env e;
  const FR *g;
  uint32_t p;
  rtel_tstamp t;
  env_init(&e);
  cm_pair(&e, T0 - 2000, IP_A, IP_B, QA, QB, 0x1006);
  W(&e, T0, 10, 1000);
  W(&e, T0 + 1000, 12, 1000); /* gap 11 */
  W(&e, T0 + 2000, 13, 1000);
  W(&e, T0 + 3000, 15, 1000); /* gap 14 */
  W(&e, T0 + 4000, 16, 1000);
  bk(&e, T0 + 4500, 11, 0x60);
  for (p = 11, t = T0 + 5000; p <= 16; p++, t += 1000) {
    W(&e, t, p, 1000);
  }
  W(&e, t, 17, 1000);
  flush(&e, t + 1000);
  ck_assert_uint_eq(e.c.nfl, 1);
  g = &e.c.fl[0];
  ck_assert_uint_eq(g->packets, 12);
  ck_assert_uint_eq(g->retx_packets, 6);
  ck_assert_uint_eq(g->psn_gaps, 2);
  ck_assert_uint_eq(g->retx_after_nak, 6);
  ck_assert_msg(g->losses_downstream == 0,
                "retransmission of PSN 11, which never passed the observer, "
                "located downstream (losses_downstream = %" PRIu64
                ", losses_upstream = %" PRIu64 ")",
                g->losses_downstream, g->losses_upstream);
  ck_assert_uint_eq(g->losses_upstream, 1);
  env_free(&e);
}
END_TEST

/* The observer's own capture missed PSN 11 (a mirror drop: 11 reached the
 * receiver, nobody resends it), then 14 is lost upstream, NAKed and resent.
 * The stale gap must not hide the real one: one upstream loss.
 *   10, 12 (gap [11]), 13, 15 (gap [14]), NAK(14), 14, 15 resent, 16.
 * packets 7, retx 2, fct 8000; FET over 12, 13, 15, 16:
 * (1074 + 24) * 8 * 4 / 8000 ns = 4.392 Gb/s. Messages: 10, 12, 13, 15,
 * 16, and 14 (the NAK of 14 delivers 10..13; the resend of 14 is a message
 * of its own, lost before this point); 11 is in none (never seen). */
START_TEST(t05_stale_gap_then_upstream) {
  env e;
  FR x;
  env_init(&e);
  cm_pair(&e, T0 - 2000, IP_A, IP_B, QA, QB, 0x1010);
  W(&e, T0, 10, 1000);
  W(&e, T0 + 1000, 12, 1000);
  W(&e, T0 + 2000, 13, 1000);
  W(&e, T0 + 3000, 15, 1000);
  bk(&e, T0 + 3500, 14, 0x60);
  W(&e, T0 + 4000, 14, 1000);
  W(&e, T0 + 5000, 15, 1000);
  W(&e, T0 + 8000, 16, 1000);
  flush(&e, T0 + 9000);
  fr_init(&x, IP_A, IP_B, QB);
  fr_paired(&x, QA);
  x.first_ts = T0;
  x.last_ts = T0 + 8000;
  x.fct = 8000;
  x.bytes = 7000;
  x.packets = 7;
  x.retx_packets = 2;
  x.retx_bytes = 2000;
  x.fet_bps = UINT64_C(4392000000); /* (1074 + 24) * 8 * 4 / 8000 ns */
  x.naks_seq = 1;
  x.psn_gaps = 2;
  x.losses_upstream = 1;
  x.retx_after_nak = 2;
  x.messages = 6;
  x.fnr = 1.0 / 7.0;
  x.retx_ratio = 2.0 / 7.0;
  ck_assert_uint_eq(e.c.nfl, 1);
  x.lost_upstream = 1; /* 14 */
  fr_check(&e.c.fl[0], &x, "stale gap, then upstream loss");
  env_free(&e);
}
END_TEST

/* ================================================================ 6 */

START_TEST(t06_psn_wrap) {
  env e;
  FR x;
  env_init(&e);
  cm_pair(&e, T0 - 4000, IP_A, IP_B, QA, QB, 0x1007);
  cm_pair(&e, T0 - 2000, IP_A, IP_B, QA2, QB2, 0x1008);
  /* flow 1: FFFFFE, FFFFFF, 0, 1 are new (d = 1 each); FFFFFF after 1 is
   * d = -2: a retransmission (timeout), 0 and 1 continue it; 2 new. */
  Wq(&e, T0, QB, 0xFFFFFE, 1024);
  Wq(&e, T0 + 1000, QB, 0xFFFFFF, 1024);
  Wq(&e, T0 + 2000, QB, 0, 1024);
  Wq(&e, T0 + 3000, QB, 1, 1024);
  Wq(&e, T0 + 4000, QB, 0xFFFFFF, 1024);
  Wq(&e, T0 + 5000, QB, 0, 1024);
  Wq(&e, T0 + 6000, QB, 1, 1024);
  Wq(&e, T0 + 8000, QB, 2, 1024);
  /* flow 2: FFFFFE then 1: gap FFFFFF..0 across the wrap; NAK(FFFFFF);
   * resend FFFFFF (in the gap: upstream), 0, 1; then 2. */
  Wq(&e, T0 + 10000, QB2, 0xFFFFFE, 1024);
  Wq(&e, T0 + 11000, QB2, 1, 1024);
  ctl(&e, T0 + 11500, IP_B, IP_A, QA2, 0xFFFFFF, 0x60);
  Wq(&e, T0 + 12000, QB2, 0xFFFFFF, 1024);
  Wq(&e, T0 + 13000, QB2, 0, 1024);
  Wq(&e, T0 + 14000, QB2, 1, 1024);
  Wq(&e, T0 + 15000, QB2, 2, 1024);
  flush(&e, T0 + 20000);
  ck_assert_uint_eq(e.c.nfl, 2);

  fr_init(&x, IP_A, IP_B, QB);
  fr_paired(&x, QA);
  x.first_ts = T0;
  x.last_ts = T0 + 8000;
  x.fct = 8000;
  x.bytes = 8 * 1024;
  x.packets = 8;
  x.retx_packets = 3;
  x.retx_bytes = 3 * 1024;
  /* WRITE ONLY of 1024 bytes: frame 14 + 20 + 8 + 12 + 16 + 1024 + 4 =
   * 1098; new after the first: FFFFFF, 0, 1, 2:
   * (1098 + 24) * 8 * 4 / 8000 ns = 4.488 Gb/s */
  x.fet_bps = UINT64_C(4488000000);
  x.losses_downstream = 1;
  x.retx_after_timeout = 3;
  x.messages = 5;
  x.fnr = 0.0;
  x.retx_ratio = 3.0 / 8.0;
  fr_check(find_flow(&e, IP_A, IP_B, QB), &x, "wrap");

  fr_init(&x, IP_A, IP_B, QB2);
  fr_paired(&x, QA2);
  x.first_ts = T0 + 10000;
  x.last_ts = T0 + 15000;
  x.fct = 5000;
  x.bytes = 6 * 1024;
  x.packets = 6;
  x.retx_packets = 3;
  x.retx_bytes = 3 * 1024;
  /* new after the first: 1, 2: (1098 + 24) * 8 * 2 / 5000 ns */
  x.fet_bps = UINT64_C(3590400000);
  x.naks_seq = 1;
  x.psn_gaps = 1;
  x.losses_upstream = 1;
  x.lost_upstream = 2; /* FFFFFF and 0 lay in the gap */
  x.retx_after_nak = 3;
  /* FFFFFE (delivered by the NAK of FFFFFF), 1, and FFFFFF and 0, each a
   * message whose only packet was lost before this point; 2 */
  x.messages = 5;
  x.fnr = 1.0 / 6.0;
  x.retx_ratio = 0.5;
  fr_check(find_flow(&e, IP_A, IP_B, QB2), &x, "gap across wrap");
  env_free(&e);
}
END_TEST

/* ================================================================ 7 */

START_TEST(t07_nak_classes) {
  static const uint8_t syn[] = {
      0x00, 0x1F,             /* ACKs: nowhere */
      0x20, 0x2A, 0x3F,       /* RNR NAKs */
      0x40, 0x5F,             /* reserved kind: nowhere */
      0x60, 0x60,             /* PSN sequence error */
      0x61, 0x62, 0x63, 0x64, /* fatal */
      0x65, 0x7F,             /* reserved NAK codes: nowhere */
  };
  env e;
  FR x;
  size_t i;
  env_init(&e);
  cm_pair(&e, T0 - 2000, IP_A, IP_B, QA, QB, 0x1009);
  W(&e, T0, 10, 1000);
  W(&e, T0 + 1000, 11, 1000);
  W(&e, T0 + 2000, 12, 1000);
  W(&e, T0 + 4000, 13, 1000);
  for (i = 0; i < sizeof(syn); i++) {
    bk(&e, T0 + 4100 + i * 10, 14, syn[i]);
  }
  flush(&e, T0 + 5000);
  fr_init(&x, IP_A, IP_B, QB);
  fr_paired(&x, QA);
  x.first_ts = T0;
  x.last_ts = T0 + 4000;
  x.fct = 4000;
  x.bytes = 4000;
  x.packets = 4;
  /* 11, 12, 13 after the first: (1074 + 24) * 8 * 3 / 4000 ns */
  x.fet_bps = UINT64_C(6588000000);
  x.naks_seq = 2;
  x.naks_rnr = 3;
  x.naks_fatal = 4;
  x.messages = 4;
  x.fnr = 0.5;
  ck_assert_uint_eq(e.c.nfl, 1);
  fr_check(&e.c.fl[0], &x, "nak classes");
  ck_assert_uint_eq(stats(&e).ctrl_unattributed, 0);
  env_free(&e);
}
END_TEST

/* An RNR NAK makes the next retransmission RNR-driven (retx_after_rnr;
 * retx_after_nak counts sequence-error NAKs only). */
START_TEST(t07_rnr_drives_retx) {
  env e;
  FR x;
  env_init(&e);
  cm_pair(&e, T0 - 2000, IP_A, IP_B, QA, QB, 0x100A);
  W(&e, T0, 10, 1000);
  W(&e, T0 + 1000, 11, 1000);
  W(&e, T0 + 2000, 12, 1000);
  bk(&e, T0 + 2500, 12, 0x2C); /* RNR NAK */
  W(&e, T0 + 3000, 12, 1000);
  W(&e, T0 + 4000, 13, 1000);
  flush(&e, T0 + 5000);
  fr_init(&x, IP_A, IP_B, QB);
  fr_paired(&x, QA);
  x.first_ts = T0;
  x.last_ts = T0 + 4000;
  x.fct = 4000;
  x.bytes = 5000;
  x.packets = 5;
  x.retx_packets = 1;
  x.retx_bytes = 1000;
  /* 11, 12, 13 after the first: (1074 + 24) * 8 * 3 / 4000 ns */
  x.fet_bps = UINT64_C(6588000000);
  x.naks_rnr = 1;
  x.losses_downstream = 1;
  x.retx_after_rnr = 1;
  x.messages = 4;
  x.fnr = 0.0;
  x.retx_ratio = 0.2;
  ck_assert_uint_eq(e.c.nfl, 1);
  fr_check(&e.c.fl[0], &x, "rnr");
  /* the RNR NAK of 12 delivers 10 and 11 (ACKED); message 12 holds it,
   * and its resend at +3000 is its RNR-caused loss event */
  ck_assert_uint_eq(e.c.nms, 4);
  ck_assert_uint_eq(e.c.ms[0].end, RTEL_END_ACKED);
  ck_assert_uint_eq(e.c.ms[1].end, RTEL_END_ACKED);
  {
    MR m;
    mr_init(&m, IP_A, IP_B, QB, RTEL_OP_WRITE);
    m.flags = RTEL_FLOW_F_PAIRED;
    m.peer_qpn = QA;
    m.first_psn = m.last_psn = 12;
    m.reth_len = 1000;
    m.first_ts = T0 + 2000;
    m.last_ts = T0 + 3000;
    m.fct = 1000;
    m.bytes = 2000;
    m.packets = 2;
    m.retx_packets = 1;
    m.retx_bytes = 1000;
    m.naks_rnr = 1;
    m.losses_downstream = 1;
    m.losses_rnr = 1;
    mr_check(&e.c.ms[2], &m, "message 12");
  }
  env_free(&e);
}
END_TEST

/* NAKs and CNPs of a known pair whose flow is not in the table are
 * unattributed; plain ACKs are not counted. They do not reach a flow that
 * starts later. Learned pairs survive rtel_ctx_flush. */
START_TEST(t07_ctrl_unattributed) {
  env e;
  FR x;
  env_init(&e);
  cm_pair(&e, T0 - 2000, IP_A, IP_B, QA, QB, 0x100B);
  bk(&e, T0, 5, 0x60);
  bk(&e, T0 + 100, 5, 0x00);
  cnp(&e, T0 + 200, IP_B, IP_A, QA);
  bk(&e, T0 + 300, 5, 0x21);
  bk(&e, T0 + 400, 5, 0x63);
  ck_assert_uint_eq(stats(&e).ctrl_unattributed, 4);
  W(&e, T0 + 1000, 10, 1000);
  flush(&e, T0 + 2000);
  fr_init(&x, IP_A, IP_B, QB);
  fr_paired(&x, QA);
  x.first_ts = x.last_ts = T0 + 1000;
  x.bytes = 1000;
  x.packets = 1;
  x.messages = 1;
  x.fnr = 0.0;
  ck_assert_uint_eq(e.c.nfl, 1);
  fr_check(&e.c.fl[0], &x, "after unattributed");
  /* the pair is kept across the flush */
  W(&e, T0 + 3000, 11, 1000);
  bk(&e, T0 + 3100, 12, 0x60);
  flush(&e, T0 + 4000);
  ck_assert_uint_eq(e.c.nfl, 2);
  ck_assert_uint_eq(e.c.fl[1].flags, RTEL_FLOW_F_PAIRED);
  ck_assert_uint_eq(e.c.fl[1].peer_qpn, QA);
  ck_assert_uint_eq(e.c.fl[1].naks_seq, 1);
  ck_assert_uint_eq(stats(&e).ctrl_unattributed, 4);
  env_free(&e);
}
END_TEST

/* An ACK finds its flow through its QP's pairing entry, which remembers
 * the flow's slot in the table: once that flow is gone (evicted, its slot
 * now another flow's; or ended idle, its slot free) a NAK for it counts
 * as unattributed and never on the slot's new flow. By hand: max_flows 1,
 * two connections A:QA <-> B:QB and A:QA2 <-> B:QB2. */
START_TEST(t07_ack_after_flow_gone) {
  env e;
  rtel_settings s;
  rtel_settings_default(&s);
  s.flow_idle_timeout = IDLE;
  s.max_flows = 1;
  s.max_qp_pairs = 8;
  env_init_s(&e, &s);
  cm_pair(&e, T0 - 4000, IP_A, IP_B, QA, QB, 0x200A);
  cm_pair(&e, T0 - 2000, IP_A, IP_B, QA2, QB2, 0x200B);
  Wq(&e, T0, QB, 10, 1000);
  bk(&e, T0 + 100, 10, 0x00);      /* ACK: the flow A -> QB */
  Wq(&e, T0 + 200, QB2, 50, 1000); /* evicts A -> QB, takes its slot */
  ck_assert_uint_eq(stats(&e).flows_evicted, 1);
  bk(&e, T0 + 300, 11, 0x60); /* NAK to QA: for the evicted flow */
  ck_assert_uint_eq(stats(&e).ctrl_unattributed, 1);
  ctl(&e, T0 + 400, IP_B, IP_A, QA2, 50, 0x00); /* ACK: the flow A -> QB2 */
  /* the idle timeout ends A -> QB2; its slot stays free */
  ck_assert_int_eq(rtel_ctx_handle_expiry(e.ctx, T0 + 200 + IDLE), 0);
  ctl(&e, T0 + 200 + IDLE + 100, IP_B, IP_A, QA2, 51, 0x60);
  ck_assert_uint_eq(stats(&e).ctrl_unattributed, 2);
  flush(&e, T0 + 10 * IDLE);
  ck_assert_uint_eq(e.c.nfl, 2);
  ck_assert_uint_eq(e.c.fl[0].dqpn, QB);
  ck_assert_uint_eq(e.c.fl[0].naks_seq, 0);
  ck_assert_uint_eq(e.c.fl[1].dqpn, QB2);
  ck_assert_uint_eq(e.c.fl[1].naks_seq, 0);
  ck_assert_uint_eq(e.c.fl[1].packets, 1);
  env_free(&e);
}
END_TEST

/* ================================================================ 8 */

START_TEST(t08_cnp_ecn) {
  env e;
  FR x;
  tu_spec h;
  env_init(&e);
  cm_pair(&e, T0 - 2000, IP_A, IP_B, QA, QB, 0x100C);
  h = hdr(IP_A, IP_B, QB, OP_WRITE_ONLY, 10);
  h.sport = 0x1111;
  h.tos = TOS(26, 0);
  pkh(&e, T0, &h, 1000, 0, 1000);
  h.psn = 11;
  h.sport = 0x2222; /* attributes are those of the first packet */
  h.tos = TOS(10, 3);
  h.fecn = 1;
  pkh(&e, T0 + 1000, &h, 1000, 0, 1000);
  cnp(&e, T0 + 1500, IP_B, IP_A, QA);
  h.psn = 12;
  h.tos = TOS(10, 1);
  h.fecn = 0;
  pkh(&e, T0 + 2000, &h, 1000, 0, 1000);
  cnp(&e, T0 + 2500, IP_B, IP_A, QA);
  h.psn = 13;
  h.tos = TOS(10, 3);
  h.fecn = 1;
  pkh(&e, T0 + 3000, &h, 1000, 0, 1000);
  cnp(&e, T0 + 3500, IP_B, IP_A, QA);
  cnp(&e, T0 + 3600, IP_B, IP_A, QA2); /* another QP: not this flow */
  cnp(&e, T0 + 3700, IP_A, IP_B, QB);  /* towards B: reverse flow, absent */
  h.psn = 14;
  h.tos = TOS(10, 2);
  h.fecn = 0;
  h.becn = 1;
  pkh(&e, T0 + 4000, &h, 1000, 0, 1000);
  h.psn = 15;
  h.tos = TOS(10, 0);
  h.fecn = 1;
  h.becn = 0;
  pkh(&e, T0 + 5000, &h, 1000, 0, 1000);
  /* an ACK with CE, FECN, BECN: not data, but its BECN counts */
  h = hdr(IP_B, IP_A, QA, OP_ACK, 15);
  h.tos = TOS(DSCP, 3);
  h.fecn = 1;
  h.becn = 1;
  pkh(&e, T0 + 5100, &h, 0, 0x00, 0);
  flush(&e, T0 + 6000);
  fr_init(&x, IP_A, IP_B, QB);
  fr_paired(&x, QA);
  x.sport = 0x1111;
  x.dscp = 26;
  x.first_ts = T0;
  x.last_ts = T0 + 5000;
  x.fct = 5000;
  x.bytes = 6000;
  x.packets = 6;
  /* 11..15 after the first: (1074 + 24) * 8 * 5 / 5000 ns */
  x.fet_bps = UINT64_C(8784000000);
  x.cnps = 3;
  x.ecn_ce = 2; /* 11, 13 (ECN 1 and 2 are not CE) */
  x.fecn = 3;   /* 11, 13, 15 */
  x.becn = 1;   /* BECN comes back on ACKs/NAKs: the ACK at +5100 (not
                 * data packet 14, not the CNPs, which always carry it) */
  x.messages = 6;
  x.fnr = 0.0;
  ck_assert_uint_eq(e.c.nfl, 1);
  fr_check(&e.c.fl[0], &x, "cnp/ecn");
  ck_assert_uint_eq(stats(&e).pkts_cnp, 5);
  ck_assert_uint_eq(stats(&e).ctrl_unattributed, 1);
  env_free(&e);
}
END_TEST

/* ================================================================ 9 */

START_TEST(t09_cm_pairing) {
  env e;
  FR x;
  MR m;
  rtel_ctx_stats st;
  tb f;
  tu_spec h;
  env_init(&e);
  cm_pair(&e, T0 - 2000, IP_A, IP_B, QA, QB, UINT64_C(0x0123456789ABCDEF));
  st = stats(&e);
  ck_assert_uint_eq(st.pkts_cm, 2);
  ck_assert_uint_eq(st.pairs_cm, 1);
  ck_assert_uint_eq(st.pairs_psn, 0);
  ck_assert_uint_eq(st.flows_created, 0);
  ck_assert_uint_eq(rtel_ctx_get_expiry(e.ctx), RTEL_TSTAMP_NONE);
  /* A -> QB data, NAK to QA; B -> QA data (B's own requests), RNR to QB */
  W(&e, T0, 0x100, 1000);
  W(&e, T0 + 1000, 0x101, 1000);
  pk(&e, T0 + 1500, IP_B, IP_A, QA, OP_SEND_ONLY, 0x200, 0, 500);
  ctl(&e, T0 + 1600, IP_A, IP_B, QB, 0x200, 0x31);
  W(&e, T0 + 2000, 0x102, 1000);
  bk(&e, T0 + 2500, 0x101, 0x60);
  flush(&e, T0 + 3000);
  ck_assert_uint_eq(e.c.nfl, 2);

  fr_init(&x, IP_A, IP_B, QB);
  fr_paired(&x, QA);
  x.first_ts = T0;
  x.last_ts = T0 + 2000;
  x.fct = 2000;
  x.bytes = 3000;
  x.packets = 3;
  /* 0x101, 0x102 after the first: (1074 + 24) * 8 * 2 / 2000 ns */
  x.fet_bps = UINT64_C(8784000000);
  x.naks_seq = 1;
  x.messages = 3;
  x.fnr = 1.0 / 3.0;
  fr_check(find_flow(&e, IP_A, IP_B, QB), &x, "A->QB");

  fr_init(&x, IP_B, IP_A, QA);
  fr_paired(&x, QB);
  x.ops = RTEL_OP_SEND;
  x.first_ts = x.last_ts = T0 + 1500;
  x.bytes = 500;
  x.packets = 1;
  x.naks_rnr = 1;
  x.messages = 1;
  x.fnr = 0.0;
  fr_check(find_flow(&e, IP_B, IP_A, QA), &x, "B->QA");

  mr_init(&m, IP_A, IP_B, QB, RTEL_OP_WRITE);
  m.flags = RTEL_FLOW_F_PAIRED;
  m.peer_qpn = QA;
  m.first_psn = m.last_psn = 0x101;
  m.reth_len = 1000;
  m.first_ts = m.last_ts = T0 + 1000;
  m.bytes = 1000;
  m.packets = 1;
  m.naks_seq = 1; /* the NAK of 0x101, while it was open */
  mr_check(find_msg(&e, QB, 0x101), &m, "paired message");
  /* the NAK of 0x101 acknowledges 0x100 */
  ck_assert_uint_eq(find_msg(&e, QB, 0x100)->end, RTEL_END_ACKED);

  st = stats(&e);
  ck_assert_uint_eq(st.pairs_cm, 1);
  ck_assert_uint_eq(st.pairs_psn, 0);
  ck_assert_uint_eq(st.ctrl_unattributed, 0);
  ck_assert_uint_eq(st.flows_created, 2);

  /* the CM MADs themselves are not flows; a frame check of the builder */
  memset(&h, 0, sizeof(h));
  h = hdr(IP_A, IP_B, 1, 0x64, 0);
  {
    tu_cm cm;
    memset(&cm, 0, sizeof(cm));
    cm.attr = RTEL_CM_REQ;
    tb_init(&f);
    tu_build_cm_on(&f, &h, &cm);
    /* UDP = 8 + BTH 12 + DETH 8 + MAD 256 + ICRC 4 */
    ck_assert_uint_eq(udp_len(&f), 288);
  }
  env_free(&e);
}
END_TEST

/* A REP that does not answer the REQ (other TID, other host, other
 * observation point) pairs nothing; the right REP, arriving while the flow
 * is running, pairs it and hands it the NAK held until then. */
START_TEST(t09_cm_mismatch) {
  env e;
  FR x;
  env_init(&e);
  cm_req(&e, T0 - 5000, IP_A, IP_B, QA, 0x2001);
  cm_rep(&e, T0 - 4000, IP_A, IP_B, QA, QB, 0x2002); /* other TID */
  cm_rep(&e, T0 - 3900, IP_A, IP_C, QA, QB, 0x2001); /* from C, not B */
  e.obs = OBS + 1;
  cm_rep(&e, T0 - 3800, IP_A, IP_B, QA, QB, 0x2001); /* other obs */
  e.obs = OBS;
  ck_assert_uint_eq(stats(&e).pairs_cm, 0);
  W(&e, T0, 10, 1000);
  pk(&e, T0 + 500, IP_B, IP_A, QA, OP_SEND_ONLY, 0x900, 0, 100);
  pk(&e, T0 + 600, IP_B, IP_A, QA, OP_READ_REQ, 0x950, 256, 0);
  pk(&e, T0 + 700, IP_A, IP_B, QB, OP_RRESP_ONLY, 0x950, 0, 256);
  W(&e, T0 + 1000, 11, 1000);
  bk(&e, T0 + 1500, 12, 0x60); /* held: the pair is not known */
  ctl(&e, T0 + 1600, IP_A, IP_B, QB, 0x901, 0x22); /* RNR for B -> QA, held */
  ck_assert_uint_eq(stats(&e).pairs_cm, 0);
  cm_rep(&e, T0 + 1800, IP_A, IP_B, QA, QB, 0x2001);
  ck_assert_uint_eq(stats(&e).pairs_cm, 1);
  W(&e, T0 + 2000, 12, 1000);
  flush(&e, T0 + 3000);
  fr_init(&x, IP_A, IP_B, QB);
  fr_paired(&x, QA);
  x.first_ts = T0;
  x.last_ts = T0 + 2000;
  x.fct = 2000;
  x.bytes = 3000;
  x.packets = 3;
  /* two after the first: (1074 + 24) * 8 * 2 / 2000 ns */
  x.fet_bps = UINT64_C(8784000000);
  x.naks_seq = 1;
  x.messages = 3;
  x.fnr = 1.0 / 3.0;
  ck_assert_uint_eq(e.c.nfl, 3);
  fr_check(find_flow_ops(&e, IP_A, IP_B, QB, RTEL_OP_WRITE), &x, "late REP");
  /* the responder's flow, running when the REP came, is paired too */
  fr_init(&x, IP_B, IP_A, QA);
  fr_paired(&x, QB);
  x.ops = RTEL_OP_SEND;
  x.first_ts = x.last_ts = T0 + 500;
  x.bytes = 100;
  x.packets = 1;
  x.naks_rnr = 1;
  x.messages = 1;
  x.fnr = 0.0;
  fr_check(find_flow(&e, IP_B, IP_A, QA), &x, "late REP, reverse");
  /* and so is the READ RESPONSE flow A -> QB */
  fr_init(&x, IP_A, IP_B, QB);
  fr_paired(&x, QA);
  x.ops = RTEL_OP_READ_RESP;
  x.flags |= RTEL_FLOW_F_RESPONSE; /* the key's class */
  x.first_ts = x.last_ts = T0 + 700;
  x.bytes = 256;
  x.packets = 1;
  x.messages = 1;
  x.fnr = 0.0;
  fr_check(find_flow_ops(&e, IP_A, IP_B, QB, RTEL_OP_READ_RESP), &x,
           "late REP, READ RESPONSEs");
  env_free(&e);
}
END_TEST

/* ================================================================ 10 */

/* 1000, 1001, ACK(1000) [one match], 1003 (gap 1002), NAK(1002) and a CNP
 * to QA while the pair is unknown. */
static void s10_prefix(env *e) {
  W(e, T0, 1000, 1000);
  W(e, T0 + 1000, 1001, 1000);
  bk(e, T0 + 1200, 1000, 0x1F);
  W(e, T0 + 2000, 1003, 1000);
  bk(e, T0 + 2500, 1002, 0x60);
  cnp(e, T0 + 2600, IP_B, IP_A, QA);
}

START_TEST(t10_psn_pairing) {
  env e;
  FR x;
  /* before pairing: unpaired record (FNR unknown), NAK and CNP not in it */
  env_init(&e);
  s10_prefix(&e);
  ck_assert_uint_eq(stats(&e).pairs_psn, 0);
  flush(&e, T0 + 3000);
  fr_init(&x, IP_A, IP_B, QB);
  x.first_ts = T0;
  x.last_ts = T0 + 2000;
  x.fct = 2000;
  x.bytes = 3000;
  x.packets = 3;
  /* 1001, 1003 after the first: (1074 + 24) * 8 * 2 / 2000 ns */
  x.fet_bps = UINT64_C(8784000000);
  x.psn_gaps = 1;
  x.messages = 3;
  ck_assert_uint_eq(e.c.nfl, 1);
  fr_check(&e.c.fl[0], &x, "unpaired");
  env_free(&e);

  /* second ACK match: paired; held NAK and CNP are transferred */
  env_init(&e);
  s10_prefix(&e);
  bk(&e, T0 + 2700, 1001, 0x1F);
  ck_assert_uint_eq(stats(&e).pairs_psn, 1);
  W(&e, T0 + 3000, 1002, 1000); /* upstream, after the (held) NAK */
  W(&e, T0 + 4000, 1003, 1000);
  W(&e, T0 + 5000, 1004, 1000);
  bk(&e, T0 + 5500, 1005, 0x60); /* counted directly now */
  pk(&e, T0 + 5600, IP_B, IP_A, QA, OP_SEND_ONLY, 9000, 0, 100);
  flush(&e, T0 + 6000);
  ck_assert_uint_eq(e.c.nfl, 2);
  fr_init(&x, IP_A, IP_B, QB);
  fr_paired(&x, QA);
  x.first_ts = T0;
  x.last_ts = T0 + 5000;
  x.fct = 5000;
  x.bytes = 6000;
  x.packets = 6;
  x.retx_packets = 2;
  x.retx_bytes = 2000;
  /* 1001, 1003, 1004 after the first: (1074 + 24) * 8 * 3 / 5000 ns */
  x.fet_bps = UINT64_C(5270400000);
  x.naks_seq = 2;
  x.cnps = 1;
  x.psn_gaps = 1;
  x.losses_upstream = 1;
  x.lost_upstream = 1; /* 1002 */
  x.retx_after_nak = 2;
  /* 1000, 1001, 1003, 1004, and 1002: a message of its own, its only
   * packet lost before this point */
  x.messages = 5;
  x.fnr = 2.0 / 6.0;
  x.retx_ratio = 2.0 / 6.0;
  fr_check(find_flow(&e, IP_A, IP_B, QB), &x, "paired by PSN");
  /* the reverse direction was learned too */
  fr_init(&x, IP_B, IP_A, QA);
  fr_paired(&x, QB);
  x.ops = RTEL_OP_SEND;
  x.first_ts = x.last_ts = T0 + 5600;
  x.bytes = 100;
  x.packets = 1;
  x.messages = 1;
  x.fnr = 0.0;
  fr_check(find_flow(&e, IP_B, IP_A, QA), &x, "reverse");
  ck_assert_uint_eq(stats(&e).pairs_psn, 1);
  ck_assert_uint_eq(stats(&e).pairs_cm, 0);
  env_free(&e);
}
END_TEST

/* One matching ACK is not enough; ACKs naming PSNs never sent match
 * nothing. */
START_TEST(t10_one_ack_no_pair) {
  env e;
  env_init(&e);
  W(&e, T0, 1000, 1000);
  W(&e, T0 + 1000, 1001, 1000);
  bk(&e, T0 + 1100, 999, 0x1F);
  bk(&e, T0 + 1200, 5000, 0x1F);
  bk(&e, T0 + 1300, 1001, 0x1F);
  bk(&e, T0 + 1350, 1001, 0x1F); /* the same PSN again: not a second match */
  bk(&e, T0 + 1400, 0x800000 + 1001, 0x1F);
  flush(&e, T0 + 2000);
  ck_assert_uint_eq(stats(&e).pairs_psn, 0);
  ck_assert_uint_eq(e.c.nfl, 1);
  ck_assert_uint_eq(e.c.fl[0].flags, 0);
  ck_assert_uint_eq(e.c.fl[0].peer_qpn, RTEL_QPN_NONE);
  env_free(&e);
}
END_TEST

/* A NAK seen before pairing is handed to the flow, but it must not be
 * reused as the cause of a later episode: "caused by a NAK if a NAK for the
 * flow was seen since the previous episode". It did precede episode 1,
 * which is therefore NAK-driven once the pair is known.
 *   1000..1003; NAK(1002) [held, 1 ACK match]; resend 1002, 1003 (episode 1,
 *   2 packets); ACK(1003) [2nd match: paired, NAK handed over]; 1004..1006;
 *   resend 1004..1006 without any NAK (episode 2, 3 packets); 1007.
 * Episode 2 has no NAK since episode 1: its 3 packets are timeout-driven.
 * (after_nak, after_timeout) = (2, 3). */
START_TEST(t10_held_nak_not_reused) {
  env e;
  const FR *g;
  uint32_t p;
  env_init(&e);
  for (p = 1000; p <= 1003; p++) {
    W(&e, T0 + (p - 1000) * 1000, p, 1000);
  }
  bk(&e, T0 + 3500, 1002, 0x60);
  W(&e, T0 + 4000, 1002, 1000);
  W(&e, T0 + 5000, 1003, 1000);
  bk(&e, T0 + 5500, 1003, 0x1F);
  ck_assert_uint_eq(stats(&e).pairs_psn, 1);
  W(&e, T0 + 6000, 1004, 1000);
  W(&e, T0 + 7000, 1005, 1000);
  W(&e, T0 + 8000, 1006, 1000);
  W(&e, T0 + 9000, 1004, 1000);
  W(&e, T0 + 10000, 1005, 1000);
  W(&e, T0 + 11000, 1006, 1000);
  W(&e, T0 + 12000, 1007, 1000);
  flush(&e, T0 + 13000);
  ck_assert_uint_eq(e.c.nfl, 1);
  g = &e.c.fl[0];
  ck_assert_uint_eq(g->flags, RTEL_FLOW_F_PAIRED);
  ck_assert_uint_eq(g->packets, 13); /* 4 + 2 + 3 + 3 + 1 */
  ck_assert_uint_eq(g->retx_packets, 5);
  ck_assert_uint_eq(g->losses_downstream, 2);
  ck_assert_uint_eq(g->naks_seq, 1);
  ck_assert_uint_eq(g->retx_after_nak, 2);
  ck_assert_msg(g->retx_after_timeout == 3,
                "episode 2 (no NAK since episode 1) counted as NAK-driven: "
                "retx_after_nak = %" PRIu64 ", retx_after_timeout = %" PRIu64,
                g->retx_after_nak, g->retx_after_timeout);
  env_free(&e);
}
END_TEST

/* Both directions carry data before the pair is learned from ACK PSNs of
 * one direction. The pair is a pair of QPs: the flow B -> QA, already in the
 * table, is paired with QB too, and its NAKs are counted with FNR valid. */
START_TEST(t10_psn_pairing_reverse_flow) {
  env e;
  FR x;
  env_init(&e);
  W(&e, T0, 1000, 1000);
  W(&e, T0 + 1000, 1001, 1000);
  pk(&e, T0 + 1500, IP_B, IP_A, QA, OP_SEND_ONLY, 5000, 0, 100);
  pk(&e, T0 + 1600, IP_B, IP_A, QA, OP_SEND_ONLY, 5001, 0, 100);
  pk(&e, T0 + 1650, IP_B, IP_A, QA, OP_READ_REQ, 5002, 256, 0);
  pk(&e, T0 + 1700, IP_A, IP_B, QB, OP_RRESP_ONLY, 5002, 0, 256);
  bk(&e, T0 + 2000, 1000, 0x1F);
  bk(&e, T0 + 2100, 1001, 0x1F);
  ck_assert_uint_eq(stats(&e).pairs_psn, 1);
  ctl(&e, T0 + 2200, IP_A, IP_B, QB, 5000, 0x1F);
  ctl(&e, T0 + 2300, IP_A, IP_B, QB, 5001, 0x1F);
  ctl(&e, T0 + 2400, IP_A, IP_B, QB, 5003, 0x60);
  flush(&e, T0 + 3000);
  ck_assert_uint_eq(e.c.nfl, 3);
  fr_init(&x, IP_A, IP_B, QB);
  fr_paired(&x, QA);
  x.first_ts = T0;
  x.last_ts = T0 + 1000;
  x.fct = 1000;
  x.bytes = 2000;
  x.packets = 2;
  /* 1001 after the first: (1074 + 24) * 8 / 1000 ns */
  x.fet_bps = UINT64_C(8784000000);
  x.messages = 2;
  x.fnr = 0.0;
  fr_check(find_flow_ops(&e, IP_A, IP_B, QB, RTEL_OP_WRITE), &x, "A->QB");
  fr_init(&x, IP_A, IP_B, QB);
  fr_paired(&x, QA);
  x.ops = RTEL_OP_READ_RESP;
  x.flags |= RTEL_FLOW_F_RESPONSE; /* the key's class */
  x.first_ts = x.last_ts = T0 + 1700;
  x.bytes = 256;
  x.packets = 1;
  x.messages = 1;
  x.fnr = 0.0;
  fr_check(find_flow_ops(&e, IP_A, IP_B, QB, RTEL_OP_READ_RESP), &x,
           "A->QB READ RESPONSEs");
  fr_init(&x, IP_B, IP_A, QA);
  fr_paired(&x, QB);
  x.ops = RTEL_OP_SEND;
  x.first_ts = T0 + 1500;
  x.last_ts = T0 + 1600;
  x.fct = 100;
  x.bytes = 200;
  x.packets = 2;
  /* the second SEND ONLY of 100 bytes, frame 14 + 20 + 8 + 12 + 100 + 4 =
   * 158: (158 + 24) * 8 / 100 ns = 14.56 Gb/s */
  x.fet_bps = UINT64_C(14560000000);
  x.naks_seq = 1;
  x.messages = 2;
  x.fnr = 0.5;
  fr_check(find_flow(&e, IP_B, IP_A, QA), &x, "B->QA (existing reverse)");
  env_free(&e);
}
END_TEST

/* ================================================================ 11 */

#define NQP 64
#define QPA(i) (0x100000u | ((uint32_t)(i)*0x151u))
#define QPB(i) (0x200000u | ((uint32_t)(i)*0x1A3u))
#define PSN0(i) ((0x00ABCDu + (uint32_t)(i)*0x3F00Fu) & 0xFFFFFFu)

START_TEST(t11_many_qps) {
  env e;
  FR x;
  int i, r;
  rtel_tstamp t = T0;
  env_init(&e);
  /* 6 rounds; in each, every QP sends one PSN, then B acknowledges each
   * QP's PSN of the round on that QP's QA. */
  for (r = 0; r < 6; r++) {
    for (i = 0; i < NQP; i++, t += 10) {
      Wq(&e, t, QPB(i), PSN0(i) + (uint32_t)r, 256);
    }
    for (i = 0; i < NQP; i++, t += 10) {
      ctl(&e, t, IP_B, IP_A, QPA(i), PSN0(i) + (uint32_t)r, 0x1F);
    }
  }
  ck_assert_uint_eq(stats(&e).pairs_psn, NQP);
  flush(&e, t);
  ck_assert_uint_eq(e.c.nfl, NQP);
  for (i = 0; i < NQP; i++) {
    char tag[32];
    const FR *g = find_flow(&e, IP_A, IP_B, QPB(i));
    rtel_tstamp first = T0 + (rtel_tstamp)i * 10;
    rtel_tstamp last = first + 5 * 2 * NQP * 10;
    snprintf(tag, sizeof(tag), "QP %d", i);
    fr_init(&x, IP_A, IP_B, QPB(i));
    fr_paired(&x, QPA(i));
    x.first_ts = first;
    x.last_ts = last;
    x.fct = last - first; /* 6400 ns */
    x.bytes = 6 * 256;
    x.packets = 6;
    /* WRITE ONLY of 256 bytes, frame 14 + 20 + 8 + 12 + 16 + 256 + 4 =
     * 330; five after the first: (330 + 24) * 8 * 5 / 6400 ns */
    x.fet_bps = UINT64_C(2212500000);
    x.messages = 6;
    x.fnr = 0.0;
    fr_check(g, &x, tag);
  }
  env_free(&e);
}
END_TEST

/* Two QPs between the same hosts using the same PSNs at the same time: an
 * ACK PSN then names recent data PSNs of two flows, not of exactly one, and
 * must not pair a QP with the other QP's flow. */
START_TEST(t11_overlapping_psns) {
  env e;
  const FR *gx, *gy;
  const uint32_t QX = 0x004001, QY = 0x004002, AX = 0x003001, AY = 0x003002;
  uint32_t p;
  rtel_tstamp t = T0;
  env_init(&e);
  for (p = 500; p <= 503; p++) {
    Wq(&e, t, QX, p, 256);
    Wq(&e, t + 10, QY, p, 256);
    t += 100;
  }
  ctl(&e, t, IP_B, IP_A, AX, 501, 0x1F);
  ctl(&e, t + 10, IP_B, IP_A, AY, 501, 0x1F);
  ctl(&e, t + 20, IP_B, IP_A, AX, 503, 0x1F);
  ctl(&e, t + 30, IP_B, IP_A, AY, 503, 0x1F);
  flush(&e, t + 100);
  ck_assert_uint_eq(e.c.nfl, 2);
  gx = find_flow(&e, IP_A, IP_B, QX);
  gy = find_flow(&e, IP_A, IP_B, QY);
  ck_assert_msg(gx->peer_qpn == RTEL_QPN_NONE || gx->peer_qpn == AX,
                "flow to 0x%06x paired with 0x%06x (false pair)", (unsigned)QX,
                (unsigned)gx->peer_qpn);
  ck_assert_msg(gy->peer_qpn == RTEL_QPN_NONE || gy->peer_qpn == AY,
                "flow to 0x%06x paired with 0x%06x (false pair; its own "
                "peer is 0x%06x)",
                (unsigned)QY, (unsigned)gy->peer_qpn, (unsigned)AY);
  /* every ACK PSN names both flows: nothing is learned, not even a pair
   * of the ACKs' QPs with a placeholder QPN */
  ck_assert_uint_eq(stats(&e).pairs_psn, 0);
  env_free(&e);
}
END_TEST

/* ================================================================ 12 */

#define NFLOOD 640
#define FLOOD_QP(i) (0x300000u + (uint32_t)(i))

static void flood(env *e, int no_evict_expected) {
  int i, j;
  for (i = 0; i < NFLOOD; i++) {
    for (j = 0; j < 3; j++) {
      rtel_ctx_stats st;
      rtel_tstamp ts = T0 + (rtel_tstamp)(3 * i + j) * 100;
      Wq(e, ts, FLOOD_QP(i), (uint32_t)(i * 16 + j), 256);
      st = stats(e);
      ck_assert_msg(st.flows_active <= 64, "flows_active %" PRIu64,
                    st.flows_active);
      ck_assert_uint_eq(st.flows_active, i < 64 ? (uint64_t)i + 1 : 64);
      if (no_evict_expected) {
        ck_assert_uint_eq(st.flows_evicted, 0);
        uint64_t untracked =
            i < 64 ? 0 : (uint64_t)(i - 64) * 3 + (uint64_t)j + 1;
        ck_assert_uint_eq(st.flows_untracked_pkts, untracked);
      } else {
        ck_assert_uint_eq(st.flows_evicted, i < 64 ? 0 : (uint64_t)i - 63);
        ck_assert_uint_eq(st.flows_untracked_pkts, 0);
      }
    }
  }
}

static void flood_rec(FR *x, int i, uint32_t end) {
  rtel_tstamp first = T0 + (rtel_tstamp)(3 * i) * 100;
  fr_init(x, IP_A, IP_B, FLOOD_QP(i));
  x->end = end;
  x->first_ts = first;
  x->last_ts = first + 200;
  x->fct = 200;
  x->bytes = 768;
  x->packets = 3;
  /* WRITE ONLY of 256 bytes, frame 14 + 20 + 8 + 12 + 16 + 256 + 4 = 330;
   * two after the first: (330 + 24) * 8 * 2 / 200 ns = 28.32 Gb/s */
  x->fet_bps = UINT64_C(28320000000);
  x->messages = 3;
}

START_TEST(t12_flood_evict) {
  env e;
  FR x;
  rtel_settings s;
  rtel_ctx_stats st;
  int k;
  char tag[32];
  rtel_settings_default(&s);
  s.max_flows = 64;
  env_init_s(&e, &s);
  flood(&e, 0);
  st = stats(&e);
  ck_assert_uint_eq(st.flows_created, NFLOOD);
  ck_assert_uint_eq(st.flows_evicted, NFLOOD - 64);
  /* No ACKs: messages stay open. At most 2 x 64 = 128 are open (default
   * max_open_msgs); beyond that the oldest open message of the least recently
   * active flow goes (RTEL_END_OVERFLOW), which is the oldest open message of
   * all (one flow after another): the newest 128 messages stay open, so an
   * evicted flow (64 flows back, 192 messages) has none left. Overflows: 640 *
   * 3 - 128 = 1792, every message delivered so far. */
  ck_assert_uint_eq(st.msgs_overflow, NFLOOD * 3 - 128);
  ck_assert_uint_eq(st.messages, NFLOOD * 3 - 128);
  ck_assert_uint_eq(e.c.nfl, NFLOOD - 64);
  for (k = 0; k < NFLOOD - 64; k++) {
    snprintf(tag, sizeof(tag), "evicted %d", k);
    flood_rec(&x, k, RTEL_END_EVICTED);
    fr_check(&e.c.fl[k], &x, tag);
  }
  for (k = 0; k < NFLOOD * 3 - 128; k++) {
    ck_assert_uint_eq(e.c.ms[k].end, RTEL_END_OVERFLOW);
    ck_assert_uint_eq(e.c.ms[k].first_psn,
                      (uint32_t)(k / 3 * 16 + k % 3)); /* oldest first */
  }
  flush(&e, T0 + NFLOOD * 300);
  ck_assert_uint_eq(e.c.nms, NFLOOD * 3); /* the 128 open at the flush */
  ck_assert_uint_eq(e.c.ms[NFLOOD * 3 - 1].end, RTEL_END_FLUSH);
  ck_assert_uint_eq(stats(&e).msgs_overflow, NFLOOD * 3 - 128);
  ck_assert_uint_eq(e.c.nfl, NFLOOD);
  for (k = NFLOOD - 64; k < NFLOOD; k++) {
    snprintf(tag, sizeof(tag), "flushed %d", k);
    flood_rec(&x, k, RTEL_END_FLUSH);
    fr_check(&e.c.fl[k], &x, tag);
  }
  ck_assert_uint_eq(stats(&e).flows_active, 0);
  env_free(&e);
}
END_TEST

START_TEST(t12_flood_no_evict) {
  env e;
  FR x;
  rtel_settings s;
  rtel_ctx_stats st;
  int k;
  char tag[32];
  rtel_settings_default(&s);
  s.max_flows = 64;
  s.flow_flags = RTEL_FLOW_NO_EVICT;
  env_init_s(&e, &s);
  flood(&e, 1);
  st = stats(&e);
  ck_assert_uint_eq(st.flows_created, 64);
  ck_assert_uint_eq(st.flows_evicted, 0);
  ck_assert_uint_eq(st.flows_untracked_pkts, (NFLOOD - 64) * 3); /* 1728 */
  /* 64 x 3 messages, 128 open (max_open_msgs): 64 delivered early */
  ck_assert_uint_eq(st.msgs_overflow, 64 * 3 - 128);
  ck_assert_uint_eq(st.messages, 64 * 3 - 128);
  ck_assert_uint_eq(e.c.nfl, 0);
  flush(&e, T0 + NFLOOD * 300);
  ck_assert_uint_eq(e.c.nfl, 64);
  for (k = 0; k < 64; k++) {
    snprintf(tag, sizeof(tag), "kept %d", k);
    flood_rec(&x, k, RTEL_END_FLUSH);
    fr_check(&e.c.fl[k], &x, tag);
  }
  env_free(&e);
}
END_TEST

/* rtel_settings.max_qp_pairs: "Default max_flows". An embedder that sizes
 * the flow table to 8192 after rtel_settings_default() and leaves
 * max_qp_pairs alone gets a pairing table that follows it: 3000 CM
 * connections (both directions of each learned) all stay paired. */
#define NCONN 3000
START_TEST(t12_pair_capacity_default) {
  env e;
  rtel_settings s;
  int i, unpaired = 0;
  rtel_settings_default(&s);
  s.max_flows = 8192;
  env_init_s(&e, &s);
  for (i = 0; i < NCONN; i++) {
    cm_pair(&e, T0 + (rtel_tstamp)i * 1000, IP_A, IP_B,
            0x400000u + (uint32_t)i, 0x500000u + (uint32_t)i,
            0x9000u + (uint64_t)i);
  }
  ck_assert_uint_eq(stats(&e).pairs_cm, NCONN);
  for (i = 0; i < NCONN; i++) {
    Wq(&e, T0 + NCONN * 1000 + (rtel_tstamp)i * 10, 0x500000u + (uint32_t)i, 7,
       64);
  }
  flush(&e, T0 + NCONN * 1000 + NCONN * 10);
  ck_assert_uint_eq(e.c.nfl, NCONN);
  for (i = 0; i < NCONN; i++) {
    if (e.c.fl[i].peer_qpn != e.c.fl[i].dqpn - 0x100000u) {
      unpaired++;
    }
  }
  ck_assert_msg(unpaired == 0 && stats(&e).pairs_evicted == 0,
                "%d of %d CM-paired flows lost their pair (pairs_evicted "
                "%" PRIu64 ") with max_flows 8192 and max_qp_pairs left at "
                "its default",
                unpaired, NCONN, stats(&e).pairs_evicted);
  env_free(&e);
}
END_TEST

/* ================================================================ 13 */

/* active 1 ms, idle 10 ms; one 900-byte WRITE ONLY every 100 us, k = 0..36.
 * PSN 0x500 + k for k < 30; k = 30, 31 resend 0x51C, 0x51D (sent at k = 28,
 * 29, before the restart at 3 ms); k >= 32 continue at 0x51E.
 * Records: [0, 1 ms) 10 packets, [1, 2 ms), [2, 3 ms) likewise, end active;
 * then k = 30..36 (7 packets, 2 of them resends) flushed at 3.65 ms.
 * No ACK, and the flow moves 35 PSNs (< msg_settle_psns 128): every
 * message stays open across the restarts (they never cut a message) and
 * all 35 (0x500..0x522) are delivered at the flush; each counts in the
 * record of the part where it began: 10, 10, 10, then 5 (k = 32..36; the
 * resends k = 30, 31 belong to messages of the third part). */
#define ACT UINT64_C(1000000)
#define STEP UINT64_C(100000)

static uint32_t s13_psn(int k) {
  if (k == 30) {
    return 0x51C;
  }
  if (k == 31) {
    return 0x51D;
  }
  return k < 30 ? 0x500u + (uint32_t)k : 0x500u + (uint32_t)k - 2;
}

static void s13_check(const env *e) {
  FR x;
  int n;
  char tag[32];
  ck_assert_uint_eq(e->c.nfl, 4);
  for (n = 0; n < 3; n++) {
    snprintf(tag, sizeof(tag), "active %d", n);
    fr_init(&x, IP_A, IP_B, QB);
    fr_paired(&x, QA);
    x.end = RTEL_END_ACTIVE;
    x.first_ts = T0 + (rtel_tstamp)n * ACT;
    x.last_ts = x.first_ts + 9 * STEP;
    x.fct = 9 * STEP;
    x.bytes = 9000;
    x.packets = 10;
    /* WRITE ONLY of 900 bytes, frame 14 + 20 + 8 + 12 + 16 + 900 + 4 = 974;
     * nine after the first: (974 + 24) * 8 * 9 / 900 us = 79.84 Mb/s */
    x.fet_bps = UINT64_C(79840000);
    x.messages = 10;
    x.fnr = 0.0;
    fr_check(&e->c.fl[n], &x, tag);
  }
  fr_init(&x, IP_A, IP_B, QB);
  fr_paired(&x, QA);
  x.end = RTEL_END_FLUSH;
  x.first_ts = T0 + 3 * ACT;
  x.last_ts = T0 + 36 * STEP;
  x.fct = 6 * STEP;
  x.bytes = 6300;
  x.packets = 7;
  x.retx_packets = 2;
  x.retx_bytes = 1800;
  /* the new packets after the first (a resend): k = 32..36,
   * (974 + 24) * 8 * 5 / 600 us = 66.5333 Mb/s */
  x.fet_bps = UINT64_C(66533333);
  x.losses_downstream = 1;
  x.retx_after_timeout = 2;
  x.messages = 5;
  x.fnr = 0.0;
  x.retx_ratio = 2.0 / 7.0;
  fr_check(&e->c.fl[3], &x, "after restart");
}

static void s13_settings(rtel_settings *s) {
  rtel_settings_default(s);
  s->flow_idle_timeout = 10 * IDLE;
  s->flow_active_timeout = ACT;
}

/* handle_expiry at first_ts + active_timeout exactly ends the flow
 * (active); one ns earlier does not. */
START_TEST(t13_active_boundary) {
  env e;
  FR x;
  rtel_settings s;
  s13_settings(&s);
  env_init_s(&e, &s);
  W(&e, T0, 10, 1000);
  W(&e, T0 + 500000, 11, 1000);
  ck_assert_uint_eq(rtel_ctx_get_expiry(e.ctx), T0 + ACT);
  ck_assert_int_eq(rtel_ctx_handle_expiry(e.ctx, T0 + ACT - 1), 0);
  ck_assert_uint_eq(e.c.nfl, 0);
  ck_assert_int_eq(rtel_ctx_handle_expiry(e.ctx, T0 + ACT), 0);
  ck_assert_uint_eq(e.c.nfl, 1);
  fr_init(&x, IP_A, IP_B, QB);
  x.end = RTEL_END_ACTIVE;
  x.first_ts = T0;
  x.last_ts = T0 + 500000;
  x.fct = 500000;
  x.bytes = 2000;
  x.packets = 2;
  /* 11 after 10: (1074 + 24) * 8 / 500 us */
  x.fet_bps = UINT64_C(17568000);
  /* 10 and 11 began here; no ACK: they stay open across the restart */
  x.messages = 2;
  fr_check(&e.c.fl[0], &x, "active boundary");
  ck_assert_uint_eq(e.c.nms, 0);
  /* restarted in place; silent for a whole period: removed, no flow
   * record; its two open messages are delivered then (end active) */
  ck_assert_uint_eq(stats(&e).flows_active, 1);
  ck_assert_uint_eq(rtel_ctx_get_expiry(e.ctx), T0 + 2 * ACT);
  ck_assert_int_eq(rtel_ctx_handle_expiry(e.ctx, T0 + 2 * ACT), 0);
  ck_assert_uint_eq(e.c.nfl, 1);
  ck_assert_uint_eq(e.c.nms, 2);
  ck_assert_uint_eq(e.c.ms[0].end, RTEL_END_ACTIVE);
  ck_assert_uint_eq(e.c.ms[1].end, RTEL_END_ACTIVE);
  ck_assert_uint_eq(stats(&e).messages, 2);
  ck_assert_uint_eq(stats(&e).flows_active, 0);
  ck_assert_uint_eq(rtel_ctx_get_expiry(e.ctx), RTEL_TSTAMP_NONE);
  env_free(&e);
}
END_TEST

/* A flush empties the table whole; the context goes on with the active
 * timeout exact. Two flows (QB, QB2) end idle first, so the entries the
 * next two take are not the first ones in order (the free list gives the
 * last removed first); those two (QB3, then QB again) are flushed; two new
 * flows (QB2, then QB3, 100 ns apart) follow. The active timeout then
 * falls at the first new flow's first packet + 1 ms: not at that of
 * anything the flush ended, nor at the second new flow's. */
START_TEST(t13_flush_then_active) {
  env e;
  rtel_settings s;
  const rtel_tstamp t2 = T0 + 30 * IDLE, t3 = t2 + 5 * IDLE;
  s13_settings(&s);
  env_init_s(&e, &s);
  Wq(&e, T0, QB, 10, 1000);
  Wq(&e, T0 + 100, QB2, 20, 1000);
  ck_assert_int_eq(rtel_ctx_handle_expiry(e.ctx, T0 + 20 * IDLE), 0);
  ck_assert_uint_eq(e.c.nfl, 2);
  ck_assert_uint_eq(e.c.fl[0].dqpn, QB);
  ck_assert_uint_eq(e.c.fl[0].end, RTEL_END_IDLE);
  ck_assert_uint_eq(e.c.fl[1].dqpn, QB2);
  ck_assert_uint_eq(e.c.fl[1].end, RTEL_END_IDLE);
  Wq(&e, t2, QB3, 30, 1000);
  Wq(&e, t2 + 100, QB, 11, 1000);
  flush(&e, t2 + 200);
  ck_assert_uint_eq(e.c.nfl, 4);
  ck_assert_uint_eq(e.c.fl[2].dqpn, QB3);
  ck_assert_uint_eq(e.c.fl[2].end, RTEL_END_FLUSH);
  ck_assert_uint_eq(e.c.fl[3].dqpn, QB);
  ck_assert_uint_eq(e.c.fl[3].end, RTEL_END_FLUSH);
  ck_assert_uint_eq(stats(&e).flows_active, 0);
  ck_assert_uint_eq(rtel_ctx_get_expiry(e.ctx), RTEL_TSTAMP_NONE);
  Wq(&e, t3, QB2, 21, 1000);
  Wq(&e, t3 + 100, QB3, 31, 1000);
  ck_assert_uint_eq(stats(&e).flows_active, 2);
  ck_assert_uint_eq(rtel_ctx_get_expiry(e.ctx), t3 + ACT);
  ck_assert_int_eq(rtel_ctx_handle_expiry(e.ctx, t3 + ACT - 1), 0);
  ck_assert_uint_eq(e.c.nfl, 4);
  ck_assert_int_eq(rtel_ctx_handle_expiry(e.ctx, t3 + ACT), 0);
  ck_assert_uint_eq(e.c.nfl, 5);
  ck_assert_uint_eq(e.c.fl[4].dqpn, QB2);
  ck_assert_uint_eq(e.c.fl[4].end, RTEL_END_ACTIVE);
  ck_assert_uint_eq(e.c.fl[4].first_ts, t3);
  ck_assert_uint_eq(rtel_ctx_get_expiry(e.ctx), t3 + 100 + ACT);
  ck_assert_int_eq(rtel_ctx_handle_expiry(e.ctx, t3 + 100 + ACT), 0);
  ck_assert_uint_eq(e.c.nfl, 6);
  ck_assert_uint_eq(e.c.fl[5].dqpn, QB3);
  ck_assert_uint_eq(e.c.fl[5].end, RTEL_END_ACTIVE);
  ck_assert_uint_eq(e.c.fl[5].first_ts, t3 + 100);
  env_free(&e);
}
END_TEST

/* A message under way when the active timeout restarts its flow (in
 * place) is not cut: it is one message, delivered (no ACK) at the flush.
 * WRITE FIRST 0x600 at 0, MIDDLE at 0.5 ms, restart at 1 ms, MIDDLE at
 * 1.2 ms, LAST at 1.456 ms. */
START_TEST(t13_message_across_restart) {
  env e;
  FR x;
  MR m;
  rtel_settings s;
  s13_settings(&s);
  env_init_s(&e, &s);
  pk(&e, T0, IP_A, IP_B, QB, OP_WRITE_FIRST, 0x600, 4096, 1024);
  pk(&e, T0 + 500000, IP_A, IP_B, QB, OP_WRITE_MIDDLE, 0x601, 0, 1024);
  ck_assert_int_eq(rtel_ctx_handle_expiry(e.ctx, T0 + ACT), 0);
  ck_assert_uint_eq(e.c.nfl, 1);
  pk(&e, T0 + 1200000, IP_A, IP_B, QB, OP_WRITE_MIDDLE, 0x602, 0, 1024);
  pk(&e, T0 + 1456000, IP_A, IP_B, QB, OP_WRITE_LAST, 0x603, 0, 1024);
  flush(&e, T0 + 1600000);
  ck_assert_uint_eq(e.c.nfl, 2);

  fr_init(&x, IP_A, IP_B, QB);
  x.end = RTEL_END_ACTIVE;
  x.first_ts = T0;
  x.last_ts = T0 + 500000;
  x.fct = 500000;
  x.bytes = 2048;
  x.packets = 2;
  /* WRITE MIDDLE of 1024, frame 14 + 20 + 8 + 12 + 1024 + 4 = 1082, after
   * the first: (1082 + 24) * 8 / 500 us = 17.696 Mb/s */
  x.fet_bps = UINT64_C(17696000);
  x.messages = 1; /* the message began here */
  fr_check(&e.c.fl[0], &x, "before restart");
  x.end = RTEL_END_FLUSH;
  x.first_ts = T0 + 1200000;
  x.last_ts = T0 + 1456000;
  x.fct = 256000;
  /* LAST (1024, frame 1082) after the MIDDLE: (1082 + 24) * 8 / 256 us */
  x.fet_bps = UINT64_C(34562500);
  x.messages = 0; /* it ended here, but began before the restart */
  fr_check(&e.c.fl[1], &x, "after restart");

  ck_assert_uint_eq(e.c.nms, 1);
  mr_init(&m, IP_A, IP_B, QB, RTEL_OP_WRITE);
  m.first_psn = 0x600;
  m.last_psn = 0x603;
  m.reth_len = 4096;
  m.first_ts = T0;
  m.last_ts = T0 + 1456000;
  m.fct = 1456000;
  m.bytes = 4096;
  m.packets = 4;
  /* three after the FIRST: (1082 + 24) * 8 * 3 / 1456 us = 18.2308 Mb/s */
  m.fet_bps = UINT64_C(18230769);
  mr_check(&e.c.ms[0], &m, "message across the restart");
  env_free(&e);
}
END_TEST

/* After a restart the flow's first_ts is its first packet since, not the
 * restart time: restart at 1 ms, packets at 1.3 and 1.8 ms. */
START_TEST(t13_restart_first_ts) {
  env e;
  FR x;
  rtel_settings s;
  s13_settings(&s);
  env_init_s(&e, &s);
  W(&e, T0, 10, 1000);
  W(&e, T0 + 500000, 11, 1000);
  ck_assert_int_eq(rtel_ctx_handle_expiry(e.ctx, T0 + ACT), 0);
  W(&e, T0 + 1300000, 12, 1000);
  W(&e, T0 + 1800000, 13, 1000);
  flush(&e, T0 + 1900000);
  ck_assert_uint_eq(e.c.nfl, 2);
  fr_init(&x, IP_A, IP_B, QB);
  x.first_ts = T0 + 1300000;
  x.last_ts = T0 + 1800000;
  x.fct = 500000;
  x.bytes = 2000;
  x.packets = 2;
  /* 13 after 12: (1074 + 24) * 8 / 500 us */
  x.fet_bps = UINT64_C(17568000);
  /* 12, 13 began here (10, 11 in the first part; all four flushed here) */
  x.messages = 2;
  fr_check(&e.c.fl[1], &x, "after restart");
  env_free(&e);
}
END_TEST

/* The embedder runs the timers on time (rtel_ctx_handle_expiry). */
START_TEST(t13_active_timeout) {
  env e;
  rtel_settings s;
  int k;
  s13_settings(&s);
  env_init_s(&e, &s);
  cm_pair(&e, T0 - 2000, IP_A, IP_B, QA, QB, 0x3001);
  for (k = 0; k <= 36; k++) {
    tb f;
    tu_spec h = hdr(IP_A, IP_B, QB, OP_WRITE_ONLY, s13_psn(k));
    build(&f, &h, 900, 0, 900);
    feed_timed(&e, T0 + (rtel_tstamp)k * STEP, &f);
    if (k == 0) {
      ck_assert_uint_eq(rtel_ctx_get_expiry(e.ctx), T0 + ACT);
    }
    if (k == 9) {
      ck_assert_uint_eq(e.c.nfl, 0);
    }
    if (k == 10) {
      ck_assert_uint_eq(e.c.nfl, 1);
      ck_assert_uint_eq(rtel_ctx_get_expiry(e.ctx), T0 + 2 * ACT);
    }
  }
  flush(&e, T0 + 36 * STEP + 50000);
  s13_check(&e);
  env_free(&e);
}
END_TEST

/* The embedder never runs the timers: packets end the flows. Same records. */
START_TEST(t13_active_timeout_late) {
  env e;
  rtel_settings s;
  int k;
  s13_settings(&s);
  env_init_s(&e, &s);
  cm_pair(&e, T0 - 2000, IP_A, IP_B, QA, QB, 0x3002);
  for (k = 0; k <= 36; k++) {
    tb f;
    tu_spec h = hdr(IP_A, IP_B, QB, OP_WRITE_ONLY, s13_psn(k));
    build(&f, &h, 900, 0, 900);
    feed(&e, T0 + (rtel_tstamp)k * STEP, &f);
  }
  flush(&e, T0 + 36 * STEP + 50000);
  s13_check(&e);
  env_free(&e);
}
END_TEST

/* ================================================================ 14 */

START_TEST(t14_messages) {
  env e;
  FR x;
  MR m;
  tu_spec h;
  env_init(&e);
  /* flow 1, A -> QB */
  pk(&e, T0, IP_A, IP_B, QB, OP_SEND_FIRST, 200, 0, 1024);
  pk(&e, T0 + 1000, IP_A, IP_B, QB, OP_SEND_MIDDLE, 201, 0, 1024);
  pk(&e, T0 + 2000, IP_A, IP_B, QB, OP_SEND_LAST, 202, 0, 100);
  pk(&e, T0 + 3000, IP_A, IP_B, QB, OP_WRITE_ONLY, 203, 64, 64);
  pk(&e, T0 + 4000, IP_A, IP_B, QB, OP_WRITE_FIRST, 204, 3072, 1024);
  pk(&e, T0 + 5000, IP_A, IP_B, QB, OP_WRITE_MIDDLE, 205, 0, 1024);
  /* 206 (WRITE LAST) lost upstream; the next message begins */
  pk(&e, T0 + 6000, IP_A, IP_B, QB, OP_SEND_FIRST, 207, 0, 1024);
  pk(&e, T0 + 7000, IP_A, IP_B, QB, OP_SEND_LAST_IMM, 208, 0, 16);
  pk(&e, T0 + 8000, IP_A, IP_B, QB, OP_SEND_ONLY_INV, 209, 0, 16);
  pk(&e, T0 + 10000, IP_A, IP_B, QB, OP_WRITE_FIRST, 210, 2048, 1024);
  /* flow 2, A -> QB2: capture begins mid-message */
  pk(&e, T0 + 1500, IP_A, IP_B, QB2, OP_WRITE_MIDDLE, 50, 0, 1024);
  pk(&e, T0 + 2500, IP_A, IP_B, QB2, OP_WRITE_LAST_IMM, 51, 0, 500);
  /* flow 3, B -> QA: READ RESPONSE FIRST..LAST, then ONLY */
  pk(&e, T0 + 3500, IP_B, IP_A, QA, OP_RRESP_FIRST, 700, 0, 1024);
  pk(&e, T0 + 4500, IP_B, IP_A, QA, OP_RRESP_MIDDLE, 701, 0, 1024);
  h = hdr(IP_B, IP_A, QA, OP_RRESP_LAST, 702);
  h.pad = 2;
  pkh(&e, T0 + 5500, &h, 0, 0x00, 10);
  pk(&e, T0 + 7500, IP_B, IP_A, QA, OP_RRESP_ONLY, 703, 0, 8);
  /* no ACK, nothing settles (the flows move a few PSNs): every message
   * is delivered at the flush (end RTEL_END_FLUSH) */
  ck_assert_uint_eq(e.c.nms, 0);
  flush(&e, T0 + 12000);
  ck_assert_uint_eq(e.c.nms, 9);
  ck_assert_uint_eq(stats(&e).messages, 9);
  ck_assert_uint_eq(e.c.nfl, 3);
  /* the in-progress message is delivered before its flow's record */
  ck_assert_uint_lt(
      ev_pos(&e, 'M', (size_t)(find_msg(&e, QB, 210) - e.c.ms)),
      ev_pos(&e, 'F', (size_t)(find_flow(&e, IP_A, IP_B, QB) - e.c.fl)));

  mr_init(&m, IP_A, IP_B, QB, RTEL_OP_SEND);
  m.first_psn = 200;
  m.last_psn = 202;
  m.first_ts = T0;
  m.last_ts = T0 + 2000;
  m.fct = 2000;
  m.bytes = 2148;
  m.packets = 3;
  /* frames: SEND MIDDLE 1024: 14 + 20 + 8 + 12 + 1024 + 4 = 1082; SEND
   * LAST 100: 14 + 20 + 8 + 12 + 100 + 4 = 158:
   * (1082 + 24 + 158 + 24) * 8 / 2000 ns = 5.152 Gb/s */
  m.fet_bps = UINT64_C(5152000000);
  mr_check(find_msg(&e, QB, 200), &m, "SEND F/M/L");

  mr_init(&m, IP_A, IP_B, QB, RTEL_OP_WRITE);
  m.first_psn = m.last_psn = 203;
  m.reth_len = 64;
  m.first_ts = m.last_ts = T0 + 3000;
  m.bytes = 64;
  m.packets = 1;
  mr_check(find_msg(&e, QB, 203), &m, "WRITE ONLY");

  mr_init(&m, IP_A, IP_B, QB, RTEL_OP_WRITE);
  m.flags = RTEL_MSG_F_INCOMPLETE;
  m.first_psn = 204;
  m.last_psn = 205;
  m.reth_len = 3072;
  m.first_ts = T0 + 4000;
  m.last_ts = T0 + 5000;
  m.fct = 1000;
  m.bytes = 2048;
  m.packets = 2;
  m.fet_bps = UINT64_C(8848000000); /* MIDDLE: (1082 + 24) * 8 / 1000 ns */
  mr_check(find_msg(&e, QB, 204), &m, "WRITE, LAST lost");

  mr_init(&m, IP_A, IP_B, QB, RTEL_OP_SEND);
  m.first_psn = 207;
  m.last_psn = 208;
  m.first_ts = T0 + 6000;
  m.last_ts = T0 + 7000;
  m.fct = 1000;
  m.bytes = 1040;
  m.packets = 2;
  /* SEND LAST with immediate, 16 bytes: 14 + 20 + 8 + 12 + 4 + 16 + 4 = 78:
   * (78 + 24) * 8 / 1000 ns */
  m.fet_bps = UINT64_C(816000000);
  mr_check(find_msg(&e, QB, 207), &m, "SEND F/L imm");

  mr_init(&m, IP_A, IP_B, QB, RTEL_OP_SEND);
  m.first_psn = m.last_psn = 209;
  m.first_ts = m.last_ts = T0 + 8000;
  m.bytes = 16;
  m.packets = 1;
  mr_check(find_msg(&e, QB, 209), &m, "SEND ONLY inv");

  mr_init(&m, IP_A, IP_B, QB, RTEL_OP_WRITE);
  m.flags = RTEL_MSG_F_INCOMPLETE;
  m.first_psn = m.last_psn = 210;
  m.reth_len = 2048;
  m.first_ts = m.last_ts = T0 + 10000;
  m.bytes = 1024;
  m.packets = 1;
  mr_check(find_msg(&e, QB, 210), &m, "WRITE in progress at flush");

  mr_init(&m, IP_A, IP_B, QB2, RTEL_OP_WRITE);
  m.flags = RTEL_MSG_F_INCOMPLETE;
  m.first_psn = 50;
  m.last_psn = 51;
  m.first_ts = T0 + 1500;
  m.last_ts = T0 + 2500;
  m.fct = 1000;
  m.bytes = 1524;
  m.packets = 2;
  /* WRITE LAST with immediate, 500 bytes: 14 + 20 + 8 + 12 + 4 + 500 + 4 =
   * 562: (562 + 24) * 8 / 1000 ns */
  m.fet_bps = UINT64_C(4688000000);
  mr_check(find_msg(&e, QB2, 50), &m, "starts with MIDDLE");

  mr_init(&m, IP_B, IP_A, QA, RTEL_OP_READ_RESP);
  m.first_psn = 700;
  m.last_psn = 702;
  m.first_ts = T0 + 3500;
  m.last_ts = T0 + 5500;
  m.fct = 2000;
  m.bytes = 2058;
  m.packets = 3;
  /* MIDDLE 1024: frame 1082; LAST (AETH 4) 10 + pad 2: 14 + 20 + 8 + 12 +
   * 4 + 10 + 2 + 4 = 74: (1082 + 24 + 74 + 24) * 8 / 2000 ns */
  m.fet_bps = UINT64_C(4816000000);
  mr_check(find_msg(&e, QA, 700), &m, "READ RESPONSE F/M/L");

  mr_init(&m, IP_B, IP_A, QA, RTEL_OP_READ_RESP);
  m.first_psn = m.last_psn = 703;
  m.first_ts = m.last_ts = T0 + 7500;
  m.bytes = 8;
  m.packets = 1;
  mr_check(find_msg(&e, QA, 703), &m, "READ RESPONSE ONLY");

  fr_init(&x, IP_A, IP_B, QB);
  x.ops = RTEL_OP_SEND | RTEL_OP_WRITE;
  x.first_ts = T0;
  x.last_ts = T0 + 10000;
  x.fct = 10000;
  x.bytes = 6340; /* 6 * 1024 + 100 + 64 + 16 + 16 */
  x.packets = 10;
  /* after the first, frame + 24: 201 SEND MIDDLE 1106, 202 SEND LAST 182,
   * 203 WRITE ONLY 64 (14 + 20 + 8 + 12 + 16 + 64 + 4 = 138) 162, 204
   * WRITE FIRST 1024 (1098) 1122, 205 1106, 207 SEND FIRST 1106, 208 102,
   * 209 SEND ONLY with IETH, 16 (14 + 20 + 8 + 12 + 4 + 16 + 4 = 78) 102,
   * 210 1122: 6110 * 8 / 10000 ns = 4.888 Gb/s */
  x.fet_bps = UINT64_C(4888000000);
  x.psn_gaps = 1;
  x.messages = 6;
  fr_check(find_flow(&e, IP_A, IP_B, QB), &x, "flow 1");

  fr_init(&x, IP_A, IP_B, QB2);
  x.first_ts = T0 + 1500;
  x.last_ts = T0 + 2500;
  x.fct = 1000;
  x.bytes = 1524;
  x.packets = 2;
  x.fet_bps = UINT64_C(4688000000); /* (562 + 24) * 8 / 1000 ns */
  x.messages = 1;
  fr_check(find_flow(&e, IP_A, IP_B, QB2), &x, "flow 2");

  fr_init(&x, IP_B, IP_A, QA);
  x.ops = RTEL_OP_READ_RESP;
  x.flags |= RTEL_FLOW_F_RESPONSE; /* the key's class */
  x.first_ts = T0 + 3500;
  x.last_ts = T0 + 7500;
  x.fct = 4000;
  x.bytes = 2066;
  x.packets = 4;
  /* after 700: 701 1106, 702 98, 703 ONLY with AETH, 8 bytes (14 + 20 +
   * 8 + 12 + 4 + 8 + 4 = 70) 94: 1298 * 8 / 4000 ns = 2.596 Gb/s */
  x.fet_bps = UINT64_C(2596000000);
  x.messages = 2;
  fr_check(find_flow(&e, IP_B, IP_A, QA), &x, "flow 3");
  env_free(&e);
}
END_TEST

/* WRITE FIRST 400, MIDDLE 401..403, NAK(402), resend 402, 403, LAST 404:
 * the message holds 7 packets, 2 of them resends, and the NAK (its PSN is
 * the message's). The ACK of 404 delivers it (end ACKED); a later resend
 * of 404 (timeout: the ACK was lost downstream) is an orphan of the flow.
 * FET: the 4 new packets after the first, 1082-byte frames + 24:
 * 4 * 1106 * 8 / 6000 ns. */
START_TEST(t14_message_retx) {
  env e;
  FR x;
  MR m;
  env_init(&e);
  cm_pair(&e, T0 - 2000, IP_A, IP_B, QA, QB, 0x4001);
  pk(&e, T0, IP_A, IP_B, QB, OP_WRITE_FIRST, 400, 5120, 1024);
  pk(&e, T0 + 1000, IP_A, IP_B, QB, OP_WRITE_MIDDLE, 401, 0, 1024);
  pk(&e, T0 + 2000, IP_A, IP_B, QB, OP_WRITE_MIDDLE, 402, 0, 1024);
  pk(&e, T0 + 3000, IP_A, IP_B, QB, OP_WRITE_MIDDLE, 403, 0, 1024);
  bk(&e, T0 + 3500, 402, 0x60);
  pk(&e, T0 + 4000, IP_A, IP_B, QB, OP_WRITE_MIDDLE, 402, 0, 1024);
  pk(&e, T0 + 5000, IP_A, IP_B, QB, OP_WRITE_MIDDLE, 403, 0, 1024);
  pk(&e, T0 + 6000, IP_A, IP_B, QB, OP_WRITE_LAST, 404, 0, 1024);
  ck_assert_uint_eq(e.c.nms, 0);
  bk(&e, T0 + 7000, 404, 0x1F); /* ACK of 404 */
  ck_assert_uint_eq(e.c.nms, 1);
  pk(&e, T0 + 8000, IP_A, IP_B, QB, OP_WRITE_LAST, 404, 0, 1024);
  flush(&e, T0 + 9000);
  ck_assert_uint_eq(e.c.nms, 1);
  mr_init(&m, IP_A, IP_B, QB, RTEL_OP_WRITE);
  m.flags = RTEL_FLOW_F_PAIRED;
  m.peer_qpn = QA;
  m.first_psn = 400;
  m.last_psn = 404;
  m.reth_len = 5120;
  m.first_ts = T0;
  m.last_ts = T0 + 6000;
  m.fct = 6000;
  m.bytes = 7 * 1024;
  m.packets = 7;
  m.retx_packets = 2;
  m.retx_bytes = 2048;
  m.end = RTEL_END_ACKED;
  m.naks_seq = 1;
  m.losses_downstream = 1;
  m.losses_nak = 1;
  m.fet_bps = UINT64_C(5898666666); /* 4 * 1106 * 8 / 6000 ns */
  mr_check(&e.c.ms[0], &m, "message with resends");
  fr_init(&x, IP_A, IP_B, QB);
  fr_paired(&x, QA);
  x.first_ts = T0;
  x.last_ts = T0 + 8000;
  x.fct = 8000;
  x.bytes = 8 * 1024;
  x.packets = 8;
  x.retx_packets = 3;
  x.retx_bytes = 3 * 1024;
  /* 401..404 new after the first: (1082 + 24) * 8 * 4 / 8000 ns */
  x.fet_bps = UINT64_C(4424000000);
  x.naks_seq = 1;
  x.losses_downstream = 2;
  x.retx_after_nak = 2;
  x.retx_after_timeout = 1;
  x.orphan_packets = 1;
  x.messages = 1;
  x.fnr = 1.0 / 8.0;
  x.retx_ratio = 3.0 / 8.0;
  ck_assert_uint_eq(e.c.nfl, 1);
  fr_check(&e.c.fl[0], &x, "flow with message resends");
  env_free(&e);
}
END_TEST

/* Three messages one after the other, each delivered by its ACK before
 * the next begins, so that each takes the place the previous one gave
 * back (the flow's own message slot). The first has a NAK, a resend (the NAK's
 * cause) and a CNP; the second one resend, after a timeout; the third none.
 * Each record counts its own, none of the one before: 1024-byte WRITEs, frames
 * of 1082 bytes + 24 on the wire. */
START_TEST(t14_message_slot_reuse) {
  env e;
  MR m;
  env_init(&e);
  cm_pair(&e, T0 - 2000, IP_A, IP_B, QA, QB, 0x4001);
  pk(&e, T0, IP_A, IP_B, QB, OP_WRITE_FIRST, 400, 3072, 1024);
  pk(&e, T0 + 1000, IP_A, IP_B, QB, OP_WRITE_MIDDLE, 401, 0, 1024);
  bk(&e, T0 + 1500, 401, 0x60); /* sequence error NAK */
  pk(&e, T0 + 2000, IP_A, IP_B, QB, OP_WRITE_MIDDLE, 401, 0, 1024);
  pk(&e, T0 + 3000, IP_A, IP_B, QB, OP_WRITE_LAST, 402, 0, 1024);
  cnp(&e, T0 + 3200, IP_B, IP_A, QA);
  bk(&e, T0 + 4000, 402, 0x1F); /* ACK of 402 */
  ck_assert_uint_eq(e.c.nms, 1);
  pk(&e, T0 + 5000, IP_A, IP_B, QB, OP_WRITE_FIRST, 403, 3072, 1024);
  pk(&e, T0 + 6000, IP_A, IP_B, QB, OP_WRITE_MIDDLE, 404, 0, 1024);
  pk(&e, T0 + 8000, IP_A, IP_B, QB, OP_WRITE_MIDDLE, 404, 0, 1024);
  pk(&e, T0 + 9000, IP_A, IP_B, QB, OP_WRITE_LAST, 405, 0, 1024);
  bk(&e, T0 + 10000, 405, 0x1F);
  ck_assert_uint_eq(e.c.nms, 2);
  pk(&e, T0 + 11000, IP_A, IP_B, QB, OP_WRITE_ONLY, 406, 1024, 1024);
  bk(&e, T0 + 12000, 406, 0x1F);
  ck_assert_uint_eq(e.c.nms, 3);

  mr_init(&m, IP_A, IP_B, QB, RTEL_OP_WRITE);
  m.flags = RTEL_FLOW_F_PAIRED;
  m.peer_qpn = QA;
  m.end = RTEL_END_ACKED;
  m.reth_len = 3072;
  m.first_psn = 400;
  m.last_psn = 402;
  m.first_ts = T0;
  m.last_ts = T0 + 3000;
  m.fct = 3000;
  m.bytes = 4 * 1024;
  m.packets = 4;
  m.retx_packets = 1;
  m.retx_bytes = 1024;
  m.naks_seq = 1;
  m.cnps = 1;
  m.losses_downstream = 1;
  m.losses_nak = 1;
  m.fet_bps = UINT64_C(5898666666); /* 401, 402: 2 * 1106 * 8 / 3000 ns */
  mr_check(&e.c.ms[0], &m, "message 1 (NAK, resend, CNP)");

  m.first_psn = 403;
  m.last_psn = 405;
  m.first_ts = T0 + 5000;
  m.last_ts = T0 + 9000;
  m.fct = 4000;
  m.naks_seq = 0;
  m.cnps = 0;
  m.losses_nak = 0;
  m.losses_timeout = 1;
  m.fet_bps = UINT64_C(4424000000); /* 404, 405: 2 * 1106 * 8 / 4000 ns */
  mr_check(&e.c.ms[1], &m, "message 2 (a resend after a timeout)");

  m.reth_len = 1024;
  m.first_psn = m.last_psn = 406;
  m.first_ts = m.last_ts = T0 + 11000;
  m.fct = 0;
  m.bytes = 1024;
  m.packets = 1;
  m.retx_packets = 0;
  m.retx_bytes = 0;
  m.losses_downstream = 0;
  m.losses_timeout = 0;
  m.fet_bps = 0;
  mr_check(&e.c.ms[2], &m, "message 3 (clean)");
  env_free(&e);
}
END_TEST

/* A flow entry holds one open message of its own; more open at once take
 * the shared slab. Three messages open at once (the first in the flow's
 * own slot, the next two in the slab); the ACK of the first frees the
 * flow's slot, which the fourth then takes, after the two still open in
 * the slab; a resend of the second lands in the second. Each record is
 * its own message's, in PSN order. Wire bytes by hand (IPv4): ONLY / FIRST
 * with RETH 14 + 20 + 8 + 12 + 16 + 1024 + 4 + 24 = 1122, LAST 1106. */
START_TEST(t14_own_slot_and_slab) {
  env e;
  MR m;
  env_init(&e);
  cm_pair(&e, T0 - 2000, IP_A, IP_B, QA, QB, 0x4001);
  pk(&e, T0, IP_A, IP_B, QB, OP_WRITE_ONLY, 500, 1024, 1024);
  pk(&e, T0 + 1000, IP_A, IP_B, QB, OP_WRITE_FIRST, 501, 2048, 1024);
  pk(&e, T0 + 2000, IP_A, IP_B, QB, OP_WRITE_LAST, 502, 0, 1024);
  pk(&e, T0 + 3000, IP_A, IP_B, QB, OP_WRITE_ONLY, 503, 1024, 1024);
  bk(&e, T0 + 4000, 500, 0x1F); /* ACK of 500: the first message only */
  ck_assert_uint_eq(e.c.nms, 1);
  pk(&e, T0 + 5000, IP_A, IP_B, QB, OP_WRITE_ONLY, 504, 1024, 1024);
  pk(&e, T0 + 6000, IP_A, IP_B, QB, OP_WRITE_LAST, 502, 0, 1024); /* resent */
  ck_assert_uint_eq(e.c.nms, 1);
  bk(&e, T0 + 7000, 504, 0x1F); /* ACK of 504: the three others */
  ck_assert_uint_eq(e.c.nms, 4);

  mr_init(&m, IP_A, IP_B, QB, RTEL_OP_WRITE);
  m.flags = RTEL_FLOW_F_PAIRED;
  m.peer_qpn = QA;
  m.end = RTEL_END_ACKED;
  m.reth_len = 1024;
  m.first_psn = m.last_psn = 500;
  m.first_ts = m.last_ts = T0;
  m.bytes = 1024;
  m.packets = 1;
  mr_check(&e.c.ms[0], &m, "message 500 (own slot)");

  m.reth_len = 2048;
  m.first_psn = 501;
  m.last_psn = 502;
  m.first_ts = T0 + 1000;
  m.last_ts = T0 + 6000; /* its resend */
  m.fct = 5000;
  m.bytes = 3 * 1024;
  m.packets = 3;
  m.retx_packets = 1;
  m.retx_bytes = 1024;
  m.losses_downstream = 1;
  m.losses_timeout = 1;
  m.fet_bps = UINT64_C(1769600000); /* 502 once: 1106 * 8 / 5000 ns */
  mr_check(&e.c.ms[1], &m, "message 501-502 (slab, resent)");

  m.reth_len = 1024;
  m.first_psn = m.last_psn = 503;
  m.first_ts = m.last_ts = T0 + 3000;
  m.fct = 0;
  m.bytes = 1024;
  m.packets = 1;
  m.retx_packets = 0;
  m.retx_bytes = 0;
  m.losses_downstream = 0;
  m.losses_timeout = 0;
  m.fet_bps = 0;
  mr_check(&e.c.ms[2], &m, "message 503 (slab)");

  m.first_psn = m.last_psn = 504;
  m.first_ts = m.last_ts = T0 + 5000;
  mr_check(&e.c.ms[3], &m, "message 504 (own slot again)");
  env_free(&e);
}
END_TEST

/* max_open_msgs bounds the open messages of all flows, those in the flows'
 * own slots included: with 2, a flow with two open (one in its own slot)
 * and another flow's first message make three, so the oldest open message
 * of the least recently active flow goes early. */
START_TEST(t14_open_bound_counts_own_slots) {
  env e;
  rtel_settings s;
  rtel_settings_default(&s);
  s.flow_idle_timeout = IDLE;
  s.max_open_msgs = 2;
  env_init_s(&e, &s);
  pk(&e, T0, IP_A, IP_B, QB, OP_WRITE_ONLY, 700, 1024, 1024);
  pk(&e, T0 + 1000, IP_A, IP_B, QB, OP_WRITE_ONLY, 701, 1024, 1024);
  ck_assert_uint_eq(e.c.nms, 0);
  ck_assert_uint_eq(stats(&e).msgs_overflow, 0);
  pk(&e, T0 + 2000, IP_A, IP_B, QB2, OP_WRITE_ONLY, 900, 1024, 1024);
  ck_assert_uint_eq(e.c.nms, 1);
  ck_assert_uint_eq(stats(&e).msgs_overflow, 1);
  ck_assert_uint_eq(e.c.ms[0].end, RTEL_END_OVERFLOW);
  ck_assert_uint_eq(e.c.ms[0].dqpn, QB);
  ck_assert_uint_eq(e.c.ms[0].first_psn, 700);
  /* the first flow's own slot is free again: its next message takes it
   * and the bound (two open: 701 and 900) sends 701 early */
  pk(&e, T0 + 3000, IP_A, IP_B, QB, OP_WRITE_ONLY, 702, 1024, 1024);
  ck_assert_uint_eq(e.c.nms, 2);
  ck_assert_uint_eq(e.c.ms[1].first_psn, 701);
  ck_assert_uint_eq(stats(&e).msgs_overflow, 2);
  flush(&e, T0 + 4000);
  ck_assert_uint_eq(e.c.nms, 4);
  ck_assert_uint_eq(stats(&e).msgs_overflow, 2);
  env_free(&e);
}
END_TEST

/* ================================================================ 15 */

/* A READ REQUEST takes as many PSNs as its response has packets: the next
 * data PSN may jump without a gap. A resent READ REQUEST does not excuse a
 * later jump. 512-byte WRITE ONLYs. */
START_TEST(t15_read_request_span) {
  env e;
  FR x;
  env_init(&e);
  W(&e, T0, 100, 512);
  pk(&e, T0 + 1000, IP_A, IP_B, QB, OP_READ_REQ, 101, 4096, 0); /* 101..104 */
  W(&e, T0 + 2000, 105, 512);
  W(&e, T0 + 3000, 106, 512);
  pk(&e, T0 + 4000, IP_A, IP_B, QB, OP_READ_REQ, 107, 1024, 0); /* 107 */
  pk(&e, T0 + 5000, IP_A, IP_B, QB, OP_READ_REQ, 108, 2048, 0); /* 108, 109 */
  W(&e, T0 + 6000, 110, 512);
  pk(&e, T0 + 7500, IP_A, IP_B, QB, OP_READ_REQ, 101, 4096, 0); /* resent */
  W(&e, T0 + 8000, 112, 512); /* 111 missing: a gap */
  flush(&e, T0 + 9000);
  fr_init(&x, IP_A, IP_B, QB);
  x.first_ts = T0;
  x.last_ts = T0 + 8000;
  x.fct = 8000;
  x.bytes = 2560;
  x.packets = 5;
  /* WRITE ONLY of 512, frame 14 + 20 + 8 + 12 + 16 + 512 + 4 = 586; four
   * after the first: (586 + 24) * 8 * 4 / 8000 ns = 2.44 Gb/s */
  x.fet_bps = UINT64_C(2440000000);
  x.psn_gaps = 1;
  x.messages = 5;
  ck_assert_uint_eq(e.c.nfl, 1);
  fr_check(&e.c.fl[0], &x, "read request span");
  env_free(&e);
}
END_TEST

/* ================================================================ 16 */

START_TEST(t16_no_flows) {
  env e;
  tb f;
  tu_spec h;
  rtel_ctx_stats st;
  env_init(&e);
  /* vendor opcode */
  pk(&e, T0, IP_A, IP_B, QB, 0xC5, 10, 0, 64);
  /* transport version 1 on a WRITE ONLY */
  h = hdr(IP_A, IP_B, QB, OP_WRITE_ONLY, 11);
  h.tver = 1;
  pkh(&e, T0 + 100, &h, 64, 0, 64);
  /* UD SEND ONLY to a QP */
  h = hdr(IP_A, IP_B, 0x001234, 0x64, 12);
  h.deth_qkey = 0x11111111u;
  h.deth_sqpn = 0x000777;
  build(&f, &h, 0, 0, 64);
  feed(&e, T0 + 200, &f);
  /* UD to QP1, a MAD that is not CM (class 0x03, SubnAdm) */
  {
    static const uint8_t mad[256] = {1, 0x03, 2, 0x01};
    h = hdr(IP_A, IP_B, 1, 0x64, 13);
    h.deth_qkey = 0x80010000u;
    h.deth_sqpn = 1;
    h.payload = mad;
    build(&f, &h, 0, 0, sizeof(mad));
    feed(&e, T0 + 300, &f);
  }
  /* RD SEND ONLY: RDETH + DETH */
  h = hdr(IP_A, IP_B, QB, 0x44, 14);
  h.rdeth_eec = 0x000042;
  h.deth_qkey = 0x22222222u;
  h.deth_sqpn = 0x000888;
  build(&f, &h, 0, 0, 64);
  feed(&e, T0 + 400, &f);
  /* control and requests only */
  bk(&e, T0 + 500, 14, 0x00);
  bk(&e, T0 + 510, 14, 0x60);
  cnp(&e, T0 + 600, IP_B, IP_A, QA);
  pk(&e, T0 + 700, IP_A, IP_B, QB, OP_READ_REQ, 15, 4096, 0);
  pk(&e, T0 + 800, IP_A, IP_B, QB, OP_CMP_SWAP, 19, 0, 0);
  pk(&e, T0 + 900, IP_B, IP_A, QA, OP_ATOMIC_ACK, 19, 0, 0);
  /* a CM message other than REQ/REP (RTU) */
  {
    tu_cm cm;
    memset(&cm, 0, sizeof(cm));
    cm.attr = RTEL_CM_RTU;
    cm.tid = 7;
    h = hdr(IP_A, IP_B, 1, 0x64, 16);
    tb_init(&f);
    tu_build_cm_on(&f, &h, &cm);
    feed(&e, T0 + 1000, &f);
  }
  st = stats(&e);
  ck_assert_uint_eq(st.pkts, 12);
  ck_assert_uint_eq(st.pkts_roce, 12);
  ck_assert_uint_eq(st.pkts_unknown_opcode, 1);
  ck_assert_uint_eq(st.pkts_unknown_tver, 1);
  ck_assert_uint_eq(st.flows_created, 0);
  ck_assert_uint_eq(st.flows_active, 0);
  ck_assert_uint_eq(st.messages, 0);
  ck_assert_uint_eq(rtel_ctx_get_expiry(e.ctx), RTEL_TSTAMP_NONE);
  flush(&e, T0 + 2000);
  ck_assert_uint_eq(e.c.nfl, 0);
  ck_assert_uint_eq(e.c.nms, 0);
  /* positive controls: UC and XRC data are flows */
  pk(&e, T0 + 3000, IP_A, IP_B, QB, 0x2A, 20, 64, 64); /* UC WRITE ONLY */
  pk(&e, T0 + 3100, IP_A, IP_B, QB2, 0x24, 30, 0, 64); /* UC SEND ONLY */
  pk(&e, T0 + 3200, IP_A, IP_B, QA2, 0xA4, 40, 0, 64); /* XRC SEND ONLY */
  ck_assert_uint_eq(stats(&e).flows_created, 3);
  flush(&e, T0 + 4000);
  ck_assert_uint_eq(e.c.nfl, 3);
  ck_assert_uint_eq(find_flow(&e, IP_A, IP_B, QB)->ops, RTEL_OP_WRITE);
  ck_assert_uint_eq(find_flow(&e, IP_A, IP_B, QB2)->ops, RTEL_OP_SEND);
  ck_assert_uint_eq(find_flow(&e, IP_A, IP_B, QA2)->bytes, 64);
  env_free(&e);
}
END_TEST

START_TEST(t16_flow_disable) {
  env e;
  rtel_settings s;
  rtel_settings_default(&s);
  s.flow_flags = RTEL_FLOW_DISABLE;
  env_init_s(&e, &s);
  W(&e, T0, 10, 100);
  W(&e, T0 + 100, 11, 100);
  ck_assert_uint_eq(stats(&e).flows_created, 0);
  ck_assert_uint_eq(rtel_ctx_get_expiry(e.ctx), RTEL_TSTAMP_NONE);
  flush(&e, T0 + 1000);
  ck_assert_uint_eq(e.c.nfl, 0);
  ck_assert_uint_eq(e.c.nms, 0);
  env_free(&e);
}
END_TEST

/* ================================================================ extra */

/* NVMe-oF write I/O on one RC QP pair: host A sends command capsules
 * (SEND, A's own request PSNs 1000, 1001) and READ RESPONSEs (whose PSNs
 * are those of the target's READ REQUESTs, 7000.., in the target's PSN
 * space, which its response capsules 7002, 7004 also use) to the target's
 * QP QB. Nothing is lost or resent. The READ RESPONSEs are a flow of their
 * own (rtel_flow_record); none of the three flows has a retransmission, a
 * loss or a PSN gap: 7003 is exactly the PSN the target's next READ
 * REQUEST announced. */
START_TEST(t17_nvmeof_write_pattern) {
  env e;
  FR x;
  env_init(&e);
  cm_pair(&e, T0 - 2000, IP_A, IP_B, QA, QB, 0x5001);
  pk(&e, T0, IP_A, IP_B, QB, OP_SEND_ONLY, 1000, 0, 64);
  pk(&e, T0 + 1000, IP_B, IP_A, QA, OP_READ_REQ, 7000, 2048, 0);
  pk(&e, T0 + 2000, IP_A, IP_B, QB, OP_RRESP_FIRST, 7000, 0, 1024);
  pk(&e, T0 + 3000, IP_A, IP_B, QB, OP_RRESP_LAST, 7001, 0, 1024);
  pk(&e, T0 + 4000, IP_B, IP_A, QA, OP_SEND_ONLY, 7002, 0, 16);
  ctl(&e, T0 + 4100, IP_A, IP_B, QB, 7002, 0x1F);
  pk(&e, T0 + 5000, IP_A, IP_B, QB, OP_SEND_ONLY, 1001, 0, 64);
  pk(&e, T0 + 6000, IP_B, IP_A, QA, OP_READ_REQ, 7003, 1024, 0);
  pk(&e, T0 + 7000, IP_A, IP_B, QB, OP_RRESP_ONLY, 7003, 0, 1024);
  pk(&e, T0 + 8000, IP_B, IP_A, QA, OP_SEND_ONLY, 7004, 0, 16);
  flush(&e, T0 + 9000);
  ck_assert_uint_eq(e.c.nfl, 3);

  fr_init(&x, IP_A, IP_B, QB);
  fr_paired(&x, QA);
  x.ops = RTEL_OP_SEND;
  x.first_ts = T0;
  x.last_ts = T0 + 5000;
  x.fct = 5000;
  x.bytes = 128;
  x.packets = 2;
  /* SEND ONLY of 64, frame 14 + 20 + 8 + 12 + 64 + 4 = 122, after the
   * first: (122 + 24) * 8 / 5000 ns */
  x.fet_bps = UINT64_C(233600000);
  x.messages = 2;
  x.fnr = 0.0;
  fr_check(find_flow_ops(&e, IP_A, IP_B, QB, RTEL_OP_SEND), &x,
           "host capsules");

  fr_init(&x, IP_B, IP_A, QA);
  fr_paired(&x, QB);
  x.ops = RTEL_OP_SEND;
  x.first_ts = T0 + 4000;
  x.last_ts = T0 + 8000;
  x.fct = 4000;
  x.bytes = 32;
  x.packets = 2;
  /* SEND ONLY of 16, frame 14 + 20 + 8 + 12 + 16 + 4 = 74:
   * (74 + 24) * 8 / 4000 ns */
  x.fet_bps = UINT64_C(196000000);
  x.messages = 2;
  x.fnr = 0.0;
  fr_check(find_flow_ops(&e, IP_B, IP_A, QA, RTEL_OP_SEND), &x,
           "target capsules");

  fr_init(&x, IP_A, IP_B, QB);
  fr_paired(&x, QA);
  x.ops = RTEL_OP_READ_RESP;
  x.flags |= RTEL_FLOW_F_RESPONSE; /* the key's class */
  x.first_ts = T0 + 2000;
  x.last_ts = T0 + 7000;
  x.fct = 5000;
  x.bytes = 3072;
  x.packets = 3;
  /* after 7000: 7001 LAST and 7003 ONLY (AETH 4), 1024 each, frame 14 +
   * 20 + 8 + 12 + 4 + 1024 + 4 = 1086: (1086 + 24) * 8 * 2 / 5000 ns */
  x.fet_bps = UINT64_C(3552000000);
  x.messages = 2;
  x.fnr = 0.0;
  fr_check(find_flow_ops(&e, IP_A, IP_B, QB, RTEL_OP_READ_RESP), &x,
           "host READ RESPONSEs (psn_gaps: 7002 is the target's SEND)");
  env_free(&e);
}
END_TEST

/* Same pattern, with one READ RESPONSE lost before the observer. Target
 * B's PSNs: READ REQ 7000, SEND 7001, READ REQ 7002, READ REQ 7003, SEND
 * 7004, READ REQ 7005, SEND 7006, READ REQ 7007 (one response packet
 * each). Host A's responses seen: 7000, 7002, 7005, 7007 (7003 lost
 * upstream); B re-reads 7003 and A resends it. The resent 7003 never
 * passed the observer before: an upstream loss. */
START_TEST(t17_read_resp_loss_location) {
  env e;
  const FR *g;
  env_init(&e);
  cm_pair(&e, T0 - 2000, IP_A, IP_B, QA, QB, 0x5002);
  pk(&e, T0, IP_B, IP_A, QA, OP_READ_REQ, 7000, 512, 0);
  pk(&e, T0 + 100, IP_A, IP_B, QB, OP_RRESP_ONLY, 7000, 0, 512);
  pk(&e, T0 + 200, IP_B, IP_A, QA, OP_SEND_ONLY, 7001, 0, 16);
  pk(&e, T0 + 300, IP_B, IP_A, QA, OP_READ_REQ, 7002, 512, 0);
  pk(&e, T0 + 400, IP_B, IP_A, QA, OP_READ_REQ, 7003, 512, 0);
  pk(&e, T0 + 500, IP_A, IP_B, QB, OP_RRESP_ONLY, 7002, 0, 512);
  /* response 7003 lost before the observer */
  pk(&e, T0 + 700, IP_B, IP_A, QA, OP_SEND_ONLY, 7004, 0, 16);
  pk(&e, T0 + 800, IP_B, IP_A, QA, OP_READ_REQ, 7005, 512, 0);
  pk(&e, T0 + 900, IP_A, IP_B, QB, OP_RRESP_ONLY, 7005, 0, 512);
  pk(&e, T0 + 1000, IP_B, IP_A, QA, OP_SEND_ONLY, 7006, 0, 16);
  pk(&e, T0 + 1100, IP_B, IP_A, QA, OP_READ_REQ, 7007, 512, 0);
  pk(&e, T0 + 1200, IP_A, IP_B, QB, OP_RRESP_ONLY, 7007, 0, 512);
  /* B times out and reads 7003 again; A answers */
  pk(&e, T0 + 5000, IP_B, IP_A, QA, OP_READ_REQ, 7003, 512, 0);
  pk(&e, T0 + 5100, IP_A, IP_B, QB, OP_RRESP_ONLY, 7003, 0, 512);
  flush(&e, T0 + 6000);
  g = find_flow_ops(&e, IP_A, IP_B, QB, RTEL_OP_READ_RESP);
  ck_assert_uint_eq(g->packets, 5);
  ck_assert_uint_eq(g->retx_packets, 1);
  ck_assert_uint_eq(g->retx_after_timeout, 1);
  ck_assert_msg(g->losses_upstream == 1 && g->losses_downstream == 0,
                "READ RESPONSE 7003 never passed the observer: losses "
                "upstream %" PRIu64 ", downstream %" PRIu64
                " (psn_gaps %" PRIu64 ")",
                g->losses_upstream, g->losses_downstream, g->psn_gaps);
  g = find_flow_ops(&e, IP_B, IP_A, QA, RTEL_OP_SEND);
  ck_assert_uint_eq(g->packets, 3);
  ck_assert_uint_eq(g->psn_gaps, 0);
  ck_assert_uint_eq(g->retx_packets, 0);
  env_free(&e);
}
END_TEST

/* A host that only answers the target's READ REQUESTs (NVMe-oF writes,
 * its capsule flow idle): the READ RESPONSEs are the traffic the target
 * NIC marks and answers with CNPs towards the host's QP QA. The CNPs are
 * the READ RESPONSE flow's ("CNPs towards the sender's QP"), not
 * unattributed. */
START_TEST(t17_cnp_read_responses) {
  env e;
  tu_spec h;
  const FR *g;
  env_init(&e);
  cm_pair(&e, T0 - 2000, IP_A, IP_B, QA, QB, 0x5003);
  pk(&e, T0, IP_B, IP_A, QA, OP_READ_REQ, 7000, 4096, 0);
  pk(&e, T0 + 100, IP_A, IP_B, QB, OP_RRESP_FIRST, 7000, 0, 1024);
  h = hdr(IP_A, IP_B, QB, OP_RRESP_MIDDLE, 7001);
  h.tos = TOS(DSCP, 3);
  pkh(&e, T0 + 200, &h, 0, 0, 1024);
  cnp(&e, T0 + 250, IP_B, IP_A, QA);
  pk(&e, T0 + 300, IP_A, IP_B, QB, OP_RRESP_MIDDLE, 7002, 0, 1024);
  cnp(&e, T0 + 350, IP_B, IP_A, QA);
  pk(&e, T0 + 400, IP_A, IP_B, QB, OP_RRESP_LAST, 7003, 0, 1024);
  flush(&e, T0 + 1000);
  ck_assert_uint_eq(e.c.nfl, 1);
  g = find_flow_ops(&e, IP_A, IP_B, QB, RTEL_OP_READ_RESP);
  ck_assert_uint_eq(g->packets, 4);
  ck_assert_uint_eq(g->ecn_ce, 1);
  ck_assert_uint_eq(g->flags, RTEL_FLOW_F_PAIRED | RTEL_FLOW_F_RESPONSE);
  ck_assert_msg(g->cnps == 2 && stats(&e).ctrl_unattributed == 0,
                "CNPs to the READ responder's QP: flow cnps %" PRIu64
                ", ctrl_unattributed %" PRIu64,
                g->cnps, stats(&e).ctrl_unattributed);
  env_free(&e);
}
END_TEST

/* A failing on_flow / on_message makes the call fail and the context
 * unusable. */
/* A callback that fails inside a burst: the count returned is the packets
 * before the one whose processing (or, timed, whose timers) called it; the
 * context has failed. By hand: the third packet is QB's after an idle gap,
 * so QB ends there, its message first (on_message fails); with the timers
 * the idle timers of QB and QB2 run before that packet and fail the same
 * way. Each for the plain loop and the look-ahead path (8192 flows), for
 * rtel_ctx_read_pkts and rtel_ctx_read_pkts_timed, and with the failing
 * packet first in its burst (the error itself). */
START_TEST(t18_burst_failure) {
  static const bpkt p[5] = {{T0, QB, 10},
                            {T0 + 1, QB2, 20},
                            {T0 + IDLE + 10, QB, 11},
                            {T0 + IDLE + 20, QB2, 21},
                            {T0 + IDLE + 30, QB, 12}};
  int v;
  for (v = 0; v < 8; v++) {
    int big = v & 1, timed = (v >> 1) & 1, split = (v >> 2) & 1;
    burst *b = calloc(1, sizeof(*b));
    rtel_ssize n;
    ck_assert_ptr_nonnull(b);
    burst_init(b, p, 5, big);
    b->e.c.fail_msg = 1;
    if (split) { /* the first two alone, then the failing one first */
      ck_assert_int_eq(burst_read(b, 0, 2, timed), 2);
      n = burst_read(b, 2, 3, timed);
      ck_assert_msg(n == RTEL_ERR_CALLBACK_FAILURE, "case %d: %td", v, n);
    } else {
      n = burst_read(b, 0, 5, timed);
      ck_assert_msg(n == 2, "case %d: returned %td, want 2", v, n);
    }
    ck_assert_uint_eq(b->e.c.nms, 1);
    ck_assert_uint_eq(b->e.c.ms[0].dqpn, QB);
    ck_assert_uint_eq(b->e.c.nfl, 0);
    ck_assert_int_eq(burst_read(b, 2, 3, timed), RTEL_ERR_INVALID_STATE);
    env_free(&b->e);
    free(b);
  }
}
END_TEST

START_TEST(t18_callback_failure) {
  env e;
  tb f;
  tu_spec h = hdr(IP_A, IP_B, QB, OP_WRITE_ONLY, 10);
  rtel_pkt_info pi;
  env_init(&e);
  W(&e, T0, 10, 100);
  e.c.fail_flow = 1;
  ck_assert_int_eq(rtel_ctx_flush(e.ctx, T0 + 100), RTEL_ERR_CALLBACK_FAILURE);
  ck_assert_uint_eq(e.c.nfl, 1);
  memset(&pi, 0, sizeof(pi));
  pi.ts = T0 + 200;
  build(&f, &h, 100, 0, 100);
  ck_assert_int_eq(rtel_ctx_read_pkt(e.ctx, &pi, f.b, f.n),
                   RTEL_ERR_INVALID_STATE);
  ck_assert_uint_eq(rtel_ctx_get_expiry(e.ctx), RTEL_TSTAMP_NONE);
  env_free(&e);

  /* A message record is delivered when its ACK passes (the flow paired
   * by RDMA CM): on_message fails there, in the ACK's rtel_ctx_read_pkt. */
  env_init(&e);
  e.c.fail_msg = 1;
  cm_pair(&e, T0 - 1000, IP_A, IP_B, QA, QB, 1);
  memset(&pi, 0, sizeof(pi));
  pi.ts = T0;
  pi.obs = e.obs;
  ck_assert_int_eq(rtel_ctx_read_pkt(e.ctx, &pi, f.b, f.n), 0);
  ck_assert_uint_eq(e.c.nms, 0);
  h = hdr(IP_B, IP_A, QA, OP_ACK, 10);
  build(&f, &h, 0, 0, 0); /* ACK of PSN 10 */
  pi.ts = T0 + 100;
  ck_assert_int_eq(rtel_ctx_read_pkt(e.ctx, &pi, f.b, f.n),
                   RTEL_ERR_CALLBACK_FAILURE);
  ck_assert_uint_eq(e.c.nms, 1);
  ck_assert_uint_eq(e.c.ms[0].end, RTEL_END_ACKED);
  ck_assert_int_eq(rtel_ctx_handle_expiry(e.ctx, T0 + 200),
                   RTEL_ERR_INVALID_STATE);
  env_free(&e);

  /* No ACK: the record is delivered at the flush, which fails. */
  env_init(&e);
  e.c.fail_msg = 1;
  W(&e, T0, 10, 100);
  ck_assert_uint_eq(e.c.nms, 0);
  ck_assert_int_eq(rtel_ctx_flush(e.ctx, T0 + 100), RTEL_ERR_CALLBACK_FAILURE);
  ck_assert_uint_eq(e.c.nms, 1);
  ck_assert_uint_eq(e.c.ms[0].end, RTEL_END_FLUSH);
  ck_assert_int_eq(rtel_ctx_handle_expiry(e.ctx, T0 + 200),
                   RTEL_ERR_INVALID_STATE);
  env_free(&e);
}
END_TEST

/* ================================================================ main */

static Suite *flow_suite(void) {
  Suite *s = suite_create("flow");
  TCase *tc = tcase_create("scenarios");
  tcase_set_timeout(tc, 120);
  tcase_add_checked_fixture(tc, NULL, teardown);
  tcase_add_test(tc, t01_write_inorder_flush);
  tcase_add_test(tc, t01_idle_boundary);
  tcase_add_test(tc, t01_idle_by_packet);
  tcase_add_test(tc, t01_expiry_two_flows);
  tcase_add_test(tc, t01_expiry_within_tick);
  tcase_add_test(tc, t01_evict_least_recent);
  tcase_add_test(tc, t01_tick_boundary);
  tcase_add_test(tc, t01_idle_in_timed_burst);
  tcase_add_test(tc, t01_ipv6_qinq);
  tcase_add_test(tc, t01_obs_in_key);
  tcase_add_test(tc, t01_timestamps_out_of_order);
  tcase_add_test(tc, t02_upstream_loss);
  tcase_add_test(tc, t03_downstream_loss);
  tcase_add_test(tc, t04_timeout_retx);
  tcase_add_test(tc, t05_two_episodes);
  tcase_add_test(tc, t05_two_nak_episodes);
  tcase_add_test(tc, t05_two_gaps_one_episode);
  tcase_add_test(tc, t05_stale_gap_then_upstream);
  tcase_add_test(tc, t06_psn_wrap);
  tcase_add_test(tc, t07_nak_classes);
  tcase_add_test(tc, t07_rnr_drives_retx);
  tcase_add_test(tc, t07_ctrl_unattributed);
  tcase_add_test(tc, t07_ack_after_flow_gone);
  tcase_add_test(tc, t08_cnp_ecn);
  tcase_add_test(tc, t09_cm_pairing);
  tcase_add_test(tc, t09_cm_mismatch);
  tcase_add_test(tc, t10_psn_pairing);
  tcase_add_test(tc, t10_one_ack_no_pair);
  tcase_add_test(tc, t10_held_nak_not_reused);
  tcase_add_test(tc, t10_psn_pairing_reverse_flow);
  tcase_add_test(tc, t11_many_qps);
  tcase_add_test(tc, t11_overlapping_psns);
  tcase_add_test(tc, t12_flood_evict);
  tcase_add_test(tc, t12_flood_no_evict);
  tcase_add_test(tc, t12_pair_capacity_default);
  tcase_add_test(tc, t13_active_boundary);
  tcase_add_test(tc, t13_flush_then_active);
  tcase_add_test(tc, t13_active_timeout);
  tcase_add_test(tc, t13_message_across_restart);
  tcase_add_test(tc, t13_restart_first_ts);
  tcase_add_test(tc, t13_active_timeout_late);
  tcase_add_test(tc, t14_messages);
  tcase_add_test(tc, t14_message_retx);
  tcase_add_test(tc, t14_message_slot_reuse);
  tcase_add_test(tc, t14_own_slot_and_slab);
  tcase_add_test(tc, t14_open_bound_counts_own_slots);
  tcase_add_test(tc, t15_read_request_span);
  tcase_add_test(tc, t16_no_flows);
  tcase_add_test(tc, t16_flow_disable);
  tcase_add_test(tc, t17_nvmeof_write_pattern);
  tcase_add_test(tc, t17_read_resp_loss_location);
  tcase_add_test(tc, t17_cnp_read_responses);
  tcase_add_test(tc, t18_callback_failure);
  tcase_add_test(tc, t18_burst_failure);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(flow_suite());
  int failed;
  srunner_run_all(sr, CK_ENV);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
