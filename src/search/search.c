/* search.c - answering a query from one index generation (search.h): the
 * generation opened and refcounted, wildcards expanded, the query tree
 * evaluated over the postings (documents keyed site_id:url_id, the order of
 * CompactStorage), filters (site:, link:, st, ul, spaces, time limits),
 * BM25F ranking with phrase, proximity, PageRank and exact-title boosts,
 * grouping and paging, then the page filled from the database with
 * excerpt.c's snippets.  It owns no SQL (db.c) and no socket (searchd).
 * The formula: doc/SEARCH.md, "Ranking".
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "caps.h"
#include "charset.h"
#include "citations.h"
#include "conf.h"
#include "db.h"
#include "excerpt.h"
#include "log.h"
#include "query.h"
#include "ranks.h"
#include "search.h"
#include "storage.h"
#include "tokenize.h"
#include "url.h"
#include "util.h"

#define SEARCH_MAX_POSITIONS (1u << 26) /* positions one query may load (128 MiB) */
#define SEARCH_MAX_SCANNED   100000     /* dictionary words looked at per wildcard */
#define SEARCH_PR_TIEBREAK   1e-3       /* PageRank added to every score */
#define SEARCH_TITLE_UNORDERED 0.25    /* title boost when the words are not in order */
#define SEARCH_MAX_CACHED_SPANS 100000 /* highlights of one cached copy */
#define SEARCH_CACHE_SLOTS   (1u << 17) /* result-page rows kept per generation: slots, */
#define SEARCH_CACHE_ROWS    (1u << 16) /* rows (at most half the slots), */
#define SEARCH_CACHE_BYTES   (64u << 20) /* and their bytes */
#define SEARCH_PROXIMITY_MAX 16         /* positions apart that still count as near */

/* ---- the generation --------------------------------------------------------- */

struct search_index {
	int refs;                  /* __atomic */
	struct storage *st;
	struct ranks *rk;          /* NULL: no ranks file */
	struct citations *rev;     /* NULL: no citations */
	char *dir;
	uint64_t gen;
	double avg_len[STORAGE_SECTIONS];
	/* result-page rows read from the database (fill_hits) */
	pthread_mutex_t cache_mu;
	struct hit_row **cache;    /* SEARCH_CACHE_SLOTS, open addressing; NULL until used */
	size_t cache_rows, cache_bytes;
	uint64_t cache_hits, cache_misses; /* under cache_mu */
};

static void cache_clear_locked(struct search_index *ix);

static void index_close(struct search_index *ix)
{
	if (!ix)
		return;
	cache_clear_locked(ix);
	free(ix->cache);
	pthread_mutex_destroy(&ix->cache_mu);
	storage_close(ix->st);
	ranks_close(ix->rk);
	citations_close(ix->rev);
	free(ix->dir);
	free(ix);
}

int search_index_open(const struct conf *c, const char *data_dir, const char *gen_dir,
		      bool verify, struct search_index **out, struct buf *err)
{
	struct search_index *ix = xcalloc(1, sizeof(*ix));
	struct buf report = BUF_INIT(64 * 1024);
	uint64_t gen;
	int rc;

	UNUSED(c);
	*out = NULL;
	pthread_mutex_init(&ix->cache_mu, NULL);
	if (gen_dir) {
		ix->dir = xstrdup(gen_dir);
	} else {
		rc = storage_current(data_dir, &gen, err);
		if (rc < 0)
			goto fail;
		if (rc == 0) {
			if (err)
				buf_printf(err, "%s has no index yet (run mpseek-index)", data_dir);
			goto fail;
		}
		ix->dir = storage_gen_path(data_dir, gen);
	}
	if (verify) {
		rc = storage_check(ix->dir, &report);
		if (rc) {
			if (err)
				buf_printf(err, "%s: %s: %.300s", ix->dir,
					   rc > 0 ? "the index is damaged" : "cannot check the index",
					   buf_str(&report));
			goto fail;
		}
	}
	if (storage_open_dir(ix->dir, &ix->st, err))
		goto fail;
	if (ranks_open(ix->dir, &ix->rk, err) < 0)
		goto fail;
	if (citations_open(ix->dir, CITATIONS_REVERSE, &ix->rev, err) < 0)
		goto fail;
	ix->gen = storage_generation(ix->st);
	for (int s = 0; s < STORAGE_SECTIONS; s++)
		ix->avg_len[s] = storage_avg_len(ix->st, s);
	ix->refs = 1;
	buf_free(&report);
	*out = ix;
	return 0;
fail:
	buf_free(&report);
	index_close(ix);
	return -1;
}

void search_index_ref(struct search_index *ix)
{
	__atomic_add_fetch(&ix->refs, 1, __ATOMIC_RELAXED);
}

void search_index_unref(struct search_index *ix)
{
	if (ix && __atomic_sub_fetch(&ix->refs, 1, __ATOMIC_ACQ_REL) == 0)
		index_close(ix);
}

uint64_t search_index_generation(const struct search_index *ix)
{
	return ix->gen;
}

const char *search_index_dir(const struct search_index *ix)
{
	return ix->dir;
}

void search_index_cache_stats(struct search_index *ix, uint64_t *hits, uint64_t *misses,
			      uint64_t *rows)
{
	pthread_mutex_lock(&ix->cache_mu);
	*hits = ix->cache_hits;
	*misses = ix->cache_misses;
	*rows = ix->cache_rows;
	pthread_mutex_unlock(&ix->cache_mu);
}

/* ---- the pure parts ---------------------------------------------------------- */

void search_rank_params(const struct conf *c, struct search_rank_params *p)
{
	static const double w[4] = { 1, 2, 3, 5 };

	for (int s = 0; s < 4; s++)
		p->w[s] = c ? c->section_weight[s] : w[s];
	p->k1 = c ? c->bm25_k1 : 1.2;
	p->b = c ? c->bm25_b : 0.75;
	p->phrase = c ? c->phrase_boost : 1.0;
	p->proximity = c ? c->proximity_boost : 2.0;
	p->pagerank = c ? c->pagerank_weight : 0.5;
	p->title_match = c ? c->title_match_boost : 1000;
}

double search_idf(uint64_t n_docs, uint64_t df)
{
	double n = (double)n_docs, d = (double)df;

	if (d > n)
		n = d;
	return log(1.0 + (n - d + 0.5) / (d + 0.5));
}

static double section_norm(const struct search_rank_params *p, int s, const uint16_t len[4],
			   const double avg[4])
{
	double rel = avg[s] > 0 ? (double)len[s] / avg[s] : 1.0;
	return 1.0 - p->b + p->b * rel;
}

/* Saturation: idf * t * (k1 + 1) / (k1 + t). */
static double saturate(const struct search_rank_params *p, double idf, double t)
{
	return t > 0 ? idf * t * (p->k1 + 1) / (p->k1 + t) : 0;
}

/* w_s / norm_s of one document, the factor of tf_s in tf~. */
static void section_factors(const struct search_rank_params *p, const uint16_t len[4],
			    const double avg_len[4], double wn[4])
{
	for (int s = 0; s < 4; s++)
		wn[s] = p->w[s] / section_norm(p, s, len, avg_len);
}

static double bm25f_wn(const struct search_rank_params *p, double idf, const uint32_t tf[4],
		       const double wn[4])
{
	double t = tf[0] * wn[0] + tf[1] * wn[1] + tf[2] * wn[2] + tf[3] * wn[3];
	return saturate(p, idf, t);
}

double search_bm25f(const struct search_rank_params *p, double idf, const uint32_t tf[4],
		    const uint16_t len[4], const double avg_len[4])
{
	double wn[4];

	section_factors(p, len, avg_len, wn);
	return bm25f_wn(p, idf, tf, wn);
}

static bool has_pos(const uint16_t *v, uint32_t n, uint16_t x)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo] == x;
}

uint32_t search_phrase_count(const uint16_t *const *pos, const uint32_t *n, const uint32_t *offs,
			     size_t k, uint32_t per_section[4])
{
	uint32_t total = 0;

	if (per_section)
		memset(per_section, 0, 4 * sizeof(uint32_t));
	if (k == 0)
		return 0;
	for (uint32_t j = 0; j < n[0]; j++) {
		unsigned sec = tok_pos_section(pos[0][j]), at = tok_pos_position(pos[0][j]);
		size_t i;

		/* A saturated position (the end of a long section) is not a place. */
		if (at >= MAX_POSITION && k > 1)
			continue;
		for (i = 1; i < k; i++) {
			unsigned want = at + offs[i] - offs[0];

			if (want > MAX_POSITION ||
			    !has_pos(pos[i], n[i], (uint16_t)((sec << TOK_POSITION_BITS) | want)))
				break;
		}
		if (i == k) {
			total++;
			if (per_section)
				per_section[sec]++;
		}
	}
	return total;
}

bool search_title_chain(const uint64_t *masks, size_t k, unsigned max_gap)
{
	uint64_t reach;

	if (k == 0)
		return false;
	if (max_gap < 1)
		max_gap = 1;
	if (max_gap > 63)
		max_gap = 63;
	reach = masks[0];
	for (size_t i = 1; i < k && reach; i++) {
		uint64_t next = 0;

		for (unsigned g = 1; g <= max_gap; g++)
			next |= reach << g;
		reach = next & masks[i];
	}
	return reach != 0;
}

uint32_t search_min_distance(const uint16_t *a, uint32_t na, const uint16_t *b, uint32_t nb)
{
	uint32_t best = UINT32_MAX, i = 0, j = 0;

	while (i < na && j < nb) {
		uint16_t x = a[i], y = b[j];

		if (tok_pos_section(x) == tok_pos_section(y)) {
			uint32_t d = x > y ? (uint32_t)(x - y) : (uint32_t)(y - x);
			if (d < best)
				best = d;
		}
		if (x < y)
			i++;
		else
			j++;
	}
	return best;
}

/* <0 when a ranks before b. */
static int doc_cmp(const struct search_doc *a, const struct search_doc *b, int sort)
{
	if (sort == PROTO_SORT_DATE && a->last_modified != b->last_modified)
		return a->last_modified > b->last_modified ? -1 : 1;
	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	if (a->url_id != b->url_id)
		return a->url_id < b->url_id ? -1 : 1;
	return a->site_id < b->site_id ? -1 : a->site_id > b->site_id;
}

struct entry {
	uint32_t best, second;     /* second: UINT32_MAX = none */
	uint32_t count;
};

struct heap {
	struct entry *v;
	size_t n, cap;
	const struct search_doc *docs;
	int sort;
};

/* The heap keeps the top entries with the one ranked last at the root. */
static bool later(const struct heap *h, const struct entry *a, const struct entry *b)
{
	return doc_cmp(&h->docs[a->best], &h->docs[b->best], h->sort) > 0;
}

static void sift_down(struct heap *h, size_t i, size_t n)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct entry t;

		if (l < n && later(h, &h->v[l], &h->v[m]))
			m = l;
		if (r < n && later(h, &h->v[r], &h->v[m]))
			m = r;
		if (m == i)
			return;
		t = h->v[i];
		h->v[i] = h->v[m];
		h->v[m] = t;
		i = m;
	}
}

static void sift_up(struct heap *h, size_t i)
{
	while (i > 0) {
		size_t p = (i - 1) / 2;
		struct entry t;

		if (!later(h, &h->v[i], &h->v[p]))
			return;
		t = h->v[i];
		h->v[i] = h->v[p];
		h->v[p] = t;
		i = p;
	}
}

static void heap_offer(struct heap *h, const struct entry *e)
{
	if (h->cap == 0)
		return;
	if (h->n < h->cap) {
		h->v[h->n] = *e;
		sift_up(h, h->n++);
	} else if (later(h, &h->v[0], e)) {
		h->v[0] = *e;
		sift_down(h, 0, h->n);
	}
}

size_t search_select(const struct search_doc *docs, size_t n, bool group, int sort,
		     uint32_t page, uint32_t page_size, struct search_pick *out, uint64_t *total,
		     uint32_t *sites)
{
	struct heap h = { .docs = docs, .sort = sort };
	uint64_t want = (uint64_t)(page + 1) * page_size;
	size_t n_out = 0, i = 0, first;
	uint64_t entries = 0;
	uint32_t n_sites = 0;

	*total = 0;
	*sites = 0;
	if (page_size == 0)
		return 0;
	h.cap = want < n ? (size_t)want : n;
	h.v = xmalloc((h.cap ? h.cap : 1) * sizeof(*h.v));
	while (i < n) {
		size_t j = i;
		struct entry e;

		while (j < n && docs[j].site_id == docs[i].site_id)
			j++;
		n_sites++;
		if (group) {
			e.best = (uint32_t)i;
			e.second = UINT32_MAX;
			e.count = (uint32_t)(j - i);
			for (size_t k = i + 1; k < j; k++) {
				if (doc_cmp(&docs[k], &docs[e.best], sort) < 0) {
					e.second = e.best;
					e.best = (uint32_t)k;
				} else if (e.second == UINT32_MAX ||
					   doc_cmp(&docs[k], &docs[e.second], sort) < 0) {
					e.second = (uint32_t)k;
				}
			}
			heap_offer(&h, &e);
			entries++;
		} else {
			for (size_t k = i; k < j; k++) {
				e.best = (uint32_t)k;
				e.second = UINT32_MAX;
				e.count = (uint32_t)(j - i);
				heap_offer(&h, &e);
				entries++;
			}
		}
		i = j;
	}
	/* Heap sort: the root (ranked last) goes to the end. */
	for (size_t k = h.n; k > 1; k--) {
		struct entry t = h.v[0];
		h.v[0] = h.v[k - 1];
		h.v[k - 1] = t;
		sift_down(&h, 0, k - 1);
	}
	first = (size_t)page * page_size;
	for (size_t k = first; k < h.n; k++) {
		out[n_out].doc = h.v[k].best;
		out[n_out].second = 0;
		out[n_out].site_hits = h.v[k].count;
		n_out++;
		if (h.v[k].second != UINT32_MAX) {
			out[n_out].doc = h.v[k].second;
			out[n_out].second = 1;
			out[n_out].site_hits = h.v[k].count;
			n_out++;
		}
	}
	free(h.v);
	*total = entries;
	*sites = n_sites;
	return n_out;
}

/* ---- postings in memory --------------------------------------------------------- */

/* The postings of one leaf: documents by key (site_id << 32 | url_id), the
 * positions of document i at pos[end[i-1] .. end[i]). */
struct plist {
	uint64_t *key;
	uint32_t *end;
	uint16_t *pos;
	size_t n, cap, npos, poscap;
};

static void plist_free(struct plist *p)
{
	free(p->key);
	free(p->end);
	free(p->pos);
	memset(p, 0, sizeof(*p));
}

static const uint16_t *plist_pos(const struct plist *p, size_t i, uint32_t *n)
{
	uint32_t start = i ? p->end[i - 1] : 0;
	*n = p->end[i] - start;
	return p->pos + start;
}

/* Index of key in p at or after *cursor (keys ascending), or SIZE_MAX.
 * Galloping: the documents are visited in key order, so the key is
 * usually at or just after the cursor. */
static size_t plist_find(const struct plist *p, uint64_t key, size_t *cursor)
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

struct kset {
	uint64_t *k;
	size_t n;
};

static void kset_free(struct kset *s)
{
	free(s->k);
	s->k = NULL;
	s->n = 0;
}

enum { OP_AND, OP_OR, OP_SUB };

static struct kset kset_op(const struct kset *a, const struct kset *b, int op)
{
	struct kset r;
	size_t i = 0, j = 0, n = 0;
	size_t cap = op == OP_OR ? a->n + b->n : a->n;

	r.k = xmalloc((cap ? cap : 1) * sizeof(uint64_t));
	while (i < a->n && j < b->n) {
		if (a->k[i] < b->k[j]) {
			if (op != OP_AND)
				r.k[n++] = a->k[i];
			i++;
		} else if (a->k[i] > b->k[j]) {
			if (op == OP_OR)
				r.k[n++] = b->k[j];
			j++;
		} else {
			if (op != OP_SUB)
				r.k[n++] = a->k[i];
			i++;
			j++;
		}
	}
	if (op != OP_AND)
		while (i < a->n)
			r.k[n++] = a->k[i++];
	if (op == OP_OR)
		while (j < b->n)
			r.k[n++] = b->k[j++];
	r.n = n;
	return r;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static bool u32_in(const uint32_t *v, size_t n, uint32_t x)
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
	bool loaded;               /* by load_and_driven() */
	uint64_t df;               /* documents of the word (load_and_driven) */
	char **words;              /* the words it stands for (a wildcard: its expansion) */
	size_t n_words;
};

struct phrase {
	const struct qnode *node;
	bool positive;
	uint64_t *key;             /* matching documents */
	uint32_t (*count)[4];      /* occurrences per section */
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

struct run {
	struct search_index *ix;
	const struct search_env *env;
	const struct proto_search *req;
	struct proto_results *res;
	struct query q;
	struct search_rank_params rp;
	struct storage_cursor *cur;
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
};

static void fail(struct run *r, const char *token, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void fail(struct run *r, const char *token, const char *fmt, ...)
{
	va_list ap;

	if (r->err_token)
		return;
	r->err_token = token;
	va_start(ap, fmt);
	vsnprintf(r->err_msg, sizeof(r->err_msg), fmt, ap);
	va_end(ap);
}

static bool past_deadline(struct run *r)
{
	if (r->err_token)
		return true;
	if (r->env->deadline > 0 && now_monotonic() > r->env->deadline) {
		fail(r, "ER_TIMEOUT", "The search took longer than its time limit.");
		return true;
	}
	return false;
}

static void plist_push_doc(struct run *r, struct plist *p, uint64_t key)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 64;
		p->key = xrealloc(p->key, p->cap * sizeof(*p->key));
		p->end = xrealloc(p->end, p->cap * sizeof(*p->end));
	}
	p->key[p->n] = key;
	p->end[p->n] = (uint32_t)p->npos;
	p->n++;
	UNUSED(r);
}

static int plist_push_pos(struct run *r, struct plist *p, uint16_t v)
{
	if (p->npos == p->poscap) {
		if (r->positions + p->poscap >= SEARCH_MAX_POSITIONS) {
			fail(r, "ER_TOOCOMPLEX",
			     "The query's words occur too often to search them all at once.");
			return -1;
		}
		r->positions += p->poscap ? p->poscap : 256;
		p->poscap = p->poscap ? 2 * p->poscap : 256;
		p->pos = xrealloc(p->pos, p->poscap * sizeof(*p->pos));
	}
	p->pos[p->npos++] = v;
	return 0;
}

/* One document's positions pos[0..np) that are in a section of mask, and
 * the document itself when any is: 0, or -2 past the position cap. */
static int push_doc(struct run *r, struct plist *p, const uint16_t *pos, uint32_t np,
		    uint8_t mask, uint32_t site, uint32_t url)
{
	size_t start = p->npos;

	for (uint32_t i = 0; i < np; i++)
		if ((mask >> tok_pos_section(pos[i])) & 1)
			if (plist_push_pos(r, p, pos[i]))
				return -2;
	if (p->npos > start) {
		plist_push_doc(r, p, (uint64_t)site << 32 | url);
		p->end[p->n - 1] = (uint32_t)p->npos;
	}
	return 0;
}

/* Load the postings of word_id into p, keeping positions in mask. */
static int load_word(struct run *r, uint32_t word_id, uint8_t mask, struct plist *p)
{
	struct storage_cursor *c = r->cur;
	uint32_t site, url, np;
	size_t seen = 0;
	int rc = storage_postings(r->ix->st, word_id, c);

	if (rc <= 0)
		return rc;
	while ((rc = storage_next_site(c, &site)) == 1) {
		while ((rc = storage_next_url(c, &url, &np)) == 1) {
			if (push_doc(r, p, c->pos, np, mask, site, url))
				return -2;
			if (++seen % 4096 == 0 && past_deadline(r))
				return -2;
		}
		if (rc < 0)
			break;
	}
	return rc < 0 ? -1 : 0;
}

/* Load the postings of word_id into p only for the documents of keys[0..nk)
 * (ascending): the other words of an AND are read by seeking, without
 * decoding the positions of documents the rarest word does not have. */
static int load_word_in(struct run *r, uint32_t word_id, uint8_t mask, const uint64_t *keys,
			size_t nk, struct plist *p)
{
	struct storage_cursor *c = r->cur;
	uint32_t site, url, np;
	size_t k = 0;
	int rc = storage_postings(r->ix->st, word_id, c);

	if (rc <= 0)
		return rc;
	while (k < nk && (rc = storage_next_site(c, &site)) == 1) {
		while (k < nk && (keys[k] >> 32) < site)
			k++;
		while (k < nk && (keys[k] >> 32) == site) {
			rc = storage_seek_url(c, (uint32_t)keys[k], &url, &np);
			if (rc < 0)
				return -1;
			if (rc == 0)
				break;
			/* The seek may land past the target, on a later key. */
			while (k < nk && (keys[k] >> 32) == site && (uint32_t)keys[k] < url)
				k++;
			if (k < nk && (keys[k] >> 32) == site && (uint32_t)keys[k] == url) {
				if (push_doc(r, p, c->pos, np, mask, site, url))
					return -2;
				k++;
			}
		}
		if (past_deadline(r))
			return -2;
	}
	return rc < 0 ? -1 : 0;
}

struct driven {
	struct leaf *l;
	uint32_t word_id;
	uint64_t df;
};

static int cmp_driven(const void *a, const void *b)
{
	const struct driven *x = a, *y = b;
	return x->df < y->df ? -1 : x->df > y->df;
}

/* Words that must all be in every answer (the plain words of a root AND,
 * the words of a phrase that is the root or one of its ANDed parts), over
 * all sections: load the rarest whole, then each other only for the
 * documents all the rarer ones have.  Marks the leaves loaded; the rest are
 * loaded by load_leaf().  Returns 0 or -1 (damage). */
static int drive_group(struct run *r, struct qnode *const *kids, size_t nk)
{
	struct driven d[QUERY_MAX_NODES];
	size_t n = 0;
	const struct plist *prev = NULL;
	bool none = false;

	for (size_t i = 0; i < nk && n < QUERY_MAX_NODES; i++) {
		const struct qnode *k = kids[i];
		struct storage_word w;
		struct leaf *l;
		int rc;

		if (k->type != Q_TERM)
			continue;
		l = &r->leaves[k->id];
		if (l->mask != 0xf || l->loaded)
			continue;
		rc = storage_word(r->ix->st, k->word, strlen(k->word), &w);
		if (rc < 0)
			return -1;
		d[n].l = l;
		d[n].word_id = rc ? w.word_id : 0;
		d[n].df = rc ? w.n_urls : 0;
		if (d[n].df == 0)
			none = true;
		n++;
	}
	if (n < 2)
		return 0;
	qsort(d, n, sizeof(d[0]), cmp_driven);
	for (size_t i = 0; i < n && !past_deadline(r); i++) {
		struct leaf *l = d[i].l;
		int rc = 0;

		l->words = xmalloc(sizeof(char *));
		l->words[0] = xstrdup(l->node->word);
		l->n_words = 1;
		l->loaded = true;
		l->df = d[i].df;
		/* A word no document has: nothing to read for the others. */
		if (none || (prev && prev->n == 0))
			continue;
		if (!prev)
			rc = load_word(r, d[i].word_id, l->mask, &l->pl);
		else
			rc = load_word_in(r, d[i].word_id, l->mask, prev->key, prev->n, &l->pl);
		if (rc == -1)
			return -1;
		prev = &l->pl;
	}
	return 0;
}

static int load_and_driven(struct run *r)
{
	struct qnode *root = r->q.root;

	if (root->type == Q_PHRASE)
		return drive_group(r, root->kids, root->n_kids);
	if (root->type != Q_AND)
		return 0;
	if (drive_group(r, root->kids, root->n_kids))
		return -1;
	for (size_t i = 0; i < root->n_kids; i++)
		if (root->kids[i]->type == Q_PHRASE &&
		    drive_group(r, root->kids[i]->kids, root->kids[i]->n_kids))
			return -1;
	return 0;
}

/* a = a OR b, positions merged. */
static int plist_union(struct run *r, struct plist *a, struct plist *b)
{
	struct plist m = { 0 };
	size_t i = 0, j = 0;

	while (i < a->n || j < b->n) {
		uint64_t k;
		const uint16_t *pa = NULL, *pb = NULL;
		uint32_t na = 0, nb = 0, x = 0, y = 0;

		if (j >= b->n || (i < a->n && a->key[i] < b->key[j])) {
			k = a->key[i];
			pa = plist_pos(a, i++, &na);
		} else if (i >= a->n || b->key[j] < a->key[i]) {
			k = b->key[j];
			pb = plist_pos(b, j++, &nb);
		} else {
			k = a->key[i];
			pa = plist_pos(a, i++, &na);
			pb = plist_pos(b, j++, &nb);
		}
		plist_push_doc(r, &m, k);
		while (x < na || y < nb) {
			uint16_t v;

			if (y >= nb || (x < na && pa[x] < pb[y]))
				v = pa[x++];
			else if (x >= na || pb[y] < pa[x])
				v = pb[y++];
			else {
				v = pa[x++];
				y++;
			}
			if (plist_push_pos(r, &m, v)) {
				plist_free(&m);
				return -1;
			}
		}
		m.end[m.n - 1] = (uint32_t)m.npos;
	}
	plist_free(a);
	*a = m;
	return 0;
}

struct wild_ctx {
	struct run *r;
	struct leaf *l;
	uint32_t *ids;
	size_t n, scanned;
	bool capped;
};

static int wild_word(void *arg, const char *word, size_t len, const struct storage_word *w)
{
	struct wild_ctx *x = arg;
	const char *pat = x->l->node->word;

	if (++x->scanned > SEARCH_MAX_SCANNED) {
		x->capped = true;
		return 1;
	}
	if (!w->n_urls || !query_wild_match(pat, word, len))
		return 0;
	if (x->n >= (size_t)x->r->env->c->max_wildcard_words) {
		x->capped = true;
		return 1;
	}
	x->ids[x->n++] = w->word_id;
	x->l->words = xrealloc(x->l->words, (x->l->n_words + 1) * sizeof(char *));
	x->l->words[x->l->n_words++] = xstrndup(word, len);
	return 0;
}

static int load_leaf(struct run *r, struct leaf *l)
{
	const struct qnode *n = l->node;
	struct storage_word w;
	int rc;

	if (n->type == Q_TERM) {
		l->words = xmalloc(sizeof(char *));
		l->words[0] = xstrdup(n->word);
		l->n_words = 1;
		rc = storage_word(r->ix->st, n->word, strlen(n->word), &w);
		if (rc < 0)
			return -1;
		if (rc == 0)
			return 0;
		return load_word(r, w.word_id, l->mask, &l->pl) == -1 ? -1 : 0;
	}
	/* Q_WILD */
	{
		struct wild_ctx x = { r, l, NULL, 0, 0, false };
		size_t plen = query_wild_prefix(n->word);

		x.ids = xmalloc((size_t)r->env->c->max_wildcard_words * sizeof(uint32_t));
		if (storage_words_prefix(r->ix->st, n->word, plen, SIZE_MAX, wild_word, &x) < 0) {
			free(x.ids);
			return -1;
		}
		if (x.capped)
			buf_printf(&r->notes, "%s%s matches more than %ld words: the first %zu are searched.",
				   r->notes.len ? " " : "", n->word, r->env->c->max_wildcard_words, x.n);
		for (size_t i = 0; i < x.n && !r->err_token; i++) {
			struct plist one = { 0 };

			rc = load_word(r, x.ids[i], l->mask, &one);
			if (rc == -1) {
				plist_free(&one);
				free(x.ids);
				return -1;
			}
			if (rc == 0) {
				if (l->pl.n == 0) {
					plist_free(&l->pl);
					l->pl = one;
					continue;
				}
				plist_union(r, &l->pl, &one);
			}
			plist_free(&one);
		}
		free(x.ids);
	}
	return 0;
}

/* Number the leaves and phrases of the tree, note site: and link: nodes. */
static void collect(struct run *r, struct qnode *n, bool positive, bool in_phrase)
{
	switch (n->type) {
	case Q_TERM:
	case Q_WILD: {
		struct leaf *l;

		r->leaves = xrealloc(r->leaves, (r->n_leaves + 1) * sizeof(*r->leaves));
		l = &r->leaves[r->n_leaves];
		memset(l, 0, sizeof(*l));
		l->node = n;
		l->positive = positive;
		l->in_phrase = in_phrase;
		l->mask = n->sections ? n->sections : r->req->sections ? r->req->sections : 0xf;
		n->id = (int)r->n_leaves++;
		return;
	}
	case Q_PHRASE: {
		struct phrase *p;

		r->phrases = xrealloc(r->phrases, (r->n_phrases + 1) * sizeof(*r->phrases));
		p = &r->phrases[r->n_phrases];
		memset(p, 0, sizeof(*p));
		p->node = n;
		p->positive = positive;
		n->id = (int)r->n_phrases++;
		for (size_t k = 0; k < n->n_kids; k++) {
			if (!n->kids[k]->sections)
				n->kids[k]->sections = n->sections;
			collect(r, n->kids[k], positive, true);
		}
		return;
	}
	case Q_SITE:
	case Q_LINK:
		r->filters = xrealloc(r->filters, (r->n_filters + 1) * sizeof(*r->filters));
		memset(&r->filters[r->n_filters], 0, sizeof(*r->filters));
		r->filters[r->n_filters].node = n;
		n->id = (int)r->n_filters++;
		return;
	case Q_NOT:
		positive = false;
		break;
	default:
		break;
	}
	for (size_t k = 0; k < n->n_kids; k++)
		collect(r, n->kids[k], positive, in_phrase);
}

/* ---- site:, link:, ul, spaces -------------------------------------------------- */

/* Does site key "scheme://host[:port]/" match the site: pattern?  The
 * pattern's host labels must end the site's host ("example.org" matches
 * "www.example.org", not "badexample.org"); a pattern with a port compares
 * host:port, one with a scheme the whole key. */
bool search_site_match(const char *site, const char *pat)
{
	const char *hp = strstr(site, "://"), *end;
	size_t plen = strlen(pat), hlen;
	char host[MAX_SITE_LEN + 1];
	bool with_port;

	if (!hp)
		return false;
	if (strstr(pat, "://")) {
		size_t sl = strlen(site);
		/* The key without its trailing '/' or with it. */
		return (plen == sl && !memcmp(site, pat, plen)) ||
		       (plen + 1 == sl && !memcmp(site, pat, plen) && site[plen] == '/');
	}
	while (plen && pat[plen - 1] == '/')
		plen--;
	hp += 3;
	end = strchr(hp, '/');
	hlen = end ? (size_t)(end - hp) : strlen(hp);
	with_port = memchr(pat, ':', plen) != NULL;
	if (!with_port || (pat[0] == '[' && pat[plen - 1] == ']')) {
		/* The host without its port ("[v6]" keeps its brackets). */
		const char *colon = hp[0] == '[' ? memchr(hp, ']', hlen) : memchr(hp, ':', hlen);

		if (colon && hp[0] == '[')
			colon++;
		if (colon && colon < hp + hlen && *colon == ':')
			hlen = (size_t)(colon - hp);
	}
	if (hlen > MAX_SITE_LEN || plen == 0)
		return false;
	for (size_t i = 0; i < hlen; i++)
		host[i] = (hp[i] >= 'A' && hp[i] <= 'Z') ? (char)(hp[i] + 32) : hp[i];
	if (hlen == plen)
		return !memcmp(host, pat, plen);
	return hlen > plen && host[hlen - plen - 1] == '.' && !memcmp(host + hlen - plen, pat, plen);
}

struct sites_ctx {
	const char *pat;
	uint32_t *v;
	size_t n, cap;
};

static void u32_push(uint32_t **v, size_t *n, size_t *cap, uint32_t x)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*v = xrealloc(*v, *cap * sizeof(**v));
	}
	(*v)[(*n)++] = x;
}

static int site_row(void *arg, uint32_t site_id, const char *site)
{
	struct sites_ctx *s = arg;

	if (search_site_match(site, s->pat))
		u32_push(&s->v, &s->n, &s->cap, site_id);
	return 0;
}

static int sites_matching(struct run *r, const char *pat, uint32_t **out, size_t *n)
{
	struct sites_ctx s = { pat, NULL, 0, 0 };

	if (db_sites_each(r->env->db, site_row, &s)) {
		free(s.v);
		return -1;
	}
	if (s.n)
		qsort(s.v, s.n, sizeof(*s.v), cmp_u32);
	*out = s.v;
	*n = s.n;
	return 0;
}

static int resolve_link(struct run *r, struct filter *f)
{
	struct buf norm = BUF_INIT(MAX_URL_LEN + 1);
	const unsigned char *list;
	uint32_t id;
	size_t n;
	int rc;

	if (url_normalize(f->node->word, &norm, NULL)) {
		buf_free(&norm);
		return 0; /* not a URL: no page links to it */
	}
	rc = db_url_id(r->env->db, buf_str(&norm), &id);
	buf_free(&norm);
	if (rc <= 0 || !r->ix->rev)
		return rc;
	if (citations_list(r->ix->rev, id, &list, &n) != 1)
		return 0;
	f->docs.k = xmalloc((n ? n : 1) * sizeof(uint64_t));
	for (size_t i = 0; i < n; i++) {
		struct storage_doc d;
		uint32_t src = citations_at(list, i);

		rc = storage_doc(r->ix->st, src, &d);
		if (rc < 0)
			return -1;
		if (rc == 1 && d.site_id)
			f->docs.k[f->docs.n++] = (uint64_t)d.site_id << 32 | src;
	}
	qsort(f->docs.k, f->docs.n, sizeof(uint64_t), cmp_u64);
	return 0;
}

static int url_row(void *arg, uint32_t url_id)
{
	struct run *r = arg;
	size_t cap = r->n_ul_urls;

	/* grow by doubling: cap is tracked as the next power of two */
	if ((r->n_ul_urls & (r->n_ul_urls - 1)) == 0)
		r->ul_urls = xrealloc(r->ul_urls, (cap ? 2 * cap : 1) * sizeof(uint32_t));
	r->ul_urls[r->n_ul_urls++] = url_id;
	return 0;
}

static int space_row(void *arg, uint32_t site_id)
{
	struct run *r = arg;

	if ((r->n_space_sites & (r->n_space_sites - 1)) == 0)
		r->space_sites = xrealloc(r->space_sites,
					  (r->n_space_sites ? 2 * r->n_space_sites : 1) *
					  sizeof(uint32_t));
	r->space_sites[r->n_space_sites++] = site_id;
	return 0;
}

/* site:, link:, ul and spaces need the database. */
static int resolve_filters(struct run *r)
{
	const char *ul = r->req->ul ? r->req->ul : "";

	if (!r->env->db && (r->n_filters || *ul || r->req->n_spaces)) {
		fail(r, "ER_NOSEARCHD", "site:, link:, ul and web spaces need the database.");
		return 0;
	}
	for (size_t i = 0; i < r->n_filters; i++) {
		struct filter *f = &r->filters[i];

		if (f->node->type == Q_SITE) {
			if (sites_matching(r, f->node->word, &f->sites, &f->n_sites))
				return -1;
		} else if (resolve_link(r, f)) {
			return -1;
		}
	}
	while (*ul) {
		size_t n;
		char tok[MAX_URL_LEN + 1];

		while (*ul == ' ')
			ul++;
		n = strcspn(ul, " ");
		if (!n)
			break;
		r->ul_set = true;
		if (n <= MAX_URL_LEN) {
			memcpy(tok, ul, n);
			tok[n] = '\0';
			if (strstr(tok, "://")) {
				/* Only the URLs of the prefix's site are read. */
				struct buf site = BUF_INIT(MAX_URL_LEN + 1);
				uint32_t sid = 0;
				int found = 0;

				if (url_site(tok, &site, NULL) == 0) {
					found = db_site_lookup(r->env->db, buf_str(&site), &sid);
					if (found < 0) {
						buf_free(&site);
						return -1;
					}
				}
				buf_free(&site);
				/* A site nobody crawled has no URLs; a prefix that is no
				 * URL is looked for everywhere. */
				if (found || url_site(tok, &site, NULL) != 0) {
					if (db_url_ids_prefix(r->env->db, found ? sid : 0, tok, url_row, r))
						return -1;
				}
				buf_free(&site);
			} else {
				uint32_t *v;
				size_t nv;

				for (char *c = tok; *c; c++)
					if (*c >= 'A' && *c <= 'Z')
						*c = (char)(*c + 32);
				if (sites_matching(r, tok, &v, &nv))
					return -1;
				for (size_t k = 0; k < nv; k++) {
					if ((r->n_ul_sites & (r->n_ul_sites - 1)) == 0)
						r->ul_sites = xrealloc(r->ul_sites,
							(r->n_ul_sites ? 2 * r->n_ul_sites : 1) *
							sizeof(uint32_t));
					r->ul_sites[r->n_ul_sites++] = v[k];
				}
				free(v);
			}
		}
		ul += n;
	}
	if (r->n_ul_urls)
		qsort(r->ul_urls, r->n_ul_urls, sizeof(uint32_t), cmp_u32);
	if (r->n_ul_sites)
		qsort(r->ul_sites, r->n_ul_sites, sizeof(uint32_t), cmp_u32);
	if (r->req->n_spaces) {
		if (db_space_sites(r->env->db, r->req->spaces, r->req->n_spaces, space_row, r))
			return -1;
		if (r->n_space_sites)
			qsort(r->space_sites, r->n_space_sites, sizeof(uint32_t), cmp_u32);
	}
	return 0;
}

/* ---- evaluation ---------------------------------------------------------------- */

static struct kset keys_of(const struct plist *p)
{
	struct kset s;

	s.n = p->n;
	s.k = xmalloc((p->n ? p->n : 1) * sizeof(uint64_t));
	if (p->n)
		memcpy(s.k, p->key, p->n * sizeof(uint64_t));
	return s;
}

static struct kset eval(struct run *r, const struct qnode *n);

static struct kset eval_phrase(struct run *r, const struct qnode *n)
{
	struct phrase *ph = &r->phrases[n->id];
	const uint16_t *pos[QUERY_MAX_PHRASE];
	uint32_t np[QUERY_MAX_PHRASE], offs[QUERY_MAX_PHRASE];
	struct kset s = { NULL, 0 };
	size_t k = n->n_kids < QUERY_MAX_PHRASE ? n->n_kids : QUERY_MAX_PHRASE;
	struct leaf *l[QUERY_MAX_PHRASE];
	size_t cursor[QUERY_MAX_PHRASE] = { 0 };

	if (k == 0)
		return (struct kset){ xmalloc(sizeof(uint64_t)), 0 };
	for (size_t i = 0; i < k; i++) {
		l[i] = &r->leaves[n->kids[i]->id];
		offs[i] = n->offs ? n->offs[i] : (uint32_t)i;
	}
	s = keys_of(&l[0]->pl);
	for (size_t i = 1; i < k; i++) {
		struct kset o = keys_of(&l[i]->pl), t = kset_op(&s, &o, OP_AND);

		kset_free(&s);
		kset_free(&o);
		s = t;
	}
	ph->key = xmalloc((s.n ? s.n : 1) * sizeof(uint64_t));
	ph->count = xmalloc((s.n ? s.n : 1) * sizeof(*ph->count));
	for (size_t j = 0; j < s.n; j++) {
		for (size_t i = 0; i < k; i++) {
			size_t at = plist_find(&l[i]->pl, s.k[j], &cursor[i]);
			pos[i] = plist_pos(&l[i]->pl, at, &np[i]);
		}
		if (search_phrase_count(pos, np, offs, k, ph->count[ph->n]))
			ph->key[ph->n++] = s.k[j];
	}
	for (size_t i = 0; i < k; i++)
		ph->idf += l[i]->idf;
	kset_free(&s);
	s.n = ph->n;
	s.k = xmalloc((ph->n ? ph->n : 1) * sizeof(uint64_t));
	if (ph->n)
		memcpy(s.k, ph->key, ph->n * sizeof(uint64_t));
	return s;
}

static void filter_sites(struct kset *s, const uint32_t *sites, size_t n, bool keep)
{
	size_t w = 0;

	for (size_t i = 0; i < s->n; i++)
		if (u32_in(sites, n, (uint32_t)(s->k[i] >> 32)) == keep)
			s->k[w++] = s->k[i];
	s->n = w;
}

static struct kset eval_and(struct run *r, const struct qnode *n)
{
	struct kset s = { NULL, 0 };
	bool have = false;

	for (size_t i = 0; i < n->n_kids; i++) {
		const struct qnode *k = n->kids[i];
		struct kset o, t;

		if (k->type == Q_NOT || k->type == Q_SITE)
			continue;
		o = eval(r, k);
		if (!have) {
			s = o;
			have = true;
			continue;
		}
		t = kset_op(&s, &o, OP_AND);
		kset_free(&s);
		kset_free(&o);
		s = t;
	}
	if (!have)
		return (struct kset){ xmalloc(sizeof(uint64_t)), 0 };
	for (size_t i = 0; i < n->n_kids; i++) {
		const struct qnode *k = n->kids[i];

		if (k->type == Q_SITE) {
			filter_sites(&s, r->filters[k->id].sites, r->filters[k->id].n_sites, true);
		} else if (k->type == Q_NOT && k->n_kids == 1) {
			const struct qnode *x = k->kids[0];

			if (x->type == Q_SITE) {
				filter_sites(&s, r->filters[x->id].sites, r->filters[x->id].n_sites,
					     false);
			} else {
				struct kset o = eval(r, x), t = kset_op(&s, &o, OP_SUB);

				kset_free(&s);
				kset_free(&o);
				s = t;
			}
		}
	}
	return s;
}

static struct kset eval(struct run *r, const struct qnode *n)
{
	switch (n->type) {
	case Q_TERM:
	case Q_WILD:
		return keys_of(&r->leaves[n->id].pl);
	case Q_PHRASE:
		return eval_phrase(r, n);
	case Q_AND:
		return eval_and(r, n);
	case Q_OR: {
		struct kset s = { xmalloc(sizeof(uint64_t)), 0 };

		for (size_t i = 0; i < n->n_kids; i++) {
			struct kset o = eval(r, n->kids[i]), t = kset_op(&s, &o, OP_OR);

			kset_free(&s);
			kset_free(&o);
			s = t;
		}
		return s;
	}
	case Q_LINK: {
		const struct kset *d = &r->filters[n->id].docs;
		struct kset s = { xmalloc((d->n ? d->n : 1) * sizeof(uint64_t)), d->n };

		if (d->n)
			memcpy(s.k, d->k, d->n * sizeof(uint64_t));
		return s;
	}
	default: /* a NOT or a site: outside an AND selects nothing by itself */
		return (struct kset){ xmalloc(sizeof(uint64_t)), 0 };
	}
}

/* ---- scoring ------------------------------------------------------------------- */

static bool title_eligible(const struct qnode *n)
{
	if (n->sections)
		return false;
	switch (n->type) {
	case Q_TERM:
		return true;
	case Q_PHRASE:
	case Q_AND:
		for (size_t k = 0; k < n->n_kids; k++)
			if (!title_eligible(n->kids[k]))
				return false;
		return true;
	default:
		return false;
	}
}

static int count_token(const char *word, size_t len, uint16_t pos, bool stop, void *arg)
{
	UNUSED(word);
	UNUSED(len);
	UNUSED(pos);
	UNUSED(stop);
	(*(uint32_t *)arg)++;
	return 0;
}

/* Score document key; *keep false when a filter drops it. */
static int score_doc(struct run *r, uint64_t key, struct search_doc *out, bool *keep)
{
	uint32_t url = (uint32_t)key, site = (uint32_t)(key >> 32);
	const struct proto_search *q = r->req;
	struct storage_doc d;
	const uint16_t *ppos[64];
	uint32_t pn[64];
	double idfs[64];
	size_t nprox = 0;
	double text = 0, score, pr, wn[4];
	uint64_t tmask[QUERY_MAX_PHRASE];
	size_t ntitle = 0;
	bool exact = r->title_eligible;
	int rc;

	*keep = false;
	if (q->site_id && site != q->site_id)
		return 0;
	if (r->req->n_spaces && !u32_in(r->space_sites, r->n_space_sites, site))
		return 0;
	if (r->ul_set && !u32_in(r->ul_sites, r->n_ul_sites, site) &&
	    !u32_in(r->ul_urls, r->n_ul_urls, url))
		return 0;
	rc = storage_doc(r->ix->st, url, &d);
	if (rc < 0)
		return -1;
	if (rc == 0 || d.site_id == 0)
		return 0;
	if (q->time_from && d.last_modified < q->time_from)
		return 0;
	if (q->time_to && (d.last_modified == 0 || d.last_modified > q->time_to))
		return 0;
	section_factors(&r->rp, d.len, r->ix->avg_len, wn);
	for (size_t i = 0; i < r->n_leaves; i++) {
		struct leaf *l = &r->leaves[i];
		uint32_t tf[4] = { 0 }, n;
		const uint16_t *p;
		size_t at;

		if (!l->positive)
			continue;
		at = plist_find(&l->pl, key, &l->cursor);
		if (at == SIZE_MAX) {
			exact = false;
			continue;
		}
		p = plist_pos(&l->pl, at, &n);
		for (uint32_t j = 0; j < n; j++)
			tf[tok_pos_section(p[j])]++;
		if (!tf[TOK_SECTION_TITLE]) {
			exact = false;
		} else if (exact && ntitle < ARRAY_SIZE(tmask)) {
			/* The title positions of this word, for the order check. */
			tmask[ntitle] = 0;
			for (uint32_t j = 0; j < n; j++)
				if (tok_pos_section(p[j]) == TOK_SECTION_TITLE &&
				    tok_pos_position(p[j]) < 64)
					tmask[ntitle] |= 1ull << tok_pos_position(p[j]);
			ntitle++;
		}
		text += bm25f_wn(&r->rp, l->idf, tf, wn);
		if (!l->in_phrase && nprox < ARRAY_SIZE(ppos)) {
			ppos[nprox] = p;
			pn[nprox] = n;
			idfs[nprox] = l->idf;
			nprox++;
		}
	}
	for (size_t i = 0; i < r->n_phrases; i++) {
		struct phrase *ph = &r->phrases[i];
		size_t at;
		double t = 0;

		if (!ph->positive)
			continue;
		at = SIZE_MAX;
		{
			size_t lo = ph->cursor, hi = ph->n;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				if (ph->key[mid] < key)
					lo = mid + 1;
				else
					hi = mid;
			}
			ph->cursor = lo;
			if (lo < ph->n && ph->key[lo] == key)
				at = lo;
		}
		if (at == SIZE_MAX)
			continue;
		for (int s = 0; s < 4; s++)
			t += ph->count[at][s] * wn[s];
		text += r->rp.phrase * saturate(&r->rp, ph->idf, t);
	}
	for (size_t i = 0; i + 1 < nprox; i++) {
		uint32_t dist = search_min_distance(ppos[i], pn[i], ppos[i + 1], pn[i + 1]);

		if (dist >= 1 && dist <= SEARCH_PROXIMITY_MAX)
			text += r->rp.proximity * fmin(idfs[i], idfs[i + 1]) / dist;
	}
	pr = r->ix->rk ? ranks_score(r->ix->rk, url) : 0;
	/* PageRank alone orders what the text cannot (link: only). */
	score = text * (1.0 + r->rp.pagerank * pr) + SEARCH_PR_TIEBREAK * pr;
	/* Every query word in the title: the closer the title is to the query
	 * (query words / title words), the higher; the exact title gets all
	 * of TitleMatchBoost and ranks first. */
	if (exact && r->query_tokens && d.len[TOK_SECTION_TITLE] >= r->query_tokens) {
		double ratio = (double)r->query_tokens / d.len[TOK_SECTION_TITLE];
		/* A stopword of the query is a gap between its words; one more
		 * word in the title may sit between any two. */
		unsigned gap = 2 + (r->query_tokens > ntitle ? r->query_tokens - (unsigned)ntitle : 0);
		bool in_order = ntitle < ARRAY_SIZE(tmask) && search_title_chain(tmask, ntitle, gap);

		score += r->rp.title_match * ratio * ratio * (in_order ? 1.0 : SEARCH_TITLE_UNORDERED);
	}
	out->site_id = site;
	out->url_id = url;
	out->score = score;
	out->last_modified = d.last_modified;
	*keep = true;
	return 0;
}

/* ---- the result page -------------------------------------------------------------- */

/* The distinct positive words, for highlighting. */
static void highlight_words(struct run *r, const char ***out, size_t *n)
{
	const char **v = xmalloc(EXCERPT_MAX_TERMS * sizeof(char *));
	size_t k = 0;

	for (size_t i = 0; i < r->n_leaves; i++) {
		if (!r->leaves[i].positive)
			continue;
		for (size_t j = 0; j < r->leaves[i].n_words && k < EXCERPT_MAX_TERMS; j++) {
			size_t m;

			for (m = 0; m < k; m++)
				if (!strcmp(v[m], r->leaves[i].words[j]))
					break;
			if (m == k)
				v[k++] = r->leaves[i].words[j];
		}
	}
	*out = v;
	*n = k;
}

static char *valid_dup(const char *s)
{
	struct buf b = BUF_INIT(PROTO_MAX_STRING);
	size_t len = strlen(s);

	if (utf8_valid(s, len))
		return xstrdup(s);
	utf8_sanitize(s, len, &b, NULL);
	if (!b.ptr)
		return xstrdup("");
	return buf_detach(&b, NULL);
}

/* ---- the rows of result pages, cached per generation ------------------------- */

/* What a result page shows of a document besides its snippets: read from
 * the database once per generation and kept (a recrawl changes the rows
 * before the index follows; the cache follows with the next generation,
 * like the index).  Owned strings; clones owned too. */
struct hit_row {
	uint32_t url_id;
	bool found;                /* the database has the document */
	char *url, *site, *title, *description, *keywords, *content_type;
	uint32_t size;
	struct proto_clone *clones;
	uint32_t n_clones;
	size_t bytes;
};

static void hit_row_free(struct hit_row *h)
{
	if (!h)
		return;
	free(h->url);
	free(h->site);
	free(h->title);
	free(h->description);
	free(h->keywords);
	free(h->content_type);
	for (uint32_t i = 0; i < h->n_clones; i++)
		free(h->clones[i].url);
	free(h->clones);
	memset(h, 0, sizeof(*h));
}

static void hit_row_copy(struct hit_row *to, const struct hit_row *from)
{
	*to = *from;
	to->url = xstrdup(from->url);
	to->site = xstrdup(from->site);
	to->title = xstrdup(from->title);
	to->description = xstrdup(from->description);
	to->keywords = xstrdup(from->keywords);
	to->content_type = xstrdup(from->content_type);
	to->clones = from->n_clones ? xmalloc(from->n_clones * sizeof(*to->clones)) : NULL;
	for (uint32_t i = 0; i < from->n_clones; i++) {
		to->clones[i].url_id = from->clones[i].url_id;
		to->clones[i].url = xstrdup(from->clones[i].url);
	}
}

static size_t slot_of(uint32_t url_id, size_t cap)
{
	return (size_t)(url_id * 2654435761u) & (cap - 1);
}

/* Copy the cached row of url_id into *out: true when there is one. */
static bool cache_get(struct search_index *ix, uint32_t url_id, struct hit_row *out)
{
	bool hit = false;

	pthread_mutex_lock(&ix->cache_mu);
	if (ix->cache) {
		for (size_t i = slot_of(url_id, SEARCH_CACHE_SLOTS);; i = (i + 1) & (SEARCH_CACHE_SLOTS - 1)) {
			struct hit_row *h = ix->cache[i];

			if (!h)
				break;
			if (h->url_id == url_id) {
				hit_row_copy(out, h);
				hit = true;
				break;
			}
		}
	}
	if (hit)
		ix->cache_hits++;
	else
		ix->cache_misses++;
	pthread_mutex_unlock(&ix->cache_mu);
	return hit;
}

static void cache_clear_locked(struct search_index *ix)
{
	for (size_t i = 0; ix->cache && i < SEARCH_CACHE_SLOTS; i++) {
		hit_row_free(ix->cache[i]);
		free(ix->cache[i]);
		ix->cache[i] = NULL;
	}
	ix->cache_rows = 0;
	ix->cache_bytes = 0;
}

/* Keep a copy of row (nothing when url_id is there already).  A full cache
 * is emptied first: rows are cheap to read again, and nothing is evicted
 * one by one. */
static void cache_put(struct search_index *ix, const struct hit_row *row)
{
	size_t i;

	pthread_mutex_lock(&ix->cache_mu);
	if (!ix->cache)
		ix->cache = xcalloc(SEARCH_CACHE_SLOTS, sizeof(*ix->cache));
	if (ix->cache_rows >= SEARCH_CACHE_ROWS || ix->cache_bytes + row->bytes > SEARCH_CACHE_BYTES)
		cache_clear_locked(ix);
	for (i = slot_of(row->url_id, SEARCH_CACHE_SLOTS); ix->cache[i];
	     i = (i + 1) & (SEARCH_CACHE_SLOTS - 1))
		if (ix->cache[i]->url_id == row->url_id)
			goto out;
	ix->cache[i] = xmalloc(sizeof(*ix->cache[i]));
	hit_row_copy(ix->cache[i], row);
	ix->cache_rows++;
	ix->cache_bytes += row->bytes;
out:
	pthread_mutex_unlock(&ix->cache_mu);
}

static void row_from_db(struct hit_row *h, const struct db_hit_doc *d)
{
	h->url_id = d->url_id;
	h->found = d->found;
	h->url = valid_dup(d->found ? d->url : "");
	h->site = valid_dup(d->found ? d->site : "");
	h->title = valid_dup(d->found ? d->title : "");
	h->description = valid_dup(d->found ? d->description : "");
	h->keywords = valid_dup(d->found ? d->keywords : "");
	h->content_type = valid_dup(d->found ? d->content_type : "");
	h->size = d->size;
	h->bytes = sizeof(*h) + strlen(h->url) + strlen(h->site) + strlen(h->title) +
		   strlen(h->description) + strlen(h->keywords) + strlen(h->content_type) + 6;
}

struct clone_fill {
	struct hit_row *rows;
	const size_t *which;       /* row of each asked id */
};

static int clone_cb(void *arg, size_t i, uint32_t clone_id, const char *url)
{
	struct clone_fill *c = arg;
	struct hit_row *h = &c->rows[c->which[i]];

	if (h->n_clones >= PROTO_MAX_CLONES)
		return 0;
	if (!h->clones)
		h->clones = xcalloc(PROTO_MAX_CLONES, sizeof(*h->clones));
	h->clones[h->n_clones].url_id = clone_id;
	h->clones[h->n_clones].url = valid_dup(url);
	h->bytes += sizeof(*h->clones) + strlen(h->clones[h->n_clones].url) + 1;
	h->n_clones++;
	return 0;
}

static int fill_hits(struct run *r, const struct search_doc *docs, const struct search_pick *pk,
		     size_t n)
{
	struct proto_results *res = r->res;
	const struct proto_search *q = r->req;
	struct db_hit_doc *dd = NULL;
	struct hit_row *rows = NULL;
	uint32_t *miss = NULL;
	size_t *which = NULL, n_miss = 0;
	const char **words = NULL;
	struct excerpt_terms terms;
	struct buf raw = BUF_INIT(MAX_DOC_BYTES), plain = BUF_INIT(MAX_DOC_BYTES + 1),
		   err = BUF_INIT(256);
	uint32_t max_ex = q->max_excerpts < PROTO_MAX_EXCERPTS ? q->max_excerpts : PROTO_MAX_EXCERPTS;
	uint32_t ex_len = q->excerpt_len < PROTO_MAX_EXCERPT_LEN ? q->excerpt_len :
			  PROTO_MAX_EXCERPT_LEN;
	int rc = 0;

	res->hits = xcalloc(n ? n : 1, sizeof(*res->hits));
	res->n_hits = (uint32_t)n;
	for (size_t i = 0; i < n; i++) {
		const struct search_doc *d = &docs[pk[i].doc];
		struct proto_hit *h = &res->hits[i];

		h->url_id = d->url_id;
		h->site_id = d->site_id;
		h->score = d->score;
		h->second = pk[i].second;
		h->site_hits = pk[i].site_hits;
		h->last_modified = d->last_modified;
	}
	if (!r->env->db || n == 0)
		goto out;
	/* The rows: from the cache, the rest in one SELECT (with the stored
	 * texts when snippets are asked for: those are not cached) and one
	 * for the clones. */
	rows = xcalloc(n, sizeof(*rows));
	miss = xmalloc(n * sizeof(*miss));
	which = xmalloc(n * sizeof(*which));
	for (size_t i = 0; i < n; i++) {
		if (!max_ex && cache_get(r->ix, res->hits[i].url_id, &rows[i]))
			continue;
		miss[n_miss] = res->hits[i].url_id;
		which[n_miss++] = i;
	}
	if (n_miss) {
		struct clone_fill cf = { rows, which };

		dd = xcalloc(n_miss, sizeof(*dd));
		if (db_hit_docs(r->env->db, miss, n_miss, max_ex > 0, dd)) {
			r->db_failed = true;
			rc = -1;
			goto out;
		}
		for (size_t k = 0; k < n_miss; k++) {
			row_from_db(&rows[which[k]], &dd[k]);
			rows[which[k]].url_id = miss[k];
		}
		if (db_hit_clones(r->env->db, miss, n_miss, clone_cb, &cf)) {
			r->db_failed = true;
			rc = -1;
			goto out;
		}
		for (size_t k = 0; k < n_miss; k++)
			if (rows[which[k]].found)
				cache_put(r->ix, &rows[which[k]]);
	}
	highlight_words(r, &words, &terms.n);
	terms.words = words;
	for (size_t i = 0; i < n; i++) {
		struct proto_hit *h = &res->hits[i];
		struct hit_row *w = &rows[i];

		if (!w->found)
			continue;
		h->url = xstrdup(w->url);
		h->site = xstrdup(w->site);
		excerpt_highlight(r->env->tok, w->title, strlen(w->title), &terms, 64, &h->title);
		excerpt_highlight(r->env->tok, w->description, strlen(w->description), &terms, 64,
				  &h->description);
		h->keywords = xstrdup(w->keywords);
		h->content_type = xstrdup(w->content_type);
		h->size = w->size;
		/* The clones move over to the hit. */
		h->clones = w->clones;
		h->n_clones = w->n_clones;
		w->clones = NULL;
		w->n_clones = 0;
	}
	for (size_t k = 0; max_ex && k < n_miss; k++) {
		struct proto_hit *h = &res->hits[which[k]];
		struct db_hit_doc *d = &dd[k];

		if (!d->found || !d->text)
			continue;
		if (excerpt_inflate(d->text, d->text_len, EXCERPT_MAX_HTML, &raw, &err)) {
			warning("url %u: stored text: %s", d->url_id, buf_str(&err));
			buf_reset(&err);
		} else if (!excerpt_plain_text(buf_str(&raw), raw.len, d->content_type, false,
					      &plain)) {
			excerpt_passages(r->env->tok, buf_str(&plain), plain.len, &terms, max_ex,
					 ex_len, &h->excerpts, &h->n_excerpts);
		}
		if (past_deadline(r))
			break;
	}
out:
	for (size_t k = 0; dd && k < n_miss; k++)
		db_hit_doc_free(&dd[k]);
	free(dd);
	for (size_t i = 0; rows && i < n; i++)
		hit_row_free(&rows[i]);
	free(rows);
	free(miss);
	free(which);
	free(words);
	buf_free(&raw);
	buf_free(&plain);
	buf_free(&err);
	return rc;
}

static void word_stats(struct run *r)
{
	struct proto_results *res = r->res;
	size_t n = r->q.n_words < PROTO_MAX_WORDS ? r->q.n_words : PROTO_MAX_WORDS;

	res->words = xcalloc(n ? n : 1, sizeof(*res->words));
	res->n_words = (uint32_t)n;
	for (size_t i = 0; i < n; i++) {
		struct proto_word_stat *w = &res->words[i];
		struct storage_word sw;
		const char *word = r->q.words[i].word;

		w->word = valid_dup(word);
		w->stopword = r->q.words[i].stopword;
		if (w->stopword)
			continue;
		if (strpbrk(word, "*?")) {
			/* A wildcard: the sums over its expansion. */
			for (size_t l = 0; l < r->n_leaves; l++) {
				if (r->leaves[l].node->type != Q_WILD ||
				    strcmp(r->leaves[l].node->word, word))
					continue;
				for (size_t j = 0; j < r->leaves[l].n_words; j++) {
					const char *x = r->leaves[l].words[j];
					if (storage_word(r->ix->st, x, strlen(x), &sw) == 1) {
						w->urls += sw.n_urls;
						w->total += sw.total;
					}
				}
				break;
			}
		} else if (storage_word(r->ix->st, word, strlen(word), &sw) == 1) {
			w->urls = sw.n_urls;
			w->total = sw.total;
		}
	}
}

static void run_free(struct run *r)
{
	for (size_t i = 0; i < r->n_leaves; i++) {
		plist_free(&r->leaves[i].pl);
		for (size_t j = 0; j < r->leaves[i].n_words; j++)
			free(r->leaves[i].words[j]);
		free(r->leaves[i].words);
	}
	free(r->leaves);
	for (size_t i = 0; i < r->n_phrases; i++) {
		free(r->phrases[i].key);
		free(r->phrases[i].count);
	}
	free(r->phrases);
	for (size_t i = 0; i < r->n_filters; i++) {
		free(r->filters[i].sites);
		kset_free(&r->filters[i].docs);
	}
	free(r->filters);
	free(r->space_sites);
	free(r->ul_sites);
	free(r->ul_urls);
	free(r->cur);
	buf_free(&r->notes);
	query_free(&r->q);
}

static void set_error(struct proto_results *res, const char *token, const char *msg)
{
	free(res->error);
	free(res->message);
	res->error = xstrdup(token);
	res->message = xstrdup(msg);
}

int search_run(struct search_index *ix, const struct search_env *env,
	       const struct proto_search *req, struct proto_results *res)
{
	struct run r;
	struct query_opts qo = { env->tok, env->c->min_fixed_pattern_length };
	struct search_doc *docs = NULL;
	size_t n_docs = 0, cap = 0, n_picks;
	struct search_pick *picks = NULL;
	struct kset set = { NULL, 0 };
	double t0 = now_monotonic();
	uint32_t ps = req->page_size ? req->page_size : 10;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	memset(&r, 0, sizeof(r));
	res->generation = ix->gen;
	r.ix = ix;
	r.env = env;
	r.req = req;
	r.res = res;
	buf_init(&r.notes, 1024);
	search_rank_params(env->c, &r.rp);
	if (ps > PROTO_MAX_PAGE_SIZE)
		ps = PROTO_MAX_PAGE_SIZE;

	query_parse(req->q ? req->q : "", req->q ? strlen(req->q) : 0, &qo, &r.q);
	if (r.q.error) {
		set_error(res, r.q.error, r.q.message);
		word_stats(&r);
		goto done;
	}
	if (r.q.message[0])
		buf_adds(&r.notes, r.q.message);
	r.cur = xmalloc(sizeof(*r.cur));
	collect(&r, r.q.root, true, false);
	if (resolve_filters(&r)) {
		r.db_failed = true;
		goto done;
	}
	if (load_and_driven(&r)) {
		fail(&r, "ER_INDEX", "The index could not be read.");
		rc = -1;
	}
	for (size_t i = 0; i < r.n_leaves && !past_deadline(&r); i++) {
		struct leaf *l = &r.leaves[i];

		if (!l->loaded && load_leaf(&r, l)) {
			if (!r.err_token)
				fail(&r, "ER_INDEX", "The index could not be read.");
			rc = -1;
			break;
		}
		/* Loaded for the AND's documents only: the dictionary's count. */
		l->idf = search_idf(storage_n_docs(ix->st), l->loaded ? l->df : l->pl.n);
	}
	word_stats(&r);
	if (r.err_token)
		goto done;
	r.title_eligible = title_eligible(r.q.root);
	if (r.title_eligible) {
		struct tok_doc td;

		tok_doc_reset(&td);
		tok_run(env->tok, &td, TOK_SECTION_BODY, req->q, strlen(req->q), count_token,
			&r.query_tokens);
	}
	set = eval(&r, r.q.root);
	for (size_t i = 0; i < set.n; i++) {
		bool keep;

		if (n_docs == cap) {
			cap = cap ? 2 * cap : 256;
			docs = xrealloc(docs, cap * sizeof(*docs));
		}
		if (score_doc(&r, set.k[i], &docs[n_docs], &keep)) {
			fail(&r, "ER_INDEX", "The index could not be read.");
			rc = -1;
			goto done;
		}
		if (keep)
			n_docs++;
		if (i % 4096 == 4095 && past_deadline(&r))
			goto done;
	}
	picks = xmalloc(2 * (size_t)ps * sizeof(*picks));
	n_picks = search_select(docs, n_docs, req->group, req->sort,
				req->page < PROTO_MAX_PAGE ? req->page : PROTO_MAX_PAGE, ps, picks,
				&res->total_results, &res->total_sites);
	res->total_urls = n_docs;
	res->first = req->page * ps;
	if (fill_hits(&r, docs, picks, n_picks))
		rc = -1;
done:
	if (r.db_failed) {
		fail(&r, "ER_DATABASE", "The database did not answer.");
		rc = -1;
	}
	if (!res->error) {
		if (r.err_token) {
			set_error(res, r.err_token, r.err_msg);
		} else {
			res->error = xstrdup("");
			res->message = xstrdup(buf_str(&r.notes));
		}
	}
	res->seconds = now_monotonic() - t0;
	kset_free(&set);
	free(docs);
	free(picks);
	run_free(&r);
	return rc;
}

/* ---- the cached copy ------------------------------------------------------------ */

int search_cached(struct search_index *ix, const struct search_env *env,
		  const struct proto_cached_req *req, struct proto_cached *res)
{
	struct run r;
	struct query_opts qo = { env->tok, env->c->min_fixed_pattern_length };
	struct proto_search sreq = { 0 };
	struct db_hit_doc d = { 0 };
	struct buf raw = BUF_INIT(MAX_DOC_BYTES), plain = BUF_INIT(MAX_DOC_BYTES + 1),
		   err = BUF_INIT(256), norm = BUF_INIT(MAX_URL_LEN + 1);
	const char **words = NULL;
	struct excerpt_terms terms = { NULL, 0 };
	uint32_t id = req->url_id;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	memset(&r, 0, sizeof(r));
	r.ix = ix;
	r.env = env;
	r.req = &sreq;
	buf_init(&r.notes, 1024);
	if (!env->db) {
		res->error = xstrdup("ER_NOSEARCHD");
		goto out;
	}
	if (!id && req->url) {
		if (url_normalize(req->url, &norm, NULL) == 0) {
			rc = db_url_id(env->db, buf_str(&norm), &id);
			if (rc < 0)
				goto dberr;
			rc = 0;
		}
	}
	if (id && db_hit_docs(env->db, &id, 1, true, &d))
		goto dberr;
	if (!id || !d.found || !d.text) {
		res->error = xstrdup("ER_NOTFOUND");
		goto out;
	}
	/* The words to highlight: the query's terms and wildcard expansions. */
	if (req->q && query_parse(req->q, strlen(req->q), &qo, &r.q) == 0) {
		r.cur = NULL;
		collect(&r, r.q.root, true, false);
		for (size_t i = 0; i < r.n_leaves; i++) {
			struct leaf *l = &r.leaves[i];

			if (l->node->type == Q_TERM) {
				l->words = xmalloc(sizeof(char *));
				l->words[0] = xstrdup(l->node->word);
				l->n_words = 1;
			} else {
				struct wild_ctx x = { &r, l, NULL, 0, 0, false };

				x.ids = xmalloc((size_t)env->c->max_wildcard_words * sizeof(uint32_t));
				storage_words_prefix(ix->st, l->node->word,
						     query_wild_prefix(l->node->word), SIZE_MAX,
						     wild_word, &x);
				free(x.ids);
			}
		}
		highlight_words(&r, &words, &terms.n);
		terms.words = words;
	}
	if (excerpt_inflate(d.text, d.text_len, MAX_DOC_BYTES, &raw, &err)) {
		warning("url %u: stored text: %s", id, buf_str(&err));
		res->error = xstrdup("ER_NOTFOUND");
		goto out;
	}
	excerpt_plain_text(buf_str(&raw), raw.len, d.content_type, true, &plain);
	/* One protocol string holds at most PROTO_MAX_STRING bytes. */
	if (plain.len > PROTO_MAX_STRING)
		buf_truncate(&plain, utf8_cut(plain.ptr, plain.len, PROTO_MAX_STRING));
	excerpt_highlight(env->tok, buf_str(&plain), plain.len, &terms, SEARCH_MAX_CACHED_SPANS,
			  &res->text);
	res->error = xstrdup("");
	res->url_id = id;
	res->url = valid_dup(d.url);
	res->content_type = valid_dup(d.content_type);
	res->charset = valid_dup(d.charset);
	res->last_index_time = d.last_index_time;
	goto out;
dberr:
	res->error = xstrdup("ER_DATABASE");
	rc = -1;
out:
	free(words);
	db_hit_doc_free(&d);
	buf_free(&raw);
	buf_free(&plain);
	buf_free(&err);
	buf_free(&norm);
	run_free(&r);
	return rc;
}
