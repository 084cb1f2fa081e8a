/* SPDX-License-Identifier: MIT */
/*
 * rtel-report: the HTML report of rtel-analyze --report (rtel-report.h,
 * rtel-analyze(1), REPORT). Records go in, one self-contained page comes
 * out; everything between is bounded:
 *
 *   hist     the library's log-linear histogram layout (lib/rtel_hist.c):
 *            exact below 64 ns, 32 buckets per power of two above,
 *            nearest-rank quantiles read as the bucket midpoint clamped to
 *            [min, max]; buckets are allocated only over the range used
 *   kmap     fixed-capacity tables of keys (observation point, host,
 *            target, namespace...) to their histograms
 *   series   REPORT_BINS intervals per observation point; when a record
 *            falls outside, the interval of every series doubles
 *            (neighbours merge: histograms merge exactly)
 *   heap     the N slowest I/Os and the N worst flows
 *
 * The page: inline CSS, inline SVG drawn here, a few lines of inline
 * script (sortable tables), and a Content-Security-Policy that forbids
 * every network access. Key figures carry data-metric / data-value (and
 * data-obs, data-host, ...) attributes, so that tests read them.
 */
#define _POSIX_C_SOURCE 200809L /* inet_ntop, strdup, gmtime_r */

#include "rtel-report.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_OBS 64
#define MAX_HOSTS 256
#define MAX_TARGETS 256
#define MAX_PAIRS 1024
#define MAX_NS 2048
#define MAX_SEGQ 1024
#define MAX_SERIES 64
#define MAX_FPAIRS 1024
#define MAX_ALARMS 2000
#define MAX_SLOTS 64
#define MAX_STATS 16
#define MAX_AGGS 256
#define RING_IOS 1024
#define RING_SEGS 256
/* What the page shows at most */
#define SHOW_ROWS 200   /* rows of a quality table */
#define SHOW_LINES 8    /* lines of a CDF */
#define SHOW_TRENDS 16  /* trend charts of host-target pairs */
#define SHOW_NODES 24   /* hosts or targets of the topology */
#define SHOW_ALARMS 200 /* rows of the alarm table */
#define BIN0_NS 1000    /* first interval of the series: 1 us */

/* ------------------------------------------------------------ output */

typedef struct out {
  FILE *f;
  uint64_t bytes;
  int err;
} out;

static void o_puts(out *o, const char *s) {
  size_t n = strlen(s);
  if (fwrite(s, 1, n, o->f) != n) {
    o->err = 1;
  }
  o->bytes += n;
}

static void o_printf(out *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void o_printf(out *o, const char *fmt, ...) {
  va_list ap;
  int n;
  va_start(ap, fmt);
  n = vfprintf(o->f, fmt, ap);
  va_end(ap);
  if (n < 0) {
    o->err = 1;
  } else {
    o->bytes += (uint64_t)n;
  }
}

/* |s| escaped for HTML text and attribute values. */
static void o_esc(out *o, const char *s) {
  char buf[256];
  size_t n = 0;
  for (; *s; s++) {
    const char *rep = NULL;
    switch (*s) {
    case '&':
      rep = "&amp;";
      break;
    case '<':
      rep = "&lt;";
      break;
    case '>':
      rep = "&gt;";
      break;
    case '"':
      rep = "&quot;";
      break;
    case '\'':
      rep = "&#39;";
      break;
    default:
      break;
    }
    if (n + 8 >= sizeof(buf)) {
      buf[n] = '\0';
      o_puts(o, buf);
      n = 0;
    }
    if (rep) {
      size_t k = strlen(rep);
      memcpy(buf + n, rep, k);
      n += k;
    } else {
      buf[n++] = *s;
    }
  }
  buf[n] = '\0';
  o_puts(o, buf);
}

/* ------------------------------------------------------------ formats */

typedef struct fbuf {
  char s[64];
} fbuf;

static const char *f_dur(fbuf *b, double ns) {
  double a = ns < 0 ? -ns : ns;
  if (a < 1e3) {
    snprintf(b->s, sizeof(b->s), "%.0f\xc2\xa0ns", ns);
  } else if (a < 1e6) {
    snprintf(b->s, sizeof(b->s), "%.4g\xc2\xa0\xc2\xb5s", ns / 1e3);
  } else if (a < 1e9) {
    snprintf(b->s, sizeof(b->s), "%.4g\xc2\xa0ms", ns / 1e6);
  } else {
    snprintf(b->s, sizeof(b->s), "%.4g\xc2\xa0s", ns / 1e9);
  }
  return b->s;
}

/* Short axis labels (no space). */
static const char *f_dur_short(fbuf *b, double ns) {
  if (ns < 1e3) {
    snprintf(b->s, sizeof(b->s), "%gns", ns);
  } else if (ns < 1e6) {
    snprintf(b->s, sizeof(b->s), "%g\xc2\xb5s", ns / 1e3);
  } else if (ns < 1e9) {
    snprintf(b->s, sizeof(b->s), "%gms", ns / 1e6);
  } else {
    snprintf(b->s, sizeof(b->s), "%gs", ns / 1e9);
  }
  return b->s;
}

static const char *f_bps(fbuf *b, double bps) {
  if (bps >= 1e9) {
    snprintf(b->s, sizeof(b->s), "%.4g\xc2\xa0Gb/s", bps / 1e9);
  } else if (bps >= 1e6) {
    snprintf(b->s, sizeof(b->s), "%.4g\xc2\xa0Mb/s", bps / 1e6);
  } else if (bps >= 1e3) {
    snprintf(b->s, sizeof(b->s), "%.4g\xc2\xa0kb/s", bps / 1e3);
  } else {
    snprintf(b->s, sizeof(b->s),
             "%.0f\xc2\xa0"
             "b/s",
             bps);
  }
  return b->s;
}

static const char *f_bps_short(fbuf *b, double bps) {
  if (bps >= 1e9) {
    snprintf(b->s, sizeof(b->s), "%gG", bps / 1e9);
  } else if (bps >= 1e6) {
    snprintf(b->s, sizeof(b->s), "%gM", bps / 1e6);
  } else if (bps >= 1e3) {
    snprintf(b->s, sizeof(b->s), "%gk", bps / 1e3);
  } else {
    snprintf(b->s, sizeof(b->s), "%g", bps);
  }
  return b->s;
}

static const char *f_bytes(fbuf *b, double v) {
  if (v >= 1073741824.0) {
    snprintf(b->s, sizeof(b->s), "%.4g\xc2\xa0GiB", v / 1073741824.0);
  } else if (v >= 1048576.0) {
    snprintf(b->s, sizeof(b->s), "%.4g\xc2\xa0MiB", v / 1048576.0);
  } else if (v >= 1024.0) {
    snprintf(b->s, sizeof(b->s), "%.4g\xc2\xa0KiB", v / 1024.0);
  } else {
    snprintf(b->s, sizeof(b->s),
             "%.0f\xc2\xa0"
             "B",
             v);
  }
  return b->s;
}

static const char *f_ms_short(fbuf *b, double ns) {
  snprintf(b->s, sizeof(b->s), "%gms", ns / 1e6);
  return b->s;
}

static const char *f_plain(fbuf *b, double v) {
  snprintf(b->s, sizeof(b->s), "%g", v);
  return b->s;
}

/* A record's address as text: IPv4 unless |v6|. */
static const char *f_addr(fbuf *b, int v6, const uint8_t *a) {
  if (!v6) {
    inet_ntop(AF_INET, a + 12, b->s, sizeof(b->s));
  } else {
    inet_ntop(AF_INET6, a, b->s, sizeof(b->s));
  }
  return b->s;
}

/* An absolute timestamp as UTC date and time with nanoseconds. */
static const char *f_time(fbuf *b, rtel_tstamp ts) {
  time_t sec = (time_t)(ts / 1000000000u);
  struct tm tm;
  if (gmtime_r(&sec, &tm) == NULL) {
    snprintf(b->s, sizeof(b->s), "%" PRIu64 " ns", ts);
    return b->s;
  }
  snprintf(b->s, sizeof(b->s), "%04d-%02d-%02d %02d:%02d:%02d.%09u UTC",
           tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
           tm.tm_sec, (unsigned)(ts % 1000000000u));
  return b->s;
}

/* ------------------------------------------------------------ histogram */

/* The library's layout (lib/rtel_hist.c, rtel_io_aggregate(3)). */
#define H_SUB_BITS 5
#define H_SUB 32u
#define H_MAX_EXP 47
#define H_BUCKETS ((H_MAX_EXP - H_SUB_BITS + 2) * H_SUB)
#define H_VMAX ((UINT64_C(1) << (H_MAX_EXP + 1)) - 1)
#define H_SLACK 4u

typedef struct hist {
  uint64_t count;
  int64_t min, max;
  uint64_t sum_lo, sum_hi; /* 128-bit sum of the clamped values */
  uint64_t *b;             /* buckets [lo, lo + n) */
  uint16_t lo, n;
  uint32_t reserved;
} hist;

static uint32_t h_index(uint64_t v) {
  unsigned e;
  if (v < H_SUB) {
    return (uint32_t)v;
  }
  if (v > H_VMAX) {
    v = H_VMAX;
  }
  e = 63u - (unsigned)__builtin_clzll(v);
  return (e - H_SUB_BITS + 1) * H_SUB +
         (uint32_t)((v >> (e - H_SUB_BITS)) & (H_SUB - 1));
}

static uint64_t h_low(uint32_t idx) {
  uint32_t row = idx / H_SUB, col = idx % H_SUB;
  unsigned e;
  if (row == 0) {
    return idx;
  }
  e = row + H_SUB_BITS - 1;
  return (UINT64_C(1) << e) + ((uint64_t)col << (e - H_SUB_BITS));
}

static uint64_t h_width(uint32_t idx) {
  uint32_t row = idx / H_SUB;
  return row == 0 ? 1 : UINT64_C(1) << (row - 1);
}

static void h_free(hist *h) {
  free(h->b);
  memset(h, 0, sizeof(*h));
}

/* Makes the buckets cover [lo, hi). 0, or -1 when out of memory. */
static int h_cover(hist *h, uint32_t lo, uint32_t hi) {
  uint32_t olo = h->lo, ohi = (uint32_t)h->lo + h->n;
  uint64_t *nb;
  if (h->n && lo >= olo && hi <= ohi) {
    return 0;
  }
  if (h->n) {
    lo = lo < olo ? lo : olo;
    hi = hi > ohi ? hi : ohi;
  }
  lo = lo >= H_SLACK ? lo - H_SLACK : 0;
  hi = hi + H_SLACK <= H_BUCKETS ? hi + H_SLACK : H_BUCKETS;
  nb = calloc(hi - lo, sizeof(*nb));
  if (nb == NULL) {
    return -1;
  }
  if (h->n) {
    memcpy(nb + (olo - lo), h->b, h->n * sizeof(*nb));
  }
  free(h->b);
  h->b = nb;
  h->lo = (uint16_t)lo;
  h->n = (uint16_t)(hi - lo);
  return 0;
}

static void h_sum_add(hist *h, uint64_t lo, uint64_t hi) {
  uint64_t s = h->sum_lo + lo;
  h->sum_hi += hi + (s < lo);
  h->sum_lo = s;
}

/* Adds |v| (clamped to [0, 2^48)). 0, or -1 when out of memory (nothing
 * added). */
static int h_add(hist *h, int64_t v) {
  uint64_t u = v < 0 ? 0 : (uint64_t)v;
  uint32_t i;
  if (u > H_VMAX) {
    u = H_VMAX;
  }
  i = h_index(u);
  if (h_cover(h, i, i + 1) != 0) {
    return -1;
  }
  if (h->count == 0 || (int64_t)u < h->min) {
    h->min = (int64_t)u;
  }
  if (h->count == 0 || (int64_t)u > h->max) {
    h->max = (int64_t)u;
  }
  h->count++;
  h_sum_add(h, u, 0);
  h->b[i - h->lo]++;
  return 0;
}

static int h_merge(hist *d, const hist *s) {
  uint32_t i;
  if (s->count == 0) {
    return 0;
  }
  if (h_cover(d, s->lo, (uint32_t)s->lo + s->n) != 0) {
    return -1;
  }
  for (i = 0; i < s->n; i++) {
    d->b[s->lo + i - d->lo] += s->b[i];
  }
  if (d->count == 0 || s->min < d->min) {
    d->min = s->min;
  }
  if (d->count == 0 || s->max > d->max) {
    d->max = s->max;
  }
  d->count += s->count;
  h_sum_add(d, s->sum_lo, s->sum_hi);
  return 0;
}

/* The nearest-rank |q| quantile as its bucket's midpoint, clamped to
 * [min, max] (rtel__hist_quantile). 0 if empty. */
static int64_t h_quantile(const hist *h, double q) {
  uint64_t rank, seen = 0;
  uint32_t i;
  int64_t v;
  if (h->count == 0) {
    return 0;
  }
  rank = (uint64_t)(q * (double)h->count);
  if ((double)rank < q * (double)h->count) {
    rank++;
  }
  if (rank == 0) {
    rank = 1;
  }
  for (i = 0; i < h->n; i++) {
    seen += h->b[i];
    if (seen >= rank) {
      break;
    }
  }
  if (i == h->n) {
    return h->max;
  }
  i += h->lo;
  v = (int64_t)(h_low(i) + h_width(i) / 2);
  if (h_width(i) == 1) {
    v = (int64_t)h_low(i);
  }
  return v < h->min ? h->min : v > h->max ? h->max : v;
}

/* The mean, floor (of the clamped values). */
static int64_t h_mean(const hist *h) {
  if (h->count == 0) {
    return 0;
  }
  if (h->sum_hi == 0) {
    return (int64_t)(h->sum_lo / h->count);
  }
  return (int64_t)(((long double)h->sum_hi * 18446744073709551616.0L +
                    (long double)h->sum_lo) /
                   (long double)h->count);
}

/* ------------------------------------------------------------ key tables */

typedef struct key {
  uint32_t obs, obs2, nsid, op;
  uint8_t a[16], b[16];
} key;

typedef struct kmap {
  size_t n, max;
  key *keys;
  void **vals;
  uint32_t *idx; /* hash slots: entry + 1, 0 = empty */
  size_t nidx;
  size_t vsize;
  uint64_t dropped; /* records whose key found the table full */
} kmap;

static uint64_t hash_bytes(const void *p, size_t n) {
  const uint8_t *s = p;
  uint64_t h = 1469598103934665603u;
  size_t i;
  for (i = 0; i < n; i++) {
    h = (h ^ s[i]) * 1099511628211u;
  }
  return h ^ (h >> 29);
}

static void km_init(kmap *m, size_t max, size_t vsize) {
  memset(m, 0, sizeof(*m));
  m->max = max;
  m->vsize = vsize;
}

/* The value of |k|, created (zeroed) when |create|; NULL if absent, the
 * table is full (counted in dropped) or out of memory (*oom set). */
static void *km_get(kmap *m, const key *k, int create, int *oom) {
  size_t i, mask;
  if (m->idx == NULL) {
    if (!create) {
      return NULL;
    }
    m->nidx = 16;
    while (m->nidx < 2 * m->max) {
      m->nidx *= 2;
    }
    m->idx = calloc(m->nidx, sizeof(*m->idx));
    m->keys = calloc(m->max, sizeof(*m->keys));
    m->vals = calloc(m->max, sizeof(*m->vals));
    if (m->idx == NULL || m->keys == NULL || m->vals == NULL) {
      free(m->idx);
      free(m->keys);
      free(m->vals);
      m->idx = NULL;
      m->keys = NULL;
      m->vals = NULL;
      *oom = 1;
      return NULL;
    }
  }
  mask = m->nidx - 1;
  for (i = (size_t)hash_bytes(k, sizeof(*k)) & mask;; i = (i + 1) & mask) {
    uint32_t e = m->idx[i];
    if (e == 0) {
      break;
    }
    if (memcmp(&m->keys[e - 1], k, sizeof(*k)) == 0) {
      return m->vals[e - 1];
    }
  }
  if (!create) {
    return NULL;
  }
  if (m->n == m->max) {
    m->dropped++;
    return NULL;
  }
  m->vals[m->n] = calloc(1, m->vsize);
  if (m->vals[m->n] == NULL) {
    *oom = 1;
    return NULL;
  }
  m->keys[m->n] = *k;
  m->idx[i] = (uint32_t)(m->n + 1);
  return m->vals[m->n++];
}

/* ------------------------------------------------------------ state */

enum { G_HOST, G_TARGET, G_PAIR, G_NS, G_N };
enum { M_IOL, M_DAL, M_DPL, M_N };
enum { S_COMPUTE, S_NETWORK, S_STORAGE, S_RTT, S_IOL1, S_IOL2, S_N };
/* op classes of segments */
enum { C_READ, C_WRITE, C_OTHER, C_ALL };

typedef struct ioq { /* the I/O quality of one key */
  uint32_t v6;
  uint32_t reserved;
  uint64_t done[2], errors[2], timeouts[2], bytes[2];
  hist h[2][M_N]; /* [read, write][IOL, DAL, DPL] */
} ioq;

typedef struct segq { /* the segments of one (host, target, c, s, op) */
  uint32_t v6;
  uint32_t reserved;
  uint64_t n;
  double sum[S_N]; /* exact means of the signed parts (< 2^53 ns) */
  hist h[S_N];
} segq;

typedef struct sbin {
  hist h[2];
  uint64_t n, bytes;
} sbin;

typedef struct series {
  uint32_t obs, v6;
  uint8_t a[16], b[16];
  uint64_t n;
  sbin *bins; /* REPORT_BINS, or NULL before the first value */
} series;

typedef struct fpair { /* flows of one (obs, src, dst) */
  uint32_t v6;
  uint32_t reserved;
  uint64_t n, retx, losses_up, losses_down;
  hist fct, fet;
} fpair;

typedef struct obsinfo {
  uint32_t id, role, role_seen; /* role_seen: 1 compute, 2 storage */
  uint32_t reserved;
  char *name;
  rtel_tstamp cap_first, cap_last, rec_first, rec_last;
  /* time base of the series */
  int tb_set, tb_used;
  rtel_tstamp anchor;
  int64_t kbase, kmin, kmax;
  series fet;  /* FET of the flows ending in each interval */
  series fetm; /* and of the messages */
  uint64_t flows, flows_retx, flow_bytes, flow_pkts, retx_pkts, retx_bytes;
  uint64_t naks_seq, naks_rnr, naks_fatal, cnps, ecn_ce, fecn, becn;
  uint64_t losses_up, losses_down, lost_up, psn_gaps, orphans, lost_lb;
  uint64_t retx_nak, retx_rnr, retx_timeout;
  uint64_t msgs, msgs_retx, msgs_incomplete, msg_losses_up, msg_losses_down;
  uint64_t ios[6]; /* by RTEL_IO_* state, [0] other */
  uint64_t ios_other_ops;
  uint64_t alarms_raised, alarms_cleared;
  hist fct_flow, fet_flow, fct_msg, fet_msg;
} obsinfo;

typedef struct alarm_ent {
  uint32_t metric, scope, kind, state, obs, port, v6, io;
  uint8_t src[16], dst[16];
  double value, limit;
  rtel_tstamp ts;
} alarm_ent;

typedef struct slot_ent {
  uint64_t slot;
  rtel_tstamp start, end;
  uint32_t started[8], stopped[8];
  uint32_t nstarted, nstopped;
} slot_ent;

typedef struct slowio {
  uint64_t key;
  rtel_io_record rec[2]; /* [0] the compute side (or only) record */
  int nrec, has_seg;
  rtel_segment_record seg;
} slowio;

typedef struct hent {
  int64_t rank;
  uint64_t seq;
  void *p;
} hent;

typedef struct heap {
  hent *e;
  size_t n, cap;
} heap;

typedef struct ring_io {
  uint64_t key;
  rtel_io_record rec;
} ring_io;

typedef struct ring_seg {
  uint64_t key;
  rtel_segment_record seg;
} ring_seg;

struct report {
  report_opts opt;
  char *title, *source;
  uint64_t records, seq;
  int oom;
  obsinfo obs[MAX_OBS];
  size_t nobs;
  uint64_t obs_dropped;
  rtel_tstamp width; /* interval of the series */
  kmap q[G_N];       /* ioq */
  kmap segs;         /* segq */
  kmap ser;          /* series of IOL per (obs, host, target) */
  kmap fp;           /* fpair */
  uint64_t flows, msgs, ios, segments, aggs, alarms, slots;
  alarm_ent *alarm;
  size_t nalarm;
  slot_ent slot[MAX_SLOTS];
  size_t nslot;
  rtel_tstamp slot_first, slot_last;
  struct {
    char *label;
    rtel_ctx_stats st;
  } stats[MAX_STATS];
  size_t nstats;
  rtel_io_aggregate agg[MAX_AGGS];
  size_t nagg; /* ring: the latest MAX_AGGS */
  heap slow, worst, retx;
  slowio *slowpool;
  rtel_flow_record *worstpool, *retxpool;
  ring_io *rio;
  size_t nrio;
  ring_seg *rseg;
  size_t nrseg;
};

/* ------------------------------------------------------------ heaps */

static int h_less(const hent *a, const hent *b) {
  /* the root is the least: smallest rank, then the latest record */
  return a->rank < b->rank || (a->rank == b->rank && a->seq > b->seq);
}

static void heap_down(heap *hp, size_t i) {
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    hent t;
    if (l < hp->n && h_less(&hp->e[l], &hp->e[m])) {
      m = l;
    }
    if (r < hp->n && h_less(&hp->e[r], &hp->e[m])) {
      m = r;
    }
    if (m == i) {
      return;
    }
    t = hp->e[i];
    hp->e[i] = hp->e[m];
    hp->e[m] = t;
    i = m;
  }
}

static void heap_up(heap *hp, size_t i) {
  while (i > 0) {
    size_t p = (i - 1) / 2;
    hent t;
    if (!h_less(&hp->e[i], &hp->e[p])) {
      return;
    }
    t = hp->e[i];
    hp->e[i] = hp->e[p];
    hp->e[p] = t;
    i = p;
  }
}

/* Offers an item of |rank|: returns the payload to fill (from |pool| of
 * hp->cap items of |size|), or NULL if it does not make the top. */
static void *heap_offer(heap *hp, void *pool, size_t size, int64_t rank,
                        uint64_t seq) {
  hent e;
  if (hp->cap == 0) {
    return NULL;
  }
  e.rank = rank;
  e.seq = seq;
  if (hp->n < hp->cap) {
    e.p = (char *)pool + hp->n * size;
    hp->e[hp->n] = e;
    heap_up(hp, hp->n++);
    return e.p;
  }
  /* full: better than the least? (ties: the earlier record stays) */
  if (rank <= hp->e[0].rank) {
    return NULL;
  }
  e.p = hp->e[0].p;
  hp->e[0] = e;
  heap_down(hp, 0);
  return e.p;
}

static int cmp_hent_desc(const void *a, const void *b) {
  const hent *x = a, *y = b;
  if (x->rank != y->rank) {
    return x->rank > y->rank ? -1 : 1;
  }
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The items best first (a sorted copy). */
static hent *heap_sorted(const heap *hp) {
  hent *s = malloc((hp->n ? hp->n : 1) * sizeof(*s));
  if (s == NULL) {
    return NULL;
  }
  memcpy(s, hp->e, hp->n * sizeof(*s));
  qsort(s, hp->n, sizeof(*s), cmp_hent_desc);
  return s;
}

/* ------------------------------------------------------------ new, free */

report *report_new(const report_opts *opts) {
  report *r = calloc(1, sizeof(*r));
  size_t n;
  if (r == NULL) {
    return NULL;
  }
  if (opts) {
    r->opt = *opts;
  }
  if (r->opt.top_n == 0) {
    r->opt.top_n = 20;
  }
  if (r->opt.top_n > REPORT_TOP_MAX) {
    r->opt.top_n = REPORT_TOP_MAX;
  }
  n = r->opt.top_n;
  r->title = strdup(r->opt.title ? r->opt.title : "libroceTel report");
  r->source = r->opt.source ? strdup(r->opt.source) : NULL;
  r->alarm = calloc(MAX_ALARMS, sizeof(*r->alarm));
  r->slow.e = calloc(n, sizeof(hent));
  r->worst.e = calloc(n, sizeof(hent));
  r->retx.e = calloc(n, sizeof(hent));
  r->slowpool = calloc(n, sizeof(slowio));
  r->worstpool = calloc(n, sizeof(rtel_flow_record));
  r->retxpool = calloc(n, sizeof(rtel_flow_record));
  r->rio = calloc(RING_IOS, sizeof(*r->rio));
  r->rseg = calloc(RING_SEGS, sizeof(*r->rseg));
  if (r->title == NULL || (r->opt.source && r->source == NULL) ||
      r->alarm == NULL || r->slow.e == NULL || r->worst.e == NULL ||
      r->retx.e == NULL || r->slowpool == NULL || r->worstpool == NULL ||
      r->retxpool == NULL || r->rio == NULL || r->rseg == NULL) {
    report_free(r);
    return NULL;
  }
  r->opt.title = r->title;
  r->opt.source = r->source;
  r->slow.cap = r->worst.cap = r->retx.cap = n;
  r->width = BIN0_NS;
  km_init(&r->q[G_HOST], MAX_HOSTS, sizeof(ioq));
  km_init(&r->q[G_TARGET], MAX_TARGETS, sizeof(ioq));
  km_init(&r->q[G_PAIR], MAX_PAIRS, sizeof(ioq));
  km_init(&r->q[G_NS], MAX_NS, sizeof(ioq));
  km_init(&r->segs, MAX_SEGQ, sizeof(segq));
  km_init(&r->ser, MAX_SERIES, sizeof(series));
  km_init(&r->fp, MAX_FPAIRS, sizeof(fpair));
  return r;
}

static void series_free(series *s) {
  size_t i;
  if (s->bins) {
    for (i = 0; i < REPORT_BINS; i++) {
      h_free(&s->bins[i].h[0]);
      h_free(&s->bins[i].h[1]);
    }
    free(s->bins);
    s->bins = NULL;
  }
}

static void km_free(kmap *m, void (*fv)(void *)) {
  size_t i;
  for (i = 0; i < m->n; i++) {
    if (fv) {
      fv(m->vals[i]);
    }
    free(m->vals[i]);
  }
  free(m->keys);
  free(m->vals);
  free(m->idx);
  memset(m, 0, sizeof(*m));
}

static void ioq_free(void *p) {
  ioq *q = p;
  int d, m;
  for (d = 0; d < 2; d++) {
    for (m = 0; m < M_N; m++) {
      h_free(&q->h[d][m]);
    }
  }
}

static void segq_free(void *p) {
  segq *q = p;
  int m;
  for (m = 0; m < S_N; m++) {
    h_free(&q->h[m]);
  }
}

static void series_free_v(void *p) { series_free(p); }

static void fpair_free(void *p) {
  fpair *f = p;
  h_free(&f->fct);
  h_free(&f->fet);
}

void report_free(report *r) {
  size_t i;
  int g;
  if (r == NULL) {
    return;
  }
  for (i = 0; i < r->nobs; i++) {
    obsinfo *o = &r->obs[i];
    free(o->name);
    series_free(&o->fet);
    series_free(&o->fetm);
    h_free(&o->fct_flow);
    h_free(&o->fet_flow);
    h_free(&o->fct_msg);
    h_free(&o->fet_msg);
  }
  for (g = 0; g < G_N; g++) {
    km_free(&r->q[g], ioq_free);
  }
  km_free(&r->segs, segq_free);
  km_free(&r->ser, series_free_v);
  km_free(&r->fp, fpair_free);
  for (i = 0; i < r->nstats; i++) {
    free(r->stats[i].label);
  }
  free(r->alarm);
  free(r->slow.e);
  free(r->worst.e);
  free(r->retx.e);
  free(r->slowpool);
  free(r->worstpool);
  free(r->retxpool);
  free(r->rio);
  free(r->rseg);
  free(r->title);
  free(r->source);
  free(r);
}

uint64_t report_records(const report *r) { return r->records; }

int report_oom(const report *r) { return r->oom; }

/* ------------------------------------------------------------ points */

static obsinfo *obs_find(report *r, uint32_t id) {
  size_t i;
  for (i = 0; i < r->nobs; i++) {
    if (r->obs[i].id == id) {
      return &r->obs[i];
    }
  }
  return NULL;
}

static obsinfo *obs_get(report *r, uint32_t id) {
  obsinfo *o = obs_find(r, id);
  char name[24];
  if (o) {
    return o;
  }
  if (r->nobs == MAX_OBS) {
    r->obs_dropped++;
    return NULL;
  }
  o = &r->obs[r->nobs];
  memset(o, 0, sizeof(*o));
  snprintf(name, sizeof(name), "obs%" PRIu32, id);
  o->name = strdup(name);
  if (o->name == NULL) {
    r->oom = 1;
    return NULL;
  }
  o->id = id;
  o->cap_first = o->cap_last = RTEL_TSTAMP_NONE;
  o->rec_first = o->rec_last = RTEL_TSTAMP_NONE;
  o->fet.obs = id;
  o->fetm.obs = id;
  r->nobs++;
  return o;
}

static const char *obs_name(report *r, uint32_t id) {
  obsinfo *o = obs_find(r, id);
  return o ? o->name : "?";
}

int report_obs(report *r, uint32_t obs, const char *name, uint32_t role,
               rtel_tstamp first_ts, rtel_tstamp last_ts) {
  obsinfo *o = obs_get(r, obs);
  if (o == NULL) {
    return -1;
  }
  if (name) {
    char *s = strdup(name);
    if (s == NULL) {
      r->oom = 1;
      return -1;
    }
    free(o->name);
    o->name = s;
  }
  if (role != RTEL_ROLE_UNKNOWN) {
    o->role = role;
  }
  if (first_ts != RTEL_TSTAMP_NONE) {
    o->cap_first = first_ts;
    if (!o->tb_set) {
      o->tb_set = 1;
      o->anchor = first_ts;
    }
  }
  if (last_ts != RTEL_TSTAMP_NONE) {
    o->cap_last = last_ts;
  }
  return 0;
}

static void obs_span(obsinfo *o, rtel_tstamp ts) {
  if (ts == RTEL_TSTAMP_NONE) {
    return;
  }
  if (o->rec_first == RTEL_TSTAMP_NONE || ts < o->rec_first) {
    o->rec_first = ts;
  }
  if (o->rec_last == RTEL_TSTAMP_NONE || ts > o->rec_last) {
    o->rec_last = ts;
  }
}

/* ------------------------------------------------------------ series */

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static void sbin_merge(report *r, sbin *d, sbin *s) {
  if (h_merge(&d->h[0], &s->h[0]) != 0 || h_merge(&d->h[1], &s->h[1])) {
    r->oom = 1;
  }
  d->n += s->n;
  d->bytes += s->bytes;
  h_free(&s->h[0]);
  h_free(&s->h[1]);
  s->n = s->bytes = 0;
}

/* Halves the number of intervals of |s| (its point's kbase is |kbase|,
 * the new one floor(kbase / 2)). */
static void series_halve(report *r, series *s, int64_t kbase) {
  int64_t nb = floor_div(kbase, 2);
  size_t j;
  if (s->bins == NULL) {
    return;
  }
  for (j = 0; j < REPORT_BINS; j++) {
    int64_t t = floor_div(kbase + (int64_t)j, 2) - nb;
    if (t != (int64_t)j) {
      sbin_merge(r, &s->bins[t], &s->bins[j]);
    }
  }
}

/* Moves the intervals of |s| by |d| slots (positive: later slots). */
static void series_shift(series *s, int64_t d) {
  size_t j;
  if (s->bins == NULL || d == 0) {
    return;
  }
  if (d > 0) {
    for (j = REPORT_BINS; j-- > 0;) {
      if ((int64_t)j >= d) {
        s->bins[j] = s->bins[j - (size_t)d];
      } else {
        memset(&s->bins[j], 0, sizeof(s->bins[j]));
      }
    }
  } else {
    size_t m = (size_t)-d;
    for (j = 0; j < REPORT_BINS; j++) {
      if (j + m < REPORT_BINS) {
        s->bins[j] = s->bins[j + m];
      } else {
        memset(&s->bins[j], 0, sizeof(s->bins[j]));
      }
    }
  }
}

/* Calls |fn| on every series of point |o|. */
static void for_series(report *r, obsinfo *o,
                       void (*fn)(report *, series *, int64_t), int64_t a) {
  size_t i;
  fn(r, &o->fet, a);
  fn(r, &o->fetm, a);
  for (i = 0; i < r->ser.n; i++) {
    series *s = r->ser.vals[i];
    if (s->obs == o->id) {
      fn(r, s, a);
    }
  }
}

static void do_halve(report *r, series *s, int64_t kbase) {
  series_halve(r, s, kbase);
}

static void do_shift(report *r, series *s, int64_t d) {
  (void)r;
  series_shift(s, d);
}

/* The slot of time |ts| at point |o|, after doubling the interval or
 * moving the slots as needed. */
static size_t series_slot(report *r, obsinfo *o, rtel_tstamp ts) {
  int64_t k, lo, hi;
  size_t i;
  if (!o->tb_set) {
    o->tb_set = 1;
    o->anchor = ts;
  }
  k = floor_div(ts >= o->anchor ? (int64_t)(ts - o->anchor)
                                : -(int64_t)(o->anchor - ts),
                (int64_t)r->width);
  if (!o->tb_used) {
    o->tb_used = 1;
    o->kbase = o->kmin = o->kmax = k;
    return 0;
  }
  if (k >= o->kbase && k < o->kbase + REPORT_BINS) {
    if (k < o->kmin) {
      o->kmin = k;
    }
    if (k > o->kmax) {
      o->kmax = k;
    }
    return (size_t)(k - o->kbase);
  }
  lo = k < o->kmin ? k : o->kmin;
  hi = k > o->kmax ? k : o->kmax;
  while (hi - lo >= REPORT_BINS) {
    /* double the interval of every point */
    for (i = 0; i < r->nobs; i++) {
      obsinfo *p = &r->obs[i];
      if (!p->tb_used) {
        continue;
      }
      for_series(r, p, do_halve, p->kbase);
      p->kbase = floor_div(p->kbase, 2);
      p->kmin = floor_div(p->kmin, 2);
      p->kmax = floor_div(p->kmax, 2);
    }
    r->width *= 2;
    k = floor_div(k, 2);
    lo = floor_div(lo, 2);
    hi = floor_div(hi, 2);
  }
  if (k < o->kbase || k >= o->kbase + REPORT_BINS) {
    /* the used range [lo, hi] fits: start the slots at lo */
    for_series(r, o, do_shift, o->kbase - lo);
    o->kbase = lo;
  }
  o->kmin = lo;
  o->kmax = hi;
  return (size_t)(k - o->kbase);
}

static sbin *series_bin(report *r, series *s, obsinfo *o, rtel_tstamp ts) {
  size_t slot;
  if (s->bins == NULL) {
    s->bins = calloc(REPORT_BINS, sizeof(*s->bins));
    if (s->bins == NULL) {
      r->oom = 1;
      return NULL;
    }
  }
  slot = series_slot(r, o, ts);
  return &s->bins[slot];
}

/* ------------------------------------------------------------ records */

static uint64_t io_key(const uint8_t *host, const uint8_t *target,
                       uint32_t tqpn, uint16_t cid, uint8_t opcode,
                       uint32_t nsid, uint64_t slba, uint64_t bytes) {
  struct {
    uint8_t h[16], t[16];
    uint32_t tqpn, nsid;
    uint64_t slba, bytes;
    uint16_t cid;
    uint8_t op, pad[5];
  } k;
  memset(&k, 0, sizeof(k));
  memcpy(k.h, host, 16);
  memcpy(k.t, target, 16);
  k.tqpn = tqpn;
  k.nsid = nsid;
  k.slba = slba;
  k.bytes = bytes;
  k.cid = cid;
  k.op = opcode;
  return hash_bytes(&k, sizeof(k)) | 1;
}

static uint64_t io_rec_key(const rtel_io_record *io) {
  return io_key(io->host, io->target, io->target_qpn, io->cid, io->opcode,
                io->nsid, io->slba, io->bytes);
}

/* Is point |id| the compute side (configured, or seen so in segments)? */
static int obs_is_compute(report *r, uint32_t id) {
  obsinfo *o = obs_find(r, id);
  if (o == NULL) {
    return 0;
  }
  if (o->role != RTEL_ROLE_UNKNOWN) {
    return o->role == RTEL_ROLE_COMPUTE;
  }
  return (o->role_seen & 1) != 0;
}

static void slow_order(report *r, slowio *s) {
  /* [0]: the compute side; without roles, the larger IOL */
  if (s->nrec == 2) {
    int c0 = obs_is_compute(r, s->rec[0].obs),
        c1 = obs_is_compute(r, s->rec[1].obs);
    if ((c1 && !c0) || (c0 == c1 && s->rec[1].iol > s->rec[0].iol)) {
      rtel_io_record t = s->rec[0];
      s->rec[0] = s->rec[1];
      s->rec[1] = t;
    }
  }
}

static void slow_io(report *r, const rtel_io_record *io, uint64_t k) {
  size_t i;
  slowio *s;
  /* its twin is already among the slowest: join it */
  for (i = 0; i < r->slow.n; i++) {
    s = r->slow.e[i].p;
    if (s->key == k && s->nrec == 1 && s->rec[0].obs != io->obs) {
      s->rec[1] = *io;
      s->nrec = 2;
      slow_order(r, s);
      if (io->iol > r->slow.e[i].rank) {
        r->slow.e[i].rank = io->iol;
        heap_down(&r->slow, i);
      }
      return;
    }
  }
  s = heap_offer(&r->slow, r->slowpool, sizeof(slowio), io->iol, r->seq);
  if (s == NULL) {
    return;
  }
  memset(s, 0, sizeof(*s));
  s->key = k;
  s->rec[0] = *io;
  s->nrec = 1;
  /* its twin and its segments seen before */
  for (i = 0; i < RING_IOS && i < r->nrio; i++) {
    const ring_io *e = &r->rio[i];
    if (e->key == k && e->rec.obs != io->obs) {
      s->rec[1] = e->rec;
      s->nrec = 2;
      slow_order(r, s);
      break;
    }
  }
  for (i = 0; i < RING_SEGS && i < r->nrseg; i++) {
    if (r->rseg[i].key == k) {
      s->seg = r->rseg[i].seg;
      s->has_seg = 1;
      break;
    }
  }
}

static void ioq_add(report *r, ioq *q, const rtel_io_record *io, int d) {
  q->v6 = (io->flags & RTEL_IO_F_IPV6) != 0;
  if (io->state != RTEL_IO_COMPLETE) {
    q->timeouts[d]++;
    return;
  }
  q->done[d]++;
  q->bytes[d] += io->bytes;
  q->errors[d] += io->nvme_status != 0;
  if (h_add(&q->h[d][M_IOL], io->iol) != 0) {
    r->oom = 1;
  }
  if (io->dal != RTEL_DURATION_NONE && h_add(&q->h[d][M_DAL], io->dal)) {
    r->oom = 1;
  }
  if (d == 1 && io->dpl != RTEL_DURATION_NONE &&
      h_add(&q->h[d][M_DPL], io->dpl) != 0) {
    r->oom = 1;
  }
}

void report_io(report *r, const rtel_io_record *io) {
  obsinfo *o;
  uint64_t k;
  r->records++;
  r->seq++;
  r->ios++;
  o = obs_get(r, io->obs);
  if (o == NULL) {
    return;
  }
  o->ios[io->state <= RTEL_IO_TRUNCATED ? io->state : 0]++;
  obs_span(o, io->t_cmd);
  obs_span(o, io->t_rsp);
  if (!(io->flags & (RTEL_IO_F_ADMIN | RTEL_IO_F_FABRICS)) &&
      (io->opcode == RTEL_NVME_OP_READ || io->opcode == RTEL_NVME_OP_WRITE) &&
      (io->state == RTEL_IO_COMPLETE || io->state == RTEL_IO_TIMEOUT)) {
    int d = io->opcode == RTEL_NVME_OP_WRITE, g;
    key kk;
    for (g = 0; g < G_N; g++) {
      ioq *q;
      if (g == G_NS && !r->opt.per_namespace) {
        continue;
      }
      memset(&kk, 0, sizeof(kk));
      kk.obs = io->obs;
      if (g != G_TARGET) {
        memcpy(kk.a, io->host, 16);
      }
      if (g != G_HOST) {
        memcpy(kk.b, io->target, 16);
      }
      kk.nsid = g == G_NS ? io->nsid : 0;
      q = km_get(&r->q[g], &kk, 1, &r->oom);
      if (q) {
        ioq_add(r, q, io, d);
      }
    }
    if (io->state == RTEL_IO_COMPLETE) {
      series *s;
      memset(&kk, 0, sizeof(kk));
      kk.obs = io->obs;
      memcpy(kk.a, io->host, 16);
      memcpy(kk.b, io->target, 16);
      s = km_get(&r->ser, &kk, 1, &r->oom);
      if (s) {
        sbin *b;
        s->obs = io->obs;
        s->v6 = (io->flags & RTEL_IO_F_IPV6) != 0;
        memcpy(s->a, io->host, 16);
        memcpy(s->b, io->target, 16);
        s->n++;
        b = series_bin(r, s, o, io->t_rsp);
        if (b) {
          b->n++;
          b->bytes += io->bytes;
          if (h_add(&b->h[d], io->iol) != 0) {
            r->oom = 1;
          }
        }
      }
    }
  } else if (!(io->flags & (RTEL_IO_F_ADMIN | RTEL_IO_F_FABRICS)) &&
             io->state != RTEL_IO_ORPHAN) {
    o->ios_other_ops++;
  }
  k = io_rec_key(io);
  if (io->state == RTEL_IO_COMPLETE && io->iol != RTEL_DURATION_NONE &&
      !(io->flags & (RTEL_IO_F_ADMIN | RTEL_IO_F_FABRICS))) {
    slow_io(r, io, k);
  }
  r->rio[r->nrio % RING_IOS].key = k;
  r->rio[r->nrio % RING_IOS].rec = *io;
  r->nrio++;
}

static int seg_class(uint8_t opcode, uint32_t flags) {
  if (flags & (RTEL_IO_F_ADMIN | RTEL_IO_F_FABRICS)) {
    return C_OTHER;
  }
  return opcode == RTEL_NVME_OP_READ    ? C_READ
         : opcode == RTEL_NVME_OP_WRITE ? C_WRITE
                                        : C_OTHER;
}

void report_segment(report *r, const rtel_segment_record *sg) {
  obsinfo *c, *s;
  key kk;
  int cl, pass;
  uint64_t k;
  size_t i;
  r->records++;
  r->seq++;
  r->segments++;
  c = obs_get(r, sg->compute_obs);
  s = obs_get(r, sg->storage_obs);
  if (c) {
    c->role_seen |= 1;
  }
  if (s) {
    s->role_seen |= 2;
  }
  cl = seg_class(sg->opcode, sg->flags);
  for (pass = 0; pass < 2; pass++) {
    segq *q;
    int64_t v[S_N];
    int m;
    memset(&kk, 0, sizeof(kk));
    kk.obs = sg->compute_obs;
    kk.obs2 = sg->storage_obs;
    kk.op = pass ? C_ALL : (uint32_t)cl;
    memcpy(kk.a, sg->host, 16);
    memcpy(kk.b, sg->target, 16);
    q = km_get(&r->segs, &kk, 1, &r->oom);
    if (q == NULL) {
      continue;
    }
    q->v6 = (sg->flags & RTEL_IO_F_IPV6) != 0;
    q->n++;
    v[S_COMPUTE] = sg->compute;
    v[S_NETWORK] = sg->network;
    v[S_STORAGE] = sg->storage;
    v[S_RTT] = sg->rtt;
    v[S_IOL1] = sg->iol1;
    v[S_IOL2] = sg->iol2;
    for (m = 0; m < S_N; m++) {
      q->sum[m] += (double)v[m];
      if (h_add(&q->h[m], v[m]) != 0) {
        r->oom = 1;
      }
    }
  }
  k = io_key(sg->host, sg->target, sg->target_qpn, sg->cid, sg->opcode,
             sg->nsid, sg->slba, sg->bytes);
  for (i = 0; i < r->slow.n; i++) {
    slowio *e = r->slow.e[i].p;
    if (e->key == k && !e->has_seg) {
      e->seg = *sg;
      e->has_seg = 1;
      slow_order(r, e);
      break;
    }
  }
  r->rseg[r->nrseg % RING_SEGS].key = k;
  r->rseg[r->nrseg % RING_SEGS].seg = *sg;
  r->nrseg++;
}

void report_flow(report *r, const rtel_flow_record *f) {
  obsinfo *o;
  key kk;
  fpair *p;
  rtel_flow_record *slot;
  int oom = 0;
  r->records++;
  r->seq++;
  r->flows++;
  o = obs_get(r, f->obs);
  if (o == NULL) {
    return;
  }
  obs_span(o, f->first_ts);
  obs_span(o, f->last_ts);
  o->flows++;
  o->flows_retx += f->retx_packets > 0;
  o->flow_bytes += f->bytes;
  o->flow_pkts += f->packets;
  o->retx_pkts += f->retx_packets;
  o->retx_bytes += f->retx_bytes;
  o->naks_seq += f->naks_seq;
  o->naks_rnr += f->naks_rnr;
  o->naks_fatal += f->naks_fatal;
  o->cnps += f->cnps;
  o->ecn_ce += f->ecn_ce;
  o->fecn += f->fecn;
  o->becn += f->becn;
  o->losses_up += f->losses_upstream;
  o->losses_down += f->losses_downstream;
  o->lost_up += f->lost_upstream;
  o->lost_lb += (f->flags & RTEL_FLOW_F_LOST_LB) != 0;
  o->psn_gaps += f->psn_gaps;
  o->orphans += f->orphan_packets;
  o->retx_nak += f->retx_after_nak;
  o->retx_rnr += f->retx_after_rnr;
  o->retx_timeout += f->retx_after_timeout;
  oom |= h_add(&o->fct_flow, (int64_t)f->fct);
  if (f->fct > 0) {
    oom |= h_add(&o->fet_flow, (int64_t)f->fet_bps);
  }
  {
    sbin *b = series_bin(r, &o->fet, o, f->last_ts);
    if (b) {
      b->n++;
      b->bytes += f->bytes;
      if (f->fct > 0) {
        oom |= h_add(&b->h[0], (int64_t)f->fet_bps);
      }
    }
  }
  memset(&kk, 0, sizeof(kk));
  kk.obs = f->obs;
  memcpy(kk.a, f->src, 16);
  memcpy(kk.b, f->dst, 16);
  p = km_get(&r->fp, &kk, 1, &r->oom);
  if (p) {
    p->v6 = (f->flags & RTEL_FLOW_F_IPV6) != 0;
    p->n++;
    p->retx += f->retx_packets;
    p->losses_up += f->losses_upstream;
    p->losses_down += f->losses_downstream;
    oom |= h_add(&p->fct, (int64_t)f->fct);
    if (f->fct > 0) {
      oom |= h_add(&p->fet, (int64_t)f->fet_bps);
    }
  }
  if (oom) {
    r->oom = 1;
  }
  slot = heap_offer(&r->worst, r->worstpool, sizeof(*slot), (int64_t)f->fct,
                    r->seq);
  if (slot) {
    *slot = *f;
  }
  if (f->retx_packets > 0) {
    slot = heap_offer(&r->retx, r->retxpool, sizeof(*slot),
                      (int64_t)f->retx_packets, r->seq);
    if (slot) {
      *slot = *f;
    }
  }
}

void report_msg(report *r, const rtel_msg_record *m) {
  obsinfo *o;
  int oom = 0;
  r->records++;
  r->seq++;
  r->msgs++;
  o = obs_get(r, m->obs);
  if (o == NULL) {
    return;
  }
  obs_span(o, m->first_ts);
  obs_span(o, m->last_ts);
  o->msgs++;
  o->msgs_retx += m->retx_packets > 0;
  o->msgs_incomplete += (m->flags & RTEL_MSG_F_INCOMPLETE) != 0;
  o->msg_losses_up += m->losses_upstream;
  o->msg_losses_down += m->losses_downstream;
  oom |= h_add(&o->fct_msg, (int64_t)m->fct);
  if (m->fct > 0) {
    oom |= h_add(&o->fet_msg, (int64_t)m->fet_bps);
  }
  {
    sbin *b = series_bin(r, &o->fetm, o, m->last_ts);
    if (b) {
      b->n++;
      b->bytes += m->bytes;
      if (m->fct > 0) {
        oom |= h_add(&b->h[0], (int64_t)m->fet_bps);
      }
    }
  }
  if (oom) {
    r->oom = 1;
  }
}

void report_aggregate(report *r, const rtel_io_aggregate *g) {
  r->records++;
  r->seq++;
  r->agg[r->aggs % MAX_AGGS] = *g;
  r->aggs++;
  if (r->nagg < MAX_AGGS) {
    r->nagg++;
  }
}

void report_alarm(report *r, const rtel_alarm *al) {
  obsinfo *o;
  alarm_ent *e;
  r->records++;
  r->seq++;
  r->alarms++;
  o = obs_get(r, al->obs);
  if (o) {
    if (al->state == RTEL_ALARM_RAISED) {
      o->alarms_raised++;
    } else {
      o->alarms_cleared++;
    }
  }
  if (r->nalarm == MAX_ALARMS) {
    return;
  }
  e = &r->alarm[r->nalarm++];
  memset(e, 0, sizeof(*e));
  e->metric = al->metric;
  e->scope = al->scope;
  e->kind = al->kind;
  e->state = al->state;
  e->obs = al->obs;
  e->port = al->port;
  e->io = al->io != NULL;
  if (al->flow) {
    e->v6 = (al->flow->flags & RTEL_FLOW_F_IPV6) != 0;
  } else if (al->io) {
    e->v6 = (al->io->flags & RTEL_IO_F_IPV6) != 0;
  }
  memcpy(e->src, al->src, 16);
  memcpy(e->dst, al->dst, 16);
  e->value = al->value;
  e->limit = al->limit;
  e->ts = al->ts;
}

void report_slot(report *r, const rtel_slot_event *ev) {
  slot_ent *e;
  size_t i;
  r->records++;
  r->seq++;
  if (r->slots == 0) {
    r->slot_first = ev->start;
  }
  r->slot_last = ev->start;
  r->slots++;
  if (r->nslot == MAX_SLOTS) {
    return;
  }
  e = &r->slot[r->nslot++];
  memset(e, 0, sizeof(*e));
  e->slot = ev->slot;
  e->start = ev->start;
  e->end = ev->end;
  for (i = 0; i < ev->nstarted && i < 8; i++) {
    e->started[e->nstarted++] = ev->started[i];
  }
  for (i = 0; i < ev->nstopped && i < 8; i++) {
    e->stopped[e->nstopped++] = ev->stopped[i];
  }
}

void report_stats(report *r, const char *label, const rtel_ctx_stats *st) {
  size_t i;
  if (label == NULL) {
    label = "all";
  }
  for (i = 0; i < r->nstats; i++) {
    if (strcmp(r->stats[i].label, label) == 0) {
      r->stats[i].st = *st;
      return;
    }
  }
  if (r->nstats == MAX_STATS) {
    return;
  }
  r->stats[r->nstats].label = strdup(label);
  if (r->stats[r->nstats].label == NULL) {
    r->oom = 1;
    return;
  }
  r->stats[r->nstats].st = *st;
  r->nstats++;
}

/* ------------------------------------------------------------ plots */

typedef const char *(*fmt_fn)(fbuf *, double);

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c",
                                      "#ff7f0e", "#9467bd", "#8c564b",
                                      "#e377c2", "#17becf"};
#define NCOLORS (sizeof(palette) / sizeof(palette[0]))

typedef struct plot {
  out *o;
  double l, t, w, h; /* the plotting area */
  double x0, x1, y0, y1;
  int xlog, ylog;
} plot;

static double p_frac(double v, double a, double b, int lg) {
  if (lg) {
    v = v < a ? a : v;
    return (log10(v) - log10(a)) / (log10(b) - log10(a));
  }
  return (v - a) / (b - a);
}

static double px(const plot *p, double x) {
  return p->l + p_frac(x, p->x0, p->x1, p->xlog) * p->w;
}

static double py(const plot *p, double y) {
  return p->t + p->h - p_frac(y, p->y0, p->y1, p->ylog) * p->h;
}

/* A tick step of about (b - a) / 5: 1, 2 or 5 times a power of ten. */
static double nice_step(double a, double b) {
  double raw = (b - a) / 5, mag, f;
  if (!(raw > 0)) {
    return 1;
  }
  mag = pow(10, floor(log10(raw)));
  f = raw / mag;
  return mag * (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10);
}

static void svg_open(out *o, const char *kind, const char *attrs, double w,
                     double h, const char *title) {
  o_printf(o,
           "<svg class=\"plot\" data-plot=\"%s\"%s viewBox=\"0 0 %.0f %.0f\" "
           "width=\"%.0f\" height=\"%.0f\" role=\"img\" aria-label=\"",
           kind, attrs ? attrs : "", w, h, w, h);
  o_esc(o, title);
  o_puts(o, "\"><title>");
  o_esc(o, title);
  o_puts(o, "</title>");
}

static void svg_text(out *o, double x, double y, const char *anchor,
                     const char *cls, const char *s) {
  o_printf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s%s%s>", x, y,
           anchor, cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
  o_esc(o, s);
  o_puts(o, "</text>");
}

/* Grid, ticks and labels of both axes. */
static void p_axes(const plot *p, fmt_fn xf, fmt_fn yf, const char *xt,
                   const char *yt) {
  out *o = p->o;
  fbuf b;
  double v, step;
  o_printf(o,
           "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
           "height=\"%.1f\"/>",
           p->l, p->t, p->w, p->h);
  if (p->xlog) {
    /* decades; with few of them, 2 and 5 times too */
    int minor = p->x1 / p->x0 <= 1000.5;
    for (v = p->x0; v <= p->x1 * 1.0001; v *= 10) {
      static const double mul[] = {1, 2, 5};
      int k;
      for (k = 0; k < (minor ? 3 : 1); k++) {
        double x;
        if (v * mul[k] > p->x1 * 1.0001) {
          break;
        }
        x = px(p, v * mul[k]);
        o_printf(o,
                 "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                 "y2=\"%.1f\"/>",
                 x, p->t, x, p->t + p->h);
        if (k == 0 || p->x1 / p->x0 <= 100.5) {
          svg_text(o, x, p->t + p->h + 14, "middle", "tick",
                   xf(&b, v * mul[k]));
        }
      }
    }
  } else {
    step = nice_step(p->x0, p->x1);
    for (v = ceil(p->x0 / step) * step; v <= p->x1 + step * 1e-9; v += step) {
      double x = px(p, v);
      o_printf(o,
               "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
               "y2=\"%.1f\"/>",
               x, p->t, x, p->t + p->h);
      svg_text(o, x, p->t + p->h + 14, "middle", "tick", xf(&b, v));
    }
  }
  if (p->ylog) {
    for (v = p->y0; v <= p->y1 * 1.0001; v *= 10) {
      double y = py(p, v);
      o_printf(o,
               "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
               "y2=\"%.1f\"/>",
               p->l, y, p->l + p->w, y);
      svg_text(o, p->l - 4, y + 4, "end", "tick", yf(&b, v));
    }
  } else {
    step = nice_step(p->y0, p->y1);
    for (v = ceil(p->y0 / step) * step; v <= p->y1 + step * 1e-9; v += step) {
      double y = py(p, v);
      o_printf(o,
               "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
               "y2=\"%.1f\"/>",
               p->l, y, p->l + p->w, y);
      svg_text(o, p->l - 4, y + 4, "end", "tick", yf(&b, v));
    }
  }
  if (xt) {
    svg_text(o, p->l + p->w / 2, p->t + p->h + 30, "middle", "axis", xt);
  }
  if (yt) {
    o_printf(o,
             "<text class=\"axis\" transform=\"translate(%.1f %.1f) "
             "rotate(-90)\" text-anchor=\"middle\">",
             p->l - 44, p->t + p->h / 2);
    o_esc(o, yt);
    o_puts(o, "</text>");
  }
}

static const char *f_frac(fbuf *b, double v) {
  snprintf(b->s, sizeof(b->s), "%g", v);
  return b->s;
}

typedef struct line {
  const hist *h;
  char label[192];
} line;

static void legend(out *o, double x, double y, const line *ls, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) {
    double yy = y + (double)i * 16;
    o_printf(o,
             "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
             "stroke=\"%s\" stroke-width=\"2.5\"/>",
             x, yy - 4, x + 18, yy - 4, palette[i % NCOLORS]);
    svg_text(o, x + 24, yy, "start", "legend", ls[i].label);
  }
}

/* Cumulative distributions of |n| histograms on a log x axis: the
 * fraction of values at or below each bucket's upper edge. */
static void plot_cdf(out *o, const char *kind, const char *attrs,
                     const char *title, const line *ls, size_t n, fmt_fn xf,
                     const char *xt) {
  plot p;
  double lo = 0, hi = 0, lh;
  size_t i;
  uint32_t j;
  memset(&p, 0, sizeof(p));
  for (i = 0; i < n; i++) {
    const hist *h = ls[i].h;
    double a, b;
    if (h->count == 0) {
      continue;
    }
    a = (double)(h->min > 0 ? h->min : 1);
    b = (double)(h->max > 0 ? h->max : 1) * 1.05;
    lo = lo == 0 || a < lo ? a : lo;
    hi = b > hi ? b : hi;
  }
  if (lo == 0) {
    return;
  }
  p.o = o;
  p.xlog = 1;
  p.x0 = pow(10, floor(log10(lo)));
  p.x1 = pow(10, ceil(log10(hi)));
  if (p.x1 <= p.x0) {
    p.x1 = p.x0 * 10;
  }
  p.y0 = 0;
  p.y1 = 1;
  p.l = 60;
  p.t = 12;
  p.w = 325;
  p.h = 180;
  lh = (double)n * 16 + 8;
  svg_open(o, kind, attrs, 400, p.t + p.h + 44 + lh, title);
  p_axes(&p, xf, f_frac, xt, "fraction \xe2\x89\xa4 x");
  for (i = 0; i < n; i++) {
    const hist *h = ls[i].h;
    uint64_t cum = 0;
    int first = 1;
    if (h->count == 0) {
      continue;
    }
    o_printf(o,
             "<path class=\"d\" fill=\"none\" stroke=\"%s\" "
             "stroke-width=\"2\" d=\"",
             palette[i % NCOLORS]);
    for (j = 0; j < h->n; j++) {
      uint32_t idx = h->lo + j;
      double xe;
      if (h->b[j] == 0) {
        continue;
      }
      if (first) {
        o_printf(o, "M%.1f %.1f", px(&p, (double)h_low(idx)), py(&p, 0));
        first = 0;
      }
      cum += h->b[j];
      xe = (double)(h_low(idx) + h_width(idx));
      o_printf(o, "L%.1f %.1f", px(&p, xe),
               py(&p, (double)cum / (double)h->count));
    }
    o_puts(o, "\"><title>");
    o_esc(o, ls[i].label);
    o_puts(o, "</title></path>");
  }
  legend(o, p.l, p.t + p.h + 50, ls, n);
  o_puts(o, "</svg>\n");
}

/* ------------------------------------------------------------ tables */

static void td_dur(out *o, const char *metric, int64_t v, int have) {
  fbuf b;
  if (!have) {
    o_printf(o, "<td class=\"n\" data-metric=\"%s\">\xe2\x80\x93</td>",
             metric);
    return;
  }
  o_printf(o,
           "<td class=\"n\" data-metric=\"%s\" data-value=\"%" PRId64
           "\">%s</td>",
           metric, v, f_dur(&b, (double)v));
}

static void td_u64(out *o, const char *metric, uint64_t v) {
  o_printf(o,
           "<td class=\"n%s\" data-metric=\"%s\" data-value=\"%" PRIu64
           "\">%" PRIu64 "</td>",
           v ? "" : " z", metric, v, v);
}

static void td_bytes(out *o, const char *metric, uint64_t v) {
  fbuf b;
  o_printf(o,
           "<td class=\"n\" data-metric=\"%s\" data-value=\"%" PRIu64
           "\">%s</td>",
           metric, v, f_bytes(&b, (double)v));
}

static void td_bps(out *o, const char *metric, uint64_t v) {
  fbuf b;
  o_printf(o,
           "<td class=\"n\" data-metric=\"%s\" data-value=\"%" PRIu64
           "\">%s</td>",
           metric, v, f_bps(&b, (double)v));
}

static void td_text(out *o, const char *s) {
  o_puts(o, "<td>");
  o_esc(o, s);
  o_puts(o, "</td>");
}

static void attr(out *o, const char *name, const char *v) {
  o_printf(o, " %s=\"", name);
  o_esc(o, v);
  o_puts(o, "\"");
}

/* Entries of a table by weight, heaviest first. */
typedef struct wsort {
  uint64_t w;
  size_t i;
} wsort;

static int cmp_wsort(const void *a, const void *b) {
  const wsort *x = a, *y = b;
  if (x->w != y->w) {
    return x->w > y->w ? -1 : 1;
  }
  return x->i < y->i ? -1 : x->i > y->i;
}

static uint64_t ioq_weight(const ioq *q) {
  return q->done[0] + q->done[1] + q->timeouts[0] + q->timeouts[1];
}

static wsort *sorted_ioq(const kmap *m) {
  wsort *s = malloc((m->n ? m->n : 1) * sizeof(*s));
  size_t i;
  if (s == NULL) {
    return NULL;
  }
  for (i = 0; i < m->n; i++) {
    s[i].w = ioq_weight(m->vals[i]);
    s[i].i = i;
  }
  qsort(s, m->n, sizeof(*s), cmp_wsort);
  return s;
}

/* ------------------------------------------------------------ page */

static const char css[] =
    "body{font:14px/1.4 system-ui,-apple-system,'Segoe "
    "UI',Roboto,sans-serif;margin:0;color:#1b1f24;background:#f6f7f9}"
    "header{background:#16324f;color:#fff;padding:14px 24px}"
    "header h1{margin:0;font-size:22px}header p{margin:4px 0 0;opacity:.85}"
    "nav{margin-top:8px}nav a{color:#cfe3ff;margin-right:14px}"
    "main{padding:8px 24px 40px;max-width:1500px}"
    "section{background:#fff;border:1px solid #dde1e6;border-radius:6px;"
    "margin:16px 0;padding:4px 18px 14px}"
    "h2{font-size:18px;border-bottom:1px solid #e4e7eb;padding-bottom:4px}"
    "h3{font-size:15px;margin:16px 0 6px}"
    "table{border-collapse:collapse;margin:6px 0 10px;font-size:13px}"
    "th,td{border:1px solid #e1e4e8;padding:2px 7px;text-align:left;"
    "white-space:nowrap}th{background:#eef1f4;cursor:pointer}"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}"
    "td.z{color:#9aa3ad}tr.bad td{background:#fff1f0}"
    ".note{color:#57606a;font-size:12.5px;max-width:1100px}"
    ".method{background:#f3f6fa;border-left:4px solid #16324f;padding:6px "
    "12px;font-size:12.5px;max-width:1100px}"
    ".plots{display:flex;flex-wrap:wrap;gap:12px}"
    ".plots figure{margin:0;border:1px solid #e4e7eb;border-radius:4px;"
    "padding:4px}figcaption{font-size:12.5px;font-weight:600;padding:2px "
    "4px}"
    ".scroll{overflow-x:auto}"
    "svg text{font-size:11px;fill:#24292f}svg text.tick{fill:#57606a}"
    "svg text.axis{font-size:12px}svg text.lbl{font-size:10.5px}"
    "svg .frame{fill:none;stroke:#8c959f}"
    "svg .grid{stroke:#eaeef2}"
    "svg .edge{stroke:#8c959f;stroke-width:2;fill:none}"
    "svg .edge.slow{stroke:#d62728;stroke-width:4}"
    "svg .node{fill:#fff;stroke:#16324f;stroke-width:1.5}"
    "svg .node.obs{fill:#e8f1fb}svg .node.tgt{fill:#fdf3e6}"
    "svg .alarm{stroke-width:1.5;stroke-dasharray:4 3}"
    "svg .alarm.raised{stroke:#d62728}svg .alarm.cleared{stroke:#2ca02c}"
    "svg .lane{stroke:#8c959f;stroke-width:1}";

static const char script[] =
    "(function(){var ts=document.querySelectorAll('table.sort');"
    "for(var t=0;t<ts.length;t++){(function(tb){var hs=tb.tHead?"
    "tb.tHead.rows[0].cells:[];for(var i=0;i<hs.length;i++){(function(th,"
    "c){th.title='sort';th.addEventListener('click',function(){var "
    "b=tb.tBodies[0],rs=Array.prototype.slice.call(b.rows),d=th.getAttribute("
    "'data-dir')==='a'?'d':'a';th.setAttribute('data-dir',d);rs.sort("
    "function(x,y){var p=x.cells[c],q=y.cells[c],k;if(!p||!q)return 0;var "
    "u=p.getAttribute('data-value'),v=q.getAttribute('data-value');if(u!=="
    "null&&v!==null&&u!==''&&v!==''&&!isNaN(u)&&!isNaN(v)){k=Number(u)-"
    "Number(v);}else{k=p.textContent.localeCompare(q.textContent);}return "
    "d==='a'?k:-k;});for(var j=0;j<rs.length;j++)b.appendChild(rs[j]);});})"
    "(hs[i],i);}})(ts[t]);}})();";

static const char *role_name(uint32_t role) {
  switch (role) {
  case RTEL_ROLE_COMPUTE:
    return "compute side";
  case RTEL_ROLE_STORAGE:
    return "storage side";
  case RTEL_ROLE_FABRIC:
    return "fabric";
  default:
    return "unknown";
  }
}

/* The role shown: configured, else seen in segments. */
static uint32_t obs_role(const obsinfo *o, int *inferred) {
  *inferred = 0;
  if (o->role != RTEL_ROLE_UNKNOWN) {
    return o->role;
  }
  *inferred = 1;
  if (o->role_seen == 1) {
    return RTEL_ROLE_COMPUTE;
  }
  if (o->role_seen == 2) {
    return RTEL_ROLE_STORAGE;
  }
  *inferred = 0;
  return RTEL_ROLE_UNKNOWN;
}

static const char *op_name(int d) { return d ? "write" : "read"; }

static void method_box(out *o) {
  o_puts(o,
         "<div class=\"method\"><b>How the figures are computed.</b> Every "
         "figure comes from the library's records "
         "(<i>rtel_flow_record</i>(3), <i>rtel_msg_record</i>(3), "
         "<i>rtel_io_record</i>(3), <i>rtel_segment_record</i>(3)); "
         "definitions in <i>rtel-metrics</i>(7). Percentiles are "
         "nearest-rank (the smallest value with at least ceil(q "
         "\xc3\x97 count) values at or below it), read from a log-linear "
         "histogram exactly as the library's aggregates are "
         "(<i>rtel_io_aggregate</i>(3)): values below 64&nbsp;ns are exact; "
         "above, each power of two has 32 buckets and a percentile is the "
         "midpoint of its bucket, clamped to [min,&nbsp;max], within 1/64 "
         "(1.6&nbsp;%) of the exact value; values are clamped to "
         "[0,&nbsp;2<sup>48</sup>)&nbsp;ns. Min, max, mean and counts are "
         "exact. I/O latency figures (IOL, DAL, DPL) cover completed "
         "NVMe reads and writes (not admin or Fabrics commands), errors "
         "included; timeouts are counted apart. DPL is a write figure. FET "
         "distributions leave out flows and messages of one packet (FCT "
         "0, no FET). Trends bin I/Os by their response time and flows by "
         "their last packet, at each observation point on its own clock "
         "(time 0: its first packet).</div>\n");
}

static void section_overview(report *r, out *o) {
  size_t i, s;
  fbuf b1, b2;
  uint64_t tot[6] = {0, 0, 0, 0, 0, 0}, totf = 0, totm = 0, totr = 0;
  uint64_t raised = 0, cleared = 0;
  const rtel_ctx_stats *st = NULL;
  rtel_ctx_stats sum;
  static const uint32_t states[] = {RTEL_IO_COMPLETE, RTEL_IO_TIMEOUT,
                                    RTEL_IO_ORPHAN, RTEL_IO_TRUNCATED,
                                    RTEL_IO_EVICTED};

  o_puts(o, "<section id=\"overview\"><h2>1. Overview</h2>\n");
  method_box(o);
  /* points */
  o_puts(o, "<h3>Observation points</h3><table id=\"points\"><thead><tr>"
            "<th>point</th><th>role</th><th>first packet</th><th>last "
            "packet</th><th>span</th><th>span of its records</th></tr>"
            "</thead><tbody>\n");
  for (i = 0; i < r->nobs; i++) {
    obsinfo *o2 = &r->obs[i];
    int inf;
    uint32_t role = obs_role(o2, &inf);
    rtel_tstamp a =
        o2->cap_first != RTEL_TSTAMP_NONE ? o2->cap_first : o2->rec_first;
    rtel_tstamp z =
        o2->cap_last != RTEL_TSTAMP_NONE ? o2->cap_last : o2->rec_last;
    o_puts(o, "<tr");
    attr(o, "data-obs", o2->name);
    o_puts(o, ">");
    td_text(o, o2->name);
    o_printf(o, "<td data-metric=\"role\">%s%s</td>", role_name(role),
             inf ? " (from segments)" : "");
    if (a != RTEL_TSTAMP_NONE && z != RTEL_TSTAMP_NONE && z >= a) {
      o_printf(o, "<td>%s</td><td>%s</td>", f_time(&b1, a), f_time(&b2, z));
      td_dur(o, "span_ns", (int64_t)(z - a), 1);
    } else {
      o_puts(o, "<td>\xe2\x80\x93</td><td>\xe2\x80\x93</td><td>\xe2\x80\x93"
                "</td>");
    }
    td_dur(o, "record_span_ns", (int64_t)(o2->rec_last - o2->rec_first),
           o2->rec_first != RTEL_TSTAMP_NONE);
    o_puts(o, "</tr>\n");
  }
  o_puts(o, "</tbody></table>\n");
  if (r->nobs == 0) {
    o_puts(o, "<p class=\"note\">No records.</p>\n");
  }
  /* records */
  o_puts(o, "<h3>Records</h3><table id=\"records\" class=\"sort\"><thead>"
            "<tr><th>point</th><th>flows</th><th>flows with retx</th>"
            "<th>messages</th><th>I/Os complete</th><th>timeout</th>"
            "<th>orphan</th><th>truncated</th><th>evicted</th>"
            "<th>alarms raised</th><th>alarms cleared</th></tr></thead>"
            "<tbody>\n");
  for (i = 0; i <= r->nobs; i++) {
    obsinfo *o2 = i < r->nobs ? &r->obs[i] : NULL;
    uint64_t fr = 0;
    if (o2 == NULL) {
      o_puts(o, "</tbody><tfoot><tr data-obs=\"*\"><td><b>all</b></td>");
      td_u64(o, "flows", totf);
      for (s = 0; s < r->nobs; s++) {
        fr += r->obs[s].flows_retx;
      }
      td_u64(o, "flows_with_retx", fr);
      td_u64(o, "messages", totm);
      for (s = 0; s < 5; s++) {
        o_printf(o,
                 "<td class=\"n\" data-metric=\"ios\" data-state=\"%s\" "
                 "data-value=\"%" PRIu64 "\">%" PRIu64 "</td>",
                 rtel_io_state_str(states[s]), tot[states[s]], tot[states[s]]);
      }
      td_u64(o, "alarms_raised", raised);
      td_u64(o, "alarms_cleared", cleared);
      o_puts(o, "</tr></tfoot>");
      break;
    }
    o_puts(o, "<tr");
    attr(o, "data-obs", o2->name);
    o_puts(o, ">");
    td_text(o, o2->name);
    td_u64(o, "flows", o2->flows);
    td_u64(o, "flows_with_retx", o2->flows_retx);
    td_u64(o, "messages", o2->msgs);
    for (s = 0; s < 5; s++) {
      o_printf(o,
               "<td class=\"n\" data-metric=\"ios\" data-state=\"%s\" "
               "data-value=\"%" PRIu64 "\">%" PRIu64 "</td>",
               rtel_io_state_str(states[s]), o2->ios[states[s]],
               o2->ios[states[s]]);
      tot[states[s]] += o2->ios[states[s]];
    }
    td_u64(o, "alarms_raised", o2->alarms_raised);
    td_u64(o, "alarms_cleared", o2->alarms_cleared);
    o_puts(o, "</tr>\n");
    totf += o2->flows;
    totm += o2->msgs;
    raised += o2->alarms_raised;
    cleared += o2->alarms_cleared;
  }
  o_puts(o, "</table>\n");
  for (i = 0; i < r->nobs; i++) {
    totr += r->obs[i].ios_other_ops;
  }
  o_printf(o,
           "<p class=\"note\">Records read: <span data-metric=\"records\" "
           "data-value=\"%" PRIu64 "\">%" PRIu64 "</span>; I/O records "
           "<span data-metric=\"io_records\" data-value=\"%" PRIu64
           "\">%" PRIu64 "</span> (flushes and other NVMe commands: %" PRIu64
           "); segment records <span data-metric=\"segments\" "
           "data-value=\"%" PRIu64 "\">%" PRIu64 "</span>; library "
           "aggregates %" PRIu64 "; polling slots %" PRIu64 ".</p>\n",
           r->records, r->records, r->ios, r->ios, totr, r->segments,
           r->segments, r->aggs, r->slots);
  if (r->slots) {
    o_printf(o,
             "<p class=\"note\">Polling: %" PRIu64 " slots from %s to %s. "
             "Records whose port was not measured in a slot are missing; "
             "cut ones are <i>truncated</i>.</p>\n",
             r->slots, f_time(&b1, r->slot_first), f_time(&b2, r->slot_last));
  }
  /* what could not be measured */
  memset(&sum, 0, sizeof(sum));
  for (s = 0; s < r->nstats; s++) {
    const uint64_t *a = (const uint64_t *)(const void *)&r->stats[s].st;
    uint64_t *z = (uint64_t *)(void *)&sum;
    size_t k;
    for (k = 0; k < sizeof(sum) / sizeof(uint64_t); k++) {
      z[k] += a[k];
    }
  }
  if (r->nstats) {
    st = &sum;
  }
  o_puts(o, "<h3>What could not be measured</h3>\n");
  if (st == NULL) {
    o_puts(o, "<p class=\"note\">No counters were given "
              "(rtel_ctx_stats).</p>\n");
  } else {
    struct {
      const char *name, *what;
      uint64_t v;
    } rows[] = {
        {"pkts", "frames read", st->pkts},
        {"pkts_roce", "RoCE packets", st->pkts_roce},
        {"pkts_malformed", "malformed frames (not decoded)",
         st->pkts_malformed},
        {"pkts_hdr_truncated", "RoCE packets cut inside the headers",
         st->pkts_hdr_truncated},
        {"pkts_unscheduled", "packets of ports not measured (polling)",
         st->pkts_unscheduled},
        {"icrc_bad", "packets with a bad ICRC", st->icrc_bad},
        {"flows_evicted", "flows evicted (table full)", st->flows_evicted},
        {"flows_untracked_pkts", "data packets of untracked flows",
         st->flows_untracked_pkts},
        {"ctrl_unattributed", "ACKs/NAKs/CNPs not attributed to a flow",
         st->ctrl_unattributed},
        {"pairs_evicted", "QP pairs forgotten (table full)",
         st->pairs_evicted},
        {"msgs_overflow", "messages delivered early (bound hit)",
         st->msgs_overflow},
        {"nvme_queues_evicted", "NVMe-oF queues evicted",
         st->nvme_queues_evicted},
        {"ios_untracked", "commands that found the I/O table full",
         st->ios_untracked},
        {"ios_evicted", "I/Os evicted", st->ios_evicted},
        {"ios_unconfirmed", "I/Os of guessed queues never confirmed",
         st->ios_unconfirmed},
        {"nvme_data_unmatched", "NVMe-oF data matching no I/O",
         st->nvme_data_unmatched},
        {"io_join_unmatched", "completed I/Os without a twin",
         st->io_join_unmatched},
        {"aggregates_dropped", "I/Os not aggregated (table full)",
         st->aggregates_dropped},
        {"alarms_dropped", "records not judged for alarms (table full)",
         st->alarms_dropped},
    };
    int zeros = 0;
    o_puts(o, "<table id=\"unmeasured\"><thead><tr><th>counter</th><th>what"
              "</th><th>count</th></tr></thead><tbody>\n");
    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
      int bad = i >= 2 && rows[i].v != 0;
      if (i >= 2 && rows[i].v == 0) {
        continue;
      }
      o_printf(o, "<tr%s><td>%s</td><td>%s</td>", bad ? " class=\"bad\"" : "",
               rows[i].name, rows[i].what);
      td_u64(o, rows[i].name, rows[i].v);
      o_puts(o, "</tr>\n");
    }
    for (i = 0; i < RTEL_MALFORMED_SLOTS; i++) {
      if (st->malformed[i]) {
        o_puts(o, "<tr class=\"bad\"><td>malformed</td>");
        td_text(o, rtel_malformed_str((uint32_t)i));
        td_u64(o, "malformed_reason", st->malformed[i]);
        o_puts(o, "</tr>\n");
      }
    }
    o_puts(o, "</tbody></table>\n<p class=\"note\">Zero:");
    for (i = 2; i < sizeof(rows) / sizeof(rows[0]); i++) {
      if (rows[i].v == 0) {
        o_printf(o,
                 "%s <span data-metric=\"%s\" data-value=\"0\" "
                 "title=\"%s\">%s</span>",
                 zeros++ ? "," : "", rows[i].name, rows[i].what, rows[i].name);
      }
    }
    o_puts(o, zeros ? ".</p>\n" : " none.</p>\n");
    if (r->nstats > 1) {
      o_printf(o, "<p class=\"note\">The sum of %zu contexts:", r->nstats);
      for (s = 0; s < r->nstats; s++) {
        o_puts(o, s ? ", " : " ");
        o_esc(o, r->stats[s].label);
      }
      o_puts(o, ".</p>\n");
    }
  }
  {
    uint64_t dropped =
        r->obs_dropped + r->segs.dropped + r->ser.dropped + r->fp.dropped;
    int g;
    for (g = 0; g < G_N; g++) {
      dropped += r->q[g].dropped;
    }
    if (dropped || r->oom || r->alarms > r->nalarm) {
      o_printf(o,
               "<p class=\"note\" id=\"report-limits\">This report's own "
               "bounds: %" PRIu64 " records found a table of the report "
               "full (points %" PRIu64 ", hosts %" PRIu64 ", targets %" PRIu64
               ", pairs %" PRIu64 ", segment paths %" PRIu64
               ", trend series %" PRIu64 ", flow pairs %" PRIu64 "), %" PRIu64
               " alarms not kept%s.</p>\n",
               dropped, r->obs_dropped, r->q[G_HOST].dropped,
               r->q[G_TARGET].dropped, r->q[G_PAIR].dropped, r->segs.dropped,
               r->ser.dropped, r->fp.dropped, r->alarms - r->nalarm,
               r->oom ? "; memory ran out: some figures are incomplete" : "");
    }
  }
  o_puts(o, "</section>\n");
}

/* ------------------------------------------------------------ quality */

static void key_attrs(report *r, out *o, int g, const key *k, uint32_t v6) {
  fbuf b;
  o_printf(o, " data-group=\"%s\"",
           g == G_HOST     ? "host"
           : g == G_TARGET ? "target"
           : g == G_PAIR   ? "pair"
                           : "ns");
  attr(o, "data-obs", obs_name(r, k->obs));
  if (g != G_TARGET) {
    attr(o, "data-host", f_addr(&b, (int)v6, k->a));
  }
  if (g != G_HOST) {
    attr(o, "data-target", f_addr(&b, (int)v6, k->b));
  }
  if (g == G_NS) {
    o_printf(o, " data-nsid=\"%" PRIu32 "\"", k->nsid);
  }
}

static void quality_table(report *r, out *o, int g) {
  kmap *m = &r->q[g];
  wsort *ws;
  size_t i, shown = 0;
  static const char *const gname[] = {"host", "storage target",
                                      "host-target pair", "namespace"};
  static const char *const gid[] = {"q-host", "q-target", "q-pair", "q-ns"};
  if (m->n == 0) {
    return;
  }
  ws = sorted_ioq(m);
  if (ws == NULL) {
    r->oom = 1;
    return;
  }
  o_printf(o,
           "<h3>Per %s</h3><div class=\"scroll\"><table id=\"%s\" "
           "class=\"sort\"><thead><tr><th>point</th>",
           gname[g], gid[g]);
  if (g != G_TARGET) {
    o_puts(o, "<th>host</th>");
  }
  if (g != G_HOST) {
    o_puts(o, "<th>target</th>");
  }
  if (g == G_NS) {
    o_puts(o, "<th>nsid</th>");
  }
  o_puts(o, "<th>op</th><th>I/Os</th><th>errors</th><th>timeouts</th>"
            "<th>bytes</th><th>IOL p50</th><th>p90</th><th>p99</th>"
            "<th>p99.9</th><th>max</th><th>mean</th><th>DAL p50</th>"
            "<th>DAL p99</th><th>DPL p50</th><th>DPL p99</th></tr></thead>"
            "<tbody>\n");
  for (i = 0; i < m->n && shown < SHOW_ROWS; i++) {
    const key *k = &m->keys[ws[i].i];
    ioq *q = m->vals[ws[i].i];
    int d;
    fbuf b;
    for (d = 0; d < 2; d++) {
      const hist *iol = &q->h[d][M_IOL], *dal = &q->h[d][M_DAL],
                 *dpl = &q->h[d][M_DPL];
      if (q->done[d] + q->timeouts[d] == 0) {
        continue;
      }
      o_puts(o, "<tr");
      key_attrs(r, o, g, k, q->v6);
      o_printf(o, " data-op=\"%s\">", op_name(d));
      td_text(o, obs_name(r, k->obs));
      if (g != G_TARGET) {
        td_text(o, f_addr(&b, (int)q->v6, k->a));
      }
      if (g != G_HOST) {
        td_text(o, f_addr(&b, (int)q->v6, k->b));
      }
      if (g == G_NS) {
        td_u64(o, "nsid", k->nsid);
      }
      td_text(o, op_name(d));
      td_u64(o, "ios_complete", q->done[d]);
      td_u64(o, "errors", q->errors[d]);
      td_u64(o, "timeouts", q->timeouts[d]);
      td_bytes(o, "bytes", q->bytes[d]);
      td_dur(o, "iol_p50", h_quantile(iol, 0.50), iol->count > 0);
      td_dur(o, "iol_p90", h_quantile(iol, 0.90), iol->count > 0);
      td_dur(o, "iol_p99", h_quantile(iol, 0.99), iol->count > 0);
      td_dur(o, "iol_p999", h_quantile(iol, 0.999), iol->count > 0);
      td_dur(o, "iol_max", iol->max, iol->count > 0);
      td_dur(o, "iol_mean", h_mean(iol), iol->count > 0);
      td_dur(o, "dal_p50", h_quantile(dal, 0.50), dal->count > 0);
      td_dur(o, "dal_p99", h_quantile(dal, 0.99), dal->count > 0);
      td_dur(o, "dpl_p50", h_quantile(dpl, 0.50), dpl->count > 0);
      td_dur(o, "dpl_p99", h_quantile(dpl, 0.99), dpl->count > 0);
      o_puts(o, "</tr>\n");
      shown++;
    }
  }
  o_puts(o, "</tbody></table></div>\n");
  if (i < m->n) {
    o_printf(o,
             "<p class=\"note\">%zu more keys not shown (the %d rows "
             "with the most I/Os are).</p>\n",
             m->n - i, SHOW_ROWS);
  }
  free(ws);
}

/* |s| escaped for an attribute value, into |dst| (cut if too long). */
static const char *esc_buf(char *dst, size_t n, const char *s) {
  size_t e = 0;
  for (; *s && e + 7 < n; s++) {
    if (*s == '"' || *s == '<' || *s == '>' || *s == '&' || *s == '\'') {
      e += (size_t)snprintf(dst + e, n - e, "&#%d;", *s);
    } else {
      dst[e++] = *s;
    }
  }
  dst[e] = '\0';
  return dst;
}

/* One figure: a caption and a CDF plot. */
static void cdf_fig(out *o, const char *kind, const char *attrs,
                    const char *title, const line *ls, size_t n,
                    const char *xt) {
  if (n == 0) {
    return;
  }
  o_puts(o, "<figure><figcaption>");
  o_esc(o, title);
  o_puts(o, "</figcaption>");
  plot_cdf(o, kind, attrs, title, ls, n, f_dur_short, xt);
  o_puts(o, "</figure>\n");
}

/* The latency CDFs of point |obs|: IOL of reads and of writes per host,
 * IOL per target, and the point's DAL and DPL. */
static void quality_cdfs(report *r, out *o, uint32_t obs) {
  line ls[SHOW_LINES];
  hist all[3];
  size_t i, n;
  int d, g;
  fbuf b;
  char title[200], attrs[300], en[160];
  const char *on = obs_name(r, obs);
  wsort *ws[2];
  ws[0] = sorted_ioq(&r->q[G_HOST]);
  ws[1] = sorted_ioq(&r->q[G_TARGET]);
  if (ws[0] == NULL || ws[1] == NULL) {
    free(ws[0]);
    free(ws[1]);
    r->oom = 1;
    return;
  }
  esc_buf(en, sizeof(en), on);
  /* IOL per host, reads then writes */
  for (d = 0; d < 2; d++) {
    kmap *m = &r->q[G_HOST];
    for (i = n = 0; i < m->n && n < SHOW_LINES; i++) {
      const key *k = &m->keys[ws[0][i].i];
      ioq *q = m->vals[ws[0][i].i];
      if (k->obs != obs || q->h[d][M_IOL].count == 0) {
        continue;
      }
      ls[n].h = &q->h[d][M_IOL];
      snprintf(ls[n].label, sizeof(ls[n].label), "%s (%" PRIu64 ")",
               f_addr(&b, (int)q->v6, k->a), ls[n].h->count);
      n++;
    }
    snprintf(title, sizeof(title), "IOL of %ss at %s, per host", op_name(d),
             on);
    snprintf(attrs, sizeof(attrs),
             " data-group=\"host\" data-op=\"%s\" data-obs=\"%s\"", op_name(d),
             en);
    cdf_fig(o, "iol-cdf", attrs, title, ls, n, "IOL (log scale)");
  }
  /* IOL per target, reads and writes */
  {
    kmap *m = &r->q[G_TARGET];
    for (i = n = 0; i < m->n && n + 1 < SHOW_LINES; i++) {
      const key *k = &m->keys[ws[1][i].i];
      ioq *q = m->vals[ws[1][i].i];
      if (k->obs != obs) {
        continue;
      }
      for (d = 0; d < 2; d++) {
        if (q->h[d][M_IOL].count == 0) {
          continue;
        }
        ls[n].h = &q->h[d][M_IOL];
        snprintf(ls[n].label, sizeof(ls[n].label), "%s %ss (%" PRIu64 ")",
                 f_addr(&b, (int)q->v6, k->b), op_name(d), ls[n].h->count);
        n++;
      }
    }
    snprintf(title, sizeof(title), "IOL at %s, per storage target", on);
    snprintf(attrs, sizeof(attrs), " data-group=\"target\" data-obs=\"%s\"",
             en);
    cdf_fig(o, "iol-cdf-target", attrs, title, ls, n, "IOL (log scale)");
  }
  /* DAL of reads and writes, DPL of writes, all hosts of the point */
  memset(all, 0, sizeof(all));
  for (g = 0; g < 3; g++) {
    kmap *m = &r->q[G_HOST];
    int dd = g == 0 ? 0 : 1, mt = g == 2 ? M_DPL : M_DAL;
    for (i = 0; i < m->n; i++) {
      ioq *q = m->vals[i];
      if (m->keys[i].obs == obs && h_merge(&all[g], &q->h[dd][mt]) != 0) {
        r->oom = 1;
      }
    }
  }
  for (g = n = 0; g < 3; g++) {
    static const char *const what[] = {"DAL of reads", "DAL of writes",
                                       "DPL of writes"};
    if (all[g].count == 0) {
      continue;
    }
    ls[n].h = &all[g];
    snprintf(ls[n].label, sizeof(ls[n].label), "%s (%" PRIu64 ")", what[g],
             all[g].count);
    n++;
  }
  snprintf(title, sizeof(title), "DAL and DPL at %s, all hosts", on);
  snprintf(attrs, sizeof(attrs), " data-group=\"point\" data-obs=\"%s\"", en);
  cdf_fig(o, "dal-cdf", attrs, title, ls, n, "latency (log scale)");
  for (g = 0; g < 3; g++) {
    h_free(&all[g]);
  }
  free(ws[0]);
  free(ws[1]);
}

static double seg_mean(const segq *q, int m) {
  return q->n ? q->sum[m] / (double)q->n : 0;
}

/* The compute/network/storage split of IOL per host-target pair. */
static void quality_split(report *r, out *o) {
  kmap *m = &r->segs;
  wsort *ws;
  size_t i, n = 0;
  double maxv = 0, h, y;
  plot p;
  fbuf b1, b2, b3;
  static const char *const cls[] = {"read", "write", "other"};
  static const char *const part[] = {"compute", "network", "storage"};
  static const char *const pcol[] = {"#9467bd", "#1f77b4", "#ff7f0e"};
  if (m->n == 0) {
    return;
  }
  ws = malloc(m->n * sizeof(*ws));
  if (ws == NULL) {
    r->oom = 1;
    return;
  }
  for (i = 0; i < m->n; i++) {
    segq *q = m->vals[i];
    if (m->keys[i].op == C_ALL) {
      continue;
    }
    ws[n].w = q->n;
    ws[n].i = i;
    n++;
    if (seg_mean(q, S_IOL1) > maxv) {
      maxv = seg_mean(q, S_IOL1);
    }
  }
  qsort(ws, n, sizeof(*ws), cmp_wsort);
  if (n > 24) {
    n = 24;
  }
  o_puts(o, "<h3>Where the time goes: compute, network, storage</h3>\n"
            "<p class=\"note\">Each I/O seen at a compute-side and a "
            "storage-side point splits its IOL at the compute side into "
            "compute (DPL at the compute side, writes), network (the round "
            "trip between the points, and for writes the DPL difference) "
            "and storage (the rest) parts that add up to it "
            "(<i>rtel_segment_record</i>(3)). Bars: the mean of each part "
            "(means add up exactly).</p>\n");
  memset(&p, 0, sizeof(p));
  p.o = o;
  p.l = 250;
  p.t = 24;
  p.w = 560;
  h = 26;
  p.h = h * (double)n;
  p.x0 = 0;
  p.x1 = maxv > 0 ? maxv * 1.05 : 1;
  p.y0 = 0;
  p.y1 = 1;
  o_puts(o, "<figure><figcaption>Mean IOL split per host-target pair"
            "</figcaption>");
  svg_open(o, "split", NULL, 900, p.t + p.h + 44,
           "Mean IOL split into compute, network and storage parts");
  {
    size_t k;
    for (k = 0; k < 3; k++) {
      double lx = p.l + (double)k * 110;
      o_printf(o,
               "<rect x=\"%.1f\" y=\"4\" width=\"12\" height=\"12\" "
               "fill=\"%s\"/>",
               lx, pcol[k]);
      svg_text(o, lx + 16, 14, "start", "legend", part[k]);
    }
  }
  for (i = 0; i < n; i++) {
    const key *k = &m->keys[ws[i].i];
    segq *q = m->vals[ws[i].i];
    char lbl[160];
    double x = p.l;
    int s;
    y = p.t + (double)i * h;
    snprintf(lbl, sizeof(lbl), "%s \xe2\x86\x92 %s %s",
             f_addr(&b1, (int)q->v6, k->a), f_addr(&b2, (int)q->v6, k->b),
             cls[k->op]);
    svg_text(o, p.l - 6, y + 16, "end", NULL, lbl);
    for (s = 0; s < 3; s++) {
      double v = seg_mean(q, s), w = v > 0 ? px(&p, v) - p.l : 0;
      o_printf(o,
               "<rect class=\"d\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
               "height=\"%.1f\" fill=\"%s\"><title>",
               x, y + 4, w, h - 8, pcol[s]);
      o_esc(o, lbl);
      o_printf(o, ": %s mean %s (%" PRIu64 " I/Os)</title></rect>", part[s],
               f_dur(&b3, v), q->n);
      x += w;
    }
  }
  p.t += 0;
  {
    double step = nice_step(0, p.x1), v;
    for (v = 0; v <= p.x1; v += step) {
      svg_text(o, px(&p, v), p.t + p.h + 14, "middle", "tick",
               f_dur_short(&b1, v));
    }
    svg_text(o, p.l + p.w / 2, p.t + p.h + 32, "middle", "axis",
             "mean time per I/O");
  }
  o_puts(o, "</svg></figure>\n");
  /* the table */
  o_puts(o, "<div class=\"scroll\"><table id=\"q-split\" class=\"sort\">"
            "<thead><tr><th>compute side</th><th>storage side</th>"
            "<th>host</th><th>target</th><th>op</th><th>I/Os</th>"
            "<th>IOL p50</th><th>IOL p99</th><th>compute mean</th>"
            "<th>p50</th><th>p99</th><th>network mean</th><th>p50</th>"
            "<th>p99</th><th>storage mean</th><th>p50</th><th>p99</th>"
            "<th>RTT p50</th><th>RTT p99</th></tr></thead><tbody>\n");
  for (i = 0; i < n; i++) {
    const key *k = &m->keys[ws[i].i];
    segq *q = m->vals[ws[i].i];
    int s;
    o_puts(o, "<tr data-group=\"split\"");
    attr(o, "data-obs", obs_name(r, k->obs));
    attr(o, "data-host", f_addr(&b1, (int)q->v6, k->a));
    attr(o, "data-target", f_addr(&b1, (int)q->v6, k->b));
    o_printf(o, " data-op=\"%s\">", cls[k->op]);
    td_text(o, obs_name(r, k->obs));
    td_text(o, obs_name(r, k->obs2));
    td_text(o, f_addr(&b1, (int)q->v6, k->a));
    td_text(o, f_addr(&b1, (int)q->v6, k->b));
    td_text(o, cls[k->op]);
    td_u64(o, "segments", q->n);
    td_dur(o, "iol1_p50", h_quantile(&q->h[S_IOL1], 0.5), 1);
    td_dur(o, "iol1_p99", h_quantile(&q->h[S_IOL1], 0.99), 1);
    for (s = 0; s < 3; s++) {
      static const char *const mm[] = {"compute_mean", "network_mean",
                                       "storage_mean"};
      static const char *const m5[] = {"compute_p50", "network_p50",
                                       "storage_p50"};
      static const char *const m9[] = {"compute_p99", "network_p99",
                                       "storage_p99"};
      td_dur(o, mm[s], (int64_t)seg_mean(q, s), 1);
      td_dur(o, m5[s], h_quantile(&q->h[s], 0.5), 1);
      td_dur(o, m9[s], h_quantile(&q->h[s], 0.99), 1);
    }
    td_dur(o, "rtt_p50", h_quantile(&q->h[S_RTT], 0.5), 1);
    td_dur(o, "rtt_p99", h_quantile(&q->h[S_RTT], 0.99), 1);
    o_puts(o, "</tr>\n");
  }
  o_puts(o, "</tbody></table></div>\n");
  free(ws);
}

static void section_quality(report *r, out *o) {
  size_t i;
  int any = r->q[G_PAIR].n > 0;
  o_puts(o, "<section id=\"quality\"><h2>2. I/O quality</h2>\n");
  if (!any) {
    o_puts(o, "<p class=\"note\">No NVMe-oF reads or writes were seen.</p>"
              "</section>\n");
    return;
  }
  o_puts(o, "<p class=\"note\">IOL: command to response; DAL: command to "
            "first data (reads), time the target waits for the host "
            "(writes); DPL: READ REQUEST to first data from the host "
            "(writes). Every figure is per observation point.</p>\n");
  for (i = 0; i < r->nobs; i++) {
    uint32_t id = r->obs[i].id;
    int has = 0;
    size_t k;
    for (k = 0; k < r->q[G_HOST].n; k++) {
      has |= r->q[G_HOST].keys[k].obs == id;
    }
    if (!has) {
      continue;
    }
    o_puts(o, "<h3>Latency distributions at ");
    o_esc(o, r->obs[i].name);
    o_puts(o, "</h3><div class=\"plots\">\n");
    quality_cdfs(r, o, id);
    o_puts(o, "</div>\n");
  }
  quality_table(r, o, G_HOST);
  quality_table(r, o, G_TARGET);
  quality_table(r, o, G_PAIR);
  if (r->opt.per_namespace) {
    quality_table(r, o, G_NS);
  }
  quality_split(r, o);
  o_puts(o, "</section>\n");
}

/* ------------------------------------------------------------ topology */

typedef struct node {
  int kind; /* 0 host, 1 point, 2 target */
  uint32_t obs, v6;
  uint8_t a[16];
  double x, y;
} node;

typedef struct edge {
  int from, to, kind; /* kind: 0 compute, 1 network, 2 storage, 3 IOL,
                         4 flows */
  hist h;
  uint64_t n, up, down;
} edge;

typedef struct topo {
  node nd[2 * SHOW_NODES + MAX_OBS];
  size_t nn, more_hosts, more_targets;
  edge *e;
  size_t ne, cap;
  int oom;
} topo;

static int t_node(topo *t, int kind, uint32_t obs, const uint8_t *a,
                  uint32_t v6) {
  size_t i, count = 0;
  for (i = 0; i < t->nn; i++) {
    node *n = &t->nd[i];
    if (n->kind != kind) {
      continue;
    }
    count++;
    if (kind == 1 ? n->obs == obs : memcmp(n->a, a, 16) == 0) {
      return (int)i;
    }
  }
  if (kind != 1 && count >= SHOW_NODES) {
    if (kind == 0) {
      t->more_hosts++;
    } else {
      t->more_targets++;
    }
    return -1;
  }
  if (t->nn == sizeof(t->nd) / sizeof(t->nd[0])) {
    return -1;
  }
  memset(&t->nd[t->nn], 0, sizeof(t->nd[t->nn]));
  t->nd[t->nn].kind = kind;
  t->nd[t->nn].obs = obs;
  t->nd[t->nn].v6 = v6;
  if (a) {
    memcpy(t->nd[t->nn].a, a, 16);
  }
  return (int)t->nn++;
}

static edge *t_edge(topo *t, int from, int to, int kind) {
  size_t i;
  if (from < 0 || to < 0) {
    return NULL;
  }
  for (i = 0; i < t->ne; i++) {
    if (t->e[i].from == from && t->e[i].to == to && t->e[i].kind == kind) {
      return &t->e[i];
    }
  }
  if (t->ne == t->cap) {
    size_t nc = t->cap ? 2 * t->cap : 32;
    edge *ne = realloc(t->e, nc * sizeof(*ne));
    if (ne == NULL) {
      t->oom = 1;
      return NULL;
    }
    t->e = ne;
    t->cap = nc;
  }
  memset(&t->e[t->ne], 0, sizeof(t->e[t->ne]));
  t->e[t->ne].from = from;
  t->e[t->ne].to = to;
  t->e[t->ne].kind = kind;
  return &t->e[t->ne++];
}

static void t_merge(topo *t, edge *e, const hist *h, uint64_t n) {
  if (e == NULL) {
    return;
  }
  if (h && h_merge(&e->h, h) != 0) {
    t->oom = 1;
  }
  e->n += n;
}

static void section_topology(report *r, out *o) {
  topo t;
  size_t i, col[4] = {0, 0, 0, 0}, ci[4] = {0, 0, 0, 0};
  double W = 1140, H, colx[4] = {80, 400, 720, 1060};
  int slow = -1, nvme = r->q[G_PAIR].n > 0;
  int64_t slowv = -1;
  fbuf b1, b2, b3;
  memset(&t, 0, sizeof(t));
  o_puts(o, "<section id=\"topology\"><h2>3. Topology</h2>\n");
  if (nvme) {
    for (i = 0; i < r->segs.n; i++) {
      const key *k = &r->segs.keys[i];
      segq *q = r->segs.vals[i];
      int h, c, s, g;
      if (k->op != C_ALL) {
        continue;
      }
      h = t_node(&t, 0, 0, k->a, q->v6);
      c = t_node(&t, 1, k->obs, NULL, 0);
      s = t_node(&t, 1, k->obs2, NULL, 0);
      g = t_node(&t, 2, 0, k->b, q->v6);
      t_merge(&t, t_edge(&t, h, c, 0), &q->h[S_COMPUTE], q->n);
      t_merge(&t, t_edge(&t, c, s, 1), &q->h[S_NETWORK], q->n);
      t_merge(&t, t_edge(&t, s, g, 2), &q->h[S_STORAGE], q->n);
    }
    /* pairs a point saw without segments: host -> point -> target,
     * with the IOL there */
    for (i = 0; i < r->q[G_PAIR].n; i++) {
      const key *k = &r->q[G_PAIR].keys[i];
      ioq *q = r->q[G_PAIR].vals[i];
      int h, c, g, d, joined = 0;
      size_t j;
      for (j = 0; j < r->segs.n && !joined; j++) {
        const key *sk = &r->segs.keys[j];
        joined = sk->op == C_ALL &&
                 (sk->obs == k->obs || sk->obs2 == k->obs) &&
                 memcmp(sk->a, k->a, 16) == 0 && memcmp(sk->b, k->b, 16) == 0;
      }
      if (joined) {
        continue;
      }
      c = t_node(&t, 1, k->obs, NULL, 0);
      h = t_node(&t, 0, 0, k->a, q->v6);
      g = t_node(&t, 2, 0, k->b, q->v6);
      for (d = 0; d < 2; d++) {
        t_merge(&t, t_edge(&t, h, c, 3), &q->h[d][M_IOL], 0);
      }
      t_merge(&t, t_edge(&t, h, c, 3), NULL, q->done[0] + q->done[1]);
      {
        /* unless a storage edge joins them already */
        size_t j2;
        int have = 0;
        for (j2 = 0; j2 < t.ne; j2++) {
          have |= t.e[j2].from == c && t.e[j2].to == g;
        }
        if (!have) {
          (void)t_edge(&t, c, g, 5);
        }
      }
    }
  } else {
    for (i = 0; i < r->fp.n; i++) {
      const key *k = &r->fp.keys[i];
      fpair *f = r->fp.vals[i];
      int s = t_node(&t, 0, 0, k->a, f->v6);
      int c = t_node(&t, 1, k->obs, NULL, 0);
      int d = t_node(&t, 2, 0, k->b, f->v6);
      edge *e1 = t_edge(&t, s, c, 4), *e2 = t_edge(&t, c, d, 6);
      t_merge(&t, e1, &f->fct, f->n);
      if (e2) {
        e2->n += f->n;
        e2->up += f->losses_up;
        e2->down += f->losses_down;
      }
    }
  }
  if (t.nn == 0) {
    o_puts(o, "<p class=\"note\">Nothing to draw: no I/Os and no flows."
              "</p></section>\n");
    free(t.e);
    return;
  }
  /* columns: hosts, compute-side points, storage-side points, targets */
  for (i = 0; i < t.nn; i++) {
    node *n = &t.nd[i];
    int c = n->kind == 0 ? 0 : n->kind == 2 ? 3 : 1;
    if (n->kind == 1) {
      obsinfo *oi = obs_find(r, n->obs);
      int inf;
      c = oi && obs_role(oi, &inf) == RTEL_ROLE_STORAGE ? 2 : 1;
    }
    n->x = (double)c;
    col[c]++;
  }
  if (col[2] == 0) {
    colx[1] = 570; /* one column of points: in the middle */
  }
  H = 60;
  for (i = 0; i < 4; i++) {
    double hh = (double)col[i] * (col[i] > 6 ? 46 : 80) + 40;
    H = hh > H ? hh : H;
  }
  for (i = 0; i < t.nn; i++) {
    node *n = &t.nd[i];
    size_t c = (size_t)n->x;
    n->x = colx[c];
    n->y = 40 + (H - 40) * ((double)ci[c] + 0.5) / (double)col[c];
    ci[c]++;
  }
  /* the slowest segment: highest p99 of the latency edges */
  for (i = 0; i < t.ne; i++) {
    edge *e = &t.e[i];
    if (e->kind <= 4 && e->h.count) {
      int64_t v = h_quantile(&e->h, 0.99);
      if (v > slowv) {
        slowv = v;
        slow = (int)i;
      }
    }
  }
  o_puts(o, "<p class=\"note\">Hosts (left), observation points, storage "
            "targets (right). ");
  if (nvme) {
    o_puts(o, "With I/Os joined across two points each edge is one part of "
              "the latency: host \xe2\x86\x92 compute-side point: compute; "
              "between the points: network; storage-side point \xe2\x86\x92 "
              "target: storage (p50 / p99). A point without segments shows "
              "the IOL it measured. ");
  } else {
    o_puts(o, "Edges into a point: FCT p50 / p99 of the flows from that "
              "source; edges out: flows, and loss events located upstream "
              "(\xe2\x86\x91) and downstream (\xe2\x86\x93) of the point. ");
  }
  o_puts(o, "The edge with the highest p99 is drawn in red.</p>\n");
  svg_open(o, "topology", NULL, W, H + 20, "Topology");
  for (i = 0; i < t.ne; i++) {
    edge *e = &t.e[i];
    node *a = &t.nd[e->from], *z = &t.nd[e->to];
    char lbl[128];
    /* labels at the left end, where crossing edges are apart (between
     * two points: in the middle) */
    double x0 = a->x + 50, x1 = z->x - 50;
    int at = e->kind == 1 ? 1 : e->kind == 2 || e->kind == 6 ? 2 : 0;
    double mx = at == 1 ? (x0 + x1) / 2 : at == 2 ? x1 - 8 : x0 + 8;
    double my = a->y + (z->y - a->y) * (mx - x0) / (x1 - x0 > 1 ? x1 - x0 : 1);
    const char *anchor = at == 1 ? "middle" : at == 2 ? "end" : "start";
    static const char *const kn[] = {"compute", "network", "storage", "IOL",
                                     "FCT"};
    lbl[0] = '\0';
    if (e->kind <= 4 && e->h.count) {
      snprintf(lbl, sizeof(lbl), "%s %s / %s", kn[e->kind],
               f_dur(&b1, (double)h_quantile(&e->h, 0.5)),
               f_dur(&b2, (double)h_quantile(&e->h, 0.99)));
    } else if (e->kind == 6) {
      snprintf(lbl, sizeof(lbl),
               "%" PRIu64 " flows \xe2\x86\x91%" PRIu64
               " \xe2\x86\x93%" PRIu64,
               e->n, e->up, e->down);
    }
    o_printf(o,
             "<g class=\"d\" data-edge=\"%s\"><path class=\"edge%s\" "
             "d=\"M%.1f %.1fL%.1f %.1f\"/>",
             e->kind <= 4   ? kn[e->kind]
             : e->kind == 5 ? "path"
                            : "flows",
             (int)i == slow ? " slow" : "", a->x + 50, a->y, z->x - 50, z->y);
    if (lbl[0]) {
      o_printf(o,
               "<text class=\"lbl\" x=\"%.1f\" y=\"%.1f\" "
               "text-anchor=\"%s\" style=\"paint-order:stroke;"
               "stroke:#fff;stroke-width:3px\">",
               mx, my - 5, anchor);
      o_esc(o, lbl);
      o_puts(o, "</text>");
      if (e->kind <= 4) {
        o_printf(o,
                 "<title>%" PRIu64 " values: p50 %s, p99 %s, max %s"
                 "</title>",
                 e->h.count, f_dur(&b1, (double)h_quantile(&e->h, 0.5)),
                 f_dur(&b2, (double)h_quantile(&e->h, 0.99)),
                 f_dur(&b3, (double)e->h.max));
      }
    }
    o_puts(o, "</g>");
  }
  for (i = 0; i < t.nn; i++) {
    node *n = &t.nd[i];
    const char *cls = n->kind == 0   ? "node"
                      : n->kind == 1 ? "node obs"
                                     : "node tgt";
    const char *name =
        n->kind == 1 ? obs_name(r, n->obs) : f_addr(&b1, (int)n->v6, n->a);
    o_printf(o,
             "<g class=\"d\" data-node=\"%s\"><rect class=\"%s\" x=\"%.1f\" "
             "y=\"%.1f\" width=\"100\" height=\"30\" rx=\"6\"/>",
             n->kind == 0   ? "host"
             : n->kind == 1 ? "point"
                            : "target",
             cls, n->x - 50, n->y - 15);
    svg_text(o, n->x, n->y + 4, "middle", NULL, name);
    if (n->kind == 1) {
      obsinfo *oi = obs_find(r, n->obs);
      int inf;
      svg_text(o, n->x, n->y + 27, "middle", "lbl",
               oi ? role_name(obs_role(oi, &inf)) : "");
    }
    o_puts(o, "</g>");
  }
  o_puts(o, "</svg>\n");
  if (t.more_hosts || t.more_targets) {
    o_printf(o,
             "<p class=\"note\">Not drawn: the %s beyond the first %d (the "
             "tables above list them).</p>\n",
             t.more_hosts && t.more_targets ? "hosts and targets"
             : t.more_hosts                 ? "hosts"
                                            : "targets",
             SHOW_NODES);
  }
  if (slow >= 0) {
    edge *e = &t.e[slow];
    static const char *const kn[] = {"compute", "network", "storage", "IOL",
                                     "FCT"};
    o_printf(o,
             "<p>Slowest segment: <b data-metric=\"slowest_segment\" "
             "data-kind=\"%s\" data-value=\"%" PRId64 "\">%s</b> between ",
             kn[e->kind], slowv, kn[e->kind]);
    o_esc(o, t.nd[e->from].kind == 1
                 ? obs_name(r, t.nd[e->from].obs)
                 : f_addr(&b1, (int)t.nd[e->from].v6, t.nd[e->from].a));
    o_puts(o, " and ");
    o_esc(o, t.nd[e->to].kind == 1
                 ? obs_name(r, t.nd[e->to].obs)
                 : f_addr(&b1, (int)t.nd[e->to].v6, t.nd[e->to].a));
    o_printf(o, ", p99 %s.</p>\n", f_dur(&b2, (double)slowv));
  }
  for (i = 0; i < t.ne; i++) {
    h_free(&t.e[i].h);
  }
  free(t.e);
  if (t.oom) {
    r->oom = 1;
  }
  o_puts(o, "</section>\n");
}

/* ------------------------------------------------------------ trends */

/* Vertical marks of the alarms that |match| at point |o| on plot |p|. */
static void alarm_marks(report *r, out *o, const plot *p, const obsinfo *oi,
                        int io, const uint8_t *a, const uint8_t *b) {
  size_t i;
  fbuf b1, b2, b3;
  for (i = 0; i < r->nalarm; i++) {
    const alarm_ent *e = &r->alarm[i];
    double x;
    if (e->obs != oi->id || e->io != (uint32_t)io) {
      continue;
    }
    if (a && e->scope == RTEL_SCOPE_PAIR &&
        (memcmp(e->src, a, 16) != 0 || memcmp(e->dst, b, 16) != 0)) {
      continue;
    }
    x = (double)(int64_t)(e->ts - oi->anchor);
    if (x < p->x0 || x > p->x1) {
      continue;
    }
    x = px(p, x);
    o_printf(o,
             "<line class=\"d alarm %s\" data-alarm=\"%s\" x1=\"%.1f\" "
             "y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"><title>alarm %s: %s %s "
             "(limit %s) at %s</title></line>",
             e->state == RTEL_ALARM_RAISED ? "raised" : "cleared",
             e->state == RTEL_ALARM_RAISED ? "raised" : "cleared", x, p->t, x,
             p->t + p->h, e->state == RTEL_ALARM_RAISED ? "raised" : "cleared",
             rtel_metric_str(e->metric),
             e->metric == RTEL_METRIC_FET   ? f_bps(&b1, e->value)
             : e->metric <= RTEL_METRIC_FCT ? f_dur(&b1, e->value)
                                            : f_plain(&b1, e->value),
             e->metric == RTEL_METRIC_FET   ? f_bps(&b2, e->limit)
             : e->metric <= RTEL_METRIC_FCT ? f_dur(&b2, e->limit)
                                            : f_plain(&b2, e->limit),
             f_ms_short(&b3, (double)(int64_t)(e->ts - oi->anchor)));
  }
}

typedef struct tline {
  int h; /* which histogram of the bins */
  double q;
  const char *color, *dash, *label;
} tline;

/* Most intervals drawn: the stored ones are merged by a power of two. */
#define SHOW_BINS 40

/* The intervals of a series as drawn: from the point's first packet (or
 * its earliest record) to its last, in at most SHOW_BINS intervals. */
typedef struct dbins {
  size_t n;
  int64_t d0; /* index of the first, in units of w */
  double w;   /* ns */
  sbin *b;
} dbins;

static void dbins_free(dbins *d) {
  size_t i;
  for (i = 0; d->b && i < d->n; i++) {
    h_free(&d->b[i].h[0]);
    h_free(&d->b[i].h[1]);
  }
  free(d->b);
  d->b = NULL;
}

static int series_display(report *r, const series *s, const obsinfo *oi,
                          dbins *d) {
  int64_t W = (int64_t)r->width, kstart = oi->kmin < 0 ? oi->kmin : 0;
  int64_t kend = oi->kmax + 1, f = 1, k;
  if (oi->cap_last != RTEL_TSTAMP_NONE && oi->cap_last > oi->anchor) {
    int64_t ke = (int64_t)((oi->cap_last - oi->anchor) / (uint64_t)W) + 1;
    kend = ke > kend ? ke : kend;
  }
  while ((floor_div(kend - 1, f) - floor_div(kstart, f) + 1) > SHOW_BINS) {
    f *= 2;
  }
  memset(d, 0, sizeof(*d));
  d->d0 = floor_div(kstart, f);
  d->n = (size_t)(floor_div(kend - 1, f) - d->d0 + 1);
  d->w = (double)W * (double)f;
  d->b = calloc(d->n, sizeof(*d->b));
  if (d->b == NULL) {
    r->oom = 1;
    return -1;
  }
  for (k = oi->kmin; k <= oi->kmax; k++) {
    const sbin *src = &s->bins[k - oi->kbase];
    sbin *dst = &d->b[floor_div(k, f) - d->d0];
    if (h_merge(&dst->h[0], &src->h[0]) != 0 ||
        h_merge(&dst->h[1], &src->h[1]) != 0) {
      r->oom = 1;
    }
    dst->n += src->n;
    dst->bytes += src->bytes;
  }
  return 0;
}

/* One trend chart of series |s| at point |oi|: the |nl| quantile lines,
 * and the alarms of the point (of I/Os if |io|, of the pair |a|, |b| if
 * given). */
static void trend_chart(report *r, out *o, const series *s, const obsinfo *oi,
                        const char *kind, const char *attrs, const char *title,
                        const tline *tl, size_t nl, fmt_fn yf, const char *yt,
                        int io, const uint8_t *a, const uint8_t *b) {
  plot p;
  dbins db;
  double maxv = 0;
  size_t i, j;
  fbuf b1, b2;
  char cap[96];
  if (series_display(r, s, oi, &db) != 0) {
    return;
  }
  memset(&p, 0, sizeof(p));
  for (j = 0; j < db.n; j++) {
    for (i = 0; i < nl; i++) {
      const hist *h = &db.b[j].h[tl[i].h];
      double v = h->count ? (double)h_quantile(h, tl[i].q) : 0;
      maxv = v > maxv ? v : maxv;
    }
  }
  p.o = o;
  p.l = 70;
  p.t = 12;
  p.w = 520;
  p.h = 190;
  p.x0 = (double)db.d0 * db.w;
  p.x1 = (double)(db.d0 + (int64_t)db.n) * db.w;
  p.y0 = 0;
  p.y1 = maxv > 0 ? maxv * 1.1 : 1;
  svg_open(o, kind, attrs, 610, p.t + p.h + 76, title);
  p_axes(&p, f_dur_short, yf, "time since the point's first packet", yt);
  for (i = 0; i < nl; i++) {
    int pen = 0;
    o_printf(o,
             "<path class=\"d\" fill=\"none\" stroke=\"%s\" "
             "stroke-width=\"2\"%s%s%s d=\"",
             tl[i].color, tl[i].dash ? " stroke-dasharray=\"" : "",
             tl[i].dash ? tl[i].dash : "", tl[i].dash ? "\"" : "");
    for (j = 0; j < db.n; j++) {
      const hist *h = &db.b[j].h[tl[i].h];
      if (h->count == 0) {
        pen = 0;
        continue;
      }
      o_printf(o, "%s%.1f %.1f", pen ? "L" : "M",
               px(&p, ((double)(db.d0 + (int64_t)j) + 0.5) * db.w),
               py(&p, (double)h_quantile(h, tl[i].q)));
      pen = 1;
    }
    o_puts(o, "\"/>");
    for (j = 0; j < db.n; j++) {
      const hist *h = &db.b[j].h[tl[i].h];
      double x = ((double)(db.d0 + (int64_t)j) + 0.5) * db.w;
      if (h->count == 0) {
        continue;
      }
      o_printf(o,
               "<circle class=\"d\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.2\" "
               "fill=\"%s\"><title>%s at %s: %s (%" PRIu64 " values)"
               "</title></circle>",
               px(&p, x), py(&p, (double)h_quantile(h, tl[i].q)), tl[i].color,
               tl[i].label, f_ms_short(&b1, x),
               yf(&b2, (double)h_quantile(h, tl[i].q)), h->count);
    }
  }
  alarm_marks(r, o, &p, oi, io, a, b);
  {
    double lx = p.l, ly = p.t + p.h + 50;
    for (i = 0; i < nl; i++) {
      o_printf(o,
               "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
               "stroke=\"%s\" stroke-width=\"2\"%s%s%s/>",
               lx, ly - 4, lx + 18, ly - 4, tl[i].color,
               tl[i].dash ? " stroke-dasharray=\"" : "",
               tl[i].dash ? tl[i].dash : "", tl[i].dash ? "\"" : "");
      svg_text(o, lx + 22, ly, "start", "legend", tl[i].label);
      lx += 110;
    }
    o_printf(o,
             "<line class=\"alarm raised\" x1=\"%.1f\" y1=\"%.1f\" "
             "x2=\"%.1f\" y2=\"%.1f\"/>",
             p.l + 4, ly + 8, p.l + 4, ly + 20);
    svg_text(o, p.l + 10, ly + 18, "start", "legend", "alarm raised");
    o_printf(o,
             "<line class=\"alarm cleared\" x1=\"%.1f\" y1=\"%.1f\" "
             "x2=\"%.1f\" y2=\"%.1f\"/>",
             p.l + 114, ly + 8, p.l + 114, ly + 20);
    svg_text(o, p.l + 120, ly + 18, "start", "legend", "alarm cleared");
    snprintf(cap, sizeof(cap), "interval %s", f_dur(&b1, db.w));
    svg_text(o, p.l + p.w, ly + 18, "end", "legend", cap);
  }
  o_puts(o, "</svg>\n");
  dbins_free(&db);
}

typedef struct srank {
  series *s;
  int64_t p99; /* the worst IOL p99 of the pair, reads or writes */
} srank;

static int cmp_series(const void *a, const void *b) {
  const srank *u = a, *v = b;
  const series *x = u->s, *y = v->s;
  if (u->p99 != v->p99) {
    return u->p99 > v->p99 ? -1 : 1;
  }
  if (x->n != y->n) {
    return x->n > y->n ? -1 : 1;
  }
  if (x->obs != y->obs) {
    return x->obs < y->obs ? -1 : 1;
  }
  return memcmp(x->a, y->a, 32);
}

static void section_trends(report *r, out *o) {
  size_t i, n;
  srank *ss;
  fbuf b1, b2, b3;
  static const tline io_lines[] = {
      {0, 0.50, "#1f77b4", NULL, "read p50"},
      {0, 0.99, "#1f77b4", "5 3", "read p99"},
      {1, 0.50, "#ff7f0e", NULL, "write p50"},
      {1, 0.99, "#ff7f0e", "5 3", "write p99"},
  };
  static const tline fet_lines[] = {
      {0, 0.50, "#2ca02c", NULL, "FET p50"},
      {0, 0.10, "#d62728", "5 3", "FET p10"},
  };
  o_puts(o, "<section id=\"trends\"><h2>4. Trends</h2>\n");
  o_printf(o,
           "<p class=\"note\">The report keeps %d intervals of <span "
           "data-metric=\"interval_ns\" data-value=\"%" PRIu64 "\">%s</span> "
           "(doubled as the run grew) and draws at most %d, merged by a "
           "power of two. Time 0 is each point's first packet, on its own "
           "clock.</p>\n",
           REPORT_BINS, r->width, f_dur(&b1, (double)r->width), SHOW_BINS);
  ss = malloc((r->ser.n ? r->ser.n : 1) * sizeof(*ss));
  if (ss == NULL) {
    r->oom = 1;
    o_puts(o, "</section>\n");
    return;
  }
  for (i = 0; i < r->ser.n; i++) {
    key k;
    ioq *q;
    int bad = 0;
    ss[i].s = r->ser.vals[i];
    ss[i].p99 = 0;
    memset(&k, 0, sizeof(k));
    k.obs = ss[i].s->obs;
    memcpy(k.a, ss[i].s->a, 16);
    memcpy(k.b, ss[i].s->b, 16);
    q = km_get(&r->q[G_PAIR], &k, 0, &bad);
    if (q) {
      int64_t p0 = h_quantile(&q->h[0][M_IOL], 0.99),
              p1 = h_quantile(&q->h[1][M_IOL], 0.99);
      ss[i].p99 = p0 > p1 ? p0 : p1;
    }
  }
  qsort(ss, r->ser.n, sizeof(*ss), cmp_series);
  n = r->ser.n < SHOW_TRENDS ? r->ser.n : SHOW_TRENDS;
  if (n) {
    o_puts(o, "<h3>IOL per interval, per host-target pair</h3>"
              "<p class=\"note\">The pairs with the highest IOL p99 "
              "first.</p><div class=\"plots\">\n");
  }
  for (i = 0; i < n; i++) {
    series *s = ss[i].s;
    obsinfo *oi = obs_find(r, s->obs);
    char title[200], attrs[400], e1[160], e2[64], e3[64];
    if (oi == NULL || s->bins == NULL) {
      continue;
    }
    snprintf(title, sizeof(title), "IOL at %s: %s \xe2\x86\x92 %s", oi->name,
             f_addr(&b1, (int)s->v6, s->a), f_addr(&b2, (int)s->v6, s->b));
    snprintf(attrs, sizeof(attrs),
             " data-obs=\"%s\" data-host=\"%s\" data-target=\"%s\"",
             esc_buf(e1, sizeof(e1), oi->name),
             esc_buf(e2, sizeof(e2), f_addr(&b1, (int)s->v6, s->a)),
             esc_buf(e3, sizeof(e3), f_addr(&b3, (int)s->v6, s->b)));
    o_puts(o, "<figure><figcaption>");
    o_esc(o, title);
    o_puts(o, "</figcaption>");
    trend_chart(r, o, s, oi, "trend-iol", attrs, title, io_lines, 4,
                f_dur_short, "IOL", 1, s->a, s->b);
    o_puts(o, "</figure>\n");
  }
  if (n) {
    o_puts(o, "</div>\n");
  }
  if (r->ser.n > n) {
    o_printf(o, "<p class=\"note\">%zu more pairs not drawn.</p>\n",
             r->ser.n - n);
  }
  free(ss);
  if (r->flows || r->msgs) {
    o_puts(o, "<h3>FET per interval</h3><p class=\"note\">Messages by "
              "their last packet (flows when there are no message "
              "records: a flow ends at its idle timeout or at the end of "
              "the capture).</p><div class=\"plots\">\n");
    for (i = 0; i < r->nobs; i++) {
      obsinfo *oi = &r->obs[i];
      const series *fs = oi->msgs ? &oi->fetm : &oi->fet;
      char title[160], attrs[200], e1[160];
      if (fs->bins == NULL) {
        continue;
      }
      snprintf(title, sizeof(title), "FET of %s at %s",
               oi->msgs ? "messages" : "flows", oi->name);
      snprintf(attrs, sizeof(attrs), " data-obs=\"%s\" data-of=\"%s\"",
               esc_buf(e1, sizeof(e1), oi->name),
               oi->msgs ? "messages" : "flows");
      o_puts(o, "<figure><figcaption>");
      o_esc(o, title);
      o_puts(o, "</figcaption>");
      trend_chart(r, o, fs, oi, "trend-fet", attrs, title, fet_lines, 2,
                  f_bps_short, "FET (bit/s)", 0, NULL, NULL);
      o_puts(o, "</figure>\n");
    }
    o_puts(o, "</div>\n");
  }
  if (r->nalarm) {
    o_puts(o, "<h3>Alarms</h3><div class=\"scroll\"><table id=\"alarms\" "
              "class=\"sort\"><thead><tr><th>point</th><th>time</th>"
              "<th>state</th><th>metric</th><th>kind</th><th>scope</th>"
              "<th>source / host</th><th>destination / target</th>"
              "<th>value</th><th>limit</th></tr></thead><tbody>\n");
    for (i = 0; i < r->nalarm && i < SHOW_ALARMS; i++) {
      const alarm_ent *e = &r->alarm[i];
      obsinfo *oi = obs_find(r, e->obs);
      int t = e->metric == RTEL_METRIC_FET   ? 2
              : e->metric <= RTEL_METRIC_FCT ? 1
                                             : 0;
      o_printf(o, "<tr data-state=\"%s\">",
               e->state == RTEL_ALARM_RAISED ? "raised" : "cleared");
      td_text(o, oi ? oi->name : "?");
      o_printf(o, "<td data-value=\"%" PRIu64 "\">%s</td>", e->ts,
               f_time(&b1, e->ts));
      td_text(o, e->state == RTEL_ALARM_RAISED ? "raised" : "cleared");
      td_text(o, rtel_metric_str(e->metric));
      td_text(o, e->kind == RTEL_ALARM_BASELINE ? "baseline" : "threshold");
      td_text(o, e->scope == RTEL_SCOPE_PORT ? "port" : "pair");
      td_text(o, e->scope == RTEL_SCOPE_PAIR ? f_addr(&b1, (int)e->v6, e->src)
                                             : "");
      td_text(o, e->scope == RTEL_SCOPE_PAIR ? f_addr(&b1, (int)e->v6, e->dst)
                                             : "");
      td_text(o, t == 2   ? f_bps(&b2, e->value)
                 : t == 1 ? f_dur(&b2, e->value)
                          : f_plain(&b2, e->value));
      td_text(o, t == 2   ? f_bps(&b3, e->limit)
                 : t == 1 ? f_dur(&b3, e->limit)
                          : f_plain(&b3, e->limit));
      o_puts(o, "</tr>\n");
    }
    o_puts(o, "</tbody></table></div>\n");
    if (r->alarms > SHOW_ALARMS) {
      o_printf(o,
               "<p class=\"note\">%" PRIu64 " alarm events in all; the "
               "first %d are listed.</p>\n",
               r->alarms, SHOW_ALARMS);
    }
  }
  if (r->nagg) {
    size_t first = r->aggs > MAX_AGGS ? (size_t)(r->aggs % MAX_AGGS) : 0;
    o_puts(o, "<h3>The library's period aggregates</h3><p class=\"note\">"
              "As delivered by <i>on_io_aggregate</i> "
              "(<i>rtel_io_aggregate</i>(3)), per reporting period; the "
              "same percentile method as the tables above.</p>"
              "<div class=\"scroll\"><table id=\"aggregates\" "
              "class=\"sort\"><thead><tr><th>point</th><th>host</th>"
              "<th>target</th><th>nsid</th><th>op</th><th>period start</th>"
              "<th>period</th><th>I/Os</th><th>errors</th><th>timeouts</th>"
              "<th>IOL p50</th><th>p90</th><th>p99</th><th>p99.9</th>"
              "<th>max</th></tr></thead><tbody>\n");
    for (i = 0; i < r->nagg; i++) {
      const rtel_io_aggregate *g = &r->agg[(first + i) % MAX_AGGS];
      int v6 = (g->flags & RTEL_IO_F_IPV6) != 0;
      o_puts(o, "<tr data-group=\"aggregate\"");
      attr(o, "data-obs", obs_name(r, g->obs));
      attr(o, "data-host", f_addr(&b1, v6, g->host));
      attr(o, "data-target", f_addr(&b1, v6, g->target));
      o_printf(o, " data-op=\"%s\">",
               g->opcode == RTEL_NVME_OP_WRITE ? "write" : "read");
      td_text(o, obs_name(r, g->obs));
      td_text(o, f_addr(&b1, v6, g->host));
      td_text(o, f_addr(&b1, v6, g->target));
      if (g->nsid == RTEL_NSID_ALL) {
        td_text(o, "all");
      } else {
        td_u64(o, "nsid", g->nsid);
      }
      td_text(o, g->opcode == RTEL_NVME_OP_WRITE ? "write" : "read");
      td_text(o, f_time(&b1, g->period_start));
      td_dur(o, "period_ns", (int64_t)(g->period_end - g->period_start), 1);
      td_u64(o, "count", g->count);
      td_u64(o, "errors", g->errors);
      td_u64(o, "timeouts", g->timeouts);
      td_dur(o, "iol_p50", g->iol.p50, g->iol.count > 0);
      td_dur(o, "iol_p90", g->iol.p90, g->iol.count > 0);
      td_dur(o, "iol_p99", g->iol.p99, g->iol.count > 0);
      td_dur(o, "iol_p999", g->iol.p999, g->iol.count > 0);
      td_dur(o, "iol_max", g->iol.max, g->iol.count > 0);
      o_puts(o, "</tr>\n");
    }
    o_puts(o, "</tbody></table></div>\n");
    if (r->aggs > MAX_AGGS) {
      o_printf(o,
               "<p class=\"note\">%" PRIu64 " aggregates in all; the "
               "latest %d are listed.</p>\n",
               r->aggs, MAX_AGGS);
    }
  }
  o_puts(o, "</section>\n");
}

/* ------------------------------------------------------------ throughput */

static void flow_attrs(report *r, out *o, const rtel_flow_record *f) {
  fbuf b;
  int v6 = (f->flags & RTEL_FLOW_F_IPV6) != 0;
  attr(o, "data-obs", obs_name(r, f->obs));
  attr(o, "data-src", f_addr(&b, v6, f->src));
  attr(o, "data-dst", f_addr(&b, v6, f->dst));
  o_printf(o, " data-dqpn=\"%" PRIu32 "\" data-first-ts=\"%" PRIu64 "\"",
           f->dqpn, f->first_ts);
}

static void flow_table(report *r, out *o, const char *id, const heap *hp,
                       const char *rankname) {
  hent *s = heap_sorted(hp);
  size_t i;
  fbuf b;
  if (s == NULL) {
    r->oom = 1;
    return;
  }
  o_printf(o,
           "<div class=\"scroll\"><table id=\"%s\" class=\"sort\"><thead><tr>"
           "<th>#</th><th>point</th><th>source</th><th>destination</th>"
           "<th>dest QP</th><th>op</th><th>end</th><th>FCT</th><th>FET</th>"
           "<th>bytes</th><th>packets</th><th>retx packets</th>"
           "<th>retx ratio</th><th>NAKs seq</th><th>RNR</th><th>CNPs</th>"
           "<th>ECN-CE</th><th>losses up</th><th>losses down</th>"
           "<th>lost up</th><th>%s</th></tr></thead><tbody>\n",
           id, rankname);
  for (i = 0; i < hp->n; i++) {
    const rtel_flow_record *f = s[i].p;
    int v6 = (f->flags & RTEL_FLOW_F_IPV6) != 0;
    static const char *const ops[8] = {
        "none",      "send",           "write",           "send+write",
        "read_resp", "send+read_resp", "write+read_resp", "all"};
    o_puts(o, "<tr data-flow=\"1\"");
    flow_attrs(r, o, f);
    o_puts(o, ">");
    td_u64(o, "rank", i + 1);
    td_text(o, obs_name(r, f->obs));
    td_text(o, f_addr(&b, v6, f->src));
    td_text(o, f_addr(&b, v6, f->dst));
    td_u64(o, "dqpn", f->dqpn);
    td_text(o, ops[f->ops & 7]);
    td_text(o, rtel_end_str(f->end));
    td_dur(o, "fct_ns", (int64_t)f->fct, 1);
    if (f->fct > 0) {
      td_bps(o, "fet_bps", f->fet_bps);
    } else {
      td_dur(o, "fet_bps", 0, 0);
    }
    td_bytes(o, "bytes", f->bytes);
    td_u64(o, "packets", f->packets);
    td_u64(o, "retx_packets", f->retx_packets);
    o_printf(o,
             "<td class=\"n\" data-metric=\"retx_ratio\" "
             "data-value=\"%.6g\">%.3g&nbsp;%%</td>",
             f->retx_ratio, f->retx_ratio * 100);
    td_u64(o, "naks_seq", f->naks_seq);
    td_u64(o, "naks_rnr", f->naks_rnr);
    td_u64(o, "cnps", f->cnps);
    td_u64(o, "ecn_ce", f->ecn_ce);
    td_u64(o, "losses_upstream", f->losses_upstream);
    td_u64(o, "losses_downstream", f->losses_downstream);
    td_u64(o, "lost_upstream", f->lost_upstream);
    o_printf(o, "<td class=\"n\">%" PRId64 "</td>", s[i].rank);
    o_puts(o, "</tr>\n");
  }
  o_puts(o, "</tbody></table></div>\n");
  free(s);
}

/* Grouped bars of loss events per point. */
static void losses_plot(report *r, out *o) {
  plot p;
  size_t i, n = 0;
  double maxv = 0, gw;
  fbuf b;
  for (i = 0; i < r->nobs; i++) {
    obsinfo *oi = &r->obs[i];
    if (oi->flows == 0) {
      continue;
    }
    n++;
    maxv = (double)oi->losses_up > maxv ? (double)oi->losses_up : maxv;
    maxv = (double)oi->losses_down > maxv ? (double)oi->losses_down : maxv;
    maxv = (double)oi->lost_up > maxv ? (double)oi->lost_up : maxv;
  }
  if (n == 0) {
    return;
  }
  if (maxv == 0) {
    o_puts(o, "<p class=\"note\">No loss event was located at any "
              "point.</p>\n");
    return;
  }
  memset(&p, 0, sizeof(p));
  p.o = o;
  p.l = 60;
  p.t = 24;
  p.w = 90 * (double)n + 40;
  p.h = 160;
  p.x0 = 0;
  p.x1 = 1;
  p.y0 = 0;
  p.y1 = maxv > 0 ? maxv * 1.15 : 1;
  o_puts(o, "<figure><figcaption>Loss events per observation point"
            "</figcaption>");
  svg_open(o, "losses", NULL, p.l + p.w + 20 > 480 ? p.l + p.w + 20 : 480,
           p.t + p.h + 40,
           "Loss events located upstream and downstream of each point");
  {
    double step = nice_step(0, p.y1), v;
    if (step < 1) {
      step = 1;
    }
    o_printf(o,
             "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
             "height=\"%.1f\"/>",
             p.l, p.t, p.w, p.h);
    for (v = 0; v <= p.y1; v += step) {
      svg_text(o, p.l - 4, py(&p, v) + 4, "end", "tick", f_plain(&b, v));
    }
  }
  o_printf(o,
           "<rect x=\"%.1f\" y=\"4\" width=\"12\" height=\"12\" "
           "fill=\"#1f77b4\"/>",
           p.l);
  svg_text(o, p.l + 16, 14, "start", "legend", "upstream events");
  o_printf(o,
           "<rect x=\"%.1f\" y=\"4\" width=\"12\" height=\"12\" "
           "fill=\"#ff7f0e\"/>",
           p.l + 130);
  svg_text(o, p.l + 146, 14, "start", "legend", "downstream events");
  o_printf(o,
           "<rect x=\"%.1f\" y=\"4\" width=\"12\" height=\"12\" "
           "fill=\"#8c564b\"/>",
           p.l + 280);
  svg_text(o, p.l + 296, 14, "start", "legend", "packets lost upstream");
  gw = 90;
  n = 0;
  for (i = 0; i < r->nobs; i++) {
    obsinfo *oi = &r->obs[i];
    double x = p.l + 20 + gw * (double)n, v[3];
    static const char *const col[] = {"#1f77b4", "#ff7f0e", "#8c564b"};
    static const char *const what[] = {"upstream loss events",
                                       "downstream loss events",
                                       "packets lost upstream"};
    int k;
    if (oi->flows == 0) {
      continue;
    }
    v[0] = (double)oi->losses_up;
    v[1] = (double)oi->losses_down;
    v[2] = (double)oi->lost_up;
    for (k = 0; k < 3; k++) {
      double y = py(&p, v[k]);
      o_printf(o,
               "<rect class=\"d\" x=\"%.1f\" y=\"%.1f\" width=\"18\" "
               "height=\"%.1f\" fill=\"%s\"><title>",
               x + 20 * k, y, p.t + p.h - y, col[k]);
      o_esc(o, oi->name);
      o_printf(o, ": %.0f %s</title></rect>", v[k], what[k]);
    }
    svg_text(o, x + 30, p.t + p.h + 16, "middle", NULL, oi->name);
    n++;
  }
  o_puts(o, "</svg></figure>\n");
}

static void section_throughput(report *r, out *o) {
  size_t i, n;
  line ls[SHOW_LINES];
  o_puts(o, "<section id=\"throughput\"><h2>5. Throughput</h2>\n");
  if (r->flows == 0 && r->msgs == 0) {
    o_puts(o, "<p class=\"note\">No flow or message records.</p>"
              "</section>\n");
    return;
  }
  o_puts(o, "<p class=\"note\">FCT: first to last data packet; FET: the "
            "bits the new data packets occupied on the wire over the FCT "
            "(<i>rtel_flow_record</i>(3)). Lines per observation point, for "
            "flows and for messages.</p><div class=\"plots\">\n");
  for (i = n = 0; i < r->nobs && n + 1 < SHOW_LINES; i++) {
    obsinfo *oi = &r->obs[i];
    if (oi->fct_flow.count) {
      ls[n].h = &oi->fct_flow;
      snprintf(ls[n].label, sizeof(ls[n].label), "flows at %s (%" PRIu64 ")",
               oi->name, oi->fct_flow.count);
      n++;
    }
    if (oi->fct_msg.count) {
      ls[n].h = &oi->fct_msg;
      snprintf(ls[n].label, sizeof(ls[n].label),
               "messages at %s (%" PRIu64 ")", oi->name, oi->fct_msg.count);
      n++;
    }
  }
  if (n) {
    o_puts(o, "<figure><figcaption>FCT of flows and messages</figcaption>");
    plot_cdf(o, "fct-cdf", NULL, "FCT of flows and messages", ls, n,
             f_dur_short, "FCT (log scale)");
    o_puts(o, "</figure>\n");
  }
  for (i = n = 0; i < r->nobs && n + 1 < SHOW_LINES; i++) {
    obsinfo *oi = &r->obs[i];
    if (oi->fet_flow.count) {
      ls[n].h = &oi->fet_flow;
      snprintf(ls[n].label, sizeof(ls[n].label), "flows at %s (%" PRIu64 ")",
               oi->name, oi->fet_flow.count);
      n++;
    }
    if (oi->fet_msg.count) {
      ls[n].h = &oi->fet_msg;
      snprintf(ls[n].label, sizeof(ls[n].label),
               "messages at %s (%" PRIu64 ")", oi->name, oi->fet_msg.count);
      n++;
    }
  }
  if (n) {
    o_puts(o, "<figure><figcaption>FET of flows and messages</figcaption>");
    plot_cdf(o, "fet-cdf", NULL, "FET of flows and messages", ls, n,
             f_bps_short, "FET, bit/s (log scale)");
    o_puts(o, "</figure>\n");
  }
  losses_plot(r, o);
  o_puts(o, "</div>\n");
  o_puts(o, "<h3>Per observation point</h3><div class=\"scroll\"><table "
            "id=\"t-points\" class=\"sort\"><thead><tr><th>point</th>"
            "<th>flows</th><th>with retx</th><th>bytes</th><th>packets</th>"
            "<th>retx packets</th><th>after NAK</th><th>after RNR</th>"
            "<th>after timeout</th><th>NAKs seq</th><th>RNR</th>"
            "<th>fatal</th><th>CNPs</th><th>ECN-CE</th><th>FECN</th>"
            "<th>BECN</th><th>loss events up</th><th>down</th><th>lost "
            "up</th><th>PSN gaps</th><th>orphans</th><th>messages</th>"
            "<th>with retx</th><th>incomplete</th><th>FCT p50</th>"
            "<th>FCT p99</th><th>FET p50</th></tr></thead><tbody>\n");
  for (i = 0; i < r->nobs; i++) {
    obsinfo *oi = &r->obs[i];
    if (oi->flows == 0 && oi->msgs == 0) {
      continue;
    }
    o_puts(o, "<tr");
    attr(o, "data-obs", oi->name);
    o_puts(o, ">");
    td_text(o, oi->name);
    td_u64(o, "flows", oi->flows);
    td_u64(o, "flows_with_retx", oi->flows_retx);
    td_bytes(o, "bytes", oi->flow_bytes);
    td_u64(o, "packets", oi->flow_pkts);
    td_u64(o, "retx_packets", oi->retx_pkts);
    td_u64(o, "retx_after_nak", oi->retx_nak);
    td_u64(o, "retx_after_rnr", oi->retx_rnr);
    td_u64(o, "retx_after_timeout", oi->retx_timeout);
    td_u64(o, "naks_seq", oi->naks_seq);
    td_u64(o, "naks_rnr", oi->naks_rnr);
    td_u64(o, "naks_fatal", oi->naks_fatal);
    td_u64(o, "cnps", oi->cnps);
    td_u64(o, "ecn_ce", oi->ecn_ce);
    td_u64(o, "fecn", oi->fecn);
    td_u64(o, "becn", oi->becn);
    td_u64(o, "losses_upstream", oi->losses_up);
    td_u64(o, "losses_downstream", oi->losses_down);
    td_u64(o, "lost_upstream", oi->lost_up);
    td_u64(o, "psn_gaps", oi->psn_gaps);
    td_u64(o, "orphan_packets", oi->orphans);
    td_u64(o, "messages", oi->msgs);
    td_u64(o, "messages_with_retx", oi->msgs_retx);
    td_u64(o, "messages_incomplete", oi->msgs_incomplete);
    td_dur(o, "fct_p50", h_quantile(&oi->fct_flow, 0.5),
           oi->fct_flow.count > 0);
    td_dur(o, "fct_p99", h_quantile(&oi->fct_flow, 0.99),
           oi->fct_flow.count > 0);
    if (oi->fet_flow.count) {
      td_bps(o, "fet_p50", (uint64_t)h_quantile(&oi->fet_flow, 0.5));
    } else {
      td_dur(o, "fet_p50", 0, 0);
    }
    o_puts(o, "</tr>\n");
  }
  o_puts(o, "</tbody></table></div>\n");
  {
    uint64_t fr = 0;
    for (i = 0; i < r->nobs; i++) {
      fr += r->obs[i].flows_retx;
    }
    o_printf(o,
             "<h3>Flows with retransmissions, ranked by retransmitted "
             "packets</h3><p class=\"note\"><span "
             "data-metric=\"flows_with_retx\" data-obs=\"*\" "
             "data-value=\"%" PRIu64 "\">%" PRIu64 "</span> of %" PRIu64
             " flows had retransmissions; the top %zu are listed.</p>\n",
             fr, fr, r->flows, r->opt.top_n);
    if (r->retx.n) {
      flow_table(r, o, "retx-flows", &r->retx, "retx (rank)");
    }
  }
  o_puts(o, "</section>\n");
}

/* ------------------------------------------------------------ details */

/* Event marks of record |io| on a lane at |y| starting at x |x0|. */
static void io_lane(out *o, const rtel_io_record *io, const char *obs,
                    double x0, double scale, double y) {
  fbuf b1;
  double xr = x0 + (double)io->iol * scale;
  struct {
    rtel_tstamp t;
    const char *name, *shape;
  } ev[5];
  int n = 0, i;
  int write = io->opcode == RTEL_NVME_OP_WRITE;
  o_printf(o,
           "<line class=\"lane\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
           "y2=\"%.1f\"/>",
           x0, y, xr, y);
  if (io->t_data_first != RTEL_TSTAMP_NONE &&
      io->t_data_last != RTEL_TSTAMP_NONE && io->t_data_last >= io->t_cmd) {
    double a = x0 + (double)(int64_t)(io->t_data_first - io->t_cmd) * scale;
    double z = x0 + (double)(int64_t)(io->t_data_last - io->t_cmd) * scale;
    o_printf(o,
             "<rect class=\"d\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
             "height=\"8\" fill=\"%s\"><title>",
             a, y - 4, z - a > 1 ? z - a : 1, write ? "#ff7f0e" : "#1f77b4");
    o_esc(o, obs);
    o_printf(
        o, ": data %s (%s)</title></rect>",
        write ? "P1..Pn (from the host)" : "D1..Dn (to the host)",
        f_dur(&b1, (double)(int64_t)(io->t_data_last - io->t_data_first)));
  }
  ev[n].t = io->t_cmd;
  ev[n].name = "C command";
  ev[n++].shape = "c";
  if (io->t_rdreq != RTEL_TSTAMP_NONE) {
    ev[n].t = io->t_rdreq;
    ev[n].name = "Q first READ REQUEST";
    ev[n++].shape = "d";
  }
  if (io->t_data_first != RTEL_TSTAMP_NONE) {
    ev[n].t = io->t_data_first;
    ev[n].name = write ? "P1 first data from the host" : "D1 first data";
    ev[n++].shape = "s";
  }
  if (io->t_data_last != RTEL_TSTAMP_NONE) {
    ev[n].t = io->t_data_last;
    ev[n].name = write ? "Pn last data from the host" : "Dn last data";
    ev[n++].shape = "s";
  }
  ev[n].t = io->t_rsp;
  ev[n].name = "R response";
  ev[n++].shape = "t";
  for (i = 0; i < n; i++) {
    double x = x0 + (double)(int64_t)(ev[i].t - io->t_cmd) * scale;
    if (ev[i].shape[0] == 'c') {
      o_printf(o,
               "<circle class=\"d\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
               "fill=\"#16324f\">",
               x, y);
    } else if (ev[i].shape[0] == 'd') {
      o_printf(o,
               "<path class=\"d\" d=\"M%.1f %.1fl4 5l-4 5l-4 -5z\" "
               "fill=\"#9467bd\">",
               x, y - 5);
    } else if (ev[i].shape[0] == 's') {
      o_printf(o,
               "<rect class=\"d\" x=\"%.1f\" y=\"%.1f\" width=\"2\" "
               "height=\"12\" fill=\"#24292f\">",
               x - 1, y - 6);
    } else {
      o_printf(o,
               "<path class=\"d\" d=\"M%.1f %.1fl-7 -5v10z\" "
               "fill=\"#d62728\">",
               x, y);
    }
    o_puts(o, "<title>");
    o_esc(o, obs);
    o_printf(o, ": %s at +%s</title>", ev[i].name,
             f_dur(&b1, (double)(int64_t)(ev[i].t - io->t_cmd)));
    o_puts(o, ev[i].shape[0] == 'c'   ? "</circle>"
              : ev[i].shape[0] == 's' ? "</rect>"
                                      : "</path>");
  }
  {
    char t[96];
    snprintf(t, sizeof(t), "%s %s", obs, f_dur(&b1, (double)io->iol));
    svg_text(o, xr + 6, y + 4, "start", "lbl", t);
  }
}

static void section_details(report *r, out *o) {
  hent *s;
  size_t i;
  fbuf b1, b2, b3;
  double maxv = 1, rowh, W = 1160, l = 300, w = 720, scale;
  o_puts(o, "<section id=\"details\"><h2>6. Details</h2>\n");
  if (r->slow.n) {
    o_printf(o, "<h3>The %zu slowest I/Os</h3>\n", r->slow.n);
  } else {
    o_puts(o, "<h3>Slowest I/Os</h3>\n");
  }
  s = heap_sorted(&r->slow);
  if (s == NULL) {
    r->oom = 1;
    o_puts(o, "</section>\n");
    return;
  }
  if (r->slow.n) {
    double y;
    for (i = 0; i < r->slow.n; i++) {
      const slowio *e = s[i].p;
      if ((double)e->rec[0].iol > maxv) {
        maxv = (double)e->rec[0].iol;
      }
    }
    scale = w / maxv;
    rowh = 0;
    for (i = 0; i < r->slow.n; i++) {
      const slowio *e = s[i].p;
      rowh += 22 * (double)e->nrec + 14;
    }
    o_puts(o, "<p class=\"note\">Completed NVMe I/Os (not admin or Fabrics "
              "commands) with the largest IOL, drawn to one scale from the "
              "command: C command, Q first READ REQUEST (writes), the data "
              "packets (bar), R response, at each point that saw the I/O. "
              "The clocks of two points are not synchronised: the "
              "storage-side lane is centred in the compute-side one (half "
              "the round trip on each side).</p>\n");
    svg_open(o, "slow-io", NULL, W, rowh + 40,
             "Timelines of the slowest I/Os");
    y = 20;
    for (i = 0; i < r->slow.n; i++) {
      const slowio *e = s[i].p;
      const rtel_io_record *a = &e->rec[0];
      char lbl[200];
      int v6 = (a->flags & RTEL_IO_F_IPV6) != 0;
      snprintf(lbl, sizeof(lbl), "#%zu %s %s \xe2\x86\x92 %s cid %u", i + 1,
               rtel_nvme_cmd_str(a->opcode, a->fctype, 0),
               f_addr(&b1, v6, a->host), f_addr(&b2, v6, a->target), a->cid);
      o_printf(o, "<g data-rank=\"%zu\">", i + 1);
      svg_text(o, l - 10, y + 4, "end", NULL, lbl);
      io_lane(o, a, obs_name(r, a->obs), l, scale, y);
      if (e->nrec == 2) {
        const rtel_io_record *z = &e->rec[1];
        double off = (double)(a->iol - z->iol) / 2;
        io_lane(o, z, obs_name(r, z->obs), l + (off > 0 ? off : 0) * scale,
                scale, y + 22);
      }
      o_puts(o, "</g>");
      y += 22 * (double)e->nrec + 14;
    }
    o_puts(o, "</svg>\n");
    o_puts(o, "<div class=\"scroll\"><table id=\"slow-ios\" class=\"sort\">"
              "<thead><tr><th>#</th><th>point</th><th>host</th><th>target"
              "</th><th>op</th><th>cid</th><th>nsid</th><th>slba</th>"
              "<th>bytes</th><th>status</th><th>command at</th><th>IOL</th>"
              "<th>DAL</th><th>DPL</th><th>transfer</th><th>other point"
              "</th><th>its IOL</th><th>compute</th><th>network</th>"
              "<th>storage</th></tr></thead><tbody>\n");
    for (i = 0; i < r->slow.n; i++) {
      const slowio *e = s[i].p;
      const rtel_io_record *a = &e->rec[0];
      int v6 = (a->flags & RTEL_IO_F_IPV6) != 0;
      o_printf(o,
               "<tr data-io=\"1\" data-cid=\"%u\" data-t-cmd=\"%" PRIu64 "\"",
               a->cid, a->t_cmd);
      attr(o, "data-obs", obs_name(r, a->obs));
      attr(o, "data-host", f_addr(&b1, v6, a->host));
      o_puts(o, ">");
      td_u64(o, "rank", i + 1);
      td_text(o, obs_name(r, a->obs));
      td_text(o, f_addr(&b1, v6, a->host));
      td_text(o, f_addr(&b1, v6, a->target));
      td_text(o, rtel_nvme_cmd_str(a->opcode, a->fctype, 0));
      td_u64(o, "cid", a->cid);
      td_u64(o, "nsid", a->nsid);
      td_u64(o, "slba", a->slba);
      td_bytes(o, "bytes", a->bytes);
      td_text(o, rtel_nvme_status_str(a->nvme_status, a->opcode));
      td_text(o, f_time(&b3, a->t_cmd));
      td_dur(o, "iol_ns", a->iol, 1);
      td_dur(o, "dal_ns", a->dal, a->dal != RTEL_DURATION_NONE);
      td_dur(o, "dpl_ns", a->dpl, a->dpl != RTEL_DURATION_NONE);
      td_dur(o, "xfer_ns", a->xfer, a->xfer != RTEL_DURATION_NONE);
      if (e->nrec == 2) {
        td_text(o, obs_name(r, e->rec[1].obs));
        td_dur(o, "iol2_ns", e->rec[1].iol, 1);
      } else {
        td_text(o, "\xe2\x80\x93");
        td_dur(o, "iol2_ns", 0, 0);
      }
      td_dur(o, "compute_ns", e->seg.compute, e->has_seg);
      td_dur(o, "network_ns", e->seg.network, e->has_seg);
      td_dur(o, "storage_ns", e->seg.storage, e->has_seg);
      o_puts(o, "</tr>\n");
    }
    o_puts(o, "</tbody></table></div>\n");
  } else {
    o_puts(o, "<p class=\"note\">No completed NVMe I/Os.</p>\n");
  }
  free(s);
  /* worst flows */
  if (r->worst.n) {
    o_printf(o, "<h3>The %zu worst flows (longest FCT)</h3>\n", r->worst.n);
  } else {
    o_puts(o, "<h3>Worst flows</h3>\n");
  }
  if (r->worst.n) {
    hent *f = heap_sorted(&r->worst);
    double y;
    if (f == NULL) {
      r->oom = 1;
      o_puts(o, "</section>\n");
      return;
    }
    maxv = 1;
    for (i = 0; i < r->worst.n; i++) {
      const rtel_flow_record *fr = f[i].p;
      maxv = (double)fr->fct > maxv ? (double)fr->fct : maxv;
    }
    scale = w / maxv;
    svg_open(o, "worst-flows", NULL, W, 20 * (double)r->worst.n + 30,
             "FCT of the worst flows, retransmitted share in red");
    y = 10;
    for (i = 0; i < r->worst.n; i++) {
      const rtel_flow_record *fr = f[i].p;
      int v6 = (fr->flags & RTEL_FLOW_F_IPV6) != 0;
      char lbl[200];
      double bw = (double)fr->fct * scale;
      snprintf(lbl, sizeof(lbl), "#%zu %s %s \xe2\x86\x92 %s qp %" PRIu32,
               i + 1, obs_name(r, fr->obs), f_addr(&b1, v6, fr->src),
               f_addr(&b2, v6, fr->dst), fr->dqpn);
      svg_text(o, l - 10, y + 12, "end", NULL, lbl);
      o_printf(o,
               "<rect class=\"d\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
               "height=\"14\" fill=\"#1f77b4\"><title>FCT %s, %" PRIu64
               " packets</title></rect>",
               l, y, bw > 1 ? bw : 1, f_dur(&b3, (double)fr->fct),
               fr->packets);
      if (fr->retx_packets && fr->packets) {
        double rw = bw * (double)fr->retx_packets / (double)fr->packets;
        o_printf(o,
                 "<rect class=\"d\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                 "height=\"14\" fill=\"#d62728\"><title>%" PRIu64
                 " retransmitted packets</title></rect>",
                 l + bw - rw, y, rw > 1 ? rw : 1, fr->retx_packets);
      }
      svg_text(o, l + bw + 6, y + 12, "start", "lbl",
               f_dur(&b3, (double)fr->fct));
      y += 20;
    }
    o_puts(o, "</svg>\n");
    free(f);
    flow_table(r, o, "worst-flows", &r->worst, "FCT ns (rank)");
  } else {
    o_puts(o, "<p class=\"note\">No flows.</p>\n");
  }
  o_puts(o, "</section>\n");
}

/* ------------------------------------------------------------ write */

int report_write(report *r, FILE *f) {
  out o;
  const rtel_info *info = rtel_version(0);
  memset(&o, 0, sizeof(o));
  o.f = f;
  o_puts(&o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta "
             "charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-"
             "Policy\" content=\"default-src 'none'; style-src "
             "'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
             "\n<meta name=\"viewport\" content=\"width=device-width, "
             "initial-scale=1\">\n<meta name=\"generator\" content=\"");
  o_printf(&o, "librocetel %s", info ? info->version_str : "?");
  o_puts(&o, "\">\n<title>");
  o_esc(&o, r->title);
  o_puts(&o, "</title>\n<style>");
  o_puts(&o, css);
  o_puts(&o, "</style></head>\n<body><header><h1>");
  o_esc(&o, r->title);
  o_puts(&o, "</h1><p>");
  if (r->source) {
    o_esc(&o, r->source);
    o_puts(&o, " \xc2\xb7 ");
  }
  o_printf(&o, "librocetel %s \xc2\xb7 %" PRIu64 " records</p>",
           info ? info->version_str : "?", r->records);
  o_puts(&o, "<nav><a href=\"#overview\">Overview</a><a href=\"#quality\">"
             "I/O quality</a><a href=\"#topology\">Topology</a><a "
             "href=\"#trends\">Trends</a><a href=\"#throughput\">Throughput"
             "</a><a href=\"#details\">Details</a></nav></header>\n<main>\n");
  section_overview(r, &o);
  section_quality(r, &o);
  section_topology(r, &o);
  section_trends(r, &o);
  section_throughput(r, &o);
  section_details(r, &o);
  o_puts(&o, "</main>\n<script>");
  o_puts(&o, script);
  o_puts(&o, "</script>\n</body></html>\n");
  if (fflush(f) != 0) {
    o.err = 1;
  }
  return o.err || ferror(f) ? -1 : 0;
}
