/* SPDX-License-Identifier: MIT */
/*
 * The flow table (rtel_flow_record(3), rtel_msg_record(3), rtel-metrics(7)).
 *
 * A flow is keyed by (obs, source IP, destination IP, destination QPN) and
 * made of data packets: SEND, RDMA WRITE, RDMA READ RESPONSE of RC, UC and
 * XRC QPs. Its ACKs, NAKs and CNPs travel the other way, addressed to the
 * peer QP; they reach the flow through the pairing table (rtel_pair.h),
 * which maps (obs, src, dst, QPN) of either direction to the other
 * direction's QPN. The flow table feeds it: RDMA CM connections, the data
 * PSNs of flows not paired yet and the ACKs that may name them; it holds
 * the NAKs and CNPs of an unpaired flow in the pairing entry of their QP
 * until the pair is learned (when their flow takes them).
 *
 * Per data packet, with d = PSN - highest PSN seen (24-bit serial):
 *   d > 0   new data; d > 1 is a PSN gap (remembered, to locate losses),
 *           unless the previous packet was a READ REQUEST or atomic, whose
 *           PSN span is unknown here;
 *   d <= 0  a retransmission. A retransmission that does not continue the
 *           previous one (its PSN is not after the previous packet's)
 *           starts a retransmission episode: one loss event, located
 *           upstream if its PSN lies in an open gap (the original never
 *           passed here), downstream otherwise; caused by a NAK if a
 *           sequence-error or RNR NAK for the flow was seen since the
 *           previous episode, by a timeout otherwise. Two gaps are kept:
 *           the oldest open one and the latest; with three or more open
 *           before a resend, the middle ones are forgotten.
 * A READ RESPONSE flow's PSNs are its requester's, which also numbers its
 * own SENDs and WRITEs: between two responses a jump is a gap only if it
 * skips the first PSN of a READ REQUEST seen from the requester (the last
 * four are remembered); inside a response any jump is.
 * Timestamps: a flow's first and last times are the earliest and latest
 * of its packets, so a capture slightly out of order does not wrap FCT.
 * A jump between resent PSNs is remembered as a gap too (those resent
 * copies were lost before this point). A copy of the previous packet less
 * than DUP_NS later is a duplicate: a retransmission by the PSN rule, but
 * no loss event and no cause. FECN is counted on the flow's data, BECN on
 * the ACKs and NAKs that come back for it (a CNP always has BECN set).
 *
 * Memory: the flow entry (struct flow) is rtel__flow_entry_size() bytes;
 * with the bucket array (2 x 4 bytes per entry, rounded up to a power of
 * two) that is the per-flow cost. Nothing is allocated after setup.
 */
#include "rtel_flow.h"

#include "rtel_opcode.h"
#include "rtel_psn.h"

/* ------------------------------------------------------------ entries */

/* flow.st bits */
#define ST_GAP 0x01u      /* gap1 holds the oldest open gap */
#define ST_EPISODE 0x02u  /* inside a retransmission episode */
#define ST_NAK 0x04u      /* a NAK arrived since the last episode began */
#define ST_EP_NAK 0x08u   /* the current episode was caused by a NAK */
#define ST_SPAN 0x10u     /* previous packet was a multi-PSN request */
#define ST_MSG 0x20u      /* a message is in progress */
#define ST_MSG_INC 0x40u  /* ... and it did not start with FIRST */
#define ST_GAP2 0x80u     /* gap2 holds the latest other gap */

/* Flow keys of READ RESPONSE data carry this bit above the 24-bit QPN:
 * responses use the requester's PSN space, not the sender's own, so they
 * are a flow of their own even on the same QP. */
#define KEY_RESP 0x01000000u
#define QPN_MASK 0x00ffffffu /* the QPN of a key */

/* A packet with the PSN of the flow's previous packet, seen less than this
 * after it, is a duplicate copy (a mirror's), not a retransmission: a
 * sender's resend follows a NAK or a timeout, microseconds later. */
#define DUP_NS 1000u

typedef struct flow {
  /* hot: read or written for every data packet (kept in the first two
   * cache lines of the entry) */
  rtel__qent q;
  rtel_tstamp last_ts;
  uint64_t bytes;
  uint64_t packets;
  uint32_t highest;
  uint32_t last_psn;
  uint32_t peer_qpn;
  uint32_t msg_first_psn;
  rtel_tstamp msg_last_ts;
  uint32_t msg_last_psn;
  uint32_t msg_bytes;
  uint32_t msg_pkts;
  uint32_t ecn_ce;
  uint8_t st;
  uint8_t ops;
  uint8_t fl; /* RTEL_FLOW_F_* */
  uint8_t msg_op;
  /* warm: retransmissions, control packets, message boundaries */
  rtel_tstamp first_ts;
  rtel_tstamp msg_first_ts;
  uint64_t retx_bytes;
  uint64_t retx_packets;
  uint32_t gap1_lo; /* PSNs never seen here: the oldest open gap */
  uint32_t gap1_hi;
  uint32_t gap2_lo; /* and the latest one after it */
  uint32_t gap2_hi;
  uint32_t naks_seq;
  uint32_t naks_rnr;
  uint32_t naks_fatal;
  uint32_t cnps;
  uint32_t fecn;
  uint32_t becn;
  uint32_t gaps;
  uint32_t loss_up;
  uint32_t loss_down;
  uint32_t ep_pkts; /* retransmissions in the current episode */
  rtel_tstamp ep_ts; /* when it began */
  uint32_t retx_nak;
  uint32_t retx_to;
  uint32_t messages;
  uint32_t msg_retx_bytes;
  uint32_t msg_retx_pkts;
  uint32_t msg_reth_len;
  /* cold: attributes and bookkeeping */
  rtel__link fifo; /* creation order, for the active timeout */
  uint32_t port;
  uint16_t sport;
  uint16_t vlan;
  uint8_t dscp;
  uint8_t rq_next;
  uint8_t rq_n;
  uint8_t pad;
  /* READ RESPONSE flows: PSNs of the latest READ REQUESTs seen */
  uint32_t rq_psn[4];
} flow;

size_t rtel__flow_entry_size(void) { return sizeof(flow); }

/* ------------------------------------------------------------ setup */

int rtel__flow_init(rtel__flowtab *ft, const rtel_settings *s,
                    rtel__pairtab *pairs, const rtel__env *env) {
  uint32_t nflows = s->max_flows ? s->max_flows : 4096;
  int rv;

  memset(ft, 0, sizeof(*ft));
  ft->env = *env;
  ft->pairs = pairs;
  ft->flags = s->flow_flags;
  ft->idle = s->flow_idle_timeout ? s->flow_idle_timeout : 100000000u;
  ft->active = s->flow_active_timeout;
  if (ft->flags & RTEL_FLOW_DISABLE) {
    return 0;
  }
  if ((rv = rtel__qtab_init(&ft->flows, nflows, sizeof(flow), s->hash_seed,
                            ft->env.mem)) != 0) {
    rtel__flow_free(ft);
    return rv;
  }
  rtel__list_init(&ft->fifo);
  return 0;
}

void rtel__flow_free(rtel__flowtab *ft) {
  if (ft->env.mem == NULL) {
    return; /* never initialised */
  }
  rtel__qtab_free(&ft->flows, ft->env.mem);
}

/* ------------------------------------------------------------ records */

static uint32_t flow_flags(const flow *f) {
  return f->fl | (f->peer_qpn != RTEL_QPN_NONE ? RTEL_FLOW_F_PAIRED : 0u);
}

static int emit_msg(rtel__flowtab *ft, flow *f, uint32_t extra_flags) {
  rtel_msg_record m;
  f->st &= (uint8_t) ~(ST_MSG | ST_MSG_INC);
  f->messages++;
  if (!(ft->env.sink->want & RTEL__WANT_MSG)) {
    return ft->env.sink->msg(ft->env.sink->hub, NULL); /* counted only */
  }
  memset(&m, 0, sizeof(m));
  m.obs = f->q.key.obs;
  m.flags = flow_flags(f) | extra_flags;
  memcpy(m.src, f->q.key.src, 16);
  memcpy(m.dst, f->q.key.dst, 16);
  m.dqpn = f->q.key.qpn & QPN_MASK;
  m.peer_qpn = f->peer_qpn;
  m.op = f->msg_op;
  m.first_psn = f->msg_first_psn;
  m.last_psn = f->msg_last_psn;
  m.reth_len = f->msg_reth_len;
  m.first_ts = f->msg_first_ts;
  m.last_ts = f->msg_last_ts;
  m.fct = f->msg_last_ts - f->msg_first_ts;
  m.bytes = f->msg_bytes;
  m.packets = f->msg_pkts;
  m.retx_packets = f->msg_retx_pkts;
  m.retx_bytes = f->msg_retx_bytes;
  m.port = f->port;
  return ft->env.sink->msg(ft->env.sink->hub, &m);
}

static void fifo_unlink(rtel__flowtab *ft, flow *f);

/* Reports |f| (ending for |end|); an empty flow (restarted by the active
 * timeout, no data since) reports nothing. A message in progress ends
 * incomplete with the flow, but goes on across an active restart. */
static int report_flow(rtel__flowtab *ft, flow *f, uint32_t end) {
  rtel_flow_record r;
  int rv = 0;

  if (f->packets == 0) {
    return 0;
  }
  if ((f->st & ST_MSG) && end != RTEL_END_ACTIVE) {
    rv = emit_msg(ft, f, RTEL_MSG_F_INCOMPLETE);
  }
  if (rv == 0) {
    memset(&r, 0, sizeof(r));
    r.obs = f->q.key.obs;
    r.flags = flow_flags(f);
    memcpy(r.src, f->q.key.src, 16);
    memcpy(r.dst, f->q.key.dst, 16);
    r.dqpn = f->q.key.qpn & QPN_MASK;
    r.peer_qpn = f->peer_qpn;
    r.sport = f->sport;
    r.vlan = f->vlan;
    r.dscp = f->dscp;
    r.end = end;
    r.ops = f->ops;
    r.first_ts = f->first_ts;
    r.last_ts = f->last_ts;
    r.fct = f->last_ts - f->first_ts;
    r.bytes = f->bytes;
    r.packets = f->packets;
    r.retx_packets = f->retx_packets;
    r.retx_bytes = f->retx_bytes;
    r.fet_bps = r.fct ? (uint64_t)((double)(r.bytes - r.retx_bytes) * 8e9 /
                                   (double)r.fct)
                      : 0;
    r.naks_seq = f->naks_seq;
    r.naks_rnr = f->naks_rnr;
    r.naks_fatal = f->naks_fatal;
    r.cnps = f->cnps;
    r.ecn_ce = f->ecn_ce;
    r.fecn = f->fecn;
    r.becn = f->becn;
    r.psn_gaps = f->gaps;
    r.losses_upstream = f->loss_up;
    r.losses_downstream = f->loss_down;
    r.retx_after_nak = f->retx_nak;
    r.retx_after_timeout = f->retx_to;
    r.messages = f->messages;
    r.fnr = r.packets ? (double)r.naks_seq / (double)r.packets : 0.0;
    r.retx_ratio = r.packets ? (double)r.retx_packets / (double)r.packets
                             : 0.0;
    r.port = f->port;
    rv = ft->env.sink->flow(ft->env.sink->hub, &r);
  }
  return rv;
}

/* Reports |f| and removes it from the table. */
static int end_flow(rtel__flowtab *ft, flow *f, uint32_t end) {
  int rv = report_flow(ft, f, end);
  fifo_unlink(ft, f);
  rtel__qtab_remove(&ft->flows, &f->q);
  ft->env.stats->flows_active = ft->flows.used;
  return rv;
}

/* ------------------------------------------------------------ FIFO */

/* Flows in creation order (head: oldest), for the active timeout. */
static flow *flow_at(const rtel__flowtab *ft, uint32_t i) {
  return (flow *)(void *)rtel__qtab_at(&ft->flows, i);
}

static rtel__links fifo_links(const rtel__flowtab *ft) {
  rtel__links lk = {ft->flows.ents + offsetof(flow, fifo), ft->flows.stride};
  return lk;
}

static void fifo_append(rtel__flowtab *ft, flow *f) {
  rtel__list_append(&ft->fifo, fifo_links(ft),
                    rtel__qtab_idx(&ft->flows, &f->q));
}

static void fifo_unlink(rtel__flowtab *ft, flow *f) {
  rtel__list_unlink(&ft->fifo, fifo_links(ft),
                    rtel__qtab_idx(&ft->flows, &f->q));
}

/* ------------------------------------------------------------ pairing */

static flow *flow_find(rtel__flowtab *ft, const rtel__qkey *k) {
  uint32_t h = rtel__qkey_hash(&ft->flows, k);
  return (flow *)(void *)rtel__qtab_find(&ft->flows, k, h);
}

/* The READ RESPONSE flow sent from |src| to (|dst|, |qpn|), if present,
 * learns its peer. */
static void set_resp_peer(rtel__flowtab *ft, uint32_t obs, const uint8_t *src,
                          const uint8_t *dst, uint32_t qpn, uint32_t peer) {
  rtel__qkey k;
  flow *f;
  rtel__qkey_set(&k, obs, src, dst, qpn | KEY_RESP);
  if ((f = flow_find(ft, &k)) != NULL) {
    f->peer_qpn = peer;
  }
}

/* The NAKs and CNPs |h| held for |f| before its pair was known: counted
 * now; a held NAK is the cause of the retransmission episode under way if
 * it came before it, else of the next one. */
static void take_held(flow *f, const rtel__pair_held *h) {
  f->naks_seq += h->naks_seq;
  f->naks_rnr += h->naks_rnr;
  f->naks_fatal += h->naks_fatal;
  f->cnps += h->cnps;
  if (h->nak_pending) {
    if ((f->st & ST_EPISODE) && h->nak_ts <= f->ep_ts &&
        !(f->st & ST_EP_NAK)) {
      /* the held NAK came before the episode under way: it caused it */
      f->retx_to -= f->ep_pkts;
      f->retx_nak += f->ep_pkts;
      f->st |= ST_EP_NAK;
    } else if (!(f->st & ST_EPISODE) || h->nak_ts > f->ep_ts) {
      f->st |= ST_NAK;
    }
  }
}

/* A pair learned (rtel__pair_learned): data sent from key->src to
 * (key->dst, key->qpn) is acknowledged on (key->src, |peer|). The flows of
 * both directions learn their peer; what the control direction's entry
 * |ctrl| held goes to the data direction's flow. */
static void pair_learned(void *arg, const rtel__qkey *key, uint32_t peer,
                         rtel__pair *ctrl) {
  rtel__flowtab *ft = arg;
  rtel__qkey k;
  flow *f;

  /* READ RESPONSE flows on either QP learn their peer too */
  set_resp_peer(ft, key->obs, key->src, key->dst, key->qpn, peer);
  set_resp_peer(ft, key->obs, key->dst, key->src, peer, key->qpn);
  rtel__qkey_set(&k, key->obs, key->dst, key->src, peer);
  if ((f = flow_find(ft, &k)) != NULL) {
    f->peer_qpn = key->qpn;
  }
  if ((f = flow_find(ft, key)) != NULL) {
    f->peer_qpn = peer;
    take_held(f, &ctrl->held);
  }
}

void rtel__flow_cm_conn(rtel__flowtab *ft, const rtel__cm_conn *c) {
  if (ft->flags & RTEL_FLOW_DISABLE) {
    return;
  }
  rtel__pair_cm_conn(ft->pairs, c, pair_learned, ft);
}

/* ------------------------------------------------------------ control */

static void count_ctrl(flow *f, rtel__pair_held *held, uint16_t kind,
                       uint8_t syn, rtel_tstamp ts) {
  if (kind == RTEL__K_CNP) {
    if (f) {
      f->cnps++;
    } else {
      held->cnps++;
    }
    return;
  }
  switch (RTEL_AETH_KIND(syn)) {
  case RTEL_AETH_RNR_NAK:
    if (f) {
      f->naks_rnr++;
      f->st |= ST_NAK;
    } else {
      held->naks_rnr++;
      held->nak_pending = 1;
      held->nak_ts = ts;
    }
    break;
  case RTEL_AETH_NAK:
    if (RTEL_AETH_VALUE(syn) == RTEL_NAK_PSN_SEQ_ERROR) {
      if (f) {
        f->naks_seq++;
        f->st |= ST_NAK;
      } else {
        held->naks_seq++;
        held->nak_pending = 1;
        held->nak_ts = ts;
      }
    } else if (RTEL_AETH_VALUE(syn) <= RTEL_NAK_INVALID_RD_REQUEST) {
      if (f) {
        f->naks_fatal++;
      } else {
        held->naks_fatal++;
      }
    }
    break;
  default:
    break;
  }
}

/* An ACK/NAK or CNP travelling from the data receiver back to the sender:
 * (hd->src -> hd->dst, hd->dqpn) is the reverse of the flow. */
static void ctrl_packet(rtel__flowtab *ft, const rtel_pkt_info *pi,
                        const rtel_pkt_hd *hd, uint16_t kind) {
  rtel__qkey k;
  rtel__pair *p;
  flow *f;
  uint8_t syn = (hd->flags & RTEL_HD_F_AETH) ? hd->aeth_syndrome : 0;

  rtel__qkey_set(&k, pi->obs, hd->src, hd->dst, hd->dqpn);
  p = rtel__pair_find(ft->pairs, &k);
  if (p && p->peer != RTEL_QPN_NONE) {
    rtel__qkey_set(&k, pi->obs, hd->dst, hd->src, p->peer);
    f = flow_find(ft, &k);
    if (f == NULL && kind == RTEL__K_CNP) {
      /* a QP that only answers READs: its data is a response flow */
      k.qpn |= KEY_RESP;
      f = flow_find(ft, &k);
    }
    if (f) {
      count_ctrl(f, NULL, kind, syn, pi->ts);
      if (kind == RTEL__K_ACK) {
        f->becn += hd->becn; /* BECN comes back on ACKs and NAKs */
      }
    } else if (kind == RTEL__K_CNP || RTEL_AETH_KIND(syn) != RTEL_AETH_ACK) {
      ft->env.stats->ctrl_unattributed++;
    }
    return;
  }
  /* Not paired yet: an ACK's PSN may name a data packet of the flow. */
  if (kind == RTEL__K_ACK && (hd->flags & RTEL_HD_F_AETH)) {
    p = rtel__pair_ack_psn(ft->pairs, p, &k, hd->psn);
  }
  if (kind == RTEL__K_CNP || RTEL_AETH_KIND(syn) != RTEL_AETH_ACK) {
    if (p == NULL) {
      p = rtel__pair_get(ft->pairs, &k);
    }
    count_ctrl(NULL, &p->held, kind, syn, pi->ts);
  }
  rtel__pair_confirm(ft->pairs, p, &k, pair_learned, ft);
}

/* ------------------------------------------------------------ data */

static void msg_start(flow *f, const rtel_pkt_info *pi, const rtel_pkt_hd *hd,
                      uint8_t op, int incomplete) {
  f->st |= ST_MSG;
  if (incomplete) {
    f->st |= ST_MSG_INC;
  }
  f->msg_op = op;
  f->msg_first_ts = pi->ts;
  f->msg_last_ts = pi->ts;
  f->msg_first_psn = hd->psn;
  f->msg_bytes = f->msg_retx_bytes = 0;
  f->msg_pkts = f->msg_retx_pkts = 0;
  f->msg_reth_len = (hd->flags & RTEL_HD_F_RETH) ? hd->reth_dmalen : 0;
}

static int msg_packet(rtel__flowtab *ft, flow *f, const rtel_pkt_info *pi,
                      const rtel_pkt_hd *hd, uint16_t cls, int retx) {
  uint8_t op = rtel__op_class_op(cls);
  int rv;

  if (!retx) {
    if (cls & RTEL__P_FIRST) {
      if ((f->st & ST_MSG) &&
          (rv = emit_msg(ft, f, RTEL_MSG_F_INCOMPLETE)) != 0) {
        return rv;
      }
      msg_start(f, pi, hd, op, 0);
    } else if (!(f->st & ST_MSG)) {
      /* capture began mid-message, or its first packet was lost */
      msg_start(f, pi, hd, op, 1);
    }
  } else if ((f->st & (ST_MSG | ST_MSG_INC)) == (ST_MSG | ST_MSG_INC) &&
             (cls & RTEL__P_FIRST) &&
             rtel__psn_before(hd->psn, f->msg_first_psn)) {
    /* the resent FIRST of a message whose original FIRST never passed
     * here: the message now starts where it really does */
    f->st &= (uint8_t)~ST_MSG_INC;
    f->msg_first_psn = hd->psn;
    f->msg_reth_len = (hd->flags & RTEL_HD_F_RETH) ? hd->reth_dmalen : 0;
    f->msg_retx_pkts++;
    f->msg_retx_bytes += hd->payload_len;
  } else if (!(f->st & ST_MSG) ||
             rtel__psn_before(hd->psn, f->msg_first_psn)) {
    return 0; /* a resend of a message that already ended */
  } else {
    f->msg_retx_pkts++;
    f->msg_retx_bytes += hd->payload_len;
  }
  f->msg_pkts++;
  f->msg_bytes += hd->payload_len;
  if (pi->ts > f->msg_last_ts) {
    f->msg_last_ts = pi->ts;
  } else if (pi->ts < f->msg_first_ts) {
    f->msg_first_ts = pi->ts;
  }
  f->msg_last_psn = hd->psn;
  if (cls & RTEL__P_LAST) {
    return emit_msg(ft, f,
                    (f->st & ST_MSG_INC) ? RTEL_MSG_F_INCOMPLETE : 0u);
  }
  return 0;
}

static flow *flow_new(rtel__flowtab *ft, const rtel__qkey *k, uint32_t h,
                      const rtel_pkt_info *pi, const rtel_pkt_hd *hd,
                      int *prv) {
  flow *f;

  *prv = 0;
  if (ft->flows.used == ft->flows.cap) {
    if (ft->flags & RTEL_FLOW_NO_EVICT) {
      ft->env.stats->flows_untracked_pkts++;
      return NULL;
    }
    ft->env.stats->flows_evicted++;
    *prv = end_flow(ft, (flow *)(void *)rtel__qtab_oldest(&ft->flows),
                    RTEL_END_EVICTED);
    if (*prv != 0) {
      return NULL;
    }
  }
  f = (flow *)(void *)rtel__qtab_insert(&ft->flows, k, h);
  fifo_append(ft, f);
  ft->env.stats->flows_created++;
  ft->env.stats->flows_active = ft->flows.used;
  f->first_ts = pi->ts;
  f->last_ts = pi->ts;
  f->highest = hd->psn;
  f->last_psn = hd->psn;
  f->sport = hd->roce == 2 ? hd->sport : 0;
  f->port = pi->port;
  f->dscp = hd->dscp;
  f->fl = (hd->flags & RTEL_HD_F_IPV4) ? 0 : RTEL_FLOW_F_IPV6;
  if (hd->nvlan) {
    f->vlan = hd->vlan_tci[0] & 0x0fffu;
    f->fl |= RTEL_FLOW_F_VLAN;
  }
  f->peer_qpn = rtel__pair_peer(ft->pairs, k->obs, k->src, k->dst,
                               k->qpn & QPN_MASK);
  return f;
}

/* Active timeout: the flow is reported and starts over empty, keeping
 * what it knows of the connection (PSNs, gaps, episode, pairing), so that
 * a resend after the restart is still a resend. */
static int restart_flow(rtel__flowtab *ft, flow *f, rtel_tstamp now) {
  int rv = report_flow(ft, f, RTEL_END_ACTIVE);
  f->first_ts = now; /* until the next data packet */
  f->bytes = f->retx_bytes = 0;
  f->packets = f->retx_packets = 0;
  f->naks_seq = f->naks_rnr = f->naks_fatal = f->cnps = 0;
  f->ecn_ce = f->fecn = f->becn = f->gaps = 0;
  f->loss_up = f->loss_down = f->retx_nak = f->retx_to = 0;
  f->messages = 0;
  f->ep_pkts = 0;
  f->ops = 0;
  rtel__list_move_tail(&ft->fifo, fifo_links(ft),
                       rtel__qtab_idx(&ft->flows, &f->q));
  return rv;
}

/* Is a jump to |psn| on a READ RESPONSE flow a loss? */
static int resp_gap(const flow *f, uint32_t psn) {
  unsigned i;
  if (f->st & ST_MSG) {
    return 1; /* inside a response, its PSNs are consecutive */
  }
  for (i = 0; i < f->rq_n; i++) {
    if (rtel__psn_after(f->rq_psn[i], f->highest) &&
        rtel__psn_before(f->rq_psn[i], psn)) {
      return 1; /* the response to that request never passed here */
    }
  }
  return 0;
}

/* The flow of a data packet (a READ RESPONSE flow if |resp|): the one in
 * the table, made the most recent - ended first if it is idle or
 * restarted if its active timeout passed, as the caller may not have run
 * the timers in time (a packet older than the flow's last one never ends
 * it) - or a new one (*created). NULL with *prv 0 when the table is full
 * and may not evict, or with the error of a record ended on the way. */
static flow *data_flow(rtel__flowtab *ft, const rtel_pkt_info *pi,
                       const rtel_pkt_hd *hd, int resp, int *created,
                       int *prv) {
  rtel__qkey k;
  uint32_t h;
  flow *f;

  *prv = 0;
  rtel__qkey_set(&k, pi->obs, hd->src, hd->dst,
                 hd->dqpn | (resp ? KEY_RESP : 0u));
  h = rtel__qkey_hash(&ft->flows, &k);
  f = (flow *)(void *)rtel__qtab_find(&ft->flows, &k, h);
  if (f != NULL && pi->ts > f->last_ts && pi->ts - f->last_ts >= ft->idle) {
    if ((*prv = end_flow(ft, f, RTEL_END_IDLE)) != 0) {
      return NULL;
    }
    f = NULL;
  } else if (f != NULL && ft->active && pi->ts > f->first_ts &&
             pi->ts - f->first_ts >= ft->active) {
    if ((*prv = restart_flow(ft, f, pi->ts)) != 0) {
      return NULL;
    }
  }
  *created = f == NULL;
  if (f == NULL) {
    return flow_new(ft, &k, h, pi, hd, prv);
  }
  rtel__qtab_touch(&ft->flows, &f->q);
  if (f->packets == 0) {
    f->first_ts = f->last_ts = pi->ts; /* first packet since a restart */
  }
  return f;
}

/* PSNs [lo, hi] never passed here: kept as the oldest open gap if none is
 * open, else as the latest other one (replacing the previous latest). */
static void open_gap(flow *f, uint32_t lo, uint32_t hi) {
  if (!(f->st & ST_GAP)) {
    f->gap1_lo = lo;
    f->gap1_hi = hi;
    f->st |= ST_GAP;
  } else {
    f->gap2_lo = lo;
    f->gap2_hi = hi;
    f->st |= ST_GAP2;
  }
}

/* Does |psn| lie in an open gap (its original never passed here)? */
static int in_gap(const flow *f, uint32_t psn) {
  return ((f->st & ST_GAP) && rtel__psn_in(psn, f->gap1_lo, f->gap1_hi)) ||
         ((f->st & ST_GAP2) && rtel__psn_in(psn, f->gap2_lo, f->gap2_hi));
}

/* New data, |d| PSNs after the highest: a jump is a PSN gap, unless the
 * previous packet's PSN span is unknown; a retransmission episode under
 * way is over. */
static void new_data(flow *f, uint32_t psn, int32_t d, int resp) {
  if (d > 1 && (resp ? resp_gap(f, psn) : !(f->st & ST_SPAN))) {
    f->gaps++;
    open_gap(f, rtel__psn_add(f->highest, 1), rtel__psn_add(psn, -1));
  }
  f->highest = psn;
  f->st &= (uint8_t)~ST_EPISODE;
}

/* A retransmission that does not continue the previous one begins an
 * episode: one loss event, located upstream if its PSN lies in an open
 * gap (the open gaps are then closed), downstream otherwise; caused by a
 * NAK if one arrived since the previous episode. */
static void start_episode(flow *f, uint32_t psn, rtel_tstamp ts) {
  if (in_gap(f, psn)) {
    f->loss_up++;
  } else {
    f->loss_down++;
  }
  f->st = (uint8_t)((f->st & ~(ST_NAK | ST_EP_NAK | ST_GAP | ST_GAP2)) |
                    ST_EPISODE | ((f->st & ST_NAK) ? ST_EP_NAK : 0));
  f->ep_ts = ts;
  f->ep_pkts = 0;
}

/* A data packet whose PSN is not after the highest: a retransmission by
 * the PSN rule. Returns 2 for a copy of the previous packet at once (a
 * duplicate mirror copy, not a resend: no loss event), else 1: a resend,
 * counted in its episode by cause. */
static int resend(flow *f, const rtel_pkt_info *pi, const rtel_pkt_hd *hd) {
  f->retx_packets++;
  f->retx_bytes += hd->payload_len;
  if (hd->psn == f->last_psn && pi->ts - f->last_ts < DUP_NS &&
      pi->ts >= f->last_ts) {
    return 2;
  }
  if ((f->st & ST_EPISODE) && rtel__psn_diff(hd->psn, f->last_psn) > 1) {
    /* a jump inside a resend: those resent copies never passed here,
     * so the episode that resends them again is an upstream loss */
    open_gap(f, rtel__psn_add(f->last_psn, 1), rtel__psn_add(hd->psn, -1));
  }
  if (!(f->st & ST_EPISODE) || !rtel__psn_after(hd->psn, f->last_psn)) {
    start_episode(f, hd->psn, pi->ts);
  }
  if (f->st & ST_EP_NAK) {
    f->retx_nak++;
  } else {
    f->retx_to++;
  }
  f->ep_pkts++;
  return 1;
}

/* The packet's share of the flow's totals and times. */
static void count_data(flow *f, const rtel_pkt_info *pi,
                       const rtel_pkt_hd *hd, uint16_t cls) {
  f->st &= (uint8_t)~ST_SPAN;
  f->last_psn = hd->psn;
  if (pi->ts > f->last_ts) {
    f->last_ts = pi->ts;
  } else if (pi->ts < f->first_ts) {
    f->first_ts = pi->ts; /* out of order: FCT spans both */
  }
  f->packets++;
  f->bytes += hd->payload_len;
  f->ops |= rtel__op_class_op(cls);
  f->ecn_ce += hd->ecn == 3;
  f->fecn += hd->fecn;
}

static int data_packet(rtel__flowtab *ft, const rtel_pkt_info *pi,
                       const rtel_pkt_hd *hd, uint16_t cls) {
  int resp = rtel__op_class_op(cls) == RTEL_OP_READ_RESP;
  int created = 0, retx = 0, rv;
  flow *f = data_flow(ft, pi, hd, resp, &created, &rv);

  if (f == NULL) {
    return rv;
  }
  if (!created) {
    int32_t d = rtel__psn_diff(hd->psn, f->highest);
    if (d > 0) {
      new_data(f, hd->psn, d, resp);
    } else {
      retx = resend(f, pi, hd);
    }
  }
  count_data(f, pi, hd, cls);
  if (f->peer_qpn == RTEL_QPN_NONE && !resp) {
    rtel__pair_note_psn(ft->pairs, pi->obs, hd->src, hd->dst, hd->dqpn,
                        hd->psn);
  }
  return msg_packet(ft, f, pi, hd, cls, retx);
}

/* A READ REQUEST, atomic or FLUSH: it uses PSNs of the flow's sequence
 * (a READ REQUEST as many as its response has packets, which the observer
 * cannot know), so the next data PSN may jump without a loss. */
static void req_packet(rtel__flowtab *ft, const rtel_pkt_info *pi,
                       const rtel_pkt_hd *hd) {
  rtel__qkey k;
  flow *f;
  const rtel__pair *p;
  rtel__qkey_set(&k, pi->obs, hd->src, hd->dst, hd->dqpn);
  f = flow_find(ft, &k);
  if (f && rtel__psn_after(hd->psn, f->highest)) {
    f->highest = hd->psn;
    f->last_psn = hd->psn;
    f->st |= ST_SPAN;
  }
  /* a READ REQUEST announces the first PSN of its responses, which come
   * back to the requester's peer QP */
  if (hd->opcode != (RTEL__OPC_RC | RTEL__OPC_READ_REQ) &&
      hd->opcode != (RTEL__OPC_XRC | RTEL__OPC_READ_REQ)) {
    return;
  }
  if ((p = rtel__pair_find(ft->pairs, &k)) == NULL ||
      p->peer == RTEL_QPN_NONE) {
    return;
  }
  rtel__qkey_set(&k, pi->obs, hd->dst, hd->src, p->peer | KEY_RESP);
  if ((f = flow_find(ft, &k)) != NULL) {
    f->rq_psn[f->rq_next] = hd->psn;
    f->rq_next = (uint8_t)((f->rq_next + 1) & 3u);
    if (f->rq_n < 4) {
      f->rq_n++;
    }
  }
}

int rtel__flow_packet(rtel__flowtab *ft, const rtel_pkt_info *pi,
                      const rtel_pkt_hd *hd) {
  uint16_t cls;

  if (ft->flags & RTEL_FLOW_DISABLE) {
    return 0;
  }
  if (rtel__unlikely(hd->flags & (RTEL_HD_F_UNKNOWN_OPCODE |
                                   RTEL_HD_F_UNKNOWN_TVER))) {
    return 0;
  }
  cls = rtel__op_class[hd->opcode];
  if (rtel__likely(cls & RTEL__K_DATA)) {
    return data_packet(ft, pi, hd, cls);
  }
  if (cls & (RTEL__K_ACK | RTEL__K_CNP)) {
    ctrl_packet(ft, pi, hd, cls);
  } else if (cls & RTEL__K_REQ) {
    req_packet(ft, pi, hd);
  }
  return 0;
}

/* ------------------------------------------------------------ timers */

rtel_tstamp rtel__flow_expiry(const rtel__flowtab *ft) {
  rtel_tstamp t = RTEL_TSTAMP_NONE;
  const flow *f;

  if ((ft->flags & RTEL_FLOW_DISABLE) || ft->flows.used == 0) {
    return t;
  }
  f = (const flow *)(const void *)rtel__qtab_oldest(&ft->flows);
  t = f->last_ts + ft->idle;
  if (ft->active) {
    rtel_tstamp a = flow_at(ft, ft->fifo.head)->first_ts + ft->active;
    if (a < t) {
      t = a;
    }
  }
  return t;
}

int rtel__flow_expire(rtel__flowtab *ft, rtel_tstamp now) {
  int rv;

  if (ft->flags & RTEL_FLOW_DISABLE) {
    return 0;
  }
  while (ft->flows.used) {
    flow *f = (flow *)(void *)rtel__qtab_oldest(&ft->flows);
    if (now < f->last_ts || now - f->last_ts < ft->idle) {
      break;
    }
    if ((rv = end_flow(ft, f, RTEL_END_IDLE)) != 0) {
      return rv;
    }
  }
  while (ft->active && ft->flows.used) {
    flow *f = flow_at(ft, ft->fifo.head);
    if (now < f->first_ts || now - f->first_ts < ft->active) {
      break;
    }
    if (f->packets == 0) {
      /* restarted and silent since: nothing to report */
      if ((rv = end_flow(ft, f, RTEL_END_ACTIVE)) != 0) {
        return rv;
      }
    } else if ((rv = restart_flow(ft, f, f->first_ts + ft->active)) != 0) {
      return rv;
    }
  }
  return 0;
}

int rtel__flow_flush(rtel__flowtab *ft, uint32_t end) {
  int rv;
  if (ft->flags & RTEL_FLOW_DISABLE) {
    return 0;
  }
  /* oldest first, so records come out in order of their last activity */
  while (ft->flows.used) {
    if ((rv = end_flow(ft, (flow *)(void *)rtel__qtab_oldest(&ft->flows),
                       end)) != 0) {
      return rv;
    }
  }
  return 0;
}

/* Ends, truncated, every flow whose port is no longer measured. */
int rtel__flow_truncate(rtel__flowtab *ft, const rtel__sched *sched) {
  uint32_t i;
  int rv;
  if (ft->flags & RTEL_FLOW_DISABLE) {
    return 0;
  }
  for (i = ft->flows.lru.head; i != RTEL__NIL;) {
    flow *f = flow_at(ft, i);
    i = f->q.lru.next;
    if (!rtel__sched_port_measured(sched, f->port) &&
        (rv = end_flow(ft, f, RTEL_END_TRUNCATED)) != 0) {
      return rv;
    }
  }
  return 0;
}
