/* SPDX-License-Identifier: MIT */
/* The IBTA opcode table: which extended transport headers follow the BTH. */
#ifndef RTEL_OPCODE_H
#define RTEL_OPCODE_H

#include "rtel_int.h"

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

extern const rtel__opcode_info rtel__opcodes[256];

/* Bytes of extended headers an opcode's header mask implies. */
extern const uint8_t rtel__ext_len[256];

#endif /* RTEL_OPCODE_H */
