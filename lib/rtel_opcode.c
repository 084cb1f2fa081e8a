/* SPDX-License-Identifier: MIT */
/*
 * Opcode table per the IBTA (RC, UC, RD, UD, CNP, XRC) and the memory
 * placement extensions (FLUSH 0x1C, ATOMIC WRITE 0x1D). CNP is 0x81 only
 * (0x80 is reserved; Wireshark 4.0 mislabels it "CNP"). XRC responses
 * (READ RESPONSE, ACK, ATOMIC ACK) carry no XRCETH; RD responses carry
 * RDETH but no DETH.
 */
#include "rtel_opcode.h"

#define H_VALID RTEL__H_VALID
#define H_RDETH RTEL__H_RDETH
#define H_DETH RTEL__H_DETH
#define H_XRCETH RTEL__H_XRCETH
#define H_FETH RTEL__H_FETH
#define H_RETH RTEL__H_RETH
#define H_ATOMIC RTEL__H_ATOMIC
#define H_AETH RTEL__H_AETH
#define H_ATOMICACK RTEL__H_ATOMICACK
#define H_IMM RTEL__H_IMM
#define H_IETH RTEL__H_IETH
#define H_CNP RTEL__H_CNP

/* One table row per line, as written. */
/* clang-format off */
const rtel__opcode_info rtel__opcodes[256] = {
  [0x00] = {"RC SEND FIRST", H_VALID},
  [0x01] = {"RC SEND MIDDLE", H_VALID},
  [0x02] = {"RC SEND LAST", H_VALID},
  [0x03] = {"RC SEND LAST WITH IMMEDIATE", H_VALID | H_IMM},
  [0x04] = {"RC SEND ONLY", H_VALID},
  [0x05] = {"RC SEND ONLY WITH IMMEDIATE", H_VALID | H_IMM},
  [0x06] = {"RC RDMA WRITE FIRST", H_VALID | H_RETH},
  [0x07] = {"RC RDMA WRITE MIDDLE", H_VALID},
  [0x08] = {"RC RDMA WRITE LAST", H_VALID},
  [0x09] = {"RC RDMA WRITE LAST WITH IMMEDIATE", H_VALID | H_IMM},
  [0x0A] = {"RC RDMA WRITE ONLY", H_VALID | H_RETH},
  [0x0B] = {"RC RDMA WRITE ONLY WITH IMMEDIATE", H_VALID | H_RETH|H_IMM},
  [0x0C] = {"RC RDMA READ REQUEST", H_VALID | H_RETH},
  [0x0D] = {"RC RDMA READ RESPONSE FIRST", H_VALID | H_AETH},
  [0x0E] = {"RC RDMA READ RESPONSE MIDDLE", H_VALID},
  [0x0F] = {"RC RDMA READ RESPONSE LAST", H_VALID | H_AETH},
  [0x10] = {"RC RDMA READ RESPONSE ONLY", H_VALID | H_AETH},
  [0x11] = {"RC ACKNOWLEDGE", H_VALID | H_AETH},
  [0x12] = {"RC ATOMIC ACKNOWLEDGE", H_VALID | H_AETH|H_ATOMICACK},
  [0x13] = {"RC COMPARE SWAP", H_VALID | H_ATOMIC},
  [0x14] = {"RC FETCH ADD", H_VALID | H_ATOMIC},
  [0x16] = {"RC SEND LAST WITH INVALIDATE", H_VALID | H_IETH},
  [0x17] = {"RC SEND ONLY WITH INVALIDATE", H_VALID | H_IETH},
  [0x1C] = {"RC FLUSH", H_VALID | H_FETH|H_RETH},
  [0x1D] = {"RC ATOMIC WRITE", H_VALID | H_RETH},
  [0x20] = {"UC SEND FIRST", H_VALID},
  [0x21] = {"UC SEND MIDDLE", H_VALID},
  [0x22] = {"UC SEND LAST", H_VALID},
  [0x23] = {"UC SEND LAST WITH IMMEDIATE", H_VALID | H_IMM},
  [0x24] = {"UC SEND ONLY", H_VALID},
  [0x25] = {"UC SEND ONLY WITH IMMEDIATE", H_VALID | H_IMM},
  [0x26] = {"UC RDMA WRITE FIRST", H_VALID | H_RETH},
  [0x27] = {"UC RDMA WRITE MIDDLE", H_VALID},
  [0x28] = {"UC RDMA WRITE LAST", H_VALID},
  [0x29] = {"UC RDMA WRITE LAST WITH IMMEDIATE", H_VALID | H_IMM},
  [0x2A] = {"UC RDMA WRITE ONLY", H_VALID | H_RETH},
  [0x2B] = {"UC RDMA WRITE ONLY WITH IMMEDIATE", H_VALID | H_RETH|H_IMM},
  [0x40] = {"RD SEND FIRST", H_VALID | H_RDETH|H_DETH},
  [0x41] = {"RD SEND MIDDLE", H_VALID | H_RDETH|H_DETH},
  [0x42] = {"RD SEND LAST", H_VALID | H_RDETH|H_DETH},
  [0x43] = {"RD SEND LAST WITH IMMEDIATE", H_VALID | H_RDETH|H_DETH|H_IMM},
  [0x44] = {"RD SEND ONLY", H_VALID | H_RDETH|H_DETH},
  [0x45] = {"RD SEND ONLY WITH IMMEDIATE", H_VALID | H_RDETH|H_DETH|H_IMM},
  [0x46] = {"RD RDMA WRITE FIRST", H_VALID | H_RDETH|H_DETH|H_RETH},
  [0x47] = {"RD RDMA WRITE MIDDLE", H_VALID | H_RDETH|H_DETH},
  [0x48] = {"RD RDMA WRITE LAST", H_VALID | H_RDETH|H_DETH},
  [0x49] = {"RD RDMA WRITE LAST WITH IMMEDIATE", H_VALID | H_RDETH|H_DETH|H_IMM},
  [0x4A] = {"RD RDMA WRITE ONLY", H_VALID | H_RDETH|H_DETH|H_RETH},
  [0x4B] = {"RD RDMA WRITE ONLY WITH IMMEDIATE", H_VALID | H_RDETH|H_DETH|H_RETH|H_IMM},
  [0x4C] = {"RD RDMA READ REQUEST", H_VALID | H_RDETH|H_DETH|H_RETH},
  [0x4D] = {"RD RDMA READ RESPONSE FIRST", H_VALID | H_RDETH|H_AETH},
  [0x4E] = {"RD RDMA READ RESPONSE MIDDLE", H_VALID | H_RDETH},
  [0x4F] = {"RD RDMA READ RESPONSE LAST", H_VALID | H_RDETH|H_AETH},
  [0x50] = {"RD RDMA READ RESPONSE ONLY", H_VALID | H_RDETH|H_AETH},
  [0x51] = {"RD ACKNOWLEDGE", H_VALID | H_RDETH|H_AETH},
  [0x52] = {"RD ATOMIC ACKNOWLEDGE", H_VALID | H_RDETH|H_AETH|H_ATOMICACK},
  [0x53] = {"RD COMPARE SWAP", H_VALID | H_RDETH|H_DETH|H_ATOMIC},
  [0x54] = {"RD FETCH ADD", H_VALID | H_RDETH|H_DETH|H_ATOMIC},
  [0x55] = {"RD RESYNC", H_VALID | H_RDETH|H_DETH},
  [0x5C] = {"RD FLUSH", H_VALID | H_RDETH|H_DETH|H_FETH|H_RETH},
  [0x5D] = {"RD ATOMIC WRITE", H_VALID | H_RDETH|H_DETH|H_RETH},
  [0x64] = {"UD SEND ONLY", H_VALID | H_DETH},
  [0x65] = {"UD SEND ONLY WITH IMMEDIATE", H_VALID | H_DETH|H_IMM},
  [0x81] = {"CNP", H_VALID | H_CNP},
  [0xA0] = {"XRC SEND FIRST", H_VALID | H_XRCETH},
  [0xA1] = {"XRC SEND MIDDLE", H_VALID | H_XRCETH},
  [0xA2] = {"XRC SEND LAST", H_VALID | H_XRCETH},
  [0xA3] = {"XRC SEND LAST WITH IMMEDIATE", H_VALID | H_XRCETH|H_IMM},
  [0xA4] = {"XRC SEND ONLY", H_VALID | H_XRCETH},
  [0xA5] = {"XRC SEND ONLY WITH IMMEDIATE", H_VALID | H_XRCETH|H_IMM},
  [0xA6] = {"XRC RDMA WRITE FIRST", H_VALID | H_XRCETH|H_RETH},
  [0xA7] = {"XRC RDMA WRITE MIDDLE", H_VALID | H_XRCETH},
  [0xA8] = {"XRC RDMA WRITE LAST", H_VALID | H_XRCETH},
  [0xA9] = {"XRC RDMA WRITE LAST WITH IMMEDIATE", H_VALID | H_XRCETH|H_IMM},
  [0xAA] = {"XRC RDMA WRITE ONLY", H_VALID | H_XRCETH|H_RETH},
  [0xAB] = {"XRC RDMA WRITE ONLY WITH IMMEDIATE", H_VALID | H_XRCETH|H_RETH|H_IMM},
  [0xAC] = {"XRC RDMA READ REQUEST", H_VALID | H_XRCETH|H_RETH},
  [0xAD] = {"XRC RDMA READ RESPONSE FIRST", H_VALID | H_AETH},
  [0xAE] = {"XRC RDMA READ RESPONSE MIDDLE", H_VALID},
  [0xAF] = {"XRC RDMA READ RESPONSE LAST", H_VALID | H_AETH},
  [0xB0] = {"XRC RDMA READ RESPONSE ONLY", H_VALID | H_AETH},
  [0xB1] = {"XRC ACKNOWLEDGE", H_VALID | H_AETH},
  [0xB2] = {"XRC ATOMIC ACKNOWLEDGE", H_VALID | H_AETH|H_ATOMICACK},
  [0xB3] = {"XRC COMPARE SWAP", H_VALID | H_XRCETH|H_ATOMIC},
  [0xB4] = {"XRC FETCH ADD", H_VALID | H_XRCETH|H_ATOMIC},
  [0xB6] = {"XRC SEND LAST WITH INVALIDATE", H_VALID | H_XRCETH|H_IETH},
  [0xB7] = {"XRC SEND ONLY WITH INVALIDATE", H_VALID | H_XRCETH|H_IETH},
  [0xBC] = {"XRC FLUSH", H_VALID | H_XRCETH|H_FETH|H_RETH},
  [0xBD] = {"XRC ATOMIC WRITE", H_VALID | H_XRCETH|H_RETH},
};
/* clang-format on */

#define EXT_LEN(h)                                                            \
  (((h)&H_RDETH ? 4 : 0) + ((h)&H_DETH ? 8 : 0) + ((h)&H_XRCETH ? 4 : 0) +    \
   ((h)&H_FETH ? 4 : 0) + ((h)&H_RETH ? 16 : 0) + ((h)&H_ATOMIC ? 28 : 0) +   \
   ((h)&H_AETH ? 4 : 0) + ((h)&H_ATOMICACK ? 8 : 0) + ((h)&H_IMM ? 4 : 0) +   \
   ((h)&H_IETH ? 4 : 0))
/* One table row per line, as written. */
/* clang-format off */
const uint8_t rtel__ext_len[256] = {
  [0x03] = EXT_LEN(H_IMM),
  [0x05] = EXT_LEN(H_IMM),
  [0x06] = EXT_LEN(H_RETH),
  [0x09] = EXT_LEN(H_IMM),
  [0x0A] = EXT_LEN(H_RETH),
  [0x0B] = EXT_LEN(H_RETH|H_IMM),
  [0x0C] = EXT_LEN(H_RETH),
  [0x0D] = EXT_LEN(H_AETH),
  [0x0F] = EXT_LEN(H_AETH),
  [0x10] = EXT_LEN(H_AETH),
  [0x11] = EXT_LEN(H_AETH),
  [0x12] = EXT_LEN(H_AETH|H_ATOMICACK),
  [0x13] = EXT_LEN(H_ATOMIC),
  [0x14] = EXT_LEN(H_ATOMIC),
  [0x16] = EXT_LEN(H_IETH),
  [0x17] = EXT_LEN(H_IETH),
  [0x1C] = EXT_LEN(H_FETH|H_RETH),
  [0x1D] = EXT_LEN(H_RETH),
  [0x23] = EXT_LEN(H_IMM),
  [0x25] = EXT_LEN(H_IMM),
  [0x26] = EXT_LEN(H_RETH),
  [0x29] = EXT_LEN(H_IMM),
  [0x2A] = EXT_LEN(H_RETH),
  [0x2B] = EXT_LEN(H_RETH|H_IMM),
  [0x40] = EXT_LEN(H_RDETH|H_DETH),
  [0x41] = EXT_LEN(H_RDETH|H_DETH),
  [0x42] = EXT_LEN(H_RDETH|H_DETH),
  [0x43] = EXT_LEN(H_RDETH|H_DETH|H_IMM),
  [0x44] = EXT_LEN(H_RDETH|H_DETH),
  [0x45] = EXT_LEN(H_RDETH|H_DETH|H_IMM),
  [0x46] = EXT_LEN(H_RDETH|H_DETH|H_RETH),
  [0x47] = EXT_LEN(H_RDETH|H_DETH),
  [0x48] = EXT_LEN(H_RDETH|H_DETH),
  [0x49] = EXT_LEN(H_RDETH|H_DETH|H_IMM),
  [0x4A] = EXT_LEN(H_RDETH|H_DETH|H_RETH),
  [0x4B] = EXT_LEN(H_RDETH|H_DETH|H_RETH|H_IMM),
  [0x4C] = EXT_LEN(H_RDETH|H_DETH|H_RETH),
  [0x4D] = EXT_LEN(H_RDETH|H_AETH),
  [0x4E] = EXT_LEN(H_RDETH),
  [0x4F] = EXT_LEN(H_RDETH|H_AETH),
  [0x50] = EXT_LEN(H_RDETH|H_AETH),
  [0x51] = EXT_LEN(H_RDETH|H_AETH),
  [0x52] = EXT_LEN(H_RDETH|H_AETH|H_ATOMICACK),
  [0x53] = EXT_LEN(H_RDETH|H_DETH|H_ATOMIC),
  [0x54] = EXT_LEN(H_RDETH|H_DETH|H_ATOMIC),
  [0x55] = EXT_LEN(H_RDETH|H_DETH),
  [0x5C] = EXT_LEN(H_RDETH|H_DETH|H_FETH|H_RETH),
  [0x5D] = EXT_LEN(H_RDETH|H_DETH|H_RETH),
  [0x64] = EXT_LEN(H_DETH),
  [0x65] = EXT_LEN(H_DETH|H_IMM),
  [0x81] = EXT_LEN(H_CNP),
  [0xA0] = EXT_LEN(H_XRCETH),
  [0xA1] = EXT_LEN(H_XRCETH),
  [0xA2] = EXT_LEN(H_XRCETH),
  [0xA3] = EXT_LEN(H_XRCETH|H_IMM),
  [0xA4] = EXT_LEN(H_XRCETH),
  [0xA5] = EXT_LEN(H_XRCETH|H_IMM),
  [0xA6] = EXT_LEN(H_XRCETH|H_RETH),
  [0xA7] = EXT_LEN(H_XRCETH),
  [0xA8] = EXT_LEN(H_XRCETH),
  [0xA9] = EXT_LEN(H_XRCETH|H_IMM),
  [0xAA] = EXT_LEN(H_XRCETH|H_RETH),
  [0xAB] = EXT_LEN(H_XRCETH|H_RETH|H_IMM),
  [0xAC] = EXT_LEN(H_XRCETH|H_RETH),
  [0xAD] = EXT_LEN(H_AETH),
  [0xAF] = EXT_LEN(H_AETH),
  [0xB0] = EXT_LEN(H_AETH),
  [0xB1] = EXT_LEN(H_AETH),
  [0xB2] = EXT_LEN(H_AETH|H_ATOMICACK),
  [0xB3] = EXT_LEN(H_XRCETH|H_ATOMIC),
  [0xB4] = EXT_LEN(H_XRCETH|H_ATOMIC),
  [0xB6] = EXT_LEN(H_XRCETH|H_IETH),
  [0xB7] = EXT_LEN(H_XRCETH|H_IETH),
  [0xBC] = EXT_LEN(H_XRCETH|H_FETH|H_RETH),
  [0xBD] = EXT_LEN(H_XRCETH|H_RETH),
};
/* clang-format on */

/* RC, UC (the first 12) and XRC share the operations of the low 5 bits. */
#define D(op, pos) (uint16_t)(RTEL__K_DATA | ((op) << RTEL__O_SHIFT) | (pos))
#define SEND_(pos) D(RTEL_OP_SEND, RTEL__P_##pos)
#define WRITE_(pos) D(RTEL_OP_WRITE, RTEL__P_##pos)
#define RRESP_(pos) D(RTEL_OP_READ_RESP, RTEL__P_##pos)
#define C_(b, op) [(b) + RTEL__OPC_##op]
#define FAMILY_SENDWRITE(b)                                                   \
  C_(b, SEND_FIRST) = SEND_(FIRST), C_(b, SEND_MIDDLE) = SEND_(MID),          \
        C_(b, SEND_LAST) = SEND_(LAST), C_(b, SEND_LAST_IMM) = SEND_(LAST),   \
        C_(b, SEND_ONLY) = SEND_(ONLY), C_(b, SEND_ONLY_IMM) = SEND_(ONLY),   \
        C_(b, WRITE_FIRST) = WRITE_(FIRST),                                   \
        C_(b, WRITE_MIDDLE) = WRITE_(MID), C_(b, WRITE_LAST) = WRITE_(LAST),  \
        C_(b, WRITE_LAST_IMM) = WRITE_(LAST),                                 \
        C_(b, WRITE_ONLY) = WRITE_(ONLY),                                     \
        C_(b, WRITE_ONLY_IMM) = WRITE_(ONLY)
#define FAMILY_REST(b)                                                        \
  C_(b, READ_REQ) = RTEL__K_REQ, C_(b, READ_RESP_FIRST) = RRESP_(FIRST),      \
        C_(b, READ_RESP_MIDDLE) = RRESP_(MID),                                \
        C_(b, READ_RESP_LAST) = RRESP_(LAST),                                 \
        C_(b, READ_RESP_ONLY) = RRESP_(ONLY), C_(b, ACK) = RTEL__K_ACK,       \
        C_(b, ATOMIC_ACK) = RTEL__K_ACK, C_(b, CMP_SWAP) = RTEL__K_REQ,       \
        C_(b, FETCH_ADD) = RTEL__K_REQ, C_(b, SEND_LAST_INV) = SEND_(LAST),   \
        C_(b, SEND_ONLY_INV) = SEND_(ONLY), C_(b, FLUSH) = RTEL__K_REQ,       \
        C_(b, ATOMIC_WRITE) = RTEL__K_REQ

const uint16_t rtel__op_class[256] = {
    FAMILY_SENDWRITE(RTEL__OPC_RC), FAMILY_REST(RTEL__OPC_RC),
    FAMILY_SENDWRITE(RTEL__OPC_UC), FAMILY_SENDWRITE(RTEL__OPC_XRC),
    FAMILY_REST(RTEL__OPC_XRC),     [RTEL__OPC_CNP] = RTEL__K_CNP,
};

const char *rtel_opcode_str(uint8_t opcode) {
  const char *name = rtel__opcodes[opcode].name;
  return name ? name : "reserved";
}
