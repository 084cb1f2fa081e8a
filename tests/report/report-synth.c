/* SPDX-License-Identifier: MIT */
/*
 * report-synth: feeds the HTML report of examples/rtel-report.c with
 * synthetic records, as a large run would, and writes the page: the size
 * test of tests/report/check_report.py (the page must stay a few MB and
 * the memory bounded however many records go in).
 *
 *   report-synth [--ios N] [--hosts H] [--targets T] [--flows F] OUT.html
 *
 * N I/Os (default 1000000) of H hosts (default 32) to T targets (default
 * 8), each seen at a compute-side point (c0) and a storage-side point (s0)
 * and joined (one segment record each), spread over 10 s of capture time
 * with a latency spike in the middle; F flows (default 20000) with their
 * messages; a few alarms and one library aggregate per pair. Prints one
 * line: records, page bytes, feed and write times, peak memory.
 * Deterministic (a fixed xorshift generator).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <rocetel/rocetel.h>

#include "../../examples/rtel-report.h"

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

/* A latency of about |mean| ns, log-normal-ish (sum of uniforms). */
static int64_t lat(double mean) {
  double u = 0;
  int i;
  for (i = 0; i < 4; i++) {
    u += (double)(rnd() % 1000000) / 1e6;
  }
  return (int64_t)(mean * (0.4 + u * u / 8));
}

static void addr4(uint8_t a[16], uint8_t net, uint32_t n) {
  memset(a, 0, 16);
  a[10] = a[11] = 0xff;
  a[12] = 10;
  a[13] = net;
  a[14] = (uint8_t)(n >> 8);
  a[15] = (uint8_t)(n + 1);
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static unsigned long arg_num(const char *v) {
  char *end;
  unsigned long n;
  errno = 0;
  n = strtoul(v, &end, 10);
  if (errno || *end || end == v || n == 0) {
    fprintf(stderr, "report-synth: invalid number '%s'\n", v);
    exit(2);
  }
  return n;
}

int main(int argc, char **argv) {
  unsigned long nios = 1000000, nhosts = 32, ntargets = 8, nflows = 20000;
  const char *outp = NULL;
  const rtel_tstamp t0 = UINT64_C(1700000000000000000);
  const rtel_tstamp span = UINT64_C(10000000000); /* 10 s */
  report_opts ro;
  report *rep;
  rtel_ctx_stats st;
  struct rusage ru;
  unsigned long i;
  double ta, tb, tc;
  FILE *f;
  long size;
  int a;

  for (a = 1; a < argc; a++) {
    if (strcmp(argv[a], "--ios") == 0 && a + 1 < argc) {
      nios = arg_num(argv[++a]);
    } else if (strcmp(argv[a], "--hosts") == 0 && a + 1 < argc) {
      nhosts = arg_num(argv[++a]);
    } else if (strcmp(argv[a], "--targets") == 0 && a + 1 < argc) {
      ntargets = arg_num(argv[++a]);
    } else if (strcmp(argv[a], "--flows") == 0 && a + 1 < argc) {
      nflows = arg_num(argv[++a]);
    } else if (argv[a][0] != '-' && outp == NULL) {
      outp = argv[a];
    } else {
      fprintf(stderr, "usage: report-synth [--ios N] [--hosts H] "
                      "[--targets T] [--flows F] OUT.html\n");
      return 2;
    }
  }
  if (outp == NULL) {
    fprintf(stderr, "report-synth: no output file\n");
    return 2;
  }
  memset(&ro, 0, sizeof(ro));
  ro.title = "report-synth";
  ro.source = "synthetic records (tests/report/report-synth.c)";
  rep = report_new(&ro);
  if (rep == NULL) {
    fprintf(stderr, "report-synth: out of memory\n");
    return 1;
  }
  report_obs(rep, 0, "c0", RTEL_ROLE_COMPUTE, t0, t0 + span);
  report_obs(rep, 1, "s0", RTEL_ROLE_STORAGE, t0 + 5000, t0 + span + 5000);
  ta = now_ms();
  for (i = 0; i < nios; i++) {
    rtel_io_record c, s;
    rtel_segment_record sg;
    uint32_t h = (uint32_t)(rnd() % nhosts);
    uint32_t t = (uint32_t)(h % ntargets);
    int write = rnd() % 10 < 4;
    rtel_tstamp ts = t0 + span * i / nios;
    /* a slow storage in the middle of the run, on target 0 */
    double slow = (t == 0 && i > nios / 2 && i < nios / 2 + nios / 20) ? 8 : 1;
    int64_t storage = lat(60000 * slow), net = lat(6000), dpl = lat(4000);
    memset(&c, 0, sizeof(c));
    c.obs = 0;
    c.state = RTEL_IO_COMPLETE;
    addr4(c.host, 1, h);
    addr4(c.target, 2, t);
    c.host_qpn = 0x1000 + h;
    c.target_qpn = 0x2000 + h;
    c.cid = (uint16_t)(i % 128);
    c.qid = 1;
    c.flags = RTEL_IO_F_QID;
    c.opcode = write ? RTEL_NVME_OP_WRITE : RTEL_NVME_OP_READ;
    c.nsid = 1 + (uint32_t)(i % 2);
    c.nlb = 8;
    c.slba = rnd() % 100000000u;
    c.bytes = 4096u << (rnd() % 5);
    c.t_cmd = ts;
    if (write) {
      c.t_rdreq = ts + (uint64_t)(net / 2 + 800);
      c.t_data_first = c.t_rdreq + (uint64_t)dpl;
      c.t_data_last = c.t_data_first + c.bytes / 12;
      c.t_rsp = c.t_data_last + (uint64_t)storage;
      c.dal =
          (int64_t)(c.t_rdreq - c.t_cmd) + (int64_t)(c.t_rsp - c.t_data_last);
      c.dpl = dpl;
    } else {
      c.t_data_first = ts + (uint64_t)(net + storage);
      c.t_data_last = c.t_data_first + c.bytes / 12;
      c.t_rsp = c.t_data_last + 300;
      c.t_rdreq = RTEL_TSTAMP_NONE;
      c.dal = (int64_t)(c.t_data_first - c.t_cmd);
      c.dpl = RTEL_DURATION_NONE;
    }
    c.iol = (int64_t)(c.t_rsp - c.t_cmd);
    c.xfer = (int64_t)(c.t_data_last - c.t_data_first);
    c.coverage_start = t0;
    c.coverage_end = RTEL_TSTAMP_NONE;
    /* the storage side: net / 2 later, net shorter */
    s = c;
    s.obs = 1;
    s.t_cmd = c.t_cmd + 5000 + (uint64_t)(net / 2);
    s.t_rsp = c.t_rsp + 5000 - (uint64_t)(net / 2);
    s.iol = (int64_t)(s.t_rsp - s.t_cmd);
    if (write) {
      s.t_rdreq += 5000;
      s.t_data_first += 5000;
      s.t_data_last += 5000;
    } else {
      s.t_data_first += 5000 - (uint64_t)(net / 2);
      s.t_data_last += 5000 - (uint64_t)(net / 2);
    }
    report_io(rep, &s);
    report_io(rep, &c);
    memset(&sg, 0, sizeof(sg));
    sg.compute_obs = 0;
    sg.storage_obs = 1;
    sg.flags = c.flags;
    sg.roles_configured = 1;
    memcpy(sg.host, c.host, 16);
    memcpy(sg.target, c.target, 16);
    sg.target_qpn = c.target_qpn;
    sg.cid = c.cid;
    sg.opcode = c.opcode;
    sg.nsid = c.nsid;
    sg.slba = c.slba;
    sg.bytes = c.bytes;
    sg.iol1 = c.iol;
    sg.iol2 = s.iol;
    sg.rtt = c.iol - s.iol;
    sg.compute = write ? c.dpl : 0;
    sg.network = sg.rtt;
    sg.storage = sg.iol1 - sg.compute - sg.network;
    report_segment(rep, &sg);
    if (i % (nios / 8 + 1) == nios / 16) {
      rtel_alarm al;
      memset(&al, 0, sizeof(al));
      al.metric = RTEL_METRIC_IOL;
      al.scope = RTEL_SCOPE_PAIR;
      al.kind = RTEL_ALARM_THRESHOLD;
      al.state =
          (i / (nios / 8 + 1)) % 2 ? RTEL_ALARM_CLEARED : RTEL_ALARM_RAISED;
      al.obs = 0;
      memcpy(al.src, c.host, 16);
      memcpy(al.dst, c.target, 16);
      al.value = (double)c.iol;
      al.limit = 100000;
      al.ts = c.t_rsp;
      al.io = &c;
      report_alarm(rep, &al);
    }
  }
  for (i = 0; i < nflows; i++) {
    rtel_flow_record fl;
    rtel_msg_record m;
    uint64_t k, nm = 1 + rnd() % 8;
    memset(&fl, 0, sizeof(fl));
    fl.obs = (uint32_t)(i % 2);
    fl.flags = RTEL_FLOW_F_PAIRED;
    addr4(fl.src, 3, (uint32_t)(i % 64));
    addr4(fl.dst, 3, (uint32_t)((i + 1) % 64));
    fl.dqpn = 0x100000 + (uint32_t)i;
    fl.peer_qpn = 0x200000 + (uint32_t)i;
    fl.ops = RTEL_OP_WRITE;
    fl.end = RTEL_END_IDLE;
    fl.first_ts = t0 + span * i / nflows;
    fl.packets = 64 * nm;
    fl.bytes = fl.packets * 4096;
    fl.fct = (uint64_t)lat(40000.0 * (double)nm);
    fl.last_ts = fl.first_ts + fl.fct;
    if (rnd() % 10 == 0) {
      fl.retx_packets = 1 + rnd() % 20;
      fl.retx_bytes = fl.retx_packets * 4096;
      fl.naks_seq = 1;
      fl.losses_upstream = rnd() % 2;
      fl.losses_downstream = 1 - fl.losses_upstream;
      fl.lost_upstream = fl.losses_upstream;
    }
    fl.cnps = rnd() % 3;
    fl.ecn_ce = fl.cnps;
    fl.fet_bps = (uint64_t)((double)(fl.packets - fl.retx_packets) * 4178 * 8 /
                            ((double)fl.fct / 1e9));
    fl.messages = nm;
    fl.fnr = (double)fl.naks_seq / (double)fl.packets;
    fl.retx_ratio = (double)fl.retx_packets / (double)fl.packets;
    for (k = 0; k < nm; k++) {
      memset(&m, 0, sizeof(m));
      m.obs = fl.obs;
      m.flags = fl.flags;
      memcpy(m.src, fl.src, 16);
      memcpy(m.dst, fl.dst, 16);
      m.dqpn = fl.dqpn;
      m.op = RTEL_OP_WRITE;
      m.first_ts = fl.first_ts + fl.fct * k / nm;
      m.fct = fl.fct / nm;
      m.last_ts = m.first_ts + m.fct;
      m.packets = 64;
      m.bytes = 64 * 4096;
      m.end = RTEL_END_ACKED;
      m.fet_bps = fl.fet_bps;
      report_msg(rep, &m);
    }
    report_flow(rep, &fl);
  }
  memset(&st, 0, sizeof(st));
  st.pkts = nios * 24 + nflows * 300;
  st.pkts_roce = st.pkts;
  st.ios_complete = 2 * nios;
  st.segments = nios;
  st.flows_created = nflows;
  report_stats(rep, "all", &st);
  tb = now_ms();
  f = fopen(outp, "w");
  if (f == NULL) {
    fprintf(stderr, "report-synth: %s: %s\n", outp, strerror(errno));
    report_free(rep);
    return 1;
  }
  if (report_write(rep, f) != 0) {
    fprintf(stderr, "report-synth: %s: %s\n", outp, strerror(errno));
    fclose(f);
    report_free(rep);
    return 1;
  }
  size = ftell(f);
  if (fclose(f) != 0) {
    fprintf(stderr, "report-synth: %s: %s\n", outp, strerror(errno));
    report_free(rep);
    return 1;
  }
  tc = now_ms();
  getrusage(RUSAGE_SELF, &ru);
  printf("report-synth: %llu records (%lu I/Os at 2 points, %lu flows), "
         "page %ld bytes, feed %.0f ms, write %.0f ms, max RSS %ld KiB%s\n",
         (unsigned long long)report_records(rep), nios, nflows, size, tb - ta,
         tc - tb, ru.ru_maxrss, report_oom(rep) ? ", OUT OF MEMORY" : "");
  report_free(rep);
  return 0;
}
