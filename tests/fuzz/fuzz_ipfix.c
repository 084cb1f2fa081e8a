/* SPDX-License-Identifier: MIT */
/*
 * Fuzz harness of the IPFIX encoder (rtel_ipfix): random records in, and
 * every message out is read back by the independent strict reader of the
 * tests (tests/ipfix/ipfix_read.c: RFC 7011 structure, lengths, padding,
 * sequence numbers) and every data record compared field by field with the
 * record it was made from (tests/ipfix/ipfix_expect.c). Any difference
 * aborts.
 *
 * Input: a 16-byte header, then operations.
 *   header: pen (4, 0 -> 1), domain (4), max_msg_len (2: 512 + v % 65024),
 *           flags (1: bit 0 RTEL_IPFIX_NO_TYPE_INFO), template_refresh
 *           (1: v ms, 0 = never), first_flow_id (4, shifted left by 32)
 *   op byte o, then its bytes:
 *     o % 8 = 0..4  a record of type o % 8 (flow, message, I/O, segment,
 *                   aggregate): its struct's bytes (short input: zeros);
 *                   a message is begun first if none is, in a buffer of
 *                   512 + (o >> 3) * 2048 bytes
 *     5            end the message (it is read back and checked)
 *     6            rtel_ipfix_reset() (a new transport session)
 *     7            advance the clock by the next byte (in ms) and run
 *                  rtel_ipfix_handle_expiry()
 *
 * Invariants checked: every message passes the reader; its length is at
 * most the buffer and max_msg_len; each data record equals its source
 * record, in order, with consecutive flowIds; type records describe the
 * library's element table, all of them before the first data template;
 * RTEL_ERR_BUFFER_FULL never for a message that holds nothing when no
 * templates are due (due ones go first, in that message); a
 * record always gets in after at most a bounded number of messages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rocetel/rocetel.h>

#include "ipfix/ipfix_expect.h"
#include "ipfix/ipfix_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_PENDING 2048

typedef union any_rec {
  rtel_flow_record flow;
  rtel_msg_record msg;
  rtel_io_record io;
  rtel_segment_record seg;
  rtel_io_aggregate agg;
} any_rec;

typedef struct fz {
  rtel_ipfix *enc;
  rtel_ipfix_settings s;
  ipr_state *rd;
  uint8_t *buf;
  size_t buflen;
  int open;
  int open_empty; /* the message begun holds nothing yet */
  rtel_tstamp now;
  rtel_tstamp begun_at; /* export time of the message begun */
  uint64_t next_flow_id;
  struct {
    unsigned type;
    any_rec r;
  } pending[MAX_PENDING];
  size_t npending;
  uint8_t seen[512]; /* elements described by type records */
  int round_new;     /* templates became due: seen[] starts again */
} fz;

static void die(const char *what, const char *why) {
  fprintf(stderr, "fuzz_ipfix: %s: %s\n", what, why);
  abort();
}

static size_t rec_size(unsigned type) {
  static const size_t sizes[] = {
      sizeof(rtel_flow_record), sizeof(rtel_msg_record),
      sizeof(rtel_io_record), sizeof(rtel_segment_record),
      sizeof(rtel_io_aggregate)};
  return sizes[type];
}

static void begin(fz *z, size_t buflen) {
  int rv, pending = rtel_ipfix_control_pending(z->enc);
  z->buflen = buflen;
  if (pending && z->round_new) {
    /* a new round of templates describes everything again */
    memset(z->seen, 0, sizeof(z->seen));
    z->round_new = 0;
  }
  rv = rtel_ipfix_begin(z->enc, z->buf, buflen, z->now);
  if (rv != 0) {
    die("rtel_ipfix_begin", rtel_strerror(rv));
  }
  z->open = 1;
  z->begun_at = z->now;
  z->open_empty = !pending;
}

/* Checks data record |r| (the |*next|-th of the message's data). */
static void check_rec(fz *z, const ipr_rec *r, size_t *next) {
  char err[256];
  uint32_t pen = z->s.pen;
  size_t i = *next;
  int rv;
  if (r->tid == IPX_TID_TYPES) {
    if (ipx_check_type_record(r, pen, z->seen, err, sizeof(err)) != 0) {
      die("type record", err);
    }
    return;
  }
  if (i >= z->npending) {
    die("data", "more records than were added");
  }
  switch (z->pending[i].type) {
  case 0:
    rv = ipx_check_flow(r, &z->pending[i].r.flow, pen, z->next_flow_id, err,
                        sizeof(err));
    break;
  case 1:
    rv = ipx_check_msg(r, &z->pending[i].r.msg, pen, z->next_flow_id, err,
                       sizeof(err));
    break;
  case 2:
    rv = ipx_check_io(r, &z->pending[i].r.io, pen, z->next_flow_id, err,
                      sizeof(err));
    break;
  case 3:
    rv = ipx_check_segment(r, &z->pending[i].r.seg, pen, z->next_flow_id, err,
                           sizeof(err));
    break;
  default:
    rv = ipx_check_aggregate(r, &z->pending[i].r.agg, pen, z->next_flow_id,
                             err, sizeof(err));
    break;
  }
  if (rv != 0) {
    die("data record", err);
  }
  (*next)++;
  z->next_flow_id++;
}

/* Checks one message read back. */
static void check_msg(fz *z, const uint8_t *msg, size_t len) {
  ipr_msg m;
  char err[256];
  size_t i, next = 0, nel = 0;
  size_t cap = z->buflen < z->s.max_msg_len ? z->buflen : z->s.max_msg_len;
  while (rtel_ipfix_element_get(nel)) {
    nel++;
  }
  if (len > cap || len < 20) {
    die("message length", "outside 20 .. min(buffer, max_msg_len)");
  }
  if (ipr_read_msg(z->rd, msg, len, &m, err, sizeof(err)) != 0) {
    die("reader", err);
  }
  if (m.hdr.domain != z->s.domain_id ||
      m.hdr.export_time != (uint32_t)(z->begun_at / 1000000000u)) {
    die("header", "domain or export time");
  }
  for (i = 0; i < m.nsets; i++) {
    size_t j;
    if (m.sets[i].id == 2 && !(z->s.flags & RTEL_IPFIX_NO_TYPE_INFO)) {
      size_t k, n = 0;
      for (k = 0; k < sizeof(z->seen) * 8; k++) {
        n += (z->seen[k / 8] >> (k % 8)) & 1u;
      }
      if (n != nel) {
        die("order", "a data template before every type record");
      }
    }
    if (m.sets[i].id < 256) {
      continue;
    }
    for (j = 0; j < m.sets[i].count; j++) {
      check_rec(z, &m.recs[m.sets[i].first + j], &next);
    }
  }
  if (next != z->npending) {
    die("data", "records added but not in the message");
  }
  z->npending = 0;
}

static void end(fz *z) {
  rtel_ssize n = rtel_ipfix_end(z->enc);
  z->open = 0;
  if (n < 0) {
    die("rtel_ipfix_end", rtel_strerror((int)n));
  }
  if (n == 0) {
    if (z->npending) {
      die("rtel_ipfix_end", "0 with records in the message");
    }
    return;
  }
  check_msg(z, z->buf, (size_t)n);
}

static int add(fz *z, unsigned type, const any_rec *r) {
  switch (type) {
  case 0:
    return rtel_ipfix_add_flow(z->enc, &r->flow);
  case 1:
    return rtel_ipfix_add_msg(z->enc, &r->msg);
  case 2:
    return rtel_ipfix_add_io(z->enc, &r->io);
  case 3:
    return rtel_ipfix_add_segment(z->enc, &r->seg);
  default:
    return rtel_ipfix_add_aggregate(z->enc, &r->agg);
  }
}

static void add_record(fz *z, unsigned type, size_t buflen, const any_rec *r) {
  int tries, rv, pending;
  for (tries = 0; tries < 64; tries++) {
    if (!z->open) {
      begin(z, buflen);
    }
    if (z->npending == MAX_PENDING) {
      end(z);
      continue;
    }
    pending = rtel_ipfix_control_pending(z->enc);
    if (pending && z->open_empty && z->round_new) {
      /* a refresh fell due in this empty message: its templates come
       * first, a new round */
      memset(z->seen, 0, sizeof(z->seen));
      z->round_new = 0;
    }
    rv = add(z, type, r);
    if (pending) {
      z->open_empty = 0; /* it holds templates now */
    }
    if (rv == 0) {
      z->pending[z->npending].type = type;
      z->pending[z->npending].r = *r;
      z->npending++;
      z->open_empty = 0;
      return;
    }
    if (rv != RTEL_ERR_BUFFER_FULL) {
      die("rtel_ipfix_add", rtel_strerror(rv));
    }
    if (z->open_empty && !pending) {
      die("rtel_ipfix_add", "full, in a message that held nothing");
    }
    end(z);
  }
  die("rtel_ipfix_add", "the record never got into a message");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static fz z; /* large: not on the stack */
  static uint8_t buf[RTEL_IPFIX_MAX_MSG_LEN];
  size_t pos = 16;
  int rv;
  if (size < 16) {
    return 0;
  }
  memset(&z, 0, sizeof(z));
  z.buf = buf;
  rtel_ipfix_settings_default(&z.s);
  memcpy(&z.s.pen, data, 4);
  if (z.s.pen == 0) {
    z.s.pen = 1;
  }
  memcpy(&z.s.domain_id, data + 4, 4);
  z.s.max_msg_len = 512u + (uint32_t)(data[8] | data[9] << 8) % 65024u;
  z.s.flags = data[10] & RTEL_IPFIX_NO_TYPE_INFO;
  z.s.template_refresh = (rtel_tstamp)data[11] * 1000000u;
  z.s.first_flow_id = (uint64_t)(data[12] | data[13] << 8 | data[14] << 16 |
                                 (uint32_t)data[15] << 24)
                      << 32;
  z.next_flow_id = z.s.first_flow_id;
  z.now = 1700000000ull * 1000000000u;
  z.round_new = 1;
  if ((rv = rtel_ipfix_new(&z.enc, &z.s, NULL)) != 0) {
    die("rtel_ipfix_new", rtel_strerror(rv));
  }
  if ((z.rd = ipr_new(0)) == NULL) {
    die("ipr_new", "out of memory");
  }
  while (pos < size) {
    uint8_t o = data[pos++];
    unsigned op = o % 8;
    if (op <= 4) {
      any_rec r;
      size_t n = rec_size(op), have = size - pos < n ? size - pos : n;
      memset(&r, 0, sizeof(r));
      memcpy(&r, data + pos, have);
      pos += have;
      add_record(&z, op, 512u + (size_t)(o >> 3) * 2048u, &r);
    } else if (op == 5) {
      if (z.open) {
        end(&z);
      }
    } else if (op == 6) {
      rtel_ipfix_reset(z.enc);
      ipr_reset(z.rd);
      z.round_new = 1;
      z.open = 0;
      z.next_flow_id += z.npending; /* those records were abandoned */
      z.npending = 0;
    } else {
      int before = rtel_ipfix_control_pending(z.enc);
      z.now += (pos < size ? data[pos++] : 1) * 1000000ull;
      if (rtel_ipfix_handle_expiry(z.enc, z.now) != 0) {
        die("rtel_ipfix_handle_expiry", "failed");
      }
      if (!before && rtel_ipfix_control_pending(z.enc)) {
        z.round_new = 1;
      }
    }
  }
  if (z.open) {
    end(&z);
  }
  ipr_free(z.rd);
  rtel_ipfix_del(z.enc);
  return 0;
}
