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

/* ctx->ahead: on for a flow table of >= 2 MiB of entries, off below, off
 * without a flow table. By hand: the entry is 448 bytes (seven lines: two
 * of the flow's data path, two of its own open-message slot, three more),
 * so 2 MiB holds 4681.1 entries: 4682 flows take it, 4681 do not. */
START_TEST(test_ahead_choice) {
  static const struct {
    uint32_t max_flows;
    uint32_t flow_flags;
    int ahead;
  } c[] = {{0, 0, 0}, /* default 4096 flows: 1.8 MB */
           {4681, 0, 0},
           {4682, 0, 1},
           {100000, 0, 1},
           {100000, RTEL_FLOW_DISABLE, 0}};
  size_t i;
  ck_assert_uint_eq(rtel__flow_entry_size(), 448);
  for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
    rtel_ctx *ctx = NULL;
    rtel_settings s;
    rtel_settings_default(&s);
    s.max_flows = c[i].max_flows;
    s.flow_flags = c[i].flow_flags;
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

Suite *rtel_test_ahead_suite(void) {
  Suite *s = suite_create("ahead_internal");
  TCase *tc = tcase_create("choice");
  tcase_add_test(tc, test_ahead_choice);
  tcase_add_test(tc, test_own_slot_first);
  suite_add_tcase(s, tc);
  return s;
}
