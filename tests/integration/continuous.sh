#!/bin/bash
# continuous.sh - mpseek-index --continuous against a small site of its own
# (private nginx and MariaDB) running for minutes while searchd answers every
# query: a page edited on disk, again and again, is found by its new words
# after its next due fetch and publish, with no command typed; -E stops the crawl cleanly (exit 0, no claim left, the
# index holds every page fetched); a restart under mpseek-run -np 2 picks up
# a new page, and SIGTERM to mpseek-run stops it cleanly; a SIGTERM in the
# middle of a round publishes what the round fetched, and the restart
# fetches the rest; PublishInterval and PublishPages end rounds.  The
# systemd units pass systemd-analyze verify.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
sd="$builddir/searchd"
cli="$builddir/mpseek-search"
run="$srcdir/mpi-scripts/mpseek-run"
for p in "$idx" "$sd" "$cli"; do
	[ -x "$p" ] || tap_skip_all "$p not built"
done
[ -x "$NGINX" ] || tap_skip_all "nginx not found (Debian package nginx)"
command -v "$MPIRUN" >/dev/null 2>&1 || tap_skip_all "mpirun not found"

T=$(tmp_dir)
site=$T/site
mkdir -p "$site"
page() { # page FILE TITLE WORDS [LINKS...]
	local f=$1 t=$2 w=$3 l
	shift 3
	{
		echo "<html><head><title>$t</title></head><body><p>$w</p>"
		for l in "$@"; do echo "<a href=\"$l\">$l</a>"; done
		echo "</body></html>"
	} >"$site/$f"
}
page index.html Home "homeword" a.html b.html
page a.html A "alphaword common"
page b.html B "betaword common"
web_start "$site"
mdb_start
conf=$T/mpseek.conf
# Pages fall due 3 s after their fetch; a round publishes after 20 pages or
# 3 s at the latest.
write_conf "$conf" site "MinDelay 0" "ReadTimeOut 5" "Period 3s" "PublishPages 20" \
	"PublishInterval 3" "Server $WEB_URL"
dd=$MDB_DIR/data-site
SQL() { mdb_sql "$1" site; }

# sd_start: searchd on a free port (sd_retry), config $T/sd.conf, log
# $T/sd.log; sets SD_PID and SD_ADDR.
sd_start() {
	local port
	sd_retry sd_conf sd_exec "$T/sd.log" 600 || { echo "Bail out! searchd did not start (see above)"; exit 1; }
}
# The WRITE and START of sd_start.
sd_conf() { write_conf "$T/sd.conf" site "Port $port" "MaxThreads 2"; }
sd_exec() { exec "$sd" -F -P "$T/sd.pid" "$T/sd.conf" >"$T/sd.out" 2>"$T/sd.log"; }
# urls WORD: the URLs searchd finds now.
urls() { "$cli" -s "$SD_ADDR" -p 100 "$1" 2>/dev/null | awk '/^[0-9]+\. /{ print $2 }' | sort | tr '\n' ' '; }
# wait_found WORD WANT SECONDS: until searchd finds exactly WANT for WORD;
# prints what it found last.
wait_found() {
	local i got=""
	for i in $(seq $(($3 * 5))); do
		got=$(urls "$1")
		[ "$got" = "$2" ] && break
		sleep 0.2
	done
	echo "$got"
}
# cont NAME [args]: a continuous crawl in the background (its -t bounds it),
# its log in $T/NAME.log, its pid in $CPID.
cont() {
	local name=$1
	shift
	# exec: $CPID is the program itself, which the test signals.
	(
		export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
		exec "$@" "$conf" >"$T/$name.out" 2>"$T/$name.log" </dev/null
	) &
	CPID=$!
}
# ended PID SECONDS: the exit status of PID once it ended into $ERC,
# "running" if it did not within SECONDS.
ended() {
	local i
	for i in $(seq $(($2 * 10))); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	ERC=running
	kill -0 "$1" 2>/dev/null && return
	wait "$1"
	ERC=$?
}
claims() { SQL "SELECT COUNT(*) FROM urlword WHERE index_status = 2"; }
# lost: url_ids of pages stored with status 200 that the live index lacks
# (empty when nothing is lost).
lost() {
	comm -23 <(SQL "SELECT url_id FROM urlword WHERE status = 200 AND deleted = 0" | sort -u) \
		<("$idx" --dump-index "$conf" 2>/dev/null | cut -f2 | sort -u) | tr '\n' ' '
}

# ---- a lone continuous crawl for minutes, searchd answering, a page edited
# on disk again and again
out=$("$idx" --continuous -D "$conf" 2>&1); rc=$?
tap_ok "$([ "$rc" = 2 ] && echo 1)" "--continuous with -D is refused (exit $rc): $out"
cont one "$idx" --continuous -t 400
for i in $(seq 100); do
	[ -e "$dd/index/current" ] && break
	sleep 0.2
done
t_start=$(date +%s)
sd_start
tap_is "$(wait_found alphaword "${WEB_URL}a.html " 10)" "${WEB_URL}a.html " \
	"the first round is published and searchd finds a.html"
gen1=$(readlink "$dd/index/current")
# All the while a client asks searchd for b.html, which never changes, twice
# a second: every answer must find it, across every generation switch.
(
	while [ ! -e "$T/asking.stop" ]; do
		if [ "$(urls betaword)" = "${WEB_URL}b.html " ]; then echo ok; else echo miss; fi
		sleep 0.5
	done >"$T/asking.out"
) &
ask_pid=$!
sleep 1.1   # a new mtime for nginx's validators
page a.html A "gammaword common"
tap_is "$(wait_found gammaword "${WEB_URL}a.html " 20)" "${WEB_URL}a.html " \
	"the edited page is found by its new word, with no command typed"
tap_is "$(urls alphaword)" "" "and no longer by its old one"
tap_ok "$([ "$(readlink "$dd/index/current")" != "$gen1" ] && echo 1)" \
	"a later generation is live ($gen1 -> $(readlink "$dd/index/current"))"
# The crawl runs on for minutes (CONTINUOUS_SECONDS, 120 by default): a.html
# edited every 15 s, each edit found by its new word after its next due
# fetch and publish, none typed.
edits=0 edits_found=0
while [ $(($(date +%s) - t_start)) -lt "${CONTINUOUS_SECONDS:-120}" ]; do
	sleep 14
	edits=$((edits + 1))
	page a.html A "editword$edits common"
	[ "$(wait_found "editword$edits" "${WEB_URL}a.html " 20)" = "${WEB_URL}a.html " ] &&
		edits_found=$((edits_found + 1))
done
touch "$T/asking.stop"
wait "$ask_pid"
tap_ok "$([ "$edits" -ge 1 ] && [ "$edits_found" = "$edits" ] && echo 1)" \
	"for $(($(date +%s) - t_start)) s: $edits_found of $edits later edits found by their new words"
# The client asks twice a second: at least one answer a second on average
# (a sanitizer build answers slower, and runs shorter: tests/run-all).
tap_ok "$([ "$(grep -c ok "$T/asking.out")" -ge $(($(date +%s) - t_start)) ] && ! grep -q miss "$T/asking.out" && echo 1)" \
	"searchd answered all the while: $(grep -c ok "$T/asking.out") queries found b.html, $(grep -c miss "$T/asking.out") did not"
tap_ok "$(kill -0 "$CPID" 2>/dev/null && echo 1)" "the crawl still runs"
kill -0 "$CPID" 2>/dev/null || tail -5 "$T/one.log" | sed 's/^/# /'
tap_ok "$(grep -q "progress: waiting: nothing is due; the next URL is due in [0-9]* s, at 20.*UTC: ${WEB_URL}[a-z.]*\$" "$T/one.log" && echo 1)" \
	"while it waits, the progress line says what is due next and when: $(grep -m1 -o 'progress: waiting.*' "$T/one.log")"
tap_ok "$(grep -q 'continuous crawl: round [0-9]* fetched [1-9][0-9]* page(s); publishing' "$T/one.log" && echo 1)" \
	"each round with pages publishes: $(grep -c 'publishing' "$T/one.log") round(s)"
"$idx" -E "$conf" >"$T/stop1.out" 2>&1
tap_is "$?" 0 "-E: exit 0"
ended "$CPID" 20
tap_is "$ERC" 0 "the continuous crawl ends with exit 0"
tap_is "$(claims)" 0 "no claim is left"
tap_ok "$([ ! -e "$dd/mpseek-index.pid" ] && echo 1)" "its pid file is gone"
tap_is "$(lost)" "" "every page fetched is in the index"

# ---- restart under mpseek-run -np 2: a new page is found; SIGTERM stops it
page c.html C "deltaword common"
sleep 1.1
page index.html Home "homeword" a.html b.html c.html
cont two "$run" --index "$idx" -np 2 -- --continuous -t 100
tap_is "$(wait_found deltaword "${WEB_URL}c.html " 25)" "${WEB_URL}c.html " \
	"-np 2: a page linked after the restart is found"
tap_ok "$(grep -q 'rank 1 crawling into' "$T/two.log" && echo 1)" "rank 1 crawled"
kill -TERM "$CPID"
ended "$CPID" 30
tap_is "$ERC" 0 "SIGTERM to mpseek-run: exit 0"
tap_is "$(claims)" 0 "no claim is left"
tap_is "$(lost)" "" "every page fetched is in the index"

# ---- a stop in the middle of a round publishes what the round fetched
links=()
for n in $(seq 1 8); do
	page "p$n.html" "P$n" "pword$n common"
	links+=("p$n.html")
done
sleep 1.1
page index.html Home "homeword" a.html b.html c.html "${links[@]}"
# One request a second: the 12 due pages take 12 s, and PublishInterval
# publishes every 4 s on the way.
sed -i 's/^MinDelay 0$/MinDelay 1/; s/^PublishInterval 3$/PublishInterval 4/' "$conf"
cont three "$idx" --continuous -t 100
# Stopped once PublishInterval ended a round and two new pages are in.
for i in $(seq 200); do
	grep -q 'time limit of 4 s reached' "$T/three.log" &&
		[ "$(SQL "SELECT COUNT(*) FROM urlword WHERE url LIKE '%/p_.html' AND status = 200")" -ge 2 ] && break
	sleep 0.1
done
kill -TERM "$CPID"
ended "$CPID" 30
tap_is "$ERC" 0 "SIGTERM in the middle of a round: exit 0"
got=$(SQL "SELECT COUNT(*) FROM urlword WHERE url LIKE '%/p_.html' AND status = 200")
tap_ok "$([ "$got" -ge 2 ] && [ "$got" -lt 8 ] && echo 1)" "the round was stopped with $got of 8 new pages fetched"
tap_ok "$(grep -q 'continuous crawl: round [0-9]* fetched [1-9][0-9]* page(s); publishing' "$T/three.log" && echo 1)" \
	"what it fetched is published: $(grep -o 'round [0-9]* fetched [1-9].*' "$T/three.log" | tail -1)"
tap_ok "$(grep -q 'time limit of 4 s reached' "$T/three.log" && echo 1)" \
	"PublishInterval 4 ended a round that still had work: $(grep -c 'publishing' "$T/three.log") round(s) published"
tap_is "$(claims)" 0 "no claim is left"
tap_is "$(lost)" "" "every page fetched is in the index"
# Every page is due again: rounds of PublishPages 4.
sed -i 's/^MinDelay 1$/MinDelay 0/; s/^PublishInterval 4$/PublishInterval 30/; s/^PublishPages 20$/PublishPages 4/' "$conf"
cont four "$idx" --continuous -t 100
found=0
for n in $(seq 1 8); do
	[ "$(wait_found "pword$n" "${WEB_URL}p$n.html " 20)" = "${WEB_URL}p$n.html " ] && found=$((found + 1))
done
tap_is "$found" 8 "the restart fetches the rest: all 8 new pages are found"
big=$(grep -o 'round [0-9]* fetched [0-9]* page' "$T/four.log" | awk '$4 > 4' | head -1)
tap_ok "$([ -z "$big" ] && grep -q 'round [0-9]* fetched 4 page(s); publishing' "$T/four.log" && echo 1)" \
	"PublishPages 4: rounds of 4 pages at most ($(grep -c publishing "$T/four.log") published)${big:+; $big}"
"$idx" -E "$conf" >/dev/null 2>&1
ended "$CPID" 20
tap_is "$ERC" 0 "-E: exit 0"
tap_is "$(claims)" 0 "no claim is left"
tap_is "$(lost)" "" "nothing was lost over four runs and three kinds of stop"
kill -TERM "$SD_PID"
wait "$SD_PID" 2>/dev/null

# ---- the systemd units, with the paths of this tree
if command -v systemd-analyze >/dev/null 2>&1; then
	mkdir -p "$T/units" "$T/share/mpseek"
	ln -s "$srcdir/mpi-scripts" "$T/share/mpseek/mpi-scripts"
	for u in mpseek-db mpseek-searchd mpseek-crawl; do
		sed -e "s|@bindir@|$(cd "$builddir" && pwd)|g" -e "s|@pkgdatadir@|$T/share/mpseek|g" \
			-e "s|@sysconfdir@|$T|g" -e "s|@docdir@|$srcdir/doc|g" \
			"$srcdir/etc/systemd/$u.service.in" >"$T/units/$u.service"
	done
	cp "$T/sd.conf" "$T/searchd.conf"
	out=$(cd "$T/units" && SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no \
		./mpseek-db.service ./mpseek-searchd.service ./mpseek-crawl.service 2>&1 |
		grep -v -e 'Failed to .* bus' -e '^$')
	tap_is "$out" "" "systemd-analyze verify accepts the three units"
	tap_ok "$(grep -q -- '--continuous' "$T/units/mpseek-crawl.service" &&
		grep -q '^KillMode=mixed' "$T/units/mpseek-crawl.service" && echo 1)" \
		"the crawl unit runs --continuous and signals mpseek-run alone"
else
	tap_skip 2 "systemd-analyze not found"
fi
tap_done
