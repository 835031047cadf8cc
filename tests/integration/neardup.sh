#!/bin/bash
# neardup.sh - near-duplicates (doc/CRAWL.md and doc/SEARCH.md,
# "Near-duplicates"): a served site with two pages that differ only by
# their "generated" timestamp (another MD5: not clones), a third page on
# another subject and two empty pages.  The crawl stores a simhash per page,
# the merge groups the two (NearDupBits 3, the default) into the
# generation's neardup file, searchd's engine (tests/helper/search-tool)
# shows one of them and lists the other as its near-duplicate, and
# `mpseek-index -S` counts the group.  The unrelated page stays apart; the
# empty pages crawl without harm.  NearDupBits 0: no grouping, all pages
# shown.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

search_tools

T=$(tmp_dir)
mkdir -p "$T/site"
body='<p>The keeper climbed the spiral stair of the old lighthouse every evening at
dusk, trimmed the wick, wound the clockwork that turned the great lens, and wrote
the state of the sea and the sky into the log book before the first ship passed
the reef. In winter the storms came from the north west and the spray reached the
lantern room; in summer fog rolled in from the banks and the horn sounded through
the night. The keeper kept the brass polished, the windows clean and the oil
stores dry, and every month a boat brought bread, letters and paraffin from the
harbour town across the bay. Visitors asked how many steps led to the top, how
far the beam could be seen and whether the keeper was ever lonely; the answers
were one hundred and twelve, eighteen nautical miles, and only when the radio
was silent.</p>'
page() { # FILE TITLE STAMP BODY
	printf '<html><head><title>%s</title></head><body>\n<p>Generated %s</p>\n%s\n</body></html>\n' \
		"$2" "$3" "$4" >"$T/site/$1"
}
page a.html "The lighthouse keeper" "2026-11-26 07:59:58" "$body"
page b.html "The lighthouse keeper" "2026-11-27 13:02:41" "$body"
page c.html "Harbour lighthouse repairs" "2026-11-26 07:59:58" \
	'<p>Masons repaired the harbour lighthouse after the autumn gale: new granite
blocks at the base, a copper roof on the lantern, and an electric lamp that
replaced the paraffin burner. The council paid for the work from the fishing
dues and opened the tower to schools on Saturdays.</p>'
: >"$T/site/empty.html"
printf '<html><head></head><body></body></html>\n' >"$T/site/blank.html"
printf '<html><body><a href="a.html">one</a> <a href="b.html">two</a> <a href="c.html">three</a>
<a href="empty.html">four</a> <a href="blank.html">five</a></body></html>\n' >"$T/site/index.html"
tap_ok "$(! cmp -s "$T/site/a.html" "$T/site/b.html" && echo 1)" "a.html and b.html differ (not MD5 clones)"

web_start "$T/site"
mdb_start
conf=$T/mpseek.conf
write_conf "$conf" ndup "MinDelay 0" "ReadTimeOut 5" "Server $WEB_URL"
mpi_no_leak_check timeout 300 "$idx" "$conf" >"$T/crawl.out" 2>"$T/crawl.log"
rc=$?
tap_is "$rc" 0 "crawl and merge of the site (empty pages among it)"
[ "$rc" = 0 ] || { tail -15 "$T/crawl.log" | sed 's/^/#   /'; tap_done; }

sim() { mdb_sql "SELECT simhash FROM urlword WHERE url LIKE '%/$1'" ndup; }
tap_ok "$([ "$(sim a.html)" != 0 ] && [ "$(sim a.html)" = "$(sim b.html)" ] && echo 1)" \
	"a.html and b.html: one simhash ($(sim a.html)): only the timestamp's digits differ"
tap_ok "$([ "$(sim c.html)" != 0 ] && [ "$(sim c.html)" != "$(sim a.html)" ] && echo 1)" \
	"c.html has a simhash of its own"
tap_is "$(sim empty.html)|$(sim blank.html)" "0|0" "the empty pages have none (never grouped)"
tap_is "$(mdb_sql "SELECT COUNT(*) FROM urlword WHERE origin = 0" ndup)" 0 "no page is an MD5 clone"
gen=$(readlink -f "$(sed -n 's/^DataDir //p' "$conf")/index/current")
tap_ok "$([ -s "$gen/neardup" ] && echo 1)" "the merge wrote the generation's neardup file"
tap_ok "$(grep -q 'near-duplicates: 1 groups of 2 pages' "$T/crawl.log" && echo 1)" \
	"the merge logs one group of two pages"

# The pages of a query in rank order (not grouped by site), "+" before a
# near-duplicate listed with the page above.
pages() {
	"$tool" -v -G -n 10 "$@" 2>"$T/err" | sed -n 's|^ *https\?://[^/]*/\(.*\)|\1|p; s|^    clone: https\?://[^/]*/\(.*\)|+\1|p' |
		tr '\n' ' ' | sed 's/ $//'
}
got=$(pages "$conf" lighthouse)
tap_ok "$(grep -Eqx 'a\.html \+b\.html c\.html|b\.html \+a\.html c\.html|c\.html a\.html \+b\.html|c\.html b\.html \+a\.html' <<<"$got" && echo 1)" \
	"lighthouse: a.html and b.html shown once, the other as its near-duplicate, c.html apart: $got"
tap_ok "$("$tool" -G -n 10 "$conf" lighthouse 2>/dev/null | head -1 | grep -q '^2 2 ' && echo 1)" \
	"... and counted as one result ($("$tool" -G -n 10 "$conf" lighthouse 2>/dev/null | head -1))"
got=$(pages "$conf" keeper)
tap_ok "$(grep -Eqx 'a\.html \+b\.html|b\.html \+a\.html' <<<"$got" && echo 1)" "keeper (the pair alone): $got"
# The near-duplicate's URL is kept with its hit's row (doc/SEARCH.md, "The
# result page"): the same page again asks the database nothing.
selects() { mdb_sql "SHOW GLOBAL STATUS LIKE 'Com_select'" | cut -f2; }
s0=$(selects); "$tool" -v -G -n 10 "$conf" lighthouse >"$T/once" 2>/dev/null
s1=$(selects); "$tool" -v -G -n 10 -r 5 "$conf" lighthouse >"$T/five" 2>/dev/null; s5=$(selects)
tap_ok "$(cmp -s "$T/once" "$T/five" && grep -q '^    clone: ' "$T/five" && echo 1)" \
	"lighthouse a fifth time (its rows kept): the same page, the near-duplicate listed"
tap_is "$(( (s5 - s1 - (s1 - s0)) / 4 ))" 0 "... and a repeated page with a near-duplicate asks no SELECT"
got=$(pages -n 1 "$conf" lighthouse)
tap_ok "$(grep -Eqx '[abc]\.html( \+[ab]\.html)?' <<<"$got" && echo 1)" "a page of one hit: $got"
# The same pruned (plain words; and with forms and anchor text, which are
# pruned as well; and phrases): top-k pruning scores the pair, the fold
# drops one; that page equals the one of exhaustive scoring.
for how in 'Stemming no\nAnchorWeight 0\n' ''; do
	printf "${how}Pruning yes\n" >"$T/pruned.conf"
	printf "${how}Pruning no\n" >"$T/exhaustive.conf"
	for q in lighthouse keeper '"lighthouse keeper"' 'lighthouse "the keeper was"'; do
		pr=$("$tool" -v -G -n 10 -S "$T/pruned.conf" "$conf" "$q" 2>&1 | grep -v '^latency')
		ex=$("$tool" -v -G -n 10 -S "$T/exhaustive.conf" "$conf" "$q" 2>&1 | grep -v '^latency')
		tap_ok "$([ -n "$ex" ] && [ "$pr" = "$ex" ] && echo 1)" \
			"$q, pruned${how:+ (plain words)}: the page of exhaustive scoring"
		[ "$pr" = "$ex" ] || diff <(echo "$ex") <(echo "$pr") | head -10 | sed 's/^/#   /'
	done
done

"$idx" -S "$conf" >"$T/stats" 2>&1
tap_is "$?" 0 "-S"
tap_ok "$(grep -q 'Near-duplicates: 1 group(s) of 2 document(s) (1 shown, 1 folded; NearDupBits 3)' "$T/stats" && echo 1)" \
	"-S counts the group: $(grep 'Near-dup' "$T/stats")"

# --check verifies the file; a flipped byte is damage.
"$idx" --check "$conf" >"$T/check.out" 2>&1
tap_is "$?" 0 "--check passes the generation"
cp "$gen/neardup" "$T/neardup.good"
printf '\x7f' | dd of="$gen/neardup" bs=1 seek=70 conv=notrunc 2>/dev/null
"$idx" --check "$conf" >"$T/check.out" 2>&1
tap_ok "$([ $? != 0 ] && grep -q 'neardup: .*crc' "$T/check.out" && echo 1)" \
	"--check reports a damaged neardup file: $(grep -m1 'neardup' "$T/check.out")"
cp "$T/neardup.good" "$gen/neardup"

# NearDupBits 0: no grouping.
printf 'NearDupBits 4\n' >"$T/four.conf"
"$idx" --check-config "$T/four.conf" >"$T/out" 2>&1
tap_ok "$(grep -q 'NearDupBits' "$T/out" && echo 1)" "NearDupBits 4 is refused: $(grep -m1 NearDupBits "$T/out")"
echo "NearDupBits 0" >>"$conf"
mpi_no_leak_check timeout 300 "$idx" -a -m "$conf" >"$T/merge.out" 2>"$T/merge.log"
tap_is "$?" 0 "a recrawl and merge with NearDupBits 0"
gen=$(readlink -f "$(sed -n 's/^DataDir //p' "$conf")/index/current")
tap_ok "$([ ! -e "$gen/neardup" ] && echo 1)" "no neardup file in the new generation"
got=$(pages "$conf" keeper)
tap_ok "$(grep -Eqx 'a\.html b\.html|b\.html a\.html' <<<"$got" && echo 1)" "no grouping: both pages shown: $got"
"$idx" -S "$conf" >"$T/stats" 2>&1
tap_ok "$(grep -q 'Near-duplicates: not grouped' "$T/stats" && echo 1)" "-S says so"
tap_done
