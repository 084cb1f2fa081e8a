# SPDX-License-Identifier: MIT
# tests/json/local.mk - the JSON records of rtel-analyze, rtel-collect and
# switch-agent against their JSON Schema, docs/rtel-records.schema.json
# (issue 15; the format: man/rtel-analyze.1, OUTPUT). See HACKING.md;
# included from the top-level Makefile.am, appends only.
#
# tests/json/check_json.py runs the programs on tests/gen/mkcaptures.py's
# captures and on rtel-sim scenarios: schema (every line valid, every
# record type and member written, no number above 2^53, one JSON type per
# member name) and float (timestamps read by a parser of doubles are
# exact). Each exits 77 (skip) without python3, a program, or (schema)
# python3-jsonschema or python3-scapy.
if HAVE_PCAP
TESTS += \
	tests/json/json-schema.test \
	tests/json/json-float.test
endif

EXTRA_DIST += \
	tests/json/check_json.py \
	tests/json/json-schema.test \
	tests/json/json-float.test

# tests/json/check_writer: the record writer of the example programs
# (examples/rtel-json.c, the formatters that replace printf and inet_ntop)
# against hand-written strings and against printf and inet_ntop (Check).
if HAVE_CHECK
check_PROGRAMS += tests/json/check_writer
TESTS += tests/json/check_writer
tests_json_check_writer_SOURCES = tests/json/check_writer.c \
	examples/rtel-json.c examples/rtel-json.h
tests_json_check_writer_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/examples
tests_json_check_writer_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS) $(CHECK_CFLAGS) \
	-DRTEL_NO_DEPRECATED
tests_json_check_writer_LDADD = lib/librocetel.la $(CHECK_LIBS) -lm
endif
