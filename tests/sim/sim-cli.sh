#!/bin/sh
# tests/sim/sim-cli.sh - command line: scenario list, help, and bad options
# (one-line error on stderr, exit status 2, no output files).
RTEL_SIM=${RTEL_SIM:-./examples/rtel-sim/rtel-sim}
[ -x "$RTEL_SIM" ] || { echo "rtel-sim not built: $RTEL_SIM" >&2; exit 99; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rtel-sim-cli.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0

"$RTEL_SIM" --list-scenarios >"$tmp/list" 2>&1 || { echo "FAIL: --list-scenarios exit status"; fail=1; }
for s in rdma-clean rdma-loss-before rdma-loss-after rdma-rnr rdma-timeout rdma-psn-wrap rdma-ecn \
         rdma-no-cm rdma-many-qps rdma-truncated rdma-flood nvme-read nvme-write nvme-incapsule \
         nvme-flush nvme-qd32 nvme-send-inv nvme-errors nvme-multipacket nvme-retx nvme-lost-rsp \
         nvme-midstream nvme-two-obs mixed sample; do
  grep -q "^$s " "$tmp/list" || { echo "FAIL: scenario $s not listed"; fail=1; }
done
"$RTEL_SIM" --help >"$tmp/help" 2>&1 || { echo "FAIL: --help exit status"; fail=1; }
grep -q "usage: rtel-sim" "$tmp/help" || { echo "FAIL: --help text"; fail=1; }

bad() {
  "$RTEL_SIM" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ $rc -ne 2 ]; then
    echo "FAIL: '$*' exited $rc, expected 2"; fail=1; return
  fi
  if [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q '^rtel-sim: ' "$tmp/err"; then
    echo "FAIL: '$*' did not print exactly one 'rtel-sim: ' line:"; cat "$tmp/err"; fail=1
  fi
  if [ -s "$tmp/out" ]; then
    echo "FAIL: '$*' wrote to stdout"; fail=1
  fi
  if [ -e "$tmp/o" ]; then
    echo "FAIL: '$*' created its output directory"; fail=1; rm -rf "$tmp/o"
  fi
}
bad --scenario no-such-scenario --out "$tmp/o"
bad --bogus --out "$tmp/o"
bad --seed --out "$tmp/o"
bad --seed x12 --out "$tmp/o"
bad --scenario sample
bad --scenario sample --out "$tmp/o" --loss 1.5
bad --scenario sample --out "$tmp/o" --pmtu 1000
bad --scenario sample --out "$tmp/o" --qd 0
bad --scenario sample --out "$tmp/o" --qd 129
bad --scenario sample --out "$tmp/o" --obs h0,x1
bad --scenario sample --out "$tmp/o" --obs h9
bad --scenario sample --out "$tmp/o" --obs h0,h0
bad --scenario sample --out "$tmp/o" --erspan 1
bad --scenario sample --out "$tmp/o" --snaplen 20
bad --scenario sample --out "$tmp/o" --trunc sometimes
bad --scenario sample --out "$tmp/o" --mix 50,50,50
bad --scenario sample --out "$tmp/o" --io-size 1000
bad --scenario sample --out "$tmp/o" --host-prep weibull:3
bad --scenario sample --out "$tmp/o" --storage-read uniform:5us:1us
bad --scenario sample --out "$tmp/o" --link-delay 3furlongs
bad --scenario sample --out "$tmp/o" --workload ring --gpu-hosts 1
bad --scenario sample --out "$tmp/o" --ipv6=yes
bad --scenario sample --out "$tmp/o" positional

# options on the command line override the scenario's
"$RTEL_SIM" --scenario sample --seed 3 --out "$tmp/ok" --ios 4 --obs h0@5us >"$tmp/out" 2>&1 || { echo "FAIL: good run"; cat "$tmp/out"; fail=1; }
grep -q '"offset_ns":5000' "$tmp/ok/truth.jsonl" || { echo "FAIL: --obs offset not applied"; fail=1; }
[ -f "$tmp/ok/h0.pcap" ] || { echo "FAIL: no h0.pcap"; fail=1; }
exit $fail
