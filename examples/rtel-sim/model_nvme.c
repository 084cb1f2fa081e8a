/* model_nvme.c - NVMe over Fabrics over RDMA (host and target)
 *
 * Per host: one association with a target: an admin queue (qid 0) and
 * io_queues I/O queues, each an RC connection opened by RDMA CM (service ID
 * port 4420) and then by a Fabrics Connect command (opcode 0x7F, fctype
 * 0x01, 1024 bytes of in-capsule data).  On the admin queue the host then
 * sends Property Get (CAP), Property Set (CC.EN) and Identify Controller
 * before connecting the I/O queues.
 *
 * An I/O queue keeps up to qd commands outstanding (CIDs: lowest free tag,
 * so CIDs are reused).  Command capsules are SENDs (SEND FIRST..LAST when an
 * in-capsule write exceeds the PMTU).  Reads: the target accesses storage,
 * RDMA WRITEs the data (one message, RETH = the keyed SGL's va/rkey/length),
 * then SENDs the CQE.  Writes with a keyed SGL: the target issues RDMA READ
 * REQUEST(s) (several when larger than max_rreq), the host answers after its
 * data-preparation time, then the target accesses storage and answers.
 * In-capsule writes and flushes: storage access then CQE.  Keyed SGLs with
 * the invalidate subtype (0xF) are answered with SEND with Invalidate.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

enum { PH_DATA_RSP = 1, PH_FETCH, PH_RSP };

static uint32_t io_alloc(struct sim *s) {
  if (s->io_free == NONE) {
    uint32_t old = s->nio_cap, nc = old ? old * 2 : 1024;
    struct io *ni = realloc(s->ios, (size_t)nc * sizeof *ni);
    struct io_obs *no = realloc(
        s->iobs, (size_t)nc * (s->c.nobs ? s->c.nobs : 1) * sizeof *no);
    if (!ni || !no)
      die_nomem();
    s->ios = ni;
    s->iobs = no;
    for (uint32_t i = old; i < nc; i++)
      ni[i].next_free = i + 1 < nc ? i + 1 : NONE;
    s->io_free = old;
    s->nio_cap = nc;
  }
  uint32_t ii = s->io_free;
  struct io *io = &s->ios[ii];
  s->io_free = io->next_free;
  memset(io, 0, sizeof *io);
  memset(&s->iobs[(size_t)ii * s->c.nobs], 0,
         s->c.nobs * sizeof(struct io_obs));
  io->id = (uint32_t)s->io_seq++;
  io->refs = 1; /* owner: released when the host is done with it */
  io->next_free = NONE;
  return ii;
}

void io_unref(struct sim *s, uint32_t ii) {
  struct io *io = &s->ios[ii];
  if (--io->refs)
    return;
  truth_io(s, ii);
  io->next_free = s->io_free;
  s->io_free = ii;
}

static int cid_alloc(struct nvq *q) {
  for (unsigned w = 0; w < 2; w++)
    if (~q->cid_used[w]) {
      unsigned b = (unsigned)__builtin_ctzll(~q->cid_used[w]);
      q->cid_used[w] |= 1ull << b;
      return (int)(w * 64 + b);
    }
  return -1;
}

static void cid_free(struct nvq *q, unsigned cid) {
  q->cid_used[cid / 64] &= ~(1ull << (cid % 64));
}

static int budget_ok(struct sim *s) {
  if (s->stop_posting)
    return 0;
  if ((s->c.max_packets && s->sent_pkts >= s->c.max_packets) ||
      (s->c.duration && s->now >= s->c.duration)) {
    s->stop_posting = 1;
    return 0;
  }
  return 1;
}

static uint32_t new_cmd(struct sim *s, uint32_t qi, unsigned kind) {
  struct nvq *q = &s->nvqs[qi];
  int cid = cid_alloc(q);
  if (cid < 0)
    return NONE;
  uint32_t ii = io_alloc(s);
  struct io *io = &s->ios[ii];
  const struct cfg *c = &s->c;
  io->conn = q->conn;
  io->cid = (uint16_t)cid;
  io->kind = (uint8_t)kind;
  io->tag = qi;
  io->va = 0x7f0000000000ull + ((uint64_t)q->conn << 26) +
           ((uint64_t)cid << 18) + ((uint64_t)rng_below(&s->rng, 16) << 12);
  io->rkey = ((uint32_t)rng_u64(&s->rng) & 0xffffff00u) | (io->id & 0xffu);
  switch (kind) {
  case IOK_READ:
  case IOK_WRITE:
  case IOK_FLUSH: {
    io->opc = kind == IOK_READ ? 0x02 : kind == IOK_WRITE ? 0x01 : 0x00;
    io->nsid = 1;
    if (kind != IOK_FLUSH) {
      io->len = c->io_sizes[rng_below(&s->rng, c->n_io_sizes)];
      uint64_t nlb = io->len / 512;
      io->slba = rng_below(&s->rng, (1ull << 31) / nlb) * nlb;
      if (kind == IOK_WRITE && io->len <= c->incapsule)
        io->incapsule = 1;
      else
        io->inv = rng_below(&s->rng, 100) < c->inv_pct;
    } else
      io->sgl_null = 1;
    io->stall = (uint8_t)rng_chance(&s->rng, c->stall_rate);
    break;
  }
  case IOK_CONNECT:
    io->opc = 0x7f;
    io->fctype = 0x01;
    break;
  case IOK_PROPGET:
    io->opc = 0x7f;
    io->fctype = 0x04;
    io->sgl_null = 1;
    break;
  case IOK_PROPSET:
    io->opc = 0x7f;
    io->fctype = 0x00;
    io->sgl_null = 1;
    io->value = 0x00460001;
    break;
  case IOK_IDENTIFY:
    io->opc = 0x06;
    io->len = 4096;
    io->cdw10 = 1;
    io->inv = rng_below(&s->rng, 100) < c->inv_pct;
    break;
  }
  uint32_t caplen = 64;
  if (kind == IOK_CONNECT)
    caplen += 1024;
  else if (io->incapsule)
    caplen += io->len;
  q->outstanding++;
  if (kind <= IOK_FLUSH)
    s->ios_issued++;
  rc_post(s, q->conn, 0, MK_SEND, caplen, 0, 0, 0, ii, C_SQE, NV_CMD);
  if (io->stall) {
    io->refs++;
    sim_schedule(s, s->now + c->io_timeout, EV_NV_TIMEOUT, ii);
  }
  return ii;
}

void nvme_issue(struct sim *s, uint32_t qi) {
  struct nvq *q = &s->nvqs[qi];
  const struct cfg *c = &s->c;
  while (q->state == 3 && q->outstanding < q->qd && s->ios_issued < c->ios &&
         budget_ok(s)) {
    uint64_t r = rng_below(&s->rng, 100);
    unsigned kind = r < c->read_pct                                 ? IOK_READ
                    : r < c->read_pct + c->write_pct                ? IOK_WRITE
                    : r < c->read_pct + c->write_pct + c->flush_pct ? IOK_FLUSH
                                                                    : IOK_READ;
    if (new_cmd(s, qi, kind) == NONE)
      break;
  }
}

void nvme_conn_up(struct sim *s, uint32_t conn) {
  uint32_t qi = s->conns[conn].app;
  s->nvqs[qi].state = 1;
  new_cmd(s, qi, IOK_CONNECT);
}

/* ------------------------------------------------------------ target */

static void post_cqe(struct sim *s, uint32_t ii) {
  struct io *io = &s->ios[ii];
  struct nvq *q = &s->nvqs[io->tag];
  io->phase = (uint8_t)(((q->cqes / q->sqsize) & 1u) ? 0 : 1);
  q->cqes++;
  int inv = io->inv && !io->incapsule && !io->sgl_null;
  rc_post(s, io->conn, 1, inv ? MK_SEND_INV : MK_SEND, 16, 0, 0,
          inv ? io->rkey : 0, ii, C_CQE, NV_RSP);
}

static void set_error(struct sim *s, struct io *io) {
  /* status field without the phase bit: DNR<<14 | SCT<<8 | SC */
  uint64_t r = rng_below(&s->rng, 2);
  switch (io->kind) {
  case IOK_READ:
    io->status = r ? (uint16_t)(2u << 8 | 0x81) : (uint16_t)(1u << 14 | 0x80);
    break;
  case IOK_WRITE:
    io->status = r ? (uint16_t)(2u << 8 | 0x80) : (uint16_t)(1u << 14 | 0x80);
    break;
  default:
    io->status = 0x06;
    break;
  }
}

static void tgt_after(struct sim *s, uint32_t ii, uint64_t delay,
                      unsigned phase) {
  struct io *io = &s->ios[ii];
  io->tgt_phase = (uint8_t)phase;
  io->refs++;
  sim_schedule(s, s->now + delay, EV_NV_TGT, ii);
}

static void target_cmd(struct sim *s, uint32_t ii) {
  struct io *io = &s->ios[ii];
  struct nvq *q = &s->nvqs[io->tag];
  const struct cfg *c = &s->c;
  io->t_cmd_arrive = s->now;
  q->sqhd = (q->sqhd + 1) % q->sqsize;
  io->sqhd = (uint16_t)q->sqhd;
  if (io->stall)
    return;
  uint64_t proc = dist_draw(&c->target_proc, &s->rng);
  if (io->kind <= IOK_FLUSH && rng_chance(&s->rng, c->err_rate))
    set_error(s, io);
  switch (io->kind) {
  case IOK_READ:
    io->storage = dist_draw(&c->storage_read, &s->rng);
    tgt_after(s, ii, proc + io->storage, io->status ? PH_RSP : PH_DATA_RSP);
    break;
  case IOK_WRITE:
    if (io->status || io->incapsule) {
      io->storage = dist_draw(&c->storage_write, &s->rng);
      tgt_after(s, ii, proc + io->storage, PH_RSP);
    } else
      tgt_after(s, ii, proc, PH_FETCH);
    break;
  case IOK_FLUSH:
    io->storage = dist_draw(&c->storage_write, &s->rng);
    tgt_after(s, ii, proc + io->storage, PH_RSP);
    break;
  case IOK_IDENTIFY:
    tgt_after(s, ii, proc, PH_DATA_RSP);
    break;
  default:
    tgt_after(s, ii, proc, PH_RSP);
    break;
  }
}

void nvme_tgt_ready(struct sim *s, uint32_t ii) {
  struct io *io = &s->ios[ii];
  io->t_tgt_ready = s->now;
  switch (io->tgt_phase) {
  case PH_DATA_RSP:
    rc_post(s, io->conn, 1, MK_WRITE, io->len, io->va, io->rkey, 0, ii, C_ZERO,
            NV_RDATA);
    post_cqe(s, ii);
    break;
  case PH_FETCH: {
    uint32_t chunk = s->c.max_rreq ? s->c.max_rreq : io->len;
    for (uint32_t off = 0; off < io->len; off += chunk) {
      uint32_t n = io->len - off < chunk ? io->len - off : chunk;
      io->rreq_pending++;
      rc_post(s, io->conn, 1, MK_READ, n, io->va + off, io->rkey, 0, ii,
              C_ZERO, NV_WREQ);
    }
    break;
  }
  case PH_RSP:
    post_cqe(s, ii);
    break;
  }
  io_unref(s, ii);
}

/* host side: a READ request for write data arrived; the job waits for the
 * host's data preparation */
void nvme_on_rreq(struct sim *s, uint32_t ii, struct rrjob *j) {
  struct io *io = &s->ios[ii];
  uint64_t prep = dist_draw(&s->c.host_prep, &s->rng);
  j->t_ready = s->now + prep;
  if (!io->t_q_arrive) {
    io->t_q_arrive = s->now;
    io->host_prep = prep;
  }
}

/* ------------------------------------------------------------ host */

static void admin_next(struct sim *s, uint32_t qi, unsigned done_kind) {
  struct nvq *q = &s->nvqs[qi];
  switch (done_kind) {
  case IOK_CONNECT:
    new_cmd(s, qi, IOK_PROPGET);
    break;
  case IOK_PROPGET:
    new_cmd(s, qi, IOK_PROPSET);
    break;
  case IOK_PROPSET:
    new_cmd(s, qi, IOK_IDENTIFY);
    break;
  case IOK_IDENTIFY: {
    q->state = 3;
    uint64_t t = s->now + 1000;
    for (uint32_t k = 1; k <= s->c.io_queues; k++) {
      cm_start(s, s->nvqs[qi + k].conn, t);
      t += 500;
    }
    break;
  }
  }
}

static void host_cqe(struct sim *s, uint32_t ii) {
  struct io *io = &s->ios[ii];
  struct nvq *q = &s->nvqs[io->tag];
  io->t_rsp_arrive = s->now;
  if (io->timed_out || io->done)
    return;
  io->done = 1;
  if (io->kind <= IOK_FLUSH)
    s->ios_done++;
  cid_free(q, io->cid);
  q->outstanding--;
  unsigned kind = io->kind;
  uint32_t qi = io->tag;
  io_unref(s, ii); /* owner */
  if (q->qid == 0) {
    admin_next(s, qi, kind);
    return;
  }
  if (kind == IOK_CONNECT)
    q->state = 3;
  nvme_issue(s, qi);
}

void nvme_timeout(struct sim *s, uint32_t ii) {
  struct io *io = &s->ios[ii];
  if (!io->done) {
    struct nvq *q = &s->nvqs[io->tag];
    uint32_t qi = io->tag;
    io->done = 1;
    io->timed_out = 1;
    s->ios_done++;
    q->outstanding--; /* the CID stays allocated: it is never reused */
    io_unref(s, ii);  /* owner */
    nvme_issue(s, qi);
  }
  io_unref(s, ii); /* the event's reference */
}

void nvme_on_deliver(struct sim *s, uint32_t mi, unsigned side) {
  const struct msg *m = &s->msgs[mi];
  if (side == 1 && m->nvme == NV_CMD)
    target_cmd(s, m->io);
  else if (side == 0 && m->nvme == NV_RSP)
    host_cqe(s, m->io);
}

void nvme_on_complete(struct sim *s, uint32_t mi) {
  const struct msg *m = &s->msgs[mi];
  if (m->nvme != NV_WREQ)
    return;
  uint32_t ii = m->io;
  struct io *io = &s->ios[ii];
  if (--io->rreq_pending == 0) {
    io->t_pn_arrive = s->now;
    io->storage = dist_draw(&s->c.storage_write, &s->rng);
    tgt_after(s, ii, io->storage, PH_RSP);
  }
}

/* ------------------------------------------------------------ encoding */

size_t nvme_sqe(const struct sim *s, const struct io *io, uint8_t *b) {
  const struct nvq *q = &s->nvqs[io->tag];
  memset(b, 0, 64);
  b[0] = io->opc;
  b[1] = 0x40; /* PSDT: SGL */
  put16le(b + 2, io->cid);
  put32le(b + 4, io->nsid);
  if (io->opc == 0x7f)
    b[4] = io->fctype;
  /* SGL1 */
  if (io->kind == IOK_CONNECT || io->incapsule) {
    put64le(b + 24, 0); /* offset into the capsule's data */
    put32le(b + 32, io->kind == IOK_CONNECT ? 1024 : io->len);
    b[39] = 0x01; /* data block, offset subtype */
  } else if (io->sgl_null) {
    b[39] = 0x40; /* keyed data block, address, length 0 */
  } else {
    put64le(b + 24, io->va);
    b[32] = (uint8_t)io->len;
    b[33] = (uint8_t)(io->len >> 8);
    b[34] = (uint8_t)(io->len >> 16);
    put32le(b + 35, io->rkey);
    b[39] = (uint8_t)(0x40 | (io->inv ? 0x0f : 0x00));
  }
  switch (io->kind) {
  case IOK_CONNECT:
    put16le(b + 40, 0);                        /* recfmt */
    put16le(b + 42, q->qid);                   /* qid */
    put16le(b + 44, q->sqsize - 1u);           /* sqsize, 0's based */
    put32le(b + 48, q->qid == 0 ? 120000 : 0); /* kato, ms */
    break;
  case IOK_PROPGET:
    b[40] = 1;          /* 8 bytes */
    put32le(b + 44, 0); /* CAP */
    break;
  case IOK_PROPSET:
    b[40] = 0;
    put32le(b + 44, 0x14); /* CC */
    put64le(b + 48, io->value);
    break;
  case IOK_IDENTIFY:
    put32le(b + 40, io->cdw10);
    break;
  case IOK_READ:
  case IOK_WRITE:
    put64le(b + 40, io->slba);
    put32le(b + 48, io->len / 512 - 1);
    break;
  default:
    break;
  }
  return 64;
}

static size_t connect_data(const struct sim *s, const struct io *io,
                           uint8_t *b) {
  const struct nvq *q = &s->nvqs[io->tag];
  memset(b, 0, 1024);
  put32be(b, 0x52544c53); /* host id: "RTLS" + host number */
  put32be(b + 12, q->host);
  put16le(b + 16, q->qid == 0 ? 0xffff : s->nvqs[q->assoc].cntlid);
  snprintf((char *)b + 256, 256,
           "nqn.2014-08.org.nvmexpress:rtel-sim:target%u", q->target);
  snprintf((char *)b + 512, 256,
           "nqn.2014-08.org.nvmexpress:uuid:52544c53-0000-0000-0000-%012u",
           q->host);
  return 1024;
}

static size_t cqe(const struct sim *s, const struct io *io, uint8_t *b) {
  const struct nvq *q = &s->nvqs[io->tag];
  memset(b, 0, 16);
  if (io->kind == IOK_CONNECT)
    put16le(b, s->nvqs[q->assoc].cntlid);
  else if (io->kind == IOK_PROPGET) {
    uint64_t cap = 0x0000002030010fffull; /* MQES 4095, CQR, TO 15, CSS NVM */
    put32le(b, (uint32_t)cap);
    put32le(b + 4, (uint32_t)(cap >> 32));
  }
  put16le(b + 8, io->sqhd);
  put16le(b + 10, q->qid);
  put16le(b + 12, io->cid);
  put16le(b + 14, (uint32_t)io->status << 1 | io->phase);
  return 16;
}

/* explicit payload bytes [off, off+len) of an NVMe message; returns how
 * many leading bytes of that range are explicit (the rest is zero) */
size_t nvme_payload(const struct sim *s, const struct msg *m, uint32_t off,
                    uint32_t len, uint8_t *buf) {
  uint8_t tmp[64 + 1024];
  size_t n = 0;
  const struct io *io = &s->ios[m->io];
  if (m->content == C_SQE) {
    n = nvme_sqe(s, io, tmp);
    if (io->kind == IOK_CONNECT)
      n += connect_data(s, io, tmp + 64);
  } else if (m->content == C_CQE)
    n = cqe(s, io, tmp);
  if (off >= n)
    return 0;
  size_t k = n - off < len ? n - off : len;
  memcpy(buf, tmp + off, k);
  return k;
}

/* create queues and connections (called after the GPU connections) */
int nvme_setup(struct sim *s) {
  const struct cfg *c = &s->c;
  uint32_t nq = c->nvme_hosts * (1 + c->io_queues);
  if (!nq)
    return 0;
  s->nvqs = calloc(nq, sizeof *s->nvqs);
  if (!s->nvqs)
    return -1;
  for (uint32_t h = 0; h < c->nvme_hosts; h++) {
    uint32_t tgt = c->hosts + h % c->targets;
    uint32_t assoc = s->nnvq;
    for (uint32_t k = 0; k <= c->io_queues; k++) {
      uint32_t qi = s->nnvq++;
      struct nvq *q = &s->nvqs[qi];
      struct conn *cn = &s->conns[s->nconn];
      q->conn = s->nconn++;
      q->host = h;
      q->target = h % c->targets;
      q->qid = (uint16_t)k;
      q->sqsize = (uint16_t)(k == 0 ? 32 : (c->qd < 2 ? 2 : c->qd));
      q->qd = k == 0 ? 1 : c->qd;
      q->assoc = assoc;
      q->cntlid = (uint16_t)(1 + h);
      cn->a = h;
      cn->b = tgt;
      cn->kind = (uint8_t)(k == 0 ? CK_NVME_ADMIN : CK_NVME_IO);
      cn->qid = q->qid;
      cn->qsize = q->sqsize;
      cn->svc_port = 4420;
      cn->app = qi;
    }
  }
  return 0;
}
