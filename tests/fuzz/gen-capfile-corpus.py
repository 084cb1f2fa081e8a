#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the seed corpus of tests/fuzz/fuzz_capfile.c (the capture file
reader, examples/capfile.c) into DIR (tests/fuzz/corpus-capfile): small
pcap files (both byte orders, us and ns, Kuznetzov's 24-byte records) and
pcapng files (sections of both byte orders, several interfaces and link
types, if_tsresol of both kinds, if_tsoffset, if_name, enhanced, simple
and obsolete packet blocks, statistics and unknown blocks).

  gen-capfile-corpus.py DIR
"""
import os
import struct
import sys


def frame(k, n=48):
    return bytes((k * 7 + i) & 0xff for i in range(n))


def pcap(e, magic, rechdr, frames, lt=1):
    out = struct.pack(e + "IHHiIII", magic, 2, 4, 0, 0, 65535, lt)
    for k, d in enumerate(frames):
        out += struct.pack(e + "IIII", 1700000000 + k, 1000 * k, len(d),
                           len(d) + 10)
        if rechdr == 24:
            out += struct.pack(e + "IHBB", 1, 2, 3, 0)
        out += d
    return out


def pad4(b):
    return b + b"\0" * (-len(b) % 4)


def block(e, bt, body):
    body = pad4(body)
    return struct.pack(e + "II", bt, 12 + len(body)) + body + \
        struct.pack(e + "I", 12 + len(body))


def opts(e, lst):
    out = b"".join(struct.pack(e + "HH", c, len(v)) + pad4(v) for c, v in lst)
    return out + struct.pack(e + "HH", 0, 0) if lst else out


def shb(e):
    return block(e, 0x0A0D0D0A, struct.pack(e + "IHHq", 0x1A2B3C4D, 1, 0, -1)
                 + opts(e, [(4, b"gen-capfile-corpus")]))


def idb(e, lt, snap, o=()):
    return block(e, 1, struct.pack(e + "HHI", lt, 0, snap) + opts(e, list(o)))


def epb(e, ifid, ts, d):
    return block(e, 6, struct.pack(e + "IIIII", ifid, ts >> 32,
                                   ts & 0xffffffff, len(d), len(d) + 4) + d)


def opb(e, ifid, ts, d):
    return block(e, 2, struct.pack(e + "HHIIII", ifid, 0, ts >> 32,
                                   ts & 0xffffffff, len(d), len(d)) + d)


def spb(e, d):
    return block(e, 3, struct.pack(e + "I", len(d)) + d)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    f = [frame(k) for k in range(4)]
    files = {
        "pcap-le-us.pcap": pcap("<", 0xa1b2c3d4, 16, f),
        "pcap-be-ns.pcap": pcap(">", 0xa1b23c4d, 16, f, lt=113),
        "pcap-kuznetzov.pcap": pcap("<", 0xa1b2cd34, 24, f[:2]),
    }
    L, B = "<", ">"
    files["ng-two-sections.pcapng"] = (
        shb(B) + idb(B, 1, 40, [(2, b"eth0"), (9, b"\x09")]) +
        idb(B, 113, 0, [(9, b"\x94"), (14, struct.pack(">q", 100))]) +
        epb(B, 0, 1700000000123456789, f[0][:40]) +
        block(B, 0x0F0F, b"unknown") + epb(B, 1, 1700000000 << 20, f[1]) +
        block(B, 5, struct.pack(">III", 1, 0, 0)) + spb(B, f[2][:40]) +
        opb(B, 1, (1700000000 << 20) + 3, f[3]) +
        shb(L) + idb(L, 105, 0, [(2, b"wlan0")]) + idb(L, 1, 0) +
        epb(L, 1, 1700000200000001, f[0]) + epb(L, 0, 1700000200000002, f[1]))
    files["ng-many-ifs.pcapng"] = (
        shb(L) + b"".join(idb(L, lt, 0, [(9, bytes([r]))])
                          for lt, r in ((1, 6), (101, 0x80 | 30),
                                        (276, 19), (228, 0))) +
        b"".join(epb(L, k % 4, 1700000000000 + k, f[k % 4]) for k in range(8)))
    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as fh:
            fh.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
