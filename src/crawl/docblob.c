/* docblob.c - a document's stored copy and MD5 (docblob.h).
 *
 * ISA-L's igzip at level 1: twice as fast as libdeflate at level 1 (which
 * was twice as fast as zlib) for rows about 6 % larger (doc/PERFORMANCE.md,
 * session 7); every reader still inflates it with zlib.  If the compressed
 * form does not fit (never seen: igzip falls back to stored blocks), the
 * text is stored raw (length 0xFFFFFFFF, as ASPseek).
 */
#include "config.h"

#include <isa-l/igzip_lib.h>
#include <nettle/md5.h>
#include <string.h>

#include "docblob.h"
#include "le.h"
#include "util.h"

const size_t DOCBLOB_SCRATCH = ISAL_DEF_LVL1_DEFAULT;

size_t docblob_deflate(uint8_t *scratch, const void *in, size_t len, void *out, size_t cap,
		       bool zlib)
{
	struct isal_zstream z;

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
