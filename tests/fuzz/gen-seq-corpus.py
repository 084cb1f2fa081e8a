#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Write the seed corpus of the sequence harness (tests/fuzz/corpus-seq/).

Runs rtel-sim scenarios (examples/rtel-sim, see rtel-sim(1)), cuts the
packets they capture into short windows and encodes each window in the
input format of tests/fuzz/fuzz_seq.c (described at the top of that file):
a 32-byte settings header, then 16-byte events: the window's connections
(CONN), its packets (PACKET, with their explicit PSNs, observation points,
time steps, ECN marks, NVMe-oF CIDs and data lengths), and, depending on
the profile chosen for the window, timer calls, polling schedules, ports,
roles and alarm thresholds.

The packets are classified from the simulator's ground truth (truth.jsonl:
connection, direction, what the packet is, its I/O); the frames are read
only for what the truth does not say (RETH addresses, SGL addresses of
commands). The harness rebuilds every frame from the events with the test
packet builder, so the seeds carry the sequence, not the bytes.

Files are named SCENARIO-wN-PROFILE.bin; the output is deterministic for a
given rtel-sim. Files whose name starts with "regress-" (inputs of fixed
findings) are kept.

Usage: /usr/bin/python3 tests/fuzz/gen-seq-corpus.py RTEL_SIM [OUTDIR]
"""

import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

HDR = 32
EV = 16
WINDOW = 90          # packets per window
PACKETS = 1500       # packets each scenario simulates
MAX_WINDOWS = 3

# scenarios skipped: too big to be worth it (rdma-flood runs 20000 QPs)
SKIP = {"rdma-flood"}


# ------------------------------------------------------------- encoding
def dt16(dt):
    """The largest dt16 value not above |dt| ns: (mant, decoded)."""
    exp = 0
    while (dt >> (2 * exp)) > 0xFFF and exp < 15:
        exp += 1
    mant = min(dt >> (2 * exp), 0xFFF)
    return (exp << 12) | mant, mant << (2 * exp)


def le16(v):
    return struct.pack("<H", v & 0xFFFF)


def le24(v):
    return struct.pack("<I", v & 0xFFFFFF)[:3]


class Profile:
    """Settings header bytes and what events to add."""

    def __init__(self, name, hdr, timers=0, poll=False, alarms=False,
                 roles=False, flushes=False):
        self.name = name
        self.hdr = bytes(hdr) + bytes(HDR - len(hdr))
        self.timers = timers      # a TIMER event every this many packets
        self.poll = poll          # ports and a polling schedule
        self.alarms = alarms      # thresholds and a baseline
        self.roles = roles        # observation point roles
        self.flushes = flushes    # a flush in the middle


def hdr(flags=0, flows=15, pairs=0, queues=7, ios=31, joins=0, aggs=7,
        ports=7, akeys=15, idle=0, active=0, iot=0, join=0, report=0,
        stats=0, seed=0, fail_cb=0, fail_at=0, alloc=0, base=0, timed=0):
    h = bytearray(HDR)
    h[0] = flags
    h[1], h[2], h[3], h[4], h[5] = flows, pairs, queues, ios, joins
    h[6], h[7], h[8] = aggs, ports, akeys
    h[9:11] = le16(idle)
    h[11:13] = le16(active)
    h[13:15] = le16(iot)
    h[15:17] = le16(join)
    h[17:19] = le16(report)
    h[19:21] = le16(stats)
    h[21] = seed
    h[22], h[23], h[24], h[25] = fail_cb, fail_at, alloc, base
    h[26] = timed
    return h


def dur(ns):
    return dt16(ns)[0]


PROFILES = [
    # roomy tables, default timers
    Profile("plain", hdr()),
    # tiny tables: flows, pairs, queues, I/Os, joins and aggregates evict
    Profile("tiny", hdr(flows=2, pairs=3, queues=1, ios=3, joins=2, aggs=1,
                        akeys=2), timers=20),
    # short timers run often, bursts (rtel_ctx_read_pkts), periods
    Profile("timers", hdr(flags=0x20, idle=dur(20000), active=dur(50000),
                          iot=dur(1000000), join=dur(200000),
                          report=dur(100000), stats=dur(50000)), timers=8,
            flushes=True),
    # no guessing, ICRC checks, a failing on_io, a failing allocation
    Profile("strict", hdr(flags=0x18, fail_cb=5, fail_at=40, alloc=7),
            timers=16, roles=True),
    # polling: three ports, one per observation point, and alarms
    Profile("poll", hdr(report=dur(200000)), timers=4, poll=True,
            alarms=True, roles=True),
]

# Written for the first window of every scenario, besides its profile
# from PROFILES: the flow table alone (NVMe-oF off), a small table and
# short timeouts, so that the shadow context (no on_packet) takes the hub's
# fused fast path (lib/rtel_ctx.c read_fast()) and the checked one the
# general path, record for record: "flows" one packet at a time; "flows-
# burst" in bursts (the shadow's look-ahead) and with the timed pair, its
# on_message failing at the sixth call.
FLOWS = [Profile("flows", hdr(flags=0x04, flows=6, idle=dur(100000),
                              active=dur(400000)), timers=12),
         Profile("flows-burst", hdr(flags=0x24, flows=6, idle=dur(100000),
                                    active=dur(400000), fail_cb=4,
                                    fail_at=5, timed=1), timers=12)]


# ------------------------------------------------------------- frames
def read_pcap(path):
    """[(caplen, origlen, bytes)] of a nanosecond pcap."""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    end = "<" if magic in (0xA1B23C4D, 0xA1B2C3D4) else ">"
    off, out = 24, []
    while off + 16 <= len(data):
        _, _, cap, orig = struct.unpack(end + "IIII", data[off:off + 16])
        out.append((cap, orig, data[off + 16:off + 16 + cap]))
        off += 16 + cap
    return out


def bth_offset(b):
    """Offset of the BTH of a RoCEv2 frame (VLANs, IPv4/IPv6, ERSPAN II /
    III over GRE), or None."""
    o = 12
    while o + 2 <= len(b) and b[o:o + 2] in (b"\x81\x00", b"\x88\xa8"):
        o += 4
    if o + 2 > len(b):
        return None
    et = struct.unpack("!H", b[o:o + 2])[0]
    o += 2
    if et == 0x0800:
        if o + 20 > len(b):
            return None
        ihl = (b[o] & 0xF) * 4
        proto = b[o + 9]
        if proto == 47:  # GRE: ERSPAN
            g = o + ihl
            flags, gp = struct.unpack("!HH", b[g:g + 4])
            g += 4 + (4 if flags & 0x1000 else 0) + (4 if flags & 0x2000
                                                     else 0)
            if gp == 0x88BE:
                g += 8
            elif gp == 0x22EB:
                g += 12 + (8 if b[g + 11] & 1 else 0)
            else:
                return None
            return bth_offset(b[g:]) and g + bth_offset(b[g:])
        return o + ihl + 8
    if et == 0x86DD:
        return o + 40 + 8
    return None


# ------------------------------------------------------------- the sim
def run_sim(sim, scenario, out):
    subprocess.run([sim, "--scenario", scenario, "--seed", "1", "--out", out,
                    "--packets", str(PACKETS), "--packet-truth"],
                   check=True, stdout=subprocess.DEVNULL)
    meta, conns, pkts, ios = None, {}, [], {}
    with open(os.path.join(out, "truth.jsonl")) as f:
        for line in f:
            d = json.loads(line)
            t = d["type"]
            if t == "meta":
                meta = d
            elif t == "conn":
                conns[d["conn"]] = d
            elif t == "pkt":
                pkts.append(d)
            elif t == "io" and d["io"] not in ios:
                ios[d["io"]] = d
    frames = {}
    for o in meta["obs"]:
        frames[o["name"]] = read_pcap(os.path.join(out, o["file"]))
    return meta, conns, pkts, ios, frames


def scenarios(sim):
    out = subprocess.run([sim, "--list-scenarios"], check=True,
                         capture_output=True, text=True).stdout
    names = []
    for line in out.splitlines():
        if line and not line.startswith(" "):
            names.append(line.split()[0])
    return names


# ------------------------------------------------------------- events
SEND_VAR = {0x04: 0, 0x00: 1, 0x01: 2, 0x02: 3, 0x03: 4, 0x05: 5, 0x16: 6,
            0x17: 7}
WRITE_VAR = {0x06: 0, 0x07: 1, 0x08: 2, 0x09: 3, 0x0A: 4, 0x0B: 5}
RRESP_VAR = {0x0D: 0, 0x0E: 1, 0x0F: 2, 0x10: 3}
NVWR_VAR = {0x06: 0, 0x07: 1, 0x08: 2, 0x0A: 3, 0x09: 4, 0x0B: 5}
FCTYPE = {"propget": 0x04, "propset": 0x00}


def addr_index(ip):
    """(pool, index) of an rtel-sim address: 10.P.x.y or fd00:0:0:P::n."""
    if ":" in ip:
        import ipaddress
        b = ipaddress.IPv6Address(ip).packed
        return b[7], b[15] - 1
    a = [int(x) for x in ip.split(".")]
    return a[1], (a[2] << 8 | a[3]) - 1


class Window:
    def __init__(self, meta, conns, ios, frames):
        self.meta, self.conns, self.ios, self.frames = meta, conns, ios, \
            frames
        self.slot = {}       # conn id -> slot
        self.events = []
        self.clock = None
        self.sgl_va = {}     # io id -> SGL address of its command
        self.obs = {o["name"]: i for i, o in enumerate(meta["obs"][:3])}

    def conn_event(self, cid_, first_psn):
        c = self.conns[cid_]
        s = len(self.slot)
        self.slot[cid_] = s
        v6 = self.meta["ipv6"]
        pa, ia = addr_index(c["a"])
        pb, ib = addr_index(c["b"])
        e = bytearray(EV)
        e[0] = 8
        e[1] = s | (8 if pb == 1 else 0)
        e[2] = (2 if v6 else 0) | (ia & 3) << 2 | (ib & 3) << 4 | \
            (0x80 if self.meta.get("vlan") else 0)
        e[3:6] = le24(c["a_qpn"])
        e[6:9] = le24(c["b_qpn"])
        e[9:12] = le24(first_psn.get(0, c["a_psn0"]))
        e[12:15] = le24(first_psn.get(1, c["b_psn0"]))
        e[15] = c["a_sport"] & 0xFF
        return bytes(e)

    def frame(self, p):
        fr = self.frames[p["obs"]]
        i = p["frame"] - 1
        return fr[i][2] if 0 <= i < len(fr) else b""

    def reth(self, p):
        b = self.frame(p)
        o = bth_offset(b)
        if o is None or o + 28 > len(b):
            return None
        va, rkey, ln = struct.unpack("!QII", b[o + 12:o + 28])
        return va, rkey, ln

    def sqe(self, p):
        b = self.frame(p)
        o = bth_offset(b)
        if o is None or o + 12 + 64 > len(b):
            return None
        return b[o + 12:o + 12 + 64]

    def packet(self, p, port_of_obs):
        if p["obs"] not in self.obs:
            return None
        c = self.slot[p["conn"]]
        op, what, nv = p["op"], p["what"], p.get("nvme")
        io = self.ios.get(p.get("io"))
        d = p["dir"]
        e = bytearray(EV)
        obs = self.obs[p["obs"]]
        port = port_of_obs[obs]
        e[0] = obs << 4 | (port & 3) << 6
        kind, var, rev = 0, 0, d
        ln = p["len"]
        cid = io["cid"] if io else 0
        a13 = a14 = a15 = 0
        if what == "cm":
            kind = 8
            var = {"req": 0, "rep": 1, "rtu": 2}.get(p.get("cm"), 6)
            natural = {0: 0, 1: 1, 2: 0}.get(var, 0)
            rev = d ^ natural
            sp = self.conns[p["conn"]].get("service_port", 4420)
            a13 = {4420: 0, 4421: 2, 18515: 3}.get(sp, 4)
            a14 = c
            cid = self.conns[p["conn"]].get("qid", 0) or 0
        elif what in ("ack", "nak", "rnr_nak"):
            kind = 4
            syn = p.get("syndrome", 0x1F)
            if op == 0x12:
                var = 5
            elif syn == 0x1F:
                var = 0
            elif syn == 0x60:
                var = 1
            elif (syn & 0x60) == 0x20:
                var, a13 = 2, syn & 0x1F
            else:
                var, a13 = 4, syn
        elif what == "cnp":
            kind = 5
        elif what == "rreq":
            r = self.reth(p)
            if nv == "wreq" and io:
                kind, rev = 13, d ^ 1
                if r:
                    off = (r[0] - self.sgl_va.get(p["io"], r[0])) // 4096
                    a15 = off & 0x7F
                    ln = r[2] // 64
            else:
                kind = 2
                if r:
                    ln = r[2] >> 4
        elif nv == "cmd" and io and op in (0x00, 0x04):
            kind, rev = 9, d
            sqe = self.sqe(p)
            if sqe:
                self.sgl_va[p["io"]] = struct.unpack("<Q", sqe[24:32])[0]
            k = io["kind"]
            inv = sqe is not None and sqe[39] == 0x4F
            if k == "read":
                var = 7 if inv else 0
            elif k == "write" and io.get("incapsule"):
                var = 3 if op == 0x00 else 2
            elif k == "write":
                var = 8 if inv else 1
            elif k == "flush":
                var = 4
            elif k == "connect":
                var, a14 = 5, io.get("qid", 0)
            elif k in FCTYPE:
                var, a13 = 6, FCTYPE[k]
            else:
                var = 9
            if var in (0, 1, 7, 8, 9):
                ln = (io.get("len") or 0) // 64
                a13 = io.get("nsid", 1) & 0xFF
                a14 = (io.get("slba", 0) // 8) & 0xFF
            elif var == 2:
                ln = io.get("len") or 0
                a13 = io.get("nsid", 1) & 0xFF
            elif var == 3:
                ln = io.get("len") or 0
                a13 = io.get("nsid", 1) & 0xFF
                a15 = min(255, max(0, p["len"] - 64) // 4)
        elif nv == "cmd":
            kind, var = 10, 1 if op == 0x02 else 0
        elif nv == "rsp" and io:
            kind, rev = 11, d ^ 1
            var = 1 if op == 0x17 else 0
            a13 = io.get("sc", 0) & 0xFF
            a14 = io.get("sct", 0) & 7
        elif nv == "rdata" and io and op in NVWR_VAR:
            kind, rev, var = 12, d ^ 1, NVWR_VAR[op]
            r = self.reth(p)
            if r:
                a13 = min(255, r[2] // 4096)
                a15 = ((r[0] - self.sgl_va.get(p["io"], r[0])) // 4096) & 0x7F
        elif nv == "wdata" and op in RRESP_VAR:
            kind, var = 14, RRESP_VAR[op]
        elif op & 0x1F in SEND_VAR and op < 0x20:
            kind, var = 0, SEND_VAR[op & 0x1F]
        elif op & 0x1F in WRITE_VAR and op < 0x20:
            kind, var = 1, WRITE_VAR[op & 0x1F]
            r = self.reth(p)
            if r:
                a13, a14 = (r[2] >> 12) & 0xFF, r[2] & 0xFF
        elif op & 0x1F in RRESP_VAR and op < 0x20:
            kind, var = 3, RRESP_VAR[op & 0x1F]
        else:
            return None
        e[1] = kind
        e[2] = c | (rev & 1) << 3 | (var & 15) << 4
        flags = 0x10  # explicit PSN
        flags |= 1 if p.get("ce") else 0
        flags |= 2 if p.get("fecn") else 0
        flags |= 4 if p.get("becn") else 0
        flags |= 0x80 if port & 4 else 0
        if p["cap"] < p["orig"] and kind not in (9, 11, 12, 13):
            flags |= 0x20
            a15 = max(0, min(255, (p["cap"] - 40) // 2))
        if p["ts"] >= self.clock:
            code, step = dt16(p["ts"] - self.clock)
            self.clock += step
        else:
            # a point whose clock is behind: out of order, the clock stays
            flags |= 0x08
            code, step = dt16(self.clock - p["ts"])
        e[3] = flags
        e[4:6] = le16(code)
        e[6:9] = le24(p["psn"])
        e[9:11] = le16(cid)
        e[11:13] = le16(min(ln, 0xFFFF))
        e[13], e[14], e[15] = a13 & 0xFF, a14 & 0xFF, a15 & 0xFF
        return bytes(e)


def timer_event(mode, dt=0):
    e = bytearray(EV)
    e[0] = 9
    e[1] = mode
    e[2:4] = le16(dur(dt))
    return bytes(e)


def prologue(prof, nobs):
    ev = []
    if prof.roles:
        for i in range(min(nobs, 2)):  # h (compute side), t (storage side)
            e = bytearray(EV)
            e[0], e[1], e[2] = 12, i, 1 + i
            ev.append(bytes(e))
    if prof.poll:
        for i in range(3):
            e = bytearray(EV)
            e[0], e[1], e[2], e[3] = 11, i, 3, 1
            ev.append(bytes(e))
        e = bytearray(EV)
        e[0], e[1], e[2] = 10, 1, 2        # polling, 2 ports per slot
        e[3:5] = le16(dur(30000))          # 30 us slots
        e[5:7] = le16(dur(100000))         # alarm priority 100 us
        ev.append(bytes(e))
    if prof.alarms:
        # IOL above 3 us per pair and per port, FCT above 1 us per pair
        # (the windows' I/Os and flows straddle them, and their 10 %
        # hysteresis), a baseline of DAL (k = 3)
        for kind, metric, scope, val, warm in ((0, 1, 1, 27, 0),
                                               (0, 1, 2, 27, 0),
                                               (0, 4, 1, 2, 0),
                                               (1, 2, 2, 13, 4)):
            e = bytearray(EV)
            e[0], e[1], e[2], e[3], e[4], e[5] = 13, kind, metric, scope, \
                val, warm
            ev.append(bytes(e))
    return ev


def encode_window(meta, conns, ios, frames, pkts, prof):
    w = Window(meta, conns, ios, frames)
    off = {o["name"]: o.get("offset_ns", 0) for o in meta["obs"]}
    nobs = min(len(meta["obs"]), 3)
    port_of_obs = list(range(3))
    first_psn = {}
    for p in pkts:
        if p["what"] == "cm":
            continue
        first_psn.setdefault(p["conn"], {}).setdefault(p["dir"], p["psn"])
    body = []
    sent = 0
    mid = len(pkts) // 2
    for i, p in enumerate(pkts):
        if p["conn"] not in w.slot:
            if len(w.slot) == 8 or p["conn"] not in conns:
                continue
            body.append(w.conn_event(p["conn"], first_psn.get(p["conn"],
                                                             {})))
        if w.clock is None:
            w.clock = p["ts"] - off.get(p["obs"], 0) + max(off.values())
        e = w.packet(p, port_of_obs)
        if e is None:
            continue
        body.append(e)
        sent += 1
        if prof.timers and sent % prof.timers == 0:
            body.append(timer_event(0 if (sent // prof.timers) % 2 else 1,
                                    5000))
        if prof.flushes and i == mid:
            e = bytearray(EV)
            e[0] = 14
            body.append(bytes(e))
    # the time base: the window's own first packet (header byte 25 = 0:
    # 1.7e18 ns, as rtel-sim's pcaps are)
    return prof.hdr + b"".join(prologue(prof, nobs) + body)


def windows(pkts):
    """Start indices of up to MAX_WINDOWS windows: the beginning, the first
    retransmission (or NAK), the middle."""
    starts = [0]
    for i, p in enumerate(pkts):
        if p.get("why") == "retx" or p["what"] in ("nak", "rnr_nak"):
            starts.append(max(0, i - 30))
            break
    starts.append(max(0, len(pkts) // 2))
    out = []
    for s in starts:
        if all(abs(s - o) >= WINDOW // 2 for o in out):
            out.append(s)
    return out[:MAX_WINDOWS]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sim = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "corpus-seq")
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(out):
        if name.endswith(".bin") and not name.startswith("regress-"):
            os.unlink(os.path.join(out, name))
    tmp = tempfile.mkdtemp(prefix="rtel-seq-corpus.")
    n = total = 0
    try:
        for k, sc in enumerate(scenarios(sim)):
            if sc in SKIP:
                continue
            d = os.path.join(tmp, sc)
            meta, conns, pkts, ios, frames = run_sim(sim, sc, d)
            # in true time: each point's timestamps keep its clock offset
            off = {o["name"]: o.get("offset_ns", 0) for o in meta["obs"]}
            pkts.sort(key=lambda p: p["ts"] - off.get(p["obs"], 0))
            for j, s in enumerate(windows(pkts)):
                profs = [PROFILES[(k + j) % len(PROFILES)]]
                if j == 0:
                    profs += FLOWS
                for prof in profs:
                    data = encode_window(meta, conns, ios, frames,
                                         pkts[s:s + WINDOW], prof)
                    name = "%s-w%d-%s.bin" % (sc, j, prof.name)
                    with open(os.path.join(out, name), "wb") as f:
                        f.write(data)
                    n += 1
                    total += len(data)
            shutil.rmtree(d)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("wrote %d seeds (%d bytes) to %s" % (n, total, out))


if __name__ == "__main__":
    main()
