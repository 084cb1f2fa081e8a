# SPDX-License-Identifier: MIT
# tests/collect/local.mk - tests of rtel-collect (its program:
# examples/local.mk; its page: man/rtel-collect.8). See HACKING.md;
# included from the top-level Makefile.am, appends only.
#
# tests/collect/check_collect.py (python3, standard library) runs the
# program on rtel-sim captures ($(RTEL_SIM)) and compares its records with
# rtel-analyze's: files (-r, -j 1/2/5), live (-i lo, frames sent through an
# AF_PACKET socket: needs CAP_NET_RAW, else skipped), rotate (--rotate-size,
# SIGHUP), usage (exit 2). Each exits 77 (skip) when a program is missing.
# tests/collect/check_metrics.py (collect-metrics.test): --metrics scraped
# by promtool and a real Prometheus (Debian package prometheus) during a
# replay, compared with the run's JSON and rtel-analyze's I/Os; skipped
# without them or without libmicrohttpd (configure: HAVE_MHD).
if HAVE_PCAP
TESTS += \
	tests/collect/collect-usage.test \
	tests/collect/collect-files.test \
	tests/collect/collect-rotate.test \
	tests/collect/collect-live.test \
	tests/collect/collect-metrics.test
endif

EXTRA_DIST += \
	tests/collect/check_collect.py \
	tests/collect/check_metrics.py \
	tests/collect/collect-metrics.test \
	tests/collect/collect-usage.test \
	tests/collect/collect-files.test \
	tests/collect/collect-rotate.test \
	tests/collect/collect-live.test
