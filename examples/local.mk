# examples/local.mk - programs around the library (see HACKING.md): the
# files of examples/ itself (rtel-sim/ has its own fragment; the tests of
# these programs are wired in tests/agent/local.mk, tests/diff/local.mk ...).
EXTRA_DIST += examples/demo.sh examples/data/sample.pcap examples/data/README.md

# Where the tests find rtel-analyze (set even when it is not built: the
# tests that need it skip then).
AM_TESTS_ENVIRONMENT += \
	RTEL_ANALYZE='$(abs_top_builddir)/examples/rtel-analyze'; export RTEL_ANALYZE;

if HAVE_PCAP
bin_PROGRAMS += examples/rtel-analyze
examples_rtel_analyze_SOURCES = examples/rtel-analyze.c \
	examples/ipfix-export.c examples/ipfix-export.h
examples_rtel_analyze_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS) $(PCAP_CFLAGS) -DRTEL_NO_DEPRECATED
examples_rtel_analyze_LDADD = lib/librocetel.la $(PCAP_LIBS)

# The switch agent, how a switch vendor embeds the library. The program is
# examples/switch-agent/switch-agent, built from examples/switch-agent.c: a
# program examples/switch-agent would collide with that directory in an
# in-tree build. Its tests: tests/agent/local.mk.
noinst_PROGRAMS += examples/switch-agent/switch-agent
examples_switch_agent_switch_agent_SOURCES = examples/switch-agent.c
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
