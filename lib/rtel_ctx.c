/* SPDX-License-Identifier: MIT */
/*
 * The context and its packet path:
 *   rtel_ctx_read_pkt -> rtel__decode -> counters -> on_packet
 * (the flow table, NVMe-oF correlator and scheduler will follow the
 * decoder here). Timers are pulled: rtel_ctx_get_expiry() /
 * rtel_ctx_handle_expiry().
 */
#include "rtel_ctx.h"

size_t rtel__settings_len(int version) {
  return version == RTEL_SETTINGS_V1
             ? rtel__struct_len(rtel_settings, reserved3)
             : 0;
}

size_t rtel__callbacks_len(int version) {
  return version == RTEL_CALLBACKS_V1
             ? rtel__struct_len(rtel_callbacks, on_alarm)
             : 0;
}

size_t rtel__pkt_info_len(int version) {
  return version == RTEL_PKT_INFO_V1
             ? rtel__struct_len(rtel_pkt_info, linktype)
             : 0;
}

size_t rtel__ctx_stats_len(int version) {
  return version == RTEL_CTX_STATS_V1
             ? rtel__struct_len(rtel_ctx_stats, ios_truncated)
             : 0;
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
  s.max_qp_pairs = 0; /* max_flows */
  s.flow_idle_timeout = 100000000u; /* 100 ms */
  s.flow_active_timeout = 0;
  s.hash_seed = 0;
  s.nvme_flags = 0;
  s.max_nvme_queues = 1024;
  s.max_ios = 16384;
  s.max_io_joins = 0; /* max_ios */
  s.io_timeout = 5000000000ull;      /* 5 s */
  s.io_join_window = 1000000000ull;  /* 1 s */
  s.nvme_ports[0] = 4420;
  s.report_interval = 0;
  s.max_aggregates = 128;
  s.max_ports = 256;
  s.max_alarm_keys = 1024;
  memcpy(settings, &s, len);
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
  rtel__decode_cfg dcfg;
  int rv;

  if (pctx == NULL) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  if ((settings && slen == 0) || (callbacks && cblen == 0)) {
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
  if (mem == NULL) {
    mem = rtel__mem_default();
  }
  if (!mem->malloc || !mem->free || !mem->calloc || !mem->realloc) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  if (s.max_flows > RTEL__MAX_TABLE || s.max_qp_pairs > RTEL__MAX_TABLE ||
      s.max_nvme_queues > RTEL__MAX_TABLE || s.max_ios > RTEL__MAX_TABLE ||
      s.max_io_joins > RTEL__MAX_TABLE || s.max_aggregates > (1u << 16) ||
      s.max_ports > (1u << 20) || s.max_alarm_keys > RTEL__MAX_TABLE ||
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
  ctx->last_ts = RTEL_TSTAMP_NONE;
  ctx->stats_next = RTEL_TSTAMP_NONE;
  if ((rv = rtel__flow_init(ctx)) != 0) {
    mem->free(ctx, mem->user_data);
    return rv;
  }
  if ((rv = rtel__nvme_init(ctx)) != 0 || (rv = rtel__agg_init(ctx)) != 0 ||
      (rv = rtel__sched_init(ctx)) != 0 || (rv = rtel__alarm_init(ctx)) != 0) {
    rtel__alarm_free(ctx);
    rtel__sched_free(ctx);
    rtel__agg_free(ctx);
    rtel__nvme_free(ctx);
    rtel__flow_free(ctx);
    mem->free(ctx, mem->user_data);
    return rv;
  }
  *pctx = ctx;
  return 0;
}

void rtel_ctx_del(rtel_ctx *ctx) {
  if (ctx == NULL) {
    return;
  }
  rtel__alarm_free(ctx);
  rtel__sched_free(ctx);
  rtel__agg_free(ctx);
  rtel__nvme_free(ctx);
  rtel__flow_free(ctx);
  ctx->mem.free(ctx, ctx->mem.user_data);
}

/* Counts one decode result. */
static void count(rtel_ctx *ctx, int rv, const rtel_pkt_hd *hd) {
  rtel_ctx_stats *st = &ctx->stats;

  if (hd->flags & RTEL_HD_F_TRUNCATED) {
    st->pkts_truncated++;
  }
  if (rtel__likely(rv == 0)) {
    st->pkts_roce++;
    if (hd->roce == 1) {
      st->pkts_rocev1++;
    }
    if (rtel__unlikely(hd->encap != 0)) {
      if (hd->encap & (RTEL_ENCAP_ERSPAN1 | RTEL_ENCAP_ERSPAN2 |
                       RTEL_ENCAP_ERSPAN3)) {
        st->pkts_erspan++;
      }
      if (hd->encap & RTEL_ENCAP_VXLAN) {
        st->pkts_vxlan++;
      }
    }
    if (rtel__unlikely(hd->flags & (RTEL_HD_F_CNP | RTEL_HD_F_CM |
                                    RTEL_HD_F_HDR_TRUNC |
                                    RTEL_HD_F_UNKNOWN_OPCODE |
                                    RTEL_HD_F_UNKNOWN_TVER))) {
      st->pkts_cnp += (hd->flags & RTEL_HD_F_CNP) != 0;
      st->pkts_cm += (hd->flags & RTEL_HD_F_CM) != 0;
      st->pkts_hdr_truncated += (hd->flags & RTEL_HD_F_HDR_TRUNC) != 0;
      st->pkts_unknown_opcode += (hd->flags & RTEL_HD_F_UNKNOWN_OPCODE) != 0;
      st->pkts_unknown_tver += (hd->flags & RTEL_HD_F_UNKNOWN_TVER) != 0;
    }
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
  } else if (rv == RTEL_ERR_NOT_ROCE) {
    st->pkts_not_roce++;
    if (hd->flags & RTEL_HD_F_IP_FRAGMENT) {
      st->pkts_ip_fragments++;
    }
  } else {
    st->pkts_malformed++;
    st->malformed[hd->malformed < RTEL_MALFORMED_SLOTS ? hd->malformed
                                                       : 0]++;
  }
}

static int read_one(rtel_ctx *ctx, const rtel_pkt_info *pi,
                    const uint8_t *pkt, size_t pktlen) {
  rtel_pkt_hd *hd = &ctx->hd;
  size_t wire = pi->wire_len ? pi->wire_len : pktlen;
  int rv;

  if (rtel__unlikely(pkt == NULL && pktlen != 0)) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  ctx->stats.pkts++;
  ctx->stats.bytes += wire < pktlen ? pktlen : wire;
  if (rtel__unlikely(ctx->last_ts != RTEL_TSTAMP_NONE &&
                     pi->ts < ctx->last_ts)) {
    ctx->stats.pkts_ts_backwards++;
  }
  ctx->last_ts = pi->ts;
  if (pi->ts > ctx->clock) {
    ctx->clock = pi->ts;
  }
  if (rtel__unlikely(ctx->stats_next == RTEL_TSTAMP_NONE &&
                     ctx->settings.stats_interval != 0)) {
    ctx->stats_next = pi->ts + ctx->settings.stats_interval;
  }
  rtel__agg_clock(ctx, pi->ts);
  if (rtel__unlikely(ctx->sched.epoch == RTEL_TSTAMP_NONE)) {
    ctx->sched.epoch = pi->ts;
  }
  if (rtel__unlikely(!rtel__sched_admit(&ctx->sched, pi->port))) {
    ctx->stats.pkts_unscheduled++;
    return 0;
  }

  if (rtel__likely(pi->linktype == 0 ||
                   pi->linktype == ctx->dcfg.linktype)) {
    rv = rtel__decode(hd, &ctx->dcfg, pkt, pktlen, wire);
  } else {
    rtel__decode_cfg cfg = ctx->dcfg;
    cfg.linktype = pi->linktype;
    rv = rtel__decode(hd, &cfg, pkt, pktlen, wire);
  }
  count(ctx, rv, hd);
  if (rv != 0) {
    return 0; /* not RoCE, or malformed: counted */
  }
  if (ctx->cb.on_packet &&
      ctx->cb.on_packet(ctx, pi, hd, pkt, pktlen, ctx->user_data) != 0) {
    ctx->failed = 1;
    return RTEL_ERR_CALLBACK_FAILURE;
  }
  if (rtel__unlikely(hd->flags & RTEL_HD_F_CM)) {
    rtel__cm_conn conn;
    if (rtel__cm_track(&ctx->cm, pi->obs, hd, pkt, &conn)) {
      conn.port = pi->port;
      rtel__flow_cm_conn(ctx, &conn);
      rtel__nvme_cm_conn(ctx, &conn);
    }
    return 0;
  }
  /* (the disabled checks here save the modules' call setup) */
  if ((!(ctx->ft.flags & RTEL_FLOW_DISABLE) &&
       (rv = rtel__flow_packet(ctx, pi, hd)) != 0) ||
      (!(ctx->nvme.flags & RTEL_NVME_DISABLE) &&
       (rv = rtel__nvme_packet(ctx, pi, hd, pkt)) != 0)) {
    ctx->failed = 1;
    return rv;
  }
  return 0;
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

rtel_ssize rtel_ctx_read_pkts_versioned(rtel_ctx *ctx, int pkt_info_version,
                                        const rtel_pkt_info *pis,
                                        const uint8_t *const *pkts,
                                        const size_t *pktlens, size_t n) {
  size_t len = rtel__pkt_info_len(pkt_info_version);
  /* the caller's array has the stride of its struct version */
  size_t stride = pkt_info_version == RTEL_PKT_INFO_VERSION
                      ? sizeof(rtel_pkt_info)
                      : len;
  const uint8_t *base = (const uint8_t *)pis;
  size_t i;

  if (ctx == NULL || (n != 0 && (pis == NULL || pkts == NULL ||
                                 pktlens == NULL))) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  if (len == 0) {
    return RTEL_ERR_UNSUPPORTED_VERSION;
  }
  if (ctx->failed) {
    return RTEL_ERR_INVALID_STATE;
  }
  for (i = 0; i < n; i++) {
    const rtel_pkt_info *pi = (const rtel_pkt_info *)(const void *)(base +
                                                                    i * stride);
    rtel_pkt_info full;
    int rv;
    if (pkt_info_version != RTEL_PKT_INFO_VERSION) {
      memset(&full, 0, sizeof(full));
      memcpy(&full, pi, len);
      pi = &full;
    }
    rv = read_one(ctx, pi, pkts[i], pktlens[i]);
    if (rv != 0) {
      return i == 0 ? rv : (rtel_ssize)i;
    }
  }
  return (rtel_ssize)n;
}

rtel_tstamp rtel_ctx_get_expiry(const rtel_ctx *ctx) {
  rtel_tstamp t, f;
  if (ctx == NULL || ctx->failed) {
    return RTEL_TSTAMP_NONE;
  }
  t = ctx->stats_next;
  f = rtel__flow_expiry(ctx);
  t = f < t ? f : t;
  f = rtel__nvme_expiry(ctx);
  t = f < t ? f : t;
  f = rtel__agg_expiry(ctx);
  t = f < t ? f : t;
  f = rtel__sched_expiry(ctx);
  return f < t ? f : t;
}

int rtel_ctx_handle_expiry(rtel_ctx *ctx, rtel_tstamp now) {
  int rv;
  if (ctx == NULL) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  if (ctx->failed) {
    return RTEL_ERR_INVALID_STATE;
  }
  if (now > ctx->clock) {
    ctx->clock = now;
  }
  /* slot boundaries first: they truncate what they cut */
  if ((rv = rtel__sched_expire(ctx, now)) != 0 ||
      (rv = rtel__flow_expire(ctx, now)) != 0 ||
      (rv = rtel__nvme_expire(ctx, now)) != 0 ||
      (rv = rtel__agg_expire(ctx, now)) != 0) {
    ctx->failed = 1;
    return rv;
  }
  if (ctx->stats_next != RTEL_TSTAMP_NONE && ctx->stats_next <= now) {
    /* Counters are cumulative: one report at the latest boundary covers
     * every period that elapsed since the last call. */
    rtel_tstamp iv = ctx->settings.stats_interval;
    rtel_tstamp end = ctx->stats_next + (now - ctx->stats_next) / iv * iv;
    ctx->stats_next = end > RTEL_TSTAMP_NONE - iv ? RTEL_TSTAMP_NONE
                                                  : end + iv;
    if (ctx->cb.on_stats &&
        ctx->cb.on_stats(ctx, end, &ctx->stats, ctx->user_data) != 0) {
      ctx->failed = 1;
      return RTEL_ERR_CALLBACK_FAILURE;
    }
  }
  return 0;
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
  /* flows already idle at |now| end as idle; the others as flushed */
  if ((rv = rtel__flow_expire(ctx, now)) != 0 ||
      (rv = rtel__nvme_expire(ctx, now)) != 0 ||
      (rv = rtel__flow_flush(ctx, RTEL_END_FLUSH)) != 0 ||
      (rv = rtel__nvme_flush(ctx, RTEL_IO_TRUNCATED)) != 0 ||
      (rv = rtel__agg_flush(ctx, now)) != 0) {
    ctx->failed = 1;
  }
  return rv;
}

int rtel_ctx_set_obs_role(rtel_ctx *ctx, uint32_t obs, uint32_t role) {
  if (ctx == NULL) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  return rtel__nvme_set_role(ctx, obs, role);
}
