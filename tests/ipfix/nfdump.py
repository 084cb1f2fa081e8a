#!/usr/bin/env python3
"""rtel-analyze's IPFIX export over UDP, collected by nfcapd, read back
with nfdump, against rtel-analyze's JSON records.

Two captures from rtel-sim (a lossy RDMA one, rdma-loss-between seed 1,
and an NVMe-oF one, nvme-read seed 1, both points of each as two inputs)
are exported with `rtel-analyze --ipfix 127.0.0.1:PORT --mtu 1500 --domain
D --flows --format json` to one nfcapd on a free loopback port (domain 1,
then 2: nfcapd keeps one exporter, and one sequence check, per observation
domain). The expected records are rtel-analyze's JSON with every record
option (peerlib.ALL_RECORDS), in delivery order.

Required:
  * rtel-analyze: exit 0, its stderr line "ipfix: N records in M messages
    (B bytes) to udp 127.0.0.1:PORT" with N = the JSON records and no loss;
    the flows it printed are the flows of the all-records JSON (the export
    does not depend on what is printed);
  * nfdump lists exactly N records of each domain;
  * nfdump -I: 0 sequence failures; nfdump -E: per exporter (domain) 0
    sequence failures and M packets (messages). Their "flows" count only
    the records with nfcapd's generic-flow extension (times, counters,
    ports...): our segment template has none of those elements, so the
    expected flow count is N minus the segment records;
  * per record, the standard fields nfdump prints equal the JSON: source
    and destination address, observation domain and point (the input
    index), and for flows (source port, input interface = the input index,
    start and end time to the ms, packets, bytes), messages (the same, no
    port) and I/Os (input interface, start/end ms as rtel_ipfix_add_io
    derives them, no counters); for summaries the octets.

How records are matched: by position. nfdump 1.7.1 cannot print flowId,
and no field set is a key: (addresses, start ms, bytes) repeats for the
many equal-sized messages and I/Os that begin in the same ms. But nfcapd
stores records in arrival order, loopback UDP keeps the datagram order of
one socket, the encoder numbers records in delivery order and the
all-records JSON is in delivery order: the i-th record nfdump lists for a
domain is flowId i, the i-th JSON record. (If records are missing the
count check fails and no per-record comparison is made; the receive
queue drops of nfcapd's socket are reported.)
"""

import os
import signal
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peerlib as pl  # noqa: E402

CASES = [  # (label, scenario, seed, domain)
    ("rdma-loss-between", "rdma-loss-between", 1, 1),
    ("nvme-read", "nvme-read", 1, 2),
]
FMT = "fmt:%odid|%opid|%sa|%da|%sp|%in|%tsr|%ter|%pkt|%byt"


def ms_of(s):
    """nfdump's fractional seconds (%tsr, %ter: "1700000000.002") -> ms."""
    sec, _, frac = s.strip().partition(".")
    return int(sec) * 1000 + int((frac + "000")[:3])


def parse_listing(text):
    recs = []
    for line in text.splitlines():
        if not line.strip():
            continue
        c = [x.strip() for x in line.split("|")]
        if len(c) != 10:
            raise RuntimeError("unexpected nfdump line: %r" % line)
        recs.append(dict(odid=int(c[0], 16), opid=int(c[1], 16),
                         sa=pl.ipaddress.ip_address(c[2]),
                         da=pl.ipaddress.ip_address(c[3]),
                         sp=int(c[4]), inp=int(c[5]), ts=ms_of(c[6]),
                         te=ms_of(c[7]), pkt=int(c[8]), byt=int(c[9])))
    return recs


def expect_fields(r, obs, domain):
    """The nfdump fields expected of JSON record |r| (only those compared)."""
    sa, da = pl.rec_addrs(r)
    t = r["type"]
    e = dict(odid=domain, sa=sa, da=da)
    e["opid"] = obs[r["compute_obs"]] if t == "segment" else obs[r["obs"]]
    if t in ("flow", "message", "io"):
        start, end = pl.rec_times(r)
        # ingressInterface: the record's port (rtel-analyze: the input
        # index)
        e.update(inp=r["port"],
                 ts=0 if start is None else start // 1000000,
                 te=0 if end is None else end // 1000000)
        e["sp"] = r["sport"] if t == "flow" else 0
        e["pkt"] = r.get("packets", 0) if t != "io" else 0
        e["byt"] = r.get("bytes", 0) if t != "io" else 0
    elif t == "summary":
        e["byt"] = r["bytes"]
    return e


def main():
    sim, ana = pl.need_rtel()
    nfcapd = pl.program("NFCAPD", "nfcapd")
    nfdump = pl.program("NFDUMP", "nfdump")
    if not nfcapd or not nfdump:
        pl.skip("nfcapd/nfdump not found (Debian package nfdump)")
    pl.loopback_udp_or_skip()
    cl = pl.Cleanup()
    try:
        return run(cl, sim, ana, nfcapd, nfdump)
    finally:
        cl.run()


def run(cl, sim, ana, nfcapd, nfdump):
    t0 = time.time()
    ck = pl.Checker()
    work = cl.tmpdir("nfdump")
    cases = []
    for label, scen, seed, dom in CASES:
        inputs = pl.simulate(sim, scen, seed, os.path.join(work, label))
        cases.append((label, inputs, dom, pl.analyze_json(ana, inputs)))
    proc, port, logp = pl.start_nfcapd(cl, nfcapd, work)
    stats = {}
    for label, inputs, dom, exp in cases:
        r = pl.run([ana, "--ipfix", "127.0.0.1:%d" % port, "--mtu", "1500",
                    "--domain", str(dom), "--flows", "--format", "json",
                    "--"] + inputs, check=False)
        ck.eq("%s: rtel-analyze exit status" % label, 0, r.returncode)
        n, m, b, dest, lost = pl.export_stats(r.stderr)
        stats[dom] = (n, m)
        ck.eq("%s: records exported (stderr) vs JSON records" % label,
              len(exp), n)
        ck.eq("%s: records lost" % label, 0, lost)
        ck.eq("%s: destination" % label, "udp 127.0.0.1:%d" % port, dest)
        printed = [pl.rtel_records.loads(x) for x in r.stdout.splitlines() if x]
        ck.eq("%s: printed flows = flows of the all-records run" % label,
              [x for x in exp if x["type"] == "flow"], printed)
        pl.log("%s: %d records in %d messages (%d bytes), domain %d"
               % (label, n, m, b, dom))
    pl.wait_drained(port)
    sock = pl.udp_socket_state(port)
    drops = sock[1] if sock else None
    st = pl.stop_process(proc, signal.SIGTERM, 10)
    ck.eq("nfcapd exit status", 0, st)
    nflog = open(logp).read()
    ck.ok("Terminating" in nflog, "nfcapd log", nflog[-500:])
    flows = os.path.join(work, "flows")
    env = dict(os.environ, TZ="UTC")
    listing = parse_listing(pl.run([nfdump, "-R", flows, "-q", "-N", "-o",
                                    FMT], env=env).stdout)
    info = pl.run([nfdump, "-R", flows, "-I"], env=env).stdout
    seqf = pl.re.search(r"^Sequence failures:\s*(\d+)", info, pl.re.M)
    nflows = pl.re.search(r"^Flows:\s*(\d+)", info, pl.re.M)
    exporters = {}
    for f in sorted(os.listdir(flows)):
        if f.startswith("nfcapd.") and not f.startswith("nfcapd.current"):
            ex = pl.parse_exporters(pl.run(
                [nfdump, "-E", os.path.join(flows, f)], env=env).stdout)
            for d, v in ex.items():
                old = exporters.get(d, (0, 0, 0))
                exporters[d] = tuple(a + b for a, b in zip(old, v))
    ck.ok(seqf is not None and int(seqf.group(1)) == 0,
          "nfdump -I sequence failures", seqf.group(0) if seqf else info)
    total = sum(len(c[3]) for c in cases)
    segs = sum(1 for c in cases for x in c[3] if x["type"] == "segment")
    ck.eq("nfdump -I flows (records but segments)", total - segs,
          int(nflows.group(1)) if nflows else None)
    compared = {}
    for label, inputs, dom, exp in cases:
        obs = pl.obs_index(inputs)
        got = [x for x in listing if x["odid"] == dom]
        n, m = stats[dom]
        nseg = sum(1 for x in exp if x["type"] == "segment")
        ck.eq("%s: nfdump -E (sequence failures, packets, flows)" % label,
              (0, m, n - nseg), exporters.get(dom))
        if not ck.eq("%s: records nfdump lists" % label, len(exp), len(got)):
            pl.log("  nfcapd socket drops: %s; nfcapd log tail: %s"
                   % (drops, nflog.strip()[-300:]))
            continue
        for i, (r, g) in enumerate(zip(exp, got)):
            e = expect_fields(r, obs, dom)
            for k, v in e.items():
                ck.eq("%s: flowId %d (%s) %s" % (label, i + 1, r["type"], k),
                      v, g[k])
            compared[r["type"]] = compared.get(r["type"], 0) + 1
    pl.log("records compared field by field: %s" % ", ".join(
        "%s %d" % kv for kv in sorted(compared.items())))
    pl.log("%d checks, %d failures, %.1f s" % (ck.checks, ck.failures,
                                              time.time() - t0))
    return 1 if ck.failures else 0


if __name__ == "__main__":
    sys.exit(main())
