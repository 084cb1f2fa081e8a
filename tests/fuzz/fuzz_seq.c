/* SPDX-License-Identifier: MIT */
/*
 * Stateful fuzz harness: sequences of events through one context (flows,
 * messages, QP pairing, NVMe-oF queues, I/Os, joins, aggregates, the
 * polling scheduler, alarms, timers), with invariants checked as the
 * records come out and after every event, not only "no crash".
 *
 * Built two ways, like fuzz_decode.c:
 *  - with libFuzzer + ASan + UBSan by tests/fuzz/run-fuzz.sh (clang),
 *    straight from the sources in lib/ and the packet builder of
 *    tests/rtel_test_util.h (rtel_test_pkt.c, rtel_test_nvme.c, compiled
 *    with -DTU_NO_CHECK);
 *  - with the normal compiler into tests/fuzz/fuzz_seq_main (make check),
 *    which replays tests/fuzz/corpus-seq/ (tests/fuzz/gen-seq-corpus.py
 *    writes it from rtel-sim scenarios; regress-*.bin are the inputs of
 *    fixed findings).
 * FUZZ_SEQ_TRACE=1 in the environment prints each event, timer call and
 * record on stderr (e.g. tests/fuzz/fuzz_seq_main -n FILE).
 *
 * INPUT FORMAT (all multi-byte fields little-endian)
 *
 * A 32-byte header (zero-filled when the input is shorter), then events of
 * 16 bytes each (a trailing partial event is ignored). dt16 is a duration
 * (v & 0xfff) << 2 * (v >> 12) ns: 1 ns .. 73 min.
 *
 *  header
 *   [0]  flags: 0x01 RTEL_FLOW_DISABLE, 0x02 RTEL_FLOW_NO_EVICT,
 *        0x04 RTEL_NVME_DISABLE, 0x08 RTEL_NVME_NO_GUESS,
 *        0x10 RTEL_DECODE_VERIFY_ICRC, 0x20 hand packets over in bursts
 *        (rtel_ctx_read_pkts, up to 32), 0x40 nvme_ports {4420, 4421},
 *        0x80 settings.linktype RTEL_LINK_RAW
 *   [1]  max_flows 1 + v % 32        [2] max_qp_pairs v % 64 (0: default)
 *   [3]  max_nvme_queues 1 + v % 8   [4] max_ios 1 + v % 32
 *   [5]  max_io_joins v % 32 (0: default = max_ios)
 *   [6]  max_aggregates 1 + v % 8    [7] max_ports 1 + v % 8
 *   [8]  max_alarm_keys 1 + v % 16
 *   [9..10] flow_idle_timeout dt16   [11..12] flow_active_timeout dt16
 *   [13..14] io_timeout dt16         [15..16] io_join_window dt16
 *   [17..18] report_interval dt16    [19..20] stats_interval dt16
 *        (0 is the setting's default: 100 ms, none, 5 s, 1 s, none, none)
 *   [21] hash_seed
 *   [22] callback that fails (v % 16: 1 on_packet, 2 on_stats, 3 on_flow,
 *        4 on_message, 5 on_io, 6 on_segment, 7 on_io_aggregate, 8 on_slot,
 *        9 on_alarm; others: none) at its [23] + 1-th call
 *   [24] v % 32 != 0: first a trial rtel_ctx_new() whose (v % 32)-th
 *        allocation fails (it must fail cleanly, leaking nothing)
 *   [25] base time: < 0x80: 1.7e18 ns; else (v & 0x7f) ms (near zero)
 *   [26] & 1: the timed pair too (see TW: rtel_ctx_read_pkts_timed()
 *        against a per-packet timer loop)
 *   [26] & 0xfe, [27..31] reserved
 *
 *  event e[0..15]; type = e[0] & 0x0f
 *   0-7  PACKET  e[0] bits 4-5 observation point (0, 1, 2, 0xffffffff),
 *                bits 6-7 port bits 0-1; e[1] kind (% 16, below); e[2]
 *                bits 0-2 connection, bit 3 reverses the kind's direction,
 *                bits 4-7 variant; e[3] flags: 0x01 ECN CE, 0x02 FECN,
 *                0x04 BECN, 0x08 timestamp = clock - dt (an out-of-order
 *                packet; the clock stays), else clock += dt, 0x10 explicit
 *                PSN e[6..8], 0x20 capture cut to 40 + 2 * e[15] bytes,
 *                0x40 VLAN tag, 0x80 port bit 2; e[4..5] dt16; e[6] PSN
 *                offset (int8) from the direction's next PSN (unless
 *                explicit); e[9..10] CID (NVMe) or aux (CM: QID);
 *                e[11..12] length (payload bytes; NVMe command: SGL length
 *                / 64); e[13], e[14], e[15] per kind.
 *                Kinds (a direction's PSNs follow on from its last):
 *                 0 SEND (RC/UC/XRC, FIRST..ONLY, imm., inval.)
 *                 1 RDMA WRITE (RC/UC/XRC)  2 READ REQUEST (e[14]: span)
 *                 3 READ RESPONSE (PSNs from the last READ REQUEST)
 *                 4 ACK/NAK (variant: ACK, NAK seq, RNR, fatal, raw
 *                   syndrome e[13], ATOMIC ACK; PSN from the other way)
 *                 5 CNP  6 atomics, FLUSH, ATOMIC WRITE  7 UD/RD, MADs
 *                 8 RDMA CM (REQ, REP, RTU, DREQ, DREP, REJ, MRA, cut REQ;
 *                   e[13] service port, e[14] transaction id)
 *                 9 NVMe-oF command capsule (variant: read, write,
 *                   in-capsule write, SEND FIRST of one, flush, Connect
 *                   (QID e[14]), other Fabrics (fctype e[13]), invalidate
 *                   SGLs, Identify, Last Segment SGL list, raw opcode
 *                   e[13], not an SQE shape, ...; NSID e[13], SLBA e[14])
 *                10 capsule continuation (SEND MIDDLE / LAST)
 *                11 response capsule (CQE; status e[13..14]; SEND ONLY,
 *                   with Invalidate, wrong length, SEND LAST)
 *                12 read data: RDMA WRITE target -> host (RETH of the
 *                   CID's keyed SGL; e[15] & 0x7f: 4 KiB offset, 0x80:
 *                   wrong key; e[13]: DMA length / 4096)
 *                13 READ REQUEST of write data (RETH as above, e[14] span)
 *                14 READ RESPONSE of write data
 *                15 other (not RoCE, IP fragment, reserved opcode, BTH
 *                   version 1, bad UDP length, bad pad, garbage, other
 *                   UDP port)
 *                A keyed SGL of connection c and CID n has key
 *                0x10000 * (c + 1) + n and address 0x7f0000000000 +
 *                c << 32 + n << 20, so read data and READ REQUESTs name
 *                their command by CID. Payloads above 512 bytes are built
 *                as a mirror's copy cut short (lengths claim the rest).
 *   8    CONN    e[1] & 7 connection (e[1] & 8: both ends are hosts):
 *                e[2] bits 0-1 IP version (0, 1: 4, 2: 6, 3: RoCEv1),
 *                bits 2-3 host i, bits 4-5 target j (addresses as
 *                rtel-sim's: 10.1.0.(i + 1), 10.2.0.(j + 1), fd00:0:0:1::,
 *                fd00:0:0:2::), bit 6 raw IP frames, bit 7 VLAN;
 *                e[3..5] host QPN, e[6..8] target QPN, e[9..11] host's
 *                next PSN, e[12..14] target's next PSN, e[15] UDP source
 *                port
 *   9    TIMER   e[1] % 6: handle_expiry at 0 get_expiry(), 1 clock + dt,
 *                2 clock - dt, 3 get_expiry() - 1 (must do nothing), 4 an
 *                embedder's loop up to clock + dt, 5 clock + 1 h;
 *                e[2..3] dt16; e[4] & 1: the clock moves to that time
 *   10   SCHED   rtel_ctx_set_schedule at clock (+ e[7..8] dt16): e[1] % 3
 *                mode (2: invalid), e[2] % 5 ports per slot, e[3..4] slot
 *                dt16, e[5..6] alarm priority dt16
 *   11   PORT    rtel_ctx_add_port: id e[1] & 7 (0xffffffff if e[1] &
 *                0x80), role e[2] % 5, name e[3] % 3 (none, short, long)
 *   12   ROLE    rtel_ctx_set_obs_role: observation point e[1] & 3 (e[1]
 *                itself if e[1] & 0x80), role e[2] % 5
 *   13   ALARM   e[1] & 1: threshold / baseline; metric e[2] % 10, scope
 *                e[3] % 4, value / k from a table by e[4] & 31 (0, 1e3,
 *                1e5, ..., 2.5e4, 0.01, 0.5, ..., -1, NaN), warmup e[5] % 8
 *   14   FLUSH   rtel_ctx_flush at clock + dt16 e[1..2]
 *   15   TIME    clock += dt16 e[1..2] (-= if e[3] & 1)
 *
 * At the end the harness flushes at the clock (and checks a second flush
 * delivers nothing), deletes the context and checks the allocator.
 *
 * INVARIANTS (each violation abort()s with its line, so libFuzzer reports
 * it). From rocetel.h and rtel-metrics(7); "mono" marks those that hold
 * only while every time handed to the library (packets, timers, flush,
 * schedule, ports) has been non-decreasing.
 *  memory   every allocation happens inside rtel_ctx_new(), none after it
 *           returns; the bytes allocated stay below a bound derived from
 *           the documented per-entry costs (fs_mem_bound()); rtel_ctx_del()
 *           frees everything; a failing allocation in rtel_ctx_new()
 *           returns RTEL_ERR_NOMEM and leaks nothing.
 *  counters pkts = pkts_roce + pkts_not_roce + pkts_malformed +
 *           pkts_unscheduled = packets handed over; pkts_malformed = sum of
 *           malformed[]; pkts_roce = on_packet calls; messages, segments,
 *           slots, alarms_raised/cleared, ios_<state> = the records of
 *           each kind delivered; ios_untracked <= ios_evicted (with
 *           RTEL_NVME_NO_GUESS: the I/Os of a guessed queue end silently);
 *           ios_created = ios_complete + ios_timeout + ios_evicted +
 *           ios_truncated + ios_unconfirmed + ios_active (each I/O ends
 *           once), ios_active <= max_ios, ios_unconfirmed = 0 with
 *           RTEL_NVME_NO_GUESS;
 *           flows_evicted >= evicted flow records (= without an active
 *           timeout); flows_created - flows_active lies between the
 *           terminal flow records and all flow records (= all without an
 *           active timeout: a flow restarted by the active timeout and
 *           silent since ends without a record); flows_active <=
 *           max_flows; the counters never decrease; disabled modules
 *           count and deliver nothing.
 *  exactly once  after the final flush: flows_active = ios_active = 0; the
 * data packets on_packet saw = packets of all flow records +
 *           flows_untracked_pkts (bytes likewise when nothing was
 *           untracked); messages of all flow records = message records;
 *           get_expiry() is what the polling, report and statistics
 *           periods alone arm (so no flow or I/O is left); an I/O record
 *           names a command the harness sent (observation point, time,
 *           queue, CID, opcode) and no command yields more I/O records
 *           than copies of it were sent; each complete I/O joins at most
 *           one segment.
 *  records  flows and messages: last_ts >= first_ts, fct = last - first,
 *           packets >= 1, bytes >= retx_bytes, packets >= retx_packets,
 *           retx_after_nak + retx_after_timeout <= retx_packets, fet_bps
 *           = 0 when fct = 0, READ RESPONSE flows carry nothing else, the
 *           first and last packets are data packets the harness sent on
 *           that key; I/Os: iol = t_rsp - t_cmd when both are set, the
 *           durations follow their definitions, a state's timestamps are
 *           set or NONE as it implies, (mono) no negative duration, data
 *           times within [t_cmd, t_rsp]; segments: compute + network +
 *           storage = iol1, rtt = iol1 - iol2, two different points whose
 *           roles allow the join, iol1/iol2 those of two complete I/O
 *           records; aggregates: min <= p50 <= p90 <= p99 <= p999 <= max,
 *           min <= mean <= max, empty ones all zero, errors <= count,
 *           iol.count = count, dal/dpl counts <= count, reads have no DPL,
 *           each report sums to the complete (and timed-out) reads and
 *           writes delivered in its period (when none were dropped),
 *           period bounds as the report interval says, (mono) start <=
 *           end; coverage windows ordered, and (mono) containing the
 *           record's first packet / command (its end: unless a packet
 *           came at or past the pending slot boundary before the timers
 *           ran it); alarms: raised and cleared
 *           alternate per (metric, scope, kind, key), only for a metric
 *           and scope with a threshold (baseline) set, only after a record
 *           that is judged, with the value on the right side of the
 *           threshold, ts and record pointer of that record.
 *  timers   after handle_expiry(now) returns, get_expiry() > now;
 *           handle_expiry(get_expiry() - 1) delivers nothing; an
 *           embedder's loop always makes progress; on_stats and on_slot
 *           come exactly when the statistics period and the polling slots
 *           say, with the documented boundaries; rtel_ctx_flush() first
 *           runs the timers due, as handle_expiry() would.
 *  ports    every packet on_packet sees is on a measured port; a slot
 *           event's started and stopped lists are disjoint and
 *           registered; polling measures min(P, N) registered ports and
 *           no port waits longer than the documented bound; add_port,
 *           set_schedule, set_obs_role, set_threshold and set_baseline
 *           accept or refuse exactly as documented.
 *  failure  after a callback fails, no other callback runs; the call
 *           returns RTEL_ERR_CALLBACK_FAILURE (rtel_ctx_read_pkts: the
 *           number of packets before the failing one), then every call
 *           RTEL_ERR_INVALID_STATE, get_expiry() NONE.
 * The harness keeps its own times below 2^63 ns (no timer sum overflows).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rocetel/rocetel.h>

#include "rtel_ctx.h"   /* the shadow's burst path forced on (SH.ctx->ahead) */
#include "rtel_parse.h" /* the decoder's fast path against its walk */

#include "rtel_test_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FS_HDR 32
#define FS_EV 16
#define FS_MAX_EVENTS 600
#define FS_LOG 640
/* bursts longer than the look-ahead window, so the window wraps */
#define FS_BATCH 32
_Static_assert(FS_BATCH >= 4 * RTEL__AHEAD, "a burst outruns the look-ahead");
#define FS_BUILD_MAX 512 /* payload bytes built; more are claimed only */
#define FS_NCONN 8
#define FS_MAXBLK 64
#define FS_AKEYS 64
#define FS_PORTS 16
#define FS_NONE RTEL_TSTAMP_NONE

/* ------------------------------------------------------------ failing */

static void fs_fail(const char *what, int line) {
  fprintf(stderr, "fuzz_seq.c:%d: invariant violated: %s\n", line, what);
  abort();
}

/* FUZZ_SEQ_TRACE=1 in the environment: each event and record on stderr */
static int fs_trace = -1;
#define FS_TRACE(...)                                                         \
  do {                                                                        \
    if (fs_trace) {                                                           \
      fprintf(stderr, __VA_ARGS__);                                           \
    }                                                                         \
  } while (0)

#define FS_CHECK(cond)                                                        \
  do {                                                                        \
    if (!(cond)) {                                                            \
      fs_fail(#cond, __LINE__);                                               \
    }                                                                         \
  } while (0)

/* ------------------------------------------------------------ state */

typedef struct fs_conn {
  tu_nvq q;           /* addresses, QPNs, next PSN of each direction */
  int raw;            /* frames without Ethernet (LINKTYPE_RAW) */
  int vlan;           /* an 802.1Q tag */
  uint32_t rr_psn[2]; /* next READ RESPONSE PSN travelling direction d */
} fs_conn;

/* A packet the harness sent. */
typedef struct fs_log {
  rtel_tstamp ts;
  uint32_t obs;
  uint32_t dqpn;
  uint8_t src[16];
  uint8_t dst[16];
  uint8_t opcode;
  uint8_t npay;    /* payload bytes kept in pay[] */
  uint8_t pay[16]; /* the first payload bytes as built */
  uint32_t paylen; /* payload length the headers claim */
} fs_log;

typedef struct fs_io {
  rtel_io_record r;
  int used; /* joined into a segment */
} fs_io;

typedef struct fs_akey {
  uint32_t metric, scope, kind, obs, port;
  uint8_t src[16], dst[16];
  int raised;
} fs_akey;

typedef struct fs_blk {
  void *p;
  size_t n;
} fs_blk;

enum {
  CB_PACKET = 1,
  CB_STATS,
  CB_FLOW,
  CB_MSG,
  CB_IO,
  CB_SEG,
  CB_AGG,
  CB_SLOT,
  CB_ALARM,
  CB_N
};

static struct fs {
  rtel_ctx *ctx;
  rtel_settings set;
  unsigned hflags;
  int failed;    /* a callback failed: the context is unusable */
  int cb_failed; /* ... during the current call */
  unsigned fail_cb, fail_at;
  unsigned long cb_calls[CB_N];
  unsigned long ncb; /* callbacks of any kind */

  /* time */
  rtel_tstamp clock, tmax;
  int mono, any_time;
  rtel_tstamp first_pkt; /* NONE before the first packet */

  /* allocator */
  fs_blk blk[FS_MAXBLK];
  unsigned nblk;
  size_t live, total;
  int frozen;
  long alloc_calls, fail_alloc_at;

  /* the world */
  fs_conn conn[FS_NCONN];
  fs_log log[FS_LOG];
  unsigned nlog;

  /* packets being batched for rtel_ctx_read_pkts */
  tb tbs[FS_BATCH];
  rtel_pkt_info pis[FS_BATCH];
  const uint8_t *pkts[FS_BATCH];
  size_t lens[FS_BATCH];
  unsigned nbatch;
  const rtel_pkt_info *batch_base; /* during a read_pkts call */
  long batch_last;                 /* index of the last on_packet pi */

  /* tallies of what the callbacks delivered */
  uint64_t n_pkts, n_onpkt, n_data, data_bytes;
  uint64_t n_flow[8], flow_pkts, flow_bytes, flow_msgs;
  uint64_t n_msg, n_io[8], n_seg, n_agg, n_slot, n_raised, n_cleared;
  rtel_ctx_stats prev;

  /* last delivered records, for alarms */
  const void *last_flow;
  const void *last_io;
  int last_judged; /* that record may raise alarms */
  int last_kind;   /* CB_FLOW or CB_IO */
  rtel_flow_record last_fr;
  rtel_io_record last_ir;

  /* complete I/O records, for segments */
  fs_io cio[FS_LOG];
  unsigned ncio;

  /* alarms */
  double thr[10][4];
  double bk[10][4];
  fs_akey akeys[FS_AKEYS];
  unsigned nakeys;

  /* observation point roles */
  uint32_t role_obs[RTEL_MAX_OBS_ROLES];
  uint32_t role[RTEL_MAX_OBS_ROLES];
  unsigned nroles;

  /* ports and schedule */
  uint32_t port_id[FS_PORTS];
  unsigned nports;
  uint32_t mode, per;
  rtel_tstamp slot_ns, prio;
  rtel_tstamp sched_next;
  int sched_late; /* a packet came at or past the pending slot boundary */
  int64_t last_slot;
  int64_t port_last[FS_PORTS]; /* last slot measured (or before reset) */
  int fair_ok;
  int exp_slot; /* an on_slot is expected in this call */
  rtel_tstamp exp_slot_start, exp_slot_end;
  int got_slot;

  /* statistics periods */
  rtel_tstamp st_next;
  int exp_stats, got_stats;
  rtel_tstamp exp_stats_end;

  /* aggregate periods */
  rtel_tstamp agg_start, agg_next;
  int exp_rep; /* reports expected in this call (0..2) */
  rtel_tstamp rep_start[2], rep_end[2];
  int rep_idx; /* which expected report the aggregates belong to */
  uint64_t pend_cnt, pend_to, pend_err; /* records since the last report */
  uint64_t rep_cnt, rep_to, rep_err;    /* of the reports of this call */
  uint64_t drop_at_rep; /* aggregates_dropped at the last report */
} F;

/* ------------------------------------------------------------ helpers */

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le24(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
}

static rtel_tstamp dt16(uint16_t v) {
  return (rtel_tstamp)(v & 0xfffu) << (2 * (v >> 12));
}

static const uint32_t obs_ids[4] = {0, 1, 2, 0xffffffffu};

/* Every time handed to the library goes through here. */
static void fs_time(rtel_tstamp t) {
  if (F.any_time && t < F.tmax) {
    F.mono = 0;
  }
  if (!F.any_time || t > F.tmax) {
    F.tmax = t;
  }
  F.any_time = 1;
}

/* ------------------------------------------------------------ allocator */

static void fs_blk_add(void *p, size_t n) {
  FS_CHECK(F.nblk < FS_MAXBLK);
  F.blk[F.nblk].p = p;
  F.blk[F.nblk].n = n;
  F.nblk++;
  F.live += n;
  F.total += n;
}

static int fs_alloc_ok(void *ud) {
  FS_CHECK(ud == &F);
  /* "the packet path never calls the allocator": nothing after setup */
  FS_CHECK(!F.frozen);
  F.alloc_calls++;
  return !(F.fail_alloc_at && F.alloc_calls == F.fail_alloc_at);
}

static void *fs_malloc(size_t n, void *ud) {
  void *p;
  if (!fs_alloc_ok(ud) || (p = malloc(n ? n : 1)) == NULL) {
    return NULL;
  }
  fs_blk_add(p, n);
  return p;
}

static void *fs_calloc(size_t k, size_t n, void *ud) {
  void *p;
  if (!fs_alloc_ok(ud) || (p = calloc(k ? k : 1, n ? n : 1)) == NULL) {
    return NULL;
  }
  fs_blk_add(p, k * n);
  return p;
}

static void fs_free(void *p, void *ud) {
  unsigned i;
  FS_CHECK(ud == &F);
  if (p == NULL) {
    return;
  }
  for (i = 0; i < F.nblk; i++) {
    if (F.blk[i].p == p) {
      F.live -= F.blk[i].n;
      F.blk[i] = F.blk[--F.nblk];
      free(p);
      return;
    }
  }
  FS_CHECK(!"free of a pointer the allocator did not hand out");
}

static void *fs_realloc(void *p, size_t n, void *ud) {
  void *q;
  (void)p;
  (void)n;
  FS_CHECK(ud == &F);
  FS_CHECK(!"realloc: the library sizes its tables once");
  q = NULL;
  return q;
}

/*
 * The most rtel_ctx_new() may allocate for |s|, from the per-entry costs
 * that rocetel.h and rtel_settings(3) document (x86_64), with room for the
 * power-of-two rounding of hash buckets and of the PSN index:
 *   flow       448-byte entry + 32 bytes of PSN index (x2 rounding) + buckets
 *   QP pairing 112-byte entry + buckets (16)
 *   I/O        232 bytes, 456 with its max_io_joins share, + buckets (16)
 *   aggregate  "about 34 KiB" per key
 * Queues, ports and alarm keys have no documented cost: 512, 128 and 128
 * bytes each (measured 508, 96, 104 in 0.1). 64 KiB of fixed part (the
 * context itself is about 9 KiB).
 */
static size_t fs_mem_bound(const rtel_settings *s) {
  size_t nf = s->max_flows ? s->max_flows : 4096;
  size_t np = s->max_qp_pairs ? s->max_qp_pairs : 2 * nf;
  size_t nq = s->max_nvme_queues ? s->max_nvme_queues : 1024;
  size_t ni = s->max_ios ? s->max_ios : 16384;
  size_t nj = s->max_io_joins ? s->max_io_joins : ni;
  size_t na = s->max_aggregates ? s->max_aggregates : 128;
  size_t npt = s->max_ports ? s->max_ports : 256;
  size_t nk = s->max_alarm_keys ? s->max_alarm_keys : 1024;
  size_t b = 64 * 1024 + npt * 128 + nk * 128;
  if (!(s->flow_flags & RTEL_FLOW_DISABLE)) {
    /* rocetel.h's max_flows (measured by bench_flow): a 448-byte entry,
     * its bucket (4 bytes, buckets a power of two >= 2 x max_flows: at
     * most 16 per flow), the PSN index (8-byte slots, a power of two >=
     * 4 x max_flows and >= 8: at most 64 per flow); a 112-byte pairing
     * entry and
     * its bucket (<= 16); the 128-byte open messages; each table aligned
     * to 64 bytes inside its block */
    size_t nm = s->max_open_msgs ? s->max_open_msgs : 2 * nf;
    b += nf * (448 + 16 + 64) + np * (112 + 16) + nm * 128 + 8 * 64;
  }
  if (!(s->nvme_flags & RTEL_NVME_DISABLE)) {
    b += ni * (232 + 16) + nj * (456 - 232 + 16) + na * (34 * 1024 + 64) +
         nq * 512;
  }
  return b;
}

static const rtel_mem fs_mem = {&F, fs_malloc, fs_free, fs_calloc, fs_realloc};

/* ------------------------------------------------------------ callbacks */

/* Counts a callback; returns non-zero when it is the one to fail. */
static int fs_cb(unsigned id, rtel_ctx *ctx, void *ud) {
  FS_CHECK(ud == &F);
  FS_CHECK(ctx == F.ctx);
  /* no callback after the context failed */
  FS_CHECK(!F.failed);
  FS_CHECK(!F.cb_failed);
  F.ncb++;
  F.cb_calls[id]++;
  FS_TRACE("    cb %u\n", id);
  if (id == F.fail_cb && F.cb_calls[id] == F.fail_at) {
    F.cb_failed = 1;
    return 1;
  }
  return 0;
}

/* The packet log: packets with this observation point and time. */
static int fs_log_data(uint32_t obs, rtel_tstamp ts, const uint8_t *src,
                       const uint8_t *dst, uint32_t dqpn, int resp) {
  unsigned i;
  for (i = 0; i < F.nlog; i++) {
    const fs_log *l = &F.log[i];
    uint8_t op = l->opcode & 0x1f;
    int isresp = op >= 0x0D && op <= 0x10;
    if (l->ts == ts && l->obs == obs && l->dqpn == dqpn &&
        memcmp(l->src, src, 16) == 0 && memcmp(l->dst, dst, 16) == 0 &&
        isresp == resp) {
      return 1;
    }
  }
  return 0;
}

/* Is |opcode| a data packet (SEND, RDMA WRITE, READ RESPONSE of RC, UC,
 * XRC), as rtel-metrics(7) defines them? */
static int fs_is_data(uint8_t op) {
  uint8_t lo = op & 0x1f;
  switch (op >> 5) {
  case 0: /* RC */
  case 5: /* XRC */
    return lo <= 0x0B || (lo >= 0x0D && lo <= 0x10) || lo == 0x16 ||
           lo == 0x17;
  case 1: /* UC */
    return lo <= 0x0B;
  default:
    return 0;
  }
}

static void fs_coverage(rtel_tstamp start, rtel_tstamp end,
                        rtel_tstamp first) {
  if (end != FS_NONE) {
    FS_CHECK(start != FS_NONE);
  }
  if (F.mono && start != FS_NONE) {
    FS_CHECK(end == FS_NONE || start <= end);
    /* "Nothing outside the window was seen" (its end: if the slot
     * timers ran on time, before a packet past the boundary came) */
    FS_CHECK(first >= start);
    FS_CHECK(end == FS_NONE || first <= end || F.sched_late);
  }
}

/* ------------------------------------------------------------ shadow */

/* A second context with the same settings and the same calls, but no
 * on_packet: the library then decodes a burst ahead of its turn
 * (rtel_ctx_read_pkts) with the lighter decoder. Every record it delivers
 * must equal, in order, the one the checked context delivers: each side
 * folds its records into one running hash per callback (pointers left
 * out, the arrays they point to folded in). When a callback is made to
 * fail, the shadow's fails at the same call (sh_fail()), so both must stop
 * at the same packet with the same return value; off only when on_packet
 * is the one to fail (the shadow has none). */
enum {
  SH_STATS,
  SH_FLOW,
  SH_MSG,
  SH_IO,
  SH_SEG,
  SH_AGG,
  SH_SLOT,
  SH_ALARM,
  SH_N
};

static struct {
  rtel_ctx *ctx;
  int on;
  /* [0] the checked context, [1] the shadow, [2] and [3] the timed pair */
  uint64_t sum[4][SH_N];
  uint64_t n[4][SH_N];
  unsigned calls[SH_N]; /* the shadow's callbacks, for its failing one */
} SH;

/* The timed pair (header [26] & 1): two more contexts like the shadow that
 * run the timers inside the packet stream. [0] gets each packet alone,
 * after rtel_ctx_get_expiry() / rtel_ctx_handle_expiry() at its time (the
 * loop rtel-analyze runs); [1] the same packets as one
 * rtel_ctx_read_pkts_timed() call per burst, with the look-ahead forced
 * on. Both get every other call the checked context gets; their records,
 * return values and final counters must be the same. Their callbacks
 * never fail. */
static struct {
  rtel_ctx *ctx[2];
  int on;
} TW;
static const int tw_side[2] = {2, 3};

/* The shadow's callback of |kind| fails where the checked context's does:
 * at the same call of the same callback (CB_STATS + kind). */
static int sh_fail(unsigned kind) {
  return ++SH.calls[kind] == F.fail_at && F.fail_cb == CB_STATS + kind;
}

static uint64_t sh_fnv(uint64_t h, const void *p, size_t n) {
  const uint8_t *b = p;
  size_t i;
  for (i = 0; i < n; i++) {
    h = (h ^ b[i]) * UINT64_C(0x100000001b3);
  }
  return h;
}

static void sh_fold(int side, unsigned kind, const void *rec, size_t len) {
  uint64_t *h = &SH.sum[side][kind];
  if (side < 2 ? !SH.on : !TW.on) {
    return;
  }
  if (SH.n[side][kind]++ == 0) {
    *h = UINT64_C(0xcbf29ce484222325);
  }
  if (kind == SH_SLOT) {
    rtel_slot_event ev = *(const rtel_slot_event *)rec;
    *h = sh_fnv(*h, ev.started, ev.nstarted * sizeof(uint32_t));
    *h = sh_fnv(*h, ev.stopped, ev.nstopped * sizeof(uint32_t));
    ev.started = ev.stopped = NULL;
    *h = sh_fnv(*h, &ev, sizeof(ev));
  } else if (kind == SH_ALARM) {
    rtel_alarm al = *(const rtel_alarm *)rec;
    al.flow = NULL;
    al.io = NULL;
    *h = sh_fnv(*h, &al, sizeof(al));
  } else {
    *h = sh_fnv(*h, rec, len);
  }
}

static int sh_on_stats(rtel_ctx *ctx, rtel_tstamp end,
                       const rtel_ctx_stats *st, void *ud) {
  int side = ud ? *(const int *)ud : 1;
  (void)ctx;
  sh_fold(side, SH_STATS, &end, sizeof(end));
  sh_fold(side, SH_STATS, st, sizeof(*st));
  return side == 1 && sh_fail(SH_STATS);
}
#define SH_CB(name, type, kind)                                               \
  static int name(rtel_ctx *ctx, const type *r, void *ud) {                   \
    int side = ud ? *(const int *)ud : 1;                                     \
    (void)ctx;                                                                \
    sh_fold(side, kind, r, sizeof(*r));                                       \
    return side == 1 && sh_fail(kind);                                        \
  }
SH_CB(sh_on_flow, rtel_flow_record, SH_FLOW)
SH_CB(sh_on_msg, rtel_msg_record, SH_MSG)
SH_CB(sh_on_io, rtel_io_record, SH_IO)
SH_CB(sh_on_seg, rtel_segment_record, SH_SEG)
SH_CB(sh_on_agg, rtel_io_aggregate, SH_AGG)
SH_CB(sh_on_slot, rtel_slot_event, SH_SLOT)
SH_CB(sh_on_alarm, rtel_alarm, SH_ALARM)

static const rtel_callbacks sh_callbacks = {
    NULL,      sh_on_stats, sh_on_flow, sh_on_msg,  sh_on_io,
    sh_on_seg, sh_on_agg,   sh_on_slot, sh_on_alarm};

/* Both contexts' records so far were the same. */
static void sh_compare(void) {
  unsigned k;
  if (!SH.on) {
    return;
  }
  for (k = 0; k < SH_N; k++) {
    FS_CHECK(SH.n[0][k] == SH.n[1][k]);
    FS_CHECK(SH.sum[0][k] == SH.sum[1][k]);
  }
}

/* The timed pair's records so far were the same. */
static void tw_compare(void) {
  unsigned k;
  for (k = 0; k < SH_N; k++) {
    FS_CHECK(SH.n[2][k] == SH.n[3][k]);
    FS_CHECK(SH.sum[2][k] == SH.sum[3][k]);
  }
}

/* The shadow gets what the checked context got (|rv|: what that returned;
 * the shadow must return the same). */
#define SH_PKT_DO(call, rv)                                                   \
  do {                                                                        \
    if (SH.on) {                                                              \
      rtel_ctx *sctx_ = SH.ctx;                                               \
      FS_CHECK((call) == (rv));                                               \
      (void)sctx_;                                                            \
    }                                                                         \
  } while (0)
/* ... and so does the timed pair (whose two must return the same). */
#define SH_DO(call, rv)                                                       \
  do {                                                                        \
    SH_PKT_DO(call, rv);                                                      \
    if (TW.on) {                                                              \
      rtel_ctx *sctx_ = TW.ctx[0];                                            \
      long long tw_a_ = (long long)(call);                                    \
      sctx_ = TW.ctx[1];                                                      \
      FS_CHECK((long long)(call) == tw_a_);                                   \
    }                                                                         \
  } while (0)

/* Packets for the timed pair (see TW). */
static void tw_packets(const rtel_pkt_info *pis, const uint8_t *const *pkts,
                       const size_t *lens, size_t n) {
  size_t i;
  if (!TW.on || n == 0) {
    return;
  }
  for (i = 0; i < n; i++) {
    if (rtel_ctx_get_expiry(TW.ctx[0]) <= pis[i].ts) {
      FS_CHECK(rtel_ctx_handle_expiry(TW.ctx[0], pis[i].ts) == 0);
    }
    FS_CHECK(rtel_ctx_read_pkt(TW.ctx[0], &pis[i], pkts[i], lens[i]) == 0);
  }
  FS_CHECK(rtel_ctx_read_pkts_timed(TW.ctx[1], pis, pkts, lens, n) ==
           (rtel_ssize)n);
  tw_compare();
}

static int fs_on_packet(rtel_ctx *ctx, const rtel_pkt_info *pi,
                        const rtel_pkt_hd *hd, const uint8_t *pkt,
                        size_t pktlen, void *ud) {
  rtel_ctx_stats st;
  int rv = fs_cb(CB_PACKET, ctx, ud);
  (void)pkt;
  (void)pktlen;
  F.n_onpkt++;
  if (F.batch_base != NULL) {
    long idx = pi - F.batch_base;
    FS_CHECK(idx >= 0 && idx < (long)F.nbatch && idx >= F.batch_last);
    F.batch_last = idx;
  }
  FS_CHECK(hd->flags & RTEL_HD_F_ROCE);
  /* admitted: its port is measured now */
  FS_CHECK(rtel_ctx_port_measured(ctx, pi->port) == 1);
  /* const functions may be called from a callback */
  FS_CHECK(rtel_ctx_get_stats(ctx, &st) == 0);
  FS_CHECK(st.pkts_roce == F.n_onpkt);
  if (!(hd->flags &
        (RTEL_HD_F_UNKNOWN_OPCODE | RTEL_HD_F_UNKNOWN_TVER | RTEL_HD_F_CM)) &&
      (hd->flags & RTEL_HD_F_BTH) && fs_is_data(hd->opcode)) {
    F.n_data++;
    F.data_bytes += hd->payload_len;
  }
  return rv;
}

static int fs_on_stats(rtel_ctx *ctx, rtel_tstamp end,
                       const rtel_ctx_stats *st, void *ud) {
  rtel_ctx_stats now;
  int rv = fs_cb(CB_STATS, ctx, ud);
  sh_fold(0, SH_STATS, &end, sizeof(end));
  sh_fold(0, SH_STATS, st, sizeof(*st));
  FS_TRACE("    stats %llu\n", (unsigned long long)end);
  FS_CHECK(F.exp_stats && !F.got_stats);
  F.got_stats = 1;
  FS_CHECK(end == F.exp_stats_end);
  FS_CHECK(rtel_ctx_get_stats(ctx, &now) == 0);
  FS_CHECK(memcmp(&now, st, sizeof(now)) == 0);
  return rv;
}

static int fs_on_flow(rtel_ctx *ctx, const rtel_flow_record *r, void *ud) {
  int rv = fs_cb(CB_FLOW, ctx, ud);
  int resp = (r->ops & RTEL_OP_READ_RESP) != 0;
  sh_fold(0, SH_FLOW, r, sizeof(*r));
  FS_CHECK(!(F.set.flow_flags & RTEL_FLOW_DISABLE));
  FS_CHECK(r->end >= RTEL_END_IDLE && r->end <= RTEL_END_TRUNCATED);
  F.n_flow[r->end]++;
  FS_TRACE("    flow msgs %llu obs %u dqpn %06x end %u pkts %llu first %llu "
           "last %llu "
           "port %u cov %llu..%llu\n",
           (unsigned long long)r->messages, r->obs, r->dqpn, r->end,
           (unsigned long long)r->packets, (unsigned long long)r->first_ts,
           (unsigned long long)r->last_ts, r->port,
           (unsigned long long)r->coverage_start,
           (unsigned long long)r->coverage_end);
  F.flow_pkts += r->packets;
  F.flow_bytes += r->bytes;
  F.flow_msgs += r->messages;
  FS_CHECK(r->packets >= 1);
  FS_CHECK(r->last_ts >= r->first_ts);
  FS_CHECK(r->fct == r->last_ts - r->first_ts);
  FS_CHECK(r->bytes >= r->retx_bytes);
  FS_CHECK(r->packets >= r->retx_packets);
  FS_CHECK(r->retx_after_nak + r->retx_after_timeout <= r->retx_packets);
  FS_CHECK(r->fct != 0 || r->fet_bps == 0);
  FS_CHECK(r->ops != 0 && (r->ops & ~7u) == 0);
  /* READ RESPONSEs are a flow of their own */
  FS_CHECK(!resp || r->ops == RTEL_OP_READ_RESP);
  FS_CHECK((r->flags & ~(uint32_t)(RTEL_FLOW_F_PAIRED | RTEL_FLOW_F_IPV6 |
                                   RTEL_FLOW_F_VLAN | RTEL_FLOW_F_LOST_LB |
                                   RTEL_FLOW_F_RESPONSE)) == 0);
  /* the class of the key: set on READ RESPONSE flows, and only there */
  FS_CHECK(((r->flags & RTEL_FLOW_F_RESPONSE) != 0) ==
           (r->ops == RTEL_OP_READ_RESP));
  FS_CHECK(((r->flags & RTEL_FLOW_F_PAIRED) != 0) ==
           (r->peer_qpn != RTEL_QPN_NONE));
  FS_CHECK(r->retx_ratio >= 0 && r->retx_ratio <= 1);
  FS_CHECK(r->dqpn <= 0xffffffu);
  FS_CHECK(r->reserved2 == 0);
  FS_CHECK(fs_log_data(r->obs, r->first_ts, r->src, r->dst, r->dqpn, resp));
  FS_CHECK(fs_log_data(r->obs, r->last_ts, r->src, r->dst, r->dqpn, resp));
  fs_coverage(r->coverage_start, r->coverage_end, r->first_ts);
  if (r->end == RTEL_END_TRUNCATED) {
    /* cut by a slot boundary: the window has ended */
    FS_CHECK(r->coverage_end != FS_NONE);
  }
  F.last_flow = r;
  F.last_fr = *r;
  F.last_kind = CB_FLOW;
  F.last_judged = r->end != RTEL_END_TRUNCATED && r->end != RTEL_END_EVICTED;
  return rv;
}

static int fs_on_message(rtel_ctx *ctx, const rtel_msg_record *m, void *ud) {
  int rv = fs_cb(CB_MSG, ctx, ud);
  sh_fold(0, SH_MSG, m, sizeof(*m));
  FS_CHECK(!(F.set.flow_flags & RTEL_FLOW_DISABLE));
  F.n_msg++;
  FS_TRACE("    message obs %u dqpn %06x op %u pkts %llu\n", m->obs, m->dqpn,
           m->op, (unsigned long long)m->packets);
  FS_CHECK(m->op == RTEL_OP_SEND || m->op == RTEL_OP_WRITE ||
           m->op == RTEL_OP_READ_RESP);
  FS_CHECK(m->packets >= 1);
  FS_CHECK(m->last_ts >= m->first_ts);
  FS_CHECK(m->fct == m->last_ts - m->first_ts);
  FS_CHECK(m->bytes >= m->retx_bytes);
  FS_CHECK(m->packets >= m->retx_packets);
  FS_CHECK(m->op == RTEL_OP_WRITE || m->reth_len == 0);
  FS_CHECK(m->first_psn <= 0xffffffu && m->last_psn <= 0xffffffu);
  FS_CHECK((m->flags &
            ~(uint32_t)(RTEL_FLOW_F_PAIRED | RTEL_FLOW_F_IPV6 |
                        RTEL_FLOW_F_VLAN | RTEL_FLOW_F_LOST_LB |
                        RTEL_MSG_F_INCOMPLETE | RTEL_FLOW_F_RESPONSE)) == 0);
  FS_CHECK(((m->flags & RTEL_FLOW_F_RESPONSE) != 0) ==
           (m->op == RTEL_OP_READ_RESP));
  FS_CHECK(fs_log_data(m->obs, m->first_ts, m->src, m->dst, m->dqpn,
                       m->op == RTEL_OP_READ_RESP));
  FS_CHECK(fs_log_data(m->obs, m->last_ts, m->src, m->dst, m->dqpn,
                       m->op == RTEL_OP_READ_RESP));
  fs_coverage(m->coverage_start, m->coverage_end, m->first_ts);
  return rv;
}

/* Copies of the command capsule an I/O record names: SEND FIRST/ONLY
 * packets at t_cmd on the record's queue carrying its CID and opcode. */
static unsigned fs_log_cmds(const rtel_io_record *r) {
  unsigned i, n = 0;
  for (i = 0; i < F.nlog; i++) {
    const fs_log *l = &F.log[i];
    uint8_t op = l->opcode;
    if (l->ts == r->t_cmd && l->obs == r->obs && (op == 0x00 || op == 0x04) &&
        l->npay >= 4 && l->dqpn == r->target_qpn &&
        memcmp(l->src, r->host, 16) == 0 &&
        memcmp(l->dst, r->target, 16) == 0 && le16(l->pay + 2) == r->cid &&
        l->pay[0] == r->opcode) {
      n++;
    }
  }
  return n;
}

/* A packet at |ts| from the target to the host of |r| (the other way
 * with |to_target|), of one of the |nops| opcodes in |ops|. */
static int fs_log_t2h(const rtel_io_record *r, rtel_tstamp ts,
                      const uint8_t *ops, unsigned nops, int to_target) {
  unsigned i, k;
  for (i = 0; i < F.nlog; i++) {
    const fs_log *l = &F.log[i];
    if (l->ts != ts || l->obs != r->obs) {
      continue;
    }
    if (to_target ? (memcmp(l->src, r->host, 16) != 0 ||
                     memcmp(l->dst, r->target, 16) != 0)
                  : (memcmp(l->src, r->target, 16) != 0 ||
                     memcmp(l->dst, r->host, 16) != 0)) {
      continue;
    }
    for (k = 0; k < nops; k++) {
      if (l->opcode == ops[k]) {
        return 1;
      }
    }
  }
  return 0;
}

static unsigned fs_io_seen(const rtel_io_record *r) {
  unsigned i, n = 0;
  for (i = 0; i < F.ncio; i++) {
    const rtel_io_record *c = &F.cio[i].r;
    if (c->t_cmd == r->t_cmd && c->obs == r->obs && c->cid == r->cid &&
        c->opcode == r->opcode && c->target_qpn == r->target_qpn &&
        memcmp(c->host, r->host, 16) == 0 &&
        memcmp(c->target, r->target, 16) == 0) {
      n++;
    }
  }
  return n;
}

static void fs_check_io(const rtel_io_record *r) {
  static const uint8_t rsp_ops[] = {0x04, 0x17};
  static const uint8_t wr_ops[] = {0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B};
  static const uint8_t rr_ops[] = {0x0D, 0x0E, 0x0F, 0x10};
  static const uint8_t rq_ops[] = {0x0C};
  int64_t none = RTEL_DURATION_NONE;

  FS_CHECK(r->reserved1 == 0 && r->reserved2 == 0);
  FS_CHECK((r->flags & ~(uint32_t)0x3f) == 0);
  /* iol = R - C whenever both exist */
  if (r->t_cmd != FS_NONE && r->t_rsp != FS_NONE) {
    FS_CHECK(r->iol == (int64_t)(r->t_rsp - r->t_cmd));
  } else {
    FS_CHECK(r->iol == none);
  }
  switch (r->state) {
  case RTEL_IO_COMPLETE:
    FS_CHECK(r->t_cmd != FS_NONE && r->t_rsp != FS_NONE);
    break;
  case RTEL_IO_ORPHAN:
    /* knows only cid, nvme_status and t_rsp */
    FS_CHECK(r->t_cmd == FS_NONE && r->t_rsp != FS_NONE);
    FS_CHECK(r->opcode == 0 && r->t_data_first == FS_NONE &&
             r->t_data_last == FS_NONE && r->t_rdreq == FS_NONE);
    FS_CHECK(r->dal == none && r->dpl == none && r->xfer == none);
    break;
  default: /* no response */
    FS_CHECK(r->t_cmd != FS_NONE && r->t_rsp == FS_NONE);
    FS_CHECK(r->dal == none && r->nvme_status == 0);
    break;
  }
  if (r->state != RTEL_IO_ORPHAN) {
    /* the command is one the harness sent, and no command has more
     * records than copies of it were sent */
    unsigned sent = fs_log_cmds(r);
    FS_CHECK(sent >= 1);
    FS_CHECK(fs_io_seen(r) < sent);
  }
  if (r->t_rsp != FS_NONE) {
    FS_CHECK(fs_log_t2h(r, r->t_rsp, rsp_ops, sizeof(rsp_ops), 0));
  }
  /* the durations, as rtel_io_record(3) defines them */
  if (r->t_rdreq != FS_NONE) { /* a write whose data was fetched */
    FS_CHECK(fs_log_t2h(r, r->t_rdreq, rq_ops, sizeof(rq_ops), 0));
    FS_CHECK(r->dpl == (r->t_data_first == FS_NONE
                            ? none
                            : (int64_t)(r->t_data_first - r->t_rdreq)));
    FS_CHECK(r->xfer == (r->t_data_first == FS_NONE
                             ? none
                             : (int64_t)(r->t_data_last - r->t_data_first)));
    FS_CHECK(r->dal == (r->t_rsp == FS_NONE || r->t_data_last == FS_NONE
                            ? none
                            : (int64_t)(r->t_rdreq - r->t_cmd) +
                                  (int64_t)(r->t_rsp - r->t_data_last)));
    if (r->t_data_first != FS_NONE) {
      FS_CHECK(fs_log_t2h(r, r->t_data_first, rr_ops, sizeof(rr_ops), 1));
      FS_CHECK(fs_log_t2h(r, r->t_data_last, rr_ops, sizeof(rr_ops), 1));
    }
  } else if (r->t_data_first != FS_NONE) {
    /* read data (D1..Dn), or an in-capsule write (first..last packet) */
    int64_t rd_dal =
        r->t_rsp == FS_NONE ? none : (int64_t)(r->t_data_first - r->t_cmd);
    int64_t ic_dal =
        r->t_rsp == FS_NONE ? none : (int64_t)(r->t_rsp - r->t_cmd);
    static const uint8_t cap_ops[] = {0x00, 0x01, 0x02, 0x04};
    int rd, ic;
    FS_CHECK(r->t_data_last != FS_NONE);
    FS_CHECK(r->dpl == none);
    FS_CHECK(r->xfer == (int64_t)(r->t_data_last - r->t_data_first));
    rd = fs_log_t2h(r, r->t_data_first, wr_ops, sizeof(wr_ops), 0) &&
         fs_log_t2h(r, r->t_data_last, wr_ops, sizeof(wr_ops), 0) &&
         r->dal == rd_dal;
    ic = (r->flags & RTEL_IO_F_INCAPSULE) && r->opcode == RTEL_NVME_OP_WRITE &&
         r->t_data_first == r->t_cmd &&
         fs_log_t2h(r, r->t_data_last, cap_ops, sizeof(cap_ops), 1) &&
         r->dal == ic_dal;
    FS_CHECK(rd || ic);
  } else {
    FS_CHECK(r->t_data_last == FS_NONE);
    FS_CHECK(r->dal == none && r->dpl == none && r->xfer == none);
  }
  if (F.mono && r->state != RTEL_IO_ORPHAN) {
    /* no negative duration when time never went back */
    FS_CHECK(r->iol == none || r->iol >= 0);
    FS_CHECK(r->dal == none || r->dal >= 0);
    FS_CHECK(r->dpl == none || r->dpl >= 0);
    FS_CHECK(r->xfer == none || r->xfer >= 0);
    FS_CHECK(r->t_data_first == FS_NONE || r->t_data_first >= r->t_cmd);
    FS_CHECK(r->t_rdreq == FS_NONE || r->t_rdreq >= r->t_cmd);
    /* data counts up to R only */
    FS_CHECK(r->t_rsp == FS_NONE || r->t_data_last == FS_NONE ||
             r->t_data_last <= r->t_rsp);
    fs_coverage(r->coverage_start, r->coverage_end, r->t_cmd);
  }
}

static int fs_on_io(rtel_ctx *ctx, const rtel_io_record *r, void *ud) {
  int rv = fs_cb(CB_IO, ctx, ud);
  int rw;
  sh_fold(0, SH_IO, r, sizeof(*r));
  FS_CHECK(!(F.set.nvme_flags & RTEL_NVME_DISABLE));
  FS_CHECK(r->state >= RTEL_IO_COMPLETE && r->state <= RTEL_IO_TRUNCATED);
  F.n_io[r->state]++;
  FS_TRACE("    io obs %u state %u cid %u op %u nsid %u tqpn %06x t_cmd %llu "
           "t_rsp %llu "
           "d %llu..%llu q %llu iol %lld dal %lld dpl %lld\n",
           r->obs, r->state, r->cid, r->opcode, r->nsid, r->target_qpn,
           (unsigned long long)r->t_cmd, (unsigned long long)r->t_rsp,
           (unsigned long long)r->t_data_first,
           (unsigned long long)r->t_data_last, (unsigned long long)r->t_rdreq,
           (long long)r->iol, (long long)r->dal, (long long)r->dpl);
  fs_check_io(r);
  /* what the aggregates of the current period must sum to */
  rw = !(r->flags & (RTEL_IO_F_ADMIN | RTEL_IO_F_FABRICS)) &&
       (r->opcode == RTEL_NVME_OP_READ || r->opcode == RTEL_NVME_OP_WRITE);
  if (rw && r->state == RTEL_IO_COMPLETE) {
    F.pend_cnt++;
    F.pend_err += r->nvme_status != 0;
  } else if (rw && r->state == RTEL_IO_TIMEOUT) {
    F.pend_to++;
  }
  if (r->state != RTEL_IO_ORPHAN) {
    FS_CHECK(F.ncio < FS_LOG);
    F.cio[F.ncio].r = *r;
    F.cio[F.ncio].used = r->state != RTEL_IO_COMPLETE;
    F.ncio++;
  }
  F.last_io = r;
  F.last_ir = *r;
  F.last_kind = CB_IO;
  F.last_judged = r->state == RTEL_IO_COMPLETE;
  return rv;
}

static uint32_t fs_role(uint32_t obs) {
  unsigned i;
  for (i = 0; i < F.nroles; i++) {
    if (F.role_obs[i] == obs) {
      return F.role[i];
    }
  }
  return RTEL_ROLE_UNKNOWN;
}

/* An unused complete record of |obs| that is the I/O of |s|, with |iol|. */
/* An unused complete record that segment |s| may have joined at |obs|
 * with latency |iol|; with |flags| not UINT32_MAX, one with those RTEL_IO_F_*
 * bits (the same command can be complete twice at one point with the same
 * IOL and key, on a queue known once by guess and once by Connect). */
static fs_io *fs_twin(const rtel_segment_record *s, uint32_t obs, int64_t iol,
                      uint32_t flags) {
  unsigned i;
  for (i = 0; i < F.ncio; i++) {
    fs_io *c = &F.cio[i];
    const rtel_io_record *r = &c->r;
    if (!c->used && r->obs == obs && r->iol == iol &&
        (flags == UINT32_MAX || r->flags == flags) &&
        r->target_qpn == s->target_qpn && r->cid == s->cid &&
        r->opcode == s->opcode && r->nsid == s->nsid && r->slba == s->slba &&
        r->bytes == s->bytes && memcmp(r->host, s->host, 16) == 0 &&
        memcmp(r->target, s->target, 16) == 0) {
      return c;
    }
  }
  return NULL;
}

static int fs_on_segment(rtel_ctx *ctx, const rtel_segment_record *s,
                         void *ud) {
  int rv = fs_cb(CB_SEG, ctx, ud);
  uint32_t rc = fs_role(s->compute_obs), rs = fs_role(s->storage_obs);
  fs_io *a, *b;
  sh_fold(0, SH_SEG, s, sizeof(*s));
  FS_CHECK(!(F.set.nvme_flags & RTEL_NVME_DISABLE));
  F.n_seg++;
  FS_TRACE("    segment c %u s %u iol %lld %lld\n", s->compute_obs,
           s->storage_obs, (long long)s->iol1, (long long)s->iol2);
  FS_CHECK(s->compute_obs != s->storage_obs);
  FS_CHECK(s->compute + s->network + s->storage == s->iol1);
  FS_CHECK(s->rtt == s->iol1 - s->iol2);
  FS_CHECK(s->reserved == 0 && s->reserved2 == 0);
  FS_CHECK(s->roles_configured <= 1);
  /* fabric points are never joined, nor two of the same side */
  FS_CHECK(rc != RTEL_ROLE_FABRIC && rs != RTEL_ROLE_FABRIC);
  FS_CHECK(!(rc == RTEL_ROLE_COMPUTE && rs == RTEL_ROLE_COMPUTE));
  FS_CHECK(!(rc == RTEL_ROLE_STORAGE && rs == RTEL_ROLE_STORAGE));
  FS_CHECK(rc != RTEL_ROLE_STORAGE && rs != RTEL_ROLE_COMPUTE);
  if (s->roles_configured) {
    FS_CHECK(rc == RTEL_ROLE_COMPUTE || rs == RTEL_ROLE_STORAGE);
  } else {
    FS_CHECK(rc == RTEL_ROLE_UNKNOWN && rs == RTEL_ROLE_UNKNOWN);
    FS_CHECK(s->iol1 >= s->iol2);
  }
  /* two complete records, each joined once */
  a = fs_twin(s, s->compute_obs, s->iol1, s->flags);
  if (a == NULL) {
    a = fs_twin(s, s->compute_obs, s->iol1, UINT32_MAX);
  }
  FS_CHECK(a != NULL);
  a->used = 1;
  b = fs_twin(s, s->storage_obs, s->iol2, UINT32_MAX);
  FS_CHECK(b != NULL);
  b->used = 1;
  FS_CHECK(s->flags == a->r.flags);
  if (a->r.dpl != RTEL_DURATION_NONE && b->r.dpl != RTEL_DURATION_NONE) {
    FS_CHECK(s->compute == a->r.dpl);
  } else {
    FS_CHECK(s->compute == 0);
    FS_CHECK(s->network == s->iol1 - s->iol2);
  }
  return rv;
}

static void fs_check_latency(const rtel_latency *l) {
  if (l->count == 0) {
    FS_CHECK(l->min == 0 && l->max == 0 && l->mean == 0 && l->p50 == 0 &&
             l->p90 == 0 && l->p99 == 0 && l->p999 == 0);
    return;
  }
  FS_CHECK(l->min >= 0 && l->max < ((int64_t)1 << 48));
  FS_CHECK(l->min <= l->p50 && l->p50 <= l->p90 && l->p90 <= l->p99 &&
           l->p99 <= l->p999 && l->p999 <= l->max);
  FS_CHECK(l->min <= l->mean && l->mean <= l->max);
}

static int fs_on_aggregate(rtel_ctx *ctx, const rtel_io_aggregate *g,
                           void *ud) {
  int rv = fs_cb(CB_AGG, ctx, ud);
  sh_fold(0, SH_AGG, g, sizeof(*g));
  FS_CHECK(!(F.set.nvme_flags & RTEL_NVME_DISABLE));
  F.n_agg++;
  FS_TRACE(
      "    aggregate obs %u op %u nsid %u %llu..%llu count %llu to %llu\n",
      g->obs, g->opcode, g->nsid, (unsigned long long)g->period_start,
      (unsigned long long)g->period_end, (unsigned long long)g->count,
      (unsigned long long)g->timeouts);
  /* aggregates come only at the reports the periods say, with their
   * bounds (a flush may end a due period, then its own) */
  FS_CHECK(F.rep_idx < F.exp_rep);
  if (g->period_start != F.rep_start[F.rep_idx] ||
      g->period_end != F.rep_end[F.rep_idx]) {
    F.rep_idx++;
    FS_CHECK(F.rep_idx < F.exp_rep);
    FS_CHECK(g->period_start == F.rep_start[F.rep_idx]);
    FS_CHECK(g->period_end == F.rep_end[F.rep_idx]);
  }
  if (F.mono) {
    FS_CHECK(g->period_start <= g->period_end);
  }
  FS_CHECK(g->opcode == RTEL_NVME_OP_READ || g->opcode == RTEL_NVME_OP_WRITE);
  FS_CHECK((g->flags & ~(uint32_t)RTEL_IO_F_IPV6) == 0);
  FS_CHECK(g->count > 0 || g->timeouts > 0);
  FS_CHECK(g->errors <= g->count);
  FS_CHECK(g->iol.count == g->count);
  FS_CHECK(g->dal.count <= g->count && g->dpl.count <= g->count);
  /* DPL: "Writes only (empty for reads)" */
  FS_CHECK(g->opcode == RTEL_NVME_OP_WRITE || g->dpl.count == 0);
  fs_check_latency(&g->iol);
  fs_check_latency(&g->dal);
  fs_check_latency(&g->dpl);
  if (g->nsid == RTEL_NSID_ALL) {
    F.rep_cnt += g->count;
    F.rep_to += g->timeouts;
    F.rep_err += g->errors;
  }
  return rv;
}

static int fs_port_idx(uint32_t id) {
  unsigned i;
  for (i = 0; i < F.nports; i++) {
    if (F.port_id[i] == id) {
      return (int)i;
    }
  }
  return -1;
}

static int fs_on_slot(rtel_ctx *ctx, const rtel_slot_event *ev, void *ud) {
  int rv = fs_cb(CB_SLOT, ctx, ud);
  size_t i, j;
  unsigned k, measured = 0;
  sh_fold(0, SH_SLOT, ev, sizeof(*ev));
  F.n_slot++;
  FS_TRACE("    slot %llu %llu..%llu +%zu -%zu\n",
           (unsigned long long)ev->slot, (unsigned long long)ev->start,
           (unsigned long long)ev->end, ev->nstarted, ev->nstopped);
  FS_CHECK(F.exp_slot && !F.got_slot);
  F.got_slot = 1;
  FS_CHECK(ev->start == F.exp_slot_start);
  FS_CHECK(ev->end == F.exp_slot_end);
  FS_CHECK((int64_t)ev->slot > F.last_slot);
  if ((int64_t)ev->slot != F.last_slot + 1) {
    F.fair_ok = 0; /* slots were skipped: the waits are not all seen */
  }
  F.last_slot = (int64_t)ev->slot;
  F.sched_next = ev->end;
  FS_CHECK(ev->nstarted <= F.nports && ev->nstopped <= F.nports);
  for (i = 0; i < ev->nstarted; i++) {
    FS_CHECK(fs_port_idx(ev->started[i]) >= 0);
    FS_CHECK(rtel_ctx_port_measured(ctx, ev->started[i]) == 1);
    for (j = 0; j < ev->nstopped; j++) {
      FS_CHECK(ev->started[i] != ev->stopped[j]);
    }
  }
  for (i = 0; i < ev->nstopped; i++) {
    FS_CHECK(fs_port_idx(ev->stopped[i]) >= 0);
    FS_CHECK(rtel_ctx_port_measured(ctx, ev->stopped[i]) == 0);
  }
  for (k = 0; k < F.nports; k++) {
    int m = rtel_ctx_port_measured(ctx, F.port_id[k]);
    measured += m;
    if (F.mode == RTEL_SCHED_POLL && F.fair_ok) {
      /* every port at least once in ceil(N / P) consecutive slots;
       * ceil(N / (P - 1)) or 2 N with the alarm priority seat */
      uint64_t n = F.nports, p = F.per < n ? F.per : n, bound;
      if (F.prio == 0) {
        bound = (n + p - 1) / p;
      } else if (p >= 2) {
        bound = (n + p - 2) / (p - 1);
      } else {
        bound = 2 * n;
      }
      if (m) {
        F.port_last[k] = (int64_t)ev->slot;
      } else {
        FS_CHECK((int64_t)ev->slot - F.port_last[k] < (int64_t)bound);
      }
    }
  }
  if (F.mode == RTEL_SCHED_POLL) {
    FS_CHECK(measured == (F.per < F.nports ? F.per : F.nports));
  } else {
    FS_CHECK(measured == F.nports);
  }
  return rv;
}

static fs_akey *fs_akey_get(const rtel_alarm *al) {
  unsigned i;
  for (i = 0; i < F.nakeys; i++) {
    fs_akey *k = &F.akeys[i];
    if (k->metric == al->metric && k->scope == al->scope &&
        k->kind == al->kind && k->obs == al->obs &&
        (al->scope == RTEL_SCOPE_PORT
             ? k->port == al->port
             : memcmp(k->src, al->src, 16) == 0 &&
                   memcmp(k->dst, al->dst, 16) == 0)) {
      return k;
    }
  }
  /* the library keeps at most max_alarm_keys of them */
  FS_CHECK(F.nakeys < FS_AKEYS && F.nakeys < F.set.max_alarm_keys);
  F.akeys[F.nakeys].metric = al->metric;
  F.akeys[F.nakeys].scope = al->scope;
  F.akeys[F.nakeys].kind = al->kind;
  F.akeys[F.nakeys].obs = al->obs;
  F.akeys[F.nakeys].port = al->port;
  memcpy(F.akeys[F.nakeys].src, al->src, 16);
  memcpy(F.akeys[F.nakeys].dst, al->dst, 16);
  F.akeys[F.nakeys].raised = 0;
  return &F.akeys[F.nakeys++];
}

static int fs_on_alarm(rtel_ctx *ctx, const rtel_alarm *al, void *ud) {
  int rv = fs_cb(CB_ALARM, ctx, ud);
  fs_akey *k;
  int fet = al->metric == RTEL_METRIC_FET;
  sh_fold(0, SH_ALARM, al, sizeof(*al));
  FS_CHECK(al->state == RTEL_ALARM_RAISED || al->state == RTEL_ALARM_CLEARED);
  FS_TRACE("    alarm metric %u scope %u kind %u state %u value %g limit %g\n",
           al->metric, al->scope, al->kind, al->state, al->value, al->limit);
  if (al->state == RTEL_ALARM_RAISED) {
    F.n_raised++;
  } else {
    F.n_cleared++;
  }
  FS_CHECK(al->metric >= RTEL_METRIC_IOL &&
           al->metric <= RTEL_METRIC_CNP_RATE);
  FS_CHECK(al->scope == RTEL_SCOPE_PAIR || al->scope == RTEL_SCOPE_PORT);
  FS_CHECK(al->kind == RTEL_ALARM_THRESHOLD ||
           al->kind == RTEL_ALARM_BASELINE);
  /* only where a threshold or baseline is set */
  FS_CHECK(al->kind == RTEL_ALARM_THRESHOLD ? F.thr[al->metric][al->scope] > 0
                                            : F.bk[al->metric][al->scope] > 0);
  /* right after a judged record, which it names */
  FS_CHECK(F.last_judged);
  if (F.last_kind == CB_FLOW) {
    const rtel_flow_record *r = &F.last_fr;
    FS_CHECK(al->flow == F.last_flow && al->io == NULL);
    FS_CHECK(al->metric >= RTEL_METRIC_FCT);
    FS_CHECK(al->ts == r->last_ts && al->obs == r->obs && al->port == r->port);
    if (al->metric == RTEL_METRIC_FNR) {
      FS_CHECK(r->flags & RTEL_FLOW_F_PAIRED);
    }
    if (al->metric == RTEL_METRIC_FET || al->metric == RTEL_METRIC_CNP_RATE) {
      FS_CHECK(r->fct > 0);
    }
    if (al->scope == RTEL_SCOPE_PAIR) {
      FS_CHECK(memcmp(al->src, r->src, 16) == 0 &&
               memcmp(al->dst, r->dst, 16) == 0);
    }
  } else {
    const rtel_io_record *r = &F.last_ir;
    FS_CHECK(F.last_kind == CB_IO);
    FS_CHECK(al->io == F.last_io && al->flow == NULL);
    FS_CHECK(al->metric <= RTEL_METRIC_DPL);
    FS_CHECK(al->ts == r->t_rsp && al->obs == r->obs && al->port == r->port);
    FS_CHECK(al->metric != RTEL_METRIC_DAL || r->dal != RTEL_DURATION_NONE);
    FS_CHECK(al->metric != RTEL_METRIC_DPL || r->dpl != RTEL_DURATION_NONE);
    if (al->scope == RTEL_SCOPE_PAIR) {
      FS_CHECK(memcmp(al->src, r->host, 16) == 0 &&
               memcmp(al->dst, r->target, 16) == 0);
    }
  }
  if (al->kind == RTEL_ALARM_THRESHOLD) {
    /* raised beyond the threshold, cleared back by 10 % of it */
    FS_CHECK(al->limit == F.thr[al->metric][al->scope]);
    if (al->state == RTEL_ALARM_RAISED) {
      FS_CHECK(fet ? al->value < al->limit : al->value > al->limit);
    } else {
      FS_CHECK(fet ? al->value >= al->limit * (1 + 0.10)
                   : al->value <= al->limit * (1 - 0.10));
    }
  }
  /* raised and cleared alternate, per key */
  k = fs_akey_get(al);
  FS_CHECK(k->raised == (al->state == RTEL_ALARM_CLEARED));
  k->raised = al->state == RTEL_ALARM_RAISED;
  return rv;
}

static const rtel_callbacks fs_callbacks = {
    fs_on_packet,  fs_on_stats,     fs_on_flow, fs_on_message, fs_on_io,
    fs_on_segment, fs_on_aggregate, fs_on_slot, fs_on_alarm};

/* ------------------------------------------------------------ counters */

static void fs_check_counters(void) {
  rtel_ctx_stats st;
  uint64_t sum = 0, removed, terminal, all;
  const uint64_t *a, *b;
  size_t i, n;
  unsigned e;

  FS_CHECK(rtel_ctx_get_stats(F.ctx, &st) == 0);
  for (i = 0; i < RTEL_MALFORMED_SLOTS; i++) {
    sum += st.malformed[i];
  }
  FS_CHECK(st.pkts_malformed == sum);
  FS_CHECK(st.pkts == F.n_pkts);
  FS_CHECK(st.pkts == st.pkts_roce + st.pkts_not_roce + st.pkts_malformed +
                          st.pkts_unscheduled);
  FS_CHECK(st.pkts_roce == F.n_onpkt);
  FS_CHECK(st.messages == F.n_msg);
  FS_CHECK(st.ios_complete == F.n_io[RTEL_IO_COMPLETE]);
  FS_CHECK(st.ios_timeout == F.n_io[RTEL_IO_TIMEOUT]);
  FS_CHECK(st.ios_orphan == F.n_io[RTEL_IO_ORPHAN]);
  FS_CHECK(st.ios_evicted == F.n_io[RTEL_IO_EVICTED]);
  FS_CHECK(st.ios_truncated == F.n_io[RTEL_IO_TRUNCATED]);
  /* "the oldest outstanding command was ended (state evicted, counted in
   * ios_evicted)" - when its queue is confirmed: a guessed queue "reports
   * nothing until a completion ... carries the CID of one of its
   * commands", so only without guessing is every queue confirmed */
  if (F.set.nvme_flags & RTEL_NVME_NO_GUESS) {
    FS_CHECK(st.ios_untracked <= st.ios_evicted);
    FS_CHECK(st.ios_unconfirmed == 0);
  }
  /* every I/O created ends once: in one record that is not an orphan, or
   * unconfirmed (a guessed queue), or is still outstanding */
  FS_CHECK(st.ios_created == st.ios_complete + st.ios_timeout +
                                 st.ios_evicted + st.ios_truncated +
                                 st.ios_unconfirmed + st.ios_active);
  FS_CHECK(st.ios_active <= F.set.max_ios);
  FS_CHECK(st.segments == F.n_seg);
  FS_CHECK(st.slots == F.n_slot);
  FS_CHECK(st.alarms_raised == F.n_raised);
  FS_CHECK(st.alarms_cleared == F.n_cleared);
  FS_CHECK(st.flows_active <= F.set.max_flows);
  FS_CHECK(st.flows_active <= st.flows_created);
  removed = st.flows_created - st.flows_active;
  all = 0;
  for (e = RTEL_END_IDLE; e <= RTEL_END_TRUNCATED; e++) {
    all += F.n_flow[e];
  }
  terminal = all - F.n_flow[RTEL_END_ACTIVE];
  FS_CHECK(terminal <= removed && removed <= all);
  FS_CHECK(F.n_flow[RTEL_END_EVICTED] <= st.flows_evicted);
  if (F.set.flow_active_timeout == 0) {
    FS_CHECK(removed == all);
    FS_CHECK(F.n_flow[RTEL_END_EVICTED] == st.flows_evicted);
    FS_CHECK(F.n_flow[RTEL_END_ACTIVE] == 0);
  }
  if (!(F.set.flow_flags & RTEL_FLOW_NO_EVICT)) {
    FS_CHECK(st.flows_untracked_pkts == 0);
  }
  if (F.set.flow_flags & RTEL_FLOW_DISABLE) {
    /* QP pairing still runs for NVMe-oF without the flow table */
    FS_CHECK(st.flows_created == 0 && st.messages == 0);
    if (F.set.nvme_flags & RTEL_NVME_DISABLE) {
      FS_CHECK(st.pairs_cm == 0 && st.pairs_psn == 0);
    }
  }
  if (F.set.nvme_flags & RTEL_NVME_DISABLE) {
    FS_CHECK(st.nvme_queues_cm == 0 && st.nvme_queues_connect == 0 &&
             st.nvme_queues_confirmed == 0 && st.ios_complete == 0 &&
             st.ios_untracked == 0 && st.segments == 0 && st.ios_created == 0);
  }
  if (!(F.set.decode_flags & RTEL_DECODE_VERIFY_ICRC)) {
    FS_CHECK(st.icrc_ok == 0 && st.icrc_bad == 0 && st.icrc_truncated == 0);
  }
  /* counters never decrease (flows_active and ios_active are gauges) */
  a = (const uint64_t *)(const void *)&st;
  b = (const uint64_t *)(const void *)&F.prev;
  n = sizeof(st) / sizeof(uint64_t);
  for (i = 0; i < n; i++) {
    if (&a[i] != &st.flows_active && &a[i] != &st.ios_active) {
      FS_CHECK(a[i] >= b[i]);
    }
  }
  F.prev = st;
}

/* ------------------------------------------------------------ timer model */

/* What a timer run at |now| must deliver: a slot boundary, a statistics
 * report, an aggregate report (rtel_ctx_handle_expiry(3)). */
static void fs_expect_timers(rtel_tstamp now) {
  F.exp_slot = F.got_slot = 0;
  F.exp_stats = F.got_stats = 0;
  F.exp_rep = 0;
  F.rep_idx = 0;
  F.rep_cnt = F.rep_to = F.rep_err = 0;
  if (F.sched_next != FS_NONE && now >= F.sched_next) {
    F.exp_slot = 1;
    F.exp_slot_start =
        F.sched_next + (now - F.sched_next) / F.slot_ns * F.slot_ns;
    F.exp_slot_end = F.exp_slot_start + F.slot_ns;
  }
  if (F.st_next != FS_NONE && now >= F.st_next) {
    rtel_tstamp iv = F.set.stats_interval;
    F.exp_stats = 1;
    F.exp_stats_end = F.st_next + (now - F.st_next) / iv * iv;
  }
  if (F.agg_next != FS_NONE && now >= F.agg_next) {
    rtel_tstamp iv = F.set.report_interval;
    F.exp_rep = 1;
    F.rep_start[0] = F.agg_start;
    F.rep_end[0] = F.agg_next + (now - F.agg_next) / iv * iv;
  }
}

/* One aggregate report ended: it sums to the records of its period. */
static void fs_report_done(void) {
  rtel_ctx_stats st;
  FS_CHECK(rtel_ctx_get_stats(F.ctx, &st) == 0);
  if (st.aggregates_dropped == F.drop_at_rep) {
    FS_CHECK(F.rep_cnt == F.pend_cnt);
    FS_CHECK(F.rep_to == F.pend_to);
    FS_CHECK(F.rep_err == F.pend_err);
  } else {
    FS_CHECK(F.rep_cnt <= F.pend_cnt && F.rep_to <= F.pend_to);
  }
  F.drop_at_rep = st.aggregates_dropped;
  F.pend_cnt = F.pend_to = F.pend_err = 0;
}

/* After a timer run that did not fail: the expected events came, and the
 * model moves on. */
static void fs_timers_done(void) {
  FS_CHECK(F.got_slot == F.exp_slot);
  FS_CHECK(F.got_stats == F.exp_stats);
  if (F.exp_stats) {
    rtel_tstamp iv = F.set.stats_interval;
    F.st_next =
        F.exp_stats_end > FS_NONE - iv ? FS_NONE : F.exp_stats_end + iv;
  }
  if (F.exp_rep) {
    fs_report_done();
    F.agg_start = F.rep_end[0];
    F.agg_next = F.rep_end[0] + F.set.report_interval;
  }
  F.exp_slot = F.exp_stats = F.exp_rep = 0;
}

/* A callback failed in the call that returned |rv|. */
static int fs_call_failed(int rv) {
  if (F.cb_failed) {
    FS_CHECK(rv == RTEL_ERR_CALLBACK_FAILURE);
    F.failed = 1;
    F.cb_failed = 0;
    return 1;
  }
  return 0;
}

/* After a fatal error: every call refuses, nothing is delivered. */
static void fs_check_failed_ctx(void) {
  rtel_pkt_info pi;
  rtel_schedule sch;
  rtel_ctx_stats st;
  unsigned long ncb = F.ncb;
  memset(&pi, 0, sizeof(pi));
  memset(&sch, 0, sizeof(sch));
  FS_CHECK(rtel_ctx_read_pkt(F.ctx, &pi, NULL, 0) == RTEL_ERR_INVALID_STATE);
  FS_CHECK(rtel_ctx_read_pkts(F.ctx, &pi, NULL, NULL, 0) ==
           RTEL_ERR_INVALID_STATE);
  FS_CHECK(rtel_ctx_handle_expiry(F.ctx, F.clock) == RTEL_ERR_INVALID_STATE);
  FS_CHECK(rtel_ctx_flush(F.ctx, F.clock) == RTEL_ERR_INVALID_STATE);
  FS_CHECK(rtel_ctx_set_schedule(F.ctx, &sch, F.clock) ==
           RTEL_ERR_INVALID_STATE);
  FS_CHECK(rtel_ctx_get_expiry(F.ctx) == FS_NONE);
  FS_CHECK(rtel_ctx_get_stats(F.ctx, &st) == 0);
  FS_CHECK(F.ncb == ncb);
}

static int fs_handle_expiry(rtel_tstamp now) {
  int rv;
  rtel_tstamp next;
  fs_time(now);
  fs_expect_timers(now);
  FS_TRACE("  handle_expiry %llu (expiry %llu)\n", (unsigned long long)now,
           (unsigned long long)rtel_ctx_get_expiry(F.ctx));
  rv = rtel_ctx_handle_expiry(F.ctx, now);
  SH_DO(rtel_ctx_handle_expiry(sctx_, now), rv);
  if (fs_call_failed(rv)) {
    return rv;
  }
  FS_CHECK(rv == 0);
  fs_timers_done();
  /* "the earliest time at which rtel_ctx_handle_expiry() has work" */
  next = rtel_ctx_get_expiry(F.ctx);
  FS_CHECK(next == FS_NONE || next > now);
  return 0;
}

/* rtel_ctx_flush(): the timers due at |now| first, then the rest, and one
 * aggregate report that ends at |now|. */
static int fs_flush(rtel_tstamp now) {
  int rv;
  fs_time(now);
  fs_expect_timers(now);
  if (F.agg_start != FS_NONE) {
    int i = F.exp_rep;
    F.rep_start[i] = F.exp_rep ? F.rep_end[0] : F.agg_start;
    F.rep_end[i] = now;
    F.exp_rep = i + 1;
  }
  FS_TRACE("  flush %llu (expiry %llu)\n", (unsigned long long)now,
           (unsigned long long)rtel_ctx_get_expiry(F.ctx));
  rv = rtel_ctx_flush(F.ctx, now);
  SH_DO(rtel_ctx_flush(sctx_, now), rv);
  if (fs_call_failed(rv)) {
    return rv;
  }
  FS_CHECK(rv == 0);
  FS_CHECK(F.got_slot == F.exp_slot);
  FS_CHECK(F.got_stats == F.exp_stats);
  if (F.exp_stats) {
    rtel_tstamp iv = F.set.stats_interval;
    F.st_next =
        F.exp_stats_end > FS_NONE - iv ? FS_NONE : F.exp_stats_end + iv;
  }
  if (F.exp_rep) {
    /* the reports are told apart by their bounds; the sums are checked
     * over the call */
    fs_report_done();
    if (F.agg_next != FS_NONE && now >= F.agg_next) {
      F.agg_next = F.rep_end[0] + F.set.report_interval;
    }
    F.agg_start = now;
  }
  F.exp_slot = F.exp_stats = F.exp_rep = 0;
  return 0;
}

/* ------------------------------------------------------------ packets */

static void fs_conn_default(void) {
  static const uint32_t hq[FS_NCONN] = {0x11, 0x12, 0x13, 0x14,
                                        0x15, 0x16, 0x17, 0x21};
  static const uint32_t tq[FS_NCONN] = {0x21, 0x22, 0x23, 0x24,
                                        0x25, 0x26, 0x27, 0x11};
  static const uint32_t hp[FS_NCONN] = {0x100, 0xfffff0, 0x1000, 0x7ffff0,
                                        0,     0x123456, 0x10,   0x500};
  static const uint32_t tp[FS_NCONN] = {0x200,    0x300,    0xfffffe, 0x800010,
                                        0xffffff, 0x654321, 0x20,     0x600};
  unsigned i;
  for (i = 0; i < FS_NCONN; i++) {
    fs_conn *c = &F.conn[i];
    uint32_t h = 0x0a010001u + (i & 1), t = 0x0a020001u + ((i >> 1) & 1);
    memset(c, 0, sizeof(*c));
    tu_nvq_init4(&c->q, h, t, hq[i], tq[i], hp[i], tp[i]);
    c->q.sport = (uint16_t)(0xC000 + i);
    if (i == 5) {
      c->q.ipver = 6;
      memcpy(c->q.host, tu_ip6_a, 16);
      memcpy(c->q.target, tu_ip6_b, 16);
    } else if (i == 6) {
      c->q.ipver = 1; /* RoCEv1: GRH with IPv4-mapped GIDs */
    }
  }
}

/* Addresses as rtel-sim numbers them: host i 10.1.0.(i + 1) or
 * fd00:0:0:1::(i + 1), target j 10.2.0.(j + 1) or fd00:0:0:2::(j + 1). */
static void fs_addr(uint8_t a[16], int v6, unsigned pool, unsigned i) {
  if (v6) {
    memset(a, 0, 16);
    a[0] = 0xfd;
    a[7] = (uint8_t)pool;
    a[15] = (uint8_t)(i + 1);
  } else {
    tu_ipv4_mapped(a, 0x0a000001u | pool << 16 | i);
  }
}

static void fs_conn_set(const uint8_t *e) {
  fs_conn *c = &F.conn[e[1] & 7];
  unsigned ipv = e[2] & 3, h = (e[2] >> 2) & 3, t = (e[2] >> 4) & 3;
  unsigned tpool = (e[1] & 8) ? 1 : 2; /* host to host (GPU traffic) */
  memset(c, 0, sizeof(*c));
  tu_nvq_init4(&c->q, 0x0a010001u, 0x0a020001u, le24(e + 3), le24(e + 6),
               le24(e + 9), le24(e + 12));
  fs_addr(c->q.host, ipv == 2, 1, h);
  fs_addr(c->q.target, ipv == 2, tpool, t);
  if (ipv == 2) {
    c->q.ipver = 6;
  } else if (ipv == 3) {
    c->q.ipver = 1;
  }
  c->raw = (e[2] >> 6) & 1;
  c->vlan = e[2] >> 7;
  c->q.sport = (uint16_t)(0xC000 | e[15]);
}

/* Claims |extra| payload bytes more than were built: the frame becomes a
 * mirror's copy cut short (the headers give the whole length). */
static void fs_claim(tb *t, size_t extra) {
  size_t i;
  for (i = 0; i < t->nip; i++) {
    size_t o = t->ip_off[i];
    size_t f = t->ip_ver[i] == 4 ? o + 2 : o + 4;
    tb_set16(t, f, (uint16_t)(tb_get16(t, f) + extra));
    if (t->ip_ver[i] == 4) {
      tb_ipv4_csum(t, o);
    }
  }
  for (i = 0; i < t->nudp; i++) {
    tb_set16(t, t->udp_off[i] + 4,
             (uint16_t)(tb_get16(t, t->udp_off[i] + 4) + extra));
  }
  if (t->have_grh) {
    tb_set16(t, t->grh_off + 4,
             (uint16_t)(tb_get16(t, t->grh_off + 4) + extra));
  }
}

/* The packet under construction. */
typedef struct fs_pkt {
  tb *t;
  tu_spec s;
  size_t paylen; /* the payload's real length */
  size_t caplen;
  size_t wire;
  uint32_t linktype;
  uint8_t pay[FS_BUILD_MAX + 64];
} fs_pkt;

static uint32_t fs_key(unsigned c, uint16_t cid) {
  return 0x10000u * (c + 1) + cid;
}

static uint64_t fs_va(unsigned c, uint16_t cid) {
  return UINT64_C(0x7f0000000000) + ((uint64_t)c << 32) +
         ((uint64_t)cid << 20);
}

/* The next PSN of direction |dir| of |c|, per e[3] 0x10 and e[6]. */
static uint32_t fs_psn(fs_conn *c, int dir, const uint8_t *e, uint32_t span) {
  uint32_t *next = dir ? &c->q.tpsn : &c->q.hpsn;
  uint32_t psn;
  if (e[3] & 0x10) {
    psn = le24(e + 6);
  } else {
    psn = (*next + (uint32_t)(int32_t)(int8_t)e[6]) & 0xffffffu;
  }
  *next = (psn + span) & 0xffffffu;
  return psn;
}

/* Starts a frame of |c| in direction |dir| (0: host -> target). */
static void fs_spec(fs_pkt *p, fs_conn *c, int dir, uint8_t opcode,
                    size_t paylen, const uint8_t *e) {
  tu_nvq_spec(&p->s, &c->q, !dir, opcode, paylen);
  p->paylen = paylen;
  p->s.raw_ip = c->raw;
  p->s.nvlan = (c->vlan || (e[3] & 0x40)) ? 1 : 0;
  p->s.vlan_tci[0] = (uint16_t)(0x2000 | (100 + (e[2] & 7)));
  p->s.tos = (uint8_t)((26 << 2) | ((e[3] & 1) ? 3 : 2));
  p->s.fecn = (e[3] >> 1) & 1;
  p->s.becn = (e[3] >> 2) & 1;
  p->s.ackreq = 0;
  p->linktype = c->raw ? RTEL_LINK_RAW : RTEL_LINK_ETHERNET;
}

/* Builds the frame of |p| with its payload (|pay|, or a pattern when
 * NULL): at most FS_BUILD_MAX bytes, the rest claimed. */
static void fs_build(fs_pkt *p, const uint8_t *pay) {
  size_t built = p->paylen < FS_BUILD_MAX ? p->paylen : FS_BUILD_MAX;
  p->s.paylen = built;
  p->s.payload = pay;
  p->s.pad = (uint8_t)tu_pad_of(p->paylen);
  tb_init(p->t);
  tu_build(p->t, &p->s);
  p->caplen = p->t->n;
  p->wire = p->t->n;
  if (built < p->paylen) {
    fs_claim(p->t, p->paylen - built);
    p->caplen = p->t->icrc_off; /* the copy ends inside the payload */
    p->wire = p->t->n + (p->paylen - built);
  }
}

static size_t fs_len(const uint8_t *e, size_t max) {
  size_t n = le16(e + 11);
  return n <= max ? n : n % (max + 1);
}

static const uint16_t fs_cm_attr[8] = {RTEL_CM_REQ,  RTEL_CM_REP,  RTEL_CM_RTU,
                                       RTEL_CM_DREQ, RTEL_CM_DREP, RTEL_CM_REJ,
                                       RTEL_CM_MRA,  RTEL_CM_REQ};

/* Kinds 0-15 (see the top of the file). Returns 0 if nothing is sent. */
static int fs_make(fs_pkt *p, const uint8_t *e) {
  unsigned ci = e[2] & 7, var = e[2] >> 4, kind = e[1] & 15;
  fs_conn *c = &F.conn[ci];
  int rev = (e[2] >> 3) & 1;
  uint16_t cid = le16(e + 9);
  uint8_t *b = p->pay;
  size_t n;

  switch (kind) {
  case 0: { /* SEND */
    static const uint8_t ops[16] = {0x04, 0x00, 0x01, 0x02, 0x03, 0x05,
                                    0x16, 0x17, 0x24, 0x20, 0x21, 0x22,
                                    0x23, 0x25, 0xA4, 0xA0};
    fs_spec(p, c, rev, ops[var], fs_len(e, 9000), e);
    p->s.psn = fs_psn(c, rev, e, 1);
    p->s.ieth_rkey = fs_key(ci, cid);
    fs_build(p, NULL);
    return 1;
  }
  case 1: { /* RDMA WRITE */
    static const uint8_t ops[16] = {0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B,
                                    0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B,
                                    0xA6, 0xA8, 0xAA, 0xAB};
    fs_spec(p, c, rev, ops[var], fs_len(e, 9000), e);
    p->s.psn = fs_psn(c, rev, e, 1);
    p->s.reth_va = fs_va(ci, cid);
    p->s.reth_rkey = fs_key(ci, cid);
    p->s.reth_len = (uint32_t)e[13] << 12 | e[14];
    fs_build(p, NULL);
    return 1;
  }
  case 2: { /* READ REQUEST: its response uses the requester's PSNs */
    uint32_t span = 1 + (e[14] & 0x3f);
    fs_spec(p, c, rev, (var & 1) ? 0xAC : 0x0C, 0, e);
    p->s.psn = fs_psn(c, rev, e, span);
    c->rr_psn[!rev] = p->s.psn;
    p->s.reth_va = fs_va(ci, cid);
    p->s.reth_rkey = fs_key(ci, cid);
    p->s.reth_len = (uint32_t)le16(e + 11) << 4;
    fs_build(p, NULL);
    return 1;
  }
  case 3:    /* READ RESPONSE */
  case 14: { /* READ RESPONSE of NVMe-oF write data (host -> target) */
    static const uint8_t ops[4] = {0x0D, 0x0E, 0x0F, 0x10};
    int dir = rev; /* kind 14: host -> target, as dir 0 */
    fs_spec(p, c, dir, (uint8_t)(ops[var & 3] | ((var & 4) ? 0xA0 : 0)),
            fs_len(e, 9000), e);
    if (e[3] & 0x10) {
      p->s.psn = le24(e + 6);
    } else {
      p->s.psn =
          (c->rr_psn[dir] + (uint32_t)(int32_t)(int8_t)e[6]) & 0xffffffu;
    }
    c->rr_psn[dir] = (p->s.psn + 1) & 0xffffffu;
    p->s.aeth_syn = 0x1F;
    p->s.aeth_msn = e[14];
    fs_build(p, NULL);
    return 1;
  }
  case 4: { /* ACK / NAK of the other direction's data */
    static const uint8_t syn[8] = {0x1F, 0x60, 0x2E, 0x61,
                                   0x00, 0x1F, 0x62, 0x64};
    uint32_t *other = rev ? &c->q.hpsn : &c->q.tpsn;
    uint8_t s = syn[var & 7];
    if ((var & 7) == 2) {
      s = (uint8_t)(0x20 | (e[13] & 0x1f));
    } else if ((var & 7) == 4) {
      s = e[13];
    }
    fs_spec(p, c, rev, (var & 7) == 5 ? 0x12 : (var & 8) ? 0xB1 : 0x11, 0, e);
    if (e[3] & 0x10) {
      p->s.psn = le24(e + 6);
    } else {
      p->s.psn = (*other - 1 + (uint32_t)(int32_t)(int8_t)e[6]) & 0xffffffu;
    }
    p->s.aeth_syn = s;
    p->s.aeth_msn = e[14];
    fs_build(p, NULL);
    return 1;
  }
  case 5: /* CNP, towards the QP of this direction's destination */
    fs_spec(p, c, rev, 0x81, 0, e);
    p->s.psn = (e[3] & 0x10) ? le24(e + 6) : 0;
    p->s.becn = 1;
    p->s.tos = (uint8_t)(48 << 2 | 2);
    fs_build(p, NULL);
    return 1;
  case 6: { /* atomics, FLUSH, ATOMIC WRITE: a request PSN span */
    static const uint8_t ops[4] = {0x13, 0x14, 0x1C, 0x1D};
    uint8_t op = ops[var & 3];
    fs_spec(p, c, rev, op, op == 0x1D ? 8 : 0, e);
    p->s.psn = fs_psn(c, rev, e, 1);
    p->s.reth_va = fs_va(ci, cid);
    p->s.reth_rkey = fs_key(ci, cid);
    p->s.reth_len = op == 0x1C ? 64 : 8;
    fs_build(p, NULL);
    return 1;
  }
  case 7: { /* UD / RD and MADs that are not CM */
    static const uint8_t ops[8] = {0x64, 0x65, 0x64, 0x64,
                                   0x44, 0x45, 0x64, 0x64};
    fs_spec(p, c, rev, ops[var & 7], fs_len(e, 1024), e);
    p->s.psn = fs_psn(c, rev, e, 1);
    p->s.deth_qkey = 0x80010000u;
    p->s.deth_sqpn = e[14];
    if ((var & 7) >= 2 && (var & 7) != 4 && (var & 7) != 5) {
      /* to QP1: a MAD of class e[13] (0x07: CM, with attribute e[14]) */
      p->s.dqpn = 1;
      memset(b, 0, 256);
      b[0] = 1;
      b[1] = e[13];
      b[2] = 2;
      b[3] = 3;
      b[17] = e[14];
      n = (var & 7) == 3 ? (size_t)(e[15] % 64) : 256;
      p->paylen = n;
      fs_build(p, b);
    } else {
      fs_build(p, NULL);
    }
    return 1;
  }
  case 8: { /* RDMA CM */
    tu_nvq q = c->q;
    uint64_t tid = 0x1000u | ci << 8 | e[14];
    uint16_t port = e[13] < 2    ? 4420
                    : e[13] == 2 ? 4421
                    : e[13] == 3 ? 18515
                                 : (uint16_t)(4420 + e[13]);
    unsigned v = var & 7;
    if (rev) { /* the target opens it */
      memcpy(q.host, c->q.target, 16);
      memcpy(q.target, c->q.host, 16);
      q.hqpn = c->q.tqpn;
      q.tqpn = c->q.hqpn;
      q.hpsn = c->q.tpsn;
      q.tpsn = c->q.hpsn;
    }
    tb_init(p->t);
    if (v == 0) {
      tu_nvq_cm_req(p->t, &q, port, cid, tid);
    } else if (v == 1) {
      tu_nvq_cm_rep(p->t, &q, tid);
    } else {
      tu_cm cm;
      tu_spec s;
      memset(&cm, 0, sizeof(cm));
      cm.attr = fs_cm_attr[v];
      cm.tid = tid;
      cm.lcid = 0x10000000u | q.hqpn;
      cm.rcid = 0x20000000u | q.tqpn;
      cm.remote_qpn = q.tqpn;
      cm.rej_reason = e[15];
      cm.service_id = UINT64_C(0x0000000001060000) | port;
      cm.local_qpn = q.hqpn;
      cm.start_psn = q.hpsn;
      memcpy(cm.lgid, q.host, 16);
      memcpy(cm.rgid, q.target, 16);
      if (v == 7) {
        cm.mad_len = 24 + (size_t)(e[15] % 232);
      }
      /* RTU, DREP and MRA travel with the REQ, DREQ and REJ against it */
      tu_nvq_spec(&s, &q, v == 2 || v == 3 || v == 7, 0x64, 0);
      s.psn = 0xC03;
      tu_build_cm_on(p->t, &s, &cm);
    }
    p->paylen = 256;
    p->caplen = p->wire = p->t->n;
    p->linktype = RTEL_LINK_ETHERNET;
    memset(&p->s, 0, sizeof(p->s));
    p->s.opcode = 0x64;
    p->s.dqpn = 1;
    memcpy(p->s.src, rev ? c->q.target : c->q.host, 16);
    memcpy(p->s.dst, rev ? c->q.host : c->q.target, 16);
    return 1;
  }
  case 9: { /* NVMe-oF command capsule, host -> target */
    uint32_t d = (uint32_t)le16(e + 11) * 64, nsid;
    uint64_t slba = (uint64_t)e[14] * 8;
    uint32_t nlb = d / 512 ? d / 512 : 1;
    uint32_t key = fs_key(ci, cid);
    uint64_t va = fs_va(ci, cid);
    uint8_t op = 0x04;
    size_t extra = 0;
    nsid = e[13] == 0 ? 1 : e[13] == 0xff ? 0xffffffffu : e[13];
    memset(b, 0, sizeof(p->pay));
    switch (var) {
    case 0:
    case 7:
    case 14:
      tu_sqe_rw(b, TU_NVME_READ, cid, nsid, slba, nlb, va, d, key);
      if (var == 7) {
        tu_sqe_keyed_inv(b);
      }
      if (var == 14) {
        op = 0x00; /* SEND FIRST */
        extra = 64;
      }
      break;
    case 1:
    case 8:
    case 15:
      tu_sqe_rw(b, TU_NVME_WRITE, cid, nsid, slba, nlb, va, d, key);
      if (var == 8) {
        tu_sqe_keyed_inv(b);
      }
      if (var == 15) {
        extra = 32; /* a capsule longer than its SQE */
      }
      break;
    case 2: /* in-capsule write in one SEND */
      extra = le16(e + 11) % 8193;
      tu_sqe_incapsule(b, cid, nsid, slba, nlb, (uint32_t)extra);
      break;
    case 3: /* in-capsule write whose capsule spans packets */
      tu_sqe_incapsule(b, cid, nsid, slba, nlb, le16(e + 11));
      op = 0x00;
      extra = (size_t)e[15] * 4;
      break;
    case 4:
      tu_sqe_flush(b, cid, nsid);
      break;
    case 5:
      tu_sqe_connect(b, cid, e[14], 1024);
      extra = 1024;
      break;
    case 6:
      tu_sqe_fabrics(b, cid, e[13]);
      break;
    case 9: /* admin Identify */
      tu_sqe_rw(b, 0x06, cid, nsid, 0, 1, va, 4096, key);
      break;
    case 10: { /* a Last Segment SGL list of two keyed descriptors */
      unsigned i;
      tu_sqe_rw(b, (e[15] & 1) ? TU_NVME_WRITE : TU_NVME_READ, cid, nsid, slba,
                nlb, va, d, key);
      memset(b + 24, 0, 16);
      b[32] = 32; /* list length */
      b[39] = 0x31;
      for (i = 0; i < 2; i++) {
        uint8_t *g = b + 64 + 16 * i;
        uint64_t gva = va + (uint64_t)i * (d / 2);
        uint32_t glen = d / 2;
        unsigned k;
        for (k = 0; k < 8; k++) {
          g[k] = (uint8_t)(gva >> (8 * k));
        }
        g[8] = (uint8_t)glen;
        g[9] = (uint8_t)(glen >> 8);
        g[10] = (uint8_t)(glen >> 16);
        for (k = 0; k < 4; k++) {
          g[11 + k] = (uint8_t)((key + i * 0x100000u) >> (8 * k));
        }
        g[15] = 0x40;
      }
      extra = 32;
      break;
    }
    case 11: /* any opcode, keyed SGL */
      tu_sqe_rw(b, e[13], cid, nsid, slba, nlb, va, d, key);
      break;
    case 12: /* not the shape of an SQE (PSDT 0) */
      tu_sqe_rw(b, TU_NVME_READ, cid, nsid, slba, nlb, va, d, key);
      b[1] = 0;
      break;
    default: /* 13: a zero-length read */
      tu_sqe_rw(b, TU_NVME_READ, cid, nsid, slba, nlb, va, 0, key);
      break;
    }
    if (var != 10) {
      size_t k, m = extra < FS_BUILD_MAX ? extra : FS_BUILD_MAX;
      for (k = 0; k < m; k++) {
        b[64 + k] = (uint8_t)(k * 7 + 1);
      }
    }
    fs_spec(p, c, rev, op, 64 + extra, e);
    p->s.psn = fs_psn(c, rev, e, 1);
    fs_build(p, b);
    return 1;
  }
  case 10: /* SEND MIDDLE / LAST: the rest of a command capsule */
    fs_spec(p, c, rev, (var & 1) ? 0x02 : 0x01, fs_len(e, 9000), e);
    p->s.psn = fs_psn(c, rev, e, 1);
    fs_build(p, NULL);
    return 1;
  case 11: { /* response capsule, target -> host */
    uint8_t op = (var & 3) == 1 ? 0x17 : (var & 3) == 3 ? 0x02 : 0x04;
    tu_cqe(b, cid, (uint16_t)(e[13] | (e[14] & 0x7f) << 8));
    fs_spec(p, c, !rev, op, (var & 3) == 2 ? 20 : 16, e);
    p->s.psn = fs_psn(c, !rev, e, 1);
    p->s.ieth_rkey = fs_key(ci, cid);
    memset(b + 16, 0, 4);
    fs_build(p, b);
    return 1;
  }
  case 12: { /* read data: RDMA WRITE target -> host */
    static const uint8_t ops[8] = {0x06, 0x07, 0x08, 0x0A,
                                   0x09, 0x0B, 0x0A, 0x06};
    fs_spec(p, c, !rev, ops[var & 7], fs_len(e, 9000), e);
    p->s.psn = fs_psn(c, !rev, e, 1);
    p->s.reth_va = fs_va(ci, cid) + (uint64_t)(e[15] & 0x7f) * 4096;
    p->s.reth_rkey = fs_key(ci, cid) ^ ((e[15] & 0x80) ? 0x8000u : 0);
    p->s.reth_len = e[13] ? (uint32_t)e[13] * 4096 : (uint32_t)p->paylen;
    fs_build(p, NULL);
    return 1;
  }
  case 13: { /* READ REQUEST of write data: target -> host */
    uint32_t span = 1 + (e[14] & 0x3f);
    fs_spec(p, c, !rev, 0x0C, 0, e);
    p->s.psn = fs_psn(c, !rev, e, span);
    c->rr_psn[rev] = p->s.psn;
    p->s.reth_va = fs_va(ci, cid) + (uint64_t)(e[15] & 0x7f) * 4096;
    p->s.reth_rkey = fs_key(ci, cid) ^ ((e[15] & 0x80) ? 0x8000u : 0);
    p->s.reth_len = (uint32_t)le16(e + 11) * 64;
    fs_build(p, NULL);
    return 1;
  }
  default: { /* 15: not measured */
    unsigned v = var & 7;
    if (v == 1) { /* an IPv4 fragment of a RoCE packet */
      tb_init(p->t);
      tb_eth(p->t, tu_mac_b, tu_mac_a);
      tb_ethertype(p->t, 0x0800);
      tb_ipv4(p->t, 0, 0x99, 0x2000, 64, 17, 0x0a010001u, 0x0a020001u, NULL,
              0);
      tb_udp(p->t, 0xC000, 4791);
      tb_pattern(p->t, 40, e[13]);
      tb_finish_plain(p->t);
      p->caplen = p->wire = p->t->n;
      p->linktype = RTEL_LINK_ETHERNET;
      memset(&p->s, 0, sizeof(p->s));
      return 1;
    }
    if (v == 6) { /* garbage: the event's own bytes */
      tb_init(p->t);
      tb_bytes(p->t, e, FS_EV);
      p->caplen = p->wire = p->t->n;
      p->linktype = (e[13] & 1) ? RTEL_LINK_RAW : RTEL_LINK_ETHERNET;
      memset(&p->s, 0, sizeof(p->s));
      return 1;
    }
    fs_spec(p, c, rev, v == 2 ? (uint8_t)(0xC0 | e[13]) : 0x04, fs_len(e, 256),
            e);
    p->s.psn = fs_psn(c, rev, e, 1);
    if (v == 0) {
      p->s.dport = 53;
    } else if (v == 7) {
      p->s.dport = 4792;
    } else if (v == 3) {
      p->s.tver = 1;
    } else if (v == 5) {
      p->paylen = 0;
    }
    fs_build(p, NULL);
    if (v == 5) {
      /* pad 3 with no payload */
      p->t->b[p->t->bth_off + 1] |= 0x30;
    } else if (v == 4 && p->t->nudp) {
      tb_set16(p->t, p->t->udp_off[0] + 4, 4);
    }
    return 1;
  }
  }
}

/* Hands the batched packets to the context. */
static void fs_flush_batch(void) {
  unsigned n = F.nbatch, i;
  rtel_ssize rv;
  if (n == 0) {
    return;
  }
  F.nbatch = 0;
  if (F.failed) {
    return;
  }
  for (i = 0; i < n; i++) {
    F.pkts[i] = F.tbs[i].b;
  }
  F.batch_base = F.pis;
  F.batch_last = 0;
  F.nbatch = n; /* for the index check in on_packet */
  rv = rtel_ctx_read_pkts(F.ctx, F.pis, F.pkts, F.lens, n);
  SH_PKT_DO(rtel_ctx_read_pkts(sctx_, F.pis, F.pkts, F.lens, n), rv);
  tw_packets(F.pis, F.pkts, F.lens, n);
  F.nbatch = 0;
  F.batch_base = NULL;
  if (F.cb_failed) {
    /* "the count covers the packets processed before it" */
    long idx = F.batch_last;
    FS_CHECK(rv == (idx == 0 ? RTEL_ERR_CALLBACK_FAILURE : idx));
    F.n_pkts += (uint64_t)idx + 1;
    F.failed = 1;
    F.cb_failed = 0;
    return;
  }
  FS_CHECK(rv == (rtel_ssize)n);
  F.n_pkts += n;
}

/* The decoder's fast path against its general walk on every packet of the
 * sequence (tests/check_fastpath.c does it on built shapes): the entries
 * the library uses (rtel__decode(), rtel__decode_lite()) and
 * rtel__decode_general() must give the same result and the same
 * rtel_pkt_hd, byte for byte from the same starting pattern (the lite
 * entry: but for the fields it leaves alone). */
static void fs_decode_diff(const uint8_t *pkt, size_t caplen, size_t wire,
                           uint32_t linktype) {
  static rtel_pkt_hd a, b;
  rtel__decode_cfg cfg;
  int full;
  FS_CHECK(rtel__decode_cfg_init(
               &cfg, (F.hflags & 0x10) ? RTEL_DECODE_VERIFY_ICRC : 0, linktype,
               0, 0) == 0);
  for (full = 1; full >= 0; full--) {
    int ra, rb;
    memset(&a, 0x5a, sizeof(a));
    memset(&b, 0x5a, sizeof(b));
    ra = full ? rtel__decode(&a, &cfg, pkt, caplen, wire)
              : rtel__decode_lite(&a, &cfg, pkt, caplen, wire);
    rb = rtel__decode_general(&b, &cfg, pkt, caplen, wire, full);
    FS_CHECK(ra == rb);
    if (!full) { /* what the lite entry leaves alone */
      a.cap_len = b.cap_len;
      memcpy(a.eth_dst, b.eth_dst, 12); /* and eth_src */
      a.ethertype = b.ethertype;
      memcpy(a.vlan_tpid, b.vlan_tpid, sizeof(a.vlan_tpid));
      a.ttl = b.ttl;
      a.ip_proto = b.ip_proto;
      a.flow_label = b.flow_label;
      a.dport = b.dport;
      a.udp_csum = b.udp_csum;
      a.se = b.se;
      a.m = b.m;
      a.pad = b.pad;
      a.tver = b.tver;
      a.pkey = b.pkey;
      a.resv6 = b.resv6;
      a.ackreq = b.ackreq;
      a.resv7 = b.resv7;
    }
    FS_CHECK(memcmp(&a, &b, sizeof(a)) == 0);
  }
}

static void fs_packet(const uint8_t *e) {
  static fs_pkt p;
  rtel_pkt_info *pi;
  rtel_tstamp dt = dt16(le16(e + 4)), ts;
  fs_log *l;
  unsigned slot = F.nbatch;
  uint32_t port = (uint32_t)(e[0] >> 6) | (uint32_t)(e[3] >> 7) << 2;
  size_t k;

  p.t = &F.tbs[slot];
  if (!fs_make(&p, e)) {
    return;
  }
  if (e[3] & 0x08) {
    ts = F.clock > dt ? F.clock - dt : 0; /* out of order */
  } else {
    ts = F.clock + dt;
    F.clock = ts;
  }
  if (e[3] & 0x20) { /* a capture cut short */
    size_t cut = 40 + 2 * (size_t)e[15];
    if (cut < p.caplen) {
      p.caplen = cut;
    }
  }
  fs_decode_diff(p.t->b, p.caplen, p.wire, p.linktype);
  FS_TRACE("  packet kind %u ts %llu obs %u port %u opcode %02x dqpn %06x "
           "psn %06x len %zu/%zu\n",
           e[1] & 15u, (unsigned long long)ts, obs_ids[(e[0] >> 4) & 3], port,
           p.s.opcode, p.s.dqpn, p.s.psn, p.caplen, p.wire);
  pi = &F.pis[slot];
  memset(pi, 0, sizeof(*pi));
  pi->ts = ts;
  pi->wire_len = (uint32_t)p.wire;
  pi->obs = obs_ids[(e[0] >> 4) & 3];
  pi->port = port;
  pi->linktype = p.linktype == F.set.linktype ? 0 : p.linktype;
  F.lens[slot] = p.caplen;
  fs_time(ts);
  if (F.sched_next != FS_NONE && ts >= F.sched_next) {
    F.sched_late = 1;
  }
  if (F.first_pkt == FS_NONE) {
    /* the periods are aligned to the first packet */
    F.first_pkt = ts;
    if (F.set.stats_interval) {
      F.st_next = ts + F.set.stats_interval;
    }
    F.agg_start = ts;
    if (F.set.report_interval) {
      F.agg_next = ts + F.set.report_interval;
    }
  }
  /* the log */
  if (F.nlog < FS_LOG) {
    l = &F.log[F.nlog++];
    memset(l, 0, sizeof(*l));
    l->ts = ts;
    l->obs = pi->obs;
    l->dqpn = p.s.dqpn;
    l->opcode = p.s.opcode;
    memcpy(l->src, p.s.src, 16);
    memcpy(l->dst, p.s.dst, 16);
    l->paylen = (uint32_t)p.paylen;
    if (p.t->payload_off && p.t->payload_off < p.caplen) {
      k = p.caplen - p.t->payload_off;
      l->npay = (uint8_t)(k < 16 ? k : 16);
      memcpy(l->pay, p.t->b + p.t->payload_off, l->npay);
    }
  }
  if (F.hflags & 0x20) {
    F.nbatch++;
    if (F.nbatch == FS_BATCH) {
      fs_flush_batch();
    }
    return;
  }
  if (F.failed) {
    return;
  }
  {
    int rv = rtel_ctx_read_pkt(F.ctx, pi, p.t->b, p.caplen);
    SH_PKT_DO(rtel_ctx_read_pkt(sctx_, pi, p.t->b, p.caplen), rv);
    {
      const uint8_t *b1 = p.t->b;
      size_t l1 = p.caplen;
      tw_packets(pi, &b1, &l1, 1);
    }
    F.n_pkts++;
    if (!fs_call_failed(rv)) {
      FS_CHECK(rv == 0);
    }
  }
}

/* ------------------------------------------------------------ events */

static void fs_timer(const uint8_t *e) {
  rtel_tstamp dt = dt16(le16(e + 2)), now, t;
  unsigned mode = e[1] % 6, i;
  switch (mode) {
  case 0:
    now = rtel_ctx_get_expiry(F.ctx);
    if (now == FS_NONE) {
      now = F.clock;
    }
    break;
  case 1:
    now = F.clock + dt;
    break;
  case 2:
    now = F.clock > dt ? F.clock - dt : 0;
    break;
  case 3: { /* just before the earliest timer: nothing to do */
    unsigned long ncb = F.ncb;
    t = rtel_ctx_get_expiry(F.ctx);
    if (t == FS_NONE || t == 0) {
      return;
    }
    if (fs_handle_expiry(t - 1) != 0) {
      return;
    }
    FS_CHECK(F.ncb == ncb);
    return;
  }
  case 4: { /* an embedder's loop: every call makes progress */
    rtel_tstamp end = F.clock + dt, prev = 0;
    for (i = 0; i < 64; i++) {
      t = rtel_ctx_get_expiry(F.ctx);
      if (t == FS_NONE || t > end) {
        break;
      }
      FS_CHECK(i == 0 || t > prev);
      prev = t;
      if (fs_handle_expiry(t) != 0) {
        return;
      }
    }
    if (e[4] & 1) {
      F.clock = end;
    }
    return;
  }
  default:
    now = F.clock + UINT64_C(3600000000000);
    break;
  }
  if (fs_handle_expiry(now) != 0) {
    return;
  }
  if ((e[4] & 1) && now > F.clock) {
    F.clock = now;
  }
}

static void fs_sched(const uint8_t *e) {
  rtel_schedule sch;
  rtel_tstamp now = F.clock + dt16(le16(e + 7));
  int valid, rv;
  memset(&sch, 0, sizeof(sch));
  sch.mode = e[1] % 3;
  sch.ports_per_slot = e[2] % 5;
  sch.slot_ns = dt16(le16(e + 3));
  sch.alarm_priority = dt16(le16(e + 5));
  valid = sch.mode == RTEL_SCHED_FULL ||
          (sch.mode == RTEL_SCHED_POLL && sch.ports_per_slot != 0 &&
           sch.slot_ns != 0);
  fs_time(now);
  F.exp_slot = valid;
  F.got_slot = 0;
  F.exp_slot_start = now;
  F.exp_slot_end = sch.mode == RTEL_SCHED_POLL ? now + sch.slot_ns : FS_NONE;
  if (valid) {
    unsigned k;
    F.mode = sch.mode;
    F.per = sch.ports_per_slot;
    F.slot_ns = sch.slot_ns;
    F.prio = sch.alarm_priority;
    /* the waits are counted from here */
    F.fair_ok = 1;
    for (k = 0; k < FS_PORTS; k++) {
      F.port_last[k] = F.last_slot;
    }
  }
  FS_TRACE("  set_schedule mode %u per %u slot %llu prio %llu at %llu\n",
           sch.mode, sch.ports_per_slot, (unsigned long long)sch.slot_ns,
           (unsigned long long)sch.alarm_priority, (unsigned long long)now);
  rv = rtel_ctx_set_schedule(F.ctx, &sch, now);
  SH_DO(rtel_ctx_set_schedule(sctx_, &sch, now), rv);
  if (fs_call_failed(rv)) {
    return;
  }
  FS_CHECK(rv == (valid ? 0 : RTEL_ERR_INVALID_ARGUMENT));
  FS_CHECK(F.got_slot == F.exp_slot);
  F.exp_slot = 0;
  if (now > F.clock) {
    F.clock = now;
  }
}

static void fs_port(const uint8_t *e) {
  static const char *names[3] = {NULL, "eth1/1",
                                 "a-port-name-longer-than-31-bytes-for-sure"};
  rtel_port port;
  int expect, rv;
  memset(&port, 0, sizeof(port));
  port.id = (e[1] & 0x80) ? 0xffffffffu : (uint32_t)(e[1] & 7);
  port.role = e[2] % 5;
  port.name = names[e[3] % 3];
  expect = port.role <= RTEL_ROLE_FABRIC && fs_port_idx(port.id) < 0 &&
           F.nports < F.set.max_ports;
  fs_time(F.clock);
  rv = rtel_ctx_add_port(F.ctx, &port, F.clock);
  SH_DO(rtel_ctx_add_port(sctx_, &port, F.clock), rv);
  FS_CHECK(rv == (expect ? 0 : RTEL_ERR_INVALID_ARGUMENT));
  if (expect) {
    unsigned k;
    FS_CHECK(F.nports < FS_PORTS);
    F.port_id[F.nports++] = port.id;
    /* N changed: the waits are counted from the next slot */
    for (k = 0; k < FS_PORTS; k++) {
      F.port_last[k] = F.last_slot;
    }
    /* measured at once in full mode, from its first slot when polling */
    FS_CHECK(rtel_ctx_port_measured(F.ctx, port.id) ==
             (F.mode == RTEL_SCHED_FULL));
  }
}

static void fs_role_ev(const uint8_t *e) {
  uint32_t obs = (e[1] & 0x80) ? e[1] : obs_ids[e[1] & 3];
  uint32_t role = e[2] % 5;
  unsigned i;
  int expect = role <= RTEL_ROLE_FABRIC;
  int known = 0;
  for (i = 0; i < F.nroles; i++) {
    if (F.role_obs[i] == obs) {
      known = 1;
    }
  }
  if (!known && F.nroles == RTEL_MAX_OBS_ROLES) {
    expect = 0;
  }
  FS_CHECK(rtel_ctx_set_obs_role(F.ctx, obs, role) ==
           (expect ? 0 : RTEL_ERR_INVALID_ARGUMENT));
  SH_DO(rtel_ctx_set_obs_role(sctx_, obs, role),
        (expect ? 0 : RTEL_ERR_INVALID_ARGUMENT));
  if (!expect) {
    return;
  }
  for (i = 0; i < F.nroles; i++) {
    if (F.role_obs[i] == obs) {
      F.role[i] = role;
      return;
    }
  }
  F.role_obs[F.nroles] = obs;
  F.role[F.nroles++] = role;
}

static void fs_alarm_ev(const uint8_t *e) {
  static const double vals[32] = {
      0,   1,    1000, 1e5,  1e6,  1e7,  1e9,   0.01, 0.1, 0.5, 1e12,
      100, -1,   3,    1e-6, NAN,  2e4,  2.5e4, 3e4,  5e4, 2e5, 5e5,
      2e6, 0.05, 0.2,  1e8,  1e10, 3000, 10,    1e-3, 0.9, 1.5};
  uint32_t metric = e[2] % 10, scope = e[3] % 4;
  double v = vals[e[4] & 31];
  uint32_t warmup = e[5] % 8;
  int ok = metric >= RTEL_METRIC_IOL && metric <= RTEL_METRIC_CNP_RATE &&
           (scope == RTEL_SCOPE_PAIR || scope == RTEL_SCOPE_PORT) && v >= 0;
  if (e[1] & 1) {
    ok = ok && (v == 0 || warmup >= 2);
    FS_CHECK(rtel_ctx_set_baseline(F.ctx, metric, scope, v, warmup) ==
             (ok ? 0 : RTEL_ERR_INVALID_ARGUMENT));
    SH_DO(rtel_ctx_set_baseline(sctx_, metric, scope, v, warmup),
          (ok ? 0 : RTEL_ERR_INVALID_ARGUMENT));
    if (ok) {
      F.bk[metric][scope] = v;
    }
  } else {
    FS_CHECK(rtel_ctx_set_threshold(F.ctx, metric, scope, v) ==
             (ok ? 0 : RTEL_ERR_INVALID_ARGUMENT));
    SH_DO(rtel_ctx_set_threshold(sctx_, metric, scope, v),
          (ok ? 0 : RTEL_ERR_INVALID_ARGUMENT));
    if (ok) {
      F.thr[metric][scope] = v;
    }
  }
}

static void fs_event(const uint8_t *e) {
  unsigned type = e[0] & 0x0f;
  FS_TRACE("event %u clock %llu\n", type, (unsigned long long)F.clock);
  if (type < 8) {
    fs_packet(e);
    return;
  }
  fs_flush_batch();
  if (type == 8) {
    fs_conn_set(e);
    return;
  }
  if (type == 15) {
    rtel_tstamp dt = dt16(le16(e + 1));
    if (e[3] & 1) {
      F.clock = F.clock > dt ? F.clock - dt : 0;
    } else {
      F.clock += dt;
    }
    return;
  }
  if (F.failed) {
    return;
  }
  switch (type) {
  case 9:
    fs_timer(e);
    break;
  case 10:
    fs_sched(e);
    break;
  case 11:
    fs_port(e);
    break;
  case 12:
    fs_role_ev(e);
    break;
  case 13:
    fs_alarm_ev(e);
    break;
  default: /* 14 */
    (void)fs_flush(F.clock + dt16(le16(e + 1)));
    break;
  }
}

/* ------------------------------------------------------------ the end */

static void fs_finish(void) {
  rtel_ctx_stats st;
  rtel_tstamp exp, want;
  unsigned long ncb;

  if (fs_flush(F.clock) != 0) {
    return;
  }
  FS_CHECK(rtel_ctx_get_stats(F.ctx, &st) == 0);
  fs_check_counters();
  /* every flow and every I/O has ended, each in its records */
  FS_CHECK(st.flows_active == 0);
  FS_CHECK(st.ios_active == 0);
  if (!(F.set.flow_flags & RTEL_FLOW_DISABLE)) {
    FS_CHECK(F.flow_pkts + st.flows_untracked_pkts == F.n_data);
    if (st.flows_untracked_pkts == 0) {
      FS_CHECK(F.flow_bytes == F.data_bytes);
    }
    FS_CHECK(F.flow_msgs == F.n_msg);
  } else {
    FS_CHECK(F.n_msg == 0 && F.flow_pkts == 0);
  }
  /* nothing is left but the periods: no flow, no I/O, no join */
  want = F.sched_next;
  if (F.st_next < want) {
    want = F.st_next;
  }
  if (F.agg_next < want) {
    want = F.agg_next;
  }
  exp = rtel_ctx_get_expiry(F.ctx);
  FS_TRACE("end: expiry %llu, expected %llu\n", (unsigned long long)exp,
           (unsigned long long)want);
  FS_CHECK(exp == want);
  /* a second flush finds nothing to deliver */
  ncb = F.ncb;
  if (fs_flush(F.clock) != 0) {
    return;
  }
  FS_CHECK(F.ncb == ncb);
  fs_check_counters();
}

static void fs_settings(const uint8_t *h) {
  rtel_settings *s = &F.set;
  rtel_settings_default(s);
  s->flow_flags =
      (h[0] & 1 ? RTEL_FLOW_DISABLE : 0) | (h[0] & 2 ? RTEL_FLOW_NO_EVICT : 0);
  s->nvme_flags =
      (h[0] & 4 ? RTEL_NVME_DISABLE : 0) | (h[0] & 8 ? RTEL_NVME_NO_GUESS : 0);
  s->decode_flags = h[0] & 0x10 ? RTEL_DECODE_VERIFY_ICRC : 0;
  if (h[0] & 0x40) {
    s->nvme_ports[0] = 4420;
    s->nvme_ports[1] = 4421;
  }
  s->linktype = h[0] & 0x80 ? RTEL_LINK_RAW : RTEL_LINK_ETHERNET;
  s->max_flows = 1 + h[1] % 32;
  s->max_qp_pairs = h[2] % 64;
  s->max_nvme_queues = 1 + h[3] % 8;
  s->max_ios = 1 + h[4] % 32;
  s->max_io_joins = h[5] % 32;
  s->max_aggregates = 1 + h[6] % 8;
  s->max_ports = 1 + h[7] % 8;
  s->max_alarm_keys = 1 + h[8] % 16;
  s->flow_idle_timeout = dt16(le16(h + 9));
  s->flow_active_timeout = dt16(le16(h + 11));
  s->io_timeout = dt16(le16(h + 13));
  s->io_join_window = dt16(le16(h + 15));
  s->report_interval = dt16(le16(h + 17));
  s->stats_interval = dt16(le16(h + 19));
  s->hash_seed = h[21];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t h[FS_HDR];
  size_t i, nev;
  int rv;

  memset(&F, 0, sizeof(F));
  memset(&SH, 0, sizeof(SH));
  if (fs_trace < 0) {
    fs_trace = getenv("FUZZ_SEQ_TRACE") != NULL;
  }
  memset(h, 0, sizeof(h));
  memcpy(h, data, size < FS_HDR ? size : FS_HDR);
  F.hflags = h[0];
  fs_settings(h);
  F.fail_cb = h[22] % 16;
  F.fail_at = (unsigned)h[23] + 1;
  F.mono = 1;
  F.first_pkt = F.st_next = F.agg_start = F.agg_next = FS_NONE;
  F.sched_next = FS_NONE;
  F.last_slot = -1;
  F.mode = RTEL_SCHED_FULL;
  F.clock = h[25] < 0x80 ? UINT64_C(1700000000000000000)
                         : (rtel_tstamp)(h[25] & 0x7f) * 1000000u;
  fs_conn_default();

  /* an allocation failure inside rtel_ctx_new() leaks nothing */
  if (h[24] % 32) {
    rtel_ctx *ctx = NULL;
    F.fail_alloc_at = h[24] % 32;
    rv = rtel_ctx_new(&ctx, &F.set, &fs_callbacks, &fs_mem, &F);
    if (rv == 0) {
      FS_CHECK(F.alloc_calls < F.fail_alloc_at);
      rtel_ctx_del(ctx);
    } else {
      FS_CHECK(rv == RTEL_ERR_NOMEM && ctx == NULL);
    }
    FS_CHECK(F.live == 0 && F.nblk == 0);
    F.fail_alloc_at = 0;
    F.alloc_calls = 0;
    F.total = 0;
  }

  rv = rtel_ctx_new(&F.ctx, &F.set, &fs_callbacks, &fs_mem, &F);
  FS_CHECK(rv == 0);
  FS_CHECK(F.total <= fs_mem_bound(&F.set));
  /* the shadow: the library's allocator (not counted); its callbacks fail
   * where the checked context's do (sh_fail()), except on_packet, which it
   * does not have */
  SH.on = F.fail_cb != CB_PACKET;
  memset(SH.calls, 0, sizeof(SH.calls));
  if (SH.on) {
    FS_CHECK(rtel_ctx_new(&SH.ctx, &F.set, &sh_callbacks, NULL, NULL) == 0);
    /* the burst path even on these small tables (a test hook): the flow
     * table's, or without one the pairing table's */
    SH.ctx->ahead = (F.set.flow_flags & RTEL_FLOW_DISABLE) ? RTEL__AHEAD_PAIRS
                                                           : RTEL__AHEAD_FLOWS;
    /* the fused fast path (lib/rtel_ctx.c read_fast()) for a flow table
     * alone, as rtel_ctx_read_pkt(3) says: then the shadow's packets take
     * it where it applies, the checked context's (on_packet) never */
    FS_CHECK(SH.ctx->fast ==
             (!(F.set.flow_flags & RTEL_FLOW_DISABLE) &&
              (F.set.nvme_flags & RTEL_NVME_DISABLE) &&
              !(F.set.decode_flags & RTEL_DECODE_VERIFY_ICRC) &&
              (F.set.linktype == 0 || F.set.linktype == RTEL_LINK_ETHERNET)));
    FS_CHECK(!F.ctx->fast);
  }
  TW.on = (h[26] & 1) != 0;
  if (TW.on) {
    for (i = 0; i < 2; i++) {
      FS_CHECK(rtel_ctx_new(&TW.ctx[i], &F.set, &sh_callbacks, NULL,
                            (void *)(uintptr_t)&tw_side[i]) == 0);
    }
    TW.ctx[1]->ahead = (F.set.flow_flags & RTEL_FLOW_DISABLE)
                           ? RTEL__AHEAD_PAIRS
                           : RTEL__AHEAD_FLOWS;
  }
  F.frozen = 1; /* no allocation from here on */
  FS_CHECK(rtel_ctx_get_expiry(F.ctx) == FS_NONE);

  nev = size > FS_HDR ? (size - FS_HDR) / FS_EV : 0;
  if (nev > FS_MAX_EVENTS) {
    nev = FS_MAX_EVENTS;
  }
  for (i = 0; i < nev; i++) {
    fs_event(data + FS_HDR + i * FS_EV);
    if (!F.failed) {
      fs_check_counters();
    }
    if (F.failed) {
      fs_check_failed_ctx();
    }
  }
  fs_flush_batch();
  if (!F.failed) {
    fs_check_counters();
    fs_finish();
  }
  if (F.failed) {
    fs_check_failed_ctx();
  }
  if (SH.on) {
    rtel_ctx_stats a, b;
    sh_compare();
    FS_CHECK(rtel_ctx_get_stats(F.ctx, &a) == 0);
    FS_CHECK(rtel_ctx_get_stats(SH.ctx, &b) == 0);
    FS_CHECK(memcmp(&a, &b, sizeof(a)) == 0);
    rtel_ctx_del(SH.ctx);
  }
  if (TW.on) {
    rtel_ctx_stats a, b;
    tw_compare();
    FS_CHECK(rtel_ctx_get_stats(TW.ctx[0], &a) == 0);
    FS_CHECK(rtel_ctx_get_stats(TW.ctx[1], &b) == 0);
    FS_CHECK(memcmp(&a, &b, sizeof(a)) == 0);
    rtel_ctx_del(TW.ctx[0]);
    rtel_ctx_del(TW.ctx[1]);
    TW.on = 0;
  }
  rtel_ctx_del(F.ctx);
  F.frozen = 0;
  FS_CHECK(F.live == 0 && F.nblk == 0);
  return 0;
}
