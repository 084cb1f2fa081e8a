/* SPDX-License-Identifier: MIT */
/*
 * rtel_pkt_decode() and rtel_icrc_compute(): black-box tests against
 * packets built by hand in rtel_test_pkt.c. Expected values come from the
 * builder (offsets, field values) or are written out here; the ICRC is
 * computed by the test's own CRC-32.
 */
#define _POSIX_C_SOURCE 200809L

#include "rtel_test_util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t omac_a[6] = {0x02, 0x99, 0x88, 0x77, 0x66, 0x55};
static const uint8_t omac_b[6] = {0x02, 0x44, 0x33, 0x22, 0x11, 0x00};

#define BASE_V4                                                               \
  (RTEL_HD_F_ROCE | RTEL_HD_F_ETH | RTEL_HD_F_IPV4 | RTEL_HD_F_UDP |          \
   RTEL_HD_F_BTH | RTEL_HD_F_ICRC)
#define BASE_V6                                                               \
  (RTEL_HD_F_ROCE | RTEL_HD_F_ETH | RTEL_HD_F_IPV6 | RTEL_HD_F_UDP |          \
   RTEL_HD_F_BTH | RTEL_HD_F_ICRC)
#define BASE_V1                                                               \
  (RTEL_HD_F_ROCE | RTEL_HD_F_ETH | RTEL_HD_F_GRH | RTEL_HD_F_BTH |           \
   RTEL_HD_F_ICRC)

/* decode with the fields poisoned first, so unwritten fields show, from
 * a heap copy of exactly |caplen| bytes, so that a sanitizer or valgrind
 * catches any read past the capture */
static int decode(rtel_pkt_hd *hd, const rtel_decode_opts *o,
                  const uint8_t *pkt, size_t caplen, size_t wire) {
  uint8_t *copy = NULL;
  int rc;
  if (pkt && caplen) {
    copy = malloc(caplen);
    ck_assert_ptr_nonnull(copy);
    memcpy(copy, pkt, caplen);
  }
  memset(hd, 0xA5, sizeof(*hd));
  rc = rtel_pkt_decode(hd, o, pkt ? copy : NULL, caplen, wire);
  free(copy);
  return rc;
}

static int decode_tb(rtel_pkt_hd *hd, const rtel_decode_opts *o, const tb *t) {
  return decode(hd, o, t->b, t->n, t->n);
}

static rtel_decode_opts opts_flags(uint32_t flags) {
  rtel_decode_opts o;
  memset(&o, 0, sizeof(o));
  o.flags = flags;
  return o;
}

static void build(tb *t, int ipver, uint8_t opcode, size_t paylen,
                  uint8_t pad) {
  tu_spec s;
  tu_spec_init(&s, opcode, paylen);
  s.ipver = ipver;
  s.pad = pad;
  tb_init(t);
  tu_build(t, &s);
}

static void mapped(uint8_t out[16], uint32_t ip) { tu_ipv4_mapped(out, ip); }

/* innermost offsets of a built packet */
static size_t in_l3(const tb *t) {
  return t->have_grh ? t->grh_off : t->ip_off[t->nip - 1];
}
static size_t in_l4(const tb *t) {
  return t->have_grh ? t->bth_off : t->udp_off[t->nudp - 1];
}

/* the ext-header fields of a packet built by tu_transport() */
static void check_ext_fields(const rtel_pkt_hd *hd, uint32_t h, uint8_t op) {
  if (h & RTEL_HD_F_RDETH)
    ck_assert_msg(hd->rdeth_eecnxt == TU_RDETH_EEC, "op 0x%02x eecnxt 0x%x",
                  op, hd->rdeth_eecnxt);
  if (h & RTEL_HD_F_DETH) {
    ck_assert_msg(hd->deth_qkey == TU_DETH_QKEY, "op 0x%02x qkey", op);
    ck_assert_msg(hd->deth_sqpn == TU_DETH_SQPN, "op 0x%02x sqpn 0x%x", op,
                  hd->deth_sqpn);
  }
  if (h & RTEL_HD_F_XRCETH)
    ck_assert_msg(hd->xrc_srqn == TU_XRC_SRQN, "op 0x%02x srqn 0x%x", op,
                  hd->xrc_srqn);
  if (h & RTEL_HD_F_RETH) {
    ck_assert_msg(hd->reth_va == TU_RETH_VA, "op 0x%02x reth va", op);
    ck_assert_msg(hd->reth_rkey == TU_RETH_RKEY, "op 0x%02x reth rkey", op);
    ck_assert_msg(hd->reth_dmalen == TU_RETH_LEN, "op 0x%02x dmalen", op);
  }
  if (h & RTEL_HD_F_ATOMICETH) {
    ck_assert_msg(hd->atomic_va == TU_ATOMIC_VA, "op 0x%02x atomic va", op);
    ck_assert_msg(hd->atomic_rkey == TU_ATOMIC_RKEY, "op 0x%02x rkey", op);
    ck_assert_msg(hd->atomic_swap == TU_ATOMIC_SWAP, "op 0x%02x swap", op);
    ck_assert_msg(hd->atomic_cmp == TU_ATOMIC_CMP, "op 0x%02x cmp", op);
  }
  if (h & RTEL_HD_F_AETH) {
    ck_assert_msg(hd->aeth_syndrome == TU_AETH_SYN, "op 0x%02x syndrome", op);
    ck_assert_msg(hd->aeth_msn == TU_AETH_MSN, "op 0x%02x msn 0x%x", op,
                  hd->aeth_msn);
  }
  if (h & RTEL_HD_F_ATOMICACKETH)
    ck_assert_msg(hd->atomicack_orig == TU_ATOMICACK_ORIG, "op 0x%02x orig",
                  op);
  if (h & RTEL_HD_F_IMMDT)
    ck_assert_msg(hd->imm == TU_IMM, "op 0x%02x imm 0x%x", op, hd->imm);
  if (h & RTEL_HD_F_IETH)
    ck_assert_msg(hd->ieth_rkey == TU_IETH_RKEY, "op 0x%02x ieth", op);
  if (h & RTEL_HD_F_FETH)
    ck_assert_msg(hd->feth == TU_FETH, "op 0x%02x feth 0x%x", op, hd->feth);
}

/* --------------------------------------------------------------- opcodes */

static void check_opcode(uint8_t op, int ipver) {
  int valid, rc;
  uint32_t h = tu_opcode_hdrs(op, &valid), want, got;
  size_t paylen = 0;
  uint8_t pad = 0;
  tb t;
  rtel_pkt_hd hd;
  rtel_decode_opts o = opts_flags(RTEL_DECODE_VERIFY_ICRC);
  int cnp = op == 0x81;

  if (tu_opcode_has_payload(op)) {
    paylen = (op & 0x1F) == 0x1D ? 8 : 13;
    pad = paylen == 13 ? 3 : 0;
  }
  if (!valid) {
    paylen = 20; /* all of it is "payload" for an unknown opcode */
    pad = 1;
  }
  build(&t, ipver, op, paylen, pad);
  rc = decode_tb(&hd, &o, &t);
  if (!valid) {
    /* reserved or vendor-specific: RoCE, only the BTH decoded */
    want = (ipver == 4   ? BASE_V4
            : ipver == 6 ? BASE_V6
                         : BASE_V1) |
           RTEL_HD_F_UNKNOWN_OPCODE;
    got = hd.flags;
    if (ipver == 1)
      got &= ~RTEL_HD_F_IPV6;
    ck_assert_msg(rc == 0,
                  "reserved opcode 0x%02x (ip %d): rc %d malformed %u", op,
                  ipver, rc, hd.malformed);
    ck_assert_msg(got == want,
                  "reserved opcode 0x%02x (ip %d): flags 0x%08x, want 0x%08x",
                  op, ipver, got, want);
    ck_assert_uint_eq(hd.opcode, op);
    ck_assert_uint_eq(hd.dqpn, TU_DQPN);
    ck_assert_uint_eq(hd.psn, TU_PSN);
    ck_assert_uint_eq(hd.pad, pad);
    ck_assert_uint_eq(hd.payload_off, t.bth_off + 12);
    ck_assert_uint_eq(hd.payload_len, paylen);
    ck_assert_uint_eq(hd.icrc_status, RTEL_ICRC_OK);
    return;
  }
  ck_assert_msg(rc == 0, "opcode 0x%02x (ip %d): rc %d malformed %u", op,
                ipver, rc, hd.malformed);
  want = (ipver == 4   ? BASE_V4
          : ipver == 6 ? BASE_V6
                       : BASE_V1) |
         h | (cnp ? RTEL_HD_F_CNP : 0);
  got = hd.flags;
  if (ipver == 1)
    got &= ~RTEL_HD_F_IPV6; /* header ambiguity: GRH may also set IPV6 */
  ck_assert_msg(
      got == want,
      "opcode 0x%02x (ip %d): flags 0x%08x, want 0x%08x (diff 0x%08x)", op,
      ipver, got, want, got ^ want);
  ck_assert_uint_eq(hd.roce, ipver == 1 ? 1 : 2);
  ck_assert_uint_eq(hd.opcode, op);
  ck_assert_uint_eq(hd.pad, pad);
  ck_assert_uint_eq(hd.pkey, TU_PKEY);
  ck_assert_uint_eq(hd.dqpn, TU_DQPN);
  ck_assert_uint_eq(hd.psn, TU_PSN);
  ck_assert_uint_eq(hd.ackreq, 1);
  ck_assert_uint_eq(hd.tver, 0);
  ck_assert_uint_eq(hd.bth_off, t.bth_off);
  check_ext_fields(&hd, h, op);
  /* payload accounting holds for every opcode */
  ck_assert_msg(hd.payload_off + hd.payload_len + hd.pad + 4 ==
                    (uint32_t)(t.icrc_off + 4),
                "opcode 0x%02x: payload_off %u + payload_len %u + pad %u + 4 "
                "!= end %zu",
                op, hd.payload_off, hd.payload_len, hd.pad, t.icrc_off + 4);
  if (!cnp) {
    ck_assert_msg(hd.payload_off == t.payload_off,
                  "opcode 0x%02x: payload_off %u, want %zu", op,
                  hd.payload_off, t.payload_off);
    ck_assert_msg(hd.payload_len == paylen,
                  "opcode 0x%02x: payload_len %u, want %zu", op,
                  hd.payload_len, paylen);
  }
  ck_assert_uint_eq(hd.icrc, tu_le32(t.b + t.icrc_off));
  ck_assert_msg(hd.icrc_status == RTEL_ICRC_OK,
                "opcode 0x%02x (ip %d): icrc_status %u", op, ipver,
                hd.icrc_status);
}

START_TEST(test_opcode_table_v4) { check_opcode((uint8_t)_i, 4); }
END_TEST

START_TEST(test_opcode_table_v6) { check_opcode((uint8_t)_i, 6); }
END_TEST

START_TEST(test_opcode_table_v1) { check_opcode((uint8_t)_i, 1); }
END_TEST

/* explicit spot checks of the IBTA header sequences, independent of the
 * table in rtel_test_pkt.c */
START_TEST(test_opcode_spot) {
  static const struct {
    uint8_t op;
    uint32_t h;
  } v[] = {
      {0x0B, RTEL_HD_F_RETH | RTEL_HD_F_IMMDT},
      {0x12, RTEL_HD_F_AETH | RTEL_HD_F_ATOMICACKETH},
      {0x1C, RTEL_HD_F_FETH | RTEL_HD_F_RETH},
      {0x1D, RTEL_HD_F_RETH},
      {0x2B, RTEL_HD_F_RETH | RTEL_HD_F_IMMDT},
      {0x40, RTEL_HD_F_RDETH | RTEL_HD_F_DETH},
      {0x4C, RTEL_HD_F_RDETH | RTEL_HD_F_DETH | RTEL_HD_F_RETH},
      {0x4E, RTEL_HD_F_RDETH},                  /* RD READ RESP MIDDLE */
      {0x51, RTEL_HD_F_RDETH | RTEL_HD_F_AETH}, /* RD ACK */
      {0x52, RTEL_HD_F_RDETH | RTEL_HD_F_AETH | RTEL_HD_F_ATOMICACKETH},
      {0x53, RTEL_HD_F_RDETH | RTEL_HD_F_DETH | RTEL_HD_F_ATOMICETH},
      {0x55, RTEL_HD_F_RDETH | RTEL_HD_F_DETH}, /* RD RESYNC */
      {0x5C,
       RTEL_HD_F_RDETH | RTEL_HD_F_DETH | RTEL_HD_F_FETH | RTEL_HD_F_RETH},
      {0x65, RTEL_HD_F_DETH | RTEL_HD_F_IMMDT},
      {0xA0, RTEL_HD_F_XRCETH},
      {0xAB, RTEL_HD_F_XRCETH | RTEL_HD_F_RETH | RTEL_HD_F_IMMDT},
      {0xB1, RTEL_HD_F_AETH}, /* XRC ACK: no XRCETH on responses */
      {0xB7, RTEL_HD_F_XRCETH | RTEL_HD_F_IETH},
      {0xBC, RTEL_HD_F_XRCETH | RTEL_HD_F_FETH | RTEL_HD_F_RETH},
  };
  static const uint8_t reserved[] = {
      0x15, 0x18, 0x1B, 0x1E, 0x1F, 0x2C, 0x3F, 0x56, 0x57, 0x5B, 0x5E, 0x63,
      0x66, 0x7F, 0x80, 0x82, 0x9F, 0xB5, 0xB8, 0xBB, 0xBE, 0xC0, 0xFF};
  size_t i;
  for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
    int ok;
    ck_assert_msg(tu_opcode_hdrs(v[i].op, &ok) == v[i].h && ok,
                  "test table disagrees for 0x%02x", v[i].op);
  }
  for (i = 0; i < sizeof(reserved); i++) {
    int ok;
    tu_opcode_hdrs(reserved[i], &ok);
    ck_assert_msg(!ok, "0x%02x should be reserved", reserved[i]);
  }
}
END_TEST

/* --------------------------------------------------------------- BTH */

static void build_bth(tb *t, const tb_bth_f *f, size_t paylen) {
  tu_spec s;
  tu_spec_init(&s, f->opcode, paylen);
  tb_init(t);
  tu_headers(t, &s);
  tb_bth(t, f);
  tb_pattern(t, paylen, 9);
  tb_fill(t, 0, f->pad);
  tb_finish(t);
}

START_TEST(test_bth_fields) {
  tb t;
  rtel_pkt_hd hd;
  tb_bth_f f;
  memset(&f, 0, sizeof(f));
  f.opcode = 0x04;
  f.se = 1;
  f.m = 1;
  f.pad = 2;
  f.pkey = 0xFFFF;
  f.fecn = 1;
  f.becn = 1;
  f.resv6 = 0x2A;
  f.dqpn = 0xFFFFFF;
  f.ackreq = 0;
  f.resv7 = 0x55;
  f.psn = 0xFFFFFF;
  build_bth(&t, &f, 10);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert_uint_eq(hd.se, 1);
  ck_assert_uint_eq(hd.m, 1);
  ck_assert_uint_eq(hd.pad, 2);
  ck_assert_uint_eq(hd.tver, 0);
  ck_assert_uint_eq(hd.pkey, 0xFFFF);
  ck_assert_uint_eq(hd.fecn, 1);
  ck_assert_uint_eq(hd.becn, 1);
  ck_assert_uint_eq(hd.resv6, 0x2A);
  ck_assert_uint_eq(hd.dqpn, 0xFFFFFF);
  ck_assert_uint_eq(hd.ackreq, 0);
  ck_assert_uint_eq(hd.resv7, 0x55);
  ck_assert_uint_eq(hd.psn, 0xFFFFFF);
  ck_assert_uint_eq(hd.payload_len, 10);

  /* the complement: every single-bit field flipped */
  memset(&f, 0, sizeof(f));
  f.opcode = 0x04;
  f.pkey = 0x0001;
  f.fecn = 1;
  f.resv6 = 0x3F;
  f.dqpn = 0x000002;
  f.ackreq = 1;
  f.resv7 = 0x7F;
  f.psn = 0x800000;
  build_bth(&t, &f, 4);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert_uint_eq(hd.se, 0);
  ck_assert_uint_eq(hd.m, 0);
  ck_assert_uint_eq(hd.pad, 0);
  ck_assert_uint_eq(hd.pkey, 1);
  ck_assert_uint_eq(hd.fecn, 1);
  ck_assert_uint_eq(hd.becn, 0);
  ck_assert_uint_eq(hd.resv6, 0x3F);
  ck_assert_uint_eq(hd.dqpn, 2);
  ck_assert_uint_eq(hd.ackreq, 1);
  ck_assert_uint_eq(hd.resv7, 0x7F);
  ck_assert_uint_eq(hd.psn, 0x800000);

  f.fecn = 0;
  f.becn = 1;
  f.resv6 = 0;
  build_bth(&t, &f, 4);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert_uint_eq(hd.fecn, 0);
  ck_assert_uint_eq(hd.becn, 1);
  ck_assert_uint_eq(hd.resv6, 0);
}
END_TEST

/* tver != 0: decoded as an unknown opcode (BTH only, the rest payload) */
START_TEST(test_bth_tver) {
  tb t;
  rtel_pkt_hd hd;
  tb_bth_f f;
  rtel_decode_opts o = opts_flags(RTEL_DECODE_VERIFY_ICRC);
  unsigned v;
  for (v = 1; v < 16; v += 7) {
    tu_spec s;
    memset(&f, 0, sizeof(f));
    f.opcode = 0x0A; /* WRITE ONLY: would carry a RETH */
    f.tver = (uint8_t)v;
    f.dqpn = TU_DQPN;
    f.psn = 77;
    tu_spec_init(&s, 0x0A, 0);
    tb_init(&t);
    tu_headers(&t, &s);
    tb_bth(&t, &f);
    tb_reth(&t, TU_RETH_VA, TU_RETH_RKEY, 8);
    tb_pattern(&t, 8, 1);
    tb_finish(&t);
    ck_assert_int_eq(decode_tb(&hd, &o, &t), 0);
    ck_assert(hd.flags & RTEL_HD_F_ROCE);
    ck_assert(hd.flags & RTEL_HD_F_UNKNOWN_TVER);
    ck_assert(!(hd.flags & RTEL_HD_F_RETH));
    ck_assert_uint_eq(hd.tver, v);
    ck_assert_uint_eq(hd.opcode, 0x0A);
    ck_assert_uint_eq(hd.psn, 77);
    ck_assert_uint_eq(hd.payload_off, t.bth_off + 12);
    ck_assert_uint_eq(hd.payload_len, 16 + 8);
    ck_assert_uint_eq(hd.icrc_status, RTEL_ICRC_OK);
  }
}
END_TEST

/* --------------------------------------------------------------- AETH */

START_TEST(test_aeth_kinds) {
  static const struct {
    uint8_t syn;
    unsigned kind, value;
  } v[] = {
      {0x1F, RTEL_AETH_ACK, 31}, /* ACK, credits invalid */
      {0x05, RTEL_AETH_ACK, 5},  /* ACK, 5 credits */
      {0x00, RTEL_AETH_ACK, 0},
      {0x2E, RTEL_AETH_RNR_NAK, 14}, /* RNR NAK timer 14 (1.28 ms) */
      {0x20, RTEL_AETH_RNR_NAK, 0},
      {0x3F, RTEL_AETH_RNR_NAK, 31},
      {0x41, RTEL_AETH_RESERVED, 1},
      {0x60, RTEL_AETH_NAK, RTEL_NAK_PSN_SEQ_ERROR},
      {0x61, RTEL_AETH_NAK, RTEL_NAK_INVALID_REQUEST},
      {0x62, RTEL_AETH_NAK, RTEL_NAK_REMOTE_ACCESS},
      {0x63, RTEL_AETH_NAK, RTEL_NAK_REMOTE_OP},
      {0x64, RTEL_AETH_NAK, RTEL_NAK_INVALID_RD_REQUEST},
      {0x9F, RTEL_AETH_ACK, 31}, /* bit 7 reserved, kept in the raw value */
  };
  size_t i;
  for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
    tb t;
    tu_spec s;
    rtel_pkt_hd hd;
    tb_bth_f f;
    tu_spec_init(&s, 0x11, 0);
    tb_init(&t);
    tu_headers(&t, &s);
    memset(&f, 0, sizeof(f));
    f.opcode = 0x11;
    f.dqpn = 0x11;
    f.psn = 0x123;
    tb_bth(&t, &f);
    tb_aeth(&t, v[i].syn, 0x000001u + (uint32_t)i);
    tb_finish(&t);
    ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
    ck_assert(hd.flags & RTEL_HD_F_AETH);
    ck_assert_uint_eq(hd.aeth_syndrome, v[i].syn);
    ck_assert_uint_eq(hd.aeth_msn, 1 + i);
    ck_assert_uint_eq(RTEL_AETH_KIND(hd.aeth_syndrome), v[i].kind);
    ck_assert_uint_eq(RTEL_AETH_VALUE(hd.aeth_syndrome), v[i].value);
    ck_assert_uint_eq(hd.payload_len, 0);
  }
}
END_TEST

/* --------------------------------------------------------------- pad */

START_TEST(test_pad_counts) {
  unsigned p;
  for (p = 0; p < 4; p++) {
    tb t;
    rtel_pkt_hd hd;
    build(&t, 4, 0x04, 16, (uint8_t)p);
    ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
    ck_assert_uint_eq(hd.pad, p);
    ck_assert_uint_eq(hd.payload_len, 16);
    ck_assert_uint_eq(hd.payload_off, t.payload_off);
  }
}
END_TEST

/* pad count > bytes after the headers: BTH pad field set by hand */
static void build_pad_lie(tb *t, size_t paylen, uint8_t pad_field) {
  build(t, 4, 0x04, paylen, 0);
  t->b[t->bth_off + 1] =
      (uint8_t)((t->b[t->bth_off + 1] & 0xCF) | (pad_field << 4));
  tb_refresh(t);
}

START_TEST(test_pad_malformed) {
  tb t;
  rtel_pkt_hd hd;
  build_pad_lie(&t, 0, 1);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), RTEL_ERR_MALFORMED);
  ck_assert_uint_eq(hd.malformed, RTEL_MALFORMED_PAD);
  build_pad_lie(&t, 2, 3);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), RTEL_ERR_MALFORMED);
  ck_assert_uint_eq(hd.malformed, RTEL_MALFORMED_PAD);
  /* exactly the pad: zero payload bytes, fine */
  build_pad_lie(&t, 3, 3);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert_uint_eq(hd.payload_len, 0);
  ck_assert_uint_eq(hd.pad, 3);
}
END_TEST

/* --------------------------------------------------------------- payload */

START_TEST(test_payload_fields) {
  tb t;
  rtel_pkt_hd hd;
  size_t full;
  /* RC WRITE ONLY with immediate: BTH + RETH + ImmDt + 1000 + pad 0 */
  build(&t, 4, 0x0B, 1000, 0);
  full = t.n;
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert_uint_eq(hd.payload_off, 14 + 20 + 8 + 12 + 16 + 4);
  ck_assert_uint_eq(hd.payload_len, 1000);
  ck_assert_uint_eq(hd.payload_cap, 1000);
  /* capture cut 100 bytes into the payload */
  ck_assert_int_eq(decode(&hd, NULL, t.b, t.payload_off + 100, full), 0);
  ck_assert_uint_eq(hd.payload_len, 1000);
  ck_assert_uint_eq(hd.payload_cap, 100);
  ck_assert(hd.flags & RTEL_HD_F_TRUNCATED);
  ck_assert(!(hd.flags & RTEL_HD_F_HDR_TRUNC));
  ck_assert(!(hd.flags & RTEL_HD_F_ICRC));
  /* capture ends exactly at the payload */
  ck_assert_int_eq(decode(&hd, NULL, t.b, t.payload_off, full), 0);
  ck_assert_uint_eq(hd.payload_cap, 0);
  ck_assert(!(hd.flags & RTEL_HD_F_HDR_TRUNC));
}
END_TEST

/* Ethernet padding / FCS after the IP packet: lengths come from IP/UDP */
START_TEST(test_eth_trailer) {
  tb t;
  rtel_pkt_hd hd;
  rtel_decode_opts o = opts_flags(RTEL_DECODE_VERIFY_ICRC);
  size_t end;
  build(&t, 4, 0x04, 5, 3);
  end = t.n;
  tb_fill(&t, 0xEE, 8); /* trailer */
  ck_assert_int_eq(decode_tb(&hd, &o, &t), 0);
  ck_assert_uint_eq(hd.payload_len, 5);
  ck_assert_uint_eq(hd.icrc, tu_le32(t.b + end - 4));
  ck_assert_uint_eq(hd.icrc_status, RTEL_ICRC_OK);
  ck_assert(!(hd.flags & RTEL_HD_F_TRUNCATED));
  ck_assert_uint_eq(hd.payload_cap, 5); /* pad, ICRC, trailer excluded */
}
END_TEST

START_TEST(test_wire_len_arg) {
  tb t;
  rtel_pkt_hd hd;
  build(&t, 4, 0x04, 32, 0);
  ck_assert_int_eq(decode(&hd, NULL, t.b, t.n, 0), 0);
  ck_assert_uint_eq(hd.wire_len, t.n);
  ck_assert_uint_eq(hd.cap_len, t.n);
  ck_assert(!(hd.flags & RTEL_HD_F_TRUNCATED));
  /* wire_len below caplen is treated as caplen */
  ck_assert_int_eq(decode(&hd, NULL, t.b, t.n, t.n - 5), 0);
  ck_assert_uint_eq(hd.wire_len, t.n);
  ck_assert(!(hd.flags & RTEL_HD_F_TRUNCATED));
  ck_assert(hd.flags & RTEL_HD_F_ICRC);
}
END_TEST

/* --------------------------------------------------------------- L2/L3 */

START_TEST(test_eth_ipv4_fields) {
  tb t;
  tu_spec s;
  rtel_pkt_hd hd;
  uint8_t a[16], b[16];
  tu_spec_init(&s, 0x0A, 64);
  s.tos = 0xB9; /* DSCP 46 (EF), ECN 1 */
  s.ttl = 0x21;
  tb_init(&t);
  tu_build(&t, &s);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert_uint_eq(hd.flags & BASE_V4, BASE_V4);
  ck_assert(!(hd.flags & (RTEL_HD_F_VLAN | RTEL_HD_F_IPV6 | RTEL_HD_F_GRH |
                          RTEL_HD_F_TRUNCATED | RTEL_HD_F_HDR_TRUNC)));
  ck_assert_uint_eq(hd.roce, 2);
  ck_assert_uint_eq(hd.encap, 0);
  ck_assert_uint_eq(hd.malformed, RTEL_MALFORMED_NONE);
  ck_assert_uint_eq(hd.wire_len, t.n);
  ck_assert_uint_eq(hd.cap_len, t.n);
  ck_assert_mem_eq(hd.eth_dst, tu_mac_b, 6);
  ck_assert_mem_eq(hd.eth_src, tu_mac_a, 6);
  ck_assert_uint_eq(hd.ethertype, 0x0800);
  ck_assert_uint_eq(hd.nvlan, 0);
  mapped(a, TU_IP4_A);
  mapped(b, TU_IP4_B);
  ck_assert_mem_eq(hd.src, a, 16);
  ck_assert_mem_eq(hd.dst, b, 16);
  ck_assert_uint_eq(hd.dscp, 46);
  ck_assert_uint_eq(hd.ecn, 1);
  ck_assert_uint_eq(hd.ttl, 0x21);
  ck_assert_uint_eq(hd.ip_proto, 17);
  ck_assert_uint_eq(hd.ip_len, t.n - 14);
  ck_assert_uint_eq(hd.l3_off, 14);
  ck_assert_uint_eq(hd.l4_off, 34);
  ck_assert_uint_eq(hd.sport, TU_SPORT);
  ck_assert_uint_eq(hd.dport, 4791);
  ck_assert_uint_eq(hd.udp_len, t.n - 34);
  ck_assert_uint_eq(hd.udp_csum, 0);
  ck_assert_uint_eq(hd.bth_off, 42);

  /* ECN CE, DSCP 26 */
  s.tos = 0x6B;
  tb_init(&t);
  tu_build(&t, &s);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert_uint_eq(hd.dscp, 26);
  ck_assert_uint_eq(hd.ecn, 3);
  /* a UDP checksum is reported as is */
  tb_set16(&t, 34 + 6, 0xBEEF);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert_uint_eq(hd.udp_csum, 0xBEEF);
}
END_TEST

START_TEST(test_ipv6_fields) {
  tb t;
  tu_spec s;
  rtel_pkt_hd hd;
  tu_spec_init(&s, 0x0A, 64);
  s.ipver = 6;
  s.tos = 0x6B;
  s.flow = 0xABCDE;
  s.ttl = 0x21;
  tb_init(&t);
  tu_build(&t, &s);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert_uint_eq(hd.flags & BASE_V6, BASE_V6);
  ck_assert(!(hd.flags & RTEL_HD_F_IPV4));
  ck_assert_uint_eq(hd.ethertype, 0x86DD);
  ck_assert_mem_eq(hd.src, tu_ip6_a, 16);
  ck_assert_mem_eq(hd.dst, tu_ip6_b, 16);
  ck_assert_uint_eq(hd.dscp, 26);
  ck_assert_uint_eq(hd.ecn, 3);
  ck_assert_uint_eq(hd.flow_label, 0xABCDE);
  ck_assert_uint_eq(hd.ttl, 0x21);
  ck_assert_uint_eq(hd.ip_proto, 17);
  ck_assert_uint_eq(hd.ip_len, t.n - 14);
  ck_assert_uint_eq(hd.l3_off, 14);
  ck_assert_uint_eq(hd.l4_off, 54);
  ck_assert_uint_eq(hd.bth_off, 62);
  ck_assert_uint_eq(hd.payload_len, 64);
  ck_assert_uint_eq(hd.reth_va, TU_RETH_VA);
}
END_TEST

START_TEST(test_vlan_tags) {
  static const uint16_t tpids[4][4] = {
      {0x8100, 0, 0, 0},
      {0x88A8, 0x8100, 0, 0},
      {0x9100, 0x88A8, 0x8100, 0},
      {0x9100, 0x88A8, 0x8100, 0x8100},
  };
  static const uint16_t tci[4] = {0xF001, 0x0002, 0x1FFE, 0x2003};
  int n;
  for (n = 1; n <= RTEL_MAX_VLAN; n++) {
    int i;
    tb t;
    tu_spec s;
    rtel_pkt_hd hd;
    tu_spec_init(&s, 0x04, 20);
    tb_init(&t);
    tb_eth(&t, tu_mac_b, tu_mac_a);
    for (i = 0; i < n; i++)
      tb_vlan(&t, tpids[n - 1][i], tci[i]);
    tb_ethertype(&t, 0x0800);
    s.raw_ip = 1; /* Ethernet and tags written above */
    tu_headers(&t, &s);
    tu_transport(&t, &s);
    tb_finish(&t);
    ck_assert_msg(decode_tb(&hd, NULL, &t) == 0, "%d tags: rc != 0", n);
    ck_assert(hd.flags & RTEL_HD_F_VLAN);
    ck_assert(hd.flags & RTEL_HD_F_ETH);
    ck_assert_uint_eq(hd.nvlan, n);
    for (i = 0; i < n; i++) {
      ck_assert_msg(hd.vlan_tpid[i] == tpids[n - 1][i],
                    "%d tags: tpid[%d] 0x%04x", n, i, hd.vlan_tpid[i]);
      ck_assert_msg(hd.vlan_tci[i] == tci[i], "%d tags: tci[%d] 0x%04x", n, i,
                    hd.vlan_tci[i]);
    }
    ck_assert_uint_eq(hd.ethertype, 0x0800);
    ck_assert_uint_eq(hd.l3_off, 14 + 4 * n);
    ck_assert_uint_eq(hd.bth_off, 14 + 4 * n + 28);
    ck_assert_uint_eq(hd.payload_len, 20);
  }
}
END_TEST

START_TEST(test_vlan_depth) {
  tb t;
  tu_spec s;
  rtel_pkt_hd hd;
  tu_spec_init(&s, 0x04, 20);
  s.nvlan = RTEL_MAX_VLAN + 1;
  tb_init(&t);
  tu_build(&t, &s);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), RTEL_ERR_MALFORMED);
  ck_assert_uint_eq(hd.malformed, RTEL_MALFORMED_VLAN_DEPTH);
  ck_assert(!(hd.flags & RTEL_HD_F_ROCE));
}
END_TEST

static void build_v4_opts(tb *t, const uint8_t *opts, size_t optlen,
                          uint8_t opcode) {
  tu_spec s;
  tu_spec_init(&s, opcode, 24);
  tb_init(t);
  tb_eth(t, tu_mac_b, tu_mac_a);
  tb_ethertype(t, 0x0800);
  tb_ipv4(t, 0, 0x55, 0x4000, 64, 17, TU_IP4_A, TU_IP4_B, opts, optlen);
  tb_udp(t, TU_SPORT, 4791);
  tu_transport(t, &s);
  tb_finish(t);
}

START_TEST(test_ipv4_options) {
  static const uint8_t o4[4] = {0x01, 0x01, 0x01, 0x00};
  uint8_t o40[40];
  tb t;
  rtel_pkt_hd hd;
  memset(o40, 0x01, sizeof(o40));
  o40[0] = 0x94; /* router alert */
  o40[1] = 0x04;
  o40[2] = 0;
  o40[3] = 0;
  o40[39] = 0x00;
  build_v4_opts(&t, o4, sizeof(o4), 0x0A);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert_uint_eq(hd.l3_off, 14);
  ck_assert_uint_eq(hd.l4_off, 14 + 24);
  ck_assert_uint_eq(hd.bth_off, 14 + 24 + 8);
  ck_assert_uint_eq(hd.ip_len, t.n - 14);
  ck_assert_uint_eq(hd.reth_rkey, TU_RETH_RKEY);
  ck_assert_uint_eq(hd.payload_len, 24);
  build_v4_opts(&t, o40, sizeof(o40), 0x0A);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert_uint_eq(hd.l4_off, 14 + 60);
  ck_assert_uint_eq(hd.bth_off, 14 + 68);
  ck_assert_uint_eq(hd.payload_len, 24);
}
END_TEST

START_TEST(test_ipv4_hlen) {
  tb t;
  rtel_pkt_hd hd;
  unsigned ihl;
  for (ihl = 0; ihl < 5; ihl++) {
    build(&t, 4, 0x04, 16, 0);
    t.b[14] = (uint8_t)(0x40 | ihl);
    ck_assert_int_eq(decode_tb(&hd, NULL, &t), RTEL_ERR_MALFORMED);
    ck_assert_msg(hd.malformed == RTEL_MALFORMED_IP_HLEN, "ihl %u: reason %u",
                  ihl, hd.malformed);
  }
}
END_TEST

START_TEST(test_ip_version) {
  tb t;
  rtel_pkt_hd hd;
  /* IPv4 ethertype, version nibble 6 */
  build(&t, 4, 0x04, 16, 0);
  t.b[14] = 0x65;
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), RTEL_ERR_MALFORMED);
  ck_assert_uint_eq(hd.malformed, RTEL_MALFORMED_IP_VERSION);
  /* IPv6 ethertype carrying an IPv4 header */
  build(&t, 4, 0x04, 16, 0);
  tb_set16(&t, 12, 0x86DD);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), RTEL_ERR_MALFORMED);
  ck_assert_uint_eq(hd.malformed, RTEL_MALFORMED_IP_VERSION);
}
END_TEST

START_TEST(test_ipv4_fragments) {
  static const uint16_t frag[] = {0x2000 /* MF */, 0x0010 /* off 128 */,
                                  0x2001, 0x1FFF};
  size_t i;
  for (i = 0; i < sizeof(frag) / sizeof(frag[0]); i++) {
    tb t;
    rtel_pkt_hd hd;
    build(&t, 4, 0x04, 64, 0);
    tb_set16(&t, 14 + 6, frag[i]);
    tb_refresh(&t);
    ck_assert_msg(decode_tb(&hd, NULL, &t) == RTEL_ERR_NOT_ROCE,
                  "frag 0x%04x not NOT_ROCE", frag[i]);
    ck_assert(hd.flags & RTEL_HD_F_IP_FRAGMENT);
    ck_assert(hd.flags & RTEL_HD_F_IPV4);
    ck_assert(!(hd.flags & RTEL_HD_F_ROCE));
  }
  {
    /* DF alone (what RoCE NICs send) is not a fragment: tu_build sets DF */
    tb t;
    rtel_pkt_hd hd;
    build(&t, 4, 0x04, 64, 0);
    ck_assert_uint_eq(tb_get16(&t, 20), 0x4000);
    ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
    ck_assert(!(hd.flags & RTEL_HD_F_IP_FRAGMENT));
  }
}
END_TEST

static void build_v6_ext(tb *t, uint8_t opcode, size_t paylen) {
  tu_spec s;
  tu_spec_init(&s, opcode, paylen);
  tb_init(t);
  tb_eth(t, tu_mac_b, tu_mac_a);
  tb_ethertype(t, 0x86DD);
  tb_ipv6(t, 0x02, 0x12345, 0 /* HBH */, 64, tu_ip6_a, tu_ip6_b);
  tb_ipv6_ext(t, 60, 0); /* hop-by-hop, 8 bytes, next: dest opts */
  tb_ipv6_ext(t, 43, 1); /* destination options, 16 bytes, next: routing */
  tb_ipv6_ext(t, 17, 0); /* routing, 8 bytes, next: UDP */
  tb_udp(t, TU_SPORT, 4791);
  tu_transport(t, &s);
  tb_finish(t);
}

START_TEST(test_ipv6_ext_headers) {
  tb t;
  rtel_pkt_hd hd;
  build_v6_ext(&t, 0x65, 40);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert(hd.flags & RTEL_HD_F_IPV6);
  ck_assert_uint_eq(hd.ip_proto, 17);
  ck_assert_uint_eq(hd.l3_off, 14);
  ck_assert_uint_eq(hd.l4_off, 14 + 40 + 8 + 16 + 8);
  ck_assert_uint_eq(hd.bth_off, 14 + 40 + 32 + 8);
  ck_assert_uint_eq(hd.ip_len, t.n - 14);
  ck_assert_uint_eq(hd.flow_label, 0x12345);
  ck_assert_uint_eq(hd.deth_qkey, TU_DETH_QKEY);
  ck_assert_uint_eq(hd.deth_sqpn, TU_DETH_SQPN);
  ck_assert_uint_eq(hd.imm, TU_IMM);
  ck_assert_uint_eq(hd.payload_len, 40);
}
END_TEST

START_TEST(test_ipv6_ext_malformed) {
  tb t;
  tu_spec s;
  rtel_pkt_hd hd;
  /* hop-by-hop header claiming 2048 bytes in a short packet */
  tu_spec_init(&s, 0x04, 8);
  tb_init(&t);
  tb_eth(&t, tu_mac_b, tu_mac_a);
  tb_ethertype(&t, 0x86DD);
  tb_ipv6(&t, 0, 0, 0, 64, tu_ip6_a, tu_ip6_b);
  tb_put8(&t, 17);
  tb_put8(&t, 0xFF);
  tb_fill(&t, 0, 6);
  tb_udp(&t, TU_SPORT, 4791);
  tu_transport(&t, &s);
  tb_finish(&t);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), RTEL_ERR_MALFORMED);
  ck_assert_uint_eq(hd.malformed, RTEL_MALFORMED_IPV6_EXT);
}
END_TEST

START_TEST(test_ipv6_fragment_and_nonxt) {
  tb t;
  tu_spec s;
  rtel_pkt_hd hd;
  tu_spec_init(&s, 0x04, 8);
  tb_init(&t);
  tb_eth(&t, tu_mac_b, tu_mac_a);
  tb_ethertype(&t, 0x86DD);
  tb_ipv6(&t, 0, 0, 44, 64, tu_ip6_a, tu_ip6_b);
  tb_ipv6_frag(&t, 17, 0, 1, 0xABCD);
  tb_udp(&t, TU_SPORT, 4791);
  tu_transport(&t, &s);
  tb_finish(&t);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), RTEL_ERR_NOT_ROCE);
  ck_assert(hd.flags & RTEL_HD_F_IP_FRAGMENT);
  ck_assert(!(hd.flags & RTEL_HD_F_ROCE));

  /* next header 59: no next header */
  tb_init(&t);
  tb_eth(&t, tu_mac_b, tu_mac_a);
  tb_ethertype(&t, 0x86DD);
  tb_ipv6(&t, 0, 0, 59, 64, tu_ip6_a, tu_ip6_b);
  tb_fill(&t, 0, 16);
  tb_finish_plain(&t);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), RTEL_ERR_NOT_ROCE);
}
END_TEST

/* --------------------------------------------------------------- RoCEv1 */

START_TEST(test_rocev1) {
  tb t;
  tu_spec s;
  rtel_pkt_hd hd;
  rtel_decode_opts o = opts_flags(RTEL_DECODE_VERIFY_ICRC);
  tu_spec_init(&s, 0x16, 48); /* SEND LAST with Invalidate */
  s.ipver = 1;
  s.tos = 0xB9;
  s.flow = 0xFEDCB;
  s.ttl = 0x07;
  tb_init(&t);
  tu_build(&t, &s);
  ck_assert_int_eq(decode_tb(&hd, &o, &t), 0);
  ck_assert_uint_eq(hd.roce, 1);
  ck_assert(hd.flags & RTEL_HD_F_GRH);
  ck_assert(hd.flags & RTEL_HD_F_ROCE);
  ck_assert(!(hd.flags & (RTEL_HD_F_UDP | RTEL_HD_F_IPV4)));
  ck_assert_uint_eq(hd.ethertype, 0x8915);
  ck_assert_mem_eq(hd.src, tu_ip6_a, 16);
  ck_assert_mem_eq(hd.dst, tu_ip6_b, 16);
  ck_assert_uint_eq(hd.dscp, 46);
  ck_assert_uint_eq(hd.ecn, 1);
  ck_assert_uint_eq(hd.flow_label, 0xFEDCB);
  ck_assert_uint_eq(hd.ttl, 7);
  ck_assert_uint_eq(hd.ip_proto, 0x1B);
  ck_assert_uint_eq(hd.ip_len, t.n - 14);
  ck_assert_uint_eq(hd.l3_off, 14);
  ck_assert_uint_eq(hd.l4_off, 54);
  ck_assert_uint_eq(hd.bth_off, 54);
  ck_assert_uint_eq(hd.ieth_rkey, TU_IETH_RKEY);
  ck_assert_uint_eq(hd.payload_off, 54 + 12 + 4);
  ck_assert_uint_eq(hd.payload_len, 48);
  ck_assert_uint_eq(hd.icrc_status, RTEL_ICRC_OK);

  /* RoCEv1 disabled */
  o.flags = RTEL_DECODE_NO_ROCEV1;
  ck_assert_int_eq(decode_tb(&hd, &o, &t), RTEL_ERR_NOT_ROCE);
  ck_assert(!(hd.flags & RTEL_HD_F_ROCE));

  /* GRH next header other than 0x1B */
  t.b[14 + 6] = 0x11;
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), RTEL_ERR_MALFORMED);
  ck_assert_uint_eq(hd.malformed, RTEL_MALFORMED_GRH);
}
END_TEST

/* --------------------------------------------------------------- tunnels */

static void outer_v4(tb *t, uint8_t proto) {
  tb_eth(t, omac_b, omac_a);
  tb_ethertype(t, 0x0800);
  tb_ipv4(t, 0x10, 7, 0, 60, proto, 0xC0A80001u, 0xC0A80002u, NULL, 0);
}

static void inner(tb *t, uint8_t opcode, size_t paylen, int ipver) {
  tu_spec s;
  tu_spec_init(&s, opcode, paylen);
  s.ipver = ipver;
  tu_headers(t, &s);
  tu_transport(t, &s);
  tb_finish(t);
}

static void check_inner(const rtel_pkt_hd *hd, const tb *t, uint8_t opcode,
                        size_t paylen) {
  uint8_t a[16];
  ck_assert(hd->flags & RTEL_HD_F_ROCE);
  ck_assert_uint_eq(hd->opcode, opcode);
  ck_assert_uint_eq(hd->dqpn, TU_DQPN);
  ck_assert_uint_eq(hd->psn, TU_PSN);
  ck_assert_mem_eq(hd->eth_dst, tu_mac_b, 6); /* innermost frame */
  ck_assert_mem_eq(hd->eth_src, tu_mac_a, 6);
  ck_assert_uint_eq(hd->l3_off, in_l3(t));
  ck_assert_uint_eq(hd->l4_off, in_l4(t));
  ck_assert_uint_eq(hd->bth_off, t->bth_off);
  ck_assert_uint_eq(hd->payload_off, t->payload_off);
  ck_assert_uint_eq(hd->payload_len, paylen);
  if (t->ip_ver[t->nip - 1] == 4) {
    mapped(a, TU_IP4_A);
    ck_assert_mem_eq(hd->src, a, 16);
    ck_assert_uint_eq(hd->dport, 4791);
  }
  ck_assert(hd->flags & RTEL_HD_F_ICRC);
  /* hd->icrc itself: test_icrc_unchecked and the icrc case */
}

START_TEST(test_erspan1) {
  tb t;
  rtel_pkt_hd hd;
  tb_init(&t);
  outer_v4(&t, 47);
  tb_gre(&t, 0x0000, 0x88BE, 0, 0);
  inner(&t, 0x0A, 100, 4);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert_uint_eq(hd.encap, RTEL_ENCAP_ERSPAN1);
  ck_assert(!(hd.flags & RTEL_HD_F_ERSPAN_TS));
  check_inner(&hd, &t, 0x0A, 100);
}
END_TEST

START_TEST(test_erspan2) {
  tb t;
  rtel_pkt_hd hd;
  rtel_decode_opts o = opts_flags(RTEL_DECODE_VERIFY_ICRC);
  tb_init(&t);
  outer_v4(&t, 47);
  tb_gre(&t, 0x1000, 0x88BE, 0, 0x01020304);
  tb_erspan2(&t, 0x123, 5, 3, 1, 0x3A5, 0xABCDE);
  inner(&t, 0x0C, 0, 4);
  ck_assert_int_eq(decode_tb(&hd, &o, &t), 0);
  ck_assert_uint_eq(hd.encap, RTEL_ENCAP_ERSPAN2);
  ck_assert_uint_eq(hd.nencap, 1);
  ck_assert_uint_eq(hd.encap_list[0], RTEL_ENCAP_ERSPAN2);
  ck_assert_uint_eq(hd.erspan_session, 0x3A5);
  ck_assert(!(hd.flags & RTEL_HD_F_ERSPAN_TS));
  check_inner(&hd, &t, 0x0C, 0);
  ck_assert_uint_eq(hd.reth_dmalen, TU_RETH_LEN);
  ck_assert_uint_eq(hd.icrc_status, RTEL_ICRC_OK);

  /* with decapsulation off the frame is not RoCE */
  o.flags = RTEL_DECODE_NO_DECAP;
  ck_assert_int_eq(decode_tb(&hd, &o, &t), RTEL_ERR_NOT_ROCE);
  ck_assert(!(hd.flags & RTEL_HD_F_ROCE));
}
END_TEST

START_TEST(test_erspan2_outer_ipv6_inner_vlan_ipv6) {
  tb t;
  tu_spec s;
  rtel_pkt_hd hd;
  tb_init(&t);
  tb_eth(&t, omac_b, omac_a);
  tb_ethertype(&t, 0x86DD);
  tb_ipv6(&t, 0, 0, 47, 64, tu_ip6_b, tu_ip6_a);
  tb_gre(&t, 0x1000, 0x88BE, 0, 9);
  tb_erspan2(&t, 0, 0, 0, 0, 0x001, 0);
  tu_spec_init(&s, 0x11, 0);
  s.ipver = 6;
  s.nvlan = 2;
  tu_headers(&t, &s);
  tu_transport(&t, &s);
  tb_finish(&t);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert_uint_eq(hd.encap, RTEL_ENCAP_ERSPAN2);
  ck_assert_uint_eq(hd.erspan_session, 1);
  ck_assert_uint_eq(hd.nvlan, 2);
  ck_assert_uint_eq(hd.vlan_tci[0], 0x0100);
  ck_assert_uint_eq(hd.vlan_tci[1], 0x0101);
  ck_assert(hd.flags & RTEL_HD_F_IPV6);
  ck_assert_mem_eq(hd.src, tu_ip6_a, 16); /* inner, not the outer */
  ck_assert_uint_eq(hd.aeth_msn, TU_AETH_MSN);
  check_inner(&hd, &t, 0x11, 0);
}
END_TEST

START_TEST(test_erspan3) {
  int o;
  for (o = 0; o < 2; o++) {
    tb t;
    rtel_pkt_hd hd;
    rtel_decode_opts opt = opts_flags(RTEL_DECODE_VERIFY_ICRC);
    tb_init(&t);
    outer_v4(&t, 47);
    tb_gre(&t, 0x1000, 0x22EB, 0, 0x0A0B0C0D);
    /* FT (frame type) 0 = Ethernet; the other fields all-ones-ish */
    tb_erspan3(&t, 0xABC, 7, 2, 1, 0x2C7, 0x89ABCDEFu, 0xBEEF, 1, 0, 0x3F, 1,
               2, (uint8_t)o);
    inner(&t, 0x0D, 256, 4);
    ck_assert_msg(decode_tb(&hd, &opt, &t) == 0, "O bit %d: not decoded", o);
    ck_assert_uint_eq(hd.encap, RTEL_ENCAP_ERSPAN3);
    ck_assert_uint_eq(hd.erspan_session, 0x2C7);
    ck_assert(hd.flags & RTEL_HD_F_ERSPAN_TS);
    ck_assert_uint_eq(hd.erspan_ts, 0x89ABCDEFu);
    ck_assert_uint_eq(hd.erspan_gra, 2);
    check_inner(&hd, &t, 0x0D, 256);
    ck_assert_uint_eq(hd.aeth_syndrome, TU_AETH_SYN);
    ck_assert_uint_eq(hd.icrc_status, RTEL_ICRC_OK);
  }
}
END_TEST

START_TEST(test_erspan_gre_malformed) {
  tb t;
  rtel_pkt_hd hd;
  /* ERSPAN II header with version 2 under 0x88BE */
  tb_init(&t);
  outer_v4(&t, 47);
  tb_gre(&t, 0x1000, 0x88BE, 0, 1);
  tb_erspan2_ver(&t, 2, 5);
  inner(&t, 0x04, 8, 4);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), RTEL_ERR_MALFORMED);
  ck_assert_uint_eq(hd.malformed, RTEL_MALFORMED_ERSPAN);
  /* GRE version 1 */
  tb_init(&t);
  outer_v4(&t, 47);
  tb_gre(&t, 0x1001, 0x88BE, 0, 1);
  tb_erspan2(&t, 0, 0, 0, 0, 5, 0);
  inner(&t, 0x04, 8, 4);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), RTEL_ERR_MALFORMED);
  ck_assert_uint_eq(hd.malformed, RTEL_MALFORMED_GRE);
  /* GRE routing present (R bit, RFC 1701) */
  tb_init(&t);
  outer_v4(&t, 47);
  tb_gre(&t, 0x4000, 0x88BE, 0, 0);
  tb_put32(&t, 0); /* offset/checksum words of a routing GRE */
  inner(&t, 0x04, 8, 4);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), RTEL_ERR_MALFORMED);
  ck_assert_uint_eq(hd.malformed, RTEL_MALFORMED_GRE);
}
END_TEST

START_TEST(test_vxlan) {
  tb t;
  rtel_pkt_hd hd;
  rtel_decode_opts o = opts_flags(RTEL_DECODE_VERIFY_ICRC);
  tb_init(&t);
  outer_v4(&t, 17);
  tb_udp(&t, 0xE000, 4789);
  tb_vxlan(&t, 0x08, 0xABCDEF);
  inner(&t, 0xA4, 33, 4); /* XRC SEND ONLY */
  ck_assert_int_eq(decode_tb(&hd, &o, &t), 0);
  ck_assert_uint_eq(hd.encap, RTEL_ENCAP_VXLAN);
  ck_assert_uint_eq(hd.nencap, 1);
  ck_assert_uint_eq(hd.encap_list[0], RTEL_ENCAP_VXLAN);
  ck_assert_uint_eq(hd.vxlan_vni, 0xABCDEF);
  ck_assert_uint_eq(hd.xrc_srqn, TU_XRC_SRQN);
  check_inner(&hd, &t, 0xA4, 33);
  ck_assert_uint_eq(hd.sport, TU_SPORT);
  ck_assert_uint_eq(hd.icrc_status, RTEL_ICRC_OK);

  o.flags = RTEL_DECODE_NO_DECAP;
  ck_assert_int_eq(decode_tb(&hd, &o, &t), RTEL_ERR_NOT_ROCE);

  /* I flag clear */
  t.b[t.udp_off[0] + 8] = 0x00;
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), RTEL_ERR_MALFORMED);
  ck_assert_uint_eq(hd.malformed, RTEL_MALFORMED_VXLAN);
}
END_TEST

START_TEST(test_vxlan_custom_port) {
  tb t;
  rtel_pkt_hd hd;
  rtel_decode_opts o;
  tb_init(&t);
  outer_v4(&t, 17);
  tb_udp(&t, 0xE000, 8472);
  tb_vxlan(&t, 0x08, 0x000001);
  inner(&t, 0x04, 16, 4);
  /* default port 4789: UDP 8472 is just UDP */
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), RTEL_ERR_NOT_ROCE);
  memset(&o, 0, sizeof(o));
  o.vxlan_udp_port = 8472;
  ck_assert_int_eq(decode_tb(&hd, &o, &t), 0);
  ck_assert_uint_eq(hd.encap, RTEL_ENCAP_VXLAN);
  ck_assert_uint_eq(hd.vxlan_vni, 1);
  check_inner(&hd, &t, 0x04, 16);
}
END_TEST

START_TEST(test_gre_teb) {
  tb t;
  rtel_pkt_hd hd;
  tb_init(&t);
  outer_v4(&t, 47);
  tb_gre(&t, 0x2000, 0x6558, 0x11223344, 0); /* with a key */
  inner(&t, 0x81, 0, 4);                     /* CNP */
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert_uint_eq(hd.encap, RTEL_ENCAP_GRE_TEB);
  ck_assert(hd.flags & RTEL_HD_F_CNP);
  ck_assert_uint_eq(hd.bth_off, t.bth_off);
  ck_assert_uint_eq(hd.dqpn, TU_DQPN);
}
END_TEST

static void build_nested_teb(tb *t, int depth) {
  int i;
  tb_init(t);
  for (i = 0; i < depth; i++) {
    outer_v4(t, 47);
    tb_gre(t, 0x0000, 0x6558, 0, 0);
  }
  inner(t, 0x04, 20, 4);
}

START_TEST(test_encap_depth) {
  tb t;
  rtel_pkt_hd hd;
  build_nested_teb(&t, RTEL_MAX_ENCAP);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert_uint_eq(hd.encap, RTEL_ENCAP_GRE_TEB);
  ck_assert_uint_eq(hd.nencap, RTEL_MAX_ENCAP);
  ck_assert_uint_eq(hd.encap_list[0], RTEL_ENCAP_GRE_TEB);
  ck_assert_uint_eq(hd.encap_list[RTEL_MAX_ENCAP - 1], RTEL_ENCAP_GRE_TEB);
  check_inner(&hd, &t, 0x04, 20);
  build_nested_teb(&t, RTEL_MAX_ENCAP + 1);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), RTEL_ERR_MALFORMED);
  ck_assert_uint_eq(hd.malformed, RTEL_MALFORMED_ENCAP_DEPTH);
}
END_TEST

START_TEST(test_erspan_then_vxlan) {
  tb t;
  rtel_pkt_hd hd;
  tb_init(&t);
  outer_v4(&t, 47);
  tb_gre(&t, 0x1000, 0x88BE, 0, 1);
  tb_erspan2(&t, 0, 0, 0, 0, 0x155, 0);
  outer_v4(&t, 17);
  tb_udp(&t, 0xE001, 4789);
  tb_vxlan(&t, 0x08, 0x00F00D);
  inner(&t, 0x06, 64, 4);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert_uint_eq(hd.encap, RTEL_ENCAP_ERSPAN2 | RTEL_ENCAP_VXLAN);
  ck_assert_uint_eq(hd.nencap, 2);
  ck_assert_uint_eq(hd.encap_list[0], RTEL_ENCAP_ERSPAN2);
  ck_assert_uint_eq(hd.encap_list[1], RTEL_ENCAP_VXLAN);
  ck_assert_uint_eq(hd.erspan_session, 0x155);
  ck_assert_uint_eq(hd.vxlan_vni, 0x00F00D);
  check_inner(&hd, &t, 0x06, 64);
}
END_TEST

/* --------------------------------------------------------------- links */

START_TEST(test_link_raw) {
  tb t;
  tu_spec s;
  rtel_pkt_hd hd;
  rtel_decode_opts o;
  int v;
  for (v = 4; v <= 6; v += 2) {
    tu_spec_init(&s, 0x0A, 40);
    s.ipver = v;
    s.raw_ip = 1;
    tb_init(&t);
    tu_build(&t, &s);
    memset(&o, 0, sizeof(o));
    o.linktype = RTEL_LINK_RAW;
    ck_assert_msg(decode_tb(&hd, &o, &t) == 0, "raw IPv%d", v);
    ck_assert(!(hd.flags & RTEL_HD_F_ETH));
    ck_assert(hd.flags & (v == 4 ? RTEL_HD_F_IPV4 : RTEL_HD_F_IPV6));
    ck_assert_uint_eq(hd.l3_off, 0);
    ck_assert_uint_eq(hd.bth_off, t.bth_off);
    ck_assert_uint_eq(hd.payload_len, 40);
    ck_assert_uint_eq(hd.reth_va, TU_RETH_VA);
  }
}
END_TEST

START_TEST(test_link_sll) {
  int v2;
  for (v2 = 0; v2 < 2; v2++) {
    tb t;
    tu_spec s;
    rtel_pkt_hd hd;
    rtel_decode_opts o;
    size_t hl = v2 ? 20 : 16;
    tu_spec_init(&s, 0x0A, 40);
    s.raw_ip = 1;
    tb_init(&t);
    if (v2)
      tb_sll2(&t, 0x0800);
    else
      tb_sll(&t, 0x0800);
    tu_build(&t, &s);
    memset(&o, 0, sizeof(o));
    o.linktype = v2 ? RTEL_LINK_LINUX_SLL2 : RTEL_LINK_LINUX_SLL;
    ck_assert_msg(decode_tb(&hd, &o, &t) == 0, "SLL%s", v2 ? "2" : "");
    ck_assert(hd.flags & RTEL_HD_F_IPV4);
    ck_assert_uint_eq(hd.l3_off, hl);
    ck_assert_uint_eq(hd.l4_off, hl + 20);
    ck_assert_uint_eq(hd.bth_off, hl + 28);
    ck_assert_uint_eq(hd.payload_len, 40);
    ck_assert_uint_eq(hd.dqpn, TU_DQPN);
  }
}
END_TEST

START_TEST(test_link_unknown) {
  tb t;
  rtel_pkt_hd hd;
  rtel_decode_opts o;
  build(&t, 4, 0x04, 16, 0);
  memset(&o, 0, sizeof(o));
  o.linktype = 147; /* LINKTYPE_USER0 */
  ck_assert_int_eq(decode_tb(&hd, &o, &t), RTEL_ERR_MALFORMED);
  ck_assert_uint_eq(hd.malformed, RTEL_MALFORMED_LINKTYPE);
  /* linktype 0 means Ethernet */
  o.linktype = 0;
  ck_assert_int_eq(decode_tb(&hd, &o, &t), 0);
}
END_TEST

/* --------------------------------------------------------------- ports */

START_TEST(test_udp_ports) {
  tb t;
  tu_spec s;
  rtel_pkt_hd hd;
  rtel_decode_opts o;
  /* another destination port */
  tu_spec_init(&s, 0x04, 16);
  s.dport = 4792;
  tb_init(&t);
  tu_build(&t, &s);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), RTEL_ERR_NOT_ROCE);
  ck_assert(hd.flags & RTEL_HD_F_UDP);
  ck_assert(!(hd.flags & RTEL_HD_F_ROCE));
  ck_assert_uint_eq(hd.dport, 4792);
  ck_assert_uint_eq(hd.sport, TU_SPORT);
  /* source port 4791 does not make RoCE */
  tu_spec_init(&s, 0x04, 16);
  s.sport = 4791;
  s.dport = 5555;
  tb_init(&t);
  tu_build(&t, &s);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), RTEL_ERR_NOT_ROCE);
  ck_assert_uint_eq(hd.dport, 5555);
  /* low source ports (real capture: 69) are fine */
  tu_spec_init(&s, 0x11, 0);
  s.sport = 69;
  tb_init(&t);
  tu_build(&t, &s);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert_uint_eq(hd.sport, 69);
  /* custom RoCE port */
  memset(&o, 0, sizeof(o));
  o.roce_udp_port = 5000;
  tu_spec_init(&s, 0x04, 16);
  s.dport = 5000;
  tb_init(&t);
  tu_build(&t, &s);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), RTEL_ERR_NOT_ROCE);
  ck_assert_int_eq(decode_tb(&hd, &o, &t), 0);
  ck_assert_uint_eq(hd.dport, 5000);
  ck_assert_uint_eq(hd.dqpn, TU_DQPN);
  build(&t, 4, 0x04, 16, 0);
  ck_assert_int_eq(decode_tb(&hd, &o, &t), RTEL_ERR_NOT_ROCE);
}
END_TEST

START_TEST(test_not_roce_protocols) {
  tb t;
  rtel_pkt_hd hd;
  /* ARP */
  tb_init(&t);
  tb_eth(&t, tu_mac_b, tu_mac_a);
  tb_ethertype(&t, 0x0806);
  tb_put16(&t, 1);
  tb_put16(&t, 0x0800);
  tb_put8(&t, 6);
  tb_put8(&t, 4);
  tb_put16(&t, 1);
  tb_fill(&t, 0x11, 20);
  tb_fill(&t, 0, 18);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), RTEL_ERR_NOT_ROCE);
  ck_assert(!(hd.flags & RTEL_HD_F_ROCE));
  /* TCP */
  tb_init(&t);
  tb_eth(&t, tu_mac_b, tu_mac_a);
  tb_ethertype(&t, 0x0800);
  tb_ipv4(&t, 0, 1, 0x4000, 64, 6, TU_IP4_A, TU_IP4_B, NULL, 0);
  tb_put16(&t, 4791);
  tb_put16(&t, 4791);
  tb_fill(&t, 0, 16);
  tb_finish_plain(&t);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), RTEL_ERR_NOT_ROCE);
  ck_assert(hd.flags & RTEL_HD_F_IPV4);
  ck_assert_uint_eq(hd.ip_proto, 6);
}
END_TEST

/* --------------------------------------------------------------- lengths */

START_TEST(test_lying_lengths) {
  tb t;
  rtel_pkt_hd hd;
  size_t ip = 14, udp = 34;
  /* IPv4 total length beyond the wire: a copy a mirror cut short without
   * keeping the original length. The IP length is believed: the packet is
   * decoded, flagged truncated, and its wire length raised to it; but the
   * UDP length must still fit in the IP packet. */
  build(&t, 4, 0x0A, 32, 0);
  tb_set16(&t, ip + 2, (uint16_t)(t.n - ip + 1));
  tb_refresh(&t);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert(hd.flags & RTEL_HD_F_TRUNCATED);
  ck_assert_uint_eq(hd.wire_len, t.n + 1);
  ck_assert_uint_eq(hd.ip_len, t.n - ip + 1);
  /* ... also when only part of the packet was captured */
  ck_assert_int_eq(decode(&hd, NULL, t.b, 60, t.n), 0);
  ck_assert(hd.flags & RTEL_HD_F_TRUNCATED);
  ck_assert_uint_eq(hd.wire_len, t.n + 1);
  (void)udp;
  /* IPv4 total length below the header length */
  build(&t, 4, 0x0A, 32, 0);
  tb_set16(&t, ip + 2, 19);
  tb_refresh(&t);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), RTEL_ERR_MALFORMED);
  ck_assert_uint_eq(hd.malformed, RTEL_MALFORMED_IP_LEN);
  /* IPv6 payload length beyond the wire: a cut copy, as for IPv4 */
  build(&t, 6, 0x0A, 32, 0);
  tb_set16(&t, ip + 4, (uint16_t)(t.n - ip - 40 + 1));
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert(hd.flags & RTEL_HD_F_TRUNCATED);
  ck_assert_uint_eq(hd.wire_len, t.n + 1);
  /* UDP length below 8 */
  build(&t, 4, 0x0A, 32, 0);
  tb_set16(&t, udp + 4, 7);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), RTEL_ERR_MALFORMED);
  ck_assert_uint_eq(hd.malformed, RTEL_MALFORMED_UDP_LEN);
  /* UDP length beyond the IP payload */
  build(&t, 4, 0x0A, 32, 0);
  tb_set16(&t, udp + 4, (uint16_t)(t.n - udp + 1));
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), RTEL_ERR_MALFORMED);
  ck_assert_uint_eq(hd.malformed, RTEL_MALFORMED_UDP_LEN);
  /* UDP payload holds BTH + RETH but no room for the ICRC */
  build(&t, 4, 0x0A, 0, 0);
  tb_set16(&t, udp + 4, 8 + 12 + 16 + 3);
  tb_set16(&t, ip + 2, 20 + 8 + 12 + 16 + 3);
  tb_refresh(&t);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), RTEL_ERR_MALFORMED);
  ck_assert_uint_eq(hd.malformed, RTEL_MALFORMED_ROCE_LEN);
  /* UDP payload shorter than the BTH */
  build(&t, 4, 0x04, 0, 0);
  tb_set16(&t, udp + 4, 8 + 11);
  tb_set16(&t, ip + 2, 20 + 8 + 11);
  tb_refresh(&t);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), RTEL_ERR_MALFORMED);
  ck_assert_uint_eq(hd.malformed, RTEL_MALFORMED_ROCE_LEN);
  /* UD SEND ONLY: BTH + DETH + ICRC needs 24; give 23 */
  build(&t, 4, 0x64, 0, 0);
  tb_set16(&t, udp + 4, 8 + 23);
  tb_set16(&t, ip + 2, 20 + 8 + 23);
  tb_refresh(&t);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), RTEL_ERR_MALFORMED);
  ck_assert_uint_eq(hd.malformed, RTEL_MALFORMED_ROCE_LEN);
  /* GRH PayLen beyond the wire: a cut copy */
  build(&t, 1, 0x04, 16, 0);
  tb_set16(&t, ip + 4, (uint16_t)(t.n - ip - 40 + 1));
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert(hd.flags & RTEL_HD_F_TRUNCATED);
}
END_TEST

/* --------------------------------------------------------------- truncation
 */

static void trunc_loop(const tb *t, const char *what) {
  size_t c, i, full = t->n;
  size_t bth_end = t->bth_off + 12;
  size_t hdr_end = t->payload_off;
  size_t paylen =
      t->icrc_off - t->payload_off - (size_t)((t->b[t->bth_off + 1] >> 4) & 3);
  rtel_decode_opts o = opts_flags(RTEL_DECODE_VERIFY_ICRC);
  for (c = 0; c <= full; c++) {
    rtel_pkt_hd hd;
    int rc = decode(&hd, &o, t->b, c, full);
    ck_assert_msg(hd.cap_len == c && hd.wire_len == full,
                  "%s caplen %zu: cap_len %u wire_len %u", what, c, hd.cap_len,
                  hd.wire_len);
    ck_assert_msg(!!(hd.flags & RTEL_HD_F_TRUNCATED) == (c < full),
                  "%s caplen %zu: TRUNCATED flag wrong (flags 0x%x)", what, c,
                  hd.flags);
    if (c < bth_end) {
      ck_assert_msg(rc == RTEL_ERR_MALFORMED &&
                        hd.malformed == RTEL_MALFORMED_TRUNCATED,
                    "%s caplen %zu (BTH ends at %zu): rc %d malformed %u",
                    what, c, bth_end, rc, hd.malformed);
      ck_assert_msg(!(hd.flags & RTEL_HD_F_ROCE), "%s caplen %zu: ROCE set",
                    what, c);
      continue;
    }
    ck_assert_msg(rc == 0, "%s caplen %zu: rc %d malformed %u", what, c, rc,
                  hd.malformed);
    ck_assert_msg((hd.flags & (RTEL_HD_F_ROCE | RTEL_HD_F_BTH)) ==
                      (RTEL_HD_F_ROCE | RTEL_HD_F_BTH),
                  "%s caplen %zu: flags 0x%x", what, c, hd.flags);
    ck_assert_msg(!!(hd.flags & RTEL_HD_F_HDR_TRUNC) == (c < hdr_end),
                  "%s caplen %zu (headers end at %zu): HDR_TRUNC wrong, flags "
                  "0x%x",
                  what, c, hdr_end, hd.flags);
    for (i = 0; i < t->next; i++)
      ck_assert_msg(!!(hd.flags & t->ext_flag[i]) == (c >= t->ext_end[i]),
                    "%s caplen %zu: ext flag 0x%x wrong (header ends at %zu)",
                    what, c, t->ext_flag[i], t->ext_end[i]);
    ck_assert_msg(!!(hd.flags & RTEL_HD_F_ICRC) == (c == full),
                  "%s caplen %zu: ICRC flag wrong", what, c);
    ck_assert_msg(hd.icrc_status ==
                      (c == full ? RTEL_ICRC_OK : RTEL_ICRC_TRUNCATED),
                  "%s caplen %zu: icrc_status %u", what, c, hd.icrc_status);
    ck_assert_uint_eq(hd.opcode, t->b[t->bth_off]);
    if (c >= hdr_end) {
      ck_assert_msg(hd.payload_off == hdr_end && hd.payload_len == paylen,
                    "%s caplen %zu: payload_off %u len %u, want %zu %zu", what,
                    c, hd.payload_off, hd.payload_len, hdr_end, paylen);
      size_t want_cap = c - hdr_end < paylen ? c - hdr_end : paylen;
      ck_assert_msg(hd.payload_cap == want_cap,
                    "%s caplen %zu: payload_cap %u, want %zu", what, c,
                    hd.payload_cap, want_cap);
    }
  }
}

START_TEST(test_truncation_v4) {
  tb t;
  build(&t, 4, 0x0B, 40, 2); /* RETH + ImmDt */
  trunc_loop(&t, "v4 WRITE ONLY imm");
}
END_TEST

START_TEST(test_truncation_v6_ext) {
  tb t;
  build_v6_ext(&t, 0x65, 24); /* DETH + ImmDt */
  trunc_loop(&t, "v6 ext UD imm");
}
END_TEST

START_TEST(test_truncation_qinq_rd) {
  tb t;
  tu_spec s;
  tu_spec_init(&s, 0x4B, 20); /* RD WRITE ONLY imm: RDETH DETH RETH ImmDt */
  s.pad = 1;
  tb_init(&t);
  tb_eth(&t, tu_mac_b, tu_mac_a);
  tb_vlan(&t, 0x88A8, 0x0064);
  tb_vlan(&t, 0x8100, 0x2005);
  tb_ethertype(&t, 0x0800);
  s.raw_ip = 1;
  tu_headers(&t, &s);
  tu_transport(&t, &s);
  tb_finish(&t);
  trunc_loop(&t, "QinQ RD");
}
END_TEST

START_TEST(test_truncation_atomic) {
  tb t;
  build(&t, 6, 0x13, 0, 0); /* AtomicETH, 28 bytes */
  trunc_loop(&t, "v6 CMP&SWAP");
  build(&t, 4, 0x12, 0, 0); /* AETH + AtomicAckETH */
  trunc_loop(&t, "v4 ATOMIC ACK");
  build(&t, 4, 0xBC, 0, 0); /* XRCETH + FETH + RETH */
  trunc_loop(&t, "v4 XRC FLUSH");
}
END_TEST

START_TEST(test_truncation_erspan3) {
  tb t;
  tb_init(&t);
  outer_v4(&t, 47);
  tb_gre(&t, 0x1000, 0x22EB, 0, 1);
  tb_erspan3(&t, 1, 0, 0, 0, 9, 0x01020304, 0, 0, 0, 0, 0, 1, 1);
  inner(&t, 0x0F, 64, 4); /* READ RESPONSE LAST, AETH */
  trunc_loop(&t, "ERSPAN III");
}
END_TEST

START_TEST(test_truncation_vxlan) {
  tb t;
  tb_init(&t);
  outer_v4(&t, 17);
  tb_udp(&t, 0xE000, 4789);
  tb_vxlan(&t, 0x08, 77);
  inner(&t, 0xB4, 0, 4); /* XRC FETCH ADD */
  trunc_loop(&t, "VXLAN");
}
END_TEST

START_TEST(test_truncation_rocev1) {
  tb t;
  build(&t, 1, 0x17, 30, 2); /* SEND ONLY w/ Invalidate */
  trunc_loop(&t, "RoCEv1");
}
END_TEST

/* --------------------------------------------------------------- ICRC */

static void expect_icrc(const tb *t, int want_ok, const char *what) {
  rtel_pkt_hd hd;
  rtel_decode_opts o = opts_flags(RTEL_DECODE_VERIFY_ICRC);
  uint32_t mine = tu_icrc(
      t->b, in_l3(t), t->have_grh ? 1 : t->ip_ver[t->nip - 1],
      t->have_grh ? 0 : t->udp_off[t->nudp - 1], t->bth_off, t->icrc_off + 4);
  int rc = decode_tb(&hd, &o, t);
  ck_assert_msg(rc == 0, "%s: rc %d (malformed %u)", what, rc, hd.malformed);
  ck_assert_msg(hd.flags & RTEL_HD_F_ICRC, "%s: no ICRC flag", what);
  ck_assert_msg(hd.icrc == tu_le32(t->b + t->icrc_off),
                "%s: icrc 0x%08x, wire 0x%08x", what, hd.icrc,
                tu_le32(t->b + t->icrc_off));
  ck_assert_msg(hd.icrc_status == (want_ok ? RTEL_ICRC_OK : RTEL_ICRC_BAD),
                "%s: icrc_status %u, want %s (calc 0x%08x, mine 0x%08x)", what,
                hd.icrc_status, want_ok ? "OK" : "BAD", hd.icrc_calc, mine);
  ck_assert_msg(hd.icrc_calc == mine, "%s: icrc_calc 0x%08x, expected 0x%08x",
                what, hd.icrc_calc, mine);
}

START_TEST(test_icrc_good) {
  tb t;
  int v;
  static const int vers[] = {4, 6, 1};
  for (v = 0; v < 3; v++) {
    build(&t, vers[v], 0x0A, 100, 0);
    expect_icrc(&t, 1, vers[v] == 4 ? "IPv4" : vers[v] == 6 ? "IPv6" : "v1");
    build(&t, vers[v], 0x05, 13, 3);
    expect_icrc(&t, 1, "SEND ONLY imm pad 3");
    build(&t, vers[v], 0x81, 0, 0);
    expect_icrc(&t, 1, "CNP");
    build(&t, vers[v], 0x1E, 10, 2);
    expect_icrc(&t, 1, "reserved opcode");
  }
}
END_TEST

START_TEST(test_icrc_unchecked) {
  tb t;
  rtel_pkt_hd hd;
  build(&t, 4, 0x0A, 100, 0);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert_uint_eq(hd.icrc_status, RTEL_ICRC_UNCHECKED);
  ck_assert(hd.flags & RTEL_HD_F_ICRC);
  /* hd.icrc is filled only when verifying (the header says so: reading the
   * packet's last bytes costs a cache miss); rtel_icrc_compute() still
   * works on an unchecked decode */
  {
    uint32_t c = 0;
    ck_assert_int_eq(rtel_icrc_compute(&hd, t.b, t.n, &c), 0);
    ck_assert_uint_eq(c, tu_le32(t.b + t.icrc_off));
  }
  /* a wrong ICRC is not noticed without the flag */
  t.b[t.payload_off] ^= 1;
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert_uint_eq(hd.icrc_status, RTEL_ICRC_UNCHECKED);
  /* the wire value is reported (RTEL_HD_F_ICRC) when encapsulated too */
  tb_init(&t);
  outer_v4(&t, 17);
  tb_udp(&t, 0xE000, 4789);
  tb_vxlan(&t, 0x08, 5);
  inner(&t, 0x11, 0, 4);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert(hd.flags & RTEL_HD_F_ICRC);
  ck_assert_uint_eq(hd.icrc_status, RTEL_ICRC_UNCHECKED);
  {
    uint32_t c = 0;
    ck_assert_int_eq(rtel_icrc_compute(&hd, t.b, t.n, &c), 0);
    ck_assert_uint_eq(c, tu_le32(t.b + t.icrc_off));
  }
}
END_TEST

START_TEST(test_icrc_bad) {
  tb t;
  int v;
  static const int vers[] = {4, 6, 1};
  for (v = 0; v < 3; v++) {
    size_t bth;
    build(&t, vers[v], 0x0A, 100, 0);
    bth = t.bth_off;
    t.b[t.payload_off + 50] ^= 0x10;
    expect_icrc(&t, 0, "payload bit flipped");
    build(&t, vers[v], 0x0A, 100, 0);
    t.b[t.icrc_off + 2] ^= 0x80;
    expect_icrc(&t, 0, "ICRC bit flipped");
    build(&t, vers[v], 0x0A, 100, 0);
    t.b[bth + 7] ^= 0x01; /* DestQP */
    expect_icrc(&t, 0, "DestQP changed");
    build(&t, vers[v], 0x0A, 100, 0);
    t.b[bth + 11] ^= 0x01; /* PSN */
    expect_icrc(&t, 0, "PSN changed");
    build(&t, vers[v], 0x0A, 100, 0);
    t.b[bth + 8] ^= 0x01; /* resv7: not masked */
    expect_icrc(&t, 0, "BTH resv7 changed");
    build(&t, vers[v], 0x0A, 100, 0);
    t.b[bth + 1] ^= 0x80; /* SE */
    expect_icrc(&t, 0, "SE changed");
    build(&t, vers[v], 0x0A, 100, 0);
    t.b[bth + 2] ^= 0x01; /* P_Key */
    expect_icrc(&t, 0, "P_Key changed");
    build(&t, vers[v], 0x0A, 100, 0);
    t.b[bth + 12 + 3] ^= 0x01; /* RETH VA */
    expect_icrc(&t, 0, "RETH changed");
  }
  /* IPv4 / UDP fields that are not masked */
  build(&t, 4, 0x0A, 100, 0);
  t.b[14 + 5] ^= 1; /* IP identification */
  tb_ipv4_csum(&t, 14);
  expect_icrc(&t, 0, "IPv4 ID changed");
  build(&t, 4, 0x0A, 100, 0);
  t.b[14 + 15] ^= 1; /* source address */
  tb_ipv4_csum(&t, 14);
  expect_icrc(&t, 0, "IPv4 source changed");
  build(&t, 4, 0x0A, 100, 0);
  t.b[34 + 1] ^= 1; /* UDP source port */
  expect_icrc(&t, 0, "UDP source port changed");
  build(&t, 6, 0x0A, 100, 0);
  t.b[14 + 8 + 15] ^= 1; /* IPv6 source */
  expect_icrc(&t, 0, "IPv6 source changed");
}
END_TEST

/* masked fields: changing them must not change the ICRC */
START_TEST(test_icrc_masked_fields) {
  tb t;
  size_t bth;
  /* IPv4 TTL (a router decrements it and fixes the checksum) */
  build(&t, 4, 0x0A, 100, 0);
  t.b[14 + 8] = 1;
  tb_ipv4_csum(&t, 14);
  expect_icrc(&t, 1, "IPv4 TTL");
  /* DSCP and ECN (congestion marking) */
  build(&t, 4, 0x0A, 100, 0);
  t.b[14 + 1] = 0xBB;
  tb_ipv4_csum(&t, 14);
  expect_icrc(&t, 1, "IPv4 DSCP/ECN");
  /* IPv4 checksum itself */
  build(&t, 4, 0x0A, 100, 0);
  t.b[14 + 10] ^= 0x5A;
  expect_icrc(&t, 1, "IPv4 checksum");
  /* UDP checksum */
  build(&t, 4, 0x0A, 100, 0);
  tb_set16(&t, 34 + 6, 0x1234);
  expect_icrc(&t, 1, "UDP checksum");
  /* BTH byte 4: FECN, BECN, resv6 */
  build(&t, 4, 0x0A, 100, 0);
  bth = t.bth_off;
  t.b[bth + 4] = 0x80;
  expect_icrc(&t, 1, "FECN");
  t.b[bth + 4] = 0x40;
  expect_icrc(&t, 1, "BECN");
  t.b[bth + 4] = 0x3F;
  expect_icrc(&t, 1, "resv6");
  /* IPv6 traffic class, flow label, hop limit, UDP checksum */
  build(&t, 6, 0x0A, 100, 0);
  t.b[14] = 0x6F;
  t.b[15] = 0xF1;
  t.b[16] = 0x23;
  t.b[17] = 0x45;
  t.b[14 + 7] = 3;
  tb_set16(&t, 54 + 6, 0xFFFF);
  expect_icrc(&t, 1, "IPv6 TC/flow/hop/UDP csum");
  /* RoCEv1 GRH traffic class, flow label, hop limit */
  build(&t, 1, 0x0A, 100, 0);
  t.b[14] = 0x6A;
  t.b[15] = 0xB1;
  t.b[16] = 0x00;
  t.b[17] = 0x01;
  t.b[14 + 7] = 1;
  expect_icrc(&t, 1, "GRH TC/flow/hop");
}
END_TEST

START_TEST(test_icrc_truncated) {
  tb t;
  rtel_pkt_hd hd;
  rtel_decode_opts o = opts_flags(RTEL_DECODE_VERIFY_ICRC);
  build(&t, 4, 0x0A, 100, 0);
  ck_assert_int_eq(decode(&hd, &o, t.b, t.n - 1, t.n), 0);
  ck_assert_uint_eq(hd.icrc_status, RTEL_ICRC_TRUNCATED);
  ck_assert(!(hd.flags & RTEL_HD_F_ICRC));
  ck_assert_int_eq(decode(&hd, &o, t.b, t.bth_off + 12, t.n), 0);
  ck_assert_uint_eq(hd.icrc_status, RTEL_ICRC_TRUNCATED);
}
END_TEST

START_TEST(test_icrc_ipv4_options) {
  static const uint8_t o8[8] = {0x94, 0x04, 0, 0, 0x01, 0x01, 0x01, 0x00};
  tb t;
  build_v4_opts(&t, o8, sizeof(o8), 0x0A);
  expect_icrc(&t, 1, "IPv4 with options (ICRC over the whole IP header)");
}
END_TEST

START_TEST(test_icrc_ipv6_ext) {
  tb t;
  build_v6_ext(&t, 0x04, 40);
  expect_icrc(&t, 1, "IPv6 with extension headers");
}
END_TEST

START_TEST(test_icrc_encapsulated) {
  tb t;
  tb_init(&t);
  outer_v4(&t, 17);
  tb_udp(&t, 0xE000, 4789);
  tb_vxlan(&t, 0x08, 5);
  inner(&t, 0x0A, 77, 6);
  expect_icrc(&t, 1, "VXLAN inner IPv6");
  /* the outer headers are not covered */
  t.b[14 + 8] = 3;     /* outer TTL */
  t.b[14 + 5] ^= 0xFF; /* outer IP ID */
  tb_ipv4_csum(&t, 14);
  expect_icrc(&t, 1, "VXLAN outer headers changed");
}
END_TEST

START_TEST(test_icrc_compute) {
  tb t;
  rtel_pkt_hd hd;
  uint32_t v = 0;
  build(&t, 4, 0x0B, 64, 0);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert_int_eq(rtel_icrc_compute(&hd, t.b, t.n, &v), 0);
  ck_assert_uint_eq(v, tu_le32(t.b + t.icrc_off));
  /* the computed value follows the bytes, not the wire ICRC */
  t.b[t.payload_off] ^= 0xFF;
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert_int_eq(rtel_icrc_compute(&hd, t.b, t.n, &v), 0);
  ck_assert_uint_eq(v, tu_icrc(t.b, 14, 4, 34, t.bth_off, t.icrc_off + 4));
  ck_assert_uint_ne(v, tu_le32(t.b + t.icrc_off));
  /* IPv6 and RoCEv1 */
  build(&t, 6, 0x04, 21, 3);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert_int_eq(rtel_icrc_compute(&hd, t.b, t.n, &v), 0);
  ck_assert_uint_eq(v, tu_le32(t.b + t.icrc_off));
  build(&t, 1, 0x04, 21, 3);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert_int_eq(rtel_icrc_compute(&hd, t.b, t.n, &v), 0);
  ck_assert_uint_eq(v, tu_le32(t.b + t.icrc_off));
  /* encapsulated: the inner packet's ICRC */
  tb_init(&t);
  outer_v4(&t, 47);
  tb_gre(&t, 0x1000, 0x88BE, 0, 1);
  tb_erspan2(&t, 0, 0, 0, 0, 3, 0);
  inner(&t, 0x0C, 0, 6);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert_int_eq(rtel_icrc_compute(&hd, t.b, t.n, &v), 0);
  ck_assert_uint_eq(v, tu_le32(t.b + t.icrc_off));
  /* arguments */
  ck_assert_int_eq(rtel_icrc_compute(NULL, t.b, t.n, &v),
                   RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(rtel_icrc_compute(&hd, NULL, t.n, &v),
                   RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(rtel_icrc_compute(&hd, t.b, t.n, NULL),
                   RTEL_ERR_INVALID_ARGUMENT);
  /* truncated capture */
  build(&t, 4, 0x0B, 64, 0);
  ck_assert_int_eq(decode(&hd, NULL, t.b, t.n - 3, t.n), 0);
  ck_assert_int_eq(rtel_icrc_compute(&hd, t.b, t.n - 3, &v),
                   RTEL_ERR_MALFORMED);
  /* not RoCE */
  {
    tu_spec s;
    tu_spec_init(&s, 0x04, 16);
    s.dport = 4792;
    tb_init(&t);
    tu_build(&t, &s);
    ck_assert_int_eq(decode_tb(&hd, NULL, &t), RTEL_ERR_NOT_ROCE);
    ck_assert_int_eq(rtel_icrc_compute(&hd, t.b, t.n, &v),
                     RTEL_ERR_INVALID_ARGUMENT);
  }
}
END_TEST

/* --------------------------------------------------------------- CM */

static void cm_init(tu_cm *cm, uint16_t attr) {
  memset(cm, 0, sizeof(*cm));
  cm->attr = attr;
  cm->tid = UINT64_C(0x00000002B90866AC);
  cm->lcid = 0xAC6608B9u;
  cm->rcid = 0x8D1E7F20u;
  cm->service_id = UINT64_C(0x0000000001061144);
  cm->local_qpn = 0x000017;
  cm->start_psn = 0x89BB0E;
  cm->remote_qpn = 0xA1B2C3;
  cm->rej_reason = 28;
  tu_ipv4_mapped(cm->lgid, TU_IP4_A);
  tu_ipv4_mapped(cm->rgid, TU_IP4_B);
}

static void check_mad_hdr(const rtel_pkt_hd *hd, uint16_t attr) {
  ck_assert(hd->flags & RTEL_HD_F_MAD);
  ck_assert_uint_eq(hd->mad_tid, UINT64_C(0x00000002B90866AC));
  ck_assert_uint_eq(hd->mad_base_version, 1);
  ck_assert_uint_eq(hd->mad_class, 0x07);
  ck_assert_uint_eq(hd->mad_class_version, 2);
  ck_assert_uint_eq(hd->mad_method, 0x03);
  ck_assert_uint_eq(hd->mad_status, 0);
  ck_assert_uint_eq(hd->mad_attr_id, attr);
  ck_assert_uint_eq(hd->mad_attr_mod, 0);
}

START_TEST(test_cm_messages) {
  static const struct {
    uint16_t attr;
    uint32_t fields;
  } v[] = {
      {RTEL_CM_REQ, RTEL_CM_F_LCID | RTEL_CM_F_SERVICE_ID |
                        RTEL_CM_F_LOCAL_QPN | RTEL_CM_F_START_PSN |
                        RTEL_CM_F_GIDS},
      {RTEL_CM_REP, RTEL_CM_F_LCID | RTEL_CM_F_RCID | RTEL_CM_F_LOCAL_QPN |
                        RTEL_CM_F_START_PSN},
      {RTEL_CM_RTU, RTEL_CM_F_LCID | RTEL_CM_F_RCID},
      {RTEL_CM_DREQ, RTEL_CM_F_LCID | RTEL_CM_F_RCID | RTEL_CM_F_REMOTE_QPN},
      {RTEL_CM_DREP, RTEL_CM_F_LCID | RTEL_CM_F_RCID},
      {RTEL_CM_REJ, RTEL_CM_F_LCID | RTEL_CM_F_RCID | RTEL_CM_F_REJ_REASON},
  };
  size_t i;
  for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
    tb t;
    tu_cm cm;
    rtel_pkt_hd hd;
    rtel_decode_opts o = opts_flags(RTEL_DECODE_VERIFY_ICRC);
    uint32_t f = v[i].fields;
    cm_init(&cm, v[i].attr);
    tb_init(&t);
    tu_build_cm(&t, &cm);
    ck_assert_msg(decode_tb(&hd, &o, &t) == 0, "CM 0x%04x: rc != 0",
                  v[i].attr);
    ck_assert(hd.flags & RTEL_HD_F_DETH);
    ck_assert_uint_eq(hd.dqpn, 1);
    ck_assert_uint_eq(hd.deth_qkey, 0x80010000u);
    ck_assert_uint_eq(hd.deth_sqpn, 1);
    ck_assert_uint_eq(hd.payload_len, 256);
    ck_assert_uint_eq(hd.icrc_status, RTEL_ICRC_OK);
    check_mad_hdr(&hd, v[i].attr);
    ck_assert_msg(hd.flags & RTEL_HD_F_CM, "CM 0x%04x: no CM flag", v[i].attr);
    ck_assert_uint_eq(hd.cm_attr, v[i].attr);
    ck_assert_msg(hd.cm_fields == f, "CM 0x%04x: cm_fields 0x%x, want 0x%x",
                  v[i].attr, hd.cm_fields, f);
    ck_assert_uint_eq(hd.cm_lcid, cm.lcid);
    if (f & RTEL_CM_F_RCID)
      ck_assert_uint_eq(hd.cm_rcid, cm.rcid);
    if (f & RTEL_CM_F_SERVICE_ID)
      ck_assert_uint_eq(hd.cm_service_id, cm.service_id);
    if (f & RTEL_CM_F_LOCAL_QPN)
      ck_assert_msg(hd.cm_local_qpn == cm.local_qpn,
                    "CM 0x%04x: local qpn 0x%x", v[i].attr, hd.cm_local_qpn);
    if (f & RTEL_CM_F_START_PSN)
      ck_assert_msg(hd.cm_start_psn == cm.start_psn,
                    "CM 0x%04x: start psn 0x%x", v[i].attr, hd.cm_start_psn);
    if (f & RTEL_CM_F_REMOTE_QPN)
      ck_assert_uint_eq(hd.cm_remote_qpn, cm.remote_qpn);
    if (f & RTEL_CM_F_REJ_REASON)
      ck_assert_uint_eq(hd.cm_rej_reason, 28);
    if (f & RTEL_CM_F_GIDS) {
      ck_assert_mem_eq(hd.cm_local_gid, cm.lgid, 16);
      ck_assert_mem_eq(hd.cm_remote_gid, cm.rgid, 16);
    }
    ck_assert_msg(hd.cm_priv_off == t.payload_off + tu_cm_priv_off(v[i].attr),
                  "CM 0x%04x: priv_off %u, want %zu", v[i].attr,
                  hd.cm_priv_off, t.payload_off + tu_cm_priv_off(v[i].attr));
    ck_assert_msg(hd.cm_priv_len == tu_cm_priv_size(v[i].attr),
                  "CM 0x%04x: priv_len %u, want %zu", v[i].attr,
                  hd.cm_priv_len, tu_cm_priv_size(v[i].attr));
  }
}
END_TEST

START_TEST(test_cm_capture_cut) {
  tb t;
  tu_cm cm;
  rtel_pkt_hd hd;
  size_t cut;
  cm_init(&cm, RTEL_CM_REQ);
  tb_init(&t);
  tu_build_cm(&t, &cm);
  /* cut 36 bytes into the private data: CM decoded, priv_len 36 */
  cut = t.payload_off + 164 + 36;
  ck_assert_int_eq(decode(&hd, NULL, t.b, cut, t.n), 0);
  ck_assert(hd.flags & RTEL_HD_F_TRUNCATED);
  ck_assert(hd.flags & RTEL_HD_F_CM);
  ck_assert_uint_eq(hd.cm_local_qpn, 0x17);
  ck_assert_uint_eq(hd.cm_priv_off, t.payload_off + 164);
  ck_assert_uint_eq(hd.cm_priv_len, 36);
  /* cut inside the MAD header: still RoCE, no MAD/CM */
  ck_assert_int_eq(decode(&hd, NULL, t.b, t.payload_off + 10, t.n), 0);
  ck_assert(hd.flags & RTEL_HD_F_ROCE);
  ck_assert(hd.flags & RTEL_HD_F_DETH);
  ck_assert(!(hd.flags & (RTEL_HD_F_MAD | RTEL_HD_F_CM)));
  /* every cut: never crashes, RoCE from the BTH on */
  for (cut = t.bth_off + 12; cut <= t.n; cut++) {
    int rc = decode(&hd, NULL, t.b, cut, t.n);
    ck_assert_msg(rc == 0, "CM cut at %zu: rc %d", cut, rc);
    ck_assert(hd.flags & RTEL_HD_F_ROCE);
    if (hd.flags & RTEL_HD_F_CM)
      ck_assert_msg(hd.cm_priv_off + hd.cm_priv_len <= cut,
                    "CM cut at %zu: private data beyond capture", cut);
  }
}
END_TEST

START_TEST(test_mad_short) {
  tb t;
  tu_cm cm;
  rtel_pkt_hd hd;
  /* a 16-byte "MAD" on QP1: shorter than the MAD header */
  cm_init(&cm, RTEL_CM_REQ);
  cm.mad_len = 16;
  tb_init(&t);
  tu_build_cm(&t, &cm);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), RTEL_ERR_MALFORMED);
  ck_assert_uint_eq(hd.malformed, RTEL_MALFORMED_MAD);
  /* a CM REQ cut short by the length fields (100 of 256 bytes) */
  cm.mad_len = 100;
  tb_init(&t);
  tu_build_cm(&t, &cm);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), RTEL_ERR_MALFORMED);
  ck_assert_uint_eq(hd.malformed, RTEL_MALFORMED_MAD);
}
END_TEST

START_TEST(test_mad_not_cm) {
  tb t;
  tu_cm cm;
  rtel_pkt_hd hd;
  /* SA class on QP1: a MAD, not CM */
  cm_init(&cm, 0x0012);
  tb_init(&t);
  tu_build_cm(&t, &cm);
  t.b[t.payload_off + 1] = 0x03;
  tb_refresh(&t);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert(hd.flags & RTEL_HD_F_MAD);
  ck_assert(!(hd.flags & RTEL_HD_F_CM));
  ck_assert_uint_eq(hd.mad_class, 0x03);
  /* SMP on QP0 */
  cm_init(&cm, 0x0011);
  tb_init(&t);
  tu_build_cm(&t, &cm);
  t.b[t.payload_off + 1] = 0x81;
  t.b[t.bth_off + 7] = 0; /* DestQP 0 */
  tb_refresh(&t);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert(hd.flags & RTEL_HD_F_MAD);
  ck_assert(!(hd.flags & RTEL_HD_F_CM));
  ck_assert_uint_eq(hd.mad_class, 0x81);
  /* the same bytes to an ordinary QP are not a MAD */
  cm_init(&cm, RTEL_CM_REQ);
  tb_init(&t);
  tu_build_cm(&t, &cm);
  t.b[t.bth_off + 7] = 0x55;
  tb_refresh(&t);
  ck_assert_int_eq(decode_tb(&hd, NULL, &t), 0);
  ck_assert(!(hd.flags & (RTEL_HD_F_MAD | RTEL_HD_F_CM)));
}
END_TEST

/* --------------------------------------------------------------- args */

START_TEST(test_decode_args) {
  tb t;
  rtel_pkt_hd hd;
  rtel_decode_opts o;
  build(&t, 4, 0x04, 16, 0);
  ck_assert_int_eq(rtel_pkt_decode(NULL, NULL, t.b, t.n, t.n),
                   RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(rtel_pkt_decode(&hd, NULL, NULL, 10, 10),
                   RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(decode(&hd, NULL, NULL, 0, 0), RTEL_ERR_MALFORMED);
  ck_assert_uint_eq(hd.malformed, RTEL_MALFORMED_TRUNCATED);
  memset(&o, 0, sizeof(o));
  ck_assert_int_eq(rtel_pkt_decode_versioned(
                       999, &hd, RTEL_DECODE_OPTS_VERSION, &o, t.b, t.n, t.n),
                   RTEL_ERR_UNSUPPORTED_VERSION);
  ck_assert_int_eq(rtel_pkt_decode_versioned(RTEL_PKT_HD_VERSION, &hd, 999, &o,
                                             t.b, t.n, t.n),
                   RTEL_ERR_UNSUPPORTED_VERSION);
  ck_assert_int_eq(rtel_pkt_decode_versioned(RTEL_PKT_HD_V1, &hd,
                                             RTEL_DECODE_OPTS_V1, &o, t.b, t.n,
                                             t.n),
                   0);
  /* zeroed options are the defaults */
  ck_assert_uint_eq(hd.dport, 4791);
  ck_assert_uint_eq(hd.payload_len, 16);
  /* unsupported version for icrc_compute */
  {
    uint32_t v;
    ck_assert_int_lt(rtel_icrc_compute_versioned(999, &hd, t.b, t.n, &v), 0);
  }
  /* options out of range (rtel_pkt_decode(3)): an unknown flag, a port
   * beyond 16 bits; each alone, the others valid */
  memset(&o, 0, sizeof(o));
  o.flags = 0x80000000u;
  ck_assert_int_eq(rtel_pkt_decode(&hd, &o, t.b, t.n, t.n),
                   RTEL_ERR_INVALID_ARGUMENT);
  memset(&o, 0, sizeof(o));
  o.roce_udp_port = 0x10000;
  ck_assert_int_eq(rtel_pkt_decode(&hd, &o, t.b, t.n, t.n),
                   RTEL_ERR_INVALID_ARGUMENT);
  memset(&o, 0, sizeof(o));
  o.vxlan_udp_port = 0x10000;
  ck_assert_int_eq(rtel_pkt_decode(&hd, &o, t.b, t.n, t.n),
                   RTEL_ERR_INVALID_ARGUMENT);
  /* the largest port is valid: the packet (to 4791) is then not RoCE */
  memset(&o, 0, sizeof(o));
  o.roce_udp_port = 0xffff;
  ck_assert_int_eq(rtel_pkt_decode(&hd, &o, t.b, t.n, t.n), RTEL_ERR_NOT_ROCE);
  /* Ethernet given explicitly is the default */
  memset(&o, 0, sizeof(o));
  o.linktype = RTEL_LINK_ETHERNET;
  ck_assert_int_eq(rtel_pkt_decode(&hd, &o, t.b, t.n, t.n), 0);
  ck_assert_uint_eq(hd.payload_len, 16);
  /* raw IP: the same packet without its 14 Ethernet bytes */
  o.linktype = RTEL_LINK_RAW;
  ck_assert_int_eq(rtel_pkt_decode(&hd, &o, t.b + 14, t.n - 14, t.n - 14), 0);
  ck_assert_uint_eq(hd.l3_off, 0);
  ck_assert_uint_eq(hd.payload_len, 16);
}
END_TEST

/* --------------------------------------------------------------- random */

static uint32_t lcg_next(uint32_t *st) {
  *st = *st * 1103515245u + 12345u;
  return *st >> 8;
}

/* Invariants that hold for any input, and the ICRC differential: whenever
 * the library computed an ICRC, it equals this test's own CRC over the
 * same bytes at the offsets the library reported. */
static void check_invariants(const uint8_t *pkt, size_t caplen, size_t wire,
                             const char *what) {
  rtel_pkt_hd hd;
  rtel_decode_opts o = opts_flags(RTEL_DECODE_VERIFY_ICRC);
  int rc = decode(&hd, &o, pkt, caplen, wire);
  size_t wl = wire < caplen ? caplen : wire;
  ck_assert_msg(rc == 0 || rc == RTEL_ERR_NOT_ROCE || rc == RTEL_ERR_MALFORMED,
                "%s: rc %d", what, rc);
  /* truncated iff the capture is shorter than the wire length - the
   * caller's, or the IP header's when a mirror cut the copy short */
  /* (an encapsulated packet cut inside its tunnel is truncated although
   * the outer packet is whole) */
  ck_assert_msg(!!(hd.flags & RTEL_HD_F_TRUNCATED) ==
                        (caplen < wl || hd.wire_len > wl) ||
                    ((hd.flags & RTEL_HD_F_TRUNCATED) && hd.nencap > 0),
                "%s: TRUNCATED flag", what);
  ck_assert_msg(hd.wire_len >= wl, "%s: wire_len lowered", what);
  ck_assert_uint_eq(hd.cap_len, caplen);
  if (rc == RTEL_ERR_MALFORMED) {
    ck_assert_msg(hd.malformed >= 1 && hd.malformed <= RTEL_MALFORMED_LINKTYPE,
                  "%s: malformed %u", what, hd.malformed);
    ck_assert(!(hd.flags & RTEL_HD_F_ROCE));
    return;
  }
  if (rc == RTEL_ERR_NOT_ROCE) {
    ck_assert(!(hd.flags & RTEL_HD_F_ROCE));
    return;
  }
  ck_assert_msg((hd.flags & (RTEL_HD_F_ROCE | RTEL_HD_F_BTH)) ==
                    (RTEL_HD_F_ROCE | RTEL_HD_F_BTH),
                "%s: flags 0x%x", what, hd.flags);
  ck_assert(hd.roce == 1 || hd.roce == 2);
  ck_assert_msg((size_t)hd.bth_off + 12 <= caplen, "%s: BTH beyond capture",
                what);
  if (!(hd.flags & RTEL_HD_F_HDR_TRUNC)) {
    size_t end = (size_t)hd.payload_off + hd.payload_len + hd.pad + 4;
    ck_assert_msg(end <= hd.wire_len, "%s: packet end %zu beyond wire %u",
                  what, end, hd.wire_len);
    ck_assert_msg(hd.payload_off <= caplen, "%s: payload_off", what);
    ck_assert_msg(hd.payload_cap <= caplen - hd.payload_off &&
                      hd.payload_cap <= hd.payload_len,
                  "%s: payload_cap %u beyond capture or payload", what,
                  hd.payload_cap);
    ck_assert_msg(!!(hd.flags & RTEL_HD_F_ICRC) == (end <= caplen),
                  "%s: ICRC flag vs end %zu caplen %zu", what, end, caplen);
    if (hd.flags & RTEL_HD_F_ICRC) {
      int ipver = (hd.flags & RTEL_HD_F_IPV4)  ? 4
                  : (hd.flags & RTEL_HD_F_GRH) ? 1
                                               : 6;
      uint32_t mine =
          tu_icrc(pkt, hd.l3_off, ipver, hd.l4_off, hd.bth_off, end);
      ck_assert_msg(hd.icrc == tu_le32(pkt + end - 4), "%s: wire ICRC", what);
      ck_assert_msg(hd.icrc_calc == mine,
                    "%s: icrc_calc 0x%08x, independent 0x%08x", what,
                    hd.icrc_calc, mine);
      ck_assert_msg(hd.icrc_status ==
                        (mine == hd.icrc ? RTEL_ICRC_OK : RTEL_ICRC_BAD),
                    "%s: icrc_status %u", what, hd.icrc_status);
    } else {
      ck_assert_uint_eq(hd.icrc_status, RTEL_ICRC_TRUNCATED);
    }
  }
  if (hd.flags & RTEL_HD_F_CM)
    ck_assert_msg((size_t)hd.cm_priv_off + hd.cm_priv_len <= caplen,
                  "%s: CM private data beyond capture", what);
}

START_TEST(test_random_mutations) {
  tb base[8];
  tu_cm cm;
  uint32_t st = 0xC0FFEEu + (uint32_t)_i;
  size_t nb = 0, it;
  build(&base[nb++], 4, 0x0B, 40, 2);
  build(&base[nb++], 6, 0x12, 0, 0);
  build(&base[nb++], 1, 0x05, 30, 1); /* RoCEv1 SEND ONLY imm */
  build_v6_ext(&base[nb++], 0x65, 24);
  tb_init(&base[nb]);
  outer_v4(&base[nb], 47);
  tb_gre(&base[nb], 0x1000, 0x22EB, 0, 1);
  tb_erspan3(&base[nb], 1, 0, 0, 0, 9, 0x01020304, 0, 0, 0, 0, 0, 1, 1);
  inner(&base[nb++], 0x4C, 0, 4); /* RD READ REQUEST */
  tb_init(&base[nb]);
  outer_v4(&base[nb], 17);
  tb_udp(&base[nb], 0xE000, 4789);
  tb_vxlan(&base[nb], 0x08, 77);
  inner(&base[nb++], 0xBC, 0, 6); /* XRC FLUSH over IPv6 */
  memset(&cm, 0, sizeof(cm));
  cm.attr = RTEL_CM_REQ;
  cm.local_qpn = 0x123;
  tb_init(&base[nb]);
  tu_build_cm(&base[nb++], &cm);
  for (it = 0; it < 4000; it++) {
    tb t = base[it % nb];
    unsigned nflip = lcg_next(&st) % 4, k;
    size_t caplen, wire;
    char what[64];
    for (k = 0; k < nflip; k++) {
      size_t pos = lcg_next(&st) % t.n;
      t.b[pos] ^= (uint8_t)(1u << (lcg_next(&st) % 8));
    }
    caplen = (lcg_next(&st) % 4) ? t.n : lcg_next(&st) % (t.n + 1);
    wire = caplen + ((lcg_next(&st) % 3) ? 0 : lcg_next(&st) % 64);
    snprintf(what, sizeof(what), "seed %d iteration %zu", _i, it);
    check_invariants(t.b, caplen, wire, what);
  }
}
END_TEST

/* --------------------------------------------------------------- pcaps */

typedef struct golden {
  uint8_t op;
  uint32_t dqpn, psn;
  uint16_t cm_attr;
} golden;

/* tshark 4.0.17 view of the two Soft-RoCE captures (see SOURCES.md) */
static const golden g_ecn[] = {
    {100, 1, 65, RTEL_CM_REQ},  {100, 1, 55, RTEL_CM_REP},
    {100, 1, 66, RTEL_CM_RTU},  {10, 0x11, 9209053, 0},
    {17, 0x11, 9209053, 0},     {12, 0x11, 9209054, 0},
    {13, 0x11, 9209054, 0},     {14, 0x11, 9209055, 0},
    {14, 0x11, 9209056, 0},     {15, 0x11, 9209057, 0},
    {100, 1, 67, RTEL_CM_DREQ}, {100, 1, 56, RTEL_CM_DREP},
};
static const golden g_test[] = {
    {100, 1, 82, RTEL_CM_REQ},  {100, 1, 45, RTEL_CM_REP},
    {100, 1, 83, RTEL_CM_RTU},  {10, 0x11, 12726936, 0},
    {17, 0x17, 12726936, 0},    {12, 0x11, 12726937, 0},
    {13, 0x17, 12726937, 0},    {14, 0x17, 12726938, 0},
    {14, 0x17, 12726939, 0},    {15, 0x17, 12726940, 0},
    {100, 1, 84, RTEL_CM_DREQ}, {100, 1, 46, RTEL_CM_DREP},
};

static int ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

static void check_capture(const char *path, const char *name) {
  tu_pcap p;
  const uint8_t *pkt;
  uint32_t cl, wl;
  uint64_t ts;
  size_t nroce = 0, nframe = 0, ncm = 0, hist[256];
  const golden *g = NULL;
  size_t ng = 0;
  rtel_decode_opts o = opts_flags(RTEL_DECODE_VERIFY_ICRC);
  memset(hist, 0, sizeof(hist));
  if (ends_with(name, "read-write-ecn.pcap")) {
    g = g_ecn;
    ng = sizeof(g_ecn) / sizeof(g_ecn[0]);
  } else if (ends_with(name, "roce-lab__test.pcap")) {
    g = g_test;
    ng = sizeof(g_test) / sizeof(g_test[0]);
  }
  ck_assert_msg(tu_pcap_open(&p, path) == 0, "cannot read %s", path);
  o.linktype = p.linktype;
  while (tu_pcap_next(&p, &pkt, &cl, &wl, &ts) == 1) {
    rtel_pkt_hd hd;
    int rc = decode(&hd, &o, pkt, cl, wl);
    nframe++;
    ck_assert_msg(rc == 0 || rc == RTEL_ERR_NOT_ROCE,
                  "%s frame %zu: rc %d malformed %u", name, nframe, rc,
                  hd.malformed);
    if (rc != 0)
      continue;
    ck_assert_uint_eq(hd.roce, 2);
    ck_assert_msg(hd.icrc_status == RTEL_ICRC_OK,
                  "%s frame %zu: icrc_status %u (wire 0x%08x calc 0x%08x)",
                  name, nframe, hd.icrc_status, hd.icrc, hd.icrc_calc);
    ck_assert_uint_eq(hd.icrc_calc,
                      tu_icrc(pkt, hd.l3_off, 4, hd.l4_off, hd.bth_off,
                              (size_t)hd.l4_off + hd.udp_len));
    ck_assert_uint_eq(hd.payload_off + hd.payload_len + hd.pad + 4,
                      hd.l4_off + hd.udp_len);
    if (g && nroce < ng) {
      ck_assert_msg(hd.opcode == g[nroce].op && hd.dqpn == g[nroce].dqpn &&
                        hd.psn == g[nroce].psn,
                    "%s frame %zu: op %u qp 0x%x psn %u", name, nframe,
                    hd.opcode, hd.dqpn, hd.psn);
      if (g[nroce].cm_attr) {
        ck_assert_msg(hd.flags & RTEL_HD_F_CM, "%s frame %zu: no CM", name,
                      nframe);
        ck_assert_uint_eq(hd.cm_attr, g[nroce].cm_attr);
      }
    }
    if (hd.flags & RTEL_HD_F_CM)
      ncm++;
    if (g == g_test && nroce == 0) {
      uint8_t a[16], b[16];
      tu_ipv4_mapped(a, 0xC0A80219u); /* 192.168.2.25 */
      tu_ipv4_mapped(b, 0xC0A80218u);
      ck_assert_uint_eq(hd.cm_lcid, 0xAC6608B9u);
      ck_assert_uint_eq(hd.cm_service_id, UINT64_C(0x0000000001061D2F));
      ck_assert_uint_eq(hd.cm_local_qpn, 0x17);
      ck_assert_uint_eq(hd.cm_start_psn, 0x89BB0E);
      ck_assert_uint_eq(hd.mad_tid, UINT64_C(0x00000002B90866AC));
      ck_assert_mem_eq(hd.cm_local_gid, a, 16);
      ck_assert_mem_eq(hd.cm_remote_gid, b, 16);
    }
    if (g == g_test && nroce == 1) {
      ck_assert_uint_eq(hd.cm_local_qpn, 0x11);
      ck_assert_uint_eq(hd.cm_start_psn, 0xC23298);
    }
    hist[hd.opcode]++;
    nroce++;
  }
  tu_pcap_close(&p);
  if (g) {
    ck_assert_msg(nroce == ng, "%s: %zu RoCE frames, want %zu", name, nroce,
                  ng);
    ck_assert_uint_eq(ncm, 5);
  }
  if (ends_with(name, "oferby_proxy__roce.pcap")) {
    ck_assert_uint_eq(nframe, 123);
    ck_assert_uint_eq(nroce, 105);
    ck_assert_uint_eq(hist[0], 33);
    ck_assert_uint_eq(hist[3], 33);
    ck_assert_uint_eq(hist[5], 2);
    ck_assert_uint_eq(hist[17], 37);
  }
}

START_TEST(test_capture_icrc_vectors) {
  const char *dir = tu_captures_dir();
  DIR *d;
  struct dirent *e;
  int n = 0;
  if (!dir) {
    fprintf(stderr, "check_decode: no shared captures, skipping\n");
    return;
  }
  d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  while ((e = readdir(d)) != NULL) {
    char path[8192];
    if (!ends_with(e->d_name, ".pcap"))
      continue;
    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
    check_capture(path, e->d_name);
    n++;
  }
  closedir(d);
  ck_assert_int_gt(n, 0);
}
END_TEST

/* --------------------------------------------------------------- suite */

Suite *rtel_test_decode_suite(void) {
  Suite *s = suite_create("decode");
  TCase *tc;

  tc = tcase_create("opcodes");
  tcase_add_loop_test(tc, test_opcode_table_v4, 0, 256);
  tcase_add_loop_test(tc, test_opcode_table_v6, 0, 256);
  tcase_add_loop_test(tc, test_opcode_table_v1, 0, 256);
  tcase_add_test(tc, test_opcode_spot);
  tcase_add_test(tc, test_bth_fields);
  tcase_add_test(tc, test_bth_tver);
  tcase_add_test(tc, test_aeth_kinds);
  tcase_add_test(tc, test_pad_counts);
  tcase_add_test(tc, test_pad_malformed);
  tcase_add_test(tc, test_payload_fields);
  tcase_add_test(tc, test_eth_trailer);
  tcase_add_test(tc, test_wire_len_arg);
  suite_add_tcase(s, tc);

  tc = tcase_create("l2l3");
  tcase_add_test(tc, test_eth_ipv4_fields);
  tcase_add_test(tc, test_ipv6_fields);
  tcase_add_test(tc, test_vlan_tags);
  tcase_add_test(tc, test_vlan_depth);
  tcase_add_test(tc, test_ipv4_options);
  tcase_add_test(tc, test_ipv4_hlen);
  tcase_add_test(tc, test_ip_version);
  tcase_add_test(tc, test_ipv4_fragments);
  tcase_add_test(tc, test_ipv6_ext_headers);
  tcase_add_test(tc, test_ipv6_ext_malformed);
  tcase_add_test(tc, test_ipv6_fragment_and_nonxt);
  tcase_add_test(tc, test_rocev1);
  tcase_add_test(tc, test_link_raw);
  tcase_add_test(tc, test_link_sll);
  tcase_add_test(tc, test_link_unknown);
  tcase_add_test(tc, test_udp_ports);
  tcase_add_test(tc, test_not_roce_protocols);
  tcase_add_test(tc, test_lying_lengths);
  suite_add_tcase(s, tc);

  tc = tcase_create("encap");
  tcase_add_test(tc, test_erspan1);
  tcase_add_test(tc, test_erspan2);
  tcase_add_test(tc, test_erspan2_outer_ipv6_inner_vlan_ipv6);
  tcase_add_test(tc, test_erspan3);
  tcase_add_test(tc, test_erspan_gre_malformed);
  tcase_add_test(tc, test_vxlan);
  tcase_add_test(tc, test_vxlan_custom_port);
  tcase_add_test(tc, test_gre_teb);
  tcase_add_test(tc, test_encap_depth);
  tcase_add_test(tc, test_erspan_then_vxlan);
  suite_add_tcase(s, tc);

  tc = tcase_create("truncation");
  tcase_add_test(tc, test_truncation_v4);
  tcase_add_test(tc, test_truncation_v6_ext);
  tcase_add_test(tc, test_truncation_qinq_rd);
  tcase_add_test(tc, test_truncation_atomic);
  tcase_add_test(tc, test_truncation_erspan3);
  tcase_add_test(tc, test_truncation_vxlan);
  tcase_add_test(tc, test_truncation_rocev1);
  suite_add_tcase(s, tc);

  tc = tcase_create("icrc");
  tcase_add_test(tc, test_icrc_good);
  tcase_add_test(tc, test_icrc_unchecked);
  tcase_add_test(tc, test_icrc_bad);
  tcase_add_test(tc, test_icrc_masked_fields);
  tcase_add_test(tc, test_icrc_truncated);
  tcase_add_test(tc, test_icrc_ipv4_options);
  tcase_add_test(tc, test_icrc_ipv6_ext);
  tcase_add_test(tc, test_icrc_encapsulated);
  tcase_add_test(tc, test_icrc_compute);
  tcase_add_test(tc, test_capture_icrc_vectors);
  suite_add_tcase(s, tc);

  tc = tcase_create("cm");
  tcase_add_test(tc, test_cm_messages);
  tcase_add_test(tc, test_cm_capture_cut);
  tcase_add_test(tc, test_mad_short);
  tcase_add_test(tc, test_mad_not_cm);
  suite_add_tcase(s, tc);

  tc = tcase_create("args");
  tcase_add_test(tc, test_decode_args);
  tcase_add_loop_test(tc, test_random_mutations, 0, 4);
  suite_add_tcase(s, tc);
  return s;
}
