/* SPDX-License-Identifier: MIT */
/*
 * A model of the polling scheduler driven next to a real context: random
 * traffic on registered and unregistered ports, schedule changes, on-time
 * and late slot boundaries. Every on_slot event, flow record and alarm is
 * checked against the model as it arrives (see sim.c for the rules).
 */
#ifndef SCHED_SIM_H
#define SCHED_SIM_H

#include "harness.h"

#define SIM_MAXN 100
#define SIM_FLBASE 0x100000u

typedef struct sim {
  H h;
  rng r;
  uint32_t n;
  uint32_t ids[SIM_MAXN];
  /* the model */
  uint8_t meas[SIM_MAXN];
  rtel_tstamp cov_start[SIM_MAXN];
  rtel_tstamp cov_stop[SIM_MAXN];
  uint32_t mode, per;
  rtel_tstamp slot_ns, prio;
  rtel_tstamp cur_start, cur_end; /* cur_end NONE in full mode */
  rtel_tstamp t;                  /* time reached by the driver */
  uint64_t seq;                   /* next slot number */
  uint64_t nevents;               /* on_slot events */
  uint64_t npoll;                 /* ... of polling slots */
  int rr_known;
  uint32_t rr;
  int polled; /* a polling phase happened */
  /* starvation windows of the current polling run */
  int64_t pidx;
  int64_t last_meas[SIM_MAXN];
  uint64_t W;
  int check_windows;
  /* alarms (FCT per port, threshold 1 ns) */
  int alarms;
  double p_bad, p_good;
  int has_raise[SIM_MAXN];
  rtel_tstamp raise_ts[SIM_MAXN];
  rtel_tstamp raise_now[SIM_MAXN];
  uint64_t nraised, ncleared;
  /* traffic */
  rtel_tstamp idle;
  rtel_tstamp epoch;
  uint64_t exp_unsched, exp_roce;
  uint32_t nflows, flcap;
  uint32_t *fl_pkts;
  uint32_t *fl_port;
  rtel_tstamp *fl_first, *fl_last;
  uint8_t *fl_done;
  rtel_tstamp unreg_quiet;
  size_t seen;
  /* the slot event expected from the next call, if any */
  int exp_event;
  uint64_t exp_slot, exp_skip;
  rtel_tstamp exp_start, exp_end;
  int got_event;
  /* statistics of the run, for the reader */
  uint64_t prio_checks, trunc_records;
} sim;

void sim_init(sim *s, uint64_t seed, uint32_t n, rtel_tstamp idle, int alarms);
void sim_free(sim *s);
/* Registers the ports (full mode, the default) from time |t0|. */
void sim_add_ports(sim *s, rtel_tstamp t0);
/* Traffic in [s->t, until), then the clock moves to |until|. */
void sim_traffic(sim *s, rtel_tstamp until);
/* A schedule change at |now| >= s->t (after traffic up to it). */
void sim_set(sim *s, uint32_t mode, uint32_t per, rtel_tstamp slot_ns,
             rtel_tstamp prio, rtel_tstamp now);
/* Polling: |k| slots with traffic, each boundary on time. */
void sim_slots(sim *s, uint64_t k);
/* Polling: traffic to the end of the slot, then one call |skip| slots and
 * |off| ns late. */
void sim_late(sim *s, uint64_t skip, rtel_tstamp off);
/* Ends everything (rtel_ctx_flush at s->t + 1) and checks that every flow
 * was delivered exactly once, and the counters. */
void sim_finish(sim *s);

#endif /* SCHED_SIM_H */
