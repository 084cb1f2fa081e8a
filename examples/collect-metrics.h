/* SPDX-License-Identifier: MIT */
/*
 * The Prometheus side of rtel-collect (--metrics, rtel-collect(8)):
 *
 *  - cm_snap: a block of 64-bit counters one thread publishes and others
 *    read whole, without a lock (a seqlock whose words are relaxed
 *    atomics: the writer never waits, a reader retries);
 *  - cm_table: the label sets (observation point, host, target, NVMe
 *    operation) of the I/O records, a fixed number of them shared by the
 *    workers; each worker finds its own through a private index and is
 *    the only writer of the label sets it claimed (a seqlock each), so an
 *    I/O record costs a hash lookup and a few relaxed stores;
 *  - the text exposition format 0.0.4 (families, escaped label values);
 *  - cm_http: GET /metrics over HTTP (libmicrohttpd, one thread of its
 *    own); without libmicrohttpd (RTEL_COLLECT_MHD undefined) it only
 *    reports that it was not built.
 */
#ifndef RTEL_EXAMPLES_COLLECT_METRICS_H
#define RTEL_EXAMPLES_COLLECT_METRICS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <rocetel/rocetel.h>

#include "rtel-json.h"

/* A counter with one writer: a relaxed load and store (no locked
 * instruction), read by other threads with cm_get(). */
static inline void cm_add(_Atomic uint64_t *c, uint64_t d) {
  atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + d,
                        memory_order_relaxed);
}
static inline uint64_t cm_get(_Atomic uint64_t *c) {
  return atomic_load_explicit(c, memory_order_relaxed);
}

/* ------------------------------------------------------------ snapshot */

typedef struct cm_snap {
  _Atomic uint32_t seq; /* odd while the writer is inside */
  size_t n;             /* words */
  _Atomic uint64_t *w;
} cm_snap;

/* Room for |bytes| (a multiple of 8), all zero. Returns 0, or -1. */
int cm_snap_init(cm_snap *s, size_t bytes);
void cm_snap_free(cm_snap *s);
/* The writer (one thread): copies |src| in. */
void cm_snap_publish(cm_snap *s, const void *src);
/* Any thread: a consistent copy into |dst|. */
void cm_snap_read(cm_snap *s, void *dst);

/* ------------------------------------------------------------ I/O series */

/* Histogram buckets (upper bounds, seconds): 1, 2.5, 5 x 10^k from 1 us
 * to 10 s. */
#define CM_NBUCKETS 22
extern const uint64_t cm_bucket_ns[CM_NBUCKETS];

/* The NVMe operation label of an I/O record. */
enum {
  CM_OP_READ,
  CM_OP_WRITE,
  CM_OP_FLUSH,
  CM_OP_OTHER,   /* another I/O command */
  CM_OP_ADMIN,   /* an admin command */
  CM_OP_FABRICS, /* a Fabrics command (Connect, Property Get/Set...) */
  CM_OP_UNKNOWN, /* an orphan: no command seen */
  CM_NOPS
};
const char *cm_op_str(unsigned op);
unsigned cm_op_of(const rtel_io_record *io);

typedef struct cm_table cm_table;
typedef struct cm_index cm_index;

/* At most |max| label sets (memory: about 0.7 KiB each, touched only when
 * used), written by |nworkers| workers. */
cm_table *cm_table_new(size_t max, unsigned nworkers);
void cm_table_free(cm_table *t);
/* A worker's private index of the label sets it claimed. */
cm_index *cm_index_new(void);
void cm_index_free(cm_index *ix);
/* Counts an I/O record of worker |wk| (its own index |ix|): the record's
 * state, and its IOL, DAL and DPL in the histograms. A record with no room
 * for its label set is counted as an overflow. */
void cm_table_io(cm_table *t, unsigned wk, cm_index *ix,
                 const rtel_io_record *io);
/* The families of the table: rtel_nvme_ios_total, the three histograms,
 * rtel_collect_series, rtel_collect_series_max and
 * rtel_collect_series_overflow_total. |obs| names the observation points.
 * Returns 0, or -1 out of memory. */
int cm_table_render(cm_table *t, rj_buf *b, const char *const *obs,
                    size_t nobs);

/* ------------------------------------------------------------ format */

/* "# HELP name help\n# TYPE name type\n" */
void cm_family(rj_buf *b, const char *name, const char *type,
               const char *help);
/* A label value, escaped (\\, \", \n). */
void cm_label_value(rj_buf *b, const char *v);

/* ------------------------------------------------------------ HTTP */

/* Fills |b| with the whole exposition (called on the HTTP thread). */
typedef void (*cm_render_fn)(rj_buf *b, void *arg);

typedef struct cm_http cm_http;

/* 1 if built with libmicrohttpd; its version ("" if not). */
int cm_http_available(void);
const char *cm_http_version(void);
/* Checks "HOST:PORT" or "[V6]:PORT" (PORT 0-65535; 0: any free port).
 * Returns 0, or -1. */
int cm_http_check_addr(const char *addr);
/* Listens on |addr| and serves GET /metrics from its own thread. Returns
 * NULL with a message in |err|. */
cm_http *cm_http_start(const char *addr, cm_render_fn fn, void *arg, char *err,
                       size_t errlen);
/* The address bound, "HOST:PORT" (the port chosen for port 0). */
const char *cm_http_where(const cm_http *h);
void cm_http_stop(cm_http *h);

#endif
