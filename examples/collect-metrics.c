/* SPDX-License-Identifier: MIT */
/*
 * rtel-collect --metrics: lock-free snapshots, the I/O label sets, the
 * text exposition format 0.0.4 and the HTTP endpoint (collect-metrics.h).
 */
#define _GNU_SOURCE 1 /* getaddrinfo & co., sched_yield */

#include "collect-metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifdef RTEL_COLLECT_MHD
#  include <microhttpd.h>
#endif

/* ------------------------------------------------------------ seqlock */

/* The writer: the sequence goes odd, the words are stored, it goes even
 * (release). A reader that saw the same even sequence before and after
 * its relaxed loads (acquire fence between) has a consistent copy. */
static uint32_t seq_begin(_Atomic uint32_t *seq) {
  uint32_t s = atomic_load_explicit(seq, memory_order_relaxed);
  atomic_store_explicit(seq, s + 1, memory_order_relaxed);
  atomic_thread_fence(memory_order_release);
  return s + 2;
}

static void seq_end(_Atomic uint32_t *seq, uint32_t s) {
  atomic_store_explicit(seq, s, memory_order_release);
}

static void seq_read(_Atomic uint32_t *seq, _Atomic uint64_t *w, size_t n,
                     uint64_t *dst) {
  unsigned tries = 0;
  for (;;) {
    uint32_t s1 = atomic_load_explicit(seq, memory_order_acquire), s2;
    size_t i;
    if (!(s1 & 1u)) {
      for (i = 0; i < n; i++) {
        dst[i] = atomic_load_explicit(&w[i], memory_order_relaxed);
      }
      atomic_thread_fence(memory_order_acquire);
      s2 = atomic_load_explicit(seq, memory_order_relaxed);
      if (s1 == s2) {
        return;
      }
    }
    if (++tries > 64) {
      sched_yield(); /* the writer is inside: let it finish */
    }
  }
}

int cm_snap_init(cm_snap *s, size_t bytes) {
  size_t i;
  atomic_init(&s->seq, 0);
  s->n = bytes / 8;
  s->w = malloc((s->n ? s->n : 1) * sizeof(*s->w));
  if (s->w == NULL) {
    return -1;
  }
  for (i = 0; i < s->n; i++) {
    atomic_init(&s->w[i], 0);
  }
  return 0;
}

void cm_snap_free(cm_snap *s) {
  free(s->w);
  s->w = NULL;
}

void cm_snap_publish(cm_snap *s, const void *src) {
  const unsigned char *p = src;
  uint32_t seq = seq_begin(&s->seq);
  size_t i;
  for (i = 0; i < s->n; i++) {
    uint64_t v;
    memcpy(&v, p + i * 8, 8);
    atomic_store_explicit(&s->w[i], v, memory_order_relaxed);
  }
  seq_end(&s->seq, seq);
}

void cm_snap_read(cm_snap *s, void *dst) {
  uint64_t *tmp = malloc((s->n ? s->n : 1) * sizeof(*tmp));
  if (tmp == NULL) {
    memset(dst, 0, s->n * 8);
    return;
  }
  seq_read(&s->seq, s->w, s->n, tmp);
  memcpy(dst, tmp, s->n * 8);
  free(tmp);
}

/* ------------------------------------------------------------ format */

void cm_family(rj_buf *b, const char *name, const char *type,
               const char *help) {
  rj_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void cm_label_value(rj_buf *b, const char *v) {
  rj_putc(b, '"');
  for (; *v; v++) {
    if (*v == '\\' || *v == '"') {
      rj_putc(b, '\\');
      rj_putc(b, *v);
    } else if (*v == '\n') {
      rj_puts(b, "\\n");
    } else {
      rj_putc(b, *v);
    }
  }
  rj_putc(b, '"');
}

/* ------------------------------------------------------------ series */

const uint64_t cm_bucket_ns[CM_NBUCKETS] = {
    1000u,       2500u,       5000u,       10000u,      25000u,     50000u,
    100000u,     250000u,     500000u,     1000000u,    2500000u,   5000000u,
    10000000u,   25000000u,   50000000u,   100000000u,  250000000u, 500000000u,
    1000000000u, 2500000000u, 5000000000u, 10000000000u};

const char *cm_op_str(unsigned op) {
  static const char *const names[CM_NOPS] = {
      "read", "write", "flush", "other", "admin", "fabrics", "unknown"};
  return op < CM_NOPS ? names[op] : "unknown";
}

unsigned cm_op_of(const rtel_io_record *io) {
  if (io->state == RTEL_IO_ORPHAN) {
    return CM_OP_UNKNOWN;
  }
  if (io->flags & RTEL_IO_F_FABRICS) {
    return CM_OP_FABRICS;
  }
  if (io->flags & RTEL_IO_F_ADMIN) {
    return CM_OP_ADMIN;
  }
  switch (io->opcode) {
  case RTEL_NVME_OP_READ:
    return CM_OP_READ;
  case RTEL_NVME_OP_WRITE:
    return CM_OP_WRITE;
  case RTEL_NVME_OP_FLUSH:
    return CM_OP_FLUSH;
  default:
    return CM_OP_OTHER;
  }
}

/* A label set. Every byte is set (the padding too): keys are compared
 * and hashed as bytes. */
typedef struct cm_key {
  uint32_t obs;
  uint8_t v6;
  uint8_t op;
  uint8_t pad[2];
  uint8_t host[16];
  uint8_t target[16];
} cm_key;

/* The states of rtel_nvme_ios_total: index RTEL_IO_* (1-5); 0 for any
 * other value. */
#define CM_NSTATES 6
#define CM_NLAT 3 /* iol, dal, dpl */

/* The counters of a label set, as words: the states, the (not cumulative)
 * buckets of each histogram with +Inf last, the sums in ns. */
typedef struct cm_vals {
  uint64_t state[CM_NSTATES];
  uint64_t bucket[CM_NLAT][CM_NBUCKETS + 1];
  uint64_t sum_ns[CM_NLAT];
} cm_vals;

#define CM_NWORDS (sizeof(cm_vals) / sizeof(uint64_t))
#define W_STATE(i) (i)
#define W_BUCKET(m, k) (CM_NSTATES + (m) * (CM_NBUCKETS + 1) + (k))
#define W_SUM(m) (CM_NSTATES + CM_NLAT * (CM_NBUCKETS + 1) + (m))

typedef struct cm_series {
  _Atomic uint32_t ready; /* the key is written (release) */
  _Atomic uint32_t seq;   /* of v[] */
  cm_key key;             /* constant once ready */
  _Atomic uint64_t v[CM_NWORDS];
} cm_series;

struct cm_table {
  size_t max;
  unsigned nw;
  _Atomic size_t nclaimed; /* label sets handed out (at most max) */
  cm_series *s;
  _Atomic uint64_t *overflow; /* per worker: records with no label set */
};

struct cm_index {
  uint32_t *slot; /* series index + 1; 0: empty */
  size_t cap, n;
};

cm_table *cm_table_new(size_t max, unsigned nworkers) {
  cm_table *t = calloc(1, sizeof(*t));
  unsigned k;
  if (t == NULL) {
    return NULL;
  }
  t->max = max;
  t->nw = nworkers;
  atomic_init(&t->nclaimed, 0);
  /* calloc: the pages of label sets never used are never touched */
  t->s = calloc(max ? max : 1, sizeof(*t->s));
  t->overflow = calloc(nworkers ? nworkers : 1, sizeof(*t->overflow));
  if (t->s == NULL || t->overflow == NULL) {
    cm_table_free(t);
    return NULL;
  }
  for (k = 0; k < nworkers; k++) {
    atomic_init(&t->overflow[k], 0);
  }
  return t;
}

void cm_table_free(cm_table *t) {
  if (t) {
    free(t->s);
    free(t->overflow);
    free(t);
  }
}

cm_index *cm_index_new(void) { return calloc(1, sizeof(cm_index)); }

void cm_index_free(cm_index *ix) {
  if (ix) {
    free(ix->slot);
    free(ix);
  }
}

static uint32_t key_hash(const cm_key *k) {
  const unsigned char *p = (const unsigned char *)k;
  uint32_t h = 2166136261u;
  size_t i;
  for (i = 0; i < sizeof(*k); i++) {
    h = (h ^ p[i]) * 16777619u;
  }
  return h;
}

/* The slot of |k| in |ix|: its series index + 1 there, or the empty slot
 * where it goes. */
static uint32_t *ix_find(const cm_table *t, const cm_index *ix,
                         const cm_key *k) {
  size_t i = key_hash(k) & (ix->cap - 1);
  for (;;) {
    uint32_t *sl = &ix->slot[i];
    if (*sl == 0 || memcmp(&t->s[*sl - 1].key, k, sizeof(*k)) == 0) {
      return sl;
    }
    i = (i + 1) & (ix->cap - 1);
  }
}

/* Room for one more: the index at most half full. Returns 0, or -1. */
static int ix_room(const cm_table *t, cm_index *ix) {
  cm_index nx;
  size_t i;
  if (ix->cap && (ix->n + 1) * 2 <= ix->cap) {
    return 0;
  }
  nx.cap = ix->cap ? ix->cap * 2 : 64;
  nx.n = ix->n;
  nx.slot = calloc(nx.cap, sizeof(*nx.slot));
  if (nx.slot == NULL) {
    return -1;
  }
  for (i = 0; i < ix->cap; i++) {
    if (ix->slot[i]) {
      *ix_find(t, &nx, &t->s[ix->slot[i] - 1].key) = ix->slot[i];
    }
  }
  free(ix->slot);
  *ix = nx;
  return 0;
}

/* A new label set for |k|: its index, or -1 when the table is full. */
static long claim(cm_table *t, const cm_key *k) {
  size_t n = atomic_load_explicit(&t->nclaimed, memory_order_relaxed);
  cm_series *s;
  do {
    if (n >= t->max) {
      return -1;
    }
  } while (!atomic_compare_exchange_weak_explicit(
      &t->nclaimed, &n, n + 1, memory_order_acq_rel, memory_order_relaxed));
  s = &t->s[n];
  s->key = *k;
  atomic_store_explicit(&s->ready, 1, memory_order_release);
  return (long)n;
}

static size_t bucket_of(int64_t d) {
  size_t i;
  for (i = 0; i < CM_NBUCKETS; i++) {
    if ((uint64_t)d <= cm_bucket_ns[i]) {
      return i;
    }
  }
  return CM_NBUCKETS;
}

void cm_table_io(cm_table *t, unsigned wk, cm_index *ix,
                 const rtel_io_record *io) {
  cm_key k;
  uint32_t *sl;
  cm_series *s;
  uint32_t seq;
  int64_t lat[CM_NLAT];
  unsigned m;
  memset(&k, 0, sizeof(k));
  k.obs = io->obs;
  k.v6 = (io->flags & RTEL_IO_F_IPV6) ? 1 : 0;
  k.op = (uint8_t)cm_op_of(io);
  memcpy(k.host, io->host, 16);
  memcpy(k.target, io->target, 16);
  if (ix->cap == 0 && ix_room(t, ix) != 0) {
    cm_add(&t->overflow[wk], 1);
    return;
  }
  sl = ix_find(t, ix, &k);
  if (*sl == 0) {
    long n;
    if (ix_room(t, ix) != 0 || (n = claim(t, &k)) < 0) {
      cm_add(&t->overflow[wk], 1);
      return;
    }
    sl = ix_find(t, ix, &k); /* the index may have grown */
    *sl = (uint32_t)n + 1;
    ix->n++;
  }
  s = &t->s[*sl - 1];
  /* the latencies of complete I/Os, as the summaries take them */
  lat[0] = lat[1] = lat[2] = RTEL_DURATION_NONE;
  if (io->state == RTEL_IO_COMPLETE) {
    lat[0] = io->iol;
    lat[1] = io->dal;
    lat[2] = io->dpl;
  }
  seq = seq_begin(&s->seq);
  cm_add(&s->v[W_STATE(io->state < CM_NSTATES ? io->state : 0)], 1);
  for (m = 0; m < CM_NLAT; m++) {
    int64_t d = lat[m];
    if (d == RTEL_DURATION_NONE) {
      continue;
    }
    if (d < 0) {
      d = 0; /* clocks of one point do not go back; a bad stamp is 0 */
    }
    cm_add(&s->v[W_BUCKET(m, bucket_of(d))], 1);
    cm_add(&s->v[W_SUM(m)], (uint64_t)d);
  }
  seq_end(&s->seq, seq);
}

typedef struct cm_item {
  cm_key key;
  cm_vals v;
} cm_item;

static int item_cmp(const void *a, const void *b) {
  return memcmp(&((const cm_item *)a)->key, &((const cm_item *)b)->key,
                sizeof(cm_key));
}

static void item_labels(rj_buf *b, const cm_item *it, const char *const *obs,
                        size_t nobs) {
  char host[INET6_ADDRSTRLEN], target[INET6_ADDRSTRLEN];
  uint32_t af = it->key.v6 ? RTEL_FLOW_F_IPV6 : 0;
  rj_format_addr(host, af, it->key.host);
  rj_format_addr(target, af, it->key.target);
  rj_puts(b, "obs=");
  cm_label_value(b, it->key.obs < nobs ? obs[it->key.obs] : "?");
  rj_printf(b, ",host=\"%s\",target=\"%s\",op=\"%s\"", host, target,
            cm_op_str(it->key.op));
}

static void put_seconds(rj_buf *b, uint64_t ns) {
  rj_printf(b, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u, ns % 1000000000u);
}

int cm_table_render(cm_table *t, rj_buf *b, const char *const *obs,
                    size_t nobs) {
  static const char *const lat_name[CM_NLAT] = {"rtel_nvme_iol_seconds",
                                                "rtel_nvme_dal_seconds",
                                                "rtel_nvme_dpl_seconds"};
  static const char *const lat_help[CM_NLAT] = {
      "I/O latency (command to response) of complete NVMe-oF I/Os",
      "Data access latency (storage side) of complete NVMe-oF I/Os that "
      "have one",
      "Data preparation latency (compute side) of complete NVMe-oF writes "
      "whose data the target fetched"};
  size_t n = atomic_load_explicit(&t->nclaimed, memory_order_acquire);
  size_t i, k = 0, ni = 0;
  cm_item *it;
  rj_buf lb;
  uint64_t over = 0;
  unsigned m, st, w;
  if (n > t->max) {
    n = t->max;
  }
  it = malloc((n ? n : 1) * sizeof(*it));
  if (it == NULL) {
    return -1;
  }
  for (i = 0; i < n; i++) {
    cm_series *s = &t->s[i];
    if (!atomic_load_explicit(&s->ready, memory_order_acquire)) {
      continue; /* being claimed: the next scrape has it */
    }
    it[k].key = s->key;
    seq_read(&s->seq, s->v, CM_NWORDS, (uint64_t *)(void *)&it[k].v);
    k++;
  }
  /* in label order; a label set two workers hold (one pair of
   * addresses always meets in one worker, so this is a safeguard) is
   * summed into one */
  qsort(it, k, sizeof(*it), item_cmp);
  for (i = 0; i < k; i++) {
    if (ni && memcmp(&it[ni - 1].key, &it[i].key, sizeof(cm_key)) == 0) {
      uint64_t *d = (uint64_t *)(void *)&it[ni - 1].v;
      const uint64_t *s = (const uint64_t *)(const void *)&it[i].v;
      size_t j;
      for (j = 0; j < CM_NWORDS; j++) {
        d[j] += s[j];
      }
    } else {
      it[ni++] = it[i];
    }
  }
  rj_init(&lb);
  cm_family(b, "rtel_nvme_ios_total", "counter",
            "NVMe-oF I/O records by observation point, host, target, "
            "operation and end state");
  for (i = 0; i < ni; i++) {
    rj_reset(&lb);
    item_labels(&lb, &it[i], obs, nobs);
    for (st = RTEL_IO_COMPLETE; st <= RTEL_IO_TRUNCATED; st++) {
      rj_printf(b, "rtel_nvme_ios_total{%s,state=\"%s\"} %" PRIu64 "\n", lb.p,
                rtel_io_state_str(st), it[i].v.state[st]);
    }
    if (it[i].v.state[0]) {
      rj_printf(b, "rtel_nvme_ios_total{%s,state=\"unknown\"} %" PRIu64 "\n",
                lb.p, it[i].v.state[0]);
    }
  }
  for (m = 0; m < CM_NLAT; m++) {
    cm_family(b, lat_name[m], "histogram", lat_help[m]);
    for (i = 0; i < ni; i++) {
      uint64_t cum = 0;
      size_t j;
      for (j = 0; j <= CM_NBUCKETS; j++) {
        cum += it[i].v.bucket[m][j];
      }
      if (cum == 0) {
        continue; /* none yet (the DPL of reads: never) */
      }
      rj_reset(&lb);
      item_labels(&lb, &it[i], obs, nobs);
      cum = 0;
      for (j = 0; j < CM_NBUCKETS; j++) {
        cum += it[i].v.bucket[m][j];
        rj_printf(b, "%s_bucket{%s,le=\"%g\"} %" PRIu64 "\n", lat_name[m],
                  lb.p, (double)cm_bucket_ns[j] / 1e9, cum);
      }
      cum += it[i].v.bucket[m][CM_NBUCKETS];
      rj_printf(b, "%s_bucket{%s,le=\"+Inf\"} %" PRIu64 "\n", lat_name[m],
                lb.p, cum);
      rj_printf(b, "%s_sum{%s} ", lat_name[m], lb.p);
      put_seconds(b, it[i].v.sum_ns[m]);
      rj_printf(b, "\n%s_count{%s} %" PRIu64 "\n", lat_name[m], lb.p, cum);
    }
  }
  rj_free(&lb);
  free(it);
  for (w = 0; w < t->nw; w++) {
    over += cm_get(&t->overflow[w]);
  }
  cm_family(b, "rtel_collect_series", "gauge",
            "Label sets (obs, host, target, op) of the NVMe-oF I/O "
            "metrics in use");
  rj_printf(b, "rtel_collect_series %zu\n", ni);
  cm_family(b, "rtel_collect_series_max", "gauge",
            "Most label sets of the NVMe-oF I/O metrics "
            "(--metrics-max-series)");
  rj_printf(b, "rtel_collect_series_max %zu\n", t->max);
  cm_family(b, "rtel_collect_series_overflow_total", "counter",
            "NVMe-oF I/O records not counted by label set: no room for "
            "their label set");
  rj_printf(b, "rtel_collect_series_overflow_total %" PRIu64 "\n", over);
  return b->oom ? -1 : 0;
}

/* ------------------------------------------------------------ address */

/* "HOST:PORT" or "[V6]:PORT" into |host| and |port|. Returns 0, or -1. */
static int split_addr(const char *addr, char *host, size_t hostlen,
                      unsigned *port) {
  const char *colon, *hs = addr, *he;
  char *end;
  unsigned long p;
  if (addr[0] == '[') {
    he = strchr(addr, ']');
    if (he == NULL || he[1] != ':') {
      return -1;
    }
    hs = addr + 1;
    colon = he + 1;
  } else {
    colon = strrchr(addr, ':');
    if (colon == NULL || memchr(addr, ':', (size_t)(colon - addr))) {
      return -1; /* an IPv6 address needs its brackets */
    }
    he = colon;
  }
  if (he == hs || (size_t)(he - hs) >= hostlen) {
    return -1;
  }
  if (colon[1] < '0' || colon[1] > '9') {
    return -1;
  }
  errno = 0;
  p = strtoul(colon + 1, &end, 10);
  if (errno || *end || p > 65535) {
    return -1;
  }
  memcpy(host, hs, (size_t)(he - hs));
  host[he - hs] = '\0';
  *port = (unsigned)p;
  return 0;
}

int cm_http_check_addr(const char *addr) {
  char host[256];
  unsigned port;
  return split_addr(addr, host, sizeof(host), &port);
}

/* ------------------------------------------------------------ HTTP */

struct cm_http {
  cm_render_fn fn;
  void *arg;
  int fd;
  char where[INET6_ADDRSTRLEN + 16];
#ifdef RTEL_COLLECT_MHD
  struct MHD_Daemon *d;
#endif
};

/* A socket listening on |addr|. Returns the fd, or -1 with |err|. */
static int listen_on(const char *addr, char *where, size_t wherelen, char *err,
                     size_t errlen) {
  char host[256], sport[8], name[INET6_ADDRSTRLEN];
  unsigned port;
  struct addrinfo hints, *res = NULL, *ai;
  struct sockaddr_storage ss;
  socklen_t sl = sizeof(ss);
  int fd = -1, rv, one = 1, e = 0;
  if (split_addr(addr, host, sizeof(host), &port) != 0) {
    snprintf(err, errlen, "--metrics '%s': not HOST:PORT or [V6]:PORT", addr);
    return -1;
  }
  snprintf(sport, sizeof(sport), "%u", port);
  memset(&hints, 0, sizeof(hints));
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  rv = getaddrinfo(host, sport, &hints, &res);
  if (rv != 0) {
    snprintf(err, errlen, "--metrics %s: %s", addr, gai_strerror(rv));
    return -1;
  }
  for (ai = res; ai; ai = ai->ai_next) {
    fd =
        socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      e = errno;
      continue;
    }
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (ai->ai_family == AF_INET6) {
      (void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    }
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 64) == 0) {
      break;
    }
    e = errno;
    close(fd);
    fd = -1;
  }
  freeaddrinfo(res);
  if (fd < 0) {
    snprintf(err, errlen, "--metrics %s: cannot listen: %s", addr,
             strerror(e ? e : EADDRNOTAVAIL));
    return -1;
  }
  if (getsockname(fd, (struct sockaddr *)(void *)&ss, &sl) != 0) {
    snprintf(where, wherelen, "%s", addr);
  } else if (ss.ss_family == AF_INET6) {
    const struct sockaddr_in6 *s6 = (const void *)&ss;
    inet_ntop(AF_INET6, &s6->sin6_addr, name, sizeof(name));
    snprintf(where, wherelen, "[%s]:%u", name, ntohs(s6->sin6_port));
  } else {
    const struct sockaddr_in *s4 = (const void *)&ss;
    inet_ntop(AF_INET, &s4->sin_addr, name, sizeof(name));
    snprintf(where, wherelen, "%s:%u", name, ntohs(s4->sin_port));
  }
  return fd;
}

#ifdef RTEL_COLLECT_MHD

#  if MHD_VERSION >= 0x00097002
typedef enum MHD_Result mhd_result;
#  else
typedef int mhd_result;
#  endif

static mhd_result reply(struct MHD_Connection *c, unsigned code,
                        const char *type, char *body, size_t len,
                        int must_free) {
  struct MHD_Response *r = MHD_create_response_from_buffer(
      len, body, must_free ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
  mhd_result rv;
  if (r == NULL) {
    if (must_free) {
      free(body);
    }
    return MHD_NO;
  }
  (void)MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
  if (code == MHD_HTTP_METHOD_NOT_ALLOWED) {
    (void)MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
  }
  rv = MHD_queue_response(c, code, r);
  MHD_destroy_response(r);
  return rv;
}

static mhd_result on_request(void *cls, struct MHD_Connection *c,
                             const char *url, const char *method,
                             const char *version, const char *upload,
                             size_t *upload_size, void **con_cls) {
  static char not_found[] = "not found: the metrics are at /metrics\n";
  static char not_allowed[] = "method not allowed: GET /metrics\n";
  static char index_page[] = "rtel-collect: the metrics are at /metrics\n";
  static char oom[] = "out of memory\n";
  static int first_call;
  cm_http *h = cls;
  rj_buf b;
  (void)version;
  (void)upload;
  if (*con_cls == NULL) {
    /* the headers: answer once the (empty) body is in */
    *con_cls = &first_call;
    return MHD_YES;
  }
  if (*upload_size) {
    *upload_size = 0; /* a body is ignored */
    return MHD_YES;
  }
  if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
    return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", not_allowed,
                 strlen(not_allowed), 0);
  }
  if (strcmp(url, "/") == 0) {
    return reply(c, MHD_HTTP_OK, "text/plain; charset=utf-8", index_page,
                 strlen(index_page), 0);
  }
  if (strcmp(url, "/metrics") != 0) {
    return reply(c, MHD_HTTP_NOT_FOUND, "text/plain", not_found,
                 strlen(not_found), 0);
  }
  rj_init(&b);
  h->fn(&b, h->arg);
  if (b.oom || b.p == NULL) {
    rj_free(&b);
    return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain", oom,
                 strlen(oom), 0);
  }
  return reply(c, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", b.p,
               b.len, 1);
}

int cm_http_available(void) { return 1; }

const char *cm_http_version(void) {
  const char *v = MHD_get_version();
  return v ? v : "?";
}

cm_http *cm_http_start(const char *addr, cm_render_fn fn, void *arg, char *err,
                       size_t errlen) {
  cm_http *h = calloc(1, sizeof(*h));
  if (h == NULL) {
    snprintf(err, errlen, "--metrics: out of memory");
    return NULL;
  }
  h->fn = fn;
  h->arg = arg;
  h->fd = listen_on(addr, h->where, sizeof(h->where), err, errlen);
  if (h->fd < 0) {
    free(h);
    return NULL;
  }
  /* one thread of its own; a bounded number of connections, each with
   * a deadline */
  h->d = MHD_start_daemon(
      MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ITC |
          MHD_USE_ERROR_LOG,
      0, NULL, NULL, on_request, h, MHD_OPTION_LISTEN_SOCKET, h->fd,
      MHD_OPTION_CONNECTION_LIMIT, (unsigned)16, MHD_OPTION_CONNECTION_TIMEOUT,
      (unsigned)10, MHD_OPTION_END);
  if (h->d == NULL) {
    snprintf(err, errlen, "--metrics %s: libmicrohttpd did not start", addr);
    close(h->fd);
    free(h);
    return NULL;
  }
  return h;
}

void cm_http_stop(cm_http *h) {
  if (h) {
    /* quiesced, the listening socket is ours to close after the stop;
     * else the stop closes it */
    MHD_socket fd = MHD_quiesce_daemon(h->d);
    MHD_stop_daemon(h->d);
    if (fd != MHD_INVALID_SOCKET) {
      close(fd);
    }
    free(h);
  }
}

#else /* no libmicrohttpd */

int cm_http_available(void) { return 0; }

const char *cm_http_version(void) { return ""; }

cm_http *cm_http_start(const char *addr, cm_render_fn fn, void *arg, char *err,
                       size_t errlen) {
  (void)addr;
  (void)fn;
  (void)arg;
  (void)listen_on;
  snprintf(err, errlen,
           "--metrics: this rtel-collect was built without libmicrohttpd");
  return NULL;
}

void cm_http_stop(cm_http *h) { free(h); }

#endif

const char *cm_http_where(const cm_http *h) { return h->where; }
