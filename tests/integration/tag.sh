#!/bin/bash
# tag.sh - `Tag N` and `mpseek-index --tag N` (doc/DATABASE.md, "Tags").
#
# Two sites on one nginx (one.localhost and two.localhost), five URLs per
# directory (DIR/, DIR/index.html, three pages): site one's
# Server line has Tag 1; site two has a Server line of Tag 2 (/two/) and one
# of Tag 1 (/mix/), so its sites.tag is -1 ("several").  `--tag 1` crawls
# /one/ and /mix/ and nothing of /two/, and ends (the due count of the
# coordinator sees only tag 1), alone and under mpirun -np 3; a plain run
# then crawls /two/.  A changed Tag moves the Server's URLs at the next
# seeding; `-a --tag N` makes only that tag's URLs due.  The tagged pick
# (tests/helper/queue-tool) takes a site of several tags only when a URL of
# the tag is due, and its plan reads sites through tag_due and such a site's
# URLs through site_claim; a version 2 database is refused, then converted
# by sql/upgrade-2-to-3.sql.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx=$builddir/mpseek-index q=$builddir/tests/helper/queue-tool
[ -x "$idx" ] && [ -x "$q" ] || tap_skip_all "mpseek-index or tests/helper/queue-tool not built"
[ -x "$NGINX" ] || tap_skip_all "nginx not found (Debian package nginx)"
T=$(tmp_dir)

# The web: three directories of an index page and three pages each.
mkdir -p "$T/www"
for d in one two mix; do
	mkdir -p "$T/www/$d"
	{
		echo "<html><head><title>$d index</title></head><body>"
		for i in 1 2 3; do echo "<a href=\"p$i.html\">$d page $i</a>"; done
		echo "</body></html>"
	} >"$T/www/$d/index.html"
	for i in 1 2 3; do
		echo "<html><head><title>$d $i</title></head><body>$d text $i <a href=\"index.html\">up</a></body></html>" \
			>"$T/www/$d/p$i.html"
	done
done
web_start "$T/www"
P=$WEB_PORT
mdb_start

# conf DB TAG_ONE TAG_TWO TAG_MIX: the config of database DB.
conf() {
	write_conf "$T/$1.conf" "$1" "MinDelay 0" "ReadTimeOut 10" "Robots no" \
		"Tag $2" "Server http://one.localhost:$P/one/" \
		"Tag $3" "Server http://two.localhost:$P/two/" \
		"Tag $4" "Server http://two.localhost:$P/mix/"
}
SQL() { mdb_sql "$1" "$2"; }
# crawl DB NP [options]: one job (NP 1: without mpirun); exit status in rc.
crawl() {
	local db=$1 np=$2
	shift 2
	if [ "$np" = 1 ]; then
		mpi_no_leak_check timeout 120 "$idx" "$@" "$T/$db.conf" >>"$T/$db.out" 2>>"$T/$db.log"
	else
		mpi_no_leak_check timeout 180 "$MPIRUN" -np "$np" --oversubscribe "$idx" "$@" \
			"$T/$db.conf" >>"$T/$db.out" 2>>"$T/$db.log"
	fi
	rc=$?
	[ "$rc" = 0 ] || { tap_diag "$db: exit $rc; log tail:"; tail -15 "$T/$db.log" | sed 's/^/#   /'; }
}
# fetched DB DIR: URLs of /DIR/ stored with status 200.
fetched() { SQL "SELECT COUNT(*) FROM urlword WHERE status = 200 AND url LIKE '%/$2/%'" "$1"; }
tags() { SQL "SELECT GROUP_CONCAT(DISTINCT tag ORDER BY tag) FROM urlword WHERE url LIKE '%/$2/%'" "$1"; }
sitetag() { SQL "SELECT tag FROM sites WHERE site LIKE 'http://$2.localhost%'" "$1"; }
siteid() { SQL "SELECT site_id FROM sites WHERE site LIKE 'http://$2.localhost%'" "$1"; }
# pick DB TAG: the site_ids db_pick_sites() gives under --tag TAG.
pick() { "$q" "$T/$1.conf" pick 0 10 "$2" | tr '\n' ' ' | sed 's/ $//'; }

# ---- the directive
conf tg 1 2 1
out=$("$idx" --check-config "$T/tg.conf" 2>&1)
tap_is "$?" 0 "Tag is accepted by --check-config $(head -c 200 <<<"$out")"
out=$("$idx" --tag x "$T/tg.conf" 2>&1)
tap_ok "$([ $? = 2 ] && grep -q -- '--tag wants a Tag' <<<"$out" && echo 1)" "--tag x: a usage error"

# ---- --tag 1 alone: /one/ and /mix/, nothing of /two/, and the job ends
crawl tg 1 --tag 1
tap_is "$rc" 0 "--tag 1: exit 0 (the crawl ends with tag 2 still due)"
tap_is "$(fetched tg one)" 5 "--tag 1: site one's 5 URLs fetched (/one/, index.html, 3 pages)"
tap_is "$(fetched tg mix)" 5 "--tag 1: the 5 URLs of site two's Tag 1 Server (/mix/) fetched"
tap_is "$(fetched tg two)" 0 "--tag 1: nothing of Tag 2 (/two/) fetched"
tap_is "$(SQL "SELECT COUNT(*) FROM urlword WHERE url LIKE '%/two/%'" tg)" 1 \
	"... its Server URL is seeded, due"
tap_is "$(tags tg one) $(tags tg mix) $(tags tg two)" "1 1 2" \
	"urlword.tag: the seeded and the linked URLs carry their Server's Tag"
tap_is "$(sitetag tg one) $(sitetag tg two)" "1 -1" \
	"sites.tag: 1 for site one, -1 for site two (Server lines of two tags)"
tap_ok "$(grep -q 'only URLs of Tag 1 are crawled' "$T/tg.log" && echo 1)" "the log says what --tag does"
out=$("$idx" -S "$T/tg.conf" 2>&1)
tap_diag "-S:" "$(sed -n '/Tag /,$p' <<<"$out")"
tap_ok "$(grep -qE '^ +1 +0 +10 +1$' <<<"$out" && grep -qE '^ +2 +1 +1 +0$' <<<"$out" &&
	grep -qE '^ +-1 +0 +0 +1 \(sites of several tags\)$' <<<"$out" && echo 1)" \
	"-S: URLs and sites per tag (tag 1: 10 URLs, 1 site; tag 2: 1 URL due; one site of several)"

# ---- a plain run crawls the rest
crawl tg 1
tap_is "$rc" 0 "then a plain run: exit 0"
tap_is "$(fetched tg one) $(fetched tg mix) $(fetched tg two)" "5 5 5" "... and it crawls /two/"

# ---- the same under mpirun -np 3 (two crawling ranks and the coordinator)
conf tg3 1 2 1
crawl tg3 3 --tag 1
tap_is "$rc" 0 "-np 3 --tag 1: exit 0"
tap_is "$(fetched tg3 one) $(fetched tg3 mix) $(fetched tg3 two)" "5 5 0" \
	"-np 3 --tag 1: Tag 1's 10 URLs, none of Tag 2"
tap_is "$(SQL "SELECT COUNT(*) FROM urlword WHERE index_status = 2 OR claim_rank <> -1" tg3)" 0 \
	"-np 3 --tag 1: no claim left"
crawl tg3 3
tap_is "$(fetched tg3 two)" 5 "-np 3, plain: /two/ crawled"

# ---- a site of several tags first in the pick, with only another tag due
# After a --tag 1 run, site two (tag -1) has /two/ of Tag 2 due since 0: it
# sorts first by next_due, but has nothing of Tag 1 to claim.  The pick of
# Tag 1 leaves it out (it was first, and cost every pick an empty claim):
# empty while nothing of Tag 1 is due, site one alone once /one/ is due,
# site two again once a URL of its Tag 1 Server (/mix/) is.  With site one
# due, each of two ranks' share of the sites found must not be spent on
# site two (the job waited for ever, "3 due, 0/2 ranks busy").
conf tg4 1 2 1
crawl tg4 1 --tag 1
s1=$(siteid tg4 one) s2=$(siteid tg4 two)
tap_is "$(pick tg4 1)/$(pick tg4 2)" "/$s2" \
	"pick --tag 1: site two (several tags, only /two/ of Tag 2 due) is not picked; --tag 2 picks it"
SQL "UPDATE urlword SET next_index_time = UNIX_TIMESTAMP() - 60 WHERE url LIKE '%/one/%'" tg4
tap_is "$(pick tg4 1)" "$s1" "pick --tag 1 with site one due: site one alone (site two not first)"
n0=$(wc -l <"$WEB_LOG")
mpi_no_leak_check timeout 90 "$MPIRUN" -np 3 --oversubscribe "$idx" --tag 1 "$T/tg4.conf" \
	>>"$T/tg4.out" 2>>"$T/tg4.log"
rc=$?
sleep 0.2
tap_is "$rc" 0 "-np 3 --tag 1, a site of several tags first in the pick: exit 0"
tap_is "$(tail -n +"$((n0 + 1))" "$WEB_LOG" | awk -F'\t' '{ split($8, h, ":"); print h[1] $3 }' | sort -u | grep -c '^one\.localhost')" 5 \
	"... and site one's 5 due URLs are fetched again"
SQL "UPDATE urlword SET next_index_time = 0 WHERE url LIKE '%/mix/p1.html'" tg4
tap_is "$(pick tg4 1)" "$s2" "a URL of /mix/ (Tag 1) due: site two is picked under --tag 1"

# ---- a changed Tag moves its Server's URLs at the next seeding
conf tg 3 2 1
crawl tg 1 --seed
tap_is "$(tags tg one) $(sitetag tg one)" "3 3" "site one, Tag 1 -> 3: its URLs and its site carry 3"
tap_is "$(tags tg mix) $(tags tg two) $(sitetag tg two)" "1 2 -1" "site two is left as it was"
conf tg 3 2 2
crawl tg 1 --seed
tap_is "$(tags tg mix) $(tags tg two) $(sitetag tg two)" "2 2 2" \
	"site two, /mix/ Tag 1 -> 2: one tag for the site again"
n0=$(wc -l <"$WEB_LOG")
crawl tg 1 -a --tag 3
sleep 0.2
tap_is "$rc" 0 "-a --tag 3: exit 0"
tap_is "$(tail -n +"$((n0 + 1))" "$WEB_LOG" | awk -F'\t' '{ split($8, h, ":"); print h[1] }' | sort -u | tr '\n' ' ')" \
	"one.localhost " "-a --tag 3: only site one's URLs were due and fetched again"

# ---- the tagged pick's plan: sites through tag_due, in order
sel=$({ sed -n '/BEGIN PICK TAG SELECT/,/END PICK TAG SELECT/p' "$srcdir/src/store/db_claim.c"; echo PICK_TAG_SELECT; } |
	${CC:-cc} -E -P -x c - | tr -d '\n' | sed 's/"[[:space:]]*"//g; s/^[[:space:]]*"//; s/"[[:space:]]*$//')
tap_ok "$(grep -q 'FORCE INDEX (tag_due)' <<<"$sel" && echo 1)" "pick-by-tag SELECT text taken from src/store/db_claim.c"
now=$(date +%s)
sel=$(sed "s/%ld/1/g; s/%u/$now/g; s/%d/64/g" <<<"$sel")
explain=$(SQL "EXPLAIN $sel" tg 2>&1)
tap_diag "EXPLAIN (pick by tag):" "$explain"
tap_is "$(awk -F'\t' '$3 == "sites" && $4 == "range" && $6 == "tag_due" && $10 !~ /filesort|temporary/' <<<"$explain" | wc -l)" 2 \
	"EXPLAIN pick by tag: both parts a range of tag_due in index order (no filesort)"
tap_is "$(awk -F'\t' '$2 == "DEPENDENT SUBQUERY" && $3 == "u" && $4 == "ref" && $6 == "site_claim"' <<<"$explain" | wc -l)/$(wc -l <<<"$explain")" 1/4 \
	"EXPLAIN pick by tag: a site of several tags, its due URL of the tag looked up in site_claim"

# ---- a version 2 database: refused, then converted by the upgrade script
mdb_sql "ALTER TABLE sites DROP KEY tag_due, DROP COLUMN tag" tg3
mdb_sql "ALTER TABLE urlword DROP COLUMN simhash" tg3
mdb_sql "UPDATE mpseek_meta SET value = '2' WHERE name = 'schema_version'" tg3
mdb_sql "UPDATE urlword SET tag = 5 WHERE url LIKE '%/mix/%'" tg3
out=$(timeout 120 "$idx" -S "$T/tg3.conf" 2>&1); rc=$?
tap_ok "$([ "$rc" = 1 ] && grep -q 'schema version 2, this mpseek needs 4: run the upgrade scripts' <<<"$out" && echo 1)" \
	"a version 2 database is refused, with what to do"
mariadb --socket="$MDB_SOCKET" -u root tg3 < "$srcdir/sql/upgrade-2-to-3.sql" 2>"$T/up.err"
tap_is "$?" 0 "sql/upgrade-2-to-3.sql applies $(head -c 200 "$T/up.err")"
mariadb --socket="$MDB_SOCKET" -u root tg3 < "$srcdir/sql/upgrade-3-to-4.sql" 2>"$T/up.err"
tap_is "$?" 0 "then sql/upgrade-3-to-4.sql $(head -c 200 "$T/up.err")"
out=$(timeout 120 "$idx" -S "$T/tg3.conf" 2>&1)
tap_is "$?" 0 "-S accepts the converted database"
tap_is "$(sitetag tg3 one) $(sitetag tg3 two)" "1 -1" \
	"the upgrade fills sites.tag from the URLs (site two: tags 2 and 5)"
mariadb --socket="$MDB_SOCKET" -u root tg3 < "$srcdir/sql/upgrade-2-to-3.sql" 2>"$T/up.err"
tap_is "$?" 0 "the upgrade script can be run again"
tap_done
