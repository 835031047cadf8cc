#!/bin/bash
# merge-spill.sh - the merge's external sorts under a tiny DeltaBufferSize:
# synthetic deltas (bench/gen-deltas: 130,000 documents from 4 "ranks")
# merged with DeltaBufferSize 4 (raised to the 64 KiB minimum: the URL
# records and the postings are spilled in more than 64 runs, so runs are
# merged in several passes) by -np 1 and 2 give the same index files (cmp)
# as with DeltaBufferSize 65536 (one run each); then a second batch that
# rewrites 20,000 of the documents, merged into that index the same three
# ways, again gives identical files, --check passes, and a killed merge
# (after-url-states) leaves the live index and the deltas as they were.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
gen="$builddir/bench/gen-deltas"
[ -x "$idx" ] || tap_skip_all "$idx not built"
[ -x "$gen" ] || tap_skip_all "$gen not built"

T=$(tmp_dir)
mdb_start
write_conf "$T/small.conf" syn "DeltaBufferSize 4"
write_conf "$T/large.conf" syn "DeltaBufferSize 65536"
dd=$MDB_DIR/data-syn
mkdir -p "$dd"
mpi_no_leak_check "$idx" --seed "$T/small.conf" >"$T/seed.log" 2>&1
rc=$?
tap_is "$rc" 0 "--seed creates the schema"
[ "$rc" = 0 ] || tail -5 "$T/seed.log" | sed 's/^/# /'

# merge_as NAME NP CONF PRISTINE: -D on a fresh copy of PRISTINE; the
# generation is kept as $T/gen-NAME, the log as $T/NAME.log.
merge_as() {
	local name=$1 np=$2 conf=$3 pristine=$4 rc
	rm -rf "$dd"
	cp -a "$pristine" "$dd"
	mpi_no_leak_check timeout 600 "$MPIRUN" --oversubscribe -np "$np" "$idx" -D "$conf" \
		>"$T/$name.out" 2>"$T/$name.log"
	rc=$?
	tap_is "$rc" 0 "-D -np $np with $(awk '$1 == "DeltaBufferSize" { print $0 }' "$conf")"
	[ "$rc" = 0 ] || tail -5 "$T/$name.log" | sed 's/^/# /'
	rm -rf "$T/gen-$name"
	cp -a "$(readlink -f "$dd/index/current")" "$T/gen-$name"
}

# same A B: every file but ranks (PageRank's float sums) equal (gen_same:
# the docstore by its documents).
same() {
	gen_same "$T/gen-$1" "$T/gen-$2"
}

# runs NAME WHAT: the most runs one rank reported for WHAT ("URL record"
# or "posting").
runs() {
	grep -o "[0-9]* $2(s) sorted in [0-9]* run" "$T/$1.log" |
		awk '{ if ($(NF - 1) > m) m = $(NF - 1) } END { print m + 0 }'
}

# ---- a fresh index
"$gen" -n 130000 -l 4 -v 20000 -S 200 -r 4 -x 1 "$dd" >"$T/gen1.out" 2>&1
tap_is "$?" 0 "gen-deltas: $(cat "$T/gen1.out")"
cp -a "$dd" "$T/pristine1"
merge_as small1 1 "$T/small.conf" "$T/pristine1"
merge_as small2 2 "$T/small.conf" "$T/pristine1"
merge_as large1 1 "$T/large.conf" "$T/pristine1"
u=$(runs small1 'URL record')
p=$(runs small1 posting)
tap_ok "$([ "$u" -gt 64 ] && [ "$p" -gt 64 ] && echo 1)" \
	"DeltaBufferSize 4: $u runs of URL records, $p runs of postings (more than the 64 merged at once)"
tap_is "$(runs large1 'URL record') $(runs large1 posting)" "1 1" "DeltaBufferSize 65536: one run each"
# The runs hold the postings encoded (doc/MERGE.md "Scratch disk"): well
# under the bytes they take in memory.
mb=$(sed -n 's/.*posting(s) sorted in [0-9]* run(s), \([0-9.]*\) MB of them in \([0-9.]*\) MB of runs.*/\1 \2/p' \
	"$T/small1.log")
tap_ok "$(echo "$mb" | awk 'NF == 2 && $2 > 0 && $2 < 0.75 * $1 { print 1 }')" \
	"the runs take less than 3/4 of the postings' bytes in memory (MB in memory, in runs: $mb)"
tap_is "$(same large1 small1)$(same large1 small2)" 11 \
	"the index files are identical (cmp; the docstore by its documents) for both buffers and -np 1 and 2"
"$idx" --check "$T/large.conf" >"$T/check1.out" 2>&1
tap_is "$?" 0 "--check passes: $(tail -1 "$T/check1.out")"

# ---- 20,000 documents rewritten (another seed), merged into that index
cp -a "$dd" "$T/pristine2"
rm -f "$T/pristine2/deltas"/*.dlt
"$gen" -n 20000 -l 4 -v 20000 -S 40 -r 4 -x 2 "$T/pristine2" >"$T/gen2.out" 2>&1
tap_is "$?" 0 "gen-deltas, second batch: $(cat "$T/gen2.out")"
rm -rf "$dd"
cp -a "$T/pristine2" "$dd"
MPSEEK_MERGE_CRASH_AT=after-url-states mpi_no_leak_check timeout 600 "$MPIRUN" --oversubscribe \
	-np 2 "$idx" -D "$T/small.conf" >/dev/null 2>"$T/crash.log"
rc=$?
tap_ok "$([ "$rc" != 0 ] && [ "$(readlink -f "$dd/index/current")" = "$dd/index/gen-00000001" ] &&
	[ "$(ls "$dd/deltas"/*.dlt | wc -l)" = 4 ] && echo 1)" \
	"-D killed at after-url-states: generation 1 stays live, no delta lost"
merge_as inc-small1 1 "$T/small.conf" "$T/pristine2"
merge_as inc-small2 2 "$T/small.conf" "$T/pristine2"
merge_as inc-large1 1 "$T/large.conf" "$T/pristine2"
tap_is "$(same inc-large1 inc-small1)$(same inc-large1 inc-small2)" 11 \
	"after the second batch: identical files for both buffers and -np 1 and 2"
tap_ok "$(cmp -s "$T/gen-large1/00w/urls" "$T/gen-inc-large1/00w/urls" || echo 1)" \
	"the second batch changed the postings"
"$idx" --check "$T/large.conf" >"$T/check2.out" 2>&1
tap_is "$?" 0 "--check passes after the second batch: $(tail -1 "$T/check2.out")"
tap_done
