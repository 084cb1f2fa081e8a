/* SPDX-License-Identifier: MIT */
/*
 * switch-agent: how a switch vendor embeds libroceTel in its agent.
 *
 *   switch-agent [OPTIONS] PORT=FILE...
 *
 * A simulated 64-port switch. Each capture FILE stands for the traffic of
 * front-panel port PORT (1..64) that the ASIC can mirror to the agent's
 * CPU. The program walks through what a real agent does:
 *
 *   step 1  create the measurement context: settings and callbacks
 *   step 2  register the switch's ports and their roles
 *   step 3  choose the schedule: all ports all the time, or P per slot
 *   step 4  run the timer loop: rtel_ctx_get_expiry(), handle_expiry()
 *   step 5  reprogram the ASIC's mirror sessions when a slot begins
 *   step 6  hand every mirrored packet to the library
 *   step 7  print the records and alarms the callbacks deliver
 *   step 8  at the end: rtel_ctx_flush() and a per-port summary
 *
 * The library does no I/O and reads no clock: time is always an argument.
 * Here it comes from the packets' timestamps (the ASIC's clock), and the
 * agent's own clock is simulated from them: the agent never really
 * sleeps, so the captures are replayed as fast as they can be read.
 *
 * Output: one line per event, "type key=value ..." (times in us since the
 * start), or JSON lines with --json: the flow, io, slot and alarm records
 * of rtel-analyze --format json (the printers of rtel-json.c; the
 * observation point of each port is named after it, "Ethernet1/N"), and
 * the agent's own mirror, trace, port_summary and agent_summary records,
 * under the same rules (rtel-analyze(1), OUTPUT; the schema
 * docs/rtel-records.schema.json).
 */
#define _DEFAULT_SOURCE 1 /* u_char & co. in <pcap/pcap.h> */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rocetel/rocetel.h>

#include "capfile.h"    /* the capture files: pcap, pcapng */
#include "pcap-input.h" /* their link types */
#include "rtel-json.h"

#define PROG "switch-agent"
#define MAX_PORTS 256
#define MAX_ALARMS 16

/* A front-panel port of the simulated switch. */
typedef struct sw_port {
  char name[16]; /* "Ethernet1/N" */
  uint32_t role; /* RTEL_ROLE_COMPUTE, _STORAGE or _FABRIC */
  /* The ASIC's mirror session of this port: on or off. A change the agent
   * asks for takes effect mirror_lag ns later (hardware takes time). */
  int mirror, mirror_was;
  rtel_tstamp mirror_at;
  /* The capture standing for the port's traffic (path NULL: none). */
  const char *path;
  capfile *cf;
  capfile_pkt pk; /* its next packet, when |have| */
  int have;
  rtel_tstamp shift; /* added to its timestamps (--align) */
  /* For the summary. */
  uint64_t slots, fed, not_mirrored, slipped, flows, ios, truncated;
  rtel_tstamp measured_since, measured_ns;
} sw_port;

typedef struct agent {
  /* options */
  uint32_t nports, per_slot; /* per_slot 0: full mode */
  rtel_tstamp slot_ns, alarm_priority, mirror_lag;
  int json, trace, align;
  size_t nalarms;
  struct {
    uint32_t metric, scope;
    double value;
  } alarm[MAX_ALARMS];
  /* state */
  sw_port port[MAX_PORTS + 1]; /* 1-based, as on the front panel */
  rtel_tstamp t0, clock;       /* start, and the agent's (simulated) clock */
  uint64_t alarms;
  /* --json: the line being written, and the names of the ports (each port
   * is also an observation point, of the same id) */
  rj_buf jb;
  const char *port_names[MAX_PORTS + 1];
  rj_names names;
} agent;

/* Names of the RTEL_ROLE_* values (end reasons, I/O states and metrics are
 * named by the library: rtel_end_str(3), so that every program says the
 * same words). */
static const char *const role_names[] = {"unknown", "compute", "storage",
                                         "fabric"};
_Static_assert(RTEL_ROLE_FABRIC == 3, "the name table follows the header");
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define NAME(names, v) ((v) < NELEM(names) ? (names)[v] : "?")

/* The port a library record names, or NULL (we only use ids 1..nports). */
static sw_port *port_of(agent *ag, uint32_t id) {
  return id >= 1 && id <= ag->nports ? &ag->port[id] : NULL;
}

/* ------------------------------------------------------------ output */

/* Every text line is built from these: "type k=v k=v". Ports are names;
 * times are us since the start; "-": not applicable. */
static void out_begin(const agent *ag, const char *type) {
  (void)ag;
  printf("%s", type);
}
static void out_end(const agent *ag) {
  (void)ag;
  putchar('\n');
}
static void out_str(const agent *ag, const char *k, const char *v) {
  (void)ag;
  printf(" %s=%s", k, v);
}
static void out_u64(const agent *ag, const char *k, uint64_t v) {
  (void)ag;
  printf(" %s=%" PRIu64, k, v);
}
static void out_num(const agent *ag, const char *k, double v) {
  (void)ag;
  printf(" %s=%.6g", k, v);
}
static void out_time(const agent *ag, const char *k, rtel_tstamp t) {
  if (t == RTEL_TSTAMP_NONE) {
    printf(" %s=-", k);
  } else {
    printf(" %s=%+.3fus", k, (double)(int64_t)(t - ag->t0) / 1e3);
  }
}
static void out_dur(const agent *ag, const char *k, int64_t d) {
  (void)ag;
  if (d == RTEL_DURATION_NONE) {
    printf(" %s=-", k);
  } else {
    printf(" %s=%" PRId64 "ns", k, d);
  }
}
static void out_port(agent *ag, const char *k, uint32_t id) {
  sw_port *p = port_of(ag, id);
  if (p == NULL) {
    out_u64(ag, k, id);
  } else {
    out_str(ag, k, p->name);
  }
}
/* A list of ports: Ethernet1/1-3,Ethernet1/7. */
static void out_ports(agent *ag, const char *k, const uint32_t *ids,
                      size_t n) {
  size_t i, j;
  printf(" %s=%s", k, n ? "" : "-");
  for (i = 0; i < n; i = j) {
    sw_port *p = port_of(ag, ids[i]);
    for (j = i + 1; j < n && ids[j] == ids[j - 1] + 1;) {
      j++; /* a run of consecutive ports */
    }
    printf("%s%s", i ? "," : "", p ? p->name : "?");
    if (j - i > 1) {
      printf("-%" PRIu32, ids[j - 1]);
    }
  }
}
static void out_addr(const agent *ag, const char *k, int ipv6,
                     const uint8_t *a) {
  char s[INET6_ADDRSTRLEN];
  /* IPv4 addresses are stored IPv4-mapped: the last 4 of 16 bytes */
  inet_ntop(ipv6 ? AF_INET6 : AF_INET, ipv6 ? a : a + 12, s, sizeof(s));
  out_str(ag, k, s);
}

/* --json: writes the line that ag->jb holds. The records the library
 * delivers are printed by rtel-json.c; the agent's own records follow the
 * same rules (counters and times in ns as strings of digits, ports as
 * numbers, nothing that is not known). */
static void json_line(agent *ag) {
  if (ag->jb.len) {
    fwrite(ag->jb.p, 1, ag->jb.len, stdout);
  }
  rj_reset(&ag->jb);
}

/* {"type":"mirror",...}: the ports whose mirror session the agent turns
 * on at |t| (from then on, plus the mirror lag): those the library
 * measures. */
static void json_mirror(agent *ag, rtel_ctx *ctx, rtel_tstamp t) {
  uint32_t id;
  int n = 0;
  rj_printf(&ag->jb,
            "{\"type\":\"mirror\",\"ts_ns\":\"%" PRIu64 "\",\"mirrored\":[",
            t);
  for (id = 1; id <= ag->nports; id++) {
    if (rtel_ctx_port_measured(ctx, id)) {
      rj_printf(&ag->jb, "%s%" PRIu32, n++ ? "," : "", id);
    }
  }
  rj_puts(&ag->jb, "]}\n");
  json_line(ag);
}

/* --------------------------------------------- step 5: ASIC mirrors */

/* Is the mirror session of |p| copying packets at time |t|? */
static int mirror_active(const sw_port *p, rtel_tstamp t) {
  return t >= p->mirror_at ? p->mirror : p->mirror_was;
}

/* "Programs the ASIC": a real agent writes its mirror session or ACL
 * table here (adds or removes the port as a mirror source). */
static void mirror_set(agent *ag, sw_port *p, int on, rtel_tstamp now) {
  p->mirror_was = mirror_active(p, now);
  p->mirror = on;
  p->mirror_at = now + ag->mirror_lag;
}

/* on_slot: a polling slot begins. The library says which ports start and
 * which stop being measured; the agent reprograms the mirror sessions so
 * that the ASIC copies only the packets the library will measure. The
 * records the boundary cuts are delivered (truncated) right after this. */
static int on_slot(rtel_ctx *ctx, const rtel_slot_event *ev, void *user_data) {
  agent *ag = user_data;
  uint32_t id, measured = 0;
  size_t i;
  for (i = 0; i < ev->nstarted; i++) {
    sw_port *p = port_of(ag, ev->started[i]);
    if (p) {
      mirror_set(ag, p, 1, ev->start);
      p->measured_since = ev->start;
    }
  }
  for (i = 0; i < ev->nstopped; i++) {
    sw_port *p = port_of(ag, ev->stopped[i]);
    if (p) {
      mirror_set(ag, p, 0, ev->start);
      p->measured_ns += ev->start - p->measured_since;
    }
  }
  for (id = 1; id <= ag->nports; id++) {
    if (rtel_ctx_port_measured(ctx, id)) {
      ag->port[id].slots++;
      measured++;
    }
  }
  if (ag->json) {
    rj_slot(&ag->jb, &ag->names, ev);
    json_line(ag);
    json_mirror(ag, ctx, ev->start);
    return 0;
  }
  out_begin(ag, "slot");
  out_u64(ag, "seq", ev->slot);
  out_time(ag, "start", ev->start);
  out_time(ag, "end", ev->end);
  out_u64(ag, "measured", measured);
  out_ports(ag, "on", ev->started, ev->nstarted);
  out_ports(ag, "off", ev->stopped, ev->nstopped);
  out_end(ag);
  return 0;
}

/* ------------------------------------ step 7: records and alarms */

/* A flow: the RDMA data from one source to one destination QP. */
static int on_flow(rtel_ctx *ctx, const rtel_flow_record *f, void *user_data) {
  agent *ag = user_data;
  sw_port *p = port_of(ag, f->port);
  int v6 = (f->flags & RTEL_FLOW_F_IPV6) != 0;
  (void)ctx;
  if (p) {
    p->flows++;
    p->truncated += f->end == RTEL_END_TRUNCATED;
  }
  if (ag->json) {
    rj_flow(&ag->jb, &ag->names, f);
    json_line(ag);
    return 0;
  }
  out_begin(ag, "flow");
  out_port(ag, "port", f->port);
  out_addr(ag, "src", v6, f->src);
  out_addr(ag, "dst", v6, f->dst);
  out_u64(ag, "dqpn", f->dqpn);
  out_time(ag, "first", f->first_ts);
  out_time(ag, "last", f->last_ts);
  out_u64(ag, "bytes", f->bytes);
  out_u64(ag, "packets", f->packets);
  out_u64(ag, "retx_packets", f->retx_packets);
  out_dur(ag, "fct", (int64_t)f->fct);
  out_u64(ag, "fet_bps", f->fet_bps);
  out_u64(ag, "cnps", f->cnps);
  out_str(ag, "end", rtel_end_str(f->end));
  out_time(ag, "coverage_start", f->coverage_start);
  out_time(ag, "coverage_end", f->coverage_end);
  out_end(ag);
  return 0;
}

/* An NVMe-oF I/O: from the command to the response, seen on one port. */
static int on_io(rtel_ctx *ctx, const rtel_io_record *io, void *user_data) {
  agent *ag = user_data;
  sw_port *p = port_of(ag, io->port);
  int v6 = (io->flags & RTEL_IO_F_IPV6) != 0;
  (void)ctx;
  if (p) {
    p->ios++;
    p->truncated += io->state == RTEL_IO_TRUNCATED;
  }
  if (ag->json) {
    rj_io(&ag->jb, &ag->names, io);
    json_line(ag);
    return 0;
  }
  out_begin(ag, "io");
  out_port(ag, "port", io->port);
  /* the library's word, as rtel-analyze prints it ("-": an orphan, whose
   * command was not seen) */
  out_str(ag, "op",
          io->state == RTEL_IO_ORPHAN
              ? "-"
              : rtel_nvme_cmd_str(io->opcode, io->fctype,
                                  (io->flags & RTEL_IO_F_ADMIN) != 0));
  out_addr(ag, "host", v6, io->host);
  out_addr(ag, "target", v6, io->target);
  out_u64(ag, "cid", io->cid);
  out_u64(ag, "bytes", io->bytes);
  out_time(ag, "cmd", io->t_cmd);
  out_dur(ag, "iol", io->iol);
  out_dur(ag, "dal", io->dal);
  out_str(ag, "state", rtel_io_state_str(io->state));
  out_time(ag, "coverage_start", io->coverage_start);
  out_time(ag, "coverage_end", io->coverage_end);
  out_end(ag);
  return 0;
}

/* An alarm is raised (or cleared) right after the record that caused it.
 * A real agent sends an SNMP trap or a gNMI notification here. */
static int on_alarm(rtel_ctx *ctx, const rtel_alarm *al, void *user_data) {
  agent *ag = user_data;
  int v6 = (al->flow && (al->flow->flags & RTEL_FLOW_F_IPV6)) ||
           (al->io && (al->io->flags & RTEL_IO_F_IPV6));
  (void)ctx;
  ag->alarms++;
  if (ag->json) {
    rj_alarm(&ag->jb, &ag->names, al);
    json_line(ag);
    return 0;
  }
  out_begin(ag, "alarm");
  out_str(ag, "state", al->state == RTEL_ALARM_RAISED ? "raised" : "cleared");
  out_str(ag, "metric", rtel_metric_str(al->metric));
  out_str(ag, "scope", al->scope == RTEL_SCOPE_PORT ? "port" : "pair");
  out_port(ag, "port", al->port);
  out_addr(ag, "src", v6, al->src);
  out_addr(ag, "dst", v6, al->dst);
  out_num(ag, "value", al->value);
  out_num(ag, "limit", al->limit);
  out_time(ag, "at", al->ts);
  out_end(ag);
  return 0;
}

/* ------------------------------------------ step 6: the packet path */

/* The timestamp of |p|'s next packet, in ns. */
static rtel_tstamp ts_of(const sw_port *p) { return p->pk.ts + p->shift; }

/* Reads the next packet of |p|'s capture. Returns 0, or 1 after a read
 * error (reported; the capture ends there, what was read is kept). */
static int read_ahead(sw_port *p) {
  int rv = capfile_next(p->cf, &p->pk);
  p->have = rv == 1;
  if (rv < 0) {
    fprintf(stderr, PROG ": %s: after frame %" PRIu64 ": %s\n", p->path,
            capfile_packets(p->cf), capfile_error(p->cf));
    return 1;
  }
  return 0;
}

/* The port whose next packet is the earliest: the captures merged by
 * timestamp, as the ASIC would deliver them. NULL when all have ended. */
static sw_port *next_packet(agent *ag) {
  sw_port *next = NULL;
  uint32_t id;
  for (id = 1; id <= ag->nports; id++) {
    sw_port *p = &ag->port[id];
    if (p->have && (next == NULL || ts_of(p) < ts_of(next))) {
      next = p;
    }
  }
  return next;
}

/* The ASIC copies a packet of |p| to the CPU only while its mirror
 * session is on: the other packets never reach the agent. A copy that
 * slips through while the library does not measure the port (here:
 * during the mirror lag) is counted and dropped by the library
 * (rtel_ctx_stats.pkts_unscheduled). */
static int feed(agent *ag, rtel_ctx *ctx, sw_port *p) {
  uint32_t id = (uint32_t)(p - ag->port);
  int rv;
  if (!mirror_active(p, ag->clock)) {
    p->not_mirrored++;
    return 0;
  }
  p->fed++;
  p->slipped += !rtel_ctx_port_measured(ctx, id);
  /* Each mirrored port is an observation point of its own: flows and
   * I/Os are keyed by (obs, addresses, QP), so a packet copied at two
   * ports (in on one, out on the other) is measured once at each, and an
   * I/O seen at a compute-side and a storage-side port is joined into a
   * segmented record. All ports share the ASIC clock, so the two points'
   * latencies are even comparable. */
  rtel_pkt_info pi = {
      .ts = ts_of(p),        /* the ASIC timestamp */
      .wire_len = p->pk.len, /* the mirror may cut the copy short */
      .obs = id,             /* this port is the observation point */
      .port = id,            /* the id given to rtel_ctx_add_port() */
      /* the link type of the packet's own interface (a pcapng may have
       * several); one the decoder does not read is passed as it is and
       * counted as malformed */
      .linktype = pcap_input_file_linktype(p->pk.linktype)
                      ? pcap_input_file_linktype(p->pk.linktype)
                      : p->pk.linktype,
  };
  if (ag->trace && ag->json) {
    rj_printf(&ag->jb,
              "{\"type\":\"trace\",\"port\":%" PRIu32 ",\"ts_ns\":\"%" PRIu64
              "\"}\n",
              id, pi.ts);
    json_line(ag);
  } else if (ag->trace) {
    out_begin(ag, "pkt");
    out_port(ag, "port", id);
    out_time(ag, "ts", pi.ts);
    out_end(ag);
  }
  if ((rv = rtel_ctx_read_pkt(ctx, &pi, p->pk.data, p->pk.caplen)) != 0) {
    fprintf(stderr, PROG ": %s: %s\n", p->path, rtel_strerror(rv));
  }
  return rv;
}

/* ------------------------------------------------------- the agent */

/* Step 8: per port with traffic, what was measured, and the totals. */
static void summary(agent *ag, rtel_ctx *ctx) {
  rtel_tstamp span = ag->clock - ag->t0;
  rtel_ctx_stats st;
  uint32_t id;
  for (id = 1; id <= ag->nports; id++) {
    sw_port *p = &ag->port[id];
    if (rtel_ctx_port_measured(ctx, id)) {
      p->measured_ns += ag->clock - p->measured_since;
    }
    if (p->path == NULL && p->flows + p->ios == 0) {
      continue;
    }
    if (ag->json) {
      double cov = span ? (double)p->measured_ns / (double)span
                        : rtel_ctx_port_measured(ctx, id);
      rj_printf(
          &ag->jb,
          "{\"type\":\"port_summary\",\"port\":%" PRIu32
          ",\"role\":\"%s\",\"slots\":\"%" PRIu64 "\",\"fed\":\"%" PRIu64
          "\",\"not_mirrored\":\"%" PRIu64 "\",\"slipped\":\"%" PRIu64
          "\",\"flows\":\"%" PRIu64 "\",\"ios\":\"%" PRIu64
          "\",\"truncated_records\":\"%" PRIu64 "\",\"coverage\":%.9g}\n",
          id, NAME(role_names, p->role), p->slots, p->fed, p->not_mirrored,
          p->slipped, p->flows, p->ios, p->truncated, cov);
      json_line(ag);
      continue;
    }
    out_begin(ag, "port_summary");
    out_port(ag, "port", id);
    out_str(ag, "role", NAME(role_names, p->role));
    out_u64(ag, "slots", p->slots);
    out_u64(ag, "fed", p->fed);
    out_u64(ag, "not_mirrored", p->not_mirrored);
    out_u64(ag, "slipped", p->slipped);
    out_u64(ag, "flows", p->flows);
    out_u64(ag, "ios", p->ios);
    out_u64(ag, "truncated", p->truncated);
    out_num(ag, "coverage",
            span ? (double)p->measured_ns / (double)span
                 : rtel_ctx_port_measured(ctx, id));
    out_end(ag);
  }
  if (rtel_ctx_get_stats(ctx, &st) == 0 && ag->json) {
    rj_printf(&ag->jb,
              "{\"type\":\"agent_summary\",\"ports\":%" PRIu32
              ",\"slots\":\"%" PRIu64 "\",\"packets\":\"%" PRIu64
              "\",\"unscheduled\":\"%" PRIu64 "\",\"flows_evicted\":\"%" PRIu64
              "\",\"alarm_events\":\"%" PRIu64 "\",\"end_ns\":\"%" PRIu64
              "\"}\n",
              ag->nports, st.slots, st.pkts, st.pkts_unscheduled,
              st.flows_evicted, ag->alarms, ag->clock);
    json_line(ag);
  } else if (rtel_ctx_get_stats(ctx, &st) == 0) {
    out_begin(ag, "summary");
    out_u64(ag, "ports", ag->nports);
    out_u64(ag, "slots", st.slots);
    out_u64(ag, "pkts", st.pkts);
    out_u64(ag, "unscheduled", st.pkts_unscheduled);
    out_u64(ag, "flows_evicted", st.flows_evicted);
    out_u64(ag, "alarm_events", ag->alarms);
    out_time(ag, "end", ag->clock);
    out_end(ag);
  }
}

static int run(agent *ag) {
  uint32_t id, on[MAX_PORTS], n = 0;
  rtel_ctx *ctx = NULL;
  rtel_settings settings;
  sw_port *next;
  size_t i;
  int rv, status = 0;

  /* Step 1: the context. Every table is allocated here, once, sized by
   * the settings: the packet path never allocates. */
  rtel_settings_default(&settings);
  settings.max_ports = ag->nports;
  settings.max_flows = 256 * ag->nports;   /* directional flows */
  settings.max_ios = 16384;                /* outstanding NVMe-oF I/Os */
  settings.flow_idle_timeout = 100000000u; /* 100 ms without data */
  settings.io_timeout = 5000000000u;       /* 5 s without a response */
  /* An agent facing untrusted traffic sets a random hash seed (e.g. from
   * getrandom(2)); a fixed one keeps this example reproducible. */
  settings.hash_seed = 0x5eed5eedu;
  rtel_callbacks cb = {
      /* all optional: a NULL callback is "not interested" */
      .on_slot = on_slot,
      .on_flow = on_flow,
      .on_io = on_io,
      .on_alarm = on_alarm,
  };
  if ((rv = rtel_ctx_new(&ctx, &settings, &cb, NULL, ag)) != 0) {
    fprintf(stderr, PROG ": rtel_ctx_new: %s\n", rtel_strerror(rv));
    return 1;
  }

  /* Step 2: the ports. The id is what the agent puts in
   * rtel_pkt_info.port; the role tells compute side from storage side.
   * Until a schedule says otherwise (full mode) every port is measured,
   * and the ASIC is programmed to mirror what the library measures. */
  for (id = 1; id <= ag->nports && rv == 0; id++) {
    sw_port *p = &ag->port[id];
    rtel_port port = {.id = id, .role = p->role, .name = p->name};
    rv = rtel_ctx_add_port(ctx, &port, ag->t0);
    /* the port is also the observation point (see feed()): its role
     * decides which side of a segmented I/O record it measures */
    if (rv == 0) {
      rv = rtel_ctx_set_obs_role(ctx, id, p->role);
    }
    p->mirror = p->mirror_was = rtel_ctx_port_measured(ctx, id);
    p->mirror_at = p->measured_since = ag->t0;
    if (p->mirror) {
      on[n++] = id;
    }
  }
  if (ag->json) {
    json_mirror(ag, ctx, ag->t0);
  } else {
    out_begin(ag, "mirror");
    out_time(ag, "at", ag->t0);
    out_ports(ag, "on", on, n);
    out_end(ag);
  }

  /* Step 3: the alarms and the schedule. In polling mode the library
   * picks per_slot ports per slot, round robin; a port alarmed within
   * alarm_priority ns may take one seat out of turn. on_slot (step 5)
   * reports the first slot from inside rtel_ctx_set_schedule(). */
  for (i = 0; i < ag->nalarms && rv == 0; i++) {
    rv = rtel_ctx_set_threshold(ctx, ag->alarm[i].metric, ag->alarm[i].scope,
                                ag->alarm[i].value);
  }
  rtel_schedule sch = {
      .mode = ag->per_slot ? RTEL_SCHED_POLL : RTEL_SCHED_FULL,
      .ports_per_slot = ag->per_slot,
      .slot_ns = ag->slot_ns,
      .alarm_priority = ag->alarm_priority,
  };
  if (rv != 0 || (rv = rtel_ctx_set_schedule(ctx, &sch, ag->t0)) != 0) {
    fprintf(stderr, PROG ": setting up: %s\n", rtel_strerror(rv));
    rtel_ctx_del(ctx);
    return 1;
  }

  /* Step 4: the main loop. A real agent sleeps until the earlier of the
   * library's next timer and the next packet from the ASIC (epoll_wait()
   * on a timerfd and the packet socket, say). Here the clock jumps to
   * whichever comes first. A timer due at the same instant as a packet
   * runs first: the slot that begins at t owns the packets of t. (An
   * agent that wakes up late passes its real time: the library then
   * begins the slot that contains it.) */
  ag->clock = ag->t0;
  while ((next = next_packet(ag)) != NULL) {
    rtel_tstamp timer = rtel_ctx_get_expiry(ctx);
    if (timer <= ts_of(next)) {
      ag->clock = timer > ag->clock ? timer : ag->clock; /* "sleep" */
      if ((rv = rtel_ctx_handle_expiry(ctx, ag->clock)) != 0) {
        fprintf(stderr, PROG ": %s\n", rtel_strerror(rv));
        break;
      }
      if (rtel_ctx_get_expiry(ctx) <= ag->clock) { /* never spin */
        fprintf(stderr, PROG ": timer stuck at %" PRIu64 "\n", ag->clock);
        status = 1;
        break;
      }
      continue;
    }
    if (ts_of(next) > ag->clock) { /* a packet arrives: step 6 */
      ag->clock = ts_of(next);
    }
    if ((rv = feed(ag, ctx, next)) != 0) {
      break;
    }
    status |= read_ahead(next);
  }

  /* Step 8: the end. rtel_ctx_flush() reports what is still open (flows
   * end "flush", outstanding I/Os "truncated"); then the summary. */
  if (!rtel_err_is_fatal(rv) && (rv = rtel_ctx_flush(ctx, ag->clock)) != 0) {
    fprintf(stderr, PROG ": rtel_ctx_flush: %s\n", rtel_strerror(rv));
  }
  summary(ag, ctx);
  rtel_ctx_del(ctx);
  return status | (rv != 0);
}

/* ------------------------------------------------------ options */

static const char usage[] =
    "Usage: " PROG " [OPTIONS] PORT=FILE...\n"
    "Replays pcap/pcapng FILEs as the mirrored traffic of switch port PORT\n"
    "(1..N) through libroceTel, as a switch agent would.\n\n"
    "  --ports N             switch size (default 64)\n"
    "  --compute LIST        compute-side ports (default 1-16)\n"
    "  --storage LIST        storage-side ports (default 49-56); others are\n"
    "                        fabric ports\n"
    "  --poll P/SLOT         measure P ports per SLOT (e.g. 8/100ms);\n"
    "                        default: every port all the time\n"
    "  --alarm-priority T    a port alarmed in the last T may jump the queue\n"
    "  --alarm [port:|pair:]METRIC>VALUE  alarm threshold: iol dal dpl fct\n"
    "                        fnr retx_ratio cnp_rate, or fet<VALUE; units: "
    "ns\n"
    "                        us ms s k M G; per address pair unless port:\n"
    "  --mirror-lag T        the ASIC applies mirror changes T late (0)\n"
    "  --align               start every capture at the same time (captures\n"
    "                        taken with different clocks)\n"
    "  --json                JSON lines instead of text\n"
    "  --trace               one line per packet handed to the library\n"
    "  -h, --help            this text\n";

static int usage_error(const char *what, const char *arg) {
  fprintf(stderr, PROG ": %s '%s' (see --help)\n", what, arg);
  return 2;
}

/* A number with an optional unit: ns us ms s (times), k M G (rates). */
static int parse_value(const char *s, double *out) {
  static const char *const units[] = {"",  "ns", "us", "ms",
                                      "s", "k",  "M",  "G"};
  static const double mul[] = {1, 1, 1e3, 1e6, 1e9, 1e3, 1e6, 1e9};
  char *end;
  size_t i;
  double x;
  errno = 0;
  x = s ? strtod(s, &end) : -1;
  for (i = 0; s && !errno && end != s && x >= 0 && i < NELEM(units); i++) {
    if (strcmp(end, units[i]) == 0) {
      *out = x * mul[i];
      return 0;
    }
  }
  return -1;
}

/* A duration of at least 1 ns. */
static int parse_time(const char *s, rtel_tstamp *out) {
  double x;
  if (parse_value(s, &x) != 0 || x < 1 || x > 1e18) {
    return -1;
  }
  *out = (rtel_tstamp)x;
  return 0;
}

/* [port:|pair:]METRIC>VALUE, or fet<VALUE (an alarm when below). */
static int parse_alarm(agent *ag, const char *s) {
  uint32_t scope = RTEL_SCOPE_PAIR, m;
  const char *op = s ? strpbrk(s, "<>") : NULL;
  if (op == NULL || ag->nalarms == MAX_ALARMS) {
    return -1;
  }
  if (strncmp(s, "port:", 5) == 0 || strncmp(s, "pair:", 5) == 0) {
    scope = s[1] == 'o' ? RTEL_SCOPE_PORT : RTEL_SCOPE_PAIR;
    s += 5;
  }
  for (m = RTEL_METRIC_IOL; m <= RTEL_METRIC_CNP_RATE; m++) {
    const char *name = rtel_metric_str(m);
    if (strlen(name) == (size_t)(op - s) &&
        strncmp(s, name, (size_t)(op - s)) == 0) {
      break;
    }
  }
  if (m > RTEL_METRIC_CNP_RATE || (*op == '<') != (m == RTEL_METRIC_FET) ||
      parse_value(op + 1, &ag->alarm[ag->nalarms].value) != 0 ||
      !(ag->alarm[ag->nalarms].value > 0)) {
    return -1;
  }
  ag->alarm[ag->nalarms].metric = m;
  ag->alarm[ag->nalarms++].scope = scope;
  return 0;
}

/* A number, 1..max, ending where |*end| points; 0 if none. */
static uint32_t parse_uint(const char *s, char **end, unsigned long max) {
  unsigned long n = 0;
  errno = 0;
  *end = (char *)s;
  if (s[0] >= '0' && s[0] <= '9') {
    n = strtoul(s, end, 10);
  }
  return errno || n > max ? 0 : (uint32_t)n;
}

/* LIST, e.g. "1-16,20": the ports of |role|, instead of the default. */
static int parse_roles(agent *ag, const char *s, uint32_t role) {
  uint32_t id, a, b;
  char *end;
  for (id = 1; s && id <= ag->nports; id++) {
    if (ag->port[id].role == role) {
      ag->port[id].role = RTEL_ROLE_FABRIC;
    }
  }
  while (s && *s) {
    a = b = parse_uint(s, &end, ag->nports);
    if (a && *end == '-') {
      b = parse_uint(end + 1, &end, ag->nports);
    }
    if (a == 0 || b < a || (*end != ',' && *end != '\0')) {
      return -1;
    }
    while (a <= b) {
      ag->port[a++].role = role;
    }
    s = *end ? end + 1 : end;
  }
  return 0;
}

int main(int argc, char **argv) {
  static agent ag; /* zeroed */
  const char *compute = NULL, *storage = NULL, *inputs[MAX_PORTS];
  char errbuf[256], *end;
  int a, i, ninputs = 0, status = 0;
  uint32_t id;

  ag.nports = 64;
  for (a = 1; a < argc; a++) {
    const char *o = argv[a], *v = a + 1 < argc ? argv[a + 1] : "";
    int bad = 0;
    if (strcmp(o, "-h") == 0 || strcmp(o, "--help") == 0) {
      fputs(usage, stdout);
      return 0;
    } else if (strcmp(o, "--json") == 0 || strcmp(o, "--trace") == 0 ||
               strcmp(o, "--align") == 0) {
      ag.json |= o[2] == 'j';
      ag.trace |= o[2] == 't';
      ag.align |= o[2] == 'a';
      continue;
    } else if (o[0] != '-') { /* PORT=FILE, read once --ports is known */
      if (ninputs == MAX_PORTS) {
        return usage_error("too many inputs", o);
      }
      inputs[ninputs++] = o;
      continue;
    } else if (strcmp(o, "--ports") == 0) {
      bad = (ag.nports = parse_uint(v, &end, MAX_PORTS)) == 0 || *end;
    } else if (strcmp(o, "--compute") == 0) {
      compute = v;
    } else if (strcmp(o, "--storage") == 0) {
      storage = v;
    } else if (strcmp(o, "--poll") == 0) {
      bad = (ag.per_slot = parse_uint(v, &end, MAX_PORTS)) == 0 ||
            *end != '/' || parse_time(end + 1, &ag.slot_ns) != 0;
    } else if (strcmp(o, "--alarm") == 0) {
      bad = parse_alarm(&ag, v) != 0;
    } else if (strcmp(o, "--alarm-priority") == 0) {
      bad = parse_time(v, &ag.alarm_priority) != 0;
    } else if (strcmp(o, "--mirror-lag") == 0) {
      bad = parse_time(v, &ag.mirror_lag) != 0;
    } else {
      return usage_error("unknown option", o);
    }
    if (bad || a + 1 == argc) {
      return usage_error("invalid or missing value for", o);
    }
    a++; /* the option's value */
  }
  ag.port_names[0] = "?"; /* no port 0 */
  for (id = 1; id <= ag.nports; id++) {
    sw_port *p = &ag.port[id];
    snprintf(p->name, sizeof(p->name), "Ethernet1/%" PRIu32, id);
    ag.port_names[id] = p->name;
    p->role = id <= 16               ? RTEL_ROLE_COMPUTE
              : id >= 49 && id <= 56 ? RTEL_ROLE_STORAGE
                                     : RTEL_ROLE_FABRIC;
  }
  if (parse_roles(&ag, compute, RTEL_ROLE_COMPUTE) != 0 ||
      parse_roles(&ag, storage, RTEL_ROLE_STORAGE) != 0) {
    return usage_error("invalid port list", compute ? compute : storage);
  }
  if (ag.alarm_priority && !ag.per_slot) {
    return usage_error("--alarm-priority needs", "--poll");
  }
  if (ninputs == 0) {
    return usage_error("no input: expected", "PORT=FILE");
  }
  for (i = 0; i < ninputs; i++) {
    id = parse_uint(inputs[i], &end, ag.nports);
    if (id == 0 || *end != '=' || end[1] == '\0') {
      return usage_error("expected PORT=FILE, PORT a port number, not",
                         inputs[i]);
    }
    if (ag.port[id].path) {
      return usage_error("a second capture for one port", inputs[i]);
    }
    ag.port[id].path = end + 1;
  }

  /* Step 6 (set-up): open the captures. One that cannot be read is
   * reported and skipped: the other ports are measured all the same. */
  ag.t0 = RTEL_TSTAMP_NONE;
  for (id = 1; id <= ag.nports; id++) {
    sw_port *p = &ag.port[id];
    if (p->path == NULL) {
      continue;
    }
    p->cf = capfile_open(p->path, errbuf, sizeof(errbuf));
    if (p->cf == NULL) {
      fprintf(stderr, PROG ": %s: %s\n", p->path, errbuf);
      status = 1;
      continue;
    }
    status |= read_ahead(p);
    if (p->have && ts_of(p) < ag.t0) {
      ag.t0 = ts_of(p); /* the agent starts with the first packet */
    }
  }
  if (ag.t0 == RTEL_TSTAMP_NONE) {
    ag.t0 = 0; /* no packet at all */
  }
  for (id = 1; ag.align && id <= ag.nports; id++) {
    if (ag.port[id].have) { /* unsigned arithmetic wraps: a shift back */
      ag.port[id].shift = ag.t0 - ts_of(&ag.port[id]);
    }
  }
  ag.names.obs = ag.port_names;
  ag.names.nobs = ag.nports + 1;
  rj_init(&ag.jb);
  status |= run(&ag);
  if (ag.jb.oom) {
    fprintf(stderr, PROG ": out of memory: JSON lines lost\n");
    status = 1;
  }
  rj_free(&ag.jb);
  for (id = 1; id <= ag.nports; id++) {
    capfile_close(ag.port[id].cf);
  }
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, PROG ": writing output: %s\n", strerror(errno));
    return 1;
  }
  return status;
}
