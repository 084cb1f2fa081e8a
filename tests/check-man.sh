#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Lints the manual pages in man/ (section 1: programs, 3: the API, 7:
# rtel-metrics) and checks that none is missing. The pages are hand-written
# roff (man(7) macros), updated in the same commit as the header. Checks:
#
#  1. groff -man -ww -z prints nothing for every page (a warning fails);
#  2. man --warnings -l prints nothing for every page (skipped without man);
#  3. an alias page is exactly one line ".so man<N>/<page>" naming a page
#     that exists;
#  4. every name exported by lib/librocetel.sym and every function-like
#     wrapper macro of include/rocetel/rocetel.h has man/<name>.3;
#  5. the NAME section of the page that man/<name>.<N> leads to lists
#     <name> (lexgrog if available, else the NAME section is parsed), and
#     every name listed there has its own man/<name>.<N>;
#  6. every page is listed in a Makefile fragment, so that it is
#     distributed and installed;
#  7. the pages follow the header: every struct with a body in the header
#     is shown in a page with the same members in the same order, every
#     RTEL_* macro is mentioned in some page, and a value written as
#     '.BR RTEL_NAME " (value)"' (in a section 3 or 7 page) equals the
#     header's;
#  8. every reference to a page of the project (librocetel(3), rtel_*(N),
#     rtel-*(N)) names a page that exists in man/.
#
# Exit status: 0 pass, 1 fail, 77 skip (groff missing), 99 hard error.
# Run from "make check" (top_srcdir comes from AM_TESTS_ENVIRONMENT) or by
# hand: top_srcdir=. tests/check-man.sh

LC_ALL=C
export LC_ALL

if test -z "${top_srcdir:-}"; then
  top_srcdir=$(cd "$(dirname "$0")/.." && pwd) || exit 99
fi
mandir=$top_srcdir/man
sym=$top_srcdir/lib/librocetel.sym
header=$top_srcdir/include/rocetel/rocetel.h

if ! command -v groff >/dev/null 2>&1; then
  echo "check-man: SKIP: groff not found"
  exit 77
fi
for f in "$sym" "$header"; do
  if test ! -r "$f"; then
    echo "check-man: ERROR: cannot read $f"
    exit 99
  fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-man.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
trap 'exit 99' HUP INT TERM

fail=0
err() {
  echo "check-man: FAIL: $*"
  fail=1
}

# A tree like an installed man directory (man1/, man3/, ...), so that the
# ".so man3/x.3" requests of alias pages resolve from inside it.
pages=
for f in "$mandir"/*.[1-9]; do
  test -f "$f" || continue
  b=${f##*/}
  sec=${b##*.}
  mkdir -p "$tmp/man$sec" || exit 99
  cp "$f" "$tmp/man$sec/$b" || exit 99
  pages="$pages $b"
done
if test -z "$pages"; then
  err "no pages in $mandir"
  exit 1
fi

# The one-line alias pages: prints the target (man3/x.3), or nothing.
so_target() {
  sed -n '1s/^\.so[ 	][ 	]*\([^ 	]*\)[ 	]*$/\1/p' "$1"
}

# groff options for the preprocessors a page asks for on its first line
# ('\" t: tbl, e: eqn, p: pic, r: refer), as man(1) does.
preproc() {
  line=$(sed -n '1p' "$1")
  case $line in
    "'\\\" "*) ;;
    *) return 0 ;;
  esac
  opts=
  letters=${line#"'\\\" "}
  case $letters in *t*) opts="$opts -t" ;; esac
  case $letters in *e*) opts="$opts -e" ;; esac
  case $letters in *p*) opts="$opts -p" ;; esac
  case $letters in *r*) opts="$opts -R" ;; esac
  echo "$opts"
}

have_man=no
if command -v man >/dev/null 2>&1; then
  have_man=yes
else
  echo "check-man: man not found: skipping the man --warnings part"
fi

# ------------------------------------------------------------ 1-3: lint
for b in $pages; do
  sec=${b##*.}
  rel=man$sec/$b
  target=$(so_target "$tmp/$rel")
  if test -n "$target"; then
    lines=$(wc -l <"$tmp/$rel")
    test "$lines" -eq 1 || err "$b: an alias page must be one .so line"
    test -f "$tmp/$target" || err "$b: .so target $target does not exist"
    if test -n "$(so_target "$tmp/$target" 2>/dev/null)"; then
      err "$b: .so target $target is itself an alias"
    fi
  elif grep -q '^\.so' "$tmp/$rel"; then
    err "$b: .so is only allowed as the single line of an alias page"
  fi

  # one footer for every page: .TH NAME SECTION DATE "librocetel VERSION"
  # "libroceTel Manual", the date an ISO date
  if test -z "$target"; then
    th=$(grep '^\.TH ' "$tmp/$rel" | head -1)
    case $th in
      ".TH "*" $sec "[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]" \"librocetel "*"\" \"libroceTel Manual\"") ;;
      *) err "$b: .TH is not '.TH NAME $sec YYYY-MM-DD \"librocetel VERSION\" \"libroceTel Manual\"': $th" ;;
    esac
    if test -n "${PACKAGE_VERSION:-}"; then
      case $th in
        *"\"librocetel $PACKAGE_VERSION\""*) ;;
        *) err "$b: .TH names another version than $PACKAGE_VERSION: $th" ;;
      esac
    fi
  fi

  out=$(cd "$tmp" && groff -s $(preproc "$rel") -man -ww -z "$rel" 2>&1)
  if test -n "$out"; then
    err "$b: groff -man -ww -z:"
    printf '%s\n' "$out" | sed 's/^/    /'
  fi

  if test "$have_man" = yes; then
    # Format for an 80-column terminal in UTF-8 where available, as
    # people read them; C otherwise.
    loc=C
    if locale -a 2>/dev/null | grep -qi '^c\.utf-\{0,1\}8$'; then
      loc=C.UTF-8
    fi
    out=$(cd "$tmp" && LC_ALL=$loc MANWIDTH=80 MAN_KEEP_FORMATTING= \
          MANPAGER=cat PAGER=cat man --warnings -l "$rel" 2>&1 >/dev/null)
    if test -n "$out"; then
      err "$b: man --warnings -l:"
      printf '%s\n' "$out" | sed 's/^/    /'
    fi
  fi
done

# Removes C comments (/* ... */, also across lines) from standard input.
strip_c_comments() {
  awk '{ s = $0; out = "";
         while (s != "") {
           if (inc) { i = index(s, "*/");
                      if (i == 0) { s = "" } else { s = substr(s, i + 2); inc = 0 } }
           else { i = index(s, "/*");
                  if (i == 0) { out = out s; s = "" }
                  else { out = out substr(s, 1, i - 1); s = substr(s, i + 2); inc = 1 } } }
         print out }'
}

# ------------------------------------------------------ 4: nothing missing
# Exported names: the "name;" lines of the version script, comments removed.
exported=$(sed -e 's/#.*//' "$sym" | strip_c_comments |
           sed -n 's/^[ 	]*\([A-Za-z_][A-Za-z0-9_]*\)[ 	]*;[ 	]*$/\1/p')
if test -z "$exported"; then
  err "no exported names found in $sym"
fi
# Function-like wrapper macros: "#define rtel_name(" in the public header.
macros=$(sed -n 's/^[ 	]*#[ 	]*define[ 	][ 	]*\(rtel_[A-Za-z0-9_]*\)(.*/\1/p' \
           "$header")
for name in $exported $macros; do
  test -f "$mandir/$name.3" || err "$name has no page man/$name.3"
done

# ----------------------------------------------------- 5: NAME sections
# Names a page's NAME section lists, one per line.
names_of() {  # names_of <dir> <relative page>
  if command -v lexgrog >/dev/null 2>&1; then
    # lexgrog prints one line per name: <file>: "<name> - <description>"
    (cd "$1" && lexgrog "$2" 2>/dev/null) |
      sed -n 's/^[^:]*: "\([^ ]*\) - .*/\1/p'
  else
    # "name, name \- description"; a name may hold "\-" (rtel\-metrics)
    awk '/^\.SH/ { if (inname) exit; if ($2 == "NAME" || $2 == "\"NAME\"") { inname = 1; next } }
         inname && !/^\.\\"/ { printf "%s ", $0 }' "$1/$2" |
      sed -e 's/[ 	]\\-[ 	].*//' -e 's/\\-/-/g' -e 's/\\&//g' \
          -e 's/\\f[BIRP]//g' -e 's/,/ /g' |
      tr ' ' '\n' | sed '/^$/d'
  fi
}
for b in $pages; do
  sec=${b##*.}
  rel=man$sec/$b
  name=${b%.*}
  target=$(so_target "$tmp/$rel")
  test -n "$target" || target=$rel
  test -f "$tmp/$target" || continue          # reported above
  listed=$(names_of "$tmp" "$target")
  if test -z "$listed"; then
    err "$b: no NAME section found in ${target##*/}"
    continue
  fi
  if ! printf '%s\n' "$listed" | grep -qx -- "$name"; then
    err "$b: the NAME section of ${target##*/} does not list $name"
  fi
  if test "$target" = "$rel"; then
    for n in $listed; do
      test -f "$mandir/$n.$sec" ||
        err "$b: NAME lists $n, but there is no page man/$n.$sec"
    done
  fi
done

# ------------------------------------------------ 6: listed for automake
mkfiles=
for f in "$top_srcdir/Makefile.am" "$top_srcdir"/*/local.mk \
         "$top_srcdir"/*/*/local.mk; do
  test -f "$f" && mkfiles="$mkfiles $f"
done
if test -n "$mkfiles"; then
  for b in $pages; do
    # shellcheck disable=SC2086
    grep -q "man/$b\\([ 	\\\\]\\|\$\\)" $mkfiles ||
      err "$b: not listed in any Makefile fragment (dist_man*_MANS)"
  done
fi

# ------------------------------------------------- 7: pages follow header
# Member names, in order, of C declarations on standard input
# ("uint8_t a[6], b[6]; const char *c;" gives a, b, c).
members_of() {
  tr '\n' ' ' | tr ';' '\n' | sed -e 's/\[[^]]*\]//g' -e 's/\*/ /g' |
    awk -F, '{ for (i = 1; i <= NF; i++) {
                 f = $i; gsub(/^[ \t]+|[ \t]+$/, "", f)
                 if (f == "") continue
                 if (i == 1) { m = split(f, w, /[ \t]+/); f = w[m] }
                 print f } }'
}
verh=$top_srcdir/include/rocetel/rocetelver.h.in
test -r "$verh" || verh=
structs=$(sed -n 's/^typedef struct \(rtel_[A-Za-z0-9_]*\) {.*/\1/p' "$header")
for st in $structs; do
  want=$(strip_c_comments <"$header" |
         awk -v n="$st" '$0 ~ "^typedef struct " n " [{]" { on = 1; next }
                         on && $0 ~ "^} " n ";" { exit }
                         on { print }' | members_of)
  page=
  for f in "$mandir"/*.3; do
    test -n "$(so_target "$f")" && continue
    if awk -v n="$st" 'index($0, "typedef struct " n " {") &&
                       !index($0, "} " n ";") { found = 1 }
                       END { exit !found }' "$f"; then
      page=$f
      break
    fi
  done
  if test -z "$page"; then
    err "struct $st (in the header) is not shown in any page"
    continue
  fi
  got=$(awk -v n="$st" 'index($0, "typedef struct " n " {") &&
                        !index($0, "} " n ";") { on = 1; next }
                        on && index($0, "} " n ";") { exit }
                        on { print }' "$page" |
        sed -e 's/^\.[A-Z][A-Z]* //' -e 's/"//g' -e 's/\\f[BIRP]//g' \
            -e 's/\\-/-/g' -e 's/\\&//g' | strip_c_comments | members_of)
  if test "$(echo $want)" != "$(echo $got)"; then
    err "${page##*/}: struct $st differs from the header:"
    echo "    header: $(echo $want)"
    echo "    page:   $(echo $got)"
  fi
done

# Every RTEL_* macro of the headers is mentioned in some section 3 page.
consts=$(sed -n 's/^[ 	]*#[ 	]*define[ 	][ 	]*\(RTEL_[A-Za-z0-9_]*\).*/\1/p' \
           "$header" $verh | sort -u)
for c in $consts; do
  case $c in
    RTEL_API | RTEL_WARN_UNUSED_RESULT | RTEL_DEPRECATED) continue ;;
  esac
  grep -qw -- "$c" "$mandir"/*.3 || err "$c (in the header) is in no page"
done

# Values written '.BR RTEL_NAME " (value)"' equal those of the header.
sed -n 's/^\.BR* \(RTEL_[A-Z0-9_]*\) " (\(\\-\)\{0,1\}\([0-9][0-9a-fA-FxX]*\))".*/\1 \2\3/p' \
    "$mandir"/*.[37] | sed 's/^\([^ ]*\) \\-/\1 -/' | sort -u >"$tmp/values"
while read -r c v; do
  hv=$(sed -n "s/^[ 	]*#[ 	]*define[ 	][ 	]*$c[ 	][ 	]*(\{0,1\}\(-\{0,1\}[0-9][0-9a-fA-FxX]*\)[uU]\{0,1\})\{0,1\}[ 	]*\(\/.*\)\{0,1\}$/\1/p" \
       "$header" | sed -n 1p)
  if test -z "$hv"; then
    err "a page gives $c the value $v, but the header has no numeric $c"
  elif test "$((hv))" -ne "$((v))"; then
    err "a page gives $c the value $v; the header says $hv"
  fi
done <"$tmp/values"

# --------------------------------------------- 8: cross-references resolve
# ".BR rtel_flow_record (3)", ".BR rtel\-metrics (7)", "librocetel(3)", ...
for b in $pages; do
  rel=man${b##*.}/$b
  test -n "$(so_target "$tmp/$rel")" && continue
  grep -o '\(rtel[_\\][A-Za-z0-9_\\-]*\|librocetel\) \{0,1\}([1-9][A-Za-z]*)' \
       "$tmp/$rel" | sed -e 's/\\-/-/g' -e 's/ *(/ /' -e 's/)$//' |
    sort -u >"$tmp/refs"
  while read -r n s; do
    test -f "$mandir/$n.$s" || err "$b: refers to $n($s), which has no page man/$n.$s"
  done <"$tmp/refs"
done

npages=$(echo $pages | wc -w)
if test "$fail" -ne 0; then
  echo "check-man: FAIL ($npages pages)"
  exit 1
fi
echo "check-man: PASS: $npages pages"
exit 0
