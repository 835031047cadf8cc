/* delta.c - the per-rank delta log declared in delta.h.
 *
 * Writer: records are framed in memory, written in batches, made durable by
 * delta_sync() (one fdatasync per batch), and every batch after a sync
 * starts with a COMMIT record saying how far the file was synced (what
 * lets the reader, delta_read.c, tell a crash's torn tail from corruption
 * of data that was once durable); the segments' names and their listing.
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
#include "delta_int.h"

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

_Static_assert(sizeof(uint16_t) == 2 && sizeof(uint32_t) == 4 && sizeof(uint64_t) == 8,
	       "fixed widths");


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
	size_t n = f ? strlen(f) : 0; /* at most DELTA_MAX_TEXT_FIELD: checked */
	unsigned char l[2];

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
