/* SPDX-License-Identifier: MIT */
/*
 * rtel_ctx_*: lifecycle, versioned structs, counters, callbacks, burst
 * reads, the statistics timer and the allocator contract.
 */
#define _POSIX_C_SOURCE 200809L

#include "rtel_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static rtel_ctx *const SENTINEL = (rtel_ctx *)(uintptr_t)0x5E7;

/* ------------------------------------------------------------ packets */

#define NSCRIPT 19

typedef struct scripted {
  tb t;
  size_t caplen;     /* bytes handed in */
  uint32_t wire_len; /* rtel_pkt_info.wire_len (0 = caplen) */
  rtel_tstamp ts;
} scripted;

static scripted script[NSCRIPT];

static void s_build(tb *t, int ipver, uint8_t opcode, size_t paylen) {
  tu_spec s;
  tu_spec_init(&s, opcode, paylen);
  s.ipver = ipver;
  tb_init(t);
  tu_build(t, &s);
}

static void s_arp(tb *t) {
  tb_init(t);
  tb_eth(t, tu_mac_b, tu_mac_a);
  tb_ethertype(t, 0x0806);
  tb_put16(t, 1);
  tb_put16(t, 0x0800);
  tb_put8(t, 6);
  tb_put8(t, 4);
  tb_put16(t, 1);
  tb_fill(t, 0x22, 20);
  tb_fill(t, 0, 18);
}

static void s_outer(tb *t, uint8_t proto) {
  static const uint8_t ma[6] = {0x02, 0x99, 0, 0, 0, 1};
  static const uint8_t mb[6] = {0x02, 0x99, 0, 0, 0, 2};
  tb_eth(t, mb, ma);
  tb_ethertype(t, 0x0800);
  tb_ipv4(t, 0, 7, 0, 60, proto, 0xC0A80001u, 0xC0A80002u, NULL, 0);
}

static void s_inner(tb *t, uint8_t opcode, size_t paylen) {
  tu_spec s;
  tu_spec_init(&s, opcode, paylen);
  tu_headers(t, &s);
  tu_transport(t, &s);
  tb_finish(t);
}

/* The scripted mix. Expected counters (see test_stats_mix):
 *  1 RoCEv2 ok            2 RoCEv1 ok          3 ARP
 *  4 UDP 4792             5 IPv4 fragment      6 reserved opcode (RoCE)
 *  7 tver 1 (RoCE)        8 five VLAN tags     9 cut in payload
 * 10 cut in RETH         11 cut before BTH    12 ERSPAN II
 * 13 VXLAN               14 CNP               15 CM REQ
 * 16 bad ICRC            17 ts backwards      18 ts after a backward one
 * 19 ARP, same ts as 18 */
static void make_script(void) {
  scripted *p = script;
  tu_spec s;
  tu_cm cm;
  size_t i;
  memset(script, 0, sizeof(script));
  s_build(&p[0].t, 4, 0x0A, 100);
  s_build(&p[1].t, 1, 0x04, 64);
  s_arp(&p[2].t);
  tu_spec_init(&s, 0x04, 16);
  s.dport = 4792;
  tb_init(&p[3].t);
  tu_build(&p[3].t, &s);
  s_build(&p[4].t, 4, 0x04, 64);
  tb_set16(&p[4].t, 14 + 6, 0x2000); /* MF */
  tb_refresh(&p[4].t);
  s_build(&p[5].t, 4, 0x1E, 16); /* reserved */
  s_build(&p[6].t, 4, 0x04, 16);
  p[6].t.b[p[6].t.bth_off + 1] |= 0x01; /* tver 1 */
  tb_refresh(&p[6].t);
  tu_spec_init(&s, 0x04, 16);
  s.nvlan = 5;
  tb_init(&p[7].t);
  tu_build(&p[7].t, &s);
  s_build(&p[8].t, 4, 0x0A, 200);
  p[8].caplen = p[8].t.n - 10;
  p[8].wire_len = (uint32_t)p[8].t.n;
  s_build(&p[9].t, 6, 0x0A, 200);
  p[9].caplen = p[9].t.bth_off + 12 + 4;
  p[9].wire_len = (uint32_t)p[9].t.n;
  s_build(&p[10].t, 4, 0x0A, 200);
  p[10].caplen = 30;
  p[10].wire_len = (uint32_t)p[10].t.n;
  tb_init(&p[11].t);
  s_outer(&p[11].t, 47);
  tb_gre(&p[11].t, 0x1000, 0x88BE, 0, 1);
  tb_erspan2(&p[11].t, 0, 0, 0, 0, 7, 0);
  s_inner(&p[11].t, 0x11, 0);
  tb_init(&p[12].t);
  s_outer(&p[12].t, 17);
  tb_udp(&p[12].t, 0xE000, 4789);
  tb_vxlan(&p[12].t, 0x08, 42);
  s_inner(&p[12].t, 0x0C, 0);
  s_build(&p[13].t, 4, 0x81, 0);
  memset(&cm, 0, sizeof(cm));
  cm.attr = RTEL_CM_REQ;
  cm.tid = 1;
  cm.lcid = 2;
  cm.local_qpn = 0x33;
  cm.start_psn = 0x44;
  cm.service_id = UINT64_C(0x0000000001061144);
  tu_ipv4_mapped(cm.lgid, TU_IP4_A);
  tu_ipv4_mapped(cm.rgid, TU_IP4_B);
  tb_init(&p[14].t);
  tu_build_cm(&p[14].t, &cm);
  s_build(&p[15].t, 4, 0x04, 32);
  p[15].t.b[p[15].t.payload_off + 3] ^= 0x40; /* ICRC now wrong */
  s_build(&p[16].t, 6, 0x11, 0);
  s_build(&p[17].t, 4, 0x12, 0);
  s_arp(&p[18].t);
  for (i = 0; i < NSCRIPT; i++) {
    if (!p[i].caplen)
      p[i].caplen = p[i].t.n;
    p[i].ts = 1000 * (i + 1);
  }
  p[16].ts = 15500; /* after 16000: backwards */
  p[17].ts = 15600;
  p[18].ts = 15600; /* equal: not backwards */
}

static rtel_pkt_info pinfo(const scripted *sp, uint32_t obs, uint32_t port) {
  rtel_pkt_info pi;
  memset(&pi, 0, sizeof(pi));
  pi.ts = sp->ts;
  pi.wire_len = sp->wire_len;
  pi.obs = obs;
  pi.port = port;
  return pi;
}

/* ------------------------------------------------------------ callbacks */

#define MAXREC 64

typedef struct rec {
  int calls;
  int fail_at; /* return nonzero on this call (1-based), 0 = never */
  rtel_ctx *ctx;
  rtel_pkt_hd hd[MAXREC];
  rtel_pkt_info pi[MAXREC];
  size_t pktlen[MAXREC];
  uint8_t first[MAXREC][64];
  int stats_rc[MAXREC];
  int scalls_at[MAXREC]; /* on_stats calls before this packet */
  /* on_stats */
  int scalls;
  int sfail_at;
  rtel_tstamp period_end[MAXREC];
  uint64_t spkts[MAXREC];
  int bad_user_data;
} rec;

static int on_packet(rtel_ctx *ctx, const rtel_pkt_info *pi,
                     const rtel_pkt_hd *hd, const uint8_t *pkt, size_t pktlen,
                     void *user_data) {
  rec *r = user_data;
  int i = r->calls++;
  if (r->ctx && ctx != r->ctx)
    r->bad_user_data++;
  if (i < MAXREC) {
    rtel_ctx_stats st;
    r->hd[i] = *hd;
    r->pi[i] = *pi;
    r->pktlen[i] = pktlen;
    memcpy(r->first[i], pkt, pktlen < 64 ? pktlen : 64);
    /* const getters are allowed from a callback */
    r->stats_rc[i] = rtel_ctx_get_stats(ctx, &st);
    r->scalls_at[i] = r->scalls;
  }
  return r->fail_at && r->calls == r->fail_at;
}

static int on_stats(rtel_ctx *ctx, rtel_tstamp period_end,
                    const rtel_ctx_stats *stats, void *user_data) {
  rec *r = user_data;
  int i = r->scalls++;
  (void)ctx;
  if (i < MAXREC) {
    r->period_end[i] = period_end;
    r->spkts[i] = stats->pkts;
  }
  return r->sfail_at && r->scalls == r->sfail_at;
}

static rtel_ctx *new_ctx(const rtel_settings *s, rec *r) {
  rtel_ctx *ctx = NULL;
  rtel_callbacks cb;
  memset(&cb, 0, sizeof(cb));
  cb.on_packet = on_packet;
  cb.on_stats = on_stats;
  ck_assert_int_eq(rtel_ctx_new(&ctx, s, &cb, NULL, r), 0);
  ck_assert_ptr_nonnull(ctx);
  if (r)
    r->ctx = ctx;
  return ctx;
}

/* from an exact-size heap copy, so sanitizers see reads past the capture */
static int feed(rtel_ctx *ctx, const scripted *sp) {
  rtel_pkt_info pi = pinfo(sp, 7, 3);
  uint8_t *copy = malloc(sp->caplen ? sp->caplen : 1);
  int rc;
  ck_assert_ptr_nonnull(copy);
  memcpy(copy, sp->t.b, sp->caplen);
  rc = rtel_ctx_read_pkt(ctx, &pi, copy, sp->caplen);
  free(copy);
  return rc;
}

/* ------------------------------------------------------------ lifecycle */

START_TEST(test_ctx_new_del) {
  rtel_ctx *ctx = SENTINEL;
  rtel_settings s;
  rtel_callbacks cb;
  ck_assert_int_eq(rtel_ctx_new(&ctx, NULL, NULL, NULL, NULL), 0);
  ck_assert_ptr_nonnull(ctx);
  ck_assert_ptr_ne(ctx, SENTINEL);
  rtel_ctx_del(ctx);
  rtel_ctx_del(NULL);
  ck_assert_int_eq(rtel_ctx_new(NULL, NULL, NULL, NULL, NULL),
                   RTEL_ERR_INVALID_ARGUMENT);
  rtel_settings_default(&s);
  memset(&cb, 0, sizeof(cb));
  ctx = SENTINEL;
  ck_assert_int_eq(rtel_ctx_new(&ctx, &s, &cb, rtel_mem_default(), NULL), 0);
  ck_assert_ptr_ne(ctx, SENTINEL);
  rtel_ctx_del(ctx);
  /* explicit V1 versions */
  ctx = NULL;
  ck_assert_int_eq(rtel_ctx_new_versioned(&ctx, RTEL_SETTINGS_V1, &s,
                                          RTEL_CALLBACKS_V1, &cb, NULL, NULL),
                   0);
  rtel_ctx_del(ctx);
}
END_TEST

START_TEST(test_settings_default) {
  rtel_settings s, before;
  memset(&s, 0xA5, sizeof(s));
  rtel_settings_default(&s);
  ck_assert_uint_eq(s.decode_flags, 0);
  ck_assert(s.linktype == 0 || s.linktype == RTEL_LINK_ETHERNET);
  ck_assert(s.roce_udp_port == 0 || s.roce_udp_port == RTEL_ROCEV2_UDP_PORT);
  ck_assert(s.vxlan_udp_port == 0 || s.vxlan_udp_port == RTEL_VXLAN_UDP_PORT);
  ck_assert_uint_eq(s.stats_interval, 0);
  /* NULL and unknown versions do nothing */
  rtel_settings_default(NULL);
  memset(&s, 0x5A, sizeof(s));
  before = s;
  rtel_settings_default_versioned(999, &s);
  ck_assert_mem_eq(&s, &before, sizeof(s));
}
END_TEST

START_TEST(test_settings_out_of_range) {
  rtel_ctx *ctx = SENTINEL;
  rtel_settings s;
  rtel_settings_default(&s);
  s.roce_udp_port = 65536;
  ck_assert_int_eq(rtel_ctx_new(&ctx, &s, NULL, NULL, NULL),
                   RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_eq(ctx, SENTINEL);
  rtel_settings_default(&s);
  s.vxlan_udp_port = 70000;
  ck_assert_int_eq(rtel_ctx_new(&ctx, &s, NULL, NULL, NULL),
                   RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_eq(ctx, SENTINEL);
}
END_TEST

/* A burst is decoded ahead of its turn (no on_packet, flow table on): a
 * NULL packet in the middle stops it there, with what came before counted
 * and the flows of the packets after it untouched; the rest is handed over
 * again. Expected counts by hand: 10 SEND ONLY packets of one QP, PSNs
 * 0..9, payload 16 bytes. */
START_TEST(test_burst_stops_at_bad_packet) {
  rtel_ctx *ctx = NULL;
  rtel_settings s;
  rtel_callbacks cb;
  rtel_pkt_info pi[10];
  const uint8_t *pkts[10];
  size_t lens[10];
  tb t[10];
  rtel_ctx_stats st;
  unsigned i;
  rtel_settings_default(&s);
  s.max_flows = 8192; /* >= 2 MiB of flow entries: the look-ahead path */
  memset(&cb, 0, sizeof(cb));
  ck_assert_int_eq(rtel_ctx_new(&ctx, &s, &cb, NULL, NULL), 0);
  for (i = 0; i < 10; i++) {
    tu_spec sp;
    tu_spec_init(&sp, 0x04, 16);
    sp.psn = i;
    tb_init(&t[i]);
    tu_build(&t[i], &sp);
    memset(&pi[i], 0, sizeof(pi[i]));
    pi[i].ts = 1000 + i;
    pkts[i] = t[i].b;
    lens[i] = t[i].n;
  }
  pkts[6] = NULL; /* with a length: a caller's error */
  ck_assert_int_eq(rtel_ctx_read_pkts(ctx, pi, pkts, lens, 10), 6);
  ck_assert_int_eq(rtel_ctx_get_stats(ctx, &st), 0);
  ck_assert_uint_eq(st.pkts, 6);
  ck_assert_uint_eq(st.pkts_roce, 6);
  ck_assert_uint_eq(st.flows_created, 1);
  /* the bad one alone: an error for the first packet of a burst */
  ck_assert_int_eq(rtel_ctx_read_pkts(ctx, pi + 6, pkts + 6, lens + 6, 4),
                   RTEL_ERR_INVALID_ARGUMENT);
  pkts[6] = t[6].b;
  ck_assert_int_eq(rtel_ctx_read_pkts(ctx, pi + 6, pkts + 6, lens + 6, 4), 4);
  ck_assert_int_eq(rtel_ctx_get_stats(ctx, &st), 0);
  ck_assert_uint_eq(st.pkts, 10);
  ck_assert_uint_eq(st.pkts_roce, 10);
  ck_assert_uint_eq(st.flows_created, 1);
  ck_assert_uint_eq(st.flows_active, 1);
  rtel_ctx_del(ctx);
}
END_TEST

START_TEST(test_unsupported_versions) {
  rtel_ctx *ctx = SENTINEL;
  rtel_settings s;
  rtel_callbacks cb;
  rtel_pkt_info pi;
  rtel_ctx_stats st;
  tb t;
  rtel_settings_default(&s);
  memset(&cb, 0, sizeof(cb));
  ck_assert_int_eq(rtel_ctx_new_versioned(&ctx, 999, &s, RTEL_CALLBACKS_V1,
                                          &cb, NULL, NULL),
                   RTEL_ERR_UNSUPPORTED_VERSION);
  ck_assert_ptr_eq(ctx, SENTINEL);
  ck_assert_int_eq(
      rtel_ctx_new_versioned(&ctx, RTEL_SETTINGS_V1, &s, 999, &cb, NULL, NULL),
      RTEL_ERR_UNSUPPORTED_VERSION);
  ck_assert_ptr_eq(ctx, SENTINEL);
  ctx = NULL;
  ck_assert_int_eq(rtel_ctx_new(&ctx, &s, &cb, NULL, NULL), 0);
  s_build(&t, 4, 0x04, 16);
  memset(&pi, 0, sizeof(pi));
  pi.ts = 1;
  ck_assert_int_eq(rtel_ctx_read_pkt_versioned(ctx, 999, &pi, t.b, t.n),
                   RTEL_ERR_UNSUPPORTED_VERSION);
  ck_assert_int_eq(rtel_ctx_read_pkts_versioned(
                       ctx, 999, &pi,
                       (const uint8_t *const *)&(const uint8_t *){t.b}, &t.n,
                       1),
                   RTEL_ERR_UNSUPPORTED_VERSION);
  ck_assert_int_eq(rtel_ctx_get_stats_versioned(ctx, 999, &st),
                   RTEL_ERR_UNSUPPORTED_VERSION);
  /* nothing was counted by the rejected calls */
  ck_assert_int_eq(
      rtel_ctx_read_pkt_versioned(ctx, RTEL_PKT_INFO_V1, &pi, t.b, t.n), 0);
  ck_assert_int_eq(rtel_ctx_get_stats_versioned(ctx, RTEL_CTX_STATS_V1, &st),
                   0);
  ck_assert_uint_eq(st.pkts, 1);
  rtel_ctx_del(ctx);
}
END_TEST

/* Expected lengths computed by hand from the header layout (LP64 or ILP32:
 * only rtel_callbacks depends on the pointer size). */
START_TEST(test_struct_sizes) {
  /* rtel_settings, by hand from the header:
   *   0 decode_flags, linktype, roce_udp_port, vxlan_udp_port (4 x 4)
   *  16 stats_interval (8)
   *  24 flow_flags, max_flows, max_qp_pairs, reserved1 (4 x 4)
   *  40 flow_idle_timeout, flow_active_timeout, hash_seed (3 x 8)
   *  64 nvme_flags, max_nvme_queues, max_ios, max_io_joins (4 x 4)
   *  80 io_timeout, io_join_window (2 x 8)
   *  96 nvme_ports[4] (4 x 2)
   * 104 report_interval (8)
   * 112 max_aggregates, max_ports, max_alarm_keys, reserved3 (4 x 4)
   * 128 max_open_msgs, max_flow_msgs, msg_settle_psns, reserved4 (4 x 4)
   * 144 msg_settle_ns, period_origin (2 x 8)
   * 160 end */
  ck_assert_uint_eq(offsetof(rtel_settings, stats_interval), 16);
  ck_assert_uint_eq(offsetof(rtel_settings, flow_flags), 24);
  ck_assert_uint_eq(offsetof(rtel_settings, flow_idle_timeout), 40);
  ck_assert_uint_eq(offsetof(rtel_settings, hash_seed), 56);
  ck_assert_uint_eq(offsetof(rtel_settings, nvme_flags), 64);
  ck_assert_uint_eq(offsetof(rtel_settings, io_timeout), 80);
  ck_assert_uint_eq(offsetof(rtel_settings, nvme_ports), 96);
  ck_assert_uint_eq(offsetof(rtel_settings, report_interval), 104);
  ck_assert_uint_eq(offsetof(rtel_settings, max_aggregates), 112);
  ck_assert_uint_eq(offsetof(rtel_settings, reserved3), 124);
  ck_assert_uint_eq(offsetof(rtel_settings, reserved3) + sizeof(uint32_t),
                    128);
  ck_assert_uint_eq(offsetof(rtel_settings, max_open_msgs), 128);
  ck_assert_uint_eq(offsetof(rtel_settings, msg_settle_ns), 144);
  ck_assert_uint_eq(offsetof(rtel_settings, period_origin), 152);
  ck_assert_uint_eq(sizeof(rtel_settings), 160);
  /* rtel_callbacks: nine function pointers */
  ck_assert_uint_eq(offsetof(rtel_callbacks, on_alarm) + sizeof(rtel_on_alarm),
                    9 * sizeof(void (*)(void)));
  ck_assert_uint_eq(sizeof(rtel_callbacks), 9 * sizeof(void (*)(void)));
  /* rtel_pkt_info: ts(8) wire_len obs port linktype */
  ck_assert_uint_eq(offsetof(rtel_pkt_info, wire_len), 8);
  ck_assert_uint_eq(offsetof(rtel_pkt_info, linktype), 20);
  ck_assert_uint_eq(offsetof(rtel_pkt_info, linktype) + sizeof(uint32_t), 24);
  ck_assert_uint_eq(sizeof(rtel_pkt_info), 24);
  /* rtel_decode_opts: 4 x uint32_t */
  ck_assert_uint_eq(
      offsetof(rtel_decode_opts, vxlan_udp_port) + sizeof(uint32_t), 16);
  ck_assert_uint_eq(sizeof(rtel_decode_opts), 16);
  /* rtel_ctx_stats: 19 x uint64_t, malformed[32], 9 flow counters, 13
   * NVMe counters, 6 aggregate/scheduler/alarm counters: 79 x 8 bytes */
  ck_assert_uint_eq(offsetof(rtel_ctx_stats, pkts_ts_backwards), 128);
  ck_assert_uint_eq(offsetof(rtel_ctx_stats, pkts_unknown_tver), 144);
  ck_assert_uint_eq(offsetof(rtel_ctx_stats, malformed), 152);
  ck_assert_uint_eq(offsetof(rtel_ctx_stats, flows_created), 408);
  ck_assert_uint_eq(offsetof(rtel_ctx_stats, messages), 472);
  ck_assert_uint_eq(offsetof(rtel_ctx_stats, nvme_queues_cm), 480);
  ck_assert_uint_eq(offsetof(rtel_ctx_stats, io_join_unmatched), 576);
  ck_assert_uint_eq(offsetof(rtel_ctx_stats, aggregates_dropped), 584);
  ck_assert_uint_eq(offsetof(rtel_ctx_stats, alarms_dropped), 624);
  ck_assert_uint_eq(
      offsetof(rtel_ctx_stats, alarms_dropped) + sizeof(uint64_t), 632);
  ck_assert_uint_eq(offsetof(rtel_ctx_stats, ios_truncated), 632);
  ck_assert_uint_eq(offsetof(rtel_ctx_stats, msgs_overflow), 640);
  ck_assert_uint_eq(offsetof(rtel_ctx_stats, ios_created), 648);
  ck_assert_uint_eq(offsetof(rtel_ctx_stats, ios_active), 656);
  ck_assert_uint_eq(offsetof(rtel_ctx_stats, ios_unconfirmed), 664);
  ck_assert_uint_eq(sizeof(rtel_ctx_stats), 672);
  /* rtel_pkt_hd (the padding after pkey, xrc_srqn and cm_fields is named:
   * reserved_pad0, reserved_pad1, reserved_pad3) */
  ck_assert_uint_eq(offsetof(rtel_pkt_hd, erspan_session), 24);
  ck_assert_uint_eq(offsetof(rtel_pkt_hd, nencap), 40);
  ck_assert_uint_eq(offsetof(rtel_pkt_hd, eth_dst), 44);
  ck_assert_uint_eq(offsetof(rtel_pkt_hd, ethertype), 56);
  ck_assert_uint_eq(offsetof(rtel_pkt_hd, vlan_tpid), 60);
  ck_assert_uint_eq(offsetof(rtel_pkt_hd, src), 76);
  ck_assert_uint_eq(offsetof(rtel_pkt_hd, dscp), 108);
  ck_assert_uint_eq(offsetof(rtel_pkt_hd, flow_label), 112);
  ck_assert_uint_eq(offsetof(rtel_pkt_hd, l3_off), 120);
  ck_assert_uint_eq(offsetof(rtel_pkt_hd, sport), 124);
  ck_assert_uint_eq(offsetof(rtel_pkt_hd, bth_off), 132);
  ck_assert_uint_eq(offsetof(rtel_pkt_hd, opcode), 134);
  ck_assert_uint_eq(offsetof(rtel_pkt_hd, resv7), 143);
  ck_assert_uint_eq(offsetof(rtel_pkt_hd, pkey), 144);
  ck_assert_uint_eq(offsetof(rtel_pkt_hd, dqpn), 148);
  ck_assert_uint_eq(offsetof(rtel_pkt_hd, xrc_srqn), 168);
  ck_assert_uint_eq(offsetof(rtel_pkt_hd, reth_va), 176);
  ck_assert_uint_eq(offsetof(rtel_pkt_hd, atomic_rkey), 216);
  ck_assert_uint_eq(offsetof(rtel_pkt_hd, aeth_syndrome), 224);
  ck_assert_uint_eq(offsetof(rtel_pkt_hd, imm), 228);
  ck_assert_uint_eq(offsetof(rtel_pkt_hd, atomicack_orig), 240);
  ck_assert_uint_eq(offsetof(rtel_pkt_hd, payload_off), 248);
  ck_assert_uint_eq(offsetof(rtel_pkt_hd, icrc_status), 268);
  ck_assert_uint_eq(offsetof(rtel_pkt_hd, mad_tid), 272);
  ck_assert_uint_eq(offsetof(rtel_pkt_hd, mad_attr_mod), 288);
  ck_assert_uint_eq(offsetof(rtel_pkt_hd, cm_fields), 296);
  ck_assert_uint_eq(offsetof(rtel_pkt_hd, cm_service_id), 304);
  ck_assert_uint_eq(offsetof(rtel_pkt_hd, cm_local_gid), 336);
  ck_assert_uint_eq(offsetof(rtel_pkt_hd, cm_priv_len), 372);
  ck_assert_uint_eq(offsetof(rtel_pkt_hd, cm_priv_len) + sizeof(uint32_t),
                    376);
  ck_assert_uint_eq(sizeof(rtel_pkt_hd), 376);
  /* rtel_mem is frozen: user_data + 4 function pointers */
  ck_assert_uint_eq(sizeof(rtel_mem),
                    sizeof(void *) + 4 * sizeof(void (*)(void)));
}
END_TEST

/* ------------------------------------------------------------ counters */

START_TEST(test_stats_mix) {
  rtel_ctx *ctx;
  rtel_settings s;
  rtel_ctx_stats st;
  rec *r = calloc(1, sizeof(*r));
  uint64_t bytes = 0;
  size_t i;
  make_script();
  rtel_settings_default(&s);
  s.decode_flags = RTEL_DECODE_VERIFY_ICRC;
  ctx = new_ctx(&s, r);
  for (i = 0; i < NSCRIPT; i++) {
    ck_assert_msg(feed(ctx, &script[i]) == 0, "packet %zu: rc != 0", i + 1);
    bytes += script[i].wire_len ? script[i].wire_len : script[i].caplen;
  }
  memset(&st, 0xA5, sizeof(st));
  ck_assert_int_eq(rtel_ctx_get_stats(ctx, &st), 0);
  ck_assert_uint_eq(st.pkts, NSCRIPT);
  ck_assert_uint_eq(st.bytes, bytes);
  ck_assert_uint_eq(st.pkts_roce, 13);
  ck_assert_uint_eq(st.pkts_rocev1, 1);
  ck_assert_uint_eq(st.pkts_not_roce, 4);
  ck_assert_uint_eq(st.pkts_malformed, 2);
  ck_assert_uint_eq(st.pkts_unknown_opcode, 1);
  ck_assert_uint_eq(st.pkts_unknown_tver, 1);
  ck_assert_uint_eq(st.pkts_truncated, 3);
  ck_assert_uint_eq(st.pkts_hdr_truncated, 1);
  ck_assert_uint_eq(st.pkts_ip_fragments, 1);
  ck_assert_uint_eq(st.pkts_erspan, 1);
  ck_assert_uint_eq(st.pkts_vxlan, 1);
  ck_assert_uint_eq(st.pkts_cnp, 1);
  ck_assert_uint_eq(st.pkts_cm, 1);
  ck_assert_uint_eq(st.icrc_ok, 10);
  ck_assert_uint_eq(st.icrc_bad, 1);
  ck_assert_uint_eq(st.icrc_truncated, 2);
  ck_assert_uint_eq(st.pkts_ts_backwards, 1);
  for (i = 0; i < RTEL_MALFORMED_SLOTS; i++) {
    uint64_t want =
        (i == RTEL_MALFORMED_VLAN_DEPTH || i == RTEL_MALFORMED_TRUNCATED) ? 1
                                                                          : 0;
    ck_assert_msg(st.malformed[i] == want, "malformed[%zu] = %llu, want %llu",
                  i, (unsigned long long)st.malformed[i],
                  (unsigned long long)want);
  }
  /* the partition of packets by decode outcome */
  ck_assert_uint_eq(st.pkts_roce + st.pkts_not_roce + st.pkts_malformed,
                    st.pkts);
  /* one on_packet per RoCE packet */
  ck_assert_int_eq(r->calls, 13);
  rtel_ctx_del(ctx);
  free(r);
}
END_TEST

/* counters without the verify flag: no ICRC counting */
START_TEST(test_stats_no_verify) {
  rtel_ctx *ctx;
  rtel_ctx_stats st;
  size_t i;
  make_script();
  ck_assert_int_eq(rtel_ctx_new(&ctx, NULL, NULL, NULL, NULL), 0);
  for (i = 0; i < NSCRIPT; i++)
    ck_assert_int_eq(feed(ctx, &script[i]), 0);
  ck_assert_int_eq(rtel_ctx_get_stats(ctx, &st), 0);
  ck_assert_uint_eq(st.pkts_roce, 13);
  ck_assert_uint_eq(st.icrc_ok, 0);
  ck_assert_uint_eq(st.icrc_bad, 0);
  ck_assert_uint_eq(st.icrc_truncated, 0);
  rtel_ctx_del(ctx);
}
END_TEST

START_TEST(test_stats_args) {
  rtel_ctx *ctx;
  rtel_ctx_stats st;
  rtel_pkt_info pi;
  tb t;
  ck_assert_int_eq(rtel_ctx_new(&ctx, NULL, NULL, NULL, NULL), 0);
  ck_assert_int_eq(rtel_ctx_get_stats(ctx, NULL), RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(rtel_ctx_get_stats(NULL, &st), RTEL_ERR_INVALID_ARGUMENT);
  memset(&st, 0xA5, sizeof(st));
  ck_assert_int_eq(rtel_ctx_get_stats(ctx, &st), 0);
  ck_assert_uint_eq(st.pkts, 0);
  ck_assert_uint_eq(st.malformed[RTEL_MALFORMED_SLOTS - 1], 0);
  s_build(&t, 4, 0x04, 16);
  memset(&pi, 0, sizeof(pi));
  ck_assert_int_eq(rtel_ctx_read_pkt(NULL, &pi, t.b, t.n),
                   RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(rtel_ctx_read_pkt(ctx, NULL, t.b, t.n),
                   RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(rtel_ctx_read_pkt(ctx, &pi, NULL, 10),
                   RTEL_ERR_INVALID_ARGUMENT);
  {
    typedef rtel_ssize burst_fn(rtel_ctx *, int, const rtel_pkt_info *,
                                const uint8_t *const *, const size_t *,
                                size_t);
    /* both burst calls check their arguments alike */
    static burst_fn *const fns[2] = {rtel_ctx_read_pkts_versioned,
                                     rtel_ctx_read_pkts_timed_versioned};
    const int v = RTEL_PKT_INFO_VERSION;
    const uint8_t *pkts[1] = {t.b};
    size_t lens[1] = {t.n};
    int k;
    for (k = 0; k < 2; k++) {
      ck_assert_int_eq(fns[k](NULL, v, &pi, pkts, lens, 1),
                       RTEL_ERR_INVALID_ARGUMENT);
      ck_assert_int_eq(fns[k](ctx, v, NULL, pkts, lens, 1),
                       RTEL_ERR_INVALID_ARGUMENT);
      ck_assert_int_eq(fns[k](ctx, v, &pi, NULL, lens, 1),
                       RTEL_ERR_INVALID_ARGUMENT);
      ck_assert_int_eq(fns[k](ctx, v, &pi, pkts, NULL, 1),
                       RTEL_ERR_INVALID_ARGUMENT);
      ck_assert_int_eq(fns[k](ctx, v + 1, &pi, pkts, lens, 1),
                       RTEL_ERR_UNSUPPORTED_VERSION);
    }
  }
  ck_assert_int_eq(rtel_ctx_get_stats(ctx, &st), 0);
  ck_assert_uint_eq(st.pkts, 0);
  /* an empty packet is a (malformed) packet, not an argument error */
  ck_assert_int_eq(rtel_ctx_read_pkt(ctx, &pi, NULL, 0), 0);
  ck_assert_int_eq(rtel_ctx_get_stats(ctx, &st), 0);
  ck_assert_uint_eq(st.pkts, 1);
  ck_assert_uint_eq(st.malformed[RTEL_MALFORMED_TRUNCATED], 1);
  ck_assert_int_eq(rtel_ctx_handle_expiry(NULL, 0), RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(rtel_ctx_get_expiry(NULL), RTEL_TSTAMP_NONE);
  rtel_ctx_del(ctx);
}
END_TEST

/* settings reach the decoder: port, link type, verify flag; copied */
START_TEST(test_settings_applied) {
  rtel_ctx *ctx;
  rtel_settings s;
  rtel_ctx_stats st;
  rtel_pkt_info pi;
  tb t, raw;
  tu_spec sp;
  rtel_settings_default(&s);
  s.roce_udp_port = 5000;
  s.linktype = RTEL_LINK_RAW;
  ck_assert_int_eq(rtel_ctx_new(&ctx, &s, NULL, NULL, NULL), 0);
  s.roce_udp_port = 4791; /* copied: has no effect now */
  s.linktype = RTEL_LINK_ETHERNET;
  tu_spec_init(&sp, 0x04, 8);
  sp.dport = 5000;
  sp.raw_ip = 1;
  tb_init(&raw);
  tu_build(&raw, &sp);
  memset(&pi, 0, sizeof(pi));
  ck_assert_int_eq(rtel_ctx_read_pkt(ctx, &pi, raw.b, raw.n), 0); /* RoCE */
  sp.raw_ip = 0;
  tb_init(&t);
  tu_build(&t, &sp);
  pi.linktype = RTEL_LINK_ETHERNET; /* per-packet override */
  ck_assert_int_eq(rtel_ctx_read_pkt(ctx, &pi, t.b, t.n), 0); /* RoCE */
  sp.dport = 4791;
  tb_init(&t);
  tu_build(&t, &sp);
  ck_assert_int_eq(rtel_ctx_read_pkt(ctx, &pi, t.b, t.n), 0); /* not */
  ck_assert_int_eq(rtel_ctx_get_stats(ctx, &st), 0);
  ck_assert_uint_eq(st.pkts, 3);
  ck_assert_uint_eq(st.pkts_roce, 2);
  ck_assert_uint_eq(st.pkts_not_roce, 1);
  ck_assert_uint_eq(st.icrc_ok, 0);
  rtel_ctx_del(ctx);
}
END_TEST

/* ------------------------------------------------------------ callbacks */

START_TEST(test_on_packet) {
  rtel_ctx *ctx;
  rtel_settings s;
  rec *r = calloc(1, sizeof(*r));
  rtel_decode_opts o;
  size_t i;
  int k = 0;
  make_script();
  rtel_settings_default(&s);
  s.decode_flags = RTEL_DECODE_VERIFY_ICRC;
  ctx = new_ctx(&s, r);
  for (i = 0; i < NSCRIPT; i++) {
    rtel_pkt_info pi = pinfo(&script[i], 100 + (uint32_t)i, 7);
    ck_assert_int_eq(
        rtel_ctx_read_pkt(ctx, &pi, script[i].t.b, script[i].caplen), 0);
  }
  ck_assert_int_eq(r->calls, 13);
  ck_assert_int_eq(r->bad_user_data, 0);
  memset(&o, 0, sizeof(o));
  o.flags = RTEL_DECODE_VERIFY_ICRC;
  for (i = 0; i < NSCRIPT; i++) {
    rtel_pkt_hd hd;
    const scripted *sp = &script[i];
    int rc = rtel_pkt_decode(&hd, &o, sp->t.b, sp->caplen, sp->wire_len);
    if (rc != 0)
      continue;
    ck_assert_int_lt(k, r->calls);
    ck_assert_uint_eq(r->pi[k].ts, sp->ts);
    ck_assert_uint_eq(r->pi[k].obs, 100 + i);
    ck_assert_uint_eq(r->pi[k].port, 7);
    ck_assert_uint_eq(r->pktlen[k], sp->caplen);
    ck_assert_mem_eq(r->first[k], sp->t.b, sp->caplen < 64 ? sp->caplen : 64);
    ck_assert_msg(r->hd[k].flags == hd.flags,
                  "packet %zu: callback flags 0x%x, decode 0x%x", i + 1,
                  r->hd[k].flags, hd.flags);
    ck_assert_uint_eq(r->hd[k].opcode, hd.opcode);
    ck_assert_uint_eq(r->hd[k].dqpn, hd.dqpn);
    ck_assert_uint_eq(r->hd[k].psn, hd.psn);
    ck_assert_uint_eq(r->hd[k].bth_off, hd.bth_off);
    ck_assert_uint_eq(r->hd[k].payload_len, hd.payload_len);
    ck_assert_uint_eq(r->hd[k].encap, hd.encap);
    ck_assert_uint_eq(r->hd[k].icrc_status, hd.icrc_status);
    ck_assert_uint_eq(r->hd[k].cap_len, sp->caplen);
    ck_assert_uint_eq(r->hd[k].wire_len,
                      sp->wire_len ? sp->wire_len : sp->caplen);
    ck_assert_int_eq(r->stats_rc[k], 0);
    k++;
  }
  ck_assert_int_eq(k, r->calls);
  rtel_ctx_del(ctx);
  free(r);
}
END_TEST

START_TEST(test_callback_failure) {
  rtel_ctx *ctx;
  rec *r = calloc(1, sizeof(*r));
  rtel_pkt_info pi;
  const uint8_t *pkts[1];
  size_t lens[1];
  make_script();
  r->fail_at = 2;
  ctx = new_ctx(NULL, r);
  ck_assert_int_eq(feed(ctx, &script[0]), 0);
  ck_assert_int_eq(feed(ctx, &script[2]), 0); /* ARP: no callback */
  ck_assert_int_eq(feed(ctx, &script[0]), RTEL_ERR_CALLBACK_FAILURE);
  ck_assert(rtel_err_is_fatal(RTEL_ERR_CALLBACK_FAILURE));
  ck_assert_int_eq(r->calls, 2);
  /* every later call */
  ck_assert_int_eq(feed(ctx, &script[0]), RTEL_ERR_INVALID_STATE);
  ck_assert_int_eq(feed(ctx, &script[2]), RTEL_ERR_INVALID_STATE);
  pi = pinfo(&script[0], 0, 0);
  pkts[0] = script[0].t.b;
  lens[0] = script[0].caplen;
  ck_assert_int_eq(rtel_ctx_read_pkts(ctx, &pi, pkts, lens, 1),
                   RTEL_ERR_INVALID_STATE);
  ck_assert_int_eq(rtel_ctx_handle_expiry(ctx, 1000000),
                   RTEL_ERR_INVALID_STATE);
  ck_assert_int_eq(r->calls, 2);
  rtel_ctx_del(ctx);
  free(r);
}
END_TEST

START_TEST(test_on_stats_failure) {
  rtel_ctx *ctx;
  rtel_settings s;
  rec *r = calloc(1, sizeof(*r));
  make_script();
  rtel_settings_default(&s);
  s.stats_interval = 100;
  r->sfail_at = 1;
  ctx = new_ctx(&s, r);
  ck_assert_int_eq(feed(ctx, &script[0]), 0); /* ts 1000 */
  ck_assert_int_eq(rtel_ctx_handle_expiry(ctx, 1100),
                   RTEL_ERR_CALLBACK_FAILURE);
  ck_assert_int_eq(r->scalls, 1);
  ck_assert_int_eq(rtel_ctx_handle_expiry(ctx, 1200), RTEL_ERR_INVALID_STATE);
  ck_assert_int_eq(feed(ctx, &script[0]), RTEL_ERR_INVALID_STATE);
  ck_assert_int_eq(r->scalls, 1);
  rtel_ctx_del(ctx);
  free(r);
}
END_TEST

/* ------------------------------------------------------------ burst */

START_TEST(test_burst_equals_single) {
  rtel_ctx *a, *b;
  rtel_settings s;
  rec *ra = calloc(1, sizeof(*ra)), *rb = calloc(1, sizeof(*rb));
  rtel_ctx_stats sa, sb;
  rtel_pkt_info pis[NSCRIPT];
  const uint8_t *pkts[NSCRIPT];
  size_t lens[NSCRIPT], i;
  int k;
  make_script();
  rtel_settings_default(&s);
  s.decode_flags = RTEL_DECODE_VERIFY_ICRC;
  a = new_ctx(&s, ra);
  b = new_ctx(&s, rb);
  for (i = 0; i < NSCRIPT; i++) {
    pis[i] = pinfo(&script[i], 1, 2);
    pkts[i] = script[i].t.b;
    lens[i] = script[i].caplen;
    ck_assert_int_eq(rtel_ctx_read_pkt(a, &pis[i], pkts[i], lens[i]), 0);
  }
  ck_assert_int_eq(rtel_ctx_read_pkts(b, pis, pkts, lens, NSCRIPT), NSCRIPT);
  ck_assert_int_eq(rtel_ctx_get_stats(a, &sa), 0);
  ck_assert_int_eq(rtel_ctx_get_stats(b, &sb), 0);
  ck_assert_mem_eq(&sa, &sb, sizeof(sa));
  ck_assert_int_eq(ra->calls, rb->calls);
  for (k = 0; k < ra->calls; k++) {
    ck_assert_uint_eq(ra->pi[k].ts, rb->pi[k].ts);
    ck_assert_uint_eq(ra->hd[k].flags, rb->hd[k].flags);
    ck_assert_uint_eq(ra->hd[k].psn, rb->hd[k].psn);
    ck_assert_uint_eq(ra->pktlen[k], rb->pktlen[k]);
  }
  /* a zero-length burst */
  ck_assert_int_eq(rtel_ctx_read_pkts(b, pis, pkts, lens, 0), 0);
  rtel_ctx_del(a);
  rtel_ctx_del(b);
  free(ra);
  free(rb);
}
END_TEST

START_TEST(test_burst_failure_midway) {
  rtel_ctx *ctx;
  rec *r = calloc(1, sizeof(*r));
  rtel_pkt_info pis[6];
  const uint8_t *pkts[6];
  size_t lens[6], i;
  rtel_ssize n;
  int rc;
  make_script();
  /* RoCE, ARP, RoCE, RoCE(fails: 3rd callback), RoCE, RoCE */
  static const int idx[6] = {0, 2, 0, 0, 0, 0};
  for (i = 0; i < 6; i++) {
    pis[i] = pinfo(&script[idx[i]], 0, 0);
    pkts[i] = script[idx[i]].t.b;
    lens[i] = script[idx[i]].caplen;
  }
  r->fail_at = 3;
  ctx = new_ctx(NULL, r);
  n = rtel_ctx_read_pkts(ctx, pis, pkts, lens, 6);
  ck_assert_msg(n == 3,
                "burst returned %td, want 3 (packets before the "
                "failing one)",
                n);
  ck_assert_int_eq(r->calls, 3);
  rc = feed(ctx, &script[0]);
  ck_assert_msg(rc == RTEL_ERR_CALLBACK_FAILURE ||
                    rc == RTEL_ERR_INVALID_STATE,
                "call after a failed burst: rc %d", rc);
  ck_assert_int_eq(feed(ctx, &script[0]), RTEL_ERR_INVALID_STATE);
  rtel_ctx_del(ctx);
  free(r);

  /* failure on the first packet: the error itself */
  r = calloc(1, sizeof(*r));
  r->fail_at = 1;
  ctx = new_ctx(NULL, r);
  ck_assert_int_eq(rtel_ctx_read_pkts(ctx, pis, pkts, lens, 6),
                   RTEL_ERR_CALLBACK_FAILURE);
  rtel_ctx_del(ctx);
  free(r);
}
END_TEST

/* ------------------------------------------------------------ timer */

START_TEST(test_stats_timer) {
  rtel_ctx *ctx;
  rtel_settings s;
  rec *r = calloc(1, sizeof(*r));
  scripted *p;
  make_script();
  p = &script[0];
  rtel_settings_default(&s);
  s.stats_interval = 1000;
  s.flow_flags = RTEL_FLOW_DISABLE; /* no flow timers: only the stats one */
  ctx = new_ctx(&s, r);
  ck_assert_uint_eq(rtel_ctx_get_expiry(ctx), RTEL_TSTAMP_NONE);
  ck_assert_int_eq(rtel_ctx_handle_expiry(ctx, 123456), 0);
  ck_assert_int_eq(r->scalls, 0);
  p->ts = 5000;
  ck_assert_int_eq(feed(ctx, p), 0);
  ck_assert_uint_eq(rtel_ctx_get_expiry(ctx), 6000);
  p->ts = 5500;
  ck_assert_int_eq(feed(ctx, p), 0);
  ck_assert_uint_eq(rtel_ctx_get_expiry(ctx), 6000);
  ck_assert_int_eq(rtel_ctx_handle_expiry(ctx, 5999), 0);
  ck_assert_int_eq(r->scalls, 0);
  ck_assert_uint_eq(rtel_ctx_get_expiry(ctx), 6000);
  ck_assert_int_eq(rtel_ctx_handle_expiry(ctx, 6000), 0);
  ck_assert_int_eq(r->scalls, 1);
  ck_assert_uint_eq(r->period_end[0], 6000);
  ck_assert_uint_eq(r->spkts[0], 2);
  ck_assert_uint_eq(rtel_ctx_get_expiry(ctx), 7000);
  p->ts = 6100;
  ck_assert_int_eq(feed(ctx, p), 0);
  /* three periods ended (7000, 8000, 9000): the header says one call
   * covers them all, with the latest boundary as period_end */
  ck_assert_int_eq(rtel_ctx_handle_expiry(ctx, 9500), 0);
  ck_assert_int_eq(r->scalls, 2);
  ck_assert_uint_eq(r->period_end[1], 9000);
  ck_assert_uint_eq(r->spkts[1], 3);
  ck_assert_uint_eq(rtel_ctx_get_expiry(ctx), 10000);
  ck_assert_int_eq(rtel_ctx_handle_expiry(ctx, 9500), 0);
  ck_assert_int_eq(r->scalls, 2);
  /* exactly on the next boundary: one call, period_end 10000 */
  ck_assert_int_eq(rtel_ctx_handle_expiry(ctx, 10000), 0);
  ck_assert_int_eq(r->scalls, 3);
  ck_assert_uint_eq(r->period_end[2], 10000);
  ck_assert_uint_eq(rtel_ctx_get_expiry(ctx), 11000);
  /* periods stay aligned to the first packet (5000 + k * 1000) */
  ck_assert_int_eq(rtel_ctx_handle_expiry(ctx, 12999), 0);
  ck_assert_int_eq(r->scalls, 4);
  ck_assert_uint_eq(r->period_end[3], 12000);
  ck_assert_uint_eq(rtel_ctx_get_expiry(ctx), 13000);
  rtel_ctx_del(ctx);
  free(r);
}
END_TEST

/* rtel_ctx_read_pkts_timed(): the statistics timer inside a burst. By hand,
 * 1000 ns periods from the first packet (5000): before the packet at 6200
 * the period ending 6000 is reported (3 packets), before 7000 the one
 * ending 7000 (5), before 9500 one report at the latest boundary, 9000
 * (6), as rtel_ctx_handle_expiry(9500) does; rtel_ctx_read_pkts() runs
 * none. Mode 2: the second report fails, which stops the burst before the
 * packet it ran for (5 processed). With on_packet set, so the burst takes
 * the plain loop. */
START_TEST(test_stats_timer_in_burst) {
  static const rtel_tstamp ts[8] = {5000, 5400, 5800, 6200,
                                    6600, 7000, 9500, 9600};
  static const int before[8] = {0, 0, 0, 1, 1, 2, 3, 3};
  static const rtel_tstamp ends[3] = {6000, 7000, 9000};
  static const uint64_t pkts_at[3] = {3, 5, 6};
  int mode;
  make_script();
  for (mode = 0; mode < 3; mode++) {
    const int timed = mode != 0, fail = mode == 2, want = fail ? 5 : 8;
    const int nrep = !timed ? 0 : fail ? 2 : 3;
    rtel_ctx *ctx;
    rtel_settings s;
    rec *r = calloc(1, sizeof(*r));
    rtel_pkt_info pis[8];
    const uint8_t *pkts[8];
    size_t lens[8];
    int i;
    rtel_settings_default(&s);
    s.stats_interval = 1000;
    s.flow_flags = RTEL_FLOW_DISABLE;
    ctx = new_ctx(&s, r);
    r->sfail_at = fail ? 2 : 0;
    for (i = 0; i < 8; i++) {
      script[0].ts = ts[i];
      pis[i] = pinfo(&script[0], 1, 2);
      pkts[i] = script[0].t.b;
      lens[i] = script[0].caplen;
    }
    ck_assert_int_eq(timed ? rtel_ctx_read_pkts_timed(ctx, pis, pkts, lens, 8)
                           : rtel_ctx_read_pkts(ctx, pis, pkts, lens, 8),
                     want);
    ck_assert_int_eq(r->calls, want);
    ck_assert_int_eq(r->scalls, nrep);
    for (i = 0; timed && i < want; i++) {
      ck_assert_msg(r->scalls_at[i] == before[i],
                    "packet %d: %d reports before it, want %d", i,
                    r->scalls_at[i], before[i]);
    }
    for (i = 0; i < nrep; i++) {
      ck_assert_uint_eq(r->period_end[i], ends[i]);
      ck_assert_uint_eq(r->spkts[i], pkts_at[i]);
    }
    if (fail) {
      ck_assert_int_eq(
          rtel_ctx_read_pkts_timed(ctx, pis + 5, pkts + 5, lens + 5, 3),
          RTEL_ERR_INVALID_STATE);
    } else {
      ck_assert_uint_eq(rtel_ctx_get_expiry(ctx), timed ? 10000 : 6000);
    }
    rtel_ctx_del(ctx);
    free(r);
  }
}
END_TEST

/* rtel_settings.period_origin: boundaries at origin + k x interval, the
 * first period the one holding the first packet, whether the origin is
 * before the packets, after them, or on a boundary. Each case by hand. */
START_TEST(test_stats_timer_origin) {
  static const struct {
    rtel_tstamp origin, first, expiry;
  } cases[] = {
      {300, 5000, 5300},       /* origin before: 300 + 5 x 1000 */
      {1000, 5000, 6000},      /* on the epoch's multiples of 1000 */
      {5000, 5000, 6000},      /* the first packet on the origin */
      {123456789, 5000, 5789}, /* origin after: 123456789 - k x 1000 */
      {123456789, 4789, 5789}, /* on a boundary below the origin */
      {2000000000, 999, 1000}, /* first period starts at 0 */
      {0, 5000, 6000},         /* no origin: the first packet */
  };
  size_t i;
  for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    rtel_ctx *ctx;
    rtel_settings s;
    rec *r = calloc(1, sizeof(*r));
    scripted *p;
    make_script();
    p = &script[0];
    rtel_settings_default(&s);
    s.stats_interval = 1000;
    s.period_origin = cases[i].origin;
    s.flow_flags = RTEL_FLOW_DISABLE;
    ctx = new_ctx(&s, r);
    p->ts = cases[i].first;
    ck_assert_int_eq(feed(ctx, p), 0);
    ck_assert_msg(rtel_ctx_get_expiry(ctx) == cases[i].expiry,
                  "case %zu: expiry %llu, expected %llu", i,
                  (unsigned long long)rtel_ctx_get_expiry(ctx),
                  (unsigned long long)cases[i].expiry);
    /* a late call: the latest boundary, then the next one */
    ck_assert_int_eq(rtel_ctx_handle_expiry(ctx, cases[i].expiry + 2500), 0);
    ck_assert_int_eq(r->scalls, 1);
    ck_assert_uint_eq(r->period_end[0], cases[i].expiry + 2000);
    ck_assert_uint_eq(rtel_ctx_get_expiry(ctx), cases[i].expiry + 3000);
    rtel_ctx_del(ctx);
    free(r);
  }
}
END_TEST

START_TEST(test_stats_timer_off) {
  rtel_ctx *ctx;
  rtel_settings s;
  rec *r = calloc(1, sizeof(*r));
  make_script();
  rtel_settings_default(&s);
  s.flow_flags = RTEL_FLOW_DISABLE;
  ctx = new_ctx(&s, r);
  ck_assert_uint_eq(rtel_ctx_get_expiry(ctx), RTEL_TSTAMP_NONE);
  ck_assert_int_eq(feed(ctx, &script[0]), 0);
  ck_assert_uint_eq(rtel_ctx_get_expiry(ctx), RTEL_TSTAMP_NONE);
  ck_assert_int_eq(rtel_ctx_handle_expiry(ctx, UINT64_C(1) << 62), 0);
  ck_assert_int_eq(r->scalls, 0);
  rtel_ctx_del(ctx);
  free(r);
}
END_TEST

/* ------------------------------------------------------------ allocator */

static void alloc_loop(const rtel_settings *s) {
  long n, total;
  tu_alloc *a = calloc(1, sizeof(*a));
  rtel_mem mem;
  rtel_ctx *ctx;
  int rc;
  /* how many allocation calls a successful construction makes */
  tu_alloc_init(a, &mem, 0);
  ctx = NULL;
  ck_assert_int_eq(rtel_ctx_new(&ctx, s, NULL, &mem, NULL), 0);
  total = a->ncalls;
  ck_assert_msg(total > 0, "rtel_ctx_new did not use the given allocator");
  rtel_ctx_del(ctx);
  ck_assert_int_eq(a->live, 0);
  ck_assert_int_eq(a->errors, 0);
  for (n = 1; n <= total + 1; n++) {
    tu_alloc_init(a, &mem, n);
    ctx = SENTINEL;
    rc = rtel_ctx_new(&ctx, s, NULL, &mem, NULL);
    if (n <= total) {
      ck_assert_msg(rc == RTEL_ERR_NOMEM,
                    "allocation %ld of %ld failed: rc %d", n, total, rc);
      ck_assert_msg(ctx == SENTINEL, "allocation %ld failed: *pctx touched",
                    n);
      ck_assert_msg(a->live == 0,
                    "allocation %ld failed: %ld blocks leaked (%ld allocated, "
                    "%ld freed)",
                    n, a->live, a->nallocs, a->nfrees);
      ck_assert_int_eq(a->errors, 0);
    } else {
      ck_assert_int_eq(rc, 0);
      rtel_ctx_del(ctx);
      ck_assert_int_eq(a->live, 0);
      ck_assert_int_eq(a->errors, 0);
    }
  }
  free(a);
}

START_TEST(test_failing_allocator) {
  rtel_settings s;
  alloc_loop(NULL);
  rtel_settings_default(&s);
  s.stats_interval = 1000;
  s.decode_flags = RTEL_DECODE_VERIFY_ICRC;
  alloc_loop(&s);
}
END_TEST

START_TEST(test_no_alloc_on_packet_path) {
  tu_alloc *a = calloc(1, sizeof(*a));
  rtel_mem mem;
  rtel_ctx *ctx = NULL;
  rtel_settings s;
  rtel_callbacks cb;
  rec *r = calloc(1, sizeof(*r));
  long before;
  int i;
  make_script();
  tu_alloc_init(a, &mem, 0);
  rtel_settings_default(&s);
  s.stats_interval = 10000;
  s.decode_flags = RTEL_DECODE_VERIFY_ICRC;
  memset(&cb, 0, sizeof(cb));
  cb.on_packet = on_packet;
  cb.on_stats = on_stats;
  ck_assert_int_eq(rtel_ctx_new(&ctx, &s, &cb, &mem, r), 0);
  /* the allocator struct is copied: clobbering ours must not matter */
  memset(&mem, 0, sizeof(mem));
  before = a->ncalls;
  for (i = 0; i < 1000; i++) {
    scripted *p = &script[i % NSCRIPT];
    rtel_pkt_info pi = pinfo(p, 0, 0);
    pi.ts = (rtel_tstamp)i * 100;
    ck_assert_int_eq(rtel_ctx_read_pkt(ctx, &pi, p->t.b, p->caplen), 0);
    if (i % 50 == 0)
      ck_assert_int_eq(rtel_ctx_handle_expiry(ctx, (rtel_tstamp)i * 100), 0);
  }
  ck_assert_msg(a->ncalls == before,
                "packet path called the allocator %ld times",
                a->ncalls - before);
  ck_assert_int_gt(r->scalls, 0);
  rtel_ctx_del(ctx);
  ck_assert_int_eq(a->live, 0);
  ck_assert_int_eq(a->errors, 0);
  free(a);
  free(r);
}
END_TEST

/* ------------------------------------------------------------ suite */

Suite *rtel_test_ctx_suite(void) {
  Suite *s = suite_create("ctx");
  TCase *tc;

  tc = tcase_create("lifecycle");
  tcase_add_test(tc, test_ctx_new_del);
  tcase_add_test(tc, test_settings_default);
  tcase_add_test(tc, test_settings_out_of_range);
  tcase_add_test(tc, test_unsupported_versions);
  tcase_add_test(tc, test_burst_stops_at_bad_packet);
  tcase_add_test(tc, test_struct_sizes);
  suite_add_tcase(s, tc);

  tc = tcase_create("counters");
  tcase_add_test(tc, test_stats_mix);
  tcase_add_test(tc, test_stats_no_verify);
  tcase_add_test(tc, test_stats_args);
  tcase_add_test(tc, test_settings_applied);
  suite_add_tcase(s, tc);

  tc = tcase_create("callbacks");
  tcase_add_test(tc, test_on_packet);
  tcase_add_test(tc, test_callback_failure);
  tcase_add_test(tc, test_on_stats_failure);
  tcase_add_test(tc, test_burst_equals_single);
  tcase_add_test(tc, test_burst_failure_midway);
  suite_add_tcase(s, tc);

  tc = tcase_create("timer");
  tcase_add_test(tc, test_stats_timer);
  tcase_add_test(tc, test_stats_timer_origin);
  tcase_add_test(tc, test_stats_timer_in_burst);
  tcase_add_test(tc, test_stats_timer_off);
  suite_add_tcase(s, tc);

  tc = tcase_create("memory");
  tcase_add_test(tc, test_failing_allocator);
  tcase_add_test(tc, test_no_alloc_on_packet_path);
  suite_add_tcase(s, tc);
  return s;
}
