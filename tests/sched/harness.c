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
  e->alarm_ptr_ok = (a->flow != NULL) != (a->io != NULL) &&
                    (a->flow ? (const void *)a->flow
                             : (const void *)a->io) == h->last_rec;
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

void h_read(H *h, rtel_tstamp ts, uint32_t port, const uint8_t *b,
            size_t n) {
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

static void send_pkt(H *h, rtel_tstamp ts, uint32_t port, const sp_pkt *p) {
  uint8_t b[SP_MAX];
  size_t n = sp_build(b, p);
  h_read(h, ts, port, b, n);
}

void h_data(H *h, rtel_tstamp ts, uint32_t port, uint32_t src, uint32_t dst,
            uint32_t dqpn, uint32_t psn, size_t plen) {
  sp_pkt p;
  memset(&p, 0, sizeof(p));
  p.src = src;
  p.dst = dst;
  p.opcode = SP_WRITE_ONLY;
  p.dqpn = dqpn;
  p.psn = psn;
  p.reth = 1;
  p.va = 0x7000000000ull;
  p.rkey = 0x5151u;
  p.dmalen = (uint32_t)plen;
  p.plen = plen;
  send_pkt(h, ts, port, &p);
}

void h_aeth(H *h, rtel_tstamp ts, uint32_t port, uint32_t src, uint32_t dst,
            uint32_t dqpn, uint32_t psn, uint8_t syndrome) {
  sp_pkt p;
  memset(&p, 0, sizeof(p));
  p.src = src;
  p.dst = dst;
  p.opcode = SP_ACK;
  p.dqpn = dqpn;
  p.psn = psn;
  p.aeth = 1;
  p.syndrome = syndrome;
  p.msn = 1;
  send_pkt(h, ts, port, &p);
}

void h_cnp(H *h, rtel_tstamp ts, uint32_t port, uint32_t src, uint32_t dst,
           uint32_t dqpn) {
  sp_pkt p;
  memset(&p, 0, sizeof(p));
  p.src = src;
  p.dst = dst;
  p.opcode = SP_CNP;
  p.dqpn = dqpn;
  send_pkt(h, ts, port, &p);
}

static void nv_send(H *h, rtel_tstamp ts, uint32_t port, uint32_t src,
                    uint32_t dst, uint32_t dqpn, uint32_t psn,
                    const uint8_t *payload, size_t plen) {
  sp_pkt p;
  memset(&p, 0, sizeof(p));
  p.src = src;
  p.dst = dst;
  p.opcode = SP_SEND_ONLY;
  p.dqpn = dqpn;
  p.psn = psn;
  p.payload = payload;
  p.plen = plen;
  send_pkt(h, ts, port, &p);
}

void nv_connect(H *h, nvq *q, rtel_tstamp ts, uint16_t cid, uint16_t qid) {
  uint8_t sqe[64];
  sp_sqe_connect(sqe, cid, qid);
  nv_send(h, ts, q->port, q->host, q->target, q->tqpn, q->hpsn++, sqe, 64);
}

void nv_propget(H *h, nvq *q, rtel_tstamp ts, uint16_t cid) {
  uint8_t sqe[64];
  sp_sqe_fabrics(sqe, cid, 0x04);
  nv_send(h, ts, q->port, q->host, q->target, q->tqpn, q->hpsn++, sqe, 64);
}

void nv_open(H *h, nvq *q, rtel_tstamp ts, uint16_t qid) {
  nv_connect(h, q, ts, 0xF0, qid);
  nv_rsp(h, q, ts + 10, 0xF0, 0);
  nv_propget(h, q, ts + 20, 0xF1);
  nv_rsp(h, q, ts + 30, 0xF1, 0);
}

void nv_rsp(H *h, nvq *q, rtel_tstamp ts, uint16_t cid, uint16_t sf) {
  uint8_t cqe[16];
  sp_cqe(cqe, cid, sf);
  nv_send(h, ts, q->port, q->target, q->host, q->hqpn, q->tpsn++, cqe, 16);
}

void nv_cmd(H *h, nvq *q, rtel_tstamp ts, uint8_t opcode, uint16_t cid,
            uint32_t nsid, uint64_t slba, uint64_t va, uint32_t len,
            uint32_t key) {
  uint8_t sqe[64];
  sp_sqe_rw(sqe, opcode, cid, nsid, slba, (uint16_t)(len / 512 - 1), va, len,
            key);
  nv_send(h, ts, q->port, q->host, q->target, q->tqpn, q->hpsn++, sqe, 64);
}

void nv_wdata(H *h, nvq *q, rtel_tstamp ts, uint64_t va, uint32_t key,
              uint32_t len) {
  sp_pkt p;
  memset(&p, 0, sizeof(p));
  p.src = q->target;
  p.dst = q->host;
  p.opcode = SP_WRITE_ONLY;
  p.dqpn = q->hqpn;
  p.psn = q->tpsn++;
  p.reth = 1;
  p.va = va;
  p.rkey = key;
  p.dmalen = len;
  p.plen = len;
  send_pkt(h, ts, q->port, &p);
}

uint32_t nv_rdreq(H *h, nvq *q, rtel_tstamp ts, uint64_t va, uint32_t key,
                  uint32_t len) {
  sp_pkt p;
  uint32_t psn = q->tpsn++;
  memset(&p, 0, sizeof(p));
  p.src = q->target;
  p.dst = q->host;
  p.opcode = SP_READ_REQ;
  p.dqpn = q->hqpn;
  p.psn = psn;
  p.reth = 1;
  p.va = va;
  p.rkey = key;
  p.dmalen = len;
  send_pkt(h, ts, q->port, &p);
  return psn;
}

void nv_rdresp(H *h, nvq *q, rtel_tstamp ts, uint32_t psn, uint32_t len) {
  sp_pkt p;
  memset(&p, 0, sizeof(p));
  p.src = q->host;
  p.dst = q->target;
  p.opcode = SP_READ_RESP_ONLY;
  p.dqpn = q->tqpn;
  p.psn = psn;
  p.aeth = 1;
  p.syndrome = 0x1F;
  p.plen = len;
  send_pkt(h, ts, q->port, &p);
}

int h_addr_is(const uint8_t a[16], uint32_t ip4) {
  uint8_t m[16];
  sp_mapped(ip4, m);
  return memcmp(a, m, 16) == 0;
}
