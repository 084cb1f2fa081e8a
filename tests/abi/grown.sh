#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Records that can grow (issue 9). The library hands each application the
# struct version its callbacks version names (rtel_callbacks in rocetel.h):
# this test makes the next version of the header and checks both directions
# under AddressSanitizer (and UBSan where the compiler has it).
#
#  1. The grown header: a copy of include/rocetel/rocetel.h, made here from
#     the real one, where every struct the callbacks receive (rtel_pkt_hd,
#     rtel_ctx_stats, rtel_flow_record, rtel_msg_record, rtel_io_record,
#     rtel_segment_record, rtel_io_aggregate, rtel_slot_event, rtel_alarm)
#     ends with a new 8-byte field, grown_v2, and RTEL_CALLBACKS_VERSION and
#     each grown struct's *_VERSION name a new *_V2.
#  2. A capture: two observation points (h0 compute side, t0 storage side)
#     of GPU flows with loss and ECN and NVMe-oF I/Os, from rtel-sim.
#  3. Forward: tests/abi/consumer.c compiled against the grown header (a
#     newer application) and linked with today's library (the build's
#     lib/.libs/librocetel.so): the V2 versions must be refused
#     (RTEL_ERR_UNSUPPORTED_VERSION from rtel_ctx_new, rtel_ctx_get_stats,
#     rtel_pkt_decode, rtel_icrc_compute) with nothing written, V1 must
#     work and write nothing past V1.
#  4. Reverse: a future library, lib/*.c compiled here against the grown
#     header, and the consumer compiled against today's header (an older
#     application, callbacks V1), which copies each struct it receives
#     whole and reads every field: no sanitizer report, and its dump of
#     every V1 field of every record (on_packet, on_stats, on_flow,
#     on_message, on_io, on_segment, on_io_aggregate, on_slot, on_alarm and
#     the record behind each alarm, rtel_pkt_decode and rtel_icrc_compute,
#     rtel_ctx_get_stats) must equal the dump of the same consumer run with
#     today's library. The forward run's dump must equal it too.
#  5. Negative control: the reverse consumer built with -DREAD_PAST reads
#     one byte past the V1 size of the first flow record it receives; that
#     run must fail with an AddressSanitizer heap-buffer-overflow report,
#     or the checks above prove nothing.
#
# Environment: top_srcdir, top_builddir (set by make check; by hand they
# default to this script's tree and the current directory), CC (default
# cc), RTEL_SIM (default $top_builddir/examples/rtel-sim/rtel-sim).
# Exit: 0 pass, 1 fail, 77 skip (the compiler lacks -fsanitize=address),
# 99 setup error.

set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
if [ -z "${top_builddir:-}" ]; then
  if [ -f ./config.status ]; then top_builddir=$(pwd); else top_builddir=$top_srcdir; fi
fi
CC=${CC:-cc}
RTEL_SIM=${RTEL_SIM:-$top_builddir/examples/rtel-sim/rtel-sim}
header=$top_srcdir/include/rocetel/rocetel.h
consumer=$top_srcdir/tests/abi/consumer.c

skip() { echo "SKIP: $*"; exit 77; }
die() { echo "ERROR: $*" >&2; exit 99; }
fail() { echo "FAIL: $*"; exit 1; }

[ -f "$header" ] || die "no $header"
[ -f "$consumer" ] || die "no $consumer"
[ -f "$top_builddir/include/rocetel/rocetelver.h" ] ||
  die "no $top_builddir/include/rocetel/rocetelver.h (run configure)"
[ -x "$RTEL_SIM" ] || die "no simulator at $RTEL_SIM (make examples/rtel-sim/rtel-sim)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rtel-grown.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$tmp"' EXIT

# ------------------------------------------------------------ sanitizers
echo 'int main(void) { return 0; }' > "$tmp/probe.c"
# shellcheck disable=SC2086
$CC -fsanitize=address "$tmp/probe.c" -o "$tmp/probe" >/dev/null 2>&1 &&
  "$tmp/probe" || skip "$CC cannot build and run with -fsanitize=address"
san="-fsanitize=address -fno-omit-frame-pointer"
# shellcheck disable=SC2086
if $CC -fsanitize=address,undefined -fno-sanitize-recover=all "$tmp/probe.c" \
     -o "$tmp/probe" >/dev/null 2>&1 && "$tmp/probe"; then
  san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
else
  echo "note: $CC lacks -fsanitize=undefined; AddressSanitizer only"
fi
# Our own options, whatever the caller's (the ASan build of run-all.sh
# exports abort_on_error=1).
ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=0
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ASAN_OPTIONS UBSAN_OPTIONS
cflags="-std=c11 -g -O1"
today_inc="-I$top_builddir/include -I$top_srcdir/include"
grown_inc="-I$tmp/grown/include $today_inc"

# ------------------------------------------------------------ 1. grown header
mkdir -p "$tmp/grown/include/rocetel" || die "mkdir failed"
awk '
BEGIN {
  split("rtel_pkt_hd rtel_ctx_stats rtel_flow_record rtel_msg_record " \
        "rtel_io_record rtel_segment_record rtel_io_aggregate " \
        "rtel_slot_event rtel_alarm", s, " ")
  for (i in s) grow[s[i]] = 0
  split("RTEL_CALLBACKS RTEL_PKT_HD RTEL_CTX_STATS RTEL_FLOW_RECORD " \
        "RTEL_MSG_RECORD RTEL_IO_RECORD RTEL_SEGMENT_RECORD " \
        "RTEL_IO_AGGREGATE RTEL_SLOT_EVENT RTEL_ALARM", m, " ")
  for (i in m) bump[m[i]] = 0
}
/^} rtel_[a-z0-9_]*;[[:space:]]*$/ {
  name = $2
  sub(/;.*/, "", name)
  if (name in grow) {
    print "  /* added since V2 (tests/abi/grown.sh) */"
    print "  uint64_t grown_v2;"
    grow[name]++
  }
}
$1 == "#define" && $2 ~ /_VERSION$/ {
  p = $2
  sub(/_VERSION$/, "", p)
  if ((p in bump) && $3 == p "_V1" && NF == 3) {
    print "#define " p "_V2 2"
    print "#define " p "_VERSION " p "_V2"
    bump[p]++
    next
  }
}
{ print }
END {
  bad = 0
  for (n in grow) if (grow[n] != 1) { print "struct " n " grown " grow[n] " times" > "/dev/stderr"; bad = 1 }
  for (p in bump) if (bump[p] != 1) { print p "_VERSION bumped " bump[p] " times" > "/dev/stderr"; bad = 1 }
  exit bad
}' "$header" > "$tmp/grown/include/rocetel/rocetel.h" ||
  die "cannot grow $header (did its layout change? see the awk script)"

# Sanity: the grown structs are 8 bytes longer, V1 fields unmoved.
cat > "$tmp/sizes.c" <<'EOF'
#include <stdio.h>
#include <rocetel/rocetel.h>
int main(void) {
  printf("%zu %zu %zu %zu %zu %zu %zu %zu %zu %d\n", sizeof(rtel_pkt_hd),
         sizeof(rtel_ctx_stats), sizeof(rtel_flow_record),
         sizeof(rtel_msg_record), sizeof(rtel_io_record),
         sizeof(rtel_segment_record), sizeof(rtel_io_aggregate),
         sizeof(rtel_slot_event), sizeof(rtel_alarm), RTEL_CALLBACKS_VERSION);
  return 0;
}
EOF
# shellcheck disable=SC2086
$CC $cflags $today_inc "$tmp/sizes.c" -o "$tmp/sizes1" &&
  $CC $cflags $grown_inc "$tmp/sizes.c" -o "$tmp/sizes2" ||
  die "cannot compile against the headers"
v1=$("$tmp/sizes1") && v2=$("$tmp/sizes2") || die "sizes"
echo "V1 sizes and callbacks version: $v1"
echo "V2 sizes and callbacks version: $v2"
set -- $v1
for s2 in $v2; do
  if [ $# -eq 1 ]; then
    [ "$1" = 1 ] && [ "$s2" = 2 ] || die "callbacks versions $1, $s2"
  else
    [ "$s2" -eq $(($1 + 8)) ] || die "a grown struct is not 8 bytes longer ($1 -> $s2)"
  fi
  shift
done

# ------------------------------------------------------------ 2. capture
"$RTEL_SIM" --scenario sample --seed 1 --out "$tmp/cap" --obs h0,t0 \
  --loss 0.01 --ecn 0.05 --fecn --ios 24 --no-packet-truth > "$tmp/sim.out" 2>&1 ||
  { cat "$tmp/sim.out"; die "rtel-sim failed"; }
caps="$tmp/cap/h0.pcap $tmp/cap/t0.pcap"

# ------------------------------------------------------------ 3, 4. builds
# lib/*.c with the sanitizers against INCLUDES, into DIR/*.o
build_lib() { # DIR INCLUDES
  mkdir -p "$1" || return 1
  cpp="-DBUILDING_ROCETEL"
  [ -f "$top_builddir/config.h" ] && cpp="$cpp -DHAVE_CONFIG_H -I$top_builddir"
  for f in "$top_srcdir"/lib/*.c; do
    o=$1/$(basename "$f" .c).o
    # shellcheck disable=SC2086
    $CC $cflags $san $cpp $2 -I"$top_srcdir/lib" -c "$f" -o "$o" \
      >> "$1.log" 2>&1 || { cat "$1.log"; return 1; }
  done
}

so_dir=$top_builddir/lib/.libs
if [ -f "$so_dir/librocetel.so" ]; then
  today_lib="-L$so_dir -lrocetel -Wl,-rpath,$so_dir"
  echo "today's library: $so_dir/librocetel.so"
else
  build_lib "$tmp/today" "$today_inc" || die "cannot build today's library"
  today_lib="$tmp/today/*.o -lm"
  echo "today's library: lib/*.c against today's header (no shared library)"
fi
build_lib "$tmp/future" "$grown_inc" ||
  fail "lib/*.c does not compile against the grown header"
echo "future library: lib/*.c against the grown header, with $san"

link() { # OUT INCLUDES LIB [FLAGS...]
  o=$1 inc=$2 lib=$3
  shift 3
  # shellcheck disable=SC2086
  $CC $cflags -Wall -Wextra $san "$@" $inc "$consumer" $lib -o "$o" \
    > "$o.log" 2>&1 || { cat "$o.log"; die "cannot build $(basename "$o")"; }
}
link "$tmp/ref" "$today_inc" "$today_lib"
link "$tmp/fwd" "$grown_inc" "$today_lib"
link "$tmp/rev" "$today_inc" "$tmp/future/*.o -lm"
link "$tmp/past" "$today_inc" "$tmp/future/*.o -lm" -DREAD_PAST

# ------------------------------------------------------------ runs
run() { # NAME: runs $tmp/NAME into $tmp/NAME.dump; must succeed
  # shellcheck disable=SC2086
  if ! "$tmp/$1" "$tmp/$1.dump" $caps > "$tmp/$1.out" 2>&1; then
    sed -n '1,40p' "$tmp/$1.out"
    fail "$2"
  fi
  if grep -q -E 'Sanitizer|runtime error' "$tmp/$1.out"; then
    sed -n '1,40p' "$tmp/$1.out"
    fail "$2: sanitizer report"
  fi
  echo "$1: $(tail -n 1 "$tmp/$1.dump") ($(wc -l < "$tmp/$1.dump" | tr -d ' ') lines)"
}
same() { # NAME: $tmp/NAME.dump equals $tmp/ref.dump
  if ! cmp -s "$tmp/ref.dump" "$tmp/$1.dump"; then
    # the first lines that differ, field by field (ref -> NAME)
    diff "$tmp/ref.dump" "$tmp/$1.dump" > "$tmp/$1.diff"
    echo "$(grep -c '^<' "$tmp/$1.diff") lines of ref.dump differ in $1.dump; the first ones:"
    paste -d '\n' "$tmp/ref.dump" "$tmp/$1.dump" | awk -v name="$1" '
      NR % 2 == 1 { a = $0; next }
      a != $0 && shown < 5 {
        shown++
        na = split(a, x, " "); nb = split($0, y, " ")
        line = "  line " (NR / 2) ": " x[1]
        for (i = 2; i <= (na > nb ? na : nb); i++)
          if (x[i] != y[i]) line = line " " x[i] " -> " y[i]
        print line
      }'
    fail "$2"
  fi
}

run ref "the V1 consumer with today's library"
run fwd "forward: the V2 consumer with today's library"
same fwd "forward: the V2 consumer reads other V1 values than the V1 consumer"
run rev "reverse: the V1 consumer with the future library"
same rev "reverse: the V1 consumer reads other values from the future library than from today's"

# ------------------------------------------------------------ 5. control
# shellcheck disable=SC2086
if "$tmp/past" "$tmp/past.dump" $caps > "$tmp/past.out" 2>&1; then
  fail "negative control: reading one byte past a V1 flow record was not detected"
fi
if ! grep -q 'heap-buffer-overflow' "$tmp/past.out"; then
  sed -n '1,40p' "$tmp/past.out"
  fail "negative control: failed without a heap-buffer-overflow report"
fi
echo "negative control (-DREAD_PAST) detected:"
grep -E 'ERROR: AddressSanitizer|READ of size|#[0-2] ' "$tmp/past.out" |
  sed -n '1,5p' | sed 's/^/  /'

echo "PASS: V2 refused and V1 exact from today's library; V1 records of a grown library equal today's, and no byte past them is read"
exit 0
