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

# The simulated switch's inputs: hosts h0, h2, h4, h6 of an 8-host GPU ring
# (with NVMe-oF from h0) on ports 1-4. Each packet passes one of these
# ports only: one flow table per switch would merge the copies of a
# packet seen on two ports. Sets $d (the directory), $in and $map.
sim_switch() {
    echo "inputs: rtel-sim scenario mixed, 8 hosts, h0 h2 h4 h6 on ports 1-4"
    sim switch --scenario mixed --seed 11 --hosts 8 --gpu-hosts 8 \
        --obs h0,h2,h4,h6 --no-packet-truth
    d=$tmp/switch
    in="1=$d/h0.pcap 2=$d/h2.pcap 3=$d/h4.pcap 4=$d/h6.pcap"
    map=h0=1,h2=2,h4=3,h6=4
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
