#!/bin/bash
# code-shape.sh - the sizes a reader can hold (doc/ARCHITECTURE.md): no
# source file under src/ over 1,500 lines and no function over 120, so that
# a module is split into rooms and a long function into named phases
# before either outgrows its reader.  Data files (the HTML entity list) and
# generated sources are not code and are not counted.  A function is the
# house style's: a line that is just "{" after its signature, up to the
# line that is just "}".  And every source file has its line in
# doc/ARCHITECTURE.md, so that the map stays the tree's.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

max_file=1500 max_fn=120
files=$(cd "$srcdir" && find src -name '*.[ch]' ! -name schema_sql.c ! -name html_entities.c | sort)
tap_ok "$(test -n "$files" && echo 1)" "$(wc -w <<<"$files") source files under src/"

long_files=$(cd "$srcdir" && wc -l $files | awk -v m=$max_file '$2 != "total" && $1 > m { print $2 " (" $1 " lines)" }')
tap_is "$long_files" "" "no source file over $max_file lines"

long_fns=$(cd "$srcdir" && awk -v m=$max_fn '
	FNR == 1 { sig = "" }
	/\(/ && /^[A-Za-z_]/ { sig = $0 }
	$0 == "{" { start = FNR; name = sig; sub(/\(.*/, "", name); n = split(name, w, /[ *]+/); name = w[n] }
	$0 == "}" && start { if (FNR - start + 1 > m) printf "%s:%d %s (%d lines)\n", FILENAME, start, name, FNR - start + 1; start = 0 }
' $files)
tap_is "$long_fns" "" "no function over $max_fn lines"

# doc/ARCHITECTURE.md's map matches the tree: every source file is named there.
unmapped=$(cd "$srcdir" && for f in $files; do
	b=${f##*/}
	grep -q -- "$b" doc/ARCHITECTURE.md || echo "$f"
done)
tap_is "$unmapped" "" "every source file is named in doc/ARCHITECTURE.md"
tap_done
