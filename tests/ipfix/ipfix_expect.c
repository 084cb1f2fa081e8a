/* SPDX-License-Identifier: MIT */
/* What each decoded data record must hold: see ipfix_expect.h. The element
 * numbers are written out here as rtel_ipfix(3) lists them. */
#include "ipfix_expect.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct chk {
  const ipr_rec *rec;
  uint32_t pen;
  char *err;
  size_t errlen;
  int failed;
  unsigned checked; /* fields checked */
} chk;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
failf(chk *c, const char *fmt, ...) {
  va_list ap;
  if (c->failed) {
    return;
  }
  c->failed = 1;
  if (c->err && c->errlen) {
    va_start(ap, fmt);
    vsnprintf(c->err, c->errlen, fmt, ap);
    va_end(ap);
  }
}

/* The field (pen, id) with length |len|, or NULL after failf(). */
static const uint8_t *field(chk *c, uint32_t pen, uint16_t id, size_t len) {
  size_t flen;
  const uint8_t *p = ipr_find(c->rec, pen, id, &flen);
  if (c->failed) {
    return NULL;
  }
  if (p == NULL) {
    failf(c, "template %u: no element %u/%u", c->rec->tid, pen, id);
    return NULL;
  }
  if (flen != len) {
    failf(c, "template %u: element %u/%u is %zu bytes, not %zu", c->rec->tid,
          pen, id, flen, len);
    return NULL;
  }
  c->checked++;
  return p;
}

static void u(chk *c, uint32_t pen, uint16_t id, size_t len, uint64_t want) {
  uint64_t v;
  const uint8_t *p = field(c, pen, id, len);
  if (p && (ipr_get_uint(p, len, &v) != 0 || v != want)) {
    failf(c, "template %u: element %u/%u = %llu, want %llu", c->rec->tid, pen,
          id, (unsigned long long)v, (unsigned long long)want);
  }
}

/* an enterprise unsigned element */
static void e(chk *c, uint16_t id, size_t len, uint64_t want) {
  u(c, c->pen, id, len, want);
}

static void es(chk *c, uint16_t id, int64_t want) {
  int64_t v;
  const uint8_t *p = field(c, c->pen, id, 8);
  if (p && (ipr_get_int(p, 8, &v) != 0 || v != want)) {
    failf(c, "template %u: element %u = %lld, want %lld", c->rec->tid, id,
          (long long)v, (long long)want);
  }
}

/* sourceIPv4/6Address and destinationIPv4/6Address from IPv4-mapped
 * addresses */
static void addrs(chk *c, int v6, const uint8_t *src, const uint8_t *dst) {
  const uint8_t *p;
  if (v6) {
    if ((p = field(c, 0, 27, 16)) && memcmp(p, src, 16) != 0) {
      failf(c, "template %u: sourceIPv6Address differs", c->rec->tid);
    }
    if ((p = field(c, 0, 28, 16)) && memcmp(p, dst, 16) != 0) {
      failf(c, "template %u: destinationIPv6Address differs", c->rec->tid);
    }
  } else {
    if ((p = field(c, 0, 8, 4)) && memcmp(p, src + 12, 4) != 0) {
      failf(c, "template %u: sourceIPv4Address differs", c->rec->tid);
    }
    if ((p = field(c, 0, 12, 4)) && memcmp(p, dst + 12, 4) != 0) {
      failf(c, "template %u: destinationIPv4Address differs", c->rec->tid);
    }
  }
}

/* dateTimeMilliseconds: whole milliseconds since the epoch, 0 for none */
static void ms(chk *c, uint16_t id, rtel_tstamp t) {
  uint64_t want = t == RTEL_TSTAMP_NONE ? 0 : t / 1000000u;
  u(c, 0, id, 8, want);
}

/* dateTimeNanoseconds: the same nanosecond back (a raw 0 for none) */
static void ntp(chk *c, uint16_t id, rtel_tstamp t) {
  const uint8_t *p = field(c, 0, id, 8);
  uint64_t raw;
  int64_t ns;
  if (p == NULL) {
    return;
  }
  (void)ipr_get_uint(p, 8, &raw);
  if (t == RTEL_TSTAMP_NONE) {
    if (raw != 0) {
      failf(c, "template %u: element %u: a time where none was", c->rec->tid,
            id);
    }
    return;
  }
  /* NTP era 0 holds 1900..2036: times past it wrap (rtel_ipfix(3)) */
  if (t / 1000000000u + 2208988800ull > 0xffffffffull) {
    return;
  }
  (void)ipr_get_ntp_ns(p, 8, &ns);
  if ((uint64_t)ns != t) {
    failf(c, "template %u: element %u: %lld ns, want %llu", c->rec->tid, id,
          (long long)ns, (unsigned long long)t);
  }
}

/* parts per million of |v|, to the nearest, clamped to 0..2^32-1 */
static void ppm(chk *c, uint16_t id, double v) {
  uint64_t got;
  const uint8_t *p = field(c, c->pen, id, 4);
  double want = v * 1e6;
  if (p == NULL) {
    return;
  }
  (void)ipr_get_uint(p, 4, &got);
  if (isnan(want) || want <= 0) {
    if (got != 0) {
      failf(c, "template %u: element %u = %llu, want 0", c->rec->tid, id,
            (unsigned long long)got);
    }
  } else if (want >= 4294967295.0) {
    if (got != 0xffffffffu) {
      failf(c, "template %u: element %u not clamped", c->rec->tid, id);
    }
  } else if (fabs((double)got - want) > 0.5 + 1e-6 * want) {
    failf(c, "template %u: element %u = %llu, want %.3f", c->rec->tid, id,
          (unsigned long long)got, want);
  }
}

static int start(chk *c, const ipr_rec *rec, uint32_t pen, uint16_t tid4,
                 int v6, char *err, size_t errlen) {
  memset(c, 0, sizeof(*c));
  c->rec = rec;
  c->pen = pen;
  c->err = err;
  c->errlen = errlen;
  if (rec->tid != tid4 + (v6 ? 1 : 0)) {
    failf(c, "template %u, want %u", rec->tid, tid4 + (v6 ? 1 : 0));
    return -1;
  }
  return 0;
}

static int finish(chk *c) {
  if (!c->failed && c->checked != c->rec->nfields) {
    failf(c, "template %u: %u fields, %u checked", c->rec->tid,
          c->rec->nfields, c->checked);
  }
  return c->failed ? -1 : 0;
}

/* IANA flowEndReason: 1 idle, 2 active, 3 end detected, 4 forced end,
 * 5 lack of resources */
static uint64_t flow_end_reason(uint32_t end) {
  if (end == RTEL_END_IDLE) {
    return 1;
  }
  if (end == RTEL_END_ACTIVE) {
    return 2;
  }
  if (end == RTEL_END_ACKED || end == RTEL_END_SETTLED) {
    return 3;
  }
  if (end == RTEL_END_EVICTED || end == RTEL_END_OVERFLOW) {
    return 5;
  }
  return 4;
}

int ipx_check_flow(const ipr_rec *rec, const rtel_flow_record *r, uint32_t pen,
                   uint64_t flow_id, char *err, size_t errlen) {
  chk c;
  int v6 = (r->flags & RTEL_FLOW_F_IPV6) != 0;
  if (start(&c, rec, pen, IPX_TID_FLOW, v6, err, errlen) != 0) {
    return -1;
  }
  u(&c, 0, 148, 8, flow_id);     /* flowId */
  u(&c, 0, 138, 8, r->obs);      /* observationPointId */
  addrs(&c, v6, r->src, r->dst); /* source/destinationIPv4/6Address */
  u(&c, 0, 7, 2, r->sport);      /* sourceTransportPort */
  u(&c, 0, 58, 2, r->vlan);      /* vlanId */
  u(&c, 0, 195, 1, r->dscp);     /* ipDiffServCodePoint */
  u(&c, 0, 10, 4, r->port);      /* ingressInterface */
  ms(&c, 152, r->first_ts);      /* flowStartMilliseconds */
  ms(&c, 153, r->last_ts);       /* flowEndMilliseconds */
  ntp(&c, 156, r->first_ts);     /* flowStartNanoseconds */
  ntp(&c, 157, r->last_ts);      /* flowEndNanoseconds */
  u(&c, 0, 1, 8, r->bytes);      /* octetDeltaCount */
  u(&c, 0, 2, 8, r->packets);    /* packetDeltaCount */
  u(&c, 0, 136, 1, flow_end_reason(r->end)); /* flowEndReason */
  e(&c, 1, 4, r->dqpn);
  e(&c, 2, 4, r->peer_qpn);
  e(&c, 3, 1, r->ops & 0xff);
  e(&c, 4, 4, r->flags);
  e(&c, 5, 1, r->end & 0xff);
  e(&c, 6, 8, r->fct);
  e(&c, 7, 8, r->fet_bps);
  ppm(&c, 8, r->fnr);
  ppm(&c, 9, r->retx_ratio);
  e(&c, 10, 8, r->retx_packets);
  e(&c, 11, 8, r->retx_bytes);
  e(&c, 12, 8, r->naks_seq);
  e(&c, 13, 8, r->naks_rnr);
  e(&c, 14, 8, r->naks_fatal);
  e(&c, 15, 8, r->cnps);
  e(&c, 16, 8, r->ecn_ce);
  e(&c, 17, 8, r->fecn);
  e(&c, 18, 8, r->becn);
  e(&c, 19, 8, r->psn_gaps);
  e(&c, 20, 8, r->losses_upstream);
  e(&c, 21, 8, r->losses_downstream);
  e(&c, 22, 8, r->retx_after_nak);
  e(&c, 23, 8, r->retx_after_timeout);
  e(&c, 24, 8, r->retx_after_rnr);
  e(&c, 25, 8, r->lost_upstream);
  e(&c, 26, 8, r->orphan_packets);
  e(&c, 27, 8, r->messages);
  e(&c, 28, 8, r->coverage_start);
  e(&c, 29, 8, r->coverage_end);
  return finish(&c);
}

int ipx_check_msg(const ipr_rec *rec, const rtel_msg_record *r, uint32_t pen,
                  uint64_t flow_id, char *err, size_t errlen) {
  chk c;
  int v6 = (r->flags & RTEL_FLOW_F_IPV6) != 0;
  if (start(&c, rec, pen, IPX_TID_MSG, v6, err, errlen) != 0) {
    return -1;
  }
  u(&c, 0, 148, 8, flow_id);
  u(&c, 0, 138, 8, r->obs);
  addrs(&c, v6, r->src, r->dst);
  u(&c, 0, 10, 4, r->port);
  ms(&c, 152, r->first_ts);
  ms(&c, 153, r->last_ts);
  ntp(&c, 156, r->first_ts);
  ntp(&c, 157, r->last_ts);
  u(&c, 0, 1, 8, r->bytes);
  u(&c, 0, 2, 8, r->packets);
  u(&c, 0, 136, 1, flow_end_reason(r->end));
  e(&c, 1, 4, r->dqpn);
  e(&c, 2, 4, r->peer_qpn);
  e(&c, 3, 1, r->op & 0xff);
  e(&c, 4, 4, r->flags);
  e(&c, 5, 1, r->end & 0xff);
  e(&c, 30, 4, r->first_psn);
  e(&c, 31, 4, r->last_psn);
  e(&c, 32, 4, r->reth_len);
  e(&c, 6, 8, r->fct);
  e(&c, 7, 8, r->fet_bps);
  e(&c, 10, 8, r->retx_packets);
  e(&c, 11, 8, r->retx_bytes);
  e(&c, 12, 8, r->naks_seq);
  e(&c, 13, 8, r->naks_rnr);
  e(&c, 14, 8, r->naks_fatal);
  e(&c, 15, 8, r->cnps);
  e(&c, 16, 8, r->ecn_ce);
  e(&c, 20, 8, r->losses_upstream);
  e(&c, 21, 8, r->losses_downstream);
  e(&c, 33, 8, r->losses_nak);
  e(&c, 34, 8, r->losses_rnr);
  e(&c, 35, 8, r->losses_timeout);
  e(&c, 25, 8, r->lost_upstream);
  e(&c, 28, 8, r->coverage_start);
  e(&c, 29, 8, r->coverage_end);
  return finish(&c);
}

static rtel_tstamp latest(rtel_tstamp a, rtel_tstamp b) {
  if (a == RTEL_TSTAMP_NONE || (b != RTEL_TSTAMP_NONE && b > a)) {
    return b;
  }
  return a;
}

int ipx_check_io(const ipr_rec *rec, const rtel_io_record *r, uint32_t pen,
                 uint64_t flow_id, char *err, size_t errlen) {
  chk c;
  int v6 = (r->flags & RTEL_IO_F_IPV6) != 0;
  /* rtel_ipfix(3): the flow starts with the command (an orphan: with the
   * response) and ends with the response (none: the last event seen) */
  rtel_tstamp t0 = r->t_cmd != RTEL_TSTAMP_NONE ? r->t_cmd : r->t_rsp;
  rtel_tstamp t1 = r->t_rsp;
  uint64_t reason = 3;
  if (t1 == RTEL_TSTAMP_NONE) {
    t1 = latest(latest(r->t_cmd, r->t_data_last), r->t_rdreq);
  }
  if (r->state == RTEL_IO_TIMEOUT) {
    reason = 1;
  } else if (r->state == RTEL_IO_EVICTED) {
    reason = 5;
  } else if (r->state == RTEL_IO_TRUNCATED) {
    reason = 4;
  }
  if (start(&c, rec, pen, IPX_TID_IO, v6, err, errlen) != 0) {
    return -1;
  }
  u(&c, 0, 148, 8, flow_id);
  u(&c, 0, 138, 8, r->obs);
  addrs(&c, v6, r->host, r->target);
  u(&c, 0, 10, 4, r->port);
  ms(&c, 152, t0);
  ms(&c, 153, t1);
  ntp(&c, 156, t0);
  ntp(&c, 157, t1);
  u(&c, 0, 136, 1, reason);
  e(&c, 36, 1, r->state & 0xff);
  e(&c, 37, 4, r->flags);
  e(&c, 38, 4, r->host_qpn);
  e(&c, 39, 4, r->target_qpn);
  e(&c, 40, 2, r->cid);
  e(&c, 41, 2, r->qid);
  e(&c, 42, 1, r->opcode);
  e(&c, 43, 1, r->fctype);
  e(&c, 44, 2, r->nvme_status);
  e(&c, 45, 4, r->nsid);
  e(&c, 46, 8, r->slba);
  e(&c, 47, 4, r->nlb);
  e(&c, 48, 8, r->bytes);
  e(&c, 49, 8, r->t_cmd);
  e(&c, 50, 8, r->t_rsp);
  e(&c, 51, 8, r->t_data_first);
  e(&c, 52, 8, r->t_data_last);
  e(&c, 53, 8, r->t_rdreq);
  es(&c, 54, r->iol);
  es(&c, 55, r->dal);
  es(&c, 56, r->dpl);
  es(&c, 57, r->xfer);
  e(&c, 28, 8, r->coverage_start);
  e(&c, 29, 8, r->coverage_end);
  return finish(&c);
}

int ipx_check_segment(const ipr_rec *rec, const rtel_segment_record *r,
                      uint32_t pen, uint64_t flow_id, char *err,
                      size_t errlen) {
  chk c;
  int v6 = (r->flags & RTEL_IO_F_IPV6) != 0;
  if (start(&c, rec, pen, IPX_TID_SEGMENT, v6, err, errlen) != 0) {
    return -1;
  }
  u(&c, 0, 148, 8, flow_id);
  u(&c, 0, 138, 8, r->compute_obs);
  addrs(&c, v6, r->host, r->target);
  e(&c, 58, 4, r->storage_obs);
  e(&c, 37, 4, r->flags);
  e(&c, 59, 1, r->roles_configured & 0xff);
  e(&c, 39, 4, r->target_qpn);
  e(&c, 40, 2, r->cid);
  e(&c, 42, 1, r->opcode);
  e(&c, 45, 4, r->nsid);
  e(&c, 46, 8, r->slba);
  e(&c, 48, 8, r->bytes);
  es(&c, 60, r->iol1);
  es(&c, 61, r->iol2);
  es(&c, 62, r->rtt);
  es(&c, 63, r->compute);
  es(&c, 64, r->network);
  es(&c, 65, r->storage);
  return finish(&c);
}

static void lat(chk *c, uint16_t base, const rtel_latency *l) {
  e(c, base, 8, l->count);
  es(c, (uint16_t)(base + 1), l->min);
  es(c, (uint16_t)(base + 2), l->mean);
  es(c, (uint16_t)(base + 3), l->p50);
  es(c, (uint16_t)(base + 4), l->p90);
  es(c, (uint16_t)(base + 5), l->p99);
  es(c, (uint16_t)(base + 6), l->p999);
  es(c, (uint16_t)(base + 7), l->max);
}

int ipx_check_aggregate(const ipr_rec *rec, const rtel_io_aggregate *r,
                        uint32_t pen, uint64_t flow_id, char *err,
                        size_t errlen) {
  chk c;
  int v6 = (r->flags & RTEL_IO_F_IPV6) != 0;
  if (start(&c, rec, pen, IPX_TID_AGGREGATE, v6, err, errlen) != 0) {
    return -1;
  }
  u(&c, 0, 148, 8, flow_id);
  u(&c, 0, 138, 8, r->obs);
  addrs(&c, v6, r->host, r->target);
  ms(&c, 359, r->period_start); /* monitoringIntervalStartMilliSeconds */
  ms(&c, 360, r->period_end);   /* monitoringIntervalEndMilliSeconds */
  u(&c, 0, 1, 8, r->bytes);
  e(&c, 37, 4, r->flags);
  e(&c, 42, 1, r->opcode & 0xff);
  e(&c, 45, 4, r->nsid);
  e(&c, 66, 8, r->period_start);
  e(&c, 67, 8, r->period_end);
  e(&c, 68, 8, r->count);
  e(&c, 69, 8, r->errors);
  e(&c, 70, 8, r->timeouts);
  lat(&c, 71, &r->iol);
  lat(&c, 79, &r->dal);
  lat(&c, 87, &r->dpl);
  return finish(&c);
}

int ipx_check_type_record(const ipr_rec *rec, uint32_t pen, uint8_t *seen,
                          char *err, size_t errlen) {
  ipr_ietype t;
  const rtel_ipfix_element *el = NULL;
  size_t i;
  char why[128];
  if (ipr_ietype_get(rec, &t, why, sizeof(why)) != 1) {
    snprintf(err, errlen, "not a valid type record: %s", why);
    return -1;
  }
  if (t.pen != pen) {
    snprintf(err, errlen, "type record of enterprise %u, want %u", t.pen, pen);
    return -1;
  }
  for (i = 0; (el = rtel_ipfix_element_get(i)) != NULL; i++) {
    if (el->id == t.id) {
      break;
    }
  }
  if (el == NULL || t.id >= 4096) {
    snprintf(err, errlen, "type record of unknown element %u", t.id);
    return -1;
  }
  if (!(t.have & IPR_HAVE_SEMANTICS) || !(t.have & IPR_HAVE_UNITS) ||
      t.data_type != el->data_type || t.semantics != el->semantics ||
      t.units != el->units || t.name_len != strlen(el->name) ||
      memcmp(t.name, el->name, t.name_len) != 0) {
    snprintf(err, errlen, "type record of element %u differs from %s", t.id,
             el->name);
    return -1;
  }
  if (seen[t.id / 8] & (1u << (t.id % 8))) {
    snprintf(err, errlen, "element %u described twice", t.id);
    return -1;
  }
  seen[t.id / 8] |= (uint8_t)(1u << (t.id % 8));
  return 0;
}
