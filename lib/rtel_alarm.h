/* SPDX-License-Identifier: MIT */
/*
 * Alarms: thresholds and baselines evaluated on every flow and I/O record,
 * with raise/clear state per scope key.
 */
#ifndef RTEL_ALARM_H
#define RTEL_ALARM_H

#include "rtel_int.h"
#include "rtel_sink.h"
#include "rtel_table.h"

#define RTEL__METRICS 9 /* RTEL_METRIC_* are 1..8 */
#define RTEL__SCOPES 3  /* RTEL_SCOPE_* are 1..2 */

typedef struct rtel__alarms {
  rtel__env env;
  double thr[RTEL__METRICS][RTEL__SCOPES];
  double k[RTEL__METRICS][RTEL__SCOPES];
  uint32_t warmup[RTEL__METRICS][RTEL__SCOPES];
  uint32_t active; /* any threshold or baseline set */
  rtel__qtab keys;
} rtel__alarms;

/* Most alarm events one record can cause: 5 flow metrics x 2 scopes x 2
 * kinds (threshold, baseline), each at most one event. */
#define RTEL__FIRED_MAX 20

/* The alarms one record raised or cleared, for the hub to deliver (their
 * flow/io pointers are left NULL), and whether a scope key could not be
 * stored (the record was then not judged in that scope). */
typedef struct rtel__fired {
  uint32_t n;
  uint32_t dropped;
  rtel_alarm al[RTEL__FIRED_MAX];
} rtel__fired;

int rtel__alarm_init(rtel__alarms *a, uint32_t max_keys, uint64_t seed,
                     const rtel__env *env);
void rtel__alarm_free(rtel__alarms *a);

/* rtel_ctx_set_threshold(), rtel_ctx_set_baseline() without the context:
 * 0 or RTEL_ERR_INVALID_ARGUMENT. */
int rtel__alarm_set_threshold(rtel__alarms *a, uint32_t metric, uint32_t scope,
                              double value);
int rtel__alarm_set_baseline(rtel__alarms *a, uint32_t metric, uint32_t scope,
                             double k, uint32_t warmup);

/* Judges a flow record (not truncated or evicted ones) or a completed I/O
 * record; fills |out|. */
void rtel__alarm_flow(rtel__alarms *a, const rtel_flow_record *r,
                      rtel__fired *out);
void rtel__alarm_io(rtel__alarms *a, const rtel_io_record *r,
                    rtel__fired *out);

/* Are any thresholds or baselines set? */
static inline int rtel__alarm_active(const rtel__alarms *a) {
  return a->active != 0;
}

#endif /* RTEL_ALARM_H */
