/* SPDX-License-Identifier: MIT */
/*
 * The flow table (rtel_flow_record(3), rtel_msg_record(3), rtel-metrics(7)).
 *
 * A flow is keyed by (obs, source IP, destination IP, destination QPN) and
 * made of data packets: SEND, RDMA WRITE, RDMA READ RESPONSE of RC, UC and
 * XRC QPs. Its ACKs, NAKs and CNPs travel the other way, addressed to the
 * peer QP; they reach the flow through the pairing table, which maps
 * (obs, src, dst, QPN) of either direction to the other direction's QPN.
 * Pairs are learned from RDMA CM REQ/REP exchanges and, when no CM was
 * seen, from ACK PSNs that fall on recent data PSNs of exactly one flow
 * (confirmed by a second ACK before the pair is believed).
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

/* ------------------------------------------------------------ opcodes */

/* op_class[opcode]: kind (bits 8-11), RTEL_OP_* (bits 2-4), position in
 * the message (bits 0-1) */
#define K_DATA 0x100u
#define K_REQ 0x200u /* READ REQUEST, atomics, FLUSH, ATOMIC WRITE */
#define K_ACK 0x400u /* ACK, ATOMIC ACK (AETH) */
#define K_CNP 0x800u
#define P_FIRST 0x1u
#define P_LAST 0x2u
#define P_MID 0x0u
#define P_ONLY (P_FIRST | P_LAST)
#define O_SHIFT 2
#define D(op, pos) (uint16_t)(K_DATA | ((op) << O_SHIFT) | (pos))
#define SEND_(pos) D(RTEL_OP_SEND, pos)
#define WRITE_(pos) D(RTEL_OP_WRITE, pos)
#define RRESP_(pos) D(RTEL_OP_READ_RESP, pos)

/* RC, UC (first 12) and XRC share the low 5 bits. */
#define FAMILY_SENDWRITE(b)                                                   \
  [(b) + 0x00] = SEND_(P_FIRST), [(b) + 0x01] = SEND_(P_MID),                 \
  [(b) + 0x02] = SEND_(P_LAST), [(b) + 0x03] = SEND_(P_LAST),                 \
  [(b) + 0x04] = SEND_(P_ONLY), [(b) + 0x05] = SEND_(P_ONLY),                 \
  [(b) + 0x06] = WRITE_(P_FIRST), [(b) + 0x07] = WRITE_(P_MID),               \
  [(b) + 0x08] = WRITE_(P_LAST), [(b) + 0x09] = WRITE_(P_LAST),               \
  [(b) + 0x0A] = WRITE_(P_ONLY), [(b) + 0x0B] = WRITE_(P_ONLY)
#define FAMILY_REST(b)                                                        \
  [(b) + 0x0C] = K_REQ, [(b) + 0x0D] = RRESP_(P_FIRST),                       \
  [(b) + 0x0E] = RRESP_(P_MID), [(b) + 0x0F] = RRESP_(P_LAST),                \
  [(b) + 0x10] = RRESP_(P_ONLY), [(b) + 0x11] = K_ACK, [(b) + 0x12] = K_ACK,  \
  [(b) + 0x13] = K_REQ, [(b) + 0x14] = K_REQ, [(b) + 0x16] = SEND_(P_LAST),   \
  [(b) + 0x17] = SEND_(P_ONLY), [(b) + 0x1C] = K_REQ, [(b) + 0x1D] = K_REQ

static const uint16_t op_class[256] = {
    FAMILY_SENDWRITE(0x00), FAMILY_REST(0x00), FAMILY_SENDWRITE(0x20),
    FAMILY_SENDWRITE(0xA0), FAMILY_REST(0xA0), [0x81] = K_CNP,
};

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
  uint32_t fifo_prev; /* creation order, for the active timeout */
  uint32_t fifo_next;
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

typedef struct pair {
  rtel__qent q;
  uint32_t peer; /* RTEL_QPN_NONE: not paired yet */
  uint32_t cand; /* PSN-matching candidate peer */
  uint32_t hits;
  uint32_t hit_psn; /* PSN of the last hit (a repeat does not count) */
  /* NAKs and CNPs that arrived before the pair was known */
  uint32_t naks_seq;
  uint32_t naks_rnr;
  uint32_t naks_fatal;
  uint32_t cnps;
  uint32_t nak_pending;
  rtel_tstamp nak_ts; /* time of the last NAK held */
} pair;

size_t rtel__flow_entry_size(void) { return sizeof(flow); }

#define PSN_MASK 0xffffffu

/* 24-bit serial difference a - b in [-2^23, 2^23). */
static inline int32_t psn_diff(uint32_t a, uint32_t b) {
  uint32_t d = (a - b) & PSN_MASK;
  return d & 0x800000u ? (int32_t)d - 0x1000000 : (int32_t)d;
}

static void mkkey(rtel__qkey *k, uint32_t obs, const uint8_t *src,
                  const uint8_t *dst, uint32_t qpn) {
  memcpy(k->src, src, 16);
  memcpy(k->dst, dst, 16);
  k->obs = obs;
  k->qpn = qpn;
}

/* ------------------------------------------------------------ setup */

int rtel__flow_init(rtel__flowtab *ft, const rtel_settings *s,
                    const rtel__env *env) {
  uint32_t nflows = s->max_flows ? s->max_flows : 4096;
  /* two entries per connection (one per direction); a connection may
   * carry data one way only */
  uint32_t npairs = s->max_qp_pairs ? s->max_qp_pairs
                    : nflows <= RTEL__MAX_TABLE / 2 ? 2 * nflows
                                                    : RTEL__MAX_TABLE;
  uint32_t npsn = 1;
  int rv;

  memset(ft, 0, sizeof(*ft));
  ft->env = *env;
  ft->flags = s->flow_flags;
  ft->idle = s->flow_idle_timeout ? s->flow_idle_timeout : 100000000u;
  ft->active = s->flow_active_timeout;
  if (ft->flags & RTEL_FLOW_DISABLE) {
    return 0;
  }
  while (npsn < nflows * 4u && npsn < (1u << 24)) {
    npsn <<= 1;
  }
  if ((rv = rtel__qtab_init(&ft->flows, nflows, sizeof(flow), s->hash_seed,
                            ft->env.mem)) != 0 ||
      (rv = rtel__qtab_init(&ft->pairs, npairs, sizeof(pair),
                            s->hash_seed ^ 0x5bd1e995u, ft->env.mem)) != 0) {
    rtel__flow_free(ft);
    return rv;
  }
  ft->psn_index = rtel__zalloc(&ft->env, npsn, sizeof(rtel__psn_slot));
  if (ft->psn_index == NULL) {
    rtel__flow_free(ft);
    return RTEL_ERR_NOMEM;
  }
  ft->psn_mask = npsn - 1;
  ft->fifo_head = ft->fifo_tail = RTEL__NIL;
  return 0;
}

void rtel__flow_free(rtel__flowtab *ft) {
  if (ft->env.mem == NULL) {
    return; /* never initialised */
  }
  rtel__qtab_free(&ft->flows, ft->env.mem);
  rtel__qtab_free(&ft->pairs, ft->env.mem);
  rtel__dealloc(&ft->env, ft->psn_index);
  ft->psn_index = NULL;
}

/* ------------------------------------------------------------ records */

static uint32_t flow_flags(const flow *f) {
  return f->fl | (f->peer_qpn != RTEL_QPN_NONE ? RTEL_FLOW_F_PAIRED : 0u);
}

static int emit_msg(rtel__flowtab *ft, flow *f, uint32_t extra_flags) {
  rtel_msg_record m;
  f->st &= (uint8_t) ~(ST_MSG | ST_MSG_INC);
  f->messages++;
  memset(&m, 0, sizeof(m));
  m.obs = f->q.key.obs;
  m.flags = flow_flags(f) | extra_flags;
  memcpy(m.src, f->q.key.src, 16);
  memcpy(m.dst, f->q.key.dst, 16);
  m.dqpn = f->q.key.qpn & PSN_MASK;
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
    r.dqpn = f->q.key.qpn & PSN_MASK;
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

static void fifo_append(rtel__flowtab *ft, flow *f) {
  uint32_t i = rtel__qtab_idx(&ft->flows, &f->q);
  f->fifo_prev = ft->fifo_tail;
  f->fifo_next = RTEL__NIL;
  if (ft->fifo_tail != RTEL__NIL) {
    flow_at(ft, ft->fifo_tail)->fifo_next = i;
  } else {
    ft->fifo_head = i;
  }
  ft->fifo_tail = i;
}

static void fifo_unlink(rtel__flowtab *ft, flow *f) {
  if (f->fifo_prev == RTEL__NIL) {
    ft->fifo_head = f->fifo_next;
  } else {
    flow_at(ft, f->fifo_prev)->fifo_next = f->fifo_next;
  }
  if (f->fifo_next == RTEL__NIL) {
    ft->fifo_tail = f->fifo_prev;
  } else {
    flow_at(ft, f->fifo_next)->fifo_prev = f->fifo_prev;
  }
}

/* ------------------------------------------------------------ pairing */

static pair *pair_find(rtel__flowtab *ft, const rtel__qkey *k) {
  uint32_t h = rtel__qkey_hash(&ft->pairs, k);
  return (pair *)(void *)rtel__qtab_find(&ft->pairs, k, h);
}

/* Finds or creates the pairing entry of |k| (evicting the least recently
 * used entry when full). */
static pair *pair_get(rtel__flowtab *ft, const rtel__qkey *k) {
  uint32_t h = rtel__qkey_hash(&ft->pairs, k);
  pair *p = (pair *)(void *)rtel__qtab_find(&ft->pairs, k, h);
  if (p) {
    rtel__qtab_touch(&ft->pairs, &p->q);
    return p;
  }
  if (ft->pairs.used == ft->pairs.cap) {
    pair *old = (pair *)(void *)rtel__qtab_oldest(&ft->pairs);
    /* NAKs and CNPs it held for a flow never paired are lost */
    ft->env.stats->ctrl_unattributed +=
        old->naks_seq + old->naks_rnr + old->naks_fatal + old->cnps;
    rtel__qtab_remove(&ft->pairs, &old->q);
    ft->env.stats->pairs_evicted++;
  }
  p = (pair *)(void *)rtel__qtab_insert(&ft->pairs, k, h);
  p->peer = RTEL_QPN_NONE;
  p->cand = RTEL_QPN_NONE;
  return p;
}

static flow *flow_find(rtel__flowtab *ft, const rtel__qkey *k) {
  uint32_t h = rtel__qkey_hash(&ft->flows, k);
  return (flow *)(void *)rtel__qtab_find(&ft->flows, k, h);
}

/* Records that data sent from |src| to (|dst|, |dqpn|) is acknowledged on
 * (|src|, |peer|): both directions' entries, and the flow if present.
 * Counts held by the control-direction entry move to the flow. */
static void set_peer(rtel__flowtab *ft, uint32_t obs, const uint8_t *src,
                     const uint8_t *dst, uint32_t qpn, uint32_t peer) {
  rtel__qkey k;
  flow *f;
  mkkey(&k, obs, src, dst, qpn | KEY_RESP);
  if ((f = flow_find(ft, &k)) != NULL) {
    f->peer_qpn = peer;
  }
}

/* Records that data sent from |src| to (|dst|, |dqpn|) is acknowledged on
 * (|src|, |peer|): both directions' entries, and the flows if present.
 * NAKs and CNPs held by the control-direction entry move to the flow. */
static void learn_pair(rtel__flowtab *ft, uint32_t obs, const uint8_t *src,
                       const uint8_t *dst, uint32_t dqpn, uint32_t peer) {
  rtel__qkey k;
  pair *fwd, *rev;
  flow *f;

  mkkey(&k, obs, src, dst, dqpn);
  fwd = pair_get(ft, &k);
  fwd->peer = peer;
  mkkey(&k, obs, dst, src, peer);
  rev = pair_get(ft, &k);
  rev->peer = dqpn;
  /* READ RESPONSE flows on either QP learn their peer too */
  set_peer(ft, obs, src, dst, dqpn, peer);
  set_peer(ft, obs, dst, src, peer, dqpn);
  mkkey(&k, obs, dst, src, peer);
  if ((f = flow_find(ft, &k)) != NULL) {
    f->peer_qpn = dqpn;
  }
  mkkey(&k, obs, src, dst, dqpn);
  f = flow_find(ft, &k);
  if (f) {
    f->peer_qpn = peer;
    f->naks_seq += rev->naks_seq;
    f->naks_rnr += rev->naks_rnr;
    f->naks_fatal += rev->naks_fatal;
    f->cnps += rev->cnps;
    if (rev->nak_pending) {
      if ((f->st & ST_EPISODE) && rev->nak_ts <= f->ep_ts &&
          !(f->st & ST_EP_NAK)) {
        /* the held NAK came before the episode under way: it caused it */
        f->retx_to -= f->ep_pkts;
        f->retx_nak += f->ep_pkts;
        f->st |= ST_EP_NAK;
      } else if (!(f->st & ST_EPISODE) || rev->nak_ts > f->ep_ts) {
        f->st |= ST_NAK;
      }
    }
  }
  rev->naks_seq = rev->naks_rnr = rev->naks_fatal = rev->cnps = 0;
  rev->nak_pending = 0;
}

void rtel__flow_cm_conn(rtel__flowtab *ft, const rtel__cm_conn *c) {
  if (ft->flags & RTEL_FLOW_DISABLE) {
    return;
  }
  /* data requester -> responder goes to the responder's QPN and is
   * acknowledged to the requester's, and conversely */
  learn_pair(ft, c->obs, c->req_ip, c->rsp_ip, c->rsp_qpn, c->req_qpn);
  learn_pair(ft, c->obs, c->rsp_ip, c->req_ip, c->req_qpn, c->rsp_qpn);
  ft->env.stats->pairs_cm++;
}

uint32_t rtel__flow_peer(const rtel__flowtab *ft, uint32_t obs,
                         const uint8_t *src, const uint8_t *dst,
                         uint32_t qpn) {
  rtel__qkey k;
  const pair *p;
  if (ft->flags & RTEL_FLOW_DISABLE) {
    return RTEL_QPN_NONE;
  }
  mkkey(&k, obs, src, dst, qpn);
  p = pair_find((rtel__flowtab *)(uintptr_t)ft, &k);
  return p ? p->peer : RTEL_QPN_NONE;
}

/* Index of recent data PSNs of unpaired flows: direct-mapped on
 * (obs, src, dst, psn); a slot keeps the destination QPN. */
static uint32_t psn_tag(const rtel__flowtab *ft, uint32_t obs,
                        const uint8_t *src, const uint8_t *dst) {
  rtel__qkey k;
  mkkey(&k, obs, src, dst, 0);
  return rtel__qkey_hash(&ft->flows, &k) | 1u;
}

static rtel__psn_slot *psn_slot(const rtel__flowtab *ft, uint32_t tag,
                                uint32_t psn) {
  uint32_t h = (tag ^ (psn * 0x9E3779B1u)) * 0x85EBCA6Bu;
  return &ft->psn_index[(h ^ (h >> 15)) & ft->psn_mask];
}

/* ------------------------------------------------------------ control */

static void count_ctrl(flow *f, pair *held, uint16_t kind, uint8_t syn,
                       rtel_tstamp ts) {
  if (kind == K_CNP) {
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
  pair *p;
  flow *f;
  uint8_t syn = (hd->flags & RTEL_HD_F_AETH) ? hd->aeth_syndrome : 0;

  mkkey(&k, pi->obs, hd->src, hd->dst, hd->dqpn);
  p = pair_find(ft, &k);
  if (p && p->peer != RTEL_QPN_NONE) {
    mkkey(&k, pi->obs, hd->dst, hd->src, p->peer);
    f = flow_find(ft, &k);
    if (f == NULL && kind == K_CNP) {
      /* a QP that only answers READs: its data is a response flow */
      k.qpn |= KEY_RESP;
      f = flow_find(ft, &k);
    }
    if (f) {
      count_ctrl(f, NULL, kind, syn, pi->ts);
      if (kind == K_ACK) {
        f->becn += hd->becn; /* BECN comes back on ACKs and NAKs */
      }
    } else if (kind == K_CNP || RTEL_AETH_KIND(syn) != RTEL_AETH_ACK) {
      ft->env.stats->ctrl_unattributed++;
    }
    return;
  }
  /* Not paired yet: an ACK's PSN names a data packet of the flow. */
  if (kind == K_ACK && (hd->flags & RTEL_HD_F_AETH)) {
    uint32_t tag = psn_tag(ft, pi->obs, hd->dst, hd->src);
    rtel__psn_slot *sl = psn_slot(ft, tag, hd->psn);
    if (sl->tag == tag && sl->psn == hd->psn && sl->qpn != RTEL_QPN_NONE) {
      if (p == NULL) {
        p = pair_get(ft, &k);
      }
      if (p->cand != sl->qpn) {
        p->cand = sl->qpn;
        p->hits = 1;
        p->hit_psn = hd->psn;
      } else if (p->hit_psn != hd->psn) {
        p->hits++; /* a second, different PSN of the same flow */
        p->hit_psn = hd->psn;
      }
    }
  }
  if (kind == K_CNP || RTEL_AETH_KIND(syn) != RTEL_AETH_ACK) {
    if (p == NULL) {
      p = pair_get(ft, &k);
    }
    count_ctrl(NULL, p, kind, syn, pi->ts);
  }
  if (p && p->hits >= 2) {
    /* Two ACKs in a row named recent PSNs of the same flow. */
    pair *other;
    mkkey(&k, pi->obs, hd->dst, hd->src, p->cand);
    other = pair_find(ft, &k);
    if (other == NULL || other->peer == RTEL_QPN_NONE) {
      learn_pair(ft, pi->obs, hd->dst, hd->src, p->cand, hd->dqpn);
      ft->env.stats->pairs_psn++;
    } else {
      p->hits = 0; /* that flow is paired with another QP already */
    }
  }
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
  uint8_t op = (uint8_t)((cls >> O_SHIFT) & 7u);
  int rv;

  if (!retx) {
    if (cls & P_FIRST) {
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
             (cls & P_FIRST) && op == f->msg_op &&
             psn_diff(hd->psn, f->msg_first_psn) < 0) {
    /* the resent FIRST of a message whose original FIRST never passed
     * here: the message now starts where it really does (a FIRST of
     * another operation is a resend of an earlier message) */
    f->st &= (uint8_t)~ST_MSG_INC;
    f->msg_first_psn = hd->psn;
    f->msg_reth_len = (hd->flags & RTEL_HD_F_RETH) ? hd->reth_dmalen : 0;
    f->msg_retx_pkts++;
    f->msg_retx_bytes += hd->payload_len;
  } else if (!(f->st & ST_MSG) ||
             psn_diff(hd->psn, f->msg_first_psn) < 0) {
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
  if (cls & P_LAST) {
    return emit_msg(ft, f,
                    (f->st & ST_MSG_INC) ? RTEL_MSG_F_INCOMPLETE : 0u);
  }
  return 0;
}

static flow *flow_new(rtel__flowtab *ft, const rtel__qkey *k, uint32_t h,
                      const rtel_pkt_info *pi, const rtel_pkt_hd *hd,
                      int *prv) {
  rtel__qkey pk;
  flow *f;
  pair *p;

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
  pk = *k;
  pk.qpn &= PSN_MASK;
  p = pair_find(ft, &pk);
  f->peer_qpn = p ? p->peer : RTEL_QPN_NONE;
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
  fifo_unlink(ft, f);
  fifo_append(ft, f);
  return rv;
}

/* Is a jump to |psn| on a READ RESPONSE flow a loss? */
static int resp_gap(const flow *f, uint32_t psn) {
  unsigned i;
  if (f->st & ST_MSG) {
    return 1; /* inside a response, its PSNs are consecutive */
  }
  for (i = 0; i < f->rq_n; i++) {
    if (psn_diff(f->rq_psn[i], f->highest) > 0 &&
        psn_diff(f->rq_psn[i], psn) < 0) {
      return 1; /* the response to that request never passed here */
    }
  }
  return 0;
}

static int data_packet(rtel__flowtab *ft, const rtel_pkt_info *pi,
                       const rtel_pkt_hd *hd, uint16_t cls) {
  rtel__qkey k;
  uint32_t h;
  flow *f;
  int retx = 0, rv = 0, resp = ((cls >> O_SHIFT) & 7u) == RTEL_OP_READ_RESP;

  mkkey(&k, pi->obs, hd->src, hd->dst, hd->dqpn | (resp ? KEY_RESP : 0u));
  h = rtel__qkey_hash(&ft->flows, &k);
  f = (flow *)(void *)rtel__qtab_find(&ft->flows, &k, h);
  /* the caller may not have run the timers in time (a packet older than
   * the flow's last one never ends it) */
  if (f != NULL && pi->ts > f->last_ts && pi->ts - f->last_ts >= ft->idle) {
    if ((rv = end_flow(ft, f, RTEL_END_IDLE)) != 0) {
      return rv;
    }
    f = NULL;
  } else if (f != NULL && ft->active && pi->ts > f->first_ts &&
             pi->ts - f->first_ts >= ft->active) {
    if ((rv = restart_flow(ft, f, pi->ts)) != 0) {
      return rv;
    }
  }
  if (f == NULL) {
    f = flow_new(ft, &k, h, pi, hd, &rv);
    if (f == NULL) {
      return rv;
    }
  } else {
    int32_t d = psn_diff(hd->psn, f->highest);
    rtel__qtab_touch(&ft->flows, &f->q);
    if (f->packets == 0) {
      f->first_ts = f->last_ts = pi->ts; /* first packet since a restart */
    }
    if (d > 0) {
      if (d > 1 && (resp ? resp_gap(f, hd->psn) : !(f->st & ST_SPAN))) {
        uint32_t lo = (f->highest + 1) & PSN_MASK;
        uint32_t hi = (hd->psn - 1) & PSN_MASK;
        f->gaps++;
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
      f->highest = hd->psn;
      f->st &= (uint8_t)~ST_EPISODE;
    } else {
      retx = 1;
    }
  }
  if (retx && hd->psn == f->last_psn && pi->ts - f->last_ts < DUP_NS &&
      pi->ts >= f->last_ts) {
    /* the same packet again at once: a duplicate mirror copy, not a
     * resend - a retransmission by the PSN rule, but no loss event */
    f->retx_packets++;
    f->retx_bytes += hd->payload_len;
    retx = 2;
  } else if (retx) {
    if ((f->st & ST_EPISODE) && psn_diff(hd->psn, f->last_psn) > 1) {
      /* a jump inside a resend: those resent copies never passed here,
       * so the episode that resends them again is an upstream loss */
      uint32_t lo = (f->last_psn + 1) & PSN_MASK;
      uint32_t hi = (hd->psn - 1) & PSN_MASK;
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
    if (!(f->st & ST_EPISODE) || psn_diff(hd->psn, f->last_psn) <= 0) {
      /* a new retransmission episode: one loss event, located by whether
       * its first PSN ever passed here */
      int up = ((f->st & ST_GAP) && psn_diff(hd->psn, f->gap1_lo) >= 0 &&
                psn_diff(hd->psn, f->gap1_hi) <= 0) ||
               ((f->st & ST_GAP2) && psn_diff(hd->psn, f->gap2_lo) >= 0 &&
                psn_diff(hd->psn, f->gap2_hi) <= 0);
      if (up) {
        f->loss_up++;
      } else {
        f->loss_down++;
      }
      f->st = (uint8_t)((f->st & ~(ST_NAK | ST_EP_NAK | ST_GAP | ST_GAP2)) |
                        ST_EPISODE | ((f->st & ST_NAK) ? ST_EP_NAK : 0));
      f->ep_ts = pi->ts;
      f->ep_pkts = 0;
    }
    if (f->st & ST_EP_NAK) {
      f->retx_nak++;
    } else {
      f->retx_to++;
    }
    f->ep_pkts++;
    f->retx_packets++;
    f->retx_bytes += hd->payload_len;
  }
  f->st &= (uint8_t)~ST_SPAN;
  f->last_psn = hd->psn;
  if (pi->ts > f->last_ts) {
    f->last_ts = pi->ts;
  } else if (pi->ts < f->first_ts) {
    f->first_ts = pi->ts; /* out of order: FCT spans both */
  }
  f->packets++;
  f->bytes += hd->payload_len;
  f->ops |= (uint8_t)((cls >> O_SHIFT) & 7u);
  f->ecn_ce += hd->ecn == 3;
  f->fecn += hd->fecn;
  if (f->peer_qpn == RTEL_QPN_NONE && !resp) {
    uint32_t tag = psn_tag(ft, pi->obs, hd->src, hd->dst);
    rtel__psn_slot *sl = psn_slot(ft, tag, hd->psn);
    if (sl->tag == tag && sl->psn == hd->psn && sl->qpn != hd->dqpn) {
      /* two flows of this host pair used this PSN: it names neither */
      sl->qpn = RTEL_QPN_NONE;
    } else {
      sl->tag = tag;
      sl->psn = hd->psn;
      sl->qpn = hd->dqpn;
    }
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
  pair *p;
  mkkey(&k, pi->obs, hd->src, hd->dst, hd->dqpn);
  f = flow_find(ft, &k);
  if (f && psn_diff(hd->psn, f->highest) > 0) {
    f->highest = hd->psn;
    f->last_psn = hd->psn;
    f->st |= ST_SPAN;
  }
  /* a READ REQUEST announces the first PSN of its responses, which come
   * back to the requester's peer QP */
  if (hd->opcode != 0x0C && hd->opcode != 0xAC) {
    return;
  }
  if ((p = pair_find(ft, &k)) == NULL || p->peer == RTEL_QPN_NONE) {
    return;
  }
  mkkey(&k, pi->obs, hd->dst, hd->src, p->peer | KEY_RESP);
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
  cls = op_class[hd->opcode];
  if (rtel__likely(cls & K_DATA)) {
    return data_packet(ft, pi, hd, cls);
  }
  if (cls & (K_ACK | K_CNP)) {
    ctrl_packet(ft, pi, hd, cls);
  } else if (cls & K_REQ) {
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
    rtel_tstamp a = flow_at(ft, ft->fifo_head)->first_ts + ft->active;
    if (a < t) {
      t = a;
    }
  }
  return t;
}

int rtel__flow_expire(rtel__flowtab *ft, rtel_tstamp now) {
  uint32_t used;
  int rv;

  if (ft->flags & RTEL_FLOW_DISABLE) {
    return 0;
  }
again:
  while (ft->flows.used) {
    flow *f = (flow *)(void *)rtel__qtab_oldest(&ft->flows);
    if (now < f->last_ts || now - f->last_ts < ft->idle) {
      break;
    }
    if ((rv = end_flow(ft, f, RTEL_END_IDLE)) != 0) {
      return rv;
    }
  }
  used = ft->flows.used;
  while (ft->active && ft->flows.used) {
    flow *f = flow_at(ft, ft->fifo_head);
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
  if (ft->flows.used != used) {
    /* a flow ended silently: the least recently active one may be
     * another now, and idle (timestamps out of order keep the LRU order
     * from being that of last_ts) */
    goto again;
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
  for (i = ft->flows.lru_head; i != RTEL__NIL;) {
    flow *f = flow_at(ft, i);
    i = f->q.next;
    if (!rtel__sched_port_measured(sched, f->port) &&
        (rv = end_flow(ft, f, RTEL_END_TRUNCATED)) != 0) {
      return rv;
    }
  }
  return 0;
}
