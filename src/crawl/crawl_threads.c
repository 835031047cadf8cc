/* crawl_threads.c - the analysis threads: page bodies analysed off the loop thread.
 *
 * Owns the slots that results wait in, the threads that run analyse_page()
 * on them, the link thread that inserts their new links, and the order of
 * their commits (per site, in arrival order).
 * Not the analysis (crawl_analyse.c) nor the commit (crawl_commit.c); the
 * store thread is crawl_store.c's.
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "fetch.h"
#include "log.h"
#include "util.h"
#include "crawl_int.h"

/* With IndexThreads N > 0 the crawl loop stays the only user of the fetcher,
 * the database, the delta log, the seen-set and the pending batch; N threads
 * run analyse_page() on the bodies.  Every result of the fetcher takes a
 * free slot, numbered in the order it arrived, and each site's slots are
 * committed in that order (slot_committable()), so the outcome of a site's
 * crawl is the one of the inline crawl (IndexThreads 0) whatever the
 * threads' timing.  At most PIPE_SLOTS_PER_THREAD * N results wait: 8, not
 * 4, so that while one thread is on a 1 MB index page (tens of ms) the
 * others find pages to analyse and the loop keeps taking results (16 gave
 * nothing more, doc/PERFORMANCE.md). */
#define PIPE_SLOTS_PER_THREAD 8
/* With a link thread, slots more: the results that arrive while a batch's
 * links are inserted wait in them (about pages/s times the round trip;
 * 2,000/s x 20 ms = 40), so that the loop is not held by a full pipeline. */
#define PIPE_LINK_SLOTS 96

enum slot_state {
	SLOT_FREE,                   /* unused */
	SLOT_QUEUED,                 /* waiting for an analysis thread */
	SLOT_WORKING,                /* being analysed */
	SLOT_READY,                  /* ready to commit */
	SLOT_COMMITTING,             /* being committed by the loop */
	SLOT_LINKS,                  /* ready, its links with the link thread */
};

/* The link thread's state (DBConnectionsPerRank 3 or more). */
enum link_state {
	LINKS_IDLE,                  /* no batch: the loop may hand one over */
	LINKS_BUSY,                  /* lk_ls being inserted */
	LINKS_DONE,                  /* inserted: the loop applies it and commits */
};

struct slot {
	enum slot_state state;
	uint64_t seq;                /* arrival order */
	uintptr_t lane;              /* its site (job.site): committed in order per lane */
	struct fetch_result r;       /* a copy: its strings and body are the slot's */
	bool analyse;                /* r has a body for analyse_page() */
	struct analysis a;
};

struct pipeline {
	pthread_mutex_t mu;
	pthread_cond_t work;         /* a slot was queued, or quit */
	pthread_cond_t ready;        /* a slot became ready */
	pthread_t *threads;
	size_t nthreads;
	struct slot *slots;          /* nslots, nused not SLOT_FREE */
	size_t nslots, nused;
	/* pipeline_commit()'s batch, nslots each: the loop thread's alone */
	struct slot **batch;
	struct job **batch_jobs;
	const struct analysis **batch_an;
	uint64_t next_seq;
	bool quit;
	/* The link thread: db_add_links() of one batch's new links on its own
	 * connection while the loop goes on fetching (pipeline_commit()). */
	struct db *lk_db;            /* NULL: no link thread */
	pthread_t lk_thread;
	bool lk_started;
	pthread_cond_t lk_work;      /* a batch was handed over, or quit */
	enum link_state lk_state;
	struct linkset lk_ls;        /* its URLs borrowed from the SLOT_LINKS slots */
	struct slot **lk_slots;      /* those slots, in arrival order */
	struct slot **lk_done;       /* links_finish()'s copy of them */
	size_t lk_n;
	long lk_added;               /* db_add_links()'s answer */
	double lk_seconds;           /* its wall time */
	/* read-only for the threads */
	const struct conf *c;
	const struct tokenizer *tok;
	bool force;
	struct fetcher *f;
};

/* Keep result r past its callback: copy its strings, take its body. */
static void result_keep(struct fetch_result *dst, struct fetch_result *r)
{
	*dst = *r;
	dst->url = xstrdup_or_null(r->url);
	dst->host_key = xstrdup_or_null(r->host_key);
	dst->reason = xstrdup_or_null(r->reason);
	dst->content_type = xstrdup_or_null(r->content_type);
	dst->last_modified = xstrdup_or_null(r->last_modified);
	dst->etag = xstrdup_or_null(r->etag);
	dst->location = xstrdup_or_null(r->location);
	dst->content_encoding = xstrdup_or_null(r->content_encoding);
	/* The body moves: the fetcher frees an empty buffer. */
	buf_init(&r->body, r->body.max);
}

static void result_drop(struct fetch_result *r)
{
	free((char *)r->url);
	free((char *)r->host_key);
	free((char *)r->reason);
	free((char *)r->content_type);
	free((char *)r->last_modified);
	free((char *)r->etag);
	free((char *)r->location);
	free((char *)r->content_encoding);
	buf_free(&r->body);
	memset(r, 0, sizeof(*r));
}

/* May ready slot s be committed: no slot of its site came before it?  (Its
 * site's pages are committed in the order they arrived, so that the outcome
 * is that of IndexThreads 0; the sites' orders interleave as the threads'
 * timing has it, as the hosts' transfers always did.)  pl->mu held. */
static bool slot_committable(const struct pipeline *pl, const struct slot *s)
{
	for (size_t i = 0; i < pl->nslots; i++) {
		const struct slot *x = &pl->slots[i];

		if (x->state != SLOT_FREE && x->lane == s->lane && x->seq < s->seq)
			return false;
	}
	return true;
}

static void *analysis_thread(void *arg)
{
	struct pipeline *pl = arg;
	struct analyser an;

	pthread_setname_np(pthread_self(), "mpseek-analyse"); /* for top and perf */
	analyser_init(&an);
	pthread_mutex_lock(&pl->mu);
	for (;;) {
		struct slot *s = NULL;
		bool wake;

		/* The oldest page waiting: the loop commits in arrival order
		 * per site. */
		for (size_t i = 0; i < pl->nslots; i++) {
			struct slot *x = &pl->slots[i];

			if (x->state == SLOT_QUEUED && (!s || x->seq < s->seq))
				s = x;
		}
		if (!s) {
			if (pl->quit)
				break;
			pthread_cond_wait(&pl->work, &pl->mu);
			continue;
		}
		s->state = SLOT_WORKING;
		pthread_mutex_unlock(&pl->mu);
		analyse_page(pl->c, pl->tok, pl->force, s->r.user, &s->r, &s->a, &an);
		pthread_mutex_lock(&pl->mu);
		s->state = SLOT_READY;
		/* The loop can commit it if it is its site's oldest: wake it
		 * for that. */
		wake = slot_committable(pl, s);
		pthread_cond_broadcast(&pl->ready);
		if (wake)
			fetcher_wakeup(pl->f);
	}
	pthread_mutex_unlock(&pl->mu);
	analyser_free(&an);
	return NULL;
}

static void *link_thread(void *arg)
{
	struct pipeline *pl = arg;

	pthread_setname_np(pthread_self(), "mpseek-links");
	pthread_mutex_lock(&pl->mu);
	for (;;) {
		double t0;
		long added;

		while (pl->lk_state != LINKS_BUSY && !pl->quit)
			pthread_cond_wait(&pl->lk_work, &pl->mu);
		if (pl->lk_state != LINKS_BUSY)
			break;
		pthread_mutex_unlock(&pl->mu);
		/* The loop does not touch lk_ls while busy. */
		t0 = now_monotonic();
		added = db_add_links(pl->lk_db, pl->lk_ls.v, pl->lk_ls.n);
		pthread_mutex_lock(&pl->mu);
		pl->lk_seconds = now_monotonic() - t0;
		pl->lk_added = added;
		pl->lk_state = LINKS_DONE;
		pthread_cond_broadcast(&pl->ready);
		fetcher_wakeup(pl->f);
	}
	pthread_mutex_unlock(&pl->mu);
	return NULL;
}

/* Start n analysis threads.  Returns NULL after logging when they cannot
 * be started. */
struct pipeline *pipeline_new(struct crawl *cr, size_t n)
{
	struct pipeline *pl = xcalloc(1, sizeof(*pl));

	pthread_mutex_init(&pl->mu, NULL);
	pthread_cond_init(&pl->work, NULL);
	pthread_cond_init(&pl->ready, NULL);
	pl->c = cr->c;
	pl->tok = cr->tok;
	pl->force = cr->o->force;
	pl->f = cr->f;
	pthread_cond_init(&pl->lk_work, NULL);
	/* A third connection: the link thread (no thread yet to stop). */
	if (cr->c->db_connections >= 3 && !(pl->lk_db = crawl_db_open(cr))) {
		pipeline_free(pl);
		return NULL;
	}
	pl->nslots = PIPE_SLOTS_PER_THREAD * n + (pl->lk_db ? PIPE_LINK_SLOTS : 0);
	pl->slots = xcalloc(pl->nslots, sizeof(*pl->slots));
	pl->batch = xcalloc(pl->nslots, sizeof(*pl->batch));
	pl->batch_jobs = xcalloc(pl->nslots, sizeof(*pl->batch_jobs));
	pl->batch_an = xcalloc(pl->nslots, sizeof(*pl->batch_an));
	pl->lk_slots = xcalloc(pl->nslots, sizeof(*pl->lk_slots));
	pl->lk_done = xcalloc(pl->nslots, sizeof(*pl->lk_done));
	for (size_t i = 0; i < pl->nslots; i++)
		analysis_init(&pl->slots[i].a);
	if (pl->lk_db) {
		int e = pthread_create(&pl->lk_thread, NULL, link_thread, pl);

		if (e) {
			error("cannot start the link thread: %s", strerror(e));
			pipeline_free(pl);
			return NULL;
		}
		pl->lk_started = true;
	}
	pl->threads = xcalloc(n, sizeof(*pl->threads));
	for (; pl->nthreads < n; pl->nthreads++) {
		int e = pthread_create(&pl->threads[pl->nthreads], NULL, analysis_thread, pl);

		if (e) {
			error("cannot start an analysis thread: %s", strerror(e));
			pipeline_free(pl);
			return NULL;
		}
	}
	return pl;
}

/* Commit the slots that are ready, each site's oldest first, until at most
 * `left` are in use; wait for analyses when more are.  left = SIZE_MAX
 * commits what is ready without waiting.  A site's page in analysis holds
 * back only that site's later pages: a 1 MB index page of one site (tens of
 * ms) no longer holds every site's links back, and with them the claims
 * that keep the other hosts busy. */
/* The slots that may be committed now (ready, and first of their site's
 * lane), in arrival order, into b[]; marked SLOT_COMMITTING.  Returns how
 * many.  Under pl->mu. */
static size_t take_committable(struct pipeline *pl, struct slot **b)
{
	size_t n = 0;

	for (size_t i = 0; i < pl->nslots; i++) {
		struct slot *x = &pl->slots[i];
		size_t k;

		if (x->state != SLOT_READY || !slot_committable(pl, x))
			continue;
		for (k = n; k > 0 && b[k - 1]->seq > x->seq; k--)
			b[k] = b[k - 1];
		b[k] = x;
		n++;
	}
	for (size_t k = 0; k < n; k++)
		b[k]->state = SLOT_COMMITTING; /* the threads never touch it */
	return n;
}

/* Commit slots b[0..n) (SLOT_COMMITTING or SLOT_LINKS, their links in the
 * seen-set) in this order, unlocked, and free them. */
static void commit_slots(struct crawl *cr, struct slot **b, size_t n)
{
	struct pipeline *pl = cr->pl;

	for (size_t k = 0; k < n; k++) {
		struct slot *s = b[k];

		result_commit(cr, &s->r, s->analyse ? &s->a : NULL);
		result_drop(&s->r);
		analysis_clear(&s->a);
		/* A commit takes database round trips: the hosts whose
		 * transfers ended meanwhile get their next requests now, and a
		 * site whose pages are (nearly) all fetched gets more now, not
		 * after every slot is committed (when all are in use this runs
		 * inside a delivery, for as long as pages keep coming). */
		if (claims_refill_due(cr))
			claims_refill(cr, false);
		fetcher_kick(cr->f);
	}
	pthread_mutex_lock(&pl->mu);
	for (size_t k = 0; k < n; k++)
		b[k]->state = SLOT_FREE;
	pl->nused -= n;
	pthread_mutex_unlock(&pl->mu);
}

static bool links_hand_over(struct crawl *cr, struct slot **b, size_t n);

/* The link thread inserted the links of its batch (LINKS_DONE): into the
 * seen-set; the next batch handed over (it sees these links); then this
 * batch's slots committed (their commits find every link in the seen-set)
 * while the thread inserts the next one's.  The next batch holds no later
 * slot of a site of this one (slot_committable()), so each site's slots
 * are still committed in arrival order. */
static void links_finish(struct crawl *cr)
{
	struct pipeline *pl = cr->pl;
	struct slot **done = pl->lk_done, **b = pl->batch;
	size_t ndone = pl->lk_n, n;

	cr->links_thread_seconds += pl->lk_seconds;
	cr->links_batches++;
	if (pl->lk_added < 0)
		cr->failed = true; /* logged; the commits try the loop's connection */
	else
		links_apply(cr, &pl->lk_ls, pl->lk_added);
	linkset_free(&pl->lk_ls);
	memcpy(done, pl->lk_slots, ndone * sizeof(*done));
	pthread_mutex_lock(&pl->mu);
	pl->lk_n = 0;
	pl->lk_state = LINKS_IDLE;
	n = take_committable(pl, b);
	pthread_mutex_unlock(&pl->mu);
	if (n && !links_hand_over(cr, b, n))
		commit_slots(cr, b, n);
	commit_slots(cr, done, ndone);
}

/* Links of the batch b[0..n) the seen-set does not know: with a link thread
 * they go to it, and the slots wait in SLOT_LINKS (true: not to be
 * committed now); without one they are inserted here, in one round trip. */
static bool links_hand_over(struct crawl *cr, struct slot **b, size_t n)
{
	struct pipeline *pl = cr->pl;
	struct job **jobs = pl->batch_jobs;
	const struct analysis **an = pl->batch_an;

	for (size_t k = 0; k < n; k++) {
		jobs[k] = b[k]->r.user;
		an[k] = b[k]->analyse && b[k]->r.err != FETCH_ERR_ABORTED ? &b[k]->a : NULL;
	}
	if (!pl->lk_db) {
		links_prefetch(cr, jobs, an, n);
		return false;
	}
	if (!links_collect(cr, jobs, an, n, &pl->lk_ls)) {
		linkset_free(&pl->lk_ls);
		return false;
	}
	pthread_mutex_lock(&pl->mu);
	for (size_t k = 0; k < n; k++) {
		b[k]->state = SLOT_LINKS;
		pl->lk_slots[k] = b[k];
	}
	pl->lk_n = n;
	pl->lk_state = LINKS_BUSY;
	pthread_cond_signal(&pl->lk_work);
	pthread_mutex_unlock(&pl->mu);
	return true;
}

/* Commit the ready slots in arrival order, each site's in its order, until
 * at most `left` slots are in use (0: all).  The slots committable at one
 * moment go as a batch: their new links are inserted in one database round
 * trip first, by the link thread while the loop goes on (a SLOT_LINKS slot
 * holds back its site's later slots, and no other batch is taken until the
 * link thread is done, so that every batch sees the links of the one
 * before), or here without one; then each is committed unlocked. */
void pipeline_commit(struct crawl *cr, size_t left)
{
	struct pipeline *pl = cr->pl;
	struct slot **b = pl->batch;

	pthread_mutex_lock(&pl->mu);
	while (pl->nused) {
		size_t n;

		if (pl->lk_state == LINKS_DONE) {
			pthread_mutex_unlock(&pl->mu);
			links_finish(cr);
			pthread_mutex_lock(&pl->mu);
			continue;
		}
		n = pl->lk_state == LINKS_IDLE ? take_committable(pl, b) : 0;
		if (!n) {
			double t0;
			bool busy;

			if (pl->nused <= left)
				break;
			t0 = now_monotonic();
			/* For the summary: waiting for the link thread only when no
			 * slot waits for an analysis. */
			busy = pl->lk_state == LINKS_BUSY;
			for (size_t i = 0; busy && i < pl->nslots; i++)
				busy = pl->slots[i].state != SLOT_QUEUED &&
				       pl->slots[i].state != SLOT_WORKING;
			pthread_cond_wait(&pl->ready, &pl->mu);
			*(busy ? &cr->links_wait_seconds : &cr->pipe_wait_seconds) +=
				now_monotonic() - t0;
			continue;
		}
		pthread_mutex_unlock(&pl->mu);
		if (!links_hand_over(cr, b, n))
			commit_slots(cr, b, n);
		pthread_mutex_lock(&pl->mu);
	}
	pthread_mutex_unlock(&pl->mu);
}

/* Commit every slot (the fetcher has nothing more for now). */
void pipeline_drain(struct crawl *cr)
{
	if (cr->pl)
		pipeline_commit(cr, 0);
}

/* Take result r into a free slot (the fetcher's callback). */
void pipeline_add(struct crawl *cr, struct fetch_result *r)
{
	struct pipeline *pl = cr->pl;
	struct job *j = r->user;
	struct slot *s;

	if (pl->nused == pl->nslots)
		pipeline_commit(cr, pl->nslots - 1);
	job_params(cr->c, j);        /* j->p, read by the thread */
	pthread_mutex_lock(&pl->mu);
	for (s = pl->slots; s->state != SLOT_FREE; s++)
		;
	result_keep(&s->r, r);
	s->analyse = r->err != FETCH_ERR_ABORTED && needs_analysis(j, r);
	s->seq = pl->next_seq++;
	s->lane = (uintptr_t)j->site;
	s->state = s->analyse ? SLOT_QUEUED : SLOT_READY;
	pl->nused++;
	if (s->analyse)
		pthread_cond_signal(&pl->work);
	pthread_mutex_unlock(&pl->mu);
}

bool pipeline_links(const struct pipeline *pl)
{
	return pl && pl->lk_db;
}

/* Stop the threads (every slot is free: pipeline_drain()). */
void pipeline_free(struct pipeline *pl)
{
	if (!pl)
		return;
	pthread_mutex_lock(&pl->mu);
	pl->quit = true;
	pthread_cond_broadcast(&pl->work);
	pthread_cond_signal(&pl->lk_work);
	pthread_mutex_unlock(&pl->mu);
	for (size_t i = 0; i < pl->nthreads; i++)
		pthread_join(pl->threads[i], NULL);
	if (pl->lk_started)
		pthread_join(pl->lk_thread, NULL);
	linkset_free(&pl->lk_ls);
	db_close(pl->lk_db);
	for (size_t i = 0; i < pl->nslots; i++) {
		result_drop(&pl->slots[i].r);
		analysis_free(&pl->slots[i].a);
	}
	pthread_cond_destroy(&pl->work);
	pthread_cond_destroy(&pl->ready);
	pthread_cond_destroy(&pl->lk_work);
	pthread_mutex_destroy(&pl->mu);
	free(pl->threads);
	free(pl->slots);
	free(pl->batch);
	free(pl->batch_jobs);
	free(pl->batch_an);
	free(pl->lk_slots);
	free(pl->lk_done);
	free(pl);
}
