# SPDX-License-Identifier: MIT
# tests/report/local.mk - tests of the HTML report of rtel-analyze --report
# (its module: examples/rtel-report.c, wired in examples/local.mk; its page:
# man/rtel-analyze.1, REPORT). See HACKING.md; included from the top-level
# Makefile.am, appends only.
#
# tests/report/check_report.py (python3, standard library, and
# python3-selenium with Chromium and chromedriver for the browser tests)
# runs rtel-analyze on rtel-sim captures and opens the page in headless
# Chromium: nvme (two-point NVMe-oF), rdma (lossy RDMA), size (10^6
# synthetic I/Os through report-synth), usage. Each exits 77 (skip) when
# what it needs is missing. Screenshots: $(top_builddir)/tests/report/*.png.
#
# tests/report/report-synth feeds the report synthetic records (no pcap).
check_PROGRAMS += tests/report/report-synth
tests_report_report_synth_SOURCES = tests/report/report-synth.c \
	examples/rtel-report.c examples/rtel-report.h
tests_report_report_synth_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS) \
	-DRTEL_NO_DEPRECATED
tests_report_report_synth_LDADD = lib/librocetel.la -lm

AM_TESTS_ENVIRONMENT += \
	RTEL_REPORT_SYNTH='$(abs_top_builddir)/tests/report/report-synth'; \
	export RTEL_REPORT_SYNTH;

if HAVE_PCAP
TESTS += \
	tests/report/report-usage.test \
	tests/report/report-nvme.test \
	tests/report/report-rdma.test
endif
TESTS += tests/report/report-size.test

EXTRA_DIST += \
	tests/report/check_report.py \
	tests/report/report-usage.test \
	tests/report/report-nvme.test \
	tests/report/report-rdma.test \
	tests/report/report-size.test

CLEANFILES += \
	tests/report/*.html tests/report/*.png

clean-local: clean-report
clean-report:
	-rm -rf tests/report/work-nvme tests/report/work-rdma
.PHONY: clean-report
