#!/bin/sh
# SPDX-License-Identifier: MIT
# The C sources are formatted as .clang-format says (clang-format 14, the
# version Debian 12 ships): every *.c and *.h under lib/, include/,
# examples/ and tests/. Skips (77) without clang-format. To fix a tree:
#   clang-format -i $(git ls-files '*.c' '*.h')
top=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
cf=${CLANG_FORMAT:-clang-format}
if ! command -v "$cf" >/dev/null 2>&1; then
  echo "check-format: SKIP: $cf not found"
  exit 77
fi
cd "$top" || exit 1
bad=0
n=0
for f in $(find lib include examples tests -name "*.[ch]" | LC_ALL=C sort); do
  n=$((n + 1))
  if ! "$cf" --style=file "$f" | cmp -s - "$f"; then
    echo "check-format: FAIL: $f is not formatted (clang-format -i $f):"
    "$cf" --style=file "$f" | diff -u "$f" - | head -n 20
    bad=$((bad + 1))
  fi
done
if [ "$bad" -ne 0 ]; then
  echo "check-format: FAIL: $bad of $n files"
  exit 1
fi
echo "check-format: PASS: $n files"
