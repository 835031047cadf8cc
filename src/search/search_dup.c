/* search_dup.c - near-duplicates in a query's results (doc/SEARCH.md,
 * "Near-duplicates"): of the matching documents of one near-duplicate group
 * (the generation's `neardup` file, neardup.h) the best ranked stays, the
 * others leave the list before the page is cut; a hit of a group lists the
 * group's other pages with its clones (their URLs read here, kept with the
 * hit's row by search_hits.c).
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
	int (*cb)(void *arg, size_t i, uint32_t url_id, const char *url);
	void *arg;
	const uint32_t *of;        /* for each asked url_id (ascending), its document's index */
	const uint32_t *ids;
	size_t n, at;
};

static int url_cb(void *arg, uint32_t url_id, const char *url)
{
	struct url_fill *f = arg;

	/* The rows come ascending by url_id, as asked: walk along. */
	while (f->at < f->n && f->ids[f->at] < url_id)
		f->at++;
	for (; f->at < f->n && f->ids[f->at] == url_id; f->at++)
		if (f->cb(f->arg, f->of[f->at], url_id, url))
			return -1;
	return 0;
}

struct ask {
	uint32_t url_id, doc;
};

static int cmp_ask(const void *a, const void *b)
{
	const struct ask *x = a, *y = b;

	if (x->url_id != y->url_id)
		return x->url_id < y->url_id ? -1 : 1;
	return x->doc < y->doc ? -1 : x->doc > y->doc;
}

int run_neardup_urls(struct run *r, const uint32_t *url_ids, size_t n_ids,
		     int (*cb)(void *arg, size_t i, uint32_t url_id, const char *url), void *arg)
{
	struct ask *ask = NULL;
	uint32_t *ids = NULL, *of = NULL, member[PROTO_MAX_CLONES + 1];
	struct url_fill f;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (!r->ix->nd || !r->env->db)
		return 0;
	for (size_t i = 0; i < n_ids; i++) {
		uint32_t g = neardup_group_of(r->ix->nd, url_ids[i]);
		size_t k = neardup_members(r->ix->nd, g, member, ARRAY_SIZE(member));

		for (size_t j = 0; j < k; j++) {
			if (member[j] == url_ids[i])
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				ask = xrealloc(ask, cap * sizeof(*ask));
			}
			ask[n++] = (struct ask){ member[j], (uint32_t)i };
		}
	}
	if (!n)
		goto out;
	qsort(ask, n, sizeof(*ask), cmp_ask);
	ids = xmalloc(n * sizeof(*ids));
	of = xmalloc(n * sizeof(*of));
	for (size_t j = 0; j < n; j++) {
		ids[j] = ask[j].url_id;
		of[j] = ask[j].doc;
	}
	f = (struct url_fill){ cb, arg, of, ids, n, 0 };
	if (db_hit_urls(r->env->db, ids, n, url_cb, &f)) {
		r->db_failed = true;
		rc = -1;
	}
out:
	free(ask);
	free(ids);
	free(of);
	return rc;
}
