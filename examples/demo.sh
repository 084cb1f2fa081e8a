#!/bin/sh
# The README's first command: installs what a fresh Debian 12 machine
# lacks, builds libroceTel and rtel-analyze, and runs the analyzer on the
# bundled sample capture (made by rtel-sim, see examples/data/README).
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
set -x
./examples/rtel-analyze --packets "$top/examples/data/sample.pcap" | head -n 25
./examples/rtel-analyze "$top/examples/data/sample.pcap"
