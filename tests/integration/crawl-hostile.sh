#!/bin/bash
# crawl-hostile.sh - mpseek-index crawls tests/servers/hostile.py: one run
# over 31 sites (virtual hosts NAME.localhost of one server process, each a
# Server of its own), one case each (doc/HOSTILE-INPUT.md cases 1-7, 11-13):
# oversize bodies with and without Content-Length, endless bodies, gzip and
# deflate bombs (bounded RSS), slow, silent and trickling servers, DNS and
# connect failures, redirect chains, loops and odd Locations, 404/410/500
# with DeleteBad yes and no, 429/503 with Retry-After, robots.txt variants,
# Crawl-delay, spider traps, five copies of one page; then a recrawl of the
# conditional-GET site.  hostile.py's request log is the oracle for what was
# fetched and when.
#
# Where the crawler does not (yet) do what the contract says, the point is
# listed in TODO below with the evidence, so that the gap stays visible.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
[ -x "$idx" ] || tap_skip_all "$idx not built"
"$idx" --help 2>&1 | grep -qE '^ +-n ' || tap_skip_all "mpseek-index does not crawl yet (no -n option)"
command -v python3 >/dev/null 2>&1 || tap_skip_all "python3 not found"

# Known gaps of the crawler: test name -> reason (the evidence is in the
# report of the crawl tests; each TODO shows as "not ok ... # TODO").
declare -A TODO=(
)

T=$(tmp_dir)
hostile_start
P=$HOSTILE_PORT
tap_ok "$P" "hostile.py listens (port $P)"
u() { echo "http://$1.localhost:$P$2"; }

MAXDOC=100000
TRAPHOPS=10
robots_variants="404 403 500 timeout redirect big bom crlf garbage delay-0.2 disallow-all agents"
mdb_start
conf=$T/mpseek.conf
{
	for h in redirects statuses-keep big bombs slow-body slow-headers trickle silent dups cond; do
		echo "Server $(u $h /)"
	done
	echo "Server $(u busy429 /)"
	echo "Server $(u busy429 /site/)"
	echo "Server $(u busy503 /)"
	echo "Server $(u busy503 /site/)"
	echo "DeleteBad yes"
	echo "Server $(u statuses /)"
	echo "DeleteBad no"
	echo "MaxHops 1"
	for v in $robots_variants; do echo "Server $(u robots-$v /)"; done
	echo "MaxHops $TRAPHOPS"
	for h in traps-cal traps-calendar traps-loop traps-soft404; do echo "Server $(u $h /)"; done
	echo "Robots no"
	echo "Server http://no-such-host.invalid/"
	echo "Server http://127.0.0.1:1/"
} >"$T/servers"
mapfile -t servers <"$T/servers"
write_conf "$conf" hostile "MinDelay 0" "ReadTimeOut 3" "MaxDocSize $MAXDOC" "RedirectLoopLimit 5" \
	"Robots yes" "FollowOutside no" "${servers[@]}"
SQL() { mdb_sql "$1" hostile; }

# ---- the crawl: bounded time and memory
asan=0
grep -aq __asan_init "$idx" && asan=1
n0=$(wc -l <"$HOSTILE_LOG")
t0=$(date +%s.%N)
if [ -x /usr/bin/time ]; then
	mpi_no_leak_check timeout 300 /usr/bin/time -f %M -o "$T/rss" "$idx" "$conf" >"$T/run1.out" 2>"$T/run1.log"
	rc=$?
	rss_kb=$(tail -n 1 "$T/rss")
else
	mpi_no_leak_check timeout 300 "$idx" "$conf" >"$T/run1.out" 2>"$T/run1.log"
	rc=$?
	rss_kb=
fi
elapsed=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
sleep 0.3   # hostile.py logs a request when its response ends
tail -n +"$((n0 + 1))" "$HOSTILE_LOG" >"$T/run1.req"
tap_is "$rc" 0 "crawl of the hostile sites: exit 0"
[ "$rc" = 0 ] || tail -20 "$T/run1.log" | sed 's/^/#   /'
tap_ok "$(num_below "$elapsed" 60)" "the crawl ends within 60 s (${elapsed} s)"
limit_mb=$((asan ? 800 : 300))
if [ -n "$rss_kb" ]; then
	tap_ok "$(num_below "$rss_kb" $((limit_mb * 1024)))" "max RSS ${rss_kb} kB < $limit_mb MB (10 GiB gzip and deflate bombs, MaxDocSize $MAXDOC)"
else
	tap_skip 1 "no /usr/bin/time"
fi
tap_ok "$(num_below "$(wc -l <"$T/run1.req")" 400)" "bounded: $(wc -l <"$T/run1.req") requests in all"
tap_ok "$(num_below "$(SQL 'SELECT COUNT(*) FROM urlword')" 400)" "bounded: $(SQL 'SELECT COUNT(*) FROM urlword') URLs known"

SQL 'SELECT url_id, url, status, deleted, redir, origin, crc, index_status,
	next_index_time > UNIX_TIMESTAMP(), next_index_time > UNIX_TIMESTAMP() + 3000, hops FROM urlword' >"$T/urlword.tsv"
uw_union=$(for i in $(seq 0 15); do printf 'SELECT url_id, deleted, title, txt, docsize, content_type FROM urlwords%02d UNION ALL ' "$i"; done)
SQL "${uw_union% UNION ALL }" >"$T/urlwords.tsv"
# f URL FIELD: a field of the URL's urlword row (1 url_id, 3 status,
# 4 deleted, 5 redir, 6 origin, 7 crc, 8 index_status, 9 due later,
# 10 due in more than 3000 s, 11 hops); empty when there is no row.
f() { awk -F'\t' -v u="$1" -v n="$2" '$2 == u { print $n; exit }' "$T/urlword.tsv"; }
# st URL: "status deleted" of the URL, or "none".
st() { local s; s=$(f "$1" 3); [ -n "$s" ] && echo "$s $(f "$1" 4)" || echo none; }
# doc URL FIELD: a field of the URL's urlwordsNN row (2 deleted, 3 title,
# 4 txt, 5 docsize, 6 content_type).
doc() { local id; id=$(f "$1" 1); [ -n "$id" ] && awk -F'\t' -v id="$id" -v n="$2" '$1 == id { print $n; exit }' "$T/urlwords.tsv"; }
# req HOST PATH [FILE]: requests for PATH on virtual host HOST.
req() { awk -F'\t' -v h="$1.localhost:$P" -v p="$2" '$4 == h && $6 == p { n++ } END { print n + 0 }' "${3:-$T/run1.req}"; }
# reqs HOST [FILE]: all requests to HOST.
reqs() { awk -F'\t' -v h="$1.localhost:$P" '$4 == h { n++ } END { print n + 0 }' "${2:-$T/run1.req}"; }
# logged URL WORD: non-empty when a log line names URL and contains WORD.
logged() { log_mentions "$T/run1.log" "$1" | grep -qiE -- "$2" && echo 1; }
# check NAME GOT WANT: tap_is with the TODO of NAME.
check() { tap_is_todo "${TODO[$1]:-}" "$2" "$3" "$1"; }
checkok() { tap_ok_todo "${TODO[$1]:-}" "$2" "$1"; }

# ---- general
check "no claim is left behind" "$(SQL 'SELECT COUNT(*) FROM urlword WHERE index_status = 2 OR claim_rank <> -1 OR lease_until <> 0')" 0
check "no URL of another scheme is stored" "$(SQL "SELECT url FROM urlword WHERE url NOT LIKE 'http://%' AND url NOT LIKE 'https://%'")" ""
# One connection per host: requests to one host never overlap.
overlap=$(sort -t"$(printf '\t')" -k4,4 -k1,1n "$T/run1.req" |
	awk -F'\t' '$4 == h && $1 < e - 0.0005 { print $4, $6 } { if ($4 != h) e = 0; h = $4; if ($2 > e) e = $2 }')
check "requests to one host never overlap" "$overlap" ""
missing=$(awk -F'\t' '$3 >= 100 && $3 < 600 { print $2 "\t" $3 }' "$T/urlword.tsv" | while IFS=$'\t' read -r url s; do
	log_mentions "$T/run1.log" "$url" | grep -qE "(^|[^0-9])$s([^0-9]|$)" || echo "$url $s"; done)
check "a log line with the URL and the status for every response" "$missing" ""

# ---- case 1: oversize bodies, endless body (MaxDocSize 100000)
for p in /big/300000 '/big/300000?close=1' '/big/300000?chunked=1' /endless; do
	url=$(u big "$p")
	check "$p: stored with status 200" "$(st "$url")" "200 0"
	checkok "$p: a 'truncated' log line" "$(logged "$url" truncated)"
	case $p in
	/endless) word=endless ;;
	*) word="big page line" ;;
	esac
	check "$p: its prefix is indexed" "$(doc "$url" 4 | grep -c "$word")" 1
	checkok "$p: docsize $(doc "$url" 5) <= MaxDocSize" "$(num_below "$(doc "$url" 5)" $((MAXDOC + 1)))"
	check "$p: requested once" "$(req big "$p")" 1
done
check "/big/100000 (exactly MaxDocSize): 200, not truncated" \
	"$(st "$(u big /big/100000)") $(logged "$(u big /big/100000)" truncated)" "200 0 "
check "the site goes on after the big pages: /target 200" "$(st "$(u big /target)")" "200 0"

# ---- case 2: decompression bombs
for p in /gzip-bomb /deflate-bomb; do
	url=$(u bombs "$p")
	check "$p (10 GiB decoded): stored with status 200" "$(st "$url")" "200 0"
	checkok "$p: stopped at MaxDocSize, a 'truncated' log line" "$(logged "$url" truncated)"
	checkok "$p: docsize $(doc "$url" 5) <= MaxDocSize" "$(num_below "$(doc "$url" 5)" $((MAXDOC + 1)))"
	check "$p: requested once" "$(req bombs "$p")" 1
done
check "/gzip/small: decoded and indexed" "$(st "$(u bombs /gzip/small)") $(doc "$(u bombs /gzip/small)" 4 | grep -c 'compressed hello')" "200 0 1"

# ---- cases 3, 4: slow, silent, trickling, unresolvable, refused (ReadTimeOut 3)
for v in "slow-body /slow" "slow-headers /slow/headers" "trickle /trickle?bps=400" "silent /silent?s=120"; do
	set -- $v
	url=$(u "$1" "$2")
	check "$2: timeout (612), kept, retried later" "$(st "$url") $(f "$url" 9)" "612 0 1"
	check "$2: requested once" "$(req "$1" "$2")" 1
done
check "unresolvable host: 610" "$(st http://no-such-host.invalid/)" "610 0"
check "refused port: 611" "$(st http://127.0.0.1:1/)" "611 0"
# The hung servers were given up in parallel, not one after another.
tr_end=$(awk -F'\t' -v h="trickle.localhost:$P" '$4 == h && $6 ~ /^\/trickle/ { print $2 - $1 }' "$T/run1.req")
checkok "the trickle is ended by the total time cap ($tr_end s)" "$(num_below "$tr_end" 15)"

# ---- case 5: redirects (RedirectLoopLimit 5)
R() { u redirects "$1"; }
id() { f "$(R "$1")" 1; }
check "chain of 3: 302s with redir, end 200" \
	"$(st "$(R /redirect/chain/3)") $(f "$(R /redirect/chain/3)" 5) $(st "$(R /redirect/chain/1)") $(f "$(R /redirect/chain/1)" 5) $(st "$(R /redirect/chain/0)")" \
	"302 0 $(id /redirect/chain/2) 302 0 $(id /redirect/chain/0) 200 0"
long=$(awk -F'\t' -v h="redirects.localhost:$P" '$4 == h && $6 ~ /^\/redirect\/chain\/[0-9]+$/ { split($6, a, "/"); if (a[4] >= 4) n++ } END { print n + 0 }' "$T/run1.req")
tap_ok "$([ "$long" -ge 5 ] && [ "$long" -le 7 ] && echo 1)" "chain of 30: stopped after RedirectLoopLimit 5 ($long requests)"
check "chain of 30: one URL marked 604, deleted" \
	"$(awk -F'\t' -v p="$(R /redirect/chain/)" 'index($2, p) == 1 && $3 == 604 { print $3, $4 }' "$T/urlword.tsv")" "604 1"
check "chain of 30: nothing past the limit is stored" \
	"$(awk -F'\t' -v p="$(R /redirect/chain/)" 'index($2, p) == 1 { split($2, a, "/"); if (a[6] >= 4 && a[6] <= 22) print $2 }' "$T/urlword.tsv")" ""
check "loop A-B-A: each requested once" "$(req redirects /redirect/loop) $(req redirects /redirect/loop-b)" "1 1"
check "loop A-B-A: A redirects to B" "$(f "$(R /redirect/loop)" 3) $(f "$(R /redirect/loop)" 5)" "302 $(id /redirect/loop-b)"
checkok "loop A-B-A: B is 302 (to A) or 604 ($(st "$(R /redirect/loop-b)"))" \
	"$(case "$(f "$(R /redirect/loop-b)" 3) $(f "$(R /redirect/loop-b)" 5)" in "302 $(id /redirect/loop)"|"604 "*) echo 1 ;; esac)"
check "redirect to itself: 604, deleted, requested once" "$(st "$(R /redirect/self)") $(req redirects /redirect/self)" "604 1 1"
check "relative Location resolved against the redirecting URL" \
	"$(f "$(R /redirect/relative)" 5) $(st "$(R '/target?from=relative')")" "$(id '/target?from=relative') 200 0"
checkok "empty Location: requested once, 302 or 604, no redir elsewhere ($(st "$(R /redirect/empty)") redir $(f "$(R /redirect/empty)" 5))" \
	"$([ "$(req redirects /redirect/empty)" = 1 ] && case "$(f "$(R /redirect/empty)" 3)" in 302|604) echo 1 ;; esac)"
for p in /redirect/file /redirect/ftp; do
	checkok "$p: refused (302 without target or 603: $(st "$(R $p)") redir $(f "$(R $p)" 5))" \
		"$(case "$(f "$(R $p)" 3) $(f "$(R $p)" 5)" in "302 0"|"603 "*) echo 1 ;; esac)"
done
check "redirect to a robots-disallowed path: target 600 deleted, never requested" \
	"$(f "$(R /redirect/disallowed)" 5) $(st "$(R /private/secret.html)") $(req redirects /private/secret.html)" \
	"$(id /private/secret.html) 600 1 0"
check "301 to /target" "$(f "$(R /redirect/code/301)" 3) $(f "$(R /redirect/code/301)" 5) $(st "$(R /target)")" "301 $(id /target) 200 0"
check "META refresh: redir to /target" "$(f "$(R /meta-refresh)" 5)" "$(id /target)"
check "JavaScript location: redir to /target" "$(f "$(R /js-redirect)" 5)" "$(id /target)"
check "/target is fetched once although four redirects lead to it" "$(req redirects /target)" 1

# ---- statuses, DeleteBad yes and no
check "DeleteBad yes: 404 and 410 deleted" "$(st "$(u statuses /status/404)"), $(st "$(u statuses /status/410)")" "404 1, 410 1"
check "DeleteBad no: 404 and 410 kept" "$(st "$(u statuses-keep /status/404)"), $(st "$(u statuses-keep /status/410)")" "404 0, 410 0"
check "500 is stored as 500" "$(f "$(u statuses /status/500)" 3)" 500
check "statuses: /target 200" "$(st "$(u statuses /target)")" "200 0"

# ---- case 7: 429 and 503 with Retry-After pause the host; the rest waits
for h in busy429 busy503; do
	code=${h#busy}
	check "$h: / is $code, kept, due again only after Retry-After (1 h)" \
		"$(st "$(u $h /)") $(f "$(u $h /)" 10)" "$code 0 1"
	t=$(awk -F'\t' -v h="$h.localhost:$P" '$4 == h && $6 == "/" { print $2 }' "$T/run1.req")
	check "$h: nothing is requested from the host after the $code" \
		"$(awk -F'\t' -v h="$h.localhost:$P" -v t="${t:-0}" '$4 == h && $1 > t { print $6 }' "$T/run1.req")" ""
	check "$h: the URLs of the host not fetched are deferred (614), due after the pause" \
		"$(awk -F'\t' -v p="$(u $h /)" 'index($2, p) == 1 && ($3 == 0 || $3 == 614) { print ($3 == 614 && $10 == 1) ? "614 later" : $3 " " $10 }' "$T/urlword.tsv" | sort | uniq -c | awk '{ print $2, $3, ($1 > 0) }')" \
		"614 later 1"
done

# ---- case 6: robots.txt variants (MaxHops 1: the probe page and its links)
# rv VARIANT PATH: "status deleted" of PATH on robots-VARIANT.
rv() { st "$(u "robots-$1" "$2")"; }
check "robots 404: everything allowed" "$(rv 404 /private/p.html), $(rv 404 /site/p1.html)" "200 0, 200 0"
check "robots 403: everything allowed (RFC 9309)" "$(rv 403 /private/p.html)" "200 0"
for v in 500 timeout; do
	check "robots $v: the site is unavailable (615), retried later, only robots.txt requested" \
		"$(rv $v /) $(f "$(u robots-$v /)" 9) $(reqs robots-$v)" "615 0 1 1"
done
check "robots 301 x6: at most 5 redirects followed, then unavailable = allow all" \
	"$(req robots-redirect /robots/hop/0) $(rv redirect /private/p.html)" "0 200 0"
checkok "robots 301 x6: at most 6 requests for robots.txt ($(awk -F'\t' -v h="robots-redirect.localhost:$P" '$4 == h && $6 ~ /^\/robots/' "$T/run1.req" | wc -l))" \
	"$(num_below "$(awk -F'\t' -v h="robots-redirect.localhost:$P" '$4 == h && $6 ~ /^\/robots/' "$T/run1.req" | wc -l)" 7)"
check "robots 600 KiB: rules in the first 500 KiB apply, later ones do not" \
	"$(rv big /junk000001/p.html), $(rv big /after-500k/p.html)" "600 1, 200 0"
for v in bom crlf garbage delay-0.2; do
	check "robots $v: /private/ disallowed, the rest allowed" "$(rv $v /private/p.html), $(rv $v /site/p1.html)" "600 1, 200 0"
done
check "robots disallow-all: / is 600, only robots.txt requested" "$(rv disallow-all /) $(reqs robots-disallow-all)" "600 1 1"
check "robots agents: the mpseek group applies" \
	"$(rv agents /not-for-mpseek/p.html), $(rv agents /site/p1.html), $(rv agents /private/p.html)" "600 1, 200 0, 200 0"
check "disallowed paths are never requested" \
	"$(awk -F'\t' '{ split($4, a, "."); v = a[1] }
		v ~ /^robots-(bom|crlf|garbage)$/ && $6 ~ /^\/private\// { print $4 $6 }
		$4 ~ /^robots-delay-0\.2\./ && $6 ~ /^\/private\// { print $4 $6 }
		v == "robots-big" && $6 ~ /^\/junk/ { print $4 $6 }
		v == "robots-agents" && $6 ~ /^\/not-for-mpseek\// { print $4 $6 }
		v ~ /^robots-(500|timeout|disallow-all)$/ && $6 != "/robots.txt" { print $4 $6 }' "$T/run1.req")" ""
# Start to start: the server's end-of-response time can trail the moment the
# client saw the response complete (the fetcher's clock starts there), by
# 20 ms on a loaded machine; starts are ordered by the client alone.
gaps=$(awk -F'\t' -v h="robots-delay-0.2.localhost:$P" '$4 == h' "$T/run1.req" | sort -t"$(printf '\t')" -k1,1n |
	awk -F'\t' 'NR > 1 { printf "%.2f ", $1 - s } { s = $1 }')
checkok "Crawl-delay 0.2: gaps between requests >= 0.2 s ($gaps)" \
	"$(echo "$gaps" | awk '{ for (i = 1; i <= NF; i++) if ($i < 0.195) bad = 1 } END { if (!bad && NF >= 3) print 1 }')"

# ---- case 11: spider traps (MaxHops 10)
n=$(awk -F'\t' -v h="traps-cal.localhost:$P" '$4 == h && $6 ~ /^\/cal/' "$T/run1.req" | wc -l)
checkok "calendar ?y=N+1: stopped by MaxHops ($n fetches)" "$([ "$n" -ge $((TRAPHOPS - 1)) ] && [ "$n" -le $((TRAPHOPS + 1)) ] && echo 1)"
n=$(awk -F'\t' -v h="traps-calendar.localhost:$P" '$4 == h && $6 ~ /^\/calendar/' "$T/run1.req" | wc -l)
checkok "calendar months both ways: stopped by MaxHops ($n fetches)" "$([ "$n" -ge $((2 * TRAPHOPS - 2)) ] && [ "$n" -le $((2 * TRAPHOPS + 1)) ] && echo 1)"
n=$(awk -F'\t' -v h="traps-loop.localhost:$P" '$4 == h && $6 ~ /^\/loop/' "$T/run1.req" | wc -l)
checkok "self-appending relative link: stopped by the repeat rule ($n fetches)" "$([ "$n" -ge 1 ] && [ "$n" -le 3 ] && echo 1)"
check "self-appending relative link: /loop/a/a/a/ is not fetched (602 or not stored)" \
	"$(case "$(st "$(u traps-loop /loop/a/a/a/)")" in none|"602 1") echo ok ;; *) st "$(u traps-loop /loop/a/a/a/)" ;; esac) $(req traps-loop /loop/a/a/a/)" "ok 0"
n=$(awk -F'\t' -v h="traps-soft404.localhost:$P" '$4 == h && $6 ~ /^\/soft404/' "$T/run1.req" | wc -l)
checkok "soft-404 site: stopped by MaxHops ($n fetches)" "$([ "$n" -ge $((TRAPHOPS - 1)) ] && [ "$n" -le $((TRAPHOPS + 1)) ] && echo 1)"

# ---- case 12: the same page under five URLs
origins=$(for x in a b c d e; do f "$(u dups /dup/$x)" 6; done | sort | tr -d '\n')
crcs=$(for x in a b c d e; do f "$(u dups /dup/$x)" 7; done | sort -u | grep -c .)
check "five copies: one origin, four clones, one MD5, all 200" \
	"$origins $crcs $(for x in a b c d e; do f "$(u dups /dup/$x)" 3; done | sort -u | tr -d '\n')" "00001 1 200"

# ---- case 13: conditional GET on the recrawl of one site
for p in /lastmod /lastmod/weak /lastmod/future /etag/changing; do
	check "$p: 200 on the first crawl" "$(st "$(u cond "$p")")" "200 0"
done
count_before=$(SQL 'SELECT COUNT(*) FROM urlword')
SQL "UPDATE urlword SET next_index_time = 0 WHERE url LIKE 'http://cond.localhost:%'"
n0=$(wc -l <"$HOSTILE_LOG")
mpi_no_leak_check timeout 120 "$idx" -q "$conf" >"$T/run2.out" 2>"$T/run2.log"
rc=$?
sleep 0.3
tail -n +"$((n0 + 1))" "$HOSTILE_LOG" >"$T/run2.req"
tap_is "$rc" 0 "recrawl of the conditional-GET site: exit 0"
check "recrawl: only the due site is requested" "$(awk -F'\t' -v h="cond.localhost:$P" '$4 != h { print $4 $6 }' "$T/run2.req")" ""
check "recrawl: If-None-Match/If-Modified-Since give 304 for /lastmod and /lastmod/weak" \
	"$(awk -F'\t' '$6 == "/lastmod" || $6 == "/lastmod/weak" { print $6, $7 }' "$T/run2.req" | sort | tr '\n' ' ')" "/lastmod 304 /lastmod/weak 304 "
missing=$(for p in / /lastmod /lastmod/weak /lastmod/future /etag/changing; do
	log_mentions "$T/run2.log" "$(u cond "$p")" | grep -qiE 'not modified|unchanged' || echo "$p"; done)
check "recrawl: every page is 'not modified' or 'unchanged' (no re-parse)" "$missing" ""
check "recrawl: /etag/changing (new ETag, same bytes) is 'unchanged'" \
	"$(log_mentions "$T/run2.log" "$(u cond /etag/changing)" | grep -ci unchanged)" 1
check "recrawl: no row is added" "$(SQL 'SELECT COUNT(*) FROM urlword')" "$count_before"

tap_ok "$(kill -0 "$_hostile_pid" 2>/dev/null && echo 1)" "hostile.py survived the crawl"
# CRAWL_TEST_KEEP=DIR keeps the logs, the request log and the table dumps.
[ -n "${CRAWL_TEST_KEEP:-}" ] && { mkdir -p "$CRAWL_TEST_KEEP"; cp -R "$T"/* "$HOSTILE_LOG" "$CRAWL_TEST_KEEP"/; }
tap_done
