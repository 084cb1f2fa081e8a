/* SPDX-License-Identifier: MIT */
/*
 * Test harness of the scheduler / alarm / aggregation tests: a context with
 * every callback recording into an ordered log, packet senders built on
 * the shared builder (tests/rtel_test_util.h), and a small seeded PRNG.
 * Expected values are never computed by library code.
 */
#ifndef SCHED_HARNESS_H
#define SCHED_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include <rocetel/rocetel.h>

#include <check.h>

#include "rtel_test_util.h"

#define NONE RTEL_TSTAMP_NONE

/* ------------------------------------------------------------- PRNG */

typedef struct rng {
  uint64_t s;
} rng;

void rng_seed(rng *r, uint64_t seed);
uint64_t rng_next(rng *r);
/* uniform in [0, n), n > 0 */
uint64_t rng_below(rng *r, uint64_t n);
/* uniform in [0, 1) */
double rng_unit(rng *r);

/* ------------------------------------------------------------- log */

enum { EV_SLOT = 1, EV_FLOW, EV_IO, EV_ALARM, EV_AGG };

typedef struct entry {
  int kind;
  /* |now| (or packet time) of the API call that delivered it */
  rtel_tstamp call_now;
  /* EV_SLOT */
  uint64_t slot;
  rtel_tstamp start, end;
  uint32_t *started, *stopped;
  size_t nstarted, nstopped;
  uint8_t *snap;  /* rtel_ctx_port_measured() of h->ids[] inside the call */
  int snap_unreg; /* ... of h->unreg */
  /* EV_FLOW */
  rtel_flow_record flow;
  const rtel_flow_record *flow_ptr;
  /* EV_IO */
  rtel_io_record io;
  const rtel_io_record *io_ptr;
  /* EV_ALARM: the alarm and a copy of the record it points to */
  rtel_alarm alarm;
  int alarm_ptr_ok; /* its record pointer is the one delivered just before */
  /* EV_AGG */
  rtel_io_aggregate agg;
} entry;

typedef struct H {
  rtel_ctx *ctx;
  entry *e;
  size_t n, cap;
  rtel_tstamp call_now;
  const uint32_t *ids; /* ports to snapshot at each slot event */
  size_t nids;
  uint32_t unreg; /* an id never registered */
  uint32_t obs;
  const void *last_rec; /* pointer of the last flow / io record delivered */
} H;

/* Creates the context; |s| may be NULL (defaults). */
void h_init(H *h, const rtel_settings *s);
void h_free(H *h);
/* Drops the log. */
void h_clear(H *h);

/* One packet (must be accepted with 0). */
void h_read(H *h, rtel_tstamp ts, uint32_t port, const uint8_t *b, size_t n);
void h_expire(H *h, rtel_tstamp now);
/* Runs every timer due at or before |t|, in order, as an event loop driven
 * by rtel_ctx_get_expiry() would. */
void h_advance(H *h, rtel_tstamp t);
int h_sched(H *h, uint32_t mode, uint32_t per, rtel_tstamp slot_ns,
            rtel_tstamp prio, rtel_tstamp now);
void h_add_port(H *h, uint32_t id, rtel_tstamp now);
rtel_ctx_stats h_stats(const H *h);

/* Counts of the log entries of a kind from index |from|. */
size_t h_count(const H *h, size_t from, int kind);
/* The |k|-th entry of |kind| from index |from| (NULL if none). */
entry *h_nth(H *h, size_t from, int kind, size_t k);

/* Packets. Addresses are host-order IPv4. */
void h_data(H *h, rtel_tstamp ts, uint32_t port, uint32_t src, uint32_t dst,
            uint32_t dqpn, uint32_t psn, size_t plen);
void h_aeth(H *h, rtel_tstamp ts, uint32_t port, uint32_t src, uint32_t dst,
            uint32_t dqpn, uint32_t psn, uint8_t syndrome);
void h_cnp(H *h, rtel_tstamp ts, uint32_t port, uint32_t src, uint32_t dst,
           uint32_t dqpn);

/* An NVMe-oF queue: host -> target commands to tqpn, target -> host
 * responses and data to hqpn. */
typedef struct nvq {
  uint32_t port;
  uint32_t host, target;
  uint32_t hqpn, tqpn;
  uint32_t hpsn, tpsn; /* next request PSN of each side */
} nvq;

void nv_connect(H *h, nvq *q, rtel_tstamp ts, uint16_t cid, uint16_t qid);
/* A Fabrics Property Get (fctype 0x04) command. */
void nv_propget(H *h, nvq *q, rtel_tstamp ts, uint16_t cid);
/* Opens the queue at |ts|: Connect (CID 0xF0, response at +10) and a
 * Property Get (CID 0xF1 at +20, response at +30). The host's QP is known
 * once two completions agree: both Fabrics records are delivered at +30. */
void nv_open(H *h, nvq *q, rtel_tstamp ts, uint16_t qid);
void nv_rsp(H *h, nvq *q, rtel_tstamp ts, uint16_t cid, uint16_t sf);
void nv_cmd(H *h, nvq *q, rtel_tstamp ts, uint8_t opcode, uint16_t cid,
            uint32_t nsid, uint64_t slba, uint64_t va, uint32_t len,
            uint32_t key);
/* Read data: RDMA WRITE ONLY target -> host into (va, key). */
void nv_wdata(H *h, nvq *q, rtel_tstamp ts, uint64_t va, uint32_t key,
              uint32_t len);
/* Write data: READ REQUEST target -> host (returns its PSN) and the READ
 * RESPONSE ONLY host -> target answering it. */
uint32_t nv_rdreq(H *h, nvq *q, rtel_tstamp ts, uint64_t va, uint32_t key,
                  uint32_t len);
void nv_rdresp(H *h, nvq *q, rtel_tstamp ts, uint32_t psn, uint32_t len);

/* IPv4-mapped address comparison. */
int h_addr_is(const uint8_t a[16], uint32_t ip4);

/* Suites. */
Suite *sched_suite(void);
Suite *mode_suite(void);
Suite *alarm_suite(void);
Suite *agg_suite(void);

#endif /* SCHED_HARNESS_H */
