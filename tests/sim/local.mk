# tests/sim/local.mk - tests of rtel-sim, the traffic simulator (its program:
# examples/rtel-sim/local.mk; its manual: man/rtel-sim.1). Included from the
# top-level Makefile.am; it only appends to shared variables.

RTEL_SIM_TESTS = \
	tests/sim/sim-cli.sh \
	tests/sim/sim-man.sh \
	tests/sim/sim-determinism.sh \
	tests/sim/sim-icrc.sh \
	tests/sim/sim-truth.sh \
	tests/sim/sim-tshark.sh
TESTS += $(RTEL_SIM_TESTS)
check_SCRIPTS += $(RTEL_SIM_TESTS)
EXTRA_DIST += \
	$(RTEL_SIM_TESTS) \
	tests/sim/simcheck.py \
	tests/sim/sim_truth.py \
	tests/sim/sim_tshark.py \
	tests/sim/sim_icrc.py
