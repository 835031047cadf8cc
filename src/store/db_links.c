/* db_links.c - the link graph in the database (include/db.h): sites, the
 * Server URLs a crawl starts from, the URLs of the links it finds, and the
 * streamed reads PageRank builds its graph from.  What a fetched URL turns
 * into (its row's fields, its document) is db_store.c's.
 */
#include "config.h"

#include <limits.h>
#include <mysql.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "caps.h"
#include "conf.h"
#include "db.h"
#include "db_int.h"
#include "log.h"
#include "status.h"
#include "url.h"
#include "util.h"

/* LAST_INSERT_ID(site_id) makes the id of an existing site the insert id,
 * so one statement returns the site_id either way. */
const char st_sql_site_add[] = "INSERT INTO sites (site, tag) VALUES (?, ?)"
	" ON DUPLICATE KEY UPDATE site_id = LAST_INSERT_ID(site_id)";
/* An existing URL is left alone: affected rows 1 = new, 0 = known. */
const char st_sql_url_add[] =
	"INSERT INTO urlword (site_id, url, hops, next_index_time, index_status, tag)"
	" VALUES (?, ?, 0, 0, 0, ?) ON DUPLICATE KEY UPDATE url_id = url_id";

/* --- sites and the Server URLs (seeding) ---------------------------------- */

/* sites row for `site` (tag `tag` when new); its id in *site_id. */
static int add_site(struct db *db, const char *site, long tag, unsigned *site_id)
{
	MYSQL_BIND par[2];
	unsigned long len;
	int t = (int)tag, rc;

	bind_str(&par[0], site, &len);
	bind_int(&par[1], &t);
	rc = st_exec(db, ST_SITE_ADD, par, NULL);
	if (rc)
		return rc;
	*site_id = (unsigned)mysql_stmt_insert_id(db->st[ST_SITE_ADD]);
	if (!*site_id)
		return error("inserting site %s: no site_id", site);
	return 0;
}

/* urlword row for `url` (tag `tag`) unless known; *added += 1 when it was
 * new. */
static int add_url(struct db *db, unsigned site_id, const char *url, long tag, int *added)
{
	MYSQL_BIND par[3];
	unsigned long len;
	int t = (int)tag, rc;

	bind_uint(&par[0], &site_id);
	bind_str(&par[1], url, &len);
	bind_int(&par[2], &t);
	rc = st_exec(db, ST_URL_ADD, par, NULL);
	if (rc)
		return rc;
	if (mysql_stmt_affected_rows(db->st[ST_URL_ADD]) == 1) {
		(*added)++;
		debug("seeded %s", url);
	}
	return 0;
}

struct seed_ctx {
	const struct conf *c;
	int added;
	struct seed_srv {
		unsigned site_id;
		long tag;
		char *url;            /* the Server URL, normalised */
	} *v;                         /* one per Server line */
	size_t n;
};

/* The scope of site site_id as the Server lines of url's site give it now,
 * against the digest the site keeps from the last seeding (sites.scope): a
 * site whose scope changed has its URLs fetched again in full (due now, no
 * validators, no MD5, so neither a 304 nor "unchanged" skips their links)
 * and the URLs dropped as outside every Server (601) come back, so that the
 * next plain run admits links under the new scope (doc/CRAWL.md, "Server
 * scope").  A digest of '' (a database of schema version 2) is compared
 * with the scope as mpseek scoped a Server before version 3. */
static int seed_scope(struct db *db, const struct conf *c, const char *url, const char *site,
		      unsigned site_id)
{
	struct buf now = BUF_INIT(1u << 20), legacy = BUF_INIT(1u << 20), sql = BUF_INIT(1u << 21);
	long long v[2];
	bool found;
	int rc;

	conf_site_scope(c, url, false, &now);
	conf_site_scope(c, url, true, &legacy);
	buf_adds(&sql, "SELECT scope = MD5(");
	add_quoted(db, &sql, buf_str(&now), now.len);
	rc = buf_printf(&sql, "), scope = '' FROM sites WHERE site_id = %u", site_id) ? -1 :
	     sql_row(db, buf_str(&sql), v, 2, &found);
	if (rc || !found || v[0] == 1)
		goto out;
	if (!v[1] || strcmp(buf_str(&now), buf_str(&legacy))) {
		buf_reset(&sql);
		buf_printf(&sql, "UPDATE urlword SET next_index_time = 0, last_modified = '',"
			   " etag = '', crc = '', deleted = 0 WHERE site_id = %u"
			   " AND index_status <> 2 AND (deleted = 0 OR status = %d)", site_id,
			   CST_FILTERED);
		rc = sql_run(db, buf_str(&sql), NULL);
		if (rc)
			goto out;
		if (mysql_affected_rows(db->my) > 0)
			info("site %s: its Server scope is now \"%.200s\": %llu URL(s) to fetch "
			     "again in full", site, buf_str(&now),
			     (unsigned long long)mysql_affected_rows(db->my));
	}
	buf_reset(&sql);
	buf_adds(&sql, "UPDATE sites SET scope = MD5(");
	add_quoted(db, &sql, buf_str(&now), now.len);
	rc = buf_printf(&sql, ") WHERE site_id = %u", site_id) ? -1 :
	     sql_run(db, buf_str(&sql), NULL);
out:
	buf_free(&now);
	buf_free(&legacy);
	buf_free(&sql);
	return rc;
}

/* --- tags at seeding (doc/DATABASE.md, "Tags") ----------------------------
 *
 * Every URL carries the Tag of its Server line (urlword.tag) and every site
 * the tag its Server lines give, -1 when they differ (sites.tag): the pick
 * of `--tag N` reads sites alone.  A Server line whose Tag changed moves
 * the URLs it covers to the new tag here, at the next seeding; a site
 * whose tag did not change costs one primary-key read. */

/* Order: by site, then shorter Server URL first (a longer prefix wins, as
 * in conf_server_for(), so it is applied last). */
static int cmp_srv(const void *a, const void *b)
{
	const struct seed_srv *x = a, *y = b;
	size_t lx = strlen(x->url), ly = strlen(y->url);

	if (x->site_id != y->site_id)
		return x->site_id < y->site_id ? -1 : 1;
	return lx < ly ? -1 : lx > ly;
}

/* Append `s` as the start of a LIKE pattern ('\' escapes % and _). */
static int add_like_prefix(struct db *db, struct buf *sql, const char *s, const char *rest)
{
	struct buf pat = BUF_INIT(2 * MAX_URL_LEN + 8);
	int rc = 0;

	for (const char *q = s; *q && !rc; q++)
		rc = (strchr("\\%_", *q) && buf_addc(&pat, '\\')) || buf_addc(&pat, *q);
	rc = rc || buf_adds(&pat, rest) || add_quoted(db, sql, pat.ptr, pat.len);
	buf_free(&pat);
	return rc ? -1 : 0;
}

/* The URLs of site v->site_id under Server URL v->url (at a path
 * boundary, as conf_server_for() matches) get its tag. */
static int retag_prefix(struct db *db, const struct seed_srv *v, struct buf *sql)
{
	const char *u = v->url;
	size_t n = strlen(u);
	int rc;

	buf_reset(sql);
	rc = buf_printf(sql, "UPDATE urlword FORCE INDEX (site_claim) SET tag = %ld"
			" WHERE site_id = %u AND tag <> %ld AND (url = ", v->tag, v->site_id,
			v->tag) ||
	     add_quoted(db, sql, u, n);
	if (!rc && n && u[n - 1] == '/') {
		rc = buf_adds(sql, " OR url LIKE ") || add_like_prefix(db, sql, u, "%");
	} else if (!rc) {
		rc = buf_adds(sql, " OR url LIKE ") || add_like_prefix(db, sql, u, "/%") ||
		     buf_adds(sql, " OR url LIKE ") || add_like_prefix(db, sql, u, "?%");
	}
	if (rc || buf_addc(sql, ')'))
		return error("Server %s: too long for the tag update", u);
	return sql_run(db, buf_str(sql), NULL);
}

/* v[0..n): the Server lines of one site. */
static int seed_site_tag(struct db *db, const struct seed_srv *v, size_t n, struct buf *sql)
{
	long tag = v[0].tag;
	long long cur;
	bool found;
	char q[160];
	int rc;

	for (size_t i = 1; i < n; i++)
		if (v[i].tag != tag)
			tag = -1;
	snprintf(q, sizeof(q), "SELECT tag FROM sites WHERE site_id = %u", v[0].site_id);
	rc = sql_row(db, q, &cur, 1, &found);
	if (rc || (found && cur == tag && tag >= 0))
		return rc;
	if (tag >= 0) {
		/* One tag for the site: every URL of it. */
		snprintf(q, sizeof(q), "UPDATE urlword FORCE INDEX (site_claim) SET tag = %ld"
			 " WHERE site_id = %u AND tag <> %ld", tag, v[0].site_id, tag);
		rc = sql_run(db, q, NULL);
	} else {
		/* Several: each Server line's URLs, the longest prefix last. */
		for (size_t i = 0; i < n && !rc; i++)
			rc = retag_prefix(db, &v[i], sql);
	}
	if (rc)
		return rc;
	if (!found || cur != tag)
		info("site %u: tag %ld (was %lld)%s", v[0].site_id, tag, found ? cur : 0,
		     tag < 0 ? ": its Server lines give different tags" : "");
	snprintf(q, sizeof(q), "UPDATE sites SET tag = %ld WHERE site_id = %u", tag, v[0].site_id);
	return sql_run(db, q, NULL);
}

static int seed_tags(struct db *db, struct seed_ctx *s)
{
	struct buf sql = BUF_INIT(4 * MAX_URL_LEN + 512);
	size_t i = 0, j;
	int rc = 0;

	if (s->n) /* qsort() wants a non-NULL base even for no element */
		qsort(s->v, s->n, sizeof(*s->v), cmp_srv);
	for (; i < s->n && !rc; i = j) {
		for (j = i + 1; j < s->n && s->v[j].site_id == s->v[i].site_id; j++)
			;
		rc = seed_site_tag(db, s->v + i, j - i, &sql);
	}
	buf_free(&sql);
	return rc;
}

static void seed_free(struct seed_ctx *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].url);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

static int seed_body(struct db *db, void *arg)
{
	struct seed_ctx *s = arg;
	struct buf url = BUF_INIT(MAX_URL_LEN + 1), site = BUF_INIT(MAX_URL_LEN + 1),
		   robots = BUF_INIT(MAX_URL_LEN + 1);
	const char *why = NULL;
	unsigned site_id;
	int rc = 0;

	s->added = 0;
	seed_free(s);
	s->v = xcalloc(s->c->n_servers ? s->c->n_servers : 1, sizeof(*s->v));
	for (size_t i = 0; i < s->c->n_servers && !rc; i++) {
		const struct conf_server *sv = &s->c->servers[i];

		/* The same normal form and site key as every URL the crawl finds,
		 * so a Server URL is never stored twice under two spellings. */
		if (url_normalize(sv->url, &url, &why) || url_site(buf_str(&url), &site, &why) ||
		    (sv->p.robots && url_robots_url(buf_str(&url), &robots, &why))) {
			rc = error("%s:%d: Server %s: %s", sv->file ? sv->file : s->c->path,
				   sv->line, sv->url, why ? why : "not a URL mpseek can crawl");
			break;
		}
		rc = add_site(db, buf_str(&site), sv->p.tag, &site_id);
		if (!rc)
			rc = seed_scope(db, s->c, sv->url, buf_str(&site), site_id);
		/* robots.txt first: it gets the lower url_id, so a claim (ordered
		 * by next_index_time, url_id) hands it out before the pages. */
		if (!rc && sv->p.robots)
			rc = add_url(db, site_id, buf_str(&robots), sv->p.tag, &s->added);
		if (!rc)
			rc = add_url(db, site_id, buf_str(&url), sv->p.tag, &s->added);
		s->v[s->n].site_id = site_id;
		s->v[s->n].tag = sv->p.tag;
		s->v[s->n++].url = xstrdup(buf_str(&url));
	}
	if (!rc)
		rc = seed_tags(db, s);
	buf_free(&url);
	buf_free(&site);
	buf_free(&robots);
	return rc;
}

int db_seed_servers(struct db *db, const struct conf *c)
{
	struct seed_ctx s = { c, 0, NULL, 0 };
	int rc = in_transaction(db, "inserting the Server URLs", seed_body, &s);

	seed_free(&s);
	return rc ? -1 : s.added;
}

/* --- the links the crawl finds ------------------------------------------- */

int db_site_id(struct db *db, const char *site, long tag, unsigned *site_id)
{
	return add_site(db, site, tag, site_id) ? -1 : 0;
}

struct links_ctx {
	struct db_link *v;
	size_t n;
	long added;
};

/* Fill the url_id of the links that have none (only those marked known
 * when known_only) from urlword: one SELECT by url_hash.  Returns 0, -1 or
 * DB_AGAIN. */
static int links_lookup(struct db *db, struct links_ctx *lc, struct buf *sql, bool known_only)
{
	MYSQL_RES *res = NULL;
	MYSQL_ROW row;
	size_t todo = 0;
	int rc;

	buf_reset(sql);
	buf_adds(sql, "SELECT url_id, url FROM urlword WHERE url_hash IN (");
	for (size_t i = 0; i < lc->n; i++) {
		if (lc->v[i].url_id || (known_only && !lc->v[i].known))
			continue;
		if (todo++)
			buf_addc(sql, ',');
		buf_adds(sql, "UNHEX(MD5(");
		add_quoted(db, sql, lc->v[i].url, strlen(lc->v[i].url));
		buf_adds(sql, "))");
	}
	if (!todo)
		return 0;
	if (buf_addc(sql, ')'))
		return error("link batch too large for one statement");
	rc = sql_run(db, buf_str(sql), &res);
	if (rc)
		return rc;
	while (res && (row = mysql_fetch_row(res))) {
		unsigned id = (unsigned)num(row[0]);

		for (size_t i = 0; i < lc->n; i++)
			if (!lc->v[i].url_id && row[1] && !strcmp(row[1], lc->v[i].url))
				lc->v[i].url_id = id;
	}
	mysql_free_result(res);
	if (known_only)
		for (size_t i = 0; i < lc->n; i++)
			if (lc->v[i].known && !lc->v[i].url_id)
				lc->v[i].known = false;
	return 0;
}

static int links_insert(struct db *db, struct links_ctx *lc)
{
	struct buf sql = BUF_INIT((size_t)DB_MAX_SQL * 64);
	unsigned now = (unsigned)time(NULL);
	unsigned long long first;
	size_t todo = 0;
	int rc;

	rc = ensure_connected(db);
	if (rc)
		return rc;
	for (size_t i = 0; i < lc->n; i++)
		lc->v[i].added = false;
	/* A lookup first only of the links the seen-set's filter says it met
	 * before: those have rows, and an INSERT of a row that is there
	 * costs more than the SELECT (a row lock on it, and an
	 * auto-increment value burnt).  The others are new to this rank and
	 * mostly new; a URL that has a row (another page or rank added it)
	 * keeps it: ON DUPLICATE KEY leaves the row alone. */
	rc = links_lookup(db, lc, &sql, true);
	if (rc)
		goto out;
	buf_reset(&sql);
	buf_adds(&sql, "INSERT INTO urlword (site_id, url, hops, referrer, next_index_time,"
		       " index_status, tag) VALUES ");
	for (size_t i = 0; i < lc->n; i++) {
		struct db_link *l = &lc->v[i];

		if (l->url_id)
			continue;
		l->added = true;
		if (todo++)
			buf_addc(&sql, ',');
		if (buf_printf(&sql, "(%u,", l->site_id) ||
		    add_quoted(db, &sql, l->url, strlen(l->url)) ||
		    buf_printf(&sql, ",%d,%u,%u,0,%ld)",
			       l->hops < 0 ? 0 : l->hops > 65535 ? 65535 : l->hops, l->referrer,
			       now, l->tag < 0 || l->tag > INT32_MAX ? 0L : l->tag)) {
			rc = error("link batch too large for one statement");
			goto out;
		}
	}
	if (!todo)
		goto out;
	buf_adds(&sql, " ON DUPLICATE KEY UPDATE url_id = url_id");
	rc = sql_run(db, buf_str(&sql), NULL);
	if (rc)
		goto out;
	lc->added = (long)mysql_affected_rows(db->my);
	first = (unsigned long long)mysql_insert_id(db->my);
	if (db->autoinc_consecutive && first && lc->added == (long)todo &&
	    first + todo - 1 <= UINT_MAX) {
		/* Every row is new (ON DUPLICATE KEY left none alone): the
		 * i-th row of the INSERT has id first + i, no SELECT needed.
		 * crawl-threads.sh compares this with the SELECT's ids. */
		unsigned id = (unsigned)first;

		for (size_t i = 0; i < lc->n; i++)
			if (lc->v[i].added)
				lc->v[i].url_id = id++;
		goto out;
	}
	rc = links_lookup(db, lc, &sql, false);
	if (rc)
		goto out;
	/* Which rows are new: InnoDB gives the rows of one multi-row INSERT
	 * consecutive ids from the first (innodb_autoinc_lock_mode 0 or 1,
	 * the default), and a row that was there has an id from before or
	 * from another statement's block.  Only the flags depend on this
	 * (the count is the server's); with lock mode 2 they may be wrong
	 * when ranks insert at the same moment. */
	for (size_t i = 0; i < lc->n; i++) {
		struct db_link *l = &lc->v[i];

		l->added = l->added && lc->added > 0 && first && l->url_id >= first &&
			   l->url_id < first + todo;
	}
out:
	buf_free(&sql);
	return rc;
}

long db_add_links(struct db *db, struct db_link *links, size_t n)
{
	struct links_ctx lc = { links, n, 0 };
	int rc;

	if (!n)
		return 0;
	/* Autocommit: one statement is its own transaction, retried inside. */
	rc = links_insert(db, &lc);
	if (rc == DB_AGAIN)
		rc = links_insert(db, &lc);
	return rc ? -1 : lc.added;
}

long db_count_site_urls(struct db *db, unsigned site_id)
{
	char sql[160];
	long long v[1];
	bool found;

	/* The site_claim index: one range of the site's entries. */
	snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM urlword FORCE INDEX (site_claim)"
		 " WHERE site_id = %u AND deleted = 0", site_id);
	if (sql_row(db, sql, v, 1, &found))
		return -1;
	return found ? (long)v[0] : 0;
}

/* --- pagerank: the link graph, streamed ---------------------------------- */

/* One column of a streamed row: an unsigned int, or a string/blob read
 * whole into buf (grown up to max bytes) after the fetch. */
struct gcol {
	bool blob;
	unsigned u;
	struct buf b;
	unsigned long len;
	my_bool is_null, trunc;
};

/* Prepare sql, bind the unsigned parameters par[0..npar), execute, and
 * fetch the rows unbuffered, calling row(arg, cols) for each.  A blob
 * longer than max is passed as NULL (cols[i].b.ptr == NULL, len set).
 * Returns 0 or -1 (logged). */
static int graph_stream(struct db *db, const char *sql, unsigned *par, int npar,
			struct gcol *cols, int ncols, size_t max,
			int (*row)(void *arg, struct gcol *cols), void *arg)
{
	MYSQL_STMT *st = NULL;
	MYSQL_BIND pb[4], rb[4];
	int rc = -1, f;

	if (npar > 4 || ncols > 4)
		return error("graph_stream: too many columns");
	if (ensure_connected(db))
		return error("pagerank: no database connection");
	st = mysql_stmt_init(db->my);
	if (!st)
		return error("out of memory preparing a statement");
	if (mysql_stmt_prepare(st, sql, strlen(sql)))
		goto failed;
	for (int i = 0; i < npar; i++)
		bind_uint(&pb[i], &par[i]);
	if (npar && mysql_stmt_bind_param(st, pb))
		goto failed;
	memset(rb, 0, sizeof(rb));
	for (int i = 0; i < ncols; i++) {
		if (cols[i].blob) {
			rb[i].buffer_type = MYSQL_TYPE_BLOB;
			rb[i].buffer = NULL;
			rb[i].buffer_length = 0;
			rb[i].length = &cols[i].len;
			rb[i].is_null = &cols[i].is_null;
			rb[i].error = &cols[i].trunc;
		} else {
			bind_uint(&rb[i], &cols[i].u);
			rb[i].is_null = &cols[i].is_null;
		}
	}
	if (mysql_stmt_execute(st) || mysql_stmt_bind_result(st, rb))
		goto failed;
	while ((f = mysql_stmt_fetch(st)) == 0 || f == MYSQL_DATA_TRUNCATED) {
		for (int i = 0; i < ncols; i++) {
			if (!cols[i].blob)
				continue;
			buf_reset(&cols[i].b);
			if (cols[i].is_null || cols[i].len == 0)
				continue;
			if (cols[i].len > max) {
				warning("pagerank: a value of %lu bytes is over the cap of %zu: skipped",
					cols[i].len, max);
				buf_free(&cols[i].b);
				buf_init(&cols[i].b, max + 1);
				continue;
			}
			/* Grow to len (NUL-terminated by buf), then read the column. */
			while (cols[i].b.len < cols[i].len) {
				static const char zeros[4096];
				size_t k = cols[i].len - cols[i].b.len;

				if (buf_add(&cols[i].b, zeros, k < sizeof(zeros) ? k : sizeof(zeros)))
					goto out;
			}
			MYSQL_BIND cb;

			memset(&cb, 0, sizeof(cb));
			cb.buffer_type = MYSQL_TYPE_BLOB;
			cb.buffer = cols[i].b.ptr;
			cb.buffer_length = cols[i].len;
			if (mysql_stmt_fetch_column(st, &cb, (unsigned)i, 0))
				goto failed;
		}
		if (row(arg, cols))
			goto out;
	}
	if (f != MYSQL_NO_DATA)
		goto failed;
	rc = 0;
	goto out;
failed:
	set_last_error(db, mysql_stmt_errno(st) ? mysql_stmt_errno(st) : mysql_errno(db->my),
		       mysql_stmt_errno(st) ? mysql_stmt_error(st) : mysql_error(db->my));
	if (err_connection_lost(db->last_errno))
		db->broken = true;
	error("pagerank: %s: %s", sql, db->last_error);
out:
	mysql_stmt_close(st);
	return rc;
}

struct graph_cb {
	int (*one)(void *arg, uint32_t id);
	int (*two)(void *arg, uint32_t a, uint32_t b);
	int (*blob)(void *arg, uint32_t id, const unsigned char *p, size_t len);
	int (*str)(void *arg, uint32_t id, const char *s);
	void *arg;
};

static int row_one(void *arg, struct gcol *c)
{
	struct graph_cb *g = arg;
	return g->one(g->arg, c[0].u);
}

static int row_two(void *arg, struct gcol *c)
{
	struct graph_cb *g = arg;
	return g->two(g->arg, c[0].u, c[1].u);
}

static int row_blob(void *arg, struct gcol *c)
{
	struct graph_cb *g = arg;

	if (!c[1].b.len)   /* NULL, empty or over the cap */
		return 0;
	return g->blob(g->arg, c[0].u, (const unsigned char *)c[1].b.ptr, c[1].b.len);
}

static int row_str(void *arg, struct gcol *c)
{
	struct graph_cb *g = arg;
	return g->str(g->arg, c[0].u, buf_str(&c[1].b));
}

int db_graph_nodes(struct db *db, int (*cb)(void *arg, uint32_t url_id), void *arg)
{
	struct graph_cb g = { .one = cb, .arg = arg };
	struct gcol cols[1];
	char sql[320];

	for (int t = 0; t < DB_DOC_TABLES; t++) {
		memset(cols, 0, sizeof(cols));
		snprintf(sql, sizeof(sql),
			 "SELECT w.url_id FROM urlwords%02d w JOIN urlword u ON u.url_id = w.url_id"
			 " WHERE w.deleted = 0 AND u.deleted = 0 AND u.status = 200"
			 " AND u.origin = 1", t);
		if (graph_stream(db, sql, NULL, 0, cols, 1, 0, row_one, &g))
			return -1;
	}
	return 0;
}

int db_graph_redirects(struct db *db, int (*cb)(void *arg, uint32_t from, uint32_t to),
		       void *arg)
{
	struct graph_cb g = { .two = cb, .arg = arg };
	struct gcol cols[2];

	memset(cols, 0, sizeof(cols));
	return graph_stream(db, "SELECT url_id, redir FROM urlword WHERE redir <> 0 AND deleted = 0",
			    NULL, 0, cols, 2, 0, row_two, &g);
}

int db_graph_clones(struct db *db, int (*cb)(void *arg, uint32_t clone, uint32_t origin),
		    void *arg)
{
	struct graph_cb g = { .two = cb, .arg = arg };
	struct gcol cols[2];

	memset(cols, 0, sizeof(cols));
	return graph_stream(db,
			    "SELECT c.url_id, MIN(o.url_id) FROM urlword c"
			    " JOIN urlword o FORCE INDEX (clones) ON o.origin = 1"
			    " AND o.site_id = c.site_id AND o.crc = c.crc AND o.status = 200"
			    " AND o.deleted = 0"
			    " WHERE c.origin = 0 AND c.deleted = 0 AND c.status = 200 AND c.crc <> ''"
			    " GROUP BY c.url_id",
			    NULL, 0, cols, 2, 0, row_two, &g);
}

int db_graph_hrefs(struct db *db, uint32_t lo, uint32_t hi,
		   int (*cb)(void *arg, uint32_t url_id, const unsigned char *hrefs, size_t len),
		   void *arg)
{
	struct graph_cb g = { .blob = cb, .arg = arg };
	struct gcol cols[2];
	unsigned par[2] = { lo, hi };
	char sql[256];
	int rc = 0;

	memset(cols, 0, sizeof(cols));
	cols[1].blob = true;
	buf_init(&cols[1].b, DB_MAX_HREFS_BYTES + 1);
	for (int t = 0; t < DB_DOC_TABLES && !rc; t++) {
		snprintf(sql, sizeof(sql),
			 "SELECT url_id, hrefs FROM urlwords%02d"
			 " WHERE url_id BETWEEN ? AND ? AND deleted = 0", t);
		rc = graph_stream(db, sql, par, 2, cols, 2, DB_MAX_HREFS_BYTES, row_blob, &g);
	}
	buf_free(&cols[1].b);
	return rc;
}

int db_graph_urls(struct db *db, int (*cb)(void *arg, uint32_t url_id, const char *url),
		  void *arg)
{
	struct graph_cb g = { .str = cb, .arg = arg };
	struct gcol cols[2];
	int rc;

	memset(cols, 0, sizeof(cols));
	cols[1].blob = true;
	buf_init(&cols[1].b, MAX_URL_LEN + 1);
	rc = graph_stream(db,
			  "SELECT url_id, url FROM urlword WHERE status = 200 AND deleted = 0"
			  " AND origin = 1 ORDER BY url_id",
			  NULL, 0, cols, 2, MAX_URL_LEN, row_str, &g);
	buf_free(&cols[1].b);
	return rc;
}

struct anchors_cb {
	int (*cb)(void *arg, uint32_t url_id, uint32_t site_id, const unsigned char *rec,
		  size_t len);
	void *arg;
};

static int row_anchors(void *arg, struct gcol *c)
{
	struct anchors_cb *a = arg;

	if (!c[2].b.len)   /* empty or over the cap */
		return 0;
	return a->cb(a->arg, c[0].u, c[1].u, (const unsigned char *)c[2].b.ptr, c[2].b.len);
}

int db_anchors_each(struct db *db,
		    int (*cb)(void *arg, uint32_t url_id, uint32_t site_id, const unsigned char *rec,
			      size_t len),
		    void *arg)
{
	struct anchors_cb a = { cb, arg };
	struct gcol cols[3];
	int rc;

	memset(cols, 0, sizeof(cols));
	cols[2].blob = true;
	buf_init(&cols[2].b, DB_MAX_ANCHORS_BYTES + 1);
	/* The sources the index holds: what db_graph_nodes() calls a node. */
	rc = graph_stream(db,
			  "SELECT a.url_id, u.site_id, a.anchors FROM anchors a"
			  " JOIN urlword u ON u.url_id = a.url_id"
			  " WHERE u.deleted = 0 AND u.status = 200 AND u.origin = 1",
			  NULL, 0, cols, 3, DB_MAX_ANCHORS_BYTES, row_anchors, &a);
	buf_free(&cols[2].b);
	return rc;
}
