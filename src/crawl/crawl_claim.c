/* crawl_claim.c - claims: which sites the rank holds and which of their URLs it takes.
 *
 * Owns the site leases of the rank (taken, supplied, handed over to an idle
 * rank, released) and the size of each claim (doc/CLUSTER.md "Site-affine",
 * "Balance").  The claimed URLs go to job_admit() (crawl_robots.c); when to
 * claim is the loop's (crawl.c) and the analysis threads' (crawl_threads.c).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "crawl.h"
#include "log.h"
#include "seen.h"
#include "util.h"
#include "crawl_int.h"

/* Claims are per site (doc/CLUSTER.md): the rank holds the lease of at
 * most MAX_HELD sites (one transfer per host: more would only queue), claims
 * SITE_BATCH URLs of a site at a time (ClaimBatchSize when set; fewer when
 * little is due, so that one rank does not take what several could fetch:
 * site_batch(), but at least SITE_MIN_SHARE) and more when it has SITE_LOW
 * left to fetch: a claim takes 2-3 ms, in which a host of the corpus serves
 * about 8 pages (with 4 it ran dry during claims). */
#define SITE_BATCH 32
#define SITE_LOW 8
#define SITE_MIN_SHARE 8
/* Sites looked at per pick, and how often a rank looks for new sites. */
#define PICK_MAX 64
#define PICK_EVERY 0.25
/* After a claim that brought nothing: wait this long before asking again. */
#define CLAIM_IDLE_WAIT 0.5
/* URLs in hand at most (all held sites together). */
#define MAX_IN_HAND (MAX_HELD * SITE_BATCH)

/* URLs the rank may claim now: room in hand, and what -n (alone) or the
 * coordinator's claim_limit allow. */
static long claim_room(const struct crawl *cr)
{
	long room = MAX_IN_HAND - (long)cr->in_hand;

	if (cr->o->hooks) {
		if (cr->adv.claim_limit >= 0 && cr->adv.claim_limit - (int64_t)cr->claimed < room)
			room = (long)(cr->adv.claim_limit - (int64_t)cr->claimed);
	} else if (cr->o->max_docs > 0 && cr->o->max_docs - cr->docs - (long)cr->in_hand < room) {
		room = cr->o->max_docs - cr->docs - (long)cr->in_hand;
	}
	return room;
}

/* URLs of one site per claim: ClaimBatchSize, or the URLs due in the job
 * divided by the crawling ranks, so that while little is due one rank's
 * claims leave work for the others (doc/CLUSTER.md "Balance", doc/CRAWL.md
 * "One URL, start to end"), within [SITE_MIN_SHARE, SITE_BATCH].  A lone
 * crawler shares with nobody: it takes SITE_BATCH (the due count it was
 * told is a tick old, and small while the frontier grows: claims of 8 left
 * its hosts idle between claims). */
static long site_batch(const struct crawl *cr)
{
	long b = SITE_BATCH;

	if (cr->c->claim_batch > 0)
		return cr->c->claim_batch;
	if (cr->adv.due >= 0 && cr->adv.crawlers > 1) {
		int64_t share = (cr->adv.due + cr->adv.crawlers - 1) / cr->adv.crawlers;

		b = share < SITE_MIN_SHARE ? SITE_MIN_SHARE : share > SITE_BATCH ? SITE_BATCH : (long)share;
	}
	return b;
}

/* Claim up to k URLs of held site h and admit them.  Returns the number. */
static int claim_site(struct crawl *cr, struct held *h, long k)
{
	struct db_url *rows = xmalloc((size_t)k * sizeof(*rows));
	unsigned site_id = h->site_id;
	double t0 = now_monotonic();
	int n;

	n = db_claim_site_urls(cr->db, cr->o->rank, site_id, (int)k,
			       cr->c->lease_time > 0 ? cr->c->lease_time : 900, rows);
	cr->claim_seconds += now_monotonic() - t0;
	cr->claims++;
	if (n < 0) {
		cr->failed = true;
		n = 0;
	}
	/* Counted before admission: job_admit() may finish a job at once. */
	h->in_hand += (size_t)n;
	cr->in_hand += (size_t)n;
	cr->claimed += (uint64_t)n;
	for (int i = 0; i < n; i++) {
		struct job *j = xcalloc(1, sizeof(*j));

		j->kind = JOB_PAGE;
		j->row = rows[i];
		seen_put(cr->seen, j->row.url, strlen(j->row.url), j->row.url_id);
		job_admit(cr, j);
	}
	free(rows);
	return n;
}

/* Give back the lease of held[i] (nothing of it in hand). */
static void held_release(struct crawl *cr, size_t i)
{
	struct held *h = &cr->held[i];

	debug("site %u released (delay %.2f s)", h->site_id, h->delay);
	if (db_release_site_after(cr->db, cr->o->rank, h->site_id, h->delay))
		cr->failed = true;
	/* Another rank may take the site and store pages: loaded again when
	 * the rank takes it back. */
	held_origins_free(cr, h);
	cr->held[i] = cr->held[--cr->nheld];
}

/* URLs of held site h not fetched yet: with the fetcher, or waiting for
 * the site's robots.txt. */
static size_t unfetched(const struct held *h)
{
	return h->in_hand > h->delivered ? h->in_hand - h->delivered : 0;
}

/* Is a held site about to run out of pages for the fetcher while it may
 * claim more?  (claims_refill() claims for it.) */
bool claims_refill_due(const struct crawl *cr)
{
	double now = now_monotonic();

	if (cr->leaving || cr->failed || crawl_stop_requested() || cr->adv.cmd == CRAWL_STOP)
		return false;
	for (size_t i = 0; i < cr->nheld; i++) {
		const struct held *h = &cr->held[i];

		if (unfetched(h) <= SITE_LOW && h->in_hand && !h->draining && now >= h->next_try)
			return true;
	}
	return false;
}

/* More URLs for the held sites about to run out, one handed over when
 * other ranks are idle, the finished ones released.  *draining: a held site
 * is being handed over.  Returns the number of URLs claimed. */
static int supply_held(struct crawl *cr, bool force, double now, long batch, bool *draining)
{
	bool handover;
	long room;
	int got = 0, n;

	for (size_t i = 0; i < cr->nheld; i++)
		*draining |= cr->held[i].draining;
	/* Other ranks have no work: let one site go (the rank keeps at least
	 * one), rather than crawl two sites while a rank idles. */
	handover = !*draining && cr->adv.idle_crawlers > 0 && cr->nheld > 1;
	for (size_t i = cr->nheld; i-- > 0;) {
		struct held *h = &cr->held[i];

		/* More when the fetcher is about to run out of the site's
		 * pages, not when they are all finished: those in analysis
		 * and being committed need no more fetching (pages waiting
		 * for robots.txt do). */
		if (unfetched(h) > SITE_LOW)
			continue;
		if (handover) {
			h->draining = *draining = true;
			handover = false;
			debug("site %u: handed over to an idle rank once its %zu URL(s) are done",
			      h->site_id, h->in_hand);
		}
		room = claim_room(cr);
		if (h->draining || room <= 0) {
			if (!h->in_hand)
				held_release(cr, i);
			continue;
		}
		if (!force && now < h->next_try)
			continue;
		n = claim_site(cr, h, room < batch ? room : batch);
		got += n;
		if (n)
			continue;
		if (!h->in_hand)
			held_release(cr, i);
		else
			h->next_try = now + CLAIM_IDLE_WAIT;
	}
	return got;
}

/* New sites: a share of those free (every rank takes its share, so sites
 * spread over the ranks), at least one when the rank has none or nobody
 * waits for work.  Returns the number of URLs claimed. */
static int take_sites(struct crawl *cr, double now, long batch)
{
	unsigned ids[PICK_MAX];
	int crawlers = cr->o->hooks && cr->adv.crawlers > 0 ? cr->adv.crawlers : 1;
	int ns, take, taken = 0, got = 0, n;
	double t0 = now_monotonic();
	long room;

	ns = db_pick_sites(cr->db, cr->o->rank, PICK_MAX, ids);
	cr->claim_seconds += now_monotonic() - t0;
	cr->claims++;
	if (ns < 0) {
		cr->failed = true;
		return 0;
	}
	take = ns / crawlers;
	if (!take && ns && (!cr->nheld || cr->adv.idle_crawlers <= 0))
		take = 1;
	for (int i = 0; i < ns && taken < take && cr->nheld < MAX_HELD; i++) {
		struct held *h;

		room = claim_room(cr);
		if (room <= 0)
			break;
		if (held_find(cr, ids[i]))
			continue;
		h = &cr->held[cr->nheld++];
		memset(h, 0, sizeof(*h));
		h->site_id = ids[i];
		h->delay = cr->c->defaults.min_delay;
		n = claim_site(cr, h, room < batch ? room : batch);
		if (!n) {
			/* Taken by another rank meanwhile: no lease is ours. */
			if (!h->in_hand)
				cr->nheld--;
			continue;
		}
		/* Now that the lease is ours (what was stored before is in
		 * the database, what is stored after goes through
		 * pending_flush()). */
		if (cr->c->clones)
			origins_load(cr, h);
		got += n;
		taken++;
	}
	cr->next_pick = now + (taken ? PICK_EVERY : CLAIM_IDLE_WAIT);
	return got;
}

/* Keep the held sites supplied, hand one over when other ranks are idle,
 * release the finished ones, and take new sites.  force: ignore the waits
 * after empty claims (the rank alone, deciding whether it is done).
 * Returns the number of URLs claimed. */
int claims_refill(struct crawl *cr, bool force)
{
	double now = now_monotonic();
	bool draining = false;
	long room, batch = site_batch(cr);
	int got = supply_held(cr, force, now, batch, &draining);

	room = claim_room(cr);
	if (draining || cr->nheld >= MAX_HELD || room <= 0 || (!force && now < cr->next_pick))
		return got;
	return got + take_sites(cr, now, batch);
}
