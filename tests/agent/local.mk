# SPDX-License-Identifier: MIT
# tests/agent/local.mk - tests of the switch agent example (its program:
# examples/local.mk). See HACKING.md; included from the top-level
# Makefile.am, appends only.
#
# The tests (tests/agent/*.test) need python3 and, for their inputs, the
# simulator $(RTEL_SIM) or else the captures in $(top_srcdir)/../shared/
# captures; they exit 77 (skip) when neither is there.
if HAVE_PCAP
TESTS += \
	tests/agent/agent-usage.test \
	tests/agent/agent-poll.test \
	tests/agent/agent-alarm.test \
	tests/agent/agent-full.test
endif

EXTRA_DIST += \
	tests/agent/common.sh \
	tests/agent/check_agent.py \
	tests/agent/agent-usage.test \
	tests/agent/agent-poll.test \
	tests/agent/agent-alarm.test \
	tests/agent/agent-full.test
