/* heap.h - the discrete-event queue: a 4-ary min-heap ordered by (time, key)
 *
 * key = (insertion number << 5 | kind), truncated to 32 bits: events at the
 * same time run in insertion order (FIFO) except across a wrap of the
 * insertion counter, and the order is always deterministic.  Entries are 16
 * bytes, so the four children of a node share one cache line.
 */
#ifndef RTEL_SIM_HEAP_H
#define RTEL_SIM_HEAP_H

#include <stddef.h>
#include <stdint.h>

struct ev {
  uint64_t t;   /* true simulation time, ns */
  uint32_t key; /* insertion number << 5 | kind */
  uint32_t arg; /* object index */
};

struct heap {
  struct ev *v;
  size_t n, cap;
  uint32_t seq;
};

#define EV_KIND(e) ((e)->key & 31u)

int heap_push(struct heap *h, uint64_t t, uint32_t kind, uint32_t arg);
int heap_pop(struct heap *h, struct ev *out);
void heap_free(struct heap *h);

#endif
