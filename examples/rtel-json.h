/* SPDX-License-Identifier: MIT */
/*
 * JSON lines of the example programs: the one printer of each record
 * type, shared by rtel-analyze --format json, rtel-collect --json and
 * switch-agent --json, so that all write the same member names and values
 * (rtel-analyze(1), OUTPUT; the JSON Schema docs/rtel-records.schema.json).
 * Each function appends one whole line ("{...}\n") to a growable buffer;
 * the caller writes the buffer (a single write() keeps lines whole).
 * Observation point ids are named through |obs| (|nobs| names; an id
 * beyond gives "?"); so are the port ids of a slot record (the programs
 * give each port the observation point of the same id).
 */
#ifndef RTEL_EXAMPLES_RTEL_JSON_H
#define RTEL_EXAMPLES_RTEL_JSON_H

#include <stddef.h>
#include <stdint.h>

#include <rocetel/rocetel.h>

/* A growable text buffer. On allocation failure it stops growing and
 * sets |oom| (what was appended so far stays valid). */
typedef struct rj_buf {
  char *p;
  size_t len, cap;
  int oom;
} rj_buf;

void rj_init(rj_buf *b);
void rj_free(rj_buf *b);
void rj_reset(rj_buf *b);
void rj_puts(rj_buf *b, const char *s);
void rj_put(rj_buf *b, const char *s, size_t n);
void rj_putc(rj_buf *b, char c);
void rj_printf(rj_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Room for |n| more bytes (and a NUL): where to write them, or NULL (the
 * buffer could not grow; |oom| is set). rj_commit() then ends the text at
 * |end| (within that room) and NUL-terminates it. */
char *rj_room(rj_buf *b, size_t n);
void rj_commit(rj_buf *b, char *end);
/* |s| in a field of |width| columns, right-aligned (< 0: left-aligned),
 * as printf's "%*s". */
void rj_pad(rj_buf *b, const char *s, int width);

/* The formatters of the records, text and JSON, in place of printf: each
 * writes at |p| what the printf conversion named prints (no NUL) and
 * returns the end. |p| needs room for the longest form (RJ_*_MAX). */
#define RJ_U64_MAX 20  /* UINT64_MAX: 20 digits */
#define RJ_I64_MAX 20  /* INT64_MIN: a sign and 19 digits */
#define RJ_HEX_MAX 18  /* "0x" and 16 digits */
#define RJ_ADDR_MAX 45 /* INET6_ADDRSTRLEN - 1 */
#define RJ_REAL_MAX 24
char *rj_fmt_u64(char *p, uint64_t v);                 /* "%" PRIu64 */
char *rj_fmt_i64(char *p, int64_t v);                  /* "%" PRId64 */
char *rj_fmt_u64_zero(char *p, uint64_t v, int width); /* "%0*" PRIu64 */
char *rj_fmt_hex(char *p, uint64_t v);                 /* "%" PRIx64 */
char *rj_fmt_hex_alt(char *p, uint64_t v);             /* "%#" PRIx64 */
/* inet_ntop(AF_INET, a) and inet_ntop(AF_INET6, a) as glibc prints them */
char *rj_fmt_ipv4(char *p, const uint8_t *a);
char *rj_fmt_ipv6(char *p, const uint8_t *a);
/* "%.9g" of a finite |v| */
char *rj_fmt_real9(char *p, double v);
/* snprintf(p, n, "%.4f", v): returns where its NUL is (n >= 1) */
char *rj_fmt_fixed4(char *p, size_t n, double v);

/* Names of observation points, by id. */
typedef struct rj_names {
  const char *const *obs;
  size_t nobs;
} rj_names;

/* The records (one line each). |frame|: the packet's 1-based frame
 * number in its input. */
void rj_packet(rj_buf *b, const rj_names *n, const rtel_pkt_info *pi,
               uint64_t frame, const rtel_pkt_hd *hd);
void rj_flow(rj_buf *b, const rj_names *n, const rtel_flow_record *f);
void rj_message(rj_buf *b, const rj_names *n, const rtel_msg_record *m);
void rj_io(rj_buf *b, const rj_names *n, const rtel_io_record *io);
void rj_segment(rj_buf *b, const rj_names *n, const rtel_segment_record *sg);
void rj_aggregate(rj_buf *b, const rj_names *n, const rtel_io_aggregate *g);
void rj_slot(rj_buf *b, const rj_names *n, const rtel_slot_event *ev);
void rj_alarm(rj_buf *b, const rj_names *n, const rtel_alarm *al);
/* The counters of a context, as observation point (or label) |obs|. */
/* A stats record; |file| (NULL: left out) names the one capture file the
 * counters are of (rtel-analyze --stats with several files). */
void rj_stats(rj_buf *b, const char *obs, const char *file,
              const rtel_ctx_stats *st);

/* The rows of the counters, in output order (the text output uses them
 * too): fills up to |max| rows, returns their number. */
typedef struct rj_row {
  const char *name;
  uint64_t v;
} rj_row;
#define RJ_STATS_ROWS 64
size_t rj_stats_rows(const rtel_ctx_stats *st, rj_row *rows, size_t max);

/* Names both outputs (text and JSON) use. rj_end_str, rj_io_state_str and
 * rj_metric_name are the library's words (rtel_end_str(3)). */
const char *rj_icrc_str(uint32_t st);
const char *rj_cm_attr_name(uint32_t attr); /* NULL if unknown */
const char *rj_ops_str(uint32_t ops);
const char *rj_end_str(uint32_t end);
const char *rj_io_state_str(uint32_t st);
const char *rj_metric_name(uint32_t m);
/* A record's 16-byte address as text (IPv4 unless RTEL_FLOW_F_IPV6 is
 * in |flags|) into |out| (INET6_ADDRSTRLEN bytes). */
void rj_format_addr(char *out, uint32_t flags, const uint8_t *a);

#endif
