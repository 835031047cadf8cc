/* crawl.c - the crawl loop of one rank (see crawl.h, doc/CRAWL.md).
 *
 * The loop thread claims a batch of due URLs, checks each against the
 * Server blocks, the Allow/Disallow chain, MaxHops and the site's robots.txt
 * (fetched first when unknown), hands the admitted ones to the fetcher, and
 * turns every result into an outcome: postings and links in the rank's delta
 * log, new URLs in urlword, the document in urlwordsNN.  Outcomes are kept
 * in a pending batch that is stored in one transaction once the delta log is
 * synced, so a URL is never marked indexed before its postings are durable.
 * With IndexThreads > 0, analysis threads parse the page bodies (pure work,
 * analyse_page()) and a store thread stores the batches; everything else
 * stays in the loop thread (see "the analysis threads" and "the store
 * thread" below, doc/CRAWL.md).
 */
#include "config.h"

#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "caps.h"
#include "charset.h"
#include "conf.h"
#include "crawl.h"
#include "db.h"
#include "dbserver.h"
#include "delta.h"
#include "docblob.h"
#include "fetch.h"
#include "html.h"
#include "log.h"
#include "robots.h"
#include "seen.h"
#include "tokenize.h"
#include "url.h"
#include "util.h"

volatile int crawl_stop_requested;

/* Outcomes stored per transaction, and how long one may wait. */
#define PENDING_MAX 64
#define PENDING_MAX_AGE 2.0
/* Claims are per site (doc/CLUSTER.md): the rank holds the lease of at
 * most MAX_HELD sites (one transfer per host: more would only queue), claims
 * SITE_BATCH URLs of a site at a time (ClaimBatchSize when set; fewer when
 * little is due: seed 004 §4.3.2.2, but at least SITE_MIN_SHARE) and more
 * when it has SITE_LOW left to fetch: a claim takes 2-3 ms, in which a
 * host of the corpus serves about 8 pages (with 4 it ran dry during
 * claims). */
#define MAX_HELD 64
#define SITE_BATCH 32
#define SITE_LOW 8
#define SITE_MIN_SHARE 8
/* Sites looked at per pick, and how often a rank looks for new sites. */
#define PICK_MAX 64
#define PICK_EVERY 0.25
/* After a claim that brought nothing: wait this long before asking again. */
#define CLAIM_IDLE_WAIT 0.5
/* On a stop, how long the transfers in flight may take to finish. */
#define STOP_GRACE 2.0
/* URLs in hand at most (all held sites together). */
#define MAX_IN_HAND (MAX_HELD * SITE_BATCH)
/* Retry a URL after a network error (or a paused host) this much later,
 * at most its Period. */
#define RETRY_NET_ERROR 3600
/* Entries of the rank's seen-set (URL hash -> url_id), 16 bytes each. */
#define SEEN_MAX_ENTRIES (4u << 20)

enum job_kind {
	JOB_PAGE,          /* a claimed URL */
	JOB_ROBOTS_ROW,    /* a claimed robots.txt URL: fetched for the site's rules */
	JOB_ROBOTS_FETCH,  /* robots.txt fetched for a site, no row of ours */
};

struct site;

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

struct site {
	char *key;                   /* "scheme://host[:port]/" */
	unsigned site_id;
	struct robots *robots;       /* NULL = not known yet */
	double robots_until;         /* wall time when it must be fetched again */
	bool robots_db_checked;      /* the robots table was looked at */
	bool robots_fetching;
	struct job *waiting;
	struct site *hnext;
};

/* The live origins of a held site (db_find_origin()'s rows): MD5 -> url_id,
 * loaded when the rank takes the site.  While the rank holds the site's
 * lease no other rank stores its pages (doc/CLUSTER.md), so the rank keeps
 * the table up to date from its own outcomes (flush()) and asks the
 * database nothing per page.  Open addressing; url_id 0 = no live origin. */
struct origin_ent {
	char crc[33];
	bool used;
	uint32_t url_id;
};

struct origins {
	struct origin_ent *v;
	size_t nslots, used;         /* nslots a power of two, used < nslots / 2 */
};

/* A site whose lease the rank holds. */
struct held {
	unsigned site_id;
	struct origins *origins;     /* NULL: ask the database (not loaded) */
	size_t in_hand;              /* claimed URLs of the site not finished */
	size_t delivered;            /* of those, pages fetched (in analysis or commit) */
	bool draining;               /* handed over: no more claims, released at 0 */
	double next_try;             /* monotonic time of the next claim for it */
	double delay;                /* politeness delay owed to the host at release */
};

/* The text columns of a document row, cut to their widths (malloc'd): made
 * by analyse_page(), moved into the pending outcome by page_commit(). */
struct doc_cols {
	char *content_type, *charset, *title, *txt, *keywords, *description;
};

static void doc_cols_free(struct doc_cols *k)
{
	free(k->content_type);
	free(k->charset);
	free(k->title);
	free(k->txt);
	free(k->keywords);
	free(k->description);
	memset(k, 0, sizeof(*k));
}

struct pending {
	struct db_done d;
	struct db_doc doc;
	unsigned site_id;
	char crc[33], last_modified[65], etag[129];
	char old_crc[33];            /* the URL was a live origin with this MD5, or "" */
	struct doc_cols cols;        /* doc's strings */
	void *words;
	uint32_t *hrefs;
};

/* One word of the document being indexed and its positions. */
struct word_ent {
	char word[MAX_WORD_LEN + 1];
	uint8_t len;
	uint32_t n, cap;
	uint32_t slot;               /* its index in word_tab.slots */
	uint64_t key;                /* the first 8 bytes, big-endian, 0-padded */
	uint16_t *pos;
};

struct word_tab {
	struct word_ent *ents;
	const struct word_ent **sorted; /* words_finish(): ents[0..n) in delta_wordcmp() order */
	size_t sorted_cap;
	size_t n, cap;
	uint32_t *slots;             /* index + 1, 0 = empty */
	size_t nslots;
	uint64_t total;
	bool full;
};

/* The admitted links of a page, in document order, each once: the URL and
 * its site key, both in pool. */
struct linklist {
	struct buf pool;             /* "url\0site\0" per link */
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
 * LINKCACHE_POOL bytes are reached. */
struct linkcache {
	struct lcent {
		uint32_t key, key_len;   /* in pool */
		uint32_t val;            /* in pool: "url\0site\0"; UINT32_MAX = not admitted */
		int max_hops;            /* of the URL's Server */
	} *v;
	uint32_t *slots;             /* index + 1, 0 = empty */
	size_t n;
	struct buf pool;
	struct buf key;              /* scratch */
};

#define LINKCACHE_MAX 8192
#define LINKCACHE_POOL (4u << 20)

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
	struct delta_words dw;       /* the DOC record's words, encoded */
	size_t nwords;               /* distinct words */
	uint64_t total;              /* words with repeats */
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

struct pipeline;

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
	struct storer *st;           /* the store thread: NULL with IndexThreads 0 or DBConnectionsPerRank 1 */
	long docs;                   /* pages processed, for -n */
	size_t in_hand;              /* jobs claimed and not finished */
	bool failed;                 /* the rank cannot go on */
	bool leaving;                /* the loop is over: no more claims */
	const char *agent;
	struct held held[MAX_HELD];  /* site leases held */
	size_t nheld;
	double next_pick;            /* monotonic time of the next site pick */
	size_t origins_used;         /* entries of the held sites' clone tables */
	uint64_t claimed, claims;    /* URLs claimed, claim transactions */
	double claim_seconds, store_seconds;
	double origin_seconds;       /* wall time in clone lookups */
	uint64_t origin_pend;        /* clone checks answered by the outcomes not stored */
	uint64_t origin_mem;         /* ... by a clone table */
	uint64_t origin_db;          /* ... by the database (db_find_origin()) */
	double sync_seconds;         /* wall time making the delta log durable */
	double store_wait_seconds;   /* wall time waiting for the store thread */
	double store_thread_seconds; /* of store_seconds: in the store thread */
	double links_seconds;        /* wall time inserting links (in store_seconds) */
	struct crawl_advice adv;     /* the coordinator's last word */
};

/* ---- small helpers ------------------------------------------------------------ */

static uint64_t hash64(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

/* Copy s into a column of at most max bytes, cut on a UTF-8 boundary;
 * NULL becomes "". */
static char *col_dup(const char *s, size_t max)
{
	if (!s)
		return xstrdup("");
	return xstrndup(s, utf8_cut(s, strlen(s), max));
}

static void copy_header(char *dst, size_t size, const char *v)
{
	if (!v || strlen(v) >= size)
		dst[0] = '\0';
	else
		strlcpy_(dst, v, size);
}

/* The media type of a Content-Type value, lowercase, without parameters. */
static void media_type(const char *ctype, char *out, size_t size)
{
	size_t n = 0;

	out[0] = '\0';
	if (!ctype)
		return;
	while (*ctype == ' ' || *ctype == '\t')
		ctype++;
	while (ctype[n] && ctype[n] != ';' && ctype[n] != ' ' && n + 1 < size) {
		char ch = ctype[n];

		out[n] = (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
		if ((unsigned char)out[n] < 0x21 || (unsigned char)out[n] > 0x7e)
			out[n] = '_';
		n++;
	}
	out[n] = '\0';
}

static bool is_html_type(const char *mt)
{
	return !strcmp(mt, "text/html") || !strcmp(mt, "application/xhtml+xml");
}

static bool is_text_type(const char *mt)
{
	return !strcmp(mt, "text/plain") || !strcmp(mt, "text/css") ||
	       !strcmp(mt, "text/tab-separated-values");
}

/* The parameters of the job's URL: its Server block or the defaults,
 * looked up once per job. */
static const struct conf_server_params *job_params(const struct conf *c, struct job *j)
{
	if (!j->p)
		j->p = conf_params_for(c, j->row.url);
	return j->p;
}

static long job_period(const struct conf *c, struct job *j)
{
	long period = job_params(c, j)->period;

	return period > 0 ? period : 7 * 86400;
}

/* ---- sites ------------------------------------------------------------------ */

static struct site *site_get(struct crawl *cr, const char *key, unsigned site_id)
{
	uint64_t h = hash64(key, strlen(key));
	struct site *s;

	if (!cr->sites) {
		cr->nsites_slots = 1024;
		cr->sites = xcalloc(cr->nsites_slots, sizeof(*cr->sites));
	}
	for (s = cr->sites[h & (cr->nsites_slots - 1)]; s; s = s->hnext)
		if (!strcmp(s->key, key))
			return s;
	if (!site_id && db_site_id(cr->db, key, &site_id))
		return NULL;
	s = xcalloc(1, sizeof(*s));
	s->key = xstrdup(key);
	s->site_id = site_id;
	s->hnext = cr->sites[h & (cr->nsites_slots - 1)];
	cr->sites[h & (cr->nsites_slots - 1)] = s;
	if (++cr->nsites > cr->nsites_slots) {
		size_t n = cr->nsites_slots * 2;
		struct site **t = xcalloc(n, sizeof(*t));

		for (size_t i = 0; i < cr->nsites_slots; i++)
			for (struct site *x = cr->sites[i], *nx; x; x = nx) {
				uint64_t hx = hash64(x->key, strlen(x->key));

				nx = x->hnext;
				x->hnext = t[hx & (n - 1)];
				t[hx & (n - 1)] = x;
			}
		free(cr->sites);
		cr->sites = t;
		cr->nsites_slots = n;
	}
	return s;
}

static void sites_free(struct crawl *cr)
{
	for (size_t i = 0; i < cr->nsites_slots; i++)
		for (struct site *s = cr->sites[i], *n; s; s = n) {
			n = s->hnext;
			/* URLs still waiting for robots.txt (a stop): their claims
			 * are released with the others. */
			for (struct job *j = s->waiting, *jn; j; j = jn) {
				jn = j->next;
				free(j);
			}
			robots_free(s->robots);
			free(s->key);
			free(s);
		}
	free(cr->sites);
}

/* ---- the live origins of the held sites ------------------------------------------ */

/* The clone tables of all held sites together hold at most CloneTableEntries
 * entries (conf.h's CLONE_TABLE_ENTRIES by default).  A slot is 40 bytes and a
 * table is at most half full, at least a quarter after it doubled: 80-160
 * bytes per entry.  A site whose table does not fit, when the rank takes the
 * site or as the table grows, asks the database per page (db_find_origin()). */
_Static_assert(sizeof(struct origin_ent) == 40, "doc/CONFIG.md gives 40-byte slots");

static struct origin_ent *origins_slot(struct origins *o, const char *crc)
{
	size_t h = (size_t)hash64(crc, strlen(crc)) & (o->nslots - 1);

	while (o->v[h].used && strcmp(o->v[h].crc, crc))
		h = (h + 1) & (o->nslots - 1);
	return &o->v[h];
}

/* url_id is a live origin with MD5 crc (the lowest url_id wins, as in
 * db_find_origin()). */
static void origins_put(struct origins *o, const char *crc, unsigned url_id)
{
	struct origin_ent *e;

	if (!crc[0] || strlen(crc) >= sizeof(e->crc))
		return;
	if (2 * (o->used + 1) > o->nslots) {
		struct origins n = { xcalloc(2 * o->nslots, sizeof(*o->v)), 2 * o->nslots, 0 };

		for (size_t i = 0; i < o->nslots; i++)
			if (o->v[i].used && o->v[i].url_id) {
				*origins_slot(&n, o->v[i].crc) = o->v[i];
				n.used++;
			}
		free(o->v);
		*o = n;
	}
	e = origins_slot(o, crc);
	if (!e->used) {
		strlcpy_(e->crc, crc, sizeof(e->crc));
		e->used = true;
		o->used++;
	}
	if (!e->url_id || url_id < e->url_id)
		e->url_id = url_id;
}

/* url_id is no longer a live origin with MD5 crc. */
static void origins_drop(struct origins *o, const char *crc, unsigned url_id)
{
	struct origin_ent *e;

	if (!crc[0] || strlen(crc) >= sizeof(e->crc))
		return;
	e = origins_slot(o, crc);
	if (e->used && e->url_id == url_id)
		e->url_id = 0;
}

static void origins_load_one(void *arg, unsigned url_id, const char *crc)
{
	origins_put(arg, crc, url_id);
}

static void origins_free(struct origins *o)
{
	if (o)
		free(o->v);
	free(o);
}

/* Forget the clone table of held site h (the database is asked again). */
static void held_origins_free(struct crawl *cr, struct held *h)
{
	if (h->origins)
		cr->origins_used -= h->origins->used;
	origins_free(h->origins);
	h->origins = NULL;
}

/* Load the live origins of held site h, if they fit what is left of
 * CloneTableEntries (no error: without them the database is asked per page). */
static void origins_load(struct crawl *cr, struct held *h)
{
	size_t budget = (size_t)cr->c->clone_table_entries;
	size_t room = budget > cr->origins_used ? budget - cr->origins_used : 0;
	struct origins *o;
	long n;

	if (!budget) {
		debug("site %u: no clone table (CloneTableEntries 0): the clone check "
		      "asks the database per page", h->site_id);
		return;
	}
	if (!room) {
		info("site %u: no clone table, the %zu entries of CloneTableEntries are in use: "
		     "the clone check asks the database per page", h->site_id, budget);
		return;
	}
	o = xcalloc(1, sizeof(*o));
	o->nslots = 64;
	o->v = xcalloc(o->nslots, sizeof(*o->v));
	n = db_site_origins(cr->db, h->site_id, room, origins_load_one, o);
	if (n < 0 || n > (long)room) {
		if (n > (long)room)
			info("site %u: no clone table, its origins do not fit the %zu entries left "
			     "of CloneTableEntries %zu: the clone check asks the database per page",
			     h->site_id, room, budget);
		origins_free(o);
		return;
	}
	h->origins = o;
	cr->origins_used += o->used;
	debug("site %u: clone table of %zu origins loaded (%zu of CloneTableEntries %zu in use)",
	      h->site_id, o->used, cr->origins_used, budget);
}

static struct held *held_find(struct crawl *cr, unsigned site_id);

/* The stored outcome p changes the live origins of its site.  A table that
 * would outgrow CloneTableEntries is dropped before it grows. */
static void origins_update(struct crawl *cr, const struct pending *p)
{
	struct held *h = held_find(cr, p->site_id);
	size_t before;

	if (!h || !h->origins)
		return;
	before = h->origins->used;
	if (p->old_crc[0])
		origins_drop(h->origins, p->old_crc, p->d.url_id);
	if (p->d.status == 200 && p->d.origin == 1 && !p->d.deleted) {
		if (cr->origins_used >= (size_t)cr->c->clone_table_entries &&
		    !origins_slot(h->origins, p->crc)->used) {
			info("site %u: clone table of %zu origins dropped, CloneTableEntries %ld "
			     "is reached: the clone check asks the database per page",
			     p->site_id, h->origins->used, cr->c->clone_table_entries);
			held_origins_free(cr, h);
			return;
		}
		origins_put(h->origins, p->crc, p->d.url_id);
	}
	cr->origins_used = cr->origins_used - before + h->origins->used;
}

/* ---- the pending batch ---------------------------------------------------------- */

static void pending_clear(struct pending *p)
{
	doc_cols_free(&p->cols);
	free(p->words);
	free(p->hrefs);
	memset(p, 0, sizeof(*p));
}

/* ---- the store thread ------------------------------------------------------------ */

/* With analysis threads the loop also hands each batch of outcomes (its
 * delta records synced) to a store thread with a database connection of its
 * own, and goes on while the batch is stored: at most one batch is in the
 * store thread, the next flush() waits for it.  The rank's clone table is
 * updated when the batch is handed over, and pending_origin() looks at the
 * batch being stored too, so the clone check sees what the inline store
 * would have stored already. */
struct storer {
	pthread_t thread;
	bool started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct db *db;               /* its own connection */
	int rank;
	struct pending batch[PENDING_MAX];
	size_t n;                    /* outcomes in batch (until storer_wait()) */
	bool busy;                   /* batch handed over, not stored yet */
	bool failed;                 /* a store failed: the rank stops */
	bool quit;
	double seconds;              /* wall time in db_store_done(), not yet
	                              * added to crawl.store_seconds */
};

/* The db_done records of n outcomes (pointing into them). */
static void done_records(struct pending *p, size_t n, struct db_done *d)
{
	for (size_t i = 0; i < n; i++) {
		d[i] = p[i].d;
		d[i].crc = p[i].crc;
		d[i].last_modified = p[i].last_modified;
		d[i].etag = p[i].etag;
		d[i].doc = d[i].doc_op == DB_DOC_PUT ? &p[i].doc : NULL;
	}
}

static void *store_thread(void *arg)
{
	struct storer *st = arg;
	struct db_done d[PENDING_MAX];

	pthread_setname_np(pthread_self(), "mpseek-store");
	pthread_mutex_lock(&st->mu);
	for (;;) {
		double t0;
		int rc;

		while (!st->busy && !st->quit)
			pthread_cond_wait(&st->cv, &st->mu);
		if (!st->busy)
			break;
		pthread_mutex_unlock(&st->mu);
		/* The loop does not touch the batch while busy. */
		done_records(st->batch, st->n, d);
		t0 = now_monotonic();
		rc = db_store_done(st->db, st->rank, d, st->n, NULL);
		pthread_mutex_lock(&st->mu);
		st->seconds += now_monotonic() - t0;
		if (rc)
			st->failed = true;
		st->busy = false;
		pthread_cond_broadcast(&st->cv);
	}
	pthread_mutex_unlock(&st->mu);
	return NULL;
}

static void storer_free(struct storer *st);

/* A store thread with its own connection, or NULL after logging. */
static struct storer *storer_new(struct crawl *cr)
{
	struct storer *st = xcalloc(1, sizeof(*st));
	char *sock; /* the embedded server's, used when there is no DBAddr */
	int e;

	pthread_mutex_init(&st->mu, NULL);
	pthread_cond_init(&st->cv, NULL);
	st->rank = cr->o->rank;
	sock = dbserver_socket_path(cr->c->data_dir);
	e = db_open(cr->c, sock, 10, &st->db);
	free(sock);
	if (e) {
		storer_free(st);
		return NULL;
	}
	e = pthread_create(&st->thread, NULL, store_thread, st);
	if (e) {
		error("cannot start the store thread: %s", strerror(e));
		storer_free(st);
		return NULL;
	}
	st->started = true;
	return st;
}

/* Wait until the batch in the store thread (if any) is stored; a failure
 * stops the rank. */
static void storer_wait(struct crawl *cr)
{
	struct storer *st = cr->st;
	double t0 = now_monotonic();

	if (!st || !st->n)
		return;
	pthread_mutex_lock(&st->mu);
	while (st->busy)
		pthread_cond_wait(&st->cv, &st->mu);
	cr->store_seconds += st->seconds;
	cr->store_thread_seconds += st->seconds;
	st->seconds = 0;
	pthread_mutex_unlock(&st->mu);
	cr->store_wait_seconds += now_monotonic() - t0;
	if (st->failed && !cr->failed) {
		cr->failed = true;
		error("storing %zu crawled URL(s) failed: stopping", st->n);
	}
	for (size_t i = 0; i < st->n; i++)
		pending_clear(&st->batch[i]);
	st->n = 0;
}

/* Hand the pending outcomes (their delta records synced) to the store
 * thread. */
static void storer_hand(struct crawl *cr)
{
	struct storer *st = cr->st;

	storer_wait(cr);
	for (size_t i = 0; i < cr->npend; i++) {
		st->batch[i] = cr->pend[i];     /* the strings move with it */
		memset(&cr->pend[i], 0, sizeof(cr->pend[i]));
		origins_update(cr, &st->batch[i]);
	}
	st->n = cr->npend;
	cr->npend = 0;
	pthread_mutex_lock(&st->mu);
	st->busy = true;
	pthread_cond_signal(&st->cv);
	pthread_mutex_unlock(&st->mu);
}

/* Stop the store thread (storer_wait() first) and close its connection. */
static void storer_free(struct storer *st)
{
	if (!st)
		return;
	if (st->started) {
		pthread_mutex_lock(&st->mu);
		st->quit = true;
		pthread_cond_signal(&st->cv);
		pthread_mutex_unlock(&st->mu);
		pthread_join(st->thread, NULL);
	}
	for (size_t i = 0; i < st->n; i++)
		pending_clear(&st->batch[i]);
	db_close(st->db);
	pthread_cond_destroy(&st->cv);
	pthread_mutex_destroy(&st->mu);
	free(st);
}

/* Make the delta records durable, then store the outcomes (here, or in the
 * store thread). */
static int flush(struct crawl *cr)
{
	struct db_done d[PENDING_MAX];
	double ts;
	int rc;

	if (!cr->npend)
		return 0;
	ts = now_monotonic();
	rc = delta_sync(cr->dw);
	cr->sync_seconds += now_monotonic() - ts;
	if (rc) {
		cr->failed = true;
		rc = error("the delta log %s cannot be written: stopping", delta_writer_path(cr->dw));
	} else if (cr->st) {
		storer_hand(cr);
		return cr->failed ? -1 : 0;
	} else {
		double t0 = now_monotonic();

		done_records(cr->pend, cr->npend, d);
		rc = db_store_done(cr->db, cr->o->rank, d, cr->npend, NULL);
		cr->store_seconds += now_monotonic() - t0;
		if (rc) {
			cr->failed = true;
			rc = error("storing %zu crawled URL(s) failed: stopping", cr->npend);
		} else {
			for (size_t i = 0; i < cr->npend; i++)
				origins_update(cr, &cr->pend[i]);
		}
	}
	for (size_t i = 0; i < cr->npend; i++)
		pending_clear(&cr->pend[i]);
	cr->npend = 0;
	return rc;
}

/* A slot for the outcome of job j, filled with "unchanged" defaults. */
static struct pending *pending_new(struct crawl *cr, struct job *j)
{
	struct pending *p;

	if (cr->npend == PENDING_MAX)
		flush(cr);
	if (!cr->npend)
		cr->pend_since = now_monotonic();
	p = &cr->pend[cr->npend++];
	memset(p, 0, sizeof(*p));
	p->site_id = j->row.site_id;
	strlcpy_(p->crc, j->row.crc, sizeof(p->crc));
	strlcpy_(p->last_modified, j->row.last_modified, sizeof(p->last_modified));
	strlcpy_(p->etag, j->row.etag, sizeof(p->etag));
	if (j->row.origin == 1 && j->row.status == 200)
		strlcpy_(p->old_crc, j->row.crc, sizeof(p->old_crc));
	p->d.url_id = j->row.url_id;
	p->d.status = j->row.status;
	p->d.crc = p->crc;
	p->d.last_modified = p->last_modified;
	p->d.etag = p->etag;
	p->d.last_index_time = (long)time(NULL);
	p->d.next_index_time = (long)time(NULL) + job_period(cr->c, j);
	p->d.origin = j->row.origin;
	p->d.doc_op = DB_DOC_KEEP;
	return p;
}

static struct held *held_find(struct crawl *cr, unsigned site_id)
{
	for (size_t i = 0; i < cr->nheld; i++)
		if (cr->held[i].site_id == site_id)
			return &cr->held[i];
	return NULL;
}

static void job_done(struct crawl *cr, struct job *j)
{
	struct held *h = held_find(cr, j->row.site_id);

	if (cr->in_hand)
		cr->in_hand--;
	if (h) {
		if (h->in_hand)
			h->in_hand--;
		if (j->delivered && h->delivered)
			h->delivered--;
		/* What the host is owed at a hand-over: MinDelay raised by
		 * Crawl-delay, as submit() asked of the fetcher. */
		h->delay = j->p ? j->p->min_delay : cr->c->defaults.min_delay;
		if (j->site && j->site->robots && robots_crawl_delay(j->site->robots) > h->delay)
			h->delay = robots_crawl_delay(j->site->robots);
	}
	free(j);
}

/* The URL leaves the index: status st, deleted, a DEL record. */
static void finish_dropped(struct crawl *cr, struct job *j, int st, const char *why)
{
	struct pending *p;

	info("%s: %d %s (%s)", j->row.url, st, http_status_text(st), why);
	cr->t->dropped++;
	if (j->row.status == 200 && delta_add_del(cr->dw, j->row.url_id))
		cr->failed = true;
	p = pending_new(cr, j);
	p->d.status = st;
	p->d.deleted = true;
	p->d.doc_op = j->row.status == 200 ? DB_DOC_DELETE : DB_DOC_KEEP;
	job_done(cr, j);
}

/* Status only; the document (if any) stays as it is. */
static void finish_status(struct crawl *cr, struct job *j, int st, long next_in)
{
	struct pending *p = pending_new(cr, j);

	p->d.status = st;
	if (next_in > 0)
		p->d.next_index_time = (long)time(NULL) + next_in;
	job_done(cr, j);
}

/* ---- admission ------------------------------------------------------------------ */

/* May url be crawled at all, by the config?  hops is the URL's depth;
 * normal: url is what url_resolve() wrote (the trap check need not
 * normalise it again).  0 or a CST_* status with *why. */
static int admit(const struct conf *c, const char *url, int hops, bool from_outside_ok,
		 bool normal, const char **why)
{
	const struct conf_server *sv = conf_server_for(c, url);
	const struct conf_server_params *p = sv ? &sv->p : &c->defaults;

	if (!sv && !url_is_robots(url) && !from_outside_ok && c->delete_no_server) {
		*why = "no Server covers it";
		return CST_FILTERED;
	}
	if (hops > p->max_hops) {
		*why = "more than MaxHops";
		return CST_FILTERED;
	}
	switch (conf_filter_url(c, url)) {
	case VERDICT_DISALLOW:
		*why = "disallowed by the Allow/Disallow chain";
		return CST_FILTERED;
	default:
		break;
	}
	if (normal ? url_trap_check_normal(url, why) : url_trap_check(url, why))
		return CST_TRAP;
	return 0;
}

/* Resolve ref against base and admit it as a link at depth hops of the page
 * `from`, whose parameters are fp and whose site key is from_site.  The
 * normalised URL goes to out, its site key to site (compared with from_site
 * instead of parsing both URLs again).  0 or -1. */
static int admit_page_link(const struct conf *c, const struct conf_server_params *fp,
			   const char *from, const char *from_site, const char *base,
			   const char *ref, int hops, struct buf *out, struct buf *site)
{
	const char *why = NULL;
	int rc = url_resolve(base, ref, out, &why);

	if (rc) {
		if (rc != URL_NOT_CRAWLABLE)
			debug("%s: link %.200s dropped: %s", from, ref, why ? why : "bad URL");
		return -1;
	}
	/* out is in the normal form: its site key is its head. */
	buf_reset(site);
	if (buf_add(site, buf_str(out), url_site_len(buf_str(out))) || !site->len)
		return -1;
	if (!fp->follow_outside && strcmp(buf_str(site), from_site) &&
	    !conf_server_for(c, buf_str(out))) {
		debug("%s: link %s dropped: outside every Server", from, buf_str(out));
		return -1;
	}
	if (admit(c, buf_str(out), hops, fp->follow_outside, true, &why)) {
		debug("%s: link %s dropped: %s", from, buf_str(out), why);
		return -1;
	}
	return 0;
}

/* admit_page_link() for one reference (a redirect): from's site key is
 * worked out here. */
static int admit_link(const struct conf *c, const struct conf_server_params *fp,
		      const char *from, const char *base, const char *ref, int hops, struct buf *out)
{
	struct buf from_site = BUF_INIT(MAX_SITE_LEN), site = BUF_INIT(MAX_SITE_LEN);
	int rc = url_site(from, &from_site, NULL) ? -1 :
		 admit_page_link(c, fp, from, buf_str(&from_site), base, ref, hops, out, &site);

	buf_free(&from_site);
	buf_free(&site);
	return rc;
}

/* ---- links --------------------------------------------------------------------- */

/* Links of a page on their way to urlword; the URLs are borrowed. */
struct linkset {
	struct db_link *v;
	size_t n, cap;
};

/* Add url (not in ls yet) to ls; url is borrowed until linkset_free(). */
static void linkset_add(struct linkset *ls, const char *url, unsigned site_id, int hops,
			unsigned referrer)
{
	if (ls->n == ls->cap) {
		ls->cap = ls->cap ? 2 * ls->cap : 64;
		ls->v = xrealloc(ls->v, ls->cap * sizeof(*ls->v));
	}
	memset(&ls->v[ls->n], 0, sizeof(ls->v[0]));
	ls->v[ls->n].url = url;
	ls->v[ls->n].site_id = site_id;
	ls->v[ls->n].hops = hops;
	ls->v[ls->n].referrer = referrer;
	ls->n++;
}

static void linkset_free(struct linkset *ls)
{
	free(ls->v);
	memset(ls, 0, sizeof(*ls));
}

/* Add a normalised, admitted URL of site key `site` to ls (url borrowed). */
static void link_collect_site(struct crawl *cr, struct linkset *ls, const char *url,
			      const char *site, int hops, unsigned referrer)
{
	struct site *s = site_get(cr, site, 0);

	if (s)
		linkset_add(ls, url, s->site_id, hops, referrer);
}

/* Give every link of ls its url_id: from the seen-set, else one batch
 * through the database.  Returns 0 or -1. */
static int links_resolve(struct crawl *cr, struct linkset *ls)
{
	size_t unknown = 0;
	long added;

	for (size_t i = 0; i < ls->n; i++) {
		uint32_t id = seen_get(cr->seen, ls->v[i].url, strlen(ls->v[i].url));

		ls->v[i].url_id = id;
		if (!id)
			unknown++;
	}
	if (!unknown)
		return 0;
	double t0 = now_monotonic();
	added = db_add_links(cr->db, ls->v, ls->n);
	cr->store_seconds += now_monotonic() - t0;
	cr->links_seconds += now_monotonic() - t0;
	if (added < 0)
		return -1;
	cr->t->links_new += (uint64_t)added;
	for (size_t i = 0; i < ls->n; i++) {
		if (ls->v[i].url_id)
			seen_put(cr->seen, ls->v[i].url, strlen(ls->v[i].url), ls->v[i].url_id);
		if (ls->v[i].added) {
			struct held *h = held_find(cr, ls->v[i].site_id);

			debug("new URL %s (hops %d)", ls->v[i].url, ls->v[i].hops);
			/* A held site that found nothing due the last time has
			 * something now: claim it at once, not after
			 * CLAIM_IDLE_WAIT (a young frontier grows page by page). */
			if (h)
				h->next_try = 0;
		}
	}
	return 0;
}

/* ---- words ------------------------------------------------------------------------ */

/* Forget the words, keep the memory: only the slots in use are cleared (a
 * page of 30,000 words left a table that one memset per page paid for). */
static void words_reset(struct word_tab *w)
{
	for (size_t i = 0; i < w->n; i++) {
		w->ents[i].n = 0;
		w->slots[w->ents[i].slot] = 0;
	}
	w->n = 0;
	w->total = 0;
	w->full = false;
}

/* The hash of a word: 8 bytes at a time, finished as MurmurHash3's fmix64
 * (the table takes the low bits). */
static uint64_t word_hash(const char *s, size_t n)
{
	uint64_t h = (uint64_t)n * 0x9E3779B97F4A7C15ull, v;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&v, s, 8);
		h = (h ^ v) * 0xFF51AFD7ED558CCDull;
		h ^= h >> 32;
	}
	if (n >= 4) {           /* the last 4..7 bytes as two loads that may overlap */
		uint32_t a, b;

		memcpy(&a, s, 4);
		memcpy(&b, s + n - 4, 4);
		h = (h ^ ((uint64_t)a << 32 | b)) * 0xFF51AFD7ED558CCDull;
	} else if (n) {
		h = (h ^ ((uint64_t)(unsigned char)s[0] << 16 |
			  (uint64_t)(unsigned char)s[n / 2] << 8 | (unsigned char)s[n - 1])) *
		    0xFF51AFD7ED558CCDull;
	}
	h ^= h >> 33;
	h *= 0xC4CEB9FE1A85EC53ull;
	return h ^ (h >> 33);
}

/* The first 8 bytes of a word as a number that orders as memcmp() does,
 * a shorter prefix first (words hold no NUL). */
static uint64_t word_key(const char *s, size_t n)
{
	uint64_t k = 0;

	for (size_t i = 0; i < 8; i++)
		k = k << 8 | (i < n ? (unsigned char)s[i] : 0);
	return k;
}

static void words_free(struct word_tab *w)
{
	for (size_t i = 0; i < w->cap; i++)
		free(w->ents[i].pos);
	free(w->ents);
	free(w->sorted);
	free(w->slots);
	memset(w, 0, sizeof(*w));
}

static void words_rehash(struct word_tab *w, size_t nslots)
{
	free(w->slots);
	w->nslots = nslots;
	w->slots = xcalloc(nslots, sizeof(*w->slots));
	for (size_t i = 0; i < w->n; i++) {
		size_t h = (size_t)word_hash(w->ents[i].word, w->ents[i].len) & (nslots - 1);

		while (w->slots[h])
			h = (h + 1) & (nslots - 1);
		w->slots[h] = (uint32_t)i + 1;
		w->ents[i].slot = (uint32_t)h;
	}
}

/* a[0..n) == b[0..n), n >= 1: words are short, so two loads that may
 * overlap instead of a call to memcmp() up to 16 bytes (no byte outside
 * either word is read). */
static inline bool word_eq(const char *a, const char *b, size_t n)
{
	if (n >= 8) {
		uint64_t a0, a1, b0, b1;

		if (n > 16)
			return !memcmp(a, b, n);
		memcpy(&a0, a, 8);
		memcpy(&b0, b, 8);
		memcpy(&a1, a + n - 8, 8);
		memcpy(&b1, b + n - 8, 8);
		return !((a0 ^ b0) | (a1 ^ b1));
	}
	if (n >= 4) {
		uint32_t a0, a1, b0, b1;

		memcpy(&a0, a, 4);
		memcpy(&b0, b, 4);
		memcpy(&a1, a + n - 4, 4);
		memcpy(&b1, b + n - 4, 4);
		return !((a0 ^ b0) | (a1 ^ b1));
	}
	return a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1];
}

static int word_emit(const char *word, size_t len, uint16_t pos, bool stop, void *arg)
{
	struct word_tab *w = arg;
	struct word_ent *e;
	size_t h;

	if (stop || len > MAX_WORD_LEN)
		return 0;
	if (!w->slots)
		words_rehash(w, 1024);
	h = (size_t)word_hash(word, len) & (w->nslots - 1);
	while (w->slots[h]) {
		e = &w->ents[w->slots[h] - 1];
		if (e->len == len && word_eq(e->word, word, len))
			goto found;
		h = (h + 1) & (w->nslots - 1);
	}
	if (w->n >= DELTA_MAX_DOC_WORDS) {
		w->full = true;
		return 0;
	}
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 256;

		w->ents = xrealloc(w->ents, cap * sizeof(*w->ents));
		memset(w->ents + w->cap, 0, (cap - w->cap) * sizeof(*w->ents));
		w->cap = cap;
	}
	e = &w->ents[w->n];
	memcpy(e->word, word, len);
	e->word[len] = '\0';
	e->len = (uint8_t)len;
	e->n = 0;
	e->slot = (uint32_t)h;
	e->key = word_key(word, len);
	w->slots[h] = (uint32_t)++w->n;
	if (2 * w->n > w->nslots)
		words_rehash(w, 2 * w->nslots);
found:
	if (e->n == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 4;
		e->pos = xrealloc(e->pos, e->cap * sizeof(*e->pos));
	}
	if (e->n < DELTA_MAX_WORD_POSITIONS + 1u)
		e->pos[e->n++] = pos;
	w->total++;
	return 0;
}

struct text_ctx {
	const struct tokenizer *tok;
	struct word_tab *words;
	struct tok_doc td;
};

static void text_cb(enum section sec, const char *utf8, size_t len, void *arg)
{
	struct text_ctx *x = arg;

	tok_run(x->tok, &x->td, (int)sec, utf8, len, word_emit, x->words);
}

static int cmp_u16(const void *a, const void *b)
{
	uint16_t x = *(const uint16_t *)a, y = *(const uint16_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* delta_wordcmp() order of two words, by their keys first. */
static inline bool word_less(const struct word_ent *x, const struct word_ent *y)
{
	if (x->key != y->key)
		return x->key < y->key;
	if (x->len <= 8 || y->len <= 8)
		return x->len < y->len;
	return delta_wordcmp(x->word + 8, x->len - 8u, y->word + 8, y->len - 8u) < 0;
}

/* Sort v[0..n) by word_less(): quicksort, median of three, the smaller side
 * first by recursion (depth at most log2 n), insertion sort below 16.  Half
 * of what qsort() with delta_wordcmp() cost. */
static void word_sort(const struct word_ent **v, size_t n)
{
	while (n > 16) {
		const struct word_ent *t, *p;
		size_t a = 0, b = n / 2, c = n - 1, i, j;

		if (word_less(v[b], v[a])) { t = v[a]; v[a] = v[b]; v[b] = t; }
		if (word_less(v[c], v[b])) { t = v[b]; v[b] = v[c]; v[c] = t; }
		if (word_less(v[b], v[a])) { t = v[a]; v[a] = v[b]; v[b] = t; }
		p = v[b];
		i = 0;
		j = n - 1;
		for (;;) {
			while (word_less(v[i], p))
				i++;
			while (word_less(p, v[j]))
				j--;
			if (i >= j)
				break;
			t = v[i]; v[i] = v[j]; v[j] = t;
			i++;
			j--;
		}
		/* v[0..j] <= p <= v[j+1..n) */
		if (j + 1 < n - j - 1) {
			word_sort(v, j + 1);
			v += j + 1;
			n -= j + 1;
		} else {
			word_sort(v + j + 1, n - j - 1);
			n = j + 1;
		}
	}
	for (size_t i = 1; i < n; i++) {
		const struct word_ent *x = v[i];
		size_t k = i;

		for (; k > 0 && word_less(x, v[k - 1]); k--)
			v[k] = v[k - 1];
		v[k] = x;
	}
}

/* Reverse v[0..n) in place. */
static void reverse_u16(uint16_t *v, size_t n)
{
	for (size_t i = 0, j = n; i + 1 < j; i++, j--) {
		uint16_t t = v[i];

		v[i] = v[j - 1];
		v[j - 1] = t;
	}
}

/* Sort a word's positions.  They come as ascending runs, one per section
 * in the order html_foreach_text() visits them (title, description,
 * keywords, body): descending by the section bits.  When every run lies
 * wholly above the next, the runs in reverse order are sorted: reverse the
 * whole, then each run back (no comparison sort).  Else qsort().  Most
 * words are in order already (in one section): one pass, nothing moved. */
static void positions_sort(uint16_t *pos, size_t n)
{
	size_t cut[SECTION_COUNT + 1], ncut = 0;

	for (size_t m = 1; m < n; m++) {
		if (pos[m - 1] <= pos[m])
			continue;
		/* A descent: the run before must lie wholly above the run
		 * after it, checked once the latter ends (below). */
		if (ncut == SECTION_COUNT)
			goto fallback;
		cut[ncut++] = m;
	}
	if (!ncut)
		return;
	cut[ncut] = n;
	for (size_t k = 0; k < ncut; k++) {
		size_t from = k ? cut[k - 1] : 0;

		/* run k is pos[from, cut[k]), run k + 1 pos[cut[k], cut[k + 1]) */
		if (pos[cut[k + 1] - 1] > pos[from])
			goto fallback;
	}
	reverse_u16(pos, n);
	/* The runs now stand in reverse order, each reversed. */
	for (size_t k = 0; k <= ncut; k++) {
		size_t from = k ? cut[k - 1] : 0;

		/* Run k of the input, pos[from, cut[k]), sits reversed at
		 * pos[n - cut[k], n - from). */
		reverse_u16(pos + (n - cut[k]), cut[k] - from);
	}
	return;
fallback:
	qsort(pos, n, sizeof(*pos), cmp_u16);
}

/* Sort the positions of every word and make them unique (saturated
 * positions repeat), at most DELTA_MAX_WORD_POSITIONS; list the words in
 * the order of a DOC record (here, on an analysis thread, rather than in
 * the delta writer on the crawl loop). */
static void words_finish(struct word_tab *w)
{
	if (w->n > w->sorted_cap) {
		w->sorted_cap = w->n;
		w->sorted = xrealloc(w->sorted, w->sorted_cap * sizeof(*w->sorted));
	}
	for (size_t i = 0; i < w->n; i++)
		w->sorted[i] = &w->ents[i];
	word_sort(w->sorted, w->n);
	for (size_t i = 0; i < w->n; i++) {
		struct word_ent *e = &w->ents[i];
		size_t k = 0;

		positions_sort(e->pos, e->n);
		for (size_t m = 0; m < e->n; m++)
			if (!k || e->pos[k - 1] != e->pos[m])
				e->pos[k++] = e->pos[m];
		e->n = (uint32_t)(k > DELTA_MAX_WORD_POSITIONS ? DELTA_MAX_WORD_POSITIONS : k);
	}
}

/* ---- robots.txt ---------------------------------------------------------------- */

static void submit(struct crawl *cr, struct job *j);
static void job_admit(struct crawl *cr, struct job *j);

static void site_set_robots(struct crawl *cr, struct site *s, struct robots *r, int status)
{
	struct buf blob = BUF_INIT(MAX_ROBOTS_BYTES * 4);
	double age = robots_max_age(r);
	double delay = robots_crawl_delay_raw(r);
	struct job *w;

	if (s->robots != r)
		robots_free(s->robots);
	s->robots = r;
	s->robots_until = now_wall() + age;
	s->robots_fetching = false;
	if (delay > ROBOTS_MAX_CRAWL_DELAY)
		warning("%s: Crawl-delay %.0f s capped at %.0f s", s->key, delay,
			ROBOTS_MAX_CRAWL_DELAY);
	if (robots_serialize(r, &blob) == 0 &&
	    db_robots_put(cr->db, s->site_id, status, (long)s->robots_until, blob.ptr, blob.len))
		warning("%s: could not store robots.txt in the database", s->key);
	buf_free(&blob);
	/* The URLs that waited for these rules go on. */
	w = s->waiting;
	s->waiting = NULL;
	while (w) {
		struct job *n = w->next;

		w->next = NULL;
		job_admit(cr, w);
		w = n;
	}
}

/* Start fetching robots.txt of site s (internal: no row of ours). */
static void robots_fetch(struct crawl *cr, struct site *s)
{
	struct job *j = xcalloc(1, sizeof(*j));

	j->kind = JOB_ROBOTS_FETCH;
	j->site = s;
	snprintf(j->fetch_url, sizeof(j->fetch_url), "%srobots.txt", s->key);
	strlcpy_(j->row.url, j->fetch_url, sizeof(j->row.url));
	s->robots_fetching = true;
	submit(cr, j);
}

/* The rules of site s are known and fresh: 1; being fetched: 0 (j waits
 * on the site); -1 on a database error. */
static int robots_ready(struct crawl *cr, struct site *s, struct job *j)
{
	if (s->robots && s->robots_until > now_wall())
		return 1;
	if (!s->robots_db_checked) {
		void *blob = NULL;
		size_t len = 0;
		long expires = 0;
		int status = 0, rc;

		s->robots_db_checked = true;
		rc = db_robots_get(cr->db, s->site_id, &blob, &len, &expires, &status);
		if (rc < 0)
			return -1;
		if (rc == 1 && expires > (long)time(NULL) && blob) {
			struct robots *r = robots_deserialize(blob, len);

			if (r) {
				robots_free(s->robots);
				s->robots = r;
				s->robots_until = (double)expires;
				free(blob);
				return 1;
			}
		}
		free(blob);
	}
	j->next = s->waiting;
	s->waiting = j;
	if (!s->robots_fetching)
		robots_fetch(cr, s);
	return 0;
}

/* The rules of site s we have, fresh or not: the rank's copy, else the
 * robots table's.  NULL when there are none. */
static struct robots *robots_known(struct crawl *cr, struct site *s)
{
	void *blob = NULL;
	size_t len = 0;
	long expires = 0;
	int status = 0;
	struct robots *r = NULL;

	if (s->robots)
		return s->robots;
	if (db_robots_get(cr->db, s->site_id, &blob, &len, &expires, &status) == 1 && blob)
		r = robots_deserialize(blob, len);
	free(blob);
	return r;
}

/* A robots.txt response (or failure) for site s; j is the robots job. */
static void robots_result(struct crawl *cr, struct job *j, const struct fetch_result *r)
{
	struct site *s = j->site;
	struct robots *rules = NULL;
	int st = r->err == FETCH_ERR_NONE || r->err == FETCH_ERR_TOO_BIG ? (int)r->status : 0;
	enum robots_policy pol = robots_status_policy(st, 0);
	char mt[64];

	if (pol == ROBOTS_POLICY_REDIRECT && r->location && j->hops < ROBOTS_MAX_REDIRECTS) {
		struct buf next = BUF_INIT(MAX_URL_LEN + 1);

		if (url_resolve(j->fetch_url, r->location, &next, NULL) == 0) {
			debug("%s: robots.txt redirects to %s", s->key, buf_str(&next));
			strlcpy_(j->fetch_url, buf_str(&next), sizeof(j->fetch_url));
			j->hops++;
			buf_free(&next);
			submit(cr, j);
			return;
		}
		buf_free(&next);
	}
	if (pol == ROBOTS_POLICY_KEEP) {
		/* 304 to our conditional GET: the rules we have stay valid. */
		rules = robots_known(cr, s);
		if (!rules) {
			debug("%s: robots.txt 304 but no rules kept: fetched again", s->key);
			j->row.etag[0] = j->row.last_modified[0] = '\0';
			submit(cr, j);
			return;
		}
	}
	media_type(r->content_type, mt, sizeof(mt));
	if (pol == ROBOTS_POLICY_KEEP) {
		/* rules kept */
	} else if (pol == ROBOTS_POLICY_PARSE && is_html_type(mt)) {
		/* ASPseek: an HTML "robots.txt" is a soft-404 home page. */
		warning("%s: robots.txt is %s, not text: taken as absent", s->key, mt);
		rules = robots_allow_all();
	} else if (pol == ROBOTS_POLICY_PARSE) {
		rules = robots_parse(r->body.ptr ? r->body.ptr : "", r->body.len, cr->agent);
		if (robots_warnings(rules) & ROBOTS_W_TRUNCATED)
			warning("%s: robots.txt longer than %d bytes: the rest is ignored", s->key,
				MAX_ROBOTS_BYTES);
	} else {
		rules = robots_from_status(st, 0);
		if (robots_is_temporary(rules) && r->err)
			warning("%s: robots.txt unavailable (%s: %s): the site is retried later",
				s->key, fetch_err_name(r->err), r->reason);
		else if (robots_is_temporary(rules))
			warning("%s: robots.txt unavailable (status %ld): the site is retried later",
				s->key, r->status);
	}
	if (pol == ROBOTS_POLICY_KEEP)
		info("%s: 304 robots.txt not modified, %zu rule(s) kept", j->fetch_url,
		     robots_rule_count(rules));
	else if (strcmp(j->fetch_url, j->row.url))
		info("%s: %ld robots.txt %s, %zu rule(s) (after %d redirect(s), last %s)",
		     j->row.url, r->status, robots_policy_name(pol), robots_rule_count(rules),
		     j->hops, j->fetch_url);
	else
		info("%s: %ld robots.txt %s, %zu rule(s)", j->fetch_url, r->status,
		     robots_policy_name(pol), robots_rule_count(rules));
	if (j->kind == JOB_ROBOTS_ROW) {
		struct pending *p = pending_new(cr, j);

		p->d.status = st == 304 ? 200 : st ? st : r->err == FETCH_ERR_DNS ? CST_DNS
				: r->err == FETCH_ERR_TIMEOUT ? CST_TIMEOUT : CST_CONNECT;
		if (pol == ROBOTS_POLICY_PARSE) {
			/* The validators of the next conditional GET. */
			copy_header(p->last_modified, sizeof(p->last_modified), r->last_modified);
			copy_header(p->etag, sizeof(p->etag), r->etag);
		}
		p->d.next_index_time = (long)time(NULL) + (long)robots_max_age(rules);
		cr->t->fetched += st != 0;
	}
	site_set_robots(cr, s, rules, pol == ROBOTS_POLICY_KEEP ? 200 : st);
	if (j->kind == JOB_ROBOTS_ROW)
		job_done(cr, j);
	else
		free(j);
}

/* ---- fetching -------------------------------------------------------------------- */

static void submit(struct crawl *cr, struct job *j)
{
	const struct conf_server_params *p = job_params(cr->c, j);
	bool robots_job = j->kind != JOB_PAGE;
	/* Pages, and robots.txt rows fetched before (not after a redirect):
	 * a 304 keeps the rules (robots_result). */
	bool conditional = !cr->o->force && j->row.status == 200 &&
			   (j->kind == JOB_PAGE || (j->kind == JOB_ROBOTS_ROW && !j->hops));
	double delay = p->min_delay;
	struct fetch_req req = {
		.url = robots_job ? j->fetch_url : j->row.url,
		.user = j,
		.if_modified_since = conditional && j->row.last_modified[0] ? j->row.last_modified : NULL,
		.if_none_match = conditional && j->row.etag[0] ? j->row.etag : NULL,
		.head = j->head,
		.proxy = p->proxy,
		.read_timeout = (double)p->read_timeout,
		.max_size = robots_job ? MAX_ROBOTS_BYTES + 1 : 0,
	};

	if (j->site && j->site->robots && robots_crawl_delay(j->site->robots) > delay)
		delay = robots_crawl_delay(j->site->robots);
	req.host_delay = delay;
	fetcher_add(cr->f, &req);
}

/* Decide what to do with a claimed (or waiting) job: drop, wait, fetch. */
static void job_admit(struct crawl *cr, struct job *j)
{
	const char *why = NULL;
	struct buf site = BUF_INIT(MAX_URL_LEN + 1);
	const struct conf_server_params *p = job_params(cr->c, j);
	struct buf target = BUF_INIT(MAX_URL_LEN + 1);
	int st, rc;

	if (!j->site) {
		rc = url_site(j->row.url, &site, &why);
		if (rc) {
			buf_free(&site);
			buf_free(&target);
			finish_dropped(cr, j, CST_BAD_URL, why ? why : "not http(s)");
			return;
		}
		j->site = site_get(cr, buf_str(&site), j->row.site_id);
		buf_free(&site);
		if (!j->site) {
			cr->failed = true;
			job_done(cr, j);
			buf_free(&target);
			return;
		}
	}
	if (url_is_robots(j->row.url)) {
		j->kind = JOB_ROBOTS_ROW;
		strlcpy_(j->fetch_url, j->row.url, sizeof(j->fetch_url));
		j->site->robots_fetching = true;
		buf_free(&target);
		submit(cr, j);
		return;
	}
	st = admit(cr->c, j->row.url, j->row.hops, !cr->c->delete_no_server, false, &why);
	if (st) {
		buf_free(&target);
		finish_dropped(cr, j, st, why);
		return;
	}
	if (p->robots) {
		rc = robots_ready(cr, j->site, j);
		if (rc < 0) {
			cr->failed = true;
			job_done(cr, j);
		}
		if (rc <= 0) {
			buf_free(&target);
			return;
		}
		if (robots_is_temporary(j->site->robots)) {
			buf_free(&target);
			finish_status(cr, j, CST_ROBOTS_UNAVAILABLE, ROBOTS_RETRY_SECONDS);
			return;
		}
		if (url_request_target(j->row.url, &target, NULL) == 0 &&
		    !robots_allowed(j->site->robots, buf_str(&target))) {
			buf_free(&target);
			finish_dropped(cr, j, CST_ROBOTS, "disallowed by robots.txt");
			return;
		}
	}
	buf_free(&target);
	j->head = conf_filter_url(cr->c, j->row.url) == VERDICT_CHECKONLY;
	submit(cr, j);
}

/* ---- a page response ----------------------------------------------------------- */

/* Insert url (normalised, admitted), the target of a redirect of job j;
 * returns its url_id or 0. */
static unsigned redirect_to(struct crawl *cr, struct job *j, const char *url)
{
	const struct conf_server_params *p = job_params(cr->c, j);
	struct buf site = BUF_INIT(MAX_URL_LEN + 1);
	struct linkset ls = { 0 };
	int hops = j->row.hops + (p->increment_hops_on_redirect ? 1 : 0);
	unsigned id = 0;

	if (url_site(url, &site, NULL) == 0)
		link_collect_site(cr, &ls, url, buf_str(&site), hops, j->row.url_id);
	if (ls.n && links_resolve(cr, &ls) == 0)
		id = ls.v[0].url_id;
	linkset_free(&ls);
	buf_free(&site);
	return id;
}

/* A redirect of job j to ref (Location): admit and insert the target;
 * returns its url_id or 0. */
static unsigned redirect_target(struct crawl *cr, struct job *j, const char *ref,
				const char **why)
{
	const struct conf_server_params *p = job_params(cr->c, j);
	struct buf to = BUF_INIT(MAX_URL_LEN + 1);
	int hops = j->row.hops + (p->increment_hops_on_redirect ? 1 : 0);
	unsigned id = 0;

	*why = "target refused";
	if (admit_link(cr->c, p, j->row.url, j->row.url, ref, hops, &to) == 0) {
		if (!strcmp(buf_str(&to), j->row.url))
			*why = "redirect to itself";
		else
			id = redirect_to(cr, j, buf_str(&to));
	}
	buf_free(&to);
	return id;
}

/* How many redirects led to url_id in this run (0 = none known). */
static uint32_t redirect_depth(const struct crawl *cr, unsigned url_id)
{
	return seen_get(cr->redir_depth, (const char *)&url_id, sizeof(url_id));
}

/* Count one more hop for the target of a redirect from j; false when the
 * chain is longer than RedirectLoopLimit. */
static bool redirect_allowed(struct crawl *cr, struct job *j, const char **why)
{
	const struct conf_server_params *p = job_params(cr->c, j);
	uint32_t d = redirect_depth(cr, j->row.url_id) + 1;

	if ((long)d > p->redirect_loop_limit) {
		*why = "RedirectLoopLimit reached";
		return false;
	}
	return true;
}

static void note_redirect(struct crawl *cr, const struct job *j, unsigned target)
{
	uint32_t d = redirect_depth(cr, j->row.url_id) + 1;

	seen_put(cr->redir_depth, (const char *)&target, sizeof(target), d);
}

static void page_redirect(struct crawl *cr, struct job *j, const struct fetch_result *r)
{
	struct pending *p;
	const char *why = "no Location";
	unsigned id = 0;
	bool limit = false;

	if (!redirect_allowed(cr, j, &why))
		limit = true;
	else if (r->location && r->location[0])
		id = redirect_target(cr, j, r->location, &why);
	cr->t->redirects++;
	if (!id) {
		info("%s: %ld redirect to %.200s not followed (%s)", j->row.url, r->status,
		     r->location ? r->location : "", why);
		p = pending_new(cr, j);
		p->d.status = limit || !strcmp(why, "redirect to itself") ? CST_REDIRECT_LIMIT
									 : (int)r->status;
		/* A URL that only leads back to itself or too far leaves the crawl. */
		p->d.deleted = p->d.status == CST_REDIRECT_LIMIT;
		p->d.redir = 0;
		job_done(cr, j);
		return;
	}
	note_redirect(cr, j, id);
	info("%s: %ld redirect to url %u (%.200s)", j->row.url, r->status, id, r->location);
	if (delta_add_redir(cr->dw, j->row.url_id, id))
		cr->failed = true;
	p = pending_new(cr, j);
	p->d.status = (int)r->status;
	p->d.redir = id;
	job_done(cr, j);
}

/* Another origin with the same MD5 in the same site among the outcomes not
 * stored yet. */
static unsigned origin_among(const struct pending *v, size_t n, unsigned site_id,
			     const char *crc, unsigned url_id)
{
	for (size_t i = 0; i < n; i++) {
		const struct pending *p = &v[i];

		if (p->site_id == site_id && p->d.url_id != url_id && p->d.status == 200 &&
		    p->d.origin == 1 && !p->d.deleted && !strcmp(p->crc, crc))
			return p->d.url_id;
	}
	return 0;
}

static unsigned pending_origin(struct crawl *cr, unsigned site_id, const char *crc,
			       unsigned url_id)
{
	unsigned id = 0;

	/* The batch in the store thread first: it is older. */
	if (cr->st)
		id = origin_among(cr->st->batch, cr->st->n, site_id, crc, url_id);
	return id ? id : origin_among(cr->pend, cr->npend, site_id, crc, url_id);
}

/* ---- a page body: analysis (pure) and commit (the rank's state) -------------- */

static void linklist_init(struct linklist *l)
{
	memset(l, 0, sizeof(*l));
	buf_init(&l->pool, (size_t)MAX_HTML_LINKS * 2 * (MAX_URL_LEN + 1));
}

static void linklist_reset(struct linklist *l)
{
	buf_reset(&l->pool);
	l->n = 0;
	if (l->slots)
		memset(l->slots, 0, l->nslots * sizeof(*l->slots));
}

static void linklist_free(struct linklist *l)
{
	buf_free(&l->pool);
	free(l->off);
	free(l->slots);
	memset(l, 0, sizeof(*l));
}

static const char *linklist_url(const struct linklist *l, size_t i)
{
	return l->pool.ptr + l->off[i];
}

/* The site key stored after the URL. */
static const char *linklist_site(const struct linklist *l, size_t i)
{
	const char *u = linklist_url(l, i);

	return u + strlen(u) + 1;
}

static void linklist_rehash(struct linklist *l, size_t nslots)
{
	free(l->slots);
	l->nslots = nslots;
	l->slots = xcalloc(nslots, sizeof(*l->slots));
	for (size_t i = 0; i < l->n; i++) {
		const char *u = linklist_url(l, i);
		size_t h = (size_t)hash64(u, strlen(u)) & (nslots - 1);

		while (l->slots[h])
			h = (h + 1) & (nslots - 1);
		l->slots[h] = (uint32_t)i + 1;
	}
}

/* Add url (normalised) with its site key, unless it is there already. */
static void linklist_add(struct linklist *l, const char *url, const char *site)
{
	size_t len = strlen(url), off, h;

	if (!l->slots || 2 * (l->n + 1) > l->nslots)
		linklist_rehash(l, l->nslots ? 2 * l->nslots : 256);
	h = (size_t)hash64(url, len) & (l->nslots - 1);
	for (; l->slots[h]; h = (h + 1) & (l->nslots - 1))
		if (!strcmp(linklist_url(l, l->slots[h] - 1), url))
			return;
	off = l->pool.len;
	if (buf_add(&l->pool, url, len + 1) || buf_add(&l->pool, site, strlen(site) + 1)) {
		buf_truncate(&l->pool, off);
		return;
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->off = xrealloc(l->off, l->cap * sizeof(*l->off));
	}
	l->off[l->n] = (uint32_t)off;
	l->slots[h] = (uint32_t)++l->n;
}

/* A converted body above this size does not keep its buffer for the next
 * page. */
#define UTF8_KEEP (1u << 20)

static struct refent *refset_slot(struct refset *r, const char *p, size_t len)
{
	size_t h = (size_t)hash64(p, len) & (r->nslots - 1);

	while (r->v[h].p && (r->v[h].len != len || memcmp(r->v[h].p, p, len)))
		h = (h + 1) & (r->nslots - 1);
	return &r->v[h];
}

/* Was a reference with ref's text before '#' added? */
static bool refset_has(struct refset *r, const char *ref)
{
	return r->n && refset_slot(r, ref, strcspn(ref, "#"))->p;
}

static void refset_add(struct refset *r, const char *ref)
{
	size_t len = strcspn(ref, "#");
	struct refent *e;

	if (2 * (r->n + 1) > r->nslots) {
		struct refset g = { xcalloc(r->nslots ? 2 * r->nslots : 256, sizeof(*r->v)),
				    r->nslots ? 2 * r->nslots : 256, r->n };

		for (size_t i = 0; i < r->nslots; i++)
			if (r->v[i].p)
				*refset_slot(&g, r->v[i].p, r->v[i].len) = r->v[i];
		free(r->v);
		*r = g;
	}
	e = refset_slot(r, ref, len);
	if (!e->p) {
		e->p = ref;
		e->len = len;
		r->n++;
	}
}

/* Empty the set; a table grown by a page of thousands of links shrinks back
 * rather than be cleared whole for every page after it. */
static void refset_reset(struct refset *r)
{
	if (r->nslots > 256 && 16 * r->n < r->nslots) {
		free(r->v);
		r->v = NULL;
		r->nslots = 0;
	} else if (r->n) {
		memset(r->v, 0, r->nslots * sizeof(*r->v));
	}
	r->n = 0;
}

static void linkcache_init(struct linkcache *lc)
{
	memset(lc, 0, sizeof(*lc));
	buf_init(&lc->pool, LINKCACHE_POOL);
	buf_init(&lc->key, 3 * (MAX_URL_LEN + 1) + 64);
	lc->v = xmalloc(LINKCACHE_MAX * sizeof(*lc->v));
	lc->slots = xcalloc(2 * LINKCACHE_MAX, sizeof(*lc->slots));
}

static void linkcache_free(struct linkcache *lc)
{
	buf_free(&lc->pool);
	buf_free(&lc->key);
	free(lc->v);
	free(lc->slots);
	memset(lc, 0, sizeof(*lc));
}

/* The slot of the key in lc->key: a free one or the one holding it. */
static uint32_t *linkcache_slot(struct linkcache *lc)
{
	const char *k = lc->key.ptr;
	size_t len = lc->key.len, mask = 2 * LINKCACHE_MAX - 1;
	size_t h = (size_t)hash64(k, len) & mask;

	for (; lc->slots[h]; h = (h + 1) & mask) {
		const struct lcent *e = &lc->v[lc->slots[h] - 1];

		if (e->key_len == len && !memcmp(lc->pool.ptr + e->key, k, len))
			break;
	}
	return &lc->slots[h];
}

/* Keep the outcome for the key in lc->key: url and site when admitted,
 * NULL when not.  Empties the cache first when it is full. */
static void linkcache_put(struct linkcache *lc, uint32_t *slot, const char *url, const char *site,
			  int max_hops)
{
	size_t need = lc->key.len + (url ? strlen(url) + strlen(site) + 2 : 0);
	struct lcent *e;

	if (lc->n == LINKCACHE_MAX || lc->pool.len + need + 1 > LINKCACHE_POOL) {
		lc->n = 0;
		buf_reset(&lc->pool);
		memset(lc->slots, 0, 2 * LINKCACHE_MAX * sizeof(*lc->slots));
		slot = linkcache_slot(lc);
	}
	e = &lc->v[lc->n];
	e->key = (uint32_t)lc->pool.len;
	e->key_len = (uint32_t)lc->key.len;
	if (buf_add(&lc->pool, lc->key.ptr, lc->key.len))
		return;
	e->val = UINT32_MAX;
	e->max_hops = max_hops;
	if (url) {
		e->val = (uint32_t)lc->pool.len;
		if (buf_add(&lc->pool, url, strlen(url) + 1) ||
		    buf_add(&lc->pool, site, strlen(site) + 1)) {
			buf_truncate(&lc->pool, e->key);
			return;
		}
	}
	*slot = (uint32_t)++lc->n;
}

/* admit_page_link() through the cache of the analysis thread (struct
 * linkcache).  base_dir: the length of base up to its last '/'.  On 0,
 * *url and *site are the admitted URL and its site key, valid until the
 * next call.  Not used when debug lines are logged: those say why each
 * link was dropped. */
static int admit_page_link_cached(struct linkcache *lc, const struct conf *c,
				  const struct conf_server_params *fp, const char *from,
				  const char *from_site, const char *base, size_t base_dir,
				  const char *ref, int hops, struct buf *lk, struct buf *sitebuf,
				  const char **url, const char **site)
{
	uint32_t *slot = NULL;
	int rc;

	if ((unsigned char)ref[0] > ' ' && ref[0] != '?' && ref[0] != '#' &&
	    log_get_level() < LOG_DEBUG) {
		buf_reset(&lc->key);
		if (!buf_add(&lc->key, (const char *)&fp, sizeof(fp)) &&
		    !buf_add(&lc->key, from_site, strlen(from_site) + 1) &&
		    !buf_add(&lc->key, base, base_dir) && !buf_addc(&lc->key, '\0') &&
		    !buf_add(&lc->key, ref, strcspn(ref, "#"))) {
			slot = linkcache_slot(lc);
			if (*slot) {
				const struct lcent *e = &lc->v[*slot - 1];

				if (e->val == UINT32_MAX || hops > e->max_hops)
					return -1;
				*url = lc->pool.ptr + e->val;
				*site = *url + strlen(*url) + 1;
				return 0;
			}
		}
	}
	/* Kept: admitted at depth 0, the depth checked below. */
	rc = admit_page_link(c, fp, from, from_site, base, ref, slot ? 0 : hops, lk, sitebuf);
	*url = buf_str(lk);
	*site = buf_str(sitebuf);
	if (slot) {
		const struct conf_server *sv = rc ? NULL : conf_server_for(c, *url);
		int max_hops = sv ? sv->p.max_hops : c->defaults.max_hops;

		linkcache_put(lc, slot, rc ? NULL : *url, *site, max_hops);
		if (!rc && hops > max_hops)
			rc = -1;
	}
	return rc;
}

/* The length of base up to and with its last '/' before any query. */
static size_t base_dir_len(const char *base)
{
	size_t n = strcspn(base, "?#");

	while (n && base[n - 1] != '/')
		n--;
	return n;
}

#define SLOT_KEEP (256u << 10)

static void analysis_init(struct analysis *a)
{
	memset(a, 0, sizeof(*a));
	linklist_init(&a->links);
	delta_words_init(&a->dw);
}

static void analyser_init(struct analyser *an)
{
	memset(an, 0, sizeof(*an));
	linkcache_init(&an->lc);
	buf_init(&an->utf8, (size_t)MAX_DOC_BYTES * 2);
	an->zbuf = xmalloc(DOCBLOB_SCRATCH);
}

static void analyser_free(struct analyser *an)
{
	linkcache_free(&an->lc);
	buf_free(&an->utf8);
	free(an->zbuf);
	an->zbuf = NULL;
	free(an->refs.v);
	memset(&an->refs, 0, sizeof(an->refs));
	words_free(&an->words);
}

/* Forget the last page (what page_commit() did not take), keep the memory
 * of the tables. */
static void analysis_clear(struct analysis *a)
{
	doc_cols_free(&a->cols);
	free(a->ref);
	free(a->ref_url);
	free(a->z);
	a->ref = a->ref_url = NULL;
	a->z = NULL;
	a->zlen = 0;
	a->noindex = a->nofollow = a->ref_meta = a->words_bad = false;
	a->nwords = 0;
	a->total = 0;
	/* A slot keeps a page's tables for the next, unless a huge page grew
	 * them: slots are many (8 per thread), huge pages few. */
	if (a->links.pool.alloc > SLOT_KEEP || a->links.nslots > 4096) {
		linklist_free(&a->links);
		linklist_init(&a->links);
	} else {
		linklist_reset(&a->links);
	}
	if (a->dw.bytes.alloc > SLOT_KEEP) {
		delta_words_free(&a->dw);
		delta_words_init(&a->dw);
	} else {
		delta_words_reset(&a->dw);
	}
}

static void analysis_free(struct analysis *a)
{
	analysis_clear(a);
	linklist_free(&a->links);
	delta_words_free(&a->dw);
}

/* Everything about the body of page j (a 2xx GET) that needs nothing but
 * the config: type, MD5, charset, parse, links resolved and admitted, words,
 * compressed text.  No database, delta log, seen-set or counters: it runs
 * on an analysis thread (or inline) while the crawl loop goes on.  j->p is
 * set (job_params()). */
static void analyse_page(const struct conf *c, const struct tokenizer *tok, bool force,
			 const struct job *j, const struct fetch_result *r, struct analysis *a,
			 struct analyser *an)
{
	const struct conf_server_params *sp = j->p;
	struct linkcache *lc = &an->lc;
	struct buf *utf8 = &an->utf8;
	struct buf basebuf = BUF_INIT(MAX_URL_LEN + 1), lk = BUF_INIT(MAX_URL_LEN + 1);
	struct buf site = BUF_INIT(MAX_URL_LEN + 1), fsite = BUF_INIT(MAX_URL_LEN + 1);
	struct charset_info ci;
	struct html_doc doc;
	const char *body = r->body.ptr ? r->body.ptr : "";
	const char *base, *ref;
	size_t blen = r->body.len;
	bool html;

	analysis_clear(a);
	media_type(r->content_type, a->mt, sizeof(a->mt));
	if (!a->mt[0]) {
		/* No Content-Type: sniff like a browser would for the two we parse. */
		size_t k = 0;

		while (k < blen && k < 512 && (body[k] == ' ' || body[k] == '\n' ||
					       body[k] == '\r' || body[k] == '\t'))
			k++;
		strlcpy_(a->mt, k < blen && body[k] == '<' ? "text/html" : "text/plain",
			 sizeof(a->mt));
	}
	html = is_html_type(a->mt);
	docblob_md5(body, blen, a->crc);
	a->blen = blen;
	if (!html && !is_text_type(a->mt)) {
		a->kind = AN_TYPE;
		return;
	}
	if (!force && j->row.status == 200 && !strcmp(a->crc, j->row.crc)) {
		a->kind = AN_UNCHANGED;
		return;
	}
	a->kind = AN_DOC;

	buf_reset(utf8);
	charset_to_utf8(body, blen, r->content_type, sp->charset, html ? 0 : CHARSET_NO_META,
			utf8, &ci);
	if (ci.note[0])
		debug("%s: charset %s (%s): %s", j->row.url, ci.name,
		      charset_source_name(ci.source), ci.note);
	memset(&doc, 0, sizeof(doc));
	if (html)
		html_parse(buf_str(utf8), utf8->len, &doc);
	else
		html_parse_text(buf_str(utf8), utf8->len, &doc);
	a->noindex = doc.robots & HTML_ROBOTS_NOINDEX;
	a->nofollow = doc.robots & HTML_ROBOTS_NOFOLLOW;

	/* Links (also from clones and noindex pages: they are still pages of
	 * the site; page_commit() drops those of clones), unless nofollow or
	 * Follow no. */
	base = j->row.url;
	if (doc.base && url_resolve(j->row.url, doc.base, &basebuf, NULL) == 0)
		base = buf_str(&basebuf);
	if (!a->nofollow && sp->follow && url_site(j->row.url, &fsite, NULL) == 0) {
		size_t bdir = base_dir_len(base);

		refset_reset(&an->refs);
		for (size_t i = 0; i < doc.nlinks; i++) {
			const char *href = doc.links[i].url, *u, *us;

			if (doc.links[i].nofollow || refset_has(&an->refs, href))
				continue;
			if (admit_page_link_cached(lc, c, sp, j->row.url, buf_str(&fsite),
						   base, bdir, href, j->row.hops + 1, &lk, &site,
						   &u, &us) == 0 &&
			    strcmp(u, j->row.url))
				linklist_add(&a->links, u, us);
			/* Admitted, dropped or the page itself: the same for
			 * every reference with this text before '#' (a page's
			 * "#section" links). */
			refset_add(&an->refs, href);
		}
		refset_reset(&an->refs);  /* it points into doc */
	}
	/* META refresh and script redirects go where a browser would go: the
	 * target is admitted here, counted and inserted by page_commit(). */
	ref = doc.refresh_url ? doc.refresh_url : doc.js_redirect;
	if (ref && !a->nofollow) {
		int hops = j->row.hops + (sp->increment_hops_on_redirect ? 1 : 0);

		a->ref = xstrdup(ref);
		a->ref_meta = doc.refresh_url != NULL;
		if (admit_link(c, sp, j->row.url, j->row.url, ref, hops, &lk) == 0 &&
		    strcmp(buf_str(&lk), j->row.url))
			a->ref_url = xstrdup(buf_str(&lk));
	}

	a->cols.content_type = col_dup(a->mt, 48);
	a->cols.charset = col_dup(ci.name, 32);
	a->cols.title = col_dup(doc.title, MAX_TITLE_LEN);
	a->cols.txt = col_dup(doc.txt, MAX_TXT_LEN);
	a->cols.keywords = col_dup(doc.keywords, MAX_KEYWORDS_LEN);
	a->cols.description = col_dup(doc.description, MAX_DESCRIPTION_LEN);
	a->z = docblob_compress(an->zbuf, buf_str(utf8), utf8->len, &a->zlen);
	if (!a->noindex) {
		/* Clones keep no words either, but which page is a clone is
		 * known only at the commit. */
		struct word_tab *w = &an->words;
		struct text_ctx x = { .tok = tok, .words = w };

		tok_doc_reset(&x.td);
		html_foreach_text(&doc, text_cb, &x);
		words_finish(w);
		/* The DOC record's words, encoded here rather than by the
		 * loop (page_commit() appends them, or drops them for a
		 * clone). */
		for (size_t i = 0; i < w->n && !a->words_bad; i++) {
			const struct word_ent *e = w->sorted[i];

			a->words_bad = delta_words_add(&a->dw, e->word, e->len, e->pos, e->n) != 0;
		}
		a->nwords = w->n;
		a->total = w->total;
		/* The table stays with the thread, unless a huge page grew it. */
		if (w->cap > 4096)
			words_free(w);
		else
			words_reset(w);
	}
	html_doc_free(&doc);
	if (utf8->alloc > UTF8_KEEP) {
		buf_free(utf8);
		buf_init(utf8, (size_t)MAX_DOC_BYTES * 2);
	}
	buf_free(&basebuf);
	buf_free(&lk);
	buf_free(&site);
	buf_free(&fsite);
}

/* Store the analysis a of page j: clone check, links, redirect, delta
 * records, the pending outcome.  Takes the strings of a it stores. */
static void page_commit(struct crawl *cr, struct job *j, const struct fetch_result *r,
			struct analysis *a)
{
	struct linkset ls = { 0 };
	struct pending *p;
	unsigned origin = 0, redir = 0;
	time_t lm;

	cr->t->bytes += a->blen;
	if (a->kind == AN_TYPE) {
		/* Not a page: known as a URL, not as a document. */
		info("%s: %ld %s not indexed, %zu bytes", j->row.url, r->status, a->mt, a->blen);
		p = pending_new(cr, j);
		p->d.status = CST_TYPE;
		p->d.doc_op = j->row.status == 200 ? DB_DOC_DELETE : DB_DOC_KEEP;
		if (j->row.status == 200 && delta_add_del(cr->dw, j->row.url_id))
			cr->failed = true;
		job_done(cr, j);
		return;
	}
	if (a->kind == AN_UNCHANGED) {
		info("%s: %ld unchanged (same MD5), %zu bytes", j->row.url, r->status, a->blen);
		cr->t->unchanged++;
		p = pending_new(cr, j);
		p->d.status = 200;
		job_done(cr, j);
		return;
	}
	if (r->truncated)
		warning("%s: body truncated at %zu bytes (MaxDocSize): the prefix is indexed",
			j->row.url, a->blen);

	/* Exact duplicates: the first origin keeps the words. */
	if (cr->c->clones) {
		origin = pending_origin(cr, j->row.site_id, a->crc, j->row.url_id);
		struct held *h = held_find(cr, j->row.site_id);

		if (origin) {
			cr->origin_pend++;
		} else if (h && h->origins) {
			struct origin_ent *e = origins_slot(h->origins, a->crc);

			if (e->used && e->url_id != j->row.url_id)
				origin = e->url_id;
			cr->origin_mem++;
		} else {
			double t0 = now_monotonic();

			cr->origin_db++;
			if (db_find_origin(cr->db, j->row.site_id, a->crc, j->row.url_id, &origin))
				cr->failed = true;
			cr->origin_seconds += now_monotonic() - t0;
		}
	}
	if (!origin)
		for (size_t i = 0; i < a->links.n; i++)
			link_collect_site(cr, &ls, linklist_url(&a->links, i),
					  linklist_site(&a->links, i), j->row.hops + 1,
					  j->row.url_id);
	if (links_resolve(cr, &ls))
		cr->failed = true;
	if (a->ref) {
		const char *why;

		if (a->ref_url && redirect_allowed(cr, j, &why))
			redir = redirect_to(cr, j, a->ref_url);
		if (redir) {
			note_redirect(cr, j, redir);
			info("%s: %s redirect to url %u (%.200s)", j->row.url,
			     a->ref_meta ? "META refresh" : "script", redir, a->ref);
			cr->t->redirects++;
			if (delta_add_redir(cr->dw, j->row.url_id, redir))
				cr->failed = true;
		}
	}

	p = pending_new(cr, j);
	strlcpy_(p->crc, a->crc, sizeof(p->crc));
	copy_header(p->last_modified, sizeof(p->last_modified), r->last_modified);
	copy_header(p->etag, sizeof(p->etag), r->etag);
	p->d.status = 200;
	p->d.redir = redir;
	p->d.origin = origin ? 0 : 1;
	p->cols = a->cols;
	memset(&a->cols, 0, sizeof(a->cols));
	p->doc.content_type = p->cols.content_type;
	p->doc.charset = p->cols.charset;
	p->doc.title = p->cols.title;
	p->doc.txt = p->cols.txt;
	p->doc.keywords = p->cols.keywords;
	p->doc.description = p->cols.description;
	p->doc.docsize = (unsigned)(r->content_length > 0 && !r->truncated ?
				    (uint64_t)r->content_length : a->blen);
	p->words = a->z;
	p->doc.words_len = a->zlen;
	a->z = NULL;
	a->zlen = 0;
	p->doc.words = p->words;
	p->d.doc_op = DB_DOC_PUT;
	p->d.doc = NULL;

	if (origin || a->noindex) {
		/* A clone or a noindex page keeps no words. */
		if (delta_add_del(cr->dw, j->row.url_id))
			cr->failed = true;
		if (origin) {
			info("%s: 200 clone of url %u, %zu bytes", j->row.url, origin, a->blen);
			cr->t->clones++;
		} else {
			info("%s: 200 META robots noindex: not indexed, %zu links", j->row.url, ls.n);
			p->d.status = CST_ROBOTS;
			p->d.deleted = true;
			p->d.doc_op = DB_DOC_DELETE;
			cr->t->dropped++;
		}
	} else {
		size_t nh = 0;

		if (a->words_bad) {
			error("%s: url %u: %s", delta_writer_path(cr->dw), j->row.url_id, a->dw.err);
			cr->failed = true;
		} else if (delta_add_words(cr->dw, j->row.url_id, j->row.site_id,
					   (uint64_t)time(NULL), &a->dw)) {
			cr->failed = true;
		}
		p->doc.wordcount = (unsigned)a->nwords;
		p->doc.totalcount = (unsigned)(a->total > 0xffffff ? 0xffffff : a->total);
		p->hrefs = xmalloc((ls.n ? ls.n : 1) * sizeof(uint32_t));
		for (size_t i = 0; i < ls.n; i++)
			if (ls.v[i].url_id)
				p->hrefs[nh++] = ls.v[i].url_id;
		qsort(p->hrefs, nh, sizeof(uint32_t), cmp_u32);
		if (nh && delta_add_hrefs(cr->dw, j->row.url_id, p->hrefs, nh))
			cr->failed = true;
		for (size_t i = 0; i < nh; i++) { /* little-endian on disk */
			uint32_t v = p->hrefs[i];
			unsigned char *b = (unsigned char *)&p->hrefs[i];

			b[0] = (unsigned char)v;
			b[1] = (unsigned char)(v >> 8);
			b[2] = (unsigned char)(v >> 16);
			b[3] = (unsigned char)(v >> 24);
		}
		p->doc.hrefs = p->hrefs;
		p->doc.hrefs_len = nh * sizeof(uint32_t);
		lm = r->last_modified ? curl_getdate(r->last_modified, NULL) : -1;
		if (lm > 0 && delta_add_lastmod(cr->dw, j->row.url_id, (uint64_t)lm))
			cr->failed = true;
		cr->t->indexed++;
		info("%s: %ld indexed, %zu bytes, %s, %zu words, %zu links%s", j->row.url,
		     r->status, a->blen, a->mt, a->nwords, nh, r->truncated ? ", truncated" : "");
	}
	job_done(cr, j);
	linkset_free(&ls);
}

static int net_status(enum fetch_err e)
{
	switch (e) {
	case FETCH_ERR_DNS: return CST_DNS;
	case FETCH_ERR_CONNECT: return CST_CONNECT;
	case FETCH_ERR_TIMEOUT: return CST_TIMEOUT;
	case FETCH_ERR_DEFERRED: return CST_DEFERRED;
	case FETCH_ERR_URL: return CST_BAD_URL;
	default: return CST_PROTOCOL;
	}
}

/* The outcome of page j from response r; a is the analysis of its body
 * when an analysis thread made it, NULL to analyse it here if needed. */
static void page_result(struct crawl *cr, struct job *j, struct fetch_result *r,
			struct analysis *a)
{
	const struct conf_server_params *sp = job_params(cr->c, j);
	long period = job_period(cr->c, j);
	long retry = period < RETRY_NET_ERROR ? period : RETRY_NET_ERROR;
	long st = r->status;

	cr->docs++;
	cr->t->wire_bytes += r->wire_bytes;
	if (r->err == FETCH_ERR_URL) {
		finish_dropped(cr, j, CST_BAD_URL, r->reason);
		return;
	}
	if (r->err != FETCH_ERR_NONE && r->err != FETCH_ERR_TOO_BIG) {
		long next = r->err == FETCH_ERR_DEFERRED ? (long)r->retry_in + 1 : retry;

		warning("%s: %s (%s): retried in %ld s", j->row.url, fetch_err_name(r->err),
			r->reason, next);
		cr->t->errors++;
		cr->t->errors_net++;
		finish_status(cr, j, net_status(r->err), next);
		return;
	}
	cr->t->fetched++;
	if (st == 304) {
		info("%s: 304 not modified", j->row.url);
		cr->t->unchanged++;
		finish_status(cr, j, j->row.status == 200 ? 200 : 304, 0);
		return;
	}
	if (st == 301 || st == 302 || st == 303 || st == 307 || st == 308) {
		page_redirect(cr, j, r);
		return;
	}
	if (st >= 200 && st < 300) {
		if (j->head) {
			info("%s: %ld (CheckOnly: HEAD)", j->row.url, st);
			finish_status(cr, j, (int)st, 0);
			return;
		}
		if (!a) {
			a = &cr->ia;
			analyse_page(cr->c, cr->tok, cr->o->force, j, r, a, &cr->an);
		}
		page_commit(cr, j, r, a);
		return;
	}
	cr->t->errors++;
	if (st >= 500)
		cr->t->errors_5xx++;
	else
		cr->t->errors_4xx++;
	if ((st == 404 || st == 410) && sp->delete_bad) {
		finish_dropped(cr, j, (int)st, "DeleteBad");
		return;
	}
	if (st == 429 || st == 503) {
		long next = r->retry_after > 0 ? r->retry_after : retry;

		warning("%s: %ld %s: retried in %ld s", j->row.url, st, http_status_text((int)st),
			next);
		finish_status(cr, j, (int)st, next);
		return;
	}
	info("%s: %ld %s", j->row.url, st, http_status_text((int)st));
	finish_status(cr, j, (int)st, 0);
}

/* Turn result r of the fetcher into the outcome of its job (a as for
 * page_result()). */
static void result_commit(struct crawl *cr, struct fetch_result *r, struct analysis *a)
{
	struct job *j = r->user;

	if (r->err == FETCH_ERR_ABORTED) {
		/* Stopping: the claim is released at the end. */
		if (j->kind == JOB_ROBOTS_FETCH)
			free(j);
		else
			job_done(cr, j);
		return;
	}
	if (j->kind != JOB_PAGE)
		robots_result(cr, j, r);
	else
		page_result(cr, j, r, a);
}

/* Does result r of job j carry a body for analyse_page()?  The same test as
 * page_result()'s way to page_commit(). */
static bool needs_analysis(const struct job *j, const struct fetch_result *r)
{
	return j->kind == JOB_PAGE && !j->head &&
	       (r->err == FETCH_ERR_NONE || r->err == FETCH_ERR_TOO_BIG) &&
	       r->status >= 200 && r->status < 300;
}

/* ---- the analysis threads ---------------------------------------------------------- */

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

enum slot_state {
	SLOT_FREE,                   /* unused */
	SLOT_QUEUED,                 /* waiting for an analysis thread */
	SLOT_WORKING,                /* being analysed */
	SLOT_READY,                  /* ready to commit */
	SLOT_COMMITTING,             /* being committed by the loop */
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
	uint64_t next_seq;
	bool quit;
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

static void pipeline_free(struct pipeline *pl);
static int refill(struct crawl *cr, bool force);
static bool refill_due(const struct crawl *cr);

/* Start n analysis threads.  Returns NULL after logging when they cannot
 * be started. */
static struct pipeline *pipeline_new(struct crawl *cr, size_t n)
{
	struct pipeline *pl = xcalloc(1, sizeof(*pl));

	pthread_mutex_init(&pl->mu, NULL);
	pthread_cond_init(&pl->work, NULL);
	pthread_cond_init(&pl->ready, NULL);
	pl->c = cr->c;
	pl->tok = cr->tok;
	pl->force = cr->o->force;
	pl->f = cr->f;
	pl->nslots = PIPE_SLOTS_PER_THREAD * n;
	pl->slots = xcalloc(pl->nslots, sizeof(*pl->slots));
	for (size_t i = 0; i < pl->nslots; i++)
		analysis_init(&pl->slots[i].a);
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
static void pipeline_commit(struct crawl *cr, size_t left)
{
	struct pipeline *pl = cr->pl;

	pthread_mutex_lock(&pl->mu);
	while (pl->nused) {
		struct slot *s = NULL;

		for (size_t i = 0; i < pl->nslots; i++) {
			struct slot *x = &pl->slots[i];

			if (x->state == SLOT_READY && (!s || x->seq < s->seq) &&
			    slot_committable(pl, x))
				s = x;
		}
		if (!s) {
			if (pl->nused <= left)
				break;
			pthread_cond_wait(&pl->ready, &pl->mu);
			continue;
		}
		/* The threads never touch it: commit it unlocked. */
		s->state = SLOT_COMMITTING;
		pthread_mutex_unlock(&pl->mu);
		result_commit(cr, &s->r, s->analyse ? &s->a : NULL);
		result_drop(&s->r);
		analysis_clear(&s->a);
		/* A commit takes database round trips: the hosts whose
		 * transfers ended meanwhile get their next requests now, and
		 * a site whose pages are (nearly) all fetched gets more now,
		 * not after every slot is committed (when all are in use this
		 * runs inside a delivery, for as long as pages keep coming). */
		if (refill_due(cr))
			refill(cr, false);
		fetcher_kick(cr->f);
		pthread_mutex_lock(&pl->mu);
		s->state = SLOT_FREE;
		pl->nused--;
	}
	pthread_mutex_unlock(&pl->mu);
}

/* Commit every slot (the fetcher has nothing more for now). */
static void pipeline_drain(struct crawl *cr)
{
	if (cr->pl)
		pipeline_commit(cr, 0);
}

/* Take result r into a free slot (the fetcher's callback). */
static void pipeline_add(struct crawl *cr, struct fetch_result *r)
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

/* Stop the threads (every slot is free: pipeline_drain()). */
static void pipeline_free(struct pipeline *pl)
{
	if (!pl)
		return;
	pthread_mutex_lock(&pl->mu);
	pl->quit = true;
	pthread_cond_broadcast(&pl->work);
	pthread_mutex_unlock(&pl->mu);
	for (size_t i = 0; i < pl->nthreads; i++)
		pthread_join(pl->threads[i], NULL);
	for (size_t i = 0; i < pl->nslots; i++) {
		result_drop(&pl->slots[i].r);
		analysis_free(&pl->slots[i].a);
	}
	pthread_cond_destroy(&pl->work);
	pthread_cond_destroy(&pl->ready);
	pthread_mutex_destroy(&pl->mu);
	free(pl->threads);
	free(pl->slots);
	free(pl);
}

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

/* ---- the loop -------------------------------------------------------------------- */

static void on_signal(int sig)
{
	UNUSED(sig);
	crawl_stop_requested = 1;
}

/* ---- claims: a few sites at a time ------------------------------------------------ */

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
 * shared over the crawling ranks (seed 004 §4.3.2.2), within
 * [SITE_MIN_SHARE, SITE_BATCH].  A lone crawler shares with nobody: it takes
 * SITE_BATCH (the due count it was told is a tick old, and small while the
 * frontier grows: claims of 8 left its hosts idle between claims). */
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
 * claim more?  (refill() claims for it.) */
static bool refill_due(const struct crawl *cr)
{
	double now = now_monotonic();

	if (cr->leaving || cr->failed || crawl_stop_requested || cr->adv.cmd == CRAWL_STOP)
		return false;
	for (size_t i = 0; i < cr->nheld; i++) {
		const struct held *h = &cr->held[i];

		if (unfetched(h) <= SITE_LOW && h->in_hand && !h->draining && now >= h->next_try)
			return true;
	}
	return false;
}

/* Keep the held sites supplied, hand one over when other ranks are idle,
 * release the finished ones, and take new sites.  force: ignore the waits
 * after empty claims (the rank alone, deciding whether it is done).
 * Returns the number of URLs claimed. */
static int refill(struct crawl *cr, bool force)
{
	double now = now_monotonic();
	bool draining = false, handover;
	long room, batch = site_batch(cr);
	int got = 0, n;

	for (size_t i = 0; i < cr->nheld; i++)
		draining |= cr->held[i].draining;
	/* Other ranks have no work: let one site go (the rank keeps at least
	 * one), rather than crawl two sites while a rank idles. */
	handover = !draining && cr->adv.idle_crawlers > 0 && cr->nheld > 1;
	for (size_t i = cr->nheld; i-- > 0;) {
		struct held *h = &cr->held[i];

		/* More when the fetcher is about to run out of the site's
		 * pages, not when they are all finished: those in analysis
		 * and being committed need no more fetching (pages waiting
		 * for robots.txt do). */
		if (unfetched(h) > SITE_LOW)
			continue;
		if (handover) {
			h->draining = draining = true;
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

	/* New sites: a share of those free (every rank takes its share, so
	 * sites spread over the ranks), at least one when the rank has none
	 * or nobody waits for work. */
	room = claim_room(cr);
	if (draining || cr->nheld >= MAX_HELD || room <= 0 || (!force && now < cr->next_pick))
		return got;
	{
		unsigned ids[PICK_MAX];
		int crawlers = cr->o->hooks && cr->adv.crawlers > 0 ? cr->adv.crawlers : 1;
		int ns, take, taken = 0;
		double t0 = now_monotonic();

		ns = db_pick_sites(cr->db, cr->o->rank, PICK_MAX, ids);
		cr->claim_seconds += now_monotonic() - t0;
		cr->claims++;
		if (ns < 0) {
			cr->failed = true;
			return got;
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
			 * the database, what is stored after goes through flush()). */
			if (cr->c->clones)
				origins_load(cr, h);
			got += n;
			taken++;
		}
		cr->next_pick = now + (taken ? PICK_EVERY : CLAIM_IDLE_WAIT);
	}
	return got;
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
	l->idle = !cr->in_hand && !cr->npend && !(cr->st && cr->st->n) && !fetcher_pending(cr->f);
	l->stopping = crawl_stop_requested != 0;
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

int crawl_run(const struct conf *c, struct db *db, const struct crawl_opts *o,
	      struct crawl_totals *t)
{
	struct fetch_opts fo = {
		.max_transfers = 64,
		.min_delay = c->defaults.min_delay,
		.read_timeout = (double)c->defaults.read_timeout,
		.max_doc_size = (size_t)c->max_doc_size,
		.dns_cache_timeout = c->address_expiry,
		.user_agent = c->user_agent,
		.headers = (const char *const *)c->http_headers,
		.n_headers = c->n_http_headers,
	};
	struct crawl cr = { .c = c, .db = db, .o = o, .t = t };
	struct sigaction sa, old_term, old_int;
	struct delta_stats ds;
	struct buf err = BUF_INIT(1024);
	struct delta_seg *segs = NULL;
	size_t nsegs = 0;
	double started = now_monotonic(), started_cpu = cpu_seconds(RUSAGE_SELF);
	double started_db_cpu = !c->db.set ? dbserver_cpu_seconds(c->data_dir) : -1;
	int rc = 0;

	memset(t, 0, sizeof(*t));
	cr.agent = c->user_agent ? c->user_agent : "mpseek";
	cr.tok = tok_new(c->min_word_length, c->max_word_length);
	for (size_t i = 0; i < c->n_stopword_files; i++)
		if (tok_load_stopwords(cr.tok, c->stopword_files[i]))
			warning("stopword file %s not fully loaded", c->stopword_files[i]);
	analysis_init(&cr.ia);
	analyser_init(&cr.an);
	cr.seen = seen_new(SEEN_MAX_ENTRIES);
	cr.redir_depth = seen_new(SEEN_MAX_ENTRIES / 16);

	/* What a crashed earlier run of this rank left: torn delta tails and
	 * claims. */
	if (delta_list(c->data_dir, &segs, &nsegs, &err) == 0) {
		for (size_t i = 0; i < nsegs; i++)
			if (segs[i].rank == o->rank && delta_repair(segs[i].path, &err) == 1)
				warning("%s", buf_str(&err));
		delta_list_free(segs, nsegs);
	}
	if (db_release_claims(db, o->rank) < 0) {
		rc = -1;
		goto out;
	}
	if (mkdir_p(c->data_dir)) {
		rc = -1;
		goto out;
	}
	cr.dw = delta_open(c->data_dir, o->rank, &err);
	if (!cr.dw) {
		rc = error("cannot open a delta log: %s", buf_str(&err));
		goto out;
	}
	cr.f = fetcher_new(&fo);
	if (!cr.f) {
		rc = -1;
		goto out;
	}
	if (c->index_threads > 0) {
		cr.pl = pipeline_new(&cr, (size_t)c->index_threads);
		if (!cr.pl) {
			rc = -1;
			goto out;
		}
		/* A second connection for the store thread, if allowed. */
		if (c->db_connections >= 2 && !(cr.st = storer_new(&cr))) {
			rc = -1;
			goto out;
		}
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGINT, &sa, &old_int);

	info("rank %d crawling into %s, %ld analysis thread(s), %s", o->rank,
	     delta_writer_path(cr.dw), c->index_threads,
	     cr.st ? "a store thread" : "stores in the loop");
	cr.adv.claim_limit = -1;
	cr.adv.due = -1;
	while (!crawl_stop_requested && !cr.failed) {
		tick(&cr);
		if (cr.adv.cmd == CRAWL_STOP)
			break;
		if (o->max_seconds > 0 && now_monotonic() - started > o->max_seconds) {
			info("time limit of %.0f s reached", o->max_seconds);
			break;
		}
		if (!o->hooks && o->max_docs > 0 && cr.docs >= o->max_docs && !cr.in_hand) {
			info("document limit of %ld reached", o->max_docs);
			break;
		}
		refill(&cr, false);
		if (!fetcher_pending(cr.f)) {
			/* Nothing in flight: commit what is in analysis, store
			 * what is pending (its links are already in urlword). */
			pipeline_drain(&cr);
			flush(&cr);
			storer_wait(&cr);
			if (cr.failed || fetcher_pending(cr.f))
				continue;
			if (!o->hooks) {
				/* Alone: done when no claim brings more. */
				if (refill(&cr, true) == 0 && !fetcher_pending(cr.f))
					break;
				continue;
			}
			/* In a job: idle until the coordinator says the crawl is
			 * over (other ranks may still add links). */
			tick(&cr);
			if (cr.adv.cmd == CRAWL_DONE && !cr.in_hand)
				break;
			sleep_briefly(0.05);
			continue;
		}
		if (fetcher_run(cr.f, 0.5, on_done, &cr) < 0) {
			rc = error("the fetcher failed");
			break;
		}
		if (cr.pl)
			pipeline_commit(&cr, SIZE_MAX);
		if (cr.npend && (cr.npend >= PENDING_MAX ||
				 now_monotonic() - cr.pend_since > PENDING_MAX_AGE))
			flush(&cr);
	}
	cr.leaving = true;
	if (cr.adv.cmd == CRAWL_STOP && !crawl_stop_requested)
		info("stop requested by the master: releasing the URLs in hand");
	if (crawl_stop_requested)
		info("signal received: stopping, releasing the URLs in hand");
	/* Nothing new starts; the transfers in flight get a moment to finish:
	 * a page already on its way is stored now rather than fetched again by
	 * the next run. */
	fetcher_cancel_queued(cr.f, on_done, &cr);
	if (!cr.failed && fetcher_pending(cr.f)) {
		double until = now_monotonic() + STOP_GRACE;

		while (fetcher_pending(cr.f) && !cr.failed && now_monotonic() < until)
			if (fetcher_run(cr.f, until - now_monotonic(), on_done, &cr) < 0)
				break;
	}
	fetcher_cancel_all(cr.f, on_done, &cr);
	pipeline_drain(&cr);
	flush(&cr);
	storer_wait(&cr);
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
	info("rank %d done: %llu fetched, %llu indexed, %llu unchanged, %llu clones, "
	     "%llu redirects, %llu errors, %llu dropped, %llu new URLs, %.1f MB in %.2f s",
	     o->rank, (unsigned long long)t->fetched, (unsigned long long)t->indexed,
	     (unsigned long long)t->unchanged, (unsigned long long)t->clones,
	     (unsigned long long)t->redirects, (unsigned long long)t->errors,
	     (unsigned long long)t->dropped, (unsigned long long)t->links_new,
	     (double)t->bytes / 1e6, now_monotonic() - started);
	{
		/* The embedded database's share: only a lone crawling rank
		 * has it to itself. */
		bool alone = !o->hooks || cr.adv.crawlers <= 1;
		double db_cpu = alone && started_db_cpu >= 0 ? dbserver_cpu_seconds(c->data_dir) : -1;
		char dbs[64] = "";

		if (db_cpu >= started_db_cpu && started_db_cpu >= 0)
			snprintf(dbs, sizeof(dbs), ", its embedded database %.2f s",
				 db_cpu - started_db_cpu);
		info("rank %d CPU in the crawl: %.2f s in the loop thread, %.2f s in the process "
		     "(all threads)%s, in %.2f s", o->rank, cpu_seconds(RUSAGE_THREAD),
		     cpu_seconds(RUSAGE_SELF) - started_cpu, dbs, now_monotonic() - started);
	}
	info("rank %d waits: database %.2f s claims, %.2f s link inserts, %.2f s stores "
	     "(%.2f s in the store thread, %.2f s waited for), %.2f s clone lookups; "
	     "%.2f s delta log syncs", o->rank, cr.claim_seconds, cr.links_seconds,
	     cr.store_seconds - cr.links_seconds, cr.store_thread_seconds,
	     cr.store_wait_seconds, cr.origin_seconds, cr.sync_seconds);
	/* The analysis sorts every page's words (words_finish()). */
	delta_writer_stats(cr.dw, &ds);
	if (ds.resorted)
		warning("rank %d: the words of %llu document(s) came to the delta log unsorted "
			"(a bug in the analysis; sorted there)", o->rank,
			(unsigned long long)ds.resorted);
	info("rank %d clone checks: %llu among the outcomes not stored, %llu in a clone "
	     "table, %llu asked the database (CloneTableEntries %ld)", o->rank,
	     (unsigned long long)cr.origin_pend, (unsigned long long)cr.origin_mem,
	     (unsigned long long)cr.origin_db, c->clone_table_entries);
out:
	storer_wait(&cr);
	storer_free(cr.st);
	pipeline_free(cr.pl);
	fetcher_free(cr.f);
	if (cr.dw && delta_close(cr.dw))
		rc = -1;
	sites_free(&cr);
	analysis_free(&cr.ia);
	analyser_free(&cr.an);
	seen_free(cr.seen);
	seen_free(cr.redir_depth);
	tok_free(cr.tok);
	buf_free(&err);
	return rc;
}
