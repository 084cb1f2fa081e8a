/* crc.h - CRC-32 (IEEE 802.3, reflected 0xEDB88320) for the RoCEv2 ICRC
 *
 * Own implementation, independent of the library's rtel_icrc.c.  The tables
 * live in a struct owned by the caller (no global mutable state).  Besides
 * slice-by-8 byte processing it can append a run of zero bytes in O(1) with a
 * precomputed x^(8n) mod P table, which is how the simulator computes the
 * ICRC of large zero-filled payloads at millions of packets per second.
 */
#ifndef RTEL_SIM_CRC_H
#define RTEL_SIM_CRC_H

#include <stddef.h>
#include <stdint.h>

#define CRC_ZERO_MAX 16384 /* longest zero run with an O(1) step */

struct crc32_tab {
  uint32_t t[8][256];
  uint32_t zpow[CRC_ZERO_MAX + 1]; /* x^(8n) mod P, reflected */
};

void crc32_init(struct crc32_tab *ct);
/* Advance the raw (not inverted) CRC register over buf. */
uint32_t crc32_update(const struct crc32_tab *ct, uint32_t reg,
                      const uint8_t *buf, size_t len);
/* Advance the raw register over n zero bytes. */
uint32_t crc32_zeros(const struct crc32_tab *ct, uint32_t reg, size_t n);
/* Plain CRC-32 of a buffer (as zlib's crc32(0, buf, len)). */
uint32_t crc32_buf(const struct crc32_tab *ct, const uint8_t *buf, size_t len);

#endif
