/* docstore.h - a generation's document store (src/index/docstore.c): per
 * indexed document what its result-page entry shows that comes from
 * urlwordsNN (title, description, keywords, content type, charset, size)
 * and the first DOCSTORE_MAX_TEXT bytes of its stored text, in
 * deflate-compressed blocks in url_id order, so that searchd cuts snippets
 * with one block read per hit instead of a database round trip.  Layout in
 * doc/FORMATS.md, "docstore".  The file is optional: a generation without
 * it is served from MariaDB as before.  The URL tables stay in MariaDB.
 */
#ifndef MPSEEK_DOCSTORE_H
#define MPSEEK_DOCSTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct buf;
struct db;

#define DOCSTORE_FILE      "docstore"
#define DOCSTORE_MAX_TEXT  (256u << 10) /* stored text kept: what snippets parse */
#define DOCSTORE_MAX_FIELD 65535u       /* bytes of a title, description... */
#define DOCSTORE_BLOCK     (64u << 10)  /* a block is closed once it holds this much */
#define DOCSTORE_MAX_RAW   (1u << 20)   /* bytes of one block decompressed, at most */

/* One document.  Strings NUL-terminated; text is not (text_len bytes).
 * From docstore_get(): borrowed from the cursor until its next use. */
struct docstore_doc {
	bool found;                /* the database had the document's row */
	bool has_text;             /* it had a stored text (maybe empty) */
	uint32_t size;             /* urlwordsNN.docsize */
	const char *title, *description, *keywords, *content_type, *charset;
	const char *text;          /* the stored text, decompressed, cut */
	size_t text_len;
};

/* ---- writing ------------------------------------------------------------ */

struct docstore_writer;

/* Start gen_dir/docstore (written to a temp file until the commit).
 * Returns 0, or -1 with the reason in err. */
int docstore_writer_open(const char *gen_dir, struct docstore_writer **out, struct buf *err);
/* Add url_id's entry; url_ids strictly ascending, not 0.  Fields longer
 * than DOCSTORE_MAX_FIELD and texts longer than DOCSTORE_MAX_TEXT are cut
 * (on a UTF-8 boundary).  0 or -1 (err). */
int docstore_writer_put(struct docstore_writer *w, uint32_t url_id, const struct docstore_doc *d,
			struct buf *err);
/* Flush, fsync, rename; frees w.  *n_docs (if not NULL) gets the count. */
int docstore_writer_commit(struct docstore_writer *w, uint64_t *n_docs, struct buf *err);
void docstore_writer_abort(struct docstore_writer *w); /* accepts NULL */

/* ---- reading (bounds-checked: damage gives -1, never a crash) ---------- */

struct docstore;

/* Where a reader keeps the block it decompressed last (one per thread;
 * hits of one block cost one decompression).  Zero it to start; free with
 * docstore_cursor_free(). */
struct docstore_cursor {
	const struct docstore *ds; /* whose block is held */
	size_t block;
	unsigned char *raw;        /* DOCSTORE_MAX_RAW bytes once used */
	size_t raw_len;            /* bytes of the block decompressed, */
	size_t recs;               /* raw[0..recs), then (texts) their texts up to raw_len */
	bool split;                /* two streams: the records, then their texts */
	bool texts;                /* the texts are there (or within the records) */
	void *dec;                 /* a libdeflate decompressor */
};
void docstore_cursor_free(struct docstore_cursor *c); /* accepts a zeroed cursor */

/* Map gen_dir/docstore and check its header and block table: 1 and *out,
 * 0 when the generation has none, -1 with "path: what" in err. */
int docstore_open(const char *gen_dir, struct docstore **out, struct buf *err);
/* The same over bytes in memory (borrowed while open): tests, fuzzing. */
int docstore_open_mem(const unsigned char *p, size_t size, struct docstore **out, struct buf *err);
void docstore_close(struct docstore *ds); /* accepts NULL */
uint64_t docstore_docs(const struct docstore *ds);
size_t docstore_blocks(const struct docstore *ds);

/* url_id's entry: 1 with *d (borrowed from c), 0 when the store has no
 * entry for it, -1 when its block is damaged (err). */
int docstore_get(const struct docstore *ds, struct docstore_cursor *c, uint32_t url_id,
		 struct docstore_doc *d, struct buf *err);
/* The same without the stored text (d->text NULL, d->text_len 0;
 * has_text says whether it has one): a block's records are a stream of
 * their own, a few hundred bytes a document, inflated without the texts. */
int docstore_get_fields(const struct docstore *ds, struct docstore_cursor *c, uint32_t url_id,
			struct docstore_doc *d, struct buf *err);

/* Every block decompressed and parsed, the data CRC verified; each url_id
 * found is passed to fn (ascending).  0, or -1 at the first problem (err). */
int docstore_verify(const struct docstore *ds, int (*fn)(void *arg, uint32_t url_id), void *arg,
		    struct buf *err);

/* Every entry in url_id order passed to fn (d borrowed for the call); a
 * non-zero return stops it.  0, or -1 at damage (err) or when fn stopped. */
typedef int (*docstore_each_fn)(void *arg, uint32_t url_id, const struct docstore_doc *d);
int docstore_each(const struct docstore *ds, docstore_each_fn fn, void *arg, struct buf *err);

/* ---- the merge: building the next generation's store ------------------- */

struct docstore_builder;

/* The database, asked for when a batch first needs it: the connection,
 * or NULL with err set (the build then fails).  A build whose documents
 * all come from old and the row function never calls it. */
typedef struct db *(*docstore_db_fn)(void *arg, struct buf *err);

/* Build gen_dir/docstore from old (the live generation's, or NULL), the
 * row function (below) and the database (db_fn, or NULL for none):
 * documents added in url_id order; `fresh` ones (the deltas touched them)
 * come from the row function, and those it lacks and the ones old lacks
 * are read from urlwordsNN in batches that fit in mem bytes.  0 or -1
 * (err). */
int docstore_build_begin(const char *gen_dir, const struct docstore *old, docstore_db_fn db_fn,
			 void *db_arg, size_t mem, struct docstore_builder **out, struct buf *err);
/* `where` is passed to the row function (below) for a fresh document. */
int docstore_build_add(struct docstore_builder *b, uint32_t url_id, bool fresh, uint64_t where,
		       struct buf *err);
/* Where fresh documents' rows come from before the database (the merge:
 * the TEXT records of the delta logs): fn fills *row as db_hit_docs() would
 * (found, the strings and text malloc'd) and returns 1, or returns 0 when
 * it has none (the database is asked), -1 on a failure (err). */
struct db_hit_doc;
typedef int (*docstore_row_fn)(void *arg, uint32_t url_id, uint64_t where,
			       struct db_hit_doc *row, struct buf *err);
void docstore_build_rows(struct docstore_builder *b, docstore_row_fn fn, void *arg);
/* Write what is pending and commit; frees b.  Counts for the log: copied
 * from old, read from the database, given by the row function. */
int docstore_build_finish(struct docstore_builder *b, uint64_t *copied, uint64_t *read,
			  uint64_t *given, struct buf *err);
void docstore_build_abort(struct docstore_builder *b); /* accepts NULL */

#endif
