/* SPDX-License-Identifier: MIT */
/*
 * Per-period aggregates of NVMe-oF I/O records (rtel_io_aggregate(3)):
 * the hub adds every I/O record it delivers; at the end of a period each
 * aggregate goes up through the sink and the table is emptied.
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
  uint32_t pad;
  dirstat d[2]; /* read, write */
} aggent;

int rtel__agg_init(rtel__agg *a, const rtel_settings *s,
                   const rtel__env *env) {
  uint32_t cap = s->max_aggregates ? s->max_aggregates : 128;
  memset(a, 0, sizeof(*a));
  a->env = *env;
  a->interval = s->report_interval;
  a->origin = s->period_origin;
  a->start = a->next = RTEL_TSTAMP_NONE;
  if (s->nvme_flags & RTEL_NVME_DISABLE) {
    return 0;
  }
  return rtel__qtab_init(&a->keys, cap, sizeof(aggent),
                         s->hash_seed ^ 0x61c88647u, env->mem);
}

void rtel__agg_free(rtel__agg *a) {
  if (a->env.mem) {
    rtel__qtab_free(&a->keys, a->env.mem);
  }
}

static void add_to(rtel__agg *a, const rtel_io_record *r, uint32_t nsid) {
  rtel__qkey k;
  uint32_t h;
  aggent *e;
  dirstat *d;

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
      return;
    }
    e->flags = r->flags & RTEL_IO_F_IPV6;
  }
  d = &e->d[r->opcode == RTEL_NVME_OP_WRITE];
  if (r->state != RTEL_IO_COMPLETE) {
    d->timeouts++;
    return;
  }
  d->count++;
  d->bytes += r->bytes;
  d->errors += r->nvme_status != 0;
  rtel__hist_add(&d->iol, r->iol);
  if (r->dal != RTEL_DURATION_NONE) {
    rtel__hist_add(&d->dal, r->dal);
  }
  /* DPL: fetched writes only (a read whose data was fetched has one in
   * its record, not in the reads' aggregate) */
  if (r->dpl != RTEL_DURATION_NONE && r->opcode == RTEL_NVME_OP_WRITE) {
    rtel__hist_add(&d->dpl, r->dpl);
  }
}

void rtel__agg_io(rtel__agg *a, const rtel_io_record *r) {
  if (a->keys.ents == NULL ||
      (r->flags & (RTEL_IO_F_ADMIN | RTEL_IO_F_FABRICS)) ||
      (r->opcode != RTEL_NVME_OP_READ && r->opcode != RTEL_NVME_OP_WRITE) ||
      (r->state != RTEL_IO_COMPLETE && r->state != RTEL_IO_TIMEOUT)) {
    return;
  }
  add_to(a, r, r->nsid);
  if (r->nsid != RTEL_NSID_ALL) {
    /* a command naming every namespace (NSID 0xffffffff) has the
     * per-pair key already: counted once */
    add_to(a, r, RTEL_NSID_ALL);
  }
}

/* Reports every aggregate of the period [start, end) and empties the
 * table. */
static int report(rtel__agg *a, rtel_tstamp end) {
  const rtel__sink *sink = a->env.sink;
  rtel_io_aggregate g;
  int rv = 0;

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
