#!/usr/bin/env python3
"""hostile.py - a misbehaving web server for mpseek's fetch and crawl tests.

Python 3 standard library only.  Listens on 127.0.0.1, logs every request,
and serves well-behaved pages next to every hostile case of
doc/HOSTILE-INPUT.md (cases 1-13).  Started by tests/integration/*.sh; reused by the crawler tests.

Usage:
  hostile.py [--bind 127.0.0.1] [--port 0] [--ports N] [--port-file FILE]
             [--log FILE] [--lifetime SECONDS] [--robots IDX=VARIANT ...]

  --port 0 (default) picks a free port.  --ports N listens on N ports (the
  first is --port, the others free ones).  The ports are printed on stdout
  on one line, separated by spaces, and written the same way to --port-file
  (written to FILE.tmp then renamed, so a test may poll for FILE).  The
  server exits by itself after --lifetime seconds (default 1800), or on
  SIGTERM/SIGINT.

Request log (--log FILE), one line per request, tab-separated, written when
the response ends:
  start  end  port  host  method  path  status  bytes
with wall-clock times in seconds (6 decimals); host is the Host header as
sent; bytes counts the body bytes written; status 0 means no status line
was sent (/silent, /no-status).  Politeness tests read it: requests to one
host must not overlap and must be at least MinDelay apart.

Virtual hosts: libcurl resolves *.localhost to 127.0.0.1 itself, so
http://a.localhost:PORT/ and http://b.localhost:PORT/ are two hosts on one
server.  The Host label picks the robots.txt variant (see below).

ENDPOINTS (all GET and HEAD; HEAD sends the same headers without a body)

Plain pages
  /                         index linking every endpoint (crawling it meets
                            every trap); on the crawl-case hosts below, a
                            page linking that case's paths only
  /site/  /site/pN.html     a small well-behaved site: N = 1..5, each page
                            titled "Site page N" with the unique word
                            site{N}word and the shared word hostile, linked
                            in a chain; /site/text.txt is text/plain
  /target                   a plain 200 page (the target of the redirects)
  /text                     text/plain;  /binary  image/png bytes
  /no-content-type          200 without Content-Type
  /echo                     text/plain: the request line and headers as
                            received (check User-Agent, If-*, extra headers)
  /sleep/S                  answer after S seconds (float, at most 30)
  /links                    links in many forms: absolute, relative, ../,
                            <base href>, fragment, javascript:, mailto:,
                            protocol-relative, other host, disallowed path

Status codes
  /status/NNN               answer NNN (100..599 except 1xx) with a small
                            body; ?ra=VALUE sends "Retry-After: VALUE" raw
                            (ra=none: no header); 429 defaults to ra=2
  /retry-after/date/N       503 with Retry-After as an HTTP-date N s ahead

Redirects (30x; the fetcher must return them, not follow)
  /redirect/chain/N         302 -> /redirect/chain/N-1 ... /redirect/chain/0
                            is a 200 page (N at most 1000)
  /redirect/loop            302 -> /redirect/loop-b -> /redirect/loop (A-B-A)
  /redirect/self            302 -> itself
  /redirect/code/NNN        NNN (301 302 303 307 308) -> /target
  /redirect/relative        Location: ../target?from=relative
  /redirect/absolute        Location: http://HOST/target
  /redirect/protocol-relative  Location: //HOST/target
  /redirect/other-host      Location: http://other.localhost:PORT/target
  /redirect/missing         302 without Location
  /redirect/empty           "Location: " (empty value)
  /redirect/spaces          Location: /a b/c d?x=1 2
  /redirect/unicode         Location with raw UTF-8 bytes: /ünï/页?q=ü
  /redirect/file            Location: file:///etc/passwd
  /redirect/ftp             Location: ftp://HOST/file.txt
  /redirect/javascript      Location: javascript:alert(1)
  /redirect/disallowed      Location: /private/secret.html (robots default
                            variant disallows /private/)
  /redirect/two-locations   two Location headers (/target and /redirect/self)
  /redirect/huge            a 10 kB Location
  /redirect/to?loc=ENC      Location: the percent-decoded raw bytes of loc
  /meta-refresh             <meta http-equiv="refresh" content="0; url=/target">
  /meta-refresh/relative    content="5;URL='../target?from=meta'"
  /meta-refresh/self        a META refresh to itself
  /js-redirect              <script>window.location.href = "/target";
  /js-redirect/replace      location.replace('/target?js=replace')
  /js-redirect/assign       document.location = '/target?js=assign'

Slow, silent, endless, big
  /slow                     Content-Length n, then 1 byte every interval s
                            (?interval=1.0&n=100): below any sane
                            low-speed limit
  /slow/headers             one header byte every interval s
  /trickle?bps=B            endless chunked body at B bytes/s (default 500):
                            above the low-speed limit, stopped only by the
                            total timeout
  /silent                   accept, read the request, never answer (until the
                            client closes or ?s= seconds, default 600)
  /endless                  endless chunked HTML at full speed
  /big/N                    N bytes of HTML (N at most 2 GiB), with
                            Content-Length; ?chunked=1 chunked; ?close=1
                            no length, ended by closing the connection
  /gzip-bomb                Content-Encoding: gzip, decodes to ?bytes=
                            (default 10 GiB) of HTML-ish spaces, generated
                            lazily (a few kB per MB on the wire)
  /deflate-bomb             the same with Content-Encoding: deflate (zlib)
  /deflate-raw-bomb         deflate without the zlib wrapper
  /zstd-bomb                Content-Encoding: zstd, decodes to ?bytes=
                            (default 256 MiB) of spaces, compressed once
                            by the zstd program (404 without it)
  /gzip/small               a small valid gzip page ("compressed hello")
  /bad-gzip                 Content-Encoding: gzip over bytes that are not
  /close-early              Content-Length: 10000, 100 bytes, then close
  /headers/huge             100 headers of 1 kB each
  /headers/longline         one 20 kB header line, then a normal page
  /no-status                a body without any status line (HTTP/0.9)
  /bad-status               status line "HTTP/1.1 abc Bad"

Charsets (the words each page must yield, in UTF-8, are in its title)
  /charset/utf8             header utf-8, body UTF-8 "café naïve Ünïcödé"
  /charset/latin1           header ISO-8859-1, body latin1 "café naïve"
  /charset/cp1251           header windows-1251, body "Привет мир"
  /charset/koi8r            header KOI8-R, body "Привет мир"
  /charset/cp1251-as-utf8   header says utf-8, body is windows-1251
  /charset/missing          no charset in the header; META charset
                            windows-1251; body windows-1251
  /charset/none             no charset anywhere; UTF-8 body (detector)
  /charset/utf16            UTF-16LE with BOM, header without charset
  /charset/utf16-meta-on-utf8  META says UTF-16, body is UTF-8
  /charset/visual           header charset=visual (ISO-8859-8 Hebrew)
  /charset/bogus            header charset=x-no-such-charset, body UTF-8
  /charset/bom-conflict     UTF-8 BOM, header says ISO-8859-1
  /charset/invalid-utf8     header utf-8, body with invalid sequences
  /charset/quoted-meta      <meta http-equiv content="text/html;
                            charset='koi8-r'">, body KOI8-R

Malformed HTML
  /malformed                unclosed tags, <a href="x"; target=_new">, bad
                            entities (&#3000000000;), NUL bytes, an
                            unterminated comment, unquoted attributes
  /malformed/nested?n=N     N nested <div> (default 100000)
  /malformed/bigtext?n=N    one text node of N bytes (default 10 MiB)
  /malformed/nul            NUL bytes between words
  /malformed/entities       entity zoo, valid and not

robots.txt
  /robots.txt               the variant of this virtual host: a Host
                            robots-VARIANT.localhost (robots-404.localhost,
                            robots-delay-0.2.localhost), or a first Host
                            label robots-VARIANT, selects VARIANT; else --robots IDX=VARIANT for
                            the port with that index; else "default"
  /robots/VARIANT.txt       the same variants under a fixed path
  variants: default (Disallow: /private/ and /redirect/disallowed-target,
            Crawl-delay: 0.2), allow-all (empty), disallow-all, 404, 403,
            500, 503, timeout (silent), redirect (301 x6, then default),
            loop (301 to itself), big (600 KiB, "Disallow: /after-500k/"
            only past 500 KiB), bom, crlf, garbage, delay-0.2, delay-86400,
            wildcards, agents (a group for mpseek, another for *)

Spider traps
  /calendar/YYYY/MM         links to the next and previous month, forever
  /cal?y=N                  links to ?y=N+1
  /loop/...                 any path; links to the relative "a/", so the
                            path grows by itself
  /soft404/...              200 "not found" for anything
  /session/...              links carrying a fresh ?sid= on every request

Duplicates
  /dup/a .. /dup/e          the same bytes under five URLs
  /dup/ad/N                 the same page with a changing ad block

Conditional GET
  /lastmod                  Last-Modified: Wed, 21 Oct 2015 07:28:00 GMT and
                            ETag: "v1"; If-None-Match matching -> 304, else
                            If-Modified-Since not older -> 304
  /lastmod/future           Last-Modified one year ahead
  /lastmod/weak             ETag: W/"v1", honours If-None-Match
  /etag/changing            a new ETag on every request

META robots
  /meta-robots/noindex  /meta-robots/nofollow  /meta-robots/none

Probes (what robots.txt variants allow or not): 200 "Probe PATH" pages
  /private/...  /after-500k/...  /typo/...  /not-for-mpseek/...  /junkNNNNNN/...

Crawl cases (tests/integration/crawl-hostile.sh): each case is a host of
its own, so a crawler config gives it a Server (a site) of its own.
http://CASE.localhost:PORT/ links only the paths of CASES[CASE] (see the
table in the code: redirects, statuses, statuses-keep, big, bombs,
slow-body, slow-headers, trickle, silent, traps-cal, traps-calendar,
traps-loop, traps-soft404, dups, cond); http://robots-VARIANT.localhost:PORT/
links the probe paths above (and its /robots.txt is VARIANT);
http://busy429.localhost:PORT/ answers 429 with Retry-After: 3600 and
http://busy503.localhost:PORT/ 503 with an HTTP-date Retry-After an hour
ahead (their other paths behave as usual).  Other loopback addresses
(127.0.0.2 ... 127.0.0.9) also accept binds on Linux: --bind 127.0.0.2.
"""

import argparse
import email.utils
import gzip
import http
import os
import re
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LASTMOD = "Wed, 21 Oct 2015 07:28:00 GMT"
LASTMOD_T = email.utils.parsedate_to_datetime(LASTMOD).timestamp()
LIFETIME = 1800.0
ROUTES = []
ETAG_COUNTER = [0]
COUNTER_LOCK = threading.Lock()


def route(pattern):
    def deco(fn):
        ROUTES.append((re.compile(pattern), fn))
        return fn
    return deco


def html(title, body, head=""):
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
            "<title>%s</title>%s</head>\n<body>\n%s\n</body></html>\n"
            % (title, head, body)).encode("utf-8")


def qget(h, name, default):
    v = h.q.get(name)
    return v[0] if v else default


def qnum(h, name, default, lo, hi, conv=float):
    try:
        v = conv(qget(h, name, default))
    except ValueError:
        v = default
    return max(lo, min(hi, v))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "hostile/1"
    timeout = 120          # an idle keep-alive connection is dropped

    def log_message(self, fmt, *args):   # the request log is ours
        pass

    def do_GET(self):
        self.dispatch()

    def do_HEAD(self):
        self.dispatch()

    def dispatch(self):
        self.t0 = time.time()
        self.status = 0
        self.nbytes = 0
        split = urllib.parse.urlsplit(self.path)
        self.q = urllib.parse.parse_qs(split.query)
        self.host = self.headers.get("Host", "")
        try:
            for rx, fn in ROUTES:
                m = rx.fullmatch(split.path)
                if m:
                    fn(self, m)
                    break
            else:
                self.reply(404, html("Not found", "<p>no such page</p>"))
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError,
                socket.timeout, OSError):
            self.close_connection = True
        finally:
            self.server.log_line(self)

    # -- writing responses ------------------------------------------------
    def head_only(self):
        return self.command == "HEAD"

    def start(self, code, headers=(), length=None, chunked=False, phrase=None):
        """Status line and headers; framing by length, chunked or close."""
        if phrase is None:
            try:
                phrase = http.HTTPStatus(code).phrase
            except ValueError:
                phrase = "Status"
        out = [("HTTP/1.1 %d %s\r\n" % (code, phrase)).encode("latin-1"),
               b"Server: hostile/1\r\n",
               ("Date: %s\r\n" % email.utils.formatdate(usegmt=True)).encode()]
        for name, value in headers:
            if isinstance(value, str):
                value = value.encode("utf-8")
            out.append(name.encode("latin-1") + b": " + value + b"\r\n")
        if code in (204, 304) or 100 <= code < 200:
            pass
        elif length is not None:
            out.append(b"Content-Length: %d\r\n" % length)
        elif chunked:
            out.append(b"Transfer-Encoding: chunked\r\n")
        else:
            out.append(b"Connection: close\r\n")
            self.close_connection = True
        out.append(b"\r\n")
        self.wfile.write(b"".join(out))
        self.status = code

    def body(self, data):
        if not self.head_only() and data:
            self.wfile.write(data)
            self.nbytes += len(data)

    def chunk(self, data):
        if not self.head_only() and data:
            self.wfile.write(b"%x\r\n" % len(data) + data + b"\r\n")
            self.nbytes += len(data)

    def end_chunks(self):
        if not self.head_only():
            self.wfile.write(b"0\r\n\r\n")

    def reply(self, code, data=b"", ctype="text/html; charset=utf-8", headers=()):
        hdrs = list(headers)
        if ctype:
            hdrs.insert(0, ("Content-Type", ctype))
        self.start(code, hdrs, length=len(data))
        if code not in (204, 304):
            self.body(data)

    def link(self, path):
        return "http://%s%s" % (self.host, path)


# -- plain pages ------------------------------------------------------------

INDEX = """/site/ /target /text /binary /no-content-type /echo /sleep/1 /links
/status/404 /status/410 /status/500 /status/503 /status/429 /retry-after/date/60
/redirect/chain/5 /redirect/loop /redirect/self /redirect/code/301 /redirect/relative
/redirect/absolute /redirect/protocol-relative /redirect/other-host /redirect/missing
/redirect/empty /redirect/spaces /redirect/unicode /redirect/file /redirect/ftp
/redirect/javascript /redirect/disallowed /redirect/two-locations /redirect/huge
/meta-refresh /meta-refresh/relative /meta-refresh/self /js-redirect /js-redirect/replace
/js-redirect/assign /slow /slow/headers /trickle /silent /endless /big/2000000
/gzip-bomb /deflate-bomb /deflate-raw-bomb /gzip/small /bad-gzip /close-early
/headers/huge /headers/longline /no-status /bad-status /malformed /malformed/nested
/malformed/bigtext /malformed/nul /malformed/entities /robots.txt /calendar/2000/01
/cal?y=2000 /loop/a/ /soft404/x /session/x /dup/a /dup/b /dup/c /dup/d /dup/e /dup/ad/1
/lastmod /lastmod/future /lastmod/weak /etag/changing /meta-robots/noindex
/meta-robots/nofollow /meta-robots/none""".split() + ["/charset/" + c for c in (
    "utf8 latin1 cp1251 koi8r cp1251-as-utf8 missing none utf16 utf16-meta-on-utf8 "
    "visual bogus bom-conflict invalid-utf8 quoted-meta").split()]


def host_label(h):
    """The virtual host's label: for NAME.localhost the whole NAME (it may
    hold dots: robots-delay-0.2.localhost), else the first label."""
    name = h.host.rsplit(":", 1)[0] if not h.host.endswith("]") else h.host
    return name[:-len(".localhost")] if name.endswith(".localhost") else name.split(".")[0]


# Start pages of the crawl cases: http://NAME.localhost:PORT/ links to the
# paths of CASES[NAME] only, so that a crawler test can give each case its
# own Server (a site of its own) and meet only that case.
CASES = {
    "redirects": """/redirect/chain/3 /redirect/chain/30 /redirect/loop /redirect/self
        /redirect/relative /redirect/empty /redirect/file /redirect/ftp /redirect/disallowed
        /redirect/code/301 /meta-refresh /js-redirect""".split(),
    "statuses": "/status/404 /status/410 /status/500 /target".split(),
    "statuses-keep": "/status/404 /status/410 /target".split(),
    "big": """/big/300000 /big/300000?close=1 /big/300000?chunked=1 /big/100000
        /endless /target""".split(),
    "bombs": "/gzip-bomb /deflate-bomb /gzip/small /target".split(),
    "slow-body": ["/slow"],
    "slow-headers": ["/slow/headers"],
    "trickle": ["/trickle?bps=400"],
    "silent": ["/silent?s=120"],
    "traps-cal": ["/cal?y=2000"],
    "traps-calendar": ["/calendar/2000/06"],
    "traps-loop": ["/loop/a/"],
    "traps-soft404": ["/soft404/start"],
    "dups": "/dup/a /dup/b /dup/c /dup/d /dup/e".split(),
    "cond": "/lastmod /lastmod/weak /lastmod/future /etag/changing".split(),
}

# The start page of every robots-VARIANT host: paths that the variants
# allow or disallow (served by /probe-like routes below).
ROBOTS_PROBE = """/site/p1.html /private/p.html /after-500k/p.html /junk000001/p.html
    /typo/p.html /not-for-mpseek/p.html""".split()


@route(r"/")
def index(h, m):
    label = host_label(h)
    if label == "busy429":
        return h.reply(429, html("Too many requests", "<p>slow down</p>"),
                       headers=[("Retry-After", "3600")])
    if label == "busy503":
        when = email.utils.formatdate(time.time() + 3600, usegmt=True)
        return h.reply(503, html("Busy", "<p>come back in an hour</p>"),
                       headers=[("Retry-After", when)])
    paths = CASES.get(label) or (ROBOTS_PROBE if label.startswith("robots-") else None)
    if paths:
        items = "\n".join('<li><a href="%s">%s</a></li>' % (p, p) for p in paths)
        return h.reply(200, html("Case %s" % label, "<p>crawl case %s</p><ul>\n%s\n</ul>"
                                 % (label, items)))
    items = "\n".join('<li><a href="%s">%s</a></li>' % (p, p) for p in INDEX)
    h.reply(200, html("hostile index", "<ul>\n%s\n</ul>" % items))


@route(r"/(private|after-500k|typo|not-for-mpseek|junk\d{6})/.*")
def probe(h, m):
    path = h.path.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    h.reply(200, html("Probe %s" % path, "<p>probe page %s: probeword</p>" % m.group(1)))


SITE_N = 5


@route(r"/site/?")
def site_index(h, m):
    links = "".join('<li><a href="/site/p%d.html">page %d</a></li>' % (i, i)
                    for i in range(1, SITE_N + 1))
    h.reply(200, html("Site index", "<p>hostile test site index</p><ul>%s</ul>"
                      '<a href="/site/text.txt">text</a>' % links))


@route(r"/site/p(\d+)\.html")
def site_page(h, m):
    i = int(m.group(1))
    if not 1 <= i <= SITE_N:
        return h.reply(404, html("Not found", "<p>no such page</p>"))
    nxt = '<a href="p%d.html">next page</a>' % (i + 1) if i < SITE_N else ""
    prv = '<a href="p%d.html">previous page</a>' % (i - 1) if i > 1 else ""
    h.reply(200, html("Site page %d" % i,
                      "<h1>Site page %d</h1><p>This hostile page carries the word "
                      "site%dword.</p>%s %s <a href=\"/site/\">index</a>"
                      % (i, i, nxt, prv),
                      '<meta name="description" content="page %d of the test site">' % i))


@route(r"/site/text\.txt")
def site_text(h, m):
    h.reply(200, b"plain text file of the hostile site: sitetextword\n",
            "text/plain; charset=utf-8")


@route(r"/target")
def target(h, m):
    h.reply(200, html("Redirect target", "<p>you reached the target page</p>"))


@route(r"/text")
def text(h, m):
    h.reply(200, b"just some plain text\nsecond line\n", "text/plain")


@route(r"/binary")
def binary(h, m):
    png = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01"
           b"\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f"
           b"\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")
    h.reply(200, png, "image/png")


@route(r"/no-content-type")
def no_ctype(h, m):
    h.reply(200, html("No content type", "<p>no Content-Type header</p>"), None)


@route(r"/echo")
def echo(h, m):
    lines = [h.requestline] + ["%s: %s" % kv for kv in h.headers.items()]
    h.reply(200, ("\n".join(lines) + "\n").encode("utf-8", "replace"),
            "text/plain; charset=utf-8")


@route(r"/sleep/([0-9.]+)")
def sleep(h, m):
    time.sleep(min(30.0, float(m.group(1))))
    h.reply(200, html("Slept", "<p>slept %s s</p>" % m.group(1)))


@route(r"/links")
def links(h, m):
    port = h.server.server_address[1]
    body = """<a href="http://%s/target">absolute</a>
<a href="target">relative</a> <a href="../site/p1.html">dotdot</a>
<a href="#frag">fragment</a> <a href="/target#frag">with fragment</a>
<a href="javascript:void(0)">js</a> <a href="mailto:a@example.com">mail</a>
<a href="//%s/site/">protocol-relative</a>
<a href="http://other.localhost:%d/target">other host</a>
<a href="/private/secret.html">disallowed</a>
<a href = ' /site/p2.html ' >spaces and quotes</a>
<a href=/site/p3.html>unquoted</a>
<a href="/site/p4.html" rel="nofollow">nofollow</a>
<area href="/site/p5.html"> <frame src="/text"> <iframe src="/target"></iframe>""" % (
        h.host, h.host, port)
    h.reply(200, html("Links", body, '<base href="http://%s/site/">' % h.host))


# -- status codes --------------------------------------------------------------

@route(r"/status/(\d{3})")
def status(h, m):
    code = int(m.group(1))
    if not 200 <= code <= 599:
        code = 500
    ra = qget(h, "ra", "2" if code == 429 else "none")
    hdrs = [] if ra == "none" else [("Retry-After", ra)]
    h.reply(code, b"" if code in (204, 304) else html("Status %d" % code,
                                                       "<p>status %d</p>" % code), headers=hdrs)


@route(r"/retry-after/date/(\d+)")
def retry_after_date(h, m):
    when = email.utils.formatdate(time.time() + int(m.group(1)), usegmt=True)
    h.reply(503, html("Busy", "<p>come back later</p>"), headers=[("Retry-After", when)])


# -- redirects -------------------------------------------------------------------

def redirect(h, loc, code=302, extra=()):
    hdrs = list(extra)
    if loc is not None:
        hdrs.insert(0, ("Location", loc))
    h.reply(code, html("Moved", "<p>moved</p>"), headers=hdrs)


@route(r"/redirect/chain/(\d+)")
def redirect_chain(h, m):
    n = min(1000, int(m.group(1)))
    if n == 0:
        return h.reply(200, html("End of chain", "<p>end of the redirect chain</p>"))
    redirect(h, "/redirect/chain/%d" % (n - 1))


@route(r"/redirect/loop")
def redirect_loop(h, m):
    redirect(h, "/redirect/loop-b")


@route(r"/redirect/loop-b")
def redirect_loop_b(h, m):
    redirect(h, "/redirect/loop")


@route(r"/redirect/self")
def redirect_self(h, m):
    redirect(h, "/redirect/self")


@route(r"/redirect/code/(\d{3})")
def redirect_code(h, m):
    redirect(h, "/target", int(m.group(1)))


ODD_LOCATIONS = {
    "relative": lambda h: "../target?from=relative",
    "absolute": lambda h: h.link("/target"),
    "protocol-relative": lambda h: "//%s/target" % h.host,
    "other-host": lambda h: "http://other.localhost:%d/target" % h.server.server_address[1],
    "missing": lambda h: None,
    "empty": lambda h: "",
    "spaces": lambda h: "/a b/c d?x=1 2",
    "unicode": lambda h: "/ünï/页?q=ü".encode("utf-8"),
    "file": lambda h: "file:///etc/passwd",
    "ftp": lambda h: "ftp://%s/file.txt" % h.host,
    "javascript": lambda h: "javascript:alert(1)",
    "disallowed": lambda h: "/private/secret.html",
    "huge": lambda h: "/target?" + "x" * 10240,
}


@route(r"/redirect/(relative|absolute|protocol-relative|other-host|missing|empty|spaces"
       r"|unicode|file|ftp|javascript|disallowed|huge)")
def redirect_odd(h, m):
    redirect(h, ODD_LOCATIONS[m.group(1)](h))


@route(r"/redirect/two-locations")
def redirect_two(h, m):
    redirect(h, "/target", extra=[("Location", "/redirect/self")])


@route(r"/redirect/to")
def redirect_to(h, m):
    raw = urllib.parse.unquote_to_bytes(qget(h, "loc", "/target"))
    redirect(h, raw.replace(b"\r", b"").replace(b"\n", b""))


@route(r"/meta-refresh")
def meta_refresh(h, m):
    h.reply(200, html("Meta refresh", "<p>refreshing</p>",
                      '<meta http-equiv="refresh" content="0; url=/target">'))


@route(r"/meta-refresh/relative")
def meta_refresh_rel(h, m):
    h.reply(200, html("Meta refresh relative", "<p>refreshing</p>",
                      "<meta http-equiv=\"Refresh\" content=\"5;URL='../target?from=meta'\">"))


@route(r"/meta-refresh/self")
def meta_refresh_self(h, m):
    h.reply(200, html("Meta refresh self", "<p>refreshing</p>",
                      '<meta http-equiv="refresh" content="0;url=/meta-refresh/self">'))


@route(r"/js-redirect")
def js_redirect(h, m):
    h.reply(200, html("JS redirect", '<script>window.location.href = "/target";</script>'))


@route(r"/js-redirect/replace")
def js_redirect_replace(h, m):
    h.reply(200, html("JS replace", "<script type=\"text/javascript\">"
                      "location.replace('/target?js=replace')</script>"))


@route(r"/js-redirect/assign")
def js_redirect_assign(h, m):
    h.reply(200, html("JS assign", "<script>document.location = '/target?js=assign';</script>"))


# -- slow, silent, endless, big ------------------------------------------------

@route(r"/slow")
def slow(h, m):
    interval = qnum(h, "interval", 1.0, 0.0, 60.0)
    n = qnum(h, "n", 100, 1, 100000, int)
    h.start(200, [("Content-Type", "text/html")], length=n)
    if h.head_only():
        return
    for _ in range(n):
        h.body(b"x")
        time.sleep(interval)


@route(r"/slow/headers")
def slow_headers(h, m):
    interval = qnum(h, "interval", 1.0, 0.0, 60.0)
    n = qnum(h, "n", 100, 1, 100000, int)
    h.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
    h.status = 200
    for _ in range(n):
        h.wfile.write(b"x")
        time.sleep(interval)
    h.wfile.write(b"\r\nContent-Length: 2\r\n\r\nok")
    h.nbytes = 2


@route(r"/trickle")
def trickle(h, m):
    bps = qnum(h, "bps", 500, 1, 10 ** 7, int)
    h.start(200, [("Content-Type", "text/html")], chunked=True)
    if h.head_only():
        return
    end = time.time() + LIFETIME
    piece = max(1, bps // 10)
    while time.time() < end:
        h.chunk(b"t" * piece)
        time.sleep(0.1)


@route(r"/silent")
def silent(h, m):
    h.close_connection = True
    end = time.time() + min(LIFETIME, qnum(h, "s", 600.0, 0.0, LIFETIME))
    sock = h.connection
    while time.time() < end:
        r, _, _ = select.select([sock], [], [], 0.5)
        if r:
            try:
                if not sock.recv(4096):
                    break           # the client gave up
            except OSError:
                break


ENDLESS = (b"<p>endless endless endless endless endless endless endless</p>\n" * 256)


@route(r"/endless")
def endless(h, m):
    h.start(200, [("Content-Type", "text/html; charset=utf-8")], chunked=True)
    if h.head_only():
        return
    h.chunk(b"<html><body>\n")
    end = time.time() + LIFETIME
    while time.time() < end:
        h.chunk(ENDLESS)


def big_pieces(n):
    pat = b"".join(b"<p>big page line %06d lorem ipsum dolor sit amet</p>\n" % i
                   for i in range(1200))
    while n > 0:
        piece = pat[:n]
        n -= len(piece)
        yield piece


@route(r"/big/(\d+)")
def big(h, m):
    n = min(int(m.group(1)), 2 << 30)
    ctype = [("Content-Type", "text/html; charset=utf-8")]
    if qget(h, "chunked", "0") == "1":
        h.start(200, ctype, chunked=True)
        for p in big_pieces(n):
            h.chunk(p)
        h.end_chunks()
    elif qget(h, "close", "0") == "1":
        h.start(200, ctype)
        for p in big_pieces(n):
            h.body(p)
    else:
        h.start(200, ctype, length=n)
        for p in big_pieces(n):
            h.body(p)


def bomb(h, enc, wbits):
    total = qnum(h, "bytes", 10 << 30, 0, 1 << 40, int)
    h.start(200, [("Content-Type", "text/html; charset=utf-8"),
                  ("Content-Encoding", enc)], chunked=True)
    if h.head_only():
        return
    c = zlib.compressobj(9, zlib.DEFLATED, wbits)
    h.chunk(c.compress(b"<html><body><p>bomb</p>\n"))
    block = b" " * (1 << 20)
    sent = 0
    while sent < total:
        n = min(len(block), total - sent)
        h.chunk(c.compress(block[:n]))   # often empty: zlib buffers
        sent += n
    h.chunk(c.flush())
    h.end_chunks()


@route(r"/gzip-bomb")
def gzip_bomb(h, m):
    bomb(h, "gzip", 31)


@route(r"/deflate-bomb")
def deflate_bomb(h, m):
    bomb(h, "deflate", 15)


@route(r"/deflate-raw-bomb")
def deflate_raw_bomb(h, m):
    bomb(h, "deflate", -15)


ZSTD_BOMBS = {}


@route(r"/zstd-bomb")
def zstd_bomb(h, m):
    total = qnum(h, "bytes", 256 << 20, 0, 4 << 30, int)
    if total not in ZSTD_BOMBS:
        try:
            p = subprocess.Popen(["zstd", "-q", "-c", "-1"], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE)
        except OSError:
            h.reply(404, b"no zstd program here")
            return
        feed = threading.Thread(target=lambda: zstd_feed(p.stdin, total))
        feed.start()
        ZSTD_BOMBS[total] = p.stdout.read()
        feed.join()
        p.wait()
    h.reply(200, ZSTD_BOMBS[total], headers=[("Content-Encoding", "zstd")])


def zstd_feed(out, total):
    block = b"<p>bomb</p>" + b" " * ((1 << 20) - 11)
    sent = 0
    while sent < total:
        n = min(len(block), total - sent)
        out.write(block[:n])
        sent += n
    out.close()


@route(r"/gzip/small")
def gzip_small(h, m):
    data = gzip.compress(html("Compressed", "<p>compressed hello</p>"))
    h.reply(200, data, headers=[("Content-Encoding", "gzip"), ("Vary", "Accept-Encoding")])


@route(r"/bad-gzip")
def bad_gzip(h, m):
    h.reply(200, b"this is not gzip at all, sorry" * 10,
            headers=[("Content-Encoding", "gzip")])


@route(r"/close-early")
def close_early(h, m):
    h.start(200, [("Content-Type", "text/html")], length=10000)
    h.body(b"y" * 100)
    h.close_connection = True
    if not h.head_only():
        h.connection.shutdown(socket.SHUT_RDWR)


@route(r"/headers/huge")
def headers_huge(h, m):
    hdrs = [("X-Filler-%03d" % i, "f" * 1024) for i in range(100)]
    h.reply(200, html("Huge headers", "<p>after the headers</p>"), headers=hdrs)


@route(r"/headers/longline")
def headers_longline(h, m):
    h.reply(200, html("Long header", "<p>after a long header line</p>"),
            headers=[("X-Long", "l" * 20480)])


@route(r"/no-status")
def no_status(h, m):
    h.close_connection = True
    h.wfile.write(b"<html><body>no status line at all</body></html>\n")


@route(r"/bad-status")
def bad_status(h, m):
    h.close_connection = True
    h.wfile.write(b"HTTP/1.1 abc Bad\r\nContent-Type: text/html\r\n"
                  b"Connection: close\r\n\r\n<p>bad status</p>\n")


# -- charsets ------------------------------------------------------------------

def chtml(title, text, meta=""):
    return ("<html><head>%s<title>%s</title></head><body><p>%s</p></body></html>\n"
            % (meta, title, text))


CHARSETS = {
    # name: (Content-Type, body bytes)
    "utf8": ("text/html; charset=utf-8",
             chtml("café naïve Ünïcödé", "café naïve Ünïcödé").encode("utf-8")),
    "latin1": ("text/html; charset=ISO-8859-1",
               chtml("café naïve", "café naïve").encode("latin-1")),
    "cp1251": ("text/html; charset=windows-1251",
               chtml("Привет мир", "Привет мир").encode("cp1251")),
    "koi8r": ("text/html; charset=KOI8-R",
              chtml("Привет мир", "Привет мир").encode("koi8_r")),
    "cp1251-as-utf8": ("text/html; charset=utf-8",
                       chtml("Привет мир", "Привет мир").encode("cp1251")),
    "missing": ("text/html",
                chtml("Привет мир", "Привет мир",
                      '<meta charset="windows-1251">').encode("cp1251")),
    "none": ("text/html",
             chtml("Ünïcödé naïve", "Ünïcödé naïve café déjà vu").encode("utf-8")),
    "utf16": ("text/html",
              b"\xff\xfe" + chtml("café naïve", "café naïve").encode("utf-16-le")),
    "utf16-meta-on-utf8": ("text/html",
                           chtml("café naïve", "café naïve",
                                 '<meta charset="UTF-16">').encode("utf-8")),
    "visual": ("text/html; charset=visual",
               chtml("שלום", "שלום עולם").encode("iso8859_8")),
    "bogus": ("text/html; charset=x-no-such-charset",
              chtml("café naïve", "café naïve").encode("utf-8")),
    "bom-conflict": ("text/html; charset=ISO-8859-1",
                     b"\xef\xbb\xbf" + chtml("café naïve", "café naïve").encode("utf-8")),
    "invalid-utf8": ("text/html; charset=utf-8",
                     b"<html><head><title>broken bytes</title></head><body><p>good "
                     b"\xff\xfe bad \xc0\x80 overlong \xed\xa0\x80 surrogate \xe2\x82 "
                     b"cut words</p></body></html>\n"),
    "quoted-meta": ("text/html",
                    chtml("Привет мир", "Привет мир",
                          "<meta http-equiv=\"Content-Type\" "
                          "content=\"text/html; charset='koi8-r'\">").encode("koi8_r")),
}


@route(r"/charset/([\w-]+)")
def charset(h, m):
    c = CHARSETS.get(m.group(1))
    if not c:
        return h.reply(404, html("Not found", "<p>no such charset case</p>"))
    h.reply(200, c[1], c[0])


# -- malformed HTML ----------------------------------------------------------------

@route(r"/malformed")
def malformed(h, m):
    body = (b"<html><head><title>Malformed <b>title</title><body>\n"
            b"<p>unclosed paragraph <b>bold <i>italic\n"
            b"<a href=\"/target\"; target=_new\">odd attribute</a>\n"
            b"<a href=/site/p1.html>unquoted</a> <a href='/site/p2.html>unterminated quote\n"
            b"&#3000000000; &#x110000; &#0; &bogus; &amp &lt;tag&gt;\n"
            b"nul\x00byte <div <div> <> </> <//> <!-- never closed comment\n"
            b"<script>document.write('<a href=\"/nope\">')</script>\n"
            b"<table><tr><td>cell<td>cell</table></div></div></span>\n")
    h.reply(200, body, "text/html; charset=utf-8")


@route(r"/malformed/nested")
def malformed_nested(h, m):
    n = qnum(h, "n", 100000, 1, 1000000, int)
    h.reply(200, b"<html><body>" + b"<div>" * n + b"deep" + b"</div>" * n + b"</body></html>")


@route(r"/malformed/bigtext")
def malformed_bigtext(h, m):
    n = qnum(h, "n", 10 << 20, 1, 1 << 30, int)
    h.start(200, [("Content-Type", "text/html; charset=utf-8")], length=n + 25)
    h.body(b"<html><body><p>")
    for p in big_pieces(n):
        h.body(p.replace(b"<", b"w").replace(b">", b" "))
    h.body(b"</p></body>")


@route(r"/malformed/nul")
def malformed_nul(h, m):
    h.reply(200, b"<html><body><p>alpha\x00beta\x00\x00gamma</p>\x00</body></html>")


@route(r"/malformed/entities")
def malformed_entities(h, m):
    h.reply(200, html("Entities", "&eacute; &#233; &#xE9; &eacute &notanentity; &#; &#x; "
                      "&#99999999999999999999; &AMP; &amp;amp; caf&eacute;"))


# -- robots.txt ---------------------------------------------------------------------

ROBOTS_DEFAULT = ("User-agent: *\nDisallow: /private/\nDisallow: /redirect/disallowed-target\n"
                  "Crawl-delay: 0.2\n")


def robots_big():
    lines, size = [], 0
    i = 0
    while size < 600 * 1024:
        line = "Disallow: /junk%06d/\n" % i
        lines.append(line)
        size += len(line)
        i += 1
    return "User-agent: *\n" + "".join(lines) + "Disallow: /after-500k/\n"


ROBOTS = {
    "default": ROBOTS_DEFAULT,
    "allow-all": "",
    "disallow-all": "User-agent: *\nDisallow: /\n",
    "bom": "\ufeff" + ROBOTS_DEFAULT,
    "crlf": ROBOTS_DEFAULT.replace("\n", "\r\n"),
    "garbage": "\x00\x01\x02garbage\xff here\nUser-agent *\nDisalow: /typo/\n"
               "User-agent: *\nDisallow: /private/\n<html>not robots</html>\n",
    "delay-0.2": "User-agent: *\nCrawl-delay: 0.2\nDisallow: /private/\n",
    "delay-86400": "User-agent: *\nCrawl-delay: 86400\nDisallow: /private/\n",
    "wildcards": "User-agent: *\nDisallow: /*.pdf$\nDisallow: /*?sessionid=\n"
                 "Allow: /private/ok*\nDisallow: /private/\n",
    "agents": "User-agent: mpseek\nDisallow: /not-for-mpseek/\n\n"
              "User-agent: *\nDisallow: /\n",
}


def robots_variant(h, name):
    if name in ("404", "403", "500", "503"):
        return h.reply(int(name), html("robots %s" % name, "<p>no robots here</p>"))
    if name == "timeout":
        return silent(h, None)
    if name == "redirect":
        return redirect(h, "/robots/hop/5", 301)
    if name == "loop":
        return redirect(h, "/robots/loop.txt", 301)
    if name == "big":
        return h.reply(200, robots_big().encode(), "text/plain")
    text = ROBOTS.get(name)
    if text is None:
        return h.reply(404, html("Not found", "<p>no such robots variant</p>"))
    h.reply(200, text.encode("utf-8", "surrogateescape") if name != "garbage"
            else text.encode("latin-1"), "text/plain")


@route(r"/robots\.txt")
def robots(h, m):
    label = host_label(h)
    if label.startswith("robots-"):
        return robots_variant(h, label[len("robots-"):])
    port = h.server.server_address[1]
    robots_variant(h, h.server.robots_map.get(port, "default"))


@route(r"/robots/hop/(\d+)")
def robots_hop(h, m):
    n = int(m.group(1))
    if n == 0:
        return h.reply(200, ROBOTS_DEFAULT.encode(), "text/plain")
    redirect(h, "/robots/hop/%d" % (n - 1), 301)


@route(r"/robots/([\w.-]+)\.txt")
def robots_named(h, m):
    robots_variant(h, m.group(1))


# -- spider traps --------------------------------------------------------------------

@route(r"/calendar/(\d{4})/(\d{2})")
def calendar(h, m):
    y, mo = int(m.group(1)), int(m.group(2))
    ny, nm = (y + 1, 1) if mo >= 12 else (y, mo + 1)
    py, pm = (y - 1, 12) if mo <= 1 else (y, mo - 1)
    h.reply(200, html("Calendar %04d-%02d" % (y, mo),
                      '<a href="/calendar/%04d/%02d">next month</a> '
                      '<a href="/calendar/%04d/%02d">previous month</a>' % (ny, nm, py, pm)))


@route(r"/cal")
def cal_query(h, m):
    y = qnum(h, "y", 2000, -10 ** 9, 10 ** 9, int)
    h.reply(200, html("Year %d" % y, '<a href="/cal?y=%d">next year</a>' % (y + 1)))


@route(r"/loop/.*")
def loop(h, m):
    h.reply(200, html("Loop", '<a href="a/">deeper</a> depth %d' % h.path.count("/")))


@route(r"/soft404/.*")
def soft404(h, m):
    h.reply(200, html("Page not found", "<p>Sorry, this page does not exist (but 200).</p>"
                      '<a href="/soft404/%d">another</a>' % int(time.time() * 1000)))


@route(r"/session/.*")
def session(h, m):
    sid = "%x" % int(time.time() * 1e6)
    h.reply(200, html("Session", '<a href="/session/page?sid=%s">same page, new sid</a>' % sid))


# -- duplicates ----------------------------------------------------------------------

DUP = html("Duplicate", "<p>these exact bytes live under five URLs: dupword</p>")


@route(r"/dup/[a-e]")
def dup(h, m):
    h.reply(200, DUP)


@route(r"/dup/ad/(\d+)")
def dup_ad(h, m):
    h.reply(200, html("Near duplicate",
                      "<p>the same article text every time: neardupword</p>"
                      "<div class=ad>advert %s %d</div>" % (m.group(1), int(time.time() * 1000))))


# -- conditional GET ---------------------------------------------------------------------

def conditional(h, lastmod, etag):
    hdrs = []
    if lastmod:
        hdrs.append(("Last-Modified", lastmod))
    if etag:
        hdrs.append(("ETag", etag))
    inm = h.headers.get("If-None-Match")
    ims = h.headers.get("If-Modified-Since")
    if inm is not None:
        tags = [t.strip() for t in inm.split(",")]
        if etag and (etag in tags or "*" in tags or
                     etag.replace("W/", "") in [t.replace("W/", "") for t in tags]):
            return h.reply(304, b"", None, hdrs)
    elif ims is not None and lastmod:
        try:
            t = email.utils.parsedate_to_datetime(ims).timestamp()
            if t >= email.utils.parsedate_to_datetime(lastmod).timestamp():
                return h.reply(304, b"", None, hdrs)
        except (TypeError, ValueError):
            pass
    h.reply(200, html("Conditional", "<p>conditional page body: condword</p>"), headers=hdrs)


@route(r"/lastmod")
def lastmod(h, m):
    conditional(h, LASTMOD, '"v1"')


@route(r"/lastmod/future")
def lastmod_future(h, m):
    conditional(h, email.utils.formatdate(time.time() + 365 * 86400, usegmt=True), '"future"')


@route(r"/lastmod/weak")
def lastmod_weak(h, m):
    conditional(h, None, 'W/"v1"')


@route(r"/etag/changing")
def etag_changing(h, m):
    with COUNTER_LOCK:
        ETAG_COUNTER[0] += 1
        n = ETAG_COUNTER[0]
    conditional(h, None, '"c%d"' % n)


# -- META robots ---------------------------------------------------------------------------

@route(r"/meta-robots/(noindex|nofollow|none)")
def meta_robots(h, m):
    h.reply(200, html("Meta robots %s" % m.group(1),
                      '<p>metarobotsword</p><a href="/target">link</a>',
                      '<meta name="robots" content="%s">' % m.group(1)))


# -- the server ------------------------------------------------------------------------------

class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64

    def __init__(self, addr, log, robots_map):
        super().__init__(addr, Handler)
        self.log = log
        self.robots_map = robots_map

    def handle_error(self, request, client_address):
        # Clients that hang up (timeouts, caps, cancellation) are the point
        # of this server: no tracebacks for them.
        if isinstance(sys.exc_info()[1], (ConnectionError, socket.timeout)):
            return
        super().handle_error(request, client_address)

    def log_line(self, h):
        if not self.log:
            return
        line = "%.6f\t%.6f\t%d\t%s\t%s\t%s\t%d\t%d\n" % (
            h.t0, time.time(), self.server_address[1], h.host.replace("\t", " "),
            h.command, h.path.replace("\t", " "), h.status, h.nbytes)
        with self.log[1]:
            self.log[0].write(line)
            self.log[0].flush()


def main():
    global LIFETIME
    ap = argparse.ArgumentParser(description="hostile test web server")
    ap.add_argument("--bind", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--ports", type=int, default=1)
    ap.add_argument("--port-file")
    ap.add_argument("--log")
    ap.add_argument("--lifetime", type=float, default=1800.0)
    ap.add_argument("--robots", action="append", default=[],
                    help="IDX=VARIANT: robots.txt variant of the IDX-th port")
    a = ap.parse_args()
    LIFETIME = a.lifetime

    log = (open(a.log, "a", encoding="utf-8", errors="replace"), threading.Lock()) if a.log else None
    servers = []
    for i in range(max(1, a.ports)):
        servers.append(Server((a.bind, a.port if i == 0 else 0), log, {}))
    ports = [s.server_address[1] for s in servers]
    rmap = {}
    for spec in a.robots:
        idx, _, variant = spec.partition("=")
        rmap[ports[int(idx)]] = variant
    for s in servers:
        s.robots_map = rmap
        threading.Thread(target=s.serve_forever, kwargs={"poll_interval": 0.2},
                         daemon=True).start()
    line = " ".join(str(p) for p in ports)
    if a.port_file:
        with open(a.port_file + ".tmp", "w") as fp:
            fp.write(line + "\n")
        os.replace(a.port_file + ".tmp", a.port_file)
    print(line, flush=True)

    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    signal.signal(signal.SIGINT, lambda *_: done.set())
    done.wait(LIFETIME)
    for s in servers:
        s.shutdown()
        s.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
