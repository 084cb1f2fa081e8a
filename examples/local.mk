# examples/local.mk - programs around the library (see HACKING.md)
EXTRA_DIST += examples/demo.sh examples/data/sample.pcap examples/data/README.md
if HAVE_PCAP
bin_PROGRAMS += examples/rtel-analyze
examples_rtel_analyze_SOURCES = examples/rtel-analyze.c
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

