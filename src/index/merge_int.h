/* merge_int.h - what the files of the merge share: the kinds of records it
 * sorts, the k-way merge of sorted files, the external sorter and the files
 * moved between ranks (merge_sort.c).  Private to src/index/merge*.c; the
 * merge's interface is merge.h.
 */
#ifndef MPSEEK_MERGE_INT_H
#define MPSEEK_MERGE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>

#include "docstore.h"
#include "storage.h"

/* wordurl.totalcount of a word: the index keeps a word's total in 64 bits
 * (doc/FORMATS.md, "Format versions"), the table's column (ASPseek's) is 32:
 * it saturates at 2^32 - 1.  The merge writes it, --check compares it. */
static inline uint32_t wordurl_totalcount(uint64_t total)
{
	return total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
}

/* ---- sorted files on disk (merge_codec.c) ----------------------------------- */

/* A sorted file read once, front to back, through a buffer; with consume,
 * the bytes read are given back to the filesystem as it goes (the file is
 * removed afterwards anyway). */
struct rd {
	const char *path;       /* borrowed, for messages */
	int fd;
	unsigned char *b;
	size_t pos, len;
	uint64_t off;           /* file offset of b[len] */
	uint64_t punched;       /* bytes released from the start */
	bool punch, err;        /* err: a read failed (logged) */
};

/* 0, or -1 (logged; then rd_close() anyway). */
int rd_open(struct rd *r, const char *path, bool consume);
/* Accepts a zeroed rd. */
void rd_close(struct rd *r);
/* The next byte after refilling; -1 at the end or on an error (r->err). */
int rd_fill(struct rd *r);
/* n bytes into p: 0, or -1 when the file ends first or fails. */
int rd_bytes(struct rd *r, unsigned char *p, size_t n);
/* The next byte, -1 at the end or on an error (r->err). */
static inline int rd_byte(struct rd *r)
{
	return r->pos < r->len ? r->b[r->pos++] : rd_fill(r);
}

/* A kind of record: a fixed head, then as many bytes as the head says.
 * merge.c defines the kinds of URL records and winners, merge_codec.c the
 * postings, and so the order of each; merge_sort.c sorts and moves any of
 * them. */
struct kind {
	size_t head;
	size_t max;             /* the largest record */
	/* bytes after the head, or -1 when the head is impossible */
	long (*extra)(const unsigned char *head);
	int (*cmp)(const unsigned char *a, const unsigned char *b);
	/* Optional, both or neither: the records' form in files.  encode()
	 * writes rec, which follows prev in the file (zeroes before the
	 * first), to out (at most enc_max bytes) and returns its length;
	 * decode() reads the next record over rec, which holds the previous
	 * one (zeroed before the first): 1, 0 at the end, -1 damaged.
	 * Without them a file holds the records as they are in memory. */
	size_t enc_max;
	size_t (*encode)(const unsigned char *prev, const unsigned char *rec, unsigned char *out);
	int (*decode)(struct rd *r, unsigned char *rec);
	/* Optional: the record's sort key, two numbers that order records as
	 * cmp() does wherever they differ (k[0] first, then k[1]).  Returns
	 * true when k[0] holds all of what cmp() compares before k[1]'s part:
	 * two such records with equal keys compare equal.  The sorts compare
	 * keys, in order in memory, and call cmp() only between records of
	 * equal k[0] of which one is not whole (a word longer than the key). */
	bool (*key)(const unsigned char *rec, uint64_t k[2]);
};

/* The next record of kind k over rec (the file's previous record, zeroed
 * before the first): 1, 0 at the end, -1 (logged: a damaged file, a read
 * error). */
int kind_read(const struct kind *k, struct rd *r, unsigned char *rec);

#define MERGE_RD_BUF (64u << 10) /* read buffer of one sorted file */

/* A sorted file being written. */
struct wr {
	const struct kind *k;
	const char *path;       /* borrowed, for messages */
	int fd;                 /* -1 when closed */
	unsigned char *buf;     /* WR_BUF bytes, written whole */
	size_t blen;
	unsigned char *prev, *enc; /* with k->encode: the last record, its form */
	uint64_t bytes;         /* written */
	bool err;               /* a write failed (logged) */
};

/* 0, or -1 (logged; wr_close() anyway). */
int wr_open(struct wr *w, const struct kind *k, const char *path);
/* 0, or -1 (logged). */
int wr_put(struct wr *w, const unsigned char *rec);
/* 0, or -1 (a write failed, logged).  Accepts a zeroed or closed wr. */
int wr_close(struct wr *w);

/* Postings: part u8, wlen u8, site u32, url u32, npos u16, the word's
 * bytes, npos positions u32 (tokenize.h's values); sorted by (partition, word bytes, site, url);
 * encoded in files (merge_codec.c). */
#define POST_FIXED 12
#define POST_MAX (POST_FIXED + MAX_WORD_LEN + 4 * 65535)
extern const struct kind merge_k_post;

/* ---- the k-way merge of sorted files ------------------------------------ */

/* A sorted stream of records from a file. */
struct run {
	struct rd in;
	unsigned char *rec;     /* current record, kind->max bytes */
	int has;
	bool whole;             /* kind->key() of rec: into key */
	uint64_t key[2];
};

/* A k-way merge of sorted files, pulled one record at a time. */
struct merger {
	const struct kind *k;
	struct run *r;
	size_t n;
	size_t *loser, win;     /* a loser tree over the runs (merge_sort.c) */
	bool started;           /* heap[0]'s record was handed out */
};

/* Open n files of kind k (paths borrowed for the call).  Returns 0, or -1
 * (then close it anyway). */
int merger_open(struct merger *m, const struct kind *k, char **paths, size_t n);
/* 1 and *rec (borrowed until the next call), 0 at the end, -1. */
int merger_next(struct merger *m, const unsigned char **rec);
/* Close the files, free everything.  Accepts a zeroed merger. */
void merger_close(struct merger *m);
/* k-way merge of files into fn(rec) calls, in order.  Returns 0 or -1. */
int merge_files(const struct kind *k, char **paths, size_t n,
		int (*fn)(void *arg, const unsigned char *rec), void *arg);
/* The same with the merge in a thread of its own, fn(rec) in the caller's
 * (records handed over in two chunks of 1 MiB): the partitions and the
 * passes over runs use a second core. */
int merge_files_piped(const struct kind *k, char **paths, size_t n,
		      int (*fn)(void *arg, const unsigned char *rec), void *arg);

/* ---- the external sort ---------------------------------------------------- */

/* A record in the arena with its key (struct kind): the in-memory sort
 * moves these, in order, and reads a record only on a tie. */
struct sort_ent {
	uint64_t k0, k1;
	uint32_t off;           /* of the record in the arena */
	uint32_t whole;         /* kind->key()'s answer */
};

/* The external sort: records collect in an arena of DeltaBufferSize, their
 * sort entries with them (two per record: the entries and the merge sort's
 * scratch, all within the arena's bytes), and are spilled as sorted runs. */
struct sorter {
	const struct kind *k;
	const char *dir;
	const char *tag;        /* run names: <dir>/<tag>-run-NNNNNN */
	unsigned char *arena;   /* records, then their sort entries from the top */
	size_t cap, used;
	struct sort_ent *ent;   /* n entries, below the end of the arena */
	size_t n;
	char **runs;
	size_t n_runs, next_name;
	uint64_t spilled;       /* bytes written to runs (encoded) */
	uint64_t records;       /* records added */
	uint64_t in_bytes;      /* their bytes in memory */
	size_t spills;          /* runs written from the arena */
	size_t fanin;           /* runs merged at once (merge_sort.c) */
};

/* An empty sorter of kind k with an arena of cap bytes; its runs go to
 * dir/tag-run-NNNNNN (dir and tag borrowed until sorter_free()). */
void sorter_init(struct sorter *s, const struct kind *k, const char *dir, const char *tag,
		 size_t cap);
/* Remove the runs, free everything.  Accepts a zeroed sorter. */
void sorter_free(struct sorter *s);
/* Room for a record of len bytes (at most k->max), to be filled by the
 * caller; NULL when a spill failed. */
unsigned char *sorter_room(struct sorter *s, size_t len);
/* The last run written, the arena freed, at most s->fanin runs left:
 * one merger reads them all. */
int sorter_finish(struct sorter *s);

/* ---- moving sorted files between ranks ------------------------------------ */

/* <scratch>/<tag>-<dir>-<r> for every rank r (malloc'd, free with
 * xfer_free()). */
char **xfer_paths(const char *scratch, const char *tag, const char *dir);
/* Remove the files and free the paths.  Accepts NULL. */
void xfer_free(char **p);
/* Open one file per rank for writing; NULL slots on failure. */
int xfer_open(char **paths, FILE **f);
/* Close the files xfer_open() opened.  Returns 0 or -1 (a write failed). */
int xfer_close(char **paths, FILE **f);
/* Collective: to[r] (this rank's file for rank r) goes to rank r; *from
 * gets the files received in scratch (from[r] came from rank r; malloc'd,
 * free with xfer_free()).  The to files are removed.  Returns 0 or -1,
 * agreed. */
int xfer_exchange(const char *scratch, const char *tag, char **to, int rc, char ***from);
/* Remove n files and free their paths.  Accepts NULL. */
void files_free(char **p, size_t n);
/* Collective: the records of the sorted runs of s, each to the rank dest()
 * names, through files in scratch (no shared filesystem needed); *from gets
 * what this rank received: *n_from files, each sorted (malloc'd, free with
 * files_free()).  With one rank they are the runs themselves, else one
 * file from each rank.  s is freed, its runs removed or handed over.
 * Returns 0 or -1, agreed. */
int sort_exchange(struct sorter *s, const char *scratch, const char *tag,
		  int (*dest)(const void *arg, const unsigned char *rec), const void *arg,
		  char ***from, size_t *n_from);

/* ---- anchor text (merge_anchors.c) ----------------------------------------- */

struct conf;
struct db;

/* Rank 0: the anchor postings of every page, from the anchors table, into
 * post (doc/SEARCH.md, "Anchor text"), runs of cap bytes in scratch.
 * *rebuilt is 1 when they replace the live generation's anchor postings,
 * 0 when those are kept (no database, or it could not be read: warned).
 * Returns 0 or -1 (logged). */
int merge_anchors(const struct conf *c, struct db *db, const char *scratch, size_t cap,
		  struct sorter *post, int *rebuilt);

/* ---- pairs of common words (merge_grams.c) ------------------------------------ */

struct delta_rec;
struct grams;
struct grams_doc;
struct storage;

/* One posting (tokenize.h's positions) into s: 0, or -1 (logged). */
int merge_post(struct sorter *s, const char *word, size_t len, uint32_t site, uint32_t url,
	       const uint32_t *pos, uint32_t n);
/* CommonWords as a set into *out (NULL when none): 0, or -1 (logged). */
int merge_grams_conf(const struct conf *c, struct grams **out);
/* The pairs of g in the DOC rec into s, through d's memory: 0 or -1. */
int merge_grams_post(struct sorter *s, const struct grams *g, struct grams_doc *d,
		     const struct delta_rec *rec);
/* Rank 0: gen_dir's `grams` file, the words of conf_words whose pairs
 * every document has: all of them, or, when documents of the live
 * generation old stay (not touched[]), those its own file lists too.
 * 0 or -1 (logged). */
int merge_grams_finish(const struct grams *conf_words, const struct storage *old,
		       const uint8_t *touched, uint64_t max_url, const char *gen_dir);

/* ---- URL records and states (merge.c), read by merge_docinfo.c ------------ */

#define UREC_SIZE 36                /* url u32, type u8, pad 3, ord u64, val u64, site u32, len 4 x u16 */

/* A URL record (a DOC, DEL or LASTMOD of the deltas) or, after the fold, a
 * URL's state: in files as UREC_SIZE bytes of merge_k_urec. */
#define ORD_SEG_SHIFT 40            /* ord = segment index << 40 | offset */

struct urec {
	uint32_t url;
	uint8_t type;           /* U_*; in a state record the ST_* flags */
	uint64_t ord;           /* in a state record the winner's */
	uint64_t val;           /* DOC: time; LASTMOD: last-modified; state: last-modified */
	uint32_t site;
	uint16_t len[STORAGE_SECTIONS];
};

/* The outcome for one URL the deltas speak of. */
#define ST_TOUCHED 1    /* a DOC or DEL: every old posting of the URL goes */
#define ST_INDEXED 2    /* a DOC won: its postings are the URL's postings */
#define ST_LASTMOD 4    /* last-modified set by the deltas */

extern const struct kind merge_k_urec;
void merge_urec_unpack(const unsigned char *p, struct urec *u);

/* ---- docinfo and the docstore, beside the partitions (merge_docinfo.c) ---- */

struct storage_format;

/* Rank 0 writes docinfo and the docstore in a thread of its own, with its
 * own database connection, while the postings are sorted and the
 * partitions written: they share nothing but read-only mappings of the
 * live generation. */
struct merge_docinfo {
	const struct conf *c;
	bool use_db;               /* the merge has a database (docstore texts) */
	const char *gen_dir;       /* borrowed until the join */
	const struct storage *old;
	char **st_files;           /* the URL states of all ranks, borrowed */
	size_t n_files;
	size_t cap;                /* the docstore's buffer */
	double t0;
	/* The segments of all ranks in the order ords count them (created
	 * u64, rank u32, seq u32 each): the TEXT records of the fresh
	 * documents are read from those rank 0 sees (merge_docinfo.c). */
	const unsigned char *seg_keys;
	size_t n_segs;
	/* the thread's */
	int rc;
	uint64_t n_docs, sum_len[STORAGE_SECTIONS];
	uint32_t max_url_id;
	bool started;
	pthread_t th;
};
/* Start j (its inputs filled in); without a thread (it could not start)
 * the work is done at once.  Returns 0, or -1 (logged). */
int merge_docinfo_start(struct merge_docinfo *j);
/* Wait for j and fill f's document counts.  Returns its result (0 or -1). */
int merge_docinfo_join(struct merge_docinfo *j, struct storage_format *f);

/* ---- the files of a new generation besides the partitions (merge_files.c) */

struct conf;
struct db;
struct docstore;
struct docstore_builder;
struct storage;
struct tokenizer;
struct buf;

/* The stem map of the generation in dir, rebuilt whole from its dictionary
 * (nothing with Stemming no).  Returns 0 or -1 (logged). */
int merge_write_stems(const struct conf *c, const char *dir);
/* The generation's near-duplicate groups from the pages' simhashes. */
int merge_write_neardup(const struct conf *c, struct db *db, const char *dir);
/* Whether the live generation's ranks and citations (in old_dir) open, so
 * that the new generation may hard-link them (logged when not). */
bool merge_keep_pagerank(const char *old_dir);
/* The docstore builder of the generation in dir (*b), from the live
 * generation's docstore (old_gen may be NULL; *old gets it) and the database
 * that db_fn connects when a batch first needs it (db_fn may be NULL: then a
 * document the old docstore lacks fails the build), within cap bytes.
 * Finish both with merge_docstore_end(), or docstore_build_abort() and
 * docstore_close().  0, or -1 (logged; nothing to free). */
int merge_docstore_start(const char *dir, const struct storage *old_gen, docstore_db_fn db_fn,
			 void *db_arg, size_t cap, struct docstore_builder **b,
			 struct docstore **old);
/* Commit the docstore and close the old one.  0, or -1 (logged): the
 * generation must not be published without it. */
int merge_docstore_end(struct docstore_builder *b, struct docstore *old, double t0);
/* The boilerplate (src/index/merge_boiler.c, doc/SEARCH.md "Boilerplate"). */
struct boiler_params {
	double share;              /* BoilerplateShare: 0 writes no file */
	long min_pages;            /* BoilerplateMinPages */
	size_t mem;                /* bytes for the (site, block) counts */
};

struct boiler_stats {
	uint64_t docs, blocks;     /* documents with text, their blocks */
	uint64_t boiler_docs, ranges; /* documents with boilerplate, their ranges */
	uint64_t dropped;          /* (site, block) pairs not counted: memory full */
};

/* Find the boilerplate of the generation in gen_dir (its docinfo for the
 * sites, its docstore for the texts) and write gen_dir/boiler.  Share 0:
 * no file, 0.  No docstore is a failure (the merge has just written it).
 * 0, or -1 with the reason in err. */
int merge_boiler_build(const char *gen_dir, const struct tokenizer *tok,
		       const struct boiler_params *p, struct boiler_stats *st, struct buf *err);

/* The generation's boilerplate (boiler.h) from its docstore, counts
 * within mem bytes.  0, or -1 (logged): the generation must not be
 * published without the file (doc/MERGE.md, step 8). */
int merge_write_boiler(const struct conf *c, const char *dir, size_t mem);

#endif
