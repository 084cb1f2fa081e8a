/* model_rc.c - reliable connected queue pairs
 *
 * Requester: a send queue of messages, transmitted packet by packet by the
 * node's NIC scheduler (round robin over QPs with work, at line rate).
 * Go-back-N: on a PSN-sequence-error NAK, an RNR NAK (after the RNR delay),
 * a gap in READ responses ("implied NAK") or a retransmission timeout
 * without any NAK, transmission restarts at the oldest unacknowledged PSN
 * concerned.  A packet is a retransmission when its PSN is below the highest
 * PSN already transmitted by that requester.
 *
 * Responder: expected PSN, coalesced ACKs (every ack_every in-order packets,
 * on AckReq, optionally delayed), one NAK per sequence error, RNR NAKs,
 * re-execution of duplicate READ requests, READ responses (PSNs = request
 * PSN onward, AETH on FIRST/LAST/ONLY), CNPs for CE-marked packets, BECN on
 * the next ACK after a FECN.
 */
#include <stdlib.h>
#include <string.h>

#include "sim.h"

/* ---------------------------------------------------------------- pools */

uint32_t pkt_alloc(struct sim *s) {
  if (s->pkt_free == NONE) {
    uint32_t old = s->npkt_cap, nc = old ? old * 2 : 4096;
    struct pkt *np = realloc(s->pkts, (size_t)nc * sizeof *np);
    if (!np)
      die_nomem();
    s->pkts = np;
    for (uint32_t i = old; i < nc; i++)
      np[i].next_free = i + 1 < nc ? i + 1 : NONE;
    s->pkt_free = old;
    s->npkt_cap = nc;
  }
  uint32_t pi = s->pkt_free;
  struct pkt *p = &s->pkts[pi];
  s->pkt_free = p->next_free;
  memset(p, 0, sizeof *p);
  p->msg = p->io = NONE;
  p->drop = p->ce = 0xff;
  p->seq = (uint32_t)s->pkt_seq++;
  return pi;
}

void pkt_release(struct sim *s, uint32_t pi) {
  struct pkt *p = &s->pkts[pi];
  if (--p->refs)
    return;
  uint32_t mi = p->msg;
  p->next_free = s->pkt_free;
  s->pkt_free = pi;
  if (mi != NONE)
    msg_unref(s, mi);
}

uint32_t msg_alloc(struct sim *s) {
  if (s->msg_free == NONE) {
    uint32_t old = s->nmsg_cap, nc = old ? old * 2 : 4096;
    struct msg *nm = realloc(s->msgs, (size_t)nc * sizeof *nm);
    struct msg_obs *no = realloc(
        s->mobs, (size_t)nc * (s->c.nobs ? s->c.nobs : 1) * sizeof *no);
    if (!nm || !no)
      die_nomem();
    s->msgs = nm;
    s->mobs = no;
    for (uint32_t i = old; i < nc; i++)
      nm[i].next = i + 1 < nc ? i + 1 : NONE;
    s->msg_free = old;
    s->nmsg_cap = nc;
  }
  uint32_t mi = s->msg_free;
  struct msg *m = &s->msgs[mi];
  s->msg_free = m->next;
  memset(m, 0, sizeof *m);
  memset(&s->mobs[(size_t)mi * s->c.nobs], 0,
         s->c.nobs * sizeof(struct msg_obs));
  m->next = NONE;
  m->io = NONE;
  m->id = (uint32_t)s->msg_seq++;
  m->refs = 1; /* the send queue's reference, dropped at completion */
  return mi;
}

void msg_unref(struct sim *s, uint32_t mi) {
  struct msg *m = &s->msgs[mi];
  if (--m->refs)
    return;
  truth_msg(s, mi);
  uint32_t io = m->io;
  m->next = s->msg_free;
  s->msg_free = mi;
  if (io != NONE)
    io_unref(s, io);
}

static uint32_t rr_alloc(struct sim *s) {
  if (s->rr_free == NONE) {
    uint32_t old = s->nrr_cap, nc = old ? old * 2 : 1024;
    struct rrjob *nr = realloc(s->rr, (size_t)nc * sizeof *nr);
    if (!nr)
      die_nomem();
    s->rr = nr;
    for (uint32_t i = old; i < nc; i++)
      nr[i].next = i + 1 < nc ? i + 1 : NONE;
    s->rr_free = old;
    s->nrr_cap = nc;
  }
  uint32_t ji = s->rr_free;
  s->rr_free = s->rr[ji].next;
  memset(&s->rr[ji], 0, sizeof s->rr[ji]);
  s->rr[ji].next = NONE;
  return ji;
}

static void rr_free_job(struct sim *s, uint32_t ji) {
  uint32_t mi = s->rr[ji].msg;
  s->rr[ji].next = s->rr_free;
  s->rr_free = ji;
  msg_unref(s, mi);
}

/* ---------------------------------------------------------------- helpers */

uint32_t pmtu_pkts(const struct sim *s, uint32_t len) {
  return len == 0 ? 1 : (len + s->c.pmtu - 1) / s->c.pmtu;
}

static uint32_t ext_len(unsigned op) {
  switch (op) {
  case OP_WRITE_FIRST:
  case OP_WRITE_ONLY:
  case OP_READ_REQ:
    return 16;
  case OP_WRITE_ONLY_IMM:
    return 20;
  case OP_SEND_LAST_IMM:
  case OP_SEND_ONLY_IMM:
  case OP_WRITE_LAST_IMM:
  case OP_SEND_LAST_INV:
  case OP_SEND_ONLY_INV:
  case OP_ACK:
  case OP_READ_RESP_FIRST:
  case OP_READ_RESP_LAST:
  case OP_READ_RESP_ONLY:
    return 4;
  case OP_UD_SEND_ONLY:
    return 8;
  default:
    return 0;
  }
}

/* frame length on the wire (no FCS), as encoded without capture effects */
uint32_t rc_wire_len(const struct sim *s, const struct pkt *p) {
  uint32_t l3 = s->c.ipv6 ? 40 : 20;
  uint32_t pad = (4 - (p->len & 3)) & 3;
  uint32_t pl = p->opcode == OP_CNP ? 16 : p->len + pad;
  return 14u + (s->c.vlan ? 4u : 0u) + l3 + 8 + 12 + ext_len(p->opcode) + pl +
         4;
}

void nic_kick(struct sim *s, uint32_t node) {
  struct node *n = &s->nodes[node];
  if (n->nic_sched)
    return;
  n->nic_sched = 1;
  sim_schedule(s, n->nic_busy > s->now ? n->nic_busy : s->now, EV_NIC, node);
}

static int has_work(const struct sim *s, const struct qp *q) {
  if (q->rr_head != NONE && s->rr[q->rr_head].t_ready <= s->now)
    return 1;
  return q->cur != NONE && !q->rnr_wait && q->ready;
}

static void nic_add(struct sim *s, uint32_t e) {
  struct qp *q = &s->qps[e];
  if (q->in_nic || !has_work(s, q))
    return;
  struct node *n = &s->nodes[q->node];
  q->in_nic = 1;
  q->nic_next = NONE;
  if (n->nic_tail == NONE)
    n->nic_head = e;
  else
    s->qps[n->nic_tail].nic_next = e;
  n->nic_tail = e;
  nic_kick(s, q->node);
}

static int outstanding(const struct qp *q) {
  return psn_lt(q->una, q->snd_max);
}

static void arm_rto(struct sim *s, uint32_t e) {
  struct qp *q = &s->qps[e];
  if (q->rto_armed || !outstanding(q))
    return;
  q->rto_armed = 1;
  sim_schedule(s, q->progress + (s->c.rto << q->rto_shift), EV_RTO, e);
}

static void app_complete(struct sim *s, uint32_t mi) {
  if (s->msgs[mi].io != NONE)
    nvme_on_complete(s, mi);
  else
    gpu_on_complete(s, &s->msgs[mi]);
}

static void app_deliver(struct sim *s, uint32_t mi, unsigned side) {
  if (s->msgs[mi].io != NONE)
    nvme_on_deliver(s, mi, side);
  else
    gpu_on_deliver(s, &s->msgs[mi]);
}

/* ---------------------------------------------------------------- posting */

uint32_t rc_post(struct sim *s, uint32_t conn, unsigned dir, unsigned kind,
                 uint32_t len, uint64_t va, uint32_t rkey, uint32_t imm,
                 uint32_t io, unsigned content, unsigned nvme) {
  uint32_t e = qp_idx(conn, dir);
  uint32_t mi = msg_alloc(s);
  struct msg *m = &s->msgs[mi];
  struct qp *q = &s->qps[e];
  m->conn = conn;
  m->dir = (uint8_t)dir;
  m->kind = (uint8_t)kind;
  m->len = len;
  m->va = va;
  m->rkey = rkey;
  m->imm = imm;
  m->io = io;
  m->content = (uint8_t)content;
  m->nvme = (uint8_t)nvme;
  m->t_post = s->now;
  m->psn0 = q->post_psn;
  m->npkts = pmtu_pkts(s, len);
  q->post_psn = psn_add(q->post_psn, m->npkts);
  if (io != NONE)
    s->ios[io].refs++;
  if (q->tail == NONE)
    q->head = mi;
  else
    s->msgs[q->tail].next = mi;
  q->tail = mi;
  if (q->cur == NONE) {
    q->cur = mi;
    q->cur_off = 0;
  }
  nic_add(s, e);
  return mi;
}

/* ---------------------------------------------------------------- completion
 */

static void advance(struct sim *s, uint32_t e) {
  struct qp *q = &s->qps[e];
  uint32_t old = q->una;
  while (q->head != NONE) {
    uint32_t mi = q->head;
    struct msg *m = &s->msgs[mi];
    uint32_t end = psn_add(m->psn0, m->npkts);
    if (psn_le(q->snd_max, m->psn0)) { /* not transmitted yet */
      q->una = m->psn0;
      break;
    }
    int complete;
    if (m->kind == MK_READ) {
      complete = m->resp == m->npkts;
      if (!complete)
        q->una = psn_add(m->psn0, m->resp);
    } else {
      complete = psn_le(end, q->ackd);
      if (!complete)
        q->una = psn_lt(m->psn0, q->ackd) ? q->ackd : m->psn0;
    }
    if (!complete)
      break;
    q->head = m->next;
    if (q->head == NONE)
      q->tail = NONE;
    if (q->cur == mi) {
      q->cur = m->next;
      q->cur_off = 0;
    }
    q->una = end;
    m->done = 1;
    m->t_done = s->now;
    s->msgs_done++;
    app_complete(s, mi);
    msg_unref(s, mi);
  }
  if (q->head == NONE)
    q->una = q->snd_max;
  /* never resend what is already acknowledged */
  if (q->cur != NONE && q->cur == q->head) {
    struct msg *m = &s->msgs[q->cur];
    uint32_t curpsn = psn_add(m->psn0, q->cur_off);
    if (psn_lt(curpsn, q->una))
      q->cur_off = psn_diff(q->una, m->psn0);
  }
  if (q->una != old) {
    q->progress = s->now;
    q->rto_shift = 0;
  }
}

static void rewind_to(struct sim *s, uint32_t e, uint32_t psn,
                      unsigned cause) {
  struct qp *q = &s->qps[e];
  uint32_t found = NONE, off = 0;
  for (uint32_t mi = q->head; mi != NONE; mi = s->msgs[mi].next) {
    struct msg *m = &s->msgs[mi];
    if (psn_le(m->psn0, psn) && psn_lt(psn, psn_add(m->psn0, m->npkts))) {
      found = mi;
      off = psn_diff(psn, m->psn0);
      break;
    }
    if (psn_lt(psn, m->psn0)) {
      found = mi;
      off = 0;
      break;
    }
  }
  q->cur = found;
  q->cur_off = off;
  q->cause = (uint8_t)cause;
  q->rd_gap = 0;
  truth_rewind(s, e / 2, e & 1, psn, cause);
  nic_add(s, e);
}

/* ---------------------------------------------------------------- transmit */

static void nvme_tx_note(struct sim *s, const struct pkt *p) {
  struct io *io = &s->ios[p->io];
  switch (p->nvme) {
  case NV_CMD:
    if (p->why == WHY_RETX)
      io->cmd_retx = 1;
    else if ((p->flags & PF_FIRST) && !io->t_cmd_send)
      io->t_cmd_send = p->t_send;
    break;
  case NV_RSP:
    if (p->why == WHY_RETX)
      io->rsp_retx = 1;
    else if ((p->flags & PF_FIRST) && !io->t_rsp_send)
      io->t_rsp_send = p->t_send;
    break;
  case NV_WREQ:
    if (!io->t_q_send)
      io->t_q_send = p->t_send;
    break;
  case NV_WDATA:
    if (!io->t_p1_send)
      io->t_p1_send = p->t_send;
    break;
  default:
    break;
  }
}

static uint32_t emit_rresp(struct sim *s, uint32_t e, uint64_t t) {
  struct qp *q = &s->qps[e];
  uint32_t ji = q->rr_head;
  struct rrjob *j = &s->rr[ji];
  struct msg *m = &s->msgs[j->msg];
  uint32_t pi = pkt_alloc(s);
  struct pkt *p = &s->pkts[pi];
  uint32_t idx = j->sent;
  uint32_t total = m->len - j->off0;
  uint32_t done = idx * s->c.pmtu;
  p->conn = e / 2;
  p->dir = (uint8_t)(e & 1);
  p->psn = psn_add(j->psn0, idx);
  p->len = total - done < s->c.pmtu ? total - done : s->c.pmtu;
  if (m->len == 0)
    p->len = 0;
  p->off = j->off0 + done;
  if (j->npkts == 1)
    p->opcode = OP_READ_RESP_ONLY;
  else if (idx == 0)
    p->opcode = OP_READ_RESP_FIRST;
  else if (idx == j->npkts - 1)
    p->opcode = OP_READ_RESP_LAST;
  else
    p->opcode = OP_READ_RESP_MIDDLE;
  if (idx == 0)
    p->flags |= PF_FIRST;
  if (idx == j->npkts - 1)
    p->flags |= PF_LAST;
  p->syndrome = 0x1f;
  p->msn = q->msn;
  if (q->becn_pending && (p->opcode != OP_READ_RESP_MIDDLE)) {
    p->flags |= PF_BECN;
    q->becn_pending = 0;
  }
  p->what = W_DATA;
  p->msg = j->msg;
  p->io = m->io;
  p->nvme = m->nvme == NV_WREQ ? NV_WDATA : NV_NONE;
  p->kind = m->kind;
  if (q->rsp_any && psn_lt(p->psn, q->rsp_max)) {
    p->why = WHY_RETX;
    p->cause = j->cause ? j->cause : CAUSE_IMPLIED;
    m->retx[p->cause]++;
  } else {
    p->why = WHY_NEW;
    q->rsp_max = psn_add(p->psn, 1);
    q->rsp_any = 1;
  }
  m->refs++;
  p->t_send = t;
  if (p->io != NONE)
    nvme_tx_note(s, p);
  j->sent++;
  if (j->sent == j->npkts) {
    q->rr_head = j->next;
    if (q->rr_head == NONE)
      q->rr_tail = NONE;
    rr_free_job(s, ji);
  }
  net_send(s, pi);
  return pi;
}

static uint32_t emit_req(struct sim *s, uint32_t e, uint64_t t) {
  struct qp *q = &s->qps[e];
  uint32_t mi = q->cur;
  struct msg *m = &s->msgs[mi];
  uint32_t off = q->cur_off;
  uint32_t pi = pkt_alloc(s);
  struct pkt *p = &s->pkts[pi];
  uint32_t pmtu = s->c.pmtu;
  uint32_t consumed = 1;
  p->conn = e / 2;
  p->dir = (uint8_t)(e & 1);
  p->psn = psn_add(m->psn0, off);
  p->msg = mi;
  p->io = m->io;
  p->nvme = m->nvme;
  p->kind = m->kind;
  p->content = m->content;
  if (m->kind == MK_READ) {
    p->opcode = OP_READ_REQ;
    p->what = W_RREQ;
    p->va = m->va + (uint64_t)off * pmtu;
    p->rkey = m->rkey;
    p->dmalen = m->len - off * pmtu;
    if (m->len == 0)
      p->dmalen = 0;
    p->off = off * pmtu;
    p->len = 0;
    p->flags |= PF_FIRST | PF_LAST | PF_ACKREQ;
    consumed = m->npkts - off;
    q->cur = m->next;
    q->cur_off = 0;
  } else {
    uint32_t n = m->npkts;
    int first = off == 0, last = off == n - 1;
    p->what = W_DATA;
    p->off = off * pmtu;
    p->len =
        m->len == 0 ? 0 : (m->len - p->off < pmtu ? m->len - p->off : pmtu);
    switch (m->kind) {
    case MK_WRITE:
    case MK_WRITE_IMM: {
      int imm = m->kind == MK_WRITE_IMM;
      if (n == 1)
        p->opcode = imm ? OP_WRITE_ONLY_IMM : OP_WRITE_ONLY;
      else if (first)
        p->opcode = OP_WRITE_FIRST;
      else if (last)
        p->opcode = imm ? OP_WRITE_LAST_IMM : OP_WRITE_LAST;
      else
        p->opcode = OP_WRITE_MIDDLE;
      if (first) {
        p->va = m->va;
        p->rkey = m->rkey;
        p->dmalen = m->len;
      }
      break;
    }
    default: {
      int imm = m->kind == MK_SEND_IMM, inv = m->kind == MK_SEND_INV;
      if (n == 1)
        p->opcode = imm   ? OP_SEND_ONLY_IMM
                    : inv ? OP_SEND_ONLY_INV
                          : OP_SEND_ONLY;
      else if (first)
        p->opcode = OP_SEND_FIRST;
      else if (last)
        p->opcode = imm   ? OP_SEND_LAST_IMM
                    : inv ? OP_SEND_LAST_INV
                          : OP_SEND_LAST;
      else
        p->opcode = OP_SEND_MIDDLE;
      if (last && m->kind != MK_SEND)
        p->flags |= 0;
      break;
    }
    }
    p->imm = m->imm;
    if (first)
      p->flags |= PF_FIRST;
    if (last) {
      p->flags |= PF_LAST | PF_ACKREQ;
      if (m->kind == MK_SEND || m->kind == MK_SEND_IMM ||
          m->kind == MK_SEND_INV)
        p->flags |= PF_SE;
    }
    q->cur_off = off + 1;
    if (q->cur_off == n) {
      q->cur = m->next;
      q->cur_off = 0;
    }
  }
  int was_idle = !outstanding(q);
  uint32_t end = psn_add(p->psn, consumed);
  if (psn_lt(p->psn, q->snd_max)) {
    p->why = WHY_RETX;
    p->cause = q->cause ? q->cause : CAUSE_TIMEOUT;
    m->retx[p->cause]++;
  } else
    p->why = WHY_NEW;
  if (psn_lt(q->snd_max, end))
    q->snd_max = end;
  if (was_idle)
    q->una = p->psn;
  /* the transport timer runs from the last new transmission or progress */
  if (was_idle || p->why == WHY_NEW)
    q->progress = t;
  m->refs++;
  p->t_send = t;
  if (p->io != NONE)
    nvme_tx_note(s, p);
  net_send(s, pi);
  arm_rto(s, e);
  return pi;
}

void rc_nic(struct sim *s, uint32_t node) {
  struct node *n = &s->nodes[node];
  n->nic_sched = 0;
  while (n->nic_head != NONE) {
    uint32_t e = n->nic_head;
    struct qp *q = &s->qps[e];
    n->nic_head = q->nic_next;
    if (n->nic_head == NONE)
      n->nic_tail = NONE;
    q->in_nic = 0;
    if (!has_work(s, q))
      continue;
    /* a burst of up to nic_burst packets from this QP, back to back */
    uint64_t t = s->now;
    for (uint32_t b = 0; b < s->c.nic_burst && has_work(s, q); b++) {
      uint32_t pi;
      if (q->rr_head != NONE && s->rr[q->rr_head].t_ready <= s->now)
        pi = emit_rresp(s, e, t);
      else
        pi = emit_req(s, e, t);
      t += net_ser_ns(s, rc_wire_len(s, &s->pkts[pi]));
    }
    n->nic_busy = t; /* before nic_add(): it may kick */
    nic_add(s, e);
    if (n->nic_head != NONE && !n->nic_sched) {
      n->nic_sched = 1;
      sim_schedule(s, n->nic_busy, EV_NIC, node);
    }
    return;
  }
}

void rc_send_ctrl(struct sim *s, uint32_t e, unsigned what, unsigned opcode,
                  uint32_t psn, uint8_t syndrome, uint32_t msn,
                  unsigned flags) {
  struct qp *q = &s->qps[e];
  uint32_t pi = pkt_alloc(s);
  struct pkt *p = &s->pkts[pi];
  p->conn = e / 2;
  p->dir = (uint8_t)(e & 1);
  p->what = (uint8_t)what;
  p->opcode = (uint8_t)opcode;
  p->psn = psn;
  p->syndrome = syndrome;
  p->msn = msn;
  p->flags = (uint8_t)flags;
  if (what != W_CNP && q->becn_pending) {
    p->flags |= PF_BECN;
    q->becn_pending = 0;
  }
  if (what == W_CNP)
    p->flags |= PF_BECN;
  p->t_send = s->now;
  net_send(s, pi);
}

static void send_ack(struct sim *s, uint32_t e) {
  struct qp *q = &s->qps[e];
  q->ack_cnt = 0;
  rc_send_ctrl(s, e, W_ACK, OP_ACK, psn_add(q->epsn, PSN_MASK), 0x1f, q->msn,
               0);
}

/* RNR timer code (IBTA table 45) nearest above ns */
static uint8_t rnr_code(uint64_t ns) {
  static const uint32_t us100[32] = {
      65536, 1,    2,    3,    4,    6,     8,     12,    16,    24,   32,
      48,    64,   96,   128,  192,  256,   384,   512,   768,   1024, 1536,
      2048,  3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152};
  /* table unit is 10 us: value 1 = 0.01 ms */
  for (uint8_t c = 1; c < 32; c++)
    if ((uint64_t)us100[c] * 10000u >= ns)
      return c;
  return 0;
}

/* ---------------------------------------------------------------- receive */

static void queue_rr(struct sim *s, uint32_t e, const struct pkt *p,
                     int retx) {
  struct qp *q = &s->qps[e];
  struct msg *m = &s->msgs[p->msg];
  uint32_t ji = rr_alloc(s);
  struct rrjob *j = &s->rr[ji];
  j->msg = p->msg;
  j->psn0 = j->psn = p->psn;
  j->npkts = pmtu_pkts(s, p->dmalen);
  j->off0 = p->off;
  j->retx = (uint8_t)retx;
  j->cause = retx ? (p->cause ? p->cause : CAUSE_IMPLIED) : 0;
  j->t_ready = s->now;
  m->refs++;
  if (m->io != NONE)
    nvme_on_rreq(s, m->io, j);
  if (q->rr_tail == NONE)
    q->rr_head = ji;
  else
    s->rr[q->rr_tail].next = ji;
  q->rr_tail = ji;
  if (j->t_ready > s->now)
    sim_schedule(s, j->t_ready, EV_RR_READY, e);
  nic_add(s, e);
}

/* a duplicate READ request: stop answering from its PSN on, then answer again
 */
static void rr_abort_from(struct sim *s, uint32_t e, uint32_t psn) {
  struct qp *q = &s->qps[e];
  uint32_t prev = NONE, ji = q->rr_head;
  while (ji != NONE) {
    struct rrjob *j = &s->rr[ji];
    uint32_t next = j->next;
    uint32_t cut = psn_le(psn, j->psn0) ? 0 : psn_diff(psn, j->psn0);
    if (cut < j->npkts) {
      if (cut <= j->sent) {
        /* nothing left to send in this job */
        if (prev == NONE)
          q->rr_head = next;
        else
          s->rr[prev].next = next;
        if (q->rr_tail == ji)
          q->rr_tail = prev;
        rr_free_job(s, ji);
        ji = next;
        continue;
      }
      j->npkts = cut;
    }
    prev = ji;
    ji = next;
  }
}

static void note_links(const struct pkt *p, uint32_t *links, uint8_t *nl) {
  uint64_t t = p->t_send;
  for (unsigned k = 0; k < p->nlinks; k++) {
    links[k] = (uint32_t)(p->hop_t[k] - t);
    t = p->hop_t[k];
  }
  *nl = p->nlinks;
}

static void rx_req(struct sim *s, uint32_t e, const struct pkt *p) {
  struct qp *q = &s->qps[e];
  if (p->psn == q->epsn) {
    q->nak_state = 0;
    unsigned op = p->opcode;
    if (s->c.rnr_rate > 0 &&
        (op == OP_SEND_FIRST || op == OP_SEND_ONLY || op == OP_SEND_ONLY_IMM ||
         op == OP_SEND_ONLY_INV || op == OP_WRITE_ONLY_IMM) &&
        rng_chance(&s->rng, s->c.rnr_rate)) {
      rc_send_ctrl(s, e, W_RNR, OP_ACK, q->epsn,
                   (uint8_t)(0x20 | rnr_code(s->c.rnr_ns)), q->msn, 0);
      q->nak_state = 2;
      return;
    }
    if (op == OP_READ_REQ) {
      q->epsn = psn_add(q->epsn, pmtu_pkts(s, p->dmalen));
      q->msn = (q->msn + 1) & PSN_MASK;
      queue_rr(s, e, p, p->why == WHY_RETX);
      return;
    }
    q->epsn = psn_add(q->epsn, 1);
    q->ack_cnt++;
    if (p->io != NONE && (p->flags & PF_FIRST)) {
      struct io *io = &s->ios[p->io];
      if (p->nvme == NV_CMD && !io->t_cmd_arrive1) {
        io->t_cmd_arrive1 = s->now;
        note_links(p, io->cmd_links, &io->cmd_nl);
      } else if (p->nvme == NV_RSP && !io->t_rsp_arrive) {
        note_links(p, io->rsp_links, &io->rsp_nl);
      }
    }
    if (p->flags & PF_LAST) {
      q->msn = (q->msn + 1) & PSN_MASK;
      app_deliver(s, p->msg, e & 1);
    }
    if (p->flags & PF_ACKREQ) {
      if (s->c.ack_delay == 0)
        send_ack(s, e);
      else if (!q->ackt_armed) {
        q->ackt_armed = 1;
        sim_schedule(s, s->now + s->c.ack_delay, EV_ACKT, e);
      }
    } else if (q->ack_cnt >= s->c.ack_every)
      send_ack(s, e);
    return;
  }
  if (psn_lt(q->epsn, p->psn)) {
    if (q->nak_state == 0) {
      rc_send_ctrl(s, e, W_NAK, OP_ACK, q->epsn, 0x60, q->msn, 0);
      q->nak_state = 1;
    }
    return;
  }
  /* duplicate */
  if (p->opcode == OP_READ_REQ) {
    rr_abort_from(s, e, p->psn);
    queue_rr(s, e, p, 1);
  } else if (p->flags & PF_ACKREQ)
    send_ack(s, e);
}

static void rx_ack(struct sim *s, uint32_t e, const struct pkt *p) {
  struct qp *q = &s->qps[e];
  uint8_t syn = p->syndrome;
  if ((syn & 0x60) == 0x00) { /* ACK */
    uint32_t lim = psn_add(p->psn, 1);
    if (psn_lt(q->ackd, lim) && psn_le(lim, q->snd_max))
      q->ackd = lim;
    advance(s, e);
  } else if (syn == 0x60) { /* PSN sequence error */
    if (psn_lt(q->ackd, p->psn) && psn_le(p->psn, q->snd_max))
      q->ackd = p->psn;
    advance(s, e);
    if (psn_le(q->una, p->psn) && psn_lt(p->psn, q->snd_max))
      rewind_to(s, e, p->psn, CAUSE_NAK);
  } else if ((syn & 0x60) == 0x20) { /* RNR NAK */
    if (psn_lt(q->ackd, p->psn) && psn_le(p->psn, q->snd_max))
      q->ackd = p->psn;
    advance(s, e);
    if (!q->rnr_wait) {
      q->rnr_wait = 1;
      q->rnr_psn = p->psn;
      sim_schedule(s, s->now + s->c.rnr_ns, EV_RNR_DONE, e);
    }
  }
  arm_rto(s, e);
}

static void rx_rresp(struct sim *s, uint32_t e, const struct pkt *p) {
  struct qp *q = &s->qps[e];
  uint32_t mi;
  struct msg *m = NULL;
  for (mi = q->head; mi != NONE; mi = s->msgs[mi].next) {
    m = &s->msgs[mi];
    if (m->kind == MK_READ && m->resp < m->npkts &&
        psn_lt(m->psn0, q->snd_max))
      break;
  }
  if (mi == NONE)
    return;
  uint32_t exp = psn_add(m->psn0, m->resp);
  if (p->psn == exp) {
    if (psn_lt(q->ackd, m->psn0))
      q->ackd = m->psn0;
    m->resp++;
    q->rd_gap = 0;
    if (m->resp == m->npkts && psn_lt(q->ackd, psn_add(m->psn0, m->npkts)))
      q->ackd = psn_add(m->psn0, m->npkts);
    advance(s, e);
    arm_rto(s, e);
  } else if (psn_lt(exp, p->psn) && psn_lt(p->psn, q->snd_max)) {
    if (q->rd_gap != (exp | 0x1000000u)) {
      if (psn_lt(q->ackd, m->psn0))
        q->ackd = m->psn0;
      advance(s, e);
      rewind_to(s, e, exp, CAUSE_IMPLIED);
      q->rd_gap = exp | 0x1000000u;
    }
  }
}

void rc_deliver(struct sim *s, uint32_t pi) {
  /* a copy: handlers may send packets, which can move the packet pool */
  struct pkt pk = s->pkts[pi];
  const struct pkt *p = &pk;
  if (p->what == W_CM) {
    cm_deliver(s, p);
    pkt_release(s, pi);
    return;
  }
  uint32_t e = qp_idx(p->conn, p->dir ^ 1u);
  struct qp *q = &s->qps[e];
  if (p->flags & PF_FECN)
    q->becn_pending = 1;
  switch (p->opcode) {
  case OP_ACK:
    rx_ack(s, e, p);
    break;
  case OP_CNP:
    break;
  case OP_READ_RESP_FIRST:
  case OP_READ_RESP_MIDDLE:
  case OP_READ_RESP_LAST:
  case OP_READ_RESP_ONLY:
    rx_rresp(s, e, p);
    break;
  default:
    rx_req(s, e, p);
    break;
  }
  /* congestion notification back to the sender's QP */
  if (p->what == W_DATA && p->ce != 0xff) {
    if (!q->last_cnp || s->now - q->last_cnp >= s->c.cnp_interval) {
      q->last_cnp = s->now ? s->now : 1;
      rc_send_ctrl(s, e, W_CNP, OP_CNP, 0, 0, 0, 0);
    }
  }
  pkt_release(s, pi);
}

/* ---------------------------------------------------------------- timers */

void rc_rto(struct sim *s, uint32_t e) {
  struct qp *q = &s->qps[e];
  q->rto_armed = 0;
  if (!outstanding(q))
    return;
  if (q->rnr_wait) {
    q->progress = s->now;
    arm_rto(s, e);
    return;
  }
  if (s->now >= q->progress + (s->c.rto << q->rto_shift)) {
    q->progress = s->now;
    if (q->rto_shift < 6)
      q->rto_shift++;
    rewind_to(s, e, q->una, CAUSE_TIMEOUT);
  }
  arm_rto(s, e);
}

void rc_ackt(struct sim *s, uint32_t e) {
  struct qp *q = &s->qps[e];
  q->ackt_armed = 0;
  if (q->ack_cnt)
    send_ack(s, e);
}

void rc_rnr_done(struct sim *s, uint32_t e) {
  struct qp *q = &s->qps[e];
  uint32_t psn = q->rnr_psn;
  q->rnr_wait = 0;
  q->progress = s->now;
  if (psn_le(q->una, psn) && psn_lt(psn, q->snd_max))
    rewind_to(s, e, psn, CAUSE_RNR);
  else
    rewind_to(s, e, q->una, CAUSE_RNR);
  arm_rto(s, e);
}

void rc_rr_ready(struct sim *s, uint32_t e) { nic_add(s, e); }

void rc_conn_ready(struct sim *s, uint32_t conn) {
  for (unsigned d = 0; d < 2; d++)
    if (s->qps[qp_idx(conn, d)].ready)
      nic_add(s, qp_idx(conn, d));
}
