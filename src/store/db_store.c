/* db_store.c - what the crawl stores and looks up while it stores (include/db.h,
 * "storing what the crawl found"): a batch of outcomes into urlword and the
 * urlwordsNN document tables, clone origins by MD5, and each site's
 * robots.txt.  New links and sites are db_links.c's; claims are db_claim.c's.
 */
#include "config.h"

#include <mysql.h>
#include <pthread.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "db.h"
#include "db_int.h"
#include "log.h"
#include "util.h"

/* A clone as ASPseek 1.2 finds one: a live origin of the same site with the
 * same MD5 (doc/DATABASE.md, urlword's `origin`). */
const char st_sql_find_origin[] = "SELECT url_id FROM urlword FORCE INDEX (clones)"
	" WHERE origin = 1 AND site_id = ? AND crc = ? AND status = 200 AND deleted = 0"
	" AND url_id <> ? ORDER BY url_id LIMIT 1";
const char st_sql_robots_get[] = "SELECT expires, status, body FROM robots WHERE site_id = ?";
const char st_sql_robots_put[] = "INSERT INTO robots (site_id, fetched, expires, status, body)"
	" VALUES (?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE fetched = VALUES(fetched),"
	" expires = VALUES(expires), status = VALUES(status), body = VALUES(body)";

/* --- the statements of the urlwordsNN tables ------------------------------- */

/* The row counts of the multi-row document INSERTs (a batch's documents of
 * one table go in chunks of these, the rest one by one). */
static const int DOC_PUT_ROWS[] = { 16, 8, 4, 2 };
_Static_assert(sizeof(DOC_PUT_ROWS) / sizeof(DOC_PUT_ROWS[0]) == DOC_PUT_ROWS_N,
	       "ST_N counts DOC_PUT_ROWS_N statements per table");

/* The per-table statements of urlwords00..15, written once (pthread_once:
 * the loop's and the store thread's connections prepare them). */
#define DOC_SQL_MAX 2048
static char doc_sql[ST_N - ST_DOC_PUT][DOC_SQL_MAX];
static pthread_once_t doc_sql_once = PTHREAD_ONCE_INIT;

static void doc_sql_init(void)
{
	static const char cols[] =
		" (url_id, deleted, wordcount, totalcount, content_type, charset, title, txt,"
		" docsize, keywords, description, words, hrefs) VALUES ";
	static const char row[] = "(?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
	static const char upd[] =
		" ON DUPLICATE KEY UPDATE deleted = 0, wordcount = VALUES(wordcount),"
		" totalcount = VALUES(totalcount), content_type = VALUES(content_type),"
		" charset = VALUES(charset), title = VALUES(title), txt = VALUES(txt),"
		" docsize = VALUES(docsize), keywords = VALUES(keywords),"
		" description = VALUES(description), words = VALUES(words),"
		" hrefs = VALUES(hrefs)";

	for (int t = 0; t < DB_DOC_TABLES; t++) {
		for (int j = -1; j < DOC_PUT_ROWS_N; j++) {
			int rows = j < 0 ? 1 : DOC_PUT_ROWS[j];
			char *p = doc_sql[j < 0 ? t : ST_DOC_PUTK - ST_DOC_PUT + t * DOC_PUT_ROWS_N + j];
			size_t n = (size_t)snprintf(p, DOC_SQL_MAX, "INSERT INTO urlwords%02d%s", t, cols);

			for (int r = 0; r < rows; r++)
				n += (size_t)snprintf(p + n, DOC_SQL_MAX - n, "%s%s", r ? "," : "", row);
			snprintf(p + n, DOC_SQL_MAX - n, "%s", upd);
		}
		snprintf(doc_sql[DB_DOC_TABLES + t], DOC_SQL_MAX,
			 "UPDATE urlwords%02d SET deleted = 1 WHERE url_id = ?", t);
	}
}

const char *st_doc_text(enum st id)
{
	pthread_once(&doc_sql_once, doc_sql_init);
	return doc_sql[id - ST_DOC_PUT];
}

/* --- storing a batch of outcomes ------------------------------------------ */

/* Outcomes per done_urls() statement pair (a longer batch goes in parts). */
#define DB_STORE_BATCH_MAX 256

struct done_ctx {
	int rank;
	const struct db_done *d;
	size_t n, lost;
};

/* The urlwordsNN rows of k outcomes (DB_DOC_PUT, all of table t) in one
 * INSERT: k is 1 or one of DOC_PUT_ROWS (j its index, -1 for 1). */
static int put_docs(struct db *db, const struct db_done *const *v, int k, int t, int j)
{
	MYSQL_BIND par[12 * 16];
	unsigned long l[8 * 16];
	unsigned u[16][4];

	if (k > 16)
		return error("put_docs: %d rows at once", k);
	for (int r = 0; r < k; r++) {
		const struct db_doc *doc = v[r]->doc;
		MYSQL_BIND *b = par + 12 * r;
		unsigned long *lr = l + 8 * r;

		u[r][0] = v[r]->url_id;
		u[r][1] = doc->wordcount;
		u[r][2] = doc->totalcount;
		u[r][3] = doc->docsize;
		bind_uint(&b[0], &u[r][0]);
		bind_uint(&b[1], &u[r][1]);
		bind_uint(&b[2], &u[r][2]);
		bind_str(&b[3], doc->content_type ? doc->content_type : "", &lr[0]);
		bind_str(&b[4], doc->charset ? doc->charset : "", &lr[1]);
		bind_str(&b[5], doc->title ? doc->title : "", &lr[2]);
		bind_str(&b[6], doc->txt ? doc->txt : "", &lr[3]);
		bind_uint(&b[7], &u[r][3]);
		bind_str(&b[8], doc->keywords ? doc->keywords : "", &lr[4]);
		bind_str(&b[9], doc->description ? doc->description : "", &lr[5]);
		bind_blob(&b[10], doc->words ? doc->words : "", &lr[6],
			  doc->words ? doc->words_len : 0);
		bind_blob(&b[11], doc->hrefs ? doc->hrefs : "", &lr[7],
			  doc->hrefs ? doc->hrefs_len : 0);
	}
	return st_exec(db, j < 0 ? (enum st)(ST_DOC_PUT + t)
				 : (enum st)(ST_DOC_PUTK + t * DOC_PUT_ROWS_N + j), par, NULL);
}

/* The urlwordsNN row of an outcome whose URL row was stored. */
static int done_doc(struct db *db, const struct db_done *d)
{
	MYSQL_BIND par[1];
	unsigned url_id = d->url_id;
	int t = (int)(d->url_id % DB_DOC_TABLES);

	if (d->doc_op == DB_DOC_PUT && d->doc)
		return put_docs(db, &d, 1, t, -1);
	if (d->doc_op == DB_DOC_DELETE) {
		bind_uint(&par[0], &url_id);
		return st_exec(db, (enum st)(ST_DOC_DEL + t), par, NULL);
	}
	return 0;
}

/* The document rows of the outcomes of a batch whose URL rows were stored
 * (owned): per table, the new rows in chunks of DOC_PUT_ROWS (a batch of
 * 64 pages takes about 20 statements instead of 64), the rest one by one. */
static int done_docs(struct db *db, const struct db_done *d, size_t n, const bool *owned)
{
	const struct db_done *v[DB_STORE_BATCH_MAX];
	int rc = 0;

	for (int t = 0; t < DB_DOC_TABLES && !rc; t++) {
		int k = 0, at = 0;

		for (size_t i = 0; i < n && !rc; i++) {
			if (!owned[i] || (int)(d[i].url_id % DB_DOC_TABLES) != t)
				continue;
			if (d[i].doc_op == DB_DOC_PUT && d[i].doc)
				v[k++] = &d[i];
			else
				rc = done_doc(db, &d[i]);
		}
		for (int j = 0; j < DOC_PUT_ROWS_N && !rc; j++)
			while (!rc && k - at >= DOC_PUT_ROWS[j]) {
				rc = put_docs(db, v + at, DOC_PUT_ROWS[j], t, j);
				at += DOC_PUT_ROWS[j];
			}
		while (!rc && at < k)
			rc = put_docs(db, v + at++, 1, t, -1);
	}
	return rc;
}

/* The anchors rows of the outcomes of a batch whose URL rows were stored
 * (doc/SEARCH.md, "Anchor text"): every page stored or deleted loses its
 * old row, a stored page with anchors gets its new one; an unchanged page
 * keeps its row.  The bytes go as hex literals (nothing to escape), in
 * statements of about 1 MiB. */
static int done_anchors(struct db *db, const struct db_done *d, size_t n, const bool *owned)
{
	struct buf sql = BUF_INIT(4u << 20);
	size_t k = 0;
	int rc = 0;

	buf_adds(&sql, "DELETE FROM anchors WHERE url_id IN (");
	for (size_t i = 0; i < n; i++)
		if (owned[i] && d[i].doc_op != DB_DOC_KEEP)
			buf_printf(&sql, "%s%u", k++ ? "," : "", d[i].url_id);
	if (k && !buf_addc(&sql, ')'))
		rc = sql_run(db, buf_str(&sql), NULL);
	buf_reset(&sql);
	for (size_t i = 0; i < n && !rc; i++) {
		const struct db_doc *doc = d[i].doc;
		const unsigned char *a;

		if (!owned[i] || d[i].doc_op != DB_DOC_PUT || !doc || !doc->anchors_len)
			continue;
		if (sql.len > (1u << 20)) {
			rc = sql_run(db, buf_str(&sql), NULL);
			buf_reset(&sql);
			if (rc)
				break;
		}
		buf_printf(&sql, "%s(%u, X'", sql.len ? "," : "INSERT INTO anchors (url_id, anchors) VALUES ",
			   d[i].url_id);
		a = doc->anchors;
		for (size_t j = 0; j < doc->anchors_len;) {
			static const char hx[] = "0123456789abcdef";
			char h[512];
			size_t m = 0;

			for (; j < doc->anchors_len && m < sizeof(h); j++) {
				h[m++] = hx[a[j] >> 4];
				h[m++] = hx[a[j] & 15];
			}
			buf_add(&sql, h, m);
		}
		if (buf_adds(&sql, "')"))
			rc = error("the anchors of url %u do not fit one statement", d[i].url_id);
	}
	if (!rc && sql.len)
		rc = sql_run(db, buf_str(&sql), NULL);
	buf_free(&sql);
	return rc;
}

/* ", 'text'" for one CASE arm: escaped, as every string from outside. */
static int add_case_str(struct db *db, struct buf *b, unsigned url_id, const char *s)
{
	if (!s)
		s = "";
	return buf_printf(b, " WHEN %u THEN ", url_id) || add_quoted(db, b, s, strlen(s));
}

/* The simhash column of the outcomes that parsed a page now (doc/CRAWL.md,
 * "Near-duplicates"); the others keep theirs (an unchanged page is not
 * parsed again).  Nothing when none did.  0, or -1 when b is full. */
static int add_simhashes(struct buf *b, const struct db_done *d, size_t n, const bool *owned)
{
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		if (!owned[i] || !d[i].has_simhash)
			continue;
		if (!any && buf_adds(b, ", simhash = CASE url_id"))
			return -1;
		any = true;
		if (buf_printf(b, " WHEN %u THEN %" PRIu64, d[i].url_id, d[i].simhash))
			return -1;
	}
	return any ? buf_adds(b, " ELSE simhash END") : 0;
}

/* The URL rows of a batch in two statements instead of one UPDATE each
 * (the store thread's round trips were half of its time): a SELECT ... FOR
 * UPDATE finds and locks the rows the rank still holds (only the holder of
 * the claim may store the outcome: a lease that expired may have gone to
 * another rank), one UPDATE with a CASE per column writes them.  owned[i]:
 * d[i]'s row was written. */
static int done_urls(struct db *db, int rank, const struct db_done *d, size_t n, bool *owned,
		     size_t *lost)
{
	struct buf sql = BUF_INIT((size_t)DB_MAX_SQL * 64);
	MYSQL_RES *res = NULL;
	MYSQL_ROW row;
	size_t nowned = 0;
	int rc;

	for (size_t i = 0; i < n; i++)
		owned[i] = false;
	buf_printf(&sql, "SELECT url_id FROM urlword WHERE index_status = 2 AND claim_rank = %d"
			 " AND url_id IN (", rank);
	for (size_t i = 0; i < n; i++)
		buf_printf(&sql, "%s%u", i ? "," : "", d[i].url_id);
	if (buf_adds(&sql, ") FOR UPDATE")) {
		rc = error("a batch of %zu URLs does not fit one statement", n);
		goto out;
	}
	rc = sql_run(db, buf_str(&sql), &res);
	if (rc)
		goto out;
	while (res && (row = mysql_fetch_row(res))) {
		unsigned id = (unsigned)num(row[0]);

		/* The first outcome of a URL, as one UPDATE per row would do. */
		for (size_t i = 0; i < n; i++)
			if (d[i].url_id == id) {
				owned[i] = true;
				nowned++;
				break;
			}
	}
	mysql_free_result(res);
	/* The lease expired and the URL went elsewhere: its new holder stores
	 * it; ours is dropped (the delta records are harmless: the merge keeps
	 * the newest record of a URL). */
	*lost += n - nowned;
	if (!nowned)
		goto out;

	buf_reset(&sql);
	buf_adds(&sql, "UPDATE urlword SET");
	static const char *const cols[] = { "status", "crc", "last_modified", "etag",
					    "last_index_time", "next_index_time", "redir",
					    "origin", "deleted" };
	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++) {
		buf_printf(&sql, "%s %s = CASE url_id", c ? "," : "", cols[c]);
		for (size_t i = 0; i < n; i++) {
			const struct db_done *x = &d[i];
			unsigned id = x->url_id;
			int bad;

			if (!owned[i])
				continue;
			switch (c) {
			case 0: bad = buf_printf(&sql, " WHEN %u THEN %d", id, x->status); break;
			case 1: bad = add_case_str(db, &sql, id, x->crc); break;
			case 2: bad = add_case_str(db, &sql, id, x->last_modified); break;
			case 3: bad = add_case_str(db, &sql, id, x->etag); break;
			case 4: bad = buf_printf(&sql, " WHEN %u THEN %u", id,
						 (unsigned)x->last_index_time); break;
			case 5: bad = buf_printf(&sql, " WHEN %u THEN %u", id,
						 (unsigned)x->next_index_time); break;
			case 6: bad = buf_printf(&sql, " WHEN %u THEN %u", id, x->redir); break;
			case 7: bad = buf_printf(&sql, " WHEN %u THEN %d", id, x->origin); break;
			default: bad = buf_printf(&sql, " WHEN %u THEN %d", id, x->deleted ? 1 : 0);
			}
			if (bad) {
				rc = error("a batch of %zu URLs does not fit one statement", n);
				goto out;
			}
		}
		buf_adds(&sql, " END");
	}
	if (add_simhashes(&sql, d, n, owned)) {
		rc = error("a batch of %zu URLs does not fit one statement", n);
		goto out;
	}
	buf_adds(&sql, ", index_status = 1, claim_rank = -1, lease_until = 0 WHERE url_id IN (");
	for (size_t i = 0, k = 0; i < n; i++)
		if (owned[i])
			buf_printf(&sql, "%s%u", k++ ? "," : "", d[i].url_id);
	if (buf_addc(&sql, ')')) {
		rc = error("a batch of %zu URLs does not fit one statement", n);
		goto out;
	}
	rc = sql_run(db, buf_str(&sql), NULL);
out:
	buf_free(&sql);
	return rc;
}

static int done_body(struct db *db, void *arg)
{
	struct done_ctx *c = arg;
	bool owned[DB_STORE_BATCH_MAX];
	int rc = 0;

	c->lost = 0;
	for (size_t at = 0; at < c->n && !rc; at += DB_STORE_BATCH_MAX) {
		size_t k = c->n - at < DB_STORE_BATCH_MAX ? c->n - at : DB_STORE_BATCH_MAX;

		rc = done_urls(db, c->rank, c->d + at, k, owned, &c->lost);
		if (!rc)
			rc = done_docs(db, c->d + at, k, owned);
		if (!rc)
			rc = done_anchors(db, c->d + at, k, owned);
	}
	return rc;
}

int db_store_done(struct db *db, int rank, const struct db_done *d, size_t n, size_t *lost)
{
	struct done_ctx c = { rank, d, n, 0 };

	if (!n)
		return 0;
	if (in_transaction(db, "storing crawled URLs", done_body, &c))
		return -1;
	if (lost)
		*lost = c.lost;
	if (c.lost)
		warning("%zu URL(s) were claimed by another rank after our lease expired", c.lost);
	return 0;
}

/* --- clone origins ---------------------------------------------------------- */

int db_find_origin(struct db *db, unsigned site_id, const char *crc, unsigned url_id,
		   unsigned *origin)
{
	MYSQL_BIND par[3], res[1];
	unsigned long len;
	unsigned id = 0;
	int f;

	*origin = 0;
	bind_uint(&par[0], &site_id);
	bind_str(&par[1], crc, &len);
	bind_uint(&par[2], &url_id);
	bind_uint(&res[0], &id);
	if (st_exec(db, ST_FIND_ORIGIN, par, res))
		return -1;
	f = mysql_stmt_fetch(db->st[ST_FIND_ORIGIN]);
	if (f == 0)
		*origin = id;
	mysql_stmt_free_result(db->st[ST_FIND_ORIGIN]);
	return 0;
}

long db_site_origins(struct db *db, unsigned site_id, size_t max,
		     void (*fn)(void *arg, unsigned url_id, const char *crc), void *arg)
{
	char sql[256];
	MYSQL_RES *res = NULL;
	MYSQL_ROW row;
	long n = 0;

	/* ST_FIND_ORIGIN's rows, all at once: the clones index by its prefix. */
	snprintf(sql, sizeof(sql), "SELECT url_id, crc FROM urlword FORCE INDEX (clones)"
		 " WHERE origin = 1 AND site_id = %u AND status = 200 AND deleted = 0"
		 " ORDER BY url_id LIMIT %zu", site_id, max + 1);
	if (sql_run(db, sql, &res))
		return -1;
	while (res && (row = mysql_fetch_row(res))) {
		if ((size_t)n++ == max)
			break;
		if (row[0] && row[1])
			fn(arg, (unsigned)num(row[0]), row[1]);
	}
	mysql_free_result(res);
	return n;
}

/* --- robots.txt per site ---------------------------------------------------- */

int db_robots_get(struct db *db, unsigned site_id, void **blob, size_t *len, long *expires,
		  int *status)
{
	MYSQL_BIND par[1], res[3];
	MYSQL_STMT *st;
	unsigned exp = 0;
	int stat = 0, f;
	unsigned long blen = 0;
	my_bool is_null = 0;

	*blob = NULL;
	*len = 0;
	bind_uint(&par[0], &site_id);
	bind_uint(&res[0], &exp);
	bind_int(&res[1], &stat);
	memset(&res[2], 0, sizeof(res[2]));
	res[2].buffer_type = MYSQL_TYPE_BLOB;
	res[2].length = &blen;
	res[2].is_null = &is_null;
	if (st_exec(db, ST_ROBOTS_GET, par, res))
		return -1;
	st = db->st[ST_ROBOTS_GET];
	f = mysql_stmt_fetch(st);
	if (f == MYSQL_NO_DATA || f == 1) {
		mysql_stmt_free_result(st);
		return f == 1 ? error("reading robots of site %u: %s", site_id,
				      mysql_stmt_error(st)) : 0;
	}
	*expires = (long)exp;
	*status = stat;
	if (!is_null && blen > 0 && blen <= (16u << 20)) {
		MYSQL_BIND b;

		*blob = xmalloc(blen);
		memset(&b, 0, sizeof(b));
		b.buffer_type = MYSQL_TYPE_BLOB;
		b.buffer = *blob;
		b.buffer_length = blen;
		if (mysql_stmt_fetch_column(st, &b, 2, 0)) {
			free(*blob);
			*blob = NULL;
		} else {
			*len = blen;
		}
	}
	mysql_stmt_free_result(st);
	return 1;
}

int db_robots_put(struct db *db, unsigned site_id, int status, long expires, const void *blob,
		  size_t len)
{
	MYSQL_BIND par[5];
	unsigned now = (unsigned)time(NULL), exp = (unsigned)(expires < 0 ? 0 : expires);
	unsigned long blen;

	bind_uint(&par[0], &site_id);
	bind_uint(&par[1], &now);
	bind_uint(&par[2], &exp);
	bind_int(&par[3], &status);
	bind_blob(&par[4], blob ? blob : "", &blen, blob ? len : 0);
	return st_exec(db, ST_ROBOTS_PUT, par, NULL) ? -1 : 0;
}
