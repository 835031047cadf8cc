#!/bin/bash
# build-in-tree.sh - the README's "Building by hand" in the source tree
# itself (autoreconf -fi && ./configure && make && make check), on a copy of
# the checkout: the suite otherwise only builds out of tree, where generated
# sources (the schema, the entity table) live apart from src/ and cannot be
# linked twice.  Runs a unit test, the include graph check and one fuzz
# target (which links every library source) of the in-tree build.  Plain
# builds only: it is the same check under the sanitizers, and takes ~2 min.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

grep -q -- '-fsanitize' "$builddir/Makefile" 2>/dev/null && tap_skip_all "sanitizer build (the plain build runs this)"
command -v autoreconf >/dev/null || tap_skip_all "autoreconf missing"
git -C "$srcdir" rev-parse --git-dir >/dev/null 2>&1 || tap_skip_all "$srcdir is not a git checkout"

# The copy is built by its own make: not under the suite's (its command-line
# TESTS=..., its jobserver), whose MAKEFLAGS would otherwise pass down.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
t=$(tmp_dir)
src="$t/mpseek"
mkdir -p "$src"
# The checkout's files as they are now (committed or not), nothing built.
# (a file deleted but not yet committed is listed too: tar skips it)
(cd "$srcdir" && git ls-files -z --cached --others --exclude-standard |
	tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$src"
tap_ok "$([ -f "$src/configure.ac" ] && [ ! -e "$src/config.status" ] && echo 1)" "a clean copy of the checkout"

(cd "$src" && autoreconf -fi) >"$t/autoreconf.log" 2>&1
tap_is "$?" 0 "autoreconf -fi in the source tree"
(cd "$src" && ./configure -q --enable-werror) >"$t/configure.log" 2>&1
rc=$?
tap_is "$rc" 0 "./configure in the source tree"
[ "$rc" = 0 ] || tail -20 "$t/configure.log" | sed 's/^/# /'
make -C "$src" -s -j2 >"$t/make.log" 2>&1
rc=$?
tap_is "$rc" 0 "make in the source tree"
[ "$rc" = 0 ] || tail -20 "$t/make.log" | sed 's/^/# /'
tap_ok "$([ -x "$src/mpseek-index" ] && [ -x "$src/searchd" ] && [ -x "$src/s.cgi" ] && echo 1)" "the programs are built beside the sources"

# make install: the programs, the man pages and every document the README
# names (an administrator reads them on the installed machine).
make -C "$src" -s install DESTDIR="$t/inst" >"$t/install.log" 2>&1
tap_is "$?" 0 "make install DESTDIR=..."
inst_doc=$(find "$t/inst" -type d -path '*/share/doc/*' | head -1)
missing=""
for d in $(grep -oE 'doc/[A-Za-z_.-]+\.md' "$src/README" | sort -u); do
	[ -f "$inst_doc/$(basename "$d")" ] || missing="$missing $d"
done
tap_is "${missing# }" "" "every document the README names is installed (in ${inst_doc#"$t/inst"})"
missing=""
for m in "$src"/doc/man/*.[15]; do
	[ -n "$(find "$t/inst" -name "$(basename "$m")")" ] || missing="$missing $(basename "$m")"
done
tap_is "${missing# }" "" "every man page is installed"

# builddir and srcdir as make check exports them for an in-tree build.
make -C "$src" -s check FUZZ_SECONDS=1 FUZZ_ONLY=conf \
	TESTS="tests/unit/test-conf tests/integration/include-graph.sh tests/fuzz/run.sh" >"$t/check.log" 2>&1
rc=$?
tap_is "$rc" 0 "make check in the source tree (a unit test, the include graph, a fuzz target)"
[ "$rc" = 0 ] || grep -aE '^(FAIL|ERROR)|multiple definition|^# ' "$t/check.log" "$src"/tests/fuzz/run.log 2>/dev/null | head -20 | sed 's/^/# /'
if ! command -v clang >/dev/null; then
	tap_skip 1 "clang missing: no fuzz target"
else
	tap_ok "$(grep -c 'ok .* fuzz-conf: .* no crash' "$src/tests/fuzz/run.log" 2>/dev/null)" "the fuzz target links and runs in the source tree"
fi

tap_done
