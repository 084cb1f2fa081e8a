/* out.c - buffered writers */
#include "out.h"

#include <stdlib.h>
#include <string.h>

int obuf_open(struct obuf *o, const char *path, size_t cap) {
  memset(o, 0, sizeof *o);
  o->f = fopen(path, "wb");
  if (!o->f)
    return -1;
  o->buf = malloc(cap);
  if (!o->buf) {
    fclose(o->f);
    o->f = NULL;
    return -1;
  }
  o->cap = cap;
  return 0;
}

void obuf_flush(struct obuf *o) {
  if (o->len && o->f) {
    if (fwrite(o->buf, 1, o->len, o->f) != o->len)
      o->err = 1;
  }
  o->len = 0;
}

void obuf_write(struct obuf *o, const void *p, size_t n) {
  const char *c = p;
  while (n) {
    if (o->len == o->cap)
      obuf_flush(o);
    size_t k = o->cap - o->len;
    if (k > n)
      k = n;
    memcpy(o->buf + o->len, c, k);
    o->len += k;
    c += k;
    n -= k;
  }
}

int obuf_close(struct obuf *o) {
  int rc = 0;
  if (!o->f)
    return 0;
  obuf_flush(o);
  if (o->err)
    rc = -1;
  if (fclose(o->f) != 0)
    rc = -1;
  free(o->buf);
  memset(o, 0, sizeof *o);
  return rc;
}

static void put32le(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
}

int pcap_open(struct obuf *o, const char *path, uint32_t snaplen) {
  if (obuf_open(o, path, 1u << 20) < 0)
    return -1;
  uint8_t h[24];
  put32le(h, 0xa1b23c4du);
  h[4] = 2;
  h[5] = 0;
  h[6] = 4;
  h[7] = 0;
  put32le(h + 8, 0);
  put32le(h + 12, 0);
  put32le(h + 16, snaplen);
  put32le(h + 20, 1); /* LINKTYPE_ETHERNET */
  obuf_write(o, h, sizeof h);
  return 0;
}

void pcap_record(struct obuf *o, uint64_t ts_ns, const uint8_t *frame,
                 uint32_t caplen, uint32_t origlen) {
  uint8_t *p = (uint8_t *)obuf_reserve(o, 16 + (size_t)caplen);
  if (!p) {
    uint8_t h[16];
    put32le(h, (uint32_t)(ts_ns / 1000000000u));
    put32le(h + 4, (uint32_t)(ts_ns % 1000000000u));
    put32le(h + 8, caplen);
    put32le(h + 12, origlen);
    obuf_write(o, h, 16);
    obuf_write(o, frame, caplen);
    return;
  }
  put32le(p, (uint32_t)(ts_ns / 1000000000u));
  put32le(p + 4, (uint32_t)(ts_ns % 1000000000u));
  put32le(p + 8, caplen);
  put32le(p + 12, origlen);
  memcpy(p + 16, frame, caplen);
  o->len += 16 + (size_t)caplen;
}

char *json_begin(struct obuf *o, size_t maxlen) {
  char *p = obuf_reserve(o, maxlen + 2);
  return p;
}

void json_end(struct obuf *o, char *p) {
  *p++ = '\n';
  o->len = (size_t)(p - o->buf);
}

char *j_lit(char *p, const char *s) {
  while (*s)
    *p++ = *s++;
  return p;
}

char *j_str(char *p, const char *s) {
  *p++ = '"';
  while (*s)
    *p++ = *s++;
  *p++ = '"';
  return p;
}

char *j_u64(char *p, uint64_t v) {
  char tmp[24];
  int n = 0;
  do {
    tmp[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  while (n)
    *p++ = tmp[--n];
  return p;
}

char *j_i64(char *p, int64_t v) {
  if (v < 0) {
    *p++ = '-';
    return j_u64(p, (uint64_t)0 - (uint64_t)v);
  }
  return j_u64(p, (uint64_t)v);
}

char *j_dbl(char *p, double v) {
  if (v != v || v > 1.7e308 || v < -1.7e308)
    return j_lit(p, "null");
  return p + sprintf(p, "%.17g", v);
}

char *j_key(char *p, const char *k) {
  if (p[-1] != '{')
    *p++ = ',';
  *p++ = '"';
  while (*k)
    *p++ = *k++;
  *p++ = '"';
  *p++ = ':';
  return p;
}

char *j_ip(char *p, const uint8_t ip[16], int v6) {
  *p++ = '"';
  if (!v6) {
    for (int i = 12; i < 16; i++) {
      p = j_u64(p, ip[i]);
      if (i < 15)
        *p++ = '.';
    }
  } else {
    static const char hx[] = "0123456789abcdef";
    /* full form without zero compression, lower-case: simple to parse */
    for (int i = 0; i < 16; i += 2) {
      unsigned v = (unsigned)ip[i] << 8 | ip[i + 1];
      int started = 0;
      for (int s = 12; s >= 0; s -= 4) {
        unsigned d = (v >> s) & 15;
        if (d || started || s == 0) {
          *p++ = hx[d];
          started = 1;
        }
      }
      if (i < 14)
        *p++ = ':';
    }
  }
  *p++ = '"';
  return p;
}
