/* SPDX-License-Identifier: MIT */
/* The default allocator: the C library's, with the hook signature.
 *
 * RTEL_FREESTANDING: define it (-DRTEL_FREESTANDING) to build the library
 * without a hosted C library, e.g. inside NIC firmware. The library then
 * has no default allocator: this file uses no malloc(), and
 * rtel_mem_default() and rtel__mem_default() return NULL, so the caller
 * must pass its own rtel_mem to every constructor (rtel_ctx_new() with a
 * NULL mem fails with RTEL_ERR_INVALID_ARGUMENT). The rest of lib/ needs
 * only memcpy, memset, memcmp and memmove (and the compiler's runtime
 * helpers) in that build; tests/check-freestanding.sh checks it, HACKING.md
 * tells how to build it. */
#include "rtel_int.h"

#ifdef RTEL_FREESTANDING

const rtel_mem *rtel__mem_default(void) { return NULL; }

const rtel_mem *rtel_mem_default(void) { return NULL; }

#else

#  include <stdlib.h>

static void *default_malloc(size_t size, void *user_data) {
  (void)user_data;
  return malloc(size);
}

static void default_free(void *ptr, void *user_data) {
  (void)user_data;
  free(ptr);
}

static void *default_calloc(size_t nmemb, size_t size, void *user_data) {
  (void)user_data;
  return calloc(nmemb, size);
}

static void *default_realloc(void *ptr, size_t size, void *user_data) {
  (void)user_data;
  return realloc(ptr, size);
}

static const rtel_mem mem_default = {NULL, default_malloc, default_free,
                                     default_calloc, default_realloc};

/* The library itself calls this, not the public function: abidw links a
 * public function to its symbol only when no other file of the library
 * calls it through the header's declaration, and the ABI gate must see
 * rtel_mem_default()'s signature. */
const rtel_mem *rtel__mem_default(void) { return &mem_default; }

const rtel_mem *rtel_mem_default(void) { return &mem_default; }

#endif /* RTEL_FREESTANDING */
