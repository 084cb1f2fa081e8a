/* SPDX-License-Identifier: MIT */
/*
 * rtel_shard_key(): the key of packets built by hand (rtel_test_pkt.c),
 * decoded by rtel_pkt_decode(). The expected keys are written out here,
 * computed by hand from the algorithm that rtel_shard_key(3) documents
 * (FNV-1a 32 over the lower then the higher address, MurmurHash3's
 * finaliser, 0 -> 1) with a separate implementation (a Python one-liner),
 * not with the library.
 */
#include "rtel_test_util.h"

#include <string.h>

/* 10.0.0.1 <-> 10.0.0.2 (IPv4-mapped), either direction */
#define KEY_V4_AB 0x74595fa1u
/* fd00::1 <-> fd00::1202 (tu_ip6_a, tu_ip6_b) */
#define KEY_V6_AB 0x216f546fu
/* 10.0.0.1 <-> 10.0.0.1 (a host talking to itself: loopback) */
#define KEY_V4_AA 0xfa569043u

static uint32_t key_of(const tu_spec *s, int expect_rv) {
  tb t;
  rtel_pkt_hd hd;
  tb_init(&t);
  tu_build(&t, s);
  memset(&hd, 0xA5, sizeof(hd));
  ck_assert_int_eq(rtel_pkt_decode(&hd, NULL, t.b, t.n, t.n), expect_rv);
  return rtel_shard_key(&hd);
}

static void set_v4(tu_spec *s, uint32_t src, uint32_t dst) {
  tu_ipv4_mapped(s->src, src);
  tu_ipv4_mapped(s->dst, dst);
}

START_TEST(test_shard_v4_symmetric) {
  tu_spec s;
  tu_spec_init(&s, 0x0A, 64); /* RC RDMA WRITE ONLY, A -> B */
  ck_assert_uint_eq(key_of(&s, 0), KEY_V4_AB);
  set_v4(&s, TU_IP4_B, TU_IP4_A); /* the ACK's direction */
  s.opcode = 0x11;
  s.paylen = 0;
  ck_assert_uint_eq(key_of(&s, 0), KEY_V4_AB);
  /* the QPs, ports, DSCP and VLAN tags do not enter */
  tu_spec_init(&s, 0x04, 100);
  s.dqpn = 0x123456;
  s.sport = 0xE000;
  s.tos = 0x68;
  s.nvlan = 2;
  ck_assert_uint_eq(key_of(&s, 0), KEY_V4_AB);
  /* one address: its own key */
  set_v4(&s, TU_IP4_A, TU_IP4_A);
  ck_assert_uint_eq(key_of(&s, 0), KEY_V4_AA);
}
END_TEST

START_TEST(test_shard_v6_and_v1) {
  tu_spec s;
  tu_spec_init(&s, 0x0A, 64);
  s.ipver = 6;
  ck_assert_uint_eq(key_of(&s, 0), KEY_V6_AB);
  memcpy(s.src, tu_ip6_b, 16);
  memcpy(s.dst, tu_ip6_a, 16);
  ck_assert_uint_eq(key_of(&s, 0), KEY_V6_AB);
  /* RoCEv1: the GIDs of the GRH, hashed the same way */
  tu_spec_init(&s, 0x0A, 64);
  s.ipver = 1;
  memcpy(s.src, tu_ip6_a, 16);
  memcpy(s.dst, tu_ip6_b, 16);
  ck_assert_uint_eq(key_of(&s, 0), KEY_V6_AB);
}
END_TEST

START_TEST(test_shard_innermost) {
  /* ERSPAN II from 192.168.0.1 to 192.168.0.2 carrying 10.0.0.2 -> 10.0.0.1:
   * the key is the inner pair's */
  tb t;
  rtel_pkt_hd hd;
  tu_spec s;
  static const uint8_t ma[6] = {2, 1, 1, 1, 1, 1}, mb[6] = {2, 2, 2, 2, 2, 2};
  tb_init(&t);
  tb_eth(&t, mb, ma);
  tb_ethertype(&t, 0x0800);
  tb_ipv4(&t, 0, 7, 0, 60, 47, 0xC0A80001u, 0xC0A80002u, NULL, 0);
  tb_gre(&t, 0x1000, 0x88BE, 0, 1);
  tb_erspan2(&t, 0, 0, 0, 0, 0x001, 0);
  tu_spec_init(&s, 0x11, 0);
  set_v4(&s, TU_IP4_B, TU_IP4_A);
  tu_headers(&t, &s);
  tu_transport(&t, &s);
  tb_finish(&t);
  ck_assert_int_eq(rtel_pkt_decode(&hd, NULL, t.b, t.n, t.n), 0);
  ck_assert_uint_eq(hd.encap, RTEL_ENCAP_ERSPAN2);
  ck_assert_uint_eq(rtel_shard_key(&hd), KEY_V4_AB);
}
END_TEST

START_TEST(test_shard_not_roce) {
  tu_spec s;
  tb t;
  rtel_pkt_hd hd;
  rtel_decode_opts o;
  ck_assert_uint_eq(rtel_shard_key(NULL), 0);
  /* UDP to another port: well formed, not RoCE */
  tu_spec_init(&s, 0x0A, 64);
  s.dport = 4792;
  ck_assert_uint_eq(key_of(&s, RTEL_ERR_NOT_ROCE), 0);
  /* the same bytes with 4792 as the RoCE port: a key */
  tb_init(&t);
  tu_build(&t, &s);
  memset(&o, 0, sizeof(o));
  o.roce_udp_port = 4792;
  ck_assert_int_eq(rtel_pkt_decode(&hd, &o, t.b, t.n, t.n), 0);
  ck_assert_uint_eq(rtel_shard_key(&hd), KEY_V4_AB);
  /* cut inside the Ethernet header: malformed before any address */
  ck_assert_int_eq(rtel_pkt_decode(&hd, NULL, t.b, 10, t.n),
                   RTEL_ERR_MALFORMED);
  ck_assert_uint_eq(rtel_shard_key(&hd), 0);
  /* a RoCE packet found malformed (a UDP length too short for the BTH
   * and the ICRC): its addresses were decoded, it keeps its key */
  tu_spec_init(&s, 0x0A, 64);
  tb_init(&t);
  tu_build(&t, &s);
  tb_set16(&t, t.udp_off[0] + 4, 8 + 12);
  ck_assert_int_eq(rtel_pkt_decode(&hd, NULL, t.b, t.n, t.n),
                   RTEL_ERR_MALFORMED);
  ck_assert_uint_eq(hd.malformed, RTEL_MALFORMED_ROCE_LEN);
  ck_assert_uint_eq(hd.roce, 2);
  ck_assert_uint_eq(rtel_shard_key(&hd), KEY_V4_AB);
  /* a hand-filled header: only flags, roce, src and dst are read */
  memset(&hd, 0, sizeof(hd));
  tu_ipv4_mapped(hd.src, TU_IP4_A);
  tu_ipv4_mapped(hd.dst, TU_IP4_B);
  ck_assert_uint_eq(rtel_shard_key(&hd), 0); /* roce 0 */
  hd.roce = 2;
  ck_assert_uint_eq(rtel_shard_key(&hd), 0); /* no address flag */
  hd.flags = RTEL_HD_F_IPV4;
  ck_assert_uint_eq(rtel_shard_key(&hd), KEY_V4_AB);
  /* all-zero addresses are a key too (never 0) */
  memset(hd.src, 0, 16);
  memset(hd.dst, 0, 16);
  hd.flags = RTEL_HD_F_IPV6;
  ck_assert_uint_eq(rtel_shard_key(&hd), 0xd1e4f1a4u);
}
END_TEST

START_TEST(test_shard_distribution) {
  /* every pair of the hosts 10.0.1.1 ... 10.0.1.32 (496 pairs): the count
   * per shard for N = 2, 4, 7 and 16, hand-computed */
  static const unsigned want2[2] = {242, 254};
  static const unsigned want4[4] = {124, 121, 118, 133};
  static const unsigned want7[7] = {72, 66, 77, 63, 75, 60, 83};
  static const unsigned want16[16] = {28, 41, 36, 26, 38, 26, 26, 42,
                                      33, 26, 32, 36, 25, 28, 24, 29};
  unsigned c2[2] = {0}, c4[4] = {0}, c7[7] = {0}, c16[16] = {0};
  rtel_pkt_hd hd;
  unsigned i, j, n = 0;
  memset(&hd, 0, sizeof(hd));
  hd.roce = 2;
  hd.flags = RTEL_HD_F_ROCE | RTEL_HD_F_IPV4;
  for (i = 1; i <= 32; i++) {
    for (j = i + 1; j <= 32; j++) {
      uint32_t k, k2;
      tu_ipv4_mapped(hd.src, 0x0A000100u + i);
      tu_ipv4_mapped(hd.dst, 0x0A000100u + j);
      k = rtel_shard_key(&hd);
      tu_ipv4_mapped(hd.src, 0x0A000100u + j);
      tu_ipv4_mapped(hd.dst, 0x0A000100u + i);
      k2 = rtel_shard_key(&hd);
      ck_assert_uint_eq(k, k2);
      ck_assert_uint_ne(k, 0);
      c2[k % 2]++;
      c4[k % 4]++;
      c7[k % 7]++;
      c16[k % 16]++;
      n++;
    }
  }
  ck_assert_uint_eq(n, 496);
  for (i = 0; i < 2; i++) {
    ck_assert_uint_eq(c2[i], want2[i]);
  }
  for (i = 0; i < 4; i++) {
    ck_assert_uint_eq(c4[i], want4[i]);
  }
  for (i = 0; i < 7; i++) {
    ck_assert_uint_eq(c7[i], want7[i]);
    /* within 30 % of the mean (70.9) */
    ck_assert_uint_ge(c7[i], 50);
    ck_assert_uint_le(c7[i], 92);
  }
  for (i = 0; i < 16; i++) {
    ck_assert_uint_eq(c16[i], want16[i]);
  }
}
END_TEST

Suite *rtel_test_shard_suite(void) {
  Suite *s = suite_create("shard");
  TCase *tc = tcase_create("key");
  tcase_add_test(tc, test_shard_v4_symmetric);
  tcase_add_test(tc, test_shard_v6_and_v1);
  tcase_add_test(tc, test_shard_innermost);
  tcase_add_test(tc, test_shard_not_roce);
  tcase_add_test(tc, test_shard_distribution);
  suite_add_tcase(s, tc);
  return s;
}
