#!/bin/bash
# crawl-scope.sh - the scope of a Server line (doc/CRAWL.md, "Server scope"):
# `Server http://HOST:PORT/index.html` (a site's start page) crawls the
# whole site, as ASPseek did; the log line of a page says how many links it
# holds, how many were admitted and why the others were not; a Server line
# that widens a site's scope takes effect at the next plain run (the site's
# pages fetched again in full: no 304, no "unchanged"), also on a database
# of schema version 2 converted by sql/upgrade-2-to-3.sql; an unchanged
# config fetches nothing again.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
[ -x "$idx" ] || tap_skip_all "$idx not built"
[ -x "$NGINX" ] || tap_skip_all "nginx not found (Debian package nginx)"

T=$(tmp_dir)
S=$T/site
mkdir -p "$S/sub/deep" "$S/chain" "$S/secret" "$S/private"
page() { # page FILE BODY...
	local f=$1; shift
	printf '<html><head><title>%s</title></head><body>%s</body></html>\n' "$f" "$*" >"$S/$f"
}
web_start "$S"
# index.html: 11 links: 4 admitted (secret/ is disallowed by robots.txt),
# 3 repeated (a fragment, ./a.html, the page itself), 1 off-site (another
# host on the same port, no Server), 1 Allow/Disallow, 1 not crawlable
# (mailto:), 1 nofollow.
page index.html '<a href="a.html">a</a> <a href="a.html#top">a again</a>' \
	'<a href="./a.html">a once more</a> <a href="sub/b.html">b</a>' \
	'<a href="sub/deep/c.html">c</a>' \
	"<a href=\"http://localhost:$WEB_PORT/x.html\">elsewhere</a>" \
	'<a href="private/p.html">private</a> <a href="mailto:a@example.com">mail</a>' \
	'<a rel="nofollow" href="nf.html">nofollow</a> <a href="secret/s.html">secret</a>' \
	'<a href="index.html">home</a>'
page a.html '<a href="index.html">home</a> <a href="chain/1.html">chain</a> apple'
page sub/b.html '<a href="../a.html">a</a> <a href="deep/c.html">c</a> banana'
page sub/deep/c.html 'cherry'
page chain/1.html '<a href="2.html">deeper</a>'
page chain/2.html 'too deep'
page secret/s.html 'secret'
page private/p.html 'private'
page nf.html 'not followed'
printf 'User-agent: *\nDisallow: /secret/\n' >"$S/robots.txt"
# The pages a whole-site crawl stores (chain/2.html is beyond MaxHops 2).
ALL="a.html chain/1.html index.html sub/b.html sub/deep/c.html"

mdb_start
base=http://127.0.0.1:$WEB_PORT
common=("MinDelay 0" "ReadTimeOut 5" "MaxHops 2" "Robots yes" "Disallow /private/")

# crawl NAME CONF [options]: one run; log in $T/NAME.log, the access log
# lines of the run in $T/NAME.access, exit status in $rc.
crawl() {
	local name=$1 conf=$2 n0
	shift 2
	n0=$(wc -l <"$WEB_LOG")
	mpi_no_leak_check timeout 300 "$idx" "$@" "$conf" >"$T/$name.out" 2>"$T/$name.log"
	rc=$?
	sleep 0.2   # nginx logs a request when it is done
	tail -n +"$((n0 + 1))" "$WEB_LOG" >"$T/$name.access"
	[ "$rc" = 0 ] || { tap_diag "$name: exit $rc; log tail:"; tail -15 "$T/$name.log" | sed 's/^/#   /'; }
}
# pages DB: the paths of the pages stored (200, robots.txt aside), sorted.
pages() {
	mdb_sql "SELECT url FROM urlword WHERE status = 200 AND url NOT LIKE '%/robots.txt'" "$1" |
		sed "s|^$base/||" | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//'
}
# status NAME PATH: the HTTP statuses nginx gave PATH in run NAME.
status() { awk -F'\t' -v p="/$2" '$3 == p { s = s $4 " " } END { print s }' "$T/$1.access" | sed 's/ $//'; }

# ---- a start page as the Server URL: the whole site
write_conf "$T/a.conf" scopea "${common[@]}" "Server $base/index.html"
crawl a1 "$T/a.conf"
tap_is "$rc" 0 "crawl from Server $base/index.html"
tap_is "$(pages scopea)" "$ALL" "the whole site is crawled, not the start page alone"
tap_is "$(status a1 chain/2.html)" "" "... within MaxHops"

# ---- the log line of a page
line=$(grep -F "$base/index.html: 200 indexed" "$T/a1.log" | grep -o '[0-9]* links.*')
tap_is "$line" "11 links: 4 admitted (1 disallowed by robots.txt), 3 repeated, 1 off-site, 1 Allow/Disallow, 1 not crawlable, 1 nofollow" \
	"index.html: links found, admitted, and why the others were not"
line=$(grep -F "$base/chain/1.html: 200 indexed" "$T/a1.log" | grep -o '[0-9]* links.*')
tap_is "$line" "1 links: 0 admitted, 1 MaxHops" "chain/1.html: its link is beyond MaxHops"
line=$(grep -F "$base/sub/deep/c.html: 200 indexed" "$T/a1.log" | grep -o '[0-9]* links.*')
tap_is "$line" "0 links" "a page without links"
tap_is "$(status a1 secret/s.html)" "" "the link robots.txt disallows is not fetched"

# ---- an unchanged config: a plain rerun fetches nothing again
crawl a2 "$T/a.conf"
tap_is "$rc" 0 "rerun, config unchanged"
tap_is "$(grep -c . "$T/a2.access")" 0 "... fetches nothing"
tap_ok "$(! grep -q 'Server scope is now' "$T/a2.log" && echo 1)" "... and says no scope changed"

# ---- a Server line widened: the next plain run takes it
write_conf "$T/b.conf" scopeb "${common[@]}" "ServerScope path" "Server $base/sub/b.html"
crawl b1 "$T/b.conf"
tap_is "$rc" 0 "ServerScope path: crawl from $base/sub/b.html"
tap_is "$(pages scopeb)" "sub/b.html sub/deep/c.html" "ServerScope path admits its directory only"
write_conf "$T/b.conf" scopeb "${common[@]}" "Server $base/sub/b.html"
crawl b2 "$T/b.conf"
tap_is "$rc" 0 "the same Server line without ServerScope path, plain rerun"
tap_ok "$(grep -q "site $base/: its Server scope is now \"/\": [0-9]* URL(s) to fetch again in full" "$T/b2.log" && echo 1)" \
	"the log says the site's scope changed"
tap_is "$(status b2 sub/b.html)" 200 "the start URL is fetched again in full (200, not 304)"
tap_is "$(pages scopeb)" "$ALL" "the rerun crawls the whole site"
crawl b3 "$T/b.conf"
tap_is "$(grep -c . "$T/b3.access")" 0 "the next rerun fetches nothing again"

# ---- a database of schema version 2: refused, converted, then recrawled
# where the Server lines of this mpseek scope a site more widely (a Server
# URL with a path admitted only the URLs under it before version 3).
write_conf "$T/c.conf" scopec "${common[@]}" "ServerScope path" "Server $base/sub/b.html"
crawl c1 "$T/c.conf"
tap_is "$(pages scopec)" "sub/b.html sub/deep/c.html" "a crawl scoped as before version 3"
mdb_sql "ALTER TABLE sites DROP COLUMN scope" scopec
mdb_sql "ALTER TABLE urlword DROP COLUMN simhash" scopec
mdb_sql "UPDATE mpseek_meta SET value = '2' WHERE name = 'schema_version'" scopec
out=$(timeout 120 "$idx" -S "$T/c.conf" 2>&1); rc=$?
tap_ok "$([ "$rc" = 1 ] && grep -q 'schema version 2, this mpseek needs 4: run the upgrade scripts' <<<"$out" && echo 1)" \
	"a version 2 database is refused, with what to do"
"$MARIADB" --no-defaults -S "$MDB_SOCKET" -uroot scopec <"$srcdir/sql/upgrade-2-to-3.sql" 2>"$T/up.err"
tap_is "$?" 0 "sql/upgrade-2-to-3.sql applies $(head -c 200 "$T/up.err")"
"$MARIADB" --no-defaults -S "$MDB_SOCKET" -uroot scopec <"$srcdir/sql/upgrade-2-to-3.sql" 2>"$T/up.err"
tap_is "$?" 0 "... and can be run again"
"$MARIADB" --no-defaults -S "$MDB_SOCKET" -uroot scopec <"$srcdir/sql/upgrade-3-to-4.sql" 2>"$T/up.err"
tap_is "$?" 0 "then sql/upgrade-3-to-4.sql $(head -c 200 "$T/up.err")"
tap_is "$(mdb_sql "SELECT COUNT(*) FROM sites WHERE scope = ''" scopec)" 1 "sites.scope starts empty"
write_conf "$T/c.conf" scopec "${common[@]}" "Server $base/sub/b.html"
crawl c2 "$T/c.conf"
tap_is "$rc" 0 "plain run on the converted database"
tap_is "$(pages scopec)" "$ALL" "... crawls the whole site"
tap_is "$(mdb_sql "SELECT COUNT(*) FROM sites WHERE scope = MD5('/')" scopec)" 1 \
	"... and keeps the site's scope"
tap_done
