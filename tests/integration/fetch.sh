#!/bin/bash
# fetch.sh - the fetcher (src/crawl/fetch.c, through tests/helper/fetch-tool)
# against tests/servers/hostile.py on 127.0.0.1: redirects returned not
# followed, status codes and Retry-After, timeouts of slow, silent and
# endless servers, caps on big pages and decompression bombs with bounded
# RSS, conditional GET, HEAD, per-host politeness from the server's log,
# parallel hosts, the global cap, refused schemes, DNS failures and
# cancellation (doc/HOSTILE-INPUT.md cases 1-5, 7 and 13).
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

tool="$builddir/tests/helper/fetch-tool"
server="$srcdir/tests/servers/hostile.py"
command -v python3 >/dev/null 2>&1 || tap_skip_all "python3 not found"
[ -x "$tool" ] || tap_skip_all "$tool not built"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mpseek-fetch.XXXXXX")
spid=
stop_server() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
	spid=
}
# lib.sh's own EXIT trap is kept by calling it after ours.
trap 'stop_server; rm -rf "$tmp"; _lib_cleanup' EXIT

python3 "$server" --port-file "$tmp/port" --log "$tmp/log" --lifetime 600 \
	>"$tmp/server.out" 2>"$tmp/server.err" &
spid=$!
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
P=$(cut -d' ' -f1 "$tmp/port" 2>/dev/null)
tap_ok "$P" "hostile.py listens (port ${P:-none})"
[ -n "$P" ] || { cat "$tmp/server.err"; tap_done; exit 1; }

# fetch [tool options] < lines: run the tool, output in $tmp/out, wall time
# in $elapsed (seconds), exit status in $rc; runs that fail (a sanitizer
# report included) are collected in $tmp/failed.
fetch() {
	local t0 t1
	t0=$(date +%s.%N)
	"$tool" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = 0 ] || { echo "exit $rc: $(head -c 300 "$tmp/err")" >>"$tmp/failed"; }
	t1=$(date +%s.%N)
	elapsed=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
}
# col URL N: field N of the result line for URL.
col() { awk -F'\t' -v u="$1" -v f="$2" '$1 == u { print $f; exit }' "$tmp/out"; }
# between X LO HI: non-empty when LO <= X <= HI (numbers).
between() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { if (x != "" && x + 0 >= lo && x + 0 <= hi) print 1 }'; }
u() { echo "http://$1.localhost:$P$2"; }   # a virtual host per case

# ---- 1. redirects, statuses, conditional GET, HEAD, caps: one concurrent run
LASTMOD='Wed,%2021%20Oct%202015%2007:28:00%20GMT'
OLDDATE='Mon,%2001%20Jan%202001%2000:00:00%20GMT'
fetch <<EOF
$(u r1 /redirect/chain/3)
$(u r2 /redirect/loop)
$(u r3 /redirect/relative)
$(u r4 /redirect/protocol-relative)
$(u r5 /redirect/missing)
$(u r6 /redirect/spaces)
$(u r7 /redirect/unicode)
$(u r8 /redirect/file)
$(u r9 /redirect/code/301)
$(u r10 /redirect/code/307)
$(u r11 /redirect/code/308)
$(u s1 /status/404)
$(u s2 /status/410)
$(u s3 /status/500)
$(u s4 /status/429)
$(u s5 /status/503?ra=7)
$(u s6 /retry-after/date/100)
$(u s7 /status/503?ra=soon)
$(u c1 /lastmod) ims=$LASTMOD
$(u c2 /lastmod) inm="v1"
$(u c3 /lastmod) inm="v0"
$(u c4 /lastmod) ims=$OLDDATE
$(u h1 /lastmod) head=1
$(u b1 /big/3000000) maxsize=100000
$(u b2 /big/3000000?chunked=1) maxsize=100000
$(u b3 /big/3000000?close=1) maxsize=100000
$(u b4 /big/100000) maxsize=100000
$(u b5 /big/50000)
$(u e1 /endless) maxsize=200000
$(u z1 /gzip/small)
$(u z2 /bad-gzip)
$(u p1 /headers/huge)
$(u p2 /no-status)
$(u p3 /close-early)
$(u p4 /headers/longline)
ftp://127.0.0.1:$P/file.txt
mailto:someone@example.com
javascript:alert(1)
http://no-such-host.invalid/ timeout=3
http://127.0.0.1:1/
EOF
tap_is "$rc" 0 "fetch-tool exits 0"
tap_is "$(wc -l <"$tmp/out")" 40 "one result line per URL"

# Redirects come back with their Location, never followed (case 5).
tap_is "$(col "$(u r1 /redirect/chain/3)" 2)" 302 "redirect chain: 302 returned"
tap_is "$(col "$(u r1 /redirect/chain/3)" 7)" /redirect/chain/2 "redirect chain: Location, not followed"
tap_is "$(col "$(u r2 /redirect/loop)" 7)" /redirect/loop-b "redirect loop: first hop only"
tap_is "$(col "$(u r3 /redirect/relative)" 7)" "../target?from=relative" "relative Location kept raw"
tap_is "$(col "$(u r4 /redirect/protocol-relative)" 7)" "//r4.localhost:$P/target" "protocol-relative Location"
tap_is "$(col "$(u r5 /redirect/missing)" 2)/$(col "$(u r5 /redirect/missing)" 7)" "302/-" "302 without Location"
tap_is "$(col "$(u r6 /redirect/spaces)" 7)" "/a b/c d?x=1 2" "Location with spaces"
tap_is "$(col "$(u r7 /redirect/unicode)" 7)" "/ünï/页?q=ü" "Location with raw UTF-8"
tap_is "$(col "$(u r8 /redirect/file)" 7)" "file:///etc/passwd" "file:// Location returned for the crawler to refuse"
for c in 301 307 308; do
	n=$((c == 301 ? 9 : c == 307 ? 10 : 11))
	tap_is "$(col "$(u r$n /redirect/code/$c)" 2) $(col "$(u r$n /redirect/code/$c)" 7)" "$c /target" "$c returned with Location"
done

# Status codes and Retry-After (doc/CRAWL.md step 4; case 7).
tap_is "$(col "$(u s1 /status/404)" 2) $(col "$(u s1 /status/404)" 3)" "404 none" "404 is a response, not an error"
tap_is "$(col "$(u s2 /status/410)" 2)" 410 "410"
tap_is "$(col "$(u s3 /status/500)" 2)" 500 "500"
tap_is "$(col "$(u s4 /status/429)" 2) $(col "$(u s4 /status/429)" 8)" "429 2" "429 with Retry-After: 2"
tap_is "$(col "$(u s5 /status/503?ra=7)" 8)" 7 "503 with Retry-After delta-seconds"
tap_ok "$(between "$(col "$(u s6 /retry-after/date/100)" 8)" 95 101)" \
	"Retry-After as HTTP-date: $(col "$(u s6 /retry-after/date/100)" 8) s"
tap_is "$(col "$(u s7 /status/503?ra=soon)" 8)" -1 "garbage Retry-After is absent"

# Conditional GET (case 13).
tap_is "$(col "$(u c1 /lastmod)" 2)" 304 "If-Modified-Since -> 304"
tap_is "$(col "$(u c2 /lastmod)" 2) $(col "$(u c2 /lastmod)" 4)" "304 0" "If-None-Match -> 304, no body"
tap_is "$(col "$(u c3 /lastmod)" 2)" 200 "other ETag -> 200"
tap_is "$(col "$(u c4 /lastmod)" 2)" 200 "older If-Modified-Since -> 200"
tap_is "$(col "$(u h1 /lastmod)" 2) $(col "$(u h1 /lastmod)" 4)" "200 0" "HEAD: status, no body"
tap_is "$(col "$(u h1 /lastmod)" 6)" "text/html; charset=utf-8" "HEAD: Content-Type with charset"

# Byte caps with and without Content-Length (cases 1 and 3).
for v in "b1 /big/3000000" "b2 /big/3000000?chunked=1" "b3 /big/3000000?close=1"; do
	set -- $v
	tap_is "$(col "$(u $1 $2)" 2) $(col "$(u $1 $2)" 3) $(col "$(u $1 $2)" 4) $(col "$(u $1 $2)" 5)" \
		"200 too_big 100000 1" "$2: truncated at the cap, prefix kept"
done
tap_is "$(col "$(u b4 /big/100000)" 3) $(col "$(u b4 /big/100000)" 4) $(col "$(u b4 /big/100000)" 5)" \
	"none 100000 0" "a page of exactly the cap is not truncated"
tap_is "$(col "$(u b5 /big/50000)" 3) $(col "$(u b5 /big/50000)" 4)" "none 50000" "a small page is complete"
tap_is "$(col "$(u e1 /endless)" 3) $(col "$(u e1 /endless)" 4) $(col "$(u e1 /endless)" 5)" \
	"too_big 200000 1" "endless body: truncated at the cap"

# Compression and broken replies.
tap_ok "$(test "$(col "$(u z1 /gzip/small)" 3)" = none &&
	test "$(col "$(u z1 /gzip/small)" 4)" -gt "$(col "$(u z1 /gzip/small)" 13)" && echo 1)" \
	"gzip page decoded ($(col "$(u z1 /gzip/small)" 13) -> $(col "$(u z1 /gzip/small)" 4) bytes)"
tap_is "$(col "$(u z2 /bad-gzip)" 3)" protocol "bad gzip: protocol error"
tap_is "$(col "$(u p1 /headers/huge)" 3)" protocol "100 kB of headers: protocol error"
tap_ok "$(col "$(u p1 /headers/huge)" 10 | grep -q 'headers larger' && echo 1)" \
	"huge headers reason: $(col "$(u p1 /headers/huge)" 10)"
tap_is "$(col "$(u p2 /no-status)" 2) $(col "$(u p2 /no-status)" 3)" "0 protocol" "no status line (HTTP/0.9): refused"
tap_is "$(col "$(u p3 /close-early)" 3)" protocol "connection closed before Content-Length: protocol"
tap_is "$(col "$(u p4 /headers/longline)" 2) $(col "$(u p4 /headers/longline)" 3)" "200 none" "one 20 kB header line is tolerated"

# Not fetched at all: other schemes, unresolvable and refusing hosts.
tap_is "$(col "ftp://127.0.0.1:$P/file.txt" 3)" url "ftp:// refused"
tap_ok "$(col "ftp://127.0.0.1:$P/file.txt" 10 | grep -q "scheme 'ftp'" && echo 1)" \
	"ftp reason: $(col "ftp://127.0.0.1:$P/file.txt" 10)"
tap_is "$(col mailto:someone@example.com 3)" url "mailto: refused"
tap_is "$(col 'javascript:alert(1)' 3)" url "javascript: refused"
tap_is "$(col http://no-such-host.invalid/ 2) $(col http://no-such-host.invalid/ 3)" "0 dns" "unresolvable host: dns"
tap_is "$(col http://127.0.0.1:1/ 2) $(col http://127.0.0.1:1/ 3)" "0 connect" "refused port: connect"

# ---- 2. slow, silent, endless-slow: timeouts in parallel (cases 3, 4)
fetch <<EOF
$(u t1 /slow) timeout=2
$(u t2 /silent) timeout=2
$(u t3 /slow/headers) timeout=2
$(u t4 /trickle?bps=400) timeout=1
EOF
tap_ok "$(between "$elapsed" 1.5 8)" "four hung servers end together in ${elapsed} s"
for v in "t1 /slow" "t2 /silent" "t3 /slow/headers"; do
	set -- $v
	tap_is "$(col "$(u $1 $2)" 3)" timeout "$2: timeout class"
	tap_ok "$(between "$(col "$(u $1 $2)" 9)" 1800 3500)" "$2: ended by the 2 s low-speed window ($(col "$(u $1 $2)" 9) ms)"
done
tap_is "$(col "$(u t4 /trickle?bps=400)" 3)" timeout "trickle above the low-speed limit: timeout"
tap_ok "$(between "$(col "$(u t4 /trickle?bps=400)" 9)" 2800 4000)" \
	"trickle: ended by the total cap 3 x 1 s ($(col "$(u t4 /trickle?bps=400)" 9) ms)"

# ---- 3. decompression bombs: cap on decoded bytes, bounded memory (case 2)
cap=20000000
echo "$(u g1 /gzip-bomb) maxsize=$cap" >"$tmp/in"
if [ -x /usr/bin/time ]; then
	/usr/bin/time -f %M -o "$tmp/rss" "$tool" <"$tmp/in" >"$tmp/out" 2>"$tmp/err" ||
		echo "gzip bomb run failed: $(head -c 300 "$tmp/err")" >>"$tmp/failed"
	rss_kb=$(tail -n 1 "$tmp/rss")
else
	# No time(1): sample VmHWM from /proc while it runs.
	"$tool" <"$tmp/in" >"$tmp/out" 2>"$tmp/err" &
	tpid=$!
	rss_kb=0
	while kill -0 "$tpid" 2>/dev/null; do
		v=$(awk '/VmHWM/ { print $2 }' "/proc/$tpid/status" 2>/dev/null)
		[ -n "$v" ] && rss_kb=$v
		sleep 0.05
	done
	wait "$tpid"
fi
tap_is "$(col "$(u g1 /gzip-bomb)" 3) $(col "$(u g1 /gzip-bomb)" 4) $(col "$(u g1 /gzip-bomb)" 5)" \
	"too_big $cap 1" "gzip bomb (10 GiB decoded): stopped at exactly the cap"
# 3 x cap + 50 MB; ASan adds shadow memory and a quarantine of freed
# buffers, so a sanitizer build gets 100 MB more.
slack=50
grep -aq __asan_init "$tool" && slack=150
limit_kb=$(( (3 * cap + slack * 1024 * 1024) / 1024 ))
tap_ok "$(test "${rss_kb:-0}" -gt 0 && test "$rss_kb" -lt "$limit_kb" && echo 1)" \
	"gzip bomb: max RSS ${rss_kb} kB < ${limit_kb} kB"
fetch <<EOF
$(u g2 /deflate-bomb) maxsize=5000000
$(u g3 /deflate-raw-bomb) maxsize=5000000
EOF
tap_is "$(col "$(u g2 /deflate-bomb)" 3) $(col "$(u g2 /deflate-bomb)" 4)" "too_big 5000000" "deflate (zlib) bomb stopped at the cap"
tap_is "$(col "$(u g3 /deflate-raw-bomb)" 3) $(col "$(u g3 /deflate-raw-bomb)" 4)" "too_big 5000000" "raw deflate bomb stopped at the cap"
# zstd, which libcurl also asks for (Accept-Encoding: every coding it has);
# brotli has no encoder on this image, so no brotli bomb: libcurl decodes
# both through the same write callback that counts the cap.
if command -v zstd >/dev/null; then
	fetch <<EOF
$(u g4 /zstd-bomb) maxsize=5000000
EOF
	tap_is "$(col "$(u g4 /zstd-bomb)" 3) $(col "$(u g4 /zstd-bomb)" 4)" "too_big 5000000" "zstd bomb (256 MiB decoded) stopped at the cap"
else
	tap_skip 1 "no zstd program to make a zstd bomb"
fi

# ---- 4. politeness: one host serialised with MinDelay, two hosts in parallel
: >"$tmp/log"
{
	for i in 1 2 3 4 5 6; do echo "$(u polite /site/p$i.html) mindelay=0.3"; done
	echo "$(u par1 /sleep/1)"
	echo "$(u par2 /sleep/1)"
} | fetch
sleep 0.2   # the server writes its log line after the last byte
polite=$(awk -F'\t' -v h="polite.localhost:$P" '$4 == h' "$tmp/log" | sort -t"$(printf '\t')" -k1,1n)
tap_is "$(echo "$polite" | grep -c .)" 6 "six requests reached the polite host"
gaps=$(echo "$polite" | awk -F'\t' 'NR > 1 { printf "%.3f ", $1 - end } { end = $2 }')
tap_ok "$(echo "$gaps" | awk '{ for (i = 1; i <= NF; i++) if ($i < 0.299) bad = 1 } END { if (!bad && NF == 5) print 1 }')" \
	"one host: no overlap, gaps >= MinDelay 0.3 s (gaps: $gaps)"
tap_is "$(awk -F'\t' -v p="http://polite.localhost:$P/" 'index($1, p) == 1 { s += $11 } END { print s + 0 }' "$tmp/out")" 5 \
	"one host: the keep-alive connection is reused"
par=$(awk -F'\t' -v a="par1.localhost:$P" -v b="par2.localhost:$P" '
	$4 == a { s1 = $1; e1 = $2 } $4 == b { s2 = $1; e2 = $2 }
	END { if (s1 && s2 && s1 < e2 && s2 < e1) print 1 }' "$tmp/log")
tap_ok "$par" "two hosts are fetched in parallel (overlapping in the server log)"

# ---- 5. Retry-After pushes the host's clock; far pauses defer the queue
: >"$tmp/log"
fetch <<EOF
$(u ra /status/429?ra=1)
$(u ra /target)
$(u df /status/503?ra=3600)
$(u df /target)
EOF
sleep 0.2
gap=$(awk -F'\t' -v h="ra.localhost:$P" '$4 == h && $6 ~ /status/ { e = $2 } $4 == h && $6 == "/target" { s = $1 } END { if (e && s) printf "%.3f", s - e }' "$tmp/log")
tap_ok "$(between "$gap" 0.999 3)" "429 Retry-After: 1 delays the host's next request (${gap} s)"
tap_is "$(col "$(u df /target)" 3)" deferred "503 Retry-After: 3600 defers the host's queue"
tap_ok "$(between "$elapsed" 0 5)" "deferring does not wait (${elapsed} s)"

# ---- 6. the global cap on concurrent transfers
: >"$tmp/log"
fetch -n 2 <<EOF
$(u cap1 /sleep/0.5)
$(u cap2 /sleep/0.5)
$(u cap3 /sleep/0.5)
$(u cap4 /sleep/0.5)
EOF
sleep 0.2
# The server logs a request's end after its response went out: the
# client may start the next one first.  A real third transfer would
# overlap by ~0.5 s; 50 ms of slack keeps that race (seen under the
# sanitizers) from counting.
maxpar=$(awk -F'\t' '$4 ~ /^cap[0-9]/ { print $1, 1; printf "%.6f -1\n", $2 - 0.05 }' "$tmp/log" | sort -n -k1,1 -k2,2n |
	awk '{ n += $2; if (n > m) m = n } END { print m + 0 }')
tap_is "$maxpar" 2 "-n 2: at most two transfers at once"
tap_ok "$(between "$elapsed" 0.95 5)" "-n 2: four 0.5 s pages take two rounds (${elapsed} s)"

# ---- 7. cancellation (the SIGTERM path): in-flight and queued come back aborted
fetch -a 1 <<EOF
$(u ab /silent) timeout=30
$(u ab /target)
EOF
tap_is "$(col "$(u ab /silent)" 3) $(col "$(u ab /target)" 3)" "aborted aborted" "cancel_all returns in-flight and queued requests as aborted"
tap_ok "$(between "$elapsed" 0.9 4)" "cancel_all is prompt (${elapsed} s)"

tap_ok "$(kill -0 "$spid" 2>/dev/null && echo 1)" "hostile.py survived everything"
tap_is "$(cat "$tmp/failed" 2>/dev/null)" "" "every fetch-tool run exited 0 (no sanitizer report)"
tap_done
