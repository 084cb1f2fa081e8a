#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/cli/check_cli.py - command-line tests of rtel-analyze (issue 15:
usability). Each runs the program on captures that rtel-sim makes at test
time and compares its output, exit status and standard error with what
man/rtel-analyze.1 promises.

  check_cli.py CHECK     CHECK: ios numeric units errors overflow aeth
                                text summary stats roles slots

  ios       text --ios: an orphan's command is "-" (not "flush"); admin and
            Fabrics commands by name (rtel_nvme_cmd_str: connect,
            property_get, identify); NVMe status by name with its DNR/More
            flags (rtel_nvme_status_str), never raw hex
  numeric   every numeric option rejects a negative, padded, overflowing or
            otherwise unrepresentable number: exit 2, the option named
  units     --interval, --io-timeout, --flow-idle, --poll take ns us ms s
            (a plain number is ns); --alarm rejects a unit that does not fit
            its metric (fnr>5us, iol>10G)
  errors    a file that cannot be opened is named once, no counter block
            for it; an unsupported link type is reported with the file
            named; a hint when a capture holds nothing for the records asked
  overflow  a capture with more QPs than --max-flows: the evictions are
            counted on stderr with the option that raises the bound; the
            default table holds the rdma-flood scenario whole
  aeth      --packets names AETH syndromes (rtel_aeth_str): ack with its
            credits, rnr_nak with its timer, nak_psn_sequence_error
  text      every text table states its units in its header line; I/O,
            segment and flow times in us (the JSON ns / 1000, three
            decimals), FET in Gbit/s, packet times in s since the epoch (the
            capture's own timestamps); alarms in those units, no exponent;
            the cells line up under the header with a 29-character point
            name and with IPv6 addresses; no --segments column name twice
  summary   --summary prints each period (from the first frame to the last,
            boundaries every --interval) and flush rows whose count and
            nearest-rank IOL percentiles are those of the flushes answered
            in the period (their JSON I/O records)
  stats     --stats: a block per FILE whose frames and bytes are those of
            the capture file (read here), then the run's; the same with
            record options; a file's block equals the file run alone; with
            --poll the unscheduled frames add up to the run's
  roles     an unknown --compute-side/--storage-side name, one point in both
            roles, two inputs of one default name (or a default name another
            gives as NAME=): exit 2, the names in the message; FILEs of one
            NAME=: one point, a counter block per file;
            swapped roles: one warning with the count of negative RTTs (the
            JSON segments' rtt_ns < 0)
  slots     --poll 1/SLOT on three inputs: slot N at first frame + N * SLOT
            measures input N mod 3, named with the ones that start and stop;
            --poll 2/SLOT: two at a time, round robin
  stdin     '-' reads standard input; on a pipe every --packets record comes
            out while the input is still open, equal to the same packets
            read from a file

Environment: RTEL_ANALYZE, RTEL_SIM (from make check). Exit status: 0 pass,
1 fail, 77 skip (a program is not built).
"""
import os
import re
import select
import shutil
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import rtel_records  # noqa: E402 (tests/rtel_records.py)
from checklib import fail, failures, ok, run_check  # noqa: E402

ANA = os.environ.get("RTEL_ANALYZE", "")
SIM = os.environ.get("RTEL_SIM", "")




def run(args, prog=None, timeout=300):
    """rtel-analyze (or |prog|) with |args|: (status, stdout, stderr)."""
    r = subprocess.run([prog or ANA] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=timeout)
    return r.returncode, r.stdout.decode("utf-8", "replace"), \
        r.stderr.decode("utf-8", "replace")


def sim(tmp, name, scenario, *extra):
    out = os.path.join(tmp, name)
    r = subprocess.run([SIM, "--scenario", scenario, "--seed", "15",
                        "--out", out] + list(extra),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        print("rtel-sim %s failed: %s" % (scenario, r.stdout.decode()[-300:]))
        sys.exit(99)
    return out


def text_rows(out, first):
    """The data rows of a text table whose header starts with |first|."""
    rows, cols = [], None
    for line in out.splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == first:
            cols = f
            continue
        if cols and not line.startswith(("==", "!!", "--", "  ")):
            rows.append(f)
    return cols, rows


# ---------------------------------------------------------------- ios

def check_ios(tmp):
    mid = sim(tmp, "mid", "nvme-midstream")
    rc, out, err = run(["--ios", os.path.join(mid, "h0.pcap")])
    ok(rc == 0, "--ios on nvme-midstream exits 0 (got %d: %s)" % (rc, err))
    cols, rows = text_rows(out, "OBS")
    iop, ist = cols.index("OP"), cols.index("STATE")
    orphans = [r for r in rows if r[ist] == "orphan"]
    ok(len(orphans) > 0, "nvme-midstream has orphan I/Os (%d)" % len(orphans))
    ok(all(r[iop] == "-" for r in orphans),
       "every orphan's OP is '-' (got %s)" %
       sorted(set(r[iop] for r in orphans)))
    ok(all(r[iop] != "-" for r in rows if r[ist] != "orphan"),
       "a command that was seen has a name")
    ok("flush" not in [r[iop] for r in rows],
       "no flush in a capture without flushes")

    rd = sim(tmp, "rd", "nvme-read")
    rc, out, err = run(["--ios", os.path.join(rd, "h0.pcap")])
    cols, rows = text_rows(out, "OBS")
    ops = set(r[cols.index("OP")] for r in rows)
    for name in ("connect", "property_get", "property_set", "identify",
                 "read"):
        ok(name in ops, "nvme-read: OP %s named (ops %s)" % (name,
                                                             sorted(ops)))
    ok(not any(o.startswith(("op:", "fab:")) for o in ops),
       "no raw op:0x../fab:0x.. opcodes")

    er = sim(tmp, "err", "nvme-errors")
    rc, out, err = run(["--ios", os.path.join(er, "h0.pcap")])
    st = re.findall(r"status=(\S+)", out)
    ok(len(st) > 0, "nvme-errors: failed I/Os show a status (%d)" % len(st))
    ok(not any(s.startswith("0x") for s in st), "the status is not raw hex")
    ok(all(re.fullmatch(r"[a-z0-9_]+(,dnr)?(,more)?(,crd=[1-3])?", s)
           for s in st), "status=NAME[,dnr][,more][,crd=N] (%s)" %
       sorted(set(st))[:4])
    ok(any(s.startswith("lba_out_of_range") for s in st),
       "a generic status has its NVMe name (lba_out_of_range)")
    ok(any(s.endswith(",dnr") for s in st), "the DNR flag is shown")

# ---------------------------------------------------------------- numeric

def usage_rejected(args, opt, what, cap):
    """|args| on |cap|: exit 2, one message naming |opt|, nothing on
    stdout."""
    rc, out, err = run(args + [cap])
    ok(rc == 2 and opt in err.splitlines()[0] if err else False,
       "%s: exit 2 with %s named (got %d: %s)" %
       (what, opt, rc, err.strip().splitlines()[0] if err.strip() else ""))
    ok(out == "", "%s: nothing on stdout" % what)


def accepted(args, cap, what):
    rc, out, err = run(args + [cap])
    ok(rc == 0, "%s: accepted (got %d: %s)" %
       (what, rc, (err.splitlines() or [""])[0]))
    return out


def check_numeric(tmp):
    cap = os.path.join(sim(tmp, "s", "sample"), "h0.pcap")
    bad = [
        ("--io-timeout", "-5"), ("--io-timeout", " 7"), ("--io-timeout", "7 "),
        ("--io-timeout", "+7"), ("--io-timeout", "0"),
        ("--io-timeout", "99999999999999999999999"),
        ("--io-timeout", "18446744073709551616"),
        ("--io-timeout", "0x10"), ("--io-timeout", "1e3"),
        ("--flow-idle", "-1"), ("--flow-idle", " 1"), ("--flow-idle", ""),
        ("--flow-idle", "18446744073709551615"),
        ("--interval", "-1"), ("--interval", "nan"), ("--interval", "inf"),
        ("--max-flows", "-1"), ("--max-flows", " 4096"),
        ("--max-flows", "0x1000"), ("--max-flows", "67108865"),
        ("--max-flows", "18446744073709551617"),
        ("--max-ios", "-1"), ("--max-ios", " 5"), ("--max-ios", "0"),
        ("--roce-port", "-4791"), ("--roce-port", " 4791"),
        ("--roce-port", "65536"), ("--roce-port", "4294971087"),
        ("--pen", "-1"), ("--pen", "4294967296"), ("--pen", " 1"),
        ("--domain", "-1"), ("--domain", "4294967296"),
        ("--mtu", "-1500"), ("--mtu", "4294968796"),
        ("--poll", "1/99999999999s"), ("--poll", "-1/1ms"),
        ("--poll", " 1/1ms"), ("--poll", "65537/1ms"),
        ("--poll", "4294967297/1ms"), ("--poll", "1/-1ms"),
        ("--poll", "1/ 1ms"), ("--poll", "1/0"),
        ("--alarm", "iol>-5us"), ("--alarm", "iol> 5us"),
        ("--alarm", "iol>inf"), ("--alarm", "iol>nan"),
        ("--alarm", "fet<1e999"), ("--alarm", "fnr>0x1"),
        ("--alarm", "iol>0"),
    ]
    for opt, v in bad:
        usage_rejected([opt, v], opt, "%s '%s'" % (opt, v), cap)
    # --report-top needs --report: the value is judged first
    page = os.path.join(tmp, "r.html")
    for v in ("-3", " 3", "18446744073709551616"):
        usage_rejected(["--report", page, "--report-top", v], "--report-top",
                       "--report-top '%s'" % v, cap)
    for args in (["--io-timeout", "7"], ["--flow-idle", "9223372036854775807"],
                 ["--max-flows", "65536"], ["--roce-port", "4791"],
                 ["--pen", "4294967295"], ["--domain", "0"],
                 ["--poll", "65535/1s"], ["--alarm", "fnr>0.05"]):
        accepted(args, cap, " ".join(args))


# ---------------------------------------------------------------- units

def check_units(tmp):
    nv = sim(tmp, "lost", "nvme-lost-rsp")
    cap = os.path.join(nv, "h0.pcap")
    for opt in ("--interval", "--io-timeout", "--flow-idle"):
        for v in ("1ms", "1.5us", "2s", "100ns", "100"):
            accepted([opt, v, "--stats"], cap, "%s %s" % (opt, v))
        for v in ("1m", "1 ms", "1msx", "1.5", "0.5ns", "1.0000000001s",
                  "ms"):
            usage_rejected([opt, v], opt, "%s '%s'" % (opt, v), cap)
    # the same duration in every unit gives the same records
    outs = [accepted(["--ios", "--format", "json", "--io-timeout", v], cap,
                     "--io-timeout " + v)
            for v in ("2ms", "2000us", "2000000ns", "2000000", "0.002s")]
    ok(all(o == outs[0] for o in outs) and outs[0],
       "--io-timeout 2ms = 2000us = 2000000ns = 2000000 = 0.002s")
    short = accepted(["--ios", "--format", "json", "--io-timeout", "1us"],
                     cap, "--io-timeout 1us")
    ok(short.count('"timeout"') > outs[0].count('"timeout"'),
       "--io-timeout 1us times out more I/Os than 2ms (the unit is used)")
    s1 = accepted(["--summary", "--format", "json", "--interval", "1ms"], cap,
                  "--interval 1ms")
    s2 = accepted(["--summary", "--format", "json", "--interval", "1000000"],
                  cap, "--interval 1000000")
    ok(s1 == s2 and s1.count("\n") > 2,
       "--interval 1ms = --interval 1000000 (%d lines)" % s1.count("\n"))
    p1 = accepted(["--poll", "1/1ms", "--stats"], cap, "--poll 1/1ms")
    p2 = accepted(["--poll", "1/1000000", "--stats"], cap, "--poll 1/1000000")
    ok(p1 == p2, "--poll 1/1ms = 1/1000000 (a plain number is ns)")
    # alarm units by metric
    for v in ("iol>500us", "dal>1ms", "dpl>10", "fct>1s", "fet<10G",
              "fet<100M", "fet<5k", "fet<1000", "fnr>0.05", "retx_ratio>0.01",
              "cnp_rate>1k", "cnp_rate>100"):
        accepted(["--alarm", v], cap, "--alarm " + v)
    for v in ("fnr>5us", "iol>10G", "fct>5k", "dal>1M", "fet<10ms",
              "fet<1s", "retx_ratio>1k", "fnr>1G", "cnp_rate>1us",
              "iol>5 us", "iol>5u"):
        rc, out, err = run(["--alarm", v, cap])
        ok(rc == 2 and "--alarm" in err and out == "",
           "--alarm '%s' rejected, exit 2 (got %d: %s)" %
           (v, rc, (err.splitlines() or [""])[0]))
    rc, out, err = run(["--alarm", "fnr>5us", cap])
    ok("fnr" in err and "'us'" in err,
       "the message names the metric and the unit that does not fit")


# ---------------------------------------------------------------- errors

def pcap_file(path, linktype, frames):
    """A classic little-endian microsecond pcap of |frames| (bytes)."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535,
                            linktype))
        for i, d in enumerate(frames):
            f.write(struct.pack("<IIII", 1 + i, 0, len(d), len(d)) + d)


def check_errors(tmp):
    cap = os.path.join(sim(tmp, "s", "sample"), "h0.pcap")
    rdma = os.path.join(sim(tmp, "r", "rdma-clean"), "h0.pcap")
    missing = os.path.join(tmp, "nonexist.pcap")
    junk = os.path.join(tmp, "junk.pcap")
    with open(junk, "w") as f:
        f.write("not a capture\n")
    wifi = os.path.join(tmp, "wifi.pcap")
    pcap_file(wifi, 105, [b"\0" * 40])     # LINKTYPE_IEEE802_11
    empty = os.path.join(tmp, "empty.pcap")
    pcap_file(empty, 1, [])
    for path, what in ((missing, "a missing file"), (junk, "not a capture"),
                       (wifi, "an unsupported link type (802.11)")):
        for args in ([], ["--stats"], ["--flows", "--ios"]):
            rc, out, err = run(args + [path])
            tag = "%s %s" % (what, " ".join(args))
            ok(rc == 1, "%s: exit 1 (got %d)" % (tag, rc))
            ok(out == "", "%s: nothing on stdout, no counter block (%r)" %
               (tag, out[:40]))
            lines = err.splitlines()
            ok(len(lines) == 1 and lines[0].startswith("rtel-analyze: " +
                                                       path + ": "),
               "%s: one line 'rtel-analyze: FILE: ...' (%r)" % (tag, err))
            ok(err.count(os.path.basename(path)) == 1,
               "%s: the file named once (%r)" % (tag, err.strip()))
    rc, out, err = run([wifi])
    ok("link type" in err and "IEEE802_11" in err,
       "the link type is reported by name (%r)" % err.strip())
    # a missing file beside a good one: the good one is still measured,
    # one counter block for what was read
    rc, out, err = run(["--stats", missing, cap])
    rc1, out1, err1 = run(["--stats", cap])
    ok(rc == 1 and out.count("==") == 2 and
       out.splitlines()[1:] == out1.splitlines()[1:],
       "missing + good file: exit 1, the good file's counters only")
    ok(err.count("nonexist.pcap") == 1, "... and the missing file named once")
    # a damaged file: the error names it
    dmg = os.path.join(tmp, "damaged.pcap")
    with open(cap, "rb") as f:
        data = f.read()
    with open(dmg, "wb") as f:
        f.write(data[:len(data) // 2 + 7])
    rc, out, err = run(["--stats", dmg])
    ok(rc == 1 and dmg + ":" in err and err.count("damaged.pcap") == 1,
       "a damaged file: exit 1, named once (%r)" % err.strip())
    # hints: nothing of what was asked in the capture
    rc, out, err = run(["--ios", rdma])
    ok(rc == 0 and out == "", "--ios on RDMA only: exit 0, no records")
    ok("hint" in err and rdma in err and "NVMe-oF" in err and
       "--ios" in err,
       "--ios on RDMA only: a hint naming the file and NVMe-oF (%r)" %
       err.strip())
    rc, out, err = run(["--summary", rdma])
    ok("hint" in err and "--summary" in err, "--summary: a hint too")
    rc, out, err = run(["--flows", "--roce-port", "1234", rdma])
    ok(rc == 0 and "hint" in err and "RoCE" in err and "--roce-port" in err,
       "--flows with no RoCE packet: a hint naming --roce-port (%r)" %
       err.strip())
    rc, out, err = run(["--ios", empty])
    ok(rc == 0 and "hint" in err and "no packets" in err,
       "an empty capture: a hint (%r)" % err.strip())
    rc, out, err = run(["--segments", cap])
    ok("hint" in err and "two" in err,
       "--segments on one file: a hint that it needs two (%r)" % err.strip())
    # no hint when there is something to print
    for args, path in ((["--ios", "--flows", "--summary"], cap),
                       (["--flows", "--messages", "--packets"], rdma)):
        rc, out, err = run(args + [path])
        ok(rc == 0 and err == "" and out != "",
           "%s on a capture that has them: no hint (%r)" %
           (" ".join(args), err.strip()))


# ---------------------------------------------------------------- overflow

def json_lines(out):
    return rtel_records.loads_lines(out)


def check_overflow(tmp):
    fl = sim(tmp, "flood", "rdma-flood")
    spine = os.path.join(fl, "l0.pcap")   # about 8000 flows
    # a small table: the evictions are counted on stderr, with the option
    rc, out, err = run(["--flows", "--stats", "--format", "json",
                        "--max-flows", "2000", spine])
    recs = json_lines(out)
    st = [r for r in recs if r["type"] == "stats"][0]
    ev = [r for r in recs if r["type"] == "flow" and r["end"] == "evicted"]
    ok(rc == 0 and st["flows_evicted"] > 0 and len(ev) == st["flows_evicted"],
       "--max-flows 2000 on rdma-flood l0: %d flows evicted" %
       st["flows_evicted"])
    m = re.search(r"(\d+) flows evicted", err)
    ok(m is not None and int(m.group(1)) == st["flows_evicted"],
       "stderr counts the evicted flows (%r)" % err.strip())
    ok("--max-flows" in err, "stderr names --max-flows")
    ok(len(err.splitlines()) == 1, "one line on stderr")
    # text output says it too
    rc, out, err = run(["--flows", "--max-flows", "2000", spine])
    ok(rc == 0 and re.search(r"\d+ flows evicted", err) and
       "--max-flows" in err, "text --flows: the same note")
    # the default table holds the whole flood: no flow split
    for path in (spine, os.path.join(fl, "h0.pcap")):
        rc, out, err = run(["--flows", "--stats", "--format", "json", path])
        recs = json_lines(out)
        st = [r for r in recs if r["type"] == "stats"][0]
        flows = [r for r in recs if r["type"] == "flow"]
        ok(rc == 0 and st["flows_evicted"] == 0 and st["pairs_evicted"] == 0
           and not [r for r in flows if r["end"] == "evicted"] and
           st["flows_created"] == len(flows) > 2000,
           "default table on %s: %d flows, none evicted (flows_evicted %d)" %
           (os.path.basename(path), len(flows), st["flows_evicted"]))
        ok(err == "", "no note when nothing was evicted (%r)" % err.strip())
    # the I/O table: the same note with --max-ios
    nv = sim(tmp, "qd", "nvme-qd32")
    rc, out, err = run(["--ios", "--stats", "--format", "json",
                        "--max-ios", "8", os.path.join(nv, "h0.pcap")])
    st = [r for r in json_lines(out) if r["type"] == "stats"][0]
    m = re.search(r"(\d+) I/Os evicted", err)
    ok(rc == 0 and st["ios_evicted"] > 0 and m is not None and
       int(m.group(1)) == st["ios_evicted"] and "--max-ios" in err,
       "--max-ios 8 at queue depth 32: %d I/Os evicted, counted on stderr "
       "with --max-ios (%r)" % (st["ios_evicted"], err.strip()))


# ---------------------------------------------------------------- aeth

def aeth_expected(syn):
    """The text of an AETH syndrome (rtel_aeth_str and its value)."""
    kind, val = (syn >> 5) & 3, syn & 0x1f
    if syn & 0x80 or kind == 2:
        return "reserved syndrome=0x%02x" % syn
    if kind == 0:
        return "ack credits=%d" % val
    if kind == 1:
        return "rnr_nak timer=%d" % val
    names = {0: "nak_psn_sequence_error", 1: "nak_invalid_request",
             2: "nak_remote_access_error", 3: "nak_remote_operational_error",
             4: "nak_invalid_rd_request"}
    return names.get(val, "nak_reserved syndrome=0x%02x" % syn)


def check_aeth(tmp):
    seen = set()
    for name, scen in (("rnr", "rdma-rnr"), ("loss", "rdma-loss-before"),
                       ("rd", "rdma-read")):
        cap = os.path.join(sim(tmp, name, scen), "h0.pcap")
        rc, txt, err = run(["--packets", cap])
        rc2, js, err2 = run(["--packets", "--format", "json", cap])
        ok(rc == 0 and rc2 == 0, "%s: --packets exits 0" % scen)
        pk = {r["frame"]: r for r in json_lines(js) if r["type"] == "packet"}
        rows = {}
        for line in txt.splitlines()[1:]:
            f = line.split()
            if len(f) > 1 and f[1].isdigit():
                rows[int(f[1])] = line
        bad, n = [], 0
        for fr, r in pk.items():
            if "aeth" not in r:
                continue
            n += 1
            want = " %s msn=%d" % (aeth_expected(r["aeth"]["syndrome"]),
                                   r["aeth"]["msn"])
            seen.add(want.split()[0])
            if r["aeth"]["syndrome_name"] != want.split()[0]:
                bad.append("frame %d: JSON syndrome_name %r, text %r" %
                           (fr, r["aeth"]["syndrome_name"], want.split()[0]))
            if want not in rows.get(fr, ""):
                bad.append("frame %d: want%r in %r" % (fr, want,
                                                       rows.get(fr, "")[-60:]))
        ok(n > 0 and not bad, "%s: %d AETH packets named as rtel_aeth_str "
           "names them, in the text and in the JSON%s" % (scen, n, "; " + "; ".join(bad[:2]) if bad else ""))
        ok(not re.search(r"\b(ACK|NAK|RNR-NAK)\(", txt),
           "%s: no raw ACK(n)/NAK(n) codes" % scen)
    for want in ("ack", "rnr_nak", "nak_psn_sequence_error"):
        ok(want in seen, "syndrome %s seen (%s)" % (want, sorted(seen)))


# ---------------------------------------------------------------- text

def pcap_frames(path):
    """[(ts_ns, orig_len)] of the frames of a classic pcap (either byte
    order, micro- or nanosecond timestamps), read here without the
    program."""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    if magic in (0xa1b2c3d4, 0xa1b23c4d):
        e = "<"
    else:
        e = ">"
        magic = struct.unpack(">I", data[:4])[0]
    scale = 1 if magic == 0xa1b23c4d else 1000
    out, off = [], 24
    while off + 16 <= len(data):
        sec, frac, incl, orig = struct.unpack(e + "IIII", data[off:off + 16])
        out.append((sec * 10**9 + frac * scale, orig))
        off += 16 + incl
    return out


def us(ns):
    """ns as the text tables print durations: us with three decimals."""
    if ns is None:
        return "-"
    return "%s%d.%03d" % ("-" if ns < 0 else "", abs(ns) // 1000,
                          abs(ns) % 1000)


def table_blocks(out, first):
    """[(header line, [row lines])] of the table whose header starts with
    |first|, one block per header printed."""
    blocks = []
    for line in out.splitlines():
        if line.split()[:1] == [first]:
            blocks.append((line, []))
        elif blocks and line and not line.startswith(("--", "!!", "==",
                                                      "  ")):
            blocks[-1][1].append(line)
    return blocks


def spans(line):
    return [(m.start(), m.end()) for m in re.finditer(r"\S+", line)]


def aligned(header, row, ncols):
    """Each of the first |ncols| cells of |row| starts where its header
    name starts (left-aligned) or ends where it ends (right-aligned)."""
    h, c = spans(header), spans(row)
    if len(c) < ncols or len(h) < ncols:
        return False
    return all(c[j][0] == h[j][0] or c[j][1] == h[j][1]
               for j in range(ncols))


def check_alignment(out, first, ncols, what):
    blocks = table_blocks(out, first)
    bad = [(hd, rw) for hd, rows in blocks for rw in rows
           if not aligned(hd, rw, ncols)]
    n = sum(len(rows) for _, rows in blocks)
    ok(n > 0 and not bad, "%s: %d rows, each in line with the header above "
       "it%s" % (what, n, (": %r under %r" % (bad[0][1][:90],
                                               bad[0][0][:90])) if bad
                 else ""))
    return blocks


def check_text(tmp):
    two = sim(tmp, "two", "nvme-two-obs")
    h0, t0 = os.path.join(two, "h0.pcap"), os.path.join(two, "t0.pcap")
    longname = "compute-mirror-of-leaf1-port7"
    files = [longname + "=" + h0, "t0=" + t0]
    rc, out, err = run(["--ios"] + files)
    rc2, sout, err2 = run(["--segments"] + files)
    ok(rc == 0 and rc2 == 0, "--ios, --segments on two points exit 0 (%s)" %
       (err + err2).strip())
    # the unit of each table in its header line
    io_hd = [ln for ln in out.splitlines() if ln.startswith("OBS ")]
    seg_hd = [ln for ln in sout.splitlines() if ln.startswith("HOST ")]
    ok(io_hd and all(ln.rstrip().endswith("(IOL, DAL, DPL, XFER in us)")
                     for ln in io_hd),
       "the I/O header says its unit (%r)" % io_hd[:1])
    ok(seg_hd and all("times in us" in ln for ln in seg_hd),
       "the segment header says its unit")
    # columns line up with a point name longer than any column
    check_alignment(out, "OBS", 14, "--ios with a 29-character point name")
    blocks = check_alignment(sout, "HOST", 13,
                             "--segments with a 29-character point name")
    if blocks:
        names = blocks[0][0].split()[:13]
        ok(len(set(names)) == len(names),
           "--segments: no column name twice (%s)" % " ".join(names))
    # the values: durations in us, exactly the ns of the JSON records
    rc, js, err = run(["--ios", "--segments", "--format", "json"] + files)
    ios = [r for r in json_lines(js) if r["type"] == "io"]
    segs = [r for r in json_lines(js) if r["type"] == "segment"]
    rows = [ln.split() for hd, rws in table_blocks(out, "OBS") for ln in rws]
    want = [[r["obs"], us(r["iol_ns"]), us(r["dal_ns"]), us(r["dpl_ns"]),
             us(r["xfer_ns"])] for r in ios]
    got = [[f[0], f[10], f[11], f[12], f[13]] for f in rows]
    ok(len(want) > 100 and got == want,
       "--ios: IOL DAL DPL XFER in us with three decimals, as the JSON ns "
       "(%d I/Os; first %s, want %s)" % (len(want), got[:1], want[:1]))
    rows = [ln.split() for hd, rws in table_blocks(sout, "HOST")
            for ln in rws]
    want = [[us(r[k]) for k in ("iol1_ns", "iol2_ns", "rtt_ns", "compute_ns",
                                "network_ns", "storage_ns")] for r in segs]
    ok(len(want) > 50 and [f[7:13] for f in rows] == want,
       "--segments: IOL1 IOL2 RTT COMPUTE NETWORK STORAGE in us (%d)" %
       len(want))
    # flows: FCT in us, FET in Gbit/s
    rd = os.path.join(sim(tmp, "rdma", "rdma-loss-before"), "h0.pcap")
    rc, out, err = run(["--flows", "--alarm", "fet<40G", rd])
    rc2, js, err2 = run(["--flows", "--alarm", "fet<40G", "--format", "json",
                         rd])
    hd = [ln for ln in out.splitlines() if ln.startswith("OBS ")]
    ok(hd and hd[0].rstrip().endswith("(FCT in us, FET in Gbit/s)"),
       "the flow header says its units (%r)" % hd[:1])
    cols, rows = text_rows(out, "OBS")
    flows = [r for r in json_lines(js) if r["type"] == "flow"]
    want = [[us(r["fct_ns"]), "%.3f" % (r["fet_bps"] / 1e9)] for r in flows]
    ok(flows and [[f[6], f[10]] for f in rows] == want,
       "--flows: FCT in us, FET in Gbit/s with three decimals (%d flows; "
       "got %s, want %s)" % (len(flows), [[f[6], f[10]] for f in rows][:1],
                              want[:1]))
    # alarms in the tables' units, never in exponent notation
    al = [ln for ln in out.splitlines() if ln.startswith("!! alarm")]
    aj = [r for r in json_lines(js) if r["type"] == "alarm"]
    ok(al and len(al) == len(aj), "fet<40G: %d alarm lines" % len(al))
    ok(all("(limit 40 Gbit/s)" in ln and not re.search(r"\de[+-]", ln)
           for ln in al), "alarm lines in Gbit/s, no exponent (%r)" %
       (al[:1],))
    if al and aj:
        m = re.search(r"fet threshold (\S+) Gbit/s", al[0])
        # (JSON prints the value with 9 significant digits)
        ok(m is not None and abs(float(m.group(1)) * 1e9 - aj[0]["value"])
           <= 1e-8 * aj[0]["value"],
           "the alarm's value is the JSON value in Gbit/s (%r, %r)" %
           (m and m.group(1), aj[0]["value"]))
    # an IPv6 address widens the address columns: the header comes again
    v6 = os.path.join(sim(tmp, "v6", "rdma-ipv6-vlan"), "h0.pcap")
    rc, out, err = run(["--flows", v6])
    check_alignment(out, "OBS", 18, "--flows with IPv6 addresses")
    # packets: TIME in s since the epoch, nine decimals
    sm = os.path.join(sim(tmp, "s", "sample"), "h0.pcap")
    rc, out, err = run(["--packets", sm])
    rows = [ln.split() for ln in out.splitlines()[1:]]
    ts = [t for t, _ in pcap_frames(sm)]
    got = [f[2] for f in rows]
    want = ["%d.%09d" % (t // 10**9, t % 10**9) for t in ts[:len(got)]]
    ok(out.splitlines()[0].rstrip().endswith(
        "(TIME in s since the epoch, LEN in bytes)") and got == want,
       "--packets: TIME in s since the epoch from the capture's frames "
       "(%s, want %s)" % (got[:1], want[:1]))


def summary_periods(out):
    """[(start_ns, end_ns, [row fields])] of the text --summary."""
    per = []
    for line in out.splitlines():
        m = re.match(r"-- summary period (\d+)\.(\d{9}) to (\d+)\.(\d{9}) s "
                     r"\((\S+)\)$", line)
        if m:
            per.append((int(m.group(1)) * 10**9 + int(m.group(2)),
                        int(m.group(3)) * 10**9 + int(m.group(4)), []))
        elif per and line and not line.startswith(("OBS ", "--", "!!")):
            per[-1][2].append(line.split())
    return per


def nearest_rank(v, q):
    v = sorted(v)
    return v[max(0, -(-len(v) * q // 1000) - 1)]


def check_summary(tmp):
    fl = sim(tmp, "fl", "nvme-flush")
    cap = os.path.join(fl, "h0.pcap")
    frames = pcap_frames(cap)
    first, lastt = frames[0][0], max(t for t, _ in frames)
    rc, js, err = run(["--ios", "--format", "json", cap])
    flushes = [r for r in json_lines(js) if r["type"] == "io" and
               r["op"] == "flush" and r["state"] == "complete"]
    ok(len(flushes) > 20, "nvme-flush: %d flushes" % len(flushes))
    for iv, ivns in ((None, None), ("200us", 200000)):
        args = ["--summary"] + (["--interval", iv] if iv else []) + [cap]
        rc, out, err = run(args)
        tag = "--summary" + (" --interval " + iv if iv else "")
        cols, rows = text_rows(out, "OBS")
        ok(any(f[4] == "flush" for f in rows), "%s: flush rows (OPs %s)" %
           (tag, sorted(set(f[4] for f in rows))))
        per = summary_periods(out)
        ok(rc == 0 and per, "%s: %d period lines" % (tag, len(per)))
        if not per:
            continue
        ok(per[0][0] == first and per[-1][1] == lastt,
           "%s: the periods run from the first frame to the last" % tag)
        ok(all(a[1] == b[0] for a, b in zip(per, per[1:])),
           "%s: each period starts where the one before ended" % tag)
        if ivns:
            ok(len(per) > 3 and
               all((e - per[0][0]) % ivns == 0 for s, e, _ in per[:-1]),
               "%s: period boundaries every %s from the first frame (%d "
               "periods)" % (tag, iv, len(per)))
        hd = [ln for ln in out.splitlines() if ln.startswith("OBS ")]
        ok(len(hd) == 1 and hd[0].rstrip().endswith("(latencies in us)"),
           "%s: one header, its unit in it" % tag)
        bad, n = [], 0
        for s, e, rows in per:
            want = [r["iol_ns"] for r in flushes if s <= r["t_rsp_ns"] < e]
            got = [f for f in rows if f[4] == "flush" and f[3] == "1"]
            if not want:
                if got:
                    bad.append("flush row in a period without flushes")
                continue
            n += 1
            if len(got) != 1:
                bad.append("period %d: %d flush rows" % (s, len(got)))
                continue
            f = got[0]
            exp = [str(len(want)), "0", "0", "0", "|",
                   us(nearest_rank(want, 500)), us(nearest_rank(want, 900)),
                   us(nearest_rank(want, 990)), us(nearest_rank(want, 999)),
                   us(max(want)), "|", "-", "-", "|", "-", "-"]
            if f[5:21] != exp:
                bad.append("period %d: %s, want %s" % (s, f[5:21], exp))
        ok(n > 0 and not bad,
           "%s: flush rows in %d periods: count, errors, timeouts and IOL "
           "percentiles (nearest rank) of the flushes answered in them%s" %
           (tag, n, "; " + "; ".join(bad[:2]) if bad else ""))


# ---------------------------------------------------------------- stats

def stats_blocks(out):
    """{title: {counter: value}} of the text counter blocks."""
    blocks, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"== (.*) ==$", line)
        if m:
            cur = blocks.setdefault(m.group(1), {})
        elif cur is not None and line.startswith("  ") and \
                not line.startswith("  malformed:"):
            k, v = line.split()
            cur[k] = int(v)
    return blocks


def check_stats(tmp):
    rd = sim(tmp, "rd", "nvme-read")
    h0, t0 = os.path.join(rd, "h0.pcap"), os.path.join(rd, "t0.pcap")
    for args in ([], ["--stats"], ["--ios", "--stats"],
                 ["--flows", "--summary", "--stats"]):
        rc, out, err = run(args + [h0, t0])
        b = stats_blocks(out)
        tag = " ".join(args + ["h0", "t0"])
        ok(rc == 0 and list(b) == ["h0 (%s)" % h0, "t0 (%s)" % t0,
                                   "all (2 files)"],
           "%s: a counter block per file, then the run's (%s)" %
           (tag, list(b)))
        if len(b) != 3:
            continue
        bh, bt, ba = list(b.values())
        for name, path, blk in (("h0", h0, bh), ("t0", t0, bt)):
            fr = pcap_frames(path)
            ok(blk["packets"] == len(fr) and blk["bytes"] == sum(n for _, n in fr),
               "%s: %s's block counts its %d frames and %d bytes (%d, %d)" %
               (tag, name, len(fr), sum(n for _, n in fr), blk["packets"],
                blk["bytes"]))
        ok(ba["packets"] == bh["packets"] + bt["packets"] and
           ba["segments"] > 0 and
           bh["segments"] == bt["segments"] == 0,
           "%s: the run's block sums the frames and counts the segments" %
           tag)
        if "--ios" in args:
            cols, rows = text_rows(out, "OBS")
            ok(len(rows) == ba["ios_complete"] + ba["ios_timeout"] +
               ba["ios_orphan"] + ba["ios_truncated"] + ba["ios_evicted"],
               "--ios --stats: the I/O table and the counters both (%d "
               "rows)" % len(rows))
    # JSON: the run's stats record first, then one per file, named by
    # "file", counting the frames of that file (read here)
    rc, out, err = run(["--format", "json", "--ios", "--stats", h0, t0])
    st = [r for r in json_lines(out) if r["type"] == "stats"]
    ok(rc == 0 and [(r["obs"], r.get("file")) for r in st] ==
       [("all", None), ("h0", h0), ("t0", t0)] and
       [r["packets"] for r in st[1:]] ==
       [len(pcap_frames(h0)), len(pcap_frames(t0))] and
       st[0]["packets"] == st[1]["packets"] + st[2]["packets"],
       "--format json --stats: the run's record, then one per file with "
       "its frames (%s)" % [(r["obs"], r.get("file"), r["packets"])
                            for r in st])
    # a file's block is what the file alone gives
    rc, out, err = run([h0, t0])
    rc1, alone, err1 = run([h0])
    ok(list(stats_blocks(out).values())[0] ==
       list(stats_blocks(alone).values())[0],
       "h0's block of the two-file run equals rtel-analyze h0.pcap")
    # polling: each file's frames are its own, measured or not
    mx = sim(tmp, "mx", "mixed")
    caps = [os.path.join(mx, n + ".pcap") for n in ("h0", "t0", "l0")]
    rc, out, err = run(["--poll", "1/300us", "--stats"] + caps)
    b = list(stats_blocks(out).values())
    ok(len(b) == 4 and all(b[i]["packets"] == len(pcap_frames(caps[i]))
                           for i in range(3)) and
       sum(x["unscheduled"] for x in b[:3]) == b[3]["unscheduled"] > 0 and
       all(0 < x["unscheduled"] < x["packets"] for x in b[:3]),
       "--poll 1/300us: per-file frames, and unscheduled frames that add up "
       "to the run's")


# ---------------------------------------------------------------- roles

def check_roles(tmp):
    rd = sim(tmp, "rd", "nvme-read")
    h0, t0 = os.path.join(rd, "h0.pcap"), os.path.join(rd, "t0.pcap")
    for args, opt, name in (
            (["--compute-side", "tor1"], "--compute-side", "tor1"),
            (["--storage-side", "h0.pcap"], "--storage-side", "h0.pcap"),
            (["--compute-side", "h0", "--storage-side", "t9"],
             "--storage-side", "t9")):
        rc, out, err = run(["--segments"] + args + [h0, t0])
        first = (err.splitlines() or [""])[0]
        ok(rc == 2 and out == "" and opt in first and "'%s'" % name in first
           and "h0, t0" in first,
           "%s: exit 2, the option, the name and the points named (%d: %r)"
           % (" ".join(args), rc, first))
    rc, out, err = run(["--compute-side", "h0", "--storage-side", "h0", h0,
                        t0])
    ok(rc == 2 and out == "" and "'h0'" in err and "--compute-side" in err,
       "one point in both roles: exit 2 (%r)" % err.strip()[:80])
    other = os.path.join(tmp, "other")
    os.mkdir(other)
    shutil.copy(t0, os.path.join(other, "h0.pcap"))
    dup = os.path.join(other, "h0.pcap")
    # default names (base names) are never shared: a usage error; FILEs
    # given the same NAME= are one point (a rotated capture)
    for files in ([h0, dup], ["h0=" + t0, h0]):
        rc, out, err = run(["--stats"] + files)
        first = (err.splitlines() or [""])[0]
        paths = [f.split("=")[-1] for f in files]
        ok(rc == 2 and out == "" and all(p in first for p in paths) and
           "NAME=FILE" in first,
           "two inputs named alike (%s): exit 2, both files named (%r)" %
           (" ".join(files), first))
    rc, out, err = run(["--stats", "x=" + h0, "x=" + t0])
    b = stats_blocks(out)
    ok(rc == 0 and list(b) == ["x (%s)" % h0, "x (%s)" % t0,
                               "all (2 files)"],
       "x=h0.pcap x=t0.pcap: one point x, a counter block per file (%d: %r)"
       % (rc, list(b)))
    # roles the wrong way round: one warning, with the count
    for args, neg in ((["--compute-side", "t0", "--storage-side", "h0"], 1),
                      (["--storage-side", "h0"], 1),
                      (["--compute-side", "h0", "--storage-side", "t0"], 0),
                      ([], 0)):
        rc, js, err = run(["--segments", "--format", "json"] + args +
                          [h0, t0])
        segs = [r for r in json_lines(js) if r["type"] == "segment"]
        n = sum(1 for r in segs if r["rtt_ns"] < 0)
        tag = " ".join(args) or "inferred roles"
        if neg:
            m = re.findall(r"warning: (\d+) of (\d+) segments have a "
                           r"negative RTT", err)
            ok(n > 0 and rc == 0 and m == [(str(n), str(len(segs)))] and
               len(err.splitlines()) == 1 and
               all(a in err for a in args if not a.startswith("--")),
               "%s: one warning line, %d of %d segments, the roles named "
               "(%r)" % (tag, n, len(segs), err.strip()))
        else:
            ok(n == 0 and rc == 0 and err == "",
               "%s: no negative RTT, no warning (%r)" % (tag, err.strip()))


# ---------------------------------------------------------------- slots

def check_slots(tmp):
    mx = sim(tmp, "mx", "mixed")
    names = ["h0", "t0", "l0"]
    caps = [n + "=" + os.path.join(mx, n + ".pcap") for n in names]
    first = min(pcap_frames(os.path.join(mx, n + ".pcap"))[0][0]
                for n in names)
    rc, out, err = run(["--poll", "1/100us", "--flows"] + caps)
    lines = [ln for ln in out.splitlines() if ln.startswith("-- slot")]
    ok(rc == 0 and len(lines) > 6, "--poll 1/100us: %d slot lines" %
       len(lines))
    bad = []
    for k, ln in enumerate(lines):
        t = first + k * 100000
        want = "-- slot %d at %d.%09d s for 100us: measuring %s" % (
            k, t // 10**9, t % 10**9, names[k % 3])
        if k == 0:
            want += "; stopped t0, l0"
        else:
            want += "; started %s; stopped %s" % (names[k % 3],
                                                  names[(k - 1) % 3])
        if ln != want:
            bad.append("%r, want %r" % (ln, want))
    ok(lines and not bad,
       "slot N measures input N mod 3 (round robin, one at a time), names "
       "it and the ones that start and stop%s" %
       ("; " + bad[0] if bad else ""))
    # two at a time, round robin in the order of the inputs: (h0 t0),
    # (l0 h0), (t0 l0), ...
    rc, out, err = run(["--poll", "2/100us", "--flows"] + caps)
    lines = [ln for ln in out.splitlines() if ln.startswith("-- slot")]
    want = ["measuring h0, t0; stopped l0", "measuring h0, l0; started l0; "
            "stopped t0", "measuring t0, l0; started t0; stopped h0"]
    ok([ln.split(": ", 1)[1] for ln in lines[:3]] == want,
       "--poll 2/100us: two inputs a slot, by name (%r)" % lines[:3])


def check_stdin(tmp):
    """'-' reads standard input; into a pipe, each line leaves as soon as
    it is made: the first 20 packets of a capture written into rtel-
    analyze's standard input, which stays open, come out as 20 --packets
    records before the input ends (buffered, they would wait for the
    exit), equal to reading the same 20 packets from a file."""
    out = sim(tmp, "stdin", "rdma-clean")
    with open(os.path.join(out, "h0.pcap"), "rb") as f:
        data = f.read()
    endian = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") \
        else ">"
    off, n = 24, 0
    while n < 20:
        off += 16 + struct.unpack(endian + "I", data[off + 8:off + 12])[0]
        n += 1
    head = data[:off]
    part = os.path.join(tmp, "first20.pcap")
    with open(part, "wb") as f:
        f.write(head)
    rc, want, _err = run(["--format", "json", "--packets", "x=" + part])
    want = [rtel_records.loads(ln) for ln in want.splitlines()]
    p = subprocess.Popen([ANA, "--format", "json", "--packets", "x=-"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    p.stdin.write(head)
    p.stdin.flush()
    got, buf = [], b""
    deadline = time.monotonic() + 20
    while len(got) < len(want) and time.monotonic() < deadline:
        r, _w, _x = select.select([p.stdout], [], [], 0.5)
        if r:
            chunk = os.read(p.stdout.fileno(), 65536)
            if not chunk:
                break
            buf += chunk
            while b"\n" in buf:
                ln, buf = buf.split(b"\n", 1)
                got.append(rtel_records.loads(ln))
    early = len(got)
    p.stdin.close()
    rest = p.stdout.read()
    p.stderr.read()
    p.wait(timeout=60)
    got += [rtel_records.loads(ln) for ln in (buf + rest).splitlines()]
    ok(rc == 0 and len(want) == 20 and early == 20,
       "'-' on a pipe: %d of %d --packets records out while the input is "
       "still open" % (early, len(want)))
    ok(p.returncode == 0 and got == want,
       "'-': the records equal those of the same packets read from a file "
       "(exit %d)" % p.returncode)


CHECKS = {
    "ios": check_ios,
    "numeric": check_numeric,
    "units": check_units,
    "errors": check_errors,
    "overflow": check_overflow,
    "aeth": check_aeth,
    "text": check_text,
    "summary": check_summary,
    "stats": check_stats,
    "roles": check_roles,
    "slots": check_slots,
    "stdin": check_stdin,
}


def main():
    return run_check(CHECKS, 'check_cli.py', 'rtel-cli-',
                     [("RTEL_ANALYZE", ANA), ("RTEL_SIM", SIM)])


if __name__ == "__main__":
    sys.exit(main())
