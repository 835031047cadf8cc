#!/bin/bash
# seen.sh - the rank's seen-set (doc/CRAWL.md, "Links and the seen-set")
# changes what a crawl costs, never what it stores:
#   * the shipped test web crawled with the default seen-set (nothing
#     evicted), with a cache of 4 entries and a Bloom filter behind it, with
#     a filter so small that most of its "maybe" answers are false, and with
#     no filter at all stores the same URL rows and the same links (hrefs as
#     URLs) in the documents;
#   * a link the filter says the rank met before is looked up, not inserted
#     again: fewer auto-increment values are burnt than without the filter;
#   * the summary names the cache's evictions and the filter's fill and its
#     predicted and measured false-positive rates; a false positive is
#     counted when the database has no row.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
[ -x "$idx" ] || tap_skip_all "$idx not built"
[ -x "$NGINX" ] || tap_skip_all "nginx not found (Debian package nginx)"

T=$(tmp_dir)
test_web_start "$T/site"
mdb_start
SQL() { mdb_sql "$1" "$2"; }

# crawl NAME [DIRECTIVE...]: the test web with one analysis thread.
crawl() {
	local name=$1
	shift
	write_conf "$T/$name.conf" "$name" "MinDelay 0" "ReadTimeOut 5" "MaxHops 6" \
		"Robots yes" "FollowOutside no" "IndexThreads 1" "$@" "Server $WEB_URL"
	mpi_no_leak_check timeout 300 "$idx" "$T/$name.conf" >"$T/$name.out" 2>"$T/$name.log"
	rc=$?
	[ "$rc" = 0 ] || { tap_diag "$name: exit $rc; log tail:"; tail -15 "$T/$name.log" | sed 's/^/#   /'; }
}
urls() {
	SQL "SELECT u.url, u.status, u.deleted, u.origin, u.crc, COALESCE(r.url, ''), u.hops,
		u.index_status FROM urlword u LEFT JOIN urlword r ON r.url_id = u.redir
		ORDER BY u.url" "$1"
}
# links NAME: every document's URL and its links as sorted URLs.
links() {
	local q="" i
	for i in $(seq -w 0 15); do
		q="$q${q:+ UNION ALL }SELECT url_id, HEX(hrefs) FROM urlwords$i WHERE deleted = 0"
	done
	SQL "SELECT url_id, url FROM urlword" "$1" >"$T/$1.ids"
	SQL "$q" "$1" | awk -F'\t' '
		NR == FNR { u[$1] = $2; next }
		{
			t = ""; n = 0
			for (k = 1; k + 7 <= length($2); k += 8) {
				v = 0
				for (b = 3; b >= 0; b--)
					v = v * 256 + hex(substr($2, k + 2 * b, 2))
				l[++n] = (v in u) ? u[v] : "MISSING-" v
			}
			asort(l)
			for (k = 1; k <= n; k++) t = t " " l[k]
			delete l
			print u[$1] "\t" t
		}
		function hex(s,   d) {
			d = "0123456789ABCDEF"
			return (index(d, substr(s, 1, 1)) - 1) * 16 + index(d, substr(s, 2, 1)) - 1
		}' "$T/$1.ids" - | sort
}
# burnt NAME: auto-increment values used by no row.
burnt() {
	SQL "SELECT t.AUTO_INCREMENT - 1 - (SELECT COUNT(*) FROM urlword)
		FROM information_schema.TABLES t
		WHERE t.TABLE_SCHEMA = '$1' AND t.TABLE_NAME = 'urlword'" "$1"
}
seenline() { grep 'seen-set:' "$T/$1.log" | tail -1; }

crawl s0
tap_is "$rc" 0 "default seen-set: exit 0"
urls s0 >"$T/s0.urls"
links s0 >"$T/s0.links"
tap_ok "$([ "$(wc -l <"$T/s0.links")" -ge 20 ] && ! grep -q MISSING "$T/s0.links" && echo 1)" \
	"default: $(wc -l <"$T/s0.links") documents, every link's id a URL row"
tap_ok "$(seenline s0 | grep -q ', 0 evicted; no Bloom filter (made at the first eviction)' && echo 1)" \
	"default: nothing evicted, no filter made: $(seenline s0 | sed 's/.*seen-set: //')"

for v in "small:SeenCacheEntries 4" \
	 "fp:SeenCacheEntries 4:SeenBloomURLs 1:SeenBloomFPRate 0.5" \
	 "nofilter:SeenCacheEntries 4:SeenBloomURLs 0"; do
	name=${v%%:*}
	IFS=: read -r -a dirs <<<"${v#*:}"
	crawl "$name" "${dirs[@]}"
	tap_is "$rc" 0 "$name (${dirs[*]}): exit 0"
	urls "$name" >"$T/$name.urls"
	links "$name" >"$T/$name.links"
	tap_is "$(diff "$T/s0.urls" "$T/$name.urls" | head -5)" "" \
		"$name: the URL rows of the default (statuses, MD5s, redirects, hops)"
	tap_is "$(diff "$T/s0.links" "$T/$name.links" | head -5)" "" \
		"$name: every document's links, by URL, those of the default"
done

line=$(seenline small)
tap_ok "$(grep -Eq '4 of 4 cache entries \(SeenCacheEntries\), [1-9][0-9]* evicted; Bloom filter [0-9.]+ MB, k 7' <<<"$line" &&
	  grep -Eq 'false positives predicted [0-9.]+ %, measured [0-9.]+ % \([1-9][0-9]* of [1-9][0-9]* lookups said maybe' <<<"$line" && echo 1)" \
	"SeenCacheEntries 4: evictions, the filter's fill, predicted and measured rates: ${line#*seen-set: }"
line=$(seenline fp)
fp=$(sed -n 's/.*said maybe, \([0-9]*\) of those not in the database.*/\1/p' <<<"$line")
tap_ok "$([ "${fp:-0}" -gt 0 ] && echo 1)" \
	"SeenBloomURLs 1, SeenBloomFPRate 0.5: false positives measured (${fp:-none}), ids still right: ${line#*seen-set: }"
tap_ok "$(seenline nofilter | grep -q 'evicted; no Bloom filter (SeenBloomURLs 0)' && echo 1)" \
	"SeenBloomURLs 0: no filter: $(seenline nofilter | sed 's/.*seen-set: //')"
b_small=$(burnt small) b_none=$(burnt nofilter)
tap_ok "$([ "$b_small" -lt "$b_none" ] && echo 1)" \
	"links the filter knows are looked up, not inserted again: $b_small auto-increment values burnt against $b_none without the filter"
tap_done
