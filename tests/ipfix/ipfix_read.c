/* SPDX-License-Identifier: MIT */
/*
 * ipfix_read: the strict IPFIX reader of ipfix_read.h, from RFC 7011
 * (message format), RFC 7012 (data types) and RFC 5610 (type records).
 *
 * Every read of the input is preceded by a check that the bytes are inside
 * the current bound (the message, then the Set): positions are size_t
 * offsets, compared as "bytes left >= bytes needed" so that nothing
 * overflows. The state is changed only when a whole message is accepted:
 * the templates a message defines go into a work copy of the template
 * table (made when its first template record is read), which becomes the
 * committed table only on success; the domain's sequence count is updated
 * last.
 */
#include "ipfix_read.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HDR_LEN 16u
#define SET_HDR_LEN 4u
#define VARLEN 65535u
#define MAX_MSG 65535u
/* the largest record a Data Set can hold */
#define MAX_RECORD (MAX_MSG - HDR_LEN - SET_HDR_LEN)
/* the NTP era 0 starts 2208988800 s (70 years, 17 of them leap years:
 * 25567 days of 86400 s) before the Unix epoch */
#define NTP_UNIX_OFFSET 2208988800
/* worst cases of one message: a Set takes >= 4 bytes, a template record
 * >= 8, a data record and each of its fields >= 1 (no Field Length 0) */
#define MAX_SETS ((MAX_MSG - HDR_LEN) / SET_HDR_LEN)
#define MAX_TDEFS ((MAX_MSG - HDR_LEN) / 8u)
#define MAX_RECS (MAX_MSG - HDR_LEN)
#define MAX_MSG_FIELDS (MAX_MSG - HDR_LEN)

#if defined(__GNUC__) || defined(__clang__)
#  define IPR_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#  define IPR_PRINTF(f, a)
#endif

typedef struct {
  int used;
  uint32_t domain;
  uint32_t next_seq;
  uint64_t nrecords;
} ipr_domain;

struct ipr_state {
  unsigned flags;
  ipr_error last;
  unsigned committed;      /* tables[committed] holds the templates */
  ipr_template *tables[2]; /* IPR_MAX_TEMPLATES each; nfields 0: free */
  ipr_domain domains[IPR_MAX_DOMAINS];
  ipr_set *sets; /* the arrays of the last ipr_msg */
  ipr_tdef *tdefs;
  ipr_rec *recs;
  ipr_field *fields;
};

/* One ipr_read_msg() call. */
typedef struct {
  ipr_state *st;
  const uint8_t *b;
  size_t len;
  uint32_t domain;
  ipr_template *tab; /* the templates as this message sees them */
  int copied;        /* tab is the work copy */
  size_t nsets, ntdefs, nrecs, nfields;
  char *err;
  size_t errlen;
} ipr_ctx;

static uint16_t be16(const uint8_t *p) {
  return (uint16_t)((unsigned)p[0] << 8 | (unsigned)p[1]);
}

static uint32_t be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
         (uint32_t)p[3];
}

IPR_PRINTF(5, 6)
static int fail(ipr_ctx *c, ipr_error e, size_t off, int with_off,
                const char *fmt, ...) {
  va_list ap;
  int n = 0;
  c->st->last = e;
  if (c->err == NULL || c->errlen == 0)
    return -1;
  if (with_off) {
    n = snprintf(c->err, c->errlen, "offset %zu: ", off);
    if (n < 0)
      n = 0;
  }
  if ((size_t)n < c->errlen) {
    va_start(ap, fmt);
    vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* ------------------------------------------------------------ state */

ipr_state *ipr_new(unsigned flags) {
  ipr_state *st = calloc(1, sizeof(*st));
  if (st == NULL)
    return NULL;
  st->flags = flags;
  st->tables[0] = calloc(IPR_MAX_TEMPLATES, sizeof(ipr_template));
  st->tables[1] = calloc(IPR_MAX_TEMPLATES, sizeof(ipr_template));
  st->sets = calloc(MAX_SETS, sizeof(ipr_set));
  st->tdefs = calloc(MAX_TDEFS, sizeof(ipr_tdef));
  st->recs = calloc(MAX_RECS, sizeof(ipr_rec));
  st->fields = calloc(MAX_MSG_FIELDS, sizeof(ipr_field));
  if (st->tables[0] == NULL || st->tables[1] == NULL || st->sets == NULL ||
      st->tdefs == NULL || st->recs == NULL || st->fields == NULL) {
    ipr_free(st);
    return NULL;
  }
  return st;
}

void ipr_free(ipr_state *st) {
  if (st == NULL)
    return;
  free(st->tables[0]);
  free(st->tables[1]);
  free(st->sets);
  free(st->tdefs);
  free(st->recs);
  free(st->fields);
  free(st);
}

void ipr_reset(ipr_state *st) {
  if (st == NULL)
    return;
  memset(st->tables[0], 0, IPR_MAX_TEMPLATES * sizeof(ipr_template));
  memset(st->tables[1], 0, IPR_MAX_TEMPLATES * sizeof(ipr_template));
  memset(st->domains, 0, sizeof(st->domains));
  st->committed = 0;
  st->last = IPR_OK;
}

ipr_error ipr_last_error(const ipr_state *st) {
  return st == NULL ? IPR_E_ARG : st->last;
}

const char *ipr_error_name(ipr_error e) {
  switch (e) {
  case IPR_OK:
    return "IPR_OK";
  case IPR_E_ARG:
    return "IPR_E_ARG";
  case IPR_E_SHORT:
    return "IPR_E_SHORT";
  case IPR_E_VERSION:
    return "IPR_E_VERSION";
  case IPR_E_LENGTH:
    return "IPR_E_LENGTH";
  case IPR_E_SET_HEADER:
    return "IPR_E_SET_HEADER";
  case IPR_E_SET_LENGTH:
    return "IPR_E_SET_LENGTH";
  case IPR_E_SET_OVERRUN:
    return "IPR_E_SET_OVERRUN";
  case IPR_E_SET_ID:
    return "IPR_E_SET_ID";
  case IPR_E_EMPTY_SET:
    return "IPR_E_EMPTY_SET";
  case IPR_E_TEMPLATE_ID:
    return "IPR_E_TEMPLATE_ID";
  case IPR_E_FIELD_COUNT:
    return "IPR_E_FIELD_COUNT";
  case IPR_E_SCOPE_COUNT:
    return "IPR_E_SCOPE_COUNT";
  case IPR_E_TEMPLATE_OVERRUN:
    return "IPR_E_TEMPLATE_OVERRUN";
  case IPR_E_PEN_TRUNCATED:
    return "IPR_E_PEN_TRUNCATED";
  case IPR_E_PEN_ZERO:
    return "IPR_E_PEN_ZERO";
  case IPR_E_IE_ID:
    return "IPR_E_IE_ID";
  case IPR_E_FIELD_LENGTH:
    return "IPR_E_FIELD_LENGTH";
  case IPR_E_RECORD_SIZE:
    return "IPR_E_RECORD_SIZE";
  case IPR_E_UNKNOWN_TEMPLATE:
    return "IPR_E_UNKNOWN_TEMPLATE";
  case IPR_E_RECORD_OVERRUN:
    return "IPR_E_RECORD_OVERRUN";
  case IPR_E_PADDING:
    return "IPR_E_PADDING";
  case IPR_E_SEQUENCE:
    return "IPR_E_SEQUENCE";
  case IPR_E_LIMIT:
    return "IPR_E_LIMIT";
  }
  return "IPR_E_?";
}

static ipr_template *tab_find(ipr_template *tab, uint32_t domain,
                              uint16_t tid) {
  size_t i;
  for (i = 0; i < IPR_MAX_TEMPLATES; i++)
    if (tab[i].nfields != 0 && tab[i].domain == domain && tab[i].tid == tid)
      return &tab[i];
  return NULL;
}

const ipr_template *ipr_template_get(const ipr_state *st, uint32_t domain,
                                     uint16_t tid) {
  if (st == NULL)
    return NULL;
  return tab_find(st->tables[st->committed], domain, tid);
}

static ipr_domain *domain_find(ipr_state *st, uint32_t domain) {
  size_t i;
  for (i = 0; i < IPR_MAX_DOMAINS; i++)
    if (st->domains[i].used && st->domains[i].domain == domain)
      return &st->domains[i];
  return NULL;
}

int ipr_domain_seq(const ipr_state *st, uint32_t domain, uint32_t *next_seq,
                   uint64_t *nrecords) {
  size_t i;
  if (st == NULL)
    return -1;
  for (i = 0; i < IPR_MAX_DOMAINS; i++)
    if (st->domains[i].used && st->domains[i].domain == domain) {
      if (next_seq != NULL)
        *next_seq = st->domains[i].next_seq;
      if (nrecords != NULL)
        *nrecords = st->domains[i].nrecords;
      return 0;
    }
  return -1;
}

int ipr_peek_hdr(const uint8_t *buf, size_t len, ipr_hdr *hdr) {
  if (buf == NULL || hdr == NULL || len < HDR_LEN)
    return -1;
  hdr->version = be16(buf);
  hdr->length = be16(buf + 2);
  hdr->export_time = be32(buf + 4);
  hdr->seq = be32(buf + 8);
  hdr->domain = be32(buf + 12);
  return 0;
}

uint32_t ipr_msg_export_time(const ipr_msg *m) { return m->hdr.export_time; }
uint32_t ipr_msg_seq(const ipr_msg *m) { return m->hdr.seq; }
uint32_t ipr_msg_domain(const ipr_msg *m) { return m->hdr.domain; }

/* ------------------------------------------------------------ types */

int ipr_ie_type(uint16_t id) {
  /* clang-format off */
  static const struct { uint16_t id; uint8_t t; } known[] = {
    {1, IPR_T_UNSIGNED64},   /* octetDeltaCount */
    {2, IPR_T_UNSIGNED64},   /* packetDeltaCount */
    {3, IPR_T_UNSIGNED64},   /* deltaFlowCount */
    {4, IPR_T_UNSIGNED8},    /* protocolIdentifier */
    {5, IPR_T_UNSIGNED8},    /* ipClassOfService */
    {6, IPR_T_UNSIGNED16},   /* tcpControlBits (RFC 7125) */
    {7, IPR_T_UNSIGNED16},   /* sourceTransportPort */
    {8, IPR_T_IPV4ADDRESS},  /* sourceIPv4Address */
    {9, IPR_T_UNSIGNED8},    /* sourceIPv4PrefixLength */
    {10, IPR_T_UNSIGNED32},  /* ingressInterface */
    {11, IPR_T_UNSIGNED16},  /* destinationTransportPort */
    {12, IPR_T_IPV4ADDRESS}, /* destinationIPv4Address */
    {13, IPR_T_UNSIGNED8},   /* destinationIPv4PrefixLength */
    {14, IPR_T_UNSIGNED32},  /* egressInterface */
    {15, IPR_T_IPV4ADDRESS}, /* ipNextHopIPv4Address */
    {27, IPR_T_IPV6ADDRESS}, /* sourceIPv6Address */
    {28, IPR_T_IPV6ADDRESS}, /* destinationIPv6Address */
    {31, IPR_T_UNSIGNED32},  /* flowLabelIPv6 */
    {56, IPR_T_MACADDRESS},  /* sourceMacAddress */
    {58, IPR_T_UNSIGNED16},  /* vlanId */
    {80, IPR_T_MACADDRESS},  /* destinationMacAddress */
    {82, IPR_T_STRING},      /* interfaceName */
    {83, IPR_T_STRING},      /* interfaceDescription */
    {85, IPR_T_UNSIGNED64},  /* octetTotalCount */
    {86, IPR_T_UNSIGNED64},  /* packetTotalCount */
    {130, IPR_T_IPV4ADDRESS}, /* exporterIPv4Address */
    {131, IPR_T_IPV6ADDRESS}, /* exporterIPv6Address */
    {136, IPR_T_UNSIGNED8},  /* flowEndReason */
    {148, IPR_T_UNSIGNED64}, /* flowId */
    {149, IPR_T_UNSIGNED32}, /* observationDomainId */
    {150, IPR_T_DATETIMESECONDS},      /* flowStartSeconds */
    {151, IPR_T_DATETIMESECONDS},      /* flowEndSeconds */
    {152, IPR_T_DATETIMEMILLISECONDS}, /* flowStartMilliseconds */
    {153, IPR_T_DATETIMEMILLISECONDS}, /* flowEndMilliseconds */
    {154, IPR_T_DATETIMEMICROSECONDS}, /* flowStartMicroseconds */
    {155, IPR_T_DATETIMEMICROSECONDS}, /* flowEndMicroseconds */
    {156, IPR_T_DATETIMENANOSECONDS},  /* flowStartNanoseconds */
    {157, IPR_T_DATETIMENANOSECONDS},  /* flowEndNanoseconds */
    {160, IPR_T_DATETIMEMILLISECONDS}, /* systemInitTimeMilliseconds */
    {161, IPR_T_UNSIGNED32}, /* flowDurationMilliseconds */
    {162, IPR_T_UNSIGNED32}, /* flowDurationMicroseconds */
    {210, IPR_T_OCTETARRAY}, /* paddingOctets */
    {303, IPR_T_UNSIGNED16}, /* informationElementId */
    {339, IPR_T_UNSIGNED8},  /* informationElementDataType */
    {340, IPR_T_STRING},     /* informationElementDescription */
    {341, IPR_T_STRING},     /* informationElementName */
    {342, IPR_T_UNSIGNED64}, /* informationElementRangeBegin */
    {343, IPR_T_UNSIGNED64}, /* informationElementRangeEnd */
    {344, IPR_T_UNSIGNED8},  /* informationElementSemantics */
    {345, IPR_T_UNSIGNED16}, /* informationElementUnits */
    {346, IPR_T_UNSIGNED32}, /* privateEnterpriseNumber */
  };
  /* clang-format on */
  size_t i;
  for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
    if (known[i].id == id)
      return known[i].t;
  return -1;
}

int ipr_type_len_ok(int t, uint16_t tlen) {
  if (tlen == 0)
    return 0;
  switch (t) {
  case IPR_T_OCTETARRAY:
  case IPR_T_STRING:
  case IPR_T_BASICLIST:
  case IPR_T_SUBTEMPLATELIST:
  case IPR_T_SUBTEMPLATEMULTILIST:
    return 1;
  case IPR_T_UNSIGNED8:
  case IPR_T_SIGNED8:
  case IPR_T_BOOLEAN:
    return tlen == 1;
  case IPR_T_UNSIGNED16:
  case IPR_T_SIGNED16:
    return tlen <= 2;
  case IPR_T_UNSIGNED32:
  case IPR_T_SIGNED32:
    return tlen <= 4;
  case IPR_T_UNSIGNED64:
  case IPR_T_SIGNED64:
    return tlen <= 8;
  case IPR_T_FLOAT32:
  case IPR_T_DATETIMESECONDS:
  case IPR_T_IPV4ADDRESS:
    return tlen == 4;
  case IPR_T_FLOAT64:
    return tlen == 4 || tlen == 8;
  case IPR_T_MACADDRESS:
    return tlen == 6;
  case IPR_T_DATETIMEMILLISECONDS:
  case IPR_T_DATETIMEMICROSECONDS:
  case IPR_T_DATETIMENANOSECONDS:
    return tlen == 8;
  case IPR_T_IPV6ADDRESS:
    return tlen == 16;
  default:
    return 1;
  }
}

/* ------------------------------------------------------------ templates */

/* Does a Template Set after offset `from` define template tid? (For the
 * message of IPR_E_UNKNOWN_TEMPLATE only; stops at anything malformed.) */
static int defined_later(const ipr_ctx *c, size_t from, uint16_t tid) {
  size_t o = from;
  while (c->len - o >= SET_HDR_LEN) {
    uint16_t sid = be16(c->b + o), sl = be16(c->b + o + 2);
    if (sl < SET_HDR_LEN || sl > c->len - o)
      return 0;
    if (sid == 2 || sid == 3) {
      size_t q = o + SET_HDR_LEN, e = o + sl, h = sid == 3 ? 6 : 4;
      while (e - q >= h) {
        uint16_t t = be16(c->b + q), fc = be16(c->b + q + 2), i;
        if (t == tid && fc > 0)
          return 1;
        q += h;
        for (i = 0; i < fc; i++) {
          int ent;
          if (e - q < 4)
            return 0;
          ent = (c->b[q] & 0x80) != 0;
          q += 4;
          if (ent) {
            if (e - q < 4)
              return 0;
            q += 4;
          }
        }
      }
    }
    o += sl;
  }
  return 0;
}

/* Enter template t into the message's table (the work copy). */
static int define(ipr_ctx *c, const ipr_template *t, size_t off) {
  ipr_state *st = c->st;
  ipr_template *slot;
  size_t i;
  if (!c->copied) {
    ipr_template *work = st->tables[1u - st->committed];
    memcpy(work, st->tables[st->committed],
           IPR_MAX_TEMPLATES * sizeof(ipr_template));
    c->tab = work;
    c->copied = 1;
  }
  slot = tab_find(c->tab, t->domain, t->tid);
  for (i = 0; slot == NULL && i < IPR_MAX_TEMPLATES; i++)
    if (c->tab[i].nfields == 0)
      slot = &c->tab[i];
  if (slot == NULL)
    return fail(c, IPR_E_LIMIT, off, 1,
                "template %u: the reader holds at most %d templates",
                (unsigned)t->tid, IPR_MAX_TEMPLATES);
  *slot = *t;
  return 0;
}

/* The bytes e - p after the last record of a Set (shorter than its
 * smallest record, minrec) must be zero (RFC 7011 3.3.1). */
static int padding(ipr_ctx *c, ipr_set *s, size_t p, size_t e, size_t minrec) {
  size_t i;
  for (i = p; i < e; i++)
    if (c->b[i] != 0)
      return fail(c, IPR_E_PADDING, i, 1,
                  "set %u: nonzero padding: the %zu bytes after the last "
                  "record (shorter than its smallest record, %zu bytes) "
                  "must be zero",
                  (unsigned)s->id, e - p, minrec);
  s->padding = (uint16_t)(e - p);
  return 0;
}

/* A Set without a record: empty (IPR_E_EMPTY_SET) if its e - p bytes are
 * zero (or none), else a record cut short (`cut`). */
static int no_record(ipr_ctx *c, const ipr_set *s, size_t p, size_t e,
                     size_t minrec, ipr_error cut) {
  size_t i;
  for (i = p; i < e; i++)
    if (c->b[i] != 0)
      return fail(c, cut, p, 1,
                  "set %u: its %zu bytes are fewer than its smallest "
                  "record (%zu bytes)",
                  (unsigned)s->id, e - p, minrec);
  return fail(c, IPR_E_EMPTY_SET, s->offset, 1,
              "set %u holds no record (%zu bytes, all zero)", (unsigned)s->id,
              e - p);
}

/* A Template Set (2) or an Options Template Set (3). */
static int template_set(ipr_ctx *c, ipr_set *s) {
  const uint8_t *b = c->b;
  int opt = s->id == 3;
  size_t p = s->offset + SET_HDR_LEN, e = s->offset + s->length;
  size_t hlen = opt ? 6 : 4;
  size_t minrec = hlen + 4; /* header and one field specifier */
  ipr_template t;
  while (e - p >= minrec) {
    size_t r = p;
    uint16_t fc, sc, i;
    uint32_t min = 0;
    memset(&t, 0, sizeof(t));
    t.domain = c->domain;
    t.tid = be16(b + p);
    fc = be16(b + p + 2);
    sc = opt ? be16(b + p + 4) : 0;
    if (t.tid < 256)
      return fail(c, IPR_E_TEMPLATE_ID, r, 1, "set %u: template id %u < 256",
                  (unsigned)s->id, (unsigned)t.tid);
    if (fc == 0)
      return fail(c, IPR_E_FIELD_COUNT, r, 1,
                  "template %u: field count 0 (a template withdrawal)",
                  (unsigned)t.tid);
    if (opt && (sc == 0 || sc > fc))
      return fail(c, IPR_E_SCOPE_COUNT, r, 1,
                  "options template %u: scope field count %u (must be 1.."
                  "field count %u)",
                  (unsigned)t.tid, (unsigned)sc, (unsigned)fc);
    if (fc > IPR_MAX_FIELDS)
      return fail(c, IPR_E_LIMIT, r, 1,
                  "template %u: %u fields; the reader holds at most %d",
                  (unsigned)t.tid, (unsigned)fc, IPR_MAX_FIELDS);
    t.nfields = fc;
    t.scope_count = sc;
    p += hlen;
    for (i = 0; i < fc; i++) {
      ipr_tfield *f = &t.fields[i];
      uint16_t raw;
      if (e - p < 4)
        return fail(c, IPR_E_TEMPLATE_OVERRUN, p, 1,
                    "template %u: field specifier %u of %u runs past the "
                    "end of the set",
                    (unsigned)t.tid, (unsigned)i + 1, (unsigned)fc);
      raw = be16(b + p);
      f->id = (uint16_t)(raw & 0x7fffu);
      f->tlen = be16(b + p + 2);
      p += 4;
      if (raw & 0x8000u) {
        if (e - p < 4)
          return fail(c, IPR_E_PEN_TRUNCATED, p, 1,
                      "template %u: field %u has the enterprise bit set "
                      "but the set ends within its enterprise number",
                      (unsigned)t.tid, (unsigned)i + 1);
        f->pen = be32(b + p);
        p += 4;
        if (f->pen == 0)
          return fail(c, IPR_E_PEN_ZERO, p - 4, 1,
                      "template %u: field %u has the enterprise bit set "
                      "and enterprise number 0",
                      (unsigned)t.tid, (unsigned)i + 1);
      } else if (f->id == 0) {
        return fail(c, IPR_E_IE_ID, p - 4, 1,
                    "template %u: field %u is information element 0 "
                    "(reserved)",
                    (unsigned)t.tid, (unsigned)i + 1);
      }
      if (f->tlen == 0)
        return fail(c, IPR_E_FIELD_LENGTH, p - 4 - (f->pen ? 4u : 0u), 1,
                    "template %u: field %u (ie %u) has field length 0",
                    (unsigned)t.tid, (unsigned)i + 1, (unsigned)f->id);
      if (f->pen == 0 && !ipr_type_len_ok(ipr_ie_type(f->id), f->tlen))
        return fail(c, IPR_E_FIELD_LENGTH, p - 4, 1,
                    "template %u: field %u: ie %u of data type %d cannot "
                    "have field length %u",
                    (unsigned)t.tid, (unsigned)i + 1, (unsigned)f->id,
                    ipr_ie_type(f->id), (unsigned)f->tlen);
      min += f->tlen == VARLEN ? 1u : f->tlen;
    }
    if (min > MAX_RECORD)
      return fail(c, IPR_E_RECORD_SIZE, r, 1,
                  "template %u: its smallest record (%lu bytes) cannot fit "
                  "in a message",
                  (unsigned)t.tid, (unsigned long)min);
    t.min_len = (uint16_t)min;
    if (define(c, &t, r) != 0)
      return -1;
    if (c->ntdefs >= MAX_TDEFS)
      return fail(c, IPR_E_LIMIT, r, 1, "too many template records");
    c->st->tdefs[c->ntdefs].tid = t.tid;
    c->st->tdefs[c->ntdefs].nfields = fc;
    c->st->tdefs[c->ntdefs].scope_count = sc;
    c->st->tdefs[c->ntdefs].reserved = 0;
    c->st->tdefs[c->ntdefs].offset = r;
    c->st->tdefs[c->ntdefs].set = c->nsets;
    c->ntdefs++;
    s->count++;
  }
  if (s->count == 0)
    return no_record(c, s, p, e, minrec, IPR_E_TEMPLATE_OVERRUN);
  return padding(c, s, p, e, minrec);
}

/* ------------------------------------------------------------ data */

static int data_set(ipr_ctx *c, ipr_set *s) {
  const uint8_t *b = c->b;
  size_t p = s->offset + SET_HDR_LEN, e = s->offset + s->length;
  const ipr_template *t = tab_find(c->tab, c->domain, s->id);
  if (t == NULL)
    return fail(c, IPR_E_UNKNOWN_TEMPLATE, s->offset, 1,
                "data set %u of domain %lu: no such template%s",
                (unsigned)s->id, (unsigned long)c->domain,
                defined_later(c, e, s->id)
                    ? " (it is defined later in this message: data set "
                      "before its template)"
                    : "");
  while (e - p >= t->min_len) {
    size_t r = p;
    ipr_rec *rec;
    ipr_field *fs;
    uint16_t i;
    if (c->nrecs >= MAX_RECS || MAX_MSG_FIELDS - c->nfields < t->nfields)
      return fail(c, IPR_E_LIMIT, r, 1, "too many records"); /* cannot be */
    rec = &c->st->recs[c->nrecs];
    fs = &c->st->fields[c->nfields];
    for (i = 0; i < t->nfields; i++) {
      const ipr_tfield *tf = &t->fields[i];
      ipr_field *f = &fs[i];
      size_t pre = 0, l = tf->tlen;
      if (tf->tlen == VARLEN) {
        /* RFC 7011 7: one length byte < 255, or 255 and two bytes */
        if (e - p < 1)
          return fail(c, IPR_E_RECORD_OVERRUN, p, 1,
                      "data set %u: record %zu: the set ends before the "
                      "length of variable-length field %u",
                      (unsigned)s->id, s->count + 1, (unsigned)i + 1);
        l = b[p];
        pre = 1;
        if (l == 255) {
          if (e - p < 3)
            return fail(c, IPR_E_RECORD_OVERRUN, p, 1,
                        "data set %u: record %zu: the set ends within the "
                        "3-byte length of variable-length field %u",
                        (unsigned)s->id, s->count + 1, (unsigned)i + 1);
          l = be16(b + p + 1);
          pre = 3;
        }
      }
      if (e - p - pre < l)
        return fail(c, IPR_E_RECORD_OVERRUN, p, 1,
                    "data set %u: record %zu: field %u (ie %u, %zu bytes) "
                    "runs past the end of the set",
                    (unsigned)s->id, s->count + 1, (unsigned)i + 1,
                    (unsigned)tf->id, l);
      f->id = tf->id;
      f->tlen = tf->tlen;
      f->pen = tf->pen;
      f->data = b + p + pre;
      f->len = (uint16_t)l;
      f->prefix = (uint8_t)pre;
      f->reserved = 0;
      p += pre + l;
    }
    rec->domain = c->domain;
    rec->tid = t->tid;
    rec->scope_count = t->scope_count;
    rec->nfields = t->nfields;
    rec->size = (uint16_t)(p - r);
    rec->offset = r;
    rec->set = c->nsets;
    rec->fields = fs;
    c->nrecs++;
    c->nfields += t->nfields;
    s->count++;
  }
  if (s->count == 0)
    return no_record(c, s, p, e, t->min_len, IPR_E_RECORD_OVERRUN);
  return padding(c, s, p, e, t->min_len);
}

/* ------------------------------------------------------------ message */

int ipr_read_msg(ipr_state *st, const uint8_t *buf, size_t len, ipr_msg *out,
                 char *err, size_t errlen) {
  ipr_ctx c;
  ipr_domain *d, *dfree = NULL;
  size_t off, i;
  memset(&c, 0, sizeof(c));
  c.err = err;
  c.errlen = errlen;
  if (err != NULL && errlen > 0)
    err[0] = '\0';
  if (st == NULL) {
    if (err != NULL && errlen > 0)
      snprintf(err, errlen, "no reader state");
    return -1;
  }
  c.st = st;
  if (out == NULL || (buf == NULL && len > 0))
    return fail(&c, IPR_E_ARG, 0, 0, "NULL output or buffer");
  memset(out, 0, sizeof(*out));
  c.b = buf;
  c.len = len;
  c.tab = st->tables[st->committed];

  /* the Message Header (RFC 7011 3.1) */
  if (len < HDR_LEN)
    return fail(&c, IPR_E_SHORT, 0, 1,
                "a message of %zu bytes is shorter than the 16-byte "
                "message header",
                len);
  ipr_peek_hdr(buf, len, &out->hdr);
  if (out->hdr.version != 10)
    return fail(&c, IPR_E_VERSION, 0, 1, "version %u, not 10",
                (unsigned)out->hdr.version);
  if (out->hdr.length != len)
    return fail(&c, IPR_E_LENGTH, 2, 1,
                "header length %u but the message has %zu bytes",
                (unsigned)out->hdr.length, len);
  c.domain = out->hdr.domain;

  /* the Sequence Number: data records before this message */
  d = domain_find(st, c.domain);
  for (i = 0; d == NULL && dfree == NULL && i < IPR_MAX_DOMAINS; i++)
    if (!st->domains[i].used)
      dfree = &st->domains[i];
  if (!(st->flags & IPR_F_NO_SEQ)) {
    if (d == NULL && dfree == NULL)
      return fail(&c, IPR_E_LIMIT, 12, 1,
                  "domain %lu: the reader follows at most %d domains",
                  (unsigned long)c.domain, IPR_MAX_DOMAINS);
    if (d != NULL && out->hdr.seq != d->next_seq)
      return fail(&c, IPR_E_SEQUENCE, 8, 1,
                  "sequence number mismatch: %lu, expected %lu (the data "
                  "records of the earlier messages of domain %lu)",
                  (unsigned long)out->hdr.seq, (unsigned long)d->next_seq,
                  (unsigned long)c.domain);
    if (d == NULL && !(st->flags & IPR_F_ANY_FIRST_SEQ) && out->hdr.seq != 0)
      return fail(&c, IPR_E_SEQUENCE, 8, 1,
                  "sequence number mismatch: %lu, expected 0 (the first "
                  "message of domain %lu)",
                  (unsigned long)out->hdr.seq, (unsigned long)c.domain);
  }

  /* the Sets (RFC 7011 3.3) */
  for (off = HDR_LEN; off < len;) {
    ipr_set *s;
    uint16_t sid, slen;
    if (len - off < SET_HDR_LEN)
      return fail(&c, IPR_E_SET_HEADER, off, 1,
                  "%zu bytes after the last set, too few for a set header",
                  len - off);
    sid = be16(buf + off);
    slen = be16(buf + off + 2);
    if (slen < SET_HDR_LEN)
      return fail(&c, IPR_E_SET_LENGTH, off + 2, 1,
                  "set %u: set length %u < 4", (unsigned)sid, (unsigned)slen);
    if (slen > len - off)
      return fail(&c, IPR_E_SET_OVERRUN, off + 2, 1,
                  "set %u: set length %u overruns the message (%zu bytes "
                  "left)",
                  (unsigned)sid, (unsigned)slen, len - off);
    if (sid < 2 || (sid > 3 && sid < 256))
      return fail(&c, IPR_E_SET_ID, off, 1, "reserved set id %u",
                  (unsigned)sid);
    s = &st->sets[c.nsets];
    memset(s, 0, sizeof(*s));
    s->id = sid;
    s->length = slen;
    s->offset = off;
    if (sid <= 3) {
      s->first = c.ntdefs;
      if (template_set(&c, s) != 0)
        return -1;
    } else {
      s->first = c.nrecs;
      if (data_set(&c, s) != 0)
        return -1;
    }
    c.nsets++;
    off += slen;
  }

  /* accepted: commit */
  if (c.copied)
    st->committed = 1u - st->committed;
  if (d == NULL && dfree != NULL) {
    d = dfree;
    d->used = 1;
    d->domain = c.domain;
    d->nrecords = 0;
  }
  if (d != NULL) {
    d->next_seq = (uint32_t)(out->hdr.seq + (uint32_t)c.nrecs);
    d->nrecords += c.nrecs;
  }
  st->last = IPR_OK;
  out->nsets = c.nsets;
  out->sets = st->sets;
  out->ntdefs = c.ntdefs;
  out->tdefs = st->tdefs;
  out->nrecs = c.nrecs;
  out->recs = st->recs;
  return 0;
}

/* ------------------------------------------------------------ fields */

const ipr_field *ipr_find_field(const ipr_rec *r, uint32_t pen, uint16_t id) {
  uint16_t i;
  if (r == NULL)
    return NULL;
  for (i = 0; i < r->nfields; i++)
    if (r->fields[i].pen == pen && r->fields[i].id == id)
      return &r->fields[i];
  return NULL;
}

const uint8_t *ipr_find(const ipr_rec *r, uint32_t pen, uint16_t id,
                        size_t *len) {
  const ipr_field *f = ipr_find_field(r, pen, id);
  if (f == NULL)
    return NULL;
  if (len != NULL)
    *len = f->len;
  return f->data;
}

int ipr_get_uint(const uint8_t *p, size_t len, uint64_t *v) {
  uint64_t x = 0;
  size_t i;
  if (p == NULL || len < 1 || len > 8)
    return -1;
  for (i = 0; i < len; i++)
    x = x << 8 | p[i];
  *v = x;
  return 0;
}

int ipr_get_int(const uint8_t *p, size_t len, int64_t *v) {
  uint64_t x;
  if (ipr_get_uint(p, len, &x) != 0)
    return -1;
  if (len < 8 && (p[0] & 0x80))
    x |= ~(uint64_t)0 << (8 * len); /* sign extension (RFC 7011 6.2) */
  /* two's complement without an implementation-defined conversion */
  *v = x <= (uint64_t)INT64_MAX ? (int64_t)x : -(int64_t)(~x) - 1;
  return 0;
}

int ipr_get_ipv4(const uint8_t *p, size_t len, uint32_t *v) {
  if (p == NULL || len != 4)
    return -1;
  *v = be32(p);
  return 0;
}

int ipr_get_ipv6(const uint8_t *p, size_t len, uint8_t v[16]) {
  if (p == NULL || len != 16)
    return -1;
  memcpy(v, p, 16);
  return 0;
}

int ipr_get_seconds(const uint8_t *p, size_t len, uint32_t *v) {
  if (p == NULL || len != 4)
    return -1;
  *v = be32(p);
  return 0;
}

int ipr_get_ms(const uint8_t *p, size_t len, uint64_t *v) {
  if (len != 8)
    return -1;
  return ipr_get_uint(p, len, v);
}

int64_t ipr_ntp_to_unix_ns(uint64_t ntp) {
  int64_t sec = (int64_t)(ntp >> 32) - NTP_UNIX_OFFSET;
  uint64_t frac = ntp & 0xffffffffu;
  /* frac * 10^9 < 2^62: the nearest nanosecond, halves up */
  uint64_t ns = (frac * 1000000000u + 0x80000000u) >> 32;
  return sec * 1000000000 + (int64_t)ns;
}

int ipr_get_ntp_ns(const uint8_t *p, size_t len, int64_t *v) {
  uint64_t x;
  if (len != 8 || ipr_get_uint(p, len, &x) != 0)
    return -1;
  *v = ipr_ntp_to_unix_ns(x);
  return 0;
}

int ipr_utf8_valid(const uint8_t *p, size_t len) {
  size_t i = 0;
  if (p == NULL)
    return len == 0;
  while (i < len) {
    uint8_t c0 = p[i];
    size_t n, k;
    uint32_t cp, min;
    if (c0 < 0x80) {
      i++;
      continue;
    } else if (c0 >= 0xc2 && c0 <= 0xdf) {
      n = 1;
      cp = c0 & 0x1fu;
      min = 0x80;
    } else if (c0 >= 0xe0 && c0 <= 0xef) {
      n = 2;
      cp = c0 & 0x0fu;
      min = 0x800;
    } else if (c0 >= 0xf0 && c0 <= 0xf4) {
      n = 3;
      cp = c0 & 0x07u;
      min = 0x10000;
    } else {
      return 0;
    }
    if (len - i - 1 < n)
      return 0;
    for (k = 1; k <= n; k++) {
      if ((p[i + k] & 0xc0) != 0x80)
        return 0;
      cp = cp << 6 | (p[i + k] & 0x3fu);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
      return 0;
    i += n + 1;
  }
  return 1;
}

/* ------------------------------------------------------------ RFC 5610 */

IPR_PRINTF(3, 4)
static int ietype_fail(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  if (err != NULL && errlen > 0) {
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return -1;
}

int ipr_ietype_get(const ipr_rec *r, ipr_ietype *t, char *err, size_t errlen) {
  const ipr_field *f;
  uint64_t v;
  uint16_t i;
  unsigned seen = 0;
  int have_id = 0, have_pen = 0;
  if (err != NULL && errlen > 0)
    err[0] = '\0';
  if (r == NULL || t == NULL || r->scope_count != 2 || r->nfields < 2)
    return 0;
  for (i = 0; i < 2; i++) {
    f = &r->fields[i];
    if (f->pen == 0 && f->id == IPR_IE_INFORMATIONELEMENTID && !have_id)
      have_id = 1;
    else if (f->pen == 0 && f->id == IPR_IE_PRIVATEENTERPRISENUMBER &&
             !have_pen)
      have_pen = 1;
    else
      return 0;
  }
  for (i = 2; i < r->nfields; i++) {
    f = &r->fields[i];
    if (f->pen != 0 || f->id < IPR_IE_DATATYPE || f->id > IPR_IE_UNITS)
      return 0;
  }
  memset(t, 0, sizeof(*t));
  for (i = 0; i < r->nfields; i++) {
    unsigned bit = 0;
    f = &r->fields[i];
    switch (f->id) {
    case IPR_IE_DATATYPE:
      bit = IPR_HAVE_TYPE;
      break;
    case IPR_IE_SEMANTICS:
      bit = IPR_HAVE_SEMANTICS;
      break;
    case IPR_IE_UNITS:
      bit = IPR_HAVE_UNITS;
      break;
    case IPR_IE_NAME:
      bit = IPR_HAVE_NAME;
      break;
    case IPR_IE_DESCRIPTION:
      bit = IPR_HAVE_DESCRIPTION;
      break;
    case IPR_IE_RANGEBEGIN:
      bit = IPR_HAVE_RANGEBEGIN;
      break;
    case IPR_IE_RANGEEND:
      bit = IPR_HAVE_RANGEEND;
      break;
    default:
      break;
    }
    if (bit != 0 && (seen & bit))
      return ietype_fail(err, errlen,
                         "type record: information element %u twice",
                         (unsigned)f->id);
    seen |= bit;
    if (f->id == IPR_IE_NAME || f->id == IPR_IE_DESCRIPTION) {
      if (!ipr_utf8_valid(f->data, f->len))
        return ietype_fail(err, errlen,
                           "type record: ie %u is not valid UTF-8",
                           (unsigned)f->id);
      if (f->id == IPR_IE_NAME) {
        if (f->len == 0)
          return ietype_fail(err, errlen, "type record: empty name");
        t->name = f->data;
        t->name_len = f->len;
      } else {
        t->description = f->data;
        t->description_len = f->len;
      }
      continue;
    }
    /* the other eight are unsigned integers (reduced size allowed) */
    if (!ipr_type_len_ok(ipr_ie_type(f->id), f->len) ||
        ipr_get_uint(f->data, f->len, &v) != 0)
      return ietype_fail(err, errlen, "type record: ie %u has length %u",
                         (unsigned)f->id, (unsigned)f->len);
    switch (f->id) {
    case IPR_IE_INFORMATIONELEMENTID:
      if (v > 0x7fff)
        return ietype_fail(err, errlen,
                           "type record: informationElementId %lu > 32767",
                           (unsigned long)v);
      t->id = (uint16_t)v;
      break;
    case IPR_IE_PRIVATEENTERPRISENUMBER:
      t->pen = (uint32_t)v;
      break;
    case IPR_IE_DATATYPE:
      t->data_type = (uint8_t)v;
      break;
    case IPR_IE_SEMANTICS:
      t->semantics = (uint8_t)v;
      break;
    case IPR_IE_UNITS:
      t->units = (uint16_t)v;
      break;
    case IPR_IE_RANGEBEGIN:
      t->range_begin = v;
      break;
    case IPR_IE_RANGEEND:
      t->range_end = v;
      break;
    default:
      break;
    }
  }
  t->have = seen;
  if (!(seen & IPR_HAVE_TYPE))
    return ietype_fail(err, errlen,
                       "type record: no informationElementDataType");
  if (!(seen & IPR_HAVE_NAME))
    return ietype_fail(err, errlen, "type record: no informationElementName");
  return 1;
}
