# SPDX-License-Identifier: MIT
# Polling scheduler, alarm and aggregation tests (rtel-metrics(7), "POLLING
# SCHEDULER", "ALARMS", "AGGREGATES AND PERCENTILES").
#  tests/sched/check_sched  public API only (linked against the library):
#                           scheduler property runs over random
#                           configurations, mode changes, truncation at slot
#                           boundaries, alarms, I/O aggregate quantiles
#  tests/sched/check_hist   white-box log-linear histogram (internal
#                           functions, convenience library)
if HAVE_CHECK
check_PROGRAMS += tests/sched/check_sched tests/sched/check_hist
TESTS += tests/sched/check_sched tests/sched/check_hist

tests_sched_check_sched_SOURCES = \
	tests/sched/check_sched.c \
	tests/sched/check_alarm.c \
	tests/sched/check_agg.c \
	tests/sched/sim.c tests/sched/sim.h \
	tests/sched/harness.c tests/sched/harness.h
tests_sched_check_sched_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_sched_check_sched_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS) $(CHECK_CFLAGS)
tests_sched_check_sched_LDADD = tests/librtel_test.la lib/librocetel.la \
	$(CHECK_LIBS)

tests_sched_check_hist_SOURCES = tests/sched/check_hist.c
tests_sched_check_hist_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/lib
tests_sched_check_hist_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS) $(CHECK_CFLAGS)
tests_sched_check_hist_LDADD = lib/librocetel_core.la $(CHECK_LIBS)
endif
