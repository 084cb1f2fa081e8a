/* SPDX-License-Identifier: MIT */
/*
 * Intrusive doubly linked lists of array entries, linked by index: the LRU
 * order of a hash table (rtel_table.h), the flows in creation order, FIFOs
 * of outstanding I/Os and pending joins, a queue's I/Os.
 *
 * An entry embeds one rtel__link per list it can be on; a list is the
 * index of its first (head) and last (tail) entry, RTEL__NIL when empty.
 * The functions reach entry i's link through an rtel__links: the address of
 * entry 0's link and the distance between entries (the entry size, or a
 * table's stride), so one entry type may be on several lists:
 *
 *   rtel__links lk = RTEL__LINKS(ios, nio, fifo);   (nio ios[n])
 *   rtel__list_append(&fifo, lk, i);
 *
 * Nothing is allocated; the caller keeps an index on at most one list per
 * link.
 */
#ifndef RTEL_LIST_H
#define RTEL_LIST_H

#include "rtel_int.h"

/* No entry: an empty list's ends, the ends' outer links. */
#define RTEL__NIL UINT32_MAX

typedef struct rtel__link {
  uint32_t prev;
  uint32_t next;
} rtel__link;

typedef struct rtel__list {
  uint32_t head; /* first (oldest) */
  uint32_t tail; /* last (newest) */
} rtel__list;

/* Where a list's links are: entry i's is at base + i * stride. */
typedef struct rtel__links {
  uint8_t *base;
  size_t stride;
} rtel__links;

/* The links named |member| of the entries of type |type| at |ents| (an
 * array of that type). For entries of a runtime stride, fill the struct:
 * { ents + offsetof(type, member), stride }. */
#define RTEL__LINKS(ents, type, member)                                       \
  ((rtel__links){(uint8_t *)(ents) + offsetof(type, member), sizeof(type)})

static inline void rtel__list_init(rtel__list *l) {
  l->head = l->tail = RTEL__NIL;
}

static inline rtel__link *rtel__link_at(rtel__links lk, uint32_t i) {
  return (rtel__link *)(void *)(lk.base + (size_t)i * lk.stride);
}

/* Adds entry |i| at the tail. */
static inline void rtel__list_append(rtel__list *l, rtel__links lk,
                                     uint32_t i) {
  rtel__link *e = rtel__link_at(lk, i);
  e->prev = l->tail;
  e->next = RTEL__NIL;
  if (l->tail != RTEL__NIL) {
    rtel__link_at(lk, l->tail)->next = i;
  } else {
    l->head = i;
  }
  l->tail = i;
}

/* Adds entry |i| at the head. */
static inline void rtel__list_push(rtel__list *l, rtel__links lk, uint32_t i) {
  rtel__link *e = rtel__link_at(lk, i);
  e->prev = RTEL__NIL;
  e->next = l->head;
  if (l->head != RTEL__NIL) {
    rtel__link_at(lk, l->head)->prev = i;
  } else {
    l->tail = i;
  }
  l->head = i;
}

/* Removes entry |i|, which is on the list. */
static inline void rtel__list_unlink(rtel__list *l, rtel__links lk,
                                     uint32_t i) {
  rtel__link *e = rtel__link_at(lk, i);
  if (e->prev == RTEL__NIL) {
    l->head = e->next;
  } else {
    rtel__link_at(lk, e->prev)->next = e->next;
  }
  if (e->next == RTEL__NIL) {
    l->tail = e->prev;
  } else {
    rtel__link_at(lk, e->next)->prev = e->prev;
  }
}

/* Whether entry |i| is on the list, for a caller that unlinks entries
 * whose links it sets to RTEL__NIL (an entry never linked, or removed). */
static inline int rtel__list_has(const rtel__list *l, rtel__links lk,
                                 uint32_t i) {
  return rtel__link_at(lk, i)->prev != RTEL__NIL || l->head == i;
}

/* Moves entry |i|, which is on the list, to the tail (LRU: touched). */
static inline void rtel__list_move_tail(rtel__list *l, rtel__links lk,
                                        uint32_t i) {
  rtel__link *e = rtel__link_at(lk, i);
  if (l->tail == i) {
    return;
  }
  /* unlink (i is not the tail, so e->next is an entry) */
  if (e->prev == RTEL__NIL) {
    l->head = e->next;
  } else {
    rtel__link_at(lk, e->prev)->next = e->next;
  }
  rtel__link_at(lk, e->next)->prev = e->prev;
  /* append (the list has another entry, so it has a tail) */
  e->prev = l->tail;
  e->next = RTEL__NIL;
  rtel__link_at(lk, l->tail)->next = i;
  l->tail = i;
}

#endif /* RTEL_LIST_H */
