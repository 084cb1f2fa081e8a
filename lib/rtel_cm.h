/* SPDX-License-Identifier: MIT */
/* Management datagrams on QP0/QP1 and the RDMA CM messages among them. */
#ifndef RTEL_CM_H
#define RTEL_CM_H

#include "rtel_int.h"

/* Decodes the MAD in the payload of a UD packet to QP0/QP1 into hd.
 * Returns 0, or RTEL_MALFORMED_MAD if the length fields say the MAD (or
 * the CM message) is shorter than its fixed part. A capture that ends
 * early only leaves the fields it could not reach unflagged. */
uint32_t rtel__mad_decode(rtel_pkt_hd *hd, const uint8_t *pkt);

/* ConnectRequests waiting for their ConnectReply (oldest overwritten). */
#define RTEL__CM_PENDING 64

typedef struct rtel__cm_req {
  uint64_t tid;
  uint64_t service_id;
  uint8_t src[16]; /* requester */
  uint8_t dst[16]; /* responder */
  uint32_t obs;
  uint32_t qpn;     /* requester's local QPN */
  int32_t nvme_qid; /* NVMe-oF queue id from the private data, or -1 */
  uint32_t used;
} rtel__cm_req;

typedef struct rtel__cm_tracker {
  rtel__cm_req req[RTEL__CM_PENDING];
  uint32_t next;
} rtel__cm_tracker;

/* A connection established by a REQ/REP exchange. */
typedef struct rtel__cm_conn {
  uint32_t obs;
  uint32_t port;         /* of the REP */
  const uint8_t *req_ip; /* requester (the NVMe-oF host) */
  const uint8_t *rsp_ip; /* responder (the NVMe-oF target) */
  uint32_t req_qpn;
  uint32_t rsp_qpn;
  uint64_t service_id;
  int32_t nvme_qid; /* -1 if the private data is not NVMe-oF's */
} rtel__cm_conn;

/* Tracks REQ/REP pairs. Returns 1 and fills |conn| (pointing into the
 * tracker) when |hd| is the REP that completes a pending REQ. */
int rtel__cm_track(rtel__cm_tracker *t, uint32_t obs, const rtel_pkt_hd *hd,
                   const uint8_t *pkt, rtel__cm_conn *conn);

#endif /* RTEL_CM_H */
