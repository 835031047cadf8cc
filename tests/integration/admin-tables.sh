#!/bin/bash
# admin-tables.sh - every edit of the tables by hand that doc/ADMIN.md
# ("The tables by hand") documents, made with the mariadb client exactly as
# written there, and its effect at the next run: a recrawl of some URLs by
# next_index_time, a full refetch, a URL and a whole site removed (they leave
# the index at the next merge) and re-enabled, robots.txt fetched again, the
# query log in stat, and the claims and leases.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
for p in "$idx" "$builddir/searchd" "$builddir/mpseek-search"; do
	[ -x "$p" ] || tap_skip_all "$p not built"
done
[ -x "$NGINX" ] || tap_skip_all "nginx not found (Debian package nginx)"

T=$(tmp_dir)
mkdir -p "$T/www"
for i in 1 2 3 4; do
	echo "<html><head><title>Page $i</title></head><body><p>word$i common</p>
<a href=\"/p1.html\">1</a> <a href=\"/p2.html\">2</a> <a href=\"/p3.html\">3</a> <a href=\"/p4.html\">4</a>
</body></html>" >"$T/www/p$i.html"
done
cp "$T/www/p1.html" "$T/www/index.html"
printf 'User-agent: *\nDisallow: /private/\n' >"$T/www/robots.txt"
web_start "$T/www"
mdb_start
conf=$T/mpseek.conf
# Two sites on one server: 127.0.0.1 and localhost.
A="http://127.0.0.1:$WEB_PORT" B="http://localhost:$WEB_PORT"
write_conf "$conf" adm "MinDelay 0" "Server $A/" "Server $B/"
dd=$MDB_DIR/data-adm
SQL() { mdb_sql "$1" adm; }

run() {
	local n0
	n0=$(wc -l <"$WEB_LOG")
	mpi_no_leak_check timeout 300 "$idx" "$conf" >"$T/run.out" 2>"$T/run.log" </dev/null
	rc=$?
	sleep 0.2
	tail -n +"$((n0 + 1))" "$WEB_LOG" >"$T/run.access"
	[ "$rc" = 0 ] || { tail -4 "$T/run.log"; cat "$T/run.out"; } | sed "s/^/# /"
}
# fetched HOST PATH: the statuses of this run's requests for PATH on HOST
fetched() { awk -F'\t' -v p="$2" -v h="$1" '$3 == p && $8 ~ "^"h { printf "%s ", $4 }' "$T/run.access"; }
# indexed URL: 1 when the live index has a posting of the URL
indexed() {
	local id
	id=$(SQL "SELECT url_id FROM urlword WHERE url = '$1'")
	[ -n "$id" ] || { echo 0; return; }
	"$idx" --dump-index "$conf" 2>/dev/null | awk -F'\t' -v id="$id" '$2 == id { f = 1 } END { print f + 0 }'
}

run
tap_is "$rc" 0 "the first crawl of two sites"
tap_is "$(SQL "SELECT COUNT(*) FROM urlword WHERE status = 200 AND url NOT LIKE '%/robots.txt'")" 10 "10 pages stored (5 a site)"
tap_is "$(indexed "$A/p3.html")$(indexed "$B/p2.html")" 11 "both sites are in the index"

# 1. A recrawl of some URLs: next_index_time = 0 (conditional GET).
SQL "UPDATE urlword SET next_index_time = 0 WHERE url LIKE '$A/p1%'"
run
tap_is "$(fetched 127.0.0.1 /p1.html)" "304 " "next_index_time = 0: the URL is fetched again at the next run (304: unchanged)"
tap_is "$(fetched 127.0.0.1 /p2.html)" "" "and no other"

# 2. A full refetch: the fetch history emptied too.
SQL "UPDATE urlword SET next_index_time = 0, etag = '', last_modified = '', crc = '' WHERE url = '$A/p2.html'"
run
tap_is "$(fetched 127.0.0.1 /p2.html)" "200 " "etag, last_modified and crc emptied: fetched in full (200) and parsed again"

# 3. A URL removed: deleted = 1.
SQL "UPDATE urlword SET deleted = 1 WHERE url = '$A/p3.html'"
run
tap_is "$rc" 0 "a run after a URL was marked deleted"
tap_is "$(indexed "$A/p3.html")" 0 "deleted = 1: the page leaves the index at the next merge"
tap_ok "$(grep -c 'marked deleted in the database leave the index' "$T/run.log")" "the run says so"
tap_is "$(indexed "$A/p4.html")" 1 "the other pages stay"
SQL "UPDATE urlword SET next_index_time = 0 WHERE url LIKE '$A/%'"
run
tap_is "$(fetched 127.0.0.1 /p3.html)" "" "and it is not crawled again (even when due)"

# 4. The URL re-enabled.
SQL "UPDATE urlword SET deleted = 0, next_index_time = 0, etag = '', last_modified = '', crc = '' WHERE url = '$A/p3.html'"
run
tap_is "$(fetched 127.0.0.1 /p3.html)" "200 " "re-enabled: fetched in full at the next run"
tap_is "$(indexed "$A/p3.html")" 1 "and back in the index"

# 5. A whole site removed (the site_id through a variable: a statement
# that writes urlword may not read sites, doc/DATABASE.md).
cat >"$T/site-off.sql" <<EOS
SET @s = (SELECT site_id FROM sites WHERE site = '$B/');
UPDATE urlword SET deleted = 1 WHERE site_id = @s;
EOS
mariadb --no-defaults -S "$MDB_SOCKET" -uroot adm <"$T/site-off.sql"
tap_is "$?" 0 "the site's URLs marked deleted with the mariadb client"
SQL "UPDATE urlword SET next_index_time = 0 WHERE url LIKE '$A/%'"
run
tap_is "$(indexed "$B/p1.html")$(indexed "$B/p2.html")$(indexed "$B/index.html")" 000 "the site leaves the index at the next merge"
tap_is "$(awk -F'\t' '$8 ~ /^localhost/' "$T/run.access" | wc -l)" 0 "and is not crawled"
tap_is "$(indexed "$A/p2.html")" 1 "the other site stays"

# 6. The site re-enabled, its robots.txt fetched again.
cat >"$T/site-on.sql" <<EOS
SET @s = (SELECT site_id FROM sites WHERE site = '$B/');
UPDATE urlword SET deleted = 0, next_index_time = 0, etag = '', last_modified = '', crc = '' WHERE site_id = @s;
DELETE FROM robots WHERE site_id = @s;
EOS
mariadb --no-defaults -S "$MDB_SOCKET" -uroot adm <"$T/site-on.sql"
run
tap_is "$(fetched localhost /robots.txt)" "200 " "robots row deleted: robots.txt fetched again"
tap_is "$(fetched localhost /p2.html)" "200 " "the site re-enabled: crawled again"
tap_is "$(indexed "$B/p2.html")" 1 "and back in the index"

# 7. The query log and 8. claims and leases: the statements of doc/ADMIN.md.
searchd_start "$T" adm "MaxThreads 2"
"$builddir/mpseek-search" -s "$SD_ADDR" word4 >/dev/null 2>&1
sleep 1.5
searchd_stop
tap_ok "$(SQL "SELECT FROM_UNIXTIME(start), query, urls, finish - start FROM stat ORDER BY stat_id DESC LIMIT 20" | grep -cP '^\S+ \S+\tword4\t')" \
	"the query log: the last query in stat with its result count and time"
tap_is "$(SQL "SELECT claim_rank, COUNT(*), FROM_UNIXTIME(MIN(lease_until)) FROM urlword WHERE index_status = 2 GROUP BY claim_rank")" "" \
	"claims held per rank: none after the job"
tap_is "$(SQL "SELECT site, claim_rank, FROM_UNIXTIME(lease_until) FROM sites WHERE claim_rank >= 0")" "" "site leases: none after the job"

tap_done
