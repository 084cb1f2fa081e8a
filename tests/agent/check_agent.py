#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the JSON-lines output of examples/switch-agent for the properties
the library promises (rtel-metrics(7), "POLLING SCHEDULER" and "ALARMS").
The lines are read by tests/rtel_records.py (the records of
rtel-analyze(1), OUTPUT, and the agent's mirror, trace, port_summary and
agent_summary records): a line outside docs/rtel-records.schema.json fails.

  check_agent.py poll  OUT --ports N --per-slot P [--priority] [--lag NS]
  check_agent.py alarm OUT --expect some|none
  check_agent.py full  OUT (--truth TRUTH --map OBS=PORT,... | --analyze A)

OUT is the agent's output with --json (and --trace for poll). Prints what
it checked; exits 1 on the first property that does not hold.
"""
import argparse
import json
import math
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import rtel_records  # noqa: E402 (tests/rtel_records.py)

IDLE_NS = 100_000_000  # the agent's flow idle timeout


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def load(path):
    return rtel_records.load(path)


def load_truth(path):
    """The simulator's ground truth (its own format, rtel-sim(1))."""
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def by_type(lines, t):
    return [r for r in lines if r["type"] == t]


def check_poll(lines, nports, per, priority, lag):
    """(a) coverage bound and seats, (b) mirror vs fed packets, (c) truncation."""
    if lines[0]["type"] != "mirror":
        fail("expected an initial 'mirror' line first")
    on = set(lines[0]["mirrored"])
    slots = []          # (seq, start, measured set)
    last_slot = None
    fed_since_start = {}  # port -> packets fed in its current window
    window_start = {p: lines[0]["ts_ns"] for p in on}
    closed = []         # (port, start, stop) windows that ended
    off_at = {}         # port -> time its mirror was switched off
    truncated = 0
    stops_with_traffic = 0
    for r in lines:
        t = r["type"]
        if t == "slot":
            if last_slot is not None and r["slot"] != last_slot["slot"] + 1:
                fail("slot %d follows slot %d: a slot was skipped" %
                     (r["slot"], last_slot["slot"]))
            for p in r["stopped"]:
                if p not in on:
                    fail("slot %d stops port %d, which was not measured" % (r["slot"], p))
                on.discard(p)
                closed.append((p, window_start.pop(p), r["start_ns"]))
                off_at[p] = r["start_ns"]
                if fed_since_start.pop(p, 0) > 0:
                    stops_with_traffic += 1
            for p in r["started"]:
                if p in on:
                    fail("slot %d starts port %d, which was measured" % (r["slot"], p))
                on.add(p)
                window_start[p] = r["start_ns"]
                off_at.pop(p, None)
            want = ["Ethernet1/%d" % p for p in r["started"]], \
                ["Ethernet1/%d" % p for p in r["stopped"]]
            if (r["started_names"], r["stopped_names"]) != want:
                fail("slot %d: port names %s/%s, expected %s/%s" % (
                    r["slot"], r["started_names"], r["stopped_names"], want[0], want[1]))
            if len(on) > per:
                fail("slot %d measures %d ports, more than %d" % (r["slot"], len(on), per))
            slots.append((r["slot"], r["start_ns"], set(on)))
            last_slot = r
        elif t == "mirror" and last_slot is not None:
            # the mirrors the agent programs at the slot: the ports the
            # library measures, which the slot's lists must have left on
            if r["ts_ns"] != last_slot["start_ns"] or set(r["mirrored"]) != on:
                fail("slot %d: mirrors %s at %d, the started/stopped lists "
                     "leave %s at %d" % (last_slot["slot"], r["mirrored"], r["ts_ns"],
                                         sorted(on), last_slot["start_ns"]))
        elif t == "trace":
            p = r["port"]
            if p not in on:
                # (b): only a lagging mirror may copy a port that is off
                if lag == 0 or r["ts_ns"] - off_at.get(p, -10**30) >= lag:
                    fail("packet of port %d at %d fed while its mirror was off"
                         % (p, r["ts_ns"]))
            else:
                fed_since_start[p] = fed_since_start.get(p, 0) + 1
        elif t in ("flow", "io"):
            end = r.get("end", r.get("state"))
            if r["obs"] != "Ethernet1/%d" % r["port"]:
                fail("%s of port %d at observation point %s" % (t, r["port"], r["obs"]))
            if t == "flow" and end == "truncated" and r["coverage_end_ns"] is None:
                fail("truncated flow without the end of its coverage: %s" % r)
            if end == "truncated" and r["coverage_end_ns"] is not None:
                # (c): cut by the slot that just began, on a port it stopped
                # (I/Os outstanding at the end are truncated by the flush)
                if last_slot is None or r["port"] not in last_slot["stopped"]:
                    fail("truncated %s of port %d not right after a slot that "
                         "stopped its port: %s" % (t, r["port"], r))
                if r["coverage_end_ns"] != last_slot["start_ns"]:
                    fail("truncated %s: coverage ends at %s, the slot began at %d"
                         % (t, r["coverage_end_ns"], last_slot["start_ns"]))
                if t == "flow" and not (r["coverage_start_ns"] <= r["first_ts_ns"]
                                        <= r["last_ts_ns"] < r["coverage_end_ns"]):
                    fail("flow outside its coverage window: %s" % r)
                truncated += 1
    summary = by_type(lines, "agent_summary")[-1]
    ports = by_type(lines, "port_summary")

    # (a): every port measured in every ceil(N/P) consecutive slots (with
    # priority seats: ceil(N/(P-1)), or 2N for P = 1), all slots complete
    bound = (2 * nports if per == 1 else math.ceil(nports / (per - 1))) \
        if priority else math.ceil(nports / per)
    seqs = [s for s in slots]
    if len(seqs) <= bound:
        fail("only %d slots, fewer than the bound %d: the run is too short"
             % (len(seqs), bound))
    for i in range(len(seqs) - bound + 1):
        seen = set().union(*(s[2] for s in seqs[i:i + bound]))
        missing = set(range(1, nports + 1)) - seen
        if missing:
            fail("ports %s not measured in slots %d..%d (bound %d)"
                 % (sorted(missing)[:8], seqs[i][0], seqs[i + bound - 1][0], bound))
    inputs = [p["port"] for p in ports if p["fed"] + p["not_mirrored"] > 0]
    for p in inputs:
        if not any(p in s[2] for s in seqs[:bound]):
            fail("input port %d not measured in the first %d slots" % (p, bound))

    # (c): a flow that began in a window that closed ends truncated at the
    # close, unless it ended idle before it
    for r in by_type(lines, "flow"):
        for (p, a, b) in closed:
            if r["port"] == p and a <= r["first_ts_ns"] < b:
                ok = (r["end"] == "truncated" and r["coverage_end_ns"] == b) or \
                     (r["end"] in ("idle", "evicted", "active") and r["last_ts_ns"] < b)
                if not ok:
                    fail("flow of port %d began in [%d,%d) and ended %s, coverage "
                         "end %s" % (p, a, b, r["end"], r["coverage_end_ns"]))
    if stops_with_traffic and truncated == 0:
        fail("%d ports stopped with traffic, and no record was truncated"
             % stops_with_traffic)

    # the library saw what slipped through, and only that
    slipped = sum(p["slipped"] for p in ports)
    if slipped != summary["unscheduled"]:
        fail("agent fed %d packets of unmeasured ports, library counted %d"
             % (slipped, summary["unscheduled"]))
    if lag and slipped == 0:
        fail("a mirror lag of %d ns let no packet slip through" % lag)
    if not lag and slipped:
        fail("%d packets slipped through without a mirror lag" % slipped)
    print("ok: %d slots (bound %d, %d per slot), %d input ports, %d stops with "
          "traffic, %d truncated records, %d slipped" %
          (len(seqs), bound, per, len(inputs), stops_with_traffic, truncated, slipped))


def check_alarm(lines, expect):
    """(d): alarms follow their record and cross their limit."""
    alarms = [r for r in lines if r["type"] == "alarm"]
    raised = [a for a in alarms if a["state"] == "raised"]
    prev = None
    for r in lines:
        if r["type"] == "alarm":
            if prev is None or prev["type"] not in ("flow", "io", "alarm"):
                fail("alarm not right after a record: %s" % r)
            if r["state"] == "raised":
                below = r["metric"] == "fet"
                if (r["value"] >= r["limit"]) if below else (r["value"] <= r["limit"]):
                    fail("alarm raised on the good side of its limit: %s" % r)
        prev = r
    if expect == "none":
        if alarms:
            fail("%d alarm events with a threshold nothing reaches" % len(alarms))
        print("ok: no alarm")
        return
    if not raised:
        fail("no alarm raised with a low threshold")
    # every pair with a flow above the FCT limit raised an FCT alarm
    fct = [a for a in raised if a["metric"] == "fct" and a["scope"] == "pair"]
    if fct:
        limit = fct[0]["limit"]
        # flows cut short (truncated by a slot boundary, evicted) are not
        # judged: their FCT is partial
        want = {(f["src"], f["dst"]) for f in by_type(lines, "flow")
                if f["fct_ns"] > limit and f.get("end") not in ("truncated", "evicted")}
        got = {(a["src"], a["dst"]) for a in fct}
        if want - got:
            fail("pairs above the FCT limit without an alarm: %s" % sorted(want - got))
    print("ok: %d alarms raised (%s)" %
          (len(raised), ", ".join(sorted({a["metric"] for a in raised}))))


def check_full(lines, truth, obsmap, analyze):
    """(e): full mode: every flow and I/O reported, none truncated."""
    flows = by_type(lines, "flow")
    ios = by_type(lines, "io")
    slots = by_type(lines, "slot")
    if len(slots) != 1 or slots[0]["stopped"] or "end_ns" in slots[0]:
        fail("full mode: expected one open-ended slot stopping nothing")
    for r in flows + ios:
        if r.get("end", r.get("state")) == "truncated" or "coverage_end_ns" in r:
            fail("full mode: a truncated record: %s" % r)
    got = {}
    for f in flows:
        k = (f["port"], f["src"], f["dst"], f["dqpn"])
        p, b = got.get(k, (0, 0))
        got[k] = (p + f["packets"], b + f["bytes"])
    want, want_ios = {}, {}
    if truth:
        for t in load_truth(truth):
            if t["type"] not in ("flow", "io") or t["obs"] not in obsmap:
                continue
            port = obsmap[t["obs"]]
            if t["type"] == "flow":
                k = (port, t["src"], t["dst"], t["dqpn"])
                p, b = want.get(k, (0, 0))
                want[k] = (p + t["pkts"], b + t["bytes"])
            elif t["type"] == "io" and t["rec"] == "complete":
                want_ios[port] = want_ios.get(port, 0) + 1
    else:
        for a in load(analyze):
            if a["type"] == "flow":
                k = (obsmap[a["obs"]], a["src"], a["dst"], a["dqpn"])
                p, b = want.get(k, (0, 0))
                want[k] = (p + a["packets"], b + a["bytes"])
            elif a["type"] == "io" and a["state"] == "complete":
                port = obsmap[a["obs"]]
                want_ios[port] = want_ios.get(port, 0) + 1
    if got != want:
        diff = sorted(set(got.items()) ^ set(want.items()))[:6]
        fail("flows differ from the reference (port, src, dst, qpn): %s" % diff)
    got_ios = {}
    for r in ios:
        if r["state"] == "complete":
            got_ios[r["port"]] = got_ios.get(r["port"], 0) + 1
    if got_ios != want_ios:
        fail("complete I/Os per port %s, expected %s" % (got_ios, want_ios))
    print("ok: %d flows and %d complete I/Os as the reference, none truncated"
          % (len(want), sum(want_ios.values())))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["poll", "alarm", "full"])
    ap.add_argument("out")
    ap.add_argument("--ports", type=int)
    ap.add_argument("--per-slot", type=int)
    ap.add_argument("--priority", action="store_true")
    ap.add_argument("--lag", type=int, default=0)
    ap.add_argument("--expect", choices=["some", "none"])
    ap.add_argument("--truth")
    ap.add_argument("--analyze")
    ap.add_argument("--map", default="")
    a = ap.parse_args()
    lines = load(a.out)
    if a.what == "poll":
        check_poll(lines, a.ports, a.per_slot, a.priority, a.lag)
    elif a.what == "alarm":
        check_alarm(lines, a.expect)
    else:
        obsmap = {k: int(v) for k, v in (m.split("=") for m in a.map.split(",") if m)}
        check_full(lines, a.truth, obsmap, a.analyze)


if __name__ == "__main__":
    main()
