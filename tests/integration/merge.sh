#!/bin/bash
# merge.sh - the merge on a crawled test web (tests/data/web/site): a crawl
# whose merge is killed at named points (MPSEEK_MERGE_CRASH_AT) leaves no
# index and keeps every delta; -D finishes it with -np 1..4, and the index
# files are byte-identical (cmp) whatever the rank count; --check passes;
# the postings equal a brute-force tokenization of the stored texts (all
# words, and 50 chosen words); a recrawl of the edited site (a page
# changed, one added, one removed) merged into the index equals a fresh
# crawl of the new state; a flipped byte is reported by --check.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
tool="$builddir/tests/helper/index-tool"
[ -x "$idx" ] || tap_skip_all "$idx not built"
[ -x "$tool" ] || tap_skip_all "$tool not built"
[ -x "$NGINX" ] || tap_skip_all "nginx not found (Debian package nginx)"

T=$(tmp_dir)
test_web_start "$T/site"
mdb_start
conf=$T/mpseek.conf
write_conf "$conf" site "MinDelay 0" "ReadTimeOut 5" "MaxHops 6" "DeleteBad yes" \
	"Robots yes" "Server $WEB_URL"
dd=$MDB_DIR/data-site
SQL() { mdb_sql "$1" site; }

# ---- a crawl whose merge dies after the sorted runs: no index, deltas kept
MPSEEK_MERGE_CRASH_AT=after-runs mpi_no_leak_check timeout 300 "$idx" "$conf" >"$T/crawl.out" 2>"$T/crawl.log"
tap_ok "$([ $? -ne 0 ] && echo 1)" "the crawl's merge dies at after-runs"
ndelta=$(ls "$dd/deltas"/*.dlt 2>/dev/null | wc -l)
tap_ok "$([ "$ndelta" -ge 1 ] && [ ! -e "$dd/index/current" ] && echo 1)" \
	"no index published, $ndelta delta segment(s) kept"

# ---- -D killed after the partitions and after FORMAT: still nothing live
for point in after-url-states after-partitions after-format after-wordurl; do
	MPSEEK_MERGE_CRASH_AT=$point mpi_no_leak_check "$idx" -D "$conf" >/dev/null 2>"$T/crash-$point.log"
	tap_ok "$([ $? -ne 0 ] && [ ! -e "$dd/index/current" ] && \
		[ "$(ls "$dd/deltas"/*.dlt | wc -l)" = "$ndelta" ] && echo 1)" \
		"-D killed at $point: nothing published, no delta lost"
done

# ---- the same deltas and database merged with -np 1..4: identical files
cp -a "$dd" "$T/pristine"
for np in 1 2 3 4; do
	rm -rf "$dd"
	cp -a "$T/pristine" "$dd"
	mpi_no_leak_check timeout 300 "$MPIRUN" --oversubscribe -np "$np" "$idx" -D "$conf" \
		>"$T/np$np.out" 2>"$T/np$np.log"
	rc=$?
	tap_is "$rc" 0 "-D with -np $np"
	[ "$rc" = 0 ] || tail -5 "$T/np$np.log" | sed 's/^/# /'
	rm -rf "$T/gen-np$np"
	cp -a "$(readlink -f "$dd/index/current")" "$T/gen-np$np"
done
same=1
for np in 2 3 4; do
	# PageRank sums in an order that depends on the rank count: ranks is
	# compared by value below, everything else byte for byte (gen_same).
	[ "$(gen_same "$T/gen-np1" "$T/gen-np$np")" = 1 ] || same=0
done
tap_ok "$same" "every index file but ranks is identical (cmp; the docstore by its documents) for -np 1, 2, 3 and 4"
close=1
for np in 1 2 3 4; do
	"$idx" --print-ranks --pagerank-dir "$T/gen-np$np" "$conf" >"$T/ranks-np$np.txt" 2>/dev/null ||
		close=0
done
for np in 2 3 4; do
	paste "$T/ranks-np1.txt" "$T/ranks-np$np.txt" | awk -F'\t' '
		$1 != $3 { bad = 1 } { d = $2 - $4; if (d < 0) d = -d; if (d > 1e-12) bad = 1 }
		END { exit bad || NR < 10 }' || { close=0; tap_diag "np $np: ranks differ"; }
done
tap_ok "$close" "the merge ranks every page the same (1e-12) for -np 1, 2, 3 and 4"
tap_is "$(ls "$dd/deltas"/*.dlt 2>/dev/null | wc -l)" 0 "the deltas are removed after the switch"

# ---- --check
"$idx" --check "$conf" >"$T/check.out" 2>"$T/check.log"
rc=$?
tap_is "$rc" 0 "--check passes (index and wordurl): $(tail -1 "$T/check.out")"
grep -q '^wordurl: ' "$T/check.out" || [ "$rc" = 0 ]
tap_ok "$([ $? = 0 ] && echo 1)" "--check finds no damage in the index files"
[ "$rc" = 0 ] || { head -5 "$T/check.out" | sed 's/^/# /'; SQL "SELECT word_id, word, urlcount FROM wordurl ORDER BY word_id LIMIT 5" | sed 's/^/# /'; cat "$g/FORMAT" 2>/dev/null; }

# ---- brute force over the stored texts
for i in $(seq 0 15); do
	t=$(printf 'urlwords%02d' "$i")
	SQL "SELECT d.url_id, d.content_type, HEX(d.words) FROM $t d JOIN urlword u USING (url_id)
	     WHERE d.deleted = 0 AND u.deleted = 0 AND u.status = 200 AND u.origin = 1
	     AND d.words IS NOT NULL"
done | "$tool" tokens "$conf" | LC_ALL=C sort -t"$(printf '\t')" -k1,1 -k2,2n >"$T/brute.txt"
# The pages' own words: anchor words (0x01 + word, doc/SEARCH.md "Anchor
# text") are postings of the links' targets, not of the stored texts.
"$idx" --dump-index "$conf" >"$T/dump-all.txt"
grep -av $'^\x01' "$T/dump-all.txt" >"$T/dump.txt"
tap_ok "$([ -s "$T/brute.txt" ] && cmp -s "$T/brute.txt" "$T/dump.txt" && echo 1)" \
	"all postings equal the brute-force count ($(wc -l <"$T/dump.txt") postings)"
[ -s "$T/brute.txt" ] && ! cmp -s "$T/brute.txt" "$T/dump.txt" && diff "$T/brute.txt" "$T/dump.txt" | head -5 | sed 's/^/# /'
cut -f1 "$T/brute.txt" | uniq | awk 'NR % 3 == 1' | head -50 >"$T/words50"
n50=$(wc -l <"$T/words50")
bad=0
while read -r w; do
	cmp -s <(awk -F'\t' -v w="$w" '$1 == w' "$T/brute.txt") \
		<(awk -F'\t' -v w="$w" '$1 == w' "$T/dump.txt") || bad=$((bad + 1))
done <"$T/words50"
tap_ok "$([ "$n50" = 50 ] && [ "$bad" = 0 ] && echo 1)" "50 chosen words: postings equal the brute force ($bad differ)"
tap_is "$(SQL 'SELECT COUNT(*) FROM wordurl')" "$(cut -f1 "$T/dump-all.txt" | uniq | wc -l)" \
	"wordurl has one row per word of the index"

# ---- incremental: edit the site, recrawl, merge into the existing index;
# the result equals a fresh crawl of the new state (postings by URL)
cat >"$T/site/changing.html" <<'HTML'
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Changing page v2</title></head>
<body>
<p>changingword version two, with a <a href="added.html">new page</a>.</p>
</body></html>
HTML
cat >"$T/site/added.html" <<'HTML'
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Added later</title></head>
<body><p>addedword appears only in the second state.</p></body></html>
HTML
rm -f "$T/site/team.html"
mpi_no_leak_check timeout 300 "$idx" -a "$conf" >"$T/recrawl.out" 2>"$T/recrawl.log"
tap_is "$?" 0 "recrawl of the edited site and merge into the existing index"
write_conf "$T/fresh.conf" fresh "MinDelay 0" "ReadTimeOut 5" "MaxHops 6" "DeleteBad yes" \
	"Robots yes" "Server $WEB_URL"
mpi_no_leak_check timeout 300 "$idx" "$T/fresh.conf" >"$T/fresh.out" 2>"$T/fresh.log"
tap_is "$?" 0 "fresh crawl of the edited site"
# by_url DB CONF: the dump with url_id replaced by the URL, sorted.
by_url() {
	mdb_sql "SELECT url_id, url FROM urlword" "$1" >"$T/urls-$1"
	"$idx" --dump-index "$2" | awk -F'\t' -v OFS='\t' -v m="$T/urls-$1" '
		BEGIN { while ((getline l < m) > 0) { split(l, f, "\t"); u[f[1]] = f[2] } }
		{ $2 = u[$2]; print }' | LC_ALL=C sort
}
by_url site "$conf" >"$T/inc.txt"
by_url fresh "$T/fresh.conf" >"$T/fresh.txt"
tap_ok "$([ -s "$T/inc.txt" ] && cmp -s "$T/inc.txt" "$T/fresh.txt" && echo 1)" \
	"incremental index = fresh index ($(wc -l <"$T/inc.txt") postings)"
cmp -s "$T/inc.txt" "$T/fresh.txt" || diff "$T/inc.txt" "$T/fresh.txt" | head -6 | sed 's/^/# /'
tap_ok "$(grep -q '^addedword' "$T/inc.txt" && ! grep -q 'team\.html' "$T/inc.txt" && \
	grep -q '^two	.*changing\.html' "$T/inc.txt" && ! grep -q '^one	.*changing\.html' "$T/inc.txt" && echo 1)" \
	"the added page is in, the removed page and the changed page's old words are out"
"$idx" --check "$conf" >"$T/check3.out" 2>&1
tap_is "$?" 0 "--check passes after the incremental merge"

# ---- a generation of format version 1 (rewritten by storage-v1.py as the
# older mpseek wrote it): searchd and --check refuse it saying how to
# convert it, -D converts it, and the postings do not change
g=$(readlink -f "$dd/index/current")
"$idx" --dump-index "$conf" >"$T/v2dump.txt" 2>/dev/null
python3 "$srcdir/tests/integration/storage-v1.py" "$g"
tap_is "$?" 0 "the live generation rewritten as format version 1"
"$idx" --check "$conf" >"$T/v1check.out" 2>&1
rc=$?
tap_ok "$([ "$rc" = 1 ] && [ "$(wc -l <"$T/v1check.out")" = 1 ] &&
	grep -q "^FORMAT: .*format version 1, this mpseek reads 3: .*mpseek-index -D" "$T/v1check.out" &&
	echo 1)" "--check refuses it in one line: $(head -1 "$T/v1check.out")"
# searchd stays up without an index (queries get ER_NOINDEX) and says why.
write_conf "$T/sd.conf" site "Port $((20000 + RANDOM % 12000))"
"$builddir/searchd" -F "$T/sd.conf" >/dev/null 2>"$T/v1sd.log" </dev/null &
sd=$!
for i in $(seq 300); do
	grep -q "refusing the index generation" "$T/v1sd.log" && break
	kill -0 "$sd" 2>/dev/null || break
	sleep 0.1
done
kill "$sd" 2>/dev/null
wait "$sd" 2>/dev/null
tap_ok "$(grep "refusing the index generation" "$T/v1sd.log" | grep -v damaged |
	grep -q "format version 1, this mpseek reads 3: .*mpseek-index -D" && echo 1)" \
	"searchd refuses it: $(grep -m1 -o 'FORMAT: format.*' "$T/v1sd.log")"
mpi_no_leak_check "$idx" -D "$conf" >/dev/null 2>"$T/v1merge.log"
tap_is "$?" 0 "-D on the version-1 generation"
tap_ok "$(grep -q "format version 1: generation .* converts it to version 3" "$T/v1merge.log" &&
	head -1 "$(readlink -f "$dd/index/current")/FORMAT" | grep -qx 'mpseek-compactstorage 3' &&
	echo 1)" "the merge converts it to version 3"
"$idx" --check "$conf" >"$T/v2check.out" 2>&1
tap_is "$?" 0 "--check passes the converted generation"
"$idx" --dump-index "$conf" >"$T/v2dump2.txt" 2>/dev/null
tap_ok "$([ -s "$T/v2dump.txt" ] && cmp -s "$T/v2dump.txt" "$T/v2dump2.txt" && echo 1)" \
	"the converted generation has the same postings ($(wc -l <"$T/v2dump2.txt"))"

# ---- a flipped byte is reported with its file
g=$(readlink -f "$dd/index/current")
f=$(ls -S "$g"/*/urls | head -1)
printf '\xff' | dd of="$f" bs=1 seek=40 conv=notrunc 2>/dev/null
"$idx" --check "$conf" >"$T/check2.out" 2>&1
rc=$?
rel=${f#"$g"/}
tap_ok "$([ "$rc" = 1 ] && grep -q "^$rel: offset " "$T/check2.out" && echo 1)" \
	"--check reports a flipped byte in $rel: $(head -1 "$T/check2.out")"
tap_done
