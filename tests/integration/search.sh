#!/bin/bash
# search.sh - the search engine (search.c, excerpt.c) on a real crawl:
# mpseek-index crawls tests/data/search/site as two sites (127.0.0.1 and
# localhost on one private nginx, pages dated by their mtimes) into a private
# MariaDB and merges; then tests/helper/search-tool runs search_run()
# directly for every query form of tests/data/search/queries.tsv (expected
# lists written by hand), for AND/OR/NOT/phrase/title: queries over word
# pairs against a brute-force evaluation of `mpseek-index --dump-index`
# (search-oracle.py), and checks paging, grouping, clones, excerpts, the
# result-page caches (also with 4 threads emptying them under each other),
# the cached copy, the wildcard cap and a damaged generation.  With `Stemming
# no`: the oracle and the lists know exact words only (word forms:
# search-stem.sh).
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
tool="$builddir/tests/helper/search-tool"
data="$srcdir/tests/data/search"
PY=${PYTHON3:-python3}
[ -x "$idx" ] || tap_skip_all "$idx not built"
[ -x "$tool" ] || tap_skip_all "$tool not built"
[ -x "$NGINX" ] || tap_skip_all "nginx not found (Debian package nginx)"

T=$(tmp_dir)
cp -R "$data/site" "$T/site"
web_start "$T/site"
grep -rlF '@WEB_PORT@' "$T/site" | while read -r f; do
	LC_ALL=C sed -i "s/@WEB_PORT@/$WEB_PORT/g" "$f"
done
# Last-Modified comes from the mtimes: most pages 2020, one 2001, one 2024.
find "$T/site" -type f -exec touch -d '2020-06-01 12:00:00 UTC' {} +
touch -d '2001-01-01 00:00:00 UTC' "$T/site/a/old.html"
touch -d '2024-03-01 00:00:00 UTC' "$T/site/b/fresh.html"
mdb_start
conf=$T/mpseek.conf
write_conf "$conf" search "Stemming no" "MinDelay 0" "ReadTimeOut 5" "MaxHops 6" \
	"Server http://127.0.0.1:$WEB_PORT/a/" "Server http://localhost:$WEB_PORT/b/"
SQL() { mdb_sql "$1" search; }

mpi_no_leak_check timeout 300 "$idx" "$conf" >"$T/crawl.out" 2>"$T/crawl.log"
rc=$?
tap_is "$rc" 0 "crawl and merge of the two sites"
[ "$rc" = 0 ] || { tail -15 "$T/crawl.log" | sed 's/^/#   /'; tap_done; }
SITE_A=$(SQL "SELECT site_id FROM sites WHERE site = 'http://127.0.0.1:$WEB_PORT/'")
SITE_B=$(SQL "SELECT site_id FROM sites WHERE site = 'http://localhost:$WEB_PORT/'")
tap_ok "$([ -n "$SITE_A" ] && [ -n "$SITE_B" ] && echo 1)" "two sites ($SITE_A, $SITE_B)"

# Paths of the hit lines (a second hit keeps its two-space indent).
paths() {
	sed -n '3,$p' | sed -e "s|http://127.0.0.1:$WEB_PORT/||" -e "s|http://localhost:$WEB_PORT/||"
}
subst() {
	printf '%s' "$1" | sed -e "s/@PORT@/$WEB_PORT/g" -e "s/@SITE_A@/$SITE_A/g" \
		-e "s/@SITE_B@/$SITE_B/g"
}

# ---- the query forms, expected lists by hand
while IFS=$'\t' read -r name opts query mode want; do
	case "$name" in ''|'#'*) continue ;; esac
	[ "$opts" = - ] && opts=
	opts=$(subst "$opts")
	query=$(subst "$query")
	eval "set -- $opts"
	case "$mode" in
	set) "$tool" "$@" -G -n 100 "$conf" "$query" >"$T/out" 2>"$T/err"
		got=$(paths <"$T/out" | sort | tr '\n' ' ' | sed 's/ $//') ;;
	first) "$tool" "$@" "$conf" "$query" >"$T/out" 2>"$T/err"
		got=$(paths <"$T/out" | head -1) ;;
	last) "$tool" "$@" -n 100 "$conf" "$query" >"$T/out" 2>"$T/err"
		got=$(paths <"$T/out" | tail -1) ;;
	list) "$tool" "$@" "$conf" "$query" >"$T/out" 2>"$T/err"
		got=$(paths <"$T/out" | tr '\n' ',') ;;
	total) "$tool" "$@" "$conf" "$query" >"$T/out" 2>"$T/err"
		got=$(head -1 "$T/out") ;;
	words) "$tool" "$@" "$conf" "$query" >"$T/out" 2>"$T/err"
		got=$(sed -n 2p "$T/out") ;;
	error) "$tool" "$@" "$conf" "$query" >"$T/out" 2>"$T/err"
		got=$(awk 'NR == 1 && $1 == "ERROR" { print $2 }' "$T/out") ;;
	*) got="bad mode $mode" ;;
	esac
	if [ "$mode" != error ] && grep -q '^ERROR' "$T/out"; then
		got="$(head -1 "$T/out")"
	fi
	tap_is "$got" "$want" "$name: $query"
	[ -s "$T/err" ] && sed 's/^/#   /' "$T/err" | head -5
done <"$data/queries.tsv"

# ---- web spaces: the sites of the spaces asked for
SQL "INSERT INTO spaces (space_id, site_id) VALUES (7, $SITE_B), (8, $SITE_A)"
got=$("$tool" -G -n 100 -s 7 "$conf" apple | paths | sort | tr '\n' ' ')
tap_is "$got" "b/fresh.html b/strudel.html " "space 7: the pages of its site"
got=$("$tool" -G -n 100 -s 7 -s 8 "$conf" pie | paths | sort | tr '\n' ' ')
tap_is "$got" "a/apple-tips.html a/apple.html a/cherry.html b/strudel.html " "spaces 7 and 8: both sites"
tap_is "$("$tool" -s 9 "$conf" apple | head -1)" "0 0 0" "an empty space: nothing"

# ---- brute force: postings from --dump-index, evaluated in Python
"$idx" --dump-index "$conf" >"$T/dump.tsv" 2>"$T/dump.log"
tap_is "$?" 0 "--dump-index"
SQL "SELECT url_id, url FROM urlword" >"$T/urls.tsv"
"$PY" "$srcdir/tests/integration/search-oracle.py" "$T/dump.tsv" "$T/urls.tsv" "$WEB_PORT" \
	>"$T/oracle.tsv"
n=$(wc -l <"$T/oracle.tsv")
tap_ok "$([ "$n" -ge 40 ] && echo 1)" "the oracle made $n queries"
bad=0
while IFS=$'\t' read -r query want; do
	"$tool" -G -n 100 "$conf" "$query" >"$T/out" 2>&1
	got=$(paths <"$T/out" | sort | tr '\n' ' ' | sed 's/ $//')
	if [ "$got" != "$want" ]; then
		bad=$((bad + 1))
		tap_diag "$query: got '$got', want '$want'"
	fi
done <"$T/oracle.tsv"
tap_is "$bad" 0 "$n brute-force queries (AND, OR, NOT, title:, phrases) agree"

# ---- paging: pages of 2 are the slices of one page of 6; past the end, nothing
"$tool" -G -n 6 "$conf" apple | paths >"$T/all"
: >"$T/pages"
for p in 0 1 2; do "$tool" -G -n 2 -p $p "$conf" apple | paths >>"$T/pages"; done
tap_ok "$(cmp -s "$T/all" "$T/pages" && [ "$(wc -l <"$T/all")" = 6 ] && echo 1)" \
	"pages 0, 1, 2 of 2 = page 0 of 6"
tap_is "$("$tool" -G -n 2 -p 3 "$conf" apple | paths | wc -l)" 0 "page 3 of 2 is empty"
"$tool" -n 1 -p 1 "$conf" apple | paths >"$T/g1"
"$tool" -n 2 -p 0 "$conf" apple | paths | sed -n '3,$p' >"$T/g2"
tap_ok "$(cmp -s "$T/g1" "$T/g2" && [ "$(wc -l <"$T/g1")" = 2 ] && echo 1)" \
	"grouped page 2 of 1: the second site of page 1 of 2, with its two hits"

# ---- grouping: at most 2 hits per site, the second indented after the first
"$tool" -n 10 "$conf" "apple OR pie OR zebra OR baking" | paths >"$T/grp"
ok=$(awk '{ site = $1; sub(/\/.*/, "", site); n[site]++; if (n[site] > 2) bad = 1;
	if (/^  / && prev_site != site) bad = 1; prev_site = site }
	END { print bad ? 0 : 1 }' "$T/grp")
tap_ok "$ok" "grouped: at most two per site, the second right after the first"
tap_is "$(grep -c '^  ' "$T/grp")" 2 "grouped: both sites show a second hit"

# ---- ranking: the page whose words are in its title ranks above one with them in the body
tap_is "$("$tool" -G "$conf" zebra | paths | head -1)" a/zebra-title.html "title beats body"
first=$("$tool" -G "$conf" '"quick brown fox"' | paths | head -1)
tap_is "$first" a/fox.html "phrase: the page with the phrase"

# ---- hits: clones, excerpts with highlights, titles highlighted
"$tool" -v -x 2 -l 80 "$conf" "cinnamon" >"$T/v"
tap_ok "$(grep -q "clone: http://127.0.0.1:$WEB_PORT/a/apple-copy.html" "$T/v" && echo 1)" \
	"the clone is listed under its origin"
tap_ok "$(grep -q 'excerpt: An apple pie with \[cinnamon\] and butter' "$T/v" && echo 1)" \
	"the excerpt highlights the word"
"$tool" -v -x 1 "$conf" "apple pie" >"$T/v"
tap_ok "$(grep -q 'title: \[Apple\] \[pie\] recipe' "$T/v" && echo 1)" "the title highlights the words"
"$tool" -v -x 3 -l 40 "$conf" "forty OR butter OR smell" >"$T/v"
tap_ok "$(awk '/excerpt:/ { n++; if (length($0) > 4 + 9 + 40 + 6 * 2 + 2) bad = 1 }
	END { print (n >= 2 && !bad) ? 1 : 0 }' "$T/v")" "several excerpts, each within its length"

# ---- result-page rows cached per generation: a repeated query (served from
# the cache) shows the same page, clones included
"$tool" -v -n 10 "$conf" "apple OR pie OR zebra" >"$T/once" 2>/dev/null
"$tool" -v -n 10 -r 3 "$conf" "apple OR pie OR zebra" >"$T/thrice" 2>"$T/cache"
tap_ok "$(cmp -s "$T/once" "$T/thrice" && grep -q 'clone: ' "$T/once" && echo 1)" \
	"the third run of a query (rows from the cache) shows the same page"
hits=$(grep -c '^[^ ].*://\|^  [^ ].*://' "$T/once")
tap_is "$(sed -n 's/^cache //p' "$T/cache")" "$((2 * hits)) hits $hits misses $hits rows" \
	"the database was asked for the $hits rows once, the cache answered twice"
"$tool" -v -x 1 -n 10 -r 2 "$conf" "apple OR pie OR zebra" >/dev/null 2>"$T/cache"
tap_is "$(sed -n 's/^cache //p' "$T/cache")" "$hits hits $hits misses $hits rows" \
	"pages with snippets take their texts from the docstore, their rows from the cache"
# ... and the second keeps no docstore read: each hit's entry (fields and
# snippet text made plain) was kept by the first
tap_ok "$(awk '/^texts / { print ($2 > 0 && $2 == $4 && $4 == $6) ? 1 : 0 }' "$T/cache")" \
	"the hits' docstore entries were read once and kept ($(sed -n 's/^texts //p' "$T/cache"))"

# ... and a page without snippets keeps the entries' fields alone: the
# second and third runs read no block
"$tool" -v -n 10 -r 3 "$conf" "apple OR pie OR zebra" >/dev/null 2>"$T/cache"
tap_is "$(sed -n 's/^texts //p' "$T/cache")" "$((2 * hits)) hits $hits misses $hits kept" \
	"pages without snippets read each hit's docstore entry once"

# ---- the docstore: pages with snippets equal with and without it (the
# database then gives the texts), no statement per page once the rows are
# cached, --check verifies it, an incremental merge copies it
gen=$(readlink -f "$MDB_DIR/data-search/index/current")
tap_ok "$([ -s "$gen/docstore" ] && echo 1)" "the merge wrote the generation's docstore"
selects() { mdb_sql "SHOW GLOBAL STATUS LIKE 'Com_select'" | cut -f2; }
qs=("apple OR pie OR zebra" "banana bread" '"quick brown fox"' "elasti*" "baking")
pages() {
	for q in "${qs[@]}"; do "$tool" -v -x 3 -l 120 -n 10 -r "$1" "$conf" "$q" 2>/dev/null; done
}
pages 1 >"$T/ds-1"
s0=$(selects); pages 1 >/dev/null; s1=$(selects); pages 5 >"$T/ds-5"; s5=$(selects)
mv "$gen/docstore" "$T/docstore.aside"
pages 1 >"$T/db-1"
d0=$(selects); pages 1 >/dev/null; d1=$(selects); pages 5 >/dev/null; d5=$(selects)
mv "$T/docstore.aside" "$gen/docstore"
tap_ok "$(cmp -s "$T/ds-1" "$T/db-1" && grep -q 'excerpt: ' "$T/ds-1" && echo 1)" \
	"pages with snippets are the same from the docstore and from the database"
n=${#qs[@]}
per_ds=$(( (s5 - s1 - (s1 - s0)) / (4 * n) )) per_db=$(( (d5 - d1 - (d1 - d0)) / (4 * n) ))
tap_diag "statements per page with snippets: docstore $per_ds, database $per_db"
tap_is "$per_ds/$per_db" "0/2" \
	"with the docstore a repeated page with snippets asks the database nothing (2 without)"
"$idx" --check "$conf" >"$T/check" 2>&1
tap_is "$?" 0 "--check passes with the docstore"
cp "$gen/docstore" "$T/docstore.good"
size=$(stat -c %s "$gen/docstore")
printf '\377\377\377\377' | dd of="$gen/docstore" bs=1 seek=$((size / 3)) conv=notrunc 2>/dev/null
"$idx" --check "$conf" >"$T/check" 2>&1
tap_ok "$([ $? != 0 ] && grep -q 'docstore: .*CRC' "$T/check" && echo 1)" "--check finds a damaged docstore"
cp "$T/docstore.good" "$gen/docstore"
mpi_no_leak_check timeout 120 "$idx" -D "$conf" >/dev/null 2>"$T/remerge.log"
tap_ok "$(grep -q 'docstore written: [1-9][0-9]* document(s) copied, 0 from the delta logs, 0 read' "$T/remerge.log" &&
	[ "$(readlink -f "$MDB_DIR/data-search/index/current")" != "$gen" ] && echo 1)" \
	"a merge with nothing new copies the docstore and reads no document"
pages 1 >"$T/ds-2"
tap_ok "$(cmp -s "$T/ds-1" "$T/ds-2" && echo 1)" "the copied docstore gives the same pages"

# ---- pages asked by 4 threads at once while the caches, kept to 2 rows
# and 2 texts, are emptied under them: a page reads its kept rows and texts
# by reference (doc/SEARCH.md, "The result page"), and every answer equals
# the one asked alone
printf '%s\n' "${qs[@]}" cinnamon "apple pie" butter >"$T/par.q"
"$tool" -b -j 4 -r 25 -C 2 "$conf" "$T/par.q" >"$T/par" 2>&1
tap_is "$(cat "$T/par")" "threads 4 answers 800 differ 0" \
	"4 threads, caches emptied under them: every page as asked alone"
"$tool" -b -j 4 -r 25 -C 2 -x 2 -l 80 "$conf" "$T/par.q" >"$T/par" 2>&1
tap_is "$(cat "$T/par")" "threads 4 answers 800 differ 0" "... and with snippets"

# ---- the cached copy, by URL and by id
"$tool" -c "$conf" "http://127.0.0.1:$WEB_PORT/a/banana.html	bread" >"$T/c"
tap_ok "$(grep -q 'Banana \[bread\] with walnuts' "$T/c" && echo 1)" "cached copy by URL, highlighted"
id=$(SQL "SELECT url_id FROM urlword WHERE url = 'http://127.0.0.1:$WEB_PORT/a/elastic.html'")
"$tool" -c "$conf" "$id	elasti*" >"$T/c"
tap_ok "$(grep -q '\[elasticity\]; an \[elastic\] band' "$T/c" && echo 1)" \
	"cached copy by url_id, the wildcard's words highlighted"
tap_is "$("$tool" -c "$conf" "999999	x")" "ERROR ER_NOTFOUND" "cached copy of an unknown id"

# ---- searchd.conf: the wildcard cap is said; weights change the order
printf 'MaxWildcardWords 2\nWeightTitle 0\nWeightBody 5\nTitleMatchBoost 0\n' >"$T/searchd.conf"
"$tool" -v -S "$T/searchd.conf" "$conf" 'elasti*' >"$T/w"
tap_ok "$(grep -q 'note: elasti\* matches more than 2 words: the first 2 are searched' "$T/w" && echo 1)" \
	"a capped wildcard says so"
tap_is "$("$tool" -G -S "$T/searchd.conf" "$conf" zebra | paths | head -1)" a/zebra-body.html \
	"WeightTitle 0, WeightBody 5: the body page first"

# ---- a damaged generation is refused when opened with verify
gen=$(readlink -f "$MDB_DIR/data-search/index/current")
f=$(ls "$gen"/*w/urls | head -1)
printf '\377\377\377\377' | dd of="$f" bs=1 seek=40 conv=notrunc 2>/dev/null
"$tool" "$conf" apple >"$T/d" 2>&1
tap_ok "$(grep -q 'damaged' "$T/d" && echo 1)" "a damaged generation is refused"

tap_done
