/* SPDX-License-Identifier: MIT */
/*
 * Runner of the public test binary: linked against lib/librocetel.la (the
 * shared library, like any consumer). CK_RUN_SUITE / CK_RUN_CASE /
 * CK_VERBOSITY / CK_FORK control the run (srunner_run_all with CK_ENV).
 */
#include "rtel_test_util.h"

#include <stdlib.h>

int main(void) {
  SRunner *sr = srunner_create(rtel_test_decode_suite());
  int failed;
  srunner_add_suite(sr, rtel_test_ctx_suite());
  srunner_add_suite(sr, rtel_test_misc_suite());
  srunner_add_suite(sr, rtel_test_shard_suite());
  srunner_add_suite(sr, rtel_test_names_suite());
  srunner_run_all(sr, CK_ENV);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
