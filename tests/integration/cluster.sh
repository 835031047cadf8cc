#!/bin/bash
# cluster.sh - the cluster crawl under real mpirun against a generated web
# (tests/servers/treeweb.py: 3 hosts of 121 pages, served slowly):
#   * -np 3 (two crawling ranks) stores the same URLs, statuses and MD5s as
#     one rank alone, fetches no URL twice, leaves no claim;
#   * SIGKILL of a worker mid-crawl, then a rerun: nothing lost, nothing
#     duplicated, nothing fetched again that was stored before the kill;
#   * `mpseek-index -E` stops a running job (exit 0, claims released), and a
#     rerun completes it; SIGTERM to one worker stops the whole job cleanly;
#   * mariadbd restarted mid-crawl: the job reconnects and completes;
#   * two crawling ranks and one host with MinDelay 0.3: requests to the host
#     never overlap and start at least 0.3 s after the previous one ended.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
[ -x "$idx" ] || tap_skip_all "$idx not built"
command -v python3 >/dev/null || tap_skip_all "python3 not found"

T=$(tmp_dir)
PAGES=120
HOSTS="a b c"
# treeweb (lib.sh) with this test's page count, its log in $T/tw.log.
tw_start() { treeweb_start "$T" "$PAGES" "$@"; }

mdb_start
# conf NAME [LINES...]: a config crawling the hosts of $HOSTS.
conf() { local n=$1; shift; treeweb_conf "$T/$n.conf" "$n" "$HOSTS" "$@"; }
SQL() { mdb_sql "$1" "$2"; }
# run NAME NP [args]: mpirun in the background; pid in $JOB.
run_bg() {
	local name=$1 np=$2; shift 2
	mpi_no_leak_check timeout 300 "$MPIRUN" -np "$np" --oversubscribe "$idx" "$@" "$T/$name.conf" \
		>>"$T/$name.out" 2>>"$T/$name.log" &
	JOB=$!
}
run() { run_bg "$@"; wait "$JOB"; rc=$?; }
dump() { SQL "SELECT url, status, crc FROM urlword ORDER BY url" "$1"; }
pages200() { SQL "SELECT COUNT(*) FROM urlword WHERE status = 200 AND url LIKE '%/p/%'" "$1"; }
claims_left() { SQL "SELECT COUNT(*) FROM urlword WHERE index_status = 2 OR claim_rank <> -1" "$1"; }
# wait_requests N: until the server logged N requests (at most 60 s).
wait_requests() { for _ in $(seq 600); do [ "$(wc -l <"$T/tw.log")" -ge "$1" ] && return 0; sleep 0.1; done; return 1; }
fetched_twice() { awk -F'\t' '$7 == 200 { print $4 $6 }' "$1" | sort | uniq -d; }
WANT=$(( PAGES * $(echo $HOSTS | wc -w) ))

# ---- one rank and three ranks give the same documents
tw_start 0.002
conf solo
run solo 1
tap_is "$rc" 0 "-np 1: exit 0"
tap_is "$(pages200 solo)" "$WANT" "-np 1: every page stored with status 200"
cp "$T/tw.log" "$T/solo.access"
conf trio
: >"$T/tw.log"
run trio 3
tap_is "$rc" 0 "-np 3: exit 0"
tap_is "$(dump trio | sed "s/:$PORT//")" "$(dump solo | sed "s/:$PORT//")" "-np 3 stores the same URLs, statuses and MD5s as -np 1"
tap_is "$(fetched_twice "$T/tw.log")" "" "-np 3: no URL fetched twice"
tap_is "$(claims_left trio)" 0 "-np 3: no claim or site lease left"
# The index after the crawl: url_ids depend on the order of discovery, so
# the postings are compared by URL; -np 2 and 4 as well.
index_by_url() {
	SQL "SELECT url_id, url FROM urlword" "$1" | sed "s/:$PORT//" >"$T/$1.ids"
	"$idx" --dump-index "$T/$1.conf" 2>/dev/null |
		awk -F'\t' 'NR == FNR { u[$1] = $2; next } { print $1 "\t" u[$2] "\t" $3 }' "$T/$1.ids" - | sort
}
index_by_url solo >"$T/solo.idx"
same=1
for np in 2 3 4; do
	name=trio
	if [ "$np" != 3 ]; then
		name=np$np
		conf "$name"
		run "$name" "$np"
		[ "$rc" = 0 ] || { same=0; tap_diag "-np $np: exit $rc"; }
	fi
	index_by_url "$name" >"$T/$name.idx"
	cmp -s "$T/solo.idx" "$T/$name.idx" || { same=0; tap_diag "-np $np: the index differs"; diff "$T/solo.idx" "$T/$name.idx" | head -3 | sed 's/^/#   /'; }
	"$idx" --check "$T/$name.conf" >/dev/null 2>&1 || { same=0; tap_diag "-np $np: --check fails"; }
done
tap_ok "$([ "$same" = 1 ] && [ "$(wc -l <"$T/solo.idx")" -gt 1000 ] && echo 1)" \
	"crawl + merge with -np 2, 3, 4 give the index of -np 1, posting for posting by URL ($(wc -l <"$T/solo.idx") postings); --check passes"
# Without mpirun the process does not initialise MPI at all (cluster_init():
# no launcher in its environment): the same crawl and index as -np 1.
conf lone
mpi_no_leak_check timeout 300 "$idx" "$T/lone.conf" >"$T/lone.out" 2>"$T/lone.log"
tap_is "$?" 0 "alone, without mpirun: exit 0"
index_by_url lone >"$T/lone.idx"
tap_ok "$(cmp -s "$T/solo.idx" "$T/lone.idx" && "$idx" --check "$T/lone.conf" >/dev/null 2>&1 && echo 1)" \
	"alone, without mpirun (no MPI): the index of -np 1, posting for posting by URL; --check passes"
# Which way cluster_init() went, from its own debug line (-v): a merge (-D)
# alone, then the same under mpirun -np 1.
mpi_no_leak_check timeout 120 "$idx" -v -D "$T/lone.conf" >/dev/null 2>"$T/lone-d.log"
tap_ok "$(grep -q 'no MPI launcher in the environment: rank 0 of 1, MPI not started' "$T/lone-d.log" &&
	! grep -q 'started by an MPI launcher' "$T/lone-d.log" && echo 1)" \
	"alone, without mpirun: MPI is not started (-v says so)"
mpi_no_leak_check timeout 120 "$MPIRUN" -np 1 "$idx" -v -D "$T/lone.conf" >/dev/null 2>"$T/lone-d1.log"
tap_ok "$(grep -q 'started by an MPI launcher: rank 0 of 1' "$T/lone-d1.log" &&
	! grep -q 'no MPI launcher' "$T/lone-d1.log" && echo 1)" \
	"under mpirun -np 1: MPI is started (-v says so)"
tap_ok "$(grep -q 'nothing is due and no rank is busy' "$T/trio.log" && echo 1)" "the master decides the end"
tap_is "$(grep -cE '^ +[12] +[0-9]+ ' "$T/trio.out")" 2 "the summary has a row per crawling rank"
tap_ok "$(awk '$1 == 1 && $2 > 0 { a = 1 } $1 == 2 && $2 > 0 { b = 1 } END { print a && b }' "$T/trio.out")" \
	"both crawling ranks fetched pages"

# ---- -n: a budget for the whole job
conf budget
: >"$T/tw.log"
run budget 3 -n 50
tap_is "$rc" 0 "-np 3 -n 50: exit 0"
n=$(awk -F'\t' '$6 ~ /^\/p\// || $6 == "/"' "$T/tw.log" | wc -l)
tap_ok "$([ "$n" -ge 45 ] && [ "$n" -le 50 ] && echo 1)" "-np 3 -n 50: 45..50 pages fetched by the two ranks together ($n)"
tap_is "$(claims_left budget)" 0 "-n: no claim left"

# ---- SIGKILL of a worker, then a rerun
tw_start 0.02
conf kill
run_bg kill 3
wait_requests 120
# ... and some of them stored (on a loaded machine the first store batch can
# lag the requests by seconds): the kill must come mid-crawl.
for _ in $(seq 300); do
	[ "$(SQL "SELECT COUNT(*) FROM urlword WHERE index_status = 1 AND status = 200" kill 2>/dev/null)" -gt 0 ] 2>/dev/null && break
	sleep 0.1
done
pid=$(sed -n 's/.*mpseek-index\[\([0-9]*\)\] rank 2 .*/\1/p' "$T/kill.log" | head -1)
tap_ok "$pid" "found rank 2's pid ($pid)"
[ -n "$pid" ] && kill -KILL "$pid"
wait "$JOB"; rc=$?
tap_ok "$([ "$rc" != 0 ] && echo 1)" "the job ends when a worker is killed (exit $rc)"
SQL "SELECT url FROM urlword WHERE index_status = 1 AND status = 200" kill | sed 's,^http://,,; s,^\([^/]*\)/,\1\t/,' | sort >"$T/stored-before"
tap_ok "$([ "$(wc -l <"$T/stored-before")" -gt 0 ] && [ "$(wc -l <"$T/stored-before")" -lt "$WANT" ] && echo 1)" \
	"the kill came mid-crawl ($(wc -l <"$T/stored-before") pages stored)"
cp "$T/tw.log" "$T/kill.access1"; : >"$T/tw.log"
run kill 3
tap_is "$rc" 0 "rerun after the kill: exit 0"
tap_ok "$(grep -q 'released .* claimed by an earlier run' "$T/kill.log" && echo 1)" "the rerun gives back the dead job's claims"
tap_is "$(pages200 kill)" "$WANT" "rerun: every page stored (nothing lost)"
tap_is "$(SQL 'SELECT COUNT(*) - COUNT(DISTINCT url) FROM urlword' kill)" 0 "no URL row twice"
tap_is "$(awk -F'\t' '$7 == 200 { print $4 "\t" $6 }' "$T/tw.log" | sort | comm -12 - "$T/stored-before" | head -3)" "" \
	"the rerun fetches nothing that was stored before the kill"
tap_is "$(fetched_twice "$T/tw.log")" "" "the rerun fetches no URL twice"
tap_is "$(claims_left kill)" 0 "rerun: no claim left"

# ---- mpseek-index -E stops the job gracefully; a rerun completes it
conf term
: >"$T/tw.log"
run_bg term 3
wait_requests 100
"$idx" -E "$T/term.conf" >"$T/stop.out" 2>&1; erc=$?
wait "$JOB"; rc=$?
tap_is "$erc $rc" "0 0" "-E: mpseek-index -E and the job exit 0"
tap_ok "$(grep -q 'stop requested by the master' "$T/term.log" && echo 1)" "-E: the master relays the stop to the workers"
tap_is "$(claims_left term)" 0 "-E: every claim released"
n=$(pages200 term)
tap_ok "$([ "$n" -lt "$WANT" ] && echo 1)" "-E came mid-crawl ($n pages stored)"
tap_ok "$([ ! -e "$MDB_DIR/data-term/mpseek-index.pid" ] && echo 1)" "-E: rank 0's pid file is gone"
cp "$T/tw.log" "$T/term.access1"; : >"$T/tw.log"
run term 3
tap_is "$rc" 0 "rerun after -E: exit 0"
tap_is "$(pages200 term)" "$WANT" "rerun after -E: every page stored"
tap_is "$(cat "$T/term.access1" "$T/tw.log" | awk -F'\t' '$7 == 200 && $8 > 0 { print $4 $6 }' | sort | uniq -d | head -3)" "" \
	"-E and rerun: no page fetched twice"

# ---- SIGTERM to one worker stops the whole job cleanly
conf wterm
: >"$T/tw.log"
run_bg wterm 3
wait_requests 60
pid=$(sed -n 's/.*mpseek-index\[\([0-9]*\)\] rank 1 .*/\1/p' "$T/wterm.log" | head -1)
[ -n "$pid" ] && kill -TERM "$pid"
wait "$JOB"; rc=$?
tap_is "$rc" 0 "SIGTERM to worker rank 1: the job exits 0"
tap_ok "$(grep -q 'rank 1 was asked to stop: stopping every rank' "$T/wterm.log" && echo 1)" "the master relays rank 1's stop"
tap_is "$(claims_left wterm)" 0 "SIGTERM to a worker: every claim released"

# ---- mariadbd restarts mid-crawl
conf restart
: >"$T/tw.log"
run_bg restart 3
wait_requests 100
mdb_restart
wait "$JOB"; rc=$?
tap_is "$rc" 0 "mariadbd restarted mid-crawl: exit 0"
tap_ok "$(grep -q 'lost the connection to MySQL' "$T/restart.log" && echo 1)" "a rank saw the connection drop and reconnected"
tap_is "$(pages200 restart)" "$WANT" "mariadbd restart: every page stored"
tap_is "$(claims_left restart)" 0 "mariadbd restart: no claim left"

# ---- politeness across ranks: one host, two crawling ranks, MinDelay 0.3
PAGES=12
HOSTS="solo"
tw_start 0
conf polite "MinDelay 0.3"
: >"$T/tw.log"
run polite 3
tap_is "$rc" 0 "-np 3, one host, MinDelay 0.3: exit 0"
tap_is "$(pages200 polite)" 12 "every page of the host stored"
gaps=$(sort -n "$T/tw.log" | awk -F'\t' 'NR > 1 { printf "%.3f\n", $1 - end } { end = $2 }')
tap_is "$(echo "$gaps" | awk '$1 < 0.29' | head -3)" "" \
	"requests to the host never overlap and start >= MinDelay after the previous one ended (min gap $(echo "$gaps" | sort -n | head -1) s)"
tap_done
