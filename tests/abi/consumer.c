/* SPDX-License-Identifier: MIT */
/*
 * An application of libroceTel for tests/abi/grown.sh: it reads classic
 * pcap files (one per observation point, merged by timestamp), feeds them
 * to a context set up so that every callback fires, and writes a canonical
 * text dump of every field of every struct it receives, in the V1 layout.
 *
 *   consumer DUMP PCAP...     (packets of the i-th file: obs i, port i)
 *
 * It always asks for version 1 of every struct, whatever header it was
 * compiled with, so that its dump is the same against any library:
 *  - compiled against today's header, it is an old application; linked
 *    with a library built from a header whose structs grew (V2), it must
 *    receive V1-sized structs. Besides reading every field, it copies each
 *    struct whole (sizeof of its V1 type), as an application may: under
 *    AddressSanitizer a struct shorter than that is a heap-buffer-overflow.
 *    With -DREAD_PAST it also reads one byte past the first flow record
 *    (the negative control: that must be reported).
 *  - compiled against the grown header (RTEL_CALLBACKS_VERSION above
 *    RTEL_CALLBACKS_V1), it is a new application on today's library: it
 *    first checks that the library refuses the V2 versions it does not know
 *    (rtel_ctx_new, rtel_ctx_get_stats, rtel_pkt_decode, rtel_icrc_compute)
 *    without writing anything, then falls back to V1 and checks that the
 *    library writes no byte past the V1 part of its (larger) structs.
 *
 * Exit: 0, or 1 with a message on standard error.
 */
#include <rocetel/rocetel.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if RTEL_CALLBACKS_VERSION > RTEL_CALLBACKS_V1
#  define GROWN 1 /* compiled against the grown header (see grown.sh) */
#else
#  define GROWN 0
#endif

static FILE *out;

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("consumer: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

/* ------------------------------------------------------------ pcap files */

typedef struct {
  const char *path;
  FILE *f;
  int swap, nsec, have;
  uint32_t linktype, caplen, wirelen, bufsize;
  rtel_tstamp ts;
  uint8_t *buf;
} pcap_in;

static uint32_t get32(const uint8_t *p, int swap) {
  uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
               (uint32_t)p[3] << 24;
  return swap ? (v >> 24 | (v >> 8 & 0xff00u) | (v << 8 & 0xff0000u) | v << 24)
              : v;
}

/* Reads the next record; p->have = 0 at the end of the file. */
static void pcap_next(pcap_in *p) {
  uint8_t h[16];
  size_t n = fread(h, 1, sizeof(h), p->f);
  uint32_t frac;
  if (n == 0 && feof(p->f)) {
    p->have = 0;
    return;
  }
  if (n != sizeof(h)) {
    die("%s: truncated record header", p->path);
  }
  frac = get32(h + 4, p->swap);
  p->ts = (rtel_tstamp)get32(h, p->swap) * 1000000000u +
          (p->nsec ? frac : (rtel_tstamp)frac * 1000u);
  p->caplen = get32(h + 8, p->swap);
  p->wirelen = get32(h + 12, p->swap);
  if (p->caplen > p->bufsize ||
      fread(p->buf, 1, p->caplen, p->f) != p->caplen) {
    die("%s: bad or truncated record", p->path);
  }
  p->have = 1;
}

static void pcap_open(pcap_in *p, const char *path) {
  uint8_t h[24];
  uint32_t magic;
  memset(p, 0, sizeof(*p));
  p->path = path;
  if ((p->f = fopen(path, "rb")) == NULL ||
      fread(h, 1, sizeof(h), p->f) != sizeof(h)) {
    die("%s: cannot read a pcap header", path);
  }
  magic = get32(h, 0);
  p->nsec = magic == 0xa1b23c4du || magic == 0x4d3cb2a1u;
  p->swap = magic == 0xd4c3b2a1u || magic == 0x4d3cb2a1u;
  if (!p->nsec && magic != 0xa1b2c3d4u && magic != 0xd4c3b2a1u) {
    die("%s: not a classic pcap file", path);
  }
  p->bufsize = 262144;
  p->linktype = get32(h + 20, p->swap) & 0xffffu;
  if ((p->buf = malloc(p->bufsize)) == NULL) {
    die("out of memory");
  }
  pcap_next(p);
}

/* ------------------------------------------------------------ the dump */

#define U(S, F) fprintf(out, " " #F "=%llu", (unsigned long long)(S)->F)
#define I(S, F) fprintf(out, " " #F "=%lld", (long long)(S)->F)
#define D(S, F) fprintf(out, " " #F "=%a", (S)->F)
#define ARR(S, F)                                                             \
  do {                                                                        \
    size_t i_;                                                                \
    fputs(" " #F "=", out);                                                   \
    for (i_ = 0; i_ < sizeof((S)->F) / sizeof((S)->F[0]); i_++) {             \
      fprintf(out, "%s%llx", i_ ? ":" : "", (unsigned long long)(S)->F[i_]);  \
    }                                                                         \
  } while (0)

/* Reads |n| bytes at |p| at once, as an application that copies a whole
 * struct does (an overflow under ASan if fewer were handed over). Only an
 * application compiled against today's header knows sizeof of V1. */
#if GROWN
#  define TOUCH(P) ((void)0)
#else
unsigned char rtel_test_sink[4096]; /* not static: the copies stay */
#  define TOUCH(P) memcpy(rtel_test_sink, (P), sizeof(*(P)))
#endif

static void dump_hd(const rtel_pkt_hd *h) {
  TOUCH(h);
  U(h, flags);
  U(h, malformed);
  U(h, wire_len);
  U(h, cap_len);
  U(h, encap);
  U(h, roce);
  U(h, erspan_session);
  U(h, erspan_ts);
  U(h, erspan_gra);
  U(h, vxlan_vni);
  U(h, nencap);
  ARR(h, encap_list);
  ARR(h, eth_dst);
  ARR(h, eth_src);
  U(h, ethertype);
  U(h, nvlan);
  ARR(h, vlan_tpid);
  ARR(h, vlan_tci);
  ARR(h, src);
  ARR(h, dst);
  U(h, dscp);
  U(h, ecn);
  U(h, ttl);
  U(h, ip_proto);
  U(h, flow_label);
  U(h, ip_len);
  U(h, l3_off);
  U(h, l4_off);
  U(h, sport);
  U(h, dport);
  U(h, udp_len);
  U(h, udp_csum);
  U(h, bth_off);
  U(h, opcode);
  U(h, se);
  U(h, m);
  U(h, pad);
  U(h, tver);
  U(h, fecn);
  U(h, becn);
  U(h, ackreq);
  U(h, resv6);
  U(h, resv7);
  U(h, pkey);
  U(h, reserved_pad0);
  U(h, dqpn);
  U(h, psn);
  U(h, rdeth_eecnxt);
  U(h, deth_qkey);
  U(h, deth_sqpn);
  U(h, xrc_srqn);
  U(h, reserved_pad1);
  U(h, reth_va);
  U(h, reth_rkey);
  U(h, reth_dmalen);
  U(h, atomic_va);
  U(h, atomic_swap);
  U(h, atomic_cmp);
  U(h, atomic_rkey);
  U(h, aeth_msn);
  U(h, aeth_syndrome);
  ARR(h, reserved_pad2);
  U(h, imm);
  U(h, ieth_rkey);
  U(h, feth);
  U(h, atomicack_orig);
  U(h, payload_off);
  U(h, payload_len);
  U(h, payload_cap);
  U(h, icrc);
  U(h, icrc_calc);
  U(h, icrc_status);
  U(h, mad_tid);
  U(h, mad_base_version);
  U(h, mad_class);
  U(h, mad_class_version);
  U(h, mad_method);
  U(h, mad_status);
  U(h, mad_attr_id);
  U(h, mad_attr_mod);
  U(h, cm_attr);
  U(h, cm_fields);
  U(h, reserved_pad3);
  U(h, cm_service_id);
  U(h, cm_lcid);
  U(h, cm_rcid);
  U(h, cm_local_qpn);
  U(h, cm_start_psn);
  U(h, cm_remote_qpn);
  U(h, cm_rej_reason);
  ARR(h, cm_local_gid);
  ARR(h, cm_remote_gid);
  U(h, cm_priv_off);
  U(h, cm_priv_len);
  fputc('\n', out);
}

static void dump_stats(const rtel_ctx_stats *s) {
  TOUCH(s);
  U(s, pkts);
  U(s, bytes);
  U(s, pkts_roce);
  U(s, pkts_rocev1);
  U(s, pkts_not_roce);
  U(s, pkts_malformed);
  U(s, pkts_truncated);
  U(s, pkts_hdr_truncated);
  U(s, pkts_ip_fragments);
  U(s, pkts_erspan);
  U(s, pkts_vxlan);
  U(s, pkts_cnp);
  U(s, pkts_cm);
  U(s, icrc_ok);
  U(s, icrc_bad);
  U(s, icrc_truncated);
  U(s, pkts_ts_backwards);
  U(s, pkts_unknown_opcode);
  U(s, pkts_unknown_tver);
  ARR(s, malformed);
  U(s, flows_created);
  U(s, flows_evicted);
  U(s, flows_untracked_pkts);
  U(s, flows_active);
  U(s, pairs_cm);
  U(s, pairs_psn);
  U(s, pairs_evicted);
  U(s, ctrl_unattributed);
  U(s, messages);
  U(s, nvme_queues_cm);
  U(s, nvme_queues_connect);
  U(s, nvme_queues_confirmed);
  U(s, nvme_queues_evicted);
  U(s, ios_complete);
  U(s, ios_timeout);
  U(s, ios_orphan);
  U(s, ios_evicted);
  U(s, ios_untracked);
  U(s, nvme_data_unmatched);
  U(s, nvme_capsule_dups);
  U(s, segments);
  U(s, io_join_unmatched);
  U(s, aggregates_dropped);
  U(s, pkts_unscheduled);
  U(s, slots);
  U(s, alarms_raised);
  U(s, alarms_cleared);
  U(s, alarms_dropped);
  U(s, ios_truncated);
  fputc('\n', out);
}

static void dump_flow(const rtel_flow_record *r) {
  TOUCH(r);
  U(r, obs);
  U(r, flags);
  ARR(r, src);
  ARR(r, dst);
  U(r, dqpn);
  U(r, peer_qpn);
  U(r, sport);
  U(r, vlan);
  U(r, dscp);
  ARR(r, reserved);
  U(r, end);
  U(r, ops);
  U(r, first_ts);
  U(r, last_ts);
  U(r, fct);
  U(r, bytes);
  U(r, packets);
  U(r, retx_packets);
  U(r, retx_bytes);
  U(r, fet_bps);
  U(r, naks_seq);
  U(r, naks_rnr);
  U(r, naks_fatal);
  U(r, cnps);
  U(r, ecn_ce);
  U(r, fecn);
  U(r, becn);
  U(r, psn_gaps);
  U(r, losses_upstream);
  U(r, losses_downstream);
  U(r, retx_after_nak);
  U(r, retx_after_timeout);
  U(r, messages);
  D(r, fnr);
  D(r, retx_ratio);
  U(r, port);
  U(r, reserved2);
  U(r, coverage_start);
  U(r, coverage_end);
}

static void dump_msg(const rtel_msg_record *r) {
  TOUCH(r);
  U(r, obs);
  U(r, flags);
  ARR(r, src);
  ARR(r, dst);
  U(r, dqpn);
  U(r, peer_qpn);
  U(r, op);
  U(r, first_psn);
  U(r, last_psn);
  U(r, reth_len);
  U(r, first_ts);
  U(r, last_ts);
  U(r, fct);
  U(r, bytes);
  U(r, packets);
  U(r, retx_packets);
  U(r, retx_bytes);
  U(r, port);
  U(r, reserved2);
  U(r, coverage_start);
  U(r, coverage_end);
}

static void dump_io(const rtel_io_record *r) {
  TOUCH(r);
  U(r, obs);
  U(r, flags);
  U(r, state);
  ARR(r, host);
  ARR(r, target);
  U(r, host_qpn);
  U(r, target_qpn);
  U(r, cid);
  U(r, qid);
  U(r, opcode);
  U(r, fctype);
  U(r, nvme_status);
  U(r, nsid);
  U(r, nlb);
  U(r, reserved1);
  U(r, slba);
  U(r, bytes);
  U(r, t_cmd);
  U(r, t_rsp);
  U(r, t_data_first);
  U(r, t_data_last);
  U(r, t_rdreq);
  I(r, iol);
  I(r, dal);
  I(r, dpl);
  I(r, xfer);
  U(r, port);
  U(r, reserved2);
  U(r, coverage_start);
  U(r, coverage_end);
}

static void dump_segment(const rtel_segment_record *r) {
  TOUCH(r);
  U(r, compute_obs);
  U(r, storage_obs);
  U(r, flags);
  U(r, roles_configured);
  ARR(r, host);
  ARR(r, target);
  U(r, target_qpn);
  U(r, cid);
  U(r, opcode);
  U(r, reserved);
  U(r, nsid);
  U(r, reserved2);
  U(r, slba);
  U(r, bytes);
  I(r, iol1);
  I(r, iol2);
  I(r, rtt);
  I(r, compute);
  I(r, network);
  I(r, storage);
}

static void dump_latency(const char *name, const rtel_latency *l) {
  fprintf(out, " %s={", name);
  U(l, count);
  I(l, min);
  I(l, max);
  I(l, mean);
  I(l, p50);
  I(l, p90);
  I(l, p99);
  I(l, p999);
  fputs(" }", out);
}

static void dump_aggregate(const rtel_io_aggregate *a) {
  TOUCH(a);
  U(a, obs);
  U(a, flags);
  U(a, opcode);
  U(a, nsid);
  ARR(a, host);
  ARR(a, target);
  U(a, period_start);
  U(a, period_end);
  U(a, count);
  U(a, bytes);
  U(a, errors);
  U(a, timeouts);
  dump_latency("iol", &a->iol);
  dump_latency("dal", &a->dal);
  dump_latency("dpl", &a->dpl);
}

static void dump_ports(const char *name, const uint32_t *p, size_t n) {
  size_t i;
  fprintf(out, " %s=[", name);
  for (i = 0; i < n; i++) {
    fprintf(out, "%s%lu", i ? "," : "", (unsigned long)p[i]);
  }
  fputc(']', out);
}

static void dump_slot(const rtel_slot_event *e) {
  TOUCH(e);
  U(e, slot);
  U(e, start);
  U(e, end);
  U(e, nstarted);
  U(e, nstopped);
  dump_ports("started", e->started, e->nstarted);
  dump_ports("stopped", e->stopped, e->nstopped);
}

/* ------------------------------------------------------------ callbacks */

typedef struct {
  unsigned long packets, stats, flows, msgs, ios, segments, aggregates, slots,
      alarms, alarm_flows, alarm_ios;
} counts;

static int on_packet(rtel_ctx *ctx, const rtel_pkt_info *pi,
                     const rtel_pkt_hd *hd, const uint8_t *pkt, size_t pktlen,
                     void *ud) {
  (void)ctx, (void)pkt;
  ((counts *)ud)->packets++;
  fprintf(out, "packet ts=%llu obs=%lu port=%lu len=%zu",
          (unsigned long long)pi->ts, (unsigned long)pi->obs,
          (unsigned long)pi->port, pktlen);
  dump_hd(hd);
  return 0;
}

static int on_stats(rtel_ctx *ctx, rtel_tstamp end, const rtel_ctx_stats *st,
                    void *ud) {
  (void)ctx;
  ((counts *)ud)->stats++;
  fprintf(out, "stats end=%llu", (unsigned long long)end);
  dump_stats(st);
  return 0;
}

static int on_flow(rtel_ctx *ctx, const rtel_flow_record *r, void *ud) {
  (void)ctx;
#ifdef READ_PAST
  /* the negative control: one byte past the V1 record */
  {
    volatile unsigned char past = ((const unsigned char *)r)[sizeof(*r)];
    fprintf(stderr, "consumer: READ_PAST read %u\n", (unsigned)past);
  }
#endif
  ((counts *)ud)->flows++;
  fputs("flow", out);
  dump_flow(r);
  fputc('\n', out);
  return 0;
}

static int on_message(rtel_ctx *ctx, const rtel_msg_record *r, void *ud) {
  (void)ctx;
  ((counts *)ud)->msgs++;
  fputs("message", out);
  dump_msg(r);
  fputc('\n', out);
  return 0;
}

static int on_io(rtel_ctx *ctx, const rtel_io_record *r, void *ud) {
  (void)ctx;
  ((counts *)ud)->ios++;
  fputs("io", out);
  dump_io(r);
  fputc('\n', out);
  return 0;
}

static int on_segment(rtel_ctx *ctx, const rtel_segment_record *r, void *ud) {
  (void)ctx;
  ((counts *)ud)->segments++;
  fputs("segment", out);
  dump_segment(r);
  fputc('\n', out);
  return 0;
}

static int on_io_aggregate(rtel_ctx *ctx, const rtel_io_aggregate *a,
                           void *ud) {
  (void)ctx;
  ((counts *)ud)->aggregates++;
  fputs("aggregate", out);
  dump_aggregate(a);
  fputc('\n', out);
  return 0;
}

static int on_slot(rtel_ctx *ctx, const rtel_slot_event *e, void *ud) {
  (void)ctx;
  ((counts *)ud)->slots++;
  fputs("slot", out);
  dump_slot(e);
  fputc('\n', out);
  return 0;
}

static int on_alarm(rtel_ctx *ctx, const rtel_alarm *a, void *ud) {
  counts *c = ud;
  (void)ctx;
  TOUCH(a);
  c->alarms++;
  fputs("alarm", out);
  U(a, metric);
  U(a, scope);
  U(a, kind);
  U(a, state);
  U(a, obs);
  U(a, port);
  ARR(a, src);
  ARR(a, dst);
  D(a, value);
  D(a, limit);
  U(a, ts);
  /* the record behind it, read through the alarm's pointer */
  if (a->flow != NULL) {
    c->alarm_flows++;
    fputs(" flow={", out);
    dump_flow(a->flow);
    fputs(" }", out);
  }
  if (a->io != NULL) {
    c->alarm_ios++;
    fputs(" io={", out);
    dump_io(a->io);
    fputs(" }", out);
  }
  fputc('\n', out);
  return 0;
}

/* ------------------------------------------------------------ checks */

#define CHECK(CALL)                                                           \
  do {                                                                        \
    int rv_ = (CALL);                                                         \
    if (rv_ != 0) {                                                           \
      die("%s: %s", #CALL, rtel_strerror(rv_));                               \
    }                                                                         \
  } while (0)

/* A buffer of |n| bytes filled with |fill|, on the heap: ASan sees any
 * write past it. */
static void *pattern(size_t n, int fill) {
  void *p = malloc(n);
  if (p == NULL) {
    die("out of memory");
  }
  memset(p, fill, n);
  return p;
}

#if GROWN
/* Nonzero if the |n| bytes at |p| + |off| are all |fill|. */
static int untouched(const void *p, size_t off, size_t n, int fill) {
  const unsigned char *b = (const unsigned char *)p + off;
  size_t i;
  for (i = 0; i < n; i++) {
    if (b[i] != (unsigned char)fill) {
      return 0;
    }
  }
  return 1;
}
#endif

#define FILL 0x5A

/* Decodes one packet on its own, as V1, into a buffer of the size this
 * application knows, and dumps it (with the ICRC computed from it). */
static void decode_one(const uint8_t *pkt, uint32_t caplen, uint32_t wirelen,
                       uint32_t linktype) {
  rtel_decode_opts opts;
  rtel_pkt_hd *hd = pattern(sizeof(*hd), FILL);
  uint32_t icrc = 0;
  int rv, rv2 = 1;
  memset(&opts, 0, sizeof(opts));
  opts.flags = RTEL_DECODE_VERIFY_ICRC;
  opts.linktype = linktype;
#if GROWN
  /* a version the library does not know: refused, nothing written */
  rv = rtel_pkt_decode(hd, &opts, pkt, caplen, wirelen);
  if (rv != RTEL_ERR_UNSUPPORTED_VERSION ||
      !untouched(hd, 0, sizeof(*hd), FILL)) {
    die("rtel_pkt_decode with RTEL_PKT_HD_VERSION %d: %d (%s), expected "
        "RTEL_ERR_UNSUPPORTED_VERSION and nothing written",
        RTEL_PKT_HD_VERSION, rv, rtel_strerror(rv));
  }
#endif
  rv = rtel_pkt_decode_versioned(RTEL_PKT_HD_V1, hd, RTEL_DECODE_OPTS_V1,
                                 &opts, pkt, caplen, wirelen);
  if (rv == 0) {
#if GROWN
    rv2 = rtel_icrc_compute(hd, pkt, caplen, &icrc);
    if (rv2 != RTEL_ERR_UNSUPPORTED_VERSION) {
      die("rtel_icrc_compute with RTEL_PKT_HD_VERSION %d: %d, expected "
          "RTEL_ERR_UNSUPPORTED_VERSION",
          RTEL_PKT_HD_VERSION, rv2);
    }
#endif
    rv2 = rtel_icrc_compute_versioned(RTEL_PKT_HD_V1, hd, pkt, caplen, &icrc);
  }
#if GROWN
  /* V1 is written, and nothing after it */
  if (!untouched(hd, offsetof(rtel_pkt_hd, grown_v2),
                 sizeof(*hd) - offsetof(rtel_pkt_hd, grown_v2), FILL)) {
    die("rtel_pkt_decode_versioned(RTEL_PKT_HD_V1) wrote past V1");
  }
#endif
  fprintf(out, "decode rv=%d icrc_rv=%d icrc=%lx", rv, rv2,
          (unsigned long)icrc);
  dump_hd(hd);
  free(hd);
}

/* The counters at the end, as V1. */
static void final_stats(rtel_ctx *ctx) {
  rtel_ctx_stats *st = pattern(sizeof(*st), FILL);
#if GROWN
  int rv = rtel_ctx_get_stats(ctx, st);
  if (rv != RTEL_ERR_UNSUPPORTED_VERSION ||
      !untouched(st, 0, sizeof(*st), FILL)) {
    die("rtel_ctx_get_stats with RTEL_CTX_STATS_VERSION %d: %d (%s), "
        "expected RTEL_ERR_UNSUPPORTED_VERSION and nothing written",
        RTEL_CTX_STATS_VERSION, rv, rtel_strerror(rv));
  }
#endif
  CHECK(rtel_ctx_get_stats_versioned(ctx, RTEL_CTX_STATS_V1, st));
#if GROWN
  if (!untouched(st, offsetof(rtel_ctx_stats, grown_v2),
                 sizeof(*st) - offsetof(rtel_ctx_stats, grown_v2), FILL)) {
    die("rtel_ctx_get_stats_versioned(RTEL_CTX_STATS_V1) wrote past V1");
  }
#endif
  fputs("final", out);
  dump_stats(st);
  free(st);
}

/* ------------------------------------------------------------ main */

static rtel_ctx *setup(rtel_tstamp t0, counts *c) {
  rtel_ctx *ctx = NULL;
  rtel_settings s;
  rtel_callbacks cb;
  rtel_port port;
  rtel_schedule sch;
  static const char *const names[] = {"compute", "storage", "spare"};
  static const uint32_t roles[] = {RTEL_ROLE_COMPUTE, RTEL_ROLE_STORAGE,
                                   RTEL_ROLE_FABRIC};
  uint32_t i;

  rtel_settings_default(&s);
  s.decode_flags = RTEL_DECODE_VERIFY_ICRC;
  s.stats_interval = 100000;   /* 100 us: on_stats */
  s.report_interval = 200000;  /* 200 us: on_io_aggregate */
  s.flow_idle_timeout = 50000; /* 50 us: flows end idle too */
  memset(&cb, 0, sizeof(cb));
  cb.on_packet = on_packet;
  cb.on_stats = on_stats;
  cb.on_flow = on_flow;
  cb.on_message = on_message;
  cb.on_io = on_io;
  cb.on_segment = on_segment;
  cb.on_io_aggregate = on_io_aggregate;
  cb.on_slot = on_slot;
  cb.on_alarm = on_alarm;
#if GROWN
  {
    /* callbacks V2: the library would hand out structs shorter than the
     * application's: refused, and *pctx is left alone */
    int rv = rtel_ctx_new(&ctx, &s, &cb, NULL, c);
    if (rv != RTEL_ERR_UNSUPPORTED_VERSION || ctx != NULL) {
      die("rtel_ctx_new with RTEL_CALLBACKS_VERSION %d: %d (%s), expected "
          "RTEL_ERR_UNSUPPORTED_VERSION",
          RTEL_CALLBACKS_VERSION, rv, rtel_strerror(rv));
    }
  }
#endif
  CHECK(rtel_ctx_new_versioned(&ctx, RTEL_SETTINGS_VERSION, &s,
                               RTEL_CALLBACKS_V1, &cb, NULL, c));
  /* two observation points with declared roles: segments */
  CHECK(rtel_ctx_set_obs_role(ctx, 0, RTEL_ROLE_COMPUTE));
  CHECK(rtel_ctx_set_obs_role(ctx, 1, RTEL_ROLE_STORAGE));
  /* low thresholds: alarms from flows (FCT) and from I/Os (IOL) */
  CHECK(rtel_ctx_set_threshold(ctx, RTEL_METRIC_FCT, RTEL_SCOPE_PORT, 1000));
  CHECK(rtel_ctx_set_threshold(ctx, RTEL_METRIC_IOL, RTEL_SCOPE_PAIR, 1000));
  /* three ports polled two at a time: slots, truncated records */
  for (i = 0; i < 3; i++) {
    memset(&port, 0, sizeof(port));
    port.id = i;
    port.role = roles[i];
    port.name = names[i];
    CHECK(rtel_ctx_add_port(ctx, &port, t0));
  }
  memset(&sch, 0, sizeof(sch));
  sch.mode = RTEL_SCHED_POLL;
  sch.ports_per_slot = 2;
  sch.slot_ns = 300000;
  sch.alarm_priority = 100000;
  CHECK(rtel_ctx_set_schedule(ctx, &sch, t0));
  return ctx;
}

/* Runs every timer due at or before |now|. */
static void run_timers(rtel_ctx *ctx, rtel_tstamp now) {
  rtel_tstamp t, prev = 0;
  while ((t = rtel_ctx_get_expiry(ctx)) <= now) {
    if (prev != 0 && t <= prev) {
      die("rtel_ctx_get_expiry() did not move past %llu",
          (unsigned long long)t);
    }
    CHECK(rtel_ctx_handle_expiry(ctx, t));
    prev = t;
  }
}

int main(int argc, char **argv) {
  pcap_in in[8];
  int nin = argc - 2, i;
  rtel_ctx *ctx = NULL;
  rtel_tstamp last = 0;
  counts c;

  if (argc < 3 || nin > 8) {
    fprintf(stderr, "usage: consumer DUMP PCAP...\n");
    return 2;
  }
  if ((out = fopen(argv[1], "w")) == NULL) {
    die("cannot write %s", argv[1]);
  }
  memset(&c, 0, sizeof(c));
  for (i = 0; i < nin; i++) {
    pcap_open(&in[i], argv[i + 2]);
  }
  for (;;) {
    pcap_in *p = NULL;
    rtel_pkt_info pi;
    for (i = 0; i < nin; i++) {
      if (in[i].have && (p == NULL || in[i].ts < p->ts)) {
        p = &in[i];
      }
    }
    if (p == NULL) {
      break;
    }
    if (ctx == NULL) {
      ctx = setup(p->ts, &c);
    }
    run_timers(ctx, p->ts);
    memset(&pi, 0, sizeof(pi));
    pi.ts = p->ts;
    pi.wire_len = p->wirelen;
    pi.obs = (uint32_t)(p - in);
    pi.port = pi.obs;
    pi.linktype = p->linktype;
    CHECK(rtel_ctx_read_pkt_versioned(ctx, RTEL_PKT_INFO_V1, &pi, p->buf,
                                      p->caplen));
    decode_one(p->buf, p->caplen, p->wirelen, p->linktype);
    last = p->ts;
    pcap_next(p);
  }
  if (ctx == NULL) {
    die("no packet");
  }
  run_timers(ctx, last);
  CHECK(rtel_ctx_flush(ctx, last));
  final_stats(ctx);
  rtel_ctx_del(ctx);
  for (i = 0; i < nin; i++) {
    fclose(in[i].f);
    free(in[i].buf);
  }
  fprintf(out,
          "counts packets=%lu stats=%lu flows=%lu messages=%lu ios=%lu "
          "segments=%lu aggregates=%lu slots=%lu alarms=%lu "
          "(from flows %lu, from ios %lu)\n",
          c.packets, c.stats, c.flows, c.msgs, c.ios, c.segments, c.aggregates,
          c.slots, c.alarms, c.alarm_flows, c.alarm_ios);
  if (fclose(out) != 0) {
    die("cannot write %s", argv[1]);
  }
  /* every struct the callbacks receive was received */
  if (!c.packets || !c.stats || !c.flows || !c.msgs || !c.ios || !c.segments ||
      !c.aggregates || !c.slots || !c.alarm_flows || !c.alarm_ios) {
    die("not every record type was delivered: packets %lu stats %lu "
        "flows %lu messages %lu ios %lu segments %lu aggregates %lu "
        "slots %lu alarms from flows %lu, from ios %lu",
        c.packets, c.stats, c.flows, c.msgs, c.ios, c.segments, c.aggregates,
        c.slots, c.alarm_flows, c.alarm_ios);
  }
  return 0;
}
