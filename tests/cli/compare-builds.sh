#!/bin/sh
# SPDX-License-Identifier: MIT
# compare-builds.sh OLD_BUILD NEW_BUILD WORKDIR [SET...]
#
# The output of two builds of the example programs, byte for byte: runs
# rtel-analyze (text and JSON, every record kind and the options that
# change how records are printed), rtel-collect --json and switch-agent
# (text and --json) of OLD_BUILD and of NEW_BUILD over the same captures
# and compares their standard output, standard error and exit status;
# then write errors (a full disk, a closed pipe with SIGPIPE ignored;
# python3).
# Not part of make check (it needs two builds): run it when a change must
# not move any output, e.g. a change of the record writer
# (examples/rtel-json.c) against a build of main:
#
#   git worktree add /tmp/main-src main && ... build it in /tmp/b-main
#   sh tests/cli/compare-builds.sh /tmp/b-main /tmp/b-mine /tmp/cmp
#
# A SET is one or more capture files separated by commas (read together
# as several observation points). Without SETs: every rtel-sim scenario
# (NEW_BUILD's rtel-sim, seed 3; rdma-flood with --qps 1000, nvme-qd32
# with --ios 1000 to keep them small), each scenario's files one set, and
# each of NEW_BUILD's tests/gen captures (make check makes them) alone.
# rtel-collect's lines are compared sorted (its slot thread and workers
# interleave by timing), and the decimals of its standard error (times)
# are left out. Prints every difference, then "N runs, M differ"; exits 1
# if any differ.
old=$1 new=$2 w=$3
if [ -z "$old" ] || [ -z "$new" ] || [ -z "$w" ]; then
  echo "usage: $0 OLD_BUILD NEW_BUILD WORKDIR [SET...]" >&2
  exit 2
fi
shift 3
mkdir -p "$w" || exit 2
A=examples/.libs/rtel-analyze
C=examples/.libs/rtel-collect
S=examples/switch-agent/.libs/switch-agent
for b in "$old" "$new"; do
  if [ ! -x "$b/$A" ]; then
    echo "$0: no $b/$A (a libpcap build with its programs made)" >&2
    exit 2
  fi
done

if [ $# -eq 0 ]; then
  sim=$new/examples/rtel-sim/rtel-sim
  for s in $(LD_LIBRARY_PATH=$new/lib/.libs "$sim" --list-scenarios |
    awk '/^[a-z]/ {print $1}'); do
    extra=""
    [ "$s" = rdma-flood ] && extra="--qps 1000"
    [ "$s" = nvme-qd32 ] && extra="--ios 1000"
    if [ ! -d "$w/sim/$s" ]; then
      # shellcheck disable=SC2086
      LD_LIBRARY_PATH=$new/lib/.libs "$sim" --scenario "$s" --seed 3 \
        --out "$w/sim/$s" --no-packet-truth $extra >/dev/null ||
        { echo "$0: rtel-sim $s failed" >&2; exit 2; }
      rm -f "$w/sim/$s/truth.jsonl"
    fi
    set -- "$@" "$(ls "$w/sim/$s"/*.pcap | tr '\n' ',' | sed 's/,$//')"
  done
  for f in "$new"/tests/gen/captures/*.pcap; do
    [ -f "$f" ] || continue
    mkdir -p "$w/gen" && cp "$f" "$w/gen/" && set -- "$@" "$w/gen/${f##*/}"
  done
fi

n=0
bad=0
# run TAG PROGRAM ARGS...: both builds, then compare
run() {
  tag=$1 prog=$2
  shift 2
  for b in old new; do
    eval d=\$$b
    LD_LIBRARY_PATH=$d/lib/.libs "$d/$prog" "$@" >"$w/$b.out" \
      2>"$w/$b.err" </dev/null
    echo $? >"$w/$b.rc"
    case $tag in
    c-*)
      sort "$w/$b.out" >"$w/$b.sorted" && mv "$w/$b.sorted" "$w/$b.out"
      sed -E "s#$d/#BUILD/#g; s/[0-9]+\.[0-9]+/T/g" "$w/$b.err" \
        >"$w/$b.err2"
      ;;
    *) sed "s#$d/#BUILD/#g" "$w/$b.err" >"$w/$b.err2" ;;
    esac
  done
  n=$((n + 1))
  if ! cmp -s "$w/old.out" "$w/new.out" ||
    ! cmp -s "$w/old.err2" "$w/new.err2" ||
    ! cmp -s "$w/old.rc" "$w/new.rc"; then
    bad=$((bad + 1))
    echo "DIFF [$tag] $prog $*"
    diff "$w/old.out" "$w/new.out" | head -n 5
    diff "$w/old.err2" "$w/new.err2" | head -n 5
  fi
}

first=""
for set in "$@"; do
  files=$(echo "$set" | tr ',' ' ')
  [ -n "$first" ] || first=${files%% *}
  named=""
  ports=""
  rargs=""
  i=0
  for f in $files; do
    i=$((i + 1))
    named="$named p$i=$f"
    ports="$ports $i=$f"
    rargs="$rargs -r $f"
  done
  for fmt in text json; do
    for o in "--packets" "--packets --icrc" "--flows" "--messages" "--ios" \
      "--summary" "--summary --interval 100us" "--stats" \
      "--flows --messages --ios --summary --stats" \
      "--flows --max-flows 16 --flow-idle 10us" "--segments --ios" \
      "--poll 1/20us --flows" \
      "--alarm iol>10us --alarm fct>50us --alarm pair:retx_ratio>0.001 --alarm port:cnp_rate>1k --alarm fet<100G --flows" \
      "--no-flows --ios --summary"; do
      # shellcheck disable=SC2086
      run "a-$fmt" $A --format $fmt $o $files
      # shellcheck disable=SC2086
      [ "$i" -gt 1 ] && run "a-$fmt-named" $A --format $fmt $o $named
    done
    # shellcheck disable=SC2086
    run "a-$fmt-split" $A --format $fmt --split-interfaces --flows \
      --packets $files
  done
  # shellcheck disable=SC2086
  run c-json $C -j 1 $rargs --json - --flows --messages --ios --segments \
    --summary --stats
  # shellcheck disable=SC2086
  run c-json-poll $C -j 1 $rargs --json - --poll 1/20us --flows --ios
  for fmt in "" "--json"; do
    # shellcheck disable=SC2086
    run "s$fmt" $S $fmt --alarm 'iol>10us' --alarm 'fct>50us' $ports
    # shellcheck disable=SC2086
    run "s$fmt-poll" $S $fmt --poll 1/20us $ports
  done
done

# errors on output: a full disk; a closed pipe with SIGPIPE ignored
if [ -n "$first" ]; then
  for o in "--flows" "--flows --format json" "--packets" \
    "--packets --format json" "--stats"; do
    for b in old new; do
      eval d=\$$b
      # shellcheck disable=SC2086
      LD_LIBRARY_PATH=$d/lib/.libs "$d/$A" $o "$first" >/dev/full \
        2>"$w/$b.full"
      echo "rc $?" >>"$w/$b.full"
      # a pipe whose reader is gone before the first write, SIGPIPE
      # ignored: every write fails with EPIPE
      # shellcheck disable=SC2086
      LD_LIBRARY_PATH=$d/lib/.libs python3 -c '
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
with open(sys.argv[1], "w") as err:
    rc = subprocess.call(sys.argv[2:], stdout=w, stderr=err,
                         restore_signals=False)
with open(sys.argv[1], "a") as err:
    err.write("rc %d\n" % rc)
' "$w/$b.pipe" "$d/$A" $o "$first"
    done
    n=$((n + 2))
    cmp -s "$w/old.full" "$w/new.full" ||
      { bad=$((bad + 1)); echo "DIFF > /dev/full: $o"; }
    cmp -s "$w/old.pipe" "$w/new.pipe" ||
      { bad=$((bad + 1)); echo "DIFF | (EPIPE): $o"; }
  done
fi
echo "$n runs, $bad differ"
[ "$bad" -eq 0 ]
