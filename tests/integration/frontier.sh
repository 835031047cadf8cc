#!/bin/bash
# frontier.sh - sites.next_due, the frontier of the work queue
# (doc/DATABASE.md, "The frontier"), through the real library calls
# (tests/helper/queue-tool) on a private MariaDB server.
#
# A site's next_due is never later than the earliest next_index_time of its
# live URLs, so that db_pick_sites() finds free sites with due URLs from the
# sites table alone: urlword's triggers lower it on every write that makes
# a URL due sooner (seeding, new links, stored outcomes, released claims,
# -a, an administrator's UPDATE), and a recount raises it (a site claim that
# took everything due, a lease given back, the start of a job).  The picks'
# and recounts' plans use indexes only; a missing trigger is put back by
# the next crawl run; a version 1 database is refused, then converted by
# sql/upgrade-1-to-2.sql and sql/upgrade-2-to-3.sql.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx=$builddir/mpseek-index q=$builddir/tests/helper/queue-tool
[ -x "$idx" ] && [ -x "$q" ] || tap_skip_all "mpseek-index or tests/helper/queue-tool not built"
mdb_start
T=$(tmp_dir)

write_conf "$T/f.conf" mpf "Robots no" \
	"Server http://127.0.0.1:9/" "Server http://127.0.0.2:9/" "Server http://127.0.0.3:9/"
out=$(mpi_no_leak_check timeout 120 "$idx" --seed "$T/f.conf" 2>&1)
tap_is "$?" 0 "--seed creates and seeds the database"
due() { mdb_sql "SELECT next_due FROM sites WHERE site_id = $1" mpf; }
lease() { mdb_sql "SELECT lease_until FROM sites WHERE site_id = $1" mpf; }
truemin() { mdb_sql "SELECT COALESCE(MIN(next_index_time), 4294967295) FROM urlword
	WHERE site_id = $1 AND deleted = 0" mpf; }
pick() { "$q" "$T/f.conf" pick 0 10 | tr '\n' ' ' | sed 's/ $//'; }
now=$(date +%s)

tap_is "$(mdb_sql "SELECT GROUP_CONCAT(next_due ORDER BY site_id) FROM sites" mpf)" "0,0,0" \
	"seeded sites are due at once (next_due 0)"
tap_is "$(pick)" "1 2 3" "the three seeded sites are picked, oldest due first"

# A site claim that takes everything due: next_due becomes the lease's end
# (the claimed rows are due again then, if their rank dies).
got=$("$q" "$T/f.conf" claim 1 10 600 1 | wc -l)
tap_is "$got" 1 "site 1: its one URL claimed"
tap_is "$(due 1)" "$(lease 1)" "site 1: next_due is the lease's end after a claim took everything"
tap_is "$(pick)" "2 3" "a leased site is not picked"

# New links: the site is due again, at once.
tap_is "$("$q" "$T/f.conf" links 1 http://127.0.0.1:9/a http://127.0.0.1:9/b)" 2 "two new URLs on site 1"
tap_ok "$([ "$(due 1)" -le "$(date +%s)" ] && echo 1)" "site 1: new links bring next_due down to now"
tap_is "$("$q" "$T/f.conf" links 1 http://127.0.0.1:9/a)" 0 "a known URL is not new"
ids=$("$q" "$T/f.conf" claim 1 10 600 1 | tr '\n' ' ')
tap_is "$(wc -w <<<"$ids")" 2 "site 1: the two new URLs claimed"

# Outcomes due far away, then the lease given back: the recount is exact.
first=$(mdb_sql "SELECT MIN(url_id) FROM urlword WHERE site_id = 1" mpf)
far=$((now + 100000))
tap_is "$("$q" "$T/f.conf" store 1 "$far" $first $ids)" 0 "site 1: three outcomes stored, none lost"
tap_is "$("$q" "$T/f.conf" release-after 1 1 0; echo $?)" 0 "site 1: lease given back"
tap_is "$(due 1)" "$far" "site 1: next_due recounted to its earliest URL ($far)"
tap_is "$(due 1)" "$(truemin 1)" "... which is what urlword says"
tap_is "$(pick)" "2 3" "site 1, with nothing due, is not picked"

# An outcome due sooner than next_due lowers it, even while the site is held.
sid2=$("$q" "$T/f.conf" claim 1 10 600 2)
tap_is "$(due 2)" "$(lease 2)" "site 2: claimed, next_due is the lease's end"
soon=$((now + 5))
"$q" "$T/f.conf" store 1 "$soon" "$sid2" >/dev/null
tap_is "$(due 2)" "$soon" "site 2: a retry due in 5 s brings next_due down while the lease is held"

# Claims given back (a rank's, or a dead job's): their sites are due now.
"$q" "$T/f.conf" claim 2 10 600 3 >/dev/null
tap_is "$(due 3)" "$(lease 3)" "site 3: claimed by rank 2"
"$q" "$T/f.conf" release 2
tap_ok "$([ "$(due 3)" -le "$(date +%s)" ] && echo 1)" "site 3: rank 2's claims given back, next_due is now"
tap_ok "$(pick | grep -qw 3 && echo 1)" "site 3 is picked again"
"$q" "$T/f.conf" claim 2 10 600 3 >/dev/null
out=$("$q" "$T/f.conf" start 2>&1)
tap_ok "$(grep -q 'released 1 URL(s) claimed by an earlier run' <<<"$out" && [ "$(due 3)" -le "$(date +%s)" ] && echo 1)" \
	"a dead job's claim: released at the next job's start, site 3 due now"

# A time an administrator sets by hand takes effect at once (the trigger).
mdb_sql "UPDATE urlword SET next_index_time = 0 WHERE site_id = 1" mpf
tap_is "$(due 1)" 0 "a hand edit of next_index_time to 0: site 1's next_due is 0 at once"
tap_ok "$(pick | grep -qw 1 && echo 1)" "... and it is picked"
mdb_sql "UPDATE urlword SET next_index_time = $far WHERE site_id = 1" mpf
tap_is "$(due 1)" 0 "a later time does not raise next_due by itself"
"$q" "$T/f.conf" start
tap_is "$(due 1)" "$far" "a crawl job's start recounts every site (site 1 back to $far)"
mdb_sql "INSERT INTO urlword (site_id, url, next_index_time) VALUES (1, 'http://127.0.0.1:9/hand', 77)" mpf
tap_is "$(due 1)" 77 "a URL inserted by hand lowers its site's next_due"
mdb_sql "DELETE FROM urlword WHERE url = 'http://127.0.0.1:9/hand'" mpf
"$q" "$T/f.conf" recount
mdb_sql "INSERT INTO sites (site) VALUES ('http://127.0.0.9:9/')" mpf
"$q" "$T/f.conf" recount
tap_is "$(mdb_sql "SELECT next_due FROM sites WHERE site = 'http://127.0.0.9:9/'" mpf)" 4294967295 \
	"a site without URLs: next_due 4294967295"

# -a: everything due now.
"$q" "$T/f.conf" expire
tap_is "$(mdb_sql "SELECT COUNT(*) FROM sites s WHERE next_due <> 0
	AND EXISTS (SELECT 1 FROM urlword u WHERE u.site_id = s.site_id)" mpf)" 0 "-a: every site with URLs due now"

# The plans: the pick reads the sites table through `due` in order; the
# recount's MIN is one dive into urlword's site_claim index.
sel=$({ sed -n '/BEGIN PICK SELECT/,/END PICK SELECT/p' "$srcdir/src/store/db_claim.c"; echo PICK_SELECT; } |
	${CC:-cc} -E -P -x c - | tr -d '\n' | sed 's/"[[:space:]]*"//g; s/^[[:space:]]*"//; s/"[[:space:]]*$//')
tap_ok "$(grep -q 'FROM sites FORCE INDEX (due)' <<<"$sel" && echo 1)" "pick SELECT text taken from src/store/db_claim.c"
sel=$(sed "s/%u/$now/g; s/%d/64/" <<<"$sel")
explain=$(mdb_sql "EXPLAIN $sel" mpf 2>&1)
tap_diag "EXPLAIN (pick):" "$explain"
tap_ok "$(awk -F'\t' '$3 == "sites" && $4 == "range" && $6 == "due"' <<<"$explain" | grep -q . && echo 1)" \
	"EXPLAIN pick: a range of index due"
tap_ok "$([ -n "$explain" ] && ! grep -qi 'filesort\|temporary' <<<"$explain" && echo 1)" \
	"EXPLAIN pick: no filesort, no temporary table"
explain=$(mdb_sql "EXPLAIN SELECT COALESCE(MIN(next_index_time), 4294967295) FROM urlword
	FORCE INDEX (site_claim) WHERE site_id = 2 AND deleted = 0" mpf 2>&1)
tap_diag "EXPLAIN (recount):" "$explain"
tap_ok "$(grep -q 'Select tables optimized away\|site_claim' <<<"$explain" && ! awk -F'\t' '$4 == "ALL"' <<<"$explain" | grep -q . && echo 1)" \
	"EXPLAIN recount: the site_claim index, no scan"

# A missing trigger: -S names it, a crawl run puts it back.
mdb_sql "DROP TRIGGER urlword_due_update" mpf
out=$(timeout 120 "$idx" -S "$T/f.conf" 2>&1); rc=$?
tap_ok "$([ "$rc" = 1 ] && grep -q 'lacks trigger urlword_due_update' <<<"$out" && echo 1)" \
	"-S: a dropped trigger is named: $(grep -o 'database mpf lacks[^:]*' <<<"$out")"
out=$(mpi_no_leak_check timeout 120 "$idx" --seed "$T/f.conf" 2>&1)
tap_is "$(mdb_sql "SELECT COUNT(*) FROM information_schema.triggers WHERE trigger_schema = 'mpf'")" 2 \
	"a crawl run puts the trigger back"

# A version 1 database: refused, then converted by the upgrade script.
mdb_sql "DROP TRIGGER urlword_due_insert" mpf
mdb_sql "DROP TRIGGER urlword_due_update" mpf
mdb_sql "ALTER TABLE sites DROP KEY due, DROP COLUMN next_due, DROP COLUMN scope" mpf
mdb_sql "ALTER TABLE urlword DROP COLUMN simhash" mpf
mdb_sql "UPDATE mpseek_meta SET value = '1' WHERE name = 'schema_version'" mpf
out=$(timeout 120 "$idx" -S "$T/f.conf" 2>&1); rc=$?
tap_ok "$([ "$rc" = 1 ] && grep -q 'schema version 1, this mpseek needs 4: run the upgrade scripts' <<<"$out" && echo 1)" \
	"a version 1 database is refused, with what to do"
mariadb --socket="$MDB_SOCKET" -u root mpf < "$srcdir/sql/upgrade-1-to-2.sql" 2>"$T/up.err"
tap_is "$?" 0 "sql/upgrade-1-to-2.sql applies $(head -c 200 "$T/up.err")"
mariadb --socket="$MDB_SOCKET" -u root mpf < "$srcdir/sql/upgrade-2-to-3.sql" 2>"$T/up.err"
tap_is "$?" 0 "then sql/upgrade-2-to-3.sql $(head -c 200 "$T/up.err")"
mariadb --socket="$MDB_SOCKET" -u root mpf < "$srcdir/sql/upgrade-3-to-4.sql" 2>"$T/up.err"
tap_is "$?" 0 "then sql/upgrade-3-to-4.sql $(head -c 200 "$T/up.err")"
out=$(timeout 120 "$idx" -S "$T/f.conf" 2>&1)
tap_is "$?" 0 "-S accepts the converted database"
tap_is "$(mdb_sql "SELECT COUNT(*) FROM sites s WHERE s.next_due <> COALESCE((SELECT MIN(next_index_time)
	FROM urlword u WHERE u.site_id = s.site_id AND u.deleted = 0), 4294967295)" mpf)" 0 \
	"the upgrade fills next_due from urlword"
mariadb --socket="$MDB_SOCKET" -u root mpf < "$srcdir/sql/upgrade-1-to-2.sql" 2>"$T/up.err"
tap_is "$?" 0 "the upgrade script can be run again"
mariadb --socket="$MDB_SOCKET" -u root mpf < "$srcdir/sql/upgrade-3-to-4.sql" 2>"$T/up.err"
tap_is "$?" 0 "sql/upgrade-3-to-4.sql can be run again $(head -c 200 "$T/up.err")"
tap_done
