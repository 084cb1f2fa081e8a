/* SPDX-License-Identifier: MIT */
/*
 * The QP pairing table (see rtel_pair.h): learned QP pairs, in a
 * fixed-capacity table with LRU eviction, and the PSN index that pairs
 * QPs by ACK PSN when no RDMA CM exchange was seen.
 *
 * An entry is keyed by the direction packets travel: (obs, src, dst, QPN
 * of dst). Learning that data sent from A to (B, q) is acknowledged on
 * (A, p) sets both directions' entries: (A, B, q) -> p and (B, A, p) -> q.
 *
 * By ACK PSN: every data packet of a flow not known to be paired leaves
 * (tag of (obs, src, dst), PSN) -> destination QPN in a direct-mapped
 * index (a PSN that two QPs of one host pair used names neither). An ACK
 * from B to (A, p) looks its PSN up under (obs, A, B): a slot naming q is
 * a hit for q in the entry (B, A, p); two hits in a row, on two different
 * PSNs, learn the pair - unless (A, B, q) is paired with another QP
 * already, which starts the count over.
 *
 * Nothing is allocated after setup.
 */
#include "rtel_pair.h"

#include "rtel_opcode.h"

/* ------------------------------------------------------------ setup */

int rtel__pair_init(rtel__pairtab *pt, const rtel_settings *s,
                    const rtel__env *env) {
  uint32_t nflows = s->max_flows ? s->max_flows : 4096;
  /* two entries per connection (one per direction); a connection may
   * carry data one way only */
  uint32_t npairs = s->max_qp_pairs                 ? s->max_qp_pairs
                    : nflows <= RTEL__MAX_TABLE / 2 ? 2 * nflows
                                                    : RTEL__MAX_TABLE;
  uint32_t npsn = 8; /* one line: a whole block of 8 PSNs (rtel_pair.h) */
  int rv;

  memset(pt, 0, sizeof(*pt));
  pt->env = *env;
  pt->tag_seed = s->hash_seed;
  if ((s->flow_flags & RTEL_FLOW_DISABLE) &&
      (s->nvme_flags & RTEL_NVME_DISABLE)) {
    return 0; /* nobody reads pairs */
  }
  while (npsn < nflows * 4u && npsn < (1u << 24)) {
    npsn <<= 1;
  }
  /* the context's seed: the hub hashes a packet's key once for every
   * table (rtel__flow_packet()'s hint) */
  if ((rv = rtel__qtab_init(&pt->pairs, npairs, sizeof(rtel__pair),
                            s->hash_seed, pt->env.mem)) != 0) {
    rtel__pair_free(pt);
    return rv;
  }
  /* 64-byte aligned inside (rtel_mem promises no alignment) */
  pt->psn_alloc =
      rtel__zalloc(&pt->env, 1, (size_t)npsn * sizeof(rtel__psn_slot) + 63u);
  if (pt->psn_alloc == NULL) {
    rtel__pair_free(pt);
    return RTEL_ERR_NOMEM;
  }
  pt->psn_index = (rtel__psn_slot *)rtel__align64(pt->psn_alloc);
  pt->psn_mask = npsn - 1;
  pt->on = 1;
  return 0;
}

void rtel__pair_free(rtel__pairtab *pt) {
  if (pt->env.mem == NULL) {
    return; /* never initialised */
  }
  rtel__qtab_free(&pt->pairs, pt->env.mem);
  rtel__dealloc(&pt->env, pt->psn_alloc);
  pt->psn_alloc = NULL;
  pt->psn_index = NULL;
  pt->on = 0;
}

/* ------------------------------------------------------------ entries */

rtel__pair *rtel__pair_find(const rtel__pairtab *pt, const rtel__qkey *k) {
  uint32_t h = rtel__qkey_hash(&pt->pairs, k);
  return (rtel__pair *)(void *)rtel__qtab_find(&pt->pairs, k, h);
}

rtel__pair *rtel__pair_get(rtel__pairtab *pt, const rtel__qkey *k) {
  uint32_t h = rtel__qkey_hash(&pt->pairs, k);
  rtel__pair *p = (rtel__pair *)(void *)rtel__qtab_find(&pt->pairs, k, h);
  if (p) {
    rtel__qtab_touch(&pt->pairs, &p->q);
    return p;
  }
  if (pt->pairs.used == pt->pairs.cap) {
    rtel__pair *old = (rtel__pair *)(void *)rtel__qtab_oldest(&pt->pairs);
    /* NAKs and CNPs it held for a flow never paired are lost */
    pt->env.stats->ctrl_unattributed += old->held.naks_seq +
                                        old->held.naks_rnr +
                                        old->held.naks_fatal + old->held.cnps;
    rtel__qtab_remove(&pt->pairs, &old->q);
    pt->env.stats->pairs_evicted++;
  }
  p = (rtel__pair *)(void *)rtel__qtab_insert(&pt->pairs, k, h);
  p->peer = RTEL_QPN_NONE;
  p->cand = RTEL_QPN_NONE;
  return p;
}

uint32_t rtel__pair_peer(const rtel__pairtab *pt, uint32_t obs,
                         const uint8_t *src, const uint8_t *dst,
                         uint32_t qpn) {
  rtel__qkey k;
  const rtel__pair *p;
  if (!pt->on) {
    return RTEL_QPN_NONE;
  }
  rtel__qkey_set(&k, obs, src, dst, qpn);
  p = rtel__pair_find(pt, &k);
  return p ? p->peer : RTEL_QPN_NONE;
}

/* Data sent from |src| to (|dst|, |dqpn|) is acknowledged on (|src|,
 * |peer|): sets both directions' entries, tells |learned|, then drops
 * what the control direction's entry held (|learned| took it, or nobody
 * will). */
static void learn(rtel__pairtab *pt, uint32_t obs, const uint8_t *src,
                  const uint8_t *dst, uint32_t dqpn, uint32_t peer,
                  rtel__pair_learned *learned, void *arg) {
  rtel__qkey k, ck;
  rtel__pair *rev;

  rtel__qkey_set(&k, obs, src, dst, dqpn);
  rtel__pair_get(pt, &k)->peer = peer;
  rtel__qkey_set(&ck, obs, dst, src, peer);
  rev = rtel__pair_get(pt, &ck);
  rev->peer = dqpn;
  if (learned) {
    learned(arg, &k, peer, rev);
  }
  memset(&rev->held, 0, sizeof(rev->held));
}

void rtel__pair_cm_conn(rtel__pairtab *pt, const rtel__cm_conn *c,
                        rtel__pair_learned *learned, void *arg) {
  if (!pt->on) {
    return;
  }
  /* data requester -> responder goes to the responder's QPN and is
   * acknowledged to the requester's, and conversely */
  learn(pt, c->obs, c->req_ip, c->rsp_ip, c->rsp_qpn, c->req_qpn, learned,
        arg);
  learn(pt, c->obs, c->rsp_ip, c->req_ip, c->req_qpn, c->rsp_qpn, learned,
        arg);
  pt->env.stats->pairs_cm++;
}

/* ------------------------------------------------------------ PSN index */

rtel__pair *rtel__pair_ack_psn(rtel__pairtab *pt, rtel__pair *p,
                               const rtel__qkey *k, uint32_t psn) {
  /* the data went the other way: from k->dst to k->src */
  uint32_t tag = rtel__pair_psn_tag(pt, k->obs, k->dst, k->src);
  rtel__psn_slot w = *rtel__pair_psn_slot(pt, tag, psn);
  uint32_t qpn = rtel__psn_qpn(w);
  if (rtel__psn_match(w, tag, psn) && qpn != RTEL__PSN_QPN_NONE) {
    if (p == NULL) {
      p = rtel__pair_get(pt, k);
    }
    if (p->cand != qpn) {
      p->cand = qpn;
      p->hits = 1;
      p->hit_psn = psn;
    } else if (p->hit_psn != psn) {
      p->hits++; /* a second, different PSN of the same flow */
      p->hit_psn = psn;
    }
  }
  return p;
}

void rtel__pair_confirm(rtel__pairtab *pt, rtel__pair *p, const rtel__qkey *k,
                        rtel__pair_learned *learned, void *arg) {
  rtel__qkey dk;
  const rtel__pair *other;
  if (p == NULL || p->hits < 2) {
    return;
  }
  /* Two ACKs in a row named recent PSNs of the same flow. */
  rtel__qkey_set(&dk, k->obs, k->dst, k->src, p->cand);
  other = rtel__pair_find(pt, &dk);
  if (other == NULL || other->peer == RTEL_QPN_NONE) {
    learn(pt, k->obs, k->dst, k->src, p->cand, k->qpn, learned, arg);
    pt->env.stats->pairs_psn++;
  } else {
    p->hits = 0; /* that flow is paired with another QP already */
  }
}

/* ------------------------------------------------------------ packets */

/* Without the flow table, the packets pairing needs, one at a time, each
 * with |h|, the hash of its key (|obs|, |src|, |dst|, |dqpn|) with the
 * context's seed, which the hub computes once for every module (the table
 * is allocated: pt->on): a data packet (rtel__pair_note_psn() unless its
 * QP is paired) ... */
static void pair_data(rtel__pairtab *pt, uint32_t obs, const uint8_t *src,
                      const uint8_t *dst, uint32_t dqpn, uint32_t psn,
                      uint32_t h) {
  const rtel__pair *p =
      (const rtel__pair *)(const void *)rtel__qtab_find_parts(
          &pt->pairs, h, obs, src, dst, dqpn);
  if (p == NULL || p->peer == RTEL_QPN_NONE) {
    rtel__pair_note_psn(pt, obs, src, dst, dqpn, psn);
  }
}

/* ... an ACK or NAK (AETH) (rtel__pair_ack_psn(), rtel__pair_confirm()
 * unless its QP is paired). */
static void pair_ack(rtel__pairtab *pt, uint32_t obs, const uint8_t *src,
                     const uint8_t *dst, uint32_t dqpn, uint32_t psn,
                     uint32_t h) {
  rtel__qkey k;
  rtel__pair *p;
  rtel__qkey_set(&k, obs, src, dst, dqpn);
  p = rtel__pair_find_h(pt, &k, h);
  if (p && p->peer != RTEL_QPN_NONE) {
    return;
  }
  p = rtel__pair_ack_psn(pt, p, &k, psn);
  rtel__pair_confirm(pt, p, &k, NULL, NULL);
}

/* What rtel__pair_packet() does with |hd|, the one rule for it and for
 * the look-ahead: PAIR_DATA for data (not READ RESPONSE: those use the
 * requester's PSNs), PAIR_ACK for an ACK or NAK (AETH), 0 for the rest (a
 * CM MAD is UD: 0 too). */
#define PAIR_DATA 1
#define PAIR_ACK 2
static rtel__inline int pair_kind(const rtel__pairtab *pt,
                                  const rtel_pkt_hd *hd) {
  uint16_t cls;
  if (!pt->on || (hd->flags & (RTEL_HD_F_UNKNOWN_OPCODE |
                               RTEL_HD_F_UNKNOWN_TVER | RTEL_HD_F_CM))) {
    return 0;
  }
  cls = rtel__op_class[hd->opcode];
  if ((cls & RTEL__K_DATA) && rtel__op_class_op(cls) != RTEL_OP_READ_RESP) {
    return PAIR_DATA;
  }
  return (cls & RTEL__K_ACK) && (hd->flags & RTEL_HD_F_AETH) ? PAIR_ACK : 0;
}

void rtel__pair_packet(rtel__pairtab *pt, uint32_t obs, const rtel_pkt_hd *hd,
                       uint32_t pk) {
  switch (pair_kind(pt, hd)) {
  case PAIR_DATA:
    pair_data(pt, obs, hd->src, hd->dst, hd->dqpn, hd->psn, pk);
    break;
  case PAIR_ACK:
    pair_ack(pt, obs, hd->src, hd->dst, hd->dqpn, hd->psn, pk);
    break;
  default:
    break;
  }
}

int rtel__pair_hint(const rtel__pairtab *pt, const rtel_pkt_hd *hd,
                    uint32_t pk) {
  if (pair_kind(pt, hd) == 0) {
    return 0;
  }
  rtel__pair_prefetch(pt, pk);
  return 1;
}

void rtel__pair_ahead(const rtel__pairtab *pt, const rtel_pkt_hd *hd,
                      uint32_t obs, uint32_t pk, int step) {
  const rtel__pair *p;
  uint32_t tag;
  if (step == 0) {
    if ((p = rtel__pair_first(pt, pk)) != NULL) {
      rtel__prefetch(p);
    }
    return;
  }
  p = (const rtel__pair *)(const void *)rtel__qtab_find_parts(
      &pt->pairs, pk, obs, hd->src, hd->dst, hd->dqpn);
  if (p != NULL && p->peer != RTEL_QPN_NONE) {
    return; /* paired: no PSN slot used */
  }
  if (pair_kind(pt, hd) == PAIR_DATA) {
    /* a data packet writes its PSN under its own direction's tag */
    tag = rtel__pair_psn_tag(pt, obs, hd->src, hd->dst);
    rtel__prefetch_w(rtel__pair_psn_slot(pt, tag, hd->psn));
  } else {
    /* an ACK reads the slot of the data it names, sent the other way */
    tag = rtel__pair_psn_tag(pt, obs, hd->dst, hd->src);
    rtel__prefetch(rtel__pair_psn_slot(pt, tag, hd->psn));
  }
}
