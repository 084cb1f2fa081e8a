#!/usr/bin/env python3
"""rtel-analyze's IPFIX export decoded by tshark, against rtel-analyze's
JSON records.

Captures from rtel-sim: rdma-loss-between seed 1 (lossy RDMA, IPv4),
nvme-read seed 1 (NVMe-oF, IPv4) and nvme-two-obs seed 1 with --ipv6 (every
IPv6 template); both observation points of each as two inputs. Each is
exported twice, with every record option (peerlib.ALL_RECORDS) so that the
JSON printed is the records exported, in delivery order:

  file: `--ipfix-file F.ipfix` (large messages, templates once), read
        with `tshark -r F.ipfix` (tshark's RFC 5655 reader);
  udp:  `--ipfix 127.0.0.1:PORT --pen 99999` (no --mtu: the encoder's
        512-byte messages) to a receiver in this script, which saves each
        datagram; tshark reads a pcap of them in Ethernet/IPv4/UDP headers
        (UDP port 4739). --mtu applies to UDP only: a file always has
        large messages.

Required of each:
  * tshark exits 0; no expert info of severity warning or error, none of
    group malformed or sequence, no _ws.malformed; the messages
    (frames) are the M of rtel-analyze's "ipfix: N records in M messages"
    line (udp: every datagram received, none over 512 bytes);
  * the sequence numbers follow RFC 7011: each message's is the count of
    data records, RFC 5610 options records included, of the messages
    before it (and tshark's own analysis reports nothing unexpected);
  * the data records: their number per template id equals the JSON
    records per type and address family (256 + 2 * type, + 1 for IPv6);
    their flowIds are 1..N in order; record i has the template and
    addresses of JSON record i;
  * flowStart/EndNanoseconds (the second cflow.abstimestart/abstimeend of
    a record, the first being the ms ones) as tshark shows them, under
    TZ=UTC, equal to the ns: first_ts_ns/last_ts_ns for flows and
    messages; for I/Os start = t_cmd_ns (else t_rsp_ns) and end = t_rsp_ns
    (else the latest of t_cmd_ns, t_data_last_ns, t_rdreq_ns), as
    rtel_ipfix_add_io derives them; the ms ones equal ns // 10^6;
  * RFC 5610: every enterprise element of every template has a type
    record (options template 266) with a name, of the same PEN, before
    the template (in an earlier message or earlier in the message),
    with a data type that fits the field length; the type records are
    the elements `rtel-analyze --pmacct-primitives TYPE` lists (same
    id, camelCase name of its snake_case one), and each template's
    enterprise elements are the ones listed for its record type.
"""

import calendar
import os
import re
import sys
import time
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peerlib as pl  # noqa: E402

CASES = [  # (label, scenario, seed, extra rtel-sim options)
    ("rdma-loss-between", "rdma-loss-between", 1, []),
    ("nvme-read", "nvme-read", 1, []),
    ("nvme-two-obs-ipv6", "nvme-two-obs", 1, ["--ipv6"]),
]
UDP_PEN = 99999
PI_WARN = 0x00600000
PI_SEQUENCE = 0x02000000
PI_MALFORMED = 0x07000000
PI_SEVERITY_MASK = 0x00F00000
# RFC 5610 data types -> the encoded lengths they allow
TYPE_LENGTHS = {1: (1,), 2: (2,), 3: (4,), 4: (8,), 5: (1,), 6: (2,),
                7: (4,), 8: (8,)}
MONTHS = {m: i for i, m in enumerate(
    ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
     "Nov", "Dec"], 1)}
TIME_RE = re.compile(r"^(\w{3})\s+(\d+), (\d{4}) (\d\d):(\d\d):(\d\d)"
                     r"\.(\d{9}) UTC$")


def show_to_ns(s):
    """tshark's absolute time ("Nov 14, 2023 22:13:20.000021135 UTC") ->
    ns since 1970; None if it is not in that form."""
    m = TIME_RE.match(s)
    if not m:
        return None
    mon, day, year, hh, mm, ss, frac = m.groups()
    sec = calendar.timegm((int(year), MONTHS[mon], int(day), int(hh),
                           int(mm), int(ss), 0, 0, 0))
    return sec * 1000000000 + int(frac)


def child_show(node, name):
    for c in node:
        if c.get("name") == name:
            return c.get("show")
    return None


def decode(tshark, path, work):
    """Runs tshark on |path|; returns (frames, experts, stderr) with
    frames a list of dicts: seq, domain, sets [(set id, pos, items)], an
    item being ("template", tid, fields, pos) or ("record", fields, pos)
    where fields is [(name, show, value)] in document order."""
    env = dict(os.environ, TZ="UTC", LC_ALL="C")
    # no personal preferences or plugins of whoever runs the tests
    env["WIRESHARK_CONFIG_DIR"] = os.path.join(work, "wireshark-config")
    os.makedirs(env["WIRESHARK_CONFIG_DIR"], exist_ok=True)
    out = os.path.join(work, os.path.basename(path) + ".pdml")
    with open(out, "w") as f:
        r = pl.subprocess.run([tshark, "-n", "-r", path, "-T", "pdml"],
                              stdout=f, stderr=pl.subprocess.PIPE,
                              universal_newlines=True, env=env, timeout=300)
    err = "\n".join(x for x in r.stderr.splitlines()
                    if "Running as user" not in x)
    if r.returncode != 0:
        raise RuntimeError("tshark -r %s: exit %d: %s" % (path, r.returncode,
                                                          err))
    frames, experts = [], []
    for _ev, pkt in ET.iterparse(out):
        if pkt.tag != "packet":
            continue
        for e in pkt.iter():
            if e.get("name") == "_ws.expert":
                experts.append((len(frames) + 1, e.get("showname"),
                                int(child_show(e, "_ws.expert.severity") or 0),
                                int(child_show(e, "_ws.expert.group") or 0)))
            elif e.get("name") == "_ws.malformed":
                experts.append((len(frames) + 1, "_ws.malformed: %s"
                                % e.get("showname"), 0, PI_MALFORMED))
        fr = {"seq": None, "domain": None, "sets": []}
        for proto in pkt.findall("proto"):
            if proto.get("name") != "cflow":
                continue
            fr["seq"] = int(child_show(proto, "cflow.sequence"))
            fr["domain"] = int(child_show(proto, "cflow.od_id"))
            for s in proto:
                if not (s.get("show") or "").startswith("Set "):
                    continue
                sid = int(child_show(s, "cflow.flowset_id"))
                items = []
                for it in s:
                    show = it.get("show") or ""
                    pos = int(it.get("pos") or 0)
                    fields = [(x.get("name"), x.get("show"), x.get("value"))
                              for x in it.iter() if x.get("name")]
                    if show.startswith("Flow "):
                        items.append(("record", fields, pos))
                    elif "Template (Id = " in show:
                        tid = int(child_show(it, "cflow.template_id"))
                        items.append(("template", tid, template_fields(it),
                                      pos))
                fr["sets"].append((sid, int(s.get("pos")), items))
        frames.append(fr)
        pkt.clear()
    os.unlink(out)
    return frames, experts, err


def template_fields(node):
    """[(ie, pen or 0, length)] of a template record node."""
    out = []
    for f in node:
        if not (f.get("show") or "").startswith("Field ("):
            continue
        ie = pen = ln = None
        for x in f:
            n = x.get("name")
            if n in ("cflow.template_ipfix_field_type",
                     "cflow.template_ipfix_field_type_enterprise"):
                ie = int(x.get("show"))
            elif n == "cflow.template_ipfix_field_pen":
                pen = int(x.get("show"))
            elif n == "cflow.template_field_length":
                ln = int(x.get("show"))
        out.append((ie, pen or 0, ln))
    return out


def fvals(fields, name):
    return [(s, v) for n, s, v in fields if n == name]


def check_stream(ck, tag, frames, experts, exp, nmsgs, pen, pm):
    counts = {}
    # expert infos
    bad = [x for x in experts
           if (x[2] & PI_SEVERITY_MASK) >= PI_WARN
           or (x[3] & 0xFF000000) in (PI_MALFORMED, PI_SEQUENCE)]
    for x in bad[:10]:
        pl.log("  %s: frame %d: %s" % (tag, x[0], x[1]))
    ck.eq("%s: expert infos of severity >= warning or group malformed/"
          "sequence" % tag, 0, len(bad))
    others = {}
    for x in experts:
        if x not in bad:
            others[x[1]] = others.get(x[1], 0) + 1
    for k, v in sorted(others.items()):
        pl.log("  %s: (expert note, allowed) %dx %s" % (tag, v, k))
    ck.eq("%s: messages decoded" % tag, nmsgs, len(frames))
    # sequence numbers (RFC 7011: every data record, options ones too)
    seq = 0
    records, types_seen, templates = [], [], []
    for fi, fr in enumerate(frames):
        if not ck.eq("%s: message %d sequence number" % (tag, fi + 1), seq,
                     fr["seq"]):
            seq = fr["seq"]  # resynchronise: one failure per gap
        for sid, spos, items in fr["sets"]:
            for it in items:
                if it[0] == "record":
                    seq += 1
                    if sid == pl.TID_TYPES:
                        types_seen.append(((fi, it[2]), it[1]))
                    elif sid >= pl.TID_FIRST:
                        records.append((sid, it[1]))
                else:
                    templates.append(((fi, it[3]), it[1], it[2], sid))
    # data records per template id
    want = {}
    for r in exp:
        want[pl.template_id(r)] = want.get(pl.template_id(r), 0) + 1
    got = {}
    for sid, _f in records:
        got[sid] = got.get(sid, 0) + 1
    ck.eq("%s: data records per template id" % tag, want, got)
    # record by record
    for i, (sid, fields) in enumerate(records):
        if i >= len(exp):
            break
        r = exp[i]
        fid = fvals(fields, "cflow.flow_id")
        if not ck.eq("%s: record %d flowId" % (tag, i + 1), [str(i + 1)],
                     [s for s, _v in fid]):
            continue
        ck.eq("%s: flowId %d template id" % (tag, i + 1), pl.template_id(r),
              sid)
        sa, da = pl.rec_addrs(r)
        src = fvals(fields, "cflow.srcaddr" if sa.version == 4
                    else "cflow.srcaddrv6")
        dst = fvals(fields, "cflow.dstaddr" if sa.version == 4
                    else "cflow.dstaddrv6")
        ck.eq("%s: flowId %d addresses" % (tag, i + 1), (sa, da),
              (pl.ipaddress.ip_address(src[0][0]) if src else None,
               pl.ipaddress.ip_address(dst[0][0]) if dst else None))
        if r["type"] not in ("flow", "message", "io"):
            continue
        starts = fvals(fields, "cflow.abstimestart")
        ends = fvals(fields, "cflow.abstimeend")
        if not ck.eq("%s: flowId %d time fields (ms, ns)" % (tag, i + 1),
                     (2, 2), (len(starts), len(ends))):
            continue
        for what, want_ns, (ms_f, ns_f) in (("start", pl.rec_times(r)[0],
                                             starts),
                                            ("end", pl.rec_times(r)[1], ends)):
            what = "%s: flowId %d (%s) %s" % (tag, i + 1, r["type"], what)
            if want_ns is None:  # no time at all: written as 0
                ck.eq(what + " raw (none)", ("0" * 16, "0" * 16),
                      (ms_f[1], ns_f[1]))
                continue
            ck.eq(what + " ns", want_ns, show_to_ns(ns_f[0]))
            ck.eq(what + " ms", want_ns // 1000000 * 1000000,
                  show_to_ns(ms_f[0]))
        counts[r["type"]] = counts.get(r["type"], 0) + 1
    ck.eq("%s: data records decoded" % tag, len(exp), len(records))
    # RFC 5610 type records
    described = {}
    for where, fields in types_seen:
        p = fvals(fields, "cflow.private_enterprise_number")
        e = fvals(fields, "cflow.information_element_id")
        n = fvals(fields, "cflow.information_element_name")
        t = fvals(fields, "cflow.information_element_data_type")
        if not ck.ok(len(p) == len(e) == len(n) == len(t) == 1,
                     "%s: type record at %s has PEN, id, name, type" %
                     (tag, where), repr(fields)[:300]):
            continue
        key = (int(p[0][0]), int(e[0][0]))
        ck.ok(key not in described, "%s: one type record per element" % tag,
              repr(key))
        described.setdefault(key, (where, n[0][0], int(t[0][0])))
    ck.ok(all(k[0] == pen for k in described), "%s: type records' PEN" % tag,
          repr(sorted({k[0] for k in described})))
    allpm = {}
    for els in pm.values():
        allpm.update(els)
    ck.eq("%s: type records = the elements of --pmacct-primitives" % tag,
          {(pen, i): n for i, n in allpm.items()},
          {k: pl.camel_to_snake(v[1]) for k, v in described.items()})
    used = 0
    for where, tid, tfields, sid in templates:
        ents = [(ie, p, ln) for ie, p, ln in tfields if p]
        for ie, p, ln in ents:
            used += 1
            d = described.get((p, ie))
            if not ck.ok(d is not None and d[1] != "",
                         "%s: template %d element %d/%d described by name"
                         % (tag, tid, p, ie)):
                continue
            ck.ok(d[0] < where, "%s: template %d element %s (%d/%d) "
                  "described before the template" % (tag, tid, d[1], p, ie),
                  "type record at (message, offset) %s, template at %s"
                  % (d[0], where))
            ck.ok(ln in TYPE_LENGTHS.get(d[2], ()),
                  "%s: template %d %s: length %d fits data type %d"
                  % (tag, tid, d[1], ln, d[2]))
        if tid >= pl.TID_FIRST and tid < pl.TID_TYPES:
            rt = pl.PMACCT_TYPES[(tid - pl.TID_FIRST) // 2]
            ck.eq("%s: template %d enterprise elements = --pmacct-primitives "
                  "%s" % (tag, tid, rt), sorted(pm[rt]),
                  sorted(ie for ie, p, ln in ents))
    tids = sorted({t[1] for t in templates})
    ck.eq("%s: templates" % tag, [pl.TID_TYPES] + list(range(256, 266)),
          sorted(tids, key=lambda x: (x != pl.TID_TYPES, x)))
    return counts, len(described), used


def main():
    sim, ana = pl.need_rtel()
    tshark = pl.program("TSHARK", "tshark")
    if not tshark:
        pl.skip("tshark not found (TSHARK)")
    pl.loopback_udp_or_skip()
    cl = pl.Cleanup()
    try:
        return run(cl, sim, ana, tshark)
    finally:
        cl.run()


def run(cl, sim, ana, tshark):
    t0 = time.time()
    ck = pl.Checker()
    work = cl.tmpdir("tshark")
    pms = {pen: pl.pmacct_elements(ana, pen) for pen in (32473, UDP_PEN)}
    for label, scen, seed, extra in CASES:
        inputs = pl.simulate(sim, scen, seed, os.path.join(work, label),
                             extra)
        # file
        f = os.path.join(work, label + ".ipfix")
        r = pl.run([ana] + pl.ALL_RECORDS + ["--ipfix-file", f, "--"]
                   + inputs)
        exp = [pl.rtel_records.loads(x) for x in r.stdout.splitlines() if x.strip()]
        n, m, b, dest, lost = pl.export_stats(r.stderr)
        ck.eq("%s file: records exported (stderr) vs JSON" % label, len(exp),
              n)
        ck.eq("%s file: bytes" % label, b, os.path.getsize(f))
        msgs = pl.split_messages(open(f, "rb").read())
        frames, experts, err = decode(tshark, f, work)
        ck.eq("%s file: tshark stderr" % label, "", err)
        counts, ntypes, used = check_stream(ck, label + " file", frames,
                                            experts, exp, len(msgs), 32473,
                                            pms[32473])
        ck.eq("%s file: messages" % label, m, len(msgs))
        pl.log("%s file: %d records in %d messages; ns times compared: %s; "
               "%d type records, %d enterprise fields in templates"
               % (label, n, m, counts, ntypes, used))
        # udp, default (512-byte) messages
        sink = pl.UdpSink().start()
        r = pl.run([ana] + pl.ALL_RECORDS + ["--ipfix", "127.0.0.1:%d"
                                             % sink.port, "--pen",
                                             str(UDP_PEN), "--"] + inputs,
                   check=False)
        dgrams = sink.stop()
        ck.eq("%s udp: rtel-analyze exit status" % label, 0, r.returncode)
        exp2 = [pl.rtel_records.loads(x) for x in r.stdout.splitlines() if x.strip()]
        ck.ok(exp2 == exp, "%s udp: same JSON records as the file run" % label)
        n, m, b, dest, lost = pl.export_stats(r.stderr)
        ck.eq("%s udp: records exported (stderr)" % label, len(exp), n)
        ck.eq("%s udp: datagrams received (receive buffer %d)"
              % (label, sink.rcvbuf), m, len(dgrams))
        ck.eq("%s udp: bytes" % label, b, sum(len(d) for d in dgrams))
        ck.eq("%s udp: datagrams over 512 bytes" % label, 0,
              sum(1 for d in dgrams if len(d) > 512))
        p = os.path.join(work, label + "-udp.pcap")
        pl.pcap_of_messages(dgrams, p)
        frames, experts, err = decode(tshark, p, work)
        ck.eq("%s udp: tshark stderr" % label, "", err)
        counts, ntypes, used = check_stream(ck, label + " udp", frames,
                                            experts, exp, len(dgrams),
                                            UDP_PEN, pms[UDP_PEN])
        pl.log("%s udp: %d records in %d datagrams (max %d bytes); ns times "
               "compared: %s" % (label, n, m, max(len(d) for d in dgrams),
                                 counts))
    pl.log("%d checks, %d failures, %.1f s" % (ck.checks, ck.failures,
                                              time.time() - t0))
    return 1 if ck.failures else 0


if __name__ == "__main__":
    sys.exit(main())
