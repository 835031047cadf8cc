#!/bin/bash
# crawl-threads.sh - the analysis threads (IndexThreads, doc/CRAWL.md) change
# nothing but the speed:
#   * the shipped test web (tests/data/web) crawled and merged with
#     IndexThreads 0 (inline), 1 and 4 stores the same URLs with the same
#     statuses, MD5s, clones, redirects and document rows, and the merged
#     index has the same postings, compared by URL;
#   * the link thread (DBConnectionsPerRank 3) inserts the new links in
#     batches and stores the same rows; one connection has no link thread;
#   * the claim thread (DBConnectionsPerRank 4, the default) claims the held
#     sites' refills in rounds on a fourth connection and stores the rows of
#     DBConnectionsPerRank 3 (the loop claims); with 3 there is none;
#   * new links' ids read off the INSERT's auto-increment block are those a
#     SELECT finds (auto_increment_increment 2 forces the SELECT);
#   * the link cache changes nothing: DebugLevel debug (no cache) stores the
#     same rows, also with MaxHops 2, where cached links must still stop at
#     the depth limit;
#   * CloneTableEntries 0 (no in-memory clone table: the clone check asks
#     the database) and 3 (the table is dropped mid-crawl; a recrawl does
#     not load it) store what the default stores, clones included, and
#     recrawls store nothing twice;
#   * SIGTERM and `mpseek-index -E` during a threaded crawl (a slow generated
#     web, tests/servers/treeweb.py) lose nothing: exit 0, every claim
#     released, and a rerun stores every page without fetching again any
#     page stored before the stop (with the claim thread's rounds, and with
#     DBConnectionsPerRank 3).
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
[ -x "$idx" ] || tap_skip_all "$idx not built"
[ -x "$NGINX" ] || tap_skip_all "nginx not found (Debian package nginx)"
command -v python3 >/dev/null || tap_skip_all "python3 not found"

T=$(tmp_dir)
test_web_start "$T/site"
mdb_start
SQL() { mdb_sql "$1" "$2"; }

# crawl NAME THREADS [DIRECTIVE...]: a whole run (seed, crawl, merge) of the test web.
crawl() {
	local name=$1 n=$2
	shift 2
	write_conf "$T/$name.conf" "$name" "MinDelay 0" "ReadTimeOut 5" "MaxHops 6" "DeleteBad yes" \
		"Robots yes" "FollowOutside no" "IndexThreads $n" "$@" "Server $WEB_URL"
	set -- "$name"
	mpi_no_leak_check timeout 300 "$idx" "$T/$1.conf" >"$T/$1.out" 2>"$T/$1.log"
	rc=$?
	[ "$rc" = 0 ] || { tap_diag "$1: exit $rc; log tail:"; tail -15 "$T/$1.log" | sed 's/^/#   /'; }
}
# urls NAME: every URL row, ids replaced by URLs (redir) or dropped.
urls() {
	SQL "SELECT u.url, u.status, u.deleted, u.origin, u.crc, COALESCE(r.url, ''), u.hops,
		u.index_status FROM urlword u LEFT JOIN urlword r ON r.url_id = u.redir
		ORDER BY u.url" "$1"
}
# docs NAME: every urlwordsNN row by URL (hrefs as sorted target URLs).
docs() {
	local q="" i
	for i in $(seq -w 0 15); do
		q="$q${q:+ UNION ALL }SELECT url_id, deleted, title, charset, txt, content_type,
			keywords, description, wordcount, totalcount, docsize,
			IFNULL(MD5(UNCOMPRESS(words)), 'NOT-ZLIB'),
			HEX(hrefs) FROM urlwords$i"
	done
	SQL "SELECT url_id, url FROM urlword" "$1" >"$T/$1.ids"
	SQL "$q" "$1" | awk -F'\t' -v OFS='\t' '
		NR == FNR { u[$1] = $2; next }
		{
			h = $13; t = ""
			# LE uint32 ids -> URLs, sorted
			n = 0
			for (k = 1; k + 7 <= length(h); k += 8) {
				v = 0
				for (b = 3; b >= 0; b--)
					v = v * 256 + hex(substr(h, k + 2 * b, 2))
				l[++n] = u[v]
			}
			asort(l)
			for (k = 1; k <= n; k++) t = t " " l[k]
			delete l
			$1 = u[$1]; $13 = t
			print
		}
		function hex(s,   d) {
			d = "0123456789ABCDEF"
			return (index(d, substr(s, 1, 1)) - 1) * 16 + index(d, substr(s, 2, 1)) - 1
		}' "$T/$1.ids" - | sort
}
index_by_url() {
	"$idx" --dump-index "$T/$1.conf" 2>/dev/null |
		awk -F'\t' 'NR == FNR { u[$1] = $2; next } { print $1 "\t" u[$2] "\t" $3 }' "$T/$1.ids" - | sort
}
# same_as_t0 NAME SUFFIX LABEL [index]: NAME's URL rows and document rows (and
# with "index" its merged index) are those of the default crawl t0.
same_as_t0() {
	local name=$1 sfx=$2 label=$3
	urls "$name" >"$T/$name.urls$sfx"
	docs "$name" >"$T/$name.docs$sfx"
	tap_is "$(diff "$T/t0.urls" "$T/$name.urls$sfx" | head -5)" "" \
		"$label: the URLs, statuses, MD5s, clones and redirects of the default"
	tap_is "$(diff "$T/t0.docs" "$T/$name.docs$sfx" | head -5)" "" \
		"$label: the document rows of the default (words, links by URL, columns)"
	if [ "${4:-}" = index ]; then
		index_by_url "$name" >"$T/$name.idx$sfx"
		tap_is "$(diff "$T/t0.idx" "$T/$name.idx$sfx" | head -5)" "" \
			"$label: the merged index of the default, posting for posting by URL"
	fi
}

# ---- the same crawl with 0, 1 and 4 analysis threads
for n in 0 1 4; do
	crawl "t$n" "$n"
	tap_is "$rc" 0 "IndexThreads $n: exit 0"
	urls "t$n" >"$T/t$n.urls"
	docs "t$n" >"$T/t$n.docs"
	index_by_url "t$n" >"$T/t$n.idx"
done
# IndexThreads 2 on one database connection: no store thread.
crawl t2c1 2 "DBConnectionsPerRank 1"
tap_is "$rc" 0 "IndexThreads 2, DBConnectionsPerRank 1: exit 0"
urls t2c1 >"$T/t2c1.urls"
docs t2c1 >"$T/t2c1.docs"
index_by_url t2c1 >"$T/t2c1.idx"
# The stored text is compared inflated: igzip's bytes for the same text
# were seen to differ between runs (doc/CRAWL.md); every row must inflate.
tap_is "$(cat "$T"/t[014].docs "$T/t2c1.docs" | grep -c 'NOT-ZLIB')" 0 \
	"every stored text inflates (MariaDB's UNCOMPRESS() reads ASPseek's length + zlib)"
tap_ok "$(grep -q 'analysis thread(s), a store thread' "$T/t4.log" && echo 1)" \
	"IndexThreads 4: the log names the analysis threads and the store thread"
tap_ok "$(grep -q '2 analysis thread(s), stores in the loop' "$T/t2c1.log" && echo 1)" \
	"DBConnectionsPerRank 1: no store thread (the loop stores)"
# The link thread (DBConnectionsPerRank 3, the default) inserts the new
# links of the analysed pages in batches (the rows compared above are the
# same as inline); with one connection there is none.
tap_ok "$(grep -q 'a store thread, a link thread' "$T/t4.log" &&
	  grep -Eq 'link inserts \(.* s more in the link thread, [1-9][0-9]* batches\)' "$T/t4.log" &&
	  echo 1)" "IndexThreads 4: a link thread inserts the new links, in batches"
tap_ok "$(grep -Eq 'link thread, 0 batches' "$T/t2c1.log" && ! grep -q 'a link thread' "$T/t2c1.log" &&
	  echo 1)" "DBConnectionsPerRank 1: no link thread"
# The claim thread (DBConnectionsPerRank 4, the default) claims the refills
# of the held sites on its own connection; with 3 the loop claims them, and
# the stored rows are the same.
tap_ok "$(grep -q 'a link thread, a claim thread' "$T/t4.log" &&
	  grep -Eq 'claims \(.* s more in the claim thread, [1-9][0-9]* rounds\)' "$T/t4.log" &&
	  echo 1)" "IndexThreads 4: a claim thread claims the held sites' refills, in rounds"
crawl t4c3 4 "DBConnectionsPerRank 3"
tap_is "$rc" 0 "IndexThreads 4, DBConnectionsPerRank 3: exit 0"
tap_ok "$(grep -Eq 'claim thread, 0 rounds' "$T/t4c3.log" && ! grep -q 'a claim thread' "$T/t4c3.log" &&
	  grep -q 'a link thread' "$T/t4c3.log" && echo 1)" \
	"DBConnectionsPerRank 3: a link thread, no claim thread (the loop claims)"
same_as_t0 t4c3 "" "DBConnectionsPerRank 3 (no claim thread)" index
# The analysis sorts each page's words (an inline quicksort on 8-byte keys);
# the delta writer counts what came unsorted and the rank warns.  The test
# web has words that share their first 8 bytes (malformed, malformedword).
tap_ok "$(cat "$T"/t[014].log "$T/t2c1.log" | grep -c 'came to the delta log unsorted' | grep -qx 0 &&
	  grep -q 'malformedword' "$T/t4.idx" && echo 1)" \
	"every page's words reach the delta log sorted (IndexThreads 0, 1, 4; words sharing 8 bytes)"
tap_ok "$([ "$(awk -F'\t' '$2 == 200' "$T/t0.urls" | wc -l)" -ge 40 ] && echo 1)" \
	"IndexThreads 0: the test web is crawled ($(awk -F'\t' '$2 == 200' "$T/t0.urls" | wc -l) URLs with status 200)"
tap_ok "$([ "$(wc -l <"$T/t0.idx")" -gt 500 ] && echo 1)" "IndexThreads 0: an index ($(wc -l <"$T/t0.idx") postings)"
for n in 1 4 2c1; do
	label="IndexThreads $n"
	[ "$n" = 2c1 ] && label="IndexThreads 2 on one connection"
	tap_is "$(diff "$T/t0.urls" "$T/t$n.urls" | head -5)" "" \
		"$label: the URLs, statuses, MD5s, clones and redirects of IndexThreads 0"
	tap_is "$(diff "$T/t0.docs" "$T/t$n.docs" | head -5)" "" \
		"$label: the document rows of IndexThreads 0 (words, links, columns)"
	tap_is "$(diff "$T/t0.idx" "$T/t$n.idx" | head -5)" "" \
		"$label: the merged index of IndexThreads 0, posting for posting by URL"
done

# ---- new links' ids: the INSERT's consecutive auto-increment block (no SELECT)
# gives what the SELECT by url_hash gives.  auto_increment_increment 2 makes
# db.c take the SELECT path for every batch.
mdb_sql "SET GLOBAL auto_increment_increment = 2" >/dev/null
crawl tinc2 2
mdb_sql "SET GLOBAL auto_increment_increment = 1" >/dev/null
tap_is "$rc" 0 "auto_increment_increment 2 (new links' ids by SELECT): exit 0"
tap_ok "$(SQL "SELECT COUNT(*) FROM urlword WHERE url_id % 2 = 0" tinc2 | grep -qx 0 && echo 1)" \
	"auto_increment_increment 2: every id is odd (the setting was in force)"
same_as_t0 tinc2 "" "auto_increment_increment 2"

# ---- the link cache (doc/CRAWL.md) changes nothing: it is off at DebugLevel
# debug, so a debug crawl resolves and admits every link afresh; with MaxHops 2
# the cached links must still stop at the depth limit.
crawl tdbg 2 "DebugLevel debug"
tap_is "$rc" 0 "DebugLevel debug (no link cache): exit 0"
same_as_t0 tdbg "" "DebugLevel debug (no link cache)"
for lvl in info debug; do
	crawl "h2$lvl" 2 "MaxHops 2" "DebugLevel $lvl"
	tap_is "$rc" 0 "MaxHops 2, DebugLevel $lvl: exit 0"
	urls "h2$lvl" >"$T/h2$lvl.urls"
	docs "h2$lvl" >"$T/h2$lvl.docs"
done
tap_ok "$(grep -q 'link .* dropped: more than MaxHops' "$T/h2debug.log" &&
	[ "$(awk -F'\t' '$7 > 2' "$T/h2info.urls" | wc -l)" = 0 ] &&
	[ "$(wc -l <"$T/h2info.urls")" -lt "$(wc -l <"$T/t0.urls")" ] && echo 1)" \
	"MaxHops 2: links deeper than 2 hops are dropped ($(wc -l <"$T/h2info.urls") of $(wc -l <"$T/t0.urls") URLs)"
tap_is "$(diff "$T/h2debug.urls" "$T/h2info.urls" | head -5)" "" \
	"MaxHops 2: the link cache (DebugLevel info) stores the URL rows of DebugLevel debug"
tap_is "$(diff "$T/h2debug.docs" "$T/h2info.docs" | head -5)" "" \
	"MaxHops 2: the link cache (DebugLevel info) stores the document rows of DebugLevel debug"

# ---- CloneTableEntries: the clone check without the in-memory clone table
# (doc/CRAWL.md) finds the same clones: CloneTableEntries 0 asks the database
# for every page, CloneTableEntries 3 drops the site's table when it would
# outgrow 3 entries (mid-crawl), and when the site is taken again with more
# than 3 origins its table is not loaded at all.
# checks NAME.log: "IN_TABLE ASKED_DB" from the rank's clone-check count line.
checks() {
	sed -nE 's/.* clone checks: [0-9]+ among the outcomes not stored, ([0-9]+) in a clone table, ([0-9]+) asked the database .*/\1 \2/p' "$1" | tail -1
}
# rerun NAME TAG OPTION...: mpseek-index OPTIONs on NAME's config and database.
rerun() {
	local name=$1 tag=$2
	shift 2
	mpi_no_leak_check timeout 300 "$idx" "$@" "$T/$name.conf" >"$T/$name.$tag.out" 2>"$T/$name.$tag.log"
	rc=$?
	[ "$rc" = 0 ] || { tap_diag "$name $tag: exit $rc; log tail:"; tail -15 "$T/$name.$tag.log" | sed 's/^/#   /'; }
}
# stored NAME: urlword rows, urlwordsNN rows (nothing stored twice).
stored() {
	local q="" i
	for i in $(seq -w 0 15); do q="$q${q:+ + }(SELECT COUNT(*) FROM urlwords$i)"; done
	echo "$(SQL 'SELECT COUNT(*) FROM urlword' "$1") $(SQL "SELECT $q" "$1")"
}
nclones=$(awk -F'\t' '$2 == 200 && $4 == 0' "$T/t0.urls" | wc -l)
tap_ok "$([ "$nclones" -ge 1 ] && echo 1)" "the test web has clones ($nclones URLs stored as clones)"
read -r mem db <<<"$(checks "$T/t4.log")"
tap_ok "$([ "${mem:-0}" -gt 0 ] && [ "${db:-1}" = 0 ] && echo 1)" \
	"CloneTableEntries default: the clone checks use the table, none asks the database ($mem in the table, $db asked)"
for b in 0 3; do
	# MinDelay 0.1: a crawl of ~5 s, so the pending batch is stored every
	# PENDING_MAX_AGE (2 s) and the table is dropped mid-crawl, with pages
	# still to check (without idle moments, the only store was the last).
	crawl "ct$b" 2 "CloneTableEntries $b" "DebugLevel debug" "MinDelay 0.1"
	tap_is "$rc" 0 "CloneTableEntries $b: exit 0"
	same_as_t0 "ct$b" "" "CloneTableEntries $b" index
done
read -r mem db <<<"$(checks "$T/ct0.log")"
tap_ok "$([ "${mem:-1}" = 0 ] && [ "${db:-0}" -gt 0 ] &&
	grep -q 'no clone table (CloneTableEntries 0)' "$T/ct0.log" && echo 1)" \
	"CloneTableEntries 0: no table; every clone check that reaches the store asks the database ($db)"
read -r mem db <<<"$(checks "$T/ct3.log")"
tap_ok "$([ "${mem:-0}" -gt 0 ] && [ "${db:-0}" -gt 0 ] &&
	grep -q 'clone table of 3 origins dropped, CloneTableEntries 3 is reached' "$T/ct3.log" && echo 1)" \
	"CloneTableEntries 3: the table is dropped mid-crawl, then the database is asked ($mem in the table, $db asked)"

# A full recrawl with CloneTableEntries 3 (-a -m: everything due, every page
# parsed again): the site's origins no longer fit, no table at all.
before=$(stored ct3)
rerun ct3 all -a -m
tap_is "$rc" 0 "CloneTableEntries 3, recrawl -a -m: exit 0"
tap_ok "$(grep -q 'no clone table, its origins do not fit the 3 entries left of CloneTableEntries 3' "$T/ct3.all.log" && echo 1)" \
	"CloneTableEntries 3, recrawl: the site's table is not loaded (its origins do not fit)"
read -r mem db <<<"$(checks "$T/ct3.all.log")"
tap_ok "$([ "${mem:-1}" = 0 ] && [ "${db:-0}" -gt 0 ] && echo 1)" \
	"CloneTableEntries 3, recrawl: the clone checks ask the database ($db)"
parsed() { sed -nE 's/.* (https?:[^ ]*): 200 (indexed|clone of url).*/\1/p' "$1" | sort; }
tap_is "$(parsed "$T/ct3.all.log" | diff <(parsed "$T/ct3.log") - | head -5)" "" \
	"CloneTableEntries 3, recrawl: every page indexed or stored as a clone is parsed again ($(parsed "$T/ct3.log" | wc -l))"
# The clones alone (their origins are not due, so no outcome in hand answers
# for them): every clone check goes to the database and finds the origin.
for b in 0 3; do
	SQL 'UPDATE urlword SET next_index_time = 0 WHERE status = 200 AND origin = 0' "ct$b"
	rerun "ct$b" clones -q -m
	tap_is "$rc" 0 "CloneTableEntries $b, the clones recrawled: exit 0"
	read -r mem db <<<"$(checks "$T/ct$b.clones.log")"
	tap_is "$(grep -c ': 200 clone of url' "$T/ct$b.clones.log") ${mem:-?} ${db:-?}" "$nclones 0 $nclones" \
		"CloneTableEntries $b, the clones recrawled: each is a clone again, found by asking the database"
done
for b in 0 3; do
	same_as_t0 "ct$b" 2 "CloneTableEntries $b, after the recrawls (no posting twice)" index
done
tap_is "$(stored ct3)" "$before" "CloneTableEntries 3, after the recrawls: no urlword or urlwordsNN row added"

# ---- a stop during a threaded crawl loses nothing
PAGES=150
TW_PID=""
python3 "$srcdir/tests/servers/treeweb.py" --pages "$PAGES" --delay 0.01 \
	--port-file "$T/tw.port" --log "$T/tw.log" --lifetime 900 >/dev/null 2>"$T/tw.err" &
TW_PID=$!
trap '[ -n "$TW_PID" ] && kill "$TW_PID" 2>/dev/null; _lib_cleanup' EXIT
for _ in $(seq 100); do [ -s "$T/tw.port" ] && break; sleep 0.05; done
[ -s "$T/tw.port" ] || { echo "Bail out! treeweb.py did not start"; exit 1; }
PORT=$(cat "$T/tw.port")
HOSTS="a b c"
WANT=$(( PAGES * 3 ))
pages200() { SQL "SELECT COUNT(*) FROM urlword WHERE status = 200 AND url LIKE '%/p/%'" "$1"; }
claims_left() { SQL "SELECT COUNT(*) FROM urlword WHERE index_status = 2 OR claim_rank <> -1" "$1"; }
wait_requests() { for _ in $(seq 600); do [ "$(wc -l <"$T/tw.log")" -ge "$1" ] && return 0; sleep 0.1; done; return 1; }
twice() { awk -F'\t' '$7 == 200 && $8 > 0 { print $4 $6 }' "$@" | sort | uniq -d | head -3; }

# stop_test NAME HOW [DIRECTIVE...]: a crawl with 3 analysis threads stopped
# after 100 requests by HOW (term: SIGTERM to the process; E: mpseek-index
# -E), then a rerun.
stop_test() {
	local name=$1 mode=$2 how servers=() h pid erc=0
	shift 2
	how="$mode${*:+ ($*)}"
	for h in $HOSTS; do servers+=("Server http://$h.localhost:$PORT/"); done
	write_conf "$T/$name.conf" "$name" "MinDelay 0" "Robots yes" "ReadTimeOut 10" \
		"IndexThreads 3" "$@" "${servers[@]}"
	: >"$T/tw.log"
	mpi_no_leak_check timeout 300 "$idx" "$T/$name.conf" >"$T/$name.out" 2>"$T/$name.log" &
	pid=$!
	wait_requests 100
	if [ "$mode" = term ]; then
		# $pid is the shell around timeout: signal mpseek-index itself.
		kill -TERM "$(sed -n 's/.*mpseek-index\[\([0-9]*\)\] .*/\1/p' "$T/$name.log" | head -1)"
	else
		"$idx" -E "$T/$name.conf" >"$T/$name.stop" 2>&1; erc=$?
	fi
	wait "$pid"; rc=$?
	tap_is "$erc $rc" "0 0" "$how: the stopped crawl exits 0"
	tap_ok "$(grep -qE 'signal received|stop requested' "$T/$name.log" && echo 1)" "$how: the crawl says it stops"
	tap_is "$(claims_left "$name")" 0 "$how: every claim released"
	if [ $# = 0 ]; then
		tap_ok "$(grep -Eq 's more in the claim thread, [1-9][0-9]* rounds' "$T/$name.log" && echo 1)" \
			"$how: the claim thread claimed rounds before the stop"
	fi
	n=$(pages200 "$name")
	tap_ok "$([ "$n" -gt 0 ] && [ "$n" -lt "$WANT" ] && echo 1)" "$how: the stop came mid-crawl ($n pages stored)"
	# Every page fetched (200 with a body) before the stop is stored.
	awk -F'\t' '$7 == 200 && $8 > 0 && $6 ~ /^\/p\// { print $4 $6 }' "$T/tw.log" | sed 's/:[0-9]*\//\//' |
		sort -u >"$T/$name.fetched"
	SQL "SELECT url FROM urlword WHERE status = 200 AND url LIKE '%/p/%'" "$name" |
		sed 's,^http://,,; s/:[0-9]*\//\//' | sort -u >"$T/$name.stored"
	tap_is "$(comm -23 "$T/$name.fetched" "$T/$name.stored" | head -3)" "" \
		"$how: every page fetched before the stop is stored ($(wc -l <"$T/$name.fetched") fetched)"
	cp "$T/tw.log" "$T/$name.access1"; : >"$T/tw.log"
	mpi_no_leak_check timeout 300 "$idx" "$T/$name.conf" >>"$T/$name.out" 2>>"$T/$name.log"
	rc=$?
	tap_is "$rc" 0 "$how: the rerun exits 0"
	tap_is "$(pages200 "$name")" "$WANT" "$how: after the rerun every page is stored"
	tap_is "$(twice "$T/$name.access1" "$T/tw.log")" "" "$how: no page fetched twice over both runs"
	tap_is "$(claims_left "$name")" 0 "$how: no claim left after the rerun"
}
stop_test term term
stop_test stopE E
stop_test term3 term "DBConnectionsPerRank 3"

tap_done
