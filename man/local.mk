# man/local.mk - hand-written manual pages, roff with the man(7) macros
# (see HACKING.md).
# Section 1: the programs. Section 3: the API, one page per topic, plus a
# one-line ".so man3/<topic>.3" alias page for every other public name, so
# that "man <name>" works for each exported function, function-like wrapper
# macro and public struct. Section 7: rtel-metrics(7), the definitions of
# every figure the library delivers.
# tests/check-man.sh (wired in tests/local.mk) lints them all and checks
# that none is missing.

# topic pages
dist_man3_MANS += \
	man/librocetel.3 \
	man/rtel_callbacks.3 \
	man/rtel_ctx_flush.3 \
	man/rtel_ctx_get_expiry.3 \
	man/rtel_ctx_get_stats.3 \
	man/rtel_ctx_new.3 \
	man/rtel_ctx_read_pkt.3 \
	man/rtel_ctx_set_schedule.3 \
	man/rtel_ctx_set_threshold.3 \
	man/rtel_end_str.3 \
	man/rtel_flow_record.3 \
	man/rtel_icrc_compute.3 \
	man/rtel_io_aggregate.3 \
	man/rtel_io_record.3 \
	man/rtel_ipfix.3 \
	man/rtel_mem_default.3 \
	man/rtel_opcode_str.3 \
	man/rtel_pkt_decode.3 \
	man/rtel_settings.3 \
	man/rtel_shard_key.3 \
	man/rtel_strerror.3 \
	man/rtel_version.3

# alias pages (.so)
dist_man3_MANS += \
	man/rtel_alarm.3 \
	man/rtel_ctx_add_port.3 \
	man/rtel_ctx_add_port_versioned.3 \
	man/rtel_ctx_del.3 \
	man/rtel_ctx_get_stats_versioned.3 \
	man/rtel_ctx_handle_expiry.3 \
	man/rtel_ctx_new_versioned.3 \
	man/rtel_ctx_port_measured.3 \
	man/rtel_ctx_read_pkt_versioned.3 \
	man/rtel_ctx_read_pkts.3 \
	man/rtel_ctx_read_pkts_versioned.3 \
	man/rtel_ctx_read_pkts_timed.3 \
	man/rtel_ctx_read_pkts_timed_versioned.3 \
	man/rtel_ctx_set_baseline.3 \
	man/rtel_ctx_set_obs_role.3 \
	man/rtel_ctx_set_schedule_versioned.3 \
	man/rtel_ctx_stats.3 \
	man/rtel_decode_opts.3 \
	man/rtel_err_is_fatal.3 \
	man/rtel_icrc_compute_versioned.3 \
	man/rtel_aeth_str.3 \
	man/rtel_info.3 \
	man/rtel_io_state_str.3 \
	man/rtel_ipfix_add_aggregate.3 \
	man/rtel_ipfix_add_aggregate_versioned.3 \
	man/rtel_ipfix_add_flow.3 \
	man/rtel_ipfix_add_flow_versioned.3 \
	man/rtel_ipfix_add_io.3 \
	man/rtel_ipfix_add_io_versioned.3 \
	man/rtel_ipfix_add_msg.3 \
	man/rtel_ipfix_add_msg_versioned.3 \
	man/rtel_ipfix_add_segment.3 \
	man/rtel_ipfix_add_segment_versioned.3 \
	man/rtel_ipfix_begin.3 \
	man/rtel_ipfix_control_pending.3 \
	man/rtel_ipfix_del.3 \
	man/rtel_ipfix_element.3 \
	man/rtel_ipfix_element_get.3 \
	man/rtel_ipfix_end.3 \
	man/rtel_ipfix_get_expiry.3 \
	man/rtel_ipfix_handle_expiry.3 \
	man/rtel_ipfix_new.3 \
	man/rtel_ipfix_new_versioned.3 \
	man/rtel_ipfix_reset.3 \
	man/rtel_ipfix_settings.3 \
	man/rtel_ipfix_settings_default.3 \
	man/rtel_ipfix_settings_default_versioned.3 \
	man/rtel_latency.3 \
	man/rtel_malformed_str.3 \
	man/rtel_mem.3 \
	man/rtel_metric_str.3 \
	man/rtel_msg_record.3 \
	man/rtel_nvme_cmd_str.3 \
	man/rtel_nvme_status_str.3 \
	man/rtel_on_alarm.3 \
	man/rtel_on_flow.3 \
	man/rtel_on_io.3 \
	man/rtel_on_io_aggregate.3 \
	man/rtel_on_message.3 \
	man/rtel_on_packet.3 \
	man/rtel_on_segment.3 \
	man/rtel_on_slot.3 \
	man/rtel_on_stats.3 \
	man/rtel_pkt_decode_versioned.3 \
	man/rtel_pkt_hd.3 \
	man/rtel_pkt_info.3 \
	man/rtel_port.3 \
	man/rtel_schedule.3 \
	man/rtel_segment_record.3 \
	man/rtel_settings_default.3 \
	man/rtel_settings_default_versioned.3 \
	man/rtel_slot_event.3

# section 7
dist_man7_MANS += man/rtel-metrics.7

# section 1: installed only with the program (built when libpcap is found;
# see examples/local.mk); automake distributes it either way.
if HAVE_PCAP
dist_man1_MANS += man/rtel-analyze.1
# rtel-collect, a daemon: section 8 (administration)
dist_man8_MANS += man/rtel-collect.8
endif

# rtel-sim's page: installed with the simulator (always built).
dist_man1_MANS += man/rtel-sim.1
