#!/bin/bash
# privilege.sh - least privilege (doc/ADMIN.md, "Security").
#
# Any user: a config error never shows a password (DBAddr, DBPass,
# AuthBasic are masked "***"), and a config holding one that every user can
# read is warned about (not refused).
#
# As root (else skipped): an unprivileged system user (mpseektest, made
# if absent) crawls the test web with the embedded database, runs searchd
# and queries it.  DataDir is 0750, nothing in it is readable by others or
# writable by the group, the embedded server's directory is 0700 (its
# socket lets root in with no password) and is put back to 0700 when
# loosened, mysql-install.log is 0600; another unprivileged user (nobody)
# can neither connect to the socket nor read DataDir; with DataDir given to
# a group (chgrp -R, setgid) a recrawl's files keep it and a member reads
# them but cannot reach the socket.  Then a crawl,
# searchd, -S and --check-db with a DBAddr password (a private server):
# the password is in no log, no output, no file of DataDir and no process's
# command line (ps -eo args sampled during the runs), nor in the error of a
# wrong password.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
sd="$builddir/searchd"
cli="$builddir/mpseek-search"
for p in "$idx" "$sd" "$cli"; do
	[ -x "$p" ] || tap_skip_all "$p not built"
done

T=$(tmp_dir)

# ---- any user: passwords in config errors, world-readable configs
PW=Pw-Xq7secret
cc() { printf '%s\n' "$@" >"$T/c.conf"; chmod 644 "$T/c.conf"; "$idx" --check-config "$T/c.conf" 2>&1; }
last() { echo "${1##*$'\n'}"; }
out=$(cc "DBAddr mysql://u:$PW@host:99x/db/")
tap_ok "$(echo "$out" | grep -qF 'DBAddr mysql://u:***@host:99x/db/' && ! echo "$out" | grep -qF "$PW" && echo 1)" \
	"a bad DBAddr is quoted with its password masked: $(last "$out")"
out=$(cc "DBAddr mysql://u:a/$PW@host/db/")
tap_ok "$(echo "$out" | grep -qF '%2F' && ! echo "$out" | grep -qF "$PW" && echo 1)" \
	"a '/' in the password is refused without quoting a piece of it: $(last "$out")"
out=$(cc "DBPass $PW x")
tap_ok "$(echo "$out" | grep -qF 'DBPass ***' && ! echo "$out" | grep -qF "$PW" && echo 1)" \
	"a bad DBPass line is masked: $(last "$out")"
out=$(cc "AuthBasic bob:$PW x")
tap_ok "$(echo "$out" | grep -qF 'AuthBasic bob:***' && ! echo "$out" | grep -qF "$PW" && echo 1)" \
	"a bad AuthBasic line is masked: $(last "$out")"
out=$(cc "DBAddr mysql://u:$PW@localhost/db/")
tap_ok "$(echo "$out" | grep -q 'holds a password and every user can read it (mode 0644)' &&
	echo "$out" | grep -q ': ok$' && echo 1)" "a world-readable config with a password: warned, accepted"
chmod 640 "$T/c.conf"
out=$("$idx" --check-config "$T/c.conf" 2>&1)
tap_is "$out" "$T/c.conf: ok" "mode 0640: no warning"
out=$(cc "DBAddr mysql://u@localhost/db/")
tap_is "$out" "$T/c.conf: ok" "a world-readable config without a password: no warning"

if [ "$(id -u)" -ne 0 ]; then
	tap_skip 1 "not root: cannot make a system user and run the programs as it"
	tap_done
fi
command -v setpriv >/dev/null || tap_skip_all "setpriv not found (Debian package util-linux)"
[ -x "$NGINX" ] || tap_skip_all "nginx not found (Debian package nginx)"
[ -x "$MARIADBD" ] || tap_skip_all "mariadbd not found (Debian package mariadb-server)"

# ---- as an unprivileged user, with the embedded database
U=mpseektest
getent passwd "$U" >/dev/null ||
	useradd -r -M -d /nonexistent -s /usr/sbin/nologin "$U" ||
	{ echo "Bail out! useradd $U failed"; exit 1; }
as() { local u=$1; shift; env HOME="$T/home" setpriv --reuid="$u" --regid="$(id -g "$u")" --init-groups -- "$@"; }
as_nobody() { setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups -- "$@"; }

test_web_start "$T/site"
mkdir -p "$T/home"
chown -R "$U" "$T"
dd=$T/data
conf=$T/mpseek.conf
printf '%s\n' "DataDir $dd" "MinDelay 0" "ReadTimeOut 5" "Server $WEB_URL" >"$conf"
chown "$U" "$conf"
chmod 600 "$conf"

# The account of the password part, made before ps is sampled (the
# client's command line holds the password; nothing of ours may).
mdb_start
mdb_sql "CREATE USER 'mpw'@'localhost' IDENTIFIED BY '$PW'; GRANT ALL ON pwdb.* TO 'mpw'@'localhost'"

# ps -eo args every 0.1 s while the runs below go on; from here the test
# itself passes the password to no command (printf is a builtin).
( while :; do ps -eo user,args; sleep 0.1; done ) >"$T/ps.txt" 2>&1 &
ps_pid=$!

mpi_no_leak_check as "$U" timeout 300 "$idx" "$conf" >"$T/crawl.out" 2>"$T/crawl.log"
rc=$?
tap_is "$rc" 0 "$U crawls with the embedded database"
[ "$rc" = 0 ] || tail -15 "$T/crawl.log" | sed 's/^/#   /'
spid=$(cat "$dd/mysql/mariadbd.pid" 2>/dev/null)
tap_is "$(ps -o user= -p "${spid:-0}" 2>/dev/null)" "$U" "the embedded mariadbd runs as $U"
tap_is "$(stat -c %a "$dd")" 750 "DataDir is 0750"
tap_is "$(stat -c %a:%U "$dd/mysql")" "700:$U" "DataDir/mysql is 0700, $U's"
tap_is "$(stat -c %a "$dd/mysql-install.log")" 600 "mysql-install.log is 0600"
tap_is "$(stat -c %a "$dd/index")" 750 "DataDir/index is 0750"
open=$(find "$dd" -path "$dd/mysql" -prune -o ! -type l -perm /o=rwx,g=w -print)
tap_is "$open" "" "nothing in DataDir is readable by others or writable by the group"
tap_is "$(find "$dd" ! -user "$U" | head -3)" "" "every file of DataDir is $U's"
sock=$dd/mysql/mysqld.sock
tap_ok "$(as "$U" "$MARIADB" --no-defaults -S "$sock" -uroot -e 'SELECT 1' >/dev/null 2>&1 && echo 1)" \
	"$U connects to the embedded socket"
out=$(as_nobody "$MARIADB" --no-defaults -S "$sock" -uroot -e 'SELECT 1' 2>&1)
tap_ok "$([ $? -ne 0 ] && echo 1)" "nobody cannot connect to the embedded socket: $out"
tap_ok "$(! as_nobody ls "$dd" >/dev/null 2>&1 && ! as_nobody cat "$dd/index/current/FORMAT" >/dev/null 2>&1 && echo 1)" \
	"nobody can neither list DataDir nor read an index file"

# A loosened data directory is made private again at the next start.
as "$U" "$idx" --db-stop "$conf" >/dev/null 2>&1
chmod 755 "$dd/mysql"
out=$(as "$U" "$idx" --db-start "$conf" 2>&1)
tap_ok "$([ "$(stat -c %a "$dd/mysql")" = 700 ] && echo "$out" | grep -q 'mode 0755: made it 0700 again' && echo 1)" \
	"a mysql/ loosened to 0755 is 0700 again after --db-start, with a warning"

# searchd as $U on a free port (sd_retry): config $T/NAME.conf (the LINES
# and Port, $U's, 0600), log $T/NAME.log (-l), output $T/NAME.out; sets
# sd_pid (searchd's own: setpriv execs it) and port.  When it does not
# start, a diagnostic, and the test points after it fail.
# sd_as NAME OPTS LINES...
sd_as() {
	local name=$1 opts=$2
	shift 2
	local lines=("$@")
	sd_retry sd_as_conf sd_as_exec "$T/$name.log" 600 "$T/$name.out" ||
		tap_diag "searchd did not start (see above)"
	sd_pid=$SD_PID
}
# The WRITE and START of sd_as (its locals name, opts and lines, port).
sd_as_conf() {
	printf '%s\n' "${lines[@]}" "Port $port" >"$T/$name.conf"
	chown "$U" "$T/$name.conf"
	chmod 600 "$T/$name.conf"
	rm -f "$T/$name.log"
}
sd_as_exec() {
	HOME=$T/home exec setpriv --reuid="$U" --regid="$(id -g "$U")" --init-groups -- \
		"$sd" -F $opts -l "$T/$name.log" "$T/$name.conf" >"$T/$name.out" 2>&1
}
sd_as searchd "" "DataDir $dd" "AllowFrom 127.0.0.1"
tap_is "$(ps -o user= -p "$sd_pid" 2>/dev/null)" "$U" "searchd runs as $U"
out=$(as "$U" "$cli" -s "127.0.0.1:$port" homeword 2>&1)
tap_ok "$(echo "$out" | grep -q '^1\. ' && echo 1)" "$U's mpseek-search gets results from $U's searchd"
tap_is "$(stat -c %a "$T/searchd.log")" 640 "searchd's log is 0640"
searchd_stop "$sd_pid"

# The group way of doc/ADMIN.md ("searchd as another user"): chgrp -R and
# setgid directories; a recrawl's new generation keeps the group, readable
# by a member (nobody with the group), who still cannot reach the socket.
G=mpseektestg
getent group "$G" >/dev/null || groupadd -r "$G" || { echo "Bail out! groupadd $G failed"; exit 1; }
chgrp -R "$G" "$dd"
chmod g+s "$dd" "$dd/index"
gen0=$(readlink "$dd/index/current")
mpi_no_leak_check as "$U" timeout 300 "$idx" -a -m "$conf" >"$T/recrawl.out" 2>"$T/recrawl.log"
tap_is "$?" 0 "$U recrawls (-a -m) after chgrp -R $G and chmod g+s"
gen1=$(readlink "$dd/index/current")
member() { setpriv --reuid=nobody --regid="$(getent group "$G" | cut -d: -f3)" --clear-groups -- "$@"; }
tap_ok "$([ "$gen1" != "$gen0" ] && [ -z "$(find "$dd/index/$gen1" ! -group "$G")" ] &&
	member cat "$dd/index/current/FORMAT" >/dev/null && echo 1)" \
	"the new generation ($gen0 -> $gen1) is all group $G's and a member reads it"
tap_ok "$(! member "$MARIADB" --no-defaults -S "$sock" -uroot -e 'SELECT 1' >/dev/null 2>&1 && echo 1)" \
	"a member of $G still cannot connect to the embedded socket"

# ---- a DBAddr password: never shown, never on a command line
pconf=$T/pw.conf
printf '%s\n' "DBAddr mysql://mpw:$PW@localhost/pwdb/?socket=$MDB_SOCKET" "DataDir $T/data2" \
	"MinDelay 0" "ReadTimeOut 5" "Server $WEB_URL" >"$pconf"
chown "$U" "$pconf"
chmod 600 "$pconf"
mpi_no_leak_check as "$U" timeout 300 "$idx" "$pconf" >"$T/pw-crawl.out" 2>"$T/pw-crawl.log"
tap_is "$?" 0 "$U crawls with DBAddr mysql://mpw:PASSWORD@..."
as "$U" "$idx" -S "$pconf" >"$T/pw-stats.out" 2>"$T/pw-stats.log"
tap_is "$?" 0 "-S with the password config"
as "$U" "$idx" --check-db "$pconf" >"$T/pw-checkdb.out" 2>"$T/pw-checkdb.log"
tap_is "$?" 0 "--check-db with the password config"
sd_as pw-searchd -v "DBAddr mysql://mpw:$PW@localhost/pwdb/?socket=$MDB_SOCKET" "DataDir $T/data2"
"$cli" -s "127.0.0.1:$port" homeword >"$T/pw-query.out" 2>&1
tap_ok "$(grep -q '^1\. ' "$T/pw-query.out" && echo 1)" "searchd with the password config answers"
searchd_stop "$sd_pid"
# A wrong password: the error names the account, not the password.
c=$(<"$pconf")
printf '%s\n' "${c//$PW/Wrong-$PW}" >"$T/wrong.conf"
"$idx" -S "$T/wrong.conf" >"$T/wrong.out" 2>"$T/wrong.log"
tap_ok "$([ $? -ne 0 ] && grep -q 'Access denied' "$T/wrong.log" && echo 1)" \
	"a wrong password: $(grep -o 'Access denied.*' "$T/wrong.log" | head -1)"
# The holder line of the writer lock, file and database row.
holder=$(cat "$T/data2/writer.lock"; mdb_sql "SELECT value FROM mpseek_meta WHERE name = 'writer'" pwdb)
tap_ok "$(echo "$holder" | grep -q 'pid' && echo 1)" "the writer lock names its holder: $(echo "$holder" | head -1)"
kill "$ps_pid" 2>/dev/null
wait "$ps_pid" 2>/dev/null
tap_ok "$(grep -q 'mariadbd' "$T/ps.txt" && grep -q 'mpseek-index' "$T/ps.txt" && grep -q 'searchd' "$T/ps.txt" && echo 1)" \
	"ps saw mariadbd, mpseek-index and searchd ($(grep -c . "$T/ps.txt") lines)"
leaks=$(grep -rlF "$PW" "$T"/*.out "$T"/*.log "$T/ps.txt" "$T/data2" "$dd" "$MDB_DIR/mariadbd.err" 2>/dev/null)
tap_is "$leaks" "" "the password is in no output, log, process list or file of DataDir"

tap_done
