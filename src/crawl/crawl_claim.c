/* crawl_claim.c - claims: which sites the rank holds and which of their URLs it takes.
 *
 * Owns the site leases of the rank (taken, supplied, handed over to an idle
 * rank, released) and the size of each claim (doc/CLUSTER.md "Site-affine",
 * "Balance"), and the claim thread that claims the held sites' refills on
 * a connection of its own (doc/CRAWL.md "Width").  The claimed URLs go to
 * job_admit() (crawl_robots.c); when to claim is the loop's (crawl.c) and
 * the analysis threads' (crawl_threads.c).
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "crawl.h"
#include "fetch.h"
#include "log.h"
#include "seen.h"
#include "util.h"
#include "crawl_int.h"

/* Claims are per site (doc/CLUSTER.md): the rank holds the lease of at
 * most max_held sites (MaxTransfers: one transfer per host, more would only
 * queue), claims SITE_BATCH URLs of a site at a time (ClaimBatchSize when
 * set; fewer when little is due, so that one rank does not take what
 * several could fetch: site_batch(), but at least SITE_MIN_SHARE) and more
 * when it has SITE_LOW left to fetch: a claim takes 2-3 ms, in which a host
 * of the corpus serves about 8 pages (with 4 it ran dry during claims). */
#define SITE_BATCH 32
#define SITE_LOW 8
#define SITE_MIN_SHARE 8
/* Sites looked at per pick at most (the rank's free places times the
 * crawling ranks, each taking its share), and how often a rank looks for
 * new sites. */
#define PICK_MAX 1024
#define PICK_EVERY 0.25
/* URLs in hand at most, whatever the width: a job is 4.4 KB (its row and a
 * URL buffer) and the fetcher keeps a request per job, so 16,384 of them
 * are some 90 MB; at 512 sites that is SITE_BATCH each. */
#define IN_HAND_MAX 16384
/* Sites claimed for in one transaction at most (claim_sites()). */
#define CLAIM_ROUND 64
/* After a claim that brought nothing: wait this long before asking again. */
#define CLAIM_IDLE_WAIT 0.5

static long claims_asked(const struct crawl *cr);

/* URLs the rank may claim now: room in hand, and what -n (alone) or the
 * coordinator's claim_limit allow. */
static long claim_room(const struct crawl *cr)
{
	/* URLs in hand at most: a batch for every site the rank may hold, up
	 * to IN_HAND_MAX whatever MaxTransfers says. */
	size_t most = cr->max_held * SITE_BATCH < IN_HAND_MAX ? cr->max_held * SITE_BATCH
							      : IN_HAND_MAX;
	/* The URLs the claim thread's round asks for are as good as in hand. */
	long room, asked = claims_asked(cr);

	/* NextDocLimit: ASPseek's URLs read from the database at a time, here
	 * the URLs a rank holds claimed at once. */
	if (cr->c->next_doc_limit > 0 && (size_t)cr->c->next_doc_limit < most)
		most = (size_t)cr->c->next_doc_limit;
	room = (long)most - (long)cr->in_hand - asked;

	if (cr->o->hooks) {
		if (cr->adv.claim_limit >= 0 &&
		    cr->adv.claim_limit - (int64_t)cr->claimed - asked < room)
			room = (long)(cr->adv.claim_limit - (int64_t)cr->claimed - asked);
	} else if (cr->o->max_docs > 0 &&
		   cr->o->max_docs - cr->docs - (long)cr->in_hand - asked < room) {
		room = cr->o->max_docs - cr->docs - (long)cr->in_hand - asked;
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

/* One claim round: URLs of several held sites in one transaction (a claim
 * costs its commit and round trips, 1-3 ms whatever its size: a rank taking
 * hundreds of sites one transaction each would spend seconds). */
struct claim_round {
	size_t n;
	struct round_site {
		unsigned site_id;
		int want, got;
	} v[CLAIM_ROUND];
};

static int cmp_round_site(const void *a, const void *b)
{
	unsigned x = ((const struct round_site *)a)->site_id;
	unsigned y = ((const struct round_site *)b)->site_id;

	return x < y ? -1 : x > y;
}

/* Sort round r by site (the order db_claim_sites_urls() wants) into ids[]
 * and want[].  Returns the URLs it asks for. */
static int round_prepare(struct claim_round *r, unsigned *ids, int *want)
{
	int total = 0;

	qsort(r->v, r->n, sizeof(r->v[0]), cmp_round_site);
	for (size_t i = 0; i < r->n; i++) {
		ids[i] = r->v[i].site_id;
		want[i] = r->v[i].want;
		total += want[i];
	}
	return total;
}

/* Count and admit the n rows claimed for round r (each site's got set). */
static void claim_admit(struct crawl *cr, const struct claim_round *r, const struct db_url *rows,
			int n)
{
	/* Counted before admission: job_admit() may finish a job at once. */
	for (size_t i = 0; i < r->n; i++) {
		struct held *h = held_find(cr, r->v[i].site_id);

		h->in_hand += (size_t)r->v[i].got;
	}
	cr->in_hand += (size_t)n;
	cr->claimed += (uint64_t)n;
	for (int i = 0; i < n; i++) {
		struct job *j = xcalloc(1, sizeof(*j));

		j->kind = JOB_PAGE;
		j->row = rows[i];
		seen_put(cr->seen, j->row.url, strlen(j->row.url), j->row.url_id);
		if (cr->at_once) {
			struct held *h = held_find(cr, j->row.site_id);

			if (h)
				h->at_once = job_params(cr->c, j)->max_docs_at_once;
		}
		job_admit(cr, j);
	}
}

/* Claim the URLs of the sites of round r (held by the rank, or about to be)
 * in one transaction, and admit them.  Each site's got is set.  Returns the
 * number of URLs claimed. */
static int claim_sites(struct crawl *cr, struct claim_round *r)
{
	unsigned ids[CLAIM_ROUND];
	int want[CLAIM_ROUND], got[CLAIM_ROUND], total, n;
	struct db_url *rows;
	double t0 = now_monotonic();

	if (!r->n)
		return 0;
	total = round_prepare(r, ids, want);
	rows = xmalloc((size_t)total * sizeof(*rows));
	n = db_claim_sites_urls(cr->db, cr->o->rank, ids, want, (int)r->n,
				cr->c->lease_time > 0 ? cr->c->lease_time : 900, rows, got);
	cr->claim_seconds += now_monotonic() - t0;
	cr->claims++;
	if (n < 0) {
		cr->failed = true;
		n = 0;
		memset(got, 0, sizeof(got));
	}
	for (size_t i = 0; i < r->n; i++)
		r->v[i].got = got[i];
	claim_admit(cr, r, rows, n);
	free(rows);
	return n;
}

/* ---- the claim thread ------------------------------------------------------------ */

/* With DBConnectionsPerRank 4 or more (and IndexThreads > 0) the rounds of
 * claims for the held sites running low (supply_held()) leave the loop: a
 * round is handed to the claim thread, which runs db_claim_sites_urls() on
 * its own connection while the loop goes on fetching and committing, and
 * wakes the loop when it is claimed (fetcher_wakeup()); the loop admits its
 * URLs (claims_collect()).  One round at a time.  Its sites are marked
 * (held.claiming): no other claim asks for them, none is released or handed
 * over meanwhile; the URLs it asks for count in claim_room().  A site runs
 * low with SITE_LOW URLs still to fetch, so the round (2-3 ms) is claimed
 * before it runs dry. */
enum claimer_state {
	CLAIMS_IDLE,                 /* no round: the loop may hand one over */
	CLAIMS_BUSY,                 /* the thread claims the round */
	CLAIMS_DONE,                 /* claimed: the loop admits it */
};

struct claimer {
	pthread_mutex_t mu;
	pthread_cond_t cv;           /* a round handed over or claimed, or quit */
	pthread_t thread;
	bool started, quit;
	enum claimer_state state;    /* under mu */
	struct db *db;
	struct fetcher *f;           /* woken when a round is claimed */
	int rank;
	long lease;
	/* The round: the loop's while IDLE or DONE, the thread's while BUSY. */
	struct claim_round r;        /* sorted by site; got set by the thread */
	struct db_url *rows;         /* its claimed rows */
	int n;                       /* db_claim_sites_urls()'s answer */
	double seconds;              /* its wall time */
	/* The loop's alone. */
	bool handed;                 /* a round is out (not collected yet) */
	long asked;                  /* the URLs it asks for */
};

static void *claim_thread(void *arg)
{
	struct claimer *cl = arg;

	pthread_setname_np(pthread_self(), "mpseek-claims");
	pthread_mutex_lock(&cl->mu);
	for (;;) {
		unsigned ids[CLAIM_ROUND];
		int want[CLAIM_ROUND], got[CLAIM_ROUND], n;
		double t0;

		while (cl->state != CLAIMS_BUSY && !cl->quit)
			pthread_cond_wait(&cl->cv, &cl->mu);
		if (cl->state != CLAIMS_BUSY)
			break;
		pthread_mutex_unlock(&cl->mu);
		for (size_t i = 0; i < cl->r.n; i++) {
			ids[i] = cl->r.v[i].site_id;
			want[i] = cl->r.v[i].want;
		}
		t0 = now_monotonic();
		n = db_claim_sites_urls(cl->db, cl->rank, ids, want, (int)cl->r.n, cl->lease,
					cl->rows, got);
		for (size_t i = 0; i < cl->r.n; i++)
			cl->r.v[i].got = n < 0 ? 0 : got[i];
		pthread_mutex_lock(&cl->mu);
		cl->n = n;
		cl->seconds = now_monotonic() - t0;
		cl->state = CLAIMS_DONE;
		pthread_cond_broadcast(&cl->cv);
		fetcher_wakeup(cl->f);
	}
	pthread_mutex_unlock(&cl->mu);
	return NULL;
}

int claimer_start(struct crawl *cr)
{
	struct claimer *cl = xcalloc(1, sizeof(*cl));
	int e;

	pthread_mutex_init(&cl->mu, NULL);
	pthread_cond_init(&cl->cv, NULL);
	cl->f = cr->f;
	cl->rank = cr->o->rank;
	cl->lease = cr->c->lease_time > 0 ? cr->c->lease_time : 900;
	cr->cl = cl;
	cl->db = crawl_db_open(cr);
	if (!cl->db)
		return -1;
	e = pthread_create(&cl->thread, NULL, claim_thread, cl);
	if (e)
		return error("cannot start the claim thread: %s", strerror(e));
	cl->started = true;
	return 0;
}

static long claims_asked(const struct crawl *cr)
{
	return cr->cl ? cr->cl->asked : 0;
}

bool claims_busy(const struct crawl *cr)
{
	return cr->cl && cr->cl->handed;
}

/* Has the claim thread claimed its round? */
static bool claims_done(const struct crawl *cr)
{
	struct claimer *cl = cr->cl;
	bool done;

	if (!cl || !cl->handed)
		return false;
	pthread_mutex_lock(&cl->mu);
	done = cl->state == CLAIMS_DONE;
	pthread_mutex_unlock(&cl->mu);
	return done;
}

/* Hand round r (not empty) over to the claim thread; r is emptied. */
static void claims_hand_over(struct crawl *cr, struct claim_round *r)
{
	struct claimer *cl = cr->cl;
	unsigned ids[CLAIM_ROUND];
	int want[CLAIM_ROUND];

	cl->asked = round_prepare(r, ids, want);
	for (size_t i = 0; i < r->n; i++)
		held_find(cr, r->v[i].site_id)->claiming = true;
	cl->r = *r;
	cl->rows = xmalloc((size_t)cl->asked * sizeof(*cl->rows));
	cl->handed = true;
	pthread_mutex_lock(&cl->mu);
	cl->state = CLAIMS_BUSY;
	pthread_cond_signal(&cl->cv);
	pthread_mutex_unlock(&cl->mu);
	r->n = 0;
}

/* Wait until the claim thread has claimed its round (it is out); the wait
 * counts as the loop's claim wait.  Returns db_claim_sites_urls()'s answer;
 * the round's sites are no longer marked. */
static int claims_wait(struct crawl *cr)
{
	struct claimer *cl = cr->cl;
	double t0 = now_monotonic();

	pthread_mutex_lock(&cl->mu);
	while (cl->state == CLAIMS_BUSY)
		pthread_cond_wait(&cl->cv, &cl->mu);
	cl->state = CLAIMS_IDLE;
	pthread_mutex_unlock(&cl->mu);
	cr->claim_seconds += now_monotonic() - t0;
	cr->claim_thread_seconds += cl->seconds;
	cr->claim_rounds++;
	cr->claims++;                /* claim transactions, the thread's with the loop's */
	for (size_t i = 0; i < cl->r.n; i++) {
		struct held *h = held_find(cr, cl->r.v[i].site_id);

		if (h)
			h->claiming = false;
	}
	cl->handed = false;
	cl->asked = 0;
	return cl->n;
}

static void supply_after(struct crawl *cr, struct claim_round *r, double now);

/* The claim thread's round, once claimed (wait: wait for it): its URLs
 * admitted, a site that got nothing released or asked again later, as
 * after a round of the loop's.  Returns the number of URLs claimed. */
static int claims_collect(struct crawl *cr, bool wait)
{
	struct claimer *cl = cr->cl;
	int n;

	if (!cl || !cl->handed || (!wait && !claims_done(cr)))
		return 0;
	n = claims_wait(cr);
	if (n < 0) {
		cr->failed = true; /* logged; every got is 0 */
		n = 0;
	}
	claim_admit(cr, &cl->r, cl->rows, n);
	free(cl->rows);
	cl->rows = NULL;
	supply_after(cr, &cl->r, now_monotonic());
	return n;
}

void claims_stop(struct crawl *cr)
{
	struct claimer *cl = cr->cl;

	if (!cl || !cl->handed)
		return;
	/* Its rows are leased to the rank like those in hand: the release
	 * after the stop gives them back with the rest. */
	if (claims_wait(cr) < 0)
		cr->failed = true; /* logged */
	else if (cl->n > 0)
		debug("rank %d: the claim thread's last round (%d URL(s)) is released unfetched",
		      cr->o->rank, cl->n);
	free(cl->rows);
	cl->rows = NULL;
}

void claimer_free(struct crawl *cr)
{
	struct claimer *cl = cr->cl;

	if (!cl)
		return;
	claims_stop(cr);
	pthread_mutex_lock(&cl->mu);
	cl->quit = true;
	pthread_cond_signal(&cl->cv);
	pthread_mutex_unlock(&cl->mu);
	if (cl->started)
		pthread_join(cl->thread, NULL);
	db_close(cl->db);
	pthread_cond_destroy(&cl->cv);
	pthread_mutex_destroy(&cl->mu);
	free(cl);
	cr->cl = NULL;
}

/* Add k URLs of site_id to round r (not full). */
static void round_add(struct claim_round *r, unsigned site_id, long k)
{
	r->v[r->n].site_id = site_id;
	r->v[r->n].want = (int)k;
	r->v[r->n].got = 0;
	r->n++;
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
	/* The claim thread takes one round at a time. */
	if (claims_busy(cr))
		return claims_done(cr);
	for (size_t i = 0; i < cr->nheld; i++) {
		const struct held *h = &cr->held[i];

		if (unfetched(h) <= SITE_LOW && h->in_hand && !h->draining && now >= h->next_try)
			return true;
	}
	return false;
}

/* Index of the held site site_id. */
static size_t held_index(const struct crawl *cr, unsigned site_id)
{
	size_t i = 0;

	while (i < cr->nheld && cr->held[i].site_id != site_id)
		i++;
	return i;
}

/* After round r of held sites was claimed: a site that got nothing is
 * released when nothing of it is in hand, else asked again after
 * CLAIM_IDLE_WAIT. */
static void supply_after(struct crawl *cr, struct claim_round *r, double now)
{
	for (size_t k = 0; k < r->n; k++) {
		size_t i = held_index(cr, r->v[k].site_id);

		if (r->v[k].got || i == cr->nheld)
			continue;
		if (!cr->held[i].in_hand)
			held_release(cr, i);
		else
			cr->held[i].next_try = now + CLAIM_IDLE_WAIT;
	}
	r->n = 0;
}

/* Claim round r for held sites, then supply_after().  Every site of r sits
 * at an index the caller has visited (releases move the last entry down).
 * thread: hand it over to the claim thread instead (0 now).  Returns the
 * number of URLs claimed. */
static int supply_round(struct crawl *cr, struct claim_round *r, double now, bool thread)
{
	int got;

	if (thread) {
		if (r->n)
			claims_hand_over(cr, r);
		return 0;
	}
	got = claim_sites(cr, r);
	supply_after(cr, r, now);
	return got;
}

/* More URLs for the held sites about to run out, one handed over when
 * other ranks are idle, the finished ones released.  *draining: a held site
 * is being handed over.  Returns the number of URLs claimed. */
static int supply_held(struct crawl *cr, bool force, double now, long batch, bool *draining)
{
	struct claim_round r = { 0 };
	/* force: the rank decides whether it is done, from claims made now
	 * (the claim thread's round was collected before). */
	bool handover, thread = cr->cl && !force, busy = claims_busy(cr);
	long room, planned = 0, k;
	int got = 0;

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
		 * for robots.txt do).  Not while the claim thread claims for
		 * it. */
		if (unfetched(h) > SITE_LOW || h->claiming)
			continue;
		if (handover) {
			h->draining = *draining = true;
			handover = false;
			debug("site %u: handed over to an idle rank once its %zu URL(s) are done",
			      h->site_id, h->in_hand);
		}
		room = claim_room(cr) - planned;
		if (h->draining || room <= 0) {
			if (!h->in_hand)
				held_release(cr, i);
			continue;
		}
		/* The claim thread takes one round at a time: the next
		 * waits for it. */
		if ((!force && now < h->next_try) || busy || (thread && r.n == CLAIM_ROUND))
			continue;
		if (r.n == CLAIM_ROUND) {
			got += supply_round(cr, &r, now, false);
			planned = 0;
			room = claim_room(cr);
			if (room <= 0)
				continue;
		}
		k = room < batch ? room : batch;
		if (h->at_once > 0 && h->at_once < k)
			k = h->at_once;
		round_add(&r, h->site_id, k);
		planned += k;
	}
	return got + supply_round(cr, &r, now, thread);
}

/* Claim round r for sites just added to the held ones: a site that got
 * nothing is dropped again (taken by another rank meanwhile: no lease is
 * ours); the others' clone tables are loaded.  Returns the number of URLs
 * claimed; *taken counts the sites kept. */
static int take_round(struct crawl *cr, struct claim_round *r, int *taken)
{
	int got = claim_sites(cr, r);

	for (size_t k = 0; k < r->n; k++) {
		size_t i = held_index(cr, r->v[k].site_id);

		if (i == cr->nheld)
			continue;
		if (!r->v[k].got) {
			if (!cr->held[i].in_hand)
				cr->held[i] = cr->held[--cr->nheld];
			continue;
		}
		/* Now that the lease is ours (what was stored before is in
		 * the database, what is stored after goes through
		 * pending_flush()). */
		if (cr->c->clones)
			origins_load(cr, &cr->held[i]);
		(*taken)++;
	}
	r->n = 0;
	return got;
}

/* New sites: a share of those free (every rank takes its share, so sites
 * spread over the ranks), at least one when the rank has none or nobody
 * waits for work.  The share counts the sites that brought URLs: one whose
 * claim comes back empty (taken by another rank since the pick, or a
 * next_due too early) leaves its place to the next site found.  Without
 * that, a site that sorts first and claims nothing at every pick took a
 * share of one site at every pick, and the due sites behind it waited for
 * ever (under --tag a site of several tags did, before the pick asked for
 * a due URL of the tag: doc/DATABASE.md, "Tags").  Returns the number of
 * URLs claimed. */
static int take_sites(struct crawl *cr, double now, long batch)
{
	int crawlers = cr->o->hooks && cr->adv.crawlers > 0 ? cr->adv.crawlers : 1;
	size_t want = (cr->max_held - cr->nheld) * (size_t)crawlers;
	unsigned *ids;
	struct claim_round r = { 0 };
	int ns, take, taken = 0, got = 0;
	double t0 = now_monotonic();
	long room, k, claimed = 0;

	ids = xmalloc((want < PICK_MAX ? want : PICK_MAX) * sizeof(*ids));
	ns = db_pick_sites(cr->db, cr->o->rank, want < PICK_MAX ? (int)want : PICK_MAX, ids);
	cr->claim_seconds += now_monotonic() - t0;
	cr->claims++;
	if (ns < 0) {
		cr->failed = true;
		free(ids);
		return 0;
	}
	take = ns / crawlers;
	if (!take && ns && (!cr->nheld || cr->adv.idle_crawlers <= 0))
		take = 1;
	for (int i = 0; i < ns && cr->nheld < cr->max_held && !cr->failed; i++) {
		struct held *h;

		/* The share is planned: claim it, and go on only for the
		 * places of the sites that brought nothing. */
		if (taken + (int)r.n >= take) {
			got += take_round(cr, &r, &taken);
			claimed = 0;
			if (taken >= take)
				break;
		}
		room = claim_room(cr) - claimed;
		if (room <= 0)
			break;
		if (held_find(cr, ids[i]))
			continue;
		if (r.n == CLAIM_ROUND) {
			got += take_round(cr, &r, &taken);
			claimed = 0;
			room = claim_room(cr);
			if (room <= 0)
				break;
		}
		h = &cr->held[cr->nheld++];
		if (cr->nheld > cr->peak_held)
			cr->peak_held = cr->nheld;
		memset(h, 0, sizeof(*h));
		h->site_id = ids[i];
		h->delay = cr->c->defaults.min_delay;
		/* MaxDocsAtOnce is per Server, known once a URL of the site is
		 * in hand: the first claim takes one. */
		k = cr->at_once ? 1 : room < batch ? room : batch;
		round_add(&r, h->site_id, k);
		claimed += k;
	}
	got += take_round(cr, &r, &taken);
	free(ids);
	cr->next_pick = now + (taken ? PICK_EVERY : CLAIM_IDLE_WAIT);
	return got;
}

/* Keep the held sites supplied, hand one over when other ranks are idle,
 * release the finished ones, and take new sites.  force: ignore the waits
 * after empty claims (the rank alone, deciding whether it is done).
 * Returns the number of URLs claimed. */
/* crawl_opts.given (-T): claim those URLs, whatever is due, without site
 * leases, and admit them; the first call takes them all (4096 at most a
 * call).  Returns the number claimed. */
static int claims_given(struct crawl *cr)
{
	size_t k = cr->o->n_given - cr->given_next;
	struct db_url *rows;
	int n;

	if (cr->leaving || cr->failed || crawl_stop_requested() || !k)
		return 0;
	if (k > 4096)
		k = 4096;
	rows = xmalloc(k * sizeof(*rows));
	n = db_claim_url_ids(cr->db, cr->o->rank, cr->o->given + cr->given_next, k,
			     cr->c->lease_time > 0 ? cr->c->lease_time : 900, rows);
	cr->given_next += k;
	if (n < 0) {
		cr->failed = true;
		n = 0;
	}
	cr->in_hand += (size_t)n;
	cr->claimed += (uint64_t)n;
	cr->claims++;
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

int claims_refill(struct crawl *cr, bool force)
{
	double now = now_monotonic();
	bool draining = false;
	long room, batch;
	int got;

	if (cr->o->given)
		return claims_given(cr);
	/* force: the rank decides whether it is done: the claim thread's
	 * round is waited for, and this pass claims in the loop. */
	got = claims_collect(cr, force);
	batch = site_batch(cr);
	got += supply_held(cr, force, now, batch, &draining);

	room = claim_room(cr);
	if (draining || cr->nheld >= cr->max_held || room <= 0 || (!force && now < cr->next_pick))
		return got;
	return got + take_sites(cr, now, batch);
}
