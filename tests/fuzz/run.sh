#!/bin/bash
# run.sh - build every fuzz target tests/fuzz/fuzz-NAME.c with libFuzzer
# (clang -fsanitize=fuzzer,address,undefined) and run it for FUZZ_SECONDS
# (default 10) on a scratch copy of its seeds: tests/fuzz/corpus/NAME/ and
# the unit tests' data files tests/data/NAME/.
# One TAP test point per target: it builds, and the run finds no crash.
# Run a target longer by hand:  FUZZ_SECONDS=600 FUZZ_ONLY=url tests/fuzz/run.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=${srcdir:-$(cd "$here/../.." && pwd)}
bld=${builddir:-$top/build}
secs=${FUZZ_SECONDS:-10}
n=0 bad=0

ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; bad=$((bad + 1)); fi; }

targets=$(ls "$top"/tests/fuzz/fuzz-*.c 2>/dev/null)
if ! command -v clang >/dev/null || [ -z "$targets" ]; then
	echo "1..0 # SKIP clang or fuzz targets missing"
	exit 0
fi
if [ ! -f "$bld/config.h" ] || [ ! -f "$bld/src/store/schema_sql.c" ] ||
	[ ! -f "$bld/src/text/html_entities.c" ]; then
	echo "1..0 # SKIP no configured build in $bld"
	exit 0
fi

# The targets are built with clang's own ASan+UBSan whatever the build: the
# suite's sanitizer pass would run the same fuzzing a second time.
if grep -q -- '-fsanitize' "$bld/Makefile" 2>/dev/null && [ -z "${FUZZ_ONLY:-}" ]; then
	echo "1..0 # SKIP the plain build's pass runs the fuzz targets (they carry their own sanitizers)"
	exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pkgs="libmariadb zlib libdeflate libisal libcurl libpcre2-8 uchardet libutf8proc nettle"
flags="-g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
flags="$flags -I$top/include -I$bld $(pkg-config --cflags $pkgs)"
libs="$(pkg-config --libs $pkgs) $(pkg-config --libs fcgi) -lstemmer -lm"
# Every source but the main()s and the MPI side of mpseek-index; the schema
# and the HTML entity table are the build's generated copies (an in-tree
# build also has them in src/, left out so that they are not linked twice).
lib_srcs=$(find "$top/src" -name '*.c' ! -path '*/src/bin/*' ! -name schema_sql.c \
	! -name html_entities.c | grep -vE '/(cluster|merge|pagerank)(_[a-z]+)?\.c$' | sort)
lib_srcs="$lib_srcs $bld/src/store/schema_sql.c $bld/src/text/html_entities.c"

# Library objects once (without -fsanitize=fuzzer's main), then one link per target.
mkdir -p "$work/obj"
objs=""
for s in $lib_srcs; do
	o=${s#"$top/"}; o=${o#"$bld/"}; o="$work/obj/${o//\//_}"; o=${o%.c}.o
	clang ${flags/fuzzer,/fuzzer-no-link,} -c "$s" -o "$o" 2>"$work/cc.err" || {
		echo "1..1"; echo "not ok 1 - compile $s for fuzzing"; sed 's/^/# /' "$work/cc.err"; exit 1; }
	objs="$objs $o"
done

count=$(echo "$targets" | wc -w)
echo "1..$count"
for t in $targets; do
	name=$(basename "$t" .c); name=${name#fuzz-}
	[ -n "${FUZZ_ONLY:-}" ] && [ "$FUZZ_ONLY" != "$name" ] && { ok 0 "fuzz-$name # SKIP not selected"; continue; }
	if ! clang $flags "$t" $objs $libs -o "$work/fuzz-$name" 2>"$work/ld.err"; then
		sed 's/^/# /' "$work/ld.err"; ok 1 "fuzz-$name builds"; continue
	fi
	mkdir -p "$work/corpus-$name"
	# Seeds: the fuzz corpus and the unit tests' data files of the same parser.
	for seeds in "$top/tests/fuzz/corpus/$name" "$top/tests/data/$name"; do
		[ -d "$seeds" ] && cp -r "$seeds/." "$work/corpus-$name/"
	done
	(cd "$work" && ASAN_OPTIONS=detect_leaks=1 "./fuzz-$name" -max_total_time="$secs" \
		-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "corpus-$name" >"$work/$name.log" 2>&1)
	rc=$?
	if [ $rc -ne 0 ]; then
		grep -E 'ERROR|SUMMARY|Test unit written' "$work/$name.log" | head -10 | sed 's/^/# /'
		mkdir -p "$bld/fuzz-crashes"; cp "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$bld/fuzz-crashes/" 2>/dev/null
	fi
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name.log")
	ok $rc "fuzz-$name: ${runs:-?} inputs in ${secs}s, no crash"
done
exit $((bad > 0))
