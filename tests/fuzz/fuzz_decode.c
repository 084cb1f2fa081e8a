/* SPDX-License-Identifier: MIT */
/*
 * Fuzz harness for the packet decoder: rtel_pkt_decode() and the same bytes
 * through a context (rtel_ctx_read_pkt / rtel_ctx_read_pkts, on_packet,
 * on_stats).
 *
 * Built two ways:
 *  - with libFuzzer + ASan + UBSan by tests/fuzz/run-fuzz.sh (clang);
 *  - with the normal compiler into tests/fuzz/fuzz_main (check program),
 *    which replays tests/fuzz/corpus/ so `make check` runs it everywhere.
 *
 * Input layout: byte 0 selects the options, the rest is the frame.
 *
 *   bits 0-1  link type: 0 Ethernet, 1 raw IP, 2 Linux SLL, 3 Linux SLL2
 *   bit  2    RTEL_DECODE_VERIFY_ICRC
 *   bit  3    RTEL_DECODE_NO_DECAP
 *   bit  4    RTEL_DECODE_NO_ROCEV1
 *   bits 5-6  wire length: 0 -> 0 (= caplen), 1 -> caplen / 2 (below
 *             caplen, treated as caplen), 2 -> caplen + 4, 3 -> caplen + 1500
 *   bit  7    defaults: decoder opts NULL; context settings from
 *             rtel_settings_default() (only the table sizes made small, see
 *             below) without a stats interval; rtel_pkt_info.linktype 0
 *             (bits 0-4 are then ignored)
 *
 * The frame is copied into a buffer of exactly its size, so ASan reports any
 * read past the captured bytes. Every offset/length the library reports is
 * checked against the capture and the bytes it designates are read (payload
 * [payload_off, +payload_cap), CM private data [cm_priv_off, +cm_priv_len)),
 * so a wrong offset is caught even without ASan. A broken documented
 * invariant aborts with a message naming it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rocetel/rocetel.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_OPT_LINK_MASK 0x03u
#define FZ_OPT_VERIFY_ICRC 0x04u
#define FZ_OPT_NO_DECAP 0x08u
#define FZ_OPT_NO_ROCEV1 0x10u
#define FZ_OPT_WIRE_SHIFT 5
#define FZ_OPT_DEFAULTS 0x80u

#define FZ_MAX_BUFS 4

static volatile uint32_t fz_sink;

static void fz_fail(const char *what, const char *file, int line) {
  fprintf(stderr, "%s:%d: invariant violated: %s\n", file, line, what);
  abort();
}

#define FZ_CHECK(cond)                                                        \
  do {                                                                        \
    if (!(cond)) {                                                            \
      fz_fail(#cond, __FILE__, __LINE__);                                     \
    }                                                                         \
  } while (0)

/* Reads every byte of [p, p + n) so ASan sees it. */
static void fz_touch(const uint8_t *p, size_t n) {
  uint32_t s = 0;
  size_t i;
  for (i = 0; i < n; ++i) {
    s = s * 31u + p[i];
  }
  fz_sink += s;
}

static void fz_touch_str(const char *s) {
  FZ_CHECK(s != NULL);
  fz_touch((const uint8_t *)s, strlen(s));
}

static uint32_t fz_le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

/*
 * Checks a decoded header against the bytes it was decoded from. |rv| is the
 * decoder's return value (0 for headers handed to on_packet). |verify| says
 * whether ICRC verification was asked for.
 */
static void fz_check_hd(const rtel_pkt_hd *hd, int rv, const uint8_t *pkt,
                        size_t caplen, int verify) {
  uint32_t f = hd->flags;

  /* Touch every field: the whole struct, byte by byte. */
  fz_touch((const uint8_t *)hd, sizeof(*hd));
  fz_touch_str(rtel_strerror(rv));

  FZ_CHECK(rv == 0 || rv == RTEL_ERR_NOT_ROCE || rv == RTEL_ERR_MALFORMED);
  if (rv == RTEL_ERR_MALFORMED) {
    FZ_CHECK(hd->malformed != RTEL_MALFORMED_NONE);
    FZ_CHECK(hd->malformed < RTEL_MALFORMED_SLOTS);
    fz_touch_str(rtel_malformed_str(hd->malformed));
    return;
  }
  if (rv != 0) {
    return;
  }

  /* A RoCE packet. */
  FZ_CHECK(f & RTEL_HD_F_ROCE);
  FZ_CHECK(hd->roce == 1 || hd->roce == 2);
  FZ_CHECK(f & RTEL_HD_F_BTH); /* else it would be MALFORMED_TRUNCATED */
  FZ_CHECK(hd->cap_len == caplen);
  FZ_CHECK(hd->wire_len >= hd->cap_len);
  /* truncated iff the capture is short of the wire length - or a packet
   * inside a tunnel was cut (the outer one is whole) */
  FZ_CHECK(!(f & RTEL_HD_F_TRUNCATED) == !(hd->cap_len < hd->wire_len) ||
           ((f & RTEL_HD_F_TRUNCATED) && hd->nencap > 0));
  FZ_CHECK((hd->encap & ~(uint32_t)0x1f) == 0);
  fz_touch_str(rtel_opcode_str(hd->opcode));

  if (f & RTEL_HD_F_ETH) {
    FZ_CHECK(hd->nvlan <= RTEL_MAX_VLAN);
    FZ_CHECK(!(f & RTEL_HD_F_VLAN) == !(hd->nvlan >= 1));
  }
  if (hd->roce == 1) {
    FZ_CHECK(f & RTEL_HD_F_GRH);
    FZ_CHECK((size_t)hd->l3_off + 40 <= caplen);
    FZ_CHECK(hd->bth_off == hd->l4_off);
  } else {
    FZ_CHECK(f & RTEL_HD_F_UDP);
    FZ_CHECK(f & (RTEL_HD_F_IPV4 | RTEL_HD_F_IPV6));
    FZ_CHECK((size_t)hd->l4_off + 8 <= caplen);
    FZ_CHECK(hd->bth_off == hd->l4_off + 8);
    FZ_CHECK(hd->l4_off > hd->l3_off);
  }
  if (f & RTEL_HD_F_IPV4) {
    FZ_CHECK((size_t)hd->l3_off + 20 <= caplen);
    fz_touch(pkt + hd->l3_off, 20);
  }
  if (f & RTEL_HD_F_IPV6) {
    FZ_CHECK((size_t)hd->l3_off + 40 <= caplen);
    fz_touch(pkt + hd->l3_off, 40);
  }
  FZ_CHECK((size_t)hd->bth_off + 12 <= caplen);
  fz_touch(pkt + hd->bth_off, 12);
  FZ_CHECK(pkt[hd->bth_off] == hd->opcode);
  FZ_CHECK(hd->pad <= 3);

  /* Payload: [payload_off, payload_off + payload_cap) is inside the capture
   * and holds at most payload + pad + ICRC. */
  FZ_CHECK(hd->payload_cap <= (uint64_t)hd->payload_len + hd->pad + 4);
  if (hd->payload_cap > 0) {
    FZ_CHECK(hd->payload_off >= (uint32_t)hd->bth_off + 12);
    FZ_CHECK((uint64_t)hd->payload_off + hd->payload_cap <= caplen);
    fz_touch(pkt + hd->payload_off, hd->payload_cap);
  }
  if (!(f & RTEL_HD_F_HDR_TRUNC)) {
    FZ_CHECK(hd->payload_off >= (uint32_t)hd->bth_off + 12);
    FZ_CHECK(hd->payload_off <= caplen);
  }

  /* ICRC: the last 4 bytes of the UDP payload, read little-endian. The
   * header documents |icrc| as valid with RTEL_HD_F_ICRC, but the decoder
   * only reads it when verifying (rtel_parse.c, for speed): check it then. */
  if ((f & RTEL_HD_F_ICRC) && hd->roce == 2 && verify) {
    uint64_t icrc_off = (uint64_t)hd->l4_off + hd->udp_len - 4;
    FZ_CHECK(hd->udp_len >= 8 + 12 + 4);
    FZ_CHECK(icrc_off + 4 <= caplen);
    FZ_CHECK(hd->icrc == fz_le32(pkt + icrc_off));
  }
  FZ_CHECK(hd->icrc_status <= RTEL_ICRC_TRUNCATED);
  if (!verify) {
    FZ_CHECK(hd->icrc_status == RTEL_ICRC_UNCHECKED);
  } else {
    FZ_CHECK(hd->icrc_status != RTEL_ICRC_UNCHECKED);
  }
  if (hd->icrc_status == RTEL_ICRC_OK || hd->icrc_status == RTEL_ICRC_BAD) {
    uint32_t c = 0;
    FZ_CHECK(f & RTEL_HD_F_ICRC);
    FZ_CHECK((hd->icrc_status == RTEL_ICRC_OK) == (hd->icrc_calc == hd->icrc));
    FZ_CHECK(rtel_icrc_compute(hd, pkt, caplen, &c) == 0);
    FZ_CHECK(c == hd->icrc_calc);
  } else {
    uint32_t c = 0;
    int r = rtel_icrc_compute(hd, pkt, caplen, &c);
    FZ_CHECK(r == 0 || r == RTEL_ERR_MALFORMED);
    fz_sink += c;
  }

  /* MAD / CM private data. */
  if (f & RTEL_HD_F_CM) {
    FZ_CHECK(f & RTEL_HD_F_MAD);
    FZ_CHECK((uint64_t)hd->cm_priv_off + hd->cm_priv_len <= caplen);
    if (hd->cm_priv_len > 0) {
      FZ_CHECK(hd->cm_priv_off >= (uint32_t)hd->bth_off + 12 + 24);
      fz_touch(pkt + hd->cm_priv_off, hd->cm_priv_len);
    }
  }
}

typedef struct fz_state {
  /* Buffers handed to the context, to check on_packet's |pkt|. */
  const uint8_t *bufs[FZ_MAX_BUFS];
  size_t lens[FZ_MAX_BUFS];
  size_t nbufs;
  int verify;
  /* The stateless result for bufs[0], for the differential check. */
  const rtel_pkt_hd *ref;
  int ref_rv;
  size_t ncalls;
  size_t ncalls_buf0;
  size_t nstats;
  size_t nrecords;
} fz_state;

static int fz_on_packet(rtel_ctx *ctx, const rtel_pkt_info *pi,
                        const rtel_pkt_hd *hd, const uint8_t *pkt,
                        size_t pktlen, void *user_data) {
  fz_state *st = user_data;
  rtel_ctx_stats stats;
  size_t i;

  FZ_CHECK(ctx != NULL && pi != NULL && hd != NULL);
  for (i = 0; i < st->nbufs; ++i) {
    if (st->bufs[i] == pkt && st->lens[i] == pktlen) {
      break;
    }
  }
  FZ_CHECK(i < st->nbufs); /* |pkt| is the caller's buffer */
  fz_touch((const uint8_t *)pi, sizeof(*pi));
  fz_check_hd(hd, 0, pkt, pktlen, st->verify);

  if (i == 0 && st->ref != NULL) {
    const rtel_pkt_hd *r = st->ref;
    /* on_packet runs for every RoCE packet, i.e. exactly when the stateless
     * decoder returns 0, with the same result. */
    FZ_CHECK(st->ref_rv == 0);
    FZ_CHECK(hd->flags == r->flags);
    FZ_CHECK(hd->roce == r->roce);
    FZ_CHECK(hd->encap == r->encap);
    FZ_CHECK(hd->l3_off == r->l3_off && hd->l4_off == r->l4_off);
    FZ_CHECK(hd->bth_off == r->bth_off && hd->opcode == r->opcode);
    FZ_CHECK(hd->dqpn == r->dqpn && hd->psn == r->psn);
    FZ_CHECK(hd->payload_off == r->payload_off);
    FZ_CHECK(hd->payload_len == r->payload_len);
    FZ_CHECK(hd->payload_cap == r->payload_cap);
    FZ_CHECK(hd->icrc_status == r->icrc_status);
    if (hd->flags & RTEL_HD_F_CM) {
      FZ_CHECK(hd->cm_attr == r->cm_attr);
      FZ_CHECK(hd->cm_priv_off == r->cm_priv_off);
      FZ_CHECK(hd->cm_priv_len == r->cm_priv_len);
    }
    ++st->ncalls_buf0;
  }
  ++st->ncalls;

  /* const getters are allowed from a callback */
  FZ_CHECK(rtel_ctx_get_stats(ctx, &stats) == 0);
  fz_sink += (uint32_t)stats.pkts;
  fz_sink += (uint32_t)rtel_ctx_get_expiry(ctx);
  return 0;
}

static void fz_check_stats(const rtel_ctx_stats *s) {
  uint64_t sum = 0;
  size_t i;
  for (i = 0; i < RTEL_MALFORMED_SLOTS; ++i) {
    sum += s->malformed[i];
  }
  FZ_CHECK(s->malformed[RTEL_MALFORMED_NONE] == 0);
  FZ_CHECK(s->pkts_malformed == sum);
  FZ_CHECK(s->pkts_rocev1 <= s->pkts_roce);
  FZ_CHECK(s->pkts_roce + s->pkts_not_roce + s->pkts_malformed <= s->pkts);
  FZ_CHECK(s->pkts_hdr_truncated <= s->pkts_roce);
  FZ_CHECK(s->pkts_cnp <= s->pkts_roce && s->pkts_cm <= s->pkts_roce);
  FZ_CHECK(s->icrc_ok + s->icrc_bad + s->icrc_truncated <= s->pkts_roce);
}

static int fz_on_stats(rtel_ctx *ctx, rtel_tstamp period_end,
                       const rtel_ctx_stats *stats, void *user_data) {
  fz_state *st = user_data;
  FZ_CHECK(ctx != NULL && stats != NULL);
  fz_touch((const uint8_t *)stats, sizeof(*stats));
  fz_check_stats(stats);
  fz_sink += (uint32_t)period_end;
  ++st->nstats;
  return 0;
}

/*
 * Record callbacks of the modules above the decoder (flow table, NVMe-oF
 * correlator). Each is compiled in only if its record type's version macro
 * exists, so the harness follows the header as it grows. They read the
 * whole record, so ASan reports a record handed out from freed or evicted
 * memory.
 */
#define FZ_RECORD_CB(NAME, TYPE)                                              \
  static int NAME(rtel_ctx *ctx, const TYPE *rec, void *user_data) {          \
    fz_state *st = user_data;                                                 \
    FZ_CHECK(ctx != NULL && rec != NULL);                                     \
    fz_touch((const uint8_t *)rec, sizeof(*rec));                             \
    ++st->nrecords;                                                           \
    return 0;                                                                 \
  }
#ifdef RTEL_FLOW_RECORD_VERSION
FZ_RECORD_CB(fz_on_flow, rtel_flow_record)
#endif
#ifdef RTEL_MSG_RECORD_VERSION
FZ_RECORD_CB(fz_on_message, rtel_msg_record)
#endif
#ifdef RTEL_IO_RECORD_VERSION
FZ_RECORD_CB(fz_on_io, rtel_io_record)
#endif
#ifdef RTEL_SEGMENT_RECORD_VERSION
FZ_RECORD_CB(fz_on_segment, rtel_segment_record)
#endif

/*
 * A counting allocator: the header promises that the library "allocates
 * only in constructors and frees only in destructors: the packet path never
 * calls the allocator", and everything allocated must be freed by
 * rtel_ctx_del() (checked here even without ASan).
 */
typedef struct fz_alloc {
  size_t calls; /* allocator calls of any kind */
  long live;    /* blocks allocated and not freed */
} fz_alloc;

static void *fz_malloc(size_t size, void *user_data) {
  fz_alloc *a = user_data;
  void *p = malloc(size ? size : 1);
  ++a->calls;
  if (p != NULL) {
    ++a->live;
  }
  return p;
}

static void fz_free(void *ptr, void *user_data) {
  fz_alloc *a = user_data;
  ++a->calls;
  if (ptr != NULL) {
    --a->live;
    free(ptr);
  }
}

static void *fz_calloc(size_t nmemb, size_t size, void *user_data) {
  fz_alloc *a = user_data;
  void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
  ++a->calls;
  if (p != NULL) {
    ++a->live;
  }
  return p;
}

static void *fz_realloc(void *ptr, size_t size, void *user_data) {
  fz_alloc *a = user_data;
  void *p = realloc(ptr, size ? size : 1);
  ++a->calls;
  if (p != NULL && ptr == NULL) {
    ++a->live;
  }
  return p;
}

/* An exact-size heap copy, so that ASan catches reads past |n|. */
static uint8_t *fz_dup(const uint8_t *p, size_t n) {
  uint8_t *d = malloc(n ? n : 1);
  if (d == NULL) {
    abort();
  }
  if (n) {
    memcpy(d, p, n);
  }
  return d;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const uint32_t links[4] = {RTEL_LINK_ETHERNET, RTEL_LINK_RAW,
                                    RTEL_LINK_LINUX_SLL, RTEL_LINK_LINUX_SLL2};
  uint8_t opt;
  int defaults, verify, rv;
  uint32_t link, flags;
  size_t caplen, wire_len, half;
  uint8_t *pkt, *pkt_half;
  rtel_decode_opts opts;
  rtel_pkt_hd hd;
  rtel_settings settings;
  rtel_callbacks cb;
  rtel_ctx *ctx = NULL;
  rtel_pkt_info pi, pis[3];
  const uint8_t *bursts[3];
  size_t burst_lens[3];
  rtel_ctx_stats stats;
  rtel_tstamp exp;
  rtel_ssize n;
  fz_state st;
  uint64_t pkts_fed = 4;
  rtel_mem mem;
  fz_alloc alloc;
  size_t alloc_calls;

  if (size < 1) {
    return 0;
  }
  opt = data[0];
  caplen = size - 1;
  pkt = fz_dup(data + 1, caplen);

  defaults = (opt & FZ_OPT_DEFAULTS) != 0;
  link = defaults ? RTEL_LINK_ETHERNET : links[opt & FZ_OPT_LINK_MASK];
  flags = 0;
  if (!defaults) {
    if (opt & FZ_OPT_VERIFY_ICRC) {
      flags |= RTEL_DECODE_VERIFY_ICRC;
    }
    if (opt & FZ_OPT_NO_DECAP) {
      flags |= RTEL_DECODE_NO_DECAP;
    }
    if (opt & FZ_OPT_NO_ROCEV1) {
      flags |= RTEL_DECODE_NO_ROCEV1;
    }
  }
  verify = (flags & RTEL_DECODE_VERIFY_ICRC) != 0;
  switch ((opt >> FZ_OPT_WIRE_SHIFT) & 3u) {
  case 0:
    wire_len = 0;
    break;
  case 1:
    wire_len = caplen / 2;
    break;
  case 2:
    wire_len = caplen + 4;
    break;
  default:
    wire_len = caplen + 1500;
    break;
  }

  /* 1. The stateless decoder. */
  memset(&opts, 0, sizeof(opts));
  opts.flags = flags;
  opts.linktype = link;
  memset(&hd, 0, sizeof(hd));
  rv = rtel_pkt_decode(&hd, defaults ? NULL : &opts, pkt, caplen, wire_len);
  fz_check_hd(&hd, rv, pkt, caplen, verify);
  if (rv == 0) {
    /* the caller's wire length, or more when an IP header says the copy
     * was cut short (then the packet is flagged truncated) */
    size_t w = wire_len < caplen ? caplen : wire_len;
    FZ_CHECK(hd.wire_len == w ||
             (hd.wire_len > w && (hd.flags & RTEL_HD_F_TRUNCATED)));
  }

  /* 2. The same bytes through a context. */
  memset(&st, 0, sizeof(st));
  st.verify = verify;
  st.ref = &hd;
  st.ref_rv = rv;
  memset(&cb, 0, sizeof(cb));
  cb.on_packet = fz_on_packet;
  cb.on_stats = fz_on_stats;
#ifdef RTEL_FLOW_RECORD_VERSION
  cb.on_flow = fz_on_flow;
#endif
#ifdef RTEL_MSG_RECORD_VERSION
  cb.on_message = fz_on_message;
#endif
#ifdef RTEL_IO_RECORD_VERSION
  cb.on_io = fz_on_io;
#endif
#ifdef RTEL_SEGMENT_RECORD_VERSION
  cb.on_segment = fz_on_segment;
#endif
  rtel_settings_default(&settings);
  settings.decode_flags = flags;
  settings.stats_interval = 1000;
  /* Tiny tables, so that every packet can evict. */
#ifdef RTEL_FLOW_NO_EVICT
  settings.max_flows = 2;
  settings.max_qp_pairs = 1;
#endif
#ifdef RTEL_IO_RECORD_VERSION
  settings.max_nvme_queues = 1;
  settings.max_ios = 1;
  settings.max_io_joins = 1;
#endif
#ifdef RTEL_ALARM_THRESHOLD /* aggregates, ports, alarms */
  settings.max_aggregates = 2;
  settings.max_ports = 1;
  settings.max_alarm_keys = 1;
#endif
  memset(&alloc, 0, sizeof(alloc));
  mem.user_data = &alloc;
  mem.malloc = fz_malloc;
  mem.free = fz_free;
  mem.calloc = fz_calloc;
  mem.realloc = fz_realloc;
  if (defaults) {
    settings.decode_flags = 0;
    settings.stats_interval = 0;
  }
  /* (settings are never NULL here: the default table sizes cost MBs per
   * context, far too slow for a fuzzer that creates one per input) */
  rv = rtel_ctx_new(&ctx, &settings, &cb, &mem, &st);
  FZ_CHECK(rv == 0 && ctx != NULL);
  alloc_calls = alloc.calls;

  memset(&pi, 0, sizeof(pi));
  pi.ts = 1000000;
  pi.wire_len = (uint32_t)wire_len;
  pi.obs = 1;
  pi.port = 2;
  pi.linktype = defaults ? 0 : link;

  st.bufs[0] = pkt;
  st.lens[0] = caplen;
  st.nbufs = 1;
  rv = rtel_ctx_read_pkt(ctx, &pi, pkt, caplen);
  FZ_CHECK(rv == 0);
  FZ_CHECK(st.ncalls_buf0 == (st.ref_rv == 0 ? 1u : 0u));
  st.ref = NULL;

  /* A burst: the packet again, a truncated copy, and a packet whose
   * timestamp goes backwards. */
  half = caplen / 2;
  pkt_half = fz_dup(pkt, half);
  st.bufs[1] = pkt_half;
  st.lens[1] = half;
  st.nbufs = 2;
  bursts[0] = pkt;
  burst_lens[0] = caplen;
  bursts[1] = pkt_half;
  burst_lens[1] = half;
  bursts[2] = pkt;
  burst_lens[2] = caplen;
  pis[0] = pi;
  pis[0].ts = 1000500;
  pis[1] = pi;
  pis[1].ts = 1002500;
  pis[1].wire_len = (uint32_t)caplen;
  pis[1].obs = 2; /* seen again at a second observation point */
  pis[2] = pi;
  pis[2].ts = 1000100;
  n = rtel_ctx_read_pkts(ctx, pis, bursts, burst_lens, 3);
  FZ_CHECK(n == 3);

  exp = rtel_ctx_get_expiry(ctx);
  if (!defaults) {
    FZ_CHECK(exp != RTEL_TSTAMP_NONE);
  }
  if (exp != RTEL_TSTAMP_NONE) {
    FZ_CHECK(rtel_ctx_handle_expiry(ctx, exp) == 0);
    FZ_CHECK(rtel_ctx_handle_expiry(ctx, exp + 5000) == 0);
  }
  if (!defaults) {
    FZ_CHECK(st.nstats >= 1);
  }

#ifdef RTEL_END_FLUSH
  FZ_CHECK(rtel_ctx_flush(ctx, 1010000) == 0);
  /* the context stays usable after a flush */
  pi.ts = 1020000;
  FZ_CHECK(rtel_ctx_read_pkt(ctx, &pi, pkt, caplen) == 0);
  FZ_CHECK(rtel_ctx_flush(ctx, 1030000) == 0);
  pkts_fed = 5;
#endif

  memset(&stats, 0, sizeof(stats));
  FZ_CHECK(rtel_ctx_get_stats(ctx, &stats) == 0);
  fz_check_stats(&stats);
  FZ_CHECK(stats.pkts == pkts_fed);
  FZ_CHECK(stats.pkts_ts_backwards >= 1);
  FZ_CHECK(stats.pkts_roce == st.ncalls);

  /* no allocator call outside rtel_ctx_new() / rtel_ctx_del() */
  FZ_CHECK(alloc.calls == alloc_calls);
  rtel_ctx_del(ctx);
  FZ_CHECK(alloc.live == 0); /* rtel_ctx_del() freed everything */
  free(pkt_half);
  free(pkt);
  return 0;
}
