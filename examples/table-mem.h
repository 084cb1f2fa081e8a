/* SPDX-License-Identifier: MIT */
/*
 * table-mem: the allocators rtel-collect and rtel-analyze give their
 * contexts (rtel_ctx_new's |mem|). table_mem(), rtel-collect's: every block
 * it returns is zeroed and its pages are already real (written once when
 * allocated), blocks of 2 MiB and more on their own mapping with transparent
 * huge pages asked for (madvise MADV_HUGEPAGE). The library allocates only
 * when a context is made, sizing each table to its bound, so the whole bound
 * is resident from the start: a collector's memory is what its settings say
 * on day one, and no packet pays for a page fault. table_mem_lazy(),
 * rtel-analyze's: an offline run sizes its tables generously from the input
 * and touches only what the capture needs, so pages stay unwritten until a
 * packet needs them (blocks of 64 KiB and more on their own zero-filled
 * mapping, those of 2 MiB and more with huge pages asked for): the random
 * lookups of a large table then miss the TLB far less often. Thread-safe.
 */
#ifndef RTEL_EXAMPLES_TABLE_MEM_H
#define RTEL_EXAMPLES_TABLE_MEM_H

#include <rocetel/rocetel.h>

const rtel_mem *table_mem(void);

/* The same, except that pages are left to become real at the first write
 * (still zero, still on huge pages where the kernel gives them). */
const rtel_mem *table_mem_lazy(void);

#endif
