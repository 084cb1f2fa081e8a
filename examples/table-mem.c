/* SPDX-License-Identifier: MIT */
/*
 * table-mem: the allocators rtel-collect and rtel-analyze give their
 * contexts (table-mem.h).
 */
#define _GNU_SOURCE 1 /* MADV_HUGEPAGE */
#include "table-mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The library sizes every table when a context is made and never
 * allocates again. table_mem() makes those pages real at once (large
 * tables on transparent huge pages where the kernel offers them), before
 * any packet: left to the first packet that touches them, each page costs
 * a fault on the packet path, and a page first read (the shared zero
 * page) and then written costs a TLB shoot-down on every core the process
 * runs on. table_mem_lazy() asks for the same huge pages but leaves every
 * page to its first write: an offline run sized generously touches only
 * what its capture needs, in 2 MiB pages whose TLB entries cover 512 times
 * what a 4 KiB page's do (tests/bench/README.md has what each bought). */
#define BIG_ALLOC (2u << 20)

/* What an allocator does, its rtel_mem's user_data: blocks from |own_map|
 * bytes on are mappings of their own (zero pages until written; those of
 * BIG_ALLOC and more with huge pages asked for), all their pages written
 * at once when |prefault|. table_mem_lazy() maps from 64 KiB, since
 * aligned_alloc() has no zeroing that leaves pages alone. */
typedef struct mem_policy {
  size_t own_map;
  int prefault;
} mem_policy;

static mem_policy eager = {BIG_ALLOC, 1};
static mem_policy lazy = {64u << 10, 0};

typedef struct mem_hdr {
  size_t len; /* of the mapping (0: from malloc) */
  size_t size;
  char pad[48]; /* the caller's block stays 64-byte aligned */
} mem_hdr;

static void *pf_malloc(size_t size, void *ud) {
  const mem_policy *pol = ud;
  mem_hdr *h;
  if (size > SIZE_MAX - sizeof(mem_hdr) - BIG_ALLOC) {
    return NULL;
  }
  if (size + sizeof(mem_hdr) >= pol->own_map) {
    size_t len = (size + sizeof(mem_hdr) + 4095) & ~(size_t)4095;
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
      return NULL;
    }
#ifdef MADV_HUGEPAGE
    if (len >= BIG_ALLOC) {
      (void)madvise(m, len, MADV_HUGEPAGE);
    }
#endif
    if (pol->prefault) {
      memset(m, 0, len); /* every page written: real now, not at a packet */
    }
    h = m;
    h->len = len;
  } else {
    if ((h = aligned_alloc(64, (sizeof(mem_hdr) + size + 63) & ~(size_t)63)) ==
        NULL) {
      return NULL;
    }
    memset(h, 0, sizeof(mem_hdr) + size);
    h->len = 0;
  }
  h->size = size;
  return h + 1;
}

static void pf_free(void *p, void *ud) {
  mem_hdr *h;
  (void)ud;
  if (p == NULL) {
    return;
  }
  h = (mem_hdr *)p - 1;
  if (h->len) {
    munmap(h, h->len);
  } else {
    free(h);
  }
}

static void *pf_calloc(size_t n, size_t size, void *ud) {
  if (size && n > SIZE_MAX / size) {
    return NULL;
  }
  return pf_malloc(n * size, ud); /* zeroed either way */
}

static void *pf_realloc(void *p, size_t size, void *ud) {
  void *q;
  size_t old;
  if (p == NULL) {
    return pf_malloc(size, ud);
  }
  old = ((mem_hdr *)p - 1)->size;
  if ((q = pf_malloc(size, ud)) == NULL) {
    return NULL;
  }
  memcpy(q, p, old < size ? old : size);
  pf_free(p, ud);
  return q;
}

static const rtel_mem mem = {&eager, pf_malloc, pf_free, pf_calloc,
                             pf_realloc};
static const rtel_mem mem_lazy = {&lazy, pf_malloc, pf_free, pf_calloc,
                                  pf_realloc};

const rtel_mem *table_mem(void) { return &mem; }

const rtel_mem *table_mem_lazy(void) { return &mem_lazy; }
