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

tap_done
