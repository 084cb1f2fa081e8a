#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""rtel-collect's IPFIX export (-j 2: two workers, two observation domains)
as pmacct's nfacctd collects it, against rtel-analyze's JSON records of the
same capture.

For each capture set (the lossy RDMA scenario rdma-loss-between as a ring
of 4 hosts over IPv6, at h0 and l0; the two-point NVMe-oF scenario
nvme-read from 4 hosts at h0 and t0, with the roles configured so that
segments exist: host pairs that shard to both workers) and each record type (flow, message,
io, segment, summary):

  1. nfacctd listens on a free UDP port of 127.0.0.1 with the primitives
     file of `rtel-analyze --pmacct-primitives TYPE` and the aggregate of
     tests/ipfix/pmacct.py (every primitive of the file, the native
     primitives the type's template feeds, the domain and the exporter);
  2. rtel-collect -j 2 --ipfix 127.0.0.1:PORT --mtu 1500 --domain 20
     --TYPE -r h0=... -r ...: only that type's records reach the collector,
     from two encoders (domain 20 for worker 0, 21 for worker 1), each with
     its own flowIds 1, 2, ...;
  3. once nfacctd printed as many distinct (domain, flowId) pairs as
     rtel-collect's summary says it exported, it is stopped (SIGINT);
  4. the (domain, flowId) pairs must be exactly 1..n_d in each domain, the
     domains 20 and 21 only, n_20 + n_21 = the number of rtel-analyze's
     JSON records of that type, and the records must equal rtel-analyze's
     as multisets over every field both have: each nfacctd record is
     matched with a JSON record for which every field of the mapping table
     of tests/ipfix/pmacct.py (TABLES: the conversions of addresses, null
     values, ops, ends, ppm figures, NTP times ...) holds. The flowId and
     the domain are the only fields left out (rtel-analyze numbers its
     records in one sequence, rtel-collect per worker).

The helpers (nfacctd as a child, the primitives, waiting for records) are
tests/ipfix/collectorlib.py's, the mapping tables tests/ipfix/pmacct.py's,
both imported from tests/ipfix.

Environment: RTEL_COLLECT, RTEL_ANALYZE, RTEL_SIM; NFACCTD (else the PATH
and /usr/sbin). Skips (77) without one of them or when 127.0.0.1 cannot be
bound. Exit: 0 pass, 1 fail, 77 skip.
"""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "ipfix"))
import collectorlib as cl  # noqa: E402
import pmacct as pm  # noqa: E402

SEED = 1
DOMAIN = 20
JOBS = 2
# (scenario, rtel-sim options, points in input order, measurement
# options): hosts and addresses chosen so that both workers get host
# pairs (rtel_shard_key % 2) of both kinds of traffic
SCENARIOS = [
    ("rdma-loss-between", ["--hosts", "4", "--hosts-per-leaf", "2",
                           "--workload", "ring", "--gpu-hosts", "4",
                           "--obs", "h0,l0", "--ipv6"], ["h0", "l0"], []),
    ("nvme-read", ["--hosts", "4", "--targets", "1", "--nvme-hosts", "4"],
     ["h0", "t0"], ["--compute-side", "h0", "--storage-side", "t0"]),
]
# the record type (--pmacct-primitives) -> rtel-collect's option
TYPE_OPTION = {"flow": "--flows", "message": "--messages", "io": "--ios",
               "segment": "--segments", "summary": "--summary"}
# fields of pmacct.py's tables that differ by design: rtel-analyze's one
# sequence of flowIds and its domain against one per worker
PER_WORKER = {"flow_id", "export_proto_sysid"}


def need_collect():
    p = os.environ.get("RTEL_COLLECT")
    if not p or not os.access(p, os.X_OK):
        cl.skip("rtel-collect not found (RTEL_COLLECT)")
    return p


def plain(v):
    return isinstance(v, (int, str)) and not isinstance(v, bool)


def norm(exp, got):
    """|got| in the type of the plain expected value |exp| (for buckets)."""
    try:
        return int(got) if isinstance(exp, int) else str(got)
    except (TypeError, ValueError):
        return got


def expected(table, r, ctx):
    """{field: expected} of JSON record |r| (PER_WORKER left out); a field
    without a JSON value is None (a failure when compared)."""
    out = {}
    for k, (_src, fn) in table.items():
        if k in PER_WORKER:
            continue
        try:
            out[k] = fn(r, ctx)
        except (KeyError, TypeError):
            out[k] = None
    return out


def record_ok(exp, rec, optional):
    """Every field of |exp| holds in nfacctd's record |rec| (a field of
    |optional| may be left out)."""
    for k, e in exp.items():
        if k not in rec:
            if k in optional:
                continue
            return False
        if e is None or not pm.matches(e, rec[k]):
            return False
    return True


def compare(where, rtype, lines, recs, points, prims, fails):
    """Multiset compare of nfacctd's records |recs| of |rtype| with the
    JSON records |lines| (every type) of rtel-analyze. Returns (records
    matched, fields compared exactly)."""
    jtype = dict(pm.TYPES)[rtype]
    table = pm.TABLES[rtype]
    optional = pm.OPTIONAL.get(rtype, set())
    native = {pm.NATIVE_KEY[n] for n in pm.NATIVE[rtype] + pm.NATIVE_ALL}
    for k in sorted((set(prims) | native) - set(table)):
        fails.add("%s: primitive/key %s has no entry in the mapping table"
                  % (where, k))
    obs = {p: i for i, p in enumerate(points)}
    flows = {}
    for r in lines:
        if r["type"] == "flow":
            flows.setdefault((r["obs"], r["src"], r["dst"], r["dqpn"]), r)
    ctx = {"obs": obs, "index": 0,
           "flow_of": lambda m: flows.get((m["obs"], m["src"], m["dst"],
                                           m["dqpn"]))}
    want = [expected(table, r, ctx) for r in lines if r["type"] == jtype]
    # (domain, flowId): 1..n in each worker's domain, nothing else
    ids = {}
    for rec in recs:
        key = (int(rec.get("export_proto_sysid", -1)),
               int(rec.get("flow_id", 0)))
        ids[key] = ids.get(key, 0) + 1
    dup = [k for k, n in ids.items() if n > 1]
    if dup:
        fails.add("%s: (domain, flowId) printed twice: %s" % (where, dup[:5]))
    per_dom = {}
    for d, f in ids:
        per_dom.setdefault(d, set()).add(f)
    for d, fs in sorted(per_dom.items()):
        if d not in range(DOMAIN, DOMAIN + JOBS):
            fails.add("%s: domain %d (workers: %d..%d)" % (
                where, d, DOMAIN, DOMAIN + JOBS - 1))
        if fs != set(range(1, len(fs) + 1)):
            fails.add("%s: domain %d: flowIds %s... not 1..%d" % (
                where, d, sorted(fs)[:8], len(fs)))
    if len(recs) != len(want):
        fails.add("%s: nfacctd has %d records, rtel-analyze %d" % (
            where, len(recs), len(want)))
    # buckets by the fields whose expected values are plain in every record
    keyf = [k for k in sorted(table) if k not in PER_WORKER | optional and
            want and all(plain(w.get(k)) for w in want)][:12]
    buckets = {}
    for i, w in enumerate(want):
        buckets.setdefault(tuple(w[k] for k in keyf), []).append(i)
    used = set()
    unmatched = []
    nfields = 0
    for rec in recs:
        missing = [k for k in table if k not in PER_WORKER and k not in rec
                   and k not in optional]
        unknown = [k for k in rec if k not in table and k != "event_type"]
        if missing or unknown:
            fails.add("%s: nfacctd record %s/%s: fields missing %s, unknown "
                      "%s" % (where, rec.get("export_proto_sysid"),
                              rec.get("flow_id"), missing, unknown))
            continue
        key = tuple(norm(want[0][k], rec[k]) for k in keyf) if want else ()
        hit = None
        for i in buckets.get(key, []):
            if i not in used and record_ok(want[i], rec, optional):
                hit = i
                break
        if hit is None:
            unmatched.append(rec)
            continue
        used.add(hit)
        nfields += sum(1 for k in want[hit] if k in rec)
    if unmatched:
        fails.add("%s: %d of nfacctd's %d records match no record of "
                  "rtel-analyze" % (where, len(unmatched), len(recs)))
        for rec in unmatched[:2]:
            # the nearest: the JSON record with the fewest differences
            best = None
            for i, w in enumerate(want):
                if i in used:
                    continue
                diff = [k for k, e in w.items() if k in rec and
                        (e is None or not pm.matches(e, rec[k]))]
                if best is None or len(diff) < len(best[1]):
                    best = (i, diff)
            if best:
                w = want[best[0]]
                print("    nfacctd %s/%s differs from the nearest JSON record"
                      " in %s" % (rec.get("export_proto_sysid"),
                                  rec.get("flow_id"),
                                  ["%s: %r != %r" % (k, rec[k], w[k])
                                   for k in best[1][:6]]))
    left = len(want) - len(used)
    if left:
        fails.add("%s: %d of rtel-analyze's %d records not at nfacctd" % (
            where, left, len(want)))
    return len(used), nfields, per_dom


def parse_summary(stderr):
    """{domain: records} of rtel-collect's 'ipfix ... domain D: N records
    in M messages, L records lost' lines, and the records lost."""
    recs, lost = {}, 0
    for ln in stderr.splitlines():
        if ": ipfix " in ln and " domain " in ln:
            d = int(ln.split(" domain ")[1].split(":")[0])
            recs[d] = int(ln.split(": ")[-1].split()[0])
            lost += int(ln.split(" records lost")[0].split()[-1])
    return recs, lost


def one_scenario(collect, analyze, sim, nfacctd, tmp, scen, simopts, points,
                 extra, fails, stats):
    d = os.path.join(tmp, scen)
    cl.run([sim, "--scenario", scen] + simopts +
           ["--seed", str(SEED), "--out", d], timeout=300)
    files = [(p, os.path.join(d, p + ".pcap")) for p in points]
    r = cl.run([analyze, "--format", "json"] + cl.ALL_RECORDS + extra +
               ["--"] + ["%s=%s" % pf for pf in files], timeout=300)
    lines = cl.rtel_records.loads_lines(r.stdout)
    rargs = sum((["-r", "%s=%s" % pf] for pf in files), [])
    for rtype, jtype in pm.TYPES:
        where = "%s %s" % (scen, rtype)
        prim = os.path.join(d, rtype + ".lst")
        with open(prim, "w") as f:
            f.write(cl.run([analyze, "--pmacct-primitives", rtype]).stdout)
        names = cl.primitive_names(prim)
        agg = pm.NATIVE[rtype] + pm.NATIVE_ALL + names
        nwant = sum(1 for x in lines if x["type"] == jtype)
        if nwant == 0:
            continue  # (the capture has none: no collector to run)

        def export(port):
            t = time.monotonic()
            rc = cl.run([collect, "-j", str(JOBS), "--slot", "9216",
                         "--ipfix", "127.0.0.1:%d" % port, "--mtu", "1500",
                         "--domain", str(DOMAIN), TYPE_OPTION[rtype]] +
                        extra + rargs, timeout=300)
            said, lost = parse_summary(rc.stderr)
            return sum(said.values()), (said, lost, time.monotonic() - t)

        col, status, (said, lost, secs) = cl.collect(
            nfacctd, d, "nfacctd-" + rtype, prim, agg, export,
            key=("export_proto_sysid", "flow_id"))
        if status != 0:
            fails.add("%s: nfacctd exit status %r" % (where, status))
        for p in col.problems():
            fails.add("%s: nfacctd log: %s" % (where, p))
        if lost or sorted(said) != list(range(DOMAIN, DOMAIN + JOBS)) or \
                sum(said.values()) != nwant:
            fails.add("%s: rtel-collect's summary: records per domain %s, "
                      "%d lost; rtel-analyze has %d" % (where, said, lost,
                                                         nwant))
        n, nf, per_dom = compare(where, rtype, lines,
                                 col.records(partial_ok=False), points,
                                 names, fails)
        stats.append((where, nwant, n, nf,
                      {k: len(v) for k, v in sorted(per_dom.items())}, secs))


def main():
    collect = need_collect()
    analyze, sim = cl.need_tools()
    nfacctd = cl.find_program("nfacctd", "NFACCTD")
    if nfacctd is None:
        cl.skip("nfacctd (pmacct) not installed")
    cl.need_loopback()
    t0 = time.monotonic()
    fails = pm.Failures()
    stats = []
    tmp = cl.make_tmpdir("collect-nfacctd")
    try:
        for scen, simopts, points, extra in SCENARIOS:
            one_scenario(collect, analyze, sim, nfacctd, tmp, scen, simopts,
                         points, extra, fails, stats)
    finally:
        cl.rmtree(tmp)
    for where, want, got, nf, per_dom, secs in stats:
        print("%-28s %5d records of rtel-analyze, %5d matched at nfacctd "
              "(per domain %s), %6d fields equal; rtel-collect %.1f s" % (
                  where, want, got, per_dom, nf, secs))
    print("total: %d records matched, %.1f s" % (
        sum(s[2] for s in stats), time.monotonic() - t0))
    if fails.msgs:
        print("%d failures" % len(fails.msgs))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
