/* search_sum.c - the generation's site summaries at query time
 * (doc/SEARCH.md, "Top-k pruning"): made at open, what a site's bound
 * needs beside its summaries (each site's best PageRank, the sites that
 * have near-duplicates), and the bound of a word's tf~ in every document
 * of a site from the site's summary.  search_prune.c decides where they
 * are used.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "log.h"
#include "neardup.h"
#include "ranks.h"
#include "search_int.h"
#include "storage.h"
#include "tokenize.h"
#include "util.h"

/* The slot of site in ix->sites: its own, or the free one it would take. */
static struct site_ent *site_slot(const struct search_index *ix, uint32_t site)
{
	uint32_t h = (uint32_t)(site * 2654435761u) & ix->site_mask;

	while (ix->sites[h].site && ix->sites[h].site != site)
		h = (h + 1) & ix->site_mask;
	return &ix->sites[h];
}

/* Site's entry, added when new (the table at most half full). */
static struct site_ent *site_add(struct search_index *ix, uint32_t site)
{
	struct site_ent *e;

	if (!ix->sites || 2 * (ix->n_sites + 1) > ix->site_mask + 1) {
		struct site_ent *old = ix->sites;
		uint32_t n = old ? ix->site_mask + 1 : 0;

		ix->site_mask = n ? 2 * n - 1 : 1023;
		ix->sites = xcalloc((size_t)ix->site_mask + 1, sizeof(*ix->sites));
		for (uint32_t i = 0; i < n; i++)
			if (old[i].site)
				*site_slot(ix, old[i].site) = old[i];
		free(old);
	}
	e = site_slot(ix, site);
	if (!e->site) {
		*e = (struct site_ent){ .site = site };
		ix->n_sites++;
	}
	return e;
}

static const struct site_ent *site_find(const struct search_index *ix, uint32_t site)
{
	const struct site_ent *e;

	if (!ix->sites || !site)
		return NULL;
	e = site_slot(ix, site);
	return e->site ? e : NULL;
}

/* The windows of every site (struct search_index, win_start) and each
 * site's best PageRank (the best of its windows'): a second pass over
 * docinfo, whose documents the first counted (e->docs).  0, or -1 when
 * docinfo cannot be read. */
static int win_make(struct search_index *ix)
{
	uint32_t max = storage_max_url_id(ix->st), n = 0;

	for (uint32_t i = 0; i <= ix->site_mask && ix->sites; i++) {
		struct site_ent *e = &ix->sites[i];

		if (!e->site)
			continue;
		e->win = n;
		n += (e->docs + STORAGE_BLOCK_DOCS - 1) / STORAGE_BLOCK_DOCS;
		e->docs = 0;
	}
	ix->win_start = xmalloc(((size_t)n + 1) * sizeof(*ix->win_start));
	ix->win_pr = xmalloc(((size_t)n + 1) * sizeof(*ix->win_pr));
	for (uint32_t u = 1; u && u <= max; u++) {
		struct storage_doc d;
		struct site_ent *e;
		uint32_t w;
		double pr;
		int rc = storage_doc(ix->st, u, &d);

		if (rc < 0)
			return -1;
		if (rc == 0 || !d.site_id)
			continue;
		e = site_slot(ix, d.site_id);
		w = e->win + e->docs / STORAGE_BLOCK_DOCS;
		pr = index_pr(ix, u);
		if (e->docs++ % STORAGE_BLOCK_DOCS == 0) {
			ix->win_start[w] = u;
			ix->win_pr[w] = pr;
		} else if (pr > ix->win_pr[w]) {
			ix->win_pr[w] = pr;
		}
		if (pr > e->pr)
			e->pr = pr;
	}
	return 0;
}

int search_sums_make(struct search_index *ix)
{
	struct buf err = BUF_INIT(1024);
	const struct neardup_member *m;
	uint32_t max = storage_max_url_id(ix->st);
	size_t n;
	int rc = storage_sums_open(ix->dir, &ix->sums, &err);

	if (rc < 0)
		warning("%s (every site is visited)", buf_str(&err));
	buf_reset(&err);
	/* Blocks bound parts of a site: only beside the sites' summaries. */
	if (rc > 0 && storage_blocks_open(ix->dir, &ix->blocks, &err) < 0)
		warning("%s (every block of a visited site is read)", buf_str(&err));
	buf_reset(&err);
	/* Written with them, used by the pruned walk alone. */
	if (rc > 0 && storage_skips_open(ix->dir, &ix->skips, &err) < 0)
		warning("%s (cursors skip record by record)", buf_str(&err));
	buf_free(&err);
	if (rc <= 0)
		return 0;
	/* Each site's best PageRank and its windows' (win_make()): a site's
	 * bound takes it for every document, a range's its windows' (the
	 * ranks change without the postings: not stored).  First the sites
	 * and their documents. */
	for (uint32_t u = 1; ix->rk && u <= max; u++) {
		struct storage_doc d;

		rc = storage_doc(ix->st, u, &d);
		if (rc < 0)
			return -1;
		if (rc == 0 || !d.site_id)
			continue;
		site_add(ix, d.site_id)->docs++;
	}
	if (ix->rk && win_make(ix) < 0)
		return -1;
	/* A site with members of near-duplicate groups is always visited:
	 * folding counts a group once, and may keep any of its members. */
	n = ix->nd ? neardup_by_group(ix->nd, &m) : 0;
	for (size_t i = 0; i < n; i++) {
		struct storage_doc d;

		rc = storage_doc(ix->st, m[i].url_id, &d);
		if (rc < 0)
			return -1;
		if (rc == 0 || !d.site_id)
			continue;
		site_add(ix, d.site_id)->nd = true;
	}
	return 0;
}

void search_sums_free(struct search_index *ix)
{
	storage_sums_close(ix->sums);
	storage_blocks_close(ix->blocks);
	storage_skips_close(ix->skips);
	free(ix->sites);
	free(ix->win_start);
	free(ix->win_pr);
}

double run_sum_pr(const struct run *r, uint32_t site)
{
	const struct search_index *ix = r->ix;
	const struct site_ent *e;

	if (!ix->rk)
		return 0;
	/* A site no document of docinfo has: PageRank's largest score. */
	e = site_find(ix, site);
	return e ? e->pr : 1;
}

double run_sum_pr_range(const struct run *r, uint32_t site, uint32_t lo, uint32_t hi)
{
	const struct search_index *ix = r->ix;
	const struct site_ent *e;
	uint32_t a, b, end;
	double best = 0;

	if (!ix->rk)
		return 0;
	/* A site no document of docinfo has: PageRank's largest score. */
	e = site_find(ix, site);
	if (!e)
		return 1;
	/* The windows that may hold a url_id of [lo, hi]: from the last one
	 * that starts at lo or before (binary search) while they start at
	 * hi or before. */
	a = e->win;
	end = b = e->win + (e->docs + STORAGE_BLOCK_DOCS - 1) / STORAGE_BLOCK_DOCS;
	while (b - a > 1) {
		uint32_t m = a + (b - a) / 2;

		if (ix->win_start[m] <= lo)
			a = m;
		else
			b = m;
	}
	for (; a < end && ix->win_start[a] <= hi; a++)
		if (ix->win_pr[a] > best)
			best = ix->win_pr[a];
	return best;
}

bool run_sum_neardups(const struct run *r, uint32_t site)
{
	const struct site_ent *e = site_find(r->ix, site);

	return e && e->nd;
}

/* The body-only documents: each point's n * w_0 / norm_0(len) (the very
 * product run_tf_bound() makes of a document at that point); the others:
 * per section they span, the most occurrences times the factor of the
 * shortest section.  norm_s grows with len_s (b >= 0: run_bounds_valid()). */
double run_sum_tf(const struct run *r, const struct storage_sum *s)
{
	double t = 0, wn[4];

	for (uint32_t i = 0; i < s->n_hull; i++) {
		uint16_t len[4] = { s->hull_len[i], 0, 0, 0 };

		run_section_factors(r, len, wn);
		t = fmax(t, run_tf_bound(s->hull_n[i], 0, 0, wn));
	}
	if (s->sec_mask) {
		run_section_factors(r, s->sec_len, wn);
		for (int k = 0; k < STORAGE_SECTIONS; k++)
			if (s->sec_mask & 1u << k)
				t = fmax(t, run_tf_bound(s->sec_n[k], k, k, wn));
	}
	return t;
}

uint32_t run_sum_max_n(const struct storage_sum *s)
{
	uint32_t n = 0;

	for (int k = 0; k < STORAGE_SECTIONS; k++)
		if (s->sec_mask & 1u << k && s->sec_n[k] > n)
			n = s->sec_n[k];
	for (uint32_t i = 0; i < s->n_hull; i++)
		if (s->hull_n[i] > n)
			n = s->hull_n[i];
	return n;
}

/* ---- one posting list's summary of a site ------------------------------------ */

/* Read a small list (fewer documents than get summaries) whole: each
 * record's site, url, count and sections.  0 or -1. */
static int list_read(struct run *r, uint32_t word_id, struct storage_cursor *c, struct sum_list *l)
{
	uint32_t site, url, n;
	const uint8_t *pos;
	size_t cap = 0;
	int rc = storage_postings(r->ix->st, word_id, c);

	if (rc <= 0)
		return rc;
	while ((rc = storage_next_site(c, &site)) > 0) {
		url = 0;
		while ((rc = storage_skip_url(c, url + 1, &url, &n, &pos)) > 0) {
			struct sum_rec *x;
			int hi = tok_pos_section(storage_rec_pos(pos, n - 1));

			if (l->nrd == cap) {
				size_t old = cap;

				cap = cap ? 2 * cap : 64;
				l->rd = arena_grow(r->ar, l->rd, old * sizeof(*l->rd), cap * sizeof(*l->rd));
			}
			x = &l->rd[l->nrd++];
			x->site = site;
			x->url = url;
			x->n = n;
			x->lo = (uint8_t)tok_pos_section(storage_rec_pos(pos, 0));
			x->hi = (uint8_t)(hi < STORAGE_SECTIONS ? hi : STORAGE_SECTIONS - 1);
		}
		if (rc < 0)
			return -1;
	}
	return rc < 0 ? -1 : 0;
}

int run_sum_list_open(struct run *r, uint32_t word_id, uint32_t n_urls,
		      struct storage_cursor *scratch, struct sum_list *l)
{
	memset(l, 0, sizeof(*l));
	l->site = UINT32_MAX;
	if (storage_sum_word(r->ix->sums, word_id, &l->sc) > 0) {
		l->file = true;
		return 1;
	}
	/* Without summaries: fewer documents than get them, or spread
	 * thinner than STORAGE_SUM_PER_SITE a site (up to 4,096 read). */
	if (n_urls >= STORAGE_SUM_PER_SITE * STORAGE_SUM_MIN_URLS)
		return 0;
	return list_read(r, word_id, scratch, l) ? -1 : 1;
}

/* A read list's records of site: as a summary would say. */
static int read_site(struct run *r, struct sum_list *l, uint32_t site)
{
	/* Read in site order between rewinds: prune_first()'s rounds scan a
	 * list (fewer than 4,096 records) once a round, a few rounds. */
	while (l->at < l->nrd && l->rd[l->at].site < site)
		l->at++;
	for (size_t i = l->at; i < l->nrd && l->rd[i].site == site; i++) {
		const struct sum_rec *x = &l->rd[i];
		struct storage_doc d;
		double wn[4];
		int rc = storage_doc(r->ix->st, x->url, &d);

		if (rc < 0)
			return -1;
		if (rc == 0)
			continue; /* no match: prune_doc() drops it too */
		run_section_factors(r, d.len, wn);
		l->tf = fmax(l->tf, run_tf_bound(x->n, x->lo, x->hi, wn));
		if (x->n > l->max_n)
			l->max_n = x->n;
		if (x->hi == STORAGE_SECTIONS - 1 && d.len[x->hi] < l->title)
			l->title = d.len[x->hi];
		l->n_docs++;
	}
	return 1;
}

int run_sum_list_site(struct run *r, struct sum_list *l, uint32_t site, bool present)
{
	struct storage_sum s;

	if (l->site == site)
		return l->ok;
	l->site = site;
	l->tf = 0;
	l->max_n = l->n_docs = 0;
	l->title = STORAGE_SUM_NO_TITLE;
	l->ok = 1;
	if (!l->file)
		return l->ok = read_site(r, l, site);
	if (!present)
		return 1;
	if (storage_sum_site(&l->sc, site, &s) != 1)
		return l->ok = 0;
	l->tf = run_sum_tf(r, &s);
	l->max_n = run_sum_max_n(&s);
	l->n_docs = s.n_docs;
	l->title = s.title_len;
	return 1;
}

void run_sum_list_rewind(const struct run *r, struct sum_list *l, uint32_t word_id)
{
	l->site = UINT32_MAX;
	l->at = 0;
	if (l->file)
		storage_sum_word(r->ix->sums, word_id, &l->sc);
}
