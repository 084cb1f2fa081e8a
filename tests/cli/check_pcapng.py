#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/cli/check_pcapng.py - rtel-analyze reads pcapng files of several
interfaces (issue 15 item 4; examples/capfile.c, man/rtel-analyze.1 section
CAPTURE FILES). libpcap 1.10 refuses the files of the first two checks (an
interface whose snap length or link type differs from the first's): the old
rtel-analyze read 0 packets from them.

  check_pcapng.py CHECK     CHECK: merge linktypes handbuilt damage

  merge      rtel-sim nvme-read at two points, the host point with whole
             frames and the storage point cut to 128 bytes, merged by
             mergecap into one pcapng (two interfaces, two snap lengths):
             --split-interfaces gives the same records (flows, messages,
             I/Os, segments, summaries, counters; with --poll and roles
             too) as the two files read as two points; without it the same as the two files given one
             NAME= and as mergecap's classic pcap of them (one point);
             --packets gives every frame with tshark's frame number,
             time, lengths and interface; rtel-collect -r reads it as
             rtel-analyze does
  linktypes  the same with the storage point's capture in Linux cooked
             (SLL) framing: one pcapng with an Ethernet and an SLL
             interface; then a third interface of 802.11 frames: its frames
             are counted on stderr, naming the file (exit 1), the others'
             records do not change
  handbuilt  a pcapng built here byte by byte: a big-endian section (if_name,
             if_tsresol 10^-9 and 2^-20, if_tsoffset, snap length, an
             enhanced, a simple and an obsolete packet block, unknown and
             statistics blocks) and a little-endian section (microseconds):
             frame numbers, timestamps (computed by hand below, and the
             ones tshark gives), lengths, the points of --split-interfaces
             (NAME.IFNAME, NAME.ifN) and the bytes handed over
  damage     every prefix of the hand-built pcapng and of a small pcap: no
             crash, the frames of the whole blocks before the cut, exit 0
             at a block boundary, else exit 1 and one line naming the file
             and the frames read; lying lengths (caplen beyond the block,
             16 MiB blocks, lengths not a multiple of 4 or below 12,
             trailing length, interface out of range, option past its
             block, byte-order magic, pcap record length): exit 1, one line,
             the frames before the damage kept

Environment: RTEL_ANALYZE, RTEL_SIM, RTEL_COLLECT (from make check).
Exit status: 0 pass, 1 fail, 77 skip (a program or mergecap is missing).
"""
import json
import os
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import rtel_records  # noqa: E402 (tests/rtel_records.py)
from checklib import fail, failures, ok, run_check  # noqa: E402

ANA = os.environ.get("RTEL_ANALYZE", "")
SIM = os.environ.get("RTEL_SIM", "")
COLLECT = os.environ.get("RTEL_COLLECT", "")

RECS = ["--flows", "--messages", "--ios", "--segments", "--summary",
        "--stats", "--format", "json"]
ONLY = ("only Ethernet, raw IP and Linux cooked (SLL, SLL2) captures are "
        "read")




# run() and sim(): as the other CLI checks run the programs
from check_cli import run, sim  # noqa: E402


def need(tool):
    path = shutil.which(tool)
    if path is None:
        print("SKIP: %s not found (Debian: wireshark-common, tshark)" % tool)
        sys.exit(77)
    return path


def mergecap(out, fmt, *inputs):
    r = subprocess.run([need("mergecap"), "-F", fmt, "-w", out] +
                       list(inputs), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    if r.returncode != 0:
        print("mergecap failed: %s" % r.stdout.decode()[-300:])
        sys.exit(99)
    return out


def json_lines(out):
    return rtel_records.loads_lines(out)


def renamed(out, names):
    """The JSON lines of |out| with the observation points renamed."""
    recs = json_lines(out)
    for r in recs:
        for k in ("obs", "compute_obs", "storage_obs"):
            if k in r and r[k] in names:
                r[k] = names[r[k]]
        # slot records: the names of the points (ids stay ids)
        for k in ("started_names", "stopped_names"):
            if k in r:
                r[k] = [names.get(x, x) for x in r[k]]
    return recs


# ------------------------------------------------------------ files

def read_pcap(path):
    """(linktype, [(ts_ns, orig_len, data)]) of a little-endian ns pcap
    (what rtel-sim writes)."""
    with open(path, "rb") as f:
        d = f.read()
    magic, _, _, _, _, _, lt = struct.unpack_from("<IHHiIII", d, 0)
    assert magic == 0xa1b23c4d, path
    pos, frames = 24, []
    while pos + 16 <= len(d):
        s, ns, cl, ol = struct.unpack_from("<IIII", d, pos)
        frames.append((s * 10**9 + ns, ol, d[pos + 16:pos + 16 + cl]))
        pos += 16 + cl
    return lt, frames


def write_pcap(path, linktype, frames, snaplen=65535):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, snaplen,
                            linktype))
        for ts, ol, data in frames:
            f.write(struct.pack("<IIII", ts // 10**9, ts % 10**9, len(data),
                                ol) + data)


def idbs(path):
    """(linktype, snaplen) of each interface description block of a
    little-endian pcapng (what mergecap writes)."""
    with open(path, "rb") as f:
        d = f.read()
    pos, out = 0, []
    while pos + 12 <= len(d):
        bt, bl = struct.unpack_from("<II", d, pos)
        if bt == 1:
            lt, _, snap = struct.unpack_from("<HHI", d, pos + 8)
            out.append((lt, snap))
        pos += bl
    return out


def tshark_frames(path):
    """{frame: (ts_ns or None, caplen, len, interface)} from tshark, or
    None without tshark."""
    if shutil.which("tshark") is None:
        print("skip: tshark not found, its reading not compared")
        return None
    r = subprocess.run(["tshark", "-r", path, "-T", "fields",
                        "-e", "frame.number", "-e", "frame.time_epoch",
                        "-e", "frame.cap_len", "-e", "frame.len",
                        "-e", "frame.interface_id"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = {}
    for line in r.stdout.decode().splitlines():
        f = line.split("\t")
        if len(f) != 5 or not f[0].isdigit():
            continue
        ts = None
        if f[1]:
            sec, frac = f[1].split(".")
            ts = int(sec) * 10**9 + int((frac + "000000000")[:9])
        out[int(f[0])] = (ts, int(f[2]), int(f[3]),
                          int(f[4]) if f[4] else None)
    return out


def two_points(tmp):
    """h0 (whole frames) and t0 (cut to 128 bytes) of nvme-read, their
    timestamps made even and odd: no frame of one has the time of a frame
    of the other, so any two readers agree on the order across the files
    (mergecap's order of equal times is its own)."""
    whole = sim(tmp, "whole", "nvme-read")
    cut = sim(tmp, "cut", "nvme-read", "--snaplen", "128")
    lt, h = read_pcap(os.path.join(whole, "h0.pcap"))
    lt2, t = read_pcap(os.path.join(cut, "t0.pcap"))
    h0 = os.path.join(tmp, "h0.pcap")
    t0 = os.path.join(tmp, "t0.pcap")
    write_pcap(h0, lt, [(ts & ~1, ol, d) for ts, ol, d in h])
    write_pcap(t0, lt2, [(ts | 1, ol, d) for ts, ol, d in t], snaplen=128)
    return h0, t0, [(ts & ~1, ol, d) for ts, ol, d in h], \
        [(ts | 1, ol, d) for ts, ol, d in t]


def same_records(what, got, want):
    # the stats records of single files (--stats with several files) are
    # about how the frames were stored, not about the points: apart
    got = [r for r in got if not (r["type"] == "stats" and r.get("file"))]
    want = [r for r in want if not (r["type"] == "stats" and r.get("file"))]
    if got == want:
        ok(len(want) > 0, "%s: the same %d records" % (what, len(want)))
        return True
    n = min(len(got), len(want))
    i = next((k for k in range(n) if got[k] != want[k]), n)
    fail("%s: %d records against %d, first difference at %d: %r / %r" %
         (what, len(got), len(want), i, got[i] if i < len(got) else None,
          want[i] if i < len(want) else None))
    return False


def check_points(tmp, what, merged, h0, t0, want_if):
    """The records of |merged| (two interfaces) against h0 and t0."""
    ok(idbs(merged) == want_if,
       "%s: %s has the interfaces %r (%r)" % (what,
                                               os.path.basename(merged),
                                               want_if, idbs(merged)))
    rc, sep, err = run(RECS + [h0, t0])
    ok(rc == 0, "%s: the two files: exit 0 (%d: %r)" % (what, rc, err))
    sep = json_lines(sep)
    ok(any(r["type"] == "segment" for r in sep),
       "%s: the two points give segments" % what)
    base = os.path.splitext(os.path.basename(merged))[0]
    rc, spl, err = run(RECS + ["--split-interfaces", merged])
    ok(rc == 0 and err == "",
       "%s: --split-interfaces: exit 0, nothing on stderr (%d: %r)" %
       (what, rc, err))
    same_records("%s: --split-interfaces %s = h0.pcap t0.pcap" %
                 (what, os.path.basename(merged)),
                 renamed(spl, {base + ".if0": "h0", base + ".if1": "t0"}),
                 sep)
    # the points as the ports of a polling schedule: the same slots
    poll = ["--poll", "1/200us", "--compute-side", "h0",
            "--storage-side", "t0"]
    rc, sep, _ = run(RECS + poll + [h0, t0])
    poll[3], poll[5] = base + ".if0", base + ".if1"
    rc2, spl, _ = run(RECS + poll + ["--split-interfaces", merged])
    sep = json_lines(sep)
    ok(rc == rc2 == 0 and any(r["type"] == "slot" for r in sep),
       "%s: --poll 1/200us: slots" % what)
    same_records("%s: --poll, roles: --split-interfaces %s = h0.pcap t0.pcap"
                 % (what, os.path.basename(merged)),
                 renamed(spl, {base + ".if0": "h0", base + ".if1": "t0"}),
                 sep)
    return base


# ------------------------------------------------------------ merge

def check_merge(tmp):
    h0, t0, hf, tf = two_points(tmp)
    m = mergecap(os.path.join(tmp, "m.pcapng"), "pcapng", h0, t0)
    check_points(tmp, "merge", m, h0, t0, [(1, 65535), (1, 128)])
    # one point: the default
    rc, one, err = run(RECS + [m])
    ok(rc == 0, "merge: m.pcapng as one point: exit 0 (%d: %r)" % (rc, err))
    one = json_lines(one)
    ok(set(r.get("obs") for r in one if "obs" in r) == {"m"},
       "merge: one point, named m")
    ok([r for r in one if r["type"] == "stats"][0]["packets"] ==
       len(hf) + len(tf), "merge: every frame of both files counted")
    ok("--split-interfaces" in run(["--segments", m])[2],
       "merge: --segments without --split-interfaces: the hint names it")
    rc, two, err = run(RECS + ["m=" + h0, "m=" + t0])
    ok(rc == 0, "merge: m=h0.pcap m=t0.pcap: exit 0")
    same_records("merge: m.pcapng = m=h0.pcap m=t0.pcap (one point)", one,
                 json_lines(two))
    mp = mergecap(os.path.join(tmp, "mp.pcap"), "nsecpcap", h0, t0)
    rc, classic, err = run(RECS + ["m=" + mp])
    same_records("merge: m.pcapng = mergecap's classic pcap of them", one,
                 json_lines(classic))
    # every frame, as tshark reads it
    rc, out, err = run(["--packets", "--format", "json",
                        "--split-interfaces", m])
    pk = {r["frame"]: (r["ts_ns"], r["caplen"], r["len"], r["obs"])
          for r in json_lines(out) if r["type"] == "packet"}
    ts = tshark_frames(m)
    if ts is not None:
        want = {n: (t, cl, ln, "m.if%d" % i)
                for n, (t, cl, ln, i) in ts.items()}
        ok(len(want) == len(hf) + len(tf) and pk == want,
           "merge: --packets: %d frames, each with tshark's number, time, "
           "lengths, interface (%d differ)" %
           (len(want), sum(1 for k in want if pk.get(k) != want[k])))
    if COLLECT and os.access(COLLECT, os.X_OK):
        r = subprocess.run([COLLECT, "-j", "2", "-r", m, "--json", "-",
                            "--flows", "--ios", "--summary"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        rc, out, err = run(["--flows", "--ios", "--summary", "--format",
                            "json", m])
        ok(r.returncode == 0 and
           sorted(r.stdout.decode().splitlines()) ==
           sorted(x for x in out.splitlines() if '"stats"' not in x),
           "merge: rtel-collect -j 2 -r m.pcapng = rtel-analyze m.pcapng")


# ------------------------------------------------------------ linktypes

def to_sll(frames):
    """Ethernet frames in Linux cooked (SLL) framing."""
    out = []
    for ts, ol, d in frames:
        sll = struct.pack(">HHH8sH", 0, 1, 6, d[6:12] + b"\0\0",
                          struct.unpack(">H", d[12:14])[0])
        out.append((ts, ol + 2, sll + d[14:]))
    return out


def check_linktypes(tmp):
    h0, t0, hf, tf = two_points(tmp)
    sll = os.path.join(tmp, "t0sll.pcap")
    write_pcap(sll, 113, to_sll(tf), snaplen=130)
    # the cooked capture decodes as the Ethernet one does
    rc, a, _ = run(["--ios", "--format", "json", t0])
    rc2, b, _ = run(["--ios", "--format", "json", "t0=" + sll])
    ok(rc == rc2 == 0 and a == b and a,
       "linktypes: t0 in SLL framing gives t0's I/Os")
    ml = mergecap(os.path.join(tmp, "ml.pcapng"), "pcapng", h0, sll)
    check_points(tmp, "linktypes", ml, h0, "t0=" + sll,
                 [(1, 65535), (113, 130)])
    # a third interface, 802.11 frames amid the others
    wifi = os.path.join(tmp, "wifi.pcap")
    mid = hf[len(hf) // 2][0]
    write_pcap(wifi, 105, [(mid + 2 + 2 * k, 40, b"\x08\0" + b"\0" * 38)
                           for k in range(3)])
    m3 = mergecap(os.path.join(tmp, "m3.pcapng"), "pcapng", h0, sll, wifi)
    rc, out, err = run(RECS + ["--split-interfaces", m3])
    lines = err.splitlines()
    ok(rc == 1, "linktypes: an 802.11 interface: exit 1 (%d)" % rc)
    ok(len(lines) == 1 and
       lines[0] == "rtel-analyze: %s: 3 frames of interface 2 not read: "
       "unsupported link type IEEE802_11 (105); %s" % (m3, ONLY),
       "linktypes: one line naming the file, the interface, the frames and "
       "the link type (%r)" % err)
    rc, sep, _ = run(RECS + [h0, "t0=" + sll])
    same_records("linktypes: the Ethernet and SLL interfaces of m3.pcapng "
                 "= h0.pcap t0sll.pcap",
                 renamed(out, {"m3.if0": "h0", "m3.if1": "t0"}),
                 json_lines(sep))


# ------------------------------------------------------------ handbuilt

def pad4(b):
    return b + b"\0" * (-len(b) % 4)


class NG:
    """A pcapng written block by block; |blocks| keeps (start, end, kind)
    of each, kind "pkt" for a packet block."""

    def __init__(self):
        self.data = b""
        self.blocks = []

    def block(self, e, btype, body, kind="other"):
        body = pad4(body)
        n = 12 + len(body)
        start = len(self.data)
        self.data += struct.pack(e + "II", btype, n) + body + \
            struct.pack(e + "I", n)
        self.blocks.append((start, len(self.data), kind))
        return start

    @staticmethod
    def opts(e, lst):
        out = b""
        for code, val in lst:
            out += struct.pack(e + "HH", code, len(val)) + pad4(val)
        return out + (struct.pack(e + "HH", 0, 0) if lst else b"")

    def shb(self, e, o=()):
        return self.block(e, 0x0A0D0D0A, struct.pack(
            e + "IHHq", 0x1A2B3C4D, 1, 0, -1) + self.opts(e, list(o)), "shb")

    def idb(self, e, lt, snap, o=()):
        return self.block(e, 1, struct.pack(e + "HHI", lt, 0, snap) +
                          self.opts(e, list(o)))

    def epb(self, e, ifid, ts, data, orig):
        return self.block(e, 6, struct.pack(
            e + "IIIII", ifid, ts >> 32, ts & 0xffffffff, len(data), orig) +
            pad4(data), "pkt")

    def opb(self, e, ifid, ts, data, orig):
        return self.block(e, 2, struct.pack(
            e + "HHIIII", ifid, 0, ts >> 32, ts & 0xffffffff, len(data),
            orig) + pad4(data), "pkt")

    def spb(self, e, data, orig):
        return self.block(e, 3, struct.pack(e + "I", orig) + pad4(data),
                          "pkt")


def handbuilt(tmp):
    """The hand-built file: (bytes, NG, expected packets, offsets of some
    blocks). Frames are RoCE frames of rtel-sim's nvme-read h0, cut to 64
    bytes (the BTH is whole)."""
    _, frames = read_pcap(os.path.join(sim(tmp, "hb", "nvme-read"),
                                       "h0.pcap"))
    fr = [d[:64] for _, _, d in frames[:6]]
    # interface 0 has a snap length of 62: its frames are cut to 62 bytes,
    # and its simple packet block holds 62 bytes and 2 of padding (the
    # snap length says where the frame ends)
    fr[0] = fr[0][:62]
    fr[2] = fr[2][:62]
    orig = [len(d) for _, _, d in frames[:6]]
    B, L = ">", "<"
    ng = NG()
    ng.shb(B, [(4, b"check_pcapng")])                 # shb_userappl
    at = {}
    at["idb0"] = ng.idb(B, 1, 62, [(2, b"eth0"), (9, b"\x09")])
    # interface 1: 2^-20 s units, 100 s offset, no name
    ng.idb(B, 1, 0, [(9, b"\x94"), (14, struct.pack(">q", 100))])
    at["epb1"] = ng.epb(B, 0, 1700000000123456789, fr[0], orig[0])
    at["unknown"] = ng.block(B, 0x00000F0F, b"a block of no known type")
    at["epb2"] = ng.epb(B, 1, (1700000000 << 20) + 1, fr[1], orig[1])
    ng.block(B, 5, struct.pack(">III", 1, 0, 0))      # interface statistics
    at["spb3"] = ng.spb(B, fr[2], orig[2])
    at["opb4"] = ng.opb(B, 1, (1700000000 << 20) + (1 << 19) + 3, fr[3],
                        orig[3])
    at["shb2"] = ng.shb(L)
    ng.idb(L, 1, 0, [(2, b"port9")])                  # microseconds
    at["epb5"] = ng.epb(L, 0, 1700000200000001, fr[4], orig[4])
    at["epb6"] = ng.epb(L, 0, 1700000200000002, fr[5], orig[5])
    # the timestamps, by hand: interface 0 counts ns; interface 1 2^-20 s
    # (one unit is 953.67431640625 ns, rounded down) plus 100 s; a simple
    # packet block has the time of the frame before it; the second
    # section's interface counts us
    t2 = 1700000100 * 10**9 + 953
    cl = [len(f) for f in fr]
    want = [
        (1, 1700000000123456789, cl[0], orig[0], "hb.eth0"),
        (2, t2, cl[1], orig[1], "hb.if1"),
        (3, t2, 62, orig[2], "hb.eth0"),   # the snap length of interface 0
        (4, 1700000100 * 10**9 + 500000000 + 2861, cl[3], orig[3], "hb.if1"),
        (5, 1700000200000001000, cl[4], orig[4], "hb.port9"),
        (6, 1700000200000002000, cl[5], orig[5], "hb.port9"),
    ]
    psn = [int.from_bytes(f[14 + 20 + 8 + 9:14 + 20 + 8 + 12], "big")
           for f in fr]
    return ng, want, psn, at


def packets(path, extra=()):
    """rtel-analyze --packets: exit status, packet records, stdout, stderr
    without the hints (a file of no frame has one)."""
    rc, out, err = run(["--packets", "--format", "json"] + list(extra) +
                       [path], timeout=60)
    recs = [r for r in json_lines(out) if r.get("type") == "packet"]
    err = "".join(x + "\n" for x in err.splitlines()
                  if not x.startswith("rtel-analyze: hint: "))
    return rc, recs, out, err


def check_handbuilt(tmp):
    ng, want, psn, _ = handbuilt(tmp)
    path = os.path.join(tmp, "hb.pcapng")
    with open(path, "wb") as f:
        f.write(ng.data)
    rc, recs, out, err = packets(path, ["--split-interfaces"])
    ok(rc == 0 and err == "", "handbuilt: exit 0, nothing on stderr (%d: %r)"
       % (rc, err))
    got = [(r["frame"], r["ts_ns"], r["caplen"], r["len"], r["obs"])
           for r in recs]
    ok(got == want, "handbuilt: frames, times, lengths, points:\n  got  %r"
       "\n  want %r" % (got, want))
    ok([r["psn"] for r in recs] == psn,
       "handbuilt: each frame's bytes (its PSN %r)" % psn)
    rc, recs1, _, _ = packets(path)
    ok([r["obs"] for r in recs1] == ["hb"] * 6,
       "handbuilt: without --split-interfaces one point, hb")
    rc, recs2, _, _ = packets("tor1=" + path, ["--split-interfaces"])
    ok([r["obs"] for r in recs2] ==
       ["tor1.eth0", "tor1.if1", "tor1.eth0", "tor1.if1", "tor1.port9",
        "tor1.port9"], "handbuilt: NAME= gives NAME.eth0, NAME.if1 ...")
    # tshark's reading of the same bytes (a simple packet block has no
    # time for it; its frame.interface_id counts in each section): the
    # times computed by hand above are its times too
    ts = tshark_frames(path)
    ok(ts is None or sorted(ts) == [1, 2, 3, 4, 5, 6] and
       all(ts[n][0] == t for n, t, _, _, _ in want if n != 3) and
       [ts[n][3] for n in sorted(ts)] == [0, 1, 0, 1, 0, 0],
       "handbuilt: tshark gives the same times and interfaces (%r)" % ts)


# ------------------------------------------------------------ damage

def sanitizer_clean(err):
    return "Sanitizer" not in err and "runtime error" not in err


def check_prefixes(tmp, name, data, bounds, npkt_at, header):
    """Every prefix of |data|: |bounds| the offsets where a block ends,
    npkt_at(L) the packets whole in the first L bytes, |header| the bytes
    of the file header."""
    path = os.path.join(tmp, name)
    bad = []
    for n in range(len(data) + 1):
        with open(path, "wb") as f:
            f.write(data[:n])
        rc, recs, out, err = packets(path)
        lines = err.splitlines()
        k = npkt_at(n)
        if rc < 0 or not sanitizer_clean(err):
            bad.append("%d: crashed (%d) %s" % (n, rc, err[-200:]))
        elif n < header:
            if rc != 1 or out != "" or len(lines) != 1 or \
                    not lines[0].startswith("rtel-analyze: %s: " % path):
                bad.append("%d (in the file header): %d %r %r" %
                           (n, rc, out[:60], err))
        elif n in bounds:
            if rc != 0 or len(recs) != k or err:
                bad.append("%d (a block boundary): exit %d, %d frames (want "
                           "%d) %r" % (n, rc, len(recs), k, err))
        elif rc != 1 or len(recs) != k or len(lines) != 1 or \
                not lines[0].startswith("rtel-analyze: %s: after frame %d: "
                                        % (path, k)):
            bad.append("%d (inside a block): exit %d, %d frames (want %d) "
                       "%r" % (n, rc, len(recs), k, err))
    ok(not bad, "damage: %s: every prefix (0 to %d bytes): no crash; in the "
       "file header exit 1, one line; at a block boundary exit 0 and the "
       "frames before; inside a block exit 1, one line 'after frame N', "
       "the frames before%s" % (name, len(data),
                                "; " + "; ".join(bad[:3]) if bad else ""))


def check_lie(tmp, name, data, what, want_frames, word):
    path = os.path.join(tmp, name + ".pcapng")
    with open(path, "wb") as f:
        f.write(data)
    rc, recs, out, err = packets(path)
    lines = err.splitlines()
    ok(rc == 1 and sanitizer_clean(err) and len(lines) == 1 and
       lines[0].startswith("rtel-analyze: %s: after frame %d: " %
                           (path, want_frames)) and word in lines[0] and
       err.count(os.path.basename(path)) == 1 and
       [r["frame"] for r in recs] == list(range(1, want_frames + 1)),
       "damage: %s: exit 1, one line naming the file once and '%s', the "
       "%d frames before kept (%d, %r, frames %r)" %
       (what, word, want_frames, rc, err.strip(),
        [r["frame"] for r in recs]))


def check_damage(tmp):
    ng, want, psn, at = handbuilt(tmp)
    d = ng.data
    ends = [e for _, e, _ in ng.blocks]
    pkt_ends = [e for _, e, k in ng.blocks if k == "pkt"]
    first_shb = ng.blocks[0][1]
    check_prefixes(tmp, "prefix.pcapng", d, set(ends),
                   lambda n: sum(1 for e in pkt_ends if e <= n), first_shb)
    # a small classic pcap: 24-byte header, records of 16 + 64 bytes
    _, frames = read_pcap(os.path.join(tmp, "hb", "h0.pcap"))
    small = os.path.join(tmp, "small.pcap")
    write_pcap(small, 1, [(ts, ol, fd[:64]) for ts, ol, fd in frames[:3]])
    with open(small, "rb") as f:
        sd = f.read()
    check_prefixes(tmp, "prefix.pcap", sd, {24, 104, 184, 264},
                   lambda n: max(0, (n - 24) // 80), 24)

    def put(data, off, fmt, *v):
        b = bytearray(data)
        struct.pack_into(fmt, b, off, *v)
        return bytes(b)

    e5, e6 = at["epb5"], at["epb6"]
    # frame 5 (little-endian section) says it holds more than its block
    check_lie(tmp, "caplen", put(d, e5 + 20, "<I", 0xffffff00),
              "captured length beyond the block", 4, "captured length")
    check_lie(tmp, "huge", put(d, at["unknown"] + 4, ">I", 0x7ffffff0),
              "a block of 2 GiB", 1, "16 MiB")
    check_lie(tmp, "big", put(d, e6 + 4, "<I", 1 << 20),
              "a block of 1 MiB past the end of the file", 5, "truncated")
    check_lie(tmp, "odd", put(d, at["epb2"] + 4, ">I",
                              at["spb3"] - at["epb2"] + 2),
              "a length not a multiple of 4", 1, "not a multiple of 4")
    check_lie(tmp, "short", put(d, at["epb2"] + 4, ">I", 8),
              "a block length of 8", 1, "too short")
    check_lie(tmp, "trailer", put(d, at["spb3"] - 4, ">I", 12),
              "a trailing length that is not the block's", 2,
              "trailing length")
    check_lie(tmp, "ifid", put(d, e5 + 8, "<I", 7),
              "an interface the section does not describe", 4,
              "interface 7")
    check_lie(tmp, "option", put(d, at["idb0"] + 16 + 2, ">H", 200),
              "an option longer than its block", 0, "runs past")
    check_lie(tmp, "magic", put(d, at["shb2"] + 8, "<I", 0x12345678),
              "a section header without its byte-order magic", 4,
              "byte-order magic")
    lie = put(sd, 24 + 80 + 8, "<I", 0x7fffffff)
    path = os.path.join(tmp, "reclen.pcap")
    with open(path, "wb") as f:
        f.write(lie)
    rc, recs, out, err = packets(path)
    ok(rc == 1 and len(recs) == 1 and len(err.splitlines()) == 1 and
       "after frame 1: " in err and "damaged record header" in err,
       "damage: a pcap record of 2 GiB: exit 1, one line, frame 1 kept (%r)"
       % err.strip())


CHECKS = {
    "merge": check_merge,
    "linktypes": check_linktypes,
    "handbuilt": check_handbuilt,
    "damage": check_damage,
}


def main():
    return run_check(CHECKS, 'check_pcapng.py', 'rtel-pcapng-',
                     [("RTEL_ANALYZE", ANA), ("RTEL_SIM", SIM)])


if __name__ == "__main__":
    sys.exit(main())
