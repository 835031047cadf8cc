#!/bin/bash
# directives-search.sh - the searchd.conf ranking directives, QueryTimeLimit,
# StopwordFile, the template's Clones and the PageRank directives each
# change what a search or PageRank gives.  One crawl of a small site made
# here (private nginx and MariaDB); tests/helper/search-tool prints the
# score of the one page a query matches with a searchd.conf that sets one
# directive, against the same query with the defaults: a directive the
# engine ignored would leave the score as it is.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
sd="$builddir/searchd"
cgi="$builddir/s.cgi"
tool="$builddir/tests/helper/search-tool"
load="$builddir/tests/helper/searchd-load"
for p in "$idx" "$sd" "$cgi" "$tool" "$load"; do
	[ -x "$p" ] || tap_skip_all "$p not built"
done
[ -x "$NGINX" ] || tap_skip_all "nginx not found (Debian package nginx)"

T=$(tmp_dir)
site=$T/site
mkdir -p "$site"
page() { # NAME HEAD BODY
	printf '<html><head>%s</head><body>%s <a href="index.html">up</a></body></html>\n' \
		"$2" "$3" >"$site/$1"
}
filler() { for i in $(seq "$1"); do printf 'filler%d ' "$i"; done; }
page kw.html '<title>one</title><meta name="keywords" content="kwword">' "plain text"
page desc.html '<title>two</title><meta name="description" content="descword">' "plain text"
page rep.html '<title>three</title>' "repword repword repword repword and more"
page long.html '<title>four</title>' "lenword $(filler 300)"
page phrase.html '<title>five</title>' "the quick brown fox jumps"
page prox.html '<title>six</title>' "alphaword betaword close together"
page title.html '<title>zebra stripes</title>' "zebra stripes in the body"
page stop.html '<title>seven</title>' "stopme keepme"
page dup1.html '<title>dup</title>' "dupword the same bytes"
cp "$site/dup1.html" "$site/dup2.html"
{
	echo '<html><head><title>home</title></head><body>homeword'
	for f in "$site"/*.html; do echo "<a href=\"$(basename "$f")\">x</a>"; done
	echo '</body></html>'
} >"$site/index.html"
web_start "$site"
mdb_start
echo stopme >"$T/stop.txt"
conf=$T/mpseek.conf
write_conf "$conf" s "MinDelay 0" "ReadTimeOut 5" "Robots no" "StopwordFile $T/stop.txt" \
	"Server $WEB_URL"
mpi_no_leak_check timeout 300 "$idx" "$conf" >"$T/crawl.out" 2>"$T/crawl.log"
rc=$?
tap_is "$rc" 0 "crawl and merge of the site"
[ "$rc" = 0 ] || { tail -15 "$T/crawl.log" | sed 's/^/#   /'; tap_done; }

# ---- ranking: one directive changes the score of the one page matched
: >"$T/default.conf"
# score [LINE] QUERY: the score of the first hit with a searchd.conf of LINE.
score() {
	printf '%s\n' "$1" >"$T/one.conf"
	"$tool" -v -G -n 1 -S "$T/one.conf" "$conf" "$2" 2>"$T/tool.err" |
		awk '$1 == "score" { print $2; exit }'
}
differs() { # DIRECTIVE QUERY PAGE: the score with DIRECTIVE against the default
	local d s w
	d=$(score "" "$2")
	s=$(score "$1" "$2")
	w=$("$tool" -G -n 1 "$conf" "$2" 2>/dev/null | sed -n 3p)
	tap_ok "$([ -n "$d" ] && [ -n "$s" ] && [ "$d" != "$s" ] && [ "${w##*/}" = "$3" ] && echo 1)" \
		"$1: $2 scores $s on $3 (default $d)"
}
differs "WeightKeywords 20" kwword kw.html
differs "WeightDescription 20" descword desc.html
differs "BM25K1 10" repword rep.html
differs "BM25B 0" lenword long.html
differs "PhraseBoost 10" '"quick brown fox"' phrase.html
differs "ProximityBoost 0" "alphaword betaword" prox.html
differs "TitleMatchBoost 0" "zebra stripes" title.html
differs "PageRankWeight 100" repword rep.html
# A weight of a section the word is not in changes nothing.
tap_is "$(score "WeightKeywords 20" descword)" "$(score "" descword)" \
	"WeightKeywords does not touch a word of the description"

# ---- StopwordFile: not indexed, and the query says it is a stopword
"$idx" --dump-index "$conf" 2>/dev/null | cut -f1 | sort -u >"$T/words"
tap_ok "$(grep -qx keepme "$T/words" && ! grep -qx stopme "$T/words" && echo 1)" \
	"StopwordFile: its word is not indexed, the page's other word is"
tap_ok "$("$tool" "$conf" "stopme keepme" | sed -n 2p | grep -q ' stopme:0:0:stop ' && echo 1)" \
	"StopwordFile: the query names the word a stopword"

# ---- PageRankDamping, PageRankMaxIterations: the ranks -K computes
pr() { # NAME [LINE...]: -K into $T/NAME, then --print-ranks of it
	local n=$1
	shift
	write_conf "$T/$n.conf" s "Server $WEB_URL" "$@"
	mpi_no_leak_check timeout 120 "$idx" -K -q --pagerank-cold --pagerank-dir "$T/$n" "$T/$n.conf" \
		>"$T/$n.out" 2>"$T/$n.log"
	"$idx" --print-ranks --pagerank-dir "$T/$n" "$T/$n.conf" 2>/dev/null | sort >"$T/$n.ranks"
}
iters() { sed -n 's/.*pagerank: .* \([0-9]*\) iterations.*/\1/p' "$T/$1.log" | tail -1; }
pr prdef
pr prdamp "PageRankDamping 0.5"
pr priter "PageRankMaxIterations 1"
tap_ok "$([ "$(wc -l <"$T/prdef.ranks")" -ge 10 ] && echo 1)" \
	"PageRank: $(wc -l <"$T/prdef.ranks") pages ranked, $(iters prdef) iterations by default"
# The home page links every page, each links back: the damping moves the
# share of the home page's rank a page gets.
rank_of() { awk -v u="${WEB_URL}dup1.html" '$1 == u { print $2 }' "$T/$1.ranks"; }
tap_ok "$([ -n "$(rank_of prdef)" ] && [ "$(rank_of prdef)" != "$(rank_of prdamp)" ] && echo 1)" \
	"PageRankDamping 0.5: other ranks ($(rank_of prdamp), default $(rank_of prdef))"
tap_is "$(iters priter)" 1 "PageRankMaxIterations 1: one iteration"
tap_ok "$([ "$(iters prdef)" -gt 1 ] && echo 1)" "... where the default takes more ($(iters prdef))"

# ---- searchd: QueryTimeLimit; s.cgi: the template's Clones
# searchd on a free port (lib.sh), the test database "s".
sd_start() { shift; searchd_start "$T" s "$@"; }
sd_stop() { searchd_stop "$1"; }

# One worker and 32 clients: a query waits for the ones before it, and the
# limit counts from its arrival (with 8, a page served in under 0.14 ms
# from the kept rows and texts could leave none past 1 ms).
timeouts() { # NAME LINE...
	local n=$1
	shift
	sd_start "$n" "MaxThreads 1" "$@"
	"$load" -s "$SD_ADDR" -c 32 -n 800 -e 2 homeword "dupword OR plain" repword >"$T/$n.load" 2>&1
	sd_stop "$SD_PID"
	grep -o 'ER_TIMEOUT[^0-9]*[0-9]*' "$T/$n.load" | grep -o '[0-9]*$' | head -1
}
t_def=$(timeouts qdef)
t_one=$(timeouts qone "QueryTimeLimit 1")
grep -i 'error\|token' "$T/qone.load" | head -3 | sed 's/^/# /'
tap_is "${t_def:-0}" 0 "QueryTimeLimit by default (2 s): no query times out"
tap_ok "$([ "${t_one:-0}" -gt 0 ] && echo 1)" "QueryTimeLimit 1: ${t_one:-0} of 800 queries answer ER_TIMEOUT"

sd_start cgi
cgi_page() { # CLONES: s.cgi's page for dupword with the template's Clones line
	sed -e "s/^DaemonAddress .*/DaemonAddress $SD_ADDR/" -e "s/^#\{0,1\}Clones .*/Clones $1/" \
		"$srcdir/etc/s.htm" >"$T/s-$1.htm"
	env -i PATH="$PATH" MPSEEK_TEMPLATE="$T/s-$1.htm" REQUEST_METHOD=GET SCRIPT_NAME=/s.cgi \
		QUERY_STRING="q=dupword" "$cgi" 2>"$T/cgi.err"
}
cgi_page yes >"$T/cgi-yes.html"
cgi_page no >"$T/cgi-no.html"
sd_stop "$SD_PID"
tap_ok "$(grep -q 'class="clones">Also at .*dup2.html' "$T/cgi-yes.html" && echo 1)" \
	"Clones yes (the template's): the clone is shown under its origin"
tap_ok "$(grep -q 'dup1.html' "$T/cgi-no.html" && ! grep -q 'class="clones"' "$T/cgi-no.html" && echo 1)" \
	"Clones no: the origin without its clone"

tap_done
