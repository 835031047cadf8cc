# html-entities.awk - turn src/text/html-entities.txt into html_entities.c,
# the table of { name, UTF-8 } that html.c's entity_find() binary-searches.
# Owns the encoding to UTF-8 and the checks of what html.c relies on (byte
# order, name lengths, at most 8 bytes of UTF-8); not the lookup itself.
# Run with LC_ALL=C: names are compared byte by byte, as strcmp() does.

function fail(why) {
	printf "%s:%d: %s\n", FILENAME, FNR, why > "/dev/stderr"
	bad = 1
	exit 1
}

function hexval(s,    i, d, v) {
	v = 0
	for (i = 1; i <= length(s); i++) {
		d = index("0123456789ABCDEF", toupper(substr(s, i, 1)))
		if (!d)
			fail("bad hex digit in " s)
		v = v * 16 + d - 1
	}
	return v
}

function byte(b) {
	nbytes++
	return sprintf("\\x%02x", b)
}

function utf8(cp) {
	if (cp < 128)
		return byte(cp)
	if (cp < 2048)
		return byte(192 + int(cp / 64)) byte(128 + cp % 64)
	if (cp < 65536)
		return byte(224 + int(cp / 4096)) byte(128 + int(cp / 64) % 64) \
		       byte(128 + cp % 64)
	return byte(240 + int(cp / 262144)) byte(128 + int(cp / 4096) % 64) \
	       byte(128 + int(cp / 64) % 64) byte(128 + cp % 64)
}

BEGIN {
	printf "/* Generated from src/text/html-entities.txt by src/text/html-entities.awk:\n"
	printf " * do not edit.  The struct is html.c's struct entity. */\n"
	printf "#include <stddef.h>\n\n"
	printf "struct entity {\n\tconst char *name;\n\tconst char *utf8;\n};\n\n"
	printf "extern const struct entity html_entities[];\n"
	printf "extern const size_t html_entities_count;\n\n"
	printf "const struct entity html_entities[] = {\n"
}

/^#/ || /^$/ { next }

{
	if (NF < 2)
		fail("want a name and its code points")
	name = $1
	# entity_decode() reads at most 32 letters and digits, then a ';';
	# without ';' it tries the legacy names of 2 to 6 letters only.
	if (name !~ /^[A-Za-z][A-Za-z0-9]*;?$/)
		fail("bad name " name)
	if ((name ~ /;$/) ? length(name) > 33 : (length(name) < 2 || length(name) > 6))
		fail("name " name " is of a length html.c never looks up")
	if (count && !(prev < name))
		fail(name " is not after " prev " in byte order")
	prev = name
	s = ""
	nbytes = 0
	for (f = 2; f <= NF; f++) {
		if ($f !~ /^U\+[0-9A-Fa-f]+$/)
			fail("bad code point " $f)
		cp = hexval(substr($f, 3))
		if (cp == 0 || cp > 1114111 || (cp >= 55296 && cp <= 57343))
			fail("code point " $f " is not a character")
		s = s utf8(cp)
	}
	if (nbytes > 8)
		fail(name " needs more than the 8 bytes entity_decode() has")
	printf "\t{ \"%s\", \"%s\" },\n", name, s
	count++
}

END {
	if (bad)
		exit 1
	if (!count)
		fail("no entities")
	printf "};\n\n"
	printf "const size_t html_entities_count = %d;\n", count
}
