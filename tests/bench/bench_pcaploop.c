/* SPDX-License-Identifier: MIT */
/*
 * make bench-analyze: the bare loops over a capture file that
 * tests/bench/analyze-e2e.py sets beside rtel-analyze.
 *
 *   bench_pcaploop FILE      libpcap: pcap_open_offline() and pcap_next_ex()
 *                            until the end, nothing else
 *   bench_pcaploop -c FILE   the same with examples/capfile.c, the reader
 *                            rtel-analyze uses: capfile_open() and
 *                            capfile_next() until the end
 *
 * Each packet's captured length is summed (so that the loop is not
 * empty); no packet byte is read. Prints one line:
 *
 *   pcap: 1023968 packets, 122620168 bytes captured, 0.081 s wall, 0.080 s
 *   cpu (79 ns/pkt)
 *
 * (wall and CPU time of the loop alone, from the open to the close: the
 * process's start and exit left out). Exits 1 on a read error.
 */
#define _DEFAULT_SOURCE 1 /* u_char & co. in pcap.h */

#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "capfile.h" /* examples/ */

static double clock_s(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int loop_pcap(const char *path, uint64_t *pkts, uint64_t *bytes) {
  char err[PCAP_ERRBUF_SIZE];
  struct pcap_pkthdr *h;
  const u_char *data;
  pcap_t *p = pcap_open_offline(path, err);
  int rv;
  if (p == NULL) {
    fprintf(stderr, "bench_pcaploop: %s: %s\n", path, err);
    return -1;
  }
  while ((rv = pcap_next_ex(p, &h, &data)) == 1) {
    (*pkts)++;
    *bytes += h->caplen;
  }
  if (rv != PCAP_ERROR_BREAK) {
    fprintf(stderr, "bench_pcaploop: %s: %s\n", path, pcap_geterr(p));
    pcap_close(p);
    return -1;
  }
  pcap_close(p);
  return 0;
}

static int loop_capfile(const char *path, uint64_t *pkts, uint64_t *bytes) {
  char err[256];
  capfile_pkt pk;
  capfile *cf = capfile_open(path, err, sizeof(err));
  int rv;
  if (cf == NULL) {
    fprintf(stderr, "bench_pcaploop: %s: %s\n", path, err);
    return -1;
  }
  while ((rv = capfile_next(cf, &pk)) == 1) {
    (*pkts)++;
    *bytes += pk.caplen;
  }
  if (rv != 0) {
    fprintf(stderr, "bench_pcaploop: %s: %s\n", path, capfile_error(cf));
    capfile_close(cf);
    return -1;
  }
  capfile_close(cf);
  return 0;
}

int main(int argc, char **argv) {
  int use_capfile = 0, rv;
  const char *path;
  uint64_t pkts = 0, bytes = 0;
  double w0, c0, w, c;

  if (argc == 3 && strcmp(argv[1], "-c") == 0) {
    use_capfile = 1;
    path = argv[2];
  } else if (argc == 2 && argv[1][0] != '-') {
    path = argv[1];
  } else {
    fprintf(stderr, "usage: bench_pcaploop [-c] FILE\n");
    return 2;
  }
  w0 = clock_s(CLOCK_MONOTONIC);
  c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
  rv = use_capfile ? loop_capfile(path, &pkts, &bytes)
                   : loop_pcap(path, &pkts, &bytes);
  c = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
  w = clock_s(CLOCK_MONOTONIC) - w0;
  if (rv != 0) {
    return 1;
  }
  printf("%s: %llu packets, %llu bytes captured, %.3f s wall, %.3f s cpu "
         "(%.0f ns/pkt)\n",
         use_capfile ? "capfile" : "pcap", (unsigned long long)pkts,
         (unsigned long long)bytes, w, c, pkts ? w * 1e9 / (double)pkts : 0.0);
  return 0;
}
