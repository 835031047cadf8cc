#!/bin/bash
# directives.sh - every directive of etc/*.conf acts or is refused.
#
# Part 1 walks every word of etc/mpseek.conf and etc/searchd.conf (directive
# lines, commented examples and the lists in the comments) that the parser
# knows: each is refused by --check-config with a reason, or accepted and
# ignored with a warning (ASPseek tuning knobs), or named in the table
# tests/data/directives.tsv with the test that shows what it does; that test
# must be in Makefile.am's TESTS and name the directive.  A directive added
# to a sample config without a test fails here.
#
# Part 2 shows the crawl directives of that table that this file tests:
# MaxURLsPerServer, Index no, AuthBasic, MaxBandwidth, NextDocLimit and
# MaxDocsAtOnce, each against a small site served by nginx.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
srd="$builddir/searchd"
table="$srcdir/tests/data/directives.tsv"
[ -x "$idx" ] || tap_skip_all "$idx not built"
[ -x "$srd" ] || tap_skip_all "$srd not built"
T=$(tmp_dir)

# ---- part 1: the walk ------------------------------------------------------

# check PROGRAM LINE: the one-line config LINE through PROGRAM's
# --check-config; prints its messages.
check() {
	printf '%s\n' "$2" >"$T/one.conf"
	"$1" --check-config "$T/one.conf" 2>&1
}

declare -A row_test=() row_file=() row_gap=()
while IFS=$'\t' read -r name test file gap; do
	case $name in ''|'#'*) continue ;; esac
	row_test[${name,,}]=$test
	row_file[${name,,}]=$file
	row_gap[${name,,}]=$gap
done <"$table"

walked=0
for f in "$srcdir/etc/mpseek.conf" "$srcdir/etc/searchd.conf"; do
	prog=$idx
	cf=$(basename "$f")
	[ "$cf" = searchd.conf ] && prog=$srd
	for w in $(grep -oE '\b[A-Z][A-Za-z0-9]+\b' "$f" | sort -u); do
		case $(check "$prog" "$w") in
		*"unknown directive"*) continue ;;    # prose
		*"belongs in"*) continue ;;            # the other file's: walked there
		*"is not supported by mpseek: "?*)
			walked=$((walked + 1))
			tap_ok 1 "$cf: $w is refused with a reason"
			continue ;;
		esac
		walked=$((walked + 1))
		if check "$prog" "$w 1" | grep -q "accepted for ASPseek compatibility and ignored"; then
			tap_ok 1 "$cf: $w is accepted with a warning that it is ignored"
			continue
		fi
		if check "$prog" "$w no" | grep -q "mpseek supports only" ||
			check "$prog" "$w yes" | grep -q "mpseek supports only"; then
			tap_ok 1 "$cf: $w accepts only the value that describes mpseek"
			continue
		fi
		t=${row_test[${w,,}]:-}
		if [ -z "$t" ]; then
			tap_ok "" "$cf: $w has a row in tests/data/directives.tsv"
			continue
		fi
		ok=1
		[ -f "$srcdir/$t" ] || ok=""
		grep -qE "(^|[[:space:]])${t%.c}([[:space:]]|$)" "$srcdir/Makefile.am" || ok=""
		ev=${row_file[${w,,}]}
		[ "$ev" = - ] && ev=$t
		[ -n "${row_gap[${w,,}]}" ] || grep -qiw -- "$w" "$srcdir/$ev" || ok=""
		[ -n "${row_gap[${w,,}]}" ] && ok=""
		tap_ok_todo "${row_gap[${w,,}]}" "$ok" "$cf: $w is shown by $t"
	done
done
tap_ok "$([ "$walked" -ge 60 ] && echo 1)" "the walk found the directives ($walked)"

# ---- part 2: the crawl directives --------------------------------------------

[ -x "$NGINX" ] || { tap_skip "nginx not found: crawl directives not run"; tap_done; exit; }

# The site: index.html links p01..p20.html, noidx/ (two pages), private/
# (behind HTTP Basic, user:s3cr3t) and big/ (five 66 KB text files, not
# gzipped: text/plain).
site=$T/site
mkdir -p "$site/noidx" "$site/private" "$site/big"
{
	echo '<html><head><title>home</title></head><body>homeword'
	for i in $(seq -w 1 20); do echo "<a href=\"p$i.html\">p$i</a>"; done
	echo '<a href="noidx/">n</a> <a href="private/">p</a> <a href="big/">b</a></body></html>'
} >"$site/index.html"
for i in $(seq -w 1 20); do
	echo "<html><head><title>p$i</title></head><body>pageword$i</body></html>" >"$site/p$i.html"
done
echo '<html><body>hiddenword <a href="a.html">a</a></body></html>' >"$site/noidx/index.html"
echo '<html><body>hiddentoo</body></html>' >"$site/noidx/a.html"
echo '<html><body>privateword <a href="b.html">b</a></body></html>' >"$site/private/index.html"
echo '<html><body>privatetoo</body></html>' >"$site/private/b.html"
{
	echo '<html><body>'
	for i in 1 2 3 4 5; do echo "<a href=\"f$i.txt\">f$i</a>"; done
	echo '</body></html>'
} >"$site/big/index.html"
for i in 1 2 3 4 5; do
	head -c 49152 /dev/urandom | base64 -w 76 >"$site/big/f$i.txt"
done
echo 'user:{PLAIN}s3cr3t' >"$T/htpasswd"
cat >"$T/auth.conf" <<EOF
location /private/ {
	auth_basic "directives";
	auth_basic_user_file $T/htpasswd;
}
EOF
web_start "$site" "$T/auth.conf"
base=${WEB_URL%/}
tap_is "$(curl -s -o /dev/null -w '%{http_code}' "$base/private/")" 401 \
	"nginx wants credentials for /private/"
mdb_start

# crawl DB LINES...: a config for database DB with the lines, crawled
# (robots.txt off, the whole site); log in $T/DB.log, exit status in $rc.
crawl() {
	local db=$1
	shift
	write_conf "$T/$db.conf" "$db" "Robots no" "MinDelay 0" "ReadTimeOut 10" "$@"
	mpi_no_leak_check timeout 300 "$idx" "$T/$db.conf" >"$T/$db.out" 2>"$T/$db.log"
	rc=$?
	[ "$rc" = 0 ] || { tap_diag "$db: exit $rc"; tail -5 "$T/$db.log" | sed 's/^/#   /'; }
}
SQL() { mdb_sql "$1" "$2"; }
# The crawl's own seconds and its claims, from the rank's summary lines.
crawl_secs() { sed -n 's/.* MB in \([0-9.]*\) s$/\1/p' "$T/$1.log" | tail -1; }
claims() { sed -n 's/.* in \([0-9]*\) claim(s).*/\1/p' "$T/$1.log" | tail -1; }

# MaxURLsPerServer: the site's live URLs stop at the limit.
crawl maxurls "MaxURLsPerServer 5" "Server $base/"
tap_is "$rc" 0 "MaxURLsPerServer 5: the crawl exits 0"
tap_is "$(SQL 'SELECT COUNT(*) FROM urlword WHERE deleted = 0' maxurls)" 5 \
	"MaxURLsPerServer 5: 5 URLs stored for the site"
crawl nomax "Server $base/"
tap_ok "$([ "$(SQL 'SELECT COUNT(*) FROM urlword WHERE deleted = 0' nomax)" -gt 20 ] && echo 1)" \
	"without it: the whole site is stored"

# Index no (sticky, by the longest Server prefix): fetched, links followed,
# words not indexed.
crawl noindex "Index no" "Server $base/noidx/" "Index yes" "Server $base/"
tap_is "$rc" 0 "Index no: the crawl exits 0"
tap_is "$(SQL "SELECT COUNT(*) FROM urlword WHERE url LIKE '%/noidx/%' AND status = 200 AND deleted = 0" noindex)" 2 \
	"Index no: its pages are fetched and their links followed"
"$idx" --dump-index "$T/noindex.conf" 2>/dev/null | cut -f1 | sort -u >"$T/noindex.words"
tap_ok "$(grep -qx pageword07 "$T/noindex.words" && echo 1)" "Index yes: a page's word is indexed"
tap_is "$(grep -cxE 'hiddenword|hiddentoo' "$T/noindex.words")" 0 "Index no: no word of its pages is indexed"
crawl noindex2 "NoIndex" "Server $base/noidx/" "Index yes" "Server $base/"
"$idx" --dump-index "$T/noindex2.conf" 2>/dev/null | cut -f1 | sort -u >"$T/noindex2.words"
tap_ok "$(grep -qx pageword07 "$T/noindex2.words" && ! grep -qxE 'hiddenword|hiddentoo' "$T/noindex2.words" && echo 1)" \
	"NoIndex is Index no"

# AuthBasic: the next Server's URLs are fetched with the credentials; the
# password is in no log line and no table.
crawl auth "AuthBasic user:s3cr3t" "Server $base/private/" "Server $base/"
tap_is "$rc" 0 "AuthBasic: the crawl exits 0"
tap_is "$(SQL "SELECT COUNT(*) FROM urlword WHERE url LIKE '%/private/%' AND status = 200" auth)" 2 \
	"AuthBasic: the Server's pages answer 200 and their links are followed"
tap_ok "$(! grep -q s3cr3t "$T/auth.log" "$T/auth.out" && echo 1)" "AuthBasic: the password is not logged"
dump=$(command -v mariadb-dump || command -v mysqldump || echo /usr/bin/mariadb-dump)
"$dump" --no-defaults -S "$MDB_SOCKET" -uroot auth >"$T/auth.sql" 2>"$T/auth.dump.err"
tap_ok "$([ -s "$T/auth.sql" ] && echo 1)" "AuthBasic: the database dumped"
tap_ok "$(! grep -q s3cr3t "$T/auth.sql" && echo 1)" "AuthBasic: the password is in no table"
crawl noauth "Server $base/private/" "Server $base/"
tap_is "$(SQL "SELECT status FROM urlword WHERE url LIKE '%/private/'" noauth)" 401 \
	"without it: 401"

# MaxBandwidth: 332 KB of bodies at 40 KB/s take some 7 s (one second's
# burst allowed); without it well under a second.
crawl bwfree "Server $base/big/"
crawl bw "MaxBandwidth 40000" "Server $base/big/"
tap_is "$(SQL "SELECT COUNT(*) FROM urlword WHERE url LIKE '%.txt' AND status = 200" bw)" 5 \
	"MaxBandwidth: every file fetched"
s=$(crawl_secs bw)
tap_diag "MaxBandwidth 40000: ${s:-?} s; without it: $(crawl_secs bwfree) s"
tap_ok "$(awk -v s="${s:-0}" 'BEGIN { exit !(s >= 3.5) }' && echo 1)" \
	"MaxBandwidth 40000: 332 KB take at least 3.5 s (${s:-?} s)"
# The window is the time of day: one that is over now does not apply.
h=$(date -u +%H)
crawl bwoff "MaxBandwidth 40000 $(((10#$h + 2) % 24))h $(((10#$h + 3) % 24))h" "Server $base/big/"
s=$(crawl_secs bwoff)
tap_ok "$(awk -v s="${s:-9}" 'BEGIN { exit !(s < 3.5) }' && echo 1)" \
	"MaxBandwidth outside its time window: no limit (${s:-?} s)"

# NextDocLimit: URLs in hand per rank; MaxDocsAtOnce: URLs of one site per
# claim.  Counted by the claims of a crawl of the 21 pages.
crawl claimfree "Server $base/" "Disallow /noidx/ /private/ /big/"
crawl nextdoc "NextDocLimit 2" "Server $base/" "Disallow /noidx/ /private/ /big/"
crawl atonce "MaxDocsAtOnce 3" "Server $base/" "Disallow /noidx/ /private/ /big/"
tap_diag "claims: $(claims claimfree) by default, $(claims nextdoc) with NextDocLimit 2, $(claims atonce) with MaxDocsAtOnce 3"
for db in nextdoc atonce; do
	tap_is "$(SQL 'SELECT COUNT(*) FROM urlword WHERE status = 200' $db)" 21 "$db: every page fetched"
done
tap_ok "$([ "$(claims nextdoc)" -ge 10 ] && [ "$(claims claimfree)" -lt 10 ] && echo 1)" \
	"NextDocLimit 2: at least 10 claims for 21 pages (default: $(claims claimfree))"
tap_ok "$([ "$(claims atonce)" -ge 7 ] && echo 1)" "MaxDocsAtOnce 3: at least 7 claims for 21 pages"

tap_done
