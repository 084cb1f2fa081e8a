/* SPDX-License-Identifier: MIT */
/*
 * make bench: decode throughput on a realistic RoCEv2 mix.
 *
 * Builds an arena of packets in memory (its own byte builder, not the
 * library's), then times, in the same process and on the same packets:
 *   walk     touching each packet's header bytes (the floor: memory cost)
 *   touch    reading every byte the ICRC covers, 8 at a time (the floor
 *            of any ICRC here: the arena is larger than L2)
 *   decode   rtel_pkt_decode(), ICRC off
 *   ctx      rtel_ctx_read_pkt() (decode + counters), ICRC off
 *   icrc     rtel_pkt_decode() with ICRC verification (stateless: the
 *            CRC path the build takes without asking the CPU)
 *   icrc/P   the internal decoder with the CRC path P forced: tables,
 *            and the carry-less ones this CPU has (PCLMULQDQ and
 *            VPCLMULQDQ with AVX-512, or PMULL)
 *   ctx+icrc rtel_ctx_read_pkt() with ICRC verification (the path the
 *            context chose at creation)
 * and prints packets per second and ns per packet for each; for the ICRC
 * lines also the ICRC's own cost (ns over `decode`) and its rate in GB/s
 * of bytes covered by the ICRC (8 + IP header to ICRC, printed). Then the
 * ratios decode / walk and ctx / walk (walk being the floor), and the
 * allocator calls per packet of the timed loops (the contexts use the
 * counting allocator of bench_util.c; the program aborts if a timed loop
 * calls it).
 * Linked against the convenience library (lib/librocetel_core.la) for
 * the internal decoder entry.
 *
 * Usage: bench_decode [-L] [SECONDS_PER_CASE]  (default 1.0)
 *        bench_decode [-L] -n PASSES   exactly PASSES passes per case, for
 *        instruction counts under valgrind --tool=callgrind
 *   -L (first)  lazy tables, as bench_flow -L (default: every block the
 *               contexts allocate is written at allocation)
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rocetel/rocetel.h>

#include "bench_util.h"
#include "rtel_icrc.h"
#include "rtel_parse.h"

#define NPKT 8192
#define SLOT 1152

static uint8_t *arena;
static size_t lens[NPKT];
static const uint8_t *ptrs[NPKT];

static uint32_t rng = 12345;
static uint32_t rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return rng;
}

/* One RoCEv2 frame: Ethernet [VLAN] IPv4 UDP BTH ext payload ICRC(0). */
static size_t build(uint8_t *p, uint8_t opcode, size_t ext, size_t payload,
                    int vlan, uint8_t ecn) {
  size_t off = 0, ip, udp_len;
  memset(p, 0, SLOT);
  memcpy(p, "\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x00\x02", 12);
  off = 12;
  if (vlan) {
    put16(p + off, 0x8100);
    put16(p + off + 2, 100);
    off += 4;
  }
  put16(p + off, 0x0800);
  off += 2;
  ip = off;
  udp_len = 8 + 12 + ext + payload + 4;
  p[ip] = 0x45;
  p[ip + 1] = (uint8_t)(26 << 2 | ecn);
  put16(p + ip + 2, (unsigned)(20 + udp_len));
  p[ip + 8] = 64;
  p[ip + 9] = 17;
  put32(p + ip + 12, 0x0a000001u + (rnd() & 0xff));
  put32(p + ip + 16, 0x0a000101u + (rnd() & 0xff));
  off += 20;
  put16(p + off, 49152 + (rnd() & 0x3fff));
  put16(p + off + 2, 4791);
  put16(p + off + 4, (unsigned)udp_len);
  off += 8;
  p[off] = opcode;
  put16(p + off + 2, 0xffff);
  put32(p + off + 4, rnd() & 0xffffff);
  put32(p + off + 8, rnd() & 0xffffff);
  off += 12;
  if (ext >= 16) { /* RETH */
    put32(p + off, 0x7f00);
    put32(p + off + 4, rnd());
    put32(p + off + 8, rnd());
    put32(p + off + 12, 65536);
  } else if (ext == 4) {
    p[off] = 0x1f;
  }
  return off + ext + payload + 4;
}

static volatile uint64_t sink;
static long fixed_passes;

typedef uint64_t (*pass_fn)(void);

static uint64_t pass_walk(void) {
  uint64_t acc = 0;
  size_t i;
  for (i = 0; i < NPKT; i++) {
    const uint8_t *p = ptrs[i];
    /* read the same header bytes a decoder reads (to the end of the BTH) */
    acc += (uint64_t)p[12] + p[23] + p[36] + p[42] + p[47] + p[53] + lens[i];
  }
  return acc;
}

static size_t l3s[NPKT]; /* IP header offset of each packet */

static uint64_t pass_touch(void) {
  uint64_t acc = 0;
  size_t i, j;
  for (i = 0; i < NPKT; i++) {
    const uint8_t *p = ptrs[i] + l3s[i];
    size_t n = lens[i] - 4 - l3s[i];
    for (j = 0; j + 8 <= n; j += 8) {
      uint64_t w;
      memcpy(&w, p + j, 8);
      acc ^= w;
    }
  }
  return acc;
}

static rtel_decode_opts opts_plain, opts_icrc;
static rtel__decode_cfg cfg_path; /* ICRC on, crc_impl forced */
static double icrc_bytes;         /* bytes the ICRC covers, per pass */

static uint64_t pass_decode(void) {
  rtel_pkt_hd hd;
  uint64_t acc = 0;
  size_t i;
  for (i = 0; i < NPKT; i++) {
    if (rtel_pkt_decode(&hd, &opts_plain, ptrs[i], lens[i], 0) == 0) {
      acc += hd.psn + hd.payload_len;
    }
  }
  return acc;
}

static uint64_t pass_icrc(void) {
  rtel_pkt_hd hd;
  uint64_t acc = 0;
  size_t i;
  for (i = 0; i < NPKT; i++) {
    if (rtel_pkt_decode(&hd, &opts_icrc, ptrs[i], lens[i], 0) == 0) {
      acc += hd.icrc_status;
    }
  }
  return acc;
}

static uint64_t pass_icrc_path(void) {
  rtel_pkt_hd hd;
  uint64_t acc = 0;
  size_t i;
  for (i = 0; i < NPKT; i++) {
    if (rtel__decode(&hd, &cfg_path, ptrs[i], lens[i], lens[i]) == 0) {
      acc += hd.icrc_status;
    }
  }
  return acc;
}

static rtel_ctx *ctx, *ctx_icrc;
static rtel_tstamp ts;

static uint64_t pass_ctx(void) {
  rtel_pkt_info pi;
  size_t i;
  memset(&pi, 0, sizeof(pi));
  for (i = 0; i < NPKT; i++) {
    pi.ts = ts += 100;
    if (rtel_ctx_read_pkt(ctx, &pi, ptrs[i], lens[i]) != 0) {
      abort();
    }
  }
  return 0;
}

static uint64_t pass_ctx_icrc(void) {
  rtel_pkt_info pi;
  size_t i;
  memset(&pi, 0, sizeof(pi));
  for (i = 0; i < NPKT; i++) {
    pi.ts = ts += 100;
    if (rtel_ctx_read_pkt(ctx_icrc, &pi, ptrs[i], lens[i]) != 0) {
      abort();
    }
  }
  return 0;
}

/* |note_| for an ICRC line: its cost over `decode` and the rate. */
static const char *icrc_note(double ns, double decode_ns) {
  static char buf[96];
  double per = ns - decode_ns;
  snprintf(buf, sizeof(buf), "ICRC %.2f ns/pkt over decode: %.2f GB/s", per,
           per > 0 ? icrc_bytes / NPKT / per : 0.0);
  return buf;
}

static double run_note(const char *name, pass_fn fn, double secs, double base,
                       double decode_ns) {
  double t0, t1, ns;
  uint64_t n = 0;
  bench_timer tm; /* for the allocator check; the figure is wall time */
  fn();           /* warm up */
  bench_timer_start(&tm);
  t0 = bench_wall_s();
  do {
    sink += fn();
    n += NPKT;
    t1 = bench_wall_s();
  } while (fixed_passes ? (long)(n / NPKT) < fixed_passes : t1 - t0 < secs);
  bench_timer_stop(&tm, n);
  ns = (t1 - t0) * 1e9 / (double)n;
  bench_print_rate(12, name, ns, 0, base, "walk",
                   decode_ns > 0 ? icrc_note(ns, decode_ns) : NULL);
  return ns;
}

static double run(const char *name, pass_fn fn, double secs, double base) {
  return run_note(name, fn, secs, base, 0);
}

static const char *const path_names[RTEL__CRC_N] = {
    "tables", "pclmulqdq", "pmull", "vpclmulqdq512", "vpclmulqdq256"};

/* Every packet's ICRC is the same through every path the CPU has. */
static int same_icrc(void) {
  size_t i;
  unsigned impl;
  for (i = 0; i < NPKT; i++) {
    rtel_pkt_hd hd;
    uint32_t want = 0;
    for (impl = 0; impl < RTEL__CRC_N; impl++) {
      if (!rtel__crc32_supported(impl)) {
        continue;
      }
      cfg_path.crc_impl = impl;
      if (rtel__decode(&hd, &cfg_path, ptrs[i], lens[i], lens[i]) != 0) {
        return 0;
      }
      if (impl == RTEL__CRC_TABLE) {
        want = hd.icrc_calc;
        l3s[i] = hd.l3_off;
        icrc_bytes += 8.0 + (double)(lens[i] - 4 - hd.l3_off);
      } else if (hd.icrc_calc != want) {
        return 0;
      }
    }
  }
  return 1;
}

int main(int argc, char **argv) {
  double secs = 1.0;
  double base, dec = 0, ctx_ns = 0;
  bench_alloc_log lg;
  size_t i;
  rtel_ctx_stats st;

  bench_prog = "bench_decode";
  if (argc > 1 && strcmp(argv[1], "-L") == 0) {
    bench_cnt.lazy = 1; /* (bench_flow -L) */
    argc--;
    argv++;
  }
  if (argc > 2 && strcmp(argv[1], "-n") == 0) {
    fixed_passes = atol(argv[2]);
  } else if (argc > 1) {
    secs = atof(argv[1]);
  }
  arena = malloc((size_t)NPKT * SLOT);
  if (arena == NULL) {
    return 1;
  }
  for (i = 0; i < NPKT; i++) {
    uint8_t *p = arena + i * SLOT;
    uint32_t r = rnd() % 100;
    int vlan = (rnd() % 100) < 10;
    uint8_t ecn = (rnd() % 100) < 2 ? 3 : 2;
    if (r < 55) {
      lens[i] = build(p, 0x07, 0, 1024, vlan, ecn); /* WRITE MIDDLE */
    } else if (r < 63) {
      lens[i] = build(p, 0x06, 16, 1024, vlan, ecn); /* WRITE FIRST */
    } else if (r < 71) {
      lens[i] = build(p, 0x08, 0, 512, vlan, ecn); /* WRITE LAST */
    } else if (r < 86) {
      lens[i] = build(p, 0x11, 4, 0, vlan, ecn); /* ACK */
    } else if (r < 89) {
      lens[i] = build(p, 0x0c, 16, 0, vlan, ecn); /* READ REQUEST */
    } else if (r < 94) {
      lens[i] = build(p, 0x0e, 0, 1024, vlan, ecn); /* READ RESP MIDDLE */
    } else if (r < 98) {
      lens[i] = build(p, 0x04, 0, 64, vlan, ecn); /* SEND ONLY (capsule) */
    } else {
      lens[i] = build(p, 0x81, 0, 16, vlan, ecn); /* CNP */
    }
    ptrs[i] = p;
  }
  memset(&opts_plain, 0, sizeof(opts_plain));
  opts_icrc = opts_plain;
  opts_icrc.flags = RTEL_DECODE_VERIFY_ICRC;
  {
    /* decode + counters: the flow table and the NVMe-oF correlator have
     * their own benchmarks (bench_flow, bench_nvme) */
    rtel_settings s;
    rtel_settings_default(&s);
    s.flow_flags = RTEL_FLOW_DISABLE;
    s.nvme_flags = RTEL_NVME_DISABLE;
    if (bench_ctx_new(&ctx, &s, &lg) != 0) {
      return 1;
    }
  }
  printf("librocetel %s decode benchmark: %d packets in memory "
         "(55%% WRITE MIDDLE, 8%% FIRST, 8%% LAST, 15%% ACK, 3%% READ REQ, "
         "5%% READ RESP, 4%% SEND, 2%% CNP; 10%% VLAN)%s\n",
         rtel_version(0)->version_str, NPKT, bench_alloc_desc());
  {
    rtel_settings s;
    rtel_settings_default(&s);
    s.flow_flags = RTEL_FLOW_DISABLE;
    s.nvme_flags = RTEL_NVME_DISABLE;
    s.decode_flags = RTEL_DECODE_VERIFY_ICRC;
    if (bench_ctx_new(&ctx_icrc, &s, &lg) != 0) {
      return 1;
    }
  }
  if (rtel__decode_cfg_init(&cfg_path, RTEL_DECODE_VERIFY_ICRC, 0, 0, 0) !=
          0 ||
      !same_icrc()) {
    fprintf(stderr, "unexpected: the CRC paths disagree on a packet\n");
    return 1;
  }
  printf("the ICRC covers %.0f bytes per packet on average (8 + IP header "
         "to ICRC); CRC paths on this CPU:",
         icrc_bytes / NPKT);
  {
    unsigned impl;
    for (impl = 0; impl < RTEL__CRC_N; impl++) {
      if (rtel__crc32_supported(impl)) {
        printf(" %s", path_names[impl]);
      }
    }
    putchar('\n');
  }
  {
    char name[32];
    unsigned impl;
    base = run("walk", pass_walk, secs, 0);
    run("touch", pass_touch, secs, base);
    dec = run("decode", pass_decode, secs, base);
    ctx_ns = run("ctx", pass_ctx, secs, base);
    snprintf(name, sizeof(name), "icrc (%s)", path_names[RTEL__CRC_BUILD]);
    run_note(name, pass_icrc, secs, base, dec);
    for (impl = 0; impl < RTEL__CRC_N; impl++) {
      if (rtel__crc32_supported(impl)) {
        cfg_path.crc_impl = impl;
        snprintf(name, sizeof(name), "icrc/%s", path_names[impl]);
        run_note(name, pass_icrc_path, secs, base, dec);
      }
    }
    snprintf(name, sizeof(name), "ctx+icrc (%s)",
             path_names[rtel__crc32_best()]);
    run_note(name, pass_ctx_icrc, secs, base, dec);
  }
  printf("ratio     decode / walk %.2f, ctx / walk %.2f   (walk: the floor, "
         "a bare read of the header bytes)\n",
         dec / base, ctx_ns / base);
  bench_print_allocs();
  if (rtel_ctx_get_stats(ctx, &st) != 0 || st.pkts_roce != st.pkts) {
    fprintf(stderr, "unexpected: %llu of %llu packets decoded as RoCE\n",
            (unsigned long long)st.pkts_roce, (unsigned long long)st.pkts);
    return 1;
  }
  rtel_ctx_del(ctx);
  rtel_ctx_del(ctx_icrc);
  free(arena);
  return 0;
}
