/* SPDX-License-Identifier: MIT */
/*
 * Names for the numbers in records: flow and message end reasons, I/O
 * states, alarm metrics, NVMe and NVMe over Fabrics commands, NVMe status
 * codes and AETH syndromes. One set of words for every program that prints
 * records (rtel-analyze, switch-agent, collectors), so that they never
 * disagree. Every name is a static snake_case token: it fits a text column,
 * a JSON string and a metric label unquoted.
 *
 * Sources: the NVM Express Base Specification 2.0 (admin commands, Figure
 * 28; generic and command specific status values, Figures 101 to 106; path
 * related status, Figure 107), the NVM Command Set Specification 1.0 (I/O
 * commands, Figure 18; its status values, Figures 21 to 23), NVMe over
 * Fabrics 1.1 (Fabrics command types and their status values), and the
 * InfiniBand Architecture Specification Volume 1, 9.7.5.2 (AETH
 * syndromes).
 */
#include "rtel_int.h"

typedef struct name {
  uint8_t code;
  const char *name;
} name;

/* The name of |code| in |t| (|n| entries, sorted or not), or NULL. */
static const char *lookup(const name *t, size_t n, uint8_t code) {
  size_t i;
  for (i = 0; i < n; i++) {
    if (t[i].code == code) {
      return t[i].name;
    }
  }
  return NULL;
}

#define LOOKUP(t, code) lookup((t), sizeof(t) / sizeof((t)[0]), (code))

const char *rtel_end_str(uint32_t end) {
  static const char *const names[] = {"unknown", "idle",    "active",
                                      "evicted", "flush",   "truncated",
                                      "acked",   "settled", "overflow"};
  return end < sizeof(names) / sizeof(names[0]) ? names[end] : "unknown";
}

const char *rtel_io_state_str(uint32_t state) {
  static const char *const names[] = {"unknown", "complete", "timeout",
                                      "orphan",  "evicted",  "truncated"};
  return state < sizeof(names) / sizeof(names[0]) ? names[state] : "unknown";
}

const char *rtel_metric_str(uint32_t metric) {
  static const char *const names[] = {"unknown", "iol",        "dal",
                                      "dpl",     "fct",        "fnr",
                                      "fet",     "retx_ratio", "cnp_rate"};
  return metric < sizeof(names) / sizeof(names[0]) ? names[metric] : "unknown";
}

/* Admin command set (submitted on queue 0). */
static const name admin_ops[] = {
    {0x00, "delete_io_sq"},
    {0x01, "create_io_sq"},
    {0x02, "get_log_page"},
    {0x04, "delete_io_cq"},
    {0x05, "create_io_cq"},
    {0x06, "identify"},
    {0x08, "abort"},
    {0x09, "set_features"},
    {0x0A, "get_features"},
    {0x0C, "async_event_request"},
    {0x0D, "namespace_management"},
    {0x10, "firmware_commit"},
    {0x11, "firmware_image_download"},
    {0x14, "device_self_test"},
    {0x15, "namespace_attachment"},
    {0x18, "keep_alive"},
    {0x19, "directive_send"},
    {0x1A, "directive_receive"},
    {0x1C, "virtualization_management"},
    {0x1D, "nvme_mi_send"},
    {0x1E, "nvme_mi_receive"},
    {0x20, "capacity_management"},
    {0x24, "lockdown"},
    {0x7C, "doorbell_buffer_config"},
    {0x80, "format_nvm"},
    {0x81, "security_send"},
    {0x82, "security_receive"},
    {0x84, "sanitize"},
    {0x86, "get_lba_status"},
};

/* NVM command set (I/O queues). */
static const name io_ops[] = {
    {0x00, "flush"},
    {0x01, "write"},
    {0x02, "read"},
    {0x04, "write_uncorrectable"},
    {0x05, "compare"},
    {0x08, "write_zeroes"},
    {0x09, "dataset_management"},
    {0x0C, "verify"},
    {0x0D, "reservation_register"},
    {0x0E, "reservation_report"},
    {0x11, "reservation_acquire"},
    {0x15, "reservation_release"},
    {0x19, "copy"},
    /* the Zoned Namespace command set's (reserved in the NVM set) */
    {0x79, "zone_management_send"},
    {0x7A, "zone_management_receive"},
    {0x7D, "zone_append"},
};

/* Fabrics command types (opcode 0x7F, any queue). */
static const name fabrics_types[] = {
    {0x00, "property_set"},           {0x01, "connect"},
    {0x04, "property_get"},           {0x05, "authentication_send"},
    {0x06, "authentication_receive"}, {0x08, "disconnect"},
};

const char *rtel_nvme_cmd_str(uint8_t opcode, uint8_t fctype, int admin) {
  const char *s;
  if (opcode == RTEL_NVME_OP_FABRICS) {
    s = LOOKUP(fabrics_types, fctype);
    return s                ? s
           : fctype >= 0xC0 ? "fabrics_vendor_specific"
                            : "fabrics_reserved";
  }
  if (admin) {
    s = LOOKUP(admin_ops, opcode);
    return s ? s : opcode >= 0xC0 ? "vendor_specific" : "reserved";
  }
  s = LOOKUP(io_ops, opcode);
  return s ? s : opcode >= 0x80 ? "vendor_specific" : "reserved";
}

/* Status code type 0: generic command status (0x00-0x7F of every command
 * set, 0x80-0xBF of the NVM command set). */
static const name sc_generic[] = {
    {0x00, "success"},
    {0x01, "invalid_command_opcode"},
    {0x02, "invalid_field_in_command"},
    {0x03, "command_id_conflict"},
    {0x04, "data_transfer_error"},
    {0x05, "aborted_power_loss"},
    {0x06, "internal_error"},
    {0x07, "abort_requested"},
    {0x08, "aborted_sq_deletion"},
    {0x09, "aborted_failed_fused"},
    {0x0A, "aborted_missing_fused"},
    {0x0B, "invalid_namespace_or_format"},
    {0x0C, "command_sequence_error"},
    {0x0D, "invalid_sgl_segment_descriptor"},
    {0x0E, "invalid_number_of_sgl_descriptors"},
    {0x0F, "data_sgl_length_invalid"},
    {0x10, "metadata_sgl_length_invalid"},
    {0x11, "sgl_descriptor_type_invalid"},
    {0x12, "invalid_use_of_cmb"},
    {0x13, "prp_offset_invalid"},
    {0x14, "atomic_write_unit_exceeded"},
    {0x15, "operation_denied"},
    {0x16, "sgl_offset_invalid"},
    {0x18, "host_identifier_inconsistent_format"},
    {0x19, "keep_alive_timer_expired"},
    {0x1A, "keep_alive_timeout_invalid"},
    {0x1B, "aborted_preempt_and_abort"},
    {0x1C, "sanitize_failed"},
    {0x1D, "sanitize_in_progress"},
    {0x1E, "sgl_data_block_granularity_invalid"},
    {0x1F, "not_supported_for_queue_in_cmb"},
    {0x20, "namespace_write_protected"},
    {0x21, "command_interrupted"},
    {0x22, "transient_transport_error"},
    {0x23, "prohibited_by_lockdown"},
    {0x24, "admin_command_media_not_ready"},
    {0x80, "lba_out_of_range"},
    {0x81, "capacity_exceeded"},
    {0x82, "namespace_not_ready"},
    {0x83, "reservation_conflict"},
    {0x84, "format_in_progress"},
};

/* Status code type 1: command specific status (admin commands and the NVM
 * command set; the Fabrics values of Connect and Authentication). */
static const name sc_specific[] = {
    {0x00, "completion_queue_invalid"},
    {0x01, "invalid_queue_identifier"},
    {0x02, "invalid_queue_size"},
    {0x03, "abort_command_limit_exceeded"},
    {0x05, "async_event_request_limit_exceeded"},
    {0x06, "invalid_firmware_slot"},
    {0x07, "invalid_firmware_image"},
    {0x08, "invalid_interrupt_vector"},
    {0x09, "invalid_log_page"},
    {0x0A, "invalid_format"},
    {0x0B, "firmware_activation_requires_conventional_reset"},
    {0x0C, "invalid_queue_deletion"},
    {0x0D, "feature_identifier_not_saveable"},
    {0x0E, "feature_not_changeable"},
    {0x0F, "feature_not_namespace_specific"},
    {0x10, "firmware_activation_requires_nvm_subsystem_reset"},
    {0x11, "firmware_activation_requires_controller_reset"},
    {0x12, "firmware_activation_requires_maximum_time_violation"},
    {0x13, "firmware_activation_prohibited"},
    {0x14, "overlapping_range"},
    {0x15, "namespace_insufficient_capacity"},
    {0x16, "namespace_identifier_unavailable"},
    {0x18, "namespace_already_attached"},
    {0x19, "namespace_is_private"},
    {0x1A, "namespace_not_attached"},
    {0x1B, "thin_provisioning_not_supported"},
    {0x1C, "controller_list_invalid"},
    {0x1D, "device_self_test_in_progress"},
    {0x1E, "boot_partition_write_prohibited"},
    {0x1F, "invalid_controller_identifier"},
    {0x20, "invalid_secondary_controller_state"},
    {0x21, "invalid_number_of_controller_resources"},
    {0x22, "invalid_resource_identifier"},
    {0x23, "sanitize_prohibited_while_pmr_enabled"},
    {0x24, "ana_group_identifier_invalid"},
    {0x25, "ana_attach_failed"},
    {0x26, "insufficient_capacity"},
    {0x27, "namespace_attachment_limit_exceeded"},
    {0x28, "prohibition_of_command_execution_not_supported"},
    {0x29, "io_command_set_not_supported"},
    {0x2A, "io_command_set_not_enabled"},
    {0x2B, "io_command_set_combination_rejected"},
    {0x2C, "invalid_io_command_set"},
    {0x2D, "identifier_unavailable"},
    {0x80, "conflicting_attributes"},
    {0x81, "invalid_protection_information"},
    {0x82, "attempted_write_to_read_only_range"},
    {0x83, "command_size_limit_exceeded"},
};

/* Command specific values of the Fabrics commands (Connect, and the
 * Discovery and Authentication values), on opcode 0x7F. */
static const name sc_fabrics[] = {
    {0x80, "incompatible_format"},        {0x81, "controller_busy"},
    {0x82, "connect_invalid_parameters"}, {0x83, "connect_restart_discovery"},
    {0x84, "connect_invalid_host"},       {0x85, "invalid_queue_type"},
    {0x90, "discover_restart"},           {0x91, "authentication_required"},
};

/* Status code type 2: media and data integrity errors. */
static const name sc_media[] = {
    {0x80, "write_fault"},
    {0x81, "unrecovered_read_error"},
    {0x82, "end_to_end_guard_check_error"},
    {0x83, "end_to_end_application_tag_check_error"},
    {0x84, "end_to_end_reference_tag_check_error"},
    {0x85, "compare_failure"},
    {0x86, "access_denied"},
    {0x87, "deallocated_or_unwritten_logical_block"},
    {0x88, "end_to_end_storage_tag_check_error"},
};

/* Status code type 3: path related status. */
static const name sc_path[] = {
    {0x00, "internal_path_error"},
    {0x01, "asymmetric_access_persistent_loss"},
    {0x02, "asymmetric_access_inaccessible"},
    {0x03, "asymmetric_access_transition"},
    {0x60, "controller_pathing_error"},
    {0x70, "host_pathing_error"},
    {0x71, "aborted_by_host"},
};

const char *rtel_nvme_status_str(uint16_t status, uint8_t opcode) {
  uint8_t sc = (uint8_t)(status & 0xFFu);
  uint32_t sct = (uint32_t)(status >> 8) & 0x7u;
  const char *s = NULL;
  switch (sct) {
  case 0:
    s = LOOKUP(sc_generic, sc);
    break;
  case 1:
    s = opcode == RTEL_NVME_OP_FABRICS && sc >= 0x80 ? LOOKUP(sc_fabrics, sc)
                                                     : LOOKUP(sc_specific, sc);
    break;
  case 2:
    s = LOOKUP(sc_media, sc);
    break;
  case 3:
    s = LOOKUP(sc_path, sc);
    break;
  case 7:
    return "vendor_specific";
  default:
    break;
  }
  return s ? s : "reserved";
}

const char *rtel_aeth_str(uint8_t syndrome) {
  static const char *const naks[] = {
      "nak_psn_sequence_error", "nak_invalid_request",
      "nak_remote_access_error", "nak_remote_operational_error",
      "nak_invalid_rd_request"};
  switch (syndrome >> 5) {
  case 0:
    return "ack";
  case 1:
    return "rnr_nak";
  case 3:
    return (syndrome & 0x1Fu) < sizeof(naks) / sizeof(naks[0])
               ? naks[syndrome & 0x1Fu]
               : "nak_reserved";
  default:
    return "reserved";
  }
}
