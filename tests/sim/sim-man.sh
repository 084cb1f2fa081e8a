#!/bin/sh
# tests/sim/sim-man.sh - man/rtel-sim.1 passes groff -man -ww -z and
# documents every option and scenario of the program.
srcdir=${srcdir:-.}
RTEL_SIM=${RTEL_SIM:-./examples/rtel-sim/rtel-sim}
page=$srcdir/man/rtel-sim.1
[ -x "$RTEL_SIM" ] || { echo "rtel-sim not built: $RTEL_SIM" >&2; exit 99; }
command -v groff >/dev/null 2>&1 || { echo "groff not found: skipped"; exit 77; }
fail=0
out=$(groff -man -ww -z "$page" 2>&1)
if [ -n "$out" ] ; then
  echo "FAIL: groff -man -ww -z $page:"; echo "$out"; fail=1
fi
# the page as plain text, hyphenation and adjustment off
txt=$(groff -man -Tutf8 -rLL=200n -P-cbou "$page" 2>/dev/null | sed 's/\xe2\x80\x90/-/g; s/\xe2\x88\x92/-/g')
for opt in $("$RTEL_SIM" --help | grep -o -- '--[a-z0-9-]*' | sort -u); do
  printf '%s\n' "$txt" | grep -q -- "$opt" || { echo "FAIL: option $opt is not documented"; fail=1; }
done
for s in $("$RTEL_SIM" --list-scenarios | awk '/^[a-z]/ {print $1}'); do
  printf '%s\n' "$txt" | grep -q -- "$s" || { echo "FAIL: scenario $s is not documented"; fail=1; }
done
for t in meta conn pkt loss retx_start msg io io_model flow summary; do
  printf '%s\n' "$txt" | grep -q -- "$t" || { echo "FAIL: record type $t is not documented"; fail=1; }
done
exit $fail
