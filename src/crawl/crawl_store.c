/* crawl_store.c - the rank's stored state: sites, new links, clone tables, the batch.
 *
 * Owns the site table (key -> site_id and robots.txt state), the insertion
 * of new links into urlword through the seen-set, the clone tables of the
 * held sites, and the pending batch of outcomes with its way to the
 * database: the delta log synced first, then one transaction, in the loop
 * or in the store thread.  What an outcome is, is decided above it
 * (crawl_robots.c, crawl_commit.c); claims are crawl_claim.c's.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "conf.h"
#include "dbserver.h"
#include "delta.h"
#include "fetch.h"
#include "log.h"
#include "robots.h"
#include "seen.h"
#include "util.h"
#include "crawl_int.h"

/* ---- sites ------------------------------------------------------------------ */

struct site *site_get(struct crawl *cr, const char *key, unsigned site_id, long tag)
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
	if (!site_id && db_site_id(cr->db, key, tag, &site_id))
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

void sites_free(struct crawl *cr)
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

struct held *held_find(struct crawl *cr, unsigned site_id)
{
	for (size_t i = 0; i < cr->nheld; i++)
		if (cr->held[i].site_id == site_id)
			return &cr->held[i];
	return NULL;
}

/* ---- the live origins of the held sites ------------------------------------------ */

/* The live origins of a held site (db_find_origin()'s rows): MD5 -> url_id,
 * loaded when the rank takes the site.  While the rank holds the site's
 * lease no other rank stores its pages (doc/CLUSTER.md), so the rank keeps
 * the table up to date from its own outcomes (pending_flush()) and asks the
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
void held_origins_free(struct crawl *cr, struct held *h)
{
	if (h->origins)
		cr->origins_used -= h->origins->used;
	origins_free(h->origins);
	h->origins = NULL;
}

/* Load the live origins of held site h, if they fit what is left of
 * CloneTableEntries (no error: without them the database is asked per page). */
void origins_load(struct crawl *cr, struct held *h)
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

/* ---- links ---------------------------------------------------------------------- */

/* Add url (not in ls yet) to ls; url is borrowed until linkset_free(). */
static void linkset_add(struct linkset *ls, const char *url, unsigned site_id, int hops,
			unsigned referrer, long tag)
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
	ls->v[ls->n].tag = tag;
	ls->n++;
}

void linkset_free(struct linkset *ls)
{
	free(ls->v);
	memset(ls, 0, sizeof(*ls));
}

/* Add a normalised, admitted URL of site key `site` to ls (url borrowed). */
/* May a URL the rank has not seen be added to site s under MaxURLsPerServer
 * lim?  The site's live URLs are counted once per stored batch of links
 * (links_resolve()), and each URL collected since counts one more: a URL
 * that had a row already counts twice until the next count, so the limit
 * errs on the side of fewer URLs, and ranks adding links to one site at
 * the same moment may pass it by a batch (doc/CONFIG.md). */
static bool site_has_room(struct crawl *cr, struct site *s, long lim, const char *url)
{
	if (s->nurls_gen != cr->links_gen + 1) {
		long n = db_count_site_urls(cr->db, s->site_id);

		if (n < 0)
			return true; /* logged; the link is not lost for a count */
		s->nurls = n;
		s->nurls_gen = cr->links_gen + 1;
	}
	if (s->nurls >= lim) {
		debug("%s: not added: MaxURLsPerServer %ld reached", url, lim);
		return false;
	}
	s->nurls++;
	return true;
}

void link_collect_site(struct crawl *cr, struct linkset *ls, const char *url, const char *site,
		       int hops, unsigned referrer)
{
	/* The link's Server decides its Tag (urlword.tag), and a site's tag
	 * when the link makes the site known (FollowOutside). */
	const struct conf_server_params *p = conf_params_for(cr->c, url);
	struct site *s = site_get(cr, site, 0, p->tag);
	long lim = p->max_urls_per_server;

	if (!s)
		return;
	if (lim >= 0 && !seen_get(cr->seen, url, strlen(url)) && !site_has_room(cr, s, lim, url))
		return;
	linkset_add(ls, url, s->site_id, hops, referrer, p->tag);
}

/* The url_ids of the links of ls the seen-set knows; the others are left
 * 0 for db_add_links().  Returns how many are left. */
size_t links_known(struct crawl *cr, struct linkset *ls)
{
	size_t unknown = 0;

	ls->maybe = 0;
	for (size_t i = 0; i < ls->n; i++) {
		struct db_link *l = &ls->v[i];
		uint32_t id = seen_lookup(cr->seen, l->url, strlen(l->url), &l->known);

		l->url_id = id;
		unknown += !id;
		ls->maybe += l->known;
	}
	return unknown;
}

/* db_add_links() gave ls its url_ids, `added` of them new rows: into the
 * seen-set, and the held sites that found nothing due the last time woken. */
void links_apply(struct crawl *cr, struct linkset *ls, long added)
{
	size_t maybe = ls->maybe;

	if (added)
		cr->links_gen++;
	cr->t->links_new += (uint64_t)added;
	/* db_add_links() cleared `known` where the database had no row: the
	 * filter's false positives. */
	for (size_t i = 0; i < ls->n; i++)
		maybe -= ls->v[i].known;
	seen_false_positives(cr->seen, maybe);
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
}

/* Give every link of ls its url_id: from the seen-set, else one batch
 * through the database.  Returns 0 or -1. */
int links_resolve(struct crawl *cr, struct linkset *ls)
{
	long added;
	double t0;

	if (!links_known(cr, ls))
		return 0;
	t0 = now_monotonic();
	added = db_add_links(cr->db, ls->v, ls->n);
	cr->store_seconds += now_monotonic() - t0;
	cr->links_seconds += now_monotonic() - t0;
	if (added < 0)
		return -1;
	links_apply(cr, ls, added);
	return 0;
}

/* A database connection of the rank's own besides cr->db (the store and
 * link threads'), sharing its outage clock; NULL after logging. */
struct db *crawl_db_open(struct crawl *cr)
{
	char *sock = dbserver_socket_path(cr->c->data_dir); /* when there is no DBAddr */
	struct db *db = NULL;
	int e = db_open(cr->c, sock, 10, &db);

	free(sock);
	if (e)
		return NULL;
	db_set_grace(db, (double)cr->c->db_grace);
	db_share_outage(db, cr->db);
	/* The claim thread's claims are the loop's: of --tag's URLs alone. */
	db_select_tag(db, db_selected_tag(cr->db));
	return db;
}

/* ---- the store thread ------------------------------------------------------------ */

static void pending_clear(struct pending *p)
{
	doc_cols_free(&p->cols);
	free(p->words);
	free(p->hrefs);
	free(p->anchors);
	memset(p, 0, sizeof(*p));
}

/* With analysis threads the loop also hands each batch of outcomes (its
 * delta records synced) to a store thread with a database connection of its
 * own, and goes on while the batch is stored: at most one batch is in the
 * store thread, the next pending_flush() waits for it.  The rank's clone
 * table is updated when the batch is handed over, and pending_origin()
 * looks at the batch being stored too, so the clone check sees what the
 * inline store would have stored already. */
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

/* A store thread with its own connection, or NULL after logging. */
struct storer *storer_new(struct crawl *cr)
{
	struct storer *st = xcalloc(1, sizeof(*st));
	int e;

	pthread_mutex_init(&st->mu, NULL);
	pthread_cond_init(&st->cv, NULL);
	st->rank = cr->o->rank;
	st->db = crawl_db_open(cr);
	if (!st->db) {
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
void storer_wait(struct crawl *cr)
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

struct db *storer_db(struct storer *st)
{
	return st ? st->db : NULL;
}

/* Stop the store thread (storer_wait() first) and close its connection. */
void storer_free(struct storer *st)
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

/* ---- the pending batch ---------------------------------------------------------- */

/* Make the delta records durable, then store the outcomes (here, or in the
 * store thread). */
int pending_flush(struct crawl *cr)
{
	struct db_done d[PENDING_MAX];
	double ts;
	int rc;

	if (!cr->npend)
		return 0;
	if (cr->rv)
		rv_batch(cr, cr->pend, cr->npend);
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
struct pending *pending_new(struct crawl *cr, struct job *j)
{
	struct pending *p;

	if (cr->npend == PENDING_MAX)
		pending_flush(cr);
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

/* The clone check (Clones yes) of page j with MD5 crc: the outcomes not
 * stored yet first, then the site's clone table, else the database. */
unsigned clone_origin(struct crawl *cr, struct job *j, const char *crc)
{
	unsigned origin = pending_origin(cr, j->row.site_id, crc, j->row.url_id);
	struct held *h = held_find(cr, j->row.site_id);

	if (origin) {
		cr->origin_pend++;
	} else if (h && h->origins) {
		struct origin_ent *e = origins_slot(h->origins, crc);

		if (e->used && e->url_id != j->row.url_id)
			origin = e->url_id;
		cr->origin_mem++;
	} else {
		double t0 = now_monotonic();

		cr->origin_db++;
		if (db_find_origin(cr->db, j->row.site_id, crc, j->row.url_id, &origin))
			cr->failed = true;
		cr->origin_seconds += now_monotonic() - t0;
	}
	return origin;
}

/* Will clone_origin() find no origin for page j when it is committed after
 * the pages before it in the same batch (prev[0..k), MD5s crcs)?  Only
 * when that is sure without asking the database: an earlier page of the
 * batch with the same MD5 and site makes it a clone, and so may a site
 * whose clone table is not loaded.  "Not sure" is answered false. */
static bool surely_no_origin(struct crawl *cr, struct job *j, const char *crc,
			     struct job *const *prev, const struct analysis *const *pan, size_t k)
{
	struct held *h;
	struct origin_ent *e;

	if (!cr->c->clones)
		return true;
	for (size_t i = 0; i < k; i++)
		if (pan[i] && prev[i]->row.site_id == j->row.site_id && !strcmp(pan[i]->crc, crc))
			return false;
	if (pending_origin(cr, j->row.site_id, crc, j->row.url_id))
		return false;
	h = held_find(cr, j->row.site_id);
	if (!h || !h->origins)
		return false;
	e = origins_slot(h->origins, crc);
	return !e->used || e->url_id == j->row.url_id;
}

bool links_collect(struct crawl *cr, struct job *const *jobs, const struct analysis *const *an,
		   size_t n, struct linkset *ls)
{
	struct seen *batch;

	if (cr->failed)
		return false;
	/* URLs of the batch already collected: each goes in once, with the
	 * hops and referrer of its first page, as page by page. */
	batch = seen_new(4096);
	for (size_t k = 0; k < n; k++) {
		const struct analysis *a = an[k];
		struct job *j = jobs[k];

		if (!a || a->kind != AN_DOC || !surely_no_origin(cr, j, a->crc, jobs, an, k))
			continue;
		for (size_t i = 0; i < a->links.n; i++) {
			const char *url = linklist_url(&a->links, i);
			size_t len = strlen(url);

			if (seen_get(cr->seen, url, len) || seen_get(batch, url, len))
				continue;
			seen_put(batch, url, len, 1);
			link_collect_site(cr, ls, url, linklist_site(&a->links, i), j->row.hops + 1,
					  j->row.url_id);
		}
	}
	seen_free(batch);
	return ls->n && links_known(cr, ls);
}

void links_prefetch(struct crawl *cr, struct job *const *jobs, const struct analysis *const *an,
		    size_t n)
{
	struct linkset ls = { 0 };

	if (n < 2)
		return;
	if (links_collect(cr, jobs, an, n, &ls) && links_resolve(cr, &ls))
		cr->failed = true;
	linkset_free(&ls);
}

bool pending_none(const struct crawl *cr)
{
	return !cr->npend && !(cr->st && cr->st->n);
}

/* ---- finishing a job ------------------------------------------------------------ */

void job_done(struct crawl *cr, struct job *j)
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
		 * Crawl-delay, as job_submit() asked of the fetcher. */
		h->delay = j->p ? j->p->min_delay : cr->c->defaults.min_delay;
		if (j->site && j->site->robots && robots_crawl_delay(j->site->robots) > h->delay)
			h->delay = robots_crawl_delay(j->site->robots);
	}
	free(j);
}

/* The URL's document leaves the index (a DEL record when it had one);
 * `deleted` takes its row out of the queue too. */
static void finish_unindexed(struct crawl *cr, struct job *j, int st, bool deleted)
{
	struct pending *p;

	if (j->row.status == 200 && delta_add_del(cr->dw, j->row.url_id))
		cr->failed = true;
	p = pending_new(cr, j);
	p->d.status = st;
	p->d.deleted = deleted;
	p->d.doc_op = j->row.status == 200 ? DB_DOC_DELETE : DB_DOC_KEEP;
	job_done(cr, j);
}

/* The URL leaves the index: status st, deleted, a DEL record. */
void finish_dropped(struct crawl *cr, struct job *j, int st, const char *why)
{
	info("%s: %d %s (%s)", j->row.url, st, http_status_text(st), why);
	cr->t->dropped++;
	finish_unindexed(cr, j, st, true);
}

void finish_gone(struct crawl *cr, struct job *j, int st)
{
	info("%s: %d %s (leaves the index, fetched again after Period)", j->row.url, st,
	     http_status_text(st));
	finish_unindexed(cr, j, st, false);
}

/* Status only; the document (if any) stays as it is. */
void finish_status(struct crawl *cr, struct job *j, int st, long next_in)
{
	struct pending *p = pending_new(cr, j);

	p->d.status = st;
	if (next_in > 0)
		p->d.next_index_time = (long)time(NULL) + next_in;
	job_done(cr, j);
}
