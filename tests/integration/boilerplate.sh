#!/bin/bash
# boilerplate.sh - boilerplate (doc/SEARCH.md, "Boilerplate"): mpseek-index
# crawls tests/data/boilerplate/site, eight pages sharing a navigation bar
# "Prev Up Home Next", a breadcrumb and a footer, and its merge writes the
# generation's `boiler` file (BoilerplateShare, BoilerplateMinPages).  Then:
# a query for a navigation word has no snippet with the navigation's text;
# the one page whose body says "home" ranks above the pages that have it
# only in their navigation (BoilerplateWeight 0.1; at 1 the short pages win
# again, as before boilerplate was known); BoilerplateShare 0 writes no
# file and a BoilerplateMinPages above the site's size finds none, and the
# navigation comes back into the snippets.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

search_tools

T=$(tmp_dir)
site_crawl "$srcdir/tests/data/boilerplate/site" boiler
gen() { readlink -f "$(sed -n 's/^DataDir //p' "$conf")/index/current"; }
tap_ok "$([ -s "$(gen)/boiler" ] && echo 1)" "the merge wrote the boiler file"
tap_ok "$(grep -q 'merge: boilerplate: 8 of 8 document' "$T/crawl.log" && echo 1)" \
	"every page has boilerplate: $(grep -o 'merge: boilerplate: [^(]*' "$T/crawl.log")"

"$idx" --check "$conf" >"$T/check.out" 2>&1
tap_is "$?" 0 "mpseek-index --check passes with the boiler file"
# A flipped byte in its data is found by --check.
cp "$(gen)/boiler" "$T/boiler.good"
printf '\xff' | dd of="$(gen)/boiler" bs=1 seek=40 conv=notrunc 2>/dev/null
"$idx" --check "$conf" >"$T/check.out" 2>&1
tap_ok "$([ $? != 0 ] && grep -q '^boiler: ' "$T/check.out" && echo 1)" \
	"--check reports a damaged boiler file: $(grep -m1 '^boiler' "$T/check.out")"
cp "$T/boiler.good" "$(gen)/boiler"

# The pages of a query, in rank order, by file name (the site's root: /).
pages() {
	"$tool" -G -n 10 "$@" 2>"$T/err" | sed -n 's|^ *https\?://[^/]*/|/|p' | sed 's|^/\(.\)|\1|' |
		tr '\n' ' ' | sed 's/ $//'
}
# The snippets of a query (two per hit), one a line, highlights in [].
snippets() {
	"$tool" -G -n 10 -v -x 2 "$@" 2>"$T/err" | sed -n 's/^ *excerpt: //p'
}
# Lines with the site's navigation, breadcrumb or footer in them.
nav_lines() {
	tr -d '[]' | grep -Ei 'prev up|up home|home next|home . guide|widget foundation'
}
printf 'BoilerplateWeight 0.1\n' >"$T/on.conf"
printf 'BoilerplateWeight 1\n' >"$T/off.conf"
printf 'BoilerplateWeight 1.5\n' >"$T/bad.conf"

for q in next prev up home guide copyright foundation; do
	snippets -S "$T/on.conf" "$conf" "$q" >"$T/snip-$q"
	tap_is "$(nav_lines <"$T/snip-$q" | head -3)" "" "$q: no snippet shows the navigation"
done
tap_ok "$(grep -c . "$T/snip-next" | awk '$1 >= 8 { print 1 }')" \
	"next: every page still has a snippet ($(grep -c . "$T/snip-next"))"
tap_ok "$(grep -q 'cattle \[home\] before' "$T/snip-home" && echo 1)" \
	"home: the ranch page's snippet is its sentence"

first=$(pages -S "$T/on.conf" "$conf" home | cut -d' ' -f1)
tap_is "$first" "p4.html" "home: the page whose body says it ranks first"
first=$(pages -S "$T/off.conf" "$conf" home | cut -d' ' -f1)
tap_ok "$([ -n "$first" ] && [ "$first" != p4.html ] && echo 1)" \
	"BoilerplateWeight 1: a page with home only in its navigation ranks first ($first)"
"$tool" -S "$T/bad.conf" "$conf" home >"$T/out" 2>&1
tap_ok "$(grep -q 'BoilerplateWeight must be between 0 and 1' "$T/out" && echo 1)" \
	"BoilerplateWeight above 1 is refused"
printf 'BoilerplateShare 2\n' >>"$T/bad-share.conf"
"$idx" --check-config "$T/bad-share.conf" >"$T/out" 2>&1
tap_ok "$(grep -q 'BoilerplateShare must be between 0 and 1' "$T/out" && echo 1)" \
	"BoilerplateShare above 1 is refused"

# A site smaller than BoilerplateMinPages has none: the file lists no page
# and the navigation is back in the snippets.
echo "BoilerplateMinPages 9" >>"$conf"
mpi_no_leak_check timeout 300 "$idx" -a -m "$conf" >"$T/merge.out" 2>"$T/merge.log"
tap_is "$?" 0 "a recrawl and merge with BoilerplateMinPages 9"
tap_ok "$(grep -q 'merge: boilerplate: 0 of 8 document' "$T/merge.log" && echo 1)" \
	"BoilerplateMinPages 9: no page has boilerplate"
snippets -S "$T/on.conf" "$conf" next >"$T/snip-none"
tap_ok "$(nav_lines <"$T/snip-none" | grep -c . | awk '$1 >= 1 { print 1 }')" \
	"BoilerplateMinPages 9: the navigation is in the snippets again"

# BoilerplateShare 0: no file at all.
echo "BoilerplateShare 0" >>"$conf"
mpi_no_leak_check timeout 300 "$idx" -a -m "$conf" >"$T/merge.out" 2>"$T/merge.log"
tap_is "$?" 0 "a recrawl and merge with BoilerplateShare 0"
tap_ok "$([ ! -e "$(gen)/boiler" ] && echo 1)" "BoilerplateShare 0: no boiler file"
tap_done
