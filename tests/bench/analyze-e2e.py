#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""rtel-analyze end to end against bare capture loops: a benchmark, not a
test (make bench-analyze).

    analyze-e2e.py --build DIR [--qps N] [--runs N] [--max-flows N]
                   [--pcap FILE]

Makes the capture of tests/bench/collect-scale.py with rtel-sim
(rdma-flood, --qps QPs, 128-byte mirror copies; the spine-port point l0:
about 1M packets with the default 320000 QPs), or takes --pcap FILE, reads
it once so that it is in the page cache, and then times, --runs times
each and interleaved run by run, as separate processes:

  pcap          bench_pcaploop FILE: pcap_open_offline() + pcap_next_ex()
                until the end, nothing else (the bare libpcap loop)
  capfile       bench_pcaploop -c FILE: the same with examples/capfile.c,
                the reader rtel-analyze uses
  analyze text  rtel-analyze --flows --max-flows N FILE > /dev/null
  analyze json  rtel-analyze --flows --format json ... > /dev/null
  json > file   the same into a regular file (up to c717e62 rtel-analyze
                line-buffered any output that was not a regular file,
                /dev/null included: a write(2) per record; since abb7c1e
                only pipes, sockets and terminals)

and each of them again on a file of the capture's first packet alone: its
setup (for rtel-analyze: making the context, its tables sized by
--max-flows; for the bare loops: starting a process; where the library
touches a table's pages only as entries are taken, as since a1416f9,
those page faults fall in the packet phase instead). Prints per program
the minimum and the spread (max - min) of the process wall time over the
runs, the user and system CPU time of the fastest run, the packets per
second and ns per packet, of the whole process and of the
packet phase (whole - setup, minimum of each), then the speed of
rtel-analyze as a fraction of each bare loop's against the aim of issue
16 (rtel-analyze >= 2/3 of the speed of the bare libpcap loop).

--max-flows defaults to 2 x --qps, as collect-scale.py does (no flow is
evicted, and the figures are those of its floor line); 0 leaves
rtel-analyze's default (one flow per 32 bytes of the file, at most
1048576), which is then passed explicitly to the one-packet run too.
"""
import argparse
import os
import re
import struct
import subprocess
import sys
import tempfile
import time


def program(build, rel):
    """The program at build/rel, and the environment to run it in: a
    libtool wrapper script is bypassed for the binary in .libs (the
    wrapper is a shell script that would be timed too), with the
    uninstalled library on LD_LIBRARY_PATH."""
    path = os.path.join(build, rel)
    env = dict(os.environ)
    with open(path, "rb") as f:
        wrapper = f.read(2) == b"#!"
    if wrapper:
        d, name = os.path.split(path)
        for cand in (os.path.join(d, ".libs", name),
                     os.path.join(d, ".libs", "lt-" + name)):
            if os.path.exists(cand):
                path = cand
                break
        else:
            sys.exit("%s: a libtool wrapper without its binary in .libs"
                     % path)
        lib = os.path.join(build, "lib", ".libs")
        env["LD_LIBRARY_PATH"] = lib + (
            ":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH")
            else "")
    return path, env


def timed(cmd, env, out, errf, stdin=None):
    """Runs cmd with stdout to the path |out| (None: read it) and stdin from
    the path |stdin| (None: this process's); returns (wall s, user CPU s,
    system CPU s, max RSS KiB, stdout or "")."""
    with open(out if out else os.devnull, "wb") as o, \
            open(errf, "w+b") as e, \
            open(stdin if stdin else os.devnull, "rb") as i:
        stdout = subprocess.PIPE if out is None else o
        t = time.monotonic()
        p = subprocess.Popen(cmd, stdin=i if stdin else None, stdout=stdout,
                             stderr=e, env=env)
        text = p.stdout.read() if out is None else b""
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - t
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.stdout:
            p.stdout.close()
        if p.returncode != 0:
            e.seek(0)
            sys.exit("%s: exit %d: %s" % (" ".join(cmd), p.returncode,
                                          e.read().decode(errors="replace")))
    return wall, ru.ru_utime, ru.ru_stime, ru.ru_maxrss, text.decode()


def first_packet(pcap, one):
    with open(pcap, "rb") as f, open(one, "wb") as g:
        head = f.read(24)
        if head[:4] not in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
            sys.exit("%s: not a little-endian pcap file" % pcap)
        rec = f.read(16)
        g.write(head + rec + f.read(struct.unpack("<I", rec[8:12])[0]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--qps", type=int, default=320000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--max-flows", type=int, default=None)
    ap.add_argument("--pcap", help="a pcap file instead of rtel-sim's")
    a = ap.parse_args()
    sim, sim_env = program(a.build, "examples/rtel-sim/rtel-sim")
    ana, ana_env = program(a.build, "examples/rtel-analyze")
    loop, loop_env = program(a.build, "tests/bench/bench_pcaploop")
    with tempfile.TemporaryDirectory(prefix="rtel-e2e.") as tmp:
        if a.pcap:
            pcap = a.pcap
            what = "given"
        else:
            subprocess.run([sim, "--scenario", "rdma-flood", "--seed", "7",
                            "--out", tmp, "--qps", str(a.qps), "--snaplen",
                            "128", "--trunc", "mirror"], check=True,
                           stdout=subprocess.DEVNULL, env=sim_env)
            pcap = os.path.join(tmp, "l0.pcap")
            what = "rdma-flood --qps %d, 128-byte mirror copies" % a.qps
        size = os.path.getsize(pcap)
        one = os.path.join(tmp, "one.pcap")
        first_packet(pcap, one)
        if a.max_flows is None:
            flows = 2 * a.qps
        elif a.max_flows == 0:  # rtel-analyze's default for this file
            flows = min(max(size // 32, 4096), 1048576)
        else:
            flows = a.max_flows
        # into the page cache
        with open(pcap, "rb") as f:
            while f.read(1 << 20):
                pass
        errf = os.path.join(tmp, "stderr")
        outf = os.path.join(tmp, "out.json")
        ana_args = ["--flows", "--max-flows", str(flows)]
        progs = [
            ("pcap", [loop], loop_env, None),
            ("capfile", [loop, "-c"], loop_env, None),
            ("analyze text", [ana] + ana_args, ana_env, os.devnull),
            ("analyze json", [ana] + ana_args + ["--format", "json"],
             ana_env, os.devnull),
            ("json > file", [ana] + ana_args + ["--format", "json"],
             ana_env, outf),
        ]
        full = {n: [] for n, _, _, _ in progs}
        setup = {n: [] for n, _, _, _ in progs}
        pkts = None
        for _ in range(a.runs):
            for name, cmd, env, out in progs:
                r = timed(cmd + [pcap], env, out, errf)
                full[name].append(r)
                if out is None:
                    m = re.search(r": (\d+) packets", r[4])
                    if m is None:
                        sys.exit("bench_pcaploop: no count in: " + r[4])
                    if pkts is not None and int(m.group(1)) != pkts:
                        sys.exit("the two readers disagree on the packets")
                    pkts = int(m.group(1))
                setup[name].append(timed(cmd + [one], env, out if out in (
                    None, os.devnull) else out + ".one", errf))
        records = sum(1 for _ in open(outf, "rb"))
        print("capture: %s, %.1f MB, %d packets (%s); rtel-analyze --flows "
              "--max-flows %d: %d flow records (JSON lines); %d runs each, "
              "interleaved, the file in the page cache"
              % (os.path.basename(pcap), size / 1e6, pkts, what, flows,
                 records, a.runs))
        print("%-13s %9s %7s %6s %6s %7s %7s | %7s %7s %7s  (packet phase "
              "= process - first packet alone)"
              % ("", "process", "spread", "user", "sys", "Mpps", "ns/pkt",
                 "setup", "Mpps", "ns/pkt"))
        phase = {}
        proc = {}
        for name, _, _, _ in progs:
            walls = [r[0] for r in full[name]]
            best = min(full[name], key=lambda r: r[0])
            s = min(r[0] for r in setup[name])
            proc[name] = best[0]
            phase[name] = best[0] - s
            print("%-13s %8.3fs %6.3fs %5.2fs %5.2fs %7.2f %7.0f | %6.3fs "
                  "%7.2f %7.0f  (max RSS %.0f MB)"
                  % (name, best[0], max(walls) - best[0], best[1], best[2],
                     pkts / best[0] / 1e6, best[0] * 1e9 / pkts, s,
                     pkts / phase[name] / 1e6, phase[name] * 1e9 / pkts,
                     best[3] / 1024))
        print("process wall per run (s): " + "; ".join(
            "%s %s" % (name, " ".join("%.3f" % r[0] for r in full[name]))
            for name, _, _, _ in progs))
        for name in ("analyze text", "analyze json", "json > file"):
            for base in ("pcap", "capfile"):
                print("%-13s / %-7s speed: %.3f of the process's, %.3f of "
                      "the packet phase's"
                      % (name, base, proc[base] / proc[name],
                         phase[base] / phase[name]))
        r = phase["pcap"] / phase["analyze text"]
        print("aim (issue 16): rtel-analyze >= 2/3 of the bare libpcap "
              "loop's speed: %.3f (packet phase, text to /dev/null): %s; "
              "it would need <= %.0f ns/pkt" % (
                  r, "met" if r >= 2 / 3 else "not met",
                  1.5 * phase["pcap"] * 1e9 / pkts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
