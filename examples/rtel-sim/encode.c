/* encode.c - frame encoder: Ethernet [802.1Q] IPv4|IPv6 UDP BTH [RETH|AETH|
 * DETH|ImmDt|IETH] payload pad ICRC, optionally wrapped in ERSPAN II/III over
 * GRE, with mirror or capture truncation.
 *
 * Independent of the library (no shared code or headers).  The ICRC is
 * CRC-32 over: 8 bytes 0xFF, the IP header with TOS/TClass, FlowLabel,
 * TTL/HopLimit and the IPv4 checksum set to all ones, the UDP header with the
 * checksum set to ones, the BTH with byte 4 (FECN, BECN, reserved) set to
 * ones, and everything after it up to the ICRC; it is stored little-endian
 * (the byte order of the Linux rxe driver; IBTA annex A17).
 */
#include <string.h>

#include "sim.h"

#define DSCP_ROCE 26
#define DSCP_CNP 48

static uint32_t ext_hdrs(const struct sim *s, const struct pkt *p,
                         uint8_t *x) {
  uint32_t n = 0;
  (void)s;
  switch (p->opcode) {
  case OP_WRITE_FIRST:
  case OP_WRITE_ONLY:
  case OP_WRITE_ONLY_IMM:
  case OP_READ_REQ:
    put64be(x, p->va);
    put32be(x + 8, p->rkey);
    put32be(x + 12, p->dmalen);
    n = 16;
    if (p->opcode == OP_WRITE_ONLY_IMM) {
      put32be(x + 16, p->imm);
      n = 20;
    }
    break;
  case OP_SEND_LAST_IMM:
  case OP_SEND_ONLY_IMM:
  case OP_WRITE_LAST_IMM:
  case OP_SEND_LAST_INV:
  case OP_SEND_ONLY_INV:
    put32be(x, p->imm);
    n = 4;
    break;
  case OP_ACK:
  case OP_READ_RESP_FIRST:
  case OP_READ_RESP_LAST:
  case OP_READ_RESP_ONLY:
    x[0] = p->syndrome;
    put24be(x + 1, p->msn);
    n = 4;
    break;
  case OP_UD_SEND_ONLY:
    put32be(x, 0x80010000u);
    x[4] = 0;
    put24be(x + 5, 1);
    n = 8;
    break;
  default:
    break;
  }
  return n;
}

static uint32_t csum_add(uint32_t sum, const uint8_t *b, size_t n) {
  size_t i = 0;
  for (; i + 1 < n; i += 2)
    sum += (uint32_t)b[i] << 8 | b[i + 1];
  if (i < n)
    sum += (uint32_t)b[i] << 8;
  return sum;
}

static uint16_t csum_fold(uint32_t sum) {
  while (sum >> 16)
    sum = (sum & 0xffff) + (sum >> 16);
  return (uint16_t)~sum;
}

size_t encode_pkt(struct sim *s, const struct pkt *p, unsigned k, uint8_t *buf,
                  uint32_t *wire_len, uint32_t *frame_len) {
  const struct cfg *c = &s->c;
  const struct conn *cn = &s->conns[p->conn];
  uint32_t src = p->dir ? cn->b : cn->a, dst = p->dir ? cn->a : cn->b;
  uint32_t nodes[5];
  net_path_nodes(s, src, dst, nodes);
  unsigned m;
  unsigned j = obs_pos(cn, p->dir, k, &m);
  int into_switch = m == j - 1;
  uint32_t sw = nodes[j], peer = into_switch ? nodes[j - 1] : nodes[j + 1];
  int ce = p->ce != 0xff && m >= p->ce;
  uint32_t olen = c->erspan == 2 ? 50 : c->erspan == 3 ? 54 : 0;
  uint32_t ilim = 0xffffffffu;
  if (c->snaplen)
    ilim = c->trunc_mirror ? c->snaplen : c->snaplen - olen;

  uint8_t *f = buf + olen;
  uint8_t *q = f;
  /* Ethernet */
  memcpy(q, into_switch ? s->nodes[sw].mac : s->nodes[peer].mac, 6);
  memcpy(q + 6, into_switch ? s->nodes[peer].mac : s->nodes[sw].mac, 6);
  q += 12;
  if (c->vlan) {
    put16be(q, 0x8100);
    put16be(q + 2, (3u << 13) | c->vlan);
    q += 4;
  }
  put16be(q, c->ipv6 ? 0x86dd : 0x0800);
  q += 2;
  /* transport headers first, to know the lengths */
  uint8_t bth[12], ext[24];
  uint32_t xl = ext_hdrs(s, p, ext);
  uint32_t plen = p->opcode == OP_CNP ? 16 : p->len;
  uint32_t pad = p->opcode == OP_CNP ? 0 : (4 - (p->len & 3)) & 3;
  int fecn = ce && c->fecn;
  bth[0] = p->opcode;
  bth[1] = (uint8_t)(((p->flags & PF_SE) ? 0x80 : 0) | (pad << 4));
  put16be(bth + 2, 0xffff);
  bth[4] = (uint8_t)((fecn ? 0x80 : 0) | ((p->flags & PF_BECN) ? 0x40 : 0));
  uint32_t dqpn =
      p->what == W_CM ? 1 : s->qps[qp_idx(p->conn, p->dir ^ 1u)].qpn;
  put24be(bth + 5, dqpn);
  bth[8] = (p->flags & PF_ACKREQ) ? 0x80 : 0;
  if (p->opcode == OP_CNP)
    bth[8] = 0;
  put24be(bth + 9, p->psn);
  uint32_t udp_len = 8 + 12 + xl + plen + pad + 4;
  uint8_t dscp = p->opcode == OP_CNP ? DSCP_CNP : DSCP_ROCE;
  uint8_t ecn = p->opcode == OP_CNP ? 0 : ce ? 3 : 2;
  uint8_t ttl = (uint8_t)(64 - m);
  uint8_t *ip = q;
  uint32_t iplen;
  if (!c->ipv6) {
    iplen = 20;
    ip[0] = 0x45;
    ip[1] = (uint8_t)(dscp << 2 | ecn);
    put16be(ip + 2, 20 + udp_len);
    put16be(ip + 4, p->seq & 0xffff);
    put16be(ip + 6, 0x4000);
    ip[8] = ttl;
    ip[9] = 17;
    ip[10] = ip[11] = 0;
    memcpy(ip + 12, s->nodes[src].ip + 12, 4);
    memcpy(ip + 16, s->nodes[dst].ip + 12, 4);
    put16be(ip + 10, csum_fold(csum_add(0, ip, 20)));
  } else {
    iplen = 40;
    uint32_t fl = ((p->conn * 2u + p->dir) * 2654435761u) >> 12 & 0xfffffu;
    uint32_t tc = (uint32_t)(dscp << 2 | ecn);
    put32be(ip, 6u << 28 | tc << 20 | fl);
    put16be(ip + 4, udp_len);
    ip[6] = 17;
    ip[7] = ttl;
    memcpy(ip + 8, s->nodes[src].ip, 16);
    memcpy(ip + 24, s->nodes[dst].ip, 16);
  }
  q += iplen;
  uint8_t *udp = q;
  put16be(udp, cn->sport[p->dir]);
  put16be(udp + 2, 4791);
  put16be(udp + 4, udp_len);
  put16be(udp + 6, 0);
  q += 8;
  memcpy(q, bth, 12);
  q += 12;
  memcpy(q, ext, xl);
  q += xl;
  uint32_t hlen = (uint32_t)(q - f);
  uint32_t inner_wire = hlen + plen + pad + 4;
  *frame_len = inner_wire;

  /* explicit payload bytes (the rest is zero) */
  uint8_t exbuf[1100];
  size_t ex = 0;
  if (p->what == W_CM) {
    cm_mad(s, p, exbuf);
    ex = 256;
  } else if (p->msg != NONE && p->content != C_ZERO && p->len)
    ex = nvme_payload(s, &s->msgs[p->msg], p->off, p->len, exbuf);

  uint32_t icap = inner_wire < ilim ? inner_wire : ilim;
  /* payload into the frame, up to the capture limit */
  if (icap > hlen) {
    uint32_t room = icap - hlen;
    uint32_t n = plen + pad < room ? plen + pad : room;
    uint32_t e = (uint32_t)ex < n ? (uint32_t)ex : n;
    memcpy(q, exbuf, e);
    memset(q + e, 0, n - e);
  }
  int need_icrc = icap >= inner_wire || c->ipv6;
  if (need_icrc) {
    static const uint8_t ff[8] = {0xff, 0xff, 0xff, 0xff,
                                  0xff, 0xff, 0xff, 0xff};
    const struct crc32_tab *ct = s->crc;
    uint8_t mh[48];
    uint32_t reg = crc32_update(ct, 0xffffffffu, ff, 8);
    memcpy(mh, ip, iplen);
    if (!c->ipv6) {
      mh[1] = 0xff;
      mh[8] = 0xff;
      mh[10] = mh[11] = 0xff;
    } else {
      mh[0] |= 0x0f;
      mh[1] = mh[2] = mh[3] = 0xff;
      mh[7] = 0xff;
    }
    memcpy(mh + iplen, udp, 8);
    mh[iplen + 6] = mh[iplen + 7] = 0xff;
    reg = crc32_update(ct, reg, mh, iplen + 8);
    uint8_t b2[12];
    memcpy(b2, bth, 12);
    b2[4] = 0xff;
    reg = crc32_update(ct, reg, b2, 12);
    reg = crc32_update(ct, reg, ext, xl);
    reg = crc32_update(ct, reg, exbuf, ex);
    reg = crc32_zeros(ct, reg, plen + pad - ex);
    uint32_t icrc = ~reg;
    uint8_t ib[4];
    put32le(ib, icrc);
    uint32_t ipos = hlen + plen + pad;
    for (unsigned i = 0; i < 4; i++)
      if (ipos + i < icap)
        f[ipos + i] = ib[i];
    if (c->ipv6) {
      uint32_t sum = 0;
      sum = csum_add(sum, ip + 8, 32);
      sum += udp_len;
      sum += 17;
      sum = csum_add(sum, udp, 8);
      sum = csum_add(sum, bth, 12);
      sum = csum_add(sum, ext, xl); /* ext length is a multiple of 4 */
      sum = csum_add(sum, exbuf, ex);
      /* ICRC sits at an even offset of the datagram */
      sum = csum_add(sum, ib, 4);
      uint16_t ck = csum_fold(sum);
      if (ck == 0)
        ck = 0xffff;
      put16be(udp + 6, ck);
    }
  }

  uint32_t total_wire = olen + inner_wire;
  uint32_t caplen;
  if (olen) {
    uint32_t inner_on_wire = c->trunc_mirror ? icap : inner_wire;
    uint8_t *o = buf;
    static const uint8_t coll[6] = {0x02, 0xcc, 0x00, 0x00, 0x00, 0x01};
    memcpy(o, coll, 6);
    memcpy(o + 6, s->nodes[sw].mac, 6);
    put16be(o + 12, 0x0800);
    uint8_t *oi = o + 14;
    uint32_t ehl = c->erspan == 2 ? 8 : 12;
    oi[0] = 0x45;
    oi[1] = 0;
    put16be(oi + 2, 20 + 8 + ehl + inner_on_wire);
    put16be(oi + 4, s->erspan_seq[cn->obs_id[k]] & 0xffff);
    put16be(oi + 6, 0x4000);
    oi[8] = 64;
    oi[9] = 47;
    oi[10] = oi[11] = 0;
    oi[12] = 192;
    oi[13] = 168;
    oi[14] = (uint8_t)(sw >> 8);
    oi[15] = (uint8_t)sw;
    oi[16] = 192;
    oi[17] = 168;
    oi[18] = 255;
    oi[19] = 1;
    put16be(oi + 10, csum_fold(csum_add(0, oi, 20)));
    uint8_t *g = oi + 20;
    put16be(g, 0x1000); /* sequence number present */
    put16be(g + 2, c->erspan == 2 ? 0x88be : 0x22eb);
    put32be(g + 4, s->erspan_seq[cn->obs_id[k]]++);
    uint8_t *e = g + 8;
    int trunc = inner_wire > icap;
    uint32_t session = (uint32_t)cn->obs_id[k] + 1;
    uint32_t en = c->vlan ? 3u : 0u;
    put16be(e, (c->erspan == 2 ? 1u : 2u) << 12 | c->vlan);
    if (c->erspan == 2) {
      put16be(e + 2, en << 11 | (uint32_t)trunc << 10 | session);
      put32be(e + 4, j & 0xfffffu); /* index: switch-local port id */
    } else {
      put16be(e + 2, (uint32_t)trunc << 10 | session);
      uint64_t ts = s->now + EPOCH_NS + (uint64_t)c->obs[cn->obs_id[k]].offset;
      put32be(e + 4, (uint32_t)(ts % 1000000000u)); /* gra 10: IEEE 1588 ns */
      put16be(e + 8, 0);
      put16be(e + 10, (uint32_t)(into_switch ? 0 : 1) << 3 | 2u << 1);
    }
    if (c->trunc_mirror) {
      caplen = olen + icap;
      *wire_len = caplen;
    } else {
      caplen = c->snaplen && total_wire > c->snaplen ? c->snaplen : total_wire;
      *wire_len = total_wire;
    }
  } else {
    caplen = icap;
    *wire_len = c->trunc_mirror ? icap : inner_wire;
  }
  return caplen;
}
