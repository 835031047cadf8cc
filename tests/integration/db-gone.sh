#!/bin/bash
# db-gone.sh - a job never outlives its database (DBGrace, doc/DATABASE.md
# "Connections"): mariadbd killed for good mid-crawl under mpirun -np 2,
#   * the job exits non-zero within DBGrace and a few seconds, with one line
#     naming the database and DBGrace;
#   * no page is requested once the grace is over (the web server's log);
#   * with the server back on the same data, a rerun completes the crawl and
#     the index equals a clean crawl's, posting for posting by URL, every
#     page stored once.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
[ -x "$idx" ] || tap_skip_all "$idx not built"
command -v python3 >/dev/null || tap_skip_all "python3 not found"

T=$(tmp_dir)
PAGES=120
HOSTS="a b c"
GRACE=5
# treeweb (lib.sh) with this test's page count, its log in $T/tw.log.
tw_start() { treeweb_start "$T" "$PAGES" "$@"; }

mdb_start
# conf NAME [LINES...]: a config crawling the hosts of $HOSTS.
conf() { local n=$1; shift; treeweb_conf "$T/$n.conf" "$n" "$HOSTS" "DBGrace ${GRACE}s" "$@"; }
SQL() { mdb_sql "$1" "$2"; }
# run_bg NAME SECONDS: mpirun -np 2 in the background, at most SECONDS; pid in $JOB.
run_bg() {
	mpi_no_leak_check timeout "$2" "$MPIRUN" -np 2 --oversubscribe "$idx" "$T/$1.conf" \
		>>"$T/$1.out" 2>>"$T/$1.log" &
	JOB=$!
}
run() { run_bg "$1" 300; wait "$JOB"; rc=$?; }
pages200() { SQL "SELECT COUNT(*) FROM urlword WHERE status = 200 AND url LIKE '%/p/%'" "$1"; }
index_by_url() {
	SQL "SELECT url_id, url FROM urlword" "$1" | sed "s/:$PORT//" >"$T/$1.ids"
	"$idx" --dump-index "$T/$1.conf" 2>/dev/null |
		awk -F'\t' 'NR == FNR { u[$1] = $2; next } { print $1 "\t" u[$2] "\t" $3 }' "$T/$1.ids" - | sort
}
WANT=$(( PAGES * $(echo $HOSTS | wc -w) ))

# ---- the reference: a clean crawl
tw_start 0.002
conf clean
run clean
tap_is "$rc" 0 "clean crawl: exit 0"
index_by_url clean >"$T/clean.idx"

# ---- mariadbd killed for good mid-crawl
tw_start 0.1
conf gone
run_bg gone 120
# Mid-crawl: 60 requests made and a page stored (the transfers go out
# faster than the stores commit, so requests alone may all come first).
for _ in $(seq 600); do
	[ "$(wc -l <"$T/tw.log")" -ge 60 ] && [ "$(pages200 gone 2>/dev/null || echo 0)" -gt 0 ] && break
	sleep 0.1
done
killed=$(date +%s.%N)
kill -KILL "$_mdb_pid"
wait "$_mdb_pid" 2>/dev/null
_mdb_pid=""
wait "$JOB"; rc=$?
ended=$(date +%s.%N)
took=$(awk -v a="$killed" -v b="$ended" 'BEGIN { printf "%.1f", b - a }')
tap_ok "$([ "$rc" != 0 ] && [ "$rc" != 124 ] && echo 1)" "the job ends with a non-zero status (exit $rc)"
tap_ok "$(awk -v t="$took" -v g="$GRACE" 'BEGIN { print t < g + 10 }')" "... within DBGrace ${GRACE} s and a few seconds (${took} s)"
line='has been unreachable for [0-9]+ s \(DBGrace\): stopping; rerun to resume'
tap_is "$(grep -cE "$line" "$T/gone.log")" 1 "one line says why: $(grep -oE "the database at .*$line" "$T/gone.log" | head -1)"
late=$(awk -F'\t' -v k="$killed" -v g="$GRACE" '$1 > k + g + 1' "$T/tw.log" | wc -l)
tap_is "$late" 0 "no page requested after the kill + DBGrace"
cp "$T/tw.log" "$T/gone.access1"

# ---- the server back on the same data: a rerun completes the crawl
_mdb_run
n=$(pages200 gone)
tap_ok "$([ "$n" -gt 0 ] && [ "$n" -lt "$WANT" ] && echo 1)" "the kill came mid-crawl ($n pages stored)"
: >"$T/tw.log"
run gone
tap_is "$rc" 0 "rerun with the database back: exit 0"
tap_is "$(pages200 gone)" "$WANT" "rerun: every page stored"
tap_is "$(SQL 'SELECT COUNT(*) - COUNT(DISTINCT url) FROM urlword' gone)" 0 "no URL row twice"
index_by_url gone >"$T/gone.idx"
tap_ok "$(cmp -s "$T/clean.idx" "$T/gone.idx" && [ "$(wc -l <"$T/clean.idx")" -gt 1000 ] && echo 1)" \
	"the index equals a clean crawl's, posting for posting by URL ($(wc -l <"$T/gone.idx") postings)"
cmp -s "$T/clean.idx" "$T/gone.idx" || diff "$T/clean.idx" "$T/gone.idx" | head -5 | sed 's/^/# /'
tap_ok "$("$idx" --check "$T/gone.conf" >/dev/null 2>&1 && echo 1)" "--check passes"
tap_done
