/* SPDX-License-Identifier: MIT */
/*
 * ipfix_expect: what a decoded IPFIX data record of the library's encoder
 * must hold, field by field, for the record the encoder was given. Written
 * from rtel_ipfix(3) (which element carries which record field, how times
 * and ratios are encoded), independently of lib/rtel_ipfix.c's tables: every
 * field is checked by its own line below. Used by tests/ipfix/check_ipfix.c
 * and the fuzz harness tests/fuzz/fuzz_ipfix.c, on records decoded by
 * tests/ipfix/ipfix_read.c.
 */
#ifndef IPFIX_EXPECT_H
#define IPFIX_EXPECT_H

#include <rocetel/rocetel.h>

#include "ipfix_read.h"

/* Template ids (rtel_ipfix(3)). */
#define IPX_TID_FLOW 256
#define IPX_TID_MSG 258
#define IPX_TID_IO 260
#define IPX_TID_SEGMENT 262
#define IPX_TID_AGGREGATE 264
#define IPX_TID_TYPES 266

/* Checks data record |rec| against the record it was made from, with
 * flowId |flow_id| under enterprise |pen|. Returns 0, or -1 with the first
 * difference in |err|. */
int ipx_check_flow(const ipr_rec *rec, const rtel_flow_record *r, uint32_t pen,
                   uint64_t flow_id, char *err, size_t errlen);
int ipx_check_msg(const ipr_rec *rec, const rtel_msg_record *r, uint32_t pen,
                  uint64_t flow_id, char *err, size_t errlen);
int ipx_check_io(const ipr_rec *rec, const rtel_io_record *r, uint32_t pen,
                 uint64_t flow_id, char *err, size_t errlen);
int ipx_check_segment(const ipr_rec *rec, const rtel_segment_record *r,
                      uint32_t pen, uint64_t flow_id, char *err,
                      size_t errlen);
int ipx_check_aggregate(const ipr_rec *rec, const rtel_io_aggregate *r,
                        uint32_t pen, uint64_t flow_id, char *err,
                        size_t errlen);

/* Checks an RFC 5610 type record against the library's element table
 * (rtel_ipfix_element_get()): the element exists, and its name, type,
 * semantics and units are the table's. Sets bit id of |seen| (an array of
 * at least 512 bytes). Returns 0 or -1 with |err|. */
int ipx_check_type_record(const ipr_rec *rec, uint32_t pen, uint8_t *seen,
                          char *err, size_t errlen);

#endif
