#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the seed corpus of the IPFIX encoder harness (fuzz_ipfix.c).

    gen-ipfix-corpus.py DIR

Each seed is the harness's 16-byte header (PEN, domain, message size,
flags, template refresh, first flowId) and a sequence of operations:
records of every type with pseudo-random contents (fixed seeds, so the
corpus is reproducible), IPv4 and IPv6 (the flag bits that choose the
template), ends, resets and clock steps that make templates due again.
The record sizes are the structs' sizes on x86-64 (shorter input is
zero-filled by the harness, longer is the next operation's bytes).
"""
import os
import random
import struct
import sys

# sizeof(rtel_flow_record), msg, io, segment, aggregate on LP64
SIZES = [296, 200, 184, 128, 288]
# offset of the flags word (bit 1 flow IPv6, bit 0 I/O IPv6) per type
FLAGS_OFF = [4, 4, 4, 8, 4]
V6_BIT = [0x2, 0x2, 0x1, 0x1, 0x1]


def record(rng, t, v6):
    b = bytearray(rng.getrandbits(8) for _ in range(SIZES[t]))
    flags = struct.unpack_from("<I", b, FLAGS_OFF[t])[0] & ~V6_BIT[t]
    if v6:
        flags |= V6_BIT[t]
    struct.pack_into("<I", b, FLAGS_OFF[t], flags)
    return bytes(b)


def header(pen, domain, size, flags, refresh_ms, flow_hi):
    return struct.pack("<IIHBBI", pen, domain, size, flags, refresh_ms,
                       flow_hi)


def seed(n, msgsize, flags, refresh, ops, bufsel=0):
    rng = random.Random(n)
    out = bytearray(header(32473, n, msgsize, flags, refresh, n))
    for op in ops:
        if isinstance(op, tuple):  # (type, v6)
            t, v6 = op
            out.append(t | (bufsel << 3))
            out += record(rng, t, v6)
        elif op == "end":
            out.append(5)
        elif op == "reset":
            out.append(6)
        else:  # ("tick", ms)
            out.append(7)
            out.append(op[1] if isinstance(op, list) else 100)
    return bytes(out)


def main():
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    every = [(t, v6) for t in range(5) for v6 in (0, 1)]
    seeds = {
        "every-type-512": seed(1, 0, 0, 0, every + ["end"]),
        "every-type-1400": seed(2, 1400 - 512, 0, 0, every * 3 + ["end"],
                                bufsel=1),
        "no-type-info": seed(3, 0, 1, 0, every + ["end"]),
        "refresh": seed(4, 0, 0, 5, every + [["tick", 10]] + every +
                        ["end", ["tick", 10]] + every),
        "reset-mid": seed(5, 900, 0, 0, every[:4] + ["reset"] + every),
        "large-stream": seed(6, 65535 - 512, 0, 0, every * 20, bufsel=31),
        "small-buffer": seed(7, 65535 - 512, 0, 0, every * 4, bufsel=0),
        "flows-only": seed(8, 0, 0, 0, [(0, 0)] * 30 + ["end"] + [(0, 1)] * 5),
        "ios-only": seed(9, 600, 0, 1, [(2, 0), ["tick", 2]] * 20),
    }
    for name, data in seeds.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
