#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Tests of rtel-collect (examples/rtel-collect.c, man/rtel-collect.8).

    check_collect.py files | live | rotate | usage

files   rtel-collect -r on rtel-sim captures (lossy RDMA, ERSPAN III, NVMe-oF
        with timeouts, two-point NVMe-oF with roles, the mixed scenario) with
        -j 1, -j 2 and -j 5 writes the same records as rtel-analyze --format
        json on the same captures: an order-independent multiset compare of
        whole records, every field (sharding must not change a figure);
        '-r -' (standard input) too; the ERSPAN III capture is timed by the
        switch timestamps (the summary on stderr counts them).
live    rtel-collect -i lo while the frames of two captures are sent onto lo
        through an AF_PACKET socket (needs CAP_NET_RAW, else skip), SIGTERM:
        exit 0, a summary line per worker, no drop, and the flow and I/O
        records equal rtel-analyze's on the capture in every field that does
        not depend on time (timestamps and durations are the replay's).
rotate  records streaming through standard input ('-r -', fed slowly):
        --rotate-size cuts FILE into FILE.1, FILE.2 ... of whole lines within
        the limit; SIGHUP after the file was moved away (logrotate) reopens
        FILE; together the files hold every record of rtel-analyze exactly
        once, every line whole.
usage   bad arguments: exit 2 and a first line naming the option (--metrics
        too: without libmicrohttpd it is an error of its own; the rest of
        --metrics is tests/collect/check_metrics.py).

Environment: RTEL_COLLECT, RTEL_ANALYZE, RTEL_SIM (programs; skip 77 if one is
missing). Exit: 0 pass, 1 fail, 77 skip.
"""
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

SKIP = 77
COLLECT = os.environ.get("RTEL_COLLECT", "")
ANALYZE = os.environ.get("RTEL_ANALYZE", "")
SIM = os.environ.get("RTEL_SIM", "")
RECS = ["--flows", "--messages", "--ios", "--segments", "--summary"]

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def need_programs():
    for name, p in (("RTEL_COLLECT", COLLECT), ("RTEL_ANALYZE", ANALYZE),
                    ("RTEL_SIM", SIM)):
        if not p or not os.access(p, os.X_OK):
            print("%s not found (%s): skipped" % (name, p or "unset"))
            sys.exit(SKIP)


def simulate(tmp, scenario, seed=7, extra=()):
    out = os.path.join(tmp, scenario)
    if not os.path.isdir(out):
        subprocess.run([SIM, "--scenario", scenario, "--seed", str(seed),
                        "--out", out] + list(extra), check=True,
                       stdout=subprocess.DEVNULL)
    return sorted(os.path.join(out, f) for f in os.listdir(out)
                  if f.endswith(".pcap"))


def canon(line):
    return json.dumps(json.loads(line), sort_keys=True)


def multiset(lines):
    d = {}
    for ln in lines:
        if ln.strip():
            k = canon(ln)
            d[k] = d.get(k, 0) + 1
    return d


def analyze(pcaps, extra=()):
    r = subprocess.run([ANALYZE, "--format", "json"] + RECS + list(extra) +
                       pcaps, check=True, stdout=subprocess.PIPE, text=True)
    return r.stdout.splitlines()


def compare(label, want, got):
    a, b = multiset(want), multiset(got)
    if a == b:
        return True
    missing = [k for k in a if b.get(k, 0) < a[k]]
    extra = [k for k in b if a.get(k, 0) < b[k]]
    fail("%s: %d records expected, %d written; %d missing, %d unexpected"
         % (label, sum(a.values()), sum(b.values()), len(missing),
            len(extra)))
    for k in (missing[:2] + extra[:2]):
        print("   ", "missing" if k in missing else "unexpected", k[:400])
    return False


# ------------------------------------------------------------------ files

def run_files(tmp):
    cases = [
        ("rdma-loss-before", ()),
        ("rdma-erspan3", ()),
        ("nvme-lost-rsp", ()),
        ("nvme-two-obs", ("--compute-side", "h0", "--storage-side", "t0")),
        ("mixed", ()),
    ]
    for scenario, extra in cases:
        pcaps = simulate(tmp, scenario)
        want = analyze(pcaps, extra)
        if len(want) < 10:
            fail("%s: rtel-analyze wrote only %d records" % (scenario,
                                                           len(want)))
        rargs = []
        for p in pcaps:
            rargs += ["-r", p]
        for j in (1, 2, 5):
            out = os.path.join(tmp, "%s-j%d.json" % (scenario, j))
            r = subprocess.run([COLLECT, "-j", str(j), "--slot", "9216",
                                "--json", out] + RECS + list(extra) + rargs,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
            label = "%s -j %d" % (scenario, j)
            if r.returncode != 0:
                fail("%s: exit %d: %s" % (label, r.returncode, r.stderr))
                continue
            with open(out) as f:
                got = f.read().splitlines()
            if compare(label, want, got):
                print("ok: %s: %d records as rtel-analyze" % (label,
                                                             len(want)))
            workers = [ln for ln in r.stderr.splitlines()
                       if ": worker " in ln and "packets" in ln]
            if len(workers) != j:
                fail("%s: %d worker summary lines" % (label, len(workers)))
            erspan = sum(int(ln.split("timestamps erspan ")[1].split()[0])
                         for ln in workers)
            if scenario == "rdma-erspan3" and erspan == 0:
                fail("%s: no packet timed by its ERSPAN timestamp" % label)
            if scenario != "rdma-erspan3" and erspan != 0:
                fail("%s: %d ERSPAN timestamps without ERSPAN" % (label,
                                                                 erspan))
    # IPFIX to a collector here: one observation domain per worker
    # (--domain + index), every message an IPFIX message of that domain,
    # as many as the summary says, nothing lost
    pcaps = simulate(tmp, "mixed")
    rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rx.bind(("127.0.0.1", 0))
    rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    rx.settimeout(0.5)
    r = subprocess.run([COLLECT, "-j", "3", "--slot", "9216", "--ipfix",
                        "127.0.0.1:%d" % rx.getsockname()[1], "--domain",
                        "40"] + sum((["-r", p] for p in pcaps), []),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    per_domain = {}
    try:
        while True:
            msg = rx.recv(65536)
            ver, length, _t, _seq, dom = struct.unpack("!HHIII", msg[:16])
            if ver != 10 or length != len(msg):
                fail("ipfix: a message of version %d, length %d (%d read)"
                     % (ver, length, len(msg)))
            per_domain[dom] = per_domain.get(dom, 0) + 1
    except socket.timeout:
        pass
    rx.close()
    said = {}
    for ln in r.stderr.splitlines():
        if ": ipfix " in ln:
            dom = int(ln.split(" domain ")[1].split(":")[0])
            said[dom] = (int(ln.split(" records in ")[1].split()[0]),
                         int(ln.split(" records lost")[0].split()[-1]))
    if r.returncode != 0 or sorted(said) != [40, 41, 42] or \
            any(lost for _m, lost in said.values()) or \
            {d: m for d, (m, _l) in said.items() if m} != per_domain:
        fail("ipfix: exit %d, summary %s, received %s: %s" %
             (r.returncode, said, per_domain, r.stderr))
    else:
        print("ok: ipfix: messages per domain %s as the summary says" %
              per_domain)
    # standard input, and --timestamps capture on the ERSPAN capture
    pcaps = simulate(tmp, "rdma-loss-before")
    want = analyze(pcaps[:1])
    out = os.path.join(tmp, "stdin.json")
    with open(pcaps[0], "rb") as f:
        r = subprocess.run([COLLECT, "-j", "2", "--slot", "9216", "--json",
                            out, "-r", "h0=-"] + RECS, stdin=f,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    if r.returncode != 0:
        fail("-r -: exit %d: %s" % (r.returncode, r.stderr))
    else:
        with open(out) as f:
            if compare("-r - (standard input)", want, f.read().splitlines()):
                print("ok: -r -: %d records" % len(want))
    pcaps = simulate(tmp, "rdma-erspan3")
    out = os.path.join(tmp, "capture-ts.json")
    r = subprocess.run([COLLECT, "-j", "2", "--timestamps", "capture",
                        "--json", out] + RECS +
                       sum((["-r", p] for p in pcaps), []),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    used = [int(ln.split("timestamps erspan ")[1].split()[0])
            for ln in r.stderr.splitlines() if "timestamps erspan " in ln]
    if r.returncode != 0 or len(used) != 2 or sum(used) != 0:
        fail("--timestamps capture: %s" % r.stderr)
    else:
        print("ok: --timestamps capture: no ERSPAN timestamp used")


# ------------------------------------------------------------------ live

def pcap_frames(path):
    """(ts_ns, bytes) of a pcap file (either precision)."""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    if magic in (0xa1b2c3d4, 0xa1b23c4d):
        e = "<"
    else:
        e = ">"
        magic = struct.unpack(">I", data[:4])[0]
    nano = magic == 0xa1b23c4d
    off = 24
    out = []
    while off + 16 <= len(data):
        sec, frac, incl, _orig = struct.unpack(e + "IIII", data[off:off + 16])
        off += 16
        out.append((sec * 10**9 + (frac if nano else frac * 1000),
                    data[off:off + incl]))
        off += incl
    return out


TIMELESS_FLOW = ["type", "obs", "src", "dst", "sport", "dqpn", "peer_qpn",
                 "op", "dscp", "bytes", "packets", "retx_packets",
                 "retx_bytes", "naks_seq", "naks_rnr", "naks_fatal", "cnps",
                 "ecn_ce", "fecn", "becn", "psn_gaps", "losses_upstream",
                 "losses_downstream", "retx_after_nak", "retx_after_rnr",
                 "lost_upstream"]
TIMELESS_IO = ["type", "obs", "host", "target", "host_qpn", "target_qpn",
               "cid", "qid", "op", "nsid", "slba", "nlb", "bytes",
               "nvme_status", "state", "incapsule"]


def timeless(lines):
    out = []
    for ln in lines:
        if not ln.strip():
            continue
        r = json.loads(ln)
        keys = {"flow": TIMELESS_FLOW, "io": TIMELESS_IO}.get(r["type"])
        if keys:
            out.append(json.dumps({k: r.get(k) for k in keys},
                                  sort_keys=True))
    return out


def run_live(tmp):
    try:
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        s.bind(("lo", 0))
    except (PermissionError, OSError, AttributeError) as e:
        print("no raw socket on lo (%s): CAP_NET_RAW needed: skipped" % e)
        sys.exit(SKIP)
    # one observation point per capture, sent one after the other (the
    # flows of the two do not meet: different addresses and QPs)
    caps = [simulate(tmp, "rdma-loss-before")[0],
            simulate(tmp, "nvme-read")[0]]
    frames = []
    for c in caps:
        frames += pcap_frames(c)
    idle = "5000000000"  # 5 s: the replay's pauses end no flow
    want = []
    for c in caps:
        want += analyze([c], ["--flow-idle", idle])
    want = [ln.replace('"obs":"%s"' % os.path.basename(c)[:-5], '"obs":"h0"')
            for ln in want]
    out = os.path.join(tmp, "live.json")
    p = subprocess.Popen([COLLECT, "-i", "h0=lo", "-j", "2", "--slot", "9216",
                          "--queue", "65536", "--flow-idle", idle, "--json",
                          out] + RECS, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    t0 = time.time()
    line = p.stderr.readline()
    if "started" not in line:
        p.kill()
        out_, err = p.communicate()
        if "permitted" in (line + err) or "ermission" in (line + err):
            print("cannot capture on lo: %s: skipped" % (line + err).strip())
            sys.exit(SKIP)
        fail("live: no start line: %s%s" % (line, err))
        return
    time.sleep(0.5)  # the capture is active before the line; be generous
    sent = 0
    for _ts, fr in frames:
        s.send(fr)
        sent += 1
        if sent % 200 == 0:
            time.sleep(0.001)  # no burst beyond the socket buffers
    time.sleep(1.0)
    p.send_signal(signal.SIGTERM)
    try:
        _out, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        fail("live: no exit 30 s after SIGTERM")
        return
    err = line + err
    if p.returncode != 0:
        fail("live: exit %d after SIGTERM: %s" % (p.returncode, err))
        return
    workers = [ln for ln in err.splitlines() if ": worker " in ln and
               "packets" in ln]
    if len(workers) != 2:
        fail("live: %d worker summary lines, 2 expected:\n%s" %
             (len(workers), err))
    pk = sum(int(ln.split("packets ")[1].split(",")[0]) for ln in workers)
    drops = sum(int(ln.split("drops ")[1].split(",")[0]) for ln in workers)
    kern = [ln for ln in err.splitlines() if "dropped by the kernel" in ln]
    if pk < sent or drops:
        fail("live: %d frames sent, %d reached the workers, %d dropped: %s"
             % (sent, pk, drops, kern))
    with open(out) as f:
        got = f.read().splitlines()
    if compare("live lo (time-independent fields of %d flow/io records)"
               % len(timeless(want)), timeless(want), timeless(got)):
        print("ok: live on lo: %d frames, %d flow and I/O records as "
              "rtel-analyze (%.1f s)" % (sent, len(timeless(want)),
                                         time.time() - t0))
    ends = {json.loads(ln).get("end") for ln in got
            if json.loads(ln)["type"] == "flow"}
    if not ends <= {"flush", "idle"}:
        fail("live: flow ends %s" % ends)


# ------------------------------------------------------------------ rotate

def pcap_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def run_rotate(tmp):
    pcap = simulate(tmp, "nvme-read")[0]
    idle = "100000"  # 100 us: flows end during the capture, lines stream
    want = analyze([pcap], ["--flow-idle", idle])
    data = pcap_bytes(pcap)
    frames = pcap_frames(pcap)
    half = 24 + sum(16 + len(fr) for _t, fr in frames[:len(frames) // 2])
    base = os.path.join(tmp, "rot.json")
    limit = 4096
    p = subprocess.Popen([COLLECT, "-j", "2", "--slot", "9216", "-r", "h0=-",
                          "--flow-idle", idle, "--json", base,
                          "--rotate-size", str(limit)] + RECS,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    p.stdin.write(data[:half])
    p.stdin.flush()
    # lines of the first half reach the file (worker tick 100 ms, writer)
    deadline = time.time() + 10
    while time.time() < deadline and not os.path.exists(base + ".1"):
        time.sleep(0.05)
    time.sleep(0.3)
    os.rename(base, base + ".moved")  # logrotate's move
    p.send_signal(signal.SIGHUP)
    time.sleep(0.5)  # the writer reopens within 200 ms
    _out, err = p.communicate(input=data[half:], timeout=60)
    err = err.decode()
    if p.returncode != 0:
        fail("rotate: exit %d: %s" % (p.returncode, err))
        return
    files = sorted(f for f in os.listdir(tmp) if f.startswith("rot.json"))
    got = []
    for fn in files:
        with open(os.path.join(tmp, fn)) as f:
            text = f.read()
        if text and not text.endswith("\n"):
            fail("rotate: %s ends inside a line" % fn)
        for ln in text.splitlines():
            try:
                json.loads(ln)
            except ValueError:
                fail("rotate: %s: a torn line: %r" % (fn, ln[:80]))
        rotated = fn != "rot.json" and fn != "rot.json.moved"
        lines = text.splitlines()
        if rotated and len(text) > limit and len(lines) > 1:
            fail("rotate: %s: %d bytes in %d lines, limit %d" %
                 (fn, len(text), len(lines), limit))
        got += lines
    if "rot.json.moved" not in files or "rot.json" not in files:
        fail("rotate: files %s: SIGHUP did not reopen rot.json" % files)
    nrot = len([f for f in files if f[len("rot.json."):].isdigit()])
    if nrot < 3:
        fail("rotate: %d rotated files" % nrot)
    if "1 reopens" not in err:
        fail("rotate: the summary does not count one reopen: %s" % err)
    if compare("rotate + SIGHUP (%d files)" % len(files), want, got):
        print("ok: rotate + SIGHUP: %d records in %d files, whole lines"
              % (len(want), len(files)))


# ------------------------------------------------------------------ usage

def run_usage(tmp):
    pcap = os.path.join(tmp, "none.pcap")
    cases = [
        (["-j", "0", "-r", pcap, "--json", "-"], "-j"),
        (["-j", "x", "-r", pcap, "--json", "-"], "-j"),
        (["--queue", "1000", "-r", pcap, "--json", "-"], "--queue"),
        (["--slot", "10", "-r", pcap, "--json", "-"], "--slot"),
        (["--ipfix", "nocolon", "-r", pcap], "--ipfix"),
        (["--rotate-size", "0", "-r", pcap, "--json", "x"], "--rotate-size"),
        (["--rotate-time", "-1", "-r", pcap, "--json", "x"], "--rotate-time"),
        (["--rotate-size", "10", "-r", pcap, "--json", "-"], "--rotate-size"),
        (["--timestamps", "switch", "-r", pcap, "--json", "-"],
         "--timestamps"),
        (["--bogus", "-r", pcap, "--json", "-"], "--bogus"),
        (["-r", pcap], "--ipfix"),
        (["--json", "-"], "-i"),
        (["-i", "lo", "-r", pcap, "--json", "-"], "-r"),
        (["-i", "lo", "--replay", "--json", "-"], "--replay"),
        (["-r", pcap, "--filter", "udp", "--json", "-"], "--filter"),
        (["-r", pcap, "--json"], "--json"),
        (["--pen", "0", "-r", pcap, "--json", "-"], "--pen"),
        (["--mtu", "100", "-r", pcap, "--json", "-"], "--mtu"),
        (["--max-flows", "0", "-r", pcap, "--json", "-"], "--max-flows"),
        (["--roce-port", "70000", "-r", pcap, "--json", "-"], "--roce-port"),
        # --metrics: exit 2 naming it, built with libmicrohttpd or not
        (["--metrics", "nocolon", "-r", pcap], "--metrics"),
        (["--metrics", "::1:9464", "-r", pcap], "--metrics"),
        (["--metrics-max-series", "0", "--metrics", "127.0.0.1:0", "-r",
          pcap], "--metrics-max-series"),
        (["--linger", "5", "-r", pcap, "--json", "-"], "--linger"),
        (["--linger", "soon", "-r", pcap, "--json", "-"], "--linger"),
    ]
    for args, opt in cases:
        r = subprocess.run([COLLECT] + args, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        first = (r.stderr.splitlines() or [""])[0]
        if r.returncode != 2 or opt not in first:
            fail("usage %s: exit %d, %r (want 2, naming %s)" %
                 (" ".join(args), r.returncode, first, opt))
        else:
            print("ok: %s -> exit 2: %s" % (" ".join(args), first))
    r = subprocess.run([COLLECT, "--help"], stdout=subprocess.PIPE, text=True)
    if r.returncode != 0 or "--ipfix" not in r.stdout:
        fail("--help: exit %d" % r.returncode)
    # a capture that cannot be read: exit 1, not 2, and it is named
    r = subprocess.run([COLLECT, "-r", pcap, "--json", "-"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if r.returncode != 1 or pcap not in r.stderr:
        fail("missing file: exit %d: %s" % (r.returncode, r.stderr))
    # a collector that is down: records lost, counted, exit 0
    pcaps = simulate(tmp, "rdma-loss-before")
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nobody listens there: ECONNREFUSED
    r = subprocess.run([COLLECT, "-j", "2", "--replay", "--ipfix",
                        "127.0.0.1:%d" % port, "--json", os.devnull] +
                       sum((["-r", p] for p in pcaps), []),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if r.returncode != 0 or "records lost" not in r.stderr:
        fail("collector down: exit %d: %s" % (r.returncode, r.stderr))
    else:
        print("ok: a collector that is down: exit 0, losses counted")


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ("files", "live", "rotate",
                                                 "usage"):
        print(__doc__)
        return 2
    need_programs()
    with tempfile.TemporaryDirectory(prefix="rtel-collect.") as tmp:
        {"files": run_files, "live": run_live, "rotate": run_rotate,
         "usage": run_usage}[sys.argv[1]](tmp)
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
