#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The arm64 CRC paths of lib/rtel_icrc.c, run: tests/icrc_arm64.c and the
# cases of tests/icrc_cases.c (known values, every length and alignment
# against a bitwise CRC-32, the packets of tests/icrc_vectors.h) are
# cross-compiled with every lib/*.c and run under qemu-aarch64 on an
# emulated CPU with PMULL (-cpu max, and a Cortex-A53), twice:
#   -march=armv8-a         the baseline: PMULL compiled by target attribute
#                          and found at run time (AT_HWCAP);
#   -march=armv8-a+crypto  PMULL known at compile time.
# Both runs must find PMULL and pass every case on it and on the tables.
#
# Environment: top_srcdir, top_builddir (set by make check), CC_AARCH64
# (default aarch64-linux-gnu-gcc), QEMU_AARCH64 (default qemu-aarch64).
# Debian: gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
# (tests/install-deps.sh). Exit: 0 pass, 1 failure, 77 skip (no cross
# compiler, no arm64 C library or no qemu-aarch64), 99 setup error.

set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
: "${top_builddir:=$(pwd)}"
CC_AARCH64=${CC_AARCH64:-aarch64-linux-gnu-gcc}
QEMU_AARCH64=${QEMU_AARCH64:-qemu-aarch64}

skip() { echo "SKIP: $*"; exit 77; }
command -v "$CC_AARCH64" >/dev/null 2>&1 || skip "no $CC_AARCH64 (gcc-aarch64-linux-gnu)"
command -v "$QEMU_AARCH64" >/dev/null 2>&1 || skip "no $QEMU_AARCH64 (qemu-user)"

ver=$top_builddir/include/rocetel/rocetelver.h
[ -f "$ver" ] || ver=$top_srcdir/include/rocetel/rocetelver.h
[ -f "$ver" ] || { echo "ERROR: generated rocetelver.h not found (run configure)" >&2; exit 99; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rtel-icrc-arm64.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

printf 'int main(void) { return 0; }\n' > "$tmp/probe.c"
"$CC_AARCH64" -static -o "$tmp/probe" "$tmp/probe.c" > "$tmp/probe.err" 2>&1 ||
  skip "$CC_AARCH64 cannot link a static program (libc6-dev-arm64-cross?)"
"$QEMU_AARCH64" "$tmp/probe" || skip "$QEMU_AARCH64 cannot run an arm64 program"

fail=0
for march in armv8-a armv8-a+crypto; do
  # shellcheck disable=SC2086
  if ! "$CC_AARCH64" -std=c11 -O2 -Wall -Wextra -Werror -march=$march -static \
      -DBUILDING_ROCETEL -I"$top_srcdir/include" -I"$(dirname "$(dirname "$ver")")" \
      -I"$top_srcdir/lib" -I"$top_srcdir/tests" -o "$tmp/icrc-$march" \
      "$top_srcdir/tests/icrc_arm64.c" "$top_srcdir/tests/icrc_cases.c" \
      "$top_srcdir"/lib/*.c > "$tmp/cc.err" 2>&1; then
    echo "FAIL: -march=$march does not build:"
    sed 's/^/  /' "$tmp/cc.err"
    fail=1
    continue
  fi
  for cpu in max cortex-a53; do
    echo "== -march=$march, qemu -cpu $cpu"
    "$QEMU_AARCH64" -cpu "$cpu" "$tmp/icrc-$march" --want-pmull || fail=1
  done
done
[ $fail = 0 ] && echo "PASS: the arm64 CRC paths (tables, PMULL) pass every case"
exit $fail
