/* SPDX-License-Identifier: MIT */
/* Frame builder for the flow-table tests; see flowpkt.h. */
#include "flowpkt.h"

#include <assert.h>
#include <string.h>

static const uint8_t mac_dst[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0xB0};
static const uint8_t mac_src[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0xA0};

static void put(fp_frame *f, const void *p, size_t n) {
  assert(f->n + n <= FP_MAX);
  memcpy(f->b + f->n, p, n);
  f->n += n;
}

void fp_u8(fp_frame *f, uint32_t v) {
  assert(f->n + 1 <= FP_MAX);
  f->b[f->n++] = (uint8_t)v;
}

void fp_u16(fp_frame *f, uint32_t v) {
  fp_u8(f, v >> 8);
  fp_u8(f, v);
}

void fp_u24(fp_frame *f, uint32_t v) {
  fp_u8(f, v >> 16);
  fp_u8(f, v >> 8);
  fp_u8(f, v);
}

void fp_u32(fp_frame *f, uint32_t v) {
  fp_u16(f, v >> 16);
  fp_u16(f, v);
}

void fp_u64(fp_frame *f, uint64_t v) {
  fp_u32(f, (uint32_t)(v >> 32));
  fp_u32(f, (uint32_t)v);
}

void fp_fill(fp_frame *f, size_t n) {
  size_t i;
  assert(f->n + n <= FP_MAX);
  for (i = 0; i < n; i++) {
    f->b[f->n++] = (uint8_t)(0x5A ^ i);
  }
}

void fp_zero(fp_frame *f, size_t n) {
  assert(f->n + n <= FP_MAX);
  memset(f->b + f->n, 0, n);
  f->n += n;
}

static void set16(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
}

void fp_begin(fp_frame *f, const fp_hdr *h) {
  int i;
  uint8_t tos = (uint8_t)((h->dscp << 2) | (h->ecn & 3u));

  memset(f, 0, sizeof(*f));
  f->ipv6 = h->ipv6;
  f->pad = h->pad;
  /* Ethernet II and VLAN tags */
  put(f, mac_dst, 6);
  put(f, mac_src, 6);
  for (i = 0; i < h->nvlan && i < 2; i++) {
    fp_u16(f, h->vlan_tpid[i] ? h->vlan_tpid[i] : 0x8100u);
    fp_u16(f, h->vlan_tci[i]);
  }
  fp_u16(f, h->ipv6 ? 0x86DDu : 0x0800u);
  /* IP */
  f->ip_off = f->n;
  if (h->ipv6) {
    fp_u32(f, (6u << 28) | ((uint32_t)tos << 20) | 0x12345u);
    fp_u16(f, 0);   /* payload length, set by fp_finish */
    fp_u8(f, 17);   /* next header: UDP */
    fp_u8(f, 64);   /* hop limit */
    put(f, h->src, 16);
    put(f, h->dst, 16);
  } else {
    fp_u8(f, 0x45);
    fp_u8(f, tos);
    fp_u16(f, 0);      /* total length, set by fp_finish */
    fp_u16(f, 0x1234); /* identification */
    fp_u16(f, 0x4000); /* DF */
    fp_u8(f, 64);      /* TTL */
    fp_u8(f, 17);      /* UDP */
    fp_u16(f, 0);      /* checksum, set by fp_finish */
    put(f, h->src + 12, 4);
    put(f, h->dst + 12, 4);
  }
  /* UDP */
  f->udp_off = f->n;
  fp_u16(f, h->sport);
  fp_u16(f, h->dport ? h->dport : 4791u);
  fp_u16(f, 0); /* length, set by fp_finish */
  fp_u16(f, 0); /* no checksum */
  /* BTH */
  f->bth_off = f->n;
  fp_u8(f, h->opcode);
  fp_u8(f, ((h->pad & 3u) << 4) | (h->tver & 0x0fu));
  fp_u16(f, h->pkey ? h->pkey : 0xFFFFu);
  fp_u8(f, ((h->fecn & 1u) << 7) | ((h->becn & 1u) << 6));
  fp_u24(f, h->dqpn);
  fp_u8(f, (h->ackreq & 1u) << 7);
  fp_u24(f, h->psn);
}

void fp_reth(fp_frame *f, uint64_t va, uint32_t rkey, uint32_t dmalen) {
  fp_u64(f, va);
  fp_u32(f, rkey);
  fp_u32(f, dmalen);
}

void fp_aeth(fp_frame *f, uint8_t syndrome, uint32_t msn) {
  fp_u8(f, syndrome);
  fp_u24(f, msn);
}

void fp_deth(fp_frame *f, uint32_t qkey, uint32_t src_qpn) {
  fp_u32(f, qkey);
  fp_u8(f, 0);
  fp_u24(f, src_qpn);
}

void fp_xrceth(fp_frame *f, uint32_t srqn) {
  fp_u8(f, 0);
  fp_u24(f, srqn);
}

void fp_imm(fp_frame *f, uint32_t imm) { fp_u32(f, imm); }

void fp_ieth(fp_frame *f, uint32_t rkey) { fp_u32(f, rkey); }

void fp_finish(fp_frame *f) {
  size_t udp_len, i;
  uint32_t sum = 0;
  uint8_t *ip = f->b + f->ip_off;

  fp_zero(f, f->pad); /* pad bytes */
  fp_zero(f, 4);      /* ICRC */
  udp_len = f->n - f->udp_off;
  set16(f->b + f->udp_off + 4, (uint32_t)udp_len);
  if (f->ipv6) {
    set16(ip + 4, (uint32_t)udp_len);
  } else {
    set16(ip + 2, (uint32_t)(udp_len + 20));
    for (i = 0; i < 20; i += 2) {
      sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
    }
    while (sum >> 16) {
      sum = (sum & 0xffffu) + (sum >> 16);
    }
    set16(ip + 10, ~sum & 0xffffu);
  }
}

unsigned fp_udp_len(const fp_frame *f) {
  return (unsigned)(f->b[f->udp_off + 4] << 8 | f->b[f->udp_off + 5]);
}

size_t fp_rc(fp_frame *f, const fp_hdr *h, uint32_t reth_len,
             uint8_t syndrome, size_t payload) {
  unsigned op = h->opcode, fam = op & 0xE0u, low = op & 0x1Fu;
  size_t start;
  int resp = low >= 0x0D && low <= 0x12;

  fp_begin(f, h);
  start = f->n;
  if (op == 0x81) {
    fp_zero(f, 16); /* CNP: 16 reserved bytes */
  } else if (fam == 0x00 || fam == 0x20 || fam == 0xA0) {
    if (fam == 0xA0 && !resp) {
      fp_xrceth(f, 0x00ABCD);
    }
    if (low == 0x06 || low == 0x0A || low == 0x0B || low == 0x0C) {
      fp_reth(f, UINT64_C(0x00007F0000001000), 0x1234ABCDu, reth_len);
    }
    if (low == 0x13 || low == 0x14) {
      fp_u64(f, UINT64_C(0x00007F0000002000)); /* AtomicETH va */
      fp_u32(f, 0x0BADF00Du);                  /* rkey */
      fp_u64(f, 1);                            /* swap/add */
      fp_u64(f, 0);                            /* compare */
    }
    if (low == 0x0D || low == 0x0F || low == 0x10 || low == 0x11 ||
        low == 0x12) {
      fp_aeth(f, syndrome, 0x000001);
    }
    if (low == 0x12) {
      fp_u64(f, 0); /* AtomicAckETH */
    }
    if (low == 0x03 || low == 0x05 || low == 0x09 || low == 0x0B) {
      fp_imm(f, 0xC0DEC0DEu);
    }
    if (low == 0x16 || low == 0x17) {
      fp_ieth(f, 0x00FEED00u);
    }
  }
  {
    size_t ext = f->n - start;
    fp_fill(f, payload);
    fp_finish(f);
    return ext;
  }
}

static void put24at(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 16);
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)v;
}

static void put32at(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  put24at(p + 1, v);
}

void fp_cm_mad(fp_frame *f, const fp_hdr *h, const fp_cm *cm) {
  fp_hdr u = *h;
  uint8_t d[232];

  u.opcode = 0x64; /* UD SEND ONLY */
  u.dqpn = 1;      /* GSI */
  u.pad = 0;
  fp_begin(f, &u);
  fp_deth(f, 0x80010000u, 1);
  /* MAD common header (24 bytes) */
  fp_u8(f, 1);    /* base version */
  fp_u8(f, 0x07); /* management class: CM */
  fp_u8(f, 2);    /* class version */
  fp_u8(f, 0x03); /* method: Send */
  fp_u16(f, 0);   /* status */
  fp_u16(f, 0);   /* class specific */
  fp_u64(f, cm->tid);
  fp_u16(f, cm->attr);
  fp_u16(f, 0);   /* reserved */
  fp_u32(f, 0);   /* attribute modifier */
  /* CM message (232 bytes) */
  memset(d, 0, sizeof(d));
  put32at(d + 0, cm->lcid);
  if (cm->attr == 0x0010) { /* ConnectRequest */
    put32at(d + 8, (uint32_t)(cm->service_id >> 32));
    put32at(d + 12, (uint32_t)cm->service_id);
    put32at(d + 28, 0x80010000u); /* local Q_Key */
    put24at(d + 32, cm->local_qpn);
    d[35] = 0x10;                  /* responder resources */
    put24at(d + 44, cm->start_psn);
  } else if (cm->attr == 0x0013) { /* ConnectReply */
    put32at(d + 4, cm->rcid);
    put32at(d + 8, 0x80010000u);   /* local Q_Key */
    put24at(d + 12, cm->local_qpn);
    put24at(d + 20, cm->start_psn);
  }
  put(f, d, sizeof(d));
  fp_finish(f);
}
