/* SPDX-License-Identifier: MIT */
/*
 * IPFIX export for the example programs (ipfix-export.h): the library's
 * encoder does the bytes; this file opens the socket or the file, runs
 * the encoder's message loop (begin, add until the message is full, end,
 * send) and its template timer.
 */
#define _POSIX_C_SOURCE 200809L

#include "ipfix-export.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

struct ipfix_export {
  rtel_ipfix *enc;
  int fd;     /* UDP socket, or -1 */
  FILE *file; /* or the file */
  int own_file;
  char dest[300];
  uint8_t buf[RTEL_IPFIX_MAX_MSG_LEN];
  int open;       /* a message is begun */
  int failed;     /* an error was reported */
  int keep_going; /* ipfix_export_opts.keep_going */
  uint64_t added; /* data records added (by the caller) */
  uint64_t lost;  /* records not exported after a failure */
  uint64_t inmsg; /* records in the message begun */
  uint64_t msgs;
  uint64_t bytes;
  uint64_t send_errors; /* messages lost (keep_going) */
};

static int split_hostport(const char *s, char *host, size_t hostlen,
                          const char **port) {
  const char *colon;
  size_t n;
  if (s[0] == '[') {
    const char *end = strchr(s, ']');
    if (end == NULL || end[1] != ':') {
      return -1;
    }
    n = (size_t)(end - s - 1);
    s++;
    colon = end + 1;
  } else {
    colon = strrchr(s, ':');
    if (colon == NULL) {
      return -1;
    }
    n = (size_t)(colon - s);
  }
  if (n == 0 || n >= hostlen || colon[1] == '\0') {
    return -1;
  }
  memcpy(host, s, n);
  host[n] = '\0';
  *port = colon + 1;
  return 0;
}

static int open_udp(ipfix_export *x, const char *spec, char *err,
                    size_t errlen) {
  char host[256];
  const char *port;
  struct addrinfo hints, *res, *ai;
  int rv;
  if (split_hostport(spec, host, sizeof(host), &port) != 0) {
    snprintf(err, errlen, "--ipfix '%s': expected HOST:PORT", spec);
    return -1;
  }
  memset(&hints, 0, sizeof(hints));
  hints.ai_socktype = SOCK_DGRAM;
  hints.ai_flags = AI_NUMERICSERV;
  rv = getaddrinfo(host, port, &hints, &res);
  if (rv != 0) {
    snprintf(err, errlen, "--ipfix '%s': %s", spec, gai_strerror(rv));
    return -1;
  }
  for (ai = res; ai; ai = ai->ai_next) {
    x->fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
    if (x->fd < 0) {
      continue;
    }
    if (connect(x->fd, ai->ai_addr, ai->ai_addrlen) == 0) {
      break;
    }
    close(x->fd);
    x->fd = -1;
  }
  freeaddrinfo(res);
  if (x->fd < 0) {
    snprintf(err, errlen, "--ipfix '%s': %s", spec, strerror(errno));
    return -1;
  }
  snprintf(x->dest, sizeof(x->dest), "udp %s", spec);
  return 0;
}

ipfix_export *ipfix_export_open(const ipfix_export_opts *o, char *err,
                                size_t errlen) {
  ipfix_export *x = calloc(1, sizeof(*x));
  rtel_ipfix_settings s;
  int rv;
  if (x == NULL) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  x->fd = -1;
  x->keep_going = o->keep_going;
  rtel_ipfix_settings_default(&s);
  s.pen = o->pen;
  s.domain_id = o->domain;
  if (o->udp) {
    /* the message fits one datagram: the MTU less IPv6 + UDP headers
     * (the larger of the two families) */
    s.max_msg_len = o->mtu ? o->mtu - 48 : RTEL_IPFIX_MIN_MSG_LEN;
    if (open_udp(x, o->udp, err, errlen) != 0) {
      free(x);
      return NULL;
    }
  } else {
    /* a stream: large messages, templates once */
    s.max_msg_len = RTEL_IPFIX_MAX_MSG_LEN;
    s.template_refresh = 0;
    if (strcmp(o->file, "-") == 0) {
      x->file = stdout;
    } else if ((x->file = fopen(o->file, "wb")) == NULL) {
      snprintf(err, errlen, "--ipfix-file '%s': %s", o->file, strerror(errno));
      free(x);
      return NULL;
    } else {
      x->own_file = 1;
    }
    snprintf(x->dest, sizeof(x->dest), "%s", o->file);
  }
  rv = rtel_ipfix_new(&x->enc, &s, NULL);
  if (rv != 0) {
    snprintf(err, errlen, "IPFIX encoder: %s (--pen, --mtu)",
             rtel_strerror(rv));
    if (x->fd >= 0) {
      close(x->fd);
    }
    if (x->own_file) {
      fclose(x->file);
    }
    free(x);
    return NULL;
  }
  return x;
}

static void fail(ipfix_export *x, const char *what) {
  if (!x->failed) {
    fprintf(stderr, "ipfix: %s: %s: %s\n", x->dest, what, strerror(errno));
  }
  x->failed = 1;
}

/* A message could not be sent or written: with keep_going its records
 * are lost and the export goes on (a collector that is down, a full
 * disk); without, the export stops. Returns what send_msg() returns. */
static int lost_msg(ipfix_export *x, const char *what) {
  if (!x->keep_going) {
    fail(x, what);
    return -1;
  }
  if (x->send_errors++ == 0) {
    fprintf(stderr, "ipfix: %s: %s: %s (counting the records lost)\n", x->dest,
            what, strerror(errno));
  }
  x->lost += x->inmsg;
  x->inmsg = 0;
  return 0;
}

/* Ends the message begun and sends it. */
static int send_msg(ipfix_export *x) {
  rtel_ssize n;
  x->open = 0;
  n = rtel_ipfix_end(x->enc);
  if (n <= 0) {
    x->inmsg = 0;
    return n < 0 ? -1 : 0;
  }
  if (x->fd >= 0) {
    /* a collector that is down (ECONNREFUSED from an earlier datagram)
     * loses the datagram, not the export: try once more, then count */
    ssize_t w = send(x->fd, x->buf, (size_t)n, 0);
    if (w < 0 && errno == ECONNREFUSED) {
      w = send(x->fd, x->buf, (size_t)n, 0);
    }
    if (w != (ssize_t)n) {
      return lost_msg(x, "send");
    }
  } else if (fwrite(x->buf, 1, (size_t)n, x->file) != (size_t)n) {
    return lost_msg(x, "write");
  }
  x->inmsg = 0;
  x->msgs++;
  x->bytes += (uint64_t)n;
  return 0;
}

static int begin(ipfix_export *x, rtel_tstamp now) {
  int rv;
  (void)rtel_ipfix_handle_expiry(x->enc, now);
  rv = rtel_ipfix_begin(x->enc, x->buf, sizeof(x->buf), now);
  if (rv != 0) {
    fprintf(stderr, "ipfix: %s\n", rtel_strerror(rv));
    return -1;
  }
  x->open = 1;
  return 0;
}

/* The encoder's loop for one record: add; when the message is full, send
 * it and add to the next (templates that were due may take a few). */
#define ADD(x, fn, rec, now)                                                  \
  do {                                                                        \
    int rv_;                                                                  \
    x->added++;                                                               \
    if (x->failed) {                                                          \
      x->lost++;                                                              \
      return -1;                                                              \
    }                                                                         \
    for (;;) {                                                                \
      if (!x->open && begin(x, now) != 0) {                                   \
        x->failed = 1;                                                        \
        x->lost++;                                                            \
        return -1;                                                            \
      }                                                                       \
      rv_ = fn(x->enc, rec);                                                  \
      if (rv_ == 0) {                                                         \
        x->inmsg++;                                                           \
        return 0;                                                             \
      }                                                                       \
      if (rv_ != RTEL_ERR_BUFFER_FULL || send_msg(x) != 0) {                  \
        if (rv_ != RTEL_ERR_BUFFER_FULL) {                                    \
          fprintf(stderr, "ipfix: %s\n", rtel_strerror(rv_));                 \
          x->failed = 1;                                                      \
        }                                                                     \
        x->lost++;                                                            \
        return -1;                                                            \
      }                                                                       \
    }                                                                         \
  } while (0)

int ipfix_export_flow(ipfix_export *x, const rtel_flow_record *r,
                      rtel_tstamp now) {
  ADD(x, rtel_ipfix_add_flow, r, now);
}

int ipfix_export_msg(ipfix_export *x, const rtel_msg_record *r,
                     rtel_tstamp now) {
  ADD(x, rtel_ipfix_add_msg, r, now);
}

int ipfix_export_io(ipfix_export *x, const rtel_io_record *r,
                    rtel_tstamp now) {
  ADD(x, rtel_ipfix_add_io, r, now);
}

int ipfix_export_segment(ipfix_export *x, const rtel_segment_record *r,
                         rtel_tstamp now) {
  ADD(x, rtel_ipfix_add_segment, r, now);
}

int ipfix_export_aggregate(ipfix_export *x, const rtel_io_aggregate *r,
                           rtel_tstamp now) {
  ADD(x, rtel_ipfix_add_aggregate, r, now);
}

int ipfix_export_tick(ipfix_export *x, rtel_tstamp now) {
  if (x == NULL || x->failed) {
    return x ? -1 : 0;
  }
  /* the records waiting in a message begun go now */
  if (x->open && send_msg(x) != 0) {
    return -1;
  }
  /* the templates, when their refresh is due, even without records */
  (void)rtel_ipfix_handle_expiry(x->enc, now);
  if (rtel_ipfix_control_pending(x->enc)) {
    if (begin(x, now) != 0) {
      x->failed = 1;
      return -1;
    }
    return send_msg(x);
  }
  return 0;
}

void ipfix_export_counts(const ipfix_export *x, uint64_t *records,
                         uint64_t *lost, uint64_t *msgs,
                         uint64_t *send_errors) {
  *records = x->added - x->lost;
  *lost = x->lost;
  *msgs = x->msgs;
  *send_errors = x->send_errors;
}

int ipfix_export_close(ipfix_export *x, rtel_tstamp now, FILE *log) {
  int status = 0;
  if (x == NULL) {
    return 0;
  }
  /* a run without records still tells the collector its templates */
  if (!x->open && !x->failed && x->msgs == 0 && begin(x, now) != 0) {
    status = -1;
  }
  if (x->open && send_msg(x) != 0) {
    status = -1;
  }
  if (x->own_file && fclose(x->file) != 0) {
    fail(x, "close");
    status = -1;
  } else if (x->file == stdout && fflush(stdout) != 0) {
    fail(x, "write");
    status = -1;
  }
  if (x->fd >= 0) {
    close(x->fd);
  }
  if (log) {
    fprintf(log,
            "ipfix: %" PRIu64 " records in %" PRIu64 " messages (%" PRIu64
            " bytes) to %s",
            x->added - x->lost, x->msgs, x->bytes, x->dest);
    if (x->lost) {
      fprintf(log, "; %" PRIu64 " records lost", x->lost);
    }
    if (x->send_errors) {
      fprintf(log, " (%" PRIu64 " messages not sent)", x->send_errors);
    }
    fputc('\n', log);
  }
  if (x->lost || x->failed) {
    status = -1;
  }
  rtel_ipfix_del(x->enc);
  free(x);
  return status;
}

/* rdmaDestinationQpn -> rdma_destination_qpn */
static void snake(const char *in, char *out, size_t outlen) {
  size_t n = 0;
  for (; *in && n + 2 < outlen; in++) {
    if (isupper((unsigned char)*in)) {
      if (n > 0) {
        out[n++] = '_';
      }
      out[n++] = (char)tolower((unsigned char)*in);
    } else {
      out[n++] = *in;
    }
  }
  out[n] = '\0';
}

int ipfix_export_pmacct_primitives(FILE *f, uint32_t pen, const char *type) {
  /* the standard elements pmacct has no primitive of its own for */
  static const struct {
    const char *name;
    unsigned id, len, recs;
    const char *semantics;
  } std[] = {
      {"flow_id", 148, 8, 0x1f, "u_int"},
      {"observation_point_id", 138, 8, 0x1f, "u_int"},
      {"flow_end_reason", 136, 1, 0x07, "u_int"},
      {"dscp", 195, 1, 0x01, "u_int"},
      {"flow_start_ntp", 156, 8, 0x07, "hex"},
      {"flow_end_ntp", 157, 8, 0x07, "hex"},
      {"interval_start_ms", 359, 8, 0x10, "u_int"},
      {"interval_end_ms", 360, 8, 0x10, "u_int"},
  };
  static const char *const types[] = {"flow", "message", "io", "segment",
                                      "summary"};
  const rtel_ipfix_element *e;
  uint32_t bit = 0;
  size_t i;
  for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
    if (strcmp(type, types[i]) == 0) {
      bit = 1u << i;
    }
  }
  if (bit == 0) {
    return -1;
  }
  fprintf(f,
          "! pmacct aggregate_primitives: libroceTel IPFIX %s records, "
          "enterprise %" PRIu32 "\n",
          type, pen);
  fprintf(f,
          "! (rtel-analyze --pmacct-primitives %s --pen %" PRIu32
          "; rtel-analyze(1))\n",
          type, pen);
  for (i = 0; i < sizeof(std) / sizeof(std[0]); i++) {
    if (std[i].recs & bit) {
      fprintf(f, "name=%s field_type=%u len=%u semantics=%s\n", std[i].name,
              std[i].id, std[i].len, std[i].semantics);
    }
  }
  for (i = 0; (e = rtel_ipfix_element_get(i)) != NULL; i++) {
    char name[80];
    if (!(e->record_types & bit)) {
      continue;
    }
    snake(e->name, name, sizeof(name));
    fprintf(f, "name=%s field_type=%" PRIu32 ":%u len=%u semantics=u_int\n",
            name, pen, e->id, e->length);
  }
  return 0;
}
