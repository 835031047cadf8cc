/* search_int.h - what the files of the engine share and nobody else sees
 * (as sqlite's whereInt.h): the opened generation, one query's state
 * (struct run) and the postings it holds in memory.  search.c runs a query
 * through the phases of search_match.c (postings, evaluation),
 * search_filter.c (site:, link:, ul, spaces), search_score.c (ranking) and
 * search_hits.c (the result page's rows); none of those calls another.
 * Hot helpers are static inline here so that splitting the engine into
 * files costs no call on the per-document paths.
 */
#ifndef MPSEEK_SEARCH_INT_H
#define MPSEEK_SEARCH_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "arena.h"
#include "buf.h"
#include "query.h"
#include "ranks.h"
#include "search.h"
#include "storage.h"
#include "tokenize.h"
#include "util.h"

/* ---- the generation --------------------------------------------------------- */

struct hit_row;
struct hit_text;
struct neardup;

struct search_index {
	int refs;                  /* __atomic */
	struct storage *st;
	struct ranks *rk;          /* NULL: no ranks file */
	struct citations *rev;     /* NULL: no citations */
	struct stems *stems;       /* NULL: no stem map, or Stemming no */
	struct docstore *ds;       /* NULL: no docstore, texts from the database */
	struct boiler *bp;         /* NULL: no boilerplate known */
	struct neardup *nd;        /* NULL: no near-duplicate groups */
	struct grams *grams;       /* NULL: no common-word pairs (include/grams.h) */
	/* Members of groups whose documents lie in more than one site, a bit
	 * per url_id up to nd_split_max (search_prune.c scores them all);
	 * NULL: none. */
	uint64_t *nd_split;
	uint32_t nd_split_max;
	char *dir;
	uint64_t gen;
	int damaged;               /* __atomic: re-validation failed */
	double avg_len[STORAGE_SECTIONS];
	/* Per-generation norms (doc/SEARCH.md, "Profile"), made at open: the
	 * BM25F section factor w_s / norm_s of every section length (a table
	 * by length, for the rank parameters in norm_rp; a query with others
	 * computes its own) and every document's ranks_score().  NULL: none. */
	double *wn_len[STORAGE_SECTIONS]; /* [0 .. UINT16_MAX] */
	struct search_rank_params norm_rp;
	double *pr;                /* [0 .. n_pr) by url_id */
	uint32_t n_pr;
	/* Site summaries (search_sum.c), NULL: none; beside them, for each
	 * site docinfo has (open addressing by site_id: memory follows the
	 * sites, not their largest id), its best PageRank (with ranks) and
	 * whether it has members of near-duplicate groups. */
	struct storage_sums *sums;
	struct storage_blocks *blocks; /* the block summaries (search_block.c), or NULL */
	struct storage_skips *skips;   /* the skip entries (search_prune.c), or NULL */
	struct site_ent {
		uint32_t site;         /* 0: a free slot (site 0 is no site) */
		bool nd;
		double pr;
		uint32_t docs;         /* its documents in docinfo */
		uint32_t win;          /* its first window in win_start[], win_pr[] */
	} *sites;
	uint32_t site_mask, n_sites; /* slots - 1 (a power of two), used */
	/* With ranks: each site's documents in url_id order cut into windows
	 * of STORAGE_BLOCK_DOCS (the cut of the block summaries), each
	 * window's first url_id and best PageRank score: a range of a site
	 * is bounded by its windows' best, not the site's. */
	uint32_t *win_start;
	double *win_pr;
	/* result-page rows read from the database (search_hits.c) */
	pthread_mutex_t cache_mu;
	struct hit_row **cache;    /* SEARCH_CACHE_SLOTS, open addressing; NULL until used */
	size_t cache_rows, cache_bytes;
	size_t cache_max, text_max; /* search_index_cache_limit(); 0: the defaults */
	uint64_t cache_hits, cache_misses; /* under cache_mu */
	/* snippet texts: the docstore's text made plain (search_hits.c) */
	struct hit_text **texts;   /* SEARCH_TEXT_SLOTS, under cache_mu; NULL until used */
	size_t text_rows, text_bytes;
	uint64_t text_hits, text_misses;
};

/* ---- postings in memory --------------------------------------------------------- */

/* The postings of one leaf: documents by key (site_id << 32 | url_id), the
 * positions of document i at pos[end[i-1] .. end[i]).  Owned arrays. */
struct plist {
	uint64_t *key;
	uint32_t *end;
	tok_pos_t *pos;
	size_t n, cap, npos, poscap;
};

void plist_free(struct plist *p);

static inline const tok_pos_t *plist_pos(const struct plist *p, size_t i, uint32_t *n)
{
	uint32_t start = i ? p->end[i - 1] : 0;
	*n = p->end[i] - start;
	return p->pos + start;
}

/* Index of key in p at or after *cursor (keys ascending), or SIZE_MAX.
 * Galloping: the documents are visited in key order, so the key is
 * usually at or just after the cursor. */
static inline size_t plist_find(const struct plist *p, uint64_t key, size_t *cursor)
{
	size_t lo = *cursor, hi, step = 1;

	if (lo < p->n && p->key[lo] >= key) {
		*cursor = lo;
		return p->key[lo] == key ? lo : SIZE_MAX;
	}
	hi = lo + 1;
	while (hi < p->n && p->key[hi] < key) {
		lo = hi;
		step *= 2;
		hi = lo + step;
	}
	if (hi > p->n)
		hi = p->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->key[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	*cursor = lo;
	return lo < p->n && p->key[lo] == key ? lo : SIZE_MAX;
}

/* A sorted set of document keys, never changed once made: a word's or a
 * phrase's documents borrowed, or a new set in the query's arena (r->ar). */
struct kset {
	uint64_t *k;
	size_t n;
};

static inline int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static inline bool u32_in(const uint32_t *v, size_t n, uint32_t x)
{
	return n && bsearch(&x, v, n, sizeof(*v), cmp_u32) != NULL;
}

/* ---- one query ------------------------------------------------------------------- */

struct leaf {
	const struct qnode *node;  /* Q_TERM or Q_WILD */
	bool positive;             /* not under a NOT: scored and highlighted */
	bool in_phrase;
	uint8_t mask;              /* sections */
	struct plist pl;
	double idf;
	size_t cursor;
	bool loaded;               /* by run_load_driven() */
	uint64_t df;               /* documents of the word (run_load_driven) */
	char **words;              /* the words it stands for (a wildcard: its expansion); owned */
	size_t n_words;
	/* Word forms (doc/SEARCH.md, "Word forms"): words[1..] are the other
	 * index words of the term's stem, n_forms of them; pl holds every
	 * form's postings (the documents it matches), xpl the exact word's, fpl
	 * the other forms' (scored at StemWeight where the exact word is not). */
	size_t n_forms;
	uint64_t exact_df;         /* documents of the exact word (its idf) */
	struct plist xpl, fpl;
	size_t xcursor, fcursor;
	/* Anchor text (doc/SEARCH.md, "Anchor text"): the documents whose
	 * in-links carry the word, in apl (pl holds them too); then xpl holds
	 * the word's own postings even without forms. */
	bool anchored;
	struct plist apl;
	size_t acursor;
};

struct phrase {
	const struct qnode *node;
	bool positive;
	uint64_t *key;             /* matching documents (r->ar) */
	uint32_t (*count)[4];      /* occurrences per section (r->ar) */
	size_t n;
	double idf;                /* sum over its words */
	size_t cursor;
};

/* The set of sites of a site: node, or the documents of a link: node. */
struct filter {
	const struct qnode *node;
	uint32_t *sites;           /* Q_SITE: sorted site_ids */
	size_t n_sites;
	struct kset docs;          /* Q_LINK */
};

/* One query from parse to page; everything it points to it owns, except
 * ix, env, req and res (the caller's).  What lives as long as the query
 * and no longer (the evaluation's sets, the phrases' matches, the scored
 * documents) is in the arena ar: freed at once at the end, and with a
 * searchd thread's arena (env->arena) not even given back to malloc. */
struct run {
	struct arena *ar;          /* env->arena, or own_ar */
	struct arena own_ar;
	struct search_index *ix;
	const struct search_env *env;
	const struct proto_search *req;
	struct proto_results *res;
	struct query q;
	struct search_rank_params rp;
	struct storage_cursor *cur;
	struct stemmer *stemmer;   /* made for the first term with forms; NULL */
	struct leaf *leaves;
	size_t n_leaves;
	struct phrase *phrases;
	size_t n_phrases;
	struct filter *filters;
	size_t n_filters;
	size_t positions;          /* loaded so far */
	struct buf notes;
	const char *err_token;     /* set: stop with this error */
	char err_msg[256];
	bool db_failed;
	/* request filters */
	uint32_t *space_sites, *ul_sites, *ul_urls;
	size_t n_space_sites, n_ul_sites, n_ul_urls;
	bool ul_set;
	/* exact title */
	bool title_eligible;
	uint32_t query_tokens;
	struct search_work work;   /* added to env->work at the end */
	const double *const *wn_len; /* ix->wn_len when made for rp, else NULL */
	const struct search_rt *rt; /* env->rt when it holds URLs, else NULL */
	/* Matching documents and sites run_prune() counted from the site
	 * summaries (their documents are not in its list). */
	uint64_t sum_urls, sum_sites;
	/* What pruning passed over and counted one unit (a site or a block
	 * of one) in PRUNE_SAMPLE (ExactCounts no, search_block.c): the units
	 * counted (their driving word's documents, their matches; the sites
	 * among them, those with a match), and the driving documents and
	 * sites of the others, whose matches are estimated at the counted
	 * ones' rate.  Per visited site with blocks passed over, what its
	 * site_hits lacks (run_est_apply()). */
	struct run_est {
		uint64_t docs, hits, sites, sites_hit;
		uint64_t est_docs, est_sites;
		struct run_est_site {
			uint32_t site;
			bool listed;       /* the site has documents in the walk's list */
			uint32_t hits;     /* matches counted in its passed blocks */
			uint64_t est_docs; /* driving documents of the blocks not counted */
		} *x;
		size_t nx, capx;
	} est;
};

/* search.c: stop the query with an ER_* token and a sentence (the first
 * failure wins). */
void run_fail(struct run *r, const char *token, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline bool run_past_deadline(struct run *r)
{
	if (r->err_token)
		return true;
	if (r->env->deadline > 0 && now_monotonic() > r->env->deadline) {
		run_fail(r, "ER_TIMEOUT", "The search took longer than its time limit.");
		return true;
	}
	return false;
}

/* search_rt.c: the real-time index's facts of url_id (site_id 0: deleted),
 * NULL when it does not hold the URL; the leaf's postings with the URLs it
 * holds replaced by its own. */
const struct storage_doc *run_rt_doc(const struct search_rt *rt, uint32_t url_id);
void run_rt_overlay(struct run *r, struct leaf *l);

/* A document's facts: the real-time index's when it holds the URL, else
 * the generation's (storage_doc()'s 1, 0, -1). */
static inline int run_doc(const struct run *r, uint32_t url_id, struct storage_doc *d)
{
	const struct storage_doc *x = r->rt ? run_rt_doc(r->rt, url_id) : NULL;

	if (!x)
		return storage_doc(r->ix->st, url_id, d);
	*d = *x;
	return x->site_id ? 1 : 0;
}

/* search_score.c: the generation's norms (ix->wn_len, ix->pr) for the
 * rank parameters of c; run_norms() points r->wn_len at them when r's
 * parameters are those. */
void search_norms_make(struct search_index *ix, const struct conf *c);
void search_norms_free(struct search_index *ix);
void run_norms(struct run *r);

/* A document's PageRank score, from the generation's table when it has one. */
static inline double index_pr(const struct search_index *ix, uint32_t url_id)
{
	if (url_id < ix->n_pr)
		return ix->pr[url_id];
	return ix->rk ? ranks_score(ix->rk, url_id) : 0;
}

static inline double run_pr(const struct run *r, uint32_t url_id)
{
	return index_pr(r->ix, url_id);
}

/* ---- the phases, in the order search_run() takes them ---------------------- */

/* search_match.c: number the leaves, phrases and filters of the tree. */
void run_collect(struct run *r, struct qnode *n, bool positive, bool in_phrase);
/* search_filter.c: site:, link:, ul and spaces from the database; -1 when
 * it failed (a query that cannot have them gets run_fail() and 0). */
int run_resolve_filters(struct run *r);
/* search_match.c: the words every answer must have, rarest first (0, or -1
 * damage), then each leaf not loaded by it (0, or -1 with or without
 * run_fail()). */
int run_load_driven(struct run *r);
int run_load_leaf(struct run *r, struct leaf *l);
/* search_match.c: the words a leaf stands for, without reading postings
 * (the cached copy highlights them). */
void run_leaf_words(struct run *r, struct leaf *l);
/* search_match.c: the matching documents of the tree (in r->ar). */
struct kset run_eval(struct run *r, const struct qnode *n);
/* search_score.c: count the query's tokens when its words may all be in a
 * title (the exact-title boost). */
void run_title_prepare(struct run *r);
/* search_score.c: score the documents of set into *docs (grown in r->ar
 * from *n_docs of an earlier call, or NULL and 0), those the filters keep; 0, -1 (index damage, run_fail() done) or
 * 1 past the deadline. */
int run_score(struct run *r, const struct kset *set, struct search_doc **docs, size_t *n_docs);
/* search_score.c: score one document (as run_score()) for top-k pruning,
 * and the upper bounds it prunes with (doc/SEARCH.md, "Top-k pruning"):
 * the section factors of a document, a bound of a word's tf~ from its count
 * and the sections its positions span, BM25F's saturation of such a bound, the document's score from its text's bound,
 * the proximity boost's; run_bounds_valid() false when a weight is
 * negative (bounds would not hold: no pruning). */
int run_score_one(struct run *r, uint64_t key, struct search_doc *out, bool *keep);
bool run_request_keeps(const struct run *r, uint32_t site, uint32_t url); /* st, spaces, ul */
void run_section_factors(const struct run *r, const uint16_t len[4], double wn[4]);
double run_tf_bound(uint32_t n, int sec_lo, int sec_hi, const double wn[4]);
double run_sat_bound(const struct run *r, double idf, double t);
double run_doc_bound(const struct run *r, double text, double pr, bool in_title,
		     uint16_t title_len);
double run_proximity_bound(const struct run *r, const bool *found); /* found[leaf]; NULL: all */
bool run_bounds_valid(const struct run *r);
/* search_sum.c: the site summaries of ix and the tables beside them (0,
 * or -1 on damage; a generation without them searches as before), freed
 * by search_sums_free(); a site's best PageRank score (of its documents
 * with url_ids in [lo, hi]: run_sum_pr_range()), whether it has
 * near-duplicates, and the bound of a word's tf~ in every document of a
 * site from its summary. */
int search_sums_make(struct search_index *ix);
void search_sums_free(struct search_index *ix);
double run_sum_pr(const struct run *r, uint32_t site);
double run_sum_pr_range(const struct run *r, uint32_t site, uint32_t lo, uint32_t hi);
bool run_sum_neardups(const struct run *r, uint32_t site);
double run_sum_tf(const struct run *r, const struct storage_sum *s);
/* One posting list of a word, summed up site by site: from its summaries
 * (file), or, a list too small to have them, from its records read at
 * the start (rd) with each document's docinfo. */
struct sum_rec {
	uint32_t site, url;
	uint16_t n;
	uint8_t lo, hi;            /* sections of its first and last position */
};
struct sum_list {
	bool file;
	struct storage_sum_cursor sc;
	struct sum_rec *rd;        /* r->ar */
	size_t nrd, at;            /* at: the first record of the site */
	uint32_t site;             /* of what follows; UINT32_MAX none yet */
	int ok;                    /* its summary is known */
	double tf;                 /* the bound of run_tf_bound() of its documents */
	uint32_t max_n, n_docs;    /* the most occurrences, the documents */
	uint16_t title;            /* the shortest title of those with their last position there */
};
/* l for the list of word_id (n_urls documents), reading a small one with
 * scratch: 1, 0 when it has no summaries and is not small, -1 damage. */
int run_sum_list_open(struct run *r, uint32_t word_id, uint32_t n_urls,
		      struct storage_cursor *scratch, struct sum_list *l);
/* l's summary of site (asked in ascending order; present: the list has
 * the site): 1 (in l), 0 when the generation has none, -1 damage. */
int run_sum_list_site(struct run *r, struct sum_list *l, uint32_t site, bool present);
/* The most occurrences of a document a summary bounds. */
uint32_t run_sum_max_n(const struct storage_sum *s);
/* l back before its first site (word_id: its word). */
void run_sum_list_rewind(const struct run *r, struct sum_list *l, uint32_t word_id);
/* search_prune.c: true when the query can be answered with top-k pruning
 * (words ANDed, with site: and NOTs of words or sites; all sections; not by
 * date; Pruning yes). */
bool run_prune_eligible(const struct run *r);
/* search_prune.c: the matching documents into *docs as run_score() (same
 * order, the same counts), the ones that cannot reach the page with score
 * -HUGE_VAL; 0, -1 (damage, run_fail() done) or 1 past the deadline. */
int run_prune(struct run *r, uint32_t page_size, struct search_doc **docs, size_t *n_docs);
/* search_dup.c: the documents of one near-duplicate group but the best
 * ranked leave docs[0..n) (order kept); the new count. */
size_t run_fold_neardups(struct run *r, struct search_doc *docs, size_t n);
/* ... and each hit lists its group's other pages after its clones: the
 * live ones' URLs of url_ids[0..n) in one SELECT, cb(arg, i, url_id, url)
 * for each, ascending by url_id for each i.  0, or -1 when the database
 * failed (or cb did). */
int run_neardup_urls(struct run *r, const uint32_t *url_ids, size_t n,
		     int (*cb)(void *arg, size_t i, uint32_t url_id, const char *url), void *arg);
/* search_hits.c: the hits of picks pk[0..n) into r->res, with the rows from
 * the database (and the generation's cache) and their snippets; -1 when the
 * database failed. */
int run_fill_hits(struct run *r, const struct search_doc *docs, const struct search_pick *pk,
		  size_t n);
/* search_hits.c: the distinct positive words, for highlighting: *out is
 * in the query's arena (r->ar), its strings borrowed from r's leaves. */
void run_highlight_words(struct run *r, const char ***out, size_t *n);
/* search_hits.c: s as valid UTF-8 (invalid bytes replaced); malloc'd. */
char *valid_dup(const char *s);
/* search_hits.c: empty the generation's row cache (cache_mu held, or the
 * last reference gone). */
void hit_cache_clear_locked(struct search_index *ix);
/* search_hits.c: empty the row cache and unmap its slots (the last
 * reference gone). */
void hit_cache_free(struct search_index *ix);

#endif
