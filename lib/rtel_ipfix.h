/* SPDX-License-Identifier: MIT */
/* IPFIX encoder (rtel_ipfix.c): the encoder object and the numbers the
 * tests check against the RFCs. */
#ifndef RTEL_IPFIX_H
#define RTEL_IPFIX_H

#include "rtel_int.h"

/* Message header length (RFC 7011, 3.1). */
#define RTEL__IPFIX_HDR_LEN 16
/* Seconds from 1900-01-01 (NTP era 0) to 1970-01-01. */
#define RTEL__IPFIX_NTP_OFFSET 2208988800u
/* observationPointId (138) is unsigned64 at IANA. */
#define RTEL__IPFIX_OBS_LEN 8

/* Record types; template ids are RTEL__IPFIX_TID_FIRST + 2 * type (IPv4)
 * and + 1 (IPv6). */
enum {
  RTEL__IPFIX_FLOW,
  RTEL__IPFIX_MSG,
  RTEL__IPFIX_IO,
  RTEL__IPFIX_SEGMENT,
  RTEL__IPFIX_AGGREGATE,
  RTEL__IPFIX_NTYPES
};
#define RTEL__IPFIX_NTEMPLATES (2 * RTEL__IPFIX_NTYPES)
#define RTEL__IPFIX_TID_FIRST 256
/* The options template of the RFC 5610 type records. */
#define RTEL__IPFIX_TID_TYPES (RTEL__IPFIX_TID_FIRST + RTEL__IPFIX_NTEMPLATES)

struct rtel_ipfix {
  rtel_mem mem;
  rtel_ipfix_settings s;
  /* data records (options data records included) of earlier messages of
   * this transport session, modulo 2^32 */
  uint32_t seq;
  uint64_t next_flow_id;
  /* templates due: the next control item to write (rtel_ipfix.c) */
  int ctl_pending;
  unsigned ctl_next;
  /* export time of the message that finished the control items, or
   * RTEL_TSTAMP_NONE */
  rtel_tstamp ctl_done_at;
  /* the message being written (buf NULL: none) */
  uint8_t *buf;
  size_t cap;
  size_t pos;
  size_t set_start;
  uint16_t set_id; /* 0: no set open */
  uint32_t msg_records;
  rtel_tstamp now;
};

/* Encoded lengths of a data record and a template record of template
 * index |t| (0 .. RTEL__IPFIX_NTEMPLATES - 1). */
size_t rtel__ipfix_record_len(unsigned t);
size_t rtel__ipfix_template_len(unsigned t);

/* |ns| since the Unix epoch as a 64-bit NTP timestamp (RFC 7011,
 * dateTimeNanoseconds). */
uint64_t rtel__ipfix_ntp(rtel_tstamp ns);

#endif /* RTEL_IPFIX_H */
