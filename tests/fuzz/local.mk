# SPDX-License-Identifier: MIT
# tests/fuzz: fuzz harness of the packet decoder (see HACKING.md: fragments
# only append to shared variables).
#
#  - tests/fuzz/fuzz_main: the harness (fuzz_decode.c) with a plain replay
#    driver, built with the normal compiler; replays tests/fuzz/corpus/ with
#    truncation and option sweeps in every `make check`.
#  - tests/fuzz/run-fuzz.sh: libFuzzer + ASan + UBSan build with clang straight
#    from lib/*.c, sanitizer replay of the corpus, then FUZZ_SECONDS (60) of
#    fuzzing; skips (77) without a working clang. `make fuzz` runs it alone.
#  - tests/fuzz/gen-corpus.py regenerates the seed corpus (`make fuzz-corpus`).

check_PROGRAMS += tests/fuzz/fuzz_main
tests_fuzz_fuzz_main_SOURCES = tests/fuzz/fuzz_main.c tests/fuzz/fuzz_decode.c
tests_fuzz_fuzz_main_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS)
tests_fuzz_fuzz_main_LDADD = lib/librocetel.la

TESTS += tests/fuzz/fuzz_main tests/fuzz/run-fuzz.sh
# $(CLANG) is empty until configure.ac defines it; run-fuzz.sh then probes.
AM_TESTS_ENVIRONMENT += CLANG='$(CLANG)'; export CLANG;

EXTRA_DIST += tests/fuzz/run-fuzz.sh tests/fuzz/gen-corpus.py tests/fuzz/corpus

CLEANFILES += tests/fuzz/fuzz_decode_libfuzzer tests/fuzz/fuzz_replay_asan \
	tests/fuzz/fuzz-last.log tests/fuzz/fuzz-crash-* tests/fuzz/fuzz-leak-* \
	tests/fuzz/fuzz-timeout-* tests/fuzz/fuzz-oom-* tests/fuzz/fuzz-slow-unit-*

.PHONY: fuzz fuzz-corpus
fuzz: lib/librocetel.la
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	  CLANG='$(CLANG)' $(SHELL) $(srcdir)/tests/fuzz/run-fuzz.sh

fuzz-corpus:
	$(PYTHON3) $(srcdir)/tests/fuzz/gen-corpus.py $(srcdir)/tests/fuzz/corpus
