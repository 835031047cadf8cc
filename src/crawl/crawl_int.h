/* crawl_int.h - what the rooms of the crawl loop share (private to src/crawl).
 *
 * The crawl of one rank (crawl.h, doc/CRAWL.md) is split by role, as sqlite
 * splits where.c.  Each room calls only the rooms above it in this list
 * (bottom first), never one below:
 *
 *   crawl_stop.c     the stop flag: one setter for signal handlers, one reader
 *   crawl_admit.c    may a URL be crawled (Server, filters, MaxHops, traps); the
 *                    link cache of an analysing thread (pure: config only)
 *   crawl_analyse.c  a fetched body into an analysis: type, MD5, charset, parse,
 *                    links, words, compressed text (pure: runs on any thread)
 *   crawl_store.c    the rank's stored state: sites, new links, clone tables,
 *                    the pending batch of outcomes and the store thread
 *   crawl_robots.c   a claimed job's admission (robots.txt first) and
 *                    submission to the fetcher; robots.txt; redirects
 *   crawl_commit.c   a fetch result into an outcome (page_commit())
 *   crawl_claim.c    claims: site leases and batches of due URLs; the claim thread
 *   crawl_threads.c  the analysis threads (results committed in order per site)
 *   crawl.c          the loop: crawl_run()
 *
 * The two pure rooms run on the analysis threads too; the rest runs on the
 * loop thread, but for the store thread's own body (crawl_store.c) and the
 * claim thread's (crawl_claim.c).
 */
#ifndef MPSEEK_CRAWL_INT_H
#define MPSEEK_CRAWL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "buf.h"
#include "caps.h"
#include "conf.h"
#include "crawl.h"
#include "db.h"
#include "delta.h"
#include "fetch.h"
#include "tokenize.h"
#include "util.h"

/* Outcomes stored per transaction, and how long one may wait. */
#define PENDING_MAX 64
#define PENDING_MAX_AGE 2.0

struct claimer;
struct fetcher;
struct origins;
struct pipeline;
struct seen;
struct storer;
struct tokenizer;

enum job_kind {
	JOB_PAGE,          /* a claimed URL */
	JOB_ROBOTS_ROW,    /* a claimed robots.txt URL: fetched for the site's rules */
	JOB_ROBOTS_FETCH,  /* robots.txt fetched for a site, no row of ours */
};

struct site;

/* A URL in hand, from its claim to its outcome (job_done() frees it). */
struct job {
	enum job_kind kind;
	struct db_url row;           /* the claimed row (JOB_ROBOTS_FETCH: url only) */
	struct site *site;
	char fetch_url[MAX_URL_LEN + 1]; /* robots: the URL after redirects */
	int hops;                    /* robots redirects followed */
	bool head;                   /* CheckOnly */
	bool delivered;              /* a page the fetcher delivered, counted in held.delivered */
	const struct conf_server_params *p; /* its Server block (job_params()) */
	struct job *next;            /* waiting for the site's robots.txt */
};

/* A site the rank has seen, by key (site_get()): its id and robots.txt. */
struct site {
	char *key;                   /* "scheme://host[:port]/" */
	unsigned site_id;
	struct robots *robots;       /* NULL = not known yet */
	double robots_until;         /* wall time when it must be fetched again */
	bool robots_db_checked;      /* the robots table was looked at */
	bool robots_fetching;
	struct job *waiting;
	long nurls;                  /* MaxURLsPerServer: live URLs counted, valid while */
	uint64_t nurls_gen;          /* ... this equals crawl.links_gen (0: never read) */
	struct site *hnext;
};

/* A site whose lease the rank holds. */
struct held {
	unsigned site_id;
	struct origins *origins;     /* NULL: ask the database (not loaded); crawl_store.c */
	size_t in_hand;              /* claimed URLs of the site not finished */
	size_t delivered;            /* of those, pages fetched (in analysis or commit) */
	bool draining;               /* handed over: no more claims, released at 0 */
	bool claiming;               /* in the claim thread's round: no other claim asks */
	double next_try;             /* monotonic time of the next claim for it */
	double delay;                /* politeness delay owed to the host at release */
	long at_once;                /* MaxDocsAtOnce of its URLs (0: no cap or not known) */
};

/* The text columns of a document row, cut to their widths (malloc'd): made
 * by analyse_page(), moved into the pending outcome by page_commit(). */
struct doc_cols {
	char *content_type, *charset, *title, *txt, *keywords, *description;
};

/* What recrawl by value needs of an outcome (crawl_recrawl.c). */
enum rv_kind { RV_NONE, RV_FIRST, RV_SAME, RV_CHANGED };
struct pending_rv {
	enum rv_kind kind;           /* RV_NONE: scheduled by Period as usual */
	long interval;               /* seconds since the previous fetch (RV_SAME, RV_CHANGED) */
	long hint;                   /* fetch_result.fresh_for, -1 = none */
	const struct conf_server_params *sp;
};

/* The outcome of one job, waiting in the pending batch to be stored; owns
 * its strings (pending_new(), freed when the batch is stored). */
struct pending {
	struct pending_rv rv;
	struct db_done d;
	struct db_doc doc;
	unsigned site_id;
	char crc[33], last_modified[65], etag[129];
	char old_crc[33];            /* the URL was a live origin with this MD5, or "" */
	struct doc_cols cols;        /* doc's strings */
	void *words;
	uint32_t *hrefs;
	unsigned char *anchors;      /* doc.anchors (commit_anchors()) */
};

/* One word of the document being indexed and its positions. */
struct word_ent {
	char word[MAX_WORD_LEN + 1];
	uint8_t len;
	uint32_t n, cap;
	uint32_t slot;               /* its index in word_tab.slots */
	uint64_t key;                /* the first 8 bytes, big-endian, 0-padded */
	tok_pos_t *pos;
};

struct word_tab {
	struct word_ent *ents;
	const struct word_ent **sorted; /* words_finish(): ents[0..n) in delta_wordcmp() order */
	struct word_key *keys;       /* words_finish()'s scratch: sorted_cap (key, entry) pairs */
	size_t sorted_cap;
	size_t n, cap;
	uint32_t *slots;             /* index + 1, 0 = empty */
	size_t nslots;
	uint64_t total;
	bool full;
};

/* The admitted links of a page, in document order, each once: the URL, its
 * site key and the anchor text of its first link, all in pool. */
struct linklist {
	struct buf pool;             /* "url\0site\0anchor\0" per link */
	uint32_t *off;               /* pool offset of each URL */
	size_t n, cap;
	uint32_t *slots;             /* URL hash: index + 1, 0 = empty */
	size_t nslots;
};

/* The references of a page already resolved and admitted or dropped, by
 * their text before any '#' (borrowed from the page's html_doc): another
 * reference with the same text resolves to the same URL, the fragment being
 * dropped, so it is not resolved and admitted again (index pages link one
 * page under hundreds of fragments, and every heading of a page links to
 * itself as "#id"). */
struct refset {
	struct refent { const char *p; size_t len; } *v;
	size_t nslots, n;
};

/* Links already resolved and admitted by this analysis thread: most links
 * of a site repeat from page to page (navigation, tables of contents), and a
 * reference that has a path resolves the same against every base in the
 * same directory (RFC 3986 §5.2.2), so the outcome of admit_page_link() is
 * a function of the key: the page's Server parameters, the page's site
 * key, the base up to its last '/' and the reference.  The depth is not in
 * the key, nor the fragment (dropped by url_resolve()): a link admitted at
 * depth 0 is admitted at depth h when h is at most the MaxHops of its
 * Server, kept with it.  One per analysis thread.
 * References without a path ("", "?q", "#f") depend on the whole base and
 * are not kept.  Bounded: emptied when LINKCACHE_MAX entries or
 * LINKCACHE_POOL bytes are reached (crawl_admit.c). */
struct linkcache {
	struct lcent {
		uint32_t key, key_len;   /* in pool */
		uint32_t val;            /* in pool: "url\0site\0"; UINT32_MAX = not admitted */
		int max_hops;            /* of the URL's Server */
		int verdict;             /* enum link_verdict when not admitted */
	} *v;
	uint32_t *slots;             /* index + 1, 0 = empty */
	size_t n;
	struct buf pool;
	struct buf key;              /* scratch */
};

/* What became of one link of a page: the page's log line counts them
 * (page_commit(), doc/CRAWL.md "The log line of a page"). */
enum link_verdict {
	LINK_ADMITTED,               /* new or known, on its way to urlword */
	LINK_REPEATED,               /* the page itself, or a URL the page gave before */
	LINK_OFFSITE,                /* outside the scope of every Server */
	LINK_FILTERED,               /* the Allow/Disallow chain */
	LINK_HOPS,                   /* deeper than MaxHops */
	LINK_TRAP,                   /* looks like a spider trap */
	LINK_BAD,                    /* not http(s), malformed or too long */
	LINK_NOFOLLOW,               /* rel=nofollow, META robots nofollow, Follow no */
	LINK_N
};

/* A page's links by verdict; found is every reference the page holds. */
struct link_counts {
	size_t found;
	size_t n[LINK_N];
};

enum analysis_kind {
	AN_TYPE,                     /* a content type we do not index */
	AN_UNCHANGED,                /* the MD5 stored before */
	AN_DOC,                      /* parsed: the fields below are set */
};

/* What analyse_page() found in a page body: everything page_commit() needs
 * that takes no database, delta log or seen-set. */
struct analysis {
	enum analysis_kind kind;
	char mt[64], crc[33];
	size_t blen;
	bool noindex, nofollow;
	struct doc_cols cols;        /* page_commit() takes them */
	char *ref;                   /* META refresh or script redirect, as written */
	bool ref_meta;               /* ref is a META refresh */
	char *ref_url;               /* ref resolved and admitted (not the page itself) */
	struct linklist links;
	struct link_counts lcount;   /* what became of the page's links */
	struct delta_words dw;       /* the DOC record's words, encoded */
	size_t nwords;               /* distinct words */
	uint64_t total;              /* words with repeats */
	uint64_t simhash;            /* of the words' text (simhash.h), 0 = none */
	bool words_bad;              /* delta_words_add() refused one: dw.err */
	void *z;                     /* docblob_compress() of the UTF-8 text */
	size_t zlen;
};

/* What one analysing thread keeps from page to page (the loop's own for
 * IndexThreads 0): the results go in the slot's analysis, this stays. */
struct analyser {
	struct linkcache lc;         /* links admitted before */
	struct buf utf8;             /* the body converted to UTF-8 */
	uint8_t *zbuf;               /* docblob_compress()'s scratch (DOCBLOB_SCRATCH) */
	struct refset refs;          /* references handled on this page */
	struct word_tab words;       /* the page's words: encoded into the slot's
	                              * analysis, then reset (hot in this thread's
	                              * cache, not one table per slot) */
};

/* Links of a page on their way to urlword; the URLs are borrowed. */
struct linkset {
	struct db_link *v;
	size_t n, cap;
	size_t maybe;                /* links_known(): links the Bloom filter may know */
};

/* The state of the crawl of one rank; the loop thread's alone. */
struct crawl {
	const struct conf *c;
	struct db *db;
	const struct crawl_opts *o;
	struct crawl_totals *t;
	struct fetcher *f;
	struct tokenizer *tok;
	struct delta_writer *dw;
	struct seen *seen;
	struct seen *redir_depth;    /* url_id -> redirects that led to it */
	struct site **sites;         /* hash by key */
	size_t nsites_slots, nsites;
	struct pending pend[PENDING_MAX];
	size_t npend;
	double pend_since;
	struct analysis ia;          /* the analysis of IndexThreads 0 (inline) */
	struct analyser an;          /* its scratch and link cache */
	struct pipeline *pl;         /* the analysis threads, NULL with IndexThreads 0 */
	struct storer *st;           /* the store thread: NULL with IndexThreads 0 or
	                              * DBConnectionsPerRank 1 */
	struct claimer *cl;          /* the claim thread: NULL with IndexThreads 0 or
	                              * DBConnectionsPerRank 3 or fewer (crawl_claim.c) */
	long docs;                   /* pages processed, for -n */
	size_t in_hand;              /* jobs claimed and not finished */
	bool failed;                 /* the rank cannot go on */
	bool leaving;                /* the loop is over: no more claims */
	double db_down;              /* > 0: the database was unreachable this long,
	                              * past DBGrace: the rank stops (crawl.c) */
	const char *agent;
	struct held *held;           /* site leases held (malloc'd, max_held) */
	size_t nheld, peak_held;
	/* Transfers the fetcher runs at once (MaxTransfers), and so the sites
	 * the rank holds at most: one transfer per host (crawl_claim.c). */
	size_t max_transfers, max_held;
	bool at_once;                /* some Server sets MaxDocsAtOnce (crawl_claim.c) */
	double next_pick;            /* monotonic time of the next site pick */
	size_t origins_used;         /* entries of the held sites' clone tables */
	uint64_t claimed, claims;    /* URLs claimed, claim transactions */
	double claim_seconds, store_seconds;
	double claim_thread_seconds; /* wall time of the claim thread's rounds */
	uint64_t claim_rounds;       /* rounds claimed by the claim thread */
	double origin_seconds;       /* wall time in clone lookups */
	uint64_t origin_pend;        /* clone checks answered by the outcomes not stored */
	uint64_t origin_mem;         /* ... by a clone table */
	uint64_t origin_db;          /* ... by the database (db_find_origin()) */
	double sync_seconds;         /* wall time making the delta log durable */
	double store_wait_seconds;   /* wall time waiting for the store thread */
	double store_thread_seconds; /* of store_seconds: in the store thread */
	double links_seconds;        /* wall time inserting links (in store_seconds) */
	double links_thread_seconds; /* wall time of the link thread's inserts */
	uint64_t links_batches;      /* batches inserted by the link thread */
	double pipe_wait_seconds;    /* wall time waiting, all slots in use, for analyses */
	double links_wait_seconds;   /* ... for the link thread alone (no slot in analysis) */
	struct crawl_advice adv;     /* the coordinator's last word */
	uint64_t links_gen;          /* link batches stored (site.nurls is re-read after one) */
	size_t given_next;           /* crawl_opts.given: the first not claimed yet */
	struct rv_state *rv;         /* recrawl by value (crawl_recrawl.c), NULL when no
	                              * Server has RecrawlMode value */
};

/* ---- small helpers every room uses ------------------------------------------ */

static inline uint64_t hash64(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

/* Copy header value v to dst, or "" when it does not fit. */
static inline void copy_header(char *dst, size_t size, const char *v)
{
	if (!v || strlen(v) >= size)
		dst[0] = '\0';
	else
		strlcpy_(dst, v, size);
}

/* The parameters of the job's URL: its Server block or the defaults,
 * looked up once per job. */
static inline const struct conf_server_params *job_params(const struct conf *c, struct job *j)
{
	if (!j->p)
		j->p = conf_params_for(c, j->row.url);
	return j->p;
}

static inline long job_period(const struct conf *c, struct job *j)
{
	long period = job_params(c, j)->period;

	return period > 0 ? period : 7 * 86400;
}

static inline const char *linklist_url(const struct linklist *l, size_t i)
{
	return l->pool.ptr + l->off[i];
}

/* The site key stored after the URL. */
static inline const char *linklist_site(const struct linklist *l, size_t i)
{
	const char *u = linklist_url(l, i);

	return u + strlen(u) + 1;
}

/* The anchor text stored after a URL of a linklist (url must point into
 * its pool, as linklist_url() and the linkset's urls do). */
static inline const char *linklist_anchor_of(const char *url)
{
	const char *site = url + strlen(url) + 1;

	return site + strlen(site) + 1;
}

/* ---- crawl_admit.c: may a URL be crawled (pure) ------------------------------- */

/* May url be crawled at all, by the config?  hops is the URL's depth;
 * normal: url is what url_resolve() wrote (the trap check need not
 * normalise it again).  0 or a CST_* status with *why (static). */
int admit_url(const struct conf *c, const char *url, int hops, bool from_outside_ok, bool normal,
	      const char **why);
/* Resolve ref against base and admit it as a link at depth hops of the page
 * `from` (a redirect, a META refresh).  The normalised URL goes to out.
 * 0 or -1. */
int admit_link(const struct conf *c, const struct conf_server_params *fp, const char *from,
	       const char *base, const char *ref, int hops, struct buf *out);
/* admit_link() through the cache lc of the analysing thread, for the links
 * of page `from` (parameters fp, site key from_site); base_dir: the length
 * of base up to its last '/'.  Returns an enum link_verdict: on
 * LINK_ADMITTED (0), *url and *site are the admitted URL and its site key,
 * valid until the next call (in lc, lk or sitebuf). */
int admit_page_link_cached(struct linkcache *lc, const struct conf *c,
			   const struct conf_server_params *fp, const char *from,
			   const char *from_site, const char *base, size_t base_dir,
			   const char *ref, int hops, struct buf *lk, struct buf *sitebuf,
			   const char **url, const char **site);
void linkcache_init(struct linkcache *lc);
void linkcache_free(struct linkcache *lc);

/* ---- crawl_analyse.c: a body into an analysis (pure) -------------------------- */

/* The media type of a Content-Type value, lowercase, without parameters. */
void media_type(const char *ctype, char *out, size_t size);
bool is_html_type(const char *mt);
void doc_cols_free(struct doc_cols *k);
void analysis_init(struct analysis *a);
/* Forget the last page (what page_commit() did not take), keep the memory
 * of the tables. */
void analysis_clear(struct analysis *a);
void analysis_free(struct analysis *a);
void analyser_init(struct analyser *an);
void analyser_free(struct analyser *an);
/* Everything about the body of page j (a 2xx GET) that needs nothing but
 * the config, into a (cleared first), with an's scratch.  j->p is set
 * (job_params()). */
void analyse_page(const struct conf *c, const struct tokenizer *tok, bool force,
		  const struct job *j, const struct fetch_result *r, struct analysis *a,
		  struct analyser *an);

/* ---- crawl_store.c: the rank's stored state ------------------------------------ */

/* The site of key (site_id 0: looked up or added in the database, a new
 * row with sites.tag = tag); NULL on a database error.  Owned by cr until
 * sites_free(). */
struct site *site_get(struct crawl *cr, const char *key, unsigned site_id, long tag);
void sites_free(struct crawl *cr);
struct held *held_find(struct crawl *cr, unsigned site_id);
/* Load the live origins of held site h into its clone table, if they fit. */
void origins_load(struct crawl *cr, struct held *h);
/* Forget the clone table of held site h (the database is asked again). */
void held_origins_free(struct crawl *cr, struct held *h);
/* The clone check of page j with MD5 crc: the url_id of another live origin
 * of its site with that MD5, or 0. */
unsigned clone_origin(struct crawl *cr, struct job *j, const char *crc);

/* Add a normalised, admitted URL of site key `site` to ls (url borrowed
 * until linkset_free()). */
void link_collect_site(struct crawl *cr, struct linkset *ls, const char *url, const char *site,
		       int hops, unsigned referrer);
/* Give every link of ls its url_id: from the seen-set, else one batch
 * through the database.  Returns 0 or -1. */
int links_resolve(struct crawl *cr, struct linkset *ls);
/* links_resolve() in two halves, for a db_add_links() on another thread:
 * the url_ids the seen-set knows (returns how many links it does not),
 * and, after db_add_links() gave the others theirs (`added` new rows),
 * the seen-set and the held sites told. */
size_t links_known(struct crawl *cr, struct linkset *ls);
void links_apply(struct crawl *cr, struct linkset *ls, long added);
void linkset_free(struct linkset *ls);
/* Another connection to the rank's database, sharing cr->db's outage
 * clock (the store and link threads'); NULL after logging. */
struct db *crawl_db_open(struct crawl *cr);
/* Before pages jobs[0..n) are committed in this order with their analyses
 * an[i] (NULL: none yet): the links their commits will resolve, resolved
 * at once (one database round trip for all, not one a page), so that each
 * commit finds them in the seen-set.  The same rows as page by page. */
void links_prefetch(struct crawl *cr, struct job *const *jobs, const struct analysis *const *an,
		    size_t n);
/* links_prefetch()'s first half: the links those commits will resolve into
 * ls (its URLs borrowed from an[]), the known ones resolved.  True when
 * some need db_add_links(), then links_apply(). */
bool links_collect(struct crawl *cr, struct job *const *jobs, const struct analysis *const *an,
		   size_t n, struct linkset *ls);

/* A slot of the pending batch for the outcome of job j, filled with
 * "unchanged" defaults (a full batch is flushed first). */
struct pending *pending_new(struct crawl *cr, struct job *j);
/* Make the delta records durable, then store the pending outcomes (here,
 * or in the store thread).  0 or -1 (logged; cr->failed set). */
int pending_flush(struct crawl *cr);
/* No outcome waits to be stored (none pending, none in the store thread). */
bool pending_none(const struct crawl *cr);
/* A store thread with its own connection, or NULL after logging. */
struct storer *storer_new(struct crawl *cr);
/* Wait until the batch in the store thread (if any) is stored; a failure
 * stops the rank. */
void storer_wait(struct crawl *cr);
/* Stop the store thread (storer_wait() first) and close its connection. */
void storer_free(struct storer *st);
/* The store thread's connection (NULL without a store thread), for
 * db_unreachable_seconds() and db_give_up() from the loop. */
struct db *storer_db(struct storer *st);

/* Job j is finished: counted out of what is in hand, and freed. */
void job_done(struct crawl *cr, struct job *j);
/* The URL leaves the index: status st, deleted, a DEL record. */
void finish_dropped(struct crawl *cr, struct job *j, int st, const char *why);
/* A 404/410 without DeleteBad: the document leaves the index (a DEL record),
 * the row stays in the queue with status st, due again after Period. */
void finish_gone(struct crawl *cr, struct job *j, int st);
/* Status only; the document (if any) stays as it is. */
void finish_status(struct crawl *cr, struct job *j, int st, long next_in);

/* ---- crawl_robots.c: admission, robots.txt, redirects ------------------------- */

/* Hand job j to the fetcher. */
void job_submit(struct crawl *cr, struct job *j);
/* Decide what to do with a claimed (or waiting) job: drop, wait, fetch. */
void job_admit(struct crawl *cr, struct job *j);
/* A robots.txt response (or failure) for the site of robots job j. */
void robots_txt_result(struct crawl *cr, struct job *j, const struct fetch_result *r);
/* A 3xx response r to page j. */
void page_redirect(struct crawl *cr, struct job *j, const struct fetch_result *r);
/* Count one more hop for the target of a redirect from j; false (with *why)
 * when the chain is longer than RedirectLoopLimit. */
bool redirect_allowed(struct crawl *cr, struct job *j, const char **why);
/* Insert url (normalised, admitted), the target of a redirect of job j;
 * returns its url_id or 0. */
unsigned redirect_to(struct crawl *cr, struct job *j, const char *url);
/* Remember that target is one redirect further than j. */
void note_redirect(struct crawl *cr, const struct job *j, unsigned target);

/* ---- crawl_commit.c: a result into an outcome --------------------------------- */

/* Turn result r of the fetcher into the outcome of its job; a is the
 * analysis of its body when an analysis thread made it, NULL to analyse it
 * here if needed. */
void result_commit(struct crawl *cr, struct fetch_result *r, struct analysis *a);
/* Does result r of job j carry a body for analyse_page()? */
bool needs_analysis(const struct job *j, const struct fetch_result *r);

/* ---- crawl_recrawl.c: recrawl by value ------------------------------------------ */

/* cr->rv when some Server has RecrawlMode value (λ_0 read back from the
 * database), else NULL.  0 or -1. */
int rv_open(struct crawl *cr);
void rv_close(struct crawl *cr);
/* Outcome p of job j (response r) is a fetch of a page: with RecrawlMode
 * value, mark it for rv_batch(), `changed` telling whether its MD5 moved. */
void rv_note(struct pending *p, struct job *j, const struct fetch_result *r, bool changed);
/* Job j of a Server sp was refused with 429/503 and Retry-After (seconds):
 * with RecrawlMode value, its host's rate limit k_i comes down to one fetch
 * per Retry-After (stored with the site, decaying), and λ_i steps up. */
void rv_refused(struct crawl *cr, struct job *j, const struct conf_server_params *sp,
		long retry_after);
/* Before the batch v[0..n) is stored: the marked outcomes' fetch histories
 * updated, their next_index_time set by value, λ_0 stepped when due.  A
 * database error is logged and leaves Period's times (0 or -1). */
int rv_batch(struct crawl *cr, struct pending *v, size_t n);

/* ---- crawl_claim.c: claims ------------------------------------------------------ */

/* Keep the held sites supplied, hand one over when other ranks are idle,
 * release the finished ones, and take new sites.  force: ignore the waits
 * after empty claims.  Returns the number of URLs claimed. */
int claims_refill(struct crawl *cr, bool force);
/* Is a held site about to run out of pages for the fetcher while it may
 * claim more, or is the claim thread's round claimed? */
bool claims_refill_due(const struct crawl *cr);
/* Start the claim thread on a connection of its own (DBConnectionsPerRank 4
 * or more).  0, or -1 after logging. */
int claimer_start(struct crawl *cr);
/* Is a round with the claim thread (its URLs not in hand yet)? */
bool claims_busy(const struct crawl *cr);
/* The crawl stops: wait for the claim thread's round and drop it (its URLs
 * are claimed under the rank: db_release_claims() gives them back). */
void claims_stop(struct crawl *cr);
/* Stop the claim thread and close its connection (claims_stop() first). */
void claimer_free(struct crawl *cr);

/* ---- crawl_threads.c: the analysis threads -------------------------------------- */

/* Start n analysis threads.  Returns NULL after logging when they cannot
 * be started. */
struct pipeline *pipeline_new(struct crawl *cr, size_t n);
/* Take result r into a free slot (the fetcher's callback). */
void pipeline_add(struct crawl *cr, struct fetch_result *r);
/* Commit the ready slots until at most `left` are in use (SIZE_MAX: what
 * is ready, without waiting). */
void pipeline_commit(struct crawl *cr, size_t left);
/* Commit every slot (the fetcher has nothing more for now); no-op without
 * analysis threads. */
void pipeline_drain(struct crawl *cr);
/* Stop the threads (every slot is free: pipeline_drain()). */
void pipeline_free(struct pipeline *pl);
/* Has pl a link thread (DBConnectionsPerRank 3 or more)? */
bool pipeline_links(const struct pipeline *pl);

#endif
