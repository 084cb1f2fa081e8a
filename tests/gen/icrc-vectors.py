#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Writes tests/icrc_vectors.h: RoCE packets and their ICRC computed outside the library.

    /usr/bin/python3 tests/gen/icrc-vectors.py > tests/icrc_vectors.h

Each vector is the frame up to the end of the transport headers (Ethernet .. BTH and its
extension headers), a payload length and a seed (payload byte i = (i * 37 + seed) & 0xff, rebuilt
by the C side), and the ICRC as it travels (the four bytes after the payload, read little-endian).

IPv4 RoCEv2 frames are built and their ICRC computed by scapy.contrib.roce (its BTH post_build
masks TOS, TTL, header checksum, UDP checksum and FECN/BECN/reserved and runs zlib's crc32 over
eight 0xFF bytes and the masked packet); the script checks that scapy's value equals the one
icrc_masked() below computes. scapy does not compute the ICRC of IPv6 or RoCEv1 (GRH) packets:
those are built by hand here and their ICRC is icrc_masked(): zlib.crc32 over eight 0xFF bytes and
the packet with the IBTA's masked fields set to ones (Annex A17 for RoCEv2 over IPv6: traffic
class, flow label, hop limit, UDP checksum, BTH byte 4; Annex A16 for the GRH of RoCEv1).

The output is deterministic; regenerate it only when the vectors change.
"""
import logging
import struct
import sys
import zlib

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)

from scapy.all import Ether, Dot1Q, IP, IPOption_RR, UDP, Raw, raw  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402


def payload(n, seed):
    return bytes((i * 37 + seed) & 0xff for i in range(n))


def icrc_masked(frame, l3, v4, roce2, l4, bth, end):
    """zlib.crc32 over 8 x 0xFF + frame[l3:end] with the invariant-CRC masks."""
    b = bytearray(frame[l3:end])
    if v4:
        b[1] = 0xff  # TOS
        b[8] = 0xff  # TTL
        b[10] = b[11] = 0xff  # header checksum
    else:
        b[0] |= 0x0f  # traffic class (low bits), flow label, hop limit
        b[1] = b[2] = b[3] = 0xff
        b[7] = 0xff
    if roce2:
        b[l4 - l3 + 6] = b[l4 - l3 + 7] = 0xff  # UDP checksum
    b[bth - l3 + 4] = 0xff  # FECN, BECN, reserved
    return zlib.crc32(b'\xff' * 8 + bytes(b)) & 0xffffffff


vectors = []  # (name, source, header bytes, payload length, seed, icrc)


def v4(name, opcode, ext, plen, seed, vlan=False, tos=0x02, ttl=64, options=None,
       fecn=0, becn=0, pad=None):
    if pad is None:
        pad = (-plen) % 4
    eth = Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02')
    if vlan:
        eth = eth / Dot1Q(vlan=100, prio=3)
    ip = IP(src='10.0.0.1', dst='10.0.1.2', tos=tos, ttl=ttl, id=0x1234, flags='DF')
    if options:
        ip.options = options
    bth = BTH(opcode=opcode, solicited=0, migreq=1, padcount=pad, version=0, pkey=0xffff,
              fecn=fecn, becn=becn, dqpn=0x000123 + seed, ackreq=1, psn=0x00abcd + seed)
    pkt = eth / ip / UDP(sport=49152 + seed, dport=4791, chksum=0x1234) / bth / \
        Raw(ext + payload(plen, seed) + b'\x00' * pad)
    frame = raw(pkt)
    icrc_bytes = frame[-4:]
    l3 = len(raw(eth))
    ihl = (frame[l3] & 0x0f) * 4
    l4 = l3 + ihl
    b = l4 + 8
    if icrc_masked(frame, l3, True, True, l4, b, len(frame) - 4) != struct.unpack('<I', icrc_bytes)[0]:
        sys.exit('%s: scapy.contrib.roce and the masked zlib.crc32 disagree' % name)
    hdr = frame[:b + 12 + len(ext)]
    # the payload region as the C side rebuilds it: payload(plen) + pad zeros
    vectors.append((name, 'scapy.contrib.roce', hdr, plen, seed, pad,
                    struct.unpack('<I', icrc_bytes)[0]))


def v6(name, opcode, plen, seed, tc=0x8a, flow=0x12345, hlim=64, exthdr=b'', roce1=False,
       vlan=False):
    pad = (-plen) % 4
    eth = b'\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01'
    if vlan:
        eth += struct.pack('!HH', 0x8100, 0x6064)
    eth += struct.pack('!H', 0x8915 if roce1 else 0x86dd)
    bth = struct.pack('!BBHII', opcode, 0x40 | (pad << 4), 0xffff, 0x000200 + seed,
                      0x80000000 | (0x001000 + seed))
    body = bth + payload(plen, seed) + b'\x00' * pad
    src = bytes(range(0x20, 0x30))
    dst = bytes(range(0x40, 0x50))
    if roce1:
        nh, l4body = 0x1b, body + b'\x00' * 4
    else:
        udp_len = 8 + len(body) + 4
        udp = struct.pack('!HHHH', 49152 + seed, 4791, udp_len, 0x4321)
        nh = 0 if exthdr else 17  # hop-by-hop options first, if any
        l4body = exthdr + udp + body + b'\x00' * 4
    ip6 = struct.pack('!IHBB', 6 << 28 | tc << 20 | flow, len(l4body), nh, hlim) + src + dst
    frame = bytearray(eth + ip6 + l4body)
    l3 = len(eth)
    l4 = l3 + 40 + len(exthdr)
    b = l3 + 40 if roce1 else l4 + 8
    icrc = icrc_masked(frame, l3, False, not roce1, l4, b, len(frame) - 4)
    vectors.append((name, 'zlib.crc32 of the masked packet', bytes(frame[:b + 12]), plen, seed,
                    pad, icrc))


def hop_by_hop(length):
    """A hop-by-hop options header of |length| bytes (a multiple of 8), next header UDP,
    padded with PadN."""
    return bytes([17, length // 8 - 1, 1, length - 4]) + b'\x00' * (length - 4)


RETH = struct.pack('!QII', 0x7f0000001000, 0x1234, 4096)
AETH = struct.pack('!I', 0x1f000010)

# IPv4, by payload length: below, at and above the 64-byte fold block, the 16-byte fold step and
# its 0-15 byte tail
v4('ack', 0x11, AETH, 0, 1)
v4('send-only-1', 0x04, b'', 1, 2)
v4('send-only-13', 0x04, b'', 13, 3)
v4('send-only-16', 0x04, b'', 16, 4)
v4('send-only-17', 0x04, b'', 17, 5)
v4('send-only-28', 0x04, b'', 28, 6)
v4('send-only-64', 0x04, b'', 64, 7)
v4('send-only-79', 0x04, b'', 79, 8)
v4('send-only-255', 0x04, b'', 255, 9)
v4('write-first-1024', 0x06, RETH, 1024, 10)
v4('write-middle-1024', 0x07, b'', 1024, 11, vlan=True)
v4('write-last-1021', 0x08, b'', 1021, 12)
v4('read-resp-4096', 0x10, AETH, 4096, 13)
v4('write-only-8952', 0x0a, RETH, 8952, 14)
# the masked fields away from their usual values
v4('masked-fields', 0x07, b'', 512, 15, tos=0xff, ttl=1, fecn=1, becn=1)
# IPv4 options: the masked BTH byte falls in the second 64-byte window
v4('ip-options-40', 0x04, b'', 300, 16, options=[IPOption_RR(routers=['10.9.9.%d' % i for i in range(9)])])
v4('ip-options-40-short', 0x11, AETH, 0, 17, options=[IPOption_RR(routers=['10.9.9.%d' % i for i in range(9)])])
# IPv6 RoCEv2 and RoCEv1 (GRH)
v6('ipv6-ack', 0x11, 4, 18)
v6('ipv6-send-1000', 0x04, 1000, 19, vlan=True)
v6('ipv6-hop-by-hop-24', 0x04, 200, 20, exthdr=hop_by_hop(24))
v6('ipv6-hop-by-hop-80', 0x07, 1024, 21, exthdr=hop_by_hop(80))
v6('rocev1-write-1024', 0x07, 1024, 22, roce1=True)
v6('rocev1-send-3', 0x04, 3, 23, roce1=True)

out = sys.stdout
out.write('''/* SPDX-License-Identifier: MIT */
/*
 * Generated by tests/gen/icrc-vectors.py (scapy %s): RoCE packets and their
 * ICRC computed outside the library (the source of each is named). A frame
 * is hdr, then payload byte i = (i * 37 + seed) & 0xff for i < payload,
 * then pad zero bytes, then the ICRC as the four bytes of icrc,
 * little-endian.
 */
#ifndef ICRC_VECTORS_H
#define ICRC_VECTORS_H

#include <stddef.h>
#include <stdint.h>

struct icrc_vector {
  const char *name;
  const char *source;
  const uint8_t *hdr;
  size_t hdr_len;
  size_t payload;
  uint8_t seed;
  uint8_t pad;
  uint32_t icrc;
};

/* clang-format off */
''' % __import__('scapy').__version__)
for i, (name, src, hdr, plen, seed, pad, icrc) in enumerate(vectors):
    out.write('static const uint8_t icrc_hdr_%d[%d] = {\n' % (i, len(hdr)))
    for j in range(0, len(hdr), 12):
        out.write('    ' + ' '.join('0x%02x,' % x for x in hdr[j:j + 12]) + '\n')
    out.write('};\n')
out.write('\nstatic const struct icrc_vector icrc_vectors[] = {\n')
for i, (name, src, hdr, plen, seed, pad, icrc) in enumerate(vectors):
    out.write('    {"%s", "%s", icrc_hdr_%d, sizeof(icrc_hdr_%d), %d, %d, %d, 0x%08xu},\n'
              % (name, src, i, i, plen, seed, pad, icrc))
out.write('};\n/* clang-format on */\n\n#endif /* ICRC_VECTORS_H */\n')
