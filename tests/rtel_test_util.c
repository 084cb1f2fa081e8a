/* SPDX-License-Identifier: MIT */
/*
 * Test utilities (see rtel_test_util.h): a small pcap reader and a
 * counting/failing allocator. The packet builders are in rtel_test_pkt.c
 * and rtel_test_nvme.c.
 */
#define _POSIX_C_SOURCE 200809L

#include "rtel_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------------- pcap */

static uint32_t rd32(const uint8_t *p, int swap) {
  uint32_t v = (uint32_t)p[0] | ((uint32_t)p[1] << 8) |
               ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
  if (swap)
    v = (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24);
  return v;
}

int tu_pcap_open(tu_pcap *p, const char *path) {
  FILE *f = fopen(path, "rb");
  long sz;
  uint32_t magic;
  memset(p, 0, sizeof(*p));
  if (!f)
    return -1;
  if (fseek(f, 0, SEEK_END) != 0 || (sz = ftell(f)) < 24 ||
      fseek(f, 0, SEEK_SET) != 0) {
    fclose(f);
    return -1;
  }
  p->data = malloc((size_t)sz);
  if (!p->data || fread(p->data, 1, (size_t)sz, f) != (size_t)sz) {
    fclose(f);
    free(p->data);
    p->data = NULL;
    return -1;
  }
  fclose(f);
  p->len = (size_t)sz;
  magic = rd32(p->data, 0);
  if (magic == 0xA1B2C3D4u || magic == 0xA1B23C4Du) {
    p->swap = 0;
  } else if (magic == 0xD4C3B2A1u || magic == 0x4D3CB2A1u) {
    p->swap = 1;
  } else {
    tu_pcap_close(p);
    return -1;
  }
  magic = rd32(p->data, p->swap);
  p->nsec = magic == 0xA1B23C4Du;
  p->linktype = rd32(p->data + 20, p->swap) & 0x0FFFFFFFu;
  p->pos = 24;
  return 0;
}

int tu_pcap_next(tu_pcap *p, const uint8_t **pkt, uint32_t *caplen,
                 uint32_t *wirelen, uint64_t *ts_ns) {
  uint32_t sec, frac, incl, orig;
  if (p->pos + 16 > p->len)
    return 0;
  sec = rd32(p->data + p->pos, p->swap);
  frac = rd32(p->data + p->pos + 4, p->swap);
  incl = rd32(p->data + p->pos + 8, p->swap);
  orig = rd32(p->data + p->pos + 12, p->swap);
  if (p->pos + 16 + incl > p->len)
    return -1;
  *pkt = p->data + p->pos + 16;
  *caplen = incl;
  *wirelen = orig;
  *ts_ns =
      (uint64_t)sec * 1000000000u + (uint64_t)frac * (p->nsec ? 1u : 1000u);
  p->pos += 16 + incl;
  return 1;
}

void tu_pcap_close(tu_pcap *p) {
  free(p->data);
  memset(p, 0, sizeof(*p));
}

const char *tu_captures_dir(void) {
  static char buf[4096];
  const char *top = getenv("top_srcdir");
  struct stat st;
  if (!top || !*top)
    top = ".";
  snprintf(buf, sizeof(buf), "%s/../shared/captures", top);
  if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
    return NULL;
  return buf;
}

/* ------------------------------------------------------------- allocator */

#define TU_ALLOC_MAGIC 0x7e57a110u

static tu_alloc *alloc_of(void *ud) {
  tu_alloc *a = ud;
  return a;
}

static int alloc_check(tu_alloc *a) {
  if (!a || a->magic != TU_ALLOC_MAGIC)
    return 0;
  return 1;
}

static void track_add(tu_alloc *a, void *p) {
  size_t i;
  for (i = 0; i < TU_ALLOC_TRACK; i++)
    if (!a->ptrs[i]) {
      a->ptrs[i] = p;
      return;
    }
  a->errors++;
}

static int track_del(tu_alloc *a, void *p) {
  size_t i;
  for (i = 0; i < TU_ALLOC_TRACK; i++)
    if (a->ptrs[i] == p) {
      a->ptrs[i] = NULL;
      return 1;
    }
  return 0;
}

static int alloc_fail(tu_alloc *a) {
  a->ncalls++;
  return a->fail_at && a->ncalls == a->fail_at;
}

static void *tu_malloc(size_t size, void *ud) {
  tu_alloc *a = alloc_of(ud);
  void *p;
  if (!alloc_check(a))
    abort();
  if (alloc_fail(a))
    return NULL;
  p = malloc(size ? size : 1);
  if (!p)
    return NULL;
  track_add(a, p);
  a->nallocs++;
  a->live++;
  return p;
}

static void *tu_calloc(size_t nmemb, size_t size, void *ud) {
  tu_alloc *a = alloc_of(ud);
  void *p;
  if (!alloc_check(a))
    abort();
  if (alloc_fail(a))
    return NULL;
  p = calloc(nmemb ? nmemb : 1, size ? size : 1);
  if (!p)
    return NULL;
  track_add(a, p);
  a->nallocs++;
  a->live++;
  return p;
}

static void *tu_realloc(void *ptr, size_t size, void *ud) {
  tu_alloc *a = alloc_of(ud);
  void *p;
  if (!alloc_check(a))
    abort();
  if (alloc_fail(a))
    return NULL;
  if (ptr && !track_del(a, ptr)) {
    a->errors++;
    return NULL;
  }
  p = realloc(ptr, size ? size : 1);
  if (!p) {
    if (ptr)
      track_add(a, ptr);
    return NULL;
  }
  track_add(a, p);
  if (!ptr) {
    a->nallocs++;
    a->live++;
  }
  return p;
}

static void tu_free(void *ptr, void *ud) {
  tu_alloc *a = alloc_of(ud);
  if (!alloc_check(a))
    abort();
  if (!ptr)
    return;
  if (!track_del(a, ptr)) {
    a->errors++; /* unknown pointer or double free: do not touch it */
    return;
  }
  a->nfrees++;
  a->live--;
  free(ptr);
}

void tu_alloc_init(tu_alloc *a, rtel_mem *mem, long fail_at) {
  memset(a, 0, sizeof(*a));
  a->magic = TU_ALLOC_MAGIC;
  a->fail_at = fail_at;
  mem->user_data = a;
  mem->malloc = tu_malloc;
  mem->free = tu_free;
  mem->calloc = tu_calloc;
  mem->realloc = tu_realloc;
}
