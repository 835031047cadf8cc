#!/bin/bash
# search-prune.sh - top-k pruning (search_prune.c, doc/SEARCH.md "Top-k
# pruning") changes no result page: mpseek-index crawls tests/data/search/site
# (two sites) and the git manual pages of tests/data/mrr/site, then
# tests/helper/search-tool asks every query of the test sets (search.sh's
# oracle queries, search-mrr.sh's known items, search-prune.py's generated
# words, pairs, triples, NOTs, phrases and ORs, words with anchor text and
# with plural and singular forms, phrases of two and three words, rare and
# common, alone and beside words) once with pruning (the
# default) and once with `Pruning no` in searchd.conf (every matching
# document scored), for several page sizes and pages, grouped and not, with
# st=, ul= and sort by date; the pages (URLs, scores, site_hits, counts) must
# be identical (the latency line aside).  The work of both (documents scored, postings decoded) is
# printed as diagnostics, and pruning must have scored fewer documents.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
tool="$builddir/tests/helper/search-tool"
PY=${PYTHON3:-python3}
[ -x "$idx" ] || tap_skip_all "$idx not built"
[ -x "$tool" ] || tap_skip_all "$tool not built"
[ -x "$NGINX" ] || tap_skip_all "nginx not found (Debian package nginx)"

T=$(tmp_dir)
cp -R "$srcdir/tests/data/search/site" "$T/site"
cp -R "$srcdir/tests/data/mrr/site" "$T/site/m"
web_start "$T/site"
grep -rlF '@WEB_PORT@' "$T/site" | while read -r f; do
	LC_ALL=C sed -i "s/@WEB_PORT@/$WEB_PORT/g" "$f"
done
find "$T/site" -type f -exec touch -d '2020-06-01 12:00:00 UTC' {} +
touch -d '2001-01-01 00:00:00 UTC' "$T/site/a/old.html"
touch -d '2024-03-01 00:00:00 UTC' "$T/site/b/fresh.html"
mdb_start
conf=$T/mpseek.conf
write_conf "$conf" prune "MinDelay 0" "ReadTimeOut 5" "MaxHops 6" \
	"Server http://127.0.0.1:$WEB_PORT/a/" "Server http://localhost:$WEB_PORT/b/" \
	"Server http://127.0.0.1:$WEB_PORT/m/"
mpi_no_leak_check timeout 300 "$idx" "$conf" >"$T/crawl.out" 2>"$T/crawl.log"
rc=$?
tap_is "$rc" 0 "crawl, merge and PageRank of the test sites"
[ "$rc" = 0 ] || { tail -15 "$T/crawl.log" | sed 's/^/#   /'; tap_done; }
SITE_A=$(mdb_sql "SELECT site_id FROM sites WHERE site = 'http://127.0.0.1:$WEB_PORT/'" prune)

# The query sets.
"$idx" --dump-index "$conf" >"$T/dump.tsv" 2>"$T/dump.log"
tap_is "$?" 0 "--dump-index"
mdb_sql "SELECT url_id, url FROM urlword" prune >"$T/urls.tsv"
"$PY" "$srcdir/tests/integration/search-oracle.py" "$T/dump.tsv" "$T/urls.tsv" "$WEB_PORT" |
	cut -f1 >"$T/q"
grep -v '^#' "$srcdir/tests/data/mrr/known-items.tsv" | cut -f2 >>"$T/q"
"$PY" "$srcdir/tests/integration/search-prune.py" "$T/dump.tsv" "$T/orq" "$T/phq" "$T/rep" >>"$T/q" \
	2>"$T/gen.log"
# Phrases with site: too (the site's filter beside the phrase's matching).
head -40 "$T/phq" | sed "s|\$| site:127.0.0.1:$WEB_PORT|" >>"$T/q"
tap_diag "$(cat "$T/gen.log")"
sort -u "$T/q" >"$T/queries"
n=$(wc -l <"$T/queries")
tap_ok "$([ "$n" -ge 500 ] && echo 1)" "$n queries"

# Words with anchor text or other forms are pruned too (the OR of their
# lists, bounded with AnchorWeight and StemWeight): every such query of
# words that have postings of their own, and fewer documents scored.
norq=$(wc -l <"$T/orq")
tap_ok "$([ "$norq" -ge 50 ] && echo 1)" "$norq queries of words with anchor text or forms"
"$tool" -b -W "$conf" "$T/orq" >/dev/null 2>"$T/orq.w"
read -r _ _ q _ p _ m _ _ _ pscored < <(grep '^work' "$T/orq.w")
printf 'Pruning no\n' >"$T/exhaustive.conf"
"$tool" -b -W -S "$T/exhaustive.conf" "$conf" "$T/orq" >/dev/null 2>"$T/orq.x"
read -r _ _ _ _ _ _ _ _ _ _ xscored < <(grep '^work' "$T/orq.x")
tap_diag "anchor text and forms: $p of $q queries pruned; $m matched; scored $pscored of $xscored"
tap_ok "$([ "$p" = "$norq" ] && [ "$pscored" -lt "$xscored" ] && echo 1)" \
	"words with anchor text or forms: every query pruned, fewer documents scored"
# ... and those queries do have forms and anchor text: without them the
# pages differ.
"$tool" -b -v "$conf" "$T/orq" 2>/dev/null | grep -v '^queries ' >"$T/orq.def"
for x in 'Stemming no' 'AnchorWeight 0'; do
	printf '%s\n' "$x" >"$T/off.conf"
	"$tool" -b -v -S "$T/off.conf" "$conf" "$T/orq" 2>/dev/null | grep -v '^queries ' >"$T/orq.off"
	tap_ok "$(cmp -s "$T/orq.def" "$T/orq.off" || echo 1)" "$x changes pages of those queries"
done

# Phrases are pruned too (matched in the records' positions, rarest word
# first, scored only when their bound reaches the page): every query with a
# phrase is pruned, fewer documents scored than `Pruning no` scores, and
# (below) every page is the same.
nphq=$(wc -l <"$T/phq")
tap_ok "$([ "$nphq" -ge 200 ] && echo 1)" "$nphq queries with phrases"
"$tool" -b -W "$conf" "$T/phq" >/dev/null 2>"$T/phq.w"
read -r _ _ q _ p _ m _ ppost _ pscored < <(grep '^work' "$T/phq.w")
printf 'Pruning no\n' >"$T/exhaustive.conf"
"$tool" -b -W -S "$T/exhaustive.conf" "$conf" "$T/phq" >/dev/null 2>"$T/phq.x"
read -r _ _ _ _ _ _ xm _ xpost _ xscored < <(grep '^work' "$T/phq.x")
tap_diag "phrases: $p of $q queries pruned; $m matched ($xm); scored $pscored of $xscored;" \
	"postings decoded $ppost of $xpost"
tap_ok "$([ "$p" = "$nphq" ] && [ "$m" = "$xm" ] && [ "$pscored" -lt "$xscored" ] && echo 1)" \
	"phrases: every query pruned, the same matches, fewer documents scored"

# A word twice walks its lists once (term_alias()), and a phrase with a
# word twice is searched only in the documents that have the word as often
# (prune_repeats()), with no proximity bound between itself and itself
# (run_proximity_bound()): with every word a plain word, `w w` walks as many
# lists as `w`, and fewer documents are searched for those phrases than
# have all their words (the pages are compared below with the others).
printf 'Stemming no\nAnchorWeight 0\n' >"$T/plain.conf"
for k in 1 2 p; do
	grep "^$k"$'\t' "$T/rep" | cut -f2 >"$T/rep$k"
	"$tool" -b -W -S "$T/plain.conf" "$conf" "$T/rep$k" >/dev/null 2>"$T/rep$k.w"
done
have=$(sed -n 's/^# //p' "$T/rep")
read -r _ _ l1 _ _ < <(grep '^walked' "$T/rep1.w")
read -r _ _ l2 _ _ < <(grep '^walked' "$T/rep2.w")
read -r _ _ _ _ pd _ < <(grep '^walked' "$T/repp.w")
read -r _ _ _ _ _ _ _ _ _ _ s2 < <(grep '^work' "$T/rep2.w")
printf 'Stemming no\nAnchorWeight 0\nProximityBoost 0\n' >"$T/noprox.conf"
"$tool" -b -W -S "$T/noprox.conf" "$conf" "$T/rep2" >/dev/null 2>"$T/rep2z.w"
read -r _ _ _ _ _ _ _ _ _ _ s2z < <(grep '^work' "$T/rep2z.w")
tap_diag "a word twice: $l2 lists walked, $s2 documents scored ($s2z with ProximityBoost 0)" \
	"for $(wc -l <"$T/rep2") queries ($l1 lists for the word once);" \
	"$(wc -l <"$T/repp") phrases with a word twice: $pd documents searched, $have have their words"
tap_ok "$([ "${l1:-0}" -gt 0 ] && [ "$l1" = "$l2" ] && echo 1)" "a word twice walks its lists once"
# ... and is bounded without a proximity boost (its distance to itself is
# 0): as many documents scored as with ProximityBoost 0.
tap_ok "$([ "${s2z:-0}" -gt 0 ] && [ "${s2:-0}" = "$s2z" ] && echo 1)" \
	"a word twice: no proximity in its bound, as many documents scored as without the boost"
tap_ok "$([ "${pd:-0}" -gt 0 ] && [ "$pd" -lt "${have:-0}" ] && echo 1)" \
	"a phrase with a word twice: only documents with it as often are searched"

# name, then search-tool's options; @PLAIN@: with `Stemming no` and
# `AnchorWeight 0` (every word a plain word).
while read -r name opts; do
	case "$name" in ''|'#'*) continue ;; esac
	extra=""
	case "$opts" in *@PLAIN@*) extra=$'Stemming no\nAnchorWeight 0\n'; opts=${opts//@PLAIN@/} ;; esac
	printf '%sPruning no\n' "$extra" >"$T/exhaustive.conf"
	printf '%sPruning yes\n' "$extra" >"$T/pruned.conf"
	opts=${opts//@SITE_A@/$SITE_A}
	opts=${opts//@PORT@/$WEB_PORT}
	# shellcheck disable=SC2086
	"$tool" -b -v -W -S "$T/exhaustive.conf" $opts "$conf" "$T/queries" 2>"$T/ex.w.$name" |
		grep -v '^queries ' >"$T/ex.$name"
	# shellcheck disable=SC2086
	"$tool" -b -v -W -S "$T/pruned.conf" $opts "$conf" "$T/queries" 2>"$T/pr.w.$name" |
		grep -v '^queries ' >"$T/pr.$name"
	read -r _ _ q _ p _ m _ xpost _ xscored < <(grep '^work' "$T/ex.w.$name")
	read -r _ _ _ _ p _ _ _ ppost _ pscored < <(grep '^work' "$T/pr.w.$name")
	same=$(cmp -s "$T/ex.$name" "$T/pr.$name" && [ "$(grep -c '^query: ' "$T/pr.$name")" = "$n" ] && echo 1)
	tap_ok "$same" "$name ($opts): every page equals exhaustive scoring"
	[ -n "$same" ] || diff "$T/ex.$name" "$T/pr.$name" | head -20 | sed 's/^/#   /'
	tap_diag "$name: $p of $q queries pruned; $m documents matched; scored $pscored of $xscored" \
		"($(awk -v a="$pscored" -v b="$xscored" 'BEGIN { printf "%.3f", b ? a / b : 1 }')), postings decoded $ppost of $xpost"
	case "$name" in
	date) tap_is "$p" 0 "$name: sort by date is not pruned" ;;
	*) tap_ok "$([ "$p" -gt 0 ] && [ "$pscored" -lt "$xscored" ] && echo 1)" \
		"$name: pruning scored fewer documents" ;;
	esac
done <<EOF2
grouped10	-n 10
grouped1	-n 1
grouped2p1	-n 2 -p 1
flat10	-G -n 10
flat3p2	-G -n 3 -p 2
site	-n 3 -t @SITE_A@
ul	-n 2 -u http://127.0.0.1:@PORT@/m/
date	-d -n 3
plain10	@PLAIN@ -n 10
EOF2

# Exhaustive scoring is what `Pruning no` asks for: searchd.conf's directive.
printf 'Pruning maybe\n' >"$T/bad.conf"
tap_ok "$("$tool" -S "$T/bad.conf" "$conf" apple 2>&1 | grep -q 'Pruning' && echo 1)" \
	"Pruning takes yes or no"
tap_done
