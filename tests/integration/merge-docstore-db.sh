#!/bin/bash
# merge-docstore-db.sh - a merge whose docinfo thread must read texts from
# the database and cannot connect fails and publishes nothing (doc/MERGE.md,
# step 8): the docstore needs the fresh documents' texts, and a generation
# without them must not go live.  The merge runs as a MariaDB user limited
# to one connection (MAX_USER_CONNECTIONS 1): the job's own connection is
# accepted, the docinfo thread's is refused for real (error 1226) until
# db_open() gives up.  MPSEEK_MERGE_TEXTS=db makes the thread read the
# texts from the database, as it does for logs it cannot read.  The test
# checks the exit status and the error, that the live generation and the
# deltas are as they were, that a refusal lifted while the thread retries
# lets the merge finish, that the rerun's generation equals a merge as root
# (cmp, docstore included), and that with every text in the delta logs the
# thread never connects: the same merge as that user succeeds.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
[ -x "$idx" ] || tap_skip_all "$idx not built"
[ -x "$NGINX" ] || tap_skip_all "nginx not found (Debian package nginx)"

T=$(tmp_dir)
test_web_start "$T/site"
mdb_start
conf=$T/mpseek.conf
write_conf "$conf" site "MinDelay 0" "ReadTimeOut 5" "Server $WEB_URL"
dd=$MDB_DIR/data-site

# ---- generation 1, then a recrawl of the edited site whose merge dies:
# deltas with fresh documents (texts in urlwordsNN) and a live generation
mpi_no_leak_check timeout 300 "$idx" "$conf" >"$T/crawl.out" 2>"$T/crawl.log"
tap_is "$?" 0 "crawl and merge: generation 1"
g1=$(readlink -f "$dd/index/current")
sed -i 's|version one\.|version two, with a <a href="added.html">new page</a>.|' "$T/site/changing.html"
printf '<!DOCTYPE html>\n<html><head><title>Added later</title></head>\n%s\n' \
	'<body><p>addedword, only in the second state.</p></body></html>' >"$T/site/added.html"
recrawl_merge_killed

# A user of its own with one connection at a time: the job's connection
# is accepted, the docinfo thread's refused.  Root, whose connections the
# test's own statements use, stays unlimited.
mdb_sql "CREATE USER one@localhost WITH MAX_USER_CONNECTIONS 1;
	 GRANT ALL ON site.* TO one@localhost"
sed "s|mysql://root@|mysql://one@|" "$conf" >"$T/one.conf"

# ---- the docinfo thread refused: the merge fails and publishes nothing
MPSEEK_MERGE_TEXTS=db mpi_no_leak_check timeout 300 "$idx" -D "$T/one.conf" \
	>"$T/one.out" 2>"$T/one.log"
rc=$?
tap_ok "$([ "$rc" != 0 ] && echo 1)" "-D whose docinfo thread cannot connect exits non-zero ($rc)"
tap_ok "$(grep -q "merge: the docinfo thread cannot connect to the database, which the docstore's texts come from: the merge fails" "$T/one.log" &&
	grep -q "max_user_connections" "$T/one.log" && echo 1)" \
	"it says why: $(grep -m1 -o 'merge: the docinfo thread[^:]*' "$T/one.log")"
[ "$rc" != 0 ] || grep -E 'docstore|MySQL' "$T/one.log" | head -5 | sed 's/^/# /'
merge_left_as_was "$dd" "$g1" "$T/gen1-copy" "$ndelta"

# ---- rerun as it was left, refused, then the limit lifted while db_open()
# retries: it connects and finishes
MPSEEK_MERGE_TEXTS=db mpi_no_leak_check timeout 300 "$idx" -D "$T/one.conf" \
	>"$T/retry.out" 2>"$T/retry.log" &
pid=$!
for i in $(seq 300); do
	grep -q "max_user_connections.*retrying" "$T/retry.log" 2>/dev/null && break
	sleep 0.1
done
mdb_sql "ALTER USER one@localhost WITH MAX_USER_CONNECTIONS 0"
wait "$pid"
rc=$?
tap_ok "$([ "$rc" = 0 ] && grep -q "connected to MySQL at .* after [0-9]* attempts" "$T/retry.log" &&
	echo 1)" "the limit lifted while the thread retries: -D connects and succeeds ($rc)"
[ "$rc" = 0 ] || tail -5 "$T/retry.log" | sed 's/^/# /'
rm -rf "$T/gen-retry"
cp -a "$(readlink -f "$dd/index/current")" "$T/gen-retry"

# ---- the rerun equals a merge as root of the same deltas
rm -rf "$dd"
cp -a "$T/pristine" "$dd"
mpi_no_leak_check timeout 300 "$idx" -D "$conf" >"$T/root.out" 2>"$T/root.log"
tap_is "$?" 0 "-D as root of the same deltas"
g=$(readlink -f "$dd/index/current")
same=1
# same_gen DIR: 1 when DIR holds the live generation's files (but ranks,
# PageRank's float sums) byte for byte, the docstore's documents included
# (gen_same).
same_gen() {
	local ok
	ok=$(gen_same "$g" "$1")
	[ -s "$1/docstore" ] || ok=0
	echo "$ok"
}
tap_is "$(same_gen "$T/gen-retry")" 1 \
	"the rerun's generation equals it, file for file (cmp), the docstore by its documents"
"$idx" --check "$conf" >"$T/check.out" 2>&1
tap_is "$?" 0 "--check passes: $(tail -1 "$T/check.out")"
rm -rf "$T/gen-root"
cp -a "$g" "$T/gen-root"

# ---- every text in the delta logs: the thread never connects, so the
# merge as the one-connection user succeeds and equals the merge as root
rm -rf "$dd"
cp -a "$T/pristine" "$dd"
mpi_no_leak_check timeout 300 "$idx" -D "$T/one.conf" >"$T/logs.out" 2>"$T/logs.log"
rc=$?
tap_ok "$([ "$rc" = 0 ] && grep -q "docstore written: .* 0 read from the database" "$T/logs.log" &&
	! grep -q "max_user_connections" "$T/logs.log" && echo 1)" \
	"texts all in the logs: -D as the one-connection user succeeds, no second connection ($rc)"
[ "$rc" = 0 ] || tail -5 "$T/logs.log" | sed 's/^/# /'
g=$(readlink -f "$dd/index/current")
tap_is "$(same_gen "$T/gen-root")" 1 "its generation equals the merge as root (cmp)"
tap_done
