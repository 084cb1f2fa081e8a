/* SPDX-License-Identifier: MIT */
/*
 * IPFIX encoder (RFC 7011): flow, message, I/O, segment and aggregate
 * records into messages in caller memory, with RFC 5610 type records for
 * the enterprise-specific elements. No I/O, no clock, one allocation.
 *
 * Every template is a table of fields (which element, how long, where
 * its value comes from); the template records and the data records are
 * both written from that one table, so they cannot disagree. A field's
 * value comes from the record (at an offset) or from a few values derived
 * from it (times, the IPFIX end reason).
 */
#include "rtel_ipfix.h"

/* ------------------------------------------------------------------ */
/* Information elements                                               */
/* ------------------------------------------------------------------ */

/* IANA elements (listed in rtel_ipfix(3)) */
enum {
  IE_OCTET_DELTA = 1,
  IE_PACKET_DELTA = 2,
  IE_SRC_PORT = 7,
  IE_SRC_V4 = 8,
  IE_INGRESS_IF = 10,
  IE_DST_V4 = 12,
  IE_SRC_V6 = 27,
  IE_DST_V6 = 28,
  IE_VLAN = 58,
  IE_END_REASON = 136,
  IE_OBS_POINT = 138,
  IE_FLOW_ID = 148,
  IE_START_MS = 152,
  IE_END_MS = 153,
  IE_START_NS = 156,
  IE_END_NS = 157,
  IE_DSCP = 195,
  IE_IVL_START_MS = 359,
  IE_IVL_END_MS = 360,
  /* RFC 5610 */
  IE_IE_ID = 303,
  IE_IE_TYPE = 339,
  IE_IE_DESCR = 340,
  IE_IE_NAME = 341,
  IE_IE_RANGE_BEGIN = 342,
  IE_IE_RANGE_END = 343,
  IE_IE_SEMANTICS = 344,
  IE_PEN = 346,
  IE_IE_UNITS = 345
};

/* RFC 5610 codes */
enum { T_U8 = 1, T_U16 = 2, T_U32 = 3, T_U64 = 4, T_S64 = 8 };
enum { S_DEFAULT = 0, S_QUANTITY = 1, S_DELTA = 3, S_ID = 4, S_FLAGS = 5 };
enum { U_NONE = 0, U_OCTETS = 2, U_PACKETS = 3, U_NS = 8 };

/* Enterprise elements: the id is the index + 1 (E_* below). */
enum {
  E_DQPN = 1,
  E_PEER_QPN,
  E_RDMA_OPS,
  E_FLOW_FLAGS,
  E_END,
  E_FCT,
  E_FET,
  E_FNR,
  E_RETX_RATIO,
  E_RETX_PKTS,
  E_RETX_BYTES,
  E_NAKS_SEQ,
  E_NAKS_RNR,
  E_NAKS_FATAL,
  E_CNPS,
  E_ECN_CE,
  E_FECN,
  E_BECN,
  E_PSN_GAPS,
  E_LOSSES_UP,
  E_LOSSES_DOWN,
  E_RETX_NAK,
  E_RETX_TIMEOUT,
  E_RETX_RNR,
  E_LOST_UP,
  E_ORPHANS,
  E_MESSAGES,
  E_COV_START,
  E_COV_END,
  E_FIRST_PSN,
  E_LAST_PSN,
  E_RETH_LEN,
  E_LOSSES_NAK,
  E_LOSSES_RNR,
  E_LOSSES_TIMEOUT,
  E_IO_STATE,
  E_IO_FLAGS,
  E_HOST_QPN,
  E_TARGET_QPN,
  E_CID,
  E_QID,
  E_OPCODE,
  E_FCTYPE,
  E_STATUS,
  E_NSID,
  E_SLBA,
  E_NLB,
  E_IO_BYTES,
  E_T_CMD,
  E_T_RSP,
  E_T_DATA_FIRST,
  E_T_DATA_LAST,
  E_T_RDREQ,
  E_IOL,
  E_DAL,
  E_DPL,
  E_XFER,
  E_STORAGE_OBS,
  E_ROLES_CONFIGURED,
  E_IOL1,
  E_IOL2,
  E_RTT,
  E_COMPUTE,
  E_NETWORK,
  E_STORAGE,
  E_PERIOD_START,
  E_PERIOD_END,
  E_IO_COUNT,
  E_IO_ERRORS,
  E_IO_TIMEOUTS,
  E_IOL_LAT, /* 8 elements each: count min mean p50 p90 p99 p999 max */
  E_DAL_LAT = E_IOL_LAT + 8,
  E_DPL_LAT = E_DAL_LAT + 8,
  E_COUNT = E_DPL_LAT + 8 - 1
};

#define EL(id, recs, len, type, sem, units, name, descr)                      \
  [(id)-1] = {(id), (len), (type), (sem), (units), (recs), 0, (name), (descr)}
#define LAT(base, pfx, what)                                                  \
  EL((base) + 0, RTEL_IPFIX_REC_AGGREGATE, 8, T_U64, S_DELTA, U_NONE,         \
     pfx "Count", "I/Os with a " what " in the period"),                      \
      EL((base) + 1, RTEL_IPFIX_REC_AGGREGATE, 8, T_S64, S_QUANTITY, U_NS,    \
         pfx "MinNanoseconds", "smallest " what " of the period, ns"),        \
      EL((base) + 2, RTEL_IPFIX_REC_AGGREGATE, 8, T_S64, S_QUANTITY, U_NS,    \
         pfx "MeanNanoseconds", "mean " what " of the period, ns"),           \
      EL((base) + 3, RTEL_IPFIX_REC_AGGREGATE, 8, T_S64, S_QUANTITY, U_NS,    \
         pfx "P50Nanoseconds", "median " what ", ns (within 1.6 %)"),         \
      EL((base) + 4, RTEL_IPFIX_REC_AGGREGATE, 8, T_S64, S_QUANTITY, U_NS,    \
         pfx "P90Nanoseconds",                                                \
         "90th percentile " what ", ns (within 1.6 %)"),                      \
      EL((base) + 5, RTEL_IPFIX_REC_AGGREGATE, 8, T_S64, S_QUANTITY, U_NS,    \
         pfx "P99Nanoseconds",                                                \
         "99th percentile " what ", ns (within 1.6 %)"),                      \
      EL((base) + 6, RTEL_IPFIX_REC_AGGREGATE, 8, T_S64, S_QUANTITY, U_NS,    \
         pfx "P999Nanoseconds",                                               \
         "99.9th percentile " what ", ns (within 1.6 %)"),                    \
      EL((base) + 7, RTEL_IPFIX_REC_AGGREGATE, 8, T_S64, S_QUANTITY, U_NS,    \
         pfx "MaxNanoseconds", "largest " what " of the period, ns")

static const rtel_ipfix_element elements[E_COUNT] = {
    EL(E_DQPN, RTEL_IPFIX_REC_FLOW | RTEL_IPFIX_REC_MSG, 4, T_U32, S_ID,
       U_NONE, "rdmaDestinationQpn", "destination QP of the data packets"),
    EL(E_PEER_QPN, RTEL_IPFIX_REC_FLOW | RTEL_IPFIX_REC_MSG, 4, T_U32, S_ID,
       U_NONE, "rdmaPeerQpn",
       "reverse QP (ACKs, NAKs, CNPs); 4294967295 if unknown"),
    EL(E_RDMA_OPS, RTEL_IPFIX_REC_FLOW | RTEL_IPFIX_REC_MSG, 1, T_U8, S_FLAGS,
       U_NONE, "rdmaOperations",
       "operations: 1 SEND, 2 RDMA WRITE, 4 RDMA READ RESPONSE"),
    EL(E_FLOW_FLAGS, RTEL_IPFIX_REC_FLOW | RTEL_IPFIX_REC_MSG, 4, T_U32,
       S_FLAGS, U_NONE, "rdmaFlowFlags",
       "flags: 1 paired, 2 IPv6, 4 VLAN, 8 incomplete, 16 lost bound"),
    EL(E_END, RTEL_IPFIX_REC_FLOW | RTEL_IPFIX_REC_MSG, 1, T_U8, S_ID, U_NONE,
       "rdmaEndReason",
       "end: 1 idle 2 active 3 evicted 4 flush 5 truncated 6 acked "
       "7 settled 8 overflow"),
    EL(E_FCT, RTEL_IPFIX_REC_FLOW | RTEL_IPFIX_REC_MSG, 8, T_U64, S_QUANTITY,
       U_NS, "rdmaFctNanoseconds",
       "completion time: last minus first data packet, ns"),
    EL(E_FET, RTEL_IPFIX_REC_FLOW | RTEL_IPFIX_REC_MSG, 8, T_U64, S_QUANTITY,
       U_NONE, "rdmaFetBitsPerSecond",
       "effective throughput on the wire, bit/s, resends excluded"),
    EL(E_FNR, RTEL_IPFIX_REC_FLOW, 4, T_U32, S_QUANTITY, U_NONE, "rdmaFnrPpm",
       "sequence-error NAKs per data packet, parts per million"),
    EL(E_RETX_RATIO, RTEL_IPFIX_REC_FLOW, 4, T_U32, S_QUANTITY, U_NONE,
       "rdmaRetxRatioPpm", "retransmitted per data packet, parts per million"),
    EL(E_RETX_PKTS, RTEL_IPFIX_REC_FLOW | RTEL_IPFIX_REC_MSG, 8, T_U64,
       S_DELTA, U_PACKETS, "rdmaRetxPacketCount",
       "retransmitted data packets"),
    EL(E_RETX_BYTES, RTEL_IPFIX_REC_FLOW | RTEL_IPFIX_REC_MSG, 8, T_U64,
       S_DELTA, U_OCTETS, "rdmaRetxOctetCount",
       "payload octets of retransmitted data packets"),
    EL(E_NAKS_SEQ, RTEL_IPFIX_REC_FLOW | RTEL_IPFIX_REC_MSG, 8, T_U64, S_DELTA,
       U_NONE, "rdmaNakSeqCount", "PSN sequence error NAKs"),
    EL(E_NAKS_RNR, RTEL_IPFIX_REC_FLOW | RTEL_IPFIX_REC_MSG, 8, T_U64, S_DELTA,
       U_NONE, "rdmaNakRnrCount", "receiver-not-ready NAKs"),
    EL(E_NAKS_FATAL, RTEL_IPFIX_REC_FLOW | RTEL_IPFIX_REC_MSG, 8, T_U64,
       S_DELTA, U_NONE, "rdmaNakFatalCount",
       "fatal NAKs (invalid request, access, operation errors)"),
    EL(E_CNPS, RTEL_IPFIX_REC_FLOW | RTEL_IPFIX_REC_MSG, 8, T_U64, S_DELTA,
       U_PACKETS, "rdmaCnpCount",
       "congestion notification packets to the sender"),
    EL(E_ECN_CE, RTEL_IPFIX_REC_FLOW | RTEL_IPFIX_REC_MSG, 8, T_U64, S_DELTA,
       U_PACKETS, "rdmaEcnCeCount",
       "data packets marked ECN congestion experienced"),
    EL(E_FECN, RTEL_IPFIX_REC_FLOW, 8, T_U64, S_DELTA, U_PACKETS,
       "rdmaFecnCount", "data packets with the BTH FECN bit"),
    EL(E_BECN, RTEL_IPFIX_REC_FLOW, 8, T_U64, S_DELTA, U_PACKETS,
       "rdmaBecnCount", "ACKs and NAKs with the BTH BECN bit"),
    EL(E_PSN_GAPS, RTEL_IPFIX_REC_FLOW, 8, T_U64, S_DELTA, U_NONE,
       "rdmaPsnGapCount", "times a PSN jumped past the next expected one"),
    EL(E_LOSSES_UP, RTEL_IPFIX_REC_FLOW | RTEL_IPFIX_REC_MSG, 8, T_U64,
       S_DELTA, U_NONE, "rdmaLossUpstreamCount",
       "loss events before this observation point"),
    EL(E_LOSSES_DOWN, RTEL_IPFIX_REC_FLOW | RTEL_IPFIX_REC_MSG, 8, T_U64,
       S_DELTA, U_NONE, "rdmaLossDownstreamCount",
       "loss events after this observation point"),
    EL(E_RETX_NAK, RTEL_IPFIX_REC_FLOW, 8, T_U64, S_DELTA, U_PACKETS,
       "rdmaRetxAfterNakCount", "retransmissions after a sequence-error NAK"),
    EL(E_RETX_TIMEOUT, RTEL_IPFIX_REC_FLOW, 8, T_U64, S_DELTA, U_PACKETS,
       "rdmaRetxAfterTimeoutCount", "retransmissions after no NAK (timeout)"),
    EL(E_RETX_RNR, RTEL_IPFIX_REC_FLOW, 8, T_U64, S_DELTA, U_PACKETS,
       "rdmaRetxAfterRnrCount", "retransmissions after an RNR NAK"),
    EL(E_LOST_UP, RTEL_IPFIX_REC_FLOW | RTEL_IPFIX_REC_MSG, 8, T_U64, S_DELTA,
       U_PACKETS, "rdmaLostUpstreamCount",
       "data packets lost before this observation point"),
    EL(E_ORPHANS, RTEL_IPFIX_REC_FLOW, 8, T_U64, S_DELTA, U_PACKETS,
       "rdmaOrphanPacketCount",
       "resends after their message record was delivered"),
    EL(E_MESSAGES, RTEL_IPFIX_REC_FLOW, 8, T_U64, S_DELTA, U_NONE,
       "rdmaMessageCount", "messages that began in the flow"),
    EL(E_COV_START,
       RTEL_IPFIX_REC_FLOW | RTEL_IPFIX_REC_MSG | RTEL_IPFIX_REC_IO, 8, T_U64,
       S_DEFAULT, U_NS, "rdmaCoverageStartNanoseconds",
       "start of the port's measurement window, ns (exporter time base)"),
    EL(E_COV_END, RTEL_IPFIX_REC_FLOW | RTEL_IPFIX_REC_MSG | RTEL_IPFIX_REC_IO,
       8, T_U64, S_DEFAULT, U_NS, "rdmaCoverageEndNanoseconds",
       "end of the port's measurement window, ns; all ones while open"),
    EL(E_FIRST_PSN, RTEL_IPFIX_REC_MSG, 4, T_U32, S_ID, U_NONE, "rdmaFirstPsn",
       "PSN of the message's first packet"),
    EL(E_LAST_PSN, RTEL_IPFIX_REC_MSG, 4, T_U32, S_ID, U_NONE, "rdmaLastPsn",
       "PSN of the message's last packet"),
    EL(E_RETH_LEN, RTEL_IPFIX_REC_MSG, 4, T_U32, S_QUANTITY, U_OCTETS,
       "rdmaRethLength", "RETH DMA length of an RDMA WRITE (0 otherwise)"),
    EL(E_LOSSES_NAK, RTEL_IPFIX_REC_MSG, 8, T_U64, S_DELTA, U_NONE,
       "rdmaLossNakCount", "loss events after a sequence-error NAK"),
    EL(E_LOSSES_RNR, RTEL_IPFIX_REC_MSG, 8, T_U64, S_DELTA, U_NONE,
       "rdmaLossRnrCount", "loss events after an RNR NAK"),
    EL(E_LOSSES_TIMEOUT, RTEL_IPFIX_REC_MSG, 8, T_U64, S_DELTA, U_NONE,
       "rdmaLossTimeoutCount", "loss events after no NAK (timeout)"),
    EL(E_IO_STATE, RTEL_IPFIX_REC_IO, 1, T_U8, S_ID, U_NONE, "nvmeIoState",
       "I/O: 1 complete 2 timeout 3 orphan 4 evicted 5 truncated"),
    EL(E_IO_FLAGS,
       RTEL_IPFIX_REC_IO | RTEL_IPFIX_REC_SEGMENT | RTEL_IPFIX_REC_AGGREGATE,
       4, T_U32, S_FLAGS, U_NONE, "nvmeIoFlags",
       "flags: 1 IPv6 2 in-capsule 4 admin 8 fabrics 16 invalidate 32 qid"),
    EL(E_HOST_QPN, RTEL_IPFIX_REC_IO, 4, T_U32, S_ID, U_NONE, "nvmeHostQpn",
       "host QP (responses and data go to it); 4294967295 if unknown"),
    EL(E_TARGET_QPN, RTEL_IPFIX_REC_IO | RTEL_IPFIX_REC_SEGMENT, 4, T_U32,
       S_ID, U_NONE, "nvmeTargetQpn",
       "target QP (commands go to it); 4294967295 if unknown"),
    EL(E_CID, RTEL_IPFIX_REC_IO | RTEL_IPFIX_REC_SEGMENT, 2, T_U16, S_ID,
       U_NONE, "nvmeCommandId", "NVMe command identifier"),
    EL(E_QID, RTEL_IPFIX_REC_IO, 2, T_U16, S_ID, U_NONE, "nvmeQueueId",
       "NVMe-oF queue id (valid with io flag 32)"),
    EL(E_OPCODE,
       RTEL_IPFIX_REC_IO | RTEL_IPFIX_REC_SEGMENT | RTEL_IPFIX_REC_AGGREGATE,
       1, T_U8, S_ID, U_NONE, "nvmeOpcode",
       "NVMe opcode (0 flush, 1 write, 2 read, 127 fabrics)"),
    EL(E_FCTYPE, RTEL_IPFIX_REC_IO, 1, T_U8, S_ID, U_NONE, "nvmeFabricsType",
       "Fabrics command type (with io flag 8)"),
    EL(E_STATUS, RTEL_IPFIX_REC_IO, 2, T_U16, S_ID, U_NONE, "nvmeStatus",
       "NVMe status field of the completion (0 success)"),
    EL(E_NSID,
       RTEL_IPFIX_REC_IO | RTEL_IPFIX_REC_SEGMENT | RTEL_IPFIX_REC_AGGREGATE,
       4, T_U32, S_ID, U_NONE, "nvmeNamespaceId",
       "namespace id (4294967295: every namespace)"),
    EL(E_SLBA, RTEL_IPFIX_REC_IO | RTEL_IPFIX_REC_SEGMENT, 8, T_U64, S_ID,
       U_NONE, "nvmeStartingLba", "first logical block"),
    EL(E_NLB, RTEL_IPFIX_REC_IO, 4, T_U32, S_QUANTITY, U_NONE,
       "nvmeBlockCount", "number of logical blocks"),
    EL(E_IO_BYTES, RTEL_IPFIX_REC_IO | RTEL_IPFIX_REC_SEGMENT, 8, T_U64,
       S_QUANTITY, U_OCTETS, "nvmeIoLength", "data length of the command"),
    EL(E_T_CMD, RTEL_IPFIX_REC_IO, 8, T_U64, S_DEFAULT, U_NS,
       "nvmeCommandNanoseconds",
       "C: first packet of the command capsule, ns; all ones if none"),
    EL(E_T_RSP, RTEL_IPFIX_REC_IO, 8, T_U64, S_DEFAULT, U_NS,
       "nvmeResponseNanoseconds",
       "R: first packet of the response capsule, ns; all ones if none"),
    EL(E_T_DATA_FIRST, RTEL_IPFIX_REC_IO, 8, T_U64, S_DEFAULT, U_NS,
       "nvmeDataFirstNanoseconds",
       "D1/P1: first data packet, ns; all ones if none"),
    EL(E_T_DATA_LAST, RTEL_IPFIX_REC_IO, 8, T_U64, S_DEFAULT, U_NS,
       "nvmeDataLastNanoseconds",
       "Dn/Pn: last data packet up to R, ns; all ones if none"),
    EL(E_T_RDREQ, RTEL_IPFIX_REC_IO, 8, T_U64, S_DEFAULT, U_NS,
       "nvmeReadRequestNanoseconds",
       "Q: first RDMA READ REQUEST of a write, ns; all ones if none"),
    EL(E_IOL, RTEL_IPFIX_REC_IO, 8, T_S64, S_QUANTITY, U_NS,
       "nvmeIolNanoseconds", "I/O latency R - C, ns; -2^63 if none"),
    EL(E_DAL, RTEL_IPFIX_REC_IO, 8, T_S64, S_QUANTITY, U_NS,
       "nvmeDalNanoseconds", "data access latency, ns; -2^63 if none"),
    EL(E_DPL, RTEL_IPFIX_REC_IO, 8, T_S64, S_QUANTITY, U_NS,
       "nvmeDplNanoseconds",
       "data preparation latency P1 - Q, ns; -2^63 if none"),
    EL(E_XFER, RTEL_IPFIX_REC_IO, 8, T_S64, S_QUANTITY, U_NS,
       "nvmeTransferNanoseconds", "data transfer time, ns; -2^63 if none"),
    EL(E_STORAGE_OBS, RTEL_IPFIX_REC_SEGMENT, 4, T_U32, S_ID, U_NONE,
       "nvmeStorageObservationPoint",
       "storage-side point of a segment (the compute side is "
       "observationPointId)"),
    EL(E_ROLES_CONFIGURED, RTEL_IPFIX_REC_SEGMENT, 1, T_U8, S_ID, U_NONE,
       "nvmeRolesConfigured",
       "1 if the points' roles were configured, 0 if inferred"),
    EL(E_IOL1, RTEL_IPFIX_REC_SEGMENT, 8, T_S64, S_QUANTITY, U_NS,
       "nvmeIol1Nanoseconds", "IOL at the compute-side point, ns"),
    EL(E_IOL2, RTEL_IPFIX_REC_SEGMENT, 8, T_S64, S_QUANTITY, U_NS,
       "nvmeIol2Nanoseconds", "IOL at the storage-side point, ns"),
    EL(E_RTT, RTEL_IPFIX_REC_SEGMENT, 8, T_S64, S_QUANTITY, U_NS,
       "nvmeRttNanoseconds", "iol1 - iol2, ns"),
    EL(E_COMPUTE, RTEL_IPFIX_REC_SEGMENT, 8, T_S64, S_QUANTITY, U_NS,
       "nvmeComputeNanoseconds",
       "compute segment (DPL at the compute side for writes), ns"),
    EL(E_NETWORK, RTEL_IPFIX_REC_SEGMENT, 8, T_S64, S_QUANTITY, U_NS,
       "nvmeNetworkNanoseconds", "network segment, ns"),
    EL(E_STORAGE, RTEL_IPFIX_REC_SEGMENT, 8, T_S64, S_QUANTITY, U_NS,
       "nvmeStorageNanoseconds", "storage segment, ns"),
    EL(E_PERIOD_START, RTEL_IPFIX_REC_AGGREGATE, 8, T_U64, S_DEFAULT, U_NS,
       "nvmePeriodStartNanoseconds", "start of the reporting period, ns"),
    EL(E_PERIOD_END, RTEL_IPFIX_REC_AGGREGATE, 8, T_U64, S_DEFAULT, U_NS,
       "nvmePeriodEndNanoseconds", "end of the reporting period, ns"),
    EL(E_IO_COUNT, RTEL_IPFIX_REC_AGGREGATE, 8, T_U64, S_DELTA, U_NONE,
       "nvmeIoCount", "completed I/Os of the period"),
    EL(E_IO_ERRORS, RTEL_IPFIX_REC_AGGREGATE, 8, T_U64, S_DELTA, U_NONE,
       "nvmeIoErrorCount", "completed I/Os with a non-zero status"),
    EL(E_IO_TIMEOUTS, RTEL_IPFIX_REC_AGGREGATE, 8, T_U64, S_DELTA, U_NONE,
       "nvmeIoTimeoutCount", "I/Os that ended without a response"),
    LAT(E_IOL_LAT, "nvmeIol", "IOL"),
    LAT(E_DAL_LAT, "nvmeDal", "DAL"),
    LAT(E_DPL_LAT, "nvmeDpl", "DPL (writes)"),
};

const rtel_ipfix_element *rtel_ipfix_element_get(size_t index) {
  return index < E_COUNT ? &elements[index] : NULL;
}

/* ------------------------------------------------------------------ */
/* Templates                                                          */
/* ------------------------------------------------------------------ */

/* Where a field's value comes from and how it is written. */
enum {
  K_UINT,    /* unsigned member of |msize| bytes, written in |len| */
  K_ADDR4,   /* the last 4 bytes of a 16-byte (IPv4-mapped) member */
  K_ADDR6,   /* 16 bytes */
  K_MS,      /* rtel_tstamp ns -> milliseconds (dateTimeMilliseconds) */
  K_NTP,     /* rtel_tstamp ns -> NTP (dateTimeNanoseconds) */
  K_PPM,     /* double -> parts per million, u32 */
  K_FLOW_ID, /* the encoder's next flowId */
  K_DERIVED  /* a member of rtel__ipfix_derived */
};

typedef struct field {
  uint16_t ie;   /* element id; with |ent|, an enterprise element */
  uint8_t ent;   /* 1: under the encoder's PEN */
  uint8_t kind;  /* K_* */
  uint16_t len;  /* encoded length */
  uint16_t off;  /* offset in the record (or in the derived values) */
  uint8_t msize; /* size of the member, K_UINT and K_DERIVED */
  /* a K_DERIVED member is read as K_UINT (|sub| = K_UINT) or K_MS/K_NTP */
  uint8_t sub;
} field;

/* Values some records derive before they are written. */
typedef struct derived {
  rtel_tstamp start; /* flowStart*: the record's first time */
  rtel_tstamp end;   /* flowEnd*: its last time */
  uint8_t end_reason;
} derived;

#define MSZ(TYPE, m) ((uint8_t)sizeof(((TYPE *)0)->m))
#define STD(ie, kind, len, TYPE, m)                                           \
  { (ie), 0, (kind), (len), (uint16_t)offsetof(TYPE, m), MSZ(TYPE, m), 0 }
#define STD_U(ie, len, TYPE, m) STD(ie, K_UINT, len, TYPE, m)
#define ENT(e, TYPE, m)                                                       \
  { (e), 1, K_UINT, 0, (uint16_t)offsetof(TYPE, m), MSZ(TYPE, m), 0 }
#define ENT_PPM(e, TYPE, m)                                                   \
  { (e), 1, K_PPM, 0, (uint16_t)offsetof(TYPE, m), MSZ(TYPE, m), 0 }
#define DER(ie, sub, len, m)                                                  \
  {                                                                           \
    (ie), 0, K_DERIVED, (len), (uint16_t)offsetof(derived, m),                \
        MSZ(derived, m), (sub)                                                \
  }
#define FLOW_ID                                                               \
  { IE_FLOW_ID, 0, K_FLOW_ID, 8, 0, 0, 0 }
#define ADDRS(TYPE, s, d)                                                     \
  STD(IE_SRC_V4, K_ADDR4, 4, TYPE, s), STD(IE_DST_V4, K_ADDR4, 4, TYPE, d)
#define LATF(e, m)                                                            \
  ENT((e) + 0, rtel_io_aggregate, m.count),                                   \
      ENT((e) + 1, rtel_io_aggregate, m.min),                                 \
      ENT((e) + 2, rtel_io_aggregate, m.mean),                                \
      ENT((e) + 3, rtel_io_aggregate, m.p50),                                 \
      ENT((e) + 4, rtel_io_aggregate, m.p90),                                 \
      ENT((e) + 5, rtel_io_aggregate, m.p99),                                 \
      ENT((e) + 6, rtel_io_aggregate, m.p999),                                \
      ENT((e) + 7, rtel_io_aggregate, m.max)

/* The IPv4 templates; the IPv6 ones are the same with IE_SRC_V6 and
 * IE_DST_V6 (16 bytes) in place of IE_SRC_V4 and IE_DST_V4. */
static const field flow_fields[] = {
    FLOW_ID,
    STD_U(IE_OBS_POINT, RTEL__IPFIX_OBS_LEN, rtel_flow_record, obs),
    ADDRS(rtel_flow_record, src, dst),
    STD_U(IE_SRC_PORT, 2, rtel_flow_record, sport),
    STD_U(IE_VLAN, 2, rtel_flow_record, vlan),
    STD_U(IE_DSCP, 1, rtel_flow_record, dscp),
    STD_U(IE_INGRESS_IF, 4, rtel_flow_record, port),
    STD(IE_START_MS, K_MS, 8, rtel_flow_record, first_ts),
    STD(IE_END_MS, K_MS, 8, rtel_flow_record, last_ts),
    STD(IE_START_NS, K_NTP, 8, rtel_flow_record, first_ts),
    STD(IE_END_NS, K_NTP, 8, rtel_flow_record, last_ts),
    STD_U(IE_OCTET_DELTA, 8, rtel_flow_record, bytes),
    STD_U(IE_PACKET_DELTA, 8, rtel_flow_record, packets),
    DER(IE_END_REASON, K_UINT, 1, end_reason),
    ENT(E_DQPN, rtel_flow_record, dqpn),
    ENT(E_PEER_QPN, rtel_flow_record, peer_qpn),
    ENT(E_RDMA_OPS, rtel_flow_record, ops),
    ENT(E_FLOW_FLAGS, rtel_flow_record, flags),
    ENT(E_END, rtel_flow_record, end),
    ENT(E_FCT, rtel_flow_record, fct),
    ENT(E_FET, rtel_flow_record, fet_bps),
    ENT_PPM(E_FNR, rtel_flow_record, fnr),
    ENT_PPM(E_RETX_RATIO, rtel_flow_record, retx_ratio),
    ENT(E_RETX_PKTS, rtel_flow_record, retx_packets),
    ENT(E_RETX_BYTES, rtel_flow_record, retx_bytes),
    ENT(E_NAKS_SEQ, rtel_flow_record, naks_seq),
    ENT(E_NAKS_RNR, rtel_flow_record, naks_rnr),
    ENT(E_NAKS_FATAL, rtel_flow_record, naks_fatal),
    ENT(E_CNPS, rtel_flow_record, cnps),
    ENT(E_ECN_CE, rtel_flow_record, ecn_ce),
    ENT(E_FECN, rtel_flow_record, fecn),
    ENT(E_BECN, rtel_flow_record, becn),
    ENT(E_PSN_GAPS, rtel_flow_record, psn_gaps),
    ENT(E_LOSSES_UP, rtel_flow_record, losses_upstream),
    ENT(E_LOSSES_DOWN, rtel_flow_record, losses_downstream),
    ENT(E_RETX_NAK, rtel_flow_record, retx_after_nak),
    ENT(E_RETX_TIMEOUT, rtel_flow_record, retx_after_timeout),
    ENT(E_RETX_RNR, rtel_flow_record, retx_after_rnr),
    ENT(E_LOST_UP, rtel_flow_record, lost_upstream),
    ENT(E_ORPHANS, rtel_flow_record, orphan_packets),
    ENT(E_MESSAGES, rtel_flow_record, messages),
    ENT(E_COV_START, rtel_flow_record, coverage_start),
    ENT(E_COV_END, rtel_flow_record, coverage_end),
};

static const field msg_fields[] = {
    FLOW_ID,
    STD_U(IE_OBS_POINT, RTEL__IPFIX_OBS_LEN, rtel_msg_record, obs),
    ADDRS(rtel_msg_record, src, dst),
    STD_U(IE_INGRESS_IF, 4, rtel_msg_record, port),
    STD(IE_START_MS, K_MS, 8, rtel_msg_record, first_ts),
    STD(IE_END_MS, K_MS, 8, rtel_msg_record, last_ts),
    STD(IE_START_NS, K_NTP, 8, rtel_msg_record, first_ts),
    STD(IE_END_NS, K_NTP, 8, rtel_msg_record, last_ts),
    STD_U(IE_OCTET_DELTA, 8, rtel_msg_record, bytes),
    STD_U(IE_PACKET_DELTA, 8, rtel_msg_record, packets),
    DER(IE_END_REASON, K_UINT, 1, end_reason),
    ENT(E_DQPN, rtel_msg_record, dqpn),
    ENT(E_PEER_QPN, rtel_msg_record, peer_qpn),
    ENT(E_RDMA_OPS, rtel_msg_record, op),
    ENT(E_FLOW_FLAGS, rtel_msg_record, flags),
    ENT(E_END, rtel_msg_record, end),
    ENT(E_FIRST_PSN, rtel_msg_record, first_psn),
    ENT(E_LAST_PSN, rtel_msg_record, last_psn),
    ENT(E_RETH_LEN, rtel_msg_record, reth_len),
    ENT(E_FCT, rtel_msg_record, fct),
    ENT(E_FET, rtel_msg_record, fet_bps),
    ENT(E_RETX_PKTS, rtel_msg_record, retx_packets),
    ENT(E_RETX_BYTES, rtel_msg_record, retx_bytes),
    ENT(E_NAKS_SEQ, rtel_msg_record, naks_seq),
    ENT(E_NAKS_RNR, rtel_msg_record, naks_rnr),
    ENT(E_NAKS_FATAL, rtel_msg_record, naks_fatal),
    ENT(E_CNPS, rtel_msg_record, cnps),
    ENT(E_ECN_CE, rtel_msg_record, ecn_ce),
    ENT(E_LOSSES_UP, rtel_msg_record, losses_upstream),
    ENT(E_LOSSES_DOWN, rtel_msg_record, losses_downstream),
    ENT(E_LOSSES_NAK, rtel_msg_record, losses_nak),
    ENT(E_LOSSES_RNR, rtel_msg_record, losses_rnr),
    ENT(E_LOSSES_TIMEOUT, rtel_msg_record, losses_timeout),
    ENT(E_LOST_UP, rtel_msg_record, lost_upstream),
    ENT(E_COV_START, rtel_msg_record, coverage_start),
    ENT(E_COV_END, rtel_msg_record, coverage_end),
};

static const field io_fields[] = {
    FLOW_ID,
    STD_U(IE_OBS_POINT, RTEL__IPFIX_OBS_LEN, rtel_io_record, obs),
    ADDRS(rtel_io_record, host, target),
    STD_U(IE_INGRESS_IF, 4, rtel_io_record, port),
    DER(IE_START_MS, K_MS, 8, start),
    DER(IE_END_MS, K_MS, 8, end),
    DER(IE_START_NS, K_NTP, 8, start),
    DER(IE_END_NS, K_NTP, 8, end),
    DER(IE_END_REASON, K_UINT, 1, end_reason),
    ENT(E_IO_STATE, rtel_io_record, state),
    ENT(E_IO_FLAGS, rtel_io_record, flags),
    ENT(E_HOST_QPN, rtel_io_record, host_qpn),
    ENT(E_TARGET_QPN, rtel_io_record, target_qpn),
    ENT(E_CID, rtel_io_record, cid),
    ENT(E_QID, rtel_io_record, qid),
    ENT(E_OPCODE, rtel_io_record, opcode),
    ENT(E_FCTYPE, rtel_io_record, fctype),
    ENT(E_STATUS, rtel_io_record, nvme_status),
    ENT(E_NSID, rtel_io_record, nsid),
    ENT(E_SLBA, rtel_io_record, slba),
    ENT(E_NLB, rtel_io_record, nlb),
    ENT(E_IO_BYTES, rtel_io_record, bytes),
    ENT(E_T_CMD, rtel_io_record, t_cmd),
    ENT(E_T_RSP, rtel_io_record, t_rsp),
    ENT(E_T_DATA_FIRST, rtel_io_record, t_data_first),
    ENT(E_T_DATA_LAST, rtel_io_record, t_data_last),
    ENT(E_T_RDREQ, rtel_io_record, t_rdreq),
    ENT(E_IOL, rtel_io_record, iol),
    ENT(E_DAL, rtel_io_record, dal),
    ENT(E_DPL, rtel_io_record, dpl),
    ENT(E_XFER, rtel_io_record, xfer),
    ENT(E_COV_START, rtel_io_record, coverage_start),
    ENT(E_COV_END, rtel_io_record, coverage_end),
};

static const field seg_fields[] = {
    FLOW_ID,
    STD_U(IE_OBS_POINT, RTEL__IPFIX_OBS_LEN, rtel_segment_record, compute_obs),
    ADDRS(rtel_segment_record, host, target),
    ENT(E_STORAGE_OBS, rtel_segment_record, storage_obs),
    ENT(E_IO_FLAGS, rtel_segment_record, flags),
    ENT(E_ROLES_CONFIGURED, rtel_segment_record, roles_configured),
    ENT(E_TARGET_QPN, rtel_segment_record, target_qpn),
    ENT(E_CID, rtel_segment_record, cid),
    ENT(E_OPCODE, rtel_segment_record, opcode),
    ENT(E_NSID, rtel_segment_record, nsid),
    ENT(E_SLBA, rtel_segment_record, slba),
    ENT(E_IO_BYTES, rtel_segment_record, bytes),
    ENT(E_IOL1, rtel_segment_record, iol1),
    ENT(E_IOL2, rtel_segment_record, iol2),
    ENT(E_RTT, rtel_segment_record, rtt),
    ENT(E_COMPUTE, rtel_segment_record, compute),
    ENT(E_NETWORK, rtel_segment_record, network),
    ENT(E_STORAGE, rtel_segment_record, storage),
};

static const field agg_fields[] = {
    FLOW_ID,
    STD_U(IE_OBS_POINT, RTEL__IPFIX_OBS_LEN, rtel_io_aggregate, obs),
    ADDRS(rtel_io_aggregate, host, target),
    STD(IE_IVL_START_MS, K_MS, 8, rtel_io_aggregate, period_start),
    STD(IE_IVL_END_MS, K_MS, 8, rtel_io_aggregate, period_end),
    STD_U(IE_OCTET_DELTA, 8, rtel_io_aggregate, bytes),
    ENT(E_IO_FLAGS, rtel_io_aggregate, flags),
    ENT(E_OPCODE, rtel_io_aggregate, opcode),
    ENT(E_NSID, rtel_io_aggregate, nsid),
    ENT(E_PERIOD_START, rtel_io_aggregate, period_start),
    ENT(E_PERIOD_END, rtel_io_aggregate, period_end),
    ENT(E_IO_COUNT, rtel_io_aggregate, count),
    ENT(E_IO_ERRORS, rtel_io_aggregate, errors),
    ENT(E_IO_TIMEOUTS, rtel_io_aggregate, timeouts),
    LATF(E_IOL_LAT, iol),
    LATF(E_DAL_LAT, dal),
    LATF(E_DPL_LAT, dpl),
};

#define NFIELDS(a) (sizeof(a) / sizeof((a)[0]))

/* Template i is record type i / 2, IPv6 if i is odd; its id is
 * RTEL__IPFIX_TID_FIRST + i. */
static const struct {
  const field *fields;
  uint16_t n;
} tmpl_fields[RTEL__IPFIX_NTYPES] = {
    {flow_fields, NFIELDS(flow_fields)}, {msg_fields, NFIELDS(msg_fields)},
    {io_fields, NFIELDS(io_fields)},     {seg_fields, NFIELDS(seg_fields)},
    {agg_fields, NFIELDS(agg_fields)},
};

static uint16_t field_len(const field *f) {
  return f->ent ? elements[f->ie - 1].length : f->len;
}

/* The field as written into template |t|: the address family decides the
 * address elements. */
static field tmpl_field(unsigned t, size_t i) {
  field f = tmpl_fields[t / 2].fields[i];
  if ((t & 1) && f.kind == K_ADDR4) {
    f.kind = K_ADDR6;
    f.ie = f.ie == IE_SRC_V4 ? IE_SRC_V6 : IE_DST_V6;
    f.len = 16;
  }
  return f;
}

size_t rtel__ipfix_record_len(unsigned t) {
  size_t len = 0, i;
  for (i = 0; i < tmpl_fields[t / 2].n; i++) {
    field f = tmpl_field(t, i);
    len += field_len(&f);
  }
  return len;
}

size_t rtel__ipfix_template_len(unsigned t) {
  size_t len = 4, i;
  for (i = 0; i < tmpl_fields[t / 2].n; i++) {
    len += tmpl_fields[t / 2].fields[i].ent ? 8 : 4;
  }
  return len;
}

/* ------------------------------------------------------------------ */
/* Writing                                                            */
/* ------------------------------------------------------------------ */

static void put16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v) {
  put16(p, (uint16_t)(v >> 16));
  put16(p + 2, (uint16_t)v);
}

static void put64(uint8_t *p, uint64_t v) {
  put32(p, (uint32_t)(v >> 32));
  put32(p + 4, (uint32_t)v);
}

/* The low |len| bytes of |v|, big-endian. */
static void put_uint(uint8_t *p, uint64_t v, unsigned len) {
  while (len-- > 0) {
    p[len] = (uint8_t)v;
    v >>= 8;
  }
}

static uint64_t load_uint(const uint8_t *p, unsigned size) {
  uint8_t u8;
  uint16_t u16;
  uint32_t u32;
  uint64_t u64;
  switch (size) {
  case 1:
    memcpy(&u8, p, 1);
    return u8;
  case 2:
    memcpy(&u16, p, 2);
    return u16;
  case 4:
    memcpy(&u32, p, 4);
    return u32;
  default:
    memcpy(&u64, p, 8);
    return u64;
  }
}

uint64_t rtel__ipfix_ntp(rtel_tstamp ns) {
  uint64_t sec = ns / 1000000000u, sub = ns % 1000000000u;
  /* the fraction one above its floor: frac * 10^9 / 2^32 then lies in
   * (sub, sub + 0.233], so truncating it (as tshark does, in floating
   * point) and rounding it both give |sub| back; the exact fraction of a
   * multiple of 1953125 ns would come back 1 ns short from tshark */
  uint64_t frac = (sub << 32) / 1000000000u + 1;
  return (sec + RTEL__IPFIX_NTP_OFFSET) << 32 | frac;
}

static uint32_t to_ppm(double v) {
  double ppm = v * 1e6 + 0.5;
  if (!(ppm >= 0)) { /* negative or NaN */
    return 0;
  }
  if (ppm >= 4294967295.0) {
    return 0xffffffffu;
  }
  return (uint32_t)ppm;
}

static void put_time(uint8_t *p, unsigned kind, rtel_tstamp t) {
  if (t == RTEL_TSTAMP_NONE) {
    put64(p, 0);
  } else if (kind == K_MS) {
    put64(p, t / 1000000u);
  } else {
    put64(p, rtel__ipfix_ntp(t));
  }
}

/* Writes one data record of template |t| from |rec| and |d| at |p|. */
static void write_record(rtel_ipfix *enc, unsigned t, const void *rec,
                         const derived *d, uint8_t *p) {
  const uint8_t *base = rec;
  size_t i;
  double dv;
  for (i = 0; i < tmpl_fields[t / 2].n; i++) {
    field f = tmpl_field(t, i);
    unsigned len = field_len(&f);
    const uint8_t *src = base + f.off;
    unsigned kind = f.kind;
    if (kind == K_DERIVED) {
      src = (const uint8_t *)d + f.off;
      kind = f.sub;
    }
    switch (kind) {
    case K_UINT:
      put_uint(p, load_uint(src, f.msize), len);
      break;
    case K_ADDR4:
      memcpy(p, src + 12, 4);
      break;
    case K_ADDR6:
      memcpy(p, src, 16);
      break;
    case K_MS:
    case K_NTP:
      put_time(p, kind, (rtel_tstamp)load_uint(src, 8));
      break;
    case K_PPM:
      memcpy(&dv, src, sizeof(dv));
      put32(p, to_ppm(dv));
      break;
    default: /* K_FLOW_ID */
      put64(p, enc->next_flow_id);
      break;
    }
    p += len;
  }
}

/* IPFIX flowEndReason (IANA): 1 idle timeout, 2 active timeout, 3 end of
 * flow detected, 4 forced end, 5 lack of resources. */
static uint8_t end_reason(uint32_t end) {
  switch (end) {
  case RTEL_END_IDLE:
    return 1;
  case RTEL_END_ACTIVE:
    return 2;
  case RTEL_END_ACKED:
  case RTEL_END_SETTLED:
    return 3;
  case RTEL_END_EVICTED:
  case RTEL_END_OVERFLOW:
    return 5;
  default: /* flush, truncated */
    return 4;
  }
}

static uint8_t io_end_reason(uint32_t state) {
  switch (state) {
  case RTEL_IO_TIMEOUT:
    return 1;
  case RTEL_IO_EVICTED:
    return 5;
  case RTEL_IO_TRUNCATED:
    return 4;
  default: /* complete, orphan: the response ended it */
    return 3;
  }
}

static rtel_tstamp later(rtel_tstamp a, rtel_tstamp b) {
  if (a == RTEL_TSTAMP_NONE) {
    return b;
  }
  if (b == RTEL_TSTAMP_NONE) {
    return a;
  }
  return a > b ? a : b;
}

/* ------------------------------------------------------------------ */
/* Messages and sets                                                  */
/* ------------------------------------------------------------------ */

static void close_set(rtel_ipfix *enc) {
  if (enc->set_id != 0) {
    put16(enc->buf + enc->set_start + 2,
          (uint16_t)(enc->pos - enc->set_start));
    enc->set_id = 0;
  }
}

/* Makes room for |len| bytes in a set of id |set_id| (opening it if the
 * current set is another); returns where to write, or NULL if the message
 * has no room. */
static uint8_t *reserve(rtel_ipfix *enc, uint16_t set_id, size_t len) {
  size_t need = len + (enc->set_id == set_id ? 0 : 4);
  uint8_t *p;
  if (enc->cap - enc->pos < need) {
    return NULL;
  }
  if (enc->set_id != set_id) {
    close_set(enc);
    enc->set_start = enc->pos;
    enc->set_id = set_id;
    put16(enc->buf + enc->pos, set_id);
    put16(enc->buf + enc->pos + 2, 0);
    enc->pos += 4;
  }
  p = enc->buf + enc->pos;
  enc->pos += len;
  return p;
}

/* The length of a name or description of the element table (the library
 * is freestanding: no strlen); every one is < 255 bytes, which the
 * encoder's tests check. */
static size_t str_len(const char *s) {
  size_t n = 0;
  while (s[n] != '\0') {
    n++;
  }
  return n;
}

static size_t put_string(uint8_t *p, const char *s) {
  size_t n = str_len(s);
  p[0] = (uint8_t)n;
  memcpy(p + 1, s, n);
  return n + 1;
}

/* The RFC 5610 type record of element |e|: scope PEN and element id,
 * then data type, semantics, units, range (0 and 0: none; libfixbuf
 * recognises type records by all of these), name and description. */
static size_t type_record_len(const rtel_ipfix_element *e) {
  return 4 + 2 + 1 + 1 + 2 + 8 + 8 + 1 + str_len(e->name) + 1 +
         str_len(e->description);
}

static int write_type_record(rtel_ipfix *enc, const rtel_ipfix_element *e) {
  uint8_t *p = reserve(enc, RTEL__IPFIX_TID_TYPES, type_record_len(e));
  if (p == NULL) {
    return 0;
  }
  put32(p, enc->s.pen);
  put16(p + 4, e->id);
  p[6] = e->data_type;
  p[7] = e->semantics;
  put16(p + 8, e->units);
  put64(p + 10, 0);
  put64(p + 18, 0);
  p += 26;
  p += put_string(p, e->name);
  put_string(p, e->description);
  enc->msg_records++;
  return 1;
}

static int write_types_template(rtel_ipfix *enc) {
  static const uint16_t ies[][2] = {
      {IE_PEN, 4},          {IE_IE_ID, 2},        {IE_IE_TYPE, 1},
      {IE_IE_SEMANTICS, 1}, {IE_IE_UNITS, 2},     {IE_IE_RANGE_BEGIN, 8},
      {IE_IE_RANGE_END, 8}, {IE_IE_NAME, 0xffff}, {IE_IE_DESCR, 0xffff}};
  size_t i, n = sizeof(ies) / sizeof(ies[0]);
  uint8_t *p = reserve(enc, 3, 6 + 4 * n);
  if (p == NULL) {
    return 0;
  }
  put16(p, RTEL__IPFIX_TID_TYPES);
  put16(p + 2, (uint16_t)n);
  put16(p + 4, 2); /* scope: the PEN and the element id */
  p += 6;
  for (i = 0; i < n; i++, p += 4) {
    put16(p, ies[i][0]);
    put16(p + 2, ies[i][1]);
  }
  return 1;
}

static int write_template(rtel_ipfix *enc, unsigned t) {
  size_t i;
  uint8_t *p = reserve(enc, 2, rtel__ipfix_template_len(t));
  if (p == NULL) {
    return 0;
  }
  put16(p, (uint16_t)(RTEL__IPFIX_TID_FIRST + t));
  put16(p + 2, tmpl_fields[t / 2].n);
  p += 4;
  for (i = 0; i < tmpl_fields[t / 2].n; i++) {
    field f = tmpl_field(t, i);
    put16(p, (uint16_t)(f.ie | (f.ent ? 0x8000u : 0)));
    put16(p + 2, field_len(&f));
    p += 4;
    if (f.ent) {
      put32(p, enc->s.pen);
      p += 4;
    }
  }
  return 1;
}

/* Control items, in order: the options template of the type records and
 * the type records (unless RTEL_IPFIX_NO_TYPE_INFO), then the data
 * templates. */
static unsigned ctl_count(const rtel_ipfix *enc) {
  unsigned n = RTEL__IPFIX_NTEMPLATES;
  if (!(enc->s.flags & RTEL_IPFIX_NO_TYPE_INFO)) {
    n += 1 + E_COUNT;
  }
  return n;
}

static int write_ctl_item(rtel_ipfix *enc, unsigned i) {
  if (!(enc->s.flags & RTEL_IPFIX_NO_TYPE_INFO)) {
    if (i == 0) {
      return write_types_template(enc);
    }
    if (i <= E_COUNT) {
      return write_type_record(enc, &elements[i - 1]);
    }
    i -= 1 + E_COUNT;
  }
  return write_template(enc, i);
}

static void write_control(rtel_ipfix *enc) {
  unsigned n = ctl_count(enc);
  while (enc->ctl_next < n && write_ctl_item(enc, enc->ctl_next)) {
    enc->ctl_next++;
  }
  if (enc->ctl_next == n) {
    enc->ctl_pending = 0;
    enc->ctl_done_at = enc->now;
  }
}

/* ------------------------------------------------------------------ */
/* Public functions                                                   */
/* ------------------------------------------------------------------ */

static size_t settings_len(int version) {
  return rtel__version_len(version, RTEL_IPFIX_SETTINGS_VERSION,
                           rtel_ipfix_settings, first_flow_id);
}

void rtel_ipfix_settings_default_versioned(int settings_version,
                                           rtel_ipfix_settings *settings) {
  rtel_ipfix_settings s;
  size_t len = settings_len(settings_version);
  if (settings == NULL || len == 0) {
    return;
  }
  memset(&s, 0, sizeof(s));
  s.pen = RTEL_IPFIX_PEN_DOCUMENTATION;
  s.domain_id = 0;
  s.max_msg_len = RTEL_IPFIX_MIN_MSG_LEN;
  s.flags = 0;
  s.template_refresh = 60ull * 1000000000u;
  s.first_flow_id = 1;
  memcpy(settings, &s, len);
}

int rtel_ipfix_new_versioned(rtel_ipfix **penc, int settings_version,
                             const rtel_ipfix_settings *settings,
                             const rtel_mem *mem) {
  rtel_ipfix_settings s;
  rtel_ipfix *enc;
  size_t len = settings_len(settings_version);
  if (penc == NULL) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  if (len == 0) {
    return RTEL_ERR_UNSUPPORTED_VERSION;
  }
  rtel_ipfix_settings_default(&s);
  if (settings) {
    memcpy(&s, settings, len);
  }
  if (s.pen == 0 || s.max_msg_len < RTEL_IPFIX_MIN_MSG_LEN ||
      s.max_msg_len > RTEL_IPFIX_MAX_MSG_LEN ||
      (s.flags & ~(uint32_t)RTEL_IPFIX_NO_TYPE_INFO)) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  if (mem == NULL && (mem = rtel__mem_default()) == NULL) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  if (!mem->malloc || !mem->free || !mem->calloc || !mem->realloc) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  enc = mem->calloc(1, sizeof(*enc), mem->user_data);
  if (enc == NULL) {
    return RTEL_ERR_NOMEM;
  }
  enc->mem = *mem;
  enc->s = s;
  enc->next_flow_id = s.first_flow_id;
  rtel_ipfix_reset(enc);
  *penc = enc;
  return 0;
}

void rtel_ipfix_del(rtel_ipfix *enc) {
  if (enc) {
    enc->mem.free(enc, enc->mem.user_data);
  }
}

void rtel_ipfix_reset(rtel_ipfix *enc) {
  if (enc == NULL) {
    return;
  }
  enc->seq = 0;
  enc->ctl_pending = 1;
  enc->ctl_next = 0;
  enc->ctl_done_at = RTEL_TSTAMP_NONE;
  enc->buf = NULL;
}

int rtel_ipfix_control_pending(const rtel_ipfix *enc) {
  return enc != NULL && enc->ctl_pending;
}

rtel_tstamp rtel_ipfix_get_expiry(const rtel_ipfix *enc) {
  if (enc == NULL || enc->ctl_pending || enc->s.template_refresh == 0 ||
      enc->ctl_done_at == RTEL_TSTAMP_NONE) {
    return RTEL_TSTAMP_NONE;
  }
  if (enc->ctl_done_at > RTEL_TSTAMP_NONE - 1 - enc->s.template_refresh) {
    return RTEL_TSTAMP_NONE - 1;
  }
  return enc->ctl_done_at + enc->s.template_refresh;
}

int rtel_ipfix_handle_expiry(rtel_ipfix *enc, rtel_tstamp now) {
  if (enc == NULL) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  if (now >= rtel_ipfix_get_expiry(enc) && !enc->ctl_pending &&
      rtel_ipfix_get_expiry(enc) != RTEL_TSTAMP_NONE) {
    enc->ctl_pending = 1;
    enc->ctl_next = 0;
  }
  return 0;
}

int rtel_ipfix_begin(rtel_ipfix *enc, uint8_t *buf, size_t buflen,
                     rtel_tstamp now) {
  if (enc == NULL || buf == NULL || buflen < RTEL_IPFIX_MIN_MSG_LEN) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  if (enc->buf != NULL) {
    return RTEL_ERR_INVALID_STATE;
  }
  enc->buf = buf;
  enc->cap = buflen < enc->s.max_msg_len ? buflen : enc->s.max_msg_len;
  enc->pos = RTEL__IPFIX_HDR_LEN;
  enc->set_id = 0;
  enc->msg_records = 0;
  enc->now = now;
  if (enc->ctl_pending) {
    write_control(enc);
  }
  return 0;
}

rtel_ssize rtel_ipfix_end(rtel_ipfix *enc) {
  size_t len;
  if (enc == NULL) {
    return RTEL_ERR_INVALID_ARGUMENT;
  }
  if (enc->buf == NULL) {
    return RTEL_ERR_INVALID_STATE;
  }
  close_set(enc);
  len = enc->pos;
  if (len == RTEL__IPFIX_HDR_LEN) {
    enc->buf = NULL;
    return 0;
  }
  put16(enc->buf, 10);
  put16(enc->buf + 2, (uint16_t)len);
  put32(enc->buf + 4, (uint32_t)(enc->now / 1000000000u));
  put32(enc->buf + 8, enc->seq);
  put32(enc->buf + 12, enc->s.domain_id);
  enc->seq += enc->msg_records;
  enc->buf = NULL;
  return (rtel_ssize)len;
}

/* Appends one data record of record type |type| (its template by the
 * address family |v6|). */
static int add_record(rtel_ipfix *enc, unsigned type, int v6, const void *rec,
                      const derived *d) {
  unsigned t = type * 2 + (v6 ? 1u : 0u);
  uint8_t *p;
  if (enc->buf == NULL) {
    return RTEL_ERR_INVALID_STATE;
  }
  if (enc->ctl_pending) {
    /* the templates first. Due since a message that still holds nothing
     * began (a refresh): they go into it now; otherwise the next message
     * begins with them. */
    if (enc->pos == RTEL__IPFIX_HDR_LEN) {
      write_control(enc);
    }
    if (enc->ctl_pending) {
      return RTEL_ERR_BUFFER_FULL;
    }
  }
  p = reserve(enc, (uint16_t)(RTEL__IPFIX_TID_FIRST + t),
              rtel__ipfix_record_len(t));
  if (p == NULL) {
    return RTEL_ERR_BUFFER_FULL;
  }
  write_record(enc, t, rec, d, p);
  enc->next_flow_id++;
  enc->msg_records++;
  return 0;
}

/* The caller's record widened to the library's struct (zeros beyond the
 * caller's version), or an error. */
#define WIDEN(TYPE, LATEST, LAST1, version, rec, out)                         \
  do {                                                                        \
    size_t len_ = rtel__version_len(version, LATEST, TYPE, LAST1);            \
    if (enc == NULL || (rec) == NULL) {                                       \
      return RTEL_ERR_INVALID_ARGUMENT;                                       \
    }                                                                         \
    if (len_ == 0) {                                                          \
      return RTEL_ERR_UNSUPPORTED_VERSION;                                    \
    }                                                                         \
    memset(&(out), 0, sizeof(out));                                           \
    memcpy(&(out), (rec), len_);                                              \
  } while (0)

int rtel_ipfix_add_flow_versioned(rtel_ipfix *enc, int rec_version,
                                  const rtel_flow_record *rec) {
  rtel_flow_record r;
  derived d;
  WIDEN(rtel_flow_record, RTEL_FLOW_RECORD_VERSION, orphan_packets,
        rec_version, rec, r);
  memset(&d, 0, sizeof(d));
  d.end_reason = end_reason(r.end);
  return add_record(enc, RTEL__IPFIX_FLOW, (r.flags & RTEL_FLOW_F_IPV6) != 0,
                    &r, &d);
}

int rtel_ipfix_add_msg_versioned(rtel_ipfix *enc, int rec_version,
                                 const rtel_msg_record *rec) {
  rtel_msg_record r;
  derived d;
  WIDEN(rtel_msg_record, RTEL_MSG_RECORD_VERSION, fet_bps, rec_version, rec,
        r);
  memset(&d, 0, sizeof(d));
  d.end_reason = end_reason(r.end);
  return add_record(enc, RTEL__IPFIX_MSG, (r.flags & RTEL_FLOW_F_IPV6) != 0,
                    &r, &d);
}

int rtel_ipfix_add_io_versioned(rtel_ipfix *enc, int rec_version,
                                const rtel_io_record *rec) {
  rtel_io_record r;
  derived d;
  WIDEN(rtel_io_record, RTEL_IO_RECORD_VERSION, coverage_end, rec_version, rec,
        r);
  memset(&d, 0, sizeof(d));
  /* start: the command, else (an orphan) the response; end: the response,
   * else the last event seen */
  d.start = r.t_cmd != RTEL_TSTAMP_NONE ? r.t_cmd : r.t_rsp;
  d.end = r.t_rsp != RTEL_TSTAMP_NONE
              ? r.t_rsp
              : later(later(r.t_cmd, r.t_data_last), r.t_rdreq);
  d.end_reason = io_end_reason(r.state);
  return add_record(enc, RTEL__IPFIX_IO, (r.flags & RTEL_IO_F_IPV6) != 0, &r,
                    &d);
}

int rtel_ipfix_add_segment_versioned(rtel_ipfix *enc, int rec_version,
                                     const rtel_segment_record *rec) {
  rtel_segment_record r;
  derived d;
  WIDEN(rtel_segment_record, RTEL_SEGMENT_RECORD_VERSION, storage, rec_version,
        rec, r);
  memset(&d, 0, sizeof(d));
  return add_record(enc, RTEL__IPFIX_SEGMENT, (r.flags & RTEL_IO_F_IPV6) != 0,
                    &r, &d);
}

int rtel_ipfix_add_aggregate_versioned(rtel_ipfix *enc, int rec_version,
                                       const rtel_io_aggregate *rec) {
  rtel_io_aggregate r;
  derived d;
  WIDEN(rtel_io_aggregate, RTEL_IO_AGGREGATE_VERSION, dpl, rec_version, rec,
        r);
  memset(&d, 0, sizeof(d));
  return add_record(enc, RTEL__IPFIX_AGGREGATE,
                    (r.flags & RTEL_IO_F_IPV6) != 0, &r, &d);
}
