#!/bin/bash
# mpirun.sh - mpseek-index under `mpirun -np 3`: every rank initialises MPI
# and connects to the database, rank 0 alone creates the schema and seeds the
# Server URLs (and their robots.txt), and a rerun inserts nothing twice.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

mdb_start
conf="$MDB_DIR/mpseek.conf"
cat > "$conf" <<EOC
DBAddr mysql://root@localhost/mpseek_mpi/?socket=$MDB_SOCKET
DataDir $MDB_DIR/data
Robots yes
Server http://127.0.0.1:18090/
Server http://localhost:18091/docs/
Robots no
Server http://127.0.0.1:18092/
EOC

run() {
	mpi_no_leak_check timeout 300 "$MPIRUN" -np 3 --oversubscribe "$builddir/mpseek-index" --seed "$conf" >"$MDB_DIR/run.log" 2>&1
}
run; rc=$?
tap_is "$rc" 0 "mpirun -np 3 mpseek-index exits 0"
for r in 0 1 2; do
	tap_ok "$(grep -q "rank $r of 3 connected" "$MDB_DIR/run.log" && echo 1)" "rank $r connected"
done
tap_is "$(grep -c 'inserted .* new URL' "$MDB_DIR/run.log")" 1 "exactly one rank seeds"
tap_ok "$(grep -q 'rank 0 info: inserted 5 new URL' "$MDB_DIR/run.log" && echo 1)" "rank 0 inserted 3 Server URLs + 2 robots.txt"
tap_is "$(mdb_sql 'SELECT COUNT(*) FROM mpseek_mpi.urlword')" 5 "5 URL rows"
tap_is "$(mdb_sql 'SELECT COUNT(*) FROM mpseek_mpi.urlword WHERE index_status=0')" 5 "all with index_status 0"
tap_is "$(mdb_sql "SELECT COUNT(*) FROM mpseek_mpi.urlword WHERE url LIKE '%/robots.txt'")" 2 "robots.txt only for Robots yes"

run; rc=$?
tap_is "$rc" 0 "a second run exits 0"
tap_ok "$(grep -q 'inserted 0 new URL' "$MDB_DIR/run.log" && echo 1)" "a second run inserts nothing"
tap_is "$(mdb_sql 'SELECT COUNT(*) FROM mpseek_mpi.urlword')" 5 "still 5 URL rows"

# The cluster's pre-flight (mpi-scripts/mpseek-run --preflight): one line a
# rank naming its host, the server and the schema; a DataDir that cannot be
# made fails, naming the host.
pre() {
	mpi_no_leak_check env MPIRUN="$MPIRUN" timeout 120 "$srcdir/mpi-scripts/mpseek-run" --preflight \
		-np 3 --index "$builddir/mpseek-index" "$1" >"$MDB_DIR/pre.log" 2>&1
}
pre "$conf"; rc=$?
tap_is "$rc" 0 "mpseek-run --preflight -np 3 exits 0"
host=$(hostname)
tap_is "$(grep -c "^$host: ok: .* at $MDB_SOCKET, database mpseek_mpi, schema version [0-9]*; DataDir $MDB_DIR/data writable" "$MDB_DIR/pre.log")" 3 \
	"one ok line per rank, naming host, server, database, schema and DataDir"
tap_ok "$(grep -c 'every rank is ready' "$MDB_DIR/pre.log")" "and says every rank is ready"
touch "$MDB_DIR/not-a-dir"
sed "s|^DataDir .*|DataDir $MDB_DIR/not-a-dir/data|" "$conf" >"$MDB_DIR/bad-dir.conf"
pre "$MDB_DIR/bad-dir.conf"; rc=$?
tap_ok "$([ "$rc" -ne 0 ] && echo 1)" "--preflight fails when DataDir cannot be made"
tap_ok "$(grep -c "$host: DataDir $MDB_DIR/not-a-dir/data is not writable" "$MDB_DIR/pre.log")" "naming the host and the DataDir"
sed "s|^DBAddr .*|DBAddr mysql://root@localhost/mpseek_none/?socket=$MDB_SOCKET|" "$conf" >"$MDB_DIR/bad-db.conf"
mdb_sql "CREATE DATABASE IF NOT EXISTS mpseek_none"
pre "$MDB_DIR/bad-db.conf"; rc=$?
tap_ok "$([ "$rc" -ne 0 ] && echo 1)" "--preflight fails on a database without mpseek's schema"
tap_ok "$(grep -c "$host: the database is not usable from this host" "$MDB_DIR/pre.log")" "naming the host"

tap_done
