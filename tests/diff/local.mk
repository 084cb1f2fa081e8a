# tests/diff/local.mk -- differential test against tshark and the capture generator.
# Included from the top-level Makefile.am; only appends to shared variables.
#
# tests/diff/tshark-diff.test needs (via AM_TESTS_ENVIRONMENT) top_srcdir, top_builddir,
# PYTHON3, TSHARK and RTEL_ANALYZE; it exits 77 (skip) when tshark or python3-scapy is missing.

TESTS += tests/diff/tshark-diff.test tests/diff/nvme-latency.test \
	tests/diff/flows-tshark.test

EXTRA_DIST += \
	tests/diff/local.mk \
	tests/diff/tshark-diff.test \
	tests/diff/tshark-diff.py \
	tests/diff/nvme-latency.test \
	tests/diff/nvme-latency.py \
	tests/diff/flows-tshark.test \
	tests/diff/flows-tshark.py \
	tests/gen/mkcaptures.py

CLEANFILES += \
	tests/diff/tshark-diff.mismatches \
	tests/gen/captures/*.pcap \
	tests/gen/captures/*.expected \
	tests/gen/captures/MANIFEST.json \
	tests/gen/captures.stamp

# The synthetic captures with their .expected JSON lines, for golden tests that want them:
# depend on tests/gen/captures.stamp and read $(top_builddir)/tests/gen/captures/NAME.pcap.
# (tshark-diff.test generates its own copy in a temporary directory.)
tests/gen/captures.stamp: $(srcdir)/tests/gen/mkcaptures.py
	$(AM_V_GEN)$(PYTHON3) $(srcdir)/tests/gen/mkcaptures.py tests/gen/captures && touch $@
