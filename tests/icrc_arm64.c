/* SPDX-License-Identifier: MIT */
/*
 * The cases of tests/icrc_cases.c through every CRC path this build and
 * CPU have, without Check: tests/icrc-arm64.sh cross-compiles it with
 * the library sources for arm64 and runs it under qemu-aarch64. With
 * --want-pmull the PMULL path must be present (the emulated CPU has it). Exit:
 * 0 all passed, 1 a case failed or PMULL was wanted and missing.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>

#include "icrc_cases.h"
#include "rtel_icrc.h"

int main(int argc, char **argv) {
  static const char *const names[RTEL__CRC_N] = {
      "tables", "PCLMULQDQ", "PMULL", "VPCLMULQDQ-512", "VPCLMULQDQ-256"};
  int (*const cases[])(unsigned, char *,
                       size_t) = {icrc_cases_known, icrc_cases_lengths,
                                  icrc_cases_random, icrc_cases_packets};
  int want_pmull = argc > 1 && strcmp(argv[1], "--want-pmull") == 0;
  char why[256];
  unsigned impl;
  size_t k;

  for (impl = 0; impl < RTEL__CRC_N; impl++) {
    if (!rtel__crc32_supported(impl)) {
      printf("%s: not on this build or CPU\n", names[impl]);
      continue;
    }
    for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
      if (cases[k](impl, why, sizeof(why)) != 0) {
        printf("FAIL: %s: %s\n", names[impl], why);
        return 1;
      }
    }
    printf("%s: all cases pass\n", names[impl]);
  }
  printf("fastest: %s\n", names[rtel__crc32_best()]);
  if (want_pmull && rtel__crc32_best() != RTEL__CRC_PMULL) {
    printf("FAIL: the PMULL path was wanted\n");
    return 1;
  }
  return 0;
}
