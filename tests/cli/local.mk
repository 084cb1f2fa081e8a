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
#
# tests/cli/check_pcapng.py: pcapng files of several interfaces (issue 15
# item 4, examples/capfile.c): merge (mergecap of two snap lengths against
# the two files, as two points and as one), linktypes (Ethernet, Linux
# cooked and 802.11 interfaces in one file), handbuilt (a pcapng written
# byte by byte: sections of both byte orders, if_tsresol, if_tsoffset,
# if_name, simple and obsolete packet blocks, against timestamps computed
# by hand), damage (every prefix, lying lengths). merge and linktypes skip
# (77) without mergecap.
CLI_TESTS = \
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
	tests/cli/cli-stdin.test \
	tests/cli/cli-pcapng-merge.test \
	tests/cli/cli-pcapng-linktypes.test \
	tests/cli/cli-pcapng-handbuilt.test \
	tests/cli/cli-pcapng-damage.test

if HAVE_PCAP
TESTS += $(CLI_TESTS)
endif

EXTRA_DIST += tests/cli/check_cli.py tests/cli/check_pcapng.py $(CLI_TESTS)

# tests/cli/compare-builds.sh OLD_BUILD NEW_BUILD WORKDIR: the output of the
# example programs of two builds byte for byte (every record kind, text and
# JSON, the options that change how records are printed, write errors);
# not in make check, as it needs two builds: for a change that must not
# move any output (the record writer, examples/rtel-json.c).
EXTRA_DIST += tests/cli/compare-builds.sh
