/* SPDX-License-Identifier: MIT */
/*
 * The IPFIX encoder (rtel_ipfix(3)) against independent truth:
 *  - golden bytes: messages written out below byte by byte from RFC 7011,
 *    RFC 5610 and the tables of rtel_ipfix(3), every value computed by
 *    hand (the arithmetic is in the comments);
 *  - round trips: every record type in both address families, read back by
 *    the strict reader tests/ipfix/ipfix_read.c (written from the RFCs, it
 *    never calls the library) and compared field by field with the source
 *    record by tests/ipfix/ipfix_expect.c;
 *  - the templates and the element table against the man page's tables,
 *    copied below as literal data;
 *  - sequence numbers, template refresh, transport sessions, the size cap
 *    and the error returns of include/rocetel/rocetel.h.
 * Nothing here calls the encoder's own helpers (lib/rtel_ipfix.h): expected
 * bytes and numbers come from this file, the reader or the man page.
 *
 * Shared values: Export Time 1700000000 s (0x6553f100) and the next
 * seconds; its NTP seconds 1700000000 + 2208988800 = 3908988800
 * (0xe8fe6f80); PEN 32473 (0x00007ed9, RFC 5612's documentation number).
 */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rocetel/rocetel.h>

#include "ipfix_expect.h"
#include "ipfix_read.h"

#define NS 1000000000ull
#define T0 (1700000000ull * NS) /* 2023-11-14T22:13:20Z */
#define PEN_DOC 32473u          /* RFC 5612 */
#define PEN_OTHER 0x89abcdefu   /* any other PEN, top bit set */
#define NELEMENTS 94            /* E1 .. E94 in rtel_ipfix(3) */
#define NTEMPLATES 10           /* 256 .. 265 */
#define TID_FIRST 256
#define TID_TYPES 266
#define NOF(a) (sizeof(a) / sizeof((a)[0]))

/* ---------------------------------------------------- man page tables */

/* rtel_ipfix(3), "Enterprise elements": id, name, informationElementDataType
 * (1 unsigned8, 2 unsigned16, 3 unsigned32, 4 unsigned64, 8 signed64),
 * Semantics (0 default, 1 quantity, 3 deltaCounter, 4 identifier, 5
 * flags), Units (0 none, 2 octets, 3 packets, 8 nanoseconds), the full
 * length of the type (1, 2, 4, 8 octets) and the description. */
typedef struct man_element {
  uint16_t id;
  const char *name;
  uint8_t type;
  uint8_t sem;
  uint16_t units;
  uint16_t len;
  const char *descr;
} man_element;

/* A row of a template table of rtel_ipfix(3): element id, 1 for "En"
 * (enterprise element n under the PEN), Len (65535: var.). */
typedef struct man_field {
  uint16_t id;
  uint8_t ent;
  uint16_t len;
} man_field;

static const man_element man_elements[NELEMENTS] = {
    {1, "rdmaDestinationQpn", 3, 4, 0, 4, /* u32 id none */
     "destination QP of the data packets"},
    {2, "rdmaPeerQpn", 3, 4, 0, 4, /* u32 id none */
     "reverse QP (ACKs, NAKs, CNPs); 4294967295 if unknown"},
    {3, "rdmaOperations", 1, 5, 0, 1, /* u8 flags none */
     "operations: 1 SEND, 2 RDMA WRITE, 4 RDMA READ RESPONSE"},
    {4, "rdmaFlowFlags", 3, 5, 0, 4, /* u32 flags none */
     "flags: 1 paired, 2 IPv6, 4 VLAN, 8 incomplete, 16 lost bound"},
    {5, "rdmaEndReason", 1, 4, 0, 1, /* u8 id none */
     "end: 1 idle 2 active 3 evicted 4 flush 5 truncated 6 acked "
     "7 settled 8 overflow"},
    {6, "rdmaFctNanoseconds", 4, 1, 8, 8, /* u64 quantity ns */
     "completion time: last minus first data packet, ns"},
    {7, "rdmaFetBitsPerSecond", 4, 1, 0, 8, /* u64 quantity none */
     "effective throughput on the wire, bit/s, resends excluded"},
    {8, "rdmaFnrPpm", 3, 1, 0, 4, /* u32 quantity none */
     "sequence-error NAKs per data packet, parts per million"},
    {9, "rdmaRetxRatioPpm", 3, 1, 0, 4, /* u32 quantity none */
     "retransmitted per data packet, parts per million"},
    {10, "rdmaRetxPacketCount", 4, 3, 3, 8, /* u64 delta packets */
     "retransmitted data packets"},
    {11, "rdmaRetxOctetCount", 4, 3, 2, 8, /* u64 delta octets */
     "payload octets of retransmitted data packets"},
    {12, "rdmaNakSeqCount", 4, 3, 0, 8, /* u64 delta none */
     "PSN sequence error NAKs"},
    {13, "rdmaNakRnrCount", 4, 3, 0, 8, /* u64 delta none */
     "receiver-not-ready NAKs"},
    {14, "rdmaNakFatalCount", 4, 3, 0, 8, /* u64 delta none */
     "fatal NAKs (invalid request, access, operation errors)"},
    {15, "rdmaCnpCount", 4, 3, 3, 8, /* u64 delta packets */
     "congestion notification packets to the sender"},
    {16, "rdmaEcnCeCount", 4, 3, 3, 8, /* u64 delta packets */
     "data packets marked ECN congestion experienced"},
    {17, "rdmaFecnCount", 4, 3, 3, 8, /* u64 delta packets */
     "data packets with the BTH FECN bit"},
    {18, "rdmaBecnCount", 4, 3, 3, 8, /* u64 delta packets */
     "ACKs and NAKs with the BTH BECN bit"},
    {19, "rdmaPsnGapCount", 4, 3, 0, 8, /* u64 delta none */
     "times a PSN jumped past the next expected one"},
    {20, "rdmaLossUpstreamCount", 4, 3, 0, 8, /* u64 delta none */
     "loss events before this observation point"},
    {21, "rdmaLossDownstreamCount", 4, 3, 0, 8, /* u64 delta none */
     "loss events after this observation point"},
    {22, "rdmaRetxAfterNakCount", 4, 3, 3, 8, /* u64 delta packets */
     "retransmissions after a sequence-error NAK"},
    {23, "rdmaRetxAfterTimeoutCount", 4, 3, 3, 8, /* u64 delta packets */
     "retransmissions after no NAK (timeout)"},
    {24, "rdmaRetxAfterRnrCount", 4, 3, 3, 8, /* u64 delta packets */
     "retransmissions after an RNR NAK"},
    {25, "rdmaLostUpstreamCount", 4, 3, 3, 8, /* u64 delta packets */
     "data packets lost before this observation point"},
    {26, "rdmaOrphanPacketCount", 4, 3, 3, 8, /* u64 delta packets */
     "resends after their message record was delivered"},
    {27, "rdmaMessageCount", 4, 3, 0, 8, /* u64 delta none */
     "messages that began in the flow"},
    {28, "rdmaCoverageStartNanoseconds", 4, 0, 8, 8, /* u64 default ns */
     "start of the port's measurement window, ns (exporter time base)"},
    {29, "rdmaCoverageEndNanoseconds", 4, 0, 8, 8, /* u64 default ns */
     "end of the port's measurement window, ns; all ones while open"},
    {30, "rdmaFirstPsn", 3, 4, 0, 4, /* u32 id none */
     "PSN of the message's first packet"},
    {31, "rdmaLastPsn", 3, 4, 0, 4, /* u32 id none */
     "PSN of the message's last packet"},
    {32, "rdmaRethLength", 3, 1, 2, 4, /* u32 quantity octets */
     "RETH DMA length of an RDMA WRITE (0 otherwise)"},
    {33, "rdmaLossNakCount", 4, 3, 0, 8, /* u64 delta none */
     "loss events after a sequence-error NAK"},
    {34, "rdmaLossRnrCount", 4, 3, 0, 8, /* u64 delta none */
     "loss events after an RNR NAK"},
    {35, "rdmaLossTimeoutCount", 4, 3, 0, 8, /* u64 delta none */
     "loss events after no NAK (timeout)"},
    {36, "nvmeIoState", 1, 4, 0, 1, /* u8 id none */
     "I/O: 1 complete 2 timeout 3 orphan 4 evicted 5 truncated"},
    {37, "nvmeIoFlags", 3, 5, 0, 4, /* u32 flags none */
     "flags: 1 IPv6 2 in-capsule 4 admin 8 fabrics 16 invalidate 32 qid"},
    {38, "nvmeHostQpn", 3, 4, 0, 4, /* u32 id none */
     "host QP (responses and data go to it); 4294967295 if unknown"},
    {39, "nvmeTargetQpn", 3, 4, 0, 4, /* u32 id none */
     "target QP (commands go to it); 4294967295 if unknown"},
    {40, "nvmeCommandId", 2, 4, 0, 2, /* u16 id none */
     "NVMe command identifier"},
    {41, "nvmeQueueId", 2, 4, 0, 2, /* u16 id none */
     "NVMe-oF queue id (valid with io flag 32)"},
    {42, "nvmeOpcode", 1, 4, 0, 1, /* u8 id none */
     "NVMe opcode (0 flush, 1 write, 2 read, 127 fabrics)"},
    {43, "nvmeFabricsType", 1, 4, 0, 1, /* u8 id none */
     "Fabrics command type (with io flag 8)"},
    {44, "nvmeStatus", 2, 4, 0, 2, /* u16 id none */
     "NVMe status field of the completion (0 success)"},
    {45, "nvmeNamespaceId", 3, 4, 0, 4, /* u32 id none */
     "namespace id (4294967295: every namespace)"},
    {46, "nvmeStartingLba", 4, 4, 0, 8, /* u64 id none */
     "first logical block"},
    {47, "nvmeBlockCount", 3, 1, 0, 4, /* u32 quantity none */
     "number of logical blocks"},
    {48, "nvmeIoLength", 4, 1, 2, 8, /* u64 quantity octets */
     "data length of the command"},
    {49, "nvmeCommandNanoseconds", 4, 0, 8, 8, /* u64 default ns */
     "C: first packet of the command capsule, ns; all ones if none"},
    {50, "nvmeResponseNanoseconds", 4, 0, 8, 8, /* u64 default ns */
     "R: first packet of the response capsule, ns; all ones if none"},
    {51, "nvmeDataFirstNanoseconds", 4, 0, 8, 8, /* u64 default ns */
     "D1/P1: first data packet, ns; all ones if none"},
    {52, "nvmeDataLastNanoseconds", 4, 0, 8, 8, /* u64 default ns */
     "Dn/Pn: last data packet up to R, ns; all ones if none"},
    {53, "nvmeReadRequestNanoseconds", 4, 0, 8, 8, /* u64 default ns */
     "Q: first RDMA READ REQUEST of a write, ns; all ones if none"},
    {54, "nvmeIolNanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "I/O latency R - C, ns; -2^63 if none"},
    {55, "nvmeDalNanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "data access latency, ns; -2^63 if none"},
    {56, "nvmeDplNanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "data preparation latency P1 - Q, ns; -2^63 if none"},
    {57, "nvmeTransferNanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "data transfer time, ns; -2^63 if none"},
    {58, "nvmeStorageObservationPoint", 3, 4, 0, 4, /* u32 id none */
     "storage-side point of a segment "
     "(the compute side is observationPointId)"},
    {59, "nvmeRolesConfigured", 1, 4, 0, 1, /* u8 id none */
     "1 if the points' roles were configured, 0 if inferred"},
    {60, "nvmeIol1Nanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "IOL at the compute-side point, ns"},
    {61, "nvmeIol2Nanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "IOL at the storage-side point, ns"},
    {62, "nvmeRttNanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "iol1 - iol2, ns"},
    {63, "nvmeComputeNanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "compute segment (DPL at the compute side for writes), ns"},
    {64, "nvmeNetworkNanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "network segment, ns"},
    {65, "nvmeStorageNanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "storage segment, ns"},
    {66, "nvmePeriodStartNanoseconds", 4, 0, 8, 8, /* u64 default ns */
     "start of the reporting period, ns"},
    {67, "nvmePeriodEndNanoseconds", 4, 0, 8, 8, /* u64 default ns */
     "end of the reporting period, ns"},
    {68, "nvmeIoCount", 4, 3, 0, 8, /* u64 delta none */
     "completed I/Os of the period"},
    {69, "nvmeIoErrorCount", 4, 3, 0, 8, /* u64 delta none */
     "completed I/Os with a non-zero status"},
    {70, "nvmeIoTimeoutCount", 4, 3, 0, 8, /* u64 delta none */
     "I/Os that ended without a response"},
    {71, "nvmeIolCount", 4, 3, 0, 8, /* u64 delta none */
     "I/Os with a IOL in the period"},
    {72, "nvmeIolMinNanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "smallest IOL of the period, ns"},
    {73, "nvmeIolMeanNanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "mean IOL of the period, ns"},
    {74, "nvmeIolP50Nanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "median IOL, ns (within 1.6 %)"},
    {75, "nvmeIolP90Nanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "90th percentile IOL, ns (within 1.6 %)"},
    {76, "nvmeIolP99Nanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "99th percentile IOL, ns (within 1.6 %)"},
    {77, "nvmeIolP999Nanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "99.9th percentile IOL, ns (within 1.6 %)"},
    {78, "nvmeIolMaxNanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "largest IOL of the period, ns"},
    {79, "nvmeDalCount", 4, 3, 0, 8, /* u64 delta none */
     "I/Os with a DAL in the period"},
    {80, "nvmeDalMinNanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "smallest DAL of the period, ns"},
    {81, "nvmeDalMeanNanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "mean DAL of the period, ns"},
    {82, "nvmeDalP50Nanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "median DAL, ns (within 1.6 %)"},
    {83, "nvmeDalP90Nanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "90th percentile DAL, ns (within 1.6 %)"},
    {84, "nvmeDalP99Nanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "99th percentile DAL, ns (within 1.6 %)"},
    {85, "nvmeDalP999Nanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "99.9th percentile DAL, ns (within 1.6 %)"},
    {86, "nvmeDalMaxNanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "largest DAL of the period, ns"},
    {87, "nvmeDplCount", 4, 3, 0, 8, /* u64 delta none */
     "I/Os with a DPL (writes) in the period"},
    {88, "nvmeDplMinNanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "smallest DPL (writes) of the period, ns"},
    {89, "nvmeDplMeanNanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "mean DPL (writes) of the period, ns"},
    {90, "nvmeDplP50Nanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "median DPL (writes), ns (within 1.6 %)"},
    {91, "nvmeDplP90Nanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "90th percentile DPL (writes), ns (within 1.6 %)"},
    {92, "nvmeDplP99Nanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "99th percentile DPL (writes), ns (within 1.6 %)"},
    {93, "nvmeDplP999Nanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "99.9th percentile DPL (writes), ns (within 1.6 %)"},
    {94, "nvmeDplMaxNanoseconds", 8, 1, 8, 8, /* s64 quantity ns */
     "largest DPL (writes) of the period, ns"},
};
static const man_field man_flow[] = {
    {148, 0, 8}, /* flowId */
    {138, 0, 8}, /* observationPointId */
    {8, 0, 4},   /* sourceIPv4Address */
    {12, 0, 4},  /* destinationIPv4Address */
    {7, 0, 2},   /* sourceTransportPort */
    {58, 0, 2},  /* vlanId */
    {195, 0, 1}, /* ipDiffServCodePoint */
    {10, 0, 4},  /* ingressInterface */
    {152, 0, 8}, /* flowStartMilliseconds */
    {153, 0, 8}, /* flowEndMilliseconds */
    {156, 0, 8}, /* flowStartNanoseconds */
    {157, 0, 8}, /* flowEndNanoseconds */
    {1, 0, 8},   /* octetDeltaCount */
    {2, 0, 8},   /* packetDeltaCount */
    {136, 0, 1}, /* flowEndReason */
    {1, 1, 4},   /* rdmaDestinationQpn */
    {2, 1, 4},   /* rdmaPeerQpn */
    {3, 1, 1},   /* rdmaOperations */
    {4, 1, 4},   /* rdmaFlowFlags */
    {5, 1, 1},   /* rdmaEndReason */
    {6, 1, 8},   /* rdmaFctNanoseconds */
    {7, 1, 8},   /* rdmaFetBitsPerSecond */
    {8, 1, 4},   /* rdmaFnrPpm */
    {9, 1, 4},   /* rdmaRetxRatioPpm */
    {10, 1, 8},  /* rdmaRetxPacketCount */
    {11, 1, 8},  /* rdmaRetxOctetCount */
    {12, 1, 8},  /* rdmaNakSeqCount */
    {13, 1, 8},  /* rdmaNakRnrCount */
    {14, 1, 8},  /* rdmaNakFatalCount */
    {15, 1, 8},  /* rdmaCnpCount */
    {16, 1, 8},  /* rdmaEcnCeCount */
    {17, 1, 8},  /* rdmaFecnCount */
    {18, 1, 8},  /* rdmaBecnCount */
    {19, 1, 8},  /* rdmaPsnGapCount */
    {20, 1, 8},  /* rdmaLossUpstreamCount */
    {21, 1, 8},  /* rdmaLossDownstreamCount */
    {22, 1, 8},  /* rdmaRetxAfterNakCount */
    {23, 1, 8},  /* rdmaRetxAfterTimeoutCount */
    {24, 1, 8},  /* rdmaRetxAfterRnrCount */
    {25, 1, 8},  /* rdmaLostUpstreamCount */
    {26, 1, 8},  /* rdmaOrphanPacketCount */
    {27, 1, 8},  /* rdmaMessageCount */
    {28, 1, 8},  /* rdmaCoverageStartNanoseconds */
    {29, 1, 8},  /* rdmaCoverageEndNanoseconds */
};
static const man_field man_msg[] = {
    {148, 0, 8}, /* flowId */
    {138, 0, 8}, /* observationPointId */
    {8, 0, 4},   /* sourceIPv4Address */
    {12, 0, 4},  /* destinationIPv4Address */
    {10, 0, 4},  /* ingressInterface */
    {152, 0, 8}, /* flowStartMilliseconds */
    {153, 0, 8}, /* flowEndMilliseconds */
    {156, 0, 8}, /* flowStartNanoseconds */
    {157, 0, 8}, /* flowEndNanoseconds */
    {1, 0, 8},   /* octetDeltaCount */
    {2, 0, 8},   /* packetDeltaCount */
    {136, 0, 1}, /* flowEndReason */
    {1, 1, 4},   /* rdmaDestinationQpn */
    {2, 1, 4},   /* rdmaPeerQpn */
    {3, 1, 1},   /* rdmaOperations */
    {4, 1, 4},   /* rdmaFlowFlags */
    {5, 1, 1},   /* rdmaEndReason */
    {30, 1, 4},  /* rdmaFirstPsn */
    {31, 1, 4},  /* rdmaLastPsn */
    {32, 1, 4},  /* rdmaRethLength */
    {6, 1, 8},   /* rdmaFctNanoseconds */
    {7, 1, 8},   /* rdmaFetBitsPerSecond */
    {10, 1, 8},  /* rdmaRetxPacketCount */
    {11, 1, 8},  /* rdmaRetxOctetCount */
    {12, 1, 8},  /* rdmaNakSeqCount */
    {13, 1, 8},  /* rdmaNakRnrCount */
    {14, 1, 8},  /* rdmaNakFatalCount */
    {15, 1, 8},  /* rdmaCnpCount */
    {16, 1, 8},  /* rdmaEcnCeCount */
    {20, 1, 8},  /* rdmaLossUpstreamCount */
    {21, 1, 8},  /* rdmaLossDownstreamCount */
    {33, 1, 8},  /* rdmaLossNakCount */
    {34, 1, 8},  /* rdmaLossRnrCount */
    {35, 1, 8},  /* rdmaLossTimeoutCount */
    {25, 1, 8},  /* rdmaLostUpstreamCount */
    {28, 1, 8},  /* rdmaCoverageStartNanoseconds */
    {29, 1, 8},  /* rdmaCoverageEndNanoseconds */
};
static const man_field man_io[] = {
    {148, 0, 8}, /* flowId */
    {138, 0, 8}, /* observationPointId */
    {8, 0, 4},   /* sourceIPv4Address */
    {12, 0, 4},  /* destinationIPv4Address */
    {10, 0, 4},  /* ingressInterface */
    {152, 0, 8}, /* flowStartMilliseconds */
    {153, 0, 8}, /* flowEndMilliseconds */
    {156, 0, 8}, /* flowStartNanoseconds */
    {157, 0, 8}, /* flowEndNanoseconds */
    {136, 0, 1}, /* flowEndReason */
    {36, 1, 1},  /* nvmeIoState */
    {37, 1, 4},  /* nvmeIoFlags */
    {38, 1, 4},  /* nvmeHostQpn */
    {39, 1, 4},  /* nvmeTargetQpn */
    {40, 1, 2},  /* nvmeCommandId */
    {41, 1, 2},  /* nvmeQueueId */
    {42, 1, 1},  /* nvmeOpcode */
    {43, 1, 1},  /* nvmeFabricsType */
    {44, 1, 2},  /* nvmeStatus */
    {45, 1, 4},  /* nvmeNamespaceId */
    {46, 1, 8},  /* nvmeStartingLba */
    {47, 1, 4},  /* nvmeBlockCount */
    {48, 1, 8},  /* nvmeIoLength */
    {49, 1, 8},  /* nvmeCommandNanoseconds */
    {50, 1, 8},  /* nvmeResponseNanoseconds */
    {51, 1, 8},  /* nvmeDataFirstNanoseconds */
    {52, 1, 8},  /* nvmeDataLastNanoseconds */
    {53, 1, 8},  /* nvmeReadRequestNanoseconds */
    {54, 1, 8},  /* nvmeIolNanoseconds */
    {55, 1, 8},  /* nvmeDalNanoseconds */
    {56, 1, 8},  /* nvmeDplNanoseconds */
    {57, 1, 8},  /* nvmeTransferNanoseconds */
    {28, 1, 8},  /* rdmaCoverageStartNanoseconds */
    {29, 1, 8},  /* rdmaCoverageEndNanoseconds */
};
static const man_field man_seg[] = {
    {148, 0, 8}, /* flowId */
    {138, 0, 8}, /* observationPointId */
    {8, 0, 4},   /* sourceIPv4Address */
    {12, 0, 4},  /* destinationIPv4Address */
    {58, 1, 4},  /* nvmeStorageObservationPoint */
    {37, 1, 4},  /* nvmeIoFlags */
    {59, 1, 1},  /* nvmeRolesConfigured */
    {39, 1, 4},  /* nvmeTargetQpn */
    {40, 1, 2},  /* nvmeCommandId */
    {42, 1, 1},  /* nvmeOpcode */
    {45, 1, 4},  /* nvmeNamespaceId */
    {46, 1, 8},  /* nvmeStartingLba */
    {48, 1, 8},  /* nvmeIoLength */
    {60, 1, 8},  /* nvmeIol1Nanoseconds */
    {61, 1, 8},  /* nvmeIol2Nanoseconds */
    {62, 1, 8},  /* nvmeRttNanoseconds */
    {63, 1, 8},  /* nvmeComputeNanoseconds */
    {64, 1, 8},  /* nvmeNetworkNanoseconds */
    {65, 1, 8},  /* nvmeStorageNanoseconds */
};
static const man_field man_agg[] = {
    {148, 0, 8}, /* flowId */
    {138, 0, 8}, /* observationPointId */
    {8, 0, 4},   /* sourceIPv4Address */
    {12, 0, 4},  /* destinationIPv4Address */
    {359, 0, 8}, /* monitoringIntervalStartMilliSeconds */
    {360, 0, 8}, /* monitoringIntervalEndMilliSeconds */
    {1, 0, 8},   /* octetDeltaCount */
    {37, 1, 4},  /* nvmeIoFlags */
    {42, 1, 1},  /* nvmeOpcode */
    {45, 1, 4},  /* nvmeNamespaceId */
    {66, 1, 8},  /* nvmePeriodStartNanoseconds */
    {67, 1, 8},  /* nvmePeriodEndNanoseconds */
    {68, 1, 8},  /* nvmeIoCount */
    {69, 1, 8},  /* nvmeIoErrorCount */
    {70, 1, 8},  /* nvmeIoTimeoutCount */
    {71, 1, 8},  /* nvmeIolCount */
    {72, 1, 8},  /* nvmeIolMinNanoseconds */
    {73, 1, 8},  /* nvmeIolMeanNanoseconds */
    {74, 1, 8},  /* nvmeIolP50Nanoseconds */
    {75, 1, 8},  /* nvmeIolP90Nanoseconds */
    {76, 1, 8},  /* nvmeIolP99Nanoseconds */
    {77, 1, 8},  /* nvmeIolP999Nanoseconds */
    {78, 1, 8},  /* nvmeIolMaxNanoseconds */
    {79, 1, 8},  /* nvmeDalCount */
    {80, 1, 8},  /* nvmeDalMinNanoseconds */
    {81, 1, 8},  /* nvmeDalMeanNanoseconds */
    {82, 1, 8},  /* nvmeDalP50Nanoseconds */
    {83, 1, 8},  /* nvmeDalP90Nanoseconds */
    {84, 1, 8},  /* nvmeDalP99Nanoseconds */
    {85, 1, 8},  /* nvmeDalP999Nanoseconds */
    {86, 1, 8},  /* nvmeDalMaxNanoseconds */
    {87, 1, 8},  /* nvmeDplCount */
    {88, 1, 8},  /* nvmeDplMinNanoseconds */
    {89, 1, 8},  /* nvmeDplMeanNanoseconds */
    {90, 1, 8},  /* nvmeDplP50Nanoseconds */
    {91, 1, 8},  /* nvmeDplP90Nanoseconds */
    {92, 1, 8},  /* nvmeDplP99Nanoseconds */
    {93, 1, 8},  /* nvmeDplP999Nanoseconds */
    {94, 1, 8},  /* nvmeDplMaxNanoseconds */
};
static const man_field man_types[] = {
    {346, 0, 4},     /* privateEnterpriseNumber */
    {303, 0, 2},     /* informationElementId */
    {339, 0, 1},     /* informationElementDataType */
    {344, 0, 1},     /* informationElementSemantics */
    {345, 0, 2},     /* informationElementUnits */
    {342, 0, 8},     /* informationElementRangeBegin */
    {343, 0, 8},     /* informationElementRangeEnd */
    {341, 0, 65535}, /* informationElementName */
    {340, 0, 65535}, /* informationElementDescription */
};

/* The data templates of rtel_ipfix(3), "Templates": ids 256 + 2 * type
 * (IPv4) and + 1 (IPv6), the record lengths the man page gives and the
 * RTEL_IPFIX_REC_* bit of each type. */
static const struct {
  const man_field *f;
  size_t n;
  size_t len4, len6;
  uint32_t rec;
} man_tmpl[5] = {
    {man_flow, NOF(man_flow), 280, 304, RTEL_IPFIX_REC_FLOW},
    {man_msg, NOF(man_msg), 239, 263, RTEL_IPFIX_REC_MSG},
    {man_io, NOF(man_io), 194, 218, RTEL_IPFIX_REC_IO},
    {man_seg, NOF(man_seg), 108, 132, RTEL_IPFIX_REC_SEGMENT},
    {man_agg, NOF(man_agg), 289, 313, RTEL_IPFIX_REC_AGGREGATE},
};

/* A man page row as it appears in the IPv4 (v6 = 0) or the IPv6 template:
 * sourceIPv6Address (27) and destinationIPv6Address (28), 16 octets, in
 * place of sourceIPv4Address (8) and destinationIPv4Address (12). */
static man_field man_row(unsigned type, int v6, size_t i) {
  man_field f = man_tmpl[type].f[i];
  if (v6 && !f.ent && (f.id == 8 || f.id == 12)) {
    f.id = f.id == 8 ? 27 : 28;
    f.len = 16;
  }
  return f;
}

static const man_element *man_element_of(uint16_t id) {
  size_t i;
  for (i = 0; i < NELEMENTS; i++) {
    if (man_elements[i].id == id) {
      return &man_elements[i];
    }
  }
  return NULL;
}

/* --------------------------------------------------------- byte checks */

static uint16_t get16(const uint8_t *p) {
  return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p) {
  return (uint32_t)get16(p) << 16 | get16(p + 2);
}

/* got[0..n) == want[0..n), or the first differing offset (from |base|,
 * the offset of got in its message) in the failure. */
#define ck_bytes(got, want, n, base)                                          \
  do {                                                                        \
    size_t i_;                                                                \
    for (i_ = 0; i_ < (size_t)(n); i_++) {                                    \
      ck_assert_msg((got)[i_] == (want)[i_],                                  \
                    "byte %zu (message offset %zu): 0x%02x, want 0x%02x", i_, \
                    (size_t)(base) + i_, (unsigned)(got)[i_],                 \
                    (unsigned)(want)[i_]);                                    \
    }                                                                         \
  } while (0)

/* ------------------------------------------------------- the messages */

/* The messages an encoder wrote, in order. */
#define MAXMSGS 4096
typedef struct wire {
  size_t n;
  uint8_t *m[MAXMSGS];
  size_t len[MAXMSGS];
} wire;

static void wire_add(wire *w, const uint8_t *b, size_t n) {
  ck_assert_uint_lt(w->n, MAXMSGS);
  w->m[w->n] = malloc(n);
  ck_assert_ptr_nonnull(w->m[w->n]);
  memcpy(w->m[w->n], b, n);
  w->len[w->n] = n;
  w->n++;
}

static void wire_free(wire *w) {
  size_t i;
  for (i = 0; i < w->n; i++) {
    free(w->m[i]);
  }
  w->n = 0;
}

/* An encoder, its message buffer and what it wrote. */
typedef struct sess {
  rtel_ipfix *enc;
  rtel_ipfix_settings s;
  uint8_t *buf;
  size_t buflen;
  int open;
  rtel_tstamp now;
  wire w;
} sess;

static void sess_init(sess *x, const rtel_ipfix_settings *s, size_t buflen) {
  memset(x, 0, sizeof(*x));
  x->s = *s;
  x->buflen = buflen;
  x->buf = malloc(buflen);
  ck_assert_ptr_nonnull(x->buf);
  x->now = T0;
  ck_assert_int_eq(rtel_ipfix_new(&x->enc, s, NULL), 0);
  ck_assert_ptr_nonnull(x->enc);
}

static void sess_free(sess *x) {
  rtel_ipfix_del(x->enc);
  free(x->buf);
  wire_free(&x->w);
}

static void sess_begin(sess *x) {
  ck_assert(!x->open);
  ck_assert_int_eq(rtel_ipfix_begin(x->enc, x->buf, x->buflen, x->now), 0);
  x->open = 1;
}

/* Ends the message begun; keeps it if it holds anything. Returns its
 * length. */
static size_t sess_end(sess *x) {
  rtel_ssize n = rtel_ipfix_end(x->enc);
  size_t cap = x->buflen < x->s.max_msg_len ? x->buflen : x->s.max_msg_len;
  ck_assert(x->open);
  x->open = 0;
  ck_assert_int_ge(n, 0);
  ck_assert_msg((size_t)n <= cap, "message of %zd bytes, cap %zu", n, cap);
  if (n > 0) {
    ck_assert_int_ge(n, 20); /* a header and a set header at least */
    wire_add(&x->w, x->buf, (size_t)n);
  }
  return (size_t)n;
}

/* Sends the templates due (begin, end, until none is due); returns the
 * number of messages. */
static size_t sess_control(sess *x) {
  size_t n = 0;
  while (rtel_ipfix_control_pending(x->enc)) {
    ck_assert_uint_lt(n, 100);
    sess_begin(x);
    ck_assert_uint_gt(sess_end(x), 0);
    n++;
    x->now += 1000000u; /* 1 ms between messages */
  }
  return n;
}

/* ------------------------------------------------------------ records */

enum { R_FLOW, R_MSG, R_IO, R_SEG, R_AGG, R_NTYPES };

typedef struct anyrec {
  unsigned type;
  union {
    rtel_flow_record flow;
    rtel_msg_record msg;
    rtel_io_record io;
    rtel_segment_record seg;
    rtel_io_aggregate agg;
  } u;
} anyrec;

static int add_any(rtel_ipfix *enc, const anyrec *r) {
  switch (r->type) {
  case R_FLOW:
    return rtel_ipfix_add_flow(enc, &r->u.flow);
  case R_MSG:
    return rtel_ipfix_add_msg(enc, &r->u.msg);
  case R_IO:
    return rtel_ipfix_add_io(enc, &r->u.io);
  case R_SEG:
    return rtel_ipfix_add_segment(enc, &r->u.seg);
  default:
    return rtel_ipfix_add_aggregate(enc, &r->u.agg);
  }
}

/* The exporter's loop (rtel_ipfix(3), "The message loop"): add; when the
 * message is full, end it and add to the next. A message that holds
 * nothing always takes the record. */
static void sess_put(sess *x, const anyrec *r) {
  int tries, rv, empty;
  for (tries = 0; tries < 64; tries++) {
    empty = 0;
    if (!x->open) {
      empty = !rtel_ipfix_control_pending(x->enc);
      sess_begin(x);
    }
    rv = add_any(x->enc, r);
    if (rv == 0) {
      return;
    }
    ck_assert_int_eq(rv, RTEL_ERR_BUFFER_FULL);
    ck_assert_msg(!empty, "RTEL_ERR_BUFFER_FULL in a message holding nothing");
    sess_end(x);
    x->now += 1000000u;
  }
  ck_abort_msg("the record never got into a message");
}

static uint64_t rnd(uint64_t *x) {
  *x = *x * 6364136223846793005ull + 1442695040888963407ull;
  return *x ^ (*x >> 29);
}

static void rnd_fill(void *p, size_t n, uint64_t *x) {
  uint8_t *b = p;
  size_t i;
  for (i = 0; i < n; i++) {
    b[i] = (uint8_t)(rnd(x) >> 40);
  }
}

/* A time: none, the epoch, now-ish, or past NTP era 0 (2036-02-07). */
static rtel_tstamp rnd_time(uint64_t *x) {
  uint64_t r = rnd(x);
  switch (r % 8) {
  case 0:
    return RTEL_TSTAMP_NONE;
  case 1:
    return r >> 40; /* 1970 */
  case 2:
    return 2085978496ull * NS + (r >> 20) % (1000 * NS); /* era 1 */
  default:
    return T0 + (r >> 8) % (1000000 * NS);
  }
}

static int64_t rnd_duration(uint64_t *x) {
  uint64_t r = rnd(x);
  if (r % 5 == 0) {
    return RTEL_DURATION_NONE;
  }
  return (int64_t)(r >> 1) * ((r & 2) ? -1 : 1);
}

/* Ratios for the ppm elements: in range, rounding cases, negative, NaN,
 * past 2^32 - 1 ppm. */
static double rnd_ratio(uint64_t *x) {
  static const double special[] = {0.0,   1.0,   0.25,   0.0000015,
                                   -0.5,  1e9,   4294.9, 4294.967296,
                                   1e-12, -1e-9, 0.5,    0.000123456};
  uint64_t r = rnd(x);
  if (r % 3 == 0) {
    return NAN;
  }
  if (r % 3 == 1) {
    return special[(r >> 8) % NOF(special)];
  }
  return (double)(r >> 11) / 9007199254740992.0; /* [0, 1) */
}

/* Addresses: an IPv4-mapped address for IPv4 (the encoder writes its last
 * four bytes), any 16 bytes for IPv6. */
static void rnd_addr(uint8_t a[16], int v6, uint64_t *x) {
  rnd_fill(a, 16, x);
  if (!v6) {
    memset(a, 0, 10);
    a[10] = a[11] = 0xff;
  }
}

/* Record |type| from |seed|: every byte random (reserved members too),
 * then the members with a meaning set to values that exercise it. The
 * IPv6 flag is set or cleared as |v6| says; the other flag bits stay
 * random (RTEL_FLOW_F_IPV6 is 0x2, RTEL_IO_F_IPV6 0x1: a record of one kind
 * read with the other's flag would land in the wrong template). */
static void make_rec(anyrec *a, unsigned type, int v6, uint64_t seed) {
  uint64_t x = seed * 0x9e3779b97f4a7c15ull + type;
  memset(a, 0, sizeof(*a));
  a->type = type;
  switch (type) {
  case R_FLOW: {
    rtel_flow_record *r = &a->u.flow;
    rnd_fill(r, sizeof(*r), &x);
    r->flags = (r->flags & ~RTEL_FLOW_F_IPV6) | (v6 ? RTEL_FLOW_F_IPV6 : 0);
    rnd_addr(r->src, v6, &x);
    rnd_addr(r->dst, v6, &x);
    r->end = (uint32_t)(seed % 10); /* 0 and 9: no such reason */
    r->first_ts = rnd_time(&x);
    r->last_ts = rnd_time(&x);
    r->fnr = rnd_ratio(&x);
    r->retx_ratio = rnd_ratio(&x);
    if (seed % 4 == 0) {
      r->peer_qpn = RTEL_QPN_NONE;
      r->coverage_end = RTEL_TSTAMP_NONE;
    }
    break;
  }
  case R_MSG: {
    rtel_msg_record *r = &a->u.msg;
    rnd_fill(r, sizeof(*r), &x);
    r->flags = (r->flags & ~RTEL_FLOW_F_IPV6) | (v6 ? RTEL_FLOW_F_IPV6 : 0);
    rnd_addr(r->src, v6, &x);
    rnd_addr(r->dst, v6, &x);
    r->end = (uint32_t)(seed % 10);
    r->first_ts = rnd_time(&x);
    r->last_ts = rnd_time(&x);
    break;
  }
  case R_IO: {
    rtel_io_record *r = &a->u.io;
    rnd_fill(r, sizeof(*r), &x);
    r->flags = (r->flags & ~RTEL_IO_F_IPV6) | (v6 ? RTEL_IO_F_IPV6 : 0);
    rnd_addr(r->host, v6, &x);
    rnd_addr(r->target, v6, &x);
    r->state = (uint32_t)(seed % 7); /* 1..5, and 0 and 6 */
    r->t_cmd = rnd_time(&x);
    r->t_rsp = rnd_time(&x);
    r->t_data_first = rnd_time(&x);
    r->t_data_last = rnd_time(&x);
    r->t_rdreq = rnd_time(&x);
    r->iol = rnd_duration(&x);
    r->dal = rnd_duration(&x);
    r->dpl = rnd_duration(&x);
    r->xfer = rnd_duration(&x);
    break;
  }
  case R_SEG: {
    rtel_segment_record *r = &a->u.seg;
    rnd_fill(r, sizeof(*r), &x);
    r->flags = (r->flags & ~RTEL_IO_F_IPV6) | (v6 ? RTEL_IO_F_IPV6 : 0);
    rnd_addr(r->host, v6, &x);
    rnd_addr(r->target, v6, &x);
    r->roles_configured = (uint32_t)(seed & 1);
    r->iol1 = rnd_duration(&x);
    break;
  }
  default: {
    rtel_io_aggregate *r = &a->u.agg;
    rnd_fill(r, sizeof(*r), &x);
    r->flags = (r->flags & ~RTEL_IO_F_IPV6) | (v6 ? RTEL_IO_F_IPV6 : 0);
    rnd_addr(r->host, v6, &x);
    rnd_addr(r->target, v6, &x);
    r->opcode = seed & 1 ? RTEL_NVME_OP_READ : RTEL_NVME_OP_WRITE;
    r->period_start = rnd_time(&x);
    r->period_end = rnd_time(&x);
    break;
  }
  }
}

static int rec_v6(const anyrec *a) {
  switch (a->type) {
  case R_FLOW:
    return (a->u.flow.flags & RTEL_FLOW_F_IPV6) != 0;
  case R_MSG:
    return (a->u.msg.flags & RTEL_FLOW_F_IPV6) != 0;
  case R_IO:
    return (a->u.io.flags & RTEL_IO_F_IPV6) != 0;
  case R_SEG:
    return (a->u.seg.flags & RTEL_IO_F_IPV6) != 0;
  default:
    return (a->u.agg.flags & RTEL_IO_F_IPV6) != 0;
  }
}

/* ipfix_expect's check of |rec| against |a| (flowId |fid|). */
static int expect_rec(const ipr_rec *rec, const anyrec *a, uint32_t pen,
                      uint64_t fid, char *err, size_t errlen) {
  switch (a->type) {
  case R_FLOW:
    return ipx_check_flow(rec, &a->u.flow, pen, fid, err, errlen);
  case R_MSG:
    return ipx_check_msg(rec, &a->u.msg, pen, fid, err, errlen);
  case R_IO:
    return ipx_check_io(rec, &a->u.io, pen, fid, err, errlen);
  case R_SEG:
    return ipx_check_segment(rec, &a->u.seg, pen, fid, err, errlen);
  default:
    return ipx_check_aggregate(rec, &a->u.agg, pen, fid, err, errlen);
  }
}

/* ------------------------------------------------------ reading back */

/* An RFC 5610 type record against the man page's element table: the
 * element exists, its type, semantics, units, name and description are
 * the man page's, its range is 0 to 0 (none). Sets seen[id]. */
static void check_type_record(const ipr_rec *rec, uint32_t pen,
                              unsigned seen[NELEMENTS + 1]) {
  ipr_ietype t;
  char err[256];
  const man_element *m;
  ck_assert_msg(ipr_ietype_get(rec, &t, err, sizeof(err)) == 1,
                "record of template %u is no type record: %s", rec->tid, err);
  ck_assert_uint_eq(t.pen, pen);
  m = man_element_of(t.id);
  ck_assert_msg(m != NULL, "type record of element %u, not in the man page",
                t.id);
  ck_assert_uint_eq(t.have, IPR_HAVE_TYPE | IPR_HAVE_SEMANTICS |
                                IPR_HAVE_UNITS | IPR_HAVE_NAME |
                                IPR_HAVE_DESCRIPTION | IPR_HAVE_RANGEBEGIN |
                                IPR_HAVE_RANGEEND);
  ck_assert_uint_eq(t.data_type, m->type);
  ck_assert_uint_eq(t.semantics, m->sem);
  ck_assert_uint_eq(t.units, m->units);
  ck_assert_uint_eq(t.range_begin, 0);
  ck_assert_uint_eq(t.range_end, 0);
  ck_assert_uint_eq(t.name_len, strlen(m->name));
  ck_assert_msg(memcmp(t.name, m->name, t.name_len) == 0, "name of E%u", t.id);
  ck_assert_uint_eq(t.description_len, strlen(m->descr));
  ck_assert_msg(memcmp(t.description, m->descr, t.description_len) == 0,
                "description of E%u", t.id);
  seen[t.id]++;
}

/* What read_wire() found. */
typedef struct readout {
  size_t nmsgs;
  size_t ndata;   /* data records of data templates */
  size_t ntypes;  /* RFC 5610 type records (options data records) */
  size_t ntdefs;  /* template records (options templates included) */
  size_t nopts;   /* options template records */
  uint64_t total; /* every data record, options data included */
} readout;

/*
 * Reads every message of |w| in order with reader |rd| (strict: its
 * sequence numbers must be the data records before it, the first 0,
 * unless |rd| says otherwise) and checks: the header's domain; each data
 * record against src[*next] with flowId *fid (both then advance); each
 * type record against the man page. Also checks, independently of the
 * reader, that every header carries the count of the data records
 * (options data included) of the messages before it, from *seq.
 */
static void read_wire(ipr_state *rd, const wire *w, size_t from, uint32_t pen,
                      uint32_t domain, const anyrec *src, size_t nsrc,
                      size_t *next, uint64_t *fid, uint32_t *seq, readout *out,
                      unsigned seen[NELEMENTS + 1]) {
  size_t i, j, k;
  char err[256];
  for (i = from; i < w->n; i++) {
    ipr_msg m;
    int rv = ipr_read_msg(rd, w->m[i], w->len[i], &m, err, sizeof(err));
    ck_assert_msg(rv == 0, "message %zu rejected: %s", i, err);
    ck_assert_uint_eq(m.hdr.version, 10);
    ck_assert_uint_eq(m.hdr.length, w->len[i]);
    ck_assert_uint_eq(m.hdr.domain, domain);
    ck_assert_uint_eq(get32(w->m[i] + 8), *seq);
    out->nmsgs++;
    out->ntdefs += m.ntdefs;
    for (j = 0; j < m.ntdefs; j++) {
      out->nopts += m.tdefs[j].scope_count > 0;
    }
    for (j = 0; j < m.nsets; j++) {
      const ipr_set *set = &m.sets[j];
      if (set->id < 256) {
        continue;
      }
      for (k = 0; k < set->count; k++) {
        const ipr_rec *r = &m.recs[set->first + k];
        if (r->tid == TID_TYPES) {
          check_type_record(r, pen, seen);
          out->ntypes++;
          continue;
        }
        ck_assert_msg(*next < nsrc, "more data records than were added");
        ck_assert_msg(
            expect_rec(r, &src[*next], pen, *fid, err, sizeof(err)) == 0,
            "record %zu (flowId %llu): %s", *next, (unsigned long long)*fid,
            err);
        ck_assert_uint_eq(r->tid, TID_FIRST + 2 * src[*next].type +
                                      (unsigned)rec_v6(&src[*next]));
        (*next)++;
        (*fid)++;
        out->ndata++;
      }
    }
    *seq += (uint32_t)m.nrecs;
    out->total += m.nrecs;
  }
}

static rtel_ipfix_settings settings(uint32_t flags, uint32_t max_msg_len) {
  rtel_ipfix_settings s;
  rtel_ipfix_settings_default(&s);
  s.flags = flags;
  s.max_msg_len = max_msg_len;
  return s;
}

/* ------------------------------------------------------- golden bytes */

/* The golden flow record: every member distinct, top bits set where a
 * byte-order or sign slip would show. */
/* ::ffff:a.b.c.d */
static void v4mapped(uint8_t out[16], uint8_t a, uint8_t b, uint8_t c,
                     uint8_t d) {
  memset(out, 0, 16);
  out[10] = out[11] = 0xff;
  out[12] = a, out[13] = b, out[14] = c, out[15] = d;
}

static void golden_flow(rtel_flow_record *r) {
  memset(r, 0, sizeof(*r));
  r->obs = 0x11223344u;
  r->flags = RTEL_FLOW_F_PAIRED | RTEL_FLOW_F_VLAN; /* 0x5 */
  v4mapped(r->src, 10, 0, 0, 1);
  v4mapped(r->dst, 192, 168, 1, 2);
  r->dqpn = 0x00c0ffeeu;
  r->peer_qpn = 0x00abcdefu;
  r->sport = 0xc123u;
  r->vlan = 0x0123u;
  r->dscp = 46;
  r->end = RTEL_END_ACKED;               /* 6 */
  r->ops = RTEL_OP_SEND | RTEL_OP_WRITE; /* 3 */
  r->first_ts = T0 + 123456789u;         /* 1700000000.123456789 s */
  r->last_ts = T0 + 1 * NS + 999999999u; /* 1700000001.999999999 s */
  r->fct = 1876543210u;                  /* last - first */
  r->bytes = 0x0102030405060708ull;
  r->packets = 4096;
  r->retx_packets = 3;
  r->retx_bytes = 3 * 4096;
  r->fet_bps = 100000000000ull; /* 100 Gbit/s */
  r->naks_seq = 0x21;
  r->naks_rnr = 0x22;
  r->naks_fatal = 0x23;
  r->cnps = 0x24;
  r->ecn_ce = 0x25;
  r->fecn = 0x26;
  r->becn = 0x27;
  r->psn_gaps = 0x28;
  r->losses_upstream = 0x29;
  r->losses_downstream = 0x2a;
  r->retx_after_nak = 0x2b;
  r->retx_after_timeout = 0x2c;
  r->retx_after_rnr = 0x2d;
  r->lost_upstream = 0x2e;
  r->orphan_packets = 0x2f;
  r->messages = 0x8000000000000030ull;
  r->fnr = 0.000123456;       /* 123.456 ppm */
  r->retx_ratio = 3.0 / 4096; /* 732.421875 ppm */
  r->port = 0xdeadbeefu;
  r->coverage_start = 1699999990ull * NS; /* raw ns */
  r->coverage_end = RTEL_TSTAMP_NONE;     /* still measured */
}

/* clang-format off */

/* Template 256 (rtel_ipfix(3), "Flow records: templates 256 and 257"),
 * as it stands at message offset 20, after the Message Header and the Set
 * Header of the Template Set: 4 + 15 * 4 + 29 * 8 = 296 bytes. Each
 * enterprise Field Specifier has the enterprise bit (0x8000) on its id and
 * the PEN after its length (RFC 7011 3.2). */
static const uint8_t GOLD_T256[296] = {
    0x01, 0x00, /* 20: Template ID 256 */
    0x00, 0x2c, /* 22: Field Count 44 */
    0x00, 0x94, 0x00, 0x08, /* 24: flowId (148), 8 */
    0x00, 0x8a, 0x00, 0x08, /* 28: observationPointId (138), 8 */
    0x00, 0x08, 0x00, 0x04, /* 32: sourceIPv4Address (8), 4 */
    0x00, 0x0c, 0x00, 0x04, /* 36: destinationIPv4Address (12), 4 */
    0x00, 0x07, 0x00, 0x02, /* 40: sourceTransportPort (7), 2 */
    0x00, 0x3a, 0x00, 0x02, /* 44: vlanId (58), 2 */
    0x00, 0xc3, 0x00, 0x01, /* 48: ipDiffServCodePoint (195), 1 */
    0x00, 0x0a, 0x00, 0x04, /* 52: ingressInterface (10), 4 */
    0x00, 0x98, 0x00, 0x08, /* 56: flowStartMilliseconds (152), 8 */
    0x00, 0x99, 0x00, 0x08, /* 60: flowEndMilliseconds (153), 8 */
    0x00, 0x9c, 0x00, 0x08, /* 64: flowStartNanoseconds (156), 8 */
    0x00, 0x9d, 0x00, 0x08, /* 68: flowEndNanoseconds (157), 8 */
    0x00, 0x01, 0x00, 0x08, /* 72: octetDeltaCount (1), 8 */
    0x00, 0x02, 0x00, 0x08, /* 76: packetDeltaCount (2), 8 */
    0x00, 0x88, 0x00, 0x01, /* 80: flowEndReason (136), 1 */
    0x80, 0x01, 0x00, 0x04, /* 84: E1 rdmaDestinationQpn, 4 */
    0x00, 0x00, 0x7e, 0xd9, /*      PEN 32473 */
    0x80, 0x02, 0x00, 0x04, /* 92: E2 rdmaPeerQpn, 4 */
    0x00, 0x00, 0x7e, 0xd9, /*      PEN 32473 */
    0x80, 0x03, 0x00, 0x01, /* 100: E3 rdmaOperations, 1 */
    0x00, 0x00, 0x7e, 0xd9, /*      PEN 32473 */
    0x80, 0x04, 0x00, 0x04, /* 108: E4 rdmaFlowFlags, 4 */
    0x00, 0x00, 0x7e, 0xd9, /*      PEN 32473 */
    0x80, 0x05, 0x00, 0x01, /* 116: E5 rdmaEndReason, 1 */
    0x00, 0x00, 0x7e, 0xd9, /*      PEN 32473 */
    0x80, 0x06, 0x00, 0x08, /* 124: E6 rdmaFctNanoseconds, 8 */
    0x00, 0x00, 0x7e, 0xd9, /*      PEN 32473 */
    0x80, 0x07, 0x00, 0x08, /* 132: E7 rdmaFetBitsPerSecond, 8 */
    0x00, 0x00, 0x7e, 0xd9, /*      PEN 32473 */
    0x80, 0x08, 0x00, 0x04, /* 140: E8 rdmaFnrPpm, 4 */
    0x00, 0x00, 0x7e, 0xd9, /*      PEN 32473 */
    0x80, 0x09, 0x00, 0x04, /* 148: E9 rdmaRetxRatioPpm, 4 */
    0x00, 0x00, 0x7e, 0xd9, /*      PEN 32473 */
    0x80, 0x0a, 0x00, 0x08, /* 156: E10 rdmaRetxPacketCount, 8 */
    0x00, 0x00, 0x7e, 0xd9, /*      PEN 32473 */
    0x80, 0x0b, 0x00, 0x08, /* 164: E11 rdmaRetxOctetCount, 8 */
    0x00, 0x00, 0x7e, 0xd9, /*      PEN 32473 */
    0x80, 0x0c, 0x00, 0x08, /* 172: E12 rdmaNakSeqCount, 8 */
    0x00, 0x00, 0x7e, 0xd9, /*      PEN 32473 */
    0x80, 0x0d, 0x00, 0x08, /* 180: E13 rdmaNakRnrCount, 8 */
    0x00, 0x00, 0x7e, 0xd9, /*      PEN 32473 */
    0x80, 0x0e, 0x00, 0x08, /* 188: E14 rdmaNakFatalCount, 8 */
    0x00, 0x00, 0x7e, 0xd9, /*      PEN 32473 */
    0x80, 0x0f, 0x00, 0x08, /* 196: E15 rdmaCnpCount, 8 */
    0x00, 0x00, 0x7e, 0xd9, /*      PEN 32473 */
    0x80, 0x10, 0x00, 0x08, /* 204: E16 rdmaEcnCeCount, 8 */
    0x00, 0x00, 0x7e, 0xd9, /*      PEN 32473 */
    0x80, 0x11, 0x00, 0x08, /* 212: E17 rdmaFecnCount, 8 */
    0x00, 0x00, 0x7e, 0xd9, /*      PEN 32473 */
    0x80, 0x12, 0x00, 0x08, /* 220: E18 rdmaBecnCount, 8 */
    0x00, 0x00, 0x7e, 0xd9, /*      PEN 32473 */
    0x80, 0x13, 0x00, 0x08, /* 228: E19 rdmaPsnGapCount, 8 */
    0x00, 0x00, 0x7e, 0xd9, /*      PEN 32473 */
    0x80, 0x14, 0x00, 0x08, /* 236: E20 rdmaLossUpstreamCount, 8 */
    0x00, 0x00, 0x7e, 0xd9, /*      PEN 32473 */
    0x80, 0x15, 0x00, 0x08, /* 244: E21 rdmaLossDownstreamCount, 8 */
    0x00, 0x00, 0x7e, 0xd9, /*      PEN 32473 */
    0x80, 0x16, 0x00, 0x08, /* 252: E22 rdmaRetxAfterNakCount, 8 */
    0x00, 0x00, 0x7e, 0xd9, /*      PEN 32473 */
    0x80, 0x17, 0x00, 0x08, /* 260: E23 rdmaRetxAfterTimeoutCount, 8 */
    0x00, 0x00, 0x7e, 0xd9, /*      PEN 32473 */
    0x80, 0x18, 0x00, 0x08, /* 268: E24 rdmaRetxAfterRnrCount, 8 */
    0x00, 0x00, 0x7e, 0xd9, /*      PEN 32473 */
    0x80, 0x19, 0x00, 0x08, /* 276: E25 rdmaLostUpstreamCount, 8 */
    0x00, 0x00, 0x7e, 0xd9, /*      PEN 32473 */
    0x80, 0x1a, 0x00, 0x08, /* 284: E26 rdmaOrphanPacketCount, 8 */
    0x00, 0x00, 0x7e, 0xd9, /*      PEN 32473 */
    0x80, 0x1b, 0x00, 0x08, /* 292: E27 rdmaMessageCount, 8 */
    0x00, 0x00, 0x7e, 0xd9, /*      PEN 32473 */
    0x80, 0x1c, 0x00, 0x08, /* 300: E28 rdmaCoverageStartNanoseconds, 8 */
    0x00, 0x00, 0x7e, 0xd9, /*      PEN 32473 */
    0x80, 0x1d, 0x00, 0x08, /* 308: E29 rdmaCoverageEndNanoseconds, 8 */
    0x00, 0x00, 0x7e, 0xd9, /*      PEN 32473 */
};

/* The data record of golden_flow() in template 256 with flowId
 * 0x0123456789abcdef: 280 bytes (offsets within the record). */
static const uint8_t GOLD_REC4[280] = {
    /*   0 flowId (148): 0x0123456789abcdef */
    0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
    /*   8 observationPointId (138), unsigned64: obs 0x11223344 */
    0x00, 0x00, 0x00, 0x00, 0x11, 0x22, 0x33, 0x44,
    0x0a, 0x00, 0x00, 0x01, /*  16 sourceIPv4Address 10.0.0.1 */
    0xc0, 0xa8, 0x01, 0x02, /*  20 destinationIPv4Address 192.168.1.2 */
    0xc1, 0x23,             /*  24 sourceTransportPort 0xc123 */
    0x01, 0x23,             /*  26 vlanId 0x123 */
    0x2e,                   /*  28 ipDiffServCodePoint 46 */
    0xde, 0xad, 0xbe, 0xef, /*  29 ingressInterface: port */
    /*  33 flowStartMilliseconds: 1700000000123456789 ns / 10^6, rounded
     *     down: 1700000000123 = 0x0000018bcfe5687b */
    0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x7b,
    /*  41 flowEndMilliseconds: 1700000001999 = 0x0000018bcfe56fcf */
    0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x6f, 0xcf,
    /*  49 flowStartNanoseconds: seconds 1700000000 + 2208988800 =
     *     3908988800 = 0xe8fe6f80; fraction floor(123456789 * 2^32 / 10^9)
     *     + 1 = floor(530242871.224) + 1 = 530242872 = 0x1f9add38 */
    0xe8, 0xfe, 0x6f, 0x80, 0x1f, 0x9a, 0xdd, 0x38,
    /*  57 flowEndNanoseconds: seconds 3908988801 = 0xe8fe6f81; fraction
     *     floor(999999999 * 2^32 / 10^9) + 1 = floor(4294967291.705) + 1
     *     = 4294967292 = 0xfffffffc */
    0xe8, 0xfe, 0x6f, 0x81, 0xff, 0xff, 0xff, 0xfc,
    /*  65 octetDeltaCount: bytes */
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
    /*  73 packetDeltaCount: 4096 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,
    0x03,                   /*  81 flowEndReason: ACKED -> 3 end detected */
    0x00, 0xc0, 0xff, 0xee, /*  82 E1 rdmaDestinationQpn */
    0x00, 0xab, 0xcd, 0xef, /*  86 E2 rdmaPeerQpn */
    0x03,                   /*  90 E3 rdmaOperations: SEND | WRITE */
    0x00, 0x00, 0x00, 0x05, /*  91 E4 rdmaFlowFlags: PAIRED | VLAN */
    0x06,                   /*  95 E5 rdmaEndReason: 6 acked */
    /*  96 E6 rdmaFctNanoseconds: 1876543210 = 0x6fd9c6ea */
    0x00, 0x00, 0x00, 0x00, 0x6f, 0xd9, 0xc6, 0xea,
    /* 104 E7 rdmaFetBitsPerSecond: 10^11 = 0x174876e800 */
    0x00, 0x00, 0x00, 0x17, 0x48, 0x76, 0xe8, 0x00,
    0x00, 0x00, 0x00, 0x7b, /* 112 E8 rdmaFnrPpm: 123.456 -> 123 */
    0x00, 0x00, 0x02, 0xdc, /* 116 E9 rdmaRetxRatioPpm: 732.42 -> 732 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, /* 120 E10 retx pkts */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x30, 0x00, /* 128 E11 retx bytes */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x21, /* 136 E12 naks_seq */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x22, /* 144 E13 naks_rnr */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x23, /* 152 E14 naks_fatal */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x24, /* 160 E15 cnps */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x25, /* 168 E16 ecn_ce */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x26, /* 176 E17 fecn */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x27, /* 184 E18 becn */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x28, /* 192 E19 psn_gaps */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x29, /* 200 E20 losses up */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2a, /* 208 E21 losses dn */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2b, /* 216 E22 after nak */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2c, /* 224 E23 after t/o */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2d, /* 232 E24 after rnr */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2e, /* 240 E25 lost up */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2f, /* 248 E26 orphans */
    0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x30, /* 256 E27 messages */
    /* 264 E28 rdmaCoverageStartNanoseconds: 1699999990 * 10^9 =
     *     0x17979cfbe21e1c00, raw */
    0x17, 0x97, 0x9c, 0xfb, 0xe2, 0x1e, 0x1c, 0x00,
    /* 272 E29 rdmaCoverageEndNanoseconds: RTEL_TSTAMP_NONE, all ones */
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

/* clang-format on */

/* Template length from a man page table: 4 (id, count) + 4 per IANA
 * field specifier + 8 per enterprise one (with its PEN). */
static size_t man_template_len(unsigned type) {
  size_t i, len = 4;
  for (i = 0; i < man_tmpl[type].n; i++) {
    len += man_tmpl[type].f[i].ent ? 8 : 4;
  }
  return len;
}

/* The Template Set of the golden messages (NO_TYPE_INFO, all in one
 * message): Set Header at 16, template 256 at 20, 257 at 316, ... The
 * lengths are those of the man page's tables: 296, 252, 236, 140 and 288
 * bytes, twice; the Set is 4 + 2 * 1212 = 2428 bytes. */
static void check_golden_templates(const uint8_t *buf) {
  uint8_t t257[296];
  size_t off = 20;
  unsigned t;
  ck_assert_uint_eq(man_template_len(0), 296);
  ck_assert_uint_eq(man_template_len(1), 252);
  ck_assert_uint_eq(man_template_len(2), 236);
  ck_assert_uint_eq(man_template_len(3), 140);
  ck_assert_uint_eq(man_template_len(4), 288);
  ck_bytes(buf + 20, GOLD_T256, 296, 20);
  /* 257: the same with sourceIPv6Address (27) and destinationIPv6Address
   * (28), 16 octets each, as its 3rd and 4th fields */
  memcpy(t257, GOLD_T256, sizeof(t257));
  t257[1] = 0x01;
  t257[12] = 0x00, t257[13] = 0x1b, t257[14] = 0x00, t257[15] = 0x10;
  t257[16] = 0x00, t257[17] = 0x1c, t257[18] = 0x00, t257[19] = 0x10;
  ck_bytes(buf + 316, t257, 296, 316);
  for (t = 0; t < NTEMPLATES; t++) {
    ck_assert_uint_eq(get16(buf + off), TID_FIRST + t);
    ck_assert_uint_eq(get16(buf + off + 2), man_tmpl[t / 2].n);
    off += man_template_len(t / 2);
  }
  ck_assert_uint_eq(off, 16 + 2428);
}

/* One message with NO_TYPE_INFO and room for everything: the header, the
 * ten templates, one IPv4 flow record. */
START_TEST(test_golden_flow_v4) {
  /* clang-format off */
  static const uint8_t hdr[20] = {
      0x00, 0x0a,             /*  0: Version 10 */
      0x0a, 0xa8,             /*  2: Length 2728 = 16 + 2428 + 284 */
      0x65, 0x53, 0xf1, 0x02, /*  4: Export Time 1700000002 (of .5 s) */
      0x00, 0x00, 0x00, 0x00, /*  8: Sequence Number 0 */
      0x0a, 0x0b, 0x0c, 0x0d, /* 12: Observation Domain ID 0x0a0b0c0d */
      0x00, 0x02,             /* 16: Set ID 2 (Template Set) */
      0x09, 0x7c,             /* 18: Length 2428 */
  };
  static const uint8_t dset[4] = {
      0x01, 0x00,             /* 2444: Set ID 256 */
      0x01, 0x1c,             /* 2446: Length 284 = 4 + 280 */
  };
  /* clang-format on */
  rtel_ipfix_settings s = settings(RTEL_IPFIX_NO_TYPE_INFO, 65535);
  rtel_ipfix *enc = NULL;
  rtel_flow_record r;
  static uint8_t buf[65535];
  ipr_state *rd = ipr_new(0);
  ipr_msg m;
  char err[256];
  s.domain_id = 0x0a0b0c0du;
  s.first_flow_id = 0x0123456789abcdefull;
  golden_flow(&r);
  ck_assert_int_eq(rtel_ipfix_new(&enc, &s, NULL), 0);
  ck_assert_int_eq(
      rtel_ipfix_begin(enc, buf, sizeof(buf), T0 + 2 * NS + NS / 2), 0);
  ck_assert_int_eq(rtel_ipfix_control_pending(enc), 0); /* all fitted */
  ck_assert_int_eq(rtel_ipfix_add_flow(enc, &r), 0);
  ck_assert_int_eq(rtel_ipfix_end(enc), 2728);
  ck_bytes(buf, hdr, 20, 0);
  check_golden_templates(buf);
  ck_bytes(buf + 2444, dset, 4, 2444);
  ck_bytes(buf + 2448, GOLD_REC4, 280, 2448);
  /* and the strict reader agrees */
  ck_assert_ptr_nonnull(rd);
  ck_assert_msg(ipr_read_msg(rd, buf, 2728, &m, err, sizeof(err)) == 0, "%s",
                err);
  ck_assert_uint_eq(m.ntdefs, NTEMPLATES);
  ck_assert_uint_eq(m.nrecs, 1);
  ck_assert_int_eq(ipx_check_flow(&m.recs[0], &r, PEN_DOC,
                                  0x0123456789abcdefull, err, sizeof(err)),
                   0);
  ipr_free(rd);
  rtel_ipfix_del(enc);
}
END_TEST

/* The same record as IPv6: template 257, 24 bytes longer. */
START_TEST(test_golden_flow_v6) {
  /* 2001:db8::1 and 2001:db8::2 */
  static const uint8_t a6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
                                 0,    0,    0,    0,    0, 0, 0, 1};
  static const uint8_t b6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
                                 0,    0,    0,    0,    0, 0, 0, 2};
  static const uint8_t len[2] = {0x0a, 0xc0}; /* 2752 = 16 + 2428 + 308 */
  static const uint8_t dset[4] = {0x01, 0x01, 0x01, 0x34}; /* 257, 308 */
  static const uint8_t flags[4] = {0, 0, 0, 0x07}; /* PAIRED|IPV6|VLAN */
  uint8_t want[304];
  rtel_ipfix_settings s = settings(RTEL_IPFIX_NO_TYPE_INFO, 65535);
  rtel_ipfix *enc = NULL;
  rtel_flow_record r;
  static uint8_t buf[65535];
  s.domain_id = 0x0a0b0c0du;
  s.first_flow_id = 0x0123456789abcdefull;
  golden_flow(&r);
  r.flags |= RTEL_FLOW_F_IPV6;
  memcpy(r.src, a6, 16);
  memcpy(r.dst, b6, 16);
  /* the IPv4 record with 16-byte addresses at 16 and 40, and flags 7 */
  memcpy(want, GOLD_REC4, 16);
  memcpy(want + 16, a6, 16);
  memcpy(want + 32, b6, 16);
  memcpy(want + 48, GOLD_REC4 + 24, 280 - 24);
  memcpy(want + 91 + 24, flags, 4);
  ck_assert_int_eq(rtel_ipfix_new(&enc, &s, NULL), 0);
  ck_assert_int_eq(rtel_ipfix_begin(enc, buf, sizeof(buf), T0 + 2 * NS), 0);
  ck_assert_int_eq(rtel_ipfix_add_flow(enc, &r), 0);
  ck_assert_int_eq(rtel_ipfix_end(enc), 2752);
  ck_bytes(buf + 2, len, 2, 2);
  check_golden_templates(buf);
  ck_bytes(buf + 2444, dset, 4, 2444);
  ck_bytes(buf + 2448, want, 304, 2448);
  rtel_ipfix_del(enc);
}
END_TEST

/*
 * Times (rtel_ipfix(3), "Times"): dateTimeMilliseconds is ns / 10^6
 * rounded down; dateTimeNanoseconds is NTP (RFC 5905): seconds since 1900
 * (modulo 2^32) and the fraction floor(sub * 2^32 / 10^9) + 1; none is 0.
 * Each message after the templates holds one flow record at offset 20:
 * flowStartMilliseconds at 20 + 33, flowEndMilliseconds at 20 + 41,
 * flowStartNanoseconds at 20 + 49, flowEndNanoseconds at 20 + 57.
 */
START_TEST(test_golden_times) {
  /* clang-format off */
  static const struct {
    rtel_tstamp ns;
    uint8_t ms[8];
    uint8_t ntp[8];
  } cases[] = {
      /* sub 0: 1700000000000 ms = 0x18bcfe56800; fraction 0 + 1 */
      {T0, {0, 0, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00},
       {0xe8, 0xfe, 0x6f, 0x80, 0x00, 0x00, 0x00, 0x01}},
      /* 1 ns: floor(4.295) + 1 = 5 */
      {T0 + 1, {0, 0, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00},
       {0xe8, 0xfe, 0x6f, 0x80, 0x00, 0x00, 0x00, 0x05}},
      /* 123456789 ns: 1700000000123 ms = 0x18bcfe5687b;
       * floor(530242871.224) + 1 = 530242872 = 0x1f9add38 */
      {T0 + 123456789u, {0, 0, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x7b},
       {0xe8, 0xfe, 0x6f, 0x80, 0x1f, 0x9a, 0xdd, 0x38}},
      /* half a second: 1700000000500 = 0x18bcfe569f4; exactly 2^31, + 1 */
      {T0 + 500000000u, {0, 0, 0x01, 0x8b, 0xcf, 0xe5, 0x69, 0xf4},
       {0xe8, 0xfe, 0x6f, 0x80, 0x80, 0x00, 0x00, 0x01}},
      /* 999999999 ns: 1700000000999 = 0x18bcfe56be7;
       * floor(4294967291.705) + 1 = 4294967292 = 0xfffffffc */
      {T0 + 999999999u, {0, 0, 0x01, 0x8b, 0xcf, 0xe5, 0x6b, 0xe7},
       {0xe8, 0xfe, 0x6f, 0x80, 0xff, 0xff, 0xff, 0xfc}},
      /* the Unix epoch: NTP seconds 2208988800 = 0x83aa7e80 */
      {0, {0, 0, 0, 0, 0, 0, 0, 0},
       {0x83, 0xaa, 0x7e, 0x80, 0x00, 0x00, 0x00, 0x01}},
      /* 2036-02-07 06:28:16 UTC + 5 ns: 2^32 - 2208988800 = 2085978496 s,
       * NTP seconds wrap to 0; floor(21.475) + 1 = 22 = 0x16;
       * 2085978496000 ms = 0x1e5ae01dc00 */
      {2085978496ull * NS + 5, {0, 0, 0x01, 0xe5, 0xae, 0x01, 0xdc, 0x00},
       {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x16}},
      /* none: 0 in both */
      {RTEL_TSTAMP_NONE, {0, 0, 0, 0, 0, 0, 0, 0},
       {0, 0, 0, 0, 0, 0, 0, 0}},
  };
  /* clang-format on */
  rtel_ipfix_settings s = settings(RTEL_IPFIX_NO_TYPE_INFO, 512);
  sess x;
  size_t i;
  sess_init(&x, &s, 512);
  sess_control(&x);
  for (i = 0; i < NOF(cases); i++) {
    rtel_flow_record r;
    golden_flow(&r);
    r.first_ts = cases[i].ns;
    r.last_ts = cases[i].ns;
    sess_begin(&x);
    ck_assert_int_eq(rtel_ipfix_add_flow(x.enc, &r), 0);
    ck_assert_uint_eq(sess_end(&x), 300); /* 16 + 4 + 280 */
    ck_assert_uint_eq(get16(x.buf + 16), 256);
    ck_bytes(x.buf + 20 + 33, cases[i].ms, 8, 20 + 33);
    ck_bytes(x.buf + 20 + 41, cases[i].ms, 8, 20 + 41);
    ck_bytes(x.buf + 20 + 49, cases[i].ntp, 8, 20 + 49);
    ck_bytes(x.buf + 20 + 57, cases[i].ntp, 8, 20 + 57);
  }
  sess_free(&x);
}
END_TEST

/* The first message with type information (defaults, 512 bytes): the
 * options template 266 (rtel_ipfix(3), "Type records: options template
 * 266") and the first type records (RFC 5610 3.9). */
START_TEST(test_golden_type_records) {
  /* clang-format off */
  static const uint8_t want[] = {
      0x65, 0x53, 0xf1, 0x00, /*  4: Export Time 1700000000 */
      0x00, 0x00, 0x00, 0x00, /*  8: Sequence Number 0 */
      0x00, 0x00, 0x00, 0x07, /* 12: Observation Domain ID 7 */
      0x00, 0x03,             /* 16: Set ID 3 (Options Template Set) */
      0x00, 0x2e,             /* 18: Length 46 = 4 + 6 + 9 * 4 */
      0x01, 0x0a,             /* 20: Template ID 266 */
      0x00, 0x09,             /* 22: Field Count 9 */
      0x00, 0x02,             /* 24: Scope Field Count 2 */
      0x01, 0x5a, 0x00, 0x04, /* 26: privateEnterpriseNumber (346), 4 */
      0x01, 0x2f, 0x00, 0x02, /* 30: informationElementId (303), 2 */
      0x01, 0x53, 0x00, 0x01, /* 34: informationElementDataType (339), 1 */
      0x01, 0x58, 0x00, 0x01, /* 38: informationElementSemantics (344) */
      0x01, 0x59, 0x00, 0x02, /* 42: informationElementUnits (345), 2 */
      0x01, 0x56, 0x00, 0x08, /* 46: informationElementRangeBegin (342) */
      0x01, 0x57, 0x00, 0x08, /* 50: informationElementRangeEnd (343) */
      0x01, 0x55, 0xff, 0xff, /* 54: informationElementName (341), var. */
      0x01, 0x54, 0xff, 0xff, /* 58: informationElementDescription (340) */
      0x01, 0x0a,             /* 62: Set ID 266; its length at 64 */
  };
  static const uint8_t e1[80] = {
      0x00, 0x00, 0x7e, 0xd9, /* 66: PEN 32473 (scope) */
      0x00, 0x01,             /* 70: element 1 (scope) */
      0x03,                   /* 72: unsigned32 */
      0x04,                   /* 73: identifier */
      0x00, 0x00,             /* 74: units none */
      0, 0, 0, 0, 0, 0, 0, 0, /* 76: range begin 0 */
      0, 0, 0, 0, 0, 0, 0, 0, /* 84: range end 0: no range */
      18,                     /* 92: name, 18 bytes */
      'r', 'd', 'm', 'a', 'D', 'e', 's', 't', 'i', 'n', 'a', 't', 'i', 'o',
      'n', 'Q', 'p', 'n',
      34,                     /* 111: description, 34 bytes */
      'd', 'e', 's', 't', 'i', 'n', 'a', 't', 'i', 'o', 'n', ' ', 'Q', 'P',
      ' ', 'o', 'f', ' ', 't', 'h', 'e', ' ', 'd', 'a', 't', 'a', ' ', 'p',
      'a', 'c', 'k', 'e', 't', 's',
  };
  static const uint8_t e2[10] = {
      0x00, 0x00, 0x7e, 0xd9, /* 146: PEN */
      0x00, 0x02,             /* 150: element 2 rdmaPeerQpn */
      0x03, 0x04, 0x00, 0x00, /* 152: unsigned32, identifier, none */
  };
  /* clang-format on */
  rtel_ipfix_settings s = settings(0, 512);
  sess x;
  size_t n;
  s.domain_id = 7;
  sess_init(&x, &s, 512);
  sess_begin(&x);
  n = sess_end(&x);
  ck_assert_uint_eq(get16(x.buf), 10);
  ck_assert_uint_eq(get16(x.buf + 2), n);
  ck_bytes(x.buf + 4, want, sizeof(want), 4);
  ck_assert_uint_eq(get16(x.buf + 64), n - 62); /* the Set fills it */
  ck_bytes(x.buf + 66, e1, sizeof(e1), 66);
  ck_bytes(x.buf + 146, e2, sizeof(e2), 146);
  sess_free(&x);
}
END_TEST

/* ------------------------------------------------------------ records */

/* Every record type in both address families, read back: first one record
 * of each in a message of its own, then many records of random contents
 * (none times, durations, ratios that round, clamp or are NaN, times past
 * NTP era 0, every end reason and I/O state). */
START_TEST(test_round_trip) {
  unsigned type;
  int v6;
  for (type = 0; type < R_NTYPES; type++) {
    for (v6 = 0; v6 <= 1; v6++) {
      rtel_ipfix_settings s = settings(0, 1452);
      static anyrec src[200];
      unsigned seen[NELEMENTS + 1];
      readout ro;
      size_t i, next = 0, nsrc = NOF(src);
      uint64_t fid;
      uint32_t seq = 0;
      ipr_state *rd = ipr_new(0);
      sess x;
      ck_assert_ptr_nonnull(rd);
      s.pen = PEN_OTHER;
      s.domain_id = 0xfedcba98u;
      s.first_flow_id = fid = ((uint64_t)type << 56) | 0x8000u;
      sess_init(&x, &s, 1452);
      sess_control(&x);
      for (i = 0; i < nsrc; i++) {
        make_rec(&src[i], type, v6, i);
        ck_assert_int_eq(rec_v6(&src[i]), v6);
      }
      /* one record, one message: template 256 + 2 * type (+ 1) */
      sess_begin(&x);
      ck_assert_int_eq(add_any(x.enc, &src[0]), 0);
      ck_assert_uint_eq(sess_end(&x),
                        16 + 4 +
                            (v6 ? man_tmpl[type].len6 : man_tmpl[type].len4));
      ck_assert_uint_eq(get16(x.buf + 16), 256 + 2 * type + (unsigned)v6);
      for (i = 1; i < nsrc; i++) {
        sess_put(&x, &src[i]);
      }
      if (x.open) {
        sess_end(&x);
      }
      memset(&ro, 0, sizeof(ro));
      memset(seen, 0, sizeof(seen));
      read_wire(rd, &x.w, 0, PEN_OTHER, 0xfedcba98u, src, nsrc, &next, &fid,
                &seq, &ro, seen);
      ck_assert_uint_eq(ro.ndata, nsrc);
      ck_assert_uint_eq(next, nsrc);
      ck_assert_uint_eq(fid, s.first_flow_id + nsrc);
      ck_assert_uint_eq(ro.ntypes, NELEMENTS);
      ck_assert_uint_eq(ro.total, NELEMENTS + nsrc);
      for (i = 1; i <= NELEMENTS; i++) {
        ck_assert_msg(seen[i] == 1, "E%zu described %u times", i, seen[i]);
      }
      ipr_free(rd);
      sess_free(&x);
    }
  }
}
END_TEST

/* The address family follows each type's own IPv6 flag: a flow with
 * RTEL_FLOW_F_PAIRED (0x1, RTEL_IO_F_IPV6's value) is IPv4; an I/O with
 * RTEL_IO_F_INCAPSULE (0x2, RTEL_FLOW_F_IPV6's value) is IPv4. */
START_TEST(test_address_family_flags) {
  rtel_ipfix_settings s = settings(RTEL_IPFIX_NO_TYPE_INFO, 65535);
  anyrec a[4];
  sess x;
  unsigned i;
  sess_init(&x, &s, 65535);
  sess_control(&x);
  make_rec(&a[0], R_FLOW, 0, 1);
  a[0].u.flow.flags = RTEL_FLOW_F_PAIRED;
  make_rec(&a[1], R_MSG, 0, 2);
  a[1].u.msg.flags = RTEL_FLOW_F_PAIRED;
  make_rec(&a[2], R_IO, 0, 3);
  a[2].u.io.flags = RTEL_IO_F_INCAPSULE;
  make_rec(&a[3], R_AGG, 0, 4);
  a[3].u.agg.flags = 0x2;
  for (i = 0; i < 4; i++) {
    static const uint16_t tid[4] = {256, 258, 260, 264};
    sess_begin(&x);
    ck_assert_int_eq(add_any(x.enc, &a[i]), 0);
    sess_end(&x);
    ck_assert_uint_eq(get16(x.buf + 16), tid[i]);
  }
  sess_free(&x);
}
END_TEST

/* The templates of the messages against the man page's tables: ids,
 * field specifiers in order (enterprise ones under the PEN), lengths, and
 * the record lengths the man page states. */
START_TEST(test_templates_match_man) {
  rtel_ipfix_settings s = settings(0, 1452);
  unsigned seen[NELEMENTS + 1] = {0};
  readout ro;
  size_t next = 0;
  uint64_t fid = 1;
  uint32_t seq = 0;
  unsigned t;
  size_t i;
  ipr_state *rd = ipr_new(0);
  const ipr_template *tp;
  sess x;
  s.pen = PEN_OTHER;
  s.domain_id = 99;
  sess_init(&x, &s, 1452);
  sess_control(&x);
  memset(&ro, 0, sizeof(ro));
  read_wire(rd, &x.w, 0, PEN_OTHER, 99, NULL, 0, &next, &fid, &seq, &ro, seen);
  ck_assert_uint_eq(ro.ntdefs, NTEMPLATES + 1);
  ck_assert_uint_eq(ro.nopts, 1);
  for (t = 0; t < NTEMPLATES; t++) {
    size_t len = 0;
    tp = ipr_template_get(rd, 99, (uint16_t)(TID_FIRST + t));
    ck_assert_msg(tp != NULL, "no template %u", TID_FIRST + t);
    ck_assert_uint_eq(tp->scope_count, 0);
    ck_assert_uint_eq(tp->nfields, man_tmpl[t / 2].n);
    for (i = 0; i < tp->nfields; i++) {
      man_field f = man_row(t / 2, (int)(t & 1), i);
      ck_assert_msg(tp->fields[i].id == f.id &&
                        tp->fields[i].pen == (f.ent ? PEN_OTHER : 0) &&
                        tp->fields[i].tlen == f.len,
                    "template %u field %zu: %u/%u len %u, want %u/%u len %u",
                    TID_FIRST + t, i, tp->fields[i].pen, tp->fields[i].id,
                    tp->fields[i].tlen, f.ent ? PEN_OTHER : 0, f.id, f.len);
      if (f.ent) {
        /* "encoded in the full length of its type" */
        const man_element *m = man_element_of(f.id);
        ck_assert_ptr_nonnull(m);
        ck_assert_uint_eq(f.len, m->len);
      }
      len += f.len;
    }
    ck_assert_uint_eq(len,
                      t & 1 ? man_tmpl[t / 2].len6 : man_tmpl[t / 2].len4);
    ck_assert_uint_eq(tp->min_len, len);
  }
  /* the options template of the type records */
  tp = ipr_template_get(rd, 99, TID_TYPES);
  ck_assert_ptr_nonnull(tp);
  ck_assert_uint_eq(tp->scope_count, 2);
  ck_assert_uint_eq(tp->nfields, NOF(man_types));
  for (i = 0; i < NOF(man_types); i++) {
    ck_assert_uint_eq(tp->fields[i].id, man_types[i].id);
    ck_assert_uint_eq(tp->fields[i].pen, 0);
    ck_assert_uint_eq(tp->fields[i].tlen, man_types[i].len);
  }
  ck_assert(ipr_template_get(rd, 99, TID_TYPES + 1) == NULL);
  ipr_free(rd);
  sess_free(&x);
}
END_TEST

/* Consecutive records of one template share a data set; another template
 * opens a new one (rtel_ipfix(3)). */
START_TEST(test_sets) {
  rtel_ipfix_settings s = settings(RTEL_IPFIX_NO_TYPE_INFO, 65535);
  static const struct {
    unsigned type;
    int v6;
  } seq[7] = {{R_FLOW, 0}, {R_FLOW, 0}, {R_MSG, 0}, {R_FLOW, 0},
              {R_SEG, 1},  {R_SEG, 1},  {R_SEG, 0}};
  /* sets: 256 x2, 258, 256, 263 x2, 262 */
  static const struct {
    uint16_t id, len;
  } sets[5] = {{256, 4 + 2 * 280},
               {258, 4 + 239},
               {256, 4 + 280},
               {263, 4 + 2 * 132},
               {262, 4 + 108}};
  anyrec a;
  sess x;
  size_t i, off = 16;
  sess_init(&x, &s, 65535);
  sess_control(&x);
  sess_begin(&x);
  for (i = 0; i < NOF(seq); i++) {
    make_rec(&a, seq[i].type, seq[i].v6, i);
    ck_assert_int_eq(add_any(x.enc, &a), 0);
  }
  ck_assert_uint_eq(sess_end(&x), 16 + 564 + 243 + 284 + 268 + 112);
  for (i = 0; i < NOF(sets); i++) {
    ck_assert_uint_eq(get16(x.buf + off), sets[i].id);
    ck_assert_uint_eq(get16(x.buf + off + 2), sets[i].len);
    off += sets[i].len;
  }
  sess_free(&x);
}
END_TEST

/* flowIds: first_flow_id (0 means 0), one per record whatever its
 * template; a refused record takes none; reset() does not restart them;
 * they wrap modulo 2^64. */
START_TEST(test_flow_ids) {
  rtel_ipfix_settings s = settings(RTEL_IPFIX_NO_TYPE_INFO, 512);
  anyrec a;
  sess x;
  unsigned i;
  static const uint8_t id0[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  static const uint8_t id1[8] = {0, 0, 0, 0, 0, 0, 0, 1};
  static const uint8_t id3[8] = {0, 0, 0, 0, 0, 0, 0, 3};
  static const uint8_t idmax[8] = {0xff, 0xff, 0xff, 0xff,
                                   0xff, 0xff, 0xff, 0xff};
  s.first_flow_id = 0;
  sess_init(&x, &s, 512);
  sess_control(&x);
  make_rec(&a, R_FLOW, 0, 1);
  sess_begin(&x);
  ck_assert_int_eq(add_any(x.enc, &a), 0);                    /* 0 */
  ck_assert_int_eq(add_any(x.enc, &a), RTEL_ERR_BUFFER_FULL); /* none */
  ck_assert_uint_eq(sess_end(&x), 300);
  ck_bytes(x.buf + 20, id0, 8, 20);
  make_rec(&a, R_SEG, 1, 2);
  sess_begin(&x);
  ck_assert_int_eq(add_any(x.enc, &a), 0); /* 1 */
  sess_end(&x);
  ck_bytes(x.buf + 20, id1, 8, 20);
  /* reset: the record begun is abandoned, its flowId (2) spent */
  sess_begin(&x);
  ck_assert_int_eq(add_any(x.enc, &a), 0);
  rtel_ipfix_reset(x.enc);
  x.open = 0;
  ck_assert_int_eq(rtel_ipfix_control_pending(x.enc), 1);
  sess_control(&x);
  sess_begin(&x);
  ck_assert_int_eq(add_any(x.enc, &a), 0);
  sess_end(&x);
  ck_bytes(x.buf + 20, id3, 8, 20);
  sess_free(&x);
  /* wrap */
  s.first_flow_id = UINT64_MAX;
  sess_init(&x, &s, 512);
  sess_control(&x);
  for (i = 0; i < 2; i++) {
    sess_begin(&x);
    ck_assert_int_eq(add_any(x.enc, &a), 0);
    sess_end(&x);
    ck_bytes(x.buf + 20, i == 0 ? idmax : id0, 8, 20);
  }
  sess_free(&x);
}
END_TEST

/* ----------------------------------------------------------- messages */

/*
 * Sequence numbers (RFC 7011 3.1; rtel_ipfix(3), "Sequence numbers"): the
 * data records, options data records included, of the earlier messages of
 * the session. With type information the templates carry 94 type records
 * (one per element, E1 .. E94), so the first data message says 94; each
 * data message then adds its records; reset() starts at 0 again.
 */
START_TEST(test_sequence_numbers) {
  rtel_ipfix_settings s = settings(0, 512);
  static anyrec src[30];
  unsigned seen[NELEMENTS + 1] = {0};
  readout ro;
  size_t i, from, next = 0;
  uint64_t fid = 1;
  uint32_t seq = 0;
  ipr_state *rd = ipr_new(0);
  sess x;
  s.domain_id = 3;
  sess_init(&x, &s, 512);
  ck_assert_uint_gt(sess_control(&x), 1);
  for (i = 0; i < x.w.n; i++) {
    ck_assert_uint_eq(get32(x.w.m[i] + 12), 3);
  }
  ck_assert_uint_eq(get32(x.w.m[0] + 8), 0);
  for (i = 0; i < NOF(src); i++) {
    make_rec(&src[i], (unsigned)i % R_NTYPES, (int)(i / 5) % 2, i);
  }
  from = x.w.n;
  /* one flow (300 bytes) per 512-byte message */
  for (i = 0; i < 3; i++) {
    sess_put(&x, &src[0]);
  }
  sess_end(&x);
  ck_assert_uint_eq(x.w.n, from + 3);
  ck_assert_uint_eq(get32(x.w.m[from] + 8), 94);
  ck_assert_uint_eq(get32(x.w.m[from + 1] + 8), 95);
  ck_assert_uint_eq(get32(x.w.m[from + 2] + 8), 96);
  /* mixed records, several per message */
  for (i = 0; i < NOF(src); i++) {
    sess_put(&x, &src[i]);
  }
  sess_end(&x);
  {
    static anyrec all[33];
    for (i = 0; i < 3; i++) {
      all[i] = src[0];
    }
    for (i = 0; i < NOF(src); i++) {
      all[3 + i] = src[i];
    }
    memset(&ro, 0, sizeof(ro));
    read_wire(rd, &x.w, 0, PEN_DOC, 3, all, NOF(all), &next, &fid, &seq, &ro,
              seen);
    ck_assert_uint_eq(ro.ntypes, 94);
    ck_assert_uint_eq(ro.ndata, 33);
    ck_assert_uint_eq(seq, 94 + 33);
  }
  /* a new transport session: 0 again, templates and type records due */
  rtel_ipfix_reset(x.enc);
  ck_assert_int_eq(rtel_ipfix_control_pending(x.enc), 1);
  ipr_reset(rd);
  from = x.w.n;
  sess_control(&x);
  ck_assert_uint_eq(get32(x.w.m[from] + 8), 0);
  sess_put(&x, &src[1]);
  sess_end(&x);
  ck_assert_uint_eq(get32(x.w.m[x.w.n - 1] + 8), 94);
  memset(&ro, 0, sizeof(ro));
  memset(seen, 0, sizeof(seen));
  seq = 0;
  next = 1;
  read_wire(rd, &x.w, from, PEN_DOC, 3, src, 2, &next, &fid, &seq, &ro, seen);
  ck_assert_uint_eq(ro.ntypes, 94);
  ck_assert_uint_eq(ro.ndata, 1);
  ipr_free(rd);
  sess_free(&x);
}
END_TEST

/* Without type information the templates carry no data record: every
 * message says 0 until the first data message has gone. */
START_TEST(test_sequence_no_type_info) {
  rtel_ipfix_settings s = settings(RTEL_IPFIX_NO_TYPE_INFO, 65535);
  anyrec a;
  sess x;
  size_t i;
  sess_init(&x, &s, 65535);
  sess_begin(&x);
  make_rec(&a, R_SEG, 0, 5);
  for (i = 0; i < 5; i++) {
    ck_assert_int_eq(add_any(x.enc, &a), 0);
  }
  sess_end(&x);
  ck_assert_uint_eq(get32(x.buf + 8), 0);
  sess_begin(&x);
  ck_assert_int_eq(add_any(x.enc, &a), 0);
  sess_end(&x);
  ck_assert_uint_eq(get32(x.buf + 8), 5);
  /* an empty message (end returns 0) counts nothing */
  sess_begin(&x);
  ck_assert_uint_eq(sess_end(&x), 0);
  sess_begin(&x);
  ck_assert_int_eq(add_any(x.enc, &a), 0);
  sess_end(&x);
  ck_assert_uint_eq(get32(x.buf + 8), 6);
  sess_free(&x);
}
END_TEST

/* control_pending(): 1 after new() and reset() until the last template is
 * written; records are refused (BUFFER_FULL) while templates are due;
 * the man page's message counts: 26 of 512 bytes, 8 of 1452. */
START_TEST(test_control_pending) {
  rtel_ipfix_settings s = settings(0, 512);
  anyrec a;
  sess x;
  size_t n;
  ck_assert_int_eq(rtel_ipfix_control_pending(NULL), 0);
  make_rec(&a, R_SEG, 0, 1);
  sess_init(&x, &s, 512);
  ck_assert_int_eq(rtel_ipfix_control_pending(x.enc), 1);
  sess_begin(&x);
  ck_assert_int_eq(add_any(x.enc, &a), RTEL_ERR_BUFFER_FULL);
  ck_assert_int_eq(rtel_ipfix_control_pending(x.enc), 1);
  sess_end(&x);
  n = 1 + sess_control(&x);
  ck_assert_uint_eq(n, 26);
  ck_assert_int_eq(rtel_ipfix_control_pending(x.enc), 0);
  sess_begin(&x);
  ck_assert_int_eq(add_any(x.enc, &a), 0);
  sess_end(&x);
  rtel_ipfix_reset(x.enc);
  ck_assert_int_eq(rtel_ipfix_control_pending(x.enc), 1);
  sess_free(&x);

  s.max_msg_len = 1452;
  sess_init(&x, &s, 1452);
  ck_assert_uint_eq(sess_control(&x), 8);
  sess_free(&x);
}
END_TEST

/*
 * 512-byte messages: a record that does not fit is refused whole and
 * changes nothing; it fits in the next message. Lengths by hand: header
 * 16, Set Header 4, flow 280, segment 108 (IPv4) or 132 (IPv6).
 */
START_TEST(test_buffer_full) {
  rtel_ipfix_settings s = settings(RTEL_IPFIX_NO_TYPE_INFO, 512);
  anyrec f, g4, g6;
  sess x;
  s.first_flow_id = 100;
  sess_init(&x, &s, 65535); /* the buffer is larger: max_msg_len caps */
  sess_control(&x);
  make_rec(&f, R_FLOW, 0, 1);
  make_rec(&g4, R_SEG, 0, 2);
  make_rec(&g6, R_SEG, 1, 3);
  sess_begin(&x);
  ck_assert_int_eq(add_any(x.enc, &f), 0); /* 16 + 4 + 280 = 300 */
  ck_assert_int_eq(add_any(x.enc, &f), RTEL_ERR_BUFFER_FULL); /* 580 */
  ck_assert_int_eq(add_any(x.enc, &g4), 0); /* 300 + 4 + 108 = 412 */
  ck_assert_int_eq(add_any(x.enc, &g4), RTEL_ERR_BUFFER_FULL); /* 520 */
  ck_assert_int_eq(add_any(x.enc, &g6), RTEL_ERR_BUFFER_FULL); /* 548 */
  ck_assert_uint_eq(sess_end(&x), 412);
  ck_assert_uint_eq(get32(x.buf + 20 + 4), 100);  /* low flowId */
  ck_assert_uint_eq(get32(x.buf + 304 + 4), 101); /* the segment's */
  sess_begin(&x);
  ck_assert_int_eq(add_any(x.enc, &f), 0);
  ck_assert_uint_eq(sess_end(&x), 300);
  ck_assert_uint_eq(get32(x.buf + 20 + 4), 102); /* refusals took none */
  ck_assert_uint_eq(get32(x.buf + 8), 2);

  /* exactly 512: 16 + (4 + 108) + (4 + 132) + (4 + 108) + (4 + 132) */
  sess_begin(&x);
  ck_assert_int_eq(add_any(x.enc, &g4), 0);
  ck_assert_int_eq(add_any(x.enc, &g6), 0);
  ck_assert_int_eq(add_any(x.enc, &g4), 0);
  ck_assert_int_eq(add_any(x.enc, &g6), 0);                    /* 512: fits */
  ck_assert_int_eq(add_any(x.enc, &g6), RTEL_ERR_BUFFER_FULL); /* 644 */
  ck_assert_uint_eq(sess_end(&x), 512);
  sess_free(&x);
}
END_TEST

/* 1000 records of every type and family through 512-byte messages: no
 * message is longer, every message passes the strict reader (sequence
 * numbers included), and the records come back in order, each once, with
 * consecutive flowIds from first_flow_id. */
START_TEST(test_size_cap) {
  static anyrec src[1000];
  unsigned seen[NELEMENTS + 1] = {0};
  rtel_ipfix_settings s = settings(0, 512);
  readout ro;
  size_t i, next = 0;
  uint64_t fid = 5ull << 48;
  uint32_t seq = 0;
  ipr_state *rd = ipr_new(0);
  sess x;
  s.first_flow_id = fid;
  s.domain_id = 0x80000001u;
  sess_init(&x, &s, 65535);
  for (i = 0; i < NOF(src); i++) {
    make_rec(&src[i], (unsigned)(i * 7 / 3) % R_NTYPES, (int)(i / 3) % 2,
             i + 77);
    sess_put(&x, &src[i]);
  }
  sess_end(&x);
  for (i = 0; i < x.w.n; i++) {
    ck_assert_uint_le(x.w.len[i], 512);
  }
  memset(&ro, 0, sizeof(ro));
  read_wire(rd, &x.w, 0, PEN_DOC, 0x80000001u, src, NOF(src), &next, &fid,
            &seq, &ro, seen);
  ck_assert_uint_eq(ro.ndata, 1000);
  ck_assert_uint_eq(next, 1000);
  ck_assert_uint_eq(fid, (5ull << 48) + 1000);
  ck_assert_uint_eq(ro.ntypes, 94);
  ipr_free(rd);
  sess_free(&x);
}
END_TEST

/* A buffer smaller than max_msg_len caps the messages too. */
START_TEST(test_buffer_caps) {
  static anyrec src[300];
  unsigned seen[NELEMENTS + 1] = {0};
  rtel_ipfix_settings s = settings(0, 65535);
  readout ro;
  size_t i, next = 0;
  uint64_t fid = 1;
  uint32_t seq = 0;
  ipr_state *rd = ipr_new(0);
  sess x;
  sess_init(&x, &s, 700);
  for (i = 0; i < NOF(src); i++) {
    make_rec(&src[i], (unsigned)i % R_NTYPES, (int)(i % 2), i);
    sess_put(&x, &src[i]);
  }
  sess_end(&x);
  for (i = 0; i < x.w.n; i++) {
    ck_assert_uint_le(x.w.len[i], 700);
  }
  memset(&ro, 0, sizeof(ro));
  read_wire(rd, &x.w, 0, PEN_DOC, 0, src, NOF(src), &next, &fid, &seq, &ro,
            seen);
  ck_assert_uint_eq(ro.ndata, NOF(src));
  ipr_free(rd);
  sess_free(&x);
}
END_TEST

/* ------------------------------------------------------------ RFC 5610 */

/* The templates due go out in order: the options template 266, the 94 type
 * records, then the data templates; nothing else meanwhile. */
START_TEST(test_type_records_first) {
  rtel_ipfix_settings s = settings(0, 512);
  unsigned seen[NELEMENTS + 1] = {0};
  size_t i, j, ntypes = 0, ntmpl = 0;
  int phase = 0; /* 0: before 266, 1: type records, 2: data templates */
  ipr_state *rd = ipr_new(0);
  sess x;
  char err[256];
  s.pen = PEN_OTHER;
  sess_init(&x, &s, 512);
  sess_control(&x);
  for (i = 0; i < x.w.n; i++) {
    ipr_msg m;
    ck_assert_msg(
        ipr_read_msg(rd, x.w.m[i], x.w.len[i], &m, err, sizeof(err)) == 0,
        "%s", err);
    for (j = 0; j < m.nsets; j++) {
      const ipr_set *set = &m.sets[j];
      if (set->id == 3) {
        ck_assert_int_eq(phase, 0);
        ck_assert_uint_eq(set->count, 1);
        ck_assert_uint_eq(m.tdefs[set->first].tid, TID_TYPES);
        phase = 1;
      } else if (set->id == TID_TYPES) {
        size_t k;
        ck_assert_int_eq(phase, 1);
        for (k = 0; k < set->count; k++) {
          check_type_record(&m.recs[set->first + k], PEN_OTHER, seen);
        }
        ntypes += set->count;
      } else if (set->id == 2) {
        size_t k;
        ck_assert_msg(phase >= 1 && ntypes == NELEMENTS,
                      "a data template before the type records");
        phase = 2;
        for (k = 0; k < set->count; k++) {
          ck_assert_uint_eq(m.tdefs[set->first + k].tid, TID_FIRST + ntmpl);
          ntmpl++;
        }
      } else {
        ck_abort_msg("set %u among the templates", set->id);
      }
    }
  }
  ck_assert_int_eq(phase, 2);
  ck_assert_uint_eq(ntypes, NELEMENTS);
  ck_assert_uint_eq(ntmpl, NTEMPLATES);
  for (i = 1; i <= NELEMENTS; i++) {
    ck_assert_uint_eq(seen[i], 1);
  }
  ipr_free(rd);
  sess_free(&x);
}
END_TEST

/* RTEL_IPFIX_NO_TYPE_INFO: no options template, no type records. */
START_TEST(test_no_type_info) {
  rtel_ipfix_settings s = settings(RTEL_IPFIX_NO_TYPE_INFO, 512);
  size_t i, j, ntmpl = 0;
  ipr_state *rd = ipr_new(0);
  sess x;
  char err[256];
  sess_init(&x, &s, 512);
  sess_control(&x);
  for (i = 0; i < x.w.n; i++) {
    ipr_msg m;
    ck_assert_msg(
        ipr_read_msg(rd, x.w.m[i], x.w.len[i], &m, err, sizeof(err)) == 0,
        "%s", err);
    ck_assert_uint_eq(m.nrecs, 0);
    for (j = 0; j < m.nsets; j++) {
      ck_assert_uint_eq(m.sets[j].id, 2);
      ntmpl += m.sets[j].count;
    }
  }
  ck_assert_uint_eq(ntmpl, NTEMPLATES);
  ck_assert(ipr_template_get(rd, 0, TID_TYPES) == NULL);
  ipr_free(rd);
  sess_free(&x);
}
END_TEST

/* rtel_ipfix_element_get() against the man page's table, and each
 * element's record_types against the templates it is actually in. */
START_TEST(test_element_table) {
  rtel_ipfix_settings s = settings(RTEL_IPFIX_NO_TYPE_INFO, 65535);
  ipr_state *rd = ipr_new(0);
  sess x;
  ipr_msg m;
  char err[256];
  size_t i, j;
  unsigned t;
  int rv;
  sess_init(&x, &s, 65535);
  sess_control(&x);
  ck_assert_uint_eq(x.w.n, 1);
  rv = ipr_read_msg(rd, x.w.m[0], x.w.len[0], &m, err, sizeof(err));
  ck_assert_msg(rv == 0, "%s", err);
  for (i = 0; i < NELEMENTS; i++) {
    const rtel_ipfix_element *e = rtel_ipfix_element_get(i);
    const man_element *me = &man_elements[i];
    uint32_t bits = 0;
    ck_assert_msg(e != NULL, "no element %zu", i);
    ck_assert_uint_eq(e->id, i + 1); /* "the id is index + 1" */
    ck_assert_uint_eq(e->id, me->id);
    ck_assert_str_eq(e->name, me->name);
    ck_assert_str_eq(e->description, me->descr);
    ck_assert_uint_eq(e->data_type, me->type);
    ck_assert_uint_eq(e->semantics, me->sem);
    ck_assert_uint_eq(e->units, me->units);
    ck_assert_uint_eq(e->length, me->len);
    ck_assert_uint_eq(e->reserved, 0);
    ck_assert_uint_lt(strlen(e->name), 255);
    ck_assert_uint_lt(strlen(e->description), 255);
    for (j = 0; e->name[j]; j++) {
      ck_assert((unsigned char)e->name[j] < 0x80);
    }
    for (t = 0; t < NTEMPLATES; t++) {
      const ipr_template *tp =
          ipr_template_get(rd, 0, (uint16_t)(TID_FIRST + t));
      size_t k, hits = 0;
      ck_assert_ptr_nonnull(tp);
      for (k = 0; k < tp->nfields; k++) {
        if (tp->fields[k].pen == PEN_DOC && tp->fields[k].id == e->id) {
          ck_assert_uint_eq(tp->fields[k].tlen, e->length);
          hits++;
        }
      }
      ck_assert_uint_le(hits, 1);
      if (hits) {
        bits |= man_tmpl[t / 2].rec;
      }
      if (t & 1) { /* IPv4 and IPv6 templates carry the same elements */
        const ipr_template *t4 =
            ipr_template_get(rd, 0, (uint16_t)(TID_FIRST + t - 1));
        size_t h4 = 0;
        for (k = 0; k < t4->nfields; k++) {
          h4 += t4->fields[k].pen == PEN_DOC && t4->fields[k].id == e->id;
        }
        ck_assert_uint_eq(h4, hits);
      }
    }
    ck_assert_msg(bits == e->record_types,
                  "E%u %s: record_types 0x%x, templates 0x%x", e->id, e->name,
                  e->record_types, bits);
  }
  ck_assert(rtel_ipfix_element_get(NELEMENTS) == NULL);
  ck_assert(rtel_ipfix_element_get((size_t)-1) == NULL);
  /* every enterprise field of every template is a listed element */
  for (t = 0; t < NTEMPLATES; t++) {
    const ipr_template *tp =
        ipr_template_get(rd, 0, (uint16_t)(TID_FIRST + t));
    for (j = 0; j < tp->nfields; j++) {
      if (tp->fields[j].pen != 0) {
        ck_assert_uint_eq(tp->fields[j].pen, PEN_DOC);
        ck_assert_uint_ge(tp->fields[j].id, 1);
        ck_assert_uint_le(tp->fields[j].id, NELEMENTS);
      }
    }
  }
  ipr_free(rd);
  sess_free(&x);
}
END_TEST

/* ------------------------------------------------------ template refresh */

/* Does message |m| of |w| begin with the options template (Set 3)? */
static int starts_with_types(const wire *w, size_t m) {
  return get16(w->m[m] + 16) == 3;
}

/*
 * template_refresh 30 s: get_expiry() is the export time of the message
 * that finished the templates plus 30 s (none while they are due);
 * handle_expiry() before it changes nothing, at it makes them due; the
 * next messages carry them again, type records first; the sequence
 * numbers go on.
 */
START_TEST(test_template_refresh) {
  const rtel_tstamp refresh = 30 * NS;
  rtel_ipfix_settings s = settings(0, 512);
  unsigned seen[NELEMENTS + 1] = {0};
  anyrec a;
  readout ro;
  size_t n, from, next = 0;
  uint64_t fid = 1;
  uint32_t seq = 0;
  rtel_tstamp last, exp;
  ipr_state *rd = ipr_new(0);
  sess x;
  s.template_refresh = refresh;
  sess_init(&x, &s, 512);
  ck_assert_uint_eq(rtel_ipfix_get_expiry(x.enc), RTEL_TSTAMP_NONE);
  /* the templates' messages at T0, T0 + 1 ms, ... (sess_control) */
  sess_begin(&x);
  sess_end(&x);
  ck_assert_uint_eq(rtel_ipfix_get_expiry(x.enc), RTEL_TSTAMP_NONE);
  x.now += 1000000u;
  n = 1 + sess_control(&x);
  last = T0 + (n - 1) * 1000000u; /* export time of the last of them */
  exp = rtel_ipfix_get_expiry(x.enc);
  ck_assert_uint_eq(exp, last + refresh);
  /* a data message does not move it */
  make_rec(&a, R_IO, 1, 9);
  x.now = last + 5 * NS;
  sess_put(&x, &a);
  sess_end(&x);
  ck_assert_uint_eq(rtel_ipfix_get_expiry(x.enc), exp);
  ck_assert_int_eq(rtel_ipfix_handle_expiry(x.enc, exp - 1), 0);
  ck_assert_int_eq(rtel_ipfix_control_pending(x.enc), 0);
  ck_assert_uint_eq(rtel_ipfix_get_expiry(x.enc), exp);
  ck_assert_int_eq(rtel_ipfix_handle_expiry(x.enc, exp), 0);
  ck_assert_int_eq(rtel_ipfix_control_pending(x.enc), 1);
  ck_assert_uint_eq(rtel_ipfix_get_expiry(x.enc), RTEL_TSTAMP_NONE);
  /* again, from a later time */
  from = x.w.n;
  x.now = exp + 7 * NS;
  n = sess_control(&x);
  ck_assert_uint_eq(n, 26);
  ck_assert(starts_with_types(&x.w, from));
  ck_assert_uint_eq(get32(x.w.m[from] + 8), 94 + 1); /* goes on */
  ck_assert_uint_eq(rtel_ipfix_get_expiry(x.enc),
                    exp + 7 * NS + (n - 1) * 1000000u + refresh);
  /* the whole stream reads as one session */
  memset(&ro, 0, sizeof(ro));
  read_wire(rd, &x.w, 0, PEN_DOC, 0, &a, 1, &next, &fid, &seq, &ro, seen);
  ck_assert_uint_eq(ro.ntypes, 2 * 94);
  ck_assert_uint_eq(ro.ndata, 1);
  ck_assert_uint_eq(ro.ntdefs, 2 * (NTEMPLATES + 1));
  /* past the expiry the templates are due; a late handle_expiry too */
  ck_assert_int_eq(rtel_ipfix_handle_expiry(x.enc, RTEL_TSTAMP_NONE - 1), 0);
  ck_assert_int_eq(rtel_ipfix_control_pending(x.enc), 1);
  /* reset(): due, no expiry */
  sess_control(&x);
  ck_assert_uint_ne(rtel_ipfix_get_expiry(x.enc), RTEL_TSTAMP_NONE);
  rtel_ipfix_reset(x.enc);
  ck_assert_uint_eq(rtel_ipfix_get_expiry(x.enc), RTEL_TSTAMP_NONE);
  ipr_free(rd);
  sess_free(&x);
}
END_TEST

/* template_refresh 0: the templates go once; get_expiry() says none. */
START_TEST(test_template_refresh_zero) {
  rtel_ipfix_settings s = settings(RTEL_IPFIX_NO_TYPE_INFO, 512);
  sess x;
  s.template_refresh = 0;
  sess_init(&x, &s, 512);
  sess_control(&x);
  ck_assert_uint_eq(rtel_ipfix_get_expiry(x.enc), RTEL_TSTAMP_NONE);
  ck_assert_int_eq(rtel_ipfix_handle_expiry(x.enc, T0 + 1000000 * NS), 0);
  ck_assert_int_eq(rtel_ipfix_handle_expiry(x.enc, RTEL_TSTAMP_NONE), 0);
  ck_assert_int_eq(rtel_ipfix_control_pending(x.enc), 0);
  ck_assert_uint_eq(rtel_ipfix_get_expiry(NULL), RTEL_TSTAMP_NONE);
  ck_assert_int_eq(rtel_ipfix_handle_expiry(NULL, T0),
                   RTEL_ERR_INVALID_ARGUMENT);
  sess_free(&x);
}
END_TEST

/* -------------------------------------------------------------- errors */

START_TEST(test_settings_default) {
  rtel_ipfix_settings s, t;
  memset(&s, 0xa5, sizeof(s));
  rtel_ipfix_settings_default(&s);
  ck_assert_uint_eq(s.pen, 32473);
  ck_assert_uint_eq(s.domain_id, 0);
  ck_assert_uint_eq(s.max_msg_len, 512);
  ck_assert_uint_eq(s.flags, 0);
  ck_assert_uint_eq(s.template_refresh, 60 * NS);
  ck_assert_uint_eq(s.first_flow_id, 1);
  rtel_ipfix_settings_default(NULL); /* does nothing */
  /* an unknown version: does nothing */
  memset(&t, 0xa5, sizeof(t));
  memcpy(&s, &t, sizeof(s));
  rtel_ipfix_settings_default_versioned(0, &s);
  ck_assert_mem_eq(&s, &t, sizeof(s));
  rtel_ipfix_settings_default_versioned(RTEL_IPFIX_SETTINGS_VERSION + 1, &s);
  ck_assert_mem_eq(&s, &t, sizeof(s));
  rtel_ipfix_settings_default_versioned(-1, &s);
  ck_assert_mem_eq(&s, &t, sizeof(s));
  rtel_ipfix_settings_default_versioned(RTEL_IPFIX_SETTINGS_V1, &s);
  ck_assert_uint_eq(s.pen, 32473);
}
END_TEST

static long n_alloc, n_free;

static void *t_malloc(size_t n, void *ud) {
  ck_assert_ptr_eq(ud, &n_alloc);
  n_alloc++;
  return malloc(n);
}

static void t_free(void *p, void *ud) {
  ck_assert_ptr_eq(ud, &n_alloc);
  if (p) {
    n_free++;
  }
  free(p);
}

static void *t_calloc(size_t n, size_t m, void *ud) {
  ck_assert_ptr_eq(ud, &n_alloc);
  n_alloc++;
  return calloc(n, m);
}

static void *t_realloc(void *p, size_t n, void *ud) {
  ck_assert_ptr_eq(ud, &n_alloc);
  n_alloc++;
  return realloc(p, n);
}

static void *fail_malloc(size_t n, void *ud) {
  (void)n, (void)ud;
  return NULL;
}

static void *fail_calloc(size_t n, size_t m, void *ud) {
  (void)n, (void)m, (void)ud;
  return NULL;
}

static void *fail_realloc(void *p, size_t n, void *ud) {
  (void)p, (void)n, (void)ud;
  return NULL;
}

/* rtel_ipfix_new(): each invalid setting is RTEL_ERR_INVALID_ARGUMENT, an
 * unknown version RTEL_ERR_UNSUPPORTED_VERSION, no memory RTEL_ERR_NOMEM,
 * and *penc stays untouched on failure. */
START_TEST(test_new_errors) {
  static const uint32_t bad_len[] = {0, 1, 511, 65536, 100000, UINT32_MAX};
  static const uint32_t good_len[] = {512, 513, 1452, 65535};
  static const uint32_t bad_flags[] = {0x2, 0x4, 0x80000000u, 0xffffffffu};
  static int sentinel;
  rtel_ipfix *const untouched = (rtel_ipfix *)(void *)&sentinel;
  rtel_ipfix_settings s;
  rtel_ipfix *enc;
  rtel_mem mem = {&n_alloc, t_malloc, t_free, t_calloc, t_realloc};
  rtel_mem m2;
  size_t i;

  rtel_ipfix_settings_default(&s);
  ck_assert_int_eq(rtel_ipfix_new(NULL, &s, NULL), RTEL_ERR_INVALID_ARGUMENT);
  s.pen = 0;
  enc = untouched;
  ck_assert_int_eq(rtel_ipfix_new(&enc, &s, NULL), RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_eq(enc, untouched);
  for (i = 0; i < NOF(bad_len); i++) {
    rtel_ipfix_settings_default(&s);
    s.max_msg_len = bad_len[i];
    ck_assert_msg(rtel_ipfix_new(&enc, &s, NULL) == RTEL_ERR_INVALID_ARGUMENT,
                  "max_msg_len %u", bad_len[i]);
    ck_assert_ptr_eq(enc, untouched);
  }
  for (i = 0; i < NOF(good_len); i++) {
    rtel_ipfix_settings_default(&s);
    s.max_msg_len = good_len[i];
    ck_assert_int_eq(rtel_ipfix_new(&enc, &s, NULL), 0);
    ck_assert_ptr_ne(enc, untouched);
    rtel_ipfix_del(enc);
    enc = untouched;
  }
  for (i = 0; i < NOF(bad_flags); i++) {
    rtel_ipfix_settings_default(&s);
    s.flags = bad_flags[i];
    ck_assert_int_eq(rtel_ipfix_new(&enc, &s, NULL),
                     RTEL_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_eq(enc, untouched);
  }
  /* versions */
  rtel_ipfix_settings_default(&s);
  ck_assert_int_eq(rtel_ipfix_new_versioned(&enc, 0, &s, NULL),
                   RTEL_ERR_UNSUPPORTED_VERSION);
  ck_assert_int_eq(rtel_ipfix_new_versioned(
                       &enc, RTEL_IPFIX_SETTINGS_VERSION + 1, &s, NULL),
                   RTEL_ERR_UNSUPPORTED_VERSION);
  ck_assert_int_eq(rtel_ipfix_new_versioned(&enc, -1, &s, NULL),
                   RTEL_ERR_UNSUPPORTED_VERSION);
  ck_assert_ptr_eq(enc, untouched);
  ck_assert_int_eq(
      rtel_ipfix_new_versioned(&enc, RTEL_IPFIX_SETTINGS_V1, &s, NULL), 0);
  rtel_ipfix_del(enc);
  enc = untouched;
  /* an incomplete allocator */
  for (i = 0; i < 4; i++) {
    m2 = mem;
    if (i == 0) {
      m2.malloc = NULL;
    } else if (i == 1) {
      m2.free = NULL;
    } else if (i == 2) {
      m2.calloc = NULL;
    } else {
      m2.realloc = NULL;
    }
    ck_assert_int_eq(rtel_ipfix_new(&enc, &s, &m2), RTEL_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_eq(enc, untouched);
  }
  /* no memory */
  m2.user_data = NULL;
  m2.malloc = fail_malloc;
  m2.free = t_free;
  m2.calloc = fail_calloc;
  m2.realloc = fail_realloc;
  ck_assert_int_eq(rtel_ipfix_new(&enc, &s, &m2), RTEL_ERR_NOMEM);
  ck_assert_ptr_eq(enc, untouched);
  /* the caller's allocator: one allocation, freed by del() */
  n_alloc = n_free = 0;
  ck_assert_int_eq(rtel_ipfix_new(&enc, &s, &mem), 0);
  ck_assert_int_eq(n_alloc, 1);
  rtel_ipfix_del(enc);
  ck_assert_int_eq(n_free, 1);
  rtel_ipfix_del(NULL);
  rtel_ipfix_reset(NULL);
}
END_TEST

/* NULL settings: the defaults (PEN 32473, domain 0, 512 bytes, type
 * information, flowIds from 1). */
START_TEST(test_new_null_settings) {
  rtel_ipfix_settings d;
  unsigned seen[NELEMENTS + 1] = {0};
  readout ro;
  anyrec a;
  size_t next = 0;
  uint64_t fid = 1;
  uint32_t seq = 0;
  ipr_state *rd = ipr_new(0);
  sess x;
  rtel_ipfix_settings_default(&d);
  sess_init(&x, &d, 65535);
  rtel_ipfix_del(x.enc);
  x.enc = NULL;
  ck_assert_int_eq(rtel_ipfix_new(&x.enc, NULL, NULL), 0);
  make_rec(&a, R_AGG, 1, 3);
  sess_put(&x, &a);
  sess_end(&x);
  memset(&ro, 0, sizeof(ro));
  read_wire(rd, &x.w, 0, PEN_DOC, 0, &a, 1, &next, &fid, &seq, &ro, seen);
  ck_assert_uint_eq(ro.ntypes, 94);
  ck_assert_uint_eq(ro.ndata, 1);
  ck_assert_uint_eq(x.w.n, 27); /* 26 of templates, 1 of data */
  ipr_free(rd);
  sess_free(&x);
  /* a settings version the library does not know is refused, settings
   * given or not, and no encoder is made */
  {
    rtel_ipfix *e = NULL;
    ck_assert_int_eq(rtel_ipfix_new_versioned(&e, 99, NULL, NULL),
                     RTEL_ERR_UNSUPPORTED_VERSION);
    ck_assert_int_eq(rtel_ipfix_new_versioned(&e, 0, NULL, NULL),
                     RTEL_ERR_UNSUPPORTED_VERSION);
    ck_assert_ptr_null(e);
  }
}
END_TEST

/* A refresh that falls due while a message is begun and still empty: the
 * header promises that a message holding nothing has room for any record,
 * so the first add writes the due templates and then the record (the
 * templates fit a 65535-byte message). */
START_TEST(test_refresh_in_empty_message) {
  rtel_ipfix_settings s = settings(RTEL_IPFIX_NO_TYPE_INFO, 65535);
  static uint8_t buf[65535];
  rtel_ipfix *enc;
  anyrec a;
  rtel_ssize n;
  s.template_refresh = 10;
  ck_assert_int_eq(rtel_ipfix_new(&enc, &s, NULL), 0);
  /* the first message carries the templates (and nothing else) */
  ck_assert_int_eq(rtel_ipfix_begin(enc, buf, sizeof(buf), 1000), 0);
  ck_assert_int_gt(rtel_ipfix_end(enc), 0);
  ck_assert_int_eq(rtel_ipfix_control_pending(enc), 0);
  ck_assert_uint_eq(rtel_ipfix_get_expiry(enc), 1010);
  /* begun at 2000, then the timer: due while the message is empty */
  ck_assert_int_eq(rtel_ipfix_begin(enc, buf, sizeof(buf), 2000), 0);
  ck_assert_int_eq(rtel_ipfix_handle_expiry(enc, 2000), 0);
  ck_assert_int_eq(rtel_ipfix_control_pending(enc), 1);
  make_rec(&a, R_SEG, 0, 5);
  ck_assert_int_eq(rtel_ipfix_add_segment(enc, &a.u.seg), 0);
  ck_assert_int_eq(rtel_ipfix_control_pending(enc), 0);
  n = rtel_ipfix_end(enc);
  /* header + template set with the 10 templates + a data set */
  ck_assert_int_gt(n, 16 + 4 + 4);
  ck_assert_uint_eq(get16(buf + 16), 2); /* the template set comes first */
  ck_assert_uint_eq(rtel_ipfix_get_expiry(enc), 2010);
  rtel_ipfix_del(enc);
}
END_TEST

/* The other calls' errors (include/rocetel/rocetel.h), and a failed call
 * changes nothing: the message is the same as without the failures. */
START_TEST(test_call_errors) {
  rtel_ipfix_settings s = settings(RTEL_IPFIX_NO_TYPE_INFO, 65535);
  static uint8_t buf[65535], buf2[65535];
  rtel_ipfix *enc, *ref;
  anyrec a[R_NTYPES];
  rtel_ssize n, n2;
  unsigned t;
  for (t = 0; t < R_NTYPES; t++) {
    make_rec(&a[t], t, (int)(t & 1), t);
  }
  ck_assert_int_eq(rtel_ipfix_new(&enc, &s, NULL), 0);
  ck_assert_int_eq(rtel_ipfix_new(&ref, &s, NULL), 0);
  /* no message begun */
  for (t = 0; t < R_NTYPES; t++) {
    ck_assert_int_eq(add_any(enc, &a[t]), RTEL_ERR_INVALID_STATE);
  }
  ck_assert_int_eq(rtel_ipfix_end(enc), RTEL_ERR_INVALID_STATE);
  ck_assert_int_eq(rtel_ipfix_end(NULL), RTEL_ERR_INVALID_ARGUMENT);
  /* begin */
  ck_assert_int_eq(rtel_ipfix_begin(NULL, buf, sizeof(buf), T0),
                   RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(rtel_ipfix_begin(enc, NULL, sizeof(buf), T0),
                   RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(rtel_ipfix_begin(enc, buf, RTEL_IPFIX_MIN_MSG_LEN - 1, T0),
                   RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(rtel_ipfix_begin(enc, buf, sizeof(buf), T0), 0);
  ck_assert_int_eq(rtel_ipfix_begin(enc, buf2, sizeof(buf2), T0 + NS),
                   RTEL_ERR_INVALID_STATE);
  ck_assert_int_eq(rtel_ipfix_begin(ref, buf2, sizeof(buf2), T0), 0);
  /* add: NULL arguments, versions */
  ck_assert_int_eq(rtel_ipfix_add_flow(NULL, &a[0].u.flow),
                   RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(rtel_ipfix_add_flow(enc, NULL), RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(rtel_ipfix_add_msg(NULL, &a[1].u.msg),
                   RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(rtel_ipfix_add_msg(enc, NULL), RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(rtel_ipfix_add_io(NULL, &a[2].u.io),
                   RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(rtel_ipfix_add_io(enc, NULL), RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(rtel_ipfix_add_segment(NULL, &a[3].u.seg),
                   RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(rtel_ipfix_add_segment(enc, NULL),
                   RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(rtel_ipfix_add_aggregate(NULL, &a[4].u.agg),
                   RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(rtel_ipfix_add_aggregate(enc, NULL),
                   RTEL_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(rtel_ipfix_add_flow_versioned(enc, 0, &a[0].u.flow),
                   RTEL_ERR_UNSUPPORTED_VERSION);
  ck_assert_int_eq(rtel_ipfix_add_flow_versioned(
                       enc, RTEL_FLOW_RECORD_VERSION + 1, &a[0].u.flow),
                   RTEL_ERR_UNSUPPORTED_VERSION);
  ck_assert_int_eq(rtel_ipfix_add_msg_versioned(
                       enc, RTEL_MSG_RECORD_VERSION + 1, &a[1].u.msg),
                   RTEL_ERR_UNSUPPORTED_VERSION);
  ck_assert_int_eq(
      rtel_ipfix_add_io_versioned(enc, RTEL_IO_RECORD_VERSION + 1, &a[2].u.io),
      RTEL_ERR_UNSUPPORTED_VERSION);
  ck_assert_int_eq(rtel_ipfix_add_segment_versioned(
                       enc, RTEL_SEGMENT_RECORD_VERSION + 1, &a[3].u.seg),
                   RTEL_ERR_UNSUPPORTED_VERSION);
  ck_assert_int_eq(rtel_ipfix_add_aggregate_versioned(
                       enc, RTEL_IO_AGGREGATE_VERSION + 1, &a[4].u.agg),
                   RTEL_ERR_UNSUPPORTED_VERSION);
  /* version 1 of each record */
  ck_assert_int_eq(
      rtel_ipfix_add_flow_versioned(enc, RTEL_FLOW_RECORD_V1, &a[0].u.flow),
      0);
  ck_assert_int_eq(
      rtel_ipfix_add_msg_versioned(enc, RTEL_MSG_RECORD_V1, &a[1].u.msg), 0);
  ck_assert_int_eq(
      rtel_ipfix_add_io_versioned(enc, RTEL_IO_RECORD_V1, &a[2].u.io), 0);
  ck_assert_int_eq(rtel_ipfix_add_segment_versioned(
                       enc, RTEL_SEGMENT_RECORD_V1, &a[3].u.seg),
                   0);
  ck_assert_int_eq(rtel_ipfix_add_aggregate_versioned(
                       enc, RTEL_IO_AGGREGATE_V1, &a[4].u.agg),
                   0);
  for (t = 0; t < R_NTYPES; t++) {
    ck_assert_int_eq(add_any(ref, &a[t]), 0);
  }
  n = rtel_ipfix_end(enc);
  n2 = rtel_ipfix_end(ref);
  ck_assert_int_gt(n, 0);
  ck_assert_int_eq(n, n2);
  ck_assert_mem_eq(buf, buf2, (size_t)n);
  rtel_ipfix_del(enc);
  rtel_ipfix_del(ref);
}
END_TEST

static Suite *ipfix_suite(void) {
  Suite *s = suite_create("ipfix");
  TCase *tg = tcase_create("golden");
  TCase *tr = tcase_create("records");
  TCase *tm = tcase_create("messages");
  TCase *tt = tcase_create("rfc5610");
  TCase *tf = tcase_create("refresh");
  TCase *te = tcase_create("errors");
  tcase_add_test(tg, test_golden_flow_v4);
  tcase_add_test(tg, test_golden_flow_v6);
  tcase_add_test(tg, test_golden_times);
  tcase_add_test(tg, test_golden_type_records);
  tcase_add_test(tr, test_round_trip);
  tcase_add_test(tr, test_address_family_flags);
  tcase_add_test(tr, test_templates_match_man);
  tcase_add_test(tr, test_sets);
  tcase_add_test(tr, test_flow_ids);
  tcase_add_test(tm, test_sequence_numbers);
  tcase_add_test(tm, test_sequence_no_type_info);
  tcase_add_test(tm, test_control_pending);
  tcase_add_test(tm, test_buffer_full);
  tcase_add_test(tm, test_size_cap);
  tcase_add_test(tm, test_buffer_caps);
  tcase_add_test(tt, test_type_records_first);
  tcase_add_test(tt, test_no_type_info);
  tcase_add_test(tt, test_element_table);
  tcase_add_test(tf, test_template_refresh);
  tcase_add_test(tf, test_template_refresh_zero);
  tcase_add_test(tf, test_refresh_in_empty_message);
  tcase_add_test(te, test_settings_default);
  tcase_add_test(te, test_new_errors);
  tcase_add_test(te, test_new_null_settings);
  tcase_add_test(te, test_call_errors);
  tcase_set_timeout(tm, 60);
  tcase_set_timeout(tr, 60);
  suite_add_tcase(s, tg);
  suite_add_tcase(s, tr);
  suite_add_tcase(s, tm);
  suite_add_tcase(s, tt);
  suite_add_tcase(s, tf);
  suite_add_tcase(s, te);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(ipfix_suite());
  int failed;
  srunner_run_all(sr, CK_ENV);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
