/* SPDX-License-Identifier: MIT */
/* Frame builder of the scheduler tests: see schedpkt.h. */
#include "schedpkt.h"

#include <string.h>

static size_t put8(uint8_t *b, size_t o, uint32_t v) {
  b[o] = (uint8_t)v;
  return o + 1;
}
static size_t put16(uint8_t *b, size_t o, uint32_t v) {
  b[o] = (uint8_t)(v >> 8);
  b[o + 1] = (uint8_t)v;
  return o + 2;
}
static size_t put24(uint8_t *b, size_t o, uint32_t v) {
  b[o] = (uint8_t)(v >> 16);
  b[o + 1] = (uint8_t)(v >> 8);
  b[o + 2] = (uint8_t)v;
  return o + 3;
}
static size_t put32(uint8_t *b, size_t o, uint32_t v) {
  o = put16(b, o, v >> 16);
  return put16(b, o, v & 0xffffu);
}
static size_t put64(uint8_t *b, size_t o, uint64_t v) {
  o = put32(b, o, (uint32_t)(v >> 32));
  return put32(b, o, (uint32_t)v);
}

size_t sp_build(uint8_t *out, const sp_pkt *p) {
  static const uint8_t mac_d[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};
  static const uint8_t mac_s[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
  size_t o = 0, ip, udp, i, pad;
  uint32_t sum = 0;

  memset(out, 0, SP_MAX);
  /* Ethernet II */
  memcpy(out, mac_d, 6);
  memcpy(out + 6, mac_s, 6);
  o = put16(out, 12, 0x0800);
  /* IPv4, 20 bytes; lengths and checksum filled in at the end */
  ip = o;
  o = put8(out, o, 0x45);
  o = put8(out, o, p->ecn & 3u); /* DSCP 0 */
  o = put16(out, o, 0);          /* total length */
  o = put16(out, o, 0x1234);     /* identification */
  o = put16(out, o, 0x4000);     /* DF */
  o = put8(out, o, 64);          /* TTL */
  o = put8(out, o, 17);          /* UDP */
  o = put16(out, o, 0);          /* checksum */
  o = put32(out, o, p->src);
  o = put32(out, o, p->dst);
  /* UDP */
  udp = o;
  o = put16(out, o, p->sport ? p->sport : 0xC000u);
  o = put16(out, o, 4791);
  o = put16(out, o, 0); /* length */
  o = put16(out, o, 0); /* no checksum */
  /* BTH */
  pad = (4 - (p->plen & 3u)) & 3u;
  if (p->opcode == SP_CNP || p->opcode == SP_ACK ||
      p->opcode == SP_READ_REQ) {
    pad = 0;
  }
  o = put8(out, o, p->opcode);
  o = put8(out, o, (uint32_t)(pad << 4)); /* SE 0, M 0, pad, tver 0 */
  o = put16(out, o, 0xFFFF);              /* P_Key */
  o = put8(out, o, 0);                    /* FECN/BECN/resv */
  o = put24(out, o, p->dqpn & 0xffffffu);
  o = put8(out, o, 0x80); /* AckReq */
  o = put24(out, o, p->psn & 0xffffffu);
  if (p->reth) {
    o = put64(out, o, p->va);
    o = put32(out, o, p->rkey);
    o = put32(out, o, p->dmalen);
  }
  if (p->aeth) {
    o = put8(out, o, p->syndrome);
    o = put24(out, o, p->msn & 0xffffffu);
  }
  if (p->opcode == SP_CNP) {
    o += 16; /* reserved, zero */
  }
  for (i = 0; i < p->plen; i++) {
    out[o++] = p->payload ? p->payload[i] : (uint8_t)(0xA5u ^ i);
  }
  o += pad; /* pad bytes, zero */
  o += 4;   /* ICRC, zero */
  put16(out, ip + 2, (uint32_t)(o - ip));
  put16(out, udp + 4, (uint32_t)(o - udp));
  for (i = 0; i < 20; i += 2) {
    sum += (uint32_t)out[ip + i] << 8 | out[ip + i + 1];
  }
  while (sum >> 16) {
    sum = (sum & 0xffffu) + (sum >> 16);
  }
  put16(out, ip + 10, ~sum & 0xffffu);
  return o;
}

void sp_mapped(uint32_t ip4, uint8_t out[16]) {
  memset(out, 0, 16);
  out[10] = 0xff;
  out[11] = 0xff;
  put32(out, 12, ip4);
}

/* NVMe structures are little-endian. */
static void le16(uint8_t *b, uint32_t v) {
  b[0] = (uint8_t)v;
  b[1] = (uint8_t)(v >> 8);
}
static void le32(uint8_t *b, uint32_t v) {
  le16(b, v & 0xffffu);
  le16(b + 2, v >> 16);
}
static void le64(uint8_t *b, uint64_t v) {
  le32(b, (uint32_t)v);
  le32(b + 4, (uint32_t)(v >> 32));
}

void sp_sqe_rw(uint8_t sqe[64], uint8_t opcode, uint16_t cid, uint32_t nsid,
               uint64_t slba, uint16_t nlb0, uint64_t va, uint32_t len,
               uint32_t key) {
  memset(sqe, 0, 64);
  sqe[0] = opcode;
  sqe[1] = 0x40; /* PSDT 01: SGL, fused 0 */
  le16(sqe + 2, cid);
  le32(sqe + 4, nsid);
  /* DPTR: SGL1 at bytes 24-39, keyed data block descriptor:
   * address (8), length (3), key (4), type 0x4 / subtype 0x0 */
  le64(sqe + 24, va);
  sqe[32] = (uint8_t)len;
  sqe[33] = (uint8_t)(len >> 8);
  sqe[34] = (uint8_t)(len >> 16);
  le32(sqe + 35, key);
  sqe[39] = 0x40;
  le64(sqe + 40, slba); /* CDW10-11 */
  le16(sqe + 48, nlb0); /* CDW12 NLB, 0-based */
}

void sp_sqe_connect(uint8_t sqe[64], uint16_t cid, uint16_t qid) {
  memset(sqe, 0, 64);
  sqe[0] = 0x7F; /* Fabrics */
  sqe[1] = 0x40;
  le16(sqe + 2, cid);
  sqe[4] = 0x01;   /* fctype Connect */
  sqe[39] = 0x01;  /* SGL: data block, offset (in-capsule data) */
  le16(sqe + 40, 0); /* RECFMT */
  le16(sqe + 42, qid);
  le16(sqe + 44, 127); /* SQSIZE */
}

void sp_sqe_fabrics(uint8_t sqe[64], uint16_t cid, uint8_t fctype) {
  memset(sqe, 0, 64);
  sqe[0] = 0x7F;
  sqe[1] = 0x40;
  le16(sqe + 2, cid);
  sqe[4] = fctype;
  sqe[39] = 0x01; /* no data: an empty in-capsule descriptor */
}

void sp_cqe(uint8_t cqe[16], uint16_t cid, uint16_t sf) {
  memset(cqe, 0, 16);
  le16(cqe + 8, 1); /* SQHD */
  le16(cqe + 12, cid);
  le16(cqe + 14, (uint32_t)sf << 1); /* phase 0 */
}
