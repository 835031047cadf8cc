/* db.h - the only interface to SQL (MariaDB Connector/C).
 *
 * Everything that talks to the database goes through here: prepared
 * statements or mysql_real_escape_string(), never pasted input.  A lost
 * connection is re-established with back-off inside each call.
 */
#ifndef MPSEEK_DB_H
#define MPSEEK_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "caps.h"

struct buf;
struct conf;
struct db;

/* The schema version this build reads and writes (row in table `mpseek_meta`). */
#define DB_SCHEMA_VERSION 4

/* Connect as configured: DBAddr, or when no DBAddr is set the embedded
 * server on unix socket `embedded_socket` (borrowed for the call; the caller
 * gets it from dbserver_socket_path(), and the server must already be
 * running: see dbserver_ensure()).  Retries with back-off for up to
 * `wait_seconds`.  Returns 0 and a handle (free with db_close()) or -1 after
 * logging why. */
int db_open(const struct conf *c, const char *embedded_socket, double wait_seconds,
	    struct db **out);
void db_close(struct db *db);

/* DBGrace: once the server is lost, reconnects keep trying for `seconds` in
 * all (from the moment it was lost, however many statements wait on it);
 * after that each call makes one quick attempt and fails, until a connect
 * succeeds again.  0 (the default) keeps the per-reconnect wait of
 * db_open(). */
void db_set_grace(struct db *db, double seconds);
/* Let db count its outages on with's clock (both connect to one server in
 * one process): the grace runs from the first of them to see the server
 * lost, so a connection idle until then does not wait a grace of its own.
 * with must outlive db. */
void db_share_outage(struct db *db, struct db *with);
/* Seconds since this connection lost its server (0 = it has not, or it is
 * back).  Any thread may ask, also while another thread uses db. */
double db_unreachable_seconds(struct db *db);
/* True once the grace is over (or db_give_up() was called) and the server
 * has not come back.  Any thread may ask. */
bool db_gave_up(struct db *db);
/* Stop waiting for a lost server (the job is stopping anyway): a reconnect
 * in progress in another thread ends at its next attempt, and later ones
 * try once, until one succeeds. */
void db_give_up(struct db *db);
/* Where the server is ("/path/to/sock" or "host:port"), for messages;
 * borrowed until db_close(). */
const char *db_where(const struct db *db);

/* One line for an administrator: "VERSION at WHERE, database NAME"
 * into *out (appended).  Returns 0 or -1 (the connection is gone). */
int db_describe(struct db *db, struct buf *out);

/* Check the schema version.  With create=true an empty database gets the
 * schema.  A wrong version (or a database that is not mpseek's) is refused
 * with a clear message.  Returns 0 or -1. */
int db_schema_check(struct db *db, bool create);

/* The writer lock of the database: a named lock (GET_LOCK) held by this
 * connection until db_close() or the process dies, and taken again after a
 * reconnect.  Returns 1 when taken; 0 when another connection holds it, with
 * *holder = what that job wrote with db_writer_note() (malloc'd, caller
 * frees; NULL when unknown); -1 on error. */
int db_writer_lock(struct db *db, char **holder);

/* Record `who` (host, pid, start time; at most 255 bytes are kept) in
 * mpseek_meta for the refusal messages of other jobs.  Needs the schema.
 * Returns 0 or -1. */
int db_writer_note(struct db *db, const char *who);

/* Insert the Server URLs of the config (and their robots.txt when Robots is
 * on) with index_status = 0; existing URLs are left alone.  Returns the
 * number of URLs inserted, or -1. */
int db_seed_servers(struct db *db, const struct conf *c);

/* ASPseek's `index -S`: per HTTP status expired/total, then counts per
 * index_status, the claims/leases held, the sites with the most URLs and
 * when the next URL is due (db_stats.c).  Returns 0 or -1. */
int db_print_stats(struct db *db, FILE *out);

/* --- the administrator's verbs (mpseek-index -C, -a/-m -u, -S) -----------
 * A pattern selects URLs as ASPseek's `-u` did (doc/DATABASE.md, "Selecting
 * URLs"): one with `%` or `_` is an SQL LIKE pattern on the normalised URL
 * (`\` escapes), one with "://" an exact URL (normalised first), anything
 * else a site, host[:port], over http and https. */

#define DB_MATCH_DELETED  1u /* rows marked deleted too */
#define DB_MATCH_NOT_BUSY 2u /* not the rows being crawled now (a live claim) */
/* The url_ids (ascending, each once) that any of the n patterns selects, in
 * *ids (malloc'd, caller frees; NULL when none) and *n_ids.  A pattern that
 * is none of the three is an error.  Returns 0 or -1. */
int db_match_urls(struct db *db, const char *const *pats, size_t n, unsigned flags,
		  uint32_t **ids, size_t *n_ids);
/* The url_ids of rows marked deleted (by the crawl, or by hand: doc/ADMIN.md),
 * ascending, in *ids (malloc'd, caller frees; NULL when none) and *n_ids: a
 * range of urlword's claim index, not a scan.  Returns 0 or -1. */
int db_deleted_url_ids(struct db *db, uint32_t **ids, size_t *n_ids);
/* Remove the urlword and urlwordsNN rows of ids (ascending), except those
 * being crawled now.  The documents stay in the index until a merge reads
 * their DEL records: write those first.  Returns the rows removed, or -1. */
long db_delete_urls(struct db *db, const uint32_t *ids, size_t n);
/* Make ids due now (not those being crawled); force: their validators and
 * MD5 go too, so they are fetched without a conditional GET and parsed
 * again.  Returns the rows changed, or -1. */
long db_expire_urls(struct db *db, const uint32_t *ids, size_t n, bool force);
/* When the next live URL is due (unix time; 0 = now) in *when: 1, or 0 when
 * there is no live URL, or -1.  One index dive. */
int db_next_due(struct db *db, long long *when);
/* A URL due at `when` (db_next_due()'s answer), the lowest url_id, into url
 * (size bytes, cut, always terminated): 1, 0 when none, -1 on error. */
int db_next_due_url(struct db *db, long long when, char *url, size_t size);
/* "now", or "in 3 h 20 min, at 2026-11-26 08:17:00 UTC": when `when` is
 * (unix time), for messages; into buf (size bytes, always terminated). */
void db_due_text(long long when, char *buf, size_t size);

/* --- the work queue of the cluster crawl (doc/DATABASE.md) ---------------
 *
 * A claim moves URLs from index_status 0 or 1 to 2 ("being indexed") for one
 * rank until a lease expires, in one transaction (SELECT ... FOR UPDATE SKIP
 * LOCKED, then UPDATE), so concurrent ranks never get the same URL.  While
 * claimed, a URL's next_index_time is its lease expiry: an expired lease (a
 * crashed rank) makes the URL claimable again with no reaper.  Claims are
 * site-affine: the claim also takes a lease on the URL's site (sites table),
 * and no rank gets URLs of a site another rank holds an unexpired lease on.
 * Whoever stores a claimed URL must set index_status = 1, claim_rank = -1,
 * lease_until = 0 and a new next_index_time, WHERE index_status = 2 AND
 * claim_rank = <its rank> (a lease that expired may have gone elsewhere);
 * anything that sets next_index_time in bulk (-a) must skip index_status 2. */

/* One claimed URL: what the fetcher needs, copied out of the row. */
struct db_url {
	unsigned url_id;
	unsigned site_id;
	int status;               /* last HTTP status, 0 = never fetched */
	int hops;
	int origin;               /* clone flag: 1 origin, 0 clone */
	long tag;
	unsigned referrer;        /* first referring url_id, 0 = a Server URL */
	long last_index_time;     /* unix time, 0 = never */
	char url[MAX_URL_LEN + 1];
	char crc[33];             /* hex MD5 of the last body, "" = none */
	char last_modified[65];   /* raw Last-Modified of the last fetch */
	char etag[129];           /* raw ETag of the last fetch */
};

/* Claim up to n due URLs (oldest next_index_time first) for `rank` with a
 * lease of lease_seconds, and lease their sites to `rank`.  `out` has room
 * for n entries (caller's memory).  Returns the number claimed, 0..n (0 =
 * nothing claimable now), or -1. */
int db_claim_urls(struct db *db, int rank, int n, long lease_seconds, struct db_url *out);
/* The same, restricted to URLs of site_id (a site the rank holds or that is
 * free); uses the site_claim index. */
int db_claim_site_urls(struct db *db, int rank, unsigned site_id, int n, long lease_seconds,
		       struct db_url *out);
/* The same for several sites in one transaction: up to want[i] URLs of
 * site_ids[i] (strictly ascending ids, want[i] > 0), one site after the
 * other in `out` (room for the sum of want), got[i] of site i.  Returns the
 * number claimed in all, or -1 (no site's URLs are claimed then). */
int db_claim_sites_urls(struct db *db, int rank, const unsigned *site_ids, const int *want,
			int nsites, long lease_seconds, struct db_url *out, int *got);
/* mpseek-index -T: claim exactly the URLs ids[0..n) (n <= 4096) for `rank`,
 * whatever their next_index_time, except those another rank holds an
 * unexpired claim on.  No site lease is taken: a crawl holding the site
 * keeps it.  out has room for n rows.  Returns the number claimed, or -1. */
int db_claim_url_ids(struct db *db, int rank, const uint32_t *ids, size_t n, long lease_seconds,
		     struct db_url *out);
/* The rows of ids[0..n) (n <= 4096) as they are, claimed or not, into out
 * (room for n).  Returns the number found, or -1. */
int db_url_rows(struct db *db, const uint32_t *ids, size_t n, struct db_url *out);
/* Give back every URL and site `rank` holds (at start-up, for what a crashed
 * earlier run of the rank left, and on shutdown): URLs return to index_status
 * 0 (never fetched) or 1 and are due now.  Returns the number of URLs
 * released, or -1. */
long db_release_claims(struct db *db, int rank);
/* Give back rank's lease on one site (it has no URL of the site in hand any
 * more), so that another rank may take the site before the lease expires.
 * A claim leases every site it hands out URLs of: release sites when done
 * with them, or they stay with the rank until the lease ends.  Returns 0 or
 * -1. */
int db_release_site(struct db *db, int rank, unsigned site_id);
/* Print EXPLAIN of the claim SELECT (tab-separated, with a header line), so
 * that tests and admins can check it reads the `claim` index in order:
 * no full scan, no filesort.  Returns 0 or -1. */
int db_explain_claim(struct db *db, FILE *out);

/* --- storing what the crawl found (crawl.c) ------------------------------ */

/* urlwordsNN: the document table of url_id is urlwords%02d of url_id % 16. */
#define DB_DOC_TABLES 16

/* The site_id of site key `site` ("scheme://host[:port]/"), inserting the
 * sites row when it is new (with sites.tag = tag, the Tag of the URL that
 * makes it known).  Returns 0 or -1. */
int db_site_id(struct db *db, const char *site, long tag, unsigned *site_id);

/* A link (or redirect target) to insert if unknown. */
struct db_link {
	const char *url;          /* normalised, at most MAX_URL_LEN bytes */
	unsigned site_id;
	int hops;
	unsigned referrer;
	long tag;                 /* urlword.tag of a new row: its Server's Tag */
	unsigned url_id;          /* out: the URL's id (0 if the lookup failed) */
	bool added;               /* out: the row is new */
	bool known;               /* in: probably has a row (the seen-set says maybe):
	                           * looked up before the INSERT; out: cleared when
	                           * it had none */
};

/* Fill in the url_id of every link whose url_id is 0: one SELECT by
 * url_hash of the links marked known, then one multi-row INSERT of the
 * rest (index_status 0, due now; a URL with a row keeps it) and, unless
 * every row was new, one SELECT of their ids.  Returns the number of new rows, or -1;
 * `added` marks them (see links_insert() for when that is exact). */
long db_add_links(struct db *db, struct db_link *links, size_t n);
/* The live URLs (deleted = 0) of site_id, for MaxURLsPerServer; -1 on a
 * database error (logged). */
long db_count_site_urls(struct db *db, unsigned site_id);

/* An exact duplicate (a clone, as ASPseek 1.2 has them): the url_id of another live status-200
 * origin of site_id with the same MD5 (hex) in *origin, or 0.  Returns 0 or -1. */
int db_find_origin(struct db *db, unsigned site_id, const char *crc, unsigned url_id,
		   unsigned *origin);

/* The stored robots.txt of a site: 1 and *blob (malloc'd, caller frees),
 * *len, *expires, *status when there is a row; 0 when there is none; -1. */
int db_robots_get(struct db *db, unsigned site_id, void **blob, size_t *len, long *expires,
		  int *status);
int db_robots_put(struct db *db, unsigned site_id, int status, long expires, const void *blob,
		  size_t len);

/* The urlwordsNN row of a document (strings are stored as given; the
 * caller keeps them within the column widths of schema.sql). */
struct db_doc {
	unsigned wordcount, totalcount, docsize;
	const char *content_type, *charset, *title, *txt, *keywords, *description;
	const void *words;        /* 4-byte LE length + zlib data of the UTF-8 text */
	size_t words_len;
	const void *hrefs;        /* sorted outgoing url_ids, 4 bytes LE each */
	size_t hrefs_len;
	const void *anchors;      /* the anchors row (schema.sql), "" = none */
	size_t anchors_len;
};

enum db_doc_op { DB_DOC_KEEP, DB_DOC_PUT, DB_DOC_DELETE };

/* The outcome of one claimed URL. */
struct db_done {
	unsigned url_id;
	int status;
	const char *crc, *last_modified, *etag; /* stored as given ("" = none) */
	uint64_t simhash;         /* stored when has_simhash (a page parsed now) */
	bool has_simhash;
	long last_index_time, next_index_time;
	unsigned redir;
	int origin;
	bool deleted;
	enum db_doc_op doc_op;
	const struct db_doc *doc; /* DB_DOC_PUT */
};

/* Store a batch of outcomes in one transaction: each URL row gets its
 * fields and index_status 1 (only while `rank` still holds its claim: a
 * row whose lease went to another rank is skipped and counted in
 * *lost if not NULL), and its urlwordsNN row is written or marked deleted.
 * Call only after the delta records of these URLs are durable.
 * Returns 0 or -1. */
int db_store_done(struct db *db, int rank, const struct db_done *d, size_t n, size_t *lost);

/* index -a: every URL not being indexed is due now.  Returns the number of
 * rows changed, or -1. */
long db_expire_all(struct db *db);

/* --- cluster: site-spread claims, the queue state for the master --------
 * (doc/CLUSTER.md).  A crawling rank holds a few sites at a time: it picks
 * sites nobody holds with db_pick_sites(), claims their URLs with
 * db_claim_site_urls() (which takes the site lease) and gives a site back
 * with db_release_site_after() once it has no URL of it in hand. */

/* Up to n site_ids (into out, caller's memory) of sites with a due URL
 * whose lease is free or expired and not held by `rank`, oldest due URL
 * first (by sites.next_due: a site may turn out to have nothing due, and
 * its claim then corrects it).  Returns the number found, 0..n, or -1. */
int db_pick_sites(struct db *db, int rank, int n, unsigned *out);
/* Give back rank's lease on site_id so that another rank may take the site
 * `after` seconds from now at the earliest (the politeness delay still owed
 * to the host; 0 = at once).  Returns 0 or -1. */
int db_release_site_after(struct db *db, int rank, unsigned site_id, double after);
/* Every claim and site lease of every rank returns to the queue (the master
 * at the start of a job: what a killed earlier job left, whatever its number
 * of ranks).  Returns the number of URLs released, or -1. */
long db_release_all_claims(struct db *db);
/* Recount sites.next_due of every site from its URLs (the master at the
 * start of a job, after db_release_all_claims(): a time an administrator
 * set by hand takes effect then).  One index dive per site.  0 or -1. */
long db_frontier_recount(struct db *db);

/* --- tags: `mpseek-index --tag N` (doc/DATABASE.md, "Tags") ---------------
 *
 * From this call on, the claims (db_claim_urls(), db_claim_site_urls(),
 * db_claim_sites_urls()), db_pick_sites(), db_queue_state()'s due count and
 * db_expire_all() of this connection see only URLs with urlword.tag = tag;
 * -1 (the default) sees every URL.  The pick reads sites of sites.tag = tag
 * or -1 (a site whose Server lines give different tags). */
void db_select_tag(struct db *db, long tag);
/* The tag db_select_tag() gave db (-1: every URL). */
long db_selected_tag(const struct db *db);

/* The work queue at one moment (one statement, one read view). */
#define DB_DUE_COUNT_CAP 100000 /* due URLs are counted up to this many */
struct db_queue {
	long long due;            /* claimable now: not deleted, next_index_time passed
	                           * (an expired claim included); at most
	                           * DB_DUE_COUNT_CAP (= "that many or more") */
	long long claimed;        /* index_status = 2 */
	long long sites_leased;   /* sites with an unexpired lease */
};
/* Returns 0 or -1. */
int db_queue_state(struct db *db, struct db_queue *q);

/* --- recrawl by value (doc/CRAWL.md, "Recrawl by value") ----------------
 *
 * A URL's fetch history in table recrawl: what src/crawl/recrawl.c keeps
 * (hist: its histogram blob, at most 128 bytes), and the last estimate of
 * the change rate and the value it was scheduled with. */
struct db_recrawl {
	unsigned url_id;
	uint32_t fetches, changes;
	double unchanged_secs;
	unsigned char hist[128];
	size_t hist_len;
	double delta, omega;
};
/* Fill rows[0..n) (url_id set by the caller) from table recrawl; a URL with
 * no row gets an empty history.  Returns 0 or -1. */
int db_recrawl_get(struct db *db, struct db_recrawl *rows, size_t n);
/* Write rows[0..n) (insert or replace).  Returns 0 or -1. */
int db_recrawl_put(struct db *db, const struct db_recrawl *rows, size_t n);
/* The multiplier of a rate limit (site_id 0: the crawl's): 1 and *lambda
 * when stored, 0 when not, -1 on error; and its update (0 or -1). */
int db_recrawl_lambda_get(struct db *db, unsigned site_id, double *lambda);
int db_recrawl_lambda_put(struct db *db, unsigned site_id, double lambda);
/* A host's last Retry-After (seconds) and when it was given (unix time),
 * which lower its rate limit k_i (recrawl_host_limit()): 1 with both when
 * stored, 0 when not, -1 on error; and their update (0 or -1). */
int db_recrawl_retry_get(struct db *db, unsigned site_id, double *secs, long *at);
int db_recrawl_retry_put(struct db *db, unsigned site_id, double secs, long at);
/* Due URLs of a site now (not deleted, next_index_time passed), counted up
 * to cap, through index site_claim.  Returns the count or -1. */
long db_site_due(struct db *db, unsigned site_id, long cap);

/* --- for dbserver.c: the embedded server, as root over its socket ------- */

/* 1 if a server accepts root on unix socket `socket_path` right now, else 0
 * (nothing is logged).  When 0 and why is not NULL, *why (malloc'd, caller
 * frees) says what the server or the connection said. */
int db_server_answers(const char *socket_path, char **why);
/* CREATE DATABASE IF NOT EXISTS `name` (utf8mb4) on that server; name must
 * be [A-Za-z0-9_]+ and at most 64 bytes.  Returns 0 or -1. */
int db_server_create_database(const char *socket_path, const char *name);

/* --- merge: the wordurl mirror of the index dictionary ------------------ *
 *
 * wordurl holds one row per word that has postings in the index, with its
 * word_id (as the index assigns it) and counts.  The merge brings it up to
 * date in one transaction and records which generation it describes. */

/* The generation wordurl describes (mpseek_meta 'wordurl_gen'), 0 if none. */
int db_wordurl_gen(struct db *db, uint64_t *gen);

struct db_wordurl {
	uint32_t word_id;
	const char *word;         /* not NUL-terminated */
	size_t len;
	uint32_t urlcount;        /* 0: the word left the index (row deleted) */
	uint32_t totalcount;
};
/* The rows of a db_wordurl_apply(): call put(ctx, row) for each (row and
 * its word borrowed for the call only) and return 0; on a non-zero put()
 * return that value at once, or -1 on an error of its own.  Called again
 * from the start when the transaction is retried. */
typedef int (*db_wordurl_rows_fn)(void *arg, int (*put)(void *ctx, const struct db_wordurl *row),
				  void *ctx);
/* One transaction: with full, empty the table first (rows with urlcount 0
 * are then skipped); insert or update each row rows() passes by word_id,
 * delete the rows of words that left; record gen.  The rows are sent in
 * statements of up to 1 MiB as they come (none is kept).  Returns 0 or
 * -1. */
int db_wordurl_apply(struct db *db, db_wordurl_rows_fn rows, void *arg, bool full, uint64_t gen);
/* Every row in word_id order (streamed); fn returns 0 to go on, else that
 * value is returned.  Returns 0, fn's value, or -1. */
int db_wordurl_each(struct db *db,
		    int (*fn)(void *arg, uint32_t word_id, const char *word, size_t len,
			      uint32_t urlcount, uint32_t totalcount),
		    void *arg);

/* The merge's near-duplicate groups (doc/SEARCH.md, "Near-duplicates"):
 * fn(arg, url_id, simhash) for every live fetched origin with a simhash,
 * streamed; fn returns 0 to go on, else that value is returned.  Returns
 * 0, fn's value, or -1. */
int db_simhashes(struct db *db, int (*fn)(void *arg, uint32_t url_id, uint64_t simhash),
		 void *arg);

/* --- pagerank: the link graph (pagerank.c, doc/PAGERANK.md) --------------
 *
 * Each streams rows to a callback (unbuffered: nothing is held twice); the
 * callback returns 0 to go on or -1 to stop (the function then returns -1)
 * and must not use db.  No retry: a lost connection fails the call. */

/* The pages of the graph: url_id of every live indexed origin document
 * (urlword status 200, deleted 0, origin 1, and a urlwordsNN row with
 * deleted 0), in no particular order.  Returns 0 or -1. */
int db_graph_nodes(struct db *db, int (*cb)(void *arg, uint32_t url_id), void *arg);
/* Every live redirect: (url_id, redir) of the rows with redir != 0 and
 * deleted 0.  Returns 0 or -1. */
int db_graph_redirects(struct db *db, int (*cb)(void *arg, uint32_t from, uint32_t to),
		       void *arg);
/* Every live clone and its origin: the live status-200 origin of the same
 * site with the same crc and the lowest url_id (as db_find_origin()).
 * Returns 0 or -1. */
int db_graph_clones(struct db *db, int (*cb)(void *arg, uint32_t clone, uint32_t origin),
		    void *arg);
/* The stored outgoing links (urlwordsNN.hrefs: LE u32 url_ids) of every
 * document lo <= url_id <= hi whose row is not deleted; hrefs is borrowed
 * until cb returns.  A value longer than DB_MAX_HREFS_BYTES is skipped with
 * a warning.  Returns 0 or -1. */
#define DB_MAX_HREFS_BYTES (4 * MAX_HTML_LINKS)
int db_graph_hrefs(struct db *db, uint32_t lo, uint32_t hi,
		   int (*cb)(void *arg, uint32_t url_id, const unsigned char *hrefs, size_t len),
		   void *arg);
/* The anchor text of the links of every live status-200 origin page (the
 * anchors table, doc/SEARCH.md "Anchor text"): cb gets the source url_id,
 * its site_id and the row's bytes (target u32, target site u32, length u16,
 * text; borrowed until cb returns).  A row longer than DB_MAX_ANCHORS_BYTES
 * is skipped.  Returns 0 or -1 (or what cb returned, when not 0). */
#define DB_MAX_ANCHORS_BYTES (256 * 1024)
int db_anchors_each(struct db *db,
		    int (*cb)(void *arg, uint32_t url_id, uint32_t site_id, const unsigned char *rec,
			      size_t len),
		    void *arg);
/* (url_id, url) of every live status-200 origin row, ascending by url_id
 * (url borrowed until cb returns).  Returns 0 or -1. */
int db_graph_urls(struct db *db, int (*cb)(void *arg, uint32_t url_id, const char *url),
		  void *arg);

/* --- search: what a result page and the query filters need (src/search) ---
 *
 * Each is one statement (per result page, per filter), built from integers
 * or escaped strings, run on the caller's connection with db.c's reconnect
 * and retry. */

/* One document of a result page.  Strings are malloc'd, NUL-terminated
 * ("" when absent); free with db_hit_doc_free(). */
struct db_hit_doc {
	uint32_t url_id;
	uint32_t site_id;
	bool found;               /* the row exists (urlword joined with urlwordsNN) */
	char *url, *site, *title, *description, *keywords, *content_type, *charset;
	uint32_t size;            /* docsize */
	uint64_t last_index_time;
	void *text;               /* urlwordsNN.words (4-byte LE length + zlib data), or NULL */
	size_t text_len;
};
void db_hit_doc_free(struct db_hit_doc *d); /* accepts a zeroed struct */

/* Fill out[i] for ids[i] (n <= DB_MAX_HIT_DOCS; out is the caller's array,
 * zeroed here), with the stored text when with_text: one SELECT over the
 * urlwordsNN tables the ids live in.  Returns 0 or -1. */
#define DB_MAX_HIT_DOCS 512
int db_hit_docs(struct db *db, const uint32_t *ids, size_t n, bool with_text,
		struct db_hit_doc *out);

/* The URLs of the live fetched url_ids ids[0..n) (a hit's near-duplicates),
 * ascending: cb(arg, url_id, url) for each (url borrowed).  0 or -1. */
#define DB_MAX_HIT_URLS 65536
int db_hit_urls(struct db *db, const uint32_t *ids, size_t n,
		int (*cb)(void *arg, uint32_t url_id, const char *url), void *arg);

/* The clones of the origins ids[0..n): live status-200 rows with origin 0,
 * the same site and MD5, ascending by url_id; cb(arg, i, clone_id, url) for
 * each (url borrowed).  Returns 0 or -1. */
int db_hit_clones(struct db *db, const uint32_t *ids, size_t n,
		  int (*cb)(void *arg, size_t i, uint32_t clone_id, const char *url), void *arg);

/* Every row of `sites`: cb(arg, site_id, site) (site borrowed), for site:
 * patterns.  Returns 0 or -1. */
int db_sites_each(struct db *db, int (*cb)(void *arg, uint32_t site_id, const char *site),
		  void *arg);

/* The url_id of a normalised URL: 1 and *url_id, 0 when unknown, -1. */
int db_url_id(struct db *db, const char *url, uint32_t *url_id);

/* url_id of every live URL that starts with prefix (the ul= filter), through
 * cb; site_id != 0 reads only that site's URLs (the site_claim index), 0
 * scans urlword.  Returns 0 or -1. */
int db_url_ids_prefix(struct db *db, uint32_t site_id, const char *prefix,
		      int (*cb)(void *arg, uint32_t url_id), void *arg);

/* The site_id of site key "scheme://host[:port]/": 1 and *site_id, 0 when
 * there is no such site, -1. */
int db_site_lookup(struct db *db, const char *site, uint32_t *site_id);

/* site_id of every site of the web spaces space_ids[0..n) (table spaces).
 * Returns 0 or -1. */
int db_space_sites(struct db *db, const uint32_t *space_ids, size_t n,
		   int (*cb)(void *arg, uint32_t site_id), void *arg);

/* --- crawlpipe: clone lookups from memory -------------------------------- */

/* Every live status-200 origin of site_id (the rows db_find_origin() looks
 * at), by url_id: fn(arg, url_id, crc) for each, crc borrowed for the call.
 * At most max rows are reported.  Returns the number of rows (max + 1 when
 * there are more), or -1. */
long db_site_origins(struct db *db, unsigned site_id, size_t max,
		     void (*fn)(void *arg, unsigned url_id, const char *crc), void *arg);

/* --- searchd: the query log (table stat, ASPseek's ADD_STAT) -------------- */

#define DB_STAT_ADDR 128          /* stat.addr, stat.proxy (ascii) */
#define DB_STAT_TEXT 255          /* stat.query, ul, sp, referer (binary) */
#define DB_STAT_BATCH 64          /* rows of one db_stat_add() call, at most */
#define DB_STAT_SQL (DB_STAT_BATCH * (2 * (2 * DB_STAT_ADDR + 4 * DB_STAT_TEXT) + 256) + 256)

/* One query (strings borrowed; NULL = ""; longer strings are cut to the
 * column widths, addresses to printable ASCII). */
struct db_stat {
	const char *addr;         /* the browser's address (s.cgi's REMOTE_ADDR) */
	const char *proxy;        /* the address that connected to searchd */
	const char *query, *ul, *sp, *referer;
	unsigned site, np, ps, sites;
	uint64_t urls;
	double start, finish;     /* unix times */
};
/* Insert n (at most DB_STAT_BATCH) rows in one statement.  Returns 0 or -1. */
int db_stat_add(struct db *db, const struct db_stat *rows, size_t n);

#endif
