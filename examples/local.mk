# examples/local.mk - programs around the library (see HACKING.md)
EXTRA_DIST += examples/demo.sh examples/data/sample.pcap examples/data/README.md
if HAVE_PCAP
bin_PROGRAMS += examples/rtel-analyze
examples_rtel_analyze_SOURCES = examples/rtel-analyze.c
examples_rtel_analyze_CFLAGS = -std=c11 $(EXTRA_WARN_CFLAGS) $(PCAP_CFLAGS) -DRTEL_NO_DEPRECATED
examples_rtel_analyze_LDADD = lib/librocetel.la $(PCAP_LIBS)
endif

