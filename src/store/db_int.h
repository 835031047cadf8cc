/* db_int.h - what the files of the SQL layer share, and nobody else sees:
 * struct db, the ids of the prepared statements, and the helpers of db.c that
 * run a statement or a transaction with reconnect and retry.  The public
 * contract is include/db.h; only src/store/db*.c include this file.
 */
#ifndef MPSEEK_DB_INT_H
#define MPSEEK_DB_INT_H

#include <mysql.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "db.h"

#define DB_AGAIN        (-2)    /* the transaction must be run again */
#define DB_MAX_SQL      65536   /* one statement of schema.sql */

/* The multi-row document INSERTs per urlwordsNN table (db_store.c). */
#define DOC_PUT_ROWS_N 4

/* The prepared statements, by the file that owns (and runs) each: its text
 * is defined there, db.c's st_text() maps the id to it. */
enum st {
	/* db_links.c */
	ST_SITE_ADD,
	ST_URL_ADD,
	/* db_claim.c */
	ST_CLAIM,
	ST_CLAIM_SITE,
	ST_TAKE_SITE,
	ST_RELEASE_URLS,
	ST_RELEASE_SITES,
	ST_RELEASE_SITE,
	ST_EXPLAIN_CLAIM,
	ST_CLAIM_TAG,                        /* the two claims of one tag (--tag) */
	ST_CLAIM_SITE_TAG,
	/* db_store.c */
	ST_FIND_ORIGIN,
	ST_ROBOTS_GET,
	ST_ROBOTS_PUT,
	ST_DOC_PUT,                          /* 16 statements: urlwords00..15 */
	ST_DOC_DEL = ST_DOC_PUT + DB_DOC_TABLES, /* 16 statements */
	/* DOC_PUT_ROWS_N statements per table: DOC_PUT_ROWS[j] rows at once */
	ST_DOC_PUTK = ST_DOC_DEL + DB_DOC_TABLES,
	ST_N = ST_DOC_PUTK + DB_DOC_TABLES * DOC_PUT_ROWS_N
};

/* The texts of the statements before ST_DOC_PUT (static storage). */
extern const char st_sql_site_add[], st_sql_url_add[];                  /* db_links.c */
extern const char st_sql_claim[], st_sql_claim_site[], st_sql_take_site[],
	st_sql_release_urls[], st_sql_release_sites[], st_sql_release_site[],
	st_sql_explain_claim[], st_sql_claim_tag[], st_sql_claim_site_tag[]; /* db_claim.c */
extern const char st_sql_find_origin[], st_sql_robots_get[], st_sql_robots_put[];
/* The text of a urlwordsNN statement, id >= ST_DOC_PUT (db_store.c; static
 * storage, written on first use). */
const char *st_doc_text(enum st id);

/* One outage of the server as the connections sharing it saw it.  Read by
 * other threads (the crawl loop watches its store thread's connection). */
struct db_outage {
	_Atomic double since;   /* monotonic time the server was lost, 0 = up */
	atomic_bool gave_up;    /* past the grace (or db_give_up()): one try per call */
};

struct db {
	MYSQL *my;
	MYSQL_STMT *st[ST_N];
	/* where to connect (owned copies) */
	char *host, *user, *pass, *socket, *name;
	unsigned port;
	char *where;        /* "/path/to/sock" or "host:port", for messages */
	const char *hint;   /* what to try when the server does not answer */
	double wait;        /* seconds to keep trying to (re)connect */
	/* DBGrace (db_set_grace()): a lost server is waited for this long in
	 * all, counted from out->since, not per statement; 0 = `wait` per
	 * reconnect.  `out` is `own`, or another connection's after
	 * db_share_outage(). */
	double grace;
	struct db_outage own, *out;
	bool create_db;     /* CREATE DATABASE name when it does not exist */
	bool quiet;         /* connection failures are not logged */
	bool opening;       /* in db_open(): a refusing DBAddr is final */
	bool embedded;      /* the embedded server's socket: refusals are transient */
	bool writer_lock;   /* holds the writer lock: take it again on reconnect */
	bool broken;        /* connection lost: reconnect before the next statement */
	bool in_txn;
	/* A multi-row INSERT's new rows get consecutive ids in the order of
	 * its rows (innodb_autoinc_lock_mode 0 or 1, auto_increment_increment
	 * 1): read at each connect. */
	bool autoinc_consecutive;
	long tag;           /* db_select_tag(): the work queue's URLs of this tag, -1 = all */
	unsigned last_errno;
	char last_error[512];
};

/* --- running statements (db.c) ------------------------------------------- */

/* Record error e (message msg) as the connection's last error. */
void set_last_error(struct db *db, unsigned e, const char *msg);
/* Whether error e means the connection is gone. */
bool err_connection_lost(unsigned e);
/* The connection must be usable before a statement: reconnects, or inside
 * a transaction returns DB_AGAIN ("run the transaction again"). */
int ensure_connected(struct db *db);
/* Run a statement without parameters.  With res != NULL the result set is
 * stored and handed over (free with mysql_free_result()).  Returns 0, -1
 * (logged) or DB_AGAIN. */
int sql_run(struct db *db, const char *sql, MYSQL_RES **res);
/* Execute prepared statement id (prepared on first use and after a
 * reconnect) with parameters `par` (NULL if none).  With `res`, the rows are
 * stored client-side and `res` is bound: fetch with mysql_stmt_fetch() and
 * call mysql_stmt_free_result() after.  Returns 0, -1 (logged) or DB_AGAIN. */
int st_exec(struct db *db, enum st id, MYSQL_BIND *par, MYSQL_BIND *res);
/* Run body(db, arg) as one transaction, again from the start when it is
 * rolled back by a deadlock or a lost connection.  body must be re-runnable:
 * it is called afresh on each attempt.  Returns body's 0 or -1. */
int in_transaction(struct db *db, const char *what, int (*body)(struct db *, void *),
		   void *arg);
/* First row of a query without parameters into vals[0..n-1] (NULL = 0).
 * *found tells whether there was a row.  Returns 0, -1 or DB_AGAIN. */
int sql_row(struct db *db, const char *sql, long long *vals, int n, bool *found);
/* Append 'escaped s' to b (the connection's charset rules; the connection
 * must be up).  Returns 0 or -1 (b at its cap). */
int add_quoted(struct db *db, struct buf *b, const char *s, size_t len);

/* --- binding parameters and results -------------------------------------- */

static inline void bind_int(MYSQL_BIND *b, int *v)
{
	memset(b, 0, sizeof(*b));
	b->buffer_type = MYSQL_TYPE_LONG;
	b->buffer = v;
}

static inline void bind_uint(MYSQL_BIND *b, unsigned *v)
{
	bind_int(b, (int *)v);
	b->is_unsigned = 1;
}

static inline void bind_str(MYSQL_BIND *b, const char *s, unsigned long *len)
{
	memset(b, 0, sizeof(*b));
	*len = (unsigned long)strlen(s);
	b->buffer_type = MYSQL_TYPE_STRING;
	b->buffer = (char *)s;
	b->buffer_length = *len;
	b->length = len;
}

static inline void bind_blob(MYSQL_BIND *b, const void *p, unsigned long *len, size_t n)
{
	memset(b, 0, sizeof(*b));
	*len = (unsigned long)n;
	b->buffer_type = MYSQL_TYPE_BLOB;
	b->buffer = (void *)p;
	b->buffer_length = *len;
	b->length = len;
}

/* A result column read as a string into buf[size]: NUL-terminated, cut if
 * longer (the column widths of schema.sql make that impossible). */
struct outstr {
	unsigned long len;
	my_bool is_null;
	my_bool trunc;
};

static inline void bind_outstr(MYSQL_BIND *b, char *buf, size_t size, struct outstr *o)
{
	memset(b, 0, sizeof(*b));
	b->buffer_type = MYSQL_TYPE_STRING;
	b->buffer = buf;
	b->buffer_length = size - 1;
	b->length = &o->len;
	b->is_null = &o->is_null;
	b->error = &o->trunc;
}

static inline void finish_outstr(char *buf, size_t size, const struct outstr *o)
{
	size_t n = o->is_null ? 0 : o->len;
	buf[n < size - 1 ? n : size - 1] = '\0';
}

/* A numeric column of a text-protocol row (NULL = 0). */
static inline long long num(const char *s)
{
	return s ? strtoll(s, NULL, 10) : 0;
}

#endif
