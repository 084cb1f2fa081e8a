/* SPDX-License-Identifier: MIT */
/*
 * Runner of the white-box test binary: linked against the noinst
 * convenience library lib/librocetel_core.la, so it reaches the hidden
 * rtel__* helpers.
 */
#include "rtel_test_util.h"

#include <stdlib.h>

int main(void) {
  SRunner *sr = srunner_create(rtel_test_icrc_suite());
  int failed;
  srunner_add_suite(sr, rtel_test_ahead_suite());
  srunner_add_suite(sr, rtel_test_table_suite());
  srunner_add_suite(sr, rtel_test_fastpath_suite());
  srunner_run_all(sr, CK_ENV);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
