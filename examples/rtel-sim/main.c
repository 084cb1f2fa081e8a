/* main.c - rtel-sim: RoCEv2 and NVMe-oF traffic simulator with ground truth
 *
 *   rtel-sim --scenario NAME --seed N --out DIR [options]
 *
 * Writes DIR/<obs>.pcap per observation point and DIR/truth.jsonl.  See
 * rtel-sim(1).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "sim.h"

#define VERSION "0.1"

void die_nomem(void) {
  fputs("rtel-sim: out of memory\n", stderr);
  exit(1);
}

void sim_schedule(struct sim *s, uint64_t t, uint32_t kind, uint32_t arg) {
  if (heap_push(&s->heap, t < s->now ? s->now : t, kind, arg) < 0)
    die_nomem();
}

static void usage(FILE *f) {
  fputs("usage: rtel-sim --scenario NAME --seed N --out DIR [options]\n"
        "       rtel-sim --list-scenarios\n"
        "Writes one nanosecond pcap per observation point and a ground-truth "
        "JSON Lines file.\n"
        "Options (see rtel-sim(1)): --hosts --targets --hosts-per-leaf "
        "--link-delay --spine-delay\n"
        "  --jitter --gbps --obs --capture-start --snaplen --trunc --dup-rate "
        "--erspan --ipv6 --vlan\n"
        "  --no-packet-truth --packet-truth --no-msg-truth --flow-idle --pmtu "
        "--nic-burst --psn-wrap\n"
        "  --ack-every --ack-delay --rto --rnr-delay\n"
        "  --cnp-interval --cm-delay --loss --loss-where --loss-on --ecn "
        "--fecn --rnr --no-cm\n"
        "  --workload --gpu-hosts --qps --msg-size --iterations --msgs-per-qp "
        "--outstanding --rdma-op\n"
        "  --gpu-gap --packets --duration --nvme-hosts --io-queues --qd --ios "
        "--io-size --mix\n"
        "  --incapsule --inv-pct --max-rreq --nvme-errors --stall "
        "--io-timeout --host-prep\n"
        "  --storage-read --storage-write --target-proc\n",
        f);
}

static void conn_init(struct sim *s, uint32_t c, uint32_t *flow_base) {
  struct conn *cn = &s->conns[c];
  cn->cm = (uint8_t)s->c.cm;
  cn->tid = (rng_u64(&s->rng) & 0x00000000ffffffffull) | 0x0000000200000000ull;
  for (unsigned d = 0; d < 2; d++) {
    struct qp *q = &s->qps[qp_idx(c, d)];
    struct node *n = &s->nodes[d ? cn->b : cn->a];
    memset(q, 0, sizeof *q);
    q->node = d ? cn->b : cn->a;
    q->qpn = n->next_qpn;
    n->next_qpn =
        (n->next_qpn + 1 + (uint32_t)rng_below(&s->rng, 4)) & PSN_MASK;
    if (n->next_qpn < 2)
      n->next_qpn = 2;
    cn->ipsn[d] = s->c.psn_wrap ? PSN_MASK - (uint32_t)rng_below(&s->rng, 64)
                                : (uint32_t)rng_below(&s->rng, 1u << 24);
    q->post_psn = q->snd_max = q->una = q->ackd = cn->ipsn[d];
    q->head = q->tail = q->cur = NONE;
    q->rr_head = q->rr_tail = NONE;
    q->nic_next = NONE;
    cn->sport[d] = (uint16_t)(49152 + rng_below(&s->rng, 16384));
    cn->comm[d] = (uint32_t)rng_u64(&s->rng);
  }
  for (unsigned d = 0; d < 2; d++)
    s->qps[qp_idx(c, d)].epsn = cn->ipsn[d ^ 1u];
  net_conn_path(s, cn);
  cn->flow_base = *flow_base;
  *flow_base += 2u * cn->nobs;
}

static int open_outputs(struct sim *s) {
  char path[4096];
  if (strlen(s->c.out) >= sizeof path - 64) {
    errno = ENAMETOOLONG;
    return -1;
  }
  /* mkdir -p */
  snprintf(path, sizeof path, "%s", s->c.out);
  for (char *sl = path + 1; *sl; sl++)
    if (*sl == '/') {
      *sl = 0;
      if (mkdir(path, 0777) < 0 && errno != EEXIST)
        return -1;
      *sl = '/';
    }
  if (mkdir(path, 0777) < 0 && errno != EEXIST)
    return -1;
  for (unsigned o = 0; o < s->c.nobs; o++) {
    snprintf(path, sizeof path, "%s/%s.pcap", s->c.out, s->c.obs[o].name);
    if (pcap_open(&s->pcap[o], path,
                  s->c.snaplen && !s->c.trunc_mirror ? s->c.snaplen : 65535) <
        0)
      return -1;
  }
  snprintf(path, sizeof path, "%s/truth.jsonl", s->c.out);
  if (obuf_open(&s->truth, path, 4u << 20) < 0)
    return -1;
  return 0;
}

static void write_meta(struct sim *s, int argc, char **argv) {
  char *q = json_begin(&s->truth, 16384), *q0 = q;
  const struct cfg *c = &s->c;
  q = j_lit(
      q, "{\"type\":\"meta\",\"version\":1,\"generator\":\"rtel-sim " VERSION
         "\"");
  q = j_key(q, "scenario");
  q = j_str(q, c->scenario);
  q = j_key(q, "seed");
  q = j_u64(q, c->seed);
  q = j_key(q, "epoch_ns");
  q = j_u64(q, EPOCH_NS);
  q = j_key(q, "ipv6");
  q = j_lit(q, c->ipv6 ? "true" : "false");
  q = j_key(q, "vlan");
  q = j_u64(q, c->vlan);
  q = j_key(q, "erspan");
  q = j_u64(q, (unsigned)c->erspan);
  q = j_key(q, "snaplen");
  q = j_u64(q, c->snaplen);
  q = j_key(q, "trunc");
  q = j_str(q, c->trunc_mirror ? "mirror" : "capture");
  q = j_key(q, "pmtu");
  q = j_u64(q, c->pmtu);
  q = j_key(q, "capture_start_ns");
  q = j_u64(q, c->capture_start);
  q = j_key(q, "packet_truth");
  q = j_lit(q, c->pkt_truth ? "true" : "false");
  q = j_key(q, "flow_idle_ns");
  q = j_u64(q, c->flow_idle);
  q = j_key(q, "io_timeout_ns");
  q = j_u64(q, c->io_timeout);
  q = j_key(q, "hosts");
  *q++ = '[';
  for (uint32_t i = 0; i < c->hosts && i < 256; i++) {
    if (i)
      *q++ = ',';
    q = j_ip(q, s->nodes[i].ip, c->ipv6);
  }
  q = j_lit(q, "]");
  q = j_key(q, "targets");
  *q++ = '[';
  for (uint32_t i = 0; i < c->targets && i < 256; i++) {
    if (i)
      *q++ = ',';
    q = j_ip(q, s->nodes[c->hosts + i].ip, c->ipv6);
  }
  q = j_lit(q, "]");
  q = j_key(q, "obs");
  *q++ = '[';
  for (unsigned o = 0; o < c->nobs; o++) {
    const struct obscfg *oc = &c->obs[o];
    if (o)
      *q++ = ',';
    q = j_lit(q, "{\"name\":");
    q = j_str(q, oc->name);
    q = j_lit(q, ",\"file\":\"");
    q = j_lit(q, oc->name);
    q = j_lit(q, ".pcap\",\"role\":");
    q = j_str(q, obs_kind_name(oc->kind));
    q = j_lit(q, ",\"port\":\"");
    char buf[64];
    if (oc->kind == 'h')
      snprintf(buf, sizeof buf, "leaf%u facing host%u",
               s->nodes[oc->index].leaf, oc->index);
    else if (oc->kind == 't')
      snprintf(buf, sizeof buf, "leaf%u facing target%u",
               s->nodes[c->hosts + oc->index].leaf, oc->index);
    else
      snprintf(buf, sizeof buf, "spine facing leaf%u", oc->index);
    q = j_lit(q, buf);
    q = j_lit(q, "\",\"offset_ns\":");
    q = j_i64(q, oc->offset);
    *q++ = '}';
  }
  q = j_lit(q, "]");
  char d[4][64];
  dist_format(&c->host_prep, d[0], 64);
  dist_format(&c->storage_read, d[1], 64);
  dist_format(&c->storage_write, d[2], 64);
  dist_format(&c->target_proc, d[3], 64);
  q = j_key(q, "host_prep");
  q = j_str(q, d[0]);
  q = j_key(q, "storage_read");
  q = j_str(q, d[1]);
  q = j_key(q, "storage_write");
  q = j_str(q, d[2]);
  q = j_key(q, "target_proc");
  q = j_str(q, d[3]);
  q = j_key(q, "args");
  *q++ = '"';
  for (int i = 1; i < argc && q - q0 < 15000; i++) {
    if (i > 1)
      *q++ = ' ';
    for (const char *a = argv[i]; *a && q - q0 < 15000; a++)
      if (*a != '"' && *a != '\\' && (unsigned char)*a >= 0x20)
        *q++ = *a;
  }
  *q++ = '"';
  q = j_lit(q, "}");
  json_end(&s->truth, q);
}

static void run(struct sim *s) {
  struct ev e;
  while (heap_pop(&s->heap, &e)) {
    s->now = e.t;
    if (s->now > 3600000000000ull)
      break;
    switch (EV_KIND(&e)) {
    case EV_NIC:
      rc_nic(s, e.arg);
      break;
    case EV_DELIVER:
      rc_deliver(s, e.arg);
      break;
    case EV_RTO:
      rc_rto(s, e.arg);
      break;
    case EV_ACKT:
      rc_ackt(s, e.arg);
      break;
    case EV_RNR_DONE:
      rc_rnr_done(s, e.arg);
      break;
    case EV_RR_READY:
      rc_rr_ready(s, e.arg);
      break;
    case EV_CM_STEP:
    case EV_CONN_UP:
      cm_step(s, e.arg);
      break;
    case EV_GPU:
      gpu_event(s, e.arg);
      break;
    case EV_NV_TGT:
      nvme_tgt_ready(s, e.arg);
      break;
    case EV_NV_ISSUE:
      nvme_issue(s, e.arg);
      break;
    case EV_NV_TIMEOUT:
      nvme_timeout(s, e.arg);
      break;
    default:
      if (EV_KIND(&e) >= EV_OBS0 && EV_KIND(&e) < EV_OBS0 + MAXLINKS) {
        truth_obs(s, e.arg, EV_KIND(&e) - EV_OBS0);
        pkt_release(s, e.arg);
      }
      break;
    }
  }
}

int main(int argc, char **argv) {
  static struct sim sim; /* main's state; large, so not on the stack */
  struct sim *s = &sim;
  char err[512];
  int list = 0;
  cfg_defaults(&s->c);
  const char *scen = "mixed";
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--scenario") == 0 && i + 1 < argc)
      scen = argv[i + 1];
    else if (strncmp(argv[i], "--scenario=", 11) == 0)
      scen = argv[i] + 11;
  }
  if (scenario_apply(&s->c, scen) < 0) {
    fprintf(stderr, "rtel-sim: unknown scenario '%s' (see --list-scenarios)\n",
            scen);
    return 2;
  }
  s->c.skip_scenario = 1;
  if (cfg_parse(&s->c, argc - 1, argv + 1, &list, err, sizeof err) < 0) {
    fprintf(stderr, "rtel-sim: %s\n", err);
    return 2;
  }
  if (list == 1) {
    scenario_list();
    return 0;
  }
  if (list == 2) {
    usage(stdout);
    return 0;
  }
  if (!s->c.out) {
    fprintf(stderr, "rtel-sim: --out DIR is required\n");
    return 2;
  }
  if (cfg_check(&s->c, err, sizeof err) < 0) {
    fprintf(stderr, "rtel-sim: %s\n", err);
    return 2;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  rng_seed(&s->rng, s->c.seed);
  s->crc = malloc(sizeof *s->crc);
  s->fbuf = malloc(65536 + 256);
  if (!s->crc || !s->fbuf)
    die_nomem();
  crc32_init(s->crc);
  s->pkt_free = s->msg_free = s->rr_free = s->io_free = NONE;
  if (net_build(s) < 0)
    die_nomem();
  const struct cfg *c = &s->c;
  uint64_t ngpu = c->workload == WL_NONE   ? 0
                  : c->workload == WL_RING ? (uint64_t)c->gpu_hosts * c->qps
                                           : c->qps;
  uint64_t nconn = ngpu + (uint64_t)c->nvme_hosts * (1 + c->io_queues);
  s->conns = calloc(nconn ? nconn : 1, sizeof *s->conns);
  s->qps = calloc(nconn ? 2 * nconn : 1, sizeof *s->qps);
  if (!s->conns || !s->qps)
    die_nomem();
  if (ngpu && gpu_setup(s) < 0)
    die_nomem();
  if (nvme_setup(s) < 0)
    die_nomem();
  uint32_t nflows = 0;
  for (uint32_t i = 0; i < s->nconn; i++)
    conn_init(s, i, &nflows);
  s->flows = calloc(nflows ? nflows : 1, sizeof *s->flows);
  if (!s->flows)
    die_nomem();
  s->nflows = nflows;
  if (open_outputs(s) < 0) {
    fprintf(stderr, "rtel-sim: cannot write to '%s': %s\n", c->out,
            strerror(errno));
    return 1;
  }
  write_meta(s, argc, argv);
  for (uint32_t i = 0; i < s->nconn; i++)
    truth_conn(s, i);
  /* start: GPU connections, then the NVMe admin queues */
  uint64_t t = 1000;
  for (uint32_t i = 0; i < ngpu; i++) {
    cm_start(s, i, t);
    t += 100;
  }
  for (uint32_t q = 0; q < s->nnvq; q++)
    if (s->nvqs[q].qid == 0)
      cm_start(s, s->nvqs[q].conn, 2000 + 1000ull * s->nvqs[q].host);
  run(s);
  truth_finish(s);
  int rc = 0;
  for (unsigned o = 0; o < c->nobs; o++)
    if (obuf_close(&s->pcap[o]) < 0)
      rc = 1;
  if (obuf_close(&s->truth) < 0)
    rc = 1;
  if (rc) {
    fprintf(stderr, "rtel-sim: write error in '%s'\n", c->out);
    return 1;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double secs = (double)(t1.tv_sec - t0.tv_sec) +
                (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  printf("rtel-sim: scenario %s seed %llu: %llu packets sent, %llu frames "
         "written, %llu lost, "
         "%u connections, %llu I/Os, %.3f s simulated, %.2f s wall, %.2f "
         "Mpkt/s\n",
         c->scenario, (unsigned long long)c->seed,
         (unsigned long long)s->sent_pkts, (unsigned long long)s->frames_total,
         (unsigned long long)s->lost_pkts, s->nconn,
         (unsigned long long)s->ios_done, (double)s->now * 1e-9, secs,
         secs > 0 ? (double)s->sent_pkts / secs / 1e6 : 0.0);
  free(s->crc);
  free(s->fbuf);
  return 0;
}
