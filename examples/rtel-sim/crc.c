/* crc.c - CRC-32 with slice-by-8 and O(1) zero-run extension */
#include "crc.h"

#define POLY 0xedb88320u

/* a * b mod P in the reflected representation (bit 31 is x^0) */
static uint32_t multmodp(uint32_t a, uint32_t b) {
  uint32_t m = 1u << 31, p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) == 0)
        break;
    }
    m >>= 1;
    b = (b & 1) ? (b >> 1) ^ POLY : b >> 1;
  }
  return p;
}

void crc32_init(struct crc32_tab *ct) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++)
      c = (c & 1) ? (c >> 1) ^ POLY : c >> 1;
    ct->t[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; i++)
    for (int s = 1; s < 8; s++)
      ct->t[s][i] = (ct->t[s - 1][i] >> 8) ^ ct->t[0][ct->t[s - 1][i] & 0xff];
  /* x^0 = 1<<31; x^8 = one zero byte */
  uint32_t x8 = 1u << 31;
  for (int k = 0; k < 8; k++)
    x8 = (x8 & 1) ? (x8 >> 1) ^ POLY : x8 >> 1;
  ct->zpow[0] = 1u << 31;
  for (size_t n = 1; n <= CRC_ZERO_MAX; n++)
    ct->zpow[n] = multmodp(ct->zpow[n - 1], x8);
}

uint32_t crc32_update(const struct crc32_tab *ct, uint32_t reg,
                      const uint8_t *p, size_t len) {
  while (len >= 8) {
    uint32_t a = reg ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 |
                        (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
    reg = ct->t[7][a & 0xff] ^ ct->t[6][(a >> 8) & 0xff] ^
          ct->t[5][(a >> 16) & 0xff] ^ ct->t[4][a >> 24] ^ ct->t[3][p[4]] ^
          ct->t[2][p[5]] ^ ct->t[1][p[6]] ^ ct->t[0][p[7]];
    p += 8;
    len -= 8;
  }
  while (len--)
    reg = (reg >> 8) ^ ct->t[0][(reg ^ *p++) & 0xff];
  return reg;
}

uint32_t crc32_zeros(const struct crc32_tab *ct, uint32_t reg, size_t n) {
  while (n > CRC_ZERO_MAX) {
    reg = multmodp(ct->zpow[CRC_ZERO_MAX], reg);
    n -= CRC_ZERO_MAX;
  }
  if (n == 0)
    return reg;
  return multmodp(ct->zpow[n], reg);
}

uint32_t crc32_buf(const struct crc32_tab *ct, const uint8_t *buf,
                   size_t len) {
  return ~crc32_update(ct, 0xffffffffu, buf, len);
}
