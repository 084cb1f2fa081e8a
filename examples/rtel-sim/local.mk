# examples/rtel-sim/local.mk - rtel-sim, the RoCEv2 / NVMe-oF traffic simulator with
# ground truth (man/rtel-sim.1; its tests: tests/sim/local.mk).  Included from the
# top-level Makefile.am; it only appends to shared variables.
#
# rtel-sim is plain C11 with its own encoder: it must not use the library's
# parser or headers, because the tests compare the two.

# Installed, with its page (man/local.mk): the man pages and tests name it,
# and users make their own test captures with it.
bin_PROGRAMS += examples/rtel-sim/rtel-sim
examples_rtel_sim_rtel_sim_SOURCES = \
	examples/rtel-sim/main.c \
	examples/rtel-sim/config.c \
	examples/rtel-sim/scenario.c \
	examples/rtel-sim/model_net.c \
	examples/rtel-sim/model_rc.c \
	examples/rtel-sim/model_cm.c \
	examples/rtel-sim/model_gpu.c \
	examples/rtel-sim/model_nvme.c \
	examples/rtel-sim/truth.c \
	examples/rtel-sim/encode.c \
	examples/rtel-sim/crc.c \
	examples/rtel-sim/crc.h \
	examples/rtel-sim/rng.c \
	examples/rtel-sim/rng.h \
	examples/rtel-sim/heap.c \
	examples/rtel-sim/heap.h \
	examples/rtel-sim/out.c \
	examples/rtel-sim/out.h \
	examples/rtel-sim/sim.h
examples_rtel_sim_rtel_sim_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS)
examples_rtel_sim_rtel_sim_LDADD = -lm

# Where the tests find it.
AM_TESTS_ENVIRONMENT += \
	RTEL_SIM='$(abs_top_builddir)/examples/rtel-sim/rtel-sim'; export RTEL_SIM;
