#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Differential test of NVMe-oF command latencies against Wireshark.

For captures with the RDMA CM handshake (tshark needs it to see NVMe-oF),
tshark -2 links every completion to its command and prints
nvme.cmd_latency (or nvme.fabrics.cmd_latency) in milliseconds on the CQE
frame. rtel-analyze --ios prints iol_ns and t_rsp_ns for the same I/O.
Every completion tshark reports must match one complete I/O record with
the same CID and response time, and round(latency * 1e6) == iol_ns.

Captures: made by rtel-sim (NVMe-oF scenarios, one pcap per observation
point), or given on the command line.

Usage: nvme-latency.py [PCAP...]   (env: RTEL_ANALYZE, RTEL_SIM, TSHARK)
Exit: 0 pass, 1 mismatch, 77 skip (tshark, simulator or analyzer missing).
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import rtel_records  # noqa: E402 (tests/rtel_records.py)

SCENARIOS = ["nvme-read", "nvme-write", "nvme-incapsule", "nvme-mixed"]


def ns_of_epoch(s):
    sec, _, frac = s.partition(".")
    return int(sec) * 1000000000 + int((frac + "000000000")[:9])


def tshark_cqes(tshark, pcap):
    out = subprocess.run(
        [tshark, "-2", "-r", pcap, "-Y", "nvme.cqe.cid", "-T", "fields",
         "-E", "occurrence=f", "-e", "frame.number", "-e", "frame.time_epoch",
         "-e", "nvme.cqe.cid", "-e", "nvme.cmd_latency",
         "-e", "nvme.fabrics.cmd_latency"],
        check=True, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        f = line.split("\t")
        lat = f[3] or f[4]
        if not lat:
            continue  # tshark found no command for it
        rows.append((int(f[0]), ns_of_epoch(f[1]), int(f[2], 16), float(lat)))
    return rows


def analyzer_ios(analyzer, pcap):
    out = subprocess.run([analyzer, "--ios", "--format", "json", pcap],
                         check=True, capture_output=True, text=True).stdout
    ios = {}
    for line in out.splitlines():
        r = rtel_records.loads(line)
        if r.get("type") == "io" and r["state"] == "complete":
            ios.setdefault((r["cid"], r["t_rsp_ns"]), []).append(r)
    return ios


def main():
    tshark = os.environ.get("TSHARK") or shutil.which("tshark")
    analyzer = os.environ.get("RTEL_ANALYZE")
    sim = os.environ.get("RTEL_SIM")
    if not tshark or not analyzer or not os.access(analyzer, os.X_OK):
        print("SKIP: tshark or rtel-analyze missing")
        return 77
    pcaps = sys.argv[1:]
    tmp = None
    if not pcaps:
        if not sim or not os.access(sim, os.X_OK):
            print("SKIP: rtel-sim missing")
            return 77
        tmp = tempfile.mkdtemp(prefix="nvme-lat-")
        listing = subprocess.run([sim, "--list-scenarios"], capture_output=True,
                                 text=True).stdout
        for sc in SCENARIOS:
            if sc not in listing:
                continue
            d = os.path.join(tmp, sc)
            subprocess.run([sim, "--scenario", sc, "--seed", "7", "--out", d],
                           check=True, capture_output=True)
            pcaps += sorted(os.path.join(d, f) for f in os.listdir(d)
                            if f.endswith(".pcap"))
    passed = failed = 0
    for pcap in pcaps:
        cqes = tshark_cqes(tshark, pcap)
        ios = analyzer_ios(analyzer, pcap)
        if not cqes:
            print("FAIL %s: tshark decoded no NVMe-oF completion" % pcap)
            failed += 1
            continue
        for frame, t_rsp, cid, lat_ms in cqes:
            want = round(lat_ms * 1e6)
            got = ios.get((cid, t_rsp), [])
            if len(got) != 1:
                print("FAIL %s frame %d: CID %d at %d: %d analyzer records"
                      % (pcap, frame, cid, t_rsp, len(got)))
                failed += 1
            elif got[0]["iol_ns"] != want:
                print("FAIL %s frame %d: CID %d: tshark %.6f ms, iol_ns %d"
                      % (pcap, frame, cid, lat_ms, got[0]["iol_ns"]))
                failed += 1
            else:
                passed += 1
        print("%s: %d completions compared" % (os.path.basename(pcap), len(cqes)))
    if tmp:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
