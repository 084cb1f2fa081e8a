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
 * falls in its range. A packet without a RETH (WRITE MIDDLE/LAST, READ
 * RESPONSE) belongs to an I/O only when its PSN falls in the PSN span of
 * such a message of that I/O (see "spans" below), never to the I/O whose
 * message merely began nearest before it: mid-stream, the message it
 * belongs to may be one whose command was never seen.
 *
 * Retransmitted capsules (a PSN not after the highest seen in the same
 * direction) are ignored, so C and R are first copies; data events take
 * every copy (Dn, Pn are the last data packet seen).
 *
 * I/O records go up through the sink; the hub, not this module, joins the
 * records of one I/O seen at two observation points (rtel_join.c).
 *
 * Memory: queues in a fixed table, I/Os in a fixed slab with a hash on
 * (queue, CID), a hash on (queue, SGL key) and a FIFO for timeouts;
 * nothing is allocated after setup.
 */
#include "rtel_nvme.h"

#include "rtel_nvme_wire.h"
#include "rtel_psn.h"

/* IP-CM service IDs in the TCP port space: 0x0000000001 06 PPPP. */
#define IPCM_TCP_SID 0x0000000001060000ull
#define IPCM_TCP_SID_MASK 0xFFFFFFFFFFFF0000ull

/* queue states */
#define Q_GUESSED 1u
#define Q_CONFIRMED 2u

/* A message the target began on a queue and tied to an I/O by its RETH:
 * an RDMA WRITE FIRST (read data) or a READ REQUEST (write data). Its span
 * is the PSNs of its packets (a WRITE) or of the READ RESPONSEs that
 * answer it (a READ), psn .. psn + span_len() - 1. */
typedef struct nspan {
  uint32_t psn; /* of the FIRST, or of the READ REQUEST */
  uint32_t io;  /* RTEL__NIL: slot free */
  uint32_t len; /* RETH DMA length */
  /* PSNs from |psn| to the nearest later message the target began on the
   * queue (an upper bound of the span); 0 while none was seen */
  uint32_t bound;
} nspan;

/* The state of a ring of RTEL__RDREQ_RING spans of one kind (READ
 * REQUESTs or RDMA WRITEs) on a queue: a slot is occupied (bit set in
 * |occ|) exactly while its |io| is not RTEL__NIL. */
typedef struct nring {
  uint16_t next; /* the slot to fill next when none is free (the oldest) */
  uint16_t occ;
} nring;

/* nio.rd_slot / wr_slot: the ring slot an I/O was put in, + 1; 0: none;
 * SLOTS_MANY: more than one (its unlink then scans the ring). */
#define SLOTS_MANY 0xffu

/* A queue. The fields most packets of the queue read or write come
 * first, after the table's header (64 bytes with the key): 64 bytes
 * together; the span rings and what RDMA CM, pairing and records read
 * follow. */
typedef struct nq {
  rtel__qent q;
  uint32_t q_pad;   /* the table's header is 60 bytes: to its line's end */
  uint32_t h2t_psn; /* highest host -> target request PSN */
  uint32_t t2h_psn; /* highest target -> host request PSN */
  uint8_t h2t_valid;
  uint8_t t2h_valid;
  uint8_t cand_n; /* completions held by pairing by CID (below) */
  uint8_t pad;
  /* Path MTUs, from the payload of a FIRST or MIDDLE packet (exactly one
   * PMTU): of the host's QP, which sends the READ RESPONSEs and command
   * capsules, and of the target's QP, which sends the RDMA WRITEs; 0
   * while unknown. The PMTU is on no header. */
  uint16_t hpmtu;
  uint16_t tpmtu;
  uint32_t cap_io;  /* multi-packet command capsule in progress */
  uint32_t io_head; /* this queue's outstanding I/Os */
  /* READ REQUESTs awaiting their responses, and RDMA WRITEs (read data)
   * begun recently (a resend that restarts mid-message, or the packets
   * after a gap, find their I/O by PSN): rdreq_s[], wrs_s[] below */
  nring rdreq;
  nring wrs;
  /* the span the last READ RESPONSE / RDMA WRITE packet fell in, kept
   * apart from the rings so that a message still flowing keeps its I/O
   * when its ring slot is reused */
  nspan rr_cur;
  nspan wr_cur;

  nspan rdreq_s[RTEL__RDREQ_RING];
  nspan wrs_s[RTEL__RDREQ_RING];

  uint32_t hqpn; /* RTEL_QPN_NONE while unknown */
  uint32_t state;
  int32_t qid;      /* -1 while unknown */
  uint32_t up_prev; /* list of queues with unknown host QPN */
  uint32_t up_next;
  uint32_t port; /* of the packet that revealed the queue */
  /* pairing by CID (no CM, no ACK PSNs, no keyed data yet): a completion
   * on host QP |cand| matched an outstanding CID; a second one confirms
   * (cand_n, above, counts them) */
  uint32_t cand;
  uint32_t cand_cid;
  uint32_t cand_psn;
  rtel_tstamp cand_ts;
  uint32_t cand_cmd_psn; /* PSN of the command the held one answers */
  uint16_t cand_status;
  uint8_t cand_inval;
} nq;
RTEL__STATIC_ASSERT(offsetof(nq, rdreq_s) == 2 * 64,
                    "the table's header and the hot fields fill 128 bytes");
/* The table's stride: whole cache lines, so that with the table's 64-byte
 * aligned array every queue's first two lines are the ones above. */
#define NQ_STRIDE ((sizeof(nq) + 63u) & ~(size_t)63u)
/* the rings' 16-bit occupancy masks and their rotation, and SLOTS_MANY
 * (a slot number + 1 that is never a real one) */
RTEL__STATIC_ASSERT(RTEL__RDREQ_RING == 16, "16-bit ring occupancy masks");
RTEL__STATIC_ASSERT(RTEL__RDREQ_RING < SLOTS_MANY, "SLOTS_MANY is no slot");

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
  uint8_t rd_slot; /* where it is in the queue's rings (SLOTS_MANY) */
  uint8_t wr_slot;
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

size_t rtel__nvme_io_size(void) {
  /* the entry, its (queue, CID) bucket share and its key-index bucket
   * share (both sized 2 x capacity) */
  return sizeof(nio) + 2 * sizeof(uint32_t) + 2 * sizeof(uint32_t);
}

static nio *io_at(const rtel__nvme *n, uint32_t i) {
  return (nio *)(void *)(n->ios + (size_t)i * sizeof(nio));
}
static nq *queue_at(const rtel__nvme *n, uint32_t i) {
  return (nq *)(void *)rtel__qtab_at(&n->queues, i);
}

/* ------------------------------------------------------------ setup */

int rtel__nvme_init(rtel__nvme *n, const rtel_settings *s,
                    const rtel__pairtab *pairs, const rtel__env *env) {
  const rtel_mem *mem = env->mem;
  uint32_t nq_cap = s->max_nvme_queues ? s->max_nvme_queues : 1024;
  uint32_t nios = s->max_ios ? s->max_ios : 16384;
  uint32_t i, nb;
  int rv;

  memset(n, 0, sizeof(*n));
  n->env = *env;
  n->pairs = pairs;
  n->flags = s->nvme_flags;
  n->io_timeout = s->io_timeout ? s->io_timeout : 5000000000ull;
  memcpy(n->ports, s->nvme_ports, sizeof(n->ports));
  if (!n->ports[0] && !n->ports[1] && !n->ports[2] && !n->ports[3]) {
    n->ports[0] = RTEL__NVMEOF_PORT;
  }
  n->unpaired_head = RTEL__NIL;
  n->io_fifo_head = n->io_fifo_tail = RTEL__NIL;
  if (n->flags & RTEL_NVME_DISABLE) {
    return 0;
  }
  /* the context's seed: a packet's key is hashed once, by the hub */
  if ((rv = rtel__qtab_init(&n->queues, nq_cap, NQ_STRIDE, s->hash_seed,
                            mem)) != 0 ||
      (rv = rtel__qtab_init(&n->rev, nq_cap, sizeof(nrev), s->hash_seed,
                            mem)) != 0) {
    rtel__nvme_free(n);
    return rv;
  }
  nb = rtel__pow2_at_least(nios * 2u);
  n->ios = mem->calloc(nios, sizeof(nio), mem->user_data);
  n->io_buckets = mem->malloc((size_t)nb * sizeof(uint32_t), mem->user_data);
  n->key_buckets = mem->malloc((size_t)nb * sizeof(uint32_t), mem->user_data);
  if (!n->ios || !n->io_buckets || !n->key_buckets) {
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
  /* no free list to write: entries are taken in order (io_fresh) */
  n->io_free = RTEL__NIL;
  n->io_fresh = 0;
  return 0;
}

void rtel__nvme_free(rtel__nvme *n) {
  const rtel_mem *mem = n->env.mem;
  void **ps[] = {(void **)&n->ios, (void **)&n->io_buckets,
                 (void **)&n->key_buckets};
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

/* The hash of a key of the queue or reverse table: rtel__qkey_hash_parts()
 * with the context's seed, the hash the hub computed for the packet when
 * the key is the packet's own (obs, source, destination, destination QP):
 * rtel__nvme_packet()'s |pk|. */
static rtel__inline uint32_t qhash(const rtel__qtab *t, uint32_t obs,
                                   const uint8_t *src, const uint8_t *dst,
                                   uint32_t qpn) {
  return rtel__qkey_hash_parts(t->seed, obs, src, dst, qpn);
}

/* The queue whose key is the packet's own, with the hub's hash |pk|. */
static rtel__inline nq *queue_of_pkt(const rtel__nvme *n,
                                     const rtel_pkt_info *pi,
                                     const rtel_pkt_hd *hd, uint32_t pk) {
  return (nq *)(void *)rtel__qtab_find_parts(&n->queues, pk, pi->obs, hd->src,
                                             hd->dst, hd->dqpn);
}

static rtel__inline nq *queue_find(const rtel__nvme *n, uint32_t obs,
                                   const uint8_t *host, const uint8_t *target,
                                   uint32_t tqpn) {
  return (nq *)(void *)rtel__qtab_find_parts(
      &n->queues, qhash(&n->queues, obs, host, target, tqpn), obs, host,
      target, tqpn);
}

/* The reverse entry of key (obs, target, host, host QPN), or NULL. */
static rtel__inline nrev *rev_find(const rtel__nvme *n, uint32_t obs,
                                   const uint8_t *target, const uint8_t *host,
                                   uint32_t hqpn) {
  return (nrev *)(void *)rtel__qtab_find_parts(
      &n->rev, qhash(&n->rev, obs, target, host, hqpn), obs, target, host,
      hqpn);
}

static void unpaired_unlink(rtel__nvme *n, nq *q) {
  if (q->up_prev == RTEL__NIL &&
      n->unpaired_head != rtel__qtab_idx(&n->queues, &q->q)) {
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
    r = rev_find(n, q->q.key.obs, q->q.key.dst, q->q.key.src, q->hqpn);
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
  h = qhash(&n->rev, k.obs, k.src, k.dst, k.qpn);
  r = (nrev *)(void *)rtel__qtab_find_parts(&n->rev, h, k.obs, k.src, k.dst,
                                            k.qpn);
  if (r == NULL) {
    if (n->rev.used == n->rev.cap) {
      rtel__qtab_remove(&n->rev, rtel__qtab_oldest(&n->rev));
    }
    r = (nrev *)(void *)rtel__qtab_insert(&n->rev, &k, h);
  }
  r->queue = rtel__qtab_idx(&n->queues, &q->q);
}

static int end_io(rtel__nvme *n, nio *io, uint32_t state, int report);
static void io_unlink(rtel__nvme *n, nio *io);

/* Removes |q| and everything hanging off it; its I/Os end "evicted". Once
 * a delivery failed (the context is then unusable), the rest are removed
 * without a record: no callback runs after a failure. */
static int queue_remove(rtel__nvme *n, nq *q) {
  int rv = 0;
  while (q->io_head != RTEL__NIL) {
    nio *io = io_at(n, q->io_head);
    if (rv != 0) {
      io_unlink(n, io);
      continue;
    }
    rv = end_io(n, io, RTEL_IO_EVICTED, q->state == Q_CONFIRMED);
  }
  if (q->hqpn != RTEL_QPN_NONE) {
    nrev *r = rev_find(n, q->q.key.obs, q->q.key.dst, q->q.key.src, q->hqpn);
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
  q = (nq *)(void *)rtel__qtab_insert(
      &n->queues, &k, qhash(&n->queues, obs, host, target, tqpn));
  q->hqpn = RTEL_QPN_NONE;
  q->state = state;
  q->qid = -1;
  q->port = port;
  q->cand = RTEL_QPN_NONE;
  q->cap_io = q->io_head = RTEL__NIL;
  for (i = 0; i < RTEL__RDREQ_RING; i++) {
    q->rdreq_s[i].io = RTEL__NIL;
    q->wrs_s[i].io = RTEL__NIL;
  }
  q->rdreq.occ = q->wrs.occ = 0;
  q->rdreq.next = q->wrs.next = 0;
  q->rr_cur.io = q->wr_cur.io = RTEL__NIL;
  /* on the unpaired list until the host QPN is known */
  q->up_prev = RTEL__NIL;
  q->up_next = n->unpaired_head;
  if (n->unpaired_head != RTEL__NIL) {
    queue_at(n, n->unpaired_head)->up_prev = rtel__qtab_idx(&n->queues, &q->q);
  }
  n->unpaired_head = rtel__qtab_idx(&n->queues, &q->q);
  /* the pairing table may know the pair already (CM, ACK PSNs) */
  i = rtel__pair_peer(n->pairs, obs, host, target, tqpn);
  if (i != RTEL_QPN_NONE) {
    queue_set_hqpn(n, q, i);
  }
  return q;
}

static int port_is_nvme(const rtel__nvme *n, uint64_t sid) {
  unsigned i;
  if ((sid & IPCM_TCP_SID_MASK) != IPCM_TCP_SID) {
    return 0;
  }
  for (i = 0; i < 4; i++) {
    if (n->ports[i] && n->ports[i] == (sid & 0xffff)) {
      return 1;
    }
  }
  return 0;
}

int rtel__nvme_cm_conn(rtel__nvme *n, const rtel__cm_conn *c) {
  nq *q;
  int rv;

  if ((n->flags & RTEL_NVME_DISABLE) || !port_is_nvme(n, c->service_id)) {
    return 0;
  }
  /* the requester is the host; commands go to the responder's QP */
  q = queue_find(n, c->obs, c->req_ip, c->rsp_ip, c->rsp_qpn);
  if (q == NULL) {
    q = queue_new(n, c->obs, c->port, c->req_ip, c->rsp_ip, c->rsp_qpn,
                  Q_CONFIRMED, &rv);
    if (q == NULL) {
      return rv;
    }
  }
  q->state = Q_CONFIRMED;
  if (c->nvme_qid >= 0) {
    q->qid = c->nvme_qid;
  }
  queue_set_hqpn(n, q, c->req_qpn);
  n->env.stats->nvme_queues_cm++;
  return 0;
}

static nio *io_by_key(const rtel__nvme *n, uint32_t queue, uint32_t key,
                      uint64_t va);

static rtel__noinline nq *find_t2h_unindexed(rtel__nvme *n, uint32_t obs,
                                             const rtel_pkt_hd *hd);

/* The queue a target -> host packet (its key's hash |pk|) belongs to,
 * learning the pair from the pairing table (CM, ACK PSNs) or from keyed
 * data when the NVMe side does not know it yet. */
static rtel__inline nq *find_t2h(rtel__nvme *n, uint32_t obs,
                                 const rtel_pkt_hd *hd, uint32_t pk) {
  nrev *r = (nrev *)(void *)rtel__qtab_find_parts(&n->rev, pk, obs, hd->src,
                                                  hd->dst, hd->dqpn);
  return r ? queue_at(n, r->queue) : find_t2h_unindexed(n, obs, hd);
}

/* find_t2h() when the reverse table does not know the packet's QP. */
static nq *find_t2h_unindexed(rtel__nvme *n, uint32_t obs,
                              const rtel_pkt_hd *hd) {
  uint32_t tqpn;
  nq *q;

  tqpn = rtel__pair_peer(n->pairs, obs, hd->src, hd->dst, hd->dqpn);
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
  return rtel__mix32((uint64_t)queue << 16 | cid);
}

static uint32_t key_hash(uint32_t queue, uint32_t key) {
  return rtel__mix32((uint64_t)queue << 32 | key) ^ 0x9e3779b9u;
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

static void ring_forget(nring *ring, nspan *slots, uint8_t hint, uint32_t ioi);

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
    uint32_t *kp =
        &n->key_buckets[key_hash(io->queue, io->sgl[d].key) & n->key_mask];
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
  if (q->cap_io == i) {
    q->cap_io = RTEL__NIL;
  }
  /* the spans it had are forgotten (a late copy of its data then matches
   * nothing): the slot it was put in, if not taken since */
  ring_forget(&q->rdreq, q->rdreq_s, io->rd_slot, i);
  ring_forget(&q->wrs, q->wrs_s, io->wr_slot, i);
  if (q->rr_cur.io == i) {
    q->rr_cur.io = RTEL__NIL;
  }
  if (q->wr_cur.io == i) {
    q->wr_cur.io = RTEL__NIL;
  }
  io->hnext = n->io_free;
  n->io_free = i;
  n->io_used--;
  n->env.stats->ios_active = n->io_used;
}

static int64_t dur(rtel_tstamp a, rtel_tstamp b) {
  if (a == RTEL_TSTAMP_NONE || b == RTEL_TSTAMP_NONE) {
    return RTEL_DURATION_NONE;
  }
  return (int64_t)(a - b);
}

static void fill_record(const nq *q, const nio *io, uint32_t state,
                        rtel_tstamp t_rsp, uint16_t status, uint32_t rflags,
                        rtel_io_record *r) {
  /* every field of version 1 is set below (no memset of the whole record
   * first); the hub sets the coverage window. Fields a later version
   * appends are zero until this function sets them. */
  enum {
    V1_END = offsetof(rtel_io_record, coverage_end) + sizeof(rtel_tstamp)
  };
  if (sizeof(*r) > V1_END) {
    memset((uint8_t *)r + V1_END, 0, sizeof(*r) - V1_END);
  }
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
  r->qid = 0;
  if (q->qid >= 0) {
    r->qid = (uint16_t)q->qid;
    r->flags |= RTEL_IO_F_QID;
    if (q->qid == 0) {
      r->flags |= RTEL_IO_F_ADMIN;
    }
  }
  r->nvme_status = status;
  r->reserved1 = r->reserved2 = 0;
  r->coverage_start = r->coverage_end = 0;
  r->t_rsp = t_rsp;
  r->t_cmd = r->t_data_first = r->t_data_last = r->t_rdreq = RTEL_TSTAMP_NONE;
  r->iol = r->dal = r->dpl = r->xfer = RTEL_DURATION_NONE;
  if (io == NULL) {
    r->cid = 0;
    r->opcode = r->fctype = 0;
    r->nsid = r->nlb = 0;
    r->slba = r->bytes = 0;
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
    fill_record(queue_at(n, io->queue), io, state, RTEL_TSTAMP_NONE, 0, 0, &r);
  } else {
    n->env.stats->ios_unconfirmed++;
  }
  io_unlink(n, io);
  return report ? deliver(n, &r) : 0;
}

/* ------------------------------------------------------------ spans */

/*
 * Which I/O a packet without a RETH belongs to. The target's requests to
 * the host (RDMA WRITEs, READ REQUESTs, response capsules) share one PSN
 * sequence: a message of n packets takes n PSNs, a READ REQUEST the n
 * PSNs of its n READ RESPONSEs, and messages never interleave. So the
 * span of a WRITE whose FIRST was tied to an I/O (or of a READ REQUEST
 * that was) holds exactly the PSNs of its packets (or responses), and of
 * no other message:
 *
 *   span = psn .. psn + n - 1, n = ceil(RETH DMA length / PMTU) (at least
 *          1: a zero-length READ is answered by one packet)
 *
 * where the PMTU is that of the QP that sends the packets (the target's
 * for a WRITE, the host's for READ RESPONSEs), learned from the payload
 * of a FIRST or MIDDLE packet, which is exactly one PMTU (a WRITE FIRST
 * gives its own). While the PMTU is unknown, the span ends before the
 * next message the target began on the queue (a later WRITE FIRST/ONLY,
 * READ REQUEST or response capsule; a resent one counts too), which holds
 * as long as this point sees every request the host answers; and with
 * neither, the span is its first PSN alone. When both are known, the
 * smaller is used.
 *
 * A MIDDLE or LAST packet belongs to the I/O whose span holds its PSN
 * after the first; a READ RESPONSE FIRST or ONLY to the I/O whose READ
 * REQUEST has its PSN. Anything else is counted in nvme_data_unmatched,
 * never given to the I/O whose message began nearest before it: that
 * message may have ended, and the packet belong to one whose command (or
 * FIRST) this point never saw.
 */

/* The path MTU that a FIRST or MIDDLE payload of |len| bytes shows; 0 if
 * |len| is not an InfiniBand MTU (a malformed packet teaches nothing). */
static uint16_t pmtu_of(uint32_t len) {
  return len >= 256 && len <= 4096 && (len & (len - 1)) == 0 ? (uint16_t)len
                                                             : 0;
}

/* Packets in the span of |e| with path MTU |pmtu| (0: unknown). */
static uint32_t span_len(const nspan *e, uint32_t pmtu) {
  uint32_t n;
  if (pmtu == 0) {
    return e->bound != 0 ? e->bound : 1;
  }
  /* a PMTU is a power of two (pmtu_of()) */
  n = (uint32_t)(((uint64_t)e->len + pmtu - 1) >> __builtin_ctz(pmtu));
  if (n == 0) {
    n = 1;
  }
  return e->bound != 0 && e->bound < n ? e->bound : n;
}

/* Is |psn| in the span of |e|: its first PSN when |first| (a packet that
 * begins a message), one after it otherwise (MIDDLE, LAST)? */
static int span_has(const nspan *e, uint32_t pmtu, uint32_t psn, int first) {
  int32_t d;
  if (e->io == RTEL__NIL) {
    return 0;
  }
  d = rtel__psn_diff(psn, e->psn);
  return first ? d == 0 : d > 0 && (uint32_t)d < span_len(e, pmtu);
}

/* The I/O whose span holds |psn| (see span_has()): |*cur|, the span the
 * previous packet fell in, or one of |ring|, which then becomes |*cur|.
 * RTEL__NIL if none does. */
static uint32_t span_find(nspan *cur, const nring *ring, const nspan *slots,
                          uint32_t pmtu, uint32_t psn, int first) {
  uint32_t m;
  if (span_has(cur, pmtu, psn, first)) {
    return cur->io;
  }
  /* the occupied slots, in order (a free one holds nothing) */
  for (m = ring->occ; m != 0; m &= m - 1) {
    const nspan *e = &slots[__builtin_ctz(m)];
    if (span_has(e, pmtu, psn, first)) {
      *cur = *e;
      return cur->io;
    }
  }
  return RTEL__NIL;
}

/* Records the span of a message beginning at |psn| of |len| bytes, tied
 * to I/O |ioi|, in |ring|: over the span with the same first PSN (a
 * resent request: same message; occupied slots have distinct PSNs), else
 * in the first free slot from |next| on, else over the slot |next| (the
 * oldest); returns the slot's index. */
static unsigned span_add(nring *ring, nspan *slots, uint32_t psn, uint32_t ioi,
                         uint32_t len) {
  unsigned slot, next = ring->next;
  uint32_t m, free;
  nspan *e;
  for (m = ring->occ; m != 0; m &= m - 1) {
    slot = (unsigned)__builtin_ctz(m);
    if (slots[slot].psn == psn) {
      slots[slot].io = ioi;
      slots[slot].len = len;
      return slot;
    }
  }
  /* the free slots, rotated so that bit 0 is |next| */
  free = ~(uint32_t)ring->occ & 0xffffu;
  free = (free >> next | free << (RTEL__RDREQ_RING - next)) & 0xffffu;
  slot =
      free ? (next + (unsigned)__builtin_ctz(free)) % RTEL__RDREQ_RING : next;
  if (slot == next) {
    ring->next = (uint16_t)((next + 1) % RTEL__RDREQ_RING);
  }
  e = &slots[slot];
  e->psn = psn;
  e->io = ioi;
  e->len = len;
  e->bound = 0;
  ring->occ = (uint16_t)(ring->occ | 1u << slot);
  return slot;
}

/* Notes in |*hint| (nio.rd_slot / wr_slot) that its I/O is in |slot|. */
static void slot_note(uint8_t *hint, unsigned slot) {
  *hint = *hint == 0 || *hint == slot + 1 ? (uint8_t)(slot + 1)
                                          : (uint8_t)SLOTS_MANY;
}

/* Frees the slots of |ring| that I/O |ioi| holds; |hint| says which. */
static void ring_forget(nring *ring, nspan *slots, uint8_t hint,
                        uint32_t ioi) {
  uint32_t m;
  if (hint == 0) {
    return;
  }
  m = hint == SLOTS_MANY ? ring->occ : 1u << (hint - 1) & ring->occ;
  for (; m != 0; m &= m - 1) {
    unsigned k = (unsigned)__builtin_ctz(m);
    if (slots[k].io == ioi) {
      slots[k].io = RTEL__NIL;
      ring->occ = (uint16_t)(ring->occ & ~(1u << k));
    }
  }
}

/* A message began at |psn|: if after |e|'s, |e| ends before it. */
static void span_narrow(nspan *e, uint32_t psn) {
  int32_t d = rtel__psn_diff(psn, e->psn);
  if (e->io != RTEL__NIL && d > 0 &&
      (e->bound == 0 || (uint32_t)d < e->bound)) {
    e->bound = (uint32_t)d;
  }
}

/* The target began a message at |psn| on |q| (an RDMA WRITE FIRST or
 * ONLY, a READ REQUEST, a response capsule): the messages it began before
 * end before it. Only needed while a PMTU is unknown. */
static void t2h_msg_start(nq *q, uint32_t psn) {
  unsigned i;
  if (q->hpmtu != 0 && q->tpmtu != 0) {
    return;
  }
  for (i = 0; i < RTEL__RDREQ_RING; i++) {
    span_narrow(&q->rdreq_s[i], psn);
    span_narrow(&q->wrs_s[i], psn);
  }
  span_narrow(&q->rr_cur, psn);
  span_narrow(&q->wr_cur, psn);
}

/* The payload of |hd|, a FIRST or MIDDLE packet from the host's QP, is
 * its path MTU. */
static void learn_hpmtu(nq *q, const rtel_pkt_hd *hd) {
  uint16_t m = pmtu_of(hd->payload_len);
  if (m != 0) {
    q->hpmtu = m;
  }
}

/* ------------------------------------------------------------ capsules */

/* Is the SQE |b| a Fabrics Connect (which opens a queue)? */
static int is_connect(const uint8_t *b) {
  return b[RTEL__SQE_OPC] == RTEL_NVME_OP_FABRICS &&
         b[RTEL__SQE_FCTYPE] == RTEL__FCTYPE_CONNECT;
}

/* Does |b| (at least 64 bytes) look like an NVMe-oF SQE? Used to guess
 * queues mid-stream; a completion with a matching CID must confirm it. */
static int sqe_shape(const uint8_t *b) {
  uint8_t psdt = RTEL__SQE_PSDT(b[RTEL__SQE_FLAGS]);
  uint8_t fuse = RTEL__SQE_FUSE(b[RTEL__SQE_FLAGS]);
  uint8_t sgl_id = b[RTEL__SQE_SGL1 + RTEL__SGL_ID];
  uint8_t sgl_sub = RTEL__SGL_SUB(sgl_id);
  if (psdt == RTEL__PSDT_PRP || psdt == RTEL__PSDT_RESERVED || fuse != 0) {
    return 0; /* NVMe-oF commands use SGLs and are not fused here */
  }
  switch (RTEL__SGL_TYPE(sgl_id)) {
  case RTEL__SGL_KEYED: /* keyed data block: address or invalidate */
    return sgl_sub == RTEL__SGL_SUB_ADDRESS ||
           sgl_sub == RTEL__SGL_SUB_INVALIDATE;
  case RTEL__SGL_DATA:     /* data block, offset: in-capsule data */
  case RTEL__SGL_LAST_SEG: /* last segment, offset */
    return sgl_sub == RTEL__SGL_SUB_OFFSET;
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

/* Remembers the keyed data block descriptor |d|. */
static void add_keyed(rtel__nvme *n, uint32_t ioi, nio *io, const uint8_t *d) {
  add_key(n, ioi, io, rtel__get64le(d + RTEL__SGL_ADDR),
          rtel__get24le(d + RTEL__SGL_LENGTH),
          rtel__get32le(d + RTEL__SGL_KEY));
}

/* The data descriptors of the SQE |b|; |cap| bytes of the capsule are
 * available (a Last Segment list lives in the capsule after the SQE). */
static void parse_sgl(rtel__nvme *n, uint32_t ioi, nio *io, const uint8_t *b,
                      uint32_t cap) {
  const uint8_t *d = b + RTEL__SQE_SGL1;
  uint8_t type = RTEL__SGL_TYPE(d[RTEL__SGL_ID]);
  uint8_t sub = RTEL__SGL_SUB(d[RTEL__SGL_ID]);
  if (type == RTEL__SGL_KEYED) {
    add_keyed(n, ioi, io, d);
  } else if (type == RTEL__SGL_DATA && sub == RTEL__SGL_SUB_OFFSET) {
    io->incapsule = 1;
    io->bytes = rtel__get32le(d + RTEL__SGL_LENGTH);
  } else if (type == RTEL__SGL_LAST_SEG && sub == RTEL__SGL_SUB_OFFSET) {
    uint64_t off = rtel__get64le(d + RTEL__SGL_ADDR);
    uint32_t len = rtel__get32le(d + RTEL__SGL_LENGTH), i;
    if (off > cap) {
      return; /* the list is not in the captured part of the capsule */
    }
    for (i = 0; i + RTEL__SGL_DESC_LEN <= len &&
                RTEL__SQE_LEN + off + i + RTEL__SGL_DESC_LEN <= cap;
         i += RTEL__SGL_DESC_LEN) {
      const uint8_t *e = b + RTEL__SQE_LEN + off + i;
      if (RTEL__SGL_TYPE(e[RTEL__SGL_ID]) == RTEL__SGL_KEYED) {
        add_keyed(n, ioi, io, e);
      }
    }
  }
}

/* The queue a command capsule to |hd|'s QP belongs to: a known one, or a
 * new one when the capsule |b| is a Fabrics Connect or - unless guessing
 * is off - has the shape of an SQE. NULL when there is none (or, with
 * *prv set, when making room for it failed). */
static nq *command_queue(rtel__nvme *n, const rtel_pkt_info *pi,
                         const rtel_pkt_hd *hd, uint32_t pk, const uint8_t *b,
                         int *prv) {
  nq *q = queue_of_pkt(n, pi, hd, pk);
  int connect;

  *prv = 0;
  if (q != NULL) {
    rtel__qtab_touch(&n->queues, &q->q);
    return q;
  }
  connect = is_connect(b);
  if (!connect && ((n->flags & RTEL_NVME_NO_GUESS) || !sqe_shape(b))) {
    return NULL;
  }
  return queue_new(n, pi->obs, pi->port, hd->src, hd->dst, hd->dqpn,
                   connect ? Q_CONFIRMED : Q_GUESSED, prv);
}

/* Is a host -> target capsule with |psn| the first copy? A resend is
 * counted and ignored, so that C stays the first copy. */
static int h2t_first_copy(rtel__nvme *n, nq *q, uint32_t psn) {
  if (q->h2t_valid && rtel__psn_diff(psn, q->h2t_psn) <= 0) {
    n->env.stats->nvme_capsule_dups++;
    return 0;
  }
  q->h2t_psn = psn;
  q->h2t_valid = 1;
  return 1;
}

/* A Fabrics Connect (SQE |b|) opens |q|: confirmed, with the QID from
 * CDW10. */
static void queue_connect(rtel__nvme *n, nq *q, const uint8_t *b) {
  if (q->state != Q_CONFIRMED) {
    q->state = Q_CONFIRMED;
  }
  if (q->qid < 0) {
    n->env.stats->nvme_queues_connect++;
  }
  q->qid = rtel__get16le(b + RTEL__SQE_CONNECT_QID);
}

/* A fresh I/O entry for command |cid| of queue |qi| (its index in *pioi).
 * The outstanding I/O with the same CID ends first (timed out: its
 * response was missed), and when the slab is full the oldest outstanding
 * one (likely lost) is evicted. NULL, with *prv, if delivering either
 * failed. */
static nio *io_alloc(rtel__nvme *n, uint32_t qi, uint16_t cid, uint32_t *pioi,
                     int *prv) {
  nio *io = io_find(n, qi, cid);
  uint32_t ioi;

  *prv = 0;
  if (io != NULL &&
      (*prv = end_io(n, io, RTEL_IO_TIMEOUT,
                     queue_at(n, qi)->state == Q_CONFIRMED)) != 0) {
    return NULL;
  }
  if (n->io_free == RTEL__NIL && n->io_fresh == n->io_cap) {
    nio *old = io_at(n, n->io_fifo_head);
    n->env.stats->ios_untracked++;
    if ((*prv = end_io(n, old, RTEL_IO_EVICTED,
                       queue_at(n, old->queue)->state == Q_CONFIRMED)) != 0) {
      return NULL;
    }
  }
  if (n->io_free != RTEL__NIL) {
    ioi = n->io_free;
    io = io_at(n, ioi);
    n->io_free = io->hnext;
  } else {
    ioi = n->io_fresh++;
    io = io_at(n, ioi);
  }
  n->io_used++;
  n->env.stats->ios_created++;
  n->env.stats->ios_active = n->io_used;
  /* the fields read before they are written (links: io_link(); times,
   * opcode, PSN, port: io_read_sqe(); sgl[i] only below nsgl) */
  io->queue = qi;
  io->cid = cid;
  io->nsid = io->nlb = 0;
  io->fctype = io->nsgl = io->incapsule = 0;
  io->rd_slot = io->wr_slot = 0;
  io->slba = io->bytes = 0;
  *pioi = ioi;
  return io;
}

/* The command's fields from its SQE |b| and the packet that carried it. */
static void io_read_sqe(rtel__nvme *n, uint32_t ioi, nio *io,
                        const rtel_pkt_info *pi, const rtel_pkt_hd *hd,
                        const uint8_t *b) {
  io->opcode = b[RTEL__SQE_OPC];
  io->cmd_psn = hd->psn;
  io->port = pi->port;
  if (io->opcode == RTEL_NVME_OP_FABRICS) {
    io->fctype = b[RTEL__SQE_FCTYPE];
  } else {
    io->nsid = rtel__get32le(b + RTEL__SQE_NSID);
  }
  if (io->opcode == RTEL_NVME_OP_READ || io->opcode == RTEL_NVME_OP_WRITE) {
    io->slba = rtel__get64le(b + RTEL__SQE_SLBA);
    io->nlb = (uint32_t)rtel__get16le(b + RTEL__SQE_NLB) + 1;
  }
  io->t_cmd = pi->ts;
  io->t_cap_last = pi->ts;
  io->t_d1 = io->t_dn = io->t_q = io->t_p1 = io->t_pn = RTEL_TSTAMP_NONE;
  parse_sgl(n, ioi, io, b, hd->payload_cap);
}

/* Links I/O |ioi| of |q| into the (queue, CID) hash, the FIFO by command
 * time and the queue's list. */
static void io_link(rtel__nvme *n, nq *q, uint32_t ioi, nio *io) {
  uint32_t *bk = &n->io_buckets[io_hash(io->queue, io->cid) & n->io_mask];
  io->hnext = *bk;
  *bk = ioi;
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
}

/* A command capsule (SEND FIRST or, when |only|, SEND ONLY, an SQE first):
 * a new outstanding I/O on its queue. */
static int command(rtel__nvme *n, const rtel_pkt_info *pi,
                   const rtel_pkt_hd *hd, uint32_t pk, const uint8_t *pkt,
                   int only) {
  const uint8_t *b = pkt + hd->payload_off;
  uint32_t ioi;
  nq *q;
  nio *io;
  int rv;

  if ((q = command_queue(n, pi, hd, pk, b, &rv)) == NULL) {
    return rv;
  }
  if (!only) {
    learn_hpmtu(q, hd); /* a SEND FIRST is one PMTU, resent or not */
  }
  if (!h2t_first_copy(n, q, hd->psn)) {
    return 0;
  }
  if (is_connect(b)) {
    queue_connect(n, q, b);
  }
  io = io_alloc(n, rtel__qtab_idx(&n->queues, &q->q),
                rtel__get16le(b + RTEL__SQE_CID), &ioi, &rv);
  if (io == NULL) {
    return rv;
  }
  io_read_sqe(n, ioi, io, pi, hd, b);
  io_link(n, q, ioi, io);
  /* the rest of a SEND FIRST's capsule follows in SEND MIDDLE/LAST */
  q->cap_io = only ? RTEL__NIL : ioi;
  return 0;
}

/* (below: pair_by_cid() delivers the completion it held with it) */
static int complete(rtel__nvme *n, nq *q, uint16_t cid, rtel_tstamp ts,
                    uint16_t status, uint32_t flags);

/* Delivers the completion |q| holds as first CID evidence (pair_by_cid())
 * once its host QP is known, whatever named it (a second completion, RDMA
 * CM, ACK PSNs, keyed data). */
static int release_held(rtel__nvme *n, nq *q) {
  nio *io;
  if (q->cand_n == 0 || q->cand != q->hqpn) {
    return 0;
  }
  q->cand_n = 0;
  t2h_msg_start(q, q->cand_psn);
  if (!q->t2h_valid || rtel__psn_diff(q->cand_psn, q->t2h_psn) > 0) {
    q->t2h_psn = q->cand_psn;
    q->t2h_valid = 1;
  }
  /* only if the command it answered is still outstanding: its CID may
   * have been reused by a newer command since (the old one then ended,
   * timed out), which it does not answer */
  io = io_find(n, rtel__qtab_idx(&n->queues, &q->q), (uint16_t)q->cand_cid);
  if (io == NULL || io->cmd_psn != q->cand_cmd_psn) {
    return 0;
  }
  return complete(n, q, (uint16_t)q->cand_cid, q->cand_ts, q->cand_status,
                  q->cand_inval ? RTEL_IO_F_INVALIDATE : 0u);
}

/* find_t2h(), then the completion held for that queue, if any (|*prv|: 0
 * or the error delivering it returned). */
static rtel__inline nq *queue_of_t2h(rtel__nvme *n, uint32_t obs,
                                     const rtel_pkt_hd *hd, uint32_t pk,
                                     int *prv) {
  nq *q = find_t2h(n, obs, hd, pk);
  *prv = q && q->cand_n != 0 ? release_held(n, q) : 0;
  return q;
}

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
  *prv = release_held(n, q);
  return q;
}

/* The completion of CID |cid| on |q| at |ts|. (The hub offers a complete
 * record to the two-point join once it has delivered it.) */
static int complete(rtel__nvme *n, nq *q, uint16_t cid, rtel_tstamp ts,
                    uint16_t status, uint32_t flags) {
  rtel_io_record r;
  nio *io;

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
  return deliver(n, &r);
}

static int response(rtel__nvme *n, const rtel_pkt_info *pi,
                    const rtel_pkt_hd *hd, uint32_t pk, const uint8_t *pkt) {
  const uint8_t *c = pkt + hd->payload_off;
  uint16_t cid = rtel__get16le(c + RTEL__CQE_CID);
  uint16_t status = (uint16_t)(rtel__get16le(c + RTEL__CQE_STATUS) >> 1);
  uint32_t flags = (hd->flags & RTEL_HD_F_IETH) ? RTEL_IO_F_INVALIDATE : 0u;
  int rv;
  nq *q = queue_of_t2h(n, pi->obs, hd, pk, &rv);

  if (rv != 0) {
    return rv;
  }
  if (q == NULL) {
    q = pair_by_cid(n, pi, hd, cid, status, flags, &rv);
    if (q == NULL || rv != 0) {
      return rv;
    }
  }
  t2h_msg_start(q, hd->psn); /* a resent copy too: same PSN */
  if (q->t2h_valid && rtel__psn_diff(hd->psn, q->t2h_psn) <= 0) {
    n->env.stats->nvme_capsule_dups++;
    return 0;
  }
  q->t2h_psn = hd->psn;
  q->t2h_valid = 1;
  return complete(n, q, cid, pi->ts, status, flags);
}

/* ------------------------------------------------------------ data */

static uint32_t io_index(const rtel__nvme *n, const nio *io) {
  return (uint32_t)((size_t)((const uint8_t *)io - n->ios) / sizeof(nio));
}

/* An RDMA WRITE packet (read data, target -> host) with opcode |op|: a
 * FIRST or ONLY is tied to its I/O by its RETH, a MIDDLE or LAST by the
 * span of a FIRST seen before (a resend that restarts mid-message, or
 * the packets after a gap, keep their I/O; those of a write whose FIRST
 * this point never saw are unmatched). */
static void read_data(rtel__nvme *n, const rtel_pkt_info *pi,
                      const rtel_pkt_hd *hd, nq *q, uint8_t op) {
  uint32_t ioi = RTEL__NIL;
  nio *io;
  if (op == RTEL__RC_WRITE_FIRST || op == RTEL__RC_WRITE_MIDDLE) {
    uint16_t m = pmtu_of(hd->payload_len);
    if (m != 0) {
      q->tpmtu = m;
    }
  }
  if (op == RTEL__RC_WRITE_FIRST || op == RTEL__RC_WRITE_ONLY) {
    io = (hd->flags & RTEL_HD_F_RETH)
             ? io_by_key(n, rtel__qtab_idx(&n->queues, &q->q), hd->reth_rkey,
                         hd->reth_va)
             : NULL;
    if (io != NULL) {
      ioi = io_index(n, io);
      if (op == RTEL__RC_WRITE_FIRST) {
        unsigned k =
            span_add(&q->wrs, q->wrs_s, hd->psn, ioi, hd->reth_dmalen);
        q->wr_cur = q->wrs_s[k];
        slot_note(&io->wr_slot, k);
      }
    }
  } else {
    ioi = span_find(&q->wr_cur, &q->wrs, q->wrs_s, q->tpmtu, hd->psn, 0);
  }
  if (ioi == RTEL__NIL) {
    n->env.stats->nvme_data_unmatched++;
    return;
  }
  io = io_at(n, ioi);
  if (io->t_d1 == RTEL_TSTAMP_NONE) {
    io->t_d1 = pi->ts;
  }
  io->t_dn = pi->ts;
}

/* A READ REQUEST (the target fetches write data): tied to its I/O by its
 * RETH; its span awaits the READ RESPONSEs. */
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
  slot_note(&io->rd_slot, span_add(&q->rdreq, q->rdreq_s, hd->psn,
                                   io_index(n, io), hd->reth_dmalen));
}

/* A READ RESPONSE packet (write data, host -> target) with opcode |op|:
 * the I/O of the READ REQUEST whose span holds its PSN. */
static void read_response(rtel__nvme *n, const rtel_pkt_info *pi,
                          const rtel_pkt_hd *hd, nq *q, uint8_t op) {
  uint32_t ioi;
  nio *io;
  if (op == RTEL__RC_READ_RESP_FIRST || op == RTEL__RC_READ_RESP_MIDDLE) {
    learn_hpmtu(q, hd);
  }
  ioi = span_find(&q->rr_cur, &q->rdreq, q->rdreq_s, q->hpmtu, hd->psn,
                  op == RTEL__RC_READ_RESP_FIRST ||
                      op == RTEL__RC_READ_RESP_ONLY);
  if (ioi == RTEL__NIL) {
    n->env.stats->nvme_data_unmatched++;
    return;
  }
  io = io_at(n, ioi);
  if (io->t_p1 == RTEL_TSTAMP_NONE) {
    io->t_p1 = pi->ts;
  }
  io->t_pn = pi->ts;
}

/* ------------------------------------------------------------ entry */

/* Does |hd| carry exactly a CQE (a whole response capsule)? */
static int cqe_capsule(const rtel_pkt_hd *hd) {
  return hd->payload_len == RTEL__CQE_LEN && hd->payload_cap == RTEL__CQE_LEN;
}

/* A SEND FIRST, or a SEND ONLY when |only|: a command capsule if it holds
 * an SQE (host -> target), a response capsule if it is a SEND ONLY of
 * exactly a CQE (target -> host). */
static int send_first(rtel__nvme *n, const rtel_pkt_info *pi,
                      const rtel_pkt_hd *hd, uint32_t pk, const uint8_t *pkt,
                      int only) {
  if (hd->payload_cap >= RTEL__SQE_LEN && hd->payload_len >= RTEL__SQE_LEN) {
    return command(n, pi, hd, pk, pkt, only);
  }
  if (only && cqe_capsule(hd)) {
    return response(n, pi, hd, pk, pkt);
  }
  return 0;
}

/* A SEND MIDDLE, or LAST when |last|: the rest of the command capsule a
 * SEND FIRST began (its last packet's time is the I/O's t_cap_last). */
static void capsule_rest(rtel__nvme *n, const rtel_pkt_info *pi,
                         const rtel_pkt_hd *hd, uint32_t pk, int last) {
  nq *q = queue_of_pkt(n, pi, hd, pk);
  if (q == NULL) {
    return;
  }
  if (!last) {
    learn_hpmtu(q, hd);
  }
  if (q->cap_io == RTEL__NIL) {
    return;
  }
  if (q->h2t_valid && rtel__psn_diff(hd->psn, q->h2t_psn) > 0) {
    q->h2t_psn = hd->psn;
  }
  io_at(n, q->cap_io)->t_cap_last = pi->ts;
  if (last) {
    q->cap_io = RTEL__NIL;
  }
}

/* The queue of a target -> host request (RDMA WRITE: read data; READ
 * REQUEST: the target fetches write data), whose PSN, if later, becomes
 * the queue's highest target -> host request PSN. */
static rtel__inline nq *t2h_request(rtel__nvme *n, const rtel_pkt_info *pi,
                                    const rtel_pkt_hd *hd, uint32_t pk,
                                    int *prv) {
  nq *q = queue_of_t2h(n, pi->obs, hd, pk, prv);
  if (q && (rtel__psn_diff(hd->psn, q->t2h_psn) > 0 || !q->t2h_valid)) {
    q->t2h_psn = hd->psn;
    q->t2h_valid = 1;
  }
  return q;
}

/* The handlers of rtel__nvme_packet(), one per kind of packet, apart so
 * that the dispatch needs no stack frame (it jumps to them) and each
 * saves only the registers it uses. */
static rtel__noinline int on_send_first(rtel__nvme *n, const rtel_pkt_info *pi,
                                        const rtel_pkt_hd *hd, uint32_t pk,
                                        const uint8_t *pkt) {
  return send_first(n, pi, hd, pk, pkt, hd->opcode == RTEL__RC_SEND_ONLY);
}

static rtel__noinline int on_send_rest(rtel__nvme *n, const rtel_pkt_info *pi,
                                       const rtel_pkt_hd *hd, uint32_t pk) {
  capsule_rest(n, pi, hd, pk, hd->opcode == RTEL__RC_SEND_LAST);
  return 0;
}

static rtel__noinline int on_write(rtel__nvme *n, const rtel_pkt_info *pi,
                                   const rtel_pkt_hd *hd, uint32_t pk) {
  uint8_t op = hd->opcode;
  int rv;
  nq *q = t2h_request(n, pi, hd, pk, &rv);
  if (q != NULL) {
    if (op == RTEL__RC_WRITE_FIRST || op == RTEL__RC_WRITE_ONLY) {
      t2h_msg_start(q, hd->psn);
    }
    read_data(n, pi, hd, q, op);
  }
  return rv;
}

static rtel__noinline int on_read_request(rtel__nvme *n,
                                          const rtel_pkt_info *pi,
                                          const rtel_pkt_hd *hd, uint32_t pk) {
  int rv;
  nq *q = t2h_request(n, pi, hd, pk, &rv);
  if (q != NULL) {
    t2h_msg_start(q, hd->psn);
    read_request(n, pi, hd, q);
  }
  return rv;
}

static rtel__noinline int on_read_response(rtel__nvme *n,
                                           const rtel_pkt_info *pi,
                                           const rtel_pkt_hd *hd,
                                           uint32_t pk) {
  nq *q = queue_of_pkt(n, pi, hd, pk);
  if (q) {
    read_response(n, pi, hd, q, hd->opcode);
  }
  return 0;
}

int rtel__nvme_packet(rtel__nvme *n, const rtel_pkt_info *pi,
                      const rtel_pkt_hd *hd, const uint8_t *pkt, uint32_t pk) {
  uint8_t op = hd->opcode;

  if (n->flags & RTEL_NVME_DISABLE) {
    return 0;
  }
  /* NVMe-oF runs on RC QPs */
  if (op > RTEL__RC_MAX ||
      (hd->flags & (RTEL_HD_F_UNKNOWN_OPCODE | RTEL_HD_F_UNKNOWN_TVER))) {
    return 0;
  }
  switch (op) {
  case RTEL__RC_SEND_FIRST:
  case RTEL__RC_SEND_ONLY:
    return on_send_first(n, pi, hd, pk, pkt);
  case RTEL__RC_SEND_ONLY_INV:
    return cqe_capsule(hd) ? response(n, pi, hd, pk, pkt) : 0;
  case RTEL__RC_SEND_MIDDLE:
  case RTEL__RC_SEND_LAST:
    return on_send_rest(n, pi, hd, pk);
  case RTEL__RC_WRITE_FIRST:
  case RTEL__RC_WRITE_ONLY:
  case RTEL__RC_WRITE_MIDDLE:
  case RTEL__RC_WRITE_LAST:
    return on_write(n, pi, hd, pk);
  case RTEL__RC_READ_REQUEST:
    return on_read_request(n, pi, hd, pk);
  case RTEL__RC_READ_RESP_FIRST:
  case RTEL__RC_READ_RESP_ONLY:
  case RTEL__RC_READ_RESP_MIDDLE:
  case RTEL__RC_READ_RESP_LAST:
    return on_read_response(n, pi, hd, pk);
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

int rtel__nvme_flush(rtel__nvme *n, uint32_t state) {
  uint32_t i;
  int rv;
  if (n->flags & RTEL_NVME_DISABLE) {
    return 0;
  }
  /* completions held while their queue was paired by other evidence */
  for (i = n->queues.lru.head; i != RTEL__NIL;) {
    nq *q = queue_at(n, i);
    i = q->q.lru.next;
    if ((rv = release_held(n, q)) != 0) {
      return rv;
    }
  }
  while (n->io_fifo_head != RTEL__NIL) {
    nio *io = io_at(n, n->io_fifo_head);
    if ((rv = end_io(n, io, state,
                     queue_at(n, io->queue)->state == Q_CONFIRMED)) != 0) {
      return rv;
    }
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
