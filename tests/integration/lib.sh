# lib.sh - helpers for the shell integration tests, sourced by each of them:
#   . "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"
#
# TAP:      tap_ok COND MSG       passes when COND is non-empty and not "0"
#           tap_is GOT WANT MSG   passes when the strings are equal
#           tap_skip N MSG        N skipped test points
#           tap_skip_all MSG      skip the whole script (exits 0)
#           tap_diag MSG          a "#" comment line
#           tap_done              prints the plan 1..N, exits 1 if any failed
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
_lib_registry=/tmp/mpseek-test.$$.dirs
tmp_dir() {
	local d
	d=$(mktemp -d /tmp/mpseek-test.XXXXXX) || { echo "Bail out! mktemp failed"; exit 1; }
	chmod 755 "$d"
	echo "$d" >>"$_lib_registry"
	echo "$d"
}

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
	mdb_stop
	if [ -f "$_lib_registry" ]; then
		while read -r d; do
			case $d in /tmp/mpseek-test.*) ;; *) continue ;; esac
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
	MDB_DIR=$(mktemp -d /tmp/mdb.XXXXXX) || { echo "Bail out! mktemp failed"; exit 1; }
	# tmp_dir would register it, but mdb_stop must run first: keep it apart.
	chmod 755 "$MDB_DIR"
	MDB_SOCKET=$MDB_DIR/mysqld.sock
	export MDB_DIR MDB_SOCKET
	user=$(id -un)
	log=$MDB_DIR/install.log
	if ! "$MARIADB_INSTALL_DB" --no-defaults --datadir="$MDB_DIR/db" --user="$user" \
		--auth-root-authentication-method=normal --skip-test-db >"$log" 2>&1; then
		tail -20 "$log" | sed 's/^/# /'
		echo "Bail out! mariadb-install-db failed (see above)"
		exit 1
	fi
	# Small buffers: several tests run servers at once on a small machine.
	_mdb_args=(--no-defaults --datadir="$MDB_DIR/db" --socket="$MDB_SOCKET"
		--pid-file="$MDB_DIR/mariadbd.pid" --log-error="$MDB_DIR/mariadbd.err"
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
