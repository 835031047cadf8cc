#!/usr/bin/env python3
"""delayweb.py - serve directories over HTTP with a fixed delay per request,
standing for network latency in bench/crawl-ranks and bench/crawl (DELAY=).

  delayweb.py --delay 0.02 [--robots PORT=FILE ...] PORT=DOCROOT [PORT=DOCROOT ...]

One threaded server per port on 127.0.0.1 (a thread per connection, HTTP/1.1
keep-alive); every response waits --delay seconds first.  Directories answer
their index.html.  --robots serves FILE as /robots.txt of the site on PORT
(as the corpus' nginx serves the robots.txt it generates).  Standard library
only.
"""
import argparse
import functools
import io
import http.server
import socketserver
import sys
import threading
import time

DELAY = 0.0


class Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes: without TCP_NODELAY,
    # Nagle and the client's delayed ACK add ~40 ms to every response.
    disable_nagle_algorithm = True

    def log_message(self, fmt, *args):
        pass

    robots = None   # the bytes of /robots.txt, or None: from the docroot

    def send_head(self):
        time.sleep(DELAY)
        if self.robots is not None and self.path.split("?", 1)[0] == "/robots.txt":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(self.robots)))
            self.end_headers()
            return io.BytesIO(self.robots)
        return super().send_head()


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    global DELAY
    ap = argparse.ArgumentParser()
    ap.add_argument("--delay", type=float, default=0.02)
    ap.add_argument("--robots", action="append", default=[], metavar="PORT=FILE")
    ap.add_argument("sites", nargs="+")
    a = ap.parse_args()
    DELAY = a.delay
    robots = {}
    for spec in a.robots:
        port, path = spec.split("=", 1)
        with open(path, "rb") as f:
            robots[int(port)] = f.read()
    servers = []
    for spec in a.sites:
        port, root = spec.split("=", 1)
        handler = type("Handler%s" % port, (Handler,), {"robots": robots.get(int(port))})
        srv = Server(("127.0.0.1", int(port)), functools.partial(handler, directory=root))
        servers.append(srv)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
    print("serving", len(servers), "sites", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
