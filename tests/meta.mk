# SPDX-License-Identifier: MIT
# Meta tests: exported symbols, public headers, ABI gate (see HACKING.md:
# fragments only append to shared variables).
#
#   tests/check-exports.sh  nm -D of librocetel.so == the .sym names (§2.12)
#   tests/check-headers.sh  each public header alone as C99 and C++11 (§2.2)
#   tests/abi-check.sh      abidiff against abi/librocetel-$(host_cpu).abi
#   tests/check-modules.sh  lib/ call directions as HACKING.md's module map
#                           allows, no circle, callbacks only from the hub
#   tests/check-format.sh   every C file as .clang-format says (skips
#                           without clang-format)
#
#   make abi-check          run the ABI gate alone (CI: on a CFLAGS="-g -Og" build)
#   make abi-baseline       regenerate abi/librocetel-$(host_cpu).abi in the
#                           source tree from this build (needs -g), then commit it

TESTS += tests/check-exports.sh tests/check-headers.sh tests/abi-check.sh \
	tests/check-modules.sh tests/check-format.sh
EXTRA_DIST += tests/check-exports.sh tests/check-headers.sh tests/abi-check.sh \
	tests/check-modules.sh tests/check-modules.py tests/check-format.sh \
	.clang-format

# Tools and host for the scripts above (each has a fallback when run by hand).
AM_TESTS_ENVIRONMENT += \
	host_cpu='$(host_cpu)'; export host_cpu; \
	NM='$(NM)'; export NM; \
	CC='$(CC)'; export CC; \
	CXX='$(CXX)'; export CXX; \
	ABIDIFF='$(ABIDIFF)'; export ABIDIFF; \
	ABIDW='$(ABIDW)'; export ABIDW;

rtel_abi_env = top_srcdir='$(abs_top_srcdir)' \
	top_builddir='$(abs_top_builddir)' host_cpu='$(host_cpu)' \
	ABIDIFF='$(ABIDIFF)' ABIDW='$(ABIDW)'

.PHONY: abi-check abi-baseline
abi-check: lib/librocetel.la
	@$(rtel_abi_env) $(SHELL) $(srcdir)/tests/abi-check.sh; rc=$$?; \
	if test $$rc -eq 77; then echo "abi-check: could not run (see SKIP above)"; exit 1; fi; \
	exit $$rc

abi-baseline: lib/librocetel.la
	@$(rtel_abi_env) $(SHELL) $(srcdir)/tests/abi-check.sh --update
