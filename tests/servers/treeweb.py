#!/usr/bin/env python3
"""treeweb.py - a generated web of many small pages on many hosts, served
slowly, for mpseek's cluster crawl tests (tests/integration/cluster.sh).

Python 3 standard library only.  Listens on 127.0.0.1 (threaded: one thread
per connection), answers every request after --delay seconds, and logs every
request in hostile.py's format, one line when the response ends:
  start  end  port  host  method  path  status  bytes
(wall-clock seconds with 6 decimals).  Politeness checks read it.

Usage:
  treeweb.py [--bind ADDR] [--pages N] [--delay S] [--port N] [--port-file FILE]
             [--log FILE] [--lifetime SECONDS]

Every host name is its own site (libcurl resolves *.localhost to 127.0.0.1):
on any host, /robots.txt is 404, / links /p/0.html, and /p/K.html (K < N) is
a page titled "Page K of HOST" linking /p/(2K+1).html, /p/(2K+2).html and
/p/(K/2).html (a binary tree with back links), so N + 1 pages per host are
reachable.  Bodies depend on the host and K only: a recrawl sees the same
MD5.  Other paths are 404.
"""
import argparse
import http.server
import re
import socketserver
import sys
import threading
import time

from serverlib import announce_and_serve, send_body

ARGS = None
LOG_LOCK = threading.Lock()
LOG = None


def page(host, k, n):
    links = [2 * k + 1, 2 * k + 2, k // 2]
    items = "".join('<li><a href="/p/%d.html">page %d</a></li>' % (j, j)
                    for j in links if j < n)
    words = " ".join("word%d" % ((k * 7 + i) % 101) for i in range(40))
    return ("<!DOCTYPE html><html><head><title>Page %d of %s</title></head><body>"
            "<h1>Page %d</h1><p>%s treeweb</p><ul>%s</ul></body></html>\n"
            % (k, host, k, words, items)).encode()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True   # headers and body are two writes

    def log_message(self, fmt, *args):
        pass

    def do_GET(self):
        start = time.time()
        time.sleep(ARGS.delay)
        host = (self.headers.get("Host") or "").split(":")[0]
        status, body = 404, b"not found\n"
        m = re.fullmatch(r"/p/(\d+)\.html", self.path)
        if self.path == "/":
            status, body = 200, b'<html><head><title>Home</title></head><body><a href="/p/0.html">start</a></body></html>\n'
        elif m and int(m.group(1)) < ARGS.pages:
            status, body = 200, page(host, int(m.group(1)), ARGS.pages)
        status = send_body(self, status, body)
        end = time.time()
        if LOG:
            with LOG_LOCK:
                LOG.write("%.6f\t%.6f\t%d\t%s\tGET\t%s\t%d\t%d\n" % (
                    start, end, self.server.server_address[1],
                    self.headers.get("Host") or "-", self.path, status, len(body)))
                LOG.flush()


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    global ARGS, LOG
    ap = argparse.ArgumentParser()
    ap.add_argument("--bind", default="127.0.0.1")
    ap.add_argument("--pages", type=int, default=100)
    ap.add_argument("--delay", type=float, default=0.0)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--log")
    ap.add_argument("--lifetime", type=float, default=900.0)
    ARGS = ap.parse_args()
    if ARGS.log:
        LOG = open(ARGS.log, "a")
    srv = Server((ARGS.bind, ARGS.port), Handler)
    return announce_and_serve(srv, ARGS.port_file, ARGS.lifetime)


if __name__ == "__main__":
    sys.exit(main())
