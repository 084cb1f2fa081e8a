#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The flows of real captures, as a reader of the capture in Wireshark
would count them.

For each capture in ../shared/captures (next to the source tree; skipped
when absent) tshark lists every RoCE data packet (SEND, RDMA WRITE, RDMA
READ RESPONSE of RC/UC/XRC). Grouped by (source, destination, destination
QP, read response or not), with an idle timeout longer than the capture,
they are the flows rtel-analyze --flows must report: the same set of
flows, each with the same packet count and payload bytes (tshark's
data.len minus the pad), first and last timestamps.

Usage: flows-tshark.py [PCAP...]   (env: RTEL_ANALYZE, TSHARK, top_srcdir)
"""
import glob
import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import rtel_records  # noqa: E402 (tests/rtel_records.py)

DATA = set(range(0x00, 0x0C)) | {0x16, 0x17}          # SEND, WRITE (RC)
RESP = {0x0D, 0x0E, 0x0F, 0x10}                       # READ RESPONSE (RC)
DATA |= {0x20 + x for x in range(0x0C)}               # UC
DATA |= {0xA0 + x for x in range(0x0C)} | {0xB6, 0xB7}  # XRC
RESP |= {0xAD, 0xAE, 0xAF, 0xB0}


def ns_of_epoch(s):
    sec, _, frac = s.partition(".")
    return int(sec) * 1000000000 + int((frac + "000000000")[:9])


def tshark_flows(tshark, pcap):
    # the UDP dissector tries the lower port first: decode every source
    # port below 4791 that carries RoCE as InfiniBand
    ports = subprocess.run(
        [tshark, "-r", pcap, "-Y", "udp.dstport == 4791", "-T", "fields",
         "-e", "udp.srcport"], check=True, capture_output=True,
        text=True).stdout.split()
    args = []
    for p in sorted(set(ports)):
        if int(p) < 4791:
            args += ["-d", "udp.port==%s,infiniband" % p]
    out = subprocess.run(
        [tshark, "-r", pcap, "--disable-protocol", "rpcordma"] + args +
        ["-Y", "infiniband.bth.opcode", "-T", "fields", "-E", "occurrence=f",
         "-e", "frame.time_epoch", "-e", "ip.src", "-e", "ip.dst",
         "-e", "infiniband.bth.opcode", "-e", "infiniband.bth.destqp",
         "-e", "infiniband.bth.padcnt", "-e", "data.len"],
        check=True, capture_output=True, text=True).stdout
    flows = {}
    for line in out.splitlines():
        ts, src, dst, op, qp, pad, dlen = line.split("\t")
        op = int(op)
        if op not in DATA and op not in RESP:
            continue
        key = (src, dst, int(qp, 16), op in RESP)
        f = flows.setdefault(key, {"packets": 0, "bytes": 0,
                                   "first": None, "last": None})
        t = ns_of_epoch(ts)
        f["packets"] += 1
        f["bytes"] += (int(dlen) if dlen else 0) - int(pad)
        f["first"] = t if f["first"] is None else min(f["first"], t)
        f["last"] = t if f["last"] is None else max(f["last"], t)
    return flows


def analyzer_flows(analyzer, pcap):
    out = subprocess.run([analyzer, "--flows", "--format", "json",
                          "--flow-idle", "3600000000000", pcap],
                         check=True, capture_output=True, text=True).stdout
    flows = {}
    for line in out.splitlines():
        r = rtel_records.loads(line)
        if r.get("type") != "flow":
            continue
        key = (r["src"], r["dst"], r["dqpn"], r["op"] == "read_resp")
        if key in flows:
            flows[key]["dup"] = True
        flows[key] = {"packets": r["packets"], "bytes": r["bytes"],
                      "first": r["first_ts_ns"], "last": r["last_ts_ns"]}
    return flows


def main():
    tshark = os.environ.get("TSHARK") or shutil.which("tshark")
    analyzer = os.environ.get("RTEL_ANALYZE")
    if not tshark or not analyzer or not os.access(analyzer, os.X_OK):
        print("SKIP: tshark or rtel-analyze missing")
        return 77
    pcaps = sys.argv[1:]
    if not pcaps:
        top = os.environ.get("top_srcdir", ".")
        pcaps = sorted(glob.glob(os.path.join(top, "..", "shared", "captures",
                                              "*.pcap")))
        if not pcaps:
            print("SKIP: no ../shared/captures")
            return 77
    passed = failed = 0
    for pcap in pcaps:
        want = tshark_flows(tshark, pcap)
        got = analyzer_flows(analyzer, pcap)
        name = os.path.basename(pcap)
        for key in sorted(set(want) | set(got), key=str):
            if key not in got:
                print("FAIL %s: flow %s missing" % (name, key))
                failed += 1
            elif key not in want:
                print("FAIL %s: flow %s not in the capture" % (name, key))
                failed += 1
            elif got[key] != want[key]:
                print("FAIL %s: flow %s: analyzer %s, tshark %s"
                      % (name, key, got[key], want[key]))
                failed += 1
            else:
                passed += 1
        print("%s: %d flows" % (name, len(want)))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
