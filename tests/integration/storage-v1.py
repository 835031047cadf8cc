#!/usr/bin/env python3
"""storage-v1.py GEN_DIR - rewrite a CompactStorage generation of format
version 3 as format version 1 wrote it (doc/FORMATS.md, "Format versions"):
16-byte ind entries and 8-byte sites entries with 32-bit offsets and
totals, URL records of 16-bit positions only, version 1 in every header
and in FORMAT.  For merge.sh, which
checks that a version-1 generation is refused and converted by a merge.
Each file is written beside its original and renamed over it."""
import os
import struct
import sys
import zlib

HDR = 32


def header(h, data):
    h = bytearray(h)
    struct.pack_into('<I', h, 8, 1)
    struct.pack_into('<I', h, 24, zlib.crc32(data) & 0xffffffff)
    struct.pack_into('<I', h, 28, zlib.crc32(bytes(h[:28])) & 0xffffffff)
    return bytes(h)


def rewrite(path, convert):
    with open(path, 'rb') as f:
        b = f.read()
    if struct.unpack_from('<I', b, 8)[0] != 3:
        sys.exit('%s: not format version 3' % path)
    data = convert(b[HDR:])
    with open(path + '.v1', 'wb') as f:
        f.write(header(b[:HDR], data) + data)
    os.rename(path + '.v1', path)


def ind(d):
    out = bytearray()
    for k in range(0, len(d), 24):
        end, sites, urls, total = struct.unpack_from('<QIIQ', d, k)
        if end // 2 > 0xffffffff or total > 0xffffffff:
            sys.exit('too large for version 1')
        out += struct.pack('<IIII', end // 2, sites, urls, total)
    return bytes(out)


def sites(d):
    out = bytearray()
    for k in range(0, len(d), 16):
        site, _, end = struct.unpack_from('<IIQ', d, k)
        if end > 0xffffffff:
            sys.exit('too large for version 1')
        out += struct.pack('<II', site, end)
    return bytes(out)


def urls(d):
    # version 3's narrow records are version 1's; a wide one (bit 15 of the
    # count: 32-bit positions) has no version-1 form
    k = 0
    while k < len(d):
        n = struct.unpack_from('<H', d, k + 4)[0]
        if n & 0x8000:
            sys.exit('a URL record with positions past 16383: none in version 1')
        k += 6 + 2 * n
    return d


def main():
    gen = sys.argv[1]
    same = lambda d: d
    for p in range(100):
        part = os.path.join(gen, '%02dw' % p)
        rewrite(os.path.join(part, 'ind'), ind)
        rewrite(os.path.join(part, 'sites'), sites)
        rewrite(os.path.join(part, 'urls'), urls)
        rewrite(os.path.join(part, 'words'), same)
    rewrite(os.path.join(gen, 'docinfo'), same)
    fmt = os.path.join(gen, 'FORMAT')
    with open(fmt) as f:
        text = f.read()
    if not text.startswith('mpseek-compactstorage 3\n'):
        sys.exit('%s: not format version 3' % fmt)
    with open(fmt + '.v1', 'w') as f:
        f.write('mpseek-compactstorage 1\n' + text[len('mpseek-compactstorage 3\n'):])
    os.rename(fmt + '.v1', fmt)


main()
