/* db_recrawl.c - the tables of recrawl by value (include/db.h, "recrawl by
 * value"; doc/CRAWL.md): a URL's fetch history and the multipliers of the
 * rate limits.  What the history means, and the arithmetic on it, are
 * src/crawl/recrawl.c's; this file only reads and writes the rows.
 */
#include "config.h"

#include <mysql.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "db.h"
#include "db_int.h"
#include "log.h"
#include "util.h"

int db_recrawl_get(struct db *db, struct db_recrawl *rows, size_t n)
{
	struct buf sql = BUF_INIT(1u << 20);
	MYSQL_RES *res = NULL;
	MYSQL_ROW row;
	int rc;

	for (size_t i = 0; i < n; i++) {
		unsigned id = rows[i].url_id;

		memset(&rows[i], 0, sizeof(rows[i]));
		rows[i].url_id = id;
	}
	if (!n)
		return 0;
	buf_adds(&sql, "SELECT url_id, fetches, changes, unchanged_secs, hist FROM recrawl"
		       " WHERE url_id IN (");
	for (size_t i = 0; i < n; i++)
		buf_printf(&sql, "%s%u", i ? "," : "", rows[i].url_id);
	if (buf_addc(&sql, ')')) {
		buf_free(&sql);
		return error("recrawl: a batch too large for one statement");
	}
	rc = sql_run(db, buf_str(&sql), &res);
	buf_free(&sql);
	if (rc)
		return -1;
	while (res && (row = mysql_fetch_row(res))) {
		unsigned long *len = mysql_fetch_lengths(res);
		unsigned id = (unsigned)num(row[0]);

		for (size_t i = 0; i < n; i++) {
			struct db_recrawl *r = &rows[i];

			if (r->url_id != id)
				continue;
			r->fetches = (uint32_t)num(row[1]);
			r->changes = (uint32_t)num(row[2]);
			r->unchanged_secs = row[3] ? strtod(row[3], NULL) : 0;
			r->hist_len = row[4] && len[4] < sizeof(r->hist) ? len[4] : sizeof(r->hist);
			if (row[4])
				memcpy(r->hist, row[4], r->hist_len);
			else
				r->hist_len = 0;
		}
	}
	mysql_free_result(res);
	return 0;
}

int db_recrawl_put(struct db *db, const struct db_recrawl *rows, size_t n)
{
	struct buf sql = BUF_INIT(1u << 20);
	int rc = 0;

	if (!n)
		return 0;
	buf_adds(&sql, "INSERT INTO recrawl (url_id, fetches, changes, unchanged_secs, hist,"
		       " delta, omega) VALUES ");
	for (size_t i = 0; i < n && !rc; i++) {
		const struct db_recrawl *r = &rows[i];

		rc = buf_printf(&sql, "%s(%u,%u,%u,%.17g,", i ? "," : "", r->url_id,
				(unsigned)r->fetches, (unsigned)r->changes, r->unchanged_secs) ||
		     add_quoted(db, &sql, (const char *)r->hist, r->hist_len) ||
		     buf_printf(&sql, ",%.17g,%.17g)", r->delta, r->omega);
	}
	if (!rc)
		rc = buf_adds(&sql, " ON DUPLICATE KEY UPDATE fetches = VALUES(fetches),"
				    " changes = VALUES(changes), unchanged_secs = VALUES(unchanged_secs),"
				    " hist = VALUES(hist), delta = VALUES(delta), omega = VALUES(omega)");
	if (rc)
		rc = error("recrawl: a batch too large for one statement");
	else if (sql_run(db, buf_str(&sql), NULL))
		rc = -1;
	buf_free(&sql);
	return rc;
}

int db_recrawl_lambda_get(struct db *db, unsigned site_id, double *lambda)
{
	char q[96];
	MYSQL_RES *res = NULL;
	MYSQL_ROW row;
	int found = 0;

	snprintf(q, sizeof(q), "SELECT lambda FROM recrawl_limits WHERE site_id = %u", site_id);
	if (sql_run(db, q, &res))
		return -1;
	if (res && (row = mysql_fetch_row(res)) && row[0]) {
		*lambda = strtod(row[0], NULL);
		found = 1;
	}
	mysql_free_result(res);
	return found;
}

int db_recrawl_lambda_put(struct db *db, unsigned site_id, double lambda)
{
	char q[160];

	snprintf(q, sizeof(q), "INSERT INTO recrawl_limits (site_id, lambda) VALUES (%u, %.17g)"
		 " ON DUPLICATE KEY UPDATE lambda = VALUES(lambda)", site_id, lambda);
	return sql_run(db, q, NULL) ? -1 : 0;
}

int db_recrawl_retry_get(struct db *db, unsigned site_id, double *secs, long *at)
{
	char q[128];
	MYSQL_RES *res = NULL;
	MYSQL_ROW row;
	int found = 0;

	snprintf(q, sizeof(q), "SELECT retry_secs, retry_at FROM recrawl_limits WHERE site_id = %u",
		 site_id);
	if (sql_run(db, q, &res))
		return -1;
	if (res && (row = mysql_fetch_row(res)) && row[0] && row[1]) {
		*secs = strtod(row[0], NULL);
		*at = (long)num(row[1]);
		found = 1;
	}
	mysql_free_result(res);
	return found;
}

int db_recrawl_retry_put(struct db *db, unsigned site_id, double secs, long at)
{
	char q[224];

	/* A new row's lambda stays 0: read back as "none", the floor. */
	snprintf(q, sizeof(q), "INSERT INTO recrawl_limits (site_id, retry_secs, retry_at)"
		 " VALUES (%u, %.17g, %ld) ON DUPLICATE KEY UPDATE"
		 " retry_secs = VALUES(retry_secs), retry_at = VALUES(retry_at)",
		 site_id, secs, at > 0 ? at : 0);
	return sql_run(db, q, NULL) ? -1 : 0;
}

long db_site_due(struct db *db, unsigned site_id, long cap)
{
	char q[256];
	long long v = 0;
	bool found;

	snprintf(q, sizeof(q), "SELECT COUNT(*) FROM (SELECT 1 FROM urlword FORCE INDEX (site_claim)"
		 " WHERE site_id = %u AND deleted = 0 AND next_index_time <= UNIX_TIMESTAMP()"
		 " LIMIT %ld) t", site_id, cap);
	if (sql_row(db, q, &v, 1, &found))
		return -1;
	return (long)v;
}
