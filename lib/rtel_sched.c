/* SPDX-License-Identifier: MIT */
/*
 * The polling scheduler (rtel_schedule(3), rtel-metrics(7)). A leaf: it
 * keeps the ports and their coverage windows and says, at each boundary,
 * which ports start and stop; the hub calls the application and truncates
 * what the boundary cut.
 *
 * Full mode measures every port. Polling mode measures ports_per_slot (P)
 * registered ports per slot, chosen round robin in registration order; a
 * port with a recent alarm may take one seat out of turn (in every slot
 * when P >= 2, in every other slot when P = 1), the remaining seats keep
 * the round robin, which bounds every port's wait (see rtel_schedule).
 *
 * At a boundary the ports that stop are reported with the ports that start
 * (rtel__slot); the hub then delivers the flows and I/Os seen on stopped
 * ports truncated, with the port's coverage window closed at the boundary.
 */
#include "rtel_sched.h"

static uint32_t id_hash(uint32_t id) {
  uint32_t h = id * 0x9E3779B1u;
  return h ^ (h >> 16);
}

static rtel__port *port_find(const rtel__sched *s, uint32_t id) {
  uint32_t i = id_hash(id) & s->idx_mask;
  while (s->idx[i] != RTEL__NIL) {
    rtel__port *p = &s->ports[s->idx[i]];
    if (p->id == id) {
      return p;
    }
    i = (i + 1) & s->idx_mask;
  }
  return NULL;
}

int rtel__sched_init(rtel__sched *s, uint32_t max_ports,
                     const rtel__env *env) {
  uint32_t cap = max_ports ? max_ports : 256;
  uint32_t n = 1, i;

  memset(s, 0, sizeof(*s));
  s->env = *env;
  while (n < cap * 2u) {
    n <<= 1;
  }
  s->ports = rtel__zalloc(env, cap, sizeof(rtel__port));
  s->idx = rtel__alloc(env, (size_t)n * sizeof(uint32_t));
  s->started = rtel__alloc(env, (size_t)cap * sizeof(uint32_t));
  s->stopped = rtel__alloc(env, (size_t)cap * sizeof(uint32_t));
  if (!s->ports || !s->idx || !s->started || !s->stopped) {
    rtel__sched_free(s);
    return RTEL_ERR_NOMEM;
  }
  for (i = 0; i < n; i++) {
    s->idx[i] = RTEL__NIL;
  }
  s->cap = cap;
  s->idx_mask = n - 1;
  s->sch.mode = RTEL_SCHED_FULL;
  s->next = RTEL_TSTAMP_NONE;
  s->epoch = RTEL_TSTAMP_NONE;
  s->unreg_start = RTEL_TSTAMP_NONE;
  s->unreg_end = RTEL_TSTAMP_NONE;
  return 0;
}

void rtel__sched_free(rtel__sched *s) {
  if (s->env.mem == NULL) {
    return; /* never initialised */
  }
  rtel__dealloc(&s->env, s->ports);
  rtel__dealloc(&s->env, s->idx);
  rtel__dealloc(&s->env, s->started);
  rtel__dealloc(&s->env, s->stopped);
  s->ports = NULL;
  s->idx = s->started = s->stopped = NULL;
}

int rtel__sched_port_measured(const rtel__sched *s, uint32_t port) {
  const rtel__port *p = port_find(s, port);
  if (p == NULL) {
    return s->sch.mode == RTEL_SCHED_FULL;
  }
  return p->measured;
}

void rtel__sched_coverage(const rtel__sched *s, uint32_t port,
                          rtel_tstamp *start, rtel_tstamp *end) {
  const rtel__port *p = port_find(s, port);
  if (p == NULL) {
    /* unregistered: measured in full mode, since it (or the first
     * packet) began */
    *start = s->unreg_start != RTEL_TSTAMP_NONE ? s->unreg_start : s->epoch;
    *end = s->sch.mode == RTEL_SCHED_FULL ? RTEL_TSTAMP_NONE : s->unreg_end;
    return;
  }
  *start = p->cov_start;
  *end = p->measured ? RTEL_TSTAMP_NONE : p->cov_end;
}

void rtel__sched_note_alarm(rtel__sched *s, uint32_t port, rtel_tstamp ts) {
  rtel__port *p = port_find(s, port);
  if (p) {
    p->last_alarm = ts;
  }
}

int rtel__sched_add_port(rtel__sched *s, const rtel_port *port,
                         rtel_tstamp now) {
  rtel__port *p;
  uint32_t i;

  if (port->role > RTEL_ROLE_FABRIC || s->nports == s->cap ||
      port_find(s, port->id)) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  p = &s->ports[s->nports];
  memset(p, 0, sizeof(*p));
  p->id = port->id;
  p->role = port->role;
  if (port->name) {
    size_t n = 0;
    while (n < RTEL_PORT_NAME_MAX && port->name[n] != '\0') {
      n++;
    }
    memcpy(p->name, port->name, n);
  }
  p->last_alarm = RTEL_TSTAMP_NONE;
  p->cov_end = RTEL_TSTAMP_NONE;
  /* in full mode a port is measured from the moment it is added - and
   * before, unregistered, since the unregistered ports' window began (a
   * packet was seen): its window goes on. In polling mode it is measured
   * from its first slot. */
  p->measured = s->sch.mode == RTEL_SCHED_FULL;
  p->cov_start = RTEL_TSTAMP_NONE;
  if (p->measured) {
    rtel_tstamp u =
        s->unreg_start != RTEL_TSTAMP_NONE ? s->unreg_start : s->epoch;
    p->cov_start = u != RTEL_TSTAMP_NONE && u < now ? u : now;
  }
  i = id_hash(port->id) & s->idx_mask;
  while (s->idx[i] != RTEL__NIL) {
    i = (i + 1) & s->idx_mask;
  }
  s->idx[i] = s->nports++;
  return 0;
}

/* Marks the ports of the next slot in p->chosen. */
static void choose(rtel__sched *s, rtel_tstamp now) {
  uint32_t n = s->nports, seats, i;
  uint32_t per = s->sch.ports_per_slot;

  for (i = 0; i < n; i++) {
    s->ports[i].chosen = 0;
  }
  if (n == 0) {
    return;
  }
  if (s->sch.mode == RTEL_SCHED_FULL) {
    for (i = 0; i < n; i++) {
      s->ports[i].chosen = 1;
    }
    return;
  }
  seats = per < n ? per : n;
  if (s->sch.alarm_priority && (seats >= 2 || (s->slot & 1u))) {
    for (i = 0; i < n; i++) {
      rtel__port *p = &s->ports[(s->prio_rr + i) % n];
      if (p->last_alarm != RTEL_TSTAMP_NONE && now >= p->last_alarm &&
          now - p->last_alarm < s->sch.alarm_priority) {
        p->chosen = 1;
        s->prio_rr = (uint32_t)((p - s->ports) + 1) % n;
        seats--;
        break;
      }
    }
  }
  while (seats) {
    rtel__port *p = &s->ports[s->rr % n];
    s->rr = (s->rr + 1) % n;
    if (!p->chosen) {
      p->chosen = 1;
      seats--;
    }
  }
}

/* Begins a slot (or the full mode) at |t| and describes it in |out|: the
 * ports that start and stop, and whether records must be truncated. */
static void begin(rtel__sched *s, rtel_tstamp t, int unreg_stop,
                  rtel__slot *out) {
  rtel_slot_event *ev = &out->ev;
  uint32_t i;

  choose(s, t);
  memset(out, 0, sizeof(*out));
  ev->nstarted = ev->nstopped = 0;
  for (i = 0; i < s->nports; i++) {
    rtel__port *p = &s->ports[i];
    if (p->chosen && !p->measured) {
      p->measured = 1;
      p->cov_start = t;
      p->cov_end = RTEL_TSTAMP_NONE;
      s->started[ev->nstarted++] = p->id;
    } else if (!p->chosen && p->measured) {
      p->measured = 0;
      p->cov_end = t;
      s->stopped[ev->nstopped++] = p->id;
    }
  }
  ev->slot = s->slot++;
  ev->start = t;
  ev->end =
      s->sch.mode == RTEL_SCHED_POLL ? t + s->sch.slot_ns : RTEL_TSTAMP_NONE;
  ev->started = s->started;
  ev->stopped = s->stopped;
  s->next = ev->end;
  out->truncate = ev->nstopped != 0 || unreg_stop;
}

int rtel__sched_valid(const rtel_schedule *schedule) {
  return schedule->mode <= RTEL_SCHED_POLL &&
         (schedule->mode != RTEL_SCHED_POLL ||
          (schedule->ports_per_slot != 0 && schedule->slot_ns != 0));
}

void rtel__sched_set(rtel__sched *s, const rtel_schedule *schedule,
                     rtel_tstamp now, rtel__slot *out) {
  int was_full = s->sch.mode == RTEL_SCHED_FULL;
  int unreg_stop = 0;
  s->sch = *schedule;
  if (was_full && schedule->mode == RTEL_SCHED_POLL) {
    /* unregistered ports stop being measured */
    s->unreg_end = now;
    if (s->unreg_start == RTEL_TSTAMP_NONE) {
      s->unreg_start = s->epoch;
    }
    unreg_stop = 1;
  } else if (!was_full && schedule->mode == RTEL_SCHED_FULL) {
    s->unreg_start = now;
    s->unreg_end = RTEL_TSTAMP_NONE;
  }
  begin(s, now, unreg_stop, out);
}

int rtel__sched_expire(rtel__sched *s, rtel_tstamp now, rtel__slot *out) {
  rtel_tstamp t, late;
  uint64_t skip;
  uint32_t per;

  if (s->next == RTEL_TSTAMP_NONE || now < s->next) {
    return 0;
  }
  /* A caller that ran late begins the slot that contains |now|; the round
   * robin moves on as if the skipped slots had taken place. */
  skip = (now - s->next) / s->sch.slot_ns;
  t = s->next + skip * s->sch.slot_ns;
  if (skip && s->nports) {
    per =
        s->sch.ports_per_slot < s->nports ? s->sch.ports_per_slot : s->nports;
    late = skip % s->nports;
    s->rr = (uint32_t)((s->rr + late * per) % s->nports);
  }
  s->slot += skip;
  begin(s, t, 0, out);
  return 1;
}
