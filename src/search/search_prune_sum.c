/* search_prune_sum.c - top-k pruning over the generation's site summaries
 * (doc/SEARCH.md, "Top-k pruning", "Site summaries"): a site whose
 * summaries' bound is below the threshold is passed over unvisited and only
 * counted, and the sites with the best such bounds are visited first.
 * search_sum.c reads the summaries; search_prune.c walks the sites.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search_int.h"
#include "search_prune.h"
#include "storage.h"
#include "util.h"

/* Whether the summaries can pass anything over.  Grouped, the threshold
 * stays -inf until the page has k sites: when the driving word's lists
 * are in fewer sites than that, no site is passed over, and only a site
 * with ranges before the threshold (PRUNE_BLK_EARLY blocks of the
 * longest list) uses them.  Without them a small generation's queries
 * read no list whole for summaries that bound nothing (the development
 * corpus: 4 sites, 8 % of a three-word query). */
static bool sum_may_pass(const struct prune *p)
{
	const struct pterm *d = &p->t[0];
	uint64_t sites = 0;

	if (!p->group)
		return true;
	for (size_t j = d->first; j < d->first + d->ns; j++)
		sites += p->sub[j].n_sites;
	/* The sites of the union: at most their sum, and the generation's. */
	if (p->r->ix->n_sites && sites > p->r->ix->n_sites)
		sites = p->r->ix->n_sites;
	return sites >= p->k ||
	       storage_block_site_has(p->r->ix->blocks, p->sub[p->bdrv].word_id, PRUNE_BLK_EARLY);
}

/* Whether sites may be passed over by their summaries (doc/SEARCH.md,
 * "Top-k pruning"): the driving word has 1,024 documents or more, every
 * list of every positive word has summaries or is small enough to be read
 * at the start, and no filter needs each document's docinfo or URL (time
 * limits, `ul` with URLs).  A passed-over site is counted from the driving
 * word's lists (whole) when the query is that word alone (or it twice),
 * else by a walk of its records without docinfo.  0 or -1. */
int prune_sum_open(struct prune *p)
{
	struct run *r = p->r;
	struct storage_cursor *scratch;

	p->use_sum = p->sum_whole = false;
	/* A driving word with fewer documents than get summaries is walked
	 * as fast as its sites would be bounded. */
	if (!r->ix->sums || p->t[0].cost < STORAGE_SUM_MIN_URLS || r->req->time_from ||
	    r->req->time_to || (r->ul_set && r->n_ul_urls) || !sum_may_pass(p))
		return 0;
	/* The exhaustive evaluation's cursor is free: a list is read with it. */
	scratch = r->cur;
	for (size_t j = 0; j < p->npsub; j++) {
		struct psub *s = &p->sub[j];
		int rc;

		s->sl = arena_alloc(r->ar, sizeof(*s->sl));
		rc = run_sum_list_open(r, s->word_id, s->n_urls, scratch, s->sl);
		if (rc <= 0)
			return rc;
	}
	p->use_sum = true;
	r->work.sum_queries++;
	p->val = arena_alloc(r->ar, p->nsub * sizeof(*p->val));
	p->sum_whole = p->nt == p->np && p->nf == 0;
	for (size_t i = 1; i < p->np; i++)
		p->sum_whole &= p->t[i].first == p->t[0].first;
	if (!p->sum_whole || p->t[0].ns == 1)
		return 0;
	/* The union of the driving word's lists: the longest one's
	 * documents, and those of the others it does not have. */
	p->probe = arena_calloc(r->ar, 1, sizeof(*p->probe));
	p->probe->c = arena_alloc(r->ar, sizeof(*p->probe->c));
	p->probe->sl = p->sub[p->bdrv].sl;
	p->probe->word_id = p->sub[p->bdrv].word_id;
	return storage_postings(r->ix->st, p->probe->word_id, p->probe->c) < 0 ? -1 : 0;
}

/* The bound of every document whose positive words' lists say v[] of
 * it (a site's summaries, or the blocks of a range of it), as prune_doc()
 * bounds one document: each word's tf~ at most its own list's bound or
 * StemWeight times the sum of its forms', plus AnchorWeight times the
 * most anchor occurrences; the proximity boost of every pair; each
 * phrase's by its words' least; the title boost when each word's own list
 * has a title (its length at least the longest of their shortest); pr,
 * the best PageRank score of those documents (their site's, or their
 * windows': run_sum_pr_range()).  -HUGE_VAL when a word has no list there
 * (no document matches). */
double prune_bound_of(struct prune *p, double pr, const struct subval *v)
{
	struct run *r = p->r;
	const struct search_rank_params *rp = &r->rp;
	double own[PRUNE_MAX_TERMS], text = 0, ub;
	bool in_title = true;
	uint16_t title = 0;

	for (size_t i = 0; i < p->np; i++) {
		const struct pterm *t = &p->t[i];
		double forms = 0, anchor = 0;
		uint16_t tl = STORAGE_SUM_NO_TITLE;
		bool any = false;

		own[i] = 0;
		for (size_t j = t->first; j < t->first + t->ns; j++) {
			if (!v[j].present)
				continue;
			any = true;
			if (p->sub[j].kind == SUB_OWN) {
				own[i] = v[j].tf;
				tl = v[j].title;
			} else if (p->sub[j].kind == SUB_FORM) {
				forms += v[j].tf;
			} else {
				anchor = rp->anchor_weight * v[j].max_n;
			}
		}
		if (!any)
			return -HUGE_VAL;
		text += run_sat_bound(r, t->l->idf, fmax(own[i], rp->stem_weight * forms) + anchor);
		if (tl == STORAGE_SUM_NO_TITLE)
			in_title = false;
		else if (tl > title)
			title = tl;
	}
	text += p->prox_all;
	for (size_t i = 0; i < p->nf; i++) {
		const struct pphrase *f = &p->f[i];
		double t = HUGE_VAL;

		for (size_t j = 0; j < f->k; j++)
			t = fmin(t, own[f->term[j]]);
		text += rp->phrase * run_sat_bound(r, f->ph->idf, t);
	}
	if (in_title && title < r->query_tokens)
		title = (uint16_t)r->query_tokens;
	ub = run_doc_bound(r, text, pr, in_title, title);
	return ub + fabs(ub) * PRUNE_MARGIN + PRUNE_MARGIN;
}

/* The bound of every document of site from its positive words' lists'
 * summaries into *ub (prune_bound_of()); HUGE_VAL when a list has no
 * summary of the site.  0 or -1. */
static int sum_bound(struct prune *p, uint32_t site, double *ub)
{
	struct subval *v = p->val;

	*ub = HUGE_VAL;
	for (size_t j = 0; j < p->npsub; j++) {
		struct psub *s = &p->sub[j];
		int rc = run_sum_list_site(p->r, s->sl, site, !s->ended && s->site == site);

		if (rc <= 0)
			return rc;
		v[j] = (struct subval){ s->sl->tf, s->sl->max_n, s->sl->title, true };
	}
	*ub = prune_bound_of(p, run_sum_pr(p->r, site), v);
	return 0;
}

/* The matching documents of site, counted without docinfo (every record
 * of a generation has its document's: storage_check()).  0, -1 or 1
 * (deadline). */
static int sum_count(struct prune *p, uint32_t site, uint64_t *n, size_t *seen)
{
	const struct pterm *d = p->drv;
	uint32_t url = 0;

	for (;;) {
		int rc = prune_next_doc(p, d, site, url + 1, &url);

		if (rc <= 0)
			return rc;
		p->r->work.visited++;
		rc = prune_doc_has(p, site, url);
		if (rc < 0)
			return -1;
		*n += (uint64_t)rc;
		if (++*seen % 4096 == 0 && run_past_deadline(p->r))
			return 1;
	}
}

/* Room for one more url in p->urls (nu of them). */
static void urls_room(struct prune *p, size_t nu)
{
	if (nu == p->capurls) {
		size_t old = p->capurls;

		p->capurls = old ? 2 * old : 64;
		p->urls = arena_grow(p->r->ar, p->urls, old * sizeof(*p->urls),
				     p->capurls * sizeof(*p->urls));
	}
}

/* The documents of the driving word's lists in site (sum_whole): its one
 * list's; with several, the longest one's (its summary's count) and those
 * of the others it does not have (their records read or walked, looked up
 * with the probe).  0 or -1. */
static int sum_union(struct prune *p, uint32_t site, uint64_t *n)
{
	const struct pterm *t = &p->t[0];
	size_t nu = 0;

	*n = p->sub[p->bdrv].sl->n_docs;
	for (size_t j = t->first; j < t->first + t->ns && t->ns > 1; j++) {
		struct psub *s = &p->sub[j];
		const struct sum_list *l = s->sl;

		if (j == p->bdrv)
			continue;
		for (size_t i = l->at; !l->file && i < l->nrd && l->rd[i].site == site; i++) {
			urls_room(p, nu);
			p->urls[nu++] = l->rd[i].url;
		}
		/* A list with summaries is walked: the site is passed over. */
		for (uint32_t url = 1; l->file; url = s->url + 1) {
			int rc = prune_sub_has(s, site, url);

			if (rc < 0)
				return -1;
			if (s->ended || s->site != site || s->site_done)
				break;
			urls_room(p, nu);
			p->urls[nu++] = s->url;
		}
	}
	if (!nu)
		return 0;
	qsort(p->urls, nu, sizeof(*p->urls), cmp_u32);
	if (prune_sub_to_site(p->probe, site))
		return -1;
	for (size_t i = 0; i < nu; i++) {
		int rc;

		if (i && p->urls[i] == p->urls[i - 1])
			continue;
		rc = prune_sub_has(p->probe, site, p->urls[i]);
		if (rc < 0)
			return -1;
		*n += rc == 0;
	}
	return 0;
}

/* Pass over site when its summaries' bound is below the threshold (ties
 * are visited: the url_id tie-break needs the scores), or when `ul` keeps
 * none of it, counting its matches into r->sum_urls and r->sum_sites: 1
 * when passed over, 0 when it must be visited, -1 on damage, 2 past the
 * deadline. */
int prune_sum_pass(struct prune *p, uint32_t site, size_t *seen)
{
	struct run *r = p->r;
	uint64_t n = 0;
	double ub;
	int rc;

	if (!run_request_keeps(r, site, 0))
		return 1;
	if (!(prune_theta(p) > -HUGE_VAL) || run_sum_neardups(r, site))
		return 0;
	if (sum_bound(p, site, &ub))
		return -1;
	if (!(ub < prune_theta(p)))
		return 0;
	if (p->sum_whole) {
		if (sum_union(p, site, &n))
			return -1;
	} else if (!prune_count_unit(p)) {
		/* Estimated (ExactCounts no): one passed-over unit in
		 * PRUNE_SAMPLE is counted (search_block.c). */
		prune_count_skip(p, p->sub[p->bdrv].sl->n_docs, true);
		r->work.sum_sites++;
		return 1;
	} else {
		rc = sum_count(p, site, &n, seen);
		if (rc)
			return rc < 0 ? -1 : 2;
		prune_count_add(p, p->sub[p->bdrv].sl->n_docs, n, true);
	}
	r->work.sum_sites++;
	r->sum_urls += n;
	r->sum_sites += n > 0;
	return 1;
}

/* Every list back at its first site, and its summaries. 0 or -1. */
int prune_rewind(struct prune *p)
{
	for (size_t j = 0; j <= p->nsub; j++) {
		struct psub *s = j < p->nsub ? &p->sub[j] : p->probe;
		int rc;

		if (!s)
			break;
		rc = storage_postings(p->r->ix->st, s->word_id, s->c);
		if (rc < 0)
			return -1;
		*s = (struct psub){ .c = s->c, .ended = rc == 0, .kind = s->kind,
				    .word_id = s->word_id, .n_urls = s->n_urls, .sl = s->sl };
		if (s->sl && s != p->probe)
			run_sum_list_rewind(p->r, s->sl, s->word_id);
		if (s != p->probe)
			prune_sub_skips(p, s);
	}
	if (p->use_blk)
		prune_blk_rewind(p);
	return 0;
}

static int cmp_first(const void *a, const void *b)
{
	const struct first *x = a, *y = b;

	return (x->ub < y->ub) - (x->ub > y->ub);
}

static int cmp_first_site(const void *a, const void *b)
{
	const struct first *x = a, *y = b;

	return (x->site > y->site) - (x->site < y->site);
}

/* The sites are visited best bound first, in rounds: each round takes
 * the next sites whose bound can still reach the page (not below the
 * threshold), PRUNE_FIRST per entry of the page in the first round and
 * twice as many in each next, visits them in site order (the lists'
 * cursors only move forward; a site whose bound fell below the threshold
 * meanwhile is left to the walk) and rewinds.  The threshold then rises
 * nearly as fast as the bounds allow, for a few rounds of cursors jumping
 * back (each jump is a binary search in files that the walk reads in
 * order: cache misses), and the rounds end at the first site whose bound
 * is below it: every site left is below it too, and the walk passes them
 * over.  The sites visited are p->first, in site order.  0, -1 or 1
 * (deadline). */
int prune_first(struct prune *p, size_t *seen)
{
	struct run *r = p->r;
	size_t n = 0, cap = 0, done = 0, nv = 0, round = PRUNE_FIRST * p->k;
	uint32_t site = 0;
	double ub;
	int rc;

	while ((rc = prune_walk_next(p, &site)) > 0) {
		if (!run_request_keeps(r, site, 0) || run_sum_neardups(r, site))
			continue;
		if (sum_bound(p, site, &ub))
			return -1;
		if (ub == HUGE_VAL)
			continue;
		if (n == cap) {
			size_t old = cap;

			cap = cap ? 2 * cap : 256;
			p->first = arena_grow(r->ar, p->first, old * sizeof(*p->first),
					      cap * sizeof(*p->first));
		}
		p->first[n++] = (struct first){ site, ub };
	}
	if (rc < 0 || prune_rewind(p))
		return -1;
	if (n) /* (no site: p->first is NULL, which qsort() may not take) */
		qsort(p->first, n, sizeof(*p->first), cmp_first);
	while (done < n && !(p->first[done].ub < prune_theta(p))) {
		double th = prune_theta(p);
		size_t end = done;

		while (end < n && end - done < round && !(p->first[end].ub < th))
			end++;
		qsort(p->first + done, end - done, sizeof(*p->first), cmp_first_site);
		for (size_t i = done; i < end; i++) {
			/* Below the threshold since the round began: the walk
			 * passes it over. */
			if (p->first[i].ub < prune_theta(p))
				continue;
			site = p->first[i].site - 1;
			rc = prune_walk_next(p, &site);
			if (rc <= 0 || site != p->first[i].site)
				return -1; /* it was there a moment ago */
			r->work.sites++;
			rc = prune_visit_site(p, site, seen);
			if (rc)
				return rc;
			p->first[nv++] = p->first[i];
		}
		done = end;
		round *= 2;
		if (prune_rewind(p))
			return -1;
		/* Without block summaries a site visited is read whole, and a
		 * higher threshold only passes more sites over: one round
		 * (ranges are what the threshold saves most in). */
		if (!p->use_blk)
			break;
	}
	p->nfirst = nv;
	if (nv)
		qsort(p->first, nv, sizeof(*p->first), cmp_first_site);
	return 0;
}
