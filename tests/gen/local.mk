# tests/gen/local.mk -- the synthetic capture generator (see HACKING.md).
# Included from the top-level Makefile.am; only appends to shared variables.

EXTRA_DIST += tests/gen/mkcaptures.py tests/gen/icrc-vectors.py

CLEANFILES += \
	tests/gen/captures/*.pcap \
	tests/gen/captures/*.expected \
	tests/gen/captures/MANIFEST.json \
	tests/gen/captures.stamp

# The synthetic captures with their .expected JSON lines, for golden tests that want them:
# depend on tests/gen/captures.stamp and read $(top_builddir)/tests/gen/captures/NAME.pcap.
# (tests/diff/tshark-diff.test generates its own copy in a temporary directory.)
tests/gen/captures.stamp: $(srcdir)/tests/gen/mkcaptures.py
	$(AM_V_GEN)$(PYTHON3) $(srcdir)/tests/gen/mkcaptures.py tests/gen/captures && touch $@
