/* model_cm.c - RDMA CM connection establishment on QP1
 *
 * ConnectRequest (host -> peer), ConnectReply, ReadyToUse as UD SEND ONLY
 * (opcode 0x64) to QP1 with DETH Q_Key 0x80010000, source QP 1; MAD class
 * 0x07 (CM) version 2, method Send.  The service ID is an IP-CM one
 * (0x00000000010600000 | port), the primary path GIDs are the endpoint IP
 * addresses (IPv4-mapped for IPv4), and the REQ private data carries the
 * IP-CM header followed, for NVMe/RDMA queues, by the NVMe-RDMA CM request
 * (recfmt, qid, hrqsize, hsqsize); the REP carries recfmt and crqsize.
 * Byte offsets follow IBTA vol. 1 chapter 12 and annex A11; tshark relies on
 * the REQ private data at MAD data offset 140 (its NVMe-RDMA dissector reads
 * the queue id there, and decodes a queue only after its CM REQ and REP).
 */
#include <string.h>

#include "sim.h"

static void send_mad(struct sim *s, uint32_t conn, unsigned dir,
                     unsigned attr) {
  const struct conn *cn = &s->conns[conn];
  uint32_t pi = pkt_alloc(s);
  struct pkt *p = &s->pkts[pi];
  struct node *n = &s->nodes[dir ? cn->b : cn->a];
  p->conn = conn;
  p->dir = (uint8_t)dir;
  p->what = W_CM;
  p->cm = (uint8_t)attr;
  p->opcode = OP_UD_SEND_ONLY;
  p->psn = n->qp1_psn;
  n->qp1_psn = psn_add(n->qp1_psn, 1);
  p->len = 256;
  p->flags = PF_ACKREQ | PF_FIRST | PF_LAST;
  p->t_send = s->now;
  net_send(s, pi);
}

void cm_start(struct sim *s, uint32_t conn, uint64_t at) {
  s->conns[conn].cm_step = 0;
  sim_schedule(s, at, s->conns[conn].cm ? EV_CM_STEP : EV_CONN_UP, conn);
}

static void conn_side_up(struct sim *s, uint32_t conn, unsigned side) {
  struct conn *cn = &s->conns[conn];
  s->qps[qp_idx(conn, side)].ready = 1;
  if (side == 0) {
    cn->up = 1;
    if (cn->kind == CK_GPU)
      gpu_conn_up(s, conn);
    else
      nvme_conn_up(s, conn);
  }
  rc_conn_ready(s, conn);
}

/* EV_CM_STEP: 0 send REQ, 1 send REP, 2 send RTU; EV_CONN_UP uses side 0 and 1
 * at once */
void cm_step(struct sim *s, uint32_t conn) {
  struct conn *cn = &s->conns[conn];
  if (!cn->cm) {
    conn_side_up(s, conn, 1);
    conn_side_up(s, conn, 0);
    return;
  }
  switch (cn->cm_step) {
  case 0:
    send_mad(s, conn, 0, CM_REQ);
    break;
  case 1:
    send_mad(s, conn, 1, CM_REP);
    break;
  case 2:
    send_mad(s, conn, 0, CM_RTU);
    conn_side_up(s, conn, 0);
    break;
  }
}

void cm_deliver(struct sim *s, const struct pkt *p) {
  struct conn *cn = &s->conns[p->conn];
  switch (p->cm) {
  case CM_REQ:
    cn->cm_step = 1;
    sim_schedule(s, s->now + s->c.cm_delay, EV_CM_STEP, p->conn);
    break;
  case CM_REP:
    cn->cm_step = 2;
    sim_schedule(s, s->now + s->c.cm_delay, EV_CM_STEP, p->conn);
    break;
  case CM_RTU:
    conn_side_up(s, p->conn, 1);
    break;
  }
}

static uint8_t mtu_code(uint32_t pmtu) {
  switch (pmtu) {
  case 256:
    return 1;
  case 512:
    return 2;
  case 1024:
    return 3;
  case 2048:
    return 4;
  default:
    return 5;
  }
}

static void gid(const struct sim *s, uint32_t node, uint8_t *out) {
  memcpy(out, s->nodes[node].ip, 16); /* IPv4-mapped already for IPv4 */
}

/* 256-byte MAD of a CM packet */
void cm_mad(const struct sim *s, const struct pkt *p, uint8_t *mad) {
  const struct conn *cn = &s->conns[p->conn];
  const struct qp *qa = &s->qps[qp_idx(p->conn, 0)],
                  *qb = &s->qps[qp_idx(p->conn, 1)];
  memset(mad, 0, 256);
  mad[0] = 1;    /* base version */
  mad[1] = 0x07; /* CM */
  mad[2] = 2;    /* class version */
  mad[3] = 0x03; /* Send */
  put64be(mad + 8, cn->tid);
  uint8_t *d = mad + 24;
  uint64_t sid = 0x0000000001060000ull | cn->svc_port;
  int nvme = cn->kind != CK_GPU;
  switch (p->cm) {
  case CM_REQ: {
    put16be(mad + 16, 0x0010);
    put32be(d + 0, cn->comm[0]);
    put64be(d + 8, sid);
    put64be(d + 16, 0x0200000000000000ull | ((uint64_t)cn->a << 8) |
                        0x01); /* CA GUID */
    put24be(d + 32, qa->qpn);
    d[35] = 16;        /* responder resources */
    d[39] = 16;        /* initiator depth */
    d[43] = 0x14 << 3; /* remote CM response timeout, RC, no e2e fc */
    put24be(d + 44, cn->ipsn[0]);
    d[47] = (0x14 << 3) | 7; /* local CM response timeout, retry count 7 */
    put16be(d + 48, 0xffff);
    d[50] =
        (uint8_t)(mtu_code(s->c.pmtu) << 4 | 7); /* path MTU, RNR retry 7 */
    d[51] = 0xf0;                                /* max CM retries 15 */
    put16be(d + 52, 0xffff);
    put16be(d + 54, 0xffff);
    gid(s, cn->a, d + 56);
    gid(s, cn->b, d + 72);
    put32be(d + 88,
            (uint32_t)((p->conn * 2654435761u) & 0xfffffu) << 12 | 0x20);
    d[92] = 26 << 2; /* traffic class */
    d[93] = 64;      /* hop limit */
    d[95] = 0x13 << 3;
    /* private data @140: IP-CM header (36 bytes) */
    uint8_t *pd = d + 140;
    pd[0] = 0x00;
    pd[1] = s->c.ipv6 ? 0x60 : 0x40;
    put16be(pd + 2, cn->sport[0]);
    if (s->c.ipv6) {
      memcpy(pd + 4, s->nodes[cn->a].ip, 16);
      memcpy(pd + 20, s->nodes[cn->b].ip, 16);
    } else {
      memcpy(pd + 4 + 12, s->nodes[cn->a].ip + 12, 4);
      memcpy(pd + 20 + 12, s->nodes[cn->b].ip + 12, 4);
    }
    if (nvme) { /* NVMe-RDMA CM request, little-endian */
      uint8_t *nv = pd + 36;
      put16le(nv + 0, 0); /* recfmt */
      put16le(nv + 2, cn->qid);
      put16le(nv + 4, cn->qsize);      /* hrqsize */
      put16le(nv + 6, cn->qsize - 1u); /* hsqsize (0's based) */
    }
    break;
  }
  case CM_REP: {
    put16be(mad + 16, 0x0013);
    put32be(d + 0, cn->comm[1]);
    put32be(d + 4, cn->comm[0]);
    put24be(d + 12, qb->qpn);
    put24be(d + 20, cn->ipsn[1]);
    d[24] = 16;
    d[25] = 16;
    d[26] = 0x0f << 3; /* target ACK delay */
    d[27] = 7 << 5;    /* RNR retry count */
    put64be(d + 28, 0x0200000000000000ull | ((uint64_t)cn->b << 8) | 0x01);
    if (nvme) {
      uint8_t *nv = d + 36;
      put16le(nv + 0, 0);
      put16le(nv + 2, cn->qsize); /* crqsize */
    }
    break;
  }
  case CM_RTU:
    put16be(mad + 16, 0x0014);
    put32be(d + 0, cn->comm[0]);
    put32be(d + 4, cn->comm[1]);
    break;
  }
}
