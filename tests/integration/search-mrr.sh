#!/bin/bash
# search-mrr.sh - keeps the known-item quality of the ranking from falling:
# mpseek-index crawls tests/data/mrr/site (21 real git manual pages and an
# index page), merges and ranks; bench/search-load asks every query of
# tests/data/mrr/known-items.tsv (each page's name and the one-line
# description of its NAME section, each naming one page) through
# search_run(), ungrouped, and the mean reciprocal rank of the target pages
# must reach the floors of tests/data/mrr/floor (per kind and for all);
# and its latency mode runs two client threads without an error.
# bench/search measures the same on the 2,519-page development corpus.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
load="$builddir/bench/search-load"
data="$srcdir/tests/data/mrr"
[ -x "$idx" ] || tap_skip_all "$idx not built"
[ -x "$load" ] || tap_skip_all "$load not built"
[ -x "$NGINX" ] || tap_skip_all "nginx not found (Debian package nginx)"

T=$(tmp_dir)
web_start "$data/site"
mdb_start
conf=$T/mpseek.conf
write_conf "$conf" mrr "MinDelay 0" "ReadTimeOut 5" "Server $WEB_URL"

mpi_no_leak_check timeout 300 "$idx" "$conf" >"$T/crawl.out" 2>"$T/crawl.log"
rc=$?
tap_is "$rc" 0 "crawl, merge and PageRank of the test site"
[ "$rc" = 0 ] || { tail -15 "$T/crawl.log" | sed 's/^/#   /'; tap_done; }
pages=$(mdb_sql "SELECT COUNT(*) FROM urlword WHERE status = 200" mrr)
tap_is "$pages" 22 "22 pages stored"

# The targets as the crawler stored them: http://127.0.0.1:PORT/path.
sed -E "s|\t/|\t${WEB_URL%/}/|" "$data/known-items.tsv" >"$T/items.tsv"
"$load" -c "$conf" mrr "$T/items.tsv" >"$T/mrr.out" 2>"$T/mrr.err"
tap_is "$?" 0 "search-load ran every query"
n=$(grep -vc '^#' "$data/known-items.tsv")
tap_is "$(grep -vc '^mrr' "$T/mrr.out")" "$n" "an answer for each of the $n queries"

while read -r kind floor; do
	case $kind in ''|'#'*) continue ;; esac
	got=$(awk -F'\t' -v k="$kind" '$1 == "mrr" && $2 == k { print $4 }' "$T/mrr.out")
	tap_ok "$([ -n "$got" ] && awk -v g="$got" -v f="$floor" 'BEGIN { exit !(g >= f) }' && echo 1)" \
		"MRR of the $kind queries $got >= $floor"
done <"$data/floor"
# bench/search's latency mode: two client threads, one second per class.
printf 'one\tstash\ntwo\tworking tree\n' >"$T/lat.tsv"
"$load" -c "$conf" lat "$T/lat.tsv" 2 1 >"$T/lat.out" 2>"$T/lat.err"
tap_ok "$([ $? = 0 ] && [ "$(awk -F'\t' '$1 == "lat" && $4 > 0 && $9 == 0' "$T/lat.out" | wc -l)" = 2 ] && echo 1)" \
	"search-load lat: two classes answered by two threads without errors"
# Which queries missed the first place, for whoever lowers a floor.
awk -F'\t' '$1 != "mrr" && $2 != 1 { print "# rank " $2 ": " $1 " \"" $3 "\"" }' "$T/mrr.out"
tap_done
