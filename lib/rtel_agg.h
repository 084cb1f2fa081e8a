/* SPDX-License-Identifier: MIT */
/*
 * Aggregation of NVMe-oF I/O records per reporting period and per
 * (observation point, host, target, namespace), reads and writes apart,
 * with log-linear latency histograms (rtel_hist).
 */
#ifndef RTEL_AGG_H
#define RTEL_AGG_H

#include "rtel_int.h"
#include "rtel_table.h"

struct rtel_ctx;

typedef struct rtel__agg {
  rtel__qtab keys; /* key (obs, host, target, nsid) */
  rtel_tstamp interval;
  rtel_tstamp start; /* current period's start, NONE before any packet */
  rtel_tstamp next;  /* end of the current period, NONE if unarmed */
} rtel__agg;

int rtel__agg_init(struct rtel_ctx *ctx);
void rtel__agg_free(struct rtel_ctx *ctx);
/* Notes the time of a packet (starts the first period). */
void rtel__agg_clock(struct rtel_ctx *ctx, rtel_tstamp ts);
/* Adds an I/O record. */
void rtel__agg_io(struct rtel_ctx *ctx, const rtel_io_record *r);
rtel_tstamp rtel__agg_expiry(const struct rtel_ctx *ctx);
int rtel__agg_expire(struct rtel_ctx *ctx, rtel_tstamp now);
/* Reports the current period as ending at |now|. */
int rtel__agg_flush(struct rtel_ctx *ctx, rtel_tstamp now);

#endif /* RTEL_AGG_H */
