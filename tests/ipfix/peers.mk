# SPDX-License-Identifier: MIT
# tests/ipfix/peers.mk - rtel-analyze's IPFIX export read back by other
# programs (see HACKING.md; included from Makefile.am, appends only):
#
#   tests/ipfix/nfdump.test     UDP to nfcapd, read with nfdump
#   tests/ipfix/tshark.test     a file and 512-byte UDP datagrams, tshark
#   tests/ipfix/ipfixdump.test  a file, ipfixDump --rfc5610 (libfixbuf)
#   tests/ipfix/pmacct.test     UDP to pmacct's nfacctd, every field of
#                               every record type
#   tests/ipfix/clickhouse.test UDP to nfacctd, its JSON into a private
#                               clickhouse-server: the I/O tables
#                               (clickhouse-tables.sql) and the segments
#                               computed in SQL (segments.sql)
#
# Each compares with rtel-analyze's JSON records (their docstrings say
# what); they need (via AM_TESTS_ENVIRONMENT) top_srcdir, PYTHON3,
# RTEL_SIM, RTEL_ANALYZE and TSHARK, and exit 77 (skip) when a program is
# missing or UDP on 127.0.0.1 is not allowed. Shared helpers:
# tests/ipfix/peerlib.py (nfdump, tshark, ipfixDump, soak) and
# tests/ipfix/collectorlib.py (pmacct, ClickHouse).
#
#   make ipfix-soak             benchmark, not in make check: 10^6 records
#                               to nfcapd over UDP (tests/ipfix/soak.py;
#                               IPFIX_SOAK_ARGS=... passes options)
TESTS += tests/ipfix/nfdump.test tests/ipfix/tshark.test \
	tests/ipfix/ipfixdump.test tests/ipfix/pmacct.test \
	tests/ipfix/clickhouse.test

EXTRA_DIST += tests/ipfix/peers.mk tests/ipfix/peerlib.py \
	tests/ipfix/nfdump.test tests/ipfix/nfdump.py \
	tests/ipfix/tshark.test tests/ipfix/tshark.py \
	tests/ipfix/ipfixdump.test tests/ipfix/ipfixdump.py \
	tests/ipfix/pmacct.test tests/ipfix/pmacct.py tests/ipfix/collectorlib.py \
	tests/ipfix/clickhouse.test tests/ipfix/clickhouse.py \
	tests/ipfix/clickhouse-tables.sql tests/ipfix/segments.sql \
	tests/ipfix/soak.py tests/ipfix/soak_send.c

.PHONY: ipfix-soak
ipfix-soak: lib/librocetel.la
	$(PYTHON3) $(srcdir)/tests/ipfix/soak.py --build $(abs_top_builddir) \
		$(IPFIX_SOAK_ARGS)
