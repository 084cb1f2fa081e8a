#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Builds tests/fuzz/fuzz_decode.c with libFuzzer + ASan + UBSan straight from
# the library sources, replays the seed corpus (with truncation and option
# sweeps, under the sanitizers), then fuzzes for FUZZ_SECONDS seconds.
#
# Exit: 0 ok, 1 crash / sanitizer report / invariant violation,
#       77 skip (no clang with -fsanitize=fuzzer), 99 setup error.
#
# Environment (all optional):
#   top_srcdir, top_builddir  set by `make check`; by hand they default to
#                             this script's tree and the current directory
#   CLANG                     clang to use (default: clang, clang-19..14)
#   FUZZ_SECONDS              fuzzing time, default 60; 0 = build + replay only
#   FUZZ_MAX_LEN              -max_len, default 2048
#   FUZZ_JOBS                 libFuzzer -fork=N workers, default 1 (no fork)
#   FUZZ_CORPUS_OUT           keep the grown corpus in this directory
#   FUZZ_EXTRA_FLAGS          more libFuzzer flags (e.g. -seed=1)
#
# A crash input is kept as $top_builddir/tests/fuzz/fuzz-crash-<sha1> (or
# -leak-, -timeout-, -oom-); reproduce it with
#   $top_builddir/tests/fuzz/fuzz_decode_libfuzzer FILE
# or, without clang, with tests/fuzz/fuzz_main FILE.

set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
if [ -z "${top_builddir:-}" ]; then
  if [ -f ./config.status ]; then top_builddir=$(pwd); else top_builddir=$top_srcdir; fi
fi
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_MAX_LEN=${FUZZ_MAX_LEN:-2048}
FUZZ_JOBS=${FUZZ_JOBS:-1}

skip() { echo "SKIP: $*"; exit 77; }
die() { echo "ERROR: $*" >&2; exit 99; }

# ------------------------------------------------------------ find clang
if [ -n "${CLANG:-}" ]; then
  cands=$CLANG
else
  cands="clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14"
fi
cc=
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rtel-fuzz.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/probe.c" <<'EOF'
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return n > 0 && d[0] == 1; }
EOF
for c in $cands; do
  command -v "$c" >/dev/null 2>&1 || continue
  if "$c" -fsanitize=fuzzer,address,undefined "$tmp/probe.c" -o "$tmp/probe" \
       >/dev/null 2>&1 && "$tmp/probe" -runs=1 >/dev/null 2>&1; then
    cc=$c
    break
  fi
done
[ -n "$cc" ] || skip "no clang that links and runs -fsanitize=fuzzer,address,undefined (tried: $cands)"

# ------------------------------------------------------------ build
ver=$top_builddir/include/rocetel/rocetelver.h
[ -f "$ver" ] || ver=$top_srcdir/include/rocetel/rocetelver.h
[ -f "$ver" ] || die "rocetelver.h not found; run configure first (top_builddir=$top_builddir)"
set -- "$top_srcdir"/lib/*.c
[ -f "$1" ] || die "no library sources in $top_srcdir/lib"

outdir=$top_builddir/tests/fuzz
mkdir -p "$outdir" || die "cannot create $outdir"
fuzzer=$outdir/fuzz_decode_libfuzzer
replay=$outdir/fuzz_replay_asan

cppflags="-DBUILDING_ROCETEL -I$top_srcdir/lib -I$top_builddir/include -I$top_srcdir/include"
if [ -f "$top_builddir/config.h" ]; then
  cppflags="-DHAVE_CONFIG_H -I$top_builddir $cppflags"
fi
cflags="-std=c11 -g -O1 -fno-omit-frame-pointer -fno-sanitize-recover=all"

echo "fuzz: $cc ($("$cc" --version | head -n 1)), $# library sources"
# shellcheck disable=SC2086
"$cc" $cflags -fsanitize=fuzzer,address,undefined $cppflags \
  -o "$fuzzer" "$@" "$top_srcdir/tests/fuzz/fuzz_decode.c" ||
  { echo "FAIL: building the fuzzer failed"; exit 1; }
# shellcheck disable=SC2086
"$cc" $cflags -fsanitize=address,undefined $cppflags \
  -o "$replay" "$@" "$top_srcdir/tests/fuzz/fuzz_decode.c" \
  "$top_srcdir/tests/fuzz/fuzz_main.c" ||
  { echo "FAIL: building the sanitizer replay driver failed"; exit 1; }

ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS UBSAN_OPTIONS

# ------------------------------------------------------------ replay seeds
seeds=$top_srcdir/tests/fuzz/corpus
[ -d "$seeds" ] || die "no seed corpus at $seeds"
echo "fuzz: replaying $seeds under ASan+UBSan (truncation and option sweeps)"
if ! "$replay" "$seeds" > "$tmp/replay.log" 2>&1; then
  cat "$tmp/replay.log"
  echo "FAIL: a seed (or one of its truncations / option variants) crashed;"
  echo "      rerun with FUZZ_VERBOSE=1 $replay $seeds to see which"
  exit 1
fi
cat "$tmp/replay.log"

if [ "$FUZZ_SECONDS" -le 0 ] 2>/dev/null; then
  echo "fuzz: FUZZ_SECONDS=$FUZZ_SECONDS, not fuzzing"
  exit 0
fi

# ------------------------------------------------------------ fuzz
work=$tmp/corpus
mkdir "$work" && cp "$seeds"/* "$work"/ || die "cannot copy the seed corpus"
forkopt=
[ "$FUZZ_JOBS" -gt 1 ] 2>/dev/null && forkopt="-fork=$FUZZ_JOBS -ignore_crashes=0"
echo "fuzz: fuzzing for ${FUZZ_SECONDS}s, -max_len=$FUZZ_MAX_LEN ${forkopt}"
# shellcheck disable=SC2086
"$fuzzer" -max_len="$FUZZ_MAX_LEN" -max_total_time="$FUZZ_SECONDS" \
  -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$outdir/fuzz-" $forkopt ${FUZZ_EXTRA_FLAGS:-} \
  "$work" > "$tmp/fuzz.log" 2>&1
rc=$?
if [ $rc -eq 0 ]; then
  grep -E '^#[0-9]+' "$tmp/fuzz.log" | tail -n 1
  grep -E '^(Done|stat::)' "$tmp/fuzz.log"
else
  tail -n 80 "$tmp/fuzz.log"
fi
if [ -n "${FUZZ_CORPUS_OUT:-}" ]; then
  mkdir -p "$FUZZ_CORPUS_OUT" && cp "$work"/* "$FUZZ_CORPUS_OUT"/ &&
    echo "fuzz: corpus kept in $FUZZ_CORPUS_OUT"
fi
if [ $rc -ne 0 ]; then
  cp "$tmp/fuzz.log" "$outdir/fuzz-last.log" 2>/dev/null
  echo "FAIL: the fuzzer exited $rc; full log in $outdir/fuzz-last.log; inputs:"
  ls -l "$outdir"/fuzz-crash-* "$outdir"/fuzz-leak-* "$outdir"/fuzz-timeout-* \
    "$outdir"/fuzz-oom-* 2>/dev/null
  echo "reproduce: $fuzzer FILE   (or: tests/fuzz/fuzz_main FILE)"
  exit 1
fi
echo "fuzz: PASS"
exit 0
