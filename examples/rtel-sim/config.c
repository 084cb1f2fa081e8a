/* config.c - command-line options, defaults and validation */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

void cfg_defaults(struct cfg *c) {
  memset(c, 0, sizeof *c);
  snprintf(c->scenario, sizeof c->scenario, "none");
  c->seed = 1;
  c->hosts = 4;
  c->targets = 1;
  c->per_leaf = 16;
  c->d_host = 500;
  c->d_spine = 1000;
  c->jitter = 50;
  c->gbps = 100;
  c->nobs = 1;
  snprintf(c->obs[0].name, sizeof c->obs[0].name, "h0");
  c->obs[0].kind = 'h';
  c->pkt_truth = 1;
  c->msg_truth = 1;
  c->nic_burst = 4;
  c->pmtu = 4096;
  c->ack_every = 16;
  c->rto = 1000000;
  c->rnr_ns = 20000;
  c->cnp_interval = 4000;
  c->cm_delay = 5000;
  c->cm = 1;
  c->workload = WL_NONE;
  c->qps = 1;
  c->msg_size = 65536;
  c->iterations = 1;
  c->msgs_per_qp = 4;
  c->outstanding = 1;
  c->io_queues = 1;
  c->qd = 4;
  c->ios = 100;
  c->io_sizes[0] = 4096;
  c->io_sizes[1] = 16384;
  c->io_sizes[2] = 65536;
  c->io_sizes[3] = 131072;
  c->n_io_sizes = 4;
  c->read_pct = 70;
  c->write_pct = 30;
  c->inv_pct = 50;
  c->io_timeout = 30000000000ull;
  c->host_prep = (struct dist){DIST_LOGNORMAL, 3000, 1000};
  c->storage_read = (struct dist){DIST_LOGNORMAL, 80000, 20000};
  c->storage_write = (struct dist){DIST_LOGNORMAL, 20000, 5000};
  c->target_proc = (struct dist){DIST_UNIFORM, 1000, 3000};
}

enum {
  O_SCENARIO,
  O_SEED,
  O_OUT,
  O_LIST,
  O_HELP,
  O_HOSTS,
  O_TARGETS,
  O_PERLEAF,
  O_DHOST,
  O_DSPINE,
  O_JITTER,
  O_GBPS,
  O_OBS,
  O_CAPSTART,
  O_SNAPLEN,
  O_TRUNC,
  O_DUP,
  O_ERSPAN,
  O_IPV6,
  O_VLAN,
  O_NOPKT,
  O_PKT,
  O_NOMSG,
  O_BURST,
  O_FLOWIDLE,
  O_PMTU,
  O_PSNWRAP,
  O_ACKEVERY,
  O_ACKDELAY,
  O_RTO,
  O_RNRDELAY,
  O_CNPINT,
  O_CMDELAY,
  O_LOSS,
  O_LOSSWHERE,
  O_LOSSON,
  O_ECN,
  O_FECN,
  O_RNR,
  O_NOCM,
  O_WORKLOAD,
  O_GPUHOSTS,
  O_QPS,
  O_MSGSIZE,
  O_ITER,
  O_MSGSPERQP,
  O_OUTST,
  O_RDMAOP,
  O_GPUGAP,
  O_PACKETS,
  O_DURATION,
  O_NVMEHOSTS,
  O_IOQUEUES,
  O_QD,
  O_IOS,
  O_IOSIZE,
  O_MIX,
  O_INCAPS,
  O_INVPCT,
  O_MAXRREQ,
  O_NVERR,
  O_STALL,
  O_IOTIMEOUT,
  O_HOSTPREP,
  O_STREAD,
  O_STWRITE,
  O_TGTPROC
};

struct opt {
  const char *name;
  int arg;
  int id;
};

static const struct opt opts[] = {
    {"scenario", 1, O_SCENARIO},
    {"seed", 1, O_SEED},
    {"out", 1, O_OUT},
    {"list-scenarios", 0, O_LIST},
    {"help", 0, O_HELP},
    {"hosts", 1, O_HOSTS},
    {"targets", 1, O_TARGETS},
    {"hosts-per-leaf", 1, O_PERLEAF},
    {"link-delay", 1, O_DHOST},
    {"spine-delay", 1, O_DSPINE},
    {"jitter", 1, O_JITTER},
    {"gbps", 1, O_GBPS},
    {"obs", 1, O_OBS},
    {"capture-start", 1, O_CAPSTART},
    {"snaplen", 1, O_SNAPLEN},
    {"trunc", 1, O_TRUNC},
    {"dup-rate", 1, O_DUP},
    {"erspan", 1, O_ERSPAN},
    {"ipv6", 0, O_IPV6},
    {"vlan", 1, O_VLAN},
    {"no-packet-truth", 0, O_NOPKT},
    {"packet-truth", 0, O_PKT},
    {"no-msg-truth", 0, O_NOMSG},
    {"nic-burst", 1, O_BURST},
    {"flow-idle", 1, O_FLOWIDLE},
    {"pmtu", 1, O_PMTU},
    {"psn-wrap", 0, O_PSNWRAP},
    {"ack-every", 1, O_ACKEVERY},
    {"ack-delay", 1, O_ACKDELAY},
    {"rto", 1, O_RTO},
    {"rnr-delay", 1, O_RNRDELAY},
    {"cnp-interval", 1, O_CNPINT},
    {"cm-delay", 1, O_CMDELAY},
    {"loss", 1, O_LOSS},
    {"loss-where", 1, O_LOSSWHERE},
    {"loss-on", 1, O_LOSSON},
    {"ecn", 1, O_ECN},
    {"fecn", 0, O_FECN},
    {"rnr", 1, O_RNR},
    {"no-cm", 0, O_NOCM},
    {"workload", 1, O_WORKLOAD},
    {"gpu-hosts", 1, O_GPUHOSTS},
    {"qps", 1, O_QPS},
    {"msg-size", 1, O_MSGSIZE},
    {"iterations", 1, O_ITER},
    {"msgs-per-qp", 1, O_MSGSPERQP},
    {"outstanding", 1, O_OUTST},
    {"rdma-op", 1, O_RDMAOP},
    {"gpu-gap", 1, O_GPUGAP},
    {"packets", 1, O_PACKETS},
    {"duration", 1, O_DURATION},
    {"nvme-hosts", 1, O_NVMEHOSTS},
    {"io-queues", 1, O_IOQUEUES},
    {"qd", 1, O_QD},
    {"ios", 1, O_IOS},
    {"io-size", 1, O_IOSIZE},
    {"mix", 1, O_MIX},
    {"incapsule", 1, O_INCAPS},
    {"inv-pct", 1, O_INVPCT},
    {"max-rreq", 1, O_MAXRREQ},
    {"nvme-errors", 1, O_NVERR},
    {"stall", 1, O_STALL},
    {"io-timeout", 1, O_IOTIMEOUT},
    {"host-prep", 1, O_HOSTPREP},
    {"storage-read", 1, O_STREAD},
    {"storage-write", 1, O_STWRITE},
    {"target-proc", 1, O_TGTPROC},
};

static int parse_u64(const char *s, uint64_t *v, uint64_t lo, uint64_t hi) {
  char *end;
  if (!s || !*s || *s == '-')
    return -1;
  errno = 0;
  unsigned long long x = strtoull(s, &end, 0);
  if (errno || *end || x < lo || x > hi)
    return -1;
  *v = x;
  return 0;
}

static int parse_u32(const char *s, uint32_t *v, uint32_t lo, uint32_t hi) {
  uint64_t x;
  if (parse_u64(s, &x, lo, hi) < 0)
    return -1;
  *v = (uint32_t)x;
  return 0;
}

static int parse_prob(const char *s, double *v) {
  char *end;
  if (!s || !*s)
    return -1;
  double x = strtod(s, &end);
  if (*end || !(x >= 0.0 && x <= 1.0))
    return -1;
  *v = x;
  return 0;
}

static int parse_obs(struct cfg *c, const char *s) {
  char buf[256];
  if (strlen(s) >= sizeof buf)
    return -1;
  strcpy(buf, s);
  c->nobs = 0;
  char *t = buf;
  while (*t) {
    char *comma = strchr(t, ',');
    if (comma)
      *comma = 0;
    if (c->nobs >= MAXOBS)
      return -1;
    struct obscfg *o = &c->obs[c->nobs];
    memset(o, 0, sizeof *o);
    char *at = strchr(t, '@');
    if (at) {
      *at = 0;
      if (parse_sduration(at + 1, &o->offset) < 0)
        return -1;
    }
    if ((t[0] != 'h' && t[0] != 't' && t[0] != 'l') ||
        parse_u32(t + 1, &o->index, 0, 1u << 20) < 0)
      return -1;
    o->kind = t[0];
    if (strlen(t) >= sizeof o->name)
      return -1;
    memcpy(o->name, t, strlen(t) + 1);
    for (uint32_t i = 0; i < c->nobs; i++)
      if (strcmp(c->obs[i].name, o->name) == 0)
        return -1;
    c->nobs++;
    if (!comma)
      break;
    t = comma + 1;
  }
  return c->nobs ? 0 : -1;
}

static int parse_sizes(struct cfg *c, const char *s) {
  char buf[256];
  if (strlen(s) >= sizeof buf)
    return -1;
  strcpy(buf, s);
  c->n_io_sizes = 0;
  for (char *t = buf; t && *t;) {
    char *comma = strchr(t, ',');
    if (comma)
      *comma = 0;
    uint32_t v;
    if (c->n_io_sizes >= 8 || parse_u32(t, &v, 512, 1u << 23) < 0 || v % 512)
      return -1;
    c->io_sizes[c->n_io_sizes++] = v;
    t = comma ? comma + 1 : NULL;
  }
  return c->n_io_sizes ? 0 : -1;
}

static int parse_mix(struct cfg *c, const char *s) {
  unsigned r, w, f;
  char extra;
  if (sscanf(s, "%u,%u,%u%c", &r, &w, &f, &extra) != 3 || r + w + f != 100)
    return -1;
  c->read_pct = r;
  c->write_pct = w;
  c->flush_pct = f;
  return 0;
}

static int set_opt(struct cfg *c, int id, const char *v) {
  uint64_t u;
  switch (id) {
  case O_SCENARIO:
    return c->skip_scenario ? 0 : scenario_apply(c, v);
  case O_SEED:
    return parse_u64(v, &c->seed, 0, UINT64_MAX);
  case O_OUT:
    c->out = v;
    return 0;
  case O_HOSTS:
    return parse_u32(v, &c->hosts, 1, 1u << 16);
  case O_TARGETS:
    return parse_u32(v, &c->targets, 1, 1u << 12);
  case O_PERLEAF:
    return parse_u32(v, &c->per_leaf, 1, 1u << 16);
  case O_DHOST:
    return parse_duration(v, &c->d_host);
  case O_DSPINE:
    return parse_duration(v, &c->d_spine);
  case O_JITTER:
    return parse_duration(v, &c->jitter);
  case O_GBPS: {
    char *end;
    double g = strtod(v, &end);
    if (*end || !(g >= 0.1 && g <= 10000))
      return -1;
    c->gbps = g;
    return 0;
  }
  case O_OBS:
    return parse_obs(c, v);
  case O_CAPSTART:
    return parse_duration(v, &c->capture_start);
  case O_SNAPLEN:
    return parse_u32(v, &c->snaplen, 0, 65535);
  case O_TRUNC:
    if (strcmp(v, "mirror") == 0)
      c->trunc_mirror = 1;
    else if (strcmp(v, "capture") == 0)
      c->trunc_mirror = 0;
    else
      return -1;
    return 0;
  case O_DUP:
    return parse_prob(v, &c->dup_rate);
  case O_ERSPAN:
    if (parse_u64(v, &u, 0, 3) < 0 || u == 1)
      return -1;
    c->erspan = (int)u;
    return 0;
  case O_IPV6:
    c->ipv6 = 1;
    return 0;
  case O_VLAN:
    if (parse_u64(v, &u, 1, 4094) < 0)
      return -1;
    c->vlan = (uint16_t)u;
    return 0;
  case O_NOPKT:
    c->pkt_truth = 0;
    return 0;
  case O_PKT:
    c->pkt_truth = 1;
    return 0;
  case O_NOMSG:
    c->msg_truth = 0;
    return 0;
  case O_BURST:
    return parse_u32(v, &c->nic_burst, 1, 1024);
  case O_FLOWIDLE:
    return parse_duration(v, &c->flow_idle);
  case O_PMTU:
    if (parse_u32(v, &c->pmtu, 256, 4096) < 0 || (c->pmtu & (c->pmtu - 1)))
      return -1;
    return 0;
  case O_PSNWRAP:
    c->psn_wrap = 1;
    return 0;
  case O_ACKEVERY:
    return parse_u32(v, &c->ack_every, 1, 1u << 20);
  case O_ACKDELAY:
    return parse_duration(v, &c->ack_delay);
  case O_RTO:
    if (parse_duration(v, &c->rto) < 0 || c->rto < 1000)
      return -1;
    return 0;
  case O_RNRDELAY:
    if (parse_duration(v, &c->rnr_ns) < 0 || c->rnr_ns < 1 ||
        c->rnr_ns > 491520000ull)
      return -1;
    return 0;
  case O_CNPINT:
    return parse_duration(v, &c->cnp_interval);
  case O_CMDELAY:
    return parse_duration(v, &c->cm_delay);
  case O_LOSS:
    return parse_prob(v, &c->loss);
  case O_LOSSWHERE:
    if (strcmp(v, "any") == 0)
      c->loss_where = LOSS_ANY;
    else if (strcmp(v, "before") == 0)
      c->loss_where = LOSS_BEFORE;
    else if (strcmp(v, "after") == 0)
      c->loss_where = LOSS_AFTER;
    else if (strcmp(v, "between") == 0)
      c->loss_where = LOSS_BETWEEN;
    else
      return -1;
    return 0;
  case O_LOSSON: {
    static const char *names[] = {"all", "data", "last",
                                  "rsp", "cmd",  "nvdata"};
    for (int i = 0; i < 6; i++)
      if (strcmp(v, names[i]) == 0) {
        c->loss_on = i;
        return 0;
      }
    return -1;
  }
  case O_ECN:
    return parse_prob(v, &c->ecn);
  case O_FECN:
    c->fecn = 1;
    return 0;
  case O_RNR:
    return parse_prob(v, &c->rnr_rate);
  case O_NOCM:
    c->cm = 0;
    return 0;
  case O_WORKLOAD:
    if (strcmp(v, "none") == 0)
      c->workload = WL_NONE;
    else if (strcmp(v, "ring") == 0)
      c->workload = WL_RING;
    else if (strcmp(v, "pairs") == 0)
      c->workload = WL_PAIRS;
    else
      return -1;
    return 0;
  case O_GPUHOSTS:
    return parse_u32(v, &c->gpu_hosts, 0, 1u << 16);
  case O_QPS:
    return parse_u32(v, &c->qps, 1, 1u << 22);
  case O_MSGSIZE:
    return parse_u32(v, &c->msg_size, 0, 1u << 30);
  case O_ITER:
    return parse_u32(v, &c->iterations, 1, 1u << 20);
  case O_MSGSPERQP:
    return parse_u32(v, &c->msgs_per_qp, 1, 1u << 30);
  case O_OUTST:
    return parse_u32(v, &c->outstanding, 1, 1024);
  case O_RDMAOP: {
    static const char *names[] = {"write",    "write-imm", "read", "send",
                                  "send-imm", "send-mix",  "mix"};
    for (int i = 0; i < 7; i++)
      if (strcmp(v, names[i]) == 0) {
        c->rdma_op = i;
        return 0;
      }
    return -1;
  }
  case O_GPUGAP:
    return parse_duration(v, &c->gpu_gap);
  case O_PACKETS:
    return parse_u64(v, &c->max_packets, 0, UINT64_MAX);
  case O_DURATION:
    return parse_duration(v, &c->duration);
  case O_NVMEHOSTS:
    return parse_u32(v, &c->nvme_hosts, 0, 1u << 16);
  case O_IOQUEUES:
    return parse_u32(v, &c->io_queues, 1, 1024);
  case O_QD:
    return parse_u32(v, &c->qd, 1, 128);
  case O_IOS:
    return parse_u32(v, &c->ios, 0, 0xfffffff0u);
  case O_IOSIZE:
    return parse_sizes(c, v);
  case O_MIX:
    return parse_mix(c, v);
  case O_INCAPS:
    return parse_u32(v, &c->incapsule, 0, 1u << 20);
  case O_INVPCT:
    return parse_u32(v, &c->inv_pct, 0, 100);
  case O_MAXRREQ:
    if (parse_u32(v, &c->max_rreq, 0, 1u << 30) < 0 ||
        (c->max_rreq && c->max_rreq < 4096))
      return -1;
    return 0;
  case O_NVERR:
    return parse_prob(v, &c->err_rate);
  case O_STALL:
    return parse_prob(v, &c->stall_rate);
  case O_IOTIMEOUT:
    if (parse_duration(v, &c->io_timeout) < 0 || c->io_timeout == 0)
      return -1;
    return 0;
  case O_HOSTPREP:
    return dist_parse(&c->host_prep, v);
  case O_STREAD:
    return dist_parse(&c->storage_read, v);
  case O_STWRITE:
    return dist_parse(&c->storage_write, v);
  case O_TGTPROC:
    return dist_parse(&c->target_proc, v);
  }
  return -1;
}

int cfg_parse(struct cfg *c, int argc, char **argv, int *list_only, char *err,
              size_t errlen) {
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (strncmp(a, "--", 2) != 0) {
      snprintf(err, errlen, "unexpected argument '%s'", a);
      return -1;
    }
    a += 2;
    const char *eq = strchr(a, '=');
    size_t nlen = eq ? (size_t)(eq - a) : strlen(a);
    const struct opt *o = NULL;
    for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++)
      if (strlen(opts[k].name) == nlen && strncmp(opts[k].name, a, nlen) == 0)
        o = &opts[k];
    if (!o) {
      snprintf(err, errlen, "unknown option '--%.*s'", (int)nlen, a);
      return -1;
    }
    const char *v = NULL;
    if (o->arg) {
      if (eq)
        v = eq + 1;
      else if (i + 1 < argc)
        v = argv[++i];
      else {
        snprintf(err, errlen, "option '--%s' needs a value", o->name);
        return -1;
      }
    } else if (eq) {
      snprintf(err, errlen, "option '--%s' takes no value", o->name);
      return -1;
    }
    if (o->id == O_LIST) {
      *list_only = 1;
      continue;
    }
    if (o->id == O_HELP) {
      *list_only = 2;
      continue;
    }
    if (set_opt(c, o->id, v) < 0) {
      if (o->id == O_SCENARIO)
        snprintf(err, errlen, "unknown scenario '%s' (see --list-scenarios)",
                 v);
      else
        snprintf(err, errlen, "invalid value '%s' for option '--%s'", v,
                 o->name);
      return -1;
    }
  }
  return 0;
}

/* cross-option checks after everything is parsed */
int cfg_check(struct cfg *c, char *err, size_t errlen) {
  if (c->workload != WL_NONE && c->gpu_hosts < 2) {
    snprintf(err, errlen, "--workload %s needs --gpu-hosts of at least 2",
             c->workload == WL_RING ? "ring" : "pairs");
    return -1;
  }
  if (c->gpu_hosts > c->hosts || c->nvme_hosts > c->hosts) {
    snprintf(err, errlen,
             "--gpu-hosts and --nvme-hosts must not exceed --hosts (%u)",
             c->hosts);
    return -1;
  }
  for (uint32_t i = 0; i < c->nobs; i++) {
    const struct obscfg *o = &c->obs[i];
    uint32_t lim = o->kind == 'h' ? c->hosts : o->kind == 't' ? c->targets : 0;
    if (o->kind == 'l')
      lim = (c->hosts + c->per_leaf - 1) / c->per_leaf +
            (c->targets + c->per_leaf - 1) / c->per_leaf;
    if (o->index >= lim) {
      snprintf(err, errlen,
               "observation point '%s' does not exist in this topology",
               o->name);
      return -1;
    }
    if ((int64_t)EPOCH_NS + o->offset < 0) {
      snprintf(err, errlen, "clock offset of '%s' is too negative", o->name);
      return -1;
    }
  }
  uint32_t olen = c->erspan == 2 ? 50 : c->erspan == 3 ? 54 : 0;
  if (c->snaplen && c->snaplen < 64 + (c->trunc_mirror ? 0 : olen)) {
    snprintf(err, errlen, "--snaplen must be 0 or at least %u",
             64 + (c->trunc_mirror ? 0 : olen));
    return -1;
  }
  if ((uint64_t)c->qps * (c->workload == WL_RING ? c->gpu_hosts : 1) +
          (uint64_t)c->nvme_hosts * (1 + c->io_queues) >
      20000000ull) {
    snprintf(err, errlen, "too many connections");
    return -1;
  }
  uint64_t sz = 0;
  for (uint32_t i = 0; i < c->n_io_sizes; i++)
    if (c->io_sizes[i] > sz)
      sz = c->io_sizes[i];
  if (sz > 0xffffffu) {
    snprintf(err, errlen,
             "--io-size values must fit the 3-byte keyed SGL length");
    return -1;
  }
  return 0;
}
