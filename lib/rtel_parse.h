/* SPDX-License-Identifier: MIT */
/* The packet decoder: any bytes in, RoCE headers out. */
#ifndef RTEL_PARSE_H
#define RTEL_PARSE_H

#include "rtel_int.h"

/* Decoder configuration with every default already applied. */
typedef struct rtel__decode_cfg {
  uint32_t flags;    /* RTEL_DECODE_* */
  uint32_t linktype; /* RTEL_LINK_* */
  uint16_t roce_port;
  uint16_t vxlan_port;
  /* how the ICRC is computed (RTEL__CRC_*): RTEL__CRC_BUILD unless the
   * owner asked the CPU once (a context does, at creation) */
  uint32_t crc_impl;
} rtel__decode_cfg;

/* Fills |cfg| from public options (NULL = defaults), crc_impl with
 * RTEL__CRC_BUILD. Returns 0 or RTEL_ERR_INVALID_ARGUMENT for an
 * out-of-range port. */
int rtel__decode_cfg_init(rtel__decode_cfg *cfg, uint32_t flags,
                          uint32_t linktype, uint32_t roce_port,
                          uint32_t vxlan_port);

/* For an owner that keeps |cfg| (a context): when it verifies the ICRC,
 * asks the CPU once for the fastest CRC path (rtel__crc32_best()). */
void rtel__decode_cfg_keep(rtel__decode_cfg *cfg);

/* Decodes into a latest-version rtel_pkt_hd. Returns 0 (RoCE),
 * RTEL_ERR_NOT_ROCE or RTEL_ERR_MALFORMED (hd->malformed set). |pkt| may
 * be NULL only when |caplen| is 0. */
int rtel__decode(rtel_pkt_hd *hd, const rtel__decode_cfg *cfg,
                 const uint8_t *pkt, size_t caplen, size_t wire_len);

/* rtel__decode() for a context's packet path when no one sees the whole
 * rtel_pkt_hd (no on_packet): the fields that no module reads are left
 * as they were (Ethernet addresses and ethertype, VLAN TPIDs, TTL, IP
 * protocol, flow label, UDP destination port and checksum, the BTH's SE,
 * M, pad, TVer, P_Key, reserved bits and AckReq, cap_len). Everything
 * else, the return value included, is as rtel__decode() gives it. */
int rtel__decode_lite(rtel_pkt_hd *hd, const rtel__decode_cfg *cfg,
                      const uint8_t *pkt, size_t caplen, size_t wire_len);

/* The fields of a plain data packet that the flow table's fast case reads
 * (rtel__dpkt), for a context's packet path: returns 1 with |d| filled,
 * each field as rtel__decode() would fill the field of that name, when the
 * decoder's fast path takes the packet (Ethernet, at most one 802.1Q tag,
 * IPv4 without options or IPv6 without extension headers, RoCEv2 with a
 * known opcode of transport version 0, the lengths consistent) and it is
 * a SEND or RDMA WRITE packet that is neither a FIRST nor an ONLY, without
 * extended headers (RC or UC); else 0 (|d| in an unspecified
 * state), and the packet is for rtel__decode_lite(). Also 0 for a link
 * type other than Ethernet and when |cfg| verifies the ICRC. A packet it
 * takes, rtel__decode_lite() decodes as RoCE (0) with none of the flags
 * RTEL_HD_F_CNP, _CM, _HDR_TRUNC, _UNKNOWN_OPCODE, _UNKNOWN_TVER, no
 * encapsulation and the ICRC unchecked; RTEL_HD_F_TRUNCATED as
 * d->truncated. */
int rtel__decode_data(rtel__dpkt *d, const rtel__decode_cfg *cfg,
                      const uint8_t *pkt, size_t caplen, size_t wire_len);

/* rtel__decode() (|full|) or rtel__decode_lite() (0) without the fast
 * path: every packet through the general walk. For the tests, which check
 * that the fast path gives what the walk gives (tests/check_fastpath.c). */
int rtel__decode_general(rtel_pkt_hd *hd, const rtel__decode_cfg *cfg,
                         const uint8_t *pkt, size_t caplen, size_t wire_len,
                         int full);

/* Whether the fast path takes the packet: 1, with |hd| filled as
 * rtel__decode() (|full|) or rtel__decode_lite() (0) would fill it, or 0,
 * |hd| untouched (the general walk's packet). For the tests, which check
 * that the common shapes do take it (tests/check_fastpath.c): a shape it
 * stopped taking would still decode right, only slower. */
int rtel__decode_fast_taken(rtel_pkt_hd *hd, const rtel__decode_cfg *cfg,
                            const uint8_t *pkt, size_t caplen, size_t wire_len,
                            int full);

/* Size of the prefix of rtel_pkt_hd that |version| has; 0 if unknown. */
size_t rtel__pkt_hd_len(int version);

#endif /* RTEL_PARSE_H */
