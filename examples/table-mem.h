/* SPDX-License-Identifier: MIT */
/*
 * table-mem: the allocator rtel-collect gives its contexts (rtel_ctx_new's
 * |mem|). Every block it returns is zeroed and its pages are already real
 * (written once when allocated), blocks of 2 MiB and more on their own mapping
 * with transparent huge pages asked for (madvise MADV_HUGEPAGE). The library
 * allocates only when a context is made, sizing each table to its bound, so
 * the whole bound is resident from the start: a collector's memory is what its
 * settings say on day one, and no packet pays for a page fault. (rtel-analyze
 * keeps the C library's allocator: an offline run sizes its tables generously
 * from the input and touches only what the capture needs.) Thread-safe.
 */
#ifndef RTEL_EXAMPLES_TABLE_MEM_H
#define RTEL_EXAMPLES_TABLE_MEM_H

#include <rocetel/rocetel.h>

const rtel_mem *table_mem(void);

#endif
