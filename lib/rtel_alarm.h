/* SPDX-License-Identifier: MIT */
/*
 * Alarms: thresholds and baselines evaluated on every flow and I/O record,
 * with raise/clear state per scope key.
 */
#ifndef RTEL_ALARM_H
#define RTEL_ALARM_H

#include "rtel_int.h"
#include "rtel_table.h"

struct rtel_ctx;

#define RTEL__METRICS 9 /* RTEL_METRIC_* are 1..8 */
#define RTEL__SCOPES 3  /* RTEL_SCOPE_* are 1..2 */

typedef struct rtel__alarms {
  double thr[RTEL__METRICS][RTEL__SCOPES];
  double k[RTEL__METRICS][RTEL__SCOPES];
  uint32_t warmup[RTEL__METRICS][RTEL__SCOPES];
  uint32_t active; /* any threshold or baseline set */
  rtel__qtab keys;
} rtel__alarms;

int rtel__alarm_init(struct rtel_ctx *ctx);
void rtel__alarm_free(struct rtel_ctx *ctx);
int rtel__alarm_flow(struct rtel_ctx *ctx, const rtel_flow_record *r);
int rtel__alarm_io(struct rtel_ctx *ctx, const rtel_io_record *r);

#endif /* RTEL_ALARM_H */
