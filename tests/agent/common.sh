# SPDX-License-Identifier: MIT
# tests/agent/common.sh - sourced by tests/agent/*.test.
#
# Environment (from AM_TESTS_ENVIRONMENT): top_srcdir, top_builddir,
# PYTHON3, RTEL_SIM, RTEL_ANALYZE. SWITCH_AGENT overrides the program.
# Inputs: captures from the simulator $RTEL_SIM when it is built, else the
# real captures in $top_srcdir/../shared/captures; skip (77) without both.

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$(pwd)}"
: "${PYTHON3:=python3}"
AGENT=${SWITCH_AGENT:-$top_builddir/examples/switch-agent/switch-agent}
CHECK="$top_srcdir/tests/agent/check_agent.py"
CAPTURES=$top_srcdir/../shared/captures

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

[ -x "$AGENT" ] || skip "$AGENT is not built"
"$PYTHON3" -c 'import json' 2>/dev/null || skip "no python3 ($PYTHON3)"

# A scratch directory, kept when a test fails so that its output can be read.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/switch-agent-test.XXXXXX") || exit 99
trap 'rc=$?; if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then rm -rf "$tmp";
      else echo "output kept in $tmp"; fi; exit $rc' EXIT

have_sim() { [ -n "${RTEL_SIM:-}" ] && [ -x "$RTEL_SIM" ]; }

# sim NAME ARGS...: runs the simulator into $tmp/NAME (ARGS: --scenario ...).
sim() {
    name=$1; shift
    "$RTEL_SIM" "$@" --out "$tmp/$name" >"$tmp/$name.log" 2>&1 ||
        fail "rtel-sim $* failed: $(tail -1 "$tmp/$name.log")"
}

# The real captures as inputs (PORT=FILE for ports 1, 2, ...) and their
# observation point names for rtel-analyze (NAME=PORT,...).
real_inputs() {
    [ -d "$CAPTURES" ] || skip "neither the simulator nor $CAPTURES"
    inputs= map= n=0
    for f in "$CAPTURES"/*.pcap; do
        [ -f "$f" ] || continue
        n=$((n + 1))
        inputs="$inputs $n=$f"
        b=$(basename "$f" .pcap)
        map="$map${map:+,}$b=$n"
    done
    [ $n -gt 0 ] || skip "no capture in $CAPTURES"
    nreal=$n
}

# run OUT ARGS...: the agent, JSON lines to OUT; fails on a non-zero exit.
run() {
    out=$1; shift
    "$AGENT" --json "$@" >"$out" 2>"$out.err" ||
        fail "switch-agent $* exited $?: $(head -1 "$out.err")"
}

# check WHAT OUT ARGS...: a property check of tests/agent/check_agent.py.
check() {
    echo "check $*"
    "$PYTHON3" "$CHECK" "$@" || fail "check $1 on $2"
}
