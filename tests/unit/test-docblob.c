/* test-docblob.c - the stored copy of a document: what docblob_compress()
 * writes, docblob_inflate() (searchd's and s.cgi's reader) reads back whole,
 * for texts from empty to MAX_DOC_BYTES, compressible or not; and the crc,
 * docblob_md5(), against RFC 1321's test suite. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "caps.h"
#include "docblob.h"
#include "excerpt.h"
#include "tap.h"
#include "util.h"

/* Bytes that do not compress (xorshift). */
static void noise(char *p, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		p[i] = (char)(seed >> 24);
	}
}

static void round_trip(uint8_t *scratch, const char *what, const char *s, size_t len)
{
	struct buf out = BUF_INIT((size_t)MAX_DOC_BYTES + 1);
	struct buf err = BUF_INIT(256);
	size_t blen = 0;
	unsigned char *blob = docblob_compress(scratch, s, len, &blen);
	uint32_t hdr = (uint32_t)blob[0] | (uint32_t)blob[1] << 8 | (uint32_t)blob[2] << 16 |
		       (uint32_t)blob[3] << 24;

	is_int(hdr, len, "%s: the header holds the text's length", what);
	ok(blen >= 4 && blen <= len + len / 16 + 68, "%s: %zu bytes in a blob of %zu", what, len, blen);
	if (!ok(docblob_inflate(blob, blen, (size_t)MAX_DOC_BYTES, &out, &err) == 0,
		"%s: the reader inflates it", what))
		diag("  %s", buf_str(&err));
	ok(out.len == len && (len == 0 || memcmp(out.ptr, s, len) == 0),
	   "%s: the text comes back byte for byte", what);
	if (len > 100) {
		buf_reset(&err);
		ok(docblob_inflate(blob, blen, 100, &out, &err) == 0 && out.len == 100 &&
		   memcmp(out.ptr, s, 100) == 0, "%s: a prefix of 100 bytes", what);
	}
	free(blob);
	buf_free(&out);
	buf_free(&err);
}

/* Leave 16-bit words `fill` in the stack below the caller's frame, where
 * the next function it calls keeps its locals. */
static __attribute__((noinline)) void stack_fill(int fill)
{
	volatile uint16_t junk[1 << 16];

	for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++)
		junk[i] = (uint16_t)fill;
}

/* `in` deflated after the stack was filled with `fill`, or (fill < 0)
 * right after `before` was deflated from the same depth: its locals left
 * where the second call keeps its own. */
static __attribute__((noinline)) size_t deflate_after(uint8_t *scratch, int fill,
						      const char *before, const char *in,
						      size_t len, void *out, size_t cap)
{
	if (fill >= 0)
		stack_fill(fill);
	else
		docblob_deflate(scratch, before, len, out, cap, false);
	return docblob_deflate(scratch, in, len, out, cap, false);
}

/* Words of a small vocabulary, as a docstore block repeats its fields. */
static void prose(char *p, size_t len, uint64_t seed)
{
	static const char *const words[] = { "merge ", "docstore ", "the ", "of ", "page ",
					     "index ", "a ", "words " };
	size_t k = 0;

	while (k < len) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		for (const char *w = words[seed >> 61]; *w && k < len; w++)
			p[k++] = *w;
	}
}

/* The same text gives the same bytes whatever the stack held before: the
 * merge's outputs are compared with cmp (doc/MERGE.md). */
static void same_bytes(uint8_t *scratch, char *text, size_t len)
{
	size_t cap = len + len / 16 + 64, n0, n;
	unsigned char *want = xmalloc(cap), *got = xmalloc(cap);
	char *other = xmalloc(len);

	prose(text, len, 7);
	prose(other, len, 8);
	n0 = deflate_after(scratch, 0, NULL, text, len, want, cap);
	for (int fill = -1; fill <= 4; fill++) {
		if (fill == 0)
			continue;
		n = deflate_after(scratch, fill, other, text, len, got, cap);
		ok(n0 && n == n0 && memcmp(got, want, n) == 0,
		   "deflate after %s%.0d: the bytes after a stack of zeros (%zu, %zu)",
		   fill < 0 ? "another text" : "a stack of words ", fill < 0 ? 0 : fill, n, n0);
	}
	free(want);
	free(got);
	free(other);
}

int main(void)
{
	uint8_t *scratch = xmalloc(DOCBLOB_SCRATCH);
	size_t big = (size_t)MAX_DOC_BYTES;
	char *text = xmalloc(big);
	static const char html[] = "<html><head><title>Caf\xc3\xa9</title></head>"
				   "<body><p>words &amp; more words</p></body></html>";

	{
		/* RFC 1321, appendix A.5. */
		static const char *const vec[][2] = {
			{ "", "d41d8cd98f00b204e9800998ecf8427e" },
			{ "a", "0cc175b9c0f1b6a831c399e269772661" },
			{ "abc", "900150983cd24fb0d6963f7d28e17f72" },
			{ "message digest", "f96b697d7cb7938d525a2f31aaf161d0" },
			{ "abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b" },
			{ "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
			  "57edf4a22be3c955ac49da2e2107b67a" },
		};
		char crc[33];

		for (size_t i = 0; i < sizeof(vec) / sizeof(vec[0]); i++) {
			memset(crc, 'x', sizeof(crc));
			docblob_md5(vec[i][0], strlen(vec[i][0]), crc);
			is_str(crc, vec[i][1], "docblob_md5(\"%.16s\")", vec[i][0]);
		}
	}
	round_trip(scratch, "empty", "", 0);
	round_trip(scratch, "one byte", "x", 1);
	round_trip(scratch, "a small page", html, sizeof(html) - 1);
	for (size_t i = 0; i < big; i++)
		text[i] = html[i % (sizeof(html) - 1)];
	round_trip(scratch, "MAX_DOC_BYTES of repeated markup", text, big);
	noise(text, big, 0x9E3779B97F4A7C15ull);
	round_trip(scratch, "MAX_DOC_BYTES of noise", text, big);
	noise(text, 70000, 42);
	round_trip(scratch, "70,000 bytes of noise (the scratch reused)", text, 70000);
	same_bytes(scratch, text, 65536);
	free(text);
	free(scratch);
	return done_testing();
}
