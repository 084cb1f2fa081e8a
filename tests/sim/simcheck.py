"""Shared helpers for the rtel-sim tests (tests/sim/*.py).

Independent of rtel-sim's C code and of the library: a small pcap reader and
RoCEv2 frame decoder written from the specifications, so that the tests
cross-check the simulator's encoder and its ground truth.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

SKIP = 77


def sim_binary():
    """Path of the rtel-sim program under test."""
    env = os.environ.get("RTEL_SIM")
    if env:
        return env
    for cand in (os.path.join(os.environ.get("top_builddir", "."), "examples/rtel-sim/rtel-sim"),
                 "examples/rtel-sim/rtel-sim"):
        if os.path.exists(cand):
            return cand
    sys.stderr.write("rtel-sim binary not found (set RTEL_SIM)\n")
    sys.exit(99)


class Fail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def tmpdir(tag):
    base = os.environ.get("TMPDIR", "/tmp")
    return tempfile.mkdtemp(prefix="rtel-sim-%s." % tag, dir=base)


def run_sim(scenario, seed, out, *extra):
    cmd = [sim_binary(), "--scenario", scenario, "--seed", str(seed), "--out", out] + list(extra)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if r.returncode != 0:
        raise Fail("%s failed (%d): %s" % (" ".join(cmd), r.returncode, r.stderr.strip()))
    return r.stdout


def read_pcap(path):
    """[(ts_ns, caplen, origlen, bytes)] of a nanosecond Ethernet pcap."""
    with open(path, "rb") as f:
        data = f.read()
    check(len(data) >= 24, "%s: short pcap" % path)
    magic, vmaj, vmin, _, _, snap, link = struct.unpack_from("<IHHiIII", data, 0)
    check(magic == 0xA1B23C4D, "%s: magic %#x is not the nanosecond one" % (path, magic))
    check((vmaj, vmin) == (2, 4), "%s: version %d.%d" % (path, vmaj, vmin))
    check(link == 1, "%s: linktype %d is not Ethernet" % (path, link))
    out = []
    off = 24
    while off < len(data):
        check(off + 16 <= len(data), "%s: truncated record header" % path)
        sec, nsec, cap, orig = struct.unpack_from("<IIII", data, off)
        check(nsec < 1000000000, "%s: ns field %d" % (path, nsec))
        check(cap <= orig and cap <= snap, "%s: caplen %d origlen %d snaplen %d" % (path, cap, orig, snap))
        off += 16
        check(off + cap <= len(data), "%s: truncated record" % path)
        out.append((sec * 1000000000 + nsec, cap, orig, data[off:off + cap]))
        off += cap
    return out


def load_truth(path):
    recs = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            try:
                recs.append(json.loads(line))
            except ValueError as e:
                raise Fail("%s:%d: not JSON: %s" % (path, n, e))
    check(recs and recs[0].get("type") == "meta", "%s: first record is not meta" % path)
    check(recs[-1].get("type") == "summary", "%s: last record is not summary" % path)
    return recs


# ---------------------------------------------------------------- frame decoding

EXT = {  # opcode -> (RETH, AETH, DETH, ImmDt/IETH) lengths in order
    0x06: "R", 0x0A: "R", 0x0B: "RI", 0x0C: "R", 0x03: "I", 0x05: "I", 0x09: "I",
    0x16: "I", 0x17: "I", 0x11: "A", 0x0D: "A", 0x0F: "A", 0x10: "A", 0x64: "D",
}


def ip_str(b, v6):
    if not v6:
        return ".".join(str(x) for x in b)
    return ":".join("%x" % ((b[i] << 8) | b[i + 1]) for i in range(0, 16, 2))


def decode(frame):
    """Decode Ethernet [VLAN] [ERSPAN II/III over GRE] IPv4/IPv6 UDP 4791 BTH.

    Returns a dict; missing trailing parts (truncated frames) are None."""
    d = {"erspan": None, "vlan": None}
    off = 12
    et = struct.unpack_from(">H", frame, off)[0]
    off += 2
    if et == 0x8100:
        d["vlan"] = struct.unpack_from(">H", frame, off)[0] & 0xFFF
        et = struct.unpack_from(">H", frame, off + 2)[0]
        off += 4
    if et == 0x0800 and frame[off + 9] == 47:  # GRE: ERSPAN
        ihl = (frame[off] & 15) * 4
        g = off + ihl
        flags, proto = struct.unpack_from(">HH", frame, g)
        goff = g + 4 + (4 if flags & 0x1000 else 0)
        if proto == 0x88BE:
            d["erspan"] = 2
            w1 = struct.unpack_from(">H", frame, goff + 2)[0]
            d["erspan_t"] = (w1 >> 10) & 1
            goff += 8
        elif proto == 0x22EB:
            d["erspan"] = 3
            w1 = struct.unpack_from(">H", frame, goff + 2)[0]
            d["erspan_t"] = (w1 >> 10) & 1
            goff += 12
        else:
            raise Fail("unknown GRE protocol %#x" % proto)
        inner = decode(frame[goff:])
        inner["erspan"] = d["erspan"]
        inner["erspan_t"] = d["erspan_t"]
        inner["inner_off"] = goff
        return inner
    d["l3off"] = off
    if et == 0x0800:
        d["v6"] = False
        ihl = (frame[off] & 15) * 4
        d["tos"] = frame[off + 1]
        d["iplen"] = struct.unpack_from(">H", frame, off + 2)[0]
        d["ttl"] = frame[off + 8]
        d["src"] = ip_str(frame[off + 12:off + 16], False)
        d["dst"] = ip_str(frame[off + 16:off + 20], False)
        check(frame[off + 9] == 17, "not UDP")
        off += ihl
    elif et == 0x86DD:
        d["v6"] = True
        w = struct.unpack_from(">I", frame, off)[0]
        d["tos"] = (w >> 20) & 0xFF
        d["ttl"] = frame[off + 7]
        d["src"] = ip_str(frame[off + 8:off + 24], True)
        d["dst"] = ip_str(frame[off + 24:off + 40], True)
        check(frame[off + 6] == 17, "not UDP")
        off += 40
    else:
        raise Fail("ethertype %#x" % et)
    d["udpoff"] = off
    sport, dport, ulen, ucs = struct.unpack_from(">HHHH", frame, off)
    check(dport == 4791, "UDP dport %d" % dport)
    d["sport"], d["ulen"], d["ucsum"] = sport, ulen, ucs
    d["complete"] = len(frame) >= off + ulen
    off += 8
    if len(frame) < off + 12:
        d["opcode"] = None
        return d
    b = frame[off:off + 12]
    d["opcode"] = b[0]
    d["se"] = b[1] >> 7
    d["pad"] = (b[1] >> 4) & 3
    d["pkey"] = struct.unpack_from(">H", b, 2)[0]
    d["fecn"] = b[4] >> 7
    d["becn"] = (b[4] >> 6) & 1
    d["dqpn"] = struct.unpack_from(">I", b, 4)[0] & 0xFFFFFF
    d["ackreq"] = b[8] >> 7
    d["psn"] = struct.unpack_from(">I", b, 8)[0] & 0xFFFFFF
    off += 12
    for h in EXT.get(d["opcode"], ""):
        n = {"R": 16, "A": 4, "D": 8, "I": 4}[h]
        if len(frame) < off + n:
            return d
        if h == "R":
            d["va"], d["rkey"], d["dmalen"] = struct.unpack_from(">QII", frame, off)
        elif h == "A":
            d["syndrome"] = frame[off]
            d["msn"] = struct.unpack_from(">I", frame, off)[0] & 0xFFFFFF
        elif h == "D":
            d["qkey"] = struct.unpack_from(">I", frame, off)[0]
            d["srcqp"] = struct.unpack_from(">I", frame, off + 4)[0] & 0xFFFFFF
        else:
            d["imm"] = struct.unpack_from(">I", frame, off)[0]
        off += n
    d["payoff"] = off
    # payload length from the UDP length
    d["paylen"] = ulen - 8 - (off - d["udpoff"] - 8) - d["pad"] - 4
    if d["opcode"] == 0x81:
        d["paylen"] = 0
    return d


def icrc(frame, d):
    """RoCEv2 ICRC (IBTA annex A17) of an untruncated decoded frame, as wire bytes."""
    l3 = d["l3off"]
    udp = d["udpoff"]
    end = udp + d["ulen"] - 4
    ip = bytearray(frame[l3:udp])
    if not d["v6"]:
        ip[1] = 0xFF
        ip[8] = 0xFF
        ip[10] = ip[11] = 0xFF
    else:
        ip[0] |= 0x0F
        ip[1] = ip[2] = ip[3] = 0xFF
        ip[7] = 0xFF
    u = bytearray(frame[udp:udp + 8])
    u[6] = u[7] = 0xFF
    bth = bytearray(frame[udp + 8:udp + 20])
    bth[4] = 0xFF
    data = b"\xff" * 8 + bytes(ip) + bytes(u) + bytes(bth) + frame[udp + 20:end]
    return struct.pack("<I", zlib.crc32(data) & 0xFFFFFFFF)


def main_wrapper(fn):
    try:
        rc = fn()
    except Fail as e:
        sys.stderr.write("FAIL: %s\n" % e)
        sys.exit(1)
    sys.exit(rc or 0)
