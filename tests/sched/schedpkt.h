/* SPDX-License-Identifier: MIT */
/*
 * A tiny RoCEv2 frame builder for the scheduler / alarm tests, written byte
 * by byte from the IBTA, RFC 791/768 and NVMe-oF layouts. It does not use
 * the library nor the other test helpers: Ethernet II, IPv4 (with header
 * checksum), UDP to port 4791, BTH, and optionally RETH, AETH or the 16
 * reserved bytes of a CNP, then the payload, pad bytes and a zero ICRC (the
 * context does not verify it by default).
 *
 * NVMe-oF helpers write a 64-byte SQE (command capsule) and a 16-byte CQE
 * (response capsule) as NVMe 2.0 / NVMe-oF 1.1 lay them out.
 */
#ifndef SCHEDPKT_H
#define SCHEDPKT_H

#include <stddef.h>
#include <stdint.h>

#define SP_MAX 8192 /* a 4096-byte RoCE MTU payload fits */

/* RC opcodes used here. */
#define SP_SEND_ONLY 0x04u
#define SP_WRITE_ONLY 0x0Au
#define SP_READ_REQ 0x0Cu
#define SP_READ_RESP_ONLY 0x10u
#define SP_ACK 0x11u
#define SP_CNP 0x81u

typedef struct sp_pkt {
  uint32_t src; /* IPv4, host byte order */
  uint32_t dst;
  uint16_t sport; /* 0: 0xC000 */
  uint8_t opcode;
  uint8_t ecn;
  uint32_t dqpn;
  uint32_t psn;
  int reth; /* append a RETH */
  uint64_t va;
  uint32_t rkey;
  uint32_t dmalen;
  int aeth; /* append an AETH */
  uint8_t syndrome;
  uint32_t msn;
  const uint8_t *payload; /* NULL: |plen| pattern bytes */
  size_t plen;
} sp_pkt;

/* Builds the frame into |out| (SP_MAX bytes); returns its length. */
size_t sp_build(uint8_t *out, const sp_pkt *p);

/* ::ffff:a.b.c.d of a host-order IPv4 address. */
void sp_mapped(uint32_t ip4, uint8_t out[16]);

/* SQE of an NVM read (0x02) or write (0x01) with one keyed SGL data block
 * descriptor (va, len, key), or a Fabrics Connect (0x7F, fctype 0x01). */
void sp_sqe_rw(uint8_t sqe[64], uint8_t opcode, uint16_t cid, uint32_t nsid,
               uint64_t slba, uint16_t nlb0, uint64_t va, uint32_t len,
               uint32_t key);
void sp_sqe_connect(uint8_t sqe[64], uint16_t cid, uint16_t qid);
/* Another Fabrics command (fctype: 0x04 Property Get, ...). */
void sp_sqe_fabrics(uint8_t sqe[64], uint16_t cid, uint8_t fctype);
/* CQE with |cid| and status field |sf| (the 15 bits above the phase). */
void sp_cqe(uint8_t cqe[16], uint16_t cid, uint16_t sf);

#endif /* SCHEDPKT_H */
