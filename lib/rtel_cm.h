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

#endif /* RTEL_CM_H */
