/* SPDX-License-Identifier: MIT */
/*
 * libroceTel: RoCEv2 packets in, RDMA telemetry out.
 *
 * This is the one public header. Every declaration below documents its
 * ownership rules, its errors and its threading; the man pages in section 3
 * are written from these comments.
 *
 * General contracts (see librocetel(3)):
 *
 *  - No I/O, no clock, no global mutable state, no threads, no logging.
 *    Time is always an argument, in nanoseconds (rtel_tstamp).
 *  - A context (rtel_ctx) is used by one thread at a time. Separate contexts
 *    are independent and may be used in parallel.
 *  - Functions return 0 or a positive count on success and a negative
 *    RTEL_ERR_* code on failure. Codes below RTEL_ERR_FATAL are fatal: the
 *    context may then only be deleted.
 *  - Malformed packets are not API errors: they are counted in rtel_ctx_stats.
 *  - Public structs that may grow are versioned: applications pass the
 *    version they were compiled with through the wrapper macros at the end
 *    of this file and never write a version number by hand.
 */
#ifndef ROCETEL_ROCETEL_H
#define ROCETEL_ROCETEL_H

#include <stddef.h>
#include <stdint.h>

#include <rocetel/rocetelver.h>

#if defined(RTEL_STATICLIB)
#  define RTEL_API
#elif defined(_WIN32)
#  ifdef BUILDING_ROCETEL
#    define RTEL_API __declspec(dllexport)
#  else
#    define RTEL_API __declspec(dllimport)
#  endif
#elif defined(BUILDING_ROCETEL) && defined(__GNUC__)
#  define RTEL_API __attribute__((visibility("default")))
#else
#  define RTEL_API
#endif

#if defined(__GNUC__) || defined(__clang__)
#  define RTEL_WARN_UNUSED_RESULT __attribute__((warn_unused_result))
#  define RTEL_DEPRECATED(msg) __attribute__((deprecated(msg)))
#else
#  define RTEL_WARN_UNUSED_RESULT
#  define RTEL_DEPRECATED(msg)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Basic types                                                              */
/* ------------------------------------------------------------------------ */

/**
 * @typedef
 *
 * Signed size for functions that return a count or a negative error code.
 * (ssize_t is POSIX, not C, and cannot be relied on to hold the error range.)
 */
typedef ptrdiff_t rtel_ssize;

/**
 * @typedef
 *
 * A timestamp or a duration in nanoseconds. The library never reads a
 * clock: every timestamp comes from the caller (capture, ASIC or mirror
 * time). Only differences of timestamps of one observation point are ever
 * taken.
 */
typedef uint64_t rtel_tstamp;

/**
 * @macro
 *
 * "No timestamp": returned by rtel_ctx_get_expiry() when no timer is armed.
 */
#define RTEL_TSTAMP_NONE UINT64_MAX

/* ------------------------------------------------------------------------ */
/* Error codes (values are pinned; never reused)                            */
/* ------------------------------------------------------------------------ */

/** An argument is invalid (NULL where not allowed, out of range). */
#define RTEL_ERR_INVALID_ARGUMENT -201
/** A struct version is unknown to this build of the library (too new). */
#define RTEL_ERR_UNSUPPORTED_VERSION -202
/** rtel_pkt_decode(): the packet is malformed (see rtel_pkt_hd.malformed);
 * rtel_icrc_compute(): the capture does not hold the whole packet. */
#define RTEL_ERR_MALFORMED -203
/** rtel_pkt_decode(): the packet is well formed but is not RoCE. */
#define RTEL_ERR_NOT_ROCE -204
/** The context failed earlier with a fatal error; only rtel_ctx_del(),
 * rtel_ctx_get_stats() and rtel_ctx_get_expiry() remain usable. */
#define RTEL_ERR_INVALID_STATE -205
/** rtel_ipfix_add_flow() and friends: the message has no room for the
 * record (nothing was written; end the message and begin another). */
#define RTEL_ERR_BUFFER_FULL -206
/** Threshold: error codes below this value are fatal. */
#define RTEL_ERR_FATAL -500
/** Memory allocation failed (only constructors allocate). */
#define RTEL_ERR_NOMEM -501
/** A callback returned non-zero; the context is unusable (fatal). */
#define RTEL_ERR_CALLBACK_FAILURE -502

/**
 * @function
 *
 * Returns a static, NUL-terminated English description of |error_code|.
 * Never returns NULL; unknown codes give "unknown error".
 *
 * Thread safety: safe from any thread.
 *
 * Since 0.1
 */
RTEL_API const char *rtel_strerror(int error_code);

/**
 * @function
 *
 * Returns nonzero if |error_code| is fatal (below RTEL_ERR_FATAL), 0 if not.
 *
 * Thread safety: safe from any thread.
 *
 * Since 0.1
 */
RTEL_API int rtel_err_is_fatal(int error_code);

/* ------------------------------------------------------------------------ */
/* Version                                                                  */
/* ------------------------------------------------------------------------ */

/**
 * @struct
 *
 * Run-time version information. Frozen: new information will be given by a
 * new function, not by growing this struct.
 */
typedef struct rtel_info {
  /** Always 1 for this struct layout. */
  int age;
  /** Version as a number 0xMMmmpp, as RTEL_VERSION_NUM. */
  uint32_t version_num;
  /** Version as a string, as RTEL_VERSION. */
  const char *version_str;
} rtel_info;

/**
 * @function
 *
 * Returns the version of the library that is linked at run time, or NULL if
 * it is older than |least_version| (a number 0xMMmmpp; 0 accepts any). The
 * returned struct is static and must not be modified or freed.
 *
 * Thread safety: safe from any thread.
 *
 * Since 0.1
 */
RTEL_API const rtel_info *rtel_version(uint32_t least_version);

/* ------------------------------------------------------------------------ */
/* Allocator                                                                */
/* ------------------------------------------------------------------------ */

typedef void *(*rtel_malloc)(size_t size, void *user_data);
typedef void (*rtel_free)(void *ptr, void *user_data);
typedef void *(*rtel_calloc)(size_t nmemb, size_t size, void *user_data);
typedef void *(*rtel_realloc)(void *ptr, size_t size, void *user_data);

/**
 * @struct
 *
 * Per-object allocator. The struct is copied by the constructors that take
 * it; a NULL pointer selects rtel_mem_default(). All four functions must be
 * set. This struct is frozen and not versioned.
 *
 * The library allocates only in constructors (sizing every table to its
 * configured bound) and frees only in destructors: the packet path never
 * calls the allocator.
 */
typedef struct rtel_mem {
  /** Passed as the last argument of every function below. */
  void *user_data;
  rtel_malloc malloc;
  rtel_free free;
  rtel_calloc calloc;
  rtel_realloc realloc;
} rtel_mem;

/**
 * @function
 *
 * Returns a static allocator that uses the C library's malloc family, or
 * NULL in a library built freestanding (RTEL_FREESTANDING, for firmware
 * without a C library), where every context needs the caller's rtel_mem.
 *
 * Thread safety: safe from any thread.
 *
 * Since 0.1
 */
RTEL_API const rtel_mem *rtel_mem_default(void);

/* ------------------------------------------------------------------------ */
/* Stateless packet decoder                                                 */
/* ------------------------------------------------------------------------ */

/**
 * @macrosection
 *
 * Link-layer types of the bytes handed to the decoder. The values are the
 * pcap LINKTYPE_* numbers (those of a pcap file header). libpcap's
 * pcap_datalink() returns DLT_* numbers, which are the same for these
 * except DLT_RAW (12, or 14 on some systems): map it to RTEL_LINK_RAW.
 */
/** Ethernet II, with any 802.1Q / 802.1ad VLAN tags (LINKTYPE_ETHERNET). */
#define RTEL_LINK_ETHERNET 1
/** Raw IPv4 or IPv6, told apart by the version nibble (LINKTYPE_RAW). */
#define RTEL_LINK_RAW 101
/** Linux "cooked" capture v1 (LINKTYPE_LINUX_SLL). */
#define RTEL_LINK_LINUX_SLL 113
/** Linux "cooked" capture v2 (LINKTYPE_LINUX_SLL2). */
#define RTEL_LINK_LINUX_SLL2 276

/** Default RoCEv2 UDP destination port. */
#define RTEL_ROCEV2_UDP_PORT 4791
/** Default VXLAN UDP destination port. */
#define RTEL_VXLAN_UDP_PORT 4789

/**
 * @macrosection
 *
 * Decoder flags (rtel_decode_opts.flags and rtel_settings.decode_flags).
 */
/** Compute and check the ICRC of each RoCE packet (off by default). A
 * context asks the CPU once, at creation, for carry-less multiplication
 * (VPCLMULQDQ with AVX-512, PCLMULQDQ, PMULL) and then uses it; the stateless
 * rtel_pkt_decode() and rtel_icrc_compute() use tables unless the library was
 * compiled for such a CPU. */
#define RTEL_DECODE_VERIFY_ICRC 0x1u
/** Do not decapsulate ERSPAN (GRE) and VXLAN: treat them as non-RoCE. */
#define RTEL_DECODE_NO_DECAP 0x2u
/** Do not decode RoCEv1 (ethertype 0x8915). */
#define RTEL_DECODE_NO_ROCEV1 0x4u

#define RTEL_DECODE_OPTS_V1 1
#define RTEL_DECODE_OPTS_VERSION RTEL_DECODE_OPTS_V1

/**
 * @struct
 *
 * Options of the stateless decoder, rtel_pkt_decode(). Zero in any field
 * means the default shown.
 */
typedef struct rtel_decode_opts {
  /** RTEL_DECODE_* flags. Default 0. */
  uint32_t flags;
  /** Link type of the bytes (RTEL_LINK_*). Default RTEL_LINK_ETHERNET. */
  uint32_t linktype;
  /** UDP destination port of RoCEv2. Default 4791. */
  uint32_t roce_udp_port;
  /** UDP destination port of VXLAN. Default 4789. */
  uint32_t vxlan_udp_port;
} rtel_decode_opts;

/**
 * @macrosection
 *
 * rtel_pkt_hd.flags: which headers were decoded and which conditions hold.
 * A header's fields in rtel_pkt_hd are valid only when its flag is set;
 * the decoder does not clear the fields of absent headers.
 */
#define RTEL_HD_F_ROCE 0x00000001u      /**< a RoCE packet (v1 or v2) */
#define RTEL_HD_F_TRUNCATED 0x00000002u /**< cap_len < wire_len */
#define RTEL_HD_F_HDR_TRUNC 0x00000004u /**< capture ends inside headers */
#define RTEL_HD_F_ETH 0x00000008u       /**< eth_* valid */
#define RTEL_HD_F_VLAN 0x00000010u      /**< nvlan >= 1 */
#define RTEL_HD_F_IPV4 0x00000020u      /**< IPv4 fields valid */
#define RTEL_HD_F_IPV6 0x00000040u      /**< IPv6 fields valid */
#define RTEL_HD_F_GRH 0x00000080u       /**< RoCEv1: GRH fields valid */
#define RTEL_HD_F_UDP 0x00000100u       /**< UDP fields valid */
#define RTEL_HD_F_BTH 0x00000200u       /**< BTH fields valid */
#define RTEL_HD_F_RDETH 0x00000400u
#define RTEL_HD_F_DETH 0x00000800u
#define RTEL_HD_F_XRCETH 0x00001000u
#define RTEL_HD_F_RETH 0x00002000u
#define RTEL_HD_F_ATOMICETH 0x00004000u
#define RTEL_HD_F_AETH 0x00008000u
#define RTEL_HD_F_ATOMICACKETH 0x00010000u
#define RTEL_HD_F_IMMDT 0x00020000u
#define RTEL_HD_F_IETH 0x00040000u
#define RTEL_HD_F_FETH 0x00080000u
#define RTEL_HD_F_CNP 0x00100000u         /**< opcode 0x81 */
#define RTEL_HD_F_MAD 0x00200000u         /**< a MAD on QP0/QP1: mad_* valid */
#define RTEL_HD_F_CM 0x00400000u          /**< a CM MAD: cm_* valid */
#define RTEL_HD_F_ICRC 0x00800000u        /**< the ICRC bytes were captured */
#define RTEL_HD_F_IP_FRAGMENT 0x01000000u /**< IP fragment (not decoded) */
#define RTEL_HD_F_ERSPAN_TS 0x02000000u   /**< erspan_ts is valid */
/** The opcode is reserved or vendor-specific (0xC0-0xFF): only the BTH is
 * decoded; everything between it and the ICRC counts as payload. */
#define RTEL_HD_F_UNKNOWN_OPCODE 0x04000000u
/** The BTH transport version is not 0: decoded as with an unknown opcode. */
#define RTEL_HD_F_UNKNOWN_TVER 0x08000000u

/**
 * @macrosection
 *
 * rtel_pkt_hd.encap bits: encapsulations removed to reach the RoCE packet.
 */
#define RTEL_ENCAP_ERSPAN1 0x1u  /**< GRE 0x88BE without sequence number */
#define RTEL_ENCAP_ERSPAN2 0x2u  /**< ERSPAN type II (GRE 0x88BE) */
#define RTEL_ENCAP_ERSPAN3 0x4u  /**< ERSPAN type III (GRE 0x22EB) */
#define RTEL_ENCAP_VXLAN 0x8u    /**< VXLAN (UDP 4789) */
#define RTEL_ENCAP_GRE_TEB 0x10u /**< GRE transparent Ethernet (0x6558) */

/**
 * @macrosection
 *
 * rtel_pkt_hd.icrc_status values.
 */
#define RTEL_ICRC_UNCHECKED 0u /**< verification was not asked for */
#define RTEL_ICRC_OK 1u        /**< computed ICRC equals the wire ICRC */
#define RTEL_ICRC_BAD 2u       /**< they differ */
#define RTEL_ICRC_TRUNCATED 3u /**< the capture does not hold the packet */

/**
 * @macrosection
 *
 * Malformation reasons (rtel_pkt_hd.malformed, rtel_ctx_stats.malformed[]).
 * Values are pinned and below RTEL_MALFORMED_SLOTS. See rtel_malformed_str().
 */
#define RTEL_MALFORMED_NONE 0u
/** The capture ends before the BTH (nothing RoCE could be decoded). */
#define RTEL_MALFORMED_TRUNCATED 1u
/** More than RTEL_MAX_VLAN VLAN tags. */
#define RTEL_MALFORMED_VLAN_DEPTH 2u
/** IP version nibble does not match the ethertype. */
#define RTEL_MALFORMED_IP_VERSION 3u
/** IPv4 header length below 20 bytes. */
#define RTEL_MALFORMED_IP_HLEN 4u
/** IP length field below the header length. (A length beyond the end of
 * the packet is a copy cut short by a mirror: decoded, flagged
 * RTEL_HD_F_TRUNCATED, with wire_len raised to what the header says.) */
#define RTEL_MALFORMED_IP_LEN 5u
/** IPv6 extension header chain too long or beyond the IP payload. */
#define RTEL_MALFORMED_IPV6_EXT 6u
/** UDP length below 8 or beyond the IP payload. */
#define RTEL_MALFORMED_UDP_LEN 7u
/** UDP payload shorter than BTH + extension headers + ICRC. */
#define RTEL_MALFORMED_ROCE_LEN 8u
/** BTH pad count larger than the payload. */
#define RTEL_MALFORMED_PAD 9u
/** GRE header with unsupported version, routing, or length. */
#define RTEL_MALFORMED_GRE 10u
/** ERSPAN header too short or with the wrong version. */
#define RTEL_MALFORMED_ERSPAN 11u
/** VXLAN header without the I flag, or too short. */
#define RTEL_MALFORMED_VXLAN 12u
/** Encapsulations nested deeper than RTEL_MAX_ENCAP. */
#define RTEL_MALFORMED_ENCAP_DEPTH 13u
/** RoCEv1 GRH with a next header other than 0x1B (IBA BTH). */
#define RTEL_MALFORMED_GRH 14u
/** A MAD on QP1 shorter than its header, or a CM message cut short. */
#define RTEL_MALFORMED_MAD 15u
/** Link type not supported by the decoder. */
#define RTEL_MALFORMED_LINKTYPE 16u
/** Number of reason slots in rtel_ctx_stats.malformed[] (pinned). */
#define RTEL_MALFORMED_SLOTS 32

/** Most VLAN tags decoded in one frame. */
#define RTEL_MAX_VLAN 4
/** Most nested encapsulations (ERSPAN/VXLAN/GRE) removed. */
#define RTEL_MAX_ENCAP 3

/**
 * @macrosection
 *
 * RDMA CM MAD attribute IDs (rtel_pkt_hd.cm_attr).
 */
#define RTEL_CM_REQ 0x0010u  /**< ConnectRequest */
#define RTEL_CM_MRA 0x0011u  /**< MsgRcptAck */
#define RTEL_CM_REJ 0x0012u  /**< ConnectReject */
#define RTEL_CM_REP 0x0013u  /**< ConnectReply */
#define RTEL_CM_RTU 0x0014u  /**< ReadyToUse */
#define RTEL_CM_DREQ 0x0015u /**< DisconnectRequest */
#define RTEL_CM_DREP 0x0016u /**< DisconnectReply */
#define RTEL_CM_SIDR_REQ 0x0017u
#define RTEL_CM_SIDR_REP 0x0018u
#define RTEL_CM_LAP 0x0019u
#define RTEL_CM_APR 0x001Au

/** rtel_pkt_hd.cm_fields bits: which cm_* fields the message carries. */
#define RTEL_CM_F_LCID 0x01u
#define RTEL_CM_F_RCID 0x02u
#define RTEL_CM_F_LOCAL_QPN 0x04u
#define RTEL_CM_F_START_PSN 0x08u
#define RTEL_CM_F_SERVICE_ID 0x10u
#define RTEL_CM_F_REMOTE_QPN 0x20u
#define RTEL_CM_F_GIDS 0x40u
#define RTEL_CM_F_REJ_REASON 0x80u

#define RTEL_PKT_HD_V1 1
#define RTEL_PKT_HD_VERSION RTEL_PKT_HD_V1

/**
 * @struct
 *
 * A decoded packet: the output of rtel_pkt_decode() and the argument of the
 * on_packet callback. Offsets are byte offsets from the start of the bytes
 * handed in, so the caller can reach any header or the payload. Fields are
 * in host byte order. A field group is valid only if its RTEL_HD_F_* flag
 * is set in |flags|; flags, malformed, wire_len, cap_len, encap, nencap,
 * roce and nvlan are always written. roce is set as soon as the RoCE
 * header is reached (it stays set if the packet then proves malformed).
 * With nested encapsulations, erspan_* and vxlan_vni are those of the
 * innermost ERSPAN / VXLAN header.
 *
 * IP addresses are 16 bytes; IPv4 addresses are stored IPv4-mapped
 * (::ffff:a.b.c.d), as RoCE GIDs are.
 */
typedef struct rtel_pkt_hd {
  /** RTEL_HD_F_* bits. */
  uint32_t flags;
  /** RTEL_MALFORMED_* reason when the decoder returned RTEL_ERR_MALFORMED. */
  uint32_t malformed;
  /** Length of the packet on the wire (>= cap_len). */
  uint32_t wire_len;
  /** Bytes captured and handed to the decoder. */
  uint32_t cap_len;
  /** RTEL_ENCAP_* bits of the encapsulations removed (see also
   * encap_list for their order). */
  uint32_t encap;
  /** 2 for RoCEv2, 1 for RoCEv1; 0 if not RoCE. */
  uint32_t roce;

  /* Outer encapsulation (valid when the matching encap bit is set). */
  /** ERSPAN session ID (10 bits). */
  uint32_t erspan_session;
  /** ERSPAN type III timestamp (32 bits, unit per erspan_gra). */
  uint32_t erspan_ts;
  /** ERSPAN type III timestamp granularity (2 bits). */
  uint32_t erspan_gra;
  /** VXLAN network identifier (24 bits). */
  uint32_t vxlan_vni;
  /** Number of encapsulations removed, and each one's RTEL_ENCAP_* bit in
   * frame order (outermost first). */
  uint8_t nencap;
  uint8_t encap_list[RTEL_MAX_ENCAP];

  /* Ethernet (RTEL_HD_F_ETH) and its VLAN tags: those of the frame that
   * carries the RoCE packet (the innermost one after decapsulation). */
  uint8_t eth_dst[6];
  uint8_t eth_src[6];
  /** Ethertype after the VLAN tags. */
  uint16_t ethertype;
  /** Number of VLAN tags in vlan_tci[], outermost first. */
  uint16_t nvlan;
  /** TPID of each tag (0x8100, 0x88a8, 0x9100). */
  uint16_t vlan_tpid[RTEL_MAX_VLAN];
  /** Tag control information: PCP (3 bits), DEI (1), VID (12). */
  uint16_t vlan_tci[RTEL_MAX_VLAN];

  /* IP (RTEL_HD_F_IPV4 / RTEL_HD_F_IPV6), or the GRH of RoCEv1. */
  /** Source address, 16 bytes (IPv4-mapped for IPv4). */
  uint8_t src[16];
  /** Destination address, 16 bytes (IPv4-mapped for IPv4). */
  uint8_t dst[16];
  /** DSCP (6 bits) of the TOS / traffic class. */
  uint8_t dscp;
  /** ECN (2 bits): 3 = CE. */
  uint8_t ecn;
  /** IPv4 TTL / IPv6 or GRH hop limit. */
  uint8_t ttl;
  /** IP protocol / IPv6 final next header / GRH next header. */
  uint8_t ip_proto;
  /** IPv6 / GRH flow label (20 bits). */
  uint32_t flow_label;
  /** IP packet length claimed by the header (IPv4 total length, IPv6
   * payload length + 40, GRH payload length + 40). */
  uint32_t ip_len;
  /** Offset of the IP header (or GRH). */
  uint16_t l3_off;
  /** Offset of the UDP header (RoCEv2), or of the BTH (RoCEv1). */
  uint16_t l4_off;

  /* UDP (RTEL_HD_F_UDP). */
  uint16_t sport;
  uint16_t dport;
  /** UDP length field. */
  uint16_t udp_len;
  uint16_t udp_csum;

  /* BTH (RTEL_HD_F_BTH). */
  /** Offset of the BTH. */
  uint16_t bth_off;
  uint8_t opcode;
  /** Solicited event. */
  uint8_t se;
  /** Migration request. */
  uint8_t m;
  /** Pad count (0-3). */
  uint8_t pad;
  /** Transport header version. */
  uint8_t tver;
  /** FECN bit (BTH byte 4 bit 7). */
  uint8_t fecn;
  /** BECN bit (BTH byte 4 bit 6). */
  uint8_t becn;
  /** Ack request. */
  uint8_t ackreq;
  /** Reserved 6 bits of BTH byte 4 (below FECN/BECN). */
  uint8_t resv6;
  /** Reserved 7 bits of BTH byte 8. */
  uint8_t resv7;
  uint16_t pkey;
  /** Padding, named (reserved_pad0 to reserved_pad3): never written. */
  uint16_t reserved_pad0;
  /** Destination QP (24 bits). */
  uint32_t dqpn;
  /** Packet sequence number (24 bits). */
  uint32_t psn;

  /* Extended transport headers. */
  /** RDETH: EE context (24 bits). */
  uint32_t rdeth_eecnxt;
  /** DETH: Q_Key. */
  uint32_t deth_qkey;
  /** DETH: source QP (24 bits). */
  uint32_t deth_sqpn;
  /** XRCETH: XRC SRQ number (24 bits). */
  uint32_t xrc_srqn;
  uint32_t reserved_pad1;
  /** RETH: virtual address. */
  uint64_t reth_va;
  /** RETH: remote key. */
  uint32_t reth_rkey;
  /** RETH: DMA length. */
  uint32_t reth_dmalen;
  /** AtomicETH: virtual address. */
  uint64_t atomic_va;
  /** AtomicETH: swap (or add) data. */
  uint64_t atomic_swap;
  /** AtomicETH: compare data. */
  uint64_t atomic_cmp;
  /** AtomicETH: remote key. */
  uint32_t atomic_rkey;
  /** AETH: MSN (24 bits). */
  uint32_t aeth_msn;
  /** AETH: syndrome (8 bits); see RTEL_AETH_* helpers. */
  uint8_t aeth_syndrome;
  uint8_t reserved_pad2[3];
  /** ImmDt: the 4 immediate bytes as a big-endian number. */
  uint32_t imm;
  /** IETH: the invalidated remote key. */
  uint32_t ieth_rkey;
  /** FETH (FLUSH): the 32-bit header; SEL = bits 5:4, PLT = bits 3:0. */
  uint32_t feth;
  /** AtomicAckETH: original remote data. */
  uint64_t atomicack_orig;

  /* Payload and ICRC. */
  /** Offset of the payload (after all transport headers). */
  uint32_t payload_off;
  /** Payload length from the length fields: UDP length - 8 - BTH - extended
   * headers - pad - 4 (ICRC). Independent of the capture length. The 16
   * reserved bytes of a CNP count as its payload. */
  uint32_t payload_len;
  /** Payload bytes actually captured (<= payload_len). */
  uint32_t payload_cap;
  /** ICRC as on the wire, read little-endian; filled only when verifying
   * (RTEL_DECODE_VERIFY_ICRC): reading it costs a cache miss per packet. */
  uint32_t icrc;
  /** ICRC computed, valid when icrc_status is OK or BAD. */
  uint32_t icrc_calc;
  /** RTEL_ICRC_* verification result. */
  uint32_t icrc_status;

  /* Management datagram (RTEL_HD_F_MAD). */
  uint64_t mad_tid;
  uint8_t mad_base_version;
  uint8_t mad_class;
  uint8_t mad_class_version;
  uint8_t mad_method;
  uint16_t mad_status;
  uint16_t mad_attr_id;
  uint32_t mad_attr_mod;

  /* RDMA CM (RTEL_HD_F_CM); which fields a message has: cm_fields. */
  /** RTEL_CM_* attribute (message type). */
  uint32_t cm_attr;
  /** RTEL_CM_F_* bits. */
  uint32_t cm_fields;
  uint32_t reserved_pad3;
  uint64_t cm_service_id;
  uint32_t cm_lcid;
  uint32_t cm_rcid;
  /** Sender's local QPN (REQ, REP). */
  uint32_t cm_local_qpn;
  /** Sender's starting PSN (REQ, REP). */
  uint32_t cm_start_psn;
  /** Remote QPN (DREQ). */
  uint32_t cm_remote_qpn;
  /** REJ reason. */
  uint32_t cm_rej_reason;
  /** Primary path local / remote GIDs (REQ). */
  uint8_t cm_local_gid[16];
  uint8_t cm_remote_gid[16];
  /** Offset of the message's private data. */
  uint32_t cm_priv_off;
  /** Private data bytes captured (up to the message's private data size). */
  uint32_t cm_priv_len;
} rtel_pkt_hd;

/**
 * @macrosection
 *
 * AETH syndrome helpers (IBA 9.7.5.1): bits 6:5 give the kind, bits 4:0 the
 * credit count (ACK), the RNR timer (RNR NAK) or the NAK code.
 */
#define RTEL_AETH_KIND(syn) (((unsigned)(syn) >> 5) & 0x3u)
#define RTEL_AETH_ACK 0u
#define RTEL_AETH_RNR_NAK 1u
#define RTEL_AETH_RESERVED 2u
#define RTEL_AETH_NAK 3u
#define RTEL_AETH_VALUE(syn) ((unsigned)(syn)&0x1fu)
/** NAK codes (RTEL_AETH_VALUE of a NAK). */
#define RTEL_NAK_PSN_SEQ_ERROR 0u
#define RTEL_NAK_INVALID_REQUEST 1u
#define RTEL_NAK_REMOTE_ACCESS 2u
#define RTEL_NAK_REMOTE_OP 3u
#define RTEL_NAK_INVALID_RD_REQUEST 4u

/**
 * @function
 *
 * Decodes one packet without any context: link layer (RTEL_LINK_*), VLAN
 * tags, ERSPAN II/III and VXLAN decapsulation, IPv4/IPv6 (or the RoCEv1
 * GRH), UDP, the BTH and every extended transport header its opcode
 * implies, the ICRC (if asked), and RDMA CM MADs on QP1.
 *
 * |pkt| points to |caplen| captured bytes; |wire_len| is the packet's length
 * on the wire (0 means equal to |caplen|; a value below |caplen| is treated
 * as |caplen|). At most 65535 captured bytes are decoded (the largest IP
 * packet); the rest of a longer buffer is ignored. |opts| may be NULL for
 * defaults; it is read during the call only. |hd| receives the result; only
 * fields flagged valid are written. Nothing is retained after the call; no
 * memory is allocated.
 *
 * A copy cut short by a mirror or snap length is decoded as far as it goes:
 * lengths come from the IP and UDP headers, RTEL_HD_F_TRUNCATED is set,
 * and RTEL_HD_F_HDR_TRUNC if transport headers are missing. A mirror that
 * cuts copies without keeping the original length hands over a "wire"
 * length shorter than the IP header's: the IP length wins and wire_len is
 * raised to it.
 *
 * Use the rtel_pkt_decode() macro, which passes RTEL_PKT_HD_VERSION and
 * RTEL_DECODE_OPTS_VERSION.
 *
 * Returns 0 for a RoCE packet, or one of:
 *   RTEL_ERR_NOT_ROCE      well formed, but not RoCE (|hd| holds what was
 *                          decoded, e.g. an IP fragment or another port);
 *   RTEL_ERR_MALFORMED     |hd->malformed| says why;
 *   RTEL_ERR_INVALID_ARGUMENT  |hd| is NULL, |pkt| is NULL with a
 *                          non-zero |caplen|, or |opts| has a port above
 *                          65535 or an unknown flag;
 *   RTEL_ERR_UNSUPPORTED_VERSION  a version is newer than this library.
 *
 * Thread safety: safe from any thread (no state).
 *
 * Since 0.1
 */
RTEL_API int rtel_pkt_decode_versioned(int hd_version, rtel_pkt_hd *hd,
                                       int opts_version,
                                       const rtel_decode_opts *opts,
                                       const uint8_t *pkt, size_t caplen,
                                       size_t wire_len);

/**
 * @function
 *
 * Returns a static name for a BTH opcode, e.g. "RC RDMA WRITE FIRST", or
 * "reserved" for an opcode the IBTA does not define. Never NULL.
 *
 * Thread safety: safe from any thread.
 *
 * Since 0.1
 */
RTEL_API const char *rtel_opcode_str(uint8_t opcode);

/**
 * @function
 *
 * Returns a static description of an RTEL_MALFORMED_* reason, or "unknown"
 * for a value this library does not define. Never NULL.
 *
 * Thread safety: safe from any thread.
 *
 * Since 0.1
 */
RTEL_API const char *rtel_malformed_str(uint32_t reason);

/**
 * @function
 *
 * Names of the numbers in records, as one set of words for every program
 * that prints them (the example programs use these): static snake_case
 * tokens (lower case, digits and '_'), which fit a text column, a JSON
 * string and a metric label as they are. Never NULL. The numbers are
 * pinned; the names are stable within a release series but are for
 * people and reports: programs should compare the numbers.
 *
 * rtel_end_str() names an RTEL_END_* reason ("idle", "active",
 * "evicted", "flush", "truncated", "acked", "settled", "overflow"),
 * rtel_io_state_str() an RTEL_IO_* state ("complete", "timeout",
 * "orphan", "evicted", "truncated") and rtel_metric_str() an
 * RTEL_METRIC_* figure ("iol", "dal", "dpl", "fct", "fnr", "fet",
 * "retx_ratio", "cnp_rate"); a value this library does not define gives
 * "unknown".
 *
 * rtel_nvme_cmd_str() names an NVMe command from the opcode and Fabrics
 * command type of an rtel_io_record (or a capsule): with opcode 0x7F
 * (RTEL_NVME_OP_FABRICS) the Fabrics command type ("connect",
 * "property_get", "property_set", "disconnect", "authentication_send",
 * "authentication_receive"; "fabrics_vendor_specific" from 0xC0,
 * else "fabrics_reserved"); otherwise an admin command if |admin| is
 * non-zero (the admin queue, RTEL_IO_F_ADMIN: "identify", "get_log_page",
 * "keep_alive", ...; "vendor_specific" from 0xC0) or an I/O command of the NVM
 * and Zoned Namespace command sets ("read", "write", "flush", "write_zeroes",
 * "dataset_management", "zone_append", ...; "vendor_specific" from
 * 0x80); an opcode the specifications leave unassigned gives "reserved".
 *
 * rtel_nvme_status_str() names the status of rtel_io_record.nvme_status
 * (SC in bits 0-7, SCT in bits 8-10; CRD, More and DNR in bits 11-14 are
 * not part of the name): "success", "invalid_field_in_command",
 * "lba_out_of_range", "unrecovered_read_error", "host_pathing_error", ...;
 * command specific values of the Fabrics commands (|opcode| 0x7F) have
 * their own names ("connect_invalid_parameters", ...). SCT 7 gives
 * "vendor_specific", a value without a name "reserved".
 *
 * rtel_aeth_str() names an AETH syndrome (rtel_pkt_hd.aeth_syndrome):
 * "ack", "rnr_nak" (the RNR timer is syndrome & 0x1f),
 * "nak_psn_sequence_error", "nak_invalid_request", "nak_remote_access_error",
 * "nak_remote_operational_error", "nak_invalid_rd_request",
 * "nak_reserved" for another NAK code, "reserved" for a reserved
 * syndrome type (bits 6-5 = 10b or bit 7 set). For an ACK the low five
 * bits are the credit count.
 *
 * Thread safety: safe from any thread (no state).
 *
 * Since 0.1
 */
RTEL_API const char *rtel_end_str(uint32_t end);
RTEL_API const char *rtel_io_state_str(uint32_t state);
RTEL_API const char *rtel_metric_str(uint32_t metric);
RTEL_API const char *rtel_nvme_cmd_str(uint8_t opcode, uint8_t fctype,
                                       int admin);
RTEL_API const char *rtel_nvme_status_str(uint16_t status, uint8_t opcode);
RTEL_API const char *rtel_aeth_str(uint8_t syndrome);

/**
 * @function
 *
 * Returns the shard key of the packet decoded into |hd| by
 * rtel_pkt_decode() (or received by on_packet): a 32-bit hash of the
 * unordered pair of IP addresses (or RoCEv1 GIDs) of the innermost RoCE
 * packet, after every decapsulation. Both directions of an RDMA
 * connection, every QP between two hosts, an NVMe-oF queue's capsules,
 * data and responses, its RDMA CM exchange, and the copies of one packet
 * that two observation points (or two mirrors: ERSPAN, VXLAN) see all get
 * one key, so an application that spreads packets over several contexts
 * by key (key % N is the documented mapping) keeps every flow, QP pair,
 * I/O, two-point join and host/target aggregate in one context.
 *
 * The key is the same on every run, machine and library version (it has
 * no seed): with a = the lower of src and dst compared as 16-byte strings
 * (memcmp) and b the other, it is FNV-1a 32-bit (offset basis 2166136261,
 * prime 16777619) over the 32 bytes a then b, followed by MurmurHash3's
 * 32-bit finaliser (h ^= h >> 16; h *= 0x85ebca6b; h ^= h >> 13;
 * h *= 0xc2b2ae35; h ^= h >> 16); a result of 0 becomes 1. IPv4
 * addresses enter in their IPv4-mapped form (::ffff:a.b.c.d), as |hd|
 * holds them. Only the always-written fields flags and roce and the
 * addresses src and dst are read, which every version of rtel_pkt_hd
 * has.
 *
 * Returns the key (never 0) for a RoCE packet whose addresses were decoded
 * (hd->roce != 0 and RTEL_HD_F_IPV4, RTEL_HD_F_IPV6 or RTEL_HD_F_GRH set:
 * also a RoCE packet then found malformed); 0 if |hd| is NULL or the
 * packet is not RoCE (rtel_pkt_decode() returned RTEL_ERR_NOT_ROCE, or was
 * malformed before the RoCE header). Such packets carry no record: send
 * them anywhere (the contexts only count them). Nothing is retained.
 *
 * Thread safety: safe from any thread (no state).
 *
 * Since 0.1
 */
RTEL_API uint32_t rtel_shard_key(const rtel_pkt_hd *hd);

/**
 * @function
 *
 * Computes the RoCE ICRC of the packet decoded into |hd| from |pkt| (the
 * same bytes): CRC-32 over 8 bytes of 0xFF (the masked LRH), the IP header
 * (or GRH) with TOS/traffic class, flow label, TTL/hop limit and IPv4
 * checksum set to ones (IPv4 options and IPv6 extension headers are
 * covered as they are), the UDP header with its checksum set to ones, the
 * BTH with byte 4 set to ones, and everything after the BTH up to the ICRC.
 * Stores it in |*icrc| (compare with hd->icrc).
 *
 * Returns 0, RTEL_ERR_INVALID_ARGUMENT if an argument is NULL or |hd| is
 * not a decoded RoCE packet, or RTEL_ERR_MALFORMED if the capture does not
 * hold the whole packet.
 *
 * Thread safety: safe from any thread.
 *
 * Since 0.1
 */
RTEL_API int rtel_icrc_compute_versioned(int hd_version, const rtel_pkt_hd *hd,
                                         const uint8_t *pkt, size_t caplen,
                                         uint32_t *icrc);

/* ------------------------------------------------------------------------ */
/* Context                                                                  */
/* ------------------------------------------------------------------------ */

/**
 * @struct
 *
 * The measurement context: decoder, counters, flow table, NVMe-oF I/O
 * correlator and aggregates, ports and polling scheduler, alarms, and the
 * timers that drive them. Opaque.
 */
typedef struct rtel_ctx rtel_ctx;

#define RTEL_SETTINGS_V1 1
#define RTEL_SETTINGS_VERSION RTEL_SETTINGS_V1

/**
 * @struct
 *
 * Context settings, copied by rtel_ctx_new(). Initialise with
 * rtel_settings_default() and change what you need. Zero in any field
 * means the default shown.
 */
typedef struct rtel_settings {
  /** RTEL_DECODE_* flags. Default 0. */
  uint32_t decode_flags;
  /** Default link type of packets whose rtel_pkt_info.linktype is 0.
   * Default RTEL_LINK_ETHERNET. */
  uint32_t linktype;
  /** UDP destination port of RoCEv2. Default 4791. */
  uint32_t roce_udp_port;
  /** UDP destination port of VXLAN. Default 4789. */
  uint32_t vxlan_udp_port;
  /** Period of the on_stats callback, in ns; 0 disables it. The first
   * period starts at the first packet's timestamp (or see
   * period_origin). */
  rtel_tstamp stats_interval;
  /** RTEL_FLOW_* flags. Default 0: flow table on, LRU eviction. */
  uint32_t flow_flags;
  /** Capacity of the flow table (directional flows), allocated by
   * rtel_ctx_new(). Default 4096. Each flow costs about 990 bytes on
   * x86_64 with the defaults: a 448-byte entry (with room for one open
   * message of its own), two 112-byte pairing entries, two 128-byte
   * open-message entries (max_open_msgs), 32 bytes of PSN index and the
   * hash buckets (measured by make bench-flow). */
  uint32_t max_flows;
  /** Capacity of the QP pairing table (two entries per learned QP pair,
   * one per direction). Default 2 x max_flows. */
  uint32_t max_qp_pairs;
  /** Reserved: set to 0. */
  uint32_t reserved1;
  /** A flow ends after this long without a data packet. Default 100 ms.
   * The table's least-recently-active order is kept to within a tick (the
   * largest power of two of ns <= this / 64): a flow ends idle less than
   * a tick late, and eviction takes the least recently active flow to
   * within a tick. */
  rtel_tstamp flow_idle_timeout;
  /** A flow is reported and restarted after this long; 0 = never. */
  rtel_tstamp flow_active_timeout;
  /** Seed of the table hash functions. Embedders facing untrusted traffic
   * should set a random value (the library has no entropy source). */
  uint64_t hash_seed;
  /** RTEL_NVME_* flags. Default 0: the NVMe-oF correlator is on. */
  uint32_t nvme_flags;
  /** Capacity of the NVMe-oF queue table (QP pairs carrying NVMe-oF).
   * Default 1024. */
  uint32_t max_nvme_queues;
  /** Capacity of the table of outstanding I/Os. Default 16384. Each costs
   * 232 bytes on x86_64 (a 216-byte entry and two 8-byte hash bucket
   * shares), 352 with its max_io_joins share (a 112-byte entry and its
   * buckets); entries are taken in order, so only the buckets (24 bytes)
   * are written at creation. */
  uint32_t max_ios;
  /** Capacity of the table of completed I/Os waiting for their twin from
   * another observation point (segmented records). Default max_ios. */
  uint32_t max_io_joins;
  /** An I/O without a response this long after its command ends with
   * state RTEL_IO_TIMEOUT. Default 5 s. */
  rtel_tstamp io_timeout;
  /** How long a completed I/O waits for its twin from another observation
   * point, in its own point's time (the latest packet seen there).
   * Default 1 s. */
  rtel_tstamp io_join_window;
  /** NVMe-oF/RDMA service ports recognised in RDMA CM service IDs; zeros
   * are unused, and all zeros means {4420}. To watch 4421 as well as
   * 4420, list both. */
  uint16_t nvme_ports[4];
  /** Period of the I/O aggregates (on_io_aggregate), in ns; 0 means one
   * period that ends at rtel_ctx_flush(). Periods are aligned to the first
   * packet's timestamp, or to period_origin. */
  rtel_tstamp report_interval;
  /** Capacity of the aggregation table: (observation point, host, target,
   * namespace) keys, the per-pair totals included. Each key costs about
   * 34 KiB (six latency histograms). Default 128. */
  uint32_t max_aggregates;
  /** Most ports rtel_ctx_add_port() accepts. Default 256. */
  uint32_t max_ports;
  /** Capacity of the alarm state table (one entry per scope key and
   * metric with a threshold or a baseline). Default 1024. */
  uint32_t max_alarm_keys;
  /** Reserved: set to 0. */
  uint32_t reserved3;
  /** Most open messages (messages whose record may still change) at once,
   * over all flows. A flow's entry holds one of its own; the others take
   * entries of a slab of this many, shared by all flows and allocated by
   * rtel_ctx_new() (its pages are written only as its entries are first
   * used). Default 0: 2 x max_flows. Each costs 128 bytes on x86_64. When
   * this many are open, the oldest open message of the least recently
   * active flow with one is delivered early (RTEL_END_OVERFLOW, counted in
   * msgs_overflow). */
  uint32_t max_open_msgs;
  /** Most open messages of one flow. Default 64: a sender at 100 Gb/s
   * with a 10 us round trip has about 30 messages of 4 KiB unacknowledged.
   * When a new message would exceed it, the flow's oldest open message is
   * delivered early (end RTEL_END_OVERFLOW, counted in
   * rtel_ctx_stats.msgs_overflow). At most 65535. */
  uint32_t max_flow_msgs;
  /** A message without an ACK is delivered (end RTEL_END_SETTLED) once the
   * flow's highest PSN is at least this many PSNs past its last one and
   * msg_settle_ns has passed since its last packet. Default 128 (the
   * packets a sender sends in a round trip at 100 Gb/s, 10 us, 1 KiB MTU:
   * what it sends past a loss before the sequence-error NAK reaches it). */
  uint32_t msg_settle_psns;
  /** Reserved: set to 0. */
  uint32_t reserved4;
  /** The time of the settle rule, in ns. Default 10 ms: above the transport
   * timeouts that senders use with exponential back-off in a data centre
   * (a few ms), below flow_idle_timeout. A resend later than this after
   * its message's last packet counts in the flow as orphaned. */
  rtel_tstamp msg_settle_ns;
  /** Where the periods of stats_interval and report_interval are aligned:
   * their boundaries are the times period_origin + k x interval (k any
   * integer), and the first period begins at the boundary at or before
   * the context's first packet. Default 0: the first period begins at the
   * first packet (boundaries at first packet + k x interval). Contexts
   * that share an origin share their periods, so their aggregates add up
   * (one context per thread, or per switch): an origin of the interval
   * itself puts the boundaries at whole multiples of it since the epoch
   * of the packet timestamps (on the minute, with 60 s). */
  rtel_tstamp period_origin;
  /* New fields are appended below, under "added since RTEL_SETTINGS_V2". */
} rtel_settings;

#define RTEL_PKT_INFO_V1 1
#define RTEL_PKT_INFO_VERSION RTEL_PKT_INFO_V1

/**
 * @struct
 *
 * What the caller knows about a packet besides its bytes. Read during the
 * call only.
 */
typedef struct rtel_pkt_info {
  /** Timestamp of the packet in ns (capture, ASIC or mirror time). */
  rtel_tstamp ts;
  /** Length on the wire; 0 means the captured length. */
  uint32_t wire_len;
  /** Observation point id: where the packet was seen (caller-defined). */
  uint32_t obs;
  /** Port id at that observation point (caller-defined). */
  uint32_t port;
  /** Link type (RTEL_LINK_*); 0 means rtel_settings.linktype. */
  uint32_t linktype;
} rtel_pkt_info;

#define RTEL_CTX_STATS_V1 1
#define RTEL_CTX_STATS_VERSION RTEL_CTX_STATS_V1

/**
 * @struct
 *
 * Context counters, all since rtel_ctx_new(). Filled by
 * rtel_ctx_get_stats(); also passed to on_stats.
 */
typedef struct rtel_ctx_stats {
  /** Packets handed to the context. */
  uint64_t pkts;
  /** Sum of their wire lengths. */
  uint64_t bytes;
  /** RoCE packets decoded (v1 and v2; truncated ones included). */
  uint64_t pkts_roce;
  /** Of those, RoCEv1. */
  uint64_t pkts_rocev1;
  /** Well-formed packets that are not RoCE (other protocols or ports, IP
   * fragments, ERSPAN III frames of a type other than Ethernet);
   * pkts = pkts_roce + pkts_not_roce + pkts_malformed + pkts_unscheduled. */
  uint64_t pkts_not_roce;
  /** Malformed packets: the sum of malformed[]. */
  uint64_t pkts_malformed;
  /** Packets whose capture was shorter than the wire length. */
  uint64_t pkts_truncated;
  /** RoCE packets whose capture ended inside the transport headers. */
  uint64_t pkts_hdr_truncated;
  /** IP fragments (counted, not decoded). */
  uint64_t pkts_ip_fragments;
  /** RoCE packets reached through ERSPAN. */
  uint64_t pkts_erspan;
  /** RoCE packets reached through VXLAN. */
  uint64_t pkts_vxlan;
  /** Congestion notification packets. */
  uint64_t pkts_cnp;
  /** RDMA CM MADs. */
  uint64_t pkts_cm;
  /** ICRC checked and correct. */
  uint64_t icrc_ok;
  /** ICRC checked and wrong. */
  uint64_t icrc_bad;
  /** ICRC not checkable because the capture was truncated. */
  uint64_t icrc_truncated;
  /** Packets whose timestamp was earlier than the previous packet's (of
   * any observation point: with several points in one context this also
   * counts their clock offsets). */
  uint64_t pkts_ts_backwards;
  /** RoCE packets with a reserved or vendor-specific opcode (decoded up to
   * the BTH only). */
  uint64_t pkts_unknown_opcode;
  /** RoCE packets with a BTH transport version other than 0. */
  uint64_t pkts_unknown_tver;
  /** Malformed packets by RTEL_MALFORMED_* reason. */
  uint64_t malformed[RTEL_MALFORMED_SLOTS];
  /** Flows created in the flow table. */
  uint64_t flows_created;
  /** Flows removed to make room for a new one (reported, end "evicted"). */
  uint64_t flows_evicted;
  /** Data packets of flows that could not be tracked (table full with
   * RTEL_FLOW_NO_EVICT). */
  uint64_t flows_untracked_pkts;
  /** Flows in the table now (a gauge, not a counter). */
  uint64_t flows_active;
  /** QP pairs learned from RDMA CM, and from ACK/NAK PSNs. */
  uint64_t pairs_cm;
  uint64_t pairs_psn;
  /** Pairing entries removed to make room (least recently used). */
  uint64_t pairs_evicted;
  /** ACKs, NAKs and CNPs that could not be attributed to a flow. */
  uint64_t ctrl_unattributed;
  /** Message records delivered. */
  uint64_t messages;
  /** NVMe-oF queues recognised: from RDMA CM, from a Fabrics Connect
   * command, from capsule shapes confirmed by a matching completion. */
  uint64_t nvme_queues_cm;
  uint64_t nvme_queues_connect;
  uint64_t nvme_queues_confirmed;
  /** NVMe-oF queues removed to make room (their I/Os end "evicted"). */
  uint64_t nvme_queues_evicted;
  /** I/O records by state (truncated: see ios_truncated below). */
  uint64_t ios_complete;
  uint64_t ios_timeout;
  uint64_t ios_orphan;
  uint64_t ios_evicted;
  /** Commands that found the I/O table full: the oldest outstanding
   * command was evicted to make room (its record counts in ios_evicted). */
  uint64_t ios_untracked;
  /** Data transfers (RDMA WRITE / READ REQUEST / READ RESPONSE) on NVMe-oF
   * queues that matched no outstanding I/O. */
  uint64_t nvme_data_unmatched;
  /** Retransmitted capsules ignored (same PSN seen before). */
  uint64_t nvme_capsule_dups;
  /** Segmented records delivered, and completed I/Os that found no twin
   * (counted only once a second observation point has been seen). */
  uint64_t segments;
  uint64_t io_join_unmatched;
  /** I/Os not aggregated because the aggregation table was full. */
  uint64_t aggregates_dropped;
  /** Packets of ports not measured in the current polling slot (counted,
   * not decoded). */
  uint64_t pkts_unscheduled;
  /** Slot boundaries begun: polling slots, and each rtel_ctx_set_schedule()
   * (a change to full mode included). */
  uint64_t slots;
  /** Alarm events raised and cleared. */
  uint64_t alarms_raised;
  uint64_t alarms_cleared;
  /** Records not evaluated for alarms because the alarm table was full. */
  uint64_t alarms_dropped;
  /** I/O records of state RTEL_IO_TRUNCATED (end of capture, slot end). */
  uint64_t ios_truncated;
  /** Message records delivered early because a bound on open messages
   * was hit (end RTEL_END_OVERFLOW): a flow had max_flow_msgs open (its
   * oldest goes), or max_open_msgs were open (the oldest open message of
   * the least recently active flow with one goes). */
  uint64_t msgs_overflow;
  /** I/Os the NVMe-oF correlator began to follow: commands given an entry
   * of the table of outstanding I/Os (max_ios). Each ends once: in one
   * I/O record that is not an orphan (complete, timeout, evicted or
   * truncated), or in ios_unconfirmed; so at every moment ios_created =
   * ios_complete + ios_timeout + ios_evicted + ios_truncated +
   * ios_unconfirmed + ios_active. */
  uint64_t ios_created;
  /** I/Os outstanding now (a gauge, at most max_ios; 0 after
   * rtel_ctx_flush). */
  uint64_t ios_active;
  /** I/Os ended without a record because their queue was only guessed from
   * capsule shapes and no completion ever confirmed it as NVMe-oF (always
   * 0 with RTEL_NVME_NO_GUESS). */
  uint64_t ios_unconfirmed;
  /* New fields are appended below, under "added since RTEL_CTX_STATS_V2". */
} rtel_ctx_stats;

/* ------------------------------------------------------------------------ */
/* Flow table: throughput visibility                                        */
/* ------------------------------------------------------------------------ */

/**
 * @macrosection
 *
 * rtel_settings.flow_flags.
 */
/** No flow table: no flow or message records, no memory for them. QP
 * pairing (max_qp_pairs) still runs for NVMe-oF unless it is disabled too. */
#define RTEL_FLOW_DISABLE 0x1u
/** When the table is full, do not evict: packets of new flows are only
 * counted (flows_untracked_pkts). The default evicts the least recently
 * active flow (to within a tick: flow_idle_timeout), reporting it with end
 * RTEL_END_EVICTED. */
#define RTEL_FLOW_NO_EVICT 0x2u

/** rtel_flow_record.peer_qpn of a flow whose reverse QP is not known. */
#define RTEL_QPN_NONE 0xffffffffu

/**
 * @macrosection
 *
 * Message operations (rtel_msg_record.op; or-ed in rtel_flow_record.ops).
 */
#define RTEL_OP_SEND 0x1u      /**< SEND (with or without imm./inval.) */
#define RTEL_OP_WRITE 0x2u     /**< RDMA WRITE (with or without imm.) */
#define RTEL_OP_READ_RESP 0x4u /**< RDMA READ RESPONSE */

/**
 * @macrosection
 *
 * Why a flow record was delivered (rtel_flow_record.end).
 */
#define RTEL_END_IDLE 1u      /**< no data packet for flow_idle_timeout */
#define RTEL_END_ACTIVE 2u    /**< flow_active_timeout reached */
#define RTEL_END_EVICTED 3u   /**< removed to make room (table full) */
#define RTEL_END_FLUSH 4u     /**< rtel_ctx_flush() */
#define RTEL_END_TRUNCATED 5u /**< cut by a measurement window */
/** Message: an ACK at or past its last PSN (or a sequence-error or RNR
 * NAK after it) was seen. */
#define RTEL_END_ACKED 6u
/** Message: the flow moved msg_settle_psns past it, msg_settle_ns after
 * its last packet. */
#define RTEL_END_SETTLED 7u
/** Message: delivered early, a bound on open messages was hit. */
#define RTEL_END_OVERFLOW 8u

/**
 * @macrosection
 *
 * rtel_flow_record.flags and rtel_msg_record.flags.
 */
/** The reverse QP is known: peer_qpn, NAK counts and fnr are valid. */
#define RTEL_FLOW_F_PAIRED 0x1u
/** Addresses are IPv6 (otherwise IPv4-mapped IPv4). */
#define RTEL_FLOW_F_IPV6 0x2u
/** vlan is valid (the outermost VLAN ID of the first packet). */
#define RTEL_FLOW_F_VLAN 0x4u
/** Message: its first or its last packet (FIRST, LAST or ONLY) was not
 * seen here, not even as a resend. */
#define RTEL_MSG_F_INCOMPLETE 0x8u
/** lost_upstream is a lower bound: more PSN gaps were open at once than
 * the flow keeps (4), and the oldest was forgotten. */
#define RTEL_FLOW_F_LOST_LB 0x10u
/** A READ RESPONSE flow (ops is RTEL_OP_READ_RESP): its data answers the
 * READ REQUESTs of the destination QP. Part of the flow key: a QP's
 * SENDs and WRITEs and the READ RESPONSEs it returns on the same
 * connection are two flows with the same obs, src, dst and dqpn, told
 * apart by this bit. Messages of such a flow have it too. */
#define RTEL_FLOW_F_RESPONSE 0x20u

#define RTEL_FLOW_RECORD_V1 1
#define RTEL_FLOW_RECORD_VERSION RTEL_FLOW_RECORD_V1

/**
 * @struct
 *
 * A flow: the data packets from one source address to one destination QP
 * seen at one observation point, from the first data packet until the
 * flow ends (|end|). Data packets are SEND, RDMA WRITE and RDMA READ
 * RESPONSE packets of connected QPs (RC, UC, XRC); READ RESPONSEs, which
 * use the requester's PSNs, form a flow of their own even on a QP that
 * also sends SENDs or WRITEs. The flow's ACKs, NAKs and CNPs travel in the
 * reverse direction, to the peer QP. The exact definitions are in
 * rtel_flow_record(3). Delivered by on_flow; valid during the call only.
 */
typedef struct rtel_flow_record {
  /** Observation point (rtel_pkt_info.obs). */
  uint32_t obs;
  /** RTEL_FLOW_F_* bits. */
  uint32_t flags;
  /** Source and destination addresses (IPv4-mapped for IPv4). */
  uint8_t src[16];
  uint8_t dst[16];
  /** Destination QP of the data packets. */
  uint32_t dqpn;
  /** The reverse QP (where ACKs, NAKs, CNPs go), or RTEL_QPN_NONE. */
  uint32_t peer_qpn;
  /** UDP source port, DSCP and outermost VLAN ID of the first packet. */
  uint16_t sport;
  uint16_t vlan;
  uint8_t dscp;
  uint8_t reserved[3];
  /** RTEL_END_* reason. */
  uint32_t end;
  /** RTEL_OP_* operations seen. */
  uint32_t ops;
  /** Timestamps of the first and last data packet; fct = last - first. */
  rtel_tstamp first_ts;
  rtel_tstamp last_ts;
  rtel_tstamp fct;
  /** Payload bytes and data packets, retransmissions included. */
  uint64_t bytes;
  uint64_t packets;
  /** Data packets (and their payload bytes) whose PSN was not after the
   * highest PSN already seen on the flow (24-bit serial arithmetic). */
  uint64_t retx_packets;
  uint64_t retx_bytes;
  /** Effective throughput on the wire, bit/s: the bits that the data
   * packets not retransmitted occupied on the link, the first packet left
   * out (n packets span n - 1 gaps), over fct: sum of (frame + 24) * 8 /
   * fct, frame the Ethernet frame without FCS (the inner frame of an
   * encapsulated mirror copy, its full length even if the copy was cut), 24
   * the FCS, preamble, SFD and inter-frame gap. Back-to-back packets at
   * line rate give the line rate. 0 when fct is 0. Goodput of payload is
   * (bytes - retx_bytes) * 8 / fct. */
  uint64_t fet_bps;
  /** NAKs seen in the reverse direction: PSN sequence error (syndrome
   * 0x60), RNR (0x20-0x3F), fatal (0x61-0x64). */
  uint64_t naks_seq;
  uint64_t naks_rnr;
  uint64_t naks_fatal;
  /** CNPs towards the sender's QP. */
  uint64_t cnps;
  /** Data packets with ECN CE and with FECN; ACKs and NAKs of the flow
   * (reverse direction) with BECN. */
  uint64_t ecn_ce;
  uint64_t fecn;
  uint64_t becn;
  /** Times a data packet's PSN jumped past the next expected one. */
  uint64_t psn_gaps;
  /** Loss events located before this observation point (the original
   * never passed: the retransmitted PSN was in a gap seen here) and after
   * it (the original had passed here). */
  uint64_t losses_upstream;
  uint64_t losses_downstream;
  /** Retransmitted packets by cause: a PSN sequence error NAK for the
   * flow was the latest NAK seen since the previous loss event, or none
   * was (retx_after_rnr below: an RNR NAK was). */
  uint64_t retx_after_nak;
  uint64_t retx_after_timeout;
  /** Messages that began in this flow (in this part of it, after an
   * active restart), whenever they end. */
  uint64_t messages;
  /** naks_seq / packets (valid with RTEL_FLOW_F_PAIRED). */
  double fnr;
  /** retx_packets / packets. */
  double retx_ratio;
  /** Port of the flow's first packet (rtel_pkt_info.port). */
  uint32_t port;
  uint32_t reserved2;
  /** Coverage window of that port: when its measurement began, and when
   * it ended (RTEL_TSTAMP_NONE while it goes on). See rtel_schedule. */
  rtel_tstamp coverage_start;
  rtel_tstamp coverage_end;
  /** Retransmitted packets whose latest NAK was an RNR NAK. */
  uint64_t retx_after_rnr;
  /** Data packets lost before this point: resends (by the PSN rule) of a
   * PSN that had never passed here since its previous transmission (it
   * lay in a PSN gap). Exact unless RTEL_FLOW_F_LOST_LB. */
  uint64_t lost_upstream;
  /** Resends that arrived after the record of their message was delivered
   * (or whose message was never tracked): in the flow, in no message. */
  uint64_t orphan_packets;
} rtel_flow_record;

#define RTEL_MSG_RECORD_V1 1
#define RTEL_MSG_RECORD_VERSION RTEL_MSG_RECORD_V1

/**
 * @struct
 *
 * A message: one SEND, RDMA WRITE or RDMA READ response at one
 * observation point: every data packet of its flow whose PSN lies in its
 * PSN range (FIRST to LAST, or ONLY), resends included, whenever they
 * arrive before the record is delivered. Delivered by on_message when it
 * can no longer change (|end|): an ACK at or past its last PSN was seen
 * (RTEL_END_ACKED), or the flow moved rtel_settings.msg_settle_psns past
 * it and msg_settle_ns passed since its last packet (RTEL_END_SETTLED),
 * or its flow ended (RTEL_END_IDLE, _EVICTED, _FLUSH, _TRUNCATED), or a
 * bound on open messages was hit (RTEL_END_OVERFLOW). A resend that
 * arrives later counts in the flow's orphan_packets. rtel_msg_record(3);
 * valid during the call only.
 */
typedef struct rtel_msg_record {
  uint32_t obs;
  /** RTEL_FLOW_F_* / RTEL_MSG_F_* bits. */
  uint32_t flags;
  uint8_t src[16];
  uint8_t dst[16];
  uint32_t dqpn;
  uint32_t peer_qpn;
  /** RTEL_OP_* of the message. */
  uint32_t op;
  /** PSNs of its first and last packet. */
  uint32_t first_psn;
  uint32_t last_psn;
  /** RETH DMA length of an RDMA WRITE (0 for SEND, READ response). */
  uint32_t reth_len;
  rtel_tstamp first_ts;
  rtel_tstamp last_ts;
  rtel_tstamp fct;
  uint64_t bytes;
  uint64_t packets;
  uint64_t retx_packets;
  uint64_t retx_bytes;
  /** Port and its coverage window, as in rtel_flow_record. */
  uint32_t port;
  uint32_t reserved2;
  rtel_tstamp coverage_start;
  rtel_tstamp coverage_end;
  /** RTEL_END_* reason of the delivery. */
  uint32_t end;
  /** NAKs whose PSN lies in the message (sequence error, RNR, fatal),
   * seen while it was open. */
  uint32_t naks_seq;
  uint32_t naks_rnr;
  uint32_t naks_fatal;
  /** CNPs seen while it was open (a CNP counts for every message of the
   * flow open when it arrives), and its data packets with ECN CE. */
  uint32_t cnps;
  uint32_t ecn_ce;
  /** Loss events that began with a packet of the message: where (before
   * or after this point) and why (the latest NAK seen since the previous
   * event was a sequence-error NAK, an RNR NAK, or none: a timeout). */
  uint32_t losses_upstream;
  uint32_t losses_downstream;
  uint32_t losses_nak;
  uint32_t losses_rnr;
  uint32_t losses_timeout;
  /** Its packets lost before this point, as rtel_flow_record.lost_upstream
   * (a lower bound with RTEL_FLOW_F_LOST_LB). */
  uint32_t lost_upstream;
  /** Effective throughput on the wire, as rtel_flow_record.fet_bps. */
  uint64_t fet_bps;
} rtel_msg_record;

/* ------------------------------------------------------------------------ */
/* NVMe-oF I/O correlator: I/O quality visibility                          */
/* ------------------------------------------------------------------------ */

/**
 * @macrosection
 *
 * rtel_settings.nvme_flags.
 */
/** No NVMe-oF correlator. */
#define RTEL_NVME_DISABLE 0x1u
/** Recognise queues only from RDMA CM and Fabrics Connect, not from
 * capsule shapes seen mid-stream. */
#define RTEL_NVME_NO_GUESS 0x2u

/** A duration that does not apply (rtel_io_record, rtel_segment_record). */
#define RTEL_DURATION_NONE INT64_MIN

/**
 * @macrosection
 *
 * rtel_io_record.state.
 */
#define RTEL_IO_COMPLETE 1u  /**< command and response seen */
#define RTEL_IO_TIMEOUT 2u   /**< no response within io_timeout */
#define RTEL_IO_ORPHAN 3u    /**< a response whose command was not seen */
#define RTEL_IO_EVICTED 4u   /**< removed to make room */
#define RTEL_IO_TRUNCATED 5u /**< cut by a measurement window */

/**
 * @macrosection
 *
 * rtel_io_record.flags.
 */
/** Addresses are IPv6 (otherwise IPv4-mapped IPv4). */
#define RTEL_IO_F_IPV6 0x1u
/** Write data travelled in the command capsule (no RDMA READ). */
#define RTEL_IO_F_INCAPSULE 0x2u
/** The admin queue (QID 0). */
#define RTEL_IO_F_ADMIN 0x4u
/** A Fabrics command (opcode 0x7F); fctype is valid. */
#define RTEL_IO_F_FABRICS 0x8u
/** The response came as SEND with Invalidate. */
#define RTEL_IO_F_INVALIDATE 0x10u
/** The queue id (qid) is known. */
#define RTEL_IO_F_QID 0x20u

/** NVMe opcodes the figures distinguish (rtel_io_record.opcode). */
#define RTEL_NVME_OP_FLUSH 0x00u
#define RTEL_NVME_OP_WRITE 0x01u
#define RTEL_NVME_OP_READ 0x02u
#define RTEL_NVME_OP_FABRICS 0x7Fu

#define RTEL_IO_RECORD_V1 1
#define RTEL_IO_RECORD_VERSION RTEL_IO_RECORD_V1

/**
 * @struct
 *
 * One NVMe-oF command and its response as seen at one observation point,
 * with the event timestamps of rtel-metrics(7): C (t_cmd, first packet of the
 * command capsule), D1/Dn or P1/Pn (t_data_first, t_data_last: first and
 * last data packet of the I/O, retransmitted copies included), Q (t_rdreq,
 * first RDMA READ REQUEST of a write), R (t_rsp, first packet of the
 * response capsule). A timestamp that does not apply is RTEL_TSTAMP_NONE,
 * a duration RTEL_DURATION_NONE:
 *
 *   iol  = R - C
 *   dal  = D1 - C (data to the host: a read); (Q - C) + (R - Pn) (data
 *          fetched from the host: a write); R - C (in-capsule write);
 *          none for commands without data (flush, most admin commands)
 *   dpl  = P1 - Q (write); none otherwise
 *   xfer = Dn - D1 (read); Pn - P1 (write); last - first capsule packet
 *          (in-capsule write)
 *
 * D1..Dn and P1..Pn count the data packets seen up to R: copies resent
 * after the response (a go-back-N resend of data already delivered) are
 * not part of the I/O's latency. An RDMA WRITE FIRST or ONLY and a READ
 * REQUEST are tied to their I/O by their RETH (the keyed SGL); the other
 * data packets only by a PSN inside the span of one of that I/O's
 * messages (rtel_io_record(3), "Which I/O a data packet belongs to").
 * Data that belongs to no tracked I/O (its command came before the
 * capture, its FIRST was lost before this point) is counted in
 * nvme_data_unmatched and never attached to a neighbouring I/O. An orphan
 * record (a response whose command was not seen) knows only cid,
 * nvme_status and t_rsp: its opcode is 0 and meaningless.
 *
 * Delivered by on_io; valid during the call only.
 */
typedef struct rtel_io_record {
  uint32_t obs;
  /** RTEL_IO_F_* bits. */
  uint32_t flags;
  /** RTEL_IO_* state. */
  uint32_t state;
  /** Host (sends commands) and target (sends responses) addresses. */
  uint8_t host[16];
  uint8_t target[16];
  /** QPNs: the host's (responses and data go to it), the target's
   * (commands go to it); RTEL_QPN_NONE if unknown. */
  uint32_t host_qpn;
  uint32_t target_qpn;
  /** Command identifier, queue id (with RTEL_IO_F_QID). */
  uint16_t cid;
  uint16_t qid;
  /** NVMe opcode; Fabrics command type (with RTEL_IO_F_FABRICS). */
  uint8_t opcode;
  uint8_t fctype;
  /** NVMe status field of the CQE (SC, SCT, CRD, M, DNR: bits 15:1 of the
   * status word, shifted right by one; 0 is success). */
  uint16_t nvme_status;
  /** Namespace, first LBA, number of logical blocks (NLB + 1). */
  uint32_t nsid;
  uint32_t nlb;
  /** Padding: 0 (as is reserved2). */
  uint32_t reserved1;
  uint64_t slba;
  /** Data length: the sum of the command's data descriptor lengths. */
  uint64_t bytes;
  rtel_tstamp t_cmd;
  rtel_tstamp t_rsp;
  rtel_tstamp t_data_first;
  rtel_tstamp t_data_last;
  rtel_tstamp t_rdreq;
  int64_t iol;
  int64_t dal;
  int64_t dpl;
  int64_t xfer;
  /** Port of the command (rtel_pkt_info.port) and its coverage window, as
   * in rtel_flow_record. */
  uint32_t port;
  uint32_t reserved2;
  rtel_tstamp coverage_start;
  rtel_tstamp coverage_end;
} rtel_io_record;

#define RTEL_SEGMENT_RECORD_V1 1
#define RTEL_SEGMENT_RECORD_VERSION RTEL_SEGMENT_RECORD_V1

/**
 * @struct
 *
 * The same I/O seen at a compute-side point c (nearer the host) and a
 * storage-side point s, joined by (host, target, target QPN, CID, opcode,
 * SLBA, length). IOL1 = IOL at c, IOL2 = IOL at s; the segments add up to
 * iol1 exactly:
 *
 *   rtt      = iol1 - iol2
 *   compute  = 0 (read); DPL at c (write)
 *   network  = iol1 - iol2 (read); (iol1 - iol2) + (DPL at s - DPL at c)
 *              (write)
 *   storage  = iol1 - compute - network
 *
 * Delivered by on_segment; valid during the call only.
 */
typedef struct rtel_segment_record {
  uint32_t compute_obs;
  uint32_t storage_obs;
  /** RTEL_IO_F_* bits of the compute-side record. */
  uint32_t flags;
  /** 1 if the roles came from rtel_ctx_set_obs_role(), 0 if inferred
   * (the point with the larger IOL is the compute side). */
  uint32_t roles_configured;
  uint8_t host[16];
  uint8_t target[16];
  uint32_t target_qpn;
  uint16_t cid;
  uint8_t opcode;
  /** Padding: 0 (as is reserved2). */
  uint8_t reserved;
  uint32_t nsid;
  uint32_t reserved2;
  uint64_t slba;
  uint64_t bytes;
  int64_t iol1;
  int64_t iol2;
  int64_t rtt;
  int64_t compute;
  int64_t network;
  int64_t storage;
} rtel_segment_record;

/**
 * @struct
 *
 * A latency distribution in ns, read from a log-linear histogram: values
 * below 32 ns are exact; above, each power of two has 32 buckets and a
 * quantile is reported as its bucket's midpoint, within 1/64 (1.6 %) of
 * the exact nearest-rank quantile (the smallest value with at least
 * ceil(q * count) values at or below it); min, max and mean are exact.
 * Values are clamped to [0, 2^48) ns. This struct is frozen.
 */
typedef struct rtel_latency {
  uint64_t count;
  int64_t min;
  int64_t max;
  int64_t mean;
  int64_t p50;
  int64_t p90;
  int64_t p99;
  int64_t p999;
} rtel_latency;

/** rtel_io_aggregate.nsid of the per-(host, target) totals. */
#define RTEL_NSID_ALL 0xffffffffu

#define RTEL_IO_AGGREGATE_V1 1
#define RTEL_IO_AGGREGATE_VERSION RTEL_IO_AGGREGATE_V1

/**
 * @struct
 *
 * NVMe-oF reads or writes (|opcode|) of one (host, target, namespace) at
 * one observation point during one reporting period; nsid RTEL_NSID_ALL
 * sums every namespace of the pair. Only completed I/Os enter count, bytes
 * and the latencies; errors counts those with a non-zero NVMe status;
 * timeouts counts I/Os that ended without a response. Delivered by
 * on_io_aggregate at the end of each period; valid during the call only.
 */
typedef struct rtel_io_aggregate {
  uint32_t obs;
  /** RTEL_IO_F_IPV6 if the addresses are IPv6. */
  uint32_t flags;
  /** RTEL_NVME_OP_READ or RTEL_NVME_OP_WRITE. */
  uint32_t opcode;
  uint32_t nsid;
  uint8_t host[16];
  uint8_t target[16];
  rtel_tstamp period_start;
  rtel_tstamp period_end;
  uint64_t count;
  uint64_t bytes;
  uint64_t errors;
  uint64_t timeouts;
  rtel_latency iol;
  rtel_latency dal;
  /** Writes only (empty for reads). */
  rtel_latency dpl;
} rtel_io_aggregate;

/**
 * @macrosection
 *
 * Roles of observation points (rtel_ctx_set_obs_role()).
 */
#define RTEL_ROLE_UNKNOWN 0u
#define RTEL_ROLE_COMPUTE 1u /**< the switch port facing the host */
#define RTEL_ROLE_STORAGE 2u /**< the switch port facing the storage */
#define RTEL_ROLE_FABRIC 3u  /**< elsewhere (not joined) */

/* ------------------------------------------------------------------------ */
/* Ports and the polling scheduler                                          */
/* ------------------------------------------------------------------------ */

/** Longest port name kept (longer names are cut). */
#define RTEL_PORT_NAME_MAX 31

#define RTEL_PORT_V1 1
#define RTEL_PORT_VERSION RTEL_PORT_V1

/**
 * @struct
 *
 * A port to be measured: |id| is what rtel_pkt_info.port carries for its
 * packets. Copied by rtel_ctx_add_port(). Flows and I/Os are keyed by
 * observation point, not port: if two ports of one device may both copy
 * the same packet (ingress on one, egress on the other), give each port
 * its own observation point (e.g. rtel_pkt_info.obs = port id) and its
 * role with rtel_ctx_set_obs_role(), as examples/switch-agent.c does.
 */
typedef struct rtel_port {
  uint32_t id;
  /** RTEL_ROLE_* (compute side, storage side, fabric). */
  uint32_t role;
  /** A name for people (may be NULL); copied, at most RTEL_PORT_NAME_MAX
   * bytes are kept. */
  const char *name;
} rtel_port;

/**
 * @macrosection
 *
 * rtel_schedule.mode.
 */
/** Every port all the time (the default). */
#define RTEL_SCHED_FULL 0u
/** ports_per_slot ports during each slot of slot_ns, round robin. */
#define RTEL_SCHED_POLL 1u

#define RTEL_SCHEDULE_V1 1
#define RTEL_SCHEDULE_VERSION RTEL_SCHEDULE_V1

/**
 * @struct
 *
 * A monitoring schedule (rtel_ctx_set_schedule()).
 *
 * In RTEL_SCHED_POLL mode the registered ports are visited round robin in
 * the order they were added, ports_per_slot (P) at a time; with N ports
 * every port is measured at least once in every ceil(N / P) consecutive
 * slots. With alarm_priority set, a port whose alarm was raised less than
 * alarm_priority ns ago may take one seat of a slot out of turn; the other
 * seats keep the round robin, so no port waits more than ceil(N / (P - 1))
 * slots (P >= 2), or 2 N slots (P = 1: priority seats only in every other
 * slot).
 */
typedef struct rtel_schedule {
  /** RTEL_SCHED_FULL or RTEL_SCHED_POLL. */
  uint32_t mode;
  /** Ports measured per slot (>= 1). */
  uint32_t ports_per_slot;
  /** Slot length in ns (> 0). */
  rtel_tstamp slot_ns;
  /** Priority window of alarmed ports in ns; 0: no priority. */
  rtel_tstamp alarm_priority;
} rtel_schedule;

#define RTEL_SLOT_EVENT_V1 1
#define RTEL_SLOT_EVENT_VERSION RTEL_SLOT_EVENT_V1

/**
 * @struct
 *
 * A slot boundary (on_slot): the ports that start being measured and the
 * ports that stop, so that an agent can reprogram its mirror or ACL rules.
 * The arrays are valid during the call only.
 */
typedef struct rtel_slot_event {
  /** Sequence number of the slot that begins (0, 1, ...). */
  uint64_t slot;
  /** When it begins and when it is planned to end. */
  rtel_tstamp start;
  rtel_tstamp end;
  const uint32_t *started;
  size_t nstarted;
  const uint32_t *stopped;
  size_t nstopped;
} rtel_slot_event;

/* ------------------------------------------------------------------------ */
/* Alarms                                                                   */
/* ------------------------------------------------------------------------ */

/**
 * @macrosection
 *
 * Metrics that alarms watch (rtel_ctx_set_threshold()).
 */
#define RTEL_METRIC_IOL 1u        /**< I/O latency, ns (above) */
#define RTEL_METRIC_DAL 2u        /**< data access latency, ns (above) */
#define RTEL_METRIC_DPL 3u        /**< data preparation latency, ns (above) */
#define RTEL_METRIC_FCT 4u        /**< flow completion time, ns (above) */
#define RTEL_METRIC_FNR 5u        /**< NAK rate of a paired flow (above) */
#define RTEL_METRIC_FET 6u        /**< effective throughput, bit/s (below) */
#define RTEL_METRIC_RETX_RATIO 7u /**< retransmission ratio (above) */
#define RTEL_METRIC_CNP_RATE 8u   /**< CNPs per second of FCT (above) */

/**
 * @macrosection
 *
 * Alarm scopes: what a threshold's state is kept per.
 */
/** Per (observation point, source or host, destination or target). */
#define RTEL_SCOPE_PAIR 1u
/** Per (observation point, port). */
#define RTEL_SCOPE_PORT 2u

/** rtel_alarm.kind */
#define RTEL_ALARM_THRESHOLD 1u
#define RTEL_ALARM_BASELINE 2u
/** rtel_alarm.state */
#define RTEL_ALARM_RAISED 1u
#define RTEL_ALARM_CLEARED 2u

#define RTEL_ALARM_V1 1
#define RTEL_ALARM_VERSION RTEL_ALARM_V1

/**
 * @struct
 *
 * An alarm event (on_alarm). Flow records cut short (end truncated or
 * evicted) are not judged: their FCT and throughput are partial. A
 * threshold alarm is raised by the first
 * record whose value crosses the threshold (above it; below it for FET)
 * and cleared by the first later record of the same scope whose value is
 * back on the good side by 10 % of the threshold (hysteresis). A baseline
 * alarm compares each value with a moving mean and deviation of the same
 * scope (EWMA, weight 1/32): raised beyond mean + k deviations (below
 * mean - k for FET) once the baseline has seen its warm-up count of
 * values, cleared when a value is back within k / 2 deviations. Valid
 * during the call only.
 */
typedef struct rtel_alarm {
  uint32_t metric;
  uint32_t scope;
  uint32_t kind;
  uint32_t state;
  uint32_t obs;
  /** The port (RTEL_SCOPE_PORT, and for either scope the record's port). */
  uint32_t port;
  /** The pair (RTEL_SCOPE_PAIR): source/host and destination/target. */
  uint8_t src[16];
  uint8_t dst[16];
  /** The record's value and the limit it was compared with. */
  double value;
  double limit;
  /** The record's time: its last packet (flows) or its response (I/Os).
   * The alarm priority window of rtel_schedule runs from when the alarm
   * was raised instead (the latest packet or handle_expiry time). */
  rtel_tstamp ts;
  /** The record that raised or cleared the alarm: one of these is set. */
  const rtel_flow_record *flow;
  const rtel_io_record *io;
} rtel_alarm;

/**
 * @functypedef
 *
 * Called for every RoCE packet the context decodes (truncated ones
 * included), after it was counted and before the flow table and the
 * NVMe-oF correlator see it. |pi| and |hd| and
 * |pkt| are valid during the call only; |hd| is of the version that the
 * application's callbacks version names (see rtel_callbacks).
 *
 * Return 0 to continue; any other value makes the current API call return
 * RTEL_ERR_CALLBACK_FAILURE and the context unusable.
 *
 * The callback may call const functions on |ctx| (rtel_ctx_get_stats(),
 * rtel_ctx_get_expiry(), rtel_ctx_port_measured()) and the stateless
 * functions; it must not call any other rtel_ctx_* function on |ctx|
 * (read_pkt, read_pkts, handle_expiry, flush, set_schedule, add_port,
 * set_threshold, set_baseline, set_obs_role, del).
 */
typedef int (*rtel_on_packet)(rtel_ctx *ctx, const rtel_pkt_info *pi,
                              const rtel_pkt_hd *hd, const uint8_t *pkt,
                              size_t pktlen, void *user_data);

/**
 * @functypedef
 *
 * Called from rtel_ctx_handle_expiry() when a statistics period of
 * rtel_settings.stats_interval has ended, with the cumulative counters.
 * |period_end| is the latest period boundary at or before the time passed
 * to rtel_ctx_handle_expiry(); since the counters are cumulative, one call
 * covers all the periods that ended since the previous call. Periods are
 * aligned to the first packet's timestamp. Same return value and
 * restrictions as rtel_on_packet.
 */
typedef int (*rtel_on_stats)(rtel_ctx *ctx, rtel_tstamp period_end,
                             const rtel_ctx_stats *stats, void *user_data);

/**
 * @functypedef
 *
 * Called when a flow ends (idle or active timeout from
 * rtel_ctx_handle_expiry(), eviction from rtel_ctx_read_pkt(), or
 * rtel_ctx_flush()). Same return value and restrictions as rtel_on_packet.
 */
typedef int (*rtel_on_flow)(rtel_ctx *ctx, const rtel_flow_record *rec,
                            void *user_data);

/**
 * @functypedef
 *
 * Called when a message ends. Same return value and restrictions as
 * rtel_on_packet.
 */
typedef int (*rtel_on_message)(rtel_ctx *ctx, const rtel_msg_record *rec,
                               void *user_data);

/**
 * @functypedef
 *
 * Called when an NVMe-oF I/O ends (response, timeout, orphan response,
 * eviction). Same return value and restrictions as rtel_on_packet.
 */
typedef int (*rtel_on_io)(rtel_ctx *ctx, const rtel_io_record *rec,
                          void *user_data);

/**
 * @functypedef
 *
 * Called when a completed I/O has been joined with its twin from another
 * observation point. Same return value and restrictions as rtel_on_packet.
 */
typedef int (*rtel_on_segment)(rtel_ctx *ctx, const rtel_segment_record *rec,
                               void *user_data);

/**
 * @functypedef
 *
 * Called at the end of each reporting period (rtel_settings.
 * report_interval) and at rtel_ctx_flush(), once per aggregate that saw
 * an I/O. Same return value and restrictions as rtel_on_packet.
 */
typedef int (*rtel_on_io_aggregate)(rtel_ctx *ctx,
                                    const rtel_io_aggregate *agg,
                                    void *user_data);

/**
 * @functypedef
 *
 * Called at each polling slot boundary (from rtel_ctx_handle_expiry() or
 * rtel_ctx_set_schedule()), before the records the boundary truncates are
 * delivered. Same return value and restrictions as rtel_on_packet.
 */
typedef int (*rtel_on_slot)(rtel_ctx *ctx, const rtel_slot_event *ev,
                            void *user_data);

/**
 * @functypedef
 *
 * Called when an alarm is raised or cleared, right after the record that
 * caused it was delivered. Same return value and restrictions as
 * rtel_on_packet.
 */
typedef int (*rtel_on_alarm)(rtel_ctx *ctx, const rtel_alarm *alarm,
                             void *user_data);

#define RTEL_CALLBACKS_V1 1
#define RTEL_CALLBACKS_VERSION RTEL_CALLBACKS_V1

/**
 * @struct
 *
 * Callbacks, copied by rtel_ctx_new(). Every callback is optional: NULL
 * means "not interested". Zero-initialise the struct and set what you need.
 *
 * The callbacks version also names the version of every struct the
 * callbacks receive. RTEL_CALLBACKS_V1 receives RTEL_PKT_HD_V1,
 * RTEL_CTX_STATS_V1, RTEL_FLOW_RECORD_V1, RTEL_MSG_RECORD_V1,
 * RTEL_IO_RECORD_V1, RTEL_SEGMENT_RECORD_V1, RTEL_IO_AGGREGATE_V1,
 * RTEL_SLOT_EVENT_V1 and RTEL_ALARM_V1. A delivered struct grows only at
 * its end and only together with a new callbacks version; the library
 * then hands each application exactly the struct version its callbacks
 * version names (a copy of that size when it is older than the library's),
 * so an application never reads past what it was given, and rtel_ctx_new()
 * refuses a callbacks version the library does not know
 * (RTEL_ERR_UNSUPPORTED_VERSION) instead of handing out shorter structs.
 * All callbacks run synchronously on the calling thread, inside
 * rtel_ctx_read_pkt(), rtel_ctx_read_pkts(), rtel_ctx_handle_expiry(),
 * rtel_ctx_flush() or rtel_ctx_set_schedule().
 */
typedef struct rtel_callbacks {
  rtel_on_packet on_packet;
  rtel_on_stats on_stats;
  rtel_on_flow on_flow;
  rtel_on_message on_message;
  rtel_on_io on_io;
  rtel_on_segment on_segment;
  rtel_on_io_aggregate on_io_aggregate;
  rtel_on_slot on_slot;
  rtel_on_alarm on_alarm;
  /* New callbacks are appended below, under "added since
   * RTEL_CALLBACKS_V2". */
} rtel_callbacks;

/**
 * @function
 *
 * Fills |settings| with the defaults. Use the rtel_settings_default() macro.
 * Does nothing if |settings| is NULL or the version is unknown.
 *
 * Thread safety: safe from any thread.
 *
 * Since 0.1
 */
RTEL_API void rtel_settings_default_versioned(int settings_version,
                                              rtel_settings *settings);

/**
 * @function
 *
 * Creates a context in |*pctx|. |settings| (NULL for the defaults),
 * |callbacks| (NULL for none) and |mem| (NULL for rtel_mem_default()) are
 * copied; |user_data| is passed to every callback. All memory the context
 * will ever use is allocated here. Use the rtel_ctx_new() macro.
 *
 * Returns 0, or:
 *   RTEL_ERR_INVALID_ARGUMENT  |pctx| is NULL, a setting is out of range
 *                              (a port above 65535, an unknown flag, a
 *                              table larger than 2^26 entries), |mem|
 *                              lacks a function, or |mem| is NULL in a
 *                              freestanding build (no default allocator);
 *   RTEL_ERR_UNSUPPORTED_VERSION  a struct version is newer than this
 *                              library;
 *   RTEL_ERR_NOMEM             allocation failed.
 * On failure |*pctx| is left untouched.
 *
 * Thread safety: safe from any thread (creates a new, independent object).
 *
 * Since 0.1
 */
RTEL_API RTEL_WARN_UNUSED_RESULT int
rtel_ctx_new_versioned(rtel_ctx **pctx, int settings_version,
                       const rtel_settings *settings, int callbacks_version,
                       const rtel_callbacks *callbacks, const rtel_mem *mem,
                       void *user_data);

/**
 * @function
 *
 * Frees |ctx| and everything it owns. Does nothing if |ctx| is NULL. Calls
 * no callback: use rtel_ctx_flush() first to receive what is still open.
 *
 * Thread safety: one thread at a time per context.
 *
 * Since 0.1
 */
RTEL_API void rtel_ctx_del(rtel_ctx *ctx);

/**
 * @function
 *
 * Hands one packet to the context: |pkt| (|pktlen| captured bytes) with
 * |pi| (timestamp, wire length, observation point, port). The bytes and |pi|
 * are read during the call only. May invoke callbacks. Never allocates.
 * Use the rtel_ctx_read_pkt() macro.
 *
 * Returns 0 (also for malformed or non-RoCE packets, which are only
 * counted), or:
 *   RTEL_ERR_INVALID_ARGUMENT  |ctx| or |pi| is NULL, or |pkt| is NULL with
 *                              a non-zero |pktlen|;
 *   RTEL_ERR_UNSUPPORTED_VERSION  |pkt_info_version| is unknown;
 *   RTEL_ERR_CALLBACK_FAILURE  a callback failed (fatal);
 *   RTEL_ERR_INVALID_STATE     the context had failed before.
 *
 * Thread safety: one thread at a time per context.
 *
 * Since 0.1
 */
RTEL_API RTEL_WARN_UNUSED_RESULT int
rtel_ctx_read_pkt_versioned(rtel_ctx *ctx, int pkt_info_version,
                            const rtel_pkt_info *pi, const uint8_t *pkt,
                            size_t pktlen);

/**
 * @function
 *
 * Hands |n| packets to the context, in order: packet i is |pkts[i]| with
 * |pktlens[i]| captured bytes and the i-th rtel_pkt_info of the array |pis|
 * (of the struct version given). Equivalent to |n| calls of
 * rtel_ctx_read_pkt() but cheaper. Use the rtel_ctx_read_pkts() macro.
 *
 * Returns the number of packets processed (|n| unless an error stopped the
 * burst), or a negative error code as rtel_ctx_read_pkt() if the first
 * packet already failed. After a fatal error on a later packet the count
 * covers the packets processed before it; the context has failed, and
 * later calls return RTEL_ERR_INVALID_STATE.
 *
 * Thread safety: one thread at a time per context.
 *
 * Since 0.1
 */
RTEL_API RTEL_WARN_UNUSED_RESULT rtel_ssize rtel_ctx_read_pkts_versioned(
    rtel_ctx *ctx, int pkt_info_version, const rtel_pkt_info *pis,
    const uint8_t *const *pkts, const size_t *pktlens, size_t n);

/**
 * @function
 *
 * As rtel_ctx_read_pkts(), and before each packet whose timestamp has
 * reached the context's next expiry, the timers due then, at that packet's
 * timestamp: the same callbacks, in the same order, as a caller that calls
 * rtel_ctx_get_expiry() and, when it is <= the packet's timestamp,
 * rtel_ctx_handle_expiry() with that timestamp before each
 * rtel_ctx_read_pkt(). A burst may then span any time: timers created or
 * moved by a packet of the burst run before the first later packet they
 * are due for. Timers due while no packet comes remain the caller's (arm a
 * timer for rtel_ctx_get_expiry() after the call). Use the
 * rtel_ctx_read_pkts_timed() macro.
 *
 * Returns as rtel_ctx_read_pkts(); a timer's callback that fails stops
 * the burst before the packet it ran for (the count covers the packets
 * processed before it, or RTEL_ERR_CALLBACK_FAILURE for the first).
 *
 * Thread safety: one thread at a time per context.
 *
 * Since 0.1
 */
RTEL_API RTEL_WARN_UNUSED_RESULT rtel_ssize rtel_ctx_read_pkts_timed_versioned(
    rtel_ctx *ctx, int pkt_info_version, const rtel_pkt_info *pis,
    const uint8_t *const *pkts, const size_t *pktlens, size_t n);

/**
 * @function
 *
 * Returns the earliest time at which rtel_ctx_handle_expiry() has work to
 * do, or RTEL_TSTAMP_NONE if no timer is armed (or |ctx| is NULL). The
 * caller arms its own timer for it; the library never reads a clock.
 *
 * Thread safety: one thread at a time per context.
 *
 * Since 0.1
 */
RTEL_API rtel_tstamp rtel_ctx_get_expiry(const rtel_ctx *ctx);

/**
 * @function
 *
 * Runs every timer that expired at or before |now|: polling slot
 * boundaries (first, as they truncate what they cut), flow idle and active
 * timeouts, I/O timeouts and join windows, aggregate periods, periodic
 * statistics. May invoke callbacks. A caller that comes late past several
 * slot boundaries gets one: the slot that contains |now| begins, the
 * skipped slots are not reported, and the round robin moves on as if they
 * had taken place; likewise one statistics and one aggregate report cover
 * the periods that ended. The timers compare the times of records (each in
 * its observation point's clock) with |now|: the observation points of one
 * context need clocks that agree within a small part of the timeouts;
 * points with unrelated clocks belong in separate contexts (joins of
 * completed I/Os across points wait in each point's own time). |now| is in the
 * same time base as the packets' timestamps.
 *
 * Returns 0, or RTEL_ERR_INVALID_ARGUMENT (|ctx| is NULL),
 * RTEL_ERR_CALLBACK_FAILURE (fatal), RTEL_ERR_INVALID_STATE (failed before).
 *
 * Thread safety: one thread at a time per context.
 *
 * Since 0.1
 */
RTEL_API RTEL_WARN_UNUSED_RESULT int rtel_ctx_handle_expiry(rtel_ctx *ctx,
                                                            rtel_tstamp now);

/**
 * @function
 *
 * Copies the context's counters into |stats|, writing only the fields that
 * exist in |stats_version|. Use the rtel_ctx_get_stats() macro.
 *
 * Returns 0, RTEL_ERR_INVALID_ARGUMENT (a NULL argument) or
 * RTEL_ERR_UNSUPPORTED_VERSION.
 *
 * Thread safety: one thread at a time per context; may be called from a
 * callback.
 *
 * Since 0.1
 */
RTEL_API int rtel_ctx_get_stats_versioned(const rtel_ctx *ctx,
                                          int stats_version,
                                          rtel_ctx_stats *stats);

/**
 * @function
 *
 * Runs the timers due at |now| (as rtel_ctx_handle_expiry() would), then
 * ends every remaining flow, delivering each through on_flow with end
 * RTEL_END_FLUSH (and in-progress messages through on_message, flagged
 * RTEL_MSG_F_INCOMPLETE), and every outstanding NVMe-oF I/O through on_io
 * with state RTEL_IO_TRUNCATED; completed I/Os waiting for a twin from
 * another observation point are dropped (io_join_unmatched). Learned QP
 * pairs and NVMe-oF queues are kept.
 * Call it at the end of a capture, with |now| the time of its end.
 *
 * Returns 0, RTEL_ERR_INVALID_ARGUMENT (|ctx| is NULL),
 * RTEL_ERR_CALLBACK_FAILURE (fatal), RTEL_ERR_INVALID_STATE.
 *
 * Thread safety: one thread at a time per context.
 *
 * Since 0.1
 */
RTEL_API RTEL_WARN_UNUSED_RESULT int rtel_ctx_flush(rtel_ctx *ctx,
                                                    rtel_tstamp now);

/**
 * @function
 *
 * Declares the role of observation point |obs| for segmented NVMe-oF
 * records: RTEL_ROLE_COMPUTE, RTEL_ROLE_STORAGE, RTEL_ROLE_FABRIC or
 * RTEL_ROLE_UNKNOWN (inferred: of two points that saw the same I/O, the one
 * with the larger IOL is the compute side). Up to RTEL_MAX_OBS_ROLES
 * points may be declared.
 *
 * Returns 0, RTEL_ERR_INVALID_ARGUMENT (|ctx| NULL, unknown role, or the
 * role table is full).
 *
 * Thread safety: one thread at a time per context.
 *
 * Since 0.1
 */
RTEL_API int rtel_ctx_set_obs_role(rtel_ctx *ctx, uint32_t obs, uint32_t role);

/** Most observation points whose role can be declared. */
#define RTEL_MAX_OBS_ROLES 64

/**
 * @function
 *
 * Registers a port. Its packets (rtel_pkt_info.port) are measured as the
 * schedule says; in RTEL_SCHED_FULL mode the packets of unregistered ports
 * are measured too, in RTEL_SCHED_POLL mode they are counted and ignored.
 * In full mode the port goes on being measured: its coverage window is the
 * unregistered ports' (since the first packet, or since full mode was
 * set), or starts at |now| if no packet was seen yet. Use the
 * rtel_ctx_add_port() macro.
 *
 * Returns 0, RTEL_ERR_INVALID_ARGUMENT (NULL, an id already registered,
 * an unknown role, or max_ports reached), RTEL_ERR_UNSUPPORTED_VERSION.
 *
 * Thread safety: one thread at a time per context.
 *
 * Since 0.1
 */
RTEL_API int rtel_ctx_add_port_versioned(rtel_ctx *ctx, int port_version,
                                         const rtel_port *port,
                                         rtel_tstamp now);

/**
 * @function
 *
 * Sets the monitoring mode, effective at |now|: the current slot (if any)
 * ends, on_slot reports the ports that start and stop, and records of
 * ports that stop are delivered truncated. Call it again at any time to
 * change the mode or its parameters. Use the rtel_ctx_set_schedule()
 * macro.
 *
 * Returns 0, RTEL_ERR_INVALID_ARGUMENT (NULL, unknown mode, zero
 * ports_per_slot or slot_ns in polling mode), RTEL_ERR_UNSUPPORTED_VERSION,
 * RTEL_ERR_CALLBACK_FAILURE (fatal), RTEL_ERR_INVALID_STATE.
 *
 * Thread safety: one thread at a time per context.
 *
 * Since 0.1
 */
RTEL_API RTEL_WARN_UNUSED_RESULT int
rtel_ctx_set_schedule_versioned(rtel_ctx *ctx, int schedule_version,
                                const rtel_schedule *schedule,
                                rtel_tstamp now);

/**
 * @function
 *
 * Returns 1 if port |port_id| is measured now, 0 if not (or |ctx| is
 * NULL).
 *
 * Thread safety: one thread at a time per context; may be called from a
 * callback.
 *
 * Since 0.1
 */
RTEL_API int rtel_ctx_port_measured(const rtel_ctx *ctx, uint32_t port_id);

/**
 * @function
 *
 * Sets (|value| > 0) or removes (|value| = 0) the alarm threshold of
 * |metric| (RTEL_METRIC_*) in |scope| (RTEL_SCOPE_*). Units: ns for
 * latencies and FCT, bit/s for FET (an alarm when below), a ratio for FNR
 * and the retransmission ratio, per second for the CNP rate.
 *
 * Returns 0 or RTEL_ERR_INVALID_ARGUMENT.
 *
 * Thread safety: one thread at a time per context.
 *
 * Since 0.1
 */
RTEL_API int rtel_ctx_set_threshold(rtel_ctx *ctx, uint32_t metric,
                                    uint32_t scope, double value);

/**
 * @function
 *
 * Enables (|k| > 0) or disables (|k| = 0) the baseline detector of
 * |metric| in |scope|: a value beyond k moving deviations from the moving
 * mean raises an alarm of kind RTEL_ALARM_BASELINE, once |warmup| values
 * (at least 2) have been seen for that scope key.
 *
 * Returns 0 or RTEL_ERR_INVALID_ARGUMENT.
 *
 * Thread safety: one thread at a time per context.
 *
 * Since 0.1
 */
RTEL_API int rtel_ctx_set_baseline(rtel_ctx *ctx, uint32_t metric,
                                   uint32_t scope, double k, uint32_t warmup);

/* ------------------------------------------------------------------------ */
/* IPFIX export (RFC 7011): records into messages, in caller memory         */
/* ------------------------------------------------------------------------ */

/**
 * @struct
 *
 * An IPFIX encoder: turns flow, message, I/O, segment and aggregate
 * records into IPFIX messages (RFC 7011) of one observation domain, in
 * buffers the caller owns. It does no I/O and reads no clock: the caller
 * sends each finished message (UDP, TCP, SCTP, a file) and tells the
 * encoder the time. It is independent of any rtel_ctx: feed it from the
 * callbacks. The information elements, templates and their ids are listed
 * in rtel_ipfix(3). One thread at a time per encoder.
 */
typedef struct rtel_ipfix rtel_ipfix;

/** The smallest message size the encoder accepts (RFC 7011, 10.3.3: the
 * size to use when the path MTU is unknown); every record fits in it. */
#define RTEL_IPFIX_MIN_MSG_LEN 512
/** The largest IPFIX message (the 16-bit length field). */
#define RTEL_IPFIX_MAX_MSG_LEN 65535
/** The RFC 5612 documentation enterprise number, the default |pen|: fit
 * for tests and examples only; a deployment uses its own. */
#define RTEL_IPFIX_PEN_DOCUMENTATION 32473u

/**
 * @macrosection
 *
 * rtel_ipfix_settings.flags.
 */
/** Send no RFC 5610 information element type records (the options
 * template and the records naming every enterprise-specific element). */
#define RTEL_IPFIX_NO_TYPE_INFO 0x1u

/**
 * @macrosection
 *
 * rtel_ipfix_element.record_types.
 */
#define RTEL_IPFIX_REC_FLOW 0x1u       /**< rtel_flow_record */
#define RTEL_IPFIX_REC_MSG 0x2u        /**< rtel_msg_record */
#define RTEL_IPFIX_REC_IO 0x4u         /**< rtel_io_record */
#define RTEL_IPFIX_REC_SEGMENT 0x8u    /**< rtel_segment_record */
#define RTEL_IPFIX_REC_AGGREGATE 0x10u /**< rtel_io_aggregate */

#define RTEL_IPFIX_SETTINGS_V1 1
#define RTEL_IPFIX_SETTINGS_VERSION RTEL_IPFIX_SETTINGS_V1

/**
 * @struct
 *
 * Encoder settings; fill with rtel_ipfix_settings_default(), then change
 * what you need.
 */
typedef struct rtel_ipfix_settings {
  /** Private Enterprise Number of the enterprise-specific elements
   * (default RTEL_IPFIX_PEN_DOCUMENTATION; must not be 0). */
  uint32_t pen;
  /** Observation domain id of every message (default 0). */
  uint32_t domain_id;
  /** Largest message, bytes, RTEL_IPFIX_MIN_MSG_LEN to
   * RTEL_IPFIX_MAX_MSG_LEN (default 512): over UDP, the path MTU less the
   * IP and UDP headers. */
  uint32_t max_msg_len;
  /** RTEL_IPFIX_* flags (default 0). */
  uint32_t flags;
  /** Over UDP, the templates (and type records) are sent again this long
   * after they were last sent (rtel_ipfix_get_expiry()); 0 sends them
   * only after rtel_ipfix_new() and rtel_ipfix_reset() (TCP, SCTP, a
   * file). Default 60 s. */
  rtel_tstamp template_refresh;
  /** flowId (IANA element 148) of the first data record; each record gets
   * the next one (default 1). Encoders whose records meet at one
   * collector use disjoint ranges (e.g. worker number << 48). */
  uint64_t first_flow_id;
} rtel_ipfix_settings;

/**
 * @struct
 *
 * One enterprise-specific information element of the encoder, as its
 * RFC 5610 type record describes it (rtel_ipfix_element_get()). Static
 * data; this struct is frozen.
 */
typedef struct rtel_ipfix_element {
  /** Element id (1..32767, without the enterprise bit) under the
   * encoder's |pen|. */
  uint16_t id;
  /** Encoded length in octets (every template uses this length). */
  uint16_t length;
  /** RFC 5610 informationElementDataType, Semantics and Units codes
   * (e.g. type 4 unsigned64, 8 signed64; semantics 2 totalCounter, 4
   * identifier; units 8 nanoseconds). */
  uint8_t data_type;
  uint8_t semantics;
  uint16_t units;
  /** The record types whose templates carry it (RTEL_IPFIX_REC_*). */
  uint32_t record_types;
  uint32_t reserved;
  /** Name (camelCase, as IPFIX names elements) and one-line description,
   * static NUL-terminated ASCII. */
  const char *name;
  const char *description;
} rtel_ipfix_element;

/**
 * @function
 *
 * Fills |settings| with the defaults. Use the rtel_ipfix_settings_default()
 * macro. Does nothing if |settings| is NULL or the version is unknown.
 *
 * Thread safety: safe from any thread.
 *
 * Since 0.1
 */
RTEL_API void
rtel_ipfix_settings_default_versioned(int settings_version,
                                      rtel_ipfix_settings *settings);

/**
 * @function
 *
 * Creates an encoder in |*penc|. |settings| (NULL for the defaults) and
 * |mem| (NULL for rtel_mem_default()) are copied. This is the encoder's
 * only allocation. Its templates are due: the first message written
 * carries them. Use the rtel_ipfix_new() macro.
 *
 * Returns 0, or RTEL_ERR_INVALID_ARGUMENT (|penc| NULL, |pen| 0,
 * max_msg_len out of range, an unknown flag, |mem| incomplete or NULL in a
 * freestanding build), RTEL_ERR_UNSUPPORTED_VERSION, RTEL_ERR_NOMEM. On
 * failure |*penc| is left untouched.
 *
 * Thread safety: safe from any thread (creates a new, independent object).
 *
 * Since 0.1
 */
RTEL_API RTEL_WARN_UNUSED_RESULT int
rtel_ipfix_new_versioned(rtel_ipfix **penc, int settings_version,
                         const rtel_ipfix_settings *settings,
                         const rtel_mem *mem);

/**
 * @function
 *
 * Frees |enc|. Does nothing if |enc| is NULL. A message begun and not
 * ended is abandoned (its buffer is the caller's).
 *
 * Thread safety: one thread at a time per encoder.
 *
 * Since 0.1
 */
RTEL_API void rtel_ipfix_del(rtel_ipfix *enc);

/**
 * @function
 *
 * Begins a message in |buf| (|buflen| bytes, at least
 * RTEL_IPFIX_MIN_MSG_LEN; the message never grows past the smaller of
 * |buflen| and max_msg_len), with export time |now| (ns; the header
 * carries its seconds). If the templates are due
 * (rtel_ipfix_control_pending()), the message starts with as many of them
 * as fit: the RFC 5610 options template and type records first, then the
 * data templates; what does not fit goes into the next messages, before
 * any data. The encoder keeps |buf| until rtel_ipfix_end().
 *
 * Returns 0, or RTEL_ERR_INVALID_ARGUMENT (|enc| or |buf| NULL, |buflen|
 * too small), RTEL_ERR_INVALID_STATE (a message is already begun).
 *
 * Thread safety: one thread at a time per encoder.
 *
 * Since 0.1
 */
RTEL_API RTEL_WARN_UNUSED_RESULT int rtel_ipfix_begin(rtel_ipfix *enc,
                                                      uint8_t *buf,
                                                      size_t buflen,
                                                      rtel_tstamp now);

/**
 * @function
 *
 * Appends a flow record |rec| (of struct version |rec_version|: pass the
 * version the record was delivered in) to the message begun. A record is
 * never split: when it does not fit, nothing is written and
 * RTEL_ERR_BUFFER_FULL says to end the message, send it, begin another
 * and add the record again. A message that holds nothing yet (no
 * template, no record) always takes the record, or first the templates
 * that are due (a refresh that fell due after rtel_ipfix_begin()), so that
 * loop ends.
 * Each record takes the next flowId. Use the rtel_ipfix_add_flow() macro.
 *
 * Returns 0, or RTEL_ERR_BUFFER_FULL (also while templates that did not
 * fit are still due), RTEL_ERR_INVALID_ARGUMENT (NULL),
 * RTEL_ERR_UNSUPPORTED_VERSION, RTEL_ERR_INVALID_STATE (no message begun).
 *
 * Thread safety: one thread at a time per encoder.
 *
 * Since 0.1
 */
RTEL_API RTEL_WARN_UNUSED_RESULT int
rtel_ipfix_add_flow_versioned(rtel_ipfix *enc, int rec_version,
                              const rtel_flow_record *rec);

/**
 * @function
 *
 * As rtel_ipfix_add_flow(), for a message record. Use the
 * rtel_ipfix_add_msg() macro.
 *
 * Since 0.1
 */
RTEL_API RTEL_WARN_UNUSED_RESULT int
rtel_ipfix_add_msg_versioned(rtel_ipfix *enc, int rec_version,
                             const rtel_msg_record *rec);

/**
 * @function
 *
 * As rtel_ipfix_add_flow(), for an NVMe-oF I/O record. Use the
 * rtel_ipfix_add_io() macro.
 *
 * Since 0.1
 */
RTEL_API RTEL_WARN_UNUSED_RESULT int
rtel_ipfix_add_io_versioned(rtel_ipfix *enc, int rec_version,
                            const rtel_io_record *rec);

/**
 * @function
 *
 * As rtel_ipfix_add_flow(), for a segment record. Use the
 * rtel_ipfix_add_segment() macro.
 *
 * Since 0.1
 */
RTEL_API RTEL_WARN_UNUSED_RESULT int
rtel_ipfix_add_segment_versioned(rtel_ipfix *enc, int rec_version,
                                 const rtel_segment_record *rec);

/**
 * @function
 *
 * As rtel_ipfix_add_flow(), for a per-period I/O aggregate. Use the
 * rtel_ipfix_add_aggregate() macro.
 *
 * Since 0.1
 */
RTEL_API RTEL_WARN_UNUSED_RESULT int
rtel_ipfix_add_aggregate_versioned(rtel_ipfix *enc, int rec_version,
                                   const rtel_io_aggregate *rec);

/**
 * @function
 *
 * Ends the message begun: writes its length and sequence number (the
 * data records, options data records included, that earlier messages of
 * this transport session carried: RFC 7011, 3.1) and gives the buffer
 * back. Returns the message length, to be sent as one datagram or
 * appended to the stream; 0 if the message holds nothing (send nothing);
 * RTEL_ERR_INVALID_ARGUMENT (|enc| NULL) or RTEL_ERR_INVALID_STATE (no
 * message begun).
 *
 * Thread safety: one thread at a time per encoder.
 *
 * Since 0.1
 */
RTEL_API rtel_ssize rtel_ipfix_end(rtel_ipfix *enc);

/**
 * @function
 *
 * Starts a new transport session (a TCP or SCTP reconnection, a new
 * file): the sequence number restarts at 0 and the templates are due
 * again. A message begun is abandoned. Does nothing if |enc| is NULL.
 *
 * Thread safety: one thread at a time per encoder.
 *
 * Since 0.1
 */
RTEL_API void rtel_ipfix_reset(rtel_ipfix *enc);

/**
 * @function
 *
 * Returns 1 if the templates are due (the next message begun carries
 * them), 0 if not or |enc| is NULL. An exporter with no record to send
 * sends them anyway: begin, end, send.
 *
 * Thread safety: one thread at a time per encoder.
 *
 * Since 0.1
 */
RTEL_API int rtel_ipfix_control_pending(const rtel_ipfix *enc);

/**
 * @function
 *
 * Returns when the templates are next due for a refresh: template_refresh
 * after the export time of the message that last finished sending them;
 * RTEL_TSTAMP_NONE if template_refresh is 0, if they are due already, or
 * |enc| is NULL.
 *
 * Thread safety: one thread at a time per encoder.
 *
 * Since 0.1
 */
RTEL_API rtel_tstamp rtel_ipfix_get_expiry(const rtel_ipfix *enc);

/**
 * @function
 *
 * Makes the templates due if |now| is at or past rtel_ipfix_get_expiry().
 * The sequence number goes on (a refresh is not a new session).
 *
 * Returns 0 or RTEL_ERR_INVALID_ARGUMENT (|enc| NULL).
 *
 * Thread safety: one thread at a time per encoder.
 *
 * Since 0.1
 */
RTEL_API int rtel_ipfix_handle_expiry(rtel_ipfix *enc, rtel_tstamp now);

/**
 * @function
 *
 * Returns the |index|-th enterprise-specific element of the encoder (0
 * up), NULL past the last. Static data: safe from any thread. With it an
 * application writes a collector's dictionary (pmacct's
 * aggregate_primitives, for instance) without parsing messages.
 *
 * Since 0.1
 */
RTEL_API const rtel_ipfix_element *rtel_ipfix_element_get(size_t index);

/* ------------------------------------------------------------------------ */
/* Version-passing wrappers: use these, not the *_versioned functions.      */
/* ------------------------------------------------------------------------ */

#define rtel_pkt_decode(HD, OPTS, PKT, CAPLEN, WIRELEN)                       \
  rtel_pkt_decode_versioned(RTEL_PKT_HD_VERSION, (HD),                        \
                            RTEL_DECODE_OPTS_VERSION, (OPTS), (PKT),          \
                            (CAPLEN), (WIRELEN))

#define rtel_icrc_compute(HD, PKT, CAPLEN, ICRC)                              \
  rtel_icrc_compute_versioned(RTEL_PKT_HD_VERSION, (HD), (PKT), (CAPLEN),     \
                              (ICRC))

#define rtel_settings_default(SETTINGS)                                       \
  rtel_settings_default_versioned(RTEL_SETTINGS_VERSION, (SETTINGS))

#define rtel_ctx_new(PCTX, SETTINGS, CALLBACKS, MEM, USER_DATA)               \
  rtel_ctx_new_versioned((PCTX), RTEL_SETTINGS_VERSION, (SETTINGS),           \
                         RTEL_CALLBACKS_VERSION, (CALLBACKS), (MEM),          \
                         (USER_DATA))

#define rtel_ctx_read_pkt(CTX, PI, PKT, PKTLEN)                               \
  rtel_ctx_read_pkt_versioned((CTX), RTEL_PKT_INFO_VERSION, (PI), (PKT),      \
                              (PKTLEN))

#define rtel_ctx_read_pkts(CTX, PIS, PKTS, PKTLENS, N)                        \
  rtel_ctx_read_pkts_versioned((CTX), RTEL_PKT_INFO_VERSION, (PIS), (PKTS),   \
                               (PKTLENS), (N))

#define rtel_ctx_read_pkts_timed(CTX, PIS, PKTS, PKTLENS, N)                  \
  rtel_ctx_read_pkts_timed_versioned((CTX), RTEL_PKT_INFO_VERSION, (PIS),     \
                                     (PKTS), (PKTLENS), (N))

#define rtel_ctx_add_port(CTX, PORT, NOW)                                     \
  rtel_ctx_add_port_versioned((CTX), RTEL_PORT_VERSION, (PORT), (NOW))

#define rtel_ctx_set_schedule(CTX, SCHED, NOW)                                \
  rtel_ctx_set_schedule_versioned((CTX), RTEL_SCHEDULE_VERSION, (SCHED), (NOW))

#define rtel_ctx_get_stats(CTX, STATS)                                        \
  rtel_ctx_get_stats_versioned((CTX), RTEL_CTX_STATS_VERSION, (STATS))

#define rtel_ipfix_settings_default(SETTINGS)                                 \
  rtel_ipfix_settings_default_versioned(RTEL_IPFIX_SETTINGS_VERSION,          \
                                        (SETTINGS))

#define rtel_ipfix_new(PENC, SETTINGS, MEM)                                   \
  rtel_ipfix_new_versioned((PENC), RTEL_IPFIX_SETTINGS_VERSION, (SETTINGS),   \
                           (MEM))

#define rtel_ipfix_add_flow(ENC, REC)                                         \
  rtel_ipfix_add_flow_versioned((ENC), RTEL_FLOW_RECORD_VERSION, (REC))

#define rtel_ipfix_add_msg(ENC, REC)                                          \
  rtel_ipfix_add_msg_versioned((ENC), RTEL_MSG_RECORD_VERSION, (REC))

#define rtel_ipfix_add_io(ENC, REC)                                           \
  rtel_ipfix_add_io_versioned((ENC), RTEL_IO_RECORD_VERSION, (REC))

#define rtel_ipfix_add_segment(ENC, REC)                                      \
  rtel_ipfix_add_segment_versioned((ENC), RTEL_SEGMENT_RECORD_VERSION, (REC))

#define rtel_ipfix_add_aggregate(ENC, REC)                                    \
  rtel_ipfix_add_aggregate_versioned((ENC), RTEL_IO_AGGREGATE_VERSION, (REC))

#ifdef __cplusplus
}
#endif

#endif /* ROCETEL_ROCETEL_H */
