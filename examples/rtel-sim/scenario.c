/* scenario.c - named scenarios
 *
 * A scenario is a named option string, parsed by the same code as the
 * command line (options given on the command line are applied after it and
 * override it).  Each one is exact and deterministic for a given seed.
 */
#include <stdio.h>
#include <string.h>

#include "sim.h"

struct scenario {
  const char *name;
  const char *what;
  const char *opts;
};

#define NVME1                                                                 \
  "--hosts 2 --targets 1 --hosts-per-leaf 2 --nvme-hosts 1 --io-queues 2 "    \
  "--obs h0,t0 "
#define PAIR2                                                                 \
  "--hosts 2 --hosts-per-leaf 1 --workload pairs --gpu-hosts 2 --obs h0,h1 "

static const struct scenario scenarios[] = {
    /* ---- GPU / RDMA throughput */
    {"rdma-clean",
     "ring all-reduce RDMA WRITEs between 4 GPU hosts on 2 leaves, no loss; "
     "obs h0, h2 and the spine port facing leaf 1",
     "--hosts 4 --hosts-per-leaf 2 --workload ring --gpu-hosts 4 --qps 2 "
     "--msg-size 262144 --iterations 2 "
     "--obs h0,h2,l1"},
    {"rdma-loss-before",
     "RDMA WRITE flows with 0.2% loss upstream of every observation point "
     "(the observers see PSN gaps)",
     PAIR2 "--qps 4 --msgs-per-qp 8 --outstanding 2 --msg-size 262144 --loss "
           "0.002 --loss-where before"},
    {"rdma-loss-after",
     "RDMA WRITE flows with 0.2% loss downstream of every observation point "
     "(the observers see the originals)",
     PAIR2 "--qps 4 --msgs-per-qp 8 --outstanding 2 --msg-size 262144 --loss "
           "0.002 --loss-where after"},
    {"rdma-loss-between",
     "loss between the sender-side and the receiver-side observation points",
     PAIR2 "--qps 4 --msgs-per-qp 8 --outstanding 2 --msg-size 262144 --loss "
           "0.002 --loss-where between"},
    {"rdma-rnr",
     "SEND (with and without immediate) flows where 5% of new messages are "
     "refused with an RNR NAK",
     PAIR2 "--qps 4 --msgs-per-qp 24 --msg-size 16384 --rdma-op send-mix "
           "--rnr 0.05 --rnr-delay 20us"},
    {"rdma-timeout",
     "losses of the last packet of messages only: no NAK can follow, recovery "
     "by retransmission timeout",
     PAIR2 "--qps 4 --msgs-per-qp 16 --msg-size 65536 --loss 0.05 --loss-on "
           "last --rto 100us"},
    {"rdma-psn-wrap",
     "initial PSNs just below 2^24 so that every QP wraps its 24-bit PSN; a "
     "little loss around the wrap",
     PAIR2 "--qps 2 --msgs-per-qp 8 --msg-size 1048576 --pmtu 1024 --psn-wrap "
           "--loss 0.0005"},
    {"rdma-ecn",
     "5% of data packets CE-marked at a switch (FECN too), CNPs back to the "
     "senders, BECN on ACKs",
     PAIR2 "--qps 4 --msgs-per-qp 8 --msg-size 262144 --ecn 0.05 --fecn"},
    {"rdma-no-cm",
     "RDMA WRITE flows whose connections were set up out of band: no CM MADs "
     "in the capture",
     PAIR2 "--qps 4 --msgs-per-qp 8 --msg-size 131072 --no-cm --loss 0.001"},
    {"rdma-many-qps",
     "64 QPs between the same two hosts, interleaved by the NIC scheduler",
     PAIR2 "--qps 64 --msgs-per-qp 4 --msg-size 65536"},
    {"rdma-truncated",
     "mirror copies truncated to 128 bytes (orig_len = captured length), 1% "
     "duplicated copies, a little loss",
     PAIR2 "--qps 4 --msgs-per-qp 8 --msg-size 262144 --snaplen 128 --trunc "
           "mirror --dup-rate 0.01 --loss 0.001"},
    {"rdma-flood",
     "a flood of 20000 QPs across 16 hosts on 4 leaves, one 16 KiB message "
     "each; obs at h0 and the spine port facing leaf 0",
     "--hosts 16 --hosts-per-leaf 4 --workload pairs --gpu-hosts 16 --qps "
     "20000 --msgs-per-qp 1 --outstanding 1 "
     "--msg-size 16384 --obs h0,l0 --no-packet-truth"},
    {"rdma-read",
     "RDMA READ flows (responses are the data), with loss of responses and "
     "requests",
     PAIR2
     "--qps 4 --msgs-per-qp 8 --msg-size 131072 --rdma-op read --loss 0.002"},
    {"rdma-ops-mix",
     "WRITE, WRITE with immediate, READ, SEND and SEND with immediate mixed "
     "on each QP",
     PAIR2
     "--qps 4 --msgs-per-qp 16 --msg-size 32768 --rdma-op mix --loss 0.001"},
    {"rdma-erspan2",
     "the mixed-ops flows mirrored in ERSPAN type II over GRE, truncated to "
     "160 bytes by the mirror",
     PAIR2 "--qps 2 --msgs-per-qp 8 --msg-size 32768 --rdma-op mix --erspan 2 "
           "--snaplen 160 --trunc mirror"},
    {"rdma-erspan3",
     "the mixed-ops flows mirrored in ERSPAN type III over GRE, whole frames",
     PAIR2
     "--qps 2 --msgs-per-qp 8 --msg-size 32768 --rdma-op mix --erspan 3"},
    {"rdma-ipv6-vlan", "RDMA flows over IPv6 with an 802.1Q tag (VLAN 100)",
     PAIR2 "--qps 2 --msgs-per-qp 8 --msg-size 65536 --rdma-op mix --ipv6 "
           "--vlan 100 --loss 0.001"},
    /* ---- NVMe-oF */
    {"nvme-read",
     "NVMe-oF reads of 4-128 KiB, queue depth 4 on 2 I/O queues; obs at the "
     "host port (h0) and the storage port (t0)",
     NVME1 "--qd 4 --ios 200 --mix 100,0,0"},
    {"nvme-write",
     "NVMe-oF writes with keyed SGLs (target RDMA READs the data, several "
     "READ requests above 64 KiB)",
     NVME1 "--qd 4 --ios 200 --mix 0,100,0 --max-rreq 65536"},
    {"nvme-incapsule",
     "writes of 512 B-8 KiB carried in the command capsule (SEND ONLY, or "
     "SEND FIRST..LAST above the PMTU)",
     NVME1 "--qd 4 --ios 200 --mix 0,100,0 --incapsule 8192 --io-size "
           "512,1024,2048,4096,8192"},
    {"nvme-flush", "reads, writes and flushes",
     NVME1 "--qd 4 --ios 200 --mix 40,40,20"},
    {"nvme-qd32", "queue depth 32 with CID reuse on 2 I/O queues",
     NVME1 "--qd 32 --ios 2000 --mix 70,30,0"},
    {"nvme-send-inv",
     "every keyed SGL asks for remote invalidation; responses are SEND with "
     "Invalidate",
     NVME1 "--qd 4 --ios 200 --mix 50,50,0 --inv-pct 100"},
    {"nvme-errors",
     "10% of commands fail with an NVMe error status (no data transferred)",
     NVME1 "--qd 4 --ios 200 --mix 50,40,10 --nvme-errors 0.1"},
    {"nvme-multipacket",
     "PMTU 1024: multi-packet data (up to 128 KiB) and multi-packet "
     "in-capsule writes (SEND FIRST..LAST)",
     NVME1 "--qd 4 --ios 200 --mix 50,50,0 --pmtu 1024 --incapsule 8192 "
           "--io-size 4096,8192,65536,131072"},
    {"nvme-retx",
     "1% loss of data packets (RDMA WRITE read data, READ RESPONSE write "
     "data): retransmitted data",
     NVME1 "--qd 8 --ios 300 --mix 50,50,0 --loss 0.01 --loss-on nvdata"},
    {"nvme-lost-rsp",
     "5% of response capsules lost (queue depth 1: no later packet, so "
     "transport timeouts) and 2% of commands never answered (I/O timeouts)",
     NVME1 "--qd 1 --ios 200 --mix 50,50,0 --loss 0.05 --loss-on rsp --rto "
           "200us --stall 0.02 --io-timeout 2ms"},
    {"nvme-midstream",
     "capture starts 400 us in, after connection set-up and during I/O: no "
     "CM, orphan responses",
     NVME1 "--qd 8 --ios 300 --mix 60,40,0 --capture-start 400us"},
    {"nvme-midstream-rreq",
     "capture starts 400 us in while READ REQUESTs of writes commanded before "
     "it are outstanding or still to come; target processing of 1-50 us "
     "interleaves them with those of captured commands (4 KiB: one READ "
     "RESPONSE, 16 KiB: four)",
     NVME1 "--qd 32 --ios 600 --mix 50,50,0 --io-size 4096,16384 "
           "--target-proc uniform:1us:50us --capture-start 400us"},
    {"nvme-two-obs",
     "compute-side (h0) and storage-side (t0) points with different, "
     "unsynchronised clocks",
     "--hosts 2 --targets 1 --hosts-per-leaf 2 --nvme-hosts 1 --io-queues 2 "
     "--obs h0@-1234567ns,t0@+7654321ns "
     "--qd 8 --ios 300 --mix 50,40,10"},
    /* ---- combined */
    {"mixed",
     "default: GPU ring all-reduce on 4 hosts plus NVMe-oF from 2 hosts to 2 "
     "targets; 0.05% loss, 1% ECN; obs h0, t0 and the spine port facing leaf "
     "0",
     "--hosts 4 --hosts-per-leaf 2 --targets 2 --workload ring --gpu-hosts 4 "
     "--qps 2 --msg-size 262144 "
     "--iterations 2 --nvme-hosts 2 --io-queues 2 --qd 8 --ios 400 --mix "
     "60,35,5 --loss 0.0005 --ecn 0.01 "
     "--obs h0,t0,l0"},
    {"sample",
     "a small demo capture (one point, h0, under 200 KB): NVMe-oF reads, "
     "writes and a flush plus two RDMA WRITE flows",
     "--hosts 2 --hosts-per-leaf 2 --targets 1 --workload pairs --gpu-hosts 2 "
     "--qps 2 --msgs-per-qp 2 "
     "--msg-size 16384 --nvme-hosts 1 --io-queues 1 --qd 2 --ios 12 --mix "
     "50,40,10 --io-size 4096,8192 "
     "--pmtu 1024 --obs h0"},
};

#define NSCEN (sizeof scenarios / sizeof scenarios[0])

int scenario_apply(struct cfg *c, const char *name) {
  for (size_t i = 0; i < NSCEN; i++) {
    if (strcmp(scenarios[i].name, name) != 0)
      continue;
    char buf[1024];
    char *argv[128];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", scenarios[i].opts);
    for (char *t = buf; *t && argc < 127;) {
      argv[argc++] = t;
      while (*t && *t != ' ')
        t++;
      while (*t == ' ')
        *t++ = 0;
    }
    argv[argc] = NULL;
    int list = 0;
    char err[256];
    snprintf(c->scenario, sizeof c->scenario, "%s", name);
    return cfg_parse(c, argc, argv, &list, err, sizeof err);
  }
  return -1;
}

void scenario_list(void) {
  for (size_t i = 0; i < NSCEN; i++)
    printf("%-20s %s\n%-20s   options: %s\n", scenarios[i].name,
           scenarios[i].what, "", scenarios[i].opts);
}
