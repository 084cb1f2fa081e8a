/* SPDX-License-Identifier: MIT */
/*
 * Ports and the polling scheduler: which ports are measured now, their
 * coverage windows, slot boundaries on the pull-based timers. A leaf: it
 * calls no other module; a boundary is returned to the hub as a rtel__slot.
 */
#ifndef RTEL_SCHED_H
#define RTEL_SCHED_H

#include "rtel_int.h"
#include "rtel_sink.h"
#include "rtel_table.h"

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
  rtel__env env;
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

/* A slot boundary: the event for on_slot, and whether the records of the
 * ports that stopped (or of unregistered ports) must now be truncated. */
typedef struct rtel__slot {
  rtel_slot_event ev;
  int truncate;
} rtel__slot;

int rtel__sched_init(rtel__sched *s, uint32_t max_ports, const rtel__env *env);
void rtel__sched_free(rtel__sched *s);

/* Registers a port (rtel_ctx_add_port()). Returns 0 or
 * RTEL_ERR_INVALID_ARGUMENT (bad role, duplicate id, table full). */
int rtel__sched_add_port(rtel__sched *s, const rtel_port *port,
                         rtel_tstamp now);

/* Is |schedule| acceptable to rtel__sched_set()? */
int rtel__sched_valid(const rtel_schedule *schedule);

/* Switches to |schedule| at |now|: a boundary, described in |out|. */
void rtel__sched_set(rtel__sched *s, const rtel_schedule *schedule,
                     rtel_tstamp now, rtel__slot *out);

/* Is a packet of |port| measured now? (The fast path: full mode.) */
static inline int rtel__sched_admit(const rtel__sched *s, uint32_t port);
int rtel__sched_port_measured(const rtel__sched *s, uint32_t port);

/* The coverage window of |port| for a record delivered now. */
void rtel__sched_coverage(const rtel__sched *s, uint32_t port,
                          rtel_tstamp *start, rtel_tstamp *end);

/* Notes an alarm raised on |port| at |ts| (for priority seats). */
void rtel__sched_note_alarm(rtel__sched *s, uint32_t port, rtel_tstamp ts);

/* Notes the time of a packet (the first one starts the epoch). */
static inline void rtel__sched_clock(rtel__sched *s, rtel_tstamp ts) {
  if (rtel__unlikely(s->epoch == RTEL_TSTAMP_NONE)) {
    s->epoch = ts;
  }
}

/* End of the current polling slot, or RTEL_TSTAMP_NONE. */
static inline rtel_tstamp rtel__sched_expiry(const rtel__sched *s) {
  return s->next;
}

/* Begins the slot that contains |now| if the current one ended: returns 1
 * and describes the boundary in |out|, or 0. */
int rtel__sched_expire(rtel__sched *s, rtel_tstamp now, rtel__slot *out);

static inline int rtel__sched_admit(const rtel__sched *s, uint32_t port) {
  if (rtel__likely(s->sch.mode == RTEL_SCHED_FULL)) {
    return 1;
  }
  return rtel__sched_port_measured(s, port);
}

#endif /* RTEL_SCHED_H */
