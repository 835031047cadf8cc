#!/bin/bash
# diskfull.sh - a full disk under the DataDir (doc/RELIABILITY.md): the
# DataDir on an 8 MB tmpfs, the tables on the private MariaDB elsewhere.
#   * a crawl whose delta log cannot be written (the file system filled
#     by a file of zeros) fails with a message naming the path and
#     "No space left on device"; the live generation is as it was (--check
#     passes, the same postings); no empty file is left in the DataDir;
#   * a merge (-D) that cannot write its generation (no room at all, or
#     96 KB: less than the generation) fails the same way, publishes
#     nothing, leaves no temporary generation and keeps its deltas;
#   * with room again, a rerun and a merge give the index of a clean
#     crawl, posting for posting by URL: nothing fetched was lost.
# Needs root to mount the tmpfs; skipped otherwise.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
[ -x "$idx" ] || tap_skip_all "$idx not built"
command -v python3 >/dev/null || tap_skip_all "python3 not found"
[ "$(id -u)" = 0 ] || tap_skip_all "needs root to mount a small tmpfs"
T=$(tmp_dir)
mkdir -p "$T/small"
mount -t tmpfs -o size=8m tmpfs "$T/small" 2>/dev/null ||
	tap_skip_all "cannot mount a tmpfs here"
trap 'umount -l "$T/small" 2>/dev/null; _lib_cleanup' EXIT

mdb_start
treeweb_start "$T" 40 0
# conf NAME HOSTS [DATADIR]: a config of database NAME crawling HOSTS.
conf() {
	treeweb_conf "$T/$1.conf" "$1" "$2"
	[ -n "${3:-}" ] && sed -i "s|^DataDir .*|DataDir $3|" "$T/$1.conf"
	return 0
}
run() { mpi_no_leak_check timeout 300 "$idx" "$@" >>"$T/out" 2>"$T/err"; rc=$?; }
index_by_url() {
	mdb_sql "SELECT url_id, url FROM urlword" "$1" >"$T/$1.ids"
	"$idx" --dump-index "$T/$1.conf" 2>/dev/null |
		awk -F'\t' 'NR == FNR { u[$1] = $2; next } { print $1 "\t" u[$2] "\t" $3 }' "$T/$1.ids" - | sort
}
# fill [KB]: the tmpfs full but for KB (default 0).
fill() {
	dd if=/dev/zero of="$T/small/filler" bs=64k status=none 2>/dev/null
	[ "${1:-0}" = 0 ] || truncate -s "-${1}K" "$T/small/filler"
	sync
}
empty_files() { find "$T/small/data" -type f -size 0 | sed "s|$T/small/||"; }
enospc() { grep -m1 -E "$T/small/data.*No space left on device|No space left on device.*$T/small/data" "$T/err"; }

# The reference: both hosts crawled on a roomy disk.
conf clean "a b"
run "$T/clean.conf"
tap_is "$rc" 0 "clean crawl of two hosts: exit 0"
index_by_url clean >"$T/clean.idx"

# Host a alone on the small disk: generation 1.
conf full "a" "$T/small/data"
run "$T/full.conf"
tap_is "$rc" 0 "host a on the small disk: exit 0"
index_by_url full >"$T/gen1.idx"
tap_ok "$([ -s "$T/gen1.idx" ] && echo 1)" "generation 1 has postings ($(wc -l <"$T/gen1.idx"))"

# ---- the crawl's delta log cannot be written
conf full "a b" "$T/small/data"
fill
run "$T/full.conf"
tap_ok "$([ "$rc" != 0 ] && [ "$rc" -lt 124 ] && echo 1)" "crawl on a full disk: fails (exit $rc), not a signal"
msg=$(enospc)
tap_ok "$msg" "the message names the path and the cause: ${msg:0:160}"
[ -n "$msg" ] || tap_diag "$(tail -5 "$T/err")"
tap_is "$(grep -c 'AddressSanitizer\|Segmentation' "$T/err")" 0 "no crash"
run --check "$T/full.conf"
tap_is "$rc" 0 "--check passes on the live generation"
index_by_url full >"$T/after1.idx"
tap_ok "$(cmp -s "$T/gen1.idx" "$T/after1.idx" && echo 1)" "the live generation is unchanged"
tap_is "$(empty_files)" "" "no empty file in the DataDir"

# ---- with room: the crawl's deltas written, its merge stopped before the
# generation; then the disk fills (all of it, then all but 96 KB: the
# token file is written, the generation's files are not) and -D cannot
# write the generation.
rm -f "$T/small/filler"
MPSEEK_MERGE_CRASH_AT=after-url-states run "$T/full.conf"
tap_is "$rc" 99 "a crawl with room, its merge stopped at a crash point (99)"
for leave in 0 96; do
	fill "$leave"
	run -D "$T/full.conf"
	tap_ok "$([ "$rc" != 0 ] && [ "$rc" -lt 124 ] && echo 1)" "-D on a full disk ($leave KB free): fails (exit $rc), not a signal"
	msg=$(enospc)
	tap_ok "$msg" "the message names the path and the cause: ${msg:0:160}"
	[ -n "$msg" ] || tap_diag "$(tail -5 "$T/err")"
	run --check "$T/full.conf"
	tap_is "$rc" 0 "--check passes on the live generation"
	index_by_url full >"$T/after2.idx"
	tap_ok "$(cmp -s "$T/gen1.idx" "$T/after2.idx" && echo 1)" "the live generation is unchanged"
	tap_is "$(empty_files)" "" "no empty file in the DataDir"
	tap_is "$(ls -d "$T"/small/data/index/*.tmp 2>/dev/null)" "" "no temporary generation left"
	rm -f "$T/small/filler"
done

# ---- room again: nothing was lost
rm -f "$T/small/filler"
run -D "$T/full.conf"
tap_is "$rc" 0 "-D with room: exit 0"
run "$T/full.conf"
tap_is "$rc" 0 "a rerun with room: exit 0"
[ "$rc" = 0 ] || tap_diag "$(tail -5 "$T/err"; df -k "$T/small" | tail -1)"
index_by_url full >"$T/full.idx"
sed "s/:$PORT//" "$T/clean.idx" >"$T/a"
sed "s/:$PORT//" "$T/full.idx" >"$T/b"
tap_ok "$([ -s "$T/a" ] && cmp -s "$T/a" "$T/b" && echo 1)" "the index equals a clean crawl's ($(wc -l <"$T/b") postings)"
tap_done
