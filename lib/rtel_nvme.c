/* SPDX-License-Identifier: MIT */
/*
 * The NVMe-oF I/O correlator (rtel_io_record(3), rtel-metrics(7)).
 *
 * NVMe-oF over RDMA puts one NVMe queue on one RC QP pair: the host sends
 * command capsules (SEND, a 64-byte SQE first) to the target's QP; the
 * target moves read data with RDMA WRITEs and fetches write data with RDMA
 * READ REQUESTs, both to the host's QP, and answers with a response
 * capsule (SEND or SEND with Invalidate, a 16-byte CQE) to the host's QP.
 *
 * Queues are recognised from an RDMA CM exchange whose service ID names an
 * NVMe-oF port, from a Fabrics Connect command, or - mid-stream - from a
 * capsule that has the shape of an SQE; such a guessed queue reports
 * nothing until a completion on the reverse QP carries the CID of one of
 * its commands.
 *
 * Data is tied to its command by the keyed SGL: an RDMA WRITE FIRST/ONLY or
 * READ REQUEST whose RETH key equals a descriptor's key and whose address
 * falls in its range; MIDDLE/LAST packets follow the stream their FIRST
 * opened; READ RESPONSEs are tied to their READ REQUEST by PSN.
 *
 * Retransmitted capsules (a PSN not after the highest seen in the same
 * direction) are ignored, so C and R are first copies; data events take
 * every copy (Dn, Pn are the last data packet seen).
 *
 * Memory: queues in a fixed table, I/Os in a fixed slab with a hash on
 * (queue, CID), a hash on (queue, SGL key) and a FIFO for timeouts;
 * nothing is allocated after setup.
 */
#include "rtel_nvme.h"

#include "rtel_flow.h"

#define PSN_MASK 0xffffffu
#define SQE_LEN 64
#define CQE_LEN 16

/* queue states */
#define Q_GUESSED 1u
#define Q_CONFIRMED 2u

typedef struct nq {
  rtel__qent q;
  uint32_t hqpn; /* RTEL_QPN_NONE while unknown */
  uint32_t state;
  int32_t qid;   /* -1 while unknown */
  uint32_t h2t_psn; /* highest host -> target request PSN */
  uint32_t t2h_psn; /* highest target -> host request PSN */
  uint8_t h2t_valid;
  uint8_t t2h_valid;
  uint8_t pad[2];
  uint32_t wr_io;  /* RDMA WRITE stream in progress (read data) */
  uint32_t rr_io;  /* READ RESPONSE stream in progress (write data) */
  uint32_t cap_io; /* multi-packet command capsule in progress */
  uint32_t io_head; /* this queue's outstanding I/Os */
  uint32_t up_prev; /* list of queues with unknown host QPN */
  uint32_t up_next;
  uint32_t rdreq_next;
  uint32_t port; /* of the packet that revealed the queue */
  rtel__rdreq rdreq[RTEL__RDREQ_RING];
  /* RDMA WRITEs (read data) begun recently: their first PSN and I/O, so
   * that a resend starting mid-message finds its I/O */
  uint32_t wrs_next;
  rtel__rdreq wrs[RTEL__RDREQ_RING];
  /* pairing by CID (no CM, no ACK PSNs, no keyed data yet): a completion
   * on host QP |cand| matched an outstanding CID; a second one confirms */
  uint32_t cand;
  uint32_t cand_cid;
  rtel_tstamp cand_ts;
  uint32_t cand_psn;
  uint32_t cand_cmd_psn; /* PSN of the command the held one answers */
  uint16_t cand_status;
  uint8_t cand_inval;
  uint8_t cand_n;
} nq;

typedef struct nrev {
  rtel__qent q;
  uint32_t queue;
} nrev;

typedef struct nsgl {
  uint64_t va;
  uint32_t len;
  uint32_t key;
  uint32_t knext; /* key index chain: (io << 2 | i) or RTEL__NIL */
} nsgl;

typedef struct nio {
  uint32_t hnext; /* (queue, CID) chain; free list */
  uint32_t fprev; /* FIFO by command time */
  uint32_t fnext;
  uint32_t qprev; /* the queue's I/O list */
  uint32_t qnext;
  uint32_t queue;
  uint32_t cmd_psn;
  uint32_t nsid;
  uint32_t nlb;
  uint32_t port; /* of the command */
  uint16_t cid;
  uint8_t opcode;
  uint8_t fctype;
  uint8_t nsgl;
  uint8_t incapsule;
  uint8_t used;
  uint8_t in_rings; /* it was put in the queue's rdreq/wrs rings */
  uint64_t slba;
  uint64_t bytes;
  rtel_tstamp t_cmd;
  rtel_tstamp t_cap_last;
  rtel_tstamp t_d1; /* first data packet (RDMA WRITE: read data) */
  rtel_tstamp t_dn;
  rtel_tstamp t_q;  /* first READ REQUEST */
  rtel_tstamp t_p1; /* first READ RESPONSE */
  rtel_tstamp t_pn;
  nsgl sgl[RTEL__IO_SGL];
} nio;

/* A completed I/O waiting for its twin. */
typedef struct njoin {
  uint32_t hnext;
  uint32_t fprev;
  uint32_t fnext;
  uint32_t hash;
  uint32_t obs;
  uint32_t used;
  rtel_tstamp expire;
  rtel_io_record rec;
} njoin;

size_t rtel__nvme_io_size(void) {
  /* the entry, its (queue, CID) bucket share and its key-index bucket
   * share (both sized 2 x capacity) */
  return sizeof(nio) + 2 * sizeof(uint32_t) + 2 * sizeof(uint32_t);
}

static inline uint16_t le16(const uint8_t *p) {
  return (uint16_t)(p[0] | p[1] << 8);
}
static inline uint32_t le24(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
}
static inline uint32_t le32(const uint8_t *p) {
  return le24(p) | (uint32_t)p[3] << 24;
}
static inline uint64_t le64(const uint8_t *p) {
  return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static inline int32_t psn_diff(uint32_t a, uint32_t b) {
  uint32_t d = (a - b) & PSN_MASK;
  return d & 0x800000u ? (int32_t)d - 0x1000000 : (int32_t)d;
}

static nio *io_at(const rtel__nvme *n, uint32_t i) {
  return (nio *)(void *)(n->ios + (size_t)i * sizeof(nio));
}
static njoin *join_at(const rtel__nvme *n, uint32_t i) {
  return (njoin *)(void *)(n->joins + (size_t)i * sizeof(njoin));
}
static nq *queue_at(const rtel__nvme *n, uint32_t i) {
  return (nq *)(void *)rtel__qtab_at(&n->queues, i);
}

static uint32_t mix32(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return (uint32_t)x;
}

static uint32_t pow2_at_least(uint32_t v) {
  uint32_t p = 1;
  while (p < v) {
    p <<= 1;
  }
  return p;
}

/* ------------------------------------------------------------ setup */

int rtel__nvme_init(rtel__nvme *n, const rtel_settings *s,
                    const rtel__flowtab *pairs, const rtel__env *env) {
  const rtel_mem *mem = env->mem;
  uint32_t nq_cap = s->max_nvme_queues ? s->max_nvme_queues : 1024;
  uint32_t nios = s->max_ios ? s->max_ios : 16384;
  uint32_t njoins = s->max_io_joins ? s->max_io_joins : nios;
  uint32_t i, nb;
  int rv;

  memset(n, 0, sizeof(*n));
  n->env = *env;
  n->pairs = pairs;
  n->flags = s->nvme_flags;
  n->io_timeout = s->io_timeout ? s->io_timeout : 5000000000ull;
  n->join_window = s->io_join_window ? s->io_join_window : 1000000000ull;
  memcpy(n->ports, s->nvme_ports, sizeof(n->ports));
  if (!n->ports[0] && !n->ports[1] && !n->ports[2] && !n->ports[3]) {
    n->ports[0] = 4420;
  }
  n->unpaired_head = RTEL__NIL;
  n->io_fifo_head = n->io_fifo_tail = RTEL__NIL;
  n->join_fifo_head = n->join_fifo_tail = RTEL__NIL;
  if (n->flags & RTEL_NVME_DISABLE) {
    return 0;
  }
  if ((rv = rtel__qtab_init(&n->queues, nq_cap, sizeof(nq),
                            s->hash_seed ^ 0x27d4eb2fu, mem)) != 0 ||
      (rv = rtel__qtab_init(&n->rev, nq_cap, sizeof(nrev),
                            s->hash_seed ^ 0x165667b1u, mem)) != 0) {
    rtel__nvme_free(n);
    return rv;
  }
  nb = pow2_at_least(nios * 2u);
  n->ios = mem->calloc(nios, sizeof(nio), mem->user_data);
  n->io_buckets = mem->malloc((size_t)nb * sizeof(uint32_t), mem->user_data);
  n->key_buckets = mem->malloc((size_t)nb * sizeof(uint32_t), mem->user_data);
  n->joins = mem->calloc(njoins, sizeof(njoin), mem->user_data);
  n->join_buckets = mem->malloc(
      (size_t)pow2_at_least(njoins * 2u) * sizeof(uint32_t), mem->user_data);
  if (!n->ios || !n->io_buckets || !n->key_buckets || !n->joins ||
      !n->join_buckets) {
    rtel__nvme_free(n);
    return RTEL_ERR_NOMEM;
  }
  n->io_cap = nios;
  n->io_mask = nb - 1;
  n->key_mask = nb - 1;
  for (i = 0; i < nb; i++) {
    n->io_buckets[i] = RTEL__NIL;
    n->key_buckets[i] = RTEL__NIL;
  }
  for (i = 0; i < nios; i++) {
    io_at(n, i)->hnext = i + 1 < nios ? i + 1 : RTEL__NIL;
  }
  n->io_free = 0;
  n->join_cap = njoins;
  n->join_mask = pow2_at_least(njoins * 2u) - 1;
  for (i = 0; i <= n->join_mask; i++) {
    n->join_buckets[i] = RTEL__NIL;
  }
  for (i = 0; i < njoins; i++) {
    join_at(n, i)->hnext = i + 1 < njoins ? i + 1 : RTEL__NIL;
  }
  n->join_free = 0;
  return 0;
}

void rtel__nvme_free(rtel__nvme *n) {
  const rtel_mem *mem = n->env.mem;
  void **ps[] = {(void **)&n->ios, (void **)&n->io_buckets,
                 (void **)&n->key_buckets, (void **)&n->joins,
                 (void **)&n->join_buckets};
  size_t i;
  if (mem == NULL) {
    return; /* never initialised */
  }
  rtel__qtab_free(&n->queues, mem);
  rtel__qtab_free(&n->rev, mem);
  for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
    if (*ps[i]) {
      mem->free(*ps[i], mem->user_data);
      *ps[i] = NULL;
    }
  }
}

/* ------------------------------------------------------------ queues */

static nq *queue_find(const rtel__nvme *n, uint32_t obs, const uint8_t *host,
                      const uint8_t *target, uint32_t tqpn) {
  rtel__qkey k;
  memcpy(k.src, host, 16);
  memcpy(k.dst, target, 16);
  k.obs = obs;
  k.qpn = tqpn;
  return (nq *)(void *)rtel__qtab_find(&n->queues, &k,
                                       rtel__qkey_hash(&n->queues, &k));
}

static void unpaired_unlink(rtel__nvme *n, nq *q) {
  if (q->up_prev == RTEL__NIL && n->unpaired_head != rtel__qtab_idx(&n->queues,
                                                                    &q->q)) {
    return; /* not on the list */
  }
  if (q->up_prev == RTEL__NIL) {
    n->unpaired_head = q->up_next;
  } else {
    queue_at(n, q->up_prev)->up_next = q->up_next;
  }
  if (q->up_next != RTEL__NIL) {
    queue_at(n, q->up_next)->up_prev = q->up_prev;
  }
  q->up_prev = q->up_next = RTEL__NIL;
}

/* Records the host QPN of |q| and indexes the reverse direction. */
static void queue_set_hqpn(rtel__nvme *n, nq *q, uint32_t hqpn) {
  rtel__qkey k;
  uint32_t h;
  nrev *r;

  if (q->hqpn == hqpn) {
    return;
  }
  if (q->hqpn != RTEL_QPN_NONE) {
    memcpy(k.src, q->q.key.dst, 16);
    memcpy(k.dst, q->q.key.src, 16);
    k.obs = q->q.key.obs;
    k.qpn = q->hqpn;
    r = (nrev *)(void *)rtel__qtab_find(&n->rev, &k,
                                        rtel__qkey_hash(&n->rev, &k));
    if (r) {
      rtel__qtab_remove(&n->rev, &r->q);
    }
  }
  unpaired_unlink(n, q);
  q->hqpn = hqpn;
  memcpy(k.src, q->q.key.dst, 16);
  memcpy(k.dst, q->q.key.src, 16);
  k.obs = q->q.key.obs;
  k.qpn = hqpn;
  h = rtel__qkey_hash(&n->rev, &k);
  r = (nrev *)(void *)rtel__qtab_find(&n->rev, &k, h);
  if (r == NULL) {
    if (n->rev.used == n->rev.cap) {
      rtel__qtab_remove(&n->rev, rtel__qtab_oldest(&n->rev));
    }
    r = (nrev *)(void *)rtel__qtab_insert(&n->rev, &k, h);
  }
  r->queue = rtel__qtab_idx(&n->queues, &q->q);
}

static int end_io(rtel__nvme *n, nio *io, uint32_t state, int report);

/* Removes |q| and everything hanging off it; its I/Os end "evicted". */
static int queue_remove(rtel__nvme *n, nq *q) {
  int rv = 0;
  while (q->io_head != RTEL__NIL) {
    int r = end_io(n, io_at(n, q->io_head), RTEL_IO_EVICTED,
                   q->state == Q_CONFIRMED);
    if (r != 0 && rv == 0) {
      rv = r;
    }
  }
  if (q->hqpn != RTEL_QPN_NONE) {
    rtel__qkey k;
    nrev *r;
    memcpy(k.src, q->q.key.dst, 16);
    memcpy(k.dst, q->q.key.src, 16);
    k.obs = q->q.key.obs;
    k.qpn = q->hqpn;
    r = (nrev *)(void *)rtel__qtab_find(&n->rev, &k,
                                        rtel__qkey_hash(&n->rev, &k));
    if (r) {
      rtel__qtab_remove(&n->rev, &r->q);
    }
  } else {
    unpaired_unlink(n, q);
  }
  rtel__qtab_remove(&n->queues, &q->q);
  return rv;
}

static nq *queue_new(rtel__nvme *n, uint32_t obs, uint32_t port,
                     const uint8_t *host, const uint8_t *target, uint32_t tqpn,
                     uint32_t state, int *prv) {
  rtel__qkey k;
  nq *q;
  uint32_t i;

  *prv = 0;
  memcpy(k.src, host, 16);
  memcpy(k.dst, target, 16);
  k.obs = obs;
  k.qpn = tqpn;
  if (n->queues.used == n->queues.cap) {
    n->env.stats->nvme_queues_evicted++;
    *prv = queue_remove(n, (nq *)(void *)rtel__qtab_oldest(&n->queues));
    if (*prv != 0) {
      return NULL;
    }
  }
  q = (nq *)(void *)rtel__qtab_insert(&n->queues, &k,
                                      rtel__qkey_hash(&n->queues, &k));
  q->hqpn = RTEL_QPN_NONE;
  q->state = state;
  q->qid = -1;
  q->port = port;
  q->cand = RTEL_QPN_NONE;
  q->wr_io = q->rr_io = q->cap_io = q->io_head = RTEL__NIL;
  for (i = 0; i < RTEL__RDREQ_RING; i++) {
    q->rdreq[i].io = RTEL__NIL;
    q->wrs[i].io = RTEL__NIL;
  }
  /* on the unpaired list until the host QPN is known */
  q->up_prev = RTEL__NIL;
  q->up_next = n->unpaired_head;
  if (n->unpaired_head != RTEL__NIL) {
    queue_at(n, n->unpaired_head)->up_prev = rtel__qtab_idx(&n->queues, &q->q);
  }
  n->unpaired_head = rtel__qtab_idx(&n->queues, &q->q);
  /* the flow table may know the pair already (CM, ACK PSNs) */
  i = rtel__flow_peer(n->pairs, obs, host, target, tqpn);
  if (i != RTEL_QPN_NONE) {
    queue_set_hqpn(n, q, i);
  }
  return q;
}

static int port_is_nvme(const rtel__nvme *n, uint64_t sid) {
  unsigned i;
  /* IP-CM service ID, TCP port space: 0x0000000001 06 PPPP */
  if ((sid & 0xFFFFFFFFFFFF0000ull) != 0x0000000001060000ull) {
    return 0;
  }
  for (i = 0; i < 4; i++) {
    if (n->ports[i] && n->ports[i] == (sid & 0xffff)) {
      return 1;
    }
  }
  return 0;
}

void rtel__nvme_cm_conn(rtel__nvme *n, const rtel__cm_conn *c) {
  nq *q;
  int rv;

  if ((n->flags & RTEL_NVME_DISABLE) || !port_is_nvme(n, c->service_id)) {
    return;
  }
  /* the requester is the host; commands go to the responder's QP */
  q = queue_find(n, c->obs, c->req_ip, c->rsp_ip, c->rsp_qpn);
  if (q == NULL) {
    q = queue_new(n, c->obs, c->port, c->req_ip, c->rsp_ip, c->rsp_qpn,
                  Q_CONFIRMED, &rv);
    if (q == NULL) {
      return;
    }
  }
  q->state = Q_CONFIRMED;
  if (c->nvme_qid >= 0) {
    q->qid = c->nvme_qid;
  }
  queue_set_hqpn(n, q, c->req_qpn);
  n->env.stats->nvme_queues_cm++;
}

static nio *io_by_key(const rtel__nvme *n, uint32_t queue, uint32_t key,
                      uint64_t va);
static void join_expire(rtel__nvme *n, uint32_t obs,
                        rtel_tstamp obs_now);

/* The queue a target -> host packet belongs to, learning the pair from
 * the flow table (CM, ACK PSNs) or from keyed data when the NVMe side does
 * not know it yet. */
static nq *queue_of_t2h(rtel__nvme *n, uint32_t obs, const rtel_pkt_hd *hd) {
  rtel__qkey k;
  nrev *r;
  uint32_t tqpn;
  nq *q;

  memcpy(k.src, hd->src, 16);
  memcpy(k.dst, hd->dst, 16);
  k.obs = obs;
  k.qpn = hd->dqpn;
  r = (nrev *)(void *)rtel__qtab_find(&n->rev, &k,
                                      rtel__qkey_hash(&n->rev, &k));
  if (r) {
    return queue_at(n, r->queue);
  }
  tqpn = rtel__flow_peer(n->pairs, obs, hd->src, hd->dst, hd->dqpn);
  if (tqpn == RTEL_QPN_NONE) {
    /* An RDMA WRITE or READ REQUEST whose RETH key and address fall in an
     * outstanding command's keyed SGL names that command's queue: of the
     * unpaired queues between these two hosts, the one that holds it. */
    uint32_t i;
    if (!(hd->flags & RTEL_HD_F_RETH)) {
      return NULL;
    }
    for (i = n->unpaired_head; i != RTEL__NIL; i = queue_at(n, i)->up_next) {
      q = queue_at(n, i);
      if (q->q.key.obs == obs && memcmp(q->q.key.src, hd->dst, 16) == 0 &&
          memcmp(q->q.key.dst, hd->src, 16) == 0 &&
          io_by_key(n, i, hd->reth_rkey, hd->reth_va)) {
        queue_set_hqpn(n, q, hd->dqpn);
        return q;
      }
    }
    return NULL;
  }
  q = queue_find(n, obs, hd->dst, hd->src, tqpn);
  if (q && q->hqpn == RTEL_QPN_NONE) {
    queue_set_hqpn(n, q, hd->dqpn);
  }
  return q && q->hqpn == hd->dqpn ? q : NULL;
}

/* ------------------------------------------------------------ I/Os */

static uint32_t io_hash(uint32_t queue, uint16_t cid) {
  return mix32((uint64_t)queue << 16 | cid);
}

static uint32_t key_hash(uint32_t queue, uint32_t key) {
  return mix32((uint64_t)queue << 32 | key) ^ 0x9e3779b9u;
}

static nio *io_find(const rtel__nvme *n, uint32_t queue, uint16_t cid) {
  uint32_t i = n->io_buckets[io_hash(queue, cid) & n->io_mask];
  while (i != RTEL__NIL) {
    nio *io = io_at(n, i);
    if (io->queue == queue && io->cid == cid) {
      return io;
    }
    i = io->hnext;
  }
  return NULL;
}

/* The I/O of |queue| whose keyed SGL covers (key, va). */
static nio *io_by_key(const rtel__nvme *n, uint32_t queue, uint32_t key,
                      uint64_t va) {
  uint32_t e = n->key_buckets[key_hash(queue, key) & n->key_mask];
  while (e != RTEL__NIL) {
    nio *io = io_at(n, e >> 2);
    const nsgl *g = &io->sgl[e & 3];
    if (io->queue == queue && g->key == key && va >= g->va &&
        va - g->va < (g->len ? g->len : 1)) {
      return io;
    }
    e = g->knext;
  }
  return NULL;
}

static void io_unlink(rtel__nvme *n, nio *io) {
  uint32_t i = (uint32_t)((size_t)((uint8_t *)io - n->ios) / sizeof(nio));
  uint32_t *pp = &n->io_buckets[io_hash(io->queue, io->cid) & n->io_mask];
  nq *q = queue_at(n, io->queue);
  unsigned d;

  while (*pp != i) {
    pp = &io_at(n, *pp)->hnext;
  }
  *pp = io->hnext;
  for (d = 0; d < io->nsgl; d++) {
    uint32_t me = i << 2 | d;
    uint32_t *kp = &n->key_buckets[key_hash(io->queue, io->sgl[d].key) &
                                   n->key_mask];
    while (*kp != me) {
      kp = &io_at(n, *kp >> 2)->sgl[*kp & 3].knext;
    }
    *kp = io->sgl[d].knext;
  }
  if (io->fprev == RTEL__NIL) {
    n->io_fifo_head = io->fnext;
  } else {
    io_at(n, io->fprev)->fnext = io->fnext;
  }
  if (io->fnext == RTEL__NIL) {
    n->io_fifo_tail = io->fprev;
  } else {
    io_at(n, io->fnext)->fprev = io->fprev;
  }
  if (io->qprev == RTEL__NIL) {
    q->io_head = io->qnext;
  } else {
    io_at(n, io->qprev)->qnext = io->qnext;
  }
  if (io->qnext != RTEL__NIL) {
    io_at(n, io->qnext)->qprev = io->qprev;
  }
  if (q->wr_io == i) {
    q->wr_io = RTEL__NIL;
  }
  if (q->rr_io == i) {
    q->rr_io = RTEL__NIL;
  }
  if (q->cap_io == i) {
    q->cap_io = RTEL__NIL;
  }
  /* only an I/O that had data rings entries to forget (a completion of
   * one without data skips the scan) */
  for (d = 0; io->in_rings && d < RTEL__RDREQ_RING; d++) {
    if (q->rdreq[d].io == i) {
      q->rdreq[d].io = RTEL__NIL;
    }
    if (q->wrs[d].io == i) {
      q->wrs[d].io = RTEL__NIL;
    }
  }
  io->used = 0;
  io->hnext = n->io_free;
  n->io_free = i;
  n->io_used--;
}

static int64_t dur(rtel_tstamp a, rtel_tstamp b) {
  if (a == RTEL_TSTAMP_NONE || b == RTEL_TSTAMP_NONE) {
    return RTEL_DURATION_NONE;
  }
  return (int64_t)(a - b);
}

static void fill_record(const nq *q, const nio *io,
                        uint32_t state, rtel_tstamp t_rsp, uint16_t status,
                        uint32_t rflags, rtel_io_record *r) {
  memset(r, 0, sizeof(*r));
  r->obs = q->q.key.obs;
  r->port = io ? io->port : q->port;
  r->state = state;
  memcpy(r->host, q->q.key.src, 16);
  memcpy(r->target, q->q.key.dst, 16);
  r->host_qpn = q->hqpn;
  r->target_qpn = q->q.key.qpn;
  r->flags = rflags;
  if (memcmp(r->host, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12) != 0) {
    r->flags |= RTEL_IO_F_IPV6;
  }
  if (q->qid >= 0) {
    r->qid = (uint16_t)q->qid;
    r->flags |= RTEL_IO_F_QID;
    if (q->qid == 0) {
      r->flags |= RTEL_IO_F_ADMIN;
    }
  }
  r->nvme_status = status;
  r->t_rsp = t_rsp;
  r->t_cmd = r->t_data_first = r->t_data_last = r->t_rdreq =
      RTEL_TSTAMP_NONE;
  r->iol = r->dal = r->dpl = r->xfer = RTEL_DURATION_NONE;
  if (io == NULL) {
    return;
  }
  r->cid = io->cid;
  r->opcode = io->opcode;
  r->fctype = io->fctype;
  if (io->opcode == RTEL_NVME_OP_FABRICS) {
    r->flags |= RTEL_IO_F_FABRICS;
  }
  if (io->incapsule) {
    r->flags |= RTEL_IO_F_INCAPSULE;
  }
  r->nsid = io->nsid;
  r->nlb = io->nlb;
  r->slba = io->slba;
  r->bytes = io->bytes;
  r->t_cmd = io->t_cmd;
  if (io->t_d1 != RTEL_TSTAMP_NONE) {
    /* data to the host (a read) */
    r->t_data_first = io->t_d1;
    r->t_data_last = io->t_dn;
    r->xfer = dur(io->t_dn, io->t_d1);
    if (t_rsp != RTEL_TSTAMP_NONE) {
      r->dal = dur(io->t_d1, io->t_cmd);
    }
  } else if (io->t_q != RTEL_TSTAMP_NONE) {
    /* data fetched from the host (a write) */
    r->t_rdreq = io->t_q;
    r->t_data_first = io->t_p1;
    r->t_data_last = io->t_pn;
    r->dpl = dur(io->t_p1, io->t_q);
    r->xfer = dur(io->t_pn, io->t_p1);
    if (t_rsp != RTEL_TSTAMP_NONE && io->t_pn != RTEL_TSTAMP_NONE) {
      r->dal = (int64_t)(io->t_q - io->t_cmd) + (int64_t)(t_rsp - io->t_pn);
    }
  } else if (io->incapsule && io->opcode == RTEL_NVME_OP_WRITE) {
    /* an in-capsule write: the data came with the command */
    r->t_data_first = io->t_cmd;
    r->t_data_last = io->t_cap_last;
    r->xfer = dur(io->t_cap_last, io->t_cmd);
    r->dal = dur(t_rsp, io->t_cmd);
  }
  /* other commands without a data phase (flush, most admin and Fabrics
   * commands) have an IOL only */
  r->iol = dur(t_rsp, io->t_cmd);
}

/* Hands a record to the hub (which counts it by state, aggregates it and
 * judges it). */
static int deliver(rtel__nvme *n, rtel_io_record *r) {
  return n->env.sink->io(n->env.sink->hub, r);
}

/* Ends |io| without a response (timeout, eviction); reported only when
 * |report| (its queue is confirmed). */
static int end_io(rtel__nvme *n, nio *io, uint32_t state, int report) {
  rtel_io_record r;
  if (report) {
    fill_record(queue_at(n, io->queue), io, state, RTEL_TSTAMP_NONE, 0,
                0, &r);
  }
  io_unlink(n, io);
  return report ? deliver(n, &r) : 0;
}

/* ------------------------------------------------------------ joins */

static uint32_t join_hash(const rtel_io_record *r) {
  uint64_t w[5], h = 0x51ed270b27a1b3c5ull;
  size_t i;
  memcpy(w, r->host, 16);
  memcpy(w + 2, r->target, 16);
  w[4] = (uint64_t)r->target_qpn << 32 | (uint64_t)r->cid << 8 | r->opcode;
  for (i = 0; i < 5; i++) {
    h = (h ^ w[i]) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
  }
  return mix32(h ^ r->slba ^ (r->bytes << 17));
}

static int join_same(const rtel_io_record *a, const rtel_io_record *b) {
  return a->target_qpn == b->target_qpn && a->cid == b->cid &&
         a->opcode == b->opcode && a->fctype == b->fctype &&
         a->nsid == b->nsid && a->slba == b->slba &&
         a->bytes == b->bytes && memcmp(a->host, b->host, 16) == 0 &&
         memcmp(a->target, b->target, 16) == 0;
}

static void join_remove(rtel__nvme *n, njoin *j) {
  uint32_t i = (uint32_t)((size_t)((uint8_t *)j - n->joins) / sizeof(njoin));
  uint32_t *pp = &n->join_buckets[j->hash & n->join_mask];
  while (*pp != i) {
    pp = &join_at(n, *pp)->hnext;
  }
  *pp = j->hnext;
  if (j->fprev == RTEL__NIL) {
    n->join_fifo_head = j->fnext;
  } else {
    join_at(n, j->fprev)->fnext = j->fnext;
  }
  if (j->fnext == RTEL__NIL) {
    n->join_fifo_tail = j->fprev;
  } else {
    join_at(n, j->fnext)->fprev = j->fprev;
  }
  j->used = 0;
  j->hnext = n->join_free;
  n->join_free = i;
  n->join_used--;
}

static uint32_t role_of(const rtel__nvme *n, uint32_t obs) {
  uint32_t i;
  for (i = 0; i < n->nroles; i++) {
    if (n->role_obs[i] == obs) {
      return n->role[i];
    }
  }
  return RTEL_ROLE_UNKNOWN;
}

int rtel__nvme_set_role(rtel__nvme *n, uint32_t obs, uint32_t role) {
  uint32_t i;
  if (role > RTEL_ROLE_FABRIC) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  for (i = 0; i < n->nroles; i++) {
    if (n->role_obs[i] == obs) {
      n->role[i] = (uint8_t)role;
      return 0;
    }
  }
  if (n->nroles == RTEL_MAX_OBS_ROLES) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  n->role_obs[n->nroles] = obs;
  n->role[n->nroles++] = (uint8_t)role;
  return 0;
}

/* Builds the segmented record of |a| and |b| (the same I/O at two
 * points). Returns 0 if the roles say these two are not joined. */
static int segment(const rtel__nvme *n, const rtel_io_record *a,
                   const rtel_io_record *b, rtel_segment_record *s) {
  uint32_t ra = role_of(n, a->obs), rb = role_of(n, b->obs);
  const rtel_io_record *c, *st;
  int configured = 1;

  if (ra == RTEL_ROLE_FABRIC || rb == RTEL_ROLE_FABRIC) {
    return 0;
  }
  if (ra == RTEL_ROLE_COMPUTE || rb == RTEL_ROLE_STORAGE) {
    c = a;
    st = b;
  } else if (rb == RTEL_ROLE_COMPUTE || ra == RTEL_ROLE_STORAGE) {
    c = b;
    st = a;
  } else {
    /* inferred: the point nearer the host sees the longer latency */
    configured = 0;
    if (a->iol >= b->iol) {
      c = a;
      st = b;
    } else {
      c = b;
      st = a;
    }
  }
  if ((ra == RTEL_ROLE_COMPUTE && rb == RTEL_ROLE_COMPUTE) ||
      (ra == RTEL_ROLE_STORAGE && rb == RTEL_ROLE_STORAGE)) {
    return 0;
  }
  memset(s, 0, sizeof(*s));
  s->compute_obs = c->obs;
  s->storage_obs = st->obs;
  s->flags = c->flags;
  s->roles_configured = (uint32_t)configured;
  memcpy(s->host, c->host, 16);
  memcpy(s->target, c->target, 16);
  s->target_qpn = c->target_qpn;
  s->cid = c->cid;
  s->opcode = c->opcode;
  s->nsid = c->nsid;
  s->slba = c->slba;
  s->bytes = c->bytes;
  s->iol1 = c->iol;
  s->iol2 = st->iol;
  s->rtt = c->iol - st->iol;
  if (c->dpl != RTEL_DURATION_NONE && st->dpl != RTEL_DURATION_NONE) {
    /* a write: the host's data preparation is compute time */
    s->compute = c->dpl;
    s->network = (c->iol - st->iol) + (st->dpl - c->dpl);
  } else {
    s->compute = 0;
    s->network = c->iol - st->iol;
  }
  s->storage = s->iol1 - s->compute - s->network;
  return 1;
}

/* Offers a completed I/O record for joining with another point's. */
static int join_offer(rtel__nvme *n, const rtel_io_record *r) {
  uint32_t h = join_hash(r), i;
  njoin *j;

  if (role_of(n, r->obs) == RTEL_ROLE_FABRIC) {
    return 0;
  }
  /* the oldest waiting twin (the chain holds the newest first) */
  j = NULL;
  for (i = n->join_buckets[h & n->join_mask]; i != RTEL__NIL;
       i = join_at(n, i)->hnext) {
    njoin *c = join_at(n, i);
    if (c->hash == h && c->obs != r->obs && join_same(&c->rec, r)) {
      j = c;
    }
  }
  if (j != NULL) {
    rtel_segment_record s;
    int ok = segment(n, &j->rec, r, &s);
    join_remove(n, j);
    if (!ok) {
      return 0;
    }
    return n->env.sink->segment(n->env.sink->hub, &s);
  }
  if (n->join_free == RTEL__NIL) {
    /* full: the oldest waiter gives up */
    n->env.stats->io_join_unmatched += n->multi_obs;
    join_remove(n, join_at(n, n->join_fifo_head));
  }
  i = n->join_free;
  j = join_at(n, i);
  n->join_free = j->hnext;
  n->join_used++;
  j->used = 1;
  j->hash = h;
  j->obs = r->obs;
  j->rec = *r;
  j->expire = r->t_rsp + n->join_window;
  j->hnext = n->join_buckets[h & n->join_mask];
  n->join_buckets[h & n->join_mask] = i;
  j->fprev = n->join_fifo_tail;
  j->fnext = RTEL__NIL;
  if (n->join_fifo_tail != RTEL__NIL) {
    join_at(n, n->join_fifo_tail)->fnext = i;
  } else {
    n->join_fifo_head = i;
  }
  n->join_fifo_tail = i;
  return 0;
}

/* ------------------------------------------------------------ capsules */

/* Does |b| (at least 64 bytes) look like an NVMe-oF SQE? Used to guess
 * queues mid-stream; a completion with a matching CID must confirm it. */
static int sqe_shape(const uint8_t *b) {
  uint8_t psdt = (uint8_t)(b[1] >> 6), fuse = b[1] & 3u;
  uint8_t sgl_type = (uint8_t)(b[39] >> 4), sgl_sub = b[39] & 0xfu;
  if (psdt == 0 || psdt == 3 || fuse != 0) {
    return 0; /* NVMe-oF commands use SGLs and are not fused here */
  }
  switch (sgl_type) {
  case 0x4: /* keyed data block: address or invalidate */
    return sgl_sub == 0x0 || sgl_sub == 0xf;
  case 0x0: /* data block, offset: in-capsule data */
  case 0x3: /* last segment, offset */
    return sgl_sub == 0x1;
  default:
    return 0;
  }
}

static void add_key(rtel__nvme *n, uint32_t ioi, nio *io, uint64_t va,
                    uint32_t len, uint32_t key) {
  nsgl *g;
  uint32_t *b;
  if (io->nsgl == RTEL__IO_SGL) {
    io->bytes += len;
    return;
  }
  g = &io->sgl[io->nsgl];
  g->va = va;
  g->len = len;
  g->key = key;
  b = &n->key_buckets[key_hash(io->queue, key) & n->key_mask];
  g->knext = *b;
  *b = ioi << 2 | io->nsgl;
  io->nsgl++;
  io->bytes += len;
}

/* The data descriptors of the SQE |b|; |cap| bytes of the capsule are
 * available (a Last Segment list lives in the capsule after the SQE). */
static void parse_sgl(rtel__nvme *n, uint32_t ioi, nio *io, const uint8_t *b,
                      uint32_t cap) {
  const uint8_t *d = b + 24;
  uint8_t type = (uint8_t)(d[15] >> 4), sub = d[15] & 0xfu;
  if (type == 0x4) {
    add_key(n, ioi, io, le64(d), le24(d + 8), le32(d + 11));
  } else if (type == 0x0 && sub == 0x1) {
    io->incapsule = 1;
    io->bytes = le32(d + 8);
  } else if (type == 0x3 && sub == 0x1) {
    uint64_t off = le64(d);
    uint32_t len = le32(d + 8), i;
    if (off > cap) {
      return; /* the list is not in the captured part of the capsule */
    }
    for (i = 0; i + 16 <= len && SQE_LEN + off + i + 16 <= cap; i += 16) {
      const uint8_t *e = b + SQE_LEN + off + i;
      if ((e[15] >> 4) == 0x4) {
        add_key(n, ioi, io, le64(e), le24(e + 8), le32(e + 11));
      }
    }
  }
}

static int command(rtel__nvme *n, const rtel_pkt_info *pi,
                   const rtel_pkt_hd *hd, const uint8_t *pkt, int first_only) {
  const uint8_t *b = pkt + hd->payload_off;
  uint32_t qi, ioi;
  nq *q;
  nio *io;
  uint16_t cid;
  int rv = 0;

  q = queue_find(n, pi->obs, hd->src, hd->dst, hd->dqpn);
  if (q == NULL) {
    int connect = b[0] == RTEL_NVME_OP_FABRICS && b[4] == 0x01;
    if (!connect && ((n->flags & RTEL_NVME_NO_GUESS) || !sqe_shape(b))) {
      return 0;
    }
    q = queue_new(n, pi->obs, pi->port, hd->src, hd->dst, hd->dqpn,
                  connect ? Q_CONFIRMED : Q_GUESSED, &rv);
    if (q == NULL) {
      return rv;
    }
  } else {
    rtel__qtab_touch(&n->queues, &q->q);
  }
  /* a resend of a capsule already seen: C stays the first copy */
  if (q->h2t_valid && psn_diff(hd->psn, q->h2t_psn) <= 0) {
    n->env.stats->nvme_capsule_dups++;
    return 0;
  }
  q->h2t_psn = hd->psn;
  q->h2t_valid = 1;
  if (b[0] == RTEL_NVME_OP_FABRICS && b[4] == 0x01) {
    /* Fabrics Connect opens the queue: its QID is in CDW10 */
    if (q->state != Q_CONFIRMED) {
      q->state = Q_CONFIRMED;
    }
    if (q->qid < 0) {
      n->env.stats->nvme_queues_connect++;
    }
    q->qid = le16(b + 42);
  }
  qi = rtel__qtab_idx(&n->queues, &q->q);
  cid = le16(b + 2);
  io = io_find(n, qi, cid);
  if (io != NULL) {
    /* the CID is reused while outstanding: its response was missed */
    if ((rv = end_io(n, io, RTEL_IO_TIMEOUT, q->state == Q_CONFIRMED)) !=
        0) {
      return rv;
    }
  }
  if (n->io_free == RTEL__NIL) {
    /* full: the oldest outstanding command (likely lost) makes room */
    nio *old = io_at(n, n->io_fifo_head);
    n->env.stats->ios_untracked++;
    if ((rv = end_io(n, old, RTEL_IO_EVICTED,
                     queue_at(n, old->queue)->state == Q_CONFIRMED)) != 0) {
      return rv;
    }
    q = queue_at(n, qi);
  }
  ioi = n->io_free;
  io = io_at(n, ioi);
  n->io_free = io->hnext;
  n->io_used++;
  memset(io, 0, sizeof(*io));
  io->used = 1;
  io->queue = qi;
  io->cid = cid;
  io->opcode = b[0];
  io->cmd_psn = hd->psn;
  io->port = pi->port;
  if (b[0] == RTEL_NVME_OP_FABRICS) {
    io->fctype = b[4];
  } else {
    io->nsid = le32(b + 4);
  }
  if (b[0] == RTEL_NVME_OP_READ || b[0] == RTEL_NVME_OP_WRITE) {
    io->slba = le64(b + 40);
    io->nlb = (uint32_t)le16(b + 48) + 1;
  }
  io->t_cmd = pi->ts;
  io->t_cap_last = pi->ts;
  io->t_d1 = io->t_dn = io->t_q = io->t_p1 = io->t_pn = RTEL_TSTAMP_NONE;
  parse_sgl(n, ioi, io, b, hd->payload_cap);
  /* link: (queue, CID) hash, FIFO, the queue's list */
  {
    uint32_t *bk = &n->io_buckets[io_hash(qi, cid) & n->io_mask];
    io->hnext = *bk;
    *bk = ioi;
  }
  io->fprev = n->io_fifo_tail;
  io->fnext = RTEL__NIL;
  if (n->io_fifo_tail != RTEL__NIL) {
    io_at(n, n->io_fifo_tail)->fnext = ioi;
  } else {
    n->io_fifo_head = ioi;
  }
  n->io_fifo_tail = ioi;
  io->qprev = RTEL__NIL;
  io->qnext = q->io_head;
  if (q->io_head != RTEL__NIL) {
    io_at(n, q->io_head)->qprev = ioi;
  }
  q->io_head = ioi;
  q->cap_io = first_only ? RTEL__NIL : ioi;
  return 0;
}

/* Finds the queue and I/O a completion belongs to when the host QPN of
 * the queue is unknown: the one unpaired queue between these two hosts
 * with an outstanding command of this CID. */
static int complete(rtel__nvme *n, nq *q, uint16_t cid, rtel_tstamp ts,
                    uint16_t status, uint32_t flags);

/* A completion on a host QP that no queue is paired with: of the unpaired
 * queues between these two hosts, the one with an outstanding command of
 * this CID is a candidate. A CID alone proves little (the completion may
 * answer a command sent before the capture began), so two completions in
 * a row from that host QP must each match the candidate before the pair
 * is believed; the first is held and delivered then. Returns the queue
 * once paired (the current completion is then handled by the caller). */
static nq *pair_by_cid(rtel__nvme *n, const rtel_pkt_info *pi,
                       const rtel_pkt_hd *hd, uint16_t cid, uint16_t status,
                       uint32_t flags, int *prv) {
  uint32_t i, found = RTEL__NIL, count = 0;
  nio *io;
  nq *q;

  *prv = 0;
  for (i = n->unpaired_head; i != RTEL__NIL; i = queue_at(n, i)->up_next) {
    q = queue_at(n, i);
    if (q->q.key.obs == pi->obs && memcmp(q->q.key.src, hd->dst, 16) == 0 &&
        memcmp(q->q.key.dst, hd->src, 16) == 0 && io_find(n, i, cid)) {
      found = i;
      count++;
    }
  }
  if (count != 1) {
    return NULL;
  }
  q = queue_at(n, found);
  if (q->cand != hd->dqpn || q->cand_n == 0) {
    /* first evidence: hold this completion */
    q->cand = hd->dqpn;
    q->cand_n = 1;
    q->cand_cid = cid;
    q->cand_ts = pi->ts;
    q->cand_psn = hd->psn;
    q->cand_cmd_psn = io_find(n, found, cid)->cmd_psn;
    q->cand_status = status;
    q->cand_inval = (flags & RTEL_IO_F_INVALIDATE) != 0;
    return NULL;
  }
  /* second evidence from the same host QP: the pair is believed, and the
   * held completion is delivered first - if the command it answered is
   * still outstanding: its CID may be reused by a newer command since
   * (the old one then ended, timed out), which it does not answer */
  queue_set_hqpn(n, q, hd->dqpn);
  q->cand_n = 0;
  q->t2h_psn = q->cand_psn;
  q->t2h_valid = 1;
  io = io_find(n, found, (uint16_t)q->cand_cid);
  if (io != NULL && io->cmd_psn == q->cand_cmd_psn) {
    *prv = complete(n, q, (uint16_t)q->cand_cid, q->cand_ts,
                    q->cand_status,
                    q->cand_inval ? RTEL_IO_F_INVALIDATE : 0u);
  }
  return q;
}

/* The completion of CID |cid| on |q| at |ts|. */
static int complete(rtel__nvme *n, nq *q, uint16_t cid, rtel_tstamp ts,
                    uint16_t status, uint32_t flags) {
  rtel_io_record r;
  nio *io;
  int rv;

  io = io_find(n, rtel__qtab_idx(&n->queues, &q->q), cid);
  if (io == NULL) {
    if (q->state != Q_CONFIRMED) {
      return 0;
    }
    fill_record(q, NULL, RTEL_IO_ORPHAN, ts, status, flags, &r);
    r.cid = cid;
    return deliver(n, &r);
  }
  if (q->state != Q_CONFIRMED) {
    /* a completion carrying the CID of a guessed command confirms it */
    q->state = Q_CONFIRMED;
    n->env.stats->nvme_queues_confirmed++;
  }
  fill_record(q, io, RTEL_IO_COMPLETE, ts, status, flags, &r);
  io_unlink(n, io);
  if ((rv = deliver(n, &r)) != 0) {
    return rv;
  }
  return join_offer(n, &r);
}

static int response(rtel__nvme *n, const rtel_pkt_info *pi,
                    const rtel_pkt_hd *hd, const uint8_t *pkt, nq *q) {
  const uint8_t *c = pkt + hd->payload_off;
  uint16_t cid = le16(c + 12);
  uint16_t status = (uint16_t)(le16(c + 14) >> 1);
  uint32_t flags = (hd->flags & RTEL_HD_F_IETH) ? RTEL_IO_F_INVALIDATE : 0u;
  int rv;

  if (q == NULL) {
    q = pair_by_cid(n, pi, hd, cid, status, flags, &rv);
    if (q == NULL || rv != 0) {
      return rv;
    }
  }
  if (q->t2h_valid && psn_diff(hd->psn, q->t2h_psn) <= 0) {
    n->env.stats->nvme_capsule_dups++;
    return 0;
  }
  q->t2h_psn = hd->psn;
  q->t2h_valid = 1;
  return complete(n, q, cid, pi->ts, status, flags);
}

/* ------------------------------------------------------------ data */

static void read_data(rtel__nvme *n, const rtel_pkt_info *pi,
                      const rtel_pkt_hd *hd, nq *q, int first, int last) {
  nio *io = NULL;
  if (first) {
    if (hd->flags & RTEL_HD_F_RETH) {
      io = io_by_key(n, rtel__qtab_idx(&n->queues, &q->q), hd->reth_rkey,
                     hd->reth_va);
    }
    q->wr_io = io ? (uint32_t)((size_t)((uint8_t *)io - n->ios) /
                               sizeof(nio))
                  : RTEL__NIL;
    if (io) {
      q->wrs[q->wrs_next].psn = hd->psn;
      q->wrs[q->wrs_next].io = q->wr_io;
      q->wrs_next = (q->wrs_next + 1) % RTEL__RDREQ_RING;
      io->in_rings = 1;
    }
  } else if (q->wr_io != RTEL__NIL) {
    io = io_at(n, q->wr_io);
  } else {
    /* a MIDDLE or LAST with no write under way: a resend that restarted
     * mid-message; the write begun nearest before its PSN is its own */
    int32_t best = INT32_MAX;
    unsigned i;
    for (i = 0; i < RTEL__RDREQ_RING; i++) {
      int32_t d = psn_diff(hd->psn, q->wrs[i].psn);
      if (q->wrs[i].io != RTEL__NIL && d > 0 && d < best && d < 65536) {
        best = d;
        io = io_at(n, q->wrs[i].io);
      }
    }
  }
  if (io == NULL) {
    n->env.stats->nvme_data_unmatched++;
    return;
  }
  if (io->t_d1 == RTEL_TSTAMP_NONE) {
    io->t_d1 = pi->ts;
  }
  io->t_dn = pi->ts;
  if (last) {
    q->wr_io = RTEL__NIL; /* a MIDDLE without its FIRST matches nothing */
  }
}

static void read_request(rtel__nvme *n, const rtel_pkt_info *pi,
                         const rtel_pkt_hd *hd, nq *q) {
  nio *io = NULL;
  if (hd->flags & RTEL_HD_F_RETH) {
    io = io_by_key(n, rtel__qtab_idx(&n->queues, &q->q), hd->reth_rkey,
                   hd->reth_va);
  }
  if (io == NULL) {
    n->env.stats->nvme_data_unmatched++;
    return;
  }
  if (io->t_q == RTEL_TSTAMP_NONE) {
    io->t_q = pi->ts;
  }
  q->rdreq[q->rdreq_next].psn = hd->psn;
  q->rdreq[q->rdreq_next].io =
      (uint32_t)((size_t)((uint8_t *)io - n->ios) / sizeof(nio));
  q->rdreq_next = (q->rdreq_next + 1) % RTEL__RDREQ_RING;
  io->in_rings = 1;
}

static void read_response(rtel__nvme *n, const rtel_pkt_info *pi,
                          const rtel_pkt_hd *hd, nq *q, int first, int last) {
  nio *io = NULL;
  unsigned i;
  if (first || q->rr_io == RTEL__NIL) {
    /* responses carry their request's PSNs onward: the READ REQUEST with
     * the nearest PSN at or before this one (a MIDDLE or LAST whose FIRST
     * was lost still finds it) */
    int32_t best = INT32_MAX;
    q->rr_io = RTEL__NIL;
    for (i = 0; i < RTEL__RDREQ_RING; i++) {
      int32_t d = psn_diff(hd->psn, q->rdreq[i].psn);
      if (q->rdreq[i].io != RTEL__NIL && d >= 0 && d < best &&
          (first ? d == 0 : d < 65536)) {
        best = d;
        q->rr_io = q->rdreq[i].io;
      }
    }
  }
  if (q->rr_io != RTEL__NIL) {
    io = io_at(n, q->rr_io);
  }
  if (io == NULL) {
    n->env.stats->nvme_data_unmatched++;
    return;
  }
  if (io->t_p1 == RTEL_TSTAMP_NONE) {
    io->t_p1 = pi->ts;
  }
  io->t_pn = pi->ts;
  if (last) {
    q->rr_io = RTEL__NIL;
  }
}

/* ------------------------------------------------------------ entry */

int rtel__nvme_packet(rtel__nvme *n, const rtel_pkt_info *pi,
                      const rtel_pkt_hd *hd, const uint8_t *pkt) {
  uint8_t op = hd->opcode, base;
  nq *q;

  if (n->flags & RTEL_NVME_DISABLE) {
    return 0;
  }
  if (rtel__unlikely(!n->seen)) {
    n->seen = 1;
    n->first_obs = pi->obs;
  }
  if (rtel__unlikely(pi->obs != n->first_obs)) {
    n->multi_obs = 1; /* joins become possible */
  }
  if (n->join_fifo_head != RTEL__NIL) {
    join_expire(n, pi->obs, pi->ts);
  }
  /* NVMe-oF runs on RC QPs */
  if (op > 0x1f || (hd->flags & (RTEL_HD_F_UNKNOWN_OPCODE |
                                 RTEL_HD_F_UNKNOWN_TVER))) {
    return 0;
  }
  base = op;
  switch (base) {
  case 0x00: /* SEND FIRST */
  case 0x04: /* SEND ONLY */
    if (hd->payload_cap >= SQE_LEN && hd->payload_len >= SQE_LEN) {
      /* host -> target: a command capsule */
      return command(n, pi, hd, pkt, base == 0x04);
    }
    if (base == 0x04 && hd->payload_len == CQE_LEN &&
        hd->payload_cap == CQE_LEN) {
      return response(n, pi, hd, pkt, queue_of_t2h(n, pi->obs, hd));
    }
    return 0;
  case 0x17: /* SEND ONLY with Invalidate */
    if (hd->payload_len == CQE_LEN && hd->payload_cap == CQE_LEN) {
      return response(n, pi, hd, pkt, queue_of_t2h(n, pi->obs, hd));
    }
    return 0;
  case 0x01: /* SEND MIDDLE, LAST: the rest of a command capsule */
  case 0x02:
    q = queue_find(n, pi->obs, hd->src, hd->dst, hd->dqpn);
    if (q && q->cap_io != RTEL__NIL) {
      if (q->h2t_valid && psn_diff(hd->psn, q->h2t_psn) > 0) {
        q->h2t_psn = hd->psn;
      }
      io_at(n, q->cap_io)->t_cap_last = pi->ts;
      if (base == 0x02) {
        q->cap_io = RTEL__NIL;
      }
    }
    return 0;
  case 0x06: /* RDMA WRITE FIRST / ONLY / MIDDLE / LAST: read data */
  case 0x0A:
  case 0x07:
  case 0x08:
    q = queue_of_t2h(n, pi->obs, hd);
    if (q) {
      if (psn_diff(hd->psn, q->t2h_psn) > 0 || !q->t2h_valid) {
        q->t2h_psn = hd->psn;
        q->t2h_valid = 1;
      }
      read_data(n, pi, hd, q, base == 0x06 || base == 0x0A,
                base == 0x08 || base == 0x0A);
    }
    return 0;
  case 0x0C: /* RDMA READ REQUEST: the target fetches write data */
    q = queue_of_t2h(n, pi->obs, hd);
    if (q) {
      if (psn_diff(hd->psn, q->t2h_psn) > 0 || !q->t2h_valid) {
        q->t2h_psn = hd->psn;
        q->t2h_valid = 1;
      }
      read_request(n, pi, hd, q);
    }
    return 0;
  case 0x0D: /* READ RESPONSE FIRST / ONLY / MIDDLE / LAST */
  case 0x10:
  case 0x0E:
  case 0x0F:
    q = queue_find(n, pi->obs, hd->src, hd->dst, hd->dqpn);
    if (q) {
      read_response(n, pi, hd, q, base == 0x0D || base == 0x10,
                    base == 0x0F || base == 0x10);
    }
    return 0;
  default:
    return 0;
  }
}

/* ------------------------------------------------------------ timers */

rtel_tstamp rtel__nvme_expiry(const rtel__nvme *n) {
  rtel_tstamp t = RTEL_TSTAMP_NONE;
  if (n->flags & RTEL_NVME_DISABLE) {
    return t;
  }
  if (n->io_fifo_head != RTEL__NIL) {
    t = io_at(n, n->io_fifo_head)->t_cmd + n->io_timeout;
  }
  return t;
}

int rtel__nvme_expire(rtel__nvme *n, rtel_tstamp now) {
  int rv;
  if (n->flags & RTEL_NVME_DISABLE) {
    return 0;
  }
  while (n->io_fifo_head != RTEL__NIL) {
    nio *io = io_at(n, n->io_fifo_head);
    if (now < io->t_cmd || now - io->t_cmd < n->io_timeout) {
      break;
    }
    if ((rv = end_io(n, io, RTEL_IO_TIMEOUT,
                     queue_at(n, io->queue)->state == Q_CONFIRMED)) != 0) {
      return rv;
    }
  }
  return 0;
}

/* Completed I/Os wait for their twin for join_window of their own
 * observation point's clock (the latest packet seen there), so that points
 * with unrelated clocks never compare times. */
static void join_expire(rtel__nvme *n, uint32_t obs,
                        rtel_tstamp obs_now) {
  while (n->join_fifo_head != RTEL__NIL) {
    njoin *j = join_at(n, n->join_fifo_head);
    if (j->obs != obs || j->expire > obs_now) {
      break;
    }
    n->env.stats->io_join_unmatched += n->multi_obs;
    join_remove(n, j);
  }
}

int rtel__nvme_flush(rtel__nvme *n, uint32_t state) {
  int rv;
  if (n->flags & RTEL_NVME_DISABLE) {
    return 0;
  }
  while (n->io_fifo_head != RTEL__NIL) {
    nio *io = io_at(n, n->io_fifo_head);
    if ((rv = end_io(n, io, state,
                     queue_at(n, io->queue)->state == Q_CONFIRMED)) != 0) {
      return rv;
    }
  }
  while (n->join_fifo_head != RTEL__NIL) {
    n->env.stats->io_join_unmatched += n->multi_obs;
    join_remove(n, join_at(n, n->join_fifo_head));
  }
  return 0;
}

/* Ends, truncated, every I/O whose queue's port is no longer measured. */
int rtel__nvme_truncate(rtel__nvme *n, const rtel__sched *sched) {
  uint32_t i;
  int rv;
  if (n->flags & RTEL_NVME_DISABLE) {
    return 0;
  }
  for (i = n->io_fifo_head; i != RTEL__NIL;) {
    nio *io = io_at(n, i);
    nq *q = queue_at(n, io->queue);
    i = io->fnext;
    if (!rtel__sched_port_measured(sched, io->port) &&
        (rv = end_io(n, io, RTEL_IO_TRUNCATED, q->state == Q_CONFIRMED)) !=
            0) {
      return rv;
    }
  }
  return 0;
}
