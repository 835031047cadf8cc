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
	free(text);
	free(scratch);
	return done_testing();
}
