/* SPDX-License-Identifier: MIT */
/* The IBTA opcode table: which extended transport headers follow the BTH,
 * and what the flow and pairing tables make of each opcode. */
#ifndef RTEL_OPCODE_H
#define RTEL_OPCODE_H

#include "rtel_int.h"

/* Opcodes: a transport (the high 3 bits) | an operation (the low 5). */
#define RTEL__OPC_RC 0x00u
#define RTEL__OPC_UC 0x20u
#define RTEL__OPC_RD 0x40u
#define RTEL__OPC_UD 0x60u
#define RTEL__OPC_XRC 0xA0u
#define RTEL__OPC_CNP 0x81u /* a whole opcode: RoCEv2 CNP */

#define RTEL__OPC_SEND_FIRST 0x00u
#define RTEL__OPC_SEND_MIDDLE 0x01u
#define RTEL__OPC_SEND_LAST 0x02u
#define RTEL__OPC_SEND_LAST_IMM 0x03u
#define RTEL__OPC_SEND_ONLY 0x04u
#define RTEL__OPC_SEND_ONLY_IMM 0x05u
#define RTEL__OPC_WRITE_FIRST 0x06u
#define RTEL__OPC_WRITE_MIDDLE 0x07u
#define RTEL__OPC_WRITE_LAST 0x08u
#define RTEL__OPC_WRITE_LAST_IMM 0x09u
#define RTEL__OPC_WRITE_ONLY 0x0Au
#define RTEL__OPC_WRITE_ONLY_IMM 0x0Bu
#define RTEL__OPC_READ_REQ 0x0Cu
#define RTEL__OPC_READ_RESP_FIRST 0x0Du
#define RTEL__OPC_READ_RESP_MIDDLE 0x0Eu
#define RTEL__OPC_READ_RESP_LAST 0x0Fu
#define RTEL__OPC_READ_RESP_ONLY 0x10u
#define RTEL__OPC_ACK 0x11u
#define RTEL__OPC_ATOMIC_ACK 0x12u
#define RTEL__OPC_CMP_SWAP 0x13u
#define RTEL__OPC_FETCH_ADD 0x14u
#define RTEL__OPC_SEND_LAST_INV 0x16u
#define RTEL__OPC_SEND_ONLY_INV 0x17u
#define RTEL__OPC_FLUSH 0x1Cu
#define RTEL__OPC_ATOMIC_WRITE 0x1Du

/* Header bits, in wire order after the BTH (the decoder walks them in
 * this order). */
#define RTEL__H_VALID 0x0001u
#define RTEL__H_RDETH 0x0002u     /* 4 bytes */
#define RTEL__H_DETH 0x0004u      /* 8 bytes */
#define RTEL__H_XRCETH 0x0008u    /* 4 bytes */
#define RTEL__H_FETH 0x0010u      /* 4 bytes */
#define RTEL__H_RETH 0x0020u      /* 16 bytes */
#define RTEL__H_ATOMIC 0x0040u    /* 28 bytes */
#define RTEL__H_AETH 0x0080u      /* 4 bytes */
#define RTEL__H_ATOMICACK 0x0100u /* 8 bytes */
#define RTEL__H_IMM 0x0200u       /* 4 bytes */
#define RTEL__H_IETH 0x0400u      /* 4 bytes */
#define RTEL__H_CNP 0x0800u       /* 16 reserved bytes, counted as payload */

typedef struct rtel__opcode_info {
  const char *name;
  uint16_t hdrs;
} rtel__opcode_info;

extern rtel__hidden const rtel__opcode_info rtel__opcodes[256];

/* Bytes of extended headers an opcode's header mask implies. */
extern rtel__hidden const uint8_t rtel__ext_len[256];

/* rtel__op_class[opcode]: a kind (RTEL__K_*, 0 for none: UD, RD,
 * reserved), for data its RTEL_OP_* (rtel__op_class_op()) and its place
 * in the message (RTEL__P_*). Read by the flow and pairing tables. */
#define RTEL__K_DATA 0x100u /* SEND, WRITE, READ RESPONSE (RC, UC, XRC) */
#define RTEL__K_REQ 0x200u  /* READ REQUEST, atomics, FLUSH, ATOMIC WRITE */
#define RTEL__K_ACK 0x400u  /* ACK, ATOMIC ACK (AETH) */
#define RTEL__K_CNP 0x800u
#define RTEL__P_MID 0x0u
#define RTEL__P_FIRST 0x1u
#define RTEL__P_LAST 0x2u
#define RTEL__P_ONLY (RTEL__P_FIRST | RTEL__P_LAST)
#define RTEL__O_SHIFT 2

extern rtel__hidden const uint16_t rtel__op_class[256];

static inline uint8_t rtel__op_class_op(uint16_t cls) {
  return (uint8_t)((cls >> RTEL__O_SHIFT) & 7u);
}

#endif /* RTEL_OPCODE_H */
