#!/bin/bash
# search-sitesum.sh - site summaries (NNw/sitesum, doc/FORMATS.md "Site
# summaries"; doc/SEARCH.md "Top-k pruning"): a synthetic index of 20,000
# documents of Zipf words on 50 sites (bench/gen-deltas, merged by
# mpseek-index -D) gets summaries for its common words; top-k pruning
# passes most sites of a common word over without visiting them, and every
# page (URLs, scores, site_hits, counts) is still the one `Pruning no`
# gives (with `ExactCounts yes`; search-blocks.sh checks the estimates),
# for one word, words twice, ANDs, NOTs and phrases, grouped and not, several pages and st=.  Without the files (an older generation) the
# same pages come from visiting every site; --check verifies the files (and
# the block summaries NNw/blocksum) and finds a changed byte in either.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
gen="$builddir/bench/gen-deltas"
tool="$builddir/tests/helper/search-tool"
[ -x "$idx" ] || tap_skip_all "$idx not built"
[ -x "$gen" ] || tap_skip_all "$gen not built"
[ -x "$tool" ] || tap_skip_all "$tool not built"

T=$(tmp_dir)
mdb_start
syn_generation sitesum -n 20000 -l 20 -S 50 -r 1 -x 3
n=$(ls "$G"/*w/sitesum 2>/dev/null | wc -l)
tap_is "$n" 100 "every partition has its sitesum file"
n=$(ls "$G"/*w/blocksum 2>/dev/null | wc -l)
tap_is "$n" 100 "every partition has its blocksum file"
"$idx" --check "$conf" >"$T/check.out" 2>&1
tap_is "$?" 0 "--check verifies the summaries"

# The queries: the commonest words (a is in about 3 documents of 4), alone,
# twice, ANDed, with NOTs and as phrases, and rarer ones.
{
	for w in a b c d e f g h i j k l m n o p q r s t u v w x y z aa ab ba; do echo "$w"; done
	printf '%s\n' "a a" "b a" "a b" "c a a" "a c" "b c d" "a -b" "b -a" "c -a -b" '"b a"' \
		'"a a"' '"c a" b' "a b c d" "e a" "f g" "a z" "zz a" "a -zz"
} >"$T/queries"
nq=$(wc -l <"$T/queries")
printf 'Pruning no\n' >"$T/no.conf"
printf 'Stemming no\nExactCounts yes\n' >"$T/plain.conf"
printf 'ExactCounts yes\n' >"$T/exact.conf"
printf 'Stemming no\nPruning no\n' >"$T/plainno.conf"
site=$("$tool" -g "$G" -v "$conf" a |
	awk '/url_id/ { for (i = 1; i < NF; i++) if ($i == "url_id") { print $(i + 1); exit } }')
site=$(( (site - 1) / 400 + 1 ))  # gen-deltas' sites: 400 consecutive url_ids each

syn_compare grouped10 "$G" -n 10
syn_compare grouped2p3 "$G" -n 2 -p 3
syn_compare flat10 "$G" -G -n 10
syn_compare flat3p2 "$G" -G -n 3 -p 2
syn_compare site "$G" -n 3 -t "$site"
syn_compare plain10 "$G" -n 10 -S "$T/plain.conf"

# The work of `a`: most of its sites are passed over, and far fewer of its
# documents are read than match (the file's feature: without it every
# matching document is read).
work() { # GEN QUERY -> "matched passed-over visited" (counted exactly)
	printf '%s\n' "$2" >"$T/one"
	"$tool" -g "$1" -b -W -S "$T/exact.conf" "$conf" "$T/one" 2>&1 >/dev/null |
		awk '/^work/ { m = $7 } /^sites/ { p = $4; v = $6 } END { print m, p, v }'
}
read -r m p v < <(work "$G" a)
tap_diag "a: $m documents match, $p of 50 sites passed over, $v documents read"
tap_ok "$([ "${p:-0}" -ge 25 ] && [ "${v:-0}" -gt 0 ] && [ "$((4 * v))" -lt "${m:-0}" ] && echo 1)" \
	"a: at least half the sites passed over, under a quarter of its documents read"

# An older generation (no sitesum or blocksum files): the same pages, every
# site visited.
cp -al "$G" "$T/old"
rm "$T/old"/*w/sitesum "$T/old"/*w/blocksum
syn_compare nosum "$T/old" -n 10
read -r m2 p2 v2 < <(work "$T/old" a)
tap_is "$m2 $p2 $v2" "$m 0 $m" "without summaries every matching document of a is read"

# changed KIND WHAT: a changed byte of the largest NNw/KIND (its data CRC no
# longer matches; the good copy in $T/KIND.good) is found by --check.
changed() {
	local f rc
	f=$(ls -S "$G"/*w/"$1" | head -1)
	cp "$f" "$T/$1.good"
	printf '\x7f' | dd of="$f" bs=1 seek=$(( $(stat -c %s "$f") - 20 )) conv=notrunc status=none
	"$idx" --check "$conf" >"$T/check-$1.out" 2>&1
	rc=$?
	tap_ok "$([ "$rc" != 0 ] && grep -q "$1" "$T/check-$1.out" && echo 1)" \
		"--check reports the changed $2 ($(grep -m1 "$1" "$T/check-$1.out"))"
}
# A changed summary; a file whose words table is damaged is not used (a
# warning, and the sites are visited).
changed sitesum summary
f=$T/old/00w/sitesum
cp "$G/00w/sitesum" "$f"
printf '\xff\xff\xff\x7f' | dd of="$f" bs=1 seek=16 conv=notrunc status=none
"$tool" -g "$T/old" "$conf" a >"$T/dam.out" 2>"$T/dam.err"
tap_ok "$(grep -q 'sitesum.*every site is visited' "$T/dam.err" &&
	[ "$(head -1 "$T/dam.out")" = "$(sed -n 2p "$T/grouped10.no")" ] && echo 1)" \
	"a damaged sitesum is refused with a warning, the answer is the same"

# A changed block summary, the site summaries good again.
cp "$T/sitesum.good" "$(ls -S "$G"/*w/sitesum | head -1)"
changed blocksum block
tap_done
