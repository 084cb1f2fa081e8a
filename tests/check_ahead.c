/* SPDX-License-Identifier: MIT */
/*
 * White-box tests of the hub's burst look-ahead (lib/rtel_ctx.c
 * read_burst()): which contexts take it, and that the flow table's memory
 * is laid out as the look-ahead and the per-packet path assume.
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
 * 18724.6: 18725 pairs take it, 18724 do not (the default without a flow
 * table: 2 x max_flows, 8192 for the default 4096). */
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

/* Pairing from ACK PSNs without a flow table, through the look-ahead and
 * without it. Connection q (q < 40) sends WRITE ONLYs with PSNs 1000 + 2q
 * and 1001 + 2q (its own: a PSN two QPs of a host pair both used names
 * neither) from 10.0.0.1 to QP 0x100 + q on 10.0.0.2, which acknowledges
 * both on QP 0x900 + q (ACKs naming those PSNs): two ACKs in a row naming
 * recent PSNs of one flow pair it, so by hand 40 pairs are learned from
 * PSNs; 8 more connections are acknowledged with PSNs never sent (3000 +
 * 2q, 3001 + 2q) and stay unpaired. The 192 packets go to
 * rtel_ctx_read_pkts() in
 * bursts of 32: a context whose pairing table takes the look-ahead (20000
 * pairs: 2.1 MiB) and the same context with it turned off must count
 * what the hand count says. */
START_TEST(test_ahead_pairs_without_flows) {
  enum { NC = 48, NP = NC * 4 };
  static tb pk[NP];
  const uint8_t *pkts[NP];
  size_t lens[NP];
  rtel_pkt_info pis[NP];
  rtel_ctx *ctx[2];
  uint8_t a[16], b[16];
  size_t i, n = 0;
  int k;

  mapped4(a, 1);
  mapped4(b, 2);
  for (i = 0; i < NC; i++) {
    int j;
    for (j = 0; j < 4; j++) {
      tu_spec h;
      int ack = j >= 2;
      tu_spec_init(&h, ack ? 0x11 : 0x0A, ack ? 0 : 64);
      memcpy(h.src, ack ? b : a, 16);
      memcpy(h.dst, ack ? a : b, 16);
      h.dqpn = (uint32_t)((ack ? 0x900 : 0x100) + i);
      h.psn = (uint32_t)((ack && i >= 40 ? 3000 : 1000) + 2 * i + (j & 1));
      if (!ack) {
        h.reth_len = 64;
      }
      tb_init(&pk[n]);
      tu_build(&pk[n], &h);
      pkts[n] = pk[n].b;
      lens[n] = pk[n].n;
      memset(&pis[n], 0, sizeof(pis[n]));
      pis[n].ts = 1000 + n;
      n++;
    }
  }
  for (k = 0; k < 2; k++) {
    rtel_settings s;
    rtel_ctx_stats st;
    rtel_settings_default(&s);
    s.flow_flags = RTEL_FLOW_DISABLE;
    s.max_qp_pairs = 20000;
    ck_assert_int_eq(rtel_ctx_new(&ctx[k], &s, NULL, NULL, NULL), 0);
    ck_assert_int_eq(ctx[k]->ahead, RTEL__AHEAD_PAIRS);
    if (k == 1) {
      ctx[k]->ahead = 0; /* the second: one packet at a time */
    }
    for (i = 0; i < NP; i += 32) {
      ck_assert_int_eq(
          rtel_ctx_read_pkts(ctx[k], pis + i, pkts + i, lens + i, 32), 32);
    }
    ck_assert_int_eq(rtel_ctx_get_stats(ctx[k], &st), 0);
    ck_assert_uint_eq(st.pkts_roce, NP);
    ck_assert_uint_eq(st.pairs_psn, 40);
    ck_assert_uint_eq(st.pairs_cm, 0);
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
  suite_add_tcase(s, tc);
  return s;
}
