#!/bin/bash
# failfast.sh - failing fast and saying why: a DBAddr whose address refuses
# (a TCP port nobody listens on, a socket file that does not exist) fails at
# once with "connection refused"; a transient error (the user's
# MAX_USER_CONNECTIONS reached) prints "retrying" lines and the connection
# comes once it passes; a config error under mpirun -np 2 is printed once,
# without an MPI_Abort banner.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
[ -x "$idx" ] || tap_skip_all "$idx not built"

T=$(tmp_dir)

# ---- failing fast (no database needed)
printf 'DBAddr mysql://nobody@127.0.0.1:1/x/\nDataDir %s/d1\nServer http://127.0.0.1:1/\n' "$T" >"$T/refused.conf"
t0=$(date +%s.%N)
"$idx" "$T/refused.conf" >"$T/refused.log" 2>&1
rc=$?
t=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
tap_is "$rc" 1 "a refused DBAddr exits 1"
tap_ok "$(num_below "$t" 2)" "a refused DBAddr fails in under 2 s (${t} s)"
tap_ok "$(grep -q 'connection refused' "$T/refused.log" && echo 1)" "the message says the connection was refused"

printf 'DBAddr mysql://root@localhost/x/?socket=%s/none.sock\nDataDir %s/d2\n' "$T" "$T" >"$T/nosock.conf"
t0=$(date +%s.%N)
"$idx" "$T/nosock.conf" >"$T/nosock.log" 2>&1
rc=$?
t=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
tap_is "$rc" 1 "a DBAddr socket that does not exist exits 1"
tap_ok "$(num_below "$t" 2)" "at once (${t} s)"

printf 'DataDir %s/d3\nNoSuchDirective 1\n' "$T" >"$T/bad.conf"
mpi_no_leak_check timeout 120 "$MPIRUN" -np 2 --oversubscribe "$idx" "$T/bad.conf" >"$T/bad.log" 2>&1
tap_ok "$([ $? -ne 0 ] && echo 1)" "a config error under mpirun -np 2 exits non-zero"
tap_is "$(grep -c 'unknown directive "NoSuchDirective"' "$T/bad.log")" 1 "the config error is printed once"
tap_ok "$(grep -q 'MPI_ABORT' "$T/bad.log" || echo 1)" "no MPI_ABORT banner"

# ---- a transient error is waited for
mdb_start
conf=$T/mpseek.conf
write_conf "$conf" ff "Server http://127.0.0.1:1/"
"$idx" --seed "$conf" >"$T/seed.log" 2>&1
tap_is "$?" 0 "--seed creates the schema"
# A transient error (too many connections of the user) is waited for, with
# "retrying" lines, and the connection comes once the other one has gone.
mdb_sql "CREATE USER lim@localhost IDENTIFIED BY 'x' WITH MAX_USER_CONNECTIONS 1;
	GRANT ALL ON ff.* TO lim@localhost"
sed "s|^DBAddr mysql://root@|DBAddr mysql://lim:x@|" "$conf" >"$T/lim.conf"
"$MARIADB" --no-defaults -S "$MDB_SOCKET" -ulim -px -e 'SELECT SLEEP(4)' ff >/dev/null 2>&1 &
hold=$!
for _ in $(seq 100); do
	[ "$(mdb_sql "SELECT COUNT(*) FROM information_schema.processlist WHERE user = 'lim'")" = 1 ] && break
	sleep 0.05
done
"$idx" -S "$T/lim.conf" >"$T/lim.out" 2>"$T/lim.log"
rc=$?
wait "$hold"
tap_is "$rc" 0 "-S waits out a transient 'too many connections' and succeeds"
[ "$rc" = 0 ] || sed 's/^/# /' "$T/lim.log"
tap_ok "$(grep -q 'retrying for up to' "$T/lim.log" && echo 1)" \
	"and says it is retrying: $(grep -m1 retrying "$T/lim.log" | sed 's/.*warning: //')"

tap_done
