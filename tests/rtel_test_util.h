/* SPDX-License-Identifier: MIT */
/*
 * Test utilities shared by the C suites: the one packet builder
 * (rtel_test_pkt.c: Ethernet, VLANs, IPv4/IPv6/GRH, UDP, tunnels, BTH and
 * every extended transport header, RDMA CM MADs, and an independent ICRC;
 * rtel_test_nvme.c: NVMe-oF capsules and the frames of an NVMe-oF queue),
 * a small pcap reader and a counting/failing allocator (rtel_test_util.c).
 *
 * Nothing here calls into the library: the expected values the tests
 * compare against are computed from the bytes built here, never by library
 * code. Only constants (RTEL_HD_F_*, RTEL_CM_*) are taken from the public
 * header.
 */
#ifndef RTEL_TEST_UTIL_H
#define RTEL_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <rocetel/rocetel.h>

/* TU_NO_CHECK: the builder alone, without Check (the libFuzzer harness
 * tests/fuzz/fuzz_seq.c compiles rtel_test_pkt.c and rtel_test_nvme.c
 * with clang where Check may be missing). */
#ifndef TU_NO_CHECK
#  include <check.h>

/* ---------------------------------------------------------------- suites */

Suite *rtel_test_decode_suite(void);
Suite *rtel_test_ctx_suite(void);
Suite *rtel_test_misc_suite(void);
Suite *rtel_test_shard_suite(void);
Suite *rtel_test_names_suite(void);
Suite *rtel_test_icrc_suite(void);
Suite *rtel_test_ahead_suite(void);
Suite *rtel_test_table_suite(void);
Suite *rtel_test_fastpath_suite(void);
#endif

/* ------------------------------------------------------- field values */
/* Distinct values for every field, most with the top bit set so that sign
 * and byte-order mistakes show. Reserved bits next to 24-bit fields are
 * set to ones on the wire. */
#define TU_PKEY 0xA1B2u
#define TU_DQPN 0xC0FFEEu
#define TU_PSN 0xABCDEFu
#define TU_RDETH_EEC 0x923456u
#define TU_DETH_QKEY 0x8765ABCDu
#define TU_DETH_SQPN 0xBEEF01u
#define TU_XRC_SRQN 0xFACE12u
#define TU_RETH_VA UINT64_C(0x8877665544332211)
#define TU_RETH_RKEY 0xA1B2C3D4u
#define TU_RETH_LEN 0x80000400u
#define TU_ATOMIC_VA UINT64_C(0xF0E1D2C3B4A59687)
#define TU_ATOMIC_RKEY 0x93579BDFu
#define TU_ATOMIC_SWAP UINT64_C(0x0102030405060708)
#define TU_ATOMIC_CMP UINT64_C(0x8090A0B0C0D0E0F0)
#define TU_AETH_SYN 0x0Eu
#define TU_AETH_MSN 0xFEDCBAu
#define TU_ATOMICACK_ORIG UINT64_C(0xCAFEBABEDEADBEEF)
#define TU_IMM 0xDEADBEEFu
#define TU_IETH_RKEY 0xF5A5A5A5u
#define TU_FETH 0xABCDEF21u
#define TU_SPORT 0xC123u

extern const uint8_t tu_mac_a[6];
extern const uint8_t tu_mac_b[6];
extern const uint8_t tu_ip6_a[16];
extern const uint8_t tu_ip6_b[16];
#define TU_IP4_A 0x0A000001u /* 10.0.0.1 */
#define TU_IP4_B 0x0A000002u /* 10.0.0.2 */

/* ------------------------------------------------------- byte builder */

#define TB_MAX 9216 /* a 9000-byte jumbo frame, a 4096-byte RoCE MTU */
#define TB_STACK 8
#define TB_MAXEXT 8

typedef struct tb {
  uint8_t b[TB_MAX];
  size_t n;
  /* IP headers (IPv4/IPv6), outermost first */
  size_t ip_off[TB_STACK];
  int ip_ver[TB_STACK];
  size_t nip;
  /* UDP headers, outermost first */
  size_t udp_off[TB_STACK];
  size_t nudp;
  /* RoCEv1 GRH (0 if none) */
  int have_grh;
  size_t grh_off;
  /* transport */
  int have_bth;
  size_t bth_off;
  uint32_t ext_flag[TB_MAXEXT];
  size_t ext_off[TB_MAXEXT];
  size_t ext_end[TB_MAXEXT];
  size_t next;
  /* set by tb_finish() */
  size_t payload_off;
  size_t icrc_off; /* offset of the ICRC (== end of payload + pad) */
  size_t end;      /* end of the innermost packet (incl. ICRC) */
} tb;

void tb_init(tb *t);
size_t tb_put8(tb *t, uint8_t v);
size_t tb_put16(tb *t, uint16_t v);
size_t tb_put24(tb *t, uint32_t v);
size_t tb_put32(tb *t, uint32_t v);
size_t tb_put64(tb *t, uint64_t v);
size_t tb_bytes(tb *t, const void *p, size_t n);
size_t tb_fill(tb *t, uint8_t v, size_t n);
/* deterministic pattern: byte i = (seed + i * 7) & 0xff */
size_t tb_pattern(tb *t, size_t n, uint8_t seed);
void tb_set16(tb *t, size_t off, uint16_t v);
void tb_set32(tb *t, size_t off, uint32_t v);
uint16_t tb_get16(const tb *t, size_t off);

/* L2 */
void tb_eth(tb *t, const uint8_t dst[6], const uint8_t src[6]);
void tb_vlan(tb *t, uint16_t tpid, uint16_t tci);
void tb_ethertype(tb *t, uint16_t et);
/* Linux cooked headers, protocol = ethertype */
void tb_sll(tb *t, uint16_t proto);
void tb_sll2(tb *t, uint16_t proto);

/* L3: lengths and the IPv4 checksum are filled in by tb_finish() */
size_t tb_ipv4(tb *t, uint8_t tos, uint16_t id, uint16_t frag, uint8_t ttl,
               uint8_t proto, uint32_t src, uint32_t dst, const uint8_t *opts,
               size_t optlen);
size_t tb_ipv6(tb *t, uint8_t tc, uint32_t flow, uint8_t nh, uint8_t hlim,
               const uint8_t src[16], const uint8_t dst[16]);
/* generic extension header (hop-by-hop, routing, destination options):
 * next header, length in 8-octet units beyond the first, zero filled */
size_t tb_ipv6_ext(tb *t, uint8_t nh, uint8_t len8);
size_t tb_ipv6_frag(tb *t, uint8_t nh, uint16_t offset8, int more,
                    uint32_t id);
size_t tb_udp(tb *t, uint16_t sport, uint16_t dport);
size_t tb_grh(tb *t, uint8_t tc, uint32_t flow, uint8_t nh, uint8_t hlim,
              const uint8_t sgid[16], const uint8_t dgid[16]);

/* tunnels */
/* GRE: |flags| are the C/K/S bits (0x8000/0x2000/0x1000) plus version */
void tb_gre(tb *t, uint16_t flags_ver, uint16_t proto, uint32_t key,
            uint32_t seq);
void tb_erspan2(tb *t, uint16_t vlan, uint8_t cos, uint8_t en, uint8_t tbit,
                uint16_t session, uint32_t index);
void tb_erspan2_ver(tb *t, uint8_t ver, uint16_t session);
void tb_erspan3(tb *t, uint16_t vlan, uint8_t cos, uint8_t bso, uint8_t tbit,
                uint16_t session, uint32_t ts, uint16_t sgt, uint8_t p,
                uint8_t ft, uint8_t hwid, uint8_t d, uint8_t gra, uint8_t o);
void tb_vxlan(tb *t, uint8_t flags, uint32_t vni);

/* BTH and extended transport headers */
typedef struct tb_bth_f {
  uint8_t opcode, se, m, pad, tver;
  uint16_t pkey;
  uint8_t fecn, becn, resv6;
  uint32_t dqpn;
  uint8_t ackreq, resv7;
  uint32_t psn;
} tb_bth_f;
size_t tb_bth(tb *t, const tb_bth_f *f);
size_t tb_rdeth(tb *t, uint32_t eecnxt);
size_t tb_deth(tb *t, uint32_t qkey, uint32_t sqpn);
size_t tb_xrceth(tb *t, uint32_t srqn);
size_t tb_reth(tb *t, uint64_t va, uint32_t rkey, uint32_t len);
size_t tb_atomiceth(tb *t, uint64_t va, uint32_t rkey, uint64_t swap,
                    uint64_t cmp);
size_t tb_aeth(tb *t, uint8_t syn, uint32_t msn);
size_t tb_atomicacketh(tb *t, uint64_t orig);
size_t tb_immdt(tb *t, uint32_t imm);
size_t tb_ieth(tb *t, uint32_t rkey);
size_t tb_feth(tb *t, uint32_t feth);

/* Fixes every IP/UDP/GRH length to the end of the packet (plus 4 ICRC
 * bytes), recomputes IPv4 checksums and appends the ICRC of the innermost
 * RoCE packet little-endian. payload_off = end of the last transport
 * header (or |payload_off| if set before via tb_mark_payload()). */
void tb_finish(tb *t);
/* same for a non-RoCE packet: lengths to the end, no ICRC */
void tb_finish_plain(tb *t);
void tb_mark_payload(tb *t);
/* recompute IPv4 header checksums and the ICRC in place (after edits) */
void tb_refresh(tb *t);
void tb_ipv4_csum(tb *t, size_t ip_off);

/* ------------------------------------------------------- opcode table */

/* Extended headers of an opcode as RTEL_HD_F_* bits, in the wire order
 * RDETH, DETH, XRCETH, FETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt,
 * IETH. Returns 0 and sets *valid = 0 for a reserved opcode. Written from
 * the IBTA tables (RD/XRC responses carry no DETH/XRCETH). */
uint32_t tu_opcode_hdrs(uint8_t opcode, int *valid);
/* 1 if the opcode normally carries payload */
int tu_opcode_has_payload(uint8_t opcode);

/* ------------------------------------------------------- packet recipes */

#define TU_MAXVLAN 8

/* One RoCE frame, field by field. tu_spec_init() sets the defaults noted
 * here (the TU_* values of the transport headers); change what you need.
 * Extended transport headers are written where the opcode has them
 * (tu_opcode_hdrs()), with the values below. */
typedef struct tu_spec {
  int ipver;  /* 4 (also 0), 6, or 1 for RoCEv1 (GRH); default 4 */
  int raw_ip; /* no Ethernet header (LINKTYPE_RAW) */
  int nvlan;  /* 0..TU_MAXVLAN tags, outermost first */
  uint16_t vlan_tpid[TU_MAXVLAN]; /* default 0x8100 */
  uint16_t vlan_tci[TU_MAXVLAN];  /* default 0x0100 + i */
  /* addresses, 16 bytes, IPv4-mapped (::ffff:a.b.c.d) for IPv4, as the
   * library reports them; all zeros (the default) stands for TU_IP4_A ->
   * TU_IP4_B or tu_ip6_a -> tu_ip6_b */
  uint8_t src[16];
  uint8_t dst[16];
  uint8_t tos;    /* IPv4 TOS / IPv6 or GRH traffic class: DSCP, ECN */
  uint8_t ttl;    /* default 64 */
  uint32_t flow;  /* IPv6 / GRH flow label */
  uint16_t sport; /* default TU_SPORT */
  uint16_t dport; /* default 4791 */
  /* BTH */
  uint8_t opcode;
  uint8_t se, m, pad, tver, fecn, becn;
  uint8_t ackreq; /* default 1 */
  uint16_t pkey;  /* default TU_PKEY */
  uint32_t dqpn;  /* default TU_DQPN */
  uint32_t psn;   /* default TU_PSN */
  /* extended transport headers */
  uint32_t rdeth_eec;
  uint32_t deth_qkey, deth_sqpn;
  uint32_t xrc_srqn;
  uint32_t feth;
  uint64_t reth_va;
  uint32_t reth_rkey, reth_len;
  uint64_t atomic_va;
  uint32_t atomic_rkey;
  uint64_t atomic_swap, atomic_cmp;
  uint8_t aeth_syn;
  uint32_t aeth_msn;
  uint64_t atomicack_orig;
  uint32_t imm;
  uint32_t ieth_rkey;
  /* payload: |paylen| bytes of |payload|, or of a pattern (tb_pattern(),
   * seed 0x31) when NULL; then |pad| zero bytes */
  const uint8_t *payload;
  size_t paylen;
} tu_spec;

void tu_spec_init(tu_spec *s, uint8_t opcode, size_t paylen);
/* Ethernet (unless raw_ip) + VLANs + IPv4/IPv6/GRH + UDP */
void tu_headers(tb *t, const tu_spec *s);
/* BTH + the opcode's extended headers + payload + pad */
void tu_transport(tb *t, const tu_spec *s);
/* both, then tb_finish() (lengths, IPv4 checksum, ICRC) */
void tu_build(tb *t, const tu_spec *s);
/* the BTH pad count of a payload of |paylen| bytes */
size_t tu_pad_of(size_t paylen);
void tu_ipv4_mapped(uint8_t out[16], uint32_t ip);

/* An RDMA CM MAD: UD SEND ONLY to QP1, DETH (Q_Key 0x80010000, source QP
 * 1), a 256-byte MAD (base version 1, class 0x07, class version 2, method
 * Send) of which mad_len bytes go on the wire. */
typedef struct tu_cm {
  uint16_t attr;
  uint64_t tid;
  uint32_t lcid, rcid;
  uint64_t service_id;
  uint32_t local_qpn, start_psn, remote_qpn;
  uint16_t rej_reason;
  uint8_t lgid[16], rgid[16];
  size_t mad_len; /* bytes of MAD on the wire; 0 = 256 */
  /* private data (cut to the message's size); NULL: a byte pattern */
  const uint8_t *priv;
  size_t privlen;
} tu_cm;
/* the 256 MAD bytes */
void tu_cm_mad(uint8_t m[256], const tu_cm *cm);
/* the MAD frame with the network headers, ports and PSN of |s| */
void tu_build_cm_on(tb *t, const tu_spec *s, const tu_cm *cm);
/* the same from TU_IP4_A to TU_IP4_B, UDP source port 0xD001 */
void tu_build_cm(tb *t, const tu_cm *cm);
/* offset of the private data from the MAD start, and its size */
size_t tu_cm_priv_off(uint16_t attr);
size_t tu_cm_priv_size(uint16_t attr);

/* ------------------------------------------------------- NVMe-oF */

/* Capsules as NVMe 2.0 and NVMe-oF 1.1 lay them out (little-endian). A
 * command capsule is a 64-byte SQE (and in-capsule data); a response
 * capsule a 16-byte CQE. */
#define TU_SQE_LEN 64
#define TU_CQE_LEN 16
#define TU_NVME_FLUSH 0x00u
#define TU_NVME_WRITE 0x01u
#define TU_NVME_READ 0x02u
#define TU_NVME_FABRICS 0x7Fu

/* NVM read or write of |nlb| blocks (NLB written 0-based) with one keyed
 * SGL data block descriptor (va, len, key). */
void tu_sqe_rw(uint8_t sqe[TU_SQE_LEN], uint8_t opcode, uint16_t cid,
               uint32_t nsid, uint64_t slba, uint32_t nlb, uint64_t va,
               uint32_t len, uint32_t key);
/* NVM write whose |len| bytes of data follow the SQE in the capsule (SGL
 * data block descriptor, offset 0). */
void tu_sqe_incapsule(uint8_t sqe[TU_SQE_LEN], uint16_t cid, uint32_t nsid,
                      uint64_t slba, uint32_t nlb, uint32_t len);
/* Marks the keyed SGL descriptor of |sqe| "invalidate key" (subtype 0xF):
 * the target answers with SEND with Invalidate of its key. */
void tu_sqe_keyed_inv(uint8_t sqe[TU_SQE_LEN]);
/* Flush: no data (a keyed SGL descriptor of length 0, as Linux sends). */
void tu_sqe_flush(uint8_t sqe[TU_SQE_LEN], uint16_t cid, uint32_t nsid);
/* Fabrics Connect (fctype 0x01): QID in CDW10, SQSIZE 127, an in-capsule
 * descriptor of |datalen| bytes (1024 for the Connect data, which the
 * caller appends). */
void tu_sqe_connect(uint8_t sqe[TU_SQE_LEN], uint16_t cid, uint16_t qid,
                    uint32_t datalen);
/* Another Fabrics command without data (fctype 0x04 Property Get, ...):
 * a keyed SGL descriptor of length 0, as for a flush. */
void tu_sqe_fabrics(uint8_t sqe[TU_SQE_LEN], uint16_t cid, uint8_t fctype);
/* CQE of |cid| with status field |sf| (the 15 bits above the phase bit),
 * SQ head 1. */
void tu_cqe(uint8_t cqe[TU_CQE_LEN], uint16_t cid, uint16_t sf);

/* An NVMe-oF queue: one RC QP pair. The host sends command capsules to
 * the target's QP tqpn; the target sends response capsules, read data
 * (RDMA WRITE) and READ REQUESTs to the host's QP hqpn; the host's READ
 * RESPONSEs go to tqpn. Each side numbers its requests from its next PSN.
 * The tu_nvq_* builders below write one whole frame into |t| (tb_init()
 * included). */
typedef struct tu_nvq {
  int ipver;        /* 4 or 6 */
  uint8_t host[16]; /* IPv4-mapped for IPv4 */
  uint8_t target[16];
  uint32_t hqpn, tqpn;
  uint32_t hpsn, tpsn; /* next request PSN host -> target, target -> host */
  uint16_t sport;      /* UDP source port of both directions */
} tu_nvq;

/* IPv4 queue between host-order addresses |host| and |target|. */
void tu_nvq_init4(tu_nvq *q, uint32_t host, uint32_t target, uint32_t hqpn,
                  uint32_t tqpn, uint32_t hpsn, uint32_t tpsn);
/* tu_spec_init() for a frame of |q| host -> target (|to_target|, to tqpn)
 * or target -> host (to hqpn), |paylen| bytes of payload and their pad.
 * The PSN is left to the caller. */
void tu_nvq_spec(tu_spec *s, const tu_nvq *q, int to_target, uint8_t opcode,
                 size_t paylen);
/* Host -> target SEND (ONLY, FIRST, MIDDLE, LAST) with |n| bytes of a
 * command capsule; PSN hpsn++. */
void tu_nvq_capsule(tb *t, tu_nvq *q, uint8_t opcode, const uint8_t *b,
                    size_t n);
/* A command: an SQE in a SEND ONLY; PSN hpsn++. */
void tu_nvq_cmd(tb *t, tu_nvq *q, const uint8_t sqe[TU_SQE_LEN]);
/* Target -> host response: the CQE of |cid| and status |sf| (tu_cqe()) in
 * a SEND ONLY, or in a SEND ONLY with Invalidate of |inv_rkey| when |inv|;
 * PSN tpsn++. tu_nvq_rsp_cqe() sends a CQE given byte by byte. */
void tu_nvq_rsp(tb *t, tu_nvq *q, uint16_t cid, uint16_t sf, int inv,
                uint32_t inv_rkey);
void tu_nvq_rsp_cqe(tb *t, tu_nvq *q, const uint8_t cqe[TU_CQE_LEN], int inv,
                    uint32_t inv_rkey);
/* Target -> host RDMA WRITE (FIRST, MIDDLE, LAST, ONLY) of |len| bytes of
 * read data; FIRST and ONLY carry the RETH (va, key, dmalen); PSN tpsn++. */
void tu_nvq_wdata(tb *t, tu_nvq *q, uint8_t opcode, uint64_t va, uint32_t key,
                  uint32_t dmalen, size_t len);
/* Target -> host RDMA READ REQUEST of |len| bytes at (va, key), answered
 * by |npkts| READ RESPONSE packets: returns its PSN; tpsn += npkts. */
uint32_t tu_nvq_rdreq(tb *t, tu_nvq *q, uint64_t va, uint32_t key,
                      uint32_t len, uint32_t npkts);
/* Host -> target RDMA READ RESPONSE (FIRST, MIDDLE, LAST, ONLY) of |len|
 * bytes with PSN |psn|; FIRST, LAST and ONLY carry an AETH (ACK). */
void tu_nvq_rdresp(tb *t, const tu_nvq *q, uint8_t opcode, uint32_t psn,
                   size_t len);
/* An ACK of |psn|: to the target (|to_target|) or to the host. */
void tu_nvq_ack(tb *t, const tu_nvq *q, int to_target, uint32_t psn);
/* The RDMA CM exchange that opens |q|: a ConnectRequest host -> target
 * (service ID of TCP port |port|, the host's QPN and PSN, NVMe-oF private
 * data carrying |qid|) and the target's ConnectReply (its QPN and PSN),
 * with transaction id |tid|. */
void tu_nvq_cm_req(tb *t, const tu_nvq *q, uint16_t port, uint16_t qid,
                   uint64_t tid);
void tu_nvq_cm_rep(tb *t, const tu_nvq *q, uint64_t tid);

/* ------------------------------------------------------- ICRC, CRC */

/* Bitwise reflected CRC-32 (poly 0xEDB88320), zlib crc32() semantics. */
uint32_t tu_crc32(uint32_t crc, const uint8_t *p, size_t n);
/* ICRC of the RoCE packet in pkt[l3_off .. end-4): ipver 4/6 with the UDP
 * header at udp_off, or ipver 1 for a RoCEv1 GRH (udp_off unused). */
uint32_t tu_icrc(const uint8_t *pkt, size_t l3_off, int ipver, size_t udp_off,
                 size_t bth_off, size_t end);
uint32_t tu_le32(const uint8_t *p);

/* ------------------------------------------------------- pcap reader */

typedef struct tu_pcap {
  uint8_t *data;
  size_t len, pos;
  int swap, nsec;
  uint32_t linktype;
} tu_pcap;
int tu_pcap_open(tu_pcap *p, const char *path);
int tu_pcap_next(tu_pcap *p, const uint8_t **pkt, uint32_t *caplen,
                 uint32_t *wirelen, uint64_t *ts_ns);
void tu_pcap_close(tu_pcap *p);
/* directory of the shared captures ($top_srcdir/../shared/captures), or
 * NULL if it does not exist. Static buffer. */
const char *tu_captures_dir(void);

/* ------------------------------------------------------- allocator */

#define TU_ALLOC_TRACK 4096
typedef struct tu_alloc {
  unsigned magic;
  long fail_at; /* fail the n-th allocation call (1-based), 0 = never */
  long ncalls;  /* malloc/calloc/realloc calls (successful or not) */
  long nallocs; /* blocks handed out */
  long nfrees;  /* blocks freed */
  long live;
  int errors; /* wrong user_data, unknown pointer freed, overflow */
  void *ptrs[TU_ALLOC_TRACK];
} tu_alloc;
void tu_alloc_init(tu_alloc *a, rtel_mem *mem, long fail_at);

#endif /* RTEL_TEST_UTIL_H */
