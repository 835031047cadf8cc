#!/bin/bash
# web-e2e.sh - the whole way from a crawl to a browser: mpseek-index crawls
# tests/data/web/site (under mpirun, -np 2), searchd serves the index,
# mpi-scripts/mpseek-web serves s.cgi through a private nginx on a free port
# (WEB_MODE=fastcgi, the default: s.cgi as a persistent FastCGI application;
# WEB_MODE=cgi, web-e2e-cgi.sh: a CGI program run per request by fcgiwrap),
# and Debian's headless chromium (driven by playwright-core,
# tests/e2e/drive.js) types a query, checks the results, follows page 2,
# opens a cached copy, and checks that <script>alert(1)</script> in q comes
# back escaped and fires no dialog.  Screenshots at 1280 px (desktop) and
# 390 px (phone) go to $builddir/tests/e2e-shots/ (e2e-shots-cgi/ for the CGI mode).  Skipped only when
# chromium, node or playwright-core (mpi-scripts/deps test) is missing.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
sd="$builddir/searchd"
cgi="$builddir/s.cgi"
web="$srcdir/mpi-scripts/mpseek-web"
e2e="$srcdir/tests/e2e"
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || tap_skip_all "chromium not found (Debian package chromium)"
command -v node >/dev/null 2>&1 || tap_skip_all "node not found (Debian package nodejs)"
[ -d "$e2e/node_modules/playwright-core" ] ||
	tap_skip_all "playwright-core not installed (mpi-scripts/deps test runs npm ci in tests/e2e)"
for p in "$idx" "$sd" "$cgi"; do
	[ -x "$p" ] || tap_skip_all "$p not built"
done
[ -x "$NGINX" ] || tap_skip_all "nginx not found (Debian package nginx)"
mode=${WEB_MODE:-fastcgi}
case $mode in
fastcgi) webflag="" ;;
cgi) webflag=--cgi
	[ -x /usr/sbin/fcgiwrap ] || tap_skip_all "fcgiwrap not found (Debian package fcgiwrap)" ;;
*) echo "Bail out! WEB_MODE is fastcgi or cgi, not $mode"; exit 1 ;;
esac

T=$(tmp_dir)
# One directory per mode: web-e2e-cgi.sh runs beside this test under
# make -j2, and each removes the old screenshots when it starts.
shots="$builddir/tests/e2e-shots${webflag:+-cgi}"
mkdir -p "$shots"
rm -f "$shots"/*.png

# ---- crawl the test web with two ranks ---------------------------------------------
test_web_start "$T/site"
# A page whose title and text are markup once decoded: the index holds
# "<script>alert(3)</script>" and "<img src=x onerror=alert(4)>" as text,
# and the page must show them as text (no dialog in the browser).
cat >"$T/site/hostile-text.html" <<'EOH'
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>&lt;script&gt;alert(3)&lt;/script&gt; hostile page</title>
<meta name="description" content="&quot;&gt;&lt;img src=x onerror=alert(5)&gt; description"></head>
<body><p>This page talks about &lt;img src=x onerror=alert(4)&gt; and a page of text.</p></body></html>
EOH
sed -i 's|</body>|<p><a href="hostile-text.html">hostile text</a></p></body>|' "$T/site/index.html"
mdb_start
conf=$T/mpseek.conf
write_conf "$conf" site "MinDelay 0" "ReadTimeOut 5" "MaxHops 6" "Server $WEB_URL"
mpi_no_leak_check timeout 300 "$MPIRUN" --oversubscribe -np 2 "$idx" "$conf" >"$T/crawl.out" 2>"$T/crawl.log"
rc=$?
tap_is "$rc" 0 "the crawl (mpirun -np 2) succeeds"
[ "$rc" = 0 ] || tail -5 "$T/crawl.log" | sed 's/^/# /'
tap_ok "$([ -e "$MDB_DIR/data-site/index/current" ] && echo 1)" "an index is published"

# ---- searchd on a free port ---------------------------------------------------------
sd_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
sconf=$T/searchd.conf
write_conf "$sconf" site "Port $sd_port" "Listen 127.0.0.1"
"$sd" -F "$sconf" >"$T/searchd.out" 2>"$T/searchd.log" &
sd_pid=$!
up=""
for _ in $(seq 100); do
	kill -0 "$sd_pid" 2>/dev/null || break
	python3 -c "import socket,sys; socket.create_connection(('127.0.0.1',$sd_port),0.2)" 2>/dev/null && { up=1; break; }
	sleep 0.1
done
if [ -z "$up" ] && grep -q 'no index to serve under .* yet' "$T/searchd.log"; then
	# the placeholder searchd of the tree before the search issue
	tap_skip 1 "searchd does not serve queries yet"
	tap_done
fi
tap_ok "$up" "searchd listens on 127.0.0.1:$sd_port"
[ -n "$up" ] || tail -5 "$T/searchd.log" | sed 's/^/# /'

# ---- s.cgi behind nginx ($mode) ----------------------------------------------------
mkdir -p "$T/etc"
sed -e "s/^DaemonAddress .*/DaemonAddress 127.0.0.1:$sd_port/" "$srcdir/etc/s.htm" >"$T/etc/s.htm"
# shellcheck disable=SC2086 # webflag is empty or one word
url=$("$web" $webflag start "$T/web" auto "$cgi" "$T/etc/s.htm" 2>"$T/web.err")
tap_ok "$(echo "$url" | grep -qE '^http://127\.0\.0\.1:[0-9]+/s\.cgi$' && echo 1)" "mpseek-web prints the URL ($url)"
# shellcheck disable=SC2086
again=$("$web" $webflag start "$T/web" auto "$cgi" "$T/etc/s.htm" 2>/dev/null)
tap_is "$again" "$url" "mpseek-web start is idempotent"
tap_ok "$("$web" status "$T/web" | grep -qF "running $url $mode" && echo 1)" "mpseek-web status ($mode)"
stop_web() { "$web" stop "$T/web" >/dev/null 2>&1; kill "$sd_pid" 2>/dev/null; wait "$sd_pid" 2>/dev/null; }
trap 'stop_web; _lib_cleanup' EXIT

# A word of many pages of the test web (more than one page of 5 results;
# the browser picks 5 results per page).
query=home
n=$(curl -s "$url?q=$query&fmt=json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total_results"])' 2>/dev/null)
tap_ok "$([ "${n:-0}" -gt 5 ] 2>/dev/null && echo 1)" "fmt=json through the web server: $n results for '$query'"
status=$(curl -s -o /dev/null -w '%{http_code}' "$url?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E")
tap_is "$status" 200 "a script tag in q: HTTP 200"

# ---- s.cgi run directly against searchd: exit 0, no sanitizer report --------------
direct() {
	env -i PATH="$PATH" ASAN_OPTIONS="${ASAN_OPTIONS:-}" LSAN_OPTIONS="${LSAN_OPTIONS:-}" \
		UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" MPSEEK_TEMPLATE="$T/etc/s.htm" \
		REQUEST_METHOD=GET SCRIPT_NAME=/s.cgi QUERY_STRING="$1" "$cgi" >"$T/direct.out" 2>"$T/direct.err"
	local rc=$?
	tap_ok "$([ "$rc" = 0 ] && ! grep -qE 'Sanitizer|runtime error' "$T/direct.err" && echo 1)" \
		"s.cgi directly, $1: exit 0, clean ($(head -1 "$T/direct.out" | tr -d '\r'))"
}
first=$(curl -s "$url?q=$query&fmt=json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["url"])' 2>/dev/null)
enc=$(python3 -c 'import sys,urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$first")
for qs in "q=$query" "q=$query&np=1" "q=$query&fmt=json" "q=$query&gr=off&s=date&ps=3" \
	"q=%22unclosed" "q=zzzznotaword" "q=$query&t=1" "ch=$enc&q=$query" "ch=$enc&q=$query&fmt=json" \
	"ch=http%3A%2F%2Fnot.indexed%2F&q=x"; do
	direct "$qs"
done
# (the query word comes highlighted: <b>alert</b>)
direct "q=alert"
tap_ok "$(grep -q '&lt;script&gt;<b>alert</b>(3)&lt;/script&gt; hostile page' "$T/direct.out" &&
	! grep -qi '<script' "$T/direct.out" && echo 1)" "an indexed title holding <script> is shown as text"
direct "q=onerror"
tap_ok "$(grep -q '&lt;img src=x <b>onerror</b>=alert(4)&gt;' "$T/direct.out" &&
	! grep -qi '<img' "$T/direct.out" && echo 1)" "an indexed text holding <img onerror> is shown as text"

# tl=on: the query word in titles only (fewer results than anywhere)
direct "q=$query&sp1=on&sp2=on&bd=on"
direct "q=$query&fmt=json&gr=off&tl=on"
cp "$T/direct.out" "$T/title.json"
tap_ok "$(python3 - "$T/title.json" "$T/one.json" 2>&1 <<'PY'
import json, sys
def load(f):
    return json.loads(open(f, encoding='utf-8', newline='').read().split('\r\n\r\n', 1)[1])
t = load(sys.argv[1])
print(1 if t['error'] is None and t['results'] and all(r['title_highlights'] for r in t['results'])
      else 'no: %s' % [(r['title'], r['title_highlights']) for r in t['results']])
PY
)" "tl=on: every result has the query word in its title"

# valgrind (plain build only): a results page and a cached copy, no error, no leak
if command -v valgrind >/dev/null 2>&1 && ! nm "$cgi" 2>/dev/null | grep -q __asan_init; then
	for qs in "q=$query&np=1&ps=3" "ch=$enc&q=$query"; do
		env -i PATH="$PATH" MPSEEK_TEMPLATE="$T/etc/s.htm" REQUEST_METHOD=GET SCRIPT_NAME=/s.cgi \
			QUERY_STRING="$qs" valgrind -q --error-exitcode=99 --leak-check=full \
			--errors-for-leak-kinds=definite,indirect "$cgi" >"$T/vg.out" 2>"$T/vg.err"
		rc=$?
		tap_ok "$([ "$rc" = 0 ] && grep -q '^Status: 200' "$T/vg.out" && echo 1)" "valgrind s.cgi, $qs: clean (rc $rc)"
		[ "$rc" = 0 ] || head -20 "$T/vg.err" | sed 's/^/# /'
	done
else
	tap_skip 2 "valgrind: not installed, or an ASan build"
fi

# ---- FastCGI: one process, many requests, one searchd connection ------------------
# fcgi_req NAME QS: one request to the s.cgi --fastcgi on $T/one.sock
fcgi_req() {
	env -i PATH="$PATH" MPSEEK_TEMPLATE="$T/etc/s.htm" REQUEST_METHOD=GET SCRIPT_NAME=/s.cgi \
		QUERY_STRING="$2" cgi-fcgi -bind -connect "$T/one.sock" >"$T/$1.out" 2>>"$T/one.err"
}
# sd_conns PID: connections to searchd that process holds open
sd_conns() { ss -Htnp state established "( dport = :$sd_port )" | grep -c "pid=$1,"; }
# start_one [WRAPPER...]: s.cgi --fastcgi $T/one.sock in the background ($one_pid)
start_one() {
	rm -f "$T/one.sock"
	env -i PATH="$PATH" "$@" "$cgi" --fastcgi "$T/one.sock" 2>"$T/one.log" &
	one_pid=$!
	for _ in $(seq 100); do [ -S "$T/one.sock" ] && break; sleep 0.1; done
}
if [ "$mode" != fastcgi ]; then
	tap_skip 7 "FastCGI persistence: WEB_MODE=$mode"
elif ! command -v cgi-fcgi >/dev/null 2>&1 || ! command -v ss >/dev/null 2>&1; then
	tap_skip 7 "cgi-fcgi (libfcgi-bin) or ss (iproute2) not installed"
else
	start_one
	ok=1 conns=""
	for i in $(seq 20); do
		fcgi_req one "q=$query&np=$((i % 3))&ps=3"
		grep -q '^Status: 200' "$T/one.out" || ok=""
		conns="$conns$(sd_conns "$one_pid")"
	done
	tap_ok "$ok" "FastCGI: 20 requests answered 200"
	tap_ok "$(kill -0 "$one_pid" 2>/dev/null && echo 1)" "FastCGI: one s.cgi process (pid $one_pid) answered them all"
	tap_is "$conns" "11111111111111111111" "FastCGI: one searchd connection, kept across the 20 requests"
	# searchd restarts: the kept connection fails, a new one is made
	kill "$sd_pid"; wait "$sd_pid" 2>/dev/null
	"$sd" -F "$sconf" >>"$T/searchd.out" 2>>"$T/searchd.log" &
	sd_pid=$!
	for _ in $(seq 100); do
		python3 -c "import socket; socket.create_connection(('127.0.0.1',$sd_port),0.2)" 2>/dev/null && break
		sleep 0.1
	done
	fcgi_req again "q=$query&fmt=json"
	tap_ok "$(grep -q '^Status: 200' "$T/again.out" && echo 1)" "FastCGI: searchd restarted, the next request reconnects (200)"
	tap_is "$(sd_conns "$one_pid")" 1 "FastCGI: one connection to the new searchd"
	# the template changes: the next request uses the new one
	cp "$T/etc/s.htm" "$T/etc/s.htm.orig"
	sed -i 's/Search<\/button>/Seek<\/button>/' "$T/etc/s.htm"
	touch -d '+2 seconds' "$T/etc/s.htm"
	fcgi_req tmpl "q=$query"
	tap_ok "$(grep -q 'Seek</button>' "$T/tmpl.out" && echo 1)" "FastCGI: a changed template is loaded again"
	mv "$T/etc/s.htm.orig" "$T/etc/s.htm"
	kill -TERM "$one_pid"; wait "$one_pid"
	tap_is "$?" 0 "FastCGI: SIGTERM ends s.cgi, exit 0"
fi

# valgrind over the FastCGI loop: requests of every kind in one process, no
# error and nothing definitely or indirectly lost when it ends
if [ "$mode" = fastcgi ] && command -v valgrind >/dev/null 2>&1 && command -v cgi-fcgi >/dev/null 2>&1 &&
	! nm "$cgi" 2>/dev/null | grep -q __asan_init; then
	start_one valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--log-file="$T/vg-fcgi.log"
	for _ in $(seq 100); do [ -S "$T/one.sock" ] && break; sleep 0.1; done
	ok=1
	for qs in "q=$query&np=1&ps=3" "ch=$enc&q=$query" "q=$query&fmt=json" "q=%22unclosed" \
		"q=zzzznotaword" "q=$query&tmpl=nosuch" "q=$query&gr=off&s=date" "ch=$enc&fmt=json" "q=" \
		"q=$query&np=1&ps=3"; do
		fcgi_req vg "$qs"
		grep -q '^Status: [24]00' "$T/vg.out" || { ok=""; echo "# $qs: $(head -1 "$T/vg.out")"; }
	done
	tap_ok "$ok" "valgrind s.cgi --fastcgi: 10 requests answered"
	kill -TERM "$one_pid"; wait "$one_pid"
	rc=$?
	tap_ok "$([ "$rc" = 0 ] && [ ! -s "$T/vg-fcgi.log" ] && echo 1)" "valgrind s.cgi --fastcgi: no error, no leak (rc $rc)"
	[ "$rc" = 0 ] || head -30 "$T/vg-fcgi.log" | sed 's/^/# /'
else
	tap_skip 2 "valgrind over FastCGI: WEB_MODE=$mode, no valgrind or cgi-fcgi, or an ASan build"
fi

# the counts say pages and sites; st= says the page is limited and links to all sites
direct "q=$query"
tap_ok "$(grep -qE "Results 1&ndash;[0-9]+ of about\s+[0-9]+ pages? on [0-9]+ sites?\s+for" "$T/direct.out" && echo 1)" \
	"the count names the pages and the sites they are on"
tap_ok "$(grep -qE "Words: $query: [0-9]+ pages?, [0-9]+ times?" "$T/direct.out" && echo 1)" "the word statistics are labelled"
direct "q=$query&fmt=json"
site_id=$(sed '1,/^\r$/d' "$T/direct.out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["site_id"])')
direct "q=$query&st=$site_id"
tap_ok "$(grep -qF "Only pages of <strong>$WEB_URL" "$T/direct.out" && echo 1)" "st=$site_id: the page says it shows one site"
tap_ok "$(grep -qE '<a href="/s.cgi\?q=home">Search all sites</a>' "$T/direct.out" && echo 1)" \
	"st=: a link to the same query on all sites (no st=)"
direct "q=$query"
tap_ok "$(grep -q 'Only pages of' "$T/direct.out" || echo 1)" "without st= no such line"

# ul: a URL prefix restricts (passed to searchd as data); SQL in ul is just a prefix
direct "q=$query&fmt=json&gr=off&ul=$(python3 -c 'import sys,urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "${WEB_URL}chain/")"
tap_ok "$(python3 -c '
import json, sys
d = json.loads(open(sys.argv[1], encoding="utf-8", newline="").read().split("\r\n\r\n", 1)[1])
print(1 if d["results"] and all(r["url"].startswith(sys.argv[2]) for r in d["results"]) else 0)' "$T/direct.out" "${WEB_URL}chain/")" \
	"ul=<prefix>: only URLs under the prefix"
direct "q=$query&fmt=json&ul=%27+OR+%271%27%3D%271"
tap_is "$(python3 -c '
import json, sys
d = json.loads(open(sys.argv[1], encoding="utf-8", newline="").read().split("\r\n\r\n", 1)[1])
print(d["total_results"], d["error"])' "$T/direct.out")" "0 None" "ul=' OR '1'='1: no result, no error"

# ---- two DaemonAddress lines (the same searchd twice): merged, counted twice
sed "s/^DaemonAddress .*/DaemonAddress 127.0.0.1:$sd_port\nDaemonAddress 127.0.0.1:$sd_port/" \
	"$T/etc/s.htm" >"$T/etc/two.htm"
direct "q=$query&fmt=json&ps=10&gr=off"
cp "$T/direct.out" "$T/one.json"
direct "q=$query&fmt=json&ps=20&gr=off&tmpl=two"
cp "$T/direct.out" "$T/two.json"
direct "q=$query&ps=3&np=2&tmpl=two"
tap_is "$(python3 - "$T/one.json" "$T/two.json" 2>&1 <<'PY'
import json, sys, collections
def load(f):
    return json.loads(open(f, encoding='utf-8', newline='').read().split('\r\n\r\n', 1)[1])
one, two = load(sys.argv[1]), load(sys.argv[2])
urls1 = collections.Counter(r['url'] for r in one['results'])
urls2 = collections.Counter(r['url'] for r in two['results'])
ok = (two['total_results'] == 2 * one['total_results'] and
      two['words'][0]['urls'] == 2 * one['words'][0]['urls'] and
      urls2 == collections.Counter({u: 2 * n for u, n in urls1.items()}) and
      [r['score'] for r in two['results']] == sorted((r['score'] for r in two['results']), reverse=True))
print("merged" if ok else 'one %d %s / two %d %s' % (one['total_results'], dict(urls1), two['total_results'], dict(urls2)))
PY
)" merged "two searchds: totals and word counts summed, every hit twice, in score order"

# ---- the browser -------------------------------------------------------------------------
(cd "$e2e" && HOSTILE_QUERY=alert timeout 180 node drive.js "$url" "$query" "$shots") >"$T/drive.out" 2>"$T/drive.err"
rc=$?
while read -r tag pass what; do
	[ "$tag" = CHECK ] || continue
	tap_ok "$pass" "browser: $what"
done <"$T/drive.out"
tap_is "$rc" 0 "the browser run ends cleanly"
[ "$rc" = 0 ] || sed 's/^/# /' "$T/drive.err" | tail -10
for s in desktop-results desktop-page2 desktop-cached phone-results; do
	tap_ok "$([ -s "$shots/$s.png" ] && echo 1)" "screenshot $s.png"
done

# ---- searchd stopped: the page says so, HTTP 503 ---------------------------------------------
kill "$sd_pid" 2>/dev/null; wait "$sd_pid" 2>/dev/null
hdr=$(curl -s -D - -o "$T/down.html" "$url?q=$query")
tap_ok "$(echo "$hdr" | grep -q '^HTTP/1.1 503' && echo 1)" "searchd stopped: HTTP 503"
tap_ok "$(echo "$hdr" | grep -qi '^Retry-After: [0-9]' && echo 1)" "searchd stopped: Retry-After"
(cd "$e2e" && timeout 60 node drive.js "$url" "$query" "$shots" down) >"$T/down.out" 2>"$T/down.err"
rc=$?
while read -r tag pass what; do
	[ "$tag" = CHECK ] || continue
	tap_ok "$pass" "browser: $what"
done <"$T/down.out"
tap_is "$rc" 0 "the browser run on the 503 page ends cleanly"
tap_ok "$([ -s "$shots/desktop-503.png" ] && echo 1)" "screenshot desktop-503.png"
"$web" stop "$T/web"
tap_ok "$("$web" status "$T/web" | grep -q stopped && echo 1)" "mpseek-web stop"
left=$(pgrep -f -- "$T/web/" | wc -l)
tap_is "$left" 0 "mpseek-web stop leaves no nginx, fcgiwrap or s.cgi process"
tap_done
