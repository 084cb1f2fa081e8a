/* SPDX-License-Identifier: MIT */
/*
 * What the NVMe-oF correlator reads on the wire: the byte offsets of the
 * NVMe submission and completion queue entries and of SGL descriptors (NVM
 * Express Base 2.0, NVMe over Fabrics 1.1, little-endian fields), and the
 * RC transport opcodes that carry NVMe-oF over RDMA (IBTA vol. 1, 9.2.1).
 * NVMe opcodes are the public RTEL_NVME_OP_*.
 */
#ifndef RTEL_NVME_WIRE_H
#define RTEL_NVME_WIRE_H

/* The NVMe-oF port (IANA "nvme-rdma"), the default of nvme_ports. */
#define RTEL__NVMEOF_PORT 4420u

/* Submission queue entry: the first 64 bytes of a command capsule. */
#define RTEL__SQE_LEN 64u
#define RTEL__SQE_OPC 0u          /* opcode (RTEL_NVME_OP_*) */
#define RTEL__SQE_FLAGS 1u        /* FUSE (bits 1:0), PSDT (bits 7:6) */
#define RTEL__SQE_CID 2u          /* command identifier, 16 bits */
#define RTEL__SQE_NSID 4u         /* namespace identifier, 32 bits */
#define RTEL__SQE_FCTYPE 4u       /* Fabrics commands: command type */
#define RTEL__SQE_SGL1 24u        /* the data pointer: one SGL descriptor */
#define RTEL__SQE_SLBA 40u        /* read, write: starting LBA, 64 bits */
#define RTEL__SQE_NLB 48u         /* read, write: blocks - 1, 16 bits */
#define RTEL__SQE_CONNECT_QID 42u /* Fabrics Connect: queue ID, 16 bits */

#define RTEL__SQE_FUSE(flags) ((flags)&3u)
#define RTEL__SQE_PSDT(flags) ((uint8_t)((flags) >> 6))
#define RTEL__PSDT_PRP 0u /* PRPs (PCIe only) */
#define RTEL__PSDT_RESERVED 3u

/* Fabrics command types (RTEL__SQE_FCTYPE). */
#define RTEL__FCTYPE_CONNECT 0x01u

/* Completion queue entry: the whole of a response capsule. */
#define RTEL__CQE_LEN 16u
#define RTEL__CQE_CID 12u    /* command identifier, 16 bits */
#define RTEL__CQE_STATUS 14u /* phase tag (bit 0), status (bits 15:1) */

/* SGL descriptor, 16 bytes: address, length, and the descriptor
 * identifier in its last byte (type in bits 7:4, sub type in bits 3:0).
 * A keyed data block descriptor has a 24-bit length and a 32-bit key. */
#define RTEL__SGL_DESC_LEN 16u
#define RTEL__SGL_ADDR 0u   /* address or offset, 64 bits */
#define RTEL__SGL_LENGTH 8u /* 32 bits; keyed: 24 bits */
#define RTEL__SGL_KEY 11u   /* keyed: 32 bits */
#define RTEL__SGL_ID 15u
#define RTEL__SGL_TYPE(id) ((uint8_t)((id) >> 4))
#define RTEL__SGL_SUB(id) ((uint8_t)((id)&0xfu))
/* types */
#define RTEL__SGL_DATA 0x0u     /* data block */
#define RTEL__SGL_LAST_SEG 0x3u /* last segment: a list of descriptors */
#define RTEL__SGL_KEYED 0x4u    /* keyed data block (RDMA) */
/* sub types */
#define RTEL__SGL_SUB_ADDRESS 0x0u
#define RTEL__SGL_SUB_OFFSET 0x1u     /* in the capsule, after the SQE */
#define RTEL__SGL_SUB_INVALIDATE 0xfu /* keyed: invalidate the key */

/* RC opcodes (BTH opcode 0x00-0x1f) that NVMe-oF over RDMA uses. */
#define RTEL__RC_MAX 0x1fu
#define RTEL__RC_SEND_FIRST 0x00u
#define RTEL__RC_SEND_MIDDLE 0x01u
#define RTEL__RC_SEND_LAST 0x02u
#define RTEL__RC_SEND_ONLY 0x04u
#define RTEL__RC_WRITE_FIRST 0x06u
#define RTEL__RC_WRITE_MIDDLE 0x07u
#define RTEL__RC_WRITE_LAST 0x08u
#define RTEL__RC_WRITE_ONLY 0x0Au
#define RTEL__RC_READ_REQUEST 0x0Cu
#define RTEL__RC_READ_RESP_FIRST 0x0Du
#define RTEL__RC_READ_RESP_MIDDLE 0x0Eu
#define RTEL__RC_READ_RESP_LAST 0x0Fu
#define RTEL__RC_READ_RESP_ONLY 0x10u
#define RTEL__RC_SEND_ONLY_INV 0x17u /* SEND ONLY with Invalidate */

#endif /* RTEL_NVME_WIRE_H */
