#!/bin/sh
# SPDX-License-Identifier: MIT
#
# ABI gate: compare lib/.libs/librocetel.so with the committed
# baseline abi/librocetel-$host_cpu.abi. The gate requires abidiff exit 0:
#   abidiff --no-added-syms --drop-private-types --fail-no-debug-info \
#           --suppressions abi/librocetel.abignore --headers-dir2 include/rocetel \
#           abi/librocetel-$host_cpu.abi lib/.libs/librocetel.so
# (abidiff's exit status is a bit mask: 1 tool error, 2 usage error, 4 ABI
# change, 8 incompatible change.) It then prints the same comparison without
# --no-added-syms as a report: its "Added function" lines show the version
# node of each new symbol (input to the LT_CURRENT/LT_AGE bump).
#
# Usage:
#   abi-check.sh            run the gate (make abi-check; in TESTS)
#   abi-check.sh --update   regenerate the baseline (make abi-baseline):
#     abidw --drop-private-types --headers-dir include/rocetel \
#           --out-file abi/librocetel-$host_cpu.abi lib/.libs/librocetel.so
#     (with locations: never --no-show-locs, which makes a later
#     --headers-dir2 comparison silently miss a member inserted mid-struct)
#
# Environment: top_srcdir, top_builddir (set by make; by hand they default to
# this script's tree and the current directory), host_cpu (default uname -m),
# ABIDIFF, ABIDW (default from PATH), ABI_SO (library to check), ABI_BASELINE
# (baseline file to compare with or write).
# Exit: 0 pass, 1 ABI change or tool error, 77 skip (no abidiff/abidw, no
# shared library, library without debug info (-g), or no baseline for this
# CPU), 99 setup error.

set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
if [ -z "${top_builddir:-}" ]; then
  if [ -f ./config.status ]; then top_builddir=$(pwd); else top_builddir=$top_srcdir; fi
fi
: "${host_cpu:=$(uname -m)}"
ABIDIFF=${ABIDIFF:-abidiff}
ABIDW=${ABIDW:-abidw}
so=${ABI_SO:-$top_builddir/lib/.libs/librocetel.so}
baseline=${ABI_BASELINE:-$top_srcdir/abi/librocetel-$host_cpu.abi}
abignore=$top_srcdir/abi/librocetel.abignore
hdrs=$top_srcdir/include/rocetel

mode=check
case "${1:-}" in
  "") ;;
  --update) mode=update ;;
  *) echo "usage: $0 [--update]" >&2; exit 99 ;;
esac

skip() { echo "SKIP: $*"; exit 77; }

[ -e "$so" ] || skip "no shared library at $so (static-only build, or not built yet)"
[ -f "$abignore" ] || { echo "ERROR: no suppression file $abignore" >&2; exit 99; }

# Debug info: the gate needs DWARF (a build with -g).
has_debug_info() {
  if command -v readelf >/dev/null 2>&1; then
    readelf -S -W "$1" 2>/dev/null | grep -q -E '[[:space:]]\.z?debug_info[[:space:]]'
  elif command -v objdump >/dev/null 2>&1; then
    objdump -h "$1" 2>/dev/null | grep -q -E '[[:space:]]\.z?debug_info[[:space:]]'
  else
    return 0  # cannot tell; abidiff --fail-no-debug-info will
  fi
}

# Exported functions whose symbol abidw could not tie to a definition in
# the DWARF: abidiff then checks only that the symbol exists, not its
# signature. Seen with libabigail 2.2 for a public function that another
# translation unit of the library calls (abidw keeps the caller's
# declaration DIE): call an internal rtel__ twin inside the library instead.
untied_functions() { # ABI-XML
  sed -n "/<elf-function-symbols>/,/<\/elf-function-symbols>/s/.*<elf-symbol name='\([^']*\)'.*/\1/p" "$1" |
  while read -r f; do
    grep -q "elf-symbol-id='$f@" "$1" || grep -q "elf-symbol-id='$f'" "$1" || echo "$f"
  done
}
warn_untied() { # ABI-XML
  u=$(untied_functions "$1" | tr '\n' ' ')
  if [ -n "$u" ]; then
    echo "WARNING: $(basename "$1"): no debug info tied to: $u"
    echo "  (their signatures are NOT checked by the gate, only their presence; a"
    echo "  public function called from another .c file of the library is the usual"
    echo "  cause: call an internal rtel__ twin there instead)"
  fi
}

if [ $mode = update ]; then
  command -v "$ABIDW" >/dev/null 2>&1 || {
    echo "ERROR: abidw not found (apt-get install abigail-tools)" >&2; exit 1; }
  has_debug_info "$so" || {
    echo "ERROR: $so has no debug info; build with CFLAGS=\"-g -Og\"" >&2; exit 1; }
  tmpout=$baseline.tmp.$$
  echo "$ABIDW --drop-private-types --headers-dir $hdrs --out-file $baseline $so"
  if ! "$ABIDW" --drop-private-types --headers-dir "$hdrs" \
         --out-file "$tmpout" "$so"; then
    rm -f "$tmpout"
    echo "ERROR: abidw failed" >&2
    exit 1
  fi
  mv "$tmpout" "$baseline" || exit 1
  nfn=$(grep -c '<elf-symbol name=' "$baseline" || true)
  echo "wrote $baseline ($nfn exported symbols)"
  warn_untied "$baseline"
  # The new baseline must pass the gate against the library it came from.
  ABI_BASELINE=$baseline exec "$0"
fi

command -v "$ABIDIFF" >/dev/null 2>&1 || skip "abidiff not found (apt-get install abigail-tools)"
has_debug_info "$so" || skip "$so was built without debug info (-g); the gate needs CFLAGS=\"-g -Og\""
[ -f "$baseline" ] || skip "no ABI baseline for $host_cpu ($baseline); create it with: make abi-baseline"

warn_untied "$baseline"

set -- --drop-private-types --fail-no-debug-info --suppressions "$abignore" \
  --headers-dir2 "$hdrs" "$baseline" "$so"
echo "$ABIDIFF --no-added-syms $*"
out=$("$ABIDIFF" --no-added-syms "$@" 2>&1)
rc=$?
[ -n "$out" ] && printf '%s\n' "$out"

# Report (not gating): added symbols and their version nodes.
added=$("$ABIDIFF" "$@" 2>&1 | grep -E '^[[:space:]]*\[A\]')
if [ -n "$added" ]; then
  echo "---- report, not gating: added symbols {name@@node} (LT_CURRENT++/LT_AGE++) ----"
  printf '%s\n' "$added"
fi

if [ $rc -ne 0 ]; then
  why=
  [ $((rc & 1)) -ne 0 ] && why="$why tool-error"
  [ $((rc & 2)) -ne 0 ] && why="$why usage-error"
  [ $((rc & 4)) -ne 0 ] && why="$why ABI-change"
  [ $((rc & 8)) -ne 0 ] && why="$why INCOMPATIBLE-change"
  echo "FAIL: abidiff exit $rc ($why ) against $(basename "$baseline")"
  echo "  An intended change before the release of the open .sym node: regenerate the"
  echo "  baseline with 'make abi-baseline' (CFLAGS=\"-g -Og\" build) and commit it."
  echo "  After a release the ABI is frozen: append fields to versioned structs (bump their"
  echo "  _VERSION), put new functions in a new .sym node, never change what shipped."
  exit 1
fi
echo "PASS: ABI unchanged against $(basename "$baseline") (abidiff exit 0)"
exit 0
