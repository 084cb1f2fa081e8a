#!/bin/sh
# tests/sim/sim-icrc.sh - runs tests/sim/sim_icrc.py (see its docstring)
srcdir=${srcdir:-.}
RTEL_SIM=${RTEL_SIM:-./examples/rtel-sim/rtel-sim}
PY=${PYTHON3:-/usr/bin/python3}
export RTEL_SIM
[ -x "$RTEL_SIM" ] || { echo "rtel-sim not built: $RTEL_SIM" >&2; exit 99; }
command -v "$PY" >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 77; }
exec "$PY" "$srcdir/tests/sim/sim_icrc.py" "$@"
