/* delta.c - the per-rank delta log declared in delta.h.
 *
 * Writer: records are framed in memory, written in batches, made durable by
 * delta_sync() (one fdatasync per batch), and every batch after a sync
 * starts with a COMMIT record saying how far the file was synced.  Reader:
 * a bounded parser of outside bytes; the COMMIT records are what lets it
 * tell a crash's torn tail from corruption of data that was once durable.
 * Format and rationale: doc/FORMATS.md, "Delta log".
 */
#include "config.h"

#include <dirent.h>
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
#include "le.h"
#include "log.h"
#include "util.h"

/* File header: magic[8] version u32, rank u32, created u64, crc u32.
 * Version 2 writes a word's positions as LEB128 numbers (the first, then
 * the gaps) of tokenize.h's 32-bit values; version 1 wrote them as u16
 * (section << 14 | position) and is still read, converted, so that logs a
 * crawl left before an upgrade are merged (doc/FORMATS.md, "Delta log").
 * Version 3 adds TEXT records (a build that reads only 1 and 2 refuses the
 * file by its version rather than calling a TEXT record corrupt). */
#define HDR_SIZE 28
#define FORMAT_VERSION 3
#define FORMAT_V2 2
#define FORMAT_V1_POS16 1
#define VERSION_KNOWN(v) ((v) >= FORMAT_V1_POS16 && (v) <= FORMAT_VERSION)
#define VARINT_MAX 5 /* bytes of a LEB128 u32 */
static const unsigned char MAGIC[8] = { 'M', 'P', 'S', 'D', 'L', 'T', 0, 1 };
/* Record frame: payload length u32, crc32(type + payload) u32, type u8. */
#define FRAME 9
/* Internal record type: "bytes [0, X) of this file were fdatasync'ed",
 * payload X u64 and the header crc u32 (which ties the record to this
 * file: stale blocks of another log in a torn tail cannot vouch for it). */
#define T_COMMIT 6
#define COMMIT_PAYLOAD 12
#define COMMIT_REC (FRAME + COMMIT_PAYLOAD)
#define DOC_FIXED 20 /* url_id, site_id, time, n_words */

/* Buffered bytes that trigger a write(2) without a sync: bounds the
 * writer's memory between two delta_sync() calls. */
#define FLUSH_AT (1u << 20)
/* Read window of the file reader; grows to one record when needed. */
#define WINDOW (1u << 20)

_Static_assert(sizeof(MAGIC) == 8, "magic is 8 bytes");
_Static_assert(HDR_SIZE == 8 + 4 + 4 + 8 + 4, "header layout");
_Static_assert(FRAME == 4 + 4 + 1, "frame layout");
_Static_assert(DOC_FIXED == 4 + 4 + 8 + 4, "DOC fixed fields");
_Static_assert(MAX_WORD_LEN <= 255, "word length is stored in one byte");
_Static_assert(MAX_WORD_LEN < FLUSH_AT, "a word fits a flush");
_Static_assert(DELTA_MAX_PAYLOAD <= UINT32_MAX - FRAME, "record length fits u32");
_Static_assert((uint64_t)DOC_FIXED + (uint64_t)DELTA_MAX_DOC_WORDS * (1 + MAX_WORD_LEN + 2) +
		       (uint64_t)DELTA_MAX_DOC_POSITIONS * VARINT_MAX <= DELTA_MAX_PAYLOAD,
	       "the largest DOC the caps allow fits one record");
_Static_assert(DELTA_MAX_WORD_POSITIONS <= UINT16_MAX, "position count is a u16");

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

static size_t varint_len(uint32_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

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
_Static_assert(sizeof(uint16_t) == 2 && sizeof(uint32_t) == 4 && sizeof(uint64_t) == 8,
	       "fixed widths");

/* Little-endian packing: le.h. */

static uint32_t crc(const unsigned char *p, size_t n)
{
	return binfile_crc(p, n);
}

int delta_wordcmp(const void *a, size_t al, const void *b, size_t bl)
{
	int c = memcmp(a, b, al < bl ? al : bl);
	return c ? c : (al > bl) - (al < bl);
}

static void header_pack(unsigned char *h, uint32_t rank, uint64_t created)
{
	memcpy(h, MAGIC, sizeof(MAGIC));
	le_put32(h + 8, FORMAT_VERSION);
	le_put32(h + 12, rank);
	le_put64(h + 16, created);
	le_put32(h + 24, crc(h, 24));
}



char *delta_seg_path(const char *data_dir, int rank, uint32_t seq)
{
	return xasprintf("%s/deltas/r%d-%06" PRIu32 ".dlt", data_dir, rank, seq);
}

/* "r<rank>-<seq>.dlt" with rank <= INT_MAX and seq <= UINT32_MAX. */
static int parse_seg_name(const char *name, int *rank, uint32_t *seq)
{
	uint64_t v[2] = { 0, 0 };
	const char *p = name;

	if (*p++ != 'r')
		return -1;
	for (int f = 0; f < 2; f++) {
		int digits = 0;
		while (*p >= '0' && *p <= '9') {
			if (++digits > 10)
				return -1;
			v[f] = v[f] * 10 + (uint64_t)(*p++ - '0');
		}
		if (!digits)
			return -1;
		if (f == 0 && *p++ != '-')
			return -1;
	}
	if (strcmp(p, ".dlt") || v[0] > INT_MAX || v[1] > UINT32_MAX)
		return -1;
	*rank = (int)v[0];
	*seq = (uint32_t)v[1];
	return 0;
}

/* ---- writer ------------------------------------------------------------- */

struct delta_word_ent {
	size_t off;                /* of the encoded word in bytes */
	size_t size;               /* bytes: len byte, word, count, positions */
	const unsigned char *word; /* set by write_words(), once bytes stop moving */
	size_t len;
};

struct delta_writer {
	int fd;
	char *path;
	uint64_t size;      /* bytes in the file */
	uint64_t synced;    /* bytes fdatasync'ed */
	uint64_t committed; /* what the last queued COMMIT vouches for */
	uint32_t hdr_crc;
	struct buf pend;    /* framed records not yet written */
	uint64_t pend_records, written_records;
	struct delta_stats st;
	bool dead;          /* a write or sync failed: refuse everything */

	bool doc_open;      /* the document being built */
	uint32_t doc_url, doc_site;
	uint64_t doc_time;
	struct delta_words doc; /* its words */
};

const char *delta_writer_path(const struct delta_writer *w)
{
	return w->path;
}

void delta_writer_stats(const struct delta_writer *w, struct delta_stats *st)
{
	*st = w->st;
	st->bytes = w->size + w->pend.len;
}

static int write_pending(struct delta_writer *w)
{
	int e;

	if (!w->pend.len)
		return 0;
	if (write_all(w->fd, w->pend.ptr, w->pend.len) == 0) {
		w->size += w->pend.len;
		w->written_records += w->pend_records;
		w->pend_records = 0;
		if (w->pend.alloc > 4 * FLUSH_AT) { /* after a huge record */
			buf_free(&w->pend);
			buf_init(&w->pend, w->pend.max);
		}
		buf_reset(&w->pend);
		return 0;
	}
	/* Cut the partial batch off, so the file still ends on a record
	 * boundary; the writer is dead either way (the caller must not mark
	 * these records' URLs as indexed). */
	e = errno;
	w->dead = true;
	buf_reset(&w->pend);
	w->pend_records = 0;
	if (ftruncate(w->fd, (off_t)w->size) < 0)
		warning("%s: cannot cut back to %" PRIu64 " bytes after a failed write: %s",
			w->path, w->size, strerror(errno));
	errno = e;
	return error_errno("%s: cannot write deltas; records since the last sync are lost",
			   w->path);
}

/* Make room for a record of `total` framed bytes, and queue the COMMIT for
 * the last sync in front of it if it is not queued yet.  The COMMIT goes
 * with the next data rather than right after the sync, so that a quiet
 * writer does not append commits of commits. */
static int rec_prepare(struct delta_writer *w, size_t total)
{
	if (w->dead)
		return error("%s: delta writer failed earlier; open a new segment", w->path);
	if (w->pend.len && w->pend.len + COMMIT_REC + total > FLUSH_AT && write_pending(w))
		return -1;
	if (w->synced > w->committed) {
		unsigned char c[COMMIT_REC];
		le_put32(c, COMMIT_PAYLOAD);
		c[8] = T_COMMIT;
		le_put64(c + FRAME, w->synced);
		le_put32(c + FRAME + 8, w->hdr_crc);
		le_put32(c + 4, crc(c + 8, 1 + COMMIT_PAYLOAD));
		if (buf_add(&w->pend, c, sizeof(c)))
			return error("%s: delta buffer full", w->path);
		w->committed = w->synced;
	}
	return 0;
}

/* Fill in the frame of the record that starts at pend[start]. */
static void rec_finish(struct delta_writer *w, size_t start, unsigned type)
{
	unsigned char *p = (unsigned char *)w->pend.ptr + start;
	size_t len = w->pend.len - start - FRAME;

	le_put32(p, (uint32_t)len);
	p[8] = (unsigned char)type;
	le_put32(p + 4, crc(p + 8, len + 1));
	w->pend_records++;
	w->st.records++;
}

/* Append a small record whose payload is given whole. */
static int rec_small(struct delta_writer *w, unsigned type, const unsigned char *payload,
		     size_t len)
{
	unsigned char frame[FRAME] = { 0 };
	size_t start;

	if (rec_prepare(w, FRAME + len))
		return -1;
	start = w->pend.len;
	if (buf_add(&w->pend, frame, FRAME) || buf_add(&w->pend, payload, len)) {
		buf_truncate(&w->pend, start);
		return error("%s: delta buffer full", w->path);
	}
	rec_finish(w, start, type);
	return 0;
}

static int check_writable(struct delta_writer *w, uint32_t url_id, const char *what)
{
	if (w->doc_open)
		return error("%s: %s for url %" PRIu32 " while the DOC of url %" PRIu32
			     " is open", w->path, what, url_id, w->doc_url);
	if (!url_id)
		return error("%s: %s with url_id 0", w->path, what);
	return 0;
}

struct delta_writer *delta_open(const char *data_dir, int rank, struct buf *err)
{
	struct delta_writer *w = NULL;
	char *dir = NULL, *path = NULL;
	unsigned char h[HDR_SIZE];
	uint32_t seq = 0;
	bool created = false;
	struct dirent *de;
	DIR *d = NULL;
	int fd = -1;

	if (rank < 0) {
		error_into(err, "delta_open: bad rank %d", rank);
		goto out;
	}
	dir = xasprintf("%s/deltas", data_dir);
	if (mkdir(dir, 0755) == 0) {
		if (fsync_dir(data_dir) < 0) {
			error_into(err, "cannot sync %s: %s", data_dir, strerror(errno));
			goto out;
		}
	} else if (errno != EEXIST) {
		error_into(err, "cannot create %s: %s", dir, strerror(errno));
		goto out;
	}
	/* The next seq of this rank: one past the highest present. */
	d = opendir(dir);
	if (!d) {
		error_into(err, "cannot read %s: %s", dir, strerror(errno));
		goto out;
	}
	while ((de = readdir(d))) {
		int r;
		uint32_t s;
		if (!parse_seg_name(de->d_name, &r, &s) && r == rank && s > seq)
			seq = s;
	}
	for (int tries = 0; fd < 0; tries++) {
		if (seq == UINT32_MAX || tries == 1000) {
			error_into(err, "%s: no free segment name for rank %d", dir, rank);
			goto out;
		}
		seq++;
		free(path);
		path = delta_seg_path(data_dir, rank, seq);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST) {
			error_into(err, "cannot create %s: %s", path, strerror(errno));
			goto out;
		}
	}
	created = true;
	header_pack(h, (uint32_t)rank, (uint64_t)now_wall());
	if (write_all(fd, h, sizeof(h)) < 0 || fdatasync(fd) < 0 || fsync_dir(dir) < 0) {
		error_into(err, "cannot write the header of %s: %s", path, strerror(errno));
		goto out;
	}
	w = xcalloc(1, sizeof(*w));
	w->fd = fd;
	w->path = path;
	w->size = w->synced = w->committed = HDR_SIZE;
	w->hdr_crc = le_get32(h + 24);
	/* One record of the largest size plus a flush worth of small ones. */
	buf_init(&w->pend, FLUSH_AT + COMMIT_REC + FRAME + DELTA_MAX_PAYLOAD);
	delta_words_init(&w->doc);
	fd = -1;
	path = NULL;
out:
	if (d)
		closedir(d);
	if (fd >= 0) {
		close(fd);
		if (created)
			unlink(path); /* nothing in it but a partial header */
	}
	free(path);
	free(dir);
	return w;
}

int delta_doc_begin(struct delta_writer *w, uint32_t url_id, uint32_t site_id, uint64_t time)
{
	if (check_writable(w, url_id, "DOC"))
		return -1;
	if (w->dead)
		return error("%s: delta writer failed earlier; open a new segment", w->path);
	w->doc_open = true;
	w->doc_url = url_id;
	w->doc_site = site_id;
	w->doc_time = time;
	delta_words_reset(&w->doc);
	return 0;
}

void delta_words_init(struct delta_words *d)
{
	memset(d, 0, sizeof(*d));
	buf_init(&d->bytes, DELTA_MAX_PAYLOAD - DOC_FIXED);
}

void delta_words_reset(struct delta_words *d)
{
	d->n = 0;
	d->positions = 0;
	d->err[0] = '\0';
	if (d->bytes.alloc > FLUSH_AT) { /* do not keep a huge page's memory */
		size_t max = d->bytes.max;
		buf_free(&d->bytes);
		buf_init(&d->bytes, max);
	}
	buf_reset(&d->bytes);
}

void delta_words_free(struct delta_words *d)
{
	if (!d)
		return;
	buf_free(&d->bytes);
	free(d->ents);
	memset(d, 0, sizeof(*d));
}

#define WORDS_FAIL(d, ...) (snprintf((d)->err, sizeof((d)->err), __VA_ARGS__), -1)

int delta_words_add(struct delta_words *d, const char *word, size_t len, const uint32_t *pos,
		    size_t n)
{
	const unsigned char *wb = (const unsigned char *)word;
	unsigned char tmp[512];
	size_t size, start, k = 0;
	struct delta_word_ent *e;

	if (len < 1 || len > MAX_WORD_LEN)
		return WORDS_FAIL(d, "word of %zu bytes (1..%d allowed)", len, MAX_WORD_LEN);
	/* Strict UTF-8 (charset.c): a word is a key of the index and is
	 * echoed to users, so the log never carries anything else. */
	if (!utf8_valid((const char *)wb, len))
		return WORDS_FAIL(d, "word is not UTF-8");
	if (n < 1 || n > DELTA_MAX_WORD_POSITIONS)
		return WORDS_FAIL(d, "word \"%.*s\" with %zu positions (1..%u)", (int)len, word, n,
				  DELTA_MAX_WORD_POSITIONS);
	for (size_t i = 1; i < n; i++)
		if (pos[i] <= pos[i - 1])
			return WORDS_FAIL(d, "positions of \"%.*s\" not ascending (%u after %u)",
					  (int)len, word, (unsigned)pos[i], (unsigned)pos[i - 1]);
	size = 1 + len + 2 + varint_len(pos[0]);
	for (size_t i = 1; i < n; i++)
		size += varint_len(pos[i] - pos[i - 1]);
	if (d->n >= DELTA_MAX_DOC_WORDS || n > DELTA_MAX_DOC_POSITIONS - d->positions ||
	    size > d->bytes.max - d->bytes.len)
		return WORDS_FAIL(d, "document over the caps (%zu words, %zu positions)", d->n,
				  d->positions + n);
	if (d->n == d->alloc) {
		d->alloc = d->alloc ? 2 * d->alloc : 64;
		d->ents = xrealloc(d->ents, d->alloc * sizeof(*d->ents));
	}
	/* The appends cannot fail: the size was checked against the ceiling. */
	start = d->bytes.len;
	tmp[k++] = (unsigned char)len;
	memcpy(tmp + k, wb, len);
	k += len;
	le_put16(tmp + k, (uint16_t)n);
	k += 2;
	for (size_t i = 0; i < n; i++) {
		if (k + VARINT_MAX > sizeof(tmp)) {
			buf_add(&d->bytes, tmp, k);
			k = 0;
		}
		k += put_varint(tmp + k, i ? pos[i] - pos[i - 1] : pos[0]);
	}
	buf_add(&d->bytes, tmp, k);
	e = &d->ents[d->n++];
	e->off = start;
	e->size = size;
	e->len = len;
	e->word = NULL;
	d->positions += n;
	return 0;
}

int delta_doc_word(struct delta_writer *w, const char *word, size_t len, const uint32_t *pos,
		   size_t n)
{
	if (!w->doc_open)
		return error("%s: word outside a DOC", w->path);
	if (delta_words_add(&w->doc, word, len, pos, n))
		return error("%s: url %" PRIu32 ": %s", w->path, w->doc_url, w->doc.err);
	return 0;
}

static int cmp_doc_word(const void *a, const void *b)
{
	const struct delta_word_ent *x = a, *y = b;
	return delta_wordcmp(x->word, x->len, y->word, y->len);
}

void delta_doc_abort(struct delta_writer *w)
{
	if (!w)
		return;
	w->doc_open = false;
	delta_words_reset(&w->doc);
}

/* Check the words of d (sorting them if they came unsorted) and append
 * the DOC record of url_id.  0 or -1 (logged). */
static int write_words(struct delta_writer *w, uint32_t url_id, uint32_t site_id, uint64_t time,
		       struct delta_words *d)
{
	const unsigned char *base = (const unsigned char *)d->bytes.ptr;
	unsigned char fixed[DOC_FIXED + FRAME] = { 0 };
	size_t start;
	bool sorted = true;

	for (size_t i = 0; i < d->n; i++)
		d->ents[i].word = base + d->ents[i].off + 1;
	/* The crawl adds the words in order (its analysis sorts them): then
	 * one pass tells (and finds a word added twice), nothing is sorted
	 * here, and the words go out as they were added. */
	for (size_t i = 1; i < d->n && sorted; i++) {
		int c = cmp_doc_word(&d->ents[i - 1], &d->ents[i]);

		if (c > 0)
			sorted = false;
		else if (!c)
			goto twice;
	}
	if (!sorted) {
		w->st.resorted++;
		qsort(d->ents, d->n, sizeof(*d->ents), cmp_doc_word);
		for (size_t i = 1; i < d->n; i++)
			if (!cmp_doc_word(&d->ents[i - 1], &d->ents[i]))
				goto twice;
	}
	if (rec_prepare(w, FRAME + DOC_FIXED + d->bytes.len))
		return -1;
	start = w->pend.len;
	le_put32(fixed + FRAME, url_id);
	le_put32(fixed + FRAME + 4, site_id);
	le_put64(fixed + FRAME + 8, time);
	le_put32(fixed + FRAME + 16, (uint32_t)d->n);
	if (buf_add(&w->pend, fixed, sizeof(fixed)))
		goto full;
	if (sorted) {
		/* bytes holds the words back to back in this order. */
		if (buf_add(&w->pend, base, d->bytes.len))
			goto full;
	} else {
		for (size_t i = 0; i < d->n; i++)
			if (buf_add(&w->pend, base + d->ents[i].off, d->ents[i].size))
				goto full;
	}
	rec_finish(w, start, DELTA_DOC);
	return 0;
twice:
	for (size_t i = 1; i < d->n; i++)
		if (!cmp_doc_word(&d->ents[i - 1], &d->ents[i]))
			return error("%s: url %" PRIu32 ": word \"%.*s\" added twice", w->path, url_id,
				     (int)d->ents[i].len, (const char *)d->ents[i].word);
	return -1;
full:
	buf_truncate(&w->pend, start);
	return error("%s: delta buffer full", w->path);
}

int delta_doc_end(struct delta_writer *w)
{
	int rc;

	if (!w->doc_open)
		return error("%s: delta_doc_end without delta_doc_begin", w->path);
	rc = write_words(w, w->doc_url, w->doc_site, w->doc_time, &w->doc);
	delta_doc_abort(w);           /* closes the DOC */
	return rc;
}

int delta_add_words(struct delta_writer *w, uint32_t url_id, uint32_t site_id, uint64_t time,
		    struct delta_words *d)
{
	if (check_writable(w, url_id, "DOC"))
		return -1;
	if (w->dead)
		return error("%s: delta writer failed earlier; open a new segment", w->path);
	return write_words(w, url_id, site_id, time, d);
}

int delta_add_del(struct delta_writer *w, uint32_t url_id)
{
	unsigned char p[4];

	if (check_writable(w, url_id, "DEL"))
		return -1;
	le_put32(p, url_id);
	return rec_small(w, DELTA_DEL, p, sizeof(p));
}

int delta_add_redir(struct delta_writer *w, uint32_t url_id, uint32_t target)
{
	unsigned char p[8];

	if (check_writable(w, url_id, "REDIR"))
		return -1;
	if (!target)
		return error("%s: REDIR of url %" PRIu32 " to url_id 0", w->path, url_id);
	le_put32(p, url_id);
	le_put32(p + 4, target);
	return rec_small(w, DELTA_REDIR, p, sizeof(p));
}

int delta_add_lastmod(struct delta_writer *w, uint32_t url_id, uint64_t last_modified)
{
	unsigned char p[12];

	if (check_writable(w, url_id, "LASTMOD"))
		return -1;
	le_put32(p, url_id);
	le_put64(p + 4, last_modified);
	return rec_small(w, DELTA_LASTMOD, p, sizeof(p));
}

/* A TEXT field: u16 length and the bytes (no NUL). */
static int text_field(struct buf *b, const char *f)
{
	size_t n = f ? strlen(f) : 0;
	unsigned char l[2];

	if (n > DELTA_MAX_TEXT_FIELD)
		return -1;
	le_put16(l, (uint16_t)n);
	return buf_add(b, l, 2) || buf_add(b, f ? f : "", n) ? -1 : 0;
}

int delta_add_text(struct delta_writer *w, uint32_t url_id, const struct delta_text *t)
{
	const char *f[5] = { t->content_type, t->charset, t->title, t->description, t->keywords };
	size_t total = 8 + 4 + t->blob_len, start;
	unsigned char v[FRAME]; /* the frame (rec_finish() fills it), then 8 bytes */

	if (check_writable(w, url_id, "TEXT"))
		return -1;
	for (int i = 0; i < 5; i++) {
		size_t n = f[i] ? strlen(f[i]) : 0;

		if (n > DELTA_MAX_TEXT_FIELD)
			return error("%s: TEXT of url %" PRIu32 ": a field of %zu bytes (at most %u)",
				     w->path, url_id, n, DELTA_MAX_TEXT_FIELD);
		total += 2 + n;
	}
	if (total > DELTA_MAX_PAYLOAD)
		return 0; /* the merge reads the row (delta.h) */
	if (rec_prepare(w, FRAME + total))
		return -1;
	start = w->pend.len;
	memset(v, 0, sizeof(v));
	if (buf_add(&w->pend, v, FRAME))
		goto full;
	le_put32(v, url_id);
	le_put32(v + 4, t->size);
	if (buf_add(&w->pend, v, 8))
		goto full;
	for (int i = 0; i < 5; i++)
		if (text_field(&w->pend, f[i]))
			goto full;
	le_put32(v, (uint32_t)t->blob_len);
	if (buf_add(&w->pend, v, 4) || buf_add(&w->pend, t->blob ? t->blob : "", t->blob_len))
		goto full;
	rec_finish(w, start, DELTA_TEXT);
	return 0;
full:
	buf_truncate(&w->pend, start);
	return error("%s: delta buffer full", w->path);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

int delta_add_hrefs(struct delta_writer *w, uint32_t url_id, const uint32_t *targets, size_t n)
{
	unsigned char tmp[4096];
	uint32_t *t = NULL;
	size_t m = 0, start, k;
	int rc = -1;

	if (check_writable(w, url_id, "HREFS"))
		return -1;
	if (n > DELTA_MAX_HREFS)
		return error("%s: url %" PRIu32 ": %zu links (at most %u)", w->path, url_id, n,
			     DELTA_MAX_HREFS);
	if (n) {
		t = xmalloc(n * sizeof(*t));
		memcpy(t, targets, n * sizeof(*t));
		qsort(t, n, sizeof(*t), cmp_u32);
		if (!t[0]) {
			error("%s: url %" PRIu32 ": link to url_id 0", w->path, url_id);
			goto out;
		}
		for (size_t i = 0; i < n; i++)
			if (!m || t[i] != t[m - 1])
				t[m++] = t[i];
	}
	if (rec_prepare(w, FRAME + 8 + 4 * m))
		goto out;
	start = w->pend.len;
	memset(tmp, 0, FRAME);
	le_put32(tmp + FRAME, url_id);
	le_put32(tmp + FRAME + 4, (uint32_t)m);
	k = FRAME + 8;
	for (size_t i = 0; i <= m; i++) {
		if (i == m || k + 4 > sizeof(tmp)) {
			if (buf_add(&w->pend, tmp, k)) {
				buf_truncate(&w->pend, start);
				error("%s: delta buffer full", w->path);
				goto out;
			}
			k = 0;
		}
		if (i < m) {
			le_put32(tmp + k, t[i]);
			k += 4;
		}
	}
	rec_finish(w, start, DELTA_HREFS);
	rc = 0;
out:
	free(t);
	return rc;
}

int delta_sync(struct delta_writer *w)
{
	if (w->dead)
		return error("%s: delta writer failed earlier; open a new segment", w->path);
	if (write_pending(w))
		return -1;
	if (w->size == w->synced)
		return 0;
	if (fdatasync(w->fd) < 0) {
		/* After a failed fsync the kernel may have dropped the dirty
		 * pages: nothing since the last good sync can be trusted. */
		w->dead = true;
		return error_errno("%s: fdatasync failed; records since the last sync are lost",
				   w->path);
	}
	w->synced = w->size;
	w->st.durable = w->written_records;
	w->st.syncs++;
	return 0;
}

int delta_close(struct delta_writer *w)
{
	int rc = 0;

	if (!w)
		return 0;
	if (w->doc_open) {
		warning("%s: closing with the DOC of url %" PRIu32 " unfinished; dropped", w->path,
			w->doc_url);
		delta_doc_abort(w);
	}
	if (w->dead || delta_sync(w) < 0) {
		rc = -1;
	} else if (w->synced > w->committed) {
		/* A final COMMIT vouches for the whole file, so that any later
		 * damage to it reads as corruption, never as a torn tail. */
		if (rec_prepare(w, 0) < 0 || delta_sync(w) < 0)
			rc = -1;
	}
	if (close(w->fd) < 0 && rc == 0)
		rc = error_errno("%s: close", w->path);
	buf_free(&w->pend);
	delta_words_free(&w->doc);
	free(w->path);
	free(w);
	return rc;
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

int delta_text_at(struct delta_reader *r, uint64_t doc_off, uint32_t url_id,
		  struct delta_rec *rec)
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
			 * tail, or corruption): what lies past it is no TEXT
			 * of this log. */
			if (len != COMMIT_PAYLOAD)
				return 0;
			if (!(p = rnd_read(r, off, COMMIT_REC)))
				return -1;
			if (crc(p + 8, 1 + COMMIT_PAYLOAD) != le_get32(p + 4))
				return 0;
		} else {
			if (type != DELTA_TEXT || le_get32(p + FRAME) != url_id)
				return 0;
			if (!(p = rnd_read(r, off, FRAME + (size_t)len)))
				return -1;
			/* A TEXT torn by a crash after its DOC was synced: none. */
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
		}
		off += FRAME + (uint64_t)len;
	}
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
	if (r->size <= HDR_SIZE) {
		p = r->size ? peek(r, 0, (size_t)r->size) : MAGIC;
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
	if (!(p = peek(r, 0, HDR_SIZE)))
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

/* ---- listing ------------------------------------------------------------ */

static uint64_t read_created(const char *path)
{
	unsigned char h[HDR_SIZE];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t k;

	if (fd < 0)
		return 0;
	k = pread(fd, h, sizeof(h), 0);
	close(fd);
	if (k != (ssize_t)sizeof(h) || memcmp(h, MAGIC, sizeof(MAGIC)) ||
	    !VERSION_KNOWN(le_get32(h + 8)) ||
	    crc(h, 24) != le_get32(h + 24))
		return 0;
	return le_get64(h + 16);
}

static int cmp_seg(const void *a, const void *b)
{
	const struct delta_seg *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return strcmp(x->path, y->path); /* r2-7 vs r2-000007: still stable */
}

int delta_list(const char *data_dir, struct delta_seg **out, size_t *n, struct buf *err)
{
	struct delta_seg *segs = NULL;
	size_t count = 0, alloc = 0;
	char *dir = xasprintf("%s/deltas", data_dir);
	struct dirent *de;
	DIR *d;
	int rc = -1;

	*out = NULL;
	*n = 0;
	d = opendir(dir);
	if (!d) {
		if (errno == ENOENT)
			rc = 0;
		else
			error_into(err, "cannot read %s: %s", dir, strerror(errno));
		goto out;
	}
	while ((de = readdir(d))) {
		struct delta_seg s;
		if (parse_seg_name(de->d_name, &s.rank, &s.seq))
			continue;
		if (count == alloc) {
			alloc = alloc ? 2 * alloc : 16;
			segs = xrealloc(segs, alloc * sizeof(*segs));
		}
		s.path = xasprintf("%s/%s", dir, de->d_name);
		s.created = read_created(s.path);
		segs[count++] = s;
	}
	closedir(d);
	if (count)
		qsort(segs, count, sizeof(*segs), cmp_seg);
	*out = segs;
	*n = count;
	segs = NULL;
	rc = 0;
out:
	free(segs);
	free(dir);
	return rc;
}

void delta_list_free(struct delta_seg *segs, size_t n)
{
	if (!segs)
		return;
	for (size_t i = 0; i < n; i++)
		free(segs[i].path);
	free(segs);
}
