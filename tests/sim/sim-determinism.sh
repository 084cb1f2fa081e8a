#!/bin/sh
# tests/sim/sim-determinism.sh - same scenario and seed give identical bytes;
# another seed gives different ones.
RTEL_SIM=${RTEL_SIM:-./examples/rtel-sim/rtel-sim}
[ -x "$RTEL_SIM" ] || { echo "rtel-sim not built: $RTEL_SIM" >&2; exit 99; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rtel-sim-det.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
for spec in "sample" "mixed --ios 150" "nvme-retx --ios 100" "rdma-ecn --dup-rate 0.02" \
            "rdma-erspan2" "rdma-ipv6-vlan" "nvme-lost-rsp --ios 60"; do
  set -- $spec
  name=$1; shift
  "$RTEL_SIM" --scenario "$name" --seed 42 --out "$tmp/run" "$@" >/dev/null || { echo "FAIL: $name run 1"; exit 1; }
  mv "$tmp/run" "$tmp/a"
  "$RTEL_SIM" --scenario "$name" --seed 42 --out "$tmp/run" "$@" >/dev/null || { echo "FAIL: $name run 2"; exit 1; }
  mv "$tmp/run" "$tmp/b"
  "$RTEL_SIM" --scenario "$name" --seed 43 --out "$tmp/run" "$@" >/dev/null || { echo "FAIL: $name run 3"; exit 1; }
  mv "$tmp/run" "$tmp/c"
  n=0
  for f in "$tmp/a"/*; do
    b=$(basename "$f")
    if ! cmp -s "$f" "$tmp/b/$b"; then
      echo "FAIL: $name: $b differs between two runs with the same seed"
      fail=1
    fi
    cmp -s "$f" "$tmp/c/$b" || n=$((n + 1))
    [ -s "$f" ] || { echo "FAIL: $name: $b is empty"; fail=1; }
  done
  if [ "$n" -eq 0 ]; then
    echo "FAIL: $name: seeds 42 and 43 gave identical output"
    fail=1
  fi
  echo "ok $name $*"
  rm -rf "$tmp/a" "$tmp/b" "$tmp/c"
done
exit $fail
