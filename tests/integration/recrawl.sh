#!/bin/bash
# recrawl.sh - recrawl by value through the real crawler (doc/CRAWL.md,
# "Recrawl by value"): RecrawlMode value sets each page's next fetch from its
# value (PageValue), its change rate and λ_0 within [MinPeriod, Period],
# brought forward by Cache-Control: max-age and Expires; RecrawlMode period
# keeps Period; each fetch after the first adds to the page's history in
# table recrawl (changed by MD5 or not); λ_0 is read back from
# recrawl_limits, and MaxFetchRate moves it; a 503 with Retry-After lowers
# the host's rate limit k_i, steps its λ_i up and is stored with the site,
# and a restart reads it back; without PageValue, ω is the page's PageRank in
# the live generation.  The arithmetic itself is
# tests/unit/test-recrawl's, the freshness it buys tests/unit/test-freshness's.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
[ -x "$idx" ] || tap_skip_all "$idx not built"
[ -x "$NGINX" ] || tap_skip_all "nginx not found (Debian package nginx)"
T=$(tmp_dir)

# hi/ is worth much, lo/ little; lo/cc/ answers with Cache-Control:
# max-age=3600, lo/ex/ with an Expires three hours ahead; per/ keeps Period;
# tree/ is a binary tree of 63 pages for the rate test: each fetch finds two
# new URLs, so URLs fall due faster than a polite crawl fetches them.
site=$T/site
mkdir -p "$site/hi" "$site/lo/cc" "$site/lo/ex" "$site/lo/cc1" "$site/per" "$site/tree" "$site/busy" \
	"$site/pr"
page() { printf '<html><head><title>%s</title></head><body>%s</body></html>\n' "$2" "$3" >"$site/$1"; }
page hi/index.html hi '<a href="a.html">a</a>'
page hi/a.html hia 'hiword'
page lo/index.html lo '<a href="a.html">a</a> <a href="b.html">b</a> <a href="cc/x.html">x</a>
<a href="ex/y.html">y</a> <a href="cc1/z.html">z</a>'
page lo/a.html loa 'loword first'
page lo/b.html lob 'loword same'
page lo/cc/x.html x 'cachedword'
page lo/ex/y.html y 'expiresword'
page lo/cc1/z.html z 'shortword'
page per/index.html per '<a href="p.html">p</a>'
# busy/ refuses b.html with 503 and Retry-After: 5 (its only link: nothing
# else waits behind the pause).
page busy/index.html busy '<a href="b.html">b</a>'
page busy/b.html b 'busyword'
# pr/: no PageValue, so ω is the page's PageRank in the live generation;
# every page links to hub.html, which ranks highest.
page pr/index.html pr '<a href="x.html">x</a> <a href="y.html">y</a> <a href="hub.html">h</a>'
page pr/x.html x '<a href="hub.html">h</a>'
page pr/y.html y '<a href="hub.html">h</a>'
page pr/hub.html hub '<a href="index.html">i</a>'
page per/p.html p 'periodword'
page tree/index.html tree '<a href="t1.html">t</a>'
for i in $(seq 1 63); do
	page "tree/t$i.html" "t$i" "treeword$i <a href=\"t$((2 * i)).html\">l</a> <a href=\"t$((2 * i + 1)).html\">r</a>"
done
expires=$(LC_ALL=C date -u -d '+3 hours' '+%a, %d %b %Y %H:%M:%S GMT')
cat >"$T/site.conf" <<EOF
location /lo/cc/ { add_header Cache-Control "max-age=3600"; }
location /lo/ex/ { add_header Expires "$expires"; }
location /lo/cc1/ { add_header Cache-Control "max-age=1"; }
location = /busy/b.html { add_header Retry-After 5 always; return 503; }
EOF
web_start "$site" "$T/site.conf"
base=${WEB_URL%/}
mdb_start
SQL() { mdb_sql "$1" "$2"; }

# crawl DB [-a] LINES...: a config for database DB with the lines, crawled.
crawl() {
	local db=$1 args=()
	shift
	if [ "${1:-}" = -a ]; then args=(-a); shift; fi
	write_conf "$T/$db.conf" "$db" "Robots no" "MinDelay 0" "ReadTimeOut 10" "$@"
	mpi_no_leak_check timeout 120 "$idx" "${args[@]}" "$T/$db.conf" >"$T/$db.out" 2>"$T/$db.log"
	rc=$?
	[ "$rc" = 0 ] || { tap_diag "$db: exit $rc"; tail -5 "$T/$db.log" | sed 's/^/#   /'; }
}
due() { SQL "SELECT next_index_time - last_index_time FROM urlword WHERE url = '$base/$2'" "$1"; }
hist() { SQL "SELECT CONCAT(r.fetches, ':', r.changes) FROM recrawl r JOIN urlword u
	USING (url_id) WHERE u.url = '$base/$2'" "$1"; }
lines=("ServerScope path" "Period 30d" "RecrawlMode value" "MinPeriod 10"
	"PageValue 100" "Server $base/hi/" "PageValue 0.01" "Server $base/lo/"
	"RecrawlMode period" "Server $base/per/")

crawl v "${lines[@]}"
tap_is "$rc" 0 "a crawl with RecrawlMode value exits 0"
tap_is "$(SQL "SELECT COUNT(*) FROM urlword WHERE status = 200" v)" 10 "every page fetched"
# PageValue 100, δ at its prior 1/MinPeriod, λ_0 = 1: V reaches λ at once.
tap_is "$(due v hi/a.html)" 10 "a page of much value is due again after MinPeriod"
# PageValue 0.01: ω/δ = 0.1 < λ_0, never worth it before Period.
tap_is "$(due v lo/a.html)" 2592000 "a page of little value waits for Period"
tap_is "$(due v lo/cc/x.html)" 3600 "Cache-Control: max-age brings it forward"
tap_ok "$(d=$(due v lo/ex/y.html); [ "$d" -ge 10790 ] && [ "$d" -le 10805 ] && echo 1)" \
	"Expires brings it forward ($(due v lo/ex/y.html) s, 3 hours)"
tap_is "$(due v lo/cc1/z.html)" 10 "max-age=1 brings it forward no further than MinPeriod"
tap_is "$(due v per/p.html)" 2592000 "RecrawlMode period: Period, as before"
tap_is "$(SQL "SELECT COUNT(*) FROM recrawl" v)" 8 "a history row per page of the value Servers"
tap_is "$(hist v lo/a.html)" 0:0 "a first fetch is no interval"

# Again, a page edited and λ_0 set high: the histories grow, and λ_0 is read.
sleep 2
page lo/a.html loa 'loword second'
SQL "INSERT INTO recrawl_limits (site_id, lambda) VALUES (0, 1e9)" v
crawl v -a "${lines[@]}"
tap_is "$rc" 0 "the second crawl exits 0"
tap_is "$(hist v lo/a.html)" 1:1 "an edited page: one interval, changed"
tap_is "$(hist v lo/b.html)" 1:0 "an unchanged page: one interval, unchanged"
tap_ok "$(SQL "SELECT unchanged_secs >= 2 FROM recrawl r JOIN urlword u USING (url_id)
	WHERE u.url = '$base/lo/b.html'" v)" "its interval is summed (2 s or more)"
tap_is "$(due v hi/a.html)" 2592000 "lambda_0 from recrawl_limits: a high one pushes to Period"
tap_ok "$(SQL "SELECT delta > 0 AND omega = 100 FROM recrawl r JOIN urlword u USING (url_id)
	WHERE u.url = '$base/hi/a.html'" v)" "the estimate and the value are kept for administrators"

# The multipliers step every 25 fetches at their limit (at least 5 s): the
# host's at 1/MinDelay = 4 pages/s, the crawl's at MaxFetchRate 3.  URLs fall
# due at about twice the fetch rate, so both rise: λ_0 from 1, λ_i from its
# floor (where a host with no delay, and a crawl with no MaxFetchRate, stay).
crawl r "MinDelay 0.25" "RecrawlMode value" "MaxFetchRate 3" "Server $base/tree/"
tap_is "$rc" 0 "a crawl with MaxFetchRate and MinDelay exits 0"
tap_is "$(SQL "SELECT COUNT(*) FROM urlword WHERE status = 200" r)" 64 "the whole tree fetched"
site_id=$(SQL "SELECT site_id FROM urlword WHERE url = '$base/tree/'" r)
tap_diag "recrawl_limits: $(SQL "SELECT CONCAT(site_id, '=', lambda) FROM recrawl_limits" r | tr '\n' ' ')"
tap_ok "$(SQL "SELECT lambda > 1 FROM recrawl_limits WHERE site_id = 0" r)" \
	"MaxFetchRate: lambda_0 rose above 1 and was stored"
tap_ok "$(SQL "SELECT lambda > 0.001 FROM recrawl_limits WHERE site_id = $site_id" r)" \
	"MinDelay: the host's lambda rose from its floor and was stored"

# A host that answers 503 with Retry-After: 5.  MinDelay 0 sets no limit, so
# without the Retry-After its λ_i would stay at its floor and store nothing;
# the Retry-After makes k_i one fetch per 5 s, steps λ_i up at once, and is
# stored with the site, where a restart reads it back.
blines=("ServerScope path" "RecrawlMode value" "MinPeriod 10" "Server $base/busy/" "Server $base/pr/")
crawl b "${blines[@]}"
tap_is "$rc" 0 "a crawl refused with 503 and Retry-After exits 0"
bsite=$(SQL "SELECT site_id FROM urlword WHERE url = '$base/busy/'" b)
tap_is "$(SQL "SELECT retry_secs FROM recrawl_limits WHERE site_id = $bsite" b)" 5 \
	"the host's Retry-After is stored with the site"
tap_ok "$(SQL "SELECT retry_at BETWEEN UNIX_TIMESTAMP() - 120 AND UNIX_TIMESTAMP()
	FROM recrawl_limits WHERE site_id = $bsite" b)" "with the time it came"
tap_ok "$(grep -q "site $bsite: Retry-After 5 s: its rate limit is 0.2 pages/s" "$T/b.log" && echo 1)" \
	"k_i comes down to one fetch per Retry-After: $(grep -o 'site [0-9]*: Retry-After.*' "$T/b.log" | head -1)"
tap_ok "$(SQL "SELECT lambda > 0.0011 FROM recrawl_limits WHERE site_id = $bsite" b)" \
	"the host's lambda stepped up from its floor: $(SQL "SELECT lambda FROM recrawl_limits WHERE site_id = $bsite" b)"
tap_is "$(SQL "SELECT status FROM urlword WHERE url = '$base/busy/b.html'" b)" 503 \
	"the refused page keeps its 503"
crawl b -a "${blines[@]}"
tap_is "$rc" 0 "the restart exits 0"
tap_ok "$(grep -q "site $bsite: its Retry-After of 5 s, [0-9]* s ago, still limits it" "$T/b.log" && echo 1)" \
	"the restart reads the Retry-After back: $(grep -o 'site [0-9]*: its Retry-After.*' "$T/b.log" | head -1)"
# The first crawl had no generation (ω 1); the second took ω from the
# PageRank of the first one's: 1 for the mean page, the hub above it.
omega() { SQL "SELECT omega FROM recrawl r JOIN urlword u USING (url_id) WHERE u.url = '$base/pr/$1'" b; }
tap_ok "$(awk -v h="$(omega hub.html)" -v x="$(omega x.html)" 'BEGIN { exit !(h > 1.2 && x < 1 && x > 0) }' && echo 1)" \
	"without PageValue, omega is the page's PageRank: hub $(omega hub.html), x $(omega x.html)"
tap_done
