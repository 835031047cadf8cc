/* docblob.h - what the crawl keeps of a document's body: its stored copy
 * (urlwordsNN.words) and its MD5 (urlword.crc, change and clone detection).
 *
 * The stored copy in ASPseek's format: a 4-byte little-endian length of the
 * text, then its zlib stream; a length of 0xFFFFFFFF means the text follows
 * raw.  The crawl writes it with docblob_compress(); searchd and s.cgi read
 * it with excerpt_inflate() (excerpt.h), through zlib.
 */
#ifndef MPSEEK_DOCBLOB_H
#define MPSEEK_DOCBLOB_H

#include <stddef.h>
#include <stdint.h>

/* Bytes of the scratch memory docblob_compress() needs (ISA-L's level 1). */
extern const size_t DOCBLOB_SCRATCH;

/* The blob of text s[0..len): malloc'ed, its size in *out_len.  scratch
 * is the caller's DOCBLOB_SCRATCH bytes, reused from call to call (one per
 * thread).  Never fails (xmalloc). */
void *docblob_compress(uint8_t *scratch, const char *s, size_t len, size_t *out_len);

/* The MD5 of data[0..len) in lower-case hex, NUL-terminated (urlword.crc). */
void docblob_md5(const void *data, size_t len, char out[33]);

#endif
