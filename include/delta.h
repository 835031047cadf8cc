/* delta.h - the per-rank delta log: what a crawling rank tells the merge.
 *
 * Each rank appends to one log per run, DataDir/deltas/r<RANK>-<SEQ>.dlt:
 * the postings of every (re)indexed document keyed by the word string (ids
 * are assigned by the merge, so a crawler never asks the database per word),
 * deleted URLs, outgoing links, redirects and last-modified times.  The byte
 * format, its crash semantics and the order the merge must apply records in
 * are in doc/FORMATS.md, "Delta log".  This module owns the format only: it
 * does not know the database, the index or MPI.
 */
#ifndef MPSEEK_DELTA_H
#define MPSEEK_DELTA_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

/* Caps the writer refuses to exceed and the reader refuses to believe.  A
 * page's postings are bounded by its size (caps.h MAX_DOC_BYTES) and these:
 * a position is tokenize.h's 32-bit value (MAX_POSITION words per section),
 * and a word keeps its first DELTA_MAX_WORD_POSITIONS positions (the count
 * is a u16 whose top bit the index keeps for its record width: storage.h). */
#define DELTA_MAX_PAYLOAD       (64u << 20) /* bytes of one record */
#define DELTA_MAX_DOC_WORDS     (1u << 18)  /* distinct words of one DOC */
#define DELTA_MAX_DOC_POSITIONS (1u << 22)  /* positions of one DOC, all words */
#define DELTA_MAX_WORD_POSITIONS 32767u     /* positions of one word (u16 count) */
#define DELTA_MAX_HREFS         ((DELTA_MAX_PAYLOAD - 8) / 4) /* targets of one HREFS */

/* ---- writing ------------------------------------------------------------ */

struct delta_writer;

struct delta_stats {
	uint64_t records;  /* data records accepted (DOC, DEL, HREFS, REDIR, LASTMOD, TEXT) */
	uint64_t durable;  /* of those, known to be on disk (fdatasync returned) */
	uint64_t bytes;    /* file size including what is still buffered */
	uint64_t syncs;    /* fdatasync calls */
	uint64_t resorted; /* DOC records whose words came unsorted (sorted here) */
};

/* Create DataDir/deltas/ if needed and a new segment r<rank>-<seq>.dlt with
 * the next free seq of this rank (O_EXCL: a crashed run's file is never
 * appended to).  The header and the directory entry are fsynced before
 * returning.  Returns a writer (close with delta_close()) or NULL, with the
 * reason in err (if not NULL, else logged). */
struct delta_writer *delta_open(const char *data_dir, int rank, struct buf *err);

/* The segment's path; borrowed until delta_close(). */
const char *delta_writer_path(const struct delta_writer *w);

/* Build one DOC record: "url_id was (re)indexed; these are ALL its postings
 * now".  Between begin and end the document lives in the writer's memory;
 * nothing reaches the log until delta_doc_end().  url_id must not be 0. */
int delta_doc_begin(struct delta_writer *w, uint32_t url_id, uint32_t site_id, uint64_t time);
/* Add a word (UTF-8 without NUL, 1..MAX_WORD_LEN bytes; `word` need not be
 * NUL-terminated) with its n positions (tokenize.h's encoded values,
 * strictly ascending, 1 <= n <= DELTA_MAX_WORD_POSITIONS).  Both are copied.
 * On -1 (bad argument, document too big) the word is not added and the
 * document stays open. */
int delta_doc_word(struct delta_writer *w, const char *word, size_t len,
		   const uint32_t *pos, size_t n);
/* Sort the words, check that none repeats, and append the record.  On -1
 * the document is discarded.  Either way no document is open afterwards. */
int delta_doc_end(struct delta_writer *w);
/* The order of the words of a DOC (and of the index): bytes, a prefix
 * first.  delta_doc_end() sorts them; words added in this order are not
 * sorted again. */
int delta_wordcmp(const void *a, size_t al, const void *b, size_t bl);
/* Drop the open document, if any. */
void delta_doc_abort(struct delta_writer *w);

/* The words of one DOC record encoded apart from a writer: a crawl's
 * analysis thread fills one (delta_words_add() logs nothing), the loop
 * appends it as a record (delta_add_words()).  The bytes are those
 * delta_doc_word() would write; memory is kept from document to document. */
struct delta_word_ent;
struct delta_words {
	struct buf bytes;             /* the encoded words, in the order added */
	struct delta_word_ent *ents;  /* where each starts (delta.c) */
	size_t n, alloc, positions;
	char err[192];                /* why the last delta_words_add() failed */
};
void delta_words_init(struct delta_words *d);
/* Empty d for the next document. */
void delta_words_reset(struct delta_words *d);
void delta_words_free(struct delta_words *d);
/* delta_doc_word()'s checks and encoding: 0, or -1 with the reason in
 * d->err (the word is not added). */
int delta_words_add(struct delta_words *d, const char *word, size_t len, const uint32_t *pos,
		    size_t n);
/* Append the DOC record of url_id with the words of d, as delta_doc_begin()
 * + delta_doc_word() for each + delta_doc_end() would (sorting them if they
 * came unsorted: d's order may change).  0 or -1 (logged). */
int delta_add_words(struct delta_writer *w, uint32_t url_id, uint32_t site_id, uint64_t time,
		    struct delta_words *d);

/* The URL left the index (404 with DeleteBad, clone, disallowed...). */
int delta_add_del(struct delta_writer *w, uint32_t url_id);
/* The complete set of outgoing links of url_id; `targets` (n ids, none 0)
 * may be in any order and repeat: the record holds them sorted and unique. */
int delta_add_hrefs(struct delta_writer *w, uint32_t url_id, const uint32_t *targets, size_t n);
int delta_add_redir(struct delta_writer *w, uint32_t url_id, uint32_t target);
int delta_add_lastmod(struct delta_writer *w, uint32_t url_id, uint64_t last_modified);

/* A DOC's stored text: what the crawl stores in the document's urlwordsNN
 * row (doc/DATABASE.md), so that the merge builds the docstore from the log
 * instead of reading the row back (doc/MERGE.md, step 8).  Strings are
 * NUL-terminated, at most DELTA_MAX_TEXT_FIELD bytes; blob is the text as
 * docblob_compress() gives it (docblob.h). */
#define DELTA_MAX_TEXT_FIELD 1024u
struct delta_text {
	uint32_t size;             /* the document's bytes (docsize) */
	const char *content_type, *charset, *title, *description, *keywords;
	const void *blob;
	size_t blob_len;
};
/* Append the TEXT record of url_id.  Written right after the url's DOC
 * (delta_add_words()), which the merge finds it by.  A text too large for
 * one record (over DELTA_MAX_PAYLOAD with its fields) is left out: the merge
 * reads that document's row instead.  0 or -1 (logged). */
int delta_add_text(struct delta_writer *w, uint32_t url_id, const struct delta_text *t);

/* Write everything buffered and fdatasync.  On 0, every record added so far
 * is durable (the crawler may now mark those URLs indexed in the database).
 * On -1 (logged) the records since the previous successful sync must be
 * treated as lost, the file is cut back to a record boundary when possible,
 * and the writer is dead: every later call fails; close it. */
int delta_sync(struct delta_writer *w);
void delta_writer_stats(const struct delta_writer *w, struct delta_stats *st);

/* Sync, mark the whole file as committed, close and free.  An open document
 * is discarded with a warning.  Returns 0, or -1 if something could not be
 * made durable (logged).  Accepts NULL. */
int delta_close(struct delta_writer *w);

/* ---- reading ------------------------------------------------------------ */

enum delta_type {
	DELTA_DOC = 1,
	DELTA_DEL = 2,
	DELTA_HREFS = 3,
	DELTA_REDIR = 4,
	DELTA_LASTMOD = 5,
	DELTA_TEXT = 7,        /* 6 is the log's own COMMIT, never returned */
};

struct delta_word {
	const char *word;      /* NUL-terminated UTF-8 */
	size_t len;            /* bytes, 1..MAX_WORD_LEN */
	const uint32_t *pos;   /* n_pos positions (tokenize.h), strictly ascending */
	uint32_t n_pos;
};

/* One record.  Every pointer is borrowed from the reader until the next
 * delta_next() or delta_reader_close(). */
struct delta_rec {
	enum delta_type type;
	uint64_t offset;       /* of the record in the file, for messages */
	uint32_t url_id;       /* all types; never 0 */
	uint32_t site_id;      /* DOC */
	uint64_t time;         /* DOC: when indexed; LASTMOD: last-modified */
	uint32_t target;       /* REDIR */
	uint32_t n_words;      /* DOC: words sorted by bytes, unique */
	const struct delta_word *words;
	uint32_t n_hrefs;      /* HREFS: targets sorted, unique, none 0 */
	const uint32_t *hrefs;
	struct delta_text text; /* TEXT */
};

struct delta_reader;

/* Open a segment and check its header.  Returns a reader (close with
 * delta_reader_close()) or NULL with the reason in err (if not NULL, else
 * logged): bad magic, unsupported version, header crc mismatch, I/O error.
 * A file cut short before its header was complete (a crash while creating
 * it) opens as a log with a torn tail at offset 0. */
struct delta_reader *delta_reader_open(const char *path, struct buf *err);
/* The same over memory (tests, fuzzing); `data` is borrowed until close,
 * `name` is copied and used in messages. */
struct delta_reader *delta_reader_open_mem(const char *name, const void *data, size_t len,
					   struct buf *err);
void delta_reader_close(struct delta_reader *r); /* accepts NULL */

/* Read the next record: 1 and *rec filled, 0 at the end, -1 on corruption.
 * A damaged end that a crash can leave (short final record, bad crc with no
 * later commit record vouching for the bytes) is a torn tail: the end, with
 * delta_reader_torn() >= 0 and the message "torn tail at offset N: why".
 * Damage inside data that a later commit record proves was synced is
 * corruption: -1 with "file: corrupt record at offset N: why".  A record
 * with a good crc but impossible content is always corruption.  After 0 or
 * -1 every later call returns the same. */
int delta_next(struct delta_reader *r, struct delta_rec *rec);
/* The TEXT record that follows the DOC of url_id at offset doc_off (a
 * place delta_next() returned): 1 and *rec filled (type DELTA_TEXT), 0 when
 * no TEXT of that url follows it (a log of an older version, a text too
 * large), -1 on a read error or damage (the reason in delta_reader_msg()).
 * Reads only those records; the reader's delta_next() state is not moved,
 * but *rec's strings share the reader's buffers with delta_next()'s: a
 * record either returned is valid until the next call of either. */
int delta_text_at(struct delta_reader *r, uint64_t doc_off, uint32_t url_id,
		  struct delta_rec *rec);
/* The same for the HREFS record after that DOC (and its TEXT): 1 and *rec
 * (type DELTA_HREFS), 0 when none follows (the crawl writes none for a
 * page without links), -1 on a read error (the reason as above). */
int delta_hrefs_at(struct delta_reader *r, uint64_t doc_off, uint32_t url_id,
		   struct delta_rec *rec);
/* Why the last call ended (torn tail or corruption), "" if it did not. */
const char *delta_reader_msg(const struct delta_reader *r);
/* Offset of the torn tail, or -1 if none (yet). */
int64_t delta_reader_torn(const struct delta_reader *r);
/* End of the last good record (the size delta_repair() would cut to). */
uint64_t delta_reader_good_end(const struct delta_reader *r);
uint32_t delta_reader_rank(const struct delta_reader *r);
uint64_t delta_reader_created(const struct delta_reader *r);

/* Cut a segment with a torn tail back to its last good record (fsynced);
 * a segment whose header never got written completely is removed.  Call on
 * start before a crawl resumes, for the segments of this rank.  Returns 0
 * when the file was intact, 1 when it was repaired, -1 when it is corrupt
 * or unreadable (the file is left alone; reason in err, else logged). */
int delta_repair(const char *path, struct buf *err);

/* ---- listing ------------------------------------------------------------ */

struct delta_seg {
	char *path;            /* DataDir/deltas/r<rank>-<seq>.dlt */
	int rank;
	uint32_t seq;
	uint64_t created;      /* from the header; 0 if the header is unreadable */
};

/* DataDir/deltas/r<rank>-<seq>.dlt (malloc'd). */
char *delta_seg_path(const char *data_dir, int rank, uint32_t seq);

/* All segments of all ranks under data_dir, sorted by (rank, seq); names
 * that are not r<digits>-<digits>.dlt are ignored.  No deltas/ directory
 * means no segments.  On 0, *out is malloc'd (free with delta_list_free());
 * on -1 the reason is in err (if not NULL, else logged). */
int delta_list(const char *data_dir, struct delta_seg **out, size_t *n, struct buf *err);
void delta_list_free(struct delta_seg *segs, size_t n); /* accepts NULL */

#endif
