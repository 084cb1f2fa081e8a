#!/usr/bin/env python3
"""rtel-analyze's IPFIX export, as pmacct's nfacctd collects it, against
rtel-analyze's own JSON records.

For each capture set (a lossy RDMA scenario at both points; the NVMe-oF
read and write scenarios at the host port h0 and the storage port t0, with
the roles configured so that segments exist) and each record type (flow,
message, io, segment, summary):

  1. nfacctd listens on a free UDP port of 127.0.0.1 with the primitives
     file of `rtel-analyze --pmacct-primitives TYPE` and an aggregate of
     every primitive of that file plus the native primitives the type's
     template feeds (addresses, ports, VLAN, interface, times, domain,
     exporter address; packets and bytes are always there);
  2. rtel-analyze --format json --flows --messages --ios --segments
     --summary --ipfix 127.0.0.1:PORT --mtu 1500 --domain 7 FILES exports
     every record and prints them, one JSON line each, in delivery order:
     the record on line i (from 0) has flowId i + 1;
  3. once nfacctd printed every flowId (its print plugin purges every
     second), it is stopped with SIGINT;
  4. nfacctd's records whose flowId names a line of TYPE must be exactly
     as many as those lines, and every field of each must equal the value
     the mapping table below derives from that JSON line. Records of the
     other types reach the same collector with this type's fields zero:
     they are left out by flowId.

The mapping tables (TABLES) list every key nfacctd prints for a type, with
the JSON key(s) it comes from and the conversion: addresses (normalised),
null QPN <-> 4294967295, null timestamp <-> all ones, null duration <->
-2^63 as unsigned (pmacct prints custom primitives as unsigned decimal
strings: a signed64 comes out as its two's complement), op strings <->
RDMA operation bits / NVMe opcodes, end and state strings <-> codes (and
the IANA flowEndReason), doubles fnr/retx_ratio <-> ppm (within rounding:
the JSON double has 9 significant digits), timestamp_start/_end ('s.us' of
dateTimeMilliseconds) <-> the ms of the ns times, flow_start/end_ntp
(dateTimeNanoseconds, hex) <-> the ns times through the NTP conversion of
collectorlib.ntp_to_ns. A key with no JSON counterpart is compared to what
rtel-analyze documents (the ingress interface is the input's index, as is
observationPointId) or, where the JSON says only part of it (some flag
bits), checked for the part it says ("partial"); the fields it says
nothing of at all are counted as "unchecked" and listed. A field missing
from a record, a key the table does not know, a primitive of the file the
table does not cover, or any difference fails the test.

Skips (77) without nfacctd, rtel-sim or rtel-analyze, or when 127.0.0.1
cannot be bound. Every nfacctd and the temporary directory are removed
on the way out, failure or not.
"""
import ipaddress
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import collectorlib as cl  # noqa: E402

SEED = 1
DOMAIN = 7
SCENARIOS = [
    # (scenario, points in input order, extra rtel-analyze options)
    ("rdma-loss-between", ["h0", "h1"], []),
    ("nvme-read", ["h0", "t0"], ["--compute-side", "h0", "--storage-side", "t0"]),
    ("nvme-write", ["h0", "t0"], ["--compute-side", "h0", "--storage-side", "t0"]),
]
# record type (--pmacct-primitives) -> JSON "type"
TYPES = [("flow", "flow"), ("message", "message"), ("io", "io"),
         ("segment", "segment"), ("summary", "summary")]
# native primitives of each type's aggregate (those its template feeds)
NATIVE = {
    "flow": ["src_host", "dst_host", "src_port", "vlan", "in_iface",
             "timestamp_start", "timestamp_end"],
    "message": ["src_host", "dst_host", "in_iface", "timestamp_start",
                "timestamp_end"],
    "io": ["src_host", "dst_host", "in_iface", "timestamp_start",
           "timestamp_end"],
    "segment": ["src_host", "dst_host"],
    "summary": ["src_host", "dst_host"],
}
NATIVE_ALL = ["peer_src_ip", "export_proto_sysid"]
# keys nfacctd may print or leave out for a type (its template has no
# packet or octet counter): when printed, they must be 0
OPTIONAL = {"io": {"packets", "bytes"}, "segment": {"packets", "bytes"}}

RDMA_OPS = {"none": 0, "send": 1, "write": 2, "send+write": 3,
            "read_resp": 4, "send+read_resp": 5, "write+read_resp": 6,
            "send+write+read_resp": 7}
RDMA_END = {"idle": 1, "active": 2, "evicted": 3, "flush": 4,
            "truncated": 5, "acked": 6, "settled": 7, "overflow": 8}
# IANA flowEndReason of an rdma end: 1 idle timeout, 2 active timeout,
# 3 end of flow detected, 4 forced end, 5 lack of resources
IANA_END = {"idle": 1, "active": 2, "acked": 3, "settled": 3, "flush": 4,
            "truncated": 4, "evicted": 5, "overflow": 5}
IO_STATE = {"complete": 1, "timeout": 2, "orphan": 3, "evicted": 4,
            "truncated": 5}
IANA_IO_END = {"timeout": 1, "complete": 3, "orphan": 3, "truncated": 4,
               "evicted": 5}

F_PAIRED, F_IPV6, F_VLAN, F_INCOMPLETE, F_LOST_LB = 1, 2, 4, 8, 16
F_RESPONSE = 32  # a READ RESPONSE flow (its JSON op is read_resp)
IO_IPV6, IO_INCAPSULE, IO_ADMIN, IO_FABRICS, IO_INVALIDATE, IO_QID = \
    1, 2, 4, 8, 16, 32


# --------------------------------------------------- expected-value kinds

class Approx:
    """A ppm figure: |ppm - double * 10^6| <= 0.5 (the encoder rounds to
    nearest) plus the 9-digit print precision of the JSON double."""

    def __init__(self, double):
        self.x = 0.0 if double is None else double * 1e6

    def ok(self, got):
        return abs(int(got) - self.x) <= 0.5 + 1e-6 * max(1.0, self.x)

    def __repr__(self):
        return "ppm~%.6f" % self.x


class Ntp:
    """A dateTimeNanoseconds (hex): decodes to |ns| (0 if none)."""

    def __init__(self, ns):
        self.ns = ns

    def ok(self, got):
        return cl.ntp_to_ns(int(got, 16)) == self.ns

    def __repr__(self):
        return "ntp(%s ns)" % self.ns


class Ip:
    def __init__(self, a):
        self.a = ipaddress.ip_address(a)

    def ok(self, got):
        return ipaddress.ip_address(got) == self.a

    def __repr__(self):
        return str(self.a)


class Partial:
    """What the JSON says of a value (some bits, or nothing: |what|)."""

    def __init__(self, check, what, unchecked=False):
        self.check = check
        self.what = what
        self.unchecked = unchecked

    def ok(self, got):
        return self.check(int(got))

    def __repr__(self):
        return self.what


def matches(exp, got):
    if isinstance(exp, (Approx, Ntp, Ip, Partial)):
        try:
            return exp.ok(got)
        except (TypeError, ValueError):
            return False
    if isinstance(exp, int):
        try:
            return int(got) == exp
        except (TypeError, ValueError):
            return False
    return str(got) == exp


# ------------------------------------------------------- mapping tables
# Each entry: pmacct key -> (JSON source, function(rec, ctx) -> expected).
# ctx: obs (name -> input index), flow_of (the flow record of a message),
# index (the line, from 0).


def j(key, conv=None):
    """The JSON value of |key|, converted."""
    if conv is None:
        return ("%s" % key, lambda r, c: r[key])
    return ("%s" % key, lambda r, c: conv(r[key]))


def later(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)


def io_start(r):
    # rtel_ipfix_add_io: the command, else (an orphan) the response
    return r["t_cmd_ns"] if r["t_cmd_ns"] is not None else r["t_rsp_ns"]


def io_end(r):
    # the response, else the last event seen
    if r["t_rsp_ns"] is not None:
        return r["t_rsp_ns"]
    return later(later(r["t_cmd_ns"], r["t_data_last_ns"]), r["t_rdreq_ns"])


def nvme_opcode(v):
    """JSON nvme_opcode -> opcode; left out (an orphan): 0."""
    return 0 if v is None else v


def io_flags_check(ipv6, r, exact_extra=0, exact_mask=0):
    """nvmeIoFlags as far as the JSON says: the IPv6 bit (addresses), the
    bits in |exact_mask| (= |exact_extra|), FABRICS when the command is
    known (opcode 0x7F), and no ADMIN on a read, write or flush;
    INVALIDATE, and ADMIN on the other commands, are not in the JSON."""
    want = (IO_IPV6 if ipv6 else 0) | exact_extra
    mask = IO_IPV6 | exact_mask

    def check(v):
        if v & mask != want or v & ~0x3f:
            return False
        if r["nvme_opcode"] is not None and \
                bool(v & IO_FABRICS) != (r["nvme_opcode"] == 0x7F):
            return False
        if r["op"] in ("read", "write", "flush"):
            return v & (IO_ADMIN | IO_FABRICS) == 0
        return True
    return Partial(check, "flags&%#x=%#x, fabrics per nvme_opcode %r, "
                   "admin per op %r" % (mask, want, r["nvme_opcode"], r["op"]))


def ipv6(a):
    return ":" in a


def flow_flags(r, c):
    return ((F_PAIRED if r["peer_qpn"] is not None else 0)
            | (F_IPV6 if ipv6(r["src"]) else 0)
            | (F_VLAN if "vlan" in r else 0)
            | (F_LOST_LB if r["lost_upstream_lower_bound"] else 0)
            | (F_RESPONSE if r["op"] == "read_resp" else 0))


def msg_flags(r, c):
    f = c["flow_of"](r)
    base = ((F_PAIRED if r["peer_qpn"] is not None else 0)
            | (F_IPV6 if ipv6(r["src"]) else 0)
            | (0 if r["complete"] else F_INCOMPLETE)
            | (F_LOST_LB if r["lost_upstream_lower_bound"] else 0)
            | (F_RESPONSE if r["op"] == "read_resp" else 0))
    if f is None:  # the VLAN bit is in the flow record only
        return Partial(lambda v: v & ~F_VLAN == base, "flags&~4=%#x" % base)
    return base | (F_VLAN if "vlan" in f else 0)


COMMON = {
    "flow_id": ("line number + 1", lambda r, c: c["index"] + 1),
    "peer_ip_src": ("(exporter) 127.0.0.1", lambda r, c: Ip("127.0.0.1")),
    "export_proto_sysid": ("(--domain) %d" % DOMAIN, lambda r, c: DOMAIN),
}


def obs_index(key):
    return ("index of %s in the inputs" % key, lambda r, c: c["obs"][r[key]])


FLOW = dict(COMMON, **{
    "observation_point_id": obs_index("obs"),
    "ip_src": ("src", lambda r, c: Ip(r["src"])),
    "ip_dst": ("dst", lambda r, c: Ip(r["dst"])),
    "port_src": j("sport"),
    "vlan": ("vlan (absent: 0)", lambda r, c: r.get("vlan", 0)),
    "dscp": j("dscp"),
    "iface_in": j("port"),
    "timestamp_start": j("first_ts_ns", cl.pmacct_ts),
    "timestamp_end": j("last_ts_ns", cl.pmacct_ts),
    "flow_start_ntp": j("first_ts_ns", Ntp),
    "flow_end_ntp": j("last_ts_ns", Ntp),
    "packets": j("packets"),
    "bytes": j("bytes"),
    "flow_end_reason": j("end", IANA_END.get),
    "rdma_destination_qpn": j("dqpn"),
    "rdma_peer_qpn": j("peer_qpn", cl.qpn_u32),
    "rdma_operations": j("op", RDMA_OPS.get),
    "rdma_flow_flags": ("peer_qpn, src, vlan, lost_upstream_lower_bound",
                        flow_flags),
    "rdma_end_reason": j("end", RDMA_END.get),
    "rdma_fct_nanoseconds": j("fct_ns"),
    "rdma_fet_bits_per_second": j("fet_bps"),
    "rdma_fnr_ppm": j("fnr", Approx),
    "rdma_retx_ratio_ppm": j("retx_ratio", Approx),
    "rdma_retx_packet_count": j("retx_packets"),
    "rdma_retx_octet_count": j("retx_bytes"),
    "rdma_nak_seq_count": j("naks_seq"),
    "rdma_nak_rnr_count": j("naks_rnr"),
    "rdma_nak_fatal_count": j("naks_fatal"),
    "rdma_cnp_count": j("cnps"),
    "rdma_ecn_ce_count": j("ecn_ce"),
    "rdma_fecn_count": j("fecn_packets"),
    "rdma_becn_count": j("becn_packets"),
    "rdma_psn_gap_count": j("psn_gaps"),
    "rdma_loss_upstream_count": j("losses_upstream"),
    "rdma_loss_downstream_count": j("losses_downstream"),
    "rdma_retx_after_nak_count": j("retx_after_nak"),
    "rdma_retx_after_timeout_count": j("retx_after_timeout"),
    "rdma_retx_after_rnr_count": j("retx_after_rnr"),
    "rdma_lost_upstream_count": j("lost_upstream"),
    "rdma_orphan_packet_count": j("orphan_packets"),
    "rdma_message_count": j("messages"),
    "rdma_coverage_start_nanoseconds": j("coverage_start_ns", cl.ts_u64),
    "rdma_coverage_end_nanoseconds": j("coverage_end_ns", cl.ts_u64),
})

MESSAGE = dict(COMMON, **{
    "observation_point_id": obs_index("obs"),
    "ip_src": ("src", lambda r, c: Ip(r["src"])),
    "ip_dst": ("dst", lambda r, c: Ip(r["dst"])),
    "iface_in": j("port"),
    "timestamp_start": j("first_ts_ns", cl.pmacct_ts),
    "timestamp_end": j("last_ts_ns", cl.pmacct_ts),
    "flow_start_ntp": j("first_ts_ns", Ntp),
    "flow_end_ntp": j("last_ts_ns", Ntp),
    "packets": j("packets"),
    "bytes": j("bytes"),
    "flow_end_reason": j("end", IANA_END.get),
    "rdma_destination_qpn": j("dqpn"),
    "rdma_peer_qpn": j("peer_qpn", cl.qpn_u32),
    "rdma_operations": j("op", RDMA_OPS.get),
    "rdma_flow_flags": ("peer_qpn, src, complete, lost_upstream_lower_bound"
                        ", the flow's vlan", msg_flags),
    "rdma_end_reason": j("end", RDMA_END.get),
    "rdma_first_psn": j("first_psn"),
    "rdma_last_psn": j("last_psn"),
    "rdma_reth_length": j("reth_len"),
    "rdma_fct_nanoseconds": j("fct_ns"),
    "rdma_fet_bits_per_second": j("fet_bps"),
    "rdma_retx_packet_count": j("retx_packets"),
    "rdma_retx_octet_count": j("retx_bytes"),
    "rdma_nak_seq_count": j("naks_seq"),
    "rdma_nak_rnr_count": j("naks_rnr"),
    "rdma_nak_fatal_count": j("naks_fatal"),
    "rdma_cnp_count": j("cnps"),
    "rdma_ecn_ce_count": j("ecn_ce"),
    "rdma_loss_upstream_count": j("losses_upstream"),
    "rdma_loss_downstream_count": j("losses_downstream"),
    "rdma_loss_nak_count": j("losses_nak"),
    "rdma_loss_rnr_count": j("losses_rnr"),
    "rdma_loss_timeout_count": j("losses_timeout"),
    "rdma_lost_upstream_count": j("lost_upstream"),
    "rdma_coverage_start_nanoseconds": j("coverage_start_ns", cl.ts_u64),
    "rdma_coverage_end_nanoseconds": j("coverage_end_ns", cl.ts_u64),
})


def io_flags(r, c):
    return io_flags_check(ipv6(r["host"]), r,
                          (IO_INCAPSULE if r["incapsule"] else 0)
                          | (IO_QID if "qid" in r else 0),
                          IO_INCAPSULE | IO_QID)


def io_fctype(r, c):
    # nvme_fctype: a Fabrics command's type; left out otherwise (0)
    return 0 if r["nvme_fctype"] is None else r["nvme_fctype"]


IO = dict(COMMON, **{
    "observation_point_id": obs_index("obs"),
    "ip_src": ("host", lambda r, c: Ip(r["host"])),
    "ip_dst": ("target", lambda r, c: Ip(r["target"])),
    "iface_in": j("port"),
    "timestamp_start": ("t_cmd_ns, else t_rsp_ns",
                        lambda r, c: cl.pmacct_ts(io_start(r))),
    "timestamp_end": ("t_rsp_ns, else the latest of t_cmd/t_data_last/"
                      "t_rdreq", lambda r, c: cl.pmacct_ts(io_end(r))),
    "flow_start_ntp": ("as timestamp_start", lambda r, c: Ntp(io_start(r))),
    "flow_end_ntp": ("as timestamp_end", lambda r, c: Ntp(io_end(r))),
    "flow_end_reason": j("state", IANA_IO_END.get),
    "packets": ("(not in the template) 0", lambda r, c: 0),
    "bytes": ("(not in the template) 0", lambda r, c: 0),
    "rdma_coverage_start_nanoseconds": j("coverage_start_ns", cl.ts_u64),
    "rdma_coverage_end_nanoseconds": j("coverage_end_ns", cl.ts_u64),
    "nvme_io_state": j("state", IO_STATE.get),
    "nvme_io_flags": ("host, incapsule, qid present, op", io_flags),
    "nvme_host_qpn": j("host_qpn", cl.qpn_u32),
    "nvme_target_qpn": j("target_qpn", cl.qpn_u32),
    "nvme_command_id": j("cid"),
    "nvme_queue_id": ("qid (absent: 0)", lambda r, c: r.get("qid", 0)),
    "nvme_opcode": j("nvme_opcode", nvme_opcode),
    "nvme_fabrics_type": ("nvme_fctype (absent: 0)", io_fctype),
    "nvme_status": j("nvme_status"),
    "nvme_namespace_id": j("nsid"),
    "nvme_starting_lba": j("slba"),
    "nvme_block_count": j("nlb"),
    "nvme_io_length": j("bytes"),
    "nvme_command_nanoseconds": j("t_cmd_ns", cl.ts_u64),
    "nvme_response_nanoseconds": j("t_rsp_ns", cl.ts_u64),
    "nvme_data_first_nanoseconds": j("t_data_first_ns", cl.ts_u64),
    "nvme_data_last_nanoseconds": j("t_data_last_ns", cl.ts_u64),
    "nvme_read_request_nanoseconds": j("t_rdreq_ns", cl.ts_u64),
    "nvme_iol_nanoseconds": j("iol_ns", cl.dur_u64),
    "nvme_dal_nanoseconds": j("dal_ns", cl.dur_u64),
    "nvme_dpl_nanoseconds": j("dpl_ns", cl.dur_u64),
    "nvme_transfer_nanoseconds": j("xfer_ns", cl.dur_u64),
})

SEGMENT = dict(COMMON, **{
    "observation_point_id": obs_index("compute_obs"),
    "nvme_storage_observation_point": obs_index("storage_obs"),
    "ip_src": ("host", lambda r, c: Ip(r["host"])),
    "ip_dst": ("target", lambda r, c: Ip(r["target"])),
    "packets": ("(not in the template) 0", lambda r, c: 0),
    "bytes": ("(not in the template) 0", lambda r, c: 0),
    # the compute-side I/O's flags: the segment JSON has no incapsule/qid
    "nvme_io_flags": ("host, nvme_opcode, op", lambda r, c: io_flags_check(
        ipv6(r["host"]), r)),
    "nvme_roles_configured": ("roles", lambda r, c: {
        "configured": 1, "inferred": 0}[r["roles"]]),
    "nvme_target_qpn": j("target_qpn", cl.qpn_u32),
    "nvme_command_id": j("cid"),
    "nvme_opcode": j("nvme_opcode"),
    "nvme_namespace_id": j("nsid"),
    "nvme_starting_lba": j("slba"),
    "nvme_io_length": j("bytes"),
    "nvme_iol1_nanoseconds": j("iol1_ns", cl.dur_u64),
    "nvme_iol2_nanoseconds": j("iol2_ns", cl.dur_u64),
    "nvme_rtt_nanoseconds": j("rtt_ns", cl.dur_u64),
    "nvme_compute_nanoseconds": j("compute_ns", cl.dur_u64),
    "nvme_network_nanoseconds": j("network_ns", cl.dur_u64),
    "nvme_storage_nanoseconds": j("storage_ns", cl.dur_u64),
})


def lat(jkey, sub):
    """A latency figure of a summary (rtel_latency); a distribution the
    JSON leaves out (DPL of reads: 'empty for reads'), and the figures it
    leaves out of an empty one, are zeros."""
    def fn(r, c):
        if jkey not in r or r[jkey][sub] is None:
            return 0
        return r[jkey][sub] & cl.U64_NONE
    return ("%s.%s" % (jkey, sub), fn)


SUMMARY = dict(COMMON, **{
    "observation_point_id": obs_index("obs"),
    "ip_src": ("host", lambda r, c: Ip(r["host"])),
    "ip_dst": ("target", lambda r, c: Ip(r["target"])),
    "interval_start_ms": j("period_start_ns", cl.ms_of),
    "interval_end_ms": j("period_end_ns", cl.ms_of),
    "bytes": j("bytes"),
    "packets": ("(not in the template) 0", lambda r, c: 0),
    "nvme_io_flags": ("host", lambda r, c: IO_IPV6 if ipv6(r["host"]) else 0),
    "nvme_opcode": ("op (write 1, read 2)", lambda r, c: {
        "write": 1, "read": 2}[r["op"]]),
    "nvme_namespace_id": j("nsid", lambda v: cl.NSID_ALL if v is None else v),
    "nvme_period_start_nanoseconds": j("period_start_ns"),
    "nvme_period_end_nanoseconds": j("period_end_ns"),
    "nvme_io_count": j("count"),
    "nvme_io_error_count": j("errors"),
    "nvme_io_timeout_count": j("timeouts"),
})
for _p in ("iol", "dal", "dpl"):
    for _k, _s in (("count", "count"), ("min_nanoseconds", "min_ns"),
                   ("mean_nanoseconds", "mean_ns"),
                   ("p50_nanoseconds", "p50_ns"),
                   ("p90_nanoseconds", "p90_ns"),
                   ("p99_nanoseconds", "p99_ns"),
                   ("p999_nanoseconds", "p999_ns"),
                   ("max_nanoseconds", "max_ns")):
        SUMMARY["nvme_%s_%s" % (_p, _k)] = lat(_p, _s)

TABLES = {"flow": FLOW, "message": MESSAGE, "io": IO, "segment": SEGMENT,
          "summary": SUMMARY}

# native primitive -> the key nfacctd prints
NATIVE_KEY = {"src_host": "ip_src", "dst_host": "ip_dst",
              "src_port": "port_src", "vlan": "vlan", "in_iface": "iface_in",
              "timestamp_start": "timestamp_start",
              "timestamp_end": "timestamp_end",
              "peer_src_ip": "peer_ip_src",
              "export_proto_sysid": "export_proto_sysid"}


# ------------------------------------------------------------ the runs

class Failures:
    def __init__(self):
        self.msgs = []

    def add(self, msg):
        if len(self.msgs) < 60:
            print("FAIL: " + msg)
        self.msgs.append(msg)


def analyze_cmd(analyze, port, files, extra):
    return ([analyze, "--format", "json", "--flows", "--messages", "--ios",
             "--segments", "--summary", "--ipfix", "127.0.0.1:%d" % port,
             "--mtu", "1500", "--domain", str(DOMAIN)] + extra + ["--"]
            + ["%s=%s" % (p, f) for p, f in files])


def parse_analyze(stdout, stderr, where):
    lines = cl.rtel_records.loads_lines(stdout)
    known = {jt for _t, jt in TYPES}
    bad = [i for i, r in enumerate(lines) if r.get("type") not in known]
    if bad:
        raise RuntimeError("%s: line %d is not a record of %s: %r" % (
            where, bad[0] + 1, sorted(known), lines[bad[0]]))
    n, line = cl.parse_ipfix_count(stderr)
    if n != len(lines):
        raise RuntimeError("%s: %d JSON records but IPFIX says %r" % (
            where, len(lines), line))
    return lines


def compare(scen, rtype, lines, pm, points, prims, fails, stats):
    jtype = dict(TYPES)[rtype]
    table = TABLES[rtype]
    where = "%s %s" % (scen, rtype)
    # the table covers the primitives file and the native keys
    native_keys = {NATIVE_KEY[n] for n in NATIVE[rtype] + NATIVE_ALL}
    for k in sorted((set(prims) | native_keys) - set(table)):
        fails.add("%s: primitive/key %s has no entry in the mapping table"
                  % (where, k))
    optional = OPTIONAL.get(rtype, set())
    required = set(table) - optional
    obs = {p: i for i, p in enumerate(points)}
    flows = {}
    for r in lines:
        if r["type"] == "flow":
            flows.setdefault((r["obs"], r["src"], r["dst"], r["dqpn"]), r)
    ctx = {"obs": obs,
           "flow_of": lambda m: flows.get((m["obs"], m["src"], m["dst"],
                                           m["dqpn"]))}
    by_id = {}
    for rec in pm:
        fid = int(rec.get("flow_id", "0"))
        if fid in by_id:
            fails.add("%s: flow_id %d printed twice by nfacctd" % (where, fid))
        by_id[fid] = rec
    if set(by_id) != set(range(1, len(lines) + 1)):
        miss = sorted(set(range(1, len(lines) + 1)) - set(by_id))
        extra = sorted(set(by_id) - set(range(1, len(lines) + 1)))
        fails.add("%s: nfacctd flowIds: %d missing %s, %d unexpected %s" % (
            where, len(miss), miss[:10], len(extra), extra[:10]))
    want_ids = [i + 1 for i, r in enumerate(lines) if r["type"] == jtype]
    got_ids = [f for f in want_ids if f in by_id]
    if len(got_ids) != len(want_ids):
        fails.add("%s: nfacctd has %d of the %d %s records" % (
            where, len(got_ids), len(want_ids), jtype))
    n_full = n_partial = 0
    unchecked = {}
    for fid in got_ids:
        r = lines[fid - 1]
        rec = by_id[fid]
        ctx["index"] = fid - 1
        keys = set(rec) - {"event_type"}
        for k in sorted(required - keys):
            fails.add("%s flow_id %d: field %s missing from nfacctd's record"
                      % (where, fid, k))
        for k in sorted(keys - set(table)):
            fails.add("%s flow_id %d: nfacctd key %s=%r not in the mapping "
                      "table" % (where, fid, k, rec[k]))
        for k in sorted(keys & set(table)):
            src, fn = table[k]
            try:
                exp = fn(r, ctx)
            except (KeyError, TypeError) as e:
                fails.add("%s flow_id %d: %s: no JSON value (%s: %r)" % (
                    where, fid, k, src, e))
                continue
            if isinstance(exp, Partial):
                if exp.unchecked:
                    unchecked[k] = unchecked.get(k, 0) + 1
                else:
                    n_partial += 1
            else:
                n_full += 1
            if exp is None or not matches(exp, rec[k]):
                fails.add("%s flow_id %d (JSON line %d): %s = %r, expected %r "
                          "(from %s)" % (where, fid, fid, k, rec[k], exp, src))
    stats.append((where, len(want_ids), len(got_ids), n_full, n_partial,
                  unchecked))


def counted_twice(lines, pm, jtype):
    """None, or what nfacctd summed more than once: a record of |jtype|
    whose bytes are a multiple k >= 2 of the JSON line's, printed once, and
    whose packets are the same multiple (0 for a template without a packet
    counter: summary records). Seen twice in 2026-12, in the ASan stage of
    CI (tests/run-all.sh): nfacctd 1.7.7 printed one flow record (flowId
    1954 of nvme-write) with 2x its packets and bytes, every other field
    equal, while the record next to it in the same message (flowId 1953,
    the same counts) came out right; and one summary record (flowId 1958 of
    nvme-write) with 2x its bytes. A whole datagram sent or received twice
    would have doubled its neighbours too. A fault of rtel-analyze's
    export would repeat on a fresh collector (the export is a function of
    the capture: same messages, same records); the run is repeated (at most
    twice), and a third run compares whatever it gets, so a real doubling
    still fails."""
    by_id = {}
    for rec in pm:
        by_id.setdefault(int(rec.get("flow_id", "0")), []).append(rec)
    for i, r in enumerate(lines):
        recs = by_id.get(i + 1, [])
        if r["type"] != jtype or len(recs) != 1 or "bytes" not in r:
            continue
        want_b = int(r["bytes"])
        want_p = int(r["packets"]) if "packets" in r else 0
        got_p = int(recs[0].get("packets", 0))
        got_b = int(recs[0].get("bytes", 0))
        if want_b > 0 and got_b > want_b and got_b % want_b == 0 and \
                got_p == want_p * (got_b // want_b):
            return ("nfacctd summed flowId %d %d times (packets %d, bytes %d;"
                    " sent once: %d, %d)" % (i + 1, got_b // want_b, got_p,
                                             got_b, want_p, want_b))
    return None


def one_scenario(analyze, sim, nfacctd, tmp, scen, points, extra, fails,
                 stats):
    d = os.path.join(tmp, scen)
    pcaps = cl.run_sim(sim, scen, SEED, d, points)
    files = [(p, pcaps[p]) for p in points]
    cols = {}
    try:
        for rtype, _jt in TYPES:
            prim = os.path.join(d, rtype + ".lst")
            with open(prim, "w") as f:
                f.write(cl.run([analyze, "--pmacct-primitives", rtype]).stdout)
            names = cl.primitive_names(prim)
            agg = NATIVE[rtype] + NATIVE_ALL + names
            cols[rtype] = (cl.Nfacctd(nfacctd, d, "nfacctd-" + rtype, prim,
                                      agg).start(), names)
        for rtype, jtype in TYPES:
            col, names = cols[rtype]
            for attempt in range(3):
                r = cl.run(analyze_cmd(analyze, col.port, files, extra))
                lines = parse_analyze(r.stdout, r.stderr, scen)
                seen, drops = col.wait_records(len(lines))
                if drops:
                    # the kernel dropped datagrams (a busy machine): again,
                    # to a fresh collector
                    why = "%d UDP datagrams dropped by the socket" % drops
                else:
                    why = counted_twice(lines, col.records(), jtype)
                if why is None or attempt == 2:
                    break  # the last run is compared, whatever it got
                print("%s %s: %s, again" % (scen, rtype, why))
                col.stop()
                col = cl.Nfacctd(nfacctd, d, "nfacctd-%s-%d" % (rtype,
                                                                attempt),
                                 col.primitives, col.aggregate).start()
                cols[rtype] = (col, names)
            status = col.stop()
            if status != 0:
                fails.add("%s %s: nfacctd exit status %r" % (scen, rtype,
                                                             status))
            for p in col.problems():
                fails.add("%s %s: nfacctd log: %s" % (scen, rtype, p))
            compare(scen, rtype, lines, col.records(partial_ok=False),
                    points, names, fails, stats)
    finally:
        for col, _n in cols.values():
            col.kill()


def main():
    analyze, sim = cl.need_tools()
    nfacctd = cl.find_program("nfacctd", "NFACCTD")
    if nfacctd is None:
        cl.skip("nfacctd (pmacct) not installed")
    cl.need_loopback()
    t0 = time.monotonic()
    fails = Failures()
    stats = []
    tmp = cl.make_tmpdir("pmacct")
    try:
        for scen, points, extra in SCENARIOS:
            one_scenario(analyze, sim, nfacctd, tmp, scen, points, extra,
                         fails, stats)
    finally:
        cl.rmtree(tmp)
    tot_r = tot_f = tot_p = 0
    unchecked_all = {}
    for where, want, got, nf, np_, unch in stats:
        print("%-28s %5d records (%d at nfacctd), %6d fields equal, "
              "%5d partially compared%s" % (
                  where, want, got, nf, np_,
                  "".join(", %s unchecked x%d" % kv for kv in
                          sorted(unch.items()))))
        tot_r += got
        tot_f += nf
        tot_p += np_
        for k, v in unch.items():
            unchecked_all[k] = unchecked_all.get(k, 0) + v
    print("total: %d records, %d fields compared exactly, %d partially "
          "(flag bits the JSON does not print), %d unchecked (%s), %.1f s"
          % (tot_r, tot_f, tot_p, sum(unchecked_all.values()),
             ", ".join(sorted(unchecked_all)) or "none",
             time.monotonic() - t0))
    if fails.msgs:
        print("%d failures" % len(fails.msgs))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
