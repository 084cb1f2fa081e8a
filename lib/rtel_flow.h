/* SPDX-License-Identifier: MIT */
/*
 * The flow table: per-flow and per-message throughput figures from the data
 * packets of connected QPs, and the ACKs, NAKs and CNPs of the reverse
 * direction, which reach their flow through the QP pairing table
 * (rtel_pair.h) that it feeds.
 */
#ifndef RTEL_FLOW_H
#define RTEL_FLOW_H

#include "rtel_int.h"
#include "rtel_cm.h"
#include "rtel_list.h"
#include "rtel_pair.h"
#include "rtel_sched.h"
#include "rtel_sink.h"
#include "rtel_table.h"

struct rtel__omsg;

typedef struct rtel__flowtab {
  rtel__env env;
  rtel__qtab flows;
  struct rtel__omsg *msgs; /* the slab of open messages (64-byte aligned) */
  void *msg_alloc;         /* what was allocated for it */
  uint32_t msg_cap;        /* most open messages, in the slab or the flows'
                              own slots */
  uint32_t msg_open;       /* open messages */
  uint32_t msg_free;       /* entries given back, a list through next */
  uint32_t msg_fresh;      /* entries [msg_fresh, msg_cap) never used */
  uint32_t msg_per_flow;   /* most open messages of one flow */
  uint32_t settle_psns;
  rtel_tstamp settle_ns;
  rtel__pairtab *pairs; /* the hub's, learned from and taught */
  rtel__list fifo;      /* flows in creation order, for the active timeout */
  rtel__list mflows;    /* flows with open messages, least recently active
                           first */
  rtel_tstamp idle;
  rtel_tstamp active;
  uint32_t flags;
  unsigned tick_shift; /* the LRU lists' tick: 2^tick_shift ns */
} rtel__flowtab;

/* |pairs| is set up already (rtel__pair_init()). */
int rtel__flow_init(rtel__flowtab *ft, const rtel_settings *s,
                    rtel__pairtab *pairs, const rtel__env *env);
void rtel__flow_free(rtel__flowtab *ft);

/* Handles one decoded RoCE packet; |hint|: the hash of its key (pi->obs,
 * hd->src, hd->dst, hd->dqpn) by rtel__qkey_hash_parts() with the
 * context's seed (the hub hashes it once for every module), or NULL.
 * Returns 0 or a fatal error. */
int rtel__flow_packet(rtel__flowtab *ft, const rtel_pkt_info *pi,
                      const rtel_pkt_hd *hd, const uint32_t *hint);

/* Whether the table is large enough (RTEL__FLOW_BIG bytes of entries) for
 * the hub to decode bursts ahead and prefetch (rtel__flow_hint()). */
#define RTEL__FLOW_BIG (2u << 20)
static inline int rtel__flow_big(const rtel__flowtab *ft) {
  return !(ft->flags & RTEL_FLOW_DISABLE) &&
         (uint64_t)ft->flows.cap * ft->flows.stride >= RTEL__FLOW_BIG;
}

/* The flow table's fast case, for a context with a flow table whose
 * packets rtel__decode_data() took (|d|; |pk| the hash of the packet's key,
 * as rtel__flow_packet()'s hint): a data packet of new data that continues
 * the message under way of an existing request flow in PSN order, the flow
 * neither idle nor due to restart and with a packet since it began or
 * restarted. Returns 1 when it is one, having
 * counted it exactly as rtel__flow_packet() would, with *prv 0 or the
 * error of a record delivered on the way (a callback failed); else 0 with
 * nothing changed, and the packet is for rtel__flow_packet() with the
 * whole decoded header. */
int rtel__flow_fast(rtel__flowtab *ft, const rtel_pkt_info *pi,
                    const rtel__dpkt *d, uint32_t pk, int *prv);

/* For a packet decoded ahead of its turn (without error), with the
 * decoded header's |flags| (RTEL_HD_F_*) and |opcode|, whose key hash is
 * |pk| (rtel__flow_packet()'s hint): for data, the hash of its flow's
 * key with the bucket prefetched and *has = RTEL__HINT_DATA; for an ACK,
 * NAK or CNP, the hash of its QP's pairing key (|pk|), bucket prefetched,
 * *has = RTEL__HINT_CTRL; else *has = 0. Reads only the tables' settings,
 * so it may run before earlier packets are handled. */
#define RTEL__HINT_DATA 1
#define RTEL__HINT_CTRL 2
uint32_t rtel__flow_hint(const rtel__flowtab *ft, uint32_t flags,
                         uint8_t opcode, uint32_t pk, int *has);

/* Prefetches for a packet (source |src|, destination |dst|, PSN |psn|) at
 * observation point |obs| whose
 * rtel__flow_hint() gave |hint| and |has|: at |step| 0 (some packets
 * later, when the bucket is in cache) the entry the bucket names first
 * (flow or pairing entry); at |step| 1 (later again, when that entry is in
 * cache) what it leads to: a flow's open message and, while the flow is
 * not paired, the PSN index slot its packet will write; the flow a pairing
 * entry's ACKs were for. */
void rtel__flow_prefetch(const rtel__flowtab *ft, uint32_t hint, int has,
                         int step, const uint8_t *src, const uint8_t *dst,
                         uint32_t psn, uint32_t obs);

/* A connection seen in RDMA CM: its QP pair is learned (in the pairing
 * table) and its flows learn their peer. */
void rtel__flow_cm_conn(rtel__flowtab *ft, const rtel__cm_conn *c);

/* Earliest flow timer, or RTEL_TSTAMP_NONE. */
rtel_tstamp rtel__flow_expiry(const rtel__flowtab *ft);

/* Ends the flows whose timers expired at |now|. */
int rtel__flow_expire(rtel__flowtab *ft, rtel_tstamp now);

/* Ends every flow (end = RTEL_END_FLUSH). */
int rtel__flow_flush(rtel__flowtab *ft, uint32_t end);

/* Ends, truncated, every flow whose port is no longer measured. */
int rtel__flow_truncate(rtel__flowtab *ft, const rtel__sched *sched);

/* Bytes of one flow-table entry (documented memory per flow). */
size_t rtel__flow_entry_size(void);

/* Bytes of one entry of the slab of open messages. */
size_t rtel__flow_msg_size(void);

#endif /* RTEL_FLOW_H */
