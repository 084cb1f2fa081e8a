# SPDX-License-Identifier: MIT
# tests/abi: the layout of the public structs (see HACKING.md: fragments
# only append to shared variables).
#
#   tests/abi/padding.sh  no struct of rocetel.h has unnamed padding, inner
#                         or trailing (pahole on x86-64, i386, 32-bit ARM)
TESTS += tests/abi/padding.sh
EXTRA_DIST += tests/abi/padding.sh
