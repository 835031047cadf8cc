#!/bin/bash
# index-verbs.sh - the administrator's targeted verbs of mpseek-index against
# a real crawl of tests/data/web/site (private nginx, MariaDB, searchd):
# a page that turns 404 leaves the index without DeleteBad (its row stays,
# and it comes back when the page does); -a -u recrawls one URL and nothing
# else, -m -u fetches it without a conditional GET; -C -u deletes by URL, by
# LIKE pattern and by site (asking on a terminal unless -w, refusing without
# -u), and the documents leave mpseek-search's answers at the next -D; -i -f
# inserts URLs from a file (bad and refused lines named with their line
# numbers); -S prints the sites, the next URL due and the live generation.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
sd="$builddir/searchd"
cli="$builddir/mpseek-search"
for p in "$idx" "$sd" "$cli"; do
	[ -x "$p" ] || tap_skip_all "$p not built"
done
[ -x "$NGINX" ] || tap_skip_all "nginx not found (Debian package nginx)"
command -v python3 >/dev/null 2>&1 || tap_skip_all "python3 not found"

T=$(tmp_dir)
test_web_start "$T/site"
mdb_start
conf=$T/mpseek.conf
# DeleteBad is left at its default (no).
write_conf "$conf" site "MinDelay 0" "ReadTimeOut 5" "MaxHops 6" "Robots yes" "Server $WEB_URL"
dd=$MDB_DIR/data-site
SQL() { mdb_sql "$1" site; }

# run NAME [options]: mpseek-index on the config; output in $T/NAME.log,
# status in $rc, the run's access log lines in $T/NAME.access.
run() {
	local name=$1 n0
	shift
	n0=$(wc -l <"$WEB_LOG")
	mpi_no_leak_check timeout 300 "$idx" "$@" "$conf" >"$T/$name.out" 2>"$T/$name.log" </dev/null
	rc=$?
	sleep 0.2
	tail -n +"$((n0 + 1))" "$WEB_LOG" >"$T/$name.access"
}
# status_of NAME PATH: the HTTP statuses nginx answered for PATH in run NAME.
status_of() { awk -F'\t' -v p="$2" '$3 == p { printf "%s ", $4 }' "$T/$1.access"; }
requests() { wc -l <"$T/$1.access"; }
row() { SQL "SELECT $2 FROM urlword WHERE url = '${WEB_URL}$1'"; }

# searchd on a free port (lib.sh).
sd_start() { searchd_start "$T" site "MaxThreads 2"; }
# found WORD: the result URLs, once searchd serves the live generation.
found() {
	local gen i out
	gen=$(readlink "$dd/index/current" | sed 's/^gen-0*//')
	for i in $(seq 150); do
		out=$("$cli" -s "$SD_ADDR" -p 100 "$1" 2>/dev/null)
		echo "$out" | head -1 | grep -q "generation $gen\b" && break
		sleep 0.2
	done
	echo "$out" | awk '/^[0-9]+\. /{ print $2 }' | sort | tr '\n' ' '
}

# ---- the first crawl
run crawl1
tap_is "$rc" 0 "the first crawl: exit 0"
tap_ok "$(grep -q 'nothing is due and no rank is busy: the crawl is over; the next URL is due in ' "$T/crawl1.log" && echo 1)" \
	"'nothing is due' says when the next URL will be: $(grep -o 'the next URL is due.*' "$T/crawl1.log")"
sd_start
tap_is "$(found vanishword)" "${WEB_URL}vanish.html " "vanish.html is found"
tap_is "$(found aboutword)" "${WEB_URL}about.html " "about.html is found"

# ---- -S: sites, the next URL due, the live generation
"$idx" -S "$conf" >"$T/stats.out" 2>"$T/stats.log"
tap_is "$?" 0 "-S: exit 0"
site_line=$(grep -A3 'Sites by URLs' "$T/stats.out" | tail -1)
urls=$(SQL "SELECT COUNT(*) FROM urlword WHERE deleted = 0")
ok200=$(SQL "SELECT COUNT(*) FROM urlword WHERE deleted = 0 AND status = 200")
errs=$(SQL "SELECT COUNT(*) FROM urlword WHERE deleted = 0 AND status BETWEEN 400 AND 599")
tap_ok "$(echo "$site_line" | grep -qE "^ +$urls +$ok200 +0 +$errs  ${WEB_URL}\$" && echo 1)" \
	"-S lists the site: $urls URLs, $ok200 indexed, 0 due, $errs errors: $site_line"
tap_ok "$(grep -qE 'Next URL due: in [0-9]+ h [0-9]+ min, at 20' "$T/stats.out" && echo 1)" \
	"-S says when the next URL is due: $(grep 'Next URL due' "$T/stats.out")"
tap_ok "$(grep -qE "Index: generation [0-9]+, [0-9]+ document\(s\), [1-9][0-9]* word\(s\), [0-9]+ posting\(s\), [1-9][0-9]* bytes, written 20" "$T/stats.out" && echo 1)" \
	"-S describes the live generation: $(grep 'Index:' "$T/stats.out")"

# ---- a 404 leaves the index without DeleteBad; -a -u recrawls one URL
mv "$T/site/vanish.html" "$T/vanish.html"
run gone -a -u "${WEB_URL}vanish.html"
tap_is "$rc" 0 "-a -u URL: exit 0"
tap_ok "$(grep -q -- '-u: 1 of 1 selected URL(s) are due now' "$T/gone.log" && echo 1)" "-a -u marks one URL due"
tap_is "$(status_of gone /vanish.html)" "404 " "only that URL is fetched: it answers 404"
tap_is "$(requests gone)" 1 "and nothing else is fetched ($(requests gone) request(s))"
tap_is "$(row vanish.html 'status, deleted')" "404	0" "without DeleteBad the row stays (status 404, not deleted)"
tap_is "$(found vanishword)" "" "the 404 page is no longer found after the crawl's merge"
tap_is "$(found aboutword)" "${WEB_URL}about.html " "the other pages still are"

mv "$T/vanish.html" "$T/site/vanish.html"
run back -a -u "${WEB_URL}vanish.html"
tap_is "$(status_of back /vanish.html)" "200 " "the page comes back: 200"
tap_is "$(found vanishword)" "${WEB_URL}vanish.html " "and is found again"

# ---- -m -u: a full GET of the selected URL only
run cond -a -u "${WEB_URL}about.html"
tap_is "$(status_of cond /about.html)" "304 " "-a -u: a conditional GET (304)"
run force -m -u "${WEB_URL}about.html"
tap_is "$(status_of force /about.html)" "200 " "-m -u: fetched in full (200), no conditional GET"
tap_is "$(requests force)" 1 "-m -u: nothing else is fetched"
tap_ok "$(grep -q 'about.html: 200 indexed' "$T/force.log" && echo 1)" \
	"-m -u: the page is parsed again, not skipped as unchanged"

# ---- -C: refusals
n0=$(SQL "SELECT COUNT(*) FROM urlword")
out=$("$idx" -C "$conf" 2>&1); rc=$?
tap_ok "$([ "$rc" = 2 ] && echo "$out" | grep -q -- '-C -w' && echo 1)" "-C without -u is refused (exit $rc): $out"
out=$("$idx" -C -u "${WEB_URL}about.html" "$conf" 2>&1 </dev/null); rc=$?
tap_ok "$([ "$rc" = 1 ] && echo "$out" | grep -q 'add -w' && echo 1)" \
	"-C on a non-terminal without -w deletes nothing (exit $rc): $(echo "$out" | tail -1)"
out=$("$idx" -S -u x "$conf" 2>&1); rc=$?
tap_is "$rc" 2 "-u with -S is refused: $out"
out=$("$idx" -C -w -u "no such thing" "$conf" 2>&1); rc=$?
tap_ok "$([ "$rc" = 1 ] && echo "$out" | grep -q 'neither a site' && echo 1)" "a pattern that is no pattern is an error: $out"
tap_is "$(SQL "SELECT COUNT(*) FROM urlword")" "$n0" "nothing was deleted"

# The question on a terminal: "n" keeps, "y" deletes.
ask() {
	python3 - "$1" "$idx" -C -u "${WEB_URL}about.html" "$conf" <<'PY'
import os, pty, sys, time
answer = sys.argv[1].encode() + b"\n"
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
out = b""
while b"[y/N]" not in out:
    out += os.read(fd, 1024)
os.write(fd, answer)
try:
    while True:
        b = os.read(fd, 1024)
        if not b:
            break
        out += b
except OSError:
    pass
_, st = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
sys.exit(os.waitstatus_to_exitcode(st))
PY
}
out=$(ask n); rc=$?
tap_ok "$([ "$rc" = 0 ] && echo "$out" | grep -q 'delete 1 URL(s)? \[y/N\]' && echo 1)" "-C asks on a terminal: $(echo "$out" | head -1)"
tap_is "$(row about.html 'COUNT(*)')" 1 "answered n: about.html stays"
out=$(ask y); rc=$?
tap_is "$rc" 0 "answered y: exit 0"
tap_is "$(row about.html 'COUNT(*)')" 0 "answered y: the urlword row of about.html is gone"
tap_is "$(for i in $(seq 0 15); do printf 'SELECT COUNT(*) FROM urlwords%02d WHERE url_id NOT IN (SELECT url_id FROM urlword) UNION ALL ' "$i"; done | sed 's/ UNION ALL $//' | SQL "$(cat)" | sort -u | tr '\n' ' ')" "0 " \
	"and its document row"
tap_ok "$(ls "$dd"/deltas/*.dlt >/dev/null 2>&1 && echo 1)" "a delta segment holds its DEL record"
run merge1 -D
tap_is "$rc" 0 "-D: exit 0"
tap_is "$(found aboutword)" "" "after -D about.html is not found"
tap_is "$(found widgetword)" "${WEB_URL}products/widget.html " "the others still are"

# ---- -C by LIKE pattern (several -u)
run like -C -w -u "${WEB_URL}products/%" -u "${WEB_URL}dup/o%"
tap_is "$rc" 0 "-C -w -u PATTERN -u PATTERN: exit 0"
tap_is "$(SQL "SELECT COUNT(*) FROM urlword WHERE url LIKE '${WEB_URL}products/%' OR url = '${WEB_URL}dup/one.html'")" 0 \
	"the URLs matching the patterns are gone"
tap_ok "$([ "$(SQL "SELECT COUNT(*) FROM urlword WHERE url LIKE '${WEB_URL}dup/%'")" -ge 2 ] && echo 1)" \
	"the others are not (dup/two.html, dup/three.html)"
run merge2 -D
tap_is "$(found widgetword)" "" "after -D products/widget.html is not found"
tap_is "$(found homeword | wc -w)" 1 "the home page still is"

# ---- -i -f FILE
cat >"$T/urls.txt" <<EOF
# URLs to add
${WEB_URL}about.html

http://elsewhere.invalid/page.html
not a url at all
${WEB_URL}products/widget.html
${WEB_URL}index.html
EOF
run ins -i -f "$T/urls.txt"
tap_is "$rc" 1 "-i -f: exit 1 when some lines were skipped"
tap_ok "$(grep -q "urls.txt:4: http://elsewhere.invalid/page.html is refused: no Server covers it" "$T/ins.log" && echo 1)" \
	"a URL outside every Server is refused, with its line and the reason"
tap_ok "$(grep -q "urls.txt:5: 'not a url at all' is not a URL" "$T/ins.log" && echo 1)" "a bad line is named with its number"
tap_ok "$(grep -q -- '-i: 2 new URL(s), 1 already known, 1 refused, 1 not URLs' "$T/ins.log" && echo 1)" \
	"-i counts: $(grep -o -- '-i: .*' "$T/ins.log")"
tap_is "$(row about.html 'status, index_status, next_index_time <= UNIX_TIMESTAMP()')" "0	0	1" \
	"the inserted URL waits for the next crawl"
run crawl2
tap_is "$(status_of crawl2 /about.html)$(status_of crawl2 /products/widget.html)" "200 200 " \
	"the next crawl fetches the inserted URLs"
tap_is "$(found aboutword)" "${WEB_URL}about.html " "and about.html is found again"

# ---- -C by site: a Server line removed
run site -C -w -u "127.0.0.1:$WEB_PORT"
tap_is "$rc" 0 "-C -w -u host:port: exit 0"
tap_is "$(SQL "SELECT COUNT(*) FROM urlword")" 0 "every URL of the site is gone"
run merge3 -D
tap_is "$(found homeword)" "" "after -D nothing of the site is found"
"$idx" -S "$conf" >"$T/stats2.out" 2>&1
tap_ok "$(grep -q 'Next URL due: never (no live URL)' "$T/stats2.out" && grep -qE 'Index: generation [0-9]+, 0 document' "$T/stats2.out" && echo 1)" \
	"-S of the emptied database: no URL due, no document"

kill -TERM "$SD_PID"
wait "$SD_PID"
tap_done
