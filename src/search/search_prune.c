/* search_prune.c - top-k dynamic pruning (doc/SEARCH.md, "Top-k pruning"):
 * a query of ANDed words (with site: and NOTs of words or sites beside
 * them) walked document by document over the words' postings, the rarest
 * word driving and the others skipped to its documents by their record
 * headers.  Every matching document is counted (the page's counts stay
 * exact), but its positions are decoded and it is scored only when an upper
 * bound of its score, from the record headers, docinfo and PageRank, can
 * still reach the page: a MaxScore-style threshold, the page's k-th best
 * entry so far.  The documents of one site are bounded together and scored
 * best bound first, so that grouping by site (each site's best two) stays
 * exact.  search_score.c owns the formula and its bounds.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "proto.h"
#include "query.h"
#include "ranks.h"
#include "search.h"
#include "search_int.h"
#include "storage.h"
#include "tokenize.h"
#include "util.h"

#define PRUNE_MAX_TERMS 32     /* words of a query pruning takes */
#define PRUNE_MARGIN    1e-9   /* a bound's slack for rounding (relative and absolute) */

/* One word's cursor: the record of its current site read last. */
struct pterm {
	struct leaf *l;
	struct storage_cursor *c;
	uint32_t site;             /* the cursor's site; 0 before the first */
	bool ended;                /* no sites left */
	bool site_done;            /* no records left in the site */
	uint32_t url, n;           /* the record read last (url 0: none yet) */
	const uint8_t *pos;
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

struct prune {
	struct run *r;
	struct pterm t[PRUNE_MAX_TERMS];
	size_t nt, np;             /* words; the positive ones first, rarest at 0 */
	double prox;               /* the proximity boost's bound */
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
};

/* A word with forms or anchor text is an OR of words: searched exhaustively
 * (doc/SEARCH.md, "Word forms", "Anchor text"). */
static bool term_ok(const struct run *r, const struct qnode *n)
{
	return n->type == Q_TERM && r->leaves[n->id].mask == 0xf && !r->leaves[n->id].n_forms &&
	       !r->leaves[n->id].anchored;
}

bool run_prune_eligible(const struct run *r)
{
	const struct qnode *root = r->q.root;
	size_t pos = 0;

	if (!r->env->c->pruning || r->req->sort == PROTO_SORT_DATE || !run_bounds_valid(r) ||
	    r->n_phrases || r->n_leaves > PRUNE_MAX_TERMS || !root)
		return false;
	if (term_ok(r, root))
		return true;
	if (root->type != Q_AND)
		return false;
	for (size_t i = 0; i < root->n_kids; i++) {
		const struct qnode *k = root->kids[i];

		if (term_ok(r, k))
			pos++;
		else if (k->type == Q_NOT && k->n_kids == 1 &&
			 (k->kids[0]->type == Q_SITE || term_ok(r, k->kids[0])))
			continue;
		else if (k->type != Q_SITE)
			return false;
	}
	return pos > 0;
}

/* ---- the threshold ------------------------------------------------------------ */

static double theta(const struct prune *p)
{
	return p->nheap == p->k ? p->heap[0] : -HUGE_VAL;
}

static void heap_offer(struct prune *p, double x)
{
	size_t i;

	if (p->nheap < p->k) {
		i = p->nheap++;
		while (i > 0 && p->heap[(i - 1) / 2] > x) {
			p->heap[i] = p->heap[(i - 1) / 2];
			i = (i - 1) / 2;
		}
		p->heap[i] = x;
		return;
	}
	if (!(x > p->heap[0]))
		return;
	i = 0;
	for (;;) {
		size_t l = 2 * i + 1, m = l;

		if (l >= p->nheap)
			break;
		if (l + 1 < p->nheap && p->heap[l + 1] < p->heap[l])
			m = l + 1;
		if (p->heap[m] >= x)
			break;
		p->heap[i] = p->heap[m];
		i = m;
	}
	p->heap[i] = x;
}

/* ---- the words' cursors ------------------------------------------------------- */

static int cmp_df(const void *a, const void *b)
{
	const struct pterm *x = a, *y = b;
	return x->l->df < y->l->df ? -1 : x->l->df > y->l->df;
}

/* Look every word up and open its cursor, positive words first, rarest
 * first: 0, 1 when no document can match, -1 on damage. */
static int prune_open(struct prune *p)
{
	struct run *r = p->r;
	struct storage_word w;
	bool none = false;
	int rc;

	for (size_t pass = 0; pass < 2; pass++) {
		size_t first = p->nt;

		for (size_t i = 0; i < r->n_leaves; i++) {
			struct leaf *l = &r->leaves[i];
			struct pterm *t;

			if (l->positive != (pass == 0))
				continue;
			run_leaf_words(r, l);
			rc = storage_word(r->ix->st, l->node->word, strlen(l->node->word), &w);
			if (rc < 0)
				return -1;
			l->df = rc ? w.n_urls : 0;
			l->idf = search_idf(storage_n_docs(r->ix->st), l->df);
			t = &p->t[p->nt++];
			t->l = l;
			t->c = xmalloc(sizeof(*t->c));
			rc = l->df ? storage_postings(r->ix->st, w.word_id, t->c) : 0;
			if (rc < 0)
				return -1;
			t->ended = rc == 0;
			if (t->ended && l->positive)
				none = true;
		}
		if (pass == 0) {
			p->np = p->nt;
			qsort(p->t + first, p->nt - first, sizeof(p->t[0]), cmp_df);
		}
	}
	p->prox = run_proximity_bound(r);
	return none || p->np == 0;
}

/* Move t to site (or past it): -1 on damage. */
static int term_to_site(struct pterm *t, uint32_t site)
{
	while (!t->ended && t->site < site) {
		int rc = storage_next_site(t->c, &t->site);

		if (rc < 0)
			return -1;
		t->ended = rc == 0;
		t->site_done = false;
		t->url = 0;
	}
	return 0;
}

/* Whether t's current site has url (its record in t->n, t->pos): 1, 0, -1. */
static int term_has(struct pterm *t, uint32_t site, uint32_t url)
{
	if (t->ended || t->site != site)
		return 0;
	if (!t->site_done && t->url < url) {
		int rc = storage_skip_url(t->c, url, &t->url, &t->n, &t->pos);

		if (rc < 0)
			return -1;
		t->site_done = rc == 0;
	}
	return !t->site_done && t->url == url;
}

/* site: and -site: of the root AND, and the request's filters of sites. */
static bool site_keeps(const struct run *r, uint32_t site)
{
	const struct qnode *root = r->q.root;
	const struct proto_search *q = r->req;

	if (q->site_id && site != q->site_id)
		return false;
	if (q->n_spaces && !u32_in(r->space_sites, r->n_space_sites, site))
		return false;
	for (size_t i = 0; root->type == Q_AND && i < root->n_kids; i++) {
		const struct qnode *k = root->kids[i];
		bool keep = true;

		if (k->type == Q_NOT && k->kids[0]->type == Q_SITE) {
			k = k->kids[0];
			keep = false;
		}
		if (k->type == Q_SITE &&
		    u32_in(r->filters[k->id].sites, r->filters[k->id].n_sites, site) != keep)
			return false;
	}
	return true;
}

/* ---- one site ------------------------------------------------------------------- */

/* Document url of the driving word (record n, pos): a candidate with its
 * bound when every positive word has it, no NOT word does and the filters
 * keep it.  0 or -1. */
static int prune_doc(struct prune *p, uint32_t site, uint32_t url, uint32_t n,
		     const uint8_t *pos)
{
	struct run *r = p->r;
	const struct proto_search *q = r->req;
	struct storage_doc d;
	struct cand *c;
	double wn[4], text = p->prox, pr;
	bool in_title = true;
	int rc;

	if (!run_request_keeps(r, site, url))
		return 0;
	for (size_t i = 1; i < p->nt; i++) {
		rc = term_has(&p->t[i], site, url);
		if (rc < 0)
			return -1;
		if ((rc == 1) != (i < p->np))
			return 0;
	}
	rc = storage_doc(r->ix->st, url, &d);
	if (rc < 0)
		return -1;
	if (rc == 0 || d.site_id == 0)
		return 0;
	if (q->time_from && d.last_modified < q->time_from)
		return 0;
	if (q->time_to && (d.last_modified == 0 || d.last_modified > q->time_to))
		return 0;
	if (p->nrec + p->np > p->caprec) {
		p->caprec = 2 * (p->nrec + p->np) + 64;
		p->rec = xrealloc(p->rec, p->caprec * sizeof(*p->rec));
	}
	run_section_factors(r, d.len, wn);
	for (size_t i = 0; i < p->np; i++) {
		const uint8_t *v = i ? p->t[i].pos : pos;
		uint32_t m = i ? p->t[i].n : n;
		int lo = tok_pos_section(storage_rec_pos(v, 0)),
		    hi = tok_pos_section(storage_rec_pos(v, m - 1));

		text += run_term_bound(r, p->t[i].l->idf, m, lo, hi, wn);
		in_title &= hi == TOK_SECTION_TITLE;
		p->rec[p->nrec + i] = (struct rec){ v, m };
	}
	pr = run_pr(r, url);
	if (p->ncand == p->capcand) {
		p->capcand = p->capcand ? 2 * p->capcand : 64;
		p->cand = xrealloc(p->cand, p->capcand * sizeof(*p->cand));
	}
	c = &p->cand[p->ncand++];
	c->key = (uint64_t)site << 32 | url;
	c->ub = run_doc_bound(r, text, pr, in_title, d.len[TOK_SECTION_TITLE]);
	c->ub += fabs(c->ub) * PRUNE_MARGIN + PRUNE_MARGIN;
	if (c->ub > p->site_max)
		p->site_max = c->ub;
	c->last_modified = d.last_modified;
	c->at = p->nrec;
	c->scored = false;
	p->nrec += p->np;
	return 0;
}

/* Each positive word's postings: the one document of c. */
static void load_cand(struct prune *p, const struct cand *c)
{
	for (size_t i = 0; i < p->np; i++) {
		struct plist *pl = &p->t[i].l->pl;
		const struct rec *x = &p->rec[c->at + i];

		if (!pl->cap) {
			pl->key = xmalloc(sizeof(*pl->key));
			pl->end = xmalloc(sizeof(*pl->end));
			pl->cap = 1;
		}
		if (pl->poscap < x->n) {
			pl->poscap = x->n;
			pl->pos = xrealloc(pl->pos, pl->poscap * sizeof(*pl->pos));
		}
		for (uint32_t j = 0; j < x->n; j++)
			pl->pos[j] = storage_rec_pos(x->pos, j);
		pl->key[0] = c->key;
		pl->end[0] = x->n;
		pl->n = 1;
		pl->npos = x->n;
		p->t[i].l->cursor = 0;
	}
	p->r->work.postings += p->np;
}

static int score_cand(struct prune *p, struct cand *c)
{
	struct search_doc d;
	bool keep;

	load_cand(p, c);
	if (run_score_one(p->r, c->key, &d, &keep))
		return -1;
	c->score = keep ? d.score : -HUGE_VAL;
	c->scored = true;
	return 0;
}

/* The candidates as a max-heap by bound, popped one by one: the site's
 * candidates are taken best bound first, and usually only a few are. */
static void cand_sift(struct cand *v, size_t i, size_t n)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct cand t;

		if (l < n && v[l].ub > v[m].ub)
			m = l;
		if (l + 1 < n && v[l + 1].ub > v[m].ub)
			m = l + 1;
		if (m == i)
			return;
		t = v[i];
		v[i] = v[m];
		v[m] = t;
		i = m;
	}
}

/* Pop the best bound of v[0..*n) to v[*n - 1]; its index. */
static size_t cand_pop(struct cand *v, size_t *n)
{
	struct cand t = v[0];

	v[0] = v[--*n];
	v[*n] = t;
	cand_sift(v, 0, *n);
	return *n;
}

/* Score the candidates of one site that can reach the page, best bound
 * first (none when its best bound is below the threshold).  Grouped, the page shows a site by its best document and its
 * second: a site whose bounds are all below the threshold is out, and in a
 * site that may be in, scoring stops when two exact scores beat every bound
 * left (or the site's best is below the threshold and so is every bound
 * left).  Ungrouped, every document is an entry.  0 or -1. */
static int rank_site(struct prune *p)
{
	double th = theta(p), best = -HUGE_VAL, second = -HUGE_VAL;
	size_t scored = 0, left = p->site_max < th ? 0 : p->ncand;

	for (size_t i = left / 2; i-- > 0;)
		cand_sift(p->cand, i, left);
	while (left) {
		struct cand *c = &p->cand[cand_pop(p->cand, &left)];

		if (!p->group) {
			if (c->ub < theta(p))
				break;
		} else if ((scored >= 2 && c->ub < second) || (best < th && c->ub < th)) {
			break;
		}
		if (score_cand(p, c))
			return -1;
		scored++;
		if (!p->group) {
			heap_offer(p, c->score);
		} else if (c->score > best) {
			second = best;
			best = c->score;
		} else if (c->score > second) {
			second = c->score;
		}
	}
	if (p->group && scored)
		heap_offer(p, best);
	if (p->ndocs + p->ncand > p->capdocs) {
		size_t cap = 2 * (p->ndocs + p->ncand) + 256;

		p->docs = arena_grow(p->r->ar, p->docs, p->ndocs * sizeof(*p->docs),
				     cap * sizeof(*p->docs));
		p->capdocs = cap;
	}
	for (size_t j = 0; j < p->ncand; j++) {
		const struct cand *c = &p->cand[j];

		p->docs[p->ndocs++] = (struct search_doc){
			(uint32_t)(c->key >> 32), (uint32_t)c->key,
			c->scored ? c->score : -HUGE_VAL, c->last_modified };
	}
	return 0;
}

/* Every site of the driving word: its candidates, then their scores.  0,
 * -1 or 1 (deadline). */
static int prune_walk(struct prune *p)
{
	struct run *r = p->r;
	struct pterm *d = &p->t[0];
	size_t seen = 0;
	int rc;

	while ((rc = storage_next_site(d->c, &d->site)) == 1) {
		bool skip = !site_keeps(r, d->site);
		uint32_t url, n;
		const uint8_t *pos;

		for (size_t i = 1; i < p->nt && !skip; i++) {
			if (term_to_site(&p->t[i], d->site))
				return -1;
			/* A word whose sites are all behind: nothing matches any more. */
			if (i < p->np && p->t[i].ended)
				return 0;
			skip = i < p->np && p->t[i].site != d->site;
		}
		if (skip)
			continue;
		p->ncand = p->nrec = 0;
		p->site_max = -HUGE_VAL;
		while ((rc = storage_skip_url(d->c, 0, &url, &n, &pos)) == 1) {
			if (prune_doc(p, d->site, url, n, pos))
				return -1;
			if (++seen % 4096 == 0 && run_past_deadline(r))
				return 1;
		}
		if (rc < 0)
			return -1;
		if (rank_site(p))
			return -1;
		if (run_past_deadline(r))
			return 1;
	}
	return rc < 0 ? -1 : 0;
}

int run_prune(struct run *r, uint32_t page_size, struct search_doc **docs, size_t *n_docs)
{
	struct prune p;
	uint32_t page = r->req->page < PROTO_MAX_PAGE ? r->req->page : PROTO_MAX_PAGE;
	int rc;

	memset(&p, 0, sizeof(p));
	p.r = r;
	p.group = r->req->group;
	p.k = (size_t)(page + 1) * page_size;
	p.heap = xmalloc(p.k * sizeof(*p.heap));
	rc = prune_open(&p);
	if (rc == 0)
		rc = prune_walk(&p);
	else if (rc == 1)
		rc = 0;
	if (rc < 0)
		run_fail(r, "ER_INDEX", "The index could not be read.");
	r->work.pruned++;
	for (size_t i = 0; i < p.nt; i++)
		free(p.t[i].c);
	free(p.heap);
	free(p.cand);
	free(p.rec);
	*docs = p.docs;
	*n_docs = p.ndocs;
	return rc;
}
