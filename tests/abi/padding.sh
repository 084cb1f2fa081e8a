#!/bin/sh
# SPDX-License-Identifier: MIT
#
# No public struct has unnamed padding: every struct with a body in
# include/rocetel/rocetel.h is laid out without a hole between two members
# and without padding after its last one. Padding that a struct needs is a
# named reserved* member, so that
#  - a struct that grows at its end (a new version, see rtel_callbacks)
#    starts its new fields right after the last field of the old version:
#    the library copies exactly that prefix (rtel__struct_len), and an
#    application that copies the whole old struct reads no byte past it;
#  - the layout is the same on 32-bit and 64-bit targets where only the
#    alignment of uint64_t differs (i386 aligns it to 4, x86-64 and
#    32-bit ARM to 8): members of pointer or size_t type differ anyway.
#
# How: a translation unit with one variable of each struct is compiled with
# -g, and pahole (Debian package dwarves) prints each struct's layout from
# the DWARF: any "XXX ... hole" or "padding:" line fails the test. The
# native target is required; i386 ($CC -m32) and 32-bit ARM (clang
# --target=armv7a-linux-gnueabihf) are checked when the compiler can build
# for them (only the header's freestanding includes are needed: stddef.h,
# stdint.h).
#
# Environment: top_srcdir, top_builddir (set by make check; by hand they
# default to this script's tree and the current directory), CC (default
# cc), CLANG (default clang), PAHOLE (default pahole).
# Exit: 0 pass, 1 padding found, 77 skip (no pahole), 99 setup error.

set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
if [ -z "${top_builddir:-}" ]; then
  if [ -f ./config.status ]; then top_builddir=$(pwd); else top_builddir=$top_srcdir; fi
fi
CC=${CC:-cc}
CLANG=${CLANG:-clang}
PAHOLE=${PAHOLE:-pahole}
header=$top_srcdir/include/rocetel/rocetel.h

command -v "$PAHOLE" >/dev/null 2>&1 || {
  echo "SKIP: pahole not found (apt-get install dwarves)"; exit 77; }
[ -f "$header" ] || { echo "ERROR: no $header" >&2; exit 99; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rtel-padding.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

# Every struct with a body: "typedef struct NAME {" or "struct NAME {".
sed -n 's/^\(typedef[[:space:]][[:space:]]*\)\{0,1\}struct[[:space:]][[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\)[[:space:]]*{.*/\2/p' \
  "$header" > "$tmp/structs"
n=$(wc -l < "$tmp/structs" | tr -d ' ')
[ "$n" -gt 0 ] || { echo "ERROR: no struct found in $header" >&2; exit 99; }
{
  echo '#include <rocetel/rocetel.h>'
  while read -r s; do echo "struct $s rtel_padcheck_$s;"; done < "$tmp/structs"
} > "$tmp/use.c"

inc="-I$top_builddir/include -I$top_srcdir/include"
fail=0
checked=
skipped=

# check NAME COMPILER FLAGS...: compiles use.c and reads its layouts.
check() {
  name=$1; shift
  # shellcheck disable=SC2086
  if ! "$@" -g -c $inc "$tmp/use.c" -o "$tmp/$name.o" > "$tmp/$name.cc.log" 2>&1; then
    return 1
  fi
  if ! "$PAHOLE" "$tmp/$name.o" > "$tmp/$name.layout" 2> "$tmp/$name.pahole.log"; then
    echo "ERROR: $PAHOLE $tmp/$name.o failed:" >&2
    cat "$tmp/$name.pahole.log" >&2
    exit 99
  fi
  while read -r s; do
    # the struct's block, from "struct NAME {" to its closing "};"
    sed -n "/^struct $s {/,/^};/p" "$tmp/$name.layout" > "$tmp/$name.$s"
    if [ ! -s "$tmp/$name.$s" ]; then
      echo "ERROR: pahole printed no layout for struct $s ($name)" >&2
      exit 99
    fi
    if grep -q -E 'XXX|padding:' "$tmp/$name.$s"; then
      echo "FAIL: struct $s has unnamed padding on $name:"
      grep -E 'XXX|padding:|^[[:space:]]*/\* (size|sum members)' "$tmp/$name.$s" |
        sed 's/^[[:space:]]*/  /'
      echo "  layout:"
      sed 's/^/    /' "$tmp/$name.$s"
      fail=1
    fi
  done < "$tmp/structs"
  checked="$checked $name"
  return 0
}

set -- $CC
if ! check native "$@"; then
  echo "ERROR: cannot compile the header with $CC:" >&2
  cat "$tmp/native.cc.log" >&2
  exit 99
fi
set -- $CC
check i386 "$@" -m32 -ffreestanding || skipped="$skipped i386($CC -m32)"
if command -v "$CLANG" >/dev/null 2>&1; then
  check armv7 "$CLANG" --target=armv7a-linux-gnueabihf -ffreestanding ||
    skipped="$skipped armv7($CLANG)"
else
  skipped="$skipped armv7(no $CLANG)"
fi

[ -n "$skipped" ] && echo "note: targets not checked (their compiler is missing):$skipped"
if [ $fail -ne 0 ]; then
  echo "Name the padding: a reserved* member of the padding's size where the hole is"
  echo "(no field moves), and say in the man page's synopsis (tests/check-man.sh)."
  exit 1
fi
echo "PASS: $n structs of rocetel.h without unnamed padding on:$checked"
exit 0
