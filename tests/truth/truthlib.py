"""Shared helpers of the ground-truth tests (tests/truth/*.py).

Shared by several test authors: add functions, never change existing ones.
"""


# ---------------------------------------------------------------- helpers
# (added for tests/truth/flows.py; shared: only add functions, never change)

def tl_env_path(var, *fallbacks):
    """The program named by environment variable |var| (as Makefile.am's
    AM_TESTS_ENVIRONMENT exports it), else the first existing fallback,
    else None."""
    import os
    v = os.environ.get(var)
    if v:
        return v if os.path.exists(v) else None
    top = os.environ.get("top_builddir", ".")
    for f in fallbacks:
        p = os.path.join(top, f)
        if os.path.exists(p):
            return p
    return None


def tl_tmpdir(tag):
    """A fresh temporary directory (removed by the caller, tl_rmtree)."""
    import os
    import tempfile
    return tempfile.mkdtemp(prefix="rtel-truth-%s." % tag,
                            dir=os.environ.get("TMPDIR", "/tmp"))


def tl_rmtree(path):
    import shutil
    shutil.rmtree(path, ignore_errors=True)


def tl_run_sim(sim, scenario, seed, out, extra=()):
    """Runs rtel-sim |sim| for |scenario| and |seed| into directory |out|;
    returns its summary line. Raises RuntimeError on failure."""
    import subprocess
    cmd = [sim, "--scenario", scenario, "--seed", str(seed), "--out", out]
    cmd += list(extra)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if r.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), r.returncode,
                                                r.stderr.strip()))
    return r.stdout.strip()


def tl_load_jsonl(path):
    """The JSON objects of a JSON Lines file, in order."""
    import json
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def tl_run_analyze(analyze, files, opts=(), time_v=None):
    """Runs rtel-analyze |analyze| with |opts| on |files| (["NAME=path", ...]
    or paths) and returns (records, rc, stderr, max_rss_kb). With |time_v|
    (the path of GNU time), the maximum resident set size is measured with
    `time -v`; otherwise max_rss_kb is None."""
    import os
    import subprocess
    import tempfile
    cmd = [analyze] + list(opts) + ["--"] + list(files)
    tf = None
    if time_v:
        fd, tf = tempfile.mkstemp(prefix="rtel-time.",
                                  dir=os.environ.get("TMPDIR", "/tmp"))
        os.close(fd)
        cmd = [time_v, "-v", "-o", tf] + cmd
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    rss = None
    if tf:
        try:
            with open(tf) as f:
                for line in f:
                    if "Maximum resident set size" in line:
                        rss = int(line.rsplit(":", 1)[1])
        finally:
            os.unlink(tf)
    return tl_records(r.stdout), r.returncode, r.stderr, rss


def tl_records(text):
    """The records of rtel-analyze's JSON lines |text|, read by
    tests/rtel_records.py: 64-bit members as ints, absent ones None."""
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    import rtel_records
    return rtel_records.loads_lines(text)



# ---------------------------------------------------------------- helpers
# (added for tests/truth/ios.py; shared: only add functions, never change)

def tl_nearest_rank(sorted_vals, q):
    """The exact nearest-rank quantile of rtel_latency(3): the smallest
    value with at least ceil(q * n) values at or below it. |sorted_vals|
    sorted, non-empty; |q| a decimal string ("0.99") or a Fraction, so that
    the rank is computed exactly."""
    import fractions
    n = len(sorted_vals)
    rank = -(-fractions.Fraction(q) * n // 1)
    return sorted_vals[max(1, int(rank)) - 1]


def tl_latency_problems(where, got, vals):
    """Problems of a latency object of rtel-analyze's JSON (count, min_ns,
    mean_ns, p50_ns, p90_ns, p99_ns, p999_ns, max_ns) against the exact values |vals|: count,
    min and max exact, mean the floor of the exact mean, the percentiles
    within 1/64 of the exact nearest-rank quantile (rtel_latency(3))."""
    vals = sorted(vals)
    if got["count"] != len(vals):
        return ["%s: count %d, expected %d" % (where, got["count"], len(vals))]
    probs = []
    if not vals:
        return probs
    for k, v in (("min_ns", vals[0]), ("max_ns", vals[-1]),
                 ("mean_ns", sum(vals) // len(vals))):
        if got[k] != v:
            probs.append("%s: %s %d, expected %d" % (where, k, got[k], v))
    for k, q in (("p50_ns", "0.5"), ("p90_ns", "0.9"), ("p99_ns", "0.99"),
                 ("p999_ns", "0.999")):
        x = tl_nearest_rank(vals, q)
        if abs(got[k] - x) * 64 > x:
            probs.append("%s: %s %d, exact %d (relative error %.4f > 1/64)" % (
                where, k, got[k], x, abs(got[k] - x) / float(x)))
    return probs


def tl_poll_windows(slots, names):
    """{name: [(start, end or None)]}: each file's measured windows under
    rtel-analyze --poll, from its "slot" records alone (in order). Every
    file is measured from the first slot's start until a slot record lists
    it in "stopped_names" (rtel-analyze adds the ports before it sets the
    schedule); "started_names" opens a window; one still open at the end has end
    None. Windows are half-open: a frame at a boundary belongs to the slot
    that begins there."""
    import collections
    open_at = {}
    wins = collections.defaultdict(list)
    for i, sl in enumerate(slots):
        if i == 0:
            for n in names:
                open_at[n] = sl["start_ns"]
        for n in sl["stopped_names"]:
            if n in open_at:
                st = open_at.pop(n)
                if sl["start_ns"] > st:
                    wins[n].append((st, sl["start_ns"]))
        for n in sl["started_names"]:
            open_at.setdefault(n, sl["start_ns"])
    for n, st in open_at.items():
        wins[n].append((st, None))
    return wins


def tl_window_of(wins, ts):
    """Index of the window of |wins| (tl_poll_windows) holding |ts|, or
    None when |ts| was not measured."""
    for i, (s, e) in enumerate(wins):
        if s <= ts and (e is None or ts < e):
            return i
    return None
