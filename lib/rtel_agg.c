/* SPDX-License-Identifier: MIT */
#include "rtel_agg.h"

#include "rtel_ctx.h"
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

int rtel__agg_init(rtel_ctx *ctx) {
  rtel__agg *a = &ctx->agg;
  uint32_t cap = ctx->settings.max_aggregates ? ctx->settings.max_aggregates
                                              : 128;
  memset(a, 0, sizeof(*a));
  a->interval = ctx->settings.report_interval;
  a->start = a->next = RTEL_TSTAMP_NONE;
  if (ctx->settings.nvme_flags & RTEL_NVME_DISABLE) {
    return 0;
  }
  return rtel__qtab_init(&a->keys, cap, sizeof(aggent),
                         ctx->settings.hash_seed ^ 0x61c88647u, &ctx->mem);
}

void rtel__agg_free(rtel_ctx *ctx) { rtel__qtab_free(&ctx->agg.keys, &ctx->mem); }

void rtel__agg_clock(rtel_ctx *ctx, rtel_tstamp ts) {
  rtel__agg *a = &ctx->agg;
  if (rtel__unlikely(a->start == RTEL_TSTAMP_NONE)) {
    a->start = ts;
    if (a->interval) {
      a->next = ts + a->interval;
    }
  }
}

static void add_to(rtel_ctx *ctx, const rtel_io_record *r, uint32_t nsid) {
  rtel__agg *a = &ctx->agg;
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
      ctx->stats.aggregates_dropped++;
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
  if (r->dpl != RTEL_DURATION_NONE) {
    rtel__hist_add(&d->dpl, r->dpl);
  }
}

void rtel__agg_io(rtel_ctx *ctx, const rtel_io_record *r) {
  if (ctx->agg.keys.ents == NULL ||
      (r->flags & (RTEL_IO_F_ADMIN | RTEL_IO_F_FABRICS)) ||
      (r->opcode != RTEL_NVME_OP_READ && r->opcode != RTEL_NVME_OP_WRITE) ||
      (r->state != RTEL_IO_COMPLETE && r->state != RTEL_IO_TIMEOUT)) {
    return;
  }
  add_to(ctx, r, r->nsid);
  add_to(ctx, r, RTEL_NSID_ALL);
}

rtel_tstamp rtel__agg_expiry(const rtel_ctx *ctx) { return ctx->agg.next; }

/* Reports every aggregate of the period [start, end) and empties the
 * table. */
static int report(rtel_ctx *ctx, rtel_tstamp end) {
  rtel__agg *a = &ctx->agg;
  rtel_io_aggregate g;
  int rv = 0;

  while (a->keys.used) {
    aggent *e = (aggent *)(void *)rtel__qtab_oldest(&a->keys);
    unsigned dir;
    for (dir = 0; dir < 2 && rv == 0 && ctx->cb.on_io_aggregate; dir++) {
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
      if (ctx->cb.on_io_aggregate(ctx, &g, ctx->user_data) != 0) {
        rv = RTEL_ERR_CALLBACK_FAILURE;
      }
    }
    rtel__qtab_remove(&a->keys, &e->q);
  }
  a->start = end;
  return rv;
}

int rtel__agg_expire(rtel_ctx *ctx, rtel_tstamp now) {
  rtel__agg *a = &ctx->agg;
  rtel_tstamp end;
  if (a->next == RTEL_TSTAMP_NONE || now < a->next) {
    return 0;
  }
  /* the latest boundary: if the caller ran late, one report covers the
   * periods that ended since the last one */
  end = a->next + (now - a->next) / a->interval * a->interval;
  a->next = end + a->interval;
  return report(ctx, end);
}

int rtel__agg_flush(rtel_ctx *ctx, rtel_tstamp now) {
  if (ctx->agg.start == RTEL_TSTAMP_NONE) {
    return 0;
  }
  return report(ctx, now);
}
