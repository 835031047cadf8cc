# lib.sh - helpers for the shell integration tests, sourced by each of them:
#   . "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"
#
# TAP:      tap_ok COND MSG       passes when COND is non-empty and not "0"
#           tap_is GOT WANT MSG   passes when the strings are equal
#           tap_skip N MSG        N skipped test points
#           tap_skip_all MSG      skip the whole script (exits 0)
#           tap_diag MSG          a "#" comment line
#           tap_done              prints the plan 1..N, exits 1 if any failed
#           tap_is_todo REASON GOT WANT MSG, tap_ok_todo REASON COND MSG
#                                 the same for a known gap: "# TODO REASON"
#                                 (an empty REASON: plain tap_is/tap_ok)
# Database: mdb_start             a PRIVATE mariadbd on a socket in a temp dir,
#                                 made with mariadb-install-db + mariadbd directly
#                                 (not mpseek's dbserver.c, so that code under
#                                 test meets an independent server); exports
#                                 MDB_DIR (the temp dir) and MDB_SOCKET
#           mdb_sql "STMT" [db]   runs STMT with the mariadb client; prints rows
#                                 tab-separated, no headers
#           mdb_restart           stops it and starts it again on the same
#                                 data (clients see their connections drop)
#           mdb_stop              stops it and removes its dir (also done on exit)
#           write_conf FILE DB [LINE...]
#                                 an mpseek.conf with DBAddr on the private
#                                 server's socket, DataDir $MDB_DIR/data-DB,
#                                 and the given lines
# MPI:      mpi_no_leak_check CMD...  runs CMD (one that initialises Open MPI)
#                                 with LeakSanitizer off: Open MPI's components
#                                 leak and are dlclose()d before LSan reports,
#                                 so the leaks show as "<unknown module>" that
#                                 no suppression can name
# Temp:     tmp_dir               a fresh temp dir, removed on exit (and an
#                                 embedded mpseek server left running in it,
#                                 DataDir/mysql, is stopped first)
# Web:      web_start DOCROOT [INCLUDE]
#                                 a PRIVATE nginx (Debian's /usr/sbin/nginx,
#                                 its own nginx.conf in a temp dir) serving
#                                 DOCROOT on 127.0.0.1:a free port; INCLUDE is
#                                 a file of extra server-block directives;
#                                 exports WEB_PORT, WEB_URL
#                                 (http://127.0.0.1:PORT/), WEB_DIR (its temp
#                                 dir) and WEB_LOG (the access log, one line
#                                 per request, tab-separated: msec method
#                                 request_uri status body_bytes
#                                 if_none_match if_modified_since host
#                                 user_agent; "-" for a missing header)
#           web_stop              stops it (also done on exit)
#           searchd_start DIR DB [LINE...]
#                                 searchd -F (through $SD_WRAP, e.g. valgrind)
#                                 on a free port with the config
#                                 DIR/searchd-N.conf (write_conf DB, then
#                                 "Port P" and the LINEs); waits until it
#                                 listens; sets SD_PID, SD_ADDR (127.0.0.1:P),
#                                 SD_CONF, SD_LOG
#           searchd_stop [PID]    SIGTERM and wait (default $SD_PID)
#           sd_retry WRITE START LOG TENTHS [OUT]
#                                 the start loop of searchd_start, for tests
#                                 that start searchd their own way: up to 20
#                                 tries, each on a random port: sets port
#                                 and SD_ADDR (127.0.0.1:$port), calls WRITE
#                                 (writes the config for $port), runs START
#                                 in the background, which must exec the
#                                 server (SD_PID=$! is then searchd's own
#                                 pid), and waits TENTHS tenths of a second
#                                 for "listening on ...:$port " in LOG; one
#                                 still not listening is stopped.  "Address
#                                 already in use" in LOG or OUT (its stderr
#                                 under -l) is a retry, else it prints their
#                                 ends as "#" lines and returns 1
#           treeweb_start DIR PAGES DELAY [PORT]
#                                 tests/servers/treeweb.py (PAGES pages a
#                                 host, DELAY s a response) on a free port
#                                 (or PORT: the same site, served faster or
#                                 slower), its request log DIR/tw.log made
#                                 anew; exports PORT; it ends by itself
#                                 after $TREEWEB_LIFETIME s (default 900)
#           treeweb_stop          stops it (also done on exit)
#           treeweb_conf FILE DB "HOSTS" [LINE...]
#                                 write_conf with a Server line for each
#                                 HOST.localhost:$PORT of treeweb, after
#                                 MinDelay 0, Robots yes, ReadTimeOut 10 and
#                                 the LINEs
#           hostile_start [OPTS]  tests/servers/hostile.py on a free port
#                                 (OPTS are passed on: --ports N,
#                                 --robots IDX=VARIANT); exports HOSTILE_PORT,
#                                 HOSTILE_PORTS (all, blank-separated),
#                                 HOSTILE_URL, HOSTILE_DIR and HOSTILE_LOG (its
#                                 request log: start end port host method
#                                 path status bytes)
#           hostile_stop          stops it (also done on exit)
#           changeweb_start DIR [OPTS]
#                                 tests/servers/changeweb.py (pages that
#                                 change as Poisson processes) on a free
#                                 port, OPTS passed on (--seed N); its files
#                                 in DIR (made anew): exports CHANGEWEB_URL
#                                 (http://127.0.0.1:PORT/), CHANGEWEB_LOG
#                                 (its request log) and CHANGEWEB_TRUTH (the
#                                 site's rates, values and change times,
#                                 written at its first request, from which
#                                 the changes count)
#           changeweb_stop        stops it (also done on exit)
#           search_tools          sets idx and tool (mpseek-index,
#                                 tests/helper/search-tool); skips the script
#                                 when they or nginx are missing
#           site_crawl DOCROOT DB [LINE...]
#                                 web_start DOCROOT, mdb_start, conf=$T/mpseek.conf
#                                 (write_conf DB, MinDelay 0, ReadTimeOut 5, the
#                                 LINEs, Server $WEB_URL) and one crawl of it
#                                 into $T/crawl.log: one point for its exit
#                                 status (on failure the log's end, and the
#                                 script ends); T must be set
#           urlwords_table ID     the urlwordsNN table of url_id ID
#           log_mentions FILE URL lines of FILE naming URL as a whole token
#           num_below X LIMIT     1 when the number X < LIMIT
# Programs are found in $builddir and data in $srcdir (make check exports
# both; by default the top of the tree this file is in).  Works as root and
# as an ordinary user.  Every server and temp dir is removed on exit, also on
# SIGINT/SIGTERM.

: "${srcdir:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${builddir:=$srcdir}"
: "${MPIRUN:=mpirun}"
export srcdir builddir MPIRUN

# mpseek-index without -S initialises MPI; a singleton run as root needs these.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Containers forbid the CMA single-copy path of the shared-memory transport.
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}

MARIADBD=${MARIADBD:-$(command -v mariadbd || command -v mysqld || echo /usr/sbin/mariadbd)}
[ -x "$MARIADBD" ] || MARIADBD=/usr/sbin/mariadbd
MARIADB_INSTALL_DB=${MARIADB_INSTALL_DB:-$(command -v mariadb-install-db || command -v mysql_install_db || echo /usr/bin/mariadb-install-db)}
MARIADB=${MARIADB:-$(command -v mariadb || command -v mysql || echo /usr/bin/mariadb)}

_tap_n=0
_tap_failed=0
_mdb_pid=""
_mdb_args=()

tap_ok() {
	local cond=$1; shift
	_tap_n=$((_tap_n + 1))
	if [ -n "$cond" ] && [ "$cond" != 0 ]; then
		echo "ok $_tap_n - $*"
	else
		echo "not ok $_tap_n - $*"
		_tap_failed=$((_tap_failed + 1))
	fi
}

tap_is() {
	local got=$1 want=$2; shift 2
	_tap_n=$((_tap_n + 1))
	if [ "$got" = "$want" ]; then
		echo "ok $_tap_n - $*"
	else
		echo "not ok $_tap_n - $*"
		echo "#   got:  '$(printf '%s' "$got" | head -c 2000 | tr '\n' '|')'"
		echo "#   want: '$(printf '%s' "$want" | head -c 2000 | tr '\n' '|')'"
		_tap_failed=$((_tap_failed + 1))
	fi
}

tap_skip() {
	local n=$1; shift
	for _ in $(seq "$n"); do
		_tap_n=$((_tap_n + 1))
		echo "ok $_tap_n # SKIP $*"
	done
}

tap_skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

tap_diag() {
	printf '%s\n' "$*" | sed 's/^/# /'
}

tap_done() {
	echo "1..$_tap_n"
	[ "$_tap_failed" -eq 0 ] || { echo "# $_tap_failed of $_tap_n failed"; exit 1; }
	exit 0
}

mpi_no_leak_check() {
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$@"
}

# A temp dir (short path: unix socket paths are limited to 107 bytes).
# Used as T=$(tmp_dir): it runs in a subshell, so the dir is recorded in a
# file that the exit trap of this shell reads.
# Under $TMPDIR when set (tests/run-all points it at a tmpfs), else /tmp.
_lib_tmp=${TMPDIR:-/tmp}
_lib_registry=$_lib_tmp/mpseek-test.$$.dirs
tmp_dir() {
	local d
	d=$(mktemp -d "$_lib_tmp/mpseek-test.XXXXXX") || { echo "Bail out! mktemp failed"; exit 1; }
	chmod 755 "$d"
	echo "$d" >>"$_lib_registry"
	echo "$d"
}

# Each test script its own Open MPI session directory (removed with its temp
# dirs): the mpiruns of tests running side by side (make -j2) shared
# /tmp/ompi.HOST.UID, and one's clean-up could remove it while another
# started ("orte_session_dir failed", seen once in merge-spill.sh).
if [ -z "${OMPI_MCA_orte_tmpdir_base:-}" ]; then
	OMPI_MCA_orte_tmpdir_base=$(tmp_dir)
	export OMPI_MCA_orte_tmpdir_base
fi

# Stop embedded servers (mpseek's dbserver.c) a test left running under dir
# $1: by the pid in their pid file, when that process is a mariadbd of a data
# directory under $1.
_lib_stop_embedded() {
	local pf pid i
	for pf in "$1"/*/mysql/mariadbd.pid "$1"/mysql/mariadbd.pid; do
		[ -f "$pf" ] || continue
		pid=$(cat "$pf" 2>/dev/null)
		[ -n "$pid" ] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "--datadir=$1/" || continue
		kill -TERM "$pid" 2>/dev/null
		for i in $(seq 300); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null
	done
}

_lib_cleanup() {
	local rc=$?
	_lib_stop_servers
	mdb_stop
	if [ -f "$_lib_registry" ]; then
		while read -r d; do
			case $d in "$_lib_tmp"/mpseek-test.*) ;; *) continue ;; esac
			_lib_stop_embedded "$d"
			rm -rf "$d"
		done <"$_lib_registry"
		rm -f "$_lib_registry"
	fi
	return $rc
}
trap _lib_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# mdb_start: install and start a private server; Bail out (TAP) if impossible.
mdb_start() {
	local user log
	[ -x "$MARIADBD" ] || tap_skip_all "mariadbd not found (Debian package mariadb-server)"
	[ -x "$MARIADB_INSTALL_DB" ] || tap_skip_all "mariadb-install-db not found (Debian package mariadb-server)"
	MDB_DIR=$(mktemp -d "$_lib_tmp/mdb.XXXXXX") || { echo "Bail out! mktemp failed"; exit 1; }
	# tmp_dir would register it, but mdb_stop must run first: keep it apart.
	chmod 755 "$MDB_DIR"
	MDB_SOCKET=$MDB_DIR/mysqld.sock
	export MDB_DIR MDB_SOCKET
	user=$(id -un)
	log=$MDB_DIR/install.log
	# Every server, the bootstrap one of mariadb-install-db too, gets a
	# tmpdir of its own: a starting mariadbd deletes every #sql file in
	# its tmpdir, the temporary tables of the other tests' servers
	# included (a failed install, "Error on delete of /tmp/#sql-...", a
	# crashed server).  Once more after a failure all the same.
	local try
	for try in 1 2; do
		rm -rf "$MDB_DIR/db"
		mkdir -p "$MDB_DIR/tmp"
		"$MARIADB_INSTALL_DB" --no-defaults --datadir="$MDB_DIR/db" --user="$user" \
			--auth-root-authentication-method=normal --skip-test-db \
			--tmpdir="$MDB_DIR/tmp" >"$log" 2>&1 && break
		grep -E '^ERROR|\[ERROR\]' "$log" | head -5 | sed "s/^/# install try $try: /"
		if [ "$try" = 2 ]; then
			head -20 "$log" | sed 's/^/# /'
			echo "Bail out! mariadb-install-db failed (see above)"
			exit 1
		fi
	done
	# Small buffers: several tests run servers at once on a small machine.
	_mdb_args=(--no-defaults --datadir="$MDB_DIR/db" --socket="$MDB_SOCKET"
		--pid-file="$MDB_DIR/mariadbd.pid" --log-error="$MDB_DIR/mariadbd.err"
		--tmpdir="$MDB_DIR/tmp"
		--skip-networking --skip-log-bin --innodb-buffer-pool-size=32M
		--innodb-log-file-size=16M --max-connections=200 --innodb-flush-log-at-trx-commit=2)
	[ "$(id -u)" -eq 0 ] && _mdb_args+=(--user="$user")
	_mdb_run
}

# Start mariadbd with _mdb_args and wait until it answers.
_mdb_run() {
	local i
	"$MARIADBD" "${_mdb_args[@]}" </dev/null >/dev/null 2>&1 &
	_mdb_pid=$!
	for i in $(seq 600); do
		"$MARIADB" --no-defaults -S "$MDB_SOCKET" -uroot -e 'SELECT 1' >/dev/null 2>&1 && return 0
		if ! kill -0 "$_mdb_pid" 2>/dev/null; then
			tail -20 "$MDB_DIR/mariadbd.err" | sed 's/^/# /'
			echo "Bail out! mariadbd died during start-up (see above)"
			exit 1
		fi
		sleep 0.1
	done
	tail -20 "$MDB_DIR/mariadbd.err" | sed 's/^/# /'
	echo "Bail out! mariadbd did not answer within 60 s"
	exit 1
}

# searchd_start DIR DB [LINE...]: see the top of this file.
_lib_searchd_n=0
_lib_sd_pids=()
searchd_start() {
	local dir=$1 db=$2 port
	shift 2
	local lines=("$@")
	_lib_searchd_n=$((_lib_searchd_n + 1))
	SD_CONF=$dir/searchd-$_lib_searchd_n.conf
	SD_LOG=$dir/searchd-$_lib_searchd_n.log
	sd_retry _lib_sd_conf _lib_sd_exec "$SD_LOG" 1200 ||
		{ echo "Bail out! searchd did not start (see above)"; exit 1; }
	_lib_sd_pids+=("$SD_PID")
}
# The WRITE and START of searchd_start (its locals db and lines, port).
_lib_sd_conf() { write_conf "$SD_CONF" "$db" "Port $port" "${lines[@]}"; }
_lib_sd_exec() { exec $SD_WRAP "$builddir/searchd" -F "$SD_CONF" >/dev/null 2>"$SD_LOG"; }

# sd_retry WRITE START LOG TENTHS [OUT]: see the top of this file.  WRITE
# and START see the caller's locals.  Sets port, SD_ADDR, SD_PID and
# _lib_sd_last (the searchd starting, for the exit's cleanup).
_lib_sd_last=""
sd_retry() {
	local write=$1 start=$2 log=$3 tenths=$4 out=${5:-} try i
	for try in $(seq 20); do
		port=$((20000 + (RANDOM * 32768 + RANDOM) % 12000))
		SD_ADDR=127.0.0.1:$port
		"$write"
		"$start" </dev/null &
		SD_PID=$!
		_lib_sd_last=$SD_PID
		for i in $(seq "$tenths"); do
			grep -q "listening on [^ ]*:$port " "$log" 2>/dev/null && return 0
			kill -0 "$SD_PID" 2>/dev/null || break
			sleep 0.1
		done
		# Still running after TENTHS: stop it, or wait would never return.
		_lib_kill_wait "$SD_PID" TERM 100 || kill -KILL "$SD_PID" 2>/dev/null
		wait "$SD_PID" 2>/dev/null
		grep -qs 'Address already in use' "$log" ${out:+"$out"} && continue
		tail -n 20 "$log" ${out:+"$out"} 2>/dev/null | sed 's/^/# /'
		return 1
	done
	echo "# searchd found no free port in 20 tries"
	return 1
}

searchd_stop() {
	local pid=${1:-$SD_PID}
	kill -TERM "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}

# Stop the server process (SIGTERM, then SIGKILL after 60 s).
_mdb_kill() {
	local i
	[ -n "$_mdb_pid" ] || return 0
	kill -TERM "$_mdb_pid" 2>/dev/null
	for i in $(seq 600); do
		kill -0 "$_mdb_pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$_mdb_pid" 2>/dev/null
	wait "$_mdb_pid" 2>/dev/null
	_mdb_pid=""
}

mdb_restart() {
	_mdb_kill
	_mdb_run
}

mdb_stop() {
	_mdb_kill
	# A server that crashed says why in its error log, which goes with
	# MDB_DIR: put the report on the TAP stream as comments first.
	if [ -n "${MDB_DIR:-}" ] && grep -qs 'got signal' "$MDB_DIR/mariadbd.err"; then
		echo "# mariadbd crashed during this test; its error log says:"
		grep -a -A60 'got signal' "$MDB_DIR/mariadbd.err" | head -80 | sed 's/^/#   /'
	fi
	if [ -n "${MDB_DIR:-}" ] && [ -d "$MDB_DIR" ]; then
		rm -rf "$MDB_DIR"
	fi
	MDB_DIR=""
}

mdb_sql() {
	"$MARIADB" --no-defaults -S "$MDB_SOCKET" -uroot -N -B -e "$1" ${2:+"$2"}
}

write_conf() {
	local file=$1 db=$2; shift 2
	{
		echo "DBAddr mysql://root@localhost/$db/?socket=$MDB_SOCKET"
		echo "DataDir $MDB_DIR/data-$db"
		for line in "$@"; do
			echo "$line"
		done
	} >"$file"
}

# recrawl_merge_killed: a recrawl (-a "$conf") whose merge is killed after
# the URL states, as a rank that dies there: deltas with fresh documents
# beside live generation $g1 of DataDir $dd.  Sets ndelta (the delta
# segments; one test point that there are some and $g1 is still live) and
# keeps $dd as $T/pristine and $g1 as $T/gen1-copy.  Needs $idx.
recrawl_merge_killed() {
	MPSEEK_MERGE_CRASH_AT=after-url-states mpi_no_leak_check timeout 300 "$idx" -a "$conf" \
		>"$T/recrawl.out" 2>"$T/recrawl.log"
	ndelta=$(ls "$dd/deltas"/*.dlt 2>/dev/null | wc -l)
	tap_ok "$([ "$ndelta" -ge 1 ] && [ "$(readlink -f "$dd/index/current")" = "$g1" ] && echo 1)" \
		"recrawl of the edited site, its merge killed: $ndelta delta segment(s), generation 1 live"
	cp -a "$dd" "$T/pristine"
	cp -a "$g1" "$T/gen1-copy"
}

# merge_left_as_was DD G1 COPY NDELTA: after a merge that failed, generation
# G1 is still DataDir DD's live one and equal, file for file, to COPY (taken
# before), DD's NDELTA delta logs are kept and no other generation is left
# (doc/MERGE.md, step 8): two test points.
merge_left_as_was() {
	local dd=$1 g1=$2 copy=$3 ndelta=$4 same=1 f
	[ "$(readlink -f "$dd/index/current")" = "$g1" ] || same=0
	for f in $(cd "$copy" && find . -type f | sort); do
		cmp -s "$copy/$f" "$g1/$f" || same=0
	done
	tap_ok "$same" "generation 1 stays live and unchanged"
	tap_ok "$([ "$(ls "$dd/deltas"/*.dlt 2>/dev/null | wc -l)" = "$ndelta" ] &&
		[ "$(ls -d "$dd/index"/gen-* | wc -l)" = 1 ] && echo 1)" \
		"the deltas are kept, no other generation is left"
}

# gen_same A B [SKIP]: 1 when generation directory B holds every file of A
# (but one named SKIP, default ranks: PageRank's float sums depend on the
# rank count) byte for byte, else 0; a line per file that differs goes to
# stderr (the test's log), so that callers may take the answer with $().  A
# docstore counts as the same when its documents are (index-tool docstore,
# both read whole): its blocks are raw deflate by ISA-L's igzip, which does
# not promise the same bytes for the same block, and in 5 of about 230
# loaded merges of 130,000 documents a block came out 8 or 9 bytes longer
# with the same content (doc/FORMATS.md, "docstore").
gen_same() {
	local a=$1 b=$2 skip=${3-ranks} f ok=1 tool="$builddir/tests/helper/index-tool" da db
	for f in $(cd "$a" && find . -type f | sort); do
		[ -n "$skip" ] && [ "${f##*/}" = "$skip" ] && continue
		cmp -s "$a/$f" "$b/$f" && continue
		if [ "${f##*/}" = docstore ] && [ -x "$tool" ] &&
			da=$("$tool" docstore "$a/$(dirname "$f")") &&
			db=$("$tool" docstore "$b/$(dirname "$f")") && [ "$da" = "$db" ]; then
			tap_diag "$f: the same documents in other deflate bytes (igzip)" >&2
			continue
		fi
		ok=0
		tap_diag "$b: $f differs from $a ($(stat -c %s "$a/$f" "$b/$f" 2>&1 | paste -sd/) bytes)" >&2
	done
	[ -n "$(ls "$b" 2>/dev/null)" ] || ok=0
	echo "$ok"
}

# syn_generation NAME GEN-DELTAS-OPTIONS...: a synthetic generation (Zipf
# words, bench/gen-deltas) merged by mpseek-index -D into a database of
# its own on the running MariaDB (mdb_start): $conf its mpseek.conf (with
# the line $SYN_CONF when set), $G the generation; two test points (the
# deltas, the merge), and the end of the test when the merge fails.  Needs
# $idx, $gen and $T.
syn_generation() {
	local name=$1 dd rc
	shift
	conf=$T/mpseek.conf
	write_conf "$conf" "$name" ${SYN_CONF:+"$SYN_CONF"}
	dd=$MDB_DIR/data-$name
	mkdir -p "$dd"
	"$gen" "$@" "$dd" >"$T/gen.out" 2>&1
	tap_is "$?" 0 "gen-deltas: $(cat "$T/gen.out")"
	mpi_no_leak_check "$idx" --seed "$conf" >"$T/seed.log" 2>&1 &&
		mpi_no_leak_check timeout 300 "$idx" -D "$conf" >"$T/merge.out" 2>"$T/merge.log"
	rc=$?
	tap_is "$rc" 0 "merge of the synthetic deltas"
	[ "$rc" = 0 ] || { tail -5 "$T/merge.log" | sed 's/^/#   /'; tap_done; }
	G=$(readlink -f "$dd/index/current")
}

# syn_compare NAME GEN OPTIONS...: every page of the queries in $T/queries
# ($nq of them, search-tool -b -v over generation GEN) with top-k pruning
# and `ExactCounts yes` ($T/exact.conf) equals `Pruning no`'s ($T/no.conf):
# one test point; the pruned run's work in $T/NAME.w.  Needs $tool, $conf.
syn_compare() {
	local name=$1 g=$2 ok
	shift 2
	"$tool" -g "$g" -b -v -S "$T/no.conf" "$@" "$conf" "$T/queries" 2>/dev/null |
		grep -v '^queries ' >"$T/$name.no"
	"$tool" -g "$g" -b -v -W -S "$T/exact.conf" "$@" "$conf" "$T/queries" 2>"$T/$name.w" |
		grep -v '^queries ' >"$T/$name.pr"
	ok=$(cmp -s "$T/$name.no" "$T/$name.pr" && [ "$(grep -c '^query: ' "$T/$name.pr")" = "$nq" ] && echo 1)
	tap_ok "$ok" "$name ($*): every page equals exhaustive scoring"
	[ -n "$ok" ] || diff "$T/$name.no" "$T/$name.pr" | head -10 | sed 's/^/#   /'
	tap_diag "$name: $(tr '\n' ' ' <"$T/$name.w")"
}

# ---- test web servers ---------------------------------------------------------
# Both run in the background of the test's shell, with their output in files
# (never on the TAP stream), and are stopped by _lib_cleanup on exit, before
# the temp dirs go.

NGINX=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
[ -x "$NGINX" ] || NGINX=/usr/sbin/nginx
_web_pid=""
_web_watch=""
_hostile_pid=""

# Stop the servers of this file; called by _lib_cleanup.
_lib_stop_servers() {
	local pid
	web_stop
	hostile_stop
	treeweb_stop
	# Every searchd searchd_start began (and the last sd_retry began) that
	# the test left running.
	for pid in "${_lib_sd_pids[@]}" $_lib_sd_last; do
		_lib_kill_wait "$pid" TERM 100 || _lib_kill_wait "$pid" KILL 10
	done
	changeweb_stop
}

_lib_tw_pid=""
treeweb_start() {
	local dir=$1 pages=$2 delay=$3 port=${4:-0}
	treeweb_stop
	rm -f "$dir/tw.port"
	: >"$dir/tw.log"
	python3 "$srcdir/tests/servers/treeweb.py" --pages "$pages" --delay "$delay" --port "$port" \
		--port-file "$dir/tw.port" --log "$dir/tw.log" --lifetime "${TREEWEB_LIFETIME:-900}" >/dev/null 2>"$dir/tw.err" &
	_lib_tw_pid=$!
	for _ in $(seq 100); do [ -s "$dir/tw.port" ] && break; sleep 0.05; done
	[ -s "$dir/tw.port" ] || { echo "Bail out! treeweb.py did not start"; exit 1; }
	PORT=$(cat "$dir/tw.port")
	export PORT
}

treeweb_stop() {
	[ -n "$_lib_tw_pid" ] && kill "$_lib_tw_pid" 2>/dev/null && wait "$_lib_tw_pid" 2>/dev/null
	_lib_tw_pid=""
}

search_tools() {
	idx="$builddir/mpseek-index"
	tool="$builddir/tests/helper/search-tool"
	[ -x "$idx" ] || tap_skip_all "$idx not built"
	[ -x "$tool" ] || tap_skip_all "$tool not built"
	[ -x "$NGINX" ] || tap_skip_all "nginx not found (Debian package nginx)"
}

site_crawl() {
	local root=$1 db=$2 rc
	shift 2
	web_start "$root"
	mdb_start
	conf=$T/mpseek.conf
	write_conf "$conf" "$db" "MinDelay 0" "ReadTimeOut 5" "$@" "Server $WEB_URL"
	mpi_no_leak_check timeout 300 "$builddir/mpseek-index" "$conf" >"$T/crawl.out" 2>"$T/crawl.log"
	rc=$?
	tap_is "$rc" 0 "crawl, merge and PageRank of the test site"
	[ "$rc" = 0 ] || { tail -15 "$T/crawl.log" | sed 's/^/#   /'; tap_done; }
}

treeweb_conf() {
	local file=$1 db=$2 hosts=$3 servers=() h
	shift 3
	for h in $hosts; do servers+=("Server http://$h.localhost:$PORT/"); done
	write_conf "$file" "$db" "MinDelay 0" "Robots yes" "ReadTimeOut 10" "$@" "${servers[@]}"
}

# _lib_kill_wait PID SIGNAL TENTHS: send SIGNAL, wait up to TENTHS/10 s.
# Returns 0 when the process is gone.
_lib_kill_wait() {
	local pid=$1 sig=$2 n=$3 i
	kill "-$sig" "$pid" 2>/dev/null || return 0
	for i in $(seq "$n"); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	! kill -0 "$pid" 2>/dev/null
}

# The nginx.conf of web_start: _web_conf DIR DOCROOT PORT INCLUDE.
_web_conf() {
	local d=$1 root=$2 port=$3 inc=$4
	# The master switches users only when it runs as root; the workers then
	# run as the invoking user, so they read DOCROOT as the test does.
	[ "$(id -u)" -eq 0 ] && echo "user $(id -un) $(id -gn);"
	cat <<EOF
daemon off;
master_process on;
worker_processes 1;
pid $d/nginx.pid;
lock_file $d/nginx.lock;
error_log $d/error.log notice;
events {
	worker_connections 256;
}
http {
	types {
		text/html html htm;
		text/plain txt;
		text/css css;
		application/javascript js;
		image/png png;
		image/gif gif;
		application/pdf pdf;
	}
	default_type application/octet-stream;
	log_format mpseek_test '\$msec\t\$request_method\t\$request_uri\t\$status\t\$body_bytes_sent\t\$http_if_none_match\t\$http_if_modified_since\t\$host\t\$http_user_agent';
	access_log $d/access.log mpseek_test;
	client_body_temp_path $d/tmp/body;
	proxy_temp_path $d/tmp/proxy;
	fastcgi_temp_path $d/tmp/fastcgi;
	uwsgi_temp_path $d/tmp/uwsgi;
	scgi_temp_path $d/tmp/scgi;
	server_tokens off;
	keepalive_timeout 30s;
	server {
		listen 127.0.0.1:$port;
		server_name _;
		root $root;
		autoindex off;
		index index.html;
		etag on;
		charset off;
		gzip on;
		gzip_types text/html;
		gzip_min_length 20;
		gzip_vary on;
EOF
	[ -n "$inc" ] && echo "		include $inc;"
	echo "	}"
	echo "}"
}

# test_web_start DIR: the local test web of tests/data/web (its pages and
# the generated ones) copied to DIR and served by nginx (web_start: sets
# WEB_PORT and WEB_URL); links to @WEB_PORT@ (other host names on nginx's
# port) are filled in once the port is known.
test_web_start() {
	local dir=$1 data=$srcdir/tests/data/web
	cp -R "$data/site" "$dir"
	sh "$data/generate.sh" "$dir"
	web_start "$dir" "$data/site.nginx.conf"
	grep -rlF '@WEB_PORT@' "$dir" | while read -r f; do
		LC_ALL=C sed -i "s/@WEB_PORT@/$WEB_PORT/g" "$f"
	done
}

# web_start DOCROOT [INCLUDE]: see the top of this file.  A port that is
# taken is retried with another (at most 20 times).
web_start() {
	local root=$1 inc=${2:-} d port try i
	[ -x "$NGINX" ] || tap_skip_all "nginx not found (Debian package nginx)"
	[ -d "$root" ] || { echo "Bail out! web_start: no directory $root"; exit 1; }
	root=$(cd "$root" && pwd)
	if [ -n "$inc" ]; then
		[ -f "$inc" ] || { echo "Bail out! web_start: no file $inc"; exit 1; }
		inc=$(cd "$(dirname "$inc")" && pwd)/$(basename "$inc")
	fi
	web_stop
	d=$(tmp_dir)
	mkdir -p "$d/tmp"
	for try in $(seq 20); do
		# Below the ephemeral range (32768-60999): no outgoing
		# connection can hold it.
		port=$((20000 + (RANDOM * 32768 + RANDOM) % 12000))
		_web_conf "$d" "$root" "$port" "$inc" >"$d/nginx.conf"
		rm -f "$d/nginx.pid"
		"$NGINX" -p "$d/" -c "$d/nginx.conf" -e "$d/error.log" </dev/null >"$d/nginx.out" 2>&1 &
		_web_pid=$!
		# The master writes its pid file once its sockets are bound.
		for i in $(seq 200); do
			kill -0 "$_web_pid" 2>/dev/null || break
			[ -s "$d/nginx.pid" ] && break
			sleep 0.05
		done
		if kill -0 "$_web_pid" 2>/dev/null && [ -s "$d/nginx.pid" ]; then
			WEB_PORT=$port
			WEB_URL=http://127.0.0.1:$port/
			WEB_DIR=$d
			WEB_LOG=$d/access.log
			export WEB_PORT WEB_URL WEB_DIR WEB_LOG
			# A watchdog stops nginx should this shell die without
			# running its exit trap (SIGKILL).
			(
				exec </dev/null >/dev/null 2>&1
				while kill -0 $$ 2>/dev/null; do sleep 1; done
				tr '\0' ' ' <"/proc/$_web_pid/cmdline" 2>/dev/null |
					grep -qF -- "$d/nginx.conf" && kill -TERM "$_web_pid"
			) &
			_web_watch=$!
			return 0
		fi
		_lib_kill_wait "$_web_pid" KILL 50
		wait "$_web_pid" 2>/dev/null
		_web_pid=""
		grep -q 'Address already in use' "$d/nginx.out" "$d/error.log" 2>/dev/null && continue
		tail -20 "$d/nginx.out" "$d/error.log" 2>/dev/null | sed 's/^/# /'
		echo "Bail out! nginx did not start (see above)"
		exit 1
	done
	echo "Bail out! nginx found no free port in 20 tries"
	exit 1
}

# Stop nginx: graceful (SIGQUIT), then SIGTERM, then SIGKILL.
web_stop() {
	[ -n "$_web_pid" ] || return 0
	_lib_kill_wait "$_web_pid" QUIT 50 || _lib_kill_wait "$_web_pid" TERM 50 ||
		_lib_kill_wait "$_web_pid" KILL 50
	wait "$_web_pid" 2>/dev/null
	_web_pid=""
	if [ -n "$_web_watch" ]; then
		kill -TERM "$_web_watch" 2>/dev/null
		wait "$_web_watch" 2>/dev/null
		_web_watch=""
	fi
}

# _lib_server_wait DIR PID NAME STOP: wait (10 s at most) for the test server
# PID to write DIR/port; if it does not, show its errors, call STOP and bail out.
_lib_server_wait() {
	local d=$1 pid=$2 name=$3 stop=$4 i
	for i in $(seq 200); do
		[ -s "$d/port" ] && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	[ -s "$d/port" ] && return 0
	tail -20 "$d/server.err" | sed 's/^/# /'
	"$stop"
	echo "Bail out! $name did not start (see above)"
	exit 1
}

# hostile_start [hostile.py options]: see the top of this file.  The server
# also ends by itself after $HOSTILE_LIFETIME s (default 900).
hostile_start() {
	local d
	command -v python3 >/dev/null 2>&1 || tap_skip_all "python3 not found"
	hostile_stop
	d=$(tmp_dir)
	python3 "$srcdir/tests/servers/hostile.py" --port-file "$d/port" --log "$d/requests.log" \
		--lifetime "${HOSTILE_LIFETIME:-900}" "$@" </dev/null >"$d/server.out" 2>"$d/server.err" &
	_hostile_pid=$!
	_lib_server_wait "$d" "$_hostile_pid" hostile.py hostile_stop
	HOSTILE_PORTS=$(cat "$d/port")
	HOSTILE_PORT=${HOSTILE_PORTS%% *}
	HOSTILE_URL=http://127.0.0.1:$HOSTILE_PORT/
	HOSTILE_DIR=$d
	HOSTILE_LOG=$d/requests.log
	export HOSTILE_PORT HOSTILE_PORTS HOSTILE_URL HOSTILE_DIR HOSTILE_LOG
}

hostile_stop() {
	[ -n "$_hostile_pid" ] || return 0
	_lib_kill_wait "$_hostile_pid" TERM 50 || _lib_kill_wait "$_hostile_pid" KILL 50
	wait "$_hostile_pid" 2>/dev/null
	_hostile_pid=""
}

# changeweb_start DIR [changeweb.py options]: see the top of this file.  The
# server also ends by itself after $CHANGEWEB_LIFETIME s (default 900).
_lib_cw_pid=""
changeweb_start() {
	local d=$1
	shift
	command -v python3 >/dev/null 2>&1 || tap_skip_all "python3 not found"
	changeweb_stop
	rm -rf "$d"
	mkdir -p "$d"
	python3 "$srcdir/tests/servers/changeweb.py" --port-file "$d/port" --log "$d/requests.log" \
		--truth "$d/truth.json" --lifetime "${CHANGEWEB_LIFETIME:-900}" "$@" \
		</dev/null >"$d/server.out" 2>"$d/server.err" &
	_lib_cw_pid=$!
	_lib_server_wait "$d" "$_lib_cw_pid" changeweb.py changeweb_stop
	CHANGEWEB_URL=http://127.0.0.1:$(cat "$d/port")/
	CHANGEWEB_LOG=$d/requests.log
	CHANGEWEB_TRUTH=$d/truth.json
	export CHANGEWEB_URL CHANGEWEB_LOG CHANGEWEB_TRUTH
}

changeweb_stop() {
	[ -n "$_lib_cw_pid" ] || return 0
	_lib_kill_wait "$_lib_cw_pid" TERM 50 || _lib_kill_wait "$_lib_cw_pid" KILL 50
	wait "$_lib_cw_pid" 2>/dev/null
	_lib_cw_pid=""
}

# urlwords_table ID: the urlwordsNN table that holds url_id ID.
urlwords_table() {
	printf 'urlwords%02d' $(($1 % 16))
}

# tap_is_todo REASON GOT WANT MSG, tap_ok_todo REASON COND MSG: tap_is and
# tap_ok for a known gap.  With a non-empty REASON the point carries the TAP
# directive "# TODO REASON": a failure is shown (with got/want) but does not
# fail the script, and a pass shows as an unexpected pass (XPASS), the sign
# that the TODO can go.  With an empty REASON they are tap_is and tap_ok.
tap_is_todo() {
	local reason=$1 got=$2 want=$3; shift 3
	[ -n "$reason" ] || { tap_is "$got" "$want" "$@"; return; }
	_tap_n=$((_tap_n + 1))
	if [ "$got" = "$want" ]; then
		echo "ok $_tap_n - $* # TODO $reason"
	else
		echo "not ok $_tap_n - $* # TODO $reason"
		echo "#   got:  '$(printf '%s' "$got" | head -c 2000 | tr '\n' '|')'"
		echo "#   want: '$(printf '%s' "$want" | head -c 2000 | tr '\n' '|')'"
	fi
}

tap_ok_todo() {
	local reason=$1 cond=$2; shift 2
	[ -n "$reason" ] || { tap_ok "$cond" "$@"; return; }
	_tap_n=$((_tap_n + 1))
	if [ -n "$cond" ] && [ "$cond" != 0 ]; then
		echo "ok $_tap_n - $* # TODO $reason"
	else
		echo "not ok $_tap_n - $* # TODO $reason"
	fi
}

# log_mentions FILE URL: the lines of FILE that name URL as a whole token,
# not as the prefix of a longer URL (a ':' after it ends it, as in
# "URL: 200 indexed").
log_mentions() {
	awk -v u="$2" '{
		s = $0
		while ((i = index(s, u)) > 0) {
			c = substr(s, i + length(u), 1)
			if (c == "" || c !~ /[A-Za-z0-9\/._~%?&=;#+-]/) { print; break }
			s = substr(s, i + length(u))
		}
	}' "$1"
}

# num_below X LIMIT: prints 1 when the number X is below LIMIT (decimals).
num_below() {
	awk -v x="$1" -v l="$2" 'BEGIN { if (x != "" && x + 0 < l + 0) print 1 }'
}
