#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Write the seed corpus of the fuzz harness (tests/fuzz/corpus/).

Every frame is built here byte by byte (no captures are copied).  Each corpus
file is one fuzz input:

    byte 0     option byte of tests/fuzz/fuzz_decode.c (link type, decoder
               flags, wire length mode); 0x00 = Ethernet, default options
    byte 1..   the frame

Usage: /usr/bin/python3 tests/fuzz/gen-corpus.py [OUTDIR]
(OUTDIR defaults to the corpus/ directory next to this script).  The output is
deterministic; re-run it after changing a builder and commit the result.
"""

import os
import struct
import sys
import zlib

# ----------------------------------------------------------------- options
# Keep in sync with fuzz_decode.c.
OPT_LINK_ETH, OPT_LINK_RAW, OPT_LINK_SLL, OPT_LINK_SLL2 = 0, 1, 2, 3
OPT_VERIFY_ICRC = 0x04
OPT_NO_DECAP = 0x08
OPT_NO_ROCEV1 = 0x10
OPT_WIRE_PLUS_ICRC = 0x40  # wire_len = caplen + 4 (mode 2, bits 5-6)
OPT_WIRE_SNAP = 0x60       # wire_len = caplen + 1500 (mode 3)

MAC_A = bytes.fromhex("02000000000a")
MAC_B = bytes.fromhex("02000000000b")
IP4_A = bytes([192, 168, 10, 1])
IP4_B = bytes([192, 168, 10, 2])
IP6_A = bytes.fromhex("fd000000000000000000000000000001")
IP6_B = bytes.fromhex("fd000000000000000000000000000002")
GID_A = bytes(10) + b"\xff\xff" + IP4_A  # IPv4-mapped GIDs (RoCEv2)
GID_B = bytes(10) + b"\xff\xff" + IP4_B


def be16(v):
    return struct.pack("!H", v & 0xFFFF)


def be24(v):
    return struct.pack("!I", v & 0xFFFFFF)[1:]


def be32(v):
    return struct.pack("!I", v & 0xFFFFFFFF)


def be64(v):
    return struct.pack("!Q", v & 0xFFFFFFFFFFFFFFFF)


def csum16(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


# ------------------------------------------------------------ L2 / L3 / L4
def eth(payload, ethertype, vlans=()):
    """vlans: list of (tpid, tci), outermost first."""
    b = MAC_B + MAC_A
    for tpid, tci in vlans:
        b += be16(tpid) + be16(tci)
    return b + be16(ethertype) + payload


def ipv4(payload, proto=17, tos=0x02, ttl=64, ident=0x1234, frag=0x4000,
         src=IP4_A, dst=IP4_B, total_len=None, ihl=5, options=b""):
    tl = 4 * ihl + len(payload) if total_len is None else total_len
    h = bytes([0x40 | ihl, tos]) + be16(tl) + be16(ident) + be16(frag) + \
        bytes([ttl, proto]) + b"\0\0" + src + dst + options
    h = h[:10] + be16(csum16(h)) + h[12:]
    return h + payload


def ipv6(payload, nh=17, tclass=0x02, flow=0x12345, hlim=64, src=IP6_A,
         dst=IP6_B, exthdrs=b""):
    first = (6 << 28) | (tclass << 20) | flow
    return be32(first) + be16(len(exthdrs) + len(payload)) + \
        bytes([nh, hlim]) + src + dst + exthdrs + payload


def udp(payload, dport=4791, sport=49152, length=None, cs=0):
    ln = 8 + len(payload) if length is None else length
    return be16(sport) + be16(dport) + be16(ln) + be16(cs) + payload


# -------------------------------------------------------------------- IBA
def bth(opcode, dqpn, psn, se=0, m=0, pad=0, tver=0, pkey=0xFFFF, fecn=0,
        becn=0, ackreq=0, resv6=0):
    b0 = opcode
    b1 = (se << 7) | (m << 6) | ((pad & 3) << 4) | (tver & 0xF)
    b4 = (fecn << 7) | (becn << 6) | (resv6 & 0x3F)
    return bytes([b0, b1]) + be16(pkey) + bytes([b4]) + be24(dqpn) + \
        bytes([ackreq << 7]) + be24(psn)


def reth(va, rkey, dmalen):
    return be64(va) + be32(rkey) + be32(dmalen)


def aeth(syndrome, msn):
    return bytes([syndrome]) + be24(msn)


def deth(qkey, sqpn):
    return be32(qkey) + b"\0" + be24(sqpn)


def atomiceth(va, rkey, swap, cmp_):
    return be64(va) + be32(rkey) + be64(swap) + be64(cmp_)


def roce_frame_v4(transport, tos=0x02, ttl=64, sport=49152, dport=4791,
                  icrc=None):
    """IPv4/UDP/<transport>/ICRC; transport = BTH + ext headers + payload."""
    u = udp(transport + b"\0\0\0\0", dport=dport, sport=sport)
    ip = ipv4(u, tos=tos, ttl=ttl)
    return ip[:-4] + (icrc_v4(ip) if icrc is None else icrc)


def roce_frame_v6(transport, exthdrs=b"", nh=17, tclass=0x02):
    u = udp(transport + b"\0\0\0\0")
    ip = ipv6(u, nh=nh, exthdrs=exthdrs, tclass=tclass)
    return ip[:-4] + icrc_v6(ip, len(exthdrs))


def icrc_v4(ip):
    """ip: whole IPv4 packet with a 4-byte ICRC placeholder at the end."""
    ihl = (ip[0] & 0xF) * 4
    m = bytearray(ip[:-4])
    m[1] = 0xFF                 # TOS
    m[8] = 0xFF                 # TTL
    m[10:12] = b"\xff\xff"      # header checksum
    m[ihl + 6:ihl + 8] = b"\xff\xff"  # UDP checksum
    m[ihl + 8 + 4] = 0xFF       # BTH byte 4 (FECN/BECN/resv6)
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(m)) & 0xFFFFFFFF)


def icrc_v6(ip, extlen=0):
    m = bytearray(ip[:-4])
    m[0] = 0x6F
    m[1:4] = b"\xff\xff\xff"    # traffic class + flow label
    m[7] = 0xFF                 # hop limit
    l4 = 40 + extlen
    m[l4 + 6:l4 + 8] = b"\xff\xff"
    m[l4 + 8 + 4] = 0xFF
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(m)) & 0xFFFFFFFF)


def rocev1_frame(transport, nxthdr=0x1B, vlans=()):
    body = transport + b"\0\0\0\0"
    grh = be32((6 << 28) | (0x02 << 20) | 0x00ABC) + be16(len(body)) + \
        bytes([nxthdr, 64]) + GID_A + GID_B
    m = bytearray(grh + transport)
    m[0:4] = b"\x6f\xff\xff\xff"
    m[7] = 0xFF
    m[40 + 4] = 0xFF
    crc = struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(m)) & 0xFFFFFFFF)
    return eth(grh + transport + crc, 0x8915, vlans)


def mad(attr_id, data, method=0x03, tid=0x0000000100000001,
        mgmt_class=0x07):
    """256-byte MAD: 24-byte common header + 232 bytes of CM data."""
    hdr = bytes([1, mgmt_class, 2, method]) + be16(0) + be16(0) + \
        be64(tid) + be16(attr_id) + be16(0) + be32(0)
    data = data + bytes(232 - len(data))
    return hdr + data[:232]


def cm_req(lcid, sid, qpn, psn):
    d = be32(lcid) + be32(0) + be64(sid) + be64(0x0002C90300001111)
    d += be32(0) + be32(0) + be24(qpn) + b"\x10" + be24(0) + b"\x10"
    d += be24(0) + b"\xb8" + be24(psn) + b"\xb7" + be16(0xFFFF) + b"\x37\xf0"
    d += be16(0xFFFF) + be16(0xFFFF) + GID_A + GID_B  # primary path, 52..88
    d += bytes(140 - len(d))
    d += b"NVMe-oF private data of the REQ".ljust(92, b"\0")
    return d


def cm_rep(lcid, rcid, qpn, psn):
    d = be32(lcid) + be32(rcid) + be32(0) + be24(qpn) + b"\0" + be24(0) + \
        b"\0" + be24(psn) + b"\0" + b"\x10\x10\x00\xe0" + \
        be64(0x0002C90300002222)
    return d + b"REP private data".ljust(196, b"\0")


def cm_rtu(lcid, rcid):
    return be32(lcid) + be32(rcid) + bytes(224)


def cm_dreq(lcid, rcid, rqpn):
    return be32(lcid) + be32(rcid) + be24(rqpn) + b"\0" + bytes(220)


def cm_drep(lcid, rcid):
    return be32(lcid) + be32(rcid) + bytes(224)


def cm_rej(lcid, rcid, reason):
    return be32(lcid) + be32(rcid) + b"\0\0" + be16(reason) + bytes(72) + \
        b"REJ private".ljust(148, b"\0")


def cm_frame(attr, data, dqpn=1):
    tr = bth(0x64, dqpn, 0x000001) + deth(0x80010000, 1) + mad(attr, data)
    return eth(roce_frame_v4(tr), 0x0800)


def v4eth(tr, **kw):
    vlans = kw.pop("vlans", ())
    return eth(roce_frame_v4(tr, **kw), 0x0800, vlans)


# --------------------------------------------------------------- encaps
def gre(payload, proto, seq=None, flags=0):
    f = flags | (0x1000 if seq is not None else 0)
    b = be16(f) + be16(proto)
    if seq is not None:
        b += be32(seq)
    return b + payload


def erspan2(inner, session=0x2A, vlan=0, ver=1):
    h = be16((ver << 12) | vlan) + be16((0 << 13) | (0 << 11) | session) + \
        be32(7)  # reserved(12) | index(20)
    return h + inner


def erspan3(inner, session=0x2B, ts=0x01020304, gra=1, o=0):
    h = be16((2 << 12) | 0) + be16(session) + be32(ts) + be16(0) + \
        be16((gra << 1) | o)
    if o:
        h += be32(0xAAAA0000) + be32(0x55555555)  # platform subheader
    return h + inner


def vxlan(inner, vni=0x00ABCD, flags=0x08):
    return bytes([flags, 0, 0, 0]) + be24(vni) + b"\0" + inner


def outer_v4_gre(g):
    return eth(ipv4(g, proto=47, tos=0), 0x0800)


def outer_v4_vxlan(v, dport=4789):
    return eth(ipv4(udp(v, dport=dport, sport=54321), tos=0), 0x0800)


# ------------------------------------------------------------------ seeds
def seeds():
    s = {}
    pay = bytes(range(64))
    rc_send = bth(0x04, 0x000011, 0x000100, ackreq=1) + pay
    s["rc-send-only"] = v4eth(rc_send)
    s["rc-send-first"] = v4eth(bth(0x00, 0x11, 0x101) + bytes(256))
    s["rc-send-middle"] = v4eth(bth(0x01, 0x11, 0x102) + bytes(256))
    s["rc-send-last-imm"] = v4eth(bth(0x03, 0x11, 0x103, se=1, pad=3) +
                                  be32(0xDEADBEEF) + pay[:13] + b"\0\0\0")
    s["rc-send-only-inv"] = v4eth(bth(0x17, 0x11, 0x104) + be32(0x5678) +
                                  pay[:8])
    s["rc-write-first"] = v4eth(bth(0x06, 0x22, 0x200) +
                                reth(0x7F0000001000, 0x1234, 8192) +
                                bytes(256))
    s["rc-write-only-imm"] = v4eth(bth(0x0B, 0x22, 0x201, pad=3) +
                                   reth(0x7F0000002000, 0x1234, 13) +
                                   be32(0xCAFEF00D) + pay[:13] + b"\0\0\0")
    s["rc-read-req"] = v4eth(bth(0x0C, 0x22, 0x300) +
                             reth(0x7F0000003000, 0x4321, 4096))
    s["rc-read-resp-first"] = v4eth(bth(0x0D, 0x33, 0x300) +
                                    aeth(0x1F, 5) + bytes(256))
    s["rc-read-resp-middle"] = v4eth(bth(0x0E, 0x33, 0x301) + bytes(256))
    s["rc-read-resp-only"] = v4eth(bth(0x10, 0x33, 0x302) + aeth(0x1F, 6) +
                                   pay)
    s["rc-ack"] = v4eth(bth(0x11, 0x33, 0x303) + aeth(0x1F, 7))
    s["rc-nak-psn-seq"] = v4eth(bth(0x11, 0x33, 0x304) + aeth(0x60, 7))
    s["rc-rnr-nak"] = v4eth(bth(0x11, 0x33, 0x305) + aeth(0x2E, 7))
    s["rc-cmp-swap"] = v4eth(bth(0x13, 0x44, 0x400) +
                             atomiceth(0x7F0000004000, 0x99, 1, 0))
    s["rc-atomic-ack"] = v4eth(bth(0x12, 0x44, 0x400) + aeth(0x1F, 8) +
                               be64(0x1122334455667788))
    s["rc-flush"] = v4eth(bth(0x1C, 0x44, 0x401) + be32(0x00000011) +
                          reth(0x7F0000005000, 0x77, 64))
    s["rc-ecn-ce"] = v4eth(bth(0x0A, 0x22, 0x202) +
                           reth(0x7F0000006000, 0x1234, 64) + pay, tos=0x03)
    s["uc-write-only"] = v4eth(bth(0x2A, 0x55, 0x500) +
                               reth(0x1000, 0x1, 64) + pay)
    s["ud-send-only-imm"] = v4eth(bth(0x65, 0x66, 0x600) +
                                  deth(0x11111111, 0x77) + be32(1) + pay)
    s["rd-send-only"] = v4eth(bth(0x44, 0x66, 0x601) + be32(0x000123) +
                              deth(0x2222, 0x78) + pay[:16])
    s["xrc-send-only"] = v4eth(bth(0xA4, 0x66, 0x602) + be32(0x000456) +
                               pay[:16])
    s["cnp"] = v4eth(bth(0x81, 0x000011, 0, becn=1) + bytes(16), tos=0x03)
    # IP-CM service ID of TCP port 4420 (NVMe-oF)
    s["cm-req-nvme"] = cm_frame(0x0010, cm_req(0x1001, 0x0000000001061144,
                                              0x000021, 0x00ABCDEF))
    s["cm-rep"] = cm_frame(0x0013, cm_rep(0x2002, 0x1001, 0x000022, 0x123456))
    s["cm-rtu"] = cm_frame(0x0014, cm_rtu(0x1001, 0x2002))
    s["cm-dreq"] = cm_frame(0x0015, cm_dreq(0x1001, 0x2002, 0x000022))
    s["cm-drep"] = cm_frame(0x0016, cm_drep(0x2002, 0x1001))
    s["cm-rej"] = cm_frame(0x0012, cm_rej(0x2002, 0x1001, 28))
    s["vlan-rc-write"] = v4eth(bth(0x0A, 0x22, 0x203) +
                               reth(0x1000, 0x1234, 64) + pay,
                               vlans=[(0x8100, 0x6064)])
    s["qinq-rc-ack"] = v4eth(bth(0x11, 0x33, 0x306) + aeth(0x1F, 9),
                             vlans=[(0x88A8, 0x0010), (0x8100, 0xA064)])
    s["ipv6-rc-write"] = eth(roce_frame_v6(bth(0x0A, 0x22, 0x204) +
                                           reth(0x2000, 0x1, 64) + pay),
                             0x86DD)
    s["ipv6-hbh-rc-send"] = eth(roce_frame_v6(
        rc_send, nh=0, exthdrs=bytes([17, 0]) + b"\x01\x04\0\0\0\0"), 0x86DD)
    inner = v4eth(rc_send)
    s["erspan1-rc"] = outer_v4_gre(gre(inner, 0x88BE))
    s["erspan2-rc"] = outer_v4_gre(gre(erspan2(inner), 0x88BE, seq=1))
    s["erspan3-rc"] = outer_v4_gre(gre(erspan3(inner, o=1), 0x22EB, seq=2))
    s["vxlan-rc"] = outer_v4_vxlan(vxlan(inner))
    s["gre-teb-rc"] = outer_v4_gre(gre(inner, 0x6558))
    s["rocev1-rc-send"] = rocev1_frame(rc_send)
    s["rocev1-vlan-ack"] = rocev1_frame(bth(0x11, 0x33, 0x307) +
                                        aeth(0x1F, 1), vlans=[(0x8100, 5)])
    # NVMe-oF/RDMA capsules (SEND ONLY): a 64-byte write command with a
    # keyed SGL data block descriptor, and a 16-byte completion
    le16 = lambda v: struct.pack("<H", v)
    le32 = lambda v: struct.pack("<I", v)
    le64 = lambda v: struct.pack("<Q", v)
    sqe = bytes([0x01, 0x40]) + le16(0x0007) + le32(1) + bytes(16) + \
        le64(0x7F0000008000) + struct.pack("<I", 4096)[:3] + le32(0x1234) + \
        b"\x40" + le64(0x100) + le16(7) + bytes(14)
    assert len(sqe) == 64
    s["nvme-write-cmd"] = v4eth(bth(0x04, 0x000021, 0x10) + sqe)
    cqe = le32(0) + le32(0) + le16(1) + le16(1) + le16(0x0007) + le16(0)
    s["nvme-cqe"] = v4eth(bth(0x04, 0x000022, 0x20) + cqe)
    # other link types: the option byte selects the link type
    ip_only = roce_frame_v4(rc_send)
    s["raw-ipv4-rc"] = (OPT_LINK_RAW, ip_only)
    s["sll-rc"] = (OPT_LINK_SLL, be16(0) + be16(1) + be16(6) + MAC_A +
                   b"\0\0" + be16(0x0800) + ip_only)
    s["sll2-rc"] = (OPT_LINK_SLL2, be16(0x0800) + be16(0) + be32(3) +
                    be16(1) + b"\0" + b"\x06" + MAC_A + b"\0\0" + ip_only)
    # option variants of valid frames
    s["opt-verify-icrc"] = (OPT_VERIFY_ICRC, v4eth(rc_send))
    s["opt-snap-128"] = (OPT_WIRE_SNAP | OPT_VERIFY_ICRC,
                         v4eth(bth(0x0A, 0x22, 0x205) +
                               reth(0x1000, 0x1234, 1024) +
                               bytes(256))[:128])
    # not RoCE
    s["not-roce-udp53"] = eth(ipv4(udp(b"\x12\x34" + bytes(30), dport=53)),
                              0x0800)
    s["ipv4-fragment"] = eth(ipv4(udp(rc_send + b"\0" * 4), frag=0x2000),
                             0x0800)
    # broken
    s["bad-icrc"] = (OPT_VERIFY_ICRC, v4eth(rc_send, icrc=b"\0\0\0\0"))
    s["bad-trunc-in-bth"] = v4eth(rc_send)[:14 + 20 + 8 + 6]
    s["bad-trunc-in-reth"] = (OPT_WIRE_PLUS_ICRC, s["rc-write-first"][:60])
    s["bad-udp-len"] = eth(ipv4(udp(rc_send, length=4)), 0x0800)
    s["bad-ip-hlen"] = eth(ipv4(udp(rc_send), ihl=4), 0x0800)
    s["bad-ip-len"] = eth(ipv4(udp(rc_send), total_len=9000), 0x0800)
    s["bad-ip-version"] = eth(ipv6(udp(rc_send)), 0x0800)
    # reserved opcode, transport version 1: decoded up to the BTH only
    s["unknown-tver"] = v4eth(bth(0x04, 0x11, 0x1, tver=1) + pay)
    s["unknown-opcode"] = v4eth(bth(0x1F, 0x11, 0x1) + pay)
    s["bad-pad"] = v4eth(bth(0x04, 0x11, 0x1, pad=3) + b"\0\0")
    s["bad-roce-len"] = v4eth(bth(0x0A, 0x22, 0x1) + b"\0" * 4)
    s["bad-vlan-depth"] = v4eth(rc_send, vlans=[(0x8100, i) for i in range(5)])
    s["bad-gre-routing"] = outer_v4_gre(gre(erspan2(inner), 0x88BE, seq=1,
                                            flags=0x4000))
    s["bad-vxlan-no-i"] = outer_v4_vxlan(vxlan(inner, flags=0))
    nested = inner
    for _ in range(4):
        nested = outer_v4_vxlan(vxlan(nested))
    s["bad-encap-depth"] = nested
    s["bad-grh-nxthdr"] = rocev1_frame(rc_send, nxthdr=0x11)
    s["bad-mad-short"] = v4eth(bth(0x64, 1, 1) + deth(0x80010000, 1) +
                               mad(0x10, b"")[:20])
    s["bad-cm-cut"] = cm_frame(0x0010, cm_req(1, 2, 3, 4))[:14 + 20 + 8 + 20 +
                                                          24 + 40]
    s["bad-ipv6-ext-loop"] = eth(roce_frame_v6(
        rc_send, nh=0, exthdrs=bytes([0, 255]) + bytes(6)), 0x86DD)
    return s


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "corpus")
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(out):
        if name.endswith(".bin"):
            os.unlink(os.path.join(out, name))
    n = 0
    for name, v in sorted(seeds().items()):
        opt, frame = v if isinstance(v, tuple) else (0, v)
        with open(os.path.join(out, name + ".bin"), "wb") as f:
            f.write(bytes([opt]) + frame)
        n += 1
    print("wrote %d seeds to %s" % (n, out))


if __name__ == "__main__":
    main()
