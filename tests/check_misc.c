/* SPDX-License-Identifier: MIT */
/*
 * Error strings, version, opcode and malformation names, default allocator.
 */
#define _POSIX_C_SOURCE 200809L

#include "rtel_test_util.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static const int known_errors[] = {
    RTEL_ERR_INVALID_ARGUMENT, RTEL_ERR_UNSUPPORTED_VERSION,
    RTEL_ERR_MALFORMED,        RTEL_ERR_NOT_ROCE,
    RTEL_ERR_INVALID_STATE,    RTEL_ERR_NOMEM,
    RTEL_ERR_CALLBACK_FAILURE, RTEL_ERR_BUFFER_FULL,
};
#define NKNOWN (sizeof(known_errors) / sizeof(known_errors[0]))

START_TEST(test_error_values_pinned) {
  ck_assert_int_eq(RTEL_ERR_INVALID_ARGUMENT, -201);
  ck_assert_int_eq(RTEL_ERR_UNSUPPORTED_VERSION, -202);
  ck_assert_int_eq(RTEL_ERR_MALFORMED, -203);
  ck_assert_int_eq(RTEL_ERR_NOT_ROCE, -204);
  ck_assert_int_eq(RTEL_ERR_INVALID_STATE, -205);
  ck_assert_int_eq(RTEL_ERR_BUFFER_FULL, -206);
  ck_assert_int_eq(RTEL_ERR_FATAL, -500);
  ck_assert_int_eq(RTEL_ERR_NOMEM, -501);
  ck_assert_int_eq(RTEL_ERR_CALLBACK_FAILURE, -502);
}
END_TEST

START_TEST(test_strerror) {
  static const int unknown[] = {-1,   -200, -207, -499,    -503,
                                -600, 1,    200,  INT_MIN, INT_MAX};
  size_t i, j;
  for (i = 0; i < NKNOWN; i++) {
    const char *s = rtel_strerror(known_errors[i]);
    ck_assert_ptr_nonnull(s);
    ck_assert_msg(strlen(s) > 0, "empty string for %d", known_errors[i]);
    ck_assert_msg(strcmp(s, "unknown error") != 0,
                  "%d is known but gives \"unknown error\"", known_errors[i]);
    for (j = 0; j < i; j++)
      ck_assert_msg(strcmp(s, rtel_strerror(known_errors[j])) != 0,
                    "%d and %d share \"%s\"", known_errors[i], known_errors[j],
                    s);
  }
  for (i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
    const char *s = rtel_strerror(unknown[i]);
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(s, "unknown error");
  }
  /* success and the threshold: any non-NULL string */
  ck_assert_ptr_nonnull(rtel_strerror(0));
  ck_assert_ptr_nonnull(rtel_strerror(RTEL_ERR_FATAL));
}
END_TEST

START_TEST(test_err_is_fatal) {
  ck_assert(rtel_err_is_fatal(RTEL_ERR_NOMEM));
  ck_assert(rtel_err_is_fatal(RTEL_ERR_CALLBACK_FAILURE));
  ck_assert(rtel_err_is_fatal(-1000));
  ck_assert(rtel_err_is_fatal(INT_MIN));
  ck_assert(!rtel_err_is_fatal(RTEL_ERR_FATAL)); /* "below", not at */
  ck_assert(!rtel_err_is_fatal(RTEL_ERR_INVALID_ARGUMENT));
  ck_assert(!rtel_err_is_fatal(RTEL_ERR_UNSUPPORTED_VERSION));
  ck_assert(!rtel_err_is_fatal(RTEL_ERR_MALFORMED));
  ck_assert(!rtel_err_is_fatal(RTEL_ERR_NOT_ROCE));
  ck_assert(!rtel_err_is_fatal(RTEL_ERR_INVALID_STATE));
  ck_assert(!rtel_err_is_fatal(0));
  ck_assert(!rtel_err_is_fatal(1));
  ck_assert(!rtel_err_is_fatal(-499));
}
END_TEST

START_TEST(test_version) {
  const rtel_info *v = rtel_version(0);
  ck_assert_ptr_nonnull(v);
  ck_assert_int_eq(v->age, 1);
  ck_assert_uint_eq(v->version_num, RTEL_VERSION_NUM);
  ck_assert_ptr_nonnull(v->version_str);
  ck_assert_str_eq(v->version_str, RTEL_VERSION);
  ck_assert_ptr_eq(rtel_version(RTEL_VERSION_NUM), v);
  ck_assert_ptr_null(rtel_version(RTEL_VERSION_NUM + 1));
  ck_assert_ptr_null(rtel_version(0xFFFFFF));
  if (RTEL_VERSION_NUM > 0)
    ck_assert_ptr_nonnull(rtel_version(RTEL_VERSION_NUM - 1));
}
END_TEST

/* the version macros agree with each other: "M.m.p" and 0xMMmmpp */
START_TEST(test_version_macros) {
  unsigned maj = (RTEL_VERSION_NUM >> 16) & 0xFF;
  unsigned min = (RTEL_VERSION_NUM >> 8) & 0xFF;
  unsigned pat = RTEL_VERSION_NUM & 0xFF;
  char buf[32];
  snprintf(buf, sizeof(buf), "%u.%u.%u", maj, min, pat);
  ck_assert_int_eq(strncmp(RTEL_VERSION, buf, strlen(buf)), 0);
}
END_TEST

static int is_valid_opcode(unsigned op) {
  unsigned n = op & 0x1F;
  switch (op >> 5) {
  case 0:
  case 5:
    return n <= 0x14 || n == 0x16 || n == 0x17 || n == 0x1C || n == 0x1D;
  case 1:
    return n <= 0x0B;
  case 2:
    return n <= 0x15 || n == 0x1C || n == 0x1D;
  case 3:
    return op == 0x64 || op == 0x65;
  case 4:
    return op == 0x81;
  default:
    return 0;
  }
}

START_TEST(test_opcode_str) {
  const char *names[256];
  unsigned op, j;
  for (op = 0; op < 256; op++) {
    const char *s = rtel_opcode_str((uint8_t)op);
    names[op] = s;
    ck_assert_ptr_nonnull(s);
    if (!is_valid_opcode(op)) {
      /* 0xC0-0xFF are the IBTA's vendor-specific range: any name */
      if (op < 0xC0)
        ck_assert_msg(strcmp(s, "reserved") == 0,
                      "opcode 0x%02x: \"%s\", want \"reserved\"", op, s);
      continue;
    }
    ck_assert_msg(strcmp(s, "reserved") != 0 && strlen(s) > 0,
                  "opcode 0x%02x: \"%s\"", op, s);
    switch (op >> 5) {
    case 0:
      ck_assert_msg(strncmp(s, "RC ", 3) == 0, "0x%02x: \"%s\"", op, s);
      break;
    case 1:
      ck_assert_msg(strncmp(s, "UC ", 3) == 0, "0x%02x: \"%s\"", op, s);
      break;
    case 2:
      ck_assert_msg(strncmp(s, "RD ", 3) == 0, "0x%02x: \"%s\"", op, s);
      break;
    case 3:
      ck_assert_msg(strncmp(s, "UD ", 3) == 0, "0x%02x: \"%s\"", op, s);
      break;
    case 5:
      ck_assert_msg(strncmp(s, "XRC ", 4) == 0, "0x%02x: \"%s\"", op, s);
      break;
    default:
      break;
    }
    for (j = 0; j < op; j++)
      if (is_valid_opcode(j))
        ck_assert_msg(strcmp(s, names[j]) != 0,
                      "opcodes 0x%02x and 0x%02x share \"%s\"", op, j, s);
  }
  ck_assert_str_eq(rtel_opcode_str(0x06), "RC RDMA WRITE FIRST");
  ck_assert_str_eq(rtel_opcode_str(0x15), "reserved");
}
END_TEST

START_TEST(test_malformed_str) {
  unsigned r, j;
  for (r = 0; r <= RTEL_MALFORMED_LINKTYPE; r++) {
    const char *s = rtel_malformed_str(r);
    ck_assert_ptr_nonnull(s);
    ck_assert_msg(strcmp(s, "unknown") != 0 && strlen(s) > 0,
                  "reason %u: \"%s\"", r, s);
    for (j = 0; j < r; j++)
      ck_assert_msg(strcmp(s, rtel_malformed_str(j)) != 0,
                    "reasons %u and %u share \"%s\"", r, j, s);
  }
  ck_assert_str_eq(rtel_malformed_str(RTEL_MALFORMED_LINKTYPE + 1), "unknown");
  ck_assert_str_eq(rtel_malformed_str(RTEL_MALFORMED_SLOTS - 1), "unknown");
  ck_assert_str_eq(rtel_malformed_str(RTEL_MALFORMED_SLOTS), "unknown");
  ck_assert_str_eq(rtel_malformed_str(UINT32_MAX), "unknown");
}
END_TEST

START_TEST(test_malformed_values_pinned) {
  ck_assert_uint_eq(RTEL_MALFORMED_NONE, 0);
  ck_assert_uint_eq(RTEL_MALFORMED_TRUNCATED, 1);
  ck_assert_uint_eq(RTEL_MALFORMED_VLAN_DEPTH, 2);
  ck_assert_uint_eq(RTEL_MALFORMED_ROCE_LEN, 8);
  ck_assert_uint_eq(RTEL_MALFORMED_PAD, 9);
  ck_assert_uint_eq(RTEL_MALFORMED_MAD, 15);
  ck_assert_uint_eq(RTEL_MALFORMED_LINKTYPE, 16);
  ck_assert_uint_eq(RTEL_MALFORMED_SLOTS, 32);
  ck_assert_uint_eq(RTEL_LINK_ETHERNET, 1);
  ck_assert_uint_eq(RTEL_LINK_RAW, 101);
  ck_assert_uint_eq(RTEL_LINK_LINUX_SLL, 113);
  ck_assert_uint_eq(RTEL_LINK_LINUX_SLL2, 276);
}
END_TEST

START_TEST(test_mem_default) {
  const rtel_mem *m = rtel_mem_default();
  unsigned char *p, *q;
  size_t i;
  ck_assert_ptr_nonnull(m);
  ck_assert_ptr_eq(rtel_mem_default(), m);
  ck_assert(m->malloc != NULL);
  ck_assert(m->free != NULL);
  ck_assert(m->calloc != NULL);
  ck_assert(m->realloc != NULL);
  p = m->malloc(100, m->user_data);
  ck_assert_ptr_nonnull(p);
  memset(p, 0x5A, 100);
  q = m->realloc(p, 10000, m->user_data);
  ck_assert_ptr_nonnull(q);
  for (i = 0; i < 100; i++)
    ck_assert_uint_eq(q[i], 0x5A);
  m->free(q, m->user_data);
  p = m->calloc(64, 16, m->user_data);
  ck_assert_ptr_nonnull(p);
  for (i = 0; i < 64 * 16; i++)
    ck_assert_uint_eq(p[i], 0);
  m->free(p, m->user_data);
  m->free(NULL, m->user_data);
  p = m->realloc(NULL, 32, m->user_data);
  ck_assert_ptr_nonnull(p);
  m->free(p, m->user_data);
}
END_TEST

Suite *rtel_test_misc_suite(void) {
  Suite *s = suite_create("misc");
  TCase *tc = tcase_create("misc");
  tcase_add_test(tc, test_error_values_pinned);
  tcase_add_test(tc, test_strerror);
  tcase_add_test(tc, test_err_is_fatal);
  tcase_add_test(tc, test_version);
  tcase_add_test(tc, test_version_macros);
  tcase_add_test(tc, test_opcode_str);
  tcase_add_test(tc, test_malformed_str);
  tcase_add_test(tc, test_malformed_values_pinned);
  tcase_add_test(tc, test_mem_default);
  suite_add_tcase(s, tc);
  return s;
}
