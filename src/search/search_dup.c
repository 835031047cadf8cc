/* search_dup.c - near-duplicates in a query's results (doc/SEARCH.md,
 * "Near-duplicates"): of the matching documents of one near-duplicate group
 * (the generation's `neardup` file, neardup.h) the best ranked stays, the
 * others leave the list before the page is cut; a hit of a group lists the
 * group's other pages with its clones.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "log.h"
#include "neardup.h"
#include "proto.h"
#include "search.h"
#include "search_int.h"
#include "util.h"

struct dup_ent {
	uint32_t group;
	uint32_t doc;              /* index into docs */
	const struct search_doc *d;
	int sort;
};

/* By group, then best first: the order of the result page (search_select()). */
static int cmp_dup(const void *a, const void *b)
{
	const struct dup_ent *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->sort == PROTO_SORT_DATE && x->d->last_modified != y->d->last_modified)
		return x->d->last_modified > y->d->last_modified ? -1 : 1;
	if (x->d->score != y->d->score)
		return x->d->score > y->d->score ? -1 : 1;
	return x->d->url_id < y->d->url_id ? -1 : x->d->url_id > y->d->url_id;
}

size_t run_fold_neardups(struct run *r, struct search_doc *docs, size_t n)
{
	struct dup_ent *e;
	bool *drop;
	size_t k = 0, m = 0;
	uint64_t groups, members;
	unsigned bits;

	/* A generation without groups (no near-duplicates found) folds
	 * nothing: no lookup per matching document. */
	neardup_counts(r->ix->nd, &groups, &members, &bits);
	if (!groups || members < 2 || !n)
		return n;
	e = arena_alloc(r->ar, n * sizeof(*e));
	for (size_t i = 0; i < n; i++) {
		uint32_t g = neardup_group_of(r->ix->nd, docs[i].url_id);

		if (g)
			e[k++] = (struct dup_ent){ g, (uint32_t)i, &docs[i], r->req->sort };
	}
	if (k < 2)
		return n;
	qsort(e, k, sizeof(*e), cmp_dup);
	drop = arena_calloc(r->ar, n, sizeof(*drop));
	for (size_t i = 1; i < k; i++)
		if (e[i].group == e[i - 1].group)
			drop[e[i].doc] = true;
	/* In place, in the order search_select() needs (site_id, url_id). */
	for (size_t i = 0; i < n; i++)
		if (!drop[i])
			docs[m++] = docs[i];
	return m;
}

struct url_fill {
	struct proto_results *res;
	const uint32_t *hit_of;    /* for each asked url_id (ascending), its hit */
	const uint32_t *ids;
	size_t n, at;
};

static int url_cb(void *arg, uint32_t url_id, const char *url)
{
	struct url_fill *f = arg;
	struct proto_hit *h;

	/* The rows come ascending by url_id, as asked: walk along. */
	while (f->at < f->n && f->ids[f->at] < url_id)
		f->at++;
	for (; f->at < f->n && f->ids[f->at] == url_id; f->at++) {
		h = &f->res->hits[f->hit_of[f->at]];
		if (h->n_clones >= PROTO_MAX_CLONES)
			continue;
		if (!h->clones)
			h->clones = xcalloc(PROTO_MAX_CLONES, sizeof(*h->clones));
		h->clones[h->n_clones].url_id = url_id;
		h->clones[h->n_clones].url = xstrdup(url);
		h->n_clones++;
	}
	return 0;
}

struct ask {
	uint32_t url_id, hit;
};

static int cmp_ask(const void *a, const void *b)
{
	const struct ask *x = a, *y = b;

	if (x->url_id != y->url_id)
		return x->url_id < y->url_id ? -1 : 1;
	return x->hit < y->hit ? -1 : x->hit > y->hit;
}

int run_list_neardups(struct run *r)
{
	struct proto_results *res = r->res;
	struct ask *ask = NULL;
	uint32_t *ids = NULL, *hit_of = NULL, member[PROTO_MAX_CLONES + 1];
	struct url_fill f;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (!r->ix->nd || !r->env->db)
		return 0;
	for (uint32_t i = 0; i < res->n_hits; i++) {
		uint32_t g = neardup_group_of(r->ix->nd, res->hits[i].url_id);
		size_t k = neardup_members(r->ix->nd, g, member, ARRAY_SIZE(member));

		for (size_t j = 0; j < k; j++) {
			if (member[j] == res->hits[i].url_id)
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				ask = xrealloc(ask, cap * sizeof(*ask));
			}
			ask[n++] = (struct ask){ member[j], i };
		}
	}
	if (!n)
		goto out;
	qsort(ask, n, sizeof(*ask), cmp_ask);
	ids = xmalloc(n * sizeof(*ids));
	hit_of = xmalloc(n * sizeof(*hit_of));
	for (size_t j = 0; j < n; j++) {
		ids[j] = ask[j].url_id;
		hit_of[j] = ask[j].hit;
	}
	/* The hits' clone arrays are full-size (PROTO_MAX_CLONES) from here. */
	for (uint32_t i = 0; i < res->n_hits; i++)
		if (res->hits[i].clones)
			res->hits[i].clones = xrealloc(res->hits[i].clones,
						       PROTO_MAX_CLONES * sizeof(*res->hits[i].clones));
	f = (struct url_fill){ res, hit_of, ids, n, 0 };
	if (db_hit_urls(r->env->db, ids, n, url_cb, &f)) {
		r->db_failed = true;
		rc = -1;
	}
out:
	free(ask);
	free(ids);
	free(hit_of);
	return rc;
}
