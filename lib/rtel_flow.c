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
 * Messages (rtel_msg_record(3)): a message is every data packet of its
 * flow whose PSN lies in its range, resends included. It stays open (in
 * the flow entry's own slot if that is free, else in a slab of
 * rtel_settings.max_open_msgs entries shared by all flows; each flow's
 * open ones a list in PSN order) until an ACK at or past its last
 * PSN, or a sequence-error / RNR NAK after it (once the flow is paired),
 * or the settle rule (the flow's highest PSN msg_settle_psns past its end,
 * msg_settle_ns after its last packet; checked when the flow's packets
 * pass), or the end of its flow. Bounds: max_flow_msgs open per flow (the
 * flow's oldest goes), and max_open_msgs open in all: then the oldest open
 * message of the least recently active flow with one goes (mflows); both
 * deliver it with RTEL_END_OVERFLOW and count rtel_ctx_stats.msgs_overflow.
 *
 * Memory: the flow entry (struct flow, with its own message slot) is
 * rtel__flow_entry_size() bytes; with the bucket array (2 x 4 bytes per
 * entry, rounded up to a power of two) that is the per-flow cost; the slab
 * of open messages is max_open_msgs x rtel__flow_msg_size() bytes (at most
 * max_open_msgs are open, so it never runs out while the flows' own slots
 * are taken). Nothing is allocated after setup.
 */
#include "rtel_flow.h"

#include "rtel_opcode.h"
#include "rtel_psn.h"

/* ------------------------------------------------------------ entries */

/* flow.st bits */
#define ST_EPISODE 0x01u /* inside a retransmission episode */
#define ST_NAK 0x02u     /* a NAK arrived since the last episode began */
#define ST_RNR 0x04u     /* ... and the latest one was an RNR NAK */
#define ST_EP_NAK 0x08u  /* the current episode was caused by a NAK */
#define ST_EP_RNR 0x10u  /* ... an RNR NAK */
#define ST_SPAN 0x20u    /* previous packet was a multi-PSN request */
#define ST_DONE 0x40u    /* done_psn is valid */
#define ST_PAIRED 0x80u  /* peer_qpn is known (set_peer()) */
#define ST_EMB 0x100u    /* its own message slot (emb) holds an open one */

/* Flow keys of READ RESPONSE data carry this bit above the 24-bit QPN:
 * responses use the requester's PSN space, not the sender's own, so they
 * are a flow of their own even on the same QP. */
#define KEY_RESP 0x01000000u
#define QPN_MASK 0x00ffffffu /* the QPN of a key */
/* The hash of a READ RESPONSE flow's key is that of the key without
 * KEY_RESP (the packet's own key, which the hub hashes once per packet)
 * XOR this (odd: never the bucket of that key): flow_hash(). */
#define RESP_SALT 0x9E3779B9u

/* The hash of a flow's key from the hash |pk| of its packets' key
 * (|resp|: a READ RESPONSE flow; see RESP_SALT). */
static rtel__inline uint32_t flow_hash_of(uint32_t pk, int resp) {
  return pk ^ (resp ? RESP_SALT : 0u);
}

/* The hash of flow key |k|. */
static uint32_t flow_hash(const rtel__flowtab *ft, const rtel__qkey *k) {
  return flow_hash_of(rtel__qkey_hash_parts(ft->flows.seed, k->obs, k->src,
                                            k->dst, k->qpn & ~KEY_RESP),
                      (k->qpn & KEY_RESP) != 0);
}

/* The LRU lists (the table's, least recently active first, for the idle
 * timeout and eviction; mflows) are approximate: a flow moves to their
 * recent end at its first packet in each tick of 2^tick_shift ns (the
 * largest power of two <= idle / 64), not at every packet. A move writes
 * the entries on either side of the flow's place, two random lines per
 * list in traffic whose flows interleave at random: at every packet that
 * was the flow path's largest cost with many flows (bench_flow -R).
 * The lists stay in the order of each flow's latest move, and a flow's
 * latest packet is in the tick of its latest move, so a flow ahead of
 * another in a list had its latest packet less than a tick after the
 * other's (with timestamps in order; a packet older than its flow's
 * latest does not move it): a flow ends idle (the expiry of the least
 * recent one) less than one tick (1/64 of the timeout) late, an evicted flow
 * is the least recently active one to within a tick. The stamp is 8 bits: it
 * cannot come round to the same value (256 ticks are at least twice the
 * timeout) between packets of a flow that is not idle. */
static rtel__inline uint8_t lru_tick(const rtel__flowtab *ft, rtel_tstamp ts) {
  return (uint8_t)(ts >> ft->tick_shift);
}

/* A packet with the PSN of the flow's previous packet, seen less than this
 * after it, is a duplicate copy (a mirror's), not a retransmission: a
 * sender's resend follows a NAK or a timeout, microseconds later. */
#define DUP_NS 1000u

/* PSN gaps (PSNs that never passed here since they were last sent) kept
 * per flow; with more open at once the oldest is forgotten. */
#define NGAPS 4u

/* Per-frame bytes on an Ethernet link besides the frame without FCS:
 * FCS 4, preamble and SFD 8, inter-frame gap 12. */
#define ETH_OVERHEAD 24u

/* rtel__omsg.fl bits */
#define M_FIRST 0x01u /* its FIRST (or ONLY) packet was seen */
#define M_LAST 0x02u  /* its LAST (or ONLY) packet was seen */
#define M_END 0x04u   /* end_psn is known: LAST seen, or a later message */
#define M_LB 0x08u    /* lost_up is a lower bound */
#define M_L1 0x10u    /* line 1 was written: msg_l1() */

/* An open message: one whose record may still change. In its flow's own
 * slot (flow.emb) or in the slab of the flow table; a flow's open
 * messages are a list in PSN order (head: oldest), through next, which
 * also links the slab's free entries. */
typedef struct rtel__omsg {
  /* line 0: what a data packet of the message reads or writes */
  rtel_tstamp first_ts;
  rtel_tstamp last_ts;
  uint64_t bytes;
  uint64_t wire; /* bytes on the wire of new data after its first packet */
  uint32_t next;
  uint32_t first_psn; /* lowest PSN seen */
  uint32_t last_psn;  /* highest PSN seen */
  uint32_t end_psn;   /* the last PSN of its range, with M_END */
  uint32_t packets;
  uint32_t reth_len;
  uint8_t op;
  uint8_t fl; /* M_* */
  uint16_t pad;
  /* line 1: resends, control packets, ECN, losses; zero until msg_l1()
   * first writes it (M_L1), so that a message without any (the common
   * case) never takes this line into the cache */
  uint64_t retx_bytes;
  uint32_t retx_pkts;
  uint32_t naks_seq;
  uint32_t naks_rnr;
  uint32_t naks_fatal;
  uint32_t cnps;
  uint32_t ecn_ce;
  uint32_t loss_up;
  uint32_t loss_down;
  uint32_t loss_nak;
  uint32_t loss_rnr;
  uint32_t loss_to;
  uint32_t lost_up;
} rtel__omsg;

RTEL__STATIC_ASSERT(offsetof(rtel__omsg, pad) + 2 <= 64, "message line 0");
RTEL__STATIC_ASSERT(offsetof(rtel__omsg, retx_bytes) == 64,
                    "message line 1 begins");
RTEL__STATIC_ASSERT(sizeof(rtel__omsg) <= 128, "message: two lines");

/* The slab's stride: two whole lines (the slab is 64-byte aligned). */
#define OMSG_STRIDE 128u

typedef struct flow {
  /* line 0: the table's header (key, bucket chain, LRU) */
  rtel__qent q;
  uint32_t highest;
  /* line 1: the rest of what a data packet of new data reads or writes */
  rtel_tstamp last_ts;
  uint64_t bytes;
  uint64_t packets;
  uint64_t wire; /* bytes on the wire of new data after the first packet */
  uint32_t last_psn;
  uint32_t messages; /* begun in this part of the flow (msg_new()) */
  uint32_t msg_head; /* open messages, oldest first */
  uint32_t msg_tail;
  rtel__link mlru; /* on ft->mflows while it has open messages */
  uint16_t st;
  uint16_t msg_n;
  uint8_t ops;
  uint8_t fl; /* RTEL_FLOW_F_* */
  uint8_t ngaps;
  uint8_t tick; /* lru_tick() of its latest move in the LRU lists */
  /* lines 2-3: the flow's own slot of an open message (ST_EMB), next to
   * the lines above, so that the data packets and the ACKs of a flow with
   * one message open at a time (the common case) find it in the lines
   * they fetch anyway, not in a third place: msg_at() */
  rtel__omsg emb;
  /* from the end of line 3 (the message is 120 bytes) to line 6:
   * retransmissions, control packets, ECN, message boundaries, attributes
   * and bookkeeping */
  rtel_tstamp first_ts;
  uint64_t retx_bytes;
  uint64_t retx_packets;
  rtel_tstamp ep_ts;      /* when the current episode began */
  uint32_t gap_lo[NGAPS]; /* open PSN gaps, oldest first */
  uint32_t gap_hi[NGAPS];
  uint32_t ecn_ce;
  uint32_t fecn;
  uint32_t done_psn; /* last PSN of the latest message delivered */
  uint32_t naks_seq;
  uint32_t naks_rnr;
  uint32_t naks_fatal;
  uint32_t cnps;
  uint32_t becn;
  uint32_t gaps;
  uint32_t loss_up;
  uint32_t loss_down;
  uint32_t lost_up;
  uint32_t orphans;
  uint32_t ep_pkts; /* retransmissions in the current episode */
  uint32_t retx_nak;
  uint32_t retx_rnr;
  uint32_t retx_to;
  uint32_t peer_qpn; /* RTEL_QPN_NONE until paired: ST_PAIRED */
  rtel__link fifo;   /* creation order, for the active timeout */
  uint32_t port;
  uint16_t sport;
  uint16_t vlan;
  uint8_t dscp;
  uint8_t rq_n;
  uint8_t rq_next;
  uint8_t pad;
  /* READ RESPONSE flows: PSNs of the latest READ REQUESTs seen */
  uint32_t rq_psn[4];
} flow;

/* The table's stride: whole cache lines, so that with the table's 64-byte
 * aligned array every entry has lines 0 and 1 above to itself. */
#define FLOW_STRIDE ((sizeof(flow) + 63u) & ~(size_t)63u)

RTEL__STATIC_ASSERT(offsetof(flow, highest) + 4 <= 64, "flow line 0");
RTEL__STATIC_ASSERT(offsetof(flow, last_ts) == 64, "flow line 1 begins");
RTEL__STATIC_ASSERT(offsetof(flow, tick) < 128, "flow line 1 ends");
RTEL__STATIC_ASSERT(offsetof(flow, emb) == 128, "own message on line 2");

size_t rtel__flow_entry_size(void) { return FLOW_STRIDE; }

size_t rtel__flow_msg_size(void) { return OMSG_STRIDE; }

/* Entry |i| of the slab of open messages. */
static rtel__omsg *slab_at(const rtel__flowtab *ft, uint32_t i) {
  return (rtel__omsg *)(void *)((uint8_t *)ft->msgs + (size_t)i * OMSG_STRIDE);
}

/* Open message |i| of flow |f| (on its list): below msg_cap an entry of the
 * slab, else the flow's own slot (msg_cap + the flow's index, which only
 * |f|'s list holds). */
static rtel__omsg *msg_at(const rtel__flowtab *ft, const flow *f, uint32_t i) {
  if (i >= ft->msg_cap) {
    return (rtel__omsg *)(uintptr_t)&f->emb;
  }
  return slab_at(ft, i);
}

/* |o| with its line 1 (resends, control packets, ECN, losses) ready to
 * be written: zeroed at its first write. */
static rtel__omsg *msg_l1(rtel__omsg *o) {
  if (!(o->fl & M_L1)) {
    memset((uint8_t *)o + offsetof(rtel__omsg, retx_bytes), 0,
           sizeof(*o) - offsetof(rtel__omsg, retx_bytes));
    o->fl |= M_L1;
  }
  return o;
}

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
  /* the LRU tick: the largest power of two of ns <= idle / 64 */
  while (ft->tick_shift < 63 && (ft->idle >> 6 >> (ft->tick_shift + 1)) != 0) {
    ft->tick_shift++;
  }
  ft->msg_cap = s->max_open_msgs ? s->max_open_msgs : 2 * nflows;
  ft->msg_per_flow = s->max_flow_msgs ? s->max_flow_msgs : 64;
  ft->settle_psns = s->msg_settle_psns ? s->msg_settle_psns : 128;
  ft->settle_ns = s->msg_settle_ns ? s->msg_settle_ns : 10000000u;
  ft->msg_free = RTEL__NIL;
  if (ft->flags & RTEL_FLOW_DISABLE) {
    return 0;
  }
  if ((rv = rtel__qtab_init(&ft->flows, nflows, FLOW_STRIDE, s->hash_seed,
                            ft->env.mem)) != 0) {
    rtel__flow_free(ft);
    return rv;
  }
  /* 64-byte aligned inside (rtel_mem promises no alignment) */
  if ((uint64_t)ft->msg_cap * OMSG_STRIDE > (uint64_t)(SIZE_MAX - 63u) ||
      (uint64_t)ft->msg_cap + nflows >= RTEL__NIL) {
    rtel__flow_free(ft);
    return RTEL_ERR_NOMEM;
  }
  ft->msg_alloc = ft->env.mem->malloc((size_t)ft->msg_cap * OMSG_STRIDE + 63u,
                                      ft->env.mem->user_data);
  if (ft->msg_alloc == NULL) {
    rtel__flow_free(ft);
    return RTEL_ERR_NOMEM;
  }
  ft->msgs = (struct rtel__omsg *)rtel__align64(ft->msg_alloc);
  ft->msg_fresh = 0; /* entries are taken in order, the slab's pages when
                       first needed */
  rtel__list_init(&ft->fifo);
  rtel__list_init(&ft->mflows);
  return 0;
}

void rtel__flow_free(rtel__flowtab *ft) {
  if (ft->env.mem == NULL) {
    return; /* never initialised */
  }
  if (ft->msg_alloc) {
    ft->env.mem->free(ft->msg_alloc, ft->env.mem->user_data);
    ft->msg_alloc = NULL;
    ft->msgs = NULL;
  }
  rtel__qtab_free(&ft->flows, ft->env.mem);
}

/* ------------------------------------------------------------ records */

/* The peer QPN of |f| is |qpn| (RTEL_QPN_NONE: not known). The data path
 * tests ST_PAIRED, on the line it writes anyway, not peer_qpn. */
static void set_peer(flow *f, uint32_t qpn) {
  f->peer_qpn = qpn;
  if (qpn != RTEL_QPN_NONE) {
    f->st |= ST_PAIRED;
  } else {
    f->st &= (uint16_t)~ST_PAIRED;
  }
}

static uint32_t flow_flags(const flow *f) {
  return f->fl | ((f->st & ST_PAIRED) ? RTEL_FLOW_F_PAIRED : 0u) |
         (f->q.key.qpn & KEY_RESP ? RTEL_FLOW_F_RESPONSE : 0u);
}

/* Bits per second of |bytes| over |ns|. */
static uint64_t bps(uint64_t bytes, rtel_tstamp ns) {
  return ns ? (uint64_t)((double)bytes * 8e9 / (double)ns) : 0;
}

/* Flows with open messages, least recently active first (to within a
 * tick: lru_tick()): where a message is taken back when max_open_msgs
 * are open. */
static rtel__links mlru_links(const rtel__flowtab *ft) {
  rtel__links lk = {ft->flows.ents + offsetof(flow, mlru), ft->flows.stride};
  return lk;
}

static uint32_t flow_idx(const rtel__flowtab *ft, const flow *f) {
  return rtel__qtab_idx(&ft->flows, &f->q);
}

/* Delivers the oldest open message of |f| (ending for |end|) and frees
 * its place (the flow's own slot or a slab entry). */
static int deliver_head(rtel__flowtab *ft, flow *f, uint32_t end) {
  uint32_t i = f->msg_head;
  rtel__omsg *o = msg_at(ft, f, i);
  rtel_msg_record m;

  f->msg_head = o->next;
  if (f->msg_head == RTEL__NIL) {
    f->msg_tail = RTEL__NIL;
  }
  if (--f->msg_n == 0) {
    rtel__list_unlink(&ft->mflows, mlru_links(ft), flow_idx(ft, f));
  }
  f->done_psn = (o->fl & M_END) ? o->end_psn : o->last_psn;
  f->st |= ST_DONE;
  ft->msg_open--;
  /* (a record's error leaves the context failed, never used again: a
   * flow removed then with messages still open leaves them counted) */
  if (i >= ft->msg_cap) {
    f->st &= (uint16_t)~ST_EMB; /* (o stays readable until it is reused) */
  } else {
    o->next = ft->msg_free;
    ft->msg_free = i;
  }
  if (!(ft->env.sink->want & RTEL__WANT_MSG)) {
    return ft->env.sink->msg(ft->env.sink->hub, NULL); /* counted only */
  }
  memset(&m, 0, sizeof(m));
  m.obs = f->q.key.obs;
  m.flags = (flow_flags(f) & ~RTEL_FLOW_F_LOST_LB) |
            ((o->fl & M_LB) ? RTEL_FLOW_F_LOST_LB : 0u) |
            ((o->fl & (M_FIRST | M_LAST)) != (M_FIRST | M_LAST)
                 ? RTEL_MSG_F_INCOMPLETE
                 : 0u);
  memcpy(m.src, f->q.key.src, 16);
  memcpy(m.dst, f->q.key.dst, 16);
  m.dqpn = f->q.key.qpn & QPN_MASK;
  m.peer_qpn = f->peer_qpn;
  m.op = o->op;
  m.first_psn = o->first_psn;
  m.last_psn = o->last_psn;
  m.reth_len = o->reth_len;
  m.first_ts = o->first_ts;
  m.last_ts = o->last_ts;
  m.fct = o->last_ts - o->first_ts;
  m.bytes = o->bytes;
  m.packets = o->packets;
  m.port = f->port;
  m.end = end;
  if (o->fl & M_L1) { /* (else all 0, as m) */
    m.retx_packets = o->retx_pkts;
    m.retx_bytes = o->retx_bytes;
    m.naks_seq = o->naks_seq;
    m.naks_rnr = o->naks_rnr;
    m.naks_fatal = o->naks_fatal;
    m.cnps = o->cnps;
    m.ecn_ce = o->ecn_ce;
    m.losses_upstream = o->loss_up;
    m.losses_downstream = o->loss_down;
    m.losses_nak = o->loss_nak;
    m.losses_rnr = o->loss_rnr;
    m.losses_timeout = o->loss_to;
    m.lost_upstream = o->lost_up;
  }
  m.fet_bps = bps(o->wire, m.fct);
  return ft->env.sink->msg(ft->env.sink->hub, &m);
}

/* Delivers every open message of |f| (its flow ends for |end|). */
static int deliver_all(rtel__flowtab *ft, flow *f, uint32_t end) {
  int rv;
  while (f->msg_head != RTEL__NIL) {
    if ((rv = deliver_head(ft, f, end)) != 0) {
      return rv;
    }
  }
  return 0;
}

static void fifo_unlink(rtel__flowtab *ft, flow *f);
static flow *flow_at(const rtel__flowtab *ft, uint32_t i);

/* Reports |f| (ending for |end|); an empty flow (restarted by the active
 * timeout, no data since) reports nothing. Its open messages are delivered
 * first with the same end, except at an active restart, across which they
 * go on (a message counts in the record of the part where it began). */
static int report_flow(rtel__flowtab *ft, flow *f, uint32_t end) {
  rtel_flow_record r;
  int rv = 0;

  if (end != RTEL_END_ACTIVE) {
    rv = deliver_all(ft, f, end);
  }
  if (f->packets == 0 || rv != 0) {
    return rv;
  }
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
  r.fet_bps = bps(f->wire, r.fct);
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
  r.retx_after_rnr = f->retx_rnr;
  r.lost_upstream = f->lost_up;
  r.orphan_packets = f->orphans;
  r.messages = f->messages;
  r.fnr = r.packets ? (double)r.naks_seq / (double)r.packets : 0.0;
  r.retx_ratio = r.packets ? (double)r.retx_packets / (double)r.packets : 0.0;
  r.port = f->port;
  return ft->env.sink->flow(ft->env.sink->hub, &r);
}

/* After |f| left the table: its key cleared (a pairing entry's hint to it
 * then fails), the count of active flows updated. */
static void flow_gone(rtel__flowtab *ft, flow *f) {
  f->q.key.qpn = UINT32_MAX;
  ft->env.stats->flows_active = ft->flows.used;
}

/* Reports |f| and removes it from the table. */
static int end_flow(rtel__flowtab *ft, flow *f, uint32_t end) {
  int rv = report_flow(ft, f, end);
  fifo_unlink(ft, f);
  rtel__qtab_remove(&ft->flows, &f->q);
  flow_gone(ft, f);
  return rv;
}

/* ------------------------------------------------------------ messages */

/* The open message that new data goes on (its end is not known yet). */
static rtel__omsg *msg_cur(const rtel__flowtab *ft, const flow *f) {
  rtel__omsg *o;
  if (f->msg_tail == RTEL__NIL) {
    return NULL;
  }
  o = msg_at(ft, f, f->msg_tail);
  return (o->fl & M_END) ? NULL : o;
}

/* The open message of |f| whose PSN range holds |psn|, or NULL; *prev is
 * the index of the open message before where it would be (RTEL__NIL: at
 * the head). A message whose FIRST was not seen reaches down to the end of
 * the message before it; |last| says the PSN is that of a LAST or ONLY
 * packet, which cannot begin a message below another one. */
static rtel__omsg *msg_find(const rtel__flowtab *ft, const flow *f,
                            uint32_t psn, int last, uint32_t *prev) {
  uint32_t i, lower = f->done_psn;
  int has_lower = (f->st & ST_DONE) != 0;

  *prev = RTEL__NIL;
  for (i = f->msg_head; i != RTEL__NIL;) {
    rtel__omsg *o = msg_at(ft, f, i);
    if (!rtel__psn_before(psn, o->first_psn)) {
      if (!(o->fl & M_END) || !rtel__psn_after(psn, o->end_psn)) {
        return o;
      }
    } else if (!(o->fl & M_FIRST) && !last &&
               (!has_lower || rtel__psn_after(psn, lower))) {
      return o;
    } else {
      return NULL; /* in no open message: before this one */
    }
    lower = (o->fl & M_END) ? o->end_psn : o->last_psn;
    has_lower = 1;
    *prev = i;
    i = o->next;
  }
  return NULL;
}

/* Delivers early (RTEL_END_OVERFLOW, counted) the oldest open message of
 * |g|, for a new message of |f| that would go after |*prev|. */
static int overflow(rtel__flowtab *ft, flow *g, const flow *f,
                    uint32_t *prev) {
  if (g == f && *prev == f->msg_head) {
    *prev = RTEL__NIL; /* the one it followed goes */
  }
  ft->env.stats->msgs_overflow++;
  return deliver_head(ft, g, RTEL_END_OVERFLOW);
}

/* A new open message for the data packet |hd| of |f|, inserted after the
 * open message |prev| (RTEL__NIL: at the head); NULL only with the error
 * of a record delivered on the way. A bound hit delivers an open message
 * early: the flow's oldest when the flow has max_flow_msgs open, else,
 * when max_open_msgs are open, the oldest of the least recently active
 * flow with open messages (maybe |f|). It takes the flow's own slot if
 * that is free, else a slab entry. */
static rtel__omsg *msg_new(rtel__flowtab *ft, flow *f, uint32_t prev,
                           const rtel_pkt_info *pi, const rtel_pkt_hd *hd,
                           uint16_t cls, int *prv) {
  uint32_t i;
  rtel__omsg *o;

  *prv = 0;
  while (f->msg_n >= ft->msg_per_flow) {
    if ((*prv = overflow(ft, f, f, &prev)) != 0) {
      return NULL;
    }
  }
  if (ft->msg_open == ft->msg_cap &&
      (*prv = overflow(ft, flow_at(ft, ft->mflows.head), f, &prev)) != 0) {
    return NULL;
  }
  ft->msg_open++;
  if (!(f->st & ST_EMB)) {
    /* the flow's own slot first: on the lines its packets fetch */
    f->st |= ST_EMB;
    i = ft->msg_cap + flow_idx(ft, f);
    o = &f->emb;
  } else if (ft->msg_free != RTEL__NIL) {
    i = ft->msg_free;
    o = slab_at(ft, i);
    ft->msg_free = o->next;
  } else {
    i = ft->msg_fresh++;
    o = slab_at(ft, i);
  }
  memset(o, 0, offsetof(rtel__omsg, retx_bytes)); /* line 1: msg_l1() */
  /* counted in the part of the flow where it begins, which has a data
   * packet and so a record, whenever the message ends */
  f->messages++;
  o->first_ts = o->last_ts = pi->ts;
  o->first_psn = o->last_psn = hd->psn;
  o->op = rtel__op_class_op(cls);
  if (prev == RTEL__NIL) {
    o->next = f->msg_head;
    f->msg_head = i;
  } else {
    o->next = msg_at(ft, f, prev)->next;
    msg_at(ft, f, prev)->next = i;
  }
  if (o->next == RTEL__NIL) {
    f->msg_tail = i;
  } else if (!(cls & RTEL__P_LAST)) {
    /* between two open messages: it ends before the next one */
    o->fl |= M_END;
    o->end_psn = rtel__psn_add(msg_at(ft, f, o->next)->first_psn, -1);
  }
  if (f->msg_n++ == 0) {
    rtel__list_append(&ft->mflows, mlru_links(ft), flow_idx(ft, f));
  }
  return o;
}

/* The open message of the new data packet |hd|: the one under way, or a
 * new one (at a FIRST or ONLY packet, or when none is under way). */
static rtel__omsg *msg_of_new(rtel__flowtab *ft, flow *f,
                              const rtel_pkt_info *pi, const rtel_pkt_hd *hd,
                              uint16_t cls, int *prv) {
  rtel__omsg *o = msg_cur(ft, f);
  *prv = 0;
  if (o != NULL && !(cls & RTEL__P_FIRST)) {
    return o;
  }
  if (o != NULL) {
    /* its LAST has not passed here (yet): its range ends before this */
    o->fl |= M_END;
    o->end_psn = rtel__psn_add(hd->psn, -1);
  }
  return msg_new(ft, f, f->msg_tail, pi, hd, cls, prv);
}

/* The open message of the retransmitted packet |hd|: the one whose range
 * holds it, a new one if it falls between open messages or before them
 * and after the latest delivered one (a message all of whose packets were
 * lost before this point), or NULL: an orphan (its message was delivered)
 * or untracked. */
static rtel__omsg *msg_of_resend(rtel__flowtab *ft, flow *f,
                                 const rtel_pkt_info *pi,
                                 const rtel_pkt_hd *hd, uint16_t cls,
                                 int *prv) {
  uint32_t prev;
  rtel__omsg *o = msg_find(ft, f, hd->psn, (cls & RTEL__P_LAST) != 0, &prev);
  *prv = 0;
  if (o != NULL) {
    return o;
  }
  if ((f->st & ST_DONE) && !rtel__psn_after(hd->psn, f->done_psn)) {
    return NULL; /* its message was delivered */
  }
  if (prev != RTEL__NIL) {
    rtel__omsg *p = msg_at(ft, f, prev);
    if (!(p->fl & M_END) || !rtel__psn_after(hd->psn, p->end_psn)) {
      return NULL; /* cannot be */
    }
  }
  return msg_new(ft, f, prev, pi, hd, cls, prv);
}

/* A data packet's share of its open message |o| (its time |ts|, PSN
 * |psn|, payload |plen| bytes, ECN |ecn|, class |cls|; |retx| if a
 * retransmission); |wire| is its bytes on the wire if it counts in the
 * message's FET (new data, not its first packet), else 0. A FIRST packet's
 * own part is msg_first()'s. */
static rtel__inline void msg_count(rtel__omsg *o, rtel_tstamp ts, uint32_t psn,
                                   uint32_t plen, uint8_t ecn, uint16_t cls,
                                   int retx, uint32_t wire) {
  if (o->packets == 0) {
    wire = 0; /* its first packet: n packets span n - 1 gaps */
  }
  o->packets++;
  o->bytes += plen;
  if (retx) {
    msg_l1(o);
    o->retx_pkts++;
    o->retx_bytes += plen;
  }
  o->wire += wire;
  if (rtel__unlikely(ecn == 3)) {
    msg_l1(o)->ecn_ce++;
  }
  if (ts > o->last_ts) {
    o->last_ts = ts;
  } else if (ts < o->first_ts) {
    o->first_ts = ts;
  }
  if (rtel__psn_after(psn, o->last_psn)) {
    o->last_psn = psn;
  } else if (rtel__psn_before(psn, o->first_psn)) {
    o->first_psn = psn; /* a resend of what never passed here */
  }
  if (cls & RTEL__P_LAST) {
    o->fl |= M_LAST | M_END;
    o->end_psn = psn;
  }
}

/* A FIRST (or ONLY) data packet |hd| of class |cls| in its open message
 * |o|: the message's start, with its RETH length. A FIRST of another
 * operation is not this message's start (a resend of an earlier message
 * that never passed here, fallen in this one's range): it does not give
 * the message a RETH length. */
static rtel__inline void msg_first(rtel__omsg *o, const rtel_pkt_hd *hd,
                                   uint16_t cls) {
  if ((cls & RTEL__P_FIRST) && !(o->fl & M_FIRST) &&
      rtel__op_class_op(cls) == o->op) {
    o->fl |= M_FIRST;
    o->reth_len = (hd->flags & RTEL_HD_F_RETH) ? hd->reth_dmalen : 0;
  }
}

/* Delivers the open messages of |f| that an ACK of every PSN up to |psn|
 * covers. */
static int msg_acked(rtel__flowtab *ft, flow *f, uint32_t psn) {
  int rv;
  while (f->msg_head != RTEL__NIL) {
    const rtel__omsg *o = msg_at(ft, f, f->msg_head);
    if (!(o->fl & M_END) || rtel__psn_after(o->end_psn, psn)) {
      break;
    }
    if ((rv = deliver_head(ft, f, RTEL_END_ACKED)) != 0) {
      return rv;
    }
  }
  return 0;
}

/* Delivers the open messages of |f| that settled by |now|: the flow's data
 * is settle_psns past their end, settle_ns after their last packet. */
/* Whether the flow's oldest open message has settled. */
static rtel__inline int msg_settled(const rtel__flowtab *ft, const flow *f,
                                    rtel_tstamp now) {
  const rtel__omsg *o;
  if (f->msg_head == RTEL__NIL) {
    return 0;
  }
  o = msg_at(ft, f, f->msg_head);
  return (o->fl & M_END) &&
         rtel__psn_diff(f->highest, o->end_psn) >= (int32_t)ft->settle_psns &&
         now >= o->last_ts && now - o->last_ts >= ft->settle_ns;
}

static rtel__noinline int msg_settle_deliver(rtel__flowtab *ft, flow *f,
                                             rtel_tstamp now) {
  int rv;
  do {
    if ((rv = deliver_head(ft, f, RTEL_END_SETTLED)) != 0) {
      return rv;
    }
  } while (msg_settled(ft, f, now));
  return 0;
}

/* Delivers the flow's settled messages, oldest first (the test inline:
 * it runs for every data packet). */
static rtel__inline int msg_settle(rtel__flowtab *ft, flow *f,
                                   rtel_tstamp now) {
  return msg_settled(ft, f, now) ? msg_settle_deliver(ft, f, now) : 0;
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
  uint32_t h = flow_hash(ft, k);
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
    set_peer(f, peer);
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
    /* the kind of the latest held NAK is not kept: a sequence error */
    if ((f->st & ST_EPISODE) && h->nak_ts <= f->ep_ts &&
        !(f->st & ST_EP_NAK)) {
      /* the held NAK came before the episode under way: it caused it */
      f->retx_to -= f->ep_pkts;
      f->retx_nak += f->ep_pkts;
      f->st |= ST_EP_NAK;
    } else if (!(f->st & ST_EPISODE) || h->nak_ts > f->ep_ts) {
      f->st = (uint16_t)((f->st | ST_NAK) & ~ST_RNR);
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
    set_peer(f, key->qpn);
  }
  if ((f = flow_find(ft, key)) != NULL) {
    set_peer(f, peer);
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
      f->st |= ST_NAK | ST_RNR;
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
        f->st = (uint16_t)((f->st | ST_NAK) & ~ST_RNR);
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

static void gaps_acked(flow *f, uint32_t psn);

/* What an ACK/NAK or CNP of |f| does to its open messages: a CNP counts
 * for each; a NAK for the one holding its PSN; an ACK delivers those it
 * covers, a sequence-error or RNR NAK those before its PSN. */
static int msg_ctrl(rtel__flowtab *ft, flow *f, const rtel_pkt_info *pi,
                    const rtel_pkt_hd *hd, uint16_t kind, uint8_t syn) {
  uint32_t i, prev, acked = hd->psn;
  rtel__omsg *o;
  int rv;

  if (kind == RTEL__K_CNP) {
    for (i = f->msg_head; i != RTEL__NIL; i = o->next) {
      o = msg_at(ft, f, i);
      msg_l1(o)->cnps++;
    }
    return msg_settle(ft, f, pi->ts);
  }
  switch (RTEL_AETH_KIND(syn)) {
  case RTEL_AETH_ACK:
    break;
  case RTEL_AETH_RNR_NAK:
    if ((o = msg_find(ft, f, hd->psn, 0, &prev)) != NULL) {
      msg_l1(o)->naks_rnr++;
    }
    acked = rtel__psn_add(hd->psn, -1);
    break;
  case RTEL_AETH_NAK:
    o = msg_find(ft, f, hd->psn, 0, &prev);
    if (RTEL_AETH_VALUE(syn) == RTEL_NAK_PSN_SEQ_ERROR) {
      if (o) {
        msg_l1(o)->naks_seq++;
      }
      acked = rtel__psn_add(hd->psn, -1);
      break;
    }
    if (o && RTEL_AETH_VALUE(syn) <= RTEL_NAK_INVALID_RD_REQUEST) {
      msg_l1(o)->naks_fatal++;
    }
    return msg_settle(ft, f, pi->ts);
  default:
    return msg_settle(ft, f, pi->ts);
  }
  gaps_acked(f, acked);
  if ((rv = msg_acked(ft, f, acked)) != 0) {
    return rv;
  }
  return msg_settle(ft, f, pi->ts);
}

/* An ACK/NAK or CNP travelling from the data receiver back to the sender:
 * (hd->src -> hd->dst, hd->dqpn) is the reverse of the flow. */
static int ctrl_packet(rtel__flowtab *ft, const rtel_pkt_info *pi,
                       const rtel_pkt_hd *hd, uint16_t kind,
                       const uint32_t *hint) {
  rtel__qkey k;
  rtel__pair *p;
  flow *f = NULL;
  uint8_t syn = (hd->flags & RTEL_HD_F_AETH) ? hd->aeth_syndrome : 0;

  rtel__qkey_set(&k, pi->obs, hd->src, hd->dst, hd->dqpn);
  p = hint ? rtel__pair_find_h(ft->pairs, &k, *hint)
           : rtel__pair_find(ft->pairs, &k);
  if (p && p->peer != RTEL_QPN_NONE) {
    rtel__qkey_set(&k, pi->obs, hd->dst, hd->src, p->peer);
    /* the flow the QP's ACKs were for last time, if it is still that one
     * (an entry ended and not reused has no valid key: end_flow()) */
    if (p->flow1 != 0 && p->flow1 <= ft->flows.cap &&
        rtel__qkey_eq(&flow_at(ft, p->flow1 - 1)->q.key, &k)) {
      f = flow_at(ft, p->flow1 - 1);
    } else if ((f = flow_find(ft, &k)) != NULL) {
      p->flow1 = flow_idx(ft, f) + 1;
    }
    if (f == NULL && kind == RTEL__K_CNP) {
      /* a QP that only answers READs: its data is a response flow */
      k.qpn |= KEY_RESP;
      f = flow_find(ft, &k);
    }
    if (f) {
      count_ctrl(f, NULL, kind, syn, pi->ts);
      /* BECN comes back on ACKs and NAKs (tested first: an unmarked ACK
       * leaves the entry's cold lines alone) */
      if (kind == RTEL__K_ACK && rtel__unlikely(hd->becn)) {
        f->becn++;
      }
      return msg_ctrl(ft, f, pi, hd, kind, syn);
    }
    if (kind == RTEL__K_CNP || RTEL_AETH_KIND(syn) != RTEL_AETH_ACK) {
      ft->env.stats->ctrl_unattributed++;
    }
    return 0;
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
  return 0;
}

/* ------------------------------------------------------------ data */

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
  f->msg_head = f->msg_tail = RTEL__NIL;
  f->tick = lru_tick(ft, pi->ts); /* (inserted at the recent end) */
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
  set_peer(f, rtel__pair_peer(ft->pairs, k->obs, k->src, k->dst,
                              k->qpn & QPN_MASK));
  return f;
}

/* Active timeout: the flow is reported and starts over empty, keeping
 * what it knows of the connection (PSNs, gaps, episode, pairing, open
 * messages), so that a resend after the restart is still a resend. */
static int restart_flow(rtel__flowtab *ft, flow *f, rtel_tstamp now) {
  int rv = report_flow(ft, f, RTEL_END_ACTIVE);
  f->first_ts = now; /* until the next data packet */
  f->bytes = f->retx_bytes = 0;
  f->packets = f->retx_packets = 0;
  f->naks_seq = f->naks_rnr = f->naks_fatal = f->cnps = 0;
  f->ecn_ce = f->fecn = f->becn = f->gaps = 0;
  f->loss_up = f->loss_down = f->retx_nak = f->retx_to = 0;
  f->retx_rnr = f->lost_up = f->orphans = 0;
  f->wire = 0;
  f->messages = 0;
  f->ep_pkts = 0;
  f->ops = 0;
  rtel__list_move_tail(&ft->fifo, fifo_links(ft),
                       rtel__qtab_idx(&ft->flows, &f->q));
  return rv;
}

/* Is a jump to |psn| on a READ RESPONSE flow a loss? */
static int resp_gap(const rtel__flowtab *ft, const flow *f, uint32_t psn) {
  unsigned i;
  if (msg_cur(ft, f) != NULL) {
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

/* A data packet of |f| at |ts| makes it the most recent flow of the table:
 * moved to the recent end of the LRU list at its first packet in a tick.
 * Returns 1 if it moved. (A packet older than the flow's latest leaves its
 * place alone: the latest packet stays in the tick of the latest move.) */
static rtel__inline int flow_touch(rtel__flowtab *ft, flow *f,
                                   rtel_tstamp ts) {
  if (ts >= f->last_ts && f->tick != lru_tick(ft, ts)) {
    f->tick = lru_tick(ft, ts);
    rtel__qtab_touch(&ft->flows, &f->q);
    return 1;
  }
  return 0;
}

/* What a data packet at |ts| finds of its flow |f|'s timeouts, as the
 * caller may not have run the timers in time (a packet older than the
 * flow's last one never ends it): DUE_IDLE, the flow ended idle before
 * it; DUE_ACTIVE, its active timeout passed; else 0. */
#define DUE_IDLE 1
#define DUE_ACTIVE 2
static rtel__inline int flow_due(const rtel__flowtab *ft, const flow *f,
                                 rtel_tstamp ts) {
  if (ts > f->last_ts && ts - f->last_ts >= ft->idle) {
    return DUE_IDLE;
  }
  if (ft->active && ts > f->first_ts && ts - f->first_ts >= ft->active) {
    return DUE_ACTIVE;
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
                       const rtel_pkt_hd *hd, int resp, const uint32_t *hint,
                       int *created, int *moved, int *prv) {
  uint32_t qpn = hd->dqpn | (resp ? KEY_RESP : 0u), h;
  flow *f;
  int due;

  *prv = 0;
  h = flow_hash_of(hint ? *hint
                        : rtel__qkey_hash_parts(ft->flows.seed, pi->obs,
                                                hd->src, hd->dst, hd->dqpn),
                   resp);
  f = (flow *)(void *)rtel__qtab_find_parts(&ft->flows, h, pi->obs, hd->src,
                                            hd->dst, qpn);
  due = f != NULL ? flow_due(ft, f, pi->ts) : 0;
  if (due == DUE_IDLE) {
    if ((*prv = end_flow(ft, f, RTEL_END_IDLE)) != 0) {
      return NULL;
    }
    f = NULL;
  } else if (due == DUE_ACTIVE) {
    if ((*prv = restart_flow(ft, f, pi->ts)) != 0) {
      return NULL;
    }
  }
  *created = f == NULL;
  *moved = 0;
  if (f == NULL) {
    rtel__qkey k;
    rtel__qkey_set(&k, pi->obs, hd->src, hd->dst, qpn);
    return flow_new(ft, &k, h, pi, hd, prv);
  }
  *moved = flow_touch(ft, f, pi->ts);
  if (f->packets == 0) {
    f->first_ts = f->last_ts = pi->ts; /* first packet since a restart */
  }
  return f;
}

/* The open messages of |f| whose range overlaps [lo, hi] may have lost
 * count of their packets lost upstream. */
static void msgs_lost_lb(rtel__flowtab *ft, flow *f, uint32_t lo,
                         uint32_t hi) {
  uint32_t i;
  rtel__omsg *o;
  for (i = f->msg_head; i != RTEL__NIL; i = o->next) {
    o = msg_at(ft, f, i);
    if (!rtel__psn_after(o->first_psn, hi) &&
        ((o->fl & M_END) ? !rtel__psn_before(o->end_psn, lo) : 1)) {
      o->fl |= M_LB;
    }
  }
}

static void gap_drop(flow *f, unsigned i) {
  for (; i + 1u < f->ngaps; i++) {
    f->gap_lo[i] = f->gap_lo[i + 1];
    f->gap_hi[i] = f->gap_hi[i + 1];
  }
  f->ngaps--;
}

/* PSNs [lo, hi] never passed here since they were last sent: merged with
 * the open gaps it overlaps or touches, else a new one; with NGAPS open,
 * the oldest is forgotten (the lost counts become lower bounds). Gaps
 * half the PSN space behind are forgotten: nothing is resent from there. */
static void open_gap(rtel__flowtab *ft, flow *f, uint32_t lo, uint32_t hi) {
  unsigned i;
  for (i = 0; i < f->ngaps;) {
    if (rtel__psn_diff(f->highest, f->gap_hi[i]) >= (1 << 22)) {
      gap_drop(f, i);
    } else if (rtel__psn_diff(f->gap_lo[i], hi) <= 1 &&
               rtel__psn_diff(lo, f->gap_hi[i]) <= 1) {
      if (rtel__psn_before(f->gap_lo[i], lo)) {
        lo = f->gap_lo[i];
      }
      if (rtel__psn_after(f->gap_hi[i], hi)) {
        hi = f->gap_hi[i];
      }
      gap_drop(f, i);
    } else {
      i++;
    }
  }
  if (f->ngaps == NGAPS) {
    f->fl |= RTEL_FLOW_F_LOST_LB;
    msgs_lost_lb(ft, f, f->gap_lo[0], f->gap_hi[0]);
    gap_drop(f, 0);
  }
  f->gap_lo[f->ngaps] = lo;
  f->gap_hi[f->ngaps] = hi;
  f->ngaps++;
}

/* The open gap holding |psn|, or -1. */
static int in_gap(const flow *f, uint32_t psn) {
  unsigned i;
  for (i = 0; i < f->ngaps; i++) {
    if (rtel__psn_in(psn, f->gap_lo[i], f->gap_hi[i])) {
      return (int)i;
    }
  }
  return -1;
}

/* |psn| of gap |i| passed here (resent): out of the gap. PSNs of the gap
 * before it stay open when there is room for them. */
static void gap_take(flow *f, unsigned i, uint32_t psn) {
  uint32_t lo = f->gap_lo[i], hi = f->gap_hi[i];
  if (lo == hi) {
    gap_drop(f, i);
  } else if (psn == lo) {
    f->gap_lo[i] = rtel__psn_add(lo, 1);
  } else if (psn == hi) {
    f->gap_hi[i] = rtel__psn_add(hi, -1);
  } else {
    f->gap_lo[i] = rtel__psn_add(psn, 1);
    if (f->ngaps < NGAPS) {
      /* the part below stays open, before it in age order */
      unsigned j;
      for (j = f->ngaps; j > i; j--) {
        f->gap_lo[j] = f->gap_lo[j - 1];
        f->gap_hi[j] = f->gap_hi[j - 1];
      }
      f->gap_lo[i] = lo;
      f->gap_hi[i] = rtel__psn_add(psn, -1);
      f->ngaps++;
    } else {
      f->fl |= RTEL_FLOW_F_LOST_LB;
    }
  }
}

/* An ACK of every PSN up to |psn|: the gaps it covers are closed (the
 * receiver has those PSNs: they were no loss before this point). */
static void gaps_acked(flow *f, uint32_t psn) {
  unsigned i;
  for (i = 0; i < f->ngaps;) {
    if (!rtel__psn_after(f->gap_hi[i], psn)) {
      gap_drop(f, i);
    } else {
      i++;
    }
  }
}

/* New data, |d| PSNs after the highest: a jump is a PSN gap, unless the
 * previous packet's PSN span is unknown; a retransmission episode under
 * way is over. */
static void new_data(rtel__flowtab *ft, flow *f, uint32_t psn, int32_t d,
                     int resp) {
  if (d > 1 && (resp ? resp_gap(ft, f, psn) : !(f->st & ST_SPAN))) {
    f->gaps++;
    open_gap(ft, f, rtel__psn_add(f->highest, 1), rtel__psn_add(psn, -1));
  }
  f->highest = psn;
  f->st &= (uint16_t)~ST_EPISODE;
}

/* A retransmission that does not continue the previous one begins an
 * episode: one loss event (of the message |o| if tracked), located
 * upstream if its PSN lies in an open gap, downstream otherwise; caused by
 * the latest NAK seen since the previous episode (sequence error or RNR),
 * or by a timeout. */
static void start_episode(flow *f, rtel__omsg *o, int upstream,
                          rtel_tstamp ts) {
  uint16_t st = f->st;
  if (upstream) {
    f->loss_up++;
  } else {
    f->loss_down++;
  }
  f->st = (uint16_t)((st & ~(ST_NAK | ST_RNR | ST_EP_NAK | ST_EP_RNR)) |
                     ST_EPISODE | ((st & ST_NAK) ? ST_EP_NAK : 0) |
                     ((st & (ST_NAK | ST_RNR)) == (ST_NAK | ST_RNR) ? ST_EP_RNR
                                                                    : 0));
  f->ep_ts = ts;
  f->ep_pkts = 0;
  if (o != NULL) {
    msg_l1(o);
    if (upstream) {
      o->loss_up++;
    } else {
      o->loss_down++;
    }
    if (f->st & ST_EP_RNR) {
      o->loss_rnr++;
    } else if (f->st & ST_EP_NAK) {
      o->loss_nak++;
    } else {
      o->loss_to++;
    }
  }
}

/* A data packet whose PSN is not after the highest: a retransmission by
 * the PSN rule, of the open message |o| (NULL: an orphan). A copy of the
 * previous packet at once is a duplicate mirror copy, not a resend: no
 * loss event. A resend is counted in its episode by cause, and as a packet
 * lost upstream if its PSN lay in an open gap. */
static void resend(flow *f, rtel__omsg *o, const rtel_pkt_info *pi,
                   const rtel_pkt_hd *hd, rtel__flowtab *ft) {
  int g;
  f->retx_packets++;
  f->retx_bytes += hd->payload_len;
  if (o == NULL) {
    f->orphans++;
  }
  if (hd->psn == f->last_psn && pi->ts - f->last_ts < DUP_NS &&
      pi->ts >= f->last_ts) {
    return;
  }
  if ((f->st & ST_EPISODE) && rtel__psn_diff(hd->psn, f->last_psn) > 1) {
    /* a jump inside a resend: those resent copies never passed here,
     * so the episode that resends them again is an upstream loss */
    open_gap(ft, f, rtel__psn_add(f->last_psn, 1), rtel__psn_add(hd->psn, -1));
  }
  g = in_gap(f, hd->psn);
  if (!(f->st & ST_EPISODE) || !rtel__psn_after(hd->psn, f->last_psn)) {
    start_episode(f, o, g >= 0, pi->ts);
  }
  if (g >= 0) {
    gap_take(f, (unsigned)g, hd->psn);
    f->lost_up++;
    if (o != NULL) {
      msg_l1(o)->lost_up++;
    }
  }
  if (f->st & ST_EP_RNR) {
    f->retx_rnr++;
  } else if (f->st & ST_EP_NAK) {
    f->retx_nak++;
  } else {
    f->retx_to++;
  }
  f->ep_pkts++;
}

/* Bytes a data packet occupied on the link: its Ethernet frame without
 * FCS (an encapsulated copy's inner frame, from its headers' lengths, so
 * that a cut copy counts whole) and the per-frame overhead. */
static rtel__inline uint32_t wire_bytes_of(uint16_t nvlan, uint32_t ip_len,
                                           uint8_t nencap, uint32_t wire_len) {
  uint32_t frame = 14u + 4u * nvlan + ip_len;
  if (nencap == 0 && wire_len > frame) {
    frame = wire_len;
  }
  return frame + ETH_OVERHEAD;
}

static uint32_t wire_bytes(const rtel_pkt_hd *hd) {
  return wire_bytes_of(hd->nvlan, hd->ip_len, hd->nencap, hd->wire_len);
}

/* A data packet's share of the flow's totals and times (its time |ts|,
 * PSN |psn|, payload |plen| bytes, ECN |ecn|, FECN |fecn|, class |cls|,
 * |wire| as msg_count()). */
static rtel__inline void count_data(flow *f, rtel_tstamp ts, uint32_t psn,
                                    uint32_t plen, uint8_t ecn, uint8_t fecn,
                                    uint16_t cls, uint32_t wire) {
  f->st &= (uint16_t)~ST_SPAN;
  f->last_psn = psn;
  if (ts > f->last_ts) {
    f->last_ts = ts;
  } else if (ts < f->first_ts) {
    f->first_ts = ts; /* out of order: FCT spans both */
  }
  if (f->packets) {
    f->wire += wire; /* n packets span n - 1 gaps: not the first */
  }
  f->packets++;
  f->bytes += plen;
  f->ops |= rtel__op_class_op(cls);
  /* (tested first: an unmarked packet leaves the entry's cold lines alone) */
  if (rtel__unlikely(ecn == 3)) {
    f->ecn_ce++;
  }
  if (rtel__unlikely(fecn)) {
    f->fecn++;
  }
}

static int data_packet(rtel__flowtab *ft, const rtel_pkt_info *pi,
                       const rtel_pkt_hd *hd, uint16_t cls,
                       const uint32_t *hint) {
  int resp = rtel__op_class_op(cls) == RTEL_OP_READ_RESP;
  int created = 0, moved = 0, retx = 0, rv;
  uint32_t wire = 0;
  flow *f = data_flow(ft, pi, hd, resp, hint, &created, &moved, &rv);
  rtel__omsg *o;

  if (f == NULL) {
    return rv;
  }
  if (!created && rtel__psn_diff(hd->psn, f->highest) <= 0) {
    retx = 1;
    o = msg_of_resend(ft, f, pi, hd, cls, &rv);
    if (rv != 0) {
      return rv;
    }
    resend(f, o, pi, hd, ft);
  } else {
    if (!created) {
      new_data(ft, f, hd->psn, rtel__psn_diff(hd->psn, f->highest), resp);
    }
    if ((o = msg_of_new(ft, f, pi, hd, cls, &rv)) == NULL && rv != 0) {
      return rv;
    }
    wire = wire_bytes(hd);
  }
  count_data(f, pi->ts, hd->psn, hd->payload_len, hd->ecn, hd->fecn, cls,
             wire);
  if (o != NULL) {
    msg_count(o, pi->ts, hd->psn, hd->payload_len, hd->ecn, cls, retx, wire);
    msg_first(o, hd, cls);
  }
  if (moved && f->msg_n != 0) {
    /* (a flow with its first open message was appended to it just now) */
    rtel__list_move_tail(&ft->mflows, mlru_links(ft), flow_idx(ft, f));
  }
  if (!(f->st & ST_PAIRED) && !resp) {
    rtel__pair_note_psn(ft->pairs, pi->obs, hd->src, hd->dst, hd->dqpn,
                        hd->psn);
  }
  return msg_settle(ft, f, pi->ts);
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

/* What data_packet() does for a data packet of class |cls| (not a FIRST,
 * not a READ RESPONSE) that continues the message under way |o| of its
 * flow |f| in PSN order, with the same steps in the same order:
 * data_flow()'s move, new_data(), msg_of_new() (the message under way),
 * count_data(), msg_count(), the open-message LRU, the PSN note,
 * msg_settle(). */
static rtel__inline int fast_apply(rtel__flowtab *ft, const rtel_pkt_info *pi,
                                   const rtel__dpkt *d, uint16_t cls, flow *f,
                                   rtel__omsg *o) {
  int moved = flow_touch(ft, f, pi->ts);
  uint32_t wire = wire_bytes_of(d->nvlan, d->ip_len, 0, d->wire_len);

  new_data(ft, f, d->psn, 1, 0);
  count_data(f, pi->ts, d->psn, d->payload_len, d->ecn, d->fecn, cls, wire);
  msg_count(o, pi->ts, d->psn, d->payload_len, d->ecn, cls, 0, wire);
  if (moved && f->msg_n != 0) {
    rtel__list_move_tail(&ft->mflows, mlru_links(ft), flow_idx(ft, f));
  }
  if (!(f->st & ST_PAIRED)) {
    rtel__pair_note_psn(ft->pairs, pi->obs, d->src, d->dst, d->dqpn, d->psn);
  }
  return msg_settle(ft, f, pi->ts);
}

int rtel__flow_fast(rtel__flowtab *ft, const rtel_pkt_info *pi,
                    const rtel__dpkt *d, uint32_t pk, int *prv) {
  uint16_t cls = rtel__op_class[d->opcode];
  flow *f;
  rtel__omsg *o;

  /* (rtel__decode_data() took only SENDs and WRITEs that are not a FIRST
   * or ONLY: new data of a request flow, or a resend) */
  f = (flow *)(void *)rtel__qtab_find_parts(&ft->flows, flow_hash_of(pk, 0),
                                            pi->obs, d->src, d->dst, d->dqpn);
  /* a flow that neither ends idle nor restarts (data_flow()) and has had a
   * packet since it began; the PSN right after its highest; a message
   * under way */
  if (f == NULL || f->packets == 0 || flow_due(ft, f, pi->ts) != 0 ||
      rtel__psn_diff(d->psn, f->highest) != 1 ||
      (o = msg_cur(ft, f)) == NULL) {
    return 0;
  }
  *prv = fast_apply(ft, pi, d, cls, f, o);
  return 1;
}

int rtel__flow_packet(rtel__flowtab *ft, const rtel_pkt_info *pi,
                      const rtel_pkt_hd *hd, const uint32_t *hint) {
  uint16_t cls;

  if (ft->flags & RTEL_FLOW_DISABLE) {
    return 0;
  }
  if (rtel__unlikely(hd->flags &
                     (RTEL_HD_F_UNKNOWN_OPCODE | RTEL_HD_F_UNKNOWN_TVER))) {
    return 0;
  }
  cls = rtel__op_class[hd->opcode];
  if (rtel__likely(cls & RTEL__K_DATA)) {
    return data_packet(ft, pi, hd, cls, hint);
  }
  if (cls & (RTEL__K_ACK | RTEL__K_CNP)) {
    return ctrl_packet(ft, pi, hd, cls & (RTEL__K_ACK | RTEL__K_CNP), hint);
  } else if (cls & RTEL__K_REQ) {
    req_packet(ft, pi, hd);
  }
  return 0;
}

uint32_t rtel__flow_hint(const rtel__flowtab *ft, uint32_t flags,
                         uint8_t opcode, uint32_t pk, int *has) {
  uint16_t cls;

  *has = 0;
  if ((ft->flags & RTEL_FLOW_DISABLE) ||
      (flags &
       (RTEL_HD_F_UNKNOWN_OPCODE | RTEL_HD_F_UNKNOWN_TVER | RTEL_HD_F_CM))) {
    return 0;
  }
  cls = rtel__op_class[opcode];
  if (cls & RTEL__K_DATA) {
    uint32_t h = flow_hash_of(pk, rtel__op_class_op(cls) == RTEL_OP_READ_RESP);
    rtel__prefetch(&ft->flows.buckets[h & ft->flows.mask]);
    *has = RTEL__HINT_DATA;
    return h;
  }
  if (cls & (RTEL__K_ACK | RTEL__K_CNP)) {
    /* the pairing entry of its QP first, then the flow it names */
    rtel__pair_prefetch(ft->pairs, pk);
    *has = RTEL__HINT_CTRL;
    return pk;
  }
  return 0;
}

void rtel__flow_prefetch(const rtel__flowtab *ft, uint32_t hint, int has,
                         int step, const uint8_t *src, const uint8_t *dst,
                         uint32_t psn, uint32_t obs) {
  const flow *f = NULL;
  if (has == RTEL__HINT_DATA) {
    uint32_t i = ft->flows.buckets[hint & ft->flows.mask];
    if (i == RTEL__NIL) {
      return;
    }
    f = flow_at(ft, i);
    if (step == 0) {
      /* lines 0-2: the table's header, the data path's line, the own
       * message slot's line 0 */
      rtel__prefetch(f);
      rtel__prefetch((const uint8_t *)f + 64);
      rtel__prefetch(&f->emb);
    } else if (f->q.hash == hint) {
      if (f->msg_tail < ft->msg_cap) { /* (not RTEL__NIL, not its own) */
        rtel__prefetch(slab_at(ft, f->msg_tail));
      }
      /* data_packet()'s rtel__pair_note_psn(): the slot written by every
       * data packet of an unpaired flow (READ RESPONSE flows never write
       * it), in a line shared by 8 consecutive PSNs (rtel_pair.h) */
      if (!(f->st & ST_PAIRED) && !(f->q.key.qpn & KEY_RESP)) {
        rtel__prefetch_w(rtel__pair_psn_slot(
            ft->pairs, rtel__pair_psn_tag(ft->pairs, obs, src, dst), psn));
      }
    }
  } else if (has == RTEL__HINT_CTRL) {
    const rtel__pair *p = rtel__pair_first(ft->pairs, hint);
    if (p == NULL) {
      return;
    }
    if (step == 0) {
      rtel__prefetch(p);
    } else if (p->q.hash == hint && p->flow1 != 0 &&
               p->flow1 <= ft->flows.cap) {
      f = flow_at(ft, p->flow1 - 1);
      rtel__prefetch(f);
      rtel__prefetch((const uint8_t *)f + 64);
      rtel__prefetch(&f->emb); /* the oldest open message, most often */
    }
  }
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
    flow *f = flow_at(ft, ft->fifo.head);
    if (now < f->first_ts || now - f->first_ts < ft->active) {
      break;
    }
    if (f->packets == 0) {
      /* restarted and silent since: it ends; its open messages can no
       * longer change (their places come back) */
      if ((rv = deliver_all(ft, f, RTEL_END_ACTIVE)) != 0 ||
          (rv = end_flow(ft, f, RTEL_END_ACTIVE)) != 0) {
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
  /* oldest first, so records come out in order of their last activity (to
   * within a tick: lru_tick()). As end_flow(), but every flow goes: the
   * table is emptied without walking bucket chains
   * (rtel__qtab_remove_oldest_all()) and the creation-order list is
   * dropped whole at the end instead of unlinked flow by flow (whose
   * neighbours there are random lines; until then it may name flows
   * already ended, so rtel__flow_expiry(), which a callback may call, can
   * give an earlier time during the flush). An error of a record leaves
   * the table half emptied: the context has failed then and is never used
   * again. */
  while (ft->flows.used) {
    flow *f = (flow *)(void *)rtel__qtab_oldest(&ft->flows);
    rv = report_flow(ft, f, end);
    rtel__qtab_remove_oldest_all(&ft->flows, &f->q);
    flow_gone(ft, f);
    if (rv != 0) {
      return rv;
    }
  }
  rtel__list_init(&ft->fifo);
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
