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
if HAVE_PCAP
TESTS += \
	tests/collect/collect-usage.test \
	tests/collect/collect-files.test \
	tests/collect/collect-rotate.test \
	tests/collect/collect-live.test
endif

EXTRA_DIST += \
	tests/collect/check_collect.py \
	tests/collect/collect-usage.test \
	tests/collect/collect-files.test \
	tests/collect/collect-rotate.test \
	tests/collect/collect-live.test
