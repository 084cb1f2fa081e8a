/* SPDX-License-Identifier: MIT */
/*
 * rtel-collect: a long-running collector on every core.
 *
 *   rtel-collect [OPTIONS] -i [NAME=]IFACE... | -r [NAME=]FILE...
 *
 * One reader thread (the main thread) takes packets from live interfaces
 * (libpcap) or capture files, decodes each one (rtel_pkt_decode) only to
 * shard it (rtel_shard_key), and copies it into a fixed slot of the
 * bounded single-producer single-consumer ring of worker key % N. Each of
 * the N worker threads owns a context (rtel_ctx), its IPFIX encoders and
 * a JSON line buffer; no lock is taken on the per-packet path. Timers are
 * pulled by each worker against a clock in packet time, so idle flows and
 * unanswered I/Os end while no packet arrives. A writer thread writes the
 * JSON lines (whole lines, rotation, SIGHUP reopen). With --metrics, an
 * HTTP thread (libmicrohttpd, collect-metrics.c) serves the counters in
 * the Prometheus text format: each worker publishes a snapshot of its
 * counters every tick (a seqlock: the worker never waits) and counts its
 * I/O records into label sets of its own. See rtel-collect(8).
 */
#define _GNU_SOURCE 1 /* u_char & co. in pcap.h, pthread, clock_nanosleep */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#ifdef __linux__
#  include <linux/futex.h>
#  include <sys/syscall.h>
#endif
#include <time.h>
#include <unistd.h>

#include <rocetel/rocetel.h>

#include "capfile.h"
#include "collect-metrics.h"
#include "ipfix-export.h"
#include "pcap-input.h"
#include "rtel-json.h"
#include "table-mem.h"

#define PROG "rtel-collect"

#define MAX_WORKERS 256
#define MAX_IPFIX 8
/* live and replayed input: timers run this far behind the clock, so that
 * packets still in libpcap's buffer or a ring (up to the 10 ms block
 * timeout of TPACKET_V3, plus scheduling) are not overtaken by a timer */
#define HOLDBACK_NS 100000000ull
/* how often a worker hands its JSON lines over and flushes its IPFIX
 * messages, in monotonic time */
#define TICK_NS 100000000ull
/* the writer's queue: at most this many bytes wait (then chunks are
 * dropped, their lines counted as lost) */
#define WRITER_MAX_PENDING (256u << 20)
/* a worker hands its lines over when it has this many bytes */
#define JSON_CHUNK (64u << 10)

enum { TS_CAPTURE, TS_ERSPAN };
enum { TSMODE_AUTO, TSMODE_CAPTURE };
enum { REC_FLOW = 1, REC_MSG = 2, REC_IO = 4, REC_SEG = 8, REC_SUM = 16 };

/* ------------------------------------------------------------ options */

typedef struct input {
  const char *obs;
  const char *src; /* interface, file, or "-" */
  char *obs_alloc;
  pcap_t *pc;            /* live */
  capfile *cf;           /* files (capfile.h: any pcap or pcapng) */
  uint32_t linktype;     /* live: the interface's */
  int nano;              /* live: timestamps in ns */
  int fd;                /* live: selectable fd */
  _Atomic uint64_t pkts; /* written by the reader (cm_add) */
  /* live: the kernel's drops (pcap_stats), published by the reader */
  _Atomic uint64_t kdrops, ifdrops;
  /* files: the packet read ahead, when |have| */
  capfile_pkt pk;
  int have;
  /* ERSPAN III timestamp state, by session (10 bits), allocated on use */
  struct erspan_clk *clk;
} input;

typedef struct erspan_clk {
  int init;
  uint32_t gra;
  uint32_t last;       /* last 32-bit stamp */
  int64_t ext;         /* its extension to 64 bits (ticks) */
  int64_t anchor_ext;  /* the ticks at the anchor */
  rtel_tstamp anchor;  /* capture time at the anchor */
  rtel_tstamp last_ts; /* capture time of the last stamp */
} erspan_clk;

typedef struct options {
  input *in;
  size_t nin;
  int live;
  int replay;
  const char *filter;
  unsigned jobs;
  size_t slot_size;
  size_t depth; /* ring slots per worker (power of two) */
  const char *ipfix[MAX_IPFIX];
  size_t nipfix;
  uint32_t pen, domain, mtu;
  const char *json;
  uint64_t rotate_size;
  uint64_t rotate_time_ns;
  unsigned records; /* REC_* */
  int stats;
  int tsmode;
  uint32_t decode_flags;
  uint32_t roce_port;
  uint32_t max_flows, max_ios;
  uint64_t flow_idle_ns, io_timeout_ns;
  uint64_t interval_ns; /* --interval: summary period; 0: the whole run */
  uint64_t origin_ns;   /* where the periods are aligned (see main) */
  int primed;           /* files: the first packet of each is read */
  int primed_status;    /* 1: a read error then */
  const char *compute_side, *storage_side;
  const char *metrics; /* --metrics ADDR:PORT */
  size_t max_series;
  uint64_t linger_ns;  /* after the end of the files; UINT64_MAX: forever */
  uint32_t poll_ports; /* --poll P/SLOT: P ports per slot; 0: full mode */
  uint64_t poll_slot_ns;
  const char *on_slot;      /* --on-slot CMD */
  uint64_t hook_timeout_ns; /* --on-slot-timeout (default 10 s) */
} options;

/* ------------------------------------------------------------ ring */

/* One packet in a ring. */
typedef struct slot {
  rtel_tstamp ts;
  uint32_t wire_len;
  uint32_t caplen;
  uint32_t obs;
  uint32_t linktype;
  uint32_t tssrc; /* TS_* */
  uint32_t clipped;
  uint32_t mark;  /* --poll: no packet; run the timers at ts */
  uint8_t data[]; /* slot_size bytes */
} slot;

/* The indexes each side publishes are written once per batch, not per
 * packet (RING_BATCH): a store the other core reads moves its cache
 * line, and per packet that costs more than the copy. Each side keeps
 * its own position and a cached copy of the other's in its own line. */
typedef struct ring {
  _Alignas(64) atomic_size_t head; /* published by the reader */
  _Alignas(64) atomic_size_t tail; /* published by the worker */
  /* the reader's own line */
  _Alignas(64) size_t prod; /* next slot the reader fills */
  size_t tail_seen;         /* tail, as the reader last read it */
  /* the worker sleeps on it (1) when its ring is empty; the reader wakes
   * it (ring_wake) */
  _Alignas(64) atomic_uint sleeping;
  /* constant after setup */
  _Alignas(64) size_t mask;
  size_t wake; /* RING_WAKE, at most half the ring */
  size_t stride;
  uint8_t *mem;
} ring;

/* Packets a side hands over before it publishes its index (the reader
 * also publishes whenever its input pauses, so nothing waits for a
 * batch to fill). */
#define RING_BATCH 32

/* A sleeping worker is woken when this many packets wait for it, or when
 * the input pauses (every wake-up is a system call on both sides: one
 * per packet would cost more than the packet). */
#define RING_WAKE 1024

static void sleep_ns(uint64_t ns);

/* Sleep until woken or |ns| have passed, if |*word| is still |val|. */
static void ring_wait(atomic_uint *word, unsigned val, uint64_t ns) {
#ifdef __linux__
  struct timespec t;
  t.tv_sec = (time_t)(ns / 1000000000u);
  t.tv_nsec = (long)(ns % 1000000000u);
  (void)syscall(SYS_futex, (unsigned *)(void *)word, FUTEX_WAIT_PRIVATE, val,
                &t, NULL, 0);
#else
  (void)word;
  (void)val;
  sleep_ns(ns);
#endif
}

static void ring_wake_word(atomic_uint *word) {
#ifdef __linux__
  (void)syscall(SYS_futex, (unsigned *)(void *)word, FUTEX_WAKE_PRIVATE, 1,
                NULL, NULL, 0);
#else
  (void)word;
#endif
}

static slot *ring_slot(const ring *q, size_t i) {
  return (slot *)(void *)(q->mem + (i & q->mask) * q->stride);
}

/* ------------------------------------------------------------ shared */

typedef struct writer writer;

typedef struct worker {
  unsigned id;
  pthread_t thread;
  ring q;
  rtel_ctx *ctx;
  const options *opt;
  ipfix_export *ipfix[MAX_IPFIX];
  uint64_t xcount[MAX_IPFIX][4]; /* records, lost, messages, send errors */
  rj_buf jb;
  uint64_t jb_lines;
  rtel_tstamp now;         /* timer clock (packet time), never decreasing */
  uint64_t next_tick;      /* monotonic ns */
  uint64_t pkts;           /* handed to the context */
  _Atomic uint64_t drops;  /* ring full (written by the reader) */
  uint64_t clipped;        /* copies cut to the slot size */
  uint64_t cpu_ns;         /* the thread's CPU time, set when it ends */
  uint64_t drained_mono;   /* when its ring ran dry after the input ended */
  uint64_t drained_cpu_ns; /* its CPU time then (before the flush) */
  uint64_t ts_src[2];      /* TS_CAPTURE, TS_ERSPAN */
  uint64_t recs[5];        /* flow, message, io, segment, summary */
  uint64_t flow_end[9];    /* flow records by RTEL_END_* (all, exported
                            * or not) */
  int failed;              /* the context failed (reported) */
  int scheduled;           /* --poll: ports and schedule set */
  rtel_ctx_stats stats;    /* at the end */
  cm_index *mix;           /* --metrics: this worker's label sets */
  cm_snap snap;            /* --metrics: its counters (wsnap) */
} worker;

/* What a worker publishes for --metrics (words only: a cm_snap). */
typedef struct wsnap {
  rtel_ctx_stats st;
  uint64_t pkts, clipped, ts_src[2], recs[5], flow_end[9], failed;
  uint64_t ipfix[MAX_IPFIX][4]; /* as worker.xcount */
} wsnap;
_Static_assert(sizeof(wsnap) % 8 == 0, "wsnap: 64-bit words only");

typedef struct shared {
  const options *opt;
  rj_names names;
  worker *w;
  unsigned nw;
  writer *wr;
  /* the reader's clock: the latest packet time handed to a ring */
  _Alignas(64) _Atomic uint64_t clock;
  /* packet time = monotonic time + offset (live and replay) */
  _Atomic int64_t offset;
  _Atomic int have_offset;
  /* the time of the first packet (start of the whole-run summaries) */
  _Atomic uint64_t first_ts;
  _Atomic uint64_t end_ts; /* the time to flush at, set before done */
  _Atomic int done;        /* the reader has stopped */
  /* --metrics: the I/O label sets; every worker has flushed (final) */
  cm_table *mt;
  _Atomic int ended;
  /* --poll: when the schedule begins (live: the start, on the capture
   * clock; files: the first packet), set before have_sched */
  _Atomic uint64_t sched_t0;
  _Atomic int have_sched;
} shared;

static shared G;
static atomic_int stop_flag;
static atomic_int hup_flag;

static uint64_t mono_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void sleep_ns(uint64_t ns) {
  struct timespec t;
  t.tv_sec = (time_t)(ns / 1000000000u);
  t.tv_nsec = (long)(ns % 1000000000u);
  while (nanosleep(&t, &t) != 0 && errno == EINTR &&
         !atomic_load(&stop_flag)) {
  }
}

/* ------------------------------------------------------------ writer */

/* JSON lines from the workers, whole lines only. */
typedef struct chunk {
  struct chunk *next;
  char *p;
  size_t len;
  uint64_t lines;
} chunk;

struct writer {
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  chunk *head, *tail;
  size_t pending;
  int quit;
  const char *path; /* "-": standard output */
  int fd;
  uint64_t size;        /* of the current file */
  uint64_t opened;      /* monotonic ns */
  unsigned next_suffix; /* FILE.N of the next rotation */
  /* counters (the writer thread's; dropped_lines the workers', under
   * mu; read by --metrics) */
  _Atomic uint64_t lines, bytes, lost_lines, dropped_lines, rotations, reopens;
  int err_reported;
};

static uint64_t count_lines(const char *p, size_t n) {
  uint64_t k = 0;
  const char *e = p + n;
  while ((p = memchr(p, '\n', (size_t)(e - p))) != NULL) {
    k++;
    p++;
  }
  return k;
}

static void wr_error(writer *wr, const char *what) {
  if (!wr->err_reported) {
    fprintf(stderr, PROG ": --json %s: %s: %s (counting the lines lost)\n",
            wr->path, what, strerror(errno));
    wr->err_reported = 1;
  }
}

static int wr_open(writer *wr, int trunc) {
  struct stat st;
  if (strcmp(wr->path, "-") == 0) {
    wr->fd = STDOUT_FILENO;
    return 0;
  }
  wr->fd = open(
      wr->path,
      O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (trunc ? O_TRUNC : 0), 0644);
  if (wr->fd < 0) {
    return -1;
  }
  wr->size = fstat(wr->fd, &st) == 0 ? (uint64_t)st.st_size : 0;
  wr->opened = mono_ns();
  return 0;
}

static void wr_close(writer *wr) {
  if (wr->fd >= 0 && wr->fd != STDOUT_FILENO) {
    if (fsync(wr->fd) != 0 && errno != EINVAL) {
      wr_error(wr, "fsync");
    }
    close(wr->fd);
  }
  wr->fd = -1;
}

/* FILE -> FILE.N, a fresh FILE */
static void wr_rotate(writer *wr) {
  char to[PATH_MAX];
  if (wr->fd == STDOUT_FILENO) {
    return;
  }
  wr_close(wr);
  snprintf(to, sizeof(to), "%s.%u", wr->path, wr->next_suffix++);
  if (rename(wr->path, to) != 0) {
    wr_error(wr, "rename");
  }
  cm_add(&wr->rotations, 1);
  if (wr_open(wr, 1) != 0) {
    wr_error(wr, "open");
  }
}

/* Writes |n| bytes of whole lines. A short write (a full disk) is cut
 * back to the last whole line, so the file never holds a torn line. */
static void wr_put(writer *wr, const char *p, size_t n) {
  size_t done = 0;
  uint64_t at = wr->size;
  if (wr->fd < 0 && wr_open(wr, 0) != 0) {
    wr_error(wr, "open");
    cm_add(&wr->lost_lines, count_lines(p, n));
    return;
  }
  while (done < n) {
    ssize_t w = write(wr->fd, p + done, n - done);
    if (w < 0 && errno == EINTR) {
      continue;
    }
    if (w <= 0) {
      const char *nl = NULL;
      size_t keep = 0;
      wr_error(wr, "write");
      if (done) {
        nl = memrchr(p, '\n', done);
        keep = nl ? (size_t)(nl - p) + 1 : 0;
        if (keep != done && wr->fd != STDOUT_FILENO &&
            ftruncate(wr->fd, (off_t)(at + keep)) != 0) {
          keep = done; /* cannot cut: the torn line stays */
        }
      }
      cm_add(&wr->lines, count_lines(p, keep));
      cm_add(&wr->bytes, keep);
      wr->size = at + keep;
      cm_add(&wr->lost_lines, count_lines(p + keep, n - keep));
      return;
    }
    done += (size_t)w;
  }
  cm_add(&wr->lines, count_lines(p, n));
  cm_add(&wr->bytes, n);
  wr->size += n;
}

/* One chunk, split at line ends where --rotate-size falls. */
static void wr_chunk(writer *wr, const options *opt, const char *p, size_t n) {
  while (n) {
    uint64_t lim = opt->rotate_size;
    size_t take = n;
    if (lim && wr->fd != STDOUT_FILENO && wr->size + n > lim) {
      size_t room = wr->size < lim ? (size_t)(lim - wr->size) : 0;
      const char *nl = room ? memrchr(p, '\n', room < n ? room : n) : NULL;
      if (nl) {
        take = (size_t)(nl - p) + 1;
      } else if (wr->size > 0) {
        wr_rotate(wr);
        continue;
      } else {
        /* one line longer than the limit: it goes whole */
        nl = memchr(p, '\n', n);
        take = nl ? (size_t)(nl - p) + 1 : n;
      }
    }
    wr_put(wr, p, take);
    p += take;
    n -= take;
    if (n && lim && wr->fd != STDOUT_FILENO) {
      wr_rotate(wr);
    }
  }
}

static void *writer_main(void *arg) {
  writer *wr = arg;
  const options *opt = G.opt;
  for (;;) {
    chunk *c;
    int quit;
    struct timespec dl;
    pthread_mutex_lock(&wr->mu);
    if (wr->head == NULL && !wr->quit) {
      clock_gettime(CLOCK_REALTIME, &dl);
      dl.tv_nsec += 200000000;
      if (dl.tv_nsec >= 1000000000) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000;
      }
      pthread_cond_timedwait(&wr->cv, &wr->mu, &dl);
    }
    c = wr->head;
    wr->head = wr->tail = NULL;
    wr->pending = 0;
    quit = wr->quit;
    pthread_mutex_unlock(&wr->mu);

    if (atomic_exchange(&hup_flag, 0) && wr->fd != STDOUT_FILENO) {
      /* logrotate moved the file away: write to a new one */
      wr_close(wr);
      if (wr_open(wr, 0) != 0) {
        wr_error(wr, "open");
      }
      cm_add(&wr->reopens, 1);
    }
    if (opt->rotate_time_ns && wr->fd >= 0 && wr->fd != STDOUT_FILENO &&
        wr->size > 0 && mono_ns() - wr->opened >= opt->rotate_time_ns) {
      wr_rotate(wr);
    }
    while (c) {
      chunk *next = c->next;
      wr_chunk(wr, opt, c->p, c->len);
      free(c->p);
      free(c);
      c = next;
    }
    if (quit) {
      pthread_mutex_lock(&wr->mu);
      c = wr->head;
      pthread_mutex_unlock(&wr->mu);
      if (c == NULL) {
        break;
      }
    }
  }
  wr_close(wr);
  return NULL;
}

/* Hands a worker's lines to the writer (takes the buffer). */
static void wr_submit(writer *wr, rj_buf *b, uint64_t lines) {
  chunk *c;
  if (b->len == 0) {
    return;
  }
  c = malloc(sizeof(*c));
  pthread_mutex_lock(&wr->mu);
  if (c == NULL || wr->pending + b->len > WRITER_MAX_PENDING) {
    cm_add(&wr->dropped_lines, lines);
    pthread_mutex_unlock(&wr->mu);
    free(c);
    rj_reset(b);
    return;
  }
  c->next = NULL;
  c->p = b->p;
  c->len = b->len;
  c->lines = lines;
  if (wr->tail) {
    wr->tail->next = c;
  } else {
    wr->head = c;
  }
  wr->tail = c;
  wr->pending += b->len;
  pthread_cond_signal(&wr->cv);
  pthread_mutex_unlock(&wr->mu);
  rj_init(b);
}

/* ------------------------------------------------------------ worker */

static rtel_tstamp rec_now(const worker *w) { return w->now; }

static void json_done(worker *w) {
  w->jb_lines++;
  if (w->jb.len >= JSON_CHUNK) {
    wr_submit(G.wr, &w->jb, w->jb_lines);
    w->jb_lines = 0;
  }
}

/* Every port is measured in full from the collector's first packet on:
 * that is the start of the coverage window of every record, whichever
 * worker's context (which began with the first packet of its own shard)
 * made it. In polling mode the window is the port's slots, which every
 * worker's context has the same of: it stays. */
#define COVERAGE(rec)                                                         \
  do {                                                                        \
    if ((rec).coverage_start != RTEL_TSTAMP_NONE && !G.opt->poll_ports) {     \
      (rec).coverage_start = atomic_load(&G.first_ts);                        \
    }                                                                         \
  } while (0)

static int on_flow(rtel_ctx *ctx, const rtel_flow_record *f0, void *ud) {
  worker *w = ud;
  rtel_flow_record fr = *f0;
  const rtel_flow_record *f = &fr;
  size_t i;
  (void)ctx;
  w->flow_end[f0->end < 9 ? f0->end : 0]++;
  if (!(w->opt->records & REC_FLOW)) {
    return 0;
  }
  COVERAGE(fr);
  w->recs[0]++;
  for (i = 0; i < w->opt->nipfix; i++) {
    (void)ipfix_export_flow(w->ipfix[i], f, rec_now(w));
  }
  if (G.wr) {
    rj_flow(&w->jb, &G.names, f);
    json_done(w);
  }
  return 0;
}

static int on_message(rtel_ctx *ctx, const rtel_msg_record *m0, void *ud) {
  worker *w = ud;
  rtel_msg_record mr = *m0;
  const rtel_msg_record *m = &mr;
  size_t i;
  (void)ctx;
  if (!(w->opt->records & REC_MSG)) {
    return 0;
  }
  COVERAGE(mr);
  w->recs[1]++;
  for (i = 0; i < w->opt->nipfix; i++) {
    (void)ipfix_export_msg(w->ipfix[i], m, rec_now(w));
  }
  if (G.wr) {
    rj_message(&w->jb, &G.names, m);
    json_done(w);
  }
  return 0;
}

static int on_io(rtel_ctx *ctx, const rtel_io_record *io0, void *ud) {
  worker *w = ud;
  rtel_io_record ir = *io0;
  const rtel_io_record *io = &ir;
  size_t i;
  (void)ctx;
  if (G.mt) {
    cm_table_io(G.mt, w->id, w->mix, io0);
  }
  if (!(w->opt->records & REC_IO)) {
    return 0;
  }
  COVERAGE(ir);
  w->recs[2]++;
  for (i = 0; i < w->opt->nipfix; i++) {
    (void)ipfix_export_io(w->ipfix[i], io, rec_now(w));
  }
  if (G.wr) {
    rj_io(&w->jb, &G.names, io);
    json_done(w);
  }
  return 0;
}

static int on_segment(rtel_ctx *ctx, const rtel_segment_record *sg, void *ud) {
  worker *w = ud;
  size_t i;
  (void)ctx;
  if (!(w->opt->records & REC_SEG)) {
    return 0;
  }
  w->recs[3]++;
  for (i = 0; i < w->opt->nipfix; i++) {
    (void)ipfix_export_segment(w->ipfix[i], sg, rec_now(w));
  }
  if (G.wr) {
    rj_segment(&w->jb, &G.names, sg);
    json_done(w);
  }
  return 0;
}

static int on_io_aggregate(rtel_ctx *ctx, const rtel_io_aggregate *g0,
                           void *ud) {
  worker *w = ud;
  rtel_io_aggregate g = *g0;
  size_t i;
  (void)ctx;
  if (!(w->opt->records & REC_SUM)) {
    return 0;
  }
  /* the whole run, or the first period of --interval: it starts with the
   * first packet of the collector, not with the first this worker's shard
   * saw (every worker's periods have the same boundaries: the origin) */
  if (w->opt->interval_ns == 0 || g.period_start < atomic_load(&G.first_ts)) {
    g.period_start = atomic_load(&G.first_ts);
  }
  w->recs[4]++;
  for (i = 0; i < w->opt->nipfix; i++) {
    (void)ipfix_export_aggregate(w->ipfix[i], &g, rec_now(w));
  }
  if (G.wr) {
    rj_aggregate(&w->jb, &G.names, &g);
    json_done(w);
  }
  return 0;
}

static void worker_fail(worker *w, const char *what, int rv) {
  if (!w->failed) {
    fprintf(stderr, PROG ": worker %u: %s: %s\n", w->id, what,
            rtel_strerror(rv));
  }
  w->failed = 1;
}

/* --poll: every input a port (its index the id, as rtel-analyze numbers
 * them), the schedule from |t0|. Every worker's context and the slot
 * thread's get the same ports in the same order, the same schedule and the
 * same start, so they agree on every slot and on the ports measured in it
 * (the round robin depends on nothing else: no alarm priority). */
static int ctx_schedule(rtel_ctx *ctx, const options *opt, rtel_tstamp t0) {
  rtel_schedule sch = {RTEL_SCHED_POLL, opt->poll_ports, opt->poll_slot_ns, 0};
  size_t i;
  int rv;
  for (i = 0; i < opt->nin; i++) {
    rtel_port port = {(uint32_t)i, RTEL_ROLE_UNKNOWN, opt->in[i].obs};
    if ((rv = rtel_ctx_add_port(ctx, &port, t0)) != 0) {
      return rv;
    }
  }
  return rtel_ctx_set_schedule(ctx, &sch, t0);
}

/* --poll: the schedule of the worker's context, once it is known (before
 * the first packet or timer) */
static void worker_schedule(worker *w) {
  int rv;
  if (!w->opt->poll_ports || w->scheduled || !atomic_load(&G.have_sched)) {
    return;
  }
  w->scheduled = 1;
  if (!w->failed &&
      (rv = ctx_schedule(w->ctx, w->opt, atomic_load(&G.sched_t0))) != 0) {
    worker_fail(w, "schedule", rv);
  }
}

static void worker_timers(worker *w, rtel_tstamp t) {
  int rv;
  if (t == RTEL_TSTAMP_NONE || w->failed) {
    return;
  }
  worker_schedule(w);
  if (t > w->now) {
    w->now = t;
  }
  if (rtel_ctx_get_expiry(w->ctx) <= w->now &&
      (rv = rtel_ctx_handle_expiry(w->ctx, w->now)) != 0) {
    worker_fail(w, "timers", rv);
  }
}

/* The time the worker's timers may run to: the reader's clock |c| (every
 * packet up to it is in the ring, and the worker has drained the ring),
 * or, live, the monotonic clock in packet time less the hold-back. */
static rtel_tstamp timer_clock(uint64_t c) {
  rtel_tstamp t = c ? c : RTEL_TSTAMP_NONE;
  if ((G.opt->live || G.opt->replay) && atomic_load(&G.have_offset)) {
    int64_t m =
        (int64_t)mono_ns() + atomic_load(&G.offset) - (int64_t)HOLDBACK_NS;
    if (m > 0 && (t == RTEL_TSTAMP_NONE || (uint64_t)m > t)) {
      t = (uint64_t)m;
    }
  }
  return t;
}

/* --metrics: the worker's counters into its snapshot (every tick, and
 * once more at the end) */
static void worker_publish(worker *w, int final) {
  wsnap s;
  size_t i;
  memset(&s, 0, sizeof(s));
  if (final) {
    s.st = w->stats;
  } else {
    (void)rtel_ctx_get_stats(w->ctx, &s.st);
    for (i = 0; i < w->opt->nipfix; i++) {
      uint64_t *c = w->xcount[i];
      ipfix_export_counts(w->ipfix[i], &c[0], &c[1], &c[2], &c[3]);
    }
  }
  s.pkts = w->pkts;
  s.clipped = w->clipped;
  memcpy(s.ts_src, w->ts_src, sizeof(s.ts_src));
  memcpy(s.recs, w->recs, sizeof(s.recs));
  memcpy(s.flow_end, w->flow_end, sizeof(s.flow_end));
  s.failed = (uint64_t)w->failed;
  memcpy(s.ipfix, w->xcount, sizeof(s.ipfix));
  cm_snap_publish(&w->snap, &s);
}

static void worker_tick(worker *w) {
  size_t i;
  for (i = 0; i < w->opt->nipfix; i++) {
    (void)ipfix_export_tick(w->ipfix[i], w->now);
  }
  if (G.wr && w->jb.len) {
    wr_submit(G.wr, &w->jb, w->jb_lines);
    w->jb_lines = 0;
  }
  if (G.mt) {
    worker_publish(w, 0);
  }
}

/* Packets taken from the ring for one rtel_ctx_read_pkts_timed() call,
 * which runs the due timers before each packet (as rtel-analyze runs
 * them) and, with more than one, lets the library prefetch the tables of
 * the packets to come. Their slots stay the worker's until it publishes
 * its tail, so a batch is handed over before every publication (and
 * before a slot mark). With IPFIX export a batch is one packet: an
 * exporter stamps each record with the time of the packet that made it
 * (rec_now()), which a longer batch does not tell. */
typedef struct wbatch {
  size_t n;
  rtel_pkt_info pi[RING_BATCH];
  const uint8_t *pkt[RING_BATCH];
  size_t len[RING_BATCH];
} wbatch;

/* Hands |b| to the worker's context, the timer clock moved to its last
 * packet first. */
static void worker_batch(worker *w, wbatch *b) {
  size_t i, done = 0;
  for (i = 0; i < b->n; i++) {
    if (b->pi[i].ts > w->now) {
      w->now = b->pi[i].ts;
    }
  }
  while (done < b->n && !w->failed) {
    rtel_ssize k = rtel_ctx_read_pkts_timed(
        w->ctx, b->pi + done, b->pkt + done, b->len + done, b->n - done);
    if (k < 0) {
      worker_fail(w, "packet or timers", (int)k);
      break;
    }
    done += (size_t)k;
  }
  b->n = 0;
}

/* Up to |budget| packets from the ring. Returns how many. */
static size_t drain(worker *w, size_t budget) {
  ring *q = &w->q;
  size_t t = atomic_load_explicit(&q->tail, memory_order_relaxed);
  size_t h = atomic_load_explicit(&q->head, memory_order_acquire);
  size_t n = 0;
  size_t cap = w->opt->nipfix == 0 ? RING_BATCH : 1;
  wbatch b;
  rtel_pkt_info pi;
  memset(&pi, 0, sizeof(pi));
  b.n = 0;
  while (t != h && n < budget) {
    const slot *s = ring_slot(q, t);
    int rv;
    worker_schedule(w); /* the reader set it before the first packet */
    if (s->mark) {
      worker_batch(w, &b); /* the packets before the mark first */
      /* a slot boundary the reader ran here, in the packets' order */
      if (!w->failed && rtel_ctx_get_expiry(w->ctx) <= s->ts &&
          (rv = rtel_ctx_handle_expiry(w->ctx, s->ts)) != 0) {
        worker_fail(w, "timers", rv);
      }
      if (s->ts > w->now) {
        w->now = s->ts;
      }
      t++;
      n++;
      continue;
    }
    if (!w->failed) {
      pi.ts = s->ts;
      pi.wire_len = s->wire_len;
      pi.obs = s->obs;
      pi.port = s->obs;
      pi.linktype = s->linktype;
      b.pi[b.n] = pi;
      b.pkt[b.n] = s->data;
      b.len[b.n] = s->caplen;
      if (++b.n == cap) {
        worker_batch(w, &b);
      }
    }
    w->pkts++;
    w->ts_src[s->tssrc]++;
    w->clipped += s->clipped;
    t++;
    n++;
    if (n % RING_BATCH == 0) {
      worker_batch(w, &b); /* (before its slots are given back) */
      atomic_store_explicit(&q->tail, t, memory_order_release);
    }
  }
  worker_batch(w, &b);
  atomic_store_explicit(&q->tail, t, memory_order_release);
  return n;
}

/* The CPU time of the calling thread, ns (for the summary: what each
 * thread cost, the reader apart from the workers). */
static uint64_t thread_cpu_ns(void) {
  struct timespec t;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0) {
    return 0;
  }
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void *worker_main(void *arg) {
  worker *w = arg;
  sigset_t all;
  unsigned idle = 0;
  rtel_tstamp end;
  int rv;
  size_t i;

  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  w->next_tick = mono_ns() + TICK_NS;
  for (;;) {
    uint64_t c = atomic_load_explicit(&G.clock, memory_order_acquire);
    int done = atomic_load_explicit(&G.done, memory_order_acquire);
    size_t n = drain(w, 512);
    uint64_t m;
    if (n == 512) {
      idle = 0;
      continue; /* a busy ring: timers after it runs dry */
    }
    worker_timers(w, timer_clock(c));
    m = mono_ns();
    if (m >= w->next_tick) {
      worker_tick(w);
      w->next_tick = m + TICK_NS;
    }
    if (n) {
      idle = 0;
      continue;
    }
    if (done && atomic_load_explicit(&w->q.head, memory_order_acquire) ==
                    atomic_load_explicit(&w->q.tail, memory_order_relaxed)) {
      w->drained_mono = mono_ns();
      w->drained_cpu_ns = thread_cpu_ns();
      break;
    }
    /* nothing to do: sleep until the reader has RING_WAKE packets for
     * this worker or its input pauses, at most 50 us to 5 ms (longer and
     * longer while idle: the timers and the ticks need the worker too).
     * No spinning: with more threads than cores a spinning worker takes
     * the core the reader needs. */
    {
      unsigned k = idle < 7 ? idle : 7;
      idle++;
      atomic_store(&w->q.sleeping, 1);
      if (atomic_load(&w->q.head) ==
              atomic_load_explicit(&w->q.tail, memory_order_relaxed) &&
          !atomic_load(&G.done)) {
        ring_wait(&w->q.sleeping, 1,
                  50000ull << k > 5000000ull ? 5000000ull : 50000ull << k);
      }
      atomic_store(&w->q.sleeping, 0);
    }
  }
  /* the end: every record still open, marked flushed */
  end = atomic_load(&G.end_ts);
  if (end < w->now) {
    end = w->now;
  }
  if (!w->failed && (rv = rtel_ctx_flush(w->ctx, end)) != 0) {
    worker_fail(w, "flush", rv);
  }
  w->now = end;
  (void)rtel_ctx_get_stats(w->ctx, &w->stats);
  if (G.wr && w->opt->stats) {
    char name[32];
    snprintf(name, sizeof(name), "worker%u", w->id);
    rj_stats(&w->jb, name, NULL, &w->stats);
    w->jb_lines++;
  }
  if (G.wr) {
    wr_submit(G.wr, &w->jb, w->jb_lines);
    w->jb_lines = 0;
  }
  for (i = 0; i < w->opt->nipfix; i++) {
    uint64_t *c = w->xcount[i];
    (void)ipfix_export_tick(w->ipfix[i], w->now);
    ipfix_export_counts(w->ipfix[i], &c[0], &c[1], &c[2], &c[3]);
    (void)ipfix_export_close(w->ipfix[i], w->now, NULL);
    w->ipfix[i] = NULL;
  }
  if (G.mt) {
    worker_publish(w, 1);
  }
  w->cpu_ns = thread_cpu_ns();
  return NULL;
}

static int worker_init(worker *w, unsigned id, const options *opt) {
  rtel_settings s;
  rtel_callbacks cb;
  size_t i;
  int rv;
  memset(w, 0, sizeof(*w));
  w->id = id;
  w->opt = opt;
  rj_init(&w->jb);
  w->q.mask = opt->depth - 1;
  w->q.wake = opt->depth / 2 < RING_WAKE ? opt->depth / 2 : RING_WAKE;
  w->q.stride = (sizeof(slot) + opt->slot_size + 63) & ~(size_t)63;
  w->q.mem = aligned_alloc(64, w->q.stride * opt->depth);
  if (w->q.mem == NULL) {
    fprintf(stderr, PROG ": out of memory (rings: -j, --queue, --slot)\n");
    return -1;
  }
  memset(w->q.mem, 0, w->q.stride * opt->depth); /* real pages now */
  atomic_init(&w->q.head, 0);
  atomic_init(&w->q.tail, 0);
  atomic_init(&w->drops, 0);
  if (opt->metrics && (cm_snap_init(&w->snap, sizeof(wsnap)) != 0 ||
                       (w->mix = cm_index_new()) == NULL)) {
    fprintf(stderr, PROG ": out of memory (--metrics)\n");
    return -1;
  }
  rtel_settings_default(&s);
  s.decode_flags = opt->decode_flags;
  s.roce_udp_port = opt->roce_port;
  if (opt->max_flows) {
    s.max_flows = opt->max_flows;
    s.max_qp_pairs = 0;
  }
  if (opt->max_ios) {
    s.max_ios = opt->max_ios;
  }
  if (opt->flow_idle_ns) {
    s.flow_idle_timeout = opt->flow_idle_ns;
  }
  if (opt->io_timeout_ns) {
    s.io_timeout = opt->io_timeout_ns;
  }
  s.report_interval = opt->interval_ns;
  s.period_origin = opt->origin_ns;
  if (opt->nin > s.max_ports) {
    s.max_ports = (uint32_t)opt->nin;
  }
  memset(&cb, 0, sizeof(cb));
  cb.on_flow = on_flow;
  cb.on_message = on_message;
  cb.on_io = on_io;
  cb.on_segment = on_segment;
  cb.on_io_aggregate = on_io_aggregate;
  rv = rtel_ctx_new(&w->ctx, &s, &cb, table_mem(), w);
  if (rv != 0) {
    fprintf(stderr, PROG ": worker %u: %s\n", id, rtel_strerror(rv));
    return -1;
  }
  for (i = 0; i < opt->nin; i++) {
    if (opt->compute_side && strcmp(opt->in[i].obs, opt->compute_side) == 0) {
      (void)rtel_ctx_set_obs_role(w->ctx, (uint32_t)i, RTEL_ROLE_COMPUTE);
    }
    if (opt->storage_side && strcmp(opt->in[i].obs, opt->storage_side) == 0) {
      (void)rtel_ctx_set_obs_role(w->ctx, (uint32_t)i, RTEL_ROLE_STORAGE);
    }
  }
  for (i = 0; i < opt->nipfix; i++) {
    ipfix_export_opts xo;
    char err[512];
    memset(&xo, 0, sizeof(xo));
    xo.udp = opt->ipfix[i];
    xo.pen = opt->pen;
    xo.domain = opt->domain + id;
    xo.mtu = opt->mtu;
    xo.keep_going = 1;
    w->ipfix[i] = ipfix_export_open(&xo, err, sizeof(err));
    if (w->ipfix[i] == NULL) {
      fprintf(stderr, PROG ": %s\n", err);
      return -2;
    }
  }
  return 0;
}

static void worker_free(worker *w) {
  cm_index_free(w->mix);
  cm_snap_free(&w->snap);
  rtel_ctx_del(w->ctx);
  free(w->q.mem);
  rj_free(&w->jb);
}

/* ------------------------------------------------------------ slots */

/* --poll. The reader owns a context of its own that sees no packet, only
 * the ports and the schedule every worker's context has (ctx_schedule).
 * Before it hands out a packet it runs that context's timers at the
 * packet's time, as rtel-analyze --poll runs its context's (live, also on
 * the capture clock mapped from the monotonic one, so that a boundary is
 * due on the wall clock, packets or not); when a slot boundary was due, it
 * puts a timer mark of that time into every worker's ring, in front of
 * the packet: each worker's context runs its timers there, at the same
 * time, so every context begins the same slots (a context that runs its
 * timers late begins the slot that contains the time: the marks make
 * them all equally late, and as late as rtel-analyze) and measures the
 * same ports. The reader's on_slot hands each event to the slot thread,
 * which writes a "slot" record to --json and runs the --on-slot hook, one
 * at a time, in order: a slow hook delays the next hook, never the reader
 * or a worker. */
/* A slot event handed from the reader to the slot thread. */
typedef struct slot_ev {
  struct slot_ev *next;
  rtel_slot_event ev;
  uint32_t ids[]; /* started, then stopped */
} slot_ev;

typedef struct slotter {
  pthread_t thread;
  rtel_ctx *ctx; /* the reader's */
  int scheduled; /* the reader's */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  slot_ev *head, *tail;
  int quit;
  rj_buf jb;
  /* counted by the reader (slots) and the slot thread, read by the
   * summary and --metrics */
  _Atomic uint64_t slots, calls, failures, late, timeouts;
  _Atomic uint64_t dropped; /* events not queued: SLOT_QUEUE_MAX waiting */
  size_t pending;           /* events queued (under mu) */
  int reported;             /* a hook failure was written */
} slotter;

static slotter SL;

/* Most slot events waiting for the slot thread (hooks behind: each runs
 * for up to --on-slot-timeout); past it an event is dropped, its record
 * and its hook run both, and counted. */
#define SLOT_QUEUE_MAX 1024

/* "KEY=v1 v2 ...": the ids (names 0) or names of |n| ports */
static char *env_ports(const char *key, const uint32_t *ids, size_t n,
                       int names) {
  char *p = NULL;
  size_t len = 0, i;
  FILE *f = open_memstream(&p, &len);
  if (f == NULL) {
    return NULL;
  }
  fprintf(f, "%s=", key);
  for (i = 0; i < n; i++) {
    if (names) {
      fprintf(f, "%s%s", i ? " " : "",
              ids[i] < G.names.nobs ? G.names.obs[ids[i]] : "?");
    } else {
      fprintf(f, "%s%" PRIu32, i ? " " : "", ids[i]);
    }
  }
  if (fclose(f) != 0) {
    free(p);
    return NULL;
  }
  return p;
}

static void hook_failed(slotter *sl, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void hook_failed(slotter *sl, const char *fmt, ...) {
  va_list ap;
  cm_add(&sl->failures, 1);
  if (sl->reported) {
    return;
  }
  sl->reported = 1;
  fprintf(stderr, PROG ": --on-slot %s: ", G.opt->on_slot);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, " (counting the failures)\n");
}

/* Runs the --on-slot command (fork and exec: posix_spawnp, no shell) with
 * the slot in its environment, and waits for it. Its standard input is
 * /dev/null, its standard output the collector's standard error (not the
 * JSON lines of --json -). */
static void run_hook(slotter *sl, const rtel_slot_event *ev) {
  char **envp, *own[7];
  char num[3][64];
  char *argv[2];
  size_t n = 0, k = 0, i;
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  sigset_t none, def;
  pid_t pid;
  int rv, st;
  cm_add(&sl->calls, 1);
  if (G.opt->live && atomic_load(&G.have_offset)) {
    int64_t m = (int64_t)mono_ns() + atomic_load(&G.offset);
    if (ev->end != RTEL_TSTAMP_NONE && m > 0 && (uint64_t)m > ev->end) {
      cm_add(&sl->late, 1); /* its slot is over: the hooks are behind */
    }
  }
  snprintf(num[0], sizeof(num[0]), "RTEL_SLOT=%" PRIu64, ev->slot);
  snprintf(num[1], sizeof(num[1]), "RTEL_SLOT_START=%" PRIu64, ev->start);
  snprintf(num[2], sizeof(num[2]), "RTEL_SLOT_END=%" PRIu64, ev->end);
  own[0] = env_ports("RTEL_START", ev->started, ev->nstarted, 0);
  own[1] = env_ports("RTEL_STOP", ev->stopped, ev->nstopped, 0);
  own[2] = env_ports("RTEL_START_NAMES", ev->started, ev->nstarted, 1);
  own[3] = env_ports("RTEL_STOP_NAMES", ev->stopped, ev->nstopped, 1);
  own[4] = num[0];
  own[5] = num[1];
  own[6] = num[2];
  while (environ[n]) {
    n++;
  }
  envp = calloc(n + 8, sizeof(*envp));
  if (envp == NULL || !own[0] || !own[1] || !own[2] || !own[3]) {
    hook_failed(sl, "out of memory");
    goto out;
  }
  for (i = 0; i < n; i++) {
    /* the collector's own variables replace any of the same names */
    if (strncmp(environ[i], "RTEL_SLOT", 9) != 0 &&
        strncmp(environ[i], "RTEL_START", 10) != 0 &&
        strncmp(environ[i], "RTEL_STOP", 9) != 0) {
      envp[k++] = environ[i];
    }
  }
  for (i = 0; i < 7; i++) {
    envp[k++] = own[i];
  }
  envp[k] = NULL;
  argv[0] = (char *)G.opt->on_slot;
  argv[1] = NULL;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, 2, 1);
  posix_spawnattr_init(&at);
  /* the thread blocks every signal and SIGPIPE is ignored: not the hook */
  sigemptyset(&none);
  sigemptyset(&def);
  sigaddset(&def, SIGPIPE);
  posix_spawnattr_setsigmask(&at, &none);
  posix_spawnattr_setsigdefault(&at, &def);
  /* its own process group: a timeout ends what it started too */
  posix_spawnattr_setpgroup(&at, 0);
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK |
                                    POSIX_SPAWN_SETSIGDEF |
                                    POSIX_SPAWN_SETPGROUP);
  rv = posix_spawnp(&pid, G.opt->on_slot, &fa, &at, argv, envp);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  if (rv != 0) {
    hook_failed(sl, "%s", strerror(rv));
    goto out;
  }
  /* wait, at most --on-slot-timeout: then SIGTERM to its process group
   * (a script's children too), SIGKILL a second later */
  {
    uint64_t t0 = mono_ns(), limit = G.opt->hook_timeout_ns;
    int sent = 0;
    for (;;) {
      uint64_t m;
      rv = waitpid(pid, &st, WNOHANG);
      if (rv != 0 && !(rv < 0 && errno == EINTR)) {
        break;
      }
      m = mono_ns() - t0;
      if (sent == 0 && m >= limit) {
        (void)kill(-pid, SIGTERM);
        sent = 1;
        cm_add(&sl->timeouts, 1);
      } else if (sent == 1 && m >= limit + 1000000000ull) {
        (void)kill(-pid, SIGKILL);
        sent = 2;
      }
      sleep_ns(m < 10000000u ? 1000000u : 10000000u);
    }
    if (sent && rv > 0) {
      hook_failed(sl, "slot %" PRIu64 ": still running after %.3f s: ended",
                  ev->slot, (double)limit / 1e9);
      goto out;
    }
  }
  if (rv < 0) {
    hook_failed(sl, "waitpid: %s", strerror(errno));
  } else if (WIFSIGNALED(st)) {
    hook_failed(sl, "slot %" PRIu64 ": killed by signal %d", ev->slot,
                WTERMSIG(st));
  } else if (WIFEXITED(st) && WEXITSTATUS(st) != 0) {
    hook_failed(sl, "slot %" PRIu64 ": exit %d", ev->slot, WEXITSTATUS(st));
  }
out:
  for (i = 0; i < 4; i++) {
    free(own[i]);
  }
  free(envp);
}

/* The reader's on_slot: a copy of the event to the slot thread. */
static int on_slot(rtel_ctx *ctx, const rtel_slot_event *ev, void *ud) {
  slotter *sl = ud;
  size_t n = ev->nstarted + ev->nstopped;
  slot_ev *e = malloc(sizeof(*e) + (n ? n : 1) * sizeof(uint32_t));
  (void)ctx;
  cm_add(&sl->slots, 1);
  if (e == NULL) {
    hook_failed(sl, "slot %" PRIu64 ": out of memory", ev->slot);
    return 0;
  }
  e->next = NULL;
  e->ev = *ev;
  if (ev->nstarted) {
    memcpy(e->ids, ev->started, ev->nstarted * sizeof(uint32_t));
  }
  if (ev->nstopped) {
    memcpy(e->ids + ev->nstarted, ev->stopped,
           ev->nstopped * sizeof(uint32_t));
  }
  e->ev.started = e->ids;
  e->ev.stopped = e->ids + ev->nstarted;
  pthread_mutex_lock(&sl->mu);
  if (sl->pending >= SLOT_QUEUE_MAX) {
    pthread_mutex_unlock(&sl->mu);
    cm_add(&sl->dropped, 1);
    free(e);
    return 0;
  }
  sl->pending++;
  if (sl->tail) {
    sl->tail->next = e;
  } else {
    sl->head = e;
  }
  sl->tail = e;
  pthread_cond_signal(&sl->cv);
  pthread_mutex_unlock(&sl->mu);
  return 0;
}

static void *slot_main(void *arg) {
  slotter *sl = arg;
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  for (;;) {
    slot_ev *e;
    pthread_mutex_lock(&sl->mu);
    while (sl->head == NULL && !sl->quit) {
      pthread_cond_wait(&sl->cv, &sl->mu);
    }
    e = sl->head;
    if (e) {
      sl->pending--;
      sl->head = e->next;
      if (sl->head == NULL) {
        sl->tail = NULL;
      }
    }
    pthread_mutex_unlock(&sl->mu);
    if (e == NULL) {
      break; /* quit, and nothing left */
    }
    if (G.wr) {
      rj_slot(&sl->jb, &G.names, &e->ev);
      wr_submit(G.wr, &sl->jb, 1);
    }
    if (G.opt->on_slot) {
      run_hook(sl, &e->ev);
    }
    free(e);
  }
  return NULL;
}

static int slot_init(slotter *sl) {
  rtel_settings s;
  rtel_callbacks cb;
  int rv;
  memset(sl, 0, sizeof(*sl));
  rj_init(&sl->jb);
  pthread_mutex_init(&sl->mu, NULL);
  pthread_cond_init(&sl->cv, NULL);
  rtel_settings_default(&s);
  if (G.opt->nin > s.max_ports) {
    s.max_ports = (uint32_t)G.opt->nin;
  }
  memset(&cb, 0, sizeof(cb));
  cb.on_slot = on_slot;
  if ((rv = rtel_ctx_new(&sl->ctx, &s, &cb, NULL, sl)) != 0) {
    fprintf(stderr, PROG ": --poll: %s\n", rtel_strerror(rv));
    return -1;
  }
  return 0;
}

static void slot_stop(slotter *sl) {
  pthread_mutex_lock(&sl->mu);
  sl->quit = 1;
  pthread_cond_signal(&sl->cv);
  pthread_mutex_unlock(&sl->mu);
  pthread_join(sl->thread, NULL);
}

/* ------------------------------------------------------------ reader */

/* The packet time of an ERSPAN III copy from its switch timestamp: the
 * 32 bits of IEEE 1588 nanoseconds (granularity 2) are put in the second
 * of the capture time nearest to it; the free-running 100 us and 100 ns
 * counters (0, 1) are unwrapped per session and anchored to the capture
 * time of the session's first copy (and again after a silence of half
 * their wrap). Returns RTEL_TSTAMP_NONE for granularity 3
 * (platform-specific) or a stamp out of range. */
static rtel_tstamp erspan_time(input *in, const rtel_pkt_hd *hd,
                               rtel_tstamp cap) {
  erspan_clk *c;
  int64_t d;
  uint64_t unit, half;
  if (hd->erspan_gra == 2) {
    uint64_t sec = cap / 1000000000u, best = RTEL_TSTAMP_NONE, bd = 0;
    int k;
    if (hd->erspan_ts >= 1000000000u) {
      return RTEL_TSTAMP_NONE;
    }
    for (k = -1; k <= 1; k++) {
      uint64_t t, dd;
      if (sec == 0 && k < 0) {
        continue;
      }
      t = (sec + (uint64_t)(int64_t)k) * 1000000000u + hd->erspan_ts;
      dd = t > cap ? t - cap : cap - t;
      if (best == RTEL_TSTAMP_NONE || dd < bd) {
        best = t;
        bd = dd;
      }
    }
    return best;
  }
  if (hd->erspan_gra > 1) {
    return RTEL_TSTAMP_NONE;
  }
  if (in->clk == NULL && (in->clk = calloc(1024, sizeof(*in->clk))) == NULL) {
    return RTEL_TSTAMP_NONE;
  }
  c = &in->clk[hd->erspan_session & 0x3ffu];
  unit = hd->erspan_gra == 0 ? 100000u : 100u;
  half = (1ull << 31) * unit;
  if (!c->init || c->gra != hd->erspan_gra || cap - c->last_ts > half) {
    c->init = 1;
    c->gra = hd->erspan_gra;
    c->ext = c->anchor_ext = hd->erspan_ts;
    c->anchor = cap;
  } else {
    d = (int32_t)(hd->erspan_ts - c->last);
    c->ext += d;
  }
  c->last = hd->erspan_ts;
  c->last_ts = cap;
  d = c->ext - c->anchor_ext;
  if (d < 0 && (uint64_t)(-d) * unit > c->anchor) {
    return RTEL_TSTAMP_NONE;
  }
  return d < 0 ? c->anchor - (uint64_t)(-d) * unit
               : c->anchor + (uint64_t)d * unit;
}

typedef struct reader {
  const options *opt;
  rtel_decode_opts dopt;
  uint64_t first_mono; /* replay: monotonic time of the first packet */
  rtel_tstamp first_ts;
  rtel_tstamp last_ts; /* the latest packet time */
  uint64_t pkts;
  unsigned unpublished;  /* packets in rings, not yet published */
  unsigned batch;        /* publish every |batch| packets (1: a pipe) */
  uint64_t cpu_ns;       /* the reader's CPU time up to the end of the input */
  uint64_t setup_cpu_ns; /* of it, before the first read (contexts) */
  uint64_t start_mono;   /* the first read */
} reader;

static void publish_offset(rtel_tstamp ts) {
  atomic_store(&G.offset, (int64_t)ts - (int64_t)mono_ns());
  atomic_store(&G.have_offset, 1);
}

/* The next free slot of |w|'s ring, or NULL (counted as a drop): live,
 * when the ring is full (the kernel's ring is never held up); a file
 * waits for room (nothing is lost, the reader is never held for longer
 * than the worker takes to free a slot) unless stopped. */
static slot *ring_claim(worker *w, int live) {
  ring *q = &w->q;
  size_t h = q->prod;
  if (h - q->tail_seen > q->mask) {
    /* full as last seen: look again, and let the worker see what is
     * there before waiting for it */
    atomic_store(&q->head, h);
    if (atomic_load(&q->sleeping)) {
      ring_wake_word(&q->sleeping);
    }
    while (h - (q->tail_seen =
                    atomic_load_explicit(&q->tail, memory_order_acquire)) >
           q->mask) {
      if (live || atomic_load(&stop_flag)) {
        cm_add(&w->drops, 1);
        return NULL;
      }
      sleep_ns(20000);
    }
  }
  return ring_slot(q, h);
}

/* The slot ring_claim() returned is filled: hand it over (published by
 * rings_publish()). */
static void ring_commit(ring *q) { q->prod++; }

/* Publish what every ring holds, then the reader's clock: every RING_BATCH
 * packets and whenever the input pauses (a live batch ends, a replay
 * waits, the files end), so that no packet waits for a batch to fill.
 * The clock goes last: a worker that reads the clock and then its ring's
 * head has every packet up to that time (its timers never run ahead of a
 * packet still held back). */
static void rings_publish(reader *rd, int pause) {
  unsigned k;
  for (k = 0; k < G.nw; k++) {
    ring *q = &G.w[k].q;
    if (atomic_load_explicit(&q->head, memory_order_relaxed) != q->prod) {
      atomic_store(&q->head, q->prod);
    }
    /* the head is stored before the flag is read, and the worker stores
     * the flag before it reads the head (both sequentially consistent):
     * one of the two sees the other, so no worker sleeps on a packet */
    if (atomic_load(&q->sleeping) &&
        (pause ||
         q->prod - atomic_load_explicit(&q->tail, memory_order_relaxed) >=
             q->wake)) {
      ring_wake_word(&q->sleeping);
    }
  }
  rd->unpublished = 0;
  if (rd->last_ts != atomic_load_explicit(&G.clock, memory_order_relaxed)) {
    atomic_store_explicit(&G.clock, rd->last_ts, memory_order_release);
  }
}

/* --poll: the reader's schedule context at time |t| (see "slots"): its
 * slot 0 once the schedule is known, then its timers; with |marks|, a
 * boundary begun puts a timer mark of |t| into every worker's ring. */
static void slot_advance(reader *rd, rtel_tstamp t, int marks) {
  slotter *sl = &SL;
  uint64_t before;
  unsigned k;
  int rv;
  if (sl->ctx == NULL || t == RTEL_TSTAMP_NONE) {
    return;
  }
  if (!sl->scheduled) {
    if (!atomic_load(&G.have_sched)) {
      return;
    }
    sl->scheduled = 1; /* slot 0 is reported from inside */
    if ((rv = ctx_schedule(sl->ctx, rd->opt, atomic_load(&G.sched_t0))) != 0) {
      fprintf(stderr, PROG ": --poll: %s\n", rtel_strerror(rv));
    }
  }
  if (rtel_ctx_get_expiry(sl->ctx) > t) {
    return;
  }
  before = cm_get(&sl->slots);
  if ((rv = rtel_ctx_handle_expiry(sl->ctx, t)) != 0) {
    fprintf(stderr, PROG ": --poll: %s\n", rtel_strerror(rv));
  }
  if (!marks || cm_get(&sl->slots) == before) {
    return;
  }
  for (k = 0; k < G.nw; k++) {
    slot *s = ring_claim(&G.w[k], rd->opt->live);
    if (s) {
      s->ts = t;
      s->mark = 1;
      s->caplen = s->wire_len = 0;
      s->tssrc = TS_CAPTURE;
      s->clipped = 0;
      ring_commit(&G.w[k].q);
    }
  }
}

/* One packet of |caplen| bytes (|wire_len| on the wire), captured at |ts|,
 * of link type |linktype| (RTEL_LINK_*): decode, shard, copy into the
 * worker's ring. */
static void dispatch(reader *rd, input *in, rtel_tstamp ts,
                     const uint8_t *data, uint32_t caplen, uint32_t wire_len,
                     uint32_t linktype) {
  const options *opt = rd->opt;
  rtel_pkt_hd hd;
  uint32_t tssrc = TS_CAPTURE;
  worker *w;
  ring *q;
  slot *s;
  size_t len;
  rtel_decode_opts dopt = rd->dopt;
  dopt.linktype = linktype;
  (void)rtel_pkt_decode(&hd, &dopt, data, caplen, wire_len);
  if (opt->tsmode == TSMODE_AUTO && (hd.flags & RTEL_HD_F_ERSPAN_TS)) {
    rtel_tstamp e = erspan_time(in, &hd, ts);
    if (e != RTEL_TSTAMP_NONE) {
      ts = e;
      tssrc = TS_ERSPAN;
    }
  }
  w = &G.w[rtel_shard_key(&hd) % G.nw];
  q = &w->q;
  cm_add(&in->pkts, 1);
  rd->pkts++;
  if (rd->pkts == 1) {
    rd->first_ts = ts;
    atomic_store(&G.first_ts, ts);
    if (opt->poll_ports && !opt->live) {
      /* files: the schedule begins with the first packet, as
       * rtel-analyze --poll begins it (before the packet is in a ring) */
      atomic_store(&G.sched_t0, ts);
      atomic_store(&G.have_sched, 1);
    }
    if (opt->live) {
      publish_offset(ts);
    }
  } else if (opt->live) {
    /* a clock step of the capture clock (or of the switches') of more
     * than a second: the mapping follows it */
    int64_t m = (int64_t)mono_ns() + atomic_load(&G.offset);
    int64_t dd = (int64_t)ts - m;
    if (dd > 1000000000 || dd < -1000000000) {
      publish_offset(ts);
    }
  }
  slot_advance(rd, ts, 1);
  if ((s = ring_claim(w, opt->live)) == NULL) {
    return;
  }
  len = caplen < opt->slot_size ? caplen : opt->slot_size;
  memcpy(s->data, data, len);
  s->ts = ts;
  s->caplen = (uint32_t)len;
  s->wire_len = wire_len > len ? wire_len : (uint32_t)len;
  s->obs = (uint32_t)(in - opt->in);
  s->linktype = linktype;
  s->tssrc = tssrc;
  s->clipped = len < caplen;
  s->mark = 0;
  ring_commit(q);
  if (ts > rd->last_ts) {
    rd->last_ts = ts;
  }
  if (++rd->unpublished >= rd->batch) {
    rings_publish(rd, rd->batch == 1);
  }
}

/* The decoder's link type of a file's packet: a link type it does not
 * read is passed as it is (its packets are counted as malformed, reason
 * unsupported link type). */
static uint32_t file_linktype(uint32_t lt) {
  uint32_t l = pcap_input_file_linktype(lt);
  return l ? l : lt ? lt : 0x7fffffffu;
}

static int read_ahead(input *in) {
  int rv = capfile_next(in->cf, &in->pk);
  in->have = rv == 1;
  if (rv < 0 && !atomic_load(&stop_flag)) {
    fprintf(stderr, PROG ": %s: after packet %" PRIu64 ": %s\n", in->src,
            capfile_packets(in->cf), capfile_error(in->cf));
    return 1;
  }
  return 0;
}

/* Capture files, merged in timestamp order (as rtel-analyze does); with
 * --replay at their own pace. Returns 0, or 1 after a read error. */
static int read_files(reader *rd) {
  const options *opt = rd->opt;
  size_t i;
  int status = 0;
  /* a pipe may pause for as long as its writer likes: what came through
   * is handed over at once; regular files are read in batches */
  rd->batch = RING_BATCH;
  for (i = 0; i < opt->nin; i++) {
    struct stat st;
    const char *src = opt->in[i].src;
    if (strcmp(src, "-") == 0 || stat(src, &st) != 0 || !S_ISREG(st.st_mode)) {
      rd->batch = 1;
    }
  }
  if (opt->primed) {
    status = opt->primed_status;
  } else {
    for (i = 0; i < opt->nin; i++) {
      if (read_ahead(&opt->in[i]) != 0) {
        status = 1;
      }
    }
  }
  while (!atomic_load(&stop_flag)) {
    input *next = NULL;
    for (i = 0; i < opt->nin; i++) {
      input *in = &opt->in[i];
      if (in->have && (next == NULL || in->pk.ts < next->pk.ts)) {
        next = in;
      }
    }
    if (next == NULL) {
      break;
    }
    if (opt->replay) {
      rtel_tstamp ts = next->pk.ts;
      if (rd->pkts == 0) {
        rd->first_mono = mono_ns();
        publish_offset(ts);
      } else if (ts > rd->first_ts) {
        uint64_t due = rd->first_mono + (ts - rd->first_ts), m;
        if (mono_ns() < due) {
          rings_publish(rd, 1); /* what came before the pause */
        }
        while ((m = mono_ns()) < due && !atomic_load(&stop_flag)) {
          uint64_t d = due - m;
          sleep_ns(d > 100000000u ? 100000000u : d);
        }
        if (atomic_load(&stop_flag)) {
          break;
        }
      }
    }
    dispatch(rd, next, next->pk.ts, next->pk.data, next->pk.caplen,
             next->pk.len, file_linktype(next->pk.linktype));
    if (read_ahead(next) != 0) {
      status = 1;
    }
  }
  rings_publish(rd, 1);
  return status;
}

typedef struct live_arg {
  reader *rd;
  input *in;
} live_arg;

static void live_cb(u_char *user, const struct pcap_pkthdr *ph,
                    const u_char *data) {
  live_arg *a = (live_arg *)(void *)user;
  dispatch(a->rd, a->in, pcap_input_ts(ph, a->in->nano), data, ph->caplen,
           ph->len, a->in->linktype);
}

/* Live interfaces until SIGTERM or SIGINT. Returns 0, or 1 after a capture
 * error. */
static int read_live(reader *rd) {
  const options *opt = rd->opt;
  struct pollfd pfd[64];
  live_arg args[64];
  size_t i;
  int status = 0;
  uint64_t next_stats = 0;
  for (i = 0; i < opt->nin; i++) {
    pfd[i].fd = opt->in[i].fd;
    pfd[i].events = POLLIN;
    args[i].rd = rd;
    args[i].in = &opt->in[i];
  }
  while (!atomic_load(&stop_flag)) {
    int n, wait_ms = 100;
    if (SL.ctx && atomic_load(&G.have_offset)) {
      /* --poll: the boundaries on the capture clock, packets or not; the
       * workers run them on theirs (with the hold-back) */
      int64_t m = (int64_t)mono_ns() + atomic_load(&G.offset);
      rtel_tstamp ex;
      slot_advance(rd, m > 0 ? (uint64_t)m : RTEL_TSTAMP_NONE, 0);
      ex = rtel_ctx_get_expiry(SL.ctx);
      if (m > 0 && ex != RTEL_TSTAMP_NONE) {
        uint64_t d = ex > (uint64_t)m ? ex - (uint64_t)m : 0;
        wait_ms = d >= 100000000u ? 100 : (int)((d + 999999u) / 1000000u);
      }
    }
    n = poll(pfd, (nfds_t)opt->nin, wait_ms);
    if (n < 0 && errno != EINTR) {
      fprintf(stderr, PROG ": poll: %s\n", strerror(errno));
      return 1;
    }
    for (i = 0; i < opt->nin; i++) {
      int k;
      /* nonblocking: what the kernel holds now, then back to poll (a
       * TPACKET_V3 block may be ready without POLLIN on old kernels) */
      do {
        k = pcap_dispatch(opt->in[i].pc, 256, live_cb,
                          (u_char *)(void *)&args[i]);
      } while (k > 0 && !atomic_load(&stop_flag));
      if (k == PCAP_ERROR) {
        fprintf(stderr, PROG ": %s: %s\n", opt->in[i].src,
                pcap_geterr(opt->in[i].pc));
        status = 1;
        atomic_store(&stop_flag, 1);
      }
    }
    rings_publish(rd, 1); /* the kernel's buffers are empty for now */
    /* --metrics: the kernel's drops, once a second (pcap_stats is the
     * reader's: the handle is not shared) */
    if (G.mt && mono_ns() >= next_stats) {
      for (i = 0; i < opt->nin; i++) {
        struct pcap_stat ps;
        if (pcap_stats(opt->in[i].pc, &ps) == 0) {
          atomic_store_explicit(&opt->in[i].kdrops, ps.ps_drop,
                                memory_order_relaxed);
          atomic_store_explicit(&opt->in[i].ifdrops, ps.ps_ifdrop,
                                memory_order_relaxed);
        }
      }
      next_stats = mono_ns() + 1000000000u;
    }
  }
  return status;
}

static char default_filter[512];

static int open_inputs(options *opt) {
  char errbuf[PCAP_ERRBUF_SIZE];
  size_t i;
  for (i = 0; i < opt->nin; i++) {
    input *in = &opt->in[i];
    errbuf[0] = '\0';
    if (!opt->live) {
      in->cf = capfile_open(in->src, errbuf, sizeof(errbuf));
      if (in->cf == NULL) {
        fprintf(stderr, PROG ": -r %s: %s\n", in->src, errbuf);
        return -1;
      }
      continue; /* the link type is each packet's own */
    } else {
      struct bpf_program prog;
      int rv;
      in->pc = pcap_create(in->src, errbuf);
      if (in->pc == NULL) {
        fprintf(stderr, PROG ": -i %s: %s\n", in->src, errbuf);
        return -1;
      }
      (void)pcap_set_snaplen(in->pc, (int)opt->slot_size);
      (void)pcap_set_promisc(in->pc, 1);
      (void)pcap_set_timeout(in->pc, 10);
      (void)pcap_set_buffer_size(in->pc, 64 << 20);
      (void)pcap_set_tstamp_precision(in->pc, PCAP_TSTAMP_PRECISION_NANO);
      rv = pcap_activate(in->pc);
      if (rv < 0) {
        fprintf(stderr, PROG ": -i %s: %s\n", in->src, pcap_geterr(in->pc));
        return -1;
      }
      if (rv > 0) {
        fprintf(stderr, PROG ": -i %s: warning: %s\n", in->src,
                pcap_statustostr(rv));
      }
      in->nano =
          pcap_get_tstamp_precision(in->pc) == PCAP_TSTAMP_PRECISION_NANO;
      if (pcap_compile(in->pc, &prog, opt->filter, 1, PCAP_NETMASK_UNKNOWN) !=
          0) {
        fprintf(stderr, PROG ": --filter '%s': %s\n", opt->filter,
                pcap_geterr(in->pc));
        return -2;
      }
      rv = pcap_setfilter(in->pc, &prog);
      pcap_freecode(&prog);
      if (rv != 0) {
        fprintf(stderr, PROG ": -i %s: filter: %s\n", in->src,
                pcap_geterr(in->pc));
        return -1;
      }
      if (pcap_setnonblock(in->pc, 1, errbuf) != 0 ||
          (in->fd = pcap_get_selectable_fd(in->pc)) < 0) {
        fprintf(stderr, PROG ": -i %s: no selectable descriptor\n", in->src);
        return -1;
      }
    }
    in->linktype = pcap_input_linktype(pcap_datalink(in->pc));
  }
  return 0;
}

/* ------------------------------------------------------------ main */

static void on_signal(int sig) {
  if (sig == SIGHUP) {
    atomic_store(&hup_flag, 1);
  } else {
    atomic_store(&stop_flag, 1);
  }
}

static void usage(FILE *f) {
  fprintf(
      f,
      "Usage: " PROG " [OPTIONS] -i [NAME=]IFACE... | -r [NAME=]FILE...\n"
      "Measure RoCE traffic continuously on every core; export as it "
      "goes.\n\n"
      "Input (one kind):\n"
      "  -i [NAME=]IFACE     capture live on IFACE (repeatable)\n"
      "  -r [NAME=]FILE      read a pcap/pcapng FILE ('-': standard input; "
      "repeatable)\n"
      "  --replay            read FILEs at their own pace, not as fast as "
      "possible\n"
      "  --filter EXPR       BPF filter of -i (default: RoCEv2, RoCEv1, "
      "ERSPAN/GRE,\n"
      "                      VXLAN, VLAN-tagged or not)\n"
      "Work:\n"
      "  -j N                worker threads (default: online CPUs)\n"
      "  --queue N           ring slots per worker (default 4096, a power of "
      "two)\n"
      "  --slot BYTES        bytes kept of each frame (default 2048)\n"
      "  --timestamps auto|capture  ERSPAN III switch time when present "
      "(auto,\n"
      "                      default) or always the capture's\n"
      "Output (any combination):\n"
      "  --ipfix HOST:PORT   IPFIX over UDP (repeatable)\n"
      "  --pen N             IPFIX enterprise number (default 32473)\n"
      "  --domain N          observation domain of worker 0 (worker k: N+k; "
      "default 0)\n"
      "  --mtu N             path MTU towards the collectors\n"
      "  --json FILE         JSON lines into FILE ('-': standard output)\n"
      "  --rotate-size BYTES  rotate FILE to FILE.1, FILE.2 ... at this "
      "size\n"
      "  --rotate-time SECONDS  ... and after this long\n"
      "  --flows --messages --ios --segments --summary  the records "
      "exported\n"
      "                      (default: all but --messages)\n"
      "  --stats             a stats record per worker at exit (JSON)\n"
      "  --metrics ADDR:PORT  serve Prometheus metrics at "
      "http://ADDR:PORT/metrics\n"
      "                      ([V6]:PORT; port 0: any free port; needs "
      "libmicrohttpd)\n"
      "  --metrics-max-series N  most NVMe-oF I/O label sets (default "
      "1024)\n"
      "  --linger SECONDS|forever  after the end of the files, keep serving "
      "--metrics\n"
      "Polling (as rtel-analyze(1) and switch-agent):\n"
      "  --poll P/SLOT       measure P inputs (ports) per SLOT (e.g. 1/10ms), "
      "round robin;\n"
      "                      slots on the wall clock (-i) or in packet time "
      "(-r)\n"
      "  --on-slot CMD       run CMD (no shell) at every slot boundary: "
      "RTEL_SLOT,\n"
      "                      RTEL_START, RTEL_STOP (port ids), "
      "RTEL_START_NAMES ...\n"
      "  --on-slot-timeout DUR  a hook still running this long is ended "
      "(default 10s)\n"
      "Measurement (as rtel-analyze(1)):\n"
      "  --max-flows N  --max-ios N  --flow-idle DUR  --io-timeout DUR\n"
      "  --interval DUR      --summary period (default: the whole run)\n"
      "  --compute-side NAME  --storage-side NAME  --roce-port N  --icrc  "
      "--no-decap\n"
      "  -h, --help          this text\n"
      "  --version           program and library versions\n");
}

static int usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

static int usage_error(const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, PROG ": ");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\nTry '" PROG " --help' for more information.\n");
  return 2;
}

/* The SLOT of --poll as rtel-analyze reads it: a decimal number (with a
 * fraction) and a unit ns, us, ms or s (none: ns), at least 1 ns. Returns
 * 0, or -1. */
static int parse_slot(const char *v, double *out) {
  const char *u = v;
  double x, mul;
  while (*u >= '0' && *u <= '9') {
    u++;
  }
  if (u == v) {
    return -1;
  }
  if (*u == '.') {
    const char *f = u + 1;
    while (*f >= '0' && *f <= '9') {
      f++;
    }
    if (f == u + 1) {
      return -1;
    }
    u = f;
  }
  mul = *u == '\0' || strcmp(u, "ns") == 0 ? 1
        : strcmp(u, "us") == 0             ? 1e3
        : strcmp(u, "ms") == 0             ? 1e6
        : strcmp(u, "s") == 0              ? 1e9
                                           : 0;
  x = strtod(v, NULL) * mul;
  if (mul == 0 || !(x >= 1) || x > 1e18) {
    return -1;
  }
  *out = x;
  return 0;
}

/* A decimal number in [lo, hi]. Returns 0, or -1. */
static int parse_u64(const char *v, uint64_t lo, uint64_t hi, uint64_t *out) {
  char *end;
  unsigned long long n;
  if (v == NULL || *v < '0' || *v > '9') {
    return -1;
  }
  errno = 0;
  n = strtoull(v, &end, 10);
  if (errno || *end || n < lo || n > hi) {
    return -1;
  }
  *out = n;
  return 0;
}

/* ", unscheduled N, slots M" of a worker (--poll) */
static const char *unsched(const worker *w) {
  static char b[80];
  snprintf(b, sizeof(b), ", unscheduled %" PRIu64 ", slots %" PRIu64,
           w->stats.pkts_unscheduled, w->stats.slots);
  return b;
}

static void summary(const options *opt, reader *rd, int status) {
  unsigned k;
  size_t i;
  for (i = 0; i < opt->nin; i++) {
    input *in = &opt->in[i];
    struct pcap_stat ps;
    fprintf(stderr, PROG ": input %s (%s): %" PRIu64 " packets", in->obs,
            in->src, cm_get(&in->pkts));
    if (opt->live && pcap_stats(in->pc, &ps) == 0) {
      fprintf(stderr, ", %u dropped by the kernel, %u by the interface",
              ps.ps_drop, ps.ps_ifdrop);
    }
    fputc('\n', stderr);
  }
  for (k = 0; k < G.nw; k++) {
    worker *w = &G.w[k];
    uint64_t rec = 0;
    for (i = 0; i < 5; i++) {
      rec += w->recs[i];
    }
    fprintf(stderr,
            PROG ": worker %u: packets %" PRIu64 ", drops %" PRIu64
                 ", clipped %" PRIu64 ", records %" PRIu64 " (flows %" PRIu64
                 ", messages %" PRIu64 ", ios %" PRIu64 ", segments %" PRIu64
                 ", summaries %" PRIu64 "), timestamps erspan %" PRIu64
                 " capture %" PRIu64 "%s, cpu %.3f s (%.3f s before the "
                 "final flush)%s\n",
            k, w->pkts, cm_get(&w->drops), w->clipped, rec, w->recs[0],
            w->recs[1], w->recs[2], w->recs[3], w->recs[4],
            w->ts_src[TS_ERSPAN], w->ts_src[TS_CAPTURE],
            opt->poll_ports ? unsched(w) : "", (double)w->cpu_ns / 1e9,
            (double)w->drained_cpu_ns / 1e9, w->failed ? ", FAILED" : "");
    for (i = 0; i < opt->nipfix; i++) {
      const uint64_t *c = w->xcount[i];
      fprintf(stderr,
              PROG ": worker %u: ipfix %s domain %" PRIu32 ": %" PRIu64
                   " records in %" PRIu64 " messages, %" PRIu64
                   " records lost (%" PRIu64 " messages not sent)\n",
              k, opt->ipfix[i], opt->domain + k, c[0], c[2], c[1], c[3]);
    }
  }
  if (G.wr) {
    writer *wr = G.wr;
    fprintf(stderr,
            PROG ": json %s: %" PRIu64 " lines (%" PRIu64 " bytes), %" PRIu64
                 " rotations, %" PRIu64 " reopens, %" PRIu64
                 " lines lost (write errors), %" PRIu64
                 " lines dropped (writer behind)\n",
            wr->path, cm_get(&wr->lines), cm_get(&wr->bytes),
            cm_get(&wr->rotations), cm_get(&wr->reopens),
            cm_get(&wr->lost_lines), cm_get(&wr->dropped_lines));
  }
  if (opt->poll_ports) {
    fprintf(stderr,
            PROG ": slots %" PRIu64 ", hook calls %" PRIu64 ", %" PRIu64
                 " failed, %" PRIu64 " late, %" PRIu64 " timed out, %" PRIu64
                 " dropped (hooks behind)\n",
            cm_get(&SL.slots), cm_get(&SL.calls), cm_get(&SL.failures),
            cm_get(&SL.late), cm_get(&SL.timeouts), cm_get(&SL.dropped));
  }
  {
    /* the packet phase: from the first read to the last packet in a
     * context (setup and the final flush apart) */
    uint64_t end = 0, wall;
    for (k = 0; k < G.nw; k++) {
      if (G.w[k].drained_mono > end) {
        end = G.w[k].drained_mono;
      }
    }
    wall = end > rd->start_mono ? end - rd->start_mono : 0;
    fprintf(stderr,
            PROG ": %" PRIu64 " packets in %.3f s (%.3f Mpps, first read to "
                 "last packet in a context), reader cpu %.3f s (read, "
                 "decode, shard; setup %.3f s apart), exit %d\n",
            rd->pkts, (double)wall / 1e9,
            wall ? (double)rd->pkts * 1e3 / (double)wall : 0.0,
            (double)(rd->cpu_ns - rd->setup_cpu_ns) / 1e9,
            (double)rd->setup_cpu_ns / 1e9, status);
  }
}

/* ------------------------------------------------------------ metrics */

/* A counter or gauge of every worker, from its snapshot: one sample per
 * worker, with |label| (NULL, or 'name="value"') after the worker's. */
typedef struct wmetric {
  const char *name, *type, *help, *label;
  size_t off; /* in wsnap */
} wmetric;

#define SO(f) offsetof(wsnap, st.f)
#define C_ "counter"
#define G_ "gauge"
static const wmetric lib_metrics[] = {
    {"rtel_packets_total", C_, "Packets handed to the worker's context", NULL,
     SO(pkts)},
    {"rtel_bytes_total", C_, "Wire bytes of the packets handed to the context",
     NULL, SO(bytes)},
    {"rtel_roce_packets_total", C_,
     "RoCE packets decoded (v1 and v2, truncated ones included)", NULL,
     SO(pkts_roce)},
    {"rtel_rocev1_packets_total", C_, "RoCEv1 packets decoded", NULL,
     SO(pkts_rocev1)},
    {"rtel_not_roce_packets_total", C_,
     "Well-formed packets that are not RoCE", NULL, SO(pkts_not_roce)},
    {"rtel_truncated_packets_total", C_,
     "Packets captured shorter than their wire length", NULL,
     SO(pkts_truncated)},
    {"rtel_header_truncated_packets_total", C_,
     "RoCE packets whose capture ended inside the transport headers", NULL,
     SO(pkts_hdr_truncated)},
    {"rtel_ip_fragments_total", C_, "IP fragments (counted, not decoded)",
     NULL, SO(pkts_ip_fragments)},
    {"rtel_erspan_packets_total", C_, "RoCE packets reached through ERSPAN",
     NULL, SO(pkts_erspan)},
    {"rtel_vxlan_packets_total", C_, "RoCE packets reached through VXLAN",
     NULL, SO(pkts_vxlan)},
    {"rtel_cnp_packets_total", C_, "Congestion notification packets", NULL,
     SO(pkts_cnp)},
    {"rtel_cm_packets_total", C_, "RDMA CM MADs", NULL, SO(pkts_cm)},
    {"rtel_icrc_checks_total", C_, "ICRC checks (--icrc) by result",
     "result=\"ok\"", SO(icrc_ok)},
    {"rtel_icrc_checks_total", C_, NULL, "result=\"bad\"", SO(icrc_bad)},
    {"rtel_icrc_checks_total", C_, NULL, "result=\"truncated\"",
     SO(icrc_truncated)},
    {"rtel_ts_backwards_packets_total", C_,
     "Packets with a timestamp earlier than the previous packet's", NULL,
     SO(pkts_ts_backwards)},
    {"rtel_unknown_opcode_packets_total", C_,
     "RoCE packets with a reserved or vendor-specific opcode", NULL,
     SO(pkts_unknown_opcode)},
    {"rtel_unknown_tver_packets_total", C_,
     "RoCE packets with a BTH transport version other than 0", NULL,
     SO(pkts_unknown_tver)},
    {"rtel_unscheduled_packets_total", C_,
     "Packets of ports not measured in the current polling slot", NULL,
     SO(pkts_unscheduled)},
    {"rtel_flows_created_total", C_, "Flows created in the flow table", NULL,
     SO(flows_created)},
    {"rtel_flows_evicted_total", C_,
     "Flows removed to make room for a new one", NULL, SO(flows_evicted)},
    {"rtel_flow_untracked_packets_total", C_,
     "Data packets of flows that could not be tracked (table full)", NULL,
     SO(flows_untracked_pkts)},
    {"rtel_flows_active", G_, "Flows in the flow table now", NULL,
     SO(flows_active)},
    {"rtel_qp_pairs_learned_total", C_, "QP pairs learned, by source",
     "source=\"cm\"", SO(pairs_cm)},
    {"rtel_qp_pairs_learned_total", C_, NULL, "source=\"psn\"", SO(pairs_psn)},
    {"rtel_qp_pairs_evicted_total", C_,
     "QP pairing entries removed to make room", NULL, SO(pairs_evicted)},
    {"rtel_ctrl_unattributed_packets_total", C_,
     "ACKs, NAKs and CNPs not attributed to a flow", NULL,
     SO(ctrl_unattributed)},
    {"rtel_messages_total", C_, "RDMA message records delivered", NULL,
     SO(messages)},
    {"rtel_messages_overflow_total", C_,
     "Message records delivered early (a bound on open messages)", NULL,
     SO(msgs_overflow)},
    {"rtel_nvme_queues_total", C_, "NVMe-oF queues recognised, by source",
     "source=\"cm\"", SO(nvme_queues_cm)},
    {"rtel_nvme_queues_total", C_, NULL, "source=\"connect\"",
     SO(nvme_queues_connect)},
    {"rtel_nvme_queues_total", C_, NULL, "source=\"confirmed\"",
     SO(nvme_queues_confirmed)},
    {"rtel_nvme_queues_evicted_total", C_,
     "NVMe-oF queues removed to make room", NULL, SO(nvme_queues_evicted)},
    {"rtel_ios_total", C_, "NVMe-oF I/O records by end state",
     "state=\"complete\"", SO(ios_complete)},
    {"rtel_ios_total", C_, NULL, "state=\"timeout\"", SO(ios_timeout)},
    {"rtel_ios_total", C_, NULL, "state=\"orphan\"", SO(ios_orphan)},
    {"rtel_ios_total", C_, NULL, "state=\"evicted\"", SO(ios_evicted)},
    {"rtel_ios_total", C_, NULL, "state=\"truncated\"", SO(ios_truncated)},
    {"rtel_ios_created_total", C_,
     "NVMe-oF I/Os the correlator began to follow", NULL, SO(ios_created)},
    {"rtel_ios_active", G_, "NVMe-oF I/Os outstanding now", NULL,
     SO(ios_active)},
    {"rtel_ios_untracked_total", C_, "Commands that found the I/O table full",
     NULL, SO(ios_untracked)},
    {"rtel_ios_unconfirmed_total", C_,
     "I/Os ended without a record (queue never confirmed as NVMe-oF)", NULL,
     SO(ios_unconfirmed)},
    {"rtel_nvme_data_unmatched_total", C_,
     "Data transfers on NVMe-oF queues that matched no outstanding I/O", NULL,
     SO(nvme_data_unmatched)},
    {"rtel_nvme_capsule_dups_total", C_, "Retransmitted capsules ignored",
     NULL, SO(nvme_capsule_dups)},
    {"rtel_segments_total", C_, "Two-point segment records delivered", NULL,
     SO(segments)},
    {"rtel_io_join_unmatched_total", C_,
     "Complete I/Os that found no twin at the other point", NULL,
     SO(io_join_unmatched)},
    {"rtel_aggregates_dropped_total", C_,
     "I/Os not aggregated (aggregation table full)", NULL,
     SO(aggregates_dropped)},
    {"rtel_slots_total", C_, "Slot boundaries begun", NULL, SO(slots)},
    {"rtel_alarms_total", C_, "Alarm events, by event", "event=\"raised\"",
     SO(alarms_raised)},
    {"rtel_alarms_total", C_, NULL, "event=\"cleared\"", SO(alarms_cleared)},
    {"rtel_alarms_dropped_total", C_,
     "Records not evaluated for alarms (alarm table full)", NULL,
     SO(alarms_dropped)},
    {"rtel_flow_records_total", C_,
     "Flow records delivered by the context, by end", "end=\"idle\"",
     offsetof(wsnap, flow_end[RTEL_END_IDLE])},
    {"rtel_flow_records_total", C_, NULL, "end=\"active\"",
     offsetof(wsnap, flow_end[RTEL_END_ACTIVE])},
    {"rtel_flow_records_total", C_, NULL, "end=\"evicted\"",
     offsetof(wsnap, flow_end[RTEL_END_EVICTED])},
    {"rtel_flow_records_total", C_, NULL, "end=\"flush\"",
     offsetof(wsnap, flow_end[RTEL_END_FLUSH])},
    {"rtel_flow_records_total", C_, NULL, "end=\"truncated\"",
     offsetof(wsnap, flow_end[RTEL_END_TRUNCATED])},
    {"rtel_collect_clipped_packets_total", C_,
     "Packets cut to the slot size (--slot)", NULL, offsetof(wsnap, clipped)},
    {"rtel_collect_timestamps_total", C_,
     "Packets by the source of their time", "source=\"erspan\"",
     offsetof(wsnap, ts_src[TS_ERSPAN])},
    {"rtel_collect_timestamps_total", C_, NULL, "source=\"capture\"",
     offsetof(wsnap, ts_src[TS_CAPTURE])},
    {"rtel_collect_records_total", C_,
     "Records exported to the outputs, by type", "type=\"flow\"",
     offsetof(wsnap, recs[0])},
    {"rtel_collect_records_total", C_, NULL, "type=\"message\"",
     offsetof(wsnap, recs[1])},
    {"rtel_collect_records_total", C_, NULL, "type=\"io\"",
     offsetof(wsnap, recs[2])},
    {"rtel_collect_records_total", C_, NULL, "type=\"segment\"",
     offsetof(wsnap, recs[3])},
    {"rtel_collect_records_total", C_, NULL, "type=\"summary\"",
     offsetof(wsnap, recs[4])},
    {"rtel_collect_worker_failed", G_, "1 if the worker's context failed",
     NULL, offsetof(wsnap, failed)},
};
#undef SO

/* short label values of the RTEL_MALFORMED_* reasons */
static const char *const malformed_label[] = {
    "none",     "truncated",   "vlan_depth", "ip_version", "ip_hlen", "ip_len",
    "ipv6_ext", "udp_len",     "roce_len",   "pad",        "gre",     "erspan",
    "vxlan",    "encap_depth", "grh",        "mad",        "linktype"};

static uint64_t snap_word(const wsnap *s, size_t off) {
  uint64_t v;
  memcpy(&v, (const unsigned char *)s + off, sizeof(v));
  return v;
}

static void sample_u64(rj_buf *b, const char *name, uint64_t v) {
  rj_printf(b, "%s %" PRIu64 "\n", name, v);
}

/* The whole exposition (the HTTP thread). */
static void metrics_render(rj_buf *b, void *arg) {
  const options *opt = G.opt;
  const rtel_info *info = rtel_version(0);
  wsnap *s = calloc(G.nw, sizeof(*s));
  size_t i, j, nm = sizeof(lib_metrics) / sizeof(lib_metrics[0]);
  unsigned k;
  uint64_t clk;
  (void)arg;
  if (s == NULL) {
    b->oom = 1;
    return;
  }
  for (k = 0; k < G.nw; k++) {
    cm_snap_read(&G.w[k].snap, &s[k]);
  }

  cm_family(b, "rtel_collect_info", G_,
            "rtel-collect: its version and the library's");
  rj_printf(b,
            "rtel_collect_info{version=\"%s\",library=\"%s\","
            "libmicrohttpd=\"%s\"} 1\n",
            RTEL_VERSION, info ? info->version_str : "?", cm_http_version());
  cm_family(b, "rtel_collect_workers", G_, "Worker threads (-j)");
  sample_u64(b, "rtel_collect_workers", G.nw);
  cm_family(b, "rtel_collect_input_ended", G_,
            "1 once the input has ended and every worker has flushed: the "
            "counters are final");
  sample_u64(b, "rtel_collect_input_ended", (uint64_t)atomic_load(&G.ended));
  clk = atomic_load_explicit(&G.clock, memory_order_relaxed);
  cm_family(b, "rtel_collect_packet_time_seconds", G_,
            "The latest packet time handed to a worker (Unix time of the "
            "capture)");
  rj_printf(b, "rtel_collect_packet_time_seconds %" PRIu64 ".%09" PRIu64 "\n",
            clk / 1000000000u, clk % 1000000000u);

  cm_family(b, "rtel_collect_input_packets_total", C_,
            "Packets read from the input (observation point)");
  for (i = 0; i < opt->nin; i++) {
    rj_puts(b, "rtel_collect_input_packets_total{input=");
    cm_label_value(b, opt->in[i].obs);
    rj_printf(b, "} %" PRIu64 "\n", cm_get(&opt->in[i].pkts));
  }
  if (opt->live) {
    static const char *const kn[2] = {
        "rtel_collect_input_kernel_drops_total",
        "rtel_collect_input_interface_drops_total"};
    static const char *const kh[2] = {
        "Packets the kernel dropped on the input (pcap_stats ps_drop)",
        "Packets the interface dropped (pcap_stats ps_ifdrop)"};
    for (j = 0; j < 2; j++) {
      cm_family(b, kn[j], C_, kh[j]);
      for (i = 0; i < opt->nin; i++) {
        rj_printf(b, "%s{input=", kn[j]);
        cm_label_value(b, opt->in[i].obs);
        rj_printf(b, "} %" PRIu64 "\n",
                  cm_get(j ? &opt->in[i].ifdrops : &opt->in[i].kdrops));
      }
    }
  }
  cm_family(b, "rtel_collect_queue_depth", G_,
            "Packets waiting in the worker's ring");
  for (k = 0; k < G.nw; k++) {
    ring *q = &G.w[k].q;
    size_t t = atomic_load_explicit(&q->tail, memory_order_acquire);
    size_t h = atomic_load_explicit(&q->head, memory_order_acquire);
    rj_printf(b, "rtel_collect_queue_depth{worker=\"%u\"} %zu\n", k,
              h >= t ? h - t : 0);
  }
  cm_family(b, "rtel_collect_queue_slots", G_,
            "Slots of the worker's ring (--queue)");
  for (k = 0; k < G.nw; k++) {
    rj_printf(b, "rtel_collect_queue_slots{worker=\"%u\"} %zu\n", k,
              opt->depth);
  }
  cm_family(b, "rtel_collect_queue_drops_total", C_,
            "Packets dropped because the worker's ring was full");
  for (k = 0; k < G.nw; k++) {
    rj_printf(b, "rtel_collect_queue_drops_total{worker=\"%u\"} %" PRIu64 "\n",
              k, cm_get(&G.w[k].drops));
  }

  /* the context's counters and the worker's own */
  for (i = 0; i < nm; i++) {
    const wmetric *m = &lib_metrics[i];
    if (m->help) {
      cm_family(b, m->name, m->type, m->help);
    }
    for (k = 0; k < G.nw; k++) {
      rj_printf(b, "%s{worker=\"%u\"%s%s} %" PRIu64 "\n", m->name, k,
                m->label ? "," : "", m->label ? m->label : "",
                snap_word(&s[k], m->off));
    }
  }
  cm_family(b, "rtel_malformed_packets_total", C_,
            "Malformed packets, by reason");
  for (j = 1; j < RTEL_MALFORMED_SLOTS; j++) {
    const size_t nl = sizeof(malformed_label) / sizeof(malformed_label[0]);
    for (k = 0; k < G.nw; k++) {
      uint64_t v = s[k].st.malformed[j];
      if (j < nl) {
        rj_printf(b,
                  "rtel_malformed_packets_total{worker=\"%u\",reason=\"%s\"} "
                  "%" PRIu64 "\n",
                  k, malformed_label[j], v);
      } else if (v) {
        rj_printf(b,
                  "rtel_malformed_packets_total{worker=\"%u\",reason=\"%zu\"} "
                  "%" PRIu64 "\n",
                  k, j, v);
      }
    }
  }

  if (opt->nipfix) {
    static const char *const xn[4] = {
        "rtel_collect_ipfix_records_total",
        "rtel_collect_ipfix_records_lost_total",
        "rtel_collect_ipfix_messages_total",
        "rtel_collect_ipfix_messages_unsent_total"};
    static const char *const xh[4] = {
        "Records exported as IPFIX, by worker and collector",
        "IPFIX records lost (their message could not be sent)",
        "IPFIX messages sent", "IPFIX messages that could not be sent"};
    for (j = 0; j < 4; j++) {
      cm_family(b, xn[j], C_, xh[j]);
      for (k = 0; k < G.nw; k++) {
        for (i = 0; i < opt->nipfix; i++) {
          rj_printf(b, "%s{worker=\"%u\",collector=", xn[j], k);
          cm_label_value(b, opt->ipfix[i]);
          rj_printf(b, ",domain=\"%" PRIu32 "\"} %" PRIu64 "\n",
                    opt->domain + k, s[k].ipfix[i][j]);
        }
      }
    }
  }
  if (G.wr) {
    writer *wr = G.wr;
    const struct {
      const char *name, *help;
      _Atomic uint64_t *v;
    } jm[] = {
        {"rtel_collect_json_lines_total", "JSON lines written", &wr->lines},
        {"rtel_collect_json_bytes_total", "JSON bytes written", &wr->bytes},
        {"rtel_collect_json_lines_lost_total",
         "JSON lines lost to write errors", &wr->lost_lines},
        {"rtel_collect_json_lines_dropped_total",
         "JSON lines dropped (the writer 256 MiB behind)", &wr->dropped_lines},
        {"rtel_collect_json_rotations_total",
         "Rotations of the JSON file (--rotate-size, --rotate-time)",
         &wr->rotations},
        {"rtel_collect_json_reopens_total",
         "Reopens of the JSON file (SIGHUP)", &wr->reopens},
    };
    for (j = 0; j < sizeof(jm) / sizeof(jm[0]); j++) {
      cm_family(b, jm[j].name, C_, jm[j].help);
      sample_u64(b, jm[j].name, cm_get(jm[j].v));
    }
  }
  if (opt->poll_ports) {
    const struct {
      const char *name, *help;
      _Atomic uint64_t *v;
    } sm[] = {
        {"rtel_collect_slots_total", "Polling slots begun (--poll)",
         &SL.slots},
        {"rtel_collect_hook_calls_total", "Runs of the --on-slot hook",
         &SL.calls},
        {"rtel_collect_hook_failures_total",
         "Runs of the --on-slot hook that failed (could not run, exit status "
         "not 0, killed, timed out)",
         &SL.failures},
        {"rtel_collect_hook_late_total",
         "Runs of the --on-slot hook begun after their slot had ended",
         &SL.late},
        {"rtel_collect_hook_timeouts_total",
         "Runs of the --on-slot hook ended by --on-slot-timeout",
         &SL.timeouts},
        {"rtel_collect_slot_events_dropped_total",
         "Slot records and hook runs dropped: 1024 waiting (hooks behind)",
         &SL.dropped},
    };
    for (j = 0; j < sizeof(sm) / sizeof(sm[0]); j++) {
      if (j > 0 && j < 5 && !opt->on_slot) {
        continue; /* the hook's */
      }
      cm_family(b, sm[j].name, C_, sm[j].help);
      sample_u64(b, sm[j].name, cm_get(sm[j].v));
    }
  }
  if (cm_table_render(G.mt, b, G.names.obs, G.names.nobs) != 0) {
    b->oom = 1;
  }
  free(s);
}
#undef C_
#undef G_

int main(int argc, char **argv) {
  /* static: what it points to stays reachable on the early exits (a bad
   * argument returns without freeing) */
  static options opt;
  reader rd;
  writer wr;
  int a, status = 0, nfile = 0, nlive = 0, rv;
  unsigned k, started = 0;
  int slots_started = 0;
  size_t i;
  struct sigaction sa;
  long ncpu;
  cm_http *http = NULL;

  memset(&opt, 0, sizeof(opt));
  opt.pen = RTEL_IPFIX_PEN_DOCUMENTATION;
  opt.roce_port = RTEL_ROCEV2_UDP_PORT;
  opt.slot_size = 2048;
  opt.depth = 4096;
  opt.records = REC_FLOW | REC_IO | REC_SEG | REC_SUM;
  opt.in = calloc((size_t)argc, sizeof(*opt.in));
  if (opt.in == NULL) {
    fprintf(stderr, PROG ": out of memory\n");
    return 1;
  }
  {
    unsigned recs = 0;
    for (a = 1; a < argc; a++) {
      const char *arg = argv[a];
      const char *v = a + 1 < argc ? argv[a + 1] : NULL;
      uint64_t n;
#define NEED_ARG()                                                            \
  do {                                                                        \
    if (v == NULL) {                                                          \
      return usage_error("%s needs an argument", arg);                        \
    }                                                                         \
    a++;                                                                      \
  } while (0)
      if (strcmp(arg, "-i") == 0 || strcmp(arg, "-r") == 0) {
        NEED_ARG();
        if (*v == '\0') {
          return usage_error("%s needs an argument", arg);
        }
        opt.in[opt.nin].src = v;
        opt.in[opt.nin].fd = -1;
        opt.nin++;
        if (arg[1] == 'i') {
          nlive++;
        } else {
          nfile++;
        }
      } else if (strcmp(arg, "--replay") == 0) {
        opt.replay = 1;
      } else if (strcmp(arg, "--filter") == 0) {
        NEED_ARG();
        opt.filter = v;
      } else if (strcmp(arg, "-j") == 0) {
        NEED_ARG();
        if (parse_u64(v, 1, MAX_WORKERS, &n) != 0) {
          return usage_error("invalid -j '%s' (1-%d)", v, MAX_WORKERS);
        }
        opt.jobs = (unsigned)n;
      } else if (strcmp(arg, "--queue") == 0) {
        NEED_ARG();
        if (parse_u64(v, 2, 1u << 24, &n) != 0 || (n & (n - 1)) != 0) {
          return usage_error("invalid --queue '%s' (a power of two, 2-%u)", v,
                             1u << 24);
        }
        opt.depth = (size_t)n;
      } else if (strcmp(arg, "--slot") == 0) {
        NEED_ARG();
        if (parse_u64(v, 64, 65535, &n) != 0) {
          return usage_error("invalid --slot '%s' (64-65535)", v);
        }
        opt.slot_size = (size_t)n;
      } else if (strcmp(arg, "--timestamps") == 0) {
        NEED_ARG();
        if (strcmp(v, "auto") == 0) {
          opt.tsmode = TSMODE_AUTO;
        } else if (strcmp(v, "capture") == 0) {
          opt.tsmode = TSMODE_CAPTURE;
        } else {
          return usage_error("invalid --timestamps '%s' (auto or capture)", v);
        }
      } else if (strcmp(arg, "--ipfix") == 0) {
        NEED_ARG();
        if (*v == '\0' || strchr(v, ':') == NULL) {
          return usage_error("invalid --ipfix '%s' (HOST:PORT)", v);
        }
        if (opt.nipfix == MAX_IPFIX) {
          return usage_error("--ipfix: at most %d collectors", MAX_IPFIX);
        }
        opt.ipfix[opt.nipfix++] = v;
      } else if (strcmp(arg, "--pen") == 0 || strcmp(arg, "--domain") == 0 ||
                 strcmp(arg, "--mtu") == 0) {
        uint64_t lo = arg[2] == 'p' ? 1 : arg[2] == 'm' ? 576 : 0;
        uint64_t hi = arg[2] == 'm' ? 65535 : 0xffffffffu;
        NEED_ARG();
        if (parse_u64(v, lo, hi, &n) != 0) {
          return usage_error("invalid %s '%s' (%" PRIu64 "-%" PRIu64 ")", arg,
                             v, lo, hi);
        }
        if (arg[2] == 'p') {
          opt.pen = (uint32_t)n;
        } else if (arg[2] == 'd') {
          opt.domain = (uint32_t)n;
        } else {
          opt.mtu = (uint32_t)n;
        }
      } else if (strcmp(arg, "--json") == 0) {
        NEED_ARG();
        if (*v == '\0') {
          return usage_error("%s needs an argument", arg);
        }
        opt.json = v;
      } else if (strcmp(arg, "--rotate-size") == 0) {
        NEED_ARG();
        if (parse_u64(v, 1, UINT64_MAX / 2, &n) != 0) {
          return usage_error("invalid --rotate-size '%s' (bytes, >= 1)", v);
        }
        opt.rotate_size = n;
      } else if (strcmp(arg, "--rotate-time") == 0) {
        NEED_ARG();
        if (parse_u64(v, 1, 100u * 365 * 86400, &n) != 0) {
          return usage_error("invalid --rotate-time '%s' (seconds, >= 1)", v);
        }
        opt.rotate_time_ns = n * 1000000000u;
      } else if (strcmp(arg, "--flows") == 0) {
        recs |= REC_FLOW;
      } else if (strcmp(arg, "--messages") == 0) {
        recs |= REC_MSG;
      } else if (strcmp(arg, "--ios") == 0) {
        recs |= REC_IO;
      } else if (strcmp(arg, "--segments") == 0) {
        recs |= REC_SEG;
      } else if (strcmp(arg, "--summary") == 0) {
        recs |= REC_SUM;
      } else if (strcmp(arg, "--stats") == 0) {
        opt.stats = 1;
      } else if (strcmp(arg, "--metrics") == 0) {
        NEED_ARG();
        if (!cm_http_available()) {
          return usage_error("%s", "--metrics: this rtel-collect was built "
                                   "without libmicrohttpd (install it, "
                                   "configure again, rebuild)");
        }
        if (cm_http_check_addr(v) != 0) {
          return usage_error("invalid --metrics '%s' (ADDR:PORT or "
                             "[V6]:PORT, port 0-65535)",
                             v);
        }
        opt.metrics = v;
      } else if (strcmp(arg, "--metrics-max-series") == 0) {
        NEED_ARG();
        if (parse_u64(v, 1, 1u << 20, &n) != 0) {
          return usage_error("invalid --metrics-max-series '%s' (1-%u)", v,
                             1u << 20);
        }
        opt.max_series = (size_t)n;
      } else if (strcmp(arg, "--linger") == 0) {
        NEED_ARG();
        if (strcmp(v, "forever") == 0) {
          opt.linger_ns = UINT64_MAX;
        } else if (parse_u64(v, 1, 100u * 365 * 86400, &n) == 0) {
          opt.linger_ns = n * 1000000000u;
        } else {
          return usage_error("invalid --linger '%s' (seconds, >= 1, or "
                             "forever)",
                             v);
        }
      } else if (strcmp(arg, "--poll") == 0) {
        const char *slash;
        char *end;
        unsigned long per;
        double slot_ns;
        NEED_ARG();
        slash = strchr(v, '/');
        errno = 0;
        per = slash && *v >= '0' && *v <= '9' ? strtoul(v, &end, 10) : 0;
        if (slash == NULL || errno || end != slash || per == 0 ||
            per > 65535 || parse_slot(slash + 1, &slot_ns) != 0) {
          return usage_error("invalid --poll '%s' (P/SLOT, e.g. 1/10ms)", v);
        }
        opt.poll_ports = (uint32_t)per;
        opt.poll_slot_ns = (uint64_t)slot_ns;
      } else if (strcmp(arg, "--on-slot") == 0) {
        NEED_ARG();
        if (*v == '\0') {
          return usage_error("%s needs an argument", arg);
        }
        opt.on_slot = v;
      } else if (strcmp(arg, "--max-flows") == 0 ||
                 strcmp(arg, "--max-ios") == 0) {
        NEED_ARG();
        if (parse_u64(v, 1, 1u << 26, &n) != 0) {
          return usage_error("invalid %s '%s' (1-%u)", arg, v, 1u << 26);
        }
        if (arg[6] == 'f') {
          opt.max_flows = (uint32_t)n;
        } else {
          opt.max_ios = (uint32_t)n;
        }
      } else if (strcmp(arg, "--flow-idle") == 0 ||
                 strcmp(arg, "--io-timeout") == 0 ||
                 strcmp(arg, "--interval") == 0 ||
                 strcmp(arg, "--on-slot-timeout") == 0) {
        double d;
        NEED_ARG();
        if (parse_slot(v, &d) != 0) {
          return usage_error("invalid %s '%s' (a duration: a number and "
                             "ns, us, ms or s; none: ns)",
                             arg, v);
        }
        if (arg[2] == 'f') {
          opt.flow_idle_ns = (uint64_t)d;
        } else if (arg[2] == 'i' && arg[3] == 'o') {
          opt.io_timeout_ns = (uint64_t)d;
        } else if (arg[2] == 'i') {
          opt.interval_ns = (uint64_t)d;
        } else {
          opt.hook_timeout_ns = (uint64_t)d;
        }
      } else if (strcmp(arg, "--compute-side") == 0 ||
                 strcmp(arg, "--storage-side") == 0) {
        NEED_ARG();
        if (arg[2] == 'c') {
          opt.compute_side = v;
        } else {
          opt.storage_side = v;
        }
      } else if (strcmp(arg, "--roce-port") == 0) {
        NEED_ARG();
        if (parse_u64(v, 1, 65535, &n) != 0) {
          return usage_error("invalid --roce-port '%s' (1-65535)", v);
        }
        opt.roce_port = (uint32_t)n;
      } else if (strcmp(arg, "--icrc") == 0) {
        opt.decode_flags |= RTEL_DECODE_VERIFY_ICRC;
      } else if (strcmp(arg, "--no-decap") == 0) {
        opt.decode_flags |= RTEL_DECODE_NO_DECAP;
      } else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
        usage(stdout);
        return 0;
      } else if (strcmp(arg, "--version") == 0) {
        const rtel_info *info = rtel_version(0);
        printf(PROG " %s (librocetel %s)\n", RTEL_VERSION,
               info ? info->version_str : "?");
        if (cm_http_available()) {
          printf("metrics: libmicrohttpd %s\n", cm_http_version());
        } else {
          printf("metrics: not built (no libmicrohttpd)\n");
        }
        return 0;
      } else {
        return usage_error("unknown option '%s'", arg);
      }
#undef NEED_ARG
    }
    if (recs) {
      opt.records = recs;
    }
  }
  if (opt.nin == 0) {
    return usage_error("%s", "no input: -i IFACE or -r FILE");
  }
  if (nfile && nlive) {
    return usage_error("%s", "-i and -r: one kind of input at a time");
  }
  if (nlive > 64) {
    return usage_error("%s", "-i: at most 64 interfaces");
  }
  opt.live = nlive > 0;
  if (opt.replay && opt.live) {
    return usage_error("%s", "--replay is for -r FILE");
  }
  if (opt.filter && !opt.live) {
    return usage_error("%s", "--filter is for -i IFACE");
  }
  if ((opt.rotate_size || opt.rotate_time_ns) &&
      (opt.json == NULL || strcmp(opt.json, "-") == 0)) {
    return usage_error("%s", "--rotate-size and --rotate-time need --json "
                             "FILE");
  }
  if (opt.nipfix == 0 && opt.json == NULL && opt.metrics == NULL) {
    return usage_error("%s", "no output: --ipfix HOST:PORT, --json FILE or "
                             "--metrics ADDR:PORT");
  }
  if (opt.max_series && opt.metrics == NULL) {
    return usage_error("%s", "--metrics-max-series needs --metrics");
  }
  if (opt.linger_ns && opt.metrics == NULL) {
    return usage_error("%s", "--linger needs --metrics");
  }
  if (opt.linger_ns && opt.live) {
    return usage_error("%s", "--linger is for -r FILE (live input is "
                             "served until SIGTERM)");
  }
  if (opt.on_slot && !opt.poll_ports) {
    return usage_error("%s", "--on-slot needs --poll");
  }
  if (opt.hook_timeout_ns && !opt.on_slot) {
    return usage_error("%s", "--on-slot-timeout needs --on-slot");
  }
  if (opt.hook_timeout_ns == 0) {
    opt.hook_timeout_ns = 10000000000ull;
  }
  if (opt.max_series == 0) {
    opt.max_series = 1024;
  }
  for (i = 0; i < opt.nin; i++) {
    input *in = &opt.in[i];
    const char *eq = strchr(in->src, '=');
    const char *slash = strchr(in->src, '/');
    if (eq && eq != in->src && (slash == NULL || eq < slash)) {
      in->obs_alloc = strndup(in->src, (size_t)(eq - in->src));
      in->src = eq + 1;
    } else {
      in->obs_alloc =
          opt.live ? strdup(in->src) : pcap_input_obs_name(in->src);
    }
    if (in->obs_alloc == NULL) {
      fprintf(stderr, PROG ": out of memory\n");
      return 1;
    }
    in->obs = in->obs_alloc;
  }
  if (opt.filter == NULL) {
    unsigned p = opt.roce_port;
    snprintf(default_filter, sizeof(default_filter),
             "udp port %u or udp port %u or ip proto 47 or ip6 proto 47 or "
             "ether proto 0x8915 or (vlan and (udp port %u or udp port %u or "
             "ip proto 47 or ip6 proto 47 or ether proto 0x8915))",
             p, RTEL_VXLAN_UDP_PORT, p, RTEL_VXLAN_UDP_PORT);
    opt.filter = default_filter;
  }
  if (opt.jobs == 0) {
    ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    opt.jobs = ncpu < 1             ? 1
               : ncpu > MAX_WORKERS ? MAX_WORKERS
                                    : (unsigned)ncpu;
  }

  /* inputs, outputs, workers */
  memset(&G, 0, sizeof(G));
  G.opt = &opt;
  {
    const char **names = calloc(opt.nin, sizeof(*names));
    if (names == NULL) {
      fprintf(stderr, PROG ": out of memory\n");
      return 1;
    }
    for (i = 0; i < opt.nin; i++) {
      names[i] = opt.in[i].obs;
    }
    G.names.obs = names;
    G.names.nobs = opt.nin;
  }
  rv = open_inputs(&opt);
  if (rv != 0) {
    return rv == -2 ? 2 : 1;
  }
  if (opt.interval_ns && opt.live) {
    /* live: periods on whole multiples of the interval of the capture
     * clock (on the minute with 60s), the same on every worker and every
     * collector that uses the same interval */
    opt.origin_ns = opt.interval_ns;
  } else if (opt.interval_ns) {
    /* files: periods from the first packet of the run, as rtel-analyze
     * --interval makes them (the records are the same): the first packet
     * of every file is read before the contexts are made */
    rtel_tstamp first = RTEL_TSTAMP_NONE;
    for (k = 0; k < opt.nin; k++) {
      input *in = &opt.in[k];
      if (read_ahead(in) != 0) {
        opt.primed_status = 1;
      }
      if (in->have && in->pk.ts < first) {
        first = in->pk.ts;
      }
    }
    opt.primed = 1;
    opt.origin_ns =
        first == RTEL_TSTAMP_NONE || first == 0 ? opt.interval_ns : first;
  }
  G.nw = opt.jobs;
  G.w = calloc(G.nw, sizeof(*G.w));
  if (G.w == NULL) {
    fprintf(stderr, PROG ": out of memory\n");
    return 1;
  }
  for (k = 0; k < G.nw; k++) {
    rv = worker_init(&G.w[k], k, &opt);
    if (rv != 0) {
      return rv == -2 ? 2 : 1;
    }
  }
  memset(&wr, 0, sizeof(wr));
  wr.fd = -1;
  if (opt.json) {
    struct stat st;
    char p[PATH_MAX];
    wr.path = opt.json;
    wr.next_suffix = 1;
    if (strcmp(opt.json, "-") != 0) {
      /* rotated files go on from the highest FILE.N there is */
      for (;;) {
        snprintf(p, sizeof(p), "%s.%u", opt.json, wr.next_suffix);
        if (stat(p, &st) != 0) {
          break;
        }
        wr.next_suffix++;
      }
    }
    if (wr_open(&wr, 0) != 0) {
      fprintf(stderr, PROG ": --json %s: %s\n", opt.json, strerror(errno));
      return 1;
    }
    pthread_mutex_init(&wr.mu, NULL);
    pthread_cond_init(&wr.cv, NULL);
    G.wr = &wr;
  }
  if (opt.metrics) {
    char err[512];
    sigset_t all, old;
    G.mt = cm_table_new(opt.max_series, G.nw);
    if (G.mt == NULL) {
      fprintf(stderr, PROG ": out of memory (--metrics-max-series)\n");
      return 1;
    }
    /* the HTTP thread blocks every signal: they reach the reader */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    http = cm_http_start(opt.metrics, metrics_render, NULL, err, sizeof(err));
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (http == NULL) {
      fprintf(stderr, PROG ": %s\n", err);
      return 1;
    }
    fprintf(stderr, PROG ": metrics on http://%s/metrics\n",
            cm_http_where(http));
  }

  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  /* SIGTERM and SIGINT interrupt a read from a pipe that stalls; SIGHUP
   * (reopen the JSON file) must not */
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGHUP, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);

  if (opt.poll_ports) {
    if (slot_init(&SL) != 0) {
      return 1;
    }
    if (opt.live) {
      /* live: the slots follow the capture clock (CLOCK_REALTIME) from
       * now on, packets or not (the hook programs the mirrors that bring
       * them): the mapping to the monotonic clock is known at once */
      struct timespec t;
      clock_gettime(CLOCK_REALTIME, &t);
      atomic_store(&G.sched_t0,
                   (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec);
      publish_offset(atomic_load(&G.sched_t0));
      atomic_store(&G.have_sched, 1);
    }
  }
  /* the threads block every signal: they reach the reader */
  if (G.wr && pthread_create(&wr.thread, NULL, writer_main, &wr) != 0) {
    fprintf(stderr, PROG ": cannot start the writer thread\n");
    return 1;
  }
  for (k = 0; k < G.nw; k++) {
    if (pthread_create(&G.w[k].thread, NULL, worker_main, &G.w[k]) != 0) {
      fprintf(stderr, PROG ": cannot start worker %u\n", k);
      atomic_store(&stop_flag, 1);
      status = 1;
      break;
    }
    started++;
  }

  if (status == 0 && opt.poll_ports &&
      pthread_create(&SL.thread, NULL, slot_main, &SL) != 0) {
    fprintf(stderr, PROG ": cannot start the slot thread\n");
    atomic_store(&stop_flag, 1);
    status = 1;
  } else if (status == 0 && opt.poll_ports) {
    slots_started = 1;
  }
  if (status == 0) {
    fprintf(stderr, PROG ": started: %zu input%s (%s), %u worker%s\n", opt.nin,
            opt.nin == 1 ? "" : "s",
            opt.live     ? "live"
            : opt.replay ? "files, replayed"
                         : "files",
            G.nw, G.nw == 1 ? "" : "s");
  }
  memset(&rd, 0, sizeof(rd));
  rd.opt = &opt;
  rd.batch = RING_BATCH;
  rd.dopt.flags = opt.decode_flags & ~RTEL_DECODE_VERIFY_ICRC;
  rd.dopt.roce_udp_port = opt.roce_port;
  rd.setup_cpu_ns = thread_cpu_ns();
  rd.start_mono = mono_ns();
  if (status == 0) {
    if (opt.live) {
      rd.dopt.linktype = 0;
    }
    status = opt.live ? read_live(&rd) : read_files(&rd);
  }
  rings_publish(&rd, 1);
  rd.cpu_ns = thread_cpu_ns();

  /* stop: drain the rings, flush every context, close the outputs */
  {
    rtel_tstamp end = rd.last_ts;
    if ((opt.live || opt.replay) && atomic_load(&G.have_offset)) {
      int64_t m = (int64_t)mono_ns() + atomic_load(&G.offset);
      if (m > 0 && (uint64_t)m > end) {
        end = (uint64_t)m;
      }
    }
    atomic_store(&G.end_ts, end);
    atomic_store(&G.done, 1);
    for (k = 0; k < G.nw; k++) {
      ring_wake_word(&G.w[k].q.sleeping); /* to flush, at once */
    }
  }
  for (k = 0; k < started; k++) {
    pthread_join(G.w[k].thread, NULL);
  }
  if (slots_started) {
    slot_stop(&SL); /* every event handed over: the last hooks run */
  }
  if (G.wr) {
    pthread_mutex_lock(&wr.mu);
    wr.quit = 1;
    pthread_cond_signal(&wr.cv);
    pthread_mutex_unlock(&wr.mu);
    pthread_join(wr.thread, NULL);
  }
  for (k = 0; k < G.nw; k++) {
    if (G.w[k].failed) {
      status = 1;
    }
  }
  atomic_store(&G.ended, 1); /* every snapshot is final */
  summary(&opt, &rd, status);
  if (http && opt.linger_ns && !atomic_load(&stop_flag)) {
    /* the files have ended: the final counters stay up for scrapes */
    uint64_t until =
        opt.linger_ns == UINT64_MAX ? UINT64_MAX : mono_ns() + opt.linger_ns;
    uint64_t m;
    if (opt.linger_ns == UINT64_MAX) {
      fprintf(stderr, PROG ": input ended: serving --metrics until SIGTERM\n");
    } else {
      fprintf(stderr,
              PROG ": input ended: serving --metrics for %" PRIu64
                   " s (or until SIGTERM)\n",
              opt.linger_ns / 1000000000u);
    }
    while (!atomic_load(&stop_flag) && (m = mono_ns()) < until) {
      sleep_ns(until - m < 200000000u ? until - m : 200000000u);
    }
  }
  cm_http_stop(http);
  if (SL.ctx) {
    rtel_ctx_del(SL.ctx);
    rj_free(&SL.jb);
  }
  for (k = 0; k < G.nw; k++) {
    worker_free(&G.w[k]);
  }
  for (i = 0; i < opt.nin; i++) {
    if (opt.in[i].pc) {
      pcap_close(opt.in[i].pc);
    }
    capfile_close(opt.in[i].cf);
    free(opt.in[i].clk);
    free(opt.in[i].obs_alloc);
  }
  free((void *)G.names.obs);
  cm_table_free(G.mt);
  free(G.w);
  free(opt.in);
  return status;
}
