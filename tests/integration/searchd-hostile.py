#!/usr/bin/env python3
"""searchd-hostile.py - hostile clients for tests/integration/searchd.sh.

    searchd-hostile.py HOST PORT MODE [N]

Speaks the frame format of doc/PROTOCOL.md by hand (it must be able to
break it) and prints one line saying what searchd did:
    error TOKEN     an ERROR frame came back
    pong            a PONG came back
    results         a RESULTS frame came back
    closed S        searchd closed the connection after S seconds, no frame
    reset           the connection was reset
    timeout         nothing happened within the wait
Modes that open many connections print counts instead (see below).
"""
import socket
import struct
import sys
import time

MAGIC = b"MPSQ"
SEARCH, RESULTS, CACHED, CACHED_REPLY, ERROR, PING, PONG = 1, 2, 3, 4, 5, 6, 7


def header(typ, length, magic=MAGIC, version=2):
    return magic + struct.pack("<HHI", version, typ, length)


def s(b):
    return struct.pack("<I", len(b)) + b


def search_payload(q=b"homeword", trailing=b""):
    return (s(q) + struct.pack("<II", 0, 10) + bytes([0, 1, 0]) + struct.pack("<I", 0) +
            s(b"") + struct.pack("<QQ", 0, 0) + struct.pack("<I", 0) +
            struct.pack("<II", 2, 200) + s(b"hostile") + s(b"") + trailing)


def read_exact(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def outcome(sock, wait):
    """What searchd answers on sock within wait seconds."""
    sock.settimeout(wait)
    t0 = time.monotonic()
    try:
        hdr = read_exact(sock, 12)
        if hdr is None:
            return "closed %.1f" % (time.monotonic() - t0)
        if hdr[:4] != MAGIC:
            return "garbage"
        _, typ, length = struct.unpack("<HHI", hdr[4:])
        payload = read_exact(sock, length) if length else b""
        if payload is None:
            return "closed %.1f" % (time.monotonic() - t0)
        if typ == ERROR:
            n = struct.unpack("<I", payload[:4])[0]
            return "error " + payload[4:4 + n].decode("utf-8", "replace")
        if typ == PONG:
            return "pong"
        if typ == RESULTS:
            return "results"
        return "frame %d" % typ
    except socket.timeout:
        return "timeout"
    except ConnectionResetError:
        return "reset"


def connect(host, port):
    return socket.create_connection((host, port), timeout=10)


def one(host, port, data, wait=10.0, shut=False):
    sock = connect(host, port)
    try:
        sock.sendall(data)
        if shut:
            sock.shutdown(socket.SHUT_WR)
        return outcome(sock, wait)
    finally:
        sock.close()


def main():
    host, port, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 200
    if mode == "trunc-header":          # 5 bytes of a header, then EOF
        print(one(host, port, MAGIC + b"\x01", shut=True))
    elif mode == "bad-magic":
        print(one(host, port, header(PING, 0, magic=b"GET ")))
    elif mode == "http":                # a web browser at the wrong port
        print(one(host, port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
    elif mode == "bad-version":
        print(one(host, port, header(PING, 0, version=99)))
    elif mode == "ping-payload":        # PING is empty (doc/PROTOCOL.md)
        print(one(host, port, header(PING, 4) + b"ping"))
    elif mode == "bad-type":
        print(one(host, port, header(99, 0)))
    elif mode == "answer-type":         # a RESULTS frame sent to searchd
        print(one(host, port, header(RESULTS, 4) + b"\0\0\0\0"))
    elif mode == "huge-length":         # over PROTO_MAX_FRAME, then bytes
        print(one(host, port, header(SEARCH, 0xFFFFFFFF) + b"x" * 1000))
    elif mode == "over-cap":            # under the frame cap, over searchd's request cap
        print(one(host, port, header(SEARCH, 1 << 20) + b"x" * 65536))
    elif mode == "garbage":             # a right header, a payload of noise
        body = bytes((i * 151 + 7) % 256 for i in range(300))
        print(one(host, port, header(SEARCH, len(body)) + body))
    elif mode == "trailing":            # a good request with a byte too many
        body = search_payload(trailing=b"!")
        print(one(host, port, header(SEARCH, len(body)) + body))
    elif mode == "bad-utf8":
        body = search_payload(q=b"caf\xc3(")
        print(one(host, port, header(SEARCH, len(body)) + body))
    elif mode == "lying-count":         # an array count far beyond the frame
        body = (s(b"x") + struct.pack("<II", 0, 10) + bytes([0, 1, 0]) + struct.pack("<I", 0) +
                s(b"") + struct.pack("<QQ", 0, 0) + struct.pack("<I", 0xFFFFFFF0))
        print(one(host, port, header(SEARCH, len(body)) + body))
    elif mode == "good":                # the control: a well-formed request
        body = search_payload()
        print(one(host, port, header(SEARCH, len(body)) + body))
    elif mode == "two-in-one":          # two requests in one write: both answered
        body = search_payload()
        sock = connect(host, port)
        sock.sendall(header(PING, 0) + header(SEARCH, len(body)) + body)
        print(outcome(sock, 10), outcome(sock, 10))
        sock.close()
    elif mode == "stall":               # half a frame, then nothing: closed by the timeout
        body = search_payload()
        print(one(host, port, (header(SEARCH, len(body)) + body)[:30], wait=30))
    elif mode == "flood":               # n connections with half a frame each, held
        socks = []
        for _ in range(n):
            try:
                c = connect(host, port)
                c.sendall(header(SEARCH, 100) + b"xx")
                socks.append(c)
            except OSError:
                pass
        time.sleep(1)
        # every one is still held (or refused), none answered
        answered = 0
        for c in socks:
            c.setblocking(False)
            try:
                if c.recv(12):
                    answered += 1
            except BlockingIOError:
                pass
            except OSError:
                pass
        for c in socks:
            c.close()
        print("opened %d answered %d" % (len(socks), answered))
    elif mode == "many-pings":          # n connections send a PING at once
        socks = []
        for _ in range(n):
            try:
                socks.append(connect(host, port))
            except OSError:
                pass
        for c in socks:
            try:
                c.sendall(header(PING, 0))
            except OSError:
                pass
        counts = {}
        for c in socks:
            r = outcome(c, 20)
            r = "closed" if r.startswith("closed") else r.replace(" ", ":")
            counts[r] = counts.get(r, 0) + 1
            c.close()
        print(" ".join("%s %d" % kv for kv in sorted(counts.items())))
    elif mode == "crowd":               # n idle connections: over the cap ER_BUSY,
        import resource                 # and idle ones closed early when crowded
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        want = n + 64
        if soft < want:
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))
        socks = []
        for _ in range(n):
            try:
                socks.append(connect(host, port))
            except OSError:
                break
        time.sleep(0.5)
        busy = 0
        for c in socks:
            c.setblocking(False)
            try:
                if b"ER_BUSY" in c.recv(4096):
                    busy += 1
            except OSError:
                pass
        t0 = time.monotonic()
        first = socks[0]
        first.settimeout(30)
        try:
            first.recv(100)
            closed = "%.1f" % (time.monotonic() - t0 + 0.5)
        except OSError:
            closed = "never"
        for c in socks:
            c.close()
        print("opened %d busy %d idle-closed-after %s" % (len(socks), busy, closed))
    else:
        sys.exit("unknown mode " + mode)


if __name__ == "__main__":
    main()
