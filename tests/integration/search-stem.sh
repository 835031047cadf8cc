#!/bin/bash
# search-stem.sh - word forms (doc/SEARCH.md, "Word forms"): mpseek-index
# crawls tests/data/stems/site and its merge writes the generation's stem
# map; tests/helper/search-tool then finds the page of "connections" by the
# query "connection" and the other way round, each time the page with the
# query's own form first (a form scores StemWeight of the exact word), a
# plural or past tense by the bare word; a phrase takes its words exactly;
# `Stemming no` in searchd.conf turns the forms off, and a generation merged
# with `Stemming no` has no map (the query finds exact words only).
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

search_tools

T=$(tmp_dir)
site_crawl "$srcdir/tests/data/stems/site" stem
gen=$(readlink -f "$(sed -n 's/^DataDir //p' "$conf")/index/current")
tap_ok "$([ -s "$gen/stems" ] && echo 1)" "the merge wrote the stem map"

# The pages of a query, in rank order, by file name.
pages() {
	"$tool" -G -n 10 "$@" 2>"$T/err" | sed -n 's|^ *https\?://[^/]*/||p' | tr '\n' ' ' | sed 's/ $//'
}
printf 'Stemming yes\n' >"$T/on.conf"
printf 'Stemming no\n' >"$T/off.conf"
printf 'StemWeight 1.5\n' >"$T/bad.conf"

while IFS='|' read -r query want; do
	case $query in ''|'#'*) continue ;; esac
	tap_is "$(pages -S "$T/on.conf" "$conf" "$query")" "$want" "$query: $want"
done <<'EOF2'
connection|singular.html plural.html
connections|plural.html singular.html
connect|plural.html singular.html
walk|both.html
walking|both.html
walked|both.html
CONNECTIONS|plural.html singular.html
connection -connections|singular.html
"one connection"|singular.html
"one connections"|
"open connections"|plural.html
pooled connection|plural.html
EOF2

tap_is "$(pages -S "$T/off.conf" "$conf" connection)" "singular.html" "Stemming no: connection finds its own word only"
tap_is "$(pages -S "$T/off.conf" "$conf" connections)" "plural.html" "Stemming no: connections finds its own word only"
tap_is "$(pages -S "$T/off.conf" "$conf" walk)" "" "Stemming no: walk finds nothing"
"$tool" -S "$T/bad.conf" "$conf" walk >"$T/out" 2>&1
tap_ok "$(grep -q 'StemWeight must be between 0 and 1' "$T/out" && echo 1)" "StemWeight above 1 is refused"
printf 'StemLanguage klingon\n' >"$T/klingon.conf"
"$tool" -S "$T/klingon.conf" "$conf" walk >"$T/out" 2>&1
tap_ok "$(grep -q 'StemLanguage klingon: not a language of libstemmer' "$T/out" && echo 1)" \
	"an unknown StemLanguage is refused"

# A generation merged with Stemming no has no map: exact words only.
echo "Stemming no" >>"$conf"
mpi_no_leak_check timeout 300 "$idx" -a -m "$conf" >"$T/merge.out" 2>"$T/merge.log"
tap_is "$?" 0 "a recrawl and merge with Stemming no"
gen=$(readlink -f "$(sed -n 's/^DataDir //p' "$conf")/index/current")
tap_ok "$([ ! -e "$gen/stems" ] && echo 1)" "no stem map in the new generation"
tap_is "$(pages -S "$T/on.conf" "$conf" connection)" "singular.html" "no map: connection finds its own word only"
tap_done
