/* search_prune.h - what the files of top-k pruning share (doc/SEARCH.md,
 * "Top-k pruning"): search_prune.c walks the driving word's documents site
 * by site and ranks a site's candidates, search_prune_sum.c passes whole
 * sites over by their summaries, search_block.c passes blocks of a site's
 * documents over by the block summaries.  Nobody else includes it.
 */
#ifndef MPSEEK_SEARCH_PRUNE_H
#define MPSEEK_SEARCH_PRUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "query.h"
#include "search_int.h"
#include "storage.h"

#define PRUNE_MAX_TERMS 32     /* words of a query pruning takes */
#define PRUNE_MARGIN    1e-9   /* a bound's slack for rounding (relative and absolute) */
#define PRUNE_FIRST     1      /* sites visited first per entry of the page (prune_first()) */
#define PRUNE_AHEAD_DOCS 65536 /* url_ids from which the walk reads ahead (prune_prefetch_next()) */
#define PRUNE_CAND_FIRST 1024  /* room for a site's candidates at first (48 KB; grown by doubling) */

/* What a posting list is of a word: the word itself, one of its other
 * forms (StemWeight), its anchor word (AnchorWeight per occurrence); or a
 * pair of common words of a phrase (include/grams.h), which only drives. */
enum { SUB_OWN, SUB_FORM, SUB_ANCHOR, SUB_PAIR };

/* One posting list's cursor: the record of its current site read last. */
struct psub {
	struct storage_cursor *c;
	uint32_t site;             /* the cursor's site; 0 before the first */
	bool ended;                /* no sites left */
	bool site_done;            /* no records left in the site */
	uint32_t url, n;           /* the record read last (url 0: none yet) */
	const uint8_t *pos;
	int kind;                  /* SUB_* */
	uint32_t word_id, n_urls, n_sites;
	struct sum_list *sl;       /* its site summaries (sum_open()); NULL: none */
	/* Its block summaries (search_block.c): the word's; the current
	 * site's nb blocks from bfirst, bsite their site. */
	struct storage_block_cursor bc;
	bool has_blk;
	const unsigned char *bfirst;
	uint32_t nb, bsite;
	uint32_t bnext;            /* the first block the next range may use (prune_blk_ranges()) */
	/* Its skip entries (NNw/skips): the word's; the current site's nsk
	 * from skfirst, sksite their site, skhint the first past the cursor
	 * and sknext its url_id (a target below it is read on to; 0: to be
	 * looked up, UINT32_MAX: none); jumps counts the moves. */
	struct storage_skip_cursor sk;
	bool has_sk;
	const unsigned char *skfirst;
	uint32_t nsk, sksite, skhint, sknext;
	uint64_t *jumps;
	struct bval {
		double tf;         /* -1: not made yet */
		uint32_t max_n;
		uint16_t title;
	} *bv;                     /* per block of the site, what it says (made once) */
	uint32_t capbv;
};

/* A range of url_ids of the current site, cut by the blocks of the
 * driving word's longest list (search_block.c): the bound of every
 * document in it, and that list's documents there. */
struct prange {
	uint32_t lo, hi, n_drv;
	double ub;
};

/* What one list says of a site or of a range of it: the bound of its tf~
 * (run_tf_bound()), its most occurrences, its shortest title; present:
 * it may have documents there. */
struct subval {
	double tf;
	uint32_t max_n;
	uint16_t title;
	bool present;
};

/* One word: the OR of its posting lists p->sub[first .. first + ns), a
 * plain word's one, a word with forms or anchor text's several (doc/SEARCH.md,
 * "Word forms", "Anchor text"). */
struct pterm {
	struct leaf *l;
	size_t first, ns;
	uint64_t cost;             /* postings in all: the driver is the cheapest */
};

/* A matching document of the current site. */
struct cand {
	uint64_t key;
	double ub, score;
	uint64_t last_modified;
	size_t at;                 /* its positive words' records: rec[at ..] */
	bool scored;
};

struct rec {
	const uint8_t *pos;
	uint32_t n;
};

/* A phrase of the query: word i is the positive word t[term[i]], d[i]
 * positions after word 0; key and count are the scored document's, for
 * score_phrases(). */
struct pphrase {
	struct phrase *ph;
	size_t k;
	size_t term[QUERY_MAX_PHRASE];
	uint32_t d[QUERY_MAX_PHRASE];
	uint32_t need[QUERY_MAX_PHRASE]; /* positions word i's list needs (prune_repeats()) */
	bool repeats;              /* some need[] above 1 */
	/* Every two neighbours a pair of common words in pair[] (prune_pairs()),
	 * the one of words i and i + 1 the list sub[psub[i]]: the phrase is
	 * found in the pairs' positions, before its words are looked up. */
	bool paired;
	size_t psub[QUERY_MAX_PHRASE];
	uint64_t key;
	uint32_t count[4];
};

struct prune {
	struct run *r;
	struct pterm t[PRUNE_MAX_TERMS];
	size_t nt, np;             /* words; the positive ones first, rarest at 0 */
	/* The lists whose documents the walk reads: t[0]'s, or pair[0]'s.
	 * pair[]: the phrases' pairs of common words with fewer documents
	 * than t[0] (prune_pairs()), fewest first, each one list of sub[]
	 * after the words'; a document must be in each. */
	const struct pterm *drv;
	struct pterm pair[PRUNE_MAX_TERMS];
	size_t npair;
	struct pphrase *f;         /* the query's phrases (nf), in the query's arena */
	size_t nf;
	struct psub *sub;          /* every word's lists; the positive words' first */
	size_t nsub, npsub;
	double site_max;           /* the best bound of the current site */
	bool group;
	size_t k;                  /* entries the page needs */
	double *heap;              /* min-heap: the k best entries' scores so far */
	size_t nheap;
	struct cand *cand;
	size_t ncand, capcand;
	struct rec *rec;
	size_t nrec, caprec;
	struct search_doc *docs;
	size_t ndocs, capdocs;
	uint32_t *groups;          /* near-duplicate groups offered to heap (open addressing) */
	size_t ngroups, capgroups;
	/* Site summaries (sum_open()): used; a site passed over is counted
	 * from the driving word's lists (whole), else by a walk; probe: a
	 * second cursor on its longest list, p->sub[bdrv]. */
	bool use_sum, sum_whole;
	struct psub *probe;
	uint32_t *urls;
	size_t capurls;
	struct first {
		uint32_t site;
		double ub;
	} *first;                  /* the sites visited first (prune_first()), by site */
	size_t nfirst;
	/* Block summaries (search_block.c): used; the driving word's list
	 * whose blocks cut a site into ranges; the current site's ranges;
	 * passed-over units counted one in `sample`, and so far. */
	bool use_blk;
	struct subval *val;        /* per list, what sum_bound() and the ranges' bounds read */
	size_t bdrv;               /* the driving word's longest list (prune_open()) */
	struct prange *rg;
	size_t nrg, caprg;
	uint32_t sample;
	uint64_t units;
	/* Documents prune_doc() was given and those that matched: while one
	 * in 8 or more does, and the generation's docinfo is larger than the
	 * caches (ahead), the walk asks the memory for the next one's docinfo
	 * and PageRank ahead (prune_prefetch_next()). */
	uint64_t nread, nmatch;
	bool ahead;
	double prox_all;           /* the proximity bound when every word has positions */
};

double prune_theta(const struct prune *p);
int prune_sub_to_site(struct psub *s, uint32_t site);
int prune_sub_has(struct psub *s, uint32_t site, uint32_t url);
void prune_sub_skips(struct prune *p, struct psub *s);
/* Ask the memory for the docinfo and PageRank of t's next document in site
 * after url, while url's are read (prune_doc()): called where p->ahead,
 * it asks while most documents match (a phrase's rarely do: the asking
 * would cost more than it saves). */
void prune_prefetch_next(const struct prune *p, const struct pterm *t, uint32_t site,
			 uint32_t url);
/* Every list of t at site to its first record at from or after, and the
 * least url_id they are at then: 1 and *url, 0 when none has one, -1. */
int prune_term_next(struct prune *p, const struct pterm *t, uint32_t site, uint32_t from,
		    uint32_t *url);
/* The driver d (pair[0]) at *url of site, moved on to the first record from
 * there that every other pair has: 1 and *url, 0 when none, -1. */
int prune_pairs_align(struct prune *p, const struct pterm *d, uint32_t site, uint32_t *url);
/* prune_term_next() of the driver d, and when pairs of common words drive
 * the first record from there that every pair has (inlined in the walks:
 * a query without pairs pays one test). */
static inline int prune_next_doc(struct prune *p, const struct pterm *d, uint32_t site,
				 uint32_t from, uint32_t *url)
{
	int rc = prune_term_next(p, d, site, from, url);

	if (rc == 1 && p->npair > 1 && d == &p->pair[0])
		rc = prune_pairs_align(p, d, site, url);
	return rc;
}
int prune_doc_has(struct prune *p, uint32_t site, uint32_t url);
int prune_walk_next(struct prune *p, uint32_t *site);
int prune_visit_site(struct prune *p, uint32_t site, size_t *seen);

int prune_doc(struct prune *p, uint32_t site, uint32_t url);

/* search_prune_sum.c */
double prune_bound_of(struct prune *p, double pr, const struct subval *v);
int prune_sum_open(struct prune *p);
int prune_sum_pass(struct prune *p, uint32_t site, size_t *seen);
int prune_rewind(struct prune *p);
int prune_first(struct prune *p, size_t *seen);


/* search_block.c */
#define PRUNE_SAMPLE_FIRST 64  /* passed-over units counted (ExactCounts no): the first 64, */
#define PRUNE_SAMPLE 16        /* then one in 16 */
#define PRUNE_SAMPLE_MORE 1024 /* up to the 1,024th, then */
#define PRUNE_SAMPLE_LATE 64   /* one in 64 */
#define PRUNE_BLK_EARLY 16     /* blocks a site needs for ranges before the page has k entries */
int prune_blk_open(struct prune *p);
void prune_blk_rewind(struct prune *p);
int prune_blk_ranges(struct prune *p, uint32_t site);
int prune_blk_expand(struct prune *p, uint32_t site, const struct prange *g, size_t *seen);
int prune_blk_pass(struct prune *p, uint32_t site, const struct prange *g, size_t n, bool listed,
		   size_t *seen);
bool prune_count_unit(struct prune *p);
void prune_count_add(struct prune *p, uint64_t docs, uint64_t hits, bool site);
void prune_count_skip(struct prune *p, uint64_t docs, bool site);

#endif
