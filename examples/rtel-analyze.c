/* SPDX-License-Identifier: MIT */
/*
 * rtel-analyze: read pcap/pcapng captures, feed every packet to a libroceTel
 * context, print what it decoded and counted.
 *
 *   rtel-analyze [OPTIONS] [NAME=]FILE...
 *
 * One context per FILE (an observation point named NAME, by default the
 * file's base name without extension). The library does no I/O: this
 * program reads the files (libpcap), hands each packet with its capture
 * timestamp to rtel_ctx_read_pkt(), prints the records the callbacks
 * deliver, and the counters at the end. See rtel-analyze(1).
 */
#define _DEFAULT_SOURCE 1 /* u_char & co. in pcap.h, strndup */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pcap/pcap.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rocetel/rocetel.h>

#include "capfile.h"
#include "ipfix-export.h"
#include "pcap-input.h"
#include "rtel-json.h"
#include "rtel-report.h"

#define PROG "rtel-analyze"

enum { FMT_TEXT, FMT_JSON };

typedef struct options {
  int packets;
  int flows;
  int messages;
  int no_flows; /* --no-flows: the library's flow table off */
  int ios;
  int segments;
  int split; /* --split-interfaces */
  int summary;
  uint64_t interval_ns;
  int stats;
  uint32_t max_flows;
  uint32_t max_ios;
  uint64_t flow_idle_ns;
  uint64_t io_timeout_ns;
  const char *compute_side;
  const char *storage_side;
  uint32_t poll_ports; /* --poll P/SLOT: ports per slot, 0 = full mode */
  uint64_t poll_slot_ns;
  size_t nalarms;
  struct alarm_opt {
    uint32_t metric;
    uint32_t scope;
    double value;
  } alarms[16];
  int format;
  uint32_t decode_flags;
  uint32_t roce_port;
  ipfix_export_opts ipfix; /* --ipfix, --ipfix-file */
  const char *report_path; /* --report FILE */
  size_t report_top;       /* --report-top N (0: the default) */
  int report_ns;           /* --report-ns */
  char *cmdline;           /* shown in the report */
} options;

typedef struct input {
  const char *path;
  const char *name; /* NAME=, or the file's base name */
  char *name_alloc;
  int named; /* NAME= was given */
  capfile *cf;
  capfile_pkt pk; /* the packet read ahead, when |have| */
  int have;
  uint64_t frame;    /* its frame number in the file (1-based) */
  uint32_t point;    /* the point of the file (without --split-interfaces) */
  uint32_t *ifpoint; /* --split-interfaces: the point of each interface */
  size_t nifpoint;
} input;

#define NO_POINT UINT32_MAX

/* An observation point: a FILE, or with --split-interfaces an interface
 * of a pcapng FILE; FILEs (and their interfaces) given the same NAME= are
 * one point. */
typedef struct point {
  char *name;
  size_t file; /* the input it was made for */
  int named;   /* its name comes from NAME= (other inputs may share it) */
  rtel_tstamp last_ts; /* of the packets handed over (NONE: none yet) */
} point;

typedef struct run {
  const options *opt;
  input *in;
  size_t nin;
  point *pt; /* the points, indexed by observation point id */
  size_t npt, ptcap;
  const char **ptnames; /* their names, for r->names */
  rtel_ctx *ctx;        /* once created */
  size_t nports;        /* --poll: points registered as ports */
  uint64_t frame;       /* the frame number of the packet handed over */
  int header_done;      /* text: table header printed */
  int flow_header_done;
  int msg_header_done;
  int io_header_done;
  int seg_header_done;
  int sum_header_done;
  /* records delivered, printed or not: for the hints at the end */
  uint64_t nflows, nmsgs, nios, nsegs, naggs;
  ipfix_export *ipfix; /* or NULL */
  report *rep;         /* --report: or NULL */
  rtel_tstamp now;     /* the latest packet time: IPFIX export time */
  rj_buf jb;           /* JSON: the line being written */
  rj_names names;      /* JSON: the observation points */
} run;

#define OBS(r, id) ((id) < (r)->npt ? (r)->pt[id].name : "?")

/* Writes the JSON line that the printer call before it made. */
#define json_out(r, print_call)                                               \
  do {                                                                        \
    rj_reset(&(r)->jb);                                                       \
    print_call;                                                               \
    if ((r)->jb.len) {                                                        \
      fwrite((r)->jb.p, 1, (r)->jb.len, stdout);                              \
    }                                                                         \
  } while (0)

/* ------------------------------------------------------------ output */

static void text_packet(run *r, const rtel_pkt_info *pi,
                        const rtel_pkt_hd *hd) {
  char src[INET6_ADDRSTRLEN + 8], dst[INET6_ADDRSTRLEN + 8];
  const uint8_t *a;
  int i;

  if (!r->header_done) {
    printf("%-*s %7s %20s  %-15s %-15s %-34s %8s %8s %6s  %s\n",
           (int)strlen(OBS(r, pi->obs)), "OBS", "FRAME", "TIME_NS", "SRC",
           "DST", "OPCODE", "DQPN", "PSN", "LEN", "INFO");
    r->header_done = 1;
  }
  for (i = 0; i < 2; i++) {
    char *out = i ? dst : src;
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0,    0,
                                       0, 0, 0, 0, 0xff, 0xff};
    a = i ? hd->dst : hd->src;
    if ((hd->flags & RTEL_HD_F_IPV4) && memcmp(a, mapped, 12) == 0) {
      inet_ntop(AF_INET, a + 12, out, INET6_ADDRSTRLEN);
    } else {
      inet_ntop(AF_INET6, a, out, INET6_ADDRSTRLEN);
    }
  }
  printf("%-3s %7" PRIu64 " %20" PRIu64 "  %-15s %-15s %-34s %#8" PRIx32
         " %8" PRIu32 " %6" PRIu32 " ",
         OBS(r, pi->obs), r->frame, pi->ts, src, dst,
         rtel_opcode_str(hd->opcode), hd->dqpn, hd->psn, hd->payload_len);
  if (hd->flags & RTEL_HD_F_RETH) {
    printf(" va=0x%" PRIx64 " rkey=%#" PRIx32 " len=%" PRIu32, hd->reth_va,
           hd->reth_rkey, hd->reth_dmalen);
  }
  if (hd->flags & RTEL_HD_F_AETH) {
    /* the syndrome's name, with the value that goes with it */
    const char *name = rtel_aeth_str(hd->aeth_syndrome);
    printf(" %s", name);
    if (strcmp(name, "ack") == 0) {
      printf(" credits=%u", RTEL_AETH_VALUE(hd->aeth_syndrome));
    } else if (strcmp(name, "rnr_nak") == 0) {
      printf(" timer=%u", RTEL_AETH_VALUE(hd->aeth_syndrome));
    } else if (strcmp(name, "nak_reserved") == 0 ||
               strcmp(name, "reserved") == 0) {
      printf(" syndrome=%#04x", hd->aeth_syndrome);
    }
    printf(" msn=%" PRIu32, hd->aeth_msn);
  }
  if (hd->flags & RTEL_HD_F_DETH) {
    printf(" sqpn=%#" PRIx32 " qkey=%#" PRIx32, hd->deth_sqpn, hd->deth_qkey);
  }
  if (hd->flags & RTEL_HD_F_IMMDT) {
    printf(" imm=%#" PRIx32, hd->imm);
  }
  if (hd->flags & RTEL_HD_F_IETH) {
    printf(" inv_rkey=%#" PRIx32, hd->ieth_rkey);
  }
  if (hd->flags & RTEL_HD_F_CM) {
    const char *name = rj_cm_attr_name(hd->cm_attr);
    printf(" CM:%s", name ? name : "?");
    if (hd->cm_fields & RTEL_CM_F_LOCAL_QPN) {
      printf(" local_qpn=%#" PRIx32, hd->cm_local_qpn);
    }
  }
  if (hd->fecn || hd->becn) {
    printf("%s%s", hd->fecn ? " FECN" : "", hd->becn ? " BECN" : "");
  }
  if (hd->ecn == 3) {
    fputs(" CE", stdout);
  }
  if (hd->icrc_status != RTEL_ICRC_UNCHECKED) {
    printf(" icrc=%s", rj_icrc_str(hd->icrc_status));
  }
  if (hd->flags & RTEL_HD_F_HDR_TRUNC) {
    fputs(" [truncated]", stdout);
  }
  putchar('\n');
}

static int on_packet(rtel_ctx *ctx, const rtel_pkt_info *pi,
                     const rtel_pkt_hd *hd, const uint8_t *pkt, size_t pktlen,
                     void *user_data) {
  run *r = user_data;
  (void)ctx;
  (void)pkt;
  (void)pktlen;
  if (r->opt->format == FMT_JSON) {
    json_out(r, rj_packet(&r->jb, &r->names, pi, r->frame, hd));
  } else {
    text_packet(r, pi, hd);
  }
  return 0;
}

static int on_flow(rtel_ctx *ctx, const rtel_flow_record *f, void *user_data) {
  run *r = user_data;
  char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
  int paired = (f->flags & RTEL_FLOW_F_PAIRED) != 0;
  (void)ctx;
  r->nflows++;
  if (r->ipfix) {
    (void)ipfix_export_flow(r->ipfix, f, r->now);
  }
  if (r->rep) {
    report_flow(r->rep, f);
  }
  if (!r->opt->flows) {
    return 0;
  }
  rj_format_addr(src, f->flags, f->src);
  rj_format_addr(dst, f->flags, f->dst);
  if (r->opt->format == FMT_JSON) {
    json_out(r, rj_flow(&r->jb, &r->names, f));
    return 0;
  }
  if (!r->flow_header_done) {
    printf("%-*s %-15s %-15s %8s %8s %-10s %12s %12s %8s %6s %12s %6s %6s "
           "%5s %5s %-9s %7s %7s\n",
           (int)strlen(OBS(r, f->obs)), "OBS", "SRC", "DST", "DQPN", "PEER",
           "OP", "FCT_NS", "BYTES", "PKTS", "RETX", "FET_BPS", "NAKS", "FNR",
           "CNPS", "CE", "END", "LOST_UP", "ORPHANS");
    r->flow_header_done = 1;
  }
  printf("%-3s %-15s %-15s %#8" PRIx32 " ", OBS(r, f->obs), src, dst, f->dqpn);
  if (paired) {
    printf("%#8" PRIx32, f->peer_qpn);
  } else {
    printf("%8s", "-");
  }
  printf(" %-10s %12" PRIu64 " %12" PRIu64 " %8" PRIu64 " %6" PRIu64
         " %12" PRIu64 " %6" PRIu64,
         rj_ops_str(f->ops), f->fct, f->bytes, f->packets, f->retx_packets,
         f->fet_bps, f->naks_seq + f->naks_rnr + f->naks_fatal);
  if (paired) {
    printf(" %6.4f", f->fnr);
  } else {
    printf(" %6s", "?");
  }
  printf(" %5" PRIu64 " %5" PRIu64 " %-9s %6" PRIu64 "%s %7" PRIu64 "\n",
         f->cnps, f->ecn_ce, rj_end_str(f->end), f->lost_upstream,
         (f->flags & RTEL_FLOW_F_LOST_LB) ? "+" : " ", f->orphan_packets);
  return 0;
}

static int on_message(rtel_ctx *ctx, const rtel_msg_record *m,
                      void *user_data) {
  run *r = user_data;
  char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
  (void)ctx;
  r->nmsgs++;
  if (r->ipfix) {
    (void)ipfix_export_msg(r->ipfix, m, r->now);
  }
  if (r->rep) {
    report_msg(r->rep, m);
  }
  if (!r->opt->messages) {
    return 0;
  }
  rj_format_addr(src, m->flags, m->src);
  rj_format_addr(dst, m->flags, m->dst);
  if (r->opt->format == FMT_JSON) {
    json_out(r, rj_message(&r->jb, &r->names, m));
    return 0;
  }
  if (!r->msg_header_done) {
    printf("%-*s %-15s %-15s %8s %-9s %8s %8s %10s %12s %10s %6s %6s %-8s "
           "%-8s %12s %5s %7s\n",
           (int)strlen(OBS(r, m->obs)), "OBS", "SRC", "DST", "DQPN", "OP",
           "PSN", "LAST_PSN", "RETH_LEN", "FCT_NS", "BYTES", "PKTS", "RETX",
           "COMPLETE", "END", "FET_BPS", "NAKS", "LOST_UP");
    r->msg_header_done = 1;
  }
  printf("%-3s %-15s %-15s %#8" PRIx32 " %-9s %8" PRIu32 " %8" PRIu32
         " %10" PRIu32 " %12" PRIu64 " %10" PRIu64 " %6" PRIu64 " %6" PRIu64
         " %-8s %-8s %12" PRIu64 " %5" PRIu32 " %6" PRIu32 "%s\n",
         OBS(r, m->obs), src, dst, m->dqpn, rj_ops_str(m->op), m->first_psn,
         m->last_psn, m->reth_len, m->fct, m->bytes, m->packets,
         m->retx_packets, (m->flags & RTEL_MSG_F_INCOMPLETE) ? "no" : "yes",
         rj_end_str(m->end), m->fet_bps,
         m->naks_seq + m->naks_rnr + m->naks_fatal, m->lost_upstream,
         (m->flags & RTEL_FLOW_F_LOST_LB) ? "+" : "");
  return 0;
}

/* The command of an I/O record in text: the library's name (admin and
 * Fabrics commands too); "-" for an orphan (its command was not seen). */
static const char *text_nvme_op(uint8_t opcode, uint8_t fctype, uint32_t flags,
                                uint32_t state) {
  if (state == RTEL_IO_ORPHAN) {
    return "-";
  }
  return rtel_nvme_cmd_str(opcode, fctype, (flags & RTEL_IO_F_ADMIN) != 0);
}

/* " status=NAME[,dnr][,more][,crd=N]" for a non-zero NVMe status. */
static void text_nvme_status(uint16_t status, uint8_t opcode) {
  if (status == 0) {
    return;
  }
  printf(" status=%s", rtel_nvme_status_str(status, opcode));
  if (status & 0x4000u) {
    fputs(",dnr", stdout);
  }
  if (status & 0x2000u) {
    fputs(",more", stdout);
  }
  if (status & 0x1800u) {
    printf(",crd=%u", (unsigned)((status >> 11) & 3u));
  }
}

static void text_dur(int64_t d) {
  if (d == RTEL_DURATION_NONE) {
    printf(" %10s", "-");
  } else {
    printf(" %10" PRId64, d);
  }
}

static int on_io(rtel_ctx *ctx, const rtel_io_record *io, void *user_data) {
  run *r = user_data;
  char host[INET6_ADDRSTRLEN], target[INET6_ADDRSTRLEN];
  uint32_t af = (io->flags & RTEL_IO_F_IPV6) ? RTEL_FLOW_F_IPV6 : 0;
  (void)ctx;
  r->nios++;
  if (r->ipfix) {
    (void)ipfix_export_io(r->ipfix, io, r->now);
  }
  if (r->rep) {
    report_io(r->rep, io);
  }
  if (!r->opt->ios) {
    return 0;
  }
  rj_format_addr(host, af, io->host);
  rj_format_addr(target, af, io->target);
  if (r->opt->format == FMT_JSON) {
    json_out(r, rj_io(&r->jb, &r->names, io));
    return 0;
  }
  if (!r->io_header_done) {
    printf("%-*s %-15s %-15s %8s %6s %-12s %10s %12s %8s %-9s %10s %10s %10s "
           "%10s\n",
           (int)strlen(OBS(r, io->obs)), "OBS", "HOST", "TARGET", "TQPN",
           "CID", "OP", "NSID", "SLBA", "BYTES", "STATE", "IOL_NS", "DAL_NS",
           "DPL_NS", "XFER_NS");
    r->io_header_done = 1;
  }
  printf("%-3s %-15s %-15s %#8" PRIx32 " %6u %-12s %10" PRIu32 " %12" PRIu64
         " %8" PRIu64 " %-9s",
         OBS(r, io->obs), host, target, io->target_qpn, io->cid,
         text_nvme_op(io->opcode, io->fctype, io->flags, io->state), io->nsid,
         io->slba, io->bytes, rj_io_state_str(io->state));
  text_dur(io->iol);
  text_dur(io->dal);
  text_dur(io->dpl);
  text_dur(io->xfer);
  text_nvme_status(io->nvme_status, io->opcode);
  putchar('\n');
  return 0;
}

static int on_segment(rtel_ctx *ctx, const rtel_segment_record *sg,
                      void *user_data) {
  run *r = user_data;
  char host[INET6_ADDRSTRLEN], target[INET6_ADDRSTRLEN];
  uint32_t af = (sg->flags & RTEL_IO_F_IPV6) ? RTEL_FLOW_F_IPV6 : 0;
  (void)ctx;
  r->nsegs++;
  if (r->ipfix) {
    (void)ipfix_export_segment(r->ipfix, sg, r->now);
  }
  if (r->rep) {
    report_segment(r->rep, sg);
  }
  if (!r->opt->segments) {
    return 0;
  }
  rj_format_addr(host, af, sg->host);
  rj_format_addr(target, af, sg->target);
  if (r->opt->format == FMT_JSON) {
    json_out(r, rj_segment(&r->jb, &r->names, sg));
    return 0;
  }
  if (!r->seg_header_done) {
    printf("%-15s %-15s %8s %6s %-9s %-12s %-12s %10s %10s %10s %10s %10s "
           "%10s\n",
           "HOST", "TARGET", "TQPN", "CID", "OP", "COMPUTE", "STORAGE",
           "IOL1_NS", "IOL2_NS", "RTT_NS", "COMPUTE", "NETWORK", "STORAGE");
    r->seg_header_done = 1;
  }
  printf("%-15s %-15s %#8" PRIx32 " %6u %-9s %-12s %-12s %10" PRId64
         " %10" PRId64 " %10" PRId64 " %10" PRId64 " %10" PRId64 " %10" PRId64
         "\n",
         host, target, sg->target_qpn, sg->cid,
         (sg->flags & RTEL_IO_F_FABRICS)
             ? "fabrics"
             : text_nvme_op(sg->opcode, 0, sg->flags, RTEL_IO_COMPLETE),
         OBS(r, sg->compute_obs), OBS(r, sg->storage_obs), sg->iol1, sg->iol2,
         sg->rtt, sg->compute, sg->network, sg->storage);
  return 0;
}

static void text_us(int64_t ns, uint64_t count) {
  if (count == 0) {
    printf(" %9s", "-");
  } else {
    printf(" %9.1f", (double)ns / 1000.0);
  }
}

static int on_io_aggregate(rtel_ctx *ctx, const rtel_io_aggregate *g,
                           void *user_data) {
  run *r = user_data;
  char host[INET6_ADDRSTRLEN], target[INET6_ADDRSTRLEN], ns[16];
  uint32_t af = (g->flags & RTEL_IO_F_IPV6) ? RTEL_FLOW_F_IPV6 : 0;
  const char *dir = g->opcode == RTEL_NVME_OP_WRITE ? "write" : "read";
  (void)ctx;
  r->naggs++;
  if (r->ipfix) {
    (void)ipfix_export_aggregate(r->ipfix, g, r->now);
  }
  if (r->rep) {
    report_aggregate(r->rep, g);
  }
  if (!r->opt->summary) {
    return 0;
  }
  rj_format_addr(host, af, g->host);
  rj_format_addr(target, af, g->target);
  if (g->nsid == RTEL_NSID_ALL) {
    strcpy(ns, "*");
  } else {
    sprintf(ns, "%" PRIu32, g->nsid);
  }
  if (r->opt->format == FMT_JSON) {
    json_out(r, rj_aggregate(&r->jb, &r->names, g));
    return 0;
  }
  if (!r->sum_header_done) {
    printf("%-*s %-15s %-15s %5s %-5s %8s %12s %5s %5s | %9s %9s %9s %9s %9s "
           "| %9s %9s | %9s %9s   (latencies in us)\n",
           (int)strlen(OBS(r, g->obs)), "OBS", "HOST", "TARGET", "NSID", "OP",
           "COUNT", "BYTES", "ERR", "TMO", "IOL_P50", "IOL_P90", "IOL_P99",
           "IOL_P999", "IOL_MAX", "DAL_P50", "DAL_P99", "DPL_P50", "DPL_P99");
    r->sum_header_done = 1;
  }
  printf("%-3s %-15s %-15s %5s %-5s %8" PRIu64 " %12" PRIu64 " %5" PRIu64
         " %5" PRIu64 " |",
         OBS(r, g->obs), host, target, ns, dir, g->count, g->bytes, g->errors,
         g->timeouts);
  text_us(g->iol.p50, g->iol.count);
  text_us(g->iol.p90, g->iol.count);
  text_us(g->iol.p99, g->iol.count);
  text_us(g->iol.p999, g->iol.count);
  text_us(g->iol.max, g->iol.count);
  fputs(" |", stdout);
  text_us(g->dal.p50, g->dal.count);
  text_us(g->dal.p99, g->dal.count);
  fputs(" |", stdout);
  text_us(g->dpl.p50, g->dpl.count);
  text_us(g->dpl.p99, g->dpl.count);
  putchar('\n');
  return 0;
}

static int on_slot(rtel_ctx *ctx, const rtel_slot_event *ev, void *user_data) {
  run *r = user_data;
  size_t i;
  (void)ctx;
  if (r->rep) {
    report_slot(r->rep, ev);
  }
  if (r->opt->poll_ports == 0) {
    return 0;
  }
  if (r->opt->format == FMT_JSON) {
    json_out(r, rj_slot(&r->jb, &r->names, ev));
    return 0;
  }
  printf("-- slot %" PRIu64 " at %" PRIu64 ":", ev->slot, ev->start);
  for (i = 0; i < ev->nstarted; i++) {
    printf(" +%s", OBS(r, ev->started[i]));
  }
  for (i = 0; i < ev->nstopped; i++) {
    printf(" -%s", OBS(r, ev->stopped[i]));
  }
  putchar('\n');
  return 0;
}

static int on_alarm(rtel_ctx *ctx, const rtel_alarm *al, void *user_data) {
  run *r = user_data;
  char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
  const char *state = al->state == RTEL_ALARM_RAISED ? "raised" : "cleared";
  uint32_t af = 0;
  (void)ctx;
  if (r->rep) {
    report_alarm(r->rep, al);
  }
  if (al->flow) {
    af = al->flow->flags & RTEL_FLOW_F_IPV6;
  } else if (al->io && (al->io->flags & RTEL_IO_F_IPV6)) {
    af = RTEL_FLOW_F_IPV6;
  }
  rj_format_addr(src, af, al->src);
  rj_format_addr(dst, af, al->dst);
  if (r->opt->format == FMT_JSON) {
    json_out(r, rj_alarm(&r->jb, &r->names, al));
    return 0;
  }
  printf("!! alarm %s: %s %s %.6g (limit %.6g) at %s", state,
         rj_metric_name(al->metric),
         al->kind == RTEL_ALARM_BASELINE ? "baseline" : "threshold", al->value,
         al->limit, OBS(r, al->obs));
  if (al->scope == RTEL_SCOPE_PAIR) {
    printf(" %s -> %s", src, dst);
  }
  printf(" ts %" PRIu64 "\n", al->ts);
  return 0;
}

static void print_stats(const options *opt, const char *obs,
                        const rtel_ctx_stats *st) {
  rj_row rows[RJ_STATS_ROWS];
  size_t i, nrows = rj_stats_rows(st, rows, RJ_STATS_ROWS);

  if (opt->format == FMT_JSON) {
    rj_buf b;
    rj_init(&b);
    rj_stats(&b, obs, st);
    if (b.len) {
      fwrite(b.p, 1, b.len, stdout);
    }
    rj_free(&b);
    return;
  }
  printf("== %s ==\n", obs);
  for (i = 0; i < nrows; i++) {
    printf("  %-22s %12" PRIu64 "\n", rows[i].name, rows[i].v);
  }
  for (i = 0; i < RTEL_MALFORMED_SLOTS; i++) {
    if (st->malformed[i]) {
      printf("  malformed: %-40s %8" PRIu64 "\n",
             rtel_malformed_str((uint32_t)i), st->malformed[i]);
    }
  }
}

/* ------------------------------------------------------------ input */

/* The point named |name| for input |i|: the one of that name made for the
 * same input, or with NAME= for any input with NAME=; else a new one.
 * Returns its id, or NO_POINT when out of memory (reported). */
static uint32_t point_get(run *r, size_t i, const char *name, int named) {
  size_t k;
  point *p;
  for (k = 0; k < r->npt; k++) {
    if (strcmp(r->pt[k].name, name) == 0 &&
        ((named && r->pt[k].named) || r->pt[k].file == i)) {
      return (uint32_t)k;
    }
  }
  if (r->npt == r->ptcap) {
    size_t ncap = r->ptcap ? 2 * r->ptcap : 8;
    point *np = realloc(r->pt, ncap * sizeof(*np));
    const char **nn;
    if (np == NULL) {
      fprintf(stderr, PROG ": out of memory\n");
      return NO_POINT;
    }
    r->pt = np;
    nn = realloc(r->ptnames, ncap * sizeof(*nn));
    if (nn == NULL) {
      fprintf(stderr, PROG ": out of memory\n");
      return NO_POINT;
    }
    r->ptnames = nn;
    r->ptcap = ncap;
  }
  p = &r->pt[r->npt];
  if ((p->name = strdup(name)) == NULL) {
    fprintf(stderr, PROG ": out of memory\n");
    return NO_POINT;
  }
  p->file = i;
  p->named = named;
  p->last_ts = RTEL_TSTAMP_NONE;
  r->ptnames[r->npt] = p->name;
  r->names.obs = r->ptnames;
  r->names.nobs = ++r->npt;
  return (uint32_t)(r->npt - 1);
}

/* The role --compute-side or --storage-side gives point |id|. */
static uint32_t point_role(const run *r, uint32_t id) {
  const char *name = r->pt[id].name;
  if (r->opt->compute_side && strcmp(name, r->opt->compute_side) == 0) {
    return RTEL_ROLE_COMPUTE;
  }
  if (r->opt->storage_side && strcmp(name, r->opt->storage_side) == 0) {
    return RTEL_ROLE_STORAGE;
  }
  return RTEL_ROLE_UNKNOWN;
}

/* Tells the context and the report about point |id|. */
static void point_setup(run *r, uint32_t id) {
  uint32_t role = point_role(r, id);
  if (role != RTEL_ROLE_UNKNOWN) {
    (void)rtel_ctx_set_obs_role(r->ctx, id, role);
  }
  if (r->rep) {
    (void)report_obs(r->rep, id, r->pt[id].name, role, RTEL_TSTAMP_NONE,
                     RTEL_TSTAMP_NONE);
  }
}

/* The point of interface |ifc| of input |i|: the file's, or with
 * --split-interfaces (pcapng) its own, NAME.IFNAME (if_name) or NAME.ifN
 * (N: its number in the file). Made when first asked for (and set up if
 * the context exists). Returns NO_POINT when out of memory. */
static uint32_t if_point(run *r, size_t i, uint32_t ifc) {
  input *in = &r->in[i];
  const capfile_if *f;
  size_t len, before;
  char *name;
  uint32_t id;
  if (!r->opt->split || capfile_format(in->cf) != CAPFILE_PCAPNG) {
    return in->point;
  }
  if (ifc >= in->nifpoint) {
    size_t n = capfile_nifs(in->cf), k;
    uint32_t *np = realloc(in->ifpoint, n * sizeof(*np));
    if (np == NULL) {
      fprintf(stderr, PROG ": out of memory\n");
      return NO_POINT;
    }
    for (k = in->nifpoint; k < n; k++) {
      np[k] = NO_POINT;
    }
    in->ifpoint = np;
    in->nifpoint = n;
  }
  if (in->ifpoint[ifc] != NO_POINT) {
    return in->ifpoint[ifc];
  }
  f = capfile_iface(in->cf, ifc);
  len = strlen(in->name) + sizeof(f->name) + 16;
  if ((name = malloc(len)) == NULL) {
    fprintf(stderr, PROG ": out of memory\n");
    return NO_POINT;
  }
  if (f->name[0]) {
    snprintf(name, len, "%s.%s", in->name, f->name);
  } else {
    snprintf(name, len, "%s.if%" PRIu32, in->name, ifc);
  }
  before = r->npt;
  id = point_get(r, i, name, in->named);
  free(name);
  if (id != NO_POINT && r->ctx && r->npt > before) {
    point_setup(r, id);
  }
  in->ifpoint[ifc] = id;
  return id;
}

/* Reads the next packet of |in| that is of a link type the decoder reads
 * into in->pk (in->have 0 at the end); the others are counted (capfile_if
 * packets) and reported at the end. Returns 0, or 1 after a read error
 * (reported; the file ends there). */
static int read_ahead(input *in) {
  int rv;
  while ((rv = capfile_next(in->cf, &in->pk)) == 1) {
    if (pcap_input_file_linktype(in->pk.linktype) != 0) {
      in->have = 1;
      in->frame = capfile_packets(in->cf);
      return 0;
    }
  }
  in->have = 0;
  if (rv < 0) {
    /* a damaged file: report it, keep what was measured up to here */
    fprintf(stderr, PROG ": %s: after frame %" PRIu64 ": %s\n", in->path,
            capfile_packets(in->cf), capfile_error(in->cf));
    return 1;
  }
  return 0;
}

/* The name of a link type, for the messages. */
static const char *linktype_name(uint32_t lt) {
  /* pcap's names are those of DLT_* values: the same numbers as the files'
   * LINKTYPE_* for every link type the decoder does not read */
  const char *s = lt <= INT_MAX ? pcap_datalink_val_to_name((int)lt) : NULL;
  return s ? s : "?";
}

#define LINKTYPES_READ                                                        \
  "only Ethernet, raw IP and Linux cooked (SLL, SLL2) captures are read"

/* Opens input |i| and reads its first packet. Returns 0, or 1 when the
 * file cannot be read (reported; in->cf NULL) or was damaged before its
 * first packet (reported). */
static int open_input(input *in) {
  char err[256];
  size_t k, nifs;
  int rv, supported = 0;
  in->cf = capfile_open(in->path, err, sizeof(err));
  if (in->cf == NULL) {
    fprintf(stderr, PROG ": %s: %s\n", in->path, err);
    return 1;
  }
  rv = capfile_next(in->cf, &in->pk);
  nifs = capfile_nifs(in->cf);
  for (k = 0; k < nifs; k++) {
    supported |=
        pcap_input_file_linktype(capfile_iface(in->cf, k)->linktype) != 0;
  }
  if (nifs && !supported) {
    /* nothing the decoder reads (as far as the file has said before its
     * first packet): one line, and the file is left out */
    uint32_t lt = capfile_iface(in->cf, 0)->linktype;
    fprintf(stderr, PROG ": %s: unsupported link type %s (%" PRIu32 "): %s\n",
            in->path, linktype_name(lt), lt, LINKTYPES_READ);
    capfile_close(in->cf);
    in->cf = NULL;
    return 1;
  }
  if (rv == 1 && pcap_input_file_linktype(in->pk.linktype) != 0) {
    in->have = 1;
    in->frame = 1;
    return 0;
  }
  if (rv < 0) {
    fprintf(stderr, PROG ": %s: after frame 0: %s\n", in->path,
            capfile_error(in->cf));
    return 1;
  }
  return rv == 1 ? read_ahead(in) : 0;
}

/* On stderr: the frames of each interface of a link type the decoder does
 * not read. Returns 1 if there were any, else 0. */
static int skipped_notes(const run *r) {
  size_t i, k;
  int any = 0;
  for (i = 0; i < r->nin; i++) {
    const capfile *cf = r->in[i].cf;
    for (k = 0; cf && k < capfile_nifs(cf); k++) {
      const capfile_if *f = capfile_iface(cf, k);
      if (f->packets == 0 || pcap_input_file_linktype(f->linktype) != 0) {
        continue;
      }
      fprintf(stderr,
              PROG ": %s: %" PRIu64 " frames of interface %zu%s%s%s not "
                   "read: unsupported link type %s (%" PRIu32 "); %s\n",
              r->in[i].path, f->packets, k, f->name[0] ? " (" : "", f->name,
              f->name[0] ? ")" : "", linktype_name(f->linktype), f->linktype,
              LINKTYPES_READ);
      any = 1;
    }
  }
  return any;
}

/* --report: writes the page, then one line on stderr. Returns 0, or 1. */
static int write_report(const char *path, report *rep) {
  struct timespec t0, t1;
  FILE *f = fopen(path, "w");
  long size;
  int rv;
  if (f == NULL) {
    fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
    return 1;
  }
  clock_gettime(CLOCK_MONOTONIC, &t0);
  rv = report_write(rep, f);
  size = ftell(f);
  if (fclose(f) != 0) {
    rv = -1;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (rv != 0) {
    fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
    return 1;
  }
  fprintf(stderr, "report: %s (%ld bytes, %.0f ms)\n", path, size,
          (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
              (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
  return 0;
}

/* The default flow table of an offline run: large enough that a capture
 * of a large fabric is not split by evictions, small enough that a small
 * capture costs little. A flow needs a frame, and a frame takes at least
 * 32 bytes of a capture file (a 16-byte record header and a RoCE header),
 * so |FILE size| / 32 flows can never overflow; at least 4096 (the
 * library's default), at most 1048576 (about 830 MB: each flow costs about
 * 800 bytes, rtel_settings(3)) and at most a quarter of the physical
 * memory. A FILE that is not a regular file (a pipe) counts as large. */
#define FLOWS_MIN 4096u
#define FLOWS_MAX 1048576u
#define FLOW_BYTES 1024u /* the memory budget of a flow, pairs included */

static uint32_t default_max_flows(const input *in, size_t nin) {
  uint64_t bytes = 0, n, cap = FLOWS_MAX;
  long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
  size_t i;
  for (i = 0; i < nin; i++) {
    struct stat sb;
    if (in[i].cf == NULL) {
      continue;
    }
    if (stat(in[i].path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
      bytes = UINT64_MAX;
      break;
    }
    bytes += (uint64_t)sb.st_size;
  }
  if (pages > 0 && psize > 0 &&
      (uint64_t)pages / 4 * (uint64_t)psize / FLOW_BYTES < cap) {
    cap = (uint64_t)pages / 4 * (uint64_t)psize / FLOW_BYTES;
  }
  n = bytes / 32;
  if (n > cap) {
    n = cap;
  }
  return (uint32_t)(n < FLOWS_MIN ? FLOWS_MIN : n);
}

/* On stderr: the records that a full table split or lost, and the option
 * that raises its bound. */
static void overflow_notes(const rtel_settings *set,
                           const rtel_ctx_stats *st) {
  if (st->flows_evicted || st->pairs_evicted) {
    fprintf(stderr,
            PROG ": %" PRIu64 " flows evicted from the full flow table "
                 "(%" PRIu32 " flows; %" PRIu64 " QP pairs evicted from "
                 "the pair table of %" PRIu32 "): their records are split "
                 "(end evicted); raise the bound with --max-flows\n",
            st->flows_evicted, set->max_flows, st->pairs_evicted,
            set->max_qp_pairs ? set->max_qp_pairs : 2 * set->max_flows);
  }
  if (st->ios_evicted) {
    fprintf(stderr,
            PROG ": %" PRIu64 " I/Os evicted from the full table of "
                 "outstanding I/Os (%" PRIu32 " I/Os; state evicted): raise "
                 "the bound with --max-ios\n",
            st->ios_evicted, set->max_ios);
  }
}
/* "FILE" or "FILE, FILE, ..." of the inputs that were read, on stderr. */
static void hint_files(const run *r) {
  size_t i, n = 0;
  for (i = 0; i < r->nin; i++) {
    if (r->in[i].cf) {
      fprintf(stderr, "%s%s", n++ ? ", " : "", r->in[i].path);
    }
  }
}

/* The first input with more than one interface the decoder reads, or
 * NULL; |n|: how many. */
static const input *multi_if_input(const run *r, size_t *n) {
  size_t i, k;
  for (i = 0; i < r->nin; i++) {
    const capfile *cf = r->in[i].cf;
    *n = 0;
    for (k = 0; cf && k < capfile_nifs(cf); k++) {
      *n += pcap_input_file_linktype(capfile_iface(cf, k)->linktype) != 0;
    }
    if (*n > 1) {
      return &r->in[i];
    }
  }
  return NULL;
}

/* One line on stderr for each kind of record asked for that the captures
 * gave none of, with the likely reason. */
static void hints(const options *opt, const run *r, const rtel_ctx_stats *st) {
  static const char *const what[] = {"--packets", "--flows",    "--messages",
                                     "--ios",     "--segments", "--summary"};
  int asked[6];
  uint64_t got[6];
  size_t k;
  asked[0] = opt->packets;
  asked[1] = opt->flows;
  asked[2] = opt->messages;
  asked[3] = opt->ios;
  asked[4] = opt->segments;
  asked[5] = opt->summary;
  got[0] = st->pkts_roce;
  got[1] = r->nflows;
  got[2] = r->nmsgs;
  got[3] = r->nios;
  got[4] = r->nsegs;
  got[5] = r->naggs;
  for (k = 0; k < 6; k++) {
    if (!asked[k] || got[k] != 0) {
      continue;
    }
    fprintf(stderr, PROG ": hint: %s: nothing to print: ", what[k]);
    hint_files(r);
    if (st->pkts == 0) {
      fputs(" holds no packets", stderr);
    } else if (st->pkts_roce == 0) {
      fprintf(stderr,
              " holds no RoCE packet (%" PRIu64 " frames: %" PRIu64
              " not RoCE, %" PRIu64 " malformed; RoCEv2 on another UDP port "
              "than %" PRIu32 ": --roce-port)",
              st->pkts, st->pkts_not_roce, st->pkts_malformed, opt->roce_port);
    } else if (k == 1 || k == 2) {
      fprintf(stderr,
              " holds %" PRIu64 " RoCE packets but no RDMA data packet "
              "(SEND, WRITE, READ RESPONSE)",
              st->pkts_roce);
    } else if (k == 4 && r->npt < 2) {
      size_t nif;
      const input *m = multi_if_input(r, &nif);
      fputs(": --segments joins the I/Os that two FILEs (observation "
            "points) saw",
            stderr);
      if (m && !opt->split) {
        fprintf(stderr,
                "; %s has %zu interfaces: --split-interfaces makes each "
                "an observation point",
                m->path, nif);
      }
    } else if (k == 4 && r->nios != 0) {
      fputs(" hold no I/O seen at two observation points", stderr);
    } else {
      fprintf(stderr,
              " holds %" PRIu64 " RoCE packets but no NVMe-oF I/O (no "
              "NVMe-oF/RDMA command or response)",
              st->pkts_roce);
    }
    fputc('\n', stderr);
  }
}

/* One context sees every input; each input, or with --split-interfaces
 * each interface of a pcapng input, is an observation point (ids in the
 * order the points are first met: the inputs in their order, and their
 * interfaces known before their first packet; interfaces described later
 * when they are). Packets are handed over in timestamp order across the
 * inputs, as a collector receiving from several mirrors would. Returns 0,
 * or 1 if an input could not be read in full. */
static int analyze(const options *opt, input *in, size_t nin) {
  rtel_settings settings;
  rtel_callbacks cb;
  rtel_ctx_stats st;
  rtel_pkt_info pi;
  rtel_tstamp last = 0;
  run r;
  size_t i, k;
  int rv = 0, status = 0, scheduled = 0;
  size_t nopen = 0;

  memset(&r, 0, sizeof(r));
  r.opt = opt;
  r.in = in;
  r.nin = nin;
  for (i = 0; i < nin; i++) {
    if (open_input(&in[i]) != 0) {
      status = 1;
    }
    if (in[i].cf == NULL) {
      continue;
    }
    nopen++;
    /* its points: the file's, or those of the interfaces described so far
     * that the decoder reads */
    if (!opt->split || capfile_format(in[i].cf) != CAPFILE_PCAPNG) {
      in[i].point = point_get(&r, i, in[i].name, in[i].named);
      if (in[i].point == NO_POINT) {
        status = 1;
        goto out;
      }
      continue;
    }
    for (k = 0; k < capfile_nifs(in[i].cf); k++) {
      if (pcap_input_file_linktype(capfile_iface(in[i].cf, k)->linktype) &&
          if_point(&r, i, (uint32_t)k) == NO_POINT) {
        status = 1;
        goto out;
      }
    }
  }
  if (nopen == 0) {
    return 1; /* nothing to analyse: each file's error is on stderr */
  }
  rtel_settings_default(&settings);
  settings.decode_flags = opt->decode_flags;
  settings.roce_udp_port = opt->roce_port;
  settings.max_flows =
      opt->max_flows ? opt->max_flows : default_max_flows(in, nin);
  settings.max_qp_pairs = 0; /* the default: 2 x max_flows */
  if (opt->flow_idle_ns) {
    settings.flow_idle_timeout = opt->flow_idle_ns;
  }
  if (opt->no_flows) {
    settings.flow_flags |= RTEL_FLOW_DISABLE;
  }
  if (opt->io_timeout_ns) {
    settings.io_timeout = opt->io_timeout_ns;
  }
  if (opt->max_ios) {
    settings.max_ios = opt->max_ios;
  }
  settings.report_interval = opt->interval_ns;
  memset(&cb, 0, sizeof(cb));
  if (opt->packets) {
    cb.on_packet = on_packet;
  }
  cb.on_flow = on_flow;
  cb.on_message = on_message;
  cb.on_io = on_io;
  cb.on_segment = on_segment;
  cb.on_io_aggregate = on_io_aggregate;
  cb.on_slot = on_slot;
  cb.on_alarm = on_alarm;
  rj_init(&r.jb);
  if (opt->ipfix.udp || opt->ipfix.file) {
    char err[512];
    r.ipfix = ipfix_export_open(&opt->ipfix, err, sizeof(err));
    if (r.ipfix == NULL) {
      fprintf(stderr, PROG ": %s\n", err);
      status = 2;
      goto out;
    }
  }
  if (opt->report_path) {
    report_opts ro;
    memset(&ro, 0, sizeof(ro));
    ro.source = opt->cmdline;
    ro.top_n = opt->report_top;
    ro.per_namespace = opt->report_ns;
    r.rep = report_new(&ro);
    if (r.rep == NULL) {
      fprintf(stderr, PROG ": out of memory\n");
      status = 1;
      goto out;
    }
  }
  rv = rtel_ctx_new(&r.ctx, &settings, &cb, NULL, &r);
  if (rv != 0) {
    fprintf(stderr, PROG ": %s\n", rtel_strerror(rv));
    r.ctx = NULL;
    status = 1;
    goto out;
  }
  for (i = 0; i < r.npt; i++) {
    point_setup(&r, (uint32_t)i);
  }
  for (i = 0; i < opt->nalarms; i++) {
    (void)rtel_ctx_set_threshold(r.ctx, opt->alarms[i].metric,
                                 opt->alarms[i].scope, opt->alarms[i].value);
  }
  memset(&pi, 0, sizeof(pi));
  for (;;) {
    input *next = NULL;
    point *p;
    for (i = 0; i < nin; i++) {
      if (in[i].cf && in[i].have &&
          (next == NULL || in[i].pk.ts < next->pk.ts)) {
        next = &in[i];
      }
    }
    if (next == NULL) {
      break;
    }
    pi.obs = if_point(&r, (size_t)(next - in), next->pk.ifc);
    if (pi.obs == NO_POINT) {
      status = 1;
      break;
    }
    r.frame = next->frame;
    pi.ts = next->pk.ts;
    p = &r.pt[pi.obs];
    if (p->last_ts == RTEL_TSTAMP_NONE && r.rep) {
      /* the report's time axis of the point starts here */
      (void)report_obs(r.rep, pi.obs, NULL, RTEL_ROLE_UNKNOWN, pi.ts,
                       RTEL_TSTAMP_NONE);
    }
    if (p->last_ts == RTEL_TSTAMP_NONE || pi.ts > p->last_ts) {
      p->last_ts = pi.ts;
    }
    pi.wire_len = next->pk.len;
    pi.port = pi.obs;
    pi.linktype = pcap_input_file_linktype(next->pk.linktype);
    if (opt->poll_ports && !scheduled) {
      /* the polling schedule starts with the first packet */
      rtel_schedule sch = {RTEL_SCHED_POLL, opt->poll_ports, opt->poll_slot_ns,
                           0};
      scheduled = 1;
      /* every point is a port */
      for (; r.nports < r.npt; r.nports++) {
        rtel_port port = {(uint32_t)r.nports, RTEL_ROLE_UNKNOWN,
                          r.pt[r.nports].name};
        (void)rtel_ctx_add_port(r.ctx, &port, pi.ts);
      }
      if ((rv = rtel_ctx_set_schedule(r.ctx, &sch, pi.ts)) != 0) {
        fprintf(stderr, PROG ": %s\n", rtel_strerror(rv));
        status = 1;
        break;
      }
    }
    /* a point met later (an interface described after the first packets)
     * is a port from its first packet on */
    for (; scheduled && r.nports < r.npt; r.nports++) {
      rtel_port port = {(uint32_t)r.nports, RTEL_ROLE_UNKNOWN,
                        r.pt[r.nports].name};
      (void)rtel_ctx_add_port(r.ctx, &port, pi.ts);
    }
    if (pi.ts > last) {
      last = pi.ts;
    }
    r.now = last;
    /* the timer loop an embedder runs: due timers before the packet */
    if (rtel_ctx_get_expiry(r.ctx) <= pi.ts &&
        (rv = rtel_ctx_handle_expiry(r.ctx, pi.ts)) != 0) {
      fprintf(stderr, PROG ": %s: frame %" PRIu64 ": %s\n", next->path,
              next->frame, rtel_strerror(rv));
      status = 1;
      break;
    }
    rv = rtel_ctx_read_pkt(r.ctx, &pi, next->pk.data, next->pk.caplen);
    if (rv != 0) {
      fprintf(stderr, PROG ": %s: frame %" PRIu64 ": %s\n", next->path,
              next->frame, rtel_strerror(rv));
      status = 1;
      break;
    }
    if (read_ahead(next) != 0) {
      status = 1;
    }
  }
  /* end of the captures: report what is still open */
  if (!rtel_err_is_fatal(rv) && (rv = rtel_ctx_flush(r.ctx, last)) != 0) {
    fprintf(stderr, PROG ": %s\n", rtel_strerror(rv));
    status = 1;
  }
  if (skipped_notes(&r)) {
    status = 1;
  }
  if (rtel_ctx_get_stats(r.ctx, &st) == 0) {
    if (opt->stats) {
      print_stats(opt, r.npt == 1 ? r.pt[0].name : "all", &st);
    }
    hints(opt, &r, &st);
    overflow_notes(&settings, &st);
  }
  if (r.rep) {
    if (rtel_ctx_get_stats(r.ctx, &st) == 0) {
      report_stats(r.rep, r.npt == 1 ? r.pt[0].name : "all", &st);
    }
    for (i = 0; i < r.npt; i++) {
      (void)report_obs(r.rep, (uint32_t)i, NULL, RTEL_ROLE_UNKNOWN,
                       RTEL_TSTAMP_NONE, r.pt[i].last_ts);
    }
    if (write_report(opt->report_path, r.rep) != 0) {
      status = 1;
    }
  }
out:
  report_free(r.rep);
  rtel_ctx_del(r.ctx);
  rj_free(&r.jb);
  if (r.ipfix && ipfix_export_close(r.ipfix, last, stderr) != 0) {
    status = 1;
  }
  for (i = 0; i < nin; i++) {
    capfile_close(in[i].cf);
    in[i].cf = NULL;
    free(in[i].ifpoint);
  }
  for (i = 0; i < r.npt; i++) {
    free(r.pt[i].name);
  }
  free(r.pt);
  free(r.ptnames);
  return status;
}

/* ------------------------------------------------------------ main */

static void usage(FILE *f) {
  fprintf(
      f,
      "Usage: " PROG " [OPTIONS] [NAME=]FILE...\n"
      "Decode RoCE traffic in pcap/pcapng FILEs (NAME: observation "
      "point).\n\n"
      "  --packets           one record per RoCE packet\n"
      "  --flows             one record per flow (throughput figures)\n"
      "  --messages          one record per message\n"
      "  --ios               one record per NVMe-oF I/O\n"
      "  --segments          I/Os joined across two observation points\n"
      "  --summary           per host/target latency percentiles\n"
      "  --interval DUR      summary period (default: whole run)\n"
      "  --split-interfaces  each interface of a pcapng FILE its own "
      "observation\n"
      "                      point, NAME.IFNAME or NAME.ifN\n"
      "  --compute-side NAME  observation point nearest the hosts\n"
      "  --storage-side NAME  observation point nearest the storage\n"
      "  --io-timeout DUR    I/O response timeout (default 5s)\n"
      "  --poll P/SLOT       polling schedule: P inputs per SLOT (e.g. "
      "1/10ms)\n"
      "  --alarm [port:|pair:]METRIC>VALUE  alarm threshold (iol dal dpl "
      "fct:\n"
      "                      a duration; fnr retx_ratio: a plain number;\n"
      "                      cnp_rate, fet<VALUE: a rate, units k M G)\n"
      "  --max-flows N       flow table capacity (default: from the FILE "
      "sizes,\n"
      "                      4096 to 1048576)\n"
      "  --max-ios N         outstanding I/O table capacity (default 16384)\n"
      "  --flow-idle DUR     flow idle timeout (default 100ms)\n"
      "  --no-flows          no flow table (no flows, no messages)\n"
      "  --stats             per-file counters (default without "
      "--packets)\n"
      "  --format text|json  output format (default text)\n"
      "  --icrc              verify the ICRC of every RoCE packet\n"
      "  --roce-port N       RoCEv2 UDP destination port (default 4791)\n"
      "  --no-decap          do not remove ERSPAN/VXLAN encapsulation\n"
      "  --ipfix HOST:PORT   export every record as IPFIX over UDP\n"
      "  --ipfix-file FILE   export every record as IPFIX into FILE\n"
      "  --pen N             enterprise number of the IPFIX elements "
      "(default\n"
      "                      32473, for documentation: use your own)\n"
      "  --domain N          IPFIX observation domain id (default 0)\n"
      "  --mtu N             path MTU towards the collector (default: "
      "unknown,\n"
      "                      512-byte messages)\n"
      "  --report FILE       write an HTML report of the run into FILE\n"
      "  --report-top N      slowest I/Os and worst flows in it (default "
      "20)\n"
      "  --report-ns         I/O quality per namespace in it too\n"
      "  --pmacct-primitives TYPE  print pmacct's aggregate_primitives of "
      "TYPE\n"
      "                      records (flow message io segment summary), "
      "exit\n"
      "  -h, --help          this text\n"
      "  --version           program and library versions\n"
      "DUR: a duration, NUMBER[ns|us|ms|s] (a plain number is ns), e.g. "
      "1.5ms\n");
}

static int usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

static int usage_error(const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, PROG ": ");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\nTry '" PROG " --help' for more information.\n");
  return 2;
}

/* The largest duration an option takes, in ns (about 292 years): any
 * capture time plus it still fits a 64-bit timestamp. */
#define DURATION_MAX ((uint64_t)INT64_MAX)

/* A plain decimal integer (digits only: no sign, no blank, no base
 * prefix) from |lo| to |hi|. Returns 0 and stores it, or -1. */
static int parse_uint(const char *v, uint64_t lo, uint64_t hi, uint64_t *out) {
  uint64_t n = 0;
  if (v == NULL || *v == '\0') {
    return -1;
  }
  for (; *v; v++) {
    if (*v < '0' || *v > '9' || n > (UINT64_MAX - (uint64_t)(*v - '0')) / 10) {
      return -1;
    }
    n = n * 10 + (uint64_t)(*v - '0');
  }
  if (n < lo || n > hi) {
    return -1;
  }
  *out = n;
  return 0;
}

/* A decimal number DIGITS[.DIGITS] at the start of |v| (no sign, no
 * blank, no exponent). Returns the length of the number, or 0. */
static size_t decimal_len(const char *v) {
  size_t n = 0;
  while (v[n] >= '0' && v[n] <= '9') {
    n++;
  }
  if (n == 0) {
    return 0;
  }
  if (v[n] == '.') {
    size_t f = n + 1;
    while (v[f] >= '0' && v[f] <= '9') {
      f++;
    }
    if (f == n + 1) {
      return 0;
    }
    n = f;
  }
  return n;
}

/* The ns in one unit of a time: ns us ms s; none (a plain number) is ns.
 * Returns 0 for a unit that is not a time. */
static uint64_t time_unit(const char *u) {
  if (*u == '\0' || strcmp(u, "ns") == 0) {
    return 1;
  }
  if (strcmp(u, "us") == 0) {
    return 1000;
  }
  if (strcmp(u, "ms") == 0) {
    return 1000000;
  }
  if (strcmp(u, "s") == 0) {
    return 1000000000;
  }
  return 0;
}

/* A duration: NUMBER[UNIT], UNIT ns us ms s (none: ns), a whole number of
 * ns from 1 to DURATION_MAX. Returns 0 and stores it in ns, or -1. */
static int parse_duration(const char *v, uint64_t *out) {
  size_t n = v ? decimal_len(v) : 0;
  const char *dot;
  uint64_t ip = 0, frac = 0, pow10 = 1, mul, ns;
  size_t i;
  if (n == 0 || (mul = time_unit(v + n)) == 0) {
    return -1;
  }
  for (i = 0; i < n && v[i] != '.'; i++) {
    if (ip > (UINT64_MAX - (uint64_t)(v[i] - '0')) / 10) {
      return -1;
    }
    ip = ip * 10 + (uint64_t)(v[i] - '0');
  }
  dot = v[i] == '.' ? v + i : NULL;
  if (dot) {
    for (i++; i < n; i++) {
      if (pow10 == 1000000000) {
        return -1; /* more than 9 decimals */
      }
      frac = frac * 10 + (uint64_t)(v[i] - '0');
      pow10 *= 10;
    }
    if (frac * mul % pow10 != 0) {
      return -1; /* not a whole number of ns */
    }
  }
  if (ip > DURATION_MAX / mul) {
    return -1;
  }
  ns = ip * mul + frac * mul / pow10;
  if (ns == 0 || ns > DURATION_MAX) {
    return -1;
  }
  *out = ns;
  return 0;
}

/* What an alarm value may be written with: a time (ns us ms s, none:
 * ns), a rate (k M G, none: per second) or a plain number. */
enum { VAL_TIME, VAL_RATE, VAL_PLAIN };

/* An alarm value: a positive decimal NUMBER[UNIT] whose unit fits |kind|.
 * Returns 0 and stores it, or -1. */
static int parse_value(const char *v, int kind, double *out) {
  size_t n = decimal_len(v);
  const char *u = v + n;
  double x, mul = 0;
  if (n == 0) {
    return -1;
  }
  if (kind == VAL_TIME) {
    uint64_t ns;
    if (parse_duration(v, &ns) != 0) {
      return -1;
    }
    *out = (double)ns;
    return 0;
  }
  if (*u == '\0') {
    mul = 1;
  } else if (kind == VAL_RATE) {
    mul = strcmp(u, "k") == 0   ? 1e3
          : strcmp(u, "M") == 0 ? 1e6
          : strcmp(u, "G") == 0 ? 1e9
                                : 0;
  }
  if (mul == 0) {
    return -1;
  }
  x = strtod(v, NULL) * mul; /* the digits strtod reads are v[0..n) */
  if (!(x > 0) || x > 1e300) {
    return -1;
  }
  *out = x;
  return 0;
}

/* --alarm [port:|pair:]METRIC>VALUE or fet<VALUE. Returns NULL, or why |v| is
 * not one (in |why|, for the message). */
static const char *parse_alarm(const char *v, struct alarm_opt *a, char *why,
                               size_t whylen) {
  static const char *const names[] = {NULL,  "iol",        "dal",
                                      "dpl", "fct",        "fnr",
                                      "fet", "retx_ratio", "cnp_rate"};
  static const char *const kinds[] = {"a time (unit ns, us, ms or s)",
                                      "a rate (unit k, M or G, or none)",
                                      "a plain number (no unit)"};
  const char *op, *val;
  size_t n;
  uint32_t m;
  int kind;
  a->scope = RTEL_SCOPE_PAIR;
  if (strncmp(v, "port:", 5) == 0) {
    a->scope = RTEL_SCOPE_PORT;
    v += 5;
  } else if (strncmp(v, "pair:", 5) == 0) {
    v += 5;
  }
  op = strpbrk(v, "<>");
  if (op == NULL) {
    return "not METRIC>VALUE (or fet<VALUE)";
  }
  n = (size_t)(op - v);
  for (m = 1; m < sizeof(names) / sizeof(names[0]); m++) {
    if (strlen(names[m]) == n && strncmp(v, names[m], n) == 0) {
      break;
    }
  }
  if (m == sizeof(names) / sizeof(names[0])) {
    return "unknown metric (iol dal dpl fct fnr fet retx_ratio cnp_rate)";
  }
  if ((*op == '<') != (m == RTEL_METRIC_FET)) {
    return m == RTEL_METRIC_FET ? "fet alarms below a value: fet<VALUE"
                                : "alarms above a value: METRIC>VALUE";
  }
  a->metric = m;
  kind = m == RTEL_METRIC_FET || m == RTEL_METRIC_CNP_RATE     ? VAL_RATE
         : m == RTEL_METRIC_FNR || m == RTEL_METRIC_RETX_RATIO ? VAL_PLAIN
                                                               : VAL_TIME;
  val = op + 1;
  if (parse_value(val, kind, &a->value) == 0) {
    return NULL;
  }
  n = decimal_len(val);
  if (n == 0 || (kind != VAL_TIME && val[n] == '\0')) {
    return "VALUE is not a positive decimal number";
  }
  if (kind == VAL_TIME && time_unit(val + n) != 0) {
    return "VALUE is not a whole number of ns from 1ns to 2^63-1ns";
  }
  snprintf(why, whylen, "%s takes %s, not '%s'", names[m], kinds[kind],
           val + n);
  return why;
}

int main(int argc, char **argv) {
  options opt;
  input *inputs;
  size_t ninputs = 0, i;
  int a, status = 0;
  const char *pmacct = NULL; /* --pmacct-primitives TYPE */

  memset(&opt, 0, sizeof(opt));
  opt.format = FMT_TEXT;
  opt.ipfix.pen = RTEL_IPFIX_PEN_DOCUMENTATION;
  opt.roce_port = RTEL_ROCEV2_UDP_PORT;
  inputs = calloc((size_t)argc, sizeof(*inputs));
  if (inputs == NULL) {
    fprintf(stderr, PROG ": out of memory\n");
    return 1;
  }
  for (a = 1; a < argc; a++) {
    const char *arg = argv[a];
    if (strcmp(arg, "--packets") == 0) {
      opt.packets = 1;
    } else if (strcmp(arg, "--flows") == 0) {
      opt.flows = 1;
    } else if (strcmp(arg, "--messages") == 0) {
      opt.messages = 1;
    } else if (strcmp(arg, "--ios") == 0) {
      opt.ios = 1;
    } else if (strcmp(arg, "--segments") == 0) {
      opt.segments = 1;
    } else if (strcmp(arg, "--summary") == 0) {
      opt.summary = 1;
    } else if (strcmp(arg, "--split-interfaces") == 0) {
      opt.split = 1;
    } else if (strcmp(arg, "--poll") == 0) {
      const char *v = a + 1 < argc ? argv[++a] : NULL;
      const char *slash = v ? strchr(v, '/') : NULL;
      char per_s[8];
      uint64_t per, slot;
      if (v == NULL || slash == NULL) {
        free(inputs);
        return usage_error("%s", "--poll needs P/SLOT, e.g. 1/10ms");
      }
      per_s[0] = '\0';
      if ((size_t)(slash - v) < sizeof(per_s)) {
        memcpy(per_s, v, (size_t)(slash - v));
        per_s[slash - v] = '\0';
      }
      if (parse_uint(per_s, 1, 65535, &per) != 0 ||
          parse_duration(slash + 1, &slot) != 0) {
        free(inputs);
        return usage_error("invalid --poll '%s' (P/SLOT: P 1-65535, SLOT a "
                           "duration, e.g. 1/10ms)",
                           v);
      }
      opt.poll_ports = (uint32_t)per;
      opt.poll_slot_ns = slot;
    } else if (strcmp(arg, "--alarm") == 0) {
      const char *v = a + 1 < argc ? argv[++a] : NULL;
      char why[128];
      const char *err = NULL;
      if (v == NULL) {
        free(inputs);
        return usage_error("%s needs an argument", arg);
      }
      if (opt.nalarms == 16) {
        free(inputs);
        return usage_error("%s", "at most 16 --alarm");
      }
      err = parse_alarm(v, &opt.alarms[opt.nalarms], why, sizeof(why));
      if (err != NULL) {
        free(inputs);
        return usage_error("invalid --alarm '%s': %s (e.g. iol>500us, "
                           "fet<10G, fnr>0.01)",
                           v, err);
      }
      opt.nalarms++;
    } else if (strcmp(arg, "--compute-side") == 0 ||
               strcmp(arg, "--storage-side") == 0) {
      if (a + 1 >= argc) {
        free(inputs);
        return usage_error("%s needs an argument", arg);
      }
      if (arg[2] == 'c') {
        opt.compute_side = argv[++a];
      } else {
        opt.storage_side = argv[++a];
      }
    } else if (strcmp(arg, "--max-ios") == 0 ||
               strcmp(arg, "--max-flows") == 0) {
      const char *v = a + 1 < argc ? argv[++a] : NULL;
      uint64_t n;
      if (v == NULL) {
        free(inputs);
        return usage_error("%s needs an argument", arg);
      }
      if (parse_uint(v, 1, 1u << 26, &n) != 0) {
        free(inputs);
        return usage_error("invalid value '%s' for %s (1-67108864)", v, arg);
      }
      if (arg[6] == 'i') {
        opt.max_ios = (uint32_t)n;
      } else {
        opt.max_flows = (uint32_t)n;
      }
    } else if (strcmp(arg, "--flow-idle") == 0 ||
               strcmp(arg, "--io-timeout") == 0 ||
               strcmp(arg, "--interval") == 0) {
      const char *v = a + 1 < argc ? argv[++a] : NULL;
      uint64_t n;
      if (v == NULL) {
        free(inputs);
        return usage_error("%s needs an argument", arg);
      }
      if (parse_duration(v, &n) != 0) {
        free(inputs);
        return usage_error("invalid value '%s' for %s (a duration: NUMBER "
                           "with unit ns, us, ms or s, 1ns to %" PRIu64
                           "ns; a plain number is ns)",
                           v, arg, DURATION_MAX);
      }
      if (arg[2] == 'f') {
        opt.flow_idle_ns = n;
      } else if (arg[3] == 'n') {
        opt.interval_ns = n;
      } else {
        opt.io_timeout_ns = n;
      }
    } else if (strcmp(arg, "--no-flows") == 0) {
      opt.no_flows = 1;
    } else if (strcmp(arg, "--stats") == 0) {
      opt.stats = 1;
    } else if (strcmp(arg, "--icrc") == 0) {
      opt.decode_flags |= RTEL_DECODE_VERIFY_ICRC;
    } else if (strcmp(arg, "--no-decap") == 0) {
      opt.decode_flags |= RTEL_DECODE_NO_DECAP;
    } else if (strcmp(arg, "--format") == 0 ||
               strncmp(arg, "--format=", 9) == 0) {
      const char *v =
          arg[8] == '=' ? arg + 9 : (a + 1 < argc ? argv[++a] : NULL);
      if (v == NULL) {
        free(inputs);
        return usage_error("%s needs an argument", "--format");
      }
      if (strcmp(v, "text") == 0) {
        opt.format = FMT_TEXT;
      } else if (strcmp(v, "json") == 0) {
        opt.format = FMT_JSON;
      } else {
        free(inputs);
        return usage_error("unknown format '%s' (text or json)", v);
      }
    } else if (strcmp(arg, "--roce-port") == 0 ||
               strncmp(arg, "--roce-port=", 12) == 0) {
      const char *v =
          arg[11] == '=' ? arg + 12 : (a + 1 < argc ? argv[++a] : NULL);
      uint64_t port;
      if (v == NULL) {
        free(inputs);
        return usage_error("%s needs an argument", "--roce-port");
      }
      if (parse_uint(v, 1, 65535, &port) != 0) {
        free(inputs);
        return usage_error("invalid value '%s' for --roce-port (1-65535)", v);
      }
      opt.roce_port = (uint32_t)port;
    } else if (strcmp(arg, "--ipfix") == 0 ||
               strcmp(arg, "--ipfix-file") == 0) {
      const char *v = a + 1 < argc ? argv[++a] : NULL;
      if (v == NULL || *v == '\0') {
        free(inputs);
        return usage_error("%s needs an argument", arg);
      }
      if (arg[7] == '\0') {
        opt.ipfix.udp = v;
      } else {
        opt.ipfix.file = v;
      }
    } else if (strcmp(arg, "--pen") == 0 || strcmp(arg, "--domain") == 0 ||
               strcmp(arg, "--mtu") == 0) {
      const char *v = a + 1 < argc ? argv[++a] : NULL;
      uint64_t n = 0;
      uint64_t lo = arg[2] == 'p' ? 1 : arg[2] == 'm' ? 576 : 0;
      uint64_t hi = arg[2] == 'm' ? 65535 : 0xffffffffu;
      if (v == NULL) {
        free(inputs);
        return usage_error("%s needs an argument", arg);
      }
      if (parse_uint(v, lo, hi, &n) != 0) {
        free(inputs);
        return usage_error("invalid value '%s' for %s (%" PRIu64 "-%" PRIu64
                           ")",
                           v, arg, lo, hi);
      }
      if (arg[2] == 'p') {
        opt.ipfix.pen = (uint32_t)n;
      } else if (arg[2] == 'd') {
        opt.ipfix.domain = (uint32_t)n;
      } else {
        opt.ipfix.mtu = (uint32_t)n;
      }
    } else if (strcmp(arg, "--report") == 0) {
      const char *v = a + 1 < argc ? argv[++a] : NULL;
      if (v == NULL || *v == '\0') {
        free(inputs);
        return usage_error("%s needs an argument", arg);
      }
      opt.report_path = v;
    } else if (strcmp(arg, "--report-ns") == 0) {
      opt.report_ns = 1;
    } else if (strcmp(arg, "--report-top") == 0) {
      const char *v = a + 1 < argc ? argv[++a] : NULL;
      uint64_t n;
      if (v == NULL) {
        free(inputs);
        return usage_error("%s needs an argument", arg);
      }
      if (parse_uint(v, 1, REPORT_TOP_MAX, &n) != 0) {
        free(inputs);
        return usage_error("invalid value '%s' for --report-top (1-%d)", v,
                           REPORT_TOP_MAX);
      }
      opt.report_top = (size_t)n;
    } else if (strcmp(arg, "--pmacct-primitives") == 0) {
      pmacct = a + 1 < argc ? argv[++a] : "";
    } else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      usage(stdout);
      free(inputs);
      return 0;
    } else if (strcmp(arg, "--version") == 0) {
      const rtel_info *info = rtel_version(0);
      printf(PROG " %s (librocetel %s)\n", RTEL_VERSION,
             info ? info->version_str : "?");
      free(inputs);
      return 0;
    } else if (strcmp(arg, "--") == 0) {
      for (a++; a < argc; a++) {
        inputs[ninputs++].path = argv[a];
      }
    } else if (arg[0] == '-' && arg[1] != '\0') {
      free(inputs);
      return usage_error("unknown option '%s'", arg);
    } else {
      inputs[ninputs++].path = arg;
    }
  }
  if (pmacct) {
    free(inputs);
    if (ipfix_export_pmacct_primitives(stdout, opt.ipfix.pen, pmacct) != 0) {
      return usage_error("invalid --pmacct-primitives '%s' (flow, message, "
                         "io, segment or summary)",
                         pmacct);
    }
    return fflush(stdout) == 0 ? 0 : 1;
  }
  if (ninputs == 0) {
    free(inputs);
    return usage_error("%s", "no input file");
  }
  if ((opt.report_top || opt.report_ns) && !opt.report_path) {
    free(inputs);
    return usage_error("%s", opt.report_top ? "--report-top needs --report"
                                            : "--report-ns needs --report");
  }
  if (opt.ipfix.udp && opt.ipfix.file) {
    free(inputs);
    return usage_error("%s", "--ipfix and --ipfix-file: one at a time");
  }
  if (opt.no_flows && (opt.flows || opt.messages)) {
    free(inputs);
    return usage_error("%s", "--no-flows leaves no --flows or --messages");
  }
  if (!opt.packets && !opt.flows && !opt.messages && !opt.ios &&
      !opt.segments && !opt.summary && !opt.report_path) {
    opt.stats = 1;
  }
  for (i = 0; i < ninputs; i++) {
    const char *eq = strchr(inputs[i].path, '=');
    const char *slash = strchr(inputs[i].path, '/');
    if (eq && eq != inputs[i].path && (slash == NULL || eq < slash)) {
      size_t n = (size_t)(eq - inputs[i].path);
      inputs[i].name_alloc = strndup(inputs[i].path, n);
      inputs[i].path = eq + 1;
      inputs[i].named = 1;
    } else {
      inputs[i].name_alloc = pcap_input_obs_name(inputs[i].path);
    }
    if (inputs[i].name_alloc == NULL) {
      fprintf(stderr, PROG ": out of memory\n");
      status = 1;
      break;
    }
    inputs[i].name = inputs[i].name_alloc;
  }
  /* A file that cannot be read is reported and skipped: the others are
   * still analysed, so nothing measurable is lost. */
  if (status == 0 && opt.report_path) {
    /* the command line, for the report's header */
    size_t len = sizeof(PROG);
    for (a = 1; a < argc; a++) {
      len += strlen(argv[a]) + 1;
    }
    opt.cmdline = malloc(len);
    if (opt.cmdline == NULL) {
      fprintf(stderr, PROG ": out of memory\n");
      status = 1;
    } else {
      strcpy(opt.cmdline, PROG);
      for (a = 1; a < argc; a++) {
        strcat(opt.cmdline, " ");
        strcat(opt.cmdline, argv[a]);
      }
    }
  }
  if (status == 0 && analyze(&opt, inputs, ninputs) != 0) {
    status = 1;
  }
  free(opt.cmdline);
  for (i = 0; i < ninputs; i++) {
    free(inputs[i].name_alloc);
  }
  free(inputs);
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, PROG ": error writing output: %s\n", strerror(errno));
    return 1;
  }
  return status;
}
