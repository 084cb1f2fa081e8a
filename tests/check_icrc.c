/* SPDX-License-Identifier: MIT */
/*
 * White-box tests of lib/rtel_icrc.c: the internal CRC-32 (zlib crc32()
 * semantics: reflected polynomial 0xEDB88320, ~0 in and out, composable)
 * and the ICRC, through each path (tables, PCLMULQDQ, PMULL) forced in
 * turn: the cases of tests/icrc_cases.c (published check values,
 * zlib.crc32, a bitwise reference, packets whose ICRC scapy computed).
 * The first tests take the build's default path (rtel__crc32()) against
 * the bitwise reference in rtel_test_pkt.c.
 */
#define _POSIX_C_SOURCE 200809L

#include "rtel_test_util.h"

#include <stdio.h>
#include <string.h>

#include "icrc_cases.h"
#include "rtel_ctx.h"
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

/* Every path, forced: _i is RTEL__CRC_TABLE, _CLMUL, _PMULL, _VCLMUL512,
 * _VCLMUL256. A path
 * this build or CPU lacks is reported and passes (tests/icrc-arm64.sh runs the
 * same cases for PMULL under qemu-aarch64). */
static const char *const path_names[RTEL__CRC_N] = {
    "tables", "PCLMULQDQ", "PMULL", "VPCLMULQDQ-512", "VPCLMULQDQ-256"};

static int path_present(unsigned impl, const char *what) {
  if (rtel__crc32_supported(impl)) {
    return 1;
  }
  fprintf(stderr, "note: %s: the %s path is not on this build or CPU\n", what,
          path_names[impl]);
  return 0;
}

#define PATH_TEST(NAME, FN)                                                   \
  START_TEST(NAME) {                                                          \
    char why[256] = "";                                                       \
    unsigned impl = (unsigned)_i;                                             \
    if (path_present(impl, #FN)) {                                            \
      ck_assert_msg(FN(impl, why, sizeof(why)) == 0, "%s path: %s",           \
                    path_names[impl], why);                                   \
    }                                                                         \
  }                                                                           \
  END_TEST

PATH_TEST(test_path_known, icrc_cases_known)
PATH_TEST(test_path_lengths, icrc_cases_lengths)
PATH_TEST(test_path_random, icrc_cases_random)
PATH_TEST(test_path_packets, icrc_cases_packets)

/* The tables are always there; on x86-64 the carry-less paths are there
 * exactly when the CPU has PCLMULQDQ, resp. VPCLMULQDQ and AVX-512F or
 * AVX2 with the operating system's support for them (asked here through
 * libgcc's __builtin_cpu_supports, not the library's CPUID and XGETBV; not
 * on macOS, which enables AVX-512 state lazily, so that XCR0 does not show
 * it), and the widest one is taken; a context that
 * verifies the ICRC keeps the fastest path, one that does not never asks
 * the CPU. */
START_TEST(test_path_choice) {
  rtel_settings s;
  rtel_ctx *ctx;
  ck_assert(rtel__crc32_supported(RTEL__CRC_TABLE));
  ck_assert(!rtel__crc32_supported(RTEL__CRC_N));
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) &&       \
    !defined(__APPLE__)
  __builtin_cpu_init();
  {
    int clmul = __builtin_cpu_supports("pclmul") != 0;
    int vclmul = clmul && __builtin_cpu_supports("vpclmulqdq");
    int v512 = vclmul && __builtin_cpu_supports("avx512f");
    int v256 = vclmul && __builtin_cpu_supports("avx2") &&
               __builtin_cpu_supports("avx");
    ck_assert_int_eq(rtel__crc32_supported(RTEL__CRC_CLMUL), clmul);
    ck_assert_int_eq(rtel__crc32_supported(RTEL__CRC_VCLMUL512), v512);
    ck_assert_int_eq(rtel__crc32_supported(RTEL__CRC_VCLMUL256), v256);
    ck_assert_uint_eq(rtel__crc32_best(), v512    ? RTEL__CRC_VCLMUL512
                                          : v256  ? RTEL__CRC_VCLMUL256
                                          : clmul ? RTEL__CRC_CLMUL
                                                  : RTEL__CRC_TABLE);
  }
  ck_assert(!rtel__crc32_supported(RTEL__CRC_PMULL));
#endif
  rtel_settings_default(&s);
  s.decode_flags = RTEL_DECODE_VERIFY_ICRC;
  ck_assert_int_eq(rtel_ctx_new(&ctx, &s, NULL, NULL, NULL), 0);
  ck_assert_uint_eq(ctx->dcfg.crc_impl, rtel__crc32_best());
  rtel_ctx_del(ctx);
  s.decode_flags = 0;
  ck_assert_int_eq(rtel_ctx_new(&ctx, &s, NULL, NULL, NULL), 0);
  ck_assert_uint_eq(ctx->dcfg.crc_impl, RTEL__CRC_BUILD);
  rtel_ctx_del(ctx);
}
END_TEST

Suite *rtel_test_icrc_suite(void) {
  Suite *s = suite_create("icrc_internal");
  TCase *tc = tcase_create("crc32");
  TCase *tp = tcase_create("paths");
  tcase_add_test(tc, test_crc32_vectors);
  tcase_add_test(tc, test_crc32_empty_keeps_state);
  tcase_add_test(tc, test_crc32_incremental);
  tcase_add_test(tc, test_crc32_alignment);
  suite_add_tcase(s, tc);
  tcase_add_loop_test(tp, test_path_known, 0, (int)RTEL__CRC_N);
  tcase_add_loop_test(tp, test_path_lengths, 0, (int)RTEL__CRC_N);
  tcase_add_loop_test(tp, test_path_random, 0, (int)RTEL__CRC_N);
  tcase_add_loop_test(tp, test_path_packets, 0, (int)RTEL__CRC_N);
  tcase_add_test(tp, test_path_choice);
  tcase_set_timeout(tp, 60);
  suite_add_tcase(s, tp);
  return s;
}
