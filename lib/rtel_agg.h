/* SPDX-License-Identifier: MIT */
/*
 * Aggregation of NVMe-oF I/O records per reporting period and per
 * (observation point, host, target, namespace), reads and writes apart,
 * with log-linear latency histograms (rtel_hist).
 */
#ifndef RTEL_AGG_H
#define RTEL_AGG_H

#include "rtel_int.h"
#include "rtel_sink.h"
#include "rtel_table.h"

/* A record's two aggregates (its namespace's and all namespaces'), found
 * without hashing the 40-byte key: rtel_agg.c. */
typedef struct rtel__aggslot {
  rtel__qkey key; /* (obs, host, target, nsid) */
  uint32_t ns;    /* entry of the key; RTEL__NIL: not in the full table */
  uint32_t all;   /* entry of (obs, host, target, RTEL_NSID_ALL); likewise */
  uint32_t gen;   /* rtel__agg.gen when filled; stale otherwise */
} rtel__aggslot;

typedef struct rtel__agg {
  rtel__env env;
  rtel__qtab keys;      /* key (obs, host, target, nsid) */
  rtel__aggslot *slots; /* direct-mapped, on a cheap hash of the key */
  uint32_t slot_mask;
  uint32_t gen; /* of the table's contents: one per period */
  rtel_tstamp interval;
  rtel_tstamp origin; /* rtel_settings.period_origin */
  rtel_tstamp start;  /* current period's start, NONE before any packet */
  rtel_tstamp next;   /* end of the current period, NONE if unarmed */
} rtel__agg;

int rtel__agg_init(rtel__agg *a, const rtel_settings *s, const rtel__env *env);
void rtel__agg_free(rtel__agg *a);

/* Notes the time of a packet (starts the first period). */
static inline void rtel__agg_clock(rtel__agg *a, rtel_tstamp ts) {
  if (rtel__unlikely(a->start == RTEL_TSTAMP_NONE)) {
    a->start = rtel__period_start(ts, a->origin, a->interval);
    if (a->interval) {
      a->next = a->start > RTEL_TSTAMP_NONE - a->interval
                    ? RTEL_TSTAMP_NONE
                    : a->start + a->interval;
    }
  }
}

/* Adds an I/O record (reads and writes that completed or timed out). */
void rtel__agg_io(rtel__agg *a, const rtel_io_record *r);

/* End of the current period, or RTEL_TSTAMP_NONE. */
static inline rtel_tstamp rtel__agg_expiry(const rtel__agg *a) {
  return a->next;
}

/* Reports the period that ended, if any, through the sink. */
int rtel__agg_expire(rtel__agg *a, rtel_tstamp now);
/* Reports the current period as ending at |now|. */
int rtel__agg_flush(rtel__agg *a, rtel_tstamp now);

#endif /* RTEL_AGG_H */
