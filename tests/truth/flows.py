#!/usr/bin/env python3
"""tests/truth/flows.py - the flow and message records of rtel-analyze
against the ground truth of rtel-sim (issue #4).

For each scenario and seed (CASES), rtel-sim writes one pcap per observation
point and truth.jsonl. Each pcap is analysed on its own (one file: obs = its
name) with --flows --messages --stats --format json and an idle timeout of an
hour (longer than any trace, as the truth's flow_idle_ns 0 means one record
per key), and the records are joined with the truth by (obs, src, dst, dqpn)
and compared exactly. Addresses are compared in RFC 5952 form (the truth
writes IPv6 uncompressed). What is compared, from what, and why
(rtel-metrics(7), "THROUGHPUT FIGURES"):

* Parts. The library reports READ RESPONSE data as a flow of its own (op
  "read_resp") beside the SEND/WRITE data of the same key; the truth's flow
  record holds both, with separate PSN tracking. So every per-packet figure
  is derived per part from the truth's pkt records of the point, and the
  parts are checked to add up to the truth's flow record (which checks the
  simulator): packets, bytes, first/last timestamp, fct, retx packets and
  bytes (PSN not after the highest seen, 24-bit serial), fet_bps =
  floor(sum over the new data packets but the first of (wire + 24) * 8e9 /
  fct), "wire" the frame length of the truth's pkt record (FET on the wire,
  rtel-metrics(7)), ecn_ce, fecn, op, sport (the connection's), dscp (26),
  vlan, end ("flush": nothing split).
* Reverse direction. naks_seq, naks_rnr, naks_fatal, fnr: the truth's flow
  record, on the SEND/WRITE part (NAKs answer the requester's stream; a
  READ RESPONSE part has none), when the peer is known (else fnr must be
  null). NAKs of a requester that sends no data at the point (READ REQUESTs
  only) have no flow: stats ctrl_unattributed must count them. cnps and becn
  on the sum of the parts (a CNP goes to the READ RESPONSE part when the
  key has no other). BECN: the truth counts the ACKs/NAKs that carry BECN
  back to the data sender - the backward notification of congestion on the
  flow's path, like the CNPs the flow is charged with; a BECN bit on the
  flow's own data packets would speak of the reverse path. rtel-metrics(7)
  counts BECN on the ACKs/NAKs coming back; this test holds the flow's BECN
  to be the truth's.
* peer_qpn: the sender's QPN (truth). With CM it must be known; a known peer
  must never be wrong (no false pairs: rdma-many-qps, and rdma-many-qps
  without CM and with --psn-wrap, where 64 QPs between the same two hosts
  use overlapping PSNs). Without CM it may stay unknown only when fewer than
  two ACKs seen at the point name a PSN of the flow that no other flow of
  the same two addresses used.
* psn_gaps: a new data packet that skips at least one PSN carrying data of
  its part (PSNs of READ REQUESTs, or of the other part, are no missing data).
* Loss events and the cause of retransmissions, the library's own notions,
  derived from the truth's retx_start/pkt/loss records:
    - one loss event per go-back-N restart of the sender (retx_start) whose
      resent data reached the point as retransmissions (PSN not after the
      highest seen): the sender resends in rising PSNs, so at the point an
      event begins with a retransmission that follows new data, or whose PSN
      is not after the previous packet's, or that is the first PSN of a
      restart of the sender made past a resend in progress (the simulator
      stamps every resent packet with the cause of its restart; notes name
      an event without a restart of the sender before it);
    - upstream when the copy sent before the first of those packets (the
      transmission whose loss it repairs) never reached this point (a loss
      record naming the point in missed_by), downstream otherwise. So a lost
      retransmission that never reached the point makes an upstream loss,
      even though the point saw the first copy of that PSN;
    - NAK-driven when a PSN sequence error NAK or an RNR NAK of the flow
      was seen at the point since the previous event began, timeout-driven
      otherwise ("implied NAKs" of READ responses have no NAK packet: timeout
      as rtel-metrics(7) defines it); retx_after_nak / retx_after_rnr /
      retx_after_timeout count the retransmitted packets of each kind (the
      latest NAK names the kind: sequence error or RNR);
    - lost_upstream: the resent packets whose latest earlier copy was lost
      before this point (a loss record naming the point in missed_by, later
      than any copy seen here).
  A duplicate mirror copy (truth "dup") is a retransmission by the PSN rule
  of rtel-metrics(7) (the truth counts it in retx_pkts too) but no loss
  event; its cause is that of the packet it copies (a copy of a new packet:
  timeout).
* Messages (rtel_msg_record(3): every data packet in the message's PSN
  range, resends included, until its record is delivered): each truth msg
  record seen at the point (a READ's packets are its responses) against the
  library's message record whose first PSN lies in its range, every figure
  exact, from the truth's msg record and the pkt and loss records of the
  point: packets, bytes, first/last timestamp, fct, retx packets and bytes
  (PSN rule of its part), first/last PSN seen, complete (its first and last
  PSN seen), reth_len, lost_upstream, the loss events that began with one of
  its packets (upstream/downstream; NAK, RNR, timeout), fet_bps over its own
  packets, and with CM (paired from the start) its NAKs (PSN in its range,
  after its first packet here). With CM the delivery rule is applied to the
  truth's ACK/NAK records of the point (the first ACK at or past its last
  PSN, or sequence-error/RNR NAK after it): its packets after that are not
  in the record but in the flow's orphan_packets, compared per flow.
  Without CM the pairing moment is the library's, so a message resent after
  an ACK that covered it is not compared (noted). The simulator's msg
  record must agree with its pkt records; every library message record
  must be a truth message, and a flow's "messages" must equal its message
  records. The number of messages compared is printed per case.

The flood: rtel-sim --scenario rdma-flood (20000 QPs) with the four spine
ports as points besides h0 (34484 flows, 17 times the table), frames cut to
512 bytes by the capture (the pcap keeps the original length, so figures do
not change; CM MADs stay whole; files stay small), analysed in one run with
--max-flows 2000: exit 0; stats flows_evicted equal to the evicted records;
every flow created reported once; every flow key of the truth reported, and
packets and bytes adding up over its records; the flows never evicted, and
those evicted once after their last packet, exact (a peer QP may be unknown:
the pair table is bounded too, noted); and the maximum RSS (GNU time -v) at
most the RSS of the same run on 40 QPs plus a quarter of what the flows
beyond the capacity would cost if the table grew (entry size from the
declarations in lib/rtel_flow.c and lib/rtel_table.h).

FET at line rate ("fet"): rtel-sim with one QP, one message outstanding, no
loss and no jitter at 10, 25, 100 and 400 Gb/s, messages of 4, 16 and 256
packets: every message record's fet_bps within 1% of the line rate.

Prints one line per failed check, notes, then "N passed, M failed"; exits 1
on any failure, 77 when rtel-sim or rtel-analyze is missing. Arguments, if
any, restrict the run to those scenarios.
"""
import collections
import ipaddress
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import truthlib as tl  # noqa: E402

PSN_MASK = 0xFFFFFF
FLOW_IDLE = "3600000000000"  # 1 h: no trace is that long
RESP_OPS = (13, 14, 15, 16)  # RC RDMA READ RESPONSE FIRST/MIDDLE/LAST/ONLY

# (scenario, seeds, extra options, what it covers)
CASES = [
    ("rdma-clean", (1, 2), (), "no loss, 3 points, 4 hosts"),
    ("rdma-loss-before", (1, 2, 3), (), "losses upstream of every point"),
    ("rdma-loss-after", (1, 2, 3), (), "losses downstream of every point"),
    ("rdma-loss-between", (1, 2, 3), (), "losses between the points"),
    ("rdma-rnr", (1, 2), (), "RNR NAKs"),
    ("rdma-timeout", (1, 2), (), "timeout retransmissions"),
    ("rdma-psn-wrap", (1, 2), (), "PSN wrap"),
    ("rdma-ecn", (1, 2), (), "ECN, FECN, BECN, CNPs"),
    ("rdma-no-cm", (1, 2), (), "no CM: pairing from ACK PSNs"),
    ("rdma-many-qps", (1,), (), "64 QPs between two hosts"),
    ("rdma-many-qps", (2,), ("--no-cm", "--psn-wrap"),
     "64 QPs between two hosts, no CM: no false pairs"),
    ("rdma-truncated", (1, 2), (), "mirror copies cut to 128 bytes"),
    ("rdma-loss-between", (4,), ("--dup-rate", "0.01"),
     "duplicate mirror copies, whole frames"),
    ("rdma-loss-between", (5,), ("--loss", "0.01"),
     "1% loss between the points: lost retransmissions"),
    ("rdma-read", (1, 2), (), "READ responses, implied NAKs"),
    ("rdma-read", (4,), ("--loss", "0.01"), "READ responses, 1% loss"),
    ("rdma-ops-mix", (1, 2), (), "all operations on each QP"),
    ("rdma-ops-mix", (3,), ("--loss", "0.005"), "all operations, 0.5% loss"),
    ("rdma-erspan2", (1,), (), "ERSPAN II, cut to 160 bytes"),
    ("rdma-erspan3", (1,), (), "ERSPAN III"),
    ("rdma-ipv6-vlan", (1, 2), (), "IPv6 and VLAN"),
]


def canon_ip(a):
    """RFC 5952 text of an address (the truth writes IPv6 uncompressed)."""
    return str(ipaddress.ip_address(a)) if a is not None else a


def canon(r, names=("src", "dst", "a", "b")):
    for n in names:
        if n in r:
            r[n] = canon_ip(r[n])
    return r


def psn_diff(a, b):
    d = (a - b) & PSN_MASK
    return d - 0x1000000 if d & 0x800000 else d


ETH_OVERHEAD = 24  # FCS 4, preamble and SFD 8, inter-frame gap 12


def fet(wire_bytes, fct):
    """FET on the wire (rtel-metrics(7)): the bytes on the link of the new
    data packets but the first (the truth's "wire" frame length + 24 each),
    * 8e9 / fct, cut to an integer."""
    return int(float(wire_bytes) * 8e9 / float(fct)) if fct else 0


def ratio9(num, den):
    # the analyzer prints ratios with %.9g
    return float("%.9g" % (float(num) / float(den))) if den else 0.0


def cause_class(c):
    return "nak" if c in ("nak", "rnr") else "timeout"


class Results:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.notes = []

    def ok(self, cond, what, detail=""):
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL %s%s" % (what, (": " + detail) if detail else ""))
            sys.stdout.flush()
        return cond


# ---------------------------------------------------------------- truth


class Truth:
    """truth.jsonl of one run, indexed."""

    def __init__(self, path):
        self.meta = None
        self.conns = {}
        self.pkts = collections.defaultdict(list)  # obs -> [pkt]
        self.losses = []
        self.rewinds = collections.defaultdict(list)  # (conn, dir) -> [r]
        self.msgs = []
        self.flows = collections.defaultdict(list)  # obs -> [flow]
        for r in tl.tl_load_jsonl(path):
            t = r["type"]
            canon(r)
            if t == "pkt":
                self.pkts[r["obs"]].append(r)
            elif t == "loss":
                self.losses.append(r)
            elif t == "retx_start":
                self.rewinds[(r["conn"], r["dir"])].append(r)
            elif t == "msg":
                self.msgs.append(r)
            elif t == "flow":
                self.flows[r["obs"]].append(r)
            elif t == "conn":
                self.conns[r["conn"]] = r
            elif t == "meta":
                self.meta = r
        for v in self.pkts.values():
            v.sort(key=lambda p: p["frame"])
        for v in self.rewinds.values():
            v.sort(key=lambda r: r["t"])
        self.offset = dict((o["name"], o["offset_ns"]) for o in self.meta["obs"])
        self.epoch = self.meta["epoch_ns"]

    def true_t(self, obs, ts):
        return ts - self.epoch - self.offset[obs]


def op_name(op):
    if op in RESP_OPS:
        return "read_resp"
    return "write" if 6 <= op <= 11 else "send"


def part_of(op):
    return "resp" if op in RESP_OPS else "req"


class Part:
    """One part (SEND/WRITE "req" or READ RESPONSE "resp") of one flow key at
    one point, from the truth's pkt records."""

    def __init__(self, key, part):
        self.key = key
        self.part = part
        self.pkts = []  # data packets in capture order, dups included
        self.conn = None
        self.dir = None


def build_parts(truth, obs):
    parts = collections.OrderedDict()
    for p in truth.pkts.get(obs, ()):
        if p["what"] != "data":
            continue
        k = (p["src"], p["dst"], p["dqpn"], part_of(p["op"]))
        pt = parts.get(k)
        if pt is None:
            pt = parts[k] = Part(k[:3], k[3])
            pt.conn, pt.dir = p["conn"], p["dir"]
        pt.pkts.append(p)
    return parts


def data_psns(truth):
    """(conn, data dir, part) -> set of PSNs that carry data of that part."""
    out = collections.defaultdict(set)
    for m in truth.msgs:
        if m["op"] == "read":
            k = (m["conn"], m["dir"] ^ 1, "resp")
        else:
            k = (m["conn"], m["dir"], "req")
        s = out[k]
        for i in range(m["npkts"]):
            s.add((m["psn0"] + i) & PSN_MASK)
    return out


def derive(truth, obs, pt, dpsn):
    """The library's figures for part |pt| at |obs|, derived from the truth.
    Returns (figures, notes): notes name what the derivation could not place
    (printed, they are not failures)."""
    f = dict(packets=0, bytes=0, retx_packets=0, retx_bytes=0, ecn_ce=0,
             fecn=0, becn_data=0, psn_gaps=0, losses_upstream=0,
             losses_downstream=0, retx_after_nak=0, retx_after_timeout=0,
             retx_after_rnr=0, lost_upstream=0)
    wire = 0  # bytes on the link of the new packets but the first
    pinfo = {}  # frame -> dict(retx, lost_up, wire) of each data packet
    first = last = None
    hi = None
    data_set = dpsn.get((pt.conn, pt.dir, pt.part), set())
    # the requester whose restarts resend this part's data
    rdir = pt.dir if pt.part == "req" else pt.dir ^ 1
    rewinds = truth.rewinds.get((pt.conn, rdir), [])
    # NAKs of the flow seen here (reverse direction, SEND/WRITE part only:
    # NAKs answer the requester's stream, not READ responses)
    naks = []  # (frame, "nak" or "rnr")
    if pt.part == "req":
        for p in truth.pkts.get(obs, ()):
            if (p["conn"] == pt.conn and p["dir"] == pt.dir ^ 1 and
                    (p["what"] == "rnr_nak" or
                     (p["what"] == "nak" and p.get("syndrome") == 0x60))):
                naks.append((p["frame"], "rnr" if p["what"] == "rnr_nak" else "nak"))
    # losses of this part's data before this point, by PSN
    lost_before = collections.defaultdict(list)
    for L in truth.losses:
        if (L["conn"] == pt.conn and L["dir"] == pt.dir and
                L["what"] == "data" and part_of(L["op"]) == pt.part and
                obs in L["missed_by"]):
            lost_before[L["psn"]].append(L["t"])
    seen_at = collections.defaultdict(list)  # psn -> true times seen here
    episodes = []  # [first frame, upstream, cause, true time]
    ep = None  # the loss event under way
    used = set()  # restarts of the sender that began an event here
    last_ep_frame = 0
    notes = []
    prev_orig_cause = {}  # frame of a packet -> cause class (for its dup)
    last_nondup = None
    prev_psn = None
    for p in pt.pkts:
        psn = p["psn"]
        f["packets"] += 1
        f["bytes"] += p["len"]
        ts = p["ts"]
        first = ts if first is None or ts < first else first
        last = ts if last is None or ts > last else last
        f["ecn_ce"] += p["ce"]
        f["fecn"] += p["fecn"]
        f["becn_data"] += p["becn"]
        tt = truth.true_t(obs, ts)
        retx = hi is not None and psn_diff(psn, hi) <= 0
        pinfo[p["frame"]] = dict(retx=retx, lost_up=False,
                                 wire=0 if retx else p["wire"] + ETH_OVERHEAD)
        if not retx and f["packets"] > 1:
            wire += p["wire"] + ETH_OVERHEAD  # n packets span n - 1 gaps
        if not retx:
            if hi is not None and psn_diff(psn, hi) > 1:
                skipped = [(hi + i) & PSN_MASK for i in range(1, psn_diff(psn, hi))]
                if any(s in data_set for s in skipped):
                    f["psn_gaps"] += 1
            hi = psn
        else:
            f["retx_packets"] += 1
            f["retx_bytes"] += p["len"]
        if p.get("dup"):
            # a second mirror copy of the packet before it: a retransmission
            # by the PSN rule, but no loss event and no cause (the library's
            # documented rule: it is not a resend)
            continue
        last_nondup = p["frame"]
        if not retx:
            ep = None  # new data: the resend, if any, is over
            prev_orig_cause[p["frame"]] = "timeout"
        else:
            if p["why"] != "retx":
                notes.append("frame %d psn %d: a retransmission here but new "
                             "for its sender" % (p["frame"], psn))
            # The sender's resends after one restart form a run of rising
            # PSNs: a PSN not after the previous one begins another run; so
            # does a restart of the sender at exactly this PSN, forward of
            # the run under way (a NAK past a resend in progress).
            # a packet lost before this point: its latest earlier copy was
            # lost on the way here (never passed here since it was sent)
            prior = [(t0, "seen") for t0 in seen_at[psn]]
            prior += [(t0, "lost") for t0 in lost_before.get(psn, ()) if t0 < tt]
            if prior and max(prior)[1] == "lost":
                f["lost_upstream"] += 1
                pinfo[p["frame"]]["lost_up"] = True
            fwd = [i for i, r in enumerate(rewinds)
                   if i not in used and r["psn"] == psn and
                   r["cause"] == p.get("cause") and ep is not None and
                   ep[3] < r["t"] <= tt]
            if ep is None or psn_diff(psn, prev_psn) <= 0 or (
                    fwd and psn_diff(psn, prev_psn) > 1):
                # a new loss event: where was the copy it repairs lost?
                prior = [(t0, "seen") for t0 in seen_at[psn]]
                prior += [(t0, "lost") for t0 in lost_before.get(psn, ()) if t0 < tt]
                upstream = bool(prior) and max(prior)[1] == "lost"
                if not prior:
                    notes.append("frame %d psn %d: no earlier copy" % (p["frame"], psn))
                seen_naks = [k for fr, k in naks if last_ep_frame < fr < p["frame"]]
                nak = bool(seen_naks)
                # the latest NAK names the cause (sequence error or RNR)
                ep = [p["frame"], upstream, seen_naks[-1] if nak else "timeout",
                      tt, p.get("msg")]
                episodes.append(ep)
                last_ep_frame = p["frame"]
                # the restart that caused it (for the notes only)
                cand = [i for i, r in enumerate(rewinds)
                        if i not in used and r["t"] <= tt and
                        r["cause"] == p.get("cause") and psn_diff(psn, r["psn"]) >= 0]
                if not cand:
                    notes.append("frame %d psn %d: no restart of the sender "
                                 "before it" % (p["frame"], psn))
                else:
                    used.add(cand[-1])
                    c = rewinds[cand[-1]]["cause"]
                    if cause_class(c) != cause_class(ep[2]):
                        notes.append("frame %d psn %d: the sender restarted on %s, "
                                     "a NAK was%s seen here" % (
                                         p["frame"], psn, c, "" if nak else " not"))
            f["retx_after_" + ep[2]] += 1
            prev_orig_cause[p["frame"]] = ep[2]
        seen_at[psn].append(tt)
        prev_psn = psn
    for ep in episodes:
        f["losses_upstream" if ep[1] else "losses_downstream"] += 1
    f["first_ts_ns"] = first
    f["last_ts_ns"] = last
    f["fct_ns"] = last - first
    f["fet_bps"] = fet(wire, f["fct_ns"])
    f["episodes"] = episodes
    f["pinfo"] = pinfo
    return f, notes


# ---------------------------------------------------------------- one run


def fmt_diff(exp, got, names):
    out = []
    for n in names:
        if exp.get(n) != got.get(n):  # an absent member (vlan) is None
            out.append("%s truth %s lib %s" % (n, exp.get(n), got.get(n)))
    return "; ".join(out)


def ack_evidence(truth, obs, parts):
    """Without CM: per flow key, the distinct PSNs of ACKs seen at |obs| in
    its reverse direction that name a data PSN seen before of this flow and
    of no other flow between the same two addresses (the pairing evidence
    of rtel-metrics(7): ACK PSNs that match the forward PSN range)."""
    owners = collections.defaultdict(set)  # (src, dst, psn) -> dqpns
    for k, pt in parts.items():
        if pt.part != "req":
            continue
        for p in pt.pkts:
            owners[(p["src"], p["dst"], p["psn"])].add(p["dqpn"])
    byconn = dict(((pt.conn, pt.dir), k[:3]) for k, pt in parts.items()
                  if pt.part == "req")
    seen = collections.defaultdict(set)
    ev = collections.defaultdict(set)
    for p in truth.pkts.get(obs, ()):
        if p["what"] == "data" and p["op"] not in RESP_OPS:
            seen[(p["conn"], p["dir"])].add(p["psn"])
        elif p["what"] == "ack":
            fk = byconn.get((p["conn"], p["dir"] ^ 1))
            if (fk and p["psn"] in seen[(p["conn"], p["dir"] ^ 1)] and
                    owners[(fk[0], fk[1], p["psn"])] == set([fk[2]])):
                ev[fk].add(p["psn"])
    return dict((k, len(v)) for k, v in ev.items())


FLOW_FIGS = ("packets", "bytes", "first_ts_ns", "last_ts_ns", "fct_ns",
             "retx_packets", "retx_bytes", "fet_bps", "ecn_ce", "fecn_packets",
             "psn_gaps", "losses_upstream", "losses_downstream",
             "retx_after_nak", "retx_after_timeout", "retx_after_rnr",
             "lost_upstream", "messages", "peer_qpn",
             "fnr", "end", "sport", "dscp", "vlan", "op")
SUM_FIGS = ("cnps", "becn")
# the names of the flow records where the truth's differ
LIB_NAME = {"fecn": "fecn_packets", "becn": "becn_packets"}


def check_obs(res, tag, truth, obs, recs, dpsn, cm):
    """Compares the records of one point."""
    for r in recs:
        canon(r)
    lflows = [r for r in recs if r["type"] == "flow"]
    lmsgs = [r for r in recs if r["type"] == "message"]
    stats = [r for r in recs if r["type"] == "stats" and
             r.get("file") is None]  # the run's, not a file's
    parts = build_parts(truth, obs)
    tflows = dict(((t["src"], t["dst"], t["dqpn"]), t) for t in truth.flows.get(obs, ()))
    byk = collections.defaultdict(list)
    for r in lflows:
        byk[(r["src"], r["dst"], r["dqpn"],
             "resp" if r["op"] == "read_resp" else "req")].append(r)
    mbyk = collections.defaultdict(list)
    for m in lmsgs:
        mbyk[(m["src"], m["dst"], m["dqpn"],
              "resp" if m["op"] == "read_resp" else "req")].append(m)
    res.ok(len(stats) == 1, "%s %s: one stats record" % (tag, obs))
    # library records for keys the truth has no data for
    extra = [k for k in byk if k not in parts]
    res.ok(not extra, "%s %s: no flow records without truth" % (tag, obs),
           ", ".join("%s>%s qpn %d %s" % k for k in extra))
    pairable = {} if cm else ack_evidence(truth, obs, parts)
    sums = collections.defaultdict(lambda: collections.Counter())
    for k, pt in parts.items():
        exp, notes = derive(truth, obs, pt, dpsn)
        for n in notes:
            res.notes.append("%s %s %s>%s qpn %d %s: %s" % ((tag, obs) + k + (n,)))
        tf = tflows.get(pt.key)
        for n in ("packets", "bytes", "retx_packets", "retx_bytes", "ecn_ce", "fecn",
                  "becn_data"):
            sums[pt.key][n] += exp[n]
        sums[pt.key]["first"] = min(sums[pt.key].get("first", exp["first_ts_ns"]), exp["first_ts_ns"])
        sums[pt.key]["last"] = max(sums[pt.key].get("last", 0), exp["last_ts_ns"])
        name = "%s %s flow %s>%s qpn %d %s" % ((tag, obs) + k)
        got = byk.get(k, [])
        if not res.ok(len(got) == 1, name, "%d library records" % len(got)):
            continue
        g = got[0]
        exp["fecn_packets"] = exp["fecn"]
        exp["peer_qpn"] = tf["peer_qpn"] if tf else None
        exp["messages"] = len(mbyk.get(k, ()))
        exp["end"] = "flush"
        # attributes of the first packet, and the operations seen
        cn = truth.conns[pt.conn]
        exp["sport"] = cn["b_sport"] if pt.dir else cn["a_sport"]
        exp["dscp"] = 26  # rtel-sim(1): RoCE packets use DSCP 26
        exp["vlan"] = truth.meta["vlan"] or None
        ops = set(op_name(p["op"]) for p in pt.pkts)
        exp["op"] = "+".join(n for n in ("send", "write", "read_resp") if n in ops)
        if g["peer_qpn"] is None and not cm and pairable.get(pt.key, 0) < 2:
            exp["peer_qpn"] = None  # no two ACKs that name this flow alone
        # NAKs answer the requester's stream: they belong to its SEND/WRITE
        # part (without one they are unattributed); none to READ responses
        figs = FLOW_FIGS
        if g["peer_qpn"] is not None:
            for n in ("naks_seq", "naks_rnr", "naks_fatal"):
                exp[n] = tf[n] if tf and pt.part == "req" else 0
            exp["fnr"] = ratio9(exp["naks_seq"], exp["packets"])
            figs = FLOW_FIGS + ("naks_seq", "naks_rnr", "naks_fatal")
        else:
            exp["fnr"] = None  # unknown until paired
        res.ok(all(exp[n] == g.get(n) for n in figs), name, fmt_diff(exp, g, figs))
    # figures of the reverse direction: on the sum of the parts
    for key, tf in tflows.items():
        if tf["pkts"] == 0:
            continue
        s = sums.get(key)
        name = "%s %s flow %s>%s qpn %d" % ((tag, obs) + key)
        # the simulator's own record is the sum of the parts
        selfc = s is not None and all(s[a] == tf[b] for a, b in (
            ("packets", "pkts"), ("bytes", "bytes"), ("retx_packets", "retx_pkts"),
            ("retx_bytes", "retx_bytes"), ("ecn_ce", "ecn_ce"), ("fecn", "fecn"),
            ("first", "first_ts"), ("last", "last_ts")))
        res.ok(selfc, name + " (simulator: pkt records add up to the flow record)")
        ls = [r for part in ("req", "resp") for r in byk.get(key + (part,), ())]
        if not ls:
            continue
        got = dict((n, sum(r[LIB_NAME.get(n, n)] for r in ls))
                   for n in SUM_FIGS)
        exp = dict((n, tf[n]) for n in SUM_FIGS)
        res.ok(exp == got, name + " (reverse direction)",
               fmt_diff(exp, got, SUM_FIGS) +
               (" (data packets with BECN: %d)" % s["becn_data"]
                if exp["becn"] != got["becn"] else ""))
    # NAKs of a requester that sends no data here (READ REQUESTs only) have
    # no flow: the library counts them as unattributed
    if stats:
        exp_u = sum(t["naks_seq"] + t["naks_rnr"] + t["naks_fatal"] + t["cnps"]
                    for t in tflows.values() if t["pkts"] == 0)
        res.ok(stats[0]["ctrl_unattributed"] == exp_u,
               "%s %s: stats ctrl_unattributed" % (tag, obs),
               "truth %d lib %d" % (exp_u, stats[0]["ctrl_unattributed"]))


MSG_FIGS = ("packets", "bytes", "first_ts_ns", "last_ts_ns", "fct_ns",
            "retx_packets", "retx_bytes", "first_psn", "last_psn", "complete",
            "reth_len", "lost_upstream", "losses_upstream", "losses_downstream",
            "losses_nak", "losses_rnr", "losses_timeout", "fet_bps")
NAK_FIGS = ("naks_seq", "naks_rnr", "naks_fatal")


def check_messages(res, tag, truth, obs, recs, dpsn, cm):
    """Each truth msg record seen at |obs| against the library's message
    record whose first PSN lies in its PSN range (rtel_msg_record(3): every
    data packet in the range, resends included, until the record is
    delivered). Expected figures from the truth's msg record and its pkt and
    loss records of this point; the library's rule for delivery, applied to
    the truth's ACK/NAK records of this point, says which resends come after
    the record (orphans of the flow) when the flow is paired from the start
    (CM). Returns the number of messages compared."""
    for r in recs:
        canon(r)
    lmsgs = [r for r in recs if r["type"] == "message"]
    lflows = [r for r in recs if r["type"] == "flow"]
    parts = build_parts(truth, obs)
    pinfo, episodes = {}, []
    for pt in parts.values():
        f, _ = derive(truth, obs, pt, dpsn)
        pinfo.update(f["pinfo"])
        episodes += f["episodes"]
    eps = collections.defaultdict(list)  # msg -> loss events it began
    for ep in episodes:
        eps[ep[4]].append(ep)
    bymsg = collections.defaultdict(list)  # msg -> its data packets here
    for p in truth.pkts.get(obs, ()):
        if p["what"] == "data" and p.get("msg") is not None:
            bymsg[p["msg"]].append(p)
    # ACKs and NAKs seen here, per (conn, dir of the data)
    ctrl = collections.defaultdict(list)
    for p in truth.pkts.get(obs, ()):
        if p["what"] in ("ack", "nak", "rnr_nak"):
            ctrl[(p["conn"], p["dir"] ^ 1)].append(p)
    lib_by = collections.defaultdict(list)
    for r in lmsgs:
        lib_by[(r["src"], r["dst"], r["dqpn"],
                "resp" if r["op"] == "read_resp" else "req")].append(r)
    used = collections.Counter()
    bad, n, skipped = [], 0, 0
    orphans_exp = collections.Counter()  # flow key -> resends after delivery
    for m in truth.msgs:
        if obs not in m["obs"]:
            continue
        cn = truth.conns[m["conn"]]
        if m["op"] == "read":
            src, dst = m["dst"], m["src"]
            dqpn = cn["a_qpn"] if m["dir"] == 0 else cn["b_qpn"]
            part, ddir = "resp", m["dir"] ^ 1
        else:
            src, dst, dqpn, part, ddir = m["src"], m["dst"], m["dqpn"], "req", m["dir"]
        k = (src, dst, dqpn, part)
        pk = bymsg.get(m["msg"], [])
        end = (m["psn0"] + m["npkts"] - 1) & PSN_MASK
        # delivered at the first ACK at or past its last PSN, or sequence
        # error / RNR NAK after it (SEND/WRITE data of a paired flow)
        dframe = None
        if part == "req" and cm:
            for c in ctrl.get((m["conn"], ddir), ()):
                d = psn_diff(c["psn"], end)
                if ((c["what"] == "ack" and d >= 0) or
                        (d > 0 and (c["what"] == "rnr_nak" or
                                    (c["what"] == "nak" and c.get("syndrome") == 0x60)))):
                    dframe = c["frame"]
                    break
        elif part == "req" and pk:
            # unpaired at first: when it is delivered is not known here;
            # compared only if no packet of it comes after a covering ACK
            cov = [c["frame"] for c in ctrl.get((m["conn"], ddir), ())
                   if c["what"] == "ack" and psn_diff(c["psn"], end) >= 0]
            if cov and pk[-1]["frame"] > cov[0]:
                skipped += 1
                for c in lib_by.get(k, ()):
                    if 0 <= psn_diff(c["first_psn"], m["psn0"]) < m["npkts"]:
                        used[id(c)] += 1
                continue
        inm = [p for p in pk if dframe is None or p["frame"] < dframe]
        orphans_exp[k[:3] + (part,)] += len(pk) - len(inm)
        to = m["obs"][obs]
        # the simulator: its msg record counts the packets of its pkt records
        res.ok(to["pkts"] == len(pk) and (not pk or (
            to["first"] == min(p["ts"] for p in pk) and
            to["last"] == max(p["ts"] for p in pk))),
               "%s %s: msg %d: the simulator's msg and pkt records agree" % (
                   tag, obs, m["msg"]))
        cands = [r for r in lib_by.get(k, ())
                 if 0 <= psn_diff(r["first_psn"], m["psn0"]) < m["npkts"]]
        for c in cands:
            used[id(c)] += 1
        if not inm:
            continue  # every packet came after its record: none expected
        n += 1
        offs = [psn_diff(p["psn"], m["psn0"]) for p in inm]
        first_ts = min(p["ts"] for p in inm)
        last_ts = max(p["ts"] for p in inm)
        fct = last_ts - first_ts
        retx = [p for p in inm if pinfo[p["frame"]]["retx"]]
        mine = eps.get(m["msg"], [])
        mine = [e for e in mine if dframe is None or e[0] < dframe]
        exp = dict(packets=len(inm), bytes=sum(p["len"] for p in inm),
                   first_ts_ns=first_ts, last_ts_ns=last_ts, fct_ns=fct,
                   retx_packets=len(retx), retx_bytes=sum(p["len"] for p in retx),
                   first_psn=(m["psn0"] + min(offs)) & PSN_MASK,
                   last_psn=(m["psn0"] + max(offs)) & PSN_MASK,
                   complete=0 in offs and m["npkts"] - 1 in offs,
                   reth_len=m["bytes"] if (m["op"] in ("write", "write_imm")
                                           and 0 in offs) else 0,
                   lost_upstream=sum(1 for p in inm if pinfo[p["frame"]]["lost_up"]),
                   losses_upstream=sum(1 for e in mine if e[1]),
                   losses_downstream=sum(1 for e in mine if not e[1]),
                   losses_nak=sum(1 for e in mine if e[2] == "nak"),
                   losses_rnr=sum(1 for e in mine if e[2] == "rnr"),
                   losses_timeout=sum(1 for e in mine if e[2] == "timeout"),
                   # its own FET: new packets but its first, frame + 24
                   fet_bps=fet(sum(pinfo[p["frame"]]["wire"] for p in inm[1:]), fct))
        figs = MSG_FIGS
        if part == "req" and cm:
            # NAKs whose PSN it holds, seen while it was open: after its
            # first packet here, before its delivery
            nk = [c for c in ctrl.get((m["conn"], ddir), ())
                  if c["what"] in ("nak", "rnr_nak") and
                  0 <= psn_diff(c["psn"], m["psn0"]) < m["npkts"] and
                  inm[0]["frame"] < c["frame"] and
                  (dframe is None or c["frame"] < dframe)]
            exp["naks_seq"] = sum(1 for c in nk if c["what"] == "nak" and
                                  c.get("syndrome") == 0x60)
            exp["naks_rnr"] = sum(1 for c in nk if c["what"] == "rnr_nak")
            exp["naks_fatal"] = sum(1 for c in nk if c["what"] == "nak" and
                                    0x61 <= (c.get("syndrome") or 0) <= 0x64)
            figs = MSG_FIGS + NAK_FIGS
        elif part == "resp":
            exp.update(naks_seq=0, naks_rnr=0, naks_fatal=0)
            figs = MSG_FIGS + NAK_FIGS
        why = None
        if len(cands) != 1:
            why = "%d library records" % len(cands)
        elif any(exp[x] != cands[0].get(x) for x in figs):
            why = fmt_diff(exp, cands[0], figs)
        if why:
            bad.append("msg %d (%s %s>%s qpn %d, psn %d..+%d, %d lost, %d resent): %s" % (
                m["msg"], m["op"], src, dst, dqpn, m["psn0"], m["npkts"],
                m["losses"], m["retx_pkts"], why))
    extra = [r for r in lmsgs if used[id(r)] == 0]
    res.ok(not bad, "%s %s: %d messages exact against the truth" % (tag, obs, n),
           "%d differ, e.g. %s" % (len(bad), " | ".join(bad[:3])))
    res.ok(not extra, "%s %s: every message record is a message of the truth" % (tag, obs),
           "%d are not, e.g. %s" % (len(extra), extra[:2]))
    if cm:
        got = collections.Counter()
        for r in lflows:
            got[(r["src"], r["dst"], r["dqpn"],
                 "resp" if r["op"] == "read_resp" else "req")] += r["orphan_packets"]
        keys = set(got) | set(k for k, v in orphans_exp.items() if v)
        diff = [(k, orphans_exp[k], got[k]) for k in keys if orphans_exp[k] != got[k]]
        res.ok(not diff, "%s %s: flow orphan_packets (resends after their message's ACK)" % (
            tag, obs), "; ".join("%s>%s qpn %d %s truth %d lib %d" % (k + (a, b))
                                 for k, a, b in diff[:3]))
    if skipped:
        res.notes.append("%s %s: %d messages not compared (no CM: resent after an "
                         "ACK that covered them, delivered or not as the pairing "
                         "went)" % (tag, obs, skipped))
    return n


def run_case(res, sim, analyze, scenario, seed, extra):
    tag = "%s/%d%s" % (scenario, seed, ("[" + " ".join(extra) + "]") if extra else "")
    out = tl.tl_tmpdir("flows")
    try:
        try:
            tl.tl_run_sim(sim, scenario, seed, out, extra)
        except RuntimeError as e:
            res.ok(False, tag + ": rtel-sim", str(e))
            return
        truth = Truth(os.path.join(out, "truth.jsonl"))
        cm = all(c["cm"] for c in truth.conns.values())
        dpsn = data_psns(truth)
        nmsg = 0
        for o in truth.meta["obs"]:
            obs = o["name"]
            recs, rc, err, _ = tl.tl_run_analyze(
                analyze, ["%s=%s" % (obs, os.path.join(out, o["file"]))],
                ["--flows", "--messages", "--stats", "--format", "json",
                 "--flow-idle", FLOW_IDLE])
            if not res.ok(rc == 0, "%s %s: rtel-analyze exit status" % (tag, obs),
                          "%d: %s" % (rc, err.strip())):
                continue
            check_obs(res, tag, truth, obs, recs, dpsn, cm)
            nmsg += check_messages(res, tag, truth, obs, recs, dpsn, cm)
        print("%s: %d messages compared with the truth" % (tag, nmsg))
        sys.stdout.flush()
    finally:
        tl.tl_rmtree(out)


# ---------------------------------------------------------------- flood

CTYPES = {"uint8_t": 1, "int8_t": 1, "char": 1, "uint16_t": 2, "int16_t": 2,
          "uint32_t": 4, "int32_t": 4, "int": 4, "unsigned": 4, "uint64_t": 8,
          "int64_t": 8, "rtel_tstamp": 8, "size_t": 8, "double": 8}


def c_struct_sizes(srcdir):
    """sizeof and alignment of the flow table's entries (struct flow of
    lib/rtel_flow.c, rtel__pair of lib/rtel_pair.h, with rtel__qent of
    lib/rtel_table.h and rtel__link of lib/rtel_list.h),
    computed from their declarations (natural alignment, LP64)."""
    types = dict((t, (n, n)) for t, n in CTYPES.items())
    text = ""
    for f in ("lib/rtel_list.h", "lib/rtel_table.h", "lib/rtel_pair.h",
              "lib/rtel_flow.c"):
        with open(os.path.join(srcdir, f)) as fh:
            text += fh.read() + "\n"
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    for m in re.finditer(r"typedef\s+struct\s+\w+\s*\{(.*?)\}\s*(\w+)\s*;", text, re.S):
        body, name = m.group(1), m.group(2)
        off, align = 0, 1
        ok = True
        for decl in body.split(";"):
            decl = decl.strip()
            if not decl:
                continue
            mm = re.match(r"(?:const\s+)?(\w+)\s+(.*)$", decl, re.S)
            if not mm or mm.group(1) not in types:
                ok = False
                break
            size, al = types[mm.group(1)]
            for d in mm.group(2).split(","):
                d = d.strip()
                n = 1
                for dim in re.findall(r"\[(\d+)\]", d):
                    n *= int(dim)
                off = (off + al - 1) // al * al + size * n
                align = max(align, al)
        if ok:
            types[name] = ((off + align - 1) // align * align, align)
    return dict((k, v[0]) for k, v in types.items() if k in ("flow", "rtel__pair", "rtel__qent"))


def pow2_at_least(n):
    p = 1
    while p < n:
        p <<= 1
    return p


def run_flood(res, sim, analyze, srcdir, time_v):
    """rdma-flood: 20000 QPs; five points (h0 and the four spine ports) give
    about 34000 flows through one table of 2000."""
    tag = "rdma-flood/1"
    max_flows = 2000
    extra = ["--obs", "h0,l0,l1,l2,l3", "--snaplen", "512"]
    out = tl.tl_tmpdir("flood")
    try:
        try:
            tl.tl_run_sim(sim, "rdma-flood", 1, out, extra)
            # the same points and options with half the QPs: the baseline
            # RSS. Both runs see many more flows than the table holds, so
            # every table of the run context is in use to its bound in
            # both (a table touches only the pages of the entries it has
            # taken, so a run with a few flows is no baseline)
            tl.tl_run_sim(sim, "rdma-flood", 1, os.path.join(out, "small"),
                          extra + ["--qps", "10000"])
        except RuntimeError as e:
            res.ok(False, tag + ": rtel-sim", str(e))
            return
        truth = Truth(os.path.join(out, "truth.jsonl"))
        names = [o["name"] for o in truth.meta["obs"]]
        opts = ["--flows", "--stats", "--format", "json", "--max-flows",
                str(max_flows), "--flow-idle", FLOW_IDLE]
        recs, rc, err, rss = tl.tl_run_analyze(
            analyze, ["%s=%s" % (n, os.path.join(out, n + ".pcap")) for n in names],
            opts, time_v)
        if not res.ok(rc == 0, tag + ": rtel-analyze exits 0 on the flood",
                      "%d: %s" % (rc, err.strip()[:300])):
            return
        for r in recs:
            canon(r)
        flows = [r for r in recs if r["type"] == "flow"]
        stats = [r for r in recs if r["type"] == "stats" and
             r.get("file") is None]  # the run's, not a file's
        if not res.ok(len(stats) == 1, tag + ": one stats record"):
            return
        st = stats[0]
        tflows = {}
        for o, fl in truth.flows.items():
            for t in fl:
                if t["pkts"]:
                    tflows[(o, t["src"], t["dst"], t["dqpn"])] = t
        evicted = [r for r in flows if r["end"] == "evicted"]
        res.ok(len(tflows) >= 10 * max_flows,
               tag + ": ten times more flows than the table holds",
               "%d flows" % len(tflows))
        res.ok(st["flows_evicted"] == len(evicted) and
               st["flows_evicted"] >= len(tflows) - max_flows,
               tag + ": evictions counted and reported",
               "stats flows_evicted %d, evicted records %d, flows %d, capacity %d" % (
                   st["flows_evicted"], len(evicted), len(tflows), max_flows))
        res.ok(st["flows_created"] == len(flows) and
               len(flows) - len(evicted) <= max_flows and
               st["flows_untracked_packets"] == 0,
               tag + ": every flow created is reported once",
               "created %d, records %d (%d not evicted), untracked pkts %d" % (
                   st["flows_created"], len(flows), len(flows) - len(evicted),
                   st["flows_untracked_packets"]))
        byk = collections.defaultdict(list)
        for r in flows:
            byk[(r["obs"], r["src"], r["dst"], r["dqpn"])].append(r)
        missing = [k for k in tflows if k not in byk]
        extra_k = [k for k in byk if k not in tflows]
        res.ok(not missing and not extra_k, tag + ": the flow keys are the truth's",
               "%d missing, %d unknown, e.g. %s" % (len(missing), len(extra_k),
                                                   (missing + extra_k)[:2]))
        # data is never lost by an eviction: a flow that comes back counts on
        lost = [k for k in tflows if k in byk and
                (sum(r["packets"] for r in byk[k]) != tflows[k]["pkts"] or
                 sum(r["bytes"] for r in byk[k]) != tflows[k]["bytes"])]
        res.ok(not lost, tag + ": packets and bytes of every flow add up",
               "%d flows differ, e.g. %s" % (len(lost), lost[:2]))
        nmsgs = collections.Counter()
        for m in truth.msgs:
            for o in m["obs"]:
                nmsgs[(o, m["src"], m["dst"], m["dqpn"])] += 1
        figs = ("packets", "bytes", "first_ts_ns", "last_ts_ns", "fct_ns",
                "retx_packets", "retx_bytes", "naks_seq", "naks_rnr",
                "naks_fatal", "cnps", "ecn_ce", "fecn_packets", "becn_packets", "psn_gaps",
                "losses_upstream", "losses_downstream", "retx_after_nak",
                "retx_after_timeout", "messages")
        # fet_bps is not compared here: the flood's truth has no pkt records
        # (the frame sizes FET counts); the CASES compare it exactly
        for which in ("flush", "evicted"):
            bad, n, unpaired = [], 0, 0
            for k, rs in byk.items():
                if len(rs) != 1 or rs[0]["end"] != which or k not in tflows:
                    continue
                n += 1
                t, g = tflows[k], rs[0]
                exp = dict(packets=t["pkts"], bytes=t["bytes"], first_ts_ns=t["first_ts"],
                           last_ts_ns=t["last_ts"], fct_ns=t["fct_ns"],
                           retx_packets=t["retx_pkts"], retx_bytes=t["retx_bytes"],
                           naks_seq=t["naks_seq"], naks_rnr=t["naks_rnr"],
                           naks_fatal=t["naks_fatal"], cnps=t["cnps"], ecn_ce=t["ecn_ce"],
                           fecn_packets=t["fecn"], becn_packets=t["becn"],
                           psn_gaps=t["psn_gaps"],
                           losses_upstream=0, losses_downstream=0, retx_after_nak=0,
                           retx_after_timeout=0, messages=nmsgs[k])
                d = fmt_diff(exp, g, figs)
                if g["peer_qpn"] is None:
                    unpaired += 1
                elif g["peer_qpn"] != t["peer_qpn"]:
                    d += "; peer_qpn truth %s lib %s" % (t["peer_qpn"], g["peer_qpn"])
                if d:
                    bad.append("%s>%s qpn %d at %s: %s" % (k[1], k[2], k[3], k[0], d))
            res.ok(n > 0 and not bad, "%s: %d flows %s are exact" % (
                tag, n, "never evicted" if which == "flush" else
                "evicted once, after their last packet"),
                   "%d differ, e.g. %s" % (len(bad), " | ".join(bad[:3])))
            if unpaired:
                res.notes.append("%s: %d of the %d %s flows have no peer QP (their "
                                 "pairing was evicted from the pair table, sized "
                                 "like the flow table)" % (tag, unpaired, n, which))
        # memory: the tables are sized once; nothing grows with the flows
        if not time_v:
            res.notes.append(tag + ": GNU time not found, memory bound not checked")
            return
        small = os.path.join(out, "small")
        _, rc2, err2, rss0 = tl.tl_run_analyze(
            analyze, ["%s=%s" % (n, os.path.join(small, n + ".pcap")) for n in names],
            opts, time_v)
        try:
            sz = c_struct_sizes(srcdir)
            entry = sz["flow"]
        except (OSError, KeyError) as e:
            res.ok(False, tag + ": flow entry size from lib/rtel_flow.c", str(e))
            return
        half = Truth(os.path.join(small, "truth.jsonl"))
        nhalf = len(set((o, t["src"], t["dst"], t["dqpn"])
                        for o, fl in half.flows.items() for t in fl if t["pkts"]))
        per_flow = entry + 4 * pow2_at_least(2 * max_flows) // max_flows
        grow_kb = (len(tflows) - nhalf) * per_flow // 1024
        bound = rss0 + grow_kb // 2
        res.notes.append("%s: flow entry %d bytes, pair entry %d bytes; max RSS %d KiB with "
                         "%d flows, %d KiB with %d; bound %d KiB (a table that grew "
                         "with the flows would need %d KiB more)" % (
                             tag, entry, sz.get("rtel__pair", 0), rss, len(tflows), rss0,
                             nhalf, bound, grow_kb))
        res.ok(rc2 == 0 and rss is not None and rss0 is not None and rss <= bound,
               tag + ": memory stays at its bound",
               "max RSS %s KiB, baseline %s KiB, bound %d KiB" % (rss, rss0, bound))
    finally:
        tl.tl_rmtree(out)


FET_RATES = (10, 25, 100, 400)  # Gbit/s of the host links (rtel-sim --gbps)
FET_SIZES = (16384, 65536, 1048576)  # 4, 16 and 256 packets of 4096 bytes


def run_fet(res, sim, analyze):
    """FET at line rate (issue 10, rtel-metrics(7)): one QP, one message
    outstanding, no loss, no jitter, so that each message's packets leave
    back to back at the line rate of the host link; at h0 every message
    record's fet_bps must be within 1% of that rate (4 packets or more)."""
    for gbps in FET_RATES:
        for size in FET_SIZES:
            tag = "fet/%d Gb/s, %d-byte messages" % (gbps, size)
            out = tl.tl_tmpdir("fet")
            try:
                try:
                    tl.tl_run_sim(sim, "rdma-loss-before", 1, out, [
                        "--loss", "0", "--qps", "1", "--outstanding", "1",
                        "--msg-size", str(size), "--pmtu", "4096",
                        "--jitter", "0", "--gbps", str(gbps)])
                except RuntimeError as e:
                    res.ok(False, tag + ": rtel-sim", str(e))
                    continue
                recs, rc, err, _ = tl.tl_run_analyze(
                    analyze, ["h0=" + os.path.join(out, "h0.pcap")],
                    ["--messages", "--format", "json"])
                if not res.ok(rc == 0, tag + ": rtel-analyze", err.strip()):
                    continue
                ms = [r for r in recs if r["type"] == "message"]
                off = [r["fet_bps"] / (gbps * 1e9) - 1.0 for r in ms]
                worst = max(abs(x) for x in off) if off else 1.0
                res.ok(ms and all(r["packets"] >= 4 for r in ms) and worst <= 0.01,
                       "%s: %d messages within 1%% of the line rate" % (tag, len(ms)),
                       "worst %+.3f%%" % (100 * worst))
                print("%s: %d messages, FET / line rate %.4f..%.4f" % (
                    tag, len(ms), 1 + min(off), 1 + max(off)) if off else tag)
            finally:
                tl.tl_rmtree(out)


def main():
    sim = tl.tl_env_path("RTEL_SIM", "examples/rtel-sim/rtel-sim")
    analyze = tl.tl_env_path("RTEL_ANALYZE", "examples/rtel-analyze")
    if not sim or not analyze:
        print("rtel-sim or rtel-analyze not found: skipped")
        return 77
    res = Results()
    only = sys.argv[1:]
    for scenario, seeds, extra, _ in CASES:
        if only and scenario not in only:
            continue
        for seed in seeds:
            run_case(res, sim, analyze, scenario, seed, extra)
    if not only or "fet" in only:
        run_fet(res, sim, analyze)
    if not only or "rdma-flood" in only:
        tv = "/usr/bin/time"
        if not (os.path.exists(tv) and os.access(tv, os.X_OK)):
            tv = None
        run_flood(res, sim, analyze, os.environ.get("top_srcdir", os.path.join(
            os.path.dirname(os.path.abspath(__file__)), "..", "..")), tv)
    for n in res.notes:
        print("note: " + n)
    print("%d passed, %d failed" % (res.passed, res.failed))
    return 1 if res.failed else 0


if __name__ == "__main__":
    sys.exit(main())
