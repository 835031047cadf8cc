#!/bin/bash
# anchors.sh - anchor text (doc/SEARCH.md, "Anchor text"): mpseek-index
# crawls a copy of tests/data/anchors/site with MaxAnchorWords 3, and
# tests/helper/search-tool finds pages by words only the text of their
# in-links carries; the words past MaxAnchorWords from one site (over all
# its pages) and a page's link to itself add nothing; AnchorWeight moves an
# anchor-only page above or below a page with the word in its body (0: not
# found at all); after a source page changed and another was removed, the
# next crawl's merge has dropped their old anchors and kept the others.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

search_tools

T=$(tmp_dir)
cp -r "$srcdir/tests/data/anchors/site" "$T/site"
site_crawl "$T/site" anchors "MaxAnchorWords 3"
tap_ok "$(grep -q 'merge: anchor text of [1-9][0-9]* link(s)' "$T/crawl.log" && echo 1)" \
	"the merge read the anchor text"

# The pages of a query, in rank order, by file name ("index" for /).  A
# source page has its links' text in its own body: it is found too.
pages() {
	"$tool" -G -n 10 "$@" 2>"$T/err" | sed -n 's|^ *https\?://[^/]*/||p' | sed 's/^$/index/' |
		tr '\n' ' ' | sed 's/ $//'
}
printf '\n' >"$T/default.conf"
for w in 0 0.1 20; do printf 'AnchorWeight %s\n' "$w" >"$T/w$w.conf"; done

check() {
	local what=$1 query want
	while IFS='|' read -r query want; do
		case $query in ''|'#'*) continue ;; esac
		tap_is "$(pages -S "$T/default.conf" "$conf" "$query")" "$want" "$what: $query: $want"
	done
}
check first <<'EOF2'
zebrafish|target.html index
zebrafish handbook|index target.html
fish zebrafish|target.html
papaya|bound.html index
kiwi|bound.html index
lychee|index
durian|page2.html
selfie|page2.html
wombat|t1.html src1.html
numbat|t2.html src2.html
"zebrafish handbook"|index
EOF2
tap_is "$(pages -S "$T/w0.1.conf" "$conf" marmoset)" "index w1.html w2.html" \
	"AnchorWeight 0.1: the body's word above the in-links'"
tap_is "$(pages -S "$T/w20.conf" "$conf" marmoset)" "w2.html index w1.html" \
	"AnchorWeight 20: the in-links' word above the body's"
tap_is "$(pages -S "$T/w0.conf" "$conf" marmoset)" "index w1.html" "AnchorWeight 0: no anchor text"
tap_is "$(pages -S "$T/w0.conf" "$conf" zebrafish)" "index" "AnchorWeight 0: zebrafish finds its source only"

# src1.html changes its anchor, src2.html goes (404): their old anchors
# must not outlive the next merge; the unchanged index keeps its own.
sed -i 's/wombat/echidna/' "$T/site/src1.html"
touch -d "@$(($(date +%s) + 60))" "$T/site/src1.html"
rm "$T/site/src2.html"
mpi_no_leak_check timeout 300 "$idx" -a -m "$conf" >"$T/re.out" 2>"$T/re.log"
rc=$?
tap_is "$rc" 0 "a recrawl and merge"
[ "$rc" = 0 ] || tail -15 "$T/re.log" | sed 's/^/#   /'
check recrawled <<'EOF2'
wombat|
echidna|t1.html src1.html
numbat|
zebrafish|target.html index
papaya|bound.html index
EOF2

printf 'MaxAnchorWords -1\n' >>"$conf"
"$idx" --check-config "$conf" >"$T/out" 2>&1
tap_ok "$(grep -q 'MaxAnchorWords' "$T/out" && echo 1)" "MaxAnchorWords below 0 is refused"
tap_done
