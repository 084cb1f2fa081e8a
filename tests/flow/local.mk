# SPDX-License-Identifier: MIT
# Flow-table scenario tests (rtel-metrics(7), "THROUGHPUT FIGURES"): packets
# built byte by byte in tests/flow/flowpkt.[ch], expected values by hand.
if HAVE_CHECK
check_PROGRAMS += tests/flow/check_flow
TESTS += tests/flow/check_flow

tests_flow_check_flow_SOURCES = \
	tests/flow/check_flow.c \
	tests/flow/flowpkt.c tests/flow/flowpkt.h
tests_flow_check_flow_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS) $(CHECK_CFLAGS)
tests_flow_check_flow_LDADD = lib/librocetel.la $(CHECK_LIBS)
endif
