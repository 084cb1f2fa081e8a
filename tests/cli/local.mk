# SPDX-License-Identifier: MIT
# tests/cli/local.mk - command-line tests of rtel-analyze (issue 15:
# usability; its page: man/rtel-analyze.1). See HACKING.md; included from
# the top-level Makefile.am, appends only.
#
# tests/cli/check_cli.py (python3, standard library) runs rtel-analyze on
# captures that rtel-sim makes at test time and compares its output, exit
# status and standard error: ios (text op and status names), numeric
# (option values), units (durations, alarm units), errors (wording of file
# errors, hints), overflow (flow table evictions), aeth (AETH names in
# --packets), text (units and alignment of the tables), summary (periods and
# flush rows), stats (counters per file), roles (point names and roles),
# slots (polling slot lines), stdin ('-', lines flushed on a pipe). Each
# exits 77 (skip) without python3, rtel-analyze or rtel-sim.
if HAVE_PCAP
TESTS += \
	tests/cli/cli-ios.test \
	tests/cli/cli-numeric.test \
	tests/cli/cli-units.test \
	tests/cli/cli-errors.test \
	tests/cli/cli-overflow.test \
	tests/cli/cli-aeth.test \
	tests/cli/cli-text.test \
	tests/cli/cli-summary.test \
	tests/cli/cli-stats.test \
	tests/cli/cli-roles.test \
	tests/cli/cli-slots.test \
	tests/cli/cli-stdin.test
endif

EXTRA_DIST += \
	tests/cli/check_cli.py \
	tests/cli/cli-ios.test \
	tests/cli/cli-numeric.test \
	tests/cli/cli-units.test \
	tests/cli/cli-errors.test \
	tests/cli/cli-overflow.test \
	tests/cli/cli-aeth.test \
	tests/cli/cli-text.test \
	tests/cli/cli-summary.test \
	tests/cli/cli-stats.test \
	tests/cli/cli-roles.test \
	tests/cli/cli-slots.test \
	tests/cli/cli-stdin.test
