/* SPDX-License-Identifier: MIT */
/*
 * capfile: the capture file reader of the example programs; see capfile.h.
 *
 * The file is read through one buffer: need() makes the next N bytes of
 * the file contiguous in it (reading only until they are there, so that a
 * pipe is served block by block), and every field is read from those N
 * bytes only after need() said they are all there. Formats:
 *
 *   pcap    https://www.ietf.org/archive/id/draft-ietf-opsawg-pcap-04.html
 *   pcapng  https://www.ietf.org/archive/id/draft-ietf-opsawg-pcapng-02.html
 */
#define _DEFAULT_SOURCE 1

#include "capfile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define READ_CHUNK (256u << 10)

/* pcapng block types */
#define BT_SHB 0x0A0D0D0Au
#define BT_IDB 1u
#define BT_OPB 2u /* the obsolete packet block */
#define BT_SPB 3u
#define BT_EPB 6u
#define BYTE_ORDER_MAGIC 0x1A2B3C4Du

/* IDB options */
#define OPT_ENDOFOPT 0u
#define OPT_IF_NAME 2u
#define OPT_IF_TSRESOL 9u
#define OPT_IF_TSOFFSET 14u

struct capfile {
  int fd, own_fd;
  int format;
  int big; /* the byte order of the file (pcap) or section (pcapng) */
  int nano;
  size_t rechdr; /* pcap record header: 16 or 24 bytes */
  uint8_t *buf;
  size_t cap, start, end; /* buf[start, end): read, not yet consumed */
  uint64_t off;           /* file offset of buf[start] */
  int eof, failed;
  char err[256];
  uint32_t sections; /* pcapng sections begun */
  size_t sec_base;   /* the first interface of the section */
  size_t sec_nifs;   /* its interfaces */
  capfile_if *ifs;
  size_t nifs, ifcap;
  uint64_t packets;
  uint64_t last_ts; /* of the packet returned last (simple packet blocks) */
};

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int
fail(capfile *cf, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cf->err, sizeof(cf->err), fmt, ap);
  va_end(ap);
  cf->failed = 1;
  return -1;
}

/* Makes the next |n| bytes of the file available at buf + start. Returns
 * how many are (n, or fewer when the file ends first), or -1 after a read
 * error (cf->err). */
static long need(capfile *cf, size_t n) {
  while (cf->end - cf->start < n && !cf->eof) {
    ssize_t k;
    if (cf->cap - cf->start < n) {
      size_t have = cf->end - cf->start;
      if (cf->start) {
        memmove(cf->buf, cf->buf + cf->start, have);
        cf->start = 0;
        cf->end = have;
      }
      if (cf->cap < n) {
        size_t ncap = n + READ_CHUNK;
        uint8_t *nb = realloc(cf->buf, ncap);
        if (nb == NULL) {
          return fail(cf, "out of memory (a block of %zu bytes)", n);
        }
        cf->buf = nb;
        cf->cap = ncap;
      }
    }
    k = read(cf->fd, cf->buf + cf->end, cf->cap - cf->end);
    if (k < 0) {
      return fail(cf, "read error: %s", strerror(errno));
    }
    if (k == 0) {
      cf->eof = 1;
    }
    cf->end += (size_t)k;
  }
  return (long)(cf->end - cf->start < n ? cf->end - cf->start : n);
}

static void consume(capfile *cf, size_t n) {
  cf->start += n;
  cf->off += n;
  if (cf->start == cf->end) {
    cf->start = cf->end = 0;
  }
}

static uint16_t rd16(const capfile *cf, const uint8_t *p) {
  return cf->big ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}

static uint32_t rd32(const capfile *cf, const uint8_t *p) {
  return cf->big ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
                       (uint32_t)p[2] << 8 | p[3]
                 : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
                       (uint32_t)p[1] << 8 | p[0];
}

static uint64_t rd64(const capfile *cf, const uint8_t *p) {
  uint64_t a = rd32(cf, p), b = rd32(cf, p + 4);
  return cf->big ? a << 32 | b : b << 32 | a;
}

static capfile_if *add_if(capfile *cf) {
  capfile_if *ifc;
  if (cf->nifs == CAPFILE_MAX_IFS) {
    fail(cf, "more than %u interfaces", CAPFILE_MAX_IFS);
    return NULL;
  }
  if (cf->nifs == cf->ifcap) {
    size_t ncap = cf->ifcap ? 2 * cf->ifcap : 4;
    capfile_if *n = realloc(cf->ifs, ncap * sizeof(*n));
    if (n == NULL) {
      fail(cf, "out of memory");
      return NULL;
    }
    cf->ifs = n;
    cf->ifcap = ncap;
  }
  ifc = &cf->ifs[cf->nifs++];
  memset(ifc, 0, sizeof(*ifc));
  ifc->section = cf->sections ? cf->sections - 1 : 0;
  ifc->local_id = (uint32_t)cf->sec_nifs++;
  ifc->tsresol = 6; /* microseconds, the default of both formats */
  return ifc;
}

/* ------------------------------------------------------------ pcap */

static int pcap_header(capfile *cf, uint32_t magic_le) {
  long n = need(cf, 24);
  const uint8_t *h = cf->buf + cf->start;
  capfile_if *ifc;
  uint16_t major;
  if (n < 0) {
    return -1;
  }
  if (n < 24) {
    return fail(cf, "truncated pcap file header (%ld of 24 bytes)", n);
  }
  cf->format = CAPFILE_PCAP;
  /* the magic read little-endian: the file is little-endian if it is one
   * of the magics, big-endian if it is one of them byte-swapped */
  cf->big = !(magic_le == 0xa1b2c3d4u || magic_le == 0xa1b23c4du ||
              magic_le == 0xa1b2cd34u);
  cf->nano = rd32(cf, h) == 0xa1b23c4du;
  cf->rechdr = rd32(cf, h) == 0xa1b2cd34u ? 24 : 16;
  major = rd16(cf, h + 4);
  if (major != 2) {
    return fail(cf, "unsupported pcap version %u.%u", major, rd16(cf, h + 6));
  }
  if ((ifc = add_if(cf)) == NULL) {
    return -1;
  }
  ifc->snaplen = rd32(cf, h + 16);
  /* the link type is the low 26 bits (the FCS length above them) */
  ifc->linktype = rd32(cf, h + 20) & 0x03ffffffu;
  ifc->tsresol = cf->nano ? 9 : 6;
  consume(cf, 24);
  return 0;
}

static int pcap_next_rec(capfile *cf, capfile_pkt *p) {
  long n = need(cf, cf->rechdr);
  const uint8_t *h = cf->buf + cf->start;
  uint32_t sec, frac, caplen, len;
  if (n <= 0) {
    return (int)n; /* the end, or a read error */
  }
  if ((size_t)n < cf->rechdr) {
    return fail(cf,
                "record header at byte %" PRIu64 " truncated: %ld of its %zu "
                "bytes",
                cf->off, n, cf->rechdr);
  }
  sec = rd32(cf, h);
  frac = rd32(cf, h + 4);
  caplen = rd32(cf, h + 8);
  len = rd32(cf, h + 12);
  if (caplen > CAPFILE_PCAP_MAX_CAPLEN) {
    return fail(cf,
                "record at byte %" PRIu64 ": captured length %" PRIu32
                " is more than %u: a damaged record header",
                cf->off, caplen, CAPFILE_PCAP_MAX_CAPLEN);
  }
  n = need(cf, cf->rechdr + caplen);
  if (n < 0) {
    return -1;
  }
  if ((size_t)n < cf->rechdr + caplen) {
    return fail(cf,
                "record at byte %" PRIu64 " truncated: %zu of its %" PRIu32
                " bytes of packet data",
                cf->off, (size_t)n - cf->rechdr, caplen);
  }
  p->data = cf->buf + cf->start + cf->rechdr;
  p->caplen = caplen;
  p->len = len;
  p->ts =
      (uint64_t)sec * 1000000000u + (uint64_t)frac * (cf->nano ? 1u : 1000u);
  p->ifc = 0;
  p->linktype = cf->ifs[0].linktype;
  p->offset = cf->off + cf->rechdr;
  consume(cf, cf->rechdr + caplen);
  return 1;
}

/* ------------------------------------------------------------ pcapng */

/* Checks the length of the block at buf + start (|len| bytes, at least
 * |min|) and reads it whole. Returns 0, or -1. */
static int ng_block(capfile *cf, uint32_t type, uint32_t len, uint32_t min) {
  long n;
  if (len < min || len % 4 != 0 || len > CAPFILE_MAX_BLOCK) {
    return fail(cf,
                "block at byte %" PRIu64 " (type %#" PRIx32
                "): length %" PRIu32 " is %s",
                cf->off, type, len,
                len < min      ? "too short"
                : len % 4 != 0 ? "not a multiple of 4"
                               : "more than the 16 MiB a block may have");
  }
  n = need(cf, len);
  if (n < 0) {
    return -1;
  }
  if ((size_t)n < len) {
    return fail(cf,
                "block at byte %" PRIu64 " (type %#" PRIx32 ", %" PRIu32
                " bytes) truncated: the file ends %ld bytes into it",
                cf->off, type, len, n);
  }
  if (rd32(cf, cf->buf + cf->start + len - 4) != len) {
    return fail(cf,
                "block at byte %" PRIu64 " (type %#" PRIx32 "): its trailing "
                "length %" PRIu32 " is not its length %" PRIu32,
                cf->off, type, rd32(cf, cf->buf + cf->start + len - 4), len);
  }
  return 0;
}

/* A section header block at buf + start: its byte order, version. */
static int ng_shb(capfile *cf) {
  long n = need(cf, 12);
  const uint8_t *b;
  uint32_t len;
  int big;
  uint16_t major, minor;
  if (n < 0) {
    return -1;
  }
  if (n < 12) {
    return fail(cf,
                "section header block at byte %" PRIu64 " truncated: the "
                "file ends %ld bytes into it",
                cf->off, n);
  }
  b = cf->buf + cf->start;
  if (b[8] == 0x4d && b[9] == 0x3c && b[10] == 0x2b && b[11] == 0x1a) {
    big = 0;
  } else if (b[8] == 0x1a && b[9] == 0x2b && b[10] == 0x3c && b[11] == 0x4d) {
    big = 1;
  } else {
    return fail(cf,
                "section header block at byte %" PRIu64 ": no byte-order "
                "magic (%02x%02x%02x%02x)",
                cf->off, b[8], b[9], b[10], b[11]);
  }
  cf->big = big;
  len = rd32(cf, b + 4);
  if (ng_block(cf, BT_SHB, len, 28) != 0) {
    return -1;
  }
  b = cf->buf + cf->start;
  major = rd16(cf, b + 12);
  minor = rd16(cf, b + 14);
  if (major != 1) {
    return fail(cf,
                "section header block at byte %" PRIu64 ": unsupported "
                "pcapng version %u.%u",
                cf->off, major, minor);
  }
  cf->format = CAPFILE_PCAPNG;
  cf->sections++;
  cf->sec_base = cf->nifs;
  cf->sec_nifs = 0;
  consume(cf, len);
  return 0;
}

/* if_name into |dst|: what is printable, up to a NUL. */
static void copy_name(char *dst, const uint8_t *v, size_t n) {
  size_t i, k = 0;
  for (i = 0; i < n && v[i] != 0 && k < CAPFILE_NAME_MAX; i++) {
    dst[k++] = v[i] < 0x21 || v[i] == 0x7f ? '_' : (char)v[i];
  }
  /* do not cut a UTF-8 sequence */
  if (i < n && v[i] != 0 && k > 0 && (v[i] & 0xc0) == 0x80) {
    while (k > 0 && ((uint8_t)dst[k - 1] & 0xc0) == 0x80) {
      k--;
    }
    if (k > 0 && ((uint8_t)dst[k - 1] & 0xc0) == 0xc0) {
      k--;
    }
  }
  dst[k] = '\0';
}

/* An interface description block of |len| bytes at buf + start. */
static int ng_idb(capfile *cf, uint32_t len) {
  const uint8_t *b = cf->buf + cf->start, *o;
  size_t olen, pos = 0;
  capfile_if *ifc;
  uint64_t at = cf->off;
  if (len < 20) {
    return fail(cf,
                "interface description block at byte %" PRIu64 ": %" PRIu32
                " bytes, less than 20",
                at, len);
  }
  if ((ifc = add_if(cf)) == NULL) {
    return -1;
  }
  ifc->linktype = rd16(cf, b + 8);
  ifc->snaplen = rd32(cf, b + 12);
  o = b + 16;
  olen = len - 20;
  while (olen - pos >= 4) {
    uint16_t code = rd16(cf, o + pos), vlen = rd16(cf, o + pos + 2);
    const uint8_t *v = o + pos + 4;
    size_t adv;
    if (code == OPT_ENDOFOPT) {
      break;
    }
    if (vlen > olen - pos - 4) {
      return fail(cf,
                  "interface %zu (block at byte %" PRIu64 "): option %u of "
                  "%u bytes runs past the end of the block",
                  cf->nifs - 1, at, code, vlen);
    }
    if (code == OPT_IF_NAME) {
      copy_name(ifc->name, v, vlen);
    } else if (code == OPT_IF_TSRESOL || code == OPT_IF_TSOFFSET) {
      if (vlen != (code == OPT_IF_TSRESOL ? 1 : 8)) {
        return fail(cf,
                    "interface %zu (block at byte %" PRIu64 "): %s of %u "
                    "bytes, not %u",
                    cf->nifs - 1, at,
                    code == OPT_IF_TSRESOL ? "if_tsresol" : "if_tsoffset",
                    vlen, code == OPT_IF_TSRESOL ? 1u : 8u);
      }
      if (code == OPT_IF_TSRESOL) {
        ifc->tsresol = v[0];
      } else {
        ifc->tsoffset = (int64_t)rd64(cf, v);
      }
    }
    adv = 4 + (((size_t)vlen + 3) & ~(size_t)3);
    pos = adv > olen - pos ? olen : pos + adv;
  }
  return 0;
}

/* |t| units of interface |ifc| in ns since 1970. Returns 0, or -1 when
 * that is not a time from 1970 to 2554. */
static int ng_time(const capfile_if *ifc, uint64_t t, uint64_t *ns) {
  static const uint64_t pow10[20] = {1u,
                                     10u,
                                     100u,
                                     1000u,
                                     10000u,
                                     100000u,
                                     1000000u,
                                     10000000u,
                                     100000000u,
                                     1000000000u,
                                     10000000000u,
                                     100000000000u,
                                     1000000000000u,
                                     10000000000000u,
                                     100000000000000u,
                                     1000000000000000u,
                                     10000000000000000u,
                                     100000000000000000u,
                                     1000000000000000000u,
                                     10000000000000000000u};
  unsigned e = ifc->tsresol & 0x7fu;
  unsigned __int128 v;
  __int128 s;
  if (ifc->tsresol & 0x80u) {
    v = ((unsigned __int128)t * 1000000000u) >> e; /* < 2^94 */
  } else if (e <= 9) {
    v = (unsigned __int128)t * pow10[9 - e];
  } else if (e - 9 < 20) {
    v = t / pow10[e - 9];
  } else {
    v = 0; /* a unit below 10^-28 s: every count is less than 1 ns */
  }
  s = (__int128)v + (__int128)ifc->tsoffset * 1000000000;
  if (s < 0 || s >= (__int128)UINT64_MAX) {
    return -1;
  }
  *ns = (uint64_t)s;
  return 0;
}

/* A packet block (EPB, OPB, SPB) of |len| bytes at buf + start. */
static int ng_packet(capfile *cf, uint32_t type, uint32_t len,
                     capfile_pkt *p) {
  const uint8_t *b = cf->buf + cf->start + 8;
  uint32_t blen = len - 12, ifid, caplen, origlen, hdr;
  uint64_t t = 0;
  const char *what = type == BT_EPB   ? "enhanced packet block"
                     : type == BT_OPB ? "packet block"
                                      : "simple packet block";
  hdr = type == BT_SPB ? 4 : 20;
  if (blen < hdr) {
    return fail(
        cf, "%s at byte %" PRIu64 ": %" PRIu32 " bytes, less than %" PRIu32,
        what, cf->off, len, hdr + 12);
  }
  if (type == BT_SPB) {
    ifid = 0;
    origlen = rd32(cf, b);
    caplen = origlen < blen - 4 ? origlen : blen - 4;
  } else {
    ifid = type == BT_EPB ? rd32(cf, b) : rd16(cf, b);
    t = (uint64_t)rd32(cf, b + 4) << 32 | rd32(cf, b + 8);
    caplen = rd32(cf, b + 12);
    origlen = rd32(cf, b + 16);
  }
  if (ifid >= cf->sec_nifs) {
    return fail(cf,
                "%s at byte %" PRIu64 " of interface "
                "%" PRIu32 ", but its section describes %zu",
                what, cf->off, ifid, cf->sec_nifs);
  }
  if (caplen > blen - hdr) {
    return fail(cf,
                "%s at byte %" PRIu64 ": captured length "
                "%" PRIu32 ", more than the %" PRIu32 " bytes it holds",
                what, cf->off, caplen, blen - hdr);
  }
  ifid += (uint32_t)cf->sec_base;
  if (type == BT_SPB) {
    /* no time of its own: the time of the packet before it */
    uint32_t snap = cf->ifs[ifid].snaplen;
    if (snap && caplen > snap) {
      caplen = snap;
    }
    p->ts = cf->last_ts;
  } else if (ng_time(&cf->ifs[ifid], t, &p->ts) != 0) {
    return fail(cf,
                "%s at byte %" PRIu64 ": timestamp "
                "%" PRIu64 " of interface %" PRIu32 " is out of range",
                what, cf->off, t, ifid);
  }
  p->data = b + hdr;
  p->caplen = caplen;
  p->len = origlen;
  p->ifc = ifid;
  p->linktype = cf->ifs[ifid].linktype;
  p->offset = cf->off + 8 + hdr;
  return 0;
}

static int ng_next(capfile *cf, capfile_pkt *p) {
  for (;;) {
    long n = need(cf, 8);
    uint32_t type, len;
    if (n <= 0) {
      return (int)n; /* the end, or a read error */
    }
    if (n < 8) {
      return fail(cf,
                  "block at byte %" PRIu64 " truncated: the file ends %ld "
                  "bytes into it",
                  cf->off, n);
    }
    type = rd32(cf, cf->buf + cf->start);
    if (type == BT_SHB) {
      if (ng_shb(cf) != 0) {
        return -1;
      }
      continue;
    }
    len = rd32(cf, cf->buf + cf->start + 4);
    if (ng_block(cf, type, len, 12) != 0) {
      return -1;
    }
    if (type == BT_IDB) {
      if (ng_idb(cf, len) != 0) {
        return -1;
      }
    } else if (type == BT_EPB || type == BT_OPB || type == BT_SPB) {
      if (ng_packet(cf, type, len, p) != 0) {
        return -1;
      }
      consume(cf, len); /* p->data stays where it is until need() */
      return 1;
    }
    consume(cf, len); /* any other block: skipped */
  }
}

/* ------------------------------------------------------------ API */

capfile *capfile_open(const char *path, char *err, size_t errlen) {
  capfile *cf = calloc(1, sizeof(*cf));
  long n;
  uint32_t m;
  int rv = -1;
  if (cf == NULL || (cf->buf = malloc(READ_CHUNK)) == NULL) {
    snprintf(err, errlen, "out of memory");
    free(cf);
    return NULL;
  }
  cf->cap = READ_CHUNK;
  if (strcmp(path, "-") == 0) {
    cf->fd = STDIN_FILENO;
  } else if ((cf->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
    snprintf(err, errlen, "%s", strerror(errno));
    free(cf->buf);
    free(cf);
    return NULL;
  } else {
    cf->own_fd = 1;
  }
  n = need(cf, 4);
  if (n >= 0) {
    const uint8_t *b = cf->buf + cf->start;
    m = n == 4 ? (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 |
                     (uint32_t)b[1] << 8 | b[0]
               : 0;
    if (n == 0) {
      fail(cf, "empty file");
    } else if (n < 4) {
      fail(cf, "not a pcap or pcapng file (%ld bytes)", n);
    } else if (m == BT_SHB) {
      rv = ng_shb(cf);
    } else if (m == 0xa1b2c3d4u || m == 0xd4c3b2a1u || m == 0xa1b23c4du ||
               m == 0x4d3cb2a1u || m == 0xa1b2cd34u || m == 0x34cdb2a1u) {
      rv = pcap_header(cf, m);
    } else {
      fail(cf, "not a pcap or pcapng file");
    }
  }
  if (rv != 0) {
    snprintf(err, errlen, "%s", cf->err);
    capfile_close(cf);
    return NULL;
  }
  return cf;
}

int capfile_next(capfile *cf, capfile_pkt *p) {
  int rv;
  if (cf->failed) {
    return -1;
  }
  rv = cf->format == CAPFILE_PCAP ? pcap_next_rec(cf, p) : ng_next(cf, p);
  if (rv == 1) {
    cf->packets++;
    cf->ifs[p->ifc].packets++;
    cf->last_ts = p->ts;
  }
  return rv;
}

const char *capfile_error(const capfile *cf) { return cf->err; }

int capfile_format(const capfile *cf) { return cf->format; }

size_t capfile_nifs(const capfile *cf) { return cf->nifs; }

const capfile_if *capfile_iface(const capfile *cf, size_t i) {
  return i < cf->nifs ? &cf->ifs[i] : NULL;
}

uint64_t capfile_packets(const capfile *cf) { return cf->packets; }

void capfile_close(capfile *cf) {
  if (cf == NULL) {
    return;
  }
  if (cf->own_fd) {
    close(cf->fd);
  }
  free(cf->ifs);
  free(cf->buf);
  free(cf);
}
