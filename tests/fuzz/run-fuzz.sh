#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Builds the fuzz harnesses with libFuzzer + ASan + UBSan straight from
# the library sources:
#   decode  tests/fuzz/fuzz_decode.c, one frame per input (corpus/)
#   seq     tests/fuzz/fuzz_seq.c, sequences of packets, timers, schedules,
#           with invariants (corpus-seq/; it also compiles the test packet
#           builder, tests/rtel_test_pkt.c and rtel_test_nvme.c)
#   ipfix   tests/fuzz/fuzz_ipfix.c, random records through the IPFIX
#           encoder, every message read back by the tests' own reader
#           (tests/ipfix/ipfix_read.c) and compared (corpus-ipfix/)
#   capfile tests/fuzz/fuzz_capfile.c, the examples' capture file reader
#           (examples/capfile.c) on any bytes (corpus-capfile/)
# replays each seed corpus (with its truncation and option sweeps, under the
# sanitizers), then fuzzes each harness for FUZZ_SECONDS seconds and prints,
# per harness, the executions, the coverage reached (cov: edges, ft:
# features) and the findings.
#
#   run-fuzz.sh [SECONDS [JOBS]]      (the same as FUZZ_SECONDS, FUZZ_JOBS)
#
# Exit: 0 ok, 1 crash / sanitizer report / invariant violation,
#       77 skip (no clang with -fsanitize=fuzzer), 99 setup error.
#
# Environment (all optional):
#   top_srcdir, top_builddir  set by `make check`; by hand they default to
#                             this script's tree and the current directory
#   CLANG                     clang to use (default: clang, clang-19..14)
#   FUZZ_SECONDS              fuzzing time per harness, default 60; 0 = build
#                             + replay only
#   FUZZ_JOBS                 libFuzzer -fork=N workers, default 1 (no fork)
#   FUZZ_HARNESS              decode, seq, ipfix, capfile, or all
#                             (default; "both" is an old name of all)
#   FUZZ_MAX_LEN              -max_len, default 2048 (decode), 8192 (seq,
#                             ipfix)
#   FUZZ_CORPUS_OUT           keep the grown corpora in this directory
#                             (FUZZ_CORPUS_OUT/decode, FUZZ_CORPUS_OUT/seq)
#   FUZZ_EXTRA_FLAGS          more libFuzzer flags (e.g. -seed=1)
#
# A crash input is kept as $top_builddir/tests/fuzz/fuzz-crash-<sha1> (or
# -leak-, -timeout-, -oom-; fuzz-seq-crash-... for the sequence harness);
# reproduce it with
#   $top_builddir/tests/fuzz/fuzz_decode_libfuzzer FILE   (fuzz_main FILE)
#   $top_builddir/tests/fuzz/fuzz_seq_libfuzzer FILE      (fuzz_seq_main FILE;
#                                  FUZZ_SEQ_TRACE=1 prints what happens)

set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
if [ -z "${top_builddir:-}" ]; then
  if [ -f ./config.status ]; then top_builddir=$(pwd); else top_builddir=$top_srcdir; fi
fi
[ $# -ge 1 ] && FUZZ_SECONDS=$1
[ $# -ge 2 ] && FUZZ_JOBS=$2
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_JOBS=${FUZZ_JOBS:-1}
FUZZ_HARNESS=${FUZZ_HARNESS:-all}

skip() { echo "SKIP: $*"; exit 77; }
die() { echo "ERROR: $*" >&2; exit 99; }

case $FUZZ_HARNESS in
  decode) harnesses=decode ;;
  seq) harnesses=seq ;;
  ipfix) harnesses=ipfix ;;
  capfile) harnesses=capfile ;;
  all | both | '') harnesses="decode seq ipfix capfile" ;;
  *) die "FUZZ_HARNESS must be decode, seq, ipfix, capfile or all, not '$FUZZ_HARNESS'" ;;
esac
case $FUZZ_SECONDS in *[!0-9]* | '') die "FUZZ_SECONDS: not a number" ;; esac
case $FUZZ_JOBS in *[!0-9]* | '') die "FUZZ_JOBS: not a number" ;; esac

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

cppflags="-DBUILDING_ROCETEL -I$top_srcdir/lib -I$top_builddir/include -I$top_srcdir/include"
if [ -f "$top_builddir/config.h" ]; then
  cppflags="-DHAVE_CONFIG_H -I$top_builddir $cppflags"
fi
cflags="-std=c11 -g -O1 -fno-omit-frame-pointer -fno-sanitize-recover=all"

ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS UBSAN_OPTIONS

echo "fuzz: $cc ($("$cc" --version | head -n 1)), $# library sources," \
  "harnesses: $harnesses, ${FUZZ_SECONDS}s each, $FUZZ_JOBS job(s)"

# The harness |h|'s sources, replay flags, corpus, artifact prefix and
# default -max_len.
setup() {
  case $1 in
    decode)
      hsrc="$top_srcdir/tests/fuzz/fuzz_decode.c"
      hflags=
      seeds=$top_srcdir/tests/fuzz/corpus
      fuzzer=$outdir/fuzz_decode_libfuzzer
      replay=$outdir/fuzz_replay_asan
      prefix=$outdir/fuzz-
      maxlen=${FUZZ_MAX_LEN:-2048}
      ;;
    seq)
      hsrc="$top_srcdir/tests/fuzz/fuzz_seq.c $top_srcdir/tests/rtel_test_pkt.c $top_srcdir/tests/rtel_test_nvme.c"
      hflags="-DTU_NO_CHECK -I$top_srcdir/tests"
      seeds=$top_srcdir/tests/fuzz/corpus-seq
      fuzzer=$outdir/fuzz_seq_libfuzzer
      replay=$outdir/fuzz_seq_replay_asan
      prefix=$outdir/fuzz-seq-
      maxlen=${FUZZ_MAX_LEN:-8192}
      ;;
    ipfix)
      hsrc="$top_srcdir/tests/fuzz/fuzz_ipfix.c $top_srcdir/tests/ipfix/ipfix_read.c $top_srcdir/tests/ipfix/ipfix_expect.c -lm"
      hflags="-I$top_srcdir/tests"
      seeds=$top_srcdir/tests/fuzz/corpus-ipfix
      fuzzer=$outdir/fuzz_ipfix_libfuzzer
      replay=$outdir/fuzz_ipfix_replay_asan
      prefix=$outdir/fuzz-ipfix-
      maxlen=${FUZZ_MAX_LEN:-8192}
      ;;
    capfile)
      hsrc="$top_srcdir/tests/fuzz/fuzz_capfile.c $top_srcdir/examples/capfile.c"
      hflags="-I$top_srcdir/examples"
      seeds=$top_srcdir/tests/fuzz/corpus-capfile
      fuzzer=$outdir/fuzz_capfile_libfuzzer
      replay=$outdir/fuzz_capfile_replay_asan
      prefix=$outdir/fuzz-capfile-
      maxlen=${FUZZ_MAX_LEN:-4096}
      ;;
  esac
}

status=0
summary=
for h in $harnesses; do
  setup "$h"
  # ---------------------------------------------------------- build
  # shellcheck disable=SC2086
  "$cc" $cflags -fsanitize=fuzzer,address,undefined $cppflags $hflags \
    -o "$fuzzer" "$@" $hsrc ||
    { echo "FAIL: building the $h fuzzer failed"; exit 1; }
  # shellcheck disable=SC2086
  "$cc" $cflags -fsanitize=address,undefined $cppflags $hflags \
    $([ "$h" = seq ] && echo -DFUZZ_SEQ) $([ "$h" = ipfix ] && echo -DFUZZ_IPFIX) \
    $([ "$h" = capfile ] && echo -DFUZZ_CAPFILE) \
    -o "$replay" "$@" $hsrc "$top_srcdir/tests/fuzz/fuzz_main.c" ||
    { echo "FAIL: building the $h sanitizer replay driver failed"; exit 1; }

  # ---------------------------------------------------------- replay seeds
  [ -d "$seeds" ] || die "no seed corpus at $seeds"
  echo "fuzz[$h]: replaying $seeds under ASan+UBSan (truncation and option sweeps)"
  if ! "$replay" "$seeds" > "$tmp/replay.log" 2>&1; then
    tail -n 60 "$tmp/replay.log"
    echo "FAIL: a $h seed (or one of its truncations / option variants) failed;"
    echo "      rerun with FUZZ_VERBOSE=1 $replay $seeds to see which"
    exit 1
  fi
  cat "$tmp/replay.log"

  if [ "$FUZZ_SECONDS" -le 0 ]; then
    echo "fuzz[$h]: FUZZ_SECONDS=$FUZZ_SECONDS, not fuzzing"
    continue
  fi

  # ---------------------------------------------------------- fuzz
  work=$tmp/corpus-$h
  mkdir "$work" && cp "$seeds"/* "$work"/ || die "cannot copy the seed corpus"
  forkopt=
  [ "$FUZZ_JOBS" -gt 1 ] && forkopt="-fork=$FUZZ_JOBS -ignore_crashes=0"
  echo "fuzz[$h]: fuzzing for ${FUZZ_SECONDS}s, -max_len=$maxlen ${forkopt}"
  # shellcheck disable=SC2086
  "$fuzzer" -max_len="$maxlen" -max_total_time="$FUZZ_SECONDS" \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$prefix" $forkopt ${FUZZ_EXTRA_FLAGS:-} \
    "$work" > "$tmp/fuzz-$h.log" 2>&1
  rc=$?
  # the last status line: "#N ... cov: C ft: F corp: ..." (-fork: "#N: cov:")
  last=$(grep -E '^#[0-9]+.*cov: ' "$tmp/fuzz-$h.log" | tail -n 1)
  execs=$(grep -E '^stat::number_of_executed_units:' "$tmp/fuzz-$h.log" |
    tail -n 1 | sed 's/.*: *//')
  [ -n "$execs" ] || execs=$(printf '%s\n' "$last" | sed -n 's/^#\([0-9]*\).*/\1/p')
  cov=$(printf '%s\n' "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
  ft=$(printf '%s\n' "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
  finds=$(ls "$prefix"crash-* "$prefix"leak-* "$prefix"timeout-* \
    "$prefix"oom-* 2>/dev/null | wc -l)
  if [ -n "${FUZZ_CORPUS_OUT:-}" ]; then
    mkdir -p "$FUZZ_CORPUS_OUT/$h" && cp "$work"/* "$FUZZ_CORPUS_OUT/$h"/ &&
      echo "fuzz[$h]: corpus kept in $FUZZ_CORPUS_OUT/$h"
  fi
  line="fuzz[$h]: ${FUZZ_SECONDS}s x $FUZZ_JOBS job(s): executions ${execs:-?}, cov ${cov:-?}, ft ${ft:-?}, corpus $(ls "$work" | wc -l) files, findings $finds"
  echo "$line"
  summary="$summary$line
"
  if [ $rc -ne 0 ]; then
    tail -n 80 "$tmp/fuzz-$h.log"
    cp "$tmp/fuzz-$h.log" "$outdir/fuzz-$h-last.log" 2>/dev/null
    echo "FAIL: the $h fuzzer exited $rc; full log in $outdir/fuzz-$h-last.log; inputs:"
    ls -l "$prefix"crash-* "$prefix"leak-* "$prefix"timeout-* \
      "$prefix"oom-* 2>/dev/null
    echo "reproduce: $fuzzer FILE"
    status=1
  fi
done
[ -n "$summary" ] && printf '%s' "$summary"
[ $status -eq 0 ] && echo "fuzz: PASS"
exit $status
