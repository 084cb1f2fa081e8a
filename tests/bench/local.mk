# SPDX-License-Identifier: MIT
# tests/bench/local.mk - throughput and memory benchmarks (see HACKING.md and
# tests/bench/README.md). Not installed, not part of make check: built and
# run by `make bench` (bench_decode's rule is in examples/local.mk; this
# fragment adds its own prerequisites to that target).
#
#   make bench                  bench_flow, bench_nvme, then bench_decode
#   make bench-flow             flow table: 10^3 and 10^6 concurrent flows
#   make bench-nvme             NVMe-oF correlator: 64 and 4096 queues
#   make bench BENCH_SECONDS=3  longer timed runs (CPU seconds per case)
EXTRA_PROGRAMS += tests/bench/bench_flow tests/bench/bench_nvme

tests_bench_bench_flow_SOURCES = tests/bench/bench_flow.c \
	tests/bench/bench_util.c tests/bench/bench_util.h
tests_bench_bench_flow_CFLAGS = -std=c11 -O2 $(EXTRA_WARN_CFLAGS)
tests_bench_bench_flow_LDADD = lib/librocetel.la

tests_bench_bench_nvme_SOURCES = tests/bench/bench_nvme.c \
	tests/bench/bench_util.c tests/bench/bench_util.h
tests_bench_bench_nvme_CFLAGS = -std=c11 -O2 $(EXTRA_WARN_CFLAGS)
tests_bench_bench_nvme_LDADD = lib/librocetel.la

EXTRA_DIST += tests/bench/README.md

.PHONY: bench-flow bench-nvme bench-flow-nvme
bench-flow: tests/bench/bench_flow$(EXEEXT)
	$(LIBTOOL) --mode=execute $(builddir)/tests/bench/bench_flow$(EXEEXT) $(BENCH_SECONDS)

bench-nvme: tests/bench/bench_nvme$(EXEEXT)
	$(LIBTOOL) --mode=execute $(builddir)/tests/bench/bench_nvme$(EXEEXT) $(BENCH_SECONDS)

# One recipe runs both, one after the other, so that `make -j2 bench` never
# times two benchmarks at once nor while bench_decode is still compiling.
# A target's recipe is defined once (bench's is in examples/local.mk);
# prerequisites may be added here.
bench-flow-nvme: tests/bench/bench_decode$(EXEEXT) \
		tests/bench/bench_flow$(EXEEXT) tests/bench/bench_nvme$(EXEEXT)
	$(LIBTOOL) --mode=execute $(builddir)/tests/bench/bench_flow$(EXEEXT) $(BENCH_SECONDS)
	$(LIBTOOL) --mode=execute $(builddir)/tests/bench/bench_nvme$(EXEEXT) $(BENCH_SECONDS)

bench: bench-flow-nvme
