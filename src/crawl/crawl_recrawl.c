/* crawl_recrawl.c - recrawl by value in the crawl loop (doc/CRAWL.md,
 * "Recrawl by value"): which outcomes are fetches of a page of a Server
 * with RecrawlMode value, their fetch histories read and written around
 * each stored batch, their next_index_time from the crawl value, the
 * crawl's multiplier λ_0 held at MaxFetchRate and each host's λ_i at the
 * rate its politeness delay and its last Retry-After allow.  The arithmetic is
 * recrawl.c's, the rows db_recrawl.c's; the claims are untouched: they take
 * due URLs by next_index_time, which is the order of value.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conf.h"
#include "db.h"
#include "fetch.h"
#include "log.h"
#include "recrawl.h"
#include "util.h"
#include "crawl_int.h"

/* A host's limit, found by site_id in an open-addressing table. */
struct rv_site {
	unsigned site_id;            /* 0: an empty slot */
	struct recrawl_limit k;
	double retry;                /* its last Retry-After, seconds (0: none) */
	long retry_at;               /* when it came, unix time */
};

/* Sites of a rank's table at most: past it, the table starts afresh (the
 * multipliers are read back from recrawl_limits). */
#define RV_SITES_MAX 65536

struct rv_state {
	struct recrawl_limit k0;     /* the crawl's limit, this rank's share */
	struct rv_site *sites;       /* nslots (a power of 2), nsites used */
	size_t nslots, nsites;
	struct db_recrawl rows[PENDING_MAX];
	size_t idx[PENDING_MAX];     /* rows[i] is the outcome v[idx[i]] */
};

static struct rv_site *site_slot(struct rv_site *t, size_t nslots, unsigned site_id)
{
	size_t i = (site_id * 2654435761u) & (nslots - 1);

	while (t[i].site_id && t[i].site_id != site_id)
		i = (i + 1) & (nslots - 1);
	return &t[i];
}

/* The limit of host site_id: its λ_i and Retry-After read back the first
 * time (the floor when none is stored: a host does not bind until its
 * backlog shows it). */
static struct rv_site *site_limit(struct crawl *cr, unsigned site_id)
{
	struct rv_state *rv = cr->rv;
	struct rv_site *s;
	double lambda = RECRAWL_LAMBDA_MIN;

	if (2 * (rv->nsites + 1) > rv->nslots) {
		bool reset = rv->nsites >= RV_SITES_MAX;
		size_t n = reset ? rv->nslots : rv->nslots ? 2 * rv->nslots : 64;
		struct rv_site *t = xcalloc(n, sizeof(*t));

		for (size_t i = 0; i < rv->nslots && !reset; i++)
			if (rv->sites[i].site_id)
				*site_slot(t, n, rv->sites[i].site_id) = rv->sites[i];
		if (reset)
			rv->nsites = 0;
		free(rv->sites);
		rv->sites = t;
		rv->nslots = n;
	}
	s = site_slot(rv->sites, rv->nslots, site_id);
	if (!s->site_id) {
		s->site_id = site_id;
		rv->nsites++;
		if (db_recrawl_lambda_get(cr->db, site_id, &lambda) < 0 || !(lambda > 0))
			lambda = RECRAWL_LAMBDA_MIN;
		s->k.lambda = lambda;
		if (db_recrawl_retry_get(cr->db, site_id, &s->retry, &s->retry_at) < 1)
			s->retry = 0;
		else if (recrawl_retry_spacing(s->retry, (double)(time(NULL) - s->retry_at)) > 0)
			info("recrawl by value: site %u: its Retry-After of %.0f s, %ld s ago,"
			     " still limits it", site_id, s->retry, (long)time(NULL) - s->retry_at);
	}
	return s;
}

int rv_open(struct crawl *cr)
{
	const struct conf *c = cr->c;
	bool any = c->defaults.recrawl_value;
	double lambda = 1;

	for (size_t i = 0; i < c->n_servers && !any; i++)
		any = c->servers[i].p.recrawl_value;
	if (!any)
		return 0;
	if (cr->o->rv_keep && *cr->o->rv_keep) {
		/* The last round's multipliers and epochs go on. */
		cr->rv = *cr->o->rv_keep;
		*cr->o->rv_keep = NULL;
		return 0;
	}
	cr->rv = xcalloc(1, sizeof(*cr->rv));
	if (db_recrawl_lambda_get(cr->db, 0, &lambda) < 0)
		return -1;
	cr->rv->k0.lambda = lambda > 0 ? lambda : 1;
	info("recrawl by value: lambda_0 %.4g, MaxFetchRate %g pages/s", cr->rv->k0.lambda,
	     c->max_fetch_rate);
	return 0;
}

void crawl_rv_free(struct rv_state *rv)
{
	if (rv)
		free(rv->sites);
	free(rv);
}

void rv_close(struct crawl *cr)
{
	if (cr->o->rv_keep && !*cr->o->rv_keep)
		*cr->o->rv_keep = cr->rv;
	else
		crawl_rv_free(cr->rv);
	cr->rv = NULL;
}

void rv_note(struct pending *p, struct job *j, const struct fetch_result *r, bool changed)
{
	const struct conf_server_params *sp = j->p;
	long now = (long)time(NULL);

	if (!sp || !sp->recrawl_value)
		return;
	p->rv.sp = sp;
	p->rv.hint = r ? r->fresh_for : -1;
	/* An interval compares two copies: the last outcome must have been
	 * the page itself (200; a 304 keeps 200). */
	if (j->row.status == 200 && j->row.crc[0] && j->row.last_index_time > 0 &&
	    now > j->row.last_index_time) {
		p->rv.kind = changed ? RV_CHANGED : RV_SAME;
		p->rv.interval = now - j->row.last_index_time;
	} else {
		p->rv.kind = RV_FIRST;
	}
}

/* The page's value: PageValue, else its PageRank (1 for the mean ranked
 * page), else 1. */
static double page_omega(const struct crawl *cr, const struct pending *p)
{
	double w = 0;

	if (p->rv.sp->page_value > 0)
		return p->rv.sp->page_value;
	if (cr->o->page_value)
		w = cr->o->page_value(cr->o->page_value_arg, p->d.url_id);
	return w > 0 ? w : 1;
}

/* The politeness delay the rank owes site_id: MinDelay raised by
 * Crawl-delay, as the fetcher spaces its requests. */
static double site_delay(struct crawl *cr, unsigned site_id, const struct conf_server_params *sp)
{
	struct held *h = held_find(cr, site_id);

	return h ? h->delay : sp->min_delay;
}

/* λ_i of the host of outcome p: its rate k_i is 1/(the politeness delay or
 * the spacing its last Retry-After still asks for); none when both are 0.
 * The backlog is the site's due URLs. */
static struct recrawl_limit *site_tick(struct crawl *cr, const struct pending *p)
{
	struct rv_site *s = site_limit(cr, p->site_id);
	struct recrawl_limit *k = &s->k;
	double now = (double)time(NULL);
	long due;

	k->limit = recrawl_host_limit(site_delay(cr, p->site_id, p->rv.sp), s->retry,
				      now - (double)s->retry_at);
	k->fetched++;
	if (k->epoch_end && now < k->epoch_end)
		return k;
	due = db_site_due(cr->db, p->site_id, 100000);
	if (due >= 0 && recrawl_limit_tick(k, now, due) &&
	    db_recrawl_lambda_put(cr->db, p->site_id, k->lambda))
		warning("recrawl by value: lambda of site %u not stored", p->site_id);
	return k;
}

void rv_refused(struct crawl *cr, struct job *j, const struct conf_server_params *sp,
		long retry_after)
{
	struct rv_site *s;
	long now = (long)time(NULL), due;
	double left;

	if (!cr->rv || !sp || !sp->recrawl_value || retry_after <= 0)
		return;
	s = site_limit(cr, j->row.site_id);
	/* A Retry-After shorter than what the last one still asks for does not
	 * shorten it: the host may have said so under a lighter load. */
	left = recrawl_retry_spacing(s->retry, (double)(now - s->retry_at));
	if ((double)retry_after > left) {
		s->retry = (double)retry_after;
		s->retry_at = now;
		if (db_recrawl_retry_put(cr->db, j->row.site_id, s->retry, s->retry_at))
			warning("recrawl by value: the Retry-After of site %u not stored",
				j->row.site_id);
	}
	s->k.limit = recrawl_host_limit(site_delay(cr, j->row.site_id, sp), s->retry,
					(double)(now - s->retry_at));
	due = db_site_due(cr->db, j->row.site_id, 100000);
	if (recrawl_limit_refused(&s->k, (double)now, due > 0 ? due : 0) &&
	    db_recrawl_lambda_put(cr->db, j->row.site_id, s->k.lambda))
		warning("recrawl by value: lambda of site %u not stored", j->row.site_id);
	info("recrawl by value: site %u: Retry-After %ld s: its rate limit is %.3g pages/s,"
	     " lambda %.4g", j->row.site_id, retry_after, s->k.limit, s->k.lambda);
}

/* λ_0: this rank's share of MaxFetchRate against its fetches and the due
 * backlog (the crawl's, shared out as the rate is). */
static void rv_tick(struct crawl *cr)
{
	struct rv_state *rv = cr->rv;
	int crawlers = cr->o->hooks && cr->adv.crawlers > 1 ? cr->adv.crawlers : 1;
	double now = (double)time(NULL);
	struct db_queue q;

	rv->k0.limit = cr->c->max_fetch_rate / crawlers;
	if (rv->k0.epoch_end && now < rv->k0.epoch_end)
		return;
	if (db_queue_state(cr->db, &q))
		return;
	if (recrawl_limit_tick(&rv->k0, now, (long)(q.due / crawlers)) &&
	    db_recrawl_lambda_put(cr->db, 0, rv->k0.lambda))
		warning("recrawl by value: lambda_0 not stored");
}

int rv_batch(struct crawl *cr, struct pending *v, size_t n)
{
	struct rv_state *rv = cr->rv;
	long now = (long)time(NULL);
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (v[i].rv.kind != RV_NONE) {
			rv->idx[m] = i;
			rv->rows[m++].url_id = v[i].d.url_id;
		}
	if (!m)
		return 0;
	if (db_recrawl_get(cr->db, rv->rows, m))
		return error("recrawl by value: histories not read: this batch by Period");
	for (size_t k = 0; k < m; k++) {
		struct db_recrawl *row = &rv->rows[k];
		struct pending *p = &v[rv->idx[k]];
		const struct conf_server_params *sp = p->rv.sp;
		struct recrawl_hist h = { row->fetches, row->changes, row->unchanged_secs, { 0 } };
		double period = (double)(sp->period > 0 ? sp->period : 7 * 86400), tau, lambda;

		recrawl_hist_unpack(&h, row->hist, row->hist_len);
		if (p->rv.kind != RV_FIRST)
			recrawl_observe(&h, (double)p->rv.interval, p->rv.kind == RV_CHANGED);
		row->omega = page_omega(cr, p);
		row->delta = recrawl_delta(&h, 1.0 / (sp->min_period > 1 ? sp->min_period : 1), 0.5);
		lambda = rv->k0.lambda + site_tick(cr, p)->lambda;
		tau = recrawl_delay(&h, row->omega, lambda, (double)sp->min_period, period,
				    p->rv.hint >= 0 ? (double)(p->rv.hint > 0 ? p->rv.hint : 1) : 0);
		p->d.next_index_time = now + (long)ceil(tau);
		row->fetches = h.fetches;
		row->changes = h.changes;
		row->unchanged_secs = h.unchanged;
		recrawl_hist_pack(&h, row->hist);
		row->hist_len = RECRAWL_BLOB_LEN;
		rv->k0.fetched++;
	}
	if (db_recrawl_put(cr->db, rv->rows, m))
		warning("recrawl by value: %zu histories not stored", m);
	rv_tick(cr);
	return 0;
}
