/* heap.h - the discrete-event queue: a binary min-heap ordered by (time, seq) */
#ifndef RTEL_SIM_HEAP_H
#define RTEL_SIM_HEAP_H

#include <stddef.h>
#include <stdint.h>

struct ev {
  uint64_t t;    /* true simulation time, ns */
  uint64_t seq;  /* insertion order: ties are FIFO, which keeps runs deterministic */
  uint32_t kind; /* event type (sim.h EV_*) */
  uint32_t arg;  /* object index */
};

struct heap {
  struct ev *v;
  size_t n, cap;
  uint64_t seq;
};

int heap_push(struct heap *h, uint64_t t, uint32_t kind, uint32_t arg);
int heap_pop(struct heap *h, struct ev *out);
void heap_free(struct heap *h);

#endif
