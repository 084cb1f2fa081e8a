#!/bin/sh
# The README's first command: installs what a fresh Debian 12 machine
# lacks, builds libroceTel and rtel-analyze, and runs the analyzer on the
# bundled sample capture (examples/data/README.md says how it was made).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/tests/install-deps.sh" build
cd "$top"
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
  autoreconf -fi
fi
mkdir -p build/demo
cd build/demo
[ -f Makefile ] || "$top/configure" -q
make -j2 >/dev/null
sample=$top/examples/data/sample.pcap
run() { echo; echo "\$ rtel-analyze $*"; ./examples/rtel-analyze "$@"; }
run --packets "$sample" | head -n 12
run --flows "$sample"
run --ios "$sample" | head -n 12
run --summary "$sample"
run --stats "$sample"
