# examples/local.mk - programs around the library (see HACKING.md)
EXTRA_DIST += examples/demo.sh examples/data/sample.pcap examples/data/README.md
if HAVE_PCAP
bin_PROGRAMS += examples/rtel-analyze
examples_rtel_analyze_SOURCES = examples/rtel-analyze.c
examples_rtel_analyze_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS) $(PCAP_CFLAGS) -DRTEL_NO_DEPRECATED
examples_rtel_analyze_LDADD = lib/librocetel.la $(PCAP_LIBS)
endif

# ---------------------------------------------------------------- make bench
EXTRA_PROGRAMS = tests/bench/bench_decode
tests_bench_bench_decode_SOURCES = tests/bench/bench_decode.c
tests_bench_bench_decode_CFLAGS = -std=c11 -O2 $(EXTRA_WARN_CFLAGS)
tests_bench_bench_decode_LDADD = lib/librocetel.la
CLEANFILES += $(EXTRA_PROGRAMS)

.PHONY: bench
bench: tests/bench/bench_decode$(EXEEXT)
	$(LIBTOOL) --mode=execute $(builddir)/tests/bench/bench_decode$(EXEEXT) $(BENCH_SECONDS)

# ---------------------------------------------------------------- minimal
# examples/minimal: the library in one page, packets written by hand (no
# libpcap); examples/minimal.test checks what it prints.
check_PROGRAMS += examples/minimal
examples_minimal_SOURCES = examples/minimal.c
examples_minimal_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS) -DRTEL_NO_DEPRECATED
examples_minimal_LDADD = lib/librocetel.la
TESTS += examples/minimal.test
EXTRA_DIST += examples/minimal.test
