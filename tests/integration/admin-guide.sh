#!/bin/bash
# admin-guide.sh - the steps of doc/ADMIN.md a newcomer takes, with the
# commands written there, on the embedded default database: index a site,
# add a second one, remove one URL, recrawl one site, back up (mariadb-dump
# and the index), and restore into a fresh data directory, where the index
# and the tables are the same and a crawl goes on.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
[ -x "$idx" ] || tap_skip_all "$idx not built"
[ -x "$NGINX" ] || tap_skip_all "nginx not found (Debian package nginx)"
command -v mariadb-dump >/dev/null || tap_skip_all "mariadb-dump missing"

T=$(tmp_dir)
mk_site() { # DIR WORD: 4 pages linked from index.html
	mkdir -p "$1"
	for i in 1 2 3; do
		echo "<html><head><title>$2 page $i</title></head><body><p>$2 w$2$i</p>
<a href=\"index.html\">home</a></body></html>" >"$1/p$i.html"
	done
	echo "<html><head><title>$2 home</title></head><body><p>$2</p>
<a href=\"p1.html\">1</a> <a href=\"p2.html\">2</a> <a href=\"p3.html\">3</a></body></html>" >"$1/index.html"
}
mkdir -p "$T/www"
mk_site "$T/www/one" alpha
mk_site "$T/www/two" bravo
# Two sites on one private nginx: 127.0.0.1 and localhost.
web_start "$T/www"
A="http://127.0.0.1:$WEB_PORT/one/" B="http://localhost:$WEB_PORT/two/"
hostB=localhost:$WEB_PORT
# requests SINCE HOST: the access log's lines after line SINCE for HOST
requests() { tail -n +"$(($1 + 1))" "$WEB_LOG" | awk -F'\t' -v h="$2" '$8 == h'; }

dd=$T/d
conf=$T/mpseek.conf
printf 'DataDir %s\nPeriod 7d\nMinDelay 0\nServer %sindex.html\n' "$dd" "$A" >"$conf"
run() { mpi_no_leak_check timeout 300 "$idx" "$@" >"$T/out" 2>"$T/log" </dev/null; rc=$?; }
SQL() { mariadb --no-defaults -S "$1/mysql/mysqld.sock" -uroot -N -B mpseek -e "$2"; }
words() { "$idx" --dump-index "$1" 2>/dev/null | cut -f1 | sort -u | tr '\n' ' '; }

# Section 2: index your own site (the job starts the embedded database).
run --check-config "$conf"
tap_is "$rc" 0 "mpseek-index --check-config"
run "$conf"
tap_is "$rc" 0 "the first job"
tap_ok "$(words "$conf" | grep -c 'walpha1 ')" "the first site is indexed"

# Section 4: add a second site.
echo "Server ${B}index.html" >>"$conf"
n0=$(wc -l <"$WEB_LOG")
run "$conf"
tap_is "$rc" 0 "a job after a Server line was added"
tap_ok "$(words "$conf" | grep -c 'wbravo2 ')" "the second site is indexed"
tap_is "$(requests "$n0" 127.0.0.1 | wc -l)" 0 "the first site is not fetched again (nothing due)"

# Remove one URL.
run -C -w -u "${A}p2.html" "$conf"
tap_is "$rc" 0 "mpseek-index -C -w -u URL"
run -D "$conf"
w=$(words "$conf")
tap_ok "$(echo "$w" | grep -vc 'walpha2 ')" "after -D the URL's page is out of the index"
tap_ok "$(echo "$w" | grep -c 'walpha3 ')" "its neighbours stay"

# Recrawl one site.
n0=$(wc -l <"$WEB_LOG")
run -a -u "$hostB" "$conf"
tap_is "$rc" 0 "mpseek-index -a -u host:port"
tap_ok "$([ "$(requests "$n0" localhost | awk -F'\t' '$4 == 304' | wc -l)" -ge 4 ] && echo 1)" "the site's pages are asked again (304)"
tap_is "$(requests "$n0" 127.0.0.1 | wc -l)" 0 "the other site is left alone"

# Section 6: back up, then restore into a fresh data directory.
before_idx=$("$idx" --dump-index "$conf" 2>/dev/null | md5sum)
before_rows=$(SQL "$dd" "SELECT url_id, url, status, crc FROM urlword ORDER BY url_id" | md5sum)
mariadb-dump --no-defaults -S "$dd/mysql/mysqld.sock" -u root --single-transaction --routines --triggers mpseek >"$T/mpseek.sql"
tap_is "$?" 0 "mariadb-dump --single-transaction --routines --triggers"
tar -C "$dd" -cf "$T/index.tar" index
tap_is "$?" 0 "tar of DataDir/index"

dd2=$T/e
sed "s|^DataDir .*|DataDir $dd2|" "$conf" >"$T/new.conf"
run --db-start "$T/new.conf"
tap_is "$rc" 0 "mpseek-index --db-start on the new data directory"
mariadb --no-defaults -S "$dd2/mysql/mysqld.sock" -u root mpseek <"$T/mpseek.sql"
tap_is "$?" 0 "the dump loads into the new server"
tar -C "$dd2" -xf "$T/index.tar"
run --check "$T/new.conf"
tap_is "$rc" 0 "mpseek-index --check: the restored index is whole"
tap_is "$("$idx" --dump-index "$T/new.conf" 2>/dev/null | md5sum)" "$before_idx" "the same postings"
tap_is "$(SQL "$dd2" "SELECT url_id, url, status, crc FROM urlword ORDER BY url_id" | md5sum)" "$before_rows" "the same URL rows"
run -S "$T/new.conf"
tap_ok "$(grep -c 'generation' "$T/out")" "-S shows the restored generation"
run -a -u "$hostB" "$T/new.conf"
tap_is "$rc" 0 "a job runs on the restored data (recrawl of one site)"
tap_is "$(SQL "$dd2" "SELECT COUNT(*) FROM sites")" "$(SQL "$dd" "SELECT COUNT(*) FROM sites")" "with the restored sites (triggers included: next_due kept)"
"$idx" --db-stop "$T/new.conf" >/dev/null 2>&1
"$idx" --db-stop "$conf" >/dev/null 2>&1

tap_done
