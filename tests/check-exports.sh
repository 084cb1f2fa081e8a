#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The dynamic symbols librocetel.so defines must be exactly
# the names listed under `global:` in lib/librocetel.sym, each in the version
# node that lists it, and no internal rtel__* helper may be exported.
# (GNU ld silently accepts a misspelled name in a version script; only this
# test catches it.)
#
# Usage: check-exports.sh [SYMFILE [LIBRARY.so]]
#   defaults: $top_srcdir/lib/librocetel.sym, $top_builddir/lib/.libs/librocetel.so
# Environment: top_srcdir, top_builddir (set by `make check`; by hand they
# default to this script's tree and the current directory), NM (default nm).
# Exit: 0 pass, 1 mismatch, 77 skip (no nm, or no shared library built),
# 99 setup error.

set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
if [ -z "${top_builddir:-}" ]; then
  if [ -f ./config.status ]; then top_builddir=$(pwd); else top_builddir=$top_srcdir; fi
fi
symfile=${1:-$top_srcdir/lib/librocetel.sym}
so=${2:-$top_builddir/lib/.libs/librocetel.so}
NM=${NM:-nm}

skip() { echo "SKIP: $*"; exit 77; }

# NM from libtool may carry options ("/usr/bin/nm -B"): test its first word.
set -- $NM
command -v "$1" >/dev/null 2>&1 || skip "nm not found ($NM)"
[ -f "$symfile" ] || { echo "ERROR: no version script $symfile" >&2; exit 99; }
if [ ! -e "$so" ]; then
  skip "no shared library at $so (static-only build?)"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rtel-exports.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

# -------------------------------------------------- names in the .sym file
# Strip /* */ and # comments, then walk the nodes:
#   NODE { global: a; b; local: *; } PARENT;
# and print "name node" for every name under global:.
sed -e 's,#.*$,,' "$symfile" | awk '
  BEGIN { incomment = 0 }
  {
    line = $0; out = ""
    while (length(line) > 0) {
      if (incomment) {
        i = index(line, "*/")
        if (i == 0) { line = ""; break }
        line = substr(line, i + 2); incomment = 0
      } else {
        i = index(line, "/*")
        if (i == 0) { out = out line; line = ""; break }
        out = out substr(line, 1, i - 1) " "; line = substr(line, i + 2); incomment = 1
      }
    }
    print out
  }' | tr '\n' ' ' | sed -e 's/[{};]/ & /g' -e 's/:/ : /g' | awk '
  {
    for (i = 1; i <= NF; i++) tok[n++] = $i
  }
  END {
    depth = 0; node = ""; section = ""; last = ""
    for (i = 0; i < n; i++) {
      t = tok[i]
      if (t == "{") { depth++; section = "global"; last = t; continue }
      if (t == "}") { depth--; section = ""; last = t; continue }
      if (t == ";") { last = t; continue }
      if (depth == 0) { if (last != "}") node = t; last = t; continue }
      if (tok[i + 1] == ":") { section = t; i++; last = ":"; continue }
      last = t
      if (section == "global") print t, node
      else if (section == "local" && t != "*") print "LOCAL", t
    }
  }' > "$tmp/sym.raw"

fail=0
if grep -q '^LOCAL ' "$tmp/sym.raw"; then
  echo "note: names listed under local: $(sed -n 's/^LOCAL //p' "$tmp/sym.raw" | tr '\n' ' ')"
fi
grep -v '^LOCAL ' "$tmp/sym.raw" > "$tmp/sym.nodes"
if grep -q '[*?[]' "$tmp/sym.nodes"; then
  echo "FAIL: glob in a global: list of $symfile (list names explicitly; a glob exports every non-static rtel_* helper):"
  grep '[*?[]' "$tmp/sym.nodes" | sed 's/^/  /'
  fail=1
fi
cut -d' ' -f1 "$tmp/sym.nodes" | LC_ALL=C sort > "$tmp/sym.list"
dups=$(LC_ALL=C uniq -d "$tmp/sym.list")
if [ -n "$dups" ]; then
  echo "FAIL: names listed more than once in $symfile: $dups"
  fail=1
fi
LC_ALL=C sort -u "$tmp/sym.list" -o "$tmp/sym.list"
if [ ! -s "$tmp/sym.list" ]; then
  echo "ERROR: no global: names parsed from $symfile" >&2
  exit 99
fi

# -------------------------------------------------- names the .so exports
# "ADDR T name@@NODE" (binutils >= 2.35 prints the version). Ignore the
# version-node symbols (type A, absolute) and linker-provided symbols.
$NM -D --defined-only "$so" > "$tmp/nm.out" 2> "$tmp/nm.err" || {
  cat "$tmp/nm.err" >&2
  skip "$NM -D --defined-only failed on $so"
}
awk '
  NF >= 3 && $2 != "A" && $2 != "a" {
    print $3
  }' "$tmp/nm.out" |
  grep -v -E '^(_init|_fini|_edata|_end|__bss_start|_DYNAMIC|_GLOBAL_OFFSET_TABLE_)(@|$)' \
  > "$tmp/nm.versioned"
sed -e 's/@.*$//' "$tmp/nm.versioned" | LC_ALL=C sort -u > "$tmp/so.list"

# -------------------------------------------------- compare
if ! cmp -s "$tmp/sym.list" "$tmp/so.list"; then
  echo "FAIL: exported symbols differ from the global: names in $symfile"
  missing=$(LC_ALL=C comm -23 "$tmp/sym.list" "$tmp/so.list")
  extra=$(LC_ALL=C comm -13 "$tmp/sym.list" "$tmp/so.list")
  if [ -n "$missing" ]; then
    echo "  listed in $(basename "$symfile") but not exported (misspelled? no RTEL_API? not defined?):"
    printf '%s\n' "$missing" | sed 's/^/    /'
  fi
  if [ -n "$extra" ]; then
    echo "  exported by $(basename "$so") but not listed:"
    printf '%s\n' "$extra" | sed 's/^/    /'
  fi
  fail=1
fi
if grep -q '^rtel__' "$tmp/so.list"; then
  echo "FAIL: internal rtel__* symbols are exported:"
  grep '^rtel__' "$tmp/so.list" | sed 's/^/  /'
  fail=1
fi

# Version nodes: if nm shows them, each name must sit in the node that lists
# it (explicit names per release node; moving a name between nodes breaks
# the ABI).
if grep -q '@' "$tmp/nm.versioned"; then
  sed -n 's/^\([^@]*\)@@*\(.*\)$/\1 \2/p' "$tmp/nm.versioned" | LC_ALL=C sort -u > "$tmp/so.nodes"
  LC_ALL=C sort -u "$tmp/sym.nodes" > "$tmp/sym.nodes.s"
  # only compare names present on both sides (the set check above covers the rest)
  LC_ALL=C join "$tmp/sym.nodes.s" "$tmp/so.nodes" | awk '$2 != $3' > "$tmp/node.diff"
  if [ -s "$tmp/node.diff" ]; then
    echo "FAIL: symbols in the wrong version node (name, .sym node, .so node):"
    sed 's/^/  /' "$tmp/node.diff"
    fail=1
  fi
  unver=$(grep -v '@' "$tmp/nm.versioned" || true)
  if [ -n "$unver" ]; then
    echo "FAIL: unversioned exports (version script not applied?): $unver"
    fail=1
  fi
else
  echo "note: $NM prints no symbol versions; version nodes not checked"
fi

n=$(wc -l < "$tmp/so.list" | tr -d ' ')
if [ $fail -ne 0 ]; then
  exit 1
fi
echo "PASS: $n exported symbols match $(basename "$symfile")"
exit 0
