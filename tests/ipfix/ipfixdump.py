#!/usr/bin/env python3
"""rtel-analyze's IPFIX export read by libfixbuf's ipfixDump --rfc5610,
against rtel-analyze's JSON records.

Captures from rtel-sim: rdma-loss-between seed 1 (flows and messages with
loss), nvme-read seed 1 (I/Os, segments, summaries; latencies that are
none, -2^63 in signed elements) and nvme-two-obs seed 1 with --ipv6 (the
IPv6 templates, points with unsynchronised clocks); both points of each as
two inputs, exported with `--ipfix-file F.ipfix` and every record option
(peerlib.ALL_RECORDS), so the JSON printed is the records, in order.

Required, of `ipfixDump -i F.ipfix --rfc5610`:
  * exit 0, nothing on stderr;
  * no _alienInformationElement anywhere (while the same file without
    --rfc5610 has some: the names come from our type records);
  * every enterprise element of every template is printed by the name of
    its RFC 5610 type record, with the ipfixDump type matching the type
    record's data type (uint8..uint64, int64);
  * the data records per template id (ipfixDump -s) are the JSON records
    per type and family, flowIds 1..N in order;
  * record i's standard and enterprise fields listed in FIELDS below equal
    JSON record i (with the encoder's none values: all ones for unsigned
    times and QPs, -2^63 for signed latencies, 4294967295 for "every
    namespace"), every one of them compared at least once; among them
    signed values printed negative (-2^63) by ipfixDump, which it can only
    do by the type records' signed64 data type.
(ipfixDump 2.4.1 prints dateTimeNanoseconds without the fraction, so the
ns times are left to tests/ipfix/tshark.test.)
"""

import os
import re
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peerlib as pl  # noqa: E402

CASES = [  # (label, scenario, seed, extra rtel-sim options)
    ("rdma-loss-between", "rdma-loss-between", 1, []),
    ("nvme-read", "nvme-read", 1, []),
    ("nvme-two-obs-ipv6", "nvme-two-obs", 1, ["--ipv6"]),
]
U32_NONE = 0xFFFFFFFF
IO_STATES = {"complete": 1, "timeout": 2, "orphan": 3, "evicted": 4,
             "truncated": 5}
OPS = {"flush": 0, "write": 1, "read": 2}
RDMA_OPS = {"send": 1, "write": 2, "read_resp": 4}
ENDS = {"idle": 1, "active": 2, "evicted": 3, "flush": 4, "truncated": 5,
        "acked": 6, "settled": 7, "overflow": 8}


def nvme_op(v, _obs):
    """The JSON op of a summary ("read" or "write") -> its opcode."""
    return OPS[v]


def rdma_ops(v, _obs):
    """JSON operations ("send+write") -> rdmaOperations bits."""
    return sum(RDMA_OPS[x] for x in v.split("+") if x != "none")
# ipfixDump's type names of RFC 5610 data types
DUMP_TYPES = {1: "uint8", 2: "uint16", 3: "uint32", 4: "uint64", 8: "int64"}


def k(key, none=None, conv=None):
    """A JSON member |key|; |none| is the value a member that the JSON
    leaves out (not known, or not applicable) is exported as (None: it is
    not compared); |conv| converts the member."""
    def get(r, obs):
        try:
            v = r[key]  # a Record: None if declared and left out
        except KeyError:
            return KeyError
        if v is None:
            return KeyError if none is None else none
        return conv(v, obs) if conv else v
    return get


def obs_of(key):
    return k(key, conv=lambda v, obs: obs[v])


def hist(key, stat, none=None):
    def get(r, _obs):
        h = r[key]
        if h is None:  # no such latency in the period: count 0
            return 0 if stat == "count" else KeyError
        # an empty distribution has its count only: the rest exports 0
        v = h[stat]
        return 0 if v is None else v
    return get


COMMON_RDMA = {
    "observationPointId": obs_of("obs"),
    "octetDeltaCount": k("bytes"), "packetDeltaCount": k("packets"),
    "rdmaDestinationQpn": k("dqpn"), "rdmaPeerQpn": k("peer_qpn", U32_NONE),
    "rdmaFctNanoseconds": k("fct_ns"), "rdmaFetBitsPerSecond": k("fet_bps"),
    "rdmaRetxPacketCount": k("retx_packets"),
    "rdmaRetxOctetCount": k("retx_bytes"),
    "rdmaNakSeqCount": k("naks_seq"), "rdmaNakRnrCount": k("naks_rnr"),
    "rdmaNakFatalCount": k("naks_fatal"), "rdmaCnpCount": k("cnps"),
    "rdmaEcnCeCount": k("ecn_ce"),
    "rdmaLossUpstreamCount": k("losses_upstream"),
    "rdmaLossDownstreamCount": k("losses_downstream"),
    "rdmaLostUpstreamCount": k("lost_upstream"),
    "rdmaOperations": k("op", conv=rdma_ops),
    "rdmaEndReason": k("end", conv=lambda v, o: ENDS[v]),
}
LAT = {}
for _pfx, _key in (("nvmeIol", "iol"), ("nvmeDal", "dal"),
                   ("nvmeDpl", "dpl")):
    LAT[_pfx + "Count"] = hist(_key, "count")
    for _n, _s in (("Min", "min_ns"), ("Mean", "mean_ns"), ("P50", "p50_ns"),
                   ("P90", "p90_ns"), ("P99", "p99_ns"), ("P999", "p999_ns"),
                   ("Max", "max_ns")):
        LAT[_pfx + _n + "Nanoseconds"] = hist(_key, _s)
FIELDS = {
    "flow": dict(COMMON_RDMA, **{
        "sourceTransportPort": k("sport"), "ipDiffServCodePoint": k("dscp"),
        "ingressInterface": k("port"),
        "rdmaFecnCount": k("fecn_packets"), "rdmaBecnCount": k("becn_packets"),
        "rdmaPsnGapCount": k("psn_gaps"),
        "rdmaRetxAfterNakCount": k("retx_after_nak"),
        "rdmaRetxAfterTimeoutCount": k("retx_after_timeout"),
        "rdmaRetxAfterRnrCount": k("retx_after_rnr"),
        "rdmaOrphanPacketCount": k("orphan_packets"),
        "rdmaMessageCount": k("messages"),
        "rdmaCoverageStartNanoseconds": k("coverage_start_ns"),
        "rdmaCoverageEndNanoseconds": k("coverage_end_ns", pl.NONE_U64)}),
    "message": dict(COMMON_RDMA, **{
        "rdmaFirstPsn": k("first_psn"), "rdmaLastPsn": k("last_psn"),
        "rdmaRethLength": k("reth_len"),
        "rdmaLossNakCount": k("losses_nak"),
        "rdmaLossRnrCount": k("losses_rnr"),
        "rdmaLossTimeoutCount": k("losses_timeout")}),
    "io": {
        "observationPointId": obs_of("obs"), "ingressInterface": k("port"),
        "nvmeIoState": k("state", conv=lambda v, o: IO_STATES[v]),
        "nvmeHostQpn": k("host_qpn", U32_NONE),
        "nvmeTargetQpn": k("target_qpn", U32_NONE),
        "nvmeCommandId": k("cid"), "nvmeQueueId": k("qid"),
        "nvmeOpcode": k("nvme_opcode"), "nvmeFabricsType": k("nvme_fctype"),
        "nvmeStatus": k("nvme_status"), "nvmeNamespaceId": k("nsid"),
        "nvmeStartingLba": k("slba"), "nvmeBlockCount": k("nlb"),
        "nvmeIoLength": k("bytes"),
        "nvmeCommandNanoseconds": k("t_cmd_ns", pl.NONE_U64),
        "nvmeResponseNanoseconds": k("t_rsp_ns", pl.NONE_U64),
        "nvmeDataFirstNanoseconds": k("t_data_first_ns", pl.NONE_U64),
        "nvmeDataLastNanoseconds": k("t_data_last_ns", pl.NONE_U64),
        "nvmeReadRequestNanoseconds": k("t_rdreq_ns", pl.NONE_U64),
        "nvmeIolNanoseconds": k("iol_ns", pl.NONE_S64),
        "nvmeDalNanoseconds": k("dal_ns", pl.NONE_S64),
        "nvmeDplNanoseconds": k("dpl_ns", pl.NONE_S64),
        "nvmeTransferNanoseconds": k("xfer_ns", pl.NONE_S64),
        "rdmaCoverageStartNanoseconds": k("coverage_start_ns"),
        "rdmaCoverageEndNanoseconds": k("coverage_end_ns", pl.NONE_U64)},
    "segment": {
        "observationPointId": obs_of("compute_obs"),
        "nvmeStorageObservationPoint": obs_of("storage_obs"),
        "nvmeRolesConfigured": k("roles",
                                 conv=lambda v, o: int(v == "configured")),
        "nvmeTargetQpn": k("target_qpn", U32_NONE),
        "nvmeCommandId": k("cid"), "nvmeOpcode": k("nvme_opcode"),
        "nvmeNamespaceId": k("nsid"),
        "nvmeStartingLba": k("slba"), "nvmeIoLength": k("bytes"),
        "nvmeIol1Nanoseconds": k("iol1_ns", pl.NONE_S64),
        "nvmeIol2Nanoseconds": k("iol2_ns", pl.NONE_S64),
        "nvmeRttNanoseconds": k("rtt_ns", pl.NONE_S64),
        "nvmeComputeNanoseconds": k("compute_ns", pl.NONE_S64),
        "nvmeNetworkNanoseconds": k("network_ns", pl.NONE_S64),
        "nvmeStorageNanoseconds": k("storage_ns", pl.NONE_S64)},
    "summary": dict(LAT, **{
        "observationPointId": obs_of("obs"),
        "octetDeltaCount": k("bytes"),
        # the period's direction: write, else read
        "nvmeOpcode": k("op", conv=nvme_op),
        "nvmeNamespaceId": k("nsid", U32_NONE),
        "nvmePeriodStartNanoseconds": k("period_start_ns"),
        "nvmePeriodEndNanoseconds": k("period_end_ns"),
        "nvmeIoCount": k("count"), "nvmeIoErrorCount": k("errors"),
        "nvmeIoTimeoutCount": k("timeouts")}),
}

TMPL_FIELD_RE = re.compile(r"^\s*ent:\s*(\d+)\s+id:\s*(\d+)\s+type:\s*(\S+)"
                           r"\s+len:\s*(\d+)\s*(?:\(S\))?\s*(\S+)\s*$")
TID_RE = re.compile(r"tid:\s*(\d+)")
DATA_FIELD_RE = re.compile(r"^\s*\((?:(\d+)/)?(\d+)\)(?:\s*\(S\))?\s*(\S+)"
                           r"\s*:\s?(.*)$")


def parse_dump(text):
    """(templates, records): templates [(tid, [(pen, id, type, len, name)])]
    and records [(tid, {name: value string}, [(pen, id, name)])], in file
    order."""
    templates, records = [], []
    cur = None
    for line in text.splitlines():
        if line.startswith("--- "):
            cur = None
            if "template record" in line:
                cur = ("t", None, [])
                templates.append(cur)
            elif line.startswith("--- data record"):
                cur = ("d", None, {}, [])
                records.append(cur)
            continue
        if cur is None:
            continue
        m = TID_RE.search(line)
        if m and cur[1] is None and "tid:" in line:
            cur = (cur[0], int(m.group(1))) + cur[2:]
            (templates if cur[0] == "t" else records)[-1] = cur
            continue
        if cur[0] == "t":
            m = TMPL_FIELD_RE.match(line)
            if m:
                cur[2].append((int(m.group(1)), int(m.group(2)), m.group(3),
                               int(m.group(4)), m.group(5)))
        else:
            m = DATA_FIELD_RE.match(line)
            if m:
                pen = int(m.group(1) or 0)
                cur[2][m.group(3)] = m.group(4).strip()
                cur[3].append((pen, int(m.group(2)), m.group(3)))
    return ([(t[1], t[2]) for t in templates],
            [(r[1], r[2], r[3]) for r in records])


def main():
    sim, ana = pl.need_rtel()
    dump = pl.program("IPFIXDUMP", "ipfixDump")
    if not dump:
        pl.skip("ipfixDump not found (Debian package libfixbuf-tools)")
    cl = pl.Cleanup()
    try:
        return run(cl, sim, ana, dump)
    finally:
        cl.run()


def run(cl, sim, ana, dump):
    t0 = time.time()
    ck = pl.Checker()
    work = cl.tmpdir("ipfixdump")
    compared = {}
    negatives = 0
    pm = {}
    for els in pl.pmacct_elements(ana, 32473).values():
        pm.update(els)
    for label, scen, seed, extra in CASES:
        inputs = pl.simulate(sim, scen, seed, os.path.join(work, label),
                             extra)
        obs = pl.obs_index(inputs)
        f = os.path.join(work, label + ".ipfix")
        r = pl.run([ana] + pl.ALL_RECORDS + ["--ipfix-file", f, "--"]
                   + inputs)
        exp = [pl.rtel_records.loads(x) for x in r.stdout.splitlines() if x.strip()]
        n, _m, _b, _d, _l = pl.export_stats(r.stderr)
        ck.eq("%s: records exported (stderr) vs JSON" % label, len(exp), n)
        d = pl.run([dump, "-i", f, "--rfc5610"], check=False)
        ck.eq("%s: ipfixDump exit status" % label, 0, d.returncode)
        ck.eq("%s: ipfixDump stderr" % label, "", d.stderr.strip())
        ck.eq("%s: _alienInformationElement in the --rfc5610 dump" % label,
              0, d.stdout.count("_alienInformationElement"))
        ctl = pl.run([dump, "-i", f], check=False).stdout
        ck.ok("_alienInformationElement" in ctl, "%s: control: without "
              "--rfc5610 ipfixDump does not know our elements" % label)
        templates, records = parse_dump(d.stdout)
        # the type records, by (pen, id)
        types = {}
        for tid, vals, _flds in records:
            if tid == pl.TID_TYPES:
                key = (int(vals["privateEnterpriseNumber"]),
                       int(vals["informationElementId"]))
                name = re.sub(r"^\(len: \d+\) ", "",
                              vals["informationElementName"])
                types[key] = (name, int(vals["informationElementDataType"]))
        ck.eq("%s: type records = the elements of --pmacct-primitives"
              % label, {(32473, i): n for i, n in pm.items()},
              {key: pl.camel_to_snake(v[0]) for key, v in types.items()})
        nent = 0
        for tid, fields in templates:
            for pen, ie, typ, ln, name in fields:
                if pen == 0:
                    continue
                nent += 1
                t = types.get((pen, ie))
                if not ck.ok(t is not None, "%s: template %d element %d/%d "
                             "has a type record" % (label, tid, pen, ie)):
                    continue
                ck.eq("%s: template %d element %d/%d name" % (label, tid, pen,
                                                              ie), t[0], name)
                ck.eq("%s: template %d %s type" % (label, tid, name),
                      DUMP_TYPES.get(t[1]), typ)
        data = [x for x in records if x[0] != pl.TID_TYPES]
        want, got = {}, {}
        for x in exp:
            want[pl.template_id(x)] = want.get(pl.template_id(x), 0) + 1
        for x in data:
            got[x[0]] = got.get(x[0], 0) + 1
        ck.eq("%s: data records per template id" % label, want, got)
        for i, (tid, vals, flds) in enumerate(data[:len(exp)]):
            x = exp[i]
            what = "%s: flowId %d (%s)" % (label, i + 1, x["type"])
            if not ck.eq(what + " flowId", str(i + 1), vals.get("flowId")):
                continue
            for pen, ie, name in flds:
                if pen:
                    ck.eq(what + " %d/%d name" % (pen, ie),
                          types.get((pen, ie), ("?",))[0], name)
            for name, get in FIELDS[x["type"]].items():
                v = get(x, obs)
                if v is KeyError:
                    continue
                ck.eq("%s %s" % (what, name), str(v), vals.get(name))
                c = compared.setdefault(x["type"], {})
                c[name] = c.get(name, 0) + 1
                if isinstance(v, int) and v < 0 and vals.get(name) == str(v):
                    negatives += 1
        pl.log("%s: %d records, %d type records, %d enterprise fields in "
               "templates" % (label, len(data), len(types), nent))
    for t, names in FIELDS.items():
        c = compared.get(t, {})
        missing = sorted(n for n in names if not c.get(n))
        ck.eq("%s: fields never compared" % t, [], missing)
        pl.log("%s: %d fields compared over %d records" % (
            t, len(c), max(c.values()) if c else 0))
    ck.ok(negatives > 0, "some negative signed value compared")
    pl.log("negative signed values compared: %d" % negatives)
    pl.log("%d checks, %d failures, %.1f s" % (ck.checks, ck.failures,
                                              time.time() - t0))
    return 1 if ck.failures else 0


if __name__ == "__main__":
    sys.exit(main())
