/* SPDX-License-Identifier: MIT */
/*
 * examples/minimal.c - libroceTel in one page, without a capture file.
 *
 * It writes a handful of RoCEv2 packets by hand into a byte array, hands
 * them to a context with rtel_ctx_read_pkt(), flushes the context and
 * prints the records it delivers:
 *
 *   1. host A (10.0.0.1, QP 0x0a01) writes 6000 bytes to host B (10.0.0.2,
 *      QP 0x0b02) in one RDMA WRITE message of two packets (FIRST, LAST);
 *      B acknowledges each packet;
 *   2. an NVMe-oF read: host C (10.0.0.3, QP 0x0c03) sends a command
 *      capsule (a SEND carrying a 64-byte SQE) to target D (10.0.0.4, QP
 *      0x0d04); D writes the 4096 bytes into C's buffer (RDMA WRITE) and
 *      answers with a completion (a SEND carrying a 16-byte CQE).
 *
 * Build: cc minimal.c $(pkg-config --cflags --libs librocetel)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rocetel/rocetel.h>

/* ------------------------------------------------ a tiny packet writer */

/* One frame: Ethernet, IPv4, UDP, BTH, extended headers, payload, ICRC. */
typedef struct frame {
  uint8_t b[4200];
  size_t n;
} frame;

/* Appends |v| as |len| bytes, big-endian (network order). */
static void put(frame *f, uint64_t v, int len) {
  while (len-- > 0) {
    f->b[f->n++] = (uint8_t)(v >> (8 * len));
  }
}

/* Starts a RoCEv2 packet from |src| to |dst| (IPv4, host order) for QP
 * |dqpn|: Ethernet, IPv4, UDP to port 4791 and the 12-byte BTH. */
static void begin(frame *f, uint32_t src, uint32_t dst, uint8_t opcode,
                  uint32_t dqpn, uint32_t psn) {
  memset(f, 0, sizeof(*f));  /* payloads below are zeros */
  put(f, 0x020000000002, 6); /* destination MAC */
  put(f, 0x020000000001, 6); /* source MAC */
  put(f, 0x0800, 2);         /* ethertype: IPv4 */
  put(f, 0x4500, 2);         /* version 4, 20-byte header, DSCP/ECN 0 */
  put(f, 0, 2);              /* total length, set by end() */
  put(f, 0x00004000, 4);     /* identification 0, don't fragment */
  put(f, 0x4011, 2);         /* TTL 64, protocol 17 (UDP) */
  put(f, 0, 2);              /* header checksum, set by end() */
  put(f, src, 4);
  put(f, dst, 4);
  put(f, 49152, 2);  /* UDP source port: any */
  put(f, 4791, 2);   /* UDP destination port: RoCEv2 */
  put(f, 0, 4);      /* UDP length (set by end()), no checksum */
  put(f, opcode, 1); /* BTH: opcode */
  put(f, 0, 1);      /* solicited event, migration, pad 0, version 0 */
  put(f, 0xFFFF, 2); /* partition key */
  put(f, dqpn, 4);   /* reserved byte, destination QP (24 bits) */
  put(f, 0x80000000u | psn, 4); /* ack request, PSN (24 bits) */
}

/* Ends the packet: the ICRC (left zero: the context checks it only with
 * RTEL_DECODE_VERIFY_ICRC), then the IPv4 and UDP lengths and the IPv4
 * header checksum. */
static void end(frame *f) {
  uint32_t sum = 0;
  size_t i;
  put(f, 0, 4);
  f->b[16] = (uint8_t)((f->n - 14) >> 8); /* IPv4 total length */
  f->b[17] = (uint8_t)(f->n - 14);
  f->b[38] = (uint8_t)((f->n - 34) >> 8); /* UDP length */
  f->b[39] = (uint8_t)(f->n - 34);
  for (i = 14; i < 34; i += 2) {
    sum += (uint32_t)(f->b[i] << 8 | f->b[i + 1]);
  }
  sum = (sum & 0xFFFF) + (sum >> 16);
  sum = ~(sum + (sum >> 16)) & 0xFFFF;
  f->b[24] = (uint8_t)(sum >> 8);
  f->b[25] = (uint8_t)sum;
}

/* NVMe structures are little-endian. */
static void le(uint8_t *p, uint64_t v, int len) {
  int i;
  for (i = 0; i < len; i++) {
    p[i] = (uint8_t)(v >> (8 * i));
  }
}

/* ------------------------------------------------ printing the records */

static const char *ip(const uint8_t a[16], char *buf) {
  /* IPv4 addresses come IPv4-mapped: ::ffff:a.b.c.d */
  snprintf(buf, 16, "%u.%u.%u.%u", a[12], a[13], a[14], a[15]);
  return buf;
}

static int on_flow(rtel_ctx *ctx, const rtel_flow_record *r, void *ud) {
  char s[16], d[16];
  (void)ctx;
  (void)ud;
  printf("flow %s -> %s QP 0x%06x: packets %" PRIu64 ", bytes %" PRIu64
         ", FCT %" PRIu64 " ns, %.3f Gbit/s, ",
         ip(r->src, s), ip(r->dst, d), r->dqpn, r->packets, r->bytes, r->fct,
         (double)r->fet_bps / 1e9);
  if (r->flags & RTEL_FLOW_F_PAIRED) {
    printf("peer QP 0x%06x\n", r->peer_qpn);
  } else {
    printf("peer QP unknown\n");
  }
  return 0;
}

static int on_message(rtel_ctx *ctx, const rtel_msg_record *r, void *ud) {
  char s[16], d[16];
  (void)ctx;
  (void)ud;
  printf("message %s -> %s QP 0x%06x: %s PSN %u-%u, packets %" PRIu64
         ", bytes %" PRIu64 ", FCT %" PRIu64 " ns\n",
         ip(r->src, s), ip(r->dst, d), r->dqpn,
         r->op == RTEL_OP_SEND    ? "SEND"
         : r->op == RTEL_OP_WRITE ? "WRITE"
                                  : "READ",
         r->first_psn, r->last_psn, r->packets, r->bytes, r->fct);
  return 0;
}

static int on_io(rtel_ctx *ctx, const rtel_io_record *r, void *ud) {
  char h[16], t[16];
  (void)ctx;
  (void)ud;
  printf("I/O %s CID %u, %s -> %s: %s, bytes %" PRIu64 ", IOL %" PRId64
         " ns, DAL %" PRId64 " ns, transfer %" PRId64 " ns, status %u\n",
         r->opcode == RTEL_NVME_OP_READ ? "read" : "other", r->cid,
         ip(r->host, h), ip(r->target, t),
         r->state == RTEL_IO_COMPLETE ? "complete" : "incomplete", r->bytes,
         r->iol, r->dal, r->xfer, r->nvme_status);
  return 0;
}

/* ------------------------------------------------ the packets */

#define T0 UINT64_C(1000000000)   /* 1 s, in ns: the first packet's time */
#define IP(d) (0x0A000000u | (d)) /* 10.0.0.d */

/* Hands one packet to the context: its bytes, its time, where it was
 * seen (observation point 1, port 1). */
static void feed(rtel_ctx *ctx, rtel_tstamp ts, const frame *f) {
  rtel_pkt_info pi;
  memset(&pi, 0, sizeof(pi));
  pi.ts = ts;
  pi.obs = 1;
  pi.port = 1;
  if (rtel_ctx_read_pkt(ctx, &pi, f->b, f->n) != 0) {
    fprintf(stderr, "rtel_ctx_read_pkt failed\n");
    exit(1);
  }
}

/* An ACK (opcode 0x11) of |psn|: the BTH and the AETH (syndrome 0x1F: an
 * ACK; message sequence number |msn|). */
static void ack(rtel_ctx *ctx, rtel_tstamp ts, uint32_t src, uint32_t dst,
                uint32_t dqpn, uint32_t psn, uint32_t msn) {
  frame f;
  begin(&f, src, dst, 0x11, dqpn, psn);
  put(&f, 0x1F000000u | msn, 4);
  end(&f);
  feed(ctx, ts, &f);
}

/* 1. One RDMA WRITE message of 6000 bytes from A to B, acknowledged. */
static void rdma_write(rtel_ctx *ctx) {
  frame f;
  begin(&f, IP(1), IP(2), 0x06, 0x0B02, 100); /* RDMA WRITE FIRST */
  put(&f, 0x10000, 8); /* RETH: remote virtual address, */
  put(&f, 0x1234, 4);  /* remote key, */
  put(&f, 6000, 4);    /* and length of the whole message */
  f.n += 4096;         /* 4096 bytes of payload */
  end(&f);
  feed(ctx, T0, &f);
  ack(ctx, T0 + 20, IP(2), IP(1), 0x0A01, 100, 0);
  begin(&f, IP(1), IP(2), 0x08, 0x0B02, 101); /* RDMA WRITE LAST */
  f.n += 1904;                                /* the rest: 6000 - 4096 bytes */
  end(&f);
  feed(ctx, T0 + 1000, &f);
  ack(ctx, T0 + 1020, IP(2), IP(1), 0x0A01, 101, 1);
}

/* 2. An NVMe-oF read of 4096 bytes: C sends the command, D the data and
 * the completion. Nothing announced this queue (no RDMA CM, no Fabrics
 * Connect): the context recognises the command by its shape and the
 * queue by the completion that answers it. */
static void nvme_read(rtel_ctx *ctx) {
  uint8_t sqe[64], cqe[16];
  frame f;

  memset(sqe, 0, sizeof(sqe));
  sqe[0] = 0x02;            /* opcode: read */
  sqe[1] = 0x40;            /* data described by an SGL */
  le(sqe + 2, 7, 2);        /* command identifier (CID) */
  le(sqe + 4, 1, 4);        /* namespace 1 */
  le(sqe + 24, 0x20000, 8); /* SGL: C's buffer address, */
  le(sqe + 32, 4096, 3);    /* its length, */
  le(sqe + 35, 0x5678, 4);  /* its remote key, */
  sqe[39] = 0x40;           /* a keyed data block descriptor */
  le(sqe + 40, 0, 8);       /* first logical block */
  le(sqe + 48, 7, 2);       /* number of blocks - 1: 8 x 512 bytes */
  begin(&f, IP(3), IP(4), 0x04, 0x0D04, 200); /* SEND ONLY */
  memcpy(f.b + f.n, sqe, sizeof(sqe));
  f.n += sizeof(sqe);
  end(&f);
  feed(ctx, T0 + 10000, &f);

  begin(&f, IP(4), IP(3), 0x0A, 0x0C03, 500); /* RDMA WRITE ONLY */
  put(&f, 0x20000, 8); /* RETH: the SGL's address, key, length */
  put(&f, 0x5678, 4);
  put(&f, 4096, 4);
  f.n += 4096;
  end(&f);
  feed(ctx, T0 + 13000, &f);

  memset(cqe, 0, sizeof(cqe));
  le(cqe + 12, 7, 2); /* the CID it completes; status 0: success */
  begin(&f, IP(4), IP(3), 0x04, 0x0C03, 501); /* SEND ONLY */
  memcpy(f.b + f.n, cqe, sizeof(cqe));
  f.n += sizeof(cqe);
  end(&f);
  feed(ctx, T0 + 19000, &f);
}

int main(void) {
  rtel_ctx *ctx;
  rtel_settings settings;
  rtel_callbacks cb;
  rtel_ctx_stats st;

  /* A context with the default settings and the three callbacks above. */
  rtel_settings_default(&settings);
  memset(&cb, 0, sizeof(cb));
  cb.on_flow = on_flow;
  cb.on_message = on_message;
  cb.on_io = on_io;
  if (rtel_ctx_new(&ctx, &settings, &cb, NULL, NULL) != 0) {
    fprintf(stderr, "rtel_ctx_new failed\n");
    return 1;
  }

  /* The packets, in time order. Records come out of the callbacks when
   * they can no longer change: a message when an ACK covers its last
   * packet (or at the flush), an I/O at its completion. */
  rdma_write(ctx);
  nvme_read(ctx);

  /* The end of the "capture": every flow still open is reported now. */
  if (rtel_ctx_flush(ctx, T0 + 20000) != 0) {
    fprintf(stderr, "rtel_ctx_flush failed\n");
    return 1;
  }
  if (rtel_ctx_get_stats(ctx, &st) == 0) {
    printf("counters: packets %" PRIu64 ", RoCE %" PRIu64 ", flows %" PRIu64
           ", messages %" PRIu64 ", I/Os complete %" PRIu64 "\n",
           st.pkts, st.pkts_roce, st.flows_created, st.messages,
           st.ios_complete);
  }
  rtel_ctx_del(ctx);
  return 0;
}
