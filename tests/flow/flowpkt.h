/* SPDX-License-Identifier: MIT */
/*
 * A small RoCEv2 frame builder for the flow-table tests, written byte by
 * byte from the IBTA / RFC layouts. It does not use the library (nor
 * tests/rtel_test_util.*): Ethernet (with up to two VLAN tags), IPv4 or
 * IPv6, UDP (destination port 4791), BTH, the extended transport headers the
 * flow tests need (RETH, AETH, DETH, XRCETH, ImmDt, IETH, the CNP's 16
 * reserved bytes) and RDMA CM MADs (ConnectRequest, ConnectReply).
 *
 * The ICRC is written as zero: the context does not verify it by default.
 */
#ifndef FLOWPKT_H
#define FLOWPKT_H

#include <stddef.h>
#include <stdint.h>

#define FP_MAX 2048

/* Link, network, UDP and BTH fields of one frame. Addresses are 16 bytes;
 * an IPv4 address is given IPv4-mapped (::ffff:a.b.c.d), exactly as the
 * library reports it. */
typedef struct fp_hdr {
  int ipv6;
  uint8_t src[16];
  uint8_t dst[16];
  int nvlan;              /* 0..2 */
  uint16_t vlan_tpid[2];  /* outermost first */
  uint16_t vlan_tci[2];
  uint8_t dscp;           /* 6 bits */
  uint8_t ecn;            /* 2 bits */
  uint16_t sport;
  uint16_t dport;         /* 0: 4791 */
  uint8_t opcode;
  uint8_t pad;            /* BTH pad count; the builder appends the bytes */
  uint8_t tver;
  uint8_t fecn;
  uint8_t becn;
  uint8_t ackreq;
  uint16_t pkey;          /* 0: 0xFFFF */
  uint32_t dqpn;
  uint32_t psn;
} fp_hdr;

typedef struct fp_frame {
  uint8_t b[FP_MAX];
  size_t n;
  size_t ip_off;
  size_t udp_off;
  size_t bth_off;
  int ipv6;
  uint8_t pad;
} fp_frame;

/* Writes Ethernet, VLAN tags, IP, UDP and the BTH of |h|. */
void fp_begin(fp_frame *f, const fp_hdr *h);
/* Big-endian writers at the end of the frame. */
void fp_u8(fp_frame *f, uint32_t v);
void fp_u16(fp_frame *f, uint32_t v);
void fp_u24(fp_frame *f, uint32_t v);
void fp_u32(fp_frame *f, uint32_t v);
void fp_u64(fp_frame *f, uint64_t v);
/* |n| bytes of a recognisable pattern (payload), or of zeros. */
void fp_fill(fp_frame *f, size_t n);
void fp_zero(fp_frame *f, size_t n);
/* Extended transport headers. */
void fp_reth(fp_frame *f, uint64_t va, uint32_t rkey, uint32_t dmalen);
void fp_aeth(fp_frame *f, uint8_t syndrome, uint32_t msn);
void fp_deth(fp_frame *f, uint32_t qkey, uint32_t src_qpn);
void fp_xrceth(fp_frame *f, uint32_t srqn);
void fp_imm(fp_frame *f, uint32_t imm);
void fp_ieth(fp_frame *f, uint32_t rkey);
/* Appends the pad bytes and a zero ICRC; sets the IP total / payload
 * length, the IPv4 header checksum and the UDP length. */
void fp_finish(fp_frame *f);

/* Reads the UDP length field back from a finished frame. */
unsigned fp_udp_len(const fp_frame *f);

/*
 * A data / control packet of a connected QP: fp_begin(), then the extended
 * headers that |h->opcode| implies (own table, RC/UC/XRC/CNP), then
 * |payload| bytes, then fp_finish(). |reth_len| is the RETH DMA length,
 * |syndrome| the AETH syndrome (where the opcode has these headers).
 * Returns the number of extended-header bytes written (for payload checks).
 */
size_t fp_rc(fp_frame *f, const fp_hdr *h, uint32_t reth_len,
             uint8_t syndrome, size_t payload);

/* RDMA CM over QP1: UD SEND ONLY to QP 1, DETH (Q_Key 0x80010000, source
 * QP 1), a 256-byte MAD (base version 1, class 0x07, class version 2,
 * method 0x03 Send). |h->opcode|, |h->dqpn| and |h->pad| are overridden. */
typedef struct fp_cm {
  uint16_t attr;      /* 0x0010 REQ, 0x0013 REP */
  uint64_t tid;
  uint32_t lcid;
  uint32_t rcid;      /* REP */
  uint64_t service_id; /* REQ */
  uint32_t local_qpn;
  uint32_t start_psn;
} fp_cm;
void fp_cm_mad(fp_frame *f, const fp_hdr *h, const fp_cm *cm);

#endif /* FLOWPKT_H */
