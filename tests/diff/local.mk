# tests/diff/local.mk -- differential tests against tshark (captures from tests/gen/mkcaptures.py).
# Included from the top-level Makefile.am; only appends to shared variables.
#
# tests/diff/tshark-diff.test needs (via AM_TESTS_ENVIRONMENT) top_srcdir, top_builddir,
# PYTHON3, TSHARK and RTEL_ANALYZE; it exits 77 (skip) when tshark or python3-scapy is missing.
# Its capture generator, tests/gen/mkcaptures.py, is wired in tests/gen/local.mk.

TESTS += tests/diff/tshark-diff.test tests/diff/nvme-latency.test \
	tests/diff/flows-tshark.test

EXTRA_DIST += \
	tests/diff/local.mk \
	tests/diff/tshark-diff.test \
	tests/diff/tshark-diff.py \
	tests/diff/nvme-latency.test \
	tests/diff/nvme-latency.py \
	tests/diff/flows-tshark.test \
	tests/diff/flows-tshark.py

CLEANFILES += tests/diff/tshark-diff.mismatches
