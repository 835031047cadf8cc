#!/bin/bash
# synweb.sh - bench/synweb, the synthetic web of the scale tests, on
# 127.0.0.1: a small web (2,000 pages on 4 hosts) fetched with curl (root,
# section, page, robots.txt, 404, redirect, 304, HEAD, a malformed request,
# keep-alive), a delayed server (each reply at least D ms late, many at once
# without a thread each), a clean exit on SIGTERM, and its --list urls and
# --list edges against a breadth-first crawl of what it serves.  Not timed.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

sw="$builddir/bench/synweb"
[ -x "$sw" ] || tap_skip_all "$sw not built"
command -v curl >/dev/null 2>&1 || tap_skip_all "curl not found"
command -v python3 >/dev/null 2>&1 || tap_skip_all "python3 not found"

T=$(tmp_dir)
pids=()
stop_all() {
	local p
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	pids=()
}
trap 'stop_all; _lib_cleanup' EXIT

# start NAME ARGS...: synweb on 4 free ports (retried when taken); sets
# PORT and PID; its stderr in $T/NAME.err.
start() {
	local name=$1 try i
	shift
	for try in $(seq 20); do
		# Below the ephemeral range (32768-60999): no outgoing connection holds it.
		PORT=$((20000 + (RANDOM * 32768 + RANDOM) % 12000))
		"$sw" --port "$PORT" "$@" </dev/null >/dev/null 2>"$T/$name.err" &
		PID=$!
		for i in $(seq 100); do
			kill -0 "$PID" 2>/dev/null || break
			curl -s -o /dev/null "http://127.0.0.1:$PORT/robots.txt" && break
			sleep 0.05
		done
		if kill -0 "$PID" 2>/dev/null; then
			pids+=("$PID")
			return 0
		fi
		wait "$PID" 2>/dev/null
		grep -q 'in use' "$T/$name.err" || break
	done
	sed 's/^/# /' "$T/$name.err"
	echo "Bail out! synweb did not start"
	exit 1
}

WEB=(--pages 2000 --hosts 4)
start web "${WEB[@]}"
U=http://127.0.0.1:$PORT
tap_ok 1 "synweb listens on $PORT..$((PORT + 3))"

# get URL [curl options]: body in $T/body, headers in $T/head; prints the status.
get() {
	local url=$1
	shift
	: >"$T/body"
	curl -s -o "$T/body" -D "$T/head" -w '%{http_code}' "$@" "$url"
}
header() { tr -d '\r' <"$T/head" | sed -n "s/^$1: //Ip" | head -1; }

# ---- the pages ---------------------------------------------------------------
tap_is "$(get "$U/")" 200 "root: 200"
tap_ok "$(grep -c 'href="/s1/0"' "$T/body")" "root links its section /s1/0"

tap_is "$(get "$U/s1/0")" 200 "section: 200"
# 2,000 pages on 4 hosts: 500 each, so host 0 has one section of 500.
tap_is "$(grep -o 'href="/p/[0-9]*"' "$T/body" | sort -u | wc -l)" 500 "section lists the host's 500 pages"
tap_is "$(grep -o '<a href' "$T/body" | wc -l)" 501 "section: 500 pages and the link home"

tap_is "$(get "$U/p/7")" 200 "page: 200"
size=$(wc -c <"$T/body")
tap_ok "$([ "$size" -ge 5000 ] && [ "$size" -le 30720 ] && echo 1)" "page: $size bytes, 5-30 KB"
tap_is "$(header Content-Length)" "$size" "page: Content-Length is the body's size"
tap_ok "$(grep -c '<title>[A-Z][a-z]* [A-Za-z ]*- [A-Z][a-z]*</title>' "$T/body")" "page: a title of words"
links=$(grep -o '<a href="[^"]*"' "$T/body" | wc -l)
tap_ok "$([ "$links" -ge 8 ] && [ "$links" -le 20 ] && echo 1)" "page: $links links, 8-20"
tap_is "$(header Content-Type)" "text/html; charset=utf-8" "page: Content-Type"
words=$(sed 's/<[^>]*>/ /g' "$T/body" | tr -cs 'a-zA-Z' '\n' | sort -u | wc -l)
tap_ok "$([ "$words" -ge 300 ] && echo 1)" "page: $words distinct words"
get "$U/p/7" >/dev/null
tap_is "$(md5sum <"$T/body")" "$(get "$U/p/7" >/dev/null; md5sum <"$T/body")" "page: the same bytes twice"

tap_is "$(get "$U/robots.txt")" 200 "robots.txt: 200"
tap_ok "$(grep -c '^Disallow: /private/$' "$T/body")" "robots.txt disallows /private/"
tap_is "$(header Content-Type)" "text/plain; charset=utf-8" "robots.txt: text/plain"
tap_is "$(get "$U/private/3")" 200 "a disallowed page is served all the same"

tap_is "$(get "$U/p/500")" 404 "a page past the host's range: 404"
tap_is "$(get "$U/p/007")" 404 "a second form of a page (leading zero): 404"
tap_is "$(get "$U/p/7?x=1")" 404 "a second form of a page (query): 404"
tap_is "$(get "$U/nothing")" 404 "an unknown path: 404"

tap_is "$(get "$U/r/5")" 301 "redirect: 301"
tap_is "$(header Location)" "$U/p/5" "redirect: Location is the page"
tap_is "$(get "$U/r/500")" 404 "a redirect past the range: 404"

get "$U/p/7" >/dev/null
lm=$(header Last-Modified)
tap_ok "$lm" "page: Last-Modified ($lm)"
tap_is "$(get "$U/p/7" -H "If-Modified-Since: $lm")" 304 "If-Modified-Since its Last-Modified: 304"
tap_is "$(wc -c <"$T/body")" 0 "304: no body"
tap_is "$(get "$U/p/7" -H 'If-Modified-Since: Sat, 01 Jan 2000 00:00:00 GMT')" 200 \
	"If-Modified-Since an older date: 200"
tap_is "$(get "$U/p/7" -H 'If-Modified-Since: yesterday')" 200 "an invalid date is ignored: 200"

tap_is "$(get "$U/p/7" -I)" 200 "HEAD: 200"
tap_is "$(header Content-Length)" "$size" "HEAD: the GET's Content-Length"
tap_is "$(curl -s -w '%{num_connects}' -o /dev/null "$U/p/1" -o /dev/null "$U/p/2" -o /dev/null "$U/p/3")" 100 \
	"keep-alive: three requests, one connection"
tap_is "$(get "$U/" -X POST)" 405 "POST: 405"

# raw REQUEST: sends it on a new connection, prints the first response line.
raw() {
	exec 3<>"/dev/tcp/127.0.0.1/$PORT" || return
	printf '%b' "$1" >&3
	head -1 <&3 | tr -d '\r'
	exec 3<&-
}
tap_is "$(raw 'GARBAGE\r\n\r\n')" "HTTP/1.1 400 Bad Request" "malformed request line: 400"
tap_is "$(raw 'GET /p/1 HTTP/1.1\r\n\r\n')" "HTTP/1.1 400 Bad Request" "HTTP/1.1 without Host: 400"
tap_is "$(raw 'GET /p/1 HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n')" "HTTP/1.1 400 Bad Request" \
	"obsolete line folding: 400"
tap_is "$(raw 'GET /p/1 HTTP/1.1\r\nHost x\r\n\r\n')" "HTTP/1.1 400 Bad Request" "a field without a colon: 400"
tap_is "$(raw "GET /$(head -c 5000 /dev/zero | tr '\0' a) HTTP/1.1\r\nHost: x\r\n\r\n")" \
	"HTTP/1.1 400 Bad Request" "a head over 4 KB: 400"
tap_is "$(raw 'GET /p/1 HTTP/1.0\r\n\r\n')" "HTTP/1.1 200 OK" "HTTP/1.0 without Host: 200"
tap_is "$(get "$U/")" 200 "still serving after the malformed requests"

# ---- the crawl: --list against what a breadth-first crawler finds ---------------
"$sw" "${WEB[@]}" --port "$PORT" --list urls >"$T/list-urls" 2>"$T/list.err"
tap_is "$?" 0 "--list urls exits 0"
"$sw" "${WEB[@]}" --port "$PORT" --list edges >"$T/list-edges" 2>>"$T/list.err"
tap_is "$?" 0 "--list edges exits 0"
tap_is "$(sort -u "$T/list-urls" | wc -l)" "$(wc -l <"$T/list-urls")" "--list urls: no URL twice"
tap_is "$(wc -l <"$T/list-urls")" 2008 "--list urls: 2,000 pages, 4 roots, 4 sections"

# From the four roots: robots.txt obeyed, redirects followed, each 200 page
# kept once; an edge per distinct link from a kept page to another kept page.
python3 - "$PORT" "$T" <<'EOF'
import http.client, re, sys, urllib.parse
port, out = int(sys.argv[1]), sys.argv[2]
conns, robots, final, queue, edges = {}, {}, {}, [], set()
def fetch(url):
    u = urllib.parse.urlsplit(url)
    c = conns.get(u.netloc) or conns.setdefault(u.netloc, http.client.HTTPConnection(u.netloc))
    c.request("GET", u.path + ("?" + u.query if u.query else ""))
    r = c.getresponse()
    return r.status, r.getheader("Location"), r.read()
def allowed(url):
    u = urllib.parse.urlsplit(url)
    if u.netloc not in robots:
        st, _, body = fetch(u.scheme + "://" + u.netloc + "/robots.txt")
        robots[u.netloc] = [l.split(":", 1)[1].strip() for l in body.decode().splitlines()
                            if st == 200 and l.lower().startswith("disallow:")]
    return not any(p and u.path.startswith(p) for p in robots[u.netloc])
def resolve(url, depth=0):
    """The URL a crawler keeps for url, or None (404, disallowed, a loop)."""
    if url in final:
        return final[url]
    final[url] = None
    if depth > 5 or not allowed(url):
        return None
    st, loc, body = fetch(url)
    if st in (301, 302) and loc:
        final[url] = resolve(urllib.parse.urljoin(url, loc), depth + 1)
    elif st == 200:
        final[url] = url
        queue.append((url, body))
    return final[url]
for h in range(4):
    resolve("http://127.0.0.1:%d/" % (port + h))
while queue:
    url, body = queue.pop(0)
    for href in re.findall(rb'href="([^"]*)"', body):
        to = resolve(urllib.parse.urljoin(url, href.decode()).split("#")[0])
        if to and to != url:
            edges.add((url, to))
with open(out + "/bfs-urls", "w") as f:
    f.writelines(u + "\n" for u, v in final.items() if u == v)
with open(out + "/bfs-edges", "w") as f:
    f.writelines("%s\t%s\n" % e for e in edges)
EOF
tap_is "$?" 0 "the breadth-first crawl ran"
tap_is "$(sort "$T/bfs-urls" | md5sum)" "$(sort "$T/list-urls" | md5sum)" \
	"--list urls is the set of pages the crawl kept"
tap_is "$(sort "$T/bfs-edges" | md5sum)" "$(sort "$T/list-edges" | md5sum)" \
	"--list edges is the set of links the crawl saw"
diff <(sort "$T/bfs-urls") <(sort "$T/list-urls") | head -5 | sed 's/^/# urls: /'
diff <(sort "$T/bfs-edges") <(sort "$T/list-edges") | head -5 | sed 's/^/# edges: /'
tap_is "$(sort -u "$T/list-edges" | wc -l)" "$(wc -l <"$T/list-edges")" "--list edges: no edge twice"
tap_is "$(awk -F'\t' '$1 == $2' "$T/list-edges" | wc -l)" 0 "--list edges: no self-link"
cross=$(awk -F'\t' '{ split($1, a, "/"); split($2, b, "/"); if (a[3] != b[3]) n++ } END { print n + 0 }' \
	"$T/list-edges")
tap_ok "$([ "$cross" -gt 0 ] && echo 1)" "--list edges: $cross links between hosts"

# ---- a clean exit ------------------------------------------------------------------
kill -TERM "$PID"
wait "$PID"
tap_is "$?" 0 "SIGTERM: exit status 0"
pids=()
tap_ok "$(grep -c 'replies' "$T/web.err")" "SIGTERM: the totals on stderr"

# ---- the delay: each reply at least D ms late, many connections at once --------------
start slow --pages 100 --hosts 1 --delay-ms 300
S=http://127.0.0.1:$PORT
t=$(curl -s -o /dev/null -w '%{time_total}' "$S/p/1")
tap_ok "$(awk -v t="$t" 'BEGIN { if (t >= 0.3) print 1 }')" "--delay-ms 300: a reply took ${t}s"
t0=$(date +%s.%N)
curls=()
for i in $(seq 40); do
	curl -s -o /dev/null -w '%{http_code} %{time_total}\n' "$S/p/$i" >"$T/slow.$i" &
	curls+=($!)
done
wait "${curls[@]}"
t1=$(date +%s.%N)
tap_is "$(cat "$T"/slow.* | awk '$1 == 200 && $2 >= 0.3' | wc -l)" 40 \
	"40 requests at once: each 200 and at least 300 ms late"
tap_diag "40 delayed requests at once took $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s (one at a time: 12 s)"
tap_is "$(get "$S/r/3")" 301 "delayed server: redirect still 301"

stop_all
tap_done
