# SPDX-License-Identifier: MIT
# tests/ipfix: an independent, strict IPFIX reader (RFC 7011, RFC 7012,
# RFC 5610) written from the RFCs to judge the library's encoder, and the
# reader's own Check suite against hand-computed bytes.
#  tests/ipfix/libipfix_read.la   the reader (ipfix_read.c, ipfix_read.h):
#                                 no Check, no library; link it from the
#                                 encoder's suite (-I$(top_srcdir)/tests/ipfix
#                                 or -I$(top_srcdir)/tests and
#                                 "ipfix/ipfix_read.h"). A harness built
#                                 outside automake (tests/fuzz/run-fuzz.sh)
#                                 compiles $(IPFIX_READ_SOURCES) itself.
#  tests/ipfix/check_ipfix_read   the reader's suite
#  tests/ipfix/check_ipfix        the encoder's suite (lib/rtel_ipfix.c)
#                                 against hand-computed bytes, the man
#                                 page's tables and the reader, with
#                                 ipfix_expect.c (field-by-field checks)
IPFIX_READ_SOURCES = tests/ipfix/ipfix_read.c tests/ipfix/ipfix_read.h

check_LTLIBRARIES += tests/ipfix/libipfix_read.la
tests_ipfix_libipfix_read_la_SOURCES = $(IPFIX_READ_SOURCES)
tests_ipfix_libipfix_read_la_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS)

if HAVE_CHECK
check_PROGRAMS += tests/ipfix/check_ipfix_read
TESTS += tests/ipfix/check_ipfix_read

tests_ipfix_check_ipfix_read_SOURCES = tests/ipfix/check_ipfix_read.c
tests_ipfix_check_ipfix_read_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/tests/ipfix
tests_ipfix_check_ipfix_read_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS) \
	$(CHECK_CFLAGS)
tests_ipfix_check_ipfix_read_LDADD = tests/ipfix/libipfix_read.la \
	$(CHECK_LIBS)

check_PROGRAMS += tests/ipfix/check_ipfix
TESTS += tests/ipfix/check_ipfix

tests_ipfix_check_ipfix_SOURCES = tests/ipfix/check_ipfix.c \
	tests/ipfix/ipfix_expect.c tests/ipfix/ipfix_expect.h
tests_ipfix_check_ipfix_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/tests/ipfix
tests_ipfix_check_ipfix_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS) \
	$(CHECK_CFLAGS)
tests_ipfix_check_ipfix_LDADD = lib/librocetel.la \
	tests/ipfix/libipfix_read.la $(CHECK_LIBS) -lm
endif
