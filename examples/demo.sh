#!/bin/sh
# The README's first command: installs what a fresh Debian 12 machine
# lacks, builds libroceTel and rtel-analyze, and runs the analyzer on the
# bundled sample capture (examples/data/README.md says how it was made).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
# The build's chatter goes to build/demo.log; it is shown only if a step
# fails, so that what the demo prints is the analyzer's output.
mkdir -p build/demo
log=$top/build/demo.log
: >"$log"
quiet() {
  if ! "$@" >>"$log" 2>&1; then
    echo "demo.sh: '$*' failed; its output ($log):" >&2
    tail -n 40 "$log" >&2
    exit 1
  fi
}
echo "installing the Debian packages the build needs, if missing (log: build/demo.log)"
quiet "$top/tests/install-deps.sh" build
echo "building libroceTel and rtel-analyze in build/demo"
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
  quiet autoreconf -fi
fi
cd build/demo
[ -f Makefile ] || quiet "$top/configure" -q
quiet make -j2
echo "built: build/demo/examples/rtel-analyze (the library: build/demo/lib/.libs)"
sample=$top/examples/data/sample.pcap
run() { echo; echo "\$ rtel-analyze $*"; ./examples/rtel-analyze "$@"; }
run --packets "$sample" | head -n 12
run --flows "$sample"
run --ios "$sample" | head -n 12
run --summary "$sample"
run --stats "$sample"
