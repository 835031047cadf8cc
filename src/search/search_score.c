/* search_score.c - ranking (search_int.h, doc/SEARCH.md "Ranking"): BM25F
 * over the sections, the phrase, proximity and exact-title boosts and the
 * PageRank blend for each matching document, then grouping by site and
 * paging through a bounded heap.  It decides no match (search_match.c)
 * and reads no database row.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blocks.h"
#include "boiler.h"
#include "conf.h"
#include "query.h"
#include "ranks.h"
#include "search.h"
#include "search_int.h"
#include "storage.h"
#include "tokenize.h"
#include "util.h"

#define SEARCH_PR_TIEBREAK   1e-3       /* PageRank added to every score */
#define SEARCH_TITLE_UNORDERED 0.25    /* title boost when the words are not in order */
#define SEARCH_PROXIMITY_MAX 16         /* positions apart that still count as near */

/* ---- the pure parts ---------------------------------------------------------- */

void search_rank_params(const struct conf *c, struct search_rank_params *p)
{
	static const double w[4] = { 1, 2, 3, 5 };

	for (int s = 0; s < 4; s++)
		p->w[s] = c ? c->section_weight[s] : w[s];
	p->k1 = c ? c->bm25_k1 : 2.0;
	p->b = c ? c->bm25_b : 0.75;
	p->phrase = c ? c->phrase_boost : 1.0;
	p->proximity = c ? c->proximity_boost : 2.0;
	p->pagerank = c ? c->pagerank_weight : 0.5;
	p->title_match = c ? c->title_match_boost : 1000;
	p->stem_weight = c ? c->stem_weight : 0.3;
	p->boiler = c ? c->boilerplate_weight : 0.1;
	p->anchor_weight = c ? c->anchor_weight : 2;
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

/* The same from the generation's table when the query's parameters are
 * the table's: the very values section_factors() computes. */
static inline void doc_factors(const struct run *r, const uint16_t len[4], double wn[4])
{
	if (!r->wn_len) {
		section_factors(&r->rp, len, r->ix->avg_len, wn);
		return;
	}
	for (int s = 0; s < 4; s++)
		wn[s] = r->wn_len[s][len[s]];
}

/* A section length is 16 bits: a table of 65,536 factors per section
 * (2 MB) costs what scoring 65,536 documents would, once per generation,
 * and replaces four divisions per matching document by four loads. */
void search_norms_make(struct search_index *ix, const struct conf *c)
{
	struct search_rank_params *p = &ix->norm_rp;
	uint32_t max = storage_max_url_id(ix->st);

	search_rank_params(c, p);
	for (int s = 0; s < STORAGE_SECTIONS; s++) {
		uint16_t len[4] = { 0 };

		ix->wn_len[s] = xmalloc(((size_t)UINT16_MAX + 1) * sizeof(double));
		for (uint32_t n = 0; n <= UINT16_MAX; n++) {
			double wn[4];

			len[s] = (uint16_t)n;
			section_factors(p, len, ix->avg_len, wn);
			ix->wn_len[s][n] = wn[s];
		}
	}
	if (!ix->rk)
		return;
	ix->n_pr = max + 1;
	ix->pr = xmalloc((size_t)ix->n_pr * sizeof(*ix->pr));
	for (uint32_t u = 0; u < ix->n_pr; u++)
		ix->pr[u] = ranks_score(ix->rk, u);
}

void search_norms_free(struct search_index *ix)
{
	for (int s = 0; s < STORAGE_SECTIONS; s++)
		free(ix->wn_len[s]);
	free(ix->pr);
}

void run_norms(struct run *r)
{
	const struct search_rank_params *a = &r->rp, *b = &r->ix->norm_rp;

	r->wn_len = NULL;
	if (!r->ix->wn_len[0] || a->b != b->b)
		return;
	for (int s = 0; s < 4; s++)
		if (a->w[s] != b->w[s])
			return;
	r->wn_len = (const double *const *)r->ix->wn_len;
}

/* A word's other forms: each occurrence counts w of one of the word. */
static double bm25f_scaled(const struct search_rank_params *p, double idf, const uint32_t tf[4],
			   double w, const double wn[4])
{
	double t = tf[0] * wn[0] + tf[1] * wn[1] + tf[2] * wn[2] + tf[3] * wn[3];
	return saturate(p, idf, w * t);
}

/* Anchor text is one more field of BM25F: a occurrences weighing
 * AnchorWeight each, without length normalisation (MaxAnchorWords bounds
 * what one site gives). */

static double bm25f_wn(const struct search_rank_params *p, double idf, const uint32_t tf[4],
		       const double wn[4])
{
	double t = tf[0] * wn[0] + tf[1] * wn[1] + tf[2] * wn[2] + tf[3] * wn[3];
	return saturate(p, idf, t);
}

/* As bm25f_scaled(), nb of the body occurrences in boilerplate counting
 * BoilerplateWeight of one, and a occurrences in the anchor text of the
 * document's in-links AnchorWeight of one (no length normalisation). */
static double bm25f_mixed(const struct search_rank_params *p, double idf, const uint32_t tf[4],
			  uint32_t nb, double w, const double wn[4], uint32_t a)
{
	double body = (tf[0] - nb) + p->boiler * nb;
	double t = body * wn[0] + tf[1] * wn[1] + tf[2] * wn[2] + tf[3] * wn[3];

	return saturate(p, idf, w * t + p->anchor_weight * a);
}

double search_bm25f(const struct search_rank_params *p, double idf, const uint32_t tf[4],
		    const uint16_t len[4], const double avg_len[4])
{
	double wn[4];

	section_factors(p, len, avg_len, wn);
	return bm25f_wn(p, idf, tf, wn);
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

uint32_t search_min_distance(const tok_pos_t *a, uint32_t na, const tok_pos_t *b, uint32_t nb)
{
	uint32_t best = UINT32_MAX, i = 0, j = 0;

	while (i < na && j < nb) {
		tok_pos_t x = a[i], y = b[j];

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

/* ---- grouping and paging ------------------------------------------------------- */

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

static int count_token(const char *word, size_t len, tok_pos_t pos, bool stop, void *arg)
{
	UNUSED(word);
	UNUSED(len);
	UNUSED(pos);
	UNUSED(stop);
	(*(uint32_t *)arg)++;
	return 0;
}

void run_title_prepare(struct run *r)
{
	r->title_eligible = title_eligible(r->q.root);
	if (r->title_eligible) {
		struct tok_doc td;

		tok_doc_reset(&td);
		tok_run(r->env->tok, &td, TOK_SECTION_BODY, r->req->q, strlen(r->req->q), count_token,
			&r->query_tokens);
	}
}

/* What scoring one document gathers from its words on the way. */
struct doc_score {
	double wn[4];              /* section_factors() of the document */
	/* the words not in a phrase, for the proximity boost */
	const tok_pos_t *ppos[64];
	uint32_t pn[64];
	double idfs[64];
	size_t nprox;
	/* the title positions of each word, for the exact-title boost */
	uint64_t tmask[QUERY_MAX_PHRASE];
	size_t ntitle;
	bool exact;                /* every word in the title so far */
	/* the document's boilerplate (body positions), looked up at its first
	 * body occurrence of a query word when weighed apart */
	struct pos_range bp[64];
	size_t nbp;
	bool bp_read;
};

/* The request's filters that need no index: site id, web spaces, ul. */
static bool request_keeps(const struct run *r, uint32_t site, uint32_t url)
{
	const struct proto_search *q = r->req;

	if (q->site_id && site != q->site_id)
		return false;
	if (q->n_spaces && !u32_in(r->space_sites, r->n_space_sites, site))
		return false;
	if (r->ul_set && !u32_in(r->ul_sites, r->n_ul_sites, site) &&
	    !u32_in(r->ul_urls, r->n_ul_urls, url))
		return false;
	return true;
}

bool run_request_keeps(const struct run *r, uint32_t site, uint32_t url)
{
	return request_keeps(r, site, url);
}

/* The text score summed in query order: each phase takes the sum so far
 * and returns it with its own terms added. */

/* The positions of leaf l in document key and their weight: the word's
 * own (1) or, in a document without it, its other forms' (StemWeight).
 * False when the document has none. */
static inline bool leaf_doc(struct run *r, struct leaf *l, uint64_t key, const tok_pos_t **p,
			    uint32_t *n, double *w)
{
	size_t at;

	*w = 1;
	if (!l->n_forms && !l->anchored) {
		at = plist_find(&l->pl, key, &l->cursor);
		if (at == SIZE_MAX)
			return false;
		*p = plist_pos(&l->pl, at, n);
		return true;
	}
	at = plist_find(&l->xpl, key, &l->xcursor);
	if (at != SIZE_MAX) {
		*p = plist_pos(&l->xpl, at, n);
		return true;
	}
	at = plist_find(&l->fpl, key, &l->fcursor);
	if (at == SIZE_MAX)
		return false;
	*p = plist_pos(&l->fpl, at, n);
	*w = r->rp.stem_weight;
	return true;
}

/* How many of a word's n positions p are body positions in boilerplate:
 * both sorted, so one walk over the two (the body's positions come
 * first). */
static uint32_t boiler_count(const struct doc_score *ds, const tok_pos_t *p, uint32_t n)
{
	uint32_t nb = 0;
	size_t k = 0;

	for (uint32_t j = 0; j < n && tok_pos_section(p[j]) == TOK_SECTION_BODY; j++) {
		unsigned at = tok_pos_position(p[j]);

		while (k < ds->nbp && ds->bp[k].end <= at)
			k++;
		if (k == ds->nbp)
			break;
		nb += ds->bp[k].start <= at;
	}
	return nb;
}

/* The occurrences of leaf l in the anchor text of document key's in-links
 * (doc/SEARCH.md, "Anchor text"). */
static inline uint32_t leaf_anchors(struct leaf *l, uint64_t key)
{
	size_t at = plist_find(&l->apl, key, &l->acursor);
	uint32_t n = 0;

	if (at != SIZE_MAX)
		plist_pos(&l->apl, at, &n);
	return n;
}

/* BM25F of each positive word of document key; notes its title positions
 * and its positions for the proximity boost. */
static double score_words(struct run *r, uint64_t key, struct doc_score *ds, double text)
{
	for (size_t i = 0; i < r->n_leaves; i++) {
		struct leaf *l = &r->leaves[i];
		uint32_t tf[4] = { 0 }, n, a, nb;
		const tok_pos_t *p;
		double w;

		if (!l->positive)
			continue;
		a = l->anchored ? leaf_anchors(l, key) : 0;
		if (!leaf_doc(r, l, key, &p, &n, &w)) {
			ds->exact = false;
			if (!a)
				continue;
			/* Found by its in-links' words alone. */
			text += saturate(&r->rp, l->idf, r->rp.anchor_weight * a);
			continue;
		}
		for (uint32_t j = 0; j < n; j++)
			tf[tok_pos_section(p[j])]++;
		/* The exact-title boost wants the query's own words. */
		if (!tf[TOK_SECTION_TITLE] || w != 1) {
			ds->exact = false;
		} else if (ds->exact && ds->ntitle < ARRAY_SIZE(ds->tmask)) {
			/* The title positions of this word, for the order check. */
			ds->tmask[ds->ntitle] = 0;
			for (uint32_t j = 0; j < n; j++)
				if (tok_pos_section(p[j]) == TOK_SECTION_TITLE &&
				    tok_pos_position(p[j]) < 64)
					ds->tmask[ds->ntitle] |= 1ull << tok_pos_position(p[j]);
			ds->ntitle++;
		}
		if (tf[TOK_SECTION_BODY] && !ds->bp_read) {
			ds->nbp = boiler_doc(r->ix->bp, (uint32_t)key, ds->bp, ARRAY_SIZE(ds->bp));
			ds->bp_read = true;
		}
		nb = ds->nbp && tf[TOK_SECTION_BODY] ? boiler_count(ds, p, n) : 0;
		if (nb || a)
			text += bm25f_mixed(&r->rp, l->idf, tf, nb, w, ds->wn, a);
		else
			text += w == 1 ? bm25f_wn(&r->rp, l->idf, tf, ds->wn)
				       : bm25f_scaled(&r->rp, l->idf, tf, w, ds->wn);
		if (!l->in_phrase && ds->nprox < ARRAY_SIZE(ds->ppos)) {
			ds->ppos[ds->nprox] = p;
			ds->pn[ds->nprox] = n;
			ds->idfs[ds->nprox] = l->idf;
			ds->nprox++;
		}
	}
	return text;
}

/* Index of key in ph's documents at or after its cursor, or SIZE_MAX. */
static inline size_t phrase_find(struct phrase *ph, uint64_t key)
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
	return lo < ph->n && ph->key[lo] == key ? lo : SIZE_MAX;
}

/* The phrase boost: each positive phrase the document has, BM25F over its
 * occurrences. */
static double score_phrases(struct run *r, uint64_t key, const struct doc_score *ds,
			    double text)
{
	for (size_t i = 0; i < r->n_phrases; i++) {
		struct phrase *ph = &r->phrases[i];
		size_t at;
		double t = 0;

		if (!ph->positive)
			continue;
		at = phrase_find(ph, key);
		if (at == SIZE_MAX)
			continue;
		for (int s = 0; s < 4; s++)
			t += ph->count[at][s] * ds->wn[s];
		text += r->rp.phrase * saturate(&r->rp, ph->idf, t);
	}
	return text;
}

/* The proximity boost: neighbouring query words close together. */
static double score_proximity(const struct run *r, const struct doc_score *ds, double text)
{
	for (size_t i = 0; i + 1 < ds->nprox; i++) {
		uint32_t dist = search_min_distance(ds->ppos[i], ds->pn[i], ds->ppos[i + 1],
						    ds->pn[i + 1]);

		if (dist >= 1 && dist <= SEARCH_PROXIMITY_MAX)
			text += r->rp.proximity * fmin(ds->idfs[i], ds->idfs[i + 1]) / dist;
	}
	return text;
}

/* Every query word in the title: the closer the title is to the query
 * (query words / title words), the higher; the exact title gets all of
 * TitleMatchBoost and ranks first. */
static double title_boost(const struct run *r, const struct doc_score *ds, uint16_t title_len)
{
	double ratio;
	unsigned gap;
	bool in_order;

	if (!ds->exact || !r->query_tokens || title_len < r->query_tokens)
		return 0;
	ratio = (double)r->query_tokens / title_len;
	/* A stopword of the query is a gap between its words; one more word
	 * in the title may sit between any two. */
	gap = 2 + (r->query_tokens > ds->ntitle ? r->query_tokens - (unsigned)ds->ntitle : 0);
	in_order = ds->ntitle < ARRAY_SIZE(ds->tmask) && search_title_chain(ds->tmask, ds->ntitle, gap);
	return r->rp.title_match * ratio * ratio * (in_order ? 1.0 : SEARCH_TITLE_UNORDERED);
}

/* Score document key; *keep false when a filter drops it.  Inlined into
 * run_score(), its one caller, as it was when the engine was one file: the
 * call per document costs about 8% of the scoring's instructions. */
static inline __attribute__((always_inline)) int score_doc(struct run *r, uint64_t key, struct search_doc *out, bool *keep)
{
	uint32_t url = (uint32_t)key, site = (uint32_t)(key >> 32);
	const struct proto_search *q = r->req;
	struct storage_doc d;
	struct doc_score ds;
	double text, score, pr;
	int rc;

	*keep = false;
	if (!request_keeps(r, site, url))
		return 0;
	rc = run_doc(r, url, &d);
	if (rc < 0)
		return -1;
	if (rc == 0 || d.site_id == 0)
		return 0;
	if (q->time_from && d.last_modified < q->time_from)
		return 0;
	if (q->time_to && (d.last_modified == 0 || d.last_modified > q->time_to))
		return 0;
	ds.nprox = 0;
	ds.ntitle = 0;
	ds.exact = r->title_eligible;
	doc_factors(r, d.len, ds.wn);
	ds.nbp = 0;
	ds.bp_read = !r->ix->bp || !(r->rp.boiler < 1); /* nothing to look up */
	text = score_words(r, key, &ds, 0);
	text = score_phrases(r, key, &ds, text);
	text = score_proximity(r, &ds, text);
	pr = run_pr(r, url);
	/* PageRank alone orders what the text cannot (link: only). */
	score = text * (1.0 + r->rp.pagerank * pr) + SEARCH_PR_TIEBREAK * pr;
	score += title_boost(r, &ds, d.len[TOK_SECTION_TITLE]);
	out->site_id = site;
	out->url_id = url;
	out->score = score;
	out->last_modified = d.last_modified;
	*keep = true;
	return 0;
}

int run_score_one(struct run *r, uint64_t key, struct search_doc *out, bool *keep)
{
	int rc = score_doc(r, key, out, keep);

	r->work.scored += *keep;
	return rc;
}

/* ---- upper bounds, for top-k pruning (search_prune.c) ------------------------------ */

void run_section_factors(const struct run *r, const uint16_t len[4], double wn[4])
{
	doc_factors(r, len, wn);
}

/* tf~ = sum_s wn_s tf_s is at most n times the largest wn_s of the sections
 * the word's positions span (sorted, section in the top bits: the first
 * and the last position give the lowest and the highest); bm25f grows with
 * tf~. */
double run_tf_bound(uint32_t n, int sec_lo, int sec_hi, const double wn[4])
{
	double m = 0;

	for (int s = sec_lo; s <= sec_hi; s++)
		if (wn[s] > m)
			m = wn[s];
	return n * m;
}

/* A word with forms or anchor text (score_words(), bm25f_mixed()): t is a
 * bound of its tf~ (its own occurrences', or StemWeight times its forms'
 * when it has none of its own), plus AnchorWeight per anchor occurrence;
 * boilerplate only lowers tf~ (BoilerplateWeight below 1 is all that is
 * looked up). */
double run_sat_bound(const struct run *r, double idf, double t)
{
	return saturate(&r->rp, idf, t);
}

/* The score of a document whose text scores at most text: PageRank is
 * known exactly, the order factor of the title boost is at most 1. */
double run_doc_bound(const struct run *r, double text, double pr, bool in_title,
		     uint16_t title_len)
{
	double score = text * (1.0 + r->rp.pagerank * pr) + SEARCH_PR_TIEBREAK * pr;

	if (in_title && r->title_eligible && r->query_tokens && title_len >= r->query_tokens) {
		double ratio = (double)r->query_tokens / title_len;
		score += r->rp.title_match * ratio * ratio;
	}
	return score;
}

double run_proximity_bound(const struct run *r, const bool *found)
{
	const struct leaf *prev = NULL;
	double sum = 0;
	size_t n = 0;

	/* As score_words() and score_proximity(): consecutive positive words
	 * outside phrases that have positions in the document (a word found
	 * by its anchor text alone has none), each pair at distance 1 at best.
	 * A word beside itself (`a a`) has the same positions twice: distance
	 * 0, which the score does not boost. */
	for (size_t i = 0; i < r->n_leaves && n < 64; i++) {
		const struct leaf *l = &r->leaves[i];

		if (!l->positive || l->in_phrase || (found && !found[i]))
			continue;
		if (prev && (prev->node->type != l->node->type || prev->mask != l->mask ||
			     strcmp(prev->node->word, l->node->word)))
			sum += r->rp.proximity * fmin(prev->idf, l->idf);
		prev = l;
		n++;
	}
	return sum;
}

bool run_bounds_valid(const struct run *r)
{
	const struct search_rank_params *p = &r->rp;

	for (int s = 0; s < 4; s++)
		if (!(p->w[s] >= 0))
			return false;
	return p->k1 > 0 && p->b >= 0 && p->b <= 1 && p->proximity >= 0 && p->pagerank >= 0 &&
	       p->title_match >= 0 && p->stem_weight >= 0 && p->anchor_weight >= 0;
}

int run_score(struct run *r, const struct kset *set, struct search_doc **docs, size_t *n_docs)
{
	struct search_doc *v = *docs;
	size_t n = *n_docs, cap = 0;
	int rc = 0;

	for (size_t i = 0; i < set->n; i++) {
		bool keep;

		if (n == cap) {
			size_t more = cap ? 2 * cap : n + 256;

			v = arena_grow(r->ar, v, n * sizeof(*v), more * sizeof(*v));
			cap = more;
		}
		if (score_doc(r, set->k[i], &v[n], &keep)) {
			run_fail(r, "ER_INDEX", "The index could not be read.");
			rc = -1;
			break;
		}
		if (keep) {
			n++;
			r->work.scored++;
		}
		if (i % 4096 == 4095 && run_past_deadline(r)) {
			rc = 1;
			break;
		}
	}
	*docs = v;
	*n_docs = n;
	return rc;
}
