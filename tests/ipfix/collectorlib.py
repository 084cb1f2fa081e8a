"""Shared helpers of the IPFIX collector tests (tests/ipfix/pmacct.py,
tests/ipfix/clickhouse.py): finding the collectors, loopback ports, running
rtel-sim and rtel-analyze, nfacctd (pmacct) and a private clickhouse-server
as child processes, and the IPFIX value conversions (NTP timestamps, "none"
values, ...).

Everything listens on 127.0.0.1 only. Every process started here is a child
in a session of its own (so that its helpers can be stopped with it), is
stopped with a bounded wait and, if it does not stop, killed.
"""
import errno
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import rtel_records  # noqa: E402 (tests/rtel_records.py)

SKIP = 77

# ----------------------------------------------------------------- setup


def skip(msg):
    print("SKIP: " + msg)
    sys.stdout.flush()
    sys.exit(SKIP)


def find_program(name, env_var=None):
    """The program |name|: $env_var if set, else on PATH, else in the
    sbin directories (nfacctd and clickhouse-server live in /usr/sbin,
    often not on a user's PATH). None if not found."""
    if env_var and os.environ.get(env_var):
        p = os.environ[env_var]
        return p if os.access(p, os.X_OK) else None
    p = shutil.which(name)
    if p:
        return p
    for d in ("/usr/sbin", "/usr/local/sbin", "/sbin"):
        p = os.path.join(d, name)
        if os.access(p, os.X_OK):
            return p
    return None


def need_tools():
    """(rtel_analyze, rtel_sim) from the test environment, or skip."""
    a = os.environ.get("RTEL_ANALYZE")
    s = os.environ.get("RTEL_SIM")
    if not a or not os.access(a, os.X_OK):
        skip("rtel-analyze not found (RTEL_ANALYZE)")
    if not s or not os.access(s, os.X_OK):
        skip("rtel-sim not found (RTEL_SIM)")
    return a, s


def need_loopback():
    """Skips unless this sandbox lets us bind UDP and TCP on 127.0.0.1."""
    for kind in (socket.SOCK_DGRAM, socket.SOCK_STREAM):
        try:
            s = socket.socket(socket.AF_INET, kind)
            try:
                s.bind(("127.0.0.1", 0))
            finally:
                s.close()
        except OSError as e:
            skip("cannot bind 127.0.0.1 (%s): the sandbox forbids it" % e)


def free_port(kind=socket.SOCK_DGRAM):
    """A port on 127.0.0.1 free just now (the caller retries on a race)."""
    s = socket.socket(socket.AF_INET, kind)
    try:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
    finally:
        s.close()


def make_tmpdir(tag):
    return tempfile.mkdtemp(prefix="rtel-ipfix-%s." % tag,
                            dir=os.environ.get("TMPDIR", "/tmp"))


def rmtree(path):
    if path:
        shutil.rmtree(path, ignore_errors=True)


def run(cmd, timeout=60, **kw):
    """Runs |cmd|; returns the CompletedProcess (text). Raises on a
    non-zero exit with the command and its stderr."""
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=timeout, **kw)
    if r.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), r.returncode,
                                                r.stderr.strip()))
    return r


def run_sim(sim, scenario, seed, out, points):
    """rtel-sim |scenario| into directory |out|; returns {point: pcap path}
    for |points| (rtel-sim writes OUT/POINT.pcap per observation point)."""
    os.makedirs(out, exist_ok=True)
    run([sim, "--scenario", scenario, "--seed", str(seed), "--out", out])
    paths = {}
    for p in points:
        f = os.path.join(out, p + ".pcap")
        if not os.path.exists(f):
            raise RuntimeError("rtel-sim %s: no %s (wrote %s)" % (
                scenario, f, sorted(os.listdir(out))))
        paths[p] = f
    return paths


def parse_ipfix_count(stderr):
    """The record count of rtel-analyze's 'ipfix: N records in M messages'
    line, or None."""
    for line in stderr.splitlines():
        if line.startswith("ipfix: ") and " records in " in line:
            return int(line.split()[1]), line
    return None, None


# every record option: rtel-analyze then prints, in delivery order, every
# record it exports, so the JSON line i (from 0) is the record of flowId
# i + 1 (rtel_ipfix(3), flowId)
ALL_RECORDS = ["--flows", "--messages", "--ios", "--segments", "--summary"]


def analyze_ipfix_cmd(analyze, port, files, domain, extra=()):
    """rtel-analyze with every record option, JSON out, IPFIX to UDP
    127.0.0.1:|port| (1452-byte messages, observation domain |domain|) from
    |files|, a list of (name, pcap path), plus |extra| options."""
    return ([analyze, "--format", "json"] + ALL_RECORDS
            + ["--ipfix", "127.0.0.1:%d" % port, "--mtu", "1500",
               "--domain", str(domain)] + list(extra) + ["--"]
            + ["%s=%s" % (p, f) for p, f in files])


def json_records(stdout, stderr, where):
    """The JSON records of an analyze_ipfix_cmd run; raises unless there
    are as many as its 'ipfix: N records' line says it exported."""
    lines = rtel_records.loads_lines(stdout)
    n, line = parse_ipfix_count(stderr)
    if n != len(lines):
        raise RuntimeError("%s: %d JSON records but IPFIX says %r" % (
            where, len(lines), line))
    return lines


# ------------------------------------------------- IPFIX value conversions

U64_NONE = (1 << 64) - 1      # RTEL_TSTAMP_NONE: all ones
DUR_NONE = 1 << 63            # RTEL_DURATION_NONE (-2^63) as unsigned
QPN_NONE = (1 << 32) - 1      # RTEL_QPN_NONE
NSID_ALL = (1 << 32) - 1      # RTEL_NSID_ALL
NTP_OFFSET = 2208988800       # seconds from 1900-01-01 to 1970-01-01


def ts_u64(v):
    """A JSON timestamp (ns, or None: left out) as the enterprise element
    carries it."""
    return U64_NONE if v is None else v


def dur_u64(v):
    """A JSON duration (signed ns, or None: left out) as pmacct prints a
    signed64: its unsigned two's complement; none is -2^63."""
    if v is None:
        return DUR_NONE
    return v & U64_NONE


def qpn_u32(v):
    return QPN_NONE if v is None else v


def ntp_to_ns(v):
    """dateTimeNanoseconds (RFC 7011 6.1.10: NTP seconds since 1900 and a
    2^-32 fraction) to ns since 1970, the fraction truncated; 0 (what the
    encoder writes for no time) to None."""
    if v == 0:
        return None
    sec = (v >> 32) - NTP_OFFSET
    frac = v & 0xFFFFFFFF
    return sec * 1000000000 + (frac * 1000000000 >> 32)


def ms_of(ns):
    """dateTimeMilliseconds of a ns time; the encoder writes 0 for none."""
    return 0 if ns is None else ns // 1000000


def pmacct_ts(ns):
    """pmacct's timestamp_start/_end (timestamps_since_epoch): 'sec.usec'
    of the dateTimeMilliseconds the encoder wrote for |ns|."""
    ms = ms_of(ns)
    return "%d.%06d" % (ms // 1000, ms % 1000 * 1000)


# ------------------------------------------------------------ nfacctd


def read_jsonl(path, partial_ok=False):
    """The JSON objects of |path| (a JSON Lines file that may be growing:
    with |partial_ok| an unfinished last line is left out)."""
    out = []
    try:
        with open(path) as f:
            data = f.read()
    except FileNotFoundError:
        return out
    lines = data.split("\n")
    if partial_ok and not data.endswith("\n"):
        lines = lines[:-1]
    for line in lines:
        if line.strip():
            out.append(json.loads(line))
    return out


def udp_socket_stats(port):
    """(rx_queue bytes, drops) of the UDP socket bound to 127.0.0.1:|port|,
    from /proc/net/udp; None if not found."""
    want = "0100007F:%04X" % port
    try:
        with open("/proc/net/udp") as f:
            next(f)
            for line in f:
                fld = line.split()
                if fld[1].upper() == want:
                    rx = int(fld[4].split(":")[1], 16)
                    return rx, int(fld[-1])
    except (OSError, ValueError, IndexError, StopIteration):
        pass
    return None


class Nfacctd:
    """nfacctd in the foreground (daemonize: false) on 127.0.0.1:|port|
    with one print plugin writing JSON lines to |out| (appending at each
    purge, every second: records show up while it runs), the custom
    primitives of |primitives| and the aggregate |aggregate| (a list).

    start() waits (bounded) for the log lines 'waiting for NetFlow/IPFIX
    data' (the core listens) and 'JSON: setting object handlers' (the
    print plugin is set up: records that nfacctd 1.7 receives before that
    reach the plugin only when it exits, not at its purges); stop() sends
    SIGINT (the plugin purges its cache and exits), waits, and kills the
    process group if it has to."""

    READY = "waiting for NetFlow/IPFIX data"
    PLUGIN_READY = "JSON: setting object handlers"

    def __init__(self, binary, workdir, name, primitives, aggregate):
        self.binary = binary
        self.dir = workdir
        self.name = name
        self.primitives = primitives
        self.aggregate = list(aggregate)
        self.conf = os.path.join(workdir, name + ".conf")
        self.log = os.path.join(workdir, name + ".log")
        self.out = os.path.join(workdir, name + ".json")
        self.proc = None
        self.port = None

    def _write_conf(self):
        lines = [
            "daemonize: false",
            "nfacctd_ip: 127.0.0.1",
            "nfacctd_port: %d" % self.port,
            "logfile: %s" % self.log,
            "aggregate_primitives: %s" % self.primitives,
            "timestamps_since_epoch: true",
            "timestamps_utc: true",
            # the kernel socket buffer (capped by net.core.rmem_max) and
            # the core -> plugin queue: a burst of a few hundred datagrams
            "nfacctd_pipe_size: 4194304",
            "plugin_pipe_size: 16777216",
            "plugins: print[p]",
            "print_output[p]: json",
            "print_output_file[p]: %s" % self.out,
            "print_output_file_append[p]: true",
            "print_refresh_time[p]: 1",
            "print_cache_entries[p]: 65537",
            "aggregate[p]: " + ", ".join(self.aggregate),
        ]
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")

    def start(self, timeout=15.0):
        for attempt in range(5):
            self.port = free_port(socket.SOCK_DGRAM)
            self._write_conf()
            for p in (self.log, self.out):
                if os.path.exists(p):
                    os.unlink(p)
            self.stdout = open(os.path.join(self.dir, self.name + ".stdout"),
                               "w")
            self.proc = subprocess.Popen(
                [self.binary, "-f", self.conf], stdin=subprocess.DEVNULL,
                stdout=self.stdout, stderr=subprocess.STDOUT,
                start_new_session=True)
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                text = self.log_text()
                if self.READY in text and self.PLUGIN_READY in text:
                    return self
                if self.proc.poll() is not None:
                    break
                time.sleep(0.02)
            text = self.log_text()
            self.kill()
            if "Address already in use" in text:
                continue  # lost the port race: another one
            raise RuntimeError("nfacctd %s did not start (%s):\n%s" % (
                self.name, "exited" if self.proc.returncode is not None
                else "timeout", text[-3000:]))
        raise RuntimeError("nfacctd %s: no port to bind" % self.name)

    def log_text(self):
        try:
            with open(self.log, errors="replace") as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def records(self, partial_ok=True):
        return read_jsonl(self.out, partial_ok)

    def wait_records(self, n, key="flow_id", timeout=20.0):
        """Waits until |n| distinct |key| values (a key, or a tuple of keys)
        were printed, or the socket dropped datagrams, or |timeout|.
        Returns (count, drops)."""
        keys = (key,) if isinstance(key, str) else tuple(key)
        deadline = time.monotonic() + timeout
        seen = 0
        drops = 0
        while time.monotonic() < deadline:
            st = udp_socket_stats(self.port)
            if st:
                drops = st[1]
            seen = len({tuple(r.get(k) for k in keys)
                        for r in self.records()})
            if seen >= n or drops:
                break
            time.sleep(0.1)
        return seen, drops

    def stop(self, timeout=15.0):
        """SIGINT, then wait; returns the exit status (None if killed)."""
        if self.proc is None or self.proc.poll() is not None:
            self._close()
            return None if self.proc is None else self.proc.returncode
        try:
            self.proc.send_signal(signal.SIGINT)
            self.proc.wait(timeout)
            # its plugin children go with it; make sure of it
            self._killpg(signal.SIGKILL)
            return self.proc.returncode
        except subprocess.TimeoutExpired:
            self.kill()
            return None
        finally:
            self._close()

    def _killpg(self, sig):
        try:
            os.killpg(self.proc.pid, sig)
        except OSError as e:
            if e.errno != errno.ESRCH:
                raise

    def kill(self):
        if self.proc is not None:
            self._killpg(signal.SIGKILL)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                pass
        self._close()

    def _close(self):
        f = getattr(self, "stdout", None)
        if f:
            f.close()
            self.stdout = None

    def problems(self):
        """The log's WARN and ERROR lines."""
        return [l for l in self.log_text().splitlines()
                if " WARN " in l or " ERROR " in l]


def collect(nfacctd, workdir, name, primitives, aggregate, export,
            key="flow_id", attempts=3):
    """Runs |export|(port) - an exporter that sends its records to
    127.0.0.1:port and returns (n, result), n the number of records it
    sent - against a fresh Nfacctd, waits until nfacctd printed n distinct
    |key| values (see wait_records: flowIds, or (domain, flowId) pairs for
    exporters whose flowIds overlap), and stops it. When the kernel
    dropped datagrams (a busy machine) it starts again with a fresh
    collector, up to |attempts| times. Returns (the stopped Nfacctd, its
    exit status, result)."""
    for attempt in range(attempts):
        col = Nfacctd(nfacctd, workdir, "%s-%d" % (name, attempt),
                      primitives, aggregate).start()
        try:
            n, result = export(col.port)
            seen, drops = col.wait_records(n, key)
            status = col.stop()
        except BaseException:
            col.kill()
            raise
        if not drops or attempt + 1 == attempts:
            return col, status, result
        print("%s: %d UDP datagrams dropped by the socket, again" % (
            name, drops))
    raise AssertionError("not reached")


def primitive_names(path):
    """The name= of every line of a pmacct aggregate_primitives file."""
    names = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("name="):
                names.append(line.split()[0][len("name="):])
    return names


# ------------------------------------------------------------ ClickHouse

CLICKHOUSE_CONFIG = """<?xml version="1.0"?>
<yandex>
  <logger>
    <level>information</level>
    <log>{dir}/server.log</log>
    <errorlog>{dir}/server.err.log</errorlog>
    <console>0</console>
  </logger>
  <listen_host>127.0.0.1</listen_host>
  <tcp_port>{tcp}</tcp_port>
  <http_port>{http}</http_port>
  <path>{dir}/data/</path>
  <tmp_path>{dir}/tmp/</tmp_path>
  <user_files_path>{dir}/user_files/</user_files_path>
  <format_schema_path>{dir}/format_schemas/</format_schema_path>
  <users_config>{dir}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mark_cache_size>67108864</mark_cache_size>
  <uncompressed_cache_size>67108864</uncompressed_cache_size>
  <max_concurrent_queries>16</max_concurrent_queries>
  <mlock_executable>false</mlock_executable>
</yandex>
"""

CLICKHOUSE_USERS = """<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
  <users>
    <default>
      <password></password>
      <networks><ip>127.0.0.1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </default>
  </users>
  <quotas><default></default></quotas>
</yandex>
"""


class ClickHouse:
    """A private clickhouse-server: a child process in a session of its
    own, with a configuration of its own in |workdir| (data, logs,
    temporary files there too), listening on 127.0.0.1 only, on free TCP
    (native protocol) and HTTP ports, user default without password from
    127.0.0.1 only.

    start() waits (bounded) until the HTTP port answers /ping; query()
    runs clickhouse-client against it; stop() sends SIGTERM, waits and
    kills the process group if it has to."""

    def __init__(self, server, client, workdir):
        self.server = server
        self.client = client
        self.dir = os.path.join(workdir, "clickhouse")
        self.conf = os.path.join(self.dir, "config.xml")
        self.proc = None
        self.tcp = self.http = None
        self.stdout = None

    def log_text(self):
        text = ""
        for name in ("server.err.log", "stdout"):
            try:
                with open(os.path.join(self.dir, name),
                          errors="replace") as f:
                    text += f.read()
            except FileNotFoundError:
                pass
        return text

    def _ping(self):
        try:
            with socket.create_connection(("127.0.0.1", self.http),
                                          timeout=1.0) as s:
                s.sendall(b"GET /ping HTTP/1.0\r\n\r\n")
                data = b""
                while True:
                    b = s.recv(4096)
                    if not b:
                        break
                    data += b
            return data.endswith(b"Ok.\n")
        except OSError:
            return False

    def start(self, timeout=30.0):
        os.makedirs(self.dir, exist_ok=True)
        with open(os.path.join(self.dir, "users.xml"), "w") as f:
            f.write(CLICKHOUSE_USERS)
        for attempt in range(5):
            self.tcp = free_port(socket.SOCK_STREAM)
            self.http = free_port(socket.SOCK_STREAM)
            if self.tcp == self.http:
                continue
            with open(self.conf, "w") as f:
                f.write(CLICKHOUSE_CONFIG.format(dir=self.dir, tcp=self.tcp,
                                                 http=self.http))
            for name in ("server.err.log", "server.log"):
                p = os.path.join(self.dir, name)
                if os.path.exists(p):
                    os.unlink(p)
            self.stdout = open(os.path.join(self.dir, "stdout"), "w")
            self.proc = subprocess.Popen(
                [self.server, "--config-file=" + self.conf],
                stdin=subprocess.DEVNULL, stdout=self.stdout,
                stderr=subprocess.STDOUT, cwd=self.dir,
                start_new_session=True)
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    break
                if self._ping():
                    return self
                time.sleep(0.05)
            text = self.log_text()
            exited = self.proc.poll() is not None
            self.kill()
            if "Address already in use" in text:
                continue  # lost a port race: others
            raise RuntimeError("clickhouse-server did not start (%s):\n%s"
                               % ("exited" if exited else "timeout",
                                  text[-3000:]))
        raise RuntimeError("clickhouse-server: no ports to bind")

    def query(self, sql, database=None, data=None, multi=False,
              settings=None, timeout=60):
        """Runs |sql| with clickhouse-client (|data| on its standard input,
        e.g. the rows of an INSERT ... FORMAT ...); returns its output.
        Raises with the server's message if it fails."""
        cmd = [self.client, "--host", "127.0.0.1", "--port", str(self.tcp)]
        if database:
            cmd += ["--database", database]
        if multi:
            cmd.append("--multiquery")
        for k, v in sorted((settings or {}).items()):
            cmd.append("--%s=%s" % (k, v))
        cmd += ["--query", sql]
        r = subprocess.run(cmd, input=data, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True,
                           timeout=timeout)
        if r.returncode != 0:
            raise RuntimeError("clickhouse-client: exit %d: %s\nquery: %s"
                               % (r.returncode, r.stderr.strip(),
                                  sql[:2000]))
        return r.stdout

    def json_rows(self, sql, database=None):
        """The rows of |sql| (a SELECT without FORMAT), JSONEachRow with the
        64-bit integers as JSON numbers."""
        out = self.query(sql + " FORMAT JSONEachRow", database,
                         settings={"output_format_json_quote_64bit_integers":
                                   0})
        return [json.loads(l) for l in out.splitlines() if l.strip()]

    def stop(self, timeout=30.0):
        """SIGTERM, then wait; returns the exit status (None if killed)."""
        if self.proc is None or self.proc.poll() is not None:
            self._close()
            return None if self.proc is None else self.proc.returncode
        try:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout)
            return self.proc.returncode
        except subprocess.TimeoutExpired:
            self.kill()
            return None
        finally:
            self._close()

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError as e:
                if e.errno != errno.ESRCH:
                    raise
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                pass
        self._close()

    def _close(self):
        if self.stdout:
            self.stdout.close()
            self.stdout = None
