#!/bin/bash
# sigterm.sh - SIGTERM as schedulers send it (systemd, Slurm, kill) to
# mpirun itself mid-crawl, under mpirun -np 3 (doc/CLUSTER.md, "Signals"),
# with Open MPI's default sigkill timeout (1 s) and with 10 s:
#   * every rank stops as gracefully as with `mpseek-index -E` before
#     mpirun's SIGKILL: every claim released, the deltas flushed;
#   * mpirun exits 1 (it reports any job it aborted so);
#   * every line on mpirun's stderr is a whole log line (or one of mpirun's
#     own, or a line of blanks the ranks pad with): mpirun sleeps through
#     its kill sequence, then forwards each rank's piled-up stderr in 4 KB
#     reads, interleaved, and src/common/log.c keeps every line inside one
#     such read (the ranks log at debug level here, so that the pile is
#     well over 4 KB);
#   * a rerun completes the crawl and the index equals a clean crawl's;
# and to mpi-scripts/mpseek-run (its pid, as systemd's KillMode=mixed sends
# it, or its whole process group), which turns it into -E: the same, exit
# 0, every page stored before the stop in the index, no process left.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
[ -x "$idx" ] || tap_skip_all "$idx not built"
command -v python3 >/dev/null || tap_skip_all "python3 not found"

T=$(tmp_dir)
PAGES=120
HOSTS="a b c"
KILL_TIMEOUT=30
# treeweb (lib.sh) with this test's page count, its log in $T/tw.log.
tw_start() { treeweb_start "$T" "$PAGES" "$@"; }

mdb_start
# conf NAME [LINES...]: a config crawling the hosts of $HOSTS.
conf() { local n=$1; shift; treeweb_conf "$T/$n.conf" "$n" "$HOSTS" "$@"; }
SQL() { mdb_sql "$1" "$2"; }
# run_bg NAME: mpirun -np 3 in the background, its pid in $JOB (not a
# wrapper's: the signal must reach mpirun itself).
run_bg() {
	OMPI_MCA_odls_base_sigkill_timeout=$KILL_TIMEOUT LSAN_OPTIONS=detect_leaks=0 \
		"$MPIRUN" -np 3 --oversubscribe "$idx" "$T/$1.conf" >>"$T/$1.out" 2>>"$T/$1.log" &
	JOB=$!
}
run() { run_bg "$1"; wait "$JOB"; rc=$?; }
pages200() { SQL "SELECT COUNT(*) FROM urlword WHERE status = 200 AND url LIKE '%/p/%'" "$1"; }
claims_left() { SQL "SELECT COUNT(*) FROM urlword WHERE index_status = 2 OR claim_rank <> -1" "$1"; }
index_by_url() {
	SQL "SELECT url_id, url FROM urlword" "$1" | sed "s/:$PORT//" >"$T/$1.ids"
	"$idx" --dump-index "$T/$1.conf" 2>/dev/null |
		awk -F'\t' 'NR == FNR { u[$1] = $2; next } { print $1 "\t" u[$2] "\t" $3 }' "$T/$1.ids" - | sort
}
# Lines of FILE that are neither a whole log line nor one of mpirun's own
# (its banners are framed by dashes; their text is indented or plain prose)
# nor blanks, and log lines with a second line's start glued to them (a
# line cut by another rank's chunk).
STAMP='[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3} mpseek-index\['
cut_lines() {
	grep -vE "^$STAMP"'[0-9]+\] (rank [0-9]+ )?(error|warning|info|debug): .*[^ ]$' "$1" |
		grep -vE '^(-+|mpirun: .*|[A-Z][a-z].*|  .*| *)$'
	grep -E ".$STAMP" "$1"
}
WANT=$(( PAGES * $(echo $HOSTS | wc -w) ))

tw_start 0.002
conf clean
run clean
tap_is "$rc" 0 "clean crawl: exit 0"
index_by_url clean >"$T/clean.idx"

# stop_mid N: SIGTERM to the pid in $JOB once N pages are fetched; sets rc
# and took (seconds to the exit).
stop_mid() {
	for _ in $(seq 600); do [ "$(wc -l <"$T/tw.log")" -ge "$1" ] && break; sleep 0.1; done
	local t0
	t0=$(date +%s.%N)
	kill -TERM "$JOB"
	wait "$JOB"; rc=$?
	took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
}
# after_stop NAME HOW: the checks after the stop, and a rerun on a fast
# server.
after_stop() {
	local name=$1 how=$2 n
	tap_ok "$(awk -v t="$took" -v k="$KILL_TIMEOUT" 'BEGIN { print t < 2 * k + 5 }')" "$how: the job ends within twice the sigkill timeout ($took s)"
	tap_is "$(grep -c 'rank [0-9] done: ' "$T/$name.log")" 2 "$how: both crawling ranks wound down"
	tap_is "$(claims_left "$name")" 0 "$how: no claim left"
	n=$(pages200 "$name")
	tap_ok "$([ "$n" -lt "$WANT" ] && echo 1)" "$how: the stop came mid-crawl ($n pages stored)"
	tap_is "$(cut_lines "$T/$name.log" | head -3)" "" "$how: every line on stderr is whole"
	tw_start 0.002 "$PORT"
	run "$name"
	tap_is "$rc" 0 "$how: the rerun exits 0"
	tap_is "$(pages200 "$name")" "$WANT" "$how: the rerun stores every page"
	index_by_url "$name" >"$T/$name.idx"
	tap_ok "$(cmp -s "$T/clean.idx" "$T/$name.idx" && echo 1)" "$how: the index equals a clean crawl's"
}

# ---- SIGTERM to mpirun, Open MPI's default timeout (1 s) and 10 s
# With 1 s the ranks have one second from their SIGTERM to SIGKILL: the
# pages take 3 s to serve, so a stop that waited for the transfers in
# flight would leave its claims held.
for kt in 1 10; do
	KILL_TIMEOUT=$kt
	if [ "$kt" = 1 ]; then tw_start 3; n=6; else tw_start 0.15; n=30; fi
	conf "term$kt" "DebugLevel debug"
	run_bg "term$kt"
	stop_mid "$n"
	# mpirun ends an aborted job with status 1, however its ranks ended
	# (doc/CLUSTER.md, "Signals").
	tap_is "$rc" 1 "SIGTERM to mpirun, sigkill timeout $kt s: mpirun exits 1 (an aborted job)"
	# What the ranks wrote while mpirun slept (its log, for the rerun,
	# is appended to): the padding shows that it was over 4 KB.
	tap_diag "SIGTERM to mpirun, sigkill timeout $kt s: $(wc -c <"$T/term$kt.log") bytes on stderr, $(grep -c '^ *$' "$T/term$kt.log") padding line(s)"
	after_stop "term$kt" "SIGTERM to mpirun, sigkill timeout $kt s"
done

# ---- SIGTERM to mpseek-run: it turns the signal into mpseek-index -E.
# Sent to its pid (systemd's KillMode=mixed, etc/systemd) and to its whole
# process group (Ctrl-C, `timeout`, `kill -- -PGID`): mpirun runs in a
# session of its own, so the group's signal does not abort it.
KILL_TIMEOUT=10
# indexed_urls NAME: the URLs the index holds, one a line, sorted.
indexed_urls() {
	SQL "SELECT url_id, url FROM urlword" "$1" | sed "s/:$PORT//" >"$T/$1.ids"
	"$idx" --dump-index "$T/$1.conf" 2>/dev/null |
		awk -F'\t' 'NR == FNR { u[$1] = $2; next } { print u[$2] }' "$T/$1.ids" - | sort -u
}
stored_urls() {
	SQL "SELECT url FROM urlword WHERE status = 200 AND url LIKE '%/p/%'" "$1" | sed "s/:$PORT//" | sort -u
}
for how in pid group; do
	name=run$how
	tw_start 0.15
	conf "$name"
	LSAN_OPTIONS=detect_leaks=0 MPIRUN="$MPIRUN" setsid "$srcdir/mpi-scripts/mpseek-run" -np 3 \
		--index "$idx" "$T/$name.conf" >>"$T/$name.out" 2>>"$T/$name.log" &
	JOB=$!
	# setsid makes the script lead its own process group (pgid = pid).
	if [ "$how" = group ]; then sig=-$JOB; else sig=$JOB; fi
	for _ in $(seq 600); do [ "$(wc -l <"$T/tw.log")" -ge 30 ] && break; sleep 0.1; done
	t0=$(date +%s.%N)
	kill -TERM -- "$sig"
	wait "$JOB"; rc=$?
	took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	tap_is "$rc" 0 "SIGTERM to mpseek-run's $how: exit 0"
	tap_is "$(pgrep -f -- "$T/$name.conf" | wc -l)" 0 "SIGTERM to mpseek-run's $how: no process of the job left"
	# The stop merged what the ranks had written: every page stored
	# before it is in the index (the deltas were flushed, not lost).
	stored_urls "$name" >"$T/$name.stored"
	indexed_urls "$name" | grep '/p/' >"$T/$name.indexed"
	tap_ok "$([ -s "$T/$name.stored" ] && cmp -s "$T/$name.stored" "$T/$name.indexed" && echo 1)" \
		"SIGTERM to mpseek-run's $how: the index holds the $(wc -l <"$T/$name.stored") pages stored before the stop"
	after_stop "$name" "SIGTERM to mpseek-run's $how"
done
tap_done
