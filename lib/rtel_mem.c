/* SPDX-License-Identifier: MIT */
/* The default allocator: the C library's, with the hook signature. */
#include <stdlib.h>

#include "rtel_int.h"

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
