/* SPDX-License-Identifier: MIT */
/*
 * The QP pairing table: which QP answers which. Data sent to (dst, QPN) is
 * acknowledged on a QP of the sender, its peer; the table maps (obs, src,
 * dst, QPN) of either direction to the other direction's QPN.
 *
 * Pairs are learned from RDMA CM REQ/REP exchanges and, when no CM was
 * seen, from ACK PSNs: the recent data PSNs of unpaired flows are kept in
 * a PSN index, and an ACK whose PSN falls on one of exactly one flow names
 * that flow's QP; a second ACK naming another PSN of the same flow
 * confirms it, and the pair is believed unless that flow is paired with
 * another QP already.
 *
 * The hub owns the table. The flow table feeds it RDMA CM connections,
 * data PSNs and ACKs (and holds NAKs and CNPs of unpaired flows in its
 * entries, see rtel__pair_held); without the flow table the hub feeds it
 * directly (rtel__pair_cm_conn(), rtel__pair_packet()), so that NVMe-oF
 * queues still pair the same way. The NVMe-oF correlator only looks pairs
 * up (rtel__pair_peer()).
 *
 * Memory: max_qp_pairs entries (default 2 x max_flows: one per direction)
 * and a PSN index of 4 x max_flows slots (a power of two, at least 8 and
 * at most 2^24),
 * allocated by rtel__pair_init() when the flow table or NVMe-oF is on.
 * Counters: pairs_cm, pairs_psn, pairs_evicted, and ctrl_unattributed for
 * the NAKs and CNPs an evicted entry held.
 */
#ifndef RTEL_PAIR_H
#define RTEL_PAIR_H

#include "rtel_cm.h"
#include "rtel_int.h"
#include "rtel_sink.h"
#include "rtel_table.h"

/* NAKs and CNPs addressed to a QP whose pair is not known yet, held by the
 * flow table in that QP's entry until the pair is learned; an entry
 * evicted with some counts them as ctrl_unattributed. */
typedef struct rtel__pair_held {
  uint32_t naks_seq;
  uint32_t naks_rnr;
  uint32_t naks_fatal;
  uint32_t cnps;
  uint32_t nak_pending;
  rtel_tstamp nak_ts; /* time of the last NAK held */
} rtel__pair_held;

/* An entry: (obs, src, dst, QPN) of packets sent to that QP. */
typedef struct rtel__pair {
  rtel__qent q;
  uint32_t peer; /* RTEL_QPN_NONE: not paired yet */
  uint32_t cand; /* PSN-matching candidate peer */
  uint32_t hits;
  uint32_t hit_psn; /* PSN of the last hit (a repeat does not count) */
  uint32_t flow1;   /* the flow table's: 1 + the index of the flow that
                       this QP's ACKs are for, 0 if none (a hint, checked
                       against the flow's key before use) */
  rtel__pair_held held;
} rtel__pair;

/* Recent data-packet PSNs of unpaired flows, for pairing by ACK PSN: a
 * slot is one word, 0 when empty, else
 *   bits 48-63  the top 16 bits of the tag (the hash of (obs, src, dst)),
 *               1 for 0 (so a slot in use is never 0)
 *   bits 24-47  the data packets' destination QPN; RTEL__PSN_QPN_NONE:
 *               two flows of the host pair used the PSN, or the QPN is
 *               0xffffff itself (the multicast QPN: UD, never acknowledged)
 *   bits 0-23   the PSN
 * The slot's place comes from the whole tag and the PSN, so another host
 * pair's PSN matches only if it lands on the same slot with the same PSN
 * and the same 16 tag bits; pairing then needs two such hits in a row for
 * the same QP. 8 bytes, so 8 slots per cache line, and a line is a block
 * of 8 consecutive PSNs (PSN / 8 and the tag choose the line, PSN mod 8
 * the slot in it; the index has 8 slots at least): a flow's data packets,
 * which carry consecutive PSNs, write one line per 8 packets, not a random
 * line each. The price: slots are overwritten a block at a time. Two keys
 * whose PSNs are unrelated share a slot with probability 1 / slots as
 * before, but two whose PSNs are equal modulo 8 (the same PSN, say) with
 * 1 / lines, 8 times as often, and two PSNs of one flow in different
 * blocks with 1 / lines when congruent modulo 8, never within a block.
 * An overwrite of another PSN only loses a slot (a later pairing); a
 * match still needs the same PSN and tag bits, so it never names a wrong
 * QP more often than 2^-16 of the time per colliding slot. */
typedef uint64_t rtel__psn_slot;

#define RTEL__PSN_QPN_NONE 0xffffffu

/* The slot word of (|tag|, |qpn|, |psn|). */
static inline uint64_t rtel__psn_word(uint32_t tag, uint32_t qpn,
                                      uint32_t psn) {
  uint32_t t = tag >> 16;
  return (uint64_t)(t ? t : 1u) << 48 | (uint64_t)(qpn & 0xffffffu) << 24 |
         (psn & 0xffffffu);
}

/* Whether slot word |w| holds |psn| of a flow with |tag|. */
static inline int rtel__psn_match(uint64_t w, uint32_t tag, uint32_t psn) {
  return ((w ^ rtel__psn_word(tag, 0, psn)) & ~((uint64_t)0xffffffu << 24)) ==
         0;
}

/* The QPN of slot word |w|. */
static inline uint32_t rtel__psn_qpn(uint64_t w) {
  return (uint32_t)(w >> 24) & 0xffffffu;
}

typedef struct rtel__pairtab {
  rtel__env env;
  rtel__qtab pairs;
  rtel__psn_slot *psn_index; /* 64-byte aligned: a block of 8 is a line */
  void *psn_alloc;           /* what was allocated for it */
  uint32_t psn_mask;
  uint32_t on; /* allocated: the flow table or NVMe-oF is on */
  uint64_t tag_seed;
} rtel__pairtab;

/* Called for each direction of a pair as it is learned: data sent from
 * key->src to (key->dst, key->qpn) is acknowledged on |peer|, a QP of
 * key->src; |ctrl| is the entry of that control direction (key->dst ->
 * key->src, |peer|), with what it held (dropped after the call). */
typedef void rtel__pair_learned(void *arg, const rtel__qkey *key,
                                uint32_t peer, rtel__pair *ctrl);

int rtel__pair_init(rtel__pairtab *pt, const rtel_settings *s,
                    const rtel__env *env);
void rtel__pair_free(rtel__pairtab *pt);

/* The entry of |k|, or NULL; with the key's hash |h| (rtel__qkey_hash()
 * with the table's seed, the context's: the hub's hash of a packet's
 * key). */
rtel__pair *rtel__pair_find(const rtel__pairtab *pt, const rtel__qkey *k);
static inline rtel__pair *rtel__pair_find_h(const rtel__pairtab *pt,
                                            const rtel__qkey *k, uint32_t h) {
  return (rtel__pair *)(void *)rtel__qtab_find(&pt->pairs, k, h);
}

/* Prefetches the bucket of the key hash |h| (for a packet handled a few
 * packets later). */
static inline void rtel__pair_prefetch(const rtel__pairtab *pt, uint32_t h) {
  rtel__prefetch(&pt->pairs.buckets[h & pt->pairs.mask]);
}

/* The entry that the bucket of |h| names first, or NULL (for a prefetch:
 * it may be another key's). */
static inline const rtel__pair *rtel__pair_first(const rtel__pairtab *pt,
                                                 uint32_t h) {
  uint32_t i = pt->pairs.buckets[h & pt->pairs.mask];
  return i == RTEL__NIL
             ? NULL
             : (const rtel__pair *)(const void *)rtel__qtab_at(&pt->pairs, i);
}

/* The entry of |k|, created unpaired if absent (evicting the least
 * recently used entry when full), made the most recent. */
rtel__pair *rtel__pair_get(rtel__pairtab *pt, const rtel__qkey *k);

/* The peer QPN learned for (obs, src, dst, qpn), or RTEL_QPN_NONE. */
uint32_t rtel__pair_peer(const rtel__pairtab *pt, uint32_t obs,
                         const uint8_t *src, const uint8_t *dst, uint32_t qpn);

/* A connection seen in RDMA CM: learns both directions (|learned|, if not
 * NULL, is called for each). */
void rtel__pair_cm_conn(rtel__pairtab *pt, const rtel__cm_conn *c,
                        rtel__pair_learned *learned, void *arg);

/* The PSN index of recent data PSNs of unpaired flows: direct-mapped on
 * (obs, src, dst, psn), in blocks of 8 PSNs per line (above); a slot keeps
 * the destination QPN. Inline: a flow not paired yet writes it for every
 * data packet. */
static inline uint32_t rtel__pair_psn_tag(const rtel__pairtab *pt,
                                          uint32_t obs, const uint8_t *src,
                                          const uint8_t *dst) {
  return rtel__qkey_hash_parts(pt->tag_seed, obs, src, dst, 0) | 1u;
}

static inline rtel__psn_slot *rtel__pair_psn_slot(const rtel__pairtab *pt,
                                                  uint32_t tag, uint32_t psn) {
  uint32_t h = (tag ^ ((psn & 0xffffffu) >> 3) * 0x9E3779B1u) * 0x85EBCA6Bu;
  return &pt->psn_index[((h ^ (h >> 15)) << 3 | (psn & 7u)) & pt->psn_mask];
}

/* A data packet with |psn| from |src| to (|dst|, |dqpn|) of a flow not
 * known to be paired: remembered in the PSN index. */
static inline void rtel__pair_note_psn(rtel__pairtab *pt, uint32_t obs,
                                       const uint8_t *src, const uint8_t *dst,
                                       uint32_t dqpn, uint32_t psn) {
  uint32_t tag = rtel__pair_psn_tag(pt, obs, src, dst);
  rtel__psn_slot *sl = rtel__pair_psn_slot(pt, tag, psn);
  uint32_t qpn = dqpn;
  if (rtel__psn_match(*sl, tag, psn) &&
      rtel__psn_qpn(*sl) != (dqpn & 0xffffffu)) {
    qpn = RTEL__PSN_QPN_NONE; /* two flows of this host pair used this PSN:
                                 it names neither */
  }
  *sl = rtel__psn_word(tag, qpn, psn);
}

/* An ACK or NAK (AETH) with |psn| sent to |k| (from k->src to k->dst's QP
 * k->qpn), whose entry |p| is unpaired or NULL: if the PSN names a recent
 * data PSN of exactly one flow the other way, the entry (created if need
 * be) counts a hit for that flow's QP. Returns the entry, or NULL. */
rtel__pair *rtel__pair_ack_psn(rtel__pairtab *pt, rtel__pair *p,
                               const rtel__qkey *k, uint32_t psn);

/* After rtel__pair_ack_psn(): with two hits in a row, learns the pair of
 * |p| (the entry of |k|; NULL does nothing) unless that flow is paired
 * with another QP already (|learned| as for rtel__pair_cm_conn()). */
void rtel__pair_confirm(rtel__pairtab *pt, rtel__pair *p, const rtel__qkey *k,
                        rtel__pair_learned *learned, void *arg);

/* Without the flow table, the packets pairing needs, one at a time: any
 * decoded RoCE packet, with |pk|, the hash of its key (|obs|, hd->src,
 * hd->dst, hd->dqpn) with the context's seed, which the hub computes once
 * for every module. A data packet (not READ RESPONSE: those use the
 * requester's PSNs) is noted in the PSN index (rtel__pair_note_psn())
 * unless its QP is paired; an ACK or NAK (AETH) whose QP is not paired
 * looks its PSN up there (rtel__pair_ack_psn(), rtel__pair_confirm()). */
void rtel__pair_packet(rtel__pairtab *pt, uint32_t obs, const rtel_pkt_hd *hd,
                       uint32_t pk);

/* For the hub's look-ahead over a burst without the flow table
 * (rtel_ctx.c, read_burst()): whether rtel__pair_packet() will look packet
 * |hd| up (key hash |pk|), and if so its bucket prefetched. Reads only the
 * table's settings, so it may run before earlier packets are handled. */
int rtel__pair_hint(const rtel__pairtab *pt, const rtel_pkt_hd *hd,
                    uint32_t pk);

/* The look-ahead's later steps for a packet rtel__pair_hint() took (|obs|:
 * its point), as rtel__flow_prefetch()'s for the flow table: |step| 0,
 * once its bucket is in cache, the entry the bucket names first; 1, once
 * that entry is too, if the table does not pair its QP (yet), the PSN
 * index slot rtel__pair_packet() will use (a data packet writes it, an
 * ACK reads it). Prefetches only: writes nothing. */
void rtel__pair_ahead(const rtel__pairtab *pt, const rtel_pkt_hd *hd,
                      uint32_t obs, uint32_t pk, int step);

/* Whether the table is large enough (RTEL__PAIR_BIG bytes of entries) for
 * that look-ahead to pay: the flow table's threshold (RTEL__FLOW_BIG). */
#define RTEL__PAIR_BIG (2u << 20)
static inline int rtel__pair_big(const rtel__pairtab *pt) {
  return pt->on &&
         (uint64_t)pt->pairs.cap * pt->pairs.stride >= RTEL__PAIR_BIG;
}

#endif /* RTEL_PAIR_H */
