/* SPDX-License-Identifier: MIT */
/* The context: settings, callbacks, counters, timers; the per-packet
 * pipeline starts here (decode, count, hand to the modules). */
#ifndef RTEL_CTX_H
#define RTEL_CTX_H

#include "rtel_int.h"
#include "rtel_agg.h"
#include "rtel_alarm.h"
#include "rtel_flow.h"
#include "rtel_nvme.h"
#include "rtel_parse.h"
#include "rtel_sched.h"

struct rtel_ctx {
  rtel_mem mem;
  rtel_settings settings;
  rtel_callbacks cb;
  void *user_data;
  rtel__decode_cfg dcfg;
  rtel_ctx_stats stats;
  /* timestamp of the previous packet, RTEL_TSTAMP_NONE before the first */
  rtel_tstamp last_ts;
  /* the latest time the context was told (packets, handle_expiry) */
  rtel_tstamp clock;
  /* end of the current statistics period, RTEL_TSTAMP_NONE if unarmed */
  rtel_tstamp stats_next;
  /* nonzero once a fatal error happened */
  int failed;
  /* RDMA CM connections being established */
  rtel__cm_tracker cm;
  /* the flow table */
  rtel__flowtab ft;
  /* the NVMe-oF I/O correlator and its aggregates */
  rtel__nvme nvme;
  rtel__agg agg;
  /* ports, polling schedule, alarms */
  rtel__sched sched;
  rtel__alarms alarms;
  /* scratch decode result, reused for every packet */
  rtel_pkt_hd hd;
};

/* Size of the prefix of each versioned input/output struct. */
size_t rtel__settings_len(int version);
size_t rtel__callbacks_len(int version);
size_t rtel__pkt_info_len(int version);
size_t rtel__ctx_stats_len(int version);

#endif /* RTEL_CTX_H */
