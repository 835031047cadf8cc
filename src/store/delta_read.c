/* delta_read.c - the reader of the per-rank delta log declared in delta.h:
 * a bounded parser of outside bytes (the COMMIT records are what lets it
 * tell a crash's torn tail from corruption of data that was once durable),
 * delta_text_at() for the merge's docstore, and delta_repair().  The
 * writer and the listing are in delta.c.  Format: doc/FORMATS.md, "Delta
 * log".
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "binfile.h"
#include "buf.h"
#include "caps.h"
#include "charset.h"
#include "delta.h"
#include "delta_int.h"
#include "le.h"
#include "log.h"
#include "util.h"

/* A LEB128 u32 from p (at most left bytes): its length, or 0 when it is
 * cut short or longer than 32 bits. */
static size_t get_varint(const unsigned char *p, size_t left, uint32_t *v)
{
	uint32_t x = 0;

	for (size_t i = 0; i < left && i < VARINT_MAX; i++) {
		if (i == VARINT_MAX - 1 && p[i] > 0x0f)
			return 0;
		x |= (uint32_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			*v = x;
			return i + 1;
		}
	}
	return 0;
}

/* ---- reader ------------------------------------------------------------- */

struct delta_reader {
	char *name;
	int fd;                     /* -1 when reading memory */
	const unsigned char *mem;
	uint64_t size;              /* bytes, fixed at open */
	uint32_t rank;
	uint64_t created;
	uint32_t hdr_crc;
	uint64_t off;               /* next record */
	uint64_t good_end;          /* end of the last good record */
	uint64_t commit;            /* X of the last COMMIT read */
	int64_t torn;
	int state;                  /* 0 reading, 1 ended, -1 failed */
	struct buf msg;

	unsigned char *win;         /* file window */
	size_t win_alloc, win_len;
	uint64_t win_off;

	struct delta_word *words;   /* decoded record, reused */
	size_t words_alloc;
	uint32_t version;           /* of the file: how DOC positions are written */
	uint32_t *pos;
	size_t pos_alloc;
	char *pool;
	size_t pool_alloc;
	uint32_t *hrefs;
	size_t hrefs_alloc;
	char text_pool[5 * (DELTA_MAX_TEXT_FIELD + 1)]; /* a TEXT's fields */
	unsigned char *rnd;         /* delta_text_at()'s reads: no window */
	size_t rnd_alloc;
};

const char *delta_reader_msg(const struct delta_reader *r) { return buf_str(&r->msg); }
int64_t delta_reader_torn(const struct delta_reader *r) { return r->torn; }
uint64_t delta_reader_good_end(const struct delta_reader *r) { return r->good_end; }
uint32_t delta_reader_rank(const struct delta_reader *r) { return r->rank; }
uint64_t delta_reader_created(const struct delta_reader *r) { return r->created; }

static void set_msg(struct delta_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void set_msg(struct delta_reader *r, const char *fmt, ...)
{
	va_list ap;

	buf_reset(&r->msg);
	va_start(ap, fmt);
	buf_vprintf(&r->msg, fmt, ap);
	va_end(ap);
}

/* Pointer to bytes [off, off + n) of the file; the caller has checked that
 * they lie inside it.  NULL (state failed) on a read error. */
/* n bytes at off into dst: 0, or -1 with the message set. */
static int read_at(struct delta_reader *r, unsigned char *dst, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = pread(r->fd, dst + got, n - got, (off_t)(off + got));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			set_msg(r, "%s: read error at offset %" PRIu64 ": %s", r->name, off + got,
				k < 0 ? strerror(errno) : "file shrank while being read");
			return -1;
		}
		got += (size_t)k;
	}
	return 0;
}

static const unsigned char *peek(struct delta_reader *r, uint64_t off, size_t n)
{
	size_t want;

	if (r->mem)
		return r->mem + off;
	if (off >= r->win_off && n <= r->win_len && off - r->win_off <= r->win_len - n)
		return r->win + (off - r->win_off);
	want = n > WINDOW ? n : WINDOW;
	if (want > r->size - off)
		want = (size_t)(r->size - off);
	if (want > r->win_alloc) {
		free(r->win);
		r->win = xmalloc(want);
		r->win_alloc = want;
	}
	r->win_len = 0;
	if (read_at(r, r->win, want, off)) {
		r->state = -1;
		return NULL;
	}
	r->win_off = off;
	r->win_len = want;
	return r->win;
}

/* A COMMIT record after bad_off whose X lies beyond bad_off proves that the
 * bytes at bad_off were once durable.  Returns 1 (offset in *at), 0, or -1
 * on a read error.  Linear in the rest of the file, and only run once, at
 * the first bad record. */
static int find_commit(struct delta_reader *r, uint64_t bad_off, uint64_t *at)
{
	uint64_t q = bad_off + 1;

	while (q <= r->size && r->size - q >= COMMIT_REC) {
		size_t n = r->size - q > WINDOW ? WINDOW : (size_t)(r->size - q);
		const unsigned char *p = peek(r, q, n);

		if (!p)
			return -1;
		for (size_t i = 0; i + COMMIT_REC <= n; i++) {
			const unsigned char *c = p + i;
			uint64_t x;
			if (c[8] != T_COMMIT || le_get32(c) != COMMIT_PAYLOAD ||
			    crc(c + 8, 1 + COMMIT_PAYLOAD) != le_get32(c + 4) ||
			    le_get32(c + FRAME + 8) != r->hdr_crc)
				continue;
			x = le_get64(c + FRAME);
			if (x > bad_off && x <= q + i) {
				*at = q + i;
				return 1;
			}
		}
		q += n - COMMIT_REC + 1;
	}
	return 0;
}

/* A record that does not parse as a frame: torn tail or corruption. */
static int bad(struct delta_reader *r, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int bad(struct delta_reader *r, uint64_t off, const char *fmt, ...)
{
	char why[256];
	uint64_t at = 0;
	va_list ap;
	int k;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	k = find_commit(r, off, &at);
	if (k < 0)
		return -1;
	if (k > 0) {
		set_msg(r, "%s: corrupt record at offset %" PRIu64 ": %s (the commit record at "
			   "offset %" PRIu64 " shows these bytes were synced)", r->name, off, why, at);
		r->state = -1;
		return -1;
	}
	set_msg(r, "%s: torn tail at offset %" PRIu64 ": %s; %" PRIu64 " bytes ignored", r->name,
		off, why, r->size - off);
	r->torn = (int64_t)off;
	r->state = 1;
	return 0;
}

/* A record with a good crc but impossible content: a writer bug or a
 * forged file, never a crash. */
static int corrupt(struct delta_reader *r, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int corrupt(struct delta_reader *r, uint64_t off, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	set_msg(r, "%s: corrupt record at offset %" PRIu64 ": %s", r->name, off, why);
	r->state = -1;
	return -1;
}

#define GROW(ptr, alloc, n)                                                  \
	do {                                                                 \
		if ((n) > (alloc)) {                                         \
			free(ptr);                                           \
			(ptr) = xmalloc((n) * sizeof(*(ptr)));               \
			(alloc) = (n);                                       \
		}                                                            \
	} while (0)

/* np positions of one word from p (left bytes) into out, as the file's
 * version wrote them; *used the bytes read.  0, -1 when cut short, -2 when
 * not ascending. */
static int decode_positions(const struct delta_reader *r, const unsigned char *p, size_t left,
			    size_t np, uint32_t *out, size_t *used)
{
	size_t k = 0;

	for (size_t j = 0; j < np; j++) {
		uint32_t v;

		if (r->version == FORMAT_V1_POS16) {
			/* (section << 14 | position) to tokenize.h's layout */
			if (left - k < 2)
				return -1;
			v = le_get16(p + k);
			v = (v >> 14) << 24 | (v & 0x3fffu);
			k += 2;
		} else {
			size_t m = get_varint(p + k, left - k, &v);

			if (!m)
				return -1;
			if (j && (!v || v > UINT32_MAX - out[j - 1]))
				return -2;
			if (j)
				v += out[j - 1];
			k += m;
		}
		if (j && v <= out[j - 1])
			return -2;
		out[j] = v;
	}
	*used = k;
	return 0;
}

static int decode_doc(struct delta_reader *r, uint64_t off, const unsigned char *p, size_t len,
		      struct delta_rec *rec)
{
	size_t left, pool_used = 0, npos = 0, pos_cap;
	const unsigned char *q, *prev = NULL;
	size_t prev_len = 0;
	uint32_t nw;

	if (len < DOC_FIXED)
		return corrupt(r, off, "DOC of %zu bytes, shorter than its fixed fields", len);
	rec->url_id = le_get32(p);
	rec->site_id = le_get32(p + 4);
	rec->time = le_get64(p + 8);
	nw = le_get32(p + 16);
	if (!rec->url_id)
		return corrupt(r, off, "DOC with url_id 0");
	/* A word takes at least 6 bytes: check before allocating for it. */
	if (nw > DELTA_MAX_DOC_WORDS || nw > (len - DOC_FIXED) / 5)
		return corrupt(r, off, "DOC claims %" PRIu32 " words in %zu bytes", nw, len);
	pos_cap = len - DOC_FIXED; /* a position takes at least one byte */
	if (pos_cap > DELTA_MAX_DOC_POSITIONS)
		pos_cap = DELTA_MAX_DOC_POSITIONS;
	GROW(r->words, r->words_alloc, (size_t)nw + 1);
	GROW(r->pool, r->pool_alloc, len + 1);
	GROW(r->pos, r->pos_alloc, pos_cap + 1);
	q = p + DOC_FIXED;
	left = len - DOC_FIXED;
	for (uint32_t i = 0; i < nw; i++) {
		struct delta_word *dw = &r->words[i];
		size_t wl, np, used;
		int rc;

		if (left < 1)
			return corrupt(r, off, "DOC word %" PRIu32 " cut short", i);
		wl = *q++;
		left--;
		if (wl < 1 || wl > MAX_WORD_LEN)
			return corrupt(r, off, "DOC word %" PRIu32 ": length %zu (1..%d allowed)", i,
				       wl, MAX_WORD_LEN);
		if (left < wl + 2)
			return corrupt(r, off, "DOC word %" PRIu32 " cut short", i);
		if (!utf8_valid((const char *)q, wl))
			return corrupt(r, off, "DOC word %" PRIu32 " is not UTF-8", i);
		if (prev && delta_wordcmp(prev, prev_len, q, wl) >= 0)
			return corrupt(r, off, "DOC word %" PRIu32 " \"%.*s\" out of order or repeated",
				       i, (int)wl, (const char *)q);
		prev = q;
		prev_len = wl;
		dw->word = r->pool + pool_used;
		dw->len = wl;
		memcpy(r->pool + pool_used, q, wl);
		r->pool[pool_used + wl] = '\0';
		pool_used += wl + 1;
		q += wl;
		left -= wl;
		np = le_get16(q);
		q += 2;
		left -= 2;
		if (np == 0)
			return corrupt(r, off, "DOC word \"%.*s\" without positions", (int)wl,
				       dw->word);
		if (np > left / (r->version == FORMAT_V1_POS16 ? 2 : 1))
			return corrupt(r, off, "DOC word \"%.*s\": %zu positions cut short", (int)wl,
				       dw->word, np);
		if (np > pos_cap - npos)
			return corrupt(r, off, "DOC over %u positions", DELTA_MAX_DOC_POSITIONS);
		dw->pos = r->pos + npos;
		dw->n_pos = (uint32_t)(np > DELTA_MAX_WORD_POSITIONS ? DELTA_MAX_WORD_POSITIONS : np);
		rc = decode_positions(r, q, left, np, r->pos + npos, &used);
		if (rc < 0)
			return corrupt(r, off, "DOC word \"%.*s\": %s", (int)wl, dw->word,
				       rc == -1 ? "positions cut short" : "positions not ascending");
		npos += np;
		q += used;
		left -= used;
	}
	if (left)
		return corrupt(r, off, "DOC has %zu bytes after its last word", left);
	rec->n_words = nw;
	rec->words = r->words;
	return 1;
}

static int decode_hrefs(struct delta_reader *r, uint64_t off, const unsigned char *p, size_t len,
			struct delta_rec *rec)
{
	uint32_t n;

	if (len < 8 || (len - 8) % 4)
		return corrupt(r, off, "HREFS of %zu bytes", len);
	rec->url_id = le_get32(p);
	n = le_get32(p + 4);
	if (n != (len - 8) / 4)
		return corrupt(r, off, "HREFS claims %" PRIu32 " targets in %zu bytes", n, len);
	if (!rec->url_id)
		return corrupt(r, off, "HREFS with url_id 0");
	GROW(r->hrefs, r->hrefs_alloc, (size_t)n + 1);
	for (uint32_t i = 0; i < n; i++) {
		r->hrefs[i] = le_get32(p + 8 + 4 * (size_t)i);
		if (r->hrefs[i] <= (i ? r->hrefs[i - 1] : 0))
			return corrupt(r, off, "HREFS target %" PRIu32 " is 0, out of order or "
					       "repeated", i);
	}
	rec->n_hrefs = n;
	rec->hrefs = r->hrefs;
	return 1;
}

static int decode_text(struct delta_reader *r, uint64_t off, const unsigned char *p, size_t len,
		       struct delta_rec *rec)
{
	const char **f[5] = { &rec->text.content_type, &rec->text.charset, &rec->text.title,
			      &rec->text.description, &rec->text.keywords };
	size_t at = 8, used = 0;
	uint32_t bl;

	if (r->version < FORMAT_VERSION)
		return corrupt(r, off, "TEXT record in a log of version %" PRIu32, r->version);
	if (len < 8 + 5 * 2 + 4)
		return corrupt(r, off, "TEXT of %zu bytes", len);
	rec->url_id = le_get32(p);
	if (!rec->url_id)
		return corrupt(r, off, "TEXT with url_id 0");
	rec->text.size = le_get32(p + 4);
	for (int i = 0; i < 5; i++) {
		size_t n;

		if (len - at < 2)
			return corrupt(r, off, "TEXT field %d cut short", i);
		n = le_get16(p + at);
		at += 2;
		if (n > DELTA_MAX_TEXT_FIELD || n > len - at)
			return corrupt(r, off, "TEXT field %d of %zu bytes", i, n);
		if (memchr(p + at, '\0', n))
			return corrupt(r, off, "TEXT field %d holds a NUL", i);
		memcpy(r->text_pool + used, p + at, n);
		r->text_pool[used + n] = '\0';
		*f[i] = r->text_pool + used;
		used += n + 1;
		at += n;
	}
	if (len - at < 4)
		return corrupt(r, off, "TEXT cut short before its text");
	bl = le_get32(p + at);
	at += 4;
	if (bl != len - at)
		return corrupt(r, off, "TEXT claims %" PRIu32 " bytes of text, %zu there", bl,
			       len - at);
	rec->text.blob = p + at;
	rec->text.blob_len = bl;
	return 1;
}

static int decode(struct delta_reader *r, uint64_t off, unsigned type, const unsigned char *p,
		  size_t len, struct delta_rec *rec)
{
	static const size_t fixed[] = { [DELTA_DEL] = 4, [DELTA_REDIR] = 8, [DELTA_LASTMOD] = 12 };

	memset(rec, 0, sizeof(*rec));
	rec->type = (enum delta_type)type;
	rec->offset = off;
	switch (type) {
	case DELTA_DOC:
		return decode_doc(r, off, p, len, rec);
	case DELTA_HREFS:
		return decode_hrefs(r, off, p, len, rec);
	case DELTA_TEXT:
		return decode_text(r, off, p, len, rec);
	case DELTA_DEL:
	case DELTA_REDIR:
	case DELTA_LASTMOD:
		if (len != fixed[type])
			return corrupt(r, off, "record of type %u with %zu bytes (%zu expected)",
				       type, len, fixed[type]);
		rec->url_id = le_get32(p);
		if (!rec->url_id)
			return corrupt(r, off, "record of type %u with url_id 0", type);
		if (type == DELTA_REDIR) {
			rec->target = le_get32(p + 4);
			if (!rec->target)
				return corrupt(r, off, "REDIR to url_id 0");
		} else if (type == DELTA_LASTMOD) {
			rec->time = le_get64(p + 4);
		}
		return 1;
	default:
		return corrupt(r, off, "unknown record type %u", type);
	}
}

int delta_next(struct delta_reader *r, struct delta_rec *rec)
{
	for (;;) {
		uint64_t off = r->off, left = r->size - r->off;
		const unsigned char *p;
		uint32_t len, sum;
		unsigned type;

		if (r->state)
			return r->state > 0 ? 0 : -1;
		if (!left) {
			r->state = 1;
			return 0;
		}
		if (left < FRAME)
			return bad(r, off, "record header cut short (%" PRIu64 " of %d bytes)", left,
				   FRAME);
		if (!(p = peek(r, off, FRAME)))
			return -1;
		len = le_get32(p);
		if (len > DELTA_MAX_PAYLOAD)
			return bad(r, off, "record length %" PRIu32 " over the cap of %u", len,
				   DELTA_MAX_PAYLOAD);
		if (len > left - FRAME)
			return bad(r, off, "record of %" PRIu32 " bytes, only %" PRIu64 " left", len,
				   left - FRAME);
		if (!(p = peek(r, off, FRAME + (size_t)len)))
			return -1;
		sum = crc(p + 8, (size_t)len + 1);
		if (sum != le_get32(p + 4))
			return bad(r, off, "crc mismatch (stored %08" PRIx32 ", computed %08" PRIx32
				   ")", le_get32(p + 4), sum);
		type = p[8];
		r->off = off + FRAME + len;
		if (type == T_COMMIT) {
			uint64_t x;
			if (len != COMMIT_PAYLOAD)
				return corrupt(r, off, "commit record of %" PRIu32 " bytes", len);
			x = le_get64(p + FRAME);
			if (le_get32(p + FRAME + 8) != r->hdr_crc)
				return corrupt(r, off, "commit record of another file "
					       "(header crc %08" PRIx32 ")", le_get32(p + FRAME + 8));
			if (x <= r->commit || x < HDR_SIZE || x > off)
				return corrupt(r, off, "commit record for offset %" PRIu64
					       " (previous %" PRIu64 ")", x, r->commit);
			r->commit = x;
			r->good_end = r->off;
			continue;
		}
		if (decode(r, off, type, p + FRAME, len, rec) < 0)
			return -1;
		r->good_end = r->off;
		return 1;
	}
}

/* n bytes at off for delta_text_at(): read exactly those (the records it
 * reads lie anywhere in the file; a window of WINDOW bytes per record would
 * read the file many times over).  NULL on a read error (message set). */
static const unsigned char *rnd_read(struct delta_reader *r, uint64_t off, size_t n)
{
	if (r->mem)
		return r->mem + off;
	if (n > r->rnd_alloc) {
		free(r->rnd);
		r->rnd_alloc = n > 65536 ? n : 65536;
		r->rnd = xmalloc(r->rnd_alloc);
	}
	return read_at(r, r->rnd, n, off) ? NULL : r->rnd;
}

/* The record of type want (TEXT or HREFS) of url_id among those the crawl
 * writes right after its DOC at doc_off: the DOC, its TEXT, its HREFS (when
 * it has links), with COMMITs between any two (doc/FORMATS.md, "Delta
 * log").  1 and *rec, 0 when it is not there, -1 on a read error. */
static int record_after_doc(struct delta_reader *r, uint64_t doc_off, uint32_t url_id,
			    unsigned want, struct delta_rec *rec)
{
	uint64_t off = doc_off;
	bool doc = true;

	for (;;) {
		const unsigned char *p;
		uint32_t len;
		unsigned type;
		int state, k;

		if (off < HDR_SIZE || off > r->size || r->size - off < FRAME + 4)
			return 0;
		/* The frame and the url_id every record but COMMIT starts with. */
		if (!(p = rnd_read(r, off, FRAME + 4)))
			return -1;
		len = le_get32(p);
		type = p[8];
		if (len > DELTA_MAX_PAYLOAD || len > r->size - off - FRAME)
			return 0;
		if (doc) {
			/* The DOC itself was checked by the pass that chose it:
			 * only that it is the one meant. */
			if (type != DELTA_DOC || len < 4 || le_get32(p + FRAME) != url_id)
				return 0;
			doc = false;
		} else if (type == T_COMMIT) {
			/* A damaged COMMIT is where delta_next() stops (a torn
			 * tail, or corruption): what lies past it is no record
			 * of this log. */
			if (len != COMMIT_PAYLOAD)
				return 0;
			if (!(p = rnd_read(r, off, COMMIT_REC)))
				return -1;
			if (crc(p + 8, 1 + COMMIT_PAYLOAD) != le_get32(p + 4))
				return 0;
		} else if (len < 4 || le_get32(p + FRAME) != url_id) {
			return 0;
		} else if (type == want) {
			if (!(p = rnd_read(r, off, FRAME + (size_t)len)))
				return -1;
			/* A record torn by a crash after its DOC was synced: none. */
			if (crc(p + 8, (size_t)len + 1) != le_get32(p + 4))
				return 0;
			/* decode() marks the reader failed on impossible
			 * content; delta_next() must go on from where it was
			 * (it reports that record itself when it gets there). */
			state = r->state;
			k = decode(r, off, type, p + FRAME, len, rec);
			r->state = state;
			if (k < 0)
				return -1;
			return rec->url_id == url_id ? 1 : 0;
		} else if (!(want == DELTA_HREFS && type == DELTA_TEXT)) {
			return 0; /* past the records of this DOC */
		}
		off += FRAME + (uint64_t)len;
	}
}

int delta_text_at(struct delta_reader *r, uint64_t doc_off, uint32_t url_id,
		  struct delta_rec *rec)
{
	return record_after_doc(r, doc_off, url_id, DELTA_TEXT, rec);
}

int delta_hrefs_at(struct delta_reader *r, uint64_t doc_off, uint32_t url_id,
		   struct delta_rec *rec)
{
	return record_after_doc(r, doc_off, url_id, DELTA_HREFS, rec);
}

/* A header that a crash while creating the file can leave: shorter than a
 * header and a prefix of one, or all zeros (size extended, data lost). */
static bool torn_header(const unsigned char *p, size_t n)
{
	bool zeros = true;

	for (size_t i = 0; i < n; i++)
		if (p[i])
			zeros = false;
	if (zeros)
		return true;
	return n < HDR_SIZE && !memcmp(p, MAGIC, n < sizeof(MAGIC) ? n : sizeof(MAGIC));
}

/* Check the header; 0 with r ready (maybe ended by a torn header) or -1. */
static int reader_start(struct delta_reader *r, struct buf *err)
{
	const unsigned char *p;
	uint32_t version;

	buf_init(&r->msg, 2 * PATH_MAX + 1024); /* a path and a reason */
	r->torn = -1;
	/* The header through rnd_read(), not the 1 MiB window: a reader kept
	 * open for delta_text_at() alone (the merge's docstore, one a segment)
	 * never allocates the window. */
	if (r->size <= HDR_SIZE) {
		p = r->size ? rnd_read(r, 0, (size_t)r->size) : MAGIC;
		if (!p)
			return error_into(err, "%s", buf_str(&r->msg));
		if (torn_header(p, (size_t)r->size)) {
			set_msg(r, "%s: torn tail at offset 0: header cut short (%" PRIu64
				   " bytes, incomplete)", r->name, r->size);
			r->torn = 0;
			r->state = 1;
			return 0;
		}
		if (r->size < HDR_SIZE)
			return error_into(err, "%s: not a delta log (%" PRIu64 " bytes, bad magic)",
			                  r->name, r->size);
	}
	if (!(p = rnd_read(r, 0, HDR_SIZE)))
		return error_into(err, "%s", buf_str(&r->msg));
	if (memcmp(p, MAGIC, sizeof(MAGIC)))
		return error_into(err, "%s: not a delta log (bad magic)", r->name);
	version = le_get32(p + 8);
	if (!VERSION_KNOWN(version))
		return error_into(err,
		                  "%s: delta log format version %" PRIu32 " (this build reads %d to %d)",
		                  r->name, version, FORMAT_V1_POS16, FORMAT_VERSION);
	if (crc(p, 24) != le_get32(p + 24))
		return error_into(
		    err, "%s: header crc mismatch (stored %08" PRIx32 ", computed %08" PRIx32 ")",
		    r->name, le_get32(p + 24), crc(p, 24));
	r->version = version;
	r->rank = le_get32(p + 12);
	r->created = le_get64(p + 16);
	r->hdr_crc = le_get32(p + 24);
	r->off = r->good_end = HDR_SIZE;
	return 0;
}

struct delta_reader *delta_reader_open(const char *path, struct buf *err)
{
	struct delta_reader *r = xcalloc(1, sizeof(*r));
	struct stat st;

	r->name = xstrdup(path);
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		error_into(err, "cannot open %s: %s", path, strerror(errno));
		goto fail;
	}
	if (fstat(r->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		error_into(err, "%s: not a regular file", path);
		goto fail;
	}
	r->size = (uint64_t)st.st_size;
	if (reader_start(r, err) < 0)
		goto fail;
	return r;
fail:
	delta_reader_close(r);
	return NULL;
}

struct delta_reader *delta_reader_open_mem(const char *name, const void *data, size_t len,
					   struct buf *err)
{
	static const unsigned char empty[1];
	struct delta_reader *r = xcalloc(1, sizeof(*r));

	r->name = xstrdup(name);
	r->fd = -1;
	r->mem = data ? data : empty;
	r->size = len;
	if (reader_start(r, err) < 0) {
		delta_reader_close(r);
		return NULL;
	}
	return r;
}

void delta_reader_close(struct delta_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	buf_free(&r->msg);
	free(r->win);
	free(r->words);
	free(r->pos);
	free(r->pool);
	free(r->hrefs);
	free(r->rnd);
	free(r->name);
	free(r);
}

int delta_repair(const char *path, struct buf *err)
{
	struct delta_reader *r = delta_reader_open(path, err);
	struct delta_rec rec;
	int rc = -1, k, fd = -1;

	if (!r)
		return -1;
	while ((k = delta_next(r, &rec)) > 0)
		;
	if (k < 0) {
		error_into(err, "%s", delta_reader_msg(r));
		goto out;
	}
	if (r->torn < 0) {
		rc = 0;
		goto out;
	}
	if (r->good_end == 0) {
		/* Never got its header: nothing in it was ever durable. */
		char *dir = xstrdup(path), *slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		if (unlink(path) < 0) {
			error_into(err, "cannot remove %s: %s", path, strerror(errno));
		} else {
			fsync_dir(slash ? dir : ".");
			warning("%s; removed", delta_reader_msg(r));
			rc = 1;
		}
		free(dir);
		goto out;
	}
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)r->good_end) < 0 || fsync(fd) < 0) {
		error_into(err, "cannot cut %s back to %" PRIu64 " bytes: %s", path, r->good_end,
		           strerror(errno));
		goto out;
	}
	warning("%s; cut back to %" PRIu64 " bytes", delta_reader_msg(r), r->good_end);
	rc = 1;
out:
	if (fd >= 0)
		close(fd);
	delta_reader_close(r);
	return rc;
}
