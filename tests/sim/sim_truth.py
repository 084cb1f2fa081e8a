#!/usr/bin/python3
"""Self-consistency of rtel-sim's ground truth.

For a set of scenarios: every frame of every pcap matches its per-packet
record (timestamp, lengths, decoded BTH fields, ECN/FECN/BECN, ICRC); every
retransmission follows a loss, a timeout or an RNR NAK; the per-flow,
per-message and per-I/O figures equal those recomputed here from the
per-packet records (rtel-metrics(7) rules); each I/O's latency at each point
equals the modelled sum of its parts plus link delays.
"""
import collections
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from simcheck import (Fail, check, decode, icrc, load_truth, main_wrapper, read_pcap, run_sim,
                      tmpdir)

SCENARIOS = [
    ("rdma-clean", []), ("rdma-loss-before", []), ("rdma-loss-after", []), ("rdma-loss-between", []),
    ("rdma-rnr", []), ("rdma-timeout", []), ("rdma-psn-wrap", ["--msgs-per-qp", "4"]), ("rdma-ecn", []),
    ("rdma-no-cm", []), ("rdma-many-qps", []), ("rdma-truncated", []),
    ("rdma-flood", ["--qps", "400", "--packet-truth"]), ("rdma-read", []), ("rdma-ops-mix", []),
    ("rdma-erspan2", []), ("rdma-erspan3", []), ("rdma-ipv6-vlan", []),
    ("nvme-read", []), ("nvme-write", []), ("nvme-incapsule", []), ("nvme-flush", []),
    ("nvme-qd32", ["--ios", "600"]), ("nvme-send-inv", []), ("nvme-errors", []), ("nvme-multipacket", []),
    ("nvme-retx", []), ("nvme-lost-rsp", []), ("nvme-midstream", []), ("nvme-two-obs", []),
    ("mixed", []), ("sample", []),
    ("mixed", ["--seed", "3", "--loss", "0.01", "--loss-where", "any", "--ecn", "0.02", "--fecn",
               "--dup-rate", "0.01", "--ack-every", "4", "--ack-delay", "2us"]),
]

RRESP = (0x0D, 0x0E, 0x0F, 0x10)


def psn_le(a, b):
    d = (b - a) & 0xFFFFFF
    return d == 0 or d < 0x800000


def check_frames(name, out, recs, meta):
    pk = [r for r in recs if r["type"] == "pkt"]
    by_obs = collections.defaultdict(list)
    for r in pk:
        by_obs[r["obs"]].append(r)
    summ = recs[-1]
    for o in meta["obs"]:
        frames = read_pcap(os.path.join(out, o["file"]))
        rs = by_obs.get(o["name"], [])
        check(len(frames) == len(rs), "%s/%s: %d frames but %d packet records" % (name, o["name"], len(frames), len(rs)))
        check(summ["frames"][o["name"]] == len(frames), "%s: summary frame count" % name)
        last = 0
        for i, (fr, r) in enumerate(zip(frames, rs)):
            ts, cap, orig, data = fr
            where = "%s/%s frame %d" % (name, o["name"], i + 1)
            check(r["frame"] == i + 1, "%s: record frame %d" % (where, r["frame"]))
            check(ts == r["ts"], "%s: ts %d != %d" % (where, ts, r["ts"]))
            check(ts >= last, "%s: timestamps go back" % where)
            last = ts
            check(cap == r["cap"] and orig == r["orig"], "%s: lengths %d/%d vs %d/%d" % (where, cap, orig, r["cap"], r["orig"]))
            olen = {0: 0, 2: 50, 3: 54}[meta["erspan"]]
            check(r["wire"] + olen >= cap, "%s: wire length below the captured length" % where)
            d = decode(data)
            check(d["src"] == r["src"] and d["dst"] == r["dst"], "%s: addresses" % where)
            if meta["vlan"]:
                check(d["vlan"] == meta["vlan"], "%s: VLAN" % where)
            if meta["erspan"]:
                check(d["erspan"] == meta["erspan"], "%s: ERSPAN type" % where)
            check(d["ttl"] < 64 or d["ttl"] == 64, "%s: TTL" % where)
            if d["opcode"] is None:
                check(cap < r["wire"] + olen, "%s: BTH missing in an untruncated frame" % where)
                continue
            check(d["opcode"] == r["op"] and d["psn"] == r["psn"] and d["dqpn"] == r["dqpn"],
                  "%s: BTH %s/%s/%s vs record %s/%s/%s" % (where, d["opcode"], d["psn"], d["dqpn"], r["op"], r["psn"], r["dqpn"]))
            check(((d["tos"] & 3) == 3) == bool(r["ce"]), "%s: ECN CE" % where)
            check(d["fecn"] == r["fecn"] and d["becn"] == r["becn"], "%s: FECN/BECN" % where)
            if "paylen" in d:
                check(d["paylen"] == r["len"], "%s: payload length %d vs %d" % (where, d["paylen"], r["len"]))
            check(d["complete"] == (cap >= r["wire"] + olen), "%s: completeness" % where)
            if meta["erspan"]:
                check(d.get("erspan_t", 0) == (cap < r["wire"] + olen and meta["trunc"] == "mirror"), "%s: ERSPAN T bit" % where)
            if d["complete"]:
                off = d.get("inner_off", 0)
                inner = data[off:]
                dd = decode(inner)
                check(inner[dd["udpoff"] + dd["ulen"] - 4:dd["udpoff"] + dd["ulen"]] == icrc(inner, dd),
                      "%s: ICRC" % where)
    return pk


def check_retx(name, recs, pk, meta, off):
    losses = collections.defaultdict(list)
    for r in recs:
        if r["type"] == "loss":
            losses[r["conn"]].append(r["t"])
    rnr = collections.defaultdict(list)
    for r in pk:
        if r["what"] == "rnr_nak":
            rnr[r["conn"]].append(r["ts"] - off[r["obs"]])
    starts = collections.defaultdict(list)
    nstart = 0
    for r in recs:
        if r["type"] != "retx_start":
            continue
        nstart += 1
        c = r["conn"]
        starts[(c, r["cause"])].append(r["t"])
        if r["cause"] == "rnr":
            check(any(t <= r["t"] for t in rnr[c]), "%s: RNR retransmission without an RNR NAK (conn %d)" % (name, c))
        else:
            check(any(t <= r["t"] for t in losses[c]),
                  "%s: %s retransmission at %d without an earlier loss on conn %d" % (name, r["cause"], r["t"], c))
    for r in pk:
        if r["why"] != "retx":
            continue
        t = r["ts"] - off[r["obs"]]
        check(any(s <= t for s in starts[(r["conn"], r["cause"])]),
              "%s: retransmitted packet (conn %d psn %d cause %s) before any %s recovery" % (name, r["conn"], r["psn"], r["cause"], r["cause"]))
    nloss = sum(1 for r in recs if r["type"] == "loss")
    check(recs[-1]["packets_lost"] == nloss, "%s: summary loss count" % name)
    return nstart


def check_flows(name, recs, pk):
    acc = {}

    def get(k):
        if k not in acc:
            acc[k] = collections.Counter(first=None, last=None)
            acc[k]["hi"] = {}
        return acc[k]

    for r in pk:
        if r["what"] == "cm" or r["what"] == "rreq":
            continue
        if r["what"] == "data":
            f = get((r["obs"], r["conn"], r["dir"]))
            if f["first"] is None:
                f["first"] = r["ts"]
            f["last"] = r["ts"]
            f["pkts"] += 1
            f["bytes"] += r["len"]
            space = r["op"] in RRESP
            hi = f["hi"].get(space)
            if hi is not None and psn_le(r["psn"], hi):
                f["retx_pkts"] += 1
                f["retx_bytes"] += r["len"]
            else:
                if hi is not None and r["psn"] != (hi + 1) & 0xFFFFFF:
                    f["psn_gaps"] += 1
                    f["psn_gap_pkts"] += (r["psn"] - hi - 1) & 0xFFFFFF
                f["hi"][space] = r["psn"]
            f["ecn_ce"] += r["ce"]
            f["fecn"] += r["fecn"]
            if r["why"] == "retx":
                f["sent_retx_pkts"] += 1
                f[{"nak": "retx_after_nak", "timeout": "retx_after_timeout", "rnr": "retx_after_rnr",
                   "implied_nak": "retx_implied_nak"}[r["cause"]]] += 1
            if r.get("dup"):
                f["dup_pkts"] += 1
        else:
            f = get((r["obs"], r["conn"], 1 - r["dir"]))
            w = r["what"]
            if w == "ack":
                f["acks"] += 1
            elif w == "nak":
                f["naks_seq" if r["syndrome"] == 0x60 else "naks_fatal"] += 1
            elif w == "rnr_nak":
                f["naks_rnr"] += 1
            elif w == "cnp":
                f["cnps"] += 1
            if r["becn"] and w != "cnp":
                f["becn"] += 1
    for r in recs:
        if r["type"] == "loss" and r["what"] == "data":
            for o in r["seen_by"]:
                get((o, r["conn"], r["dir"]))["loss_downstream"] += 1
            for o in r["missed_by"]:
                get((o, r["conn"], r["dir"]))["loss_upstream"] += 1
    flows = {(r["obs"], r["conn"], r["dir"]): r for r in recs if r["type"] == "flow"}
    fields = ["pkts", "bytes", "retx_pkts", "retx_bytes", "psn_gaps", "psn_gap_pkts", "ecn_ce", "fecn",
              "sent_retx_pkts", "retx_after_nak", "retx_after_timeout", "retx_after_rnr", "retx_implied_nak",
              "dup_pkts", "acks", "naks_seq", "naks_fatal", "naks_rnr", "cnps", "becn", "loss_downstream",
              "loss_upstream"]
    for k, f in acc.items():
        interesting = f["pkts"] or any(f[x] for x in ("naks_seq", "naks_rnr", "naks_fatal", "cnps",
                                                       "loss_upstream", "loss_downstream", "becn"))
        if not interesting:
            continue
        check(k in flows, "%s: no flow record for %s" % (name, k))
        fr = flows[k]
        for x in fields:
            check(fr[x] == f[x], "%s: flow %s: %s = %s, recomputed %s" % (name, k, x, fr[x], f[x]))
        if f["pkts"]:
            check(fr["first_ts"] == f["first"] and fr["last_ts"] == f["last"], "%s: flow %s first/last" % (name, k))
            fct = f["last"] - f["first"]
            check(fr["fct_ns"] == fct, "%s: flow %s FCT" % (name, k))
            if fct:
                fet = (f["bytes"] - f["retx_bytes"]) * 8e9 / fct
                check(abs(fr["fet_bps"] - fet) <= 1e-9 * fet + 1e-6, "%s: flow %s FET" % (name, k))
            check(abs(fr["fnr"] - f["naks_seq"] / f["pkts"]) < 1e-12, "%s: flow %s FNR" % (name, k))
    for k in flows:
        check(k in acc, "%s: flow record %s without packets" % (name, k))
    return len(flows)


def check_msgs(name, recs, pk):
    seen = collections.defaultdict(lambda: [None, None, 0])
    for r in pk:
        if r["what"] == "data" and "msg" in r:
            s = seen[(r["msg"], r["obs"])]
            if s[0] is None:
                s[0] = r["ts"]
            s[1] = r["ts"]
            s[2] += 1
    n = 0
    for r in recs:
        if r["type"] != "msg":
            continue
        n += 1
        for o, v in r["obs"].items():
            s = seen[(r["msg"], o)]
            check([v["first"], v["last"], v["pkts"]] == s, "%s: msg %d at %s: %s vs %s" % (name, r["msg"], o, v, s))
        retx = r["retx_nak"] + r["retx_timeout"] + r["retx_rnr"] + r["retx_implied_nak"]
        check(r["retx_pkts"] == retx, "%s: msg %d retransmission causes do not add up" % (name, r["msg"]))
    return n


def check_ios(name, recs, pk, meta):
    ev = collections.defaultdict(dict)
    for r in pk:
        if "io" not in r or "nvme" not in r:
            continue
        e = ev[(r["io"], r["obs"])]
        t, nv, op = r["ts"], r["nvme"], r["op"]
        if nv == "cmd" and op in (0x00, 0x04):
            e.setdefault("C", t)
            e["cc"] = e.get("cc", 0) + 1
        elif nv == "rsp" and op in (0x04, 0x17):
            e.setdefault("R", t)
            e["rc"] = e.get("rc", 0) + 1
        elif nv == "rdata":
            e.setdefault("D1", t)
            e["Dn"] = t
        elif nv == "wreq":
            e.setdefault("Q", t)
        elif nv == "wdata":
            e.setdefault("P1", t)
            e["Pn"] = t
    model = {r["io"]: r for r in recs if r["type"] == "io_model"}
    nio = neligible = 0
    iol_at = collections.defaultdict(dict)
    for r in recs:
        if r["type"] != "io":
            continue
        nio += 1
        e = ev[(r["io"], r["obs"])]
        where = "%s: io %d at %s" % (name, r["io"], r["obs"])
        for k in ("C", "D1", "Dn", "Q", "P1", "Pn", "R"):
            check(r[k] == e.get(k), "%s: %s = %s, recomputed %s" % (where, k, r[k], e.get(k)))
        check(r["c_copies"] == e.get("cc", 0) and r["r_copies"] == e.get("rc", 0), "%s: copies" % where)
        C, R = r["C"], r["R"]
        rec = "complete" if C and R else "timeout" if C else "orphan"
        check(r["rec"] == rec, "%s: record status %s, expected %s" % (where, r["rec"], rec))
        check(r["iol"] == (R - C if C and R else None), "%s: IOL" % where)
        kind = r["kind"]
        if kind in ("read", "identify"):
            check(r["dal"] == (r["D1"] - C if C and r["D1"] else None), "%s: read DAL" % where)
            check(r["xfer"] == (r["Dn"] - r["D1"] if r["D1"] else None), "%s: read transfer" % where)
            check(r["dpl"] is None, "%s: read DPL" % where)
        elif kind == "write" and r["incapsule"]:
            check(r["dal"] == (R - C if C and R else None), "%s: in-capsule DAL" % where)
        elif kind == "write":
            if C and R and r["Q"] and r["Pn"]:
                check(r["dal"] == (r["Q"] - C) + (R - r["Pn"]), "%s: write DAL" % where)
            if r["Q"] and r["P1"]:
                check(r["dpl"] == r["P1"] - r["Q"], "%s: DPL" % where)
        m = model[r["io"]]
        if rec == "complete":
            iol_at[r["io"]][r["obs"]] = r["iol"]
        if (rec == "complete" and r["c_copies"] == 1 and r["r_copies"] == 1 and not m["cmd_retx"]
                and not m["rsp_retx"]):
            jc, jr = m["obs_hops"][r["obs"]]
            parts = (sum(m["cmd_links"][jc:]) + m["cmd_tail_ns"] + m["target_ns"] + sum(m["rsp_links"][:jr]))
            check(r["iol"] == parts, "%s: IOL %d != modelled %d (links %s/%s, target %d)" % (
                where, r["iol"], parts, m["cmd_links"], m["rsp_links"], m["target_ns"]))
            check(m["target_ns"] >= m["storage_ns"] + (m["host_prep_ns"] if kind == "write" else 0),
                  "%s: target time shorter than its parts" % where)
            neligible += 1
    # I/O latency is larger nearer the host
    roles = {o["name"]: o["role"] for o in meta["obs"]}
    for io, d in iol_at.items():
        c = [v for k, v in d.items() if roles[k] == "compute"]
        s = [v for k, v in d.items() if roles[k] == "storage"]
        if c and s and model[io]["cmd_retx"] is False and model[io]["rsp_retx"] is False:
            check(c[0] >= s[0], "%s: io %d: IOL at the compute side %d < storage side %d" % (name, io, c[0], s[0]))
    return nio, neligible


def one(name, extra, base):
    out = os.path.join(base, name + ("-" + "-".join(a.strip("-") for a in extra) if extra else ""))
    run_sim(name, extra[extra.index("--seed") + 1] if "--seed" in extra else 11, out,
            *[a for i, a in enumerate(extra) if not (a == "--seed" or (i and extra[i - 1] == "--seed"))])
    recs = load_truth(os.path.join(out, "truth.jsonl"))
    meta = recs[0]
    off = {o["name"]: meta["epoch_ns"] + o["offset_ns"] for o in meta["obs"]}
    pk = check_frames(name, out, recs, meta)
    nstart = check_retx(name, recs, pk, meta, off)
    nflows = check_flows(name, recs, pk)
    nmsg = check_msgs(name, recs, pk)
    nio, nel = check_ios(name, recs, pk, meta)
    print("ok %-18s %7d pkt records, %5d retx starts, %4d flows, %6d msgs, %5d io records (%d decomposed) %s" % (
        name, len(pk), nstart, nflows, nmsg, nio, nel, " ".join(extra)))
    # scenario-specific expectations
    kinds = collections.Counter(r["what"] for r in pk)
    causes = collections.Counter(r.get("cause") for r in pk if r["why"] == "retx")
    if name in ("rdma-clean", "rdma-many-qps", "nvme-read", "nvme-write", "nvme-qd32"):
        check(not causes and kinds["nak"] == 0, "%s: retransmissions in a loss-free scenario" % name)
    if name == "rdma-rnr":
        check(kinds["rnr_nak"] > 0 and causes["rnr"] > 0, "rdma-rnr: no RNR NAK/retransmission")
    if name == "rdma-timeout":
        check(causes["timeout"] > 0 and causes["nak"] == 0, "rdma-timeout: expected only timeout retransmissions")
    if name in ("rdma-loss-before", "rdma-loss-after"):
        check(kinds["nak"] > 0 and causes["nak"] > 0, "%s: no NAK-driven retransmission" % name)
        fl = [r for r in recs if r["type"] == "flow"]
        up = sum(f["loss_upstream"] for f in fl)
        down = sum(f["loss_downstream"] for f in fl)
        if name == "rdma-loss-before":
            check(up > 0 and down == 0, "rdma-loss-before: upstream %d downstream %d" % (up, down))
        else:
            check(down > 0 and up == 0, "rdma-loss-after: upstream %d downstream %d" % (up, down))
    if name == "rdma-ecn":
        check(kinds["cnp"] > 0 and any(r["ce"] for r in pk) and any(r["becn"] for r in pk if r["what"] == "ack"),
              "rdma-ecn: no CE/CNP/BECN")
    if name == "rdma-psn-wrap":
        check(any(r["psn"] < 1000 for r in pk if r["what"] == "data") and
              any(r["psn"] > 0xFFFF00 for r in pk if r["what"] == "data"), "rdma-psn-wrap: PSNs do not wrap")
    if name == "rdma-no-cm":
        check(kinds["cm"] == 0, "rdma-no-cm: CM packets present")
    if name == "nvme-midstream":
        check(kinds["cm"] == 0 and any(r["rec"] == "orphan" for r in recs if r["type"] == "io"),
              "nvme-midstream: expected no CM and orphan responses")
    if name == "nvme-lost-rsp":
        check(causes["timeout"] > 0 and any(r["rec"] == "timeout" for r in recs if r["type"] == "io"),
              "nvme-lost-rsp: expected transport timeouts and timed-out I/Os")
    if name == "nvme-errors":
        check(any(r["sc"] for r in recs if r["type"] == "io"), "nvme-errors: no error status")
    if name == "nvme-send-inv":
        check(any(r["op"] == 0x17 for r in pk), "nvme-send-inv: no SEND with Invalidate")
    if name == "nvme-qd32":
        cids = collections.Counter((r["conn"], r["cid"]) for r in recs if r["type"] == "io_model")
        check(max(cids.values()) > 1, "nvme-qd32: no CID reuse")
    if name == "nvme-two-obs":
        offs = {o["offset_ns"] for o in meta["obs"]}
        check(len(offs) == 2, "nvme-two-obs: clock offsets are not different")
    if name == "nvme-retx":
        check(any(r["why"] == "retx" and r.get("nvme") in ("rdata", "wdata") for r in pk),
              "nvme-retx: no retransmitted data")
    if name == "nvme-multipacket":
        check(any(r["op"] == 0x00 and r.get("nvme") == "cmd" for r in pk), "nvme-multipacket: no multi-packet capsule")
    if name == "sample":
        size = os.path.getsize(os.path.join(out, "h0.pcap"))
        check(size < 200 * 1024, "sample: pcap is %d bytes" % size)
    shutil.rmtree(out)


def main():
    base = tmpdir("truth")
    only = sys.argv[1:]
    try:
        for name, extra in SCENARIOS:
            if only and name not in only:
                continue
            one(name, extra, base)
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main_wrapper(main)
