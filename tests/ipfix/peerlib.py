"""Shared helpers of the IPFIX collector tests (tests/ipfix/nfdump.py,
tshark.py, ipfixdump.py, soak.py): rtel-analyze's IPFIX export read back by
other programs (nfcapd/nfdump, tshark, ipfixDump) and compared with
rtel-analyze's own JSON records.

Conventions the tests rely on (lib/rtel_ipfix.c, examples/ipfix-export.c):
  * the encoder numbers data records flowId 1, 2, 3... in delivery order,
    which is the order of rtel-analyze's JSON records when every record
    option is given (ALL_RECORDS);
  * record type i (flow 0, message 1, io 2, segment 3, aggregate 4) is
    template 256 + 2*i over IPv4, 257 + 2*i over IPv6; the RFC 5610 type
    records are options template 266;
  * observationPointId and ingressInterface are the index of the input
    file on rtel-analyze's command line.

Only 127.0.0.1 is used. Every helper that starts a process or makes a
directory registers it with Cleanup, which the tests run on every exit.
"""

import ipaddress
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import rtel_records  # noqa: E402 (tests/rtel_records.py)

SKIP = 77

# rtel-analyze's options for every record type (the JSON of the records
# exported, in delivery order)
ALL_RECORDS = ["--flows", "--messages", "--ios", "--segments", "--summary",
               "--format", "json"]

# JSON "type" -> record type index of the encoder
TYPE_INDEX = {"flow": 0, "message": 1, "io": 2, "segment": 3, "summary": 4}
TYPE_NAMES = ["flow", "message", "io", "segment", "aggregate"]
TID_FIRST = 256
TID_TYPES = 266

NONE_U64 = (1 << 64) - 1
NONE_S64 = -(1 << 63)
NTP_OFFSET = 2208988800

STATS_RE = re.compile(r"^ipfix: (\d+) records in (\d+) messages "
                      r"\((\d+) bytes\) to (.*?)(?:; (\d+) records lost)?$",
                      re.M)


def log(*a):
    print(*a, flush=True)


def skip(msg):
    log("SKIP: " + msg)
    sys.exit(SKIP)


class Cleanup:
    """Processes to stop and directories to remove, on every exit path
    (normal return, exception, SIGTERM/SIGINT/SIGHUP from make)."""

    def __init__(self):
        self.procs = []
        self.dirs = []
        for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(s, self._on_signal)

    def _on_signal(self, signum, _frame):
        self.run()
        sys.exit(128 + signum)

    def proc(self, p):
        self.procs.append(p)
        return p

    def tmpdir(self, tag):
        d = tempfile.mkdtemp(prefix="rtel-ipfix-%s." % tag,
                             dir=os.environ.get("TMPDIR", "/tmp"))
        self.dirs.append(d)
        return d

    def run(self):
        for p in self.procs:
            stop_process(p, signal.SIGTERM, 5.0)
        self.procs = []
        if os.environ.get("RTEL_IPFIX_KEEP"):
            for d in self.dirs:
                log("kept %s (RTEL_IPFIX_KEEP)" % d)
        else:
            for d in self.dirs:
                shutil.rmtree(d, ignore_errors=True)
        self.dirs = []


def stop_process(p, sig, timeout):
    """Sends |sig| to the process |p| (a Popen we started) and waits up to
    |timeout| s, then kills it. Returns its exit status (None if it had to
    be killed)."""
    if p.poll() is not None:
        return p.returncode
    try:
        p.send_signal(sig)
        return p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait(timeout=5)
        return None


def program(env, name):
    """The program of environment variable |env| (if set and executable)
    or |name| on the PATH; None if neither."""
    v = os.environ.get(env) if env else None
    if v:
        return v if os.access(v, os.X_OK) else None
    return shutil.which(name)


def need_rtel():
    """(rtel-sim, rtel-analyze) from the environment, or skip."""
    sim = os.environ.get("RTEL_SIM")
    ana = os.environ.get("RTEL_ANALYZE")
    if not sim or not os.access(sim, os.X_OK):
        skip("rtel-sim not found (RTEL_SIM)")
    if not ana or not os.access(ana, os.X_OK):
        skip("rtel-analyze not found (RTEL_ANALYZE; it needs libpcap)")
    return sim, ana


def loopback_udp_or_skip():
    """Skips unless a UDP socket can be bound on 127.0.0.1 and a datagram
    sent to it arrives."""
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", 0))
        s.settimeout(2.0)
        c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        c.sendto(b"x", s.getsockname())
        s.recvfrom(16)
        c.close()
        s.close()
    except OSError as e:
        skip("cannot bind/use UDP on 127.0.0.1: %s" % e)


def free_udp_port():
    """A UDP port free on 127.0.0.1 right now (the caller binds it soon
    after; a collector that then fails to bind is retried on another)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def run(cmd, timeout=300, env=None, check=True):
    """Runs |cmd|; returns CompletedProcess (text). Raises on a non-zero
    exit with |check|."""
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=timeout, env=env)
    if check and r.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), r.returncode,
                                                r.stderr.strip()[-2000:]))
    return r


def simulate(sim, scenario, seed, out, extra=()):
    """rtel-sim |scenario| |seed| into |out|; returns NAME=PATH inputs, one
    per observation point, in the order of the scenario's --obs list."""
    os.makedirs(out, exist_ok=True)
    run([sim, "--scenario", scenario, "--seed", str(seed), "--out", out]
        + list(extra))
    names = scenario_obs(sim, scenario, extra)
    inputs = []
    for n in names:
        p = os.path.join(out, n + ".pcap")
        if not os.path.exists(p):
            raise RuntimeError("rtel-sim wrote no %s" % p)
        inputs.append("%s=%s" % (n, p))
    return inputs


def scenario_obs(sim, scenario, extra=()):
    """The observation point names of |scenario| (its --obs option, or an
    --obs in |extra|), without clock offsets (h0@-1ns -> h0)."""
    obs = None
    extra = list(extra)
    if "--obs" in extra:
        obs = extra[extra.index("--obs") + 1]
    else:
        out = run([sim, "--list-scenarios"]).stdout.splitlines()
        for i, line in enumerate(out):
            if line.split()[:1] == [scenario]:
                opts = out[i + 1].split()
                obs = opts[opts.index("--obs") + 1]
                break
    if obs is None:
        raise RuntimeError("no --obs for scenario %s" % scenario)
    return [o.split("@")[0] for o in obs.split(",")]


def analyze_json(ana, inputs, extra=()):
    """rtel-analyze's records (every record type) for |inputs|, in
    delivery order."""
    r = run([ana] + ALL_RECORDS + list(extra) + ["--"] + list(inputs))
    return rtel_records.loads_lines(r.stdout)


def export_stats(stderr):
    """(records, messages, bytes, dest, lost) of rtel-analyze's stderr line
    "ipfix: N records in M messages (B bytes) to DEST"; raises if absent."""
    m = STATS_RE.search(stderr)
    if not m:
        raise RuntimeError("no 'ipfix: N records in M messages' line in "
                           "rtel-analyze's stderr: %r" % stderr[-500:])
    return (int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4),
            int(m.group(5) or 0))


def obs_index(inputs):
    """NAME -> index of the input (observationPointId, ingressInterface)."""
    return {s.split("=", 1)[0]: i for i, s in enumerate(inputs)}


def rec_addrs(r):
    """(source, destination) of JSON record |r| as ipaddress objects."""
    if r["type"] in ("flow", "message"):
        a, b = r["src"], r["dst"]
    else:
        a, b = r["host"], r["target"]
    return ipaddress.ip_address(a), ipaddress.ip_address(b)


def template_id(r):
    """The template id a JSON record is exported with."""
    t = TYPE_INDEX[r["type"]]
    return TID_FIRST + 2 * t + (1 if rec_addrs(r)[0].version == 6 else 0)


def later(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)


def rec_times(r):
    """(start, end) in ns of the flowStart*/flowEnd* fields of JSON record
    |r| (None: not exported or no time). I/Os as rtel_ipfix_add_io does:
    start is the command, else (an orphan) the response; end is the
    response, else the latest of command, last data and READ REQUEST."""
    t = r["type"]
    if t in ("flow", "message"):
        return r["first_ts_ns"], r["last_ts_ns"]
    if t == "io":
        start = r["t_cmd_ns"] if r["t_cmd_ns"] is not None else r["t_rsp_ns"]
        end = r["t_rsp_ns"]
        if end is None:
            end = later(later(r["t_cmd_ns"], r["t_data_last_ns"]),
                        r["t_rdreq_ns"])
        return start, end
    return None, None


def ntp_to_ns(v):
    """dateTimeNanoseconds (NTP 64-bit) -> ns since 1970, as an exact
    decoder that truncates would give."""
    sec, frac = v >> 32, v & 0xFFFFFFFF
    return (sec - NTP_OFFSET) * 1000000000 + (frac * 1000000000 >> 32)


def split_messages(data):
    """The IPFIX messages of a file of messages back to back (checks
    version and lengths)."""
    out, off = [], 0
    while off < len(data):
        if len(data) - off < 16:
            raise ValueError("%d trailing bytes at %d"
                             % (len(data) - off, off))
        ver, ln = struct.unpack_from("!HH", data, off)
        if ver != 10 or ln < 16 or off + ln > len(data):
            raise ValueError("bad message header at %d: version %d length %d"
                             % (off, ver, ln))
        out.append(data[off:off + ln])
        off += ln
    return out


def pcap_of_messages(msgs, path, dport=4739, sport=40000):
    """Writes |msgs| as Ethernet/IPv4/UDP frames 127.0.0.1 -> 127.0.0.1
    (UDP |sport| -> |dport|, 4739: IPFIX, which tshark decodes as such),
    1 ms apart, into a pcap file."""
    out = [struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)]
    t0 = 1700000000
    lo = socket.inet_aton("127.0.0.1")
    for i, m in enumerate(msgs):
        udp = struct.pack("!HHHH", sport, dport, 8 + len(m), 0) + m
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), i & 0xFFFF,
                         0x4000, 64, 17, 0, lo, lo)
        s = sum(struct.unpack("!10H", ip))
        s = (s & 0xFFFF) + (s >> 16)
        s = (s & 0xFFFF) + (s >> 16)
        ip = ip[:10] + struct.pack("!H", ~s & 0xFFFF) + ip[12:]
        frame = b"\0" * 12 + b"\x08\x00" + ip + udp
        out.append(struct.pack("<IIII", t0 + i // 1000, (i % 1000) * 1000,
                               len(frame), len(frame)))
        out.append(frame)
    with open(path, "wb") as f:
        f.write(b"".join(out))


class UdpSink:
    """A UDP receiver on 127.0.0.1 that keeps every datagram, in a thread
    (started by start(), stopped by stop()). Asks for a large receive
    buffer; drops (if any) are reported by the caller from the counts.
    The kernel charges each small datagram about 2.3 KB of buffer on
    loopback (its skb, not its bytes), so a run of 2000 512-byte messages
    needs more than 4 MB when this thread is slow to run (a loaded
    machine): 64 MB leaves room for 25000."""

    def __init__(self, rcvbuf=64 << 20):
        import threading
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        so_rcvbufforce = 33  # Linux: past net.core.rmem_max, if root
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, so_rcvbufforce, rcvbuf)
        except OSError:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF,
                                 rcvbuf)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.rcvbuf = self.sock.getsockopt(socket.SOL_SOCKET,
                                           socket.SO_RCVBUF)
        self.datagrams = []
        self._stop = False
        self._t = threading.Thread(target=self._loop, daemon=True)

    def start(self):
        self._t.start()
        return self

    def _loop(self):
        while True:
            try:
                d = self.sock.recv(65535)
            except socket.timeout:
                if self._stop:
                    return
                continue
            except OSError:
                return
            self.datagrams.append(d)

    def stop(self, quiet=0.3):
        """Stops after |quiet| s without a datagram (bounded: 10 s)."""
        deadline = time.time() + 10
        n = -1
        while time.time() < deadline and n != len(self.datagrams):
            n = len(self.datagrams)
            time.sleep(quiet)
        self._stop = True
        self._t.join(timeout=5)
        self.sock.close()
        return self.datagrams


# ---------------------------------------------- the encoder's elements

# --pmacct-primitives TYPE, in record type order
PMACCT_TYPES = ["flow", "message", "io", "segment", "summary"]


def camel_to_snake(name):
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


def pmacct_elements(ana, pen):
    """{record type: {element id: snake name}} of --pmacct-primitives."""
    out = {}
    for t in PMACCT_TYPES:
        r = run([ana, "--pmacct-primitives", t, "--pen", str(pen)])
        els = {}
        for line in r.stdout.splitlines():
            m = re.match(r"name=(\S+) field_type=(\d+):(\d+) ", line)
            if m and int(m.group(2)) == pen:
                els[int(m.group(3))] = m.group(1)
        out[t] = els
    return out


# ------------------------------------------------------------ nfcapd

def udp_socket_state(port):
    """(rx_queue bytes, drops) of the UDP socket bound to 127.0.0.1:|port|
    from /proc/net/udp, or None."""
    want = "0100007F:%04X" % port
    try:
        with open("/proc/net/udp") as f:
            for line in f.readlines()[1:]:
                c = line.split()
                if c[1] == want:
                    return int(c[4].split(":")[1], 16), int(c[-1])
    except OSError:
        pass
    return None


def start_nfcapd(cl, nfcapd, work, bufsize=4194304):
    """nfcapd on a free 127.0.0.1 port writing into work/flows (one file
    an hour: nfdump -R reads them all), with socket buffer |bufsize|
    (nfcapd -B; None: the system default); returns (Popen, port, log
    path). Retries on another port if the bind fails; skips if binding is
    not permitted."""
    flows = os.path.join(work, "flows")
    os.makedirs(flows, exist_ok=True)
    logp = os.path.join(work, "nfcapd.log")
    for _attempt in range(5):
        port = free_udp_port()
        cmd = [nfcapd, "-b", "127.0.0.1", "-p", str(port), "-w", flows,
               "-t", "3600", "-v"]
        if bufsize:
            cmd += ["-B", str(bufsize)]
        with open(logp, "w") as lf:
            p = cl.proc(subprocess.Popen(cmd, stdout=lf,
                                         stderr=subprocess.STDOUT))
        deadline = time.time() + 10
        while time.time() < deadline:
            text = open(logp).read()
            if "Startup" in text and udp_socket_state(port) is not None:
                return p, port, logp
            if p.poll() is not None:
                break
            time.sleep(0.05)
        text = open(logp).read()
        stop_process(p, signal.SIGTERM, 5)
        if "ermission denied" in text or "not permitted" in text:
            skip("nfcapd may not bind 127.0.0.1: %s" % text.strip()[-300:])
        log("nfcapd did not start on port %d (retrying): %s"
            % (port, text.strip()[-300:]))
    raise RuntimeError("nfcapd did not start; last log: %s" % text[-1000:])


def wait_drained(port, timeout=10.0):
    """Waits until nfcapd's socket has an empty receive queue for 0.3 s
    (bounded by |timeout|)."""
    deadline = time.time() + timeout
    quiet = None
    while time.time() < deadline:
        st = udp_socket_state(port)
        if st is None or st[0] != 0:
            quiet = None
        elif quiet is None:
            quiet = time.time()
        elif time.time() - quiet >= 0.3:
            return
        time.sleep(0.05)


def parse_exporters(text):
    """nfdump -E: {domain: (sequence failures, packets, flows)}."""
    out = {}
    for line in text.splitlines():
        m = re.search(r"ID:\s*(\d+), Sequence failures:\s*(\d+), "
                      r"packets:\s*(\d+), flows:\s*(\d+)", line)
        if m:
            d = int(m.group(1))
            old = out.get(d, (0, 0, 0))
            out[d] = tuple(a + int(b) for a, b in zip(old, m.groups()[1:]))
    return out


class Checker:
    """Counts checks and failures; prints the first |limit| failures."""

    def __init__(self, limit=30):
        self.checks = 0
        self.failures = 0
        self.limit = limit

    def eq(self, what, expected, got):
        return self.ok(expected == got, what,
                       "expected %r, got %r" % (expected, got))

    def ok(self, cond, what, detail=""):
        self.checks += 1
        if not cond:
            self.failures += 1
            if self.failures <= self.limit:
                log("FAIL: %s%s" % (what, ": " + detail if detail else ""))
            elif self.failures == self.limit + 1:
                log("FAIL: ... (further failures not shown)")
        return cond
