/* search.h - answering a query from one index generation: the engine that
 * searchd runs in each of its threads (src/search/search.c runs a query
 * through search_match.c, search_filter.c, search_score.c and
 * search_hits.c; src/search/excerpt.c makes snippets and the cached copy).
 *
 * A struct search_index is one opened generation (CompactStorage, docinfo,
 * ranks, citations), checked when opened and read-only afterwards: any
 * number of threads may search it at once.  searchd swaps in a new one
 * between queries (hot reload) and closes the old one when its last query
 * is done (search_index_ref/unref).  Everything a result page shows that
 * the index does not hold (URL, title, description, stored text, clones)
 * comes from the database through the caller's connection (one per thread).
 * Formula and behaviour: doc/SEARCH.md.
 */
#ifndef MPSEEK_SEARCH_H
#define MPSEEK_SEARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "proto.h"

struct buf;
struct conf;
struct db;
struct tokenizer;

struct search_index;
struct search_rt;

/* Open the live generation of data_dir (index/current), or gen_dir when not
 * NULL.  verify: run storage_check() first and refuse a damaged generation
 * (searchd does; tests of damage rely on it).  Returns 0 and *out (one
 * reference), or -1 with the reason in err. */
int search_index_open(const struct conf *c, const char *data_dir, const char *gen_dir,
		      bool verify, struct search_index **out, struct buf *err);
/* References: searchd's current pointer holds one, each running query one. */
void search_index_ref(struct search_index *ix);
void search_index_unref(struct search_index *ix);   /* closes at zero; accepts NULL */
uint64_t search_index_generation(const struct search_index *ix);
/* Read errors met in its files since it was opened (storage_faults()): the
 * bytes changed under the mapping; searchd re-validates it. */
unsigned long search_index_faults(const struct search_index *ix);
/* Marked damaged by searchd's re-validation, with no generation to fall back
 * to: ER_INDEX then says so. */
void search_index_set_damaged(struct search_index *ix);
bool search_index_damaged(const struct search_index *ix);
/* The generation directory's name, e.g. ".../index/gen-00000003". */
const char *search_index_dir(const struct search_index *ix);

/* The result-page rows (URL, site, title, description, keywords, type,
 * size, clones) an opened generation keeps after reading them from the
 * database once (at most 65,536 rows / 64 MiB; a full cache starts over):
 * lookups answered, lookups that went to the database, rows kept.  Pages
 * with snippets and no docstore read the database (the stored text is not
 * kept). */
void search_index_cache_stats(struct search_index *ix, uint64_t *hits, uint64_t *misses,
			      uint64_t *rows);
/* The hits' docstore entries (fields and snippet text made plain) an opened
 * generation keeps (at most 16,384 / 64 MiB; a full cache starts over):
 * lookups answered, lookups that read the docstore, entries kept. */
void search_index_text_stats(struct search_index *ix, uint64_t *hits, uint64_t *misses,
			     uint64_t *texts);
/* Keep at most rows rows and texts docstore entries (0: the default,
 * as above) in the generation's caches from now on: tests make them small
 * so that pages find them emptied under them. */
void search_index_cache_limit(struct search_index *ix, size_t rows, size_t texts);

/* The real-time index (include/rt.h), DataDir/index/rt read into memory:
 * 0 and *out (one reference), or -1 with the reason in err (a damaged or
 * torn file is refused whole).  Its URLs override the generation's at query
 * time (doc/SEARCH.md, "Real-time index"). */
int search_rt_open(const char *path, struct search_rt **out, struct buf *err);
void search_rt_ref(struct search_rt *rt);
void search_rt_unref(struct search_rt *rt);          /* frees at zero; accepts NULL */
size_t search_rt_urls(const struct search_rt *rt);  /* URLs it holds (DEL included) */
/* What a search may use besides the index: the tokenizer of the indexer
 * (same word lengths and stopwords), the limits of searchd.conf. */
struct search_env {
	const struct conf *c;
	const struct tokenizer *tok;
	struct db *db;            /* this thread's connection; NULL: no titles, excerpts */
	double deadline;          /* now_monotonic() value after which to stop, 0 = none */
	struct search_work *work; /* NULL, or the query's work is added to it */
	struct search_rt *rt;     /* NULL, or the real-time index (search_rt_open()) */
	struct arena *arena;      /* NULL, or this thread's (arena.h), reset after each query */
};

/* The work of queries, deterministic (doc/SEARCH.md, "Top-k pruning"). */
struct search_work {
	uint64_t queries, pruned;  /* queries run; of those, by top-k pruning */
	uint64_t matched;          /* documents that matched (after the filters) */
	uint64_t postings;         /* (word, document) pairs whose positions were decoded */
	uint64_t scored;           /* documents fully scored */
	uint64_t lists;            /* posting lists pruned queries walked (a word twice: once) */
	uint64_t phrase_docs;      /* documents a pruned query searched for a phrase */
	uint64_t sum_queries;      /* pruned queries that bounded sites by their summaries */
	uint64_t paired;           /* pruned queries a phrase's common-word pair drove */
	uint64_t sites;            /* sites of the driving word a pruned query came to */
	uint64_t sum_sites;        /* of those, passed over by their summaries */
	uint64_t visited;          /* documents of the driving word a pruned query read */
	uint64_t blocks;           /* ranges of visited sites read (block summaries) */
	uint64_t sum_blocks;       /* ranges of visited sites passed over */
	uint64_t skips;            /* cursor jumps by skip entries (NNw/skips) */
};

/* Answer one request.  Always fills *res (free with proto_results_free()):
 * a query that cannot be served gets res->error (ER_* token) and a message;
 * a query past the deadline gets ER_TIMEOUT.  Returns 0, or -1 only when
 * the index or the database failed (res->error is then set too). */
int search_run(struct search_index *ix, const struct search_env *env,
	       const struct proto_search *req, struct proto_results *res);

/* The cached copy of a document (stored text, query terms highlighted). */
int search_cached(struct search_index *ix, const struct search_env *env,
		  const struct proto_cached_req *req, struct proto_cached *res);

/* ---- the pure parts, for tests/unit/test-search -------------------------
 * (doc/SEARCH.md, "Ranking", has the formula these compute). */

struct search_rank_params {
	double w[4];               /* section weights: body, description, keywords, title */
	double k1, b;              /* BM25 */
	double phrase, proximity;  /* boosts */
	double pagerank;           /* blend factor of ranks_score() */
	double title_match;        /* added when the title is exactly the query */
	double stem_weight;        /* a word form's occurrence, of an exact one's */
	double boiler;             /* an occurrence in boilerplate, of one elsewhere */
	double anchor_weight;      /* an anchor word's occurrence, of a body one's */
};
/* From searchd.conf (the defaults when c is NULL). */
void search_rank_params(const struct conf *c, struct search_rank_params *p);
/* ln(1 + (N - df + 0.5) / (df + 0.5)), never below 0. */
double search_idf(uint64_t n_docs, uint64_t df);
/* The BM25F score of one term in one document: tf and len per section. */
double search_bm25f(const struct search_rank_params *p, double idf, const uint32_t tf[4],
		    const uint16_t len[4], const double avg_len[4]);
/* Occurrences of a phrase: word i must be at offs[i] positions after word
 * 0, in the same section (pos[i] are a document's sorted positions of word
 * i, n[i] of them, tokenize.h's values).  Counts per section into per_section[4] (if not NULL).
 * Returns the total. */
uint32_t search_phrase_count(const uint32_t *const *pos, const uint32_t *n, const uint32_t *offs,
			     size_t k, uint32_t per_section[4]);
/* Do the query's words follow each other in the title?  masks[i] has bit p
 * set when word i (in query order) is at title position p (< 64).  True
 * when some position of each word comes 1 to max_gap positions after one
 * of the word before it. */
bool search_title_chain(const uint64_t *masks, size_t k, unsigned max_gap);
/* The smallest distance between a position of a and one of b (sorted,
 * tokenize.h's values) in the same section (UINT32_MAX when none). */
uint32_t search_min_distance(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb);

/* Does site key "scheme://host[:port]/" match a site: pattern (lower case)?
 * The pattern's labels end the host ("example.org" matches
 * "www.example.org", not "badexample.org"); with a port it compares
 * host:port, with "://" the whole key (a trailing '/' optional). */
bool search_site_match(const char *site, const char *pat);

/* A matching document, as the ranking leaves it. */
struct search_doc {
	uint32_t site_id, url_id;
	double score;
	uint64_t last_modified;
};
/* One entry of a result page: docs[doc], second of its site or not. */
struct search_pick {
	uint32_t doc;
	uint8_t second;
	uint32_t site_hits;        /* matching documents of its site */
};
/* Rank docs (n of them, sorted by site_id then url_id) by score or date
 * (enum proto_sort; ties: score, then url_id), grouped 2 per site when
 * group, and pick page `page` of page_size entries (a group is one entry)
 * into out (room for 2 * page_size).  Only the top (page+1)*page_size
 * entries are ordered (a heap).  Returns the number of picks; *total is the
 * number of entries (sites when grouped, else documents), *sites the number
 * of distinct sites. */
size_t search_select(const struct search_doc *docs, size_t n, bool group, int sort,
		     uint32_t page, uint32_t page_size, struct search_pick *out, uint64_t *total,
		     uint32_t *sites);

#endif
