#!/usr/bin/python3
"""mkcaptures.py OUTDIR -- write the synthetic RoCE test captures of libroceTel.

For every capture NAME this writes into OUTDIR:

  NAME.pcap      classic pcap, nanosecond timestamps (magic a1b23c4d), linktype Ethernet
  NAME.expected  JSON lines: for each frame the analyzer should report, the record that
                 `rtel-analyze --packets --format json --icrc NAME.pcap` should print
                 (the schema of the analyzer, except "obs" whose value is chosen by the
                 analyzer's caller, so it is left out here)

plus MANIFEST.json, which describes every capture and every frame (including the frames that
must produce no record), and lists the frames whose expected value rests on a policy choice
that the schema does not settle ("policy" notes).

Everything here is computed independently from the library and from Wireshark: the frames are
framed with scapy (Ethernet/IP/UDP/GRE only), every InfiniBand transport header, MAD, ERSPAN and
VXLAN header is packed by hand below, and the RoCE ICRC is computed by this script (and cross-checked
against scapy.contrib.roce for every honest IPv4 frame).  The output is byte-for-byte deterministic.

ICRC (IBTA Annex A16/A17) as implemented here: CRC-32 (zlib.crc32) over
  8 bytes 0xFF (the masked pseudo-LRH)
  + the IP header (RoCEv2) or the GRH (RoCEv1) with IPv4 TOS, TTL and header checksum, or IPv6/GRH
    traffic class, flow label and hop limit, set to all ones.  IPv4 options and IPv6 extension
    headers (everything between the start of the IP header and the UDP header) are included
    unmasked -- see the "policy" notes of ipv4_opts_frag and ipv6_ext.
  + the UDP header with the checksum set to all ones (RoCEv2 only)
  + the BTH with byte 4 (FECN, BECN, resv6) set to 0xFF
  + the rest of the RoCE packet up to the ICRC,
appended little-endian (the 4 wire bytes are the CRC value in LE byte order).
"""

import json
import os
import socket
import struct
import sys
import zlib

import logging
logging.getLogger("scapy.runtime").setLevel(logging.ERROR)

from scapy.all import (IP, IPv6, UDP, TCP, GRE, Raw, ARP, ICMP, ICMPv6DestUnreach,  # noqa: E402
                       IPv6ExtHdrHopByHop, IPv6ExtHdrDestOpt, IPv6ExtHdrRouting,
                       IPv6ExtHdrSegmentRouting, IPv6ExtHdrFragment, PadN, raw,
                       IPOption_Router_Alert, IPOption_NOP, IPOption_RR)
import scapy.contrib.roce as scapy_roce  # noqa: E402

ROCE_PORT = 4791
BASE_TS_NS = 1_700_000_000_000_000_000

# --------------------------------------------------------------------------------------------
# IBTA transport header layouts (Vol 1, 9.2-9.5, 14.x XRC, 1.5 FLUSH / ATOMIC WRITE, A17 CNP)
# --------------------------------------------------------------------------------------------

# extension headers that follow the BTH for the RC opcode x (0x00-0x1f)
RC_HDRS = {
    0x00: [], 0x01: [], 0x02: [], 0x03: ['imm'], 0x04: [], 0x05: ['imm'],
    0x06: ['reth'], 0x07: [], 0x08: [], 0x09: ['imm'], 0x0a: ['reth'], 0x0b: ['reth', 'imm'],
    0x0c: ['reth'], 0x0d: ['aeth'], 0x0e: [], 0x0f: ['aeth'], 0x10: ['aeth'],
    0x11: ['aeth'], 0x12: ['aeth', 'atomicack'], 0x13: ['atomic'], 0x14: ['atomic'],
    0x16: ['ieth'], 0x17: ['ieth'], 0x1c: ['feth', 'reth'], 0x1d: ['reth'],
}
RESPONSES = (0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12)
HDR_LEN = {'rdeth': 4, 'deth': 8, 'xrceth': 4, 'reth': 16, 'feth': 4, 'atomic': 28,
           'aeth': 4, 'atomicack': 8, 'imm': 4, 'ieth': 4}
# the order in which the schema lists the optional objects
OBJ_ORDER = ['rdeth', 'deth', 'xrceth', 'reth', 'feth', 'atomic', 'aeth', 'atomicack', 'imm', 'ieth']


def ext_headers(op):
    """Extension headers after the BTH for opcode op, or None if the opcode is unknown/reserved."""
    t, x = op & 0xe0, op & 0x1f
    if t == 0x00:                                       # RC
        return list(RC_HDRS[x]) if x in RC_HDRS else None
    if t == 0x20:                                       # UC: SEND and RDMA WRITE only
        return list(RC_HDRS[x]) if x <= 0x0b else None
    if t == 0x40:                                       # RD
        if x <= 0x0c or x in (0x13, 0x14):
            return ['rdeth', 'deth'] + RC_HDRS[x]
        if x in RESPONSES:
            return ['rdeth'] + RC_HDRS[x]
        if x == 0x15:                                   # RESYNC
            return ['rdeth', 'deth']
        return None
    if t == 0x60:                                       # UD
        return {0x04: ['deth'], 0x05: ['deth', 'imm']}.get(x)
    if t == 0xa0:                                       # XRC: XRCETH on requests only
        if x in RESPONSES:
            return list(RC_HDRS[x])
        if x <= 0x0c or x in (0x13, 0x14, 0x16, 0x17):
            return ['xrceth'] + RC_HDRS[x]
        return None
    if op == 0x81:                                      # CNP: BTH + 16 reserved bytes (payload)
        return []
    return None


def pattern(n, seed):
    return bytes(((i * 7 + seed * 13 + 1) & 0xff) for i in range(n))


def hex64(v):
    """A 64-bit header field as the analyzer writes it: a string of decimal
    digits (rtel-analyze(1), OUTPUT: every 64-bit integer)."""
    return "%d" % v


CM_ATTR_ID = {'ConnectRequest': 0x10, 'MRA': 0x11, 'ConnectReject': 0x12,
              'ConnectReply': 0x13, 'ReadyToUse': 0x14, 'DisconnectRequest': 0x15,
              'DisconnectReply': 0x16, 'SIDR_REQ': 0x17, 'SIDR_REP': 0x18, 'LAP': 0x19,
              'APR': 0x1a}


def record_format(exp):
    """An expected record in the analyzer's member names and types: roce_version, the
    vlans and encap arrays always (empty: none), headers_truncated always, cm.attr_id."""
    e = dict(exp)
    out = {}
    for k, v in e.items():
        if k == 'roce':
            out['roce_version'] = v
        elif k == 'vlan':
            out['vlans'] = v
        elif k == 'truncated':
            out['headers_truncated'] = v
        elif k == 'cm':
            out['cm'] = dict({'attr_id': CM_ATTR_ID[v['attr']]}, **v)
        else:
            out[k] = v
    out.setdefault('vlans', [])
    out.setdefault('encap', [])
    out.setdefault('headers_truncated', False)
    return out


class Tr:
    """One InfiniBand transport packet: BTH + extension headers + payload + pad (no ICRC)."""

    def __init__(self, op, *, psn=0, dqpn=0x12, se=0, m=0, pad=None, tver=0, pkey=0xffff,
                 fecn=0, becn=0, resv6=0, a=0, resv7=0, payload=b'', hdrs=None, pad_bytes=None,
                 **ext):
        self.op = op
        self.pad_bytes = pad_bytes
        self.bthf = dict(se=se, m=m, tver=tver, pkey=pkey, fecn=fecn, becn=becn,
                         resv6=resv6, dqpn=dqpn, a=a, resv7=resv7, psn=psn)
        self.payload = payload
        self.pad = (-len(payload)) % 4 if pad is None else pad
        self.hdrs = ext_headers(op) if hdrs is None else hdrs
        if self.hdrs is None:
            self.hdrs = []
            self.known = False
        else:
            self.known = True
        self.ext = {}
        for h in self.hdrs:
            if h not in ext:
                raise ValueError("opcode 0x%02x needs %s" % (op, h))
            self.ext[h] = ext[h]
        self.extra_raw = ext.get('extra_raw', b'')   # bytes of unknown headers, part of payload

    def bth(self):
        f = self.bthf
        b1 = (f['se'] << 7) | (f['m'] << 6) | ((self.pad & 3) << 4) | (f['tver'] & 15)
        b4 = (f['fecn'] << 7) | (f['becn'] << 6) | (f['resv6'] & 0x3f)
        return struct.pack('!BBHI', self.op, b1, f['pkey'], (b4 << 24) | f['dqpn']) + \
            struct.pack('!I', (f['a'] << 31) | (f['resv7'] << 24) | f['psn'])

    def pack_ext(self, h):
        v = self.ext[h]
        if h == 'rdeth':
            return struct.pack('!I', v['eecnxt'] & 0xffffff)
        if h == 'deth':
            return struct.pack('!II', v['qkey'], v['sqpn'] & 0xffffff)
        if h == 'xrceth':
            return struct.pack('!I', v['xrcsrq'] & 0xffffff)
        if h == 'reth':
            return struct.pack('!QII', v['va'], v['rkey'], v['len'])
        if h == 'feth':
            return struct.pack('!I', ((v['sel'] & 3) << 4) | (v['plt'] & 15))
        if h == 'atomic':
            return struct.pack('!QIQQ', v['va'], v['rkey'], v['swap'], v['cmp'])
        if h == 'aeth':
            return struct.pack('!I', (v['syndrome'] << 24) | v['msn'])
        if h == 'atomicack':
            return struct.pack('!Q', v['orig'])
        if h in ('imm', 'ieth'):
            return struct.pack('!I', v)
        raise KeyError(h)

    def hdr_bytes(self):
        return self.bth() + b''.join(self.pack_ext(h) for h in self.hdrs)

    def bytes(self):
        npad = self.pad if self.pad_bytes is None else self.pad_bytes
        return self.hdr_bytes() + self.extra_raw + self.payload + b'\0' * npad

    def hdr_len(self):
        return 12 + sum(HDR_LEN[h] for h in self.hdrs)

    def expect(self):
        """The transport part of the analyzer record (without payload_len)."""
        f = self.bthf
        r = dict(opcode=self.op, se=f['se'], m=f['m'], pad=self.pad, tver=f['tver'],
                 pkey=f['pkey'], fecn=f['fecn'], becn=f['becn'], dqpn=f['dqpn'], a=f['a'],
                 psn=f['psn'])
        for h in OBJ_ORDER:
            if h not in self.ext:
                continue
            v = self.ext[h]
            if h == 'rdeth':
                r[h] = {'eecnxt': v['eecnxt']}
            elif h == 'deth':
                r[h] = {'qkey': v['qkey'], 'sqpn': v['sqpn']}
            elif h == 'xrceth':
                r[h] = {'xrcsrq': v['xrcsrq']}
            elif h == 'reth':
                r[h] = {'va': hex64(v['va']), 'rkey': v['rkey'], 'len': v['len']}
            elif h == 'feth':
                r[h] = {'sel': v['sel'], 'plt': v['plt']}
            elif h == 'atomic':
                r[h] = {'va': hex64(v['va']), 'rkey': v['rkey'], 'swap': hex64(v['swap']),
                        'cmp': hex64(v['cmp'])}
            elif h == 'aeth':
                r[h] = {'syndrome': v['syndrome'], 'msn': v['msn']}
            elif h == 'atomicack':
                r[h] = {'orig': hex64(v['orig'])}
            else:
                r[h] = v
        return r


def default_ext(op, i):
    """Distinct, hand-chosen extension header values for the i-th packet of a capture."""
    return dict(
        rdeth={'eecnxt': 0x0a0b00 + i},
        deth={'qkey': 0x11220000 + i, 'sqpn': 0x000300 + i},
        xrceth={'xrcsrq': 0x00c000 + i},
        reth={'va': 0x00007f1200000000 + i * 0x10000 + 0x40, 'rkey': 0x1000 + i * 0x11,
              'len': 4096 + i},
        feth={'sel': i % 4, 'plt': (i * 3 + 1) % 16},
        atomic={'va': 0x00007e0000001000 + i * 8, 'rkey': 0x00a0 + i,
                'swap': 0x0102030405060708 + i, 'cmp': 0x1112131415161718 + i},
        aeth={'syndrome': 0x1f if i % 2 else i % 0x20, 'msn': 0x000100 + i},
        atomicack={'orig': 0xfedcba9876543210 - i},
        imm=0xdead0000 + i,
        ieth=0x5678 + i * 0x100,
    )


def payload_size(op, i):
    """A payload size suitable for opcode op (0 for opcodes that carry none)."""
    hdrs = ext_headers(op) or []
    x = op & 0x1f
    if 'atomic' in hdrs or 'feth' in hdrs or 'atomicack' in hdrs:
        return 0
    if op == 0x81:
        return 16
    if op & 0xe0 != 0x60 and x in (0x0c, 0x11, 0x15) and op & 0xe0 != 0x80:
        return 0                      # READ REQUEST, ACK, RESYNC
    if op == 0x1d:
        return 8                      # ATOMIC WRITE carries exactly 8 bytes
    return 4 + (i * 5) % 29           # 4..32, so all pad counts occur


# --------------------------------------------------------------------------------------------
# ICRC
# --------------------------------------------------------------------------------------------

def _masked_ip(pkt, l3):
    """Masked IP header (incl. options / ext headers) and the offset of the next header."""
    ver = pkt[l3] >> 4
    if ver == 4:
        ihl = (pkt[l3] & 15) * 4
        h = bytearray(pkt[l3:l3 + ihl])
        h[1] = 0xff
        h[8] = 0xff
        h[10:12] = b'\xff\xff'
        return bytes(h), l3 + ihl, 17
    h = bytearray(pkt[l3:l3 + 40])
    h[0] |= 0x0f
    h[1:4] = b'\xff\xff\xff'
    h[7] = 0xff
    nh, off = pkt[l3 + 6], l3 + 40
    while nh in (0, 43, 60):
        hl = (pkt[off + 1] + 1) * 8
        h += pkt[off:off + hl]
        nh = pkt[off]
        off += hl
    return bytes(h), off, nh


def icrc_v2(pkt, l3):
    """ICRC value of the RoCEv2 packet whose IP header starts at l3 (UDP length decides the end)."""
    iph, l4, nh = _masked_ip(pkt, l3)
    assert nh == 17
    udp = bytearray(pkt[l4:l4 + 8])
    ulen = struct.unpack('!H', udp[4:6])[0]
    udp[6:8] = b'\xff\xff'
    tr = bytearray(pkt[l4 + 8:l4 + ulen - 4])
    tr[4] = 0xff
    return zlib.crc32(b'\xff' * 8 + iph + bytes(udp) + bytes(tr)) & 0xffffffff


def icrc_v1(pkt, l3, end):
    """ICRC value of the RoCEv1 packet: GRH at l3, ICRC ends at end."""
    grh = bytearray(pkt[l3:l3 + 40])
    grh[0] |= 0x0f
    grh[1:4] = b'\xff\xff\xff'
    grh[7] = 0xff
    tr = bytearray(pkt[l3 + 40:end - 4])
    tr[4] = 0xff
    return zlib.crc32(b'\xff' * 8 + bytes(grh) + bytes(tr)) & 0xffffffff


def scapy_icrc_v4(ipbytes):
    """scapy.contrib.roce's ICRC for an IPv4 RoCEv2 packet (ip header .. ICRC)."""
    p = IP(ipbytes)
    b = p[scapy_roce.BTH]
    b.icrc = None
    return raw(p)[-4:]


# --------------------------------------------------------------------------------------------
# framing
# --------------------------------------------------------------------------------------------

def mac(n):
    return bytes([0x02, 0x00, 0x5e, 0x10, (n >> 8) & 0xff, n & 0xff])


def l2(tags, ethertype, smac=1, dmac=2):
    """Ethernet II header with VLAN tags [(tpid, pcp, dei, vid), ...] (outer first)."""
    b = mac(dmac) + mac(smac)
    for tpid, pcp, dei, vid in tags:
        b += struct.pack('!HH', tpid, (pcp << 13) | (dei << 12) | vid)
    return b + struct.pack('!H', ethertype)


def q(vid, pcp=0, dei=0):
    return (0x8100, pcp, dei, vid)


def ad(vid, pcp=0, dei=0):
    return (0x88a8, pcp, dei, vid)


def ntop(b):
    if len(b) == 4:
        return socket.inet_ntop(socket.AF_INET, b)
    return socket.inet_ntop(socket.AF_INET6, b)


def canon(addr):
    if ':' in addr:
        return ntop(socket.inet_pton(socket.AF_INET6, addr))
    return addr


def vxlan(inner, vni, sport=49999, src="172.16.0.1", dst="172.16.0.2", tags=()):
    hdr = struct.pack('!BBHI', 0x08, 0, 0, vni << 8)
    ip = IP(src=src, dst=dst, ttl=63, id=0x4242) / UDP(sport=sport, dport=4789, chksum=0) / \
        Raw(hdr + inner)
    return l2(list(tags), 0x0800, 0x71, 0x72) + raw(ip)


def erspan2(inner, session, index, vlan=0, cos=0, seq=1, src="172.16.1.1", dst="172.16.1.2"):
    hdr = struct.pack('!HHI', (1 << 12) | vlan, (cos << 13) | session, index & 0xfffff)
    gre = GRE(seqnum_present=1, seqence_number=seq, proto=0x88be)
    ip = IP(src=src, dst=dst, ttl=62, id=0x3131) / gre / Raw(hdr + inner)
    return l2([], 0x0800, 0x81, 0x82) + raw(ip)


def erspan3(inner, session, ts, sgt=0, hw=1, vlan=0, platform=None, seq=1, v6=False,
            src="172.16.2.1", dst="172.16.2.2"):
    o = 1 if platform is not None else 0
    hdr = struct.pack('!HHIHH', (2 << 12) | vlan, session, ts, sgt,
                      (0 << 15) | (0 << 10) | (hw << 4) | (0 << 3) | (3 << 1) | o)
    if platform is not None:
        hdr += platform
    gre = GRE(seqnum_present=1, seqence_number=seq, proto=0x22eb)
    if v6:
        ip = IPv6(src="2001:db8:ffff::1", dst="2001:db8:ffff::2", hlim=61) / gre / Raw(hdr + inner)
        return l2([], 0x86dd, 0x91, 0x92) + raw(ip)
    ip = IP(src=src, dst=dst, ttl=61, id=0x2323) / gre / Raw(hdr + inner)
    return l2([], 0x0800, 0x91, 0x92) + raw(ip)


def gre_raw(inner, proto, src="172.16.3.1", dst="172.16.3.2"):
    ip = IP(src=src, dst=dst, ttl=60, id=0x1515) / GRE(proto=proto) / Raw(inner)
    return l2([], 0x0800, 0xa1, 0xa2) + raw(ip)


class Frame:
    def __init__(self, data, exp=None, note='', wirelen=None, policy=None, meta=None):
        self.data = data
        self.exp = exp            # expected record without type/frame/ts/len/caplen, or None
        self.note = note
        self.wirelen = wirelen if wirelen is not None else len(data)
        self.policy = policy
        self.meta = meta or {}    # offsets used to derive truncated copies


def roce2(tr, *, src="10.1.0.1", dst="10.1.0.2", sport=49152, dport=ROCE_PORT, tags=(),
          dscp=26, ecn=2, ttl=64, ipid=1, ip_opts=None, v6=False, v6ext=(), flowlabel=0,
          hlim=64, smac=1, dmac=2, icrc=None, post=None, trailer=b'', udp_len=None,
          ip_len=None, note='', expect=True, policy=None, cm=None, icrc_exp=None):
    """An Ethernet frame carrying one RoCEv2 packet.

    icrc: None = correct, int = this value on the wire instead.  post(bytearray, l3): mutate
    the finished frame (used to change ICRC-masked fields after the ICRC was computed)."""
    body = tr.bytes() + b'\0\0\0\0'
    udp = UDP(sport=sport, dport=dport, len=udp_len)
    if v6:
        ip = IPv6(src=src, dst=dst, tc=(dscp << 2) | ecn, fl=flowlabel, hlim=hlim, plen=ip_len)
        for e in v6ext:
            ip = ip / e
        pkt = ip / udp / Raw(body)
    else:
        ip = IP(src=src, dst=dst, tos=(dscp << 2) | ecn, ttl=ttl, id=ipid, len=ip_len,
                options=ip_opts or [])
        pkt = ip / udp / Raw(body)
    ipb = bytearray(raw(pkt))
    hdr = l2(list(tags), 0x86dd if v6 else 0x0800, smac, dmac)
    l3 = len(hdr)
    frame = bytearray(hdr + ipb)
    _, l4, _ = _masked_ip(frame, l3)
    ulen = struct.unpack('!H', frame[l4 + 4:l4 + 6])[0]
    roce_end = l4 + ulen                       # the ICRC ends here (per the UDP length)
    honest = udp_len is None and ip_len is None
    if honest:
        c = icrc_v2(frame, l3)
        frame[roce_end - 4:roce_end] = struct.pack('<I', c)
        if not v6 and dport == ROCE_PORT:
            ref = scapy_icrc_v4(bytes(frame[l3:roce_end]))
            assert ref == struct.pack('<I', c), "ICRC differs from scapy.contrib.roce"
        if icrc is not None:
            frame[roce_end - 4:roce_end] = struct.pack('<I', icrc)
    if post:
        post(frame, l3)
    frame = bytes(frame) + trailer
    exp = None
    if expect:
        exp = dict(roce=2, src=canon(src), dst=canon(dst), sport=sport, dport=dport)
        if tags:
            exp['vlan'] = [t[3] for t in tags]
        exp['dscp'] = dscp
        exp['ecn'] = ecn
        exp.update(tr.expect())
        exp['payload_len'] = ulen - 8 - tr.hdr_len() - tr.pad - 4 if tr.known else \
            ulen - 8 - 12 - tr.pad - 4
        if icrc_exp is not None:
            exp['icrc'] = icrc_exp
        else:
            exp['icrc'] = 'ok' if icrc is None else 'bad'
        if cm is not None:
            exp['cm'] = cm
    meta = dict(bth=l4 + 8, hdr_end=l4 + 8 + tr.hdr_len(), roce_end=roce_end,
                known=tr.known, hdrs=list(tr.hdrs), mad=l4 + 8 + tr.hdr_len() if cm else None)
    return Frame(frame, exp, note, policy=policy, meta=meta)


def roce1(tr, *, sgid, dgid, tclass=0x68, flow=0x12345, hlim=64, tags=(), icrc=None, note=''):
    """RoCEv1: Ethertype 0x8915 + GRH (next header 0x1b) + BTH ..."""
    body = tr.bytes() + b'\0\0\0\0'
    s = socket.inet_pton(socket.AF_INET6, sgid)
    d = socket.inet_pton(socket.AF_INET6, dgid)
    grh = struct.pack('!IHBB', (6 << 28) | (tclass << 20) | flow, len(body), 0x1b, hlim) + s + d
    hdr = l2(list(tags), 0x8915, 5, 6)
    frame = bytearray(hdr + grh + body)
    l3 = len(hdr)
    c = icrc_v1(frame, l3, len(frame))
    frame[-4:] = struct.pack('<I', c if icrc is None else icrc)
    exp = dict(roce=1, src=ntop(s), dst=ntop(d))
    if tags:
        exp['vlan'] = [t[3] for t in tags]
    exp['dscp'] = tclass >> 2
    exp['ecn'] = tclass & 3
    exp.update(tr.expect())
    exp['payload_len'] = len(body) - tr.hdr_len() - tr.pad - 4
    exp['icrc'] = 'ok' if icrc is None else 'bad'
    meta = dict(bth=l3 + 40, hdr_end=l3 + 40 + tr.hdr_len(), roce_end=len(frame),
                known=tr.known, hdrs=list(tr.hdrs), mad=None)
    return Frame(bytes(frame), exp, note, meta=meta)


def wrap(f, encap_fn, names):
    """Encapsulate frame f (built by roce2/roce1) with encap_fn(inner) -> outer frame.

    "vlan" keeps the tags of the inner Ethernet header (the one that carries the RoCE packet);
    tags of the underlay are not reported.  "encap" lists the encapsulations outer first."""
    outer = encap_fn(f.data)
    shift = len(outer) - len(f.data)
    # the inner frame is always the tail of the outer frame
    assert outer[shift:] == f.data
    g = Frame(outer, f.exp, f.note, policy=f.policy)
    g.meta = dict(f.meta)
    for k in ('bth', 'hdr_end', 'roce_end', 'mad'):
        if g.meta.get(k) is not None:
            g.meta[k] += shift
    if g.exp is not None:
        e = dict(g.exp)
        vlan = e.pop('vlan', [])
        e.pop('encap', None)
        head = {k: e.pop(k) for k in ('roce', 'src', 'dst', 'sport', 'dport') if k in e}
        if vlan:
            head['vlan'] = vlan
        head['encap'] = list(names)
        head.update(e)
        g.exp = head
    return g


def other(data, note):
    return Frame(bytes(data), None, note)


# --------------------------------------------------------------------------------------------
# RDMA CM MADs (IBA 12.6, 13.4; RDMA IP CM Service Annex A11)
# --------------------------------------------------------------------------------------------

CM_ATTR = {0x0010: 'ConnectRequest', 0x0011: 'MRA', 0x0012: 'ConnectReject',
           0x0013: 'ConnectReply', 0x0014: 'ReadyToUse', 0x0015: 'DisconnectRequest',
           0x0016: 'DisconnectReply', 0x0017: 'SIDR_REQ', 0x0018: 'SIDR_REP', 0x0019: 'LAP',
           0x001a: 'APR'}


def mad(attr, tid, data, method=0x03):
    assert len(data) == 232
    return struct.pack('!BBBBHHQHHI', 1, 0x07, 2, method, 0, 0, tid, attr, 0, 0) + data


def v4mapped(ip):
    return b'\0' * 10 + b'\xff\xff' + socket.inet_aton(ip)


def cm_req(tid, lcid, sid, qpn, psn, sip, dip, sport, qkey=0x80010000):
    d = bytearray(232)
    struct.pack_into('!II', d, 0, lcid, 0)
    struct.pack_into('!Q', d, 8, sid)
    struct.pack_into('!Q', d, 16, 0x0250560000c0ffee)          # local CA GUID
    struct.pack_into('!I', d, 28, qkey)
    struct.pack_into('!I', d, 32, (qpn << 8) | 0x10)           # QPN | responder resources
    struct.pack_into('!I', d, 36, (0 << 8) | 0x10)             # EECN | initiator depth
    struct.pack_into('!I', d, 40, (0 << 8) | (20 << 3) | (0 << 1) | 1)  # RC, e2e flow ctl
    struct.pack_into('!I', d, 44, (psn << 8) | (20 << 3) | 7)
    struct.pack_into('!H', d, 48, 0xffff)
    d[50] = (3 << 4) | 7                                        # MTU 1024, RNR retry 7
    d[51] = (15 << 4)                                           # max CM retries
    struct.pack_into('!HH', d, 52, 0xffff, 0xffff)              # permissive LIDs (RoCE)
    d[56:72] = v4mapped(sip)
    d[72:88] = v4mapped(dip)
    struct.pack_into('!I', d, 88, (0 << 12) | 0)
    d[92], d[93], d[94], d[95] = 0, 64, 0x08, 18 << 3
    # private data @140: RDMA IP CM header (version 0, IPv4) + consumer data
    struct.pack_into('!BBH', d, 140, 0x00, 0x40, sport)
    d[144 + 12:144 + 16] = socket.inet_aton(sip)
    d[160 + 12:160 + 16] = socket.inet_aton(dip)
    d[176:184] = b'rtel-req'
    return mad(0x0010, tid, bytes(d)), dict(attr='ConnectRequest', tid=hex64(tid), lcid=lcid,
                                           local_qpn=qpn, start_psn=psn,
                                           service_id=hex64(sid))


def cm_rep(tid, lcid, rcid, qpn, psn, qkey=0):
    d = bytearray(232)
    struct.pack_into('!III', d, 0, lcid, rcid, qkey)
    struct.pack_into('!I', d, 12, qpn << 8)
    struct.pack_into('!I', d, 16, 0)
    struct.pack_into('!I', d, 20, psn << 8)
    d[24], d[25], d[26], d[27] = 0x10, 0x10, (15 << 3) | 1, (7 << 5)
    struct.pack_into('!Q', d, 28, 0x0250560000beef01)
    d[36:44] = b'rtel-rep'
    return mad(0x0013, tid, bytes(d)), dict(attr='ConnectReply', tid=hex64(tid), lcid=lcid,
                                           rcid=rcid, local_qpn=qpn, start_psn=psn)


def cm_simple(attr, tid, lcid, rcid, rqpn=None, reason=None):
    d = bytearray(232)
    struct.pack_into('!II', d, 0, lcid, rcid)
    e = dict(attr=CM_ATTR[attr], tid=hex64(tid), lcid=lcid, rcid=rcid)
    if attr == 0x0015:
        struct.pack_into('!I', d, 8, rqpn << 8)
        e['remote_qpn'] = rqpn
    if attr == 0x0012:
        d[8] = 0 << 6                                           # REJ for REQ
        struct.pack_into('!H', d, 10, reason)
        e['rej_reason'] = reason
    return mad(attr, tid, bytes(d)), e


def cm_frame(madbytes, cmexp, i, *, src, dst, sport, psn):
    tr = Tr(0x64, psn=psn, dqpn=1, pkey=0xffff, deth={'qkey': 0x80010000, 'sqpn': 1},
            payload=madbytes)
    return roce2(tr, src=src, dst=dst, sport=sport, dscp=0, ecn=0, cm=cmexp,
                 note="CM %s" % cmexp['attr'])


# --------------------------------------------------------------------------------------------
# the captures
# --------------------------------------------------------------------------------------------

def tr_for(op, i, **kw):
    ext = default_ext(op, i)
    n = payload_size(op, i)
    kw.setdefault('psn', 0x100000 + i * 3)
    kw.setdefault('dqpn', 0x000400 + i)
    return Tr(op, payload=kw.pop('payload', pattern(n, i)), **kw, **ext)


def cap_rc():
    """RC 0x00-0x14, 0x16, 0x17, FLUSH 0x1c, ATOMIC WRITE 0x1d; BTH flag and pad variety."""
    fr = []
    ops = list(range(0x00, 0x15)) + [0x16, 0x17, 0x1c, 0x1d]
    for i, op in enumerate(ops):
        kw = dict(se=i % 2, m=(i // 2) % 2, a=(i // 3) % 2, tver=0,
                  pkey=[0xffff, 0x8001, 0x7fff, 0x1234][i % 4])
        tr = tr_for(op, i, **kw)
        fr.append(roce2(tr, src="10.1.0.1", dst="10.1.0.2", sport=49152 + i, dscp=26, ecn=2,
                        ipid=0x100 + i, note="RC opcode 0x%02x" % op))
    # pad counts 0..3 explicitly, and tver != 0
    for p in range(4):
        op = 0x04
        tr = Tr(op, psn=0xfffff0 + p, dqpn=0xabcdef, tver=p, payload=pattern(8 + (4 - p) % 4, p),
                pad=p)
        fr.append(roce2(tr, sport=50000 + p, note="RC SEND ONLY pad %d tver %d" % (p, p),
                        policy=None if p == 0 else "a record although TVer != 0 (the schema "
                        "reports tver; tshark shows the frame)"))
    return fr


def cap_uc_ud():
    fr = []
    for i, op in enumerate(range(0x20, 0x2c)):
        tr = tr_for(op, i, se=(i + 1) % 2, pkey=0x8000 + i)
        fr.append(roce2(tr, src="10.2.0.1", dst="10.2.0.2", sport=52000 + i, dscp=10, ecn=1,
                        note="UC opcode 0x%02x" % op))
    for j, op in enumerate((0x64, 0x65)):
        i = 20 + j
        tr = tr_for(op, i, dqpn=0x000777)
        fr.append(roce2(tr, src="10.2.0.3", dst="10.2.0.4", sport=52100 + j, dscp=46, ecn=0,
                        note="UD opcode 0x%02x" % op))
    return fr


def cap_rd():
    fr = []
    for i, op in enumerate(range(0x40, 0x56)):
        tr = tr_for(op, i, a=i % 2)
        fr.append(roce2(tr, src="10.3.0.1", dst="10.3.0.2", sport=53000 + i, dscp=8, ecn=0,
                        note="RD opcode 0x%02x" % op))
    return fr


def cap_xrc():
    fr = []
    ops = list(range(0xa0, 0xb5)) + [0xb6, 0xb7]
    for i, op in enumerate(ops):
        tr = tr_for(op, i, m=i % 2)
        fr.append(roce2(tr, src="10.4.0.1", dst="10.4.0.2", sport=54000 + i, dscp=18, ecn=1,
                        note="XRC opcode 0x%02x" % op))
    return fr


def _set_ecn(val):
    def f(frame, l3):
        frame[l3 + 1] = (frame[l3 + 1] & 0xfc) | val
        frame[l3 + 10:l3 + 12] = b'\0\0'
        s = 0
        for k in range(0, 20, 2):
            s += (frame[l3 + k] << 8) | frame[l3 + k + 1]
        while s >> 16:
            s = (s & 0xffff) + (s >> 16)
        frame[l3 + 10:l3 + 12] = struct.pack('!H', (~s) & 0xffff)
        # a switch changes TTL and UDP checksum too: both are masked out of the ICRC
        frame[l3 + 8] -= 1
        s = 0
        frame[l3 + 10:l3 + 12] = b'\0\0'
        for k in range(0, 20, 2):
            s += (frame[l3 + k] << 8) | frame[l3 + k + 1]
        while s >> 16:
            s = (s & 0xffff) + (s >> 16)
        frame[l3 + 10:l3 + 12] = struct.pack('!H', (~s) & 0xffff)
    return f


def _set_becn(frame, l3):
    bth = l3 + 20 + 8
    frame[bth + 4] |= 0x40


def cap_cnp_ecn():
    fr = []
    # CNP 0x81: BTH (BECN set) + 16 reserved bytes
    for i, (fe, be) in enumerate([(0, 1), (1, 1), (0, 0), (1, 0)]):
        tr = Tr(0x81, psn=0, dqpn=0x000500 + i, fecn=fe, becn=be, pkey=0xffff,
                payload=b'\0' * 16)
        fr.append(roce2(tr, src="10.5.0.2", dst="10.5.0.1", sport=55000 + i, dscp=48, ecn=0,
                        note="CNP fecn=%d becn=%d" % (fe, be)))
    # data packets with all FECN/BECN combinations and all ECN codepoints
    for i, (fe, be) in enumerate([(0, 0), (1, 0), (0, 1), (1, 1)]):
        for ecn in range(4):
            k = i * 4 + ecn
            tr = tr_for(0x0a, k, fecn=fe, becn=be, resv6=(k * 5) % 64)
            fr.append(roce2(tr, src="10.5.0.1", dst="10.5.0.2", sport=55100 + k,
                            dscp=(k * 7) % 64, ecn=ecn,
                            note="WRITE ONLY fecn=%d becn=%d ecn=%d resv6=%d" %
                                 (fe, be, ecn, (k * 5) % 64)))
    # a switch marks CE (and decrements TTL) after the sender computed the ICRC: still ok
    tr = tr_for(0x04, 30)
    f = roce2(tr, src="10.5.0.1", dst="10.5.0.2", sport=55200, dscp=26, ecn=2,
              post=_set_ecn(3), note="ECN CE + TTL set by a switch after ICRC: ICRC ok")
    f.exp['ecn'] = 3
    fr.append(f)
    # BECN set after the ICRC was computed: masked, still ok
    tr = tr_for(0x04, 31)
    f = roce2(tr, src="10.5.0.1", dst="10.5.0.2", sport=55201, post=_set_becn,
              note="BECN set after ICRC: ICRC ok")
    f.exp['becn'] = 1
    fr.append(f)
    return fr


def cap_aeth():
    fr = []
    syn = [0x00, 0x05, 0x1f, 0x20, 0x2e, 0x3f, 0x45, 0x60, 0x61, 0x62, 0x63, 0x64, 0x65, 0x9f]
    for i, s in enumerate(syn):
        tr = Tr(0x11, psn=0x00a000 + i, dqpn=0x000611, aeth={'syndrome': s, 'msn': 0xfff000 + i})
        fr.append(roce2(tr, src="10.6.0.2", dst="10.6.0.1", sport=56000 + i, dscp=26, ecn=0,
                        note="ACK syndrome 0x%02x" % s))
    # ATOMIC ACK and READ RESPONSE FIRST/LAST/ONLY with NAK-free syndromes
    ext = default_ext(0x12, 40)
    fr.append(roce2(Tr(0x12, psn=0x00a100, dqpn=0x000611, aeth={'syndrome': 0x1f, 'msn': 77},
                       atomicack=ext['atomicack']), sport=56100, note="ATOMIC ACK"))
    return fr


def cap_l2():
    fr = []
    variants = [
        ([], "untagged Ethernet II"),
        ([q(100)], "802.1Q vid 100"),
        ([q(0, pcp=3)], "802.1Q priority tag vid 0 pcp 3"),
        ([q(4095, pcp=7, dei=1)], "802.1Q vid 4095 pcp 7 dei 1"),
        ([ad(300), q(42)], "802.1ad QinQ 300/42"),
        ([q(10), q(20)], "double 802.1Q 10/20"),
        ([ad(1000, pcp=5), q(2000), q(3000)], "triple stack 1000/2000/3000"),
        ([(0x9100, 0, 0, 77), q(88)], "0x9100 outer 77 + 802.1Q 88"),
    ]
    for i, (tags, note) in enumerate(variants):
        tr = tr_for(0x0a if i % 2 else 0x04, i)
        fr.append(roce2(tr, tags=tags, src="10.7.0.1", dst="10.7.0.2", sport=57000 + i,
                        dscp=i * 8, ecn=i % 4, note=note))
    # IPv6 in QinQ
    tr = tr_for(0x11, 9)
    fr.append(roce2(tr, tags=[ad(11), q(12)], v6=True, src="fd00:7::1", dst="fd00:7::2",
                    sport=57100, dscp=34, ecn=1, note="IPv6 in 802.1ad QinQ"))
    return fr


def cap_ipv4():
    fr = []
    opts = [
        ([IPOption_Router_Alert()], "IPv4 option Router Alert (ihl 6)"),
        ([IPOption_NOP(), IPOption_RR(routers=["192.0.2.1", "192.0.2.2"])],
         "IPv4 options NOP + Record Route (ihl 8)"),
        ([IPOption_RR(routers=["198.51.100.%d" % k for k in range(1, 10)])],
         "IPv4 option Record Route with 9 slots (ihl 15, 40 option bytes)"),
    ]
    for i, (o, note) in enumerate(opts):
        tr = tr_for([0x0a, 0x06, 0x11][i], i)
        fr.append(roce2(tr, ip_opts=o, src="10.8.0.1", dst="10.8.0.2", sport=58000 + i,
                        note=note,
                        policy="ICRC covers the IPv4 options unmasked (as scapy.contrib.roce "
                               "does); a parser that assumes a 20-byte header gets 'bad'"))
    # fragments: the first one has UDP dport 4791 and a BTH, the others do not
    tr = tr_for(0x0a, 5, payload=pattern(200, 5))
    whole = roce2(tr, src="10.8.0.1", dst="10.8.0.2", sport=58010, ipid=0x7777)
    ipb = whole.data[14:]
    p = IP(ipb)
    payload = raw(p.payload)
    first, rest = payload[:96], payload[96:]
    for k, (off, mf, chunk) in enumerate([(0, 1, first), (96 // 8, 0, rest)]):
        ip = IP(src="10.8.0.1", dst="10.8.0.2", tos=p.tos, ttl=p.ttl, id=0x7777, proto=17,
                flags='MF' if mf else 0, frag=off) / Raw(chunk)
        fr.append(other(l2([], 0x0800) + raw(ip),
                        "IPv4 fragment %d of a RoCE packet (offset %d, MF=%d): not decodable, "
                        "counted" % (k + 1, off * 8, mf)))
    # a lone middle fragment claiming UDP-like bytes
    ip = IP(src="10.8.0.3", dst="10.8.0.4", id=0x7778, proto=17, flags='MF', frag=8) / \
        Raw(struct.pack('!HHHH', 1234, ROCE_PORT, 40, 0) + pattern(32, 9))
    fr.append(other(l2([], 0x0800) + raw(ip), "IPv4 middle fragment whose bytes look like "
                    "UDP to 4791: not RoCE"))
    # IPv6 fragment header (first fragment)
    ip = IPv6(src="fd00:8::1", dst="fd00:8::2") / IPv6ExtHdrFragment(id=0x99, m=1, offset=0, nh=17) / \
        Raw(struct.pack('!HHHH', 49152, ROCE_PORT, 120, 0) + tr.bytes()[:64])
    fr.append(other(l2([], 0x86dd) + raw(ip), "IPv6 first fragment (fragment header, M=1): "
                    "not decodable, counted"))
    # a plain one after the fragments so frame numbers are checked past them
    tr = tr_for(0x0b, 6)
    fr.append(roce2(tr, src="10.8.0.1", dst="10.8.0.2", sport=58020, note="plain IPv4 after "
                    "fragments"))
    return fr


def cap_ipv6():
    fr = []
    E = [
        ((), "IPv6 no extension headers, flow label 0xabcde"),
        ((IPv6ExtHdrHopByHop(options=[PadN(optdata=b'\0\0\0\0')]),), "IPv6 + Hop-by-Hop"),
        ((IPv6ExtHdrDestOpt(options=[PadN(optdata=b'\0' * 12)]),), "IPv6 + Destination Options"),
        ((IPv6ExtHdrRouting(addresses=["fd00:9::99"], segleft=0),), "IPv6 + Routing type 0"),
        ((IPv6ExtHdrHopByHop(), IPv6ExtHdrDestOpt(),
          IPv6ExtHdrRouting(addresses=["fd00:9::98", "fd00:9::97"], segleft=0),
          IPv6ExtHdrDestOpt(options=[PadN(optdata=b'\0\0\0\0')])),
         "IPv6 + HbH + DestOpt + Routing + DestOpt"),
        ((IPv6ExtHdrSegmentRouting(addresses=["fd00:9::2", "fd00:9::77"], segleft=0,
                                   lastentry=1),), "IPv6 + Segment Routing Header"),
    ]
    addrs = [("fd00:9::1", "fd00:9::2"), ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:2"),
             ("fe80::1", "fe80::2:3"), ("::ffff:10.9.0.1", "::ffff:10.9.0.2"),
             ("2001:db8:aaaa:bbbb:cccc:dddd:eeee:1", "2001:db8::"), ("fd00:9::1", "fd00:9::2")]
    for i, (ext, note) in enumerate(E):
        s, d = addrs[i]
        tr = tr_for([0x0a, 0x04, 0x11, 0x0c, 0x64, 0x10][i], i)
        fr.append(roce2(tr, v6=True, v6ext=ext, src=s, dst=d, sport=59000 + i, dscp=(i * 9) % 64,
                        ecn=(i + 1) % 4, flowlabel=0xabcde + i, hlim=64 - i, note=note,
                        policy=None if not ext else
                        "ICRC covers the IPv6 extension headers unmasked"))
    return fr


def cap_rocev1():
    fr = []
    sg, dg = "fe80::268a:7ff:fe11:2233", "fe80::268a:7ff:fe44:5566"
    for i, op in enumerate([0x04, 0x0a, 0x11, 0x0c, 0x10]):
        fr.append(roce1(tr_for(op, i), sgid=sg, dgid=dg, tclass=(i * 4 + 1) & 0xff,
                        note="RoCEv1 opcode 0x%02x" % op))
    fr.append(roce1(tr_for(0x64, 5), sgid="::ffff:10.10.0.1", dgid="::ffff:10.10.0.2",
                    tclass=0x6a, tags=[q(55, pcp=3)], note="RoCEv1 UD over 802.1Q, IPv4-mapped GIDs"))
    fr.append(roce1(tr_for(0x0a, 6), sgid=sg, dgid=dg, icrc=0x01020304,
                    note="RoCEv1 with a bad ICRC"))
    return fr


def cap_tunnels():
    fr = []
    f = roce2(tr_for(0x0a, 0), src="10.11.0.1", dst="10.11.0.2", sport=61000, dscp=26, ecn=1)
    fr.append(wrap(f, lambda b: vxlan(b, 0x123456), ['vxlan']))
    f = roce2(tr_for(0x11, 1), v6=True, src="fd00:11::1", dst="fd00:11::2", sport=61001)
    fr.append(wrap(f, lambda b: vxlan(b, 0x000042, sport=50001), ['vxlan']))
    f = roce2(tr_for(0x04, 2), src="10.11.0.3", dst="10.11.0.4", sport=61002)
    fr.append(wrap(f, lambda b: erspan2(b, session=0x155, index=0x12345, vlan=10, cos=3, seq=7),
                   ['erspan2']))
    f = roce2(tr_for(0x0c, 3), src="10.11.0.5", dst="10.11.0.6", sport=61003, tags=[q(321)])
    fr.append(wrap(f, lambda b: erspan2(b, session=0x2aa, index=9, seq=8), ['erspan2']))
    f = roce2(tr_for(0x10, 4), src="10.11.0.7", dst="10.11.0.8", sport=61004)
    fr.append(wrap(f, lambda b: erspan3(b, session=0x3ff, ts=0x11223344, sgt=0x55, seq=9),
                   ['erspan3']))
    f = roce2(tr_for(0x13, 5), src="10.11.0.9", dst="10.11.0.10", sport=61005)
    fr.append(wrap(f, lambda b: erspan3(b, session=0x101, ts=0x55667788,
                                        platform=struct.pack('!II', (3 << 26) | 0x1234, 0x9abc),
                                        seq=10), ['erspan3']))
    f = roce2(tr_for(0x64, 6), v6=True, src="fd00:11::5", dst="fd00:11::6", sport=61006)
    fr.append(wrap(f, lambda b: erspan3(b, session=0x102, ts=1, seq=11, v6=True), ['erspan3']))
    # VXLAN inside ERSPAN II
    f = roce2(tr_for(0x0a, 7), src="10.11.1.1", dst="10.11.1.2", sport=61007)
    g = wrap(f, lambda b: vxlan(b, 0x00beef, sport=50007), ['vxlan'])
    fr.append(wrap(g, lambda b: erspan2(b, session=0x003, index=3, seq=12), ['erspan2', 'vxlan']))
    # RoCEv1 inside VXLAN
    f = roce1(tr_for(0x04, 8), sgid="fe80::1", dgid="fe80::2", tclass=0)
    fr.append(wrap(f, lambda b: vxlan(b, 0x000101, sport=50008), ['vxlan']))
    # outer VLAN on the VXLAN underlay plus an inner VLAN
    f = roce2(tr_for(0x0a, 9), src="10.11.2.1", dst="10.11.2.2", sport=61009, tags=[q(200)])
    g = wrap(f, lambda b: vxlan(b, 0x000909, sport=50009, tags=[q(100)]), ['vxlan'])
    g.policy = ("vlan lists only the tags of the Ethernet header that carries the RoCE packet "
                "(inner frame), not the underlay's; the schema does not say which")
    fr.append(g)
    # ERSPAN III inside VXLAN: encap lists outer first
    f = roce2(tr_for(0x0a, 12), src="10.11.4.1", dst="10.11.4.2", sport=61012)
    g = wrap(f, lambda b: erspan3(b, session=0x104, ts=4, seq=13), ['erspan3'])
    g = wrap(g, lambda b: vxlan(b, 0x000404, sport=50012), ['vxlan', 'erspan3'])
    g.policy = "encap lists the encapsulations in frame order, outermost first"
    fr.append(g)
    # ERSPAN type I (GRE 0x88be without sequence number and without ERSPAN header)
    f = roce2(tr_for(0x04, 13), src="10.11.5.1", dst="10.11.5.2", sport=61013)
    g = wrap(f, lambda b: gre_raw(b, 0x88be), ['erspan1'])
    g.policy = "encap name 'erspan1' (not in the schema's list; the analyzer's name)"
    fr.append(g)
    # transparent Ethernet bridging over GRE (0x6558)
    f = roce2(tr_for(0x0a, 14), src="10.11.6.1", dst="10.11.6.2", sport=61014)
    g = wrap(f, lambda b: gre_raw(b, 0x6558), ['gre-teb'])
    g.policy = "encap name 'gre-teb' (not in the schema's list; the analyzer's name)"
    fr.append(g)
    # UDP 4789 that is not VXLAN-shaped RoCE: VXLAN carrying ARP
    arp = l2([], 0x0806, 0x21, 0x22) + raw(ARP(psrc="10.11.3.1", pdst="10.11.3.2"))
    fr.append(other(vxlan(arp, 0x000777, sport=50010), "VXLAN carrying ARP: no record"))
    return fr


def cap_cm():
    fr = []
    A, B = "192.168.50.1", "192.168.50.2"
    sid = 0x0000000001061144
    tid1, tid2 = 0x00000002b90866ac, 0x00000003c0ffee01
    m, e = cm_req(tid1, 0x11223344, sid, 0x000017, 0x89bb0e, A, B, 0xc001)
    fr.append(cm_frame(m, e, 0, src=A, dst=B, sport=50100, psn=1))
    m, e = cm_rep(tid1, 0x55667788, 0x11223344, 0x000021, 0x4a5b6c)
    fr.append(cm_frame(m, e, 1, src=B, dst=A, sport=50101, psn=1))
    m, e = cm_simple(0x0014, tid1, 0x11223344, 0x55667788)
    fr.append(cm_frame(m, e, 2, src=A, dst=B, sport=50100, psn=2))
    # traffic on the connection
    fr.append(roce2(Tr(0x0a, psn=0x89bb0e, dqpn=0x21, a=1,
                       reth={'va': 0x0000aaab26b58000, 'rkey': 0x1f2e3d, 'len': 18},
                       payload=pattern(18, 3)), src=A, dst=B, sport=50102, dscp=0, ecn=0,
                    note="RC WRITE ONLY on the CM connection"))
    fr.append(roce2(Tr(0x11, psn=0x89bb0e, dqpn=0x17, aeth={'syndrome': 0x1f, 'msn': 1}),
                    src=B, dst=A, sport=50103, dscp=0, ecn=0, note="ACK"))
    m, e = cm_simple(0x0015, tid1 + 1, 0x11223344, 0x55667788, rqpn=0x000021)
    fr.append(cm_frame(m, e, 5, src=A, dst=B, sport=50100, psn=3))
    m, e = cm_simple(0x0016, tid1 + 1, 0x55667788, 0x11223344)
    fr.append(cm_frame(m, e, 6, src=B, dst=A, sport=50101, psn=2))
    # a second REQ (other service id) that is rejected
    m, e = cm_req(tid2, 0x0badcafe, 0x0000000001064e21, 0x000031, 0x000123, A, B, 0xc002)
    fr.append(cm_frame(m, e, 7, src=A, dst=B, sport=50104, psn=4))
    m, e = cm_simple(0x0012, tid2, 0x00000000, 0x0badcafe, reason=28)
    fr.append(cm_frame(m, e, 8, src=B, dst=A, sport=50105, psn=3))
    # MRA
    m, e = cm_simple(0x0011, tid2 + 5, 0x0badcafe, 0x00000000)
    fr.append(cm_frame(m, e, 9, src=B, dst=A, sport=50105, psn=4))
    # a GSI MAD of another class (Performance Management 0x04): a record without "cm"
    d = bytearray(232)
    struct.pack_into('!I', d, 40, 0x12345678)
    pm = struct.pack('!BBBBHHQHHI', 1, 0x04, 1, 0x01, 0, 0, 0x0000000000abc123, 0x0012, 0, 0) + \
        bytes(d)
    tr = Tr(0x64, psn=5, dqpn=1, deth={'qkey': 0x80010000, 'sqpn': 1}, payload=pm)
    fr.append(roce2(tr, src=A, dst=B, sport=50106, dscp=0, ecn=0,
                    note="PerfMgt MAD (class 0x04) on QP1: record without cm"))
    # QP1 datagrams shorter than a MAD
    tr = Tr(0x64, psn=6, dqpn=1, deth={'qkey': 0x80010000, 'sqpn': 1}, payload=pattern(40, 6))
    fr.append(roce2(tr, src=A, dst=B, sport=50107, dscp=0, ecn=0,
                    note="UD SEND ONLY to QP1 with 40 bytes that are not a CM MAD: record "
                         "without cm",
                    policy="a QP1 datagram of >= 24 bytes whose MAD class is not CM gets a "
                           "record (no cm) even when shorter than 256 bytes"))
    m, e = cm_req(0x77, 0x7777, 0x0000000001061144, 0x41, 0x42, A, B, 0xc009)
    tr = Tr(0x64, psn=7, dqpn=1, deth={'qkey': 0x80010000, 'sqpn': 1}, payload=m[:64])
    fr.append(roce2(tr, src=A, dst=B, sport=50108, dscp=0, ecn=0, expect=False,
                    note="UD SEND ONLY to QP1 with the first 64 bytes of a CM REQ (on the "
                         "wire, not a capture cut): malformed, no record",
                    policy="no record for a CM MAD shorter than 256 bytes on the wire"))
    tr = Tr(0x64, psn=8, dqpn=1, deth={'qkey': 0x80010000, 'sqpn': 1}, payload=pattern(16, 8))
    fr.append(roce2(tr, src=A, dst=B, sport=50109, dscp=0, ecn=0, expect=False,
                    note="UD SEND ONLY to QP1 with 16 bytes (< MAD header): malformed, no record",
                    policy="no record for a QP0/QP1 datagram shorter than a 24-byte MAD header"))
    return fr


def cap_corrupt():
    fr = []
    # bad ICRCs
    fr.append(roce2(tr_for(0x0a, 0), sport=62000, icrc=0xdeadbeef, note="ICRC replaced"))
    f = roce2(tr_for(0x04, 1), sport=62001, note="payload byte flipped after ICRC")
    d = bytearray(f.data)
    d[f.meta['hdr_end']] ^= 0x01
    f.data = bytes(d)
    f.exp['icrc'] = 'bad'
    fr.append(f)
    f = roce2(tr_for(0x11, 2), sport=62002, note="DestQP changed after ICRC")
    d = bytearray(f.data)
    d[f.meta['bth'] + 7] ^= 0x80
    f.data = bytes(d)
    f.exp['dqpn'] ^= 0x80
    f.exp['icrc'] = 'bad'
    fr.append(f)
    f = roce2(tr_for(0x04, 3), v6=True, src="fd00:12::1", dst="fd00:12::2", sport=62003,
              icrc=0, note="IPv6 with ICRC 0 (what scapy writes for IPv6)")
    fr.append(f)
    # ICRC byte order: the big-endian CRC value on the wire is wrong
    f = roce2(tr_for(0x0a, 4), sport=62004, note="ICRC written big-endian (byte-swapped)")
    d = bytearray(f.data)
    e = f.meta['roce_end']
    d[e - 4:e] = d[e - 4:e][::-1]
    f.data = bytes(d)
    f.exp['icrc'] = 'bad'
    fr.append(f)
    # unknown / reserved opcodes: BTH only, the rest is payload
    for i, op in enumerate([0x15, 0x18, 0x1e, 0x2c, 0x56, 0x60, 0x66, 0x80, 0xb5, 0xc0, 0xff]):
        tr = Tr(op, psn=0x000900 + i, dqpn=0x000900 + i, payload=pattern(12 + i, i))
        fr.append(roce2(tr, sport=62100 + i, note="unknown/reserved opcode 0x%02x" % op,
                        policy="a record with the BTH fields, no extension headers, everything "
                               "between BTH and ICRC counted as payload (tshark shows these "
                               "frames; 0xc0-0xff are manufacturer-specific opcodes, 0x80 is "
                               "reserved: the CNP opcode is 0x81)"))
    # Ethernet trailer: IP total length and UDP length are right, the frame is longer
    f = roce2(tr_for(0x11, 20), sport=62200, trailer=b'\0' * 6 + b'\xaa\xbb',
              note="8-byte Ethernet trailer after the IP packet: ICRC found by UDP length")
    fr.append(f)
    # UDP length smaller than the IP payload: the RoCE packet ends at the UDP length
    tr = tr_for(0x04, 21, payload=pattern(16, 21))
    body_len = len(tr.bytes()) + 4
    f = roce2(tr, sport=62201, udp_len=8 + body_len - 8,
              note="UDP length 8 bytes short of the IP payload",
              policy="the RoCE packet ends at the UDP length (ICRC at UDP end - 4); payload_len "
                     "follows the UDP length")
    # recompute the ICRC for the shortened packet (the honest path skipped it)
    dd = bytearray(f.data)
    c = icrc_v2(dd, 14)
    end = f.meta['roce_end']
    dd[end - 4:end] = struct.pack('<I', c)
    f.data = bytes(dd)
    f.exp['icrc'] = 'ok'
    fr.append(f)
    # UDP length larger than the IP payload
    tr = tr_for(0x04, 22, payload=pattern(16, 22))
    f = roce2(tr, sport=62202, udp_len=8 + len(tr.bytes()) + 4 + 100, expect=False,
              note="UDP length 100 bytes larger than the IP payload: malformed, no record",
              policy="no record for a UDP length beyond the IP payload")
    fr.append(f)
    # IP total length larger than the frame
    tr = tr_for(0x04, 23, payload=pattern(16, 23))
    f = roce2(tr, sport=62203, ip_len=20 + 8 + len(tr.bytes()) + 4 + 64, expect=False,
              note="IPv4 total length 64 bytes larger than the frame: malformed, no record",
              policy="no record when the IP total length exceeds the bytes on the wire")
    fr.append(f)
    # IP total length smaller than the frame (and UDP length consistent with it)
    tr = tr_for(0x04, 24, payload=pattern(16, 24))
    f = roce2(tr, sport=62204, trailer=pattern(12, 99), note="IP total length smaller than the "
              "frame (12 trailing bytes that are not zero): ICRC by UDP length")
    fr.append(f)
    # IPv6 payload length larger than the frame
    tr = tr_for(0x04, 25, payload=pattern(16, 25))
    f = roce2(tr, v6=True, src="fd00:12::1", dst="fd00:12::2", sport=62205,
              ip_len=8 + len(tr.bytes()) + 4 + 32, expect=False,
              note="IPv6 payload length 32 bytes larger than the frame: malformed, no record",
              policy="no record when the IP payload length exceeds the bytes on the wire")
    fr.append(f)
    # UDP payload shorter than BTH + ICRC
    ip = IP(src="10.1.0.1", dst="10.1.0.2") / UDP(sport=62206, dport=ROCE_PORT) / Raw(pattern(10, 1))
    fr.append(other(l2([], 0x0800) + raw(ip), "UDP 4791 with 10 bytes (< BTH + ICRC): "
                    "malformed, no record"))
    # UDP length claims less than a BTH + ICRC though the frame has more bytes
    tr = tr_for(0x04, 26, payload=pattern(16, 26))
    f = roce2(tr, sport=62207, udp_len=8 + 12, expect=False,
              note="UDP length 20 (12 bytes of UDP payload < BTH + ICRC): malformed, no record",
              policy="no record when the UDP payload is shorter than BTH + ICRC")
    fr.append(f)
    # pad count larger than the bytes between the headers and the ICRC
    tr = Tr(0x11, psn=0x000a00, dqpn=0x000a01, aeth={'syndrome': 0x1f, 'msn': 3}, pad=3,
            pad_bytes=0)
    fr.append(roce2(tr, sport=62208, expect=False,
                    note="ACK with pad count 3 and no payload/pad bytes: malformed, no record",
                    policy="no record when pad count > bytes between headers and ICRC"))
    # UDP length ends inside the RETH (the frame is complete: not a capture truncation)
    tr = tr_for(0x0a, 28)
    f = roce2(tr, sport=62209, udp_len=8 + 12 + 8, expect=False,
              note="UDP length ends 8 bytes into the RETH: malformed, no record",
              policy="no record when the RoCE packet is shorter than BTH + its extension "
                     "headers + ICRC")
    fr.append(f)
    # an ordinary frame last
    fr.append(roce2(tr_for(0x0a, 27), sport=62300, note="ordinary WRITE ONLY"))
    return fr


def cap_nonroce():
    fr = []
    fr.append(other(l2([], 0x0806) + raw(ARP(op=1, psrc="10.13.0.1", pdst="10.13.0.2")) +
                    b'\0' * 18, "ARP request"))
    fr.append(other(l2([], 0x0800) + raw(IP(src="10.13.0.1", dst="10.13.0.2") /
                                         TCP(sport=4791, dport=9000, flags='S')),
                    "TCP from port 4791"))
    fr.append(other(l2([], 0x0800) + raw(IP(src="10.13.0.1", dst="10.13.0.2") /
                                         TCP(sport=40000, dport=4791, flags='PA') /
                                         Raw(Tr(0x04, payload=b'abcd').bytes() + b'\0' * 4)),
                    "TCP to port 4791 carrying BTH-like bytes"))
    fr.append(roce2(tr_for(0x04, 3), src="10.13.0.1", dst="10.13.0.2", sport=50000,
                    note="RoCE between non-RoCE frames"))
    fr.append(other(l2([], 0x0800) + raw(IP(src="10.13.0.1", dst="10.13.0.3") /
                                         UDP(sport=33333, dport=53) / Raw(b'\x12\x34' + b'\0' * 10)),
                    "UDP to port 53"))
    tr = tr_for(0x0a, 5)
    fr.append(roce2(tr, src="10.13.0.1", dst="10.13.0.2", sport=50001, dport=4790, expect=False,
                    note="RoCE-shaped UDP to port 4790: no record"))
    fr.append(roce2(tr_for(0x0a, 6), src="10.13.0.2", dst="10.13.0.1", sport=ROCE_PORT,
                    dport=50002, expect=False,
                    note="UDP *source* port 4791, destination 50002: no record (tshark decodes "
                         "it as RRoCE because 4791 is the lower port)"))
    fr.append(roce2(tr_for(0x0a, 7), src="10.13.0.2", dst="10.13.0.1", sport=ROCE_PORT,
                    dport=4000, expect=False,
                    note="UDP source port 4791, destination 4000: no record"))
    fr.append(other(l2([], 0x86dd) + raw(IPv6(src="fd00:13::1", dst="fd00:13::2") /
                                         UDP(sport=546, dport=547) / Raw(b'\x01' * 8)),
                    "IPv6 UDP (DHCPv6)"))
    fr.append(other(l2([], 0x88cc) + b'\x02\x07\x04' + mac(9) + b'\0' * 20, "LLDP-like frame"))
    fr.append(other(l2([q(5)], 0x0806) + raw(ARP(op=2, psrc="10.13.0.2", pdst="10.13.0.1")) +
                    b'\0' * 14, "ARP reply in 802.1Q"))
    # RoCE with sport 69 (as in the oferby capture; tshark tries TFTP first)
    fr.append(roce2(Tr(0x11, psn=5, dqpn=0x45, aeth={'syndrome': 0x05, 'msn': 9}),
                    src="10.13.0.2", dst="10.13.0.1", sport=69, dscp=0, ecn=0,
                    note="RoCE ACK with UDP source port 69 (tshark: TFTP unless overridden)"))
    # ICMP errors quoting a whole RoCE packet: the quoted packet is not RoCE traffic
    quoted = roce2(tr_for(0x0a, 10), src="10.13.0.1", dst="10.13.0.2", sport=50004)
    fr.append(other(l2([], 0x0800) + raw(IP(src="10.13.0.2", dst="10.13.0.1") /
                                         ICMP(type=3, code=3) / Raw(quoted.data[14:])),
                    "ICMP port unreachable quoting a RoCE packet: no record"))
    quoted = roce2(tr_for(0x04, 11), v6=True, src="fd00:13::1", dst="fd00:13::2", sport=50005)
    fr.append(other(l2([], 0x86dd) + raw(IPv6(src="fd00:13::2", dst="fd00:13::1") /
                                         ICMPv6DestUnreach(code=4) / Raw(quoted.data[14:])),
                    "ICMPv6 port unreachable quoting a RoCE packet: no record"))
    fr.append(roce2(tr_for(0x0b, 9), src="10.13.0.1", dst="10.13.0.2", sport=50003,
                    note="RoCE last"))
    return fr


def truncated_copies(snap):
    """Copies of frames from the other captures cut to snap bytes (orig_len keeps wire length)."""
    src = []
    src += [roce2(tr_for(op, i), sport=63000 + i, src="10.14.0.1", dst="10.14.0.2",
                  note="opcode 0x%02x" % op)
            for i, op in enumerate([0x04, 0x0a, 0x0b, 0x11, 0x12, 0x13, 0x0c, 0x10, 0x64,
                                    0x65, 0x46, 0x4b, 0x53, 0xaa, 0xb3, 0x1c, 0x81])]
    src += [roce2(tr_for(0x0a, 20, payload=pattern(100, 3)), v6=True, src="fd00:14::1",
                  dst="fd00:14::2", sport=63100, note="IPv6 WRITE ONLY")]
    src += [roce2(tr_for(0x04, 21), tags=[ad(14), q(15)], sport=63101, src="10.14.0.1",
                  dst="10.14.0.2", note="QinQ SEND ONLY")]
    src += [roce2(tr_for(0x0a, 22), ip_opts=[IPOption_RR(routers=["198.51.100.1"] * 9)],
                  sport=63102, note="IPv4 with 40 option bytes")]
    f = roce2(tr_for(0x0c, 23), sport=63103, src="10.14.0.3", dst="10.14.0.4")
    src += [wrap(f, lambda b: vxlan(b, 0x1414, sport=50014), ['vxlan'])]
    src += [roce1(tr_for(0x0a, 24), sgid="fe80::14", dgid="fe80::15", note="RoCEv1 WRITE ONLY")]
    if snap >= 128:
        # a long SEND: headers captured, the payload and ICRC cut
        src += [roce2(tr_for(0x04, 25, payload=pattern(400, 25)), sport=63104,
                      note="long SEND ONLY")]
    else:
        # CM REQ: DETH captured, MAD cut (no cm object)
        m, e = cm_req(0x42, 0x4242, 0x0000000001061144, 0x33, 0x44, "10.14.0.1", "10.14.0.2",
                      0xc003)
        src += [cm_frame(m, e, 0, src="10.14.0.1", dst="10.14.0.2", sport=50200, psn=9)]
    out = []
    for f in src:
        cap = min(snap, len(f.data))
        g = Frame(f.data[:cap], None, "%s cut to %d bytes" % (f.note, cap), wirelen=len(f.data))
        m = f.meta
        if cap < m['bth'] + 12:
            g.policy = "BTH not fully captured: no record"
            g.note += " (BTH incomplete: no record)"
        else:
            e = dict(f.exp)
            if cap < m['hdr_end']:
                # drop the objects of extension headers that are not completely captured
                off = m['bth'] + 12
                for h in m['hdrs']:
                    if off + HDR_LEN[h] > cap:
                        e.pop(h, None)
                    off += HDR_LEN[h]
                e['truncated'] = True
                g.policy = ("extension headers cut: truncated=true, only the completely "
                            "captured extension headers are reported, payload_len still "
                            "from the UDP length")
            if cap < m['roce_end']:
                e['icrc'] = 'truncated'
            if 'cm' in e and (m['mad'] is None or cap < m['mad'] + 256):
                e.pop('cm')
                g.policy = "; ".join(x for x in (g.policy, "MAD not captured: no cm object") if x)
            # keep schema order: truncated after icrc
            if 'truncated' in e:
                t = e.pop('truncated')
                cmv = e.pop('cm', None)
                e['truncated'] = t
                if cmv is not None:
                    e['cm'] = cmv
            g.exp = e
        out.append(g)
    return out


CAPTURES = [
    ("rc_ops", cap_rc, "RC opcodes 0x00-0x14, 0x16, 0x17, FLUSH 0x1c (FETH+RETH), ATOMIC WRITE "
     "0x1d (RETH + 8 bytes); SE/M/A/P_Key variety; SEND ONLY with pad 0-3 and tver 0-3"),
    ("uc_ud_ops", cap_uc_ud, "UC opcodes 0x20-0x2b; UD SEND ONLY 0x64 (DETH) and with Imm 0x65"),
    ("rd_ops", cap_rd, "RD opcodes 0x40-0x55: RDETH+DETH on requests, RDETH (+AETH) on responses"),
    ("xrc_ops", cap_xrc, "XRC opcodes 0xa0-0xb4, 0xb6, 0xb7: XRCETH on requests only"),
    ("cnp_ecn", cap_cnp_ecn, "CNP 0x81 with FECN/BECN combinations; WRITE ONLY with every "
     "FECN/BECN x ECN combination and resv6 bits; masked fields changed after the ICRC"),
    ("aeth", cap_aeth, "ACK syndromes: ACK credits, RNR NAK timers, reserved opcode, NAK codes "
     "0-5, reserved bit; ATOMIC ACK"),
    ("l2_vlan", cap_l2, "Ethernet II, 802.1Q (vid 0/100/4095, PCP/DEI), 802.1ad QinQ, double "
     "and triple stacks, TPID 0x9100, IPv6 in QinQ"),
    ("ipv4_opts_frag", cap_ipv4, "IPv4 options (ihl 6, 8, 15); IPv4 fragments (first, last, "
     "lone middle) and an IPv6 first fragment: no records"),
    ("ipv6_ext", cap_ipv6, "IPv6 with flow labels, hop-by-hop, destination options, routing "
     "type 0 and SRH extension headers; address text forms"),
    ("rocev1", cap_rocev1, "RoCEv1 (Ethertype 0x8915 + GRH): several opcodes, UD over 802.1Q "
     "with IPv4-mapped GIDs, one bad ICRC"),
    ("tunnels", cap_tunnels, "VXLAN (IPv4/IPv6 inner), ERSPAN II (with VLAN, inner 802.1Q), "
     "ERSPAN III (with platform sub-header, over IPv6), VXLAN in ERSPAN II, RoCEv1 in VXLAN, "
     "outer+inner VLAN, VXLAN carrying ARP, ERSPAN III in VXLAN, ERSPAN type I, GRE TEB"),
    ("rdma_cm", cap_cm, "RDMA CM on QP1: REQ (IP-CM SID 0x1061144, IPv4-mapped GIDs), REP, RTU, "
     "RC WRITE + ACK, DREQ, DREP, second REQ + REJ, MRA, a PerfMgt MAD, QP1 datagrams "
     "shorter than a MAD (non-CM 40 bytes, CM REQ cut to 64 bytes, 16 bytes)"),
    ("corrupt", cap_corrupt, "bad ICRCs (replaced, payload flipped, DestQP flipped, IPv6 zero, "
     "byte-swapped), unknown/reserved opcodes, Ethernet trailers, lying UDP/IP lengths, short "
     "UDP payloads, pad count beyond the packet, UDP length ending inside the RETH"),
    ("nonroce", cap_nonroce, "ARP, TCP, DNS, DHCPv6, LLDP, UDP 4790, UDP source port 4791 with "
     "other destination ports, RoCE with source port 69, interleaved with RoCE frames"),
    ("trunc64", lambda: truncated_copies(64), "RoCE frames cut to snaplen 64 (orig_len = wire "
     "length)"),
    ("trunc128", lambda: truncated_copies(128), "RoCE frames cut to snaplen 128"),
]


def write_pcap(path, frames, snaplen, t0):
    with open(path, 'wb') as fh:
        fh.write(struct.pack('<IHHiIII', 0xa1b23c4d, 2, 4, 0, 0, snaplen, 1))
        for i, f in enumerate(frames):
            ts = t0 + i * 1_000_000 + (i * 7919) % 1000
            f.ts = ts
            fh.write(struct.pack('<IIII', ts // 1_000_000_000, ts % 1_000_000_000,
                                 len(f.data), f.wirelen))
            fh.write(f.data)


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: mkcaptures.py OUTDIR\n")
        return 2
    out = argv[1]
    os.makedirs(out, exist_ok=True)
    manifest = {"generator": "tests/gen/mkcaptures.py",
                "analyzer_command": "rtel-analyze --packets --format json --icrc FILE",
                "expected_omits": ["obs", "opcode_name", "aeth.syndrome_name"],
                "captures": []}
    for k, (name, fn, desc) in enumerate(CAPTURES):
        frames = fn()
        snap = 64 if name == 'trunc64' else 128 if name == 'trunc128' else 65535
        t0 = BASE_TS_NS + k * 1_000_000_000
        write_pcap(os.path.join(out, name + '.pcap'), frames, snap, t0)
        nrec = 0
        with open(os.path.join(out, name + '.expected'), 'w') as fh:
            for i, f in enumerate(frames):
                if f.exp is None:
                    continue
                rec = {"type": "packet", "port": 0, "frame": "%d" % (i + 1),
                       "ts_ns": "%d" % f.ts, "len": f.wirelen, "caplen": len(f.data)}
                rec.update(record_format(f.exp))
                fh.write(json.dumps(rec, separators=(',', ':')) + "\n")
                nrec += 1
        manifest["captures"].append({
            "name": name, "pcap": name + ".pcap", "expected": name + ".expected",
            "description": desc, "snaplen": snap, "frames": len(frames), "records": nrec,
            "frame_notes": [dict({"frame": i + 1, "record": f.exp is not None, "note": f.note},
                                 **({"policy": f.policy} if f.policy else {}))
                            for i, f in enumerate(frames)],
        })
    with open(os.path.join(out, "MANIFEST.json"), 'w') as fh:
        json.dump(manifest, fh, indent=1, sort_keys=False)
        fh.write("\n")
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
