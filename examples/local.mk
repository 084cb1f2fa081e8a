# examples/local.mk - programs around the library (see HACKING.md): the
# files of examples/ itself (rtel-sim/ has its own fragment; the tests of
# these programs are wired in tests/agent/local.mk, tests/diff/local.mk ...).
EXTRA_DIST += examples/demo.sh examples/data/sample.pcap examples/data/README.md \
	examples/rtel-collect.service

# Where the tests find rtel-analyze (set even when it is not built: the
# tests that need it skip then).
AM_TESTS_ENVIRONMENT += \
	RTEL_ANALYZE='$(abs_top_builddir)/examples/rtel-analyze'; export RTEL_ANALYZE; \
	RTEL_COLLECT='$(abs_top_builddir)/examples/rtel-collect'; export RTEL_COLLECT;

if HAVE_PCAP
bin_PROGRAMS += examples/rtel-analyze
# Capture files are read by examples/capfile.c (pcap and pcapng, any
# interfaces); libpcap names the link types in its messages.
# --report (examples/rtel-report.c: the HTML report, inline SVG drawn with
# <math.h>, hence -lm). Its tests: tests/report/local.mk.
examples_rtel_analyze_SOURCES = examples/rtel-analyze.c \
	examples/capfile.c examples/capfile.h \
	examples/ipfix-export.c examples/ipfix-export.h \
	examples/rtel-json.c examples/rtel-json.h examples/pcap-input.h \
	examples/rtel-report.c examples/rtel-report.h \
	examples/table-mem.c examples/table-mem.h
examples_rtel_analyze_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS) $(PCAP_CFLAGS) -DRTEL_NO_DEPRECATED
examples_rtel_analyze_LDADD = lib/librocetel.la $(PCAP_LIBS) -lm

# rtel-collect: the long-running collector, one context per worker
# thread (rtel-collect(8)); its unit file for systemd. Tests:
# tests/collect/local.mk.
bin_PROGRAMS += examples/rtel-collect
# --metrics (Prometheus, examples/collect-metrics.c) needs libmicrohttpd
# (HAVE_MHD): without it the program is built and rejects the option.
examples_rtel_collect_SOURCES = examples/rtel-collect.c \
	examples/capfile.c examples/capfile.h \
	examples/collect-metrics.c examples/collect-metrics.h \
	examples/ipfix-export.c examples/ipfix-export.h \
	examples/rtel-json.c examples/rtel-json.h examples/pcap-input.h \
	examples/table-mem.c examples/table-mem.h
examples_rtel_collect_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS) $(PCAP_CFLAGS) \
	-DRTEL_NO_DEPRECATED -pthread
examples_rtel_collect_LDADD = lib/librocetel.la $(PCAP_LIBS) -lpthread
if HAVE_MHD
examples_rtel_collect_CFLAGS += -DRTEL_COLLECT_MHD=1 $(MHD_CFLAGS)
examples_rtel_collect_LDADD += $(MHD_LIBS)
endif

# The switch agent, how a switch vendor embeds the library. The program is
# examples/switch-agent/switch-agent, built from examples/switch-agent.c: a
# program examples/switch-agent would collide with that directory in an
# in-tree build. Its tests: tests/agent/local.mk.
noinst_PROGRAMS += examples/switch-agent/switch-agent
examples_switch_agent_switch_agent_SOURCES = examples/switch-agent.c \
	examples/rtel-json.c examples/rtel-json.h \
	examples/capfile.c examples/capfile.h examples/pcap-input.h
examples_switch_agent_switch_agent_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS) \
	$(PCAP_CFLAGS) -DRTEL_NO_DEPRECATED
examples_switch_agent_switch_agent_LDADD = lib/librocetel.la $(PCAP_LIBS)
endif

# ---------------------------------------------------------------- minimal
# examples/minimal: the library in one page, packets written by hand (no
# libpcap); examples/minimal.test checks what it prints.
check_PROGRAMS += examples/minimal
examples_minimal_SOURCES = examples/minimal.c
examples_minimal_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS) -DRTEL_NO_DEPRECATED
examples_minimal_LDADD = lib/librocetel.la
TESTS += examples/minimal.test
EXTRA_DIST += examples/minimal.test
