#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""rtel-collect on every core: a benchmark, not a test (make bench-collect).

    collect-scale.py --build DIR [--qps N] [--runs N] [--jobs 1,2]

Makes a capture of 128-byte mirror copies with rtel-sim (rdma-flood: one
16 KiB RDMA WRITE on each of --qps QPs across 16 hosts; the spine-port
point l0: about 1M packets with the default 320000 QPs), then replays it
through `rtel-collect -r FILE --flows --json /dev/null` with 1 and 2
workers (--jobs), --runs times each, and prints per run: wall time,
packets per second, ns per packet, the reader thread's CPU time (read,
decode, shard: from rtel-collect's summary) and the workers' CPU time; then
the speed-up of each worker count against 1 worker (best runs). The bare
floor next to it: rtel-analyze --flows on the same file (one thread doing
everything, no rings). --max-flows is set so that no flow is evicted.
"""
import argparse
import os
import re
import struct
import subprocess
import sys
import tempfile
import time


def run(cmd):
    t = time.monotonic()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    wall = time.monotonic() - t
    if r.returncode != 0:
        sys.exit("%s: exit %d: %s" % (cmd[0], r.returncode, r.stderr))
    return wall, r.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--qps", type=int, default=320000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--jobs", default="1,2")
    a = ap.parse_args()
    sim = os.path.join(a.build, "examples", "rtel-sim", "rtel-sim")
    col = os.path.join(a.build, "examples", "rtel-collect")
    ana = os.path.join(a.build, "examples", "rtel-analyze")
    with tempfile.TemporaryDirectory(prefix="rtel-scale.") as tmp:
        subprocess.run([sim, "--scenario", "rdma-flood", "--seed", "7",
                        "--out", tmp, "--qps", str(a.qps), "--snaplen", "128",
                        "--trunc", "mirror"], check=True,
                       stdout=subprocess.DEVNULL)
        pcap = os.path.join(tmp, "l0.pcap")
        size = os.path.getsize(pcap)
        print("capture: %s, %.1f MB of 128-byte mirror copies (rdma-flood, "
              "--qps %d)" % (os.path.basename(pcap), size / 1e6, a.qps))
        # the first packet alone: what setting up costs (tables sized by
        # --max-flows), to set apart from the packet phase
        one = os.path.join(tmp, "one.pcap")
        with open(pcap, "rb") as f, open(one, "wb") as g:
            head = f.read(24)
            rec = f.read(16)
            g.write(head + rec + f.read(struct.unpack("<I", rec[8:12])[0]))
        flows = 2 * a.qps
        best = {}
        pkts = None
        for j in [int(x) for x in a.jobs.split(",")]:
            # each worker sees 1/j of the flows: the same memory in all
            per = str(flows // j)
            for i in range(a.runs):
                wall, err = run([col, "-j", str(j), "--max-flows", per,
                                 "--flows", "--json", "/dev/null", "-r",
                                 "l0=" + pcap])
                m = re.search(r"(\d+) packets in ([0-9.]+) s .*reader cpu "
                              r"([0-9.]+) s .*setup ([0-9.]+) s", err)
                if m is None:
                    sys.exit("rtel-collect: no summary line in: " + err)
                wcpu = sum(float(x) for x in re.findall(
                    r": worker \d+: .*\(([0-9.]+) s before the final flush",
                    err))
                pkts, phase = int(m.group(1)), float(m.group(2))
                rcpu, setup = float(m.group(3)), float(m.group(4))
                print("-j %d run %d: packet phase %.3f s, %.2f Mpps, %.0f "
                      "ns/pkt (process %.3f s, setup cpu %.3f s); reader cpu "
                      "%.0f ns/pkt, workers cpu %.0f ns/pkt" % (
                          j, i + 1, phase, pkts / phase / 1e6,
                          phase * 1e9 / pkts, wall, setup,
                          rcpu * 1e9 / pkts, wcpu * 1e9 / pkts))
                best[j] = min(best.get(j, phase), phase)
        aw = min(run([ana, "--flows", "--max-flows", str(flows), pcap])[0]
                 for _ in range(a.runs))
        a1 = min(run([ana, "--flows", "--max-flows", str(flows), one])[0]
                 for _ in range(a.runs))
        print("floor: rtel-analyze --flows (one thread): process %.3f s, of "
              "it %.3f s for one packet (setup): %.2f Mpps, %.0f ns/pkt" % (
                  aw, a1, pkts / (aw - a1) / 1e6, (aw - a1) * 1e9 / pkts))
        for j in sorted(best):
            print("-j %d: best packet phase %.3f s, %.2f Mpps, speed-up %.2fx "
                  "against -j 1" % (j, best[j], pkts / best[j] / 1e6,
                                    best[min(best)] / best[j]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
