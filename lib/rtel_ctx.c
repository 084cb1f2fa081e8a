/* SPDX-License-Identifier: MIT */
/*
 * The context: the hub of the library.
 *
 * Every packet enters here and goes, in this order, through
 *   the scheduler's admission (rtel_sched: is its port measured now?)
 *   -> the decoder (rtel_parse) -> the counters -> on_packet
 *   -> RDMA CM tracking (rtel_cm) -> the flow table (rtel_flow), which
 *   feeds the QP pairing table (rtel_pair; without the flow table the hub
 *   feeds it) -> the join's per-point clock (rtel_join) -> the NVMe-oF
 *   correlator (rtel_nvme), which reads the pairing table.
 * The modules never call the hub or each other upwards: what they produce
 * comes back through the sink (rtel_sink.h), whose functions below are the
 * only places that call the application. Each counts the record, stamps
 * its port's coverage window, delivers it in the struct version the
 * application was built for (out()), then feeds what reads records: the
 * aggregates (I/Os) and the alarms (flows, I/Os), whose events are
 * delivered right after the record that caused them and mark the port for
 * the scheduler's priority seat; last, a completed I/O is offered to the
 * two-point join (rtel_join), whose segment record, if it makes one, the
 * hub delivers next.
 *
 * Timers are pulled (rtel_ctx_get_expiry(), rtel_ctx_handle_expiry()) and
 * run in one order at |now|:
 *   1. a polling slot boundary: on_slot, then the flows and I/Os of the
 *      ports that stopped, delivered truncated (truncated records are not
 *      judged by the alarms: their figures are partial);
 *   2. flow timers (idle, active): on_message, on_flow, on_alarm;
 *   3. I/O timeouts: on_io, on_alarm;
 *   4. the end of a reporting period: on_io_aggregate;
 *   5. the end of a statistics period: on_stats.
 */
#include "rtel_ctx.h"

size_t rtel__settings_len(int version) {
  return rtel__version_len(version, RTEL_SETTINGS_VERSION, rtel_settings,
                           period_origin);
}

size_t rtel__callbacks_len(int version) {
  return rtel__version_len(version, RTEL_CALLBACKS_VERSION, rtel_callbacks,
                           on_alarm);
}

size_t rtel__pkt_info_len(int version) {
  return rtel__version_len(version, RTEL_PKT_INFO_VERSION, rtel_pkt_info,
                           linktype);
}

size_t rtel__ctx_stats_len(int version) {
  return rtel__version_len(version, RTEL_CTX_STATS_VERSION, rtel_ctx_stats,
                           ios_unconfirmed);
}

/*
 * The sizes of the structs that the callbacks of |callbacks_version|
 * receive. The latest version receives the library's structs; an older one
 * the prefix its own structs had, named by their last field. Returns 0, or
 * RTEL_ERR_UNSUPPORTED_VERSION for a version this library does not know.
 */
static int out_lens(int callbacks_version, size_t len[RTEL__OUT_N]) {
  if (callbacks_version == RTEL_CALLBACKS_VERSION) {
    len[RTEL__OUT_HD] = sizeof(rtel_pkt_hd);
    len[RTEL__OUT_STATS] = sizeof(rtel_ctx_stats);
    len[RTEL__OUT_FLOW] = sizeof(rtel_flow_record);
    len[RTEL__OUT_MSG] = sizeof(rtel_msg_record);
    len[RTEL__OUT_IO] = sizeof(rtel_io_record);
    len[RTEL__OUT_SEGMENT] = sizeof(rtel_segment_record);
    len[RTEL__OUT_AGGREGATE] = sizeof(rtel_io_aggregate);
    len[RTEL__OUT_SLOT] = sizeof(rtel_slot_event);
    len[RTEL__OUT_ALARM] = sizeof(rtel_alarm);
    return 0;
  }
  switch (callbacks_version) {
  case RTEL_CALLBACKS_V1:
    len[RTEL__OUT_HD] = rtel__struct_len(rtel_pkt_hd, cm_priv_len);
    len[RTEL__OUT_STATS] = rtel__struct_len(rtel_ctx_stats, ios_unconfirmed);
    len[RTEL__OUT_FLOW] = rtel__struct_len(rtel_flow_record, orphan_packets);
    len[RTEL__OUT_MSG] = rtel__struct_len(rtel_msg_record, fet_bps);
    len[RTEL__OUT_IO] = rtel__struct_len(rtel_io_record, coverage_end);
    len[RTEL__OUT_SEGMENT] = rtel__struct_len(rtel_segment_record, storage);
    len[RTEL__OUT_AGGREGATE] = rtel__struct_len(rtel_io_aggregate, dpl);
    len[RTEL__OUT_SLOT] = rtel__struct_len(rtel_slot_event, nstopped);
    len[RTEL__OUT_ALARM] = rtel__struct_len(rtel_alarm, io);
    return 0;
  default:
    return RTEL_ERR_UNSUPPORTED_VERSION;
  }
}

/* |latest| as the application's version of it: itself, or its prefix
 * copied into a buffer of exactly the application's size. */
static const void *out(rtel_ctx *ctx, unsigned kind, const void *latest) {
  void *copy = ctx->out_copy[kind];
  if (rtel__likely(copy == NULL)) {
    return latest;
  }
  memcpy(copy, latest, ctx->out_len[kind]);
  return copy;
}

void rtel_settings_default_versioned(int settings_version,
                                     rtel_settings *settings) {
  rtel_settings s;
  size_t len = rtel__settings_len(settings_version);
  if (settings == NULL || len == 0) {
    return;
  }
  memset(&s, 0, sizeof(s));
  s.decode_flags = 0;
  s.linktype = RTEL_LINK_ETHERNET;
  s.roce_udp_port = RTEL_ROCEV2_UDP_PORT;
  s.vxlan_udp_port = RTEL_VXLAN_UDP_PORT;
  s.stats_interval = 0;
  s.flow_flags = 0;
  s.max_flows = 4096;
  s.max_qp_pairs = 0;               /* 2 x max_flows */
  s.flow_idle_timeout = 100000000u; /* 100 ms */
  s.flow_active_timeout = 0;
  s.hash_seed = 0;
  s.nvme_flags = 0;
  s.max_nvme_queues = 1024;
  s.max_ios = 16384;
  s.max_io_joins = 0;               /* max_ios */
  s.io_timeout = 5000000000ull;     /* 5 s */
  s.io_join_window = 1000000000ull; /* 1 s */
  s.nvme_ports[0] = 4420;
  s.report_interval = 0;
  s.max_aggregates = 128;
  s.max_ports = 256;
  s.max_alarm_keys = 1024;
  s.max_open_msgs = 0;  /* 2 x max_flows */
  s.max_flow_msgs = 64; /* a round trip of 4 KiB messages at 100 Gb/s */
  s.msg_settle_psns = 128;
  s.msg_settle_ns = 10000000u; /* 10 ms */
  memcpy(settings, &s, len);
}

/* ------------------------------------------------------------ the sink */

/* Calls the application; a non-zero return is fatal. */
#define CALL(ctx, fn, arg)                                                    \
  ((ctx)->cb.fn((ctx), (arg), (ctx)->user_data) != 0                          \
       ? RTEL_ERR_CALLBACK_FAILURE                                            \
       : 0)

/* Delivers the alarms that the record |rec| (of kind |kind|) caused. */
static int deliver_alarms(rtel_ctx *ctx, unsigned kind, const void *rec) {
  rtel__fired *f = &ctx->fired;
  uint32_t i;
  ctx->stats.alarms_dropped += f->dropped; /* once per record */
  for (i = 0; i < f->n; i++) {
    rtel_alarm *al = &f->al[i];
    int rv;
    if (al->state == RTEL_ALARM_RAISED) {
      ctx->stats.alarms_raised++;
      /* the priority window runs from when the alarm was raised */
      rtel__sched_note_alarm(&ctx->sched, al->port, ctx->clock);
    } else {
      ctx->stats.alarms_cleared++;
    }
    if (ctx->cb.on_alarm == NULL) {
      continue;
    }
    if (kind == RTEL__OUT_FLOW) {
      al->flow = rec;
    } else {
      al->io = rec;
    }
    if ((rv = CALL(ctx, on_alarm, out(ctx, RTEL__OUT_ALARM, al))) != 0) {
      return rv;
    }
  }
  return 0;
}

static int sink_flow(void *hub, rtel_flow_record *r) {
  rtel_ctx *ctx = hub;
  const void *rec;
  int rv;
  rtel__sched_coverage(&ctx->sched, r->port, &r->coverage_start,
                       &r->coverage_end);
  rec = out(ctx, RTEL__OUT_FLOW, r);
  if (ctx->cb.on_flow && (rv = CALL(ctx, on_flow, rec)) != 0) {
    return rv;
  }
  if (!rtel__alarm_active(&ctx->alarms)) {
    return 0;
  }
  rtel__alarm_flow(&ctx->alarms, r, &ctx->fired);
  return deliver_alarms(ctx, RTEL__OUT_FLOW, rec);
}

/* A message ended; |r| is NULL when nobody wants it (sink.want). */
static int sink_msg(void *hub, rtel_msg_record *r) {
  rtel_ctx *ctx = hub;
  ctx->stats.messages++;
  if (r == NULL || ctx->cb.on_message == NULL) {
    return 0;
  }
  rtel__sched_coverage(&ctx->sched, r->port, &r->coverage_start,
                       &r->coverage_end);
  return CALL(ctx, on_message, out(ctx, RTEL__OUT_MSG, r));
}

static int deliver_segment(rtel_ctx *ctx, const rtel_segment_record *r) {
  ctx->stats.segments++;
  if (ctx->cb.on_segment == NULL) {
    return 0;
  }
  return CALL(ctx, on_segment, out(ctx, RTEL__OUT_SEGMENT, r));
}

static int sink_io(void *hub, rtel_io_record *r) {
  rtel_ctx *ctx = hub;
  rtel_segment_record seg;
  const void *rec;
  int rv;
  switch (r->state) {
  case RTEL_IO_COMPLETE:
    ctx->stats.ios_complete++;
    break;
  case RTEL_IO_TIMEOUT:
    ctx->stats.ios_timeout++;
    break;
  case RTEL_IO_ORPHAN:
    ctx->stats.ios_orphan++;
    break;
  case RTEL_IO_TRUNCATED:
    ctx->stats.ios_truncated++;
    break;
  default:
    ctx->stats.ios_evicted++;
    break;
  }
  rtel__sched_coverage(&ctx->sched, r->port, &r->coverage_start,
                       &r->coverage_end);
  rtel__agg_io(&ctx->agg, r);
  rec = out(ctx, RTEL__OUT_IO, r);
  if (ctx->cb.on_io && (rv = CALL(ctx, on_io, rec)) != 0) {
    return rv;
  }
  if (rtel__alarm_active(&ctx->alarms)) {
    rtel__alarm_io(&ctx->alarms, r, &ctx->fired);
    if ((rv = deliver_alarms(ctx, RTEL__OUT_IO, rec)) != 0) {
      return rv;
    }
  }
  if (r->state == RTEL_IO_COMPLETE && rtel__join_offer(&ctx->join, r, &seg)) {
    return deliver_segment(ctx, &seg);
  }
  return 0;
}

static int sink_aggregate(void *hub, const rtel_io_aggregate *r) {
  rtel_ctx *ctx = hub;
  if (ctx->cb.on_io_aggregate == NULL) {
    return 0;
  }
  return CALL(ctx, on_io_aggregate, out(ctx, RTEL__OUT_AGGREGATE, r));
}

/* A slot boundary: on_slot, then the records it cuts, truncated. */
static int slot_boundary(rtel_ctx *ctx, const rtel__slot *sl) {
  int rv;
  ctx->stats.slots++;
  if (ctx->cb.on_slot &&
      (rv = CALL(ctx, on_slot, out(ctx, RTEL__OUT_SLOT, &sl->ev))) != 0) {
    return rv;
  }
  if (!sl->truncate) {
    return 0;
  }
  if ((rv = rtel__flow_truncate(&ctx->ft, &ctx->sched)) != 0) {
    return rv;
  }
  return rtel__nvme_truncate(&ctx->nvme, &ctx->sched);
}

/* ------------------------------------------------------------ lifecycle */

static void free_modules(rtel_ctx *ctx) {
  unsigned k;
  rtel__alarm_free(&ctx->alarms);
  rtel__sched_free(&ctx->sched);
  rtel__agg_free(&ctx->agg);
  rtel__join_free(&ctx->join);
  rtel__nvme_free(&ctx->nvme);
  rtel__flow_free(&ctx->ft);
  rtel__pair_free(&ctx->pairs);
  for (k = 0; k < RTEL__OUT_N; k++) {
    if (ctx->out_copy[k]) {
      ctx->mem.free(ctx->out_copy[k], ctx->mem.user_data);
    }
  }
}

/* Sets up the modules, the sink and the delivery buffers of a context
 * whose settings, callbacks and allocator are in place. */
static int init_modules(rtel_ctx *ctx, const size_t lens[RTEL__OUT_N]) {
  const rtel_settings *s = &ctx->settings;
  size_t latest[RTEL__OUT_N];
  unsigned k;
  int rv;

  ctx->env.mem = &ctx->mem;
  ctx->env.stats = &ctx->stats;
  ctx->env.sink = &ctx->sink;
  ctx->sink.hub = ctx;
  ctx->sink.want = (ctx->cb.on_message ? RTEL__WANT_MSG : 0u) |
                   (ctx->cb.on_io_aggregate ? RTEL__WANT_AGG : 0u);
  ctx->sink.flow = sink_flow;
  ctx->sink.msg = sink_msg;
  ctx->sink.io = sink_io;
  ctx->sink.aggregate = sink_aggregate;
  (void)out_lens(RTEL_CALLBACKS_VERSION, latest);
  for (k = 0; k < RTEL__OUT_N; k++) {
    ctx->out_len[k] = lens[k];
    if (lens[k] < latest[k]) {
      ctx->out_copy[k] = ctx->mem.malloc(lens[k], ctx->mem.user_data);
      if (ctx->out_copy[k] == NULL) {
        return RTEL_ERR_NOMEM;
      }
    }
  }
  if ((rv = rtel__pair_init(&ctx->pairs, s, &ctx->env)) != 0 ||
      (rv = rtel__flow_init(&ctx->ft, s, &ctx->pairs, &ctx->env)) != 0 ||
      (rv = rtel__nvme_init(&ctx->nvme, s, &ctx->pairs, &ctx->env)) != 0 ||
      (rv = rtel__join_init(&ctx->join, s, &ctx->env)) != 0 ||
      (rv = rtel__agg_init(&ctx->agg, s, &ctx->env)) != 0 ||
      (rv = rtel__sched_init(&ctx->sched, s->max_ports, &ctx->env)) != 0 ||
      (rv = rtel__alarm_init(&ctx->alarms, s->max_alarm_keys, s->hash_seed,
                             &ctx->env)) != 0) {
    return rv;
  }
  return 0;
}

RTEL__STATIC_ASSERT(RTEL__HINT_PAIR != RTEL__HINT_DATA &&
                        RTEL__HINT_PAIR != RTEL__HINT_CTRL,
                    "the hints are told apart");

/* Whether read_burst() pays, and for which table: a flow table too large
 * for a core's cache (below that, measured with bench_flow and bench_nvme,
 * the bookkeeping cost more than the prefetches saved), or, without a
 * flow table and with NVMe-oF, whose queues need the QP pairs, a pairing
 * table as large (every data packet and ACK then looks its QP up there;
 * the same 2 MiB, tests/bench/README.md). */
static int ahead_pays(const rtel_ctx *ctx) {
  if (!(ctx->ft.flags & RTEL_FLOW_DISABLE)) {
    return rtel__flow_big(&ctx->ft) ? RTEL__AHEAD_FLOWS : 0;
  }
  return !(ctx->nvme.flags & RTEL_NVME_DISABLE) && rtel__pair_big(&ctx->pairs)
             ? RTEL__AHEAD_PAIRS
             : 0;
}

/* Whether read_one() and read_burst() try the fused fast path
 * (read_fast_decode(), read_fast()): with a flow table and nothing else
 * that reads the decoded header of a data packet (no on_packet, no NVMe-oF
 * correlator), on Ethernet without ICRC checks (what rtel__decode_data()
 * takes). */
static int fast_pays(const rtel_ctx *ctx) {
  return ctx->cb.on_packet == NULL && !(ctx->ft.flags & RTEL_FLOW_DISABLE) &&
         (ctx->nvme.flags & RTEL_NVME_DISABLE) &&
         ctx->dcfg.linktype == RTEL_LINK_ETHERNET &&
         !(ctx->dcfg.flags & RTEL_DECODE_VERIFY_ICRC);
}

int rtel_ctx_new_versioned(rtel_ctx **pctx, int settings_version,
                           const rtel_settings *settings,
                           int callbacks_version,
                           const rtel_callbacks *callbacks,
                           const rtel_mem *mem, void *user_data) {
  rtel_ctx *ctx;
  rtel_settings s;
  rtel_callbacks cb;
  size_t slen = rtel__settings_len(settings_version);
  size_t cblen = rtel__callbacks_len(callbacks_version);
  size_t lens[RTEL__OUT_N];
  rtel__decode_cfg dcfg;
  int rv;

  if (pctx == NULL) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  if ((settings && slen == 0) || (callbacks && cblen == 0)) {
    return RTEL_ERR_UNSUPPORTED_VERSION;
  }
  /* without callbacks nothing is delivered: any known version will do */
  if (out_lens(callbacks ? callbacks_version : RTEL_CALLBACKS_VERSION, lens) !=
      0) {
    return RTEL_ERR_UNSUPPORTED_VERSION;
  }
  /* defaults, then the caller's prefix (ngtcp2's convert-to-latest) */
  rtel_settings_default(&s);
  if (settings) {
    memcpy(&s, settings, slen);
  }
  memset(&cb, 0, sizeof(cb));
  if (callbacks) {
    memcpy(&cb, callbacks, cblen);
  }
  rv = rtel__decode_cfg_init(&dcfg, s.decode_flags, s.linktype,
                             s.roce_udp_port, s.vxlan_udp_port);
  if (rv != 0) {
    return rv;
  }
  rtel__decode_cfg_keep(&dcfg); /* the CRC path: decided once, kept here */
  if (mem == NULL && (mem = rtel__mem_default()) == NULL) {
    return RTEL_ERR_INVALID_ARGUMENT; /* a build without a default */
  }
  if (!mem->malloc || !mem->free || !mem->calloc || !mem->realloc) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  if (s.max_flows > RTEL__MAX_TABLE || s.max_qp_pairs > RTEL__MAX_TABLE ||
      s.max_nvme_queues > RTEL__MAX_TABLE || s.max_ios > RTEL__MAX_TABLE ||
      s.max_io_joins > RTEL__MAX_TABLE || s.max_aggregates > (1u << 16) ||
      s.max_ports > (1u << 20) || s.max_alarm_keys > RTEL__MAX_TABLE ||
      s.max_open_msgs > RTEL__MAX_TABLE || s.max_flow_msgs > 0xffffu ||
      s.msg_settle_psns >= (1u << 23) ||
      (s.flow_flags & ~(uint32_t)(RTEL_FLOW_DISABLE | RTEL_FLOW_NO_EVICT)) ||
      (s.nvme_flags & ~(uint32_t)(RTEL_NVME_DISABLE | RTEL_NVME_NO_GUESS))) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  ctx = mem->calloc(1, sizeof(*ctx), mem->user_data);
  if (ctx == NULL) {
    return RTEL_ERR_NOMEM;
  }
  ctx->mem = *mem;
  ctx->settings = s;
  ctx->cb = cb;
  ctx->user_data = user_data;
  ctx->dcfg = dcfg;
  ctx->last_ts = 0; /* no packet is before the first */
  ctx->stats_next = RTEL_TSTAMP_NONE;
  if ((rv = init_modules(ctx, lens)) != 0) {
    free_modules(ctx);
    ctx->mem.free(ctx, ctx->mem.user_data);
    return rv;
  }
  ctx->ahead = ahead_pays(ctx); /* (the tables are made now) */
  ctx->fast = fast_pays(ctx);
  *pctx = ctx;
  return 0;
}

void rtel_ctx_del(rtel_ctx *ctx) {
  if (ctx == NULL) {
    return;
  }
  free_modules(ctx);
  ctx->mem.free(ctx, ctx->mem.user_data);
}

/* ------------------------------------------------------------ packets */

/* The counters of a RoCE packet that is not the plain common case: RoCEv1,
 * encapsulated, CNP, CM, unusual headers, or a checked ICRC. */
static rtel__noinline void count_rare(rtel_ctx_stats *st,
                                      const rtel_pkt_hd *hd) {
  if (hd->roce == 1) {
    st->pkts_rocev1++;
  }
  if (hd->encap &
      (RTEL_ENCAP_ERSPAN1 | RTEL_ENCAP_ERSPAN2 | RTEL_ENCAP_ERSPAN3)) {
    st->pkts_erspan++;
  }
  if (hd->encap & RTEL_ENCAP_VXLAN) {
    st->pkts_vxlan++;
  }
  st->pkts_cnp += (hd->flags & RTEL_HD_F_CNP) != 0;
  st->pkts_cm += (hd->flags & RTEL_HD_F_CM) != 0;
  st->pkts_hdr_truncated += (hd->flags & RTEL_HD_F_HDR_TRUNC) != 0;
  st->pkts_unknown_opcode += (hd->flags & RTEL_HD_F_UNKNOWN_OPCODE) != 0;
  st->pkts_unknown_tver += (hd->flags & RTEL_HD_F_UNKNOWN_TVER) != 0;
  switch (hd->icrc_status) {
  case RTEL_ICRC_OK:
    st->icrc_ok++;
    break;
  case RTEL_ICRC_BAD:
    st->icrc_bad++;
    break;
  case RTEL_ICRC_TRUNCATED:
    st->icrc_truncated++;
    break;
  default:
    break;
  }
}

/* Counts one decode result. */
static rtel__inline void count(rtel_ctx *ctx, int rv, const rtel_pkt_hd *hd) {
  rtel_ctx_stats *st = &ctx->stats;

  if (hd->flags & RTEL_HD_F_TRUNCATED) {
    st->pkts_truncated++;
  }
  if (rtel__likely(rv == 0)) {
    st->pkts_roce++;
    /* one test for everything count_rare() counts */
    if (rtel__unlikely(((hd->flags &
                         (RTEL_HD_F_CNP | RTEL_HD_F_CM | RTEL_HD_F_HDR_TRUNC |
                          RTEL_HD_F_UNKNOWN_OPCODE | RTEL_HD_F_UNKNOWN_TVER)) |
                        hd->encap | hd->icrc_status |
                        (uint32_t)(hd->roce == 1)) != 0)) {
      count_rare(st, hd);
    }
  } else if (rv == RTEL_ERR_NOT_ROCE) {
    st->pkts_not_roce++;
    if (hd->flags & RTEL_HD_F_IP_FRAGMENT) {
      st->pkts_ip_fragments++;
    }
  } else {
    st->pkts_malformed++;
    st->malformed[hd->malformed < RTEL_MALFORMED_SLOTS ? hd->malformed : 0]++;
  }
}

/* A packet's first part, before it is decoded: the counters and clocks
 * every packet moves, and the schedule. Returns 1 if the packet goes on
 * (to be decoded), 0 if the schedule leaves it out (counted). */
static rtel__inline int read_begin(rtel_ctx *ctx, const rtel_pkt_info *pi,
                                   size_t pktlen, size_t wire) {
  ctx->stats.pkts++;
  ctx->stats.bytes += wire < pktlen ? pktlen : wire;
  if (rtel__unlikely(pi->ts < ctx->last_ts)) { /* (0 before the first) */
    ctx->stats.pkts_ts_backwards++;
  }
  ctx->last_ts = pi->ts;
  if (pi->ts > ctx->clock) {
    ctx->clock = pi->ts;
  }
  if (rtel__unlikely(ctx->stats_next == RTEL_TSTAMP_NONE &&
                     ctx->settings.stats_interval != 0)) {
    rtel_tstamp iv = ctx->settings.stats_interval,
                t0 = rtel__period_start(pi->ts, ctx->settings.period_origin,
                                        iv);
    ctx->stats_next = t0 > RTEL_TSTAMP_NONE - iv ? RTEL_TSTAMP_NONE : t0 + iv;
  }
  rtel__agg_clock(&ctx->agg, pi->ts);
  rtel__sched_clock(&ctx->sched, pi->ts);
  if (rtel__unlikely(!rtel__sched_admit(&ctx->sched, pi->port))) {
    ctx->stats.pkts_unscheduled++;
    return 0;
  }
  return 1;
}

/* Decodes a packet into |hd|. */
static rtel__inline int read_decode(const rtel_ctx *ctx, rtel_pkt_hd *hd,
                                    const rtel_pkt_info *pi,
                                    const uint8_t *pkt, size_t pktlen,
                                    size_t wire) {
  if (rtel__likely(pi->linktype == 0 || pi->linktype == ctx->dcfg.linktype)) {
    /* on_packet sees the whole rtel_pkt_hd; the modules read only part */
    return ctx->cb.on_packet
               ? rtel__decode(hd, &ctx->dcfg, pkt, pktlen, wire)
               : rtel__decode_lite(hd, &ctx->dcfg, pkt, pktlen, wire);
  } else {
    rtel__decode_cfg cfg = ctx->dcfg;
    cfg.linktype = pi->linktype;
    return rtel__decode(hd, &cfg, pkt, pktlen, wire);
  }
}

/* The hash of a packet's key (observation point, source, destination,
 * destination QPN): every table the modules look a packet up in by that
 * key (flows, QP pairs, NVMe-oF queues and their reverse index) uses
 * rtel__qkey_hash_parts() with the context's seed, so it is computed once
 * here and handed to them. */
static rtel__inline uint32_t pkt_hash(const rtel_ctx *ctx, uint32_t obs,
                                      const rtel_pkt_hd *hd) {
  return rtel__qkey_hash_parts(ctx->settings.hash_seed, obs, hd->src, hd->dst,
                               hd->dqpn);
}

/* A decoded and counted RoCE packet through the modules; |hint| is
 * pkt_hash() of it, or NULL (then computed here if needed). */
static rtel__inline int read_mods(rtel_ctx *ctx, const rtel_pkt_info *pi,
                                  const rtel_pkt_hd *hd, const uint8_t *pkt,
                                  size_t pktlen, const uint32_t *hint) {
  uint32_t pk;
  const uint32_t *h = hint;
  int rv = 0;
  if (ctx->cb.on_packet &&
      ctx->cb.on_packet(ctx, pi, out(ctx, RTEL__OUT_HD, hd), pkt, pktlen,
                        ctx->user_data) != 0) {
    ctx->failed = 1;
    return RTEL_ERR_CALLBACK_FAILURE;
  }
  if (rtel__unlikely(hd->flags & RTEL_HD_F_CM)) {
    rtel__cm_conn conn;
    if (rtel__cm_track(&ctx->cm, pi->obs, hd, pkt, &conn)) {
      conn.port = pi->port;
      if (ctx->ft.flags & RTEL_FLOW_DISABLE) {
        rtel__pair_cm_conn(&ctx->pairs, &conn, NULL, NULL);
      } else {
        rtel__flow_cm_conn(&ctx->ft, &conn);
      }
      if ((rv = rtel__nvme_cm_conn(&ctx->nvme, &conn)) != 0) {
        ctx->failed = 1;
        return rv;
      }
    }
    return 0;
  }
  /* (the disabled checks here save the modules' call setup) */
  if (h == NULL && !(ctx->nvme.flags & RTEL_NVME_DISABLE)) {
    /* NVMe-oF needs the hash: one for both modules (the flow table alone
     * hashes only the keys it looks up) */
    pk = pkt_hash(ctx, pi->obs, hd);
    h = &pk;
  }
  if (!(ctx->ft.flags & RTEL_FLOW_DISABLE)) {
    rv = rtel__flow_packet(&ctx->ft, pi, hd, h);
  } else if (!(ctx->nvme.flags & RTEL_NVME_DISABLE)) {
    /* no flow table to learn the QP pairs NVMe-oF queues need (|h| is
     * set: NVMe-oF is on) */
    rtel__pair_packet(&ctx->pairs, pi->obs, hd, *h);
  }
  if (rv != 0) {
    ctx->failed = 1;
    return rv;
  }
  if (ctx->nvme.flags & RTEL_NVME_DISABLE) {
    return 0;
  }
  /* the join's clock of this point first: its waits end before the
   * packet completes another I/O */
  rtel__join_clock(&ctx->join, pi->obs, pi->ts);
  if ((rv = rtel__nvme_packet(&ctx->nvme, pi, hd, pkt, *h)) != 0) {
    ctx->failed = 1;
    return rv;
  }
  return 0;
}

/* The fused fast path of a context with fast_pays(), part 1: whether
 * rtel__decode_data() takes the packet (a plain SEND or WRITE packet that
 * may continue its flow's message), decoded into |d| only as far as the
 * flow table reads it. */
static rtel__inline int read_fast_decode(const rtel_ctx *ctx,
                                         const rtel_pkt_info *pi,
                                         const uint8_t *pkt, size_t pktlen,
                                         size_t wire, rtel__dpkt *d) {
  return (pi->linktype == 0 || pi->linktype == ctx->dcfg.linktype) &&
         rtel__decode_data(d, &ctx->dcfg, pkt, pktlen, wire);
}

/* pkt_hash() of a packet that rtel__decode_data() took. */
static rtel__inline uint32_t data_hash(const rtel_ctx *ctx, uint32_t obs,
                                       const rtel__dpkt *d) {
  return rtel__qkey_hash_parts(ctx->settings.hash_seed, obs, d->src, d->dst,
                               d->dqpn);
}

/* Part 2: the packet that read_fast_decode() took into |d| (|pk| its
 * data_hash()), counted as count() counts it (RoCE, none of count_rare()'s:
 * rtel__decode_data()); then, if it continues its flow's message in order,
 * the flow table's whole work (rtel__flow_fast()), else decoded whole into
 * |hd| and through the modules as any packet (read_mods()). The same
 * counters and records as read_decode() and read_end() give it. Returns as
 * read_mods(). */
static rtel__inline int read_fast(rtel_ctx *ctx, const rtel_pkt_info *pi,
                                  const rtel__dpkt *d, uint32_t pk,
                                  rtel_pkt_hd *hd, const uint8_t *pkt,
                                  size_t pktlen, size_t wire) {
  int rv = 0;
  ctx->stats.pkts_truncated += d->truncated;
  ctx->stats.pkts_roce++;
  if (rtel__flow_fast(&ctx->ft, pi, d, pk, &rv)) {
    if (rv != 0) {
      ctx->failed = 1;
    }
    return rv;
  }
  (void)read_decode(ctx, hd, pi, pkt, pktlen, wire); /* RoCE, as above */
  return read_mods(ctx, pi, hd, pkt, pktlen, &pk);
}

/* A decoded packet (|rv| from read_decode()): counted, then through the
 * modules if it is RoCE; |hint| as read_mods(). */
static rtel__inline int read_end(rtel_ctx *ctx, const rtel_pkt_info *pi,
                                 const rtel_pkt_hd *hd, int rv,
                                 const uint8_t *pkt, size_t pktlen,
                                 const uint32_t *hint) {
  count(ctx, rv, hd);
  if (rv != 0) {
    return 0; /* not RoCE, or malformed: counted */
  }
  return read_mods(ctx, pi, hd, pkt, pktlen, hint);
}

static rtel__inline int read_one(rtel_ctx *ctx, const rtel_pkt_info *pi,
                                 const uint8_t *pkt, size_t pktlen) {
  size_t wire = pi->wire_len ? pi->wire_len : pktlen;
  int rv;

  if (rtel__unlikely(pkt == NULL && pktlen != 0)) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  if (!read_begin(ctx, pi, pktlen, wire)) {
    return 0;
  }
  if (ctx->fast) {
    rtel__dpkt d;
    if (read_fast_decode(ctx, pi, pkt, pktlen, wire, &d)) {
      return read_fast(ctx, pi, &d, data_hash(ctx, pi->obs, &d), &ctx->hd, pkt,
                       pktlen, wire);
    }
  }
  rv = read_decode(ctx, &ctx->hd, pi, pkt, pktlen, wire);
  return read_end(ctx, pi, &ctx->hd, rv, pkt, pktlen, NULL);
}

static int run_timers(rtel_ctx *ctx, rtel_tstamp now);

/* rtel_ctx_read_pkts_timed(): the timers due at a packet's time, run before
 * it as a caller's rtel_ctx_get_expiry() / rtel_ctx_handle_expiry() would. */
static rtel__inline int read_timers(rtel_ctx *ctx, rtel_tstamp ts) {
  if (rtel__unlikely(rtel_ctx_get_expiry(ctx) <= ts)) {
    return run_timers(ctx, ts);
  }
  return 0;
}

/* The look-ahead's prefetch |step| (rtel__flow_prefetch(),
 * rtel__pair_ahead()) for the packet of slot |m| at observation point
 * |obs|, from what its decoding ahead filled. */
static rtel__inline void ahead_prefetch(rtel_ctx *ctx, const rtel__ahead *m,
                                        uint32_t obs, int step) {
  if (m->has == 0) {
    return;
  }
  if (rtel__likely(m->has != RTEL__HINT_PAIR)) {
    if (m->fast) {
      rtel__flow_prefetch(&ctx->ft, m->hint, m->has, step, m->d.src, m->d.dst,
                          m->d.psn, obs);
    } else {
      rtel__flow_prefetch(&ctx->ft, m->hint, m->has, step, m->hd.src,
                          m->hd.dst, m->hd.psn, obs);
    }
  } else {
    rtel__pair_ahead(&ctx->pairs, &m->hd, obs, m->pk, step);
  }
}

/* A burst of packets, decoded RTEL__AHEAD packets before the modules see
 * them (decoding depends on the packet and the settings only), so that
 * the flow-table entry each will touch is in cache when it gets there:
 * its bucket is prefetched as it is decoded, the entry the bucket names
 * half way, the entry's open message a quarter of the way before; without
 * a flow table, the pairing entry of its QP (bucket, then entry), then
 * if that QP is not paired the PSN index slot it will use. Only for
 * bursts without on_packet (whose decode result is ctx->hd) and with
 * tables too large for a core's cache (ctx->ahead, ahead_pays()). With
 * ctx->fast, a packet that read_fast_decode() takes is decoded ahead only
 * that far (the rest at its turn, if rtel__flow_fast() does not take it).
 * Packets are handled, counted and reported exactly in order, as
 * read_one() would:
 * what runs ahead changes nothing, and what it reads of state an earlier
 * packet can change only chooses what to prefetch (hints). Returns as
 * rtel_ctx_read_pkts(). */
static rtel__inline rtel_ssize read_burst(rtel_ctx *ctx,
                                          const rtel_pkt_info *pis,
                                          const uint8_t *const *pkts,
                                          const size_t *pktlens, size_t n,
                                          int timed) {
  rtel__ahead *a = ctx->ahead_pkts;
  size_t i;

  /* slot j % RTEL__AHEAD holds packet j from its decoding, RTEL__AHEAD
   * iterations before its turn, to its turn */
  for (i = 0; i < n + RTEL__AHEAD; i++) {
    if (i >= RTEL__AHEAD) {
      size_t k = i - RTEL__AHEAD; /* the packet whose turn it is */
      const rtel_pkt_info *pk = &pis[k];
      rtel__ahead *s = &a[k % RTEL__AHEAD];
      size_t wire = pk->wire_len ? pk->wire_len : pktlens[k];
      int rv = 0;
      if (rtel__unlikely(s->rv == RTEL_ERR_INVALID_ARGUMENT)) {
        return k == 0 ? RTEL_ERR_INVALID_ARGUMENT : (rtel_ssize)k;
      }
      if (timed && (rv = read_timers(ctx, pk->ts)) != 0) {
        return k == 0 ? rv : (rtel_ssize)k;
      }
      if (read_begin(ctx, pk, pktlens[k], wire)) {
        /* (s->pk is read only when s->rv is 0) */
        rv = s->fast ? read_fast(ctx, pk, &s->d, s->pk, &s->hd, pkts[k],
                                 pktlens[k], wire)
                     : read_end(ctx, pk, &s->hd, s->rv, pkts[k], pktlens[k],
                                &s->pk);
      }
      if (rv != 0) {
        return k == 0 ? rv : (rtel_ssize)k;
      }
    }
    if (i < n) { /* into the slot just freed */
      const rtel_pkt_info *pi = &pis[i];
      rtel__ahead *s = &a[i % RTEL__AHEAD];
      size_t wire = pi->wire_len ? pi->wire_len : pktlens[i];
      s->has = 0;
      s->fast = 0;
      s->rv = RTEL_ERR_INVALID_ARGUMENT;
      if (rtel__unlikely(pkts[i] == NULL && pktlens[i] != 0)) {
        /* bad input: reported at its turn */
      } else if (ctx->fast &&
                 read_fast_decode(ctx, pi, pkts[i], pktlens[i], wire, &s->d)) {
        s->fast = 1;
        s->rv = 0;
        s->pk = data_hash(ctx, pi->obs, &s->d);
        s->hint = rtel__flow_hint(&ctx->ft, 0, s->d.opcode, s->pk, &s->has);
      } else {
        s->rv = read_decode(ctx, &s->hd, pi, pkts[i], pktlens[i], wire);
        if (rtel__likely(s->rv == 0)) {
          s->pk = pkt_hash(ctx, pi->obs, &s->hd);
          s->hint = rtel__flow_hint(&ctx->ft, s->hd.flags, s->hd.opcode, s->pk,
                                    &s->has);
          if (s->has == 0 && rtel__unlikely(ctx->ahead == RTEL__AHEAD_PAIRS) &&
              rtel__pair_hint(&ctx->pairs, &s->hd, s->pk)) {
            s->has = RTEL__HINT_PAIR;
          }
        }
      }
    }
    /* the entries of the packets due in RTEL__AHEAD / 2 iterations, the
     * open messages of those due in RTEL__AHEAD / 4 */
    if (i >= RTEL__AHEAD / 2 && i - RTEL__AHEAD / 2 < n) {
      size_t j = i - RTEL__AHEAD / 2;
      ahead_prefetch(ctx, &a[j % RTEL__AHEAD], pis[j].obs, 0);
    }
    if (i >= 3 * RTEL__AHEAD / 4 && i - 3 * RTEL__AHEAD / 4 < n) {
      size_t j = i - 3 * RTEL__AHEAD / 4;
      ahead_prefetch(ctx, &a[j % RTEL__AHEAD], pis[j].obs, 1);
    }
  }
  return (rtel_ssize)n;
}

int rtel_ctx_read_pkt_versioned(rtel_ctx *ctx, int pkt_info_version,
                                const rtel_pkt_info *pi, const uint8_t *pkt,
                                size_t pktlen) {
  size_t len = rtel__pkt_info_len(pkt_info_version);
  if (ctx == NULL || pi == NULL) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  if (len == 0) {
    return RTEL_ERR_UNSUPPORTED_VERSION;
  }
  if (ctx->failed) {
    return RTEL_ERR_INVALID_STATE;
  }
  if (pkt_info_version != RTEL_PKT_INFO_VERSION) {
    rtel_pkt_info full;
    memset(&full, 0, sizeof(full));
    memcpy(&full, pi, len);
    return read_one(ctx, &full, pkt, pktlen);
  }
  return read_one(ctx, pi, pkt, pktlen);
}

/* rtel_ctx_read_pkts() and, with |timed|, rtel_ctx_read_pkts_timed(). */
static rtel__inline rtel_ssize read_pkts(rtel_ctx *ctx, int pkt_info_version,
                                         const rtel_pkt_info *pis,
                                         const uint8_t *const *pkts,
                                         const size_t *pktlens, size_t n,
                                         int timed) {
  size_t len = rtel__pkt_info_len(pkt_info_version);
  /* the caller's array has the stride of its struct version */
  size_t stride =
      pkt_info_version == RTEL_PKT_INFO_VERSION ? sizeof(rtel_pkt_info) : len;
  const uint8_t *base = (const uint8_t *)pis;
  size_t i;

  if (ctx == NULL ||
      (n != 0 && (pis == NULL || pkts == NULL || pktlens == NULL))) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  if (len == 0) {
    return RTEL_ERR_UNSUPPORTED_VERSION;
  }
  if (ctx->failed) {
    return RTEL_ERR_INVALID_STATE;
  }
  if (pkt_info_version == RTEL_PKT_INFO_VERSION && ctx->cb.on_packet == NULL &&
      ctx->ahead && n > 1) {
    return read_burst(ctx, pis, pkts, pktlens, n, timed);
  }
  for (i = 0; i < n; i++) {
    const rtel_pkt_info *pi =
        (const rtel_pkt_info *)(const void *)(base + i * stride);
    rtel_pkt_info full;
    int rv;
    if (pkt_info_version != RTEL_PKT_INFO_VERSION) {
      memset(&full, 0, sizeof(full));
      memcpy(&full, pi, len);
      pi = &full;
    }
    if (timed && (pkts[i] != NULL || pktlens[i] == 0) &&
        (rv = read_timers(ctx, pi->ts)) != 0) {
      return i == 0 ? rv : (rtel_ssize)i;
    }
    rv = read_one(ctx, pi, pkts[i], pktlens[i]);
    if (rv != 0) {
      return i == 0 ? rv : (rtel_ssize)i;
    }
  }
  return (rtel_ssize)n;
}

rtel_ssize rtel_ctx_read_pkts_versioned(rtel_ctx *ctx, int pkt_info_version,
                                        const rtel_pkt_info *pis,
                                        const uint8_t *const *pkts,
                                        const size_t *pktlens, size_t n) {
  return read_pkts(ctx, pkt_info_version, pis, pkts, pktlens, n, 0);
}

rtel_ssize rtel_ctx_read_pkts_timed_versioned(
    rtel_ctx *ctx, int pkt_info_version, const rtel_pkt_info *pis,
    const uint8_t *const *pkts, const size_t *pktlens, size_t n) {
  return read_pkts(ctx, pkt_info_version, pis, pkts, pktlens, n, 1);
}

/* ------------------------------------------------------------ timers */

rtel_tstamp rtel_ctx_get_expiry(const rtel_ctx *ctx) {
  rtel_tstamp t, f;
  if (ctx == NULL || ctx->failed) {
    return RTEL_TSTAMP_NONE;
  }
  t = ctx->stats_next;
  f = rtel__flow_expiry(&ctx->ft);
  t = f < t ? f : t;
  f = rtel__nvme_expiry(&ctx->nvme);
  t = f < t ? f : t;
  f = rtel__agg_expiry(&ctx->agg);
  t = f < t ? f : t;
  f = rtel__sched_expiry(&ctx->sched);
  return f < t ? f : t;
}

/* The end of a statistics period: one report at the latest boundary. */
static int stats_expire(rtel_ctx *ctx, rtel_tstamp now) {
  rtel_tstamp iv = ctx->settings.stats_interval, end;
  if (ctx->stats_next == RTEL_TSTAMP_NONE || ctx->stats_next > now) {
    return 0;
  }
  /* Counters are cumulative: one report at the latest boundary covers
   * every period that elapsed since the last call. */
  end = ctx->stats_next + (now - ctx->stats_next) / iv * iv;
  ctx->stats_next = end > RTEL_TSTAMP_NONE - iv ? RTEL_TSTAMP_NONE : end + iv;
  if (ctx->cb.on_stats == NULL) {
    return 0;
  }
  return ctx->cb.on_stats(ctx, end, out(ctx, RTEL__OUT_STATS, &ctx->stats),
                          ctx->user_data) != 0
             ? RTEL_ERR_CALLBACK_FAILURE
             : 0;
}

/* Runs every timer due at |now|, in the order the top of this file gives
 * (rtel_ctx_handle_expiry(), and rtel_ctx_flush() before it ends what is
 * left). Returns 0 or a fatal error, the context then failed. */
static int run_timers(rtel_ctx *ctx, rtel_tstamp now) {
  rtel__slot sl;
  int rv = 0;
  if (now > ctx->clock) {
    ctx->clock = now;
  }
  if ((rtel__sched_expire(&ctx->sched, now, &sl) &&
       (rv = slot_boundary(ctx, &sl)) != 0) ||
      (rv = rtel__flow_expire(&ctx->ft, now)) != 0 ||
      (rv = rtel__nvme_expire(&ctx->nvme, now)) != 0 ||
      (rv = rtel__agg_expire(&ctx->agg, now)) != 0 ||
      (rv = stats_expire(ctx, now)) != 0) {
    ctx->failed = 1;
  }
  return rv;
}

int rtel_ctx_handle_expiry(rtel_ctx *ctx, rtel_tstamp now) {
  if (ctx == NULL) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  if (ctx->failed) {
    return RTEL_ERR_INVALID_STATE;
  }
  return run_timers(ctx, now);
}

int rtel_ctx_get_stats_versioned(const rtel_ctx *ctx, int stats_version,
                                 rtel_ctx_stats *stats) {
  size_t len = rtel__ctx_stats_len(stats_version);
  if (ctx == NULL || stats == NULL) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  if (len == 0) {
    return RTEL_ERR_UNSUPPORTED_VERSION;
  }
  memcpy(stats, &ctx->stats, len);
  return 0;
}

int rtel_ctx_flush(rtel_ctx *ctx, rtel_tstamp now) {
  int rv;
  if (ctx == NULL) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  if (ctx->failed) {
    return RTEL_ERR_INVALID_STATE;
  }
  /* every timer due at |now| first, as rtel_ctx_handle_expiry() would:
   * flows already idle at |now| end as idle, a reporting period that
   * ended is reported as such (then the flush ends the current one) */
  if ((rv = run_timers(ctx, now)) != 0) {
    return rv;
  }
  if ((rv = rtel__flow_flush(&ctx->ft, RTEL_END_FLUSH)) == 0 &&
      (rv = rtel__nvme_flush(&ctx->nvme, RTEL_IO_TRUNCATED)) == 0) {
    /* I/Os still waiting for their twin will not meet it */
    rtel__join_flush(&ctx->join);
    rv = rtel__agg_flush(&ctx->agg, now);
  }
  if (rv != 0) {
    ctx->failed = 1;
  }
  return rv;
}

/* ------------------------------------------------------------ ports, alarms
 */

int rtel_ctx_set_obs_role(rtel_ctx *ctx, uint32_t obs, uint32_t role) {
  if (ctx == NULL) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  return rtel__join_set_role(&ctx->join, obs, role);
}

int rtel_ctx_add_port_versioned(rtel_ctx *ctx, int port_version,
                                const rtel_port *port, rtel_tstamp now) {
  size_t len =
      rtel__version_len(port_version, RTEL_PORT_VERSION, rtel_port, name);
  rtel_port p;
  if (ctx == NULL || port == NULL) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  if (len == 0) {
    return RTEL_ERR_UNSUPPORTED_VERSION;
  }
  /* only the caller's version is read; later fields keep their zeros */
  memset(&p, 0, sizeof(p));
  memcpy(&p, port, len);
  return rtel__sched_add_port(&ctx->sched, &p, now);
}

int rtel_ctx_set_schedule_versioned(rtel_ctx *ctx, int schedule_version,
                                    const rtel_schedule *schedule,
                                    rtel_tstamp now) {
  size_t len = rtel__version_len(schedule_version, RTEL_SCHEDULE_VERSION,
                                 rtel_schedule, alarm_priority);
  rtel_schedule sch;
  rtel__slot sl;
  int rv;
  if (ctx == NULL || schedule == NULL) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  if (len == 0) {
    return RTEL_ERR_UNSUPPORTED_VERSION;
  }
  if (ctx->failed) {
    return RTEL_ERR_INVALID_STATE;
  }
  memset(&sch, 0, sizeof(sch));
  memcpy(&sch, schedule, len);
  if (!rtel__sched_valid(&sch)) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  rtel__sched_set(&ctx->sched, &sch, now, &sl);
  if ((rv = slot_boundary(ctx, &sl)) != 0) {
    ctx->failed = 1;
  }
  return rv;
}

int rtel_ctx_port_measured(const rtel_ctx *ctx, uint32_t port_id) {
  return ctx ? rtel__sched_port_measured(&ctx->sched, port_id) : 0;
}

int rtel_ctx_set_threshold(rtel_ctx *ctx, uint32_t metric, uint32_t scope,
                           double value) {
  if (ctx == NULL) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  return rtel__alarm_set_threshold(&ctx->alarms, metric, scope, value);
}

int rtel_ctx_set_baseline(rtel_ctx *ctx, uint32_t metric, uint32_t scope,
                          double k, uint32_t warmup) {
  if (ctx == NULL) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  return rtel__alarm_set_baseline(&ctx->alarms, metric, scope, k, warmup);
}
