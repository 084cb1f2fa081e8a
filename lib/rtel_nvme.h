/* SPDX-License-Identifier: MIT */
/*
 * The NVMe-oF I/O correlator: NVMe-oF queues (QP pairs), outstanding
 * commands, their data transfers and responses, and I/O records. (The
 * hub joins the I/O records of two observation points: rtel_join.h.)
 */
#ifndef RTEL_NVME_H
#define RTEL_NVME_H

#include "rtel_cm.h"
#include "rtel_int.h"
#include "rtel_pair.h"
#include "rtel_sched.h"
#include "rtel_sink.h"
#include "rtel_table.h"

/* Keyed SGL descriptors remembered per I/O (a Last Segment list may hold
 * more; those beyond are not matched). */
#define RTEL__IO_SGL 4
/* RDMA READ REQUESTs per queue whose responses are awaited, and RDMA
 * WRITEs per queue remembered by the PSN span of their FIRST. */
#define RTEL__RDREQ_RING 16

typedef struct rtel__nvme {
  rtel__env env;
  const rtel__pairtab *pairs; /* QP pairs learned (CM, ACK PSNs) */
  uint32_t flags;
  rtel_tstamp io_timeout;
  uint16_t ports[4];

  rtel__qtab queues;      /* key (obs, host, target, target QPN) */
  rtel__qtab rev;         /* key (obs, target, host, host QPN) -> queue */
  uint32_t unpaired_head; /* queues whose host QPN is unknown */

  /* outstanding I/Os: slab, hash on (queue, CID), FIFO by command time */
  uint8_t *ios;
  uint32_t *io_buckets;
  uint32_t io_mask;
  uint32_t io_cap;
  uint32_t io_used;
  uint32_t io_free;  /* entries freed, a list through hnext */
  uint32_t io_fresh; /* entries [io_fresh, io_cap) never used: taken in
                        order, their pages untouched until then */
  uint32_t io_fifo_head;
  uint32_t io_fifo_tail;
  /* keyed SGL index: hash on (queue, key) -> (io << 2 | descriptor) */
  uint32_t *key_buckets;
  uint32_t key_mask;
} rtel__nvme;

int rtel__nvme_init(rtel__nvme *n, const rtel_settings *s,
                    const rtel__pairtab *pairs, const rtel__env *env);
void rtel__nvme_free(rtel__nvme *n);

/* Handles one decoded RoCE packet; |pk| is the hash of its key (pi->obs,
 * hd->src, hd->dst, hd->dqpn) by rtel__qkey_hash_parts() with the
 * context's seed (rtel_settings.hash_seed), which the hub computes once
 * for every module. Returns 0 or a fatal error. */
int rtel__nvme_packet(rtel__nvme *n, const rtel_pkt_info *pi,
                      const rtel_pkt_hd *hd, const uint8_t *pkt, uint32_t pk);

/* A connection seen in RDMA CM: an NVMe-oF queue if its service ID names
 * an NVMe-oF port. Returns 0, or the fatal error of a delivery (a full
 * queue table evicts a queue, whose I/Os end evicted). */
int rtel__nvme_cm_conn(rtel__nvme *n, const rtel__cm_conn *c);

rtel_tstamp rtel__nvme_expiry(const rtel__nvme *n);
int rtel__nvme_expire(rtel__nvme *n, rtel_tstamp now);
/* Ends every outstanding I/O with |state|. */
int rtel__nvme_flush(rtel__nvme *n, uint32_t state);

/* Ends, truncated, every I/O whose queue's port is no longer measured. */
int rtel__nvme_truncate(rtel__nvme *n, const rtel__sched *sched);

/* Bytes per outstanding I/O (entry + hash and index slots). */
size_t rtel__nvme_io_size(void);

#endif /* RTEL_NVME_H */
