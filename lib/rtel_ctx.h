/* SPDX-License-Identifier: MIT */
/*
 * The context, the hub of the library: it owns every module, sends each
 * packet through them, runs the timers in one order, and is the only place
 * that calls the application (see the top of rtel_ctx.c).
 */
#ifndef RTEL_CTX_H
#define RTEL_CTX_H

#include "rtel_int.h"
#include "rtel_agg.h"
#include "rtel_alarm.h"
#include "rtel_flow.h"
#include "rtel_join.h"
#include "rtel_nvme.h"
#include "rtel_pair.h"
#include "rtel_parse.h"
#include "rtel_sched.h"
#include "rtel_sink.h"

/* The structs the context hands to the application's callbacks. */
enum {
  RTEL__OUT_HD,
  RTEL__OUT_STATS,
  RTEL__OUT_FLOW,
  RTEL__OUT_MSG,
  RTEL__OUT_IO,
  RTEL__OUT_SEGMENT,
  RTEL__OUT_AGGREGATE,
  RTEL__OUT_SLOT,
  RTEL__OUT_ALARM,
  RTEL__OUT_N
};

/* Packets of a burst decoded ahead (rtel_ctx_read_pkts()). */
#define RTEL__AHEAD 8
#define RTEL__AHEAD_FLOWS 1
#define RTEL__AHEAD_PAIRS 2
/* rtel__ahead.has of a packet that rtel__pair_packet() will look up
 * (rtel__pair_hint()); the flow table's are RTEL__HINT_DATA and _CTRL */
#define RTEL__HINT_PAIR 3

typedef struct rtel__ahead {
  rtel_pkt_hd hd; /* decoded, unless |fast| (then at its turn if need be) */
  rtel__dpkt d;   /* with |fast|: what rtel__decode_data() read of it */
  int fast;       /* rtel__decode_data() took it (ctx->fast) */
  int rv;         /* of the decoder; RTEL_ERR_INVALID_ARGUMENT: bad input */
  int has;        /* hint is set (flow table), or RTEL__HINT_PAIR */
  uint32_t hint;  /* rtel__flow_hint() */
  uint32_t pk;    /* the hash of its key (read_end(), read_fast()), when rv
                     is 0 */
} rtel__ahead;

struct rtel_ctx {
  rtel_mem mem;
  rtel_settings settings;
  rtel_callbacks cb;
  void *user_data;
  rtel__decode_cfg dcfg;
  rtel_ctx_stats stats;
  /* what the modules see of the context, and their way up to it */
  rtel__env env;
  rtel__sink sink;
  /* Per delivered struct: the size the application's callbacks version
   * names, and, when that is smaller than the library's struct, a buffer
   * of exactly that size that each delivery is copied into. */
  size_t out_len[RTEL__OUT_N];
  void *out_copy[RTEL__OUT_N];
  /* timestamp of the previous packet, 0 before the first */
  rtel_tstamp last_ts;
  /* the latest time the context was told (packets, handle_expiry) */
  rtel_tstamp clock;
  /* end of the current statistics period, RTEL_TSTAMP_NONE if unarmed */
  rtel_tstamp stats_next;
  /* nonzero once a fatal error happened */
  int failed;
  /* RDMA CM connections being established */
  rtel__cm_tracker cm;
  /* learned QP pairs, read by the flow table and the NVMe-oF correlator */
  rtel__pairtab pairs;
  /* the flow table */
  rtel__flowtab ft;
  /* the NVMe-oF I/O correlator, the join of its records from two
   * observation points, and its aggregates */
  rtel__nvme nvme;
  rtel__join join;
  rtel__agg agg;
  /* ports, polling schedule, alarms */
  rtel__sched sched;
  rtel__alarms alarms;
  /* the alarms the record being delivered caused */
  rtel__fired fired;
  /* scratch decode result, reused for every packet */
  rtel_pkt_hd hd;
  /* the packets of a burst decoded ahead, when |ahead|: set at creation
   * by ahead_pays() (tests may set it to run the path on small tables):
   * RTEL__AHEAD_FLOWS for the flow table's lookups, RTEL__AHEAD_PAIRS
   * (no flow table) for the pairing table's */
  int ahead;
  rtel__ahead ahead_pkts[RTEL__AHEAD];
  /* read_one() and read_burst() try the fused fast path first: set at
   * creation by fast_pays() */
  int fast;
};

/* Size of the prefix of each versioned input/output struct. */
size_t rtel__settings_len(int version);
size_t rtel__callbacks_len(int version);
size_t rtel__pkt_info_len(int version);
size_t rtel__ctx_stats_len(int version);

#endif /* RTEL_CTX_H */
