/* SPDX-License-Identifier: MIT */
/*
 * NVMe-oF over RDMA for the packet builder (see rtel_test_util.h): capsules
 * written byte by byte from NVMe 2.0 / NVMe-oF 1.1 (SQE, CQE, keyed and
 * in-capsule SGL descriptors), the RDMA CM private data of NVMe-oF/RDMA,
 * and the RoCE frames of one queue built with tu_build(). Nothing here
 * calls into the library.
 */
#include "rtel_test_util.h"

#include <string.h>

/* ------------------------------------------------------------- capsules */

/* NVMe structures are little-endian. */
static void le16(uint8_t *b, uint32_t v) {
  b[0] = (uint8_t)v;
  b[1] = (uint8_t)(v >> 8);
}

static void le32(uint8_t *b, uint32_t v) {
  le16(b, v & 0xFFFFu);
  le16(b + 2, v >> 16);
}

static void le64(uint8_t *b, uint64_t v) {
  le32(b, (uint32_t)v);
  le32(b + 4, (uint32_t)(v >> 32));
}

/* CDW0: opcode, PSDT 01 (SGL), not fused; CID */
static void sqe_head(uint8_t sqe[TU_SQE_LEN], uint8_t opcode, uint16_t cid) {
  memset(sqe, 0, TU_SQE_LEN);
  sqe[0] = opcode;
  sqe[1] = 0x40;
  le16(sqe + 2, cid);
}

/* SGL1 (bytes 24-39): keyed data block descriptor, type 0x4 subtype 0x0:
 * address (8), length (3), key (4) */
static void sgl_keyed(uint8_t sqe[TU_SQE_LEN], uint64_t va, uint32_t len,
                      uint32_t key) {
  le64(sqe + 24, va);
  sqe[32] = (uint8_t)len;
  sqe[33] = (uint8_t)(len >> 8);
  sqe[34] = (uint8_t)(len >> 16);
  le32(sqe + 35, key);
  sqe[39] = 0x40;
}

/* SGL1: data block descriptor, type 0x0 subtype 0x1 (offset into the
 * capsule's in-capsule data): offset (8), length (4) */
static void sgl_incapsule(uint8_t sqe[TU_SQE_LEN], uint64_t off,
                          uint32_t len) {
  le64(sqe + 24, off);
  le32(sqe + 32, len);
  sqe[39] = 0x01;
}

/* CDW10-11 SLBA, CDW12 NLB (0-based) */
static void rw_range(uint8_t sqe[TU_SQE_LEN], uint64_t slba, uint32_t nlb) {
  le64(sqe + 40, slba);
  le16(sqe + 48, nlb - 1);
}

void tu_sqe_rw(uint8_t sqe[TU_SQE_LEN], uint8_t opcode, uint16_t cid,
               uint32_t nsid, uint64_t slba, uint32_t nlb, uint64_t va,
               uint32_t len, uint32_t key) {
  sqe_head(sqe, opcode, cid);
  le32(sqe + 4, nsid);
  sgl_keyed(sqe, va, len, key);
  rw_range(sqe, slba, nlb);
}

void tu_sqe_incapsule(uint8_t sqe[TU_SQE_LEN], uint16_t cid, uint32_t nsid,
                      uint64_t slba, uint32_t nlb, uint32_t len) {
  sqe_head(sqe, TU_NVME_WRITE, cid);
  le32(sqe + 4, nsid);
  sgl_incapsule(sqe, 0, len);
  rw_range(sqe, slba, nlb);
}

void tu_sqe_keyed_inv(uint8_t sqe[TU_SQE_LEN]) { sqe[39] = 0x4F; }

void tu_sqe_flush(uint8_t sqe[TU_SQE_LEN], uint16_t cid, uint32_t nsid) {
  sqe_head(sqe, TU_NVME_FLUSH, cid);
  le32(sqe + 4, nsid);
  sgl_keyed(sqe, 0, 0, 0);
}

void tu_sqe_connect(uint8_t sqe[TU_SQE_LEN], uint16_t cid, uint16_t qid,
                    uint32_t datalen) {
  sqe_head(sqe, TU_NVME_FABRICS, cid);
  sqe[4] = 0x01; /* fctype Connect */
  sgl_incapsule(sqe, 0, datalen);
  le16(sqe + 40, 0); /* RECFMT */
  le16(sqe + 42, qid);
  le16(sqe + 44, 127); /* SQSIZE */
}

void tu_sqe_fabrics(uint8_t sqe[TU_SQE_LEN], uint16_t cid, uint8_t fctype) {
  sqe_head(sqe, TU_NVME_FABRICS, cid);
  sqe[4] = fctype;
  sgl_keyed(sqe, 0, 0, 0); /* no data */
}

void tu_cqe(uint8_t cqe[TU_CQE_LEN], uint16_t cid, uint16_t sf) {
  memset(cqe, 0, TU_CQE_LEN);
  le16(cqe + 8, 1); /* SQHD */
  le16(cqe + 12, cid);
  le16(cqe + 14, (uint32_t)sf << 1); /* phase 0 */
}

/* ------------------------------------------------------------- frames */

void tu_nvq_init4(tu_nvq *q, uint32_t host, uint32_t target, uint32_t hqpn,
                  uint32_t tqpn, uint32_t hpsn, uint32_t tpsn) {
  memset(q, 0, sizeof(*q));
  q->ipver = 4;
  tu_ipv4_mapped(q->host, host);
  tu_ipv4_mapped(q->target, target);
  q->hqpn = hqpn;
  q->tqpn = tqpn;
  q->hpsn = hpsn;
  q->tpsn = tpsn;
  q->sport = 0xC000;
}

void tu_nvq_spec(tu_spec *s, const tu_nvq *q, int to_target, uint8_t opcode,
                 size_t paylen) {
  tu_spec_init(s, opcode, paylen);
  s->ipver = q->ipver;
  memcpy(s->src, to_target ? q->host : q->target, 16);
  memcpy(s->dst, to_target ? q->target : q->host, 16);
  s->sport = q->sport;
  s->pkey = 0xFFFF;
  s->dqpn = to_target ? q->tqpn : q->hqpn;
  s->pad = (uint8_t)tu_pad_of(paylen);
}

void tu_nvq_capsule(tb *t, tu_nvq *q, uint8_t opcode, const uint8_t *b,
                    size_t n) {
  tu_spec s;
  tu_nvq_spec(&s, q, 1, opcode, n);
  s.psn = q->hpsn++ & 0xFFFFFFu;
  s.payload = b;
  tb_init(t);
  tu_build(t, &s);
}

void tu_nvq_cmd(tb *t, tu_nvq *q, const uint8_t sqe[TU_SQE_LEN]) {
  tu_nvq_capsule(t, q, 0x04 /* SEND ONLY */, sqe, TU_SQE_LEN);
}

void tu_nvq_rsp(tb *t, tu_nvq *q, uint16_t cid, uint16_t sf, int inv,
                uint32_t inv_rkey) {
  uint8_t cqe[TU_CQE_LEN];
  tu_cqe(cqe, cid, sf);
  tu_nvq_rsp_cqe(t, q, cqe, inv, inv_rkey);
}

void tu_nvq_rsp_cqe(tb *t, tu_nvq *q, const uint8_t cqe[TU_CQE_LEN], int inv,
                    uint32_t inv_rkey) {
  tu_spec s;
  /* SEND ONLY, or SEND ONLY with Invalidate (IETH) */
  tu_nvq_spec(&s, q, 0, inv ? 0x17 : 0x04, TU_CQE_LEN);
  s.psn = q->tpsn++ & 0xFFFFFFu;
  s.ieth_rkey = inv_rkey;
  s.payload = cqe;
  tb_init(t);
  tu_build(t, &s);
}

void tu_nvq_wdata(tb *t, tu_nvq *q, uint8_t opcode, uint64_t va, uint32_t key,
                  uint32_t dmalen, size_t len) {
  tu_spec s;
  tu_nvq_spec(&s, q, 0, opcode, len);
  s.psn = q->tpsn++ & 0xFFFFFFu;
  s.reth_va = va;
  s.reth_rkey = key;
  s.reth_len = dmalen;
  tb_init(t);
  tu_build(t, &s);
}

uint32_t tu_nvq_rdreq(tb *t, tu_nvq *q, uint64_t va, uint32_t key,
                      uint32_t len, uint32_t npkts) {
  tu_spec s;
  uint32_t psn = q->tpsn & 0xFFFFFFu;
  tu_nvq_spec(&s, q, 0, 0x0C /* RDMA READ REQUEST */, 0);
  s.psn = psn;
  s.reth_va = va;
  s.reth_rkey = key;
  s.reth_len = len;
  q->tpsn += npkts;
  tb_init(t);
  tu_build(t, &s);
  return psn;
}

void tu_nvq_rdresp(tb *t, const tu_nvq *q, uint8_t opcode, uint32_t psn,
                   size_t len) {
  tu_spec s;
  tu_nvq_spec(&s, q, 1, opcode, len);
  s.psn = psn & 0xFFFFFFu;
  s.aeth_syn = 0x1F; /* ACK */
  s.aeth_msn = 0;
  tb_init(t);
  tu_build(t, &s);
}

void tu_nvq_ack(tb *t, const tu_nvq *q, int to_target, uint32_t psn) {
  tu_spec s;
  tu_nvq_spec(&s, q, to_target, 0x11 /* ACKNOWLEDGE */, 0);
  s.psn = psn & 0xFFFFFFu;
  s.aeth_syn = 0x1F;
  s.aeth_msn = 1;
  tb_init(t);
  tu_build(t, &s);
}

/* RDMA IP CM service ID (IBTA Annex A11): 0x0000000001 | protocol | port,
 * protocol 0x06 (TCP port space, which NVMe-oF/RDMA uses) */
static uint64_t ip_cm_sid(uint16_t port) {
  return UINT64_C(0x0000000001060000) | port;
}

void tu_nvq_cm_req(tb *t, const tu_nvq *q, uint16_t port, uint16_t qid,
                   uint64_t tid) {
  uint8_t priv[92];
  tu_spec s;
  tu_cm cm;
  /* IP CM private data header (36 bytes: version, IP version, source
   * port, source and destination addresses), then the NVMe-oF/RDMA
   * request (RECFMT, QID, HRQSIZE, HSQSIZE, little-endian) */
  memset(priv, 0, sizeof(priv));
  priv[0] = 0x00;
  priv[1] = (uint8_t)(q->ipver == 6 ? 0x60 : 0x40);
  priv[2] = 0xD0;
  priv[3] = 0x01;
  memcpy(priv + 4, q->host, 16);
  memcpy(priv + 20, q->target, 16);
  if (q->ipver != 6) {
    memset(priv + 4, 0, 12); /* IPv4 in the last 4 bytes, zero pad */
    memset(priv + 20, 0, 12);
  }
  le16(priv + 36, 0);   /* RECFMT */
  le16(priv + 38, qid); /* QID */
  le16(priv + 40, 128); /* HRQSIZE */
  le16(priv + 42, 127); /* HSQSIZE */
  memset(&cm, 0, sizeof(cm));
  cm.attr = RTEL_CM_REQ;
  cm.tid = tid;
  cm.lcid = 0x10000000u | q->hqpn;
  cm.service_id = ip_cm_sid(port);
  cm.local_qpn = q->hqpn;
  cm.start_psn = q->hpsn & 0xFFFFFFu;
  memcpy(cm.lgid, q->host, 16);
  memcpy(cm.rgid, q->target, 16);
  cm.priv = priv;
  cm.privlen = sizeof(priv);
  tu_nvq_spec(&s, q, 1, 0x64, 0);
  s.psn = 0x000C01;
  tb_init(t);
  tu_build_cm_on(t, &s, &cm);
}

void tu_nvq_cm_rep(tb *t, const tu_nvq *q, uint64_t tid) {
  tu_spec s;
  tu_cm cm;
  memset(&cm, 0, sizeof(cm));
  cm.attr = RTEL_CM_REP;
  cm.tid = tid;
  cm.lcid = 0x20000000u | q->tqpn;
  cm.rcid = 0x10000000u | q->hqpn;
  cm.local_qpn = q->tqpn;
  cm.start_psn = q->tpsn & 0xFFFFFFu;
  tu_nvq_spec(&s, q, 0, 0x64, 0);
  s.psn = 0x000C02;
  tb_init(t);
  tu_build_cm_on(t, &s, &cm);
}
