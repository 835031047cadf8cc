/* merge_codec.c - the merge's sorted files on disk (merge_int.h): a buffered
 * reader that releases what it has read, a writer, and the posting record,
 * its order and its compact file form.  Memory holds records as merge.c
 * lays them out; only run and exchange files hold the encoded form.  No MPI
 * here: tests/unit/test-merge-codec.c links this file alone.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "caps.h"
#include "delta.h"
#include "le.h"
#include "log.h"
#include "merge_int.h"
#include "storage.h"
#include "util.h"

#define RD_BUF MERGE_RD_BUF
#define PUNCH_STEP (1u << 20)   /* release read bytes in steps of this */
#define WR_BUF (256u << 10)     /* write buffer of one sorted file */

_Static_assert(POST_FIXED == 1 + 1 + 4 + 4 + 2, "posting record layout");
_Static_assert(MAX_WORD_LEN <= 255, "word length fits a byte");

/* ---- reading ----------------------------------------------------------------- */

int rd_open(struct rd *r, const char *path, bool consume)
{
	memset(r, 0, sizeof(*r));
	r->path = path;
	r->punch = consume;
	/* Releasing blocks (fallocate()) needs a file open for writing. */
	r->fd = open(path, (consume ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (r->fd < 0)
		return error_errno("merge: cannot open %s", path);
	r->b = xmalloc(RD_BUF);
	return 0;
}

void rd_close(struct rd *r)
{
	if (r->b)
		close(r->fd);
	free(r->b);
	memset(r, 0, sizeof(*r));
}

/* The bytes before the buffer were read and will not be again: a file
 * that is read once (every sorted file of the merge) gives its blocks
 * back as it goes, so that a merge pass needs no room for both its input
 * and its output.  Where the filesystem cannot, the file is removed
 * whole afterwards as before. */
static void rd_release(struct rd *r, uint64_t upto)
{
#ifdef FALLOC_FL_PUNCH_HOLE
	if (r->punch && upto - r->punched >= PUNCH_STEP) {
		if (fallocate(r->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)r->punched,
			      (off_t)(upto - r->punched)) == 0)
			r->punched = upto;
		else
			r->punch = false;
	}
#else
	(void)r;
	(void)upto;
#endif
}

/* The next byte after refilling the buffer; -1 at the end or on an error
 * (then r->err). */
int rd_fill(struct rd *r)
{
	ssize_t got;

	if (r->err || r->fd < 0)
		return -1;
	rd_release(r, r->off);
	do
		got = read(r->fd, r->b, RD_BUF);
	while (got < 0 && errno == EINTR);
	if (got < 0) {
		r->err = true;
		error_errno("merge: cannot read %s", r->path);
		return -1;
	}
	r->pos = 0;
	r->len = (size_t)got;
	r->off += (uint64_t)got;
	if (!got)
		return -1;
	return r->b[r->pos++];
}

/* n bytes into p: 0, or -1 when the file ends first or fails. */
int rd_bytes(struct rd *r, unsigned char *p, size_t n)
{
	while (n) {
		size_t k = r->len - r->pos;
		int c;

		if (!k) {
			if ((c = rd_fill(r)) < 0)
				return -1;
			*p++ = (unsigned char)c;
			n--;
			continue;
		}
		if (k > n)
			k = n;
		memcpy(p, r->b + r->pos, k);
		r->pos += k;
		p += k;
		n -= k;
	}
	return 0;
}

/* An unsigned LEB128 number of at most 32 bits whose first byte c was read
 * already (-1: the file ended): 0, or -1 (short, too long). */
static int varint_from(struct rd *r, int c, uint32_t *v)
{
	uint32_t x = 0;

	for (int shift = 0;; shift += 7) {
		if (c < 0 || (shift == 28 && c > 0x0f))
			return -1;
		x |= (uint32_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			break;
		c = rd_byte(r);
	}
	*v = x;
	return 0;
}

static int rd_varint(struct rd *r, uint32_t *v)
{
	return varint_from(r, rd_byte(r), v);
}

static size_t put_varint(unsigned char *out, uint32_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (unsigned char)v;
	return n;
}

/* The next record of kind k over rec (which holds the file's previous
 * record, zeroed before the first): 1, 0 at the end, -1 (logged). */
int kind_read(const struct kind *k, struct rd *r, unsigned char *rec)
{
	long extra;
	int c;

	if (k->decode) {
		c = k->decode(r, rec);
		if (c < 0 && !r->err)
			return error("merge: %s is damaged", r->path);
		return c < 0 ? -1 : c;
	}
	if ((c = rd_byte(r)) < 0)
		return r->err ? -1 : 0;
	rec[0] = (unsigned char)c;
	if (rd_bytes(r, rec + 1, k->head - 1) < 0)
		return r->err ? -1 : error("merge: %s is damaged", r->path);
	extra = k->extra(rec);
	if (extra < 0 || rd_bytes(r, rec + k->head, (size_t)extra) < 0)
		return r->err ? -1 : error("merge: %s is damaged", r->path);
	return 1;
}

/* ---- writing ------------------------------------------------------------------- */

int wr_open(struct wr *w, const struct kind *k, const char *path)
{
	memset(w, 0, sizeof(*w));
	w->k = k;
	w->path = path;
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (w->fd < 0)
		return error_errno("merge: cannot create %s", path);
	w->buf = xmalloc(WR_BUF);
	if (k->encode) {
		w->prev = xcalloc(1, k->max);
		w->enc = xmalloc(k->enc_max);
	}
	return 0;
}

/* The buffer to the file: 0, or -1 (logged once; later calls fail too). */
static int wr_flush(struct wr *w)
{
	size_t done = 0;

	while (!w->err && done < w->blen) {
		ssize_t n = write(w->fd, w->buf + done, w->blen - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			w->err = true;
			return error_errno("merge: cannot write %s", w->path);
		}
		done += (size_t)n;
	}
	w->blen = 0;
	return w->err ? -1 : 0;
}

/* Writes rec (w->bytes counts the bytes written): 0 or -1.  Records go
 * through the writer's own buffer: a stdio call per record (its lock, its
 * 4 KiB buffer) was 7 % of a merge's time. */
int wr_put(struct wr *w, const unsigned char *rec)
{
	size_t len = w->k->head + (size_t)w->k->extra(rec), n = len;
	const unsigned char *p = rec;

	if (w->k->encode) {
		n = w->k->encode(w->prev, rec, w->enc);
		p = w->enc;
		memcpy(w->prev, rec, len);
	}
	w->bytes += n;
	if (w->blen + n > WR_BUF && wr_flush(w))
		return -1;
	if (n > WR_BUF) { /* larger than the buffer: straight to the file */
		for (size_t off = 0; off < n; off += WR_BUF) {
			w->blen = n - off < WR_BUF ? n - off : WR_BUF;
			memcpy(w->buf, p + off, w->blen);
			if (wr_flush(w))
				return -1;
		}
		return 0;
	}
	memcpy(w->buf + w->blen, p, n);
	w->blen += n;
	return w->err ? -1 : 0;
}

/* Closes the file (accepts a zeroed or closed one): 0, or -1 when a write
 * failed. */
int wr_close(struct wr *w)
{
	int rc = 0;

	if (w->buf) {
		if (wr_flush(w))
			rc = -1;
		if (close(w->fd) != 0 && !rc)
			rc = error_errno("merge: cannot write %s", w->path);
	}
	free(w->buf);
	free(w->prev);
	free(w->enc);
	w->buf = w->prev = w->enc = NULL;
	w->fd = -1;
	return rc;
}

/* ---- postings ------------------------------------------------------------------ */

/* (partition, word bytes, site, url). */
static int post_cmp(const unsigned char *a, const unsigned char *b)
{
	int c;

	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	c = delta_wordcmp(a + POST_FIXED, a[1], b + POST_FIXED, b[1]);
	if (c)
		return c;
	if (le_get32(a + 2) != le_get32(b + 2))
		return le_get32(a + 2) < le_get32(b + 2) ? -1 : 1;
	return le_get32(a + 6) < le_get32(b + 6) ? -1 : le_get32(a + 6) > le_get32(b + 6);
}

/* The key (struct kind): partition and the word's first 7 bytes (zeroes
 * after a shorter word: words hold no NUL, so the order is memcmp()'s),
 * then site and url.  Whole when the word fits. */
static bool post_key(const unsigned char *rec, uint64_t k[2])
{
	const unsigned char *w = rec + POST_FIXED;
	unsigned wlen = rec[1];
	uint64_t x = rec[0];
	bool nul = false;

	/* The NUL test in the same loop: memchr() for a few bytes, once per
	 * record sorted and per record merged, was ~4% of a merge's CPU. */
	for (unsigned i = 0; i < 7; i++) {
		unsigned c = i < wlen ? w[i] : 0u;

		nul |= i < wlen && !c;
		x = x << 8 | c;
	}
	k[0] = x;
	k[1] = (uint64_t)le_get32(rec + 2) << 32 | le_get32(rec + 6);
	return wlen <= 7 && !nul;
}

static long post_extra(const unsigned char *p)
{
	if (p[0] >= STORAGE_PARTITIONS || p[1] < 1 || p[1] > MAX_WORD_LEN || le_get16(p + 10) == 0)
		return -1;
	return p[1] + 4 * (long)le_get16(p + 10);
}

/* A posting in a file, after the previous one P of the same file (zeroes
 * before the first), all numbers LEB128:
 *   h = shared << 1 | new partition, [partition u8 if new], suffix length,
 *   the suffix (the word's bytes after the first `shared`, which it has in
 *   common with P's word); then, when the word is P's, site - P.site and,
 *   if that is 0, url - P.url, else url; for another word site and url;
 *   then npos, the first position (tokenize.h's 32-bit value) and the gaps
 *   to the next ones (mod 2^32): a body word's gaps take one or two bytes
 *   as they did when positions had 16 bits.
 * Sorted files make the differences small; any order round-trips (the
 * differences wrap), so the encoding never depends on the input being
 * sorted or the positions ascending. */
static size_t post_encode(const unsigned char *prev, const unsigned char *rec, unsigned char *out)
{
	unsigned wlen = rec[1], plen = prev[1], shared = 0, npos = le_get16(rec + 10);
	bool newpart = rec[0] != prev[0], same;
	const unsigned char *word = rec + POST_FIXED, *pos = word + wlen;
	uint32_t site = le_get32(rec + 2), url = le_get32(rec + 6);
	size_t n;
	uint32_t last;

	if (!newpart)
		while (shared < wlen && shared < plen && word[shared] == prev[POST_FIXED + shared])
			shared++;
	same = !newpart && shared == wlen && shared == plen;
	n = put_varint(out, shared << 1 | newpart);
	if (newpart)
		out[n++] = rec[0];
	n += put_varint(out + n, wlen - shared);
	memcpy(out + n, word + shared, wlen - shared);
	n += wlen - shared;
	if (same) {
		uint32_t ds = site - le_get32(prev + 2);

		n += put_varint(out + n, ds);
		n += put_varint(out + n, ds ? url : url - le_get32(prev + 6));
	} else {
		n += put_varint(out + n, site);
		n += put_varint(out + n, url);
	}
	n += put_varint(out + n, npos);
	last = le_get32(pos);
	n += put_varint(out + n, last);
	for (unsigned j = 1; j < npos; j++) {
		uint32_t p = le_get32(pos + 4 * j);

		n += put_varint(out + n, p - last);
		last = p;
	}
	return n;
}

/* The next posting over rec, which holds the previous one: 1, 0 at a clean
 * end, -1 (damaged or a read error). */
static int post_decode(struct rd *r, unsigned char *rec)
{
	uint32_t h, suffix, site, url, npos, v;
	unsigned shared, plen = rec[1];
	int c = rd_byte(r);
	bool newpart, same;
	unsigned char *pos;
	uint32_t last;

	if (c < 0)
		return r->err ? -1 : 0;
	if (varint_from(r, c, &h) < 0)
		return -1;
	shared = h >> 1;
	newpart = h & 1;
	if (shared > plen || (newpart && shared))
		return -1;
	if (newpart) {
		if ((c = rd_byte(r)) < 0)
			return -1;
		rec[0] = (unsigned char)c;
	}
	if (rd_varint(r, &suffix) < 0 || suffix > MAX_WORD_LEN - shared || shared + suffix < 1 ||
	    rd_bytes(r, rec + POST_FIXED + shared, suffix) < 0)
		return -1;
	same = !newpart && !suffix && shared == plen;
	rec[1] = (unsigned char)(shared + suffix);
	if (rd_varint(r, &site) < 0 || rd_varint(r, &url) < 0)
		return -1;
	if (same) {
		url = site ? url : le_get32(rec + 6) + url;
		site += le_get32(rec + 2);
	}
	le_put32(rec + 2, site);
	le_put32(rec + 6, url);
	if (rd_varint(r, &npos) < 0 || npos < 1 || npos > 65535)
		return -1;
	le_put16(rec + 10, (uint16_t)npos);
	if (post_extra(rec) < 0)
		return -1;
	pos = rec + POST_FIXED + rec[1];
	if (rd_varint(r, &v) < 0)
		return -1;
	last = v;
	le_put32(pos, last);
	for (uint32_t j = 1; j < npos; j++) {
		if (rd_varint(r, &v) < 0)
			return -1;
		last += v;
		le_put32(pos + 4 * j, last);
	}
	return 1;
}

const struct kind merge_k_post = {
	.head = POST_FIXED,
	.max = POST_MAX,
	.extra = post_extra,
	.cmp = post_cmp,
	.enc_max = 16 + 5 + MAX_WORD_LEN + 5 * 65535,
	.encode = post_encode,
	.decode = post_decode,
	.key = post_key,
};
