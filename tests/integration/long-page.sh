#!/bin/bash
# long-page.sh - positions past word 16,383 of a page (doc/SEARCH.md,
# "Positions"): mpseek-index crawls a page of 40,000 words whose phrase
# "kumquat zephyr quillwort" sits at word 34,000, "farone" at word 20,000
# and "fartwo" at word 36,000; then mpseek-search, asking a searchd, finds
# the phrase quoted, not the phrase reversed nor the far pair quoted, and
# the proximity boost counts the adjacent words at 34,000 but not the pair
# 16,000 words apart.  With ASPseek's 14-bit positions every word past
# 16,383 had position 16,383: the phrase was missed and the adjacent words
# got no proximity boost.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
cli="$builddir/mpseek-search"
for p in "$idx" "$builddir/searchd" "$cli"; do
	[ -x "$p" ] || tap_skip_all "$p not built"
done
[ -x "$NGINX" ] || tap_skip_all "nginx not found (Debian package nginx)"

T=$(tmp_dir)
mkdir -p "$T/site"
# Filler words f0..f4999 (none a query word); the marked words at their
# body positions (0-based: the first body word is position 0).
awk 'BEGIN {
	print "<html><head><title>A long manual page</title></head><body><p>"
	for (i = 0; i < 40000; i++) {
		if (i == 20000) w = "farone"
		else if (i == 36000) w = "fartwo"
		else if (i == 34000) w = "kumquat"
		else if (i == 34001) w = "zephyr"
		else if (i == 34002) w = "quillwort"
		else w = "f" (i * 7 % 5000)
		printf "%s%s", w, (i % 20 == 19 ? "\n" : " ")
	}
	print "</p></body></html>"
}' >"$T/site/long.html"
printf '<html><head><title>Index</title></head><body><a href="long.html">the long page</a></body></html>\n' \
	>"$T/site/index.html"
web_start "$T/site"
mdb_start
conf=$T/mpseek.conf
write_conf "$conf" longpage "MinDelay 0" "ReadTimeOut 5" "Server $WEB_URL"
mpi_no_leak_check timeout 300 "$idx" "$conf" >"$T/crawl.out" 2>"$T/crawl.log"
rc=$?
tap_is "$rc" 0 "crawl and merge of the long page"
[ "$rc" = 0 ] || { tail -15 "$T/crawl.log" | sed 's/^/#   /'; tap_done; }

# The URLs a query finds, by file name.
found() {
	"$cli" -s "$SD_ADDR" -e 0 "$@" 2>"$T/err" | sed -n 's|.*https\?://[^/]*/\([^ ]*\).*|\1|p' |
		sort -u | tr '\n' ' ' | sed 's/ $//'
}
# The score of the first result ("1. URL [score] (...)").
score() {
	"$cli" -s "$SD_ADDR" -e 0 "$@" 2>"$T/err" | sed -n 's/^1\. [^ ]* \[\([0-9.]*\)\].*/\1/p'
}

searchd_start "$T" longpage
tap_is "$(found '"kumquat zephyr quillwort"')" "long.html" "the phrase at word 34,000 is found"
tap_is "$(found '"zephyr quillwort"')" "long.html" "its last two words at 34,001 are found"
tap_is "$(found '"quillwort zephyr"')" "" "the phrase reversed is not found"
tap_is "$(found '"farone fartwo"')" "" "words 16,000 apart are no phrase"
tap_is "$(found kumquat zephyr quillwort)" "long.html" "the words unquoted find the page"
# Excerpts find words in the stored text (its first 256 KiB: docstore.h),
# not by position: the phrase's passage, ~190 KB into the page, is shown.
tap_ok "$("$cli" -s "$SD_ADDR" -e 1 '"kumquat zephyr quillwort"' 2>/dev/null |
	grep -q '\*kumquat\* \*zephyr\* \*quillwort\*' && echo 1)" "the phrase's passage is the excerpt"
near_on=$(score kumquat zephyr)
far_on=$(score farone fartwo)
sd_on=$SD_PID
searchd_start "$T" longpage "ProximityBoost 0"
near_off=$(score kumquat zephyr)
far_off=$(score farone fartwo)
tap_diag "kumquat zephyr: $near_on (ProximityBoost 0: $near_off); farone fartwo: $far_on ($far_off)"
tap_ok "$(awk -v a="$near_on" -v b="$near_off" 'BEGIN { if (a != "" && b != "" && a > b) print 1 }')" \
	"adjacent words at 34,000 get the proximity boost"
tap_ok "$(awk -v a="$far_on" -v b="$far_off" 'BEGIN { if (a != "" && a == b) print 1 }')" \
	"words 16,000 apart past 16,383 do not"
searchd_stop
searchd_stop "$sd_on"
tap_done
