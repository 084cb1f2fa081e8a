# SPDX-License-Identifier: MIT
# Check unit tests (see HACKING.md).
#  tests/librtel_test.la  what the C suites share (tests/rtel_test_util.h):
#                         the packet builder (rtel_test_pkt.c, NVMe-oF in
#                         rtel_test_nvme.c), a pcap reader, an allocator;
#                         independent of the library. The suites in
#                         tests/flow, tests/sched, tests/nvme link it too
#                         (-I$(top_srcdir)/tests).
#  tests/check_public     public API, linked against the shared library
#  tests/check_internal   white-box, linked against the convenience library
if HAVE_CHECK
check_LTLIBRARIES += tests/librtel_test.la
tests_librtel_test_la_SOURCES = \
	tests/rtel_test_util.c tests/rtel_test_util.h \
	tests/rtel_test_pkt.c \
	tests/rtel_test_nvme.c
tests_librtel_test_la_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS) $(CHECK_CFLAGS)

check_PROGRAMS += tests/check_public tests/check_internal
TESTS += tests/check_public tests/check_internal

tests_check_public_SOURCES = \
	tests/check_public.c \
	tests/check_decode.c \
	tests/check_ctx.c \
	tests/check_misc.c \
	tests/check_names.c \
	tests/check_shard.c
tests_check_public_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS) $(CHECK_CFLAGS)
tests_check_public_LDADD = tests/librtel_test.la lib/librocetel.la \
	$(CHECK_LIBS)

tests_check_internal_SOURCES = \
	tests/check_internal.c \
	tests/check_icrc.c \
	tests/check_ahead.c \
	tests/check_table.c \
	tests/check_fastpath.c \
	tests/icrc_cases.c tests/icrc_cases.h tests/icrc_vectors.h
tests_check_internal_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/lib
tests_check_internal_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS) $(CHECK_CFLAGS)
tests_check_internal_LDADD = tests/librtel_test.la \
	lib/librocetel_core.la $(CHECK_LIBS)
endif

# The arm64 CRC paths (PMULL, tables): the cases of tests/icrc_cases.c
# cross-compiled and run under qemu-aarch64 (skips without them).
TESTS += tests/icrc-arm64.sh
EXTRA_DIST += tests/icrc-arm64.sh tests/icrc_arm64.c
# How the Python tests read the JSON records of the programs: by the
# schema docs/rtel-records.schema.json (tests/json checks the schema);
# what the check scripts share (ok, fail, the main of one named check).
EXTRA_DIST += tests/rtel_records.py tests/checklib.py

# Manual pages (man/): lint, and one page per public name.
TESTS += tests/check-man.sh
EXTRA_DIST += tests/check-man.sh

# lib/ builds freestanding (-DRTEL_FREESTANDING) and needs no libc beyond
# memcpy, memset, memcmp and memmove (HACKING.md); CC and NM: tests/meta.mk.
TESTS += tests/check-freestanding.sh
EXTRA_DIST += tests/check-freestanding.sh
AM_TESTS_ENVIRONMENT += OBJDUMP='$(OBJDUMP)'; export OBJDUMP;
