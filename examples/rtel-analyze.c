/* SPDX-License-Identifier: MIT */
/*
 * rtel-analyze: read pcap/pcapng captures, feed every packet to a libroceTel
 * context, print what it decoded and counted.
 *
 *   rtel-analyze [OPTIONS] [NAME=]FILE...
 *
 * One context sees every FILE; each is an observation point named NAME (by
 * default the file's base name without extension; FILEs of one NAME= are
 * one point), or with --split-interfaces each interface of a pcapng FILE
 * is one. The library does no I/O: this program reads the files
 * (capfile.c), hands each packet with its capture timestamp to
 * rtel_ctx_read_pkt(), prints the records the callbacks deliver, and the
 * counters at the end. See rtel-analyze(1).
 */
#define _DEFAULT_SOURCE 1 /* u_char & co. in pcap.h, strndup */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pcap/pcap.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rocetel/rocetel.h>

#include "capfile.h"
#include "ipfix-export.h"
#include "pcap-input.h"
#include "rtel-json.h"
#include "rtel-report.h"
#include "table-mem.h"

#define PROG "rtel-analyze"

enum { FMT_TEXT, FMT_JSON };

typedef struct options {
  int packets;
  int flows;
  int messages;
  int no_flows; /* --no-flows: the library's flow table off */
  int ios;
  int segments;
  int split; /* --split-interfaces */
  int summary;
  uint64_t interval_ns;
  int stats;
  uint32_t max_flows;
  uint32_t max_ios;
  uint64_t flow_idle_ns;
  uint64_t io_timeout_ns;
  const char *compute_side;
  const char *storage_side;
  uint32_t poll_ports; /* --poll P/SLOT: ports per slot, 0 = full mode */
  uint64_t poll_slot_ns;
  size_t nalarms;
  struct alarm_opt {
    uint32_t metric;
    uint32_t scope;
    double value;
  } alarms[16];
  int format;
  uint32_t decode_flags;
  uint32_t roce_port;
  ipfix_export_opts ipfix; /* --ipfix, --ipfix-file */
  const char *report_path; /* --report FILE */
  size_t report_top;       /* --report-top N (0: the default) */
  int report_ns;           /* --report-ns */
  char *cmdline;           /* shown in the report */
} options;

typedef struct input {
  const char *path;
  const char *name; /* NAME=, or the file's base name */
  char *name_alloc;
  int named; /* NAME= was given */
  capfile *cf;
  capfile_pkt pk; /* the packet read ahead, when |have| */
  int have;
  uint64_t frame;    /* its frame number in the file (1-based) */
  uint32_t point;    /* the point of the file (without --split-interfaces) */
  uint32_t *ifpoint; /* --split-interfaces: the point of each interface */
  size_t nifpoint;
} input;

#define NO_POINT UINT32_MAX

/* An observation point: a FILE, or with --split-interfaces an interface
 * of a pcapng FILE; FILEs (and their interfaces) given the same NAME= are
 * one point. */
typedef struct point {
  char *name;
  size_t file; /* the input it was made for */
  int named;   /* its name comes from NAME= (other inputs may share it) */
  rtel_tstamp last_ts; /* of the packets handed over (NONE: none yet) */
} point;

/* ------------------------------------------------------------ text */

/* Text tables: one per kind of record, printed as the records come. Its
 * header is printed before its first row, and again whenever a row needs a
 * column wider than the header gave it (an IPv6 address, a long command
 * name), so that every row lines up with the header line above it. The
 * columns start as wide as what is known before the first record needs:
 * the observation point columns as the longest NAME of the inputs. Each
 * header line ends with the units of its table, one for the times of the
 * table (us) and one for its rates (Gbit/s). */
#define TAB_COLS 24

typedef struct tcol {
  const char *name;
  int width; /* < 0: left-aligned */
} tcol;

typedef struct tab {
  int ncols;
  tcol col[TAB_COLS];
  const char *tail; /* the header of a free-form last column, or NULL */
  const char *note; /* the units, at the end of the header line */
  int shown;        /* the header was printed */
} tab;

/* --summary in text: the flushes, which the library's aggregates leave out
 * (they hold reads and writes, rtel_io_aggregate(3)). Counted here from the
 * I/O records, with the library's keys (point, host, target, namespace and
 * all namespaces) and periods (the first starts at the first frame, each
 * lasts --interval, the last ends at the last frame); their percentiles are
 * exact nearest-rank percentiles of the latencies kept (8 bytes a flush). */
typedef struct fl_key {
  uint32_t obs;
  uint32_t nsid;
  uint32_t flags; /* RTEL_IO_F_IPV6 */
  uint8_t host[16];
  uint8_t target[16];
  uint64_t errors;
  uint64_t timeouts;
  int64_t *iol; /* of the completed flushes */
  size_t n, cap;
} fl_key;

typedef struct run {
  const options *opt;
  input *in;
  size_t nin;
  point *pt; /* the points, indexed by observation point id */
  size_t npt, ptcap;
  const char **ptnames; /* their names, for r->names */
  rtel_ctx *ctx;        /* once created */
  rtel_ctx **fctx;      /* text --stats, several inputs: one per input */
  size_t nports;        /* --poll: points registered as ports */
  int scheduled;        /* --poll: the schedule has started */
  uint64_t frame;       /* the frame number of the packet handed over */
  /* text: the tables */
  tab t_pkt, t_flow, t_msg, t_io, t_seg, t_sum;
  int period_shown; /* --summary: the period of the rows printed last */
  rtel_tstamp period_start, period_end;
  unsigned char *measured; /* --poll: the points measured in the slot */
  int slot_seen;           /* --poll: a slot line was printed */
  struct {
    int on; /* --summary in text */
    int oom;
    fl_key *k;
    size_t n, cap;
    rtel_tstamp start, next; /* the current period, as the library's */
  } fl;
  /* records delivered, printed or not: for the hints at the end */
  uint64_t nflows, nmsgs, nios, nsegs, naggs;
  uint64_t nsegs_neg;  /* segments with a negative RTT */
  ipfix_export *ipfix; /* or NULL */
  report *rep;         /* --report: or NULL */
  rtel_tstamp now;     /* the latest packet time: IPFIX export time */
  rj_buf jb;           /* JSON: the line being written */
  rj_names names;      /* JSON: the observation points */
} run;

#define OBS(r, id) ((id) < (r)->npt ? (r)->pt[id].name : "?")

/* Writes the JSON line that the printer call before it made. */
#define json_out(r, print_call)                                               \
  do {                                                                        \
    rj_reset(&(r)->jb);                                                       \
    print_call;                                                               \
    if ((r)->jb.len) {                                                        \
      fwrite((r)->jb.p, 1, (r)->jb.len, stdout);                              \
    }                                                                         \
  } while (0)

static void tab_init(tab *t, const tcol *cols, size_t n, const char *tail,
                     const char *note) {
  memset(t, 0, sizeof(*t));
  t->ncols = (int)n;
  memcpy(t->col, cols, n * sizeof(*cols));
  t->tail = tail;
  t->note = note;
}

/* The header (|cell| NULL) or a row (the lengths of its cells in |len|),
 * made in |b| as printf("%*s") would print it and written in one. */
static void tab_line(rj_buf *b, const tab *t, const char *const *cell,
                     const size_t *len, const char *tail) {
  size_t clen[TAB_COLS], tl = 0, room = 1;
  const char *tail2 = NULL;
  int has_tail = 0; /* " TAIL" */
  char *p;
  int i;
  if (cell == NULL) {
    for (i = 0; i < t->ncols; i++) {
      clen[i] = strlen(t->col[i].name);
    }
    len = clen;
  } else if (tail && *tail) {
    tl = strlen(tail);
    has_tail = 1;
  }
  for (i = 0; i < t->ncols; i++) {
    int w = t->col[i].width;
    size_t aw = w < 0 ? (size_t)0 - (size_t)w : (size_t)w;
    room += 1 + (len[i] > aw ? len[i] : aw);
  }
  if (cell == NULL) {
    if (t->tail) {
      tl = strlen(t->tail);
      has_tail = 1;
    }
    if (t->note) {
      tail2 = t->note;
      room += 5 + strlen(tail2);
    }
  }
  room += 1 + tl;
  rj_reset(b);
  p = rj_room(b, room);
  if (p == NULL) {
    /* no memory for the line: through stdio, piece by piece */
    for (i = 0; i < t->ncols; i++) {
      printf("%s%*s", i ? " " : "", t->col[i].width,
             cell ? cell[i] : t->col[i].name);
    }
    if (has_tail) {
      printf(" %s", cell ? tail : t->tail);
    }
    if (tail2) {
      printf("   (%s)", tail2);
    }
    putchar('\n');
    return;
  }
  for (i = 0; i < t->ncols; i++) {
    int w = t->col[i].width;
    size_t aw = w < 0 ? (size_t)0 - (size_t)w : (size_t)w;
    size_t fill = len[i] < aw ? aw - len[i] : 0;
    if (i) {
      *p++ = ' ';
    }
    if (w > 0) {
      memset(p, ' ', fill);
      p += fill;
    }
    memcpy(p, cell ? cell[i] : t->col[i].name, len[i]);
    p += len[i];
    if (w < 0) {
      memset(p, ' ', fill);
      p += fill;
    }
  }
  if (has_tail) {
    *p++ = ' ';
    memcpy(p, cell ? tail : t->tail, tl);
    p += tl;
  }
  if (tail2) {
    size_t n = strlen(tail2);
    memcpy(p, "   (", 4);
    memcpy(p + 4, tail2, n);
    p[4 + n] = ')';
    p += 5 + n;
  }
  *p++ = '\n';
  rj_commit(b, p);
  fwrite(b->p, 1, b->len, stdout);
}

/* A row of |t|, made in |b|. */
static void tab_row(rj_buf *b, tab *t, const char *const *cell,
                    const char *tail) {
  size_t len[TAB_COLS];
  int i, header = !t->shown;
  for (i = 0; i < t->ncols; i++) {
    int w = t->col[i].width;
    size_t aw = w < 0 ? (size_t)0 - (size_t)w : (size_t)w;
    len[i] = strlen(cell[i]);
    if (len[i] > aw) {
      t->col[i].width = w < 0 ? -(int)len[i] : (int)len[i];
      header = 1;
    }
  }
  if (header) {
    tab_line(b, t, NULL, NULL, NULL);
    t->shown = 1;
  }
  tab_line(b, t, cell, len, tail);
}

/* |s| (|len| bytes) into |b| of |n| bytes, cut to fit as snprintf cuts. */
static const char *put_cut(char *b, size_t n, const char *s, size_t len) {
  if (len >= n) {
    len = n - 1;
  }
  memcpy(b, s, len);
  b[len] = '\0';
  return b;
}

/* "[-]A.BBB" of |a| thousandths: snprintf(b, n, "%s%" PRIu64 ".%03"
 * PRIu64, neg ? "-" : "", a / 1000, a % 1000). */
static const char *fixed3(char *b, size_t n, int neg, uint64_t a) {
  char t[RJ_U64_MAX + 5], *p = t;
  if (neg) {
    *p++ = '-';
  }
  p = rj_fmt_u64(p, a / 1000u);
  *p++ = '.';
  p = rj_fmt_u64_zero(p, a % 1000u, 3);
  return put_cut(b, n, t, (size_t)(p - t));
}

/* A duration in ns (or a difference of two, which may be negative) in us
 * with three decimals: exact. "-" for RTEL_DURATION_NONE. */
static const char *fmt_us(char *b, size_t n, int64_t ns) {
  uint64_t a;
  if (ns == RTEL_DURATION_NONE) {
    return "-";
  }
  a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
  return fixed3(b, n, ns < 0, a);
}

/* A timestamp (ns since the Unix epoch) in s with nine decimals: exact. */
static const char *fmt_ts(char *b, size_t n, rtel_tstamp ts) {
  char t[RJ_U64_MAX + 11], *p = rj_fmt_u64(t, ts / 1000000000u);
  *p++ = '.';
  p = rj_fmt_u64_zero(p, ts % 1000000000u, 9);
  return put_cut(b, n, t, (size_t)(p - t));
}

/* A rate in bit/s as Gbit/s with three decimals (rounded to Mbit/s). */
static const char *fmt_gbps(char *b, size_t n, uint64_t bps) {
  uint64_t mbps = bps / 1000000u + (bps % 1000000u >= 500000u);
  return fixed3(b, n, 0, mbps);
}

/* A duration as the options take one: in the largest of s, ms, us and ns
 * that it fills once, with the decimals it needs (1ms, 1.5ms, 250us). */
static const char *fmt_dur(char *b, size_t n, uint64_t ns) {
  static const char *const unit[] = {"s", "ms", "us", "ns"};
  uint64_t mul = 1000000000u;
  int k = 0, digits = 9;
  uint64_t frac;
  while (k < 3 && ns < mul) {
    mul /= 1000u;
    digits -= 3;
    k++;
  }
  frac = ns % mul;
  while (frac && frac % 10u == 0) {
    frac /= 10u;
    digits--;
  }
  if (frac) {
    snprintf(b, n, "%" PRIu64 ".%0*" PRIu64 "%s", ns / mul, digits, frac,
             unit[k]);
  } else {
    snprintf(b, n, "%" PRIu64 "%s", ns / mul, unit[k]);
  }
  return b;
}

/* |x| with at most |dec| decimals, the trailing zeros cut (40, 0.184). */
static const char *fmt_num(char *b, size_t n, double x, int dec) {
  char *p;
  if (!(x > -1e15 && x < 1e15)) {
    snprintf(b, n, "%.6g", x);
    return b;
  }
  snprintf(b, n, "%.*f", dec, x);
  if (strchr(b, '.')) {
    p = b + strlen(b);
    while (p[-1] == '0') {
      *--p = '\0';
    }
    if (p[-1] == '.') {
      p[-1] = '\0';
    }
  }
  return b;
}

/* Appends to the text |b| of |n| bytes, of which |*len| are used. */
static void addf(char *b, size_t n, size_t *len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static void addf(char *b, size_t n, size_t *len, const char *fmt, ...) {
  va_list ap;
  int k;
  if (*len >= n) {
    return;
  }
  va_start(ap, fmt);
  k = vsnprintf(b + *len, n - *len, fmt, ap);
  va_end(ap);
  if (k > 0) {
    *len = *len + (size_t)k < n ? *len + (size_t)k : n - 1;
  }
}

/* snprintf(b, n, "%" PRIu64, v) */
static const char *u64s(char *b, size_t n, uint64_t v) {
  char t[RJ_U64_MAX];
  if (v < 10u && n >= 2) { /* most counters */
    b[0] = (char)('0' + (unsigned)v);
    b[1] = '\0';
    return b;
  }
  return put_cut(b, n, t, (size_t)(rj_fmt_u64(t, v) - t));
}

/* snprintf(b, n, "%#" PRIx32, v) */
static const char *hexs(char *b, size_t n, uint32_t v) {
  char t[RJ_HEX_MAX];
  return put_cut(b, n, t, (size_t)(rj_fmt_hex_alt(t, v) - t));
}

/* Appends |s| to the text |b| of |n| bytes, of which |*len| are used, as
 * addf(b, n, len, "%s", s) does (cut to fit). */
static void add_s(char *b, size_t n, size_t *len, const char *s) {
  size_t k;
  if (*len >= n) {
    return;
  }
  k = strlen(s);
  if (k > n - 1 - *len) {
    k = n - 1 - *len;
  }
  memcpy(b + *len, s, k);
  *len += k;
  b[*len] = '\0';
}

/* Appends |v| as the formatter |fmt| writes it (rj_fmt_u64 & co.). */
static void add_v(char *b, size_t n, size_t *len,
                  char *(*fmt)(char *, uint64_t), uint64_t v) {
  char t[RJ_HEX_MAX + RJ_U64_MAX + 1];
  *fmt(t, v) = '\0';
  add_s(b, n, len, t);
}

#define U64(buf, v) u64s((buf), sizeof(buf), (uint64_t)(v))
#define HEX(buf, v) hexs((buf), sizeof(buf), (uint32_t)(v))

/* snprintf(b, n, "%s%" PRIu64, lb ? ">=" : "", v) */
static void lost_str(char *b, size_t n, int lb, uint64_t v) {
  char t[RJ_U64_MAX + 2], *p = t;
  if (lb) {
    *p++ = '>';
    *p++ = '=';
  }
  p = rj_fmt_u64(p, v);
  (void)put_cut(b, n, t, (size_t)(p - t));
}

/* ------------------------------------------------------------ output */

static void text_packet(run *r, const rtel_pkt_info *pi,
                        const rtel_pkt_hd *hd) {
  char src[INET6_ADDRSTRLEN + 8], dst[INET6_ADDRSTRLEN + 8];
  char frame[24], ts[32], dqpn[16], psn[16], len[16], info[512];
  const char *cell[9];
  const uint8_t *a;
  size_t il = 0;
  int i;

  info[0] = '\0';
  for (i = 0; i < 2; i++) {
    char *out = i ? dst : src;
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0,    0,
                                       0, 0, 0, 0, 0xff, 0xff};
    a = i ? hd->dst : hd->src;
    if ((hd->flags & RTEL_HD_F_IPV4) && memcmp(a, mapped, 12) == 0) {
      *rj_fmt_ipv4(out, a + 12) = '\0';
    } else {
      *rj_fmt_ipv6(out, a) = '\0';
    }
  }
  if (hd->flags & RTEL_HD_F_RETH) {
    /* " va=0x%" PRIx64 " rkey=%#" PRIx32 " len=%" PRIu32 */
    add_s(info, sizeof(info), &il, " va=0x");
    add_v(info, sizeof(info), &il, rj_fmt_hex, hd->reth_va);
    add_s(info, sizeof(info), &il, " rkey=");
    add_v(info, sizeof(info), &il, rj_fmt_hex_alt, hd->reth_rkey);
    add_s(info, sizeof(info), &il, " len=");
    add_v(info, sizeof(info), &il, rj_fmt_u64, hd->reth_dmalen);
  }
  if (hd->flags & RTEL_HD_F_AETH) {
    /* the syndrome's name, with the value that goes with it */
    const char *name = rtel_aeth_str(hd->aeth_syndrome);
    add_s(info, sizeof(info), &il, " ");
    add_s(info, sizeof(info), &il, name);
    if (strcmp(name, "ack") == 0) {
      add_s(info, sizeof(info), &il, " credits=");
      add_v(info, sizeof(info), &il, rj_fmt_u64,
            RTEL_AETH_VALUE(hd->aeth_syndrome));
    } else if (strcmp(name, "rnr_nak") == 0) {
      add_s(info, sizeof(info), &il, " timer=");
      add_v(info, sizeof(info), &il, rj_fmt_u64,
            RTEL_AETH_VALUE(hd->aeth_syndrome));
    } else if (strcmp(name, "nak_reserved") == 0 ||
               strcmp(name, "reserved") == 0) {
      addf(info, sizeof(info), &il, " syndrome=%#04x", hd->aeth_syndrome);
    }
    add_s(info, sizeof(info), &il, " msn=");
    add_v(info, sizeof(info), &il, rj_fmt_u64, hd->aeth_msn);
  }
  if (hd->flags & RTEL_HD_F_DETH) {
    add_s(info, sizeof(info), &il, " sqpn=");
    add_v(info, sizeof(info), &il, rj_fmt_hex_alt, hd->deth_sqpn);
    add_s(info, sizeof(info), &il, " qkey=");
    add_v(info, sizeof(info), &il, rj_fmt_hex_alt, hd->deth_qkey);
  }
  if (hd->flags & RTEL_HD_F_IMMDT) {
    add_s(info, sizeof(info), &il, " imm=");
    add_v(info, sizeof(info), &il, rj_fmt_hex_alt, hd->imm);
  }
  if (hd->flags & RTEL_HD_F_IETH) {
    add_s(info, sizeof(info), &il, " inv_rkey=");
    add_v(info, sizeof(info), &il, rj_fmt_hex_alt, hd->ieth_rkey);
  }
  if (hd->flags & RTEL_HD_F_CM) {
    const char *name = rj_cm_attr_name(hd->cm_attr);
    add_s(info, sizeof(info), &il, " CM:");
    add_s(info, sizeof(info), &il, name ? name : "?");
    if (hd->cm_fields & RTEL_CM_F_LOCAL_QPN) {
      add_s(info, sizeof(info), &il, " local_qpn=");
      add_v(info, sizeof(info), &il, rj_fmt_hex_alt, hd->cm_local_qpn);
    }
  }
  if (hd->fecn) {
    add_s(info, sizeof(info), &il, " FECN");
  }
  if (hd->becn) {
    add_s(info, sizeof(info), &il, " BECN");
  }
  if (hd->ecn == 3) {
    add_s(info, sizeof(info), &il, " CE");
  }
  if (hd->icrc_status != RTEL_ICRC_UNCHECKED) {
    add_s(info, sizeof(info), &il, " icrc=");
    add_s(info, sizeof(info), &il, rj_icrc_str(hd->icrc_status));
  }
  if (hd->flags & RTEL_HD_F_HDR_TRUNC) {
    add_s(info, sizeof(info), &il, " [truncated]");
  }
  cell[0] = OBS(r, pi->obs);
  cell[1] = U64(frame, r->frame);
  cell[2] = fmt_ts(ts, sizeof(ts), pi->ts);
  cell[3] = src;
  cell[4] = dst;
  cell[5] = rtel_opcode_str(hd->opcode);
  cell[6] = HEX(dqpn, hd->dqpn);
  cell[7] = U64(psn, hd->psn);
  cell[8] = U64(len, hd->payload_len);
  tab_row(&r->jb, &r->t_pkt, cell, info[0] ? info + 1 : "");
}

static int on_packet(rtel_ctx *ctx, const rtel_pkt_info *pi,
                     const rtel_pkt_hd *hd, const uint8_t *pkt, size_t pktlen,
                     void *user_data) {
  run *r = user_data;
  (void)ctx;
  (void)pkt;
  (void)pktlen;
  if (r->opt->format == FMT_JSON) {
    json_out(r, rj_packet(&r->jb, &r->names, pi, r->frame, hd));
  } else {
    text_packet(r, pi, hd);
  }
  return 0;
}

static int on_flow(rtel_ctx *ctx, const rtel_flow_record *f, void *user_data) {
  run *r = user_data;
  char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
  char dqpn[16], peer[16], fct[32], bytes[24], pkts[24], retx[24], fet[32];
  char naks[24], fnr[16], cnps[24], ce[24], lost[32], orph[24];
  const char *cell[18];
  int paired = (f->flags & RTEL_FLOW_F_PAIRED) != 0;
  (void)ctx;
  r->nflows++;
  if (r->ipfix) {
    (void)ipfix_export_flow(r->ipfix, f, r->now);
  }
  if (r->rep) {
    report_flow(r->rep, f);
  }
  if (!r->opt->flows) {
    return 0;
  }
  if (r->opt->format == FMT_JSON) {
    json_out(r, rj_flow(&r->jb, &r->names, f));
    return 0;
  }
  rj_format_addr(src, f->flags, f->src);
  rj_format_addr(dst, f->flags, f->dst);
  if (paired) {
    (void)rj_fmt_fixed4(fnr, sizeof(fnr), f->fnr);
  } else {
    strcpy(fnr, "?");
  }
  /* ">=" before a lower bound: the digits stay in line */
  lost_str(lost, sizeof(lost), (f->flags & RTEL_FLOW_F_LOST_LB) != 0,
           f->lost_upstream);
  cell[0] = OBS(r, f->obs);
  cell[1] = src;
  cell[2] = dst;
  cell[3] = HEX(dqpn, f->dqpn);
  cell[4] = paired ? HEX(peer, f->peer_qpn) : "-";
  cell[5] = rj_ops_str(f->ops);
  cell[6] = fmt_us(fct, sizeof(fct), (int64_t)f->fct);
  cell[7] = U64(bytes, f->bytes);
  cell[8] = U64(pkts, f->packets);
  cell[9] = U64(retx, f->retx_packets);
  cell[10] = fmt_gbps(fet, sizeof(fet), f->fet_bps);
  cell[11] = U64(naks, f->naks_seq + f->naks_rnr + f->naks_fatal);
  cell[12] = fnr;
  cell[13] = U64(cnps, f->cnps);
  cell[14] = U64(ce, f->ecn_ce);
  cell[15] = rj_end_str(f->end);
  cell[16] = lost;
  cell[17] = U64(orph, f->orphan_packets);
  tab_row(&r->jb, &r->t_flow, cell, NULL);
  return 0;
}

static int on_message(rtel_ctx *ctx, const rtel_msg_record *m,
                      void *user_data) {
  run *r = user_data;
  char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
  char dqpn[16], psn[16], lpsn[16], rlen[16], fct[32], bytes[24], pkts[24];
  char retx[24], fet[32], naks[16], lost[24];
  const char *cell[17];
  (void)ctx;
  r->nmsgs++;
  if (r->ipfix) {
    (void)ipfix_export_msg(r->ipfix, m, r->now);
  }
  if (r->rep) {
    report_msg(r->rep, m);
  }
  if (!r->opt->messages) {
    return 0;
  }
  if (r->opt->format == FMT_JSON) {
    json_out(r, rj_message(&r->jb, &r->names, m));
    return 0;
  }
  rj_format_addr(src, m->flags, m->src);
  rj_format_addr(dst, m->flags, m->dst);
  lost_str(lost, sizeof(lost), (m->flags & RTEL_FLOW_F_LOST_LB) != 0,
           m->lost_upstream);
  cell[0] = OBS(r, m->obs);
  cell[1] = src;
  cell[2] = dst;
  cell[3] = HEX(dqpn, m->dqpn);
  cell[4] = rj_ops_str(m->op);
  cell[5] = U64(psn, m->first_psn);
  cell[6] = U64(lpsn, m->last_psn);
  cell[7] = U64(rlen, m->reth_len);
  cell[8] = fmt_us(fct, sizeof(fct), (int64_t)m->fct);
  cell[9] = U64(bytes, m->bytes);
  cell[10] = U64(pkts, m->packets);
  cell[11] = U64(retx, m->retx_packets);
  cell[12] = (m->flags & RTEL_MSG_F_INCOMPLETE) ? "no" : "yes";
  cell[13] = rj_end_str(m->end);
  cell[14] = fmt_gbps(fet, sizeof(fet), m->fet_bps);
  cell[15] = U64(naks, m->naks_seq + m->naks_rnr + m->naks_fatal);
  cell[16] = lost;
  tab_row(&r->jb, &r->t_msg, cell, NULL);
  return 0;
}

/* The command of an I/O record in text: the library's name (admin and
 * Fabrics commands too); "-" for an orphan (its command was not seen). */
static const char *text_nvme_op(uint8_t opcode, uint8_t fctype, uint32_t flags,
                                uint32_t state) {
  if (state == RTEL_IO_ORPHAN) {
    return "-";
  }
  return rtel_nvme_cmd_str(opcode, fctype, (flags & RTEL_IO_F_ADMIN) != 0);
}

/* "status=NAME[,dnr][,more][,crd=N]" for a non-zero NVMe status, into
 * |b|; "" for 0. */
static const char *text_nvme_status(char *b, size_t n, uint16_t status,
                                    uint8_t opcode) {
  size_t len = 0;
  b[0] = '\0';
  if (status == 0) {
    return b;
  }
  addf(b, n, &len, "status=%s", rtel_nvme_status_str(status, opcode));
  if (status & 0x4000u) {
    addf(b, n, &len, ",dnr");
  }
  if (status & 0x2000u) {
    addf(b, n, &len, ",more");
  }
  if (status & 0x1800u) {
    addf(b, n, &len, ",crd=%u", (unsigned)((status >> 11) & 3u));
  }
  return b;
}

static fl_key *fl_find(run *r, const rtel_io_record *io, uint32_t nsid) {
  size_t i;
  fl_key *k;
  for (i = 0; i < r->fl.n; i++) {
    k = &r->fl.k[i];
    if (k->obs == io->obs && k->nsid == nsid &&
        memcmp(k->host, io->host, 16) == 0 &&
        memcmp(k->target, io->target, 16) == 0) {
      return k;
    }
  }
  if (r->fl.n == r->fl.cap) {
    size_t cap = r->fl.cap ? 2 * r->fl.cap : 8;
    fl_key *p = realloc(r->fl.k, cap * sizeof(*p));
    if (p == NULL) {
      return NULL;
    }
    r->fl.k = p;
    r->fl.cap = cap;
  }
  k = &r->fl.k[r->fl.n++];
  memset(k, 0, sizeof(*k));
  k->obs = io->obs;
  k->nsid = nsid;
  k->flags = io->flags & RTEL_IO_F_IPV6;
  memcpy(k->host, io->host, 16);
  memcpy(k->target, io->target, 16);
  return k;
}

static int fl_add_to(run *r, const rtel_io_record *io, uint32_t nsid) {
  fl_key *k = fl_find(r, io, nsid);
  if (k == NULL) {
    return -1;
  }
  if (io->state != RTEL_IO_COMPLETE) {
    k->timeouts++;
    return 0;
  }
  if (io->nvme_status != 0) {
    k->errors++;
  }
  if (k->n == k->cap) {
    size_t cap = k->cap ? 2 * k->cap : 16;
    int64_t *p = realloc(k->iol, cap * sizeof(*p));
    if (p == NULL) {
      return -1;
    }
    k->iol = p;
    k->cap = cap;
  }
  k->iol[k->n++] = io->iol;
  return 0;
}

/* An I/O record, for the flush rows. */
static void fl_io(run *r, const rtel_io_record *io) {
  if ((io->flags & (RTEL_IO_F_ADMIN | RTEL_IO_F_FABRICS)) ||
      io->opcode != RTEL_NVME_OP_FLUSH ||
      (io->state != RTEL_IO_COMPLETE && io->state != RTEL_IO_TIMEOUT)) {
    return;
  }
  if (fl_add_to(r, io, io->nsid) != 0 ||
      (io->nsid != RTEL_NSID_ALL && fl_add_to(r, io, RTEL_NSID_ALL) != 0)) {
    if (!r->fl.oom) {
      fprintf(stderr, PROG ": out of memory: flushes left out of the "
                           "summary\n");
    }
    r->fl.oom = 1;
  }
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The nearest-rank quantile k/1000 of the |n| sorted values |v|. */
static int64_t rank(const int64_t *v, size_t n, uint64_t k) {
  uint64_t i = ((uint64_t)n * k + 999u) / 1000u;
  return v[i ? i - 1 : 0];
}

static void text_summary_row(run *r, const rtel_io_aggregate *g,
                             const char *dir);

/* The flush rows of the period that ends at |end|; the next one starts. */
static void fl_report(run *r, rtel_tstamp end) {
  size_t i;
  for (i = 0; i < r->fl.n; i++) {
    fl_key *k = &r->fl.k[i];
    rtel_io_aggregate g;
    memset(&g, 0, sizeof(g));
    g.obs = k->obs;
    g.flags = k->flags;
    g.opcode = RTEL_NVME_OP_FLUSH;
    g.nsid = k->nsid;
    memcpy(g.host, k->host, 16);
    memcpy(g.target, k->target, 16);
    g.period_start = r->fl.start;
    g.period_end = end;
    g.count = k->n;
    g.errors = k->errors;
    g.timeouts = k->timeouts;
    if (k->n) {
      int64_t sum = 0;
      size_t j;
      qsort(k->iol, k->n, sizeof(*k->iol), cmp_i64);
      for (j = 0; j < k->n; j++) {
        sum += k->iol[j];
      }
      g.iol.count = k->n;
      g.iol.min = k->iol[0];
      g.iol.max = k->iol[k->n - 1];
      g.iol.mean = sum / (int64_t)k->n;
      g.iol.p50 = rank(k->iol, k->n, 500);
      g.iol.p90 = rank(k->iol, k->n, 900);
      g.iol.p99 = rank(k->iol, k->n, 990);
      g.iol.p999 = rank(k->iol, k->n, 999);
    }
    r->naggs++;
    text_summary_row(r, &g, "flush");
    free(k->iol);
  }
  r->fl.n = 0;
  r->fl.start = end;
}

/* After rtel_ctx_handle_expiry(|now|): the period that ended, as the
 * library's aggregates end theirs (one report at the latest boundary). */
static void fl_expire(run *r, rtel_tstamp now) {
  rtel_tstamp end, iv = r->opt->interval_ns;
  if (r->fl.next == RTEL_TSTAMP_NONE || now < r->fl.next) {
    return;
  }
  end = r->fl.next + (now - r->fl.next) / iv * iv;
  r->fl.next = end + iv;
  fl_report(r, end);
}

static int on_io(rtel_ctx *ctx, const rtel_io_record *io, void *user_data) {
  run *r = user_data;
  char host[INET6_ADDRSTRLEN], target[INET6_ADDRSTRLEN];
  char tqpn[16], cid[8], nsid[16], slba[24], bytes[24], iol[32], dal[32];
  char dpl[32], xfer[32], status[96];
  const char *cell[14];
  uint32_t af = (io->flags & RTEL_IO_F_IPV6) ? RTEL_FLOW_F_IPV6 : 0;
  (void)ctx;
  r->nios++;
  if (r->ipfix) {
    (void)ipfix_export_io(r->ipfix, io, r->now);
  }
  if (r->rep) {
    report_io(r->rep, io);
  }
  if (r->fl.on) {
    fl_io(r, io);
  }
  if (!r->opt->ios) {
    return 0;
  }
  if (r->opt->format == FMT_JSON) {
    json_out(r, rj_io(&r->jb, &r->names, io));
    return 0;
  }
  rj_format_addr(host, af, io->host);
  rj_format_addr(target, af, io->target);
  cell[0] = OBS(r, io->obs);
  cell[1] = host;
  cell[2] = target;
  cell[3] = HEX(tqpn, io->target_qpn);
  cell[4] = U64(cid, io->cid);
  cell[5] = text_nvme_op(io->opcode, io->fctype, io->flags, io->state);
  cell[6] = U64(nsid, io->nsid);
  cell[7] = U64(slba, io->slba);
  cell[8] = U64(bytes, io->bytes);
  cell[9] = rj_io_state_str(io->state);
  cell[10] = fmt_us(iol, sizeof(iol), io->iol);
  cell[11] = fmt_us(dal, sizeof(dal), io->dal);
  cell[12] = fmt_us(dpl, sizeof(dpl), io->dpl);
  cell[13] = fmt_us(xfer, sizeof(xfer), io->xfer);
  tab_row(
      &r->jb, &r->t_io, cell,
      text_nvme_status(status, sizeof(status), io->nvme_status, io->opcode));
  return 0;
}

static int on_segment(rtel_ctx *ctx, const rtel_segment_record *sg,
                      void *user_data) {
  run *r = user_data;
  char host[INET6_ADDRSTRLEN], target[INET6_ADDRSTRLEN];
  char tqpn[16], cid[8], v[6][32];
  const char *cell[13];
  uint32_t af = (sg->flags & RTEL_IO_F_IPV6) ? RTEL_FLOW_F_IPV6 : 0;
  (void)ctx;
  r->nsegs++;
  if (sg->rtt < 0 && sg->rtt != RTEL_DURATION_NONE) {
    r->nsegs_neg++;
  }
  if (r->ipfix) {
    (void)ipfix_export_segment(r->ipfix, sg, r->now);
  }
  if (r->rep) {
    report_segment(r->rep, sg);
  }
  if (!r->opt->segments) {
    return 0;
  }
  if (r->opt->format == FMT_JSON) {
    json_out(r, rj_segment(&r->jb, &r->names, sg));
    return 0;
  }
  rj_format_addr(host, af, sg->host);
  rj_format_addr(target, af, sg->target);
  cell[0] = host;
  cell[1] = target;
  cell[2] = HEX(tqpn, sg->target_qpn);
  cell[3] = U64(cid, sg->cid);
  cell[4] = (sg->flags & RTEL_IO_F_FABRICS)
                ? "fabrics"
                : text_nvme_op(sg->opcode, 0, sg->flags, RTEL_IO_COMPLETE);
  cell[5] = OBS(r, sg->compute_obs);
  cell[6] = OBS(r, sg->storage_obs);
  cell[7] = fmt_us(v[0], sizeof(v[0]), sg->iol1);
  cell[8] = fmt_us(v[1], sizeof(v[1]), sg->iol2);
  cell[9] = fmt_us(v[2], sizeof(v[2]), sg->rtt);
  cell[10] = fmt_us(v[3], sizeof(v[3]), sg->compute);
  cell[11] = fmt_us(v[4], sizeof(v[4]), sg->network);
  cell[12] = fmt_us(v[5], sizeof(v[5]), sg->storage);
  tab_row(&r->jb, &r->t_seg, cell, NULL);
  return 0;
}

/* A percentile of a summary row: "-" when nothing was measured. */
static const char *text_lat(char *b, size_t n, int64_t ns, uint64_t count) {
  return count ? fmt_us(b, n, ns) : "-";
}

/* One row of the summary table, after the line of its period. */
static void text_summary_row(run *r, const rtel_io_aggregate *g,
                             const char *dir) {
  char host[INET6_ADDRSTRLEN], target[INET6_ADDRSTRLEN], ns[16];
  char count[24], bytes[24], err[24], tmo[24], lat[9][32], a[32], b[32];
  char len[32];
  const char *cell[21];
  uint32_t af = (g->flags & RTEL_IO_F_IPV6) ? RTEL_FLOW_F_IPV6 : 0;
  rj_format_addr(host, af, g->host);
  rj_format_addr(target, af, g->target);
  if (g->nsid == RTEL_NSID_ALL) {
    strcpy(ns, "*");
  } else {
    (void)U64(ns, g->nsid);
  }
  if (!r->period_shown || g->period_start != r->period_start ||
      g->period_end != r->period_end) {
    printf("-- summary period %s to %s s (%s)\n",
           fmt_ts(a, sizeof(a), g->period_start),
           fmt_ts(b, sizeof(b), g->period_end),
           fmt_dur(len, sizeof(len), g->period_end - g->period_start));
    r->period_shown = 1;
    r->period_start = g->period_start;
    r->period_end = g->period_end;
  }
  cell[0] = OBS(r, g->obs);
  cell[1] = host;
  cell[2] = target;
  cell[3] = ns;
  cell[4] = dir;
  cell[5] = U64(count, g->count);
  cell[6] = U64(bytes, g->bytes);
  cell[7] = U64(err, g->errors);
  cell[8] = U64(tmo, g->timeouts);
  cell[9] = "|";
  cell[10] = text_lat(lat[0], sizeof(lat[0]), g->iol.p50, g->iol.count);
  cell[11] = text_lat(lat[1], sizeof(lat[1]), g->iol.p90, g->iol.count);
  cell[12] = text_lat(lat[2], sizeof(lat[2]), g->iol.p99, g->iol.count);
  cell[13] = text_lat(lat[3], sizeof(lat[3]), g->iol.p999, g->iol.count);
  cell[14] = text_lat(lat[4], sizeof(lat[4]), g->iol.max, g->iol.count);
  cell[15] = "|";
  cell[16] = text_lat(lat[5], sizeof(lat[5]), g->dal.p50, g->dal.count);
  cell[17] = text_lat(lat[6], sizeof(lat[6]), g->dal.p99, g->dal.count);
  cell[18] = "|";
  cell[19] = text_lat(lat[7], sizeof(lat[7]), g->dpl.p50, g->dpl.count);
  cell[20] = text_lat(lat[8], sizeof(lat[8]), g->dpl.p99, g->dpl.count);
  tab_row(&r->jb, &r->t_sum, cell, NULL);
}

static int on_io_aggregate(rtel_ctx *ctx, const rtel_io_aggregate *g,
                           void *user_data) {
  run *r = user_data;
  (void)ctx;
  r->naggs++;
  if (r->ipfix) {
    (void)ipfix_export_aggregate(r->ipfix, g, r->now);
  }
  if (r->rep) {
    report_aggregate(r->rep, g);
  }
  if (!r->opt->summary) {
    return 0;
  }
  if (r->opt->format == FMT_JSON) {
    json_out(r, rj_aggregate(&r->jb, &r->names, g));
    return 0;
  }
  text_summary_row(r, g, g->opcode == RTEL_NVME_OP_WRITE ? "write" : "read");
  return 0;
}

/* " NAME, NAME" of the ports |ids| (the points: port id = point id). */
static void text_names(const run *r, const uint32_t *ids, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) {
    printf("%s%s", i ? ", " : " ", OBS(r, ids[i]));
  }
}

static int on_slot(rtel_ctx *ctx, const rtel_slot_event *ev, void *user_data) {
  run *r = user_data;
  char ts[32], len[32];
  size_t i, n = 0;
  (void)ctx;
  if (r->rep) {
    report_slot(r->rep, ev);
  }
  if (r->opt->poll_ports == 0) {
    return 0;
  }
  if (r->opt->format == FMT_JSON) {
    json_out(r, rj_slot(&r->jb, &r->names, ev));
    return 0;
  }
  /* the points measured during the slot: those of the slot before (all
   * of them before the first), with the ones that start, without the
   * ones that stop */
  r->slot_seen = 1;
  for (i = 0; i < ev->nstarted; i++) {
    if (ev->started[i] < r->npt) {
      r->measured[ev->started[i]] = 1;
    }
  }
  for (i = 0; i < ev->nstopped; i++) {
    if (ev->stopped[i] < r->npt) {
      r->measured[ev->stopped[i]] = 0;
    }
  }
  printf("-- slot %" PRIu64 " at %s s for %s: measuring", ev->slot,
         fmt_ts(ts, sizeof(ts), ev->start),
         fmt_dur(len, sizeof(len), ev->end - ev->start));
  for (i = 0; i < r->npt; i++) {
    if (r->measured[i]) {
      printf("%s%s", n++ ? ", " : " ", r->pt[i].name);
    }
  }
  if (n == 0) {
    fputs(" none", stdout);
  }
  if (ev->nstarted) {
    fputs("; started", stdout);
    text_names(r, ev->started, ev->nstarted);
  }
  if (ev->nstopped) {
    fputs("; stopped", stdout);
    text_names(r, ev->stopped, ev->nstopped);
  }
  putchar('\n');
  return 0;
}

/* An alarm's value or limit in the unit of the tables: times in us,
 * throughput in Gbit/s, CNPs per second, ratios as they are. */
static const char *text_metric_value(char *b, size_t n, uint32_t metric,
                                     double v) {
  char num[64];
  switch (metric) {
  case RTEL_METRIC_IOL:
  case RTEL_METRIC_DAL:
  case RTEL_METRIC_DPL:
  case RTEL_METRIC_FCT:
    snprintf(b, n, "%s us", fmt_num(num, sizeof(num), v / 1e3, 3));
    break;
  case RTEL_METRIC_FET:
    snprintf(b, n, "%s Gbit/s", fmt_num(num, sizeof(num), v / 1e9, 9));
    break;
  case RTEL_METRIC_CNP_RATE:
    snprintf(b, n, "%s CNP/s", fmt_num(num, sizeof(num), v, 3));
    break;
  default:
    snprintf(b, n, "%.6g", v);
    break;
  }
  return b;
}

static int on_alarm(rtel_ctx *ctx, const rtel_alarm *al, void *user_data) {
  run *r = user_data;
  char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN], v[96], lim[96], ts[32];
  const char *state = al->state == RTEL_ALARM_RAISED ? "raised" : "cleared";
  uint32_t af = 0;
  (void)ctx;
  if (r->rep) {
    report_alarm(r->rep, al);
  }
  if (al->flow) {
    af = al->flow->flags & RTEL_FLOW_F_IPV6;
  } else if (al->io && (al->io->flags & RTEL_IO_F_IPV6)) {
    af = RTEL_FLOW_F_IPV6;
  }
  if (r->opt->format == FMT_JSON) {
    json_out(r, rj_alarm(&r->jb, &r->names, al));
    return 0;
  }
  rj_format_addr(src, af, al->src);
  rj_format_addr(dst, af, al->dst);
  printf("!! alarm %s: %s %s %s (limit %s) at %s", state,
         rj_metric_name(al->metric),
         al->kind == RTEL_ALARM_BASELINE ? "baseline" : "threshold",
         text_metric_value(v, sizeof(v), al->metric, al->value),
         text_metric_value(lim, sizeof(lim), al->metric, al->limit),
         OBS(r, al->obs));
  if (al->scope == RTEL_SCOPE_PAIR) {
    printf(" %s -> %s", src, dst);
  }
  printf(" ts %s s\n", fmt_ts(ts, sizeof(ts), al->ts));
  return 0;
}

/* The counters: |title| names the observation point (or all of them). */
/* The counters: in text a block headed |title|; in JSON a stats record,
 * with |file| (NULL: the run's) when they are one file's. */
static void print_stats(const options *opt, const char *obs, const char *file,
                        const char *title, const rtel_ctx_stats *st) {
  rj_row rows[RJ_STATS_ROWS];
  size_t i, nrows = rj_stats_rows(st, rows, RJ_STATS_ROWS);

  if (opt->format == FMT_JSON) {
    rj_buf b;
    rj_init(&b);
    rj_stats(&b, obs, file, st);
    if (b.len) {
      fwrite(b.p, 1, b.len, stdout);
    }
    rj_free(&b);
    return;
  }
  printf("== %s ==\n", title);
  for (i = 0; i < nrows; i++) {
    printf("  %-22s %12" PRIu64 "\n", rows[i].name, rows[i].v);
  }
  for (i = 0; i < RTEL_MALFORMED_SLOTS; i++) {
    if (st->malformed[i]) {
      printf("  malformed: %-40s %8" PRIu64 "\n",
             rtel_malformed_str((uint32_t)i), st->malformed[i]);
    }
  }
}

/* ------------------------------------------------------------ input */

/* The point named |name| for input |i|: the one of that name made for the
 * same input, or with NAME= for any input with NAME=; else a new one.
 * Returns its id, or NO_POINT when out of memory (reported). */
static uint32_t point_get(run *r, size_t i, const char *name, int named) {
  size_t k;
  point *p;
  for (k = 0; k < r->npt; k++) {
    if (strcmp(r->pt[k].name, name) == 0 &&
        ((named && r->pt[k].named) || r->pt[k].file == i)) {
      return (uint32_t)k;
    }
  }
  if (r->npt == r->ptcap) {
    size_t ncap = r->ptcap ? 2 * r->ptcap : 8;
    point *np = realloc(r->pt, ncap * sizeof(*np));
    const char **nn;
    unsigned char *nm;
    if (np == NULL) {
      fprintf(stderr, PROG ": out of memory\n");
      return NO_POINT;
    }
    r->pt = np;
    nn = realloc(r->ptnames, ncap * sizeof(*nn));
    if (nn == NULL) {
      fprintf(stderr, PROG ": out of memory\n");
      return NO_POINT;
    }
    r->ptnames = nn;
    nm = realloc(r->measured, ncap);
    if (nm == NULL) {
      fprintf(stderr, PROG ": out of memory\n");
      return NO_POINT;
    }
    r->measured = nm;
    r->ptcap = ncap;
  }
  p = &r->pt[r->npt];
  if ((p->name = strdup(name)) == NULL) {
    fprintf(stderr, PROG ": out of memory\n");
    return NO_POINT;
  }
  p->file = i;
  p->named = named;
  p->last_ts = RTEL_TSTAMP_NONE;
  /* --poll text: measured until the first slot says otherwise; a point
   * met later is measured once a slot starts it */
  r->measured[r->npt] = !r->slot_seen;
  r->ptnames[r->npt] = p->name;
  r->names.obs = r->ptnames;
  r->names.nobs = ++r->npt;
  return (uint32_t)(r->npt - 1);
}

/* The role --compute-side or --storage-side gives point |id|. */
static uint32_t point_role(const run *r, uint32_t id) {
  const char *name = r->pt[id].name;
  if (r->opt->compute_side && strcmp(name, r->opt->compute_side) == 0) {
    return RTEL_ROLE_COMPUTE;
  }
  if (r->opt->storage_side && strcmp(name, r->opt->storage_side) == 0) {
    return RTEL_ROLE_STORAGE;
  }
  return RTEL_ROLE_UNKNOWN;
}

/* Tells the context and the report about point |id|. */
static void point_setup(run *r, uint32_t id) {
  uint32_t role = point_role(r, id);
  if (role != RTEL_ROLE_UNKNOWN) {
    (void)rtel_ctx_set_obs_role(r->ctx, id, role);
  }
  if (r->rep) {
    (void)report_obs(r->rep, id, r->pt[id].name, role, RTEL_TSTAMP_NONE,
                     RTEL_TSTAMP_NONE);
  }
}

/* The point of interface |ifc| of input |i|: the file's, or with
 * --split-interfaces (pcapng) its own, NAME.IFNAME (if_name) or NAME.ifN
 * (N: its number in the file). Made when first asked for (and set up if
 * the context exists). Returns NO_POINT when out of memory. */
static uint32_t if_point(run *r, size_t i, uint32_t ifc) {
  input *in = &r->in[i];
  const capfile_if *f;
  size_t len, before;
  char *name;
  uint32_t id;
  if (!r->opt->split || capfile_format(in->cf) != CAPFILE_PCAPNG) {
    return in->point;
  }
  if (ifc >= in->nifpoint) {
    size_t n = capfile_nifs(in->cf), k;
    uint32_t *np = realloc(in->ifpoint, n * sizeof(*np));
    if (np == NULL) {
      fprintf(stderr, PROG ": out of memory\n");
      return NO_POINT;
    }
    for (k = in->nifpoint; k < n; k++) {
      np[k] = NO_POINT;
    }
    in->ifpoint = np;
    in->nifpoint = n;
  }
  if (in->ifpoint[ifc] != NO_POINT) {
    return in->ifpoint[ifc];
  }
  f = capfile_iface(in->cf, ifc);
  len = strlen(in->name) + sizeof(f->name) + 16;
  if ((name = malloc(len)) == NULL) {
    fprintf(stderr, PROG ": out of memory\n");
    return NO_POINT;
  }
  if (f->name[0]) {
    snprintf(name, len, "%s.%s", in->name, f->name);
  } else {
    snprintf(name, len, "%s.if%" PRIu32, in->name, ifc);
  }
  before = r->npt;
  id = point_get(r, i, name, in->named);
  free(name);
  if (id != NO_POINT && r->ctx && r->npt > before) {
    point_setup(r, id);
  }
  in->ifpoint[ifc] = id;
  return id;
}

/* Reads the next packet of |in| that is of a link type the decoder reads
 * into in->pk (in->have 0 at the end); the others are counted (capfile_if
 * packets) and reported at the end. Returns 0, or 1 after a read error
 * (reported; the file ends there). */
static int read_ahead(input *in) {
  int rv;
  while ((rv = capfile_next(in->cf, &in->pk)) == 1) {
    if (pcap_input_file_linktype(in->pk.linktype) != 0) {
      in->have = 1;
      in->frame = capfile_packets(in->cf);
      return 0;
    }
  }
  in->have = 0;
  if (rv < 0) {
    /* a damaged file: report it, keep what was measured up to here */
    fprintf(stderr, PROG ": %s: after frame %" PRIu64 ": %s\n", in->path,
            capfile_packets(in->cf), capfile_error(in->cf));
    return 1;
  }
  return 0;
}

/* The name of a link type, for the messages. */
static const char *linktype_name(uint32_t lt) {
  /* pcap's names are those of DLT_* values: the same numbers as the files'
   * LINKTYPE_* for every link type the decoder does not read */
  const char *s = lt <= INT_MAX ? pcap_datalink_val_to_name((int)lt) : NULL;
  return s ? s : "?";
}

#define LINKTYPES_READ                                                        \
  "only Ethernet, raw IP and Linux cooked (SLL, SLL2) captures are read"

/* Opens input |i| and reads its first packet. Returns 0, or 1 when the
 * file cannot be read (reported; in->cf NULL) or was damaged before its
 * first packet (reported). */
static int open_input(input *in) {
  char err[256];
  size_t k, nifs;
  int rv, supported = 0;
  in->cf = capfile_open(in->path, err, sizeof(err));
  if (in->cf == NULL) {
    fprintf(stderr, PROG ": %s: %s\n", in->path, err);
    return 1;
  }
  rv = capfile_next(in->cf, &in->pk);
  nifs = capfile_nifs(in->cf);
  for (k = 0; k < nifs; k++) {
    supported |=
        pcap_input_file_linktype(capfile_iface(in->cf, k)->linktype) != 0;
  }
  if (nifs && !supported) {
    /* nothing the decoder reads (as far as the file has said before its
     * first packet): one line, and the file is left out */
    uint32_t lt = capfile_iface(in->cf, 0)->linktype;
    fprintf(stderr, PROG ": %s: unsupported link type %s (%" PRIu32 "): %s\n",
            in->path, linktype_name(lt), lt, LINKTYPES_READ);
    capfile_close(in->cf);
    in->cf = NULL;
    return 1;
  }
  if (rv == 1 && pcap_input_file_linktype(in->pk.linktype) != 0) {
    in->have = 1;
    in->frame = 1;
    return 0;
  }
  if (rv < 0) {
    fprintf(stderr, PROG ": %s: after frame 0: %s\n", in->path,
            capfile_error(in->cf));
    return 1;
  }
  return rv == 1 ? read_ahead(in) : 0;
}

/* On stderr: the frames of each interface of a link type the decoder does
 * not read. Returns 1 if there were any, else 0. */
static int skipped_notes(const run *r) {
  size_t i, k;
  int any = 0;
  for (i = 0; i < r->nin; i++) {
    const capfile *cf = r->in[i].cf;
    for (k = 0; cf && k < capfile_nifs(cf); k++) {
      const capfile_if *f = capfile_iface(cf, k);
      if (f->packets == 0 || pcap_input_file_linktype(f->linktype) != 0) {
        continue;
      }
      fprintf(stderr,
              PROG ": %s: %" PRIu64 " frames of interface %zu%s%s%s not "
                   "read: unsupported link type %s (%" PRIu32 "); %s\n",
              r->in[i].path, f->packets, k, f->name[0] ? " (" : "", f->name,
              f->name[0] ? ")" : "", linktype_name(f->linktype), f->linktype,
              LINKTYPES_READ);
      any = 1;
    }
  }
  return any;
}

/* --report: writes the page, then one line on stderr. Returns 0, or 1. */
static int write_report(const char *path, report *rep) {
  struct timespec t0, t1;
  FILE *f = fopen(path, "w");
  long size;
  int rv;
  if (f == NULL) {
    fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
    return 1;
  }
  clock_gettime(CLOCK_MONOTONIC, &t0);
  rv = report_write(rep, f);
  size = ftell(f);
  if (fclose(f) != 0) {
    rv = -1;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (rv != 0) {
    fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
    return 1;
  }
  fprintf(stderr, "report: %s (%ld bytes, %.0f ms)\n", path, size,
          (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
              (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
  return 0;
}

/* The default flow table of an offline run: large enough that a capture
 * of a large fabric is not split by evictions, small enough that a small
 * capture costs little. A flow needs a frame, and a frame takes at least
 * 32 bytes of a capture file (a 16-byte record header and a RoCE header),
 * so |FILE size| / 32 flows can never overflow; at least 4096 (the
 * library's default), at most 1048576 (about 830 MB: each flow costs about
 * 800 bytes, rtel_settings(3)) and at most a quarter of the physical
 * memory. A FILE that is not a regular file (a pipe) counts as large. */
#define FLOWS_MIN 4096u
#define FLOWS_MAX 1048576u
#define FLOW_BYTES 1024u /* the memory budget of a flow, pairs included */

static uint32_t default_max_flows(const input *in, size_t nin) {
  uint64_t bytes = 0, n, cap = FLOWS_MAX;
  long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
  size_t i;
  for (i = 0; i < nin; i++) {
    struct stat sb;
    if (in[i].cf == NULL) {
      continue;
    }
    if (stat(in[i].path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
      bytes = UINT64_MAX;
      break;
    }
    bytes += (uint64_t)sb.st_size;
  }
  if (pages > 0 && psize > 0 &&
      (uint64_t)pages / 4 * (uint64_t)psize / FLOW_BYTES < cap) {
    cap = (uint64_t)pages / 4 * (uint64_t)psize / FLOW_BYTES;
  }
  n = bytes / 32;
  if (n > cap) {
    n = cap;
  }
  return (uint32_t)(n < FLOWS_MIN ? FLOWS_MIN : n);
}

/* On stderr: the records that a full table split or lost, and the option
 * that raises its bound. */
static void overflow_notes(const rtel_settings *set,
                           const rtel_ctx_stats *st) {
  if (st->flows_evicted || st->pairs_evicted) {
    fprintf(stderr,
            PROG ": %" PRIu64 " flows evicted from the full flow table "
                 "(%" PRIu32 " flows; %" PRIu64 " QP pairs evicted from "
                 "the pair table of %" PRIu32 "): their records are split "
                 "(end evicted); raise the bound with --max-flows\n",
            st->flows_evicted, set->max_flows, st->pairs_evicted,
            set->max_qp_pairs ? set->max_qp_pairs : 2 * set->max_flows);
  }
  if (st->ios_evicted) {
    fprintf(stderr,
            PROG ": %" PRIu64 " I/Os evicted from the full table of "
                 "outstanding I/Os (%" PRIu32 " I/Os; state evicted): raise "
                 "the bound with --max-ios\n",
            st->ios_evicted, set->max_ios);
  }
}
/* "FILE" or "FILE, FILE, ..." of the inputs that were read, on stderr. */
static void hint_files(const run *r) {
  size_t i, n = 0;
  for (i = 0; i < r->nin; i++) {
    if (r->in[i].cf) {
      fprintf(stderr, "%s%s", n++ ? ", " : "", r->in[i].path);
    }
  }
}

/* The first input with more than one interface the decoder reads, or
 * NULL; |n|: how many. */
static const input *multi_if_input(const run *r, size_t *n) {
  size_t i, k;
  for (i = 0; i < r->nin; i++) {
    const capfile *cf = r->in[i].cf;
    *n = 0;
    for (k = 0; cf && k < capfile_nifs(cf); k++) {
      *n += pcap_input_file_linktype(capfile_iface(cf, k)->linktype) != 0;
    }
    if (*n > 1) {
      return &r->in[i];
    }
  }
  return NULL;
}

/* One line on stderr for each kind of record asked for that the captures
 * gave none of, with the likely reason. */
static void hints(const options *opt, const run *r, const rtel_ctx_stats *st) {
  static const char *const what[] = {"--packets", "--flows",    "--messages",
                                     "--ios",     "--segments", "--summary"};
  int asked[6];
  uint64_t got[6];
  size_t k;
  asked[0] = opt->packets;
  asked[1] = opt->flows;
  asked[2] = opt->messages;
  asked[3] = opt->ios;
  asked[4] = opt->segments;
  asked[5] = opt->summary;
  got[0] = st->pkts_roce;
  got[1] = r->nflows;
  got[2] = r->nmsgs;
  got[3] = r->nios;
  got[4] = r->nsegs;
  got[5] = r->naggs;
  for (k = 0; k < 6; k++) {
    if (!asked[k] || got[k] != 0) {
      continue;
    }
    fprintf(stderr, PROG ": hint: %s: nothing to print: ", what[k]);
    hint_files(r);
    if (st->pkts == 0) {
      fputs(" holds no packets", stderr);
    } else if (st->pkts_roce == 0) {
      fprintf(stderr,
              " holds no RoCE packet (%" PRIu64 " frames: %" PRIu64
              " not RoCE, %" PRIu64 " malformed; RoCEv2 on another UDP port "
              "than %" PRIu32 ": --roce-port)",
              st->pkts, st->pkts_not_roce, st->pkts_malformed, opt->roce_port);
    } else if (k == 1 || k == 2) {
      fprintf(stderr,
              " holds %" PRIu64 " RoCE packets but no RDMA data packet "
              "(SEND, WRITE, READ RESPONSE)",
              st->pkts_roce);
    } else if (k == 4 && r->npt < 2) {
      size_t nif;
      const input *m = multi_if_input(r, &nif);
      fputs(": --segments joins the I/Os that two FILEs (observation "
            "points) saw",
            stderr);
      if (m && !opt->split) {
        fprintf(stderr,
                "; %s has %zu interfaces: --split-interfaces makes each "
                "an observation point",
                m->path, nif);
      }
    } else if (k == 4 && r->nios != 0) {
      fputs(" hold no I/O seen at two observation points", stderr);
    } else {
      fprintf(stderr,
              " holds %" PRIu64 " RoCE packets but no NVMe-oF I/O (no "
              "NVMe-oF/RDMA command or response)",
              st->pkts_roce);
    }
    fputc('\n', stderr);
  }
}

/* On stderr, once: the segments whose RTT came out negative (the IOL at
 * the compute side shorter than at the storage side), the mark of roles
 * given the wrong way round. */
static void rtt_note(const options *opt, const run *r) {
  if (r->nsegs_neg == 0) {
    return;
  }
  fprintf(stderr,
          PROG ": warning: %" PRIu64 " of %" PRIu64 " segments have a "
               "negative RTT (the I/O latency at the compute side is "
               "shorter than at the storage side): ",
          r->nsegs_neg, r->nsegs);
  if (opt->compute_side && opt->storage_side) {
    fprintf(stderr,
            "--compute-side %s and --storage-side %s look swapped (the "
            "compute side is the point nearest the hosts)\n",
            opt->compute_side, opt->storage_side);
  } else if (opt->compute_side) {
    fprintf(stderr,
            "--compute-side %s looks wrong (the compute side is the point "
            "nearest the hosts)\n",
            opt->compute_side);
  } else if (opt->storage_side) {
    fprintf(stderr,
            "--storage-side %s looks wrong (the storage side is the point "
            "nearest the storage)\n",
            opt->storage_side);
  } else {
    fputs("the captures' clocks do not run at one rate\n", stderr);
  }
}

/* The text tables, their columns as wide as the names of the points known
 * before the first frame need (a point met later widens them as a row
 * does). */
static void text_tables(run *r) {
  int w = 3, ws;
  size_t i;
  for (i = 0; i < r->npt; i++) {
    int n = (int)strlen(r->pt[i].name);
    w = n > w ? n : w;
  }
  ws = w > 11 ? w : 11; /* COMPUTE_OBS, STORAGE_OBS */
  {
    const tcol c[] = {{"OBS", -w},  {"FRAME", 7}, {"TIME", 20},
                      {"SRC", -15}, {"DST", -15}, {"OPCODE", -34},
                      {"DQPN", 8},  {"PSN", 8},   {"LEN", 6}};
    tab_init(&r->t_pkt, c, sizeof(c) / sizeof(c[0]), "INFO",
             "TIME in s since the epoch, LEN in bytes");
  }
  {
    const tcol c[] = {
        {"OBS", -w}, {"SRC", -15},   {"DST", -15},  {"DQPN", 8}, {"PEER", 8},
        {"OP", -10}, {"FCT", 12},    {"BYTES", 12}, {"PKTS", 8}, {"RETX", 6},
        {"FET", 9},  {"NAKS", 6},    {"FNR", 6},    {"CNPS", 5}, {"CE", 5},
        {"END", -9}, {"LOST_UP", 7}, {"ORPHANS", 7}};
    tab_init(&r->t_flow, c, sizeof(c) / sizeof(c[0]), NULL,
             "FCT in us, FET in Gbit/s");
  }
  {
    const tcol c[] = {{"OBS", -w},      {"SRC", -15},     {"DST", -15},
                      {"DQPN", 8},      {"OP", -9},       {"PSN", 8},
                      {"LAST_PSN", 8},  {"RETH_LEN", 10}, {"FCT", 12},
                      {"BYTES", 10},    {"PKTS", 6},      {"RETX", 6},
                      {"COMPLETE", -8}, {"END", -8},      {"FET", 9},
                      {"NAKS", 5},      {"LOST_UP", 7}};
    tab_init(&r->t_msg, c, sizeof(c) / sizeof(c[0]), NULL,
             "FCT in us, FET in Gbit/s");
  }
  {
    const tcol c[] = {{"OBS", -w},   {"HOST", -15}, {"TARGET", -15},
                      {"TQPN", 8},   {"CID", 6},    {"OP", -12},
                      {"NSID", 10},  {"SLBA", 12},  {"BYTES", 8},
                      {"STATE", -9}, {"IOL", 10},   {"DAL", 10},
                      {"DPL", 10},   {"XFER", 10}};
    tab_init(&r->t_io, c, sizeof(c) / sizeof(c[0]), "STATUS",
             "IOL, DAL, DPL, XFER in us");
  }
  {
    const tcol c[] = {
        {"HOST", -15},        {"TARGET", -15}, {"TQPN", 8},
        {"CID", 6},           {"OP", -9},      {"COMPUTE_OBS", -ws},
        {"STORAGE_OBS", -ws}, {"IOL1", 10},    {"IOL2", 10},
        {"RTT", 10},          {"COMPUTE", 10}, {"NETWORK", 10},
        {"STORAGE", 10}};
    tab_init(&r->t_seg, c, sizeof(c) / sizeof(c[0]), NULL,
             "times in us; IOL1 at COMPUTE_OBS, IOL2 at STORAGE_OBS");
  }
  {
    const tcol c[] = {{"OBS", -w},    {"HOST", -15},   {"TARGET", -15},
                      {"NSID", 5},    {"OP", -5},      {"COUNT", 8},
                      {"BYTES", 12},  {"ERR", 5},      {"TMO", 5},
                      {"|", 1},       {"IOL_P50", 9},  {"IOL_P90", 9},
                      {"IOL_P99", 9}, {"IOL_P999", 9}, {"IOL_MAX", 9},
                      {"|", 1},       {"DAL_P50", 9},  {"DAL_P99", 9},
                      {"|", 1},       {"DPL_P50", 9},  {"DPL_P99", 9}};
    tab_init(&r->t_sum, c, sizeof(c) / sizeof(c[0]), NULL, "latencies in us");
  }
}

static int usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* The roles of the command line name points: those known once the inputs
 * are open (with --split-interfaces the interfaces described before a
 * file's first packet), or inputs that could not be opened; one point
 * cannot take both. Returns 0, or the usage error's exit status
 * (reported). */
static int check_roles(const run *r) {
  static const char *const opts[] = {"--compute-side", "--storage-side"};
  const char *role[2];
  size_t i, k;
  role[0] = r->opt->compute_side;
  role[1] = r->opt->storage_side;
  for (k = 0; k < 2; k++) {
    int found = 0;
    if (role[k] == NULL) {
      continue;
    }
    for (i = 0; i < r->npt && !found; i++) {
      found = strcmp(r->pt[i].name, role[k]) == 0;
    }
    for (i = 0; i < r->nin && !found; i++) {
      found = r->in[i].cf == NULL && strcmp(r->in[i].name, role[k]) == 0;
    }
    if (!found) {
      char names[256];
      size_t len = 0, n = 0;
      names[0] = '\0';
      for (i = 0; i < r->npt; i++) {
        addf(names, sizeof(names), &len, "%s%s", n++ ? ", " : "",
             r->pt[i].name);
      }
      for (i = 0; i < r->nin; i++) {
        if (r->in[i].cf == NULL) {
          addf(names, sizeof(names), &len, "%s%s", n++ ? ", " : "",
               r->in[i].name);
        }
      }
      return usage_error("%s '%s' is not an observation point (the points "
                         "are %s)",
                         opts[k], role[k], names);
    }
  }
  if (role[0] && role[1] && strcmp(role[0], role[1]) == 0) {
    return usage_error("--compute-side and --storage-side are both '%s'",
                       role[0]);
  }
  return 0;
}

/* Point |id| on |ctx| (the run's or a file's): its role, and with --poll
 * once the schedule has started a port from |ts| on. */
static void point_on(const run *r, rtel_ctx *ctx, uint32_t id,
                     rtel_tstamp ts) {
  uint32_t role = point_role(r, id);
  if (role != RTEL_ROLE_UNKNOWN) {
    (void)rtel_ctx_set_obs_role(ctx, id, role);
  }
  if (r->scheduled) {
    rtel_port port = {id, RTEL_ROLE_UNKNOWN, r->pt[id].name};
    (void)rtel_ctx_add_port(ctx, &port, ts);
  }
}

/* The points made since the last call, on the run's context and the files'
 * (roles; ports from |ts| on once the schedule has started). */
static void points_on(run *r, rtel_tstamp ts) {
  size_t i;
  for (; r->nports < r->npt; r->nports++) {
    uint32_t id = (uint32_t)r->nports;
    point_on(r, r->ctx, id, ts);
    for (i = 0; r->fctx && i < r->nin; i++) {
      if (r->fctx[i]) {
        point_on(r, r->fctx[i], id, ts);
      }
    }
  }
}

/* The alarms of the command line, on |ctx|. */
static void set_alarms(rtel_ctx *ctx, const options *opt) {
  size_t i;
  for (i = 0; i < opt->nalarms; i++) {
    (void)rtel_ctx_set_threshold(ctx, opt->alarms[i].metric,
                                 opt->alarms[i].scope, opt->alarms[i].value);
  }
}

/* --poll: every point is a port, the schedule starts at |ts| (the first
 * frame), on the run's context and the files'. Returns 0 or an error code
 * (reported). */
static int start_schedule(run *r, rtel_tstamp ts) {
  rtel_schedule sch = {RTEL_SCHED_POLL, r->opt->poll_ports,
                       r->opt->poll_slot_ns, 0};
  size_t i, j;
  int rv;
  r->scheduled = 1;
  for (j = 0; j < r->npt; j++) {
    rtel_port port = {(uint32_t)j, RTEL_ROLE_UNKNOWN, r->pt[j].name};
    (void)rtel_ctx_add_port(r->ctx, &port, ts);
    for (i = 0; r->fctx && i < r->nin; i++) {
      if (r->fctx[i]) {
        (void)rtel_ctx_add_port(r->fctx[i], &port, ts);
      }
    }
  }
  r->nports = r->npt;
  if ((rv = rtel_ctx_set_schedule(r->ctx, &sch, ts)) != 0) {
    fprintf(stderr, PROG ": %s\n", rtel_strerror(rv));
    return rv;
  }
  for (i = 0; r->fctx && i < r->nin; i++) {
    if (r->fctx[i] &&
        (rv = rtel_ctx_set_schedule(r->fctx[i], &sch, ts)) != 0) {
      fprintf(stderr, PROG ": %s\n", rtel_strerror(rv));
      return rv;
    }
  }
  return 0;
}

/* --stats in text with several inputs: one more context per input FILE,
 * for the counters of that file alone (a FILE of several points, with
 * --split-interfaces, or one of several FILEs of one NAME=, is still one
 * block). It has the settings, roles, alarms and polling schedule of the
 * run and runs on its clock (its timers at every frame of the run, its
 * flush at the run's end), but is given only the frames of its input and
 * delivers nothing. Returns the contexts (NULL where an input was not
 * opened), or NULL (reported). */
static rtel_ctx **file_contexts(const run *r, const rtel_settings *set) {
  rtel_ctx **f = calloc(r->nin, sizeof(*f));
  rtel_callbacks none;
  size_t i;
  if (f == NULL) {
    fprintf(stderr, PROG ": out of memory\n");
    return NULL;
  }
  memset(&none, 0, sizeof(none));
  for (i = 0; i < r->nin; i++) {
    rtel_settings s = *set;
    int rv;
    if (r->in[i].cf == NULL) {
      continue;
    }
    s.max_flows = r->opt->max_flows ? r->opt->max_flows
                                    : default_max_flows(&r->in[i], 1);
    if ((rv = rtel_ctx_new(&f[i], &s, &none, table_mem_lazy(), NULL)) != 0) {
      fprintf(stderr, PROG ": %s\n", rtel_strerror(rv));
      while (i-- > 0) {
        rtel_ctx_del(f[i]);
      }
      free(f);
      return NULL;
    }
    set_alarms(f[i], r->opt);
  }
  return f;
}

/* Packets gathered for one rtel_ctx_read_pkts_timed() call, copied (a
 * capfile packet lives until the next read of its file): when nothing
 * needs a packet's frame number or time while the library handles it (no
 * --packets, IPFIX, --report, --summary or per-file contexts), the burst
 * lets the library prefetch the tables of the packets to come; its timers
 * run before each packet exactly as the per-packet loop runs them. */
#define BURST_PKTS 32
#define BURST_BYTES (256 * 1024)

typedef struct burst {
  size_t n, used;
  rtel_pkt_info pi[BURST_PKTS];
  const uint8_t *pkt[BURST_PKTS];
  size_t len[BURST_PKTS];
  const char *path[BURST_PKTS];
  uint64_t frame[BURST_PKTS];
  uint8_t *bytes; /* BURST_BYTES */
} burst;

/* Hands the gathered packets to |ctx|. Returns 0, or 1 after reporting
 * the packet that failed (the packets before it were processed; its error
 * in |*rv|). */
static int burst_flush(rtel_ctx *ctx, burst *b, int *rv) {
  size_t done = 0;
  int status = 0;
  while (done < b->n) {
    rtel_ssize k = rtel_ctx_read_pkts_timed(ctx, b->pi + done, b->pkt + done,
                                            b->len + done, b->n - done);
    if (k < 0) {
      /* (a count short of the burst: this call reports the error) */
      fprintf(stderr, PROG ": %s: frame %" PRIu64 ": %s\n", b->path[done],
              b->frame[done], rtel_strerror((int)k));
      *rv = (int)k;
      status = 1;
      break;
    }
    done += (size_t)k;
  }
  b->n = b->used = 0;
  return status;
}

/* Adds a packet; flushes first when it does not fit. Returns as
 * burst_flush(). */
static int burst_add(rtel_ctx *ctx, burst *b, const rtel_pkt_info *pi,
                     const input *in, int *rv) {
  size_t len = in->pk.caplen;
  int status = 0;
  if (b->n == BURST_PKTS || len > BURST_BYTES - b->used) {
    if ((status = burst_flush(ctx, b, rv)) != 0) {
      return status;
    }
  }
  b->pi[b->n] = *pi;
  b->len[b->n] = len;
  b->path[b->n] = in->path;
  b->frame[b->n] = in->frame;
  if (len > BURST_BYTES) { /* larger than the whole buffer: alone */
    b->pkt[b->n++] = in->pk.data;
    return burst_flush(ctx, b, rv);
  }
  if (len) {
    memcpy(b->bytes + b->used, in->pk.data, len);
  }
  b->pkt[b->n++] = b->bytes + b->used;
  b->used += len;
  return 0;
}

/* One context sees every input; each input, or with --split-interfaces
 * each interface of a pcapng input, is an observation point (ids in the
 * order the points are first met: the inputs in their order, and their
 * interfaces known before their first packet; interfaces described later
 * when they are); FILEs given the same NAME= are one point. Packets are
 * handed over in timestamp order across the inputs, as a collector
 * receiving from several mirrors would. Returns 0, 1 if an input could not
 * be read in full, or 2 after a usage error (a role naming no point). */
static int analyze(const options *opt, input *in, size_t nin) {
  rtel_settings settings;
  rtel_callbacks cb;
  rtel_ctx_stats st;
  rtel_pkt_info pi;
  rtel_tstamp last = 0;
  run r;
  burst b;
  size_t i, k;
  int rv = 0, status = 0, started = 0, bursty;
  size_t nopen = 0;

  memset(&r, 0, sizeof(r));
  memset(&b, 0, sizeof(b));
  r.opt = opt;
  r.in = in;
  r.nin = nin;
  rj_init(&r.jb);
  for (i = 0; i < nin; i++) {
    if (open_input(&in[i]) != 0) {
      status = 1;
    }
    if (in[i].cf == NULL) {
      continue;
    }
    nopen++;
    /* its points: the file's, or those of the interfaces described so far
     * that the decoder reads */
    if (!opt->split || capfile_format(in[i].cf) != CAPFILE_PCAPNG) {
      in[i].point = point_get(&r, i, in[i].name, in[i].named);
      if (in[i].point == NO_POINT) {
        status = 1;
        goto out;
      }
      continue;
    }
    for (k = 0; k < capfile_nifs(in[i].cf); k++) {
      if (pcap_input_file_linktype(capfile_iface(in[i].cf, k)->linktype) &&
          if_point(&r, i, (uint32_t)k) == NO_POINT) {
        status = 1;
        goto out;
      }
    }
  }
  if ((rv = check_roles(&r)) != 0) {
    status = rv;
    rv = 0;
    goto out;
  }
  if (nopen == 0) {
    status = 1; /* nothing to analyse: each file's error is on stderr */
    goto out;
  }
  text_tables(&r);
  r.fl.on = opt->summary && opt->format == FMT_TEXT;
  r.fl.start = r.fl.next = RTEL_TSTAMP_NONE;
  rtel_settings_default(&settings);
  settings.decode_flags = opt->decode_flags;
  settings.roce_udp_port = opt->roce_port;
  settings.max_flows =
      opt->max_flows ? opt->max_flows : default_max_flows(in, nin);
  settings.max_qp_pairs = 0; /* the default: 2 x max_flows */
  if (opt->flow_idle_ns) {
    settings.flow_idle_timeout = opt->flow_idle_ns;
  }
  if (opt->no_flows) {
    settings.flow_flags |= RTEL_FLOW_DISABLE;
  }
  if (opt->io_timeout_ns) {
    settings.io_timeout = opt->io_timeout_ns;
  }
  if (opt->max_ios) {
    settings.max_ios = opt->max_ios;
  }
  settings.report_interval = opt->interval_ns;
  memset(&cb, 0, sizeof(cb));
  if (opt->packets) {
    cb.on_packet = on_packet;
  }
  cb.on_flow = on_flow;
  cb.on_message = on_message;
  cb.on_io = on_io;
  cb.on_segment = on_segment;
  cb.on_io_aggregate = on_io_aggregate;
  cb.on_slot = on_slot;
  cb.on_alarm = on_alarm;
  if (opt->ipfix.udp || opt->ipfix.file) {
    char err[512];
    r.ipfix = ipfix_export_open(&opt->ipfix, err, sizeof(err));
    if (r.ipfix == NULL) {
      fprintf(stderr, PROG ": %s\n", err);
      status = 1;
      goto out;
    }
  }
  if (opt->report_path) {
    report_opts ro;
    memset(&ro, 0, sizeof(ro));
    ro.source = opt->cmdline;
    ro.top_n = opt->report_top;
    ro.per_namespace = opt->report_ns;
    r.rep = report_new(&ro);
    if (r.rep == NULL) {
      fprintf(stderr, PROG ": out of memory\n");
      status = 1;
      goto out;
    }
  }
  rv = rtel_ctx_new(&r.ctx, &settings, &cb, table_mem_lazy(), &r);
  if (rv != 0) {
    fprintf(stderr, PROG ": %s\n", rtel_strerror(rv));
    r.ctx = NULL;
    status = 1;
    goto out;
  }
  set_alarms(r.ctx, opt);
  if (opt->stats && nopen > 1 &&
      (r.fctx = file_contexts(&r, &settings)) == NULL) {
    status = 1;
    goto out;
  }
  for (i = 0; i < r.npt; i++) {
    point_setup(&r, (uint32_t)i);
  }
  points_on(&r, 0);
  /* packets in bursts when nothing reads a packet's frame or time while
   * the library handles it (see burst) */
  bursty = !opt->packets && r.ipfix == NULL && r.rep == NULL && !r.fl.on &&
           r.fctx == NULL && (b.bytes = malloc(BURST_BYTES)) != NULL;
  memset(&pi, 0, sizeof(pi));
  for (;;) {
    input *next = NULL;
    rtel_ctx *fc;
    point *p;
    for (i = 0; i < nin; i++) {
      if (in[i].cf && in[i].have &&
          (next == NULL || in[i].pk.ts < next->pk.ts)) {
        next = &in[i];
      }
    }
    if (next == NULL) {
      break;
    }
    pi.obs = if_point(&r, (size_t)(next - in), next->pk.ifc);
    if (pi.obs == NO_POINT) {
      status = 1;
      break;
    }
    r.frame = next->frame;
    pi.ts = next->pk.ts;
    p = &r.pt[pi.obs];
    if (p->last_ts == RTEL_TSTAMP_NONE && r.rep) {
      /* the report's time axis of the point starts here */
      (void)report_obs(r.rep, pi.obs, NULL, RTEL_ROLE_UNKNOWN, pi.ts,
                       RTEL_TSTAMP_NONE);
    }
    if (p->last_ts == RTEL_TSTAMP_NONE || pi.ts > p->last_ts) {
      p->last_ts = pi.ts;
    }
    pi.wire_len = next->pk.len;
    pi.port = pi.obs;
    pi.linktype = pcap_input_file_linktype(next->pk.linktype);
    if (!started) {
      /* the first frame: the summary periods and the polling schedule
       * start with it */
      started = 1;
      r.fl.start = pi.ts;
      if (opt->interval_ns) {
        r.fl.next = pi.ts + opt->interval_ns;
      }
      if (opt->poll_ports && start_schedule(&r, pi.ts) != 0) {
        status = 1;
        break;
      }
    }
    /* a point met later (an interface described after the first packets):
     * its role, and a port from its first packet on, after the packets
     * before it */
    if (r.nports < r.npt && b.n && burst_flush(r.ctx, &b, &rv) != 0) {
      status = 1;
      break;
    }
    points_on(&r, pi.ts);
    if (pi.ts > last) {
      last = pi.ts;
    }
    r.now = last;
    if (bursty) {
      /* the same timers, run by the library before each packet */
      if (burst_add(r.ctx, &b, &pi, next, &rv) != 0) {
        status = 1;
        break;
      }
      if (read_ahead(next) != 0) {
        status = 1;
      }
      continue;
    }
    /* the timer loop an embedder runs: due timers before the packet */
    if (rtel_ctx_get_expiry(r.ctx) <= pi.ts) {
      if ((rv = rtel_ctx_handle_expiry(r.ctx, pi.ts)) != 0) {
        fprintf(stderr, PROG ": %s: frame %" PRIu64 ": %s\n", next->path,
                next->frame, rtel_strerror(rv));
        status = 1;
        break;
      }
      if (r.fl.on) {
        fl_expire(&r, pi.ts);
      }
    }
    rv = rtel_ctx_read_pkt(r.ctx, &pi, next->pk.data, next->pk.caplen);
    if (rv != 0) {
      fprintf(stderr, PROG ": %s: frame %" PRIu64 ": %s\n", next->path,
              next->frame, rtel_strerror(rv));
      status = 1;
      break;
    }
    for (i = 0; r.fctx && i < nin && rv == 0; i++) {
      if ((fc = r.fctx[i]) != NULL && rtel_ctx_get_expiry(fc) <= pi.ts) {
        rv = rtel_ctx_handle_expiry(fc, pi.ts);
      }
    }
    if (rv == 0 && r.fctx) {
      rv = rtel_ctx_read_pkt(r.fctx[next - in], &pi, next->pk.data,
                             next->pk.caplen);
    }
    if (rv != 0) {
      fprintf(stderr, PROG ": %s: frame %" PRIu64 ": %s\n", next->path,
              next->frame, rtel_strerror(rv));
      status = 1;
      break;
    }
    if (read_ahead(next) != 0) {
      status = 1;
    }
  }
  if (b.n && burst_flush(r.ctx, &b, &rv) != 0) {
    status = 1;
  }
  /* end of the captures: report what is still open */
  if (!rtel_err_is_fatal(rv) && (rv = rtel_ctx_flush(r.ctx, last)) != 0) {
    fprintf(stderr, PROG ": %s\n", rtel_strerror(rv));
    status = 1;
  }
  if (r.fl.on && rv == 0 && started) {
    /* as the flush: the period that ended at |last|, then the last one */
    fl_expire(&r, last);
    fl_report(&r, last);
  }
  if (skipped_notes(&r)) {
    status = 1;
  }
  if (rtel_ctx_get_stats(r.ctx, &st) == 0) {
    if (opt->stats) {
      const char *all = r.npt == 1 ? r.pt[0].name : "all";
      char title[512];
      int json = opt->format == FMT_JSON;
      if (nopen > 1) {
        snprintf(title, sizeof(title), "all (%zu files)", nopen);
      } else {
        for (i = 0; i < nin && in[i].cf == NULL; i++) {
        }
        snprintf(title, sizeof(title), "%s (%s)", all, in[i].path);
      }
      if (json) {
        print_stats(opt, all, NULL, title, &st); /* the run's first */
      }
      for (i = 0; r.fctx && i < nin; i++) {
        rtel_ctx_stats fs;
        char ft[512];
        if (r.fctx[i] == NULL || rtel_ctx_flush(r.fctx[i], last) != 0 ||
            rtel_ctx_get_stats(r.fctx[i], &fs) != 0) {
          continue;
        }
        snprintf(ft, sizeof(ft), "%s (%s)", in[i].name, in[i].path);
        print_stats(opt, in[i].name, in[i].path, ft, &fs);
      }
      if (!json) {
        print_stats(opt, all, NULL, title, &st);
      }
    }
    hints(opt, &r, &st);
    overflow_notes(&settings, &st);
    rtt_note(opt, &r);
  }
  if (r.rep) {
    if (rtel_ctx_get_stats(r.ctx, &st) == 0) {
      report_stats(r.rep, r.npt == 1 ? r.pt[0].name : "all", &st);
    }
    for (i = 0; i < r.npt; i++) {
      (void)report_obs(r.rep, (uint32_t)i, NULL, RTEL_ROLE_UNKNOWN,
                       RTEL_TSTAMP_NONE, r.pt[i].last_ts);
    }
    if (write_report(opt->report_path, r.rep) != 0) {
      status = 1;
    }
  }
out:
  free(b.bytes);
  report_free(r.rep);
  rtel_ctx_del(r.ctx);
  for (i = 0; r.fctx && i < nin; i++) {
    rtel_ctx_del(r.fctx[i]);
  }
  free(r.fctx);
  for (i = 0; i < r.fl.n; i++) {
    free(r.fl.k[i].iol);
  }
  free(r.fl.k);
  free(r.measured);
  rj_free(&r.jb);
  if (r.ipfix && ipfix_export_close(r.ipfix, last, stderr) != 0) {
    status = 1;
  }
  for (i = 0; i < nin; i++) {
    capfile_close(in[i].cf);
    in[i].cf = NULL;
    free(in[i].ifpoint);
  }
  for (i = 0; i < r.npt; i++) {
    free(r.pt[i].name);
  }
  free(r.pt);
  free(r.ptnames);
  return status;
}

/* ------------------------------------------------------------ main */

static void usage(FILE *f) {
  fprintf(
      f,
      "Usage: " PROG " [OPTIONS] [NAME=]FILE...\n"
      "Decode RoCE traffic in pcap/pcapng FILEs (NAME: observation "
      "point).\n\n"
      "  --packets           one record per RoCE packet\n"
      "  --flows             one record per flow (throughput figures)\n"
      "  --messages          one record per message\n"
      "  --ios               one record per NVMe-oF I/O\n"
      "  --segments          I/Os joined across two observation points\n"
      "  --summary           per host/target latency percentiles\n"
      "  --interval DUR      summary period (default: whole run)\n"
      "  --split-interfaces  each interface of a pcapng FILE its own "
      "observation\n"
      "                      point, NAME.IFNAME or NAME.ifN\n"
      "  --compute-side NAME  observation point nearest the hosts\n"
      "  --storage-side NAME  observation point nearest the storage\n"
      "  --io-timeout DUR    I/O response timeout (default 5s)\n"
      "  --poll P/SLOT       polling schedule: P inputs per SLOT (e.g. "
      "1/10ms)\n"
      "  --alarm [port:|pair:]METRIC>VALUE  alarm threshold (iol dal dpl "
      "fct:\n"
      "                      a duration; fnr retx_ratio: a plain number;\n"
      "                      cnp_rate, fet<VALUE: a rate, units k M G)\n"
      "  --max-flows N       flow table capacity (default: from the FILE "
      "sizes,\n"
      "                      4096 to 1048576)\n"
      "  --max-ios N         outstanding I/O table capacity (default 16384)\n"
      "  --flow-idle DUR     flow idle timeout (default 100ms)\n"
      "  --no-flows          no flow table (no flows, no messages)\n"
      "  --stats             counters per FILE and of the run (the default "
      "when\n"
      "                      no record is asked for)\n"
      "  --format text|json  output format (default text)\n"
      "  --icrc              verify the ICRC of every RoCE packet\n"
      "  --roce-port N       RoCEv2 UDP destination port (default 4791)\n"
      "  --no-decap          do not remove ERSPAN/VXLAN encapsulation\n"
      "  --ipfix HOST:PORT   export every record as IPFIX over UDP\n"
      "  --ipfix-file FILE   export every record as IPFIX into FILE\n"
      "  --pen N             enterprise number of the IPFIX elements "
      "(default\n"
      "                      32473, for documentation: use your own)\n"
      "  --domain N          IPFIX observation domain id (default 0)\n"
      "  --mtu N             path MTU towards the collector (default: "
      "unknown,\n"
      "                      512-byte messages)\n"
      "  --report FILE       write an HTML report of the run into FILE\n"
      "  --report-top N      slowest I/Os and worst flows in it (default "
      "20)\n"
      "  --report-ns         I/O quality per namespace in it too\n"
      "  --pmacct-primitives TYPE  print pmacct's aggregate_primitives of "
      "TYPE\n"
      "                      records (flow message io segment summary), "
      "exit\n"
      "  -h, --help          this text\n"
      "  --version           program and library versions\n"
      "DUR: a duration, NUMBER[ns|us|ms|s] (a plain number is ns), e.g. "
      "1.5ms\n");
}

static int usage_error(const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, PROG ": ");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\nTry '" PROG " --help' for more information.\n");
  return 2;
}

/* The largest duration an option takes, in ns (about 292 years): any
 * capture time plus it still fits a 64-bit timestamp. */
#define DURATION_MAX ((uint64_t)INT64_MAX)

/* A plain decimal integer (digits only: no sign, no blank, no base
 * prefix) from |lo| to |hi|. Returns 0 and stores it, or -1. */
static int parse_uint(const char *v, uint64_t lo, uint64_t hi, uint64_t *out) {
  uint64_t n = 0;
  if (v == NULL || *v == '\0') {
    return -1;
  }
  for (; *v; v++) {
    if (*v < '0' || *v > '9' || n > (UINT64_MAX - (uint64_t)(*v - '0')) / 10) {
      return -1;
    }
    n = n * 10 + (uint64_t)(*v - '0');
  }
  if (n < lo || n > hi) {
    return -1;
  }
  *out = n;
  return 0;
}

/* A decimal number DIGITS[.DIGITS] at the start of |v| (no sign, no
 * blank, no exponent). Returns the length of the number, or 0. */
static size_t decimal_len(const char *v) {
  size_t n = 0;
  while (v[n] >= '0' && v[n] <= '9') {
    n++;
  }
  if (n == 0) {
    return 0;
  }
  if (v[n] == '.') {
    size_t f = n + 1;
    while (v[f] >= '0' && v[f] <= '9') {
      f++;
    }
    if (f == n + 1) {
      return 0;
    }
    n = f;
  }
  return n;
}

/* The ns in one unit of a time: ns us ms s; none (a plain number) is ns.
 * Returns 0 for a unit that is not a time. */
static uint64_t time_unit(const char *u) {
  if (*u == '\0' || strcmp(u, "ns") == 0) {
    return 1;
  }
  if (strcmp(u, "us") == 0) {
    return 1000;
  }
  if (strcmp(u, "ms") == 0) {
    return 1000000;
  }
  if (strcmp(u, "s") == 0) {
    return 1000000000;
  }
  return 0;
}

/* A duration: NUMBER[UNIT], UNIT ns us ms s (none: ns), a whole number of
 * ns from 1 to DURATION_MAX. Returns 0 and stores it in ns, or -1. */
static int parse_duration(const char *v, uint64_t *out) {
  size_t n = v ? decimal_len(v) : 0;
  const char *dot;
  uint64_t ip = 0, frac = 0, pow10 = 1, mul, ns;
  size_t i;
  if (n == 0 || (mul = time_unit(v + n)) == 0) {
    return -1;
  }
  for (i = 0; i < n && v[i] != '.'; i++) {
    if (ip > (UINT64_MAX - (uint64_t)(v[i] - '0')) / 10) {
      return -1;
    }
    ip = ip * 10 + (uint64_t)(v[i] - '0');
  }
  dot = v[i] == '.' ? v + i : NULL;
  if (dot) {
    for (i++; i < n; i++) {
      if (pow10 == 1000000000) {
        return -1; /* more than 9 decimals */
      }
      frac = frac * 10 + (uint64_t)(v[i] - '0');
      pow10 *= 10;
    }
    if (frac * mul % pow10 != 0) {
      return -1; /* not a whole number of ns */
    }
  }
  if (ip > DURATION_MAX / mul) {
    return -1;
  }
  ns = ip * mul + frac * mul / pow10;
  if (ns == 0 || ns > DURATION_MAX) {
    return -1;
  }
  *out = ns;
  return 0;
}

/* What an alarm value may be written with: a time (ns us ms s, none:
 * ns), a rate (k M G, none: per second) or a plain number. */
enum { VAL_TIME, VAL_RATE, VAL_PLAIN };

/* An alarm value: a positive decimal NUMBER[UNIT] whose unit fits |kind|.
 * Returns 0 and stores it, or -1. */
static int parse_value(const char *v, int kind, double *out) {
  size_t n = decimal_len(v);
  const char *u = v + n;
  double x, mul = 0;
  if (n == 0) {
    return -1;
  }
  if (kind == VAL_TIME) {
    uint64_t ns;
    if (parse_duration(v, &ns) != 0) {
      return -1;
    }
    *out = (double)ns;
    return 0;
  }
  if (*u == '\0') {
    mul = 1;
  } else if (kind == VAL_RATE) {
    mul = strcmp(u, "k") == 0   ? 1e3
          : strcmp(u, "M") == 0 ? 1e6
          : strcmp(u, "G") == 0 ? 1e9
                                : 0;
  }
  if (mul == 0) {
    return -1;
  }
  x = strtod(v, NULL) * mul; /* the digits strtod reads are v[0..n) */
  if (!(x > 0) || x > 1e300) {
    return -1;
  }
  *out = x;
  return 0;
}

/* --alarm [port:|pair:]METRIC>VALUE or fet<VALUE. Returns NULL, or why |v| is
 * not one (in |why|, for the message). */
static const char *parse_alarm(const char *v, struct alarm_opt *a, char *why,
                               size_t whylen) {
  static const char *const names[] = {NULL,  "iol",        "dal",
                                      "dpl", "fct",        "fnr",
                                      "fet", "retx_ratio", "cnp_rate"};
  static const char *const kinds[] = {"a time (unit ns, us, ms or s)",
                                      "a rate (unit k, M or G, or none)",
                                      "a plain number (no unit)"};
  const char *op, *val;
  size_t n;
  uint32_t m;
  int kind;
  a->scope = RTEL_SCOPE_PAIR;
  if (strncmp(v, "port:", 5) == 0) {
    a->scope = RTEL_SCOPE_PORT;
    v += 5;
  } else if (strncmp(v, "pair:", 5) == 0) {
    v += 5;
  }
  op = strpbrk(v, "<>");
  if (op == NULL) {
    return "not METRIC>VALUE (or fet<VALUE)";
  }
  n = (size_t)(op - v);
  for (m = 1; m < sizeof(names) / sizeof(names[0]); m++) {
    if (strlen(names[m]) == n && strncmp(v, names[m], n) == 0) {
      break;
    }
  }
  if (m == sizeof(names) / sizeof(names[0])) {
    return "unknown metric (iol dal dpl fct fnr fet retx_ratio cnp_rate)";
  }
  if ((*op == '<') != (m == RTEL_METRIC_FET)) {
    return m == RTEL_METRIC_FET ? "fet alarms below a value: fet<VALUE"
                                : "alarms above a value: METRIC>VALUE";
  }
  a->metric = m;
  kind = m == RTEL_METRIC_FET || m == RTEL_METRIC_CNP_RATE     ? VAL_RATE
         : m == RTEL_METRIC_FNR || m == RTEL_METRIC_RETX_RATIO ? VAL_PLAIN
                                                               : VAL_TIME;
  val = op + 1;
  if (parse_value(val, kind, &a->value) == 0) {
    return NULL;
  }
  n = decimal_len(val);
  if (n == 0 || (kind != VAL_TIME && val[n] == '\0')) {
    return "VALUE is not a positive decimal number";
  }
  if (kind == VAL_TIME && time_unit(val + n) != 0) {
    return "VALUE is not a whole number of ns from 1ns to 2^63-1ns";
  }
  snprintf(why, whylen, "%s takes %s, not '%s'", names[m], kinds[kind],
           val + n);
  return why;
}

/* The observation point names: FILEs given the same NAME= are one point
 * (a rotated capture), but a default name (the base name) is never
 * shared: two inputs of one name, not both given by NAME=, are a usage
 * error. The roles are checked against the points once the files are open
 * (check_roles()). Returns 0, or the usage error's exit status
 * (reported). */
static int check_names(const input *in, size_t n) {
  size_t i, j;
  for (i = 0; i < n; i++) {
    for (j = i + 1; j < n; j++) {
      if (strcmp(in[i].name, in[j].name) == 0 &&
          !(in[i].named && in[j].named)) {
        return usage_error("'%s' and '%s' are both observation point '%s': "
                           "name them apart with NAME=FILE",
                           in[i].path, in[j].path, in[i].name);
      }
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  options opt;
  input *inputs;
  size_t ninputs = 0, i;
  int a, status = 0;
  const char *pmacct = NULL; /* --pmacct-primitives TYPE */

  memset(&opt, 0, sizeof(opt));
  {
    /* a pipe, a socket or a terminal gets each line as it is made (a
     * reader of --format json on a pipe sees every record at once); a
     * file or a device such as /dev/null gets the C library's full
     * buffering (a write per line cost /dev/null runs more than the
     * analysis: tests/bench/analyze-e2e.py) */
    struct stat sb;
    if (fstat(STDOUT_FILENO, &sb) != 0 || S_ISFIFO(sb.st_mode) ||
        S_ISSOCK(sb.st_mode) || isatty(STDOUT_FILENO)) {
      setvbuf(stdout, NULL, _IOLBF, 0);
    }
  }
  opt.format = FMT_TEXT;
  opt.ipfix.pen = RTEL_IPFIX_PEN_DOCUMENTATION;
  opt.roce_port = RTEL_ROCEV2_UDP_PORT;
  inputs = calloc((size_t)argc, sizeof(*inputs));
  if (inputs == NULL) {
    fprintf(stderr, PROG ": out of memory\n");
    return 1;
  }
  for (a = 1; a < argc; a++) {
    const char *arg = argv[a];
    if (strcmp(arg, "--packets") == 0) {
      opt.packets = 1;
    } else if (strcmp(arg, "--flows") == 0) {
      opt.flows = 1;
    } else if (strcmp(arg, "--messages") == 0) {
      opt.messages = 1;
    } else if (strcmp(arg, "--ios") == 0) {
      opt.ios = 1;
    } else if (strcmp(arg, "--segments") == 0) {
      opt.segments = 1;
    } else if (strcmp(arg, "--summary") == 0) {
      opt.summary = 1;
    } else if (strcmp(arg, "--split-interfaces") == 0) {
      opt.split = 1;
    } else if (strcmp(arg, "--poll") == 0) {
      const char *v = a + 1 < argc ? argv[++a] : NULL;
      const char *slash = v ? strchr(v, '/') : NULL;
      char per_s[8];
      uint64_t per, slot;
      if (v == NULL || slash == NULL) {
        free(inputs);
        return usage_error("%s", "--poll needs P/SLOT, e.g. 1/10ms");
      }
      per_s[0] = '\0';
      if ((size_t)(slash - v) < sizeof(per_s)) {
        memcpy(per_s, v, (size_t)(slash - v));
        per_s[slash - v] = '\0';
      }
      if (parse_uint(per_s, 1, 65535, &per) != 0 ||
          parse_duration(slash + 1, &slot) != 0) {
        free(inputs);
        return usage_error("invalid --poll '%s' (P/SLOT: P 1-65535, SLOT a "
                           "duration, e.g. 1/10ms)",
                           v);
      }
      opt.poll_ports = (uint32_t)per;
      opt.poll_slot_ns = slot;
    } else if (strcmp(arg, "--alarm") == 0) {
      const char *v = a + 1 < argc ? argv[++a] : NULL;
      char why[128];
      const char *err = NULL;
      if (v == NULL) {
        free(inputs);
        return usage_error("%s needs an argument", arg);
      }
      if (opt.nalarms == 16) {
        free(inputs);
        return usage_error("%s", "at most 16 --alarm");
      }
      err = parse_alarm(v, &opt.alarms[opt.nalarms], why, sizeof(why));
      if (err != NULL) {
        free(inputs);
        return usage_error("invalid --alarm '%s': %s (e.g. iol>500us, "
                           "fet<10G, fnr>0.01)",
                           v, err);
      }
      opt.nalarms++;
    } else if (strcmp(arg, "--compute-side") == 0 ||
               strcmp(arg, "--storage-side") == 0) {
      if (a + 1 >= argc) {
        free(inputs);
        return usage_error("%s needs an argument", arg);
      }
      if (arg[2] == 'c') {
        opt.compute_side = argv[++a];
      } else {
        opt.storage_side = argv[++a];
      }
    } else if (strcmp(arg, "--max-ios") == 0 ||
               strcmp(arg, "--max-flows") == 0) {
      const char *v = a + 1 < argc ? argv[++a] : NULL;
      uint64_t n;
      if (v == NULL) {
        free(inputs);
        return usage_error("%s needs an argument", arg);
      }
      if (parse_uint(v, 1, 1u << 26, &n) != 0) {
        free(inputs);
        return usage_error("invalid value '%s' for %s (1-67108864)", v, arg);
      }
      if (arg[6] == 'i') {
        opt.max_ios = (uint32_t)n;
      } else {
        opt.max_flows = (uint32_t)n;
      }
    } else if (strcmp(arg, "--flow-idle") == 0 ||
               strcmp(arg, "--io-timeout") == 0 ||
               strcmp(arg, "--interval") == 0) {
      const char *v = a + 1 < argc ? argv[++a] : NULL;
      uint64_t n;
      if (v == NULL) {
        free(inputs);
        return usage_error("%s needs an argument", arg);
      }
      if (parse_duration(v, &n) != 0) {
        free(inputs);
        return usage_error("invalid value '%s' for %s (a duration: NUMBER "
                           "with unit ns, us, ms or s, 1ns to %" PRIu64
                           "ns; a plain number is ns)",
                           v, arg, DURATION_MAX);
      }
      if (arg[2] == 'f') {
        opt.flow_idle_ns = n;
      } else if (arg[3] == 'n') {
        opt.interval_ns = n;
      } else {
        opt.io_timeout_ns = n;
      }
    } else if (strcmp(arg, "--no-flows") == 0) {
      opt.no_flows = 1;
    } else if (strcmp(arg, "--stats") == 0) {
      opt.stats = 1;
    } else if (strcmp(arg, "--icrc") == 0) {
      opt.decode_flags |= RTEL_DECODE_VERIFY_ICRC;
    } else if (strcmp(arg, "--no-decap") == 0) {
      opt.decode_flags |= RTEL_DECODE_NO_DECAP;
    } else if (strcmp(arg, "--format") == 0 ||
               strncmp(arg, "--format=", 9) == 0) {
      const char *v =
          arg[8] == '=' ? arg + 9 : (a + 1 < argc ? argv[++a] : NULL);
      if (v == NULL) {
        free(inputs);
        return usage_error("%s needs an argument", "--format");
      }
      if (strcmp(v, "text") == 0) {
        opt.format = FMT_TEXT;
      } else if (strcmp(v, "json") == 0) {
        opt.format = FMT_JSON;
      } else {
        free(inputs);
        return usage_error("unknown format '%s' (text or json)", v);
      }
    } else if (strcmp(arg, "--roce-port") == 0 ||
               strncmp(arg, "--roce-port=", 12) == 0) {
      const char *v =
          arg[11] == '=' ? arg + 12 : (a + 1 < argc ? argv[++a] : NULL);
      uint64_t port;
      if (v == NULL) {
        free(inputs);
        return usage_error("%s needs an argument", "--roce-port");
      }
      if (parse_uint(v, 1, 65535, &port) != 0) {
        free(inputs);
        return usage_error("invalid value '%s' for --roce-port (1-65535)", v);
      }
      opt.roce_port = (uint32_t)port;
    } else if (strcmp(arg, "--ipfix") == 0 ||
               strcmp(arg, "--ipfix-file") == 0) {
      const char *v = a + 1 < argc ? argv[++a] : NULL;
      if (v == NULL || *v == '\0') {
        free(inputs);
        return usage_error("%s needs an argument", arg);
      }
      if (arg[7] == '\0') {
        opt.ipfix.udp = v;
      } else {
        opt.ipfix.file = v;
      }
    } else if (strcmp(arg, "--pen") == 0 || strcmp(arg, "--domain") == 0 ||
               strcmp(arg, "--mtu") == 0) {
      const char *v = a + 1 < argc ? argv[++a] : NULL;
      uint64_t n = 0;
      uint64_t lo = arg[2] == 'p' ? 1 : arg[2] == 'm' ? 576 : 0;
      uint64_t hi = arg[2] == 'm' ? 65535 : 0xffffffffu;
      if (v == NULL) {
        free(inputs);
        return usage_error("%s needs an argument", arg);
      }
      if (parse_uint(v, lo, hi, &n) != 0) {
        free(inputs);
        return usage_error("invalid value '%s' for %s (%" PRIu64 "-%" PRIu64
                           ")",
                           v, arg, lo, hi);
      }
      if (arg[2] == 'p') {
        opt.ipfix.pen = (uint32_t)n;
      } else if (arg[2] == 'd') {
        opt.ipfix.domain = (uint32_t)n;
      } else {
        opt.ipfix.mtu = (uint32_t)n;
      }
    } else if (strcmp(arg, "--report") == 0) {
      const char *v = a + 1 < argc ? argv[++a] : NULL;
      if (v == NULL || *v == '\0') {
        free(inputs);
        return usage_error("%s needs an argument", arg);
      }
      opt.report_path = v;
    } else if (strcmp(arg, "--report-ns") == 0) {
      opt.report_ns = 1;
    } else if (strcmp(arg, "--report-top") == 0) {
      const char *v = a + 1 < argc ? argv[++a] : NULL;
      uint64_t n;
      if (v == NULL) {
        free(inputs);
        return usage_error("%s needs an argument", arg);
      }
      if (parse_uint(v, 1, REPORT_TOP_MAX, &n) != 0) {
        free(inputs);
        return usage_error("invalid value '%s' for --report-top (1-%d)", v,
                           REPORT_TOP_MAX);
      }
      opt.report_top = (size_t)n;
    } else if (strcmp(arg, "--pmacct-primitives") == 0) {
      pmacct = a + 1 < argc ? argv[++a] : "";
    } else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      usage(stdout);
      free(inputs);
      return 0;
    } else if (strcmp(arg, "--version") == 0) {
      const rtel_info *info = rtel_version(0);
      printf(PROG " %s (librocetel %s)\n", RTEL_VERSION,
             info ? info->version_str : "?");
      free(inputs);
      return 0;
    } else if (strcmp(arg, "--") == 0) {
      for (a++; a < argc; a++) {
        inputs[ninputs++].path = argv[a];
      }
    } else if (arg[0] == '-' && arg[1] != '\0') {
      free(inputs);
      return usage_error("unknown option '%s'", arg);
    } else {
      inputs[ninputs++].path = arg;
    }
  }
  if (pmacct) {
    free(inputs);
    if (ipfix_export_pmacct_primitives(stdout, opt.ipfix.pen, pmacct) != 0) {
      return usage_error("invalid --pmacct-primitives '%s' (flow, message, "
                         "io, segment or summary)",
                         pmacct);
    }
    return fflush(stdout) == 0 ? 0 : 1;
  }
  if (ninputs == 0) {
    free(inputs);
    return usage_error("%s", "no input file");
  }
  if ((opt.report_top || opt.report_ns) && !opt.report_path) {
    free(inputs);
    return usage_error("%s", opt.report_top ? "--report-top needs --report"
                                            : "--report-ns needs --report");
  }
  if (opt.ipfix.udp && opt.ipfix.file) {
    free(inputs);
    return usage_error("%s", "--ipfix and --ipfix-file: one at a time");
  }
  if (opt.no_flows && (opt.flows || opt.messages)) {
    free(inputs);
    return usage_error("%s", "--no-flows leaves no --flows or --messages");
  }
  if (!opt.packets && !opt.flows && !opt.messages && !opt.ios &&
      !opt.segments && !opt.summary && !opt.report_path) {
    opt.stats = 1;
  }
  for (i = 0; i < ninputs; i++) {
    const char *eq = strchr(inputs[i].path, '=');
    const char *slash = strchr(inputs[i].path, '/');
    if (eq && eq != inputs[i].path && (slash == NULL || eq < slash)) {
      size_t n = (size_t)(eq - inputs[i].path);
      inputs[i].name_alloc = strndup(inputs[i].path, n);
      inputs[i].path = eq + 1;
      inputs[i].named = 1;
    } else {
      inputs[i].name_alloc = pcap_input_obs_name(inputs[i].path);
    }
    if (inputs[i].name_alloc == NULL) {
      fprintf(stderr, PROG ": out of memory\n");
      status = 1;
      break;
    }
    inputs[i].name = inputs[i].name_alloc;
  }
  if (status == 0 && (a = check_names(inputs, ninputs)) != 0) {
    for (i = 0; i < ninputs; i++) {
      free(inputs[i].name_alloc);
    }
    free(inputs);
    return a;
  }
  /* A file that cannot be read is reported and skipped: the others are
   * still analysed, so nothing measurable is lost. */
  if (status == 0 && opt.report_path) {
    /* the command line, for the report's header */
    size_t len = sizeof(PROG);
    for (a = 1; a < argc; a++) {
      len += strlen(argv[a]) + 1;
    }
    opt.cmdline = malloc(len);
    if (opt.cmdline == NULL) {
      fprintf(stderr, PROG ": out of memory\n");
      status = 1;
    } else {
      strcpy(opt.cmdline, PROG);
      for (a = 1; a < argc; a++) {
        strcat(opt.cmdline, " ");
        strcat(opt.cmdline, argv[a]);
      }
    }
  }
  if (status == 0) {
    status = analyze(&opt, inputs, ninputs);
  }
  free(opt.cmdline);
  for (i = 0; i < ninputs; i++) {
    free(inputs[i].name_alloc);
  }
  free(inputs);
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, PROG ": error writing output: %s\n", strerror(errno));
    return 1;
  }
  return status;
}
