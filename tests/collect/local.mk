# SPDX-License-Identifier: MIT
# tests/collect/local.mk - tests of rtel-collect (its program:
# examples/local.mk; its page: man/rtel-collect.8). See HACKING.md;
# included from the top-level Makefile.am, appends only.
#
# tests/collect/check_collect.py (python3, standard library) runs the
# program on rtel-sim captures ($(RTEL_SIM)) and compares its records with
# rtel-analyze's: files (-r, -j 1/2/5), live (-i lo, frames sent through an
# AF_PACKET socket: needs CAP_NET_RAW, else skipped), erspan (-i lo, ERSPAN
# III copies timed by their switch stamps: every field, times included;
# CAP_NET_RAW too), poll (--poll, --on-slot: files against rtel-analyze
# --poll, and live on lo), rotate (--rotate-size, SIGHUP), usage (exit 2). Each exits 77 (skip) when a program is missing.
# tests/collect/check_metrics.py (collect-metrics.test): --metrics scraped
# by promtool and a real Prometheus (Debian package prometheus) during a
# replay, compared with the run's JSON and rtel-analyze's I/Os; skipped
# without them or without libmicrohttpd (configure: HAVE_MHD).
# tests/collect/check_nfacctd.py (collect-nfacctd.test): -j 2's IPFIX to
# pmacct's nfacctd, record by record against rtel-analyze's JSON, with the
# helpers of tests/ipfix/collectorlib.py and the mapping tables of
# tests/ipfix/pmacct.py (imported); skipped without nfacctd.
if HAVE_PCAP
TESTS += \
	tests/collect/collect-usage.test \
	tests/collect/collect-files.test \
	tests/collect/collect-rotate.test \
	tests/collect/collect-live.test \
	tests/collect/collect-erspan.test \
	tests/collect/collect-poll.test \
	tests/collect/collect-metrics.test \
	tests/collect/collect-nfacctd.test
endif

EXTRA_DIST += \
	tests/collect/check_collect.py \
	tests/collect/check_metrics.py \
	tests/collect/check_nfacctd.py \
	tests/collect/collect-nfacctd.test \
	tests/collect/collect-metrics.test \
	tests/collect/collect-usage.test \
	tests/collect/collect-files.test \
	tests/collect/collect-rotate.test \
	tests/collect/collect-live.test \
	tests/collect/collect-erspan.test \
	tests/collect/collect-poll.test

# tests/collect/check_table_mem: the allocators of examples/table-mem.c
# (rtel-collect's, every page written at allocation; rtel-analyze's, pages
# left to their first write): zeroing, alignment, realloc, residence read
# back with mincore(2), a context made on each (Check).
if HAVE_CHECK
check_PROGRAMS += tests/collect/check_table_mem
TESTS += tests/collect/check_table_mem
tests_collect_check_table_mem_SOURCES = tests/collect/check_table_mem.c \
	examples/table-mem.c examples/table-mem.h
tests_collect_check_table_mem_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/examples
tests_collect_check_table_mem_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS) $(CHECK_CFLAGS) \
	-DRTEL_NO_DEPRECATED
tests_collect_check_table_mem_LDADD = lib/librocetel.la $(CHECK_LIBS)
endif
