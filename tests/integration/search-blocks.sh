#!/bin/bash
# search-blocks.sh - block summaries (NNw/blocksum, doc/FORMATS.md; doc/SEARCH.md
# "Block summaries"): a synthetic index of 20,000 documents of Zipf words
# on 10 sites of 2,000 (bench/gen-deltas, merged by mpseek-index -D) gets
# a summary per window of 64 documents of a site that each of its common
# words is in (the same windows for every word).  Top-k
# pruning reads only the ranges of a visited site whose bound can reach the
# page; with `ExactCounts yes` every page (URLs, scores, site_hits,
# counts) is still the one `Pruning no` gives, and with the default
# `ExactCounts no` the hits are the same, the counts of a query that passed
# ranges over say "estimated" and stay near the exact ones.  Without the
# files (an older generation) the same pages come from reading every range;
# --check verifies the files and finds a changed byte.  The same documents
# on sites numbered near 2^32 give the same pages.  Ranges take their
# windows' PageRank; cursors jump by the skip entries (NNw/skips); past
# 65,536 url_ids the walk reads the next document's facts ahead; a page of
# more sites than the generation has still uses ranges in long sites.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
gen="$builddir/bench/gen-deltas"
tool="$builddir/tests/helper/search-tool"
[ -x "$idx" ] || tap_skip_all "$idx not built"
[ -x "$gen" ] || tap_skip_all "$gen not built"
[ -x "$tool" ] || tap_skip_all "$tool not built"

T=$(tmp_dir)
mdb_start
syn_generation blocks -n 20000 -l 20 -S 10 -r 1 -x 3
n=$(ls "$G"/*w/blocksum 2>/dev/null | wc -l)
tap_is "$n" 100 "every partition has its blocksum file"
"$idx" --check "$conf" >"$T/check.out" 2>&1
tap_is "$?" 0 "--check verifies the block summaries"

# The queries: the commonest words (a is in about 3 documents of 4) ANDed,
# with NOTs and phrases, twice, alone, and rarer ones beside them.
{
	for w in a b c j z; do echo "$w"; done
	printf '%s\n' "a a" "b a" "a b" "c a a" "a c" "b c d" "a -b" "b -a" "c -a -b" '"b a"' \
		'"a a"' '"c a" b' "a b c d" "e a" "f g" "a z" "zz a" "a -zz" "d c b a" "h a"
} >"$T/queries"
nq=$(wc -l <"$T/queries")
printf 'Pruning no\n' >"$T/no.conf"
printf 'ExactCounts yes\n' >"$T/exact.conf"
printf 'ExactCounts no\n' >"$T/est.conf"

syn_compare grouped10 "$G" -n 10
syn_compare grouped2p3 "$G" -n 2 -p 3
syn_compare flat10 "$G" -G -n 10
syn_compare flat3p2 "$G" -G -n 3 -p 2
syn_compare site "$G" -n 3 -t 4

# Whether query Q opened the site summaries on generation GEN, grouped
# pages of PAGE (GEN Q PAGE) -> "summarized N" of search-tool -W.
summarized() {
	printf '%s\n' "$2" >"$T/one"
	"$tool" -g "$1" -b -W -n "$3" -S "$T/exact.conf" "$conf" "$T/one" 2>&1 >/dev/null |
		awk '/^walked/ { print $7 }'
}

# The work of a query for a page of 2 sites (GEN QUERY CONF [PAGE]) ->
# "visited-docs blocks-read blocks-passed"
work() {
	printf '%s\n' "$2" >"$T/one"
	"$tool" -g "$1" -b -W -n "${4:-2}" -S "$3" "$conf" "$T/one" 2>&1 >/dev/null |
		awk '/^sites/ { print $6, $8, $10 }'
}
read -r v r p < <(work "$G" "b a" "$T/exact.conf")
tap_diag "b a, ExactCounts yes: $v documents read, $r ranges read, $p passed over"
tap_ok "$([ "${p:-0}" -gt 0 ] && [ "${r:-0}" -gt 0 ] && echo 1)" \
	"b a: ranges are read and ranges are passed over"

# Estimated counts (the default): the same hits; the counts of a query
# whose passed-over units were not all counted say so, and stay within a
# fifth of the exact ones (pages of 2 sites, so that most are passed over).
"$tool" -g "$G" -b -v -n 2 -S "$T/no.conf" "$conf" "$T/queries" 2>/dev/null |
	grep -v '^queries ' >"$T/est.no"
"$tool" -g "$G" -b -v -W -n 2 -S "$T/est.conf" "$conf" "$T/queries" 2>"$T/est.w" |
	grep -v '^queries ' >"$T/est.pr"
filter() { sed -e 's/ site_hits [0-9]*//' -e '/^[0-9]* [0-9]* [0-9]*\( estimated\)\?$/d' "$1"; }
ok=$(cmp -s <(filter "$T/est.no") <(filter "$T/est.pr") && echo 1)
tap_ok "$ok" "ExactCounts no: the same hits and scores as exhaustive scoring"
[ -n "$ok" ] || diff <(filter "$T/est.no") <(filter "$T/est.pr") | head -10 | sed 's/^/#   /'
paste -d' ' <(grep -E '^[0-9]+ [0-9]+ [0-9]+$' "$T/est.no") \
	<(grep -E '^[0-9]+ [0-9]+ [0-9]+( estimated)?$' "$T/est.pr") >"$T/counts"
est=$(grep -c estimated "$T/counts")
far=$(awk '{ d = $4 - $1; if (d < 0) d = -d; if ($7 == "estimated" && d * 5 > $1) n++ }
	END { print n + 0 }' "$T/counts")
exact=$(awk '$7 != "estimated" && ($1 != $4 || $2 != $5 || $3 != $6) { n++ } END { print n + 0 }' "$T/counts")
tap_diag "estimated counts: $est of $nq queries; $(awk '$7 == "estimated" { printf "%s~%s ", $1, $4 }' "$T/counts")"
tap_ok "$([ "$est" -gt 0 ] && [ "$far" = 0 ] && [ "$exact" = 0 ] && echo 1)" \
	"estimated counts are flagged and within a fifth; the others are exact"
read -r v2 r2 p2 < <(work "$G" "b a" "$T/est.conf")
tap_ok "$([ "${v2:-0}" -lt "${v:-0}" ] && echo 1)" \
	"b a: estimating reads fewer documents ($v2) than counting ($v)"

# A page of more sites than the generation has (20 of 10): the threshold
# never rises, so the site summaries pass nothing over, but a site of 31
# windows still passes the ranges below its second score over (the
# summaries are opened for that, sum_may_pass()).
syn_compare grouped20 "$G" -n 20
read -r v5 r5 p5 < <(work "$G" "b a" "$T/exact.conf" 20)
tap_ok "$([ "${p5:-0}" -gt 0 ] && [ "${r5:-0}" -gt 0 ] && echo 1)" \
	"b a, a page of 20 sites of 10: ranges still passed over ($p5 passed, $r5 read)"
s10=$(summarized "$G" a 10) s20=$(summarized "$G" a 20)
tap_ok "$([ "$s10" = 1 ] && [ "$s20" = 1 ] && echo 1)" \
	"a opens the summaries for pages of 10 and of 20 sites of 10 (long sites' ranges): $s10, $s20"

# Ranks that differ from window to window (one document in 256 ranked 1,000
# times the others) and PageRankWeight 40, so that PageRank decides: a
# range is bounded by the best PageRank of its windows of 64 documents,
# not by its site's best (which every range of a site would share), so the
# pages still equal exhaustive scoring and "b a" passes most ranges over.
cp -al "$G" "$T/pr"
rm -f "$T/pr/ranks"
python3 - "$T/pr/ranks" 20000 <<'EOF'
import struct, sys, zlib
path, n = sys.argv[1], int(sys.argv[2])
v = [0.0] + [1000.0 if u % 256 == 7 else 1.0 for u in range(1, n + 1)]
total = sum(v)
v = [x / total for x in v]
data = b''.join(struct.pack('<d', x) for x in v)
h = struct.pack('<8sIIIIddd', b'MPSRANK\0', 2, len(v), n, 1, 0.85, 0.0, max(v))
h += struct.pack('<III', 1, zlib.crc32(data), 0)
open(path, 'wb').write(h + struct.pack('<I', zlib.crc32(h)) + data)
EOF
tap_is "$?" 0 "a ranks file of uneven PageRank"
cp "$T/no.conf" "$T/no.keep"
cp "$T/exact.conf" "$T/exact.keep"
printf 'PageRankWeight 40\n' | tee -a "$T/no.conf" >>"$T/exact.conf"
syn_compare ranked "$T/pr" -n 10
syn_compare ranked-flat "$T/pr" -G -n 10
read -r v4 r4 p4 < <(work "$T/pr" "b a" "$T/exact.conf")
tap_ok "$([ "${p4:-0}" -gt $((3 * ${r4:-1})) ] && echo 1)" \
	"ranked: b a passes over most ranges by their windows' PageRank ($p4 passed, $r4 read)"
mv "$T/no.keep" "$T/no.conf"
mv "$T/exact.keep" "$T/exact.conf"

# Skip entries (NNw/skips): beside a rare word, a's cursor is sent from one
# of the rare word's documents to the next, and jumps there by a's skip
# entries instead of reading every record between; without the files the
# pages are the same and no cursor jumps.
skips() {
	printf '%s\n' "$2" >"$T/one"
	"$tool" -g "$1" -b -W -n 2 -S "$T/exact.conf" "$conf" "$T/one" 2>&1 >/dev/null |
		awk '/^sites/ { print $12 }'
}
s1=$(skips "$G" "zz a")
tap_ok "$([ "${s1:-0}" -gt 0 ] && echo 1)" "zz a: a's cursor jumps by its skip entries ($s1 jumps)"
cp -al "$G" "$T/noskips"
rm "$T/noskips"/*w/skips
syn_compare noskips "$T/noskips" -n 10
tap_is "$(skips "$T/noskips" "zz a")" 0 "without the files no cursor jumps"

# An older generation (no blocksum files): the same pages, every range read.
cp -al "$G" "$T/old"
rm "$T/old"/*w/blocksum
syn_compare noblocks "$T/old" -n 10
read -r v3 r3 p3 < <(work "$T/old" "b a" "$T/est.conf")
tap_ok "$([ "${r3:-1}" = 0 ] && [ "${p3:-1}" = 0 ] && [ "${v3:-0}" -gt "${v2:-0}" ] && echo 1)" \
	"without the files no range is passed over and more documents are read ($v3 > $v2)"

# The same documents on sites numbered from 4,294,967,001 (the sparse sites
# table of a long-lived database): the merge's windows and searchd's table
# of sites take memory by the sites, not by their ids (an array by id would
# take 32 GiB), --check passes, and every page of the queries is the one of
# the sites numbered from 1.
G1=$G conf1=$T/lo.conf
cp "$conf" "$conf1" # syn_generation writes $conf anew
syn_generation blockshi -n 20000 -l 20 -S 10 -r 1 -x 3 -B 4294967000
"$idx" --check "$conf" >"$T/check-hi.out" 2>&1
tap_is "$?" 0 "--check passes the generation of site ids near 2^32"
for g in "$G1:$conf1:lo" "$G:$conf:hi"; do
	IFS=: read -r gg cc name <<<"$g"
	"$tool" -g "$gg" -b -v -n 10 -S "$T/est.conf" "$cc" "$T/queries" 2>/dev/null |
		grep -v '^queries ' >"$T/pages.$name"
done
tap_ok "$([ -s "$T/pages.lo" ] && cmp -s "$T/pages.lo" "$T/pages.hi" && echo 1)" \
	"site ids near 2^32: the $nq queries' pages are those of sites numbered from 1"
G=$G1
cp "$conf1" "$conf"

# A changed byte of a block summary is found by --check; a damaged file is
# not used (a warning, and every range is read).
f=$(ls -S "$G"/*w/blocksum | head -1)
off=$(( $(stat -c %s "$f") - 30 ))
printf '\x7f' | dd of="$f" bs=1 seek="$off" conv=notrunc status=none
"$idx" --check "$conf" >"$T/check2.out" 2>&1
rc=$?
tap_ok "$([ "$rc" != 0 ] && grep -q 'blocksum' "$T/check2.out" && echo 1)" \
	"--check reports the changed block summary ($(grep -m1 blocksum "$T/check2.out"))"
base=$("$tool" -g "$T/old" -S "$T/exact.conf" "$conf" "b a" 2>/dev/null | head -1)
f=$T/old/00w/blocksum
cp "$G/00w/blocksum" "$f"
printf '\xff\xff\xff\x7f' | dd of="$f" bs=1 seek=16 conv=notrunc status=none
"$tool" -g "$T/old" -S "$T/exact.conf" "$conf" "b a" >"$T/dam.out" 2>"$T/dam.err"
tap_ok "$(grep -q 'blocksum.*every block' "$T/dam.err" && [ -n "$base" ] &&
	[ "$(head -1 "$T/dam.out")" = "$base" ] && echo 1)" \
	"a damaged blocksum is refused with a warning, the answer is the same"

# Past PRUNE_AHEAD_DOCS (65,536) url_ids the walk reads each next
# document's docinfo and PageRank ahead (prune_prefetch_next(), peeking at
# the record after the cursor's): the same pages, and under the
# sanitizers no read past a site's records.
syn_generation ahead -n 70000 -l 4 -S 10 -r 1 -x 5
syn_compare ahead-grouped10 "$G" -n 10
syn_compare ahead-flat10 "$G" -G -n 10

# Three sites of 800 documents (13 windows each) and pages of 10 sites:
# the summaries could pass nothing over and no site is long enough for
# ranges, so they are not opened (sum_may_pass(): no list read whole for
# them); the pages are the same, and so they are ungrouped.
syn_generation few -n 2400 -l 20 -S 3 -r 1 -x 3
syn_compare few-grouped10 "$G" -n 10
syn_compare few-flat10 "$G" -G -n 10
s3=$(summarized "$G" a 10) s2=$(summarized "$G" a 2)
tap_ok "$([ "$s3" = 0 ] && [ "$s2" = 1 ] && echo 1)" \
	"a on 3 sites of 13 windows: no summaries for pages of 10 sites ($s3), summaries for 2 ($s2)"
tap_done
