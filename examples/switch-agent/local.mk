# SPDX-License-Identifier: MIT
# examples/switch-agent/local.mk - the switch agent example and its tests
# (see HACKING.md; included from the top-level Makefile.am, appends only).
#
# The program is examples/switch-agent/switch-agent, built from
# examples/switch-agent.c: a program examples/switch-agent would collide
# with this directory in an in-tree build.
#
# The tests (tests/agent/*.test) need python3 and, for their inputs, the
# simulator $(RTEL_SIM) or else the captures in $(top_srcdir)/../shared/
# captures; they exit 77 (skip) when neither is there.
if HAVE_PCAP
noinst_PROGRAMS += examples/switch-agent/switch-agent
examples_switch_agent_switch_agent_SOURCES = examples/switch-agent.c
examples_switch_agent_switch_agent_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS) \
	$(PCAP_CFLAGS) -DRTEL_NO_DEPRECATED
examples_switch_agent_switch_agent_LDADD = lib/librocetel.la $(PCAP_LIBS)

TESTS += \
	tests/agent/agent-usage.test \
	tests/agent/agent-poll.test \
	tests/agent/agent-alarm.test \
	tests/agent/agent-full.test
endif

EXTRA_DIST += \
	examples/switch-agent/local.mk \
	tests/agent/common.sh \
	tests/agent/check_agent.py \
	tests/agent/agent-usage.test \
	tests/agent/agent-poll.test \
	tests/agent/agent-alarm.test \
	tests/agent/agent-full.test
