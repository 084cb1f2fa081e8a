#!/bin/sh
# SPDX-License-Identifier: MIT
# Module map gate: see tests/check-modules.py.
exec "${PYTHON3:-python3}" "${top_srcdir:-$(dirname "$0")/..}/tests/check-modules.py" \
  "${top_srcdir:-$(dirname "$0")/..}"
