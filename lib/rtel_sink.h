/* SPDX-License-Identifier: MIT */
/*
 * What a module sees of the context that owns it: its allocator, the
 * context's counters, and the sink through which the records it produces
 * go up to the hub (rtel_ctx.c).
 *
 * The hub fills the sink when the context is created. A module calls it and
 * never names the hub: the hub calls the modules, the modules call only the
 * leaves below them (tables, lists, the pairing table, the scheduler's
 * queries), so lib/ has no dependency circle. The sink functions are where
 * the application's callbacks run: the hub counts the record, stamps the
 * port's coverage window, calls the callback with the struct version the
 * application was built for, then feeds aggregates and alarms. A module
 * therefore leaves a record's coverage fields to the hub.
 *
 * Each sink function returns 0 or RTEL_ERR_CALLBACK_FAILURE; a module stops
 * what it is doing and returns the error up unchanged.
 */
#ifndef RTEL_SINK_H
#define RTEL_SINK_H

#include "rtel_int.h"

/* rtel__sink.want: the records someone reads (a callback, or the alarms
 * for flows). A module may skip building a record nobody wants, but still
 * hands it up (with a NULL record) so that the hub counts it. */
#define RTEL__WANT_MSG 0x1u
/* Aggregates (on_io_aggregate): without it the aggregates keep only which
 * keys they hold, for the statistics (aggregates_dropped), not the figures
 * nothing would read. */
#define RTEL__WANT_AGG 0x2u

typedef struct rtel__sink {
  void *hub;
  uint32_t want;
  int (*flow)(void *hub, rtel_flow_record *r);
  int (*msg)(void *hub, rtel_msg_record *r);
  int (*io)(void *hub, rtel_io_record *r);
  int (*aggregate)(void *hub, const rtel_io_aggregate *r);
} rtel__sink;

typedef struct rtel__env {
  const rtel_mem *mem;
  rtel_ctx_stats *stats;
  const rtel__sink *sink;
} rtel__env;

static inline void *rtel__alloc(const rtel__env *env, size_t n) {
  return env->mem->malloc(n, env->mem->user_data);
}

static inline void *rtel__zalloc(const rtel__env *env, size_t n, size_t size) {
  return env->mem->calloc(n, size, env->mem->user_data);
}

static inline void rtel__dealloc(const rtel__env *env, void *p) {
  if (p) {
    env->mem->free(p, env->mem->user_data);
  }
}

#endif /* RTEL_SINK_H */
