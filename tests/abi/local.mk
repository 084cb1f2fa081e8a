# SPDX-License-Identifier: MIT
# tests/abi: the layout of the public structs, and structs that grow (see
# HACKING.md: fragments only append to shared variables).
#
#   tests/abi/padding.sh  no struct of rocetel.h has unnamed padding, inner
#                         or trailing (pahole on x86-64, i386, 32-bit ARM)
#   tests/abi/grown.sh    a header whose delivered structs grew (V2, made
#                         from rocetel.h at test time): a V2 application on
#                         today's library is refused V2 and served V1; a V1
#                         application on a library built from the grown
#                         header gets exactly today's V1 records (under
#                         ASan, with a negative control). Its consumer,
#                         tests/abi/consumer.c, is built by the script.
TESTS += tests/abi/padding.sh tests/abi/grown.sh
EXTRA_DIST += tests/abi/padding.sh tests/abi/grown.sh tests/abi/consumer.c
