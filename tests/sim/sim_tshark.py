#!/usr/bin/python3
"""tshark (4.0) as an oracle for rtel-sim's output.

Every generated frame must decode as InfiniBand (RRoCE) with no malformed
frame and no expert error, with the BTH opcode, PSN and destination QP of its
ground-truth record.  On NVMe-oF scenarios whose capture holds the RDMA CM
exchange, `tshark -2` must decode the commands, and its nvme.cmd_latency (or
nvme.fabrics.cmd_latency) on each CQE must equal the ground truth R - C of
that observation point (ms, within 1 ns); every I/O that tshark can match
(single-packet capsule seen once, CQE seen once) must be matched.
Exit 77 (skip) without tshark.
"""
import collections
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from simcheck import SKIP, Fail, check, load_truth, main_wrapper, read_pcap, run_sim, tmpdir

# (scenario, extra options, NVMe latency check)
SCENARIOS = [
    ("sample", [], True), ("mixed", ["--ios", "120"], True), ("rdma-ops-mix", [], False),
    ("rdma-rnr", ["--msgs-per-qp", "8"], False), ("rdma-ecn", ["--msgs-per-qp", "2"], False),
    ("rdma-read", ["--msgs-per-qp", "2"], False), ("rdma-erspan3", [], False),
    ("rdma-ipv6-vlan", [], False), ("rdma-psn-wrap", ["--msgs-per-qp", "1", "--msg-size", "65536"], False),
    ("rdma-no-cm", ["--msgs-per-qp", "2"], False), ("rdma-truncated", ["--msgs-per-qp", "2"], False),
    ("rdma-erspan2", [], False),
    ("nvme-read", ["--ios", "100"], True), ("nvme-write", ["--ios", "100"], True),
    ("nvme-incapsule", ["--ios", "100"], True), ("nvme-flush", ["--ios", "100"], True),
    ("nvme-qd32", ["--ios", "300"], True), ("nvme-send-inv", ["--ios", "100"], True),
    ("nvme-errors", ["--ios", "100"], True), ("nvme-multipacket", ["--ios", "60"], True),
    ("nvme-retx", ["--ios", "150"], True), ("nvme-lost-rsp", ["--ios", "100"], True),
    ("nvme-two-obs", ["--ios", "150"], True), ("nvme-midstream", ["--ios", "150"], False),
]

TSHARK = [os.environ.get("TSHARK") or "tshark", "-n", "--disable-protocol", "rpcordma"]
ERROR = 8388608  # PI_ERROR


def tshark(args):
    r = subprocess.run(TSHARK + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if r.returncode != 0:
        raise Fail("tshark %s: %s" % (" ".join(args), r.stderr.strip()[-300:]))
    return [l.split("\t") for l in r.stdout.splitlines()]


def check_decode(name, path, obs, recs, meta):
    rows = tshark(["-r", path, "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=|",
                   "-e", "frame.number", "-e", "frame.protocols", "-e", "_ws.malformed",
                   "-e", "_ws.expert.severity", "-e", "_ws.expert.message",
                   "-e", "infiniband.bth.opcode", "-e", "infiniband.bth.psn", "-e", "infiniband.bth.destqp"])
    pk = [r for r in recs if r["type"] == "pkt" and r["obs"] == obs]
    check(len(rows) == len(pk), "%s: tshark read %d frames, truth has %d" % (path, len(rows), len(pk)))
    mirror_cut = meta["trunc"] == "mirror" and meta["snaplen"]
    for row, r in zip(rows, pk):
        row += [""] * (8 - len(row))
        num, protos, malformed, sev, msg, op, psn, dqp = row[:8]
        where = "%s frame %s" % (path, num)
        check("infiniband" in protos.split(":"), "%s: not decoded as InfiniBand (%s)" % (where, protos))
        olen = {0: 0, 2: 50, 3: 54}[meta["erspan"]]
        cut = mirror_cut and r["cap"] < r["wire"] + olen
        if not cut:
            check(not malformed, "%s: malformed (%s)" % (where, msg))
            sevs = [int(x) for x in sev.split("|") if x]
            check(all(x < ERROR for x in sevs), "%s: expert error: %s" % (where, msg))
        else:
            # a mirror-truncated copy: only length complaints are acceptable
            for m in msg.split("|"):
                check(not m or "length" in m.lower() or "malformed" in m.lower(),
                      "%s: unexpected expert info on a truncated copy: %s" % (where, m))
        if op:
            check(int(op.split("|")[0]) == r["op"], "%s: opcode %s vs %d" % (where, op, r["op"]))
            check(int(psn.split("|")[0]) == r["psn"], "%s: PSN %s vs %d" % (where, psn, r["psn"]))
            check(int(dqp.split("|")[0], 16) == r["dqpn"], "%s: dest QP %s vs %d" % (where, dqp, r["dqpn"]))
        else:
            check(r["cap"] < 14 + 20 + 8 + 12 + 60, "%s: no BTH decoded" % where)
    return len(rows)


def check_nvme(name, path, obs, recs):
    rows = tshark(["-2", "-r", path, "-Y", "nvme.cqe.cid", "-T", "fields", "-E", "occurrence=f",
                   "-e", "frame.number", "-e", "nvme.cqe.cid", "-e", "nvme.cmd_latency",
                   "-e", "nvme.fabrics.cmd_latency"])
    pk = {r["frame"]: r for r in recs if r["type"] == "pkt" and r["obs"] == obs}
    ios = {r["io"]: r for r in recs if r["type"] == "io" and r["obs"] == obs}
    first_pkt = {}
    for r in recs:
        if r["type"] == "pkt" and r["obs"] == obs and r.get("nvme") == "cmd" and r["op"] in (0, 4):
            first_pkt.setdefault(r["io"], r)
    matched = set()
    stolen = set()
    by_cid = collections.defaultdict(list)
    for io in ios.values():
        by_cid[(io["conn"], io["cid"])].append(io)
    for row in rows:
        row += [""] * (4 - len(row))
        frame, cid, lat, flat = int(row[0]), row[1], row[2], row[3]
        v = lat or flat
        if not v:
            continue
        r = pk[frame]
        where = "%s frame %d" % (path, frame)
        check(r.get("nvme") == "rsp", "%s: tshark latency on a frame that is not a response" % where)
        io = ios[r["io"]]
        check(int(cid, 16) == io["cid"], "%s: CID" % where)
        if io["R"] != r["ts"]:
            # A retransmitted copy of a response that was already delivered
            # (go-back-N resends everything after the PSN it restarts
            # from).  tshark matches CQEs by CID alone, so it binds this
            # stale copy to whichever command now holds the CID.
            pend = [x for x in by_cid[(io["conn"], io["cid"])]
                    if x["C"] is not None and x["C"] < r["ts"] and (x["R"] is None or x["R"] >= r["ts"])]
            check(len(pend) == 1, "%s: tshark latency on a stale response copy with no pending command" % where)
            want = (r["ts"] - pend[0]["C"]) / 1e6
            check(abs(float(v) - want) <= 1e-6 + 1e-12 * want, "%s: stale-copy latency %s vs %.6f" % (where, v, want))
            stolen.add(pend[0]["io"])
            continue
        check(io["C"] is not None, "%s: response to a command that was not seen" % where)
        want = (io["R"] - io["C"]) / 1e6
        check(abs(float(v) - want) <= 1e-6 + 1e-12 * want,
              "%s: tshark latency %s ms, ground truth R - C = %.6f ms" % (where, v, want))
        matched.add(io["io"])
    eligible = 0
    for io in ios.values():
        c = first_pkt.get(io["io"])
        if (io["rec"] == "complete" and io["c_copies"] == 1 and io["r_copies"] == 1 and c and c["op"] == 4
                and io["io"] not in stolen):
            eligible += 1
            check(io["io"] in matched, "%s: io %d (cid %d, %s) eligible but not matched by tshark" % (
                path, io["io"], io["cid"], io["kind"]))
    check(eligible > 0, "%s: no NVMe command tshark could match" % path)
    return len(matched)


def main():
    try:
        subprocess.run([TSHARK[0], "-v"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
    except (OSError, subprocess.CalledProcessError):
        print("tshark not found: skipped")
        return SKIP
    base = tmpdir("tshark")
    only = sys.argv[1:]
    try:
        for name, extra, nvme in SCENARIOS:
            if only and name not in only:
                continue
            out = os.path.join(base, name)
            run_sim(name, 5, out, *extra)
            recs = load_truth(os.path.join(out, "truth.jsonl"))
            meta = recs[0]
            total = lat = 0
            for o in meta["obs"]:
                path = os.path.join(out, o["file"])
                total += check_decode(name, path, o["name"], recs, meta)
                if nvme:
                    lat += check_nvme(name, path, o["name"], recs)
            print("ok %-18s %6d frames decoded%s" % (name, total, ", %d NVMe latencies equal" % lat if nvme else ""))
            shutil.rmtree(out)
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main_wrapper(main)
