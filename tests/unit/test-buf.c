/* test-buf.c - the bounded buffer refuses to grow past its ceiling. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "tap.h"
#include "util.h"

int main(void)
{
	struct buf b = BUF_INIT(10);
	char *p;
	size_t n;

	is_str(buf_str(&b), "", "empty buffer reads as empty string");
	ok(buf_adds(&b, "hello") == 0, "append within ceiling");
	ok(buf_printf(&b, "%d", 1234) == 0, "printf within ceiling");
	is_str(buf_str(&b), "hello1234", "content");
	ok(buf_adds(&b, "xy") == -1, "append past ceiling fails");
	is_str(buf_str(&b), "hello1234", "failed append leaves content unchanged");
	ok(buf_addc(&b, '!') == 0, "fill exactly to the ceiling");
	is_int(b.len, 10, "length at ceiling");
	ok(buf_printf(&b, "%s", "z") == -1, "printf past ceiling fails");
	buf_truncate(&b, 5);
	is_str(buf_str(&b), "hello", "truncate");
	p = buf_detach(&b, &n);
	is_str(p, "hello", "detach hands over content");
	is_int(n, 5, "detach length");
	is_str(buf_str(&b), "", "detached buffer is empty");
	free(p);
	buf_free(&b);
	buf_free(NULL);
	{
		long v;
		ok(parse_long("42", 0, 100, &v) == 0 && v == 42, "parse_long ok");
		ok(parse_long("4x", 0, 100, &v) == -1, "parse_long rejects trailing junk");
		ok(parse_long("101", 0, 100, &v) == -1, "parse_long range");
		ok(parse_long("", 0, 100, &v) == -1, "parse_long empty");
	}
	{
		struct buf r = BUF_INIT(100);
		char *before;

		ok(buf_add(&r, "ab", 2) == 0 && buf_reserve(&r, 90) == 0, "reserve within the ceiling");
		ok(r.alloc >= 93 && r.len == 2, "reserve makes room, keeps the content");
		before = r.ptr;
		ok(buf_add(&r, "0123456789012345678901234567890123456789", 40) == 0 && r.ptr == before,
		   "an append within the reserved room does not move the content");
		is_str(buf_str(&r), "ab0123456789012345678901234567890123456789", "content after reserve");
		ok(buf_reserve(&r, 59) == -1, "reserve past the ceiling fails");
		is_int(r.len, 42, "a failed reserve changes nothing");
		buf_free(&r);
	}
	ok(ascii_casecmp("DBAddr", "dbaddr") == 0, "ascii_casecmp");
	{
		/* hex_value(): every byte, against strtol's reading. */
		int wrong = 0;
		for (int c = 0; c < 256; c++) {
			char s[2] = {(char)c, 0}, *end;
			long v = c ? strtol(s, &end, 16) : 0;
			int want = c && *end == '\0' && end != s ? (int)v : -1;
			wrong += hex_value(c) != want;
		}
		is_int(wrong, 0, "hex_value agrees with strtol for all 256 bytes");
	}
	{
		/* FNV-1a 32 reference values (Fowler, Noll, Vo test suite):
		 * delta partitions and robots.txt caches depend on them. */
		static const struct {
			const char *s;
			uint32_t h;
		} fnv[] = {
		    {"", 0x811c9dc5u},
		    {"a", 0xe40c292cu},
		    {"b", 0xe70c2de5u},
		    {"foobar", 0xbf9cf968u},
		    {"chongo was here!\n", 0xd49930d5u},
		};
		for (size_t i = 0; i < ARRAY_SIZE(fnv); i++)
			ok(fnv1a32(fnv[i].s, strlen(fnv[i].s)) == fnv[i].h,
			   "fnv1a32(\"%s\") = %08x",
			   fnv[i].s[0] == 'c' ? "chongo was here!\\n" : fnv[i].s, fnv[i].h);
	}
	return done_testing();
}
