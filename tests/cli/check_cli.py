#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/cli/check_cli.py - command-line tests of rtel-analyze (issue 15:
usability). Each runs the program on captures that rtel-sim makes at test
time and compares its output, exit status and standard error with what
man/rtel-analyze.1 promises.

  check_cli.py CHECK     CHECK: ios numeric units errors overflow aeth

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

Environment: RTEL_ANALYZE, RTEL_SIM (from make check). Exit status: 0 pass,
1 fail, 77 skip (a program is not built).
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import rtel_records  # noqa: E402 (tests/rtel_records.py)

ANA = os.environ.get("RTEL_ANALYZE", "")
SIM = os.environ.get("RTEL_SIM", "")
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def ok(cond, msg):
    if cond:
        print("ok: " + msg)
    else:
        fail(msg)
    return cond


def run(args, timeout=300):
    r = subprocess.run([ANA] + args, stdout=subprocess.PIPE,
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


CHECKS = {
    "ios": check_ios,
    "numeric": check_numeric,
    "units": check_units,
    "errors": check_errors,
    "overflow": check_overflow,
    "aeth": check_aeth,
}


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in CHECKS:
        print("usage: check_cli.py " + "|".join(CHECKS))
        return 99
    for exe, what in ((ANA, "RTEL_ANALYZE"), (SIM, "RTEL_SIM")):
        if not exe or not os.access(exe, os.X_OK):
            print("SKIP: %s (%s) is not built" % (what, exe))
            return 77
    tmp = tempfile.mkdtemp(prefix="rtel-cli-")
    try:
        CHECKS[sys.argv[1]](tmp)
    finally:
        if failures:
            print("captures kept in " + tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
