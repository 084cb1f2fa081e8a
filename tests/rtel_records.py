# SPDX-License-Identifier: MIT
"""Reads the JSON records of rtel-analyze --format json, rtel-collect --json
and switch-agent --json for the tests, by the schema of the format,
docs/rtel-records.schema.json (rtel-analyze(1), OUTPUT).

The format writes every 64-bit integer (timestamps, durations, counters,
byte counts) as a string of decimal digits and leaves out what is not
known. A record read here is a dict in which:

  - the members that the schema declares u64 or i64 are Python ints
    (exact: the strings are parsed as integers, never as floats);
  - a member that the schema declares for the record type but the line
    leaves out reads as None (r["t_rsp_ns"] is None), while "k" in r and
    r.get(k, default) still tell that it is absent;
  - a member the schema does not declare raises KeyError, and a value of
    the wrong JSON type (a number where the schema says u64, a string
    where it says integer) raises ValueError when the line is read.

This is not the validation of tests/json (which runs jsonschema over the
output): it is how the other tests read the records, so that each of them
also fails on a line that leaves the format.

  import rtel_records
  recs = rtel_records.loads_lines(stdout)      # list of records
  rec = rtel_records.loads(line)
  recs = rtel_records.load(path)
"""
import json
import os

SCHEMA_PATH = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "docs", "rtel-records.schema.json")

_schema = None


def schema():
    """The schema (parsed once)."""
    global _schema
    if _schema is None:
        with open(SCHEMA_PATH) as f:
            _schema = json.load(f)
    return _schema


def _deref(spec):
    while isinstance(spec, dict) and "$ref" in spec:
        spec = schema()["$defs"][spec["$ref"].rsplit("/", 1)[1]]
    return spec


def _kind(spec):
    """'u64', 'i64' or None for a property spec."""
    if isinstance(spec, dict) and spec.get("$ref") in ("#/$defs/u64",
                                                        "#/$defs/i64"):
        return spec["$ref"].rsplit("/", 1)[1]
    return None


class Record(dict):
    """A record or a nested object: absent declared members read None."""

    def __init__(self, values, declared, where):
        dict.__init__(self, values)
        self._declared = declared
        self._where = where

    def __missing__(self, key):
        if key in self._declared:
            return None
        raise KeyError("%s has no member %r in docs/rtel-records.schema.json"
                       % (self._where, key))


def _int(v, kind, where):
    if not isinstance(v, str):
        raise ValueError("%s: %r is not a string of digits (%s)"
                         % (where, v, kind))
    n = int(v, 10)
    lo, hi = (0, 2**64 - 1) if kind == "u64" else (-2**63, 2**63 - 1)
    if str(n) != v or not lo <= n <= hi:
        raise ValueError("%s: %r is not a %s" % (where, v, kind))
    return n


def _convert(v, spec, where):
    kind = _kind(spec)
    if kind:
        return _int(v, kind, where)
    spec = _deref(spec)
    if spec is False:
        raise ValueError("%s: must be absent" % where)
    if not isinstance(spec, dict):
        return v
    t = spec.get("type")
    if t == "integer" and (not isinstance(v, int) or isinstance(v, bool)):
        raise ValueError("%s: %r is not an integer" % (where, v))
    if t == "string" and not isinstance(v, str):
        raise ValueError("%s: %r is not a string" % (where, v))
    if t == "boolean" and not isinstance(v, bool):
        raise ValueError("%s: %r is not a boolean" % (where, v))
    if t == "array":
        if not isinstance(v, list):
            raise ValueError("%s: %r is not an array" % (where, v))
        return [_convert(x, spec.get("items", {}), where + "[]") for x in v]
    if t == "object":
        if not isinstance(v, dict):
            raise ValueError("%s: %r is not an object" % (where, v))
        props = spec.get("properties", {})
        out = {}
        for k, x in v.items():
            if k in props:
                out[k] = _convert(x, props[k], where + "." + k)
            elif isinstance(spec.get("additionalProperties"), dict):
                out[k] = _convert(x, spec["additionalProperties"],
                                  where + "." + k)
            else:
                raise ValueError("%s: member %r is not in the schema"
                                 % (where, k))
        return Record(out, props, where)
    return v


def record(obj):
    """A parsed JSON object (a dict) as a Record of its type."""
    t = obj.get("type")
    defs = schema()["$defs"]
    if t not in schema()["properties"]["type"]["enum"]:
        raise ValueError("record type %r is not in the schema" % (t,))
    return _convert(obj, defs[t], t)


def loads(line):
    """One JSON line as a Record."""
    return record(json.loads(line))


def loads_lines(text):
    """The Records of the non-blank lines of |text|."""
    return [loads(x) for x in text.splitlines() if x.strip()]


def load(path):
    """The Records of a JSON Lines file."""
    with open(path) as f:
        return loads_lines(f.read())
