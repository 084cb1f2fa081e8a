/* SPDX-License-Identifier: MIT */
/* The CRC-32 and ICRC cases of every CRC path (tests/icrc_cases.h). */
#define _POSIX_C_SOURCE 200809L

#include "icrc_cases.h"

#include <stdio.h>
#include <string.h>

#include "icrc_vectors.h"
#include "rtel_icrc.h"
#include "rtel_parse.h"

uint32_t icrc_ref_crc32(uint32_t crc, const uint8_t *p, size_t n) {
  uint32_t c = ~crc;
  size_t i;
  int k;
  for (i = 0; i < n; i++) {
    c ^= p[i];
    for (k = 0; k < 8; k++) {
      c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
  }
  return ~c;
}

#define FAIL(...)                                                             \
  do {                                                                        \
    snprintf(why, whylen, __VA_ARGS__);                                       \
    return 1;                                                                 \
  } while (0)

static uint32_t rng_state;
static uint32_t rng(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state;
}

/* room for the longest case (9000 bytes at offset 15) and a packet */
static uint8_t big[9216 + 16];

int icrc_cases_known(unsigned impl, char *why, size_t whylen) {
  /* the published CRC-32 check values ("123456789": the catalogue's
   * check) and, past the 64-byte fold block, zlib.crc32 of the same
   * bytes (Python 3.11's zlib) */
  static const struct {
    const char *s;
    uint32_t crc;
  } v[] = {
      {"", 0x00000000u},
      {"a", 0xE8B7BE43u},
      {"abc", 0x352441C2u},
      {"123456789", 0xCBF43926u},
      {"The quick brown fox jumps over the lazy dog", 0x414FA339u},
  };
  size_t i;
  uint32_t c;
  for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
    c = rtel__crc32_with(impl, 0, (const uint8_t *)v[i].s, strlen(v[i].s));
    if (c != v[i].crc) {
      FAIL("crc32(\"%s\") = 0x%08x, want 0x%08x", v[i].s, c, v[i].crc);
    }
  }
  /* bytes 0..255 four times: zlib.crc32(bytes(range(256)) * 4) */
  for (i = 0; i < 1024; i++) {
    big[i] = (uint8_t)i;
  }
  if ((c = rtel__crc32_with(impl, 0, big, 256)) != 0x29058C73u) {
    FAIL("crc32(0..255) = 0x%08x, want 0x29058c73", c);
  }
  if ((c = rtel__crc32_with(impl, 0, big, 1024)) != 0xB70B4C26u) {
    FAIL("crc32((0..255) x 4) = 0x%08x, want 0xb70b4c26", c);
  }
  memset(big, 0, 4096);
  if ((c = rtel__crc32_with(impl, 0, big, 4096)) != 0xC71C0011u) {
    FAIL("crc32(4096 zeros) = 0x%08x, want 0xc71c0011", c);
  }
  for (i = 0; i < 10; i++) {
    memcpy(big + i * 43, v[4].s, 43);
  }
  if ((c = rtel__crc32_with(impl, 0, big, 430)) != 0x8FF719D4u) {
    FAIL("crc32(fox x 10) = 0x%08x, want 0x8ff719d4", c);
  }
  for (i = 0; i < 9000; i++) {
    big[i] = (uint8_t)(i * 131u + 7u);
  }
  if ((c = rtel__crc32_with(impl, 0, big, 9000)) != 0xECEE1F43u) {
    FAIL("crc32(9000 bytes (i * 131 + 7)) = 0x%08x, want 0xecee1f43", c);
  }
  /* composable: "123" then "456789" */
  c = rtel__crc32_with(impl, 0, (const uint8_t *)"123", 3);
  c = rtel__crc32_with(impl, c, (const uint8_t *)"456789", 6);
  if (c != 0xCBF43926u) {
    FAIL("crc32(\"123\" then \"456789\") = 0x%08x", c);
  }
  /* and a 9000-byte buffer cut anywhere */
  for (i = 0; i <= 9000; i += 61) {
    c = rtel__crc32_with(impl, 0, big, i);
    c = rtel__crc32_with(impl, c, big + i, 9000 - i);
    if (c != 0xECEE1F43u) {
      FAIL("9000 bytes split at %zu: 0x%08x", i, c);
    }
  }
  if (rtel__crc32_with(impl, 0x12345678u, NULL, 0) != 0x12345678u) {
    FAIL("an empty buffer changed the CRC");
  }
  return 0;
}

/* every length 0..300 at every alignment 0..15, and 301..1100 at two,
 * from a non-zero CRC: each number of steps of every folding loop (the
 * 512-bit one takes 256 bytes a step after its first 256) with every
 * remainder */
int icrc_cases_lengths(unsigned impl, char *why, size_t whylen) {
  size_t off, len;
  for (off = 0; off < 1120; off++) {
    big[off] = (uint8_t)(off ^ (off >> 8) ^ 0xA5u);
  }
  for (off = 0; off < 16; off++) {
    for (len = 0; len <= 1100; len++) {
      uint32_t got, want;
      if (len > 300 && off != 0 && off != 7) {
        break;
      }
      got = rtel__crc32_with(impl, 0x89ABCDEFu, big + off, len);
      want = icrc_ref_crc32(0x89ABCDEFu, big + off, len);
      if (got != want) {
        FAIL("offset %zu length %zu: 0x%08x, want 0x%08x", off, len, got,
             want);
      }
    }
  }
  return 0;
}

/* random bytes, random lengths up to 9000, every alignment 0..15 */
int icrc_cases_random(unsigned impl, char *why, size_t whylen) {
  size_t i, off;
  int k;
  rng_state = 0x9E3779B9u;
  for (i = 0; i < sizeof(big); i++) {
    big[i] = (uint8_t)rng();
  }
  for (off = 0; off < 16; off++) {
    for (k = 0; k < 24; k++) {
      size_t len = rng() % 9001;
      uint32_t crc = rng();
      uint32_t got = rtel__crc32_with(impl, crc, big + off, len);
      uint32_t want = icrc_ref_crc32(crc, big + off, len);
      if (got != want) {
        FAIL("offset %zu length %zu crc 0x%08x: 0x%08x, want 0x%08x", off, len,
             crc, got, want);
      }
    }
  }
  return 0;
}

/* The frame of vector |v| in big + |align|; returns its length. */
static size_t build(const struct icrc_vector *v, size_t align) {
  uint8_t *p = big + align;
  size_t i, n = v->hdr_len;
  memcpy(p, v->hdr, v->hdr_len);
  for (i = 0; i < v->payload; i++) {
    p[n++] = (uint8_t)((i * 37u + v->seed) & 0xffu);
  }
  for (i = 0; i < v->pad; i++) {
    p[n++] = 0;
  }
  for (i = 0; i < 4; i++) {
    p[n++] = (uint8_t)(v->icrc >> (8 * i));
  }
  return n;
}

/* Whether flipping the low bit of byte |pos| (from the IP header) may
 * leave the ICRC alone, by the IBTA's masks (Annexes A16, A17). */
static int masked(const rtel_pkt_hd *hd, size_t pos) {
  size_t udp = (size_t)hd->l4_off - hd->l3_off;
  size_t bth = (size_t)hd->bth_off - hd->l3_off;
  if (hd->flags & RTEL_HD_F_IPV4) {
    if (pos == 1 || pos == 8 || pos == 10 || pos == 11) {
      return 1; /* TOS, TTL, header checksum */
    }
  } else if (pos <= 3 || pos == 7) {
    return 1; /* traffic class (byte 0's low bit is one), flow label, hop
                 limit */
  }
  if (hd->roce == 2 && (pos == udp + 6 || pos == udp + 7)) {
    return 1; /* UDP checksum */
  }
  return pos == bth + 4; /* FECN, BECN, reserved */
}

int icrc_cases_packets(unsigned impl, char *why, size_t whylen) {
  size_t i, align, pos;
  rtel__decode_cfg cfg;
  if (rtel__decode_cfg_init(&cfg, 0, 0, 0, 0) != 0) {
    FAIL("rtel__decode_cfg_init failed");
  }
  for (i = 0; i < sizeof(icrc_vectors) / sizeof(icrc_vectors[0]); i++) {
    const struct icrc_vector *v = &icrc_vectors[i];
    for (align = 0; align < 16; align += 5) {
      rtel_pkt_hd hd;
      size_t len = build(v, align);
      uint8_t *p = big + align;
      uint32_t got;
      int rv;
      memset(&hd, 0, sizeof(hd));
      rv = rtel__decode(&hd, &cfg, p, len, len);
      if (rv != 0 || !(hd.flags & RTEL_HD_F_ICRC)) {
        FAIL("%s: decode returned %d, flags 0x%08x", v->name, rv, hd.flags);
      }
      got = rtel__icrc(&hd, p, impl);
      if (got != v->icrc) {
        FAIL("%s (at offset %zu): ICRC 0x%08x, %s gives 0x%08x", v->name,
             align, got, v->source, v->icrc);
      }
      /* the invariant fields: a flip in a masked byte keeps the ICRC, one
       * anywhere else in the first 128 covered bytes changes it */
      for (pos = 0; pos < 128 && hd.l3_off + pos < len - 4; pos++) {
        p[hd.l3_off + pos] ^= 1;
        got = rtel__icrc(&hd, p, impl);
        p[hd.l3_off + pos] ^= 1;
        if ((got == v->icrc) != masked(&hd, pos)) {
          FAIL("%s: flipping byte %zu after the IP header start gives "
               "0x%08x (%s)",
               v->name, pos, got,
               masked(&hd, pos) ? "a masked byte" : "unmasked byte");
        }
      }
    }
  }
  return 0;
}
