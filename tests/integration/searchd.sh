#!/bin/bash
# searchd.sh - the query daemon against a real crawl of tests/data/web/site
# (private nginx and MariaDB): searchd started before any index answers
# ER_NOINDEX and picks up the first generation when the crawl publishes it;
# mpseek-search finds pages (text, JSON, cached copy) and so does s.cgi
# (fmt=json); the query log fills `stat`; hostile frames (truncated, wrong
# magic/version/type, oversized, garbage, lying counts, a stalled half
# frame, floods of connections) are refused while a good client keeps
# working; AllowFrom refuses an address it does not list; IPv6 (Listen
# ::1); a full queue answers ER_BUSY; a recrawl is picked up while a client
# queries in a loop without one failed query; a damaged generation is
# refused while the old one serves; SIGHUP forces a check; MySQL restarts
# are survived; -D daemonizes with a pid file; SIGTERM exits 0 at once; and
# under valgrind 10,000 queries (and the error paths) leak nothing.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
sd="$builddir/searchd"
cli="$builddir/mpseek-search"
load="$builddir/tests/helper/searchd-load"
hostile="$srcdir/tests/integration/searchd-hostile.py"
for p in "$idx" "$sd" "$cli" "$load"; do
	[ -x "$p" ] || tap_skip_all "$p not built"
done
[ -x "$NGINX" ] || tap_skip_all "nginx not found (Debian package nginx)"
command -v python3 >/dev/null 2>&1 || tap_skip_all "python3 not found"

T=$(tmp_dir)
test_web_start "$T/site"
mdb_start
conf=$T/mpseek.conf
write_conf "$conf" site "MinDelay 0" "ReadTimeOut 5" "MaxHops 6" "DeleteBad yes" \
	"Robots yes" "Server $WEB_URL"
dd=$MDB_DIR/data-site
mkdir -p "$dd"
SQL() { mdb_sql "$1" site; }

# sd_start NAME [LINE...]: searchd -F on a free port (sd_retry) with a
# private config (the crawl's DBAddr and DataDir, MaxThreads 4, and LINEs),
# run through $SD_WRAP (e.g. valgrind).  Sets SD_PID, SD_ADDR, SD_LOG,
# SD_CONF.
sd_start() {
	local name=$1 port
	shift
	local lines=("$@")
	SD_CONF=$T/$name.conf
	SD_LOG=$T/$name.log
	sd_retry sd_conf sd_exec "$SD_LOG" 1200 || { echo "Bail out! searchd did not start (see above)"; exit 1; }
}
# The WRITE and START of sd_start (its locals name and lines, port).
sd_conf() { write_conf "$SD_CONF" site "Port $port" "MaxThreads 4" "${lines[@]}"; }
sd_exec() { exec $SD_WRAP "$sd" -F -P "$T/$name.pid" "$SD_CONF" >"$T/$name.out" 2>"$SD_LOG"; }

# sd_stop PID: SIGTERM; sets SD_RC (exit status) and SD_TENTHS (tenths of
# seconds it took).
sd_stop() {
	local pid=$1 i
	kill -TERM "$pid" 2>/dev/null
	for i in $(seq 0 600); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid"
	SD_RC=$?
	SD_TENTHS=$i
}

Q() { "$cli" -s "$SD_ADDR" "$@"; }

# first_url QUERY...: the URL of the first result.
first_url() { Q "$@" | awk '/^1\. /{ print $2; exit }'; }

# wait_for COND_CMD...: run it every 0.2 s for up to 30 s until it succeeds.
wait_for() {
	local i
	for i in $(seq 150); do
		"$@" && return 0
		sleep 0.2
	done
	return 1
}

# ---- started before any index: ER_NOINDEX, then the first generation
sd_start main "AllowFrom 127.0.0.1 ::1" "SlowQueryTime 0"
main_pid=$SD_PID
main_log=$SD_LOG
tap_ok "$(Q --ping && echo 1)" "searchd answers PING before there is an index"
out=$(Q homeword 2>&1)
tap_is "$?:$out" "1:ER_NOINDEX: There is no index to search yet." \
	"a query before the first crawl gets ER_NOINDEX (exit 1)"
tap_ok "$(grep -q 'no index under .* yet' "$main_log" && echo 1)" "the log says there is no index yet"
out=$(Q --cached 1 2>&1)
tap_is "$?:$out" "1:ER_NOINDEX: no cached copy of 1" "a cached copy before the first crawl: ER_NOINDEX (exit 1)"

mpi_no_leak_check timeout 300 "$idx" "$conf" >"$T/crawl.out" 2>"$T/crawl.log"
tap_is "$?" 0 "the crawl publishes the first generation"
gen1=$(readlink "$dd/index/current" | sed 's/^gen-0*//')
has_results() { [ "$(first_url homeword)" != "" ]; }
wait_for has_results
tap_ok "$(has_results && echo 1)" "searchd picks up the first generation without a restart"
tap_ok "$(grep -q "serving index generation $gen1 " "$main_log" && echo 1)" \
	"the log names generation $gen1"

# ---- results
# A page without snippets keeps its hits' docstore fields alone (the next
# such page reads no block); the first page with snippets of the same hit
# (below: "the excerpt marks the query word") must then make its text.
for _ in 1 2; do Q -e 0 aboutword >"$T/noex"; done
tap_ok "$(grep -q 'about.html' "$T/noex" && ! grep -q '\*aboutword\*' "$T/noex" && echo 1)" \
	"a page without snippets: the hit, no excerpt"
home=$(first_url homeword)
tap_ok "$(echo "$home" | grep -qE "^${WEB_URL}(index\.html)?\$" && echo 1)" \
	"homeword: the home page first ($home)"
tap_is "$(first_url aboutword)" "${WEB_URL}about.html" "aboutword: about.html first"
tap_is "$(first_url changingword)" "${WEB_URL}changing.html" "changingword: changing.html first"
out=$(Q aboutword)
tap_ok "$(echo "$out" | grep -q '\*aboutword\*' && echo 1)" "the excerpt marks the query word"
tap_ok "$(echo "$out" | head -1 | grep -q "generation $gen1" && echo 1)" "the answer names its generation"
out=$(Q nosuchwordanywhere)
tap_ok "$([ $? = 0 ] && echo "$out" | head -1 | grep -q ': 0 URL(s)' && echo 1)" \
	"a word on no page: no results, exit 0"
out=$(Q -p 2 -n 2 --no-group web)
tap_ok "$([ $? = 0 ] && echo "$out" | grep -q '^3\. ' && echo 1)" "-n 2 -p 2: the second page starts at rank 3"
Q --json aboutword >"$T/about.json"
tap_ok "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["error"] is None and d["total_urls"] >= 1, d
h = d["results"][0]
assert h["url"].endswith("/about.html"), h["url"]
ex = h["excerpts"]
assert any(e["text"].encode()[a:b] == b"aboutword" for e in ex for a, b in e["highlights"]), ex
print(1)' "$T/about.json" 2>&1 | tail -1 | grep -x 1)" \
	"--json: a valid JSON answer, the hit, an excerpt whose span is the query word"
# ---- hits from the docstore: no statement for a repeated page with
# snippets, and the same page from a searchd on the generation without it
# (statements counted in MariaDB's general log: a live connection's
# Com_select reaches the global status only when it closes)
qs="aboutword homeword changingword web"
pages() { for q in $qs; do Q -p 10 "$q" | sed 1d; done; }
# selects CMD...: the SELECTs the database ran while CMD ran
selects() {
	local f=$MDB_DIR/general-$RANDOM.log
	mdb_sql "SET GLOBAL general_log_file = '$f', GLOBAL log_output = 'FILE', GLOBAL general_log = 1"
	"$@" >/dev/null
	mdb_sql "SET GLOBAL general_log = 0"
	grep -c "Query[[:space:]]*SELECT" "$f"
}
pages >"$T/pages-ds"
tap_is "$(selects pages)" 0 "a repeated page with snippets: searchd asks the database nothing"
gdir=$(readlink -f "$dd/index/current")
mv "$gdir/docstore" "$T/docstore.aside"
main_addr=$SD_ADDR
sd_start nods
pages >"$T/pages-db"
n_db=$(selects pages)
tap_diag "SELECTs for 4 repeated pages with snippets: docstore 0, database $n_db"
tap_ok "$(cmp -s "$T/pages-ds" "$T/pages-db" && grep -q '\*aboutword\*' "$T/pages-db" &&
	[ "$n_db" -ge 4 ] && echo 1)" \
	"without the docstore searchd reads the texts from the database: the same pages"
sd_stop "$SD_PID"
mv "$T/docstore.aside" "$gdir/docstore"
SD_ADDR=$main_addr
out=$(Q --cached "${WEB_URL}about.html" aboutword)
tap_ok "$([ $? = 0 ] && echo "$out" | grep -q '\*aboutword\*' && echo 1)" \
	"--cached URL: the stored text with the word marked"
id=$(SQL "SELECT url_id FROM urlword WHERE url = '${WEB_URL}about.html'")
out=$(Q --cached "$id")
tap_ok "$([ $? = 0 ] && echo "$out" | head -1 | grep -q "about.html (url_id $id" && echo 1)" "--cached ID"
out=$(Q --cached "${WEB_URL}no-such-page.html" 2>&1)
tap_is "$?" 1 "--cached of an unknown URL: refused (exit 1): $out"

# ---- s.cgi (the other client of the protocol) against this searchd
sed "s/^DaemonAddress .*/DaemonAddress $SD_ADDR/" "$srcdir/etc/s.htm" >"$T/s.htm"
env -i PATH="$PATH" ASAN_OPTIONS="${ASAN_OPTIONS:-}" LSAN_OPTIONS="${LSAN_OPTIONS:-}" \
	MPSEEK_TEMPLATE="$T/s.htm" REQUEST_METHOD=GET SCRIPT_NAME=/s.cgi \
	QUERY_STRING="q=aboutword&fmt=json" "$builddir/s.cgi" >"$T/cgi.out" 2>"$T/cgi.err"
tap_ok "$(tr -d '\r' <"$T/cgi.out" | sed '1,/^$/d' | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["results"][0]["url"].endswith("/about.html"), d
print(1)' 2>/dev/null)" "s.cgi fmt=json through this searchd finds about.html"

# mpseek-search --json and s.cgi fmt=json: one shape (doc/CGI.md, "JSON"),
# the same keys at every level and the same answer, for two queries (not
# grouped: s.cgi asks again ungrouped when one site matches, mpseek-search
# prints what searchd answered)
for q in web "aboutword web"; do
	Q --json --no-group "$q" >"$T/shape-cli.json"
	env -i PATH="$PATH" ASAN_OPTIONS="${ASAN_OPTIONS:-}" LSAN_OPTIONS="${LSAN_OPTIONS:-}" \
		MPSEEK_TEMPLATE="$T/s.htm" REQUEST_METHOD=GET SCRIPT_NAME=/s.cgi \
		QUERY_STRING="q=$(echo "$q" | tr ' ' '+')&fmt=json&gr=off" "$builddir/s.cgi" | tr -d '\r' |
		sed '1,/^$/d' >"$T/shape-cgi.json"
	tap_is "$(python3 - "$T/shape-cli.json" "$T/shape-cgi.json" 2>&1 <<'PY'
import json, sys
cli, cgi = (json.load(open(f)) for f in sys.argv[1:3])
def shape(v, path):
    # keys and JSON types; null stands for any type ("cached" is null without a web address)
    if isinstance(v, dict):
        return {k: shape(x, path + "." + k) for k, x in v.items()}
    if isinstance(v, list):
        return [shape(v[0], path + "[]")] if v else []
    return None if v is None else type(v).__name__.replace("int", "float")
def same(a, b, path="$"):
    if a is None or b is None:
        return []
    if isinstance(a, dict) and isinstance(b, dict):
        d = ["%s: key %s only in %s" % (path, k, "mpseek-search" if k in a else "s.cgi")
             for k in set(a) ^ set(b)]
        return d + [x for k in set(a) & set(b) for x in same(a[k], b[k], path + "." + k)]
    if isinstance(a, list) and isinstance(b, list):
        return same(a[0], b[0], path + "[]") if a and b else []
    return [] if a == b else ["%s: %s vs %s" % (path, a, b)]
diff = same(shape(cli, "$"), shape(cgi, "$"))
for k in ("query", "page", "page_size", "first", "last", "total_results", "total_urls",
          "total_sites", "generation", "words", "error"):
    if cli[k] != cgi[k]:
        diff.append("%s: %r vs %r" % (k, cli[k], cgi[k]))
if [r["url"] for r in cli["results"]] != [r["url"] for r in cgi["results"]]:
    diff.append("results differ")
if not cli["results"]:
    diff.append("no results to compare")
print("; ".join(diff[:5]) or "same")
PY
)" same "'$q': mpseek-search --json and s.cgi fmt=json answer in one shape"
done

# ---- the query log
stat_rows() { [ "$(SQL "SELECT COUNT(*) FROM stat WHERE query = 'aboutword' AND proxy = '127.0.0.1' AND addr = 'mpseek-search' AND urls >= 1 AND finish >= start")" -ge 1 ]; }
wait_for stat_rows
tap_ok "$(stat_rows && echo 1)" "the query log (stat) has the query, its client, counts and times"

# ---- hostile frames while a good client keeps working
"$load" -s "$SD_ADDR" -c 2 -r 200 -d 25 homeword aboutword changingword >"$T/load-hostile.out" 2>&1 &
load_pid=$!
H() { python3 "$hostile" 127.0.0.1 "${SD_ADDR##*:}" "$@"; }
tap_is "$(H good)" "results" "control: a well-formed request by hand gets RESULTS"
tap_is "$(H two-in-one)" "pong results" "two requests in one write are both answered in order"
for m in bad-magic http bad-version ping-payload bad-type answer-type huge-length over-cap garbage trailing \
	bad-utf8 lying-count; do
	tap_is "$(H $m)" "error ER_BADFRAME" "hostile frame ($m): ER_BADFRAME and closed"
done
out=$(H trunc-header)
tap_ok "$(echo "$out" | grep -qE '^closed' && echo 1)" "a truncated header then EOF: closed ($out)"
H stall >"$T/stall.out" &
stall_pid=$!
out=$(H flood 200)
tap_is "$out" "opened 200 answered 0" "200 connections holding half a frame: none answered"
out=$(H many-pings 200)
tap_is "$out" "pong 200" "200 connections sending PING at once: each gets its PONG"
wait "$stall_pid"
out=$(cat "$T/stall.out")
tap_ok "$(echo "$out" | awk '$1 == "closed" && $2 >= 4 && $2 <= 15 { ok = 1 } END { exit !ok }' && echo 1)" \
	"half a frame then silence: closed after the frame timeout ($out s)"
wait "$load_pid"
rc=$?
out=$(tail -1 "$T/load-hostile.out")
tap_ok "$([ "$rc" = 0 ] && echo "$out" | grep -q ' failed 0 ' && echo 1)" \
	"the good client never failed meanwhile: $out"
grep '^last error' "$T/load-hostile.out" | sed 's/^/# /'
tap_ok "$(kill -0 "$main_pid" && Q --ping && echo 1)" "searchd still runs and answers"
tap_ok "$(grep -q 'sent part of a frame and stalled' "$main_log" && echo 1)" "the stalled connection is logged"

# ---- AllowFrom
main_addr=$SD_ADDR
sd_start deny "AllowFrom 10.1.2.3 192.168.0.0/16"
out=$(Q homeword 2>&1)
tap_is "$?" 3 "AllowFrom without 127.0.0.1: the query is refused (exit 3)"
tap_ok "$(echo "$out" | grep -q 'ER_FORBIDDEN' && grep -q 'not in AllowFrom' "$SD_LOG" && echo 1)" \
	"ER_FORBIDDEN is answered and logged: $out"
sd_stop "$SD_PID"
tap_is "$SD_RC" 0 "that searchd stops with exit 0"

# ---- IPv6: Listen ::1, AllowFrom ::1
if python3 -c 'import socket; socket.socket(socket.AF_INET6).bind(("::1", 0))' 2>/dev/null; then
	sd_start v6 "Listen ::1" "AllowFrom ::1"
	SD_ADDR="[::1]:${SD_ADDR##*:}"
	tap_is "$(first_url aboutword)" "${WEB_URL}about.html" "Listen ::1, AllowFrom ::1: a query over IPv6"
	sd_stop "$SD_PID"
	tap_is "$SD_RC" 0 "that searchd stops with exit 0"
else
	tap_skip 2 "no IPv6 loopback here"
fi
SD_ADDR=$main_addr
SD_LOG=$main_log

# ---- a full queue: ER_BUSY (one worker made slow by the test hook)
MPSEEK_SEARCHD_DELAY_MS=100 sd_start busy "MaxThreads 1"
out=$(H many-pings 100)
tap_ok "$(echo "$out" | awk '{ for (i = 1; i < NF; i += 2) { n[$i] = $(i + 1); t += $(i + 1) } }
	END { exit !(t == 100 && n["pong"] >= 64 && n["error:ER_BUSY"] >= 1 && n["pong"] + n["error:ER_BUSY"] == 100) }' && echo 1)" \
	"100 PINGs at one slow worker with 64 places in the queue: the rest get ER_BUSY ($out)"
out=$(H crowd 1100)
tap_ok "$(echo "$out" | awk '$1 == "opened" && $2 == 1100 && $4 >= 1 && $4 <= 1100 - 768 && $6 != "never" && $6 <= 10 { ok = 1 } END { exit !ok }' && echo 1)" \
	"1100 idle connections: those over the cap get ER_BUSY, and crowded idle ones are closed within 10 s ($out)"
sd_stop "$SD_PID"
tap_is "$SD_RC" 0 "that searchd stops with exit 0"
SD_ADDR=$main_addr
SD_LOG=$main_log

# ---- hot reload: a recrawl while a client queries in a loop
cat >"$T/site/changing.html" <<'HTML'
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Changing page v2</title></head>
<body><p>changingword version two, and reloadword appears.</p></body></html>
HTML
"$load" -s "$SD_ADDR" -c 2 -r 200 -d 600 changingword homeword >"$T/load-reload.out" 2>&1 &
load_pid=$!
sleep 1
mpi_no_leak_check timeout 300 "$idx" -a "$conf" >"$T/recrawl.out" 2>"$T/recrawl.log"
tap_is "$?" 0 "recrawl of the changed site while searchd serves"
gen2=$(readlink "$dd/index/current" | sed 's/^gen-0*//')
new_gen() { grep -q "now serving index generation $gen2 " "$main_log"; }
wait_for new_gen
sleep 1
kill -INT "$load_pid"
wait "$load_pid"
out=$(tail -1 "$T/load-reload.out")
gens=$(grep '^generations:' "$T/load-reload.out")
tap_ok "$(echo "$out" | grep -q ' failed 0 ' && echo "$out" | grep -q ' refused 0 ' && echo 1)" \
	"no query failed during the reload: $out"
grep -E '^(token|last error)' "$T/load-reload.out" | sed 's/^/# /'
grep -E ' (error|warning): ' "$main_log" | grep -v 'stalled\|ER_BADFRAME\|bad magic\|not a request\|request of\|bad frame\|unsupported\|unknown message\|over the size' | tail -5 | sed 's/^/# /'
tap_ok "$(echo "$gens" | grep -qw "$gen1" && echo "$gens" | grep -qw "$gen2" && echo 1)" \
	"the loop saw the old and the new generation ($gens)"
tap_is "$(first_url reloadword)" "${WEB_URL}changing.html" "the new page's word is found after the reload"

# ---- a damaged generation is refused, the old one keeps serving
good=$(readlink "$dd/index/current")
bad=$(printf 'gen-%08d' $((gen2 + 10)))
cp -a "$dd/index/$good" "$dd/index/$bad"
sed -i "s/^generation .*/generation $((gen2 + 10))/" "$dd/index/$bad/FORMAT"
f=$(cd "$dd/index/$bad" && ls -S */urls | head -1)
printf '\xff' | dd of="$dd/index/$bad/$f" bs=1 seek=40 conv=notrunc 2>/dev/null
ln -sfn "$bad" "$dd/index/current.new" && mv -T "$dd/index/current.new" "$dd/index/current"
refused() { grep -q "refusing the index generation .*$bad" "$main_log"; }
wait_for refused
tap_ok "$(refused && echo 1)" "a generation with a flipped byte in $f is refused: $(grep -o 'refusing.*' "$main_log" | head -1 | cut -c1-160)"
out=$("$load" -s "$SD_ADDR" -c 2 -n 200 changingword)
tap_ok "$(echo "$out" | grep -q "^generations: $gen2\$" && echo "$out" | grep -q ' failed 0 ' && echo 1)" \
	"the old generation $gen2 keeps answering: $(echo "$out" | tr '\n' ' ')"
n1=$(grep -c "refusing the index generation" "$main_log")
kill -HUP "$main_pid"
hup() { [ "$(grep -c "refusing the index generation" "$main_log")" -gt "$n1" ]; }
wait_for hup
tap_ok "$(hup && grep -q 'SIGHUP: opening' "$main_log" && echo 1)" "SIGHUP checks index/current again (and refuses it again)"
ln -sfn "$good" "$dd/index/current.new" && mv -T "$dd/index/current.new" "$dd/index/current"
rm -rf "${dd:?}/index/$bad"

# ---- MySQL restarts under searchd
sleep 0.5 # the query log's queue empties
nstat=$(SQL "SELECT COUNT(*) FROM stat")
mdb_restart
out=$(Q aboutword)
tap_ok "$([ $? = 0 ] && echo "$out" | grep -q 'about.html' && echo 1)" "after a MySQL restart the query still gets its page"
stat_after() { [ "$(SQL "SELECT COUNT(*) FROM stat")" -gt "$nstat" ]; }
Q aboutword >/dev/null
wait_for stat_after
tap_ok "$(stat_after && echo 1)" "the query log reconnects too (rows after the restart)"

# ---- SIGTERM: running queries finish, exit 0 within seconds
"$load" -s "$SD_ADDR" -c 4 -r 200 -d 600 homeword >"$T/load-term.out" 2>&1 &
load_pid=$!
sleep 1
sd_stop "$main_pid"
tap_is "$SD_RC" 0 "SIGTERM under load: exit 0"
tap_ok "$([ "$SD_TENTHS" -le 50 ] && echo 1)" "... within 5 s (${SD_TENTHS}/10 s)"
kill -INT "$load_pid" 2>/dev/null
wait "$load_pid"
tap_ok "$(grep -q 'stopped after' "$main_log" && [ ! -e "$T/main.pid" ] && echo 1)" \
	"the stop is logged and the pid file removed"

# ---- -D: a daemon with a pid file
port=$((20000 + (RANDOM * 32768 + RANDOM) % 12000))
write_conf "$T/daemon.conf" site "Port $port"
"$sd" -D -P "$T/daemon.pid" -l "$T/daemon.log" "$T/daemon.conf" 2>"$T/daemon.err"
rc=$?
dpid=$(cat "$T/daemon.pid" 2>/dev/null)
tap_ok "$([ "$rc" = 0 ] && [ -n "$dpid" ] && kill -0 "$dpid" && "$cli" -s "127.0.0.1:$port" --ping && echo 1)" \
	"-D: detaches (exit 0), writes its pid and answers"
"$sd" -D -P "$T/daemon.pid" -l "$T/daemon2.log" "$T/daemon.conf" 2>/dev/null
rc2=$?
tap_ok "$([ "$rc2" != 0 ] && echo 1)" "a second searchd on the same pid file refuses to start ($rc2)"
# Log rotation: the file moved away, SIGHUP opens a new one at the same path.
mv "$T/daemon.log" "$T/daemon.log.1"
kill -HUP "$dpid"
rotated() { grep -q 'SIGHUP: log file .*daemon.log reopened' "$T/daemon.log" 2>/dev/null; }
wait_for rotated
tap_ok "$(rotated && "$cli" -s "127.0.0.1:$port" --ping && echo 1)" \
	"SIGHUP after a rotation: a new daemon.log is written and searchd still answers"
kill -TERM "$dpid" 2>/dev/null
gone() { ! kill -0 "$dpid" 2>/dev/null; }
wait_for gone
tap_ok "$(gone && [ ! -e "$T/daemon.pid" ] && echo 1)" "-D: SIGTERM stops it and removes the pid file"

# ---- valgrind: 10,000 queries, no leak, no error
if ! command -v valgrind >/dev/null 2>&1; then
	tap_skip 2 "valgrind is not installed"
elif nm "$sd" 2>/dev/null | grep -q __asan_init; then
	tap_skip 2 "a sanitizer build (valgrind cannot run it)"
else
	SD_WRAP="valgrind --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect --error-exitcode=99 --log-file=$T/valgrind.log"
	sd_start vg
	SD_WRAP=
	out=$("$load" -s "$SD_ADDR" -c 4 -n 10000 homeword aboutword 'changingword OR reloadword' \
		'"test web"' nosuchword 2>&1)
	# the other paths once each: cached copies, bad frames, a stall, busy
	Q --cached "${WEB_URL}about.html" aboutword >/dev/null
	Q --cached 999999 >/dev/null
	for m in garbage trailing huge-length bad-utf8 two-in-one trunc-header; do H $m >/dev/null; done
	tap_ok "$(echo "$out" | grep -q 'requests 10000 .* failed 0 ' && echo 1)" \
		"10,000 queries under valgrind: $(echo "$out" | tail -1)"
	sd_stop "$SD_PID"
	rc=$SD_RC
	tap_ok "$([ "$rc" = 0 ] && grep -q 'ERROR SUMMARY: 0 errors' "$T/valgrind.log" && echo 1)" \
		"valgrind: no error and no leak (exit $rc): $(grep -E 'ERROR SUMMARY|definitely' "$T/valgrind.log" | tr '\n' ' ' | cut -c1-200)"
	[ "$rc" = 0 ] || grep -A12 'definitely lost in\|Invalid' "$T/valgrind.log" | head -40 | sed 's/^/# /'
fi

tap_done
