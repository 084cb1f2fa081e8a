#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Tests of rtel-collect (examples/rtel-collect.c, man/rtel-collect.8).

    check_collect.py files | live | erspan | poll | rotate | usage

files   rtel-collect -r on rtel-sim captures (lossy RDMA, ERSPAN III, NVMe-oF
        with timeouts, two-point NVMe-oF with roles, the mixed scenario) with
        -j 1, -j 2 and -j 5 writes the same records as rtel-analyze --format
        json on the same captures: an order-independent multiset compare of
        whole records, every field (sharding must not change a figure);
        '-r -' (standard input) too; the ERSPAN III capture is timed by the
        switch timestamps (the summary on stderr counts them).
live    rtel-collect -i lo --filter 'udp port 4791' while the frames of two
        captures are sent onto lo through an AF_PACKET socket (needs CAP_NET_RAW, else skip), SIGTERM:
        exit 0, a summary line per worker, no drop, and the flow and I/O
        records equal rtel-analyze's on the capture in every field that does
        not depend on time (timestamps and durations are the replay's).
        Then, in the same run (two tests sending RoCE frames onto lo at
        once would see each other's): SIGTERM after half of two captures, while flows and
        I/Os are open: every record rtel-analyze gives for those halves
        arrives (flows ended flush, I/Os truncated); then --flow-idle 200 ms
        and 1.5 s of quiet: every flow is in the JSON file, ended idle,
        before any signal (timers on the wall clock).
erspan  rtel-collect -i lo --filter 'ip proto 47 and dst host 192.168.255.1'
        while rtel-sim's ERSPAN type III copies (GRE 0x22EB, IEEE 1588
        stamps, granularity 2) of rdma-erspan3 and of nvme-read --erspan 3
        are sent onto lo (AF_PACKET: CAP_NET_RAW, else skip): the capture
        is moved by whole seconds to the second it is sent in (a stamp
        holds the nanoseconds of a second, rtel-collect takes the second
        from the capture time), sending begins 100 ms before the first
        stamp; the summary must count every frame as timed by its ERSPAN
        stamp, and the flow, message and I/O records must equal
        rtel-analyze's on the moved capture in every field, times
        included (summaries are left out: live, their period ends at the
        clock of the stop). Sent again (up to 3 times) when sending took
        too long for the stamps to resolve.
poll    --poll P/SLOT on capture files (nvme-two-obs 1/200us, mixed 2/400us
        and 1/300us) with -j 1, 2, 3: every record, the "slot" records
        included, equals rtel-analyze --poll's, the packets measured and
        unscheduled (the --stats records of the workers, summed) and each
        worker's slot count are rtel-analyze's, and the --on-slot hook (a
        shell script recording its environment) ran once per slot, in
        order, with RTEL_SLOT, RTEL_SLOT_START/_END, RTEL_START/RTEL_STOP
        (port ids) and RTEL_START_NAMES/RTEL_STOP_NAMES of the slot
        records; a hook that exits 1 or does not exist is counted, exit 0;
        live (-i a=lo -i b=lo, no traffic, 1/100ms; skipped without
        CAP_NET_RAW): the hook runs at every boundary of the wall clock
        (within 50 ms), 100 ms apart, the two ports alternating.
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
import collections
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
    out = os.path.join(tmp, scenario + "".join(extra).replace("-", "_"))
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
        # summaries per period: every worker's periods begin where
        # rtel-analyze's do (the run's first packet), whatever packet its
        # own shard saw first (three hosts at the target's port: the
        # workers' shards begin at different packets)
        ("nvme-read", ("--interval", "200us"),
         ("--hosts", "4", "--nvme-hosts", "3", "--obs", "t0")),
    ]
    for n, case in enumerate(cases):
        scenario, extra = case[0], case[1]
        pcaps = simulate(tmp, scenario, extra=case[2] if len(case) > 2 else ())
        want = analyze(pcaps, extra)
        if len(want) < 10:
            fail("%s: rtel-analyze wrote only %d records" % (scenario,
                                                           len(want)))
        if "--interval" in extra:
            starts = set(json.loads(ln).get("period_start_ns") for ln in want
                         if "period_start_ns" in json.loads(ln))
            if len(starts) < 3:
                fail("%s --interval: only %d periods" % (scenario,
                                                         len(starts)))
        rargs = []
        for p in pcaps:
            rargs += ["-r", p]
        for j in (1, 2, 5):
            out = os.path.join(tmp, "%d-%s-j%d.json" % (n, scenario, j))
            r = subprocess.run([COLLECT, "-j", str(j), "--slot", "9216",
                                "--json", out] + RECS + list(extra) + rargs,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
            label = "%s%s -j %d" % (scenario, " --interval" if "--interval"
                                    in extra else "", j)
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


def lo_socket():
    """An AF_PACKET socket bound to lo to send frames with, or skip (77)
    without CAP_NET_RAW."""
    try:
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        s.bind(("lo", 0))
    except (PermissionError, OSError, AttributeError) as e:
        print("no raw socket on lo (%s): CAP_NET_RAW needed: skipped" % e)
        sys.exit(SKIP)
    return s


def run_live(tmp):
    s = lo_socket()
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
                          "--queue", "65536", "--flow-idle", idle,
                          # not the GRE frames of the erspan test
                          "--filter", "udp port 4791", "--json",
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
    live_send(s, frames)  # no burst beyond the socket buffers
    sent = len(frames)
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


# ------------------------------------------------------------------ stop

def live_start(args):
    """rtel-collect -i h0=lo ARGS, once its start line is out (or skip)."""
    p = subprocess.Popen([COLLECT, "-i", "h0=lo", "--slot", "9216",
                          "--queue", "65536", "--filter", "udp port 4791"]
                         + args, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    line = p.stderr.readline()
    if "started" not in line:
        p.kill()
        _o, err = p.communicate()
        if "ermission" in (line + err) or "permitted" in (line + err):
            print("cannot capture on lo: %s: skipped" % (line + err).strip())
            sys.exit(SKIP)
        fail("no start line: %s%s" % (line, err))
        return None
    time.sleep(0.5)
    return p


def live_send(s, frames):
    for i, (_ts, fr) in enumerate(frames):
        s.send(fr)
        if i % 200 == 199:
            time.sleep(0.001)


def live_stop(p, what):
    p.send_signal(signal.SIGTERM)
    try:
        _o, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        fail("%s: no exit 30 s after SIGTERM" % what)
        return None
    if p.returncode != 0:
        fail("%s: exit %d after SIGTERM: %s" % (what, p.returncode, err))
    return err


def run_stop(tmp):
    """The two lifecycle cases of the issue, live on lo. (a) Stop in the
    middle: half of a capture (RDMA flows with loss, then NVMe-oF reads) is
    sent, then SIGTERM while flows and I/Os are open: every record that
    rtel-analyze gives for that half (flows ending flush, I/Os truncated)
    arrives, none more. (b) Idle: a whole RDMA capture is sent with
    --flow-idle 200 ms; 1.5 s later, with no packet since and before any
    signal, every flow has arrived in the JSON file, ended idle - the
    worker timers run on the wall clock while the wire is quiet."""
    s = lo_socket()
    rdma = simulate(tmp, "rdma-loss-before")[0]
    nvme = simulate(tmp, "nvme-read")[0]
    # (a) the first half of each capture, in one pcap as rtel-analyze's input
    frames, want = [], []
    idle = "5000000000"
    for name, c in (("half-rdma", rdma), ("half-nvme", nvme)):
        fr = pcap_frames(c)
        fr = fr[:len(fr) // 2]
        frames += fr
        half = os.path.join(tmp, name + ".pcap")
        write_pcap(half, fr)
        want += [ln.replace('"obs":"%s"' % name, '"obs":"h0"')
                 for ln in analyze([half], ["--flow-idle", idle])]
    out = os.path.join(tmp, "stop.json")
    p = live_start(["-j", "2", "--flow-idle", idle, "--json", out] + RECS)
    if p is None:
        return
    t0 = time.time()
    live_send(s, frames)
    time.sleep(1.0)
    if live_stop(p, "stop") is None:
        return
    with open(out) as f:
        got = f.read().splitlines()
    recs = [json.loads(ln) for ln in got if ln.strip()]
    flushed = sum(1 for r in recs if r["type"] == "flow" and
                  r.get("end") == "flush")
    truncated = sum(1 for r in recs if r["type"] == "io" and
                    r.get("state") == "truncated")
    if not flushed or not truncated:
        fail("stop: nothing was open at SIGTERM (%d flows flushed, %d I/Os "
             "truncated): the test proves nothing" % (flushed, truncated))
    elif compare("stop in the middle (%d flow/io records)"
                 % len(timeless(want)), timeless(want), timeless(got)):
        print("ok: SIGTERM mid-capture: %d frames, every open record arrived "
              "(%d flows flushed, %d I/Os truncated) as rtel-analyze on the "
              "same half (%.1f s)" % (len(frames), flushed, truncated,
                                      time.time() - t0))
    # (b) idle flows end on the wall clock
    frames = pcap_frames(rdma)
    want = [ln.replace('"obs":"%s"' % os.path.basename(rdma)[:-5],
                       '"obs":"h0"') for ln in analyze([rdma])]
    nflows = sum(1 for ln in want if json.loads(ln)["type"] == "flow")
    out = os.path.join(tmp, "idle.json")
    p = live_start(["-j", "2", "--flow-idle", "200000000", "--json", out,
                    "--flows"])
    if p is None:
        return
    live_send(s, frames)
    time.sleep(1.5)
    with open(out) as f:
        got = [json.loads(ln) for ln in f.read().splitlines() if ln.strip()]
    flows = [r for r in got if r["type"] == "flow"]
    live_stop(p, "idle")
    ends = collections.Counter(r.get("end") for r in flows)
    keys = lambda rs: sorted((r["src"], r["dst"], r["dqpn"], r["packets"])
                             for r in rs)
    if len(flows) != nflows or set(ends) != {"idle"}:
        fail("idle: %d of %d flows in the file 1.5 s after the last packet "
             "(before SIGTERM), ends %s" % (len(flows), nflows, dict(ends)))
    elif keys(flows) != keys([json.loads(ln) for ln in want
                              if json.loads(ln)["type"] == "flow"]):
        fail("idle: the flows that ended idle are not rtel-analyze's")
    else:
        print("ok: idle: all %d flows ended idle on the wall clock, before "
              "any signal, with no packet after the last" % nflows)


# ------------------------------------------------------------------ erspan

ERSPAN_DST = "192.168.255.1"  # rtel-sim's collector address (outer IPv4)


def erspan3_stamp(fr):
    """(granularity, 32-bit timestamp) of an rtel-sim ERSPAN type III copy
    (Ethernet, IPv4 without options, GRE with a sequence number), or None
    if |fr| is not one."""
    if len(fr) < 54 or fr[12:14] != b"\x08\x00" or fr[14] != 0x45 or \
            fr[23] != 47 or fr[36:38] != b"\x22\xeb" or fr[42] >> 4 != 2:
        return None
    return ((struct.unpack("!H", fr[52:54])[0] >> 1) & 3,
            struct.unpack("!I", fr[46:50])[0])


def write_pcap(path, frames):
    """A nanosecond pcap (Ethernet) of (ts_ns, bytes) frames."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 65535, 1))
        for ts, fr in frames:
            f.write(struct.pack("<IIII", ts // 10**9, ts % 10**9, len(fr),
                                len(fr)))
            f.write(fr)


def erspan_once(tmp, s, name, frames, extra):
    """One live run on lo: returns None (passed or failed: reported), or
    "again" when sending took too long for the 1588 stamps to resolve
    (a busy machine)."""
    # The stamps (granularity 2, IEEE 1588) carry the nanoseconds of a
    # second; rtel-collect takes the second from the capture time, the
    # nearest of three. The capture is moved by whole seconds, which keeps
    # every stamp, to the second the frames are sent in: S seconds, with
    # sending begun 100 ms before the first stamp's time.
    ts0 = frames[0][0]
    span = frames[-1][0] - ts0
    lead = 100000000
    idle = "5000000000"  # 5 s: nothing ends idle while the run lasts
    out = os.path.join(tmp, "erspan-%s.json" % name)
    p = subprocess.Popen([COLLECT, "-i", "h0=lo", "-j", "2", "--slot", "9216",
                          "--queue", "65536", "--flow-idle", idle,
                          "--filter", "ip proto 47 and dst host " +
                          ERSPAN_DST, "--json", out] + RECS[:-1] + extra,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    line = p.stderr.readline()
    if "started" not in line:
        p.kill()
        _o, err = p.communicate()
        if "permitted" in (line + err) or "ermission" in (line + err):
            print("cannot capture on lo: %s: skipped" % (line + err).strip())
            sys.exit(SKIP)
        fail("erspan %s: no start line: %s%s" % (name, line, err))
        return None
    time.sleep(0.5)  # the capture is active before the line; be generous
    now = time.time_ns() + 300000000
    shift = -(-(now + lead - ts0) // 10**9) * 10**9  # whole seconds
    start = ts0 + shift - lead
    while time.time_ns() < start:
        time.sleep(min(0.05, (start - time.time_ns()) / 1e9 + 1e-4))
    t_send = time.time_ns()
    for i, (_ts, fr) in enumerate(frames):
        s.send(fr)
        if i % 200 == 199:
            time.sleep(0.001)
    took = time.time_ns() - t_send
    time.sleep(1.0)
    p.send_signal(signal.SIGTERM)
    try:
        _o, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        fail("erspan %s: no exit 30 s after SIGTERM" % name)
        return None
    err = line + err
    # every capture time within 500 ms of its frame's stamp time
    if t_send - (ts0 + shift) < -450000000 or \
            t_send + took - (ts0 + shift + span) > 450000000:
        print("erspan %s: sending took %.0f ms (began %.0f ms before the "
              "stamps): again" % (name, took / 1e6,
                                  (ts0 + shift - t_send) / 1e6))
        return "again"
    if p.returncode != 0:
        fail("erspan %s: exit %d after SIGTERM: %s" % (name, p.returncode,
                                                       err))
        return None
    workers = [ln for ln in err.splitlines() if ": worker " in ln and
               "packets" in ln]
    used = sum(int(ln.split("timestamps erspan ")[1].split()[0])
               for ln in workers)
    cap = sum(int(ln.split(" capture ")[1].split()[0].rstrip(","))
              for ln in workers)
    drops = sum(int(ln.split("drops ")[1].split(",")[0]) for ln in workers)
    if len(workers) != 2 or used != len(frames) or cap or drops:
        fail("erspan %s: %d frames sent; timed by ERSPAN %d, by the capture "
             "%d, %d dropped:\n%s" % (name, len(frames), used, cap, drops,
                                       err))
        return None
    # the reference: the capture moved by S (its times are the stamps'),
    # measured by rtel-analyze; every field must be equal, times included
    moved = os.path.join(tmp, "erspan-%s-moved.pcap" % name)
    write_pcap(moved, [(ts + shift, fr) for ts, fr in frames])
    r = subprocess.run([ANALYZE, "--format", "json"] + RECS[:-1] +
                       ["--flow-idle", idle] + extra + ["h0=" + moved],
                       check=True, stdout=subprocess.PIPE, text=True)
    want = r.stdout.splitlines()
    with open(out) as f:
        got = f.read().splitlines()
    kinds = sorted({json.loads(ln)["type"] for ln in want})
    if compare("erspan %s live lo (%d records, every field)" %
               (name, len(want)), want, got):
        print("ok: erspan %s on lo: %d ERSPAN III frames timed by their "
              "switch stamps, %d records (%s) as rtel-analyze, times "
              "included (sent in %.0f ms)" % (name, len(frames), len(want),
                                               ", ".join(kinds), took / 1e6))
    return None


def run_live_all(tmp):
    run_live(tmp)
    run_stop(tmp)


def run_erspan(tmp):
    s = lo_socket()
    cases = [("rdma-erspan3", ()),
             ("nvme-read", ("--erspan", "3"))]
    for scenario, simopts in cases:
        name = scenario
        d = os.path.join(tmp, "erspan-" + scenario)
        subprocess.run([SIM, "--scenario", scenario, "--seed", "7", "--out",
                        d] + list(simopts), check=True,
                       stdout=subprocess.DEVNULL)
        frames = pcap_frames(os.path.join(d, "h0.pcap"))
        # rtel-sim's copies: ERSPAN III, 1588 stamps equal to the
        # capture's nanoseconds (the capture time is the switch's)
        bad = [i for i, (ts, fr) in enumerate(frames)
               if erspan3_stamp(fr) != (2, ts % 10**9)]
        if not frames or bad:
            fail("erspan %s: %d of %d frames are not ERSPAN III copies "
                 "stamped with their capture time" % (name, len(bad),
                                                      len(frames)))
            continue
        for attempt in range(3):
            if erspan_once(tmp, s, name, frames, []) != "again":
                break
        else:
            fail("erspan %s: could not send within 450 ms of the stamps"
                 % name)


# ------------------------------------------------------------------ poll

HOOK = """#!/bin/sh
echo "$RTEL_SLOT|$RTEL_SLOT_START|$RTEL_SLOT_END|$RTEL_START|$RTEL_STOP|\
$RTEL_START_NAMES|$RTEL_STOP_NAMES|$(date +%s%N)" >> "$RTEL_TEST_HOOK_OUT"
exit "${RTEL_TEST_HOOK_EXIT:-0}"
"""


def hook_calls(path):
    """The calls the hook recorded: dicts of slot, start, end, start/stop
    ids and names, and the wall time of the call."""
    out = []
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for ln in f.read().splitlines():
            v = ln.split("|")
            out.append({"slot": int(v[0]), "start": int(v[1]),
                        "end": int(v[2]),
                        "started": [int(x) for x in v[3].split()],
                        "stopped": [int(x) for x in v[4].split()],
                        "started_names": v[5].split(),
                        "stopped_names": v[6].split(), "wall": int(v[7])})
    return out


def stats_of(lines):
    return [json.loads(ln) for ln in lines if ln.strip() and
            json.loads(ln)["type"] == "stats"]


def run_poll(tmp):
    hook = os.path.join(tmp, "hook.sh")
    with open(hook, "w") as f:
        f.write(HOOK)
    os.chmod(hook, 0o755)
    cases = [("nvme-two-obs", "1/200us",
              ("--compute-side", "h0", "--storage-side", "t0")),
             ("mixed", "2/400us", ()),
             ("mixed", "1/300us", ())]
    for scenario, poll, extra in cases:
        pcaps = simulate(tmp, scenario)
        names = [os.path.basename(p)[:-5] for p in pcaps]
        r = subprocess.run([ANALYZE, "--format", "json", "--stats", "--poll",
                            poll] + RECS + list(extra) + pcaps, check=True,
                           stdout=subprocess.PIPE, text=True)
        want_all = r.stdout.splitlines()
        want = [ln for ln in want_all if json.loads(ln)["type"] != "stats"]
        ast = stats_of(want_all)[0]
        slots = [json.loads(ln) for ln in want
                 if json.loads(ln)["type"] == "slot"]
        if len(slots) < 3 or not ast["unscheduled"]:
            fail("poll %s %s: rtel-analyze: %d slots, %d unscheduled" % (
                scenario, poll, len(slots), ast["unscheduled"]))
        for j in (1, 2, 3):
            label = "poll %s %s -j %d" % (scenario, poll, j)
            out = os.path.join(tmp, "poll.json")
            calls = os.path.join(tmp, "hook.out")
            for f in (out, calls):
                if os.path.exists(f):
                    os.unlink(f)
            env = dict(os.environ, RTEL_TEST_HOOK_OUT=calls)
            r = subprocess.run([COLLECT, "-j", str(j), "--slot", "9216",
                                "--poll", poll, "--on-slot", hook, "--stats",
                                "--json", out] + RECS + list(extra) +
                               sum((["-r", p] for p in pcaps), []), env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
            if r.returncode != 0:
                fail("%s: exit %d: %s" % (label, r.returncode, r.stderr))
                continue
            with open(out) as f:
                got_all = f.read().splitlines()
            got = [ln for ln in got_all if json.loads(ln)["type"] != "stats"]
            ok = compare("%s (records and slots)" % label, want, got)
            # measured and unscheduled packets, slots: every worker's
            # context has every slot
            gst = stats_of(got_all)
            tot = {k: sum(g[k] for g in gst) for k in ("pkts", "unscheduled",
                                                        "roce")}
            if len(gst) != j or tot["pkts"] != ast["pkts"] or \
                    tot["unscheduled"] != ast["unscheduled"] or \
                    tot["roce"] != ast["roce"] or \
                    any(g["slots"] != ast["slots"] for g in gst):
                ok = fail("%s: stats %s, slots %s; rtel-analyze: pkts %d, "
                          "unscheduled %d, roce %d, slots %d" % (
                              label, tot, [g["slots"] for g in gst],
                              ast["pkts"], ast["unscheduled"], ast["roce"],
                              ast["slots"]))
            # the hook: once per slot boundary, in order, with the ports
            hc = hook_calls(calls)
            exp = [{"slot": s["slot"], "start": s["start_ns"],
                    "end": s["end_ns"],
                    "started": [names.index(n) for n in s["started"]],
                    "stopped": [names.index(n) for n in s["stopped"]],
                    "started_names": s["started"],
                    "stopped_names": s["stopped"]} for s in slots]
            if [{k: c[k] for k in exp[0]} for c in hc] != exp:
                ok = fail("%s: %d hook calls, %d slots; first calls %s, "
                          "expected %s" % (label, len(hc), len(exp), hc[:2],
                                           exp[:2]))
            said = "slots %d, hook calls %d, 0 failed" % (len(exp), len(exp))
            if said not in r.stderr:
                ok = fail("%s: summary without '%s': %s" % (label, said,
                                                          r.stderr))
            if ok:
                print("ok: %s: %d records, %d slots, %d of %d packets "
                      "unscheduled, %d hook calls as rtel-analyze --poll" %
                      (label, len(want), len(exp), tot["unscheduled"],
                       tot["pkts"], len(hc)))
    # a hook that fails (exit 1, or no such program): counted, no stop
    pcaps = simulate(tmp, "nvme-two-obs")
    for what, cmd, env_extra in (("exit 1", hook, {"RTEL_TEST_HOOK_EXIT":
                                                   "1"}),
                                 ("missing", os.path.join(tmp, "nohook"),
                                  {})):
        env = dict(os.environ, RTEL_TEST_HOOK_OUT=os.path.join(tmp, "h2"),
                   **env_extra)
        r = subprocess.run([COLLECT, "-j", "2", "--poll", "1/200us",
                            "--on-slot", cmd, "--json", os.devnull] +
                           sum((["-r", p] for p in pcaps), []), env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
        line = [ln for ln in r.stderr.splitlines() if ": slots " in ln]
        n = int(line[0].split("slots ")[1].split(",")[0]) if line else 0
        if r.returncode != 0 or not n or \
                "hook calls %d, %d failed" % (n, n) not in r.stderr or \
                "--on-slot" not in r.stderr:
            fail("poll: a hook that fails (%s): exit %d: %s" % (
                what, r.returncode, r.stderr))
        else:
            print("ok: poll: a hook that fails (%s): %d failures counted, "
                  "exit 0" % (what, n))
    # a hook that hangs (and has started a child that hangs too): ended
    # after --on-slot-timeout, with its child (its process group),
    # counted as timed out and failed; the run goes on and ends
    hang = os.path.join(tmp, "hang.sh")
    pidf = os.path.join(tmp, "hang.pids")
    with open(hang, "w") as f:
        f.write("#!/bin/sh\nsleep 30 &\necho $! >> %s\nsleep 30\n" % pidf)
    os.chmod(hang, 0o755)
    t0 = time.monotonic()
    r = subprocess.run([COLLECT, "-j", "1", "--poll", "1/200us", "--on-slot",
                        hang, "--on-slot-timeout", "150ms", "--json",
                        os.devnull, "-r", pcaps[0]],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=600)
    took = time.monotonic() - t0
    line = [ln for ln in r.stderr.splitlines() if ": slots " in ln]
    n = int(line[0].split("hook calls ")[1].split(",")[0]) if line else 0
    with open(pidf) as f:
        kids = [int(x) for x in f.read().split()]
    alive = [k for k in kids if os.path.exists("/proc/%d" % k) and
             "Z" not in open("/proc/%d/stat" % k).read().split()[2]]
    # each run ends 150 ms after it began (SIGTERM), not after 30 s
    if r.returncode != 0 or n < 2 or ", %d failed, " % n not in r.stderr \
            or " %d timed out" % n not in r.stderr or alive or \
            took > n * 0.5 + 10:
        fail("poll: a hook that hangs: exit %d, %d calls in %.1f s, "
             "children alive %s: %s" % (r.returncode, n, took, alive,
                                       r.stderr))
    else:
        print("ok: poll: a hook that hangs: %d runs ended after 150 ms "
              "(their children too), counted as timed out; %.1f s" %
              (n, took))
    # live: two inputs on lo (no traffic needed), 100 ms slots on the wall
    # clock: the hook runs at each boundary, within 50 ms of its start
    calls = os.path.join(tmp, "live-hook.out")
    env = dict(os.environ, RTEL_TEST_HOOK_OUT=calls)
    t0 = time.time_ns()
    p = subprocess.Popen([COLLECT, "-i", "a=lo", "-i", "b=lo", "-j", "2",
                          "--filter", "udp port 9", "--poll", "1/100ms",
                          "--on-slot", hook, "--json", os.devnull], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    line = p.stderr.readline()
    if "started" not in line:
        p.kill()
        _o, err = p.communicate()
        if "ermission" in line + err or "permitted" in line + err:
            print("poll live: cannot capture on lo: skipped: %s" % err)
            return
        fail("poll live: no start line: %s%s" % (line, err))
        return
    time.sleep(1.05)
    p.send_signal(signal.SIGTERM)
    _o, err = p.communicate(timeout=30)
    hc = hook_calls(calls)
    said = [ln for ln in err.splitlines() if ": slots " in ln]
    late = [c["wall"] - c["start"] for c in hc]
    seq = [c["slot"] for c in hc]
    alt = all(c["started_names"] == ([] if c["slot"] == 0 else
                                     [["a", "b"][c["slot"] % 2]]) and
              c["stopped_names"] == [["b", "a"][c["slot"] % 2]]
              for c in hc)
    steps = {b["start"] - a["start"] for a, b in zip(hc, hc[1:])}
    if p.returncode != 0 or len(hc) < 8 or seq != list(range(len(hc))) or \
            not alt or steps != {100000000} or \
            abs(hc[0]["start"] - t0) > 1000000000 or \
            max(late) > 50000000 or min(late) < -5000000 or not said or \
            "hook calls %d, 0 failed" % len(hc) not in said[0]:
        fail("poll live: exit %d, calls %s, delays %s, %s" % (
            p.returncode, [(c["slot"], c["started_names"],
                            c["stopped_names"]) for c in hc], late, said))
    else:
        print("ok: poll live: %d slots of 100 ms on the wall clock, the hook "
              "%.1f-%.1f ms after each boundary, ports alternating" % (
                  len(hc), min(late) / 1e6, max(late) / 1e6))


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
        (["--poll", "0/10ms", "-r", pcap, "--json", "-"], "--poll"),
        (["--poll", "1/10h", "-r", pcap, "--json", "-"], "--poll"),
        (["--poll", "1", "-r", pcap, "--json", "-"], "--poll"),
        (["--on-slot", "/bin/true", "-r", pcap, "--json", "-"], "--on-slot"),
        (["--poll", "1/10ms", "--on-slot", "", "-r", pcap, "--json", "-"],
         "--on-slot"),
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
    if len(sys.argv) != 2 or sys.argv[1] not in ("files", "live", "erspan",
                                                 "poll", "rotate", "usage"):
        print(__doc__)
        return 2
    need_programs()
    with tempfile.TemporaryDirectory(prefix="rtel-collect.") as tmp:
        {"files": run_files, "live": run_live_all, "erspan": run_erspan,
         "poll": run_poll, "rotate": run_rotate,
         "usage": run_usage}[sys.argv[1]](tmp)
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
