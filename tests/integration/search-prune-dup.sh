#!/bin/bash
# search-prune-dup.sh - top-k pruning beside near-duplicate folding
# (doc/SEARCH.md, "Top-k pruning" and "Near-duplicates"): two served sites of
# generated pages, many of them near-duplicates (the same text under another
# "Generated" timestamp: not MD5 clones) in groups of two and three, in one
# site and across both.  Folding keeps each group's best document, so the
# pruned walk's threshold counts a group once; every query of words, pairs,
# triples and phrases must give the page of exhaustive scoring (`Pruning
# no`) in several page shapes, grouped by site and not, while pruning
# scores fewer documents than exhaustive scoring does (no query is
# evaluated a second time in full).
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

search_tools
PY=${PYTHON3:-python3}

T=$(tmp_dir)
mkdir -p "$T/site/a" "$T/site/b"
# 120 pages of 40-160 words of a 60-word vocabulary (Zipf-like: a word's
# weight 1/rank), seed fixed; every third text is written again (with
# another timestamp) once or twice, into the same site or the other.
"$PY" - "$T/site" <<'EOF'
import random, sys
root = sys.argv[1]
rnd = random.Random(2026)
vocab = ("harbour lantern keeper granite signal reef tide storm beacon ferry "
         "anchor compass chart mooring pilot quay dredge buoy gale shoal "
         "rudder hull keel mast sail rope winch cargo crane dock "
         "lighthouse island cliff shore wave current fog horn bell chain "
         "copper brass paraffin lens mirror clockwork stair window tower gallery "
         "north south east west evening morning winter summer autumn spring").split()
weights = [1.0 / (i + 1) for i in range(len(vocab))]
links = {"a": [], "b": []}
n = 0
for i in range(120):
    words = rnd.choices(vocab, weights, k=rnd.randint(40, 160))
    title = " ".join(rnd.choices(vocab, weights, k=3))
    copies = 1 + (i % 3 == 0) + (i % 9 == 0)
    for c in range(copies):
        site = "ab"[(i + c * (i % 2)) % 2]
        name = "p%03d.html" % n
        n += 1
        with open("%s/%s/%s" % (root, site, name), "w") as f:
            f.write("<html><head><title>%s</title></head><body>\n"
                    "<p>Generated 2026-11-%02d 0%d:%02d:%02d</p>\n<p>%s</p>\n</body></html>\n"
                    % (title, 1 + c, c, i % 60, (7 * i + c) % 60, " ".join(words)))
        links[site].append(name)
for site, names in links.items():
    with open("%s/%s/index.html" % (root, site), "w") as f:
        f.write("<html><body>%s</body></html>\n"
                % " ".join('<a href="%s">%s</a>' % (x, x) for x in names))
with open("%s/queries" % root, "w") as q:
    for i in range(240):
        k = 1 + i % 3
        ws = rnd.choices(vocab, weights, k=k)
        if i % 8 == 7:
            q.write('"%s %s"\n' % (ws[0], rnd.choice(vocab)))
        else:
            q.write(" ".join(ws) + "\n")
EOF
sort -u "$T/site/queries" >"$T/queries"
rm "$T/site/queries"
web_start "$T/site"
mdb_start
conf=$T/mpseek.conf
write_conf "$conf" prdup "MinDelay 0" "ReadTimeOut 5" \
	"Server http://127.0.0.1:$WEB_PORT/a/" "Server http://localhost:$WEB_PORT/b/"
mpi_no_leak_check timeout 300 "$idx" "$conf" >"$T/crawl.out" 2>"$T/crawl.log"
rc=$?
tap_is "$rc" 0 "crawl, merge and PageRank of the two sites"
[ "$rc" = 0 ] || { tail -15 "$T/crawl.log" | sed 's/^/#   /'; tap_done; }
groups=$(sed -n 's/.*near-duplicates: \([0-9]*\) groups.*/\1/p' "$T/crawl.log" | tail -1)
tap_ok "$([ "${groups:-0}" -ge 30 ] && echo 1)" "the merge grouped the near-duplicates: ${groups:-none} groups"
n=$(wc -l <"$T/queries")

while read -r name opts; do
	case "$name" in ''|'#'*) continue ;; esac
	for mode in no yes; do
		printf 'Pruning %s\n' "$mode" >"$T/$mode.conf"
		# shellcheck disable=SC2086
		"$tool" -b -v -W -S "$T/$mode.conf" $opts "$conf" "$T/queries" 2>"$T/w.$mode.$name" |
			grep -v '^queries ' >"$T/p.$mode.$name"
	done
	read -r _ _ _ _ _ _ m _ _ _ xscored < <(grep '^work' "$T/w.no.$name")
	read -r _ _ q _ p _ _ _ _ _ pscored < <(grep '^work' "$T/w.yes.$name")
	same=$(cmp -s "$T/p.no.$name" "$T/p.yes.$name" && [ "$(grep -c '^query: ' "$T/p.yes.$name")" = "$n" ] && echo 1)
	tap_ok "$same" "$name ($opts): every page of $n queries equals exhaustive scoring"
	[ -n "$same" ] || diff "$T/p.no.$name" "$T/p.yes.$name" | head -20 | sed 's/^/#   /'
	tap_ok "$([ "$p" = "$q" ] && [ "$pscored" -lt "$xscored" ] && echo 1)" \
		"$name: all $q queries pruned, $pscored documents scored of $xscored ($m matched)"
done <<EOF2
grouped10	-n 10
grouped1	-n 1
grouped2p1	-n 2 -p 1
flat10	-G -n 10
flat3p2	-G -n 3 -p 2
EOF2
# The pages do show near-duplicates listed with their hit.
tap_ok "$(grep -q '^    clone: ' "$T/p.yes.flat10" && echo 1)" "the pages list near-duplicates with their hits"
tap_done
