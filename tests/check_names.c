/* SPDX-License-Identifier: MIT */
/*
 * The name functions (rtel_end_str, rtel_io_state_str, rtel_metric_str,
 * rtel_nvme_cmd_str, rtel_nvme_status_str, rtel_aeth_str): values written
 * here from the specifications' tables (NVMe Base 2.0, NVM Command Set 1.0,
 * Zoned Namespace 1.1, NVMe over Fabrics 1.1, IBTA Vol. 1 9.7.5.2) and the
 * header's RTEL_* definitions; every input gives a token.
 */
#define _POSIX_C_SOURCE 200809L

#include "rtel_test_util.h"

#include <string.h>

/* A token: non-empty, [a-z0-9_] only, not starting with '_' or a digit. */
static int is_token(const char *s) {
  size_t i;
  if (s == NULL || s[0] == '\0' || s[0] == '_' || (s[0] >= '0' && s[0] <= '9'))
    return 0;
  for (i = 0; s[i]; i++) {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
      return 0;
  }
  return 1;
}

START_TEST(test_end_state_metric) {
  uint32_t v;
  ck_assert_str_eq(rtel_end_str(RTEL_END_IDLE), "idle");
  ck_assert_str_eq(rtel_end_str(RTEL_END_ACTIVE), "active");
  ck_assert_str_eq(rtel_end_str(RTEL_END_EVICTED), "evicted");
  ck_assert_str_eq(rtel_end_str(RTEL_END_FLUSH), "flush");
  ck_assert_str_eq(rtel_end_str(RTEL_END_TRUNCATED), "truncated");
  ck_assert_str_eq(rtel_end_str(RTEL_END_ACKED), "acked");
  ck_assert_str_eq(rtel_end_str(RTEL_END_SETTLED), "settled");
  ck_assert_str_eq(rtel_end_str(RTEL_END_OVERFLOW), "overflow");
  ck_assert_str_eq(rtel_end_str(0), "unknown");
  ck_assert_str_eq(rtel_end_str(9), "unknown");
  ck_assert_str_eq(rtel_end_str(UINT32_MAX), "unknown");
  ck_assert_str_eq(rtel_io_state_str(RTEL_IO_COMPLETE), "complete");
  ck_assert_str_eq(rtel_io_state_str(RTEL_IO_TIMEOUT), "timeout");
  ck_assert_str_eq(rtel_io_state_str(RTEL_IO_ORPHAN), "orphan");
  ck_assert_str_eq(rtel_io_state_str(RTEL_IO_EVICTED), "evicted");
  ck_assert_str_eq(rtel_io_state_str(RTEL_IO_TRUNCATED), "truncated");
  ck_assert_str_eq(rtel_io_state_str(0), "unknown");
  ck_assert_str_eq(rtel_io_state_str(6), "unknown");
  ck_assert_str_eq(rtel_metric_str(RTEL_METRIC_IOL), "iol");
  ck_assert_str_eq(rtel_metric_str(RTEL_METRIC_DAL), "dal");
  ck_assert_str_eq(rtel_metric_str(RTEL_METRIC_DPL), "dpl");
  ck_assert_str_eq(rtel_metric_str(RTEL_METRIC_FCT), "fct");
  ck_assert_str_eq(rtel_metric_str(RTEL_METRIC_FNR), "fnr");
  ck_assert_str_eq(rtel_metric_str(RTEL_METRIC_FET), "fet");
  ck_assert_str_eq(rtel_metric_str(RTEL_METRIC_RETX_RATIO), "retx_ratio");
  ck_assert_str_eq(rtel_metric_str(RTEL_METRIC_CNP_RATE), "cnp_rate");
  ck_assert_str_eq(rtel_metric_str(0), "unknown");
  ck_assert_str_eq(rtel_metric_str(9), "unknown");
  for (v = 0; v < 300; v++) {
    ck_assert(is_token(rtel_end_str(v)));
    ck_assert(is_token(rtel_io_state_str(v)));
    ck_assert(is_token(rtel_metric_str(v)));
  }
}
END_TEST

START_TEST(test_nvme_cmd) {
  static const struct {
    uint8_t opc, fctype;
    int admin;
    const char *name;
  } v[] = {
      /* NVM command set (I/O queues) */
      {0x00, 0, 0, "flush"},
      {0x01, 0, 0, "write"},
      {0x02, 0, 0, "read"},
      {0x04, 0, 0, "write_uncorrectable"},
      {0x05, 0, 0, "compare"},
      {0x08, 0, 0, "write_zeroes"},
      {0x09, 0, 0, "dataset_management"},
      {0x0C, 0, 0, "verify"},
      {0x0D, 0, 0, "reservation_register"},
      {0x0E, 0, 0, "reservation_report"},
      {0x11, 0, 0, "reservation_acquire"},
      {0x15, 0, 0, "reservation_release"},
      {0x19, 0, 0, "copy"},
      {0x7D, 0, 0, "zone_append"},
      {0x03, 0, 0, "reserved"},
      {0x06, 0, 0, "reserved"}, /* Identify is an admin command */
      {0x7E, 0, 0, "reserved"},
      {0x80, 0, 0, "vendor_specific"},
      {0xFF, 0, 0, "vendor_specific"},
      /* admin command set (queue 0) */
      {0x00, 0, 1, "delete_io_sq"},
      {0x01, 0, 1, "create_io_sq"},
      {0x02, 0, 1, "get_log_page"},
      {0x04, 0, 1, "delete_io_cq"},
      {0x05, 0, 1, "create_io_cq"},
      {0x06, 0, 1, "identify"},
      {0x08, 0, 1, "abort"},
      {0x09, 0, 1, "set_features"},
      {0x0A, 0, 1, "get_features"},
      {0x0C, 0, 1, "async_event_request"},
      {0x18, 0, 1, "keep_alive"},
      {0x80, 0, 1, "format_nvm"},
      {0x84, 0, 1, "sanitize"},
      {0x03, 0, 1, "reserved"},
      {0xBF, 0, 1, "reserved"},
      {0xC0, 0, 1, "vendor_specific"},
      /* Fabrics (opcode 0x7F on any queue): the command type decides */
      {0x7F, 0x00, 0, "property_set"},
      {0x7F, 0x01, 1, "connect"},
      {0x7F, 0x01, 0, "connect"},
      {0x7F, 0x04, 1, "property_get"},
      {0x7F, 0x05, 1, "authentication_send"},
      {0x7F, 0x06, 1, "authentication_receive"},
      {0x7F, 0x08, 0, "disconnect"},
      {0x7F, 0x02, 1, "fabrics_reserved"},
      {0x7F, 0xC0, 1, "fabrics_vendor_specific"},
  };
  size_t i;
  unsigned opc, ft;
  for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
    ck_assert_msg(strcmp(rtel_nvme_cmd_str(v[i].opc, v[i].fctype, v[i].admin),
                         v[i].name) == 0,
                  "opcode 0x%02x fctype 0x%02x admin %d: %s, not %s", v[i].opc,
                  v[i].fctype, v[i].admin,
                  rtel_nvme_cmd_str(v[i].opc, v[i].fctype, v[i].admin),
                  v[i].name);
  }
  /* every input names something; the admin flag matters only off 0x7F */
  for (opc = 0; opc < 256; opc++) {
    for (ft = 0; ft < 256; ft++) {
      ck_assert(is_token(rtel_nvme_cmd_str((uint8_t)opc, (uint8_t)ft, 0)));
      ck_assert(is_token(rtel_nvme_cmd_str((uint8_t)opc, (uint8_t)ft, 7)));
    }
    ck_assert_str_eq(rtel_nvme_cmd_str((uint8_t)opc, 0, 1),
                     rtel_nvme_cmd_str((uint8_t)opc, 0, -1));
  }
}
END_TEST

START_TEST(test_nvme_status) {
  /* the record's status: SC bits 0-7, SCT 8-10, CRD 11-12, M 13, DNR 14 */
  ck_assert_str_eq(rtel_nvme_status_str(0x0000, 0x02), "success");
  ck_assert_str_eq(rtel_nvme_status_str(0x0001, 0x02),
                   "invalid_command_opcode");
  ck_assert_str_eq(rtel_nvme_status_str(0x0002, 0x02),
                   "invalid_field_in_command");
  /* DNR, More and CRD are not part of the name */
  ck_assert_str_eq(rtel_nvme_status_str(0x4002, 0x02),
                   "invalid_field_in_command");
  ck_assert_str_eq(rtel_nvme_status_str(0x7802, 0x02),
                   "invalid_field_in_command");
  ck_assert_str_eq(rtel_nvme_status_str(0x0004, 0x01), "data_transfer_error");
  ck_assert_str_eq(rtel_nvme_status_str(0x0006, 0x01), "internal_error");
  ck_assert_str_eq(rtel_nvme_status_str(0x000B, 0x02),
                   "invalid_namespace_or_format");
  ck_assert_str_eq(rtel_nvme_status_str(0x0022, 0x02),
                   "transient_transport_error");
  ck_assert_str_eq(rtel_nvme_status_str(0x0080, 0x02), "lba_out_of_range");
  ck_assert_str_eq(rtel_nvme_status_str(0x0083, 0x01), "reservation_conflict");
  ck_assert_str_eq(rtel_nvme_status_str(0x0017, 0x02), "reserved");
  ck_assert_str_eq(rtel_nvme_status_str(0x00FF, 0x02), "reserved");
  /* SCT 1, command specific: Fabrics values apart from 0x80 on */
  ck_assert_str_eq(rtel_nvme_status_str(0x0101, 0x7F),
                   "invalid_queue_identifier");
  ck_assert_str_eq(rtel_nvme_status_str(0x0102, 0x7F), "invalid_queue_size");
  ck_assert_str_eq(rtel_nvme_status_str(0x0180, 0x7F), "incompatible_format");
  ck_assert_str_eq(rtel_nvme_status_str(0x0181, 0x7F), "controller_busy");
  ck_assert_str_eq(rtel_nvme_status_str(0x0182, 0x7F),
                   "connect_invalid_parameters");
  ck_assert_str_eq(rtel_nvme_status_str(0x0184, 0x7F), "connect_invalid_host");
  ck_assert_str_eq(rtel_nvme_status_str(0x0191, 0x7F),
                   "authentication_required");
  ck_assert_str_eq(rtel_nvme_status_str(0x0182, 0x01),
                   "attempted_write_to_read_only_range");
  ck_assert_str_eq(rtel_nvme_status_str(0x0180, 0x01),
                   "conflicting_attributes");
  /* SCT 2, media and data integrity */
  ck_assert_str_eq(rtel_nvme_status_str(0x0280, 0x01), "write_fault");
  ck_assert_str_eq(rtel_nvme_status_str(0x0281, 0x02),
                   "unrecovered_read_error");
  ck_assert_str_eq(rtel_nvme_status_str(0x0282, 0x02),
                   "end_to_end_guard_check_error");
  ck_assert_str_eq(rtel_nvme_status_str(0x0285, 0x05), "compare_failure");
  ck_assert_str_eq(rtel_nvme_status_str(0x0286, 0x02), "access_denied");
  ck_assert_str_eq(rtel_nvme_status_str(0x0200, 0x02), "reserved");
  /* SCT 3, path related */
  ck_assert_str_eq(rtel_nvme_status_str(0x0300, 0x02), "internal_path_error");
  ck_assert_str_eq(rtel_nvme_status_str(0x0302, 0x02),
                   "asymmetric_access_inaccessible");
  ck_assert_str_eq(rtel_nvme_status_str(0x0370, 0x02), "host_pathing_error");
  ck_assert_str_eq(rtel_nvme_status_str(0x0371, 0x02), "aborted_by_host");
  /* SCT 4-6 reserved, 7 vendor specific */
  ck_assert_str_eq(rtel_nvme_status_str(0x0400, 0x02), "reserved");
  ck_assert_str_eq(rtel_nvme_status_str(0x0600, 0x02), "reserved");
  ck_assert_str_eq(rtel_nvme_status_str(0x0700, 0x02), "vendor_specific");
  ck_assert_str_eq(rtel_nvme_status_str(0x47FF, 0x02), "vendor_specific");
  {
    unsigned st;
    for (st = 0; st < 0x10000; st++) {
      ck_assert(is_token(rtel_nvme_status_str((uint16_t)st, 0x02)));
      ck_assert(is_token(rtel_nvme_status_str((uint16_t)st, 0x7F)));
    }
  }
}
END_TEST

START_TEST(test_aeth) {
  unsigned s;
  ck_assert_str_eq(rtel_aeth_str(0x00), "ack");
  ck_assert_str_eq(rtel_aeth_str(0x1F), "ack"); /* credit count 31 */
  ck_assert_str_eq(rtel_aeth_str(0x20), "rnr_nak");
  ck_assert_str_eq(rtel_aeth_str(0x3F), "rnr_nak");
  ck_assert_str_eq(rtel_aeth_str(0x40), "reserved");
  ck_assert_str_eq(rtel_aeth_str(0x5F), "reserved");
  ck_assert_str_eq(rtel_aeth_str(0x60), "nak_psn_sequence_error");
  ck_assert_str_eq(rtel_aeth_str(0x61), "nak_invalid_request");
  ck_assert_str_eq(rtel_aeth_str(0x62), "nak_remote_access_error");
  ck_assert_str_eq(rtel_aeth_str(0x63), "nak_remote_operational_error");
  ck_assert_str_eq(rtel_aeth_str(0x64), "nak_invalid_rd_request");
  ck_assert_str_eq(rtel_aeth_str(0x65), "nak_reserved");
  ck_assert_str_eq(rtel_aeth_str(0x7F), "nak_reserved");
  ck_assert_str_eq(rtel_aeth_str(0x80), "reserved"); /* bit 7 reserved */
  ck_assert_str_eq(rtel_aeth_str(0xE0), "reserved");
  for (s = 0; s < 256; s++) {
    ck_assert(is_token(rtel_aeth_str((uint8_t)s)));
  }
}
END_TEST

Suite *rtel_test_names_suite(void) {
  Suite *s = suite_create("names");
  TCase *tc = tcase_create("names");
  tcase_add_test(tc, test_end_state_metric);
  tcase_add_test(tc, test_nvme_cmd);
  tcase_add_test(tc, test_nvme_status);
  tcase_add_test(tc, test_aeth);
  suite_add_tcase(s, tc);
  return s;
}
