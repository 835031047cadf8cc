#!/usr/bin/env python3
"""changeweb.py - a site whose pages change as Poisson processes of known
rates, for the freshness test of recrawl by value
(tests/integration/freshness.sh, doc/CRAWL.md "The simulation").

Python 3 standard library only.  Listens on 127.0.0.1 (threaded).

Usage:
  changeweb.py [--port 0] [--port-file FILE] [--log FILE] [--truth FILE]
               [--seed N] [--lifetime SECONDS]
  changeweb.py --score TRUTH LOG --window FROM TO

The site: value classes /w1/ /w3/ /w9/ /w27/ (ω 1, 3, 9, 27: the test gives
each class its PageValue), each an index page / linking RATES pages
/wK/pJ.html; page J of every class changes at the rate RATES[J] (changes a
second, from 1/2 to 1/120: every rate meets every value).
The change times are drawn at start from --seed (the same seed, the same
changes) and counted from the first request the server answers, not from its
start: a crawler whose own start-up is slow (a loaded machine) meets the same
changes at the same time into its crawl.  A page's body names its version
(the number of changes so far), so its MD5 moves with every change and
with nothing else.  Index pages never change.  No validators: every fetch
is a 200 with the body.

--truth FILE: JSON written at the first request: t0 (its time, wall-clock
seconds) and for each page its path, rate, value and change times (seconds
after t0).  --log FILE: a line per GET, tab-separated, when it is answered:
  time  path  version  status
(time in wall-clock seconds, 6 decimals).

--score: the value-weighted freshness of the copies the log says were
fetched, over the window [FROM, TO] (seconds after t0): for each page the
fraction of the window in which the version last fetched equals the live
one (exactly, from the change times; no copy yet: stale), weighted by ω;
and the same in expectation, from the fetch times and the true rates only
(a copy fetched at t is live at t' with probability e^{-rate (t' - t)}):
the freshness of the schedule the crawler kept, averaged over every
realisation of the changes rather than the one it met.
Prints "freshness F fetches N expected E rate R": N the GETs answered
inside the window; R the rate of the schedule over the whole log, fetches a
second: for each path fetched more than once, its fetches after the first
over the time from its first to its last, summed.  Unlike a count in a
window it does not jump when a round of fetches falls just inside or just
outside the window's edge (a fixed Period's rounds, or a class of pages
coming back together at the end of a crawl).
"""
import argparse
import bisect
import http.server
import json
import math
import os
import random
import socketserver
import sys
import threading
import time

from serverlib import announce_and_serve, send_body

RATES = [1 / 2, 1 / 4, 1 / 8, 1 / 15, 1 / 30, 1 / 60, 1 / 120]
VALUES = [1, 3, 9, 27]
HORIZON = 3600.0   # change times are drawn this far

ARGS = None
LOG = None
LOG_LOCK = threading.Lock()
SITE = {}          # path -> {"rate", "omega", "changes"}
T0 = None          # the first request's time; None before it
T0_LOCK = threading.Lock()


def make_site(seed):
    rnd = random.Random(seed)
    site = {}
    for w in VALUES:
        for j, rate in enumerate(RATES):
            t, changes = 0.0, []
            while True:
                t += rnd.expovariate(rate)
                if t > HORIZON:
                    break
                changes.append(round(t, 6))
            site["/w%d/p%d.html" % (w, j)] = {"rate": rate, "omega": w, "changes": changes}
    return site


def index_page(w):
    links = "".join('<li><a href="p%d.html">page %d</a></li>' % (j, j)
                    for j in range(len(RATES)))
    return ("<html><head><title>Class %d</title></head><body><ul>%s</ul></body></html>\n"
            % (w, links)).encode()


def start_clock(now):
    """T0, set to now by the first request (which writes the truth file)."""
    global T0
    with T0_LOCK:
        if T0 is None:
            T0 = now
            if ARGS.truth:
                with open(ARGS.truth + ".tmp", "w") as f:
                    json.dump({"t0": T0, "pages": SITE}, f)
                os.rename(ARGS.truth + ".tmp", ARGS.truth)
        return T0


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, fmt, *args):
        pass

    def do_GET(self):
        now = time.time()
        path = self.path.split("?")[0]
        version, status, body = -1, 404, b"not found\n"
        t0 = start_clock(now)
        if path in SITE:
            version = bisect.bisect_right(SITE[path]["changes"], now - t0)
            status = 200
            body = ("<html><head><title>Page %s</title></head><body><p>changeweb page %s"
                    " version%d</p></body></html>\n" % (path, path, version)).encode()
        elif len(path) >= 4 and path[:2] == "/w" and path.endswith("/") and \
                path[2:-1].isdigit() and int(path[2:-1]) in VALUES:
            status, body = 200, index_page(int(path[2:-1]))
            version = 0
        status = send_body(self, status, body)
        if LOG:
            with LOG_LOCK:
                LOG.write("%.6f\t%s\t%d\t%d\n" % (now, path, version, status))
                LOG.flush()


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def fresh_time(changes, fetches, a, b):
    """Seconds of [a, b] in which the copy fetched last (fetches: sorted
    (time, version)) equals the live page."""
    total = 0.0
    for i, (t, v) in enumerate(fetches):
        end = fetches[i + 1][0] if i + 1 < len(fetches) else b
        lo, hi = max(t, a), min(end, b)
        if hi <= lo:
            continue
        # The copy of version v is live until change number v+1 (index v).
        until = changes[v] if v < len(changes) else float("inf")
        if until > lo:
            total += min(hi, until) - lo
    return total


def expected_fresh_time(rate, fetches, a, b):
    """The same in expectation: a copy is live at t seconds after its fetch
    with probability e^{-rate t}."""
    total = 0.0
    for i, (t, _) in enumerate(fetches):
        end = fetches[i + 1][0] if i + 1 < len(fetches) else b
        lo, hi = max(t, a), min(end, b)
        if hi > lo:
            total += (math.exp(-rate * (lo - t)) - math.exp(-rate * (hi - t))) / rate
    return total


def schedule_rate(times):
    """Fetches a second of a schedule (times: path -> sorted fetch times):
    each path's fetches after its first over the time they took."""
    return sum((len(t) - 1) / (t[-1] - t[0]) for t in times.values()
               if len(t) > 1 and t[-1] > t[0])


def score(truth_file, log_file, a, b):
    with open(truth_file) as f:
        truth = json.load(f)
    t0, pages = truth["t0"], truth["pages"]
    fetches, times, n = {}, {}, 0
    with open(log_file) as f:
        for line in f:
            t, path, version, status = line.rstrip("\n").split("\t")
            t = float(t) - t0
            if status != "200":
                continue
            if a <= t <= b:
                n += 1
            times.setdefault(path, []).append(t)
            if path in pages:
                fetches.setdefault(path, []).append((t, int(version)))
    num = exp = den = 0.0
    for path, p in pages.items():
        got = sorted(fetches.get(path, []))
        num += p["omega"] * fresh_time(p["changes"], got, a, b)
        exp += p["omega"] * expected_fresh_time(p["rate"], got, a, b)
        den += p["omega"] * (b - a)
    print("freshness %.4f fetches %d expected %.4f rate %.3f"
          % (num / den, n, exp / den, schedule_rate({k: sorted(v) for k, v in times.items()})))
    return 0


def main():
    global ARGS, LOG, SITE
    ap = argparse.ArgumentParser()
    ap.add_argument("--bind", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--log")
    ap.add_argument("--truth")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--lifetime", type=float, default=900.0)
    ap.add_argument("--score", nargs=2, metavar=("TRUTH", "LOG"))
    ap.add_argument("--window", nargs=2, type=float, metavar=("FROM", "TO"))
    ARGS = ap.parse_args()
    if ARGS.score:
        if not ARGS.window:
            ap.error("--score wants --window FROM TO")
        return score(ARGS.score[0], ARGS.score[1], ARGS.window[0], ARGS.window[1])
    SITE = make_site(ARGS.seed)
    if ARGS.log:
        LOG = open(ARGS.log, "a")
    srv = Server((ARGS.bind, ARGS.port), Handler)
    return announce_and_serve(srv, ARGS.port_file, ARGS.lifetime)


if __name__ == "__main__":
    sys.exit(main())
