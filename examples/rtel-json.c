/* SPDX-License-Identifier: MIT */
/*
 * JSON lines of the example programs (rtel-json.h): one printer per record
 * type, shared by rtel-analyze, rtel-collect and switch-agent. The format
 * is rtel-analyze(1), OUTPUT, and the JSON Schema
 * docs/rtel-records.schema.json, which tests/json checks every line
 * against. Its rules, which every printer below follows:
 *
 *  - an integer the library holds in 64 bits (timestamps, durations,
 *    counters, byte counts, LBAs, 64-bit header fields), and every counter,
 *    is a string of decimal digits (member(), u64(), i64()); every other
 *    integer (32 bits at most) is a JSON number (u32()): no JSON number is
 *    above 2^53, so parsers that read numbers as doubles lose nothing;
 *  - a value that is not known or does not apply is left out (never null);
 *  - a member name has one JSON type in every record type.
 */
#define _DEFAULT_SOURCE 1

#include "rtel-json.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OBS(n, id) ((id) < (n)->nobs ? (n)->obs[id] : "?")

/* The member writers below are inlined into each record's printer, where
 * their names are literals: their lengths and copies become constants. */
#if defined(__GNUC__)
#  define RJ_INLINE static inline __attribute__((always_inline))
#else
#  define RJ_INLINE static inline
#endif

/* ------------------------------------------------------------ buffer */

void rj_init(rj_buf *b) { memset(b, 0, sizeof(*b)); }

void rj_free(rj_buf *b) {
  free(b->p);
  memset(b, 0, sizeof(*b));
}

void rj_reset(rj_buf *b) { b->len = 0; }

/* room for |n| more bytes and a NUL */
static int grow(rj_buf *b, size_t n) {
  size_t cap;
  char *p;
  if (b->len + n + 1 <= b->cap) {
    return 0;
  }
  cap = b->cap ? b->cap : 1024;
  while (cap < b->len + n + 1) {
    cap *= 2;
  }
  p = realloc(b->p, cap);
  if (p == NULL) {
    b->oom = 1;
    return -1;
  }
  b->p = p;
  b->cap = cap;
  return 0;
}

/* rj_room(), inlined: the test of the room left first */
RJ_INLINE char *room(rj_buf *b, size_t n) {
  if (b->len + n + 1 <= b->cap) {
    return b->p + b->len;
  }
  return grow(b, n) == 0 ? b->p + b->len : NULL;
}

char *rj_room(rj_buf *b, size_t n) { return room(b, n); }

/* rj_commit(), inlined */
RJ_INLINE void commit(rj_buf *b, char *end) {
  b->len = (size_t)(end - b->p);
  *end = '\0';
}

void rj_commit(rj_buf *b, char *end) { commit(b, end); }

void rj_put(rj_buf *b, const char *s, size_t n) {
  if (grow(b, n) == 0) {
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
  }
}

void rj_puts(rj_buf *b, const char *s) { rj_put(b, s, strlen(s)); }

void rj_putc(rj_buf *b, char c) {
  if (grow(b, 1) == 0) {
    b->p[b->len++] = c;
    b->p[b->len] = '\0';
  }
}

void rj_pad(rj_buf *b, const char *s, int width) {
  size_t n = strlen(s),
         w = width < 0 ? (size_t)0 - (size_t)width : (size_t)width;
  size_t fill = n < w ? w - n : 0;
  char *p = rj_room(b, n + fill);
  if (p == NULL) {
    return;
  }
  if (width > 0) {
    memset(p, ' ', fill);
    p += fill;
  }
  memcpy(p, s, n);
  p += n;
  if (width < 0) {
    memset(p, ' ', fill);
    p += fill;
  }
  commit(b, p);
}

void rj_printf(rj_buf *b, const char *fmt, ...) {
  va_list ap;
  int n;
  char small[256];
  va_start(ap, fmt);
  n = vsnprintf(small, sizeof(small), fmt, ap);
  va_end(ap);
  if (n < 0) {
    return;
  }
  if ((size_t)n < sizeof(small)) {
    if (grow(b, (size_t)n) == 0) {
      memcpy(b->p + b->len, small, (size_t)n + 1);
      b->len += (size_t)n;
    }
    return;
  }
  if (grow(b, (size_t)n) == 0) {
    va_start(ap, fmt);
    (void)vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
  }
}

/* ------------------------------------------------------------ formatters */

/* Two decimal digits of each value 0..99. */
static const char digits2[201] = "00010203040506070809"
                                 "10111213141516171819"
                                 "20212223242526272829"
                                 "30313233343536373839"
                                 "40414243444546474849"
                                 "50515253545556575859"
                                 "60616263646566676869"
                                 "70717273747576777879"
                                 "80818283848586878889"
                                 "90919293949596979899";

char *rj_fmt_u64(char *p, uint64_t v) {
  char t[RJ_U64_MAX];
  char *e = t + sizeof(t), *q = e;
  size_t n;
  while (v >= 100u) {
    unsigned d = (unsigned)(v % 100u);
    v /= 100u;
    q -= 2;
    memcpy(q, digits2 + 2 * d, 2);
  }
  if (v >= 10u) {
    q -= 2;
    memcpy(q, digits2 + 2 * (unsigned)v, 2);
  } else {
    *--q = (char)('0' + (unsigned)v);
  }
  n = (size_t)(e - q);
  memcpy(p, q, n);
  return p + n;
}

/* rj_fmt_u64(), inlined, with the short values (most counters) first */
RJ_INLINE char *fmt_u64(char *p, uint64_t v) {
  if (v < 10u) {
    *p = (char)('0' + (unsigned)v);
    return p + 1;
  }
  if (v < 100u) {
    memcpy(p, digits2 + 2 * (unsigned)v, 2);
    return p + 2;
  }
  return rj_fmt_u64(p, v);
}

char *rj_fmt_i64(char *p, int64_t v) {
  if (v < 0) {
    *p++ = '-';
    return fmt_u64(p, (uint64_t)0 - (uint64_t)v);
  }
  return fmt_u64(p, (uint64_t)v);
}

char *rj_fmt_u64_zero(char *p, uint64_t v, int width) {
  char t[RJ_U64_MAX];
  char *e = rj_fmt_u64(t, v);
  size_t n = (size_t)(e - t);
  while (width > 0 && (size_t)width > n) {
    *p++ = '0';
    width--;
  }
  memcpy(p, t, n);
  return p + n;
}

char *rj_fmt_hex(char *p, uint64_t v) {
  static const char hex[] = "0123456789abcdef";
  char t[16];
  char *e = t + sizeof(t), *q = e;
  size_t n;
  do {
    *--q = hex[v & 0xfu];
    v >>= 4;
  } while (v);
  n = (size_t)(e - q);
  memcpy(p, q, n);
  return p + n;
}

char *rj_fmt_hex_alt(char *p, uint64_t v) {
  if (v == 0) {
    *p++ = '0';
    return p;
  }
  *p++ = '0';
  *p++ = 'x';
  return rj_fmt_hex(p, v);
}

char *rj_fmt_ipv4(char *p, const uint8_t *a) {
  int i;
  for (i = 0; i < 4; i++) {
    unsigned v = a[i];
    if (i) {
      *p++ = '.';
    }
    if (v >= 100u) {
      *p++ = (char)('0' + v / 100u);
      memcpy(p, digits2 + 2 * (v % 100u), 2);
      p += 2;
    } else if (v >= 10u) {
      memcpy(p, digits2 + 2 * v, 2);
      p += 2;
    } else {
      *p++ = (char)('0' + v);
    }
  }
  return p;
}

/* As glibc's inet_ntop(AF_INET6) (RFC 5952 zero compression): the longest
 * run of two or more zero groups (the first of equal ones) is "::";
 * groups in lowercase hexadecimal without leading zeros; an address whose
 * first 96 bits are zero (and that is not "::" or "::" plus one group) or
 * that is IPv4-mapped (::ffff:0:0/96) ends in dotted decimal. */
char *rj_fmt_ipv6(char *p, const uint8_t *a) {
  unsigned w[8];
  int i, best = -1, bestlen = 0, cur = -1, curlen = 0;
  for (i = 0; i < 8; i++) {
    w[i] = (unsigned)a[2 * i] << 8 | a[2 * i + 1];
  }
  for (i = 0; i < 8; i++) {
    if (w[i] == 0) {
      if (cur < 0) {
        cur = i;
        curlen = 1;
      } else {
        curlen++;
      }
    } else if (cur >= 0) {
      if (best < 0 || curlen > bestlen) {
        best = cur;
        bestlen = curlen;
      }
      cur = -1;
    }
  }
  if (cur >= 0 && (best < 0 || curlen > bestlen)) {
    best = cur;
    bestlen = curlen;
  }
  if (best >= 0 && bestlen < 2) {
    best = -1;
  }
  for (i = 0; i < 8; i++) {
    if (best >= 0 && i >= best && i < best + bestlen) {
      if (i == best) {
        *p++ = ':';
      }
      continue;
    }
    if (i) {
      *p++ = ':';
    }
    if (i == 6 && best == 0 &&
        (bestlen == 6 || (bestlen == 5 && w[5] == 0xffffu))) {
      return rj_fmt_ipv4(p, a + 12);
    }
    p = rj_fmt_hex(p, w[i]);
  }
  if (best >= 0 && best + bestlen == 8) {
    *p++ = ':';
  }
  return p;
}

char *rj_fmt_real9(char *p, double v) {
  if (v == 0.0) {
    if (signbit(v)) {
      *p++ = '-';
    }
    *p++ = '0';
    return p;
  }
  if (v > -1e9 && v < 1e9 && v == (double)(int64_t)v) {
    return rj_fmt_i64(p, (int64_t)v);
  }
  return p + snprintf(p, RJ_REAL_MAX, "%.9g", v);
}

char *rj_fmt_fixed4(char *p, size_t n, double v) {
  int k;
  if (n == 0) {
    return p;
  }
  if (n >= 16 && v > -1e9 && v < 1e9 && v == (double)(int64_t)v) {
    if (signbit(v)) {
      *p++ = '-';
    }
    p = rj_fmt_u64(p, (uint64_t)(v < 0 ? -v : v));
    memcpy(p, ".0000", 6);
    return p + 5;
  }
  k = snprintf(p, n, "%.4f", v);
  if (k < 0) {
    *p = '\0';
    return p;
  }
  return p + ((size_t)k < n ? (size_t)k : n - 1);
}

void rj_format_addr(char *out, uint32_t flags, const uint8_t *a) {
  char *e = (flags & RTEL_FLOW_F_IPV6) ? rj_fmt_ipv6(out, a)
                                       : rj_fmt_ipv4(out, a + 12);
  *e = '\0';
}

/* ------------------------------------------------------------ values */

/* |s| as a JSON string at |p| (room for 6 strlen(s) + 2 bytes). */
static char *put_json_str(char *p, const char *s) {
  static const char hex[] = "0123456789abcdef";
  *p++ = '"';
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      *p++ = '\\';
      *p++ = (char)c;
    } else if (c < 0x20) {
      memcpy(p, "\\u00", 4);
      p[4] = hex[c >> 4];
      p[5] = hex[c & 0xfu];
      p += 6;
    } else {
      *p++ = (char)c;
    }
  }
  *p++ = '"';
  return p;
}

static void json_str(rj_buf *b, const char *s) {
  char *p = rj_room(b, 6 * strlen(s) + 2);
  if (p) {
    commit(b, put_json_str(p, s));
  }
}

/* ,"name": at |p| (every member but the first, "type", starts so); |n|:
 * strlen(name). Member names are the printers' own: no escapes. */
RJ_INLINE char *put_member(char *p, const char *name, size_t n) {
  *p++ = ',';
  *p++ = '"';
  memcpy(p, name, n);
  p += n;
  *p++ = '"';
  *p++ = ':';
  return p;
}

/* Room for member |name| and a value of at most |vmax| bytes, the member
 * written: where the value goes, or NULL. */
RJ_INLINE char *member_room(rj_buf *b, const char *name, size_t vmax) {
  size_t n = strlen(name);
  char *p = room(b, n + 4 + vmax);
  return p ? put_member(p, name, n) : NULL;
}

RJ_INLINE void member(rj_buf *b, const char *name) {
  char *p = member_room(b, name, 0);
  if (p) {
    commit(b, p);
  }
}

/* An integer of at most 32 bits: a JSON number. */
RJ_INLINE void u32(rj_buf *b, const char *name, uint32_t v) {
  char *p = member_room(b, name, RJ_U64_MAX);
  if (p) {
    commit(b, fmt_u64(p, v));
  }
}

/* A 64-bit integer or a counter: a string of decimal digits. */
RJ_INLINE void u64(rj_buf *b, const char *name, uint64_t v) {
  char *p = member_room(b, name, RJ_U64_MAX + 2);
  if (p) {
    *p++ = '"';
    p = fmt_u64(p, v);
    *p++ = '"';
    commit(b, p);
  }
}

RJ_INLINE void i64(rj_buf *b, const char *name, int64_t v) {
  char *p = member_room(b, name, RJ_I64_MAX + 2);
  if (p) {
    *p++ = '"';
    p = rj_fmt_i64(p, v);
    *p++ = '"';
    commit(b, p);
  }
}

RJ_INLINE void str(rj_buf *b, const char *name, const char *v) {
  char *p = member_room(b, name, 6 * strlen(v) + 2);
  if (p) {
    commit(b, put_json_str(p, v));
  }
}

RJ_INLINE void boolean(rj_buf *b, const char *name, int v) {
  char *p = member_room(b, name, 5);
  if (p) {
    memcpy(p, v ? "true" : "false", v ? 4 : 5);
    commit(b, p + (v ? 4 : 5));
  }
}

/* A fraction or a rate: a JSON number of 9 significant digits ("%.9g");
 * left out if it is not finite (JSON has no NaN or infinity). */
static void real(rj_buf *b, const char *name, double v) {
  if (isfinite(v)) {
    char *p = member_room(b, name, RJ_REAL_MAX);
    if (p) {
      commit(b, rj_fmt_real9(p, v));
    }
  }
}

/* A timestamp, a duration, a QP: left out when there is none. */
RJ_INLINE void ts(rj_buf *b, const char *name, rtel_tstamp t) {
  if (t != RTEL_TSTAMP_NONE) {
    u64(b, name, t);
  }
}

RJ_INLINE void dur(rj_buf *b, const char *name, int64_t d) {
  if (d != RTEL_DURATION_NONE) {
    i64(b, name, d);
  }
}

RJ_INLINE void qpn(rj_buf *b, const char *name, uint32_t q) {
  if (q != RTEL_QPN_NONE) {
    u32(b, name, q);
  }
}

/* An address as a JSON string (its text has nothing to escape). */
RJ_INLINE void addr(rj_buf *b, const char *name, uint32_t flow_flags,
                    const uint8_t *a) {
  char *p = member_room(b, name, RJ_ADDR_MAX + 2);
  if (p) {
    *p++ = '"';
    p = (flow_flags & RTEL_FLOW_F_IPV6) ? rj_fmt_ipv6(p, a)
                                        : rj_fmt_ipv4(p, a + 12);
    *p++ = '"';
    commit(b, p);
  }
}

/* |prefix|, then |v| in decimal (|quoted|: as a JSON string). */
static void raw_u64(rj_buf *b, const char *prefix, uint64_t v, int quoted) {
  size_t n = strlen(prefix);
  char *p = rj_room(b, n + RJ_U64_MAX + 2);
  if (p) {
    memcpy(p, prefix, n);
    p += n;
    if (quoted) {
      *p++ = '"';
    }
    p = fmt_u64(p, v);
    if (quoted) {
      *p++ = '"';
    }
    commit(b, p);
  }
}

/* The port of a record and its coverage window (rtel_flow_record(3)). */
static void coverage(rj_buf *b, uint32_t port, rtel_tstamp start,
                     rtel_tstamp end) {
  u32(b, "port", port);
  ts(b, "coverage_start_ns", start);
  ts(b, "coverage_end_ns", end);
}

static void print_addr(rj_buf *b, const rtel_pkt_hd *hd, const uint8_t *a) {
  static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  char *p = rj_room(b, RJ_ADDR_MAX + 2);
  if (p == NULL) {
    return;
  }
  *p++ = '"';
  if ((hd->flags & RTEL_HD_F_IPV4) && memcmp(a, mapped, 12) == 0) {
    p = rj_fmt_ipv4(p, a + 12);
  } else {
    p = rj_fmt_ipv6(p, a);
  }
  *p++ = '"';
  commit(b, p);
}

const char *rj_icrc_str(uint32_t st) {
  switch (st) {
  case RTEL_ICRC_OK:
    return "ok";
  case RTEL_ICRC_BAD:
    return "bad";
  case RTEL_ICRC_TRUNCATED:
    return "truncated";
  default:
    return "unchecked";
  }
}

const char *rj_cm_attr_name(uint32_t attr) {
  switch (attr) {
  case RTEL_CM_REQ:
    return "ConnectRequest";
  case RTEL_CM_MRA:
    return "MRA";
  case RTEL_CM_REJ:
    return "ConnectReject";
  case RTEL_CM_REP:
    return "ConnectReply";
  case RTEL_CM_RTU:
    return "ReadyToUse";
  case RTEL_CM_DREQ:
    return "DisconnectRequest";
  case RTEL_CM_DREP:
    return "DisconnectReply";
  case RTEL_CM_SIDR_REQ:
    return "SIDR_REQ";
  case RTEL_CM_SIDR_REP:
    return "SIDR_REP";
  case RTEL_CM_LAP:
    return "LAP";
  case RTEL_CM_APR:
    return "APR";
  default:
    return NULL;
  }
}

const char *rj_ops_str(uint32_t ops) {
  static const char *const names[8] = {"none",
                                       "send",
                                       "write",
                                       "send+write",
                                       "read_resp",
                                       "send+read_resp",
                                       "write+read_resp",
                                       "send+write+read_resp"};
  return names[ops & 7u];
}

/* The library's words (rtel_end_str(3)): every program says the same. */
const char *rj_end_str(uint32_t end) { return rtel_end_str(end); }

const char *rj_io_state_str(uint32_t st) { return rtel_io_state_str(st); }

const char *rj_metric_name(uint32_t m) { return rtel_metric_str(m); }

/* A latency distribution: count, then (when there was a value) min, mean,
 * the percentiles and max, in ns. */
static void latency(rj_buf *b, const char *name, const rtel_latency *l) {
  member(b, name);
  raw_u64(b, "{\"count\":", l->count, 1);
  if (l->count) {
    i64(b, "min_ns", l->min);
    i64(b, "mean_ns", l->mean);
    i64(b, "p50_ns", l->p50);
    i64(b, "p90_ns", l->p90);
    i64(b, "p99_ns", l->p99);
    i64(b, "p999_ns", l->p999);
    i64(b, "max_ns", l->max);
  }
  rj_putc(b, '}');
}

/* ------------------------------------------------------------ records */

void rj_packet(rj_buf *b, const rj_names *n, const rtel_pkt_info *pi,
               uint64_t frame, const rtel_pkt_hd *hd) {
  static const struct {
    uint32_t bit;
    const char *name;
  } encaps[] = {{RTEL_ENCAP_ERSPAN1, "erspan1"},
                {RTEL_ENCAP_ERSPAN2, "erspan2"},
                {RTEL_ENCAP_ERSPAN3, "erspan3"},
                {RTEL_ENCAP_VXLAN, "vxlan"},
                {RTEL_ENCAP_GRE_TEB, "gre-teb"}};
  size_t i, k = 0;

  rj_puts(b, "{\"type\":\"packet\"");
  str(b, "obs", OBS(n, pi->obs));
  u32(b, "port", pi->port);
  u64(b, "frame", frame);
  u64(b, "ts_ns", pi->ts);
  u32(b, "len", hd->wire_len);
  u32(b, "caplen", hd->cap_len);
  u32(b, "roce_version", hd->roce);
  member(b, "src");
  print_addr(b, hd, hd->src);
  member(b, "dst");
  print_addr(b, hd, hd->dst);
  if (hd->roce == 2) {
    u32(b, "sport", hd->sport);
    u32(b, "dport", hd->dport);
  }
  rj_puts(b, ",\"vlans\":[");
  if (hd->flags & RTEL_HD_F_VLAN) {
    for (i = 0; i < hd->nvlan; i++) {
      raw_u64(b, i ? "," : "", hd->vlan_tci[i] & 0x0fffu, 0);
    }
  }
  rj_puts(b, "],\"encap\":[");
  for (i = 0; i < hd->nencap; i++) {
    size_t j;
    for (j = 0; j < sizeof(encaps) / sizeof(encaps[0]); j++) {
      if (hd->encap_list[i] == encaps[j].bit) {
        if (k++) {
          rj_putc(b, ',');
        }
        json_str(b, encaps[j].name);
      }
    }
  }
  rj_putc(b, ']');
  u32(b, "dscp", hd->dscp);
  u32(b, "ecn", hd->ecn);
  u32(b, "opcode", hd->opcode);
  str(b, "opcode_name", rtel_opcode_str(hd->opcode));
  u32(b, "se", hd->se);
  u32(b, "m", hd->m);
  u32(b, "pad", hd->pad);
  u32(b, "tver", hd->tver);
  u32(b, "pkey", hd->pkey);
  u32(b, "fecn", hd->fecn);
  u32(b, "becn", hd->becn);
  u32(b, "dqpn", hd->dqpn);
  u32(b, "a", hd->ackreq);
  u32(b, "psn", hd->psn);
  if (hd->flags & RTEL_HD_F_RDETH) {
    raw_u64(b, ",\"rdeth\":{\"eecnxt\":", hd->rdeth_eecnxt, 0);
    rj_putc(b, '}');
  }
  if (hd->flags & RTEL_HD_F_DETH) {
    raw_u64(b, ",\"deth\":{\"qkey\":", hd->deth_qkey, 0);
    u32(b, "sqpn", hd->deth_sqpn);
    rj_putc(b, '}');
  }
  if (hd->flags & RTEL_HD_F_XRCETH) {
    raw_u64(b, ",\"xrceth\":{\"xrcsrq\":", hd->xrc_srqn, 0);
    rj_putc(b, '}');
  }
  if (hd->flags & RTEL_HD_F_FETH) {
    raw_u64(b, ",\"feth\":{\"sel\":", (hd->feth >> 4) & 3u, 0);
    u32(b, "plt", hd->feth & 0xfu);
    rj_putc(b, '}');
  }
  if (hd->flags & RTEL_HD_F_RETH) {
    raw_u64(b, ",\"reth\":{\"va\":", hd->reth_va, 1);
    u32(b, "rkey", hd->reth_rkey);
    u32(b, "len", hd->reth_dmalen);
    rj_putc(b, '}');
  }
  if (hd->flags & RTEL_HD_F_ATOMICETH) {
    raw_u64(b, ",\"atomic\":{\"va\":", hd->atomic_va, 1);
    u32(b, "rkey", hd->atomic_rkey);
    u64(b, "swap", hd->atomic_swap);
    u64(b, "cmp", hd->atomic_cmp);
    rj_putc(b, '}');
  }
  if (hd->flags & RTEL_HD_F_AETH) {
    raw_u64(b, ",\"aeth\":{\"syndrome\":", hd->aeth_syndrome, 0);
    str(b, "syndrome_name", rtel_aeth_str(hd->aeth_syndrome));
    u32(b, "msn", hd->aeth_msn);
    rj_putc(b, '}');
  }
  if (hd->flags & RTEL_HD_F_ATOMICACKETH) {
    raw_u64(b, ",\"atomicack\":{\"orig\":", hd->atomicack_orig, 1);
    rj_putc(b, '}');
  }
  if (hd->flags & RTEL_HD_F_IMMDT) {
    u32(b, "imm", hd->imm);
  }
  if (hd->flags & RTEL_HD_F_IETH) {
    u32(b, "ieth", hd->ieth_rkey);
  }
  u32(b, "payload_len", hd->payload_len);
  str(b, "icrc", rj_icrc_str(hd->icrc_status));
  boolean(b, "headers_truncated", (hd->flags & RTEL_HD_F_HDR_TRUNC) != 0);
  if (hd->flags & RTEL_HD_F_CM) {
    const char *name = rj_cm_attr_name(hd->cm_attr);
    uint32_t f = hd->cm_fields;
    raw_u64(b, ",\"cm\":{\"attr_id\":", hd->cm_attr, 0);
    if (name) {
      str(b, "attr", name);
    }
    u64(b, "tid", hd->mad_tid);
    if (f & RTEL_CM_F_LCID) {
      u32(b, "lcid", hd->cm_lcid);
    }
    if (f & RTEL_CM_F_RCID) {
      u32(b, "rcid", hd->cm_rcid);
    }
    if (f & RTEL_CM_F_LOCAL_QPN) {
      u32(b, "local_qpn", hd->cm_local_qpn);
    }
    if (f & RTEL_CM_F_START_PSN) {
      u32(b, "start_psn", hd->cm_start_psn);
    }
    if (f & RTEL_CM_F_SERVICE_ID) {
      u64(b, "service_id", hd->cm_service_id);
    }
    if (f & RTEL_CM_F_REMOTE_QPN) {
      u32(b, "remote_qpn", hd->cm_remote_qpn);
    }
    if (f & RTEL_CM_F_REJ_REASON) {
      u32(b, "rej_reason", hd->cm_rej_reason);
    }
    rj_putc(b, '}');
  }
  rj_puts(b, "}\n");
}

void rj_flow(rj_buf *b, const rj_names *n, const rtel_flow_record *f) {
  int paired = (f->flags & RTEL_FLOW_F_PAIRED) != 0;
  rj_puts(b, "{\"type\":\"flow\"");
  str(b, "obs", OBS(n, f->obs));
  coverage(b, f->port, f->coverage_start, f->coverage_end);
  addr(b, "src", f->flags, f->src);
  addr(b, "dst", f->flags, f->dst);
  u32(b, "sport", f->sport);
  u32(b, "dqpn", f->dqpn);
  if (paired) {
    qpn(b, "peer_qpn", f->peer_qpn);
  }
  str(b, "op", rj_ops_str(f->ops));
  u32(b, "dscp", f->dscp);
  if (f->flags & RTEL_FLOW_F_VLAN) {
    u32(b, "vlan", f->vlan);
  }
  u64(b, "first_ts_ns", f->first_ts);
  u64(b, "last_ts_ns", f->last_ts);
  u64(b, "fct_ns", f->fct);
  u64(b, "bytes", f->bytes);
  u64(b, "packets", f->packets);
  u64(b, "retx_packets", f->retx_packets);
  u64(b, "retx_bytes", f->retx_bytes);
  u64(b, "fet_bps", f->fet_bps);
  u64(b, "naks_seq", f->naks_seq);
  u64(b, "naks_rnr", f->naks_rnr);
  u64(b, "naks_fatal", f->naks_fatal);
  if (paired) {
    real(b, "fnr", f->fnr);
  }
  real(b, "retx_ratio", f->retx_ratio);
  u64(b, "cnps", f->cnps);
  u64(b, "ecn_ce", f->ecn_ce);
  u64(b, "fecn_packets", f->fecn);
  u64(b, "becn_packets", f->becn);
  u64(b, "psn_gaps", f->psn_gaps);
  u64(b, "losses_upstream", f->losses_upstream);
  u64(b, "losses_downstream", f->losses_downstream);
  u64(b, "retx_after_nak", f->retx_after_nak);
  u64(b, "retx_after_timeout", f->retx_after_timeout);
  u64(b, "retx_after_rnr", f->retx_after_rnr);
  u64(b, "messages", f->messages);
  str(b, "end", rj_end_str(f->end));
  u64(b, "lost_upstream", f->lost_upstream);
  boolean(b, "lost_upstream_lower_bound",
          (f->flags & RTEL_FLOW_F_LOST_LB) != 0);
  u64(b, "orphan_packets", f->orphan_packets);
  rj_puts(b, "}\n");
}

void rj_message(rj_buf *b, const rj_names *n, const rtel_msg_record *m) {
  rj_puts(b, "{\"type\":\"message\"");
  str(b, "obs", OBS(n, m->obs));
  coverage(b, m->port, m->coverage_start, m->coverage_end);
  addr(b, "src", m->flags, m->src);
  addr(b, "dst", m->flags, m->dst);
  u32(b, "dqpn", m->dqpn);
  if (m->flags & RTEL_FLOW_F_PAIRED) {
    qpn(b, "peer_qpn", m->peer_qpn);
  }
  str(b, "op", rj_ops_str(m->op));
  u32(b, "first_psn", m->first_psn);
  u32(b, "last_psn", m->last_psn);
  u32(b, "reth_len", m->reth_len);
  u64(b, "first_ts_ns", m->first_ts);
  u64(b, "last_ts_ns", m->last_ts);
  u64(b, "fct_ns", m->fct);
  u64(b, "bytes", m->bytes);
  u64(b, "packets", m->packets);
  u64(b, "retx_packets", m->retx_packets);
  u64(b, "retx_bytes", m->retx_bytes);
  boolean(b, "complete", !(m->flags & RTEL_MSG_F_INCOMPLETE));
  str(b, "end", rj_end_str(m->end));
  u64(b, "fet_bps", m->fet_bps);
  u64(b, "naks_seq", m->naks_seq);
  u64(b, "naks_rnr", m->naks_rnr);
  u64(b, "naks_fatal", m->naks_fatal);
  u64(b, "cnps", m->cnps);
  u64(b, "ecn_ce", m->ecn_ce);
  u64(b, "losses_upstream", m->losses_upstream);
  u64(b, "losses_downstream", m->losses_downstream);
  u64(b, "losses_nak", m->losses_nak);
  u64(b, "losses_rnr", m->losses_rnr);
  u64(b, "losses_timeout", m->losses_timeout);
  u64(b, "lost_upstream", m->lost_upstream);
  boolean(b, "lost_upstream_lower_bound",
          (m->flags & RTEL_FLOW_F_LOST_LB) != 0);
  rj_puts(b, "}\n");
}

void rj_io(rj_buf *b, const rj_names *n, const rtel_io_record *io) {
  uint32_t af = (io->flags & RTEL_IO_F_IPV6) ? RTEL_FLOW_F_IPV6 : 0;
  /* an orphan (a response whose command was not seen) knows only its
   * CID, status and response: the command's members are left out */
  int cmd = io->state != RTEL_IO_ORPHAN;
  rj_puts(b, "{\"type\":\"io\"");
  str(b, "obs", OBS(n, io->obs));
  coverage(b, io->port, io->coverage_start, io->coverage_end);
  addr(b, "host", af, io->host);
  addr(b, "target", af, io->target);
  qpn(b, "host_qpn", io->host_qpn);
  qpn(b, "target_qpn", io->target_qpn);
  u32(b, "cid", io->cid);
  if (io->flags & RTEL_IO_F_QID) {
    u32(b, "qid", io->qid);
  }
  if (cmd) {
    str(b, "op",
        rtel_nvme_cmd_str(io->opcode, io->fctype,
                          (io->flags & RTEL_IO_F_ADMIN) != 0));
    u32(b, "nvme_opcode", io->opcode);
    if (io->flags & RTEL_IO_F_FABRICS) {
      u32(b, "nvme_fctype", io->fctype);
    }
    u32(b, "nsid", io->nsid);
    u64(b, "slba", io->slba);
    u32(b, "nlb", io->nlb);
    u64(b, "bytes", io->bytes);
  }
  u32(b, "nvme_status", io->nvme_status);
  str(b, "nvme_status_name",
      rtel_nvme_status_str(io->nvme_status, io->opcode));
  str(b, "state", rj_io_state_str(io->state));
  if (cmd) {
    boolean(b, "incapsule", (io->flags & RTEL_IO_F_INCAPSULE) != 0);
  }
  ts(b, "t_cmd_ns", io->t_cmd);
  ts(b, "t_rsp_ns", io->t_rsp);
  ts(b, "t_data_first_ns", io->t_data_first);
  ts(b, "t_data_last_ns", io->t_data_last);
  ts(b, "t_rdreq_ns", io->t_rdreq);
  dur(b, "iol_ns", io->iol);
  dur(b, "dal_ns", io->dal);
  dur(b, "dpl_ns", io->dpl);
  dur(b, "xfer_ns", io->xfer);
  rj_puts(b, "}\n");
}

void rj_segment(rj_buf *b, const rj_names *n, const rtel_segment_record *sg) {
  uint32_t af = (sg->flags & RTEL_IO_F_IPV6) ? RTEL_FLOW_F_IPV6 : 0;
  rj_puts(b, "{\"type\":\"segment\"");
  str(b, "compute_obs", OBS(n, sg->compute_obs));
  str(b, "storage_obs", OBS(n, sg->storage_obs));
  str(b, "roles", sg->roles_configured ? "configured" : "inferred");
  addr(b, "host", af, sg->host);
  addr(b, "target", af, sg->target);
  u32(b, "target_qpn", sg->target_qpn);
  u32(b, "cid", sg->cid);
  /* the record has no Fabrics command type: "fabrics", as in the text */
  str(b, "op",
      (sg->flags & RTEL_IO_F_FABRICS)
          ? "fabrics"
          : rtel_nvme_cmd_str(sg->opcode, 0,
                              (sg->flags & RTEL_IO_F_ADMIN) != 0));
  u32(b, "nvme_opcode", sg->opcode);
  u32(b, "nsid", sg->nsid);
  u64(b, "slba", sg->slba);
  u64(b, "bytes", sg->bytes);
  i64(b, "iol1_ns", sg->iol1);
  i64(b, "iol2_ns", sg->iol2);
  i64(b, "rtt_ns", sg->rtt);
  i64(b, "compute_ns", sg->compute);
  i64(b, "network_ns", sg->network);
  i64(b, "storage_ns", sg->storage);
  rj_puts(b, "}\n");
}

void rj_aggregate(rj_buf *b, const rj_names *n, const rtel_io_aggregate *g) {
  uint32_t af = (g->flags & RTEL_IO_F_IPV6) ? RTEL_FLOW_F_IPV6 : 0;
  rj_puts(b, "{\"type\":\"summary\"");
  str(b, "obs", OBS(n, g->obs));
  addr(b, "host", af, g->host);
  addr(b, "target", af, g->target);
  if (g->nsid != RTEL_NSID_ALL) {
    u32(b, "nsid", g->nsid); /* left out: every namespace of the pair */
  }
  str(b, "op", rtel_nvme_cmd_str((uint8_t)g->opcode, 0, 0));
  u64(b, "period_start_ns", g->period_start);
  u64(b, "period_end_ns", g->period_end);
  u64(b, "count", g->count);
  u64(b, "bytes", g->bytes);
  u64(b, "errors", g->errors);
  u64(b, "timeouts", g->timeouts);
  latency(b, "iol", &g->iol);
  latency(b, "dal", &g->dal);
  if (g->opcode == RTEL_NVME_OP_WRITE) {
    latency(b, "dpl", &g->dpl);
  }
  rj_puts(b, "}\n");
}

/* A list of ports: their ids, or the names of their observation points. */
static void ports(rj_buf *b, const char *name, const rj_names *n,
                  const uint32_t *ids, size_t nids, int names) {
  size_t i;
  member(b, name);
  rj_putc(b, '[');
  for (i = 0; i < nids; i++) {
    if (i) {
      rj_putc(b, ',');
    }
    if (names) {
      json_str(b, OBS(n, ids[i]));
    } else {
      raw_u64(b, "", ids[i], 0);
    }
  }
  rj_putc(b, ']');
}

void rj_slot(rj_buf *b, const rj_names *n, const rtel_slot_event *ev) {
  rj_puts(b, "{\"type\":\"slot\"");
  u64(b, "slot", ev->slot);
  u64(b, "start_ns", ev->start);
  ts(b, "end_ns", ev->end);
  ports(b, "started", n, ev->started, ev->nstarted, 0);
  ports(b, "stopped", n, ev->stopped, ev->nstopped, 0);
  ports(b, "started_names", n, ev->started, ev->nstarted, 1);
  ports(b, "stopped_names", n, ev->stopped, ev->nstopped, 1);
  rj_puts(b, "}\n");
}

void rj_alarm(rj_buf *b, const rj_names *n, const rtel_alarm *al) {
  uint32_t af = 0;
  if (al->flow) {
    af = al->flow->flags & RTEL_FLOW_F_IPV6;
  } else if (al->io && (al->io->flags & RTEL_IO_F_IPV6)) {
    af = RTEL_FLOW_F_IPV6;
  }
  rj_puts(b, "{\"type\":\"alarm\"");
  str(b, "obs", OBS(n, al->obs));
  u32(b, "port", al->port);
  str(b, "state", al->state == RTEL_ALARM_RAISED ? "raised" : "cleared");
  str(b, "metric", rj_metric_name(al->metric));
  str(b, "kind", al->kind == RTEL_ALARM_BASELINE ? "baseline" : "threshold");
  str(b, "scope", al->scope == RTEL_SCOPE_PORT ? "port" : "pair");
  if (al->scope == RTEL_SCOPE_PAIR) {
    addr(b, "src", af, al->src);
    addr(b, "dst", af, al->dst);
  }
  real(b, "value", al->value);
  real(b, "limit", al->limit);
  u64(b, "ts_ns", al->ts);
  rj_puts(b, "}\n");
}

/* ------------------------------------------------------------ counters */

size_t rj_stats_rows(const rtel_ctx_stats *st, rj_row *out, size_t max) {
  const rj_row rows[] = {
      {"packets", st->pkts},
      {"bytes", st->bytes},
      {"roce", st->pkts_roce},
      {"rocev1", st->pkts_rocev1},
      {"not_roce", st->pkts_not_roce},
      {"malformed", st->pkts_malformed},
      {"truncated", st->pkts_truncated},
      {"hdr_truncated", st->pkts_hdr_truncated},
      {"ip_fragments", st->pkts_ip_fragments},
      {"erspan", st->pkts_erspan},
      {"vxlan", st->pkts_vxlan},
      {"cnps", st->pkts_cnp},
      {"cm_mads", st->pkts_cm},
      {"icrc_ok", st->icrc_ok},
      {"icrc_bad", st->icrc_bad},
      {"icrc_truncated", st->icrc_truncated},
      {"ts_backwards", st->pkts_ts_backwards},
      {"unknown_opcode", st->pkts_unknown_opcode},
      {"unknown_tver", st->pkts_unknown_tver},
      {"flows_created", st->flows_created},
      {"flows_evicted", st->flows_evicted},
      {"flows_untracked_packets", st->flows_untracked_pkts},
      {"pairs_cm", st->pairs_cm},
      {"pairs_psn", st->pairs_psn},
      {"pairs_evicted", st->pairs_evicted},
      {"ctrl_unattributed", st->ctrl_unattributed},
      {"messages", st->messages},
      {"nvme_queues_cm", st->nvme_queues_cm},
      {"nvme_queues_connect", st->nvme_queues_connect},
      {"nvme_queues_confirmed", st->nvme_queues_confirmed},
      {"nvme_queues_evicted", st->nvme_queues_evicted},
      {"ios_complete", st->ios_complete},
      {"ios_timeout", st->ios_timeout},
      {"ios_orphan", st->ios_orphan},
      {"ios_evicted", st->ios_evicted},
      {"ios_untracked", st->ios_untracked},
      {"ios_created", st->ios_created},
      {"ios_active", st->ios_active},
      {"ios_unconfirmed", st->ios_unconfirmed},
      {"nvme_data_unmatched", st->nvme_data_unmatched},
      {"nvme_capsule_dups", st->nvme_capsule_dups},
      {"segments", st->segments},
      {"io_join_unmatched", st->io_join_unmatched},
      {"aggregates_dropped", st->aggregates_dropped},
      {"ios_truncated", st->ios_truncated},
      {"unscheduled", st->pkts_unscheduled},
      {"slots", st->slots},
      {"alarms_raised", st->alarms_raised},
      {"alarms_cleared", st->alarms_cleared},
      {"alarms_dropped", st->alarms_dropped},
      {"messages_overflow", st->msgs_overflow},
  };
  size_t i, nrows = sizeof(rows) / sizeof(rows[0]);
  for (i = 0; i < nrows && i < max; i++) {
    out[i] = rows[i];
  }
  return i;
}

void rj_stats(rj_buf *b, const char *obs, const char *file,
              const rtel_ctx_stats *st) {
  rj_row rows[RJ_STATS_ROWS];
  size_t i, nrows = rj_stats_rows(st, rows, RJ_STATS_ROWS);
  int first = 1;
  rj_puts(b, "{\"type\":\"stats\"");
  str(b, "obs", obs);
  if (file) {
    str(b, "file", file);
  }
  for (i = 0; i < nrows; i++) {
    u64(b, rows[i].name, rows[i].v);
  }
  rj_puts(b, ",\"malformed_by_reason\":{");
  for (i = 0; i < RTEL_MALFORMED_SLOTS; i++) {
    if (st->malformed[i]) {
      if (!first) {
        rj_putc(b, ',');
      }
      json_str(b, rtel_malformed_str((uint32_t)i));
      raw_u64(b, ":", st->malformed[i], 1);
      first = 0;
    }
  }
  rj_puts(b, "}}\n");
}
