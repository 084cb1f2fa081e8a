#!/usr/bin/python3
"""tshark-diff.py -- differential test of rtel-analyze against tshark 4.0.

For every capture (the ones tests/gen/mkcaptures.py writes, plus every *.pcap / *.pcapng in
$top_srcdir/../shared/captures when that directory exists) this runs

  tshark -n -r FILE -T fields -E occurrence=a ...        (the oracle; its quirks: below)
  $RTEL_ANALYZE --packets --format json --icrc FILE      (the system under test)

joins both by frame number and checks that every value tshark shows equals the analyzer's JSON
record, that the analyzer emits a record for exactly the frames tshark decodes as InfiniBand
(less the documented tshark quirks below), and that its output is one JSON object per line.
The ICRC status is checked against an independent recomputation done here (tshark does not
verify the ICRC).  Exit status: 0 all checks passed, 1 a check failed, 77 skipped (tshark or
python3-scapy missing, or rtel-analyze not built, e.g. without libpcap), 99 hard error
(the capture generator failed).

tshark is run with `-E occurrence=a`; for every field the script then takes the occurrence
that `-E occurrence=f` would give (BTH/extension headers, infiniband.reserved = BTH byte 4) or,
for the IP/UDP fields, the occurrence that belongs to the header carrying the RoCE packet
(the innermost one in tunnels).

Known tshark 4.0 quirks, handled here (Q-numbers are printed in --verbose output):
 Q1 tshark decodes RRoCE on UDP *source* port 4791 when 4791 is the lower port; the analyzer
    keys on the destination port only.  Frames whose RoCE UDP dstport != 4791 are excluded.
 Q2 the UDP dissector tries the lower port first (source port 69 -> TFTP, as in
    oferby_proxy__roce.pcap).  A pre-pass adds `-d udp.port==P,infiniband` for every UDP
    source port P < 4791 that is seen with destination port 4791.
 Q3 tshark reassembles IP fragments and decodes RoCE on the last fragment; the analyzer does
    not reassemble (fragments are counted).  Fragment frames are excluded.
 Q4 tshark lists "infiniband" in frame.protocols for UDP/4791 payloads that hold no complete
    BTH (snaplen cuts, short datagrams); the analyzer emits no record without a complete BTH.
    Only frames where tshark shows infiniband.bth.psn count as RoCE.
 Q5 tshark decodes a RoCE packet whose UDP payload is shorter than BTH + ICRC (it reads the
    "ICRC" from inside the BTH) and ones whose UDP length exceeds the IP payload or whose IP
    length exceeds the frame (with expert info only).  These malformed frames are excluded.
 Q6 ICMP/ICMPv6 errors quoting a RoCE packet are decoded as InfiniBand; they are not RoCE
    traffic.  Excluded.
 Q7 RD opcodes (0x40-0x5f): tshark 4.0 skips 8 bytes (a DCT leftover) between the BTH and
    the RDETH, so RDETH/DETH/RETH/AETH/ImmDt/AtomicETH values and data.len are garbage.  For
    RD only the BTH fields (and the independently checked ICRC) are compared.
 Q8 tshark 4.0 does not decode XRC (0xa0-0xb7), FLUSH (0x1c), ATOMIC WRITE (0x1d) or CNP
    (0x81) beyond the BTH; there is nothing else to compare for them.
 Q9 AtomicETH VA/R_Key are shown as infiniband.reth.va / .r_key (shared field) and are mapped
    to the analyzer's "atomic" object; FECN/BECN come from infiniband.reserved (first
    occurrence) & 0x80 / 0x40; data.len includes the pad bytes (payload_len = data.len - pad);
    ImmDt/IETH are byte strings in network order; invariant.crc is the wire bytes read
    big-endian.
 Q10 802.1Q tags are vlan.id, 802.1ad S-tags ieee8021ad.id; the tag order is rebuilt from
    frame.protocols.  Only the tags of the innermost Ethernet header (the one carrying the RoCE
    packet) are compared; underlay tags of tunnels are not part of "vlans".  "encap" is
    compared in frame order (outermost first); ERSPAN type I (no erspan.version) is "erspan1",
    GRE transparent Ethernet bridging (gre followed by eth) is "gre-teb".
 Q11 tshark decodes QP0/QP1 UD datagrams shorter than a MAD header (24 bytes), or CM MADs
    shorter than 256 bytes on the wire (IBA 13.4), and shows their transport headers; the
    analyzer rejects them as malformed.  Excluded.
 Q5 also covers packets whose UDP length leaves less than BTH + extension headers + pad +
    ICRC (tshark shows a malformed InfiniBand packet).
"""

import argparse
import glob
import importlib.util
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import zlib

sys.dont_write_bytecode = True

ROCE_PORT = 4791
HEURISTICS_OFF = ['nvme_rdma', 'rpcrdma_infiniband', 'smb_direct_infiniband', 'smcr_infiniband',
                  'iser_infiniband', 'lnet_ib', 'fc_infiniband', 'mellanox_eoib', 'eth_over_ib',
                  'sdp_infiniband']

FIELDS = [
    'frame.number', 'frame.time_epoch', 'frame.len', 'frame.cap_len', 'frame.protocols',
    'vlan.id', 'ieee8021ad.id', 'erspan.version',
    'ip.src', 'ip.dst', 'ip.dsfield.dscp', 'ip.dsfield.ecn',
    'ipv6.src', 'ipv6.dst', 'ipv6.tclass.dscp', 'ipv6.tclass.ecn',
    'udp.srcport', 'udp.dstport',
    'infiniband.grh.sgid', 'infiniband.grh.dgid', 'infiniband.grh.tclass',
    'infiniband.bth.opcode', 'infiniband.bth.se', 'infiniband.bth.m', 'infiniband.bth.padcnt',
    'infiniband.bth.tver', 'infiniband.bth.p_key', 'infiniband.reserved',
    'infiniband.bth.destqp', 'infiniband.bth.a', 'infiniband.bth.psn',
    'infiniband.rdeth.eecnxt', 'infiniband.deth.q_key', 'infiniband.deth.srcqp',
    'infiniband.reth.va', 'infiniband.reth.r_key', 'infiniband.reth.dmalen',
    'infiniband.atomiceth.swapdt', 'infiniband.atomiceth.cmpdt',
    'infiniband.aeth.syndrome', 'infiniband.aeth.msn', 'infiniband.atomicacketh.origremdt',
    'infiniband.immdt', 'infiniband.ieth', 'infiniband.invariant.crc', 'data.len',
    'infiniband.mad.mgmtclass', 'infiniband.mad.attributeid', 'infiniband.mad.transactionid',
    'infiniband.cm.req', 'infiniband.cm.req.serviceid', 'infiniband.cm.req.localqpn',
    'infiniband.cm.req.startpsn',
    'infiniband.cm.rep', 'infiniband.cm.rep.remotecommid', 'infiniband.cm.rep.localqpn',
    'infiniband.cm.rep.startpsn',
    'infiniband.cm.rtu.localcommid', 'infiniband.cm.rtu.remotecommid',
    'infiniband.cm.dreq.localcommid', 'infiniband.cm.dreq.remotecommid',
    'infiniband.cm.req.remoteqpneecn',
    'infiniband.cm.drsp.localcommid', 'infiniband.cm.drsp.remotecommid',
    'infiniband.cm.rej.localcommid', 'infiniband.cm.rej.remotecommid',
    'infiniband.cm.rej.reason',
]

CM_ATTR = {0x0010: 'ConnectRequest', 0x0011: 'MRA', 0x0012: 'ConnectReject',
           0x0013: 'ConnectReply', 0x0014: 'ReadyToUse', 0x0015: 'DisconnectRequest',
           0x0016: 'DisconnectReply', 0x0017: 'SIDR_REQ', 0x0018: 'SIDR_REP', 0x0019: 'LAP',
           0x001a: 'APR'}
# which cm keys each message may carry (schema: "only the fields that message has")
CM_KEYS = {
    'ConnectRequest': {'attr', 'tid', 'lcid', 'local_qpn', 'start_psn', 'service_id'},
    'ConnectReply': {'attr', 'tid', 'lcid', 'rcid', 'local_qpn', 'start_psn'},
    'ReadyToUse': {'attr', 'tid', 'lcid', 'rcid'},
    'DisconnectRequest': {'attr', 'tid', 'lcid', 'rcid', 'remote_qpn'},
    'DisconnectReply': {'attr', 'tid', 'lcid', 'rcid'},
    'ConnectReject': {'attr', 'tid', 'lcid', 'rcid', 'rej_reason'},
}
for _keys in CM_KEYS.values():
    _keys.add('attr_id')

# rtel-analyze(1), OUTPUT: a 64-bit integer is a string of decimal digits
U64_RE = re.compile(r'^(0|[1-9][0-9]{0,19})$')


# --------------------------------------------------------------------------------------------
# reading captures (classic pcap and pcapng), independent of scapy and tshark
# --------------------------------------------------------------------------------------------

def read_capture(path):
    """[(ts_ns, caplen, wirelen, bytes)], linktype"""
    with open(path, 'rb') as fh:
        data = fh.read()
    magic = data[:4]
    out = []
    if magic in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1', b'\xa1\xb2\xc3\xd4', b'\xa1\xb2\x3c\x4d'):
        le = magic in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1')
        e = '<' if le else '>'
        nano = magic in (b'\x4d\x3c\xb2\xa1', b'\xa1\xb2\x3c\x4d')
        linktype = struct.unpack(e + 'I', data[20:24])[0] & 0x0fffffff
        off = 24
        while off + 16 <= len(data):
            s, f, incl, orig = struct.unpack(e + 'IIII', data[off:off + 16])
            off += 16
            ts = s * 1_000_000_000 + (f if nano else f * 1000)
            out.append((ts, incl, orig, data[off:off + incl]))
            off += incl
        return out, linktype
    if magic == b'\x0a\x0d\x0d\x0a':
        off = 0
        e = '<'
        ifs = []
        while off + 12 <= len(data):
            btype = struct.unpack(e + 'I', data[off:off + 4])[0]
            if btype == 0x0a0d0d0a:
                e = '<' if data[off + 8:off + 12] == b'\x4d\x3c\x2b\x1a' else '>'
                ifs = []
            blen = struct.unpack(e + 'I', data[off + 4:off + 8])[0]
            body = data[off + 8:off + blen - 4]
            if btype == 1:
                lt = struct.unpack(e + 'H', body[:2])[0]
                res = 6
                o = 8
                while o + 4 <= len(body):
                    code, ln = struct.unpack(e + 'HH', body[o:o + 4])
                    if code == 0:
                        break
                    if code == 9:
                        v = body[o + 4]
                        res = v if not v & 0x80 else None
                    o += 4 + ((ln + 3) & ~3)
                ifs.append((lt, res))
            elif btype == 6:
                iface, hi, lo, incl, orig = struct.unpack(e + 'IIIII', body[:20])
                t = (hi << 32) | lo
                res = ifs[iface][1]
                ts = t * 10 ** (9 - res) if res is not None and res <= 9 else t * 1000
                out.append((ts, incl, orig, body[20:20 + incl]))
            elif btype == 3:
                orig = struct.unpack(e + 'I', body[:4])[0]
                out.append((0, len(body) - 4, orig, body[4:]))
            off += blen
        return out, (ifs[0][0] if ifs else 1)
    raise ValueError("%s: not a pcap/pcapng file" % path)


# --------------------------------------------------------------------------------------------
# independent frame walker + ICRC (only what the ICRC check and the quirk filters need)
# --------------------------------------------------------------------------------------------

def u16(b, o):
    return (b[o] << 8) | b[o + 1]


class Walk:
    """Locates the RoCE packet of a frame: kind 1/2, offsets, and malformation flags."""

    def __init__(self, buf, wirelen):
        self.buf, self.wirelen = buf, wirelen
        self.kind = None
        self.frag = False
        self.len_bad = False
        self.short = False
        self.info = None
        try:
            self.eth(0)
        except IndexError:
            pass

    def need(self, n):
        if n > len(self.buf):
            raise IndexError

    def eth(self, off):
        b = self.buf
        self.need(off + 14)
        et, p = u16(b, off + 12), off + 14
        while et in (0x8100, 0x88a8, 0x9100):
            self.need(p + 4)
            et, p = u16(b, p + 2), p + 4
        if et == 0x8915:
            self.need(p + 40)
            self.kind = 1
            self.l3, self.bth = p, p + 40
            self.end = p + 40 + u16(b, p + 4)
            if self.end > self.wirelen:
                self.len_bad = True
            return
        if et == 0x0800:
            self.need(p + 20)
            ihl = (b[p] & 15) * 4
            tot = u16(b, p + 2)
            if (u16(b, p + 6) & 0x3fff) != 0:
                self.frag = True
                return
            proto, l4, ipend = b[p + 9], p + ihl, p + tot
        elif et == 0x86dd:
            self.need(p + 40)
            nh, l4, ipend = b[p + 6], p + 40, p + 40 + u16(b, p + 4)
            while nh in (0, 43, 60, 44):
                self.need(l4 + 8)
                if nh == 44:
                    self.frag = True
                    return
                nh, l4 = b[l4], l4 + (b[l4 + 1] + 1) * 8
            proto = nh
        else:
            return
        if ipend > self.wirelen:
            self.len_bad = True
        if proto == 17:
            self.need(l4 + 8)
            dport, ulen = u16(b, l4 + 2), u16(b, l4 + 4)
            if dport == ROCE_PORT:
                self.kind = 2
                self.l3, self.l4, self.bth, self.end = p, l4, l4 + 8, l4 + ulen
                if ulen > ipend - l4 or ipend > self.wirelen:
                    self.len_bad = True
                if ulen < 8 + 16:
                    self.short = True
                return
            if dport == 4789:
                return self.eth(l4 + 16)
        if proto == 47:
            self.need(l4 + 4)
            fl, pt = u16(b, l4), u16(b, l4 + 2)
            hl = 4 + 4 * bool(fl & 0x8000) + 4 * bool(fl & 0x2000) + 4 * bool(fl & 0x1000)
            if pt == 0x88be:
                return self.eth(l4 + hl + (8 if fl & 0x1000 else 0))
            if pt == 0x22eb:
                self.need(l4 + hl + 12)
                return self.eth(l4 + hl + 12 + (8 if b[l4 + hl + 11] & 1 else 0))
            if pt == 0x6558:
                return self.eth(l4 + hl)

    def captured(self):
        return self.kind is not None and self.end <= len(self.buf)

    def icrc_ok(self):
        """True/False; only valid when captured() and not len_bad."""
        b = self.buf
        if self.kind == 2:
            h = bytearray(b[self.l3:self.l4])
            if h[0] >> 4 == 4:
                h[1] = 0xff
                h[8] = 0xff
                h[10] = h[11] = 0xff
            else:
                h[0] |= 0x0f
                h[1] = h[2] = h[3] = 0xff
                h[7] = 0xff
            u = bytearray(b[self.l4:self.l4 + 8])
            u[6] = u[7] = 0xff
            pre = bytes(h) + bytes(u)
        else:
            h = bytearray(b[self.l3:self.l3 + 40])
            h[0] |= 0x0f
            h[1] = h[2] = h[3] = 0xff
            h[7] = 0xff
            pre = bytes(h)
        t = bytearray(b[self.bth:self.end - 4])
        t[4] = 0xff
        crc = zlib.crc32(b'\xff' * 8 + pre + bytes(t)) & 0xffffffff
        return struct.pack('<I', crc) == bytes(b[self.end - 4:self.end])

    def wire_icrc_be(self):
        return struct.unpack('!I', self.buf[self.end - 4:self.end])[0]


# IBTA extension header lengths per opcode, to check the analyzer's "headers_truncated" flag
def ext_len(op):
    rc = {0x03: 4, 0x05: 4, 0x06: 16, 0x09: 4, 0x0a: 16, 0x0b: 20, 0x0c: 16, 0x0d: 4, 0x0f: 4,
          0x10: 4, 0x11: 4, 0x12: 12, 0x13: 28, 0x14: 28, 0x16: 4, 0x17: 4, 0x1c: 20, 0x1d: 16}
    t, x = op & 0xe0, op & 0x1f
    known_rc = set(range(0x00, 0x15)) | {0x16, 0x17}
    if t == 0x00:
        return rc.get(x, 0) if x in known_rc | {0x1c, 0x1d} else 0
    if t == 0x20:
        return rc.get(x, 0) if x <= 0x0b else 0
    if t == 0x40:
        if x in (0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12):
            return 4 + rc.get(x, 0)
        if x <= 0x0c or x in (0x13, 0x14, 0x15):
            return 12 + rc.get(x, 0)
        return 0
    if t == 0x60:
        return {0x04: 8, 0x05: 12}.get(x, 0)
    if t == 0xa0:
        if x in (0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12):
            return rc.get(x, 0)
        if x in known_rc:
            return 4 + rc.get(x, 0)
        return 0
    return 0


def short_mad(w, pad):
    """A QP0/QP1 UD SEND ONLY whose payload is shorter than a MAD header, or that carries a CM
    MAD header (class 0x07, a known attribute) but is shorter than 256 bytes on the wire."""
    mad = w.bth + 12 + 8
    n = w.end - mad - pad - 4
    if n < 24:
        return True
    if n < 256 and len(w.buf) >= mad + 18:
        return w.buf[mad + 1] == 0x07 and u16(w.buf, mad + 16) in CM_ATTR
    return False


# --------------------------------------------------------------------------------------------
# tshark side
# --------------------------------------------------------------------------------------------

class Tshark:
    def __init__(self, exe):
        self.exe = exe
        self.version = ''
        try:
            out = subprocess.run([exe, '--version'], capture_output=True, text=True).stdout
            m = re.search(r'TShark \(Wireshark\) (\S+)', out)
            self.version = m.group(1) if m else '?'
        except OSError:
            self.version = None

    def base(self, path, decode_as=()):
        cmd = [self.exe, '-n', '-r', path, '--disable-protocol', 'rpcordma']
        for h in HEURISTICS_OFF:
            cmd += ['--disable-heuristic', h]
        for p in decode_as:
            cmd += ['-d', 'udp.port==%d,infiniband' % p]
        return cmd

    def fields(self, path, fields, decode_as=()):
        cmd = self.base(path, decode_as) + ['-T', 'fields', '-E', 'occurrence=a',
                                            '-E', 'aggregator=|', '-E', 'separator=/t',
                                            '-E', 'quote=n']
        for f in fields:
            cmd += ['-e', f]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("tshark failed (%d): %s" % (r.returncode, r.stderr.strip()))
        rows = []
        for line in r.stdout.split('\n'):
            if not line:
                continue
            cols = line.split('\t')
            cols += [''] * (len(fields) - len(cols))
            rows.append({f: (cols[i].split('|') if cols[i] != '' else [])
                         for i, f in enumerate(fields)})
        return rows, cmd

    def low_source_ports(self, path):
        rows, _ = self.fields(path, ['udp.srcport', 'udp.dstport'])
        ports = set()
        for r in rows:
            for s, d in zip(r['udp.srcport'], r['udp.dstport']):
                if d == str(ROCE_PORT) and s.isdigit() and int(s) < ROCE_PORT:
                    ports.add(int(s))
        return sorted(ports)


def ival(s):
    return int(s, 0)


def hexbytes_int(s):
    return int(s.replace(':', ''), 16)


def canon_ip(s):
    if ':' in s:
        return socket.inet_ntop(socket.AF_INET6, socket.inet_pton(socket.AF_INET6, s))
    return socket.inet_ntop(socket.AF_INET, socket.inet_aton(s))


def epoch_ns(s):
    sec, _, frac = s.partition('.')
    return int(sec) * 1_000_000_000 + int((frac + '000000000')[:9])


ABSENT = object()


def tshark_view(row):
    """(is_roce, exclusion_reason or None, {path: value}) for one tshark row."""
    protos = row['frame.protocols'][0].split(':') if row['frame.protocols'] else []
    if 'infiniband' not in protos:
        return False, None, {}
    ib = protos.index('infiniband')
    before = protos[:ib]
    if 'icmp' in before or 'icmpv6' in before:
        return False, 'Q6 infiniband inside an ICMP error', {}
    if not row['infiniband.bth.psn']:
        return False, 'Q4 no complete BTH', {}
    v = {}
    first = lambda f: row[f][0] if row[f] else None  # noqa: E731

    def nth(f, k):
        return row[f][k] if len(row[f]) > k else None

    v['frame'] = int(first('frame.number'))
    v['ts_ns'] = epoch_ns(first('frame.time_epoch'))
    v['len'] = int(first('frame.len'))
    v['caplen'] = int(first('frame.cap_len'))
    # which L3/L4 carries the RoCE packet: the last ip/ipv6 (and udp) token before infiniband
    roce_v1 = not before or before[-1] != 'udp'
    if roce_v1:
        v['roce_version'] = 1
        v['src'] = canon_ip(first('infiniband.grh.sgid'))
        v['dst'] = canon_ip(first('infiniband.grh.dgid'))
        tc = int(first('infiniband.grh.tclass'))
        v['dscp'], v['ecn'] = tc >> 2, tc & 3
        v['sport'] = ABSENT
        v['dport'] = ABSENT
    else:
        v['roce_version'] = 2
        k_udp = before.count('udp') - 1
        l3 = [p for p in before if p in ('ip', 'ipv6')][-1]
        k = [p for p in before if p in ('ip', 'ipv6') and p == l3].__len__() - 1
        if l3 == 'ip':
            v['src'], v['dst'] = nth('ip.src', k), nth('ip.dst', k)
            v['dscp'], v['ecn'] = nth('ip.dsfield.dscp', k), nth('ip.dsfield.ecn', k)
        else:
            v['src'], v['dst'] = nth('ipv6.src', k), nth('ipv6.dst', k)
            v['dscp'], v['ecn'] = nth('ipv6.tclass.dscp', k), nth('ipv6.tclass.ecn', k)
        v['src'], v['dst'] = canon_ip(v['src']), canon_ip(v['dst'])
        v['dscp'], v['ecn'] = ival(v['dscp']), ival(v['ecn'])
        v['sport'] = int(nth('udp.srcport', k_udp))
        v['dport'] = int(nth('udp.dstport', k_udp))
    # VLAN tags of the Ethernet header that carries the RoCE packet (the innermost one),
    # outer first (802.1Q: vlan.id, 802.1ad: ieee8021ad.id)
    last_eth = max(i for i, p in enumerate(before) if p == 'eth') if 'eth' in before else 0
    tags, iq, iad = [], 0, 0
    for i, p in enumerate(before):
        if p == 'vlan':
            if i > last_eth:
                tags.append(int(nth('vlan.id', iq)))
            iq += 1
        elif p == 'ieee8021ad':
            if i > last_eth:
                tags.append(int(nth('ieee8021ad.id', iad)))
            iad += 1
    v['vlans'] = tags
    # encapsulations
    enc, ie, known = [], 0, True
    for i, p in enumerate(before):
        if p == 'vxlan':
            enc.append('vxlan')
        elif p == 'erspan':
            # erspan.version is shown for type II (1) and III (2); type I has no header
            ver = nth('erspan.version', ie)
            if ver == '1':
                enc.append('erspan2')
                ie += 1
            elif ver == '2':
                enc.append('erspan3')
                ie += 1
            else:
                enc.append('erspan1')
        elif p == 'gre':
            nxt = before[i + 1] if i + 1 < len(before) else ''
            if nxt == 'eth':
                enc.append('gre-teb')
            elif nxt != 'erspan':
                known = False
        elif p in ('geneve', 'mpls', 'nsh', 'pw_eth', 'etherip', 'l2tp', 'gtp', 'vxlan-gpe'):
            known = False
    if known:
        v['encap'] = enc
    # BTH
    op = int(first('infiniband.bth.opcode'))
    v['opcode'] = op
    for key, f in (('se', 'infiniband.bth.se'), ('m', 'infiniband.bth.m'),
                   ('a', 'infiniband.bth.a')):
        v[key] = 1 if first(f) in ('1', 'True') else 0
    v['pad'] = int(first('infiniband.bth.padcnt'))
    v['tver'] = int(first('infiniband.bth.tver'))
    v['pkey'] = int(first('infiniband.bth.p_key'))
    res = first('infiniband.reserved')
    if res:
        b4 = int(res[:2], 16)
        v['fecn'], v['becn'] = (b4 >> 7) & 1, (b4 >> 6) & 1
    v['dqpn'] = ival(first('infiniband.bth.destqp'))
    v['psn'] = int(first('infiniband.bth.psn'))
    rd = 0x40 <= op <= 0x5f
    atomic = (op & 0x1f) in (0x13, 0x14) and (op & 0xe0) in (0x00, 0x40, 0xa0)
    if not rd:                                              # Q7
        if first('infiniband.reth.va'):
            pre = 'atomic' if atomic else 'reth'
            v[pre + '.va'] = ival(first('infiniband.reth.va'))
            if first('infiniband.reth.r_key'):
                v[pre + '.rkey'] = ival(first('infiniband.reth.r_key'))
        if first('infiniband.reth.dmalen') and not atomic:
            v['reth.len'] = int(first('infiniband.reth.dmalen'))
        if first('infiniband.atomiceth.swapdt'):
            v['atomic.swap'] = int(first('infiniband.atomiceth.swapdt'))
        if first('infiniband.atomiceth.cmpdt'):
            v['atomic.cmp'] = int(first('infiniband.atomiceth.cmpdt'))
        if first('infiniband.aeth.syndrome'):
            v['aeth.syndrome'] = int(first('infiniband.aeth.syndrome'))
        if first('infiniband.aeth.msn'):
            v['aeth.msn'] = int(first('infiniband.aeth.msn'))
        if first('infiniband.atomicacketh.origremdt'):
            v['atomicack.orig'] = int(first('infiniband.atomicacketh.origremdt'))
        if first('infiniband.deth.q_key'):
            v['deth.qkey'] = ival(first('infiniband.deth.q_key'))
        if first('infiniband.deth.srcqp'):
            v['deth.sqpn'] = ival(first('infiniband.deth.srcqp'))
        if first('infiniband.rdeth.eecnxt'):
            v['rdeth.eecnxt'] = int(first('infiniband.rdeth.eecnxt'))
        if first('infiniband.immdt'):
            v['imm'] = hexbytes_int(first('infiniband.immdt'))
        if first('infiniband.ieth'):
            v['ieth'] = hexbytes_int(first('infiniband.ieth'))
        after = protos[ib + 1:]
        if after[:1] == ['data'] and first('data.len') and v['caplen'] == v['len']:
            v['payload_len'] = int(first('data.len')) - v['pad']
    if first('infiniband.invariant.crc'):
        v['_wire_icrc'] = ival(first('infiniband.invariant.crc'))
    # RDMA CM
    if first('infiniband.mad.mgmtclass') and ival(first('infiniband.mad.mgmtclass')) == 0x07 \
            and first('infiniband.mad.attributeid'):
        attr = ival(first('infiniband.mad.attributeid'))
        name = CM_ATTR.get(attr, attr)
        v['cm.attr_id'] = attr
        v['cm.attr'] = name
        if first('infiniband.mad.transactionid'):
            v['cm.tid'] = ival(first('infiniband.mad.transactionid'))
        m = {
            'ConnectRequest': [('lcid', 'infiniband.cm.req'),
                               ('service_id', 'infiniband.cm.req.serviceid'),
                               ('local_qpn', 'infiniband.cm.req.localqpn'),
                               ('start_psn', 'infiniband.cm.req.startpsn')],
            'ConnectReply': [('lcid', 'infiniband.cm.rep'),
                             ('rcid', 'infiniband.cm.rep.remotecommid'),
                             ('local_qpn', 'infiniband.cm.rep.localqpn'),
                             ('start_psn', 'infiniband.cm.rep.startpsn')],
            'ReadyToUse': [('lcid', 'infiniband.cm.rtu.localcommid'),
                           ('rcid', 'infiniband.cm.rtu.remotecommid')],
            'DisconnectRequest': [('lcid', 'infiniband.cm.dreq.localcommid'),
                                  ('rcid', 'infiniband.cm.dreq.remotecommid'),
                                  ('remote_qpn', 'infiniband.cm.req.remoteqpneecn')],
            'DisconnectReply': [('lcid', 'infiniband.cm.drsp.localcommid'),
                                ('rcid', 'infiniband.cm.drsp.remotecommid')],
            'ConnectReject': [('lcid', 'infiniband.cm.rej.localcommid'),
                              ('rcid', 'infiniband.cm.rej.remotecommid'),
                              ('rej_reason', 'infiniband.cm.rej.reason')],
        }.get(name, [])
        for key, f in m:
            if first(f):
                v['cm.' + key] = ival(first(f))
    return True, None, v


# --------------------------------------------------------------------------------------------
# analyzer side
# --------------------------------------------------------------------------------------------

def get_path(rec, path):
    cur = rec
    for p in path.split('.'):
        if not isinstance(cur, dict) or p not in cur:
            return ABSENT
        cur = cur[p]
    return cur


U64_PATHS = {'frame', 'ts_ns', 'reth.va', 'atomic.va', 'atomic.swap', 'atomic.cmp',
             'atomicack.orig', 'cm.tid', 'cm.service_id'}


def norm_analyzer(path, val):
    """Analyzer value -> python value comparable to tshark_view (or a format error string)."""
    if val is ABSENT:
        return ABSENT, None
    if path in U64_PATHS:
        if not isinstance(val, str) or not U64_RE.match(val) or int(val) >= 1 << 64:
            return val, 'not a string of decimal digits (a 64-bit integer)'
        return int(val), None
    if path in ('src', 'dst', 'cm.attr'):
        return val, None
    if path in ('vlans', 'encap'):
        return val, None if isinstance(val, list) else 'not a list'
    if isinstance(val, bool) or not isinstance(val, int):
        return val, 'not a JSON integer'
    if val > 1 << 53:
        return val, 'a JSON number above 2^53'
    return val, None


def fmt(v):
    if v is ABSENT:
        return '<absent>'
    if isinstance(v, int) and not isinstance(v, bool) and v > 0xffff:
        return '%d (0x%x)' % (v, v)
    return json.dumps(v) if not isinstance(v, str) else v


REQUIRED = {'type': str, 'port': int, 'frame': str, 'ts_ns': str, 'len': int, 'caplen': int,
            'roce_version': int, 'src': str, 'dst': str, 'vlans': list, 'encap': list,
            'dscp': int, 'ecn': int, 'opcode': int, 'se': int, 'm': int,
            'pad': int, 'tver': int, 'pkey': int, 'fecn': int, 'becn': int, 'dqpn': int,
            'a': int, 'psn': int, 'payload_len': int, 'icrc': str, 'headers_truncated': bool}


# --------------------------------------------------------------------------------------------
# the test
# --------------------------------------------------------------------------------------------

class Result:
    def __init__(self, verbose):
        self.passed = 0
        self.failed = 0
        self.verbose = verbose
        self.failures = []

    def check(self, ok, cap, frame, field, tv, av, why=''):
        if ok:
            self.passed += 1
            return True
        self.failed += 1
        msg = "FAIL %s frame %s %s: tshark/oracle=%s analyzer=%s%s" % (
            cap, frame, field, fmt(tv), fmt(av), (' (' + why + ')') if why else '')
        print(msg)
        self.failures.append(dict(capture=cap, frame=frame, field=field,
                                  oracle=None if tv is ABSENT else tv,
                                  analyzer=None if av is ABSENT else av, why=why))
        return False

    def info(self, msg):
        if self.verbose:
            print("  " + msg)


def run_analyzer(exe, path):
    r = subprocess.run([exe, '--packets', '--format', 'json', '--icrc', path],
                       capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def load_expected(path):
    with open(path) as fh:
        return 0, fh.read(), ''


def diff_capture(path, ts, analyzer, res, use_expected):
    cap = os.path.basename(path)
    frames, linktype = read_capture(path)
    decode_as = ts.low_source_ports(path)
    rows, cmd = ts.fields(path, FIELDS, decode_as)
    res.info("%s: %d frames, tshark %s" % (cap, len(rows), ' '.join(cmd[:4] + (
        ['-d udp.port==%d,infiniband' % p for p in decode_as]))))
    if len(rows) != len(frames):
        res.check(False, cap, '-', 'frame count', len(frames), len(rows),
                  'pcap reader and tshark disagree')
    if use_expected:
        rc, out, err = load_expected(os.path.splitext(path)[0] + '.expected')
    else:
        rc, out, err = run_analyzer(analyzer, path)
    if not res.check(rc == 0, cap, '-', 'analyzer exit status', 0, rc, err.strip()[:300]):
        return
    # the analyzer's output: one JSON object per line
    recs = {}
    for n, line in enumerate(out.split('\n'), 1):
        if line == '':
            continue
        try:
            obj = json.loads(line)
        except ValueError as e:
            res.check(False, cap, '-', 'JSON line %d' % n, 'valid JSON', line[:120], str(e))
            continue
        if not res.check(isinstance(obj, dict), cap, '-', 'JSON line %d' % n, 'object',
                         type(obj).__name__):
            continue
        if obj.get('type') != 'packet':
            continue
        bad = [k for k, t in REQUIRED.items() if k in obj and not isinstance(obj[k], t)]
        missing = [k for k in REQUIRED if k not in obj]
        res.check(not bad and not missing, cap, obj.get('frame', '?'), 'record schema',
                  'required keys with JSON types', 'missing %s, wrong type %s' % (missing, bad))
        fr, ferr = norm_analyzer('frame', obj.get('frame', ABSENT))
        if ferr or fr is ABSENT:
            continue
        res.check(fr not in recs, cap, fr, 'record count', 1, 2, 'duplicate record')
        recs[fr] = obj
    roce, excluded = {}, {}
    for row in rows:
        fnum = int(row['frame.number'][0])
        is_roce, why, v = tshark_view(row)
        if fnum - 1 < len(frames):
            ts_ns, caplen, wirelen, data = frames[fnum - 1]
            w = Walk(data, wirelen)
        else:
            w = None
        if is_roce and w is not None:
            if w.frag:
                is_roce, why = False, 'Q3 IP fragment'
            elif w.kind == 2 and v.get('dport') != ROCE_PORT:
                is_roce, why = False, 'Q1 UDP source port 4791'
            elif w.kind is None:
                is_roce, why = False, 'Q1 no UDP destination port 4791 (RRoCE via the source port)'
            elif w.len_bad or w.short:
                is_roce, why = False, 'Q5 malformed lengths'
            elif 12 + ext_len(v['opcode']) + v['pad'] + 4 > w.end - w.bth:
                is_roce, why = False, 'Q5 RoCE packet shorter than BTH + headers + pad + ICRC'
            elif v['opcode'] == 0x64 and v['dqpn'] <= 1 and short_mad(w, v['pad']):
                is_roce, why = False, 'Q11 QP0/QP1 datagram shorter than its MAD'
        if is_roce:
            roce[fnum] = (v, w)
        elif why:
            excluded[fnum] = why
    for fnum in sorted(set(roce) - set(recs)):
        res.check(False, cap, fnum, 'record', 'present (tshark: infiniband)', ABSENT)
    for fnum in sorted(set(recs) - set(roce)):
        if fnum in excluded:
            res.info("%s frame %d: analyzer record for an excluded frame (%s), not compared"
                     % (cap, fnum, excluded[fnum]))
            continue
        res.check(False, cap, fnum, 'record', ABSENT, 'present',
                  'tshark does not decode it as RoCE')
    for fnum in sorted(excluded):
        res.info("%s frame %d excluded: %s" % (cap, fnum, excluded[fnum]))
    for fnum in sorted(set(roce) & set(recs)):
        v, w = roce[fnum]
        rec = recs[fnum]
        for path, tv in v.items():
            if path.startswith('_'):
                continue
            av, ferr = norm_analyzer(path, get_path(rec, path))
            if ferr:
                res.check(False, cap, fnum, path, tv, av, ferr)
                continue
            res.check(av == tv, cap, fnum, path, tv, av)
        # ICRC: recomputed here
        st = rec.get('icrc')
        if w.captured():
            good = w.icrc_ok()
            if '_wire_icrc' in v:
                res.check(v['_wire_icrc'] == w.wire_icrc_be(), cap, fnum, 'icrc location',
                          v['_wire_icrc'], w.wire_icrc_be(), 'harness: tshark and walker '
                          'disagree on the ICRC bytes')
            res.check(st == ('ok' if good else 'bad'), cap, fnum, 'icrc',
                      'ok' if good else 'bad', st if st is not None else ABSENT)
        else:
            res.check(st == 'truncated', cap, fnum, 'icrc', 'truncated',
                      st if st is not None else ABSENT)
        # headers_truncated: caplen < BTH + extension headers of the opcode
        need = w.bth + 12 + ext_len(v['opcode'])
        exp_t = len(w.buf) < need
        res.check(rec.get('headers_truncated', ABSENT) is exp_t, cap, fnum,
                  'headers_truncated', exp_t, rec.get('headers_truncated', ABSENT))
        # cm: only the keys the message has
        cmv = rec.get('cm')
        if isinstance(cmv, dict) and cmv.get('attr') in CM_KEYS:
            extra = sorted(set(cmv) - CM_KEYS[cmv['attr']])
            res.check(not extra, cap, fnum, 'cm keys', sorted(CM_KEYS[cmv['attr']]),
                      sorted(cmv), 'unexpected %s' % extra)
    res.info("%s: %d RoCE frames per tshark, %d analyzer records, %d excluded" %
             (cap, len(roce), len(recs), len(excluded)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('captures', nargs='*', help='captures to diff (default: generated + shared)')
    ap.add_argument('--tshark', default=os.environ.get('TSHARK') or shutil.which('tshark'))
    ap.add_argument('--analyzer', default=os.environ.get('RTEL_ANALYZE'))
    ap.add_argument('--expected', action='store_true',
                    help="compare tshark with the generator's .expected files instead of "
                         "running the analyzer (self-test of the generator)")
    ap.add_argument('--keep', metavar='DIR', help='generate the captures into DIR and keep them')
    ap.add_argument('--no-shared', action='store_true', help='skip ../shared/captures')
    ap.add_argument('--mismatches', metavar='FILE', help='write the failures as JSON lines')
    ap.add_argument('-v', '--verbose', action='store_true')
    args = ap.parse_args()

    srcdir = os.environ.get('top_srcdir') or os.path.join(os.path.dirname(
        os.path.abspath(__file__)), '..', '..')
    ts = Tshark(args.tshark) if args.tshark else None
    if ts is None or ts.version is None:
        print("SKIP: tshark not found")
        return 77
    try:
        import scapy.all  # noqa: F401
    except ImportError:
        print("SKIP: python3-scapy not installed for %s" % sys.executable)
        return 77
    if not ts.version.startswith('4.0.'):
        print("warning: the quirks in this script were established with tshark 4.0, "
              "this is %s" % ts.version)
    if not args.expected and (not args.analyzer or not os.access(args.analyzer, os.X_OK)):
        print("SKIP: analyzer not built (RTEL_ANALYZE=%s)" % args.analyzer)
        return 77

    tmp = None
    caps = list(args.captures)
    if not caps:
        gen = os.path.join(srcdir, 'tests', 'gen', 'mkcaptures.py')
        out = args.keep or tempfile.mkdtemp(prefix='rtel-tshark-diff.')
        tmp = None if args.keep else out
        spec = importlib.util.spec_from_file_location('mkcaptures', gen)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        if mod.main(['mkcaptures.py', out]) != 0:
            print("ERROR: capture generator failed")
            return 99
        caps = sorted(glob.glob(os.path.join(out, '*.pcap')))
        shared = os.path.join(srcdir, '..', 'shared', 'captures')
        if os.path.isdir(shared) and not args.no_shared and not args.expected:
            caps += sorted(glob.glob(os.path.join(shared, '*.pcap')) +
                           glob.glob(os.path.join(shared, '*.pcapng')))
    res = Result(args.verbose)
    print("tshark %s, analyzer %s, %d captures" % (
        ts.version, 'generator .expected files' if args.expected else args.analyzer, len(caps)))
    try:
        for c in caps:
            f0, p0 = res.failed, res.passed
            try:
                diff_capture(c, ts, args.analyzer, res, args.expected)
            except RuntimeError as e:
                res.check(False, os.path.basename(c), '-', 'tshark', 'runs', str(e))
            print("%-62s %5d checks, %d failed" % (os.path.basename(c), res.passed - p0 +
                                                   res.failed - f0, res.failed - f0))
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    if args.mismatches:
        with open(args.mismatches, 'w') as fh:
            for f in res.failures:
                fh.write(json.dumps(f) + "\n")
    print("%d passed, %d failed" % (res.passed, res.failed))
    return 1 if res.failed else 0


if __name__ == '__main__':
    sys.exit(main())
