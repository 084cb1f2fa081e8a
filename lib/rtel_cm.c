/* SPDX-License-Identifier: MIT */
/*
 * RDMA CM MADs (IBA chapter 12): a 24-byte MAD header, then 232 bytes of
 * CM message whose layout depends on the attribute ID. The flow table and
 * the NVMe-oF correlator learn QP pairs, starting PSNs and NVMe queues
 * from these, so the fields are exposed in rtel_pkt_hd.
 */
#include "rtel_cm.h"

#define MAD_HDR_LEN 24
#define CM_MSG_LEN 232
#define MAD_CLASS_CM 0x07

/* Offset and size of the private data of each CM message, relative to
 * the start of the message (after the MAD header). */
typedef struct cm_layout {
  uint16_t attr;
  uint16_t fields;
  uint16_t priv_off;
  uint16_t priv_len;
} cm_layout;

static const cm_layout cm_layouts[] = {
    {RTEL_CM_REQ,
     RTEL_CM_F_LCID | RTEL_CM_F_SERVICE_ID | RTEL_CM_F_LOCAL_QPN |
         RTEL_CM_F_START_PSN | RTEL_CM_F_GIDS,
     140, 92},
    {RTEL_CM_MRA, RTEL_CM_F_LCID | RTEL_CM_F_RCID, 10, 222},
    {RTEL_CM_REJ, RTEL_CM_F_LCID | RTEL_CM_F_RCID | RTEL_CM_F_REJ_REASON, 84,
     148},
    {RTEL_CM_REP,
     RTEL_CM_F_LCID | RTEL_CM_F_RCID | RTEL_CM_F_LOCAL_QPN |
         RTEL_CM_F_START_PSN,
     36, 196},
    {RTEL_CM_RTU, RTEL_CM_F_LCID | RTEL_CM_F_RCID, 8, 224},
    {RTEL_CM_DREQ, RTEL_CM_F_LCID | RTEL_CM_F_RCID | RTEL_CM_F_REMOTE_QPN, 12,
     220},
    {RTEL_CM_DREP, RTEL_CM_F_LCID | RTEL_CM_F_RCID, 8, 224},
    {RTEL_CM_SIDR_REQ, RTEL_CM_F_LCID | RTEL_CM_F_SERVICE_ID, 16, 216},
    {RTEL_CM_SIDR_REP, RTEL_CM_F_LCID | RTEL_CM_F_LOCAL_QPN, 96, 136},
    {RTEL_CM_LAP, RTEL_CM_F_LCID | RTEL_CM_F_RCID, 0, 0},
    {RTEL_CM_APR, RTEL_CM_F_LCID | RTEL_CM_F_RCID, 0, 0},
};

static void cm_fields(rtel_pkt_hd *hd, const cm_layout *l, const uint8_t *d) {
  uint32_t f = l->fields;
  hd->cm_lcid = rtel__get32(d);
  if (f & RTEL_CM_F_RCID) {
    hd->cm_rcid = rtel__get32(d + 4);
  }
  switch (l->attr) {
  case RTEL_CM_REQ:
    hd->cm_service_id = rtel__get64(d + 8);
    hd->cm_local_qpn = rtel__get24(d + 32);
    hd->cm_start_psn = rtel__get24(d + 44);
    memcpy(hd->cm_local_gid, d + 56, 16);
    memcpy(hd->cm_remote_gid, d + 72, 16);
    break;
  case RTEL_CM_REP:
    hd->cm_local_qpn = rtel__get24(d + 12);
    hd->cm_start_psn = rtel__get24(d + 20);
    break;
  case RTEL_CM_REJ:
    hd->cm_rej_reason = rtel__get16(d + 10);
    break;
  case RTEL_CM_DREQ:
    hd->cm_remote_qpn = rtel__get24(d + 8);
    break;
  case RTEL_CM_SIDR_REQ:
    hd->cm_service_id = rtel__get64(d + 8);
    break;
  case RTEL_CM_SIDR_REP:
    hd->cm_local_qpn = rtel__get24(d + 8);
    break;
  default:
    break;
  }
}

uint32_t rtel__mad_decode(rtel_pkt_hd *hd, const uint8_t *pkt) {
  const uint8_t *m = pkt + hd->payload_off;
  const cm_layout *l = NULL;
  size_t i;
  uint32_t cap = hd->payload_cap;

  if (hd->payload_len < MAD_HDR_LEN) {
    return RTEL_MALFORMED_MAD;
  }
  if (cap < MAD_HDR_LEN) {
    return 0; /* truncated capture: nothing to decode */
  }
  hd->mad_base_version = m[0];
  hd->mad_class = m[1];
  hd->mad_class_version = m[2];
  hd->mad_method = m[3];
  hd->mad_status = rtel__get16(m + 4);
  hd->mad_tid = rtel__get64(m + 8);
  hd->mad_attr_id = rtel__get16(m + 16);
  hd->mad_attr_mod = rtel__get32(m + 20);
  hd->flags |= RTEL_HD_F_MAD;

  if (hd->mad_class != MAD_CLASS_CM) {
    return 0;
  }
  for (i = 0; i < sizeof(cm_layouts) / sizeof(cm_layouts[0]); i++) {
    if (cm_layouts[i].attr == hd->mad_attr_id) {
      l = &cm_layouts[i];
      break;
    }
  }
  if (l == NULL) {
    return 0; /* other CM attributes (ClassPortInfo...) */
  }
  if (hd->payload_len < MAD_HDR_LEN + CM_MSG_LEN) {
    return RTEL_MALFORMED_MAD;
  }
  /* The fixed fields end where the private data begins (LAP/APR: only
   * the two communication IDs are read). */
  if (cap < MAD_HDR_LEN + (l->priv_off ? l->priv_off : 8u)) {
    return 0;
  }
  hd->cm_attr = l->attr;
  hd->cm_fields = l->fields;
  cm_fields(hd, l, m + MAD_HDR_LEN);
  hd->cm_priv_off = hd->payload_off + MAD_HDR_LEN + l->priv_off;
  if (l->priv_len == 0) {
    hd->cm_priv_len = 0;
  } else {
    uint32_t avail = cap - MAD_HDR_LEN - l->priv_off;
    hd->cm_priv_len = avail < l->priv_len ? avail : l->priv_len;
  }
  hd->flags |= RTEL_HD_F_CM;
  return 0;
}

/* IP-CM service IDs (IBTA Annex A11): 0x0000000001 | protocol | port. */
#define IPCM_SID_MASK 0xFFFFFFFFFF000000ull
#define IPCM_SID_PREFIX 0x0000000001000000ull
/* IP-CM private data header, then the consumer's (NVMe-RDMA: RECFMT,
 * QID, HRQSIZE, HSQSIZE, little-endian). */
#define IPCM_HDR_LEN 36

int rtel__cm_track(rtel__cm_tracker *t, uint32_t obs, const rtel_pkt_hd *hd,
                   const uint8_t *pkt, rtel__cm_conn *conn) {
  uint32_t i;

  if (hd->cm_attr == RTEL_CM_REQ) {
    rtel__cm_req *r = &t->req[t->next];
    t->next = (t->next + 1) % RTEL__CM_PENDING;
    r->tid = hd->mad_tid;
    r->service_id = hd->cm_service_id;
    r->obs = obs;
    memcpy(r->src, hd->src, 16);
    memcpy(r->dst, hd->dst, 16);
    r->qpn = hd->cm_local_qpn;
    r->nvme_qid = -1;
    if ((hd->cm_service_id & IPCM_SID_MASK) == IPCM_SID_PREFIX &&
        hd->cm_priv_len >= IPCM_HDR_LEN + 4) {
      const uint8_t *q = pkt + hd->cm_priv_off + IPCM_HDR_LEN + 2;
      r->nvme_qid = (int32_t)((uint32_t)q[0] | (uint32_t)q[1] << 8);
    }
    r->used = 1;
    return 0;
  }
  if (hd->cm_attr != RTEL_CM_REP) {
    return 0;
  }
  for (i = 0; i < RTEL__CM_PENDING; i++) {
    rtel__cm_req *r = &t->req[i];
    if (r->used && r->tid == hd->mad_tid && r->obs == obs &&
        memcmp(r->src, hd->dst, 16) == 0 && memcmp(r->dst, hd->src, 16) == 0) {
      r->used = 0;
      conn->obs = obs;
      conn->port = 0;
      conn->req_ip = r->src;
      conn->rsp_ip = r->dst;
      conn->req_qpn = r->qpn;
      conn->rsp_qpn = hd->cm_local_qpn;
      conn->service_id = r->service_id;
      conn->nvme_qid = r->nvme_qid;
      return 1;
    }
  }
  return 0;
}
