/* docblob.h - what the crawl keeps of a document's body: its stored copy
 * (urlwordsNN.words) and its MD5 (urlword.crc, change and clone detection).
 *
 * The stored copy in ASPseek's format: a 4-byte little-endian length of the
 * text, then its zlib stream; a length of 0xFFFFFFFF means the text follows
 * raw.  The crawl writes it with docblob_compress(); searchd, s.cgi and the
 * merge's docstore read it with docblob_inflate(): libdeflate for a whole
 * text, zlib for a prefix.
 */
#ifndef MPSEEK_DOCBLOB_H
#define MPSEEK_DOCBLOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

/* Bytes of the scratch memory docblob_compress() needs (ISA-L's level 1). */
extern const size_t DOCBLOB_SCRATCH;

/* in[0..len) deflated by ISA-L's igzip at level 1 into out[0..cap): a
 * zlib stream (RFC 1950) when zlib, else raw deflate (RFC 1951).  Its
 * size, 0 when it does not fit.  scratch as for docblob_compress(). */
size_t docblob_deflate(uint8_t *scratch, const void *in, size_t len, void *out, size_t cap,
		       bool zlib);

/* The blob of text s[0..len): malloc'ed, its size in *out_len.  scratch
 * is the caller's DOCBLOB_SCRATCH bytes, reused from call to call (one per
 * thread).  Never fails (xmalloc). */
void *docblob_compress(uint8_t *scratch, const char *s, size_t len, size_t *out_len);

/* Decompress a urlwordsNN.words value (4-byte LE length, 0xFFFFFFFF = the
 * bytes follow raw, else zlib data of that many bytes, at most
 * MAX_DOC_BYTES) into out (reset first; its ceiling must allow max bytes):
 * the whole text, or its first max bytes when it is longer (snippets read
 * EXCERPT_MAX_HTML; the cached copy everything).  Returns 0, or -1 for a
 * value that does not decompress to its length (err says why). */
int docblob_inflate(const void *blob, size_t len, size_t max, struct buf *out, struct buf *err);

/* The MD5 of data[0..len) in lower-case hex, NUL-terminated (urlword.crc). */
void docblob_md5(const void *data, size_t len, char out[33]);

#endif
