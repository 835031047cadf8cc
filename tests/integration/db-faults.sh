#!/bin/bash
# db-faults.sh - the database misbehaving under a running crawl, mpirun -np 3
# on a private MariaDB (doc/DATABASE.md, "Connections"; doc/RELIABILITY.md):
#   * every connection of the crawl's database killed twice (KILL
#     CONNECTION, as a server restart or a proxy's idle timeout drops
#     them): the ranks reconnect;
#   * every row of urlword locked by another session for 3 s with
#     innodb_lock_wait_timeout 1: the ranks' statements time out (1205)
#     and are run again;
# and the crawl still ends with exit 0, every page stored once, no claim
# left, the index equal to a clean crawl's, posting for posting by URL.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
[ -x "$idx" ] || tap_skip_all "$idx not built"
command -v python3 >/dev/null || tap_skip_all "python3 not found"

T=$(tmp_dir)
PAGES=60
HOSTS="a b"
WANT=$(( PAGES * 2 ))
mdb_start
SQL() { mdb_sql "$1" "$2"; }
conf() { treeweb_conf "$T/$1.conf" "$1" "$HOSTS"; }
run_bg() {
	LSAN_OPTIONS=detect_leaks=0 "$MPIRUN" -np 3 --oversubscribe "$idx" "$@" >>"$T/out" 2>>"$T/$name.log" &
	JOB=$!
}
index_by_url() {
	SQL "SELECT url_id, url FROM urlword" "$1" >"$T/$1.ids"
	"$idx" --dump-index "$T/$1.conf" 2>/dev/null |
		awk -F'\t' 'NR == FNR { u[$1] = $2; next } { print $1 "\t" u[$2] "\t" $3 }' "$T/$1.ids" - | sort
}
fetched() { wc -l <"$T/tw.log"; }
wait_fetched() { for _ in $(seq 600); do [ "$(fetched)" -ge "$1" ] && return; sleep 0.1; done; }

treeweb_start "$T" "$PAGES" 0
name=clean
conf clean
run_bg "$T/clean.conf"
wait "$JOB"
tap_is "$?" 0 "clean crawl: exit 0"
index_by_url clean >"$T/clean.idx"

# Slow pages, so that the faults fall mid-crawl.
treeweb_start "$T" "$PAGES" 0.1 "$PORT"
name=faults
conf faults
SQL "SET GLOBAL innodb_lock_wait_timeout = 1"
run_bg -v "$T/faults.conf"

wait_fetched 15
kill_all() {
	SQL "SELECT id FROM information_schema.processlist WHERE db = 'faults' AND id <> CONNECTION_ID()" |
		while read -r id; do SQL "KILL CONNECTION $id" 2>/dev/null; done
}
n_killed=$(SQL "SELECT COUNT(*) FROM information_schema.processlist WHERE db = 'faults'")
kill_all
wait_fetched 35
kill_all

wait_fetched 55
# The locking session waits as long as it must for its own locks (a rank's
# transaction may hold some for more than the 1 s the ranks now get), then
# reports how many pages were stored when it held every row.
SQL "SET SESSION innodb_lock_wait_timeout = 50; SET autocommit = 0;
	SELECT COUNT(*) FROM urlword FOR UPDATE;
	SELECT COUNT(*) FROM urlword WHERE status = 200 AND url LIKE '%/p/%';
	DO SLEEP(3); COMMIT" faults >"$T/lock.out"
wait "$JOB"
rc=$?
SQL "SET GLOBAL innodb_lock_wait_timeout = 50"
tap_is "$rc" 0 "crawl through the faults: exit 0"
tap_ok "$([ "$n_killed" -ge 3 ] && echo 1)" "the ranks' connections were there to kill ($n_killed)"
tap_ok "$(grep -c 'lost the connection to MySQL.*reconnecting' "$T/faults.log" | awk '$1 >= 2')" \
	"the ranks reconnected ($(grep -c 'reconnecting' "$T/faults.log") line(s))"
locked_at=$(sed -n 2p "$T/lock.out")
tap_ok "$([ -n "$locked_at" ] && [ "$locked_at" -lt "$WANT" ] && echo 1)" \
	"the lock fell mid-crawl (${locked_at:-no} of $WANT pages stored)"
tap_ok "$(grep -c 'MySQL error 1205 .*retrying' "$T/faults.log" | awk '$1 >= 1')" \
	"statements timed out on the held lock and ran again ($(grep -c 'MySQL error 1205' "$T/faults.log"))"
tap_is "$(grep -cE 'error: |giving up' "$T/faults.log")" 0 "no error line"
tap_is "$(SQL "SELECT COUNT(*) FROM urlword WHERE status = 200 AND url LIKE '%/p/%'" faults)" "$WANT" \
	"every page stored"
tap_is "$(SQL "SELECT COUNT(*) - COUNT(DISTINCT url) FROM urlword" faults)" 0 "every URL once"
tap_is "$(SQL "SELECT COUNT(*) FROM urlword WHERE index_status = 2 OR claim_rank <> -1" faults)" 0 \
	"no claim left"
index_by_url faults >"$T/faults.idx"
sed "s/:$PORT//" "$T/clean.idx" >"$T/a"
sed "s/:$PORT//" "$T/faults.idx" >"$T/b"
tap_ok "$([ -s "$T/a" ] && cmp -s "$T/a" "$T/b" && echo 1)" "the index equals a clean crawl's ($(wc -l <"$T/b") postings)"
tap_done
