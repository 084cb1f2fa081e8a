/* model_gpu.c - GPU-to-GPU RDMA traffic
 *
 * ring:  hosts 0..G-1 form a ring; host i has `qps` connections to host i+1.
 *        An all-reduce iteration is 2(G-1) steps; in each step every host
 *        sends one message of msg_size bytes on each of its connections, and
 *        a host starts step k+1 once it has received step k's messages from
 *        its predecessor (plus an optional compute gap).
 * pairs: `qps` connections spread over host pairs (all between hosts 0 and 1
 *        when G = 2); each keeps `outstanding` messages in flight until it has
 *        sent msgs_per_qp messages (closed loop).
 * Messages are RDMA WRITE by default; --rdma-op selects WRITE with immediate,
 * READ, SEND, SEND with immediate, or a mix.
 */
#include "sim.h"

static unsigned pick_kind(struct sim *s) {
  switch (s->c.rdma_op) {
  case RO_WRITE:
    return MK_WRITE;
  case RO_WRITE_IMM:
    return MK_WRITE_IMM;
  case RO_READ:
    return MK_READ;
  case RO_SEND:
    return MK_SEND;
  case RO_SEND_IMM:
    return MK_SEND_IMM;
  case RO_SEND_MIX:
    return rng_below(&s->rng, 2) ? MK_SEND_IMM : MK_SEND;
  default: {
    uint64_t r = rng_below(&s->rng, 100);
    if (r < 40)
      return MK_WRITE;
    if (r < 50)
      return MK_WRITE_IMM;
    if (r < 70)
      return MK_READ;
    if (r < 85)
      return MK_SEND;
    return MK_SEND_IMM;
  }
  }
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

static void post_one(struct sim *s, uint32_t conn, unsigned kind,
                     uint8_t tag) {
  struct conn *cn = &s->conns[conn];
  uint32_t len = s->c.msg_size;
  uint64_t va =
      cn->g_va + (uint64_t)(cn->g_posted % 64) * ((len + 4095u) & ~4095u);
  if (s->c.workload == WL_RING && kind == MK_READ)
    kind = MK_WRITE; /* a ring step pushes data to the successor */
  uint32_t mi = rc_post(s, conn, 0, kind, len, va, cn->g_rkey,
                        kind == MK_WRITE_IMM || kind == MK_SEND_IMM
                            ? 0x10000000u | cn->g_posted
                            : 0,
                        NONE, C_ZERO, NV_NONE);
  s->msgs[mi].app = tag;
  cn->g_posted++;
}

static uint32_t ring_steps(const struct sim *s) {
  return 2 * (s->c.gpu_hosts - 1) * s->c.iterations;
}

static void ring_try(struct sim *s, uint32_t host) {
  struct node *n = &s->nodes[host];
  if (n->gpu_wait || n->gpu_up < s->c.qps || n->gpu_posted >= ring_steps(s))
    return;
  if (n->gpu_recv < s->c.qps * n->gpu_posted)
    return;
  if (!budget_ok(s))
    return;
  n->gpu_wait = 1;
  sim_schedule(s, s->now + (n->gpu_posted ? s->c.gpu_gap : 0), EV_GPU, host);
}

void gpu_event(struct sim *s, uint32_t arg) {
  if (s->c.workload != WL_RING)
    return;
  struct node *n = &s->nodes[arg];
  n->gpu_wait = 0;
  if (!budget_ok(s))
    return;
  unsigned kind = pick_kind(s);
  for (uint32_t q = 0; q < s->c.qps; q++)
    post_one(s, arg * s->c.qps + q, kind, 0);
  n->gpu_posted++;
  ring_try(s, arg);
}

static void pairs_fill(struct sim *s, uint32_t conn) {
  struct conn *cn = &s->conns[conn];
  while (cn->g_posted - cn->g_done < s->c.outstanding &&
         cn->g_posted < s->c.msgs_per_qp && budget_ok(s))
    post_one(s, conn, pick_kind(s), 0);
}

void gpu_conn_up(struct sim *s, uint32_t conn) {
  if (s->c.workload == WL_RING) {
    uint32_t host = s->conns[conn].a;
    s->nodes[host].gpu_up++;
    ring_try(s, host);
  } else
    pairs_fill(s, conn);
}

void gpu_on_deliver(struct sim *s, const struct msg *m) {
  if (s->c.workload != WL_RING)
    return;
  uint32_t host = s->conns[m->conn].b;
  s->nodes[host].gpu_recv++;
  ring_try(s, host);
}

void gpu_on_complete(struct sim *s, const struct msg *m) {
  struct conn *cn = &s->conns[m->conn];
  if (cn->kind != CK_GPU)
    return;
  cn->g_done++;
  if (s->c.workload == WL_PAIRS)
    pairs_fill(s, m->conn);
}

/* create the GPU connections (conns [0, n) of the simulation) */
int gpu_setup(struct sim *s) {
  const struct cfg *c = &s->c;
  uint32_t G = c->gpu_hosts;
  uint32_t n = c->workload == WL_RING ? G * c->qps : c->qps;
  for (uint32_t i = 0; i < n; i++) {
    struct conn *cn = &s->conns[s->nconn];
    if (c->workload == WL_RING) {
      uint32_t h = i / c->qps;
      cn->a = h;
      cn->b = (h + 1) % G;
    } else {
      uint32_t a = i % G;
      cn->a = a;
      cn->b = (a + 1 + (i / G) % (G - 1)) % G;
    }
    cn->kind = CK_GPU;
    cn->svc_port = 18515;
    cn->g_va =
        0x7f0000000000ull + ((uint64_t)rng_below(&s->rng, 1u << 20) << 21);
    cn->g_rkey = (uint32_t)rng_u64(&s->rng);
    s->nconn++;
  }
  return 0;
}
