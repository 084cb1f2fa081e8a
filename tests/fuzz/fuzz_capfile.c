/* SPDX-License-Identifier: MIT */
/*
 * The capture file reader of the example programs (examples/capfile.c)
 * on any bytes: the input is the file. Checked for every packet returned:
 * its bytes are the input's bytes at the offset it gives (nothing read
 * outside the file, nothing shifted), its interface is one the reader
 * has described and its link type is that interface's; the packets are
 * at most one per 16 bytes of input (the smallest packet block); after
 * the end (0) or the damage (-1, with a message) the reader says the same
 * again. Seeds: tests/fuzz/corpus-capfile (gen-capfile-corpus.py).
 */
#define _GNU_SOURCE 1 /* memfd_create */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "capfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond, const char *what) {
  if (!cond) {
    fprintf(stderr, "fuzz_capfile: %s\n", what);
    abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[64], err[256];
  size_t done = 0;
  uint64_t n = 0;
  capfile *cf;
  capfile_pkt p;
  int fd = memfd_create("fuzz_capfile", MFD_CLOEXEC), rv;
  if (fd < 0) {
    perror("memfd_create");
    abort();
  }
  while (done < size) {
    ssize_t k = write(fd, data + done, size - done);
    if (k <= 0) {
      perror("write");
      abort();
    }
    done += (size_t)k;
  }
  snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
  err[0] = '\0';
  cf = capfile_open(path, err, sizeof(err));
  if (cf == NULL) {
    check(err[0] != '\0', "open failed without a message");
    close(fd);
    return 0;
  }
  while ((rv = capfile_next(cf, &p)) == 1) {
    const capfile_if *f = capfile_iface(cf, p.ifc);
    n++;
    check(f != NULL, "a packet of an interface not described");
    check(p.linktype == f->linktype, "a link type not its interface's");
    check(p.offset <= size && p.caplen <= size - p.offset,
          "packet bytes outside the file");
    check(memcmp(p.data, data + p.offset, p.caplen) == 0,
          "packet bytes not the file's");
    check(n <= size / 16, "more packets than the file has room for");
    check(capfile_packets(cf) == n, "packets miscounted");
  }
  check(rv == 0 || (rv == -1 && capfile_error(cf)[0] != '\0'),
        "an error without a message");
  check(capfile_next(cf, &p) == rv, "the end not repeated");
  capfile_close(cf);
  close(fd);
  return 0;
}
