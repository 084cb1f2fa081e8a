/* SPDX-License-Identifier: MIT */
/*
 * Alarm evaluation (rtel_alarm(3), rtel-metrics(7)). Every flow record and
 * every completed I/O record is checked against the thresholds and baselines
 * set for its metrics; the state of each (scope key, metric, kind) decides
 * whether a crossing raises, clears, or does nothing. Thresholds clear with
 * a 10 % hysteresis; baselines (EWMA mean and variance, weight 1/32) raise
 * beyond k deviations and clear within k / 2.
 *
 * A leaf: the alarms a record raises or clears are returned to the hub
 * (rtel__fired), which counts them, notes them for the scheduler's
 * priority seat and calls the application.
 */
#include "rtel_alarm.h"

#define HYST 0.10
#define EWMA_SHIFT 32.0

typedef struct akey {
  rtel__qent q;
  uint32_t raised;
  uint32_t n;
  double mean;
  double var;
} akey;

int rtel__alarm_init(rtel__alarms *a, uint32_t max_keys, uint64_t seed,
                     const rtel__env *env) {
  uint32_t cap = max_keys ? max_keys : 1024;
  memset(a, 0, sizeof(*a));
  a->env = *env;
  return rtel__qtab_init(&a->keys, cap, sizeof(akey), seed ^ 0x7f4a7c15u,
                         env->mem);
}

void rtel__alarm_free(rtel__alarms *a) {
  if (a->env.mem) {
    rtel__qtab_free(&a->keys, a->env.mem);
  }
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

int rtel__alarm_set_threshold(rtel__alarms *a, uint32_t metric, uint32_t scope,
                              double value) {
  if (!valid(metric, scope) || !(value >= 0)) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  a->thr[metric][scope] = value;
  update_active(a);
  return 0;
}

int rtel__alarm_set_baseline(rtel__alarms *a, uint32_t metric, uint32_t scope,
                             double k, uint32_t warmup) {
  if (!valid(metric, scope) || !(k >= 0) || (k > 0 && warmup < 2)) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  a->k[metric][scope] = k;
  a->warmup[metric][scope] = warmup;
  update_active(a);
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

/* The record being judged and where its alarms go. */
typedef struct subject {
  uint32_t obs;
  uint32_t port;
  const uint8_t *src;
  const uint8_t *dst;
  rtel_tstamp ts;
  rtel__fired *out;
} subject;

static akey *key_get(rtel__alarms *a, subject *sb, uint32_t metric,
                     uint32_t scope, uint32_t kind) {
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
      sb->out->dropped = 1;
    }
  }
  return e;
}

/* Adds an alarm event to the subject's output (the hub sets its record
 * pointer when it delivers it). */
static void fire(subject *sb, uint32_t metric, uint32_t scope, uint32_t kind,
                 uint32_t state, double value, double limit) {
  rtel_alarm *al = &sb->out->al[sb->out->n++];
  memset(al, 0, sizeof(*al));
  al->metric = metric;
  al->scope = scope;
  al->kind = kind;
  al->state = state;
  al->obs = sb->obs;
  al->port = sb->port;
  if (scope == RTEL_SCOPE_PAIR) {
    memcpy(al->src, sb->src, 16);
    memcpy(al->dst, sb->dst, 16);
  }
  al->value = value;
  al->limit = limit;
  al->ts = sb->ts;
}

/* Evaluates one value of |metric| for |sb| in every scope. */
/* A threshold of |metric| in |scope|: raised beyond it, cleared back on
 * the good side by the hysteresis. */
static void eval_threshold(rtel__alarms *a, subject *sb, uint32_t metric,
                           uint32_t scope, double value) {
  int below = metric == RTEL_METRIC_FET; /* bad when low */
  double thr = a->thr[metric][scope];
  akey *e = key_get(a, sb, metric, scope, RTEL_ALARM_THRESHOLD);
  int bad, good;
  if (e == NULL) {
    return;
  }
  bad = below ? value < thr : value > thr;
  good = below ? value >= thr * (1 + HYST) : value <= thr * (1 - HYST);
  if (!e->raised && bad) {
    e->raised = 1;
    fire(sb, metric, scope, RTEL_ALARM_THRESHOLD, RTEL_ALARM_RAISED, value,
         thr);
  } else if (e->raised && good) {
    e->raised = 0;
    fire(sb, metric, scope, RTEL_ALARM_THRESHOLD, RTEL_ALARM_CLEARED, value,
         thr);
  }
}

/* Judges |value| against the baseline of |e| (once warmed up). */
static void judge_baseline(akey *e, subject *sb, uint32_t metric,
                           uint32_t scope, double k, double value) {
  int below = metric == RTEL_METRIC_FET; /* bad when low */
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
    fire(sb, metric, scope, RTEL_ALARM_BASELINE, RTEL_ALARM_RAISED, value,
         lim);
  } else if (e->raised && (dev < 0 ? -dev : dev) <= k * sd / 2) {
    e->raised = 0;
    fire(sb, metric, scope, RTEL_ALARM_BASELINE, RTEL_ALARM_CLEARED, value,
         lim);
  }
}

/* Moves the baseline of |e| towards |value| (EWMA of mean and variance). */
static void learn_baseline(akey *e, double value) {
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

/* A baseline of |metric| in |scope|: judged, then learned. */
static void eval_baseline(rtel__alarms *a, subject *sb, uint32_t metric,
                          uint32_t scope, double value) {
  akey *e = key_get(a, sb, metric, scope, RTEL_ALARM_BASELINE);
  if (e == NULL) {
    return;
  }
  if (e->n >= a->warmup[metric][scope]) {
    judge_baseline(e, sb, metric, scope, a->k[metric][scope], value);
  }
  learn_baseline(e, value);
}

/* Evaluates one value of |metric| for |sb| in every scope. */
static void eval(rtel__alarms *a, subject *sb, uint32_t metric, double value) {
  uint32_t scope;
  for (scope = RTEL_SCOPE_PAIR; scope <= RTEL_SCOPE_PORT; scope++) {
    if (a->thr[metric][scope] > 0) {
      eval_threshold(a, sb, metric, scope, value);
    }
    if (a->k[metric][scope] > 0) {
      eval_baseline(a, sb, metric, scope, value);
    }
  }
}

/* The metrics of a flow record, in every scope. */
static void eval_flow(rtel__alarms *a, subject *sb,
                      const rtel_flow_record *r) {
  eval(a, sb, RTEL_METRIC_FCT, (double)r->fct);
  eval(a, sb, RTEL_METRIC_RETX_RATIO, r->retx_ratio);
  if (r->flags & RTEL_FLOW_F_PAIRED) {
    eval(a, sb, RTEL_METRIC_FNR, r->fnr);
  }
  if (r->fct > 0) {
    double secs = (double)r->fct / 1e9;
    eval(a, sb, RTEL_METRIC_FET, (double)r->fet_bps);
    eval(a, sb, RTEL_METRIC_CNP_RATE, (double)r->cnps / secs);
  }
}

/* The metrics of a completed I/O record, in every scope. */
static void eval_io(rtel__alarms *a, subject *sb, const rtel_io_record *r) {
  eval(a, sb, RTEL_METRIC_IOL, (double)r->iol);
  if (r->dal != RTEL_DURATION_NONE) {
    eval(a, sb, RTEL_METRIC_DAL, (double)r->dal);
  }
  if (r->dpl != RTEL_DURATION_NONE) {
    eval(a, sb, RTEL_METRIC_DPL, (double)r->dpl);
  }
}

void rtel__alarm_flow(rtel__alarms *a, const rtel_flow_record *r,
                      rtel__fired *out) {
  subject sb;
  out->n = 0;
  out->dropped = 0;
  /* a flow cut short (by a slot boundary or an eviction) has a partial
   * FCT and throughput: it is not judged */
  if (!a->active || r->end == RTEL_END_TRUNCATED ||
      r->end == RTEL_END_EVICTED) {
    return;
  }
  sb.obs = r->obs;
  sb.port = r->port;
  sb.src = r->src;
  sb.dst = r->dst;
  sb.ts = r->last_ts;
  sb.out = out;
  eval_flow(a, &sb, r);
}

void rtel__alarm_io(rtel__alarms *a, const rtel_io_record *r,
                    rtel__fired *out) {
  subject sb;
  out->n = 0;
  out->dropped = 0;
  /* only completed I/Os have the latencies the alarms watch */
  if (!a->active || r->state != RTEL_IO_COMPLETE) {
    return;
  }
  sb.obs = r->obs;
  sb.port = r->port;
  sb.src = r->host;
  sb.dst = r->target;
  sb.ts = r->t_rsp;
  sb.out = out;
  eval_io(a, &sb, r);
}
