#!/bin/bash
# merge-boiler.sh - a merge whose boilerplate step cannot write its files
# fails and publishes nothing (doc/MERGE.md, step 8): a generation without
# its `boiler` file would score every page's navigation as body text
# (doc/SEARCH.md, "Boilerplate").  The fault is real to the program: an
# LD_PRELOAD shim built here (the test's, nothing of it is in mpseek) makes
# open() and fopen() of one path fail with ENOSPC, first the step's scratch
# file (<generation>/boiler.scratch), then its table (<generation>/boiler,
# written as boiler.tmp.PID).  Each fault is checked for the exit status and
# the error naming the step, the live generation unchanged and the deltas
# kept; then the rerun without the shim equals a merge of the same deltas
# that met no fault (cmp, boiler included).
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
[ -x "$idx" ] || tap_skip_all "$idx not built"
[ -x "$NGINX" ] || tap_skip_all "nginx not found (Debian package nginx)"
cc=${CC:-cc}
command -v "$cc" >/dev/null || tap_skip_all "no C compiler ($cc) to build the shim"

T=$(tmp_dir)
cat >"$T/failopen.c" <<'EOF'
/* open(), open64(), fopen() and fopen64() of a path containing
 * $FAILOPEN_MATCH fail with ENOSPC; every other call is the real one. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hit(const char *path)
{
	const char *m = getenv("FAILOPEN_MATCH");

	return m && *m && path && strstr(path, m);
}

#define FOPEN(name) \
	FILE *name(const char *path, const char *mode) \
	{ \
		FILE *(*real)(const char *, const char *) = \
			(FILE *(*)(const char *, const char *))dlsym(RTLD_NEXT, #name); \
		if (hit(path)) { \
			errno = ENOSPC; \
			return NULL; \
		} \
		return real(path, mode); \
	}
#define OPEN(name) \
	int name(const char *path, int flags, ...) \
	{ \
		int (*real)(const char *, int, ...) = \
			(int (*)(const char *, int, ...))dlsym(RTLD_NEXT, #name); \
		int mode = 0; \
		va_list ap; \
		if (flags & (O_CREAT | O_TMPFILE)) { \
			va_start(ap, flags); \
			mode = va_arg(ap, int); \
			va_end(ap); \
		} \
		if (hit(path)) { \
			errno = ENOSPC; \
			return -1; \
		} \
		return real(path, flags, mode); \
	}
FOPEN(fopen)
FOPEN(fopen64)
OPEN(open)
OPEN(open64)
EOF
"$cc" -shared -fPIC -O -o "$T/failopen.so" "$T/failopen.c" -ldl 2>"$T/cc.err" ||
	tap_skip_all "the shim does not build: $(head -1 "$T/cc.err")"

# The boilerplate test site (eight pages sharing a navigation), served
# from a copy: a page is edited for the second crawl.
cp -R "$srcdir/tests/data/boilerplate/site" "$T/site"
site_crawl "$T/site" mboil
dd=$MDB_DIR/data-mboil
g1=$(readlink -f "$dd/index/current")
tap_ok "$([ -s "$g1/boiler" ] && echo 1)" "generation 1 has its boiler file"

# ---- a recrawl of the edited site whose merge dies: deltas with fresh
# documents and a live generation
f=$(cd "$T/site" && ls *.html | head -1)
sed -i 's|</body>|<p>boilerzebra, only in the second state.</p></body>|' "$T/site/$f"
recrawl_merge_killed

# faulted WHAT MATCH MESSAGE: -D with the shim failing the paths that
# contain MATCH; it must fail with MESSAGE and leave everything as it was.
faulted() {
	local what=$1 match=$2 msg=$3 rc
	FAILOPEN_MATCH=$match LD_PRELOAD=$T/failopen.so \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		mpi_no_leak_check timeout 300 "$idx" -D "$conf" >"$T/$what.out" 2>"$T/$what.log"
	rc=$?
	tap_ok "$([ "$rc" != 0 ] && [ "$rc" -lt 124 ] && echo 1)" \
		"-D whose $what cannot be created exits non-zero, not by a signal ($rc)"
	tap_ok "$(grep -q "$msg" "$T/$what.log" && echo 1)" \
		"it names the step: $(grep -m1 -o 'merge: the boilerplate.*' "$T/$what.log" | cut -c1-150)"
	[ "$rc" != 0 ] || grep -E 'boiler' "$T/$what.log" | head -5 | sed 's/^/# /'
	merge_left_as_was "$dd" "$g1" "$T/gen1-copy" "$ndelta"
}
faulted "scratch file" /boiler.scratch \
	"merge: the boilerplate cannot be written: .*/boiler.scratch: cannot create: No space left on device"
faulted "table" /boiler.tmp. \
	"merge: the boilerplate cannot be written: .*/boiler: cannot create"

# ---- the rerun without the fault
mpi_no_leak_check timeout 300 "$idx" -D "$conf" >"$T/rerun.out" 2>"$T/rerun.log"
rc=$?
g2=$(readlink -f "$dd/index/current")
tap_ok "$([ "$rc" = 0 ] && [ "$g2" != "$g1" ] && [ -s "$g2/boiler" ] && echo 1)" \
	"the rerun succeeds and publishes a generation with its boiler file ($rc)"
rm -rf "$T/gen-rerun"
cp -a "$g2" "$T/gen-rerun"

# ---- it equals a merge of the same deltas that met no fault
rm -rf "$dd"
cp -a "$T/pristine" "$dd"
mpi_no_leak_check timeout 300 "$idx" -D "$conf" >"$T/ref.out" 2>"$T/ref.log"
tap_is "$?" 0 "-D of the same deltas without a fault"
g=$(readlink -f "$dd/index/current")
same=$(gen_same "$g" "$T/gen-rerun" "")
tap_ok "$([ "$same" = 1 ] && [ "$(cd "$g" && find . -type f | wc -l)" = \
	"$(cd "$T/gen-rerun" && find . -type f | wc -l)" ] && echo 1)" \
	"the rerun's generation equals it, file for file (cmp; the docstore by its documents), boiler included"
"$idx" --check "$conf" >"$T/check.out" 2>&1
tap_is "$?" 0 "--check passes: $(tail -1 "$T/check.out")"
tap_done
