/* SPDX-License-Identifier: MIT */
/*
 * White-box tests of lib/rtel_icrc.c: the internal CRC-32 (zlib crc32()
 * semantics: reflected polynomial 0xEDB88320, ~0 in and out, composable).
 * Expected values are the published CRC-32 check values and the bitwise
 * reference in rtel_test_pkt.c.
 */
#define _POSIX_C_SOURCE 200809L

#include "rtel_test_util.h"

#include <string.h>

#include "rtel_icrc.h"

START_TEST(test_crc32_vectors) {
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
  uint8_t zeros[32], ones[32], seq[256];
  size_t i;
  for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
    ck_assert_msg(
        rtel__crc32(0, (const uint8_t *)v[i].s, strlen(v[i].s)) == v[i].crc,
        "crc32(\"%s\") = 0x%08x, want 0x%08x", v[i].s,
        rtel__crc32(0, (const uint8_t *)v[i].s, strlen(v[i].s)), v[i].crc);
  memset(zeros, 0, sizeof(zeros));
  memset(ones, 0xFF, sizeof(ones));
  for (i = 0; i < sizeof(seq); i++)
    seq[i] = (uint8_t)i;
  ck_assert_uint_eq(rtel__crc32(0, zeros, 32), 0x190A55ADu);
  ck_assert_uint_eq(rtel__crc32(0, ones, 32), 0xFF6CAB0Bu);
  ck_assert_uint_eq(rtel__crc32(0, seq, 256), 0x29058C73u);
  /* the ICRC's masked LRH: 8 bytes of ones */
  ck_assert_uint_eq(rtel__crc32(0, ones, 8), 0x2144DF1Cu);
}
END_TEST

START_TEST(test_crc32_empty_keeps_state) {
  ck_assert_uint_eq(rtel__crc32(0x12345678u, (const uint8_t *)"x", 0),
                    0x12345678u);
  ck_assert_uint_eq(rtel__crc32(0, NULL, 0), 0);
}
END_TEST

START_TEST(test_crc32_incremental) {
  uint8_t buf[1031];
  size_t i, k;
  uint32_t whole;
  for (i = 0; i < sizeof(buf); i++)
    buf[i] = (uint8_t)(i * 131u + 7u);
  whole = rtel__crc32(0, buf, sizeof(buf));
  ck_assert_uint_eq(whole, tu_crc32(0, buf, sizeof(buf)));
  for (k = 0; k <= sizeof(buf); k++) {
    uint32_t c = rtel__crc32(0, buf, k);
    c = rtel__crc32(c, buf + k, sizeof(buf) - k);
    ck_assert_msg(c == whole, "split at %zu: 0x%08x != 0x%08x", k, c, whole);
  }
  /* three pieces, including "123" + "456789" */
  ck_assert_uint_eq(rtel__crc32(rtel__crc32(0, (const uint8_t *)"123", 3),
                                (const uint8_t *)"456789", 6),
                    0xCBF43926u);
}
END_TEST

/* every length and alignment against the bitwise reference (catches
 * slicing-by-N tail and head bugs) */
START_TEST(test_crc32_alignment) {
  uint8_t buf[300];
  size_t off, len;
  for (off = 0; off < sizeof(buf); off++)
    buf[off] = (uint8_t)(off ^ 0xA5u);
  for (off = 0; off < 16; off++)
    for (len = 0; off + len <= 280; len++)
      ck_assert_msg(rtel__crc32(0x89ABCDEFu, buf + off, len) ==
                        tu_crc32(0x89ABCDEFu, buf + off, len),
                    "offset %zu length %zu", off, len);
}
END_TEST

Suite *rtel_test_icrc_suite(void) {
  Suite *s = suite_create("icrc_internal");
  TCase *tc = tcase_create("crc32");
  tcase_add_test(tc, test_crc32_vectors);
  tcase_add_test(tc, test_crc32_empty_keeps_state);
  tcase_add_test(tc, test_crc32_incremental);
  tcase_add_test(tc, test_crc32_alignment);
  suite_add_tcase(s, tc);
  return s;
}
