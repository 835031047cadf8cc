#!/usr/bin/env python3
"""make-golden.py - encode records.txt as a delta log of format version 1, 2
or 3, following doc/FORMATS.md ("Delta log") and nothing else, into
golden-v1.dlt, golden-v2.dlt or golden-v3.dlt.

An independent implementation of the format: test-delta reads the result
with src/store/delta.c and compares the writer's own output with it record by
record (version 3, what the writer writes), and checks that versions 1 and 2
read back (positions of version 1 converted).  Versions 1 and 2 cannot hold
TEXT records: their files leave the TEXT lines out.  Rerun only when the
format version changes:
    python3 make-golden.py records.txt golden-v3.dlt 3
"""
import struct
import sys
import zlib

RANK, CREATED = 7, 1700000000
VERSION = 3
T = {"DOC": 1, "DEL": 2, "HREFS": 3, "REDIR": 4, "LASTMOD": 5, "COMMIT": 6, "TEXT": 7}
MAX_TEXT_FIELD = 1024


def frame(rtype, payload):
    body = bytes([rtype]) + payload
    return struct.pack("<II", len(payload), zlib.crc32(body)) + body


def leb128(v):
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7F | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def encode_text(line):
    """TEXT url size ct|cs|title|desc|kw blob: the fields may hold spaces,
    the blob is hex (- for none)."""
    _, url, size, rest = line.split(" ", 3)
    fields, blob = rest.rsplit(" ", 1)
    fields = fields.split("|")
    assert len(fields) == 5, line
    p = struct.pack("<II", int(url), int(size))
    for x in fields:
        b = x.encode()
        assert len(b) <= MAX_TEXT_FIELD and b"\0" not in b, line
        p += struct.pack("<H", len(b)) + b
    blob = b"" if blob == "-" else bytes.fromhex(blob)
    return frame(T["TEXT"], p + struct.pack("<I", len(blob)) + blob)


def encode(line):
    if line.startswith("TEXT "):
        return encode_text(line)
    f = line.split(" ")
    kind, url = f[0], int(f[1])
    if kind == "DOC":
        words = []
        for w in f[4:]:
            word, _, pos = w.rpartition(":")
            pos = [int(p) for p in pos.split(",")]
            words.append((word.encode(), pos))
        words.sort()
        p = struct.pack("<IIQI", url, int(f[2]), int(f[3]), len(words))
        for word, pos in words:
            p += bytes([len(word)]) + word + struct.pack("<H", len(pos))
            if VERSION == 1:
                p += struct.pack("<%dH" % len(pos), *pos)
            else:
                p += b"".join(leb128(x - y) for x, y in zip(pos, [0] + pos[:-1]))
        return frame(T[kind], p)
    if kind == "DEL":
        return frame(T[kind], struct.pack("<I", url))
    if kind == "HREFS":
        ids = sorted(set(int(x) for x in f[2].split(","))) if f[2] != "-" else []
        return frame(T[kind], struct.pack("<II%dI" % len(ids), url, len(ids), *ids))
    if kind == "REDIR":
        return frame(T[kind], struct.pack("<II", url, int(f[2])))
    if kind == "LASTMOD":
        return frame(T[kind], struct.pack("<IQ", url, int(f[2])))
    raise ValueError(line)


def main(src, dst):
    head = b"MPSDLT\0\1" + struct.pack("<IIQ", VERSION, RANK, CREATED)
    head += struct.pack("<I", zlib.crc32(head))
    out = bytearray(head)
    synced = committed = len(out)

    def commit_due():
        nonlocal committed
        if synced > committed:
            out.extend(frame(T["COMMIT"], struct.pack("<QI", synced, zlib.crc32(head[:24]))))
            committed = synced

    for line in open(src, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        line = line.split("\t")[0]
        if line == "SYNC":
            synced = len(out)  # a sync with nothing new written is a no-op
            continue
        if line.startswith("TEXT ") and VERSION < 3:
            continue  # not in a log of these versions
        commit_due()
        out.extend(encode(line))
    synced = len(out)  # delta_close: sync, then a final commit, then sync
    commit_due()
    open(dst, "wb").write(bytes(out))


if __name__ == "__main__":
    if len(sys.argv) > 3:
        VERSION = int(sys.argv[3])
    main(sys.argv[1], sys.argv[2])
