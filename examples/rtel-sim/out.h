/* out.h - buffered output files: pcap (nanosecond) writer and JSON Lines
 * helpers */
#ifndef RTEL_SIM_OUT_H
#define RTEL_SIM_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct obuf {
  FILE *f;
  char *buf;
  size_t len, cap;
  int err;
};

int obuf_open(struct obuf *o, const char *path, size_t cap);
int obuf_close(struct obuf *o); /* flushes; returns -1 on any write error */
void obuf_flush(struct obuf *o);
static inline char *obuf_reserve(struct obuf *o, size_t n) {
  if (o->len + n > o->cap)
    obuf_flush(o);
  if (n > o->cap)
    return NULL;
  return o->buf + o->len;
}
void obuf_write(struct obuf *o, const void *p, size_t n);

/* pcap: magic 0xa1b23c4d (ns), version 2.4, LINKTYPE_ETHERNET */
int pcap_open(struct obuf *o, const char *path, uint32_t snaplen);
void pcap_record(struct obuf *o, uint64_t ts_ns, const uint8_t *frame,
                 uint32_t caplen, uint32_t origlen);

/* JSON helpers: they append to the buffer without bounds checks; call
 * json_begin() with the maximum size of the record first. */
char *json_begin(struct obuf *o, size_t maxlen);
void json_end(struct obuf *o, char *p); /* p = end of record (newline added) */
char *j_str(char *p, const char *s);    /* "s" (s must not need escaping) */
char *j_u64(char *p, uint64_t v);
char *j_i64(char *p, int64_t v);
char *j_dbl(char *p, double v); /* %.17g, or null when not finite */
char *
j_key(char *p,
      const char *k); /* ,"k": (a leading comma unless right after '{') */
char *j_ip(char *p, const uint8_t ip[16], int v6);
char *j_lit(char *p, const char *s); /* raw text */

#endif
