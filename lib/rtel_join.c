/* SPDX-License-Identifier: MIT */
/*
 * The two-point join (rtel_segment_record(3), rtel-metrics(7)); see
 * rtel_join.h for where it sits.
 *
 * Two records are the same I/O when they agree on (host, target, target
 * QPN, CID, opcode, Fabrics type, NSID, SLBA, length) and come from two
 * points. A record offered while a twin waits joins the oldest such twin;
 * otherwise it waits, for io_join_window of its own point's clock, or
 * until the table is full and it is the oldest. Points declared
 * RTEL_ROLE_FABRIC are not joined; two points of the same declared role
 * make no segment.
 */
#include "rtel_join.h"

/* ------------------------------------------------------------ setup */

int rtel__join_init(rtel__join *j, const rtel_settings *s,
                    const rtel__env *env) {
  uint32_t nios = s->max_ios ? s->max_ios : 16384;
  uint32_t n = s->max_io_joins ? s->max_io_joins : nios;
  uint32_t nb, i;

  memset(j, 0, sizeof(*j));
  j->env = *env;
  j->window = s->io_join_window ? s->io_join_window : 1000000000ull;
  j->free = RTEL__NIL;
  j->fifo_head = j->fifo_tail = RTEL__NIL;
  j->head_expire = RTEL_TSTAMP_NONE;
  if (s->nvme_flags & RTEL_NVME_DISABLE) {
    return 0; /* no I/O records: nothing to join */
  }
  nb = rtel__pow2_at_least(n * 2u);
  j->ents = rtel__zalloc(env, n, sizeof(rtel__joinent));
  j->buckets = rtel__alloc(env, (size_t)nb * sizeof(uint32_t));
  if (j->ents == NULL || j->buckets == NULL) {
    rtel__join_free(j);
    return RTEL_ERR_NOMEM;
  }
  j->cap = n;
  j->mask = nb - 1;
  for (i = 0; i < nb; i++) {
    j->buckets[i] = RTEL__NIL;
  }
  /* no free list to write: entries are taken in order (fresh) */
  j->fresh = 0;
  return 0;
}

void rtel__join_free(rtel__join *j) {
  if (j->env.mem == NULL) {
    return; /* never initialised */
  }
  rtel__dealloc(&j->env, j->ents);
  rtel__dealloc(&j->env, j->buckets);
  j->ents = NULL;
  j->buckets = NULL;
  j->cap = 0;
}

/* ------------------------------------------------------------ roles */

static uint32_t role_of(const rtel__join *j, uint32_t obs) {
  uint32_t i;
  for (i = 0; i < j->nroles; i++) {
    if (j->role_obs[i] == obs) {
      return j->role[i];
    }
  }
  return RTEL_ROLE_UNKNOWN;
}

int rtel__join_set_role(rtel__join *j, uint32_t obs, uint32_t role) {
  uint32_t i;
  if (role > RTEL_ROLE_FABRIC) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  for (i = 0; i < j->nroles; i++) {
    if (j->role_obs[i] == obs) {
      j->role[i] = (uint8_t)role;
      return 0;
    }
  }
  if (j->nroles == RTEL_MAX_OBS_ROLES) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  j->role_obs[j->nroles] = obs;
  j->role[j->nroles++] = (uint8_t)role;
  return 0;
}

/* ------------------------------------------------------------ segments */

/* Builds the segmented record of |a| and |b| (the same I/O at two
 * points). Returns 0 if the roles say these two are not joined. */
static int segment(const rtel__join *j, const rtel__jrec *a,
                   const rtel__jrec *b, rtel_segment_record *s) {
  uint32_t ra = role_of(j, a->obs), rb = role_of(j, b->obs);
  const rtel__jrec *c, *st;
  int configured = 1;

  if (ra == RTEL_ROLE_FABRIC || rb == RTEL_ROLE_FABRIC) {
    return 0;
  }
  if (ra == RTEL_ROLE_COMPUTE || rb == RTEL_ROLE_STORAGE) {
    c = a;
    st = b;
  } else if (rb == RTEL_ROLE_COMPUTE || ra == RTEL_ROLE_STORAGE) {
    c = b;
    st = a;
  } else {
    /* inferred: the point nearer the host sees the longer latency */
    configured = 0;
    if (a->iol >= b->iol) {
      c = a;
      st = b;
    } else {
      c = b;
      st = a;
    }
  }
  if ((ra == RTEL_ROLE_COMPUTE && rb == RTEL_ROLE_COMPUTE) ||
      (ra == RTEL_ROLE_STORAGE && rb == RTEL_ROLE_STORAGE)) {
    return 0;
  }
  memset(s, 0, sizeof(*s));
  s->compute_obs = c->obs;
  s->storage_obs = st->obs;
  s->flags = c->flags;
  s->roles_configured = (uint32_t)configured;
  memcpy(s->host, c->host, 16);
  memcpy(s->target, c->target, 16);
  s->target_qpn = c->target_qpn;
  s->cid = c->cid;
  s->opcode = c->opcode;
  s->nsid = c->nsid;
  s->slba = c->slba;
  s->bytes = c->bytes;
  s->iol1 = c->iol;
  s->iol2 = st->iol;
  s->rtt = c->iol - st->iol;
  if (c->dpl != RTEL_DURATION_NONE && st->dpl != RTEL_DURATION_NONE) {
    /* a write: the host's data preparation is compute time */
    s->compute = c->dpl;
    s->network = (c->iol - st->iol) + (st->dpl - c->dpl);
  } else {
    s->compute = 0;
    s->network = c->iol - st->iol;
  }
  s->storage = s->iol1 - s->compute - s->network;
  return 1;
}

/* ------------------------------------------------------------ the table */

/* What the join keeps of |r|. */
static void jrec_of(const rtel_io_record *r, rtel__jrec *k) {
  k->obs = r->obs;
  k->flags = r->flags;
  memcpy(k->host, r->host, 16);
  memcpy(k->target, r->target, 16);
  k->target_qpn = r->target_qpn;
  k->nsid = r->nsid;
  k->cid = r->cid;
  k->opcode = r->opcode;
  k->fctype = r->fctype;
  k->pad = 0;
  k->slba = r->slba;
  k->bytes = r->bytes;
  k->iol = r->iol;
  k->dpl = r->dpl;
}

static uint32_t join_hash(const rtel__jrec *r) {
  uint64_t w[5], h = 0x51ed270b27a1b3c5ull;
  size_t i;
  memcpy(w, r->host, 16);
  memcpy(w + 2, r->target, 16);
  w[4] = (uint64_t)r->target_qpn << 32 | (uint64_t)r->cid << 8 | r->opcode;
  for (i = 0; i < 5; i++) {
    h = (h ^ w[i]) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
  }
  return rtel__mix32(h ^ r->slba ^ (r->bytes << 17));
}

static int join_same(const rtel__jrec *a, const rtel__jrec *b) {
  return a->target_qpn == b->target_qpn && a->cid == b->cid &&
         a->opcode == b->opcode && a->fctype == b->fctype &&
         a->nsid == b->nsid && a->slba == b->slba && a->bytes == b->bytes &&
         memcmp(a->host, b->host, 16) == 0 &&
         memcmp(a->target, b->target, 16) == 0;
}

/* The FIFO head changed: note its point and expiry. */
static void head_sync(rtel__join *j) {
  if (j->fifo_head == RTEL__NIL) {
    j->head_expire = RTEL_TSTAMP_NONE;
    return;
  }
  j->head_obs = j->ents[j->fifo_head].rec.obs;
  j->head_expire = j->ents[j->fifo_head].expire;
  /* the next head, which this reads when the head goes: with many I/Os
   * waiting it was written long ago and is out of the caches by then */
  if (j->ents[j->fifo_head].fnext != RTEL__NIL) {
    const rtel__joinent *n = &j->ents[j->ents[j->fifo_head].fnext];
    rtel__prefetch(&n->expire);  /* (112-byte entries: its point may be on */
    rtel__prefetch(&n->rec.obs); /* the next line) */
  }
}

/* Puts |e| (index |i|, hash |h|) at the head of its hash chain. */
static void hash_link(rtel__join *j, rtel__joinent *e, uint32_t i,
                      uint32_t h) {
  e->hash = h;
  e->hnext = j->buckets[e->hash & j->mask];
  j->buckets[e->hash & j->mask] = i;
}

static void join_remove(rtel__join *j, rtel__joinent *e) {
  uint32_t i = (uint32_t)(e - j->ents);
  if (j->multi_obs) {
    uint32_t *pp = &j->buckets[e->hash & j->mask];
    while (*pp != i) {
      pp = &j->ents[*pp].hnext;
    }
    *pp = e->hnext;
  }
  if (e->fprev == RTEL__NIL) {
    j->fifo_head = e->fnext;
    head_sync(j);
  } else {
    j->ents[e->fprev].fnext = e->fnext;
  }
  if (e->fnext == RTEL__NIL) {
    j->fifo_tail = e->fprev;
  } else {
    j->ents[e->fnext].fprev = e->fprev;
  }
  e->hnext = j->free;
  j->free = i;
  j->used--;
}

/* The oldest record waiting at |j|'s FIFO head gives up without a twin. */
static void give_up_oldest(rtel__join *j) {
  j->env.stats->io_join_unmatched += j->multi_obs;
  join_remove(j, &j->ents[j->fifo_head]);
}

/* |r| waits for its twin; |h| is its hash once joins are possible. */
static void join_wait(rtel__join *j, const rtel_io_record *r, uint32_t h) {
  uint32_t i;
  rtel__joinent *e;
  if (j->free == RTEL__NIL && j->fresh == j->cap) {
    give_up_oldest(j); /* full: the oldest waiter gives up */
  }
  if (j->free != RTEL__NIL) {
    i = j->free;
    e = &j->ents[i];
    j->free = e->hnext;
  } else {
    i = j->fresh++;
    e = &j->ents[i];
  }
  j->used++;
  jrec_of(r, &e->rec);
  e->expire = r->t_rsp + j->window;
  if (j->multi_obs) {
    hash_link(j, e, i, h);
  }
  e->fprev = j->fifo_tail;
  e->fnext = RTEL__NIL;
  if (j->fifo_tail != RTEL__NIL) {
    j->ents[j->fifo_tail].fnext = i;
  } else {
    j->fifo_head = i;
    head_sync(j);
  }
  j->fifo_tail = i;
}

int rtel__join_offer(rtel__join *j, const rtel_io_record *r,
                     rtel_segment_record *seg) {
  uint32_t h, i;
  rtel__joinent *twin = NULL;
  rtel__jrec k;
  int ok;

  if (j->cap == 0 || role_of(j, r->obs) == RTEL_ROLE_FABRIC) {
    return 0;
  }
  if (!j->multi_obs) {
    /* every waiting record is of this same point: no twin */
    join_wait(j, r, 0);
    return 0;
  }
  jrec_of(r, &k);
  h = join_hash(&k);
  /* the oldest waiting twin (the chain holds the newest first) */
  for (i = j->buckets[h & j->mask]; i != RTEL__NIL; i = j->ents[i].hnext) {
    rtel__joinent *c = &j->ents[i];
    if (c->hash == h && c->rec.obs != k.obs && join_same(&c->rec, &k)) {
      twin = c;
    }
  }
  if (twin == NULL) {
    join_wait(j, r, h);
    return 0;
  }
  ok = segment(j, &twin->rec, &k, seg);
  join_remove(j, twin);
  return ok;
}

void rtel__join_multi(rtel__join *j) {
  uint32_t i;
  j->multi_obs = 1;
  /* oldest first, so that each chain holds the newest first */
  for (i = j->fifo_head; i != RTEL__NIL; i = j->ents[i].fnext) {
    hash_link(j, &j->ents[i], i, join_hash(&j->ents[i].rec));
  }
}

/* ------------------------------------------------------------ timers */

/* Completed I/Os wait for their twin for the window of their own
 * observation point's clock (the latest packet seen there), so that points
 * with unrelated clocks never compare times. */
void rtel__join_expire(rtel__join *j, uint32_t obs, rtel_tstamp obs_now) {
  while (j->fifo_head != RTEL__NIL) {
    const rtel__joinent *e = &j->ents[j->fifo_head];
    if (e->rec.obs != obs || e->expire > obs_now) {
      break;
    }
    give_up_oldest(j);
  }
}

void rtel__join_flush(rtel__join *j) {
  while (j->fifo_head != RTEL__NIL) {
    give_up_oldest(j);
  }
}
