/* docstore.c - a generation's document store (include/docstore.h): the
 * writer and the merge's builder (old store + urlwordsNN rows), and the
 * bounds-checked reader searchd and --check use.  Layout in doc/FORMATS.md,
 * "docstore".  It knows nothing of postings or of the page.
 */
#include "config.h"

#include <fcntl.h>
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "binfile.h"
#include "buf.h"
#include "caps.h"
#include "charset.h"
#include "db.h"
#include "docblob.h"
#include "docstore.h"
#include "log.h"
#include "storage.h"
#include "util.h"

static const unsigned char MAGIC[8] = { 'M', 'P', 'S', 'D', 'S', 'T', 0, 2 };
/* Version 1 (before 2026-11-27): every block one stream of whole records
 * (T_FLEN 0); read as before, and its blocks copied as they are. */
static const unsigned char MAGIC1[8] = { 'M', 'P', 'S', 'D', 'S', 'T', 0, 1 };

enum {
	H_VERSION = 8, H_PART = 12, H_ENTRIES = 16, H_CRC = 24, H_HCRC = 28, HEADER = 32,
	T_FIRST = 0, T_LAST = 4, T_OFF = 8, T_CLEN = 16, T_RLEN = 20, T_DOCS = 24, T_FLEN = 28,
	T_SIZE = 32,
	N_FIELDS = 5,
	/* url_id, flags, size, five (u16 length, NUL), text length */
	REC_MIN = 4 + 1 + 4 + N_FIELDS * 3 + 4,
	F_FOUND = 1, F_TEXT = 2,
};
_Static_assert(DOCSTORE_BLOCK + REC_MIN + N_FIELDS * DOCSTORE_MAX_FIELD + DOCSTORE_MAX_TEXT <=
		       DOCSTORE_MAX_RAW, "a block closed after its last record fits the reader");

/* ---- writing ------------------------------------------------------------- */

struct docstore_writer {
	struct binfile f;
	uint8_t *level_buf;        /* igzip's level 1 state */
	struct buf raw;            /* the block being filled: its records without their texts, */
	struct buf text;           /* and their texts */
	unsigned char *out;        /* its compressed form */
	size_t out_cap;
	struct buf table;          /* T_SIZE bytes per block */
	uint32_t first, last, in_block;
	uint64_t off, docs;
	uint32_t crc;              /* of everything after the header */
};

static int w_write(struct docstore_writer *w, const void *p, size_t n)
{
	w->crc = binfile_crc_update(w->crc, p, n);
	return binfile_write(&w->f, p, n);
}

int docstore_writer_open(const char *gen_dir, struct docstore_writer **out, struct buf *err)
{
	struct docstore_writer *w = xcalloc(1, sizeof(*w));
	char *path = xasprintf("%s/%s", gen_dir, DOCSTORE_FILE);
	unsigned char h[HEADER] = { 0 };
	int rc = 0;

	*out = NULL;
	buf_init(&w->raw, DOCSTORE_MAX_RAW);
	buf_init(&w->text, DOCSTORE_MAX_RAW);
	buf_init(&w->table, (size_t)1 << 34);
	w->level_buf = xmalloc(DOCBLOB_SCRATCH);
	/* Stored blocks, should a block not compress: 5 bytes a 64 KiB,
	 * for each of its two streams. */
	w->out_cap = DOCSTORE_MAX_RAW + DOCSTORE_MAX_RAW / 16 + 128;
	w->out = xmalloc(w->out_cap);
	if (binfile_create(&w->f, path)) {
		buf_printf(err, "%s: cannot create", path);
		rc = -1;
	} else if (binfile_write(&w->f, h, sizeof(h))) {
		buf_printf(err, "%s: cannot write", path);
		binfile_abort(&w->f);
		rc = -1;
	}
	free(path);
	if (rc) {
		free(w->level_buf);
		buf_free(&w->raw);
		buf_free(&w->text);
		buf_free(&w->table);
		free(w->out);
		free(w);
		return -1;
	}
	*out = w;
	return 0;
}

static int flush_block(struct docstore_writer *w, struct buf *err)
{
	unsigned char t[T_SIZE] = { 0 };
	size_t n, nt = 0;

	if (!w->in_block)
		return 0;
	/* Raw deflate by igzip at level 1: twice as fast as libdeflate's
	 * level 1, which took a quarter of the merge's CPU at 10^6 pages
	 * (doc/MERGE.md); the reader inflates it with libdeflate as before.
	 * Two streams: the records, then their texts (none when all are
	 * empty), so that a page without snippets inflates the first alone. */
	n = docblob_deflate(w->level_buf, w->raw.ptr, w->raw.len, w->out, w->out_cap, false);
	if (n && w->text.len)
		nt = docblob_deflate(w->level_buf, w->text.ptr, w->text.len, w->out + n,
				     w->out_cap - n, false);
	if (!n || (w->text.len && !nt)) {
		buf_printf(err, "docstore: a block does not compress");
		return -1;
	}
	le_put32(t + T_FIRST, w->first);
	le_put32(t + T_LAST, w->last);
	le_put64(t + T_OFF, w->off);
	le_put32(t + T_CLEN, (uint32_t)(n + nt));
	le_put32(t + T_RLEN, (uint32_t)(w->raw.len + w->text.len));
	le_put32(t + T_DOCS, w->in_block);
	le_put32(t + T_FLEN, (uint32_t)n);
	n += nt;
	if (w_write(w, w->out, n) || buf_add(&w->table, t, sizeof(t))) {
		buf_printf(err, "docstore: cannot write a block");
		return -1;
	}
	w->off += n;
	w->in_block = 0;
	buf_reset(&w->raw);
	buf_reset(&w->text);
	return 0;
}

static void put_field(struct buf *b, const char *s)
{
	size_t len = s ? strlen(s) : 0;
	unsigned char l[2];

	if (len > DOCSTORE_MAX_FIELD)
		len = utf8_cut(s, len, DOCSTORE_MAX_FIELD);
	le_put16(l, (uint16_t)len);
	buf_add(b, l, 2);
	buf_add(b, s ? s : "", len);
	buf_addc(b, '\0');
}

int docstore_writer_put(struct docstore_writer *w, uint32_t url_id, const struct docstore_doc *d,
			struct buf *err)
{
	const char *f[N_FIELDS] = { d->title, d->description, d->keywords, d->content_type,
				    d->charset };
	size_t tl = d->has_text ? d->text_len : 0;
	unsigned char v[9];

	if (!url_id || (w->docs && url_id <= w->last)) {
		buf_printf(err, "docstore: url_id %u out of order", url_id);
		return -1;
	}
	if (tl > DOCSTORE_MAX_TEXT)
		tl = DOCSTORE_MAX_TEXT;
	le_put32(v, url_id);
	v[4] = (unsigned char)((d->found ? F_FOUND : 0) | (d->has_text ? F_TEXT : 0));
	le_put32(v + 5, d->size);
	buf_add(&w->raw, v, 9);
	for (int i = 0; i < N_FIELDS; i++)
		put_field(&w->raw, f[i]);
	le_put32(v, (uint32_t)tl);
	buf_add(&w->raw, v, 4);
	buf_add(&w->text, d->text, tl);
	if (!w->in_block++)
		w->first = url_id;
	w->last = url_id;
	w->docs++;
	return w->raw.len + w->text.len >= DOCSTORE_BLOCK ? flush_block(w, err) : 0;
}

void docstore_writer_abort(struct docstore_writer *w)
{
	if (!w)
		return;
	binfile_abort(&w->f);
	free(w->level_buf);
	buf_free(&w->raw);
	buf_free(&w->text);
	buf_free(&w->table);
	free(w->out);
	free(w);
}

int docstore_writer_commit(struct docstore_writer *w, uint64_t *n_docs, struct buf *err)
{
	unsigned char h[HEADER] = { 0 };
	int rc = -1;

	if (flush_block(w, err))
		goto out;
	if (w->table.len && w_write(w, w->table.ptr, w->table.len)) {
		buf_printf(err, "docstore: cannot write the block table");
		goto out;
	}
	memcpy(h, MAGIC, 8);
	le_put32(h + H_VERSION, STORAGE_FORMAT_VERSION);
	le_put32(h + H_PART, 0xFFFFFFFFu);
	le_put64(h + H_ENTRIES, w->table.len / T_SIZE);
	le_put32(h + H_CRC, w->crc);
	le_put32(h + H_HCRC, binfile_crc(h, H_HCRC));
	if (binfile_pwrite(&w->f, h, sizeof(h), 0) || binfile_commit(&w->f)) {
		buf_printf(err, "docstore: cannot commit");
		goto out;
	}
	if (n_docs)
		*n_docs = w->docs;
	rc = 0;
out:
	if (rc) {
		docstore_writer_abort(w);
		return -1;
	}
	free(w->level_buf);
	buf_free(&w->raw);
	buf_free(&w->text);
	buf_free(&w->table);
	free(w->out);
	free(w);
	return 0;
}

/* ---- reading ------------------------------------------------------------- */

struct docstore {
	const unsigned char *map;  /* NULL for docstore_open_mem() */
	const unsigned char *p;
	size_t size;
	const unsigned char *table;
	size_t n_blocks;
	uint64_t docs;
	bool v1;                   /* version 1: no block has two streams */
	char *path;                /* for messages */
};

static int damaged(struct buf *err, const struct docstore *ds, const char *fmt, size_t at)
{
	char what[160];

	snprintf(what, sizeof(what), fmt, at);
	return binfile_damaged(err, ds->path, what);
}

/* Header and block table: every block inside the data, back to back,
 * url_ids ascending, sizes within the caps. */
static int check_table(struct docstore *ds, struct buf *err)
{
	uint64_t n = le_get64(ds->p + H_ENTRIES), end = 0, last = 0;
	size_t data = ds->size - HEADER;

	if (le_get32(ds->p + H_PART) != 0xFFFFFFFFu)
		return damaged(err, ds, "offset %zu: not 0xFFFFFFFF", H_PART);
	if (n > data / T_SIZE)
		return damaged(err, ds, "offset %zu: more blocks than the file holds", H_ENTRIES);
	ds->n_blocks = (size_t)n;
	ds->table = ds->p + ds->size - ds->n_blocks * T_SIZE;
	for (size_t i = 0; i < ds->n_blocks; i++) {
		const unsigned char *t = ds->table + i * T_SIZE;
		uint32_t first = le_get32(t + T_FIRST), rlen = le_get32(t + T_RLEN);
		uint32_t docs = le_get32(t + T_DOCS), clen = le_get32(t + T_CLEN);
		uint32_t flen = le_get32(t + T_FLEN);
		size_t at = (size_t)(t - ds->p);

		if (le_get64(t + T_OFF) != end || !clen || clen > data - ds->n_blocks * T_SIZE - end)
			return damaged(err, ds, "offset %zu: block outside the data", at);
		if (flen > clen || (flen && ds->v1))
			return damaged(err, ds, "offset %zu: impossible stream length", at);
		if (rlen < REC_MIN || rlen > DOCSTORE_MAX_RAW || !docs || docs > rlen / REC_MIN)
			return damaged(err, ds, "offset %zu: impossible block size", at);
		if (!first || first <= last || le_get32(t + T_LAST) < first)
			return damaged(err, ds, "offset %zu: url_ids out of order", at);
		last = le_get32(t + T_LAST);
		end += clen;
		ds->docs += docs;
	}
	if (end != data - ds->n_blocks * T_SIZE)
		return damaged(err, ds, "offset %zu: bytes between the blocks and the table", HEADER);
	return 0;
}

static int open_common(struct docstore *ds, struct docstore **out, struct buf *err)
{
	if (check_table(ds, err)) {
		docstore_close(ds);
		return -1;
	}
	*out = ds;
	return 1;
}

/* Whether path starts with version 1's magic (else it is read as the
 * current version, whose checks report what it is). */
static bool is_v1(const char *path)
{
	unsigned char m[8];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool v1 = fd >= 0 && pread(fd, m, 8, 0) == 8 && !memcmp(m, MAGIC1, 8);

	if (fd >= 0)
		close(fd);
	return v1;
}

int docstore_open(const char *gen_dir, struct docstore **out, struct buf *err)
{
	struct docstore *ds = xcalloc(1, sizeof(*ds));
	int rc;

	*out = NULL;
	ds->path = xasprintf("%s/%s", gen_dir, DOCSTORE_FILE);
	ds->v1 = is_v1(ds->path);
	rc = binfile_open_checked(ds->path, ds->v1 ? MAGIC1 : MAGIC, STORAGE_FORMAT_VERSION, H_HCRC,
				  HEADER, "docstore", &ds->map, &ds->size, err);
	if (rc <= 0) {
		docstore_close(ds);
		return rc;
	}
	ds->p = ds->map;
	return open_common(ds, out, err);
}

int docstore_open_mem(const unsigned char *p, size_t size, struct docstore **out, struct buf *err)
{
	struct docstore *ds = xcalloc(1, sizeof(*ds));

	*out = NULL;
	ds->path = xstrdup("docstore");
	ds->p = p;
	ds->size = size;
	ds->v1 = size >= HEADER && !memcmp(p, MAGIC1, 8);
	if (size < HEADER || (memcmp(p, MAGIC, 8) && !ds->v1) ||
	    le_get32(p + H_VERSION) != STORAGE_FORMAT_VERSION ||
	    le_get32(p + H_HCRC) != binfile_crc(p, H_HCRC)) {
		damaged(err, ds, "offset %zu: not a docstore file of this version", 0);
		docstore_close(ds);
		return -1;
	}
	return open_common(ds, out, err);
}

void docstore_close(struct docstore *ds)
{
	if (!ds)
		return;
	if (ds->map)
		binfile_unmap(ds->map, ds->size);
	free(ds->path);
	free(ds);
}

uint64_t docstore_docs(const struct docstore *ds)
{
	return ds->docs;
}

size_t docstore_blocks(const struct docstore *ds)
{
	return ds->n_blocks;
}

void docstore_cursor_free(struct docstore_cursor *c)
{
	if (c->dec)
		libdeflate_free_decompressor(c->dec);
	free(c->raw);
	memset(c, 0, sizeof(*c));
}

/* Block i's records into c, and with text its texts too (nothing when c
 * holds them already).  A block of two streams (T_FLEN, the first's
 * length) has its records in the first, their texts back to back in the
 * second; a block of one (T_FLEN 0: version 1, or copied from it) has
 * each record's text after it.  c->recs is where the records end. */
static int load_block(const struct docstore *ds, struct docstore_cursor *c, size_t i, bool text,
		      struct buf *err)
{
	const unsigned char *t = ds->table + i * T_SIZE;
	const unsigned char *src = ds->p + HEADER + le_get64(t + T_OFF);
	size_t rlen = le_get32(t + T_RLEN), clen = le_get32(t + T_CLEN);
	size_t flen = le_get32(t + T_FLEN), got = 0;

	if (c->ds != ds || c->block != i || !c->raw) {
		c->ds = NULL;
		if (!c->raw)
			c->raw = xmalloc(DOCSTORE_MAX_RAW);
		if (!c->dec && !(c->dec = libdeflate_alloc_decompressor()))
			return damaged(err, ds, "offset %zu: no decompressor", 0);
		if (libdeflate_deflate_decompress(c->dec, src, flen ? flen : clen, c->raw, rlen,
						  &got) != LIBDEFLATE_SUCCESS ||
		    (!flen && got != rlen) || got < REC_MIN)
			return damaged(err, ds, "offset %zu: block does not decompress",
				       (size_t)(src - ds->p));
		c->ds = ds;
		c->block = i;
		c->raw_len = rlen;
		c->recs = got;
		c->split = flen != 0;
		c->texts = !flen;
	}
	if (text && !c->texts) {
		size_t tl = rlen - c->recs;
		/* No second stream when every text is empty. */
		bool ok = !tl ? clen == flen :
			  clen > flen && libdeflate_deflate_decompress(c->dec, src + flen, clen - flen,
								       c->raw + c->recs, tl, &got) ==
						 LIBDEFLATE_SUCCESS && got == tl;

		if (!ok)
			return damaged(err, ds, "offset %zu: texts do not decompress",
				       (size_t)(src + flen - ds->p));
		c->texts = true;
	}
	return 0;
}

/* The record at *pos of the block in c into d; *pos moves past it, and
 * *tpos past its text in a block of two streams (d->text NULL when c
 * holds the records alone).  0, or -1 when it runs past the block or a
 * field lacks its NUL. */
static int parse_rec(const struct docstore_cursor *c, size_t *pos, size_t *tpos,
		     uint32_t *url_id, struct docstore_doc *d)
{
	const unsigned char *p = c->raw;
	size_t at = *pos, end = c->recs;
	const char **f[N_FIELDS] = { &d->title, &d->description, &d->keywords, &d->content_type,
				     &d->charset };

	if (end - at < 9)
		return -1;
	*url_id = le_get32(p + at);
	d->found = p[at + 4] & F_FOUND;
	d->has_text = p[at + 4] & F_TEXT;
	d->size = le_get32(p + at + 5);
	at += 9;
	for (int i = 0; i < N_FIELDS; i++) {
		size_t len;

		if (end - at < 2)
			return -1;
		len = le_get16(p + at);
		at += 2;
		if (end - at < len + 1 || p[at + len] != '\0')
			return -1;
		*f[i] = (const char *)p + at;
		at += len + 1;
	}
	if (end - at < 4)
		return -1;
	d->text_len = le_get32(p + at);
	at += 4;
	if (d->text_len > DOCSTORE_MAX_TEXT)
		return -1;
	if (!c->split) {
		if (end - at < d->text_len)
			return -1;
		d->text = (const char *)p + at;
		at += d->text_len;
	} else {
		if (c->raw_len - c->recs - *tpos < d->text_len)
			return -1;
		d->text = c->texts ? (const char *)p + c->recs + *tpos : NULL;
		*tpos += d->text_len;
	}
	*pos = at;
	return 0;
}

/* url_id's entry, with its text or not. */
static int get(const struct docstore *ds, struct docstore_cursor *c, uint32_t url_id, bool text,
	       struct docstore_doc *d, struct buf *err)
{
	size_t lo = 0, hi = ds->n_blocks, pos = 0, tpos = 0;

	memset(d, 0, sizeof(*d));
	while (lo < hi) { /* the first block whose last url_id >= url_id */
		size_t mid = lo + (hi - lo) / 2;

		if (le_get32(ds->table + mid * T_SIZE + T_LAST) < url_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == ds->n_blocks || le_get32(ds->table + lo * T_SIZE + T_FIRST) > url_id)
		return 0;
	if (load_block(ds, c, lo, text, err))
		return -1;
	while (pos < c->recs) {
		uint32_t id;

		if (parse_rec(c, &pos, &tpos, &id, d))
			return damaged(err, ds, "block %zu: a record runs past the block", lo);
		if (id == url_id) {
			if (!text) {
				d->text = NULL;
				d->text_len = 0;
			}
			return 1;
		}
		if (id > url_id)
			break;
	}
	memset(d, 0, sizeof(*d));
	return 0;
}

int docstore_get(const struct docstore *ds, struct docstore_cursor *c, uint32_t url_id,
		 struct docstore_doc *d, struct buf *err)
{
	return get(ds, c, url_id, true, d, err);
}

int docstore_get_fields(const struct docstore *ds, struct docstore_cursor *c, uint32_t url_id,
			struct docstore_doc *d, struct buf *err)
{
	return get(ds, c, url_id, false, d, err);
}

int docstore_verify(const struct docstore *ds, int (*fn)(void *arg, uint32_t url_id), void *arg,
		    struct buf *err)
{
	struct docstore_cursor c = { 0 };
	struct docstore_doc d;
	int rc = 0;

	if (binfile_crc_update(0, ds->p + HEADER, ds->size - HEADER) != le_get32(ds->p + H_CRC))
		rc = damaged(err, ds, "offset %zu: data CRC mismatch", H_CRC);
	for (size_t i = 0; !rc && i < ds->n_blocks; i++) {
		const unsigned char *t = ds->table + i * T_SIZE;
		uint32_t prev = 0, id = 0, n = 0;
		size_t pos = 0, tpos = 0;

		if (load_block(ds, &c, i, true, err)) {
			rc = -1;
			break;
		}
		while (!rc && pos < c.recs) {
			if (parse_rec(&c, &pos, &tpos, &id, &d) || id <= prev)
				rc = damaged(err, ds, "block %zu: damaged record", i);
			else if (fn && fn(arg, id))
				rc = -1;
			prev = id;
			n++;
		}
		if (!rc && (n != le_get32(t + T_DOCS) || le_get32(t + T_FIRST) > le_get32(t + T_LAST) ||
			    id != le_get32(t + T_LAST) || c.recs + tpos != c.raw_len))
			rc = damaged(err, ds, "block %zu: records disagree with the table", i);
	}
	docstore_cursor_free(&c);
	return rc;
}

int docstore_each(const struct docstore *ds, docstore_each_fn fn, void *arg, struct buf *err)
{
	struct docstore_cursor c = { 0 };
	struct docstore_doc d;
	int rc = 0;

	for (size_t i = 0; !rc && i < ds->n_blocks; i++) {
		size_t pos = 0, tpos = 0;
		uint32_t id;

		/* Read once, in order: the pages read are not kept resident
		 * (the merge's boilerplate pass reads a whole docstore: 264 MiB
		 * of a 30,000-page crawl's rank, 1.9 GiB at 300,000 pages). */
		if (ds->map && (i & 1023) == 1023)
			madvise((void *)ds->map, ds->size, MADV_DONTNEED);
		if (load_block(ds, &c, i, true, err)) {
			rc = -1;
			break;
		}
		while (!rc && pos < c.recs)
			if (parse_rec(&c, &pos, &tpos, &id, &d))
				rc = damaged(err, ds, "block %zu: damaged record", i);
			else if (fn(arg, id, &d))
				rc = -1;
	}
	docstore_cursor_free(&c);
	return rc;
}

/* ---- the merge's builder ---------------------------------------------------- */

/* A document (or an old block) waiting for its batch. */
struct pend {
	uint32_t url_id;           /* a block: its first */
	enum { P_OLD, P_DB, P_BLOCK, P_GIVEN } how;
	size_t block;              /* P_BLOCK: the old block copied as it is */
	uint64_t where;            /* P_DB: for the row function */
};

struct docstore_builder {
	struct docstore_writer *w;
	const struct docstore *old;
	struct docstore_cursor cur;
	docstore_db_fn db_fn;
	void *db_arg;
	struct db *db;             /* from db_fn, once a batch needs it */
	struct pend *pend;
	size_t n, cap;
	uint32_t *ids;
	struct db_hit_doc *rows;   /* the database's */
	struct db_hit_doc *given;  /* the row function's, by pending entry */
	docstore_row_fn row_fn;
	void *row_arg;
	struct buf text;
	uint64_t copied, read, n_given, adds;
	/* An old block whose documents are being added in order, none of
	 * them touched: when all are, its compressed bytes are copied. */
	bool cand;
	size_t cand_block, cand_n, cand_matched;
	uint32_t *cand_ids;        /* its url_ids, at most DOCSTORE_MAX_RAW / REC_MIN */
};

int docstore_build_begin(const char *gen_dir, const struct docstore *old, docstore_db_fn db_fn,
			 void *db_arg, size_t mem, struct docstore_builder **out, struct buf *err)
{
	struct docstore_builder *b = xcalloc(1, sizeof(*b));

	*out = NULL;
	if (docstore_writer_open(gen_dir, &b->w, err)) {
		free(b);
		return -1;
	}
	b->old = old;
	b->db_fn = db_fn;
	b->db_arg = db_arg;
	/* A row carries at most MaxDocSize of compressed text; most are a few
	 * KiB.  Batches are counted so that ~16 KiB a row fits in mem. */
	b->cap = mem / (16u << 10);
	b->cap = b->cap < 16 ? 16 : b->cap > DB_MAX_HIT_DOCS ? DB_MAX_HIT_DOCS : b->cap;
	b->pend = xmalloc(b->cap * sizeof(*b->pend));
	b->ids = xmalloc(b->cap * sizeof(*b->ids));
	b->rows = xcalloc(b->cap, sizeof(*b->rows));
	b->given = xcalloc(b->cap, sizeof(*b->given));
	buf_init(&b->text, DOCSTORE_MAX_TEXT + 1);
	*out = b;
	return 0;
}

void docstore_build_rows(struct docstore_builder *b, docstore_row_fn fn, void *arg)
{
	b->row_fn = fn;
	b->row_arg = arg;
}

static int put_row(struct docstore_builder *b, const struct db_hit_doc *r, struct buf *err)
{
	struct docstore_doc d = { .found = r->found, .size = r->size, .title = r->title,
				  .description = r->description, .keywords = r->keywords,
				  .content_type = r->content_type, .charset = r->charset };
	struct buf bad = BUF_INIT(1024);

	/* The text as docblob_inflate() gives it to snippets: its first
	 * DOCSTORE_MAX_TEXT bytes; none (nor snippets) when it does not
	 * inflate. */
	if (r->found && r->text &&
	    docblob_inflate(r->text, r->text_len, DOCSTORE_MAX_TEXT, &b->text, &bad) == 0) {
		d.has_text = true;
		d.text = b->text.ptr ? b->text.ptr : "";
		d.text_len = b->text.len;
	}
	buf_free(&bad);
	return docstore_writer_put(b->w, r->url_id, &d, err);
}

/* Old block i's bytes as they are, after the block being filled. */
static int copy_block(struct docstore_builder *b, size_t i, struct buf *err)
{
	struct docstore_writer *w = b->w;
	const unsigned char *t = b->old->table + i * T_SIZE;
	unsigned char e[T_SIZE];
	uint32_t clen = le_get32(t + T_CLEN);

	if (flush_block(w, err))
		return -1;
	memcpy(e, t, T_SIZE);
	le_put64(e + T_OFF, w->off);
	if (w_write(w, b->old->p + HEADER + le_get64(t + T_OFF), clen) ||
	    buf_add(&w->table, e, T_SIZE)) {
		buf_printf(err, "docstore: cannot write a block");
		return -1;
	}
	w->off += clen;
	w->docs += le_get32(t + T_DOCS);
	w->last = le_get32(t + T_LAST);
	b->copied += le_get32(t + T_DOCS);
	return 0;
}

/* The pending entries written in url_id order: old blocks copied, old
 * entries re-encoded, fresh ones from the row function when it has them
 * (the merge: the delta logs' TEXT records), the others read from the
 * database in one SELECT. */
static int flush_pending(struct docstore_builder *b, struct buf *err)
{
	struct docstore_doc d;
	size_t n_ids = 0, k = 0;
	int rc = 0;

	for (size_t i = 0; !rc && i < b->n; i++) {
		struct pend *p = &b->pend[i];

		if (p->how == P_OLD &&
		    (!b->old || docstore_get(b->old, &b->cur, p->url_id, &d, NULL) != 1)) {
			p->how = P_DB;
			p->where = 0;
		}
		if (p->how == P_DB && p->where && b->row_fn) {
			rc = b->row_fn(b->row_arg, p->url_id, p->where, &b->given[i], err);
			if (rc == 1)
				p->how = P_GIVEN;
			rc = rc < 0 ? -1 : 0;
		}
		if (p->how == P_DB)
			b->ids[n_ids++] = p->url_id;
	}
	if (!rc && n_ids && !b->db) {
		if (!b->db_fn)
			buf_printf(err, "docstore: %zu document(s) to read and no database", n_ids);
		else if (!(b->db = b->db_fn(b->db_arg, err)) && !err->len)
			buf_printf(err, "docstore: no database for %zu document(s)", n_ids);
		rc = b->db ? 0 : -1;
	}
	if (!rc && n_ids && db_hit_docs(b->db, b->ids, n_ids, true, b->rows)) {
		buf_printf(err, "docstore: cannot read the documents' rows");
		n_ids = 0;
		rc = -1;
	}
	for (size_t i = 0; !rc && i < b->n; i++) {
		struct pend *p = &b->pend[i];

		if (p->how == P_DB) {
			rc = put_row(b, &b->rows[k++], err);
			b->read++;
		} else if (p->how == P_GIVEN) {
			rc = put_row(b, &b->given[i], err);
			b->n_given++;
		} else if (p->how == P_BLOCK) {
			rc = copy_block(b, p->block, err);
		} else if (docstore_get(b->old, &b->cur, p->url_id, &d, err) == 1) {
			b->copied++;
			rc = docstore_writer_put(b->w, p->url_id, &d, err);
		} else {
			rc = -1;
		}
	}
	for (size_t i = 0; i < n_ids; i++)
		db_hit_doc_free(&b->rows[i]);
	for (size_t i = 0; i < b->n; i++)
		db_hit_doc_free(&b->given[i]);
	b->n = 0;
	return rc;
}

static int pend_add(struct docstore_builder *b, uint32_t url_id, int how, size_t block,
		    uint64_t where, struct buf *err)
{
	b->pend[b->n].url_id = url_id;
	b->pend[b->n].how = how;
	b->pend[b->n].where = where;
	b->pend[b->n++].block = block;
	return b->n == b->cap ? flush_pending(b, err) : 0;
}

/* The candidate given up: its documents so far go one by one. */
static int cand_spill(struct docstore_builder *b, struct buf *err)
{
	int rc = 0;

	b->cand = false;
	for (size_t i = 0; !rc && i < b->cand_matched; i++)
		rc = pend_add(b, b->cand_ids[i], P_OLD, 0, 0, err);
	return rc;
}

/* Does a sound old block start at url_id?  Then it is the candidate. */
static void cand_start(struct docstore_builder *b, uint32_t url_id)
{
	const struct docstore *o = b->old;
	const unsigned char *t;
	struct docstore_doc d;
	size_t lo = 0, hi = o->n_blocks, pos = 0, tpos = 0, n = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (le_get32(o->table + mid * T_SIZE + T_FIRST) < url_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == o->n_blocks || le_get32(o->table + lo * T_SIZE + T_FIRST) != url_id)
		return;
	t = o->table + lo * T_SIZE;
	/* Its url_ids: the records alone (texts are inflated when one of
	 * its documents is re-encoded). */
	if (load_block(o, &b->cur, lo, false, NULL))
		return; /* damaged: its documents are read from the database */
	if (!b->cand_ids)
		b->cand_ids = xmalloc(DOCSTORE_MAX_RAW / REC_MIN * sizeof(*b->cand_ids));
	while (pos < b->cur.recs) {
		if (parse_rec(&b->cur, &pos, &tpos, &b->cand_ids[n], &d) ||
		    (n && b->cand_ids[n] <= b->cand_ids[n - 1]))
			return;
		n++;
	}
	if (n != le_get32(t + T_DOCS) || b->cand_ids[0] != url_id ||
	    b->cand_ids[n - 1] != le_get32(t + T_LAST))
		return;
	b->cand = true;
	b->cand_block = lo;
	b->cand_n = n;
	b->cand_matched = 0;
}

int docstore_build_add(struct docstore_builder *b, uint32_t url_id, bool fresh, uint64_t where,
		       struct buf *err)
{
	/* The old store is read once: its pages are not kept resident (as
	 * the merge drops docinfo's, storage_release_docinfo()). */
	if (b->old && b->old->map && (++b->adds & 4095) == 0)
		madvise((void *)b->old->map, b->old->size, MADV_DONTNEED);
	if (b->cand && (fresh || url_id != b->cand_ids[b->cand_matched]) && cand_spill(b, err))
		return -1;
	if (!b->cand && !fresh && b->old)
		cand_start(b, url_id);
	if (!b->cand)
		return pend_add(b, url_id, fresh ? P_DB : P_OLD, 0, fresh ? where : 0, err);
	if (++b->cand_matched < b->cand_n)
		return 0;
	b->cand = false;
	return pend_add(b, url_id, P_BLOCK, b->cand_block, 0, err);
}

void docstore_build_abort(struct docstore_builder *b)
{
	if (!b)
		return;
	docstore_writer_abort(b->w);
	docstore_cursor_free(&b->cur);
	free(b->pend);
	free(b->ids);
	free(b->rows);
	free(b->given);
	free(b->cand_ids);
	buf_free(&b->text);
	free(b);
}

int docstore_build_finish(struct docstore_builder *b, uint64_t *copied, uint64_t *read,
			  uint64_t *given, struct buf *err)
{
	int rc = b->cand ? cand_spill(b, err) : 0;

	if (!rc)
		rc = flush_pending(b, err);
	if (!rc) {
		rc = docstore_writer_commit(b->w, NULL, err);
		b->w = NULL;
	}
	*copied = b->copied;
	*read = b->read;
	*given = b->n_given;
	docstore_build_abort(b);
	return rc;
}
