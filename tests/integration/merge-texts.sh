#!/bin/bash
# merge-texts.sh - the docstore built from the TEXT records of the delta
# logs (doc/MERGE.md, step 8): the crawl writes each indexed page's stored
# columns and text beside its DOC, and the merge reads them there instead
# of reading urlwordsNN back.  A crawl's merge takes every fresh text from
# the logs and none from the database; the same deltas merged with
# MPSEEK_MERGE_TEXTS=db (every text from the database, as before TEXT
# records) give a generation equal file for file (cmp; the docstore by its
# documents, gen_same in lib.sh);
# a log of format version 2 (no TEXT records, as an older build wrote) is
# still merged, its texts read from the database, to the same generation.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
[ -x "$idx" ] || tap_skip_all "$idx not built"
[ -x "$NGINX" ] || tap_skip_all "nginx not found (Debian package nginx)"

T=$(tmp_dir)
test_web_start "$T/site"
mdb_start
conf=$T/mpseek.conf
write_conf "$conf" site "MinDelay 0" "ReadTimeOut 5" "Server $WEB_URL"
dd=$MDB_DIR/data-site

# docstore_counts LOG: "logs db" from the merge's docstore line.
docstore_counts() {
	sed -n 's/.*docstore written: [0-9]* document(s) copied, \([0-9]*\) from the delta logs, \([0-9]*\) read from the database.*/\1 \2/p' "$1" | tail -1
}

# ---- the crawl's own merge: every text from the logs
mpi_no_leak_check timeout 300 "$idx" "$conf" >"$T/crawl.out" 2>"$T/crawl.log"
tap_is "$?" 0 "crawl and merge: generation 1"
g1=$(readlink -f "$dd/index/current")
# The pages indexed (a DOC each; their log line "URL: 200 indexed, ...").
stored=$(grep -c ': 200 indexed, ' "$T/crawl.log")
c=$(docstore_counts "$T/crawl.log")
tap_ok "$([ "$stored" -gt 10 ] && [ "$c" = "$stored 0" ] && echo 1)" \
	"the docstore of the crawl's $stored pages: every text from the delta logs (logs, database: $c)"

# ---- a recrawl of the edited site whose merge dies: deltas kept
sed -i 's|version one\.|version two, with a <a href="added.html">new page</a>.|' "$T/site/changing.html"
printf '<!DOCTYPE html>\n<html><head><title>Added later</title></head>\n%s\n' \
	'<body><p>addedword, only in the second state.</p></body></html>' >"$T/site/added.html"
recrawl_merge_killed

# merge_as NAME [ENV...]: -D on a fresh copy of the pristine DataDir; the
# generation kept as $T/gen-NAME, the log as $T/NAME.log.
merge_as() {
	local name=$1 rc
	shift
	rm -rf "$dd"
	cp -a "$T/pristine" "$dd"
	[ -n "${PREP:-}" ] && $PREP
	mpi_no_leak_check env "$@" timeout 300 "$idx" -D "$conf" >"$T/$name.out" 2>"$T/$name.log"
	rc=$?
	tap_is "$rc" 0 "-D ($name)"
	[ "$rc" = 0 ] || tail -5 "$T/$name.log" | sed 's/^/# /'
	rm -rf "$T/gen-$name"
	cp -a "$(readlink -f "$dd/index/current")" "$T/gen-$name"
}
# same A B: every file but ranks equal (gen_same); the files that differ named.
same() {
	local ok
	ok=$(gen_same "$T/gen-$1" "$T/gen-$2")
	[ -s "$T/gen-$1/docstore" ] || ok=0
	echo "$ok"
}

merge_as logs
fresh=$(docstore_counts "$T/logs.log")
tap_ok "$(set -- $fresh; [ "${1:-0}" -ge 2 ] && [ "$2" = 0 ] && echo 1)" \
	"-D of the recrawl's deltas: the fresh texts from the logs, none from the database (logs, database: $fresh)"
merge_as db MPSEEK_MERGE_TEXTS=db
c=$(docstore_counts "$T/db.log")
tap_ok "$(set -- $fresh; [ "$c" = "0 $1" ] && echo 1)" \
	"MPSEEK_MERGE_TEXTS=db: the same texts read from the database (logs, database: $c)"
tap_ok "$(same logs db)" "the two generations are equal file for file (cmp; the docstore by its documents)"

# ---- deltas as a build before TEXT records wrote them: format version 2,
# without TEXT (and COMMIT) records, the other frames as they are
v2() {
	python3 - "$dd"/deltas/*.dlt <<'PY'
import struct, sys, zlib
for path in sys.argv[1:]:
    d = open(path, "rb").read()
    h = bytearray(d[:28])
    h[8:12] = struct.pack("<I", 2)
    h[24:28] = struct.pack("<I", zlib.crc32(bytes(h[:24])))
    out, off = bytearray(h), 28
    while off < len(d):
        n = struct.unpack_from("<I", d, off)[0]
        if d[off + 8] not in (6, 7):
            out += d[off:off + 9 + n]
        off += 9 + n
    open(path, "wb").write(out)
PY
}
PREP=v2 merge_as v2
c=$(docstore_counts "$T/v2.log")
tap_ok "$(set -- $fresh; [ "$c" = "0 $1" ] && echo 1)" \
	"logs of version 2 (no TEXT): the texts read from the database (logs, database: $c)"
tap_ok "$(same logs v2)" "that generation is equal too (cmp; the docstore by its documents)"
tap_done
