#!/bin/bash
# man-directives.sh - every directive of the configuration table
# (src/common/conf_directives.c) is documented: those of mpseek.conf in
# mpseek.conf(5), of searchd.conf in searchd.conf(5), of s.htm's
# <!--variables--> in s.htm(5), each also in doc/CONFIG.md; the refused
# ones are named where they are refused.  A directive added to the table
# without its documentation fails here.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

table="$srcdir/src/common/conf_directives.c"
[ -f "$table" ] || tap_skip_all "no $table"
# the man page's text without font escapes (\fB, \fR, ...)
text() { sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' "$1"; }
# the names of the table's entries whose flags contain $1 (IDX, SRD, TPL),
# from lines like:  LONG("Port", SRD, ...)  or  { "NoIndex", IDX, ...
names() {
	grep -E '^[[:space:]]*(\{ |[A-Z]+\()"[A-Za-z_0-9]+", ' "$table" |
		grep -E "^[^\"]*\"[A-Za-z_0-9]+\", [^,]*\\b$1\\b" |
		grep -v 'UNSUP(' | sed -E 's/^[^"]*"([^"]+)".*/\1/'
}
refused() { grep -E '^[[:space:]]*UNSUP\("' "$table" | sed -E 's/^[^"]*"([^"]+)".*/\1/'; }

check() { # check KIND MANPAGE
	local kind=$1 man=$2 missing="" d n=0
	for d in $(names "$kind"); do
		n=$((n + 1))
		text "$srcdir/doc/man/$man" | grep -qw -- "$d" || missing="$missing $d"
	done
	tap_ok "$([ "$n" -gt 0 ] && echo 1)" "the table has $kind directives ($n)"
	tap_is "${missing# }" "" "$man names every $kind directive"
	missing=""
	for d in $(names "$kind"); do
		grep -qw -- "$d" "$srcdir/doc/CONFIG.md" || missing="$missing $d"
	done
	tap_is "${missing# }" "" "doc/CONFIG.md names every $kind directive"
}
check IDX mpseek.conf.5
check SRD searchd.conf.5
check TPL s.htm.5

missing=""
for d in $(refused); do
	cat "$srcdir/doc/man/mpseek.conf.5" "$srcdir/doc/man/searchd.conf.5" | sed 's/\\f[BIRP]//g' |
		grep -qw -- "$d" || missing="$missing $d"
done
tap_is "${missing# }" "" "every refused directive is named in mpseek.conf(5) or searchd.conf(5)"

tap_done
