#!/bin/bash
# search-pairs.sh - pairs of common words (CommonWords, include/grams.h;
# doc/SEARCH.md "Common-word pairs"): the merge posts each adjacent pair of
# the listed words beside the words of a synthetic index of 20,000
# documents (bench/gen-deltas), and lists the words in the generation's
# `grams` file.  Each pair's documents are exactly those with the
# two-word phrase; every page (URLs, scores, counts) equals the one of
# the same documents merged without CommonWords, pruned or exhaustive,
# wildcards included; a phrase of common words is walked by its pairs
# (fewer documents read).  A later merge whose CommonWords differ keeps
# only the words both lists have while documents of the older generation
# stay, and drops the pairs of words no longer listed; a full re-index
# makes the new list complete.  Bad CommonWords lines are refused;
# --common-words prints the commonest words.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
gen="$builddir/bench/gen-deltas"
tool="$builddir/tests/helper/search-tool"
itool="$builddir/tests/helper/index-tool"
for p in "$idx" "$gen" "$tool" "$itool"; do
	[ -x "$p" ] || tap_skip_all "$p not built"
done

T=$(tmp_dir)
mdb_start

# The same documents twice: without CommonWords, then with.
syn_generation plain -n 20000 -l 20 -S 10 -r 1 -x 3
G0=$G conf0=$conf
cp "$conf0" "$T/plain.conf"
conf0=$T/plain.conf
SYN_CONF="CommonWords a b c d e f g h" syn_generation pairs -n 20000 -l 20 -S 10 -r 1 -x 3
G1=$G
tap_is "$(test -e "$G0/grams" && echo has || echo none)" none "no CommonWords: no grams file"
"$idx" --check "$conf" >"$T/check.out" 2>&1
tap_is "$?" 0 "--check passes a generation with pairs (wordurl too)"
tap_is "$("$itool" grams "$G1" | head -1)" "words: a b c d e f g h" \
	"the grams file lists the common words"

# Every pair's documents are those of its phrase: all 64 ordered pairs.
words="a b c d e f g h"
for x in $words; do for y in $words; do printf '"%s %s"\n' "$x" "$y"; done; done >"$T/pairq"
printf 'Pruning no\n' >"$T/no.conf"
printf 'ExactCounts yes\n' >"$T/exact.conf"
printf 'ExactCounts no\nMinFixedPatternLength 1\n' >"$T/est.conf"
"$tool" -g "$G0" -b -v -S "$T/no.conf" "$conf0" "$T/pairq" 2>/dev/null |
	awk '/^query: / { q = substr($0, 9); getline; gsub(/"/, "", q); sub(/ /, ">", q); print q "\t" $1 }' |
	sort >"$T/phrase.counts"
"$itool" grams "$G1" | tail -n +2 | sort >"$T/pair.counts"
# A pair no document has is no word of the dictionary: 0 documents.
join -t "$(printf '\t')" -a 1 -e 0 -o 0,1.2,2.2 "$T/phrase.counts" "$T/pair.counts" |
	awk -F'\t' '$2 != $3 { bad++; print "#   " $0 } END { exit bad > 0 }' >"$T/pair.bad"
tap_ok "$([ $? = 0 ] && [ "$(wc -l <"$T/phrase.counts")" = 64 ] && echo 1)" \
	"each of the 64 pairs is in exactly the documents of its phrase"
cat "$T/pair.bad"
tap_diag "pairs: $(tr '\n' ' ' <"$T/pair.counts" | cut -c1-200)..."

# The queries: phrases of common words (repeats, three and four words, a
# stopword place, beside plain words and NOTs), rarer words, wildcards.
{
	printf '%s\n' '"b a"' '"a b a"' '"b a b"' '"c a a"' '"a a"' '"h h"' '"d c b a"' \
		'"a b" c' '"b a" -c' '"c a" "a b"' '"a z"' '"z a"' '"a * b"' '"e f g"' \
		'"a b lj"' '"fp a a"' a "b a" "a -b" 'b*' 'a*' '"b a" site:nosuch'
} >"$T/queries"
nq=$(wc -l <"$T/queries")
same_pages() { # NAME OPTS...: G0's and G1's pages, pruned and exhaustive, are equal
	local name=$1 ok=1 s
	shift
	for s in no exact est; do
		"$tool" -g "$G0" -b -v -S "$T/$s.conf" "$@" "$conf0" "$T/queries" 2>/dev/null |
			grep -v '^queries ' >"$T/$name.$s.0"
		"$tool" -g "$G1" -b -v -W -S "$T/$s.conf" "$@" "$conf" "$T/queries" 2>"$T/$name.$s.w" |
			grep -v '^queries ' >"$T/$name.$s.1"
		cmp -s "$T/$name.$s.0" "$T/$name.$s.1" || {
			ok=""
			diff "$T/$name.$s.0" "$T/$name.$s.1" | head -6 | sed 's/^/#   /'
		}
	done
	[ "$(grep -c '^query: ' "$T/$name.no.1")" = "$nq" ] || ok=""
	tap_ok "$ok" "$name ($*): the same pages with pairs as without, pruned or not"
}
same_pages grouped10 -n 10
same_pages flat3p2 -G -n 3 -p 2
syn_compare paired "$G1" -n 10

# The work: pairs drive the phrases of common words.
walked() { # GEN QUERY -> "paired phrase-docs visited-docs"
	printf '%s\n' "$2" >"$T/one"
	"$tool" -g "$1" -b -W -S "$T/exact.conf" "$conf" "$T/one" 2>&1 >/dev/null |
		awk '/^walked/ { p = $9; f = $5 } /^sites/ { v = $6 } END { print p, f, v }'
}
read -r p0 f0 v0 < <(walked "$G0" '"c a a"')
read -r p1 f1 v1 < <(walked "$G1" '"c a a"')
tap_diag '"c a a": without pairs '"$f0 phrase checks, $v0 documents read; with: $f1, $v1"
tap_ok "$([ "$p0" = 0 ] && [ "$p1" = 1 ] && [ "$v1" -lt "$v0" ] && [ "$f1" -lt "$f0" ] &&
	echo 1)" '"c a a" is walked by its pairs: fewer documents read and checked'
read -r p1 f1 v1 < <(walked "$G1" '"a z"')
tap_is "$p1" 0 '"a z": z is no common word, no pair'
read -r p1 f1 v1 < <(walked "$G1" '"a * b"')
tap_is "$p1" 0 '"a * b": words apart make no pair'
# Without the grams file (a generation of an older build) the pairs are
# not used, and the pages stay.
cp -al "$G1" "$T/nogram"
rm "$T/nogram/grams"
read -r p1 f1 v1 < <(walked "$T/nogram" '"c a a"')
tap_is "$p1" 0 "no grams file: no pair used"
"$tool" -g "$T/nogram" -b -v -S "$T/exact.conf" -n 10 "$conf" "$T/queries" 2>/dev/null |
	grep -v '^queries ' >"$T/nogram.out"
tap_ok "$(cmp -s "$T/grouped10.exact.1" "$T/nogram.out" && echo 1)" "no grams file: the same pages"

# A damaged grams file is refused with a warning; the pages stay.
cp -al "$G1" "$T/badgram"
rm "$T/badgram/grams"
cp "$G1/grams" "$T/badgram/grams"
printf 'x' | dd of="$T/badgram/grams" bs=1 seek=40 conv=notrunc 2>/dev/null
"$tool" -g "$T/badgram" -b -v -S "$T/exact.conf" -n 10 "$conf" "$T/queries" \
	2>"$T/badgram.err" | grep -v '^queries ' >"$T/badgram.out"
tap_ok "$(cmp -s "$T/grouped10.exact.1" "$T/badgram.out" &&
	grep -q 'grams.*data crc mismatch' "$T/badgram.err" && echo 1)" \
	"a damaged grams file: a warning, the same pages"
# --check finds it (the live generation's file changed in place).
cp "$G1/grams" "$T/grams.good"
cp "$T/badgram/grams" "$G1/grams.new" && mv "$G1/grams.new" "$G1/grams"
"$idx" --check "$conf" >"$T/check2.out" 2>&1
rc=$?
tap_ok "$([ "$rc" = 1 ] && grep -q '^grams: .*crc' "$T/check2.out" && echo 1)" \
	"--check finds the damaged grams file: $(grep '^grams' "$T/check2.out" | head -1)"
cp "$T/grams.good" "$G1/grams.new" && mv "$G1/grams.new" "$G1/grams"

# A later merge with other CommonWords: documents 1..2,000 (site 1)
# indexed again, 18,000 kept.  Only a, b, c are in both lists: their pairs
# stay complete; d..h's pairs leave the index; z's pairs are made for the
# new documents but are not searchable.
SYN_CONF="CommonWords a b c z" syn_generation pairs -n 2000 -l 20 -S 1 -r 1 -x 5
G2=$G
"$itool" grams "$G2" >"$T/g2"
tap_is "$(head -1 "$T/g2")" "words: a b c" "kept documents: only the words both lists have"
tap_is "$(grep -c '^[d-h]>\|>[d-h]	' "$T/g2")" 0 "the pairs of words no longer listed are gone"
tap_ok "$(grep -q '^z>' "$T/g2" && echo 1)" "the new documents have z's pairs"
tap_ok "$(grep -q 'CommonWords: 3 of 4 word(s) have their pairs' "$T/merge.log" && echo 1)" \
	"the merge says which words' pairs are complete"
"$idx" -S "$conf" >"$T/stats" 2>&1
tap_ok "$(grep -q 'Common-word pairs: of 3 of the 4 word(s) of CommonWords searchable' "$T/stats" &&
	echo 1)" "-S says 3 of the 4 words are searchable"
for x in a b c; do for y in a b c; do printf '"%s %s"\n' "$x" "$y"; done; done >"$T/pairq2"
"$tool" -g "$G2" -b -v -S "$T/no.conf" "$conf" "$T/pairq2" 2>/dev/null |
	awk '/^query: / { q = substr($0, 9); getline; gsub(/"/, "", q); sub(/ /, ">", q); print q "\t" $1 }' |
	sort >"$T/phrase2.counts"
tail -n +2 "$T/g2" | grep -v z | sort >"$T/pair2.counts"
tap_ok "$(cmp -s "$T/phrase2.counts" "$T/pair2.counts" && echo 1)" \
	"a, b, c: each pair in exactly the documents of its phrase after the merge"
syn_compare changed "$G2" -n 10
read -r p1 f1 v1 < <(walked "$G2" '"z a"')
tap_is "$p1" 0 '"z a": z is not complete, no pair'

# Every document indexed again: the new list is complete.
SYN_CONF="CommonWords a b c z" syn_generation pairs -n 20000 -l 20 -S 10 -r 1 -x 3
tap_is "$("$itool" grams "$G" | head -1)" "words: a b c z" "a full re-index: every listed word"
"$idx" -S "$conf" >"$T/stats" 2>&1
tap_ok "$(grep -q 'Common-word pairs: of 4 word(s), searchable' "$T/stats" && echo 1)" \
	"-S: $(grep 'Common-word' "$T/stats")"
read -r p1 f1 v1 < <(walked "$G" '"z a"')
tap_is "$p1" 1 '"z a": walked by its pair now'

# The configuration, and --common-words.
printf 'CommonWords %s\n' "$("$idx" --common-words 5 "$conf" | cut -d' ' -f2-)" >"$T/cw"
tap_is "$(cat "$T/cw")" "CommonWords a b c d e" "--common-words 5: the five words in most pages"
for bad in "CommonWords The" "CommonWords a$(printf '\001')b" \
	"CommonWords $(seq -s ' ' 1 257)" "CommonWords $(printf 'x%.0s' $(seq 63))"; do
	write_conf "$T/bad.conf" pairs "$bad"
	"$idx" --check-config "$T/bad.conf" >"$T/bad.out" 2>&1
	tap_ok "$([ $? != 0 ] && grep -q 'CommonWords\|common word' "$T/bad.out" && echo 1)" \
		"refused: ${bad:0:40}: $(tail -1 "$T/bad.out" | cut -c1-90)"
done
"$idx" --common-words 0 "$conf" >/dev/null 2>&1
tap_is "$?" 2 "--common-words 0 is a usage error"

tap_done
