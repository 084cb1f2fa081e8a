# tests/truth/local.mk - the library's records against the simulator's
# ground truth (see HACKING.md; included from Makefile.am).
TESTS += tests/truth/flows.test tests/truth/ios.test
EXTRA_DIST += tests/truth/local.mk tests/truth/flows.test \
	tests/truth/flows.py tests/truth/ios.test tests/truth/ios.py \
	tests/truth/truthlib.py
