#!/bin/bash
# pagerank-db.sh - PageRank from the database of a real crawl: mpseek-index
# crawls tests/data/web/site (private nginx and MariaDB), computes PageRank
# after the crawl into a directory, and an independent reading of the
# database (pagerank-db.py: the graph rules and the file formats done again
# in Python) must find the same graph in citations/ (redirects and clones
# resolved, links to unfetched pages dropped) and ranks within 1e-9 of
# networkx on that graph, summing to 1.  Then -K under mpirun -np 1..4
# gives the same ranks, a second run starts warm, and --print-ranks prints
# url<TAB>rank for every ranked page.  Last, the graph from a generation's
# own `links` (written by the merge from the delta logs' HREFS records, or
# carried from the live generation): the same citations and ranks as from
# the database, on 1 and 3 ranks, after a merge that re-fetched one page,
# and the database again when the live generation's links are damaged.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
PY=${PYTHON3:-/usr/bin/python3}
"$PY" -c 'import networkx' 2>/dev/null || PY=python3
"$PY" -c 'import networkx' 2>/dev/null || tap_skip_all "python3-networkx is not installed"
[ -x "$NGINX" ] || tap_skip_all "nginx not found (Debian package nginx)"

T=$(tmp_dir)
test_web_start "$T/site"
mdb_start
conf=$T/mpseek.conf
write_conf "$conf" pr "MinDelay 0" "ReadTimeOut 5" "MaxHops 6" "Robots yes" \
	"FollowOutside no" "PageRankTolerance 1e-12" "Server $WEB_URL"
DB=pr
SQL() { mdb_sql "$1" "$DB"; }

run() { # NAME NP ARGS...: mpseek-index under mpirun; exit status in $rc
	local name=$1 np=$2
	shift 2
	mpi_no_leak_check timeout 300 "$MPIRUN" -np "$np" --oversubscribe "$idx" "$@" "$conf" \
		>"$T/$name.out" 2>"$T/$name.log"
	rc=$?
	[ "$rc" = 0 ] || { tap_diag "$name: exit $rc"; tail -15 "$T/$name.log" | sed 's/^/#   /'; }
}

# check NAME DIR [PRINTED]: the independent reading of the database.
check() {
	local name=$1 dir=$2 printed=${3:-}
	SQL 'SELECT url_id, site_id, status, deleted, origin, redir, crc, url FROM urlword' >"$T/urlword.tsv"
	uw=$(for i in $(seq 0 15); do printf 'SELECT url_id, deleted, IFNULL(HEX(hrefs), "") FROM urlwords%02d UNION ALL ' "$i"; done)
	SQL "${uw% UNION ALL }" >"$T/urlwords.tsv"
	"$PY" "$srcdir/tests/integration/pagerank-db.py" "$T/urlword.tsv" "$T/urlwords.tsv" "$dir" \
		$printed >"$T/$name.check" 2>&1
	tap_is "$?" 0 "$name: the files parse as doc/FORMATS.md says"
	[ "$name" = crawl ] && sed 's/^/#   /' "$T/$name.check" | head -20
}
val() { awk -v k="$1" '$1 == k { print $2 }' "$T/$2.check"; }

# ---- a crawl, then PageRank of its database into a directory
run crawl 1 --pagerank-dir "$T/g1"
tap_is "$rc" 0 "crawl + PageRank: exit 0"
tap_ok "$(grep -q 'pagerank: [0-9]* pages, [0-9]* links, [0-9]* iterations (converged)' "$T/crawl.log" && echo 1)" \
	"the log reports pages, links, iterations"
check crawl "$T/g1"
tap_ok "$([ "$(val pages crawl)" -ge 20 ] && echo 1)" "the graph has pages ($(val pages crawl))"
tap_ok "$([ "$(val links crawl)" -ge 40 ] && echo 1)" "the graph has links ($(val links crawl))"
tap_ok "$([ "$(val links_via_redirect crawl)" -ge 1 ] && echo 1)" \
	"links to redirects count for their targets ($(val links_via_redirect crawl))"
tap_ok "$([ "$(val links_via_clone crawl)" -ge 1 ] && echo 1)" \
	"links to clones count for their origin ($(val links_via_clone crawl))"
tap_is "$(val direct_mismatch crawl)" 0 "citations/direct = the stored hrefs, resolved"
tap_is "$(val reverse_mismatch crawl)" 0 "citations/reverse = its transpose"
tap_is "$(val rank_pages_mismatch crawl)" 0 "exactly the pages are ranked"
tap_ok "$(num_below "$(val rank_l1 crawl)" 1e-9)" "ranks within 1e-9 (L1) of networkx ($(val rank_l1 crawl))"
tap_ok "$(num_below "$(val rank_sum_error crawl)" 1e-9)" "ranks sum to 1 ($(val rank_sum_error crawl))"
tap_is "$(val header_nodes_ok crawl)" 1 "the header counts the pages"
tap_is "$(val warm crawl)" 0 "the first run starts cold"

# ---- -K alone under mpirun -np 1..3: the same ranks
for np in 1 2 3 4; do
	run k$np "$np" -K -q --pagerank-dir "$T/k$np"
	tap_is "$rc" 0 "-K -np $np: exit 0"
	tap_ok "$(! grep -q 'indexed\|fetch' "$T/k$np.log" && echo 1)" "-K -np $np: no crawl"
	cmp -s "$T/k$np/citations/direct" "$T/g1/citations/direct" && cmp -s "$T/k$np/citations/reverse" "$T/g1/citations/reverse"
	tap_is "$?" 0 "-K -np $np: citations byte-identical to the first run"
	check k$np "$T/k$np"
	tap_ok "$(num_below "$(val rank_l1 k$np)" 1e-9)" "-K -np $np: within 1e-9 of networkx ($(val rank_l1 k$np))"
done
l1=$("$PY" - "$T/k1/ranks" "$T/k4/ranks" <<'PYEOF'
import struct, sys
def r(p):
    b = open(p, 'rb').read()
    n = struct.unpack_from('<I', b, 12)[0]
    return struct.unpack_from('<%dd' % n, b, 64)  # after the 64-byte header (doc/FORMATS.md, "ranks")
a, b = r(sys.argv[1]), r(sys.argv[2])
print('%.3g' % (sum(abs(x - y) for x, y in zip(a, b)) + (0 if len(a) == len(b) else 1)))
PYEOF
)
tap_ok "$(num_below "$l1" 1e-9)" "-np 4 vs -np 1: L1 $l1 < 1e-9"

# ---- warm start: the previous ranks are in the directory
it_cold=$(val iterations k2)
run warm 2 -K -q --pagerank-dir "$T/k2"
tap_is "$rc" 0 "a second -K: exit 0"
check warm "$T/k2"
tap_is "$(val warm warm)" 1 "a second -K starts warm"
tap_ok "$([ "$(val iterations warm)" -lt "$it_cold" ] && echo 1)" \
	"the warm start needs fewer iterations ($(val iterations warm) < $it_cold)"
tap_ok "$(num_below "$(val rank_l1 warm)" 1e-9)" "warm: within 1e-9 of networkx"

# ---- --print-ranks: url<TAB>rank of every ranked page, without MPI
"$idx" --print-ranks --pagerank-dir "$T/g1" "$conf" >"$T/printed.tsv" 2>"$T/print.log"
tap_is "$?" 0 "--print-ranks: exit 0"
check print "$T/g1" "$T/printed.tsv"
tap_is "$(val print_mismatch print)" 0 "--print-ranks prints every ranked page with its rank"
tap_is "$(wc -l <"$T/printed.tsv")" "$(val pages print)" "one line per page"
tap_ok "$(grep -q "^${WEB_URL}	" "$T/printed.tsv" && echo 1)" "the home page is ranked"
"$idx" --print-ranks --pagerank-dir "$T/none" "$conf" >/dev/null 2>"$T/print2.log"
tap_is "$?" 1 "--print-ranks without ranks: exit 1"
tap_ok "$(grep -q 'has no ranks' "$T/print2.log" && echo 1)" "and says so"

# ---- -K into index generations (include/storage.h)
data_dir=$(awk '$1 == "DataDir" { print $2 }' "$conf")
run nogen 2 -K -q
tap_is "$rc" 1 "-K without an index: exit 1"
tap_ok "$(grep -q 'PageRank needs an index' "$T/nogen.log" && echo 1)" "and says why"
# Generation 1 as a merge leaves it, reduced to what -K relies on: FORMAT
# (doc/FORMATS.md, CompactStorage) and the `current` symlink.
mkdir -p "$data_dir/index/gen-00000001"
printf 'mpseek-compactstorage 3\ngeneration 1\npartitions 100\nwords 0\nlive_words 0\npostings 0\ndocs 0\nmax_url_id 0\nsection_lengths 0 0 0 0\n' \
	>"$data_dir/index/gen-00000001/FORMAT"
echo keep >"$data_dir/index/gen-00000001/docinfo"
ln -s gen-00000001 "$data_dir/index/current"
run kgen 2 -K -q
tap_is "$rc" 0 "-K -np 2 on generation 1: exit 0"
tap_is "$(readlink "$data_dir/index/current")" gen-00000002 "-K published generation 2"
tap_ok "$(grep -qx 'generation 2' "$data_dir/index/gen-00000002/FORMAT" && echo 1)" "its FORMAT says generation 2"
tap_is "$(stat -c %i "$data_dir/index/gen-00000002/docinfo")" "$(stat -c %i "$data_dir/index/gen-00000001/docinfo")" \
	"the other files are hard links of generation 1"
tap_ok "$([ ! -e "$data_dir/index/gen-00000001/ranks" ] && echo 1)" "generation 1 is left as it was"
check kgen "$data_dir/index/current"
tap_ok "$(num_below "$(val rank_l1 kgen)" 1e-9)" "-K generation: ranks within 1e-9 of networkx"
tap_is "$(val direct_mismatch kgen)$(val reverse_mismatch kgen)" 00 "-K generation: citations right"
"$idx" --print-ranks "$conf" >"$T/printed2.tsv" 2>/dev/null
tap_is "$?" 0 "--print-ranks reads the live generation"
tap_is "$(wc -l <"$T/printed2.tsv")" "$(val pages kgen)" "--print-ranks: one line per page"
cp "$data_dir/index/gen-00000002/ranks" "$T/ranks2"
run kgen3 1 -K -q
tap_is "$rc" 0 "a second -K: exit 0"
tap_is "$(readlink "$data_dir/index/current")" gen-00000003 "generation 3 published"
tap_ok "$(grep -q 'warm start' "$T/kgen3.log" && echo 1)" "it starts from generation 2's ranks"
cmp -s "$T/ranks2" "$data_dir/index/gen-00000002/ranks"
tap_is "$?" 0 "generation 2's ranks are untouched (searchd may still read them)"
tap_ok "$([ ! -e "$data_dir/index/gen-00000001" ] && echo 1)" "generation 1 is gone, 2 is kept"
tap_ok "$(! ls -d "$data_dir"/index/*.tmp* 2>/dev/null | grep -q . && echo 1)" "no temp files left"

# ---- the graph from the generation's links (doc/PAGERANK.md, "The graph")
DB=prgen
conf=$T/gen.conf
write_conf "$conf" "$DB" "MinDelay 0" "ReadTimeOut 5" "MaxHops 6" "Robots yes" \
	"FollowOutside no" "PageRankTolerance 1e-12" "Server $WEB_URL"
dd=$(awk '$1 == "DataDir" { print $2 }' "$conf")
from_links() { grep -q "graph [0-9.]* s (from the generation's links)" "$T/$1.log" && echo 1; }
from_db() { grep -q "graph [0-9.]* s (from the database)" "$T/$1.log" && echo 1; }
l1() { # RANKS_A RANKS_B: the L1 distance of two ranks files
	"$PY" - "$1" "$2" <<'PYEOF'
import struct, sys
def r(p):
    b = open(p, 'rb').read()
    n = struct.unpack_from('<I', b, 12)[0]
    return struct.unpack_from('<%dd' % n, b, 64)
a, b = r(sys.argv[1]), r(sys.argv[2])
print('%.3g' % (sum(abs(x - y) for x, y in zip(a, b)) + (0 if len(a) == len(b) else 1)))
PYEOF
}
same_citations() { cmp -s "$1/citations/direct" "$2/citations/direct" && cmp -s "$1/citations/reverse" "$2/citations/reverse" && echo 1; }
run gcrawl 1
g1=$(readlink -f "$dd/index/current")
tap_is "$rc" 0 "links: crawl, merge and PageRank into a generation: exit 0"
tap_ok "$([ -s "$g1/links" ] && from_links gcrawl)" "links: the merge wrote them, PageRank read its graph from them"
check gcrawl "$g1"
tap_is "$(val direct_mismatch gcrawl)$(val reverse_mismatch gcrawl)$(val rank_pages_mismatch gcrawl)" 000 \
	"links: the citations and the ranked pages are the database's"
tap_ok "$(num_below "$(val rank_l1 gcrawl)" 1e-9)" "links: ranks within 1e-9 of networkx ($(val rank_l1 gcrawl))"
MPSEEK_PAGERANK_GRAPH=db run gdb 1 -K -q --pagerank-cold
g2=$(readlink -f "$dd/index/current")
tap_ok "$([ "$rc" = 0 ] && from_db gdb)" "links: MPSEEK_PAGERANK_GRAPH=db reads the database"
tap_ok "$(same_citations "$g1" "$g2")" "links: the database gives the same citations, byte for byte"
v=$(l1 "$g1/ranks" "$g2/ranks")
tap_ok "$(num_below "$v" 1e-12)" "links: and the same ranks (L1 $v)"
run gk3 3 -K -q --pagerank-cold
g3=$(readlink -f "$dd/index/current")
tap_ok "$([ "$rc" = 0 ] && from_links gk3 && same_citations "$g1" "$g3")" \
	"links: -K -np 3 reads them on every rank, the same citations"
# One page fetched again: its links from the delta log, the others' carried
# from the live generation.
run gre 1 -a -m -u "$WEB_URL/"
g4=$(readlink -f "$dd/index/current")
tap_ok "$([ "$rc" = 0 ] && [ "$g4" != "$g3" ] && grep -q "indexed" "$T/gre.log" && [ -s "$g4/links" ] && from_links gre)" \
	"links: a merge of one re-fetched page writes them whole, PageRank reads them"
check gre "$g4"
tap_is "$(val direct_mismatch gre)$(val reverse_mismatch gre)$(val rank_pages_mismatch gre)" 000 \
	"links: after that merge, still the database's graph"
# A byte of a list damaged: -K reads the database (the file's CRC is
# checked first), with the reason in the log.
sz=$(stat -c %s "$g4/links")
printf '\377' | dd of="$g4/links" bs=1 seek=$((sz - 2)) conv=notrunc status=none
run gflip 1 -K -q
tap_ok "$([ "$rc" = 0 ] && from_db gflip && grep -q "pagerank: .*links: offset .*the graph is read from the database" "$T/gflip.log" && echo 1)" \
	"links: a damaged list: -K says so and reads the database"
check gflip "$(readlink -f "$dd/index/current")"
tap_is "$(val direct_mismatch gflip)" 0 "links: the same graph from the database"
# Damaged in the live generation (the same file: -K's generation holds it
# as a hard link): the next merge checks its CRC and writes none (a copy of
# the damaged lists would get a good CRC), PageRank reads the database.
run gre2 1 -a -m -u "$WEB_URL/"
g5=$(readlink -f "$dd/index/current")
tap_ok "$([ "$rc" = 0 ] && [ ! -e "$g5/links" ] && grep -q "no links file (the live generation has no readable links)" "$T/gre2.log" && from_db gre2)" \
	"links: damaged in the live generation: none written, PageRank reads the database"
check gre2 "$g5"
tap_is "$(val direct_mismatch gre2)$(val reverse_mismatch gre2)" 00 "links: the same graph from the database"

tap_done
