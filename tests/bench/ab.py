#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Two builds of one program, run alternately: a benchmark tool, not a test.

    ab.py --base BUILD --new BUILD [--runs N] [--stdin FILE]
          [--no-output-check] -- PROGRAM [ARG...]

PROGRAM is a path inside each build tree (examples/rtel-analyze,
tests/bench/bench_flow, ...); a libtool wrapper is bypassed for its binary
in .libs, with that build's library on LD_LIBRARY_PATH (as
analyze-e2e.py does). The two are run --runs times each, in pairs whose
order alternates (base first, then new first, ...), so that a machine
whose speed drifts, as the shared VMs of tests/bench/README.md do within
minutes, weighs on both alike. Per build it prints the minimum and the
median of the wall time and of the CPU time (user + system, from the
kernel's accounting of the child: analyze-e2e.py's timed()) and in how
many pairs the new build was the faster; for the benchmark programs
(lines "NAME  N pkt/s  X ns/pkt" and "ratio ..."), the same for every
ns/pkt figure and every ratio they print.

Unless --no-output-check (or a benchmark program, whose output is timings),
the standard output of the first run of each build must be identical: a
change made for speed must not move a figure. A difference is reported
and the exit status is 1; a program that fails (exit status not 0) stops
the comparison with status 2.

Example (tests/bench/README.md, session of 2026-12-07, evening):

    git worktree add /tmp/base-src BASE && ... build it in /tmp/base
    python3 tests/bench/ab.py --base /tmp/base --new build --runs 10 -- \\
        examples/rtel-analyze --flows --max-flows 640000 l0.pcap
"""
import argparse
import hashlib
import importlib.util
import os
import re
import statistics
import sys
import tempfile


def load_e2e():
    """analyze-e2e.py's program() (a file name with a dash: no import)."""
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location(
        "analyze_e2e", os.path.join(here, "analyze-e2e.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


RATE = re.compile(r"^(\S.*?)\s+\d+ pkt/s\s+([0-9.]+) ns/pkt")
PART = re.compile(r"^\s*(.*?)\s*([0-9]+(?:\.[0-9]+)?)\s*(\([^()]*\))?\s*$")


def ratio_parts(text):
    """(name, value) of each figure of a "ratio" line: its parts separated
    by commas and semicolons outside parentheses; a part without a name
    of its own ("3.69 (batched)") takes the previous one's with its
    parenthesis."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if ch in ",;" and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    out, last = [], ""
    for part in parts:
        m = PART.match(part)
        if not m:
            continue
        name = m.group(1) or last
        last = name
        label = name + (" " + m.group(3) if m.group(3) and
                        len(m.group(3)) < 30 else "")
        out.append((label, float(m.group(2))))
    return out


def figures(text):
    """The ns/pkt figures and ratios a benchmark program printed, by name
    (a name met again, as bench_flow's lines per flow count, gets the
    count of the figures before it: "flow", "flow#2", ...)."""
    out, seen, section = {}, {}, ""
    for line in text.splitlines():
        m = RATE.match(line)
        if line[:4] in ("F = ", "Q = "):
            section = line.split(":")[0].strip() + " "
            continue
        if m:
            key = section + m.group(1).strip() + " ns/pkt"
        elif line.startswith("ratio"):
            for name, val in ratio_parts(line[5:]):
                key = section + "ratio " + name
                n = seen.get(key, 0) + 1
                seen[key] = n
                out[key if n == 1 else "%s#%d" % (key, n)] = float(val)
            continue
        else:
            continue
        n = seen.get(key, 0) + 1
        seen[key] = n
        out[key if n == 1 else "%s#%d" % (key, n)] = float(m.group(2))
    return out


def run_once(e2e, path, env, args, stdin):
    """(wall s, CPU s, stdout bytes) of one run, by analyze-e2e.py's
    timed(); exits 2 if it fails. Standard output goes to a regular file,
    read back after the run: into a pipe the example programs would flush
    every record (they line-buffer pipes), which is not what they cost."""
    with tempfile.TemporaryDirectory() as d:
        out, err = os.path.join(d, "out"), os.path.join(d, "err")
        try:
            wall, user, system, _, _ = e2e.timed([path] + args, env, out,
                                                 err, stdin or os.devnull)
        except SystemExit as ex:
            print("ab.py: %s" % ex, file=sys.stderr)
            sys.exit(2)
        with open(out, "rb") as f:
            return wall, user + system, f.read()


def main():
    ap = argparse.ArgumentParser(
        description="Two builds of one program, run alternately.")
    ap.add_argument("--base", required=True, help="the base build tree")
    ap.add_argument("--new", required=True, help="the changed build tree")
    ap.add_argument("--runs", type=int, default=10,
                    help="runs of each build (default 10)")
    ap.add_argument("--stdin", help="a file for the program's standard "
                    "input (default /dev/null)")
    ap.add_argument("--no-output-check", action="store_true",
                    help="do not require identical standard output")
    ap.add_argument("cmd", nargs=argparse.REMAINDER,
                    help="-- PROGRAM [ARG...]")
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    if not cmd or a.runs < 1:
        ap.error("a PROGRAM (after --) and --runs >= 1 are needed")
    e2e = load_e2e()
    builds = {"base": a.base, "new": a.new}
    progs = {}
    for name, build in builds.items():
        path = os.path.join(build, cmd[0])
        if not os.path.exists(path):
            sys.exit("ab.py: no %s in %s" % (cmd[0], build))
        progs[name] = e2e.program(build, cmd[0])
    bench = os.path.basename(cmd[0]).startswith("bench_")
    walls = {"base": [], "new": []}
    cpus = {"base": [], "new": []}
    figs = {"base": [], "new": []}
    outs = {}
    for i in range(a.runs):
        order = ("base", "new") if i % 2 == 0 else ("new", "base")
        for name in order:
            path, env = progs[name]
            wall, cpu, out = run_once(e2e, path, env, cmd[1:], a.stdin)
            walls[name].append(wall)
            cpus[name].append(cpu)
            if bench:
                figs[name].append(figures(out.decode(errors="replace")))
            outs.setdefault(name, out)

    def row(label, b, n, unit, fmt):
        wins = sum(1 for x, y in zip(b, n) if y < x)
        mb, mn = statistics.median(b), statistics.median(n)
        ch = (mn - mb) / mb * 100 if mb else 0.0
        print(("%-52s base min " + fmt + " med " + fmt + "  new min " + fmt +
               " med " + fmt + " %s  median %+.1f%%  new lower in %d of %d")
              % (label[:52], min(b), mb, min(n), mn, unit, ch, wins, len(b)))

    print("ab.py: %s, %d runs of each build, alternating" %
          (" ".join(cmd), a.runs))
    row("process wall time", walls["base"], walls["new"], "s", "%.3f")
    row("process CPU time (user + system)", cpus["base"], cpus["new"], "s",
        "%.3f")
    if bench:
        keys = [k for k in figs["base"][0] if all(
            k in f for f in figs["base"] + figs["new"])]
        for k in keys:
            row(k, [f[k] for f in figs["base"]], [f[k] for f in figs["new"]],
                "" if "ratio" in k else "ns/pkt", "%.2f")
    status = 0
    if not bench and not a.no_output_check:
        hb = hashlib.md5(outs["base"]).hexdigest()
        hn = hashlib.md5(outs["new"]).hexdigest()
        if hb == hn:
            print("output: identical (md5 %s, %d bytes)" %
                  (hb, len(outs["new"])))
        else:
            print("output: DIFFERS (base md5 %s, %d bytes; new md5 %s, %d "
                  "bytes)" % (hb, len(outs["base"]), hn, len(outs["new"])))
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
