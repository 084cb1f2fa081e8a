/* SPDX-License-Identifier: MIT */
/* CRC-32 and the RoCE invariant CRC. */
#ifndef RTEL_ICRC_H
#define RTEL_ICRC_H

#include "rtel_int.h"

/* Standard reflected CRC-32 (as zlib's crc32()): pass 0 to start, and the
 * previous result to continue. */
uint32_t rtel__crc32(uint32_t crc, const uint8_t *p, size_t n);

/* ICRC of a decoded RoCE packet whose bytes are all captured (the caller
 * checks RTEL_HD_F_ICRC). */
uint32_t rtel__icrc(const rtel_pkt_hd *hd, const uint8_t *pkt);

#endif /* RTEL_ICRC_H */
