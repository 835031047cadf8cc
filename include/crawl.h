/* crawl.h - the crawl loop of one rank: claim, fetch, parse, store, delta.
 *
 * Owns the order of the stages and the outcome of every URL: what status,
 * next_index_time, redir, origin and deleted flag its urlword row gets, what
 * urlwordsNN holds, which links are admitted and what goes to the rank's
 * delta log.  The stages themselves live in fetch.c, robots.c, charset.c,
 * html.c, tokenize.c, url.c, delta.c and db.c; the rooms of the loop in
 * src/crawl/crawl*.c (their order in src/crawl/crawl_int.h).  See doc/CRAWL.md.
 */
#ifndef MPSEEK_CRAWL_H
#define MPSEEK_CRAWL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct conf;
struct db;

struct crawl_hooks;

struct crawl_opts {
	long max_docs;        /* -n: stop after this many documents (0 = no limit);
	                       * with hooks the coordinator's claim_limit rules */
	bool force;           /* -m: no conditional GET, re-parse unchanged bodies */
	double max_seconds;   /* stop claiming after this long (0 = no limit) */
	int rank;             /* this rank, for claims and the delta file */
	const struct crawl_hooks *hooks; /* NULL: alone, stop when nothing is due */
	/* Recrawl by value (doc/CRAWL.md): the value ω of a URL from the live
	 * generation's PageRank, 1 for the mean ranked page, <= 0 when not
	 * ranked; NULL: every page of a Server without PageValue is worth 1. */
	double (*page_value)(void *arg, unsigned url_id);
	void *page_value_arg;
	/* mpseek-index -T (index_admin.c): crawl exactly these url_ids, claimed
	 * one by one without the queue or site leases, then stop; NULL: claim
	 * due URLs. */
	const uint32_t *given;
	size_t n_given;
	/* Where the delta log goes (its deltas/ directory): NULL, DataDir. */
	const char *delta_dir;
	/* Recrawl by value: where the multipliers and their epochs wait between
	 * the rounds of a continuous crawl (a round is often shorter than an
	 * epoch: started afresh each round, λ would never step).  *rv_keep is
	 * taken at the start (NULL: read λ_0 from the database) and given back
	 * at the end; crawl_rv_free() frees it.  NULL: each crawl starts afresh. */
	struct rv_state **rv_keep;
};

struct rv_state;
void crawl_rv_free(struct rv_state *rv);

struct crawl_totals {
	uint64_t fetched;     /* responses that arrived (any status) */
	uint64_t indexed;     /* documents parsed and stored */
	uint64_t unchanged;   /* 304 or same MD5 */
	uint64_t clones;
	uint64_t redirects;
	uint64_t errors;      /* network errors and 4xx/5xx */
	uint64_t errors_net;  /* of them: no response (DNS, connect, timeout, protocol) */
	uint64_t errors_4xx;
	uint64_t errors_5xx;
	uint64_t dropped;     /* robots, filter, trap, bad URL */
	uint64_t links_new;   /* URLs inserted */
	uint64_t bytes;       /* decoded body bytes */
	uint64_t wire_bytes;
};

/* --- the coordinator's view (cluster.c; doc/CLUSTER.md) -------------------- */

/* The state of a crawling rank, handed to the coordinator on every tick. */
struct crawl_load {
	long docs;               /* pages fetched (what -n counts) */
	size_t in_hand;          /* claimed URLs not finished */
	size_t sites_held;       /* site leases held */
	uint64_t claimed;        /* URLs claimed in this run (cumulative) */
	uint64_t claims;         /* claim transactions (site picks included) */
	double claim_seconds;    /* wall time spent in them */
	double store_seconds;    /* wall time storing outcomes and links */
	bool idle;               /* nothing in hand, nothing in flight, all stored */
	bool stopping;           /* a signal arrived at this rank */
	double db_down;          /* > 0: the database has been unreachable this long,
	                          * past DBGrace: the rank stops */
};

enum crawl_cmd {
	CRAWL_GO_ON,             /* keep crawling (or waiting for work) */
	CRAWL_STOP,              /* stop: abort transfers, release claims, exit */
	CRAWL_DONE,              /* the crawl is over: exit once idle */
};

/* The coordinator's answer. */
struct crawl_advice {
	enum crawl_cmd cmd;
	int64_t claim_limit;     /* claim only while claimed < claim_limit (-n); -1 = no limit */
	int64_t due;             /* URLs due in the whole job, -1 = unknown (batch size) */
	int crawlers;            /* crawling ranks (batch size, sites taken per pick) */
	int idle_crawlers;       /* crawling ranks without work: a rank holding several
	                          * sites lets one go to them */
	bool db_gone;            /* with CRAWL_STOP: the database is gone (DBGrace):
	                          * do not wait for it while stopping */
};

struct crawl_hooks {
	/* Called from the crawl loop at least every 0.5 s and whenever the
	 * rank is idle; fills *adv (which keeps its values between calls). */
	void (*tick)(void *arg, const struct crawl_totals *t, const struct crawl_load *l,
		     struct crawl_advice *adv);
	void *arg;
};

/* Crawl until nothing is due (or a limit in o is reached, or SIGTERM/SIGINT
 * arrives: then the transfers in flight are aborted, their claims released
 * and the delta log closed).  With o->hooks the coordinator decides: an idle
 * rank waits for work (new links of other ranks) until told CRAWL_DONE.  Returns 0, or -1 after logging when the rank
 * cannot go on (database gone for good, delta log unwritable). */
int crawl_run(const struct conf *c, struct db *db, const struct crawl_opts *o,
	      struct crawl_totals *t);

/* mpseek-index -i: insert URLs into the queue, due now, at depth 0 (as a
 * Server URL is), each admitted first as a link would be (Server scope,
 * Allow/Disallow, MaxHops, traps: crawl_insert.c).  urls[i] came from
 * where[i] ("FILE:LINE", "-u"), which messages name: a malformed URL and a
 * refused one are each one warning saying why, and are skipped. */
struct crawl_insert {
	long added;    /* new rows */
	long known;    /* already in the database (left as they are) */
	long refused;  /* outside the config's scope */
	long bad;      /* not a URL mpseek crawls */
};
/* Returns 0 (some URLs may have been skipped: see st) or -1 (database). */
int crawl_insert_urls(const struct conf *c, struct db *db, const char *const *urls,
		      const char *const *where, size_t n, struct crawl_insert *st);

/* Ask the crawl to stop, as SIGTERM/SIGINT do: async-signal-safe, so the
 * handlers crawl_run() and cluster.c install call it. */
void crawl_request_stop(void);
/* Has a stop been asked for (crawl_request_stop())?  It stays asked. */
bool crawl_stop_requested(void);

#endif
