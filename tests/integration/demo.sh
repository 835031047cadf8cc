#!/bin/bash
# demo.sh - the README's first command, mpi-scripts/demo, on a small site:
# it finds free ports (or takes --port), prints the URL to open last with a
# working mpseek-search example, reruns idempotently on the same ports,
# refuses a taken --port clearly, moves off a saved port another program
# took, and `demo stop` leaves no process of its data directory running.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

[ -x /usr/sbin/nginx ] && [ -x /usr/sbin/fcgiwrap ] || tap_skip_all "nginx or fcgiwrap missing"
command -v mpirun >/dev/null || tap_skip_all "mpirun missing"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
# The demo runs mpirun: Open MPI's own leaks are not ours (see lib.sh).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

t=$(tmp_dir)
docs="$t/docs" data="$t/data"
mkdir -p "$docs"
for i in 1 2 3 4 5; do
	{ echo "<html><head><title>Demo page $i</title></head><body>"
	  echo "<p>page $i about zanzibarite minerals number$i</p>"
	  for j in 1 2 3 4 5; do echo "<a href=\"p$j.html\">p$j</a>"; done
	  echo "</body></html>"; } >"$docs/p$i.html"
done
cp "$docs/p1.html" "$docs/index.html"

export MPSEEK_DEMO_QUERY=zanzibarite MPSEEK_DEMO_DIR="$data" MPSEEK_DEMO_DOCS="$docs" MPSEEK_BUILD="$builddir"
demo="$srcdir/mpi-scripts/demo"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# hold PORT: a listener on PORT until the test ends
hold() {
	python3 -c 'import socket,sys,time
s=socket.socket(); s.bind(("127.0.0.1",int(sys.argv[1]))); s.listen(); time.sleep(600)' "$1" &
	echo $! >>"$t/holders"
	for _ in $(seq 50); do python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1",int(sys.argv[1])))' "$1" 2>/dev/null && return; sleep 0.1; done
}
cleanup() {
	"$demo" stop >/dev/null 2>&1
	[ -f "$t/holders" ] && kill $(cat "$t/holders") 2>/dev/null
	_lib_cleanup
}
trap cleanup EXIT
# processes of the demo's data directory still running (by command line or cwd)
leftovers() {
	local n=0 p
	for p in /proc/[0-9]*; do
		grep -qa -- "$data" "$p/cmdline" 2>/dev/null && n=$((n + 1))
	done
	echo $n
}

# 1. A run on a chosen search-page port.
port=$(free_port)
"$demo" -np 2 --port "$port" >"$t/run1.log" 2>&1
rc=$?
tap_is "$rc" 0 "the demo runs"
[ "$rc" = 0 ] || sed 's/^/# /' "$t/run1.log" | tail -20
last=$(tail -1 "$t/run1.log")
tap_is "$last" "demo: search page: open http://127.0.0.1:$port/s.cgi" "the URL to open is the last line, on --port"
page=$(curl -s "http://127.0.0.1:$port/s.cgi?q=zanzibarite+number3")
tap_ok "$(echo "$page" | grep -c 'Demo page 3')" "the search page finds a crawled page"
example=$(sed -n 's/^demo: search from the shell: //p' "$t/run1.log")
tap_ok "$(echo "$example" | grep -c mpseek-search)" "an mpseek-search example is printed"
tap_ok "$($example 2>&1 | grep -c 'Demo page')" "the printed mpseek-search example answers"
ports1=$(cat "$data/ports")

# 2. A rerun is idempotent: same ports, same URL.
"$demo" -np 2 --port "$port" >"$t/run2.log" 2>&1
tap_is "$?" 0 "a rerun succeeds"
tap_is "$(cat "$data/ports")" "$ports1" "a rerun keeps every port"
tap_is "$(tail -1 "$t/run2.log")" "$last" "a rerun prints the same URL"

# 3. A --port that another program holds is refused clearly.
taken=$(free_port); hold "$taken"
"$demo" -np 2 --port "$taken" >"$t/run3.log" 2>&1
rc=$?
tap_ok "$([ "$rc" -ne 0 ] && echo 1)" "a taken --port fails"
tap_ok "$(grep -c "port $taken is in use" "$t/run3.log")" "and says which port is in use"

# 4. stop stops everything it started.
"$demo" stop >"$t/stop.log" 2>&1
tap_is "$?" 0 "demo stop succeeds"
sleep 0.5
tap_is "$(leftovers)" 0 "no process of the demo's data directory is left"
tap_ok "$("$demo" status | grep -c stopped | grep -x 3)" "status says all three servers stopped"
"$demo" stop >/dev/null 2>&1
tap_is "$?" 0 "a second stop is harmless"

# 5. A saved port taken meanwhile by another program: a free one instead.
site=$(sed -n 's/^site //p' "$data/ports")
hold "$site"
"$demo" -np 2 >"$t/run5.log" 2>&1
tap_is "$?" 0 "the demo runs when its saved site port was taken"
tap_ok "$(grep -c "port $site (site) is taken" "$t/run5.log")" "and says so"
tap_ok "$([ "$(sed -n 's/^site //p' "$data/ports")" != "$site" ] && echo 1)" "the site moved to another port"
tap_ok "$(tail -1 "$t/run5.log" | grep -c '^demo: search page: open http://127.0.0.1:[0-9]*/s.cgi$')" "the URL is printed last"
"$demo" stop >/dev/null 2>&1
sleep 0.5
tap_is "$(leftovers)" 0 "stop again leaves nothing running"

tap_done
