# SPDX-License-Identifier: MIT
# Check unit tests (see HACKING.md).
#  tests/check_public    public API, linked against the shared library
#  tests/check_internal  white-box, linked against the convenience library
if HAVE_CHECK
check_PROGRAMS += tests/check_public tests/check_internal
TESTS += tests/check_public tests/check_internal

tests_check_public_SOURCES = \
	tests/check_public.c \
	tests/check_decode.c \
	tests/check_ctx.c \
	tests/check_misc.c \
	tests/rtel_test_util.c tests/rtel_test_util.h
tests_check_public_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS) $(CHECK_CFLAGS)
tests_check_public_LDADD = lib/librocetel.la $(CHECK_LIBS)

tests_check_internal_SOURCES = \
	tests/check_internal.c \
	tests/check_icrc.c \
	tests/rtel_test_util.c tests/rtel_test_util.h
tests_check_internal_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/lib
tests_check_internal_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS) $(CHECK_CFLAGS)
tests_check_internal_LDADD = lib/librocetel_core.la $(CHECK_LIBS)
endif

# Manual pages (man/): lint, and one page per public name.
TESTS += tests/check-man.sh
EXTRA_DIST += tests/check-man.sh

# lib/ builds freestanding (-DRTEL_FREESTANDING) and needs no libc beyond
# memcpy, memset, memcmp and memmove (HACKING.md); CC and NM: tests/meta.mk.
TESTS += tests/check-freestanding.sh
EXTRA_DIST += tests/check-freestanding.sh
AM_TESTS_ENVIRONMENT += OBJDUMP='$(OBJDUMP)'; export OBJDUMP;
