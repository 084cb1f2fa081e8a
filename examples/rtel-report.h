/* SPDX-License-Identifier: MIT */
/*
 * rtel-report: an HTML report of I/O quality and throughput, built from
 * the records of a libroceTel context (rtel-analyze --report, see
 * rtel-analyze(1), REPORT).
 *
 * The application creates a report, hands it every record its callbacks
 * receive (report_flow() from on_flow, report_io() from on_io, ...), the
 * counters at the end (report_stats()), and writes the page with
 * report_write(): ONE self-contained HTML file (inline CSS, inline SVG
 * plots drawn here, no script or font from elsewhere, a
 * Content-Security-Policy that forbids any network access).
 *
 * Memory is bounded whatever the number of records: the report keeps
 * log-linear histograms (the library's layout, rtel_io_aggregate(3)) per
 * host, storage target and host-target pair, per-interval series whose
 * interval doubles as the run grows (at most REPORT_BINS intervals), and
 * the top N slowest I/Os and worst flows in bounded heaps; keys beyond the
 * fixed capacities are counted and named in the page, not kept.
 *
 * Not thread-safe: one report is fed from one thread.
 */
#ifndef RTEL_EXAMPLES_RTEL_REPORT_H
#define RTEL_EXAMPLES_RTEL_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rocetel/rocetel.h>

/* Most intervals of a trend chart. */
#define REPORT_BINS 120
/* Largest top N (slowest I/Os, worst flows). */
#define REPORT_TOP_MAX 1000

typedef struct report_opts {
  /* Title of the page; NULL: "libroceTel report". */
  const char *title;
  /* What the report was made from (a command line, file names), shown
   * in the overview; may be NULL. */
  const char *source;
  /* Slowest I/Os and worst flows listed: 0 means 20; at most
   * REPORT_TOP_MAX. */
  size_t top_n;
  /* Non-zero: I/O quality tables per namespace as well. */
  int per_namespace;
} report_opts;

typedef struct report report;

/* A new, empty report (|opts| is copied, its strings too; NULL: the
 * defaults). NULL when out of memory. */
report *report_new(const report_opts *opts);
void report_free(report *r);

/* Names observation point |obs| (copied) and gives its role (RTEL_ROLE_*,
 * as set with rtel_ctx_set_obs_role(); RTEL_ROLE_UNKNOWN: inferred from
 * the segment records) and, when known, the timestamps of the first and
 * last packet read there (RTEL_TSTAMP_NONE: unknown; the span of the
 * records is shown then). Call before the records of that point to start
 * its time axis at |first_ts|; may be called again (the latest call wins,
 * a NONE keeps the earlier value). Returns 0, or -1 when out of memory
 * or out of room. */
int report_obs(report *r, uint32_t obs, const char *name, uint32_t role,
               rtel_tstamp first_ts, rtel_tstamp last_ts);

/* The records, as the callbacks deliver them. */
void report_flow(report *r, const rtel_flow_record *f);
void report_msg(report *r, const rtel_msg_record *m);
void report_io(report *r, const rtel_io_record *io);
void report_segment(report *r, const rtel_segment_record *sg);
void report_aggregate(report *r, const rtel_io_aggregate *g);
void report_alarm(report *r, const rtel_alarm *al);
void report_slot(report *r, const rtel_slot_event *ev);
/* The counters of a context (|label| names it, e.g. "all"; copied).
 * Several contexts: one call each, they are summed; a second call with
 * the same label replaces the first. */
void report_stats(report *r, const char *label, const rtel_ctx_stats *st);

/* Writes the page to |f|. Returns 0, or -1 after a write error (errno
 * set by stdio). */
int report_write(report *r, FILE *f);

/* Records fed so far (all types), and whether some state could not be
 * kept for lack of memory (the page says so too). */
uint64_t report_records(const report *r);
int report_oom(const report *r);

#endif
