#!/usr/bin/env python3
"""tests/truth/ios.py - the NVMe-oF I/O records of libroceTel against the
ground truth of rtel-sim (issues #5 and #6).

Every scenario is simulated by examples/rtel-sim (one pcap per observation
point, truth.jsonl) and analysed by examples/rtel-analyze --format json; the
records are compared with what rtel-metrics(7) ("NVME-OF I/O EVENTS",
"POLLING SCHEDULER") says they must be, computed here from the simulator's
ground truth only (its io, pkt and conn records; man/rtel-sim.1, GROUND
TRUTH), never from the library's own output:

  ios         each point's pcap analysed alone (--ios --summary --stats):
              one record per I/O, joined with the truth's io record of that
              point by (host, target, target QPN, CID, C) - R for an orphan
              - and compared member by member, exactly: state, host QPN,
              QID, op, NSID, SLBA, NLB, bytes, NVMe status (the truth's
              status word >> 1), in-capsule, C, R, D1/Dn or P1/Pn, Q, IOL,
              DAL, DPL, transfer. Mid-stream, a queue recognised only from
              capsule shapes reports what ends at or after the first CQE
              that answers one of its captured commands (derived from the
              truth's packets); the rest is never reported.
  neighbours  (issue 10) every record's first and last data packet is a
              data packet of that I/O at that point, never one of another
              I/O (a neighbour on the same queue, or an I/O whose command
              was not captured).
  unmatched   (issue 10) in the lossless mid-stream scenarios, the stats'
              nvme_data_unmatched against the data packets (RDMA WRITE,
              READ REQUEST, READ RESPONSE) of the I/Os whose command the
              point did not capture: those on a queue the point already
              knows must all be counted (see data_unmatched()).
  after R     Dn/Pn: the truth counts data copies seen after the response,
              the library only those up to R (rtel-metrics(7), "Events");
              a mismatch explained by that alone is its own check, so that
              it does not hide others.
  counters    the stats record against the records (ios_* by state; no
              io_join_unmatched with a single point).
  summary     --summary against counts, bytes, errors and timeouts and the
              exact nearest-rank quantiles of the truth's latencies (within
              the documented 1/64; count, min, max exact, mean floored).
  segments    two points analysed together, roles inferred, configured, and
              half-configured: one record per I/O complete at both, IOL1 and
              IOL2 from the truth's io records of the two points, RTT,
              compute, network, storage by rtel-metrics(7), adding up to
              IOL1; also with the two clocks 6 s apart.
  poll        (issue #6) --poll 1/SLOT --ios --flows on two points: the
              windows of each file from the slot records alone; an I/O whose
              C and R fall in one window is exact, one whose window ends
              first is "truncated" with coverage_end at the boundary (never
              complete) and its data members those of the window, a response
              whose command was not measured is an orphan; every flow record
              is one window's data packets of its key, "truncated" at the
              boundary; only frames inside the windows are decoded. The slot
              length is chosen so that the CM exchanges are measured.
  no-flows    (issue 9) each point analysed again with --no-flows (no flow
              table): the QP pairs NVMe-oF queues need are still learned,
              from RDMA CM and mid-stream from ACK PSNs, so the I/O records,
              the NVMe-oF counters and pairs_cm, pairs_psn are those of the
              run with the flow table, record for record; on scenarios where
              pairs are learned (one where only ACK PSNs pair the queues in
              time: flushes and reads on 8 mid-stream queues).
  library     through a small C program against the built library (no
              rtel-analyze option reaches these): RTEL_IO_F_INVALIDATE, the
              two points' frames in true-time order with clocks 6 s apart (a
              live collector), and a flood of commands never answered into
              max_ios = 100: the records the documented rules give (oldest
              evicted, ios_untracked counts), no allocation after
              rtel_ctx_new().

States: the truth's rec "timeout" means "never answered in the trace". The
runs pass --io-timeout = the truth's meta io_timeout_ns: an unanswered I/O is
expected "timeout" when the run lasts io_timeout after C, else "truncated"
at the end of the files; an I/O answered io_timeout or more after C is
expected "timeout" (the timer runs before the frame of R) and its response
an orphan.

Environment: RTEL_SIM, RTEL_ANALYZE, top_srcdir, top_builddir
(AM_TESTS_ENVIRONMENT), CC (default cc) for the C program; the checks through
it are skipped, with a note, if it cannot be built. Arguments restrict the
run to scenarios (and "clocks", "flood"); RTEL_KEEP=1 keeps the files.
Prints one line per check and "N passed, M failed" last; exits 1 on a
failure, 77 when rtel-sim or rtel-analyze is missing.
"""

import collections
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree

from truthlib import (tl_env_path, tl_latency_problems, tl_poll_windows,  # noqa: E402
                      tl_rmtree, tl_run_sim, tl_tmpdir, tl_window_of)
sys.path.insert(0, os.path.dirname(HERE))
import rtel_records  # noqa: E402 (tests/rtel_records.py)

SKIP = 77
NS_PER_S = 1000000000

# ---------------------------------------------------------------- results


class Results(object):
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.failures = []

    def check(self, name, problems, note=""):
        """One check: |problems| is a list of strings (empty: passed)."""
        if problems:
            self.failed += 1
            self.failures.append(name)
            print("FAIL %s: %d problem(s)%s" % (name, len(problems), note))
            for p in problems[:15]:
                print("     %s" % p)
            if len(problems) > 15:
                print("     ... and %d more" % (len(problems) - 15))
        else:
            self.passed += 1
            print("ok   %s%s" % (name, note))
        sys.stdout.flush()
        return not problems


# ---------------------------------------------------------------- tools


class Tools(object):
    def __init__(self, work):
        self.sim = tl_env_path("RTEL_SIM", "examples/rtel-sim/rtel-sim")
        self.analyze = tl_env_path("RTEL_ANALYZE", "examples/rtel-analyze")
        self.work = work
        self.cache = {}

    def simulate(self, scenario, seed, *extra):
        key = (scenario, seed) + tuple(extra)
        if key in self.cache:
            return self.cache[key]
        out = os.path.join(self.work, "%s-%d-%d" % (scenario, seed, len(self.cache)))
        tl_run_sim(self.sim, scenario, seed, out, extra)
        t = Truth(out, "%s seed %d%s" % (scenario, seed, (" " + " ".join(extra)) if extra else ""))
        self.cache[key] = t
        return t

    def analyze_json(self, args):
        """rtel-analyze --format json ARGS: {type: [records]}, or raises."""
        cmd = [self.analyze, "--format", "json"] + list(args)
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True)
        if r.returncode != 0 or r.stderr:
            raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), r.returncode, r.stderr.strip()))
        out = collections.defaultdict(list)
        for n, line in enumerate(r.stdout.splitlines(), 1):
            try:
                rec = rtel_records.loads(line)
            except ValueError as e:
                raise RuntimeError("%s: line %d is not JSON (%s): %r" % (" ".join(cmd), n, e, line[:200]))
            out[rec.get("type")].append(rec)
        return out


# ---------------------------------------------------------------- truth


class Truth(object):
    """The ground truth of one simulation (man/rtel-sim.1, GROUND TRUTH)."""

    def __init__(self, out, label):
        self.dir = out
        self.label = label
        self.ios = []                            # io records
        self.conns = {}                          # conn -> conn record
        self.flows = []                          # flow records
        self.cmd_pkts = collections.defaultdict(list)   # (io, obs) -> [pkt] (capsule)
        self.rsp_pkts = collections.defaultdict(list)   # (io, obs) -> [pkt]
        self.data_pkts = collections.defaultdict(list)  # (io, obs) -> [pkt] (rdata, wdata)
        self.pkts = collections.defaultdict(list)       # obs -> [pkt] (all, frame order)
        with open(os.path.join(out, "truth.jsonl")) as f:
            for line in f:
                r = json.loads(line)
                t = r["type"]
                if t == "pkt":
                    self.pkts[r["obs"]].append(r)
                    nv = r.get("nvme")
                    if nv == "cmd":
                        self.cmd_pkts[(r["io"], r["obs"])].append(r)
                    elif nv == "rsp":
                        self.rsp_pkts[(r["io"], r["obs"])].append(r)
                    elif nv in ("rdata", "wdata"):
                        self.data_pkts[(r["io"], r["obs"])].append(r)
                elif t == "io":
                    self.ios.append(r)
                elif t == "conn":
                    self.conns[r["conn"]] = r
                elif t == "flow":
                    self.flows.append(r)
                elif t == "meta":
                    self.meta = r
                elif t == "summary":
                    self.summary = r
        self.obs = [o["name"] for o in self.meta["obs"]]
        self.files = {o["name"]: os.path.join(out, o["file"]) for o in self.meta["obs"]}
        self.roles = {o["name"]: o["role"] for o in self.meta["obs"]}
        self.last_ts = {}
        for o in self.obs:
            p = self.pkts[o]
            self.last_ts[o] = max(x["ts"] for x in p) if p else None

    def ios_at(self, obs):
        return [r for r in self.ios if r["obs"] == obs]


# ---------------------------------------------------------------- expectations

# the truth's command kinds by the names of the NVMe and NVMe over Fabrics
# specifications, in the snake case of rtel_nvme_cmd_str(3)
KIND_OP = {"read": "read", "write": "write", "flush": "flush",
           "connect": "connect", "propget": "property_get",
           "propset": "property_set", "identify": "identify"}


def io_key(r):
    """Join key of an io record, the analyzer's or the truth's."""
    if "C" in r:  # truth
        c, rr = r["C"], r["R"]
    else:
        c, rr = r["t_cmd_ns"], r["t_rsp_ns"]
    if c is not None:
        return (r["host"], r["target"], r["target_qpn"], r["cid"], "C", c)
    return (r["host"], r["target"], r["target_qpn"], r["cid"], "R", rr)


def queue_recognition(truth, obs):
    """How each queue (conn) is recognised at |obs|, from the rules of
    rtel-metrics(7): ("cm"|"connect", None) when the CM exchange or the Fabrics
    Connect command of the queue was captured at this point; ("guessed", F)
    otherwise, F the (frame, ts) of the first response (first copy) that
    answers a command captured at this point and still outstanding: the CQE
    on the reverse QP that confirms the guessed queue; F None when no such
    response exists."""
    seen_cm = set()
    for p in truth.pkts[obs]:
        if p.get("what") == "cm" and p.get("cm") == "req":
            seen_cm.add(p["conn"])
    ios = truth.ios_at(obs)
    out = {}
    for cn, c in truth.conns.items():
        if not c["kind"].startswith("nvme"):
            continue
        if cn in seen_cm and c.get("service_port") == 4420:
            out[cn] = ("cm", None)
            continue
        if any(r["conn"] == cn and r["kind"] == "connect" and r["C"] is not None for r in ios):
            out[cn] = ("connect", None)
            continue
        first = None
        for r in ios:
            if r["conn"] != cn or r["C"] is None or r["R"] is None:
                continue
            rf = (rsp_first_frame(truth, r), r["R"])
            if first is None or rf < first:
                first = rf
        out[cn] = ("guessed", first)
    return out


def cmd_first_frame(truth, r):
    ps = [p for p in truth.cmd_pkts[(r["io"], r["obs"])] if p["ts"] == r["C"]]
    return min(p["frame"] for p in ps)


def rsp_first_frame(truth, r):
    ps = [p for p in truth.rsp_pkts[(r["io"], r["obs"])] if p["ts"] == r["R"]]
    return min(p["frame"] for p in ps)


def expected_ios(truth, obs, io_timeout, last_ts):
    """{key: (expected analyzer io record, truth io record)} at |obs|
    analysed alone, with --io-timeout |io_timeout| and |last_ts| the last
    frame of the run.

    An I/O answered io_timeout or more after its command ends "timeout"
    before its response is handed over (the timer runs before the first
    frame at or after C + io_timeout, and R is such a frame); the response
    then is an orphan. An unanswered I/O ends "timeout" if the run lasts
    io_timeout after C, else "truncated" when the files end. A queue
    recognised only from capsule shapes reports what ends at or after the
    CQE that confirms it."""
    recog = queue_recognition(truth, obs)
    exp = {}
    for r in truth.ios_at(obs):
        how, conf = recog.get(r["conn"], ("guessed", None))
        timed_out = r["C"] is not None and (
            (r["R"] is not None and r["R"] - r["C"] >= io_timeout) or
            (r["R"] is None and last_ts - r["C"] >= io_timeout))
        if how == "guessed":
            if conf is None:
                continue
            if r["R"] is not None and not timed_out and rsp_first_frame(truth, r) < conf[0]:
                continue
            if r["R"] is not None and r["C"] is None and rsp_first_frame(truth, r) < conf[0]:
                continue
            if timed_out and r["C"] + io_timeout <= conf[1]:
                # ended (silently) before the queue was confirmed; its
                # response, if any, comes after: an orphan
                if r["R"] is not None and rsp_first_frame(truth, r) >= conf[0]:
                    o = expect_orphan(r)
                    exp[io_key(dict(r, C=None))] = (o, r)
                continue
        if r["C"] is None:
            exp[io_key(r)] = (expect_orphan(r), r)
            continue
        if timed_out:
            e = expect_record(truth, r, how)
            e.update(data_fields(truth, r, r["C"], r["C"] + io_timeout))
            e.update({"state": "timeout", "t_rsp_ns": None, "iol_ns": None, "dal_ns": None,
                      "nvme_status": 0, "_alt": {}})
            exp[io_key(r)] = (e, r)
            if r["R"] is not None:
                exp[io_key(dict(r, C=None))] = (expect_orphan(r), r)
            continue
        e = expect_record(truth, r, how)
        if r["R"] is None:
            e["state"] = "truncated"
            e["t_rsp_ns"] = e["iol_ns"] = e["dal_ns"] = None
        exp[io_key(r)] = (e, r)
    return exp


def expect_orphan(r):
    """A response alone: what its CQE says, nothing about the command."""
    e = {"host": r["host"], "target": r["target"], "target_qpn": r["target_qpn"],
         "host_qpn": r["host_qpn"], "cid": r["cid"], "state": "orphan",
         "nvme_status": r["status"] >> 1, "t_rsp_ns": r["R"], "t_cmd_ns": None}
    # nothing of the command: its members are left out (read as None)
    for k in ("op", "nvme_opcode", "nvme_fctype", "nsid", "slba", "nlb",
              "bytes", "incapsule", "t_data_first_ns", "t_data_last_ns", "t_rdreq_ns", "iol_ns", "dal_ns",
              "dpl_ns", "xfer_ns"):
        e[k] = None
    return e


def data_fields(truth, r, lo, hi):
    """The data members of an I/O cut at |hi| (its events in [lo, hi))."""
    inw = lambda ts: lo <= ts and (hi is None or ts < hi)
    key = (r["io"], r["obs"])
    d = [p["ts"] for p in truth.data_pkts[key] if inw(p["ts"])]
    q = [p["ts"] for p in truth.pkts[r["obs"]]
         if p.get("io") == r["io"] and p.get("nvme") == "wreq" and inw(p["ts"])]
    x = {"t_rdreq_ns": min(q) if q else None}
    if r["incapsule"] and r["kind"] == "write":
        caps = [p["ts"] for p in truth.cmd_pkts[key] if inw(p["ts"])]
        x["t_data_first_ns"], x["t_data_last_ns"] = r["C"], max(caps)
        x["xfer_ns"] = max(caps) - r["C"]
    elif d:
        x["t_data_first_ns"], x["t_data_last_ns"] = min(d), max(d)
        x["xfer_ns"] = max(d) - min(d)
    else:
        x["t_data_first_ns"] = x["t_data_last_ns"] = x["xfer_ns"] = None
    x["dpl_ns"] = (min(d) - min(q)) if (q and d) else None
    return x


def expect_record(truth, r, how):
    """The record of an I/O whose command and response were both seen."""
    e = {}
    e["host"], e["target"] = r["host"], r["target"]
    e["target_qpn"] = r["target_qpn"]
    e["host_qpn"] = r["host_qpn"]
    e["cid"] = r["cid"]
    e["state"] = "complete"
    if how in ("cm", "connect"):
        e["qid"] = r["qid"]
    else:
        e["qid"] = None  # absent: a guessed queue's QID is not known
    e["op"] = KIND_OP.get(r["kind"], r["opc"])
    e["nvme_opcode"] = r["opc"]
    e["nvme_fctype"] = r["fctype"] if r["opc"] == 0x7F else None
    e["nsid"] = r["nsid"]
    e["slba"] = r["slba"]
    e["bytes"] = r["len"]
    e["incapsule"] = bool(r["incapsule"])
    if r["kind"] == "connect":
        # the Fabrics Connect command carries its 1024-byte data in the
        # capsule (man/rtel-sim.1; SGL data block, offset, 1024 bytes); the
        # truth's io record says len 0, incapsule false (see the report):
        # the capsule's payload less the SQE
        caps = {p["psn"]: p["len"] for p in truth.cmd_pkts[(r["io"], r["obs"])]}
        e["bytes"] = sum(caps.values()) - 64
        e["incapsule"] = True
    e["nlb"] = r["len"] // 512 if r["kind"] in ("read", "write") else 0
    e["nvme_status"] = (r["status"] >> 1) if r["status"] is not None else 0
    e["t_cmd_ns"] = r["C"]
    e["t_rsp_ns"] = r["R"]
    e["t_rdreq_ns"] = r["Q"]
    e["iol_ns"] = r["iol"]
    e["dal_ns"] = r["dal"]
    e["dpl_ns"] = r["dpl"]
    e["xfer_ns"] = r["xfer"]
    if r["D1"] is not None:
        e["t_data_first_ns"], e["t_data_last_ns"] = r["D1"], r["Dn"]
    elif r["P1"] is not None:
        e["t_data_first_ns"], e["t_data_last_ns"] = r["P1"], r["Pn"]
    elif r["incapsule"] and r["kind"] == "write":
        # in-capsule write (rtel_io_record(3)): the data travel in the
        # capsule, first = C, last = the last capsule packet seen, xfer =
        # last - first, as rtel-metrics(7) defines it; the
        # truth says null (see the report)
        caps = truth.cmd_pkts[(r["io"], r["obs"])]
        last = max(p["ts"] for p in caps)
        e["t_data_first_ns"], e["t_data_last_ns"] = r["C"], last
        e["xfer_ns"] = last - r["C"]
    else:
        e["t_data_first_ns"] = e["t_data_last_ns"] = None
    e["_alt"] = upto_response(truth, r, e)
    return e


def upto_response(truth, r, e):
    """The data fields as they would be if only the data packets seen
    before the response counted (the library delivers a record when its
    response arrives): {field: value} of those that differ from |e|.
    rtel-metrics(7) counts data copies only up to R (the response closes
    the I/O); the truth counts those seen after R too. A mismatch explained
    by this alone is reported by its own check."""
    if r["R"] is None or (r["D1"] is None and r["P1"] is None):
        return {}
    rf = rsp_first_frame(truth, r)
    ps = [p for p in truth.data_pkts[(r["io"], r["obs"])] if p["frame"] < rf]
    if r["D1"] is not None:
        # read data is tied to its I/O by the RETH of an RDMA WRITE FIRST or
        # ONLY: packets before the first one seen cannot be attributed (the
        # library's documented rule, rtel_io_record)
        named = [p["frame"] for p in ps if (p["op"] & 0x1f) in (0x06, 0x0A)]
        ps = [p for p in ps if named and p["frame"] >= min(named)]
    alt = {}
    if not ps:
        first = last = None
    else:
        first = min(p["ts"] for p in ps)
        last = max(p["ts"] for p in ps)
    a = dict(e)
    a["t_data_first_ns"], a["t_data_last_ns"] = first, last
    a["xfer_ns"] = last - first if ps else None
    if r["D1"] is not None:
        a["dal_ns"] = first - r["C"] if ps else None
    else:
        a["dpl_ns"] = first - r["Q"] if ps else None
        a["dal_ns"] = (r["Q"] - r["C"]) + (r["R"] - last) if ps else None
    for k in ("t_data_first_ns", "t_data_last_ns", "xfer_ns", "dal_ns", "dpl_ns"):
        if a[k] != e[k]:
            alt[k] = a[k]
    return alt


def compare_ios(exp, got, where):
    """Problems between {key: (expected, truth)} and the analyzer's io
    records |got|: (problems, after_r), the latter the mismatches explained
    only by data copies seen after the response (see upto_response)."""
    problems = []
    after_r = []
    seen = {}
    for g in got:
        k = io_key(g)
        if k in seen:
            problems.append("%s: two records for %s" % (where, k))
        seen[k] = g
    for k, (e, t) in sorted(exp.items(), key=lambda kv: (kv[1][1]["C"] or kv[1][1]["R"])):
        g = seen.get(k)
        tag = "%s io %d (%s cid %d qpn %d %s %s)" % (where, t["io"], t["kind"], t["cid"],
                                                    t["target_qpn"], k[4], k[5])
        if g is None:
            problems.append("%s: missing (truth rec %s, expected state %s)" % (tag, t["rec"], e["state"]))
            continue
        alt = e.get("_alt", {})
        bad = [f for f, v in e.items() if not f.startswith("_") and g.get(f) != v]
        if bad and all(f in alt and g.get(f) == alt[f] for f in bad):
            after_r.append("%s: %s (the truth's %s include data copies seen after R %s)" % (
                tag, ", ".join("%s = %r, truth %r" % (f, g.get(f), e[f]) for f in bad),
                "/".join(bad), t["R"]))
            continue
        for f in bad:
            problems.append("%s: %s = %r, expected %r" % (tag, f, g.get(f), e[f]))
    for k, g in seen.items():
        if k not in exp:
            problems.append("%s: unexpected record %s state %s op %r t_cmd %s t_rsp %s" % (
                where, k[:4], g["state"], g.get("op"), g["t_cmd_ns"], g["t_rsp_ns"]))
    return problems, after_r


# ---------------------------------------------------------------- per point


def per_point(res, tools, truth, obs_list=None):
    io_timeout = truth.meta["io_timeout_ns"]
    for obs in obs_list or truth.obs:
        where = "%s @%s" % (truth.label, obs)
        out = tools.analyze_json(["--ios", "--summary", "--stats", "--io-timeout", str(io_timeout),
                                  "%s=%s" % (obs, truth.files[obs])])
        exp = expected_ios(truth, obs, io_timeout, truth.last_ts[obs])
        summary(res, tools, truth, obs, out, exp)
        probs, after_r = compare_ios(exp, out["io"], where)
        states = collections.Counter(e["state"] for e, _ in exp.values())
        hidden = len(truth.ios_at(obs)) - len(set(t["io"] for _, t in exp.values()))
        res.check("ios %s" % where, probs, " (%d I/Os: %s%s)" % (
            len(exp), ", ".join("%s %d" % kv for kv in sorted(states.items())),
            "; %d truth records ended before their guessed queue was confirmed: not reported" % hidden
            if hidden else ""))
        if after_r:
            # the library's documented rule (rtel_io_record): D/P events are
            # the data packets seen up to R that name or follow their I/O's
            # first data packet; the truth also counts copies after R
            print("note ios %s: %d I/Os differ from the truth only by data "
                  "copies seen after R (documented rule)" % (where, len(after_r)))
        counters(res, where, out)
        # rtel_ctx_get_stats(3): every I/O followed ends once - in a record
        # that is not an orphan (the records above), or unconfirmed, or is
        # still active (none after the end of the capture)
        st = out["stats"][0]
        recs = collections.Counter(g["state"] for g in out["io"])
        ended = sum(recs[k] for k in ("complete", "timeout", "evicted", "truncated"))
        res.check("ios %s: ios_created = records + unconfirmed + active" % where,
                  [] if st["ios_created"] == ended + st["ios_unconfirmed"] and
                  st["ios_active"] == 0 else
                  ["ios_created %d, non-orphan records %d, ios_unconfirmed %d, ios_active %d" % (
                      st["ios_created"], ended, st["ios_unconfirmed"], st["ios_active"])])
        neighbours(res, where, truth, obs, out)
        if truth.meta["scenario"] in ("nvme-midstream", "nvme-midstream-rreq") and \
                truth.summary["packets_lost"] == 0:
            data_unmatched(res, where, truth, obs, out)
        if truth.meta["scenario"] == "nvme-midstream" and obs == truth.obs[0] and \
                truth.meta["seed"] == 1:
            # an orphan is a CQE alone: its command's opcode is not known
            orph = [g for g in out["io"] if g["state"] == "orphan"]
            res.check("ios %s: orphan records claim no opcode" % where,
                      ["%s: orphan cid %d R %d reported as op %r (truth: %s)" % (
                          where, g["cid"], g["t_rsp_ns"], g["op"],
                          exp[io_key(g)][1]["kind"] if io_key(g) in exp else "?")
                       for g in orph if g["op"] is not None], " (%d orphans)" % len(orph))
        if truth.meta["scenario"] == "nvme-read" and obs == truth.obs[0]:
            # rtel_ctx_stats(3): completed I/Os that found no twin are
            # "counted only once a second observation point has been seen"
            st = out["stats"][0]
            res.check("counters %s: no io_join_unmatched with one observation point" % where,
                      [] if st["io_join_unmatched"] == 0 else
                      ["io_join_unmatched %d, segments %d" % (st["io_join_unmatched"], st["segments"])])


NO_FLOWS_STATS = ("pairs_cm", "pairs_psn", "nvme_queues_cm", "nvme_queues_connect",
                  "nvme_queues_confirmed", "nvme_queues_evicted", "ios_complete",
                  "ios_timeout", "ios_orphan", "ios_evicted", "ios_untracked",
                  "ios_truncated", "nvme_data_unmatched", "nvme_capsule_dups")


def no_flows(res, tools, truth):
    """--no-flows against the run with the flow table, each point alone:
    the same I/O records in the same order, the same NVMe-oF counters and
    the same QP pairs learned (RTEL_FLOW_DISABLE: "QP pairing still runs
    for NVMe-oF")."""
    io_timeout = truth.meta["io_timeout_ns"]
    for obs in truth.obs:
        where = "%s @%s" % (truth.label, obs)
        args = ["--ios", "--stats", "--io-timeout", str(io_timeout),
                "%s=%s" % (obs, truth.files[obs])]
        on = tools.analyze_json(args)
        off = tools.analyze_json(["--no-flows"] + args)
        probs = []
        if len(on["io"]) != len(off["io"]):
            probs.append("%s: %d I/O records without the flow table, %d with it" % (
                where, len(off["io"]), len(on["io"])))
        for a, b in zip(on["io"], off["io"]):
            if a != b:
                probs.append("%s: cid %d C %s R %s: %s" % (
                    where, a["cid"], a["t_cmd_ns"], a["t_rsp_ns"], ", ".join(
                        "%s %r without the flow table, %r with it" % (k, b.get(k), a[k])
                        for k in sorted(a) if a[k] != b.get(k))))
        son, soff = on["stats"][0], off["stats"][0]
        probs += ["%s: %s %d without the flow table, %d with it" % (where, k, soff[k], son[k])
                  for k in NO_FLOWS_STATS if soff[k] != son[k]]
        if soff["pairs_cm"] + soff["pairs_psn"] == 0:
            probs.append("%s: no QP pair learned: nothing tested" % where)
        res.check("no-flows %s: I/O records and QP pairs as with the flow table" % where, probs,
                  " (%d I/Os; pairs from CM %d, from ACK PSNs %d)" % (
                      len(off["io"]), soff["pairs_cm"], soff["pairs_psn"]))


def counters(res, where, out):
    """The stats record against the records delivered (rtel_ctx_stats(3),
    rtel-analyze(1) "I/Os by how they ended"): ios_complete, ios_timeout,
    ios_orphan and ios_evicted each count the records of that state."""
    st = out["stats"][0]
    n = collections.Counter(g["state"] for g in out["io"])
    probs = []
    for k in ("complete", "timeout", "orphan", "evicted"):
        if st["ios_" + k] != n[k]:
            probs.append("%s: ios_%s %d, but %d %s records (and %d truncated)" % (
                where, k, st["ios_" + k], n[k], k, n["truncated"]))
    res.check("counters %s: ios_* by state" % where, probs)


DATA_KINDS = ("rdata", "wreq", "wdata")


def neighbours(res, where, truth, obs, out):
    """rtel_io_record(3): data is tied to its own I/O only. The first and
    last data packet of every record (D1/Dn of a read, P1/Pn of a write)
    must be timestamps of that I/O's own data packets at this point; one
    that only another I/O's packet has means data of a neighbour (or of an
    I/O whose command the point did not capture) was attached to it."""
    own = collections.defaultdict(set)
    other = collections.defaultdict(set)
    for p in truth.pkts[obs]:
        if p.get("nvme") in ("rdata", "wdata"):
            own[p["io"]].add(p["ts"])
            other[p["ts"]].add(p["io"])
    by_key = {io_key(r): r for r in truth.ios_at(obs)}
    probs = []
    n = 0
    for g in out["io"]:
        t = by_key.get(io_key(g))
        if t is None or g["t_cmd_ns"] is None or g.get("incapsule"):
            continue
        n += 1
        for f in ("t_data_first_ns", "t_data_last_ns"):
            ts = g.get(f)
            if ts is not None and ts not in own[t["io"]]:
                probs.append("%s: io %d (%s cid %d C %d): %s %d is a data packet of io %s" % (
                    where, t["io"], t["kind"], t["cid"], t["C"], f, ts,
                    "/".join(str(i) for i in sorted(other.get(ts, ()))) or "none"))
    res.check("neighbours %s: data of no other I/O in a record" % where, probs,
              " (%d records)" % n)


def data_unmatched(res, where, truth, obs, out):
    """nvme_data_unmatched (rtel_ctx_stats(3)) in a lossless capture begun
    mid-stream: every data packet of an I/O whose command this point did
    not capture ("untracked") is counted, never attributed, once the
    correlator knows its queue; the data of captured commands are all
    attributed (their records are compared exactly by the ios check).

    The correlator knows a queue host -> target (READ RESPONSEs, to the
    target's QP) from the first captured command capsule on it, exactly;
    target -> host (RDMA WRITE, READ REQUEST, to the host's QP) once the QP
    pair is known: at the latest at the first FIRST/ONLY or READ REQUEST
    of a captured command (its RETH names its keyed SGL), at the earliest
    at the queue's first command (the flow table may pair the QPs before,
    from ACK PSNs). So the count must lie between
      lo = untracked READ RESPONSEs after the queue's first command +
           untracked target -> host data after the first keyed packet of
           a captured command
      hi = untracked READ RESPONSEs after the queue's first command +
           untracked target -> host data after the queue's first command
    and the untracked data packets of this point are reported too."""
    tracked = set(r["io"] for r in truth.ios_at(obs) if r["C"] is not None)
    first_cmd = {}
    first_keyed = {}
    lo = hi = total = 0
    for p in truth.pkts[obs]:
        cn, nv = p["conn"], p.get("nvme")
        if nv == "cmd" and p["io"] in tracked:
            first_cmd.setdefault(cn, p["frame"])
        if nv in ("rdata", "wreq") and p["io"] in tracked and \
                (p["op"] & 0x1f) in (0x06, 0x0A, 0x0C):
            first_keyed.setdefault(cn, p["frame"])
        if nv not in DATA_KINDS or p["io"] in tracked:
            continue
        total += 1
        if cn not in first_cmd:
            continue
        if nv == "wdata":
            lo += 1
            hi += 1
        else:
            hi += 1
            if cn in first_keyed:
                lo += 1
    got = out["stats"][0]["nvme_data_unmatched"]
    probs = []
    if not lo <= got <= hi:
        probs.append("%s: nvme_data_unmatched %d, expected %s (of %d data packets of "
                     "untracked I/Os at this point)" % (
                         where, got, lo if lo == hi else "%d..%d" % (lo, hi), total))
    res.check("unmatched %s: data of untracked I/Os counted in nvme_data_unmatched" % where,
              probs, " (%d; %d data packets of untracked I/Os, %d..%d on known queues)" % (
                  got, total, lo, hi))


# ---------------------------------------------------------------- segments


def seg_op(r):
    # a segment record has no Fabrics command type: "fabrics"
    return "fabrics" if r["opc"] == 0x7F else KIND_OP.get(r["kind"], r["opc"])


def expected_segments(truth, a, b, compute=None):
    """The segments records of points |a| and |b| analysed together: one
    per I/O complete at both (rtel-metrics(7), segmented records); |compute|
    the configured compute side, or None (inferred: the larger IOL)."""
    at = {}
    for r in truth.ios:
        if r["obs"] in (a, b) and r["rec"] == "complete":
            at.setdefault(r["io"], {})[r["obs"]] = r
    out = []
    for io, d in sorted(at.items()):
        if len(d) != 2:
            continue
        if compute is not None:
            c, s = d[compute], d[b if compute == a else a]
        else:
            c, s = (d[a], d[b]) if d[a]["iol"] >= d[b]["iol"] else (d[b], d[a])
        e = {"host": c["host"], "target": c["target"], "target_qpn": c["target_qpn"],
             "cid": c["cid"], "op": seg_op(c), "nvme_opcode": c["opc"],
             "nsid": c["nsid"], "slba": c["slba"],
             "bytes": c["len"], "compute_obs": c["obs"], "storage_obs": s["obs"],
             "roles": "configured" if compute is not None else "inferred"}
        if c["kind"] == "connect":
            e["bytes"] = sum({p["psn"]: p["len"] for p in truth.cmd_pkts[(io, c["obs"])]}.values()) - 64
        iol1, iol2 = c["iol"], s["iol"]
        rtt = iol1 - iol2
        if c["dpl"] is not None and s["dpl"] is not None:
            compute_ns = c["dpl"]
            network = rtt + (s["dpl"] - c["dpl"])
        else:
            compute_ns = 0
            network = rtt
        e.update({"iol1_ns": iol1, "iol2_ns": iol2, "rtt_ns": rtt, "compute_ns": compute_ns,
                  "network_ns": network, "storage_ns": iol1 - compute_ns - network})
        e["_io"] = io
        out.append(e)
    return out


def seg_tuple(e):
    return tuple(sorted((k, v) for k, v in e.items() if not k.startswith("_") and k != "type"))


def compare_segments(exp, got, where, truth):
    """Problems of the segments records |got| against |exp|: records not
    joined, records joined with the wrong twin (the same join key, other
    IOLs: which I/Os of the truth they came from), and unexpected ones."""
    problems = []
    jk = lambda d: (d["host"], d["target"], d["target_qpn"], d["cid"], d["op"], d["slba"], d["bytes"])
    rest = collections.Counter(seg_tuple(g) for g in got)
    miss = collections.defaultdict(list)
    for e in exp:
        t = seg_tuple(e)
        if rest[t] > 0:
            rest[t] -= 1
        else:
            miss[jk(e)].append(e)
    extra = collections.defaultdict(list)
    for t, n in rest.items():
        for _ in range(n):
            extra[jk(dict(t))].append(dict(t))

    def which(d, obs_name, iol):
        for r in truth.ios:
            if r["obs"] == obs_name and r["iol"] == iol and r["cid"] == d["cid"] and \
                    r["target_qpn"] == d["target_qpn"] and seg_op(r) == d["op"]:
                return "io %d" % r["io"]
        return "no I/O"

    fmt = lambda d: "iol1 %d iol2 %d rtt %d compute %d network %d storage %d (%s/%s, %s)" % (
        d["iol1_ns"], d["iol2_ns"], d["rtt_ns"], d["compute_ns"], d["network_ns"], d["storage_ns"],
        d["compute_obs"], d["storage_obs"], d["roles"])
    for k in sorted(miss, key=lambda k: min(e["_io"] for e in miss[k])):
        for e in miss[k]:
            tag = "%s: io %d (%s cid %d qpn %d slba %d)" % (where, e["_io"], e["op"], e["cid"],
                                                           e["target_qpn"], e["slba"])
            if extra[k]:
                g = extra[k].pop(0)
                problems.append("%s joined with the wrong twin: %s [%s at %s, %s at %s], expected %s" % (
                    tag, fmt(g), which(g, g["compute_obs"], g["iol1_ns"]), g["compute_obs"],
                    which(g, g["storage_obs"], g["iol2_ns"]), g["storage_obs"], fmt(e)))
            else:
                problems.append("%s not joined: expected %s" % (tag, fmt(e)))
    for k, lst in extra.items():
        for g in lst:
            problems.append("%s: unexpected: %s cid %d qpn %d slba %d bytes %d %s" % (
                where, g["op"], g["cid"], g["target_qpn"], g["slba"], g["bytes"], fmt(g)))
    for g in got:
        if g["compute_ns"] + g["network_ns"] + g["storage_ns"] != g["iol1_ns"]:
            problems.append("%s: segments do not add up to iol1: %r" % (where, g))
    return problems


def segments(res, tools, truth, a, b):
    """Both points together: inferred roles, configured roles (both, and
    only one of them), against the truth's io records of the two points."""
    files = ["%s=%s" % (o, truth.files[o]) for o in (a, b)]
    comp = a if truth.roles[a] == "compute" else b
    stor = b if comp == a else a
    for label, opts, conf in (("inferred", [], None),
                              ("configured", ["--compute-side", comp, "--storage-side", stor], comp),
                              ("storage side configured", ["--storage-side", stor], comp)):
        where = "%s %s+%s %s" % (truth.label, a, b, label)
        out = tools.analyze_json(["--segments", "--stats"] + opts + files)
        exp = expected_segments(truth, a, b, conf)
        probs = compare_segments(exp, out["segment"], where, truth)
        st = out["stats"][0]
        if st["segments"] != len(out["segment"]):
            probs.append("%s: stats segments %d, %d records" % (where, st["segments"], len(out["segment"])))
        res.check("segments %s" % where, probs, " (%d joined)" % len(exp))


# ---------------------------------------------------------------- summary

def summary(res, tools, truth, obs, out, exp):
    """The --summary records of a one-point run |out| against the truth's
    io records, the I/Os expected at that point |exp| (expected_ios)."""
    where = "%s @%s" % (truth.label, obs)
    groups = collections.defaultdict(list)
    for e, t in exp.values():
        if t["kind"] not in ("read", "write") or e["state"] not in ("complete", "timeout"):
            continue
        for ns in (t["nsid"], None):
            groups[(t["host"], t["target"], ns, t["kind"])].append((e, t))
    probs = []
    got = {}
    for g in out["summary"]:
        k = (g["host"], g["target"], g["nsid"], g["op"])
        if k in got or g["obs"] != obs:
            probs.append("%s: duplicate or foreign summary %r" % (where, k))
        got[k] = g
    first, last = min(x["ts"] for x in truth.pkts[obs]), truth.last_ts[obs]
    for k, lst in sorted(groups.items(), key=str):
        g = got.pop(k, None)
        w = "%s summary %s->%s nsid %s %s" % (where, k[0], k[1], k[2], k[3])
        if g is None:
            probs.append("%s: missing" % w)
            continue
        done = [t for e, t in lst if e["state"] == "complete"]
        exp_vals = {"count": len(done), "bytes": sum(t["len"] for t in done),
                    "errors": sum(1 for t in done if (t["status"] >> 1) != 0),
                    "timeouts": sum(1 for e, t in lst if e["state"] == "timeout"),
                    "period_start_ns": first, "period_end_ns": last}
        for f, v in exp_vals.items():
            if g[f] != v:
                probs.append("%s: %s %r, expected %r" % (w, f, g[f], v))
        probs += tl_latency_problems(w + " iol", g["iol"], [t["iol"] for t in done])
        # DAL as the library defines it (its expected record: data up to R)
        dals = []
        for e, t in lst:
            if e["state"] == "complete":
                d = e.get("_alt", {}).get("dal_ns", e.get("dal_ns"))
                if d is not None:
                    dals.append(d)
        probs += tl_latency_problems(w + " dal", g["dal"], dals)
        if k[3] == "write":
            probs += tl_latency_problems(w + " dpl", g["dpl"], [t["dpl"] for t in done if t["dpl"] is not None])
        elif "dpl" in g:
            probs.append("%s: dpl in a read summary" % w)
    for k in got:
        probs.append("%s: unexpected summary %r" % (where, k))
    res.check("summary %s" % where, probs, " (%d aggregates)" % len(groups))


# ---------------------------------------------------------------- polling


def choose_slot(truth, a, b):
    """A slot length (ns) for --poll 1/SLOT on points |a| (first file) and
    |b| such that each point's RDMA CM exchanges fall inside one of its
    measured windows (slots alternate a, b, a, ... from the first frame), so
    that its queues are known from CM and the test is about the cuts, not
    about mid-stream recognition (checked separately)."""
    t0 = min(min(x["ts"] for x in truth.pkts[o]) for o in (a, b))
    spans = {}
    for o in (a, b):
        cm = [x["ts"] for x in truth.pkts[o] if x.get("what") == "cm"]
        spans[o] = (min(cm) - t0, max(cm) - t0)
    for slot in range(150000, 400000, 1000):
        ok = True
        for par, o in ((0, a), (1, b)):
            lo, hi = spans[o]
            k = lo // slot
            if k % 2 != par or hi >= (k + 1) * slot:
                ok = False
        if ok:
            return slot
    return None


def expected_cut(truth, r, win, wins, port):
    """The record of an I/O whose command is in window |win| and whose
    response is not: cut at the window's end (or at the end of the run)."""
    s, e = wins[win]
    x = {"state": "truncated", "t_cmd_ns": r["C"], "t_rsp_ns": None, "iol_ns": None,
         "dal_ns": None, "cid": r["cid"], "target_qpn": r["target_qpn"], "port": port,
         "coverage_start_ns": s, "coverage_end_ns": e, "op": KIND_OP.get(r["kind"], r["opc"])}
    x.update(data_fields(truth, r, s, e))
    return x


def polling(res, tools, truth, a, b):
    """Issue #6: rtel-analyze --poll 1/SLOT --ios --flows on two points."""
    slot = choose_slot(truth, a, b)
    label = "%s poll 1/%dns A=%s B=%s" % (truth.label, slot or 0, a, b)
    if slot is None:
        res.check("poll %s: a slot length that keeps the CM exchanges whole" % truth.label,
                  ["no slot length in 150-400 us does"])
        return
    names = {"A": a, "B": b}
    out = tools.analyze_json(["--poll", "1/%d" % slot, "--ios", "--flows", "--stats",
                              "A=%s" % truth.files[a], "B=%s" % truth.files[b]])
    slots = out["slot"]
    probs = []
    # the schedule itself: round robin, one port per slot of SLOT ns
    for i, sl in enumerate(slots):
        if sl["end_ns"] != sl["start_ns"] + slot:
            probs.append("slot %d: %d..%d is not %d ns" % (sl["slot"], sl["start_ns"], sl["end_ns"], slot))
        if i and (sl["start_ns"] - slots[0]["start_ns"]) != (sl["slot"] - slots[0]["slot"]) * slot:
            probs.append("slot %d starts at %d, off the grid" % (sl["slot"], sl["start_ns"]))
        want = "A" if sl["slot"] % 2 == 0 else "B"
        other = "B" if want == "A" else "A"
        if want in sl["stopped_names"] or other in sl["started_names"]:
            probs.append("slot %d: started %s stopped %s, but it is %s's turn" % (
                sl["slot"], sl["started_names"], sl["stopped_names"], want))
        # the ports are the files, numbered from 0 in command-line order
        ids = {"A": 0, "B": 1}
        if sl["started"] != [ids[n] for n in sl["started_names"]] or \
                sl["stopped"] != [ids[n] for n in sl["stopped_names"]]:
            probs.append("slot %d: ports %s/%s are not the files %s/%s" % (
                sl["slot"], sl["started"], sl["stopped"], sl["started_names"],
                sl["stopped_names"]))
    res.check("poll %s: slot records follow the round robin" % label, probs, " (%d slots)" % len(slots))
    wins = tl_poll_windows(slots, ["A", "B"])
    st = out["stats"][0]
    n_whole = n_cut = n_orphan = 0
    for port, name in enumerate(("A", "B")):
        obs = names[name]
        w = wins[name]
        cm = [x["ts"] for x in truth.pkts[obs] if x.get("what") == "cm"]
        if any(tl_window_of(w, t) is None for t in cm):
            res.check("poll %s @%s: CM exchanges measured" % (label, name),
                      ["a CM packet fell outside the measured windows %s" % w])
            continue
        # per-point expectations restricted to the windows
        exp_whole, exp_cut, exp_orphan = {}, {}, {}
        for r in truth.ios_at(obs):
            wc = tl_window_of(w, r["C"]) if r["C"] is not None else None
            wr = tl_window_of(w, r["R"]) if r["R"] is not None else None
            if wc is not None and wc == wr:
                e = expect_record(truth, r, "cm")
                e["port"], e["coverage_start_ns"], e["coverage_end_ns"] = port, w[wc][0], None
                e["_alt"] = {}
                exp_whole[io_key(r)] = (e, r)
            elif wc is not None:
                exp_cut[io_key(r)] = (expected_cut(truth, r, wc, w, port), r)
            if wr is not None and wr != wc:
                o = expect_orphan(r)
                o.update({"port": port, "coverage_start_ns": w[wr][0], "coverage_end_ns": None})
                exp_orphan[io_key(dict(r, C=None))] = (o, r)
        got = [g for g in out["io"] if g["obs"] == name]
        byk = {}
        for g in got:
            byk.setdefault(io_key(g), []).append(g)
        p_whole, p_cut, p_orph = [], [], []
        for dst, exp in ((p_whole, exp_whole), (p_cut, exp_cut), (p_orph, exp_orphan)):
            for k, (e, r) in sorted(exp.items(), key=lambda kv: kv[0][5]):
                gs = byk.pop(k, [])
                tag = "%s @%s io %d (%s cid %d qpn %d %s %d)" % (label, name, r["io"], r["kind"], r["cid"],
                                                              r["target_qpn"], k[4], k[5])
                if len(gs) != 1:
                    dst.append("%s: %d records, expected one (%s)" % (tag, len(gs), e["state"]))
                    continue
                g = gs[0]
                for f, v in e.items():
                    if not f.startswith("_") and g.get(f) != v:
                        dst.append("%s: %s = %r, expected %r" % (tag, f, g.get(f), v))
        for k, gs in byk.items():
            for g in gs:
                p_cut.append("%s @%s: unexpected record %s state %s t_cmd %s t_rsp %s coverage %s..%s" % (
                    label, name, k[:4], g["state"], g["t_cmd_ns"], g["t_rsp_ns"],
                    g["coverage_start_ns"], g["coverage_end_ns"]))
        res.check("poll %s @%s: I/Os inside a window exact" % (label, name), p_whole,
                  " (%d I/Os)" % len(exp_whole))
        res.check("poll %s @%s: I/Os cut by a boundary truncated at it, never complete" % (label, name),
                  p_cut, " (%d I/Os)" % len(exp_cut))
        res.check("poll %s @%s: responses whose command was not measured are orphans" % (label, name),
                  p_orph, " (%d)" % len(exp_orphan))
        n_whole += len(exp_whole)
        n_cut += len(exp_cut)
        n_orphan += len(exp_orphan)
        # flows: data packets of each (src, dst, dqpn) inside each window;
        # the library keeps READ RESPONSEs (the reverse direction's PSN
        # space) in flow records of their own, op "read_resp"
        fprobs = []
        expf = {}
        for x in truth.pkts[obs]:
            if x.get("what") != "data":
                continue
            i = tl_window_of(w, x["ts"])
            if i is None:
                continue
            k = (x["src"], x["dst"], x["dqpn"], 13 <= x["op"] <= 16, i)
            f = expf.setdefault(k, {"first_ts_ns": x["ts"], "packets": 0, "bytes": 0})
            f["last_ts_ns"] = x["ts"]
            f["packets"] += 1
            f["bytes"] += x["len"]
        gotf = {}
        for g in out["flow"]:
            if g["obs"] != name:
                continue
            i = tl_window_of(w, g["first_ts_ns"])
            k = (g["src"], g["dst"], g["dqpn"], g["op"] == "read_resp", i)
            if k in gotf:
                fprobs.append("%s @%s: two flow records for %s" % (label, name, k))
            gotf[k] = g
        ncutf = 0
        for k, f in sorted(expf.items(), key=lambda kv: (kv[0][4], kv[1]["first_ts_ns"])):
            g = gotf.pop(k, None)
            s0, e0 = w[k[4]]
            tag = "%s @%s flow %s>%s qp %d%s window %d" % (label, name, k[0], k[1], k[2],
                                                          " read_resp" if k[3] else "", k[4])
            if g is None:
                fprobs.append("%s: missing" % tag)
                continue
            f["fct_ns"] = f["last_ts_ns"] - f["first_ts_ns"]
            f["end"] = "truncated" if e0 is not None else "flush"
            f["coverage_start_ns"], f["coverage_end_ns"], f["port"] = s0, e0, port
            ncutf += e0 is not None
            for fld, v in f.items():
                if g.get(fld) != v:
                    fprobs.append("%s: %s = %r, expected %r" % (tag, fld, g.get(fld), v))
        for k, g in gotf.items():
            fprobs.append("%s @%s: unexpected flow %s" % (label, name, k))
        res.check("poll %s @%s: flows cut by a boundary end truncated at it" % (label, name), fprobs,
                  " (%d flow records, %d cut)" % (len(expf), ncutf))
    # packets of ports outside their slot are counted and dropped: only the
    # measured ones are decoded
    measured = sum(1 for name in ("A", "B") for x in truth.pkts[names[name]]
                   if tl_window_of(wins[name], x["ts"]) is not None)
    total = sum(len(truth.pkts[names[n]]) for n in ("A", "B"))
    probs = []
    if st["packets"] != total:
        probs.append("packets %d, expected %d frames" % (st["packets"], total))
    if st["unscheduled"] != total - measured:
        probs.append("unscheduled %d, expected the %d frames outside the windows" % (
            st["unscheduled"], total - measured))
    if st["roce"] != measured:
        probs.append("roce %d, expected the %d frames inside the windows" % (st["roce"], measured))
    res.check("poll %s: only frames inside their port's windows are decoded" % label, probs,
              " (%d of %d; %d I/Os whole, %d cut, %d orphans)" % (measured, total, n_whole, n_cut, n_orphan))


# ---------------------------------------------------------------- library (C)

IOFEED_C = r"""
/* iofeed - hands the frames of nanosecond pcaps to a librocetel context
 * and prints its I/O and segment records and counters as JSON lines
 * (tests/truth/ios.py). Usage:
 *   iofeed [--max-ios N] [--io-timeout NS] [--live] FILE:OFFSET_NS...
 * Each FILE is an observation point (obs = its index, port = obs). By
 * default the frames are handed over in timestamp order (as rtel-analyze
 * does); with --live in the order of their true time, timestamp - OFFSET,
 * as a collector receiving the mirrors as they happen would, and the timers
 * are run with each packet's own timestamp. A counting allocator checks
 * that nothing is allocated after rtel_ctx_new(). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rocetel/rocetel.h>

typedef struct frame {
  uint64_t ts, key;
  uint32_t obs, caplen, len;
  const uint8_t *data;
} frame;

static uint64_t n_alloc, n_bytes, peak_bytes, after_new;
static int created;

static void *c_malloc(size_t n, void *u) {
  size_t *p = malloc(n + 16);
  (void)u;
  if (!p) return NULL;
  p[0] = n;
  n_alloc++;
  n_bytes += n;
  if (n_bytes > peak_bytes) peak_bytes = n_bytes;
  if (created) after_new++;
  return (char *)p + 16;
}
static void c_free(void *ptr, void *u) {
  size_t *p;
  (void)u;
  if (!ptr) return;
  p = (size_t *)(void *)((char *)ptr - 16);
  n_bytes -= p[0];
  free(p);
}
static void *c_calloc(size_t m, size_t n, void *u) {
  void *p = c_malloc(m * n, u);
  if (p) memset(p, 0, m * n);
  return p;
}
static void *c_realloc(void *ptr, size_t n, void *u) {
  void *q = c_malloc(n, u);
  if (q && ptr) {
    size_t old = ((size_t *)(void *)((char *)ptr - 16))[0];
    memcpy(q, ptr, old < n ? old : n);
    c_free(ptr, u);
  }
  return q;
}

static void ip(char *b, const uint8_t *a) {
  sprintf(b, "%u.%u.%u.%u", a[12], a[13], a[14], a[15]);
}
static void ts(const char *k, uint64_t v) {
  if (v == RTEL_TSTAMP_NONE) printf(",\"%s\":null", k);
  else printf(",\"%s\":%" PRIu64, k, v);
}
static void du(const char *k, int64_t v) {
  if (v == RTEL_DURATION_NONE) printf(",\"%s\":null", k);
  else printf(",\"%s\":%" PRId64, k, v);
}

static int on_io(rtel_ctx *ctx, const rtel_io_record *r, void *u) {
  char h[32], t[32];
  (void)ctx; (void)u;
  ip(h, r->host);
  ip(t, r->target);
  printf("{\"type\":\"io\",\"obs\":%u,\"host\":\"%s\",\"target\":\"%s\",\"target_qpn\":%u,"
         "\"cid\":%u,\"opcode\":%u,\"state\":%u,\"nvme_status\":%u,\"bytes\":%" PRIu64
         ",\"flags\":%u",
         r->obs, h, t, r->target_qpn, r->cid, r->opcode, r->state, r->nvme_status, r->bytes,
         r->flags);
  ts("t_cmd_ns", r->t_cmd);
  ts("t_rsp_ns", r->t_rsp);
  ts("t_data_first_ns", r->t_data_first);
  ts("t_data_last_ns", r->t_data_last);
  ts("t_rdreq_ns", r->t_rdreq);
  du("iol_ns", r->iol);
  du("dal_ns", r->dal);
  du("dpl_ns", r->dpl);
  du("xfer_ns", r->xfer);
  printf("}\n");
  return 0;
}

static int on_segment(rtel_ctx *ctx, const rtel_segment_record *s, void *u) {
  (void)ctx; (void)u;
  printf("{\"type\":\"segments\",\"compute_obs\":%u,\"storage_obs\":%u,\"target_qpn\":%u,"
         "\"cid\":%u,\"opcode\":%u,\"slba\":%" PRIu64 ",\"bytes\":%" PRIu64
         ",\"iol1_ns\":%" PRId64 ",\"iol2_ns\":%" PRId64 ",\"rtt_ns\":%" PRId64
         ",\"compute_ns\":%" PRId64 ",\"network_ns\":%" PRId64 ",\"storage_ns\":%" PRId64 "}\n",
         s->compute_obs, s->storage_obs, s->target_qpn, s->cid, s->opcode, s->slba, s->bytes,
         s->iol1, s->iol2, s->rtt, s->compute, s->network, s->storage);
  return 0;
}

static int cmp(const void *a, const void *b) {
  const frame *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  if (x->obs != y->obs) return x->obs < y->obs ? -1 : 1;
  return x->data < y->data ? -1 : x->data > y->data;
}

int main(int argc, char **argv) {
  rtel_settings st;
  rtel_callbacks cb;
  rtel_mem mem = {NULL, c_malloc, c_free, c_calloc, c_realloc};
  rtel_ctx *ctx = NULL;
  rtel_ctx_stats s;
  frame *fr = NULL;
  size_t nfr = 0, cap = 0, i;
  uint64_t last = 0;
  int live = 0, a, rv, nobs = 0;

  rtel_settings_default(&st);
  for (a = 1; a < argc; a++) {
    if (!strcmp(argv[a], "--max-ios") && a + 1 < argc) {
      st.max_ios = (uint32_t)strtoul(argv[++a], NULL, 10);
    } else if (!strcmp(argv[a], "--io-timeout") && a + 1 < argc) {
      st.io_timeout = strtoull(argv[++a], NULL, 10);
    } else if (!strcmp(argv[a], "--live")) {
      live = 1;
    } else {
      char *colon = strrchr(argv[a], ':');
      long long off = colon ? strtoll(colon + 1, NULL, 10) : 0;
      FILE *f;
      long sz;
      uint8_t *buf;
      size_t o = 24;
      if (colon) *colon = '\0';
      f = fopen(argv[a], "rb");
      if (!f || fseek(f, 0, SEEK_END) || (sz = ftell(f)) < 24 || fseek(f, 0, SEEK_SET)) {
        fprintf(stderr, "iofeed: %s: cannot read\n", argv[a]);
        return 1;
      }
      buf = malloc((size_t)sz);
      if (!buf || fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
        fprintf(stderr, "iofeed: %s: cannot read\n", argv[a]);
        return 1;
      }
      fclose(f);
      if (buf[0] != 0x4d || buf[1] != 0x3c || buf[2] != 0xb2 || buf[3] != 0xa1) {
        fprintf(stderr, "iofeed: %s: not a nanosecond little-endian pcap\n", argv[a]);
        return 1;
      }
      while (o + 16 <= (size_t)sz) {
        uint32_t h[4];
        memcpy(h, buf + o, 16);
        if (o + 16 + h[2] > (size_t)sz) break;
        if (nfr == cap) {
          cap = cap ? cap * 2 : 65536;
          fr = realloc(fr, cap * sizeof(*fr));
          if (!fr) return 1;
        }
        fr[nfr].ts = (uint64_t)h[0] * 1000000000u + h[1];
        fr[nfr].key = live ? (uint64_t)((long long)fr[nfr].ts - off) : fr[nfr].ts;
        fr[nfr].obs = (uint32_t)nobs;
        fr[nfr].caplen = h[2];
        fr[nfr].len = h[3];
        fr[nfr].data = buf + o + 16;
        nfr++;
        o += 16 + h[2];
      }
      nobs++;
    }
  }
  qsort(fr, nfr, sizeof(*fr), cmp);
  memset(&cb, 0, sizeof(cb));
  cb.on_io = on_io;
  cb.on_segment = on_segment;
  if ((rv = rtel_ctx_new(&ctx, &st, &cb, &mem, NULL)) != 0) {
    fprintf(stderr, "iofeed: rtel_ctx_new: %s\n", rtel_strerror(rv));
    return 1;
  }
  created = 1;
  {
    uint64_t setup = peak_bytes;
    for (i = 0; i < nfr; i++) {
      rtel_pkt_info pi;
      memset(&pi, 0, sizeof(pi));
      pi.ts = fr[i].ts;
      pi.wire_len = fr[i].len;
      pi.obs = fr[i].obs;
      pi.port = fr[i].obs;
      if (pi.ts > last) last = pi.ts;
      if (rtel_ctx_get_expiry(ctx) <= pi.ts &&
          (rv = rtel_ctx_handle_expiry(ctx, pi.ts)) != 0) {
        fprintf(stderr, "iofeed: expiry: %s\n", rtel_strerror(rv));
        return 1;
      }
      if ((rv = rtel_ctx_read_pkt(ctx, &pi, fr[i].data, fr[i].caplen)) != 0) {
        fprintf(stderr, "iofeed: frame %zu: %s\n", i, rtel_strerror(rv));
        return 1;
      }
    }
    if ((rv = rtel_ctx_flush(ctx, last)) != 0) {
      fprintf(stderr, "iofeed: flush: %s\n", rtel_strerror(rv));
      return 1;
    }
    if (rtel_ctx_get_stats(ctx, &s) != 0) return 1;
    printf("{\"type\":\"stats\",\"ios_complete\":%" PRIu64 ",\"ios_timeout\":%" PRIu64
           ",\"ios_orphan\":%" PRIu64 ",\"ios_evicted\":%" PRIu64 ",\"ios_untracked\":%" PRIu64
           ",\"segments\":%" PRIu64 ",\"io_join_unmatched\":%" PRIu64
           ",\"alloc_after_new\":%" PRIu64 ",\"bytes_at_setup\":%" PRIu64
           ",\"peak_bytes\":%" PRIu64 ",\"frames\":%zu}\n",
           s.ios_complete, s.ios_timeout, s.ios_orphan, s.ios_evicted, s.ios_untracked,
           s.segments, s.io_join_unmatched, after_new, setup, peak_bytes, nfr);
  }
  rtel_ctx_del(ctx);
  return 0;
}

"""


def build_iofeed(work):
    """Compiles the iofeed program against the built library; returns its
    path, or (None, why)."""
    top = os.environ.get("top_builddir")
    src = os.environ.get("top_srcdir", os.path.join(HERE, "..", ".."))
    if not top:
        ana = os.environ.get("RTEL_ANALYZE", "")
        top = os.path.dirname(os.path.dirname(os.path.abspath(ana))) if ana else "."
    libdir = os.path.join(top, "lib", ".libs")
    if not os.path.exists(os.path.join(libdir, "librocetel.so")) and \
            not os.path.exists(os.path.join(libdir, "librocetel.dylib")):
        return None, "no shared library in %s" % libdir
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        return None, "no C compiler"
    path = os.path.join(work, "iofeed.c")
    with open(path, "w") as f:
        f.write(IOFEED_C)
    exe = os.path.join(work, "iofeed")
    # a library built with sanitizers needs them in the program too
    # (tests/run-all.sh exports the flags of its sanitizer build)
    san = os.environ.get("RTEL_SAN_FLAGS", "").split()
    cmd = cc.split() + san + ["-std=c99", "-O1", "-I", os.path.join(src, "include"), "-I",
                              os.path.join(top, "include"), path, "-L", libdir, "-lrocetel",
                              "-Wl,-rpath," + os.path.abspath(libdir), "-o", exe]
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True)
    except OSError as e:
        return None, "%s: %s" % (cc, e)
    if r.returncode != 0:
        return None, "%s: %s" % (" ".join(cmd), r.stderr.strip()[:500])
    return exe, None


def run_iofeed(exe, args):
    # iofeed keeps its input buffers to the end (a test tool): under the
    # sanitizer build, leak checking is for the library, not for it
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":")
    r = subprocess.run([exe] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, env=env)
    if r.returncode != 0:
        raise RuntimeError("iofeed %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()))
    out = collections.defaultdict(list)
    for line in r.stdout.splitlines():
        rec = json.loads(line)
        out[rec["type"]].append(rec)
    return out


STATE = {1: "complete", 2: "timeout", 3: "orphan", 4: "evicted", 5: "truncated"}


def flood(res, exe, truth, max_ios):
    """Commands that are never answered, into an I/O table of |max_ios|:
    the model of the documented rules (a command that finds the table full
    ends the oldest outstanding I/O "evicted" and counts in ios_untracked; a
    response whose I/O is gone is an orphan; what is left at the end is
    truncated) against the library, record by record; no allocation after
    rtel_ctx_new()."""
    obs = truth.obs[0]
    label = "flood %s @%s max_ios %d" % (truth.label, obs, max_ios)
    out = run_iofeed(exe, ["--max-ios", str(max_ios), "%s:0" % truth.files[obs]])
    # the model: commands and responses in frame order
    ev = []
    for r in truth.ios_at(obs):
        if r["C"] is not None:
            ev.append((cmd_first_frame(truth, r), "C", r))
        if r["R"] is not None:
            ev.append((rsp_first_frame(truth, r), "R", r))
    ev.sort(key=lambda x: x[0])
    table = collections.OrderedDict()
    want = []
    untracked = 0
    for _, what, r in ev:
        if what == "C":
            if len(table) == max_ios:
                old = table.popitem(last=False)[1]
                want.append(("evicted", old["target_qpn"], old["cid"], old["C"], None))
                untracked += 1
            table[r["io"]] = r
        else:
            if r["io"] in table:
                del table[r["io"]]
                want.append(("complete", r["target_qpn"], r["cid"], r["C"], r["R"]))
            else:
                want.append(("orphan", r["target_qpn"], r["cid"], None, r["R"]))
    for r in table.values():
        want.append(("truncated", r["target_qpn"], r["cid"], r["C"], None))
    got = [(STATE[g["state"]], g["target_qpn"], g["cid"], g["t_cmd_ns"], g["t_rsp_ns"]) for g in out["io"]]
    probs = []
    wc, gc = collections.Counter(want), collections.Counter(got)
    for k in sorted(set(wc) | set(gc), key=str):
        if wc[k] != gc[k]:
            probs.append("%s: %s qpn %d cid %d C %s R %s: %d records, expected %d" % (
                label, k[0], k[1], k[2], k[3], k[4], gc[k], wc[k]))
    n = collections.Counter(x[0] for x in want)
    res.check("%s: records as the rules say" % label, probs, " (%s)" % ", ".join(
        "%s %d" % kv for kv in sorted(n.items())))
    st = out["stats"][0]
    probs = []
    if st["ios_untracked"] != untracked:
        probs.append("ios_untracked %d, expected %d (commands that found the table full)" % (
            st["ios_untracked"], untracked))
    for k in ("complete", "orphan", "evicted"):
        if st["ios_" + k] != n[k]:
            probs.append("ios_%s %d, but %d %s records were delivered" % (k, st["ios_" + k], n[k], k))
    res.check("%s: ios_untracked and ios_* count the records" % label, probs)
    probs = []
    if st["alloc_after_new"]:
        probs.append("%d allocations after rtel_ctx_new()" % st["alloc_after_new"])
    if st["peak_bytes"] != st["bytes_at_setup"]:
        probs.append("peak %d bytes, %d at setup" % (st["peak_bytes"], st["bytes_at_setup"]))
    res.check("%s: memory stays at its setup size (%d bytes)" % (label, st["bytes_at_setup"]), probs)
    return st["bytes_at_setup"]


def invalidate_flag(res, exe, truth):
    """RTEL_IO_F_INVALIDATE (0x10) on exactly the I/Os whose response came
    as SEND with Invalidate (opcode 0x17) at the point; the JSON of
    rtel-analyze does not show the flag, so the library is asked directly."""
    obs = truth.obs[0]
    out = run_iofeed(exe, ["%s:0" % truth.files[obs]])
    want = {}
    for r in truth.ios_at(obs):
        if r["C"] is not None and r["R"] is not None:
            ps = [p for p in truth.rsp_pkts[(r["io"], obs)] if p["ts"] == r["R"]]
            want[(r["target_qpn"], r["cid"], r["C"])] = ps[0]["op"] == 0x17
    probs = []
    for g in out["io"]:
        k = (g["target_qpn"], g["cid"], g["t_cmd_ns"])
        if k in want and bool(g["flags"] & 0x10) != want.pop(k):
            probs.append("qpn %d cid %d C %d: flags %#x, response %s SEND with Invalidate" % (
                k[0], k[1], k[2], g["flags"], "is" if not g["flags"] & 0x10 else "is not"))
    probs += ["qpn %d cid %d C %d: no record" % k for k in want]
    n = sum(1 for g in out["io"] if g["flags"] & 0x10)
    res.check("invalidate %s @%s: RTEL_IO_F_INVALIDATE exactly on SEND with Invalidate responses" % (
        truth.label, obs), probs, " (%d flagged)" % n)


def live_order(res, exe, truth, offsets):
    """The two points' frames handed over in true-time order, as a live
    collector receives them, with clocks |offsets| apart: every point's I/Os
    exact and every I/O seen complete at both joined (rtel-metrics(7):
    clocks of different points are never compared)."""
    a, b = truth.obs[0], truth.obs[1]
    label = "live %s" % truth.label
    args = ["--live"] + ["%s:%d" % (truth.files[o], offsets[o]) for o in (a, b)]
    out = run_iofeed(exe, args)
    probs = []
    for i, o in enumerate((a, b)):
        exp = expected_ios(truth, o, NS_PER_S * 5, truth.last_ts[o])
        have = collections.Counter((g["target_qpn"], g["cid"], STATE[g["state"]], g["t_cmd_ns"], g["t_rsp_ns"])
                                   for g in out["io"] if g["obs"] == i)
        want = collections.Counter((e["target_qpn"], e["cid"], e["state"], e["t_cmd_ns"], e["t_rsp_ns"])
                                   for e, _ in exp.values())
        bad = sorted((k for k in set(have) | set(want) if have[k] != want[k]),
                     key=lambda k: (k[3] or k[4], k[2]))
        explained = set()
        for k in bad:
            if want[k] > have[k] and k[2] == "complete":
                tmo = (k[0], k[1], "timeout", k[3], None)
                orph = (k[0], k[1], "orphan", None, k[4])
                if have[tmo] > want[tmo] and have[orph] > want[orph]:
                    explained |= {tmo, orph}
                    probs.append("%s @%s: qpn %d cid %d C %d R %d (IOL %d): reported timeout "
                                 "at C and its response an orphan, expected complete" % (
                                     label, o, k[0], k[1], k[3], k[4], k[4] - k[3]))
                    continue
            if k not in explained:
                probs.append("%s @%s: qpn %d cid %d %s C %s R %s: %d records, expected %d" % (
                    label, o, k[0], k[1], k[2], k[3], k[4], have[k], want[k]))
    res.check("%s: I/O states with clocks %s apart, frames in true-time order" % (
        label, "/".join("%s@%+dns" % kv for kv in sorted(offsets.items()))), probs)
    nseg = len(expected_segments(truth, a, b))
    got = len(out["segments"])
    res.check("%s: I/Os joined across the two points" % label,
              [] if got == nseg else ["%d segments, expected %d (io_join_unmatched %d)" % (
                  got, nseg, out["stats"][0]["io_join_unmatched"])], " (%d)" % nseg)


# ---------------------------------------------------------------- main


def guarded(res, name, fn, *args):
    """Runs one group of checks; an exception (a tool that crashed or
    printed something unreadable) is one failed check, not the end."""
    try:
        return fn(*args)
    except Exception as e:  # noqa: BLE001 - reported as a failure
        res.check("%s: ran" % name, ["%s: %s" % (type(e).__name__, e)])
        return None


def main():
    res = Results()
    tools = Tools(None)
    if not tools.sim or not tools.analyze:
        print("rtel-sim or rtel-analyze not found (RTEL_SIM, RTEL_ANALYZE): skipped")
        return SKIP
    work = tools.work = tl_tmpdir("ios")
    only = sys.argv[1:]
    try:
        exe, why = build_iofeed(work)
        if not exe:
            print("note: the checks through the library's C API (SEND with Invalidate flag, "
                  "true-time order, flood) are skipped: %s" % why)
        plan = [("nvme-read", 1), ("nvme-write", 1), ("nvme-incapsule", 1), ("nvme-flush", 1),
                ("nvme-qd32", 1), ("nvme-send-inv", 1), ("nvme-errors", 1),
                ("nvme-multipacket", 1), ("nvme-retx", 1), ("nvme-retx", 2),
                # data lost before both points: MIDDLE/LAST without their FIRST
                ("nvme-retx", 1, "--loss-where", "before"),
                ("nvme-lost-rsp", 1), ("nvme-lost-rsp", 2),
                ("nvme-midstream", 1), ("nvme-midstream", 2), ("nvme-midstream", 4),
                # flushes and reads on 8 mid-stream queues: only ACK PSNs
                # pair the queues before their first completions
                ("nvme-midstream", 1, "--io-queues", "8", "--mix", "50,0,50"),
                # READ REQUESTs of untracked writes interleaved with those of
                # captured commands (issue 10); PMTU 1024: 4 KiB writes take
                # four READ RESPONSEs too
                ("nvme-midstream-rreq", 1), ("nvme-midstream-rreq", 2),
                ("nvme-midstream-rreq", 3, "--pmtu", "1024"),
                ("nvme-two-obs", 1), ("mixed", 1)]
        for sc, seed, *extra in plan:
            if only and sc not in only:
                continue
            name = " ".join([sc, "seed", str(seed)] + extra)
            truth = guarded(res, "simulate %s" % name, tools.simulate, sc, seed, *extra)
            if truth is None:
                continue
            guarded(res, "ios %s" % name, per_point, res, tools, truth)
            if sc in ("nvme-two-obs", "nvme-write", "mixed"):
                guarded(res, "segments %s" % name, segments, res, tools, truth, "h0", "t0")
            if sc == "nvme-two-obs":
                guarded(res, "poll %s" % name, polling, res, tools, truth, "h0", "t0")
            if sc in ("nvme-read", "nvme-midstream"):
                guarded(res, "no-flows %s" % name, no_flows, res, tools, truth)
            if sc == "nvme-send-inv" and exe:
                guarded(res, "invalidate %s" % name, invalidate_flag, res, exe, truth)
        # flushes reuse their CIDs with SLBA 0 and length 0: with one clock
        # 1 ms ahead, several I/Os of the same join key wait at once
        if not only or "nvme-flush" in only:
            truth = guarded(res, "simulate flush skew", tools.simulate, "nvme-flush", 1,
                            "--obs", "h0,t0@+1ms")
            if truth is not None:
                guarded(res, "segments flush skew", segments, res, tools, truth, "h0", "t0")
        # clocks apart: the same I/Os, through rtel-analyze (frames merged
        # by timestamp) and handed over in true-time order. One context's
        # timers compare record times with one |now|: its points' clocks
        # must agree within a small part of the timeouts (documented in
        # rtel_ctx_handle_expiry); 3 ms either way is well inside 5 s.
        if not only or "clocks" in only:
            truth = guarded(res, "simulate clocks", tools.simulate, "nvme-two-obs", 1,
                            "--obs", "h0@-3ms,t0@+3ms")
            if truth is not None:
                guarded(res, "ios clocks", per_point, res, tools, truth)
                guarded(res, "segments clocks", segments, res, tools, truth, "h0", "t0")
                if exe:
                    guarded(res, "live clocks", live_order, res, exe, truth,
                            {o["name"]: o["offset_ns"] for o in truth.meta["obs"]})
        # a flood of commands that are never answered
        if not only or "flood" in only:
            truth = guarded(res, "simulate flood", tools.simulate, "nvme-lost-rsp", 1, "--stall", "1",
                            "--loss", "0", "--qd", "128", "--io-queues", "16", "--ios", "2048",
                            "--io-timeout", "1us")
            if truth is not None:
                guarded(res, "ios flood", per_point, res, tools, truth, [truth.obs[0]])
                if exe:
                    guarded(res, "flood", flood, res, exe, truth, 100)
    finally:
        if not os.environ.get("RTEL_KEEP"):
            tl_rmtree(work)
        else:
            print("kept %s" % work)
    print("%d passed, %d failed" % (res.passed, res.failed))
    return 1 if res.failed else 0


if __name__ == "__main__":
    sys.exit(main())
