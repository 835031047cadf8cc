#!/bin/bash
# cgi-hostile.sh - s.cgi run directly as a web server runs it (environment
# REQUEST_METHOD, QUERY_STRING, CONTENT_TYPE, CONTENT_LENGTH; the body on
# stdin) with each hostile input of issue 7: script tags, quotes, control
# bytes, invalid UTF-8, huge parameters, missing '=', closed stdin, POST with
# a wrong length, odd methods, template names with paths, broken templates;
# and searchd down (connection refused), slow (accepts, never answers) or
# speaking another protocol:
# HTTP 503 with Retry-After.  Each response is checked: exit code 0, no
# sanitizer report, the status line, valid UTF-8 without control bytes, no
# header injected, every value escaped.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

cgi="$builddir/s.cgi"
[ -x "$cgi" ] || tap_skip_all "$cgi not built"
command -v python3 >/dev/null 2>&1 || tap_skip_all "python3 not found"

T=$(tmp_dir)
# A port nobody listens on: bind one, note it, close it.
down_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# The shipped template, asking a searchd that is down.
sed "s/^DaemonAddress .*/DaemonAddress 127.0.0.1:$down_port/" "$srcdir/etc/s.htm" >"$T/s.htm"
grep -q "^DaemonAddress 127.0.0.1:$down_port" "$T/s.htm" || { echo "Bail out! no DaemonAddress in etc/s.htm"; exit 1; }

# CGI_MODE=cgi (default): s.cgi run once per request, as a web server runs a
# CGI program.  CGI_MODE=fastcgi (cgi-hostile-fastcgi.sh): one s.cgi
# --fastcgi SOCKET answers every request, each sent by libfcgi's cgi-fcgi
# with the same variables and body; the process must outlive them all.
mode=${CGI_MODE:-cgi}
case $mode in
cgi) ;;
fastcgi)
	command -v cgi-fcgi >/dev/null 2>&1 || tap_skip_all "cgi-fcgi not found (Debian package libfcgi-bin)"
	env -i PATH="$PATH" ASAN_OPTIONS="${ASAN_OPTIONS:-}" LSAN_OPTIONS="${LSAN_OPTIONS:-}" \
		UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" "$cgi" --fastcgi "$T/fcgi.sock" 2>"$T/fcgi.log" &
	fcgi_pid=$!
	for _ in $(seq 50); do [ -S "$T/fcgi.sock" ] && break; sleep 0.1; done
	[ -S "$T/fcgi.sock" ] || { echo "Bail out! s.cgi --fastcgi did not listen"; cat "$T/fcgi.log"; exit 1; }
	;;
*) echo "Bail out! CGI_MODE is cgi or fastcgi, not $mode"; exit 1 ;;
esac

# run NAME [VAR=VALUE...] [< stdin]: s.cgi with only these variables; the
# response in $T/NAME.out, stderr in $T/NAME.err (in FastCGI mode what the
# one process logged meanwhile), exit code in $T/NAME.rc.
run() {
	local name=$1 prog=$cgi log_at=0; shift
	if [ "$mode" = fastcgi ]; then
		prog="cgi-fcgi -bind -connect $T/fcgi.sock"
		log_at=$(wc -c <"$T/fcgi.log")
	fi
	# shellcheck disable=SC2086 # prog is a command and its arguments
	env -i PATH="$PATH" ASAN_OPTIONS="${ASAN_OPTIONS:-}" LSAN_OPTIONS="${LSAN_OPTIONS:-}" \
		UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" MPSEEK_TEMPLATE="${TEMPLATE:-$T/s.htm}" \
		SCRIPT_NAME=/cgi-bin/s.cgi "$@" $prog >"$T/$name.out" 2>"$T/$name.err"
	echo $? >"$T/$name.rc"
	[ "$mode" = fastcgi ] && tail -c +$((log_at + 1)) "$T/fcgi.log" >>"$T/$name.err"
	return 0
}

# check NAME STATUS: exit 0, no sanitizer report, the status line, the body
# valid UTF-8 without C0 controls (but \t \n \r), CGI headers well formed
# (no line but known headers: nothing injected), Content-Length right.
check() {
	local name=$1 status=$2 verdict
	tap_is "$(cat "$T/$name.rc")" 0 "$name: exit code 0"
	tap_ok "$(grep -qE 'Sanitizer|runtime error|LeakSanitizer' "$T/$name.err" || echo 1)" \
		"$name: no sanitizer report"
	verdict=$(python3 - "$T/$name.out" "$status" <<'PY'
import re, sys
data = open(sys.argv[1], 'rb').read()
want = sys.argv[2]
head, sep, body = data.partition(b'\r\n\r\n')
if not sep:
    print('no end of headers'); sys.exit()
lines = head.split(b'\r\n')
if not lines[0].startswith(b'Status: ' + want.encode() + b' '):
    print('status line %r' % lines[0][:80]); sys.exit()
known = {b'status', b'content-type', b'cache-control', b'x-content-type-options',
         b'referrer-policy', b'content-security-policy', b'retry-after', b'allow',
         b'location', b'content-length'}
for l in lines:
    m = re.match(rb'^([A-Za-z-]+): [\x20-\x7e]*$', l)
    if not m or m.group(1).lower() not in known:
        print('bad header line %r' % l[:80]); sys.exit()
cl = [l for l in lines if l.lower().startswith(b'content-length: ')]
if not cl or int(cl[0].split(b' ')[1]) != len(body):
    print('Content-Length %r, body %d' % (cl, len(body))); sys.exit()
try:
    body.decode('utf-8')
except UnicodeDecodeError as e:
    print('invalid UTF-8: %s' % e); sys.exit()
if re.search(rb'[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]', body):
    print('control byte in the body'); sys.exit()
print('ok')
PY
)
	tap_is "$verdict" ok "$name: status $status, well-formed response"
}

body() { sed '1,/^\r$/d' "$T/$1.out"; }
has() { grep -qF -- "$2" <(body "$1") && echo 1; }
hasnt() { grep -qF -- "$2" <(body "$1") || echo 1; }
header() { sed -n '/^\r$/q;p' "$T/$1.out" | tr -d '\r' | sed -n "s/^$2: //p"; }

# --- searchd down: 503, Retry-After, the template's friendly page ---------------
run down REQUEST_METHOD=GET QUERY_STRING='q=hello'
check down 503
tap_ok "$(header down Retry-After | grep -qE '^[0-9]+$' && echo 1)" "down: Retry-After seconds"
tap_ok "$(has down 'The search service is not available')" "down: the friendly message"
tap_ok "$(has down 'value="hello"')" "down: the query box keeps the query"
tap_ok "$(grep -q "127.0.0.1:$down_port" "$T/down.err" && echo 1)" "down: the failure is logged to stderr"
run down-json REQUEST_METHOD=GET QUERY_STRING='q=hello&fmt=json'
check down-json 503
tap_is "$(body down-json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["error"]["token"], d["retry_after"])')" \
	"ER_NOSEARCHD 30" "down-json: a JSON error with retry_after"

# --- searchd slow: accepts, never answers; SearchTimeOut 700 ms -------------------
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True)
conns = []
while True:
    c, _ = s.accept(); conns.append(c)
' >"$T/slow.port" &
slow_pid=$!
for _ in $(seq 50); do [ -s "$T/slow.port" ] && break; sleep 0.1; done
slow_port=$(cat "$T/slow.port")
sed "s/^DaemonAddress .*/DaemonAddress 127.0.0.1:$slow_port\nSearchTimeOut 700/" "$srcdir/etc/s.htm" >"$T/slow.htm"
start=$(date +%s%N)
TEMPLATE=$T/slow.htm run slow REQUEST_METHOD=GET QUERY_STRING='q=hello'
ms=$((($(date +%s%N) - start) / 1000000))
kill "$slow_pid" 2>/dev/null; wait "$slow_pid" 2>/dev/null
check slow 503
tap_ok "$(num_below "$ms" 5000)" "slow: gave up after SearchTimeOut ($ms ms)"
tap_ok "$(has slow 'The search service is not available')" "slow: the friendly message"

# --- searchd answers garbage (an HTTP server, say): 503 at once -----------------
python3 -c '
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True)
while True:
    c, _ = s.accept()
    c.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n" + b"\xff" * 64)
    c.close()
' >"$T/garbage.port" &
garbage_pid=$!
for _ in $(seq 50); do [ -s "$T/garbage.port" ] && break; sleep 0.1; done
sed "s/^DaemonAddress .*/DaemonAddress 127.0.0.1:$(cat "$T/garbage.port")/" "$srcdir/etc/s.htm" >"$T/garbage.htm"
TEMPLATE=$T/garbage.htm run garbage REQUEST_METHOD=GET QUERY_STRING='q=hello'
kill "$garbage_pid" 2>/dev/null; wait "$garbage_pid" 2>/dev/null
check garbage 503
tap_ok "$(grep -qi 'magic\|frame\|header' "$T/garbage.err" && echo 1)" "garbage: the bad frame is logged"

# --- script tags and quotes in every parameter that is shown ---------------------
xss='%3Cscript%3Ealert(1)%3C%2Fscript%3E'
run script REQUEST_METHOD=GET QUERY_STRING="q=$xss&ps=$xss&s=$xss&o=$xss&tmpl=&ul=$xss&st=$xss"
check script 503
tap_ok "$(hasnt script '<script>')" "script: no <script> tag in the page"
tap_ok "$(has script '&lt;script&gt;alert(1)&lt;/script&gt;')" "script: the query shown escaped"
run quotes REQUEST_METHOD=GET QUERY_STRING='q=%22+onfocus%3D%22alert(1)%22+x%3D%27y%27%3E%3Cb%3E'
check quotes 503
tap_ok "$(has quotes 'value="&quot; onfocus=&quot;alert(1)&quot; x=&#39;y&#39;&gt;&lt;b&gt;"')" \
	"quotes: the value attribute stays one attribute"
tap_ok "$(hasnt quotes '" onfocus="')" "quotes: no attribute injected"
run script-json REQUEST_METHOD=GET QUERY_STRING="q=$xss&fmt=json" 
check script-json 503
tap_ok "$(hasnt script-json '<')" "script-json: no '<' in JSON"

# --- control bytes: encoded and raw; CR LF must not make a header ----------------
run ctl REQUEST_METHOD=GET QUERY_STRING='q=a%00b%01c%1B[31md%0D%0ASet-Cookie:+x=1%7Fe%C2%85f'
check ctl 503
tap_ok "$(has ctl 'value="a b c [31md  Set-Cookie: x=1 e f"')" "ctl: control bytes shown as spaces"
run ctl-raw REQUEST_METHOD=GET QUERY_STRING="$(printf 'q=a\001b\033c\td')"
check ctl-raw 503
tap_ok "$(has ctl-raw 'value="a b c d"')" "ctl-raw: raw control bytes as spaces"

# --- invalid UTF-8 ------------------------------------------------------------------
run utf8 REQUEST_METHOD=GET QUERY_STRING='q=a%FFb%C0%AFc%ED%A0%80d%F4%90%80%80e%E2%82'
check utf8 503
tap_ok "$(has utf8 "value=\"a$(printf '\xef\xbf\xbd')b")" "utf8: invalid bytes shown as U+FFFD"
run utf8-raw REQUEST_METHOD=GET QUERY_STRING="$(printf 'q=\xff\xfe\xc3')"
check utf8-raw 503

# --- huge parameters --------------------------------------------------------------
big=$(head -c 70000 /dev/zero | tr '\0' x)
run huge-qs REQUEST_METHOD=GET QUERY_STRING="q=$big"
check huge-qs 414
long=$(head -c 5000 /dev/zero | tr '\0' y)
run long-q REQUEST_METHOD=GET QUERY_STRING="q=$long"
check long-q 200
tap_ok "$(has long-q 'The query is too long')" "long-q: a query over 1024 bytes is refused with a message"
many=$(for i in $(seq 2000); do printf 'p%d=%d&' "$i" "$i"; done)
run many REQUEST_METHOD=GET QUERY_STRING="${many}q=last"
check many 400
printf 'q=x' >"$T/small.body"
run huge-post REQUEST_METHOD=POST CONTENT_TYPE=application/x-www-form-urlencoded \
	CONTENT_LENGTH=100000000000 <"$T/small.body"
check huge-post 413

# --- missing '=', empty pairs -----------------------------------------------------
run noeq REQUEST_METHOD=GET QUERY_STRING='q&np&ps&=&&=x&%3D'
check noeq 200
tap_ok "$(has noeq 'Type some words')" "noeq: no query, the noquery section"
run noeq2 REQUEST_METHOD=GET QUERY_STRING='np&q=hello&ps'
check noeq2 503

# --- POST: a right body, closed stdin, short and long bodies, bad lengths ---------
printf 'q=%%3Cb%%3Epost' >"$T/post.body"
run post REQUEST_METHOD=POST CONTENT_TYPE=application/x-www-form-urlencoded \
	CONTENT_LENGTH=$(wc -c <"$T/post.body") <"$T/post.body"
check post 503
tap_ok "$(has post 'value="&lt;b&gt;post"')" "post: the body's query is read and escaped"
if [ "$mode" = fastcgi ]; then
	# cgi-fcgi needs a stdin: an empty body is what reaches s.cgi
	run closed REQUEST_METHOD=POST CONTENT_LENGTH=10 </dev/null
else
	run closed REQUEST_METHOD=POST CONTENT_LENGTH=10 <&-
fi
check closed 400
run closed-get REQUEST_METHOD=GET QUERY_STRING='q=x' <&-
check closed-get 503
run short REQUEST_METHOD=POST CONTENT_LENGTH=50 <"$T/post.body"
check short 400
printf 'q=abcdef' >"$T/long.body"
run longer REQUEST_METHOD=POST CONTENT_LENGTH=3 <"$T/long.body"
check longer 503
tap_ok "$(has longer 'value="a"')" "longer: only Content-Length bytes are read"
run neglen REQUEST_METHOD=POST CONTENT_LENGTH=-5 <"$T/post.body"
check neglen 400
run badlen REQUEST_METHOD=POST CONTENT_LENGTH=12abc <"$T/post.body"
check badlen 400
run multipart REQUEST_METHOD=POST CONTENT_TYPE='multipart/form-data; boundary=x' \
	CONTENT_LENGTH=3 <"$T/post.body"
check multipart 415
run put REQUEST_METHOD=PUT QUERY_STRING='q=x'
check put 405
run head REQUEST_METHOD=HEAD QUERY_STRING='q='
tap_is "$(cat "$T/head.rc")" 0 "head: exit code 0"
tap_is "$(body head | wc -c)" 0 "head: headers only"

# --- templates: paths refused, missing and broken templates named ----------------
run tmpl-path REQUEST_METHOD=GET QUERY_STRING='q=x&tmpl=../../etc/passwd'
check tmpl-path 400
run tmpl-abs REQUEST_METHOD=GET QUERY_STRING='q=x&tmpl=%2Fetc%2Fpasswd'
check tmpl-abs 400
run tmpl-missing REQUEST_METHOD=GET QUERY_STRING='q=x&tmpl=nosuch'
check tmpl-missing 400
tap_ok "$(hasnt tmpl-missing "$T")" "tmpl-missing: the page names no path"
tap_ok "$(grep -qF "$T/nosuch.htm" "$T/tmpl-missing.err" && echo 1)" "tmpl-missing: the log names the file"
run tmpl-missing-json REQUEST_METHOD=GET QUERY_STRING='q=x&tmpl=nosuch&fmt=json'
check tmpl-missing-json 400
tap_ok "$(hasnt tmpl-missing-json "$T")" "tmpl-missing-json: no path in the JSON"
TEMPLATE=$T/gone.htm run tmpl-gone REQUEST_METHOD=GET QUERY_STRING='q=x'
check tmpl-gone 500
tap_ok "$(hasnt tmpl-gone "$T")" "tmpl-gone: a missing default template: 500, no path in the page"
cp "$T/s.htm" "$T/other.htm"
sed -i 's/Search<\/button>/Find<\/button>/' "$T/other.htm"
run tmpl-other REQUEST_METHOD=GET QUERY_STRING='q=&tmpl=other'
check tmpl-other 200
tap_ok "$(has tmpl-other 'Find</button>')" "tmpl-other: tmpl= picks a template of the same directory"
# o=N: the variant of each section, falling back to the first
{ sed '/^<!--noquery-->/,$d' "$T/s.htm"
  printf '<!--noquery-->\n<p>variant zero</p>\n<!--/noquery-->\n<!--noquery-->\n<p>variant one</p>\n<!--/noquery-->\n'
  sed -n '/^<!--queryerror-->/,$p' "$T/s.htm"; } >"$T/variants.htm"
run variant0 REQUEST_METHOD=GET QUERY_STRING='tmpl=variants'
run variant1 REQUEST_METHOD=GET QUERY_STRING='tmpl=variants&o=1'
run variant5 REQUEST_METHOD=GET QUERY_STRING='tmpl=variants&o=5'
check variant1 200
tap_is "$(has variant0 'variant zero')$(has variant1 'variant one')$(has variant5 'variant zero')" 111 \
	"o=1 picks the second variant; o=0 and a missing variant the first"
printf '<!--variables\nDaemonAddress 127.0.0.1:1\n-->\n<!--top-->\n<p>\n$Q $NoSuchVar</p>\n<!--/top-->\n' >"$T/broken.htm"
run broken REQUEST_METHOD=GET QUERY_STRING='q=%3Cx%3E&tmpl=broken'
check broken 500
tap_ok "$(has broken "$T/broken.htm:6")" "broken: the error names file and line"
printf '<!--variables\nNoSuchDirective 1\n-->\n' >"$T/badvar.htm"
run badvar REQUEST_METHOD=GET QUERY_STRING='q=x&tmpl=badvar'
check badvar 500
tap_ok "$(has badvar "$T/badvar.htm:2")" "badvar: a bad directive is named with file and line"

# --- the cached copy and take-me-there with the daemon down ----------------------
run cached REQUEST_METHOD=GET QUERY_STRING='ch=javascript:alert(1)&q=%3Cscript%3E'
check cached 503
tap_ok "$(hasnt cached '<script>')" "cached: no <script> tag"
run take REQUEST_METHOD=GET QUERY_STRING='q=x&t=1'
check take 503
# a ch= URL longer than any indexed one (MAX_URL_LEN, 2,048 bytes): the
# request is bad, the service is not down
longurl="http://example.com/$(head -c 2100 /dev/zero | tr '\0' a)"
run ch-long REQUEST_METHOD=GET QUERY_STRING="ch=$longurl&q=x"
check ch-long 400
tap_ok "$(hasnt ch-long 'not available')" "ch-long: not 'service not available'"
tap_ok "$(has ch-long 'address of the page is too long')" "ch-long: says what is wrong"
run ch-long-json REQUEST_METHOD=GET QUERY_STRING="ch=$longurl&fmt=json"
check ch-long-json 400
tap_is "$(body ch-long-json | python3 -c 'import json,sys; print(json.load(sys.stdin)["error"]["token"])')" \
	ER_LONGURL "ch-long-json: the JSON error names ER_LONGURL"

if [ "$mode" = fastcgi ]; then
	tap_ok "$(kill -0 "$fcgi_pid" 2>/dev/null && echo 1)" "fastcgi: one s.cgi process answered every request"
	kill -TERM "$fcgi_pid"
	wait "$fcgi_pid"
	tap_is "$?" 0 "fastcgi: SIGTERM ends the loop, exit 0"
	tap_ok "$(grep -qE 'Sanitizer|runtime error' "$T/fcgi.log" || echo 1)" "fastcgi: no sanitizer report"
	tap_ok "$([ ! -e "$T/fcgi.sock" ] && echo 1)" "fastcgi: the socket is removed"
fi

tap_done
