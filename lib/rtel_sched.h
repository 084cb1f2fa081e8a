/* SPDX-License-Identifier: MIT */
/*
 * Ports and the polling scheduler: which ports are measured now, their
 * coverage windows, slot boundaries on the pull-based timers.
 */
#ifndef RTEL_SCHED_H
#define RTEL_SCHED_H

#include "rtel_int.h"

struct rtel_ctx;

typedef struct rtel__port {
  uint32_t id;
  uint32_t role;
  uint8_t measured;
  uint8_t chosen; /* scratch while choosing a slot's ports */
  char name[RTEL_PORT_NAME_MAX + 1];
  rtel_tstamp cov_start;
  rtel_tstamp cov_end;
  rtel_tstamp last_alarm; /* RTEL_TSTAMP_NONE: never */
} rtel__port;

typedef struct rtel__sched {
  rtel__port *ports; /* registration order */
  uint32_t nports;
  uint32_t cap;
  uint32_t *idx; /* open addressing: port id -> index, RTEL__NIL empty */
  uint32_t idx_mask;
  uint32_t *started; /* event scratch arrays (cap each) */
  uint32_t *stopped;
  rtel_schedule sch;
  uint64_t slot;     /* sequence number of the next slot to begin */
  rtel_tstamp next;  /* end of the current polling slot, NONE if none */
  uint32_t rr;       /* round robin cursor */
  uint32_t prio_rr;  /* cursor over alarmed ports */
  rtel_tstamp epoch; /* first packet */
  /* coverage of unregistered ports: measured in full mode only */
  rtel_tstamp unreg_start;
  rtel_tstamp unreg_end;
} rtel__sched;

int rtel__sched_init(struct rtel_ctx *ctx);
void rtel__sched_free(struct rtel_ctx *ctx);

/* Is a packet of |port| measured now? (The fast path: full mode.) */
static inline int rtel__sched_admit(const rtel__sched *s, uint32_t port);
int rtel__sched_port_measured(const rtel__sched *s, uint32_t port);

/* The coverage window of |port| for a record delivered now. */
void rtel__sched_coverage(const rtel__sched *s, uint32_t port,
                          rtel_tstamp *start, rtel_tstamp *end);

/* Notes an alarm on |port| (for priority seats). */
void rtel__sched_alarm(struct rtel_ctx *ctx, uint32_t port, rtel_tstamp ts);

rtel_tstamp rtel__sched_expiry(const struct rtel_ctx *ctx);
int rtel__sched_expire(struct rtel_ctx *ctx, rtel_tstamp now);

static inline int rtel__sched_admit(const rtel__sched *s, uint32_t port) {
  if (rtel__likely(s->sch.mode == RTEL_SCHED_FULL)) {
    return 1;
  }
  return rtel__sched_port_measured(s, port);
}

#endif /* RTEL_SCHED_H */
