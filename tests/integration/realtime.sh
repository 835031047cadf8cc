#!/bin/bash
# realtime.sh - real-time indexing (mpseek-index -T; doc/MERGE.md,
# "Real-time indexing") against a crawl of tests/data/web/site with searchd
# running: a page added to the docroot is found within a second of -T, with
# no merge; after the next merge (-D) it is found once, and the real-time
# index is gone; a page deleted upstream and given to -T leaves the answers
# within a second; a URL robots.txt disallows is refused with a message; a
# URL outside every Server is refused; -T beside a running crawl works, and
# the crawl's own merge folds its page in.  With CommonWords, a phrase of
# them in the new page is found before the merge (its document has no
# pairs; with a real-time index queries take the exhaustive path) and
# after it, when the merge has posted the page's pairs.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
sd="$builddir/searchd"
cli="$builddir/mpseek-search"
for p in "$idx" "$sd" "$cli"; do
	[ -x "$p" ] || tap_skip_all "$p not built"
done
[ -x "$NGINX" ] || tap_skip_all "nginx not found (Debian package nginx)"

T=$(tmp_dir)
test_web_start "$T/site"
mdb_start
conf=$T/mpseek.conf
write_conf "$conf" site "MinDelay 0" "ReadTimeOut 5" "MaxHops 6" "Robots yes" "Server $WEB_URL" \
	"CommonWords a of its own word this page has"
dd=$MDB_DIR/data-site

# run NAME [options]: mpseek-index on the config; stdout in $T/NAME.out,
# the log in $T/NAME.log, status in $rc.
run() {
	local name=$1
	shift
	mpi_no_leak_check timeout 300 "$idx" "$@" "$conf" >"$T/$name.out" 2>"$T/$name.log" </dev/null
	rc=$?
	[ "$rc" = 0 ] || tail -5 "$T/$name.log" | sed 's/^/# /'
}
# urls WORD: the result URLs of searchd now, sorted, one line.
urls() {
	"$cli" -s "$SD_ADDR" -p 100 "$1" 2>/dev/null | awk '/^[0-9]+\. /{ print $2 }' | sort |
		tr '\n' ' '
}
# within_1s WORD WANT: poll urls WORD for at most one second; prints what it
# saw last and how long it took, from the call to the end of the query that
# saw it.  in_1s: that output shows WANT seen within 1000 ms.
within_1s() {
	local t0 out dt
	t0=$(date +%s%N)
	while :; do
		out=$(urls "$1")
		dt=$(($(date +%s%N) - t0))
		[ "$out" = "$2" ] && break
		[ "$dt" -gt 1000000000 ] && break
		sleep 0.05
	done
	printf '%s(after %d ms)' "$out" "$((dt / 1000000))"
}
in_1s() { # in_1s OUTPUT WANT
	local ms=${1##*(after }
	ms=${ms%% ms)}
	[ "$1" = "$2(after $ms ms)" ] && [ "$ms" -le 1000 ] && echo 1
}

run crawl
tap_is "$rc" 0 "the first crawl: exit 0"
searchd_start "$T" site "MaxThreads 2"
tap_is "$(urls aboutword)" "${WEB_URL}about.html " "searchd answers from the crawl's generation"

# ---- a new page, fetched now
cat >"$T/site/fresh.html" <<'HTML'
<html><head><title>Fresh page</title></head>
<body><p>This page has a word of its own: zqxfreshword.</p></body></html>
HTML
gen0=$(readlink "$dd/index/current")
run now1 -T "${WEB_URL}fresh.html"
tap_is "$rc" 0 "-T URL: exit 0"
tap_ok "$(grep -q "fresh.html: indexed" "$T/now1.out" && echo 1)" "-T says the page was indexed: $(cat "$T/now1.out")"
tap_is "$(readlink "$dd/index/current")" "$gen0" "-T publishes no new generation (no merge)"
tap_ok "$([ -f "$dd/index/rt" ] && echo 1)" "-T wrote the real-time index DataDir/index/rt"
tap_ok "$(ls "$dd/deltas" | grep -q '^r32767-' && echo 1)" "-T left its delta segment for the next merge"
seen=$(within_1s zqxfreshword "${WEB_URL}fresh.html ")
tap_ok "$(in_1s "$seen" "${WEB_URL}fresh.html ")" "the page is found within one second of -T: $seen"
tap_is "$(urls aboutword)" "${WEB_URL}about.html " "the generation's pages are still found"
tap_ok "$([ -f "$dd/index/$gen0/grams" ] && echo 1)" "the crawl's generation has common-word pairs"
tap_is "$(urls '"a word of its own"')" "${WEB_URL}fresh.html " \
	"a phrase of common words in the real-time page is found"

# ---- the next merge folds it in, once
run merge -D
tap_is "$rc" 0 "-D: exit 0"
tap_ok "$([ ! -e "$dd/index/rt" ] && echo 1)" "the merge removed the real-time index it folded in"
tap_ok "$(ls "$dd/deltas" | grep -q '^r32767-' || echo 1)" "and the real-time segment"
gen1=$(readlink "$dd/index/current" | sed 's/^gen-0*//')
for i in $(seq 50); do
	"$cli" -s "$SD_ADDR" zqxfreshword 2>/dev/null | head -1 | grep -q "generation $gen1\b" && break
	sleep 0.1
done
tap_is "$(urls zqxfreshword)" "${WEB_URL}fresh.html " "after the merge the page is found, once"
tap_is "$(urls '"a word of its own"')" "${WEB_URL}fresh.html " \
	"and its phrase of common words, by the pairs the merge made"
tap_ok "$("$idx" --dump-index "$conf" 2>/dev/null | grep -q "^word$(printf '\002')of	[0-9]*	" && echo 1)" \
	"the merge posted the page's pair \"word of\""
tap_ok "$("$idx" --dump-index "$conf" 2>/dev/null | grep -q '^zqxfreshword	' && echo 1)" \
	"its words are in the published generation"

# ---- a page deleted upstream leaves at once
rm "$T/site/fresh.html"
run now2 -T "${WEB_URL}fresh.html"
tap_is "$rc" 0 "-T on a page gone upstream: exit 0"
tap_ok "$(grep -q "fresh.html: gone (404" "$T/now2.out" && echo 1)" "-T says it is gone: $(cat "$T/now2.out")"
seen=$(within_1s zqxfreshword "")
tap_ok "$(in_1s "$seen" "")" "the page leaves the answers within one second: $seen"
tap_is "$(urls aboutword)" "${WEB_URL}about.html " "the other pages are still found"
run merge2 -D
tap_is "$(urls zqxfreshword)" "" "after the next merge it stays gone"

# ---- refusals
run robots -T "${WEB_URL}private/secret.html"
tap_is "$rc" 1 "-T on a URL robots.txt disallows: exit 1"
tap_ok "$(grep -q "secret.html: refused: .*robots" "$T/robots.out" && echo 1)" \
	"with a message: $(cat "$T/robots.out")"
run scope -T "http://elsewhere.invalid/page.html"
tap_is "$rc" 1 "-T on a URL outside every Server: exit 1"
tap_ok "$(grep -q "refused" "$T/scope.out" && echo 1)" "with a message: $(cat "$T/scope.out")"
tap_ok "$(grep -q 'real-time index: 1 URL(s) override' "$SD_LOG" && grep -q 'real-time index is gone' "$SD_LOG" && echo 1)" \
	"searchd logged the real-time index's loads and its removal"

# ---- beside a running crawl: no writer lock, and the crawl's merge folds it in
cat >"$T/site/beside.html" <<'HTML'
<html><head><title>Beside</title></head><body><p>qzbesideword</p></body></html>
HTML
slow=$T/slow.conf
write_conf "$slow" site "MinDelay 1" "ReadTimeOut 5" "MaxHops 6" "Robots yes" "Server $WEB_URL"
mpi_no_leak_check timeout 300 "$idx" -a -t 4 "$slow" >"$T/slow.out" 2>"$T/slow.log" </dev/null &
crawl_pid=$!
for i in $(seq 100); do
	grep -q 'crawling into' "$T/slow.log" 2>/dev/null && break
	sleep 0.1
done
run beside -T "${WEB_URL}beside.html"
tap_ok "$(kill -0 "$crawl_pid" 2>/dev/null && echo 1)" "the crawl was still running when -T returned"
tap_ok "$([ "$rc" = 0 ] && grep -q 'beside.html: indexed' "$T/beside.out" && echo 1)" \
	"-T beside a running crawl: exit $rc, $(cat "$T/beside.out")"
seen=$(within_1s qzbesideword "${WEB_URL}beside.html ")
tap_ok "$(in_1s "$seen" "${WEB_URL}beside.html ")" "found within one second while the crawl runs: $seen"
wait "$crawl_pid"
tap_is "$?" 0 "the crawl beside it ends well (exit 0)"
tap_ok "$(grep -q 'generation [0-9]* is live' "$T/slow.log" && [ ! -e "$dd/index/rt" ] && echo 1)" \
	"the crawl's merge published and folded the real-time page in"
got=$(urls qzbesideword)
tap_is "$got" "${WEB_URL}beside.html " "the page is found once after the crawl's merge"
[ "$got" = "${WEB_URL}beside.html " ] || grep -E 'merge|real-time|generation|32767' "$T/slow.log" | tail -15 | sed 's/^/# /' 
tap_done
