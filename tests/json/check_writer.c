/* SPDX-License-Identifier: MIT */
/*
 * The record writer of the example programs (examples/rtel-json.c): its
 * formatters against hand-written strings (what printf and glibc's
 * inet_ntop print for the same values: 0, the limits of each type, IPv4
 * and every IPv6 form, zero compression included), and against printf and
 * inet_ntop themselves over many values; JSON string escapes and whole
 * records written by hand.
 */
#define _DEFAULT_SOURCE 1

#include <arpa/inet.h>
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtel-json.h"

/* The formatter |call| (writing at |buf|), NUL-terminated. */
#define FMT(buf, call) (*(call) = '\0', (buf))

static const char *u64(char *b, uint64_t v) {
  return FMT(b, rj_fmt_u64(b, v));
}
static const char *i64(char *b, int64_t v) { return FMT(b, rj_fmt_i64(b, v)); }
static const char *hex(char *b, uint64_t v) {
  return FMT(b, rj_fmt_hex(b, v));
}
static const char *hexa(char *b, uint64_t v) {
  return FMT(b, rj_fmt_hex_alt(b, v));
}
static const char *zero(char *b, uint64_t v, int w) {
  return FMT(b, rj_fmt_u64_zero(b, v, w));
}
static const char *real9(char *b, double v) {
  return FMT(b, rj_fmt_real9(b, v));
}

START_TEST(test_integers) {
  char b[64];
  ck_assert_str_eq(u64(b, 0), "0");
  ck_assert_str_eq(u64(b, 7), "7");
  ck_assert_str_eq(u64(b, 10), "10");
  ck_assert_str_eq(u64(b, 99), "99");
  ck_assert_str_eq(u64(b, 100), "100");
  ck_assert_str_eq(u64(b, 4294967295u), "4294967295");
  ck_assert_str_eq(u64(b, 10000000000000000000u), "10000000000000000000");
  ck_assert_str_eq(u64(b, UINT64_MAX), "18446744073709551615");
  ck_assert_int_eq((int)(rj_fmt_u64(b, UINT64_MAX) - b), RJ_U64_MAX);
  ck_assert_str_eq(i64(b, 0), "0");
  ck_assert_str_eq(i64(b, -1), "-1");
  ck_assert_str_eq(i64(b, -1000), "-1000");
  ck_assert_str_eq(i64(b, INT64_MAX), "9223372036854775807");
  ck_assert_str_eq(i64(b, INT64_MIN), "-9223372036854775808");
  ck_assert_int_eq((int)(rj_fmt_i64(b, INT64_MIN) - b), RJ_I64_MAX);
  ck_assert_str_eq(zero(b, 0, 3), "000");
  ck_assert_str_eq(zero(b, 5, 3), "005");
  ck_assert_str_eq(zero(b, 999, 3), "999");
  ck_assert_str_eq(zero(b, 1234, 3), "1234");
  ck_assert_str_eq(zero(b, 1, 9), "000000001");
  ck_assert_str_eq(zero(b, 0, 0), "0");
  ck_assert_str_eq(hex(b, 0), "0");
  ck_assert_str_eq(hex(b, 0xabcdefu), "abcdef");
  ck_assert_str_eq(hex(b, 0x10u), "10");
  ck_assert_str_eq(hex(b, UINT64_MAX), "ffffffffffffffff");
  ck_assert_str_eq(hexa(b, 0), "0"); /* "%#x" of 0: no "0x" */
  ck_assert_str_eq(hexa(b, 1), "0x1");
  ck_assert_str_eq(hexa(b, 0xffffffu), "0xffffff");
  ck_assert_str_eq(hexa(b, 0xffffffffu), "0xffffffff");
  ck_assert_str_eq(hexa(b, UINT64_MAX), "0xffffffffffffffff");
  ck_assert_int_eq((int)(rj_fmt_hex_alt(b, UINT64_MAX) - b), RJ_HEX_MAX);
}
END_TEST

/* The same against printf, over values around every power of 2 and 10. */
START_TEST(test_integers_printf) {
  char b[64], want[64];
  int k, d;
  for (k = 0; k < 64; k++) {
    for (d = -2; d <= 2; d++) {
      uint64_t v = ((uint64_t)1 << k) + (uint64_t)(int64_t)d;
      snprintf(want, sizeof(want), "%" PRIu64, v);
      ck_assert_str_eq(u64(b, v), want);
      snprintf(want, sizeof(want), "%" PRId64, (int64_t)v);
      ck_assert_str_eq(i64(b, (int64_t)v), want);
      snprintf(want, sizeof(want), "%" PRIx64, v);
      ck_assert_str_eq(hex(b, v), want);
      snprintf(want, sizeof(want), "%#" PRIx64, v);
      ck_assert_str_eq(hexa(b, v), want);
      snprintf(want, sizeof(want), "%09" PRIu64, v % 1000000000u);
      ck_assert_str_eq(zero(b, v % 1000000000u, 9), want);
    }
  }
  {
    uint64_t p = 1;
    for (k = 0; k < 20; k++, p *= 10u) {
      for (d = -1; d <= 1; d++) {
        uint64_t v = p + (uint64_t)(int64_t)d;
        snprintf(want, sizeof(want), "%" PRIu64, v);
        ck_assert_str_eq(u64(b, v), want);
        snprintf(want, sizeof(want), "%" PRId64, -(int64_t)(v >> 1));
        ck_assert_str_eq(i64(b, -(int64_t)(v >> 1)), want);
      }
    }
  }
}
END_TEST

static const char *ip4(char *b, uint8_t a0, uint8_t a1, uint8_t a2,
                       uint8_t a3) {
  const uint8_t a[4] = {a0, a1, a2, a3};
  return FMT(b, rj_fmt_ipv4(b, a));
}

/* An IPv6 address from its 8 groups. */
static const char *ip6(char *b, const uint16_t *w) {
  uint8_t a[16];
  int i;
  for (i = 0; i < 8; i++) {
    a[2 * i] = (uint8_t)(w[i] >> 8);
    a[2 * i + 1] = (uint8_t)w[i];
  }
  return FMT(b, rj_fmt_ipv6(b, a));
}

START_TEST(test_addresses) {
  static const struct {
    uint16_t w[8];
    const char *s;
  } v6[] = {
      {{0, 0, 0, 0, 0, 0, 0, 0}, "::"},
      {{0, 0, 0, 0, 0, 0, 0, 1}, "::1"},
      {{1, 0, 0, 0, 0, 0, 0, 0}, "1::"},
      {{0x2001, 0xdb8, 0, 0, 0, 0, 0, 1}, "2001:db8::1"},
      /* one zero group is not compressed */
      {{0x2001, 0xdb8, 0, 1, 1, 1, 1, 1}, "2001:db8:0:1:1:1:1:1"},
      /* the longest run; of two equal ones, the first */
      {{0x2001, 0, 0, 1, 0, 0, 0, 1}, "2001:0:0:1::1"},
      {{1, 0, 0, 2, 0, 0, 3, 4}, "1::2:0:0:3:4"},
      {{1, 0, 0, 0, 1, 0, 0, 0}, "1::1:0:0:0"},
      {{0, 0, 1, 0, 0, 0, 0, 0}, "0:0:1::"},
      {{0xfe80, 0, 0, 0, 0, 0, 1, 2}, "fe80::1:2"},
      {{1, 2, 3, 4, 5, 6, 7, 8}, "1:2:3:4:5:6:7:8"},
      {{0xabcd, 0xef01, 0x2345, 0x6789, 0xabcd, 0xef01, 0x2345, 0x6789},
       "abcd:ef01:2345:6789:abcd:ef01:2345:6789"},
      {{0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff},
       "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"},
      /* IPv4-mapped and IPv4-compatible: dotted decimal at the end */
      {{0, 0, 0, 0, 0, 0xffff, 0x0a01, 0x0203}, "::ffff:10.1.2.3"},
      {{0, 0, 0, 0, 0, 0xffff, 0, 0}, "::ffff:0.0.0.0"},
      {{0, 0, 0, 0, 0, 0xffff, 0xffff, 0xffff}, "::ffff:255.255.255.255"},
      {{0, 0, 0, 0, 0, 0, 0x0a01, 0x0203}, "::10.1.2.3"},
      {{0, 0, 0, 0, 0, 0, 1, 0}, "::0.1.0.0"},
      /* not those: a group before the zeros, or not ffff */
      {{0, 0, 0, 0, 1, 0xffff, 0x0a01, 0x0203}, "::1:ffff:a01:203"},
      {{0, 0, 0, 0, 0, 0xfffe, 0x0a01, 0x0203}, "::fffe:a01:203"},
      {{0, 0, 0, 0, 0xffff, 0, 0x0a01, 0x0203}, "::ffff:0:a01:203"},
  };
  char b[64];
  size_t i;
  ck_assert_str_eq(ip4(b, 0, 0, 0, 0), "0.0.0.0");
  ck_assert_str_eq(ip4(b, 255, 255, 255, 255), "255.255.255.255");
  ck_assert_str_eq(ip4(b, 10, 0, 0, 1), "10.0.0.1");
  ck_assert_str_eq(ip4(b, 192, 168, 100, 9), "192.168.100.9");
  ck_assert_str_eq(ip4(b, 1, 20, 100, 200), "1.20.100.200");
  for (i = 0; i < sizeof(v6) / sizeof(v6[0]); i++) {
    ck_assert_str_eq(ip6(b, v6[i].w), v6[i].s);
  }
  {
    /* rj_format_addr: IPv4 from the last 4 bytes unless RTEL_FLOW_F_IPV6 */
    uint8_t a[16] = {0x20, 0x01, 0x0d, 0xb8, 0,  0, 0, 0,
                     0,    0,    0xff, 0xff, 10, 1, 2, 3};
    char s[INET6_ADDRSTRLEN];
    rj_format_addr(s, 0, a);
    ck_assert_str_eq(s, "10.1.2.3");
    rj_format_addr(s, RTEL_FLOW_F_IPV6, a);
    ck_assert_str_eq(s, "2001:db8::ffff:a01:203");
  }
}
END_TEST

/* Every pattern of zero groups, with several non-zero values, and every
 * IPv4 byte value, against the C library's inet_ntop. */
START_TEST(test_addresses_inet_ntop) {
  static const uint16_t nz[] = {1, 0xffff, 0xab0, 0x100, 0x2001};
  char b[64], want[INET6_ADDRSTRLEN];
  unsigned mask;
  size_t k;
  int i;
  for (mask = 0; mask < 256; mask++) {
    for (k = 0; k < sizeof(nz) / sizeof(nz[0]); k++) {
      uint8_t a[16];
      for (i = 0; i < 8; i++) {
        uint16_t w =
            (mask >> i & 1u) ? (uint16_t)(nz[(k + (size_t)i) % 5]) : 0;
        a[2 * i] = (uint8_t)(w >> 8);
        a[2 * i + 1] = (uint8_t)w;
      }
      ck_assert_ptr_nonnull(inet_ntop(AF_INET6, a, want, sizeof(want)));
      ck_assert_str_eq(FMT(b, rj_fmt_ipv6(b, a)), want);
      /* with group 5 = ffff (the IPv4-mapped form when 0..4 are zero) */
      a[10] = a[11] = 0xff;
      ck_assert_ptr_nonnull(inet_ntop(AF_INET6, a, want, sizeof(want)));
      ck_assert_str_eq(FMT(b, rj_fmt_ipv6(b, a)), want);
    }
  }
  for (i = 0; i < 256; i++) {
    uint8_t a[4] = {(uint8_t)i, (uint8_t)(255 - i), (uint8_t)(i * 7),
                    (uint8_t)(i / 3)};
    ck_assert_ptr_nonnull(inet_ntop(AF_INET, a, want, sizeof(want)));
    ck_assert_str_eq(FMT(b, rj_fmt_ipv4(b, a)), want);
  }
}
END_TEST

START_TEST(test_reals) {
  static const double v[] = {
      0.0,       1.0,         -3.0,      0.5,   0.25,   1e-5, 1e9,  -1e9,
      123456789, 999999999.0, 2.0 / 3.0, 1e300, 5e-324, 0.1,  1e15, 123.456};
  char b[64], want[64];
  size_t i;
  ck_assert_str_eq(real9(b, 0.0), "0");
  ck_assert_str_eq(real9(b, -0.0), "-0");
  ck_assert_str_eq(real9(b, 1.0), "1");
  ck_assert_str_eq(real9(b, -3.0), "-3");
  ck_assert_str_eq(real9(b, 0.5), "0.5");
  ck_assert_str_eq(real9(b, 123456789.0), "123456789");
  ck_assert_str_eq(real9(b, 1e9), "1e+09");
  ck_assert_str_eq(real9(b, 1e-5), "1e-05");
  ck_assert_str_eq(real9(b, 2.0 / 3.0), "0.666666667");
  ck_assert_str_eq(FMT(b, rj_fmt_fixed4(b, sizeof(b), 0.0)), "0.0000");
  ck_assert_str_eq(FMT(b, rj_fmt_fixed4(b, sizeof(b), -0.0)), "-0.0000");
  ck_assert_str_eq(FMT(b, rj_fmt_fixed4(b, sizeof(b), 1.0)), "1.0000");
  ck_assert_str_eq(FMT(b, rj_fmt_fixed4(b, sizeof(b), -1.0)), "-1.0000");
  ck_assert_str_eq(FMT(b, rj_fmt_fixed4(b, sizeof(b), 0.25)), "0.2500");
  ck_assert_str_eq(FMT(b, rj_fmt_fixed4(b, sizeof(b), 2.0 / 3.0)), "0.6667");
  ck_assert_str_eq(FMT(b, rj_fmt_fixed4(b, 16, 999999999.0)),
                   "999999999.0000");
  ck_assert_str_eq(FMT(b, rj_fmt_fixed4(b, sizeof(b), 1e9)),
                   "1000000000.0000");
  /* cut as snprintf cuts */
  ck_assert_str_eq(FMT(b, rj_fmt_fixed4(b, 6, 123.0)), "123.0");
  ck_assert_str_eq(FMT(b, rj_fmt_fixed4(b, 16, 1e20)), "100000000000000");
  for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
    int s;
    for (s = 0; s < 2; s++) {
      double x = s ? -v[i] : v[i];
      snprintf(want, sizeof(want), "%.9g", x);
      ck_assert_str_eq(real9(b, x), want);
      snprintf(want, 16, "%.4f", x);
      ck_assert_str_eq(FMT(b, rj_fmt_fixed4(b, 16, x)), want);
    }
  }
}
END_TEST

START_TEST(test_pad) {
  rj_buf b;
  rj_init(&b);
  rj_pad(&b, "ab", 5);
  rj_putc(&b, '|');
  rj_pad(&b, "ab", -5);
  rj_putc(&b, '|');
  rj_pad(&b, "abcdef", 3);
  rj_putc(&b, '|');
  rj_pad(&b, "abcdef", -3);
  rj_putc(&b, '|');
  rj_pad(&b, "", 0);
  rj_pad(&b, "", 2);
  rj_putc(&b, '|');
  ck_assert_str_eq(b.p, "   ab|ab   |abcdef|abcdef|  |");
  ck_assert_uint_eq(b.len, strlen(b.p));
  ck_assert_int_eq(b.oom, 0);
  rj_free(&b);
}
END_TEST

/* A string with every kind of escape, as the observation point of a stats
 * record; and a buffer grown past its first allocation. */
START_TEST(test_escapes) {
  rtel_ctx_stats st;
  rj_buf b;
  char name[2100];
  const char *want = "{\"type\":\"stats\",\"obs\":\"a\\\"b\\\\c\\u0001\\u001f"
                     "\\u000a\x7f\xc3\xa9\",\"file\":\"f\",\"packets\":\"0\","
                     "\"bytes\":\"18446744073709551615\",\"roce\":\"0\"";
  memset(&st, 0, sizeof(st));
  st.bytes = UINT64_MAX;
  rj_init(&b);
  rj_stats(&b, "a\"b\\c\x01\x1f\n\x7f\xc3\xa9", "f", &st);
  ck_assert_msg(strncmp(b.p, want, strlen(want)) == 0, "got %s", b.p);
  ck_assert_msg(strstr(b.p, ",\"malformed_by_reason\":{}}\n") ==
                    b.p + b.len - strlen(",\"malformed_by_reason\":{}}\n"),
                "ends %s", b.p + b.len - 40);
  ck_assert_uint_eq(b.len, strlen(b.p));
  rj_reset(&b);
  memset(name, 'x', sizeof(name) - 1);
  name[sizeof(name) - 1] = '\0';
  rj_stats(&b, name, NULL, &st);
  ck_assert_int_eq(b.oom, 0);
  ck_assert_uint_eq(b.len, strlen(b.p));
  ck_assert(strncmp(b.p + 23, name, sizeof(name) - 1) == 0);
  rj_free(&b);
}
END_TEST

/* |s| starts with |pre| */
static int starts(const char *s, const char *pre) {
  return strncmp(s, pre, strlen(pre)) == 0;
}

static void addr6(uint8_t *a, const char *s) {
  ck_assert_int_eq(inet_pton(AF_INET6, s, a), 1);
}

/* A flow record with edge values, written by hand. */
START_TEST(test_flow_record) {
  static const char *const obs[] = {"h0", "p\"1"};
  rj_names n = {obs, 2};
  rtel_flow_record f;
  rj_buf b;
  memset(&f, 0, sizeof(f));
  f.obs = 1;
  f.port = 7;
  f.flags = RTEL_FLOW_F_PAIRED | RTEL_FLOW_F_IPV6 | RTEL_FLOW_F_VLAN |
            RTEL_FLOW_F_LOST_LB;
  addr6(f.src, "2001:db8::1");
  addr6(f.dst, "::ffff:10.0.0.2");
  f.coverage_start = RTEL_TSTAMP_NONE;
  f.coverage_end = 1700000000000000001u;
  f.dqpn = 0xffffff;
  f.peer_qpn = 0;
  f.sport = 65535;
  f.vlan = 4095;
  f.dscp = 63;
  f.end = RTEL_END_IDLE;
  f.ops = 7;
  f.first_ts = 0;
  f.last_ts = UINT64_MAX;
  f.fct = UINT64_MAX;
  f.bytes = UINT64_MAX;
  f.packets = 1;
  f.fnr = 0.5;
  f.retx_ratio = NAN;
  f.naks_seq = 10;
  f.lost_upstream = 3;
  f.orphan_packets = 18446744073709551614u;
  rj_init(&b);
  rj_flow(&b, &n, &f);
  ck_assert_str_eq(
      b.p,
      "{\"type\":\"flow\",\"obs\":\"p\\\"1\",\"port\":7,"
      "\"coverage_end_ns\":\"1700000000000000001\","
      "\"src\":\"2001:db8::1\",\"dst\":\"::ffff:10.0.0.2\",\"sport\":65535,"
      "\"dqpn\":16777215,\"peer_qpn\":0,\"op\":\"send+write+read_resp\","
      "\"dscp\":63,\"vlan\":4095,\"first_ts_ns\":\"0\","
      "\"last_ts_ns\":\"18446744073709551615\","
      "\"fct_ns\":\"18446744073709551615\","
      "\"bytes\":\"18446744073709551615\",\"packets\":\"1\","
      "\"retx_packets\":\"0\",\"retx_bytes\":\"0\",\"fet_bps\":\"0\","
      "\"naks_seq\":\"10\",\"naks_rnr\":\"0\",\"naks_fatal\":\"0\","
      "\"fnr\":0.5,\"cnps\":\"0\",\"ecn_ce\":\"0\",\"fecn_packets\":\"0\","
      "\"becn_packets\":\"0\",\"psn_gaps\":\"0\",\"losses_upstream\":\"0\","
      "\"losses_downstream\":\"0\",\"retx_after_nak\":\"0\","
      "\"retx_after_timeout\":\"0\",\"retx_after_rnr\":\"0\","
      "\"messages\":\"0\",\"end\":\"idle\",\"lost_upstream\":\"3\","
      "\"lost_upstream_lower_bound\":true,"
      "\"orphan_packets\":\"18446744073709551614\"}\n");
  ck_assert_uint_eq(b.len, strlen(b.p));
  /* IPv4, unpaired: no peer_qpn or fnr; retx_ratio a number */
  f.flags = 0;
  f.obs = 9; /* beyond the names: "?" */
  f.src[12] = 192;
  f.src[13] = 168;
  f.src[14] = 0;
  f.src[15] = 1;
  f.retx_ratio = 0.25;
  f.fnr = 1.0;
  rj_reset(&b);
  rj_flow(&b, &n, &f);
  ck_assert_msg(starts(b.p, "{\"type\":\"flow\",\"obs\":\"?\",\"port\":7,"
                            "\"coverage_end_ns\":\"1700000000000000001\","
                            "\"src\":\"192.168.0.1\",\"dst\":\"10.0.0.2\","
                            "\"sport\":65535,\"dqpn\":16777215,\"op\":"),
                "got %s", b.p);
  ck_assert_ptr_nonnull(strstr(b.p, ",\"naks_fatal\":\"0\","
                                    "\"retx_ratio\":0.25,\"cnps\":\"0\""));
  ck_assert_ptr_null(strstr(b.p, "fnr"));
  ck_assert_ptr_null(strstr(b.p, "vlan"));
  ck_assert_ptr_nonnull(strstr(b.p, "\"lost_upstream_lower_bound\":false,"));
  rj_free(&b);
}
END_TEST

/* An I/O record: negative and absent durations, an orphan. */
START_TEST(test_io_record) {
  static const char *const obs[] = {"t0"};
  rj_names n = {obs, 1};
  rtel_io_record io;
  rj_buf b;
  memset(&io, 0, sizeof(io));
  io.port = 0;
  io.coverage_start = 5;
  io.coverage_end = RTEL_TSTAMP_NONE;
  io.host[10] = io.host[11] = 0xff;
  io.host[12] = 10;
  io.host[15] = 1;
  io.target[10] = io.target[11] = 0xff;
  io.target[12] = 10;
  io.target[15] = 2;
  io.host_qpn = RTEL_QPN_NONE;
  io.target_qpn = 0x12;
  io.cid = 65535;
  io.state = RTEL_IO_ORPHAN;
  io.t_cmd = RTEL_TSTAMP_NONE;
  io.t_rsp = 1;
  io.t_data_first = RTEL_TSTAMP_NONE;
  io.t_data_last = RTEL_TSTAMP_NONE;
  io.t_rdreq = RTEL_TSTAMP_NONE;
  io.iol = INT64_MIN + 1;
  io.dal = -1;
  io.dpl = RTEL_DURATION_NONE;
  io.xfer = INT64_MAX;
  rj_init(&b);
  rj_io(&b, &n, &io);
  ck_assert_msg(starts(b.p,
                       "{\"type\":\"io\",\"obs\":\"t0\",\"port\":0,"
                       "\"coverage_start_ns\":\"5\",\"host\":\"10.0.0.1\","
                       "\"target\":\"10.0.0.2\",\"target_qpn\":18,"
                       "\"cid\":65535,\"nvme_status\":0,"),
                "got %s", b.p);
  ck_assert_msg(strstr(b.p, ",\"t_rsp_ns\":\"1\","
                            "\"iol_ns\":\"-9223372036854775807\","
                            "\"dal_ns\":\"-1\","
                            "\"xfer_ns\":\"9223372036854775807\"}\n") != NULL,
                "got %s", b.p);
  ck_assert_ptr_null(strstr(b.p, "slba"));
  ck_assert_ptr_null(strstr(b.p, "dpl_ns"));
  rj_free(&b);
}
END_TEST

int main(void) {
  Suite *s = suite_create("writer");
  TCase *tc = tcase_create("writer");
  SRunner *sr;
  int failed;
  tcase_add_test(tc, test_integers);
  tcase_add_test(tc, test_integers_printf);
  tcase_add_test(tc, test_addresses);
  tcase_add_test(tc, test_addresses_inet_ntop);
  tcase_add_test(tc, test_reals);
  tcase_add_test(tc, test_pad);
  tcase_add_test(tc, test_escapes);
  tcase_add_test(tc, test_flow_record);
  tcase_add_test(tc, test_io_record);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
