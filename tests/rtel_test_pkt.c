/* SPDX-License-Identifier: MIT */
/*
 * The packet builder of the C suites (see rtel_test_util.h): every header
 * is laid out here byte by byte from the IBTA / IETF layouts, and the ICRC
 * is this file's own CRC-32. Nothing here calls into the library; only
 * constants (RTEL_HD_F_*, RTEL_CM_*) are taken from the public header.
 */
#include "rtel_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const uint8_t tu_mac_a[6] = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55};
const uint8_t tu_mac_b[6] = {0x02, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE};
const uint8_t tu_ip6_a[16] = {0xfd, 0x00, 0, 0, 0, 0, 0, 0,
                              0,    0,    0, 0, 0, 0, 0, 0x01};
const uint8_t tu_ip6_b[16] = {0xfd, 0x00, 0, 0, 0, 0, 0,    0,
                              0,    0,    0, 0, 0, 0, 0x12, 0x02};

/* ------------------------------------------------------------- bytes */

static void tb_need(tb *t, size_t n) {
  if (t->n + n > TB_MAX) {
    fprintf(stderr, "tb: packet buffer overflow\n");
    abort();
  }
}

void tb_init(tb *t) { memset(t, 0, sizeof(*t)); }

size_t tb_put8(tb *t, uint8_t v) {
  size_t off = t->n;
  tb_need(t, 1);
  t->b[t->n++] = v;
  return off;
}

size_t tb_put16(tb *t, uint16_t v) {
  size_t off = t->n;
  tb_put8(t, (uint8_t)(v >> 8));
  tb_put8(t, (uint8_t)v);
  return off;
}

size_t tb_put24(tb *t, uint32_t v) {
  size_t off = t->n;
  tb_put8(t, (uint8_t)(v >> 16));
  tb_put8(t, (uint8_t)(v >> 8));
  tb_put8(t, (uint8_t)v);
  return off;
}

size_t tb_put32(tb *t, uint32_t v) {
  size_t off = t->n;
  tb_put16(t, (uint16_t)(v >> 16));
  tb_put16(t, (uint16_t)v);
  return off;
}

size_t tb_put64(tb *t, uint64_t v) {
  size_t off = t->n;
  tb_put32(t, (uint32_t)(v >> 32));
  tb_put32(t, (uint32_t)v);
  return off;
}

size_t tb_bytes(tb *t, const void *p, size_t n) {
  size_t off = t->n;
  tb_need(t, n);
  if (n)
    memcpy(t->b + t->n, p, n);
  t->n += n;
  return off;
}

size_t tb_fill(tb *t, uint8_t v, size_t n) {
  size_t off = t->n;
  tb_need(t, n);
  memset(t->b + t->n, v, n);
  t->n += n;
  return off;
}

size_t tb_pattern(tb *t, size_t n, uint8_t seed) {
  size_t off = t->n, i;
  tb_need(t, n);
  for (i = 0; i < n; i++)
    t->b[t->n++] = (uint8_t)(seed + i * 7u);
  return off;
}

void tb_set16(tb *t, size_t off, uint16_t v) {
  t->b[off] = (uint8_t)(v >> 8);
  t->b[off + 1] = (uint8_t)v;
}

void tb_set32(tb *t, size_t off, uint32_t v) {
  tb_set16(t, off, (uint16_t)(v >> 16));
  tb_set16(t, off + 2, (uint16_t)v);
}

uint16_t tb_get16(const tb *t, size_t off) {
  return (uint16_t)((t->b[off] << 8) | t->b[off + 1]);
}

uint32_t tu_le32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
         ((uint32_t)p[3] << 24);
}

/* ------------------------------------------------------------- L2 */

void tb_eth(tb *t, const uint8_t dst[6], const uint8_t src[6]) {
  tb_bytes(t, dst, 6);
  tb_bytes(t, src, 6);
}

void tb_vlan(tb *t, uint16_t tpid, uint16_t tci) {
  tb_put16(t, tpid);
  tb_put16(t, tci);
}

void tb_ethertype(tb *t, uint16_t et) { tb_put16(t, et); }

void tb_sll(tb *t, uint16_t proto) {
  tb_put16(t, 0); /* packet type: to us */
  tb_put16(t, 1); /* ARPHRD_ETHER */
  tb_put16(t, 6); /* address length */
  tb_bytes(t, tu_mac_a, 6);
  tb_put16(t, 0); /* address padding to 8 bytes */
  tb_put16(t, proto);
}

void tb_sll2(tb *t, uint16_t proto) {
  tb_put16(t, proto);
  tb_put16(t, 0); /* reserved */
  tb_put32(t, 2); /* interface index */
  tb_put16(t, 1); /* ARPHRD_ETHER */
  tb_put8(t, 0);  /* packet type */
  tb_put8(t, 6);  /* address length */
  tb_bytes(t, tu_mac_a, 6);
  tb_put16(t, 0);
}

/* ------------------------------------------------------------- L3/L4 */

size_t tb_ipv4(tb *t, uint8_t tos, uint16_t id, uint16_t frag, uint8_t ttl,
               uint8_t proto, uint32_t src, uint32_t dst, const uint8_t *opts,
               size_t optlen) {
  size_t off = t->n;
  tb_put8(t, (uint8_t)(0x40 | ((20 + optlen) / 4)));
  tb_put8(t, tos);
  tb_put16(t, 0); /* total length: tb_finish */
  tb_put16(t, id);
  tb_put16(t, frag);
  tb_put8(t, ttl);
  tb_put8(t, proto);
  tb_put16(t, 0); /* checksum: tb_finish */
  tb_put32(t, src);
  tb_put32(t, dst);
  if (optlen)
    tb_bytes(t, opts, optlen);
  t->ip_off[t->nip] = off;
  t->ip_ver[t->nip] = 4;
  t->nip++;
  return off;
}

size_t tb_ipv6(tb *t, uint8_t tc, uint32_t flow, uint8_t nh, uint8_t hlim,
               const uint8_t src[16], const uint8_t dst[16]) {
  size_t off = t->n;
  tb_put32(t, (6u << 28) | ((uint32_t)tc << 20) | (flow & 0xFFFFFu));
  tb_put16(t, 0); /* payload length: tb_finish */
  tb_put8(t, nh);
  tb_put8(t, hlim);
  tb_bytes(t, src, 16);
  tb_bytes(t, dst, 16);
  t->ip_off[t->nip] = off;
  t->ip_ver[t->nip] = 6;
  t->nip++;
  return off;
}

size_t tb_ipv6_ext(tb *t, uint8_t nh, uint8_t len8) {
  size_t off = t->n;
  tb_put8(t, nh);
  tb_put8(t, len8);
  tb_fill(t, 0, (size_t)(len8 + 1) * 8 - 2);
  return off;
}

size_t tb_ipv6_frag(tb *t, uint8_t nh, uint16_t offset8, int more,
                    uint32_t id) {
  size_t off = t->n;
  tb_put8(t, nh);
  tb_put8(t, 0);
  tb_put16(t, (uint16_t)((offset8 << 3) | (more ? 1 : 0)));
  tb_put32(t, id);
  return off;
}

size_t tb_udp(tb *t, uint16_t sport, uint16_t dport) {
  size_t off = t->n;
  tb_put16(t, sport);
  tb_put16(t, dport);
  tb_put16(t, 0); /* length: tb_finish */
  tb_put16(t, 0); /* checksum: 0 (RoCEv2 senders commonly leave it 0) */
  t->udp_off[t->nudp++] = off;
  return off;
}

size_t tb_grh(tb *t, uint8_t tc, uint32_t flow, uint8_t nh, uint8_t hlim,
              const uint8_t sgid[16], const uint8_t dgid[16]) {
  size_t off = t->n;
  tb_put32(t, (6u << 28) | ((uint32_t)tc << 20) | (flow & 0xFFFFFu));
  tb_put16(t, 0); /* PayLen: tb_finish */
  tb_put8(t, nh);
  tb_put8(t, hlim);
  tb_bytes(t, sgid, 16);
  tb_bytes(t, dgid, 16);
  t->have_grh = 1;
  t->grh_off = off;
  return off;
}

/* ------------------------------------------------------------- tunnels */

void tb_gre(tb *t, uint16_t flags_ver, uint16_t proto, uint32_t key,
            uint32_t seq) {
  tb_put16(t, flags_ver);
  tb_put16(t, proto);
  if (flags_ver & 0x8000u) {
    tb_put16(t, 0); /* checksum */
    tb_put16(t, 0); /* reserved1 */
  }
  if (flags_ver & 0x2000u)
    tb_put32(t, key);
  if (flags_ver & 0x1000u)
    tb_put32(t, seq);
}

void tb_erspan2(tb *t, uint16_t vlan, uint8_t cos, uint8_t en, uint8_t tbit,
                uint16_t session, uint32_t index) {
  tb_put32(t, (1u << 28) | ((uint32_t)(vlan & 0xFFFu) << 16) |
                  ((uint32_t)(cos & 7u) << 13) | ((uint32_t)(en & 3u) << 11) |
                  ((uint32_t)(tbit & 1u) << 10) | (session & 0x3FFu));
  tb_put32(t, index & 0xFFFFFu);
}

void tb_erspan2_ver(tb *t, uint8_t ver, uint16_t session) {
  tb_put32(t, ((uint32_t)(ver & 0xFu) << 28) | (session & 0x3FFu));
  tb_put32(t, 0);
}

void tb_erspan3(tb *t, uint16_t vlan, uint8_t cos, uint8_t bso, uint8_t tbit,
                uint16_t session, uint32_t ts, uint16_t sgt, uint8_t p,
                uint8_t ft, uint8_t hwid, uint8_t d, uint8_t gra, uint8_t o) {
  tb_put32(t, (2u << 28) | ((uint32_t)(vlan & 0xFFFu) << 16) |
                  ((uint32_t)(cos & 7u) << 13) | ((uint32_t)(bso & 3u) << 11) |
                  ((uint32_t)(tbit & 1u) << 10) | (session & 0x3FFu));
  tb_put32(t, ts);
  tb_put32(t, ((uint32_t)sgt << 16) | ((uint32_t)(p & 1u) << 15) |
                  ((uint32_t)(ft & 0x1Fu) << 10) |
                  ((uint32_t)(hwid & 0x3Fu) << 4) | ((uint32_t)(d & 1u) << 3) |
                  ((uint32_t)(gra & 3u) << 1) | (o & 1u));
  if (o) {
    /* platform specific sub-header: Platf ID 3, then opaque bytes */
    tb_put8(t, 3u << 2);
    tb_fill(t, 0x55, 7);
  }
}

void tb_vxlan(tb *t, uint8_t flags, uint32_t vni) {
  tb_put8(t, flags);
  tb_put24(t, 0);
  tb_put32(t, (vni & 0xFFFFFFu) << 8);
}

/* ------------------------------------------------------------- BTH+ */

static void tb_ext(tb *t, uint32_t flag, size_t off) {
  if (t->next < TB_MAXEXT) {
    t->ext_flag[t->next] = flag;
    t->ext_off[t->next] = off;
    t->ext_end[t->next] = t->n;
    t->next++;
  }
}

size_t tb_bth(tb *t, const tb_bth_f *f) {
  size_t off = t->n;
  tb_put8(t, f->opcode);
  tb_put8(t, (uint8_t)(((f->se & 1u) << 7) | ((f->m & 1u) << 6) |
                       ((f->pad & 3u) << 4) | (f->tver & 0xFu)));
  tb_put16(t, f->pkey);
  tb_put8(t, (uint8_t)(((f->fecn & 1u) << 7) | ((f->becn & 1u) << 6) |
                       (f->resv6 & 0x3Fu)));
  tb_put24(t, f->dqpn);
  tb_put8(t, (uint8_t)(((f->ackreq & 1u) << 7) | (f->resv7 & 0x7Fu)));
  tb_put24(t, f->psn);
  t->have_bth = 1;
  t->bth_off = off;
  return off;
}

size_t tb_rdeth(tb *t, uint32_t eecnxt) {
  size_t off = t->n;
  tb_put8(t, 0xFF); /* reserved */
  tb_put24(t, eecnxt);
  tb_ext(t, RTEL_HD_F_RDETH, off);
  return off;
}

size_t tb_deth(tb *t, uint32_t qkey, uint32_t sqpn) {
  size_t off = t->n;
  tb_put32(t, qkey);
  tb_put8(t, 0xFF); /* reserved */
  tb_put24(t, sqpn);
  tb_ext(t, RTEL_HD_F_DETH, off);
  return off;
}

size_t tb_xrceth(tb *t, uint32_t srqn) {
  size_t off = t->n;
  tb_put8(t, 0xFF); /* reserved */
  tb_put24(t, srqn);
  tb_ext(t, RTEL_HD_F_XRCETH, off);
  return off;
}

size_t tb_reth(tb *t, uint64_t va, uint32_t rkey, uint32_t len) {
  size_t off = t->n;
  tb_put64(t, va);
  tb_put32(t, rkey);
  tb_put32(t, len);
  tb_ext(t, RTEL_HD_F_RETH, off);
  return off;
}

size_t tb_atomiceth(tb *t, uint64_t va, uint32_t rkey, uint64_t swap,
                    uint64_t cmp) {
  size_t off = t->n;
  tb_put64(t, va);
  tb_put32(t, rkey);
  tb_put64(t, swap);
  tb_put64(t, cmp);
  tb_ext(t, RTEL_HD_F_ATOMICETH, off);
  return off;
}

size_t tb_aeth(tb *t, uint8_t syn, uint32_t msn) {
  size_t off = t->n;
  tb_put8(t, syn);
  tb_put24(t, msn);
  tb_ext(t, RTEL_HD_F_AETH, off);
  return off;
}

size_t tb_atomicacketh(tb *t, uint64_t orig) {
  size_t off = t->n;
  tb_put64(t, orig);
  tb_ext(t, RTEL_HD_F_ATOMICACKETH, off);
  return off;
}

size_t tb_immdt(tb *t, uint32_t imm) {
  size_t off = t->n;
  tb_put32(t, imm);
  tb_ext(t, RTEL_HD_F_IMMDT, off);
  return off;
}

size_t tb_ieth(tb *t, uint32_t rkey) {
  size_t off = t->n;
  tb_put32(t, rkey);
  tb_ext(t, RTEL_HD_F_IETH, off);
  return off;
}

size_t tb_feth(tb *t, uint32_t feth) {
  size_t off = t->n;
  tb_put32(t, feth);
  tb_ext(t, RTEL_HD_F_FETH, off);
  return off;
}

/* ------------------------------------------------------------- finish */

void tb_ipv4_csum(tb *t, size_t ip_off) {
  size_t hl = (size_t)(t->b[ip_off] & 0xF) * 4, i;
  uint32_t sum = 0;
  t->b[ip_off + 10] = 0;
  t->b[ip_off + 11] = 0;
  for (i = 0; i + 1 < hl; i += 2)
    sum += (uint32_t)((t->b[ip_off + i] << 8) | t->b[ip_off + i + 1]);
  while (sum >> 16)
    sum = (sum & 0xFFFFu) + (sum >> 16);
  tb_set16(t, ip_off + 10, (uint16_t)~sum);
}

static void tb_fix_lengths(tb *t, size_t end) {
  size_t i;
  for (i = 0; i < t->nip; i++) {
    size_t o = t->ip_off[i];
    if (t->ip_ver[i] == 4)
      tb_set16(t, o + 2, (uint16_t)(end - o));
    else
      tb_set16(t, o + 4, (uint16_t)(end - o - 40));
  }
  for (i = 0; i < t->nudp; i++)
    tb_set16(t, t->udp_off[i] + 4, (uint16_t)(end - t->udp_off[i]));
  if (t->have_grh)
    tb_set16(t, t->grh_off + 4, (uint16_t)(end - t->grh_off - 40));
  for (i = 0; i < t->nip; i++)
    if (t->ip_ver[i] == 4)
      tb_ipv4_csum(t, t->ip_off[i]);
}

void tb_mark_payload(tb *t) { t->payload_off = t->n; }

static uint32_t tb_calc_icrc(const tb *t) {
  if (t->have_grh)
    return tu_icrc(t->b, t->grh_off, 1, 0, t->bth_off, t->icrc_off + 4);
  return tu_icrc(t->b, t->ip_off[t->nip - 1], t->ip_ver[t->nip - 1],
                 t->udp_off[t->nudp - 1], t->bth_off, t->icrc_off + 4);
}

void tb_finish(tb *t) {
  uint32_t crc;
  if (!t->payload_off)
    t->payload_off = t->next ? t->ext_end[t->next - 1] : t->bth_off + 12;
  t->icrc_off = t->n;
  t->end = t->n + 4;
  tb_fix_lengths(t, t->end);
  crc = tb_calc_icrc(t);
  tb_put8(t, (uint8_t)crc);
  tb_put8(t, (uint8_t)(crc >> 8));
  tb_put8(t, (uint8_t)(crc >> 16));
  tb_put8(t, (uint8_t)(crc >> 24));
}

void tb_finish_plain(tb *t) {
  t->end = t->n;
  tb_fix_lengths(t, t->end);
}

void tb_refresh(tb *t) {
  size_t i;
  uint32_t crc;
  for (i = 0; i < t->nip; i++)
    if (t->ip_ver[i] == 4)
      tb_ipv4_csum(t, t->ip_off[i]);
  if (!t->have_bth)
    return;
  crc = tb_calc_icrc(t);
  t->b[t->icrc_off] = (uint8_t)crc;
  t->b[t->icrc_off + 1] = (uint8_t)(crc >> 8);
  t->b[t->icrc_off + 2] = (uint8_t)(crc >> 16);
  t->b[t->icrc_off + 3] = (uint8_t)(crc >> 24);
}

/* ------------------------------------------------------------- opcodes */

/* the RC-relative header set of opcode low bits n (0x00..0x1F) */
static uint32_t rc_hdrs(unsigned n, int *ok) {
  *ok = 1;
  switch (n) {
  case 0x00:
  case 0x01:
  case 0x02:
  case 0x04: /* SEND */
  case 0x07:
  case 0x08: /* WRITE MIDDLE/LAST */
  case 0x0E: /* READ RESPONSE MIDDLE */
    return 0;
  case 0x03:
  case 0x05:
  case 0x09:
    return RTEL_HD_F_IMMDT;
  case 0x06:
  case 0x0A:
  case 0x0C:
    return RTEL_HD_F_RETH;
  case 0x0B:
    return RTEL_HD_F_RETH | RTEL_HD_F_IMMDT;
  case 0x0D:
  case 0x0F:
  case 0x10:
  case 0x11:
    return RTEL_HD_F_AETH;
  case 0x12:
    return RTEL_HD_F_AETH | RTEL_HD_F_ATOMICACKETH;
  case 0x13:
  case 0x14:
    return RTEL_HD_F_ATOMICETH;
  case 0x16:
  case 0x17:
    return RTEL_HD_F_IETH;
  case 0x1C:
    return RTEL_HD_F_FETH | RTEL_HD_F_RETH;
  case 0x1D:
    return RTEL_HD_F_RETH;
  default:
    *ok = 0;
    return 0;
  }
}

static int is_response(unsigned n) { return n >= 0x0D && n <= 0x12; }

uint32_t tu_opcode_hdrs(uint8_t opcode, int *valid) {
  unsigned n = opcode & 0x1Fu;
  int ok = 0;
  uint32_t h = 0;
  switch (opcode >> 5) {
  case 0: /* RC */
    h = rc_hdrs(n, &ok);
    break;
  case 1: /* UC: SEND and WRITE only */
    if (n <= 0x0B)
      h = rc_hdrs(n, &ok);
    break;
  case 2: /* RD: RDETH always; DETH on requests (not on responses) */
    if (n == 0x15) { /* RESYNC */
      ok = 1;
      h = 0;
    } else if (n <= 0x14 || n == 0x1C || n == 0x1D) {
      h = rc_hdrs(n, &ok);
    }
    if (ok)
      h |= RTEL_HD_F_RDETH | (is_response(n) ? 0 : RTEL_HD_F_DETH);
    break;
  case 3: /* UD */
    if (opcode == 0x64) {
      ok = 1;
      h = RTEL_HD_F_DETH;
    } else if (opcode == 0x65) {
      ok = 1;
      h = RTEL_HD_F_DETH | RTEL_HD_F_IMMDT;
    }
    break;
  case 4: /* CNP: 0x81 only (0x80 is not defined by Annex A17) */
    if (opcode == 0x81)
      ok = 1;
    break;
  case 5: /* XRC: XRCETH on requests */
    h = rc_hdrs(n, &ok);
    if (ok && !is_response(n))
      h |= RTEL_HD_F_XRCETH;
    break;
  default:
    break;
  }
  if (valid)
    *valid = ok;
  return ok ? h : 0;
}

int tu_opcode_has_payload(uint8_t opcode) {
  unsigned n = opcode & 0x1Fu;
  int ok;
  tu_opcode_hdrs(opcode, &ok);
  if (!ok || opcode == 0x81)
    return 0;
  if (opcode == 0x64 || opcode == 0x65)
    return 1;
  if ((opcode >> 5) == 2 && n == 0x15)
    return 0;
  switch (n) {
  case 0x0C:
  case 0x11:
  case 0x12:
  case 0x13:
  case 0x14:
  case 0x1C:
    return 0;
  default:
    return 1;
  }
}

/* ------------------------------------------------------------- recipes */

void tu_ipv4_mapped(uint8_t out[16], uint32_t ip) {
  memset(out, 0, 10);
  out[10] = 0xFF;
  out[11] = 0xFF;
  out[12] = (uint8_t)(ip >> 24);
  out[13] = (uint8_t)(ip >> 16);
  out[14] = (uint8_t)(ip >> 8);
  out[15] = (uint8_t)ip;
}

size_t tu_pad_of(size_t paylen) { return (4 - (paylen & 3u)) & 3u; }

void tu_spec_init(tu_spec *s, uint8_t opcode, size_t paylen) {
  int i;
  memset(s, 0, sizeof(*s));
  s->ipver = 4;
  for (i = 0; i < TU_MAXVLAN; i++) {
    s->vlan_tpid[i] = 0x8100;
    s->vlan_tci[i] = (uint16_t)(0x0100 + i);
  }
  s->ttl = 64;
  s->sport = TU_SPORT;
  s->dport = 4791;
  s->opcode = opcode;
  s->pkey = TU_PKEY;
  s->ackreq = 1;
  s->dqpn = TU_DQPN;
  s->psn = TU_PSN;
  s->rdeth_eec = TU_RDETH_EEC;
  s->deth_qkey = TU_DETH_QKEY;
  s->deth_sqpn = TU_DETH_SQPN;
  s->xrc_srqn = TU_XRC_SRQN;
  s->feth = TU_FETH;
  s->reth_va = TU_RETH_VA;
  s->reth_rkey = TU_RETH_RKEY;
  s->reth_len = TU_RETH_LEN;
  s->atomic_va = TU_ATOMIC_VA;
  s->atomic_rkey = TU_ATOMIC_RKEY;
  s->atomic_swap = TU_ATOMIC_SWAP;
  s->atomic_cmp = TU_ATOMIC_CMP;
  s->aeth_syn = TU_AETH_SYN;
  s->aeth_msn = TU_AETH_MSN;
  s->atomicack_orig = TU_ATOMICACK_ORIG;
  s->imm = TU_IMM;
  s->ieth_rkey = TU_IETH_RKEY;
  s->paylen = paylen;
}

static int all_zero(const uint8_t a[16]) {
  int i;
  for (i = 0; i < 16; i++)
    if (a[i])
      return 0;
  return 1;
}

/* the IPv4 address of an IPv4-mapped one, or |dflt| for all zeros */
static uint32_t addr4(const uint8_t a[16], uint32_t dflt) {
  if (all_zero(a))
    return dflt;
  return (uint32_t)a[12] << 24 | (uint32_t)a[13] << 16 | (uint32_t)a[14] << 8 |
         a[15];
}

void tu_headers(tb *t, const tu_spec *s) {
  int ipver = s->ipver ? s->ipver : 4;
  const uint8_t *src = all_zero(s->src) ? tu_ip6_a : s->src;
  const uint8_t *dst = all_zero(s->dst) ? tu_ip6_b : s->dst;
  int i;
  if (!s->raw_ip) {
    tb_eth(t, tu_mac_b, tu_mac_a);
    for (i = 0; i < s->nvlan && i < TU_MAXVLAN; i++)
      tb_vlan(t, s->vlan_tpid[i], s->vlan_tci[i]);
    tb_ethertype(t, ipver == 4 ? 0x0800 : ipver == 6 ? 0x86DD : 0x8915);
  }
  if (ipver == 4)
    tb_ipv4(t, s->tos, 0x1234, 0x4000 /* DF */, s->ttl, 17,
            addr4(s->src, TU_IP4_A), addr4(s->dst, TU_IP4_B), NULL, 0);
  else if (ipver == 6)
    tb_ipv6(t, s->tos, s->flow, 17, s->ttl, src, dst);
  else
    tb_grh(t, s->tos, s->flow, 0x1B, s->ttl, src, dst);
  if (ipver != 1)
    tb_udp(t, s->sport, s->dport);
}

void tu_transport(tb *t, const tu_spec *s) {
  int ok;
  uint32_t h = tu_opcode_hdrs(s->opcode, &ok);
  tb_bth_f f;
  memset(&f, 0, sizeof(f));
  f.opcode = s->opcode;
  f.se = s->se;
  f.m = s->m;
  f.pad = s->pad;
  f.tver = s->tver;
  f.pkey = s->pkey;
  f.fecn = s->fecn;
  f.becn = s->becn;
  f.dqpn = s->dqpn;
  f.ackreq = s->ackreq;
  f.psn = s->psn;
  tb_bth(t, &f);
  if (h & RTEL_HD_F_RDETH)
    tb_rdeth(t, s->rdeth_eec);
  if (h & RTEL_HD_F_DETH)
    tb_deth(t, s->deth_qkey, s->deth_sqpn);
  if (h & RTEL_HD_F_XRCETH)
    tb_xrceth(t, s->xrc_srqn);
  if (h & RTEL_HD_F_FETH)
    tb_feth(t, s->feth);
  if (h & RTEL_HD_F_RETH)
    tb_reth(t, s->reth_va, s->reth_rkey, s->reth_len);
  if (h & RTEL_HD_F_ATOMICETH)
    tb_atomiceth(t, s->atomic_va, s->atomic_rkey, s->atomic_swap,
                 s->atomic_cmp);
  if (h & RTEL_HD_F_AETH)
    tb_aeth(t, s->aeth_syn, s->aeth_msn);
  if (h & RTEL_HD_F_ATOMICACKETH)
    tb_atomicacketh(t, s->atomicack_orig);
  if (h & RTEL_HD_F_IMMDT)
    tb_immdt(t, s->imm);
  if (h & RTEL_HD_F_IETH)
    tb_ieth(t, s->ieth_rkey);
  if (s->opcode == 0x81)
    tb_fill(t, 0, 16); /* CNP: 16 reserved bytes */
  t->payload_off = t->n;
  if (s->payload)
    tb_bytes(t, s->payload, s->paylen);
  else
    tb_pattern(t, s->paylen, 0x31);
  tb_fill(t, 0, s->pad);
}

void tu_build(tb *t, const tu_spec *s) {
  tu_headers(t, s);
  tu_transport(t, s);
  tb_finish(t);
}

/* ------------------------------------------------------------- CM */

/* CM message layouts (IBTA vol. 1, 12.6): offsets from the MAD start */
size_t tu_cm_priv_off(uint16_t attr) {
  switch (attr) {
  case RTEL_CM_REQ:
    return 164;
  case RTEL_CM_REP:
    return 60;
  case RTEL_CM_RTU:
    return 32;
  case RTEL_CM_DREQ:
    return 36;
  case RTEL_CM_DREP:
    return 32;
  case RTEL_CM_REJ:
    return 108;
  case RTEL_CM_MRA:
    return 34;
  default:
    return 24;
  }
}

size_t tu_cm_priv_size(uint16_t attr) { return 256 - tu_cm_priv_off(attr); }

static void cm_put32(uint8_t *m, size_t off, uint32_t v) {
  m[off] = (uint8_t)(v >> 24);
  m[off + 1] = (uint8_t)(v >> 16);
  m[off + 2] = (uint8_t)(v >> 8);
  m[off + 3] = (uint8_t)v;
}

static void cm_put64(uint8_t *m, size_t off, uint64_t v) {
  cm_put32(m, off, (uint32_t)(v >> 32));
  cm_put32(m, off + 4, (uint32_t)v);
}

void tu_cm_mad(uint8_t m[256], const tu_cm *cm) {
  size_t i, po = tu_cm_priv_off(cm->attr);
  memset(m, 0, 256);
  /* MAD common header */
  m[0] = 1;    /* base version */
  m[1] = 0x07; /* class: CM */
  m[2] = 2;    /* class version */
  m[3] = 0x03; /* method: Send */
  m[4] = 0;    /* status */
  m[5] = 0;
  cm_put64(m, 8, cm->tid);
  m[16] = (uint8_t)(cm->attr >> 8);
  m[17] = (uint8_t)cm->attr;
  cm_put32(m, 20, 0); /* attribute modifier */
  cm_put32(m, 24, cm->lcid);
  switch (cm->attr) {
  case RTEL_CM_REQ:
    cm_put64(m, 32, cm->service_id);
    cm_put64(m, 40, UINT64_C(0x505400FFFEDAF92D)); /* local CA GUID */
    cm_put32(m, 52, 0);                            /* local Q_Key */
    cm_put32(m, 56, (cm->local_qpn << 8) | 0xFFu); /* + responder res. */
    cm_put32(m, 60, 0x000000FFu);                  /* EECN + init. depth */
    cm_put32(m, 64, 0x000000A0u);
    cm_put32(m, 68, (cm->start_psn << 8) | 0xFFu); /* + timeout/retry */
    m[72] = 0xFF;
    m[73] = 0xFF; /* P_Key */
    m[74] = 0x37;
    m[75] = 0xF0;
    m[76] = 0xFF;
    m[77] = 0xFF;
    m[78] = 0xFF;
    m[79] = 0xFF; /* LIDs */
    memcpy(m + 80, cm->lgid, 16);
    memcpy(m + 96, cm->rgid, 16);
    m[117] = 64; /* hop limit */
    break;
  case RTEL_CM_REP:
    cm_put32(m, 28, cm->rcid);
    cm_put32(m, 36, (cm->local_qpn << 8) | 0xFFu);
    cm_put32(m, 44, (cm->start_psn << 8) | 0xFFu);
    m[48] = 1;
    m[49] = 1;
    cm_put64(m, 52, UINT64_C(0x505400FFFE1234AB));
    break;
  case RTEL_CM_DREQ:
    cm_put32(m, 28, cm->rcid);
    cm_put32(m, 32, (cm->remote_qpn << 8) | 0xFFu);
    break;
  case RTEL_CM_REJ:
    cm_put32(m, 28, cm->rcid);
    m[32] = 0x40; /* message REJected: REP */
    m[33] = 0;
    m[34] = (uint8_t)(cm->rej_reason >> 8);
    m[35] = (uint8_t)cm->rej_reason;
    break;
  default: /* RTU, DREP, MRA, ... */
    cm_put32(m, 28, cm->rcid);
    break;
  }
  if (cm->priv) {
    memcpy(m + po, cm->priv, cm->privlen < 256 - po ? cm->privlen : 256 - po);
  } else {
    for (i = po; i < 256; i++)
      m[i] = (uint8_t)(i * 3 + 1);
  }
}

void tu_build_cm_on(tb *t, const tu_spec *s, const tu_cm *cm) {
  uint8_t m[256];
  tu_spec u = *s;
  tu_cm_mad(m, cm);
  u.opcode = 0x64; /* UD SEND ONLY */
  u.dqpn = 1;      /* QP1, the GSI */
  u.pad = 0;
  u.deth_qkey = 0x80010000u;
  u.deth_sqpn = 1;
  u.payload = m;
  u.paylen = cm->mad_len ? cm->mad_len : 256;
  tu_build(t, &u);
}

void tu_build_cm(tb *t, const tu_cm *cm) {
  tu_spec s;
  tu_spec_init(&s, 0x64, 0);
  s.sport = 0xD001;
  s.pkey = 0xFFFF;
  s.psn = 0x52;
  tu_build_cm_on(t, &s, cm);
}

/* ------------------------------------------------------------- CRC */

uint32_t tu_crc32(uint32_t crc, const uint8_t *p, size_t n) {
  uint32_t c = crc ^ 0xFFFFFFFFu;
  size_t i;
  int k;
  for (i = 0; i < n; i++) {
    c ^= p[i];
    for (k = 0; k < 8; k++)
      c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
  }
  return c ^ 0xFFFFFFFFu;
}

uint32_t tu_icrc(const uint8_t *pkt, size_t l3_off, int ipver, size_t udp_off,
                 size_t bth_off, size_t end) {
  static const uint8_t ones[8] = {0xFF, 0xFF, 0xFF, 0xFF,
                                  0xFF, 0xFF, 0xFF, 0xFF};
  uint32_t crc = tu_crc32(0, ones, sizeof(ones));
  size_t i;
  if (end < l3_off + 4)
    return crc;
  for (i = l3_off; i < end - 4; i++) {
    uint8_t b = pkt[i];
    size_t r = i - l3_off;
    if (ipver == 4) {
      if (r == 1 || r == 8 || r == 10 || r == 11)
        b = 0xFF;
    } else { /* IPv6 header or GRH: traffic class, flow label, hop limit */
      if (r == 0)
        b = (uint8_t)(b | 0x0F);
      else if (r == 1 || r == 2 || r == 3 || r == 7)
        b = 0xFF;
    }
    if (ipver != 1 && (i == udp_off + 6 || i == udp_off + 7))
      b = 0xFF;
    if (i == bth_off + 4)
      b = 0xFF;
    crc = tu_crc32(crc, &b, 1);
  }
  return crc;
}
