/* SPDX-License-Identifier: MIT */
/* Harness of the scheduler tests: see harness.h. */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- PRNG */

void rng_seed(rng *r, uint64_t seed) { r->s = seed ^ 0x6A09E667F3BCC909ull; }

uint64_t rng_next(rng *r) {
  /* splitmix64 */
  uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t rng_below(rng *r, uint64_t n) { return rng_next(r) % n; }

double rng_unit(rng *r) {
  return (double)(rng_next(r) >> 11) / 9007199254740992.0;
}

/* ------------------------------------------------------------- log */

static entry *push(H *h, int kind) {
  entry *e;
  if (h->n == h->cap) {
    size_t cap = h->cap ? h->cap * 2 : 256;
    entry *ne = realloc(h->e, cap * sizeof(*ne));
    ck_assert_ptr_nonnull(ne);
    h->e = ne;
    h->cap = cap;
  }
  e = &h->e[h->n++];
  memset(e, 0, sizeof(*e));
  e->kind = kind;
  e->call_now = h->call_now;
  return e;
}

static uint32_t *dup_ids(const uint32_t *a, size_t n) {
  uint32_t *d = malloc((n ? n : 1) * sizeof(*d));
  ck_assert_ptr_nonnull(d);
  if (n) {
    memcpy(d, a, n * sizeof(*d));
  }
  return d;
}

static int cb_slot(rtel_ctx *ctx, const rtel_slot_event *ev, void *ud) {
  H *h = ud;
  entry *e = push(h, EV_SLOT);
  size_t i;
  e->slot = ev->slot;
  e->start = ev->start;
  e->end = ev->end;
  e->nstarted = ev->nstarted;
  e->nstopped = ev->nstopped;
  e->started = dup_ids(ev->started, ev->nstarted);
  e->stopped = dup_ids(ev->stopped, ev->nstopped);
  e->snap = malloc(h->nids ? h->nids : 1);
  ck_assert_ptr_nonnull(e->snap);
  for (i = 0; i < h->nids; i++) {
    e->snap[i] = (uint8_t)rtel_ctx_port_measured(ctx, h->ids[i]);
  }
  e->snap_unreg = rtel_ctx_port_measured(ctx, h->unreg);
  return 0;
}

static int cb_flow(rtel_ctx *ctx, const rtel_flow_record *r, void *ud) {
  H *h = ud;
  entry *e = push(h, EV_FLOW);
  (void)ctx;
  e->flow = *r;
  e->flow_ptr = r;
  h->last_rec = r;
  return 0;
}

static int cb_io(rtel_ctx *ctx, const rtel_io_record *r, void *ud) {
  H *h = ud;
  entry *e = push(h, EV_IO);
  (void)ctx;
  e->io = *r;
  e->io_ptr = r;
  h->last_rec = r;
  return 0;
}

static int cb_alarm(rtel_ctx *ctx, const rtel_alarm *a, void *ud) {
  H *h = ud;
  entry *e = push(h, EV_ALARM);
  (void)ctx;
  e->alarm = *a;
  /* keep copies of the record it points to: the pointers die with the
   * call */
  if (a->flow) {
    e->flow = *a->flow;
  }
  if (a->io) {
    e->io = *a->io;
  }
  e->alarm_ptr_ok =
      (a->flow != NULL) != (a->io != NULL) &&
      (a->flow ? (const void *)a->flow : (const void *)a->io) == h->last_rec;
  return 0;
}

static int cb_agg(rtel_ctx *ctx, const rtel_io_aggregate *g, void *ud) {
  H *h = ud;
  entry *e = push(h, EV_AGG);
  (void)ctx;
  e->agg = *g;
  return 0;
}

void h_init(H *h, const rtel_settings *s) {
  rtel_callbacks cb;
  memset(h, 0, sizeof(*h));
  memset(&cb, 0, sizeof(cb));
  cb.on_slot = cb_slot;
  cb.on_flow = cb_flow;
  cb.on_io = cb_io;
  cb.on_alarm = cb_alarm;
  cb.on_io_aggregate = cb_agg;
  h->unreg = 0xFFFFFFF0u;
  ck_assert_int_eq(rtel_ctx_new(&h->ctx, s, &cb, NULL, h), 0);
}

void h_clear(H *h) {
  size_t i;
  for (i = 0; i < h->n; i++) {
    free(h->e[i].started);
    free(h->e[i].stopped);
    free(h->e[i].snap);
  }
  h->n = 0;
}

void h_free(H *h) {
  h_clear(h);
  free(h->e);
  h->e = NULL;
  h->cap = 0;
  rtel_ctx_del(h->ctx);
  h->ctx = NULL;
}

void h_read(H *h, rtel_tstamp ts, uint32_t port, const uint8_t *b, size_t n) {
  rtel_pkt_info pi;
  memset(&pi, 0, sizeof(pi));
  pi.ts = ts;
  pi.obs = h->obs;
  pi.port = port;
  h->call_now = ts;
  ck_assert_int_eq(rtel_ctx_read_pkt(h->ctx, &pi, b, n), 0);
}

void h_expire(H *h, rtel_tstamp now) {
  h->call_now = now;
  ck_assert_int_eq(rtel_ctx_handle_expiry(h->ctx, now), 0);
}

void h_advance(H *h, rtel_tstamp t) {
  unsigned guard = 0;
  for (;;) {
    rtel_tstamp e = rtel_ctx_get_expiry(h->ctx);
    if (e == NONE || e > t) {
      break;
    }
    h_expire(h, e);
    ck_assert_msg(rtel_ctx_get_expiry(h->ctx) != e || ++guard < 4,
                  "timer at %llu not consumed by handle_expiry",
                  (unsigned long long)e);
  }
}

int h_sched(H *h, uint32_t mode, uint32_t per, rtel_tstamp slot_ns,
            rtel_tstamp prio, rtel_tstamp now) {
  rtel_schedule s;
  memset(&s, 0, sizeof(s));
  s.mode = mode;
  s.ports_per_slot = per;
  s.slot_ns = slot_ns;
  s.alarm_priority = prio;
  h->call_now = now;
  return rtel_ctx_set_schedule(h->ctx, &s, now);
}

void h_add_port(H *h, uint32_t id, rtel_tstamp now) {
  rtel_port p;
  memset(&p, 0, sizeof(p));
  p.id = id;
  p.name = "port";
  ck_assert_int_eq(rtel_ctx_add_port(h->ctx, &p, now), 0);
}

rtel_ctx_stats h_stats(const H *h) {
  rtel_ctx_stats st;
  memset(&st, 0, sizeof(st));
  ck_assert_int_eq(rtel_ctx_get_stats(h->ctx, &st), 0);
  return st;
}

size_t h_count(const H *h, size_t from, int kind) {
  size_t i, c = 0;
  for (i = from; i < h->n; i++) {
    c += h->e[i].kind == kind;
  }
  return c;
}

entry *h_nth(H *h, size_t from, int kind, size_t k) {
  size_t i;
  for (i = from; i < h->n; i++) {
    if (h->e[i].kind == kind && k-- == 0) {
      return &h->e[i];
    }
  }
  return NULL;
}

/* ------------------------------------------------------------- packets */

/* Builds the frame of |s| and hands it in. */
static void send_spec(H *h, rtel_tstamp ts, uint32_t port, const tu_spec *s) {
  tb t;
  tb_init(&t);
  tu_build(&t, s);
  h_read(h, ts, port, t.b, t.n);
}

/* A frame IPv4 |src| -> |dst| (host order) from UDP port 0xC000, P_Key
 * 0xFFFF, |plen| bytes of payload. */
static void spec4(tu_spec *s, uint32_t src, uint32_t dst, uint8_t opcode,
                  uint32_t dqpn, uint32_t psn, size_t plen) {
  tu_spec_init(s, opcode, plen);
  tu_ipv4_mapped(s->src, src);
  tu_ipv4_mapped(s->dst, dst);
  s->sport = 0xC000;
  s->pkey = 0xFFFF;
  s->dqpn = dqpn;
  s->psn = psn;
  s->pad = (uint8_t)tu_pad_of(plen);
}

void h_data(H *h, rtel_tstamp ts, uint32_t port, uint32_t src, uint32_t dst,
            uint32_t dqpn, uint32_t psn, size_t plen) {
  tu_spec s;
  spec4(&s, src, dst, 0x0A /* RDMA WRITE ONLY */, dqpn, psn, plen);
  s.reth_va = 0x7000000000ull;
  s.reth_rkey = 0x5151u;
  s.reth_len = (uint32_t)plen;
  send_spec(h, ts, port, &s);
}

void h_aeth(H *h, rtel_tstamp ts, uint32_t port, uint32_t src, uint32_t dst,
            uint32_t dqpn, uint32_t psn, uint8_t syndrome) {
  tu_spec s;
  spec4(&s, src, dst, 0x11 /* ACKNOWLEDGE */, dqpn, psn, 0);
  s.aeth_syn = syndrome;
  s.aeth_msn = 1;
  send_spec(h, ts, port, &s);
}

void h_cnp(H *h, rtel_tstamp ts, uint32_t port, uint32_t src, uint32_t dst,
           uint32_t dqpn) {
  tu_spec s;
  spec4(&s, src, dst, 0x81 /* CNP */, dqpn, 0, 0);
  send_spec(h, ts, port, &s);
}

/* The shared builder's queue for |q|, and back (the PSNs moved on). */
static tu_nvq nvq_of(const nvq *q) {
  tu_nvq t;
  tu_nvq_init4(&t, q->host, q->target, q->hqpn, q->tqpn, q->hpsn, q->tpsn);
  return t;
}

static void nvq_send(H *h, nvq *q, rtel_tstamp ts, const tu_nvq *tq,
                     const tb *t) {
  q->hpsn = tq->hpsn;
  q->tpsn = tq->tpsn;
  h_read(h, ts, q->port, t->b, t->n);
}

static void nv_sqe(H *h, nvq *q, rtel_tstamp ts, const uint8_t *sqe) {
  tu_nvq tq = nvq_of(q);
  tb t;
  tu_nvq_cmd(&t, &tq, sqe);
  nvq_send(h, q, ts, &tq, &t);
}

void nv_connect(H *h, nvq *q, rtel_tstamp ts, uint16_t cid, uint16_t qid) {
  uint8_t sqe[TU_SQE_LEN];
  tu_sqe_connect(sqe, cid, qid, 0);
  nv_sqe(h, q, ts, sqe);
}

void nv_propget(H *h, nvq *q, rtel_tstamp ts, uint16_t cid) {
  uint8_t sqe[TU_SQE_LEN];
  tu_sqe_fabrics(sqe, cid, 0x04);
  nv_sqe(h, q, ts, sqe);
}

void nv_open(H *h, nvq *q, rtel_tstamp ts, uint16_t qid) {
  nv_connect(h, q, ts, 0xF0, qid);
  nv_rsp(h, q, ts + 10, 0xF0, 0);
  nv_propget(h, q, ts + 20, 0xF1);
  nv_rsp(h, q, ts + 30, 0xF1, 0);
}

void nv_rsp(H *h, nvq *q, rtel_tstamp ts, uint16_t cid, uint16_t sf) {
  tu_nvq tq = nvq_of(q);
  tb t;
  tu_nvq_rsp(&t, &tq, cid, sf, 0, 0);
  nvq_send(h, q, ts, &tq, &t);
}

void nv_cmd(H *h, nvq *q, rtel_tstamp ts, uint8_t opcode, uint16_t cid,
            uint32_t nsid, uint64_t slba, uint64_t va, uint32_t len,
            uint32_t key) {
  uint8_t sqe[TU_SQE_LEN];
  tu_sqe_rw(sqe, opcode, cid, nsid, slba, len / 512, va, len, key);
  nv_sqe(h, q, ts, sqe);
}

void nv_wdata(H *h, nvq *q, rtel_tstamp ts, uint64_t va, uint32_t key,
              uint32_t len) {
  tu_nvq tq = nvq_of(q);
  tb t;
  tu_nvq_wdata(&t, &tq, 0x0A /* RDMA WRITE ONLY */, va, key, len, len);
  nvq_send(h, q, ts, &tq, &t);
}

uint32_t nv_rdreq(H *h, nvq *q, rtel_tstamp ts, uint64_t va, uint32_t key,
                  uint32_t len) {
  tu_nvq tq = nvq_of(q);
  tb t;
  uint32_t psn = tu_nvq_rdreq(&t, &tq, va, key, len, 1);
  nvq_send(h, q, ts, &tq, &t);
  return psn;
}

void nv_rdresp(H *h, nvq *q, rtel_tstamp ts, uint32_t psn, uint32_t len) {
  tu_nvq tq = nvq_of(q);
  tb t;
  tu_nvq_rdresp(&t, &tq, 0x10 /* READ RESPONSE ONLY */, psn, len);
  nvq_send(h, q, ts, &tq, &t);
}

int h_addr_is(const uint8_t a[16], uint32_t ip4) {
  uint8_t m[16];
  tu_ipv4_mapped(m, ip4);
  return memcmp(a, m, 16) == 0;
}
