/* SPDX-License-Identifier: MIT */
/*
 * The strict IPFIX reader of tests/ipfix/ipfix_read.h against messages
 * written out byte by byte below, every byte explained, every expected
 * value computed by hand (the arithmetic is in the comments): acceptance
 * of templates, data records, NTP and millisecond timestamps, variable-
 * length fields in both length forms, an RFC 5610 type record before the
 * data template it describes; rejection, each with its reason, of what
 * RFC 7011 forbids; and no crash (ASan, UBSan) on every truncation and
 * many mutations of those messages.
 *
 * Shared values: Observation Domain 42 (0x0000002a); Export Time
 * 1700000000 s (0x6553f100, 2023-11-14T22:13:20Z); its NTP seconds
 * 1700000000 + 2208988800 = 3908988800 (0xe8fe6f80); PEN 32473 (0x7ed9,
 * RFC 5612's documentation number).
 */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipfix_read.h"

#define NS 1000000000LL
#define T0_NS (1700000000LL * NS) /* Export Time in ns */

/* ------------------------------------------------------------ messages */

/*
 * MSG1: a Template Set with template 256 and a Data Set with two records.
 * 108 bytes: header 16, Template Set 32 (at 16), Data Set 60 (at 48).
 * A record is 4 + 4 + 8 + 4 + 8 = 28 bytes (records at 52 and 80).
 */
static const uint8_t MSG1[108] = {
    /* Message Header (RFC 7011 3.1) */
    0x00, 0x0a,             /*  0: Version 10 */
    0x00, 0x6c,             /*  2: Length 108 = 16 + 32 + 60 */
    0x65, 0x53, 0xf1, 0x00, /*  4: Export Time 1700000000 */
    0x00, 0x00, 0x00, 0x00, /*  8: Sequence Number 0: nothing before */
    0x00, 0x00, 0x00, 0x2a, /* 12: Observation Domain ID 42 */
    /* Template Set (3.3.2, 3.4.1) */
    0x00, 0x02,             /* 16: Set ID 2 */
    0x00, 0x20,             /* 18: Length 32 = 4 + 4 + 4 * 4 + 8 */
    0x01, 0x00,             /* 20: Template ID 256 */
    0x00, 0x05,             /* 22: Field Count 5 */
    0x00, 0x08, 0x00, 0x04, /* 24: sourceIPv4Address (8), 4 bytes */
    0x00, 0x0c, 0x00, 0x04, /* 28: destinationIPv4Address (12), 4 */
    0x00, 0x01, 0x00, 0x08, /* 32: octetDeltaCount (1), 8 (unsigned64) */
    0x80, 0x01, 0x00, 0x04, /* 36: enterprise bit | 1, 4 bytes */
    0x00, 0x00, 0x7e, 0xd9, /* 40: Enterprise Number 32473 */
    0x00, 0x9c, 0x00, 0x08, /* 44: flowStartNanoseconds (156), 8 */
    /* Data Set (3.4.3) */
    0x01, 0x00, /* 48: Set ID 256 = Template ID */
    0x00, 0x3c, /* 50: Length 60 = 4 + 2 * 28 */
    /* record 1 */
    0x0a, 0x00, 0x00, 0x01, /* 52: 10.0.0.1 */
    0x0a, 0x00, 0x00, 0x02, /* 56: 10.0.0.2 */
    0x00, 0x00, 0x01, 0x1f, /* 60: 1234567890123 = 0x0000011f71fb04cb */
    0x71, 0xfb, 0x04, 0xcb, /*     */
    0xde, 0xad, 0xbe, 0xef, /* 68: PEN 32473 id 1 = 0xdeadbeef */
    0xe8, 0xfe, 0x6f, 0x80, /* 72: NTP seconds 3908988800 */
    0x1f, 0x9a, 0xdd, 0x37, /* 76: fraction 530242871 (.123456789 s) */
    /* record 2 */
    0xc0, 0xa8, 0x01, 0x01, /* 80: 192.168.1.1 */
    0xc0, 0xa8, 0x01, 0x02, /* 84: 192.168.1.2 */
    0x00, 0x00, 0x00, 0x00, /* 88: 1 */
    0x00, 0x00, 0x00, 0x01, /*     */
    0x00, 0x00, 0x00, 0x07, /* 96: 7 */
    0xe8, 0xfe, 0x6f, 0x80, /* 100: NTP seconds 3908988800 */
    0xff, 0xff, 0xff, 0xfc, /* 104: fraction 4294967292 (.999999999 s) */
};
/*
 * The fractions: ns * 2^32 / 10^9, to the nearest integer.
 *   123456789 * 4294967296 / 10^9 = 530242871.22   -> 530242871 0x1f9add37
 *   999999999 * 4294967296 / 10^9 = 4294967291.71  -> 4294967292 0xfffffffc
 * and back, frac * 10^9 / 2^32, to the nearest nanosecond:
 *   530242871 -> 123456788.948 -> 123456789 (truncating gives ...788)
 *   4294967292 -> 999999999.069 -> 999999999
 */

/* MSG1's Data Set alone (76 = 16 + 60 bytes) with Sequence Number seq and
 * domain dom: the data-only message an exporter sends next. */
static size_t data_only(uint8_t *b, uint32_t seq, uint32_t dom) {
  memcpy(b, MSG1, 16);
  b[3] = 0x4c; /* Length 76 */
  b[8] = (uint8_t)(seq >> 24);
  b[9] = (uint8_t)(seq >> 16);
  b[10] = (uint8_t)(seq >> 8);
  b[11] = (uint8_t)seq;
  b[12] = (uint8_t)(dom >> 24);
  b[13] = (uint8_t)(dom >> 16);
  b[14] = (uint8_t)(dom >> 8);
  b[15] = (uint8_t)dom;
  memcpy(b + 16, MSG1 + 48, 60);
  return 76;
}

/*
 * MSGV: variable-length fields (RFC 7011 7). Template 257: interfaceName
 * (82, string, variable) and ingressInterface (10, 4 bytes). Four records:
 * "eth" with the 1-byte length, 300 x 'x' with the 3-byte length (255,
 * then 300 = 0x012c), "abc" with the 3-byte length of a short string, and
 * the empty string; 2 bytes of padding. The 300 'x' are not written out:
 * MSGV_HEAD, then 300 'x', then MSGV_TAIL.
 * Records: 1+3+4 = 8, 3+300+4 = 307, 3+3+4 = 10, 1+0+4 = 5: 330 bytes;
 * Data Set 4 + 330 + 2 = 336 (0x0150); message 16 + 16 + 336 = 368
 * (0x0170). The smallest record is 1 + 4 = 5 bytes: 2 bytes of padding
 * are shorter.
 */
static const uint8_t MSGV_HEAD[47] = {
    0x00, 0x0a,             /*  0: Version 10 */
    0x01, 0x70,             /*  2: Length 368 */
    0x65, 0x53, 0xf1, 0x00, /*  4: Export Time 1700000000 */
    0x00, 0x00, 0x00, 0x00, /*  8: Sequence Number 0 */
    0x00, 0x00, 0x00, 0x2a, /* 12: Observation Domain ID 42 */
    0x00, 0x02,             /* 16: Template Set */
    0x00, 0x10,             /* 18: Length 16 = 4 + 4 + 2 * 4 */
    0x01, 0x01,             /* 20: Template ID 257 */
    0x00, 0x02,             /* 22: Field Count 2 */
    0x00, 0x52, 0xff, 0xff, /* 24: interfaceName (82), variable (65535) */
    0x00, 0x0a, 0x00, 0x04, /* 28: ingressInterface (10), 4 */
    0x01, 0x01,             /* 32: Data Set 257 */
    0x01, 0x50,             /* 34: Length 336 */
    0x03, 'e',  't',  'h',  /* 36: record 1: length 3, "eth" */
    0x00, 0x00, 0x00, 0x01, /* 40: ingressInterface 1 */
    0xff, 0x01, 0x2c,       /* 44: record 2: 255, length 300 */
};                          /* 47: 300 x 'x' */
static const uint8_t MSGV_TAIL[21] = {
    0x00, 0x00, 0x00, 0x02, /* 347: ingressInterface 2 */
    0xff, 0x00, 0x03,       /* 351: record 3: 255, length 3 */
    'a',  'b',  'c',        /* 354: "abc" */
    0x00, 0x00, 0x00, 0x03, /* 357: ingressInterface 3 */
    0x00,                   /* 361: record 4: length 0 */
    0x00, 0x00, 0x00, 0x04, /* 362: ingressInterface 4 */
    0x00, 0x00,             /* 366: padding */
};                          /* 368 */

static size_t msgv(uint8_t *b) {
  memcpy(b, MSGV_HEAD, sizeof(MSGV_HEAD));
  memset(b + 47, 'x', 300);
  memcpy(b + 347, MSGV_TAIL, sizeof(MSGV_TAIL));
  return 368;
}

/*
 * MSGT: an RFC 5610 Information Element type record for the enterprise
 * element of template 256 (PEN 32473, id 1), sent before the template that
 * uses it, then template 256 and one data record. 148 bytes: header 16,
 * Options Template Set 36 (at 16), its Data Set 32 (at 52), Template Set
 * 32 (at 84), Data Set 32 (at 116).
 */
static const uint8_t MSGT[148] = {
    0x00, 0x0a,             /*  0: Version 10 */
    0x00, 0x94,             /*  2: Length 148 */
    0x65, 0x53, 0xf1, 0x00, /*  4: Export Time 1700000000 */
    0x00, 0x00, 0x00, 0x00, /*  8: Sequence Number 0 */
    0x00, 0x00, 0x00, 0x2a, /* 12: Observation Domain ID 42 */
    /* Options Template Set (3.4.2.2) */
    0x00, 0x03,             /* 16: Set ID 3 */
    0x00, 0x24,             /* 18: Length 36 = 4 + 30 + 2 padding */
    0x01, 0x02,             /* 20: Template ID 258 */
    0x00, 0x06,             /* 22: Field Count 6 (scope included) */
    0x00, 0x02,             /* 24: Scope Field Count 2 */
    0x01, 0x5a, 0x00, 0x04, /* 26: scope privateEnterpriseNumber (346), 4 */
    0x01, 0x2f, 0x00, 0x02, /* 30: scope informationElementId (303), 2 */
    0x01, 0x53, 0x00, 0x01, /* 34: informationElementDataType (339), 1 */
    0x01, 0x58, 0x00, 0x01, /* 38: informationElementSemantics (344), 1 */
    0x01, 0x59, 0x00, 0x02, /* 42: informationElementUnits (345), 2 */
    0x01, 0x55, 0xff, 0xff, /* 46: informationElementName (341), variable */
    0x00, 0x00,             /* 50: padding: 2 < 10, the smallest record */
    /* its Data Set: one record of 4 + 2 + 1 + 1 + 2 + 1 + 14 = 25 bytes */
    0x01, 0x02,             /* 52: Set ID 258 */
    0x00, 0x20,             /* 54: Length 32 = 4 + 25 + 3 padding */
    0x00, 0x00, 0x7e, 0xd9, /* 56: privateEnterpriseNumber 32473 */
    0x00, 0x01,             /* 60: informationElementId 1 */
    0x03,                   /* 62: data type 3, unsigned32 */
    0x01,                   /* 63: semantics 1, quantity */
    0x00, 0x02,             /* 64: units 2, octets */
    0x0e,                   /* 66: name: length 14 */
    'e', 'x', 'a', 'm',     /* 67: "exampleCounter" */
    'p', 'l', 'e', 'C',     /*     */
    'o', 'u', 'n', 't',     /*     */
    'e', 'r',               /*     */
    0x00, 0x00, 0x00,       /* 81: padding: 3 < 25 - 14 = 11 */
    /* Template Set: template 256 as in MSG1 */
    0x00, 0x02, 0x00, 0x20, /* 84: Set ID 2, Length 32 */
    0x01, 0x00, 0x00, 0x05, /* 88: Template ID 256, Field Count 5 */
    0x00, 0x08, 0x00, 0x04, /* 92: sourceIPv4Address, 4 */
    0x00, 0x0c, 0x00, 0x04, /* 96: destinationIPv4Address, 4 */
    0x00, 0x01, 0x00, 0x08, /* 100: octetDeltaCount, 8 */
    0x80, 0x01, 0x00, 0x04, /* 104: enterprise bit | 1, 4 */
    0x00, 0x00, 0x7e, 0xd9, /* 108: PEN 32473 */
    0x00, 0x9c, 0x00, 0x08, /* 112: flowStartNanoseconds, 8 */
    /* Data Set 256: MSG1's record 1 */
    0x01, 0x00, 0x00, 0x20, /* 116: Set ID 256, Length 32 = 4 + 28 */
    0x0a, 0x00, 0x00, 0x01, /* 120: 10.0.0.1 */
    0x0a, 0x00, 0x00, 0x02, /* 124: 10.0.0.2 */
    0x00, 0x00, 0x01, 0x1f, /* 128: 1234567890123 */
    0x71, 0xfb, 0x04, 0xcb, /*      */
    0xde, 0xad, 0xbe, 0xef, /* 136: 0xdeadbeef */
    0xe8, 0xfe, 0x6f, 0x80, /* 140: NTP 1700000000.123456789 */
    0x1f, 0x9a, 0xdd, 0x37, /*      */
};

/* ------------------------------------------------------------ helpers */

static uint8_t *dup_exact(const uint8_t *b, size_t n) {
  /* an exact-size heap copy: ASan sees a read past the end */
  uint8_t *p = malloc(n ? n : 1);
  ck_assert_ptr_nonnull(p);
  if (n)
    memcpy(p, b, n);
  return p;
}

/* Read b with state st (exact-size copy): the return code; err filled. */
static int read1(ipr_state *st, const uint8_t *b, size_t n, ipr_msg *m,
                 char *err, size_t errlen) {
  uint8_t *p = dup_exact(b, n);
  int rc = ipr_read_msg(st, p, n, m, err, errlen);
  free(p);
  return rc;
}

/* b must be rejected by a fresh state (flags) with reason `want` and an
 * error message containing `why`. */
static void reject_st(ipr_state *st, const uint8_t *b, size_t n,
                      ipr_error want, const char *why, const char *what) {
  ipr_msg m;
  char err[256];
  int rc = read1(st, b, n, &m, err, sizeof(err));
  ck_assert_msg(rc == -1, "%s: accepted", what);
  ck_assert_msg(ipr_last_error(st) == want, "%s: %s (%s), want %s", what,
                ipr_error_name(ipr_last_error(st)), err, ipr_error_name(want));
  ck_assert_msg(strstr(err, why) != NULL, "%s: \"%s\" lacks \"%s\"", what, err,
                why);
  ck_assert_uint_eq(m.nsets, 0);
  ck_assert_uint_eq(m.nrecs, 0);
}

static void reject(const uint8_t *b, size_t n, ipr_error want, const char *why,
                   const char *what) {
  ipr_state *st = ipr_new(0);
  ck_assert_ptr_nonnull(st);
  reject_st(st, b, n, want, why, what);
  ck_assert_ptr_null(ipr_template_get(st, 42, 256));
  ck_assert_int_eq(ipr_domain_seq(st, 42, NULL, NULL), -1);
  ipr_free(st);
}

static void accept_st(ipr_state *st, const uint8_t *b, size_t n, ipr_msg *m,
                      const char *what) {
  char err[256];
  int rc = ipr_read_msg(st, b, n, m, err, sizeof(err));
  ck_assert_msg(rc == 0, "%s: rejected: %s", what, err);
  ck_assert_int_eq(ipr_last_error(st), IPR_OK);
}

static uint64_t u(const ipr_rec *r, uint32_t pen, uint16_t id) {
  size_t n;
  const uint8_t *p = ipr_find(r, pen, id, &n);
  uint64_t v = 0;
  ck_assert_msg(p != NULL, "no field (%u, %u)", (unsigned)pen, (unsigned)id);
  ck_assert_int_eq(ipr_get_uint(p, n, &v), 0);
  return v;
}

/* ------------------------------------------------------------ accepted */

START_TEST(test_msg1) {
  ipr_state *st = ipr_new(0);
  ipr_msg m;
  const ipr_template *t;
  const ipr_field *f, *fe;
  uint32_t a4, next;
  uint64_t nrec;
  int64_t ns;
  uint8_t *b = dup_exact(MSG1, sizeof(MSG1));
  accept_st(st, b, sizeof(MSG1), &m, "MSG1");
  /* header */
  ck_assert_uint_eq(m.hdr.version, 10);
  ck_assert_uint_eq(m.hdr.length, 108);
  ck_assert_uint_eq(ipr_msg_export_time(&m), 1700000000u);
  ck_assert_uint_eq(ipr_msg_seq(&m), 0);
  ck_assert_uint_eq(ipr_msg_domain(&m), 42);
  /* sets, in order */
  ck_assert_uint_eq(m.nsets, 2);
  ck_assert_uint_eq(m.sets[0].id, 2);
  ck_assert_uint_eq(m.sets[0].offset, 16);
  ck_assert_uint_eq(m.sets[0].length, 32);
  ck_assert_uint_eq(m.sets[0].count, 1);
  ck_assert_uint_eq(m.sets[0].padding, 0);
  ck_assert_uint_eq(m.sets[1].id, 256);
  ck_assert_uint_eq(m.sets[1].offset, 48);
  ck_assert_uint_eq(m.sets[1].length, 60);
  ck_assert_uint_eq(m.sets[1].count, 2);
  ck_assert_uint_eq(m.sets[1].first, 0);
  ck_assert_uint_eq(m.sets[1].padding, 0);
  /* the template record */
  ck_assert_uint_eq(m.ntdefs, 1);
  ck_assert_uint_eq(m.tdefs[0].tid, 256);
  ck_assert_uint_eq(m.tdefs[0].nfields, 5);
  ck_assert_uint_eq(m.tdefs[0].scope_count, 0);
  ck_assert_uint_eq(m.tdefs[0].offset, 20);
  ck_assert_uint_eq(m.tdefs[0].set, 0);
  /* the template as kept: fields 4 + 4 + 8 + 4 + 8 = 28 */
  t = ipr_template_get(st, 42, 256);
  ck_assert_ptr_nonnull(t);
  ck_assert_uint_eq(t->nfields, 5);
  ck_assert_uint_eq(t->scope_count, 0);
  ck_assert_uint_eq(t->min_len, 28);
  ck_assert_uint_eq(t->fields[3].id, 1);
  ck_assert_uint_eq(t->fields[3].pen, 32473);
  ck_assert_uint_eq(t->fields[3].tlen, 4);
  ck_assert_uint_eq(t->fields[4].id, 156);
  ck_assert_uint_eq(t->fields[4].pen, 0);
  ck_assert_ptr_null(ipr_template_get(st, 43, 256)); /* other domain */
  /* record 1, at 52 */
  ck_assert_uint_eq(m.nrecs, 2);
  ck_assert_uint_eq(m.recs[0].domain, 42);
  ck_assert_uint_eq(m.recs[0].tid, 256);
  ck_assert_uint_eq(m.recs[0].nfields, 5);
  ck_assert_uint_eq(m.recs[0].scope_count, 0);
  ck_assert_uint_eq(m.recs[0].offset, 52);
  ck_assert_uint_eq(m.recs[0].size, 28);
  ck_assert_uint_eq(m.recs[0].set, 1);
  f = ipr_find_field(&m.recs[0], 0, 8);
  ck_assert_ptr_nonnull(f);
  ck_assert_ptr_eq(f->data, b + 52);
  ck_assert_uint_eq(f->len, 4);
  ck_assert_uint_eq(f->prefix, 0);
  ck_assert_int_eq(ipr_get_ipv4(f->data, f->len, &a4), 0);
  ck_assert_uint_eq(a4, 0x0a000001u);
  ck_assert_uint_eq(u(&m.recs[0], 0, 12), 0x0a000002u);
  /* (0, 1) is octetDeltaCount, (32473, 1) the enterprise element */
  f = ipr_find_field(&m.recs[0], 0, 1);
  fe = ipr_find_field(&m.recs[0], 32473, 1);
  ck_assert_ptr_nonnull(f);
  ck_assert_ptr_nonnull(fe);
  ck_assert_ptr_eq(f->data, b + 60);
  ck_assert_uint_eq(f->len, 8);
  ck_assert_ptr_eq(fe->data, b + 68);
  ck_assert_uint_eq(fe->len, 4);
  ck_assert_uint_eq(u(&m.recs[0], 0, 1), 1234567890123ull);
  ck_assert_uint_eq(u(&m.recs[0], 32473, 1), 0xdeadbeefu);
  ck_assert_ptr_null(ipr_find_field(&m.recs[0], 0, 2));
  ck_assert_ptr_null(ipr_find_field(&m.recs[0], 32473, 8));
  ck_assert_ptr_null(ipr_find(&m.recs[0], 1, 1, NULL));
  /* flowStartNanoseconds: 1700000000 s + 123456789 ns */
  f = ipr_find_field(&m.recs[0], 0, 156);
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(ipr_get_ntp_ns(f->data, f->len, &ns), 0);
  ck_assert_int_eq(ns, T0_NS + 123456789);
  /* record 2, at 80 */
  ck_assert_uint_eq(m.recs[1].offset, 80);
  ck_assert_uint_eq(u(&m.recs[1], 0, 8), 0xc0a80101u);
  ck_assert_uint_eq(u(&m.recs[1], 0, 12), 0xc0a80102u);
  ck_assert_uint_eq(u(&m.recs[1], 0, 1), 1);
  ck_assert_uint_eq(u(&m.recs[1], 32473, 1), 7);
  f = ipr_find_field(&m.recs[1], 0, 156);
  ck_assert_int_eq(ipr_get_ntp_ns(f->data, f->len, &ns), 0);
  ck_assert_int_eq(ns, T0_NS + 999999999);
  /* sequence: 2 data records so far */
  ck_assert_int_eq(ipr_domain_seq(st, 42, &next, &nrec), 0);
  ck_assert_uint_eq(next, 2);
  ck_assert_uint_eq(nrec, 2);
  free(b);
  ipr_free(st);
}
END_TEST

/* The template outlives its message; the next message carries Sequence
 * Number 2; a template resent replaces itself. */
START_TEST(test_next_messages) {
  ipr_state *st = ipr_new(0);
  ipr_msg m;
  uint8_t b[76], c[108];
  uint32_t next;
  accept_st(st, MSG1, sizeof(MSG1), &m, "MSG1");
  data_only(b, 2, 42);
  accept_st(st, b, 76, &m, "data only, seq 2");
  ck_assert_uint_eq(m.nsets, 1);
  ck_assert_uint_eq(m.ntdefs, 0);
  ck_assert_uint_eq(m.nrecs, 2);
  ck_assert_uint_eq(u(&m.recs[1], 32473, 1), 7);
  ck_assert_int_eq(ipr_domain_seq(st, 42, &next, NULL), 0);
  ck_assert_uint_eq(next, 4);
  /* MSG1 again with Sequence Number 4 */
  memcpy(c, MSG1, sizeof(c));
  c[11] = 4;
  accept_st(st, c, sizeof(c), &m, "MSG1 resent, seq 4");
  ck_assert_int_eq(ipr_domain_seq(st, 42, &next, NULL), 0);
  ck_assert_uint_eq(next, 6);
  ck_assert_ptr_nonnull(ipr_template_get(st, 42, 256));
  ipr_free(st);
}
END_TEST

START_TEST(test_ntp) {
  /* 0xe8fe6f80 = 3908988800 = 1700000000 + 2208988800 */
  const uint64_t s = (uint64_t)0xe8fe6f80u << 32;
  static const uint8_t ms[8] = {0x00, 0x00, 0x01, 0x8b,
                                0xcf, 0xe5, 0x68, 0x7b};
  static const uint8_t ntp[8] = {0xe8, 0xfe, 0x6f, 0x80,
                                 0x00, 0x00, 0x00, 0x00};
  uint64_t v;
  int64_t ns;
  /* ns 0: fraction 0 */
  ck_assert_int_eq(ipr_ntp_to_unix_ns(s), T0_NS);
  /* ns 999999999: the nearest fraction 0xfffffffc (999999999.069 ns) and
   * the truncated one 0xfffffffb (999999998.836 ns, rounds up) */
  ck_assert_int_eq(ipr_ntp_to_unix_ns(s | 0xfffffffcu), T0_NS + 999999999);
  ck_assert_int_eq(ipr_ntp_to_unix_ns(s | 0xfffffffbu), T0_NS + 999999999);
  /* ns 123456789: fraction 0x1f9add37 = 530242871 is 123456788.948 ns */
  ck_assert_int_eq(ipr_ntp_to_unix_ns(s | 0x1f9add37u), T0_NS + 123456789);
  /* 0xffffffff is 999999999.767 ns: rounds into the next second */
  ck_assert_int_eq(ipr_ntp_to_unix_ns(s | 0xffffffffu), T0_NS + NS);
  /* 0x80000000 is 0.5 s exactly; 0x00400000 is 976562.5 ns (half up);
   * 1 is 0.23 ns */
  ck_assert_int_eq(ipr_ntp_to_unix_ns(s | 0x80000000u), T0_NS + NS / 2);
  ck_assert_int_eq(ipr_ntp_to_unix_ns(s | 0x00400000u), T0_NS + 976563);
  ck_assert_int_eq(ipr_ntp_to_unix_ns(s | 1u), T0_NS);
  /* the Unix epoch is NTP second 2208988800 = 0x83aa7e80; NTP 0 is
   * 1900-01-01, 2208988800 s before it */
  ck_assert_int_eq(ipr_ntp_to_unix_ns((uint64_t)0x83aa7e80u << 32), 0);
  ck_assert_int_eq(ipr_ntp_to_unix_ns(0), -2208988800LL * NS);
  /* the byte reader: 8 bytes only (no reduced size for time stamps) */
  ck_assert_int_eq(ipr_get_ntp_ns(ntp, 8, &ns), 0);
  ck_assert_int_eq(ns, T0_NS);
  ck_assert_int_eq(ipr_get_ntp_ns(ntp, 4, &ns), -1);
  /* dateTimeMilliseconds 1700000000123 = 0x0000018bcfe5687b */
  ck_assert_int_eq(ipr_get_ms(ms, 8, &v), 0);
  ck_assert_uint_eq(v, 1700000000123ull);
  ck_assert_int_eq(ipr_get_ms(ms, 7, &v), -1);
}
END_TEST

START_TEST(test_integers) {
  static const uint8_t b[8] = {0x80, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07};
  static const uint8_t m2[2] = {0xff, 0xfe};
  static const uint8_t p1[1] = {0x7f};
  static const uint8_t a6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
                                 0,    0,    0,    0,    0, 0, 0, 1};
  uint8_t v6[16];
  uint64_t v;
  int64_t s;
  uint32_t a;
  /* unsigned, reduced size: 3 bytes 80 01 02 = 0x800102 */
  ck_assert_int_eq(ipr_get_uint(b, 3, &v), 0);
  ck_assert_uint_eq(v, 0x800102u);
  ck_assert_int_eq(ipr_get_uint(b, 8, &v), 0);
  ck_assert_uint_eq(v, 0x8001020304050607ull);
  ck_assert_int_eq(ipr_get_uint(b, 1, &v), 0);
  ck_assert_uint_eq(v, 0x80);
  v = 99;
  ck_assert_int_eq(ipr_get_uint(b, 0, &v), -1);
  ck_assert_int_eq(ipr_get_uint(b, 9, &v), -1);
  ck_assert_uint_eq(v, 99);
  /* signed, sign-extended: ff fe = -2, 80 = -128, 7f = 127, 80 01 02 =
   * 0x800102 - 2^24 = 8388866 - 16777216 = -8388350 */
  ck_assert_int_eq(ipr_get_int(m2, 2, &s), 0);
  ck_assert_int_eq(s, -2);
  ck_assert_int_eq(ipr_get_int(b, 1, &s), 0);
  ck_assert_int_eq(s, -128);
  ck_assert_int_eq(ipr_get_int(p1, 1, &s), 0);
  ck_assert_int_eq(s, 127);
  ck_assert_int_eq(ipr_get_int(b, 3, &s), 0);
  ck_assert_int_eq(s, -8388350);
  /* 8 bytes 80 01 02 03 04 05 06 07 = 0x8001020304050607 - 2^64 */
  ck_assert_int_eq(ipr_get_int(b, 8, &s), 0);
  ck_assert_int_eq(s, (int64_t)(-0x7ffefdfcfbfaf9f9LL));
  ck_assert_int_eq(ipr_get_int(b, 0, &s), -1);
  /* addresses: exact lengths */
  ck_assert_int_eq(ipr_get_ipv4(b, 4, &a), 0);
  ck_assert_uint_eq(a, 0x80010203u);
  ck_assert_int_eq(ipr_get_ipv4(b, 3, &a), -1);
  ck_assert_int_eq(ipr_get_ipv6(a6, 16, v6), 0);
  ck_assert_mem_eq(v6, a6, 16);
  ck_assert_int_eq(ipr_get_ipv6(a6, 4, v6), -1);
  ck_assert_int_eq(ipr_get_seconds(b, 4, &a), 0);
  ck_assert_uint_eq(a, 0x80010203u);
}
END_TEST

START_TEST(test_varlen) {
  ipr_state *st = ipr_new(0);
  ipr_msg m;
  uint8_t *b = malloc(368);
  const ipr_field *f;
  size_t i, n = msgv(b);
  ck_assert_uint_eq(n, 368);
  accept_st(st, b, n, &m, "MSGV");
  ck_assert_uint_eq(ipr_template_get(st, 42, 257)->min_len, 5);
  ck_assert_uint_eq(m.nsets, 2);
  ck_assert_uint_eq(m.sets[1].count, 4);
  ck_assert_uint_eq(m.sets[1].padding, 2);
  ck_assert_uint_eq(m.nrecs, 4);
  /* 1-byte length */
  f = &m.recs[0].fields[0];
  ck_assert_uint_eq(f->id, 82);
  ck_assert_uint_eq(f->tlen, 65535);
  ck_assert_uint_eq(f->prefix, 1);
  ck_assert_uint_eq(f->len, 3);
  ck_assert_ptr_eq(f->data, b + 37);
  ck_assert_mem_eq(f->data, "eth", 3);
  ck_assert_uint_eq(m.recs[0].size, 8);
  ck_assert_uint_eq(u(&m.recs[0], 0, 10), 1);
  /* 3-byte length, 300 */
  f = &m.recs[1].fields[0];
  ck_assert_uint_eq(m.recs[1].offset, 44);
  ck_assert_uint_eq(f->prefix, 3);
  ck_assert_uint_eq(f->len, 300);
  ck_assert_ptr_eq(f->data, b + 47);
  for (i = 0; i < 300; i++)
    ck_assert_uint_eq(f->data[i], 'x');
  ck_assert_uint_eq(m.recs[1].size, 307);
  ck_assert_uint_eq(u(&m.recs[1], 0, 10), 2);
  /* 3-byte length of a short string */
  f = &m.recs[2].fields[0];
  ck_assert_uint_eq(m.recs[2].offset, 351);
  ck_assert_uint_eq(f->prefix, 3);
  ck_assert_uint_eq(f->len, 3);
  ck_assert_mem_eq(f->data, "abc", 3);
  ck_assert_uint_eq(u(&m.recs[2], 0, 10), 3);
  /* empty: found, length 0 */
  f = &m.recs[3].fields[0];
  ck_assert_uint_eq(m.recs[3].offset, 361);
  ck_assert_uint_eq(f->prefix, 1);
  ck_assert_uint_eq(f->len, 0);
  ck_assert_ptr_nonnull(ipr_find(&m.recs[3], 0, 82, NULL));
  ck_assert_uint_eq(u(&m.recs[3], 0, 10), 4);
  /* interfaceName cannot be at 10 bytes: a length 10 with 3 bytes and
   * ingressInterface left: data set 257 of 4 + 8 bytes (one record
   * attempt: 8 >= 5), message 16 + 16 + 12 = 44 */
  b[2] = 0;
  b[3] = 44;
  b[34] = 0;
  b[35] = 12;
  b[36] = 10;
  reject(b, 44, IPR_E_RECORD_OVERRUN, "runs past the end of the set",
         "variable length 10 with 7 bytes left");
  /* 255, then length 300 with 4 bytes left */
  b[36] = 0xff;
  b[37] = 0x01;
  b[38] = 0x2c;
  reject(b, 44, IPR_E_RECORD_OVERRUN, "runs past the end of the set",
         "3-byte length 300 with 5 bytes left");
  free(b);
  ipr_free(st);
}
END_TEST

START_TEST(test_rfc5610) {
  ipr_state *st = ipr_new(0);
  ipr_msg m;
  ipr_ietype t;
  char err[128];
  uint32_t next;
  size_t i, type_set = 99, tmpl_set = 99;
  accept_st(st, MSGT, sizeof(MSGT), &m, "MSGT");
  /* the sets in order: 3, 258, 2, 256 */
  ck_assert_uint_eq(m.nsets, 4);
  ck_assert_uint_eq(m.sets[0].id, 3);
  ck_assert_uint_eq(m.sets[0].padding, 2);
  ck_assert_uint_eq(m.sets[1].id, 258);
  ck_assert_uint_eq(m.sets[1].offset, 52);
  ck_assert_uint_eq(m.sets[1].padding, 3);
  ck_assert_uint_eq(m.sets[2].id, 2);
  ck_assert_uint_eq(m.sets[2].offset, 84);
  ck_assert_uint_eq(m.sets[3].id, 256);
  ck_assert_uint_eq(m.ntdefs, 2);
  ck_assert_uint_eq(m.tdefs[0].tid, 258);
  ck_assert_uint_eq(m.tdefs[0].nfields, 6);
  ck_assert_uint_eq(m.tdefs[0].scope_count, 2);
  ck_assert_uint_eq(m.tdefs[1].tid, 256);
  ck_assert_uint_eq(m.tdefs[1].set, 2);
  ck_assert_uint_eq(ipr_template_get(st, 42, 258)->scope_count, 2);
  /* the options template: 4 + 2 + 1 + 1 + 2 + 1 = 11 */
  ck_assert_uint_eq(ipr_template_get(st, 42, 258)->min_len, 11);
  /* the type record */
  ck_assert_uint_eq(m.nrecs, 2);
  ck_assert_uint_eq(m.recs[0].tid, 258);
  ck_assert_uint_eq(m.recs[0].scope_count, 2);
  ck_assert_uint_eq(m.recs[0].size, 25);
  ck_assert_int_eq(ipr_ietype_get(&m.recs[0], &t, err, sizeof(err)), 1);
  ck_assert_uint_eq(t.pen, 32473);
  ck_assert_uint_eq(t.id, 1);
  ck_assert_uint_eq(t.data_type, IPR_T_UNSIGNED32);
  ck_assert_uint_eq(t.semantics, IPR_S_QUANTITY);
  ck_assert_uint_eq(t.units, 2);
  ck_assert_uint_eq(t.have, IPR_HAVE_TYPE | IPR_HAVE_SEMANTICS |
                                IPR_HAVE_UNITS | IPR_HAVE_NAME);
  ck_assert_uint_eq(t.name_len, 14);
  ck_assert_mem_eq(t.name, "exampleCounter", 14);
  ck_assert_ptr_null(t.description);
  /* the data record is no type record */
  ck_assert_uint_eq(m.recs[1].tid, 256);
  ck_assert_int_eq(ipr_ietype_get(&m.recs[1], &t, err, sizeof(err)), 0);
  ck_assert_uint_eq(u(&m.recs[1], 32473, 1), 0xdeadbeefu);
  /* the type record's set comes before the set defining template 256 */
  for (i = 0; i < m.nsets; i++) {
    const ipr_set *s = &m.sets[i];
    if (s->id >= 256 && type_set == 99 &&
        ipr_ietype_get(&m.recs[s->first], &t, NULL, 0) == 1 &&
        t.pen == 32473 && t.id == 1)
      type_set = i;
    if (s->id == 2 && tmpl_set == 99)
      tmpl_set = i;
  }
  ck_assert_uint_eq(type_set, 1);
  ck_assert_uint_eq(tmpl_set, 2);
  /* options data records count: 1 + 1 */
  ck_assert_int_eq(ipr_domain_seq(st, 42, &next, NULL), 0);
  ck_assert_uint_eq(next, 2);
  ipr_free(st);
}
END_TEST

/* ipr_ietype_get on records built here (no message): what is a type
 * record and what is a malformed one. */
START_TEST(test_rfc5610_fields) {
  static const uint8_t pen[4] = {0, 0, 0x7e, 0xd9}, id[2] = {0, 1};
  static const uint8_t big[2] = {0x80, 0x01}, dt[1] = {3};
  static const uint8_t bad[2] = {0xc0, 0xaf}; /* overlong '/' */
  ipr_field f[5] = {
      {346, 4, 0, pen, 4, 0, 0},
      {303, 2, 0, id, 2, 0, 0},
      {339, 1, 0, dt, 1, 0, 0},
      {341, 65535, 0, (const uint8_t *)"n", 1, 1, 0},
      {340, 65535, 0, bad, 2, 1, 0},
  };
  ipr_rec r;
  ipr_ietype t;
  char err[128];
  memset(&r, 0, sizeof(r));
  r.scope_count = 2;
  r.nfields = 4;
  r.fields = f;
  ck_assert_int_eq(ipr_ietype_get(&r, &t, err, sizeof(err)), 1);
  ck_assert_uint_eq(t.have, IPR_HAVE_TYPE | IPR_HAVE_NAME);
  /* an invalid UTF-8 description */
  r.nfields = 5;
  ck_assert_int_eq(ipr_ietype_get(&r, &t, err, sizeof(err)), -1);
  ck_assert_ptr_nonnull(strstr(err, "UTF-8"));
  /* no name */
  r.nfields = 3;
  ck_assert_int_eq(ipr_ietype_get(&r, &t, err, sizeof(err)), -1);
  ck_assert_ptr_nonnull(strstr(err, "no informationElementName"));
  /* the data type twice */
  r.nfields = 4;
  f[3] = f[2];
  ck_assert_int_eq(ipr_ietype_get(&r, &t, err, sizeof(err)), -1);
  ck_assert_ptr_nonnull(strstr(err, "twice"));
  /* informationElementId 0x8001 > 32767 */
  f[3] = (ipr_field){341, 65535, 0, (const uint8_t *)"n", 1, 1, 0};
  f[1].data = big;
  ck_assert_int_eq(ipr_ietype_get(&r, &t, err, sizeof(err)), -1);
  ck_assert_ptr_nonnull(strstr(err, "32767"));
  f[1].data = id;
  /* not type records: one scope field, another scope element, a
   * non-scope element outside 339..345, an enterprise 339 */
  r.scope_count = 1;
  ck_assert_int_eq(ipr_ietype_get(&r, &t, err, sizeof(err)), 0);
  r.scope_count = 2;
  f[1].id = 304;
  ck_assert_int_eq(ipr_ietype_get(&r, &t, err, sizeof(err)), 0);
  f[1].id = 303;
  f[2].id = 338;
  ck_assert_int_eq(ipr_ietype_get(&r, &t, err, sizeof(err)), 0);
  f[2].id = 339;
  f[2].pen = 32473;
  ck_assert_int_eq(ipr_ietype_get(&r, &t, err, sizeof(err)), 0);
  f[2].pen = 0;
  ck_assert_int_eq(ipr_ietype_get(&r, &t, err, sizeof(err)), 1);
}
END_TEST

/* ------------------------------------------------------------ rejected */

START_TEST(test_reject_header) {
  uint8_t b[112];
  memcpy(b, MSG1, 108);
  b[1] = 0x09; /* Version 9 (NetFlow v9) */
  reject(b, 108, IPR_E_VERSION, "version 9", "version 9");
  b[1] = 0x0a;
  b[0] = 0x01; /* Version 0x010a */
  reject(b, 108, IPR_E_VERSION, "version 266", "version 266");
  b[0] = 0x00;
  /* Length lies */
  b[3] = 0x6d; /* 109 */
  reject(b, 108, IPR_E_LENGTH, "header length 109", "length 109 of 108");
  b[3] = 0x6b; /* 107 */
  reject(b, 108, IPR_E_LENGTH, "header length 107", "length 107 of 108");
  b[3] = 0x6c;
  reject(b, 107, IPR_E_LENGTH, "header length 108 but the message has 107",
         "108 bytes said, 107 given");
  b[108] = 0;
  reject(b, 109, IPR_E_LENGTH, "header length 108 but the message has 109",
         "108 bytes said, 109 given");
  reject(b, 15, IPR_E_SHORT, "shorter than the 16-byte", "15 bytes");
  reject(b, 0, IPR_E_SHORT, "shorter than the 16-byte", "0 bytes");
}
END_TEST

START_TEST(test_reject_sets) {
  static const uint16_t reserved[] = {0, 1, 4, 255};
  uint8_t b[112];
  size_t i;
  memcpy(b, MSG1, 108);
  /* the Data Set says 64 bytes; 60 are left */
  b[51] = 0x40;
  reject(b, 108, IPR_E_SET_OVERRUN, "set length 64 overruns",
         "data set overrun");
  b[51] = 0x3c;
  /* the Template Set says 96 bytes; 92 are left */
  b[19] = 0x60;
  reject(b, 108, IPR_E_SET_OVERRUN, "set length 96 overruns",
         "template set overrun");
  /* the Template Set says 28: the record's fifth field specifier (at 48)
   * is outside it */
  b[19] = 0x1c;
  reject(b, 108, IPR_E_TEMPLATE_OVERRUN, "field specifier 5 of 5",
         "template record overruns its set");
  b[19] = 0x20;
  /* Set Length 3 */
  b[51] = 0x03;
  reject(b, 108, IPR_E_SET_LENGTH, "set length 3 < 4", "set length 3");
  b[51] = 0x3c;
  /* reserved Set IDs at the Data Set (48) */
  for (i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++) {
    char why[32];
    b[48] = (uint8_t)(reserved[i] >> 8);
    b[49] = (uint8_t)reserved[i];
    snprintf(why, sizeof(why), "reserved set id %u", (unsigned)reserved[i]);
    reject(b, 108, IPR_E_SET_ID, why, why);
  }
  b[48] = 0x01;
  b[49] = 0x00;
  /* 2 bytes after the last Set: Length 110 */
  b[3] = 0x6e;
  b[108] = b[109] = 0;
  reject(b, 110, IPR_E_SET_HEADER, "2 bytes after the last set",
         "trailing bytes");
  /* an empty Data Set: Length 4, message 16 + 32 + 4 = 52 */
  b[3] = 0x34;
  b[51] = 0x04;
  reject(b, 52, IPR_E_EMPTY_SET, "set 256 holds no record", "empty data set");
  /* an empty Template Set: message 16 + 4 = 20 */
  memcpy(b, MSG1, 20);
  b[3] = 0x14;
  b[19] = 0x04;
  reject(b, 20, IPR_E_EMPTY_SET, "set 2 holds no record",
         "empty template set");
  /* a Template Set of 4 + 6 bytes, not zero: a template record cut short
   * (the smallest is 8 bytes) */
  memcpy(b, MSG1, 26);
  b[3] = 0x1a;  /* 26 */
  b[19] = 0x0a; /* 10 */
  reject(b, 26, IPR_E_TEMPLATE_OVERRUN, "fewer than its smallest record",
         "template record cut short");
}
END_TEST

START_TEST(test_reject_order) {
  uint8_t b[108];
  /* the Data Set (60 bytes) before the Template Set (32) */
  memcpy(b, MSG1, 16);
  memcpy(b + 16, MSG1 + 48, 60);
  memcpy(b + 76, MSG1 + 16, 32);
  reject(b, 108, IPR_E_UNKNOWN_TEMPLATE, "before its template",
         "data set before its template");
  /* a Data Set whose template never came */
  data_only(b, 0, 42);
  reject(b, 76, IPR_E_UNKNOWN_TEMPLATE,
         "data set 256 of domain 42: no such "
         "template",
         "no template");
}
END_TEST

START_TEST(test_reject_template) {
  /* A Template Set that ends inside an Enterprise Number: 28 bytes. */
  static const uint8_t pen_cut[30] = {
      0x00, 0x0a, 0x00, 0x1c, /* Version 10, Length 28 */
      0x65, 0x53, 0xf1, 0x00, /* Export Time */
      0x00, 0x00, 0x00, 0x00, /* Sequence Number 0 */
      0x00, 0x00, 0x00, 0x2a, /* domain 42 */
      0x00, 0x02, 0x00, 0x0c, /* 16: Template Set, Length 12 */
      0x01, 0x00, 0x00, 0x01, /* 20: Template ID 256, Field Count 1 */
      0x80, 0x01, 0x00, 0x04, /* 24: enterprise bit | 1, 4: PEN missing */
      0x00, 0x00,             /* 28: half a PEN (the 30-byte variant) */
  };
  uint8_t b[112];
  reject(pen_cut, 28, IPR_E_PEN_TRUNCATED, "within its enterprise number",
         "enterprise bit, no PEN");
  memcpy(b, pen_cut, 30);
  b[3] = 0x1e;  /* Length 30 */
  b[19] = 0x0e; /* Set Length 14: 2 bytes of PEN */
  reject(b, 30, IPR_E_PEN_TRUNCATED, "within its enterprise number",
         "enterprise bit, half a PEN");
  memcpy(b, MSG1, 108);
  /* Template ID 255 */
  b[20] = 0x00;
  b[21] = 0xff;
  reject(b, 108, IPR_E_TEMPLATE_ID, "template id 255 < 256",
         "template id 255");
  b[21] = 0x00; /* Template ID 0 */
  reject(b, 108, IPR_E_TEMPLATE_ID, "template id 0 < 256", "template id 0");
  b[20] = 0x01;
  /* Field Count 0 */
  b[23] = 0x00;
  reject(b, 108, IPR_E_FIELD_COUNT, "field count 0", "field count 0");
  b[23] = 0x05;
  /* Enterprise Number 0 with the enterprise bit */
  b[42] = b[43] = 0x00;
  reject(b, 108, IPR_E_PEN_ZERO, "enterprise number 0", "PEN 0");
  b[42] = 0x7e;
  b[43] = 0xd9;
  /* information element 0 */
  b[25] = 0x00;
  reject(b, 108, IPR_E_IE_ID, "information element 0", "ie 0");
  b[25] = 0x08;
  /* Field Length 0 (octetDeltaCount) */
  b[35] = 0x00;
  reject(b, 108, IPR_E_FIELD_LENGTH, "field length 0", "length 0");
  /* octetDeltaCount of 9 bytes; of 4 (reduced size) is fine but changes
   * the record: not tried here */
  b[35] = 0x09;
  reject(b, 108, IPR_E_FIELD_LENGTH, "ie 1 of data type 4", "u64 in 9");
  b[35] = 0x08;
  /* sourceIPv4Address in 5 bytes, or variable */
  b[27] = 0x05;
  reject(b, 108, IPR_E_FIELD_LENGTH, "ie 8 of data type 18", "ipv4 in 5");
  b[26] = b[27] = 0xff;
  reject(b, 108, IPR_E_FIELD_LENGTH, "field length 65535", "ipv4 varlen");
  b[26] = 0x00;
  b[27] = 0x04;
  /* flowStartNanoseconds in 4 bytes */
  b[47] = 0x04;
  reject(b, 108, IPR_E_FIELD_LENGTH, "ie 156 of data type 17",
         "ns timestamp in 4");
  b[47] = 0x08;
  /* the enterprise field (length at 38) of 65000 bytes: a record of
   * 4 + 4 + 8 + 65000 + 8 = 65024 fits in a message (at most 65535 - 16 -
   * 4 = 65515) but not in the 56 bytes of this Data Set */
  b[38] = 0xfd;
  b[39] = 0xe8;
  reject(b, 108, IPR_E_RECORD_OVERRUN,
         "fewer than its smallest record "
         "(65024 bytes)",
         "a record longer than its set");
  /* 65534 bytes: 4 + 4 + 8 + 65534 + 8 = 65558 > 65515 */
  b[38] = 0xff;
  b[39] = 0xfe;
  reject(b, 108, IPR_E_RECORD_SIZE, "(65558 bytes) cannot fit in a message",
         "a record longer than a message");
}
END_TEST

START_TEST(test_reject_options_template) {
  uint8_t b[148];
  memcpy(b, MSGT, sizeof(b));
  b[25] = 0x00; /* Scope Field Count 0 */
  reject(b, 148, IPR_E_SCOPE_COUNT, "scope field count 0", "scope 0");
  b[25] = 0x07; /* 7 > Field Count 6 */
  reject(b, 148, IPR_E_SCOPE_COUNT, "scope field count 7", "scope 7 of 6");
  b[25] = 0x06; /* all six scope: fine */
  {
    ipr_state *st = ipr_new(0);
    ipr_msg m;
    ipr_ietype t;
    accept_st(st, b, 148, &m, "six scope fields");
    ck_assert_int_eq(ipr_ietype_get(&m.recs[0], &t, NULL, 0), 0);
    ipr_free(st);
  }
  b[25] = 0x02;
  b[51] = 0x01; /* nonzero padding of the Options Template Set */
  reject(b, 148, IPR_E_PADDING, "set 3: nonzero padding", "options pad");
}
END_TEST

START_TEST(test_reject_padding) {
  uint8_t b[140];
  ipr_state *st;
  ipr_msg m;
  /* MSG1 with 4 bytes after the records of its Data Set: Length 112,
   * Set Length 64; 4 < 28, the smallest record */
  memcpy(b, MSG1, 108);
  b[3] = 0x70;
  b[51] = 0x40;
  memset(b + 108, 0, 4);
  st = ipr_new(0);
  accept_st(st, b, 112, &m, "zero padding");
  ck_assert_uint_eq(m.sets[1].padding, 4);
  ck_assert_uint_eq(m.nrecs, 2);
  ipr_free(st);
  b[111] = 0x01;
  reject(b, 112, IPR_E_PADDING, "set 256: nonzero padding", "pad 00000001");
  b[111] = 0x00;
  b[108] = 0x80;
  reject(b, 112, IPR_E_PADDING, "offset 108:", "pad 80000000");
  /* 28 more bytes are a third record, not padding */
  memset(b + 108, 0, 32);
  b[3] = 0x8c;  /* 140 */
  b[51] = 0x5c; /* 92 = 4 + 3 * 28 + 4 */
  st = ipr_new(0);
  accept_st(st, b, 140, &m, "a record of zeros");
  ck_assert_uint_eq(m.nrecs, 3);
  ck_assert_uint_eq(m.sets[1].padding, 4);
  ipr_free(st);
  /* the Template Set with 4 bytes of zeros after its record (< 8) is
   * fine; 8 bytes are a record with Template ID 0 */
  memcpy(b, MSG1, 16);
  memcpy(b + 16, MSG1 + 16, 32);
  memset(b + 48, 0, 8);
  memcpy(b + 56, MSG1 + 48, 60);
  b[3] = 0x74;  /* 116 */
  b[19] = 0x28; /* 40 */
  reject(b, 116, IPR_E_TEMPLATE_ID, "template id 0", "8 zero bytes");
  memmove(b + 52, b + 56, 60);
  b[3] = 0x70;  /* 112 */
  b[19] = 0x24; /* 36 */
  st = ipr_new(0);
  accept_st(st, b, 112, &m, "template set padding");
  ck_assert_uint_eq(m.sets[0].padding, 4);
  ipr_free(st);
  b[50] = 0x01;
  reject(b, 112, IPR_E_PADDING, "set 2: nonzero padding", "template pad");
}
END_TEST

START_TEST(test_reject_sequence) {
  ipr_state *st = ipr_new(0);
  ipr_msg m;
  uint8_t b[108];
  uint32_t next;
  uint64_t n;
  /* the first message of a domain carries 0 */
  memcpy(b, MSG1, sizeof(b));
  b[11] = 5;
  reject_st(st, b, 108, IPR_E_SEQUENCE,
            "sequence number mismatch: 5, "
            "expected 0",
            "first message seq 5");
  accept_st(st, MSG1, 108, &m, "MSG1");
  /* after 2 records, 3 is wrong, and so is 0 */
  data_only(b, 3, 42);
  reject_st(st, b, 76, IPR_E_SEQUENCE, "3, expected 2", "seq 3");
  data_only(b, 0, 42);
  reject_st(st, b, 76, IPR_E_SEQUENCE, "0, expected 2", "seq 0");
  /* the rejections changed nothing */
  ck_assert_int_eq(ipr_domain_seq(st, 42, &next, &n), 0);
  ck_assert_uint_eq(next, 2);
  ck_assert_uint_eq(n, 2);
  data_only(b, 2, 42);
  accept_st(st, b, 76, &m, "seq 2");
  /* another domain has its own count and templates */
  data_only(b, 0, 43);
  reject_st(st, b, 76, IPR_E_UNKNOWN_TEMPLATE, "domain 43", "domain 43");
  ipr_free(st);
  /* IPR_F_ANY_FIRST_SEQ: the first number is taken, then counted */
  st = ipr_new(IPR_F_ANY_FIRST_SEQ);
  memcpy(b, MSG1, sizeof(b));
  b[8] = 0xff;
  b[9] = 0xff;
  b[10] = 0xff;
  b[11] = 0xff; /* 2^32 - 1: the next is 1 (modulo 2^32) */
  accept_st(st, b, 108, &m, "seq 0xffffffff");
  ck_assert_int_eq(ipr_domain_seq(st, 42, &next, NULL), 0);
  ck_assert_uint_eq(next, 1);
  data_only(b, 2, 42);
  reject_st(st, b, 76, IPR_E_SEQUENCE, "2, expected 1", "after the wrap");
  data_only(b, 1, 42);
  accept_st(st, b, 76, &m, "seq 1 after the wrap");
  ipr_free(st);
  /* IPR_F_NO_SEQ: anything */
  st = ipr_new(IPR_F_NO_SEQ);
  accept_st(st, MSG1, 108, &m, "MSG1");
  data_only(b, 77, 42);
  accept_st(st, b, 76, &m, "seq 77 unchecked");
  ipr_free(st);
}
END_TEST

/* A rejected message leaves no template behind. */
START_TEST(test_reject_rollback) {
  ipr_state *st = ipr_new(0);
  ipr_msg m;
  uint8_t b[112], c[368];
  memcpy(b, MSG1, 108);
  b[3] = 0x70;
  b[51] = 0x40;
  memset(b + 108, 0, 4);
  b[111] = 0x01; /* the nonzero padding after template 256's records */
  reject_st(st, b, 112, IPR_E_PADDING, "nonzero padding", "bad padding");
  ck_assert_ptr_null(ipr_template_get(st, 42, 256));
  ck_assert_int_eq(ipr_domain_seq(st, 42, NULL, NULL), -1);
  /* with 257 known, a message redefining 256 and failing keeps 257 and
   * does not get 256 */
  msgv(c);
  accept_st(st, c, 368, &m, "MSGV");
  b[11] = 4; /* MSGV had 4 records */
  reject_st(st, b, 112, IPR_E_PADDING, "nonzero padding", "bad padding 2");
  ck_assert_ptr_null(ipr_template_get(st, 42, 256));
  ck_assert_ptr_nonnull(ipr_template_get(st, 42, 257));
  b[111] = 0x00;
  accept_st(st, b, 112, &m, "good padding");
  ck_assert_ptr_nonnull(ipr_template_get(st, 42, 256));
  ck_assert_ptr_nonnull(ipr_template_get(st, 42, 257));
  ipr_reset(st);
  ck_assert_ptr_null(ipr_template_get(st, 42, 256));
  ck_assert_int_eq(ipr_domain_seq(st, 42, NULL, NULL), -1);
  ipr_free(st);
}
END_TEST

/* 64 templates fit in a state, the 65th does not. Each template record
 * is 8 bytes: Template ID 256 + i, Field Count 1, sourceIPv4Address (8),
 * 4 bytes. */
START_TEST(test_limits) {
  uint8_t b[16 + 4 + 65 * 8];
  ipr_state *st = ipr_new(0);
  ipr_msg m;
  size_t i, n = sizeof(b);
  memcpy(b, MSG1, 16);
  b[2] = (uint8_t)(n >> 8);
  b[3] = (uint8_t)n;
  b[16] = 0x00;
  b[17] = 0x02;
  b[18] = (uint8_t)((n - 16) >> 8);
  b[19] = (uint8_t)(n - 16);
  for (i = 0; i < 65; i++) {
    uint8_t *r = b + 20 + 8 * i;
    r[0] = (uint8_t)((256 + i) >> 8);
    r[1] = (uint8_t)(256 + i);
    r[2] = 0x00;
    r[3] = 0x01;
    r[4] = 0x00;
    r[5] = 0x08;
    r[6] = 0x00;
    r[7] = 0x04;
  }
  reject_st(st, b, n, IPR_E_LIMIT, "at most 64 templates", "65 templates");
  n -= 8;
  b[2] = (uint8_t)(n >> 8);
  b[3] = (uint8_t)n;
  b[18] = (uint8_t)((n - 16) >> 8);
  b[19] = (uint8_t)(n - 16);
  accept_st(st, b, n, &m, "64 templates");
  ck_assert_uint_eq(m.ntdefs, 64);
  ck_assert_uint_eq(m.sets[0].count, 64);
  ck_assert_ptr_nonnull(ipr_template_get(st, 42, 319));
  ipr_free(st);
}
END_TEST

START_TEST(test_types) {
  static const uint8_t ok[] = {'a',  0xc3, 0xa9, 0xe2, 0x82,
                               0xac, 0xf0, 0x9f, 0x98, 0x80};
  static const uint8_t sur[] = {0xed, 0xa0, 0x80};
  static const uint8_t over[] = {0xe0, 0x80, 0xaf};
  static const uint8_t big[] = {0xf4, 0x90, 0x80, 0x80};
  static const uint8_t cut[] = {0xe2, 0x82};
  ck_assert_int_eq(ipr_utf8_valid(ok, sizeof(ok)), 1); /* a é € 😀 */
  ck_assert_int_eq(ipr_utf8_valid(ok, 0), 1);
  ck_assert_int_eq(ipr_utf8_valid(sur, sizeof(sur)), 0); /* U+D800 */
  ck_assert_int_eq(ipr_utf8_valid(over, sizeof(over)), 0);
  ck_assert_int_eq(ipr_utf8_valid(big, sizeof(big)), 0); /* U+110000 */
  ck_assert_int_eq(ipr_utf8_valid(cut, sizeof(cut)), 0);
  ck_assert_int_eq(ipr_ie_type(8), IPR_T_IPV4ADDRESS);
  ck_assert_int_eq(ipr_ie_type(156), IPR_T_DATETIMENANOSECONDS);
  ck_assert_int_eq(ipr_ie_type(341), IPR_T_STRING);
  ck_assert_int_eq(ipr_ie_type(20000), -1);
  ck_assert_int_eq(ipr_type_len_ok(IPR_T_UNSIGNED64, 3), 1);
  ck_assert_int_eq(ipr_type_len_ok(IPR_T_UNSIGNED64, 9), 0);
  ck_assert_int_eq(ipr_type_len_ok(IPR_T_UNSIGNED64, 65535), 0);
  ck_assert_int_eq(ipr_type_len_ok(IPR_T_FLOAT64, 4), 1);
  ck_assert_int_eq(ipr_type_len_ok(IPR_T_FLOAT32, 8), 0);
  ck_assert_int_eq(ipr_type_len_ok(IPR_T_STRING, 65535), 1);
  ck_assert_int_eq(ipr_type_len_ok(-1, 65535), 1);
  ck_assert_int_eq(ipr_type_len_ok(-1, 0), 0);
  ck_assert_str_eq(ipr_error_name(IPR_E_PADDING), "IPR_E_PADDING");
}
END_TEST

/* ------------------------------------------------------------ robustness */

/* After an accepted read every record and field lies inside the buffer. */
static void check_inside(const ipr_msg *m, const uint8_t *b, size_t n) {
  size_t i, k;
  for (i = 0; i < m->nsets; i++)
    ck_assert(m->sets[i].offset + m->sets[i].length <= n);
  for (i = 0; i < m->nrecs; i++) {
    const ipr_rec *r = &m->recs[i];
    ck_assert(r->offset + r->size <= n);
    for (k = 0; k < r->nfields; k++) {
      const ipr_field *f = &r->fields[k];
      ck_assert(f->data >= b + r->offset);
      ck_assert(f->data + f->len <= b + r->offset + r->size);
    }
  }
}

static void one(ipr_state *st, const uint8_t *src, size_t n) {
  ipr_msg m;
  char err[96];
  uint8_t *b = dup_exact(src, n);
  int rc = ipr_read_msg(st, b, n, &m, err, sizeof(err));
  if (rc == 0) {
    check_inside(&m, b, n);
  } else {
    ck_assert_int_eq(rc, -1);
    ck_assert(ipr_last_error(st) != IPR_OK);
    ck_assert(strlen(err) > 0);
  }
  free(b);
}

/* Every truncation (its Length patched to match, so that the sets get
 * read) and every byte of the three messages set to 0x00, 0xff, its
 * complement, +1 and -1. */
START_TEST(test_mutations) {
  static uint8_t v[368];
  const struct {
    const uint8_t *b;
    size_t n;
  } msgs[] = {{MSG1, sizeof(MSG1)}, {v, 368}, {MSGT, sizeof(MSGT)}};
  ipr_state *st = ipr_new(IPR_F_NO_SEQ);
  uint8_t w[368];
  size_t k, i, j;
  msgv(v);
  for (k = 0; k < sizeof(msgs) / sizeof(msgs[0]); k++) {
    size_t n = msgs[k].n;
    for (i = 0; i <= n; i++) {
      memcpy(w, msgs[k].b, n);
      one(st, w, i);
      if (i >= 4) {
        w[2] = (uint8_t)(i >> 8);
        w[3] = (uint8_t)i;
        one(st, w, i);
      }
      ipr_reset(st);
    }
    for (i = 0; i < n; i++)
      for (j = 0; j < 5; j++) {
        uint8_t o = msgs[k].b[i];
        const uint8_t nv[5] = {0x00, 0xff, (uint8_t)~o, (uint8_t)(o + 1),
                               (uint8_t)(o - 1)};
        memcpy(w, msgs[k].b, n);
        w[i] = nv[j];
        one(st, w, n);
        ipr_reset(st);
      }
  }
  ipr_free(st);
}
END_TEST

/* Random sets behind a valid header, with a template known: a fixed LCG
 * (Knuth's MMIX constants), set ids biased to 2, 3 and 256. */
START_TEST(test_random) {
  ipr_state *st = ipr_new(IPR_F_NO_SEQ);
  uint64_t x = 0x9e3779b97f4a7c15ull;
  uint8_t b[600];
  ipr_msg m;
  int iter;
  for (iter = 0; iter < 20000; iter++) {
    size_t n, o;
    if (iter % 64 == 0) {
      ipr_reset(st);
      accept_st(st, MSG1, sizeof(MSG1), &m, "MSG1");
    }
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    n = 16 + (size_t)(x >> 33) % (sizeof(b) - 16);
    memcpy(b, MSG1, 16);
    b[2] = (uint8_t)(n >> 8);
    b[3] = (uint8_t)n;
    for (o = 16; o < n; o++) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      b[o] = (uint8_t)(x >> 56);
      if ((x >> 40 & 7) == 0)
        b[o] = 0;
    }
    if (n >= 20) {
      static const uint16_t ids[4] = {2, 3, 256, 256};
      uint16_t id = ids[(x >> 20) & 3];
      b[16] = (uint8_t)(id >> 8);
      b[17] = (uint8_t)id;
      if ((x >> 24 & 1) == 0) { /* a Set Length that fits */
        b[18] = (uint8_t)((n - 16) >> 8);
        b[19] = (uint8_t)(n - 16);
      }
    }
    one(st, b, n);
  }
  ipr_free(st);
}
END_TEST

static Suite *ipfix_read_suite(void) {
  Suite *s = suite_create("ipfix_read");
  TCase *tc = tcase_create("accept");
  TCase *tr = tcase_create("reject");
  TCase *tz = tcase_create("robustness");
  tcase_add_test(tc, test_msg1);
  tcase_add_test(tc, test_next_messages);
  tcase_add_test(tc, test_ntp);
  tcase_add_test(tc, test_integers);
  tcase_add_test(tc, test_varlen);
  tcase_add_test(tc, test_rfc5610);
  tcase_add_test(tc, test_rfc5610_fields);
  tcase_add_test(tc, test_types);
  tcase_add_test(tr, test_reject_header);
  tcase_add_test(tr, test_reject_sets);
  tcase_add_test(tr, test_reject_order);
  tcase_add_test(tr, test_reject_template);
  tcase_add_test(tr, test_reject_options_template);
  tcase_add_test(tr, test_reject_padding);
  tcase_add_test(tr, test_reject_sequence);
  tcase_add_test(tr, test_reject_rollback);
  tcase_add_test(tr, test_limits);
  tcase_add_test(tz, test_mutations);
  tcase_add_test(tz, test_random);
  tcase_set_timeout(tz, 120);
  suite_add_tcase(s, tc);
  suite_add_tcase(s, tr);
  suite_add_tcase(s, tz);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(ipfix_read_suite());
  int failed;
  srunner_run_all(sr, CK_ENV);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
