/* search_block.c - top-k pruning inside a site by the generation's block
 * summaries (doc/SEARCH.md, "Block summaries"; doc/FORMATS.md
 * "NNw/blocksum"; the block-max index of Ding and Suel, "Faster top-k
 * document retrieval using block-max indexes", SIGIR 2011).  The blocks
 * of the driving word's longest list cut a visited site into ranges of
 * url_ids; each range is bounded from every list's blocks that overlap
 * it, as a site is from its summaries, and search_prune.c's ranking of
 * the site takes ranges and candidates together, best bound first: a
 * range is read (its documents become candidates) only when its bound
 * can still reach the page, and the ranges left are passed over and
 * counted.  Passed-over units (a range here, a site in
 * search_prune_sum.c) are counted by walking their records, or, with
 * ExactCounts no, one in PRUNE_SAMPLE is and the others' matches are
 * estimated at the rate of those counted.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "search_int.h"
#include "search_prune.h"
#include "storage.h"
#include "util.h"

/* ---- counting what is passed over ---------------------------------------------- */

/* Whether the next passed-over unit is counted (else estimated): with
 * ExactCounts no, the first PRUNE_SAMPLE_FIRST (so that a query passing
 * few units over estimates from enough of them), then one in `sample` up
 * to PRUNE_SAMPLE_MORE, then one in PRUNE_SAMPLE_LATE: the rate of a query
 * that passes thousands of ranges over is known well before its last, and
 * counting them was a quarter of the documents it read (doc/SEARCH.md,
 * "Block summaries"). */
bool prune_count_unit(struct prune *p)
{
	uint64_t u = p->units++;

	if (p->sample == 1 || u < PRUNE_SAMPLE_FIRST)
		return true;
	if (u >= PRUNE_SAMPLE_MORE)
		return (u - PRUNE_SAMPLE_MORE) % PRUNE_SAMPLE_LATE == 0;
	return u % p->sample == 0;
}

/* A unit counted: docs of the driving word's documents, hits matches;
 * site: the unit is a whole site. */
void prune_count_add(struct prune *p, uint64_t docs, uint64_t hits, bool site)
{
	struct run_est *e = &p->r->est;

	e->docs += docs;
	e->hits += hits;
	e->sites += site;
	e->sites_hit += site && hits;
}

/* A unit not counted: its matches are estimated from its docs. */
void prune_count_skip(struct prune *p, uint64_t docs, bool site)
{
	struct run_est *e = &p->r->est;

	e->est_docs += docs;
	e->est_sites += site;
}

/* ---- the lists' blocks ------------------------------------------------------- */

/* Block summaries are used when the site summaries are (prune_sum_open()),
 * the driving word's longest list has blocks and the query has no phrase
 * (a phrase's bound, its words' idf over their least tf~, passes few
 * ranges over: on 10^6 synthetic documents 18 % of "b a b"'s, for more
 * time than reading them all).  0. */
int prune_blk_open(struct prune *p)
{
	struct run *r = p->r;

	p->use_blk = false;
	p->sample = r->env->c->exact_counts ? 1 : PRUNE_SAMPLE;
	if (!p->use_sum || !r->ix->blocks || p->nf)
		return 0;
	prune_blk_rewind(p);
	p->use_blk = p->sub[p->bdrv].has_blk;
	return 0;
}

/* Every list's block cursor back before its first site. */
void prune_blk_rewind(struct prune *p)
{
	for (size_t j = 0; j < p->nsub; j++) {
		struct psub *s = &p->sub[j];

		s->has_blk = storage_block_word(p->r->ix->blocks, s->word_id, &s->bc) > 0;
		s->nb = 0;
		s->bsite = UINT32_MAX;
	}
}

/* s's blocks of site (sites asked in ascending order between rewinds). */
static void sub_blocks(struct prune *p, struct psub *s, uint32_t site)
{
	if (s->bsite == site)
		return;
	s->bsite = site;
	s->nb = s->has_blk ? storage_block_site(&s->bc, site, &s->bfirst) : 0;
	if (s->nb > s->capbv) {
		size_t old = s->capbv;

		s->capbv = 2 * s->nb;
		s->bv = arena_grow(p->r->ar, s->bv, old * sizeof(*s->bv), s->capbv * sizeof(*s->bv));
	}
	for (uint32_t i = 0; i < s->nb; i++)
		s->bv[i].tf = -1;
}

/* What block i of s's current site says: its bound made once. */
static const struct bval *blk_val(struct prune *p, struct psub *s, uint32_t i)
{
	struct bval *v = &s->bv[i];

	if (v->tf < 0) {
		struct storage_block k;

		storage_block_at(s->bfirst, i, &k);
		v->tf = run_sum_tf(p->r, &k.s);
		v->max_n = run_sum_max_n(&k.s);
		v->title = k.s.title_len;
	}
	return v;
}

/* The first of s's blocks of the current site whose last url_id is at
 * least lo: its index, s->nb when none is. */
static uint32_t blk_find(const struct psub *s, uint32_t lo)
{
	uint32_t a = 0, b = s->nb;

	while (a < b) {
		uint32_t m = a + (b - a) / 2;

		if (storage_block_max_url(s->bfirst, m) < lo)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/* What positive list j says of [lo, hi] of site into p->val[j]: from its
 * blocks that overlap it, or its summary of the site when it has no
 * blocks there.  0, 1 when it has no summary of the site (no bound), -1
 * on damage. */
static int sub_range(struct prune *p, size_t j, uint32_t site, uint32_t lo, uint32_t hi)
{
	struct psub *s = &p->sub[j];
	struct subval *v = &p->val[j];
	int rc;

	*v = (struct subval){ 0, 0, STORAGE_SUM_NO_TITLE, false };
	if (s->ended || s->site != site)
		return 0;
	sub_blocks(p, s, site);
	if (!s->nb) {
		rc = run_sum_list_site(p->r, s->sl, site, true);
		if (rc <= 0)
			return rc < 0 ? -1 : 1;
		*v = (struct subval){ s->sl->tf, s->sl->max_n, s->sl->title, true };
		return 0;
	}
	/* The ranges come in ascending order: s's blocks before this one's
	 * are before every next one's too. */
	while (s->bnext < s->nb && storage_block_max_url(s->bfirst, s->bnext) < lo)
		s->bnext++;
	for (uint32_t i = s->bnext; i < s->nb; i++) {
		const struct bval *b;

		if (storage_block_min_url(s->bfirst, i) > hi)
			break;
		b = blk_val(p, s, i);
		v->present = true;
		v->tf = b->tf > v->tf ? b->tf : v->tf;
		v->max_n = b->max_n > v->max_n ? b->max_n : v->max_n;
		v->title = b->title < v->title ? b->title : v->title;
	}
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct prange *x = a, *y = b;

	if (x->ub != y->ub)
		return (x->ub < y->ub) - (x->ub > y->ub);
	return (x->lo > y->lo) - (x->lo < y->lo);
}

/* v[0..n) in cmp_range()'s order: best bound first, then by url_id.  A
 * site's ranges are a few dozen at most but in its longest sites: an
 * insertion sort below 32 (qsort()'s calls through a pointer and its
 * merge buffer were 10 % of making them), qsort() above. */
static void sort_ranges(struct prange *v, size_t n)
{
	if (n > 32) {
		qsort(v, n, sizeof(*v), cmp_range);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		struct prange x = v[i];
		size_t k = i;

		for (; k > 0 && cmp_range(&x, &v[k - 1]) < 0; k--)
			v[k] = v[k - 1];
		v[k] = x;
	}
}

/* The ranges of site into p->rg (p->nrg), best bound first: 1, 0 when
 * the site is visited whole (the driving word's longest list has fewer
 * than two blocks there, the page has fewer than k entries yet, fewer than
 * a quarter of the ranges are below the threshold, or the site has
 * near-duplicates), -1 on damage.
 * A range where a positive word has no document is none (no match). */
int prune_blk_ranges(struct prune *p, uint32_t site)
{
	struct psub *b = &p->sub[p->bdrv];
	double th = prune_theta(p);
	size_t below = 0;

	p->nrg = 0;
	/* Ungrouped, nothing is passed over before the page has k entries:
	 * the site is read whole.  Grouped, a site's ranges below its second
	 * best score are passed over whatever the threshold: worth their
	 * cost in a long site (PRUNE_BLK_EARLY blocks of its driving list). */
	if (!p->use_blk || (!p->group && !(th > -HUGE_VAL)) || run_sum_neardups(p->r, site) ||
	    b->ended || b->site != site)
		return 0;
	sub_blocks(p, b, site);
	if (b->nb < (th > -HUGE_VAL ? 2 : PRUNE_BLK_EARLY))
		return 0;
	if (b->nb > p->caprg) {
		size_t old = p->caprg;

		p->caprg = 2 * b->nb;
		p->rg = arena_grow(p->r->ar, p->rg, old * sizeof(*p->rg), p->caprg * sizeof(*p->rg));
	}
	for (size_t j = 0; j < p->npsub; j++)
		p->sub[j].bnext = 0;
	for (uint32_t i = 0; i < b->nb; i++) {
		struct prange *g = &p->rg[p->nrg];
		bool unbound;

		/* From the first url_id of its window to the next block's:
		 * every list's records there are in blocks of those windows
		 * alone (storage.h, "block summaries"). */
		g->lo = i ? storage_block_win_lo(b->bfirst, i) : 1;
		g->hi = i + 1 < b->nb ? storage_block_win_lo(b->bfirst, i + 1) - 1 : UINT32_MAX;
		g->n_drv = storage_block_docs(b->bfirst, i);
		unbound = false;
		for (size_t j = 0; j < p->npsub && !unbound; j++) {
			int rc = sub_range(p, j, site, g->lo, g->hi);

			if (rc < 0)
				return -1;
			unbound = rc > 0;
		}
		g->ub = unbound ? HUGE_VAL :
			prune_bound_of(p, run_sum_pr_range(p->r, site, g->lo, g->hi), p->val);
		p->nrg += g->ub > -HUGE_VAL;
		below += g->ub < th;
	}
	/* A range read costs a jump of every list: when fewer than a quarter
	 * could be passed over now, the site is read whole (grouped, before
	 * the page has k entries, that is not known: ranges are used). */
	if (th > -HUGE_VAL && 4 * below < p->nrg)
		return 0;
	sort_ranges(p->rg, p->nrg);
	return 1;
}

/* ---- reading a range ---------------------------------------------------------- */

/* Every list at site before its first record of url_id lo or more: at
 * the block that has it (or at the site's first record), unless it is
 * there already (before lo, and no block starts between).  0 or -1. */
static int range_jump(struct prune *p, uint32_t site, uint32_t lo)
{
	for (size_t j = 0; j < p->nsub; j++) {
		struct psub *s = &p->sub[j];
		bool behind = !s->site_done && s->url < lo; /* the cursor is before lo */
		uint64_t off = 0;

		if (s->ended || s->site != site)
			continue;
		sub_blocks(p, s, site);
		if (s->nb) {
			uint32_t i = blk_find(s, lo);
			struct storage_block k;

			if (i == s->nb) {
				s->site_done = true; /* nothing at lo or after */
				continue;
			}
			storage_block_at(s->bfirst, i, &k);
			if (behind && k.s.min_url <= s->url)
				continue; /* in that block already */
			off = k.off;
		} else if (behind) {
			continue;
		}
		if (storage_jump(s->c, off))
			return -1;
		s->url = 0;
		s->site_done = false;
		if (s->has_sk)
			s->sknext = 0; /* its next skip entry is looked up again */
	}
	return 0;
}

/* The driving word's documents in [g->lo, g->hi] of site: each one's
 * candidate (prune_doc()), or, with count, the matches into *hits.  0, -1
 * or 1 (deadline). */
static int range_walk(struct prune *p, uint32_t site, const struct prange *g, uint64_t *hits,
		      size_t *seen)
{
	const struct pterm *d = &p->t[0];
	uint32_t url = g->lo - 1;

	if (range_jump(p, site, g->lo))
		return -1;
	for (;;) {
		int rc = prune_term_next(p, d, site, url + 1, &url);

		if (rc <= 0)
			return rc;
		if (url > g->hi)
			return 0;
		p->r->work.visited++;
		if (!hits) {
			if (p->ahead)
				prune_prefetch_next(p, d, site, url);
			rc = prune_doc(p, site, url);
		} else {
			rc = prune_doc_has(p, site, url);
			*hits += (uint64_t)(rc > 0);
		}
		if (rc < 0)
			return -1;
		if (++*seen % 4096 == 0 && run_past_deadline(p->r))
			return 1;
		if (url == UINT32_MAX)
			return 0;
	}
}

int prune_blk_expand(struct prune *p, uint32_t site, const struct prange *g, size_t *seen)
{
	p->r->work.blocks++;
	return range_walk(p, site, g, NULL, seen);
}

/* Room for the site's entry in r->est.x; the entry. */
static struct run_est_site *est_site(struct run *r, uint32_t site, bool listed)
{
	struct run_est *e = &r->est;

	if (e->nx == e->capx) {
		size_t old = e->capx;

		e->capx = old ? 2 * old : 64;
		e->x = arena_grow(r->ar, e->x, old * sizeof(*e->x), e->capx * sizeof(*e->x));
	}
	e->x[e->nx] = (struct run_est_site){ site, listed, 0, 0 };
	return &e->x[e->nx++];
}

/* The n ranges g[] of site passed over (listed: the site has documents in
 * the walk's list): counted, or one in p->sample counted and the others
 * estimated.  0, -1 or 1 (deadline). */
int prune_blk_pass(struct prune *p, uint32_t site, const struct prange *g, size_t n, bool listed,
		   size_t *seen)
{
	struct run *r = p->r;
	struct run_est_site *x;

	if (!n)
		return 0;
	x = est_site(r, site, listed);
	for (size_t i = 0; i < n; i++) {
		uint64_t hits = 0;
		int rc;

		r->work.sum_blocks++;
		/* One word of one list: each of its documents matches. */
		if (p->sum_whole && p->t[0].ns == 1) {
			x->hits += g[i].n_drv;
			continue;
		}
		if (!prune_count_unit(p)) {
			prune_count_skip(p, g[i].n_drv, false);
			x->est_docs += g[i].n_drv;
			continue;
		}
		rc = range_walk(p, site, &g[i], &hits, seen);
		if (rc)
			return rc;
		prune_count_add(p, g[i].n_drv, hits, false);
		x->hits += (uint32_t)hits;
	}
	return 0;
}
