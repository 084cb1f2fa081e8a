/* SPDX-License-Identifier: MIT */
/*
 * Alarm evaluation (METRICS.md, "Alarms"). Every flow record and every
 * completed I/O record is checked against the thresholds and baselines set
 * for its metrics; the state of each (scope key, metric, kind) decides
 * whether a crossing raises, clears, or does nothing. Thresholds clear with
 * a 10 % hysteresis; baselines (EWMA mean and variance, weight 1/32) raise
 * beyond k deviations and clear within k / 2.
 */
#include "rtel_alarm.h"

#include "rtel_ctx.h"

#define HYST 0.10
#define EWMA_SHIFT 32.0

typedef struct akey {
  rtel__qent q;
  uint32_t raised;
  uint32_t n;
  double mean;
  double var;
} akey;

int rtel__alarm_init(rtel_ctx *ctx) {
  rtel__alarms *a = &ctx->alarms;
  uint32_t cap = ctx->settings.max_alarm_keys ? ctx->settings.max_alarm_keys
                                              : 1024;
  memset(a, 0, sizeof(*a));
  return rtel__qtab_init(&a->keys, cap, sizeof(akey),
                         ctx->settings.hash_seed ^ 0x7f4a7c15u, &ctx->mem);
}

void rtel__alarm_free(rtel_ctx *ctx) {
  rtel__qtab_free(&ctx->alarms.keys, &ctx->mem);
}

static void update_active(rtel__alarms *a) {
  unsigned m, s;
  a->active = 0;
  for (m = 0; m < RTEL__METRICS; m++) {
    for (s = 0; s < RTEL__SCOPES; s++) {
      if (a->thr[m][s] > 0 || a->k[m][s] > 0) {
        a->active = 1;
      }
    }
  }
}

static int valid(uint32_t metric, uint32_t scope) {
  return metric >= RTEL_METRIC_IOL && metric <= RTEL_METRIC_CNP_RATE &&
         (scope == RTEL_SCOPE_PAIR || scope == RTEL_SCOPE_PORT);
}

int rtel_ctx_set_threshold(rtel_ctx *ctx, uint32_t metric, uint32_t scope,
                           double value) {
  if (ctx == NULL || !valid(metric, scope) || !(value >= 0)) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  ctx->alarms.thr[metric][scope] = value;
  update_active(&ctx->alarms);
  return 0;
}

int rtel_ctx_set_baseline(rtel_ctx *ctx, uint32_t metric, uint32_t scope,
                          double k, uint32_t warmup) {
  if (ctx == NULL || !valid(metric, scope) || !(k >= 0) ||
      (k > 0 && warmup < 2)) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  ctx->alarms.k[metric][scope] = k;
  ctx->alarms.warmup[metric][scope] = warmup;
  update_active(&ctx->alarms);
  return 0;
}

/* Square root by Newton's method (the library links no libm). */
static double root(double x) {
  double r = x > 1 ? x : 1;
  int i;
  if (x <= 0) {
    return 0;
  }
  for (i = 0; i < 64; i++) {
    double n = 0.5 * (r + x / r);
    if (n == r) {
      break;
    }
    r = n;
  }
  return r;
}

typedef struct subject {
  int dropped; /* a key could not be stored: the record was not judged */
  uint32_t obs;
  uint32_t port;
  const uint8_t *src;
  const uint8_t *dst;
  rtel_tstamp ts;
  const rtel_flow_record *flow;
  const rtel_io_record *io;
} subject;

static akey *key_get(rtel_ctx *ctx, subject *sb, uint32_t metric,
                     uint32_t scope, uint32_t kind) {
  rtel__alarms *a = &ctx->alarms;
  rtel__qkey k;
  uint32_t h;
  akey *e;
  memset(&k, 0, sizeof(k));
  if (scope == RTEL_SCOPE_PAIR) {
    memcpy(k.src, sb->src, 16);
    memcpy(k.dst, sb->dst, 16);
  } else {
    memcpy(k.src, &sb->port, sizeof(sb->port));
  }
  k.obs = sb->obs;
  k.qpn = metric | scope << 8 | kind << 12;
  h = rtel__qkey_hash(&a->keys, &k);
  e = (akey *)(void *)rtel__qtab_find(&a->keys, &k, h);
  if (e == NULL) {
    e = (akey *)(void *)rtel__qtab_insert(&a->keys, &k, h);
    if (e == NULL) {
      sb->dropped = 1;
    }
  }
  return e;
}

static int fire(rtel_ctx *ctx, const subject *sb, uint32_t metric,
                uint32_t scope, uint32_t kind, uint32_t state, double value,
                double limit) {
  rtel_alarm al;
  if (state == RTEL_ALARM_RAISED) {
    ctx->stats.alarms_raised++;
    /* the priority window runs from when the alarm was raised */
    rtel__sched_alarm(ctx, sb->port, ctx->clock);
  } else {
    ctx->stats.alarms_cleared++;
  }
  if (ctx->cb.on_alarm == NULL) {
    return 0;
  }
  memset(&al, 0, sizeof(al));
  al.metric = metric;
  al.scope = scope;
  al.kind = kind;
  al.state = state;
  al.obs = sb->obs;
  al.port = sb->port;
  if (scope == RTEL_SCOPE_PAIR) {
    memcpy(al.src, sb->src, 16);
    memcpy(al.dst, sb->dst, 16);
  }
  al.value = value;
  al.limit = limit;
  al.ts = sb->ts;
  al.flow = sb->flow;
  al.io = sb->io;
  return ctx->cb.on_alarm(ctx, &al, ctx->user_data) != 0
             ? RTEL_ERR_CALLBACK_FAILURE
             : 0;
}

/* Evaluates one value of |metric| for |sb| in every scope. */
static int eval(rtel_ctx *ctx, subject *sb, uint32_t metric,
                double value) {
  rtel__alarms *a = &ctx->alarms;
  int below = metric == RTEL_METRIC_FET; /* bad when low */
  uint32_t scope;
  int rv;

  for (scope = RTEL_SCOPE_PAIR; scope <= RTEL_SCOPE_PORT; scope++) {
    double thr = a->thr[metric][scope], k = a->k[metric][scope];
    akey *e;
    if (thr > 0 && (e = key_get(ctx, sb, metric, scope,
                                RTEL_ALARM_THRESHOLD)) != NULL) {
      int bad = below ? value < thr : value > thr;
      int good = below ? value >= thr * (1 + HYST) : value <= thr * (1 - HYST);
      if (!e->raised && bad) {
        e->raised = 1;
        if ((rv = fire(ctx, sb, metric, scope, RTEL_ALARM_THRESHOLD,
                       RTEL_ALARM_RAISED, value, thr)) != 0) {
          return rv;
        }
      } else if (e->raised && good) {
        e->raised = 0;
        if ((rv = fire(ctx, sb, metric, scope, RTEL_ALARM_THRESHOLD,
                       RTEL_ALARM_CLEARED, value, thr)) != 0) {
          return rv;
        }
      }
    }
    if (k > 0 && (e = key_get(ctx, sb, metric, scope,
                              RTEL_ALARM_BASELINE)) != NULL) {
      if (e->n >= a->warmup[metric][scope]) {
        double mag = e->mean < 0 ? -e->mean : e->mean;
        double sd = root(e->var);
        double dev = value - e->mean;
        double lim;
        if (sd < mag * 0.01) {
          sd = mag * 0.01; /* a flat baseline still allows 1 % noise */
        }
        if (sd <= 0) {
          sd = 1e-9;
        }
        lim = below ? e->mean - k * sd : e->mean + k * sd;
        if (!e->raised && (below ? dev < -k * sd : dev > k * sd)) {
          e->raised = 1;
          if ((rv = fire(ctx, sb, metric, scope, RTEL_ALARM_BASELINE,
                         RTEL_ALARM_RAISED, value, lim)) != 0) {
            return rv;
          }
        } else if (e->raised && (dev < 0 ? -dev : dev) <= k * sd / 2) {
          e->raised = 0;
          if ((rv = fire(ctx, sb, metric, scope, RTEL_ALARM_BASELINE,
                         RTEL_ALARM_CLEARED, value, lim)) != 0) {
            return rv;
          }
        }
      }
      if (e->n == 0) {
        e->mean = value;
        e->var = 0;
      } else {
        double d = value - e->mean;
        e->mean += d / EWMA_SHIFT;
        e->var = (1 - 1 / EWMA_SHIFT) * (e->var + d * d / EWMA_SHIFT);
      }
      if (e->n < UINT32_MAX) {
        e->n++;
      }
    }
  }
  return 0;
}

/* The metrics of a flow record, in every scope. */
static int eval_flow(rtel_ctx *ctx, subject *sb, const rtel_flow_record *r) {
  int rv;
  if ((rv = eval(ctx, sb, RTEL_METRIC_FCT, (double)r->fct)) != 0 ||
      (rv = eval(ctx, sb, RTEL_METRIC_RETX_RATIO, r->retx_ratio)) != 0) {
    return rv;
  }
  if ((r->flags & RTEL_FLOW_F_PAIRED) &&
      (rv = eval(ctx, sb, RTEL_METRIC_FNR, r->fnr)) != 0) {
    return rv;
  }
  if (r->fct > 0) {
    double secs = (double)r->fct / 1e9;
    if ((rv = eval(ctx, sb, RTEL_METRIC_FET, (double)r->fet_bps)) != 0 ||
        (rv = eval(ctx, sb, RTEL_METRIC_CNP_RATE,
                   (double)r->cnps / secs)) != 0) {
      return rv;
    }
  }
  return 0;
}

/* The metrics of a completed I/O record, in every scope. */
static int eval_io(rtel_ctx *ctx, subject *sb, const rtel_io_record *r) {
  int rv;
  if ((rv = eval(ctx, sb, RTEL_METRIC_IOL, (double)r->iol)) != 0) {
    return rv;
  }
  if (r->dal != RTEL_DURATION_NONE &&
      (rv = eval(ctx, sb, RTEL_METRIC_DAL, (double)r->dal)) != 0) {
    return rv;
  }
  if (r->dpl != RTEL_DURATION_NONE &&
      (rv = eval(ctx, sb, RTEL_METRIC_DPL, (double)r->dpl)) != 0) {
    return rv;
  }
  return 0;
}

int rtel__alarm_flow(rtel_ctx *ctx, const rtel_flow_record *r) {
  subject sb;
  int rv;
  /* a flow cut short (by a slot boundary or an eviction) has a partial
   * FCT and throughput: it is not judged */
  if (!ctx->alarms.active || r->end == RTEL_END_TRUNCATED ||
      r->end == RTEL_END_EVICTED) {
    return 0;
  }
  sb.dropped = 0;
  sb.obs = r->obs;
  sb.port = r->port;
  sb.src = r->src;
  sb.dst = r->dst;
  sb.ts = r->last_ts;
  sb.flow = r;
  sb.io = NULL;
  rv = eval_flow(ctx, &sb, r);
  ctx->stats.alarms_dropped += (uint64_t)sb.dropped; /* once per record */
  return rv;
}

int rtel__alarm_io(rtel_ctx *ctx, const rtel_io_record *r) {
  subject sb;
  int rv;
  if (!ctx->alarms.active || r->state != RTEL_IO_COMPLETE) {
    return 0;
  }
  sb.dropped = 0;
  sb.obs = r->obs;
  sb.port = r->port;
  sb.src = r->host;
  sb.dst = r->target;
  sb.ts = r->t_rsp;
  sb.flow = NULL;
  sb.io = r;
  rv = eval_io(ctx, &sb, r);
  ctx->stats.alarms_dropped += (uint64_t)sb.dropped;
  return rv;
}
