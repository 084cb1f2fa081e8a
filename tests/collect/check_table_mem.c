/* SPDX-License-Identifier: MIT */
/*
 * The allocators the example programs give their contexts
 * (examples/table-mem.c): table_mem() (rtel-collect: every page written
 * when allocated) and table_mem_lazy() (rtel-analyze: pages left to their
 * first write). For both, over sizes on each side of the 64 KiB and 2 MiB
 * thresholds: blocks zeroed, 64-byte aligned, writable to their last byte,
 * realloc keeping the common prefix, calloc refusing an overflowing size,
 * free(NULL) harmless. Whether pages are resident is read back with
 * mincore(2): all of a 16 MiB block from table_mem(), almost none of one
 * from table_mem_lazy() until it is written, and then the pages written.
 * Finally a context made with each runs packets.
 */
#define _DEFAULT_SOURCE 1 /* mincore */

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "table-mem.h"

static const size_t sizes[] = {1,          63,
                               64,         4096,
                               65535 - 64, 65536 - 64,
                               65536,      (2u << 20) - 64,
                               2u << 20,   (2u << 20) + 1,
                               5u << 20};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static const rtel_mem *mem_of(int lazy) {
  return lazy ? table_mem_lazy() : table_mem();
}

static int all_zero(const uint8_t *p, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) {
    if (p[i]) {
      return 0;
    }
  }
  return 1;
}

/* Resident pages of [p, p + n), as mincore() reports them. */
static size_t resident(const void *p, size_t n) {
  long pg = sysconf(_SC_PAGESIZE);
  uintptr_t a = (uintptr_t)p & ~(uintptr_t)(pg - 1);
  size_t len = (size_t)((uintptr_t)p + n - a), np, i, r = 0;
  unsigned char *v;
  np = (len + (size_t)pg - 1) / (size_t)pg;
  v = malloc(np);
  ck_assert_ptr_nonnull(v);
  ck_assert_int_eq(mincore((void *)a, len, v), 0);
  for (i = 0; i < np; i++) {
    r += v[i] & 1;
  }
  free(v);
  return r;
}

START_TEST(test_blocks) {
  const rtel_mem *m = mem_of(_i);
  uint8_t *p;
  size_t i;
  for (i = 0; i < NSIZES; i++) {
    size_t n = sizes[i];
    uint8_t *q;
    p = m->malloc(n, m->user_data);
    ck_assert_msg(p != NULL, "malloc(%zu)", n);
    ck_assert_msg(((uintptr_t)p & 63) == 0, "malloc(%zu) not 64-aligned", n);
    ck_assert_msg(all_zero(p, n), "malloc(%zu) not zeroed", n);
    memset(p, 0xa5, n);
    /* grow across the thresholds: the prefix stays, the rest is zero */
    q = m->realloc(p, n + (3u << 20), m->user_data);
    ck_assert_msg(q != NULL, "realloc(%zu)", n);
    ck_assert_msg(((uintptr_t)q & 63) == 0, "realloc not 64-aligned");
    ck_assert_msg(q[0] == 0xa5 && q[n - 1] == 0xa5, "realloc lost the data");
    ck_assert_msg(all_zero(q + n, 3u << 20), "realloc's growth not zeroed");
    /* and shrink back */
    p = m->realloc(q, n, m->user_data);
    ck_assert_msg(p != NULL && p[0] == 0xa5 && p[n - 1] == 0xa5,
                  "shrinking realloc(%zu)", n);
    m->free(p, m->user_data);
    p = m->calloc(3, n, m->user_data);
    ck_assert_msg(p != NULL && all_zero(p, 3 * n), "calloc(3, %zu)", n);
    m->free(p, m->user_data);
  }
  ck_assert_ptr_null(m->calloc(SIZE_MAX / 2, 3, m->user_data));
  ck_assert_ptr_null(m->malloc(SIZE_MAX - 8, m->user_data));
  m->free(NULL, m->user_data);
  p = m->realloc(NULL, 100, m->user_data);
  ck_assert_msg(p != NULL && all_zero(p, 100), "realloc(NULL, 100)");
  m->free(p, m->user_data);
}
END_TEST

/* The THPeligible of the mapping holding |p| in /proc/self/smaps (1 when
 * the kernel may back it with transparent huge pages), or -1 where the
 * kernel does not say (no such line, THP "never", no /proc). */
static int thp_eligible(const void *p) {
  FILE *f;
  char line[256];
  int in = 0, v = -1;
  if ((f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r")) ==
      NULL) {
    return -1;
  }
  if (fgets(line, sizeof(line), f) == NULL || strstr(line, "[never]")) {
    fclose(f);
    return -1;
  }
  fclose(f);
  if ((f = fopen("/proc/self/smaps", "r")) == NULL) {
    return -1;
  }
  while (fgets(line, sizeof(line), f)) {
    unsigned long lo, hi;
    if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) { /* a mapping's line */
      in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
    } else if (in && sscanf(line, "THPeligible: %d", &v) == 1) {
      break;
    }
  }
  fclose(f);
  return in ? v : -1;
}

START_TEST(test_residence) {
  const size_t n = 16u << 20;
  long pg = sysconf(_SC_PAGESIZE);
  size_t pages = n / (size_t)pg, r;
  uint8_t *p = table_mem()->malloc(n, table_mem()->user_data);
  ck_assert_ptr_nonnull(p);
  r = resident(p, n);
  ck_assert_msg(r >= pages, "table_mem: %zu of %zu pages resident", r, pages);
  table_mem()->free(p, table_mem()->user_data);

  p = table_mem_lazy()->malloc(n, table_mem_lazy()->user_data);
  ck_assert_ptr_nonnull(p);
  r = resident(p, n);
  /* the block's header is written (one page, or one huge page) */
  ck_assert_msg(r <= (2u << 20) / (size_t)pg,
                "table_mem_lazy: %zu of %zu pages resident before a write", r,
                pages);
  /* asked for huge pages (madvise): where the kernel says, it says so */
  ck_assert_msg(thp_eligible(p) != 0,
                "table_mem_lazy: a 16 MiB block is not THP-eligible");
  memset(p + n / 2, 1, 100);
  ck_assert_msg(resident(p + n / 2, 100) >= 1, "the written page is resident");
  ck_assert_msg(resident(p, n) <= 2 * (2u << 20) / (size_t)pg,
                "table_mem_lazy: one write made %zu pages resident",
                resident(p, n));
  table_mem_lazy()->free(p, table_mem_lazy()->user_data);
}
END_TEST

/* A context on each allocator, with tables large enough for mappings of
 * their own, counts the packets it is given. */
START_TEST(test_context) {
  rtel_settings s;
  rtel_ctx *ctx = NULL;
  rtel_pkt_info pi;
  uint8_t frame[64];
  rtel_ctx_stats st;
  int k;
  rtel_settings_default(&s);
  s.max_flows = 100000;
  ck_assert_int_eq(rtel_ctx_new(&ctx, &s, NULL, mem_of(_i), NULL), 0);
  memset(frame, 0, sizeof(frame));
  memset(&pi, 0, sizeof(pi));
  for (k = 0; k < 10; k++) {
    pi.ts = (rtel_tstamp)(k + 1) * 1000;
    ck_assert_int_eq(rtel_ctx_read_pkt(ctx, &pi, frame, sizeof(frame)), 0);
  }
  ck_assert_int_eq(rtel_ctx_get_stats(ctx, &st), 0);
  ck_assert_uint_eq(st.pkts, 10);
  ck_assert_uint_eq(st.pkts_not_roce, 10); /* zero bytes: not RoCE */
  rtel_ctx_del(ctx);
}
END_TEST

static Suite *table_mem_suite(void) {
  Suite *s = suite_create("table_mem");
  TCase *tc = tcase_create("blocks");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, test_blocks, 0, 2);
  tcase_add_test(tc, test_residence);
  tcase_add_loop_test(tc, test_context, 0, 2);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(table_mem_suite());
  int failed;
  srunner_run_all(sr, CK_ENV);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
