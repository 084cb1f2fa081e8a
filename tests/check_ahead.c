/* SPDX-License-Identifier: MIT */
/*
 * White-box tests of the hub's burst look-ahead (lib/rtel_ctx.c
 * read_burst()): which contexts take it, that the flow table's memory is
 * laid out as the look-ahead and the per-packet path assume, and that
 * without a flow table the pairing look-ahead counts what one packet at a
 * time does; and of the hub's fused fast path (read_fast()): which
 * contexts take it, which packets, and that it counts what the general
 * path counts.
 */
#include "rtel_test_util.h"

#include <stdint.h>
#include <string.h>

#include "rtel_ctx.h"

/* ctx->ahead: on for a flow table of >= 2 MiB of entries, off below;
 * without a flow table, on for a pairing table of >= 2 MiB of entries when
 * NVMe-oF is on (its queues need the pairs: every data packet and ACK
 * looks its QP up there), off without NVMe-oF. By hand: the flow entry is
 * 448 bytes (seven lines: two of the flow's data path, two of its own
 * open-message slot, three more), so 2 MiB holds 4681.1 entries: 4682
 * flows take it, 4681 do not; a pairing entry is 112 bytes, so 2 MiB holds
 * 18724.6: 18725 pairs take it, 18724 do not (max_qp_pairs 0 is 2 x
 * max_flows: 8192 for the default 4096). */
START_TEST(test_ahead_choice) {
  static const struct {
    uint32_t max_flows;
    uint32_t flow_flags;
    uint32_t nvme_flags;
    uint32_t max_qp_pairs;
    int ahead;
  } c[] = {{0, 0, 0, 0, 0}, /* default 4096 flows: 1.8 MB */
           {4681, 0, 0, 0, 0},
           {4682, 0, 0, 0, RTEL__AHEAD_FLOWS},
           {100000, 0, 0, 0, RTEL__AHEAD_FLOWS},
           {100000, 0, RTEL_NVME_DISABLE, 0, RTEL__AHEAD_FLOWS},
           {0, RTEL_FLOW_DISABLE, 0, 0, 0}, /* 8192 pairs: 0.9 MB */
           {0, RTEL_FLOW_DISABLE, 0, 18724, 0},
           {0, RTEL_FLOW_DISABLE, 0, 18725, RTEL__AHEAD_PAIRS},
           {100000, RTEL_FLOW_DISABLE, 0, 0, RTEL__AHEAD_PAIRS}, /* 200000 */
           {100000, RTEL_FLOW_DISABLE, RTEL_NVME_DISABLE, 0, 0},
           {0, RTEL_FLOW_DISABLE, RTEL_NVME_DISABLE, 18725, 0}};
  size_t i;
  ck_assert_uint_eq(rtel__flow_entry_size(), 448);
  ck_assert_uint_eq(sizeof(rtel__pair), 112);
  for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
    rtel_ctx *ctx = NULL;
    rtel_settings s;
    rtel_settings_default(&s);
    s.max_flows = c[i].max_flows;
    s.flow_flags = c[i].flow_flags;
    s.nvme_flags = c[i].nvme_flags;
    s.max_qp_pairs = c[i].max_qp_pairs;
    ck_assert_int_eq(rtel_ctx_new(&ctx, &s, NULL, NULL, NULL), 0);
    ck_assert_msg(ctx->ahead == c[i].ahead, "case %zu: ahead %d", i,
                  ctx->ahead);
    if (!(c[i].flow_flags & RTEL_FLOW_DISABLE)) {
      /* the entries start on a cache line, the stride is whole lines */
      ck_assert_uint_eq((uintptr_t)ctx->ft.flows.ents % 64u, 0);
      ck_assert_uint_eq(ctx->ft.flows.stride % 64u, 0);
      ck_assert_uint_eq((uintptr_t)ctx->ft.msgs % 64u, 0);
      /* nothing used yet: no entry taken from the array */
      ck_assert_uint_eq(ctx->ft.flows.fresh, 0);
      ck_assert_uint_eq(ctx->ft.msg_fresh, 0);
    }
    rtel_ctx_del(ctx);
  }
}
END_TEST

/* A WRITE ONLY (opcode 0x0A) of 256 bytes to QP |qpn|, PSN |psn|. */
static void write_only(rtel_ctx *ctx, rtel_tstamp ts, uint32_t qpn,
                       uint32_t psn) {
  tb t;
  tu_spec h;
  rtel_pkt_info pi;
  tu_spec_init(&h, 0x0A, 256);
  h.dqpn = qpn;
  h.psn = psn;
  h.reth_len = 256;
  tb_init(&t);
  tu_build(&t, &h);
  memset(&pi, 0, sizeof(pi));
  pi.ts = ts;
  ck_assert_int_eq(rtel_ctx_read_pkt(ctx, &pi, t.b, t.n), 0);
}

/* The flow entry's own message slot comes first: flows with one message
 * open each leave the slab untouched (no entry taken from it); a flow's
 * second and third open messages take its first two entries. */
START_TEST(test_own_slot_first) {
  rtel_ctx *ctx = NULL;
  rtel_settings s;
  uint32_t q;
  rtel_settings_default(&s);
  ck_assert_int_eq(rtel_ctx_new(&ctx, &s, NULL, NULL, NULL), 0);
  for (q = 0; q < 10; q++) {
    write_only(ctx, 1000 + q, 0x100 + q, 7);
  }
  ck_assert_uint_eq(ctx->ft.msg_open, 10);
  ck_assert_uint_eq(ctx->ft.msg_fresh, 0);
  write_only(ctx, 2000, 0x100, 8);
  write_only(ctx, 2001, 0x100, 9);
  ck_assert_uint_eq(ctx->ft.msg_open, 12);
  ck_assert_uint_eq(ctx->ft.msg_fresh, 2);
  ck_assert_int_eq(rtel_ctx_flush(ctx, 3000), 0);
  ck_assert_uint_eq(ctx->ft.msg_open, 0);
  rtel_ctx_del(ctx);
}
END_TEST

/* 10.0.0.|last| as the library keeps it: IPv4-mapped IPv6. */
static void mapped4(uint8_t a[16], uint8_t last) {
  memset(a, 0, 16);
  a[10] = a[11] = 0xff;
  a[12] = 10;
  a[15] = last;
}

/* One packet of test_ahead_pairs_without_flows: a WRITE ONLY of 64 bytes
 * from 10.0.0.1 to QP |qpn| on 10.0.0.2 (|ack| 0), or an ACK from 10.0.0.2
 * to QP |qpn| on 10.0.0.1 (|ack| 1), with |psn|. */
typedef struct pair_pkt {
  int ack;
  uint32_t qpn;
  uint32_t psn;
} pair_pkt;

/* Pairing from ACK PSNs without a flow table, through the look-ahead and
 * without it. Data of connection q goes to QP 0x100 + q, its ACKs to QP
 * 0x900 + q; two ACKs in a row naming recent data PSNs of one QP pair it,
 * and a PSN two QPs of a host pair both sent names neither. By hand:
 *   q 0-19   data PSNs P, P + 1 (P = 1000 + 2q, its own), then ACKs naming
 *            them: paired (20);
 *   q 20-29  ACKs naming PSNs never sent (3000 + 2q, + 1): not paired;
 *   q 30-39  data P, ACK P + 1 (not sent yet: no hit), data P + 1, ACK P
 *            (one hit): not paired; handled early or twice, it would be;
 *   q 40-59  data P, P + 1 (P = 7000 + 2q), then connection q - 40, paired
 *            above, sends the same two PSNs, then ACKs for q name them:
 *            paired (20) only if the paired QP's data left the PSN index
 *            alone, which takes finding its pairing entry, i.e. the right
 *            key hash with the context's seed (a nonzero one here).
 * So 40 pairs from PSNs. The 280 packets go to rtel_ctx_read_pkts() in
 * bursts of 32: a context whose pairing table takes the look-ahead (20000
 * pairs: 2.1 MiB) and the same context with it turned off must both count
 * 40; the first must have taken the pairing look-ahead. */
START_TEST(test_ahead_pairs_without_flows) {
  enum { NP = 20 * 4 + 10 * 4 + 10 * 4 + 20 * 6 };
  static tb pk[NP];
  pair_pkt w[NP];
  const uint8_t *pkts[NP];
  size_t lens[NP];
  rtel_pkt_info pis[NP];
  uint8_t a[16], b[16];
  size_t i, n = 0;
  uint32_t q;
  int k;

#define PP(A, Q, PSN) (w[n].ack = (A), w[n].qpn = (Q), w[n].psn = (PSN), n++)
  for (q = 0; q < 20; q++) {
    uint32_t p = 1000 + 2 * q;
    PP(0, 0x100 + q, p), PP(0, 0x100 + q, p + 1);
    PP(1, 0x900 + q, p), PP(1, 0x900 + q, p + 1);
  }
  for (q = 20; q < 30; q++) {
    uint32_t p = 1000 + 2 * q;
    PP(0, 0x100 + q, p), PP(0, 0x100 + q, p + 1);
    PP(1, 0x900 + q, 3000 + 2 * q), PP(1, 0x900 + q, 3001 + 2 * q);
  }
  for (q = 30; q < 40; q++) {
    uint32_t p = 1000 + 2 * q;
    PP(0, 0x100 + q, p), PP(1, 0x900 + q, p + 1);
    PP(0, 0x100 + q, p + 1), PP(1, 0x900 + q, p);
  }
  for (q = 40; q < 60; q++) {
    uint32_t p = 7000 + 2 * q;
    PP(0, 0x100 + q, p), PP(0, 0x100 + q, p + 1);
    PP(0, 0x100 + q - 40, p), PP(0, 0x100 + q - 40, p + 1);
    PP(1, 0x900 + q, p), PP(1, 0x900 + q, p + 1);
  }
#undef PP
  ck_assert_uint_eq(n, NP);
  mapped4(a, 1);
  mapped4(b, 2);
  for (i = 0; i < NP; i++) {
    tu_spec h;
    tu_spec_init(&h, w[i].ack ? 0x11 : 0x0A, w[i].ack ? 0 : 64);
    memcpy(h.src, w[i].ack ? b : a, 16);
    memcpy(h.dst, w[i].ack ? a : b, 16);
    h.dqpn = w[i].qpn;
    h.psn = w[i].psn;
    if (!w[i].ack) {
      h.reth_len = 64;
    }
    tb_init(&pk[i]);
    tu_build(&pk[i], &h);
    pkts[i] = pk[i].b;
    lens[i] = pk[i].n;
    memset(&pis[i], 0, sizeof(pis[i]));
    pis[i].ts = 1000 + i;
  }
  for (k = 0; k < 2; k++) {
    rtel_ctx *ctx = NULL;
    rtel_settings s;
    rtel_ctx_stats st;
    int took = 0;
    rtel_settings_default(&s);
    s.flow_flags = RTEL_FLOW_DISABLE;
    s.max_qp_pairs = 20000;
    s.hash_seed = UINT64_C(0x0123456789abcdef);
    ck_assert_int_eq(rtel_ctx_new(&ctx, &s, NULL, NULL, NULL), 0);
    ck_assert_int_eq(ctx->ahead, RTEL__AHEAD_PAIRS);
    if (k == 1) {
      ctx->ahead = 0; /* the second: one packet at a time */
    }
    for (i = 0; i < NP; i += 32) {
      size_t m = NP - i < 32 ? NP - i : 32;
      ck_assert_int_eq(rtel_ctx_read_pkts(ctx, pis + i, pkts + i, lens + i, m),
                       (rtel_ssize)m);
      for (q = 0; q < RTEL__AHEAD; q++) {
        took |= ctx->ahead_pkts[q].has == RTEL__HINT_PAIR;
      }
    }
    ck_assert_int_eq(took, k == 0);
    ck_assert_int_eq(rtel_ctx_get_stats(ctx, &st), 0);
    ck_assert_uint_eq(st.pkts_roce, NP);
    ck_assert_uint_eq(st.pairs_psn, 40);
    ck_assert_uint_eq(st.pairs_cm, 0);
    rtel_ctx_del(ctx);
  }
}
END_TEST

/* ctx->fast (fast_pays()): the fused fast path only for a flow table
 * without anything else that reads a data packet's decoded header: no
 * on_packet, no NVMe-oF; Ethernet; no ICRC check. */
static int fast_on_packet(rtel_ctx *ctx, const rtel_pkt_info *pi,
                          const rtel_pkt_hd *hd, const uint8_t *pkt,
                          size_t len, void *ud) {
  (void)ctx;
  (void)pi;
  (void)hd;
  (void)pkt;
  (void)len;
  (void)ud;
  return 0;
}

START_TEST(test_fast_choice) {
  static const struct {
    uint32_t flow_flags, nvme_flags, decode_flags, linktype;
    int on_packet, fast;
  } c[] = {{0, 0, 0, 0, 0, 0}, /* the defaults: NVMe-oF on */
           {0, RTEL_NVME_DISABLE, 0, 0, 0, 1},
           {0, RTEL_NVME_DISABLE, 0, RTEL_LINK_ETHERNET, 0, 1},
           {0, RTEL_NVME_DISABLE, 0, 0, 1, 0},
           {0, RTEL_NVME_DISABLE, RTEL_DECODE_VERIFY_ICRC, 0, 0, 0},
           {0, RTEL_NVME_DISABLE, 0, RTEL_LINK_RAW, 0, 0},
           {RTEL_FLOW_DISABLE, RTEL_NVME_DISABLE, 0, 0, 0, 0}};
  size_t i;
  for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
    rtel_ctx *ctx = NULL;
    rtel_settings s;
    rtel_callbacks cb;
    rtel_settings_default(&s);
    memset(&cb, 0, sizeof(cb));
    s.flow_flags = c[i].flow_flags;
    s.nvme_flags = c[i].nvme_flags;
    s.decode_flags = c[i].decode_flags;
    s.linktype = c[i].linktype;
    cb.on_packet = c[i].on_packet ? fast_on_packet : NULL;
    ck_assert_int_eq(rtel_ctx_new(&ctx, &s, &cb, NULL, NULL), 0);
    ck_assert_msg(ctx->fast == c[i].fast, "case %zu: fast %d", i, ctx->fast);
    rtel_ctx_del(ctx);
  }
}
END_TEST

/* The records of one context of test_fast_same. */
typedef struct fast_recs {
  rtel_flow_record flow[16];
  rtel_msg_record msg[32];
  size_t nflow, nmsg;
} fast_recs;

static int fast_on_flow(rtel_ctx *ctx, const rtel_flow_record *f, void *ud) {
  fast_recs *r = ud;
  (void)ctx;
  ck_assert_uint_lt(r->nflow, 16);
  r->flow[r->nflow++] = *f;
  return 0;
}

static int fast_on_msg(rtel_ctx *ctx, const rtel_msg_record *m, void *ud) {
  fast_recs *r = ud;
  (void)ctx;
  ck_assert_uint_lt(r->nmsg, 32);
  r->msg[r->nmsg++] = *m;
  return 0;
}

/* The fused fast path gives what the general path gives, and takes what
 * it should. Three contexts with the flow table alone (idle timeout 5 ms,
 * so LRU ticks of 65536 ns; active timeout 8 ms; messages settle 1 PSN and
 * 1 us after their end) read the same packets: the first has an on_packet,
 * so every packet takes the general path; the second has none
 * (ctx->fast) and reads one packet at a time; the third is like the second
 * but reads them in bursts of two through the look-ahead (forced on), which
 * decodes the fast path's packets ahead only as far as rtel__decode_data()
 * goes. By hand, the packets that continue their flow's open message in
 * PSN order, the flow neither idle nor due for its active timeout, with an
 * RC or UC SEND or WRITE MIDDLE or LAST on Ethernet, are the fast path's
 * (the "fast" column); the others are not: a FIRST, a gap, a resend, no
 * message under way, a new flow, a flow that ends idle or restarts, READ
 * RESPONSE, an ACK, a raw IP frame. That a packet took the fast path shows
 * in the general path's decode result (ctx->hd, or the look-ahead slot's),
 * which the fast path leaves alone. The fast path moves flows in the LRU
 * lists (packets 6, 9, 16 start a tick), delivers a settled message
 * (packet 9 settles the message of PSNs 10-16), takes a PSN wrap (20, 21)
 * and a timestamp older than its flow's latest (28). Flow and message
 * records and the counters of the three contexts must be equal byte for
 * byte. */
START_TEST(test_fast_same) {
  static const struct {
    rtel_tstamp ts;
    uint8_t opcode;
    uint32_t qpn, psn;
    int v6;      /* IPv6 with a VLAN tag; else IPv4 */
    int raw;     /* a raw IP frame (rtel_pkt_info.linktype RTEL_LINK_RAW) */
    uint8_t tos; /* ECN in the low bits */
    uint8_t fecn;
    size_t cap; /* a mirror's copy of this many bytes; 0: all */
    int fast;
  } p[] = {
      /* 1-9: RC WRITE to QP 0x100 */
      {1000, 0x06, 0x100, 10, 0, 0, 0, 0, 0, 0},   /* FIRST */
      {1100, 0x07, 0x100, 11, 0, 0, 0, 0, 0, 1},   /* MIDDLE */
      {1200, 0x07, 0x100, 12, 0, 0, 3, 0, 0, 1},   /* MIDDLE, CE */
      {1300, 0x07, 0x100, 14, 0, 0, 0, 0, 0, 0},   /* a gap (13) */
      {1400, 0x07, 0x100, 13, 0, 0, 0, 0, 0, 0},   /* resend into it */
      {80000, 0x07, 0x100, 15, 0, 0, 0, 1, 0, 1},  /* FECN; tick 1 */
      {80100, 0x08, 0x100, 16, 0, 0, 0, 0, 64, 1}, /* LAST, cut copy */
      {80200, 0x07, 0x100, 17, 0, 0, 0, 0, 0, 0},  /* no message open */
      {150000, 0x08, 0x100, 18, 0, 0, 0, 0, 0, 1}, /* tick 2; settles */
      /* 10-11: RC SEND to QP 0x200, IPv6 */
      {150100, 0x00, 0x200, 100, 1, 0, 0, 0, 0, 0}, /* FIRST */
      {150200, 0x01, 0x200, 101, 1, 0, 0, 0, 0, 1}, /* MIDDLE */
      /* 12-13: UC WRITE to QP 0x300 */
      {150300, 0x27, 0x300, 40, 0, 0, 0, 0, 0, 0}, /* MIDDLE, new flow */
      {150400, 0x27, 0x300, 41, 0, 0, 0, 0, 0, 1}, /* its next */
      /* 14-16 */
      {150500, 0x0E, 0x400, 7, 0, 0, 0, 0, 0, 0},   /* READ RESP MIDDLE */
      {150600, 0x11, 0x500, 18, 0, 0, 0, 0, 0, 0},  /* ACK */
      {300000, 0x02, 0x200, 102, 1, 0, 0, 0, 0, 1}, /* SEND LAST; tick 4 */
      /* 17-18: raw IP frames to QP 0x800 */
      {300100, 0x06, 0x800, 5, 0, 1, 0, 0, 0, 0}, /* FIRST */
      {300200, 0x07, 0x800, 6, 0, 1, 0, 0, 0, 0}, /* MIDDLE, not Ethernet */
      /* 19-21: QP 0x700 across the PSN wrap */
      {300300, 0x06, 0x700, 0xfffffe, 0, 0, 0, 0, 0, 0},
      {300400, 0x07, 0x700, 0xffffff, 0, 0, 0, 0, 0, 1},
      {300500, 0x08, 0x700, 0, 0, 0, 0, 0, 0, 1},
      /* 22-25: QP 0x600 reaches its active timeout (8 ms) */
      {4000000, 0x06, 0x600, 1, 0, 0, 0, 0, 0, 0},
      {8000000, 0x07, 0x600, 2, 0, 0, 0, 0, 0, 1},
      {12100000, 0x07, 0x600, 3, 0, 0, 0, 0, 0, 0}, /* restarts */
      {12100100, 0x07, 0x600, 4, 0, 0, 0, 0, 0, 1},
      /* 26-28: QP 0x300 again, idle (5 ms) since 150400 */
      {20000000, 0x27, 0x300, 42, 0, 0, 0, 0, 0, 0}, /* ends, then new */
      {20000100, 0x27, 0x300, 43, 0, 0, 0, 0, 0, 1},
      {19999950, 0x27, 0x300, 44, 0, 0, 0, 0, 0, 1}, /* older time */
  };
  enum { NP = sizeof(p) / sizeof(p[0]) };
  static fast_recs rec[3];
  static tb t[NP];
  rtel_pkt_info pis[NP];
  const uint8_t *pkts[NP];
  size_t lens[NP];
  rtel_ctx *ctx[3] = {NULL, NULL, NULL};
  rtel_ctx_stats st[3];
  size_t i, k, nfast = 0;
  memset(rec, 0, sizeof(rec));
  for (k = 0; k < 3; k++) {
    rtel_settings s;
    rtel_callbacks cb;
    rtel_settings_default(&s);
    s.nvme_flags = RTEL_NVME_DISABLE;
    s.flow_idle_timeout = 5000000;
    s.flow_active_timeout = 8000000;
    s.msg_settle_psns = 1;
    s.msg_settle_ns = 1000;
    memset(&cb, 0, sizeof(cb));
    cb.on_packet = k == 0 ? fast_on_packet : NULL;
    cb.on_flow = fast_on_flow;
    cb.on_message = fast_on_msg;
    ck_assert_int_eq(rtel_ctx_new(&ctx[k], &s, &cb, NULL, &rec[k]), 0);
    ck_assert_int_eq(ctx[k]->fast, k != 0);
    ck_assert_int_eq(ctx[k]->ahead, 0);
  }
  ctx[2]->ahead = RTEL__AHEAD_FLOWS; /* (a test hook: small tables) */
  for (i = 0; i < NP; i++) {
    tu_spec h;
    rtel_pkt_info *pi = &pis[i];
    tu_spec_init(&h, p[i].opcode, 256);
    h.dqpn = p[i].qpn;
    h.psn = p[i].psn;
    h.tos = p[i].tos;
    h.fecn = p[i].fecn;
    h.raw_ip = p[i].raw;
    if (p[i].v6) {
      h.ipver = 6;
      h.nvlan = 1;
    }
    if (p[i].opcode == 0x06) {
      h.reth_len = 1024;
    }
    tb_init(&t[i]);
    tu_build(&t[i], &h);
    memset(pi, 0, sizeof(*pi));
    pi->ts = p[i].ts;
    pi->wire_len = (uint32_t)t[i].n;
    pi->linktype = p[i].raw ? RTEL_LINK_RAW : 0;
    pkts[i] = t[i].b;
    lens[i] = p[i].cap ? p[i].cap : t[i].n;
    nfast += (size_t)p[i].fast;
  }
  ck_assert_uint_eq(nfast, 14);
  /* one at a time */
  for (i = 0; i < NP; i++) {
    for (k = 0; k < 2; k++) {
      ctx[k]->hd.psn = 0xffffffffu; /* no PSN is this */
      ck_assert_int_eq(rtel_ctx_read_pkt(ctx[k], &pis[i], pkts[i], lens[i]),
                       0);
    }
    ck_assert_uint_eq(ctx[0]->hd.psn, p[i].psn);
    ck_assert_msg((ctx[1]->hd.psn == 0xffffffffu) == p[i].fast,
                  "packet %zu: fast path %d, expected %d", i + 1,
                  ctx[1]->hd.psn == 0xffffffffu, p[i].fast);
  }
  /* in bursts of two: packet j of a call is in look-ahead slot j */
  for (i = 0; i < NP; i += 2) {
    size_t n = NP - i < 2 ? NP - i : 2;
    for (k = 0; k < 2; k++) {
      ctx[2]->ahead_pkts[k].hd.psn = 0xffffffffu;
    }
    ctx[2]->hd.psn = 0xffffffffu;
    ck_assert_int_eq(
        rtel_ctx_read_pkts(ctx[2], &pis[i], &pkts[i], &lens[i], n),
        (rtel_ssize)n);
    for (k = 0; k < n; k++) {
      /* (a burst of one is one packet at a time) */
      uint32_t psn = n == 1 ? ctx[2]->hd.psn : ctx[2]->ahead_pkts[k].hd.psn;
      ck_assert_msg((psn == 0xffffffffu) == p[i + k].fast,
                    "burst, packet %zu: fast path %d, expected %d", i + k + 1,
                    psn == 0xffffffffu, p[i + k].fast);
    }
  }
  for (k = 0; k < 3; k++) {
    ck_assert_int_eq(rtel_ctx_flush(ctx[k], 21000000), 0);
    ck_assert_int_eq(rtel_ctx_get_stats(ctx[k], &st[k]), 0);
  }
  ck_assert_uint_eq(st[0].pkts, NP);
  ck_assert_uint_eq(st[0].pkts_truncated, 1);
  /* 0x100, 0x200, 0x300 twice (it ended idle), 0x400, 0x800, 0x700,
   * 0x600 twice (it restarted) */
  ck_assert_uint_eq(rec[0].nflow, 9);
  ck_assert_uint_ge(rec[0].nmsg, 8);
  for (k = 1; k < 3; k++) {
    ck_assert_int_eq(memcmp(&st[0], &st[k], sizeof(st[0])), 0);
    ck_assert_uint_eq(rec[k].nflow, rec[0].nflow);
    ck_assert_uint_eq(rec[k].nmsg, rec[0].nmsg);
    for (i = 0; i < rec[0].nflow; i++) {
      ck_assert_msg(memcmp(&rec[0].flow[i], &rec[k].flow[i],
                           sizeof(rec[0].flow[i])) == 0,
                    "context %zu: flow record %zu differs", k, i);
    }
    for (i = 0; i < rec[0].nmsg; i++) {
      ck_assert_msg(
          memcmp(&rec[0].msg[i], &rec[k].msg[i], sizeof(rec[0].msg[i])) == 0,
          "context %zu: message record %zu differs", k, i);
    }
  }
  for (k = 0; k < 3; k++) {
    rtel_ctx_del(ctx[k]);
  }
}
END_TEST

Suite *rtel_test_ahead_suite(void) {
  Suite *s = suite_create("ahead_internal");
  TCase *tc = tcase_create("choice");
  tcase_add_test(tc, test_ahead_choice);
  tcase_add_test(tc, test_own_slot_first);
  tcase_add_test(tc, test_ahead_pairs_without_flows);
  tcase_add_test(tc, test_fast_choice);
  tcase_add_test(tc, test_fast_same);
  suite_add_tcase(s, tc);
  return s;
}
