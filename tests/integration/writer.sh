#!/bin/bash
# writer.sh - one writer per database and DataDir: beside a
# running crawl a second crawl is refused (same DataDir and database, same
# DataDir with another database, same database with another DataDir, under
# mpirun -np 2) with a message naming the crawl (host, pid, start time);
# read-only -S still runs; -D waits for the crawl and nothing is lost (every
# stored page is in the index at the end); two -D at once leave a sound
# index; the next crawl runs once the
# first has ended.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
[ -x "$idx" ] || tap_skip_all "$idx not built"
[ -x "$NGINX" ] || tap_skip_all "nginx not found (Debian package nginx)"

T=$(tmp_dir)

# ---- one writer
test_web_start "$T/site"
mdb_start
conf=$T/mpseek.conf
write_conf "$conf" wa "MinDelay 0.3" "ReadTimeOut 5" "MaxHops 6" "Robots yes" "Server $WEB_URL"
dd=$MDB_DIR/data-wa
SQL() { mdb_sql "$1" wa; }

"$idx" -v "$conf" >"$T/a.log" 2>&1 &
apid=$!
for _ in $(seq 300); do
	grep -q 'connected and ready' "$T/a.log" && break
	sleep 0.1
done
started=$(grep -c 'connected and ready' "$T/a.log")
tap_is "$started" 1 "the first crawl is running"
host=$(hostname)

refused() { # refused LOG: the refusal names the running crawl
	grep -q "is in use by another mpseek-index job: crawl pid $apid on $host started 20" "$1" && echo 1
}
"$idx" "$conf" >"$T/b.log" 2>&1
tap_is "$?" 1 "a second crawl on the same DataDir and database exits 1"
tap_ok "$(refused "$T/b.log")" "its message names the crawl: host, pid, start time"
[ "$(refused "$T/b.log")" ] || sed 's/^/# /' "$T/b.log"
tap_ok "$(grep -q 'inserted .* new URL\|gave back\|released' "$T/b.log" || echo 1)" "it touched nothing"

write_conf "$T/other-db.conf" wb "Server $WEB_URL"
sed -i "s|^DataDir .*|DataDir $dd|" "$T/other-db.conf"
"$idx" "$T/other-db.conf" >"$T/c.log" 2>&1
tap_is "$?" 1 "a crawl of another database on the same DataDir exits 1"
tap_ok "$(grep -q "DataDir $dd is in use" "$T/c.log" && refused "$T/c.log")" "refused by the DataDir lock, naming the crawl"

write_conf "$T/other-dir.conf" wa "Server $WEB_URL"
sed -i "s|^DataDir .*|DataDir $T/other-dir|" "$T/other-dir.conf"
"$idx" "$T/other-dir.conf" >"$T/d.log" 2>&1
tap_is "$?" 1 "a crawl of the same database from another DataDir exits 1"
tap_ok "$(grep -q "database wa is in use" "$T/d.log" && refused "$T/d.log")" "refused by the database lock, naming the crawl"

mpi_no_leak_check timeout 120 "$MPIRUN" -np 2 --oversubscribe "$idx" "$conf" >"$T/e.log" 2>&1
tap_ok "$([ $? -ne 0 ] && echo 1)" "a second crawl under mpirun -np 2 exits non-zero"
tap_is "$(grep -c 'is in use by another mpseek-index job' "$T/e.log")" 1 "rank 0 alone says why"
tap_ok "$(grep -q 'MPI_ABORT' "$T/e.log" || echo 1)" "no MPI_ABORT banner"

"$idx" -S "$conf" >"$T/stats.out" 2>"$T/stats.log"
tap_is "$?" 0 "-S runs beside the crawl"

"$idx" -D "$conf" >"$T/merge.log" 2>&1 &
mpid=$!
wait "$apid"
tap_is "$?" 0 "the crawl exits 0"
wait "$mpid"
tap_is "$?" 0 "-D beside the crawl exits 0"
tap_ok "$(grep -q 'the writer lock of .* is held by crawl pid '"$apid"'.*waiting for it' "$T/merge.log" && echo 1)" \
	"-D said it waits for the crawl"
kill -0 "$apid" 2>/dev/null
tap_ok "$(grep -q 'generation .* is live' "$T/a.log" && echo 1)" "the crawl published its generation"

# Nothing lost: every stored page of the crawl is in the live index.
for i in $(seq 0 15); do
	SQL "SELECT d.url_id FROM $(printf 'urlwords%02d' "$i") d JOIN urlword u USING (url_id)
	     WHERE d.deleted = 0 AND u.deleted = 0 AND u.status = 200 AND u.origin = 1
	     AND d.words IS NOT NULL"
done | sort -n >"$T/stored.txt"
"$idx" --dump-index "$conf" 2>/dev/null | cut -f2 | sort -un >"$T/indexed.txt"
n=$(wc -l <"$T/stored.txt")
tap_ok "$([ "$n" -gt 10 ] && cmp -s "$T/stored.txt" "$T/indexed.txt" && echo 1)" \
	"all $n stored pages are in the index ($(wc -l <"$T/indexed.txt") indexed)"
tap_is "$(SQL 'SELECT COUNT(*) FROM urlword WHERE index_status = 2 OR claim_rank <> -1')" 0 \
	"no claim left behind"

# Two merges at once: one after the other, and the index they leave is sound.
"$idx" -D "$conf" >"$T/m1.log" 2>&1 &
m1=$!
"$idx" -D "$conf" >"$T/m2.log" 2>&1
r2=$?
wait "$m1"
tap_is "$?/$r2" 0/0 "two -D at once both exit 0"
"$idx" --check "$conf" >"$T/check.out" 2>&1
tap_is "$?" 0 "the index they leave passes --check"

# The lock died with the job: a new crawl runs.
"$idx" "$conf" >"$T/f.log" 2>&1
tap_is "$?" 0 "once the crawl ended, the next one runs"

tap_done
