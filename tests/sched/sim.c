/* SPDX-License-Identifier: MIT */
/*
 * Scheduler model (see sim.h). Rules checked, from rocetel.h and
 * rtel-metrics(7) "POLLING SCHEDULER":
 *
 *  - one on_slot event per boundary, numbered 0, 1, ... (a late caller's
 *    event carries the number of the slot containing |now|: skipped slots
 *    are counted), start = the boundary (set_schedule: |now|), end =
 *    start + slot_ns in polling mode, RTEL_TSTAMP_NONE in full mode;
 *  - started ports were not measured before, stopped ports were; the new
 *    set has min(P, N) ports in polling mode, all registered ports in full
 *    mode; rtel_ctx_port_measured() agrees inside the callback; an
 *    unregistered port is measured in full mode only;
 *  - without alarm priority, ports are taken round robin in registration
 *    order, P at a time, the first slot after rtel_ctx_new() beginning with
 *    the first port; a late caller moves on as if the skipped slots had
 *    taken place;
 *  - every port is measured at least once in every ceil(N / P)
 *    consecutive slots; with alarm priority ceil(N / (P - 1)) (P >= 2) or
 *    2 N (P = 1);
 *  - with alarm priority, when a port's alarm is younger than
 *    alarm_priority, an alarmed port holds a seat (P >= 2, or odd slots
 *    with P = 1);
 *  - flow records: each flow exactly once, with every admitted packet;
 *    end TRUNCATED exactly when its port is no longer measured, coverage
 *    window = the model's; packets of unmeasured ports are counted in
 *    pkts_unscheduled.
 */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

#define SRC_REG 0x0A000000u   /* 10.0.x.x: port index */
#define SRC_UNREG 0x0A010000u /* 10.1.x.x */
#define DST 0x0A640001u       /* 10.100.0.1 */
#define UNREG_BASE 0xFFFF0000u

static int idx_of(const sim *s, uint32_t id) {
  uint32_t i;
  for (i = 0; i < s->n; i++) {
    if (s->ids[i] == id) {
      return (int)i;
    }
  }
  return -1;
}

static uint32_t seats(const sim *s) { return s->per < s->n ? s->per : s->n; }

void sim_init(sim *s, uint64_t seed, uint32_t n, rtel_tstamp idle,
              int alarms) {
  rtel_settings st;
  uint32_t i;
  memset(s, 0, sizeof(*s));
  rng_seed(&s->r, seed);
  s->n = n;
  s->idle = idle;
  s->alarms = alarms;
  rtel_settings_default(&st);
  st.flow_idle_timeout = idle;
  st.max_flows = 8192;
  h_init(&s->h, &st);
  for (i = 0; i < n; i++) {
    uint32_t id;
    do {
      id = (uint32_t)rng_below(&s->r, 0x7FFFFFFFu);
    } while (idx_of(s, id) >= 0);
    s->ids[i] = id;
  }
  s->h.ids = s->ids;
  s->h.nids = n;
  s->mode = RTEL_SCHED_FULL;
  s->cur_end = NONE;
  s->epoch = NONE;
  s->flcap = 4096;
  s->fl_pkts = calloc(s->flcap, sizeof(uint32_t));
  s->fl_port = calloc(s->flcap, sizeof(uint32_t));
  s->fl_first = calloc(s->flcap, sizeof(rtel_tstamp));
  s->fl_last = calloc(s->flcap, sizeof(rtel_tstamp));
  s->fl_done = calloc(s->flcap, 1);
  ck_assert(s->fl_pkts && s->fl_port && s->fl_first && s->fl_last &&
            s->fl_done);
  if (alarms) {
    ck_assert_int_eq(rtel_ctx_set_threshold(s->h.ctx, RTEL_METRIC_FCT,
                                            RTEL_SCOPE_PORT, 1.0),
                     0);
  }
}

void sim_free(sim *s) {
  h_free(&s->h);
  free(s->fl_pkts);
  free(s->fl_port);
  free(s->fl_first);
  free(s->fl_last);
  free(s->fl_done);
}

static uint32_t new_flow(sim *s) {
  if (s->nflows == s->flcap) {
    uint32_t cap = s->flcap * 2;
    s->fl_pkts = realloc(s->fl_pkts, cap * sizeof(uint32_t));
    s->fl_port = realloc(s->fl_port, cap * sizeof(uint32_t));
    s->fl_first = realloc(s->fl_first, cap * sizeof(rtel_tstamp));
    s->fl_last = realloc(s->fl_last, cap * sizeof(rtel_tstamp));
    s->fl_done = realloc(s->fl_done, cap);
    ck_assert(s->fl_pkts && s->fl_port && s->fl_first && s->fl_last &&
              s->fl_done);
    memset(s->fl_pkts + s->flcap, 0, (cap - s->flcap) * sizeof(uint32_t));
    memset(s->fl_done + s->flcap, 0, cap - s->flcap);
    s->flcap = cap;
  }
  s->fl_pkts[s->nflows] = 0;
  s->fl_done[s->nflows] = 0;
  return s->nflows++;
}

/* ------------------------------------------------------------- checks */

static void check_event(sim *s, const entry *e) {
  uint8_t before[SIM_MAXN];
  uint32_t i, count = 0, k = seats(s);
  size_t j;

  ck_assert_msg(s->exp_event, "on_slot at %llu not expected",
                (unsigned long long)e->call_now);
  ck_assert_msg(!s->got_event, "two on_slot events in one call");
  s->got_event = 1;
  ck_assert_msg(e->slot == s->exp_slot, "slot number %llu, expected %llu",
                (unsigned long long)e->slot, (unsigned long long)s->exp_slot);
  ck_assert_msg(e->start == s->exp_start, "slot start %llu, expected %llu",
                (unsigned long long)e->start,
                (unsigned long long)s->exp_start);
  ck_assert_msg(e->end == s->exp_end, "slot end %llu, expected %llu",
                (unsigned long long)e->end, (unsigned long long)s->exp_end);
  memcpy(before, s->meas, sizeof(before));
  for (j = 0; j < e->nstarted; j++) {
    int x = idx_of(s, e->started[j]);
    ck_assert_msg(x >= 0, "started port %u is not registered", e->started[j]);
    ck_assert_msg(!before[x] && !s->meas[x],
                  "port %u started but was measured already (or twice)",
                  e->started[j]);
    s->meas[x] = 1;
    s->cov_start[x] = e->start;
  }
  for (j = 0; j < e->nstopped; j++) {
    int x = idx_of(s, e->stopped[j]);
    ck_assert_msg(x >= 0, "stopped port %u is not registered", e->stopped[j]);
    ck_assert_msg(before[x] && s->meas[x],
                  "port %u stopped but was not measured (or twice)",
                  e->stopped[j]);
    s->meas[x] = 0;
    s->cov_stop[x] = e->start;
  }
  for (i = 0; i < s->n; i++) {
    count += s->meas[i];
    ck_assert_msg(e->snap[i] == s->meas[i],
                  "slot %llu: rtel_ctx_port_measured(%u) = %d in on_slot, "
                  "events say %d",
                  (unsigned long long)e->slot, s->ids[i], e->snap[i],
                  s->meas[i]);
  }
  ck_assert_int_eq(e->snap_unreg, s->mode == RTEL_SCHED_FULL);
  if (s->mode == RTEL_SCHED_FULL) {
    ck_assert_uint_eq(count, s->n);
  } else {
    ck_assert_msg(count == k, "slot %llu: %u ports measured, P=%u N=%u",
                  (unsigned long long)e->slot, count, s->per, s->n);
  }
  s->nevents++;
  s->npoll += s->mode == RTEL_SCHED_POLL;
  s->seq = e->slot + 1;
  s->cur_start = e->start;
  s->cur_end = e->end;
  if (s->mode != RTEL_SCHED_POLL) {
    return;
  }
  /* round robin (no priority) */
  if (s->prio == 0) {
    if (s->rr_known) {
      s->rr = (uint32_t)((s->rr + (s->exp_skip % s->n) * k) % s->n);
      for (i = 0; i < s->n; i++) {
        uint32_t d = (i + s->n - s->rr) % s->n;
        ck_assert_msg(s->meas[i] == (d < k),
                      "slot %llu: port #%u (%u) measured=%d, round robin "
                      "from #%u with %u seats says %d",
                      (unsigned long long)e->slot, i, s->ids[i], s->meas[i],
                      s->rr, k, d < k);
      }
      s->rr = (s->rr + k) % s->n;
    } else if (k < s->n) {
      /* the set must be a run of the ring */
      uint32_t st;
      int found = 0;
      for (st = 0; st < s->n && !found; st++) {
        int ok = 1;
        for (i = 0; i < s->n && ok; i++) {
          ok = s->meas[i] == ((i + s->n - st) % s->n < k);
        }
        if (ok) {
          found = 1;
          s->rr = (st + k) % s->n;
          s->rr_known = 1;
        }
      }
      ck_assert_msg(found,
                    "slot %llu: measured ports are not a round-robin "
                    "run of the registration order",
                    (unsigned long long)e->slot);
    }
  } else {
    /* priority: a young alarm must hold a seat */
    int any = 0, held = 0;
    for (i = 0; i < s->n; i++) {
      if (s->has_raise[i] && e->start >= s->raise_ts[i] &&
          e->start - s->raise_ts[i] < s->prio) {
        any = 1;
      }
    }
    if (any && (k >= 2 || (e->slot & 1u))) {
      s->prio_checks++;
      for (i = 0; i < s->n; i++) {
        int young =
            s->has_raise[i] && ((e->start >= s->raise_ts[i] &&
                                 e->start - s->raise_ts[i] < s->prio) ||
                                (e->start >= s->raise_now[i] &&
                                 e->start - s->raise_now[i] < s->prio));
        held |= young && s->meas[i];
      }
      ck_assert_msg(held,
                    "slot %llu: an alarmed port is within its "
                    "priority window but no alarmed port has a seat",
                    (unsigned long long)e->slot);
    }
  }
  /* starvation bound */
  if (s->check_windows) {
    s->pidx++;
    for (i = 0; i < s->n; i++) {
      if (s->meas[i]) {
        s->last_meas[i] = s->pidx;
      } else {
        ck_assert_msg((uint64_t)(s->pidx - s->last_meas[i]) < s->W,
                      "port %u not measured for %lld consecutive slots "
                      "(bound %llu, N=%u P=%u prio=%llu)",
                      s->ids[i], (long long)(s->pidx - s->last_meas[i]),
                      (unsigned long long)s->W, s->n, s->per,
                      (unsigned long long)s->prio);
      }
    }
  }
}

static void check_flow(sim *s, const entry *e) {
  const rtel_flow_record *r = &e->flow;
  uint32_t k = r->dqpn - SIM_FLBASE;
  int x = idx_of(s, r->port);
  ck_assert_msg(r->dqpn >= SIM_FLBASE && k < s->nflows,
                "unknown flow dqpn 0x%x", r->dqpn);
  ck_assert_msg(!s->fl_done[k], "flow 0x%x delivered twice", r->dqpn);
  s->fl_done[k] = 1;
  ck_assert_uint_eq(r->port, s->fl_port[k]);
  ck_assert_msg(r->packets == s->fl_pkts[k],
                "flow 0x%x: %llu packets, %u admitted", r->dqpn,
                (unsigned long long)r->packets, s->fl_pkts[k]);
  ck_assert_uint_eq(r->first_ts, s->fl_first[k]);
  ck_assert_uint_eq(r->last_ts, s->fl_last[k]);
  if (x >= 0) {
    ck_assert_msg((r->end == RTEL_END_TRUNCATED) == !s->meas[x],
                  "flow 0x%x on port %u: end %u while the port is %s", r->dqpn,
                  r->port, r->end, s->meas[x] ? "measured" : "not measured");
    ck_assert_msg(r->coverage_start == s->cov_start[x],
                  "flow 0x%x port %u: coverage_start %llu, expected %llu",
                  r->dqpn, r->port, (unsigned long long)r->coverage_start,
                  (unsigned long long)s->cov_start[x]);
    ck_assert_msg(r->coverage_end == (s->meas[x] ? NONE : s->cov_stop[x]),
                  "flow 0x%x port %u: coverage_end %llu, expected %llu",
                  r->dqpn, r->port, (unsigned long long)r->coverage_end,
                  (unsigned long long)(s->meas[x] ? NONE : s->cov_stop[x]));
    if (r->end == RTEL_END_TRUNCATED) {
      s->trunc_records++;
      ck_assert_uint_le(r->coverage_end, e->call_now);
      ck_assert_uint_ge(r->coverage_end, r->last_ts);
    }
  } else {
    /* only full mode admits unregistered ports; their flows end before
     * the driver switches to polling */
    ck_assert_uint_ne(r->end, RTEL_END_TRUNCATED);
    ck_assert_uint_eq(r->coverage_end, NONE);
    if (!s->polled) {
      ck_assert_uint_eq(r->coverage_start, s->epoch);
    }
  }
}

static void check_alarm(sim *s, const entry *e) {
  const rtel_alarm *a = &e->alarm;
  int x = idx_of(s, a->port);
  ck_assert_uint_eq(a->metric, RTEL_METRIC_FCT);
  ck_assert_uint_eq(a->scope, RTEL_SCOPE_PORT);
  ck_assert_uint_eq(a->kind, RTEL_ALARM_THRESHOLD);
  ck_assert_msg(e->alarm_ptr_ok, "alarm does not point at the record "
                                 "delivered just before it");
  ck_assert_uint_eq(e->flow.port, a->port);
  if (a->state == RTEL_ALARM_RAISED) {
    s->nraised++;
    ck_assert(a->value > 1.0);
    if (x >= 0) {
      s->has_raise[x] = 1;
      s->raise_ts[x] = a->ts;
      s->raise_now[x] = e->call_now;
    }
  } else {
    ck_assert_uint_eq(a->state, RTEL_ALARM_CLEARED);
    ck_assert(a->value <= 0.9);
    s->ncleared++;
  }
}

static void process(sim *s) {
  for (; s->seen < s->h.n; s->seen++) {
    const entry *e = &s->h.e[s->seen];
    switch (e->kind) {
    case EV_SLOT:
      check_event(s, e);
      break;
    case EV_FLOW:
      check_flow(s, e);
      break;
    case EV_ALARM:
      check_alarm(s, e);
      break;
    default:
      ck_abort_msg("unexpected record kind %d", e->kind);
    }
  }
  if (s->h.n > 20000) {
    h_clear(&s->h);
    s->seen = 0;
  }
}

static void check_expiry(sim *s) {
  rtel_ctx_stats st = h_stats(&s->h);
  rtel_tstamp x = rtel_ctx_get_expiry(s->h.ctx);
  ck_assert_msg(st.pkts_unscheduled == s->exp_unsched,
                "pkts_unscheduled %llu, expected %llu",
                (unsigned long long)st.pkts_unscheduled,
                (unsigned long long)s->exp_unsched);
  ck_assert_msg(st.pkts_roce == s->exp_roce, "pkts_roce %llu, expected %llu",
                (unsigned long long)st.pkts_roce,
                (unsigned long long)s->exp_roce);
  /* "Polling slots begun": every polling event; whether a switch to
   * full mode counts is not settled */
  ck_assert_uint_ge(st.slots, s->npoll);
  ck_assert_uint_le(st.slots, s->nevents);
  ck_assert_uint_le(x, s->cur_end);
  if (st.flows_active == 0) {
    ck_assert_msg(x == s->cur_end, "get_expiry %llu, slot end %llu",
                  (unsigned long long)x, (unsigned long long)s->cur_end);
  }
}

/* ------------------------------------------------------------- driver */

typedef struct item {
  rtel_tstamp ts;
  uint32_t port;
  uint32_t flow;
  uint32_t psn;
  uint32_t seq;
} item;

static int item_cmp(const void *a, const void *b) {
  const item *x = a, *y = b;
  if (x->ts != y->ts) {
    return x->ts < y->ts ? -1 : 1;
  }
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static uint32_t src_of(const sim *s, uint32_t port) {
  int x = idx_of(s, port);
  return x >= 0 ? SRC_REG | (uint32_t)x : SRC_UNREG | (port & 0xffu);
}

void sim_traffic(sim *s, rtel_tstamp until) {
  item it[64];
  uint32_t ni = 0, m, j, i;
  rtel_tstamp a = s->t, span;

  ck_assert_uint_le(a, until);
  if (until == a) {
    return;
  }
  span = until - a;
  /* single packets on any port, unregistered ones included */
  m = (uint32_t)rng_below(&s->r, 6);
  for (j = 0; j < m; j++) {
    uint32_t port = rng_below(&s->r, 5) == 0
                        ? UNREG_BASE + (uint32_t)rng_below(&s->r, 8)
                        : s->ids[rng_below(&s->r, s->n)];
    it[ni].ts = a + rng_below(&s->r, span);
    it[ni].port = port;
    it[ni].flow = new_flow(s);
    it[ni].psn = 0;
    it[ni].seq = ni;
    ni++;
  }
  /* alarm traffic on measured ports: a long flow (FCT > 1 ns, raises), or
   * a one-packet flow (FCT 0, clears) */
  for (j = 0; s->alarms && j < 4; j++) {
    uint32_t x = (uint32_t)rng_below(&s->r, s->n);
    double u = rng_unit(&s->r);
    rtel_tstamp t1 = a + rng_below(&s->r, span);
    if (!s->meas[x]) {
      continue;
    }
    if (u < s->p_bad) {
      rtel_tstamp maxf = until - 1 - t1;
      if (s->idle - 1 < maxf) {
        maxf = s->idle - 1;
      }
      if (s->idle < 3 || until - 1 < t1 + 2 || maxf < 2) {
        continue;
      }
      it[ni].ts = t1;
      it[ni].port = s->ids[x];
      it[ni].flow = new_flow(s);
      it[ni].psn = 0;
      it[ni].seq = ni;
      ni++;
      it[ni] = it[ni - 1];
      it[ni].ts = t1 + 2 + rng_below(&s->r, maxf - 1);
      it[ni].psn = 1;
      it[ni].seq = ni;
      ni++;
    } else if (u < s->p_bad + s->p_good) {
      it[ni].ts = t1;
      it[ni].port = s->ids[x];
      it[ni].flow = new_flow(s);
      it[ni].psn = 0;
      it[ni].seq = ni;
      ni++;
    }
  }
  qsort(it, ni, sizeof(it[0]), item_cmp);
  for (i = 0; i < ni; i++) {
    int x = idx_of(s, it[i].port);
    int admitted = x >= 0 ? s->meas[x] : s->mode == RTEL_SCHED_FULL;
    h_advance(&s->h, it[i].ts);
    process(s);
    if (s->epoch == NONE) {
      s->epoch = it[i].ts;
    }
    h_data(&s->h, it[i].ts, it[i].port, src_of(s, it[i].port), DST,
           SIM_FLBASE + it[i].flow, it[i].psn, 256);
    if (admitted) {
      uint32_t k = it[i].flow;
      s->exp_roce++;
      if (s->fl_pkts[k]++ == 0) {
        s->fl_first[k] = it[i].ts;
        s->fl_port[k] = it[i].port;
      }
      s->fl_last[k] = it[i].ts;
      /* a flow ends idle up to 1/64 of the timeout late (the flow
       * table's LRU tick, rtel_settings(3)) */
      if (x < 0 && it[i].ts + s->idle + s->idle / 64 > s->unreg_quiet) {
        s->unreg_quiet = it[i].ts + s->idle + s->idle / 64;
      }
    } else {
      s->exp_unsched++;
    }
    process(s);
  }
  h_advance(&s->h, until);
  process(s);
  s->t = until;
}

void sim_add_ports(sim *s, rtel_tstamp t0) {
  uint32_t i;
  rtel_port p;
  for (i = 0; i < s->n; i++) {
    memset(&p, 0, sizeof(p));
    p.id = s->ids[i];
    p.role = (uint32_t)rng_below(&s->r, 4);
    p.name = "a port name longer than thirty-one bytes, cut";
    ck_assert_int_eq(rtel_ctx_add_port(s->h.ctx, &p, t0 + i), 0);
    ck_assert_int_eq(rtel_ctx_port_measured(s->h.ctx, p.id), 1);
    s->meas[i] = 1;
    s->cov_start[i] = t0 + i;
  }
  ck_assert_int_eq(rtel_ctx_port_measured(s->h.ctx, s->h.unreg), 1);
  s->t = t0 + s->n;
}

static uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

void sim_set(sim *s, uint32_t mode, uint32_t per, rtel_tstamp slot_ns,
             rtel_tstamp prio, rtel_tstamp now) {
  uint32_t i;
  sim_traffic(s, now);
  if (mode == RTEL_SCHED_POLL && s->mode == RTEL_SCHED_FULL &&
      s->unreg_quiet >= now) {
    /* let the unregistered ports' flows end first, without new traffic
     * (the dedicated tests check what happens to them otherwise) */
    now = s->unreg_quiet + 1;
    h_advance(&s->h, now);
    process(s);
    s->t = now;
  }
  if (mode == RTEL_SCHED_POLL) {
    if (!s->polled) {
      s->rr_known = 1; /* a fresh context begins with the first port */
      s->rr = 0;
    } else {
      s->rr_known = 0;
    }
    s->polled = 1;
    s->check_windows = 1;
    s->pidx = -1;
    for (i = 0; i < s->n; i++) {
      s->last_meas[i] = -1;
    }
    if (prio == 0) {
      s->W = ceil_div(s->n, per);
    } else if (per >= 2) {
      s->W = ceil_div(s->n, per - 1);
    } else {
      s->W = 2ull * s->n;
    }
  }
  s->mode = mode;
  s->per = per;
  s->slot_ns = slot_ns;
  s->prio = prio;
  s->exp_event = 1;
  s->got_event = 0;
  s->exp_slot = s->seq;
  s->exp_skip = 0;
  s->exp_start = now;
  s->exp_end = mode == RTEL_SCHED_POLL ? now + slot_ns : NONE;
  ck_assert_int_eq(h_sched(&s->h, mode, per, slot_ns, prio, now), 0);
  process(s);
  ck_assert_msg(s->got_event, "set_schedule at %llu: no on_slot event",
                (unsigned long long)now);
  s->exp_event = 0;
  if (mode == RTEL_SCHED_POLL) {
    check_expiry(s);
  } else {
    ck_assert_int_eq(rtel_ctx_port_measured(s->h.ctx, s->h.unreg), 1);
  }
}

void sim_slots(sim *s, uint64_t k) {
  uint64_t j;
  ck_assert_uint_eq(s->mode, RTEL_SCHED_POLL);
  for (j = 0; j < k; j++) {
    rtel_tstamp b = s->cur_end;
    sim_traffic(s, b - 1 >= s->t ? b - 1 : s->t);
    s->exp_event = 1;
    s->got_event = 0;
    s->exp_slot = s->seq;
    s->exp_skip = 0;
    s->exp_start = b;
    s->exp_end = b + s->slot_ns;
    h_advance(&s->h, b);
    process(s);
    ck_assert_msg(s->got_event, "no on_slot event at %llu",
                  (unsigned long long)b);
    s->exp_event = 0;
    s->t = b;
    check_expiry(s);
  }
}

void sim_late(sim *s, uint64_t skip, rtel_tstamp off) {
  rtel_tstamp b = s->cur_end, now;
  uint32_t i;
  ck_assert_uint_eq(s->mode, RTEL_SCHED_POLL);
  ck_assert_uint_lt(off, s->slot_ns);
  sim_traffic(s, b - 1 >= s->t ? b - 1 : s->t);
  now = b + skip * s->slot_ns + off;
  s->exp_event = 1;
  s->got_event = 0;
  s->exp_slot = s->seq + skip;
  s->exp_skip = skip;
  s->exp_start = b + skip * s->slot_ns;
  s->exp_end = s->exp_start + s->slot_ns;
  /* windows make no sense across a jump: a new run starts here */
  s->pidx = -1;
  for (i = 0; i < s->n; i++) {
    s->last_meas[i] = -1;
  }
  h_expire(&s->h, now);
  process(s);
  ck_assert_msg(s->got_event, "late call at %llu: no on_slot event",
                (unsigned long long)now);
  s->exp_event = 0;
  s->exp_skip = 0;
  s->t = now;
  check_expiry(s);
}

void sim_finish(sim *s) {
  rtel_ctx_stats st;
  uint32_t k;
  s->h.call_now = s->t + 1;
  ck_assert_int_eq(rtel_ctx_flush(s->h.ctx, s->t + 1), 0);
  process(s);
  for (k = 0; k < s->nflows; k++) {
    ck_assert_msg(s->fl_done[k] || s->fl_pkts[k] == 0,
                  "flow 0x%x (%u packets) never delivered", SIM_FLBASE + k,
                  s->fl_pkts[k]);
  }
  st = h_stats(&s->h);
  ck_assert_uint_eq(st.pkts_unscheduled, s->exp_unsched);
  ck_assert_uint_eq(st.pkts_roce, s->exp_roce);
  ck_assert_uint_eq(st.pkts, s->exp_roce + s->exp_unsched);
  ck_assert_uint_ge(st.slots, s->npoll);
  ck_assert_uint_le(st.slots, s->nevents);
  ck_assert_uint_eq(st.alarms_raised, s->nraised);
  ck_assert_uint_eq(st.alarms_cleared, s->ncleared);
  ck_assert_uint_eq(st.flows_active, 0);
}
