/* SPDX-License-Identifier: MIT */
/*
 * capfile: the capture file reader of the example programs (rtel-analyze,
 * rtel-collect -r, switch-agent). It reads
 *
 *  - pcap: either byte order, microsecond or nanosecond timestamps (and
 *    the "modified" pcap of Alexey Kuznetzov, 24-byte record headers);
 *  - pcapng: any number of sections, each in its own byte order; any
 *    number of interfaces of any link types and snap lengths (the ones
 *    libpcap 1.10 refuses: an interface whose link type or snap length
 *    differs from the first interface's, a section in the other byte
 *    order); per-interface if_tsresol (powers of 10 and of 2), if_tsoffset
 *    and if_name; enhanced, simple and (obsolete) packet blocks; every
 *    other block is skipped.
 *
 * Interfaces are numbered through the file, in the order of their
 * interface description blocks (the numbering of tshark's
 * frame.interface_id): interface 0 of a second section is the next
 * number after the first section's. A pcap file has one interface (0).
 *
 * Every length field is checked against the bytes that are there: a
 * block or record that is cut short by the end of the file, or that says
 * it is longer or shorter than it can be, ends the file with a message
 * (capfile_error()); the packets before it have been returned. Nothing is
 * read outside the bytes read from the file. The file is read from start
 * to end without seeking, so it may be a pipe ("-": standard input); a
 * block is returned as soon as it has arrived.
 */
#ifndef RTEL_EXAMPLES_CAPFILE_H
#define RTEL_EXAMPLES_CAPFILE_H

#include <stddef.h>
#include <stdint.h>

/* The largest packet of a pcap record (libpcap's limit for most link
 * types): a longer one is taken for a damaged record header. */
#define CAPFILE_PCAP_MAX_CAPLEN (256u << 10)
/* The largest pcapng block (libpcap's limit). */
#define CAPFILE_MAX_BLOCK (16u << 20)
/* The most interfaces of one file. */
#define CAPFILE_MAX_IFS 65536u
/* The longest if_name kept (longer ones are cut). */
#define CAPFILE_NAME_MAX 63

enum { CAPFILE_PCAP = 1, CAPFILE_PCAPNG = 2 };

typedef struct capfile capfile;

/* An interface of the file. */
typedef struct capfile_if {
  uint32_t linktype; /* LINKTYPE_* as in the file (not a DLT_*) */
  uint32_t snaplen;  /* 0: none given */
  uint32_t section;  /* pcapng section, 0-based (pcap: 0) */
  uint32_t local_id; /* its number within its section */
  /* timestamps: a count of units since 1970 plus tsoffset seconds; the
   * unit is 10^-tsresol s, or 2^-(tsresol & 0x7f) s with bit 7 set */
  uint8_t tsresol;
  int64_t tsoffset;
  /* if_name, or "" (bytes below 0x21 and 0x7f are written '_'; cut to
   * CAPFILE_NAME_MAX bytes) */
  char name[CAPFILE_NAME_MAX + 1];
  uint64_t packets; /* packets of this interface returned so far */
} capfile_if;

/* A packet. |data| is valid until the next capfile_next() or
 * capfile_close() of the file. */
typedef struct capfile_pkt {
  const uint8_t *data;
  uint32_t caplen;   /* bytes at data */
  uint32_t len;      /* original length as the file gives it */
  uint64_t ts;       /* nanoseconds since 1970 */
  uint32_t ifc;      /* interface number in the file (capfile_iface()) */
  uint32_t linktype; /* its interface's link type */
  uint64_t offset;   /* where |data| begins in the file */
} capfile_pkt;

/* Opens |path| ("-": standard input) and reads its file header (pcapng:
 * its first section header block). Returns the reader, or NULL with a
 * message in |err| (the path not included), e.g. "No such file or
 * directory", "not a pcap or pcapng file". */
capfile *capfile_open(const char *path, char *err, size_t errlen);

/* The next packet into |p|. Returns 1, 0 at the end of the file, or -1
 * when the file ends in damage or cannot be read any further (the
 * reason: capfile_error(); every later call returns -1 again). */
int capfile_next(capfile *cf, capfile_pkt *p);

/* Why capfile_next() returned -1 ("" before that). */
const char *capfile_error(const capfile *cf);

/* CAPFILE_PCAP or CAPFILE_PCAPNG. */
int capfile_format(const capfile *cf);

/* The interfaces seen so far (those whose description block has been
 * read; pcap: 1), and interface |i| of them. */
size_t capfile_nifs(const capfile *cf);
const capfile_if *capfile_iface(const capfile *cf, size_t i);

/* Packets returned so far. */
uint64_t capfile_packets(const capfile *cf);

/* Closes the file (standard input is left open) and frees the reader.
 * NULL is ignored. */
void capfile_close(capfile *cf);

#endif
