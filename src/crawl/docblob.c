/* docblob.c - a document's stored copy and MD5 (docblob.h).
 *
 * ISA-L's igzip at level 1: twice as fast as libdeflate at level 1 (which
 * was twice as fast as zlib) for rows about 6 % larger (doc/PERFORMANCE.md,
 * session 7); docblob_inflate() reads it back (libdeflate for a whole text,
 * zlib for a prefix).  If the compressed
 * form does not fit (never seen: igzip falls back to stored blocks), the
 * text is stored raw (length 0xFFFFFFFF, as ASPseek).
 */
#include "config.h"

#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <nettle/md5.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "buf.h"
#include "caps.h"
#include "charset.h"
#include "docblob.h"
#include "le.h"
#include "util.h"

const size_t DOCBLOB_SCRATCH = ISAL_DEF_LVL1_DEFAULT;

size_t docblob_deflate(uint8_t *scratch, const void *in, size_t len, void *out, size_t cap,
		       bool zlib)
{
	struct isal_zstream z;

	/* isal_deflate_stateless_init() sets some fields only: ISA-L 2.30
	 * leaves hist_bits as it found it, and 1 to 4 shrink the window (a
	 * text 2.5 times larger, test-docblob).  Zeroed, the bytes depend on
	 * the input alone, as the merge's cmp of generations needs
	 * (doc/MERGE.md). */
	memset(&z, 0, sizeof(z));
	isal_deflate_stateless_init(&z);
	z.level = 1;
	z.level_buf = scratch;
	z.level_buf_size = ISAL_DEF_LVL1_DEFAULT;
	z.gzip_flag = zlib ? IGZIP_ZLIB : IGZIP_DEFLATE;
	z.end_of_stream = 1;
	z.flush = NO_FLUSH;
	z.next_in = (uint8_t *)(uintptr_t)in;
	z.avail_in = (uint32_t)len;
	z.next_out = out;
	z.avail_out = (uint32_t)(cap < UINT32_MAX ? cap : UINT32_MAX);
	return isal_deflate_stateless(&z) == COMP_OK ? z.total_out : 0;
}

void *docblob_compress(uint8_t *scratch, const char *s, size_t len, size_t *out_len)
{
	size_t bound = len + len / 16 + 64;
	unsigned char *p = xmalloc(bound + 4);
	size_t n_out = docblob_deflate(scratch, s, len, p + 4, bound, true);
	uint32_t n = 0xFFFFFFFFu;

	if (n_out) {
		n = (uint32_t)len;
		*out_len = n_out + 4;
	} else {
		memcpy(p + 4, s, len);
		*out_len = len + 4;
	}
	le_put32(p, n);
	return p;
}

int docblob_inflate(const void *blob, size_t len, size_t max, struct buf *out, struct buf *err)
{
	const unsigned char *p = blob;
	uint32_t want;
	size_t take;
	z_stream z;
	char *dst;
	int rc;

	buf_reset(out);
	if (len < 4) {
		buf_printf(err, "stored text of %zu bytes has no length", len);
		return -1;
	}
	if (max > (size_t)MAX_DOC_BYTES)
		max = (size_t)MAX_DOC_BYTES;
	want = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	if (want == 0xFFFFFFFFu) {
		take = len - 4 < max ? len - 4 : max;
		if (buf_add(out, p + 4, take)) {
			buf_printf(err, "raw stored text too long");
			return -1;
		}
		return 0;
	}
	if (want > (uint32_t)MAX_DOC_BYTES) {
		buf_printf(err, "stored text claims %u bytes, more than %ld", want, MAX_DOC_BYTES);
		return -1;
	}
	/* Only the first max bytes are inflated: the rest is not needed. */
	take = want < max ? want : max;
	dst = xmalloc(take + 1);
	/* The whole text: libdeflate, twice as fast as zlib (the merge's
	 * docstore inflates every new page's, doc/MERGE.md).  A prefix: zlib,
	 * which stops where the room ends. */
	if (take == want) {
		struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
		enum libdeflate_result lr = LIBDEFLATE_SHORT_OUTPUT;
		size_t got = 0;

		if (d)
			lr = libdeflate_zlib_decompress(d, p + 4, len - 4, dst, want, &got);
		libdeflate_free_decompressor(d);
		if (lr != LIBDEFLATE_SUCCESS || got != want) {
			free(dst);
			buf_printf(err, "stored text does not inflate to its %u bytes (libdeflate %d)",
				   want, (int)lr);
			return -1;
		}
		goto done;
	}
	memset(&z, 0, sizeof(z));
	if (inflateInit(&z) != Z_OK) {
		free(dst);
		buf_printf(err, "zlib: cannot start inflating");
		return -1;
	}
	z.next_in = (Bytef *)(p + 4);
	z.avail_in = (uInt)(len - 4 < UINT32_MAX ? len - 4 : UINT32_MAX);
	z.next_out = (Bytef *)dst;
	z.avail_out = (uInt)take;
	rc = inflate(&z, Z_FINISH);
	inflateEnd(&z);
	/* The whole text: it must end exactly at its length; a prefix: it
	 * must fill the room (the stream goes on). */
	if (take == want ? rc != Z_STREAM_END || z.total_out != want
			 : (rc != Z_OK && rc != Z_BUF_ERROR) || z.total_out != take) {
		free(dst);
		buf_printf(err, "stored text does not inflate to its %u bytes (zlib %d)", want, rc);
		return -1;
	}
	/* A prefix ends on a character boundary. */
	take = utf8_cut(dst, take, take);
done:
	dst[take] = '\0';
	/* Hand the bytes to out without copying them. */
	free(out->ptr);
	out->ptr = dst;
	out->len = take;
	out->alloc = take + 1;
	return 0;
}

void docblob_md5(const void *data, size_t len, char out[33])
{
	static const char hex[] = "0123456789abcdef";
	struct md5_ctx ctx;
	uint8_t d[MD5_DIGEST_SIZE];

	md5_init(&ctx);
	md5_update(&ctx, len, data);
	md5_digest(&ctx, sizeof(d), d);
	for (int i = 0; i < MD5_DIGEST_SIZE; i++) {
		out[2 * i] = hex[d[i] >> 4];
		out[2 * i + 1] = hex[d[i] & 15];
	}
	out[2 * MD5_DIGEST_SIZE] = '\0';
}
