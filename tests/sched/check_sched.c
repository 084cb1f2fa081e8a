/* SPDX-License-Identifier: MIT */
/*
 * Polling scheduler tests (rtel-metrics(7) "POLLING SCHEDULER", rocetel.h
 * rtel_schedule / rtel_slot_event / rtel_ctx_set_schedule /
 * rtel_ctx_port_measured / coverage windows), through the public API only.
 *
 *  sched   argument checks, random property runs (sim.c), late callers,
 *          alarm priority
 *  mode    mode changes at run time, coverage windows, truncation of flows
 *          and NVMe-oF I/Os at slot boundaries, unregistered ports
 *  alarm   thresholds, hysteresis, scopes, baselines (check_alarm.c)
 *  agg     I/O aggregates and their latency quantiles (check_agg.c)
 *
 * Every expectation is computed here, from the rules of the header and of
 * rtel-metrics(7) and the packets built by harness.c; a failing test names the
 * rule and the scenario. SCHED_VERBOSE=1 prints what each random
 * configuration exercised.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "sim.h"

/* ------------------------------------------------------------- helpers */

static int has_id(const uint32_t *a, size_t n, uint32_t id) {
  size_t i;
  for (i = 0; i < n; i++) {
    if (a[i] == id) {
      return 1;
    }
  }
  return 0;
}

/* Checks an id list against an expected set (any order). */
static void ck_set(const uint32_t *a, size_t n, const uint32_t *want,
                   size_t nwant, const char *what, uint64_t slot) {
  size_t i;
  ck_assert_msg(n == nwant, "slot %llu: %s has %zu ports, expected %zu",
                (unsigned long long)slot, what, n, nwant);
  for (i = 0; i < nwant; i++) {
    ck_assert_msg(has_id(a, n, want[i]), "slot %llu: %s lacks port %u",
                  (unsigned long long)slot, what, want[i]);
  }
}

/* The measured set right now, over |ids|, as a list. */
static size_t measured_now(const H *h, const uint32_t *ids, size_t n,
                           uint32_t *out) {
  size_t i, k = 0;
  for (i = 0; i < n; i++) {
    if (rtel_ctx_port_measured(h->ctx, ids[i])) {
      out[k++] = ids[i];
    }
  }
  return k;
}

/* The single slot event logged from |from|. */
static entry *one_event(H *h, size_t from) {
  ck_assert_uint_eq(h_count(h, from, EV_SLOT), 1);
  return h_nth(h, from, EV_SLOT, 0);
}

#define A_IP 0x0A000001u
#define B_IP 0x0A000002u

/* ------------------------------------------------------------- API */

START_TEST(test_api_args) {
  H h;
  rtel_schedule s;
  rtel_port p;
  rtel_settings st;
  rtel_settings_default(&st);
  st.max_ports = 3;
  h_init(&h, &st);

  /* full mode by default: registered and unregistered ports measured */
  h_add_port(&h, 1, 10);
  ck_assert_int_eq(rtel_ctx_port_measured(h.ctx, 1), 1);
  ck_assert_int_eq(rtel_ctx_port_measured(h.ctx, 4242), 1);
  ck_assert_int_eq(rtel_ctx_port_measured(NULL, 1), 0);
  ck_assert_uint_eq(rtel_ctx_get_expiry(h.ctx), NONE);

  memset(&s, 0, sizeof(s));
  s.mode = 2;
  ck_assert_int_eq(rtel_ctx_set_schedule(h.ctx, &s, 100),
                   RTEL_ERR_INVALID_ARGUMENT);
  s.mode = RTEL_SCHED_POLL;
  s.ports_per_slot = 0;
  s.slot_ns = 10;
  ck_assert_int_eq(rtel_ctx_set_schedule(h.ctx, &s, 100),
                   RTEL_ERR_INVALID_ARGUMENT);
  s.ports_per_slot = 1;
  s.slot_ns = 0;
  ck_assert_int_eq(rtel_ctx_set_schedule(h.ctx, &s, 100),
                   RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(rtel_ctx_set_schedule(h.ctx, NULL, 100),
                   RTEL_ERR_INVALID_ARGUMENT);
  s.slot_ns = 10;
  ck_assert_int_eq(rtel_ctx_set_schedule(NULL, &s, 100),
                   RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(rtel_ctx_set_schedule_versioned(h.ctx, 99, &s, 100),
                   RTEL_ERR_UNSUPPORTED_VERSION);
  /* the failed calls changed nothing */
  ck_assert_uint_eq(h.n, 0);
  ck_assert_int_eq(rtel_ctx_port_measured(h.ctx, 4242), 1);
  ck_assert_uint_eq(rtel_ctx_get_expiry(h.ctx), NONE);
  ck_assert_uint_eq(h_stats(&h).slots, 0);

  /* full mode ignores P and slot_ns */
  memset(&s, 0, sizeof(s));
  ck_assert_int_eq(rtel_ctx_set_schedule(h.ctx, &s, 100), 0);
  ck_assert_uint_eq(h_count(&h, 0, EV_SLOT), 1);

  memset(&p, 0, sizeof(p));
  p.id = 1;
  ck_assert_int_eq(rtel_ctx_add_port(h.ctx, &p, 200),
                   RTEL_ERR_INVALID_ARGUMENT); /* duplicate */
  p.id = 2;
  p.role = 4;
  ck_assert_int_eq(rtel_ctx_add_port(h.ctx, &p, 200),
                   RTEL_ERR_INVALID_ARGUMENT); /* unknown role */
  ck_assert_int_eq(rtel_ctx_add_port(h.ctx, NULL, 200),
                   RTEL_ERR_INVALID_ARGUMENT);
  p.role = RTEL_ROLE_STORAGE;
  ck_assert_int_eq(rtel_ctx_add_port_versioned(h.ctx, 99, &p, 200),
                   RTEL_ERR_UNSUPPORTED_VERSION);
  p.name = NULL;
  ck_assert_int_eq(rtel_ctx_add_port(h.ctx, &p, 200), 0);
  p.id = 3;
  ck_assert_int_eq(rtel_ctx_add_port(h.ctx, &p, 200), 0);
  p.id = 4;
  ck_assert_int_eq(rtel_ctx_add_port(h.ctx, &p, 200),
                   RTEL_ERR_INVALID_ARGUMENT); /* max_ports = 3 */
  ck_assert_int_eq(rtel_ctx_port_measured(h.ctx, 3), 1);
  h_free(&h);
}
END_TEST

/* ------------------------------------------------------------- random */

/* One random configuration: N ports, P per slot, slot length, alarm
 * priority and alarm traffic; a full-mode phase with traffic (unregistered
 * ports included), polling for 3 starvation windows and more, a late call,
 * back to full mode, flush. */
START_TEST(test_sched_random) {
  sim s;
  rng r;
  uint32_t n, per;
  rtel_tstamp slot, prio, idle, t0;
  int alarms;
  uint64_t nslots;

  rng_seed(&r, 0x5C4ED000ull + (uint64_t)_i * 7919u);
  n = 1 + (uint32_t)rng_below(&r, 100);
  switch (rng_below(&r, 3)) {
  case 0: /* anywhere in 1 .. N + 3 */
    per = 1 + (uint32_t)rng_below(&r, n + 3);
    break;
  case 1: /* few seats: long windows, tight bounds */
    per = 1 + (uint32_t)rng_below(&r, 3);
    break;
  default: /* around N */
    per = n + 3 - (uint32_t)rng_below(&r, n < 6 ? n + 3 : 6);
    break;
  }
  if (rng_below(&r, 10) == 0) {
    slot = 1 + rng_below(&r, 8);
  } else {
    uint64_t p10 = 10;
    unsigned e = 1 + (unsigned)rng_below(&r, 9);
    while (--e) {
      p10 *= 10;
    }
    slot = 3 + rng_below(&r, p10);
  }
  switch (rng_below(&r, 4)) {
  case 0:
  case 1:
    prio = 0;
    break;
  case 2:
    prio = 1 + rng_below(&r, 4 * slot);
    break;
  default: /* every alarm stays young: the priority seat is always taken */
    prio = UINT64_C(1) << 50;
    break;
  }
  alarms = prio ? rng_below(&r, 5) != 0 : rng_below(&r, 3) == 0;
  idle = 1 + rng_below(&r, 2 * slot + 2);

  sim_init(&s, rng_next(&r), n, idle, alarms);
  s.p_bad = (double)rng_below(&r, 60) / 100.0;
  s.p_good = (double)rng_below(&r, 40) / 100.0;
  t0 = 1000000 + rng_below(&r, 1000000);
  sim_add_ports(&s, t0);
  sim_traffic(&s, s.t + 1 + rng_below(&r, 10 * slot + 10));
  if (rng_below(&r, 2)) {
    sim_set(&s, RTEL_SCHED_FULL, 0, 0, 0, s.t + rng_below(&r, 100));
  }
  sim_set(&s, RTEL_SCHED_POLL, per, slot, prio, s.t + rng_below(&r, 100));
  nslots = 3 * s.W + 8;
  sim_slots(&s, nslots);
  sim_late(&s, rng_below(&r, 3ull * n + 2), rng_below(&r, slot));
  sim_slots(&s, 3);
  if (s.cur_end - s.cur_start > 1) {
    sim_set(&s, RTEL_SCHED_FULL, 0, 0, 0,
            s.t + rng_below(&r, s.cur_end - s.t));
  } else {
    sim_set(&s, RTEL_SCHED_FULL, 0, 0, 0, s.t);
  }
  /* nothing more happens in full mode */
  sim_traffic(&s, s.t + 10 * slot + 10);
  ck_assert_uint_eq(rtel_ctx_get_expiry(s.h.ctx) == NONE ||
                        h_stats(&s.h).flows_active > 0,
                    1);
  sim_finish(&s);
  if (getenv("SCHED_VERBOSE")) {
    fprintf(stderr,
            "config %d: N=%u P=%u slot=%llu prio=%llu alarms=%d idle=%llu "
            "slots=%llu raised=%llu cleared=%llu prio-checks=%llu "
            "truncated=%llu unscheduled=%llu\n",
            _i, n, per, (unsigned long long)slot, (unsigned long long)prio,
            alarms, (unsigned long long)idle, (unsigned long long)s.nevents,
            (unsigned long long)s.nraised, (unsigned long long)s.ncleared,
            (unsigned long long)s.prio_checks,
            (unsigned long long)s.trunc_records,
            (unsigned long long)s.exp_unsched);
  }
  sim_free(&s);
}
END_TEST

/* ------------------------------------------------------------- late */

START_TEST(test_late_caller) {
  H h;
  static const uint32_t ids[5] = {10, 20, 30, 40, 50};
  size_t m, i;
  entry *e;
  uint32_t got[5];
  rtel_ctx_stats st;

  h_init(&h, NULL);
  h.ids = ids;
  h.nids = 5;
  for (i = 0; i < 5; i++) {
    h_add_port(&h, ids[i], 0);
  }
  ck_assert_int_eq(h_sched(&h, RTEL_SCHED_POLL, 2, 100, 0, 1000), 0);
  e = one_event(&h, 0);
  ck_assert_uint_eq(e->slot, 0);
  ck_assert_uint_eq(e->start, 1000);
  ck_assert_uint_eq(e->end, 1100);
  ck_set(e->started, e->nstarted, NULL, 0, "started", 0);
  ck_set(e->stopped, e->nstopped, (const uint32_t[]){30, 40, 50}, 3, "stopped",
         0);
  ck_assert_uint_eq(rtel_ctx_get_expiry(h.ctx), 1100);

  m = h.n;
  h_expire(&h, 1099);
  ck_assert_uint_eq(h.n, m);
  h_expire(&h, 1100);
  e = one_event(&h, m);
  ck_assert_uint_eq(e->slot, 1);
  ck_assert_uint_eq(e->start, 1100);
  ck_assert_uint_eq(e->end, 1200);
  ck_set(e->started, e->nstarted, (const uint32_t[]){30, 40}, 2, "started", 1);
  ck_set(e->stopped, e->nstopped, (const uint32_t[]){10, 20}, 2, "stopped", 1);

  /* 3 slots and 50 ns late: one event, for slot 5 = [1500, 1600); the
   * round robin moved on as if slots 2 {50,10}, 3 {20,30}, 4 {40,50} had
   * taken place: slot 5 is {10, 20} */
  m = h.n;
  h_expire(&h, 1550);
  e = one_event(&h, m);
  ck_assert_uint_eq(e->slot, 5);
  ck_assert_uint_eq(e->start, 1500);
  ck_assert_uint_eq(e->end, 1600);
  ck_set(e->started, e->nstarted, (const uint32_t[]){10, 20}, 2, "started", 5);
  ck_set(e->stopped, e->nstopped, (const uint32_t[]){30, 40}, 2, "stopped", 5);
  ck_assert_uint_eq(rtel_ctx_get_expiry(h.ctx), 1600);
  ck_set(got, measured_now(&h, ids, 5, got), (const uint32_t[]){10, 20}, 2,
         "measured", 5);

  /* late by less than a slot: the slot still begins at its boundary */
  m = h.n;
  h_expire(&h, 1650);
  e = one_event(&h, m);
  ck_assert_uint_eq(e->slot, 6);
  ck_assert_uint_eq(e->start, 1600);
  ck_assert_uint_eq(e->end, 1700);
  ck_set(e->started, e->nstarted, (const uint32_t[]){30, 40}, 2, "started", 6);

  /* exactly two slots late: slots 7 {50,10}, 8 {20,30} skipped, slot 9
   * {40,50} begins at 1900 */
  m = h.n;
  h_expire(&h, 1900);
  e = one_event(&h, m);
  ck_assert_uint_eq(e->slot, 9);
  ck_assert_uint_eq(e->start, 1900);
  ck_assert_uint_eq(e->end, 2000);
  ck_set(e->started, e->nstarted, (const uint32_t[]){50}, 1, "started", 9);
  ck_set(e->stopped, e->nstopped, (const uint32_t[]){30}, 1, "stopped", 9);

  /* calling again at the same time does nothing */
  m = h.n;
  h_expire(&h, 1900);
  h_expire(&h, 1999);
  ck_assert_uint_eq(h.n, m);
  st = h_stats(&h);
  ck_assert_uint_eq(st.slots, 5);
  h_free(&h);
}
END_TEST

/* Slot numbers count the skipped slots of a late call whether or not
 * ports are registered yet (slot k begins at T0 + k * slot_ns). */
START_TEST(test_late_no_ports) {
  H h;
  size_t m;
  entry *e;

  h_init(&h, NULL);
  ck_assert_int_eq(h_sched(&h, RTEL_SCHED_POLL, 2, 100, 0, 0), 0);
  e = one_event(&h, 0);
  ck_assert_uint_eq(e->slot, 0);
  ck_assert_uint_eq(e->nstarted + e->nstopped, 0);
  m = h.n;
  h_expire(&h, 550);
  e = one_event(&h, m);
  ck_assert_uint_eq(e->start, 500);
  ck_assert_uint_eq(e->end, 600);
  ck_assert_msg(e->slot == 5,
                "slot beginning at 500 = 0 + 5 * 100 is "
                "numbered %llu",
                (unsigned long long)e->slot);
  h_free(&h);
}
END_TEST

/* ------------------------------------------------------------- priority */

/* Six ports, two seats, alarm priority 5 us. Port 2's alarm (a flow whose
 * FCT crosses the per-port threshold, ended idle in slot 0) gives it a
 * seat out of turn in the following slots, the other seat keeps the round
 * robin, and nobody waits more than ceil(6 / (2 - 1)) = 6 slots. */
START_TEST(test_prio_basic) {
  H h;
  static const uint32_t ids[6] = {1, 2, 3, 4, 5, 6};
  rtel_settings st;
  const rtel_tstamp T = 10000;
  size_t i, m;
  entry *e;
  int last[6], k;

  rtel_settings_default(&st);
  st.flow_idle_timeout = 300;
  h_init(&h, &st);
  h.ids = ids;
  h.nids = 6;
  for (i = 0; i < 6; i++) {
    h_add_port(&h, ids[i], 0);
  }
  ck_assert_int_eq(
      rtel_ctx_set_threshold(h.ctx, RTEL_METRIC_FCT, RTEL_SCOPE_PORT, 10), 0);
  ck_assert_int_eq(h_sched(&h, RTEL_SCHED_POLL, 2, 1000, 5000, T), 0);
  e = one_event(&h, 0);
  ck_assert_uint_eq(e->nstopped, 4);
  ck_assert_int_eq(rtel_ctx_port_measured(h.ctx, 2), 1);
  h_data(&h, T + 50, 2, A_IP, B_IP, 0x222, 0, 100);
  h_data(&h, T + 100, 2, A_IP, B_IP, 0x222, 1, 100);
  m = h.n;
  h_advance(&h, T + 999);
  ck_assert_uint_eq(h_count(&h, m, EV_FLOW), 1);
  ck_assert_uint_eq(h_count(&h, m, EV_ALARM), 1);
  e = h_nth(&h, m, EV_ALARM, 0);
  ck_assert_uint_eq(e->alarm.port, 2);
  ck_assert_uint_eq(e->alarm.state, RTEL_ALARM_RAISED);

  for (i = 0; i < 6; i++) {
    last[i] = 0;
  }
  last[0] = last[1] = 0; /* slot 0: {1, 2} */
  for (k = 1; k <= 8; k++) {
    uint32_t got[6];
    size_t ng;
    m = h.n;
    h_advance(&h, T + (rtel_tstamp)k * 1000);
    e = one_event(&h, m);
    ck_assert_uint_eq(e->slot, (uint64_t)k);
    ng = measured_now(&h, ids, 6, got);
    ck_assert_uint_eq(ng, 2);
    if (k <= 5) {
      /* alarm at T+100 (ended idle at T+400) is younger than 5 us */
      ck_assert_msg(has_id(got, ng, 2),
                    "slot %d: port 2 (alarmed) has no seat", k);
    }
    for (i = 0; i < 6; i++) {
      if (has_id(got, ng, ids[i])) {
        last[i] = k;
      }
      ck_assert_msg(k - last[i] < 6, "port %u starved at slot %d", ids[i], k);
    }
  }
  /* slot 1 takes the round robin's next port besides the alarmed one */
  e = h_nth(&h, 0, EV_SLOT, 1);
  ck_assert(has_id(e->started, e->nstarted, 3));
  h_free(&h);
}
END_TEST

/* P = 1: priority seats only in odd slots; even slots keep the round
 * robin, which moves on only there (bound 2 N). */
START_TEST(test_prio_p1_parity) {
  H h;
  static const uint32_t ids[4] = {1, 2, 3, 4};
  rtel_settings st;
  const rtel_tstamp T = 10000;
  size_t i, m;
  int k;
  static const uint32_t even_rr[] = {2, 3, 4, 1, 2, 3};

  rtel_settings_default(&st);
  st.flow_idle_timeout = 300;
  h_init(&h, &st);
  h.ids = ids;
  h.nids = 4;
  for (i = 0; i < 4; i++) {
    h_add_port(&h, ids[i], 0);
  }
  ck_assert_int_eq(
      rtel_ctx_set_threshold(h.ctx, RTEL_METRIC_FCT, RTEL_SCOPE_PORT, 10), 0);
  ck_assert_int_eq(h_sched(&h, RTEL_SCHED_POLL, 1, 1000, 1000000, T), 0);
  ck_assert_int_eq(rtel_ctx_port_measured(h.ctx, 1), 1);
  h_data(&h, T + 50, 1, A_IP, B_IP, 0x111, 0, 100);
  h_data(&h, T + 100, 1, A_IP, B_IP, 0x111, 1, 100);
  h_advance(&h, T + 999);
  ck_assert_uint_eq(h_stats(&h).alarms_raised, 1);
  for (k = 1; k <= 12; k++) {
    uint32_t got[4];
    size_t ng;
    m = h.n;
    h_advance(&h, T + (rtel_tstamp)k * 1000);
    (void)one_event(&h, m);
    ng = measured_now(&h, ids, 4, got);
    ck_assert_uint_eq(ng, 1);
    if (k & 1) {
      ck_assert_msg(got[0] == 1,
                    "odd slot %d: port %u, expected the "
                    "alarmed port 1",
                    k, got[0]);
    } else {
      ck_assert_msg(got[0] == even_rr[k / 2 - 1],
                    "even slot %d: port %u, round robin expects %u", k, got[0],
                    even_rr[k / 2 - 1]);
    }
  }
  h_free(&h);
}
END_TEST

/* "a port whose alarm was raised less than alarm_priority ns ago may take
 * one seat of a slot out of turn". An alarm is raised when its record is
 * delivered: for a flow, when it ends. Five ports, three seats; port 1
 * is measured in slots 0 and 1, its flow (last packet T+100)
 * ends idle at T+1300 and raises the alarm then; at T+2000 the alarm is
 * 700 ns old (alarm_priority 1500): port 1 must have a seat in slot 2
 * (the round robin alone gives {2, 3, 4}). */
START_TEST(test_prio_window_from_raise_idle) {
  H h;
  static const uint32_t ids[5] = {1, 2, 3, 4, 5};
  rtel_settings st;
  const rtel_tstamp T = 10000;
  size_t i, m;
  entry *e;
  uint32_t got[5];
  size_t ng;

  rtel_settings_default(&st);
  st.flow_idle_timeout = 1200;
  h_init(&h, &st);
  h.ids = ids;
  h.nids = 5;
  for (i = 0; i < 5; i++) {
    h_add_port(&h, ids[i], 0);
  }
  ck_assert_int_eq(
      rtel_ctx_set_threshold(h.ctx, RTEL_METRIC_FCT, RTEL_SCOPE_PORT, 10), 0);
  ck_assert_int_eq(h_sched(&h, RTEL_SCHED_POLL, 3, 1000, 1500, T), 0);
  h_data(&h, T + 50, 1, A_IP, B_IP, 0x111, 0, 100);
  h_data(&h, T + 100, 1, A_IP, B_IP, 0x111, 1, 100);
  m = h.n;
  h_advance(&h, T + 1999);
  ck_assert_uint_eq(h_count(&h, m, EV_SLOT), 1); /* slot 1 {4, 5, 1} */
  ck_assert_int_eq(rtel_ctx_port_measured(h.ctx, 1), 1);
  ck_assert_uint_eq(h_count(&h, m, EV_ALARM), 1);
  e = h_nth(&h, m, EV_ALARM, 0);
  ck_assert_uint_eq(e->alarm.port, 1);
  ck_assert_uint_eq(e->call_now, T + 1300);
  m = h.n;
  h_advance(&h, T + 2000);
  (void)one_event(&h, m);
  ng = measured_now(&h, ids, 5, got);
  ck_assert_msg(has_id(got, ng, 1),
                "slot 2 at T+2000: port 1's alarm was raised at T+1300 "
                "(700 ns ago, alarm_priority 1500) but port 1 has no seat");
  h_free(&h);
}
END_TEST

/* ------------------------------------------------------------- modes */

/* full -> poll (P 2, 1 us) -> full -> poll (P 3, 700 ns) -> full, with
 * flows on several ports; every event, truncation and coverage window by
 * hand. */
START_TEST(test_mode_changes) {
  H h;
  static const uint32_t ids[5] = {1, 2, 3, 4, 5};
  rtel_settings st;
  size_t i, m;
  entry *e, *f;
  rtel_ctx_stats s;
  uint32_t got[5];
  rtel_tstamp cov[6];

  rtel_settings_default(&st);
  st.flow_idle_timeout = 1000000;
  h_init(&h, &st);
  h.ids = ids;
  h.nids = 5;
  for (i = 0; i < 5; i++) {
    h_add_port(&h, ids[i], 100 * (i + 1)); /* coverage from 100 .. 500 */
  }
  /* f1 on port 1, f3 on port 3 */
  h_data(&h, 1000, 1, A_IP, B_IP, 0x101, 0, 64);
  h_data(&h, 1050, 3, A_IP, B_IP, 0x103, 0, 64);
  h_data(&h, 1100, 1, A_IP, B_IP, 0x101, 1, 64);
  h_data(&h, 1150, 3, A_IP, B_IP, 0x103, 1, 64);
  ck_assert_uint_eq(h.n, 0);

  /* full -> poll at 2000: slot 0 = {1, 2}; f3 truncated */
  ck_assert_int_eq(h_sched(&h, RTEL_SCHED_POLL, 2, 1000, 0, 2000), 0);
  e = &h.e[0];
  ck_assert_int_eq(e->kind, EV_SLOT);
  ck_assert_uint_eq(e->slot, 0);
  ck_assert_uint_eq(e->start, 2000);
  ck_assert_uint_eq(e->end, 3000);
  ck_set(e->started, e->nstarted, NULL, 0, "started", 0);
  ck_set(e->stopped, e->nstopped, (const uint32_t[]){3, 4, 5}, 3, "stopped",
         0);
  ck_assert_uint_eq(h.n, 2);
  f = &h.e[1];
  ck_assert_int_eq(f->kind, EV_FLOW);
  ck_assert_uint_eq(f->flow.dqpn, 0x103);
  ck_assert_uint_eq(f->flow.end, RTEL_END_TRUNCATED);
  ck_assert_uint_eq(f->flow.packets, 2);
  ck_assert_uint_eq(f->flow.port, 3);
  ck_assert_uint_eq(f->flow.coverage_start, 300);
  ck_assert_uint_eq(f->flow.coverage_end, 2000);
  ck_assert_int_eq(rtel_ctx_port_measured(h.ctx, 3), 0);
  ck_assert_int_eq(rtel_ctx_port_measured(h.ctx, 99), 0);

  /* port 3 is not measured: counted, dropped; f1 goes on */
  h_data(&h, 2500, 3, A_IP, B_IP, 0x103, 2, 64);
  h_data(&h, 2600, 1, A_IP, B_IP, 0x101, 2, 64);
  s = h_stats(&h);
  ck_assert_uint_eq(s.pkts_unscheduled, 1);
  ck_assert_uint_eq(h.n, 2);

  /* slot 1 = {3, 4} at 3000: f1 truncated, coverage [100, 3000) */
  m = h.n;
  h_advance(&h, 3000);
  e = one_event(&h, m);
  ck_assert_uint_eq(e->slot, 1);
  ck_set(e->started, e->nstarted, (const uint32_t[]){3, 4}, 2, "started", 1);
  ck_set(e->stopped, e->nstopped, (const uint32_t[]){1, 2}, 2, "stopped", 1);
  ck_assert_uint_eq(h_count(&h, m, EV_FLOW), 1);
  f = h_nth(&h, m, EV_FLOW, 0);
  ck_assert(f > e); /* after the event */
  ck_assert_uint_eq(f->flow.dqpn, 0x101);
  ck_assert_uint_eq(f->flow.end, RTEL_END_TRUNCATED);
  ck_assert_uint_eq(f->flow.packets, 3);
  ck_assert_uint_eq(f->flow.first_ts, 1000);
  ck_assert_uint_eq(f->flow.last_ts, 2600);
  ck_assert_uint_eq(f->flow.coverage_start, 100);
  ck_assert_uint_eq(f->flow.coverage_end, 3000);

  /* f4 on port 4 (measured since 3000) */
  h_data(&h, 3100, 4, A_IP, B_IP, 0x104, 0, 64);
  h_data(&h, 3200, 4, A_IP, B_IP, 0x104, 1, 64);

  /* poll -> full at 3500: slot 2, everyone starts but 3 and 4 */
  m = h.n;
  ck_assert_int_eq(h_sched(&h, RTEL_SCHED_FULL, 0, 0, 0, 3500), 0);
  e = one_event(&h, m);
  ck_assert_uint_eq(e->slot, 2);
  ck_assert_uint_eq(e->start, 3500);
  ck_assert_uint_eq(e->end, NONE);
  ck_set(e->started, e->nstarted, (const uint32_t[]){1, 2, 5}, 3, "started",
         2);
  ck_set(e->stopped, e->nstopped, NULL, 0, "stopped", 2);
  ck_assert_uint_eq(h.n, m + 1); /* nothing truncated */
  ck_assert_uint_eq(rtel_ctx_get_expiry(h.ctx), 3200 + 1000000);
  ck_assert_int_eq(rtel_ctx_port_measured(h.ctx, 99), 1);
  ck_set(got, measured_now(&h, ids, 5, got), ids, 5, "measured", 2);
  /* coverage now: 1, 2, 5 from 3500; 3, 4 from 3000 */
  cov[1] = cov[2] = cov[5] = 3500;
  cov[3] = cov[4] = 3000;

  /* f2 on port 2 */
  h_data(&h, 3600, 2, A_IP, B_IP, 0x102, 0, 64);
  h_data(&h, 3700, 2, A_IP, B_IP, 0x102, 1, 64);

  /* full -> poll at 5000 with P = 3 and 700 ns slots */
  m = h.n;
  ck_assert_int_eq(h_sched(&h, RTEL_SCHED_POLL, 3, 700, 0, 5000), 0);
  e = one_event(&h, m);
  ck_assert_uint_eq(e->slot, 3);
  ck_assert_uint_eq(e->start, 5000);
  ck_assert_uint_eq(e->end, 5700);
  ck_assert_uint_eq(e->nstarted, 0);
  ck_assert_uint_eq(e->nstopped, 2);
  ck_assert_uint_eq(measured_now(&h, ids, 5, got), 3);
  /* flows of the stopped ports come out truncated, the others stay */
  ck_assert_uint_eq(h_count(&h, m, EV_FLOW),
                    (size_t)has_id(e->stopped, 2, 2) +
                        (size_t)has_id(e->stopped, 2, 4));
  for (i = 0; i < h_count(&h, m, EV_FLOW); i++) {
    f = h_nth(&h, m, EV_FLOW, i);
    ck_assert(has_id(e->stopped, 2, f->flow.port));
    ck_assert_uint_eq(f->flow.end, RTEL_END_TRUNCATED);
    ck_assert_uint_eq(f->flow.coverage_start, cov[f->flow.port]);
    ck_assert_uint_eq(f->flow.coverage_end, 5000);
    ck_assert_uint_eq(f->flow.packets, 2);
  }
  for (i = 0; i < 2; i++) {
    cov[e->stopped[i]] = NONE;
  }
  ck_assert_uint_le(rtel_ctx_get_expiry(h.ctx), 5700);

  /* slot 4 at 5700: three ports again, a consistent transition */
  m = h.n;
  h_advance(&h, 5700);
  e = one_event(&h, m);
  ck_assert_uint_eq(e->slot, 4);
  ck_assert_uint_eq(e->start, 5700);
  ck_assert_uint_eq(e->end, 6400);
  ck_assert_uint_eq(measured_now(&h, ids, 5, got), 3);
  for (i = 0; i < e->nstarted; i++) {
    ck_assert_uint_eq(cov[e->started[i]], NONE);
    cov[e->started[i]] = 5700;
  }
  for (i = 0; i < e->nstopped; i++) {
    ck_assert_uint_ne(cov[e->stopped[i]], NONE);
    cov[e->stopped[i]] = NONE;
  }
  /* back to full at 6000 */
  m = h.n;
  ck_assert_int_eq(h_sched(&h, RTEL_SCHED_FULL, 0, 0, 0, 6000), 0);
  e = one_event(&h, m);
  ck_assert_uint_eq(e->slot, 5);
  ck_assert_uint_eq(e->nstarted, 2);
  ck_assert_uint_eq(e->nstopped, 0);
  for (i = 0; i < e->nstarted; i++) {
    ck_assert_uint_eq(cov[e->started[i]], NONE);
    cov[e->started[i]] = 6000;
  }
  /* every port gets one flow; flush: coverage_end NONE, starts as
   * tracked */
  for (i = 0; i < 5; i++) {
    h_data(&h, 6100 + i, ids[i], A_IP, B_IP, 0x200 + ids[i], 0, 64);
  }
  m = h.n;
  h.call_now = 7000;
  ck_assert_int_eq(rtel_ctx_flush(h.ctx, 7000), 0);
  for (i = 0; i < h_count(&h, m, EV_FLOW); i++) {
    f = h_nth(&h, m, EV_FLOW, i);
    ck_assert_uint_eq(f->flow.end, RTEL_END_FLUSH);
    ck_assert_uint_eq(f->flow.coverage_end, NONE);
    ck_assert_msg(f->flow.coverage_start == cov[f->flow.port],
                  "port %u: coverage_start %llu, expected %llu", f->flow.port,
                  (unsigned long long)f->flow.coverage_start,
                  (unsigned long long)cov[f->flow.port]);
  }
  ck_assert_uint_ge(h_count(&h, m, EV_FLOW), 5);
  s = h_stats(&h);
  ck_assert_uint_ge(s.slots, 4); /* 4 polling slots, 2 switches to full */
  ck_assert_uint_le(s.slots, 6);
  h_free(&h);
}
END_TEST

/* Random sequences of mode changes (full, polling with other P, slot and
 * priority), at random times inside slots, with traffic: the sim model
 * checks every event, record and coverage window. */
START_TEST(test_mode_random) {
  sim s;
  rng r;
  uint32_t n;
  int ph;

  rng_seed(&r, 0x30DE0000ull + (uint64_t)_i * 104729u);
  n = 1 + (uint32_t)rng_below(&r, 30);
  sim_init(&s, rng_next(&r), n, 1 + rng_below(&r, 5000), rng_below(&r, 2));
  s.p_bad = 0.3;
  s.p_good = 0.3;
  sim_add_ports(&s, 5000);
  for (ph = 0; ph < 8; ph++) {
    if (ph % 2 == 0 || rng_below(&r, 3) == 0) {
      uint32_t per = 1 + (uint32_t)rng_below(&r, n + 2);
      rtel_tstamp slot = 2 + rng_below(&r, 3000);
      rtel_tstamp prio = rng_below(&r, 3) == 0 ? 1 + rng_below(&r, 6000) : 0;
      rtel_tstamp now = s.t;
      if (s.mode == RTEL_SCHED_POLL && s.cur_end > s.t + 1) {
        now = s.t + rng_below(&r, s.cur_end - s.t);
      } else if (s.mode == RTEL_SCHED_FULL) {
        now = s.t + rng_below(&r, 5000);
      }
      sim_set(&s, RTEL_SCHED_POLL, per, slot, prio, now);
      sim_slots(&s, rng_below(&r, 2 * s.W + 2));
    } else {
      rtel_tstamp now = s.t;
      if (s.mode == RTEL_SCHED_POLL && s.cur_end > s.t + 1) {
        now = s.t + rng_below(&r, s.cur_end - s.t);
      }
      sim_set(&s, RTEL_SCHED_FULL, 0, 0, 0, now);
      sim_traffic(&s, s.t + rng_below(&r, 10000));
    }
  }
  sim_finish(&s);
  sim_free(&s);
}
END_TEST

/* ------------------------------------------------------------- truncation */

/* Two ports, one seat. In slot 0 port 1 carries an NVMe-oF queue (Fabrics
 * Connect opens it, a Property Get confirms the host's QP; a read is
 * outstanding at the boundary) and an RDMA
 * WRITE flow; port 2's packets are dropped. At the boundary: on_slot, then
 * every flow of port 1 (truncated), then the read (RTEL_IO_TRUNCATED), all
 * with coverage [0, T + slot) (port 1 is measured since it was added). Port
 * 1's packets after it are counted in pkts_unscheduled and make no record. */
START_TEST(test_truncation_flow_io) {
  H h;
  static const uint32_t ids[2] = {1, 2};
  rtel_settings st;
  const rtel_tstamp T = 100000, S = 10000;
  nvq q = {1, 0x0A010001u, 0x0A020001u, 0x11, 0x22, 100, 500};
  size_t i, m, k;
  entry *e;
  rtel_ctx_stats s0, s1;

  rtel_settings_default(&st);
  st.flow_idle_timeout = 1000000000;
  st.io_timeout = 1000000000000ull;
  h_init(&h, &st);
  h.ids = ids;
  h.nids = 2;
  h_add_port(&h, 1, 0);
  h_add_port(&h, 2, 0);
  ck_assert_int_eq(h_sched(&h, RTEL_SCHED_POLL, 1, S, 0, T), 0);
  ck_assert_int_eq(rtel_ctx_port_measured(h.ctx, 1), 1);

  nv_open(&h, &q, T + 100, 1);
  ck_assert_uint_eq(h_count(&h, 0, EV_IO), 2);
  e = h_nth(&h, 0, EV_IO, 0);
  ck_assert_uint_eq(e->io.state, RTEL_IO_COMPLETE);
  ck_assert_uint_eq(e->io.opcode, RTEL_NVME_OP_FABRICS);
  ck_assert_uint_eq(e->io.fctype, 1);
  ck_assert_int_eq(e->io.iol, 10);
  ck_assert_uint_eq(e->io.port, 1);
  /* port 1 is measured since it was added (full mode, at 0) */
  ck_assert_uint_eq(e->io.coverage_start, 0);
  ck_assert_uint_eq(e->io.coverage_end, NONE);

  nv_cmd(&h, &q, T + 300, RTEL_NVME_OP_READ, 5, 1, 0x1000, 0xAB000000ull, 4096,
         0x77);
  h_data(&h, T + 400, 1, 0x0A030001u, 0x0A040001u, 0x33, 0, 512);
  h_data(&h, T + 500, 1, 0x0A030001u, 0x0A040001u, 0x33, 1, 512);
  h_data(&h, T + 600, 2, 0x0A030001u, 0x0A040001u, 0x44, 0, 512);
  s0 = h_stats(&h);
  ck_assert_uint_eq(s0.pkts_unscheduled, 1);

  m = h.n;
  h_advance(&h, T + S);
  /* on_slot first */
  ck_assert_uint_gt(h.n, m);
  e = &h.e[m];
  ck_assert_int_eq(e->kind, EV_SLOT);
  ck_set(e->started, e->nstarted, (const uint32_t[]){2}, 1, "started", 1);
  ck_set(e->stopped, e->nstopped, (const uint32_t[]){1}, 1, "stopped", 1);
  /* then the flows of port 1: the WRITE flow and the capsule flows in
   * both directions, then the read */
  k = 0;
  for (i = m + 1; i < h.n && h.e[i].kind == EV_FLOW; i++) {
    const rtel_flow_record *r = &h.e[i].flow;
    ck_assert_uint_eq(r->end, RTEL_END_TRUNCATED);
    ck_assert_uint_eq(r->port, 1);
    ck_assert_uint_eq(r->coverage_start, 0);
    ck_assert_uint_eq(r->coverage_end, T + S);
    ck_assert_uint_eq(h.e[i].call_now, T + S);
    if (r->dqpn == 0x33) {
      ck_assert_uint_eq(r->packets, 2);
      ck_assert_uint_eq(r->bytes, 1024);
      ck_assert_uint_eq(r->fct, 100);
    }
    k++;
  }
  ck_assert_uint_eq(k, 3);
  ck_assert_uint_eq(i + 1, h.n);
  e = &h.e[i];
  ck_assert_int_eq(e->kind, EV_IO);
  ck_assert_uint_eq(e->io.state, RTEL_IO_TRUNCATED);
  ck_assert_uint_eq(e->io.cid, 5);
  ck_assert_uint_eq(e->io.opcode, RTEL_NVME_OP_READ);
  ck_assert_uint_eq(e->io.t_cmd, T + 300);
  ck_assert_uint_eq(e->io.t_rsp, NONE);
  ck_assert(e->io.iol == RTEL_DURATION_NONE);
  ck_assert_uint_eq(e->io.port, 1);
  ck_assert_uint_eq(e->io.coverage_start, 0);
  ck_assert_uint_eq(e->io.coverage_end, T + S);
  ck_assert_uint_eq(h_stats(&h).ios_truncated, 1);
  ck_assert_uint_eq(h_stats(&h).ios_evicted, 0);

  /* port 1 after the boundary: its data and the read's response are
   * dropped and counted; nothing is reported */
  m = h.n;
  nv_wdata(&h, &q, T + S + 50, 0xAB000000ull, 0x77, 4096);
  nv_rsp(&h, &q, T + S + 100, 5, 0);
  h_data(&h, T + S + 150, 1, 0x0A030001u, 0x0A040001u, 0x33, 2, 512);
  s1 = h_stats(&h);
  ck_assert_uint_eq(s1.pkts_unscheduled, s0.pkts_unscheduled + 3);
  ck_assert_uint_eq(s1.pkts_roce, s0.pkts_roce);
  ck_assert_uint_eq(s1.ios_orphan, 0);
  /* port 2 is measured now */
  h_data(&h, T + S + 200, 2, 0x0A030001u, 0x0A040001u, 0x44, 1, 512);
  ck_assert_uint_eq(h_stats(&h).pkts_roce, s0.pkts_roce + 1);
  h.call_now = T + S + 300;
  ck_assert_int_eq(rtel_ctx_flush(h.ctx, T + S + 300), 0);
  ck_assert_uint_eq(h_count(&h, m, EV_IO), 0);
  ck_assert_uint_eq(h_count(&h, m, EV_FLOW), 1);
  e = h_nth(&h, m, EV_FLOW, 0);
  ck_assert_uint_eq(e->flow.port, 2);
  ck_assert_uint_eq(e->flow.packets, 1); /* T+600 was dropped */
  ck_assert_uint_eq(e->flow.first_ts, T + S + 200);
  ck_assert_uint_eq(e->flow.coverage_start, T + S);
  ck_assert_uint_eq(e->flow.coverage_end, NONE);
  h_free(&h);
}
END_TEST

/* Three ports, two seats: slot 0 {1, 2}, slot 1 {3, 1}. Port 1 stays
 * measured: its flow and its outstanding I/O cross the boundary untouched
 * and complete normally; only port 2's flow is truncated. */
START_TEST(test_truncation_untouched) {
  H h;
  static const uint32_t ids[3] = {1, 2, 3};
  rtel_settings st;
  const rtel_tstamp T = 100000, S = 10000;
  nvq q = {1, 0x0A010001u, 0x0A020001u, 0x11, 0x22, 100, 500};
  size_t m, i;
  entry *e;

  rtel_settings_default(&st);
  st.flow_idle_timeout = 1000000000;
  st.io_timeout = 1000000000000ull;
  h_init(&h, &st);
  h.ids = ids;
  h.nids = 3;
  for (i = 0; i < 3; i++) {
    h_add_port(&h, ids[i], 0);
  }
  ck_assert_int_eq(h_sched(&h, RTEL_SCHED_POLL, 2, S, 0, T), 0);
  nv_open(&h, &q, T + 100, 1);
  ck_assert_uint_eq(h_count(&h, 0, EV_IO), 2);
  nv_cmd(&h, &q, T + 300, RTEL_NVME_OP_READ, 6, 1, 0x2000, 0xAC000000ull, 4096,
         0x78);
  h_data(&h, T + 400, 1, 0x0A030001u, 0x0A040001u, 0x33, 0, 512);
  h_data(&h, T + 500, 2, 0x0A030001u, 0x0A040001u, 0x44, 0, 512);
  m = h.n;
  h_advance(&h, T + S);
  e = one_event(&h, m);
  ck_set(e->started, e->nstarted, (const uint32_t[]){3}, 1, "started", 1);
  ck_set(e->stopped, e->nstopped, (const uint32_t[]){2}, 1, "stopped", 1);
  ck_assert_uint_eq(h_count(&h, m, EV_FLOW), 1);
  ck_assert_uint_eq(h_nth(&h, m, EV_FLOW, 0)->flow.port, 2);
  ck_assert_uint_eq(h_count(&h, m, EV_IO), 0);

  m = h.n;
  nv_wdata(&h, &q, T + S + 100, 0xAC000000ull, 0x78, 4096);
  nv_rsp(&h, &q, T + S + 200, 6, 0);
  h_data(&h, T + S + 300, 1, 0x0A030001u, 0x0A040001u, 0x33, 1, 512);
  ck_assert_uint_eq(h_count(&h, m, EV_IO), 1);
  e = h_nth(&h, m, EV_IO, 0);
  ck_assert_uint_eq(e->io.state, RTEL_IO_COMPLETE);
  ck_assert_int_eq(e->io.iol, (int64_t)(S - 100));
  ck_assert_int_eq(e->io.dal, (int64_t)(S - 200));
  ck_assert_uint_eq(e->io.coverage_start, 0);
  ck_assert_uint_eq(e->io.coverage_end, NONE);
  m = h.n;
  h.call_now = T + S + 400;
  ck_assert_int_eq(rtel_ctx_flush(h.ctx, T + S + 400), 0);
  for (i = 0; i < h_count(&h, m, EV_FLOW); i++) {
    e = h_nth(&h, m, EV_FLOW, i);
    ck_assert_uint_eq(e->flow.end, RTEL_END_FLUSH);
    ck_assert_uint_eq(e->flow.coverage_start, 0);
    ck_assert_uint_eq(e->flow.coverage_end, NONE);
    if (e->flow.dqpn == 0x33) {
      ck_assert_uint_eq(e->flow.packets, 2);
      ck_assert_uint_eq(e->flow.first_ts, T + 400);
      ck_assert_uint_eq(e->flow.last_ts, T + S + 300);
    }
  }
  h_free(&h);
}
END_TEST

/* An I/O belongs to the port of its command (not of the packet that
 * revealed its queue): the queue is opened on port 1, a read is sent on
 * port 2 while port 2 is measured; when port 2 stops, the read is
 * truncated with port 2's coverage window, although port 1 is measured. */
START_TEST(test_truncation_io_command_port) {
  H h;
  static const uint32_t ids[2] = {1, 2};
  rtel_settings st;
  const rtel_tstamp T = 100000, S = 10000;
  nvq q = {1, 0x0A010001u, 0x0A020001u, 0x11, 0x22, 100, 500};
  size_t m;
  entry *e;

  rtel_settings_default(&st);
  st.flow_idle_timeout = 1000000000;
  st.io_timeout = 1000000000000ull;
  h_init(&h, &st);
  h.ids = ids;
  h.nids = 2;
  h_add_port(&h, 1, 0);
  h_add_port(&h, 2, 0);
  nv_open(&h, &q, 1000, 1);
  ck_assert_uint_eq(h_count(&h, 0, EV_IO), 2);
  ck_assert_int_eq(h_sched(&h, RTEL_SCHED_POLL, 1, S, 0, T), 0); /* {1} */
  h_advance(&h, T + S);                                          /* {2} */
  ck_assert_int_eq(rtel_ctx_port_measured(h.ctx, 2), 1);
  q.port = 2;
  nv_cmd(&h, &q, T + S + 100, RTEL_NVME_OP_READ, 7, 1, 0, 0xAD000000ull, 4096,
         0x79);
  m = h.n;
  h_advance(&h, T + 2 * S); /* {1}: port 2 stops */
  ck_assert_uint_eq(h_count(&h, m, EV_IO), 1);
  e = h_nth(&h, m, EV_IO, 0);
  ck_assert_uint_eq(e->io.state, RTEL_IO_TRUNCATED);
  ck_assert_uint_eq(e->io.cid, 7);
  ck_assert_uint_eq(e->io.port, 2);
  ck_assert_uint_eq(e->io.coverage_start, T + S);
  ck_assert_uint_eq(e->io.coverage_end, T + 2 * S);
  ck_assert_uint_eq(e->io.t_cmd, T + S + 100);
  h_free(&h);
}
END_TEST

/* ------------------------------------------------------------- unregistered
 */

/* Full mode measures unregistered ports; polling mode does not. A flow of
 * an unregistered port in progress when polling begins is cut by that
 * boundary ("anything cut by a slot boundary is flagged truncated, never
 * reported as complete"), with coverage_end = the boundary -- also when no
 * registered port stops (P >= N). */
static void unreg_to_poll(uint32_t nports, uint32_t per) {
  H h;
  rtel_settings st;
  size_t m, i;
  entry *f;
  uint32_t k;

  rtel_settings_default(&st);
  st.flow_idle_timeout = 100000;
  h_init(&h, &st);
  for (k = 1; k <= nports; k++) {
    h_add_port(&h, k, 0);
  }
  h_data(&h, 100, 99, A_IP, B_IP, 0x99, 0, 64);
  h_data(&h, 200, 99, A_IP, B_IP, 0x99, 1, 64);
  ck_assert_uint_eq(h_stats(&h).pkts_roce, 2);
  m = h.n;
  ck_assert_int_eq(h_sched(&h, RTEL_SCHED_POLL, per, 1000, 0, 1000), 0);
  ck_assert_int_eq(rtel_ctx_port_measured(h.ctx, 99), 0);
  h_data(&h, 1100, 99, A_IP, B_IP, 0x99, 2, 64);
  ck_assert_uint_eq(h_stats(&h).pkts_unscheduled, 1);
  ck_assert_msg(h_count(&h, m, EV_FLOW) == 1,
                "P=%u N=%u: the flow of unregistered port 99 was not "
                "delivered at the switch to polling (%zu records)",
                per, nports, h_count(&h, m, EV_FLOW));
  f = h_nth(&h, m, EV_FLOW, 0);
  ck_assert_uint_eq(f->call_now, 1000);
  ck_assert_uint_eq(f->flow.port, 99);
  ck_assert_uint_eq(f->flow.end, RTEL_END_TRUNCATED);
  ck_assert_uint_eq(f->flow.packets, 2);
  ck_assert_uint_eq(f->flow.coverage_start, 100); /* first packet */
  ck_assert_msg(f->flow.coverage_end == 1000,
                "coverage_end %llu, expected the boundary 1000",
                (unsigned long long)f->flow.coverage_end);
  /* and never again */
  m = h.n;
  h_advance(&h, 500000);
  for (i = m; i < h.n; i++) {
    ck_assert(h.e[i].kind != EV_FLOW || h.e[i].flow.port != 99);
  }
  h_free(&h);
}

START_TEST(test_unreg_full_to_poll_none_stop) { unreg_to_poll(2, 2); }
END_TEST

START_TEST(test_unreg_full_to_poll_some_stop) { unreg_to_poll(3, 2); }
END_TEST

/* After a polling phase, full mode measures unregistered ports again from
 * the switch on: that is where their coverage window begins. */
START_TEST(test_unreg_poll_to_full_coverage) {
  H h;
  size_t m, i;
  entry *f;

  h_init(&h, NULL);
  h_add_port(&h, 1, 0);
  h_data(&h, 50, 1, A_IP, B_IP, 0x1, 0, 64); /* first packet: 50 */
  ck_assert_int_eq(h_sched(&h, RTEL_SCHED_POLL, 1, 1000, 0, 100), 0);
  h_data(&h, 150, 99, A_IP, B_IP, 0x99, 0, 64);
  ck_assert_uint_eq(h_stats(&h).pkts_unscheduled, 1);
  ck_assert_int_eq(h_sched(&h, RTEL_SCHED_FULL, 0, 0, 0, 5000), 0);
  ck_assert_int_eq(rtel_ctx_port_measured(h.ctx, 99), 1);
  h_data(&h, 5100, 99, A_IP, B_IP, 0x99, 1, 64);
  h_data(&h, 5200, 99, A_IP, B_IP, 0x99, 2, 64);
  m = h.n;
  h.call_now = 6000;
  ck_assert_int_eq(rtel_ctx_flush(h.ctx, 6000), 0);
  f = NULL;
  for (i = 0; i < h_count(&h, m, EV_FLOW); i++) {
    if (h_nth(&h, m, EV_FLOW, i)->flow.port == 99) {
      f = h_nth(&h, m, EV_FLOW, i);
    }
  }
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(f->flow.port, 99);
  ck_assert_uint_eq(f->flow.packets, 2);
  ck_assert_msg(f->flow.coverage_start == 5000,
                "unregistered port 99 measured again from 5000 (full mode), "
                "coverage_start %llu",
                (unsigned long long)f->flow.coverage_start);
  ck_assert_uint_eq(f->flow.coverage_end, NONE);
  h_free(&h);
}
END_TEST

/* A port added while polling is not measured until its turn; in full mode
 * it is measured from |now| on. */
START_TEST(test_add_port_while_polling) {
  H h;
  static const uint32_t ids[4] = {1, 2, 3, 4};
  size_t m, i;
  entry *e;
  int seen4 = 0;

  h_init(&h, NULL);
  h.ids = ids;
  h.nids = 4;
  for (i = 0; i < 3; i++) {
    h_add_port(&h, ids[i], 0);
  }
  ck_assert_int_eq(h_sched(&h, RTEL_SCHED_POLL, 1, 100, 0, 1000), 0);
  h_add_port(&h, 4, 1050);
  ck_assert_int_eq(rtel_ctx_port_measured(h.ctx, 4), 0);
  h_data(&h, 1060, 4, A_IP, B_IP, 0x4, 0, 64);
  ck_assert_uint_eq(h_stats(&h).pkts_unscheduled, 1);
  for (i = 1; i <= 4; i++) {
    m = h.n;
    h_advance(&h, 1000 + 100 * i);
    e = one_event(&h, m);
    ck_assert_uint_eq(e->nstarted, 1);
    if (e->started[0] == 4) {
      seen4 = 1;
      ck_assert_int_eq(rtel_ctx_port_measured(h.ctx, 4), 1);
      h_data(&h, 1000 + 100 * i + 5, 4, A_IP, B_IP, 0x4, 1, 64);
    }
  }
  ck_assert_msg(seen4, "port 4 (added while polling) never measured in 4 "
                       "slots");
  h_free(&h);
}
END_TEST

/* ------------------------------------------------------------- suites */

Suite *sched_suite(void) {
  Suite *s = suite_create("sched");
  TCase *tc = tcase_create("api");
  tcase_add_test(tc, test_api_args);
  suite_add_tcase(s, tc);

  tc = tcase_create("random");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, test_sched_random, 0, 600);
  suite_add_tcase(s, tc);

  tc = tcase_create("late");
  tcase_add_test(tc, test_late_caller);
  tcase_add_test(tc, test_late_no_ports);
  suite_add_tcase(s, tc);

  tc = tcase_create("priority");
  tcase_add_test(tc, test_prio_basic);
  tcase_add_test(tc, test_prio_p1_parity);
  tcase_add_test(tc, test_prio_window_from_raise_idle);
  suite_add_tcase(s, tc);
  return s;
}

Suite *mode_suite(void) {
  Suite *s = suite_create("mode");
  TCase *tc = tcase_create("changes");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_mode_changes);
  tcase_add_loop_test(tc, test_mode_random, 0, 150);
  suite_add_tcase(s, tc);

  tc = tcase_create("truncation");
  tcase_add_test(tc, test_truncation_flow_io);
  tcase_add_test(tc, test_truncation_untouched);
  tcase_add_test(tc, test_truncation_io_command_port);
  suite_add_tcase(s, tc);

  tc = tcase_create("ports");
  tcase_add_test(tc, test_unreg_full_to_poll_none_stop);
  tcase_add_test(tc, test_unreg_full_to_poll_some_stop);
  tcase_add_test(tc, test_unreg_poll_to_full_coverage);
  tcase_add_test(tc, test_add_port_while_polling);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(sched_suite());
  int failed;
  srunner_add_suite(sr, mode_suite());
  srunner_add_suite(sr, alarm_suite());
  srunner_add_suite(sr, agg_suite());
  srunner_run_all(sr, CK_ENV);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
