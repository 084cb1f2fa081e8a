#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Every public header compiles on its own, as C99 and
# as C++11, with -Wall -Wextra -Werror -pedantic (libnl check-build-headers),
# and every version-passing wrapper macro of rocetel.h expands to valid code.
#
# Headers: $top_srcdir/include/rocetel/*.h and the generated
# $top_builddir/include/rocetel/rocetelver.h.
#
# Environment: top_srcdir, top_builddir (set by `make check`; by hand they
# default to this script's tree and the current directory), CC (default cc),
# CXX (default c++; C++ is skipped if there is none).
# Exit: 0 pass, 1 failure, 77 no C compiler, 99 setup error.

set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
if [ -z "${top_builddir:-}" ]; then
  if [ -f ./config.status ]; then top_builddir=$(pwd); else top_builddir=$top_srcdir; fi
fi
CC=${CC:-cc}
CXX=${CXX:-c++}

set -- $CC
command -v "$1" >/dev/null 2>&1 || { echo "SKIP: no C compiler ($CC)"; exit 77; }
have_cxx=yes
set -- $CXX
command -v "$1" >/dev/null 2>&1 || have_cxx=no

incdir=$top_srcdir/include/rocetel
ver=$top_builddir/include/rocetel/rocetelver.h
[ -f "$ver" ] || ver=$incdir/rocetelver.h
[ -f "$ver" ] || { echo "ERROR: generated rocetelver.h not found (run configure)" >&2; exit 99; }
[ -f "$incdir/rocetel.h" ] || { echo "ERROR: no $incdir/rocetel.h" >&2; exit 99; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rtel-headers.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

# The build dir comes first, so a stale rocetelver.h in the source tree from
# an earlier in-tree configure cannot shadow the generated one.
inc="-I$top_builddir/include -I$top_srcdir/include"
cflags="-std=c99 -Wall -Wextra -Werror -pedantic -Wundef -Wstrict-prototypes"
cxxflags="-std=c++11 -Wall -Wextra -Werror -pedantic -Wundef"

fail=0
n=0
compile() { # LANG FILE EXTRA-FLAGS...
  lang=$1; src=$2; shift 2
  if [ "$lang" = c ]; then
    set -- $CC $cflags "$@" $inc -c "$src" -o "$tmp/out.o"
  else
    set -- $CXX $cxxflags "$@" $inc -x c++ -c "$src" -o "$tmp/out.o"
  fi
  n=$((n + 1))
  if ! "$@" > "$tmp/log" 2>&1; then
    echo "FAIL: $*"
    sed 's/^/  /' "$tmp/log"
    fail=1
  fi
}

# ----------------------------------------------- each header alone
headers=
for h in "$incdir"/*.h "$ver"; do
  [ -f "$h" ] || continue
  b=$(basename "$h")
  case " $headers " in *" $b "*) continue ;; esac   # rocetelver.h in-tree
  headers="$headers $b"
  # (a declaration after it: ISO C forbids an empty translation unit)
  printf '#include <rocetel/%s>\ntypedef int rtel_hdrtest_nonempty;\n' "$b" > "$tmp/alone_$b.c"
  # included twice: the include guard must work
  printf '#include <rocetel/%s>\n#include <rocetel/%s>\nint rtel_hdrtest_dummy;\n' \
    "$b" "$b" > "$tmp/twice_$b.c"
  for variant in "" "-DBUILDING_ROCETEL" "-DRTEL_STATICLIB"; do
    compile c "$tmp/alone_$b.c" $variant
    [ $have_cxx = yes ] && compile cxx "$tmp/alone_$b.c" $variant
  done
  compile c "$tmp/twice_$b.c"
  [ $have_cxx = yes ] && compile cxx "$tmp/twice_$b.c"
done

# ----------------------------------------------- wrapper macros expand
# The core wrappers, used with real argument types.
cat > "$tmp/macros.c" <<'EOF'
#include <rocetel/rocetel.h>

#if !defined(RTEL_VERSION_NUM) || RTEL_VERSION_NUM < 0
#  error "RTEL_VERSION_NUM is not a preprocessor number"
#endif
#if RTEL_ERR_FATAL >= 0 || RTEL_ERR_NOMEM >= RTEL_ERR_FATAL
#  error "error codes"
#endif
#if RTEL_MALFORMED_SLOTS < 1 || RTEL_MAX_VLAN < 1
#  error "limits"
#endif

static const char rtel_hdrtest_version[] = RTEL_VERSION;

int rtel_hdrtest_use(rtel_ctx **pctx, rtel_pkt_hd *hd,
                     const rtel_decode_opts *opts, const uint8_t *pkt,
                     size_t len, rtel_settings *settings,
                     const rtel_callbacks *callbacks, const rtel_pkt_info *pi,
                     const uint8_t *const *pkts, const size_t *lens,
                     rtel_ctx_stats *stats, uint32_t *icrc);

int rtel_hdrtest_use(rtel_ctx **pctx, rtel_pkt_hd *hd,
                     const rtel_decode_opts *opts, const uint8_t *pkt,
                     size_t len, rtel_settings *settings,
                     const rtel_callbacks *callbacks, const rtel_pkt_info *pi,
                     const uint8_t *const *pkts, const size_t *lens,
                     rtel_ctx_stats *stats, uint32_t *icrc) {
  int rv = 0;
  rtel_ssize n;
  rtel_tstamp t;
  const rtel_mem *mem = rtel_mem_default();
  const rtel_info *info = rtel_version(RTEL_VERSION_NUM);

  rtel_settings_default(settings);
  rv |= rtel_pkt_decode(hd, opts, pkt, len, len);
  rv |= rtel_icrc_compute(hd, pkt, len, icrc);
  rv |= rtel_ctx_new(pctx, settings, callbacks, mem, (void *)0);
  rv |= rtel_ctx_read_pkt(*pctx, pi, pkt, len);
  n = rtel_ctx_read_pkts(*pctx, pi, pkts, lens, 2);
  rv |= rtel_ctx_get_stats(*pctx, stats);
  t = rtel_ctx_get_expiry(*pctx);
  if (t != RTEL_TSTAMP_NONE) {
    rv |= rtel_ctx_handle_expiry(*pctx, t);
  }
  rv |= (int)RTEL_AETH_KIND(hd->aeth_syndrome);
  rv |= (int)RTEL_AETH_VALUE(hd->aeth_syndrome);
  rv |= rtel_err_is_fatal(RTEL_ERR_CALLBACK_FAILURE);
  rv |= rtel_strerror(rv)[0];
  rv |= rtel_opcode_str(hd->opcode)[0];
  rv |= rtel_malformed_str(hd->malformed)[0];
  rv |= rtel_hdrtest_version[0];
  rtel_ctx_del(*pctx);
  return rv + (int)n + (info != (const rtel_info *)0);
}
EOF
compile c "$tmp/macros.c"
compile c "$tmp/macros.c" -DBUILDING_ROCETEL
[ $have_cxx = yes ] && compile cxx "$tmp/macros.c"

# Every function-like rtel_* macro of rocetel.h (the version-passing
# wrappers), expanded with 0 for each argument inside sizeof: the expansion
# is type-checked (the *_versioned function it names must exist and accept
# the arguments) without being evaluated. New wrappers are picked up here
# automatically; the hand-written unit above checks the core ones with real
# argument types.
sed -n 's/^#[[:space:]]*define[[:space:]][[:space:]]*\(rtel_[A-Za-z0-9_]*\)(\([^)]*\)).*/\1 \2/p' \
  "$incdir/rocetel.h" > "$tmp/wrappers"
{
  echo '#include <rocetel/rocetel.h>'
  echo 'void rtel_hdrtest_wrappers(void);'
  echo 'void rtel_hdrtest_wrappers(void) {'
  while read -r m args; do
    zeros=
    [ -n "$(printf '%s' "$args" | tr -d ' ')" ] &&
      zeros=$(printf '%s\n' "$args" | tr -d ' ' | tr ',' '\n' | sed 's/.*/0/' | paste -s -d, -)
    echo "  (void)sizeof($m($zeros), 0);"
  done < "$tmp/wrappers"
  echo '}'
} > "$tmp/wrappers.c"
compile c "$tmp/wrappers.c"
[ $have_cxx = yes ] && compile cxx "$tmp/wrappers.c"
nw=$(wc -l < "$tmp/wrappers" | tr -d ' ')

[ $have_cxx = yes ] || echo "note: no C++ compiler ($CXX); C++ checks skipped"
if [ $fail -ne 0 ]; then
  exit 1
fi
with="$CC"
[ $have_cxx = yes ] && with="$CC and $CXX"
echo "PASS: $n compilations (headers:$headers; $nw wrapper macros) with $with"
exit 0
