/* SPDX-License-Identifier: MIT */
/*
 * Per-period aggregates of NVMe-oF I/O records (rtel_io_aggregate(3)):
 * the hub adds every I/O record it delivers; at the end of a period each
 * aggregate goes up through the sink and the table is emptied.
 *
 * A record counts in its namespace's aggregate and in its (obs, host,
 * target) pair's all-namespaces one. The latter is not updated per record
 * when the former exists: every namespace aggregate made while its pair's
 * exists is on that pair's list, and the report adds the listed ones into
 * it (sums, histograms bucket by bucket, min, max: exactly what adding
 * each record would give). Records whose namespace has no aggregate (the
 * table was full) and commands naming every namespace go to it directly.
 */
#include "rtel_agg.h"

#include "rtel_hist.h"

typedef struct dirstat {
  uint64_t count;
  uint64_t bytes;
  uint64_t errors;
  uint64_t timeouts;
  rtel__hist iol;
  rtel__hist dal;
  rtel__hist dpl;
} dirstat;

typedef struct aggent {
  rtel__qent q;
  uint32_t flags;
  /* a namespace's aggregate: the next one of its pair's list; the
   * all-namespaces one: the first of its list (RTEL__NIL: none) */
  uint32_t link;
  dirstat d[2]; /* read, write */
} aggent;

int rtel__agg_init(rtel__agg *a, const rtel_settings *s,
                   const rtel__env *env) {
  uint32_t cap = s->max_aggregates ? s->max_aggregates : 128;
  uint32_t ns;
  int rv;
  memset(a, 0, sizeof(*a));
  a->env = *env;
  a->interval = s->report_interval;
  a->origin = s->period_origin;
  a->start = a->next = RTEL_TSTAMP_NONE;
  if (s->nvme_flags & RTEL_NVME_DISABLE) {
    return 0;
  }
  if ((rv = rtel__qtab_init(&a->keys, cap, sizeof(aggent),
                            s->hash_seed ^ 0x61c88647u, env->mem)) != 0) {
    return rv;
  }
  ns = rtel__pow2_at_least(cap * 2u);
  a->slots = rtel__zalloc(env, ns, sizeof(*a->slots));
  if (a->slots == NULL) {
    rtel__agg_free(a);
    return RTEL_ERR_NOMEM;
  }
  a->slot_mask = ns - 1;
  a->gen = 1; /* the zeroed slots are stale */
  return 0;
}

void rtel__agg_free(rtel__agg *a) {
  if (a->env.mem) {
    rtel__qtab_free(&a->keys, a->env.mem);
    rtel__dealloc(&a->env, a->slots);
    a->slots = NULL;
  }
}

static uint64_t word(const uint8_t *p) {
  uint64_t w;
  memcpy(&w, p, 8);
  return w;
}

/* The slot of a record's key (obs, host, target, nsid): a cheap hash, the
 * entry's key being compared on every hit. */
static rtel__aggslot *slot_of(const rtel__agg *a, const rtel_io_record *r) {
  uint64_t x = word(r->host) * 0x9E3779B97F4A7C15ull ^
               word(r->host + 8) * 0xC2B2AE3D27D4EB4Full ^
               word(r->target) * 0x165667B19E3779F9ull ^
               word(r->target + 8) * 0x27D4EB2F165667C5ull ^
               ((uint64_t)r->obs << 32 | r->nsid);
  return &a->slots[rtel__mix32(x ^ a->keys.seed) & a->slot_mask];
}

/* Is |k| the key of |r| with namespace |nsid|? */
static int key_is(const rtel__qkey *k, const rtel_io_record *r,
                  uint32_t nsid) {
  return ((word(k->src) ^ word(r->host)) |
          (word(k->src + 8) ^ word(r->host + 8)) |
          (word(k->dst) ^ word(r->target)) |
          (word(k->dst + 8) ^ word(r->target + 8)) |
          (uint64_t)(k->obs ^ r->obs) | (uint64_t)(k->qpn ^ nsid)) == 0;
}

static aggent *ent_at(const rtel__agg *a, uint32_t i) {
  return (aggent *)(void *)rtel__qtab_at(&a->keys, i);
}

/* The aggregate of |r|'s key with namespace |nsid|, made if new; NULL
 * (counted) when the table is full. */
static aggent *find_or_add(rtel__agg *a, const rtel_io_record *r,
                           uint32_t nsid, int *made) {
  rtel__qkey k;
  uint32_t h;
  aggent *e;

  memcpy(k.src, r->host, 16);
  memcpy(k.dst, r->target, 16);
  k.obs = r->obs;
  k.qpn = nsid;
  h = rtel__qkey_hash(&a->keys, &k);
  e = (aggent *)(void *)rtel__qtab_find(&a->keys, &k, h);
  if (e == NULL) {
    e = (aggent *)(void *)rtel__qtab_insert(&a->keys, &k, h);
    if (e == NULL) {
      a->env.stats->aggregates_dropped++;
      return NULL;
    }
    e->flags = r->flags & RTEL_IO_F_IPV6;
    e->link = RTEL__NIL;
    *made = 1;
  }
  return e;
}

/* What a record adds to an aggregate, prepared once for the two it goes
 * to. */
typedef struct addend {
  unsigned dir;  /* 0 read, 1 write */
  unsigned done; /* RTEL_IO_COMPLETE (else a timeout) */
  unsigned has_dal, has_dpl;
  rtel__hist_val iol, dal, dpl;
} addend;

static void addend_of(const rtel_io_record *r, addend *p) {
  p->dir = r->opcode == RTEL_NVME_OP_WRITE;
  p->done = r->state == RTEL_IO_COMPLETE;
  if (!p->done) {
    return;
  }
  p->iol = rtel__hist_value(r->iol);
  p->has_dal = r->dal != RTEL_DURATION_NONE;
  if (p->has_dal) {
    p->dal = rtel__hist_value(r->dal);
  }
  /* DPL: fetched writes only (a read whose data was fetched has one in
   * its record, not in the reads' aggregate) */
  p->has_dpl = r->dpl != RTEL_DURATION_NONE && p->dir;
  if (p->has_dpl) {
    p->dpl = rtel__hist_value(r->dpl);
  }
}

static void add_to(aggent *e, const rtel_io_record *r, const addend *p) {
  dirstat *d = &e->d[p->dir];
  if (!p->done) {
    d->timeouts++;
    return;
  }
  d->count++;
  d->bytes += r->bytes;
  d->errors += r->nvme_status != 0;
  rtel__hist_put(&d->iol, p->iol);
  if (p->has_dal) {
    rtel__hist_put(&d->dal, p->dal);
  }
  if (p->has_dpl) {
    rtel__hist_put(&d->dpl, p->dpl);
  }
}

void rtel__agg_io(rtel__agg *a, const rtel_io_record *r) {
  int per_ns = r->nsid != RTEL_NSID_ALL, want;
  rtel__aggslot *sl;
  addend p;

  if (a->keys.ents == NULL ||
      (r->flags & (RTEL_IO_F_ADMIN | RTEL_IO_F_FABRICS)) ||
      (r->opcode != RTEL_NVME_OP_READ && r->opcode != RTEL_NVME_OP_WRITE) ||
      (r->state != RTEL_IO_COMPLETE && r->state != RTEL_IO_TIMEOUT)) {
    return;
  }
  /* Without on_io_aggregate an aggregate's figures are never read (the
   * report hands them to it alone), but which keys the table holds is:
   * aggregates_dropped counts the records of the keys it refused. So
   * the keys are kept (below) and the figures, the histograms above
   * all, are not: empty, they are reported to nobody. */
  want = (a->env.sink->want & RTEL__WANT_AGG) != 0;
  if (want) {
    addend_of(r, &p);
  }
  /* Within a period entries are only added, never moved or removed, and
   * a key the full table refused stays out of it: a slot filled in this
   * period for this key still names both entries, or their absence. */
  sl = slot_of(a, r);
  if (sl->gen == a->gen && key_is(&sl->key, r, r->nsid)) {
    /* the table refused these keys earlier in the period */
    a->env.stats->aggregates_dropped +=
        (uint64_t)(per_ns && sl->ns == RTEL__NIL) + (sl->all == RTEL__NIL);
  } else {
    /* (find_or_add() counts a refused key) */
    aggent *e = NULL, *all;
    int made = 0, made_all = 0;
    /* a command naming every namespace (NSID 0xffffffff) has the
     * all-namespaces key already: counted once */
    if (per_ns) {
      e = find_or_add(a, r, r->nsid, &made);
    }
    all = find_or_add(a, r, RTEL_NSID_ALL, &made_all);
    if (e != NULL && all != NULL && made) {
      /* a namespace aggregate made while its pair's exists (one made
       * without it found the table full, which stays so all period) */
      e->link = all->link;
      all->link = rtel__qtab_idx(&a->keys, &e->q);
    }
    memcpy(sl->key.src, r->host, 16);
    memcpy(sl->key.dst, r->target, 16);
    sl->key.obs = r->obs;
    sl->key.qpn = r->nsid;
    sl->ns = e ? rtel__qtab_idx(&a->keys, &e->q) : RTEL__NIL;
    sl->all = all ? rtel__qtab_idx(&a->keys, &all->q) : RTEL__NIL;
    sl->gen = a->gen;
  }
  if (!want) {
    return;
  }
  if (per_ns && sl->ns != RTEL__NIL) {
    /* the pair's all-namespaces aggregate, if any, adds it up at the
     * report */
    add_to(ent_at(a, sl->ns), r, &p);
  } else if (sl->all != RTEL__NIL) {
    add_to(ent_at(a, sl->all), r, &p);
  }
}

static void dir_merge(dirstat *d, const dirstat *o) {
  if (o->count == 0 && o->timeouts == 0) {
    return;
  }
  d->count += o->count;
  d->bytes += o->bytes;
  d->errors += o->errors;
  d->timeouts += o->timeouts;
  rtel__hist_merge(&d->iol, &o->iol);
  rtel__hist_merge(&d->dal, &o->dal);
  rtel__hist_merge(&d->dpl, &o->dpl);
}

/* Adds every namespace aggregate into its pair's all-namespaces one. */
static void merge_pairs(rtel__agg *a) {
  uint32_t i, k;
  if (a->keys.used == 0) {
    return; /* (and the table may not exist: NVMe-oF off) */
  }
  for (i = a->keys.lru.head; i != RTEL__NIL;) {
    aggent *all = ent_at(a, i);
    i = all->q.lru.next;
    if (all->q.key.qpn != RTEL_NSID_ALL) {
      continue;
    }
    for (k = all->link; k != RTEL__NIL;) {
      const aggent *e = ent_at(a, k);
      dir_merge(&all->d[0], &e->d[0]);
      dir_merge(&all->d[1], &e->d[1]);
      k = e->link;
    }
    all->link = RTEL__NIL;
  }
}

/* Reports every aggregate of the period [start, end) and empties the
 * table. */
static int report(rtel__agg *a, rtel_tstamp end) {
  const rtel__sink *sink = a->env.sink;
  rtel_io_aggregate g;
  int rv = 0;

  merge_pairs(a);
  while (a->keys.used) {
    aggent *e = (aggent *)(void *)rtel__qtab_oldest(&a->keys);
    unsigned dir;
    for (dir = 0; dir < 2 && rv == 0; dir++) {
      const dirstat *d = &e->d[dir];
      if (d->count == 0 && d->timeouts == 0) {
        continue;
      }
      memset(&g, 0, sizeof(g));
      g.obs = e->q.key.obs;
      g.flags = e->flags;
      g.opcode = dir ? RTEL_NVME_OP_WRITE : RTEL_NVME_OP_READ;
      g.nsid = e->q.key.qpn;
      memcpy(g.host, e->q.key.src, 16);
      memcpy(g.target, e->q.key.dst, 16);
      g.period_start = a->start;
      g.period_end = end;
      g.count = d->count;
      g.bytes = d->bytes;
      g.errors = d->errors;
      g.timeouts = d->timeouts;
      rtel__hist_summary(&d->iol, &g.iol);
      rtel__hist_summary(&d->dal, &g.dal);
      rtel__hist_summary(&d->dpl, &g.dpl);
      rv = sink->aggregate(sink->hub, &g);
    }
    rtel__qtab_remove(&a->keys, &e->q);
  }
  /* the entries are gone: every slot is stale */
  if (++a->gen == 0 && a->slots != NULL) {
    memset(a->slots, 0, ((size_t)a->slot_mask + 1) * sizeof(*a->slots));
    a->gen = 1;
  }
  a->start = end;
  return rv;
}

int rtel__agg_expire(rtel__agg *a, rtel_tstamp now) {
  rtel_tstamp end;
  if (a->next == RTEL_TSTAMP_NONE || now < a->next) {
    return 0;
  }
  /* the latest boundary: if the caller ran late, one report covers the
   * periods that ended since the last one */
  end = a->next + (now - a->next) / a->interval * a->interval;
  a->next = end + a->interval;
  return report(a, end);
}

int rtel__agg_flush(rtel__agg *a, rtel_tstamp now) {
  if (a->start == RTEL_TSTAMP_NONE) {
    return 0;
  }
  return report(a, now);
}
