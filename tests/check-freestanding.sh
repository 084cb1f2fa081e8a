#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Freestanding build (HACKING.md, "Freestanding build"): lib/ must build
# without a hosted C library, e.g. in NIC firmware, with the caller's
# rtel_mem. Every lib/*.c (a glob: new files are checked too) is compiled
#
#   $CC -std=c11 -O2 -g -ffreestanding -fno-builtin -fno-stack-protector
#       -fno-sanitize=all -DRTEL_FREESTANDING -DBUILDING_ROCETEL
#       -I$top_srcdir/include -I$top_builddir/include -c lib/X.c
#
# (RTEL_FREESTANDING: lib/rtel_mem.c has no default allocator) and then
#  1. the C library headers that the project's own files include must be
#     freestanding ones (stddef.h, stdint.h, limits.h, ...) or string.h
#     (or cpuid.h, arm_neon.h: see allowed_hdrs);
#  2. the objects, linked into one (cc -r), may leave undefined only memcpy,
#     memset, memcmp and memmove (the four that GCC and clang require of a
#     freestanding environment and may call on their own, e.g. for a struct
#     copy) and the compiler's runtime helpers (libgcc / compiler-rt, e.g.
#     __udivti3 for a 128-bit division), which a freestanding program links
#     too.
# Each offending symbol is named with the object and the source lines that
# use it.
#
# Why -fno-builtin (-ffreestanding implies it; it is spelled out here): with
# builtins on, the compiler folds or inlines some library calls (strlen of
# a literal, a small memcpy) and so hides a dependency that another
# compiler, -O level or target would expose. Off, every call the source
# makes stays a call and is seen here; calls to the four mem* functions are
# allowed either way. -O2: the compiler-generated calls of a real build.
#
# Environment: top_srcdir, top_builddir (set by `make check`; by hand they
# default to this script's tree and the current directory), CC (default
# cc), NM (default nm), OBJDUMP (default objdump; only for source lines).
# Exit: 0 pass, 1 failure, 77 skip (no C compiler or nm), 99 setup error.

set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
if [ -z "${top_builddir:-}" ]; then
  if [ -f ./config.status ]; then top_builddir=$(pwd); else top_builddir=$top_srcdir; fi
fi
top_srcdir=$(cd "$top_srcdir" && pwd) || exit 99
top_builddir=$(cd "$top_builddir" && pwd) || exit 99
CC=${CC:-cc}
NM=${NM:-nm}
OBJDUMP=${OBJDUMP:-objdump}

skip() { echo "SKIP: $*"; exit 77; }

# (the tools may carry options, "/usr/bin/nm -B": test their first word)
# shellcheck disable=SC2086
set -- $CC
command -v "$1" >/dev/null 2>&1 || skip "no C compiler ($CC)"
# shellcheck disable=SC2086
set -- $NM
command -v "$1" >/dev/null 2>&1 || skip "nm not found ($NM)"
have_objdump=yes
# shellcheck disable=SC2086
set -- $OBJDUMP
command -v "$1" >/dev/null 2>&1 || have_objdump=no

ver=$top_builddir/include/rocetel/rocetelver.h
[ -f "$ver" ] || ver=$top_srcdir/include/rocetel/rocetelver.h
[ -f "$ver" ] || { echo "ERROR: generated rocetelver.h not found (run configure)" >&2; exit 99; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rtel-freestanding.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

cflags="-std=c11 -O2 -g -ffreestanding -fno-builtin -fno-stack-protector
  -fno-sanitize=all -DRTEL_FREESTANDING -DBUILDING_ROCETEL
  -I$top_srcdir/include -I$top_builddir/include"
allowed_funcs='memcpy memset memcmp memmove'
# headers of a freestanding implementation (C11 4p6), string.h for the
# four functions above, and two of the compiler's own headers that have no
# library behind them: cpuid.h (inline assembly for the CPUID instruction;
# it includes nothing) and arm_neon.h (NEON intrinsics; it includes only
# stdint.h), for the CRC-32 paths of lib/rtel_icrc.c. Intrinsic headers
# that pull in stdlib.h (GCC 12's xmmintrin.h does, for _mm_malloc) are not
# allowed: lib/rtel_icrc.c uses the compiler's builtins for x86-64 instead.
allowed_hdrs='float.h iso646.h limits.h stdalign.h stdarg.h stdbool.h stddef.h stdint.h stdnoreturn.h string.h cpuid.h arm_neon.h'

fail=0
objs=
nsrc=0
for src in "$top_srcdir"/lib/*.c; do
  [ -f "$src" ] || { echo "ERROR: no $top_srcdir/lib/*.c" >&2; exit 99; }
  nsrc=$((nsrc + 1))
  base=$(basename "$src" .c)
  obj=$tmp/$base.o
  # shellcheck disable=SC2086
  if ! $CC $cflags -c "$src" -o "$obj" > "$tmp/$base.cc" 2>&1; then
    echo "FAIL: lib/$base.c does not compile freestanding:"
    sed 's/^/  /' "$tmp/$base.cc"
    fail=1
    continue
  fi
  objs="$objs $obj"

  # 1. Headers: -H prints every header opened, one dot per nesting level.
  # A header outside the tree opened by a file of the tree is one the
  # project includes itself (not one a system header pulls in).
  # shellcheck disable=SC2086
  $CC $cflags -E -H "$src" -o /dev/null 2> "$tmp/$base.h" || true
  awk -v s="$top_srcdir/" -v b="$top_builddir/" -v f="lib/$base.c" '
    /^\.+ / {
      d = length($1); p = $2
      mine[d] = (index(p, s) == 1 || index(p, b) == 1)
      name[d] = p
      if (!mine[d] && (d == 1 || mine[d - 1])) {
        from = d == 1 ? f : name[d - 1]
        if (index(from, s) == 1) from = substr(from, length(s) + 1)
        else if (index(from, b) == 1) from = substr(from, length(b) + 1)
        print p, from
      }
    }' "$tmp/$base.h" | while read -r hdr from; do
    h=$(basename "$hdr")
    case " $allowed_hdrs " in
      *" $h "*) ;;
      *) echo "$h $from" ;;
    esac
  done >> "$tmp/bad-headers"
done

if [ -s "$tmp/bad-headers" ]; then
  echo "FAIL: headers a freestanding build does not have (header, included from):"
  sort -u "$tmp/bad-headers" | sed 's/^/  /'
  fail=1
fi
[ -n "$objs" ] || exit 1

# 2. Symbols: what the library as a whole leaves undefined.
# shellcheck disable=SC2086
if ! $CC -nostdlib -r -o "$tmp/rocetel.o" $objs 2> "$tmp/ld.err"; then
  # shellcheck disable=SC2086
  ${LD:-ld} -r -o "$tmp/rocetel.o" $objs 2>> "$tmp/ld.err" || {
    cat "$tmp/ld.err" >&2
    echo "ERROR: cannot link the objects together (cc -r, ld -r)" >&2
    exit 99
  }
fi
undefined() { $NM -P -u "$1" 2>/dev/null | awk '{ sub(/@.*/, "", $1); print $1 }' | LC_ALL=C sort -u; }
undefined "$tmp/rocetel.o" > "$tmp/undef"

# The compiler's runtime helpers: what its libgcc (or compiler-rt) defines.
rt=$($CC -print-libgcc-file-name 2>/dev/null) || rt=
if [ -n "$rt" ] && [ -f "$rt" ]; then
  $NM -P -g --defined-only "$rt" 2>/dev/null | awk 'NF >= 2 { print $1 }' |
    LC_ALL=C sort -u > "$tmp/rt"
else
  echo "note: no compiler runtime library found; taking the usual helper names"
  grep -E '^__(u?(div|mod|divmod|mul)[a-z]*i[34]|aeabi_|ashl|ashr|lshr|popcount|clz|ctz|ffs|bswap|u?cmp|neg)' \
    "$tmp/undef" > "$tmp/rt" || true
fi

: > "$tmp/bad"
: > "$tmp/helpers"
while read -r sym; do
  case " $allowed_funcs " in *" $sym "*) continue ;; esac
  [ "$sym" = _GLOBAL_OFFSET_TABLE_ ] && continue # the linker's
  if grep -qxF "$sym" "$tmp/rt"; then
    echo "$sym" >> "$tmp/helpers"
  else
    echo "$sym" >> "$tmp/bad"
  fi
done < "$tmp/undef"

# "file:line (function)" of each call site of $2 in object $1, or nothing.
sites() {
  [ $have_objdump = yes ] || return 0
  $OBJDUMP -d -r -l --no-show-raw-insn "$1" 2>/dev/null | awk -v sym="$2" -v s="$top_srcdir/" '
    /^[^ \t].*\(\):$/ { fn = $0; sub(/\(\):$/, "", fn); next }
    /^[^ \t].*:[0-9]+/ {
      loc = $1
      if (index(loc, s) == 1) loc = substr(loc, length(s) + 1)
      next
    }
    /R_[A-Z0-9_]+/ {
      t = $NF; sub(/[-+]0x[0-9a-f]+$/, "", t)
      if (t == sym && !seen[loc]++) printf "%s%s (%s)", n++ ? ", " : "", loc, fn
    }
    END { if (n) print "" }'
}

# Which objects use $1.
users() {
  for o in $objs; do
    if undefined "$o" | grep -qxF "$1"; then
      echo "$o"
    fi
  done
}

if [ -s "$tmp/helpers" ]; then
  printf 'note: compiler runtime helpers (libgcc / compiler-rt), allowed:'
  while read -r sym; do
    printf ' %s (%s)' "$sym" "$(users "$sym" | xargs -n1 basename | tr '\n' ' ' | sed 's/ $//')"
  done < "$tmp/helpers"
  echo
fi

if [ -s "$tmp/bad" ]; then
  echo "FAIL: lib/ calls functions a freestanding build does not have (only $allowed_funcs"
  echo "      and compiler runtime helpers may stay undefined); symbol, object: call sites"
  while read -r sym; do
    for o in $(users "$sym"); do
      where=$(sites "$o" "$sym")
      if [ -z "$where" ] && [ $have_objdump = yes ]; then
        where="no call site (an address in data)"
      fi
      echo "  $sym  $(basename "$o")${where:+: $where}"
    done
  done < "$tmp/bad"
  fail=1
fi

if [ $fail -ne 0 ]; then
  exit 1
fi
echo "PASS: $nsrc lib/*.c build freestanding (-DRTEL_FREESTANDING); undefined: $(tr '\n' ' ' < "$tmp/undef")"
exit 0
