/* db_search.c - what searchd and s.cgi read from the database, and the query
 * log they write (include/db.h, "engine" and "searchd"): the rows of a result
 * page with their stored text, clones, and the site:, ul= and web-space
 * filters.  Each is one statement on the caller's connection; the index and
 * the ranking are src/search's.
 */
#include "config.h"

#include <mysql.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "caps.h"
#include "db.h"
#include "db_int.h"
#include "log.h"
#include "util.h"

/* --- result pages and query filters (search.c) --------------------------- */

void db_hit_doc_free(struct db_hit_doc *d)
{
	if (!d)
		return;
	free(d->url);
	free(d->site);
	free(d->title);
	free(d->description);
	free(d->keywords);
	free(d->content_type);
	free(d->charset);
	free(d->text);
	memset(d, 0, sizeof(*d));
}

static char *col_str(MYSQL_ROW row, unsigned long *lens, int i)
{
	return row[i] ? xstrndup(row[i], lens[i]) : xstrdup("");
}

/* Run a query without parameters and call fn for each row; DB_AGAIN cannot
 * happen outside a transaction.  Returns 0, -1, or fn's non-zero value. */
static int rows_each(struct db *db, const char *sql,
		     int (*fn)(void *arg, MYSQL_ROW row, unsigned long *lens, unsigned n),
		     void *arg)
{
	MYSQL_RES *res = NULL;
	MYSQL_ROW row;
	int rc = sql_run(db, sql, &res);

	if (rc)
		return -1;
	while (res && (row = mysql_fetch_row(res))) {
		rc = fn(arg, row, mysql_fetch_lengths(res), mysql_num_fields(res));
		if (rc)
			break;
	}
	mysql_free_result(res);
	return rc;
}

struct hit_ctx {
	const uint32_t *ids;
	size_t n;
	struct db_hit_doc *out;
};

static int hit_row(void *arg, MYSQL_ROW row, unsigned long *lens, unsigned nf)
{
	struct hit_ctx *h = arg;
	uint32_t id;

	if (nf < 12 || !row[0])
		return 0;
	id = (uint32_t)num(row[0]);
	for (size_t i = 0; i < h->n; i++) {
		struct db_hit_doc *d = &h->out[i];

		if (h->ids[i] != id || d->found)
			continue;
		d->found = true;
		d->url_id = id;
		d->site_id = (uint32_t)num(row[1] ? row[1] : "0");
		d->url = col_str(row, lens, 2);
		d->site = col_str(row, lens, 3);
		d->title = col_str(row, lens, 4);
		d->description = col_str(row, lens, 5);
		d->keywords = col_str(row, lens, 6);
		d->content_type = col_str(row, lens, 7);
		d->charset = col_str(row, lens, 8);
		d->size = (uint32_t)num(row[9] ? row[9] : "0");
		d->last_index_time = (uint64_t)num(row[10] ? row[10] : "0");
		if (nf > 11 && row[11] && lens[11] > 4) {
			d->text = xmalloc(lens[11]);
			memcpy(d->text, row[11], lens[11]);
			d->text_len = lens[11];
		}
	}
	return 0;
}

int db_hit_docs(struct db *db, const uint32_t *ids, size_t n, bool with_text,
		struct db_hit_doc *out)
{
	struct buf sql = BUF_INIT(1 << 20);
	struct hit_ctx h = { ids, n, out };
	bool any = false;
	int rc;

	for (size_t i = 0; i < n; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].url_id = ids[i];
	}
	if (n == 0)
		return 0;
	if (n > DB_MAX_HIT_DOCS)
		return error("db_hit_docs: %zu documents asked for, at most %d", n, DB_MAX_HIT_DOCS);
	for (int t = 0; t < DB_DOC_TABLES; t++) {
		bool first = true;

		for (size_t i = 0; i < n; i++) {
			if (ids[i] % DB_DOC_TABLES != (unsigned)t)
				continue;
			if (first) {
				if (any)
					buf_adds(&sql, " UNION ALL ");
				buf_printf(&sql, "SELECT u.url_id, u.site_id, u.url, s.site, w.title,"
					   " w.description, w.keywords, w.content_type, w.charset,"
					   " w.docsize, u.last_index_time, %s FROM urlword u"
					   " JOIN urlwords%02d w ON w.url_id = u.url_id"
					   " LEFT JOIN sites s ON s.site_id = u.site_id"
					   " WHERE u.url_id IN (", with_text ? "w.words" : "NULL", t);
				first = false;
				any = true;
			} else {
				buf_addc(&sql, ',');
			}
			buf_printf(&sql, "%u", ids[i]);
		}
		if (!first)
			buf_addc(&sql, ')');
	}
	rc = rows_each(db, buf_str(&sql), hit_row, &h);
	buf_free(&sql);
	if (rc) {
		for (size_t i = 0; i < n; i++)
			db_hit_doc_free(&out[i]);
		return -1;
	}
	return 0;
}

struct clone_ctx {
	const uint32_t *ids;
	size_t n;
	int (*cb)(void *arg, size_t i, uint32_t clone_id, const char *url);
	void *arg;
};

static int clone_row(void *arg, MYSQL_ROW row, unsigned long *lens, unsigned nf)
{
	struct clone_ctx *c = arg;
	uint32_t origin;

	UNUSED(lens);
	if (nf < 3 || !row[0] || !row[1] || !row[2])
		return 0;
	origin = (uint32_t)num(row[0]);
	for (size_t i = 0; i < c->n; i++)
		if (c->ids[i] == origin && c->cb(c->arg, i, (uint32_t)num(row[1]), row[2]))
			return 1;
	return 0;
}

int db_hit_clones(struct db *db, const uint32_t *ids, size_t n,
		  int (*cb)(void *arg, size_t i, uint32_t clone_id, const char *url), void *arg)
{
	struct buf sql = BUF_INIT(1 << 20);
	struct clone_ctx c = { ids, n, cb, arg };
	int rc;

	if (n == 0)
		return 0;
	if (n > DB_MAX_HIT_DOCS)
		return error("db_hit_clones: %zu documents asked for, at most %d", n,
			     DB_MAX_HIT_DOCS);
	buf_adds(&sql, "SELECT o.url_id, c.url_id, c.url FROM urlword o"
		 " JOIN urlword c FORCE INDEX (clones) ON c.origin = 0 AND c.site_id = o.site_id"
		 " AND c.crc = o.crc AND c.status = 200 AND c.deleted = 0"
		 " WHERE o.crc <> '' AND o.url_id IN (");
	for (size_t i = 0; i < n; i++)
		buf_printf(&sql, "%s%u", i ? "," : "", ids[i]);
	buf_adds(&sql, ") ORDER BY o.url_id, c.url_id");
	rc = rows_each(db, buf_str(&sql), clone_row, &c);
	buf_free(&sql);
	return rc < 0 ? -1 : 0;
}

struct id_str_ctx {
	int (*cb)(void *arg, uint32_t id, const char *s);
	int (*cb1)(void *arg, uint32_t id);
	void *arg;
};

static int id_str_row(void *arg, MYSQL_ROW row, unsigned long *lens, unsigned nf)
{
	struct id_str_ctx *c = arg;

	UNUSED(lens);
	if (!row[0])
		return 0;
	if (c->cb1)
		return c->cb1(c->arg, (uint32_t)num(row[0]));
	if (nf < 2 || !row[1])
		return 0;
	return c->cb(c->arg, (uint32_t)num(row[0]), row[1]);
}

int db_sites_each(struct db *db, int (*cb)(void *arg, uint32_t site_id, const char *site),
		  void *arg)
{
	struct id_str_ctx c = { cb, NULL, arg };

	return rows_each(db, "SELECT site_id, site FROM sites", id_str_row, &c) < 0 ? -1 : 0;
}

static int one_id(void *arg, uint32_t id)
{
	*(uint32_t *)arg = id;
	return 1;
}

int db_url_id(struct db *db, const char *url, uint32_t *url_id)
{
	struct buf sql = BUF_INIT(8 * MAX_URL_LEN);
	struct id_str_ctx c = { NULL, one_id, url_id };
	int rc;

	*url_id = 0;
	if (ensure_connected(db))
		return -1;
	buf_adds(&sql, "SELECT url_id FROM urlword WHERE url_hash = UNHEX(MD5(");
	if (add_quoted(db, &sql, url, strlen(url)) || buf_adds(&sql, "))")) {
		buf_free(&sql);
		return error("db_url_id: URL too long");
	}
	rc = rows_each(db, buf_str(&sql), id_str_row, &c);
	buf_free(&sql);
	if (rc < 0)
		return -1;
	return *url_id ? 1 : 0;
}

int db_site_lookup(struct db *db, const char *site, uint32_t *site_id)
{
	struct buf sql = BUF_INIT(4 * MAX_SITE_LEN + 128);
	struct id_str_ctx c = { NULL, one_id, site_id };
	int rc;

	*site_id = 0;
	if (ensure_connected(db))
		return -1;
	buf_adds(&sql, "SELECT site_id FROM sites WHERE site = ");
	if (add_quoted(db, &sql, site, strlen(site))) {
		buf_free(&sql);
		return 0; /* longer than any site key: no such site */
	}
	rc = rows_each(db, buf_str(&sql), id_str_row, &c);
	buf_free(&sql);
	if (rc < 0)
		return -1;
	return *site_id ? 1 : 0;
}

int db_hit_urls(struct db *db, const uint32_t *ids, size_t n,
		int (*cb)(void *arg, uint32_t url_id, const char *url), void *arg)
{
	struct buf sql = BUF_INIT(1 << 20);
	struct id_str_ctx c = { cb, NULL, arg };
	int rc;

	if (n == 0)
		return 0;
	if (n > DB_MAX_HIT_URLS)
		return error("db_hit_urls: %zu URLs asked for, at most %d", n, DB_MAX_HIT_URLS);
	buf_adds(&sql, "SELECT url_id, url FROM urlword WHERE deleted = 0 AND status = 200"
		 " AND url_id IN (");
	for (size_t i = 0; i < n; i++)
		buf_printf(&sql, "%s%u", i ? "," : "", ids[i]);
	buf_adds(&sql, ") ORDER BY url_id");
	rc = rows_each(db, buf_str(&sql), id_str_row, &c);
	buf_free(&sql);
	return rc < 0 ? -1 : 0;
}

int db_url_ids_prefix(struct db *db, uint32_t site_id, const char *prefix,
		      int (*cb)(void *arg, uint32_t url_id), void *arg)
{
	struct buf sql = BUF_INIT(8 * MAX_URL_LEN), like = BUF_INIT(2 * MAX_URL_LEN + 2);
	struct id_str_ctx c = { NULL, cb, arg };
	int rc;

	if (ensure_connected(db))
		return -1;
	/* LIKE's own wildcards in the prefix are literal: escaped with '\'. */
	for (const char *p = prefix; *p; p++)
		if ((*p == '%' || *p == '_' || *p == '\\') && buf_addc(&like, '\\'))
			goto toolong;
		else if (buf_addc(&like, *p))
			goto toolong;
	if (buf_addc(&like, '%'))
		goto toolong;
	if (site_id)
		buf_printf(&sql, "SELECT url_id FROM urlword FORCE INDEX (site_claim)"
			   " WHERE site_id = %u AND deleted = 0 AND url LIKE ", site_id);
	else
		buf_adds(&sql, "SELECT url_id FROM urlword WHERE deleted = 0 AND url LIKE ");
	if (add_quoted(db, &sql, like.ptr, like.len))
		goto toolong;
	rc = rows_each(db, buf_str(&sql), id_str_row, &c);
	buf_free(&sql);
	buf_free(&like);
	return rc < 0 ? -1 : 0;
toolong:
	buf_free(&sql);
	buf_free(&like);
	return error("db_url_ids_prefix: prefix too long");
}

int db_space_sites(struct db *db, const uint32_t *space_ids, size_t n,
		   int (*cb)(void *arg, uint32_t site_id), void *arg)
{
	struct buf sql = BUF_INIT(1 << 20);
	struct id_str_ctx c = { NULL, cb, arg };
	int rc;

	if (n == 0)
		return 0;
	buf_adds(&sql, "SELECT DISTINCT site_id FROM spaces WHERE space_id IN (");
	for (size_t i = 0; i < n; i++)
		buf_printf(&sql, "%s%u", i ? "," : "", space_ids[i]);
	buf_addc(&sql, ')');
	rc = rows_each(db, buf_str(&sql), id_str_row, &c);
	buf_free(&sql);
	return rc < 0 ? -1 : 0;
}

/* --- the query log (table stat, searchd) --------------------------------- */

/* Cut s to at most max bytes on a UTF-8 character boundary (the binary
 * columns take any bytes; a cut character would only look odd). */
static size_t stat_cut(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n <= max)
		return n;
	n = max;
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	return n;
}

/* An address for the ascii columns: printable ASCII only, at most max bytes. */
static int stat_add_ascii(struct db *db, struct buf *b, const char *s, size_t max)
{
	char tmp[DB_STAT_ADDR + 1];
	size_t n = 0;

	if (max > DB_STAT_ADDR)
		max = DB_STAT_ADDR;
	for (; s && s[n] && n < max; n++)
		tmp[n] = s[n] > 0x20 && s[n] < 0x7f ? s[n] : '?';
	return add_quoted(db, b, tmp, n);
}

static int stat_add_bin(struct db *db, struct buf *b, const char *s)
{
	s = s ? s : "";
	return add_quoted(db, b, s, stat_cut(s, DB_STAT_TEXT));
}

int db_stat_add(struct db *db, const struct db_stat *rows, size_t n)
{
	struct buf sql = BUF_INIT(DB_STAT_SQL);
	size_t i;
	int rc;

	if (!n)
		return 0;
	/* Escaping needs the connection; sql_run() below reconnects again
	 * should it drop in between (the charset is always utf8mb4). */
	rc = ensure_connected(db);
	if (rc)
		return -1;
	rc = buf_adds(&sql, "INSERT INTO stat (addr, proxy, query, ul, sp, site, np, ps, sites,"
			    " urls, start, finish, referer) VALUES ");
	for (i = 0; !rc && i < n; i++) {
		const struct db_stat *r = &rows[i];
		rc = (i && buf_addc(&sql, ',')) || buf_addc(&sql, '(') ||
		     stat_add_ascii(db, &sql, r->addr, DB_STAT_ADDR) || buf_addc(&sql, ',') ||
		     stat_add_ascii(db, &sql, r->proxy, DB_STAT_ADDR) || buf_addc(&sql, ',') ||
		     stat_add_bin(db, &sql, r->query) || buf_addc(&sql, ',') ||
		     stat_add_bin(db, &sql, r->ul) || buf_addc(&sql, ',') ||
		     stat_add_bin(db, &sql, r->sp) ||
		     buf_printf(&sql, ",%u,%u,%u,%u,%u,%.3f,%.3f,", r->site, r->np < 65535 ? r->np : 65535,
				r->ps < 65535 ? r->ps : 65535, r->sites,
				r->urls < UINT32_MAX ? (unsigned)r->urls : UINT32_MAX, r->start,
				r->finish) ||
		     stat_add_bin(db, &sql, r->referer) || buf_addc(&sql, ')');
	}
	if (rc)
		rc = error("the query log: %zu row(s) do not fit one statement", n);
	else
		rc = sql_run(db, sql.ptr, NULL) ? -1 : 0;
	buf_free(&sql);
	return rc;
}
