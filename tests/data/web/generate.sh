#!/bin/sh
# generate.sh DOCROOT - write the pages of the test web that are not
# committed (big or binary): DOCROOT/generated/
#   nested.html        50 000 nested <div>s around the word deepword, then a
#                      link to after-nested.html (about 550 kB)
#   after-nested.html  a plain page
#   nul.html           NUL bytes in text and inside a tag, then a link to
#                      after-nul.html
#   after-nul.html     a plain page
set -eu
d=$1/generated
mkdir -p "$d"
awk 'BEGIN {
	n = 50000
	printf "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Deeply nested page</title></head>\n<body>\n"
	for (i = 0; i < n; i++) printf "<div>"
	printf "<p>deepword at the bottom of %d divs</p>", n
	for (i = 0; i < n; i++) printf "</div>"
	printf "\n<p><a href=\"after-nested.html\">after the nesting</a></p>\n</body></html>\n"
}' >"$d/nested.html"
printf '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>After nested</title></head>\n<body><p>afternestedword</p></body></html>\n' >"$d/after-nested.html"
printf '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Page with NUL bytes</title></head>\n<body>\n<p>nulword al\000pha be\000\000ta</p>\n<d\000iv>x</div>\000\n<p><a href="after-nul.html">after the NULs</a></p>\n</body></html>\n' >"$d/nul.html"
printf '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>After NUL</title></head>\n<body><p>afternulword</p></body></html>\n' >"$d/after-nul.html"
