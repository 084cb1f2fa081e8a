/* SPDX-License-Identifier: MIT */
/*
 * IPFIX export for the example programs: the library's encoder
 * (rtel_ipfix) with the I/O it leaves to its caller: a UDP socket to one
 * collector, or a file of messages (RFC 5655 layout: messages back to
 * back). Records are packed into messages as they come; a full message is
 * sent, and ipfix_export_close() sends the last one.
 */
#ifndef RTEL_EXAMPLES_IPFIX_EXPORT_H
#define RTEL_EXAMPLES_IPFIX_EXPORT_H

#include <stdio.h>

#include <rocetel/rocetel.h>

typedef struct ipfix_export ipfix_export;

typedef struct ipfix_export_opts {
  const char *udp;  /* HOST:PORT (or [V6]:PORT), or NULL */
  const char *file; /* a file to write ("-": stdout), or NULL */
  uint32_t pen;
  uint32_t domain;
  uint32_t mtu; /* path MTU for UDP (0: unknown, 512-byte messages) */
  /* 0: the first send or write error stops the export (rtel-analyze);
   * 1: a message that cannot be sent loses its records (counted) and the
   * export goes on (rtel-collect: a collector that is down, a full disk) */
  int keep_going;
} ipfix_export_opts;

/* Opens the transport and the encoder. Returns NULL after writing the
 * reason (naming the option) to |err|. */
ipfix_export *ipfix_export_open(const ipfix_export_opts *o, char *err,
                                size_t errlen);

/* Adds a record at time |now| (the export time of its message). Returns
 * 0, or -1 after an error (reported on stderr once; later records are
 * counted as lost). */
int ipfix_export_flow(ipfix_export *x, const rtel_flow_record *r,
                      rtel_tstamp now);
int ipfix_export_msg(ipfix_export *x, const rtel_msg_record *r,
                     rtel_tstamp now);
int ipfix_export_io(ipfix_export *x, const rtel_io_record *r, rtel_tstamp now);
int ipfix_export_segment(ipfix_export *x, const rtel_segment_record *r,
                         rtel_tstamp now);
int ipfix_export_aggregate(ipfix_export *x, const rtel_io_aggregate *r,
                           rtel_tstamp now);

/* The timer of a long-running exporter, at |now| (the records' time):
 * sends the message begun (records do not wait for it to fill) and the
 * templates if their refresh (rtel_ipfix_settings.template_refresh) is
 * due. Returns 0, or -1 once the export has stopped. */
int ipfix_export_tick(ipfix_export *x, rtel_tstamp now);

/* Records exported and lost, messages sent, messages that could not be
 * sent (keep_going). */
void ipfix_export_counts(const ipfix_export *x, uint64_t *records,
                         uint64_t *lost, uint64_t *msgs,
                         uint64_t *send_errors);

/* Sends what is pending and closes. Writes "ipfix: N records in M
 * messages (B bytes) to DEST" to |log| if not NULL. Returns 0, or -1 if a
 * record or message was lost. */
int ipfix_export_close(ipfix_export *x, rtel_tstamp now, FILE *log);

/* Writes to |f| pmacct's aggregate_primitives file for the records of
 * |type| (flow, message, io, segment, summary) under |pen|: pmacct takes
 * at most 64 custom primitives, fewer than the elements of all types.
 * Returns 0, or -1 for an unknown type. */
int ipfix_export_pmacct_primitives(FILE *f, uint32_t pen, const char *type);

#endif
