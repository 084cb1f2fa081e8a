#!/usr/bin/python3
"""Cross-check rtel-sim's RoCEv2 ICRC against scapy's contrib.roce (IPv4).

scapy computes the ICRC of a dissected BTH from its underlayers; for every
complete IPv4 RoCEv2 frame of a few scenarios (all opcodes, pad bytes, ECN
and FECN/BECN set, CNPs, CM MADs) the 4 bytes on the wire must equal it.
The test's own zlib-based implementation (used for IPv6 in sim_truth.py) is
checked against scapy on the same frames.  Exit 77 without scapy.
"""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from simcheck import SKIP, Fail, check, decode, icrc, main_wrapper, read_pcap, run_sim, tmpdir

RUNS = [
    ("sample", []),
    ("rdma-ops-mix", ["--msg-size", "1001", "--msgs-per-qp", "6"]),
    ("rdma-ecn", ["--msgs-per-qp", "2"]),
    ("rdma-rnr", ["--msgs-per-qp", "6"]),
    ("nvme-multipacket", ["--ios", "20"]),
    ("rdma-erspan3", []),
]


def main():
    try:
        import logging
        logging.getLogger("scapy").setLevel(logging.ERROR)
        from scapy.layers.l2 import Ether
        from scapy.contrib.roce import BTH
    except ImportError:
        print("scapy (python3-scapy) not found: skipped")
        return SKIP
    base = tmpdir("icrc")
    try:
        total = 0
        ops = set()
        for name, extra in RUNS:
            out = os.path.join(base, name)
            run_sim(name, 9, out, *extra)
            for f in sorted(os.listdir(out)):
                if not f.endswith(".pcap"):
                    continue
                for i, (ts, cap, orig, data) in enumerate(read_pcap(os.path.join(out, f))):
                    d = decode(data)
                    if d["v6"] or not d["complete"]:
                        continue
                    inner = data[d.get("inner_off", 0):]
                    d = decode(inner)
                    end = d["udpoff"] + d["ulen"]
                    wire = inner[end - 4:end]
                    pkt = Ether(inner[:end])
                    check(BTH in pkt, "%s/%s frame %d: scapy did not dissect a BTH" % (name, f, i + 1))
                    want = pkt[BTH].compute_icrc(None)
                    check(wire == want, "%s/%s frame %d (opcode %#x): ICRC %s, scapy %s" % (
                        name, f, i + 1, d["opcode"], wire.hex(), want.hex()))
                    check(icrc(inner, d) == want, "%s/%s frame %d: the test's own ICRC disagrees with scapy" % (name, f, i + 1))
                    ops.add(d["opcode"])
                    total += 1
            shutil.rmtree(out)
        for op in (0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E,
                   0x0F, 0x10, 0x11, 0x17, 0x64, 0x81):
            check(op in ops, "opcode %#x was not covered" % op)
        print("ok: %d IPv4 frames, %d opcodes, ICRC equal to scapy's" % (total, len(ops)))
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main_wrapper(main)
