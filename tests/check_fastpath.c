/* SPDX-License-Identifier: MIT */
/*
 * White-box differential test of the decoder's fast path (lib/rtel_parse.c
 * decode_fast()): every packet here is decoded twice, by the entries the
 * library uses (rtel__decode(), rtel__decode_lite(): the fast path first)
 * and by rtel__decode_general() (the general walk only), into two
 * rtel_pkt_hd that start as the same byte pattern; the results must be
 * the same: the return value and every byte of the struct (for the lite
 * entry, every byte but the fields it leaves alone). The packets are the
 * common shapes the fast path takes (Ethernet, 0 or 1 802.1Q tag, IPv4 or
 * IPv6, UDP 4791, every opcode) with each field at its edge values, cut
 * by the capture at every length, with wire lengths below, at and beyond
 * the packet, with every length field lying, and with every header byte
 * replaced by a few values, so that each condition the fast path checks
 * fails once and the walk has to give the same answer.
 */
#include "rtel_test_util.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rtel_parse.h"

static rtel__decode_cfg cfg_plain, cfg_icrc;
static unsigned long n_compared;

/* The fields rtel__decode_lite() leaves alone (lib/rtel_parse.h): copied
 * from |from| to |to| before the lite results are compared. */
static void copy_lite_exempt(rtel_pkt_hd *to, const rtel_pkt_hd *from) {
  to->cap_len = from->cap_len;
  memcpy(to->eth_dst, from->eth_dst, 6);
  memcpy(to->eth_src, from->eth_src, 6);
  to->ethertype = from->ethertype;
  memcpy(to->vlan_tpid, from->vlan_tpid, sizeof(to->vlan_tpid));
  to->ttl = from->ttl;
  to->ip_proto = from->ip_proto;
  to->flow_label = from->flow_label;
  to->dport = from->dport;
  to->udp_csum = from->udp_csum;
  to->se = from->se;
  to->m = from->m;
  to->pad = from->pad;
  to->tver = from->tver;
  to->pkey = from->pkey;
  to->resv6 = from->resv6;
  to->ackreq = from->ackreq;
  to->resv7 = from->resv7;
}

static void first_diff(const rtel_pkt_hd *a, const rtel_pkt_hd *b, char *buf,
                       size_t n) {
  const uint8_t *x = (const uint8_t *)a, *y = (const uint8_t *)b;
  size_t i;
  for (i = 0; i < sizeof(*a); i++) {
    if (x[i] != y[i]) {
      snprintf(buf, n, "byte %zu of rtel_pkt_hd: fast 0x%02x, walk 0x%02x", i,
               x[i], y[i]);
      return;
    }
  }
  snprintf(buf, n, "none");
}

/* One input through both paths, full and lite, for one configuration. */
static void compare_cfg(const rtel__decode_cfg *cfg, const uint8_t *pkt,
                        size_t cap, size_t wire, const char *what) {
  static rtel_pkt_hd a, b;
  char diff[96];
  int ra, rb, full;
  for (full = 1; full >= 0; full--) {
    memset(&a, 0xA5, sizeof(a));
    memset(&b, 0xA5, sizeof(b));
    ra = full ? rtel__decode(&a, cfg, pkt, cap, wire)
              : rtel__decode_lite(&a, cfg, pkt, cap, wire);
    rb = rtel__decode_general(&b, cfg, pkt, cap, wire, full);
    if (!full) {
      copy_lite_exempt(&a, &b);
    }
    first_diff(&a, &b, diff, sizeof(diff));
    ck_assert_msg(ra == rb && memcmp(&a, &b, sizeof(a)) == 0,
                  "%s, caplen %zu, wire %zu, %s, icrc %d: fast rv %d, walk rv "
                  "%d; first difference: %s",
                  what, cap, wire, full ? "full" : "lite",
                  (cfg->flags & RTEL_DECODE_VERIFY_ICRC) != 0, ra, rb, diff);
    n_compared++;
  }
}

static void compare(const uint8_t *pkt, size_t cap, size_t wire,
                    const char *what) {
  compare_cfg(&cfg_plain, pkt, cap, wire, what);
  compare_cfg(&cfg_icrc, pkt, cap, wire, what);
}

/* Every capture length 0..len, with the wire length at the packet's or at
 * the capture's (a mirror's cut copy), and (for a few captures) below,
 * beyond and unset. */
static void compare_cuts(const uint8_t *pkt, size_t len, const char *what) {
  size_t c;
  for (c = 0; c <= len; c++) {
    compare(pkt, c, len, what);
    compare(pkt, c, c, what); /* a mirror's copy: the wire length cut too */
  }
  compare(pkt, len, 0, what);
  compare(pkt, len, len - 1, what);
  compare(pkt, len, len + 1, what);
  compare(pkt, len, 0xffff + 1, what);
  compare(pkt, len - 4, len - 4, what); /* the ICRC cut, wire too */
}

/* The shapes: |ipver| 4 or 6, |vlan| tags (0, 1, 2), |tpid| of the tags. */
static void build(tb *t, tu_spec *s, int ipver, int vlan, uint16_t tpid) {
  int i;
  s->ipver = ipver;
  s->nvlan = vlan;
  for (i = 0; i < vlan; i++) {
    s->vlan_tpid[i] = tpid;
  }
  tb_init(t);
  tu_build(t, s);
}

static const struct {
  int ipver, vlan;
  uint16_t tpid;
} shapes[] = {{4, 0, 0x8100}, {4, 1, 0x8100}, {6, 0, 0x8100},
              {6, 1, 0x8100}, {4, 1, 0x88a8}, {4, 2, 0x8100}};
#define NSHAPES (sizeof(shapes) / sizeof(shapes[0]))

/* Every opcode (the fast path takes the known ones of TVer 0, not the
 * MADs to QP0/QP1), every shape, every cut. */
START_TEST(test_fast_opcodes) {
  size_t k;
  unsigned op = (unsigned)_i;
  for (k = 0; k < NSHAPES; k++) {
    tb t;
    tu_spec s;
    char what[64];
    tu_spec_init(&s, (uint8_t)op, (op & 1) ? 5 : 16);
    if (op == 0x64 && k == 0) {
      s.dqpn = 1; /* a MAD to QP1: the walk's */
    }
    build(&t, &s, shapes[k].ipver, shapes[k].vlan, shapes[k].tpid);
    snprintf(what, sizeof(what), "opcode 0x%02x shape %zu", op, k);
    compare_cuts(t.b, t.n, what);
  }
}
END_TEST

/* Each field at its edge values, in the common shapes. */
START_TEST(test_fast_field_edges) {
  static const uint8_t ops[] = {0x04, 0x06, 0x07, 0x0b, 0x11,
                                0x12, 0x13, 0x64, 0x81};
  static const uint32_t q24[] = {0, 1, 2, 0x7fffff, 0xffffff};
  size_t k, o, v;
  for (k = 0; k < 4; k++) {
    for (o = 0; o < sizeof(ops); o++) {
      for (v = 0; v < 5; v++) {
        tb t;
        tu_spec s;
        char what[80];
        tu_spec_init(&s, ops[o], v * 3);
        s.tos = v & 1 ? 0xff : 0x00;
        s.ttl = v & 1 ? 0 : 255;
        s.flow = v & 1 ? 0xfffff : 0;
        s.sport = v & 1 ? 0xffff : 0;
        s.se = s.m = s.fecn = s.becn = s.ackreq = (uint8_t)(v & 1);
        s.pkey = v & 1 ? 0xffff : 0;
        s.dqpn = q24[v];
        s.psn = q24[4 - v];
        s.aeth_syn = v & 1 ? 0xff : 0;
        s.aeth_msn = q24[v];
        s.reth_len = v & 1 ? 0xffffffffu : 0;
        s.vlan_tci[0] = v & 1 ? 0xffff : 0;
        build(&t, &s, shapes[k].ipver, shapes[k].vlan, shapes[k].tpid);
        snprintf(what, sizeof(what), "opcode 0x%02x shape %zu edge %zu",
                 ops[o], k, v);
        compare_cuts(t.b, t.n, what);
        /* the reserved bits of BTH bytes 4 and 8 set */
        t.b[t.bth_off + 4] |= 0x3f;
        t.b[t.bth_off + 8] |= 0x7f;
        compare_cuts(t.b, t.n, what);
      }
    }
  }
}
END_TEST

/* Every length field lying: IPv4 total length, IPv6 payload length, UDP
 * length at every value around the truth and the extremes; the pad count
 * and transport version at each value. */
START_TEST(test_fast_lengths) {
  static const uint8_t ops[] = {0x04, 0x06, 0x11, 0x81};
  size_t k, o;
  for (k = 0; k < 4; k++) {
    for (o = 0; o < sizeof(ops); o++) {
      tb t;
      tu_spec s;
      size_t ipo, udpo, len, i;
      uint16_t iplen, ulen;
      int d;
      char what[80];
      tu_spec_init(&s, ops[o], 8);
      build(&t, &s, shapes[k].ipver, shapes[k].vlan, shapes[k].tpid);
      len = t.n;
      ipo = t.ip_off[0];
      udpo = t.udp_off[0];
      iplen = tb_get16(&t, ipo + (shapes[k].ipver == 4 ? 2 : 4));
      ulen = tb_get16(&t, udpo + 4);
      for (d = -40; d <= 40; d++) {
        tb u = t;
        snprintf(what, sizeof(what), "shape %zu op 0x%02x ip length %+d", k,
                 ops[o], d);
        tb_set16(&u, ipo + (shapes[k].ipver == 4 ? 2 : 4),
                 (uint16_t)(iplen + d));
        compare(u.b, len, len, what);
        compare(u.b, len, 0xffff, what);
        compare(u.b, len - 1, len, what);
        u = t;
        snprintf(what, sizeof(what), "shape %zu op 0x%02x udp length %+d", k,
                 ops[o], d);
        tb_set16(&u, udpo + 4, (uint16_t)(ulen + d));
        compare(u.b, len, len, what);
        compare(u.b, len - 1, len, what);
      }
      for (i = 0; i < 2; i++) {
        static const uint16_t ext[] = {0, 0xffff};
        tb u = t;
        snprintf(what, sizeof(what), "shape %zu op 0x%02x lengths %zu", k,
                 ops[o], i);
        tb_set16(&u, ipo + (shapes[k].ipver == 4 ? 2 : 4), ext[i]);
        compare(u.b, len, len, what);
        u = t;
        tb_set16(&u, udpo + 4, ext[i]);
        compare(u.b, len, len, what);
      }
      for (i = 0; i < 256; i += 0x10) {
        tb u = t;
        size_t j;
        for (j = 0; j < 4; j++) {
          /* BTH byte 1: SE, M, pad (j), TVer (i >> 4) */
          u.b[t.bth_off + 1] = (uint8_t)(0xc0 | j << 4 | i >> 4);
          snprintf(what, sizeof(what), "shape %zu op 0x%02x bth1 0x%02x", k,
                   ops[o], u.b[t.bth_off + 1]);
          compare(u.b, len, len, what);
        }
      }
    }
  }
}
END_TEST

/* Every byte of the headers (to the end of the first extended header)
 * replaced by a few values: each check of the fast path fails somewhere. */
START_TEST(test_fast_bytes) {
  static const uint8_t ops[] = {0x06, 0x07, 0x11, 0x64};
  static const uint8_t vals[] = {0x00, 0x01, 0x06, 0x11, 0x45,
                                 0x60, 0x81, 0x86, 0xdd, 0xff};
  size_t k, o;
  for (k = 0; k < NSHAPES; k++) {
    for (o = 0; o < sizeof(ops); o++) {
      tb t;
      tu_spec s;
      size_t i, v, end;
      tu_spec_init(&s, ops[o], 8);
      build(&t, &s, shapes[k].ipver, shapes[k].vlan, shapes[k].tpid);
      end = t.bth_off + 12 + 16 < t.n ? t.bth_off + 12 + 16 : t.n;
      for (i = 0; i < end; i++) {
        for (v = 0; v < sizeof(vals); v++) {
          tb u = t;
          char what[80];
          u.b[i] = vals[v];
          snprintf(what, sizeof(what), "shape %zu op 0x%02x byte %zu = 0x%02x",
                   k, ops[o], i, vals[v]);
          compare(u.b, t.n, t.n, what);
          compare(u.b, i + 1, t.n, what);
          u.b[i] ^= 0x80;
          compare(u.b, t.n, t.n, what);
        }
      }
    }
  }
}
END_TEST

/* Another RoCE port, a non-Ethernet link type: the fast path follows the
 * configuration (or is not taken). */
START_TEST(test_fast_config) {
  rtel__decode_cfg c;
  tb t;
  tu_spec s;
  tu_spec_init(&s, 0x0a, 16);
  build(&t, &s, 4, 0, 0x8100);
  ck_assert_int_eq(rtel__decode_cfg_init(&c, 0, 0, 4792, 0), 0);
  compare_cfg(&c, t.b, t.n, t.n, "port 4792, packet to 4791");
  s.dport = 4792;
  build(&t, &s, 4, 1, 0x8100);
  compare_cfg(&c, t.b, t.n, t.n, "port 4792, packet to 4792");
  ck_assert_int_eq(rtel__decode_cfg_init(&c, 0, RTEL_LINK_RAW, 0, 0), 0);
  compare_cfg(&c, t.b, t.n, t.n, "raw link type");
  ck_assert_int_eq(rtel__decode_cfg_init(&c, RTEL_DECODE_NO_DECAP, 0, 4792, 0),
                   0);
  compare_cfg(&c, t.b, t.n, t.n, "no decapsulation");
  ck_assert_uint_gt(n_compared, 0);
}
END_TEST

/* Which packets the fast path takes (the tests above check that it
 * decodes what it takes as the walk does; a shape it stopped taking would
 * decode right, only slower): the common shapes (Ethernet, 0 or 1 802.1Q
 * tag, IPv4 or IPv6) of the opcodes of RDMA traffic, whole, cut by the
 * capture alone, and cut as a mirror cuts its copies (the wire length
 * reported as the copy's, so the IP length runs past it: flagged
 * truncated); not two tags, a MAD to QP1, another UDP port or a BTH cut
 * short. */
START_TEST(test_fast_taken) {
  static const uint8_t ops[] = {0x00, 0x01, 0x02, 0x04, 0x06, 0x07,
                                0x08, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e,
                                0x0f, 0x10, 0x11, 0x81};
  static rtel_pkt_hd hd;
  size_t k, o;
  int full;
  for (k = 0; k < 4; k++) {
    for (o = 0; o < sizeof(ops); o++) {
      tb t;
      tu_spec s;
      tu_spec_init(&s, ops[o], 1024);
      build(&t, &s, shapes[k].ipver, shapes[k].vlan, shapes[k].tpid);
      for (full = 0; full <= 1; full++) {
        ck_assert_msg(
            rtel__decode_fast_taken(&hd, &cfg_plain, t.b, t.n, t.n, full) == 1,
            "opcode 0x%02x shape %zu, whole", ops[o], k);
        ck_assert(!(hd.flags & RTEL_HD_F_TRUNCATED));
        ck_assert_msg(
            rtel__decode_fast_taken(&hd, &cfg_icrc, t.b, t.n, t.n, full) == 1,
            "opcode 0x%02x shape %zu, whole, ICRC", ops[o], k);
        ck_assert_int_eq(hd.icrc_status, RTEL_ICRC_OK);
        ck_assert_msg(
            rtel__decode_fast_taken(&hd, &cfg_plain, t.b, 128, t.n, full) == 1,
            "opcode 0x%02x shape %zu, 128 bytes captured", ops[o], k);
        ck_assert(hd.flags & RTEL_HD_F_TRUNCATED);
        ck_assert_msg(
            rtel__decode_fast_taken(&hd, &cfg_plain, t.b, 128, 128, full) == 1,
            "opcode 0x%02x shape %zu, a mirror's 128-byte copy", ops[o], k);
        ck_assert(hd.flags & RTEL_HD_F_TRUNCATED);
        ck_assert_uint_eq(hd.wire_len, t.n); /* (the IP length's frame) */
      }
    }
  }
  {
    tb t;
    tu_spec s;
    tu_spec_init(&s, 0x0a, 16);
    build(&t, &s, 4, 2, 0x8100);
    ck_assert_int_eq(
        rtel__decode_fast_taken(&hd, &cfg_plain, t.b, t.n, t.n, 1), 0);
    tu_spec_init(&s, 0x64, 16);
    s.dqpn = 1;
    build(&t, &s, 4, 0, 0x8100);
    ck_assert_int_eq(
        rtel__decode_fast_taken(&hd, &cfg_plain, t.b, t.n, t.n, 1), 0);
    tu_spec_init(&s, 0x0a, 16);
    s.dport = 4792;
    build(&t, &s, 6, 1, 0x8100);
    ck_assert_int_eq(
        rtel__decode_fast_taken(&hd, &cfg_plain, t.b, t.n, t.n, 1), 0);
    s.dport = 4791;
    build(&t, &s, 6, 1, 0x8100);
    ck_assert_int_eq(
        rtel__decode_fast_taken(&hd, &cfg_plain, t.b, t.bth_off + 11, t.n, 1),
        0);
  }
}
END_TEST

static void setup(void) {
  ck_assert_int_eq(rtel__decode_cfg_init(&cfg_plain, 0, 0, 0, 0), 0);
  ck_assert_int_eq(
      rtel__decode_cfg_init(&cfg_icrc, RTEL_DECODE_VERIFY_ICRC, 0, 0, 0), 0);
}

Suite *rtel_test_fastpath_suite(void) {
  Suite *s = suite_create("fastpath_internal");
  TCase *tc = tcase_create("differential");
  tcase_add_checked_fixture(tc, setup, NULL);
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_fast_opcodes, 0, 256);
  tcase_add_test(tc, test_fast_field_edges);
  tcase_add_test(tc, test_fast_lengths);
  tcase_add_test(tc, test_fast_bytes);
  tcase_add_test(tc, test_fast_config);
  tcase_add_test(tc, test_fast_taken);
  suite_add_tcase(s, tc);
  return s;
}
