#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Tests of rtel-collect --metrics (examples/collect-metrics.c,
man/rtel-collect.8), with a real Prometheus.

    check_metrics.py

One run of rtel-collect replays (--replay) a two-point NVMe-oF capture of
rtel-sim whose packets span about 3 s (nvme-two-obs with slow storage), with
--metrics on a free port, --linger, --json and --stats, while a Prometheus
(a temporary configuration and TSDB, scrape interval 1 s) scrapes it:

  - promtool check metrics accepts what /metrics serves (during the replay
    and after it);
  - Prometheus scraped it while the replay ran (rtel_collect_input_ended was
    0 in some sample, the input packet counter changed) and after it, and
    the PromQL query sum(rtel_nvme_ios_total{state="complete"}) (and by obs)
    through /api/v1/query gives the count of complete I/Os that
    rtel-analyze --format json --ios computes on the same capture;
  - the numbers on /metrics equal the run's JSON lines: every counter of
    each worker's stats record (rtel_packets_total, rtel_ios_total by state
    ... every row of rtel-analyze --stats), the I/O records by (obs, host,
    target, op, state), the IOL/DAL/DPL histograms (buckets, count, sum) of
    the complete ones, the records and lines written;
  - SIGTERM while lingering: exit 0 at once.

Then: --metrics-max-series 1 bounds the label sets (the rest counted in
rtel_collect_series_overflow_total), a port in use is exit 1 naming
--metrics, a request for another path is 404; live (-i lo, frames sent
through an AF_PACKET socket, where CAP_NET_RAW allows) the packets are
counted on /metrics as they arrive.

Environment: RTEL_COLLECT, RTEL_ANALYZE, RTEL_SIM (programs), PROMETHEUS and
PROMTOOL (default: on PATH or /usr/bin; Debian package prometheus). Exit:
0 pass, 1 fail, 77 skip (a program missing, or rtel-collect built without
libmicrohttpd).
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_collect as cc  # noqa: E402

SKIP = 77
BUCKETS_NS = [1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 500000,
              1000000, 2500000, 5000000, 10000000, 25000000, 50000000,
              100000000, 250000000, 500000000, 1000000000, 2500000000,
              5000000000, 10000000000]
# the capture: nvme-two-obs with two NVMe-oF hosts (two pairs of
# addresses: two workers of -j 3 have I/Os), storage slowed down so that
# its packets span about 3 s, a few commands never answered (truncated at
# the end)
SIM_ARGS = ["--nvme-hosts", "2", "--qd", "1", "--ios", "160",
            "--storage-read", "uniform:40ms:80ms", "--storage-write",
            "uniform:40ms:80ms", "--stall", "0.05", "--io-timeout", "500ms"]
ROLES = ["--compute-side", "h0", "--storage-side", "t0"]
# rows of the stats record (rj_stats_rows) -> (metric, extra labels)
STATS_METRICS = {
    "pkts": ("rtel_packets_total", {}),
    "bytes": ("rtel_bytes_total", {}),
    "roce": ("rtel_roce_packets_total", {}),
    "rocev1": ("rtel_rocev1_packets_total", {}),
    "not_roce": ("rtel_not_roce_packets_total", {}),
    "malformed": ("rtel_malformed_packets_total", None),  # sum by reason
    "truncated": ("rtel_truncated_packets_total", {}),
    "hdr_truncated": ("rtel_header_truncated_packets_total", {}),
    "ip_fragments": ("rtel_ip_fragments_total", {}),
    "erspan": ("rtel_erspan_packets_total", {}),
    "vxlan": ("rtel_vxlan_packets_total", {}),
    "cnp": ("rtel_cnp_packets_total", {}),
    "cm": ("rtel_cm_packets_total", {}),
    "icrc_ok": ("rtel_icrc_checks_total", {"result": "ok"}),
    "icrc_bad": ("rtel_icrc_checks_total", {"result": "bad"}),
    "icrc_truncated": ("rtel_icrc_checks_total", {"result": "truncated"}),
    "ts_backwards": ("rtel_ts_backwards_packets_total", {}),
    "unknown_opcode": ("rtel_unknown_opcode_packets_total", {}),
    "unknown_tver": ("rtel_unknown_tver_packets_total", {}),
    "flows_created": ("rtel_flows_created_total", {}),
    "flows_evicted": ("rtel_flows_evicted_total", {}),
    "flows_untracked_pkts": ("rtel_flow_untracked_packets_total", {}),
    "pairs_cm": ("rtel_qp_pairs_learned_total", {"source": "cm"}),
    "pairs_psn": ("rtel_qp_pairs_learned_total", {"source": "psn"}),
    "pairs_evicted": ("rtel_qp_pairs_evicted_total", {}),
    "ctrl_unattributed": ("rtel_ctrl_unattributed_packets_total", {}),
    "messages": ("rtel_messages_total", {}),
    "nvme_queues_cm": ("rtel_nvme_queues_total", {"source": "cm"}),
    "nvme_queues_connect": ("rtel_nvme_queues_total", {"source": "connect"}),
    "nvme_queues_confirmed": ("rtel_nvme_queues_total",
                              {"source": "confirmed"}),
    "nvme_queues_evicted": ("rtel_nvme_queues_evicted_total", {}),
    "ios_complete": ("rtel_ios_total", {"state": "complete"}),
    "ios_timeout": ("rtel_ios_total", {"state": "timeout"}),
    "ios_orphan": ("rtel_ios_total", {"state": "orphan"}),
    "ios_evicted": ("rtel_ios_total", {"state": "evicted"}),
    "ios_truncated": ("rtel_ios_total", {"state": "truncated"}),
    "ios_untracked": ("rtel_ios_untracked_total", {}),
    "ios_created": ("rtel_ios_created_total", {}),
    "ios_active": ("rtel_ios_active", {}),
    "ios_unconfirmed": ("rtel_ios_unconfirmed_total", {}),
    "nvme_data_unmatched": ("rtel_nvme_data_unmatched_total", {}),
    "nvme_capsule_dups": ("rtel_nvme_capsule_dups_total", {}),
    "segments": ("rtel_segments_total", {}),
    "io_join_unmatched": ("rtel_io_join_unmatched_total", {}),
    "aggregates_dropped": ("rtel_aggregates_dropped_total", {}),
    "unscheduled": ("rtel_unscheduled_packets_total", {}),
    "slots": ("rtel_slots_total", {}),
    "alarms_raised": ("rtel_alarms_total", {"event": "raised"}),
    "alarms_cleared": ("rtel_alarms_total", {"event": "cleared"}),
    "alarms_dropped": ("rtel_alarms_dropped_total", {}),
    "msgs_overflow": ("rtel_messages_overflow_total", {}),
}

fail = cc.fail


def tool(env, name):
    p = os.environ.get(env) or shutil.which(name) or "/usr/bin/" + name
    return p if os.access(p, os.X_OK) else None


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def http_get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.headers.get("Content-Type", ""), r.read().decode()


# ------------------------------------------------------------ exposition

LABEL = re.compile(r'([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"')


def parse_exposition(text):
    """{(name, frozenset(labels.items())): value}, and the TYPE lines."""
    samples, types = {}, {}
    for ln in text.splitlines():
        if ln.startswith("# TYPE "):
            _h, _t, name, typ = ln.split(" ", 3)
            types[name] = typ
            continue
        if not ln or ln.startswith("#"):
            continue
        m = re.match(r"([a-zA-Z_:][\w:]*)(\{(.*)\})? (\S+)$", ln)
        if not m:
            fail("metrics: a line not in the text format: %r" % ln)
            continue
        labels = {}
        if m.group(3):
            labels = {k: v.replace('\\"', '"').replace("\\n", "\n")
                      .replace("\\\\", "\\")
                      for k, v in LABEL.findall(m.group(3))}
        key = (m.group(1), frozenset(labels.items()))
        if key in samples:
            fail("metrics: a sample twice: %s" % ln)
        samples[key] = float(m.group(4))
    return samples, types


def value(samples, name, **labels):
    return samples.get((name, frozenset(labels.items())))


def total(samples, name, **labels):
    """The sum over the samples of |name| that have |labels|."""
    want = set(labels.items())
    return sum(v for (n, ls), v in samples.items()
               if n == name and want <= set(ls))


def promtool_check(promtool, text, label):
    r = subprocess.run([promtool, "check", "metrics"], input=text,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if r.returncode != 0 or r.stdout.strip():
        fail("promtool check metrics (%s): exit %d: %s" %
             (label, r.returncode, r.stdout[:2000]))
        return False
    print("ok: promtool check metrics accepts /metrics (%s, %d lines)" %
          (label, text.count("\n")))
    return True


# ------------------------------------------------------------ processes

class Collector:
    """rtel-collect in the background; its standard error read by a
    thread (lines, and the metrics address once announced)."""

    def __init__(self, args):
        self.lines = []
        self.cv = threading.Condition()
        self.p = subprocess.Popen([cc.COLLECT] + args,
                                  stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
        self.t = threading.Thread(target=self._read, daemon=True)
        self.t.start()

    def _read(self):
        for ln in self.p.stderr:
            with self.cv:
                self.lines.append(ln.rstrip("\n"))
                self.cv.notify_all()
        with self.cv:
            self.lines.append(None)  # end of stream
            self.cv.notify_all()

    def wait_line(self, needle, timeout):
        deadline = time.time() + timeout
        with self.cv:
            while True:
                for ln in self.lines:
                    if ln is not None and needle in ln:
                        return ln
                if None in self.lines or time.time() >= deadline:
                    return None
                self.cv.wait(deadline - time.time())

    def url(self, timeout=10):
        ln = self.wait_line("metrics on http://", timeout)
        return ln.split("metrics on ")[1].strip() if ln else None

    def stop(self, timeout=15):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
        try:
            self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            fail("rtel-collect: no exit %d s after SIGTERM" % timeout)
        self.t.join(5)
        return self.p.returncode

    def text(self):
        with self.cv:
            return "\n".join(ln for ln in self.lines if ln is not None)


def start_prometheus(prometheus, tmp, target):
    port = free_port()
    cfg = os.path.join(tmp, "prometheus.yml")
    with open(cfg, "w") as f:
        f.write("global:\n"
                "  scrape_interval: 1s\n"
                "  scrape_timeout: 1s\n"
                "  evaluation_interval: 1s\n"
                "scrape_configs:\n"
                "  - job_name: rtel-collect\n"
                "    static_configs:\n"
                "      - targets: ['%s']\n" % target)
    log = open(os.path.join(tmp, "prometheus.log"), "w")
    p = subprocess.Popen([prometheus, "--config.file=" + cfg,
                          "--storage.tsdb.path=" + os.path.join(tmp, "tsdb"),
                          "--web.listen-address=127.0.0.1:%d" % port,
                          "--log.level=warn"],
                         stdout=log, stderr=log, cwd=tmp)
    base = "http://127.0.0.1:%d" % port
    # ready, and the target scraped once (down: nothing listens yet); the
    # scrape manager takes up its targets some seconds after the start
    deadline = time.time() + 20
    while time.time() < deadline:
        if p.poll() is not None:
            break
        try:
            _s, _c, body = http_get(base + "/api/v1/targets", 1)
            active = json.loads(body)["data"]["activeTargets"]
            if active and active[0].get("health") not in (None, "unknown"):
                return p, base
        except (urllib.error.URLError, OSError, ValueError, KeyError):
            pass
        time.sleep(0.2)
    p.kill()
    p.wait()
    log.close()
    with open(os.path.join(tmp, "prometheus.log")) as f:
        fail("prometheus did not start: %s" % f.read()[-2000:])
    return None, None


def promql(base, query):
    """The value of an instant query (a scalar or a one-element vector),
    or None (no data)."""
    url = base + "/api/v1/query?" + urllib.parse.urlencode({"query": query})
    try:
        _s, _t, body = http_get(url)
    except (urllib.error.URLError, OSError) as e:
        fail("promql %s: %s" % (query, e))
        return None
    r = json.loads(body)
    if r.get("status") != "success":
        fail("promql %s: %s" % (query, body[:500]))
        return None
    data = r["data"]
    if data["resultType"] == "scalar":
        return float(data["result"][1])
    if not data["result"]:
        return None
    return {tuple(sorted(e["metric"].items())): float(e["value"][1])
            for e in data["result"]}


def one(v):
    if isinstance(v, dict):
        return list(v.values())[0] if len(v) == 1 else None
    return v


# ------------------------------------------------------------ checks

OPS = {"read": "read", "write": "write", "flush": "flush", None: "unknown"}


def json_ios(lines):
    return [r for r in (json.loads(ln) for ln in lines if ln.strip())
            if r["type"] == "io"]


def op_label(r):
    # numbers in the JSON: an admin, Fabrics or other command; on /metrics
    # "admin", "fabrics" or "other" (grouped here as "numbered")
    return OPS.get(r["op"], "numbered")


def compare_with_json(samples, lines, nworkers):
    recs = [json.loads(ln) for ln in lines if ln.strip()]
    stats = {r["obs"]: r for r in recs if r["type"] == "stats"}
    ios = [r for r in recs if r["type"] == "io"]
    bad = 0
    if sorted(stats) != sorted("worker%d" % k for k in range(nworkers)):
        fail("json: stats records of %s" % sorted(stats))
        return
    for k in range(nworkers):
        st = stats["worker%d" % k]
        rows = [c for c in st if c not in ("type", "obs",
                                           "malformed_by_reason")]
        for row in rows:
            if row not in STATS_METRICS:
                fail("stats row %s has no metric in this test" % row)
                bad += 1
                continue
            name, labels = STATS_METRICS[row]
            if labels is None:
                got = total(samples, name, worker=str(k))
            else:
                got = value(samples, name, worker=str(k), **labels)
            if got is None or got != st[row]:
                fail("worker %d: %s %s = %s on /metrics, %s in the stats "
                     "record (%s)" % (k, name, labels, got, st[row], row))
                bad += 1
    # I/O records by label set and state
    want, lat = {}, {}
    for r in ios:
        key = (r["obs"], r["host"], r["target"], op_label(r), r["state"])
        want[key] = want.get(key, 0) + 1
        if r["state"] == "complete":
            for m in ("iol", "dal", "dpl"):
                v = r[m + "_ns"]
                if v is not None:
                    lat.setdefault((m,) + key[:4], []).append(max(v, 0))
    got = {}
    for (name, ls), v in samples.items():
        if name == "rtel_nvme_ios_total" and v:
            d = dict(ls)
            op = d["op"] if d["op"] in ("read", "write", "flush",
                                        "unknown") else "numbered"
            key = (d["obs"], d["host"], d["target"], op, d["state"])
            got[key] = got.get(key, 0) + v
    if got != want:
        fail("rtel_nvme_ios_total %s, I/O records in the JSON %s" %
             (sorted(got.items()), sorted(want.items())))
        bad += 1
    # histograms of the read, write and flush label sets (the numbered
    # ones are split over admin/fabrics/other on /metrics)
    nh = 0
    for (m, obs, host, target, op), vals in sorted(lat.items()):
        if op == "numbered":
            continue
        name = "rtel_nvme_%s_seconds" % m
        lab = dict(obs=obs, host=host, target=target, op=op)
        cnt = value(samples, name + "_count", **lab)
        sm = value(samples, name + "_sum", **lab)
        buckets = [value(samples, name + "_bucket", le=le, **lab) for le in
                   ["%g" % (b / 1e9) for b in BUCKETS_NS] + ["+Inf"]]
        exp = [sum(1 for v in vals if v <= b) for b in BUCKETS_NS] + \
            [len(vals)]
        if cnt != len(vals) or sm is None or \
                abs(sm - sum(vals) / 1e9) > 1e-6 or buckets != exp:
            fail("%s%s: count %s sum %s buckets %s; the JSON: %d, %.9f, %s"
                 % (name, lab, cnt, sm, buckets, len(vals),
                    sum(vals) / 1e9, exp))
            bad += 1
        nh += 1
    n_io_lines = sum(1 for r in recs if r["type"] == "io")
    if total(samples, "rtel_collect_records_total", type="io") != n_io_lines:
        fail("rtel_collect_records_total{type=io} %s, %d io lines" %
             (total(samples, "rtel_collect_records_total", type="io"),
              n_io_lines))
        bad += 1
    if value(samples, "rtel_collect_json_lines_total") != len(recs):
        fail("rtel_collect_json_lines_total %s, %d lines in the file" %
             (value(samples, "rtel_collect_json_lines_total"), len(recs)))
        bad += 1
    for st in ("complete", "truncated"):
        a = total(samples, "rtel_ios_total", state=st)
        b = total(samples, "rtel_nvme_ios_total", state=st)
        if a != b:
            fail("rtel_ios_total{state=%s} %s != rtel_nvme_ios_total %s" %
                 (st, a, b))
            bad += 1
    if not bad:
        print("ok: /metrics = the JSON of the run: %d stats rows x %d "
              "workers, %d I/O records in %d (label set, state) counts, %d "
              "histograms" % (len(STATS_METRICS), nworkers, len(ios),
                              len(want), nh))


# ------------------------------------------------------------ runs

def run_prometheus(tmp, promtool, prometheus):
    pcaps = cc.simulate(tmp, "nvme-two-obs", extra=SIM_ARGS)
    want_ios = json_ios(cc.analyze(pcaps, ROLES + ["--ios"]))
    complete = [r for r in want_ios if r["state"] == "complete"]
    by_obs = {}
    for r in complete:
        by_obs[r["obs"]] = by_obs.get(r["obs"], 0) + 1
    if len(complete) < 100 or sorted(by_obs) != ["h0", "t0"]:
        fail("rtel-analyze: %d complete I/Os (%s)" % (len(complete), by_obs))
        return
    mport = free_port()
    prom, base = start_prometheus(prometheus, tmp, "127.0.0.1:%d" % mport)
    if prom is None:
        return
    t0 = time.time()
    out = os.path.join(tmp, "metrics.json")
    nw = 3
    col = Collector(["-j", str(nw), "--slot", "9216", "--replay",
                     "--metrics", "127.0.0.1:%d" % mport, "--linger", "60",
                     "--json", out, "--stats"] + cc.RECS + ROLES +
                    sum((["-r", p] for p in pcaps), []))
    try:
        url = col.url()
        if url is None:
            fail("rtel-collect: no metrics address: %s" % col.text())
            return
        status, ctype, text = http_get(url)
        if status != 200 or not ctype.startswith("text/plain; version=0.0.4"):
            fail("GET /metrics: %d, Content-Type %r" % (status, ctype))
        samples, _types = parse_exposition(text)
        if value(samples, "rtel_collect_input_ended") != 0:
            fail("/metrics during the replay: rtel_collect_input_ended %s" %
                 value(samples, "rtel_collect_input_ended"))
        promtool_check(promtool, text, "during the replay")
        if col.wait_line("input ended: serving --metrics", 30) is None:
            fail("rtel-collect: no linger line: %s" % col.text())
            return
        replay = time.time() - t0
        status, ctype, text = http_get(url)
        samples, types = parse_exposition(text)
        promtool_check(promtool, text, "after the input")
        with open(out) as f:
            lines = f.read().splitlines()
        compare_with_json(samples, lines, nw)
        busy = [k for k in range(nw)
                if total(samples, "rtel_ios_total", worker=str(k))]
        if len(busy) < 2:
            fail("I/Os in workers %s only (two pairs of addresses)" % busy)
        got = total(samples, "rtel_nvme_ios_total", state="complete")
        if got != len(complete):
            fail("/metrics: %s complete I/Os, rtel-analyze %d" %
                 (got, len(complete)))
        # Prometheus: the final count, through PromQL
        q = 'sum(rtel_nvme_ios_total{job="rtel-collect",state="complete"})'
        deadline = time.time() + 15
        v = None
        while time.time() < deadline:
            v = one(promql(base, q))
            if v == len(complete):
                break
            time.sleep(0.5)
        if v != len(complete):
            fail("PromQL %s = %s, rtel-analyze: %d complete I/Os" %
                 (q, v, len(complete)))
        else:
            print("ok: PromQL %s = %d = rtel-analyze's complete I/Os "
                  "(replay %.1f s)" % (q, v, replay))
        r = promql(base, 'sum by (obs) (rtel_nvme_ios_total'
                   '{state="complete"})') or {}
        got_obs = {dict(k)["obs"]: v for k, v in r.items()}
        if got_obs != by_obs:
            fail("PromQL by obs %s, rtel-analyze %s" % (got_obs, by_obs))
        r = promql(base, 'sum(rtel_packets_total)')
        if one(r) != total(samples, "rtel_packets_total"):
            fail("PromQL sum(rtel_packets_total) %s, /metrics %s" %
                 (r, total(samples, "rtel_packets_total")))
        # it was scraped during the replay and after it
        lo = one(promql(base, "min_over_time(rtel_collect_input_ended[5m])"))
        hi = one(promql(base, "max_over_time(rtel_collect_input_ended[5m])"))
        ch = one(promql(base, 'changes(rtel_collect_input_packets_total'
                        '{input="h0"}[5m])'))
        up = one(promql(base, 'up{job="rtel-collect"}'))
        if lo != 0 or hi != 1 or ch is None or ch < 1 or up != 1:
            fail("Prometheus: input_ended min %s max %s, packet counter "
                 "changes %s, up %s (a scrape during the replay and one "
                 "after: 0, 1, >= 1, 1)" % (lo, hi, ch, up))
        else:
            print("ok: Prometheus scraped during the replay (input_ended 0, "
                  "%d changes of the packet counter) and after it" % ch)
        hist = one(promql(base, 'histogram_quantile(0.5, sum by (le) (rate('
                          'rtel_nvme_iol_seconds_bucket{op="read"}[1m])))'))
        if hist is None or not 0.02 < hist < 0.2:
            fail("PromQL median read IOL %s s (storage 40-80 ms)" % hist)
        else:
            print("ok: PromQL histogram_quantile(0.5, ...read IOL): %.3f s "
                  "(storage 40-80 ms)" % hist)
    finally:
        rc = col.stop()
        prom.send_signal(signal.SIGTERM)
        try:
            prom.wait(15)
        except subprocess.TimeoutExpired:
            prom.kill()
            prom.wait()
    if rc != 0:
        fail("rtel-collect: exit %d after SIGTERM while lingering: %s" %
             (rc, col.text()[-2000:]))
    else:
        print("ok: SIGTERM while lingering: exit 0 (%.1f s in all)" %
              (time.time() - t0))


def run_bounded(tmp, promtool):
    pcaps = cc.simulate(tmp, "nvme-two-obs", extra=SIM_ARGS)
    col = Collector(["-j", "2", "--slot", "9216", "--metrics",
                     "127.0.0.1:0", "--metrics-max-series", "1", "--linger",
                     "30"] + ROLES + sum((["-r", p] for p in pcaps), []))
    try:
        url = col.url()
        if url is None or col.wait_line("input ended", 30) is None:
            fail("--metrics-max-series 1: %s" % col.text())
            return
        _s, _c, text = http_get(url)
        samples, _t = parse_exposition(text)
        promtool_check(promtool, text, "--metrics-max-series 1")
        sets = {frozenset((k, v) for k, v in ls if k != "state")
                for (n, ls) in samples if n == "rtel_nvme_ios_total"}
        n_ios = total(samples, "rtel_ios_total")
        in_set = total(samples, "rtel_nvme_ios_total")
        over = value(samples, "rtel_collect_series_overflow_total")
        if len(sets) != 1 or value(samples, "rtel_collect_series") != 1 or \
                value(samples, "rtel_collect_series_max") != 1 or \
                over is None or over < 1 or in_set + over != n_ios:
            fail("--metrics-max-series 1: %d label sets, %s in them, %s "
                 "overflow, %s I/O records" % (len(sets), in_set, over,
                                               n_ios))
        else:
            print("ok: --metrics-max-series 1: one label set (%d I/Os), %d "
                  "counted as overflow" % (in_set, over))
        try:
            http_get(url.replace("/metrics", "/other"))
            fail("GET /other: not 404")
        except urllib.error.HTTPError as e:
            if e.code != 404:
                fail("GET /other: %d" % e.code)
    finally:
        rc = col.stop()
    if rc != 0:
        fail("--metrics-max-series 1: exit %d" % rc)
    # --linger with live input: exit 2, naming it
    r = subprocess.run([cc.COLLECT, "-i", "lo", "--metrics", "127.0.0.1:0",
                        "--linger", "5"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=30)
    if r.returncode != 2 or "--linger" not in r.stderr.split("\n")[0]:
        fail("--linger with -i: exit %d: %s" % (r.returncode, r.stderr))
    # a port in use: exit 1, naming --metrics
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    s.listen(1)
    r = subprocess.run([cc.COLLECT, "--metrics", "127.0.0.1:%d" %
                        s.getsockname()[1], "-r", pcaps[0]],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=30)
    s.close()
    if r.returncode != 1 or "--metrics" not in r.stderr:
        fail("a port in use: exit %d: %s" % (r.returncode, r.stderr))
    else:
        print("ok: a port in use: exit 1: %s" % r.stderr.splitlines()[0])


def run_live(tmp, promtool):
    """-i lo with --metrics: the packets counted as they arrive, the
    kernel's drops served (needs CAP_NET_RAW, else skipped here)."""
    try:
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        s.bind(("lo", 0))
    except (PermissionError, OSError, AttributeError) as e:
        print("live: no raw socket on lo (%s): not run" % e)
        return
    # VLAN-tagged, and only those taken: the other loopback tests (their
    # filters do not look past a VLAN tag) and this one, run at the same
    # time by make -j, never see each other's frames
    vtmp = os.path.join(tmp, "vlan")  # simulate() keeps one per scenario
    os.makedirs(vtmp, exist_ok=True)
    frames = cc.pcap_frames(cc.simulate(vtmp, "nvme-read",
                                        extra=("--vlan", "3001"))[0])
    col = Collector(["-i", "h0=lo", "-j", "2", "--slot", "9216", "--queue",
                     "65536", "--filter", "vlan 3001 and udp port 4791",
                     "--metrics", "127.0.0.1:0"])
    try:
        url = col.url()
        if url is None or col.wait_line("started", 10) is None:
            if "ermi" in col.text():
                print("live: cannot capture on lo: not run")
                return
            fail("live --metrics: %s" % col.text())
            return
        time.sleep(0.5)
        for i, (_ts, fr) in enumerate(frames):
            s.send(fr)
            if i % 200 == 199:
                time.sleep(0.001)
        deadline = time.time() + 10
        while True:
            _st, _c, text = http_get(url)
            samples, _t = parse_exposition(text)
            got = total(samples, "rtel_packets_total")
            if got >= len(frames) or time.time() > deadline:
                break
            time.sleep(0.2)
        kd = value(samples, "rtel_collect_input_kernel_drops_total",
                   input="h0")
        inp = value(samples, "rtel_collect_input_packets_total", input="h0")
        ios = total(samples, "rtel_nvme_ios_total")
        if got < len(frames) or kd is None or inp < len(frames) or not ios \
                or value(samples, "rtel_collect_input_ended") != 0:
            fail("live --metrics: %d frames sent; packets %s, input %s, "
                 "kernel drops %s, I/Os %s" % (len(frames), got, inp, kd,
                                               ios))
        else:
            promtool_check(promtool, text, "live")
            print("ok: live -i lo: %d frames counted on /metrics as they "
                  "came (%d I/O records)" % (len(frames), ios))
    finally:
        rc = col.stop()
        s.close()
    if rc != 0:
        fail("live --metrics: exit %d after SIGTERM" % rc)


def run_slots(tmp, promtool):
    """--poll with a hook that fails once in two: the slot and hook
    counters on /metrics equal the summary line on stderr, and promtool
    accepts them."""
    pcaps = cc.simulate(tmp, "nvme-two-obs", extra=SIM_ARGS)
    hook = os.path.join(tmp, "odd.sh")
    with open(hook, "w") as f:
        f.write("#!/bin/sh\n[ $((RTEL_SLOT % 2)) -eq 0 ]\n")
    os.chmod(hook, 0o755)
    col = Collector(["-j", "2", "--metrics", "127.0.0.1:0", "--linger", "30",
                     "--poll", "1/200us", "--on-slot", hook] +
                    sum((["-r", p] for p in pcaps), []))
    try:
        url = col.url()
        if url is None or col.wait_line("input ended", 30) is None:
            fail("--poll --metrics: %s" % col.text())
            return
        _s, _c, text = http_get(url)
    finally:
        rc = col.stop()
    samples, _t = parse_exposition(text)
    promtool_check(promtool, text, "--poll --on-slot")
    m = re.search(r"slots (\d+), hook calls (\d+), (\d+) failed, (\d+) "
                  r"late, (\d+) timed out", col.text())
    got = [value(samples, "rtel_collect_" + n) for n in
           ("slots_total", "hook_calls_total", "hook_failures_total",
            "hook_late_total", "hook_timeouts_total")]
    if rc != 0 or m is None or [float(x) for x in m.groups()] != got or \
            not got[0] or not 0 < got[2] < got[1]:
        fail("--poll --metrics: exit %d, /metrics %s, summary %s" % (
            rc, got, m.groups() if m else col.text()))
    else:
        print("ok: --poll --metrics: slots %d, hook calls %d, %d failed, as "
              "the summary says" % (got[0], got[1], got[2]))


def main():
    cc.need_programs()
    v = subprocess.run([cc.COLLECT, "--version"], stdout=subprocess.PIPE,
                       text=True).stdout
    if "metrics: libmicrohttpd" not in v:
        print("rtel-collect was built without libmicrohttpd (no --metrics; "
              "install libmicrohttpd-dev and configure again): skipped")
        return SKIP
    promtool = tool("PROMTOOL", "promtool")
    prometheus = tool("PROMETHEUS", "prometheus")
    if promtool is None or prometheus is None:
        print("promtool or prometheus not found (Debian package "
              "prometheus): skipped")
        return SKIP
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="rtel-metrics.") as tmp:
        run_prometheus(tmp, promtool, prometheus)
        run_bounded(tmp, promtool)
        run_slots(tmp, promtool)
        run_live(tmp, promtool)
    print("(%.1f s)" % (time.time() - t0))
    if cc.failures:
        print("%d failure(s)" % len(cc.failures))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
