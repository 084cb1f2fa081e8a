/* model_net.c - fabric topology, links, observation points, loss and ECN
 * placement
 *
 * Endpoints (hosts, then storage targets) hang off leaf switches; all leaves
 * are joined by one spine.  A packet's path is endpoint, leaf, [spine, leaf],
 * endpoint.  Each directed link has a propagation delay, a per-packet jitter
 * and a serialisation time; it is FIFO (no packet overtakes another on one
 * link), so a flow is never reordered.  An observation point sits on a switch
 * port and timestamps packets when they arrive at that switch (both
 * directions of the port).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

const char *obs_kind_name(char kind) {
  switch (kind) {
  case 'h':
    return "compute";
  case 't':
    return "storage";
  default:
    return "spine";
  }
}

static void set_ip(struct sim *s, struct node *n, unsigned net, uint32_t idx) {
  memset(n->ip, 0, 16);
  if (s->c.ipv6) {
    /* fd00:0:0:NET::IDX */
    n->ip[0] = 0xfd;
    n->ip[7] = (uint8_t)net;
    n->ip[12] = (uint8_t)(idx >> 24);
    n->ip[13] = (uint8_t)(idx >> 16);
    n->ip[14] = (uint8_t)(idx >> 8);
    n->ip[15] = (uint8_t)idx;
  } else {
    /* IPv4-mapped ::ffff:10.NET.x.y */
    n->ip[10] = 0xff;
    n->ip[11] = 0xff;
    n->ip[12] = 10;
    n->ip[13] = (uint8_t)net;
    n->ip[14] = (uint8_t)(idx >> 8);
    n->ip[15] = (uint8_t)idx;
  }
}

int net_build(struct sim *s) {
  struct cfg *c = &s->c;
  uint32_t hl = (c->hosts + c->per_leaf - 1) / c->per_leaf;
  uint32_t tl = (c->targets + c->per_leaf - 1) / c->per_leaf;
  s->nend = c->hosts + c->targets;
  s->nleaf = hl + tl;
  s->spine = s->nend + s->nleaf;
  s->nnodes = s->spine + 1;
  s->nodes = calloc(s->nnodes, sizeof *s->nodes);
  s->nlinks_tot = 2 * s->nend + 2 * s->nleaf;
  s->links = calloc(s->nlinks_tot, sizeof *s->links);
  if (!s->nodes || !s->links)
    return -1;
  for (uint32_t i = 0; i < s->nnodes; i++) {
    struct node *n = &s->nodes[i];
    n->nic_head = n->nic_tail = NONE;
    n->mac[0] = 0x02;
    if (i < c->hosts) {
      n->leaf = i / c->per_leaf;
      set_ip(s, n, 1, i + 1);
      n->mac[1] = 0x10;
    } else if (i < s->nend) {
      n->leaf = hl + (i - c->hosts) / c->per_leaf;
      set_ip(s, n, 2, i - c->hosts + 1);
      n->mac[1] = 0x20;
    } else {
      n->leaf = NONE;
      n->mac[1] = 0x5c;
    }
    n->mac[2] = (uint8_t)(i >> 24);
    n->mac[3] = (uint8_t)(i >> 16);
    n->mac[4] = (uint8_t)(i >> 8);
    n->mac[5] = (uint8_t)i;
    n->qp1_psn = (uint32_t)rng_below(&s->rng, 1u << 24);
    n->next_qpn = 0x100 + (uint32_t)rng_below(&s->rng, 0x7fff00);
  }
  for (uint32_t e = 0; e < s->nend; e++)
    for (unsigned d = 0; d < 2; d++) {
      s->links[2 * e + d].prop = c->d_host;
      s->links[2 * e + d].gbps = c->gbps;
    }
  /* leaf-spine links are non-blocking: as fast as all the leaf's host ports */
  for (uint32_t l = 0; l < s->nleaf; l++)
    for (unsigned d = 0; d < 2; d++) {
      s->links[2 * s->nend + 2 * l + d].prop = c->d_spine;
      s->links[2 * s->nend + 2 * l + d].gbps = c->gbps * c->per_leaf;
    }
  return 0;
}

uint32_t net_path_nodes(const struct sim *s, uint32_t src, uint32_t dst,
                        uint32_t *nodes) {
  uint32_t ls = s->nodes[src].leaf, ld = s->nodes[dst].leaf;
  if (ls == ld) {
    nodes[0] = src;
    nodes[1] = s->nend + ls;
    nodes[2] = dst;
    return 3;
  }
  nodes[0] = src;
  nodes[1] = s->nend + ls;
  nodes[2] = s->spine;
  nodes[3] = s->nend + ld;
  nodes[4] = dst;
  return 5;
}

/* directed link between consecutive path nodes */
static uint32_t link_id(const struct sim *s, uint32_t from, uint32_t to) {
  if (from < s->nend)
    return 2 * from; /* endpoint uplink */
  if (to < s->nend)
    return 2 * to + 1; /* endpoint downlink */
  if (to == s->spine)
    return 2 * s->nend + 2 * (from - s->nend); /* leaf uplink */
  return 2 * s->nend + 2 * (to - s->nend) + 1; /* leaf downlink */
}

static void node_name(const struct sim *s, uint32_t n, char *buf, size_t len) {
  if (n < s->c.hosts)
    snprintf(buf, len, "host%u", n);
  else if (n < s->nend)
    snprintf(buf, len, "target%u", n - s->c.hosts);
  else if (n == s->spine)
    snprintf(buf, len, "spine");
  else
    snprintf(buf, len, "leaf%u", n - s->nend);
}

void net_link_name(const struct sim *s, uint32_t conn, uint8_t dir, unsigned k,
                   char *buf, size_t len) {
  const struct conn *cn = &s->conns[conn];
  uint32_t nodes[5];
  net_path_nodes(s, dir ? cn->b : cn->a, dir ? cn->a : cn->b, nodes);
  char a[24], b[24];
  node_name(s, nodes[k], a, sizeof a);
  node_name(s, nodes[k + 1], b, sizeof b);
  snprintf(buf, len, "%s>%s", a, b);
}

/* Which observation points lie on the a->b path of a connection, and where. */
void net_conn_path(struct sim *s, struct conn *cn) {
  uint32_t nodes[5];
  uint32_t n = net_path_nodes(s, cn->a, cn->b, nodes);
  cn->nlinks = (uint8_t)(n - 1);
  cn->nobs = 0;
  for (uint32_t o = 0; o < s->c.nobs && cn->nobs < MAXLINKS; o++) {
    const struct obscfg *oc = &s->c.obs[o];
    int j = -1, before = 0;
    if (oc->kind == 'h' || oc->kind == 't') {
      uint32_t ep = oc->kind == 'h' ? oc->index : s->c.hosts + oc->index;
      if (nodes[0] == ep) {
        j = 1;
        before = 1;
      } else if (nodes[n - 1] == ep) {
        j = (int)n - 2;
        before = 0;
      }
    } else if (n == 5) {
      uint32_t leaf = s->nend + oc->index;
      if (nodes[1] == leaf) {
        j = 2;
        before = 1;
      } else if (nodes[3] == leaf) {
        j = 2;
        before = 0;
      }
    }
    if (j < 0)
      continue;
    cn->obs_id[cn->nobs] = (uint8_t)o;
    cn->obs_j[cn->nobs] = (uint8_t)(j | (before ? 0x80 : 0));
    cn->nobs++;
  }
}

uint64_t net_ser_ns(const struct sim *s, uint32_t frame_bytes) {
  /* preamble+SFD 8, FCS 4, inter-frame gap 12 */
  double bits = (double)(frame_bytes + 24) * 8.0;
  return (uint64_t)ceil(bits / s->c.gbps);
}

static int loss_eligible(const struct sim *s, const struct pkt *p) {
  if (p->what == W_CM)
    return 0;
  switch (s->c.loss_on) {
  case LOSSON_ALL:
    return 1;
  case LOSSON_DATA:
    return p->what == W_DATA || p->what == W_RREQ;
  case LOSSON_LAST:
    return (p->what == W_DATA || p->what == W_RREQ) && (p->flags & PF_LAST);
  case LOSSON_RSP:
    return p->nvme == NV_RSP;
  case LOSSON_CMD:
    return p->nvme == NV_CMD;
  case LOSSON_NVDATA:
    return p->nvme == NV_RDATA || p->nvme == NV_WDATA;
  }
  return 0;
}

void net_send(struct sim *s, uint32_t pi) {
  struct pkt *p = &s->pkts[pi];
  const struct conn *cn = &s->conns[p->conn];
  uint32_t src = p->dir ? cn->b : cn->a, dst = p->dir ? cn->a : cn->b;
  uint32_t nodes[5];
  uint32_t n = net_path_nodes(s, src, dst, nodes);
  uint32_t L = n - 1;
  uint32_t wire = rc_wire_len(s, p);
  double bits = (double)(wire + 24) * 8.0;
  uint64_t t = p->t_send;
  p->nlinks = (uint8_t)L;
  for (uint32_t k = 0; k < L; k++) {
    struct link *l = &s->links[link_id(s, nodes[k], nodes[k + 1])];
    uint64_t ser = (uint64_t)ceil(bits / l->gbps);
    uint64_t enter = t > l->free ? t : l->free;
    l->free = enter + ser;
    uint64_t ex = enter + ser + l->prop;
    if (s->c.jitter)
      ex += rng_below(&s->rng, s->c.jitter + 1);
    if (ex <= l->last_exit)
      ex = l->last_exit + 1;
    l->last_exit = ex;
    p->hop_t[k] = ex;
    t = ex;
  }
  s->sent_pkts++;
  if (p->what == W_DATA)
    s->data_pkts++;
  /* loss */
  p->drop = 0xff;
  if (s->c.loss > 0 && loss_eligible(s, p) && rng_chance(&s->rng, s->c.loss)) {
    unsigned jmin = 99, jmax = 0;
    for (unsigned k = 0; k < cn->nobs; k++) {
      unsigned j = obs_pos(cn, p->dir, k, NULL);
      if (j < jmin)
        jmin = j;
      if (j > jmax)
        jmax = j;
    }
    unsigned lo = 0, hi = L - 1;
    if (cn->nobs) {
      switch (s->c.loss_where) {
      case LOSS_BEFORE:
        hi = jmin - 1;
        break;
      case LOSS_AFTER:
        lo = jmax;
        break;
      case LOSS_BETWEEN:
        if (jmax > jmin) {
          lo = jmin;
          hi = jmax - 1;
        }
        break;
      default:
        break;
      }
    }
    p->drop = (uint8_t)(lo + rng_below(&s->rng, hi - lo + 1));
  }
  /* ECN CE marking at a switch egress (links 1..L-1) */
  p->ce = 0xff;
  if (s->c.ecn > 0 && p->what == W_DATA && rng_chance(&s->rng, s->c.ecn)) {
    p->ce = (uint8_t)(1 + rng_below(&s->rng, L - 1));
    if (s->c.fecn)
      p->flags |=
          PF_FECN; /* set by the marking switch, seen downstream of it */
  }
  p->refs = 0;
  for (unsigned k = 0; k < cn->nobs; k++) {
    unsigned j = obs_pos(cn, p->dir, k, NULL);
    if (p->drop != 0xff && j > p->drop)
      continue;
    p->refs++;
    sim_schedule(s, p->hop_t[j - 1], EV_OBS0 + k, pi);
  }
  if (p->drop == 0xff) {
    p->refs++;
    sim_schedule(s, p->hop_t[L - 1], EV_DELIVER, pi);
  } else {
    s->lost_pkts++;
    truth_loss(s, p);
  }
  if (p->refs == 0) {
    p->refs = 1;
    pkt_release(s, pi);
  }
}
