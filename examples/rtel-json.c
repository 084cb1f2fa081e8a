/* SPDX-License-Identifier: MIT */
/*
 * JSON lines of the example programs (rtel-json.h): moved here from
 * rtel-analyze.c so that rtel-analyze and rtel-collect share one printer
 * per record type.
 */
#define _DEFAULT_SOURCE 1

#include "rtel-json.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OBS(n, id) ((id) < (n)->nobs ? (n)->obs[id] : "?")

/* ------------------------------------------------------------ buffer */

void rj_init(rj_buf *b) { memset(b, 0, sizeof(*b)); }

void rj_free(rj_buf *b) {
  free(b->p);
  memset(b, 0, sizeof(*b));
}

void rj_reset(rj_buf *b) { b->len = 0; }

/* room for |n| more bytes and a NUL */
static int grow(rj_buf *b, size_t n) {
  size_t cap;
  char *p;
  if (b->len + n + 1 <= b->cap) {
    return 0;
  }
  cap = b->cap ? b->cap : 1024;
  while (cap < b->len + n + 1) {
    cap *= 2;
  }
  p = realloc(b->p, cap);
  if (p == NULL) {
    b->oom = 1;
    return -1;
  }
  b->p = p;
  b->cap = cap;
  return 0;
}

void rj_puts(rj_buf *b, const char *s) {
  size_t n = strlen(s);
  if (grow(b, n) == 0) {
    memcpy(b->p + b->len, s, n + 1);
    b->len += n;
  }
}

void rj_putc(rj_buf *b, char c) {
  if (grow(b, 1) == 0) {
    b->p[b->len++] = c;
    b->p[b->len] = '\0';
  }
}

void rj_printf(rj_buf *b, const char *fmt, ...) {
  va_list ap;
  int n;
  char small[256];
  va_start(ap, fmt);
  n = vsnprintf(small, sizeof(small), fmt, ap);
  va_end(ap);
  if (n < 0) {
    return;
  }
  if ((size_t)n < sizeof(small)) {
    if (grow(b, (size_t)n) == 0) {
      memcpy(b->p + b->len, small, (size_t)n + 1);
      b->len += (size_t)n;
    }
    return;
  }
  if (grow(b, (size_t)n) == 0) {
    va_start(ap, fmt);
    (void)vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
  }
}

/* ------------------------------------------------------------ values */

static void print_addr(rj_buf *b, const rtel_pkt_hd *hd, const uint8_t *a) {
  char buf[INET6_ADDRSTRLEN];
  static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if ((hd->flags & RTEL_HD_F_IPV4) && memcmp(a, mapped, 12) == 0) {
    inet_ntop(AF_INET, a + 12, buf, sizeof(buf));
  } else {
    inet_ntop(AF_INET6, a, buf, sizeof(buf));
  }
  rj_puts(b, buf);
}

static void json_str(rj_buf *b, const char *s) {
  rj_putc(b, '"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      rj_putc(b, '\\');
      rj_putc(b, (char)c);
    } else if (c < 0x20) {
      rj_printf(b, "\\u%04x", c);
    } else {
      rj_putc(b, (char)c);
    }
  }
  rj_putc(b, '"');
}

static void json_ts(rj_buf *b, const char *name, rtel_tstamp t) {
  if (t == RTEL_TSTAMP_NONE) {
    rj_printf(b, ",\"%s\":null", name);
  } else {
    rj_printf(b, ",\"%s\":%" PRIu64, name, t);
  }
}

static void json_dur(rj_buf *b, const char *name, int64_t d) {
  if (d == RTEL_DURATION_NONE) {
    rj_printf(b, ",\"%s\":null", name);
  } else {
    rj_printf(b, ",\"%s\":%" PRId64, name, d);
  }
}

static void json_qpn(rj_buf *b, const char *name, uint32_t q) {
  if (q == RTEL_QPN_NONE) {
    rj_printf(b, ",\"%s\":null", name);
  } else {
    rj_printf(b, ",\"%s\":%" PRIu32, name, q);
  }
}

const char *rj_icrc_str(uint32_t st) {
  switch (st) {
  case RTEL_ICRC_OK:
    return "ok";
  case RTEL_ICRC_BAD:
    return "bad";
  case RTEL_ICRC_TRUNCATED:
    return "truncated";
  default:
    return "unchecked";
  }
}

const char *rj_cm_attr_name(uint32_t attr) {
  switch (attr) {
  case RTEL_CM_REQ:
    return "ConnectRequest";
  case RTEL_CM_MRA:
    return "MRA";
  case RTEL_CM_REJ:
    return "ConnectReject";
  case RTEL_CM_REP:
    return "ConnectReply";
  case RTEL_CM_RTU:
    return "ReadyToUse";
  case RTEL_CM_DREQ:
    return "DisconnectRequest";
  case RTEL_CM_DREP:
    return "DisconnectReply";
  case RTEL_CM_SIDR_REQ:
    return "SIDR_REQ";
  case RTEL_CM_SIDR_REP:
    return "SIDR_REP";
  case RTEL_CM_LAP:
    return "LAP";
  case RTEL_CM_APR:
    return "APR";
  default:
    return NULL;
  }
}

void rj_format_addr(char *out, uint32_t flags, const uint8_t *a) {
  if (!(flags & RTEL_FLOW_F_IPV6)) {
    inet_ntop(AF_INET, a + 12, out, INET6_ADDRSTRLEN);
  } else {
    inet_ntop(AF_INET6, a, out, INET6_ADDRSTRLEN);
  }
}

const char *rj_ops_str(uint32_t ops) {
  static const char *const names[8] = {"none",
                                       "send",
                                       "write",
                                       "send+write",
                                       "read_resp",
                                       "send+read_resp",
                                       "write+read_resp",
                                       "send+write+read_resp"};
  return names[ops & 7u];
}

const char *rj_end_str(uint32_t end) {
  switch (end) {
  case RTEL_END_IDLE:
    return "idle";
  case RTEL_END_ACTIVE:
    return "active";
  case RTEL_END_EVICTED:
    return "evicted";
  case RTEL_END_FLUSH:
    return "flush";
  case RTEL_END_TRUNCATED:
    return "truncated";
  case RTEL_END_ACKED:
    return "acked";
  case RTEL_END_SETTLED:
    return "settled";
  case RTEL_END_OVERFLOW:
    return "overflow";
  default:
    return "unknown";
  }
}

const char *rj_io_state_str(uint32_t st) {
  switch (st) {
  case RTEL_IO_COMPLETE:
    return "complete";
  case RTEL_IO_TIMEOUT:
    return "timeout";
  case RTEL_IO_ORPHAN:
    return "orphan";
  case RTEL_IO_EVICTED:
    return "evicted";
  case RTEL_IO_TRUNCATED:
    return "truncated";
  default:
    return "unknown";
  }
}

/* "read", "write", "flush", or the opcode as a JSON number */
static void json_nvme_op(rj_buf *b, uint8_t opcode, uint32_t flags) {
  if (flags & RTEL_IO_F_FABRICS) {
    rj_printf(b, "%u", opcode);
  } else if (opcode == RTEL_NVME_OP_READ && !(flags & RTEL_IO_F_ADMIN)) {
    rj_puts(b, "\"read\"");
  } else if (opcode == RTEL_NVME_OP_WRITE && !(flags & RTEL_IO_F_ADMIN)) {
    rj_puts(b, "\"write\"");
  } else if (opcode == RTEL_NVME_OP_FLUSH && !(flags & RTEL_IO_F_ADMIN)) {
    rj_puts(b, "\"flush\"");
  } else {
    rj_printf(b, "%u", opcode);
  }
}

static void json_lat(rj_buf *b, const char *name, const rtel_latency *l) {
  rj_printf(b,
            ",\"%s\":{\"count\":%" PRIu64 ",\"min\":%" PRId64
            ",\"mean\":%" PRId64 ",\"p50\":%" PRId64 ",\"p90\":%" PRId64
            ",\"p99\":%" PRId64 ",\"p99.9\":%" PRId64 ",\"max\":%" PRId64 "}",
            name, l->count, l->min, l->mean, l->p50, l->p90, l->p99, l->p999,
            l->max);
}

const char *rj_metric_name(uint32_t m) {
  static const char *const names[] = {
      "?", "iol", "dal", "dpl", "fct", "fnr", "fet", "retx_ratio", "cnp_rate"};
  return m < sizeof(names) / sizeof(names[0]) ? names[m] : "?";
}

/* ------------------------------------------------------------ records */

void rj_packet(rj_buf *b, const rj_names *n, const rtel_pkt_info *pi,
               uint64_t frame, const rtel_pkt_hd *hd) {
  static const struct {
    uint32_t bit;
    const char *name;
  } encaps[] = {{RTEL_ENCAP_ERSPAN1, "erspan1"},
                {RTEL_ENCAP_ERSPAN2, "erspan2"},
                {RTEL_ENCAP_ERSPAN3, "erspan3"},
                {RTEL_ENCAP_VXLAN, "vxlan"},
                {RTEL_ENCAP_GRE_TEB, "gre-teb"}};
  size_t i;

  rj_puts(b, "{\"type\":\"packet\",\"obs\":");
  json_str(b, OBS(n, pi->obs));
  rj_printf(b,
            ",\"frame\":%" PRIu64 ",\"ts_ns\":%" PRIu64 ",\"len\":%" PRIu32
            ",\"caplen\":%" PRIu32 ",\"roce\":%" PRIu32,
            frame, pi->ts, hd->wire_len, hd->cap_len, hd->roce);
  rj_puts(b, ",\"src\":\"");
  print_addr(b, hd, hd->src);
  rj_puts(b, "\",\"dst\":\"");
  print_addr(b, hd, hd->dst);
  rj_putc(b, '"');
  if (hd->roce == 2) {
    rj_printf(b, ",\"sport\":%u,\"dport\":%u", hd->sport, hd->dport);
  }
  if (hd->flags & RTEL_HD_F_VLAN) {
    rj_puts(b, ",\"vlan\":[");
    for (i = 0; i < hd->nvlan; i++) {
      rj_printf(b, "%s%u", i ? "," : "", hd->vlan_tci[i] & 0x0fffu);
    }
    rj_putc(b, ']');
  }
  if (hd->nencap) {
    rj_puts(b, ",\"encap\":[");
    for (i = 0; i < hd->nencap; i++) {
      size_t j;
      for (j = 0; j < sizeof(encaps) / sizeof(encaps[0]); j++) {
        if (hd->encap_list[i] == encaps[j].bit) {
          rj_printf(b, "%s\"%s\"", i ? "," : "", encaps[j].name);
        }
      }
    }
    rj_putc(b, ']');
  }
  rj_printf(
      b,
      ",\"dscp\":%u,\"ecn\":%u,\"opcode\":%u,\"se\":%u,\"m\":%u,\"pad\":%u"
      ",\"tver\":%u,\"pkey\":%u,\"fecn\":%u,\"becn\":%u,\"dqpn\":%" PRIu32
      ",\"a\":%u,\"psn\":%" PRIu32,
      hd->dscp, hd->ecn, hd->opcode, hd->se, hd->m, hd->pad, hd->tver,
      hd->pkey, hd->fecn, hd->becn, hd->dqpn, hd->ackreq, hd->psn);
  if (hd->flags & RTEL_HD_F_RDETH) {
    rj_printf(b, ",\"rdeth\":{\"eecnxt\":%" PRIu32 "}", hd->rdeth_eecnxt);
  }
  if (hd->flags & RTEL_HD_F_DETH) {
    rj_printf(b, ",\"deth\":{\"qkey\":%" PRIu32 ",\"sqpn\":%" PRIu32 "}",
              hd->deth_qkey, hd->deth_sqpn);
  }
  if (hd->flags & RTEL_HD_F_XRCETH) {
    rj_printf(b, ",\"xrceth\":{\"xrcsrq\":%" PRIu32 "}", hd->xrc_srqn);
  }
  if (hd->flags & RTEL_HD_F_FETH) {
    rj_printf(b, ",\"feth\":{\"sel\":%" PRIu32 ",\"plt\":%" PRIu32 "}",
              (hd->feth >> 4) & 3u, hd->feth & 0xfu);
  }
  if (hd->flags & RTEL_HD_F_RETH) {
    rj_printf(b,
              ",\"reth\":{\"va\":\"0x%016" PRIx64 "\",\"rkey\":%" PRIu32
              ",\"len\":%" PRIu32 "}",
              hd->reth_va, hd->reth_rkey, hd->reth_dmalen);
  }
  if (hd->flags & RTEL_HD_F_ATOMICETH) {
    rj_printf(b,
              ",\"atomic\":{\"va\":\"0x%016" PRIx64 "\",\"rkey\":%" PRIu32
              ",\"swap\":\"0x%016" PRIx64 "\",\"cmp\":\"0x%016" PRIx64 "\"}",
              hd->atomic_va, hd->atomic_rkey, hd->atomic_swap, hd->atomic_cmp);
  }
  if (hd->flags & RTEL_HD_F_AETH) {
    rj_printf(b, ",\"aeth\":{\"syndrome\":%u,\"msn\":%" PRIu32 "}",
              hd->aeth_syndrome, hd->aeth_msn);
  }
  if (hd->flags & RTEL_HD_F_ATOMICACKETH) {
    rj_printf(b, ",\"atomicack\":{\"orig\":\"0x%016" PRIx64 "\"}",
              hd->atomicack_orig);
  }
  if (hd->flags & RTEL_HD_F_IMMDT) {
    rj_printf(b, ",\"imm\":%" PRIu32, hd->imm);
  }
  if (hd->flags & RTEL_HD_F_IETH) {
    rj_printf(b, ",\"ieth\":%" PRIu32, hd->ieth_rkey);
  }
  rj_printf(b, ",\"payload_len\":%" PRIu32 ",\"icrc\":\"%s\"", hd->payload_len,
            rj_icrc_str(hd->icrc_status));
  if (hd->flags & RTEL_HD_F_HDR_TRUNC) {
    rj_puts(b, ",\"truncated\":true");
  }
  if (hd->flags & RTEL_HD_F_CM) {
    const char *name = rj_cm_attr_name(hd->cm_attr);
    uint32_t f = hd->cm_fields;
    rj_puts(b, ",\"cm\":{\"attr\":");
    if (name) {
      json_str(b, name);
    } else {
      rj_printf(b, "%" PRIu32, hd->cm_attr);
    }
    rj_printf(b, ",\"tid\":\"0x%016" PRIx64 "\"", hd->mad_tid);
    if (f & RTEL_CM_F_LCID) {
      rj_printf(b, ",\"lcid\":%" PRIu32, hd->cm_lcid);
    }
    if (f & RTEL_CM_F_RCID) {
      rj_printf(b, ",\"rcid\":%" PRIu32, hd->cm_rcid);
    }
    if (f & RTEL_CM_F_LOCAL_QPN) {
      rj_printf(b, ",\"local_qpn\":%" PRIu32, hd->cm_local_qpn);
    }
    if (f & RTEL_CM_F_START_PSN) {
      rj_printf(b, ",\"start_psn\":%" PRIu32, hd->cm_start_psn);
    }
    if (f & RTEL_CM_F_SERVICE_ID) {
      rj_printf(b, ",\"service_id\":\"0x%016" PRIx64 "\"", hd->cm_service_id);
    }
    if (f & RTEL_CM_F_REMOTE_QPN) {
      rj_printf(b, ",\"remote_qpn\":%" PRIu32, hd->cm_remote_qpn);
    }
    if (f & RTEL_CM_F_REJ_REASON) {
      rj_printf(b, ",\"rej_reason\":%" PRIu32, hd->cm_rej_reason);
    }
    rj_putc(b, '}');
  }
  rj_puts(b, "}\n");
}
void rj_flow(rj_buf *b, const rj_names *n, const rtel_flow_record *f) {
  char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
  int paired = (f->flags & RTEL_FLOW_F_PAIRED) != 0;
  rj_format_addr(src, f->flags, f->src);
  rj_format_addr(dst, f->flags, f->dst);
  rj_puts(b, "{\"type\":\"flow\",\"obs\":");
  json_str(b, OBS(n, f->obs));
  rj_printf(b, ",\"src\":\"%s\",\"dst\":\"%s\",\"sport\":%u,\"dqpn\":%" PRIu32,
            src, dst, f->sport, f->dqpn);
  if (paired) {
    rj_printf(b, ",\"peer_qpn\":%" PRIu32, f->peer_qpn);
  } else {
    rj_puts(b, ",\"peer_qpn\":null");
  }
  rj_printf(b, ",\"op\":\"%s\",\"dscp\":%u", rj_ops_str(f->ops), f->dscp);
  if (f->flags & RTEL_FLOW_F_VLAN) {
    rj_printf(b, ",\"vlan\":%u", f->vlan);
  }
  rj_printf(
      b,
      ",\"first_ts_ns\":%" PRIu64 ",\"last_ts_ns\":%" PRIu64
      ",\"fct_ns\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"packets\":%" PRIu64
      ",\"retx_packets\":%" PRIu64 ",\"retx_bytes\":%" PRIu64
      ",\"fet_bps\":%" PRIu64 ",\"naks_seq\":%" PRIu64 ",\"naks_rnr\":%" PRIu64
      ",\"naks_fatal\":%" PRIu64,
      f->first_ts, f->last_ts, f->fct, f->bytes, f->packets, f->retx_packets,
      f->retx_bytes, f->fet_bps, f->naks_seq, f->naks_rnr, f->naks_fatal);
  if (paired) {
    rj_printf(b, ",\"fnr\":%.9g", f->fnr);
  } else {
    rj_puts(b, ",\"fnr\":null");
  }
  rj_printf(b, ",\"port\":%" PRIu32, f->port);
  json_ts(b, "coverage_start_ns", f->coverage_start);
  json_ts(b, "coverage_end_ns", f->coverage_end);
  rj_printf(b,
            ",\"retx_ratio\":%.9g,\"cnps\":%" PRIu64 ",\"ecn_ce\":%" PRIu64
            ",\"fecn\":%" PRIu64 ",\"becn\":%" PRIu64 ",\"psn_gaps\":%" PRIu64
            ",\"losses_upstream\":%" PRIu64 ",\"losses_downstream\":%" PRIu64
            ",\"retx_after_nak\":%" PRIu64 ",\"retx_after_timeout\":%" PRIu64
            ",\"messages\":%" PRIu64 ",\"end\":\"%s\"",
            f->retx_ratio, f->cnps, f->ecn_ce, f->fecn, f->becn, f->psn_gaps,
            f->losses_upstream, f->losses_downstream, f->retx_after_nak,
            f->retx_after_timeout, f->messages, rj_end_str(f->end));
  rj_printf(
      b,
      ",\"retx_after_rnr\":%" PRIu64 ",\"lost_upstream\":%" PRIu64
      ",\"lost_upstream_lower_bound\":%s,\"orphan_packets\":%" PRIu64 "}\n",
      f->retx_after_rnr, f->lost_upstream,
      (f->flags & RTEL_FLOW_F_LOST_LB) ? "true" : "false", f->orphan_packets);
}

void rj_message(rj_buf *b, const rj_names *n, const rtel_msg_record *m) {
  char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
  rj_format_addr(src, m->flags, m->src);
  rj_format_addr(dst, m->flags, m->dst);
  rj_puts(b, "{\"type\":\"message\",\"obs\":");
  json_str(b, OBS(n, m->obs));
  rj_printf(b, ",\"src\":\"%s\",\"dst\":\"%s\",\"dqpn\":%" PRIu32, src, dst,
            m->dqpn);
  if (m->flags & RTEL_FLOW_F_PAIRED) {
    rj_printf(b, ",\"peer_qpn\":%" PRIu32, m->peer_qpn);
  } else {
    rj_puts(b, ",\"peer_qpn\":null");
  }
  rj_printf(
      b,
      ",\"op\":\"%s\",\"first_psn\":%" PRIu32 ",\"last_psn\":%" PRIu32
      ",\"reth_len\":%" PRIu32 ",\"first_ts_ns\":%" PRIu64
      ",\"last_ts_ns\":%" PRIu64 ",\"fct_ns\":%" PRIu64 ",\"bytes\":%" PRIu64
      ",\"packets\":%" PRIu64 ",\"retx_packets\":%" PRIu64
      ",\"retx_bytes\":%" PRIu64 ",\"complete\":%s",
      rj_ops_str(m->op), m->first_psn, m->last_psn, m->reth_len, m->first_ts,
      m->last_ts, m->fct, m->bytes, m->packets, m->retx_packets, m->retx_bytes,
      (m->flags & RTEL_MSG_F_INCOMPLETE) ? "false" : "true");
  rj_printf(
      b,
      ",\"end\":\"%s\",\"fet_bps\":%" PRIu64 ",\"naks_seq\":%" PRIu32
      ",\"naks_rnr\":%" PRIu32 ",\"naks_fatal\":%" PRIu32 ",\"cnps\":%" PRIu32
      ",\"ecn_ce\":%" PRIu32 ",\"losses_upstream\":%" PRIu32
      ",\"losses_downstream\":%" PRIu32 ",\"losses_nak\":%" PRIu32
      ",\"losses_rnr\":%" PRIu32 ",\"losses_timeout\":%" PRIu32
      ",\"lost_upstream\":%" PRIu32 ",\"lost_upstream_lower_bound\":%s}\n",
      rj_end_str(m->end), m->fet_bps, m->naks_seq, m->naks_rnr, m->naks_fatal,
      m->cnps, m->ecn_ce, m->losses_upstream, m->losses_downstream,
      m->losses_nak, m->losses_rnr, m->losses_timeout, m->lost_upstream,
      (m->flags & RTEL_FLOW_F_LOST_LB) ? "true" : "false");
}

void rj_io(rj_buf *b, const rj_names *n, const rtel_io_record *io) {
  char host[INET6_ADDRSTRLEN], target[INET6_ADDRSTRLEN];
  uint32_t af = (io->flags & RTEL_IO_F_IPV6) ? RTEL_FLOW_F_IPV6 : 0;
  rj_format_addr(host, af, io->host);
  rj_format_addr(target, af, io->target);
  rj_puts(b, "{\"type\":\"io\",\"obs\":");
  json_str(b, OBS(n, io->obs));
  rj_printf(b, ",\"host\":\"%s\",\"target\":\"%s\"", host, target);
  json_qpn(b, "host_qpn", io->host_qpn);
  json_qpn(b, "target_qpn", io->target_qpn);
  rj_printf(b, ",\"cid\":%u", io->cid);
  if (io->flags & RTEL_IO_F_QID) {
    rj_printf(b, ",\"qid\":%u", io->qid);
  }
  rj_puts(b, ",\"op\":");
  if (io->state == RTEL_IO_ORPHAN) {
    rj_puts(b, "null"); /* no command: the opcode is unknown */
  } else {
    json_nvme_op(b, io->opcode, io->flags);
  }
  rj_printf(b,
            ",\"nsid\":%" PRIu32 ",\"slba\":%" PRIu64 ",\"nlb\":%" PRIu32
            ",\"bytes\":%" PRIu64 ",\"nvme_status\":%u,\"state\":\"%s\""
            ",\"incapsule\":%s",
            io->nsid, io->slba, io->nlb, io->bytes, io->nvme_status,
            rj_io_state_str(io->state),
            (io->flags & RTEL_IO_F_INCAPSULE) ? "true" : "false");
  json_ts(b, "t_cmd_ns", io->t_cmd);
  json_ts(b, "t_rsp_ns", io->t_rsp);
  json_ts(b, "t_data_first_ns", io->t_data_first);
  json_ts(b, "t_data_last_ns", io->t_data_last);
  json_ts(b, "t_rdreq_ns", io->t_rdreq);
  json_dur(b, "iol_ns", io->iol);
  json_dur(b, "dal_ns", io->dal);
  json_dur(b, "dpl_ns", io->dpl);
  json_dur(b, "xfer_ns", io->xfer);
  rj_printf(b, ",\"port\":%" PRIu32, io->port);
  json_ts(b, "coverage_start_ns", io->coverage_start);
  json_ts(b, "coverage_end_ns", io->coverage_end);
  rj_puts(b, "}\n");
}

void rj_segment(rj_buf *b, const rj_names *n, const rtel_segment_record *sg) {
  char host[INET6_ADDRSTRLEN], target[INET6_ADDRSTRLEN];
  uint32_t af = (sg->flags & RTEL_IO_F_IPV6) ? RTEL_FLOW_F_IPV6 : 0;
  rj_format_addr(host, af, sg->host);
  rj_format_addr(target, af, sg->target);
  rj_printf(b,
            "{\"type\":\"segments\",\"host\":\"%s\",\"target\":\"%s\","
            "\"target_qpn\":%" PRIu32 ",\"cid\":%u,\"op\":",
            host, target, sg->target_qpn, sg->cid);
  json_nvme_op(b, sg->opcode, sg->flags);
  rj_puts(b, ",\"compute_obs\":");
  json_str(b, OBS(n, sg->compute_obs));
  rj_puts(b, ",\"storage_obs\":");
  json_str(b, OBS(n, sg->storage_obs));
  rj_printf(b,
            ",\"roles\":\"%s\",\"nsid\":%" PRIu32 ",\"slba\":%" PRIu64
            ",\"bytes\":%" PRIu64 ",\"iol1_ns\":%" PRId64
            ",\"iol2_ns\":%" PRId64 ",\"rtt_ns\":%" PRId64
            ",\"compute_ns\":%" PRId64 ",\"network_ns\":%" PRId64
            ",\"storage_ns\":%" PRId64 "}\n",
            sg->roles_configured ? "configured" : "inferred", sg->nsid,
            sg->slba, sg->bytes, sg->iol1, sg->iol2, sg->rtt, sg->compute,
            sg->network, sg->storage);
}

void rj_aggregate(rj_buf *b, const rj_names *n, const rtel_io_aggregate *g) {
  char host[INET6_ADDRSTRLEN], target[INET6_ADDRSTRLEN];
  uint32_t af = (g->flags & RTEL_IO_F_IPV6) ? RTEL_FLOW_F_IPV6 : 0;
  const char *dir = g->opcode == RTEL_NVME_OP_WRITE ? "write" : "read";
  rj_format_addr(host, af, g->host);
  rj_format_addr(target, af, g->target);
  rj_puts(b, "{\"type\":\"summary\",\"obs\":");
  json_str(b, OBS(n, g->obs));
  rj_printf(b, ",\"host\":\"%s\",\"target\":\"%s\",\"nsid\":", host, target);
  if (g->nsid == RTEL_NSID_ALL) {
    rj_puts(b, "null");
  } else {
    rj_printf(b, "%" PRIu32, g->nsid);
  }
  rj_printf(b,
            ",\"op\":\"%s\",\"period_start_ns\":%" PRIu64
            ",\"period_end_ns\":%" PRIu64 ",\"count\":%" PRIu64
            ",\"bytes\":%" PRIu64 ",\"errors\":%" PRIu64
            ",\"timeouts\":%" PRIu64,
            dir, g->period_start, g->period_end, g->count, g->bytes, g->errors,
            g->timeouts);
  json_lat(b, "iol_ns", &g->iol);
  json_lat(b, "dal_ns", &g->dal);
  if (g->opcode == RTEL_NVME_OP_WRITE) {
    json_lat(b, "dpl_ns", &g->dpl);
  }
  rj_puts(b, "}\n");
}

void rj_slot(rj_buf *b, const rj_names *n, const rtel_slot_event *ev) {
  size_t i;
  rj_printf(b, "{\"type\":\"slot\",\"slot\":%" PRIu64 ",\"start_ns\":%" PRIu64,
            ev->slot, ev->start);
  json_ts(b, "end_ns", ev->end);
  rj_puts(b, ",\"started\":[");
  for (i = 0; i < ev->nstarted; i++) {
    rj_printf(b, "%s", i ? "," : "");
    json_str(b, OBS(n, ev->started[i]));
  }
  rj_puts(b, "],\"stopped\":[");
  for (i = 0; i < ev->nstopped; i++) {
    rj_printf(b, "%s", i ? "," : "");
    json_str(b, OBS(n, ev->stopped[i]));
  }
  rj_puts(b, "]}\n");
}

void rj_alarm(rj_buf *b, const rj_names *n, const rtel_alarm *al) {
  char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
  const char *state = al->state == RTEL_ALARM_RAISED ? "raised" : "cleared";
  uint32_t af = 0;
  if (al->flow) {
    af = al->flow->flags & RTEL_FLOW_F_IPV6;
  } else if (al->io && (al->io->flags & RTEL_IO_F_IPV6)) {
    af = RTEL_FLOW_F_IPV6;
  }
  rj_format_addr(src, af, al->src);
  rj_format_addr(dst, af, al->dst);
  rj_puts(b, "{\"type\":\"alarm\",\"obs\":");
  json_str(b, OBS(n, al->obs));
  rj_printf(b,
            ",\"state\":\"%s\",\"metric\":\"%s\",\"kind\":\"%s\","
            "\"scope\":\"%s\"",
            state, rj_metric_name(al->metric),
            al->kind == RTEL_ALARM_BASELINE ? "baseline" : "threshold",
            al->scope == RTEL_SCOPE_PORT ? "port" : "pair");
  if (al->scope == RTEL_SCOPE_PAIR) {
    rj_printf(b, ",\"src\":\"%s\",\"dst\":\"%s\"", src, dst);
  }
  rj_printf(b,
            ",\"port\":%" PRIu32
            ",\"value\":%.9g,\"limit\":%.9g,\"ts_ns\":%" PRIu64 "}\n",
            al->port, al->value, al->limit, al->ts);
}

/* ------------------------------------------------------------ counters */

size_t rj_stats_rows(const rtel_ctx_stats *st, rj_row *out, size_t max) {
  const rj_row rows[] = {
      {"pkts", st->pkts},
      {"bytes", st->bytes},
      {"roce", st->pkts_roce},
      {"rocev1", st->pkts_rocev1},
      {"not_roce", st->pkts_not_roce},
      {"malformed", st->pkts_malformed},
      {"truncated", st->pkts_truncated},
      {"hdr_truncated", st->pkts_hdr_truncated},
      {"ip_fragments", st->pkts_ip_fragments},
      {"erspan", st->pkts_erspan},
      {"vxlan", st->pkts_vxlan},
      {"cnp", st->pkts_cnp},
      {"cm", st->pkts_cm},
      {"icrc_ok", st->icrc_ok},
      {"icrc_bad", st->icrc_bad},
      {"icrc_truncated", st->icrc_truncated},
      {"ts_backwards", st->pkts_ts_backwards},
      {"unknown_opcode", st->pkts_unknown_opcode},
      {"unknown_tver", st->pkts_unknown_tver},
      {"flows_created", st->flows_created},
      {"flows_evicted", st->flows_evicted},
      {"flows_untracked_pkts", st->flows_untracked_pkts},
      {"pairs_cm", st->pairs_cm},
      {"pairs_psn", st->pairs_psn},
      {"pairs_evicted", st->pairs_evicted},
      {"ctrl_unattributed", st->ctrl_unattributed},
      {"messages", st->messages},
      {"nvme_queues_cm", st->nvme_queues_cm},
      {"nvme_queues_connect", st->nvme_queues_connect},
      {"nvme_queues_confirmed", st->nvme_queues_confirmed},
      {"nvme_queues_evicted", st->nvme_queues_evicted},
      {"ios_complete", st->ios_complete},
      {"ios_timeout", st->ios_timeout},
      {"ios_orphan", st->ios_orphan},
      {"ios_evicted", st->ios_evicted},
      {"ios_untracked", st->ios_untracked},
      {"ios_created", st->ios_created},
      {"ios_active", st->ios_active},
      {"ios_unconfirmed", st->ios_unconfirmed},
      {"nvme_data_unmatched", st->nvme_data_unmatched},
      {"nvme_capsule_dups", st->nvme_capsule_dups},
      {"segments", st->segments},
      {"io_join_unmatched", st->io_join_unmatched},
      {"aggregates_dropped", st->aggregates_dropped},
      {"ios_truncated", st->ios_truncated},
      {"unscheduled", st->pkts_unscheduled},
      {"slots", st->slots},
      {"alarms_raised", st->alarms_raised},
      {"alarms_cleared", st->alarms_cleared},
      {"alarms_dropped", st->alarms_dropped},
      {"msgs_overflow", st->msgs_overflow},
  };
  size_t i, nrows = sizeof(rows) / sizeof(rows[0]);
  for (i = 0; i < nrows && i < max; i++) {
    out[i] = rows[i];
  }
  return i;
}

void rj_stats(rj_buf *b, const char *obs, const rtel_ctx_stats *st) {
  rj_row rows[RJ_STATS_ROWS];
  size_t i, nrows = rj_stats_rows(st, rows, RJ_STATS_ROWS);
  int first = 1;
  rj_puts(b, "{\"type\":\"stats\",\"obs\":");
  json_str(b, obs);
  for (i = 0; i < nrows; i++) {
    rj_printf(b, ",\"%s\":%" PRIu64, rows[i].name, rows[i].v);
  }
  rj_puts(b, ",\"malformed_by_reason\":{");
  for (i = 0; i < RTEL_MALFORMED_SLOTS; i++) {
    if (st->malformed[i]) {
      rj_printf(b, "%s", first ? "" : ",");
      json_str(b, rtel_malformed_str((uint32_t)i));
      rj_printf(b, ":%" PRIu64, st->malformed[i]);
      first = 0;
    }
  }
  rj_puts(b, "}}\n");
}
