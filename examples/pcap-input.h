/* SPDX-License-Identifier: MIT */
/*
 * What the pcap-reading example programs (rtel-analyze, rtel-collect,
 * switch-agent) share about their inputs: the decoder's link type of a
 * pcap DLT (live capture) and of a capture file's link type (capfile.h),
 * the default observation point name of an input, the timestamp of a pcap
 * header.
 */
#ifndef RTEL_EXAMPLES_PCAP_INPUT_H
#define RTEL_EXAMPLES_PCAP_INPUT_H

#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>

#include <rocetel/rocetel.h>

/* pcap DLT_* to the decoder's link types (pcap LINKTYPE_* numbers). */
static inline uint32_t pcap_input_linktype(int dlt) {
  switch (dlt) {
  case DLT_EN10MB:
    return RTEL_LINK_ETHERNET;
  case DLT_RAW:
#ifdef DLT_IPV4
  case DLT_IPV4:
#endif
#ifdef DLT_IPV6
  case DLT_IPV6:
#endif
    return RTEL_LINK_RAW;
#ifdef DLT_LINUX_SLL
  case DLT_LINUX_SLL:
    return RTEL_LINK_LINUX_SLL;
#endif
#ifdef DLT_LINUX_SLL2
  case DLT_LINUX_SLL2:
    return RTEL_LINK_LINUX_SLL2;
#endif
  default:
    /* unknown: passed as is; the decoder counts the packets as malformed
     * (unsupported link type) */
    return (uint32_t)(dlt > 0 ? dlt : 0x7fffffff);
  }
}

/* A capture file's LINKTYPE_* (capfile_pkt.linktype: the number in the
 * file, not a DLT_*) to the decoder's link types; 0 for a link type the
 * decoder does not read. */
static inline uint32_t pcap_input_file_linktype(uint32_t lt) {
  switch (lt) {
  case 1: /* LINKTYPE_ETHERNET */
    return RTEL_LINK_ETHERNET;
  case 12:  /* DLT_RAW of most systems, written as is by old libpcaps */
  case 14:  /* DLT_RAW of OpenBSD, the same */
  case 101: /* LINKTYPE_RAW */
  case 228: /* LINKTYPE_IPV4 */
  case 229: /* LINKTYPE_IPV6 */
    return RTEL_LINK_RAW;
  case 113: /* LINKTYPE_LINUX_SLL */
    return RTEL_LINK_LINUX_SLL;
  case 276: /* LINKTYPE_LINUX_SLL2 */
    return RTEL_LINK_LINUX_SLL2;
  default:
    return 0;
  }
}

/* Default observation point name: base name without extension
 * (allocated; NULL when out of memory). */
static inline char *pcap_input_obs_name(const char *path) {
  const char *b = strrchr(path, '/');
  char *s, *dot;
  b = b ? b + 1 : path;
  s = strdup(b);
  if (s && (dot = strrchr(s, '.')) != NULL && dot != s) {
    *dot = '\0';
  }
  return s;
}

/* The timestamp of a packet in ns; |nano|: the handle gives nanoseconds
 * (PCAP_TSTAMP_PRECISION_NANO), else microseconds. */
static inline rtel_tstamp pcap_input_ts(const struct pcap_pkthdr *ph,
                                        int nano) {
  return (uint64_t)ph->ts.tv_sec * 1000000000u +
         (uint64_t)ph->ts.tv_usec * (nano ? 1u : 1000u);
}

#endif
