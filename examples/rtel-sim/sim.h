/* sim.h - rtel-sim: shared types of the discrete-event RoCEv2 / NVMe-oF
 * simulator
 *
 * Layout of the program:
 *   main.c        command line, output directory, run
 *   config.c      options, defaults, validation, scenario presets (scenario.c)
 *   model_net.c   topology, links (delay, jitter, FIFO), observation points,
 * loss/ECN placement model_rc.c    reliable-connected QPs: NIC scheduler,
 * go-back-N, ACK/NAK/RNR, timeouts, CNPs model_cm.c    RDMA CM connection
 * set-up (REQ/REP/RTU MADs on QP1) model_gpu.c   GPU traffic: ring all-reduce
 * phases, closed-loop pairs model_nvme.c  NVMe-oF over RDMA host and target
 *   truth.c       observation: pcap frames + ground truth JSON Lines
 *   encode.c      frame encoder (Ethernet/VLAN/IPv4/IPv6/UDP/BTH/... /ICRC,
 * ERSPAN) crc.c rng.c heap.c out.c   utilities
 *
 * All state lives in one struct sim owned by main().
 */
#ifndef RTEL_SIM_SIM_H
#define RTEL_SIM_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "crc.h"
#include "heap.h"
#include "out.h"
#include "rng.h"

#define NONE 0xffffffffu
#define MAXOBS 8
#define MAXLINKS 4
#define PSN_MASK 0xffffffu
#define EPOCH_NS                                                              \
  1700000000000000000ull /* true time 0 = 2023-11-14T22:13:20Z */

/* 24-bit serial-number arithmetic */
static inline uint32_t psn_add(uint32_t a, uint32_t b) {
  return (a + b) & PSN_MASK;
}
static inline uint32_t psn_diff(uint32_t a, uint32_t b) {
  return (a - b) & PSN_MASK;
}
static inline int psn_lt(uint32_t a, uint32_t b) {
  uint32_t d = (b - a) & PSN_MASK;
  return d != 0 && d < 0x800000u;
}
static inline int psn_le(uint32_t a, uint32_t b) {
  return a == b || psn_lt(a, b);
}

/* BTH opcodes used */
enum {
  OP_SEND_FIRST = 0x00,
  OP_SEND_MIDDLE = 0x01,
  OP_SEND_LAST = 0x02,
  OP_SEND_LAST_IMM = 0x03,
  OP_SEND_ONLY = 0x04,
  OP_SEND_ONLY_IMM = 0x05,
  OP_WRITE_FIRST = 0x06,
  OP_WRITE_MIDDLE = 0x07,
  OP_WRITE_LAST = 0x08,
  OP_WRITE_LAST_IMM = 0x09,
  OP_WRITE_ONLY = 0x0a,
  OP_WRITE_ONLY_IMM = 0x0b,
  OP_READ_REQ = 0x0c,
  OP_READ_RESP_FIRST = 0x0d,
  OP_READ_RESP_MIDDLE = 0x0e,
  OP_READ_RESP_LAST = 0x0f,
  OP_READ_RESP_ONLY = 0x10,
  OP_ACK = 0x11,
  OP_SEND_LAST_INV = 0x16,
  OP_SEND_ONLY_INV = 0x17,
  OP_UD_SEND_ONLY = 0x64,
  OP_CNP = 0x81,
};

/* message (work request) types */
enum {
  MK_WRITE,
  MK_WRITE_IMM,
  MK_SEND,
  MK_SEND_IMM,
  MK_SEND_INV,
  MK_READ,
  MK__N
};

/* what a packet is */
enum { W_DATA, W_RREQ, W_ACK, W_NAK, W_RNR, W_CNP, W_CM };
/* why it was sent */
enum { WHY_NEW, WHY_RETX };
/* retransmission causes */
enum { CAUSE_NONE, CAUSE_NAK, CAUSE_TIMEOUT, CAUSE_RNR, CAUSE_IMPLIED };
/* NVMe role of a message/packet */
enum { NV_NONE, NV_CMD, NV_RSP, NV_RDATA, NV_WREQ, NV_WDATA };
/* content of a message's payload */
enum { C_ZERO, C_SQE, C_CQE };
/* CM attributes */
enum { CM_NONE, CM_REQ, CM_REP, CM_RTU };

/* packet flags */
#define PF_ACKREQ 0x01
#define PF_SE 0x02
#define PF_FECN 0x04
#define PF_BECN 0x08
#define PF_LAST 0x10  /* last packet of its message (or response job) */
#define PF_FIRST 0x20 /* first packet of its message */

/* events */
enum {
  EV_NIC,  /* arg = node: NIC may transmit */
  EV_OBS0, /* EV_OBS0 + k: packet passes its k-th observation point; arg = pkt
            */
  EV_DELIVER = EV_OBS0 + MAXLINKS, /* arg = pkt reaches the destination NIC */
  EV_RTO,                          /* arg = qp end: retransmission timer */
  EV_ACKT,                         /* arg = qp end: coalesced ACK timer */
  EV_RNR_DONE,                     /* arg = qp end: RNR wait over */
  EV_RR_READY, /* arg = qp end: a read-response job became ready */
  EV_CM_STEP,  /* arg = conn: next CM message */
  EV_CONN_UP,  /* arg = conn: connection usable (no CM on the wire) */
  EV_GPU,      /* arg = gpu host/conn: post the next messages */
  EV_NV_TGT, /* arg = io: target finished storage access (or admin processing)
              */
  EV_NV_ISSUE,   /* arg = nvme queue: host may issue commands */
  EV_NV_TIMEOUT, /* arg = io: host I/O timeout */
  EV__N
};
_Static_assert(EV__N <= 32, "event kinds must fit the heap key's 5 bits");

struct obscfg {
  char name[16];
  char
      kind; /* 'h' host port, 't' storage port, 'l' spine port facing a leaf */
  uint32_t index; /* host, target or leaf number */
  int64_t offset; /* clock offset, ns */
};

enum { LOSS_ANY, LOSS_BEFORE, LOSS_AFTER, LOSS_BETWEEN };
enum {
  LOSSON_ALL,
  LOSSON_DATA,
  LOSSON_LAST,
  LOSSON_RSP,
  LOSSON_CMD,
  LOSSON_NVDATA
};
enum { WL_NONE, WL_RING, WL_PAIRS };
enum {
  RO_WRITE,
  RO_WRITE_IMM,
  RO_READ,
  RO_SEND,
  RO_SEND_IMM,
  RO_SEND_MIX,
  RO_MIX
};

struct cfg {
  char scenario[32];
  uint64_t seed;
  const char *out;
  /* topology */
  uint32_t hosts, targets, per_leaf;
  uint64_t d_host, d_spine, jitter; /* ns */
  double gbps;
  /* observation */
  uint32_t nobs;
  struct obscfg obs[MAXOBS];
  uint64_t capture_start;
  uint32_t snaplen; /* 0 = whole frames */
  int trunc_mirror; /* 1: truncated copies are complete frames (orig_len = cap)
                     */
  double dup_rate;
  int erspan; /* 0, 2 or 3 */
  int ipv6;
  uint16_t vlan;      /* 0 = untagged */
  int pkt_truth;      /* per-packet records */
  int msg_truth;      /* per-message records */
  uint64_t flow_idle; /* 0 = one flow per key for the whole trace */
  /* transport */
  uint32_t pmtu, nic_burst;
  int psn_wrap;
  uint32_t ack_every;
  uint64_t ack_delay, rto, rnr_ns, cnp_interval, cm_delay;
  double loss, ecn, rnr_rate;
  int loss_where, loss_on, fecn, cm;
  /* GPU / RDMA workload */
  int workload;
  uint32_t gpu_hosts, qps, msg_size, iterations, msgs_per_qp, outstanding;
  int rdma_op;
  uint64_t gpu_gap;
  /* limits */
  uint64_t max_packets, duration;
  /* NVMe */
  uint32_t nvme_hosts, io_queues, qd, ios;
  uint32_t io_sizes[8], n_io_sizes;
  uint32_t read_pct, write_pct, flush_pct;
  uint32_t incapsule; /* max in-capsule write bytes, 0 = never */
  uint32_t inv_pct;   /* % of keyed SGLs with the invalidate subtype */
  uint32_t max_rreq;  /* max bytes per RDMA READ REQUEST for write data */
  double err_rate, stall_rate;
  uint64_t io_timeout;
  struct dist host_prep, storage_read, storage_write, target_proc;
  int skip_scenario; /* the command line's --scenario was applied already */
};

/* one directed link of the fabric */
struct link {
  uint64_t free;      /* serialisation: link busy until */
  uint64_t last_exit; /* FIFO: no overtaking */
  uint64_t prop;      /* base one-way delay, ns */
  double gbps;        /* line rate */
};

struct node {
  uint8_t ip[16];
  uint8_t mac[6];
  uint32_t leaf;
  /* NIC scheduler (endpoints only) */
  uint32_t nic_head, nic_tail; /* round-robin list of qp ends with work */
  uint64_t nic_busy;           /* transmitter busy until */
  uint8_t nic_sched;
  uint32_t qp1_psn;    /* UD QP1 PSN counter */
  uint32_t next_qpn;   /* QPN allocator */
  uint32_t gpu_recv;   /* ring: messages received */
  uint32_t gpu_posted; /* ring: steps posted */
  uint32_t gpu_up;     /* ring: outgoing connections up */
  uint8_t gpu_wait;    /* ring: a step is scheduled */
};

/* message (work request) on a requester */
struct msg {
  uint32_t id;   /* global message number (truth) */
  uint32_t next; /* next in the qp send queue / free list */
  uint32_t conn;
  uint32_t io;    /* NVMe I/O or NONE */
  uint32_t len;   /* bytes */
  uint32_t psn0;  /* first PSN */
  uint32_t npkts; /* PSNs consumed */
  uint32_t resp;  /* READ: response packets received in order */
  uint32_t rkey, imm;
  uint64_t va;
  uint64_t t_post, t_done;
  uint32_t refs;    /* packets in flight + response jobs */
  uint32_t retx[5]; /* retransmitted packets by cause (index CAUSE_*) */
  uint32_t losses;
  uint8_t dir;     /* sender side: 0 = A, 1 = B */
  uint8_t kind;    /* MK_* */
  uint8_t content; /* C_* */
  uint8_t nvme;    /* NV_* */
  uint8_t done;
  uint8_t app; /* application tag (gpu step etc.) */
};

/* a read-response job on a responder */
struct rrjob {
  uint32_t next;
  uint32_t msg;     /* the READ message (requester side) */
  uint32_t psn;     /* next response PSN */
  uint32_t psn0;    /* PSN of the (possibly re-issued) request */
  uint32_t npkts;   /* responses in this job */
  uint32_t sent;    /* responses sent */
  uint64_t t_ready; /* when the first response may be sent */
  uint32_t off0;    /* byte offset of psn0 in the READ message */
  uint8_t retx;     /* job answers a retransmitted request */
  uint8_t cause;
};

/* one end of an RC connection */
struct qp {
  uint32_t qpn;
  uint32_t node;
  /* requester */
  uint32_t post_psn;   /* PSN for the next posted message */
  uint32_t snd_nxt;    /* next PSN to transmit */
  uint32_t snd_max;    /* one past the highest PSN transmitted */
  uint32_t una;        /* oldest unacknowledged PSN */
  uint32_t ackd;       /* one past the highest PSN covered by an ACK/NAK */
  uint32_t rnr_psn;    /* restart PSN after an RNR wait */
  uint32_t head, tail; /* send queue (unfinished messages, oldest first) */
  uint32_t cur;        /* message being transmitted, NONE if none */
  uint32_t cur_off;    /* packet index in cur */
  uint32_t rd_gap; /* expected READ response PSN already re-requested (+1), 0 =
                      none */
  uint64_t
      progress; /* last time the oldest PSN advanced (or became outstanding) */
  uint32_t nic_next;
  uint8_t cause; /* cause for retransmissions after the last rewind */
  uint8_t in_nic, rto_armed, rnr_wait, ackt_armed, nak_state;
  uint8_t becn_pending;
  uint8_t rto_shift; /* exponential back-off of the transport timer */
  uint8_t ready;     /* connection established on this side */
  /* responder */
  uint32_t epsn; /* expected PSN */
  uint32_t msn;
  uint32_t ack_cnt; /* in-order packets since the last ACK */
  uint32_t rr_head, rr_tail;
  uint32_t rsp_max; /* one past the highest READ response PSN sent */
  uint8_t rsp_any;
  uint64_t last_cnp;
};

struct conn {
  uint32_t a, b; /* endpoint nodes: a = initiator (host), b = responder
                    (peer/target) */
  uint32_t app;  /* nvme queue index / gpu edge */
  uint32_t flow_base;
  uint64_t tid;
  uint32_t comm[2];
  uint16_t sport[2];
  uint32_t ipsn[2]; /* initial send PSN of each side */
  uint16_t qid, qsize;
  uint16_t svc_port; /* IP-CM service id port (4420 for NVMe/RDMA) */
  uint8_t kind;      /* CK_* */
  uint8_t cm;        /* CM exchange on the wire */
  uint8_t cm_step;
  uint8_t nlinks;
  uint8_t nobs;
  uint8_t obs_id[MAXLINKS];
  uint8_t obs_j[MAXLINKS]; /* node position on the a->b path */
  uint8_t up;
  uint32_t g_posted, g_done; /* pairs workload: messages posted / completed */
  uint64_t g_va;
  uint32_t g_rkey;
};
enum { CK_GPU, CK_NVME_ADMIN, CK_NVME_IO };

/* a packet in flight */
struct pkt {
  uint64_t t_send;
  uint64_t hop_t[MAXLINKS]; /* arrival time at the end of link k */
  uint64_t va;
  uint32_t conn, msg, io;
  uint32_t psn, len, off; /* payload bytes, byte offset in its message */
  uint32_t rkey, dmalen, msn, imm;
  uint32_t seq; /* global transmission number */
  uint32_t next_free;
  uint8_t dir, opcode, flags, syndrome;
  uint8_t what, why, cause, nvme;
  uint8_t nlinks, drop, ce, refs;
  uint8_t cm, content, pad_, kind;
};

/* NVMe-oF command (I/O) */
struct io {
  uint32_t id; /* global number (truth) */
  uint32_t conn;
  uint32_t next_free;
  uint32_t refs; /* messages and pending events */
  uint16_t cid, status, sqhd;
  uint8_t opc, fctype, kind, done;
  uint8_t incapsule, inv, stall, phase;
  uint8_t timed_out, cmd_retx, rsp_retx, sgl_null;
  uint8_t tgt_phase;
  uint32_t nsid, len, rreq_pending, tag;
  uint64_t slba, va;
  uint32_t rkey, cdw10, cdw11;
  uint64_t value; /* property set value / get result */
  /* modelled truth, true time */
  uint64_t t_cmd_send, t_cmd_arrive1, t_cmd_arrive, t_tgt_ready, t_q_send,
      t_q_arrive, t_p1_send, t_pn_arrive, t_rsp_send, t_rsp_arrive;
  uint64_t host_prep, storage;
  uint32_t cmd_links[MAXLINKS], rsp_links[MAXLINKS];
  uint8_t cmd_nl, rsp_nl;
};
enum {
  IOK_READ,
  IOK_WRITE,
  IOK_FLUSH,
  IOK_CONNECT,
  IOK_PROPGET,
  IOK_PROPSET,
  IOK_IDENTIFY
};

/* per-observation-point events of one I/O */
struct io_obs {
  uint64_t c, d1, dn, q, p1, pn,
      r; /* obs timestamps as written, 0 = not seen */
  uint16_t ccopies, rcopies;
};

/* per-message per-observation-point first/last data packet */
struct msg_obs {
  uint64_t first, last;
  uint32_t pkts;
};

/* per-flow accumulator at one observation point */
struct flowacc {
  uint64_t first, last, bytes, pkts, retx_pkts, retx_bytes;
  uint32_t hi_req, hi_rsp;
  uint32_t naks_seq, naks_rnr, naks_fatal, cnps, ce, fecn, becn, acks;
  uint32_t gaps, gap_pkts, loss_up, loss_down;
  uint32_t sent_retx, retx_cause[5], dups, seqno;
  uint8_t have_req, have_rsp, open;
};

/* NVMe queue (host side view of one queue pair) */
struct nvq {
  uint32_t conn;
  uint32_t host, target;
  uint16_t qid, sqsize;
  uint32_t qd, outstanding;
  uint64_t cid_used[2]; /* bitmap, up to 128 */
  uint32_t cqes;        /* completions (phase) */
  uint32_t sqhd;
  uint8_t state; /* 0 connecting, 1 fabric connect sent, 2 admin setup, 3
                    running */
  uint8_t admin_step;
  uint32_t assoc; /* index of the admin queue of this association */
  uint16_t cntlid;
};

struct sim {
  struct cfg c;
  struct rng rng;
  struct crc32_tab *crc;
  struct heap heap;
  uint64_t now;
  /* topology */
  uint32_t nend, nleaf, nnodes, spine;
  struct node *nodes;
  struct link *links;
  uint32_t nlinks_tot;
  /* connections */
  uint32_t nconn;
  struct conn *conns;
  struct qp *qps; /* 2 per conn */
  /* pools */
  struct pkt *pkts;
  uint32_t npkt_cap, pkt_free;
  struct msg *msgs;
  struct msg_obs *mobs;
  uint32_t nmsg_cap, msg_free;
  struct rrjob *rr;
  uint32_t nrr_cap, rr_free;
  struct io *ios;
  struct io_obs *iobs;
  uint32_t nio_cap, io_free;
  struct flowacc *flows;
  uint32_t nflows;
  struct nvq *nvqs;
  uint32_t nnvq;
  /* counters */
  uint64_t pkt_seq, msg_seq, io_seq, sent_pkts, data_pkts, lost_pkts,
      frames_total;
  uint64_t ios_issued, ios_done, msgs_done, dup_frames;
  uint64_t frames[MAXOBS], fseq_obs[MAXOBS];
  int stop_posting;
  /* outputs */
  struct obuf pcap[MAXOBS];
  struct obuf truth;
  uint8_t *fbuf; /* frame scratch */
  uint32_t erspan_seq[MAXOBS];
};

/* model_net.c */
int net_build(struct sim *s);
void net_conn_path(struct sim *s, struct conn *cn);
uint32_t net_path_nodes(const struct sim *s, uint32_t src, uint32_t dst,
                        uint32_t *nodes);
void net_send(struct sim *s, uint32_t pi); /* schedules obs/deliver events */
uint64_t net_ser_ns(const struct sim *s, uint32_t frame_bytes);
void net_link_name(const struct sim *s, uint32_t conn, uint8_t dir, unsigned k,
                   char *buf, size_t len);
const char *obs_kind_name(char kind);

/* model_rc.c */
uint32_t pkt_alloc(struct sim *s);
void pkt_release(struct sim *s, uint32_t pi);
uint32_t msg_alloc(struct sim *s);
void msg_unref(struct sim *s, uint32_t mi);
uint32_t rc_post(struct sim *s, uint32_t conn, unsigned dir, unsigned kind,
                 uint32_t len, uint64_t va, uint32_t rkey, uint32_t imm,
                 uint32_t io, unsigned content, unsigned nvme);
void rc_deliver(struct sim *s, uint32_t pi);
void rc_nic(struct sim *s, uint32_t node);
void rc_rto(struct sim *s, uint32_t e);
void rc_ackt(struct sim *s, uint32_t e);
void rc_rnr_done(struct sim *s, uint32_t e);
void rc_rr_ready(struct sim *s, uint32_t e);
void rc_send_ctrl(struct sim *s, uint32_t e, unsigned what, unsigned opcode,
                  uint32_t psn, uint8_t syndrome, uint32_t msn,
                  unsigned flags);
uint32_t rc_wire_len(const struct sim *s, const struct pkt *p);
uint32_t pmtu_pkts(const struct sim *s, uint32_t len);
void rc_conn_ready(struct sim *s, uint32_t conn);
void nic_kick(struct sim *s, uint32_t node);

/* model_cm.c */
void cm_start(struct sim *s, uint32_t conn, uint64_t at);
void cm_step(struct sim *s, uint32_t conn);
void cm_deliver(struct sim *s, const struct pkt *p);
void cm_mad(const struct sim *s, const struct pkt *p, uint8_t *mad);

/* model_gpu.c */
int gpu_setup(struct sim *s);
void gpu_conn_up(struct sim *s, uint32_t conn);
void gpu_on_deliver(struct sim *s, const struct msg *m);
void gpu_on_complete(struct sim *s, const struct msg *m);
void gpu_event(struct sim *s, uint32_t arg);

/* model_nvme.c */
int nvme_setup(struct sim *s);
void nvme_conn_up(struct sim *s, uint32_t conn);
void nvme_on_deliver(struct sim *s, uint32_t mi, unsigned side);
void nvme_on_complete(struct sim *s, uint32_t mi);
void nvme_on_rreq(struct sim *s, uint32_t io, struct rrjob *j);
void nvme_tgt_ready(struct sim *s, uint32_t io);
void nvme_issue(struct sim *s, uint32_t q);
void nvme_timeout(struct sim *s, uint32_t io);
void io_unref(struct sim *s, uint32_t ii);
size_t nvme_payload(const struct sim *s, const struct msg *m, uint32_t off,
                    uint32_t len, uint8_t *buf);
size_t nvme_sqe(const struct sim *s, const struct io *io, uint8_t *b);

/* truth.c */
int truth_open(struct sim *s);
void truth_obs(struct sim *s, uint32_t pi, unsigned k);
void truth_loss(struct sim *s, const struct pkt *p);
void truth_rewind(struct sim *s, uint32_t conn, unsigned dir, uint32_t psn,
                  unsigned cause);
void truth_msg(struct sim *s, uint32_t mi);
void truth_io(struct sim *s, uint32_t ii);
void truth_conn(struct sim *s, uint32_t conn);
void truth_finish(struct sim *s);
struct flowacc *flow_at(struct sim *s, uint32_t conn, unsigned dir,
                        unsigned k);

/* encode.c */
size_t encode_pkt(struct sim *s, const struct pkt *p, unsigned k, uint8_t *buf,
                  uint32_t *orig_len, uint32_t *frame_len);

/* scenario.c / config.c */
void cfg_defaults(struct cfg *c);
int scenario_apply(struct cfg *c, const char *name);
void scenario_list(void);
int cfg_parse(struct cfg *c, int argc, char **argv, int *list_only, char *err,
              size_t errlen);
int cfg_check(struct cfg *c, char *err, size_t errlen);

static inline uint32_t qp_idx(uint32_t conn, unsigned dir) {
  return conn * 2 + dir;
}
static inline void put16be(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
}
static inline void put24be(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 16);
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)v;
}
static inline void put32be(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}
static inline void put64be(uint8_t *p, uint64_t v) {
  put32be(p, (uint32_t)(v >> 32));
  put32be(p + 4, (uint32_t)v);
}
static inline void put16le(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}
static inline void put32le(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
}
static inline void put64le(uint8_t *p, uint64_t v) {
  put32le(p, (uint32_t)v);
  put32le(p + 4, (uint32_t)(v >> 32));
}

/* position of obs entry k of a connection on the path of direction dir:
 * node index j, and the index of the link the observed copy travels on */
static inline unsigned obs_pos(const struct conn *cn, unsigned dir, unsigned k,
                               unsigned *link) {
  unsigned j = cn->obs_j[k] & 0x7fu, before = (cn->obs_j[k] & 0x80u) != 0;
  if (dir) {
    j = cn->nlinks - j;
    before = !before;
  }
  if (link)
    *link = before ? j - 1 : j;
  return j;
}

void sim_schedule(struct sim *s, uint64_t t, uint32_t kind, uint32_t arg);
void die_nomem(void);

#endif
