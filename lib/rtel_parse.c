/* SPDX-License-Identifier: MIT */
/*
 * The packet decoder.
 *
 * Walks link layer -> VLAN tags -> IPv4/IPv6 (or the RoCEv1 GRH) -> UDP
 * -> BTH -> extended transport headers, removing ERSPAN (GRE) and VXLAN
 * encapsulations on the way. Every read is bounds-checked against the
 * captured length; every length field is checked against the wire length
 * and the enclosing header's length. Nothing is allocated, nothing is
 * retained, and only the fields of headers that are present are written.
 *
 * Two limits are tracked:
 *   cap  bytes captured (what may be read);
 *   lim  end of the innermost enclosing packet on the wire (what length
 *        fields may claim): the wire length, then the outer UDP or IP end
 *        after a decapsulation.
 */
#include "rtel_parse.h"

#include "rtel_cm.h"
#include "rtel_icrc.h"
#include "rtel_opcode.h"

#define ETH_P_IPV4 0x0800u
#define ETH_P_IPV6 0x86DDu
#define ETH_P_ROCEV1 0x8915u
#define ETH_P_8021Q 0x8100u
#define ETH_P_8021AD 0x88A8u
#define ETH_P_QINQ_OLD 0x9100u
#define ETH_P_ERSPAN2 0x88BEu
#define ETH_P_ERSPAN3 0x22EBu
#define ETH_P_TEB 0x6558u

#define IPPROTO_UDP_ 17u
#define IPPROTO_GRE_ 47u

#define GRH_NEXT_BTH 0x1Bu
#define BTH_LEN 12u
#define ICRC_LEN 4u
#define MAX_IPV6_EXT 8

static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

typedef struct dstate {
  rtel_pkt_hd *hd;
  const rtel__decode_cfg *cfg;
  const uint8_t *pkt;
  size_t cap;     /* captured bytes */
  size_t lim;     /* end of the enclosing packet on the wire */
  size_t off;     /* current offset */
  size_t end;     /* end on the wire of the header being walked (IP, UDP) */
  unsigned depth; /* encapsulations removed */
  uint16_t et;    /* ethertype of the next L3 header */
  uint8_t proto;  /* IP protocol of the next L4 header */
} dstate;

/* Steps of the walk: each layer returns the next one (positive) or an
 * error (negative). The walk is a loop, not recursion, so the compiler can
 * inline every layer into one function. */
#define NEXT_L3 1
#define NEXT_L4 2
#define NEXT_L2 3
#define NEXT_BTH 4

/* A malformation: when the capture is shorter than the wire the real cause
 * may be the truncation, which the caller tells apart. */
static int malformed(dstate *s, uint32_t reason) {
  s->hd->malformed = reason;
  return RTEL_ERR_MALFORMED;
}

/* An IP (or GRH) length beyond the packet's end: a copy that a mirror cut
 * short without telling (its "wire" length is the copy's). The header's
 * length is taken as the truth, the packet flagged truncated, and what was
 * copied is decoded. */
static void cut_copy(dstate *s, size_t end) {
  s->hd->flags |= RTEL_HD_F_TRUNCATED;
  if (s->depth == 0 && end > s->hd->wire_len) {
    s->hd->wire_len = (uint32_t)end; /* the outermost packet's real length */
  }
  s->lim = end;
}

/* |n| bytes from the current offset must be captured. Beyond the capture
 * but within the wire packet: truncated; beyond the wire packet: the
 * given reason. */
#define NEED(s, n, reason)                                                    \
  do {                                                                        \
    if (rtel__unlikely((s)->off + (size_t)(n) > (s)->cap)) {                  \
      return malformed((s), (s)->off + (size_t)(n) > (s)->lim                 \
                                ? (reason)                                    \
                                : RTEL_MALFORMED_TRUNCATED);                  \
    }                                                                         \
  } while (0)

/* ------------------------------------------------------------------ BTH */

/* Decodes the extended headers of header mask |h| at |p|, in wire order,
 * as far as the capture (ending at |end|) holds them: a header cut by the
 * capture, and those after it, are left out. Returns the RTEL_HD_F_* bits
 * of the headers decoded, with RTEL_HD_F_HDR_TRUNC if one was cut. */
#define EXT(bit, len)                                                         \
  if (h & (bit)) {                                                            \
    if (rtel__unlikely(p + (len) > end)) {                                    \
      return fl | RTEL_HD_F_HDR_TRUNC;                                        \
    }
#define EXT_END(len)                                                          \
  p += (len);                                                                 \
  }

static rtel__inline uint32_t decode_ext(rtel_pkt_hd *hd, const uint8_t *p,
                                        const uint8_t *end, uint16_t h) {
  uint32_t fl = 0;

  EXT(RTEL__H_RDETH, 4)
  hd->rdeth_eecnxt = rtel__get24b(p + 1);
  fl |= RTEL_HD_F_RDETH;
  EXT_END(4)
  EXT(RTEL__H_DETH, 8)
  hd->deth_qkey = rtel__get32(p);
  hd->deth_sqpn = rtel__get24b(p + 5);
  fl |= RTEL_HD_F_DETH;
  EXT_END(8)
  EXT(RTEL__H_XRCETH, 4)
  hd->xrc_srqn = rtel__get24b(p + 1);
  fl |= RTEL_HD_F_XRCETH;
  EXT_END(4)
  EXT(RTEL__H_FETH, 4)
  hd->feth = rtel__get32(p);
  fl |= RTEL_HD_F_FETH;
  EXT_END(4)
  EXT(RTEL__H_RETH, 16)
  hd->reth_va = rtel__get64(p);
  hd->reth_rkey = rtel__get32(p + 8);
  hd->reth_dmalen = rtel__get32(p + 12);
  fl |= RTEL_HD_F_RETH;
  EXT_END(16)
  EXT(RTEL__H_ATOMIC, 28)
  hd->atomic_va = rtel__get64(p);
  hd->atomic_rkey = rtel__get32(p + 8);
  hd->atomic_swap = rtel__get64(p + 12);
  hd->atomic_cmp = rtel__get64(p + 20);
  fl |= RTEL_HD_F_ATOMICETH;
  EXT_END(28)
  EXT(RTEL__H_AETH, 4)
  hd->aeth_syndrome = p[0];
  hd->aeth_msn = rtel__get24b(p + 1);
  fl |= RTEL_HD_F_AETH;
  EXT_END(4)
  EXT(RTEL__H_ATOMICACK, 8)
  hd->atomicack_orig = rtel__get64(p);
  fl |= RTEL_HD_F_ATOMICACKETH;
  EXT_END(8)
  EXT(RTEL__H_IMM, 4)
  hd->imm = rtel__get32(p);
  fl |= RTEL_HD_F_IMMDT;
  EXT_END(4)
  EXT(RTEL__H_IETH, 4)
  hd->ieth_rkey = rtel__get32(p);
  fl |= RTEL_HD_F_IETH;
  EXT_END(4)
  return fl;
}

#undef EXT
#undef EXT_END

/* decode_ext() out of line, for the fast path: a call on a quarter of the
 * packets costs less than the registers the inlined walk takes from all. */
static rtel__noinline uint32_t decode_ext_call(rtel_pkt_hd *hd,
                                               const uint8_t *p,
                                               const uint8_t *end,
                                               uint16_t h) {
  return decode_ext(hd, p, end, h);
}

/* The BTH starts at s->off; the RoCE packet (BTH .. ICRC) ends at s->end
 * on the wire. |full|: fill every field (0: not those rtel__decode_lite()
 * leaves alone); a constant, each entry has its own copy. */
static rtel__inline int decode_bth(dstate *s, const int full) {
  rtel_pkt_hd *hd = s->hd;
  size_t end = s->end;
  const uint8_t *p;
  size_t roce_len = end - s->off;
  size_t ext, total;
  uint16_t h;
  uint8_t b1, b4, pad, tver;

  if (rtel__unlikely(roce_len < BTH_LEN + ICRC_LEN)) {
    return malformed(s, RTEL_MALFORMED_ROCE_LEN);
  }
  NEED(s, BTH_LEN, RTEL_MALFORMED_ROCE_LEN);
  p = s->pkt + s->off;
  hd->bth_off = (uint16_t)s->off;
  hd->opcode = p[0];
  b1 = p[1];
  pad = (uint8_t)((b1 >> 4) & 3);
  tver = (uint8_t)(b1 & 0x0f);
  b4 = p[4];
  hd->fecn = (uint8_t)(b4 >> 7);
  hd->becn = (uint8_t)((b4 >> 6) & 1);
  hd->dqpn = rtel__get24b(p + 5);
  hd->psn = rtel__get24b(p + 9);
  if (full) {
    hd->se = (uint8_t)(b1 >> 7);
    hd->m = (uint8_t)((b1 >> 6) & 1);
    hd->pad = pad;
    hd->tver = tver;
    hd->pkey = rtel__get16(p + 2);
    hd->resv6 = (uint8_t)(b4 & 0x3f);
    hd->ackreq = (uint8_t)(p[8] >> 7);
    hd->resv7 = (uint8_t)(p[8] & 0x7f);
  }
  hd->flags |= RTEL_HD_F_BTH;

  h = rtel__opcodes[hd->opcode].hdrs;
  if (rtel__unlikely(h == 0 || tver != 0)) {
    /* A reserved or vendor opcode, or another transport version: the
     * headers after the BTH are unknown, so all of it is payload. */
    hd->flags |= h == 0 ? RTEL_HD_F_UNKNOWN_OPCODE : RTEL_HD_F_UNKNOWN_TVER;
    h = RTEL__H_VALID;
    ext = 0;
  } else {
    ext = rtel__ext_len[hd->opcode];
  }
  if (rtel__unlikely(BTH_LEN + ext + ICRC_LEN > roce_len)) {
    return malformed(s, RTEL_MALFORMED_ROCE_LEN);
  }
  total = roce_len - BTH_LEN - ext - ICRC_LEN; /* payload + pad */
  if (rtel__unlikely(pad > total)) {
    return malformed(s, RTEL_MALFORMED_PAD);
  }
  hd->payload_off = (uint32_t)(s->off + BTH_LEN + ext);
  hd->payload_len = (uint32_t)(total - pad);
  if (hd->payload_off >= s->cap) {
    hd->payload_cap = 0;
  } else {
    size_t c = s->cap - hd->payload_off;
    hd->payload_cap = (uint32_t)(c < hd->payload_len ? c : hd->payload_len);
  }

  s->off += BTH_LEN;
  if (ext) {
    hd->flags |= decode_ext(hd, s->pkt + s->off, s->pkt + s->cap, h);
  }
  if (h & RTEL__H_CNP) {
    hd->flags |= RTEL_HD_F_CNP;
  }

  hd->flags |= RTEL_HD_F_ROCE;
  hd->icrc_status = RTEL_ICRC_UNCHECKED;
  if (rtel__likely(end <= s->cap)) {
    /*X*/
    hd->flags |= RTEL_HD_F_ICRC;
    /* The wire ICRC is read only to verify it: it sits in the packet's
     * last cache line, which the decoder otherwise never touches (reading
     * it always cost 5 ns per packet in make bench). */
    if (s->cfg->flags & RTEL_DECODE_VERIFY_ICRC) {
      hd->icrc = rtel__get32le(s->pkt + end - ICRC_LEN);
      hd->icrc_calc = rtel__icrc(hd, s->pkt, s->cfg->crc_impl);
      hd->icrc_status =
          hd->icrc_calc == hd->icrc ? RTEL_ICRC_OK : RTEL_ICRC_BAD;
    }
  } else if (s->cfg->flags & RTEL_DECODE_VERIFY_ICRC) {
    hd->icrc_status = RTEL_ICRC_TRUNCATED;
  }

  /* Management datagrams: UD SEND ONLY to QP0 (SMI) or QP1 (GSI, CM). */
  if (hd->opcode == 0x64 && hd->dqpn <= 1 &&
      !(hd->flags & RTEL_HD_F_HDR_TRUNC)) {
    uint32_t reason = rtel__mad_decode(hd, s->pkt);
    if (rtel__unlikely(reason != 0)) {
      hd->flags &= ~RTEL_HD_F_ROCE;
      return malformed(s, reason);
    }
  }
  return 0;
}

/* ------------------------------------------------------ encapsulations */

static int enter_encap(dstate *s, uint32_t bit) {
  if (rtel__unlikely(++s->depth > RTEL_MAX_ENCAP)) {
    return malformed(s, RTEL_MALFORMED_ENCAP_DEPTH);
  }
  s->hd->encap |= bit;
  s->hd->encap_list[s->hd->nencap++] = (uint8_t)bit;
  /* The inner frame's headers replace the outer ones. */
  s->hd->flags &= ~(RTEL_HD_F_ETH | RTEL_HD_F_VLAN | RTEL_HD_F_IPV4 |
                    RTEL_HD_F_IPV6 | RTEL_HD_F_UDP);
  s->hd->nvlan = 0;
  return 0;
}

static int decode_vxlan(dstate *s) {
  const uint8_t *p;
  int rv;

  NEED(s, 8, RTEL_MALFORMED_VXLAN);
  p = s->pkt + s->off;
  if (rtel__unlikely(!(p[0] & 0x08))) {
    return malformed(s, RTEL_MALFORMED_VXLAN);
  }
  if ((rv = enter_encap(s, RTEL_ENCAP_VXLAN)) != 0) {
    return rv;
  }
  s->hd->vxlan_vni = rtel__get24(p + 4);
  s->off += 8;
  s->lim = s->end;
  return NEXT_L2;
}

static int decode_gre(dstate *s) {
  rtel_pkt_hd *hd = s->hd;
  const uint8_t *p;
  uint16_t fl, proto;
  size_t hlen;
  int rv;

  NEED(s, 4, RTEL_MALFORMED_GRE);
  p = s->pkt + s->off;
  fl = rtel__get16(p);
  proto = rtel__get16(p + 2);
  /* version 0 only; no routing (RFC 1701 source routing is obsolete) */
  if (rtel__unlikely((fl & 0x0007) != 0 || (fl & 0x4000) != 0)) {
    return malformed(s, RTEL_MALFORMED_GRE);
  }
  hlen = 4u + ((fl & 0x8000) ? 4u : 0u) + ((fl & 0x2000) ? 4u : 0u) +
         ((fl & 0x1000) ? 4u : 0u);
  if (rtel__unlikely(s->off + hlen > s->end)) {
    return malformed(s, RTEL_MALFORMED_GRE);
  }
  NEED(s, hlen, RTEL_MALFORMED_GRE);
  s->lim = s->end;
  switch (proto) {
  case ETH_P_ERSPAN2:
    if (!(fl & 0x1000)) {
      /* ERSPAN type I: no sequence number, no ERSPAN header */
      s->off += hlen;
      if ((rv = enter_encap(s, RTEL_ENCAP_ERSPAN1)) != 0) {
        return rv;
      }
      return NEXT_L2;
    }
    s->off += hlen;
    NEED(s, 8, RTEL_MALFORMED_ERSPAN);
    p = s->pkt + s->off;
    if (rtel__unlikely((p[0] >> 4) != 1)) {
      return malformed(s, RTEL_MALFORMED_ERSPAN);
    }
    if ((rv = enter_encap(s, RTEL_ENCAP_ERSPAN2)) != 0) {
      return rv;
    }
    hd->erspan_session = rtel__get16(p + 2) & 0x3ffu;
    s->off += 8;
    return NEXT_L2;
  case ETH_P_ERSPAN3: {
    uint32_t w2;
    size_t elen = 12;
    s->off += hlen;
    NEED(s, 12, RTEL_MALFORMED_ERSPAN);
    p = s->pkt + s->off;
    if (rtel__unlikely((p[0] >> 4) != 2)) {
      return malformed(s, RTEL_MALFORMED_ERSPAN);
    }
    w2 = rtel__get32(p + 8);
    if (w2 & 1) { /* O: optional platform-specific subheader */
      elen += 8;
      NEED(s, elen, RTEL_MALFORMED_ERSPAN);
    }
    if (((w2 >> 10) & 0x1f) != 0) {
      /* frame type other than Ethernet: not decoded */
      return RTEL_ERR_NOT_ROCE;
    }
    if ((rv = enter_encap(s, RTEL_ENCAP_ERSPAN3)) != 0) {
      return rv;
    }
    hd->erspan_session = rtel__get16(p + 2) & 0x3ffu;
    hd->erspan_ts = rtel__get32(p + 4);
    hd->erspan_gra = (w2 >> 1) & 3u;
    hd->flags |= RTEL_HD_F_ERSPAN_TS;
    s->off += elen;
    return NEXT_L2;
  }
  case ETH_P_TEB:
    s->off += hlen;
    if ((rv = enter_encap(s, RTEL_ENCAP_GRE_TEB)) != 0) {
      return rv;
    }
    return NEXT_L2;
  default:
    return RTEL_ERR_NOT_ROCE;
  }
}

/* ------------------------------------------------------------------ L4 */

static rtel__inline void fill_udp(rtel_pkt_hd *hd, const uint8_t *p,
                                  size_t off, const int full) {
  hd->l4_off = (uint16_t)off;
  hd->sport = rtel__get16(p);
  hd->udp_len = rtel__get16(p + 4);
  if (full) {
    hd->dport = rtel__get16(p + 2);
    hd->udp_csum = rtel__get16(p + 6);
  }
  hd->flags |= RTEL_HD_F_UDP;
}

static int decode_udp(dstate *s) {
  rtel_pkt_hd *hd = s->hd;
  const uint8_t *p;
  size_t udp_end;

  NEED(s, 8, RTEL_MALFORMED_UDP_LEN);
  p = s->pkt + s->off;
  fill_udp(hd, p, s->off, 1);
  udp_end = s->off + hd->udp_len;
  if (rtel__unlikely(hd->udp_len < 8 || udp_end > s->end)) {
    return malformed(s, RTEL_MALFORMED_UDP_LEN);
  }
  s->off += 8;
  s->end = udp_end;
  if (rtel__likely(hd->dport == s->cfg->roce_port)) {
    hd->roce = 2;
    return NEXT_BTH;
  }
  if (hd->dport == s->cfg->vxlan_port &&
      !(s->cfg->flags & RTEL_DECODE_NO_DECAP)) {
    return decode_vxlan(s);
  }
  return RTEL_ERR_NOT_ROCE;
}

static int decode_l4(dstate *s) {
  if (rtel__likely(s->proto == IPPROTO_UDP_)) {
    return decode_udp(s);
  }
  if (s->proto == IPPROTO_GRE_ && !(s->cfg->flags & RTEL_DECODE_NO_DECAP)) {
    return decode_gre(s);
  }
  return RTEL_ERR_NOT_ROCE;
}

/* ------------------------------------------------------------------ L3 */

static rtel__inline void fill_ipv4(rtel_pkt_hd *hd, const uint8_t *p,
                                   size_t off, size_t tot, const int full) {
  hd->l3_off = (uint16_t)off;
  hd->dscp = (uint8_t)(p[1] >> 2);
  hd->ecn = (uint8_t)(p[1] & 3);
  if (full) {
    hd->ttl = p[8];
    hd->ip_proto = p[9];
  }
  hd->ip_len = (uint32_t)tot;
  memcpy(hd->src, v4mapped, 12);
  memcpy(hd->src + 12, p + 12, 4);
  memcpy(hd->dst, v4mapped, 12);
  memcpy(hd->dst + 12, p + 16, 4);
  hd->flags |= RTEL_HD_F_IPV4;
}

static int decode_ipv4(dstate *s) {
  rtel_pkt_hd *hd = s->hd;
  const uint8_t *p;
  size_t ihl, tot, ip_end;

  NEED(s, 20, RTEL_MALFORMED_IP_LEN);
  p = s->pkt + s->off;
  if (rtel__unlikely((p[0] >> 4) != 4)) {
    return malformed(s, RTEL_MALFORMED_IP_VERSION);
  }
  ihl = (size_t)(p[0] & 0x0f) * 4;
  if (rtel__unlikely(ihl < 20)) {
    return malformed(s, RTEL_MALFORMED_IP_HLEN);
  }
  tot = rtel__get16(p + 2);
  ip_end = s->off + tot;
  if (rtel__unlikely(tot < ihl)) {
    return malformed(s, RTEL_MALFORMED_IP_LEN);
  }
  if (rtel__unlikely(ip_end > s->lim)) {
    cut_copy(s, ip_end);
  }
  NEED(s, ihl, RTEL_MALFORMED_IP_LEN);
  fill_ipv4(hd, p, s->off, tot, 1);
  if (rtel__unlikely(rtel__get16(p + 6) & 0x3fff)) { /* MF or offset */
    hd->flags |= RTEL_HD_F_IP_FRAGMENT;
    return RTEL_ERR_NOT_ROCE;
  }
  s->off += ihl;
  s->end = ip_end;
  s->proto = p[9];
  return NEXT_L4;
}

/* The fields of an IPv6 header or a RoCEv1 GRH (same layout) at |off|,
 * the packet ending at |end|. */
static inline void fill_ipv6(rtel_pkt_hd *hd, const uint8_t *p, size_t off,
                             size_t end) {
  hd->l3_off = (uint16_t)off;
  hd->dscp = (uint8_t)((rtel__get16(p) >> 6) & 0x3f);
  hd->ecn = (uint8_t)((p[1] >> 4) & 3);
  hd->flow_label = rtel__get24(p + 1) & 0xfffffu;
  hd->ttl = p[7];
  hd->ip_len = (uint32_t)(end - off);
  memcpy(hd->src, p + 8, 16);
  memcpy(hd->dst, p + 24, 16);
}

static int is_ipv6_ext(uint8_t nh) {
  return nh == 0 || nh == 43 || nh == 44 || nh == 51 || nh == 60 ||
         nh == 135 || nh == 139 || nh == 140;
}

static int decode_ipv6(dstate *s) {
  rtel_pkt_hd *hd = s->hd;
  const uint8_t *p;
  size_t ip_end;
  uint8_t nh;
  int n;

  NEED(s, 40, RTEL_MALFORMED_IP_LEN);
  p = s->pkt + s->off;
  if (rtel__unlikely((p[0] >> 4) != 6)) {
    return malformed(s, RTEL_MALFORMED_IP_VERSION);
  }
  ip_end = s->off + 40 + rtel__get16(p + 4);
  if (rtel__unlikely(ip_end > s->lim)) {
    cut_copy(s, ip_end);
  }
  fill_ipv6(hd, p, s->off, ip_end);
  hd->flags |= RTEL_HD_F_IPV6;
  nh = p[6];
  s->off += 40;
  for (n = 0; is_ipv6_ext(nh); n++) {
    size_t elen;
    if (rtel__unlikely(n == MAX_IPV6_EXT)) {
      return malformed(s, RTEL_MALFORMED_IPV6_EXT);
    }
    NEED(s, 8, RTEL_MALFORMED_IPV6_EXT);
    p = s->pkt + s->off;
    if (nh == 44) { /* fragment header */
      hd->ip_proto = p[0];
      if ((rtel__get16(p + 2) & 0xfff9) != 0) { /* offset or M */
        hd->flags |= RTEL_HD_F_IP_FRAGMENT;
        return RTEL_ERR_NOT_ROCE;
      }
      elen = 8;
    } else if (nh == 51) { /* AH: length in 4-byte units, minus 2 */
      elen = ((size_t)p[1] + 2) * 4;
    } else {
      elen = ((size_t)p[1] + 1) * 8;
    }
    if (rtel__unlikely(s->off + elen > ip_end)) {
      return malformed(s, RTEL_MALFORMED_IPV6_EXT);
    }
    nh = p[0];
    s->off += elen;
  }
  hd->ip_proto = nh;
  s->end = ip_end;
  s->proto = nh;
  return NEXT_L4;
}

/* RoCEv1: a 40-byte GRH (IPv6 layout) with next header 0x1B, then BTH. */
static int decode_grh(dstate *s) {
  rtel_pkt_hd *hd = s->hd;
  const uint8_t *p;
  size_t end;

  NEED(s, 40, RTEL_MALFORMED_IP_LEN);
  p = s->pkt + s->off;
  if (rtel__unlikely((p[0] >> 4) != 6)) {
    return malformed(s, RTEL_MALFORMED_GRH);
  }
  if (rtel__unlikely(p[6] != GRH_NEXT_BTH)) {
    return malformed(s, RTEL_MALFORMED_GRH);
  }
  end = s->off + 40 + rtel__get16(p + 4);
  if (rtel__unlikely(end > s->lim)) {
    cut_copy(s, end);
  }
  fill_ipv6(hd, p, s->off, end);
  hd->ip_proto = p[6];
  hd->flags |= RTEL_HD_F_GRH;
  s->off += 40;
  hd->l4_off = (uint16_t)s->off;
  hd->roce = 1;
  s->end = end;
  return NEXT_BTH;
}

static int decode_l3(dstate *s) {
  s->hd->ethertype = s->et;
  switch (s->et) {
  case ETH_P_IPV4:
    return decode_ipv4(s);
  case ETH_P_IPV6:
    return decode_ipv6(s);
  case ETH_P_ROCEV1:
    if (s->cfg->flags & RTEL_DECODE_NO_ROCEV1) {
      return RTEL_ERR_NOT_ROCE;
    }
    return decode_grh(s);
  default:
    return RTEL_ERR_NOT_ROCE;
  }
}

/* ------------------------------------------------------------------ L2 */

static int is_vlan_tpid(uint16_t et) {
  return et == ETH_P_8021Q || et == ETH_P_8021AD || et == ETH_P_QINQ_OLD;
}

/* VLAN tags starting at s->off whose TPID was |et|; returns the inner
 * ethertype through |pet|. */
static int decode_vlans(dstate *s, uint16_t et, uint16_t *pet) {
  rtel_pkt_hd *hd = s->hd;
  while (is_vlan_tpid(et)) {
    const uint8_t *p;
    if (rtel__unlikely(hd->nvlan == RTEL_MAX_VLAN)) {
      return malformed(s, RTEL_MALFORMED_VLAN_DEPTH);
    }
    NEED(s, 4, RTEL_MALFORMED_TRUNCATED);
    p = s->pkt + s->off;
    hd->vlan_tpid[hd->nvlan] = et;
    hd->vlan_tci[hd->nvlan] = rtel__get16(p);
    hd->nvlan++;
    et = rtel__get16(p + 2);
    s->off += 4;
  }
  if (hd->nvlan) {
    hd->flags |= RTEL_HD_F_VLAN;
  }
  *pet = et;
  return 0;
}

static int decode_eth(dstate *s) {
  rtel_pkt_hd *hd = s->hd;
  const uint8_t *p;
  uint16_t et;
  int rv;

  NEED(s, 14, RTEL_MALFORMED_TRUNCATED);
  p = s->pkt + s->off;
  memcpy(hd->eth_dst, p, 6);
  memcpy(hd->eth_src, p + 6, 6);
  et = rtel__get16(p + 12);
  s->off += 14;
  hd->nvlan = 0;
  if (rtel__unlikely(is_vlan_tpid(et))) {
    if ((rv = decode_vlans(s, et, &et)) != 0) {
      return rv;
    }
  }
  hd->flags |= RTEL_HD_F_ETH;
  s->et = et;
  return NEXT_L3;
}

static int decode_link(dstate *s) {
  const uint8_t *p;
  uint16_t et;
  int rv;

  switch (s->cfg->linktype) {
  case RTEL_LINK_ETHERNET:
    return NEXT_L2;
  case RTEL_LINK_RAW:
    NEED(s, 1, RTEL_MALFORMED_TRUNCATED);
    switch (s->pkt[0] >> 4) {
    case 4:
      s->et = ETH_P_IPV4;
      return NEXT_L3;
    case 6:
      s->et = ETH_P_IPV6;
      return NEXT_L3;
    default:
      return RTEL_ERR_NOT_ROCE;
    }
  case RTEL_LINK_LINUX_SLL:
    NEED(s, 16, RTEL_MALFORMED_TRUNCATED);
    p = s->pkt;
    et = rtel__get16(p + 14);
    s->off = 16;
    break;
  case RTEL_LINK_LINUX_SLL2:
    NEED(s, 20, RTEL_MALFORMED_TRUNCATED);
    p = s->pkt;
    et = rtel__get16(p);
    s->off = 20;
    break;
  default:
    return malformed(s, RTEL_MALFORMED_LINKTYPE);
  }
  s->hd->nvlan = 0;
  if (is_vlan_tpid(et) && (rv = decode_vlans(s, et, &et)) != 0) {
    return rv;
  }
  s->et = et;
  return NEXT_L3;
}

/* ------------------------------------------------------------ fast path */

/* The CNP flag is its header bit, shifted. */
RTEL__STATIC_ASSERT((uint32_t)RTEL__H_CNP << 9 == RTEL_HD_F_CNP,
                    "the CNP bit is its flag shifted");

/* The 16 bytes of an IPv4-mapped address (::ffff:a.b.c.d) from the 4 at
 * |a|, as two 8-byte stores. */
static rtel__inline void put_v4mapped(uint8_t *dst, const uint8_t *a) {
  uint32_t v;
  uint64_t lo = 0, hi;
  memcpy(&v, a, 4);
#ifdef WORDS_BIGENDIAN
  hi = (uint64_t)0xffffu << 32 | v;
#else
  hi = (uint64_t)v << 32 | 0xffff0000u;
#endif
  memcpy(dst, &lo, 8);
  memcpy(dst + 8, &hi, 8);
}

/* The checks of the fast path (phase 1 of fast_ip()), for the IP header at
 * |off|, IPv4 (|v4|, a constant) or IPv6: returns 0 if the packet is not
 * one the fast path takes, else 1 with |c| filled. */
typedef struct fast_chk {
  size_t wire;   /* the wire length, raised to the IP packet's end */
  size_t ip_end; /* the end of the IP packet */
  size_t end;    /* the end of the UDP datagram and of the RoCE packet */
  size_t poff;   /* the payload's offset */
  uint32_t b0;   /* the BTH's first word */
  uint16_t h;    /* the opcode's headers (rtel__opcodes[].hdrs) */
} fast_chk;

static rtel__inline int fast_check(fast_chk *c, const rtel__decode_cfg *cfg,
                                   const uint8_t *p, size_t cap, size_t wire,
                                   size_t off, const int v4) {
  /* the IP header's length, and so the offsets of UDP and BTH from it */
  const size_t iph = v4 ? 20 : 40;
  const uint8_t *ip = p + off, *bth = ip + iph + 8;
  size_t ip_end, end, poff;
  uint32_t b0;
  uint16_t h;

  /* with as few values as possible live across the checks: what phase 2
   * of fast_ip() needs again it reads again from the packet or the opcode
   * table (a load), which costs less than a register spilled to the
   * stack */
  if (v4) {
    /* version 4, IHL 5, UDP, no MF, no fragment offset */
    if (rtel__unlikely(cap < off + 20 + 8 + BTH_LEN || ip[0] != 0x45 ||
                       ip[9] != IPPROTO_UDP_ ||
                       (rtel__get16(ip + 6) & 0x3fff) != 0)) {
      return 0;
    }
    ip_end = off + rtel__get16(ip + 2);
  } else {
    /* version 6, UDP next (no extension header) */
    if (rtel__unlikely(cap < off + 40 + 8 + BTH_LEN || (ip[0] >> 4) != 6 ||
                       ip[6] != IPPROTO_UDP_)) {
      return 0;
    }
    ip_end = off + 40 + rtel__get16(ip + 4);
  }
  /* An IP packet beyond the wire: a copy that a mirror cut short without
   * telling (its "wire" length is the copy's), the common case of mirrored
   * traffic. As cut_copy() in the walk: the IP length is the truth, and the
   * packet's wire length (the packet is flagged truncated, cap < wire). */
  if (ip_end > wire) {
    wire = ip_end;
  }
  end = off + iph + rtel__get16(ip + iph + 4);
  /* the datagram within the IP packet, room for the BTH and the ICRC, the
   * RoCEv2 port */
  if (rtel__unlikely(end > ip_end ||
                     end < off + iph + 8 + BTH_LEN + ICRC_LEN ||
                     rtel__get16(ip + iph + 2) != cfg->roce_port)) {
    return 0;
  }
  b0 = rtel__get32(bth);
  h = rtel__opcodes[b0 >> 24].hdrs;
  poff = off + iph + 8 + BTH_LEN + rtel__ext_len[b0 >> 24];
  /* a known opcode, TVer 0, the extended headers captured and within the
   * packet, the pad within the payload, no MAD to QP0/QP1 */
  if (rtel__unlikely(h == 0 || (b0 & 0x000f0000u) != 0 || poff > cap ||
                     poff + ICRC_LEN + ((b0 >> 20) & 3) > end ||
                     ((b0 >> 24) == 0x64 && rtel__get24b(bth + 5) <= 1))) {
    return 0;
  }
  c->wire = wire;
  c->ip_end = ip_end;
  c->end = end;
  c->poff = poff;
  c->b0 = b0;
  c->h = h;
  return 1;
}

/* The fast path from the IP header at |off| (after |vl| 802.1Q tags, 0 or
 * 1) on, for IPv4 (|v4|) or IPv6: decode_fast(). |v4| and |full| are
 * constants: each of the four copies is straight-line code. */
static rtel__inline int fast_ip(rtel_pkt_hd *hd, const rtel__decode_cfg *cfg,
                                const uint8_t *p, size_t cap, size_t wire,
                                size_t off, size_t vl, const int v4,
                                const int full) {
  const size_t iph = v4 ? 20 : 40;
  const uint8_t *ip = p + off, *bth = ip + iph + 8;
  size_t ip_end, end, poff, plen, c;
  uint32_t fl, b0;
  uint16_t h;
  fast_chk k;

  /* Phase 1, the checks */
  if (!fast_check(&k, cfg, p, cap, wire, off, v4)) {
    return 0;
  }
  wire = k.wire;
  ip_end = k.ip_end;
  end = k.end;
  poff = k.poff;
  b0 = k.b0;
  h = k.h;
  fl = RTEL_HD_F_ETH | RTEL_HD_F_UDP | RTEL_HD_F_BTH | RTEL_HD_F_ROCE |
       (v4 ? RTEL_HD_F_IPV4 : RTEL_HD_F_IPV6) |
       (uint32_t)(h & RTEL__H_CNP) << 9 | (uint32_t)vl << 4 |
       (cap < wire ? RTEL_HD_F_TRUNCATED : 0) |
       (end <= cap ? RTEL_HD_F_ICRC : 0);

  /* Phase 2, the stores, in the struct's order */
  hd->malformed = RTEL_MALFORMED_NONE;
  hd->wire_len = (uint32_t)(wire > UINT32_MAX ? UINT32_MAX : wire);
  if (full) {
    hd->cap_len = (uint32_t)cap;
  }
  hd->encap = 0;
  hd->roce = 2;
  hd->nencap = 0;
  if (full) {
    memcpy(hd->eth_dst, p, 12); /* and eth_src */
    hd->ethertype = v4 ? ETH_P_IPV4 : ETH_P_IPV6;
  }
  hd->nvlan = (uint16_t)vl;
  if (vl) {
    if (full) {
      hd->vlan_tpid[0] = ETH_P_8021Q;
    }
    hd->vlan_tci[0] = rtel__get16(p + 14);
  }
  if (v4) {
    put_v4mapped(hd->src, ip + 12);
    put_v4mapped(hd->dst, ip + 16);
    hd->dscp = (uint8_t)(ip[1] >> 2);
    hd->ecn = (uint8_t)(ip[1] & 3);
    if (full) {
      hd->ttl = ip[8];
    }
  } else {
    memcpy(hd->src, ip + 8, 32); /* and dst */
    hd->dscp = (uint8_t)((rtel__get16(ip) >> 6) & 0x3f);
    hd->ecn = (uint8_t)((ip[1] >> 4) & 3);
    if (full) {
      hd->ttl = ip[7];
      hd->flow_label = rtel__get24(ip + 1) & 0xfffffu;
    }
  }
  if (full) {
    hd->ip_proto = IPPROTO_UDP_;
  }
  hd->ip_len = (uint32_t)(ip_end - off);
  hd->l3_off = (uint16_t)off;
  hd->l4_off = (uint16_t)(off + iph);
  hd->sport = rtel__get16(ip + iph);
  if (full) {
    hd->dport = cfg->roce_port;
  }
  hd->udp_len = (uint16_t)(end - off - iph);
  if (full) {
    hd->udp_csum = rtel__get16(ip + iph + 6);
  }
  hd->bth_off = (uint16_t)(off + iph + 8);
  hd->opcode = (uint8_t)(b0 >> 24);
  if (full) {
    hd->se = (uint8_t)(b0 >> 23 & 1);
    hd->m = (uint8_t)(b0 >> 22 & 1);
    hd->pad = (uint8_t)(b0 >> 20 & 3);
    hd->tver = 0;
  }
  hd->fecn = (uint8_t)(bth[4] >> 7);
  hd->becn = (uint8_t)(bth[4] >> 6 & 1);
  if (full) {
    hd->ackreq = (uint8_t)(bth[8] >> 7);
    hd->resv6 = (uint8_t)(bth[4] & 0x3f);
    hd->resv7 = (uint8_t)(bth[8] & 0x7f);
    hd->pkey = (uint16_t)b0;
  }
  hd->dqpn = rtel__get24b(bth + 5);
  hd->psn = rtel__get24b(bth + 9);
  plen = end - poff - ICRC_LEN - (b0 >> 20 & 3);
  c = cap - poff;
  hd->payload_off = (uint32_t)poff;
  hd->payload_len = (uint32_t)plen;
  hd->payload_cap = (uint32_t)(c < plen ? c : plen);
  hd->icrc_status = RTEL_ICRC_UNCHECKED;
  if (poff > off + iph + 8 + BTH_LEN) {
    /* extended headers, all captured (no RTEL_HD_F_HDR_TRUNC) */
    fl |= decode_ext_call(hd, bth + BTH_LEN, p + cap,
                          rtel__opcodes[b0 >> 24].hdrs);
  }
  hd->flags = fl;
  if (cfg->flags & RTEL_DECODE_VERIFY_ICRC) {
    if (end <= cap) {
      hd->icrc = rtel__get32le(p + end - ICRC_LEN);
      hd->icrc_calc = rtel__icrc(hd, p, cfg->crc_impl);
      hd->icrc_status =
          hd->icrc_calc == hd->icrc ? RTEL_ICRC_OK : RTEL_ICRC_BAD;
    } else {
      hd->icrc_status = RTEL_ICRC_TRUNCATED;
    }
  }
  return 1;
}

/* The common case in one pass: Ethernet II with at most one 802.1Q tag,
 * IPv4 without options or fragmentation or IPv6 without extension
 * headers, UDP to the RoCEv2 port, a BTH of transport version 0 with a
 * known opcode (not a MAD to QP0/QP1), its extended headers captured and
 * the lengths consistent (an IP packet beyond the wire length is a mirror's
 * cut copy, as in the walk). |cap| and
 * |wire| are as decode_entry() has clamped them. Every condition is
 * checked before the first store; if one fails, returns 0 having written
 * nothing, and the general walk takes the packet (and reports whatever is
 * wrong with it). Otherwise fills |hd| exactly as the walk would (the same
 * fields, the same values: tests/check_fastpath.c) and returns 1: the
 * packet is RoCE. */
static rtel__inline int decode_fast(rtel_pkt_hd *hd,
                                    const rtel__decode_cfg *cfg,
                                    const uint8_t *p, size_t cap, size_t wire,
                                    const int full) {
  size_t vl, off;
  uint16_t et;

  if (rtel__unlikely(cap < 14 + 20 + 8 + BTH_LEN)) {
    return 0; /* Ethernet + IPv4 + UDP + BTH, the shortest */
  }
  vl = rtel__get16(p + 12) == ETH_P_8021Q;
  off = 14 + 4 * vl;
  et = rtel__get16(p + off - 2); /* the tag's ethertype, or the frame's */
  if (rtel__likely(et == ETH_P_IPV4)) {
    return fast_ip(hd, cfg, p, cap, wire, off, vl, 1, full);
  }
  if (et == ETH_P_IPV6) {
    return fast_ip(hd, cfg, p, cap, wire, off, vl, 0, full);
  }
  return 0;
}

/* ------------------------------------------------------------ entry */

int rtel__decode_cfg_init(rtel__decode_cfg *cfg, uint32_t flags,
                          uint32_t linktype, uint32_t roce_port,
                          uint32_t vxlan_port) {
  if (roce_port > 0xffff || vxlan_port > 0xffff) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  if (flags & ~(uint32_t)(RTEL_DECODE_VERIFY_ICRC | RTEL_DECODE_NO_DECAP |
                          RTEL_DECODE_NO_ROCEV1)) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  cfg->flags = flags;
  cfg->linktype = linktype ? linktype : RTEL_LINK_ETHERNET;
  cfg->roce_port = (uint16_t)(roce_port ? roce_port : RTEL_ROCEV2_UDP_PORT);
  cfg->vxlan_port = (uint16_t)(vxlan_port ? vxlan_port : RTEL_VXLAN_UDP_PORT);
  cfg->crc_impl = RTEL__CRC_BUILD;
  return 0;
}

void rtel__decode_cfg_keep(rtel__decode_cfg *cfg) {
  if (cfg->flags & RTEL_DECODE_VERIFY_ICRC) {
    cfg->crc_impl = rtel__crc32_best();
  }
}

/* The general walk, for whatever the fast path does not take: returns
 * NEXT_BTH with s->off at the BTH, or the result. */
static rtel__noinline int decode_walk(dstate *s) {
  int rv;

  s->depth = 0;
  s->et = 0;
  s->proto = 0;
  rv = decode_link(s);
  for (;;) {
    if (rv == NEXT_L2) {
      rv = decode_eth(s);
    }
    if (rv == NEXT_L3) {
      rv = decode_l3(s);
    }
    if (rv == NEXT_L4) {
      rv = decode_l4(s);
      if (rv == NEXT_L2) {
        continue; /* an encapsulated frame */
      }
    }
    break;
  }
  return rv;
}

/* The general walk from the start, for what the fast path did not take
 * (|cap| and |wire| clamped by the caller). */
static rtel__inline int decode_general(rtel_pkt_hd *hd,
                                       const rtel__decode_cfg *cfg,
                                       const uint8_t *pkt, size_t cap,
                                       size_t wire, const int full) {
  dstate s;
  int rv;

  hd->flags = cap < wire ? RTEL_HD_F_TRUNCATED : 0;
  hd->malformed = RTEL_MALFORMED_NONE;
  hd->wire_len = (uint32_t)(wire > UINT32_MAX ? UINT32_MAX : wire);
  if (full) {
    hd->cap_len = (uint32_t)cap;
  }
  hd->encap = 0;
  hd->nencap = 0;
  hd->roce = 0;
  hd->nvlan = 0;

  s.hd = hd;
  s.cfg = cfg;
  s.pkt = pkt;
  s.cap = cap;
  s.lim = wire;
  s.off = 0;
  s.end = wire;
  rv = decode_walk(&s);
  return rv == NEXT_BTH ? decode_bth(&s, full) : rv;
}

/* Out of line, so that the fast path's function keeps only what it needs
 * (registers, stack frame). */
static rtel__noinline int decode_general_full(rtel_pkt_hd *hd,
                                              const rtel__decode_cfg *cfg,
                                              const uint8_t *pkt, size_t cap,
                                              size_t wire) {
  return decode_general(hd, cfg, pkt, cap, wire, 1);
}

static rtel__noinline int decode_general_lite(rtel_pkt_hd *hd,
                                              const rtel__decode_cfg *cfg,
                                              const uint8_t *pkt, size_t cap,
                                              size_t wire) {
  return decode_general(hd, cfg, pkt, cap, wire, 0);
}

/* The lengths as the decoder takes them: offsets are 16-bit in places
 * (l3_off...), so longer inputs are cut to 64 KiB, the largest IP packet
 * plus any link header anyway; the wire length is at least the capture's. */
static rtel__inline void clamp_lengths(size_t *caplen, size_t *wire_len) {
  if (*caplen > 0xffff) {
    *caplen = 0xffff;
  }
  if (*wire_len < *caplen) {
    *wire_len = *caplen;
  }
}

/* The decoder: the fast path for the common case, the general walk for
 * the rest. |full|: fill every field (0: not those rtel__decode_lite()
 * leaves alone). */
static rtel__inline int decode_entry(rtel_pkt_hd *hd,
                                     const rtel__decode_cfg *cfg,
                                     const uint8_t *pkt, size_t caplen,
                                     size_t wire_len, const int full) {
  clamp_lengths(&caplen, &wire_len);
  if (rtel__likely(cfg->linktype == RTEL_LINK_ETHERNET) &&
      rtel__likely(decode_fast(hd, cfg, pkt, caplen, wire_len, full))) {
    return 0;
  }
  return full ? decode_general_full(hd, cfg, pkt, caplen, wire_len)
              : decode_general_lite(hd, cfg, pkt, caplen, wire_len);
}

int rtel__decode(rtel_pkt_hd *hd, const rtel__decode_cfg *cfg,
                 const uint8_t *pkt, size_t caplen, size_t wire_len) {
  return decode_entry(hd, cfg, pkt, caplen, wire_len, 1);
}

int rtel__decode_lite(rtel_pkt_hd *hd, const rtel__decode_cfg *cfg,
                      const uint8_t *pkt, size_t caplen, size_t wire_len) {
  return decode_entry(hd, cfg, pkt, caplen, wire_len, 0);
}

/* rtel__decode_data() from the IP header at |off| on (|v4| a constant). */
static rtel__inline int data_ip(rtel__dpkt *d, const rtel__decode_cfg *cfg,
                                const uint8_t *p, size_t cap, size_t wire,
                                size_t off, size_t vl, const int v4) {
  const size_t iph = v4 ? 20 : 40;
  const uint8_t *ip = p + off, *bth = ip + iph + 8;
  uint16_t cls;
  fast_chk k;

  /* the opcode first, as cheaply as it can be told: a SEND or WRITE that
   * is not a FIRST or ONLY and has no extended header (no immediate data
   * or IETH) */
  if (rtel__unlikely(cap < off + iph + 8 + BTH_LEN)) {
    return 0;
  }
  cls = rtel__op_class[bth[0]];
  if ((cls & (RTEL__K_DATA | RTEL__P_FIRST)) != RTEL__K_DATA ||
      rtel__op_class_op(cls) == RTEL_OP_READ_RESP ||
      rtel__ext_len[bth[0]] != 0) {
    return 0;
  }
  /* then everything the fast path checks */
  if (!fast_check(&k, cfg, p, cap, wire, off, v4)) {
    return 0;
  }
  if (v4) {
    put_v4mapped(d->src, ip + 12);
    put_v4mapped(d->dst, ip + 16);
    d->ecn = (uint8_t)(ip[1] & 3);
  } else {
    memcpy(d->src, ip + 8, 32); /* and dst */
    d->ecn = (uint8_t)((ip[1] >> 4) & 3);
  }
  d->dqpn = rtel__get24b(bth + 5);
  d->psn = rtel__get24b(bth + 9);
  d->payload_len = (uint32_t)(k.end - k.poff - ICRC_LEN - (k.b0 >> 20 & 3));
  d->ip_len = (uint32_t)(k.ip_end - off);
  d->wire_len = (uint32_t)(k.wire > UINT32_MAX ? UINT32_MAX : k.wire);
  d->nvlan = (uint16_t)vl;
  d->opcode = (uint8_t)(k.b0 >> 24);
  d->fecn = (uint8_t)(bth[4] >> 7);
  d->truncated = cap < k.wire;
  return 1;
}

int rtel__decode_data(rtel__dpkt *d, const rtel__decode_cfg *cfg,
                      const uint8_t *pkt, size_t caplen, size_t wire_len) {
  size_t vl, off;
  uint16_t et;

  clamp_lengths(&caplen, &wire_len);
  if (cfg->linktype != RTEL_LINK_ETHERNET ||
      (cfg->flags & RTEL_DECODE_VERIFY_ICRC) ||
      rtel__unlikely(caplen < 14 + 20 + 8 + BTH_LEN)) {
    return 0;
  }
  vl = rtel__get16(pkt + 12) == ETH_P_8021Q;
  off = 14 + 4 * vl;
  et = rtel__get16(pkt + off - 2);
  if (rtel__likely(et == ETH_P_IPV4)) {
    return data_ip(d, cfg, pkt, caplen, wire_len, off, vl, 1);
  }
  if (et == ETH_P_IPV6) {
    return data_ip(d, cfg, pkt, caplen, wire_len, off, vl, 0);
  }
  return 0;
}

int rtel__decode_fast_taken(rtel_pkt_hd *hd, const rtel__decode_cfg *cfg,
                            const uint8_t *pkt, size_t caplen, size_t wire_len,
                            int full) {
  clamp_lengths(&caplen, &wire_len);
  if (cfg->linktype != RTEL_LINK_ETHERNET) {
    return 0;
  }
  return full ? decode_fast(hd, cfg, pkt, caplen, wire_len, 1)
              : decode_fast(hd, cfg, pkt, caplen, wire_len, 0);
}

int rtel__decode_general(rtel_pkt_hd *hd, const rtel__decode_cfg *cfg,
                         const uint8_t *pkt, size_t caplen, size_t wire_len,
                         int full) {
  clamp_lengths(&caplen, &wire_len);
  return full ? decode_general_full(hd, cfg, pkt, caplen, wire_len)
              : decode_general_lite(hd, cfg, pkt, caplen, wire_len);
}

size_t rtel__pkt_hd_len(int version) {
  return rtel__version_len(version, RTEL_PKT_HD_VERSION, rtel_pkt_hd,
                           cm_priv_len);
}

/* rtel_pkt_decode_versioned() for everything but its common case: other
 * struct versions, NULL options, bad arguments. */
static rtel__noinline int
decode_versioned_other(int hd_version, rtel_pkt_hd *hd, int opts_version,
                       const rtel_decode_opts *opts, const uint8_t *pkt,
                       size_t caplen, size_t wire_len) {
  rtel__decode_cfg cfg;
  size_t hdlen = rtel__pkt_hd_len(hd_version);
  size_t optlen = rtel__version_len(opts_version, RTEL_DECODE_OPTS_VERSION,
                                    rtel_decode_opts, vxlan_udp_port);
  rtel_decode_opts o;
  int rv;

  if (hd == NULL || (pkt == NULL && caplen != 0)) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  if (hdlen == 0 || (opts && optlen == 0)) {
    return RTEL_ERR_UNSUPPORTED_VERSION;
  }
  if (opts != NULL && opts_version != RTEL_DECODE_OPTS_VERSION) {
    /* only the caller's version is read; later fields keep their zeros */
    memset(&o, 0, sizeof(o));
    memcpy(&o, opts, optlen);
    opts = &o;
  }
  if (opts == NULL) {
    cfg.flags = 0;
    cfg.linktype = RTEL_LINK_ETHERNET;
    cfg.roce_port = RTEL_ROCEV2_UDP_PORT;
    cfg.vxlan_port = RTEL_VXLAN_UDP_PORT;
    cfg.crc_impl = RTEL__CRC_BUILD;
  } else if ((rv = rtel__decode_cfg_init(&cfg, opts->flags, opts->linktype,
                                         opts->roce_udp_port,
                                         opts->vxlan_udp_port)) != 0) {
    return rv;
  }
  if (hd_version == RTEL_PKT_HD_VERSION) {
    return rtel__decode(hd, &cfg, pkt, caplen, wire_len);
  } else {
    /* An older caller: decode into the latest layout, copy its prefix.
     * The decoder writes only the fields of the headers it finds: the
     * others must keep the caller's values, as when the versions agree,
     * so the latest layout starts from the caller's prefix (not from
     * whatever the stack held). */
    rtel_pkt_hd full;
    memset(&full, 0, sizeof(full));
    memcpy(&full, hd, hdlen);
    rv = rtel__decode(&full, &cfg, pkt, caplen, wire_len);
    memcpy(hd, &full, hdlen);
    return rv;
  }
}

int rtel_pkt_decode_versioned(int hd_version, rtel_pkt_hd *hd,
                              int opts_version, const rtel_decode_opts *opts,
                              const uint8_t *pkt, size_t caplen,
                              size_t wire_len) {
  /* The common case: the library's struct versions, options valid (or
   * none), no other link type than Ethernet: the decoder inline, on the
   * caller's rtel_pkt_hd. The rest (and every error) as before. */
  if (rtel__likely(
          hd_version == RTEL_PKT_HD_VERSION && hd != NULL &&
          (pkt != NULL || caplen == 0) &&
          (opts == NULL || opts_version == RTEL_DECODE_OPTS_VERSION))) {
    uint32_t fl = 0, lt = 0, rp = 0, vp = 0;
    if (opts != NULL) {
      fl = opts->flags;
      lt = opts->linktype;
      rp = opts->roce_udp_port;
      vp = opts->vxlan_udp_port;
    }
    if (rtel__likely(
            !(fl & ~(uint32_t)(RTEL_DECODE_VERIFY_ICRC | RTEL_DECODE_NO_DECAP |
                               RTEL_DECODE_NO_ROCEV1)) &&
            (rp | vp) <= 0xffff && (lt == 0 || lt == RTEL_LINK_ETHERNET))) {
      rtel__decode_cfg cfg;
      cfg.flags = fl;
      cfg.linktype = RTEL_LINK_ETHERNET;
      cfg.roce_port = (uint16_t)(rp ? rp : RTEL_ROCEV2_UDP_PORT);
      cfg.vxlan_port = (uint16_t)(vp ? vp : RTEL_VXLAN_UDP_PORT);
      cfg.crc_impl = RTEL__CRC_BUILD;
      return decode_entry(hd, &cfg, pkt, caplen, wire_len, 1);
    }
  }
  return decode_versioned_other(hd_version, hd, opts_version, opts, pkt,
                                caplen, wire_len);
}

int rtel_icrc_compute_versioned(int hd_version, const rtel_pkt_hd *hd,
                                const uint8_t *pkt, size_t caplen,
                                uint32_t *icrc) {
  size_t end;
  if (rtel__pkt_hd_len(hd_version) == 0) {
    return RTEL_ERR_UNSUPPORTED_VERSION;
  }
  if (hd == NULL || pkt == NULL || icrc == NULL ||
      !(hd->flags & RTEL_HD_F_ROCE)) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  end = hd->roce == 2 ? (size_t)hd->l4_off + hd->udp_len
                      : (size_t)hd->l3_off + hd->ip_len;
  if (end > caplen || end > hd->cap_len) {
    return RTEL_ERR_MALFORMED;
  }
  *icrc = rtel__icrc(hd, pkt, RTEL__CRC_BUILD);
  return 0;
}

static const char *const malformed_strs[] = {
    "none",
    "truncated before the BTH",
    "too many VLAN tags",
    "IP version mismatch",
    "IPv4 header length below 20",
    "IP length field inconsistent",
    "IPv6 extension headers inconsistent",
    "UDP length field inconsistent",
    "RoCE packet shorter than its headers",
    "pad count larger than payload",
    "unsupported GRE header",
    "bad ERSPAN header",
    "bad VXLAN header",
    "encapsulation too deep",
    "GRH next header is not BTH",
    "MAD or CM message too short",
    "unsupported link type",
};

const char *rtel_malformed_str(uint32_t reason) {
  if (reason < sizeof(malformed_strs) / sizeof(malformed_strs[0])) {
    return malformed_strs[reason];
  }
  return "unknown";
}

/* ------------------------------------------------------------ shard key */

uint32_t rtel_shard_key(const rtel_pkt_hd *hd) {
  const uint8_t *lo, *hi;
  uint32_t h = 2166136261u; /* FNV-1a 32-bit offset basis */
  size_t i;

  if (hd == NULL || hd->roce == 0 ||
      !(hd->flags & (RTEL_HD_F_IPV4 | RTEL_HD_F_IPV6 | RTEL_HD_F_GRH))) {
    return 0;
  }
  /* the unordered pair: the lower address (byte order) first */
  if (memcmp(hd->src, hd->dst, 16) <= 0) {
    lo = hd->src;
    hi = hd->dst;
  } else {
    lo = hd->dst;
    hi = hd->src;
  }
  for (i = 0; i < 16; i++) {
    h = (h ^ lo[i]) * 16777619u; /* FNV prime */
  }
  for (i = 0; i < 16; i++) {
    h = (h ^ hi[i]) * 16777619u;
  }
  /* MurmurHash3's finaliser: every input bit reaches the low bits that a
   * modulo by a small shard count keeps */
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h ? h : 1u;
}
