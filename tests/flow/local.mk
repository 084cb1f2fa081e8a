# SPDX-License-Identifier: MIT
# Flow-table scenario tests (rtel-metrics(7), "THROUGHPUT FIGURES"): packets
# built byte by byte by the shared builder (tests/rtel_test_util.h),
# expected values by hand.
if HAVE_CHECK
check_PROGRAMS += tests/flow/check_flow
TESTS += tests/flow/check_flow

tests_flow_check_flow_SOURCES = tests/flow/check_flow.c
tests_flow_check_flow_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_flow_check_flow_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS) $(CHECK_CFLAGS)
tests_flow_check_flow_LDADD = tests/librtel_test.la lib/librocetel.la \
	$(CHECK_LIBS)
endif
