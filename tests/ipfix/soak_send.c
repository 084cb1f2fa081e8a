/* SPDX-License-Identifier: MIT */
/*
 * soak_send: synthetic records through the library's IPFIX encoder
 * (rtel_ipfix) to a UDP collector on 127.0.0.1, as fast as it goes (or
 * paced). Built on demand by tests/ipfix/soak.py (not part of make check):
 *
 *   cc -O2 -I include -I BUILD/include tests/ipfix/soak_send.c \
 *      BUILD/lib/.libs/librocetel.so -Wl,-rpath,BUILD/lib/.libs
 *
 * usage: soak_send PORT RECORDS [--mtu N] [--domain N] [--rate R]
 *        [--kinds flow|mix] [--step NS]
 *   --mtu N     path MTU: messages of N - 48 bytes (default 1500)
 *   --rate R    at most R records/s (default: full rate)
 *   --kinds     flow: flow records only (default); mix: flow, message and
 *               I/O records in turn
 *   --step NS   the encoder's clock advances NS ns per record from the
 *               wall clock at the start (default 0: the wall clock); with
 *               records spanning more than 60 s the templates and type
 *               records are sent again mid-stream (template_refresh)
 * Prints one line: "sent N records in M messages (B bytes) in T s; send
 * errors E" and exits 0 if every message was sent.
 *
 * The records are the same but for addresses, ports, QPs, times and
 * counters that vary with the record number, so that a collector stores
 * distinct records. The export time is the wall clock; the record times
 * advance 1 us per record from it.
 */
#define _POSIX_C_SOURCE 200809L

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rocetel/rocetel.h>

static uint64_t now_ns(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void v4(uint8_t *a, uint32_t ip) {
  memset(a, 0, 16);
  a[10] = a[11] = 0xff;
  a[12] = (uint8_t)(ip >> 24);
  a[13] = (uint8_t)(ip >> 16);
  a[14] = (uint8_t)(ip >> 8);
  a[15] = (uint8_t)ip;
}

struct sender {
  int fd;
  rtel_ipfix *enc;
  uint8_t buf[RTEL_IPFIX_MAX_MSG_LEN];
  int open;
  uint64_t msgs, bytes, errors;
};

static int flush_msg(struct sender *s) {
  rtel_ssize n = rtel_ipfix_end(s->enc);
  s->open = 0;
  if (n < 0) {
    fprintf(stderr, "soak_send: rtel_ipfix_end: %s\n", rtel_strerror((int)n));
    return -1;
  }
  if (n == 0) {
    return 0;
  }
  for (;;) {
    ssize_t w = send(s->fd, s->buf, (size_t)n, 0);
    if (w == (ssize_t)n) {
      break;
    }
    if (w < 0 && (errno == ENOBUFS || errno == EAGAIN || errno == EINTR ||
                  errno == ECONNREFUSED)) {
      s->errors++; /* retried: a full local queue, or no listener yet */
      if (s->errors > 1000000) {
        perror("soak_send: send");
        return -1;
      }
      continue;
    }
    perror("soak_send: send");
    return -1;
  }
  s->msgs++;
  s->bytes += (uint64_t)n;
  return 0;
}

/* Adds one record with |add|; sends the message when it is full. */
#define ADD(s, now, call)                                                     \
  do {                                                                        \
    int rv_;                                                                  \
    for (;;) {                                                                \
      if (!(s)->open) {                                                       \
        if ((rv_ = rtel_ipfix_handle_expiry((s)->enc, now)) != 0 ||           \
            (rv_ = rtel_ipfix_begin((s)->enc, (s)->buf, sizeof((s)->buf),     \
                                    now)) != 0) {                             \
          fprintf(stderr, "soak_send: begin: %s\n", rtel_strerror(rv_));      \
          return 1;                                                           \
        }                                                                     \
        (s)->open = 1;                                                        \
      }                                                                       \
      rv_ = (call);                                                           \
      if (rv_ == 0) {                                                         \
        break;                                                                \
      }                                                                       \
      if (rv_ != RTEL_ERR_BUFFER_FULL) {                                      \
        fprintf(stderr, "soak_send: add: %s\n", rtel_strerror(rv_));          \
        return 1;                                                             \
      }                                                                       \
      if (flush_msg(s) != 0) {                                                \
        return 1;                                                             \
      }                                                                       \
    }                                                                         \
  } while (0)

int main(int argc, char **argv) {
  struct sender *s = calloc(1, sizeof(*s));
  rtel_ipfix_settings set;
  struct sockaddr_in sa;
  unsigned long port;
  uint64_t n, i, t0, base, mtu = 1500, domain = 0, step = 0;
  double rate = 0, secs;
  int mix = 0, a, rv;
  if (s == NULL || argc < 3) {
    fprintf(stderr, "usage: soak_send PORT RECORDS [--mtu N] [--domain N] "
                    "[--rate R] [--kinds flow|mix] [--step NS]\n");
    return 2;
  }
  port = strtoul(argv[1], NULL, 10);
  n = strtoull(argv[2], NULL, 10);
  for (a = 3; a + 1 < argc; a += 2) {
    if (strcmp(argv[a], "--mtu") == 0) {
      mtu = strtoull(argv[a + 1], NULL, 10);
    } else if (strcmp(argv[a], "--domain") == 0) {
      domain = strtoull(argv[a + 1], NULL, 10);
    } else if (strcmp(argv[a], "--rate") == 0) {
      rate = strtod(argv[a + 1], NULL);
    } else if (strcmp(argv[a], "--step") == 0) {
      step = strtoull(argv[a + 1], NULL, 10);
    } else if (strcmp(argv[a], "--kinds") == 0) {
      mix = strcmp(argv[a + 1], "mix") == 0;
    } else {
      fprintf(stderr, "soak_send: unknown option %s\n", argv[a]);
      return 2;
    }
  }
  if (port == 0 || port > 65535 || mtu < 560 || mtu > 65535 + 48) {
    fprintf(stderr, "soak_send: bad port or mtu\n");
    return 2;
  }
  s->fd = socket(AF_INET, SOCK_DGRAM, 0);
  memset(&sa, 0, sizeof(sa));
  sa.sin_family = AF_INET;
  sa.sin_port = htons((uint16_t)port);
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (s->fd < 0 || connect(s->fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
    perror("soak_send: socket");
    return 1;
  }
  rtel_ipfix_settings_default(&set);
  set.max_msg_len = (uint32_t)(mtu - 48);
  set.domain_id = (uint32_t)domain;
  if ((rv = rtel_ipfix_new(&s->enc, &set, NULL)) != 0) {
    fprintf(stderr, "soak_send: rtel_ipfix_new: %s\n", rtel_strerror(rv));
    return 1;
  }
  base = now_ns(CLOCK_REALTIME);
  t0 = now_ns(CLOCK_MONOTONIC);
  for (i = 0; i < n; i++) {
    uint64_t now =
        step ? base + i * step : base + (now_ns(CLOCK_MONOTONIC) - t0);
    rtel_tstamp ts = base + i * (step ? step : 1000u);
    unsigned kind = mix ? (unsigned)(i % 3) : 0;
    if (rate > 0) {
      /* pacing: wait until record i is due */
      uint64_t due = t0 + (uint64_t)((double)i * 1e9 / rate);
      while (now_ns(CLOCK_MONOTONIC) < due) {
      }
    }
    if (kind == 0) {
      rtel_flow_record f;
      memset(&f, 0, sizeof(f));
      f.obs = (uint32_t)(i & 1);
      f.port = f.obs;
      v4(f.src, 0x0a000000u | (uint32_t)(i >> 16 & 0xffff));
      v4(f.dst, 0x0a800000u | (uint32_t)(i & 0xffff));
      f.dqpn = (uint32_t)(i & 0xffffff);
      f.peer_qpn = 0xffffffffu;
      f.sport = (uint16_t)(49152 + i % 16384);
      f.dscp = 26;
      f.end = RTEL_END_IDLE;
      f.ops = 2;
      f.first_ts = ts;
      f.last_ts = ts + 500000;
      f.fct = 500000;
      f.packets = 1 + i % 1000;
      f.bytes = f.packets * 4096;
      f.messages = 1;
      f.coverage_start = base;
      f.coverage_end = RTEL_TSTAMP_NONE;
      ADD(s, now, rtel_ipfix_add_flow(s->enc, &f));
    } else if (kind == 1) {
      rtel_msg_record m;
      memset(&m, 0, sizeof(m));
      m.obs = (uint32_t)(i & 1);
      m.port = m.obs;
      v4(m.src, 0x0a000000u | (uint32_t)(i >> 16 & 0xffff));
      v4(m.dst, 0x0a800000u | (uint32_t)(i & 0xffff));
      m.dqpn = (uint32_t)(i & 0xffffff);
      m.op = 2;
      m.first_ts = ts;
      m.last_ts = ts + 20000;
      m.packets = 4;
      m.bytes = 16384;
      m.end = RTEL_END_ACKED;
      ADD(s, now, rtel_ipfix_add_msg(s->enc, &m));
    } else {
      rtel_io_record io;
      memset(&io, 0, sizeof(io));
      io.obs = (uint32_t)(i & 1);
      io.port = io.obs;
      v4(io.host, 0x0a000000u | (uint32_t)(i >> 16 & 0xffff));
      v4(io.target, 0x0a800000u | (uint32_t)(i & 0xffff));
      io.state = RTEL_IO_COMPLETE;
      io.cid = (uint16_t)i;
      io.opcode = 2;
      io.nsid = 1;
      io.bytes = 4096;
      io.t_cmd = ts;
      io.t_rsp = ts + 30000;
      io.t_data_first = io.t_data_last = io.t_rdreq = RTEL_TSTAMP_NONE;
      io.iol = 30000;
      io.coverage_start = base;
      io.coverage_end = RTEL_TSTAMP_NONE;
      ADD(s, now, rtel_ipfix_add_io(s->enc, &io));
    }
  }
  if (s->open && flush_msg(s) != 0) {
    return 1;
  }
  secs = (double)(now_ns(CLOCK_MONOTONIC) - t0) / 1e9;
  printf("sent %" PRIu64 " records in %" PRIu64 " messages (%" PRIu64
         " bytes) in %.3f s; send errors %" PRIu64 "\n",
         n, s->msgs, s->bytes, secs, s->errors);
  rtel_ipfix_del(s->enc);
  close(s->fd);
  free(s);
  return 0;
}
