#!/bin/bash
# damage.sh - a changed byte in any file of an index generation is found
# (doc/RELIABILITY.md): for each kind of file (ranks, citations/direct and
# reverse, NNw/ind, sites, urls, words, docinfo) one byte flipped in a copy
# of the generation makes `mpseek-index --check` fail naming that file, and
# a running searchd refuses the copy when `current` points to it, still
# serving the good one; then bytes changed in the generation searchd has
# mapped make a query fail, the log names file and offset, searchd checks
# the generation again and falls back to the previous one, which answers.
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
write_conf "$conf" site "MinDelay 0" "ReadTimeOut 5" "MaxHops 6" "Server $WEB_URL"
dd=$MDB_DIR/data-site
mkdir -p "$dd"

port=$((20000 + (RANDOM * 32768 + RANDOM) % 12000))
write_conf "$T/sd.conf" site "Port $port" "MaxThreads 2"
SD_ADDR=127.0.0.1:$port
SD_LOG=$T/sd.log
Q() { "$cli" -s "$SD_ADDR" "$@"; }
wait_for() {
	local i
	for i in $(seq 150); do
		"$@" && return 0
		sleep 0.2
	done
	return 1
}
# point DataDir/index/current at generation directory $1 (atomically)
set_current() {
	ln -sfn "$1" "$dd/index/current.new" && mv -T "$dd/index/current.new" "$dd/index/current"
}
# flip BYTE_OFFSET FILE: xor one byte with 0x5a, in place
flip() {
	python3 - "$1" "$2" <<'PY'
import sys
off, path = int(sys.argv[1]), sys.argv[2]
with open(path, "r+b") as f:
    f.seek(off); b = f.read(1); f.seek(off); f.write(bytes([b[0] ^ 0x5a]))
PY
}

timeout 300 "$idx" "$conf" >"$T/crawl.out" 2>"$T/crawl.log"
tap_is "$?" 0 "a crawl publishes generation 1"
good=$(readlink "$dd/index/current")
tap_ok "$([ -f "$dd/index/$good/ranks" ] && [ -f "$dd/index/$good/citations/reverse" ] && echo 1)" \
	"the generation has ranks and citations"
out=$("$idx" --check "$conf" 2>&1)
tap_is "$?" 0 "--check passes the clean generation"

"$sd" -F "$T/sd.conf" >"$T/sd.out" 2>"$SD_LOG" </dev/null &
sd_pid=$!
serving() { grep -q "serving index generation" "$SD_LOG"; }
wait_for serving
tap_ok "$(Q homeword | grep -q '^1\. ' && echo 1)" "searchd answers from $good"

# ---- one byte flipped in each kind of file of a copy
big=$(cd "$dd/index/$good" && ls -S */urls | head -1 | cut -d/ -f1)
n=0
for rel in ranks citations/direct citations/reverse "$big/ind" "$big/sites" "$big/urls" \
	"$big/words" docinfo; do
	n=$((n + 1))
	g=$((1000 + n))
	copy=$(printf 'gen-%08d' $g)
	cp -a "$dd/index/$good" "$dd/index/$copy"
	sed -i "s/^generation .*/generation $g/" "$dd/index/$copy/FORMAT"
	size=$(stat -c %s "$dd/index/$copy/$rel")
	flip $((size - 3)) "$dd/index/$copy/$rel"
	set_current "$copy"
	out=$("$idx" --check "$conf" 2>&1)
	rc=$?
	tap_ok "$([ $rc = 1 ] && echo "$out" | grep -q "^$rel: offset [0-9]*: .*crc mismatch" && echo 1)" \
		"--check: a byte of $rel flipped is found (exit $rc): $(echo "$out" | grep -m1 "^$rel" | cut -c1-120)"
	refused() { grep -q "refusing the index generation .*$copy: .*$rel: offset" "$SD_LOG"; }
	wait_for refused
	tap_ok "$(refused && echo 1)" "searchd refuses the copy with $rel damaged, naming it"
	tap_ok "$(Q homeword | head -1 | grep -q "generation $((10#${good#gen-}))," && echo 1)" \
		"and still answers from $good"
	set_current "$good"
	rm -rf "${dd:?}/index/$copy"
done

# ---- ranks of an older format version are not carried into a new generation
python3 - "$dd/index/$good/ranks" <<'PY'
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
struct.pack_into("<I", b, 8, 1)     # the version field of a version-1 ranks file
open(p + ".v1", "wb").write(b)
PY
mv "$dd/index/$good/ranks.v1" "$dd/index/$good/ranks"
timeout 300 "$idx" -D "$conf" >"$T/merge-v1.out" 2>"$T/merge-v1.log"
tap_is "$?" 0 "a merge over a generation whose ranks are version 1"
tap_ok "$(grep -q 'merge: not keeping ranks and citations: .*ranks: offset 8: format version 1' "$T/merge-v1.log" && echo 1)" \
	"the merge does not hard-link them into the new generation, and says so"
good=$(readlink "$dd/index/current")
served() { grep -q "now serving index generation $((10#${good#gen-})) " "$SD_LOG"; }
wait_for served
tap_ok "$(served && Q homeword | grep -q '^1\. ' && echo 1)" "searchd serves the new generation $good"

# ---- bytes changed in the generation being served: log, check, fall back
cat >>"$T/site/about.html" <<'HTML'
<p>secondword</p>
HTML
timeout 300 "$idx" -a "$conf" >"$T/recrawl.out" 2>"$T/recrawl.log"
tap_is "$?" 0 "a recrawl publishes a second generation"
second=$(readlink "$dd/index/current")
new_gen() { grep -q "now serving index generation $((10#${second#gen-})) " "$SD_LOG"; }
wait_for new_gen
tap_ok "$(new_gen && echo 1)" "searchd serves $second"
# The first generation shares no inode with the second (a later flip must
# not reach it through a hard link).
cp -a "$dd/index/$good" "$dd/index/$good.x" && rm -rf "${dd:?}/index/$good" &&
	mv "$dd/index/$good.x" "$dd/index/$good"
part=$(python3 -c '
h = 2166136261
for b in b"homeword":
    h = ((h ^ b) * 16777619) & 0xffffffff
print("%02d" % (h % 100))')
sites="$dd/index/$second/${part}w/sites"
python3 - "$sites" <<'PY'
import os, sys
p = sys.argv[1]
n = os.path.getsize(p) - 32
with open(p, "r+b") as f:
    f.seek(32); f.write(b"\xff" * n)
PY
out=$(Q homeword 2>&1)
tap_ok "$(echo "$out" | grep -q 'ER_INDEX' && echo 1)" "a query reading the damage gets ER_INDEX: $out"
logged() { grep -q "$second/${part}w/sites: offset [0-9]*: .*the index is damaged" "$SD_LOG"; }
wait_for logged
tap_ok "$(logged && echo 1)" "searchd's log names the file and offset: $(grep -m1 "$second/${part}w/sites: offset" "$SD_LOG" | cut -c30-250)"
fell() { grep -q "falling back to the previous index generation $((10#${good#gen-}))" "$SD_LOG"; }
wait_for fell
tap_ok "$(fell && grep -q "index generation $((10#${second#gen-})) is damaged: ${part}w/sites" "$SD_LOG" && echo 1)" \
	"searchd checks $second again, finds ${part}w/sites damaged and falls back to $good"
out=$(Q homeword 2>&1)
tap_ok "$(echo "$out" | head -1 | grep -q "generation $((10#${good#gen-}))" && echo "$out" | grep -q '^1\. ' && echo 1)" \
	"the query is answered from $good again: $(echo "$out" | head -1)"
kill -HUP "$sd_pid"
rehup() { [ "$(grep -c "refusing the index generation .*$second" "$SD_LOG")" -ge 1 ]; }
wait_for rehup
tap_ok "$(rehup && Q homeword | grep -q '^1\. ' && echo 1)" \
	"SIGHUP opens current again, refuses the damaged $second and keeps serving $good"
kill -TERM "$sd_pid"
wait "$sd_pid"
tap_is "$?" 0 "searchd exits 0"

tap_done
