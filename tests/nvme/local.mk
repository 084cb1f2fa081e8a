# SPDX-License-Identifier: MIT
# NVMe-oF I/O correlator tests (rtel_io_record(3), rtel_io_aggregate(3),
# rtel-metrics(7), "NVME-OF I/O EVENTS"): packets built byte by byte by the
# shared builder (tests/rtel_test_util.h), expected records by hand.
if HAVE_CHECK
check_PROGRAMS += tests/nvme/check_nvme
TESTS += tests/nvme/check_nvme

tests_nvme_check_nvme_SOURCES = tests/nvme/check_nvme.c
tests_nvme_check_nvme_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_nvme_check_nvme_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS) $(CHECK_CFLAGS)
tests_nvme_check_nvme_LDADD = tests/librtel_test.la lib/librocetel.la \
	$(CHECK_LIBS)
endif
