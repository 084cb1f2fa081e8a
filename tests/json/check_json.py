#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/json/check_json.py - the JSON records of rtel-analyze --format json,
rtel-collect --json and switch-agent --json against their schema,
docs/rtel-records.schema.json, and the rules of rtel-analyze(1), OUTPUT.

  check_json.py schema | float

schema  Runs the three programs on captures that cover every record type
        and every member: tests/gen/mkcaptures.py's synthetic captures
        (every transport header, RDMA CM, encapsulations, VLANs, RoCEv1,
        truncated copies) with --packets, and rtel-sim scenarios (RDMA
        and NVMe-oF, IPv6 and VLAN, two observation points with and
        without roles, capture started mid-stream, polling, alarms of
        both scopes) with every record option. Every line must validate
        against the schema (python3-jsonschema, Draft 2020-12, formats
        checked); every record type of the schema and every member of
        every record type (nested ones included) must occur at least once,
        so that the check cannot pass by validating nothing; no JSON
        number may be above 2^53; and the schema itself must give each
        member name one JSON type in every record type.
float   The timestamps of I/O records read by a parser that turns every
        JSON number into a double (json.loads(parse_int=float), as jq 1.6
        and JavaScript do): t_rsp_ns - t_cmd_ns must equal iol_ns exactly
        for every I/O that has the three, and t_cmd_ns and t_rsp_ns must
        be the simulator's true times of the command and the response
        (its ground truth, read exactly); with jq, when installed, the
        same through jq.

Environment: RTEL_ANALYZE, RTEL_COLLECT, RTEL_SIM, top_builddir (for
switch-agent; SWITCH_AGENT overrides), PYTHON3 (make check). Exit: 0 pass,
1 fail, 77 skip (a program, python3-jsonschema or python3-scapy missing).
"""
import collections
import json
import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
SCHEMA = os.path.join(TOP, "docs", "rtel-records.schema.json")
MKCAPTURES = os.path.join(TOP, "tests", "gen", "mkcaptures.py")

ANA = os.environ.get("RTEL_ANALYZE", "")
COLLECT = os.environ.get("RTEL_COLLECT", "")
SIM = os.environ.get("RTEL_SIM", "")
AGENT = os.environ.get("SWITCH_AGENT") or os.path.join(
    os.environ.get("top_builddir", "."), "examples", "switch-agent",
    "switch-agent")
SKIP = 77
MAX_EXACT = 2 ** 53

sys.path.insert(0, os.path.dirname(HERE))
from checklib import fail, failures, ok, run_check  # noqa: E402

def skip(msg):
    print("SKIP: " + msg)
    sys.exit(SKIP)



def run(cmd, env=None):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, env=env, timeout=600)
    if r.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), r.returncode,
                                                r.stderr.strip()[:500]))
    return r.stdout


def sim(tmp, scenario, *extra):
    out = os.path.join(tmp, scenario + "".join(extra).replace("-", "_"))
    if not os.path.isdir(out):
        run([SIM, "--scenario", scenario, "--seed", "3", "--out", out] +
            list(extra))
    return out


def pcaps(d, names=None):
    names = names or sorted(f[:-5] for f in os.listdir(d)
                            if f.endswith(".pcap"))
    return ["%s=%s" % (n, os.path.join(d, n + ".pcap")) for n in names]


# ---------------------------------------------------------------- schema

def schema_types(spec, defs):
    """The JSON types a property spec allows (a set of type names)."""
    while isinstance(spec, dict) and "$ref" in spec:
        spec = defs[spec["$ref"].rsplit("/", 1)[1]]
    if not isinstance(spec, dict):
        return set()
    if "type" in spec:
        t = spec["type"]
        return set(t if isinstance(t, list) else [t])
    vals = [spec["const"]] if "const" in spec else spec.get("enum", [])
    names = {bool: "boolean", int: "integer", str: "string", float: "number"}
    return {names[type(v)] for v in vals}


def schema_members(name, spec, defs, path, out):
    """(record type, member path) -> types, for |spec| and its objects."""
    while isinstance(spec, dict) and "$ref" in spec:
        spec = defs[spec["$ref"].rsplit("/", 1)[1]]
    for k, sub in spec.get("properties", {}).items():
        p = path + [k]
        out[(name, ".".join(p))] = schema_types(sub, defs)
        d = sub
        while isinstance(d, dict) and "$ref" in d:
            d = defs[d["$ref"].rsplit("/", 1)[1]]
        if isinstance(d, dict) and d.get("type") == "object" and \
                "properties" in d:
            schema_members(name, d, defs, p, out)


def check_schema_itself(schema):
    """Each member name has one JSON type in every record type."""
    defs = schema["$defs"]
    members = {}
    for t in schema["properties"]["type"]["enum"]:
        schema_members(t, defs[t], defs, [], members)
    by_name = collections.defaultdict(set)
    where = collections.defaultdict(list)
    for (t, path), types in members.items():
        leaf = path.rsplit(".", 1)[-1]
        if leaf == "type" and path == "type":
            continue
        by_name[leaf].add(frozenset(types))
        where[leaf].append("%s.%s %s" % (t, path, "/".join(sorted(types))))
    bad = sorted(n for n, ts in by_name.items() if len(ts) > 1)
    ok(not bad, "the schema gives each of its %d member names one JSON type "
       "in every record type%s" % (len(by_name), "".join(
           "; %s: %s" % (n, ", ".join(where[n])) for n in bad)))
    return members


def walk(v, path, seen, big):
    """Records the member paths of |v| in |seen| and numbers above 2^53 in
    |big|."""
    if isinstance(v, dict):
        for k, x in v.items():
            p = path + [k]
            seen.add(".".join(p))
            walk(x, p, seen, big)
    elif isinstance(v, list):
        for x in v:
            walk(x, path, seen, big)
    elif isinstance(v, (int, float)) and not isinstance(v, bool):
        if abs(v) > MAX_EXACT:
            big.append((".".join(path), v))


def validate(validator, label, text, seen, types):
    """Validates every line of |text|; returns the number of lines."""
    n, bad, big = 0, [], []
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        n += 1
        try:
            rec = json.loads(line)
        except ValueError as e:
            bad.append("line %d is not JSON (%s): %r" % (i, e, line[:100]))
            continue
        walk(rec, [], set(), big)  # every line, valid or not
        errs = sorted(validator.iter_errors(rec), key=lambda e: list(e.path))
        if errs:
            bad.append("line %d (%s): %s" % (
                i, rec.get("type") if isinstance(rec, dict) else "?",
                "; ".join("%s: %s" % ("/".join(str(x) for x in e.path),
                                      e.message[:160]) for e in errs[:3])))
            continue
        t = rec["type"]
        types[t] += 1
        paths = set()
        walk(rec, [], paths, [])
        seen.update((t, p) for p in paths)
    ok(n > 0 and not bad, "%s: %d lines valid against the schema%s" % (
        label, n, "".join("; " + b for b in bad[:5])))
    ok(n > 0 and not big, "%s: no JSON number above 2^53%s" % (
        label, "; %d, e.g. %s = %r" % ((len(big),) + big[0]) if big else ""))
    return n


def check_schema(tmp):
    try:
        import jsonschema
    except ImportError:
        skip("python3-jsonschema is not installed (Debian package "
             "python3-jsonschema): the records cannot be validated")
    r = subprocess.run([sys.executable, "-c",
                        "import scapy.all, scapy.contrib.roce"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if r.returncode != 0:
        skip("python3-scapy is not importable: tests/gen/mkcaptures.py "
             "cannot write the packet captures")
    with open(SCHEMA) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.FormatChecker())
    members = check_schema_itself(schema)
    # the validator rejects what it should (else every line would pass)
    probes = [
        ({"type": "flow"}, "a flow without its members"),
        ({"type": "nosuch"}, "an unknown record type"),
        ({"type": "slot", "slot": 0, "start_ns": "1", "started": [],
          "stopped": [], "started_names": [], "stopped_names": []},
         "a 64-bit member as a number"),
        ({"type": "slot", "slot": "0", "start_ns": "1", "end_ns": None,
          "started": [], "stopped": [], "started_names": [],
          "stopped_names": []}, "a null"),
        ({"type": "slot", "slot": "0", "start_ns": "1", "started": [],
          "stopped": [], "started_names": [], "stopped_names": [],
          "extra": 1}, "a member the schema does not have"),
        ({"type": "trace", "port": 1, "ts_ns": "01"}, "a padded number"),
    ]
    good = {"type": "slot", "slot": "0", "start_ns": "1", "started": [],
            "stopped": [], "started_names": [], "stopped_names": []}
    ok(validator.is_valid(good) and
       not [w for rec, w in probes if validator.is_valid(rec)],
       "the schema accepts a slot record and rejects %s" %
       ", ".join(w for _r, w in probes))

    seen, types = set(), collections.Counter()
    # --packets: the synthetic captures, every header and encapsulation
    gen = os.path.join(tmp, "gen")
    run([sys.executable, MKCAPTURES, gen])
    text = ""
    for f in sorted(os.listdir(gen)):
        if f.endswith(".pcap"):
            text += run([ANA, "--packets", "--icrc", "--stats", "--format",
                         "json", os.path.join(gen, f)])
    validate(validator, "rtel-analyze --packets on tests/gen captures", text,
             seen, types)
    rec = ["--flows", "--messages", "--ios", "--segments", "--summary",
           "--stats", "--format", "json"]
    mixed = sim(tmp, "mixed")
    runs = [
        ("mixed, roles configured", rec + ["--compute-side", "h0",
                                           "--storage-side", "t0"],
         pcaps(mixed)),
        ("mixed --poll, alarms", rec + [
            "--poll", "1/100us", "--alarm", "iol>1us", "--alarm",
            "port:fct>1us", "--alarm", "fet<1000G", "--alarm", "fnr>0.0001",
            "--alarm", "retx_ratio>0.0001", "--alarm", "cnp_rate>1"],
         pcaps(mixed)),
        ("nvme-two-obs, roles inferred, --interval", rec + [
            "--interval", "200us"], pcaps(sim(tmp, "nvme-two-obs"))),
        ("nvme-midstream (orphans)", rec, pcaps(sim(tmp, "nvme-midstream"))),
        ("nvme-errors", rec, pcaps(sim(tmp, "nvme-errors"))),
        ("rdma-ipv6-vlan", rec, pcaps(sim(tmp, "rdma-ipv6-vlan"))),
        ("rdma-ecn", rec, pcaps(sim(tmp, "rdma-ecn"))),
        ("rdma-loss-before", rec, pcaps(sim(tmp, "rdma-loss-before"))),
    ]
    for label, opts, files in runs:
        validate(validator, "rtel-analyze " + label,
                 run([ANA] + opts + ["--"] + files), seen, types)
    # rtel-collect: two workers, polling, the workers' stats records
    out = os.path.join(tmp, "collect.json")
    run([COLLECT, "-j", "2", "--slot", "9216", "--poll", "1/100us",
         "--stats", "--json", out, "--flows", "--messages", "--ios",
         "--segments", "--summary"] +
        sum((["-r", x] for x in pcaps(mixed)), []))
    with open(out) as f:
        validate(validator, "rtel-collect -j 2 --poll 1/100us --json", f.read(),
                 seen, types)
    # switch-agent: its own records and the shared ones
    if os.access(AGENT, os.X_OK):
        ins = ["%d=%s" % (i + 1, os.path.join(mixed, n + ".pcap"))
               for i, n in enumerate(("h0", "t0", "l0"))]
        for opts in (["--trace", "--poll", "2/20us", "--alarm", "iol>1ns",
                      "--alarm", "port:fct>1us"], []):
            validate(validator, "switch-agent --json " + " ".join(opts),
                     run([AGENT, "--json", "--ports", "8", "--compute", "1",
                          "--storage", "2"] + opts + ins), seen, types)
    else:
        fail("switch-agent (%s) is not built" % AGENT)
    want = schema["properties"]["type"]["enum"]
    ok(all(types[t] for t in want), "every record type of the schema was "
       "written: %s" % ", ".join("%s %d" % (t, types[t]) for t in want))
    missing = sorted("%s.%s" % k for k in members if k not in seen)
    ok(not missing, "every member of every record type occurs (%d members)%s"
       % (len(members), "; never seen: " + ", ".join(missing)
          if missing else ""))


# ---------------------------------------------------------------- float

def as_double_parser(line):
    """A record as a parser that reads every JSON number as a double."""
    return json.loads(line, parse_int=float)


def exact(v):
    """The value of a member as that parser's user gets it: a string of
    digits converts exactly, a number is what its double holds."""
    return int(v)


def check_float(tmp):
    d = sim(tmp, "nvme-read")
    truth = collections.defaultdict(set)  # obs -> the true C and R times
    with open(os.path.join(d, "truth.jsonl")) as f:
        for line in f:
            t = json.loads(line)  # Python reads integers exactly
            if t["type"] == "io" and t["rec"] == "complete":
                truth[t["obs"]].update((t["C"], t["R"]))
    text = run([ANA, "--ios", "--format", "json"] + pcaps(d))
    n, bad, off = 0, [], []
    for line in text.splitlines():
        r = as_double_parser(line)
        if r["type"] != "io" or r["state"] != "complete":
            continue
        c, rsp, iol = (exact(r[k]) for k in ("t_cmd_ns", "t_rsp_ns", "iol_ns"))
        n += 1
        if rsp - c != iol:
            bad.append("t_rsp_ns %d - t_cmd_ns %d = %d, iol_ns %d" %
                       (rsp, c, rsp - c, iol))
        if c not in truth[r["obs"]] or rsp not in truth[r["obs"]]:
            off.append("%s: t_cmd_ns %d, t_rsp_ns %d" % (r["obs"], c, rsp))
    ok(n > 100 and not bad,
       "read with doubles: t_rsp_ns - t_cmd_ns = iol_ns exactly in all %d "
       "complete I/Os%s" % (n, "; %d not, e.g. %s" % (len(bad), bad[0])
                            if bad else ""))
    ok(n > 100 and not off,
       "read with doubles: t_cmd_ns and t_rsp_ns are the true times of "
       "rtel-sim%s" % ("; %d not, e.g. %s" % (len(off), off[0])
                       if off else ""))
    jq = shutil.which("jq")
    if jq is None:
        print("note: no jq: the jq check is left out")
        return
    out = subprocess.run(
        [jq, "-r", 'select(.type == "io" and .state == "complete") | '
         '"\\(.obs) \\(.t_cmd_ns) \\(.t_rsp_ns) \\(.iol_ns)"'],
        input=text, stdout=subprocess.PIPE, universal_newlines=True,
        check=True).stdout.split("\n")
    rows = [x.split() for x in out if x]
    wrong = [x for x in rows if not all(v.isdigit() for v in x[1:]) or
             int(x[1]) not in truth[x[0]] or int(x[2]) not in truth[x[0]] or
             int(x[2]) - int(x[1]) != int(x[3])]
    ok(len(rows) == n and not wrong,
       "jq prints the %d I/Os' times as the true times, digit for digit%s" %
       (len(rows), "; e.g. %s" % wrong[0] if wrong else ""))


CHECKS = {"schema": check_schema, "float": check_float}


def main():
    return run_check(CHECKS, "check_json.py", "rtel-json-",
                     [("RTEL_ANALYZE", ANA), ("RTEL_SIM", SIM)],
                     extra={"schema": [("RTEL_COLLECT", COLLECT)]})


if __name__ == "__main__":
    sys.exit(main())
