#!/usr/bin/env python3
"""The fabric-scale path, switch agents -> IPFIX -> nfacctd -> Kafka ->
ClickHouse, against rtel-analyze's own JSON records: the I/O records as
ClickHouse stores them (tests/ipfix/clickhouse-tables.sql) and the segment
records ClickHouse computes from them (tests/ipfix/segments.sql) must
equal, record by record and field by field, what rtel-analyze prints.

The expected values come from rtel-analyze's JSON printer; what is checked
went the other way: the library's IPFIX encoder, UDP, nfacctd's decoding
and JSON output, ClickHouse's parsing, the materialized view of
clickhouse-tables.sql and the join of segments.sql. Nothing is computed in
Python but changes of notation (a JSON number op vs the decimal string of
the SQL column, true vs 1, an absent qid vs NULL, the point's name).

Kafka: the JSON objects that nfacctd's kafka plugin would publish to a
topic are the ones its print plugin writes (pmacct builds both with the
same JSON serializer), and a ClickHouse Kafka engine table reads them as
JSONEachRow. pmacct 1.7's kafka plugin needs a broker, and none is
available here, so the test stands nfacctd's print plugin output in for
the Kafka topic: it loads that file with clickhouse-client --query "INSERT
INTO rtel_io_ingest FORMAT JSONEachRow", the same JSON the Kafka engine
table would consume, into the same table (ENGINE = Null here, Kafka when
deployed: the only line that differs) and through the same materialized
view. The Kafka variant of the tables is created too (against a closed
port of 127.0.0.1), to show that ClickHouse accepts it, and dropped.

The cases: rtel-sim's nvme-read, nvme-write and nvme-two-obs scenarios
(seed 1; the host port h0 and the storage port t0, declared compute and
storage side; nvme-two-obs gives the two points clocks milliseconds apart
and has flushes, whose I/O keys repeat), each read by one "agent" (one
rtel-analyze run with both points), and nvme-two-obs again with two
agents, one per point (domains 4 and 5), as at fabric scale where the two
ports are on different switches and no agent sees both. For each case:

  1. nfacctd listens on a free UDP port of 127.0.0.1 with the primitives
     file of `rtel-analyze --pmacct-primitives io` and the aggregate
     peer_src_ip, export_proto_sysid, src_host, dst_host, in_iface and
     every primitive of the file (flow_id among them), as
     clickhouse-tables.sql describes; its print plugin writes JSON;
  2. each agent, rtel-analyze --format json --flows --messages --ios
     --segments --summary --ipfix 127.0.0.1:PORT --mtu 1500 --domain D
     [--compute-side h0 --storage-side t0] -- POINT=POINT.pcap..., exports
     every record and prints them in delivery order: the record on line i
     (from 0) has flowId i + 1 in domain D;
  3. once nfacctd printed every (domain, flowId), it is stopped (SIGINT);
  4. a private clickhouse-server (temporary configuration and data,
     127.0.0.1 only, free ports) gets a database per case with the tables
     of clickhouse-tables.sql and the view of segments.sql, the points in
     rtel_points (exporter 127.0.0.1, the agent's domain, the input index,
     the name, the role), and nfacctd's JSON in rtel_io_ingest;
  5. rtel_io must hold one row per JSON I/O record of every agent, with its
     domain and flowId, and every member of that JSON record must equal
     the column of the same name (obs: the name of the point in
     rtel_points);
  6. rtel_segments must hold exactly the JSON segment records of
     `rtel-analyze --segments --compute-side h0 --storage-side t0` on the
     two captures (the agent's own records when it read both, otherwise a
     run of its own): as many, and each equal to one of them in every
     member (type, host, target, target_qpn, cid, op, compute_obs,
     storage_obs, roles, nsid, slba, bytes, iol1_ns, iol2_ns, rtt_ns,
     compute_ns, network_ns, storage_ns).

segments.sql has no join window (it says why); these scenarios complete
every I/O at both points within microseconds, so the library's window
never ends a wait and the equality is exact. Each case's line says how
many segments had a repeated I/O key (the occurrence rule) and how many
had compute time (fetched writes).

Skips (77) without clickhouse-server or clickhouse-client (CLICKHOUSE_SERVER,
CLICKHOUSE_CLIENT or the PATH, /usr/sbin included), nfacctd (NFACCTD),
rtel-sim or rtel-analyze, or when 127.0.0.1 cannot be bound. The server,
every nfacctd and the temporary directory are removed on the way out,
failure or not.
"""
import collections
import json
import os
import signal
import socket
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import collectorlib as cl  # noqa: E402

TABLES_SQL = os.path.join(HERE, "clickhouse-tables.sql")
SEGMENTS_SQL = os.path.join(HERE, "segments.sql")
SEED = 1
ROLES = {"h0": "compute", "t0": "storage"}
ROLE_OPTS = ["--compute-side", "h0", "--storage-side", "t0"]
# (label, rtel-sim scenario, agents): each agent is one rtel-analyze run,
# (its observation domain, the points it reads, in input order: the
# observationPointId is the index)
CASES = [
    ("nvme-read", "nvme-read", [(1, ["h0", "t0"])]),
    ("nvme-write", "nvme-write", [(2, ["h0", "t0"])]),
    ("nvme-two-obs", "nvme-two-obs", [(3, ["h0", "t0"])]),
    ("nvme-two-obs/2 agents", "nvme-two-obs", [(4, ["h0"]), (5, ["t0"])]),
]
EXPORTER = "127.0.0.1"  # nfacctd's peer_ip_src of rtel-analyze's messages
# the native primitives of the aggregate (clickhouse-tables.sql's header)
NATIVE = ["peer_src_ip", "export_proto_sysid", "src_host", "dst_host",
          "in_iface"]
# the members of rtel-analyze's JSON segment records (but op, the name of
# nvme_opcode: the SQL has the numbers, NAMES below)
SEGMENT_KEYS = ["type", "host", "target", "target_qpn", "cid", "nvme_opcode",
                "compute_obs", "storage_obs", "roles", "nsid", "slba",
                "bytes", "iol1_ns", "iol2_ns", "rtt_ns", "compute_ns",
                "network_ns", "storage_ns"]
# the rtel_io columns named as the members of the JSON I/O records (obs
# comes from rtel_points)
IO_COLUMNS = ["host", "target", "host_qpn", "target_qpn", "cid", "qid",
              "nvme_opcode", "nvme_fctype", "nsid", "slba", "nlb", "bytes",
              "nvme_status", "state",
              "incapsule", "t_cmd_ns", "t_rsp_ns", "t_data_first_ns",
              "t_data_last_ns", "t_rdreq_ns", "iol_ns", "dal_ns", "dpl_ns",
              "xfer_ns", "port", "coverage_start_ns", "coverage_end_ns"]
# the JSON's words for its numbers (rtel_nvme_cmd_str(3) and
# rtel_nvme_status_str(3)): not in the SQL, which has the numbers
NAMES = {"op", "nvme_status_name"}
KAFKA_ENGINE = ("ENGINE = Kafka('127.0.0.1:%d', 'rtel-io', "
                "'rtel-clickhouse-test', 'JSONEachRow');")


class Failures:
    def __init__(self):
        self.msgs = []

    def add(self, msg):
        if len(self.msgs) < 60:
            print("FAIL: " + msg)
        self.msgs.append(msg)


def notation(r):
    """A JSON record (tests/rtel_records.py: 64-bit members as ints) in the
    SQL columns' notation: booleans as 0/1, a member the JSON leaves out as
    NULL, the words of NAMES left out."""
    out = {}
    if r["type"] == "io":
        out = {k: None for k in IO_COLUMNS}
    for k, v in r.items():
        if k in NAMES:
            continue
        if isinstance(v, bool):
            v = int(v)
        out[k] = v
    return out


def read(path):
    with open(path) as f:
        return f.read()


def create_schema(ch, db):
    ch.query("CREATE DATABASE %s" % db)
    ch.query(read(TABLES_SQL), db, multi=True)
    ch.query(read(SEGMENTS_SQL), db, multi=True)


def check_ios(ch, db, label, runs, fails):
    """Step 5: |runs| is {domain: the JSON records of that agent's run}.
    Returns the number of rtel_io rows, of JSON I/O records, of those with
    a row equal in every member, and of members equal."""
    ios = {}
    for dom, lines in runs.items():
        for i, r in enumerate(lines):
            if r["type"] == "io":
                ios[(dom, i + 1)] = notation(r)
    rows = ch.json_rows(
        "SELECT observation_domain_id, flow_id, name AS obs, %s FROM rtel_io "
        "ALL LEFT JOIN (SELECT exporter, observation_domain_id, "
        "observation_point_id, name FROM rtel_points FINAL) USING "
        "(exporter, observation_domain_id, observation_point_id) ORDER BY "
        "observation_domain_id, flow_id" % ", ".join(IO_COLUMNS), db)
    by_id = collections.defaultdict(list)
    for row in rows:
        by_id[(row.pop("observation_domain_id"), row.pop("flow_id"))].append(
            row)
    for key in sorted(set(by_id) - set(ios)):
        lines = runs.get(key[0], [])
        fails.add("%s: rtel_io has domain %d flowId %d: JSON line %d of that "
                  "run is %s" % (label, key[0], key[1], key[1],
                                 lines[key[1] - 1]["type"]
                                 if key[1] <= len(lines) else "missing"))
    n_fields = n_equal = 0
    for key, exp in sorted(ios.items()):
        got = by_id.get(key, [])
        if len(got) != 1:
            fails.add("%s: rtel_io has %d rows of domain %d flowId %d (JSON "
                      "line %d, an I/O)" % (label, len(got), key[0], key[1],
                                            key[1]))
            continue
        got = got[0]
        exp = dict(exp)
        del exp["type"]
        n_equal += exp == got
        for k in sorted(set(exp) | set(got)):
            if k not in got:
                fails.add("%s domain %d flowId %d: JSON member %s has no "
                          "rtel_io column" % (label, key[0], key[1], k))
            elif k not in exp:
                fails.add("%s domain %d flowId %d: rtel_io column %s=%r is "
                          "not in the JSON record" % (label, key[0], key[1],
                                                      k, got[k]))
            elif exp[k] != got[k]:
                fails.add("%s domain %d flowId %d: %s = %r in rtel_io, %r in "
                          "the JSON" % (label, key[0], key[1], k, got[k],
                                        exp[k]))
            else:
                n_fields += 1
    return len(rows), len(ios), n_equal, n_fields


def io_key(r):
    return tuple(r[k] for k in ("host", "target", "target_qpn", "cid",
                                "nvme_opcode", "nsid", "slba", "bytes"))


def check_segments(ch, db, label, lines, fails):
    """Step 6: |lines| are the JSON records with the expected segments.
    Returns the number of JSON segments, of rtel_segments rows, of JSON
    segments with an equal row, and of members of those."""
    exp = []
    for i, r in enumerate(lines):
        if r["type"] != "segment":
            continue
        if sorted(set(r) - NAMES) != sorted(SEGMENT_KEYS):
            fails.add("%s: JSON line %d: segment members %s, the test "
                      "compares %s" % (label, i + 1, sorted(r),
                                       sorted(SEGMENT_KEYS)))
        exp.append(notation(r))
    got = ch.json_rows("SELECT %s FROM rtel_segments ORDER BY "
                       "compute_t_rsp_ns, compute_flow_id"
                       % ", ".join(SEGMENT_KEYS), db)

    def canon(r):
        return json.dumps(r, sort_keys=True)
    ce = collections.Counter(canon(r) for r in exp)
    cg = collections.Counter(canon(r) for r in got)
    missing = ce - cg
    extra = cg - ce
    if len(exp) != len(got):
        fails.add("%s: %d JSON segment records, %d rows of rtel_segments"
                  % (label, len(exp), len(got)))
    if missing or extra:
        # show what differs, per I/O
        g_by = collections.defaultdict(list)
        for r in extra.elements():
            r = json.loads(r)
            g_by[io_key(r)].append(r)
        for r in list(missing.elements())[:20]:
            r = json.loads(r)
            cand = g_by.get(io_key(r))
            if not cand:
                fails.add("%s: JSON segment %s: no rtel_segments row of that "
                          "I/O" % (label, canon(r)))
                continue
            c = cand[0]
            diff = ["%s: %r in SQL, %r in the JSON" % (k, c.get(k), r.get(k))
                    for k in SEGMENT_KEYS if c.get(k) != r.get(k)]
            fails.add("%s: segment of I/O %r: %s" % (label, io_key(r),
                                                     "; ".join(diff)))
        if extra:
            fails.add("%s: %d rtel_segments rows equal to no JSON segment, "
                      "%d JSON segments equal to no row" % (
                          label, sum(extra.values()),
                          sum(missing.values())))
    equal = sum((ce & cg).values())
    return len(exp), len(got), equal, equal * len(SEGMENT_KEYS)


def one_case(ch, analyze, sim, nfacctd, tmp, label, scen, agents, fails):
    t0 = time.monotonic()
    tag = label.replace("/", "-").replace(" ", "-")
    d = os.path.join(tmp, tag)
    pcaps = cl.run_sim(sim, scen, SEED, d, sorted(ROLES))
    prim = os.path.join(d, "io.lst")
    with open(prim, "w") as f:
        f.write(cl.run([analyze, "--pmacct-primitives", "io"]).stdout)
    agg = NATIVE + cl.primitive_names(prim)

    def export(port):
        # the agents one after the other, to the one collector
        runs = {}
        for dom, points in agents:
            extra = ROLE_OPTS if len(points) == 2 else []
            r = cl.run(cl.analyze_ipfix_cmd(
                analyze, port, [(p, pcaps[p]) for p in points], dom, extra))
            runs[dom] = cl.json_records(r.stdout, r.stderr, label)
        return sum(len(l) for l in runs.values()), runs
    # the agents' flowIds overlap (each run starts at 1): their domains
    # keep them apart
    col, status, runs = cl.collect(nfacctd, d, "nfacctd", prim, agg, export,
                                   key=("export_proto_sysid", "flow_id"))
    if status != 0:
        fails.add("%s: nfacctd exit status %r" % (label, status))
    for p in col.problems():
        fails.add("%s: nfacctd log: %s" % (label, p))
    recs = col.records(partial_ok=False)
    ids = collections.Counter((int(r.get("export_proto_sysid", 0)),
                               int(r.get("flow_id", "0"))) for r in recs)
    dup = sorted(f for f, n in ids.items() if n > 1)
    if dup:
        fails.add("%s: nfacctd printed (domain, flowId)s %s more than once"
                  % (label, dup[:10]))
    want = {(dom, i + 1) for dom, lines in runs.items()
            for i in range(len(lines))}
    if set(ids) != want:
        fails.add("%s: nfacctd (domain, flowId)s: %d missing %s, %d "
                  "unexpected %s" % (
                      label, len(want - set(ids)),
                      sorted(want - set(ids))[:10], len(set(ids) - want),
                      sorted(set(ids) - want)[:10]))
    if len(agents) == 1:
        ref = runs[agents[0][0]]  # the same run's segments
    else:
        # the segments of the two points read together (no export)
        ref = cl.rtel_records.loads_lines(cl.run(
            [analyze, "--format", "json", "--segments"] + ROLE_OPTS
            + ["--"] + ["%s=%s" % (p, pcaps[p]) for p in sorted(ROLES)]
        ).stdout)

    # Kafka stand-in: nfacctd's JSON objects, as the topic would hold them
    db = "rtel_" + tag.replace("-", "_")
    create_schema(ch, db)
    ch.query("INSERT INTO rtel_points VALUES " + ", ".join(
        "('%s', %d, %d, '%s', '%s')" % (EXPORTER, dom, i, name, ROLES[name])
        for dom, points in agents for i, name in enumerate(points)), db)
    with open(col.out) as f:
        ch.query("INSERT INTO rtel_io_ingest FORMAT JSONEachRow", db,
                 data=f.read())

    n_rows, n_ios, io_equal, io_fields = check_ios(ch, db, label, runs,
                                                   fails)
    n_seg, n_sql, seg_equal, seg_fields = check_segments(ch, db, label, ref,
                                                         fails)
    ex = ch.json_rows("SELECT countIf(occurrence > 1) AS repeated, "
                      "max(occurrence) AS max_occ, countIf(compute_ns != 0) "
                      "AS fetched_writes FROM rtel_segments", db)[0]
    print("%s: %s exported %d records, %d at nfacctd; rtel_io: %d rows, %d "
          "of the %d JSON I/O records equal (%d fields); rtel_segments: %d "
          "rows, %d of the %d JSON segment records equal (%d fields; %d of a "
          "repeated I/O key, occurrence up to %d; %d with compute time); "
          "%.1f s" % (
              label, " and ".join("domain %d (%s)" % (dom, ",".join(points))
                                  for dom, points in agents),
              len(want), len(ids), n_rows, io_equal, n_ios, io_fields,
              n_sql, seg_equal, n_seg, seg_fields, ex["repeated"],
              ex["max_occ"], ex["fetched_writes"], time.monotonic() - t0))
    sys.stdout.flush()
    return n_ios, io_equal, io_fields, n_seg, seg_equal, seg_fields


def kafka_variant(ch, fails):
    """clickhouse-tables.sql with the Kafka engine for rtel_io_ingest, in
    a database of its own; the broker is a closed port of 127.0.0.1."""
    text = read(TABLES_SQL)
    if text.count("ENGINE = Null;") != 1:
        fails.add("clickhouse-tables.sql: not one 'ENGINE = Null;' (the "
                  "ingest table's engine)")
        return
    port = cl.free_port(socket.SOCK_STREAM)
    ch.query("CREATE DATABASE rtel_kafka")
    try:
        ch.query(text.replace("ENGINE = Null;", KAFKA_ENGINE % port, 1),
                 "rtel_kafka", multi=True)
        ch.query(read(SEGMENTS_SQL), "rtel_kafka", multi=True)
        eng = ch.query("SELECT engine FROM system.tables WHERE database = "
                       "'rtel_kafka' AND name = 'rtel_io_ingest'").strip()
        if eng != "Kafka":
            fails.add("Kafka variant: rtel_io_ingest has engine %r" % eng)
        else:
            print("Kafka variant of clickhouse-tables.sql accepted "
                  "(rtel_io_ingest ENGINE = Kafka, rtel_io_mv from it)")
    finally:
        ch.query("DROP DATABASE rtel_kafka")


def main():
    analyze, sim = cl.need_tools()
    server = cl.find_program("clickhouse-server", "CLICKHOUSE_SERVER")
    if server is None:
        cl.skip("clickhouse-server not found (CLICKHOUSE_SERVER, PATH, "
                "/usr/sbin)")
    client = cl.find_program("clickhouse-client", "CLICKHOUSE_CLIENT")
    if client is None:
        cl.skip("clickhouse-client not found (CLICKHOUSE_CLIENT, PATH)")
    nfacctd = cl.find_program("nfacctd", "NFACCTD")
    if nfacctd is None:
        cl.skip("nfacctd (pmacct) not found (NFACCTD, PATH, /usr/sbin)")
    cl.need_loopback()
    # make's timeout or a hangup: run the finally blocks (the children go)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda s, f: sys.exit(128 + s))
    t0 = time.monotonic()
    fails = Failures()
    tmp = cl.make_tmpdir("clickhouse")
    ch = None
    totals = [0] * 6
    try:
        ch = cl.ClickHouse(server, client, tmp).start()
        version = ch.query("SELECT version()").strip()
        print("clickhouse-server %s on 127.0.0.1:%d, started in %.2f s" % (
            version, ch.tcp, time.monotonic() - t0))
        for label, scen, agents in CASES:
            res = one_case(ch, analyze, sim, nfacctd, tmp, label, scen,
                           agents, fails)
            totals = [a + b for a, b in zip(totals, res)]
        kafka_variant(ch, fails)
    finally:
        if ch is not None:
            status = ch.stop()
            if status not in (0, None):
                print("clickhouse-server exit status %r" % status)
        cl.rmtree(tmp)
    print("total: of rtel-analyze's JSON records, %d of %d I/O records "
          "(%d fields) and %d of %d segment records (%d fields) equal in "
          "ClickHouse, %.1f s" % (
              totals[1], totals[0], totals[2], totals[4], totals[3],
              totals[5], time.monotonic() - t0))
    if fails.msgs:
        print("%d failures" % len(fails.msgs))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
