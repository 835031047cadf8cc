/* storage.h - the CompactStorage inverted index and its generations.
 *
 * One module (src/storage.c) owns every byte of the index on disk; the merge
 * writes it, searchd and `mpseek-index --check` read it.  It does not know
 * the database, the delta log or MPI.  Byte layouts: doc/FORMATS.md,
 * "CompactStorage".
 *
 * Generations (doc/FORMATS.md, "CompactStorage"): the live index is DataDir/index/current, a
 * symlink to DataDir/index/gen-<N> (N decimal, 8 digits).  A new generation
 * is built in DataDir/index/gen-<N+1>.tmp, fsynced, renamed to gen-<N+1>,
 * and published by renaming a fresh symlink over `current` -- one atomic
 * rename(2), so a reader sees the old index or the new one, never half.
 * Files a new generation does not change (ranks after a merge-only run, the
 * postings after a PageRank-only run) are hard links of the old ones.
 *
 * Inside a generation:
 *   FORMAT        text: format version, generation, counts (checked first)
 *   NNw/words     the dictionary of partition NN: word k has word_id NN+100k
 *   NNw/ind       per word of the partition: end offset into sites (u64), site
 *                 count, URL count, total count (u64) (entry k: word_id NN+100k)
 *   NNw/sites     per word: (site_id, end offset into urls (u64)), by site_id
 *   NNw/urls      per site: (url_id, count, count x position), by url_id
 *   docinfo       per url_id: site_id, words per section, last-modified
 *   ranks         PageRank (pagerank.c; read through ranks.h)
 *   citations/    the link graph for link: queries (pagerank.c)
 * A word's partition is storage_partition(word), fixed forever, and word
 * ids are dense per partition, so word_id mod 100 is the partition as in
 * ASPseek, and a merge assigns new ids without asking anybody.
 */
#ifndef MPSEEK_STORAGE_H
#define MPSEEK_STORAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "caps.h"

struct buf;

/* Version 2 widened version 1's 32-bit offsets into sites and urls and a
 * word's total to 64 bits; version 3 gives a URL record 32-bit positions
 * when it needs them (doc/FORMATS.md, "Format versions"). */
#define STORAGE_FORMAT_VERSION 3
#define STORAGE_FORMAT_WIDE_POS 3
/* Words are spread over this many partitions (ASPseek's 00w..99w). */
#define STORAGE_PARTITIONS 100

/* Sections of a position, as tokenize.h (docinfo keeps a length for each). */
#define STORAGE_SECTIONS 4

/* URL records (version 3): url_id u32, a u16 count field, then the
 * positions.  Bit 15 of the count field says how they are written:
 *  - clear: u16 each, (section << 14 | position), when every position of
 *    the record has section < 4 and position < 16384 (what nearly every
 *    page has: the same bytes as versions 1 and 2);
 *  - set: u32 each, tokenize.h's value (section << 24 | position).
 * So a URL record holds at most STORAGE_MAX_URL_POSITIONS positions; the
 * merge keeps a word's first ones in a page that has more. */
#define STORAGE_URL_WIDE 0x8000u
#define STORAGE_MAX_URL_POSITIONS 32767u
#define STORAGE_POS_SHIFT 24 /* tokenize.h's TOK_POSITION_BITS (storage.c asserts) */

/* The partition of a word: FNV-1a-32 of its bytes mod STORAGE_PARTITIONS.
 * Fixed forever: every generation on disk was laid out with it, and the
 * merge and searchd find a word's partition with it (test vectors:
 * tests/data/delta/partition.txt). */
unsigned storage_partition(const char *word, size_t len);

/* Anchor text (doc/SEARCH.md, "Anchor text"): the words of the links to a
 * page are postings of that page under their own dictionary words, the
 * word behind STORAGE_ANCHOR_MARK, a byte no tokenized word holds (a
 * control character separates words).  The key of word (len bytes) into
 * out: the mark, then the word cut to MAX_WORD_LEN - 1 bytes on a code
 * point boundary; returns its length. */
#define STORAGE_ANCHOR_MARK '\001'
static inline size_t storage_anchor_key(const char *word, size_t len, char out[MAX_WORD_LEN])
{
	if (len > MAX_WORD_LEN - 1) {
		len = MAX_WORD_LEN - 1;
		while (len && ((unsigned char)word[len] & 0xc0) == 0x80)
			len--;
	}
	out[0] = STORAGE_ANCHOR_MARK;
	memcpy(out + 1, word, len);
	return len + 1;
}

static inline bool storage_is_anchor_word(const char *word, size_t len)
{
	return len && word[0] == STORAGE_ANCHOR_MARK;
}

/* Pairs of common words (include/grams.h): the pair x y is the dictionary
 * word x STORAGE_GRAM_MARK y, posted at x's positions where y follows.
 * The key of x (xl bytes) and y (yl) into out, its length: 0 when it
 * would pass MAX_WORD_LEN bytes (no such pair is indexed). */
#define STORAGE_GRAM_MARK '\002'
static inline size_t storage_gram_key(const char *x, size_t xl, const char *y, size_t yl,
				      char out[MAX_WORD_LEN])
{
	if (xl + 1 + yl > MAX_WORD_LEN)
		return 0;
	memcpy(out, x, xl);
	out[xl] = STORAGE_GRAM_MARK;
	memcpy(out + xl + 1, y, yl);
	return xl + 1 + yl;
}

static inline bool storage_is_gram_word(const char *word, size_t len)
{
	return memchr(word, STORAGE_GRAM_MARK, len) != NULL;
}

/* ---- generations --------------------------------------------------------- */

/* The generation `current` points to: 1 and *gen, 0 when there is no index
 * yet, -1 on error (reason in err, if not NULL, else logged). */
int storage_current(const char *data_dir, uint64_t *gen, struct buf *err);
/* "DataDir/index/gen-00000007" for gen 7: malloc'd, caller frees. */
char *storage_gen_path(const char *data_dir, uint64_t gen);
/* Publish a finished generation directory (made by storage_writer_finish()
 * or storage_gen_clone()): fsync, rename gen-<N>.tmp to gen-<N>, swap
 * `current`, then remove generations older than the previous one (searchd
 * may still read the previous one).  Returns 0 or -1. */
int storage_gen_publish(const char *data_dir, uint64_t gen, struct buf *err);
/* Start generation `current + 1` as a copy of `current` made of hard links
 * (for a run that replaces only some files, e.g. ranks).  *gen and *dir
 * (malloc'd, the .tmp directory) are set.  Returns 0 or -1. */
int storage_gen_clone(const char *data_dir, uint64_t *gen, char **dir, struct buf *err);
/* Hard-link from/<name> (a file or a directory tree) into to/<name>, for the
 * files a new generation keeps unchanged; a missing name is not an error.
 * Returns 0 or -1. */
int storage_gen_link(const char *from, const char *to, const char *name, struct buf *err);
/* The bytes of the files under gen_dir (its subdirectories included) in
 * *bytes, and when its FORMAT was written (the generation was complete) in
 * *written, for `mpseek-index -S`.  Returns 0 or -1 (reason in err). */
int storage_gen_usage(const char *gen_dir, uint64_t *bytes, int64_t *written, struct buf *err);
/* Remove gen-*.tmp directories a crashed run left behind, and finished
 * generations newer than `current` (a crash between the renames of
 * storage_gen_publish()).  Returns 0 or -1. */
int storage_gen_cleanup(const char *data_dir, struct buf *err);
/* The newest finished generation older than `before` still on disk (the one
 * publishing kept for searchd): 1 and *gen, 0 when there is none, -1 when
 * DataDir/index cannot be read. */
int storage_gen_previous(const char *data_dir, uint64_t before, uint64_t *gen);

/* ---- reading (mmap; thread-safe after open) ------------------------------ */

struct storage;

/* Open the generation `current` points to (or the directory `gen_dir` with
 * storage_open_dir()) read-only.  Checks FORMAT and the size and header of
 * every file before trusting anything; every later offset read is bounds
 * checked too, so a damaged file gives an error, never a crash.  Returns 0
 * and a handle (close with storage_close()), or -1 with the reason in err. */
int storage_open(const char *data_dir, struct storage **out, struct buf *err);
int storage_open_dir(const char *gen_dir, struct storage **out, struct buf *err);
/* As storage_open_dir(), but a generation of an older format version this
 * build can still read (version 1) opens too: for the merge, which reads the
 * live generation once to write the next one in the current version.
 * Everyone else refuses an old generation (storage_open_dir() says how to
 * convert it). */
int storage_open_old(const char *gen_dir, struct storage **out, struct buf *err);
/* Only the docinfo of the generation being written in gen_dir (no FORMAT,
 * no partitions yet), for storage_doc() alone: the merge's boilerplate pass
 * runs beside the partitions (doc/MERGE.md, step 8). */
int storage_open_docinfo(const char *gen_dir, struct storage **out, struct buf *err);
void storage_close(struct storage *s); /* accepts NULL */
uint64_t storage_generation(const struct storage *s);
/* Read errors (a bound check failing after open: the bytes changed under the
 * mapping) seen on s so far; the first few are logged with file and offset. */
unsigned long storage_faults(const struct storage *s);
uint32_t storage_version(const struct storage *s); /* its format version */
const char *storage_dir(const struct storage *s); /* borrowed */

struct storage_word {
	uint32_t word_id;
	uint32_t n_sites;
	uint32_t n_urls;
	uint64_t total;            /* occurrences over all URLs */
};

/* Look a (folded) word up: 1 and *w, 0 when the index does not have it, -1
 * on a damaged file. */
int storage_word(const struct storage *s, const char *word, size_t len, struct storage_word *w);
/* Every word that starts with prefix (len bytes, may be 0), in byte order
 * within each partition, partitions in order; cb returns 0 to go on, 1 to
 * stop.  At most `max` words are passed.  Returns the number passed or -1. */
long storage_words_prefix(const struct storage *s, const char *prefix, size_t len, size_t max,
			  int (*cb)(void *arg, const char *word, size_t len,
				    const struct storage_word *w),
			  void *arg);
/* The word of word_id, borrowed from the mapping (not NUL-terminated), or
 * NULL. */
const char *storage_word_text(const struct storage *s, uint32_t word_id, size_t *len);

/* Postings of one word: sites in site_id order, then the URLs of each site
 * in url_id order.  A cursor borrows the mapping; it holds no other
 * resources and needs no close. */
struct storage_cursor {
	const struct storage *s;
	const uint8_t *sites, *sites_end;   /* the word's (site_id, end) pairs */
	const uint8_t *sites_base;          /* the partition's sites entries */
	uint32_t version;                   /* the generation's: entry layouts */
	size_t site_entry;                  /* bytes per sites entry */
	const uint8_t *urls, *urls_end;     /* the current site's URL records */
	const uint8_t *urls_site;           /* where they start (storage_jump()) */
	const uint8_t *urls_base;           /* the partition's urls file */
	uint64_t urls_size;
	uint32_t site_id;
	uint32_t pos[65535];    /* decoded positions of the current URL (tokenize.h) */
	int err;                            /* set when a bound check failed */
};
/* 1 when the word has postings (cursor set before its first site), 0 when
 * it has none, -1 on a damaged file. */
int storage_postings(const struct storage *s, uint32_t word_id, struct storage_cursor *c);
/* Next site: 1 and *site_id, 0 at the end, -1 on damage. */
int storage_next_site(struct storage_cursor *c, uint32_t *site_id);
/* Skip the sites before site_id: the next storage_next_site() gives the
 * first at or after it.  Forward only, O(log) in the sites skipped. */
void storage_seek_site(struct storage_cursor *c, uint32_t site_id);
/* Next URL of the current site: 1 with *url_id and the positions (sorted,
 * in c->pos, *n_pos of them), 0 at the end of the site, -1 on damage. */
int storage_next_url(struct storage_cursor *c, uint32_t *url_id, uint32_t *n_pos);
/* Skip the current site's URLs to the first url_id >= target (postings are
 * sorted): as storage_next_url(). */
int storage_seek_url(struct storage_cursor *c, uint32_t target, uint32_t *url_id,
		     uint32_t *n_pos);

/* As storage_seek_url(), without decoding the positions: *pos points at the
 * record's *n_pos positions in the mapping (bounds checked; valid while the
 * storage is open), read with storage_rec_pos().  Top-k pruning
 * (search_prune.c) bounds a document's score from the count and the first
 * and last position before it decodes them.  The current format version
 * only (what storage_open_dir() opens); -1 on an older one. */
int storage_skip_url(struct storage_cursor *c, uint32_t target, uint32_t *url_id,
		     uint32_t *n_pos, const uint8_t **pos);
/* The url_id of the record after the one storage_skip_url() found last,
 * 0 when the site has none (a walk asks the memory for its document's
 * facts while it works on this one: storage_doc_prefetch()). */
static inline uint32_t storage_peek_url(const struct storage_cursor *c)
{
	const uint8_t *u = c->urls;

	if (!u || c->urls_end - u < 4)
		return 0;
	return (uint32_t)u[0] | (uint32_t)u[1] << 8 | (uint32_t)u[2] << 16 | (uint32_t)u[3] << 24;
}
/* Put the cursor of the current site at the record byte offset off from
 * the site's first record (a block's off, "block summaries" below): the
 * next storage_skip_url()/storage_next_url() reads from there.  0, or -1
 * when off is outside the site's records (c->err set). */
int storage_jump(struct storage_cursor *c, uint64_t off);
/* Position i of a record storage_skip_url() found, as tokenize.h encodes
 * it: the width is bit 15 of the count field just before the positions. */
static inline uint32_t storage_rec_pos(const uint8_t *pos, uint32_t i)
{
	uint32_t v;

	if (pos[-1] & (STORAGE_URL_WIDE >> 8))
		return (uint32_t)pos[4 * i] | (uint32_t)pos[4 * i + 1] << 8 |
		       (uint32_t)pos[4 * i + 2] << 16 | (uint32_t)pos[4 * i + 3] << 24;
	v = (uint32_t)(pos[2 * i] | pos[2 * i + 1] << 8);
	return (v >> 14) << STORAGE_POS_SHIFT | (v & 0x3fffu);
}

/* Ask the memory for the line of a record's last position (of n): a
 * bound reads it right after the record is found, and in a long record it
 * is not the header's line. */
static inline void storage_rec_prefetch_last(const uint8_t *pos, uint32_t n)
{
	__builtin_prefetch(pos + (size_t)(n - 1) * (pos[-1] & (STORAGE_URL_WIDE >> 8) ? 4 : 2));
}

/* Per-document facts the merge knows, for ranking and filters. */
struct storage_doc {
	uint32_t site_id;          /* 0: not in the index (never indexed, deleted, clone) */
	uint16_t len[STORAGE_SECTIONS]; /* positions used per section (words incl. stopwords) */
	uint64_t last_modified;    /* unix time, 0 = unknown */
};
/* 1 and *d for an indexed url_id, 0 for one that is not, -1 on damage. */
int storage_doc(const struct storage *s, uint32_t url_id, struct storage_doc *d);
/* Ask the memory for url_id's docinfo entry, which storage_doc() reads next. */
void storage_doc_prefetch(const struct storage *s, uint32_t url_id);
/* Number of indexed documents and the mean words per section (BM25). */
uint64_t storage_n_docs(const struct storage *s);
double storage_avg_len(const struct storage *s, int section);
/* The highest url_id with a docinfo entry. */
uint32_t storage_max_url_id(const struct storage *s);
/* The url_ids docinfo has room for (entries, used or not): every url_id
 * with an entry is below it.  Also on storage_open_docinfo()'s handle,
 * which has no FORMAT and so no storage_max_url_id(). */
uint64_t storage_docinfo_slots(const struct storage *s);

/* ---- lookups the merge and the check need ------------------------------- */

/* Words in the dictionary of partition `part` (ids part, part+100, ...),
 * including words that have no postings left. */
uint32_t storage_part_words(const struct storage *s, unsigned part);
/* Any dictionary entry, with or without postings: 1 and *word_id, 0 when
 * the word was never indexed, -1 on damage. */
int storage_word_id(const struct storage *s, const char *word, size_t len, uint32_t *word_id);
/* The ind entry of word_id: 1 and *w (counts may be 0), 0 when the id is not
 * in the dictionary, -1 on damage. */
int storage_word_info(const struct storage *s, uint32_t word_id, struct storage_word *w);

/* ---- writing (the merge) -------------------------------------------------
 *
 * A generation directory is written by one process or by several (each
 * partition by its owner, docinfo and FORMAT by the master).  Every file is
 * written, fsynced and closed by its writer; FORMAT is written last, and a
 * directory without a valid FORMAT is not a generation.  Nothing here
 * publishes: see storage_gen_publish(). */

struct storage_part_writer;

/* Create gen_dir/NNw/ and its four files (truncating files a crashed run
 * left).  Returns 0 and a writer (finish with storage_part_finish(), or drop
 * with storage_part_abort()), or -1 with the reason in err. */
int storage_part_begin(const char *gen_dir, unsigned part, struct storage_part_writer **out,
		       struct buf *err);
/* The next word of the partition, in id order (the k-th call is word_id
 * part + 100k): its UTF-8 bytes (1..MAX_WORD_LEN, copied; the caller makes
 * sure storage_partition(word) == part).  A word may end up with no postings
 * (it stays in the dictionary so that its id is never reused). */
int storage_part_word(struct storage_part_writer *w, const char *word, size_t len);
/* The next site of the current word: site_ids strictly ascending. */
int storage_part_site(struct storage_part_writer *w, uint32_t site_id);
/* The next URL of the current site: url_ids strictly ascending, 1 to
 * STORAGE_MAX_URL_POSITIONS positions (tokenize.h's values) strictly
 * ascending (copied).  A site gets at least one URL. */
int storage_part_url(struct storage_part_writer *w, uint32_t url_id, const uint32_t *pos,
		     uint32_t n);
/* Write the dictionary and the headers, fsync, close, free.  On -1 the files
 * are incomplete (the generation must not be published) and w is freed. */
int storage_part_finish(struct storage_part_writer *w, struct buf *err);
void storage_part_abort(struct storage_part_writer *w); /* accepts NULL */

struct storage_docinfo_writer;

/* gen_dir/docinfo: entries in ascending url_id order (holes are written as
 * "not indexed").  Returns 0 and a writer, or -1. */
int storage_docinfo_begin(const char *gen_dir, struct storage_docinfo_writer **out,
			  struct buf *err);
int storage_docinfo_put(struct storage_docinfo_writer *w, uint32_t url_id,
			const struct storage_doc *d);
/* Finish (fsync, close, free); *n_docs and sum_len[] (per section) are what
 * FORMAT records.  On -1, w is freed. */
int storage_docinfo_finish(struct storage_docinfo_writer *w, uint64_t *n_docs,
			   uint64_t sum_len[STORAGE_SECTIONS], uint32_t *max_url_id,
			   struct buf *err);
void storage_docinfo_abort(struct storage_docinfo_writer *w); /* accepts NULL */

/* What FORMAT says about a generation. */
struct storage_format {
	uint32_t version;          /* read: the file's; written: always the current */
	uint64_t generation;
	uint64_t words;            /* dictionary entries over all partitions */
	uint64_t live_words;       /* of those, words with postings */
	uint64_t postings;         /* (word, url) pairs */
	uint64_t n_docs;
	uint32_t max_url_id;
	uint64_t sum_len[STORAGE_SECTIONS];
};
/* Write gen_dir/FORMAT (temp file, fsync, rename, fsync dir) after every
 * other file of the generation is complete.  Returns 0 or -1. */
int storage_format_write(const char *gen_dir, const struct storage_format *f, struct buf *err);
/* Read and check gen_dir/FORMAT: 0, or -1 with the reason in err (an
 * older format version is refused, saying how to convert it). */
int storage_format_read(const char *gen_dir, struct storage_format *f, struct buf *err);

/* Verify every file of the generation (structure, offsets, sort orders,
 * counts, docinfo, and the data checksum of every file: ranks and
 * citations/ too, through their modules); each problem is one line "file: offset N: what" in
 * report.  A generation of an older format version is one line saying how to
 * convert it (nothing else is checked).  Returns 0 when all is well, 1 when
 * damage (or an old version) was found, -1 when the check could not run. */
int storage_check(const char *gen_dir, struct buf *report);

/* --- urlstates: bounded merge memory ---------------------------------------
 * Drop the pages of partition part's four files (storage_release_part) or
 * of docinfo (storage_release_docinfo) from this process's resident set
 * (madvise MADV_DONTNEED: the file's pages stay in the page cache and are
 * mapped again when read).  The merge calls them after each partition it
 * read and every 65,536 docinfo entries, so that walking a whole generation
 * does not count the generation's size in its RSS.  One partition's files,
 * not the whole generation's 401: releasing all of them after each
 * partition made 40,100 madvise() calls per merge.  Accept NULL. */
void storage_release_part(const struct storage *s, unsigned part);
void storage_release_docinfo(const struct storage *s);

/* ---- site summaries (storage_sum.c; doc/FORMATS.md, "Site summaries") ----
 * NNw/sitesum: for each word of partition NN with at least
 * STORAGE_SUM_MIN_URLS URLs, STORAGE_SUM_PER_SITE a site on average (a
 * site of one or two is visited as fast as its summary is read), one
 * summary per site of its postings: what
 * bounds the score of every document of the site for the word (top-k
 * pruning passes a site over by it, doc/SEARCH.md), whatever the
 * searchd.conf weights.  Optional: a generation without the files is
 * searched by visiting every site. */
#define STORAGE_SUM_MIN_URLS 1024
#define STORAGE_SUM_PER_SITE 4
#define STORAGE_SUM_HULL 5          /* points of the body-only documents' hull */
#define STORAGE_SUM_NO_TITLE 0xffffu

struct storage_sum {
	uint32_t site_id;
	uint32_t n_docs;            /* URL records of the site */
	uint32_t min_url;           /* its least url_id */
	/* Documents whose positions are all in the body: (occurrences,
	 * body length) points that dominate every one of them for
	 * n / (lambda + len), any lambda >= 0 (the upper hull, or above it). */
	uint32_t n_hull;
	uint16_t hull_n[STORAGE_SUM_HULL], hull_len[STORAGE_SUM_HULL];
	/* The other documents: per section s spanned by a document's
	 * positions (first to last; bit s of sec_mask), the most occurrences
	 * and the shortest section s among them. */
	uint8_t sec_mask;
	uint16_t sec_n[STORAGE_SECTIONS], sec_len[STORAGE_SECTIONS];
	/* The shortest title of the documents whose last position is in the
	 * title (STORAGE_SUM_NO_TITLE: none). */
	uint16_t title_len;
};

struct storage_sums;
/* Map gen_dir's NNw/sitesum files: 1 and *out, 0 when the generation has
 * none, -1 when one is missing or damaged (the reason in err). */
int storage_sums_open(const char *gen_dir, struct storage_sums **out, struct buf *err);
void storage_sums_close(struct storage_sums *s); /* accepts NULL */
/* A word's summaries, site by site (sites ascending). */
struct storage_sum_cursor {
	const unsigned char *e, *end;
};
/* 1 when word_id has summaries (c before its first site), 0 when not. */
int storage_sum_word(const struct storage_sums *s, uint32_t word_id, struct storage_sum_cursor *c);
/* The summary of site (asked in ascending order): 1 and *out, 0 when the
 * word has none for it. */
int storage_sum_site(struct storage_sum_cursor *c, uint32_t site, struct storage_sum *out);
/* Write NNw/sitesum, NNw/blocksum and NNw/skips of every partition of the
 * generation in gen_dir (its FORMAT, partitions and docinfo written); none
 * when no word gets a summary.  0 or -1. */
int storage_sums_write(const char *gen_dir, struct buf *err);
/* storage_check()'s: each NNw/sitesum, NNw/blocksum and NNw/skips file
 * against what storage_sums_write() makes of the generation.  1 good, 0
 * absent (none of the kinds), -1 damaged (err). */
int storage_sums_verify(const char *gen_dir, struct buf *err);

/* ---- block summaries (storage_block.c; doc/FORMATS.md, "NNw/blocksum") ---
 * NNw/blocksum, written with NNw/sitesum: a site's documents (docinfo's, in
 * url_id order) fall into windows of STORAGE_BLOCK_DOCS, the same for every
 * word, and a word's site of more than STORAGE_BLOCK URL records gets one
 * summary per window it has records in, when that is STORAGE_BLOCK_FILL
 * records a block or more on average and two blocks or more, so that
 * block-max pruning ("Faster Top-k Document Retrieval Using Block-Max
 * Indexes", Ding and Suel, SIGIR 2011) passes over the windows of a site it
 * has to visit, each word bounded by its block of the same documents.  A
 * site without blocks has its site summary as its one block.  Optional, as
 * sitesum. */
#define STORAGE_BLOCK 32            /* a word's records in a site that may get blocks */
#define STORAGE_BLOCK_DOCS 64       /* documents of a site a window holds */
#define STORAGE_BLOCK_FILL 4        /* records a block at least, on average */

struct storage_block {
	struct storage_sum s;       /* of the block's records: s.n_docs of them,
				     * s.min_url the first */
	uint32_t max_url;           /* the block's last url_id */
	uint64_t off;               /* its first record's byte offset from the site's first */
	uint32_t win_lo;            /* the first url_id of its window (of the site's documents) */
};

struct storage_blocks;
/* Map gen_dir's NNw/blocksum files: 1 and *out, 0 when the generation has
 * none, -1 when one is missing or damaged (the reason in err). */
int storage_blocks_open(const char *gen_dir, struct storage_blocks **out, struct buf *err);
void storage_blocks_close(struct storage_blocks *b); /* accepts NULL */
/* A word's blocks, site by site (sites ascending), borrowed from the
 * mapping. */
struct storage_block_cursor {
	const unsigned char *e, *end;
};
/* 1 when word_id has blocks (c before its first), 0 when not. */
int storage_block_word(const struct storage_blocks *b, uint32_t word_id,
		       struct storage_block_cursor *c);
/* The blocks of site, asked in ascending site order (like
 * storage_sum_site()): their number (0: none, or a damaged one among them)
 * and *first, read with storage_block_at().  Asking the same site again
 * gives them again. */
uint32_t storage_block_site(struct storage_block_cursor *c, uint32_t site,
			    const unsigned char **first);
/* Whether one site has at least n of word_id's blocks (read up to the
 * first that does). */
bool storage_block_site_has(const struct storage_blocks *b, uint32_t word_id, uint32_t n);
/* Block i (< the number storage_block_site() gave) of those at first. */
void storage_block_at(const unsigned char *first, uint32_t i, struct storage_block *out);
/* Block i's first and last url_id alone (what a search for a url_id reads). */
uint32_t storage_block_min_url(const unsigned char *first, uint32_t i);
uint32_t storage_block_max_url(const unsigned char *first, uint32_t i);
/* Block i's window's first url_id and its documents, without the rest. */
uint32_t storage_block_win_lo(const unsigned char *first, uint32_t i);
uint32_t storage_block_docs(const unsigned char *first, uint32_t i);

/* ---- skip entries (storage_skip.c; doc/FORMATS.md, "NNw/skips") ----------
 * NNw/skips, written with NNw/sitesum: for a summarized word's site of
 * STORAGE_SKIP_MIN URL records or more, every STORAGE_SKIPth record's
 * url_id and byte offset from the site's first (record STORAGE_SKIP,
 * 2 * STORAGE_SKIP, ...), so that a cursor sent far ahead in a long list
 * jumps near its target instead of reading every record header between
 * (Moffat and Zobel's self-indexing inverted files, ACM TOIS 14(4), 1996).
 * Optional, as sitesum. */
#define STORAGE_SKIP 16             /* records from one skip entry to the next */
#define STORAGE_SKIP_MIN 64         /* a word's records in a site that get them */

struct storage_skips;
/* Map gen_dir's NNw/skips files: 1 and *out, 0 when the generation has
 * none, -1 when one is missing or damaged (the reason in err). */
int storage_skips_open(const char *gen_dir, struct storage_skips **out, struct buf *err);
void storage_skips_close(struct storage_skips *k); /* accepts NULL */
/* A word's skip entries, site by site (sites ascending), borrowed from the
 * mapping. */
struct storage_skip_cursor {
	const unsigned char *e, *end;
};
/* 1 when word_id has skip entries (c before its first), 0 when not. */
int storage_skip_word(const struct storage_skips *k, uint32_t word_id,
		      struct storage_skip_cursor *c);
/* The skip entries of site, asked in ascending site order: their number
 * (0: none) and *first. */
uint32_t storage_skip_site(struct storage_skip_cursor *c, uint32_t site,
			   const unsigned char **first);
/* The url_id of entry i of the n at first: UINT32_MAX when i >= n. */
uint32_t storage_skip_entry_url(const unsigned char *first, uint32_t n, uint32_t i);
/* Cursor c, in the site of the n skip entries at first, before a record of
 * url_id target or more: moved to the last entry's record whose url_id is
 * at most target, when that is ahead of it.  *hint (0 at the site's start)
 * keeps the first entry past the cursor between calls, so that a target
 * before it costs one comparison; a cursor moved elsewhere meanwhile
 * (storage_jump()) is found again by a binary search.  An entry that does
 * not name the record at its offset (a damaged file) is not followed.  1
 * when c moved, else 0. */
int storage_skip_ahead(struct storage_cursor *c, const unsigned char *first, uint32_t n,
		       uint32_t target, uint32_t *hint);

#endif
