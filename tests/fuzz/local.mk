# SPDX-License-Identifier: MIT
# tests/fuzz: the fuzz harnesses (see HACKING.md: fragments only append to
# shared variables).
#
#  - tests/fuzz/fuzz_main: the decoder harness (fuzz_decode.c) with a plain
#    replay driver, built with the normal compiler; replays tests/fuzz/corpus/
#    with truncation and option sweeps in every `make check`.
#  - tests/fuzz/fuzz_seq_main: the sequence harness (fuzz_seq.c: packet
#    sequences, timers, schedules, with invariants) with the same driver
#    (-DFUZZ_SEQ) and the test packet builder; replays tests/fuzz/corpus-seq/
#    with its prefixes and flag variants.
#  - tests/fuzz/fuzz_ipfix_main: the IPFIX encoder harness (fuzz_ipfix.c:
#    random records in, every message read back by tests/ipfix/ipfix_read.c
#    and compared field by field) with the same driver (-DFUZZ_IPFIX);
#    replays tests/fuzz/corpus-ipfix/.
#  - tests/fuzz/fuzz_capfile_main: the capture file reader of the examples
#    (fuzz_capfile.c on examples/capfile.c: every packet's bytes are the
#    file's at its offset) with the same driver (-DFUZZ_CAPFILE); replays
#    tests/fuzz/corpus-capfile/ with every prefix and byte extreme.
#  - tests/fuzz/run-fuzz.sh: libFuzzer + ASan + UBSan builds of all four with
#    clang straight from lib/*.c, sanitizer replay of the corpora, then
#    FUZZ_SECONDS (60) of fuzzing each; skips (77) without a working clang.
#    `make fuzz` runs it alone (FUZZ_SECONDS, FUZZ_JOBS, FUZZ_HARNESS).
#  - tests/fuzz/gen-corpus.py and gen-seq-corpus.py (from rtel-sim scenarios)
#    regenerate the seed corpora (`make fuzz-corpus`).

check_PROGRAMS += tests/fuzz/fuzz_main
tests_fuzz_fuzz_main_SOURCES = tests/fuzz/fuzz_main.c tests/fuzz/fuzz_decode.c
tests_fuzz_fuzz_main_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS)
tests_fuzz_fuzz_main_LDADD = lib/librocetel.la

check_PROGRAMS += tests/fuzz/fuzz_seq_main
tests_fuzz_fuzz_seq_main_SOURCES = tests/fuzz/fuzz_main.c tests/fuzz/fuzz_seq.c \
	tests/rtel_test_pkt.c tests/rtel_test_nvme.c tests/rtel_test_util.h
# (the internal library: the shadow context's burst path is forced on,
# through lib/rtel_ctx.h, for tables of any size)
tests_fuzz_fuzz_seq_main_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_SEQ -DTU_NO_CHECK \
	-I$(top_srcdir)/tests -I$(top_srcdir)/lib
tests_fuzz_fuzz_seq_main_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS)
tests_fuzz_fuzz_seq_main_LDADD = lib/librocetel_core.la

check_PROGRAMS += tests/fuzz/fuzz_ipfix_main
tests_fuzz_fuzz_ipfix_main_SOURCES = tests/fuzz/fuzz_main.c \
	tests/fuzz/fuzz_ipfix.c tests/ipfix/ipfix_read.c tests/ipfix/ipfix_read.h \
	tests/ipfix/ipfix_expect.c tests/ipfix/ipfix_expect.h
tests_fuzz_fuzz_ipfix_main_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_IPFIX \
	-I$(top_srcdir)/tests
tests_fuzz_fuzz_ipfix_main_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS)
tests_fuzz_fuzz_ipfix_main_LDADD = lib/librocetel.la -lm

check_PROGRAMS += tests/fuzz/fuzz_capfile_main
tests_fuzz_fuzz_capfile_main_SOURCES = tests/fuzz/fuzz_main.c \
	tests/fuzz/fuzz_capfile.c examples/capfile.c examples/capfile.h
tests_fuzz_fuzz_capfile_main_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_CAPFILE \
	-I$(top_srcdir)/examples
tests_fuzz_fuzz_capfile_main_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS)

TESTS += tests/fuzz/fuzz_main tests/fuzz/fuzz_seq_main \
	tests/fuzz/fuzz_ipfix_main tests/fuzz/fuzz_capfile_main \
	tests/fuzz/run-fuzz.sh
# $(CLANG) is empty until configure.ac defines it; run-fuzz.sh then probes.
AM_TESTS_ENVIRONMENT += CLANG='$(CLANG)'; export CLANG;

EXTRA_DIST += tests/fuzz/run-fuzz.sh tests/fuzz/gen-corpus.py tests/fuzz/corpus \
	tests/fuzz/gen-seq-corpus.py tests/fuzz/corpus-seq \
	tests/fuzz/gen-ipfix-corpus.py tests/fuzz/corpus-ipfix \
	tests/fuzz/gen-capfile-corpus.py tests/fuzz/corpus-capfile

CLEANFILES += tests/fuzz/fuzz_decode_libfuzzer tests/fuzz/fuzz_replay_asan \
	tests/fuzz/fuzz_seq_libfuzzer tests/fuzz/fuzz_seq_replay_asan \
	tests/fuzz/fuzz_ipfix_libfuzzer tests/fuzz/fuzz_ipfix_replay_asan \
	tests/fuzz/fuzz-ipfix-* \
	tests/fuzz/fuzz_capfile_libfuzzer tests/fuzz/fuzz_capfile_replay_asan \
	tests/fuzz/fuzz-capfile-* \
	tests/fuzz/fuzz-*-last.log tests/fuzz/fuzz-seq-* \
	tests/fuzz/fuzz-crash-* tests/fuzz/fuzz-leak-* \
	tests/fuzz/fuzz-timeout-* tests/fuzz/fuzz-oom-* tests/fuzz/fuzz-slow-unit-*

# make fuzz [FUZZ_SECONDS=N] [FUZZ_JOBS=N]
#   [FUZZ_HARNESS=decode|seq|ipfix|capfile|all]
.PHONY: fuzz fuzz-corpus
fuzz: lib/librocetel.la
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	  CLANG='$(CLANG)' FUZZ_SECONDS='$(FUZZ_SECONDS)' FUZZ_JOBS='$(FUZZ_JOBS)' \
	  FUZZ_HARNESS='$(FUZZ_HARNESS)' $(SHELL) $(srcdir)/tests/fuzz/run-fuzz.sh

fuzz-corpus: examples/rtel-sim/rtel-sim$(EXEEXT)
	$(PYTHON3) $(srcdir)/tests/fuzz/gen-corpus.py $(srcdir)/tests/fuzz/corpus
	$(PYTHON3) $(srcdir)/tests/fuzz/gen-seq-corpus.py \
	  examples/rtel-sim/rtel-sim$(EXEEXT) $(srcdir)/tests/fuzz/corpus-seq
	$(PYTHON3) $(srcdir)/tests/fuzz/gen-ipfix-corpus.py \
	  $(srcdir)/tests/fuzz/corpus-ipfix
	$(PYTHON3) $(srcdir)/tests/fuzz/gen-capfile-corpus.py \
	  $(srcdir)/tests/fuzz/corpus-capfile
