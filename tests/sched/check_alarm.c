/* SPDX-License-Identifier: MIT */
/*
 * Alarm tests (rtel-metrics(7) "ALARMS", rocetel.h rtel_alarm /
 * rtel_ctx_set_threshold / rtel_ctx_set_baseline): one raise on the first
 * crossing record, none while raised, one clear on the first record back
 * beyond the 10 % hysteresis (value <= 0.9 thr; FET >= 1.1 thr), scopes,
 * the record pointer, the alarm table bound, baselines. Each record's
 * value is made by hand from the packets (FCT, bytes, NAKs, CNPs,
 * NVMe-oF event times).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define A_IP 0x0A000001u
#define B_IP 0x0A000002u
#define C_IP 0x0A000003u
#define IDLE 10000000u /* longer than every FCT below */

#define R_ RTEL_ALARM_RAISED
#define C_ RTEL_ALARM_CLEARED

typedef struct want {
  uint32_t metric, scope, kind, state;
  double value, limit;
} want;

static void init(H *h, rtel_tstamp idle, uint32_t max_keys) {
  rtel_settings st;
  rtel_settings_default(&st);
  st.flow_idle_timeout = idle;
  if (max_keys) {
    st.max_alarm_keys = max_keys;
  }
  h_init(h, &st);
}

/* Two-packet flow (one packet when fct = 0) on |port| from |src| to |dst|
 * QP |qpn|, payload |plen| each, ended by the idle timer. Returns the log
 * index where its record is expected. */
static size_t flow_fct(H *h, rtel_tstamp *t, rtel_tstamp idle, uint32_t port,
                       uint32_t src, uint32_t dst, uint32_t qpn,
                       rtel_tstamp fct, size_t plen) {
  size_t m;
  h_data(h, *t, port, src, dst, qpn, 0, plen);
  if (fct) {
    h_data(h, *t + fct, port, src, dst, qpn, 1, plen);
  }
  m = h->n;
  h_expire(h, *t + fct + idle);
  ck_assert_int_eq(h->e[m].kind, EV_FLOW);
  ck_assert_uint_eq(h->e[m].flow.fct, fct);
  *t += fct + idle + 1000;
  return m;
}

/* The alarms logged from |from| are exactly |w| (any order). */
static void ck_alarms(H *h, size_t from, const want *w, size_t nw) {
  size_t i, j, n = h_count(h, from, EV_ALARM);
  int used[8] = {0};
  ck_assert_msg(n == nw, "%zu alarm events, expected %zu", n, nw);
  for (i = 0; i < n; i++) {
    const entry *e = h_nth(h, from, EV_ALARM, i);
    const rtel_alarm *a = &e->alarm;
    int found = 0;
    ck_assert_msg(e->alarm_ptr_ok, "alarm's record pointer is not the "
                                   "record delivered just before it");
    for (j = 0; j < nw && !found; j++) {
      if (!used[j] && a->metric == w[j].metric && a->scope == w[j].scope &&
          a->kind == w[j].kind && a->state == w[j].state) {
        used[j] = found = 1;
        ck_assert_msg(a->value == w[j].value,
                      "metric %u: value %.17g, expected %.17g", a->metric,
                      a->value, w[j].value);
        if (w[j].kind == RTEL_ALARM_THRESHOLD) {
          ck_assert_msg(a->limit == w[j].limit,
                        "metric %u: limit %.17g, expected %.17g", a->metric,
                        a->limit, w[j].limit);
        }
      }
    }
    ck_assert_msg(found,
                  "unexpected alarm metric %u scope %u kind %u state "
                  "%u value %g",
                  a->metric, a->scope, a->kind, a->state, a->value);
  }
}

static void ck_one(H *h, size_t from, uint32_t metric, uint32_t scope,
                   uint32_t state, double value, double limit) {
  want w;
  w.metric = metric;
  w.scope = scope;
  w.kind = RTEL_ALARM_THRESHOLD;
  w.state = state;
  w.value = value;
  w.limit = limit;
  ck_alarms(h, from, &w, state ? 1 : 0);
}

/* ------------------------------------------------------------- FCT */

START_TEST(test_fct_pair_hysteresis) {
  H h;
  rtel_tstamp t = 10000;
  static const struct {
    rtel_tstamp fct;
    uint32_t state;
  } seq[] = {{500, 0},  {1500, R_}, {2000, 0},    {950, 0}, {900, C_},
             {800, 0},  {1001, R_}, {1000, 0},    {901, 0}, {0, C_},
             {1000, 0}, {999, 0},   {1000000, R_}};
  size_t i, m;
  uint32_t qpn = 0x100;

  init(&h, IDLE, 0);
  ck_assert_int_eq(
      rtel_ctx_set_threshold(h.ctx, RTEL_METRIC_FCT, RTEL_SCOPE_PAIR, 1000),
      0);
  for (i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
    m = flow_fct(&h, &t, IDLE, 7, A_IP, B_IP, qpn++, seq[i].fct, 64);
    ck_one(&h, m, RTEL_METRIC_FCT, RTEL_SCOPE_PAIR, seq[i].state,
           (double)seq[i].fct, 1000);
    if (seq[i].state) {
      const entry *e = h_nth(&h, m, EV_ALARM, 0);
      ck_assert(e > &h.e[m]); /* after its record */
      ck_assert_ptr_nonnull(e->alarm.flow);
      ck_assert_ptr_null(e->alarm.io);
      ck_assert_uint_eq(e->flow.fct, seq[i].fct);
      ck_assert_uint_eq(e->flow.dqpn, qpn - 1);
      ck_assert(h_addr_is(e->alarm.src, A_IP));
      ck_assert(h_addr_is(e->alarm.dst, B_IP));
      ck_assert_uint_eq(e->alarm.port, 7);
      ck_assert_uint_eq(e->alarm.obs, 0);
    }
    /* another pair is independent: always far above, raised once */
    m = flow_fct(&h, &t, IDLE, 7, A_IP, C_IP, 0x900, 5000, 64);
    ck_one(&h, m, RTEL_METRIC_FCT, RTEL_SCOPE_PAIR, i == 0 ? R_ : 0, 5000,
           1000);
  }
  ck_assert_uint_eq(h_stats(&h).alarms_raised, 4);
  ck_assert_uint_eq(h_stats(&h).alarms_cleared, 2);
  h_free(&h);
}
END_TEST

START_TEST(test_fct_port_scope) {
  H h;
  rtel_tstamp t = 10000;
  size_t m;
  want w[2];

  init(&h, IDLE, 0);
  ck_assert_int_eq(
      rtel_ctx_set_threshold(h.ctx, RTEL_METRIC_FCT, RTEL_SCOPE_PORT, 1000),
      0);
  /* the scope key is the port, whatever the pair */
  m = flow_fct(&h, &t, IDLE, 1, A_IP, B_IP, 0x10, 2000, 64);
  ck_one(&h, m, RTEL_METRIC_FCT, RTEL_SCOPE_PORT, R_, 2000, 1000);
  ck_assert_uint_eq(h_nth(&h, m, EV_ALARM, 0)->alarm.port, 1);
  m = flow_fct(&h, &t, IDLE, 1, C_IP, B_IP, 0x11, 3000, 64);
  ck_one(&h, m, RTEL_METRIC_FCT, RTEL_SCOPE_PORT, 0, 0, 0);
  m = flow_fct(&h, &t, IDLE, 2, A_IP, B_IP, 0x12, 2000, 64);
  ck_one(&h, m, RTEL_METRIC_FCT, RTEL_SCOPE_PORT, R_, 2000, 1000);
  ck_assert_uint_eq(h_nth(&h, m, EV_ALARM, 0)->alarm.port, 2);
  m = flow_fct(&h, &t, IDLE, 1, C_IP, A_IP, 0x13, 100, 64);
  ck_one(&h, m, RTEL_METRIC_FCT, RTEL_SCOPE_PORT, C_, 100, 1000);
  ck_assert_uint_eq(h_nth(&h, m, EV_ALARM, 0)->alarm.port, 1);
  m = flow_fct(&h, &t, IDLE, 2, C_IP, A_IP, 0x14, 2500, 64);
  ck_one(&h, m, RTEL_METRIC_FCT, RTEL_SCOPE_PORT, 0, 0, 0);

  /* both scopes: one record raises both */
  ck_assert_int_eq(
      rtel_ctx_set_threshold(h.ctx, RTEL_METRIC_FCT, RTEL_SCOPE_PAIR, 1500),
      0);
  m = flow_fct(&h, &t, IDLE, 3, A_IP, C_IP, 0x15, 1600, 64);
  w[0] = (want){
      RTEL_METRIC_FCT, RTEL_SCOPE_PAIR, RTEL_ALARM_THRESHOLD, R_, 1600, 1500};
  w[1] = (want){
      RTEL_METRIC_FCT, RTEL_SCOPE_PORT, RTEL_ALARM_THRESHOLD, R_, 1600, 1000};
  ck_alarms(&h, m, w, 2);
  /* 1400: clears neither (pair: > 1350; port: > 900) */
  m = flow_fct(&h, &t, IDLE, 3, A_IP, C_IP, 0x16, 1400, 64);
  ck_alarms(&h, m, w, 0);
  /* 1000: clears the pair only */
  m = flow_fct(&h, &t, IDLE, 3, A_IP, C_IP, 0x17, 1000, 64);
  ck_one(&h, m, RTEL_METRIC_FCT, RTEL_SCOPE_PAIR, C_, 1000, 1500);
  h_free(&h);
}
END_TEST

/* ------------------------------------------------------------- FET */

/* Two RDMA WRITE ONLY packets of 1000 bytes: FET counts the second on the
 * wire, 14 Ethernet + 20 IPv4 + 8 UDP + 12 BTH + 16 RETH + 1000 + 4 ICRC
 * = 1074 bytes + 24 (FCS, preamble, gap) = 8784 bits over the FCT:
 * FET = 8784 * 1e9 / FCT bit/s, below the 1 Gb/s floor when FCT > 8784 ns,
 * cleared at >= 1.1 Gb/s (FCT <= 7985 ns: 1.10006 Gb/s; 7986: 1.09992). */
START_TEST(test_fet_floor) {
  H h;
  rtel_tstamp t = 10000;
  static const struct {
    rtel_tstamp fct;
    uint32_t state;
  } seq[] = {{5000, 0}, {20000, R_}, {8785, 0},  {7986, 0}, {7985, C_},
             {0, 0},    {8784, 0},   {8785, R_}, {6000, C_}};
  size_t i, m;

  init(&h, 100000, 0);
  ck_assert_int_eq(
      rtel_ctx_set_threshold(h.ctx, RTEL_METRIC_FET, RTEL_SCOPE_PAIR, 1e9), 0);
  for (i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
    uint64_t fet =
        seq[i].fct ? (uint64_t)(8784 * 1000000000ull / seq[i].fct) : 0;
    m = flow_fct(&h, &t, 100000, 1, A_IP, B_IP, 0x20 + (uint32_t)i, seq[i].fct,
                 1000);
    ck_assert_uint_eq(h.e[m].flow.bytes, seq[i].fct ? 2000 : 1000);
    /* the record's own FET, within a rounding unit of ours */
    ck_assert_uint_le(h.e[m].flow.fet_bps - fet + 1, 2);
    ck_one(&h, m, RTEL_METRIC_FET, RTEL_SCOPE_PAIR, seq[i].state,
           (double)h.e[m].flow.fet_bps, 1e9);
  }
  h_free(&h);
}
END_TEST

/* ------------------------------------------------------------- FNR */

/* |n| data packets A -> B (qpn), |acks| ACKs naming two of them (which
 * pairs the flow with |peer|), then |naks| PSN-sequence-error NAKs. */
static size_t flow_naks(H *h, rtel_tstamp *t, uint32_t qpn, uint32_t peer,
                        unsigned n, int acks, unsigned naks) {
  unsigned i;
  size_t m;
  for (i = 0; i < n; i++) {
    h_data(h, *t + 100 * i, 1, A_IP, B_IP, qpn, i, 256);
  }
  if (acks) {
    h_aeth(h, *t + 100 * n, 1, B_IP, A_IP, peer, 2, 0x1F);
    h_aeth(h, *t + 100 * n + 10, 1, B_IP, A_IP, peer, 3, 0x1F);
  }
  for (i = 0; i < naks; i++) {
    h_aeth(h, *t + 100 * n + 20 + i, 1, B_IP, A_IP, peer, 4, 0x60);
  }
  m = h->n;
  h_expire(h, *t + 100 * (n - 1) + IDLE);
  ck_assert_int_eq(h->e[m].kind, EV_FLOW);
  ck_assert_uint_eq(h->e[m].flow.packets, n);
  *t += 100 * n + 2 * IDLE;
  return m;
}

START_TEST(test_fnr_paired_only) {
  H h;
  rtel_tstamp t = 10000;
  size_t m;

  init(&h, IDLE, 0);
  ck_assert_int_eq(
      rtel_ctx_set_threshold(h.ctx, RTEL_METRIC_FNR, RTEL_SCOPE_PAIR, 0.1), 0);
  /* paired by ACK PSNs, 2 NAKs / 10 packets */
  m = flow_naks(&h, &t, 0x500, 0x600, 10, 1, 2);
  ck_assert(h.e[m].flow.flags & RTEL_FLOW_F_PAIRED);
  ck_assert_uint_eq(h.e[m].flow.naks_seq, 2);
  ck_one(&h, m, RTEL_METRIC_FNR, RTEL_SCOPE_PAIR, R_, 2.0 / 10.0, 0.1);
  /* an unpaired flow of the same pair: FNR unknown, not zero: no clear */
  m = flow_naks(&h, &t, 0x501, 0, 10, 0, 0);
  ck_assert(!(h.e[m].flow.flags & RTEL_FLOW_F_PAIRED));
  ck_one(&h, m, RTEL_METRIC_FNR, RTEL_SCOPE_PAIR, 0, 0, 0);
  /* 1 NAK / 10 = 0.1: not beyond the hysteresis (> 0.09) */
  m = flow_naks(&h, &t, 0x500, 0x600, 10, 0, 1);
  ck_assert(h.e[m].flow.flags & RTEL_FLOW_F_PAIRED);
  ck_one(&h, m, RTEL_METRIC_FNR, RTEL_SCOPE_PAIR, 0, 0, 0);
  /* 0 NAKs on the paired QP: clears */
  m = flow_naks(&h, &t, 0x500, 0x600, 20, 0, 0);
  ck_assert(h.e[m].flow.flags & RTEL_FLOW_F_PAIRED);
  ck_one(&h, m, RTEL_METRIC_FNR, RTEL_SCOPE_PAIR, C_, 0.0, 0.1);
  /* and raises again: 3 / 20 */
  m = flow_naks(&h, &t, 0x500, 0x600, 20, 0, 3);
  ck_one(&h, m, RTEL_METRIC_FNR, RTEL_SCOPE_PAIR, R_, 3.0 / 20.0, 0.1);
  h_free(&h);
}
END_TEST

/* ------------------------------------------------------------- retx */

START_TEST(test_retx_ratio) {
  H h;
  rtel_tstamp t = 10000;
  static const uint32_t psn1[10] = {0, 1, 2, 3, 4, 5, 6, 4, 5, 6};
  size_t m, i;

  init(&h, IDLE, 0);
  ck_assert_int_eq(rtel_ctx_set_threshold(h.ctx, RTEL_METRIC_RETX_RATIO,
                                          RTEL_SCOPE_PORT, 0.2),
                   0);
  for (i = 0; i < 10; i++) {
    h_data(&h, t + 10 * i, 5, A_IP, B_IP, 0x40, psn1[i], 128);
  }
  m = h.n;
  h_expire(&h, t + 90 + IDLE);
  ck_assert_uint_eq(h.e[m].flow.retx_packets, 3);
  ck_one(&h, m, RTEL_METRIC_RETX_RATIO, RTEL_SCOPE_PORT, R_, 3.0 / 10.0, 0.2);
  t += 5 * IDLE;
  /* 2 / 10 = 0.2 is not above: stays raised, no event */
  for (i = 0; i < 10; i++) {
    static const uint32_t psn2[10] = {0, 1, 2, 3, 4, 5, 6, 7, 6, 7};
    h_data(&h, t + 10 * i, 5, A_IP, B_IP, 0x41, psn2[i], 128);
  }
  m = h.n;
  h_expire(&h, t + 90 + IDLE);
  ck_assert_uint_eq(h.e[m].flow.retx_packets, 2);
  ck_one(&h, m, RTEL_METRIC_RETX_RATIO, RTEL_SCOPE_PORT, 0, 0, 0);
  t += 5 * IDLE;
  m = flow_fct(&h, &t, IDLE, 5, A_IP, B_IP, 0x42, 500, 128);
  ck_one(&h, m, RTEL_METRIC_RETX_RATIO, RTEL_SCOPE_PORT, C_, 0.0, 0.2);
  h_free(&h);
}
END_TEST

/* ------------------------------------------------------------- CNP */

START_TEST(test_cnp_rate) {
  H h;
  rtel_tstamp t = 10000;
  const rtel_tstamp idle = 10000000, fct = 1000000; /* 1 ms */
  size_t m;
  int i;
  double rate;

  init(&h, idle, 0);
  ck_assert_int_eq(rtel_ctx_set_threshold(h.ctx, RTEL_METRIC_CNP_RATE,
                                          RTEL_SCOPE_PAIR, 1000),
                   0);
  h_data(&h, t, 3, A_IP, B_IP, 0x700, 0, 256);
  h_data(&h, t + 10, 3, A_IP, B_IP, 0x700, 1, 256);
  h_aeth(&h, t + 20, 3, B_IP, A_IP, 0x800, 0, 0x1F);
  h_aeth(&h, t + 30, 3, B_IP, A_IP, 0x800, 1, 0x1F);
  for (i = 0; i < 5; i++) {
    h_cnp(&h, t + 40 + (rtel_tstamp)i, 3, B_IP, A_IP, 0x800);
  }
  h_data(&h, t + fct, 3, A_IP, B_IP, 0x700, 2, 256);
  m = h.n;
  h_expire(&h, t + fct + idle);
  ck_assert_uint_eq(h.e[m].flow.cnps, 5);
  ck_assert_uint_eq(h.e[m].flow.fct, fct);
  rate = 5.0 / ((double)fct / 1e9);
  ck_assert_uint_eq(h_count(&h, m, EV_ALARM), 1);
  {
    const entry *e = h_nth(&h, m, EV_ALARM, 0);
    ck_assert_uint_eq(e->alarm.metric, RTEL_METRIC_CNP_RATE);
    ck_assert_uint_eq(e->alarm.state, R_);
    ck_assert(fabs(e->alarm.value - rate) <= rate * 1e-12);
    ck_assert(e->alarm.limit == 1000);
    ck_assert(e->alarm_ptr_ok);
  }
  t += fct + 2 * idle;
  /* 1 CNP in 2 ms = 500/s: not beyond the hysteresis (> 900) */
  h_data(&h, t, 3, A_IP, B_IP, 0x700, 3, 256);
  h_cnp(&h, t + 40, 3, B_IP, A_IP, 0x800);
  h_data(&h, t + 2 * fct, 3, A_IP, B_IP, 0x700, 4, 256);
  m = h.n;
  h_expire(&h, t + 2 * fct + idle);
  ck_assert_uint_eq(h.e[m].flow.cnps, 1);
  ck_one(&h, m, RTEL_METRIC_CNP_RATE, RTEL_SCOPE_PAIR, C_,
         1.0 / ((double)(2 * fct) / 1e9), 1000);
  h_free(&h);
}
END_TEST

/* ------------------------------------------------------------- I/O */

/* IOL per pair (10 us), DAL per port (5 us), DPL per pair (3 us). */
START_TEST(test_iol_dal_dpl) {
  H h;
  rtel_settings st;
  nvq q = {4, 0x0A010001u, 0x0A020001u, 0x11, 0x22, 100, 500};
  rtel_tstamp t = 100000;
  size_t m;
  uint32_t psn;
  want w[3];
  const entry *e;

  memset(w, 0, sizeof(w));
  rtel_settings_default(&st);
  st.flow_idle_timeout = 1000000000;
  h_init(&h, &st);
  ck_assert_int_eq(
      rtel_ctx_set_threshold(h.ctx, RTEL_METRIC_IOL, RTEL_SCOPE_PAIR, 10000),
      0);
  ck_assert_int_eq(
      rtel_ctx_set_threshold(h.ctx, RTEL_METRIC_DAL, RTEL_SCOPE_PORT, 5000),
      0);
  ck_assert_int_eq(
      rtel_ctx_set_threshold(h.ctx, RTEL_METRIC_DPL, RTEL_SCOPE_PAIR, 3000),
      0);
  nv_open(&h, &q, t, 1);
  ck_assert_uint_eq(h_count(&h, 0, EV_IO), 2);
  ck_assert_uint_eq(h_count(&h, 0, EV_ALARM), 0);

  /* read, IOL 8000, DAL 2000: nothing */
  t += 1000;
  m = h.n;
  nv_cmd(&h, &q, t, RTEL_NVME_OP_READ, 2, 1, 0, 0xA0000000ull, 4096, 0x71);
  nv_wdata(&h, &q, t + 2000, 0xA0000000ull, 0x71, 4096);
  nv_rsp(&h, &q, t + 8000, 2, 0);
  ck_assert_uint_eq(h_count(&h, m, EV_IO), 1);
  ck_assert_int_eq(h_nth(&h, m, EV_IO, 0)->io.iol, 8000);
  ck_assert_int_eq(h_nth(&h, m, EV_IO, 0)->io.dal, 2000);
  ck_alarms(&h, m, w, 0);

  /* read, IOL 12000, DAL 6000: both raise */
  t += 20000;
  m = h.n;
  nv_cmd(&h, &q, t, RTEL_NVME_OP_READ, 3, 1, 8, 0xA1000000ull, 4096, 0x72);
  nv_wdata(&h, &q, t + 6000, 0xA1000000ull, 0x72, 4096);
  nv_rsp(&h, &q, t + 12000, 3, 0);
  ck_assert_uint_eq(h_count(&h, m, EV_IO), 1);
  w[0] = (want){RTEL_METRIC_IOL,
                RTEL_SCOPE_PAIR,
                RTEL_ALARM_THRESHOLD,
                R_,
                12000,
                10000};
  w[1] = (want){
      RTEL_METRIC_DAL, RTEL_SCOPE_PORT, RTEL_ALARM_THRESHOLD, R_, 6000, 5000};
  ck_alarms(&h, m, w, 2);
  e = h_nth(&h, m, EV_ALARM, 0);
  ck_assert_ptr_null(e->alarm.flow);
  ck_assert_ptr_nonnull(e->alarm.io);
  ck_assert_uint_eq(e->io.cid, 3);
  ck_assert_int_eq(e->io.iol, 12000);
  ck_assert(h_addr_is(e->alarm.src, q.host) ||
            e->alarm.scope == RTEL_SCOPE_PORT);
  ck_assert_uint_eq(e->alarm.port, 4);

  /* write: Q at +1000, P at +5000 (DPL 4000 raises), R at +6000: IOL
   * 6000 and DAL (1000 + 1000) clear */
  t += 20000;
  m = h.n;
  nv_cmd(&h, &q, t, RTEL_NVME_OP_WRITE, 4, 1, 16, 0xA2000000ull, 4096, 0x73);
  psn = nv_rdreq(&h, &q, t + 1000, 0xA2000000ull, 0x73, 4096);
  nv_rdresp(&h, &q, t + 5000, psn, 4096);
  nv_rsp(&h, &q, t + 6000, 4, 0);
  ck_assert_uint_eq(h_count(&h, m, EV_IO), 1);
  ck_assert_int_eq(h_nth(&h, m, EV_IO, 0)->io.dpl, 4000);
  ck_assert_int_eq(h_nth(&h, m, EV_IO, 0)->io.dal, 2000);
  w[0] = (want){
      RTEL_METRIC_IOL, RTEL_SCOPE_PAIR, RTEL_ALARM_THRESHOLD, C_, 6000, 10000};
  w[1] = (want){
      RTEL_METRIC_DAL, RTEL_SCOPE_PORT, RTEL_ALARM_THRESHOLD, C_, 2000, 5000};
  w[2] = (want){
      RTEL_METRIC_DPL, RTEL_SCOPE_PAIR, RTEL_ALARM_THRESHOLD, R_, 4000, 3000};
  ck_alarms(&h, m, w, 3);
  ck_assert_uint_eq(h_stats(&h).alarms_raised, 3);
  ck_assert_uint_eq(h_stats(&h).alarms_cleared, 2);
  h_free(&h);
}
END_TEST

/* "Flow records cut short (end truncated or evicted) are not judged":
 * neither raised nor cleared by them. */
START_TEST(test_cut_flows_not_judged) {
  H h;
  rtel_settings st;
  static const uint32_t ids[2] = {1, 2};
  const rtel_tstamp S = 100000, P0 = 3000000;
  size_t m;

  rtel_settings_default(&st);
  st.flow_idle_timeout = 10000;
  st.max_flows = 2;
  h_init(&h, &st);
  h.ids = ids;
  h.nids = 2;
  h_add_port(&h, 1, 0);
  h_add_port(&h, 2, 0);
  ck_assert_int_eq(
      rtel_ctx_set_threshold(h.ctx, RTEL_METRIC_FCT, RTEL_SCOPE_PORT, 1000),
      0);
  /* evicted: FCT 2000 */
  h_data(&h, 1000, 1, A_IP, B_IP, 0x10, 0, 64);
  h_data(&h, 3000, 1, A_IP, B_IP, 0x10, 1, 64);
  h_data(&h, 3100, 1, A_IP, B_IP, 0x11, 0, 64);
  m = h.n;
  h_data(&h, 3200, 1, A_IP, B_IP, 0x12, 0, 64);
  ck_assert_uint_eq(h_count(&h, m, EV_FLOW), 1);
  ck_assert_uint_eq(h_nth(&h, m, EV_FLOW, 0)->flow.end, RTEL_END_EVICTED);
  ck_assert_uint_eq(h_nth(&h, m, EV_FLOW, 0)->flow.fct, 2000);
  ck_assert_uint_eq(h_count(&h, m, EV_ALARM), 0);
  h_advance(&h, 2000000);
  ck_assert_uint_eq(h_count(&h, 0, EV_ALARM), 0);

  /* truncated: FCT 5000 on port 1, cut at the end of slot 0 */
  ck_assert_int_eq(h_sched(&h, RTEL_SCHED_POLL, 1, S, 0, P0), 0); /* {1} */
  h_data(&h, P0 + 90000, 1, A_IP, B_IP, 0x13, 0, 64);
  h_data(&h, P0 + 95000, 1, A_IP, B_IP, 0x13, 1, 64);
  m = h.n;
  h_advance(&h, P0 + S + 1); /* {2} */
  ck_assert_uint_eq(h_count(&h, m, EV_FLOW), 1);
  ck_assert_uint_eq(h_nth(&h, m, EV_FLOW, 0)->flow.end, RTEL_END_TRUNCATED);
  ck_assert_uint_eq(h_count(&h, m, EV_ALARM), 0);

  /* a complete flow raises: the threshold is live */
  h_advance(&h, P0 + 2 * S); /* {1} */
  ck_assert_int_eq(rtel_ctx_port_measured(h.ctx, 1), 1);
  h_data(&h, P0 + 2 * S + 100, 1, A_IP, B_IP, 0x14, 0, 64);
  h_data(&h, P0 + 2 * S + 2100, 1, A_IP, B_IP, 0x14, 1, 64);
  m = h.n;
  h_advance(&h, P0 + 2 * S + 50000);
  ck_one(&h, m, RTEL_METRIC_FCT, RTEL_SCOPE_PORT, R_, 2000, 1000);
  /* a truncated one-packet flow (FCT 0) does not clear it */
  h_data(&h, P0 + 2 * S + 95000, 1, A_IP, B_IP, 0x15, 0, 64);
  m = h.n;
  h_advance(&h, P0 + 3 * S); /* {2} */
  ck_assert_uint_eq(h_count(&h, m, EV_FLOW), 1);
  ck_assert_uint_eq(h_nth(&h, m, EV_FLOW, 0)->flow.end, RTEL_END_TRUNCATED);
  ck_assert_uint_eq(h_count(&h, m, EV_ALARM), 0);
  /* a complete one does */
  h_advance(&h, P0 + 4 * S); /* {1} */
  h_data(&h, P0 + 4 * S + 100, 1, A_IP, B_IP, 0x16, 0, 64);
  m = h.n;
  h_advance(&h, P0 + 4 * S + 50000);
  ck_one(&h, m, RTEL_METRIC_FCT, RTEL_SCOPE_PORT, C_, 0, 1000);
  h_free(&h);
}
END_TEST

/* ------------------------------------------------------------- set/remove */

START_TEST(test_threshold_remove) {
  H h;
  rtel_tstamp t = 10000;
  size_t m;

  init(&h, IDLE, 0);
  ck_assert_int_eq(
      rtel_ctx_set_threshold(h.ctx, RTEL_METRIC_FCT, RTEL_SCOPE_PAIR, 1000),
      0);
  m = flow_fct(&h, &t, IDLE, 1, A_IP, B_IP, 0x30, 2000, 64);
  ck_one(&h, m, RTEL_METRIC_FCT, RTEL_SCOPE_PAIR, R_, 2000, 1000);
  ck_assert_int_eq(
      rtel_ctx_set_threshold(h.ctx, RTEL_METRIC_FCT, RTEL_SCOPE_PAIR, 0), 0);
  m = h.n;
  flow_fct(&h, &t, IDLE, 1, A_IP, B_IP, 0x31, 3000, 64);
  flow_fct(&h, &t, IDLE, 1, A_IP, B_IP, 0x32, 0, 64);
  flow_fct(&h, &t, IDLE, 1, A_IP, C_IP, 0x33, 9000, 64);
  ck_assert_uint_eq(h_count(&h, m, EV_ALARM), 0);
  /* another metric does not wake it */
  ck_assert_int_eq(rtel_ctx_set_threshold(h.ctx, RTEL_METRIC_RETX_RATIO,
                                          RTEL_SCOPE_PAIR, 0.5),
                   0);
  flow_fct(&h, &t, IDLE, 1, A_IP, C_IP, 0x34, 9000, 64);
  ck_assert_uint_eq(h_count(&h, m, EV_ALARM), 0);
  ck_assert_uint_eq(h_stats(&h).alarms_raised, 1);
  ck_assert_uint_eq(h_stats(&h).alarms_cleared, 0);
  h_free(&h);
}
END_TEST

/* Removing and setting a threshold again: whatever the library does with
 * the open alarm, the event stream stays consistent (no second raise
 * without a clear between, a clear only for an open raise). */
START_TEST(test_threshold_readd_consistent) {
  H h;
  rtel_tstamp t = 10000;
  size_t i;
  int open = 0;
  static const rtel_tstamp seq[] = {2000, 0, 3000, 4000, 100, 5000};

  init(&h, IDLE, 0);
  for (i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
    size_t m, j;
    ck_assert_int_eq(rtel_ctx_set_threshold(h.ctx, RTEL_METRIC_FCT,
                                            RTEL_SCOPE_PAIR,
                                            i == 1 ? 0 : 1000),
                     0);
    m = flow_fct(&h, &t, IDLE, 1, A_IP, B_IP, 0x30 + (uint32_t)i, seq[i], 64);
    for (j = 0; j < h_count(&h, m, EV_ALARM); j++) {
      const rtel_alarm *a = &h_nth(&h, m, EV_ALARM, j)->alarm;
      if (a->state == R_) {
        ck_assert_msg(!open, "raised twice without a clear");
        open = 1;
      } else {
        ck_assert_msg(open, "cleared without an open alarm");
        open = 0;
      }
    }
    if (i >= 2) {
      /* the threshold is set: the state matches the last value */
      ck_assert_int_eq(open, seq[i] > 1000);
    }
  }
  h_free(&h);
}
END_TEST

START_TEST(test_invalid_args) {
  H h;
  init(&h, IDLE, 0);
  ck_assert_int_eq(
      rtel_ctx_set_threshold(NULL, RTEL_METRIC_FCT, RTEL_SCOPE_PAIR, 1),
      RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(rtel_ctx_set_threshold(h.ctx, 0, RTEL_SCOPE_PAIR, 1),
                   RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(rtel_ctx_set_threshold(h.ctx, 9, RTEL_SCOPE_PAIR, 1),
                   RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(rtel_ctx_set_threshold(h.ctx, 0x104, RTEL_SCOPE_PAIR, 1),
                   RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(rtel_ctx_set_threshold(h.ctx, RTEL_METRIC_FCT, 0, 1),
                   RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(rtel_ctx_set_threshold(h.ctx, RTEL_METRIC_FCT, 3, 1),
                   RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(
      rtel_ctx_set_threshold(h.ctx, RTEL_METRIC_FCT, RTEL_SCOPE_PAIR, -1),
      RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(
      rtel_ctx_set_threshold(h.ctx, RTEL_METRIC_FCT, RTEL_SCOPE_PAIR, NAN),
      RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(
      rtel_ctx_set_threshold(h.ctx, RTEL_METRIC_CNP_RATE, RTEL_SCOPE_PORT, 0),
      0);
  ck_assert_int_eq(
      rtel_ctx_set_baseline(NULL, RTEL_METRIC_FCT, RTEL_SCOPE_PAIR, 3, 10),
      RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(rtel_ctx_set_baseline(h.ctx, 9, RTEL_SCOPE_PAIR, 3, 10),
                   RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(rtel_ctx_set_baseline(h.ctx, RTEL_METRIC_FCT, 3, 3, 10),
                   RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(
      rtel_ctx_set_baseline(h.ctx, RTEL_METRIC_FCT, RTEL_SCOPE_PAIR, -3, 10),
      RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(
      rtel_ctx_set_baseline(h.ctx, RTEL_METRIC_FCT, RTEL_SCOPE_PAIR, NAN, 10),
      RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(
      rtel_ctx_set_baseline(h.ctx, RTEL_METRIC_FCT, RTEL_SCOPE_PAIR, 3, 1),
      RTEL_ERR_INVALID_ARGUMENT); /* warmup at least 2 */
  ck_assert_int_eq(
      rtel_ctx_set_baseline(h.ctx, RTEL_METRIC_FCT, RTEL_SCOPE_PAIR, 3, 2), 0);
  ck_assert_int_eq(
      rtel_ctx_set_baseline(h.ctx, RTEL_METRIC_FCT, RTEL_SCOPE_PAIR, 0, 0), 0);
  h_free(&h);
}
END_TEST

/* ------------------------------------------------------------- table */

START_TEST(test_table_bound) {
  H h;
  rtel_tstamp t = 10000;
  size_t m;

  init(&h, IDLE, 2);
  ck_assert_int_eq(
      rtel_ctx_set_threshold(h.ctx, RTEL_METRIC_FCT, RTEL_SCOPE_PORT, 1000),
      0);
  m = flow_fct(&h, &t, IDLE, 1, A_IP, B_IP, 0x50, 2000, 64);
  ck_one(&h, m, RTEL_METRIC_FCT, RTEL_SCOPE_PORT, R_, 2000, 1000);
  m = flow_fct(&h, &t, IDLE, 2, A_IP, B_IP, 0x51, 2000, 64);
  ck_one(&h, m, RTEL_METRIC_FCT, RTEL_SCOPE_PORT, R_, 2000, 1000);
  ck_assert_uint_eq(h_stats(&h).alarms_dropped, 0);
  m = flow_fct(&h, &t, IDLE, 3, A_IP, B_IP, 0x52, 2000, 64);
  ck_one(&h, m, RTEL_METRIC_FCT, RTEL_SCOPE_PORT, 0, 0, 0);
  ck_assert_uint_eq(h_stats(&h).alarms_dropped, 1);
  m = flow_fct(&h, &t, IDLE, 3, A_IP, B_IP, 0x53, 2000, 64);
  ck_one(&h, m, RTEL_METRIC_FCT, RTEL_SCOPE_PORT, 0, 0, 0);
  ck_assert_uint_eq(h_stats(&h).alarms_dropped, 2);
  /* the keys that exist keep working */
  m = flow_fct(&h, &t, IDLE, 1, A_IP, B_IP, 0x54, 100, 64);
  ck_one(&h, m, RTEL_METRIC_FCT, RTEL_SCOPE_PORT, C_, 100, 1000);
  ck_assert_uint_eq(h_stats(&h).alarms_dropped, 2);
  h_free(&h);
}
END_TEST

/* alarms_dropped counts "Records not evaluated for alarms because the
 * alarm table was full": one record with two metrics whose keys do not
 * fit is one record. */
START_TEST(test_table_bound_counts_records) {
  H h;
  rtel_tstamp t = 10000;
  size_t m;

  init(&h, IDLE, 2);
  ck_assert_int_eq(
      rtel_ctx_set_threshold(h.ctx, RTEL_METRIC_FCT, RTEL_SCOPE_PORT, 1000),
      0);
  ck_assert_int_eq(rtel_ctx_set_threshold(h.ctx, RTEL_METRIC_RETX_RATIO,
                                          RTEL_SCOPE_PORT, 0.5),
                   0);
  m = flow_fct(&h, &t, IDLE, 1, A_IP, B_IP, 0x60, 2000, 64);
  ck_one(&h, m, RTEL_METRIC_FCT, RTEL_SCOPE_PORT, R_, 2000, 1000);
  ck_assert_uint_eq(h_stats(&h).alarms_dropped, 0);
  m = flow_fct(&h, &t, IDLE, 2, A_IP, B_IP, 0x61, 2000, 64);
  ck_one(&h, m, RTEL_METRIC_FCT, RTEL_SCOPE_PORT, 0, 0, 0);
  ck_assert_msg(h_stats(&h).alarms_dropped == 1,
                "one record not evaluated, alarms_dropped = %llu",
                (unsigned long long)h_stats(&h).alarms_dropped);
  h_free(&h);
}
END_TEST

/* ------------------------------------------------------------- baseline */

/* The documented EWMA mean (weight 1/32), computed here. */
typedef struct ewma {
  uint32_t n;
  double mean;
} ewma;

static void ewma_add(ewma *b, double v) {
  if (b->n++ == 0) {
    b->mean = v;
  } else {
    b->mean += (v - b->mean) / 32.0;
  }
}

START_TEST(test_baseline_fct) {
  H h;
  rtel_tstamp t = 10000;
  ewma b = {0, 0};
  size_t m, i;
  const entry *e;

  init(&h, 100000, 0);
  ck_assert_int_eq(
      rtel_ctx_set_baseline(h.ctx, RTEL_METRIC_FCT, RTEL_SCOPE_PAIR, 4, 16),
      0);
  /* warm-up and normal values: 10000 +- 20 */
  for (i = 0; i < 40; i++) {
    rtel_tstamp v = 10000 + (i * 37) % 41 - 20;
    m = flow_fct(&h, &t, 100000, 1, A_IP, B_IP, 0x100 + (uint32_t)i, v, 64);
    ck_assert_uint_eq(h_count(&h, m, EV_ALARM), 0);
    ewma_add(&b, (double)v);
  }
  /* an outlier */
  m = flow_fct(&h, &t, 100000, 1, A_IP, B_IP, 0x200, 20000, 64);
  ck_assert_uint_eq(h_count(&h, m, EV_ALARM), 1);
  e = h_nth(&h, m, EV_ALARM, 0);
  ck_assert_uint_eq(e->alarm.kind, RTEL_ALARM_BASELINE);
  ck_assert_uint_eq(e->alarm.metric, RTEL_METRIC_FCT);
  ck_assert_uint_eq(e->alarm.scope, RTEL_SCOPE_PAIR);
  ck_assert_uint_eq(e->alarm.state, R_);
  ck_assert(e->alarm.value == 20000);
  ck_assert_msg(e->alarm.limit > b.mean && e->alarm.limit < 20000,
                "limit %g, mean %g", e->alarm.limit, b.mean);
  ck_assert(e->alarm_ptr_ok);
  ewma_add(&b, 20000);
  /* still far: no repeat */
  m = flow_fct(&h, &t, 100000, 1, A_IP, B_IP, 0x201, 25000, 64);
  ck_assert_uint_eq(h_count(&h, m, EV_ALARM), 0);
  ewma_add(&b, 25000);
  /* back to normal: cleared */
  m = flow_fct(&h, &t, 100000, 1, A_IP, B_IP, 0x202, 10000, 64);
  ck_assert_uint_eq(h_count(&h, m, EV_ALARM), 1);
  e = h_nth(&h, m, EV_ALARM, 0);
  ck_assert_uint_eq(e->alarm.kind, RTEL_ALARM_BASELINE);
  ck_assert_uint_eq(e->alarm.state, C_);
  ck_assert(e->alarm.value == 10000);
  /* other pairs have their own baseline (still warming up) */
  m = flow_fct(&h, &t, 100000, 1, A_IP, C_IP, 0x203, 90000, 64);
  ck_assert_uint_eq(h_count(&h, m, EV_ALARM), 0);
  ck_assert_uint_eq(h_stats(&h).alarms_raised, 1);
  ck_assert_uint_eq(h_stats(&h).alarms_cleared, 1);
  h_free(&h);
}
END_TEST

/* The clear of a baseline alarm: "cleared when a value is back within
 * k / 2 deviations". After the raise, values approach the (documented
 * EWMA) mean by 3 % of their deviation per record; the clear event reports
 * mean + k sd, which gives sd: the clearing value is within k/2 sd, the
 * one before it was not (within the drift of sd over one record). */
START_TEST(test_baseline_clear_half_k) {
  H h;
  rtel_tstamp t = 10000;
  ewma b = {0, 0};
  size_t m, i;
  const double k = 4;
  double dev = 8000, prev = 0;
  int cleared = 0;

  init(&h, 100000, 0);
  ck_assert_int_eq(
      rtel_ctx_set_baseline(h.ctx, RTEL_METRIC_FCT, RTEL_SCOPE_PAIR, k, 16),
      0);
  for (i = 0; i < 40; i++) {
    rtel_tstamp v = 10000 + (i * 37) % 41 - 20;
    flow_fct(&h, &t, 100000, 1, A_IP, B_IP, 0x100 + (uint32_t)i, v, 64);
    ewma_add(&b, (double)v);
  }
  m = flow_fct(&h, &t, 100000, 1, A_IP, B_IP, 0x200, 20000, 64);
  ck_assert_uint_eq(h_count(&h, m, EV_ALARM), 1);
  ewma_add(&b, 20000);
  for (i = 0; i < 300 && !cleared; i++) {
    double mean = b.mean;
    rtel_tstamp v = (rtel_tstamp)(mean + dev + 0.5);
    double d = (double)v - mean;
    m = flow_fct(&h, &t, 100000, 1, A_IP, B_IP, 0x300 + (uint32_t)i, v, 64);
    if (h_count(&h, m, EV_ALARM)) {
      const rtel_alarm *a = &h_nth(&h, m, EV_ALARM, 0)->alarm;
      double sd = (a->limit - mean) / k;
      ck_assert_uint_eq(a->state, C_);
      ck_assert_uint_eq(a->kind, RTEL_ALARM_BASELINE);
      ck_assert_msg(sd > 0, "limit %g not above the mean %g", a->limit, mean);
      ck_assert_msg(d <= k * sd / 2 * 1.0001, "cleared at %g deviations",
                    d / sd);
      ck_assert_msg(prev > 0.45 * k * sd,
                    "the record before the clear was %g deviations off "
                    "(clear expected within k/2 = %g)",
                    prev / sd, k / 2);
      cleared = 1;
    }
    prev = d;
    ewma_add(&b, (double)v);
    dev *= 0.97;
  }
  ck_assert(cleared);
  h_free(&h);
}
END_TEST

/* FET is bad when low: a low outlier raises (limit below the mean), a
 * high one does nothing. Two ports, each with its own baseline. */
START_TEST(test_baseline_fet_below) {
  H h;
  rtel_tstamp t = 10000;
  size_t m, i;
  const entry *e;

  init(&h, 1000000, 0);
  ck_assert_int_eq(
      rtel_ctx_set_baseline(h.ctx, RTEL_METRIC_FET, RTEL_SCOPE_PORT, 3, 8), 0);
  for (i = 0; i < 40; i++) {
    /* FET ~ 0.88 Gb/s: 8784 bits on the wire over ~10000 ns (see
     * test_fet_floor) */
    rtel_tstamp fct = 10000 + (i * 7) % 11;
    m = flow_fct(&h, &t, 1000000, 9 + (uint32_t)(i & 1), A_IP, B_IP,
                 0x300 + (uint32_t)i, fct, 1000);
    ck_assert_uint_eq(h_count(&h, m, EV_ALARM), 0);
  }
  /* port 10: 8784 / 2000 ns = 4.392 Gb/s, good news */
  m = flow_fct(&h, &t, 1000000, 10, A_IP, B_IP, 0x320, 2000, 1000);
  ck_assert_uint_eq(h_count(&h, m, EV_ALARM), 0);
  /* port 9: 8784 / 100000 ns = 87.84 Mb/s */
  m = flow_fct(&h, &t, 1000000, 9, A_IP, B_IP, 0x321, 100000, 1000);
  ck_assert_uint_eq(h_count(&h, m, EV_ALARM), 1);
  e = h_nth(&h, m, EV_ALARM, 0);
  ck_assert_uint_eq(e->alarm.kind, RTEL_ALARM_BASELINE);
  ck_assert_uint_eq(e->alarm.metric, RTEL_METRIC_FET);
  ck_assert_uint_eq(e->alarm.state, R_);
  ck_assert_uint_eq(e->alarm.port, 9);
  ck_assert(e->alarm.value == 87840000.0);
  ck_assert(e->alarm.limit > e->alarm.value && e->alarm.limit < 0.8784e9);
  h_free(&h);
}
END_TEST

/* Warm-up: no baseline alarm before |warmup| values were seen. */
START_TEST(test_baseline_warmup) {
  H h;
  rtel_tstamp t = 10000;
  size_t m, i;

  init(&h, 100000, 0);
  ck_assert_int_eq(
      rtel_ctx_set_baseline(h.ctx, RTEL_METRIC_FCT, RTEL_SCOPE_PAIR, 3, 5), 0);
  /* pair A-B: 4 values, then an outlier as the 5th: not yet */
  for (i = 0; i < 4; i++) {
    flow_fct(&h, &t, 100000, 1, A_IP, B_IP, 0x400 + (uint32_t)i, 1000 + i, 64);
  }
  m = flow_fct(&h, &t, 100000, 1, A_IP, B_IP, 0x410, 50000, 64);
  ck_assert_uint_eq(h_count(&h, m, EV_ALARM), 0);
  /* pair A-C: 5 values, then the outlier as the 6th: raised */
  for (i = 0; i < 5; i++) {
    flow_fct(&h, &t, 100000, 1, A_IP, C_IP, 0x420 + (uint32_t)i, 1000 + i, 64);
  }
  m = flow_fct(&h, &t, 100000, 1, A_IP, C_IP, 0x430, 50000, 64);
  ck_assert_uint_eq(h_count(&h, m, EV_ALARM), 1);
  ck_assert_uint_eq(h_nth(&h, m, EV_ALARM, 0)->alarm.kind,
                    RTEL_ALARM_BASELINE);
  h_free(&h);
}
END_TEST

Suite *alarm_suite(void) {
  Suite *s = suite_create("alarm");
  TCase *tc = tcase_create("threshold");
  tcase_add_test(tc, test_fct_pair_hysteresis);
  tcase_add_test(tc, test_fct_port_scope);
  tcase_add_test(tc, test_fet_floor);
  tcase_add_test(tc, test_fnr_paired_only);
  tcase_add_test(tc, test_retx_ratio);
  tcase_add_test(tc, test_cnp_rate);
  tcase_add_test(tc, test_iol_dal_dpl);
  tcase_add_test(tc, test_cut_flows_not_judged);
  tcase_add_test(tc, test_threshold_remove);
  tcase_add_test(tc, test_threshold_readd_consistent);
  tcase_add_test(tc, test_invalid_args);
  tcase_add_test(tc, test_table_bound);
  tcase_add_test(tc, test_table_bound_counts_records);
  suite_add_tcase(s, tc);

  tc = tcase_create("baseline");
  tcase_add_test(tc, test_baseline_fct);
  tcase_add_test(tc, test_baseline_clear_half_k);
  tcase_add_test(tc, test_baseline_fet_below);
  tcase_add_test(tc, test_baseline_warmup);
  suite_add_tcase(s, tc);
  return s;
}
