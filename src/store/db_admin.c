/* db_admin.c - the administrator's targeted verbs in the database
 * (include/db.h, "the administrator's verbs"): selecting URLs by pattern,
 * URL or site, removing their rows (-C), making them due (-a/-m -u), and
 * when the next URL is due.  Writing the DEL records that take the
 * documents out of the index is the caller's (src/bin/index_admin.c).
 */
#include "config.h"

#include <mysql.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "db.h"
#include "db_int.h"
#include "log.h"
#include "url.h"
#include "util.h"

/* url_ids per DELETE or UPDATE: one short transaction each, so a large
 * selection never holds many row locks against a crawl. */
#define ADMIN_CHUNK 1000

enum pat_kind { PAT_LIKE, PAT_URL, PAT_SITE };

static enum pat_kind pattern_kind(const char *p)
{
	if (strpbrk(p, "%_"))
		return PAT_LIKE;
	return strstr(p, "://") ? PAT_URL : PAT_SITE;
}

/* The site_id of site key `site`, 0 when the site is unknown.  0 or -1. */
static int site_lookup(struct db *db, const char *site, unsigned *site_id)
{
	struct buf sql = BUF_INIT(8192);
	long long v = 0;
	bool found = false;
	int rc;

	buf_adds(&sql, "SELECT site_id FROM sites WHERE site = ");
	rc = add_quoted(db, &sql, site, strlen(site)) ? -1 : sql_row(db, buf_str(&sql), &v, 1, &found);
	buf_free(&sql);
	*site_id = found ? (unsigned)v : 0;
	return rc ? -1 : 0;
}

/* A LIKE pattern whose literal start holds a whole site key
 * ("http://host/%"): the site, so that the scan reads one site's rows
 * through `site_claim` rather than the whole table.  Returns the site_id
 * (0: the site is unknown, nothing can match), or -1 when the pattern names
 * no one site (the caller scans), or -2 on an error. */
static long like_site(struct db *db, const char *pat)
{
	const char *wild = strpbrk(pat, "%_\\"), *host = strstr(pat, "://"), *slash;
	struct buf site = BUF_INIT(MAX_URL_LEN + 1);
	unsigned id;
	int rc;

	if (!host || host > wild)
		return -1;
	slash = strchr(host + 3, '/');
	if (!slash || slash > wild)
		return -1;
	buf_add(&site, pat, (size_t)(slash + 1 - pat));
	rc = site_lookup(db, buf_str(&site), &id);
	buf_free(&site);
	return rc ? -2 : (long)id;
}

struct idvec {
	uint32_t *v;
	size_t n, alloc;
};

static void idvec_add(struct idvec *iv, uint32_t id)
{
	if (iv->n == iv->alloc) {
		iv->alloc = iv->alloc ? 2 * iv->alloc : 1024;
		iv->v = xrealloc(iv->v, iv->alloc * sizeof(*iv->v));
	}
	iv->v[iv->n++] = id;
}

static int collect(struct db *db, const char *sql, struct idvec *iv)
{
	MYSQL_RES *res = NULL;
	MYSQL_ROW row;
	int rc = sql_run(db, sql, &res);

	if (rc)
		return rc;
	while (res && (row = mysql_fetch_row(res)))
		idvec_add(iv, (uint32_t)num(row[0]));
	mysql_free_result(res);
	return 0;
}

/* The WHERE condition of one pattern into sql (after "WHERE "), or
 * nothing (an empty sql) when it can match no row.  0 or -1. */
static int pattern_where(struct db *db, const char *pat, struct buf *sql)
{
	struct buf norm = BUF_INIT(MAX_URL_LEN + 1);
	const char *why = NULL;
	unsigned id;
	long site;
	int rc = -1;

	switch (pattern_kind(pat)) {
	case PAT_LIKE:
		site = like_site(db, pat);
		if (site == -2 || site == 0) {
			rc = site == 0 ? 0 : -1;
			break;
		}
		if (site > 0)
			buf_printf(sql, "site_id = %ld AND ", site);
		buf_adds(sql, "url LIKE ");
		rc = add_quoted(db, sql, pat, strlen(pat));
		break;
	case PAT_URL:
		if (url_normalize(pat, &norm, &why)) {
			rc = error("%s: not a URL: %s", pat, why ? why : "malformed");
			break;
		}
		buf_adds(sql, "url_hash = UNHEX(MD5(");
		rc = add_quoted(db, sql, buf_str(&norm), norm.len) || buf_adds(sql, "))") ? -1 : 0;
		break;
	case PAT_SITE: {
		/* host[:port]: the site over http and over https. */
		char *key = xasprintf("http://%s/", pat);

		if (url_site(key, &norm, &why) || strcmp(buf_str(&norm), key)) {
			free(key);
			rc = error("%s: neither a site (host or host:port, lower case), a URL nor a "
				   "LIKE pattern", pat);
			break;
		}
		free(key);
		buf_adds(sql, "site_id IN (0");
		rc = 0;
		for (int s = 0; s < 2 && !rc; s++) {
			key = xasprintf("%s://%s/", s ? "https" : "http", pat);
			rc = site_lookup(db, key, &id);
			if (!rc && id)
				buf_printf(sql, ",%u", id);
			free(key);
		}
		if (!rc)
			rc = buf_addc(sql, ')');
		break;
	}
	}
	buf_free(&norm);
	return rc;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int db_match_urls(struct db *db, const char *const *pats, size_t n, unsigned flags,
		  uint32_t **ids, size_t *n_ids)
{
	struct idvec iv = { NULL, 0, 0 };
	struct buf sql = BUF_INIT(2 * MAX_URL_LEN + 512);
	size_t k = 0;
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		buf_reset(&sql);
		buf_printf(&sql, "SELECT url_id FROM urlword WHERE %s%s",
			   flags & DB_MATCH_DELETED ? "" : "deleted = 0 AND ",
			   flags & DB_MATCH_NOT_BUSY ? "NOT (index_status = 2 AND"
			   " lease_until > UNIX_TIMESTAMP()) AND " : "");
		size_t head = sql.len;

		rc = pattern_where(db, pats[i], &sql);
		if (!rc && sql.len > head)
			rc = collect(db, buf_str(&sql), &iv);
	}
	buf_free(&sql);
	if (rc) {
		free(iv.v);
		return -1;
	}
	/* Patterns may overlap: each URL once. */
	if (iv.n)
		qsort(iv.v, iv.n, sizeof(*iv.v), cmp_u32);
	for (size_t i = 0; i < iv.n; i++)
		if (!k || iv.v[k - 1] != iv.v[i])
			iv.v[k++] = iv.v[i];
	*ids = iv.v;
	*n_ids = k;
	return 0;
}

/* " IN (id,id,...)" of ids[0..n-1] into sql. */
int db_deleted_url_ids(struct db *db, uint32_t **ids, size_t *n_ids)
{
	struct idvec iv = { NULL, 0, 0 };
	/* deleted leads the claim index: the marked rows are one range of it. */
	int rc = collect(db, "SELECT url_id FROM urlword FORCE INDEX (claim) WHERE deleted <> 0",
			 &iv);

	if (rc) {
		free(iv.v);
		return -1;
	}
	if (iv.n) /* qsort() wants a non-NULL base even for no element */
		qsort(iv.v, iv.n, sizeof(*iv.v), cmp_u32);
	*ids = iv.v;
	*n_ids = iv.n;
	return 0;
}

static void add_id_list(struct buf *sql, const uint32_t *ids, size_t n)
{
	buf_adds(sql, " IN (");
	for (size_t i = 0; i < n; i++)
		buf_printf(sql, "%s%u", i ? "," : "", ids[i]);
	buf_addc(sql, ')');
}

struct del_ctx {
	const uint32_t *ids;
	size_t n;
	long removed;
	struct buf sql;
};

/* One chunk: the URL rows of the ids not being crawled right now, locked
 * first (a claim then waits), and their document rows. */
static int delete_body(struct db *db, void *arg)
{
	struct del_ctx *d = arg;
	struct idvec del = { NULL, 0, 0 };
	int rc;

	buf_reset(&d->sql);
	buf_adds(&d->sql, "SELECT url_id FROM urlword WHERE NOT (index_status = 2"
		 " AND lease_until > UNIX_TIMESTAMP()) AND url_id");
	add_id_list(&d->sql, d->ids, d->n);
	buf_adds(&d->sql, " FOR UPDATE");
	rc = collect(db, buf_str(&d->sql), &del);
	d->removed = (long)del.n;
	if (!rc && del.n) {
		buf_reset(&d->sql);
		buf_adds(&d->sql, "DELETE FROM urlword WHERE url_id");
		add_id_list(&d->sql, del.v, del.n);
		rc = sql_run(db, buf_str(&d->sql), NULL);
	}
	if (!rc && del.n) {
		/* The fetch history of recrawl by value goes with its URL. */
		buf_reset(&d->sql);
		buf_adds(&d->sql, "DELETE FROM recrawl WHERE url_id");
		add_id_list(&d->sql, del.v, del.n);
		rc = sql_run(db, buf_str(&d->sql), NULL);
	}
	for (int t = 0; !rc && del.n && t < DB_DOC_TABLES; t++) {
		size_t m = 0;

		buf_reset(&d->sql);
		buf_printf(&d->sql, "DELETE FROM urlwords%02d WHERE url_id IN (0", t);
		for (size_t i = 0; i < del.n; i++) {
			if (del.v[i] % DB_DOC_TABLES == (uint32_t)t) {
				buf_printf(&d->sql, ",%u", del.v[i]);
				m++;
			}
		}
		if (m && !buf_addc(&d->sql, ')'))
			rc = sql_run(db, buf_str(&d->sql), NULL);
	}
	free(del.v);
	return rc;
}

long db_delete_urls(struct db *db, const uint32_t *ids, size_t n)
{
	struct del_ctx d = { NULL, 0, 0, BUF_INIT(1u << 20) };
	long removed = 0;
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i += ADMIN_CHUNK) {
		d.ids = ids + i;
		d.n = n - i < ADMIN_CHUNK ? n - i : ADMIN_CHUNK;
		rc = in_transaction(db, "deleting URLs", delete_body, &d);
		removed += d.removed;
	}
	buf_free(&d.sql);
	return rc ? -1 : removed;
}

long db_expire_urls(struct db *db, const uint32_t *ids, size_t n, bool force)
{
	struct buf sql = BUF_INIT(1u << 20);
	long changed = 0;
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i += ADMIN_CHUNK) {
		size_t m = n - i < ADMIN_CHUNK ? n - i : ADMIN_CHUNK;

		buf_reset(&sql);
		/* -m: no validators and no MD5, so the next fetch is a plain GET
		 * and the page is parsed again even when it did not change. */
		buf_printf(&sql, "UPDATE urlword SET next_index_time = 0%s"
			   " WHERE index_status <> 2 AND deleted = 0 AND url_id",
			   force ? ", last_modified = '', etag = '', crc = ''" : "");
		add_id_list(&sql, ids + i, m);
		rc = sql_run(db, buf_str(&sql), NULL);
		if (!rc)
			changed += (long)mysql_affected_rows(db->my);
	}
	buf_free(&sql);
	return rc ? -1 : changed;
}

int db_next_due(struct db *db, long long *when)
{
	bool found = false;
	long long v = 0;

	/* One dive into `claim` (deleted, next_index_time, url_id).  A URL
	 * being crawled counts with its lease's end. */
	if (sql_row(db, "SELECT MIN(next_index_time) FROM urlword FORCE INDEX (claim)"
		    " WHERE deleted = 0", &v, 1, &found))
		return -1;
	if (!found || v == 0) {
		/* MIN() of no rows is NULL (0 here): tell it from "due at 0". */
		if (sql_row(db, "SELECT COUNT(*) FROM (SELECT 1 FROM urlword FORCE INDEX (claim)"
			    " WHERE deleted = 0 LIMIT 1) t", &v, 1, &found))
			return -1;
		if (!v)
			return 0;
		v = 0;
	}
	*when = v;
	return 1;
}

int db_next_due_url(struct db *db, long long when, char *url, size_t size)
{
	char q[200];
	MYSQL_RES *res = NULL;
	MYSQL_ROW row;
	int found = 0;

	if (size)
		url[0] = '\0';
	/* The first row of `claim` at that time: one dive. */
	snprintf(q, sizeof(q), "SELECT url FROM urlword FORCE INDEX (claim) WHERE deleted = 0"
		 " AND next_index_time = %lld ORDER BY url_id LIMIT 1", when);
	if (sql_run(db, q, &res))
		return -1;
	if (res && (row = mysql_fetch_row(res)) && row[0] && size) {
		snprintf(url, size, "%s", row[0]);
		found = 1;
	}
	mysql_free_result(res);
	return found;
}
