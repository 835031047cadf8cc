/* db_wordurl.c - the merge's mirror of the index dictionary in table wordurl
 * (include/db.h, "merge"): the generation it describes, bringing it up to
 * date in one transaction, and reading it back for merge --check; the pages'
 * simhashes for the merge's near-duplicate groups.  The
 * dictionary itself is the index's (src/index/merge.c), not this file's.
 */
#include "config.h"

#include <inttypes.h>
#include <mysql.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "buf.h"
#include "db.h"
#include "db_int.h"
#include "log.h"

int db_wordurl_gen(struct db *db, uint64_t *gen)
{
	long long v = 0;
	bool found;
	int rc = sql_row(db, "SELECT CAST(value AS UNSIGNED) FROM mpseek_meta"
			     " WHERE name = 'wordurl_gen'", &v, 1, &found);

	*gen = found && v > 0 ? (uint64_t)v : 0;
	return rc ? -1 : 0;
}

struct wordurl_ctx {
	db_wordurl_rows_fn rows;
	void *arg;
	bool full;
	uint64_t gen;
	struct db *db;
	struct buf ins, del;     /* the statements being built */
};

/* Statements of at most this many bytes (max_allowed_packet is 16 MiB by
 * default; stay well below). */
#define WORDURL_SQL (1u << 20)

/* Run what is buffered: with force, whatever there is, else only a
 * statement that reached WORDURL_SQL. */
static int wordurl_flush(struct wordurl_ctx *x, bool force)
{
	int rc = 0;

	if (x->ins.len && (force || x->ins.len >= WORDURL_SQL)) {
		buf_adds(&x->ins, " ON DUPLICATE KEY UPDATE word = VALUES(word),"
				  " urlcount = VALUES(urlcount), totalcount = VALUES(totalcount)");
		rc = sql_run(x->db, buf_str(&x->ins), NULL);
		buf_reset(&x->ins);
	}
	if (!rc && x->del.len && (force || x->del.len >= WORDURL_SQL)) {
		buf_addc(&x->del, ')');
		rc = sql_run(x->db, buf_str(&x->del), NULL);
		buf_reset(&x->del);
	}
	return rc;
}

/* One row from the producer: into the INSERT or the DELETE being built. */
static int wordurl_put(void *ctx, const struct db_wordurl *w)
{
	struct wordurl_ctx *x = ctx;

	if (w->urlcount) {
		if (!x->ins.len)
			buf_adds(&x->ins, "INSERT INTO wordurl (word, word_id, urlcount, totalcount)"
					  " VALUES ");
		else
			buf_addc(&x->ins, ',');
		if (buf_addc(&x->ins, '(') || add_quoted(x->db, &x->ins, w->word, w->len) ||
		    buf_printf(&x->ins, ",%u,%u,%u)", w->word_id, w->urlcount, w->totalcount))
			return error("wordurl: statement too large");
	} else if (!x->full) {
		buf_printf(&x->del, "%s%u", x->del.len ? "," : "DELETE FROM wordurl WHERE word_id IN (",
			   w->word_id);
	}
	return wordurl_flush(x, false);
}

static int wordurl_body(struct db *db, void *arg)
{
	struct wordurl_ctx *x = arg;
	int rc = 0;

	x->db = db;
	buf_reset(&x->ins);
	buf_reset(&x->del);
	/* word_id 0 is a word (partition 0, k 0): without this mode an
	 * AUTO_INCREMENT column turns an inserted 0 into a new id. */
	rc = sql_run(db, "SET SESSION sql_mode = CONCAT(@@sql_mode, ',NO_AUTO_VALUE_ON_ZERO')",
		     NULL);
	if (!rc && x->full)
		rc = sql_run(db, "DELETE FROM wordurl", NULL);
	if (!rc)
		rc = x->rows(x->arg, wordurl_put, x);
	if (!rc)
		rc = wordurl_flush(x, true);
	if (!rc) {
		char sql[160];

		snprintf(sql, sizeof(sql), "INSERT INTO mpseek_meta (name, value) VALUES"
			 " ('wordurl_gen', '%" PRIu64 "') ON DUPLICATE KEY UPDATE value = VALUES(value)",
			 x->gen);
		rc = sql_run(db, sql, NULL);
	}
	return rc;
}

int db_wordurl_apply(struct db *db, db_wordurl_rows_fn rows, void *arg, bool full, uint64_t gen)
{
	struct wordurl_ctx x = { rows, arg, full, gen, db, BUF_INIT(WORDURL_SQL + 4096),
				 BUF_INIT(WORDURL_SQL + 4096) };
	int rc = in_transaction(db, "updating wordurl", wordurl_body, &x);

	buf_free(&x.ins);
	buf_free(&x.del);
	return rc;
}

int db_wordurl_each(struct db *db,
		    int (*fn)(void *arg, uint32_t word_id, const char *word, size_t len,
			      uint32_t urlcount, uint32_t totalcount),
		    void *arg)
{
	MYSQL_RES *res = NULL;
	MYSQL_ROW row = NULL;
	static const char sql[] = "SELECT word_id, word, urlcount, totalcount FROM wordurl"
				  " ORDER BY word_id";
	int rc = 0;

	if (ensure_connected(db))
		return -1;
	/* Streamed (mysql_use_result): the table may be large. */
	if (mysql_real_query(db->my, sql, sizeof(sql) - 1) ||
	    !(res = mysql_use_result(db->my)))
		return error("wordurl: %s", mysql_error(db->my));
	while (!rc && (row = mysql_fetch_row(res))) {
		unsigned long *len = mysql_fetch_lengths(res);

		rc = fn(arg, (uint32_t)strtoul(row[0], NULL, 10), row[1], len[1],
			(uint32_t)strtoul(row[2], NULL, 10), (uint32_t)strtoul(row[3], NULL, 10));
	}
	if (!rc && mysql_errno(db->my))
		rc = error("wordurl: %s", mysql_error(db->my));
	while (row && mysql_fetch_row(res))
		; /* drain after an early stop */
	mysql_free_result(res);
	return rc;
}

int db_simhashes(struct db *db, int (*fn)(void *arg, uint32_t url_id, uint64_t simhash),
		 void *arg)
{
	MYSQL_RES *res = NULL;
	MYSQL_ROW row = NULL;
	/* Clones (origin 0) are shown through their origin already. */
	static const char sql[] = "SELECT url_id, simhash FROM urlword WHERE simhash <> 0"
				  " AND deleted = 0 AND status = 200 AND origin <> 0";
	int rc = 0;

	if (ensure_connected(db))
		return -1;
	/* Streamed (mysql_use_result): one row per page of the index. */
	if (mysql_real_query(db->my, sql, sizeof(sql) - 1) ||
	    !(res = mysql_use_result(db->my)))
		return error("simhashes: %s", mysql_error(db->my));
	while (!rc && (row = mysql_fetch_row(res)))
		if (row[0] && row[1])
			rc = fn(arg, (uint32_t)strtoul(row[0], NULL, 10),
				(uint64_t)strtoull(row[1], NULL, 10));
	if (!rc && mysql_errno(db->my))
		rc = error("simhashes: %s", mysql_error(db->my));
	while (row && mysql_fetch_row(res))
		; /* drain after an early stop */
	mysql_free_result(res);
	return rc;
}
