#!/usr/bin/env python3
"""IPFIX soak (a benchmark, not part of make check): 10^6 records from the
library's encoder to nfcapd over UDP on 127.0.0.1, at full rate.

The records come from tests/ipfix/soak_send.c, built here with cc against
a build tree's library (--build, default $top_builddir or /tmp/b): it
feeds synthetic flow records (or flow, message and I/O records in turn:
--kinds mix) to rtel_ipfix and sends each message as it fills (--mtu 1500:
1452-byte messages), as fast as send() goes, or paced (--rate).

Each configuration (--configs; default: nfcapd's socket buffer as the
system gives it, then nfcapd -B 8388608) runs one nfcapd, sends the
records, waits until nfcapd's socket queue is empty, stops nfcapd and
reads back with nfdump -I (records stored, sequence failures) and -E
(messages nfcapd received). Reported: records sent and stored, messages
sent and received, time and rates, and where the losses went: the drops
of nfcapd's socket (/proc/net/udp, its own counter), the system's UDP
RcvbufErrors (/proc/net/snmp; other programs count there too) and the
socket buffer nfcapd got.

usage: soak.py [--records N] [--mtu N] [--kinds flow|mix] [--rate R]
               [--step NS] [--configs default,B8388608] [--build DIR]
Exit status: 0 after a run (losses are figures, not failures), 77 if a
tool is missing, 1 on an error.
"""

import argparse
import os
import re
import signal
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peerlib as pl  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SRC_TOP = os.path.dirname(os.path.dirname(HERE))


def snmp_udp():
    """{counter: value} of the Udp lines of /proc/net/snmp."""
    with open("/proc/net/snmp") as f:
        rows = [line.split() for line in f if line.startswith("Udp:")]
    return {k: int(v) for k, v in zip(rows[0][1:], rows[1][1:])}


def socket_rcvbuf(port):
    """The receive buffer (bytes, "rb" of ss -m) of the UDP socket on
    127.0.0.1:|port|, or "?"."""
    try:
        r = pl.run(["ss", "-u", "-a", "-n", "-m", "sport = :%d" % port],
                   check=False)
    except (OSError, pl.subprocess.SubprocessError):
        return "?"
    m = re.search(r"\brb(\d+)", r.stdout)
    return m.group(1) if m else "?"


def build_sender(build, work):
    cc = os.environ.get("CC", "cc")
    lib = os.path.join(build, "lib", ".libs")
    out = os.path.join(work, "soak_send")
    cmd = [cc, "-O2", "-std=c11", "-I", os.path.join(SRC_TOP, "include"),
           "-I", os.path.join(build, "include"),
           os.path.join(HERE, "soak_send.c"),
           os.path.join(lib, "librocetel.so"), "-Wl,-rpath," + lib, "-o", out]
    pl.run(cmd)
    return out, " ".join(cmd)


def one_run(cl, args, nfcapd, nfdump, sender, bufsize, tag):
    work = cl.tmpdir("soak-" + tag)
    proc, port, logp = pl.start_nfcapd(cl, nfcapd, work, bufsize)
    got_buf = socket_rcvbuf(port)
    before = snmp_udp()
    drops0 = pl.udp_socket_state(port)[1]
    cmd = [sender, str(port), str(args.records), "--mtu", str(args.mtu),
           "--kinds", args.kinds]
    if args.rate:
        cmd += ["--rate", str(args.rate)]
    if args.step:
        cmd += ["--step", str(args.step)]
    t0 = time.time()
    r = pl.run(cmd, timeout=600)
    t_send = time.time() - t0
    m = re.search(r"sent (\d+) records in (\d+) messages \((\d+) bytes\) in "
                  r"([\d.]+) s; send errors (\d+)", r.stdout)
    if not m:
        raise RuntimeError("soak_send: %r" % r.stdout)
    n_sent, m_sent, b_sent = int(m.group(1)), int(m.group(2)), int(m.group(3))
    secs, send_err = float(m.group(4)), int(m.group(5))
    pl.wait_drained(port, timeout=60)
    t_drain = time.time() - t0
    st = pl.udp_socket_state(port)
    drops = st[1] - drops0 if st else None
    after = snmp_udp()
    pl.stop_process(proc, signal.SIGTERM, 60)
    flows = os.path.join(work, "flows")
    info = pl.run([nfdump, "-R", flows, "-I"]).stdout
    stored = int(re.search(r"^Flows:\s*(\d+)", info, re.M).group(1))
    seqf = int(re.search(r"^Sequence failures:\s*(\d+)", info,
                         re.M).group(1))
    m_recv = 0
    for f in sorted(os.listdir(flows)):
        if f.startswith("nfcapd.") and not f.startswith("nfcapd.current"):
            for _d, v in pl.parse_exporters(pl.run(
                    [nfdump, "-E", os.path.join(flows, f)]).stdout).items():
                m_recv += v[1]
    res = dict(tag=tag, port=port, bufsize=bufsize,
               rcvbuf=got_buf, sent=n_sent,
               msgs=m_sent, bytes=b_sent, secs=secs, send_errors=send_err,
               stored=stored, msgs_recv=m_recv, seqf=seqf, drops=drops,
               t_drain=t_drain, t_send=t_send,
               rcvbuf_errors=after["RcvbufErrors"] - before["RcvbufErrors"],
               in_errors=after["InErrors"] - before["InErrors"],
               cmd=" ".join(cmd))
    report(res)
    return res


def report(x):
    lost_r = x["sent"] - x["stored"]
    lost_m = x["msgs"] - x["msgs_recv"]
    pl.log("== %s: nfcapd -B %s (socket buffer %s bytes), port %d"
           % (x["tag"], x["bufsize"] or "(none)", x["rcvbuf"], x["port"]))
    pl.log("   sender:   %s" % x["cmd"])
    pl.log("   sent:     %d records in %d messages (%d bytes) in %.3f s: "
           "%.0f records/s, %.0f messages/s, %.0f Mbit/s; send() retries %d"
           % (x["sent"], x["msgs"], x["bytes"], x["secs"],
              x["sent"] / x["secs"], x["msgs"] / x["secs"],
              x["bytes"] * 8 / x["secs"] / 1e6, x["send_errors"]))
    pl.log("   nfcapd:   %d records stored, %d messages received; its queue "
           "empty %.2f s after the start (less a 0.3 s quiet check); "
           "sequence failures %d"
           % (x["stored"], x["msgs_recv"], x["t_drain"], x["seqf"]))
    pl.log("   lost:     %d records (%.2f %%), %d messages; nfcapd socket "
           "drops %s; system UDP RcvbufErrors +%d, InErrors +%d"
           % (lost_r, 100.0 * lost_r / max(x["sent"], 1), lost_m,
              x["drops"], x["rcvbuf_errors"], x["in_errors"]))
    if lost_m and x["drops"] is not None:
        why = ("all of them dropped by nfcapd's full socket receive buffer"
               if x["drops"] == lost_m else
               "%d dropped by nfcapd's full socket buffer, %d elsewhere"
               % (x["drops"], lost_m - x["drops"]))
        pl.log("   why:      %s (nfcapd reads and stores slower than the "
               "sender sends)" % why)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.
                                RawDescriptionHelpFormatter)
    p.add_argument("--records", type=int, default=1000000)
    p.add_argument("--mtu", type=int, default=1500)
    p.add_argument("--kinds", choices=["flow", "mix"], default="flow")
    p.add_argument("--rate", type=float, default=0,
                   help="records/s (default: full rate)")
    p.add_argument("--step", type=int, default=0,
                   help="encoder clock ns per record (default: wall clock);"
                   " over 60 s of records the templates are sent again")
    p.add_argument("--configs", default="default,B8388608",
                   help="comma-separated: default (no -B) or BNNN (-B NNN)")
    p.add_argument("--build", default=os.environ.get("top_builddir",
                                                     "/tmp/b"))
    a = p.parse_args()
    nfcapd = pl.program("NFCAPD", "nfcapd")
    nfdump = pl.program("NFDUMP", "nfdump")
    if not nfcapd or not nfdump:
        pl.skip("nfcapd/nfdump not found")
    if not os.path.exists(os.path.join(a.build, "lib", ".libs",
                                       "librocetel.so")):
        pl.skip("no %s/lib/.libs/librocetel.so (--build)" % a.build)
    pl.loopback_udp_or_skip()
    cl = pl.Cleanup()
    try:
        sender, ccmd = build_sender(a.build, cl.tmpdir("soak-build"))
        pl.log("built: %s" % ccmd)
        pl.log("rmem_default %s, rmem_max %s" % (
            open("/proc/sys/net/core/rmem_default").read().strip(),
            open("/proc/sys/net/core/rmem_max").read().strip()))
        results = []
        for c in a.configs.split(","):
            buf = None if c == "default" else int(c.lstrip("B"))
            results.append(one_run(cl, a, nfcapd, nfdump, sender, buf, c))
        pl.log("== summary")
        pl.log("   %-10s %9s %9s %8s %8s %8s %10s %9s %8s" % (
            "config", "sent", "stored", "lost%", "msgs", "msgsRecv",
            "records/s", "msgs/s", "drops"))
        for x in results:
            pl.log("   %-10s %9d %9d %8.2f %8d %8d %10.0f %9.0f %8s" % (
                x["tag"], x["sent"], x["stored"],
                100.0 * (x["sent"] - x["stored"]) / max(x["sent"], 1),
                x["msgs"], x["msgs_recv"], x["sent"] / x["secs"],
                x["msgs"] / x["secs"], x["drops"]))
    finally:
        cl.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
