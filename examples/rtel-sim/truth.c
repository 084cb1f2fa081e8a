/* truth.c - observation points and ground truth
 *
 * At each observation event the packet is encoded as that point sees it and
 * appended to the point's pcap; the ground truth (JSON Lines, one object per
 * line with a "type" member) gets the packet record, and the per-flow,
 * per-message and per-I/O accumulators are updated from what that point saw.
 * Record types: meta, conn, pkt, loss, retx_start, msg, io, io_model, flow,
 * summary (see rtel-sim(1)).
 */
#include <stdio.h>
#include <string.h>

#include "sim.h"

static const char *what_name[] = {"data",    "rreq", "ack", "nak",
                                  "rnr_nak", "cnp",  "cm"};
static const char *cause_name[] = {"none", "nak", "timeout", "rnr",
                                   "implied_nak"};
static const char *nvme_name[] = {"none",  "cmd",  "rsp",
                                  "rdata", "wreq", "wdata"};
static const char *mk_name[] = {"write",    "write_imm", "send",
                                "send_imm", "send_inv",  "read"};
static const char *cm_name[] = {"none", "req", "rep", "rtu"};
static const char *iok_name[] = {"read",    "write",   "flush",   "connect",
                                 "propget", "propset", "identify"};
static const char *ck_name[] = {"gpu", "nvme_admin", "nvme_io"};

struct flowacc *flow_at(struct sim *s, uint32_t conn, unsigned dir,
                        unsigned k) {
  const struct conn *cn = &s->conns[conn];
  return &s->flows[cn->flow_base + dir * cn->nobs + k];
}

static inline uint64_t obs_ts(const struct sim *s, unsigned o, uint64_t t) {
  return (uint64_t)((int64_t)(t + EPOCH_NS) + s->c.obs[o].offset);
}

static int is_rresp(unsigned op) {
  return op >= OP_READ_RESP_FIRST && op <= OP_READ_RESP_ONLY;
}

/* ------------------------------------------------------------ flows */

static void emit_flow(struct sim *s, uint32_t conn, unsigned dir, unsigned k,
                      struct flowacc *f) {
  const struct conn *cn = &s->conns[conn];
  unsigned o = cn->obs_id[k];
  uint32_t src = dir ? cn->b : cn->a, dst = dir ? cn->a : cn->b;
  char *p = json_begin(&s->truth, 2048), *p0 = p;
  if (!p0)
    return;
  p = j_lit(p, "{\"type\":\"flow\"");
  p = j_key(p, "obs");
  p = j_str(p, s->c.obs[o].name);
  p = j_key(p, "src");
  p = j_ip(p, s->nodes[src].ip, s->c.ipv6);
  p = j_key(p, "dst");
  p = j_ip(p, s->nodes[dst].ip, s->c.ipv6);
  p = j_key(p, "dqpn");
  p = j_u64(p, s->qps[qp_idx(conn, dir ^ 1u)].qpn);
  p = j_key(p, "peer_qpn");
  p = j_u64(p, s->qps[qp_idx(conn, dir)].qpn);
  p = j_key(p, "conn");
  p = j_u64(p, conn);
  p = j_key(p, "dir");
  p = j_u64(p, dir);
  p = j_key(p, "seq");
  p = j_u64(p, f->seqno);
  p = j_key(p, "first_ts");
  p = f->pkts ? j_u64(p, f->first) : j_lit(p, "null");
  p = j_key(p, "last_ts");
  p = f->pkts ? j_u64(p, f->last) : j_lit(p, "null");
  uint64_t fct = f->pkts ? f->last - f->first : 0;
  p = j_key(p, "fct_ns");
  p = j_u64(p, fct);
  p = j_key(p, "pkts");
  p = j_u64(p, f->pkts);
  p = j_key(p, "bytes");
  p = j_u64(p, f->bytes);
  p = j_key(p, "retx_pkts");
  p = j_u64(p, f->retx_pkts);
  p = j_key(p, "retx_bytes");
  p = j_u64(p, f->retx_bytes);
  p = j_key(p, "fet_bps");
  p = fct ? j_dbl(p,
                  (double)(f->bytes - f->retx_bytes) * 8.0 * 1e9 / (double)fct)
          : j_lit(p, "null");
  p = j_key(p, "naks_seq");
  p = j_u64(p, f->naks_seq);
  p = j_key(p, "naks_rnr");
  p = j_u64(p, f->naks_rnr);
  p = j_key(p, "naks_fatal");
  p = j_u64(p, f->naks_fatal);
  p = j_key(p, "fnr");
  p = f->pkts ? j_dbl(p, (double)f->naks_seq / (double)f->pkts)
              : j_lit(p, "null");
  p = j_key(p, "acks");
  p = j_u64(p, f->acks);
  p = j_key(p, "cnps");
  p = j_u64(p, f->cnps);
  p = j_key(p, "ecn_ce");
  p = j_u64(p, f->ce);
  p = j_key(p, "fecn");
  p = j_u64(p, f->fecn);
  p = j_key(p, "becn");
  p = j_u64(p, f->becn);
  p = j_key(p, "psn_gaps");
  p = j_u64(p, f->gaps);
  p = j_key(p, "psn_gap_pkts");
  p = j_u64(p, f->gap_pkts);
  p = j_key(p, "loss_upstream");
  p = j_u64(p, f->loss_up);
  p = j_key(p, "loss_downstream");
  p = j_u64(p, f->loss_down);
  p = j_key(p, "sent_retx_pkts");
  p = j_u64(p, f->sent_retx);
  p = j_key(p, "retx_after_nak");
  p = j_u64(p, f->retx_cause[CAUSE_NAK]);
  p = j_key(p, "retx_after_timeout");
  p = j_u64(p, f->retx_cause[CAUSE_TIMEOUT]);
  p = j_key(p, "retx_after_rnr");
  p = j_u64(p, f->retx_cause[CAUSE_RNR]);
  p = j_key(p, "retx_implied_nak");
  p = j_u64(p, f->retx_cause[CAUSE_IMPLIED]);
  p = j_key(p, "dup_pkts");
  p = j_u64(p, f->dups);
  p = j_lit(p, "}");
  json_end(&s->truth, p);
}

static int flow_has_any(const struct flowacc *f) {
  return f->pkts || f->naks_seq || f->naks_rnr || f->naks_fatal || f->cnps ||
         f->loss_up || f->loss_down || f->becn;
}

/* ------------------------------------------------------------ packet */

static void pkt_record(struct sim *s, const struct pkt *p, unsigned o,
                       uint64_t frame, uint64_t ts, uint32_t orig,
                       uint32_t cap, uint32_t wire, int ce, int fecn,
                       int dup) {
  const struct conn *cn = &s->conns[p->conn];
  uint32_t src = p->dir ? cn->b : cn->a, dst = p->dir ? cn->a : cn->b;
  char *q = json_begin(&s->truth, 1024);
  if (!q)
    return;
  q = j_lit(q, "{\"type\":\"pkt\"");
  q = j_key(q, "obs");
  q = j_str(q, s->c.obs[o].name);
  q = j_key(q, "frame");
  q = j_u64(q, frame);
  q = j_key(q, "ts");
  q = j_u64(q, ts);
  q = j_key(q, "conn");
  q = j_u64(q, p->conn);
  q = j_key(q, "dir");
  q = j_u64(q, p->dir);
  q = j_key(q, "src");
  q = j_ip(q, s->nodes[src].ip, s->c.ipv6);
  q = j_key(q, "dst");
  q = j_ip(q, s->nodes[dst].ip, s->c.ipv6);
  q = j_key(q, "dqpn");
  q = j_u64(q, p->what == W_CM ? 1 : s->qps[qp_idx(p->conn, p->dir ^ 1u)].qpn);
  q = j_key(q, "op");
  q = j_u64(q, p->opcode);
  q = j_key(q, "psn");
  q = j_u64(q, p->psn);
  q = j_key(q, "len");
  q = j_u64(q, p->opcode == OP_CNP ? 0 : p->len);
  q = j_key(q, "wire");
  q = j_u64(q, wire);
  q = j_key(q, "orig");
  q = j_u64(q, orig);
  q = j_key(q, "cap");
  q = j_u64(q, cap);
  q = j_key(q, "ce");
  q = j_u64(q, (unsigned)ce);
  q = j_key(q, "fecn");
  q = j_u64(q, (unsigned)fecn);
  q = j_key(q, "becn");
  q = j_u64(q, (p->flags & PF_BECN) ? 1 : 0);
  q = j_key(q, "what");
  q = j_str(q, what_name[p->what]);
  q = j_key(q, "why");
  q = j_str(q, p->why == WHY_RETX ? "retx" : "new");
  if (p->why == WHY_RETX) {
    q = j_key(q, "cause");
    q = j_str(q, cause_name[p->cause]);
  }
  if (p->what == W_ACK || p->what == W_NAK || p->what == W_RNR ||
      is_rresp(p->opcode)) {
    q = j_key(q, "syndrome");
    q = j_u64(q, p->syndrome);
  }
  if (p->msg != NONE) {
    q = j_key(q, "msg");
    q = j_u64(q, s->msgs[p->msg].id);
  }
  if (p->io != NONE) {
    q = j_key(q, "io");
    q = j_u64(q, s->ios[p->io].id);
  }
  if (p->nvme) {
    q = j_key(q, "nvme");
    q = j_str(q, nvme_name[p->nvme]);
  }
  if (p->what == W_CM) {
    q = j_key(q, "cm");
    q = j_str(q, cm_name[p->cm]);
  }
  if (dup) {
    q = j_key(q, "dup");
    q = j_lit(q, "true");
  }
  q = j_lit(q, "}");
  json_end(&s->truth, q);
}

static void account(struct sim *s, const struct pkt *p, unsigned k, unsigned o,
                    uint64_t ts, int ce, int fecn, int dup) {
  if (p->what == W_CM)
    return;
  if (p->what == W_DATA) {
    struct flowacc *f = flow_at(s, p->conn, p->dir, k);
    if (s->c.flow_idle && f->open && ts - f->last > s->c.flow_idle) {
      emit_flow(s, p->conn, p->dir, k, f);
      uint32_t seq = f->seqno + 1;
      memset(f, 0, sizeof *f);
      f->seqno = seq;
    }
    if (!f->open) {
      f->open = 1;
      f->first = ts;
    }
    f->last = ts;
    f->pkts++;
    f->bytes += p->len;
    int rsp = is_rresp(p->opcode);
    uint32_t *hi = rsp ? &f->hi_rsp : &f->hi_req;
    uint8_t *have = rsp ? &f->have_rsp : &f->have_req;
    if (*have && psn_le(p->psn, *hi)) {
      f->retx_pkts++;
      f->retx_bytes += p->len;
    } else {
      if (*have && p->psn != psn_add(*hi, 1)) {
        f->gaps++;
        f->gap_pkts += psn_diff(p->psn, psn_add(*hi, 1));
      }
      *hi = p->psn;
      *have = 1;
    }
    if (ce)
      f->ce++;
    if (fecn)
      f->fecn++;
    if (p->why == WHY_RETX) {
      f->sent_retx++;
      f->retx_cause[p->cause]++;
    }
    if (dup)
      f->dups++;
    if (p->msg != NONE) {
      struct msg_obs *mo = &s->mobs[(size_t)p->msg * s->c.nobs + o];
      if (!mo->first)
        mo->first = ts;
      mo->last = ts;
      mo->pkts++;
    }
  } else if (p->what != W_RREQ) {
    struct flowacc *f = flow_at(s, p->conn, p->dir ^ 1u, k);
    switch (p->what) {
    case W_ACK:
      f->acks++;
      break;
    case W_NAK:
      if (p->syndrome == 0x60)
        f->naks_seq++;
      else
        f->naks_fatal++;
      break;
    case W_RNR:
      f->naks_rnr++;
      break;
    case W_CNP:
      f->cnps++;
      break;
    }
    if ((p->flags & PF_BECN) && p->what != W_CNP)
      f->becn++;
  }
  if (p->io != NONE) {
    struct io_obs *e = &s->iobs[(size_t)p->io * s->c.nobs + o];
    switch (p->nvme) {
    case NV_CMD:
      if (p->flags & PF_FIRST) {
        if (!e->c)
          e->c = ts;
        e->ccopies++;
      }
      break;
    case NV_RSP:
      if (p->flags & PF_FIRST) {
        if (!e->r)
          e->r = ts;
        e->rcopies++;
      }
      break;
    case NV_RDATA:
      if (!e->d1)
        e->d1 = ts;
      if (ts > e->dn)
        e->dn = ts;
      break;
    case NV_WREQ:
      if (!e->q)
        e->q = ts;
      break;
    case NV_WDATA:
      if (!e->p1)
        e->p1 = ts;
      if (ts > e->pn)
        e->pn = ts;
      break;
    }
  }
}

void truth_obs(struct sim *s, uint32_t pi, unsigned k) {
  const struct pkt *p = &s->pkts[pi];
  const struct conn *cn = &s->conns[p->conn];
  unsigned o = cn->obs_id[k];
  if (s->now < s->c.capture_start)
    return;
  uint32_t orig, wire;
  size_t cap = encode_pkt(s, p, k, s->fbuf, &orig, &wire);
  uint64_t ts = obs_ts(s, o, s->now);
  unsigned link;
  obs_pos(cn, p->dir, k, &link);
  int ce = p->ce != 0xff && link >= p->ce;
  int fecn = ce && s->c.fecn;
  int copies = 1 + (s->c.dup_rate > 0 && rng_chance(&s->rng, s->c.dup_rate));
  for (int c = 0; c < copies; c++) {
    pcap_record(&s->pcap[o], ts, s->fbuf, (uint32_t)cap, orig);
    uint64_t frame = ++s->frames[o];
    s->frames_total++;
    if (c)
      s->dup_frames++;
    account(s, p, k, o, ts, ce, fecn, c);
    if (s->c.pkt_truth)
      pkt_record(s, p, o, frame, ts, orig, (uint32_t)cap, wire, ce, fecn, c);
  }
}

/* ------------------------------------------------------------ loss / rewind
 */

void truth_loss(struct sim *s, const struct pkt *p) {
  const struct conn *cn = &s->conns[p->conn];
  if (p->msg != NONE)
    s->msgs[p->msg].losses++;
  char *q = json_begin(&s->truth, 1024);
  if (!q)
    return;
  char lname[64];
  net_link_name(s, p->conn, p->dir, p->drop, lname, sizeof lname);
  q = j_lit(q, "{\"type\":\"loss\"");
  q = j_key(q, "t");
  q = j_u64(q, p->t_send);
  q = j_key(q, "conn");
  q = j_u64(q, p->conn);
  q = j_key(q, "dir");
  q = j_u64(q, p->dir);
  q = j_key(q, "psn");
  q = j_u64(q, p->psn);
  q = j_key(q, "op");
  q = j_u64(q, p->opcode);
  q = j_key(q, "what");
  q = j_str(q, what_name[p->what]);
  q = j_key(q, "why");
  q = j_str(q, p->why == WHY_RETX ? "retx" : "new");
  if (p->msg != NONE) {
    q = j_key(q, "msg");
    q = j_u64(q, s->msgs[p->msg].id);
  }
  if (p->io != NONE) {
    q = j_key(q, "io");
    q = j_u64(q, s->ios[p->io].id);
  }
  if (p->nvme) {
    q = j_key(q, "nvme");
    q = j_str(q, nvme_name[p->nvme]);
  }
  q = j_key(q, "link");
  q = j_str(q, lname);
  q = j_key(q, "link_idx");
  q = j_u64(q, p->drop);
  /* relative to each observation point on the path */
  for (int pass = 0; pass < 2; pass++) {
    q = j_key(q, pass ? "missed_by" : "seen_by");
    *q++ = '[';
    int first = 1;
    for (unsigned k = 0; k < cn->nobs; k++) {
      unsigned j = obs_pos(cn, p->dir, k, NULL);
      uint64_t t_obs = p->hop_t[j - 1];
      if (t_obs < s->c.capture_start)
        continue;
      int seen = j <= p->drop;
      if (seen == pass)
        continue;
      if (!first)
        *q++ = ',';
      first = 0;
      q = j_str(q, s->c.obs[cn->obs_id[k]].name);
      if (p->what == W_DATA && pass == 0) {
        struct flowacc *f = flow_at(s, p->conn, p->dir, k);
        f->loss_down++;
      } else if (p->what == W_DATA) {
        struct flowacc *f = flow_at(s, p->conn, p->dir, k);
        f->loss_up++;
      }
    }
    *q++ = ']';
  }
  q = j_lit(q, "}");
  json_end(&s->truth, q);
}

void truth_rewind(struct sim *s, uint32_t conn, unsigned dir, uint32_t psn,
                  unsigned cause) {
  char *q = json_begin(&s->truth, 256);
  if (!q)
    return;
  q = j_lit(q, "{\"type\":\"retx_start\"");
  q = j_key(q, "t");
  q = j_u64(q, s->now);
  q = j_key(q, "conn");
  q = j_u64(q, conn);
  q = j_key(q, "dir");
  q = j_u64(q, dir);
  q = j_key(q, "psn");
  q = j_u64(q, psn);
  q = j_key(q, "cause");
  q = j_str(q, cause_name[cause]);
  q = j_lit(q, "}");
  json_end(&s->truth, q);
}

/* ------------------------------------------------------------ messages */

void truth_msg(struct sim *s, uint32_t mi) {
  if (!s->c.msg_truth)
    return;
  const struct msg *m = &s->msgs[mi];
  const struct conn *cn = &s->conns[m->conn];
  uint32_t src = m->dir ? cn->b : cn->a, dst = m->dir ? cn->a : cn->b;
  char *q = json_begin(&s->truth, 2048);
  if (!q)
    return;
  q = j_lit(q, "{\"type\":\"msg\"");
  q = j_key(q, "msg");
  q = j_u64(q, m->id);
  q = j_key(q, "conn");
  q = j_u64(q, m->conn);
  q = j_key(q, "dir");
  q = j_u64(q, m->dir);
  q = j_key(q, "src");
  q = j_ip(q, s->nodes[src].ip, s->c.ipv6);
  q = j_key(q, "dst");
  q = j_ip(q, s->nodes[dst].ip, s->c.ipv6);
  q = j_key(q, "dqpn");
  q = j_u64(q, s->qps[qp_idx(m->conn, m->dir ^ 1u)].qpn);
  q = j_key(q, "op");
  q = j_str(q, mk_name[m->kind]);
  q = j_key(q, "bytes");
  q = j_u64(q, m->len);
  q = j_key(q, "psn0");
  q = j_u64(q, m->psn0);
  q = j_key(q, "npkts");
  q = j_u64(q, m->npkts);
  if (m->io != NONE) {
    q = j_key(q, "io");
    q = j_u64(q, s->ios[m->io].id);
    q = j_key(q, "nvme");
    q = j_str(q, nvme_name[m->nvme]);
  }
  q = j_key(q, "t_post");
  q = j_u64(q, m->t_post);
  q = j_key(q, "t_done");
  q = m->done ? j_u64(q, m->t_done) : j_lit(q, "null");
  uint32_t rt = m->retx[1] + m->retx[2] + m->retx[3] + m->retx[4];
  q = j_key(q, "retx_pkts");
  q = j_u64(q, rt);
  q = j_key(q, "retx_nak");
  q = j_u64(q, m->retx[CAUSE_NAK]);
  q = j_key(q, "retx_timeout");
  q = j_u64(q, m->retx[CAUSE_TIMEOUT]);
  q = j_key(q, "retx_rnr");
  q = j_u64(q, m->retx[CAUSE_RNR]);
  q = j_key(q, "retx_implied_nak");
  q = j_u64(q, m->retx[CAUSE_IMPLIED]);
  q = j_key(q, "losses");
  q = j_u64(q, m->losses);
  q = j_key(q, "obs");
  *q++ = '{';
  int first = 1;
  for (unsigned k = 0; k < cn->nobs; k++) {
    unsigned o = cn->obs_id[k];
    const struct msg_obs *mo = &s->mobs[(size_t)mi * s->c.nobs + o];
    if (!mo->pkts)
      continue;
    if (!first)
      *q++ = ',';
    first = 0;
    q = j_str(q, s->c.obs[o].name);
    q = j_lit(q, ":{\"first\":");
    q = j_u64(q, mo->first);
    q = j_lit(q, ",\"last\":");
    q = j_u64(q, mo->last);
    q = j_lit(q, ",\"pkts\":");
    q = j_u64(q, mo->pkts);
    *q++ = '}';
  }
  q = j_lit(q, "}}");
  json_end(&s->truth, q);
}

/* ------------------------------------------------------------ I/O */

static char *j_ts(char *q, const char *k, uint64_t v) {
  q = j_key(q, k);
  return v ? j_u64(q, v) : j_lit(q, "null");
}

static char *j_diff(char *q, const char *k, int ok, int64_t v) {
  q = j_key(q, k);
  return ok ? j_i64(q, v) : j_lit(q, "null");
}

void truth_io(struct sim *s, uint32_t ii) {
  const struct io *io = &s->ios[ii];
  const struct conn *cn = &s->conns[io->conn];
  const struct nvq *nq = &s->nvqs[io->tag];
  uint16_t st_raw = (uint16_t)(io->status << 1 | io->phase);
  for (unsigned k = 0; k < cn->nobs; k++) {
    unsigned o = cn->obs_id[k];
    const struct io_obs *e = &s->iobs[(size_t)ii * s->c.nobs + o];
    if (!e->c && !e->r)
      continue;
    char *q = json_begin(&s->truth, 2048);
    if (!q)
      return;
    q = j_lit(q, "{\"type\":\"io\"");
    q = j_key(q, "io");
    q = j_u64(q, io->id);
    q = j_key(q, "obs");
    q = j_str(q, s->c.obs[o].name);
    q = j_key(q, "host");
    q = j_ip(q, s->nodes[cn->a].ip, s->c.ipv6);
    q = j_key(q, "target");
    q = j_ip(q, s->nodes[cn->b].ip, s->c.ipv6);
    q = j_key(q, "host_qpn");
    q = j_u64(q, s->qps[qp_idx(io->conn, 0)].qpn);
    q = j_key(q, "target_qpn");
    q = j_u64(q, s->qps[qp_idx(io->conn, 1)].qpn);
    q = j_key(q, "conn");
    q = j_u64(q, io->conn);
    q = j_key(q, "qid");
    q = j_u64(q, nq->qid);
    q = j_key(q, "cid");
    q = j_u64(q, io->cid);
    q = j_key(q, "opc");
    q = j_u64(q, io->opc);
    if (io->opc == 0x7f) {
      q = j_key(q, "fctype");
      q = j_u64(q, io->fctype);
    }
    q = j_key(q, "kind");
    q = j_str(q, iok_name[io->kind]);
    q = j_key(q, "nsid");
    q = j_u64(q, io->nsid);
    q = j_key(q, "slba");
    q = j_u64(q, io->slba);
    q = j_key(q, "len");
    q = j_u64(q, io->len);
    q = j_key(q, "incapsule");
    q = j_lit(q, io->incapsule ? "true" : "false");
    q = j_key(q, "status");
    if (io->timed_out && !io->t_rsp_arrive)
      q = j_lit(q, "null");
    else
      q = j_u64(q, st_raw);
    q = j_key(q, "sct");
    q = j_u64(q, (io->status >> 8) & 7u);
    q = j_key(q, "sc");
    q = j_u64(q, io->status & 0xffu);
    q = j_key(q, "rec");
    q = j_str(q, e->c && e->r ? "complete" : e->c ? "timeout" : "orphan");
    q = j_ts(q, "C", e->c);
    q = j_ts(q, "D1", e->d1);
    q = j_ts(q, "Dn", e->dn);
    q = j_ts(q, "Q", e->q);
    q = j_ts(q, "P1", e->p1);
    q = j_ts(q, "Pn", e->pn);
    q = j_ts(q, "R", e->r);
    int both = e->c && e->r;
    int64_t C = (int64_t)e->c, R = (int64_t)e->r;
    q = j_diff(q, "iol", both, R - C);
    int dal_ok = 0, dpl_ok = 0, xf_ok = 0;
    int64_t dal = 0, dpl = 0, xf = 0;
    if (io->kind == IOK_READ || io->kind == IOK_IDENTIFY) {
      dal_ok = e->c && e->d1;
      dal = (int64_t)e->d1 - C;
      xf_ok = e->d1 != 0;
      xf = (int64_t)e->dn - (int64_t)e->d1;
    } else if (io->kind == IOK_WRITE && io->incapsule) {
      dal_ok = both;
      dal = R - C;
    } else if (io->kind == IOK_WRITE) {
      dal_ok = both && e->q && e->pn;
      dal = ((int64_t)e->q - C) + (R - (int64_t)e->pn);
      dpl_ok = e->q && e->p1;
      dpl = (int64_t)e->p1 - (int64_t)e->q;
      xf_ok = e->p1 != 0;
      xf = (int64_t)e->pn - (int64_t)e->p1;
    }
    q = j_diff(q, "dal", dal_ok, dal);
    q = j_diff(q, "dpl", dpl_ok, dpl);
    q = j_diff(q, "xfer", xf_ok, xf);
    q = j_key(q, "c_copies");
    q = j_u64(q, e->ccopies);
    q = j_key(q, "r_copies");
    q = j_u64(q, e->rcopies);
    q = j_lit(q, "}");
    json_end(&s->truth, q);
  }
  /* modelled truth (true time, ns) */
  char *q = json_begin(&s->truth, 2048);
  if (!q)
    return;
  q = j_lit(q, "{\"type\":\"io_model\"");
  q = j_key(q, "io");
  q = j_u64(q, io->id);
  q = j_key(q, "conn");
  q = j_u64(q, io->conn);
  q = j_key(q, "qid");
  q = j_u64(q, nq->qid);
  q = j_key(q, "cid");
  q = j_u64(q, io->cid);
  q = j_key(q, "kind");
  q = j_str(q, iok_name[io->kind]);
  q = j_key(q, "len");
  q = j_u64(q, io->len);
  q = j_key(q, "incapsule");
  q = j_lit(q, io->incapsule ? "true" : "false");
  q = j_key(q, "status");
  q = j_u64(q, io->status);
  q = j_key(q, "stalled");
  q = j_lit(q, io->stall ? "true" : "false");
  q = j_key(q, "timed_out");
  q = j_lit(q, io->timed_out ? "true" : "false");
  q = j_key(q, "cmd_retx");
  q = j_lit(q, io->cmd_retx ? "true" : "false");
  q = j_key(q, "rsp_retx");
  q = j_lit(q, io->rsp_retx ? "true" : "false");
  q = j_ts(q, "t_cmd_send", io->t_cmd_send);
  q = j_ts(q, "t_cmd_arrive", io->t_cmd_arrive);
  q = j_ts(q, "t_tgt_ready", io->t_tgt_ready);
  q = j_ts(q, "t_q_send", io->t_q_send);
  q = j_ts(q, "t_q_arrive", io->t_q_arrive);
  q = j_ts(q, "t_p1_send", io->t_p1_send);
  q = j_ts(q, "t_pn_arrive", io->t_pn_arrive);
  q = j_ts(q, "t_rsp_send", io->t_rsp_send);
  q = j_ts(q, "t_rsp_arrive", io->t_rsp_arrive);
  q = j_key(q, "host_prep_ns");
  q = j_u64(q, io->host_prep);
  q = j_key(q, "storage_ns");
  q = j_u64(q, io->storage);
  q = j_diff(q, "target_ns", io->t_rsp_send && io->t_cmd_arrive,
             (int64_t)io->t_rsp_send - (int64_t)io->t_cmd_arrive);
  q = j_diff(q, "cmd_tail_ns", io->t_cmd_arrive && io->t_cmd_arrive1,
             (int64_t)io->t_cmd_arrive - (int64_t)io->t_cmd_arrive1);
  for (int w = 0; w < 2; w++) {
    const uint32_t *l = w ? io->rsp_links : io->cmd_links;
    unsigned n = w ? io->rsp_nl : io->cmd_nl;
    q = j_key(q, w ? "rsp_links" : "cmd_links");
    *q++ = '[';
    for (unsigned i = 0; i < n; i++) {
      if (i)
        *q++ = ',';
      q = j_u64(q, l[i]);
    }
    *q++ = ']';
  }
  q = j_key(q, "obs_hops");
  *q++ = '{';
  for (unsigned k = 0; k < cn->nobs; k++) {
    if (k)
      *q++ = ',';
    q = j_str(q, s->c.obs[cn->obs_id[k]].name);
    *q++ = ':';
    *q++ = '[';
    q = j_u64(q, obs_pos(cn, 0, k, NULL));
    *q++ = ',';
    q = j_u64(q, obs_pos(cn, 1, k, NULL));
    *q++ = ']';
  }
  q = j_lit(q, "}}");
  json_end(&s->truth, q);
}

/* ------------------------------------------------------------ setup / end */

void truth_conn(struct sim *s, uint32_t conn) {
  const struct conn *cn = &s->conns[conn];
  const struct qp *qa = &s->qps[qp_idx(conn, 0)],
                  *qb = &s->qps[qp_idx(conn, 1)];
  char *q = json_begin(&s->truth, 1024);
  if (!q)
    return;
  q = j_lit(q, "{\"type\":\"conn\"");
  q = j_key(q, "conn");
  q = j_u64(q, conn);
  q = j_key(q, "kind");
  q = j_str(q, ck_name[cn->kind]);
  q = j_key(q, "a");
  q = j_ip(q, s->nodes[cn->a].ip, s->c.ipv6);
  q = j_key(q, "b");
  q = j_ip(q, s->nodes[cn->b].ip, s->c.ipv6);
  q = j_key(q, "a_node");
  q = j_u64(q, cn->a);
  q = j_key(q, "b_node");
  q = j_u64(q, cn->b);
  q = j_key(q, "a_qpn");
  q = j_u64(q, qa->qpn);
  q = j_key(q, "b_qpn");
  q = j_u64(q, qb->qpn);
  q = j_key(q, "a_psn0");
  q = j_u64(q, cn->ipsn[0]);
  q = j_key(q, "b_psn0");
  q = j_u64(q, cn->ipsn[1]);
  q = j_key(q, "a_sport");
  q = j_u64(q, cn->sport[0]);
  q = j_key(q, "b_sport");
  q = j_u64(q, cn->sport[1]);
  q = j_key(q, "service_port");
  q = j_u64(q, cn->svc_port);
  if (cn->kind != CK_GPU) {
    q = j_key(q, "qid");
    q = j_u64(q, cn->qid);
  }
  q = j_key(q, "cm");
  q = j_lit(q, cn->cm ? "true" : "false");
  q = j_key(q, "obs");
  *q++ = '[';
  for (unsigned k = 0; k < cn->nobs; k++) {
    if (k)
      *q++ = ',';
    q = j_str(q, s->c.obs[cn->obs_id[k]].name);
  }
  q = j_lit(q, "]}");
  json_end(&s->truth, q);
}

void truth_finish(struct sim *s) {
  for (uint32_t c = 0; c < s->nconn; c++) {
    const struct conn *cn = &s->conns[c];
    for (unsigned d = 0; d < 2; d++)
      for (unsigned k = 0; k < cn->nobs; k++) {
        struct flowacc *f = flow_at(s, c, d, k);
        if (flow_has_any(f))
          emit_flow(s, c, d, k, f);
      }
  }
  char *q = json_begin(&s->truth, 4096);
  if (!q)
    return;
  q = j_lit(q, "{\"type\":\"summary\"");
  q = j_key(q, "sim_end_ns");
  q = j_u64(q, s->now);
  q = j_key(q, "packets_sent");
  q = j_u64(q, s->sent_pkts);
  q = j_key(q, "data_packets_sent");
  q = j_u64(q, s->data_pkts);
  q = j_key(q, "packets_lost");
  q = j_u64(q, s->lost_pkts);
  q = j_key(q, "frames_written");
  q = j_u64(q, s->frames_total);
  q = j_key(q, "dup_frames");
  q = j_u64(q, s->dup_frames);
  q = j_key(q, "connections");
  q = j_u64(q, s->nconn);
  q = j_key(q, "msgs");
  q = j_u64(q, s->msg_seq);
  q = j_key(q, "msgs_done");
  q = j_u64(q, s->msgs_done);
  q = j_key(q, "ios_issued");
  q = j_u64(q, s->ios_issued);
  q = j_key(q, "ios_done");
  q = j_u64(q, s->ios_done);
  q = j_key(q, "frames");
  *q++ = '{';
  for (unsigned o = 0; o < s->c.nobs; o++) {
    if (o)
      *q++ = ',';
    q = j_str(q, s->c.obs[o].name);
    *q++ = ':';
    q = j_u64(q, s->frames[o]);
  }
  q = j_lit(q, "}}");
  json_end(&s->truth, q);
}
