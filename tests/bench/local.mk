# SPDX-License-Identifier: MIT
# tests/bench/local.mk - throughput and memory benchmarks (see HACKING.md and
# tests/bench/README.md). Not installed, not part of make check: built and
# run by `make bench`.
#
#   make bench                  bench_flow, bench_nvme, then bench_decode
#   make bench-flow             flow table: 10^3 and 10^6 concurrent flows
#   make bench-nvme             NVMe-oF correlator: 64 and 4096 queues
#   make bench BENCH_SECONDS=3  longer timed runs (CPU seconds per case)
#   make bench-collect          rtel-collect with 1 and 2 workers
#   make bench-analyze          rtel-analyze against bare libpcap and
#                               capfile loops over the same capture
#
# All three share bench_util.[ch] (timing, burst loop, result lines,
# counting allocator, byte writers).
EXTRA_PROGRAMS += tests/bench/bench_decode tests/bench/bench_flow \
	tests/bench/bench_nvme
# automake cleans no EXTRA_PROGRAMS by itself
CLEANFILES += tests/bench/bench_decode$(EXEEXT) tests/bench/bench_flow$(EXEEXT) \
	tests/bench/bench_nvme$(EXEEXT)

tests_bench_bench_decode_SOURCES = tests/bench/bench_decode.c \
	tests/bench/bench_util.c tests/bench/bench_util.h
# the internal decoder, to force each ICRC path: the convenience library
tests_bench_bench_decode_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/lib
tests_bench_bench_decode_CFLAGS = -std=c11 -O2 $(EXTRA_WARN_CFLAGS)
tests_bench_bench_decode_LDADD = lib/librocetel_core.la

tests_bench_bench_flow_SOURCES = tests/bench/bench_flow.c \
	tests/bench/bench_util.c tests/bench/bench_util.h
tests_bench_bench_flow_CFLAGS = -std=c11 -O2 $(EXTRA_WARN_CFLAGS)
tests_bench_bench_flow_LDADD = lib/librocetel.la

tests_bench_bench_nvme_SOURCES = tests/bench/bench_nvme.c \
	tests/bench/bench_util.c tests/bench/bench_util.h
tests_bench_bench_nvme_CFLAGS = -std=c11 -O2 $(EXTRA_WARN_CFLAGS)
tests_bench_bench_nvme_LDADD = lib/librocetel.la

EXTRA_DIST += tests/bench/README.md tests/bench/collect-scale.py \
	tests/bench/analyze-e2e.py tests/bench/ab.py

# make bench-collect: rtel-collect with 1 and 2 workers on a 1M-packet
# capture of 128-byte mirror copies (tests/bench/collect-scale.py).
.PHONY: bench-collect
bench-collect: examples/rtel-collect$(EXEEXT) examples/rtel-analyze$(EXEEXT) \
		examples/rtel-sim/rtel-sim$(EXEEXT)
	$(PYTHON3) $(srcdir)/tests/bench/collect-scale.py --build $(abs_top_builddir) \
		$(COLLECT_SCALE_ARGS)

# make bench-analyze: rtel-analyze --flows end to end on the same capture,
# beside bare loops over it with libpcap and with examples/capfile.c
# (tests/bench/bench_pcaploop.c; tests/bench/analyze-e2e.py). Everything
# there reads capture files: only with libpcap.
.PHONY: bench-analyze
if HAVE_PCAP
EXTRA_PROGRAMS += tests/bench/bench_pcaploop
CLEANFILES += tests/bench/bench_pcaploop$(EXEEXT)
tests_bench_bench_pcaploop_SOURCES = tests/bench/bench_pcaploop.c \
	examples/capfile.c examples/capfile.h
tests_bench_bench_pcaploop_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/examples
tests_bench_bench_pcaploop_CFLAGS = -std=c11 -O2 $(EXTRA_WARN_CFLAGS) \
	$(PCAP_CFLAGS)
tests_bench_bench_pcaploop_LDADD = $(PCAP_LIBS)

bench-analyze: examples/rtel-analyze$(EXEEXT) \
		examples/rtel-sim/rtel-sim$(EXEEXT) \
		tests/bench/bench_pcaploop$(EXEEXT)
	$(PYTHON3) $(srcdir)/tests/bench/analyze-e2e.py --build $(abs_top_builddir) \
		$(ANALYZE_E2E_ARGS)
else
bench-analyze:
	@echo "bench-analyze: needs libpcap (rtel-analyze, bench_pcaploop)" >&2; \
	exit 1
endif

.PHONY: bench bench-flow bench-nvme
bench-flow: tests/bench/bench_flow$(EXEEXT)
	$(LIBTOOL) --mode=execute $(builddir)/tests/bench/bench_flow$(EXEEXT) $(BENCH_SECONDS)

bench-nvme: tests/bench/bench_nvme$(EXEEXT)
	$(LIBTOOL) --mode=execute $(builddir)/tests/bench/bench_nvme$(EXEEXT) $(BENCH_SECONDS)

# One recipe builds first and then runs the three one after the other, so
# that `make -j2 bench` never times two benchmarks at once nor while one is
# still compiling.
bench: tests/bench/bench_decode$(EXEEXT) tests/bench/bench_flow$(EXEEXT) \
		tests/bench/bench_nvme$(EXEEXT)
	$(LIBTOOL) --mode=execute $(builddir)/tests/bench/bench_flow$(EXEEXT) $(BENCH_SECONDS)
	$(LIBTOOL) --mode=execute $(builddir)/tests/bench/bench_nvme$(EXEEXT) $(BENCH_SECONDS)
	$(LIBTOOL) --mode=execute $(builddir)/tests/bench/bench_decode$(EXEEXT) $(BENCH_SECONDS)
