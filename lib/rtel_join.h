/* SPDX-License-Identifier: MIT */
/*
 * The two-point join (rtel_segment_record(3)): a completed I/O record seen
 * at one observation point waits for its twin - the same I/O seen at
 * another point - and the pair becomes a segment record that splits the
 * I/O latency into compute, network and storage time.
 *
 * The join reads only public rtel_io_record fields, so the NVMe-oF
 * correlator never calls it: the hub offers it every completed I/O record
 * it has delivered, and delivers the segment records it makes. The hub
 * also tells it the time of each packet the correlator sees
 * (rtel__join_clock()): a waiting record gives up after io_join_window of
 * its own point's clock, so that points with unrelated clocks never compare
 * times. Records that give up (window, full table, flush) are counted in
 * io_join_unmatched once a second point has been seen.
 *
 * Memory: a fixed table of waiting records (the fields of a record that
 * the join compares or puts in a segment, not the whole record) with a
 * hash on the I/O and a FIFO by arrival; nothing is allocated after setup.
 * While a single observation point has been seen no record can find a
 * twin, so records only queue in the FIFO; the hash is built over the
 * waiting ones when a second point appears.
 */
#ifndef RTEL_JOIN_H
#define RTEL_JOIN_H

#include "rtel_int.h"
#include "rtel_sink.h"
#include "rtel_table.h"

/* What the join keeps of a completed I/O record: the fields that decide
 * whether two records are the same I/O and those a segment reads. */
typedef struct rtel__jrec {
  uint32_t obs;
  uint32_t flags;
  uint8_t host[16];
  uint8_t target[16];
  uint32_t target_qpn;
  uint32_t nsid;
  uint16_t cid;
  uint8_t opcode;
  uint8_t fctype;
  uint32_t pad;
  uint64_t slba;
  uint64_t bytes;
  int64_t iol;
  int64_t dpl;
} rtel__jrec;

/* A completed I/O record waiting for its twin. */
typedef struct rtel__joinent {
  uint32_t hnext; /* hash chain, newest first (once indexed); free list */
  uint32_t fprev; /* FIFO by arrival */
  uint32_t fnext;
  uint32_t hash;
  rtel_tstamp expire; /* in |rec.obs|'s clock */
  rtel__jrec rec;
} rtel__joinent;

typedef struct rtel__join {
  rtel__env env;
  rtel_tstamp window;

  rtel__joinent *ents;
  uint32_t *buckets;
  uint32_t mask;
  uint32_t cap; /* 0: not allocated (NVMe-oF disabled) */
  uint32_t used;
  uint32_t free;  /* entries freed, a list through hnext */
  uint32_t fresh; /* entries [fresh, cap) never used: taken in order,
                     their pages untouched until then */
  uint32_t fifo_head;
  uint32_t fifo_tail;
  /* of the FIFO head (RTEL_TSTAMP_NONE when empty), so that the clock
   * of each packet need not read the entry */
  uint32_t head_obs;
  rtel_tstamp head_expire;

  /* observation point roles (rtel_ctx_set_obs_role()) */
  uint32_t nroles;
  uint32_t role_obs[RTEL_MAX_OBS_ROLES];
  uint8_t role[RTEL_MAX_OBS_ROLES];

  uint32_t seen;      /* a packet was seen */
  uint32_t first_obs; /* the first observation point seen ... */
  uint32_t multi_obs; /* ... and whether another one was seen since (the
                       * waiting records are in the hash only then) */
} rtel__join;

/* max_io_joins waiting records (max_ios when 0), io_join_window; nothing
 * is allocated when NVMe-oF is disabled. */
int rtel__join_init(rtel__join *j, const rtel_settings *s,
                    const rtel__env *env);
void rtel__join_free(rtel__join *j);

int rtel__join_set_role(rtel__join *j, uint32_t obs, uint32_t role);

/* Offers the delivered, completed I/O record |r|. Returns 1 when it
 * completes a join, with its segment record in |seg| (for the hub to
 * deliver); 0 when |r| waits for its twin or is not joined. */
int rtel__join_offer(rtel__join *j, const rtel_io_record *r,
                     rtel_segment_record *seg);

/* Drops the records waiting at |obs| whose window ended by |obs_now|. */
void rtel__join_expire(rtel__join *j, uint32_t obs, rtel_tstamp obs_now);

/* A second observation point was seen: joins become possible (the
 * waiting records go into the hash). */
void rtel__join_multi(rtel__join *j);

/* A packet at observation point |obs| at |ts|, before the correlator
 * handles it: notes the points seen and ends the waits it expires. */
static inline void rtel__join_clock(rtel__join *j, uint32_t obs,
                                    rtel_tstamp ts) {
  if (rtel__unlikely(!j->seen)) {
    j->seen = 1;
    j->first_obs = obs;
  }
  if (rtel__unlikely(obs != j->first_obs) && !j->multi_obs) {
    rtel__join_multi(j); /* joins become possible */
  }
  if (j->head_expire <= ts && j->head_obs == obs &&
      j->fifo_head != RTEL__NIL) {
    rtel__join_expire(j, obs, ts);
  }
}

/* The capture ends: every waiting record gives up. */
void rtel__join_flush(rtel__join *j);

#endif /* RTEL_JOIN_H */
