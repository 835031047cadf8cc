/* crawl.c - the crawl loop of one rank (see crawl.h, doc/CRAWL.md).
 *
 * The loop thread claims batches of due URLs (crawl_claim.c), admits them
 * (crawl_robots.c) and hands them to the fetcher, and turns every result
 * into an outcome (crawl_commit.c): postings and links in the rank's delta
 * log, new URLs in urlword, the document in urlwordsNN.  Outcomes wait in a
 * pending batch that is stored in one transaction once the delta log is
 * synced, so a URL is never marked indexed before its postings are durable
 * (crawl_store.c).  With IndexThreads > 0, analysis threads parse the page
 * bodies (crawl_threads.c) and a store thread stores the batches.  This
 * file owns the loop itself: set-up, when to claim, fetch, commit and
 * store, the limits, the stop, the summary.  The rooms' order is in
 * crawl_int.h.
 */
#include "config.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "buf.h"
#include "conf.h"
#include "crawl.h"
#include "dbserver.h"
#include "delta.h"
#include "fetch.h"
#include "log.h"
#include "seen.h"
#include "tokenize.h"
#include "util.h"
#include "crawl_int.h"

/* On a stop, how long the transfers in flight may take to finish: a stop
 * relayed by the master (-E), and a signal to this rank itself, which may
 * be mpirun's: Open MPI 4.1 sends SIGKILL odls_base_sigkill_timeout (1 s by
 * default) after its SIGTERM, and the claims must be released by then
 * (doc/CLUSTER.md, "Signals"). */
#define STOP_GRACE 2.0
#define STOP_GRACE_SIGNAL 0.3
/* Entries of the map of redirect depths (url_id -> depth), 24 bytes each. */
#define REDIR_DEPTH_ENTRIES (256u << 10)

/* The clocks at the start of the crawl, for its summary. */
struct run_clock {
	double started;              /* monotonic */
	double started_cpu;          /* the process's CPU seconds */
	double started_db_cpu;       /* the embedded database's, -1 = none */
};

static void on_signal(int sig)
{
	UNUSED(sig);
	crawl_request_stop();
}

/* The fetcher's callback: a result to commit, now or after its analysis. */
static void on_done(struct fetch_result *r, void *arg)
{
	struct crawl *cr = arg;
	struct job *j = r->user;

	/* A page job is fetched once (a redirect's target is a URL of its
	 * own): counted once. */
	if (j->kind == JOB_PAGE) {
		struct held *h = held_find(cr, j->row.site_id);

		if (h) {
			h->delivered++;
			j->delivered = true;
		}
	}

	if (cr->pl)
		pipeline_add(cr, r);
	else
		result_commit(cr, r, NULL);
}

static void fill_load(const struct crawl *cr, struct crawl_load *l)
{
	memset(l, 0, sizeof(*l));
	l->docs = cr->docs;
	l->in_hand = cr->in_hand;
	l->sites_held = cr->nheld;
	l->claimed = cr->claimed;
	l->claims = cr->claims;
	l->claim_seconds = cr->claim_seconds;
	l->store_seconds = cr->store_seconds;
	l->idle = !cr->in_hand && !claims_busy(cr) && pending_none(cr) && !fetcher_pending(cr->f);
	l->stopping = crawl_stop_requested();
	l->db_down = cr->db_down;
}

/* Tell the coordinator where the rank stands; its answer lands in cr->adv. */
static void tick(struct crawl *cr)
{
	struct crawl_load l;

	if (!cr->o->hooks)
		return;
	fill_load(cr, &l);
	cr->o->hooks->tick(cr->o->hooks->arg, cr->t, &l, &cr->adv);
}

/* CPU seconds (user + system) of RUSAGE_THREAD or RUSAGE_SELF so far. */
static double cpu_seconds(int who)
{
	struct rusage ru;

	if (getrusage(who, &ru))
		return 0;
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static void sleep_briefly(double s)
{
	struct timespec ts = { 0, (long)(s * 1e9) };

	nanosleep(&ts, NULL);
}

/* Set up what the loop needs: the tokenizer, the analysis scratch and the
 * seen-sets; what a crashed earlier run of this rank left (torn delta tails
 * and claims) repaired and released; the delta log, the fetcher and the
 * threads.  0 or -1 (logged); crawl_close() frees what was made. */
static int crawl_open(struct crawl *cr)
{
	const struct conf *c = cr->c;
	struct fetch_opts fo = {
		.max_transfers = (size_t)c->max_transfers,
		.min_delay = c->defaults.min_delay,
		.read_timeout = (double)c->defaults.read_timeout,
		.max_doc_size = (size_t)c->max_doc_size,
		.dns_cache_timeout = c->address_expiry,
		.user_agent = c->user_agent,
		.headers = (const char *const *)c->http_headers,
		.n_headers = c->n_http_headers,
	};
	struct buf err = BUF_INIT(1024);
	struct delta_seg *segs = NULL;
	size_t nsegs = 0;
	int rc = 0;

	cr->agent = c->user_agent ? c->user_agent : "mpseek";
	cr->max_transfers = fo.max_transfers;
	cr->max_held = fo.max_transfers;
	cr->held = xcalloc(cr->max_held, sizeof(*cr->held));
	cr->at_once = c->defaults.max_docs_at_once > 0;
	for (size_t i = 0; i < c->n_servers; i++)
		cr->at_once |= c->servers[i].p.max_docs_at_once > 0;
	cr->tok = tok_new(c->min_word_length, c->max_word_length);
	for (size_t i = 0; i < c->n_stopword_files; i++)
		if (tok_load_stopwords(cr->tok, c->stopword_files[i]))
			warning("stopword file %s not fully loaded", c->stopword_files[i]);
	analysis_init(&cr->ia);
	analyser_init(&cr->an);
	cr->seen = seen_new((size_t)c->seen_cache_entries);
	seen_filter(cr->seen, (uint64_t)c->seen_bloom_urls, c->seen_bloom_fp);
	cr->redir_depth = seen_new(REDIR_DEPTH_ENTRIES);

	if (delta_list(c->data_dir, &segs, &nsegs, &err) == 0) {
		for (size_t i = 0; i < nsegs; i++)
			if (segs[i].rank == cr->o->rank && delta_repair(segs[i].path, &err) == 1)
				warning("%s", buf_str(&err));
		delta_list_free(segs, nsegs);
	}
	if (db_release_claims(cr->db, cr->o->rank) < 0 || mkdir_p(c->data_dir)) {
		rc = -1;
		goto out;
	}
	cr->dw = delta_open(cr->o->delta_dir ? cr->o->delta_dir : c->data_dir, cr->o->rank, &err);
	if (!cr->dw) {
		rc = error("cannot open a delta log: %s", buf_str(&err));
		goto out;
	}
	cr->f = fetcher_new(&fo);
	if (!cr->f) {
		rc = -1;
		goto out;
	}
	if (c->index_threads > 0) {
		cr->pl = pipeline_new(cr, (size_t)c->index_threads);
		/* A second connection for the store thread, if allowed. */
		if (!cr->pl || (c->db_connections >= 2 && !(cr->st = storer_new(cr))))
			rc = -1;
		/* A fourth for the claim thread. */
		if (!rc && c->db_connections >= 4 && claimer_start(cr))
			rc = -1;
	}
	if (!rc)
		rc = rv_open(cr);
out:
	buf_free(&err);
	return rc;
}

/* The database, as the rank's connections see it.  Lost past DBGrace on
 * either (or the coordinator says so): the rank stops, waiting for it no
 * more (cr->db_down).  Lost for less: the store thread waits for it, and
 * fetching pauses, since a page fetched now could not be stored.  True
 * while fetching must not go on. */
static bool db_trouble(struct crawl *cr)
{
	struct db *sdb = storer_db(cr->st);
	double down = db_unreachable_seconds(cr->db), sdown = db_unreachable_seconds(sdb);

	if (sdown > down)
		down = sdown;
	if (cr->adv.db_gone || db_gave_up(cr->db) || db_gave_up(sdb)) {
		db_give_up(cr->db);
		db_give_up(sdb);
		if (!cr->db_down)
			cr->db_down = down > 0 ? down : (double)cr->c->db_grace;
		cr->failed = true;
		return true;
	}
	return down > 0;
}

/* A limit of the options reached: this long, or (alone) this many pages. */
static bool limit_reached(const struct crawl *cr, double started)
{
	const struct crawl_opts *o = cr->o;

	if (o->max_seconds > 0 && now_monotonic() - started > o->max_seconds) {
		info("time limit of %.0f s reached", o->max_seconds);
		return true;
	}
	if (!o->hooks && o->max_docs > 0 && cr->docs >= o->max_docs && !cr->in_hand) {
		info("document limit of %ld reached", o->max_docs);
		return true;
	}
	return false;
}

/* Nothing in flight: commit what is in analysis, store what is pending (its
 * links are already in urlword), and see whether the crawl is over.  True
 * to leave the loop. */
static bool idle_over(struct crawl *cr)
{
	pipeline_drain(cr);
	pending_flush(cr);
	storer_wait(cr);
	if (cr->failed || fetcher_pending(cr->f))
		return false;
	if (!cr->o->hooks) {
		/* Alone: done when no claim brings more. */
		return claims_refill(cr, true) == 0 && !fetcher_pending(cr->f);
	}
	/* In a job: idle until the coordinator says the crawl is over (other
	 * ranks may still add links). */
	tick(cr);
	if (cr->adv.cmd == CRAWL_DONE && !cr->in_hand)
		return true;
	sleep_briefly(0.05);
	return false;
}

/* MaxBandwidth in force now for this rank, bytes per second (0: none): the
 * lowest limit among the windows holding the time of day (UTC; a window
 * with START after END wraps over midnight), divided by the crawling
 * ranks, so that the cluster together stays within it (doc/CONFIG.md). */
static double rank_bandwidth(const struct crawl *cr)
{
	const struct conf *c = cr->c;
	long t = (long)(time(NULL) % 86400), lim = 0;
	int crawlers = cr->o->hooks && cr->adv.crawlers > 1 ? cr->adv.crawlers : 1;

	for (size_t i = 0; i < c->n_bandwidth; i++) {
		const struct conf_bandwidth *b = &c->bandwidth[i];
		bool in = b->start < b->end ? t >= b->start && t < b->end
			: b->start > b->end ? t >= b->start || t < b->end : true;

		if (in && (!lim || b->bytes_per_sec < lim))
			lim = b->bytes_per_sec;
	}
	return (double)lim / crawlers;
}

/* The loop proper: tell the coordinator, claim, fetch, commit, store, until
 * a stop, a limit, a failure or the end of the work.  0, or -1 when the
 * fetcher failed. */
static int crawl_loop(struct crawl *cr, double started)
{
	info("rank %d crawling into %s, %ld analysis thread(s), %s%s%s", cr->o->rank,
	     delta_writer_path(cr->dw), cr->c->index_threads,
	     cr->st ? "a store thread" : "stores in the loop",
	     pipeline_links(cr->pl) ? ", a link thread" : "", cr->cl ? ", a claim thread" : "");
	cr->adv.claim_limit = -1;
	cr->adv.due = -1;
	while (!crawl_stop_requested() && !cr->failed) {
		tick(cr);
		if (cr->adv.cmd == CRAWL_STOP || limit_reached(cr, started))
			break;
		if (db_trouble(cr)) {
			if (!cr->failed)
				sleep_briefly(0.1);
			continue;
		}
		if (cr->c->n_bandwidth)
			fetcher_set_bandwidth(cr->f, rank_bandwidth(cr));
		claims_refill(cr, false);
		if (!fetcher_pending(cr->f)) {
			if (idle_over(cr))
				break;
			continue;
		}
		if (fetcher_run(cr->f, 0.5, on_done, cr) < 0)
			return error("the fetcher failed");
		if (cr->pl)
			pipeline_commit(cr, SIZE_MAX);
		if (cr->npend && (cr->npend >= PENDING_MAX ||
				  now_monotonic() - cr->pend_since > PENDING_MAX_AGE))
			pending_flush(cr);
	}
	return 0;
}

/* The loop is over: nothing new starts; the transfers in flight get a
 * moment to finish (a page already on its way is stored now rather than
 * fetched again by the next run); then all is committed and stored. */
static void crawl_wind_down(struct crawl *cr)
{
	cr->leaving = true;
	/* No claim is made from now on; the claim thread's round, if one is
	 * out, is claimed by now and left to the release of the rank's
	 * claims (crawl_run()). */
	claims_stop(cr);
	if (cr->adv.cmd == CRAWL_STOP && !crawl_stop_requested())
		info("stop requested by the master: releasing the URLs in hand");
	if (crawl_stop_requested())
		info("signal received: stopping, releasing the URLs in hand");
	/* A database gone for good: nothing more is fetched, and what is
	 * stored or released below fails at once (the claims expire with
	 * their lease; the delta log is closed all the same). */
	if (db_trouble(cr) && cr->db_down > 0)
		info("the database is unreachable: stopping without waiting for it");
	fetcher_cancel_queued(cr->f, on_done, cr);
	if (!cr->failed && fetcher_pending(cr->f)) {
		double until = now_monotonic() +
			       (crawl_stop_requested() ? STOP_GRACE_SIGNAL : STOP_GRACE);

		while (fetcher_pending(cr->f) && !cr->failed && now_monotonic() < until)
			if (fetcher_run(cr->f, until - now_monotonic(), on_done, cr) < 0)
				break;
	}
	fetcher_cancel_all(cr->f, on_done, cr);
	pipeline_drain(cr);
	pending_flush(cr);
	storer_wait(cr);
}

/* The seen-set's line of the summary: the cache, and the filter's fill,
 * predicted and measured false-positive rates (doc/CRAWL.md). */
static void log_seen(struct crawl *cr)
{
	struct seen_stats st;
	char meas[64] = "no URL asked yet";

	seen_stats(cr->seen, &st);
	if (!st.filter) {
		info("rank %d seen-set: %zu of %zu cache entries (SeenCacheEntries), %llu evicted; "
		     "no Bloom filter%s", cr->o->rank, st.entries, st.max,
		     (unsigned long long)st.evicted,
		     cr->c->seen_bloom_urls ? " (made at the first eviction)" : " (SeenBloomURLs 0)");
		return;
	}
	if (st.measured_fp >= 0)
		snprintf(meas, sizeof(meas), "%.4f %%", 100 * st.measured_fp);
	info("rank %d seen-set: %zu of %zu cache entries (SeenCacheEntries), %llu evicted; "
	     "Bloom filter %.1f MB, k %u, %llu URLs, %.2f %% of its bits set: false positives "
	     "predicted %.4f %%, measured %s (%llu of %llu lookups said maybe, %llu of those "
	     "not in the database)", cr->o->rank, st.entries, st.max,
	     (unsigned long long)st.evicted, (double)st.filter_bits / 8e6, st.filter_k,
	     (unsigned long long)st.filter_added, 100 * st.filter_fill, 100 * st.predicted_fp,
	     meas, (unsigned long long)st.maybe, (unsigned long long)st.asked,
	     (unsigned long long)st.false_pos);
}

/* The summary of the rank's crawl: counts, CPU, waits, clone checks, seen-set. */
static void crawl_report(struct crawl *cr, const struct run_clock *clk)
{
	const struct crawl_totals *t = cr->t;
	int rank = cr->o->rank;
	/* The embedded database's share: only a lone crawling rank has it to
	 * itself. */
	bool alone = !cr->o->hooks || cr->adv.crawlers <= 1;
	double db_cpu;
	char dbs[64] = "";
	struct delta_stats ds;
	struct fetch_stats fs;
	struct rusage ru;

	info("rank %d done: %llu fetched, %llu indexed, %llu unchanged, %llu clones, "
	     "%llu redirects, %llu errors, %llu dropped, %llu new URLs, %.1f MB in %.2f s",
	     rank, (unsigned long long)t->fetched, (unsigned long long)t->indexed,
	     (unsigned long long)t->unchanged, (unsigned long long)t->clones,
	     (unsigned long long)t->redirects, (unsigned long long)t->errors,
	     (unsigned long long)t->dropped, (unsigned long long)t->links_new,
	     (double)t->bytes / 1e6, now_monotonic() - clk->started);
	db_cpu = alone && clk->started_db_cpu >= 0 ? dbserver_cpu_seconds(cr->c->data_dir) : -1;
	if (db_cpu >= clk->started_db_cpu && clk->started_db_cpu >= 0)
		snprintf(dbs, sizeof(dbs), ", its embedded database %.2f s",
			 db_cpu - clk->started_db_cpu);
	info("rank %d CPU in the crawl: %.2f s in the loop thread, %.2f s in the process "
	     "(all threads)%s, in %.2f s", rank, cpu_seconds(RUSAGE_THREAD),
	     cpu_seconds(RUSAGE_SELF) - clk->started_cpu, dbs, now_monotonic() - clk->started);
	info("rank %d claimed %llu URL(s) in %llu claim(s), at most %zu site(s) held", rank,
	     (unsigned long long)cr->claimed, (unsigned long long)cr->claims, cr->peak_held);
	info("rank %d waits: database %.2f s claims (%.2f s more in the claim thread, %llu "
	     "rounds), %.2f s link inserts (%.2f s more in the "
	     "link thread, %llu batches), %.2f s stores "
	     "(%.2f s in the store thread, %.2f s waited for), %.2f s clone lookups; "
	     "%.2f s delta log syncs; all slots in use: %.2f s waited for analyses, %.2f s "
	     "for the link thread alone", rank, cr->claim_seconds, cr->claim_thread_seconds,
	     (unsigned long long)cr->claim_rounds, cr->links_seconds,
	     cr->links_thread_seconds, (unsigned long long)cr->links_batches,
	     cr->store_seconds - cr->links_seconds, cr->store_thread_seconds,
	     cr->store_wait_seconds, cr->origin_seconds, cr->sync_seconds, cr->pipe_wait_seconds,
	     cr->links_wait_seconds);
	/* The analysis sorts every page's words (words_finish()). */
	delta_writer_stats(cr->dw, &ds);
	if (ds.resorted)
		warning("rank %d: the words of %llu document(s) came to the delta log unsorted "
			"(a bug in the analysis; sorted there)", rank,
			(unsigned long long)ds.resorted);
	fetcher_stats(cr->f, &fs);
	getrusage(RUSAGE_SELF, &ru);
	info("rank %d width: %.1f transfers in flight on average, %zu at most, of %zu "
	     "(MaxTransfers); %zu sites held at most; peak RSS %.1f MB", rank, fs.mean_running,
	     fs.peak_running, cr->max_transfers, cr->peak_held, (double)ru.ru_maxrss / 1024);
	info("rank %d clone checks: %llu among the outcomes not stored, %llu in a clone "
	     "table, %llu asked the database (CloneTableEntries %ld)", rank,
	     (unsigned long long)cr->origin_pend, (unsigned long long)cr->origin_mem,
	     (unsigned long long)cr->origin_db, cr->c->clone_table_entries);
	log_seen(cr);
}

/* Stop the threads, close the delta log and free what crawl_open() made.
 * 0, or -1 when the delta log could not be closed. */
static int crawl_close(struct crawl *cr)
{
	int rc = 0;

	storer_wait(cr);
	storer_free(cr->st);
	claimer_free(cr);
	pipeline_free(cr->pl);
	rv_close(cr);
	fetcher_free(cr->f);
	if (cr->dw && delta_close(cr->dw))
		rc = -1;
	sites_free(cr);
	analysis_free(&cr->ia);
	analyser_free(&cr->an);
	seen_free(cr->seen);
	seen_free(cr->redir_depth);
	tok_free(cr->tok);
	free(cr->held);
	return rc;
}

int crawl_run(const struct conf *c, struct db *db, const struct crawl_opts *o,
	      struct crawl_totals *t)
{
	struct crawl cr = { .c = c, .db = db, .o = o, .t = t };
	struct run_clock clk = {
		.started = now_monotonic(),
		.started_cpu = cpu_seconds(RUSAGE_SELF),
		.started_db_cpu = !c->db.set ? dbserver_cpu_seconds(c->data_dir) : -1,
	};
	struct sigaction sa, old_term, old_int;
	int rc;

	memset(t, 0, sizeof(*t));
	rc = crawl_open(&cr);
	if (rc)
		goto out;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGINT, &sa, &old_int);
	rc = crawl_loop(&cr, clk.started);
	crawl_wind_down(&cr);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGINT, &old_int, NULL);
	if (db_release_claims(db, o->rank) < 0)
		rc = -1;
	for (size_t i = 0; i < cr.nheld; i++)
		held_origins_free(&cr, &cr.held[i]);
	cr.nheld = 0;
	if (cr.failed)
		rc = -1;
	tick(&cr);      /* the final counters */
	crawl_report(&cr, &clk);
out:
	if (crawl_close(&cr))
		rc = -1;
	return rc;
}
