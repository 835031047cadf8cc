/* db.c - the only file with SQL (include/db.h): connecting with back-off,
 * reconnecting and retrying, prepared statements, the schema check, seeding
 * the Server URLs, `-S` statistics and the claim queue of the cluster crawl.
 *
 * It knows nothing of MPI, HTTP or files: callers pass ranks and URLs.
 * Statements use placeholders or carry no outside data at all.  Errors are
 * sorted the way InnoDB and the client library report them (field-notes §4):
 *   2006/2013 (and kin) the connection is gone: reconnect with back-off and
 *       retry the statement, or the whole transaction when inside one;
 *   1213 deadlock: InnoDB rolled the transaction back: retry all of it;
 *   1205 lock wait timeout: only the statement was rolled back: retry it.
 * Sessions run READ COMMITTED, so rows a locking read looked at but did not
 * keep are unlocked at once and inserts take no gap locks.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <mysql.h>
#include <mysqld_error.h>
#include <pthread.h>
#include <errmsg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "caps.h"
#include "conf.h"
#include "db.h"
#include "dbserver.h"
#include "fetch.h"
#include "log.h"
#include "url.h"
#include "util.h"

extern const char schema_sql[]; /* src/schema_sql.c, generated from sql/schema.sql */

#define DB_AGAIN        (-2)    /* the transaction must be run again */
#define DB_MAX_RETRIES  8       /* per statement or transaction */
#define DB_MAX_BACKOFF  2.0     /* seconds between two attempts, at most */
#define DB_MAX_SQL      65536   /* one statement of schema.sql */

/* Every connection gets the same rules, whatever the server's defaults:
 * strict (an over-long value is an error, never silently cut), no engine
 * substitution (a table that cannot be InnoDB is an error). */
#define SESSION_SQL_MODE "SET SESSION sql_mode = 'STRICT_ALL_TABLES,ERROR_FOR_DIVISION_BY_ZERO," \
	"NO_ZERO_DATE,NO_ZERO_IN_DATE,NO_ENGINE_SUBSTITUTION'"
#define SESSION_ISOLATION "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"

/* The claim SELECT.  tests/integration/db.sh runs EXPLAIN on the very same
 * text: it feeds the lines from BEGIN to END through the C preprocessor, so
 * keep them free of other macros.  STRAIGHT_JOIN and FORCE INDEX pin the
 * plan: urlword is read through `claim` in ORDER BY order (a filesort would
 * lock every row it reads, field-notes §4, and on a small table the
 * optimiser prefers one), and each row's site is looked up by primary key.
 * Parameters: now, rank, now, limit. */
/* BEGIN CLAIM SELECT */
/* The columns a claim hands to the fetcher (struct db_url, in this order). */
#define CLAIM_COLUMNS "u.url_id, u.site_id, u.status, u.hops, u.origin, u.tag, u.referrer," \
	" u.last_index_time, u.url, u.crc, u.last_modified, u.etag"
#define CLAIM_SELECT \
	"SELECT STRAIGHT_JOIN " CLAIM_COLUMNS \
	" FROM urlword u FORCE INDEX (claim)" \
	" JOIN sites s ON s.site_id = u.site_id" \
	" WHERE u.deleted = 0 AND u.next_index_time <= ?" \
	" AND (s.claim_rank = -1 OR s.claim_rank = ? OR s.lease_until <= ?)" \
	" ORDER BY u.next_index_time, u.url_id LIMIT ?" \
	" FOR UPDATE SKIP LOCKED"
/* END CLAIM SELECT */

/* The site-affine claim: the same through `site_claim` for one site.
 * Parameters: site_id, now, rank, now, limit. */
#define CLAIM_SITE_SELECT \
	"SELECT STRAIGHT_JOIN " CLAIM_COLUMNS \
	" FROM urlword u FORCE INDEX (site_claim)" \
	" JOIN sites s ON s.site_id = u.site_id" \
	" WHERE u.site_id = ? AND u.deleted = 0 AND u.next_index_time <= ?" \
	" AND (s.claim_rank = -1 OR s.claim_rank = ? OR s.lease_until <= ?)" \
	" ORDER BY u.next_index_time, u.url_id LIMIT ?" \
	" FOR UPDATE SKIP LOCKED"

enum st {
	ST_SITE_ADD,
	ST_URL_ADD,
	ST_CLAIM,
	ST_CLAIM_SITE,
	ST_TAKE_SITE,
	ST_RELEASE_URLS,
	ST_RELEASE_SITES,
	ST_RELEASE_SITE,
	ST_EXPLAIN_CLAIM,
	ST_FIND_ORIGIN,
	ST_ROBOTS_GET,
	ST_ROBOTS_PUT,
	ST_DOC_PUT,                          /* 16 statements: urlwords00..15 */
	ST_DOC_DEL = ST_DOC_PUT + DB_DOC_TABLES, /* 16 statements */
	/* DOC_PUT_ROWS_N statements per table: DOC_PUT_ROWS[j] rows at once */
	ST_DOC_PUTK = ST_DOC_DEL + DB_DOC_TABLES,
	ST_N = ST_DOC_PUTK + DB_DOC_TABLES * 4
};

/* The row counts of the multi-row document INSERTs (a batch's documents of
 * one table go in chunks of these, the rest one by one). */
static const int DOC_PUT_ROWS[] = { 16, 8, 4, 2 };
#define DOC_PUT_ROWS_N 4
_Static_assert(sizeof(DOC_PUT_ROWS) / sizeof(DOC_PUT_ROWS[0]) == DOC_PUT_ROWS_N,
	       "ST_N counts DOC_PUT_ROWS_N statements per table");

static const char *const st_sql[ST_N] = {
	/* LAST_INSERT_ID(site_id) makes the id of an existing site the insert
	 * id, so one statement returns the site_id either way. */
	[ST_SITE_ADD] = "INSERT INTO sites (site) VALUES (?)"
		" ON DUPLICATE KEY UPDATE site_id = LAST_INSERT_ID(site_id)",
	/* An existing URL is left alone: affected rows 1 = new, 0 = known. */
	[ST_URL_ADD] = "INSERT INTO urlword (site_id, url, hops, next_index_time, index_status)"
		" VALUES (?, ?, 0, 0, 0) ON DUPLICATE KEY UPDATE url_id = url_id",
	[ST_CLAIM] = CLAIM_SELECT,
	[ST_CLAIM_SITE] = CLAIM_SITE_SELECT,
	[ST_TAKE_SITE] = "UPDATE sites SET claim_rank = ?, lease_until = ? WHERE site_id = ?",
	[ST_RELEASE_URLS] = "UPDATE urlword SET index_status = IF(last_index_time = 0, 0, 1),"
		" claim_rank = -1, lease_until = 0, next_index_time = ?"
		" WHERE index_status = 2 AND claim_rank = ?",
	[ST_RELEASE_SITES] = "UPDATE sites SET claim_rank = -1, lease_until = 0"
		" WHERE claim_rank = ?",
	[ST_RELEASE_SITE] = "UPDATE sites SET claim_rank = -1, lease_until = 0"
		" WHERE site_id = ? AND claim_rank = ?",
	[ST_EXPLAIN_CLAIM] = "EXPLAIN " CLAIM_SELECT,
	/* ASPseek §7.7: a live origin of the same site with the same MD5. */
	[ST_FIND_ORIGIN] = "SELECT url_id FROM urlword FORCE INDEX (clones)"
		" WHERE origin = 1 AND site_id = ? AND crc = ? AND status = 200 AND deleted = 0"
		" AND url_id <> ? ORDER BY url_id LIMIT 1",
	[ST_ROBOTS_GET] = "SELECT expires, status, body FROM robots WHERE site_id = ?",
	[ST_ROBOTS_PUT] = "INSERT INTO robots (site_id, fetched, expires, status, body)"
		" VALUES (?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE fetched = VALUES(fetched),"
		" expires = VALUES(expires), status = VALUES(status), body = VALUES(body)",
	/* ST_DOC_PUT.. and the rest are written by doc_sql_init() below. */
};

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

/* The text of statement id: the table above, or a statement of urlwordsNN. */
static const char *st_text(enum st id)
{
	if (id < ST_DOC_PUT)
		return st_sql[id];
	pthread_once(&doc_sql_once, doc_sql_init);
	return doc_sql[id - ST_DOC_PUT];
}

struct db {
	MYSQL *my;
	MYSQL_STMT *st[ST_N];
	/* where to connect (owned copies) */
	char *host, *user, *pass, *socket, *name;
	unsigned port;
	char *where;        /* "/path/to/sock" or "host:port", for messages */
	const char *hint;   /* what to try when the server does not answer */
	double wait;        /* seconds to keep trying to (re)connect */
	bool create_db;     /* CREATE DATABASE name when it does not exist */
	bool quiet;         /* connection failures are not logged */
	bool broken;        /* connection lost: reconnect before the next statement */
	bool in_txn;
	/* A multi-row INSERT's new rows get consecutive ids in the order of
	 * its rows (innodb_autoinc_lock_mode 0 or 1, auto_increment_increment
	 * 1): read at each connect. */
	bool autoinc_consecutive;
	unsigned last_errno;
	char last_error[512];
};

/* --- the client library --------------------------------------------------- */

/* Threads (searchd, bench/search-load) open and close connections at the
 * same time: the count of users is guarded. */
static int lib_users;
static pthread_mutex_t lib_mu = PTHREAD_MUTEX_INITIALIZER;

static int lib_acquire(void)
{
	int rc = 0;

	pthread_mutex_lock(&lib_mu);
	if (lib_users == 0 && mysql_library_init(0, NULL, NULL))
		rc = -1;
	else
		lib_users++;
	pthread_mutex_unlock(&lib_mu);
	return rc ? error("cannot initialise the MySQL client library") : 0;
}

/* The last user ends the library, so leak checkers see its memory freed. */
static void lib_release(void)
{
	pthread_mutex_lock(&lib_mu);
	if (lib_users > 0 && --lib_users == 0)
		mysql_library_end();
	pthread_mutex_unlock(&lib_mu);
}

static void sleep_seconds(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* 0.05 s, doubling, at most DB_MAX_BACKOFF. */
static double backoff(int attempt)
{
	double d = 0.05;

	while (attempt-- > 0 && d < DB_MAX_BACKOFF)
		d *= 2;
	return d < DB_MAX_BACKOFF ? d : DB_MAX_BACKOFF;
}

static bool err_connection_lost(unsigned e)
{
	return e == CR_SERVER_GONE_ERROR || e == CR_SERVER_LOST || e == ER_CONNECTION_KILLED ||
	       e == CR_SERVER_LOST_EXTENDED || e == ER_SERVER_SHUTDOWN;
}

/* Errors after which waiting may help: no server yet, a server starting or
 * restarting, too many connections for a moment. */
static bool err_transient_connect(unsigned e)
{
	return e == CR_CONNECTION_ERROR || e == CR_CONN_HOST_ERROR || err_connection_lost(e) ||
	       e == ER_CON_COUNT_ERROR || e == ER_TOO_MANY_USER_CONNECTIONS;
}

static void set_last_error(struct db *db, unsigned e, const char *msg)
{
	db->last_errno = e;
	snprintf(db->last_error, sizeof(db->last_error), "%s", msg && *msg ? msg : "unknown error");
}

/* --- connecting ------------------------------------------------------------ */

static void close_statements(struct db *db)
{
	for (int i = 0; i < ST_N; i++) {
		if (db->st[i])
			mysql_stmt_close(db->st[i]);
		db->st[i] = NULL;
	}
}

static void disconnect(struct db *db)
{
	close_statements(db);
	if (db->my)
		mysql_close(db->my);
	db->my = NULL;
}

/* Backticks around a database name, with backticks inside doubled. */
static int quote_name(struct buf *b, const char *name)
{
	if (!*name || strlen(name) > 64)
		return error("bad database name '%s' (1 to 64 characters)", name);
	if (buf_addc(b, '`'))
		return -1;
	for (const char *p = name; *p; p++)
		if ((*p == '`' && buf_addc(b, '`')) || buf_addc(b, *p))
			return -1;
	return buf_addc(b, '`');
}

static int session_setup(struct db *db)
{
	static const char *const setup[] = { SESSION_SQL_MODE, SESSION_ISOLATION };
	static const char autoinc[] =
		"SELECT @@innodb_autoinc_lock_mode <= 1 AND @@auto_increment_increment = 1";
	MYSQL_RES *res;
	MYSQL_ROW row;

	for (size_t i = 0; i < ARRAY_SIZE(setup); i++)
		if (mysql_real_query(db->my, setup[i], strlen(setup[i]))) {
			set_last_error(db, mysql_errno(db->my), mysql_error(db->my));
			return -1;
		}
	db->autoinc_consecutive = false;
	if (mysql_real_query(db->my, autoinc, sizeof(autoinc) - 1) ||
	    !(res = mysql_store_result(db->my))) {
		set_last_error(db, mysql_errno(db->my), mysql_error(db->my));
		return -1;
	}
	row = mysql_fetch_row(res);
	db->autoinc_consecutive = row && row[0] && !strcmp(row[0], "1");
	mysql_free_result(res);
	return 0;
}

/* One attempt.  0, or -1 with last_errno/last_error set. */
static int connect_once(struct db *db)
{
	unsigned timeout = 10, rw_timeout = 600;
	my_bool off = 0;
	struct buf q = BUF_INIT(256);
	int rc = -1;

	disconnect(db);
	db->my = mysql_init(NULL);
	if (!db->my) {
		set_last_error(db, CR_OUT_OF_MEMORY, "out of memory");
		return -1;
	}
	mysql_optionsv(db->my, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
	/* Longer than any lock wait (innodb_lock_wait_timeout, 50 s), so that
	 * only a server that is really gone times out. */
	mysql_optionsv(db->my, MYSQL_OPT_READ_TIMEOUT, &rw_timeout);
	mysql_optionsv(db->my, MYSQL_OPT_WRITE_TIMEOUT, &rw_timeout);
	/* We reconnect ourselves: the library's silent reconnect would lose
	 * the session settings and the prepared statements. */
	mysql_optionsv(db->my, MYSQL_OPT_RECONNECT, &off);
	mysql_optionsv(db->my, MYSQL_SET_CHARSET_NAME, "utf8mb4");

	if (!mysql_real_connect(db->my, db->host, db->user, db->pass, db->name, db->port,
				db->socket, 0)) {
		if (mysql_errno(db->my) != ER_BAD_DB_ERROR || !db->create_db || !db->name)
			goto fail;
		/* The database does not exist yet: create it (SPEC §6: a fresh
		 * server is enough). */
		if (!mysql_real_connect(db->my, db->host, db->user, db->pass, NULL, db->port,
					db->socket, 0))
			goto fail;
		if (buf_adds(&q, "CREATE DATABASE IF NOT EXISTS ") || quote_name(&q, db->name) ||
		    buf_adds(&q, " CHARACTER SET utf8mb4")) {
			set_last_error(db, 0, "bad database name");
			goto out;
		}
		if (mysql_real_query(db->my, q.ptr, q.len) || mysql_select_db(db->my, db->name))
			goto fail;
		info("created database %s on %s", db->name, db->where);
	}
	if (session_setup(db))
		goto out;
	db->broken = false;
	rc = 0;
	goto out;
fail:
	set_last_error(db, mysql_errno(db->my), mysql_error(db->my));
out:
	buf_free(&q);
	if (rc)
		disconnect(db);
	return rc;
}

/* Try until db->wait seconds have passed, backing off; errors that waiting
 * cannot cure (access denied, unknown database) fail at once. */
static int connect_retry(struct db *db)
{
	double deadline = now_monotonic() + db->wait;

	for (int attempt = 0;; attempt++) {
		if (!connect_once(db)) {
			if (attempt)
				debug("connected to MySQL at %s after %d attempts", db->where,
				      attempt + 1);
			return 0;
		}
		double d = backoff(attempt);
		if (!err_transient_connect(db->last_errno) || now_monotonic() + d > deadline)
			break;
		debug("MySQL at %s: %s; retrying", db->where, db->last_error);
		sleep_seconds(d);
	}
	if (db->quiet)
		return -1;
	if (db->hint)
		return error("cannot connect to MySQL at %s: %s (%s)", db->where, db->last_error,
			     db->hint);
	return error("cannot connect to MySQL at %s: %s", db->where, db->last_error);
}

static int reconnect(struct db *db)
{
	warning("lost the connection to MySQL at %s (%s): reconnecting", db->where,
		db->last_error);
	return connect_retry(db);
}

static void db_free(struct db *db)
{
	if (!db)
		return;
	disconnect(db);
	free(db->host);
	free(db->user);
	free(db->pass);
	free(db->socket);
	free(db->name);
	free(db->where);
	free(db);
}

/* A handle for the embedded server's socket, as root, no password. */
static struct db *db_new_socket(const char *socket_path, const char *name)
{
	struct db *db = xcalloc(1, sizeof(*db));

	db->host = xstrdup("localhost");
	db->user = xstrdup("root");
	db->socket = xstrdup(socket_path);
	db->name = xstrdup_or_null(name);
	db->where = xstrdup(socket_path);
	return db;
}

int db_open(const struct conf *c, double wait_seconds, struct db **out)
{
	struct db *db;
	char *sock = NULL;

	*out = NULL;
	if (lib_acquire())
		return -1;
	if (c->db.set) {
		db = xcalloc(1, sizeof(*db));
		db->host = xstrdup_or_null(c->db.host);
		db->user = xstrdup_or_null(c->db.user);
		db->pass = xstrdup_or_null(c->db.pass);
		db->socket = xstrdup_or_null(c->db.socket);
		db->name = xstrdup(c->db.name);
		db->port = c->db.port > 0 ? (unsigned)c->db.port : 0;
		if (db->socket)
			db->where = xstrdup(db->socket);
		else if (!db->host || !ascii_casecmp(db->host, "localhost"))
			db->where = xstrdup("localhost (the default socket)");
		else
			db->where = xasprintf("%s:%u", db->host, db->port ? db->port : 3306);
		db->hint = "is the server running, and is DBAddr right?";
	} else {
		sock = dbserver_socket_path(c->data_dir);
		db = db_new_socket(sock, "mpseek");
		db->hint = "is the server running? start it with mpseek-index --db-start";
	}
	free(sock);
	db->wait = wait_seconds;
	db->create_db = true;
	if (connect_retry(db)) {
		db_free(db);
		lib_release();
		return -1;
	}
	*out = db;
	return 0;
}

void db_close(struct db *db)
{
	if (!db)
		return;
	db_free(db);
	lib_release();
}

/* --- running statements ---------------------------------------------------- */

enum verdict { V_FAIL, V_RETRY, V_AGAIN };

/* What to do after error e (message msg) on attempt `attempt` of `what`. */
static enum verdict judge(struct db *db, unsigned e, const char *msg, int attempt,
			  const char *what)
{
	set_last_error(db, e, msg);
	if (err_connection_lost(e)) {
		db->broken = true;
		if (db->in_txn)
			return V_AGAIN;
	} else if (e == ER_LOCK_DEADLOCK) {
		/* InnoDB rolled the whole transaction back. */
		if (db->in_txn)
			return V_AGAIN;
	} else if (e == ER_LOCK_WAIT_TIMEOUT) {
		/* Only this statement was rolled back: run it again. */
	} else if (e == ER_NEED_REPREPARE) {
		/* A table changed under a prepared statement: prepare again. */
	} else {
		error("%s: MySQL error %u: %s", what, e, msg);
		return V_FAIL;
	}
	if (attempt + 1 >= DB_MAX_RETRIES) {
		error("%s: giving up after %d attempts: MySQL error %u: %s", what, attempt + 1,
		      e, msg);
		return V_FAIL;
	}
	debug("%s: MySQL error %u (%s): retrying", what, e, msg);
	sleep_seconds(backoff(attempt));
	return V_RETRY;
}

/* The connection must be usable before a statement: inside a transaction a
 * lost connection means "run the transaction again". */
static int ensure_connected(struct db *db)
{
	if (!db->broken && db->my)
		return 0;
	if (db->in_txn)
		return DB_AGAIN;
	return reconnect(db);
}

/* Run a statement without parameters.  With res != NULL the result set is
 * stored and handed over (free with mysql_free_result()).  Returns 0, -1
 * (logged) or DB_AGAIN. */
static int sql_run(struct db *db, const char *sql, MYSQL_RES **res)
{
	int rc;

	if (res)
		*res = NULL;
	for (int attempt = 0;; attempt++) {
		rc = ensure_connected(db);
		if (rc)
			return rc;
		if (!mysql_real_query(db->my, sql, strlen(sql))) {
			if (!res)
				return 0;
			*res = mysql_store_result(db->my);
			if (*res || !mysql_errno(db->my))
				return 0;
		}
		switch (judge(db, mysql_errno(db->my), mysql_error(db->my), attempt, sql)) {
		case V_RETRY: continue;
		case V_AGAIN: return DB_AGAIN;
		default: return -1;
		}
	}
}

/* Execute prepared statement id (prepared on first use and after a
 * reconnect) with parameters `par` (NULL if none).  With `res`, the rows are
 * stored client-side and `res` is bound: fetch with mysql_stmt_fetch() and
 * call mysql_stmt_free_result() after.  Returns 0, -1 (logged) or DB_AGAIN. */
static int st_exec(struct db *db, enum st id, MYSQL_BIND *par, MYSQL_BIND *res)
{
	MYSQL_STMT *st;
	unsigned e;
	const char *msg;
	int rc;

	for (int attempt = 0;; attempt++) {
		rc = ensure_connected(db);
		if (rc)
			return rc;
		st = db->st[id];
		if (!st) {
			st = mysql_stmt_init(db->my);
			if (!st)
				return error("out of memory preparing a statement");
			if (mysql_stmt_prepare(st, st_text(id), strlen(st_text(id))))
				goto failed;
			db->st[id] = st;
		}
		if (par && mysql_stmt_bind_param(st, par))
			goto failed;
		if (mysql_stmt_execute(st))
			goto failed;
		if (!res)
			return 0;
		if (mysql_stmt_bind_result(st, res) || mysql_stmt_store_result(st))
			goto failed;
		return 0;
failed:
		e = mysql_stmt_errno(st);
		msg = mysql_stmt_error(st);
		if (!e) {
			e = mysql_errno(db->my);
			msg = mysql_error(db->my);
		}
		set_last_error(db, e, msg);
		/* Start afresh: the statement may be unusable now. */
		if (db->st[id] == st)
			db->st[id] = NULL;
		mysql_stmt_close(st);
		switch (judge(db, db->last_errno, db->last_error, attempt, st_text(id))) {
		case V_RETRY: continue;
		case V_AGAIN: return DB_AGAIN;
		default: return -1;
		}
	}
}

/* Run body(db, arg) as one transaction, again from the start when it is
 * rolled back by a deadlock or a lost connection.  body must be re-runnable:
 * it is called afresh on each attempt.  Returns body's 0 or -1. */
static int in_transaction(struct db *db, const char *what, int (*body)(struct db *, void *),
			  void *arg)
{
	int rc;

	for (int attempt = 0;; attempt++) {
		if (db->broken && reconnect(db))
			return -1;
		db->in_txn = true;
		rc = sql_run(db, "START TRANSACTION", NULL);
		if (!rc)
			rc = body(db, arg);
		if (!rc)
			rc = sql_run(db, "COMMIT", NULL);
		if (rc && !db->broken && db->my)
			mysql_real_query(db->my, "ROLLBACK", 8); /* best effort */
		db->in_txn = false;
		if (rc != DB_AGAIN)
			return rc;
		if (attempt + 1 >= DB_MAX_RETRIES)
			return error("%s: giving up after %d attempts: %s", what, attempt + 1,
				     db->last_error);
		debug("%s: transaction rolled back (%s): retrying", what, db->last_error);
		sleep_seconds(backoff(attempt));
	}
}

static void bind_int(MYSQL_BIND *b, int *v)
{
	memset(b, 0, sizeof(*b));
	b->buffer_type = MYSQL_TYPE_LONG;
	b->buffer = v;
}

static void bind_uint(MYSQL_BIND *b, unsigned *v)
{
	bind_int(b, (int *)v);
	b->is_unsigned = 1;
}

static void bind_str(MYSQL_BIND *b, const char *s, unsigned long *len)
{
	memset(b, 0, sizeof(*b));
	*len = (unsigned long)strlen(s);
	b->buffer_type = MYSQL_TYPE_STRING;
	b->buffer = (char *)s;
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

static void bind_outstr(MYSQL_BIND *b, char *buf, size_t size, struct outstr *o)
{
	memset(b, 0, sizeof(*b));
	b->buffer_type = MYSQL_TYPE_STRING;
	b->buffer = buf;
	b->buffer_length = size - 1;
	b->length = &o->len;
	b->is_null = &o->is_null;
	b->error = &o->trunc;
}

static void finish_outstr(char *buf, size_t size, const struct outstr *o)
{
	size_t n = o->is_null ? 0 : o->len;
	buf[n < size - 1 ? n : size - 1] = '\0';
}

/* First row of a query without parameters into vals[0..n-1] (NULL = 0).
 * *found tells whether there was a row.  Returns 0, -1 or DB_AGAIN. */
static int sql_row(struct db *db, const char *sql, long long *vals, int n, bool *found)
{
	MYSQL_RES *res;
	MYSQL_ROW row;
	int rc;

	*found = false;
	for (int i = 0; i < n; i++)
		vals[i] = 0;
	rc = sql_run(db, sql, &res);
	if (rc)
		return rc;
	row = res ? mysql_fetch_row(res) : NULL;
	if (row) {
		*found = true;
		for (int i = 0; i < n && i < (int)mysql_num_fields(res); i++)
			vals[i] = row[i] ? strtoll(row[i], NULL, 10) : 0;
	}
	mysql_free_result(res);
	return 0;
}

/* --- the schema ------------------------------------------------------------ */

/* Calls fn for each statement of schema.sql: comment lines ("--") dropped,
 * a statement ends at a line ending in ';'.  Stops at the first failure. */
static int schema_each(int (*fn)(void *arg, const char *stmt), void *arg)
{
	struct buf st = BUF_INIT(DB_MAX_SQL);
	const char *p = schema_sql, *eol;
	int rc = 0;

	while (*p && !rc) {
		size_t len, k;

		eol = strchr(p, '\n');
		len = eol ? (size_t)(eol - p) : strlen(p);
		k = 0;
		while (k < len && (p[k] == ' ' || p[k] == '\t'))
			k++;
		if (!(len - k >= 2 && p[k] == '-' && p[k + 1] == '-')) {
			size_t end = len;
			while (end > 0 && strchr(" \t\r", p[end - 1]))
				end--;
			if (buf_add(&st, p, len) || buf_addc(&st, '\n')) {
				rc = error("sql/schema.sql: a statement longer than %d bytes",
					   DB_MAX_SQL);
				break;
			}
			if (end > 0 && p[end - 1] == ';') {
				/* Send it without the ';' and the newline. */
				buf_truncate(&st, st.len - 1 - (len - end) - 1);
				rc = fn(arg, buf_str(&st));
				buf_reset(&st);
			}
		}
		p += len + (eol ? 1 : 0);
	}
	buf_free(&st);
	return rc;
}

struct table_list {
	char names[64][65];
	int n;
};

/* The name after "CREATE TABLE IF NOT EXISTS" in a statement. */
static int collect_table(void *arg, const char *stmt)
{
	static const char lead[] = "CREATE TABLE IF NOT EXISTS ";
	struct table_list *t = arg;
	const char *p = stmt;
	size_t n = 0;

	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (ascii_ncasecmp(p, lead, sizeof(lead) - 1))
		return 0;
	p += sizeof(lead) - 1;
	while (p[n] && p[n] != ' ' && p[n] != '(' && p[n] != '\n' && n < 64)
		n++;
	if (t->n >= (int)ARRAY_SIZE(t->names))
		return error("sql/schema.sql: more than %zu tables", ARRAY_SIZE(t->names));
	memcpy(t->names[t->n], p, n);
	t->names[t->n++][n] = '\0';
	return 0;
}

struct apply_ctx {
	struct db *db;
};

static int apply_statement(void *arg, const char *stmt)
{
	struct apply_ctx *a = arg;
	int rc = sql_run(a->db, stmt, NULL);

	if (rc)
		return error("creating the schema in database %s failed (statement: %.80s...)",
			     a->db->name, stmt);
	return 0;
}

struct schema_state {
	long long n_tables;      /* tables in the database */
	bool has_meta;           /* mpseek_meta exists */
	bool has_version;        /* ... with a schema_version row */
	long version;
	const char *missing;     /* first table of schema.sql that is not there */
};

static int inspect(struct db *db, const struct table_list *want, struct schema_state *s)
{
	long long v[2];
	bool found;
	MYSQL_RES *res = NULL;
	MYSQL_ROW row;
	char have[ARRAY_SIZE(want->names)];
	int rc;

	memset(s, 0, sizeof(*s));
	rc = sql_row(db, "SELECT COUNT(*), SUM(table_name = 'mpseek_meta')"
		     " FROM information_schema.tables WHERE table_schema = DATABASE()",
		     v, 2, &found);
	if (rc)
		return -1;
	s->n_tables = v[0];
	s->has_meta = v[1] > 0;
	if (s->has_meta) {
		if (sql_run(db, "SELECT value FROM mpseek_meta WHERE name = 'schema_version'",
			    &res))
			return -1;
		row = res ? mysql_fetch_row(res) : NULL;
		if (row && row[0]) {
			s->has_version = true;
			if (parse_long(row[0], 0, 1000000, &s->version))
				s->version = -1;
		}
		mysql_free_result(res);
		res = NULL;
	}
	memset(have, 0, sizeof(have));
	if (sql_run(db, "SELECT table_name FROM information_schema.tables"
		    " WHERE table_schema = DATABASE()", &res))
		return -1;
	while (res && (row = mysql_fetch_row(res)))
		for (int i = 0; i < want->n; i++)
			if (row[0] && !strcmp(row[0], want->names[i]))
				have[i] = 1;
	mysql_free_result(res);
	for (int i = 0; i < want->n; i++)
		if (!have[i]) {
			s->missing = want->names[i];
			break;
		}
	return 0;
}

static int schema_lock(struct db *db, bool take)
{
	long long v;
	bool found;

	if (!take)
		return sql_row(db, "DO RELEASE_LOCK(CONCAT('mpseek_schema.', DATABASE()))", &v, 0,
			       &found) ? -1 : 0;
	if (sql_row(db, "SELECT GET_LOCK(CONCAT('mpseek_schema.', DATABASE()), 120)", &v, 1,
		    &found))
		return -1;
	if (v != 1)
		return error("database %s: another program has been creating the schema for "
			     "2 minutes", db->name);
	return 0;
}

int db_schema_check(struct db *db, bool create)
{
	struct table_list want;
	struct schema_state s;
	struct apply_ctx a = { db };
	bool locked = false, fresh;
	int rc = -1;

	memset(&want, 0, sizeof(want));
	if (schema_each(collect_table, &want))
		return -1;
	/* Two programs creating the schema at once must not interleave. */
	if (create) {
		if (schema_lock(db, true))
			return -1;
		locked = true;
	}
	if (inspect(db, &want, &s))
		goto out;
	if (s.has_version) {
		if (s.version > DB_SCHEMA_VERSION) {
			error("database %s has schema version %ld, this mpseek needs %d: the "
			      "database was made by a newer mpseek; use that version", db->name,
			      s.version, DB_SCHEMA_VERSION);
			goto out;
		}
		if (s.version != DB_SCHEMA_VERSION) {
			error("database %s has schema version %ld, this mpseek needs %d: run the "
			      "upgrade scripts in sql/ (see sql/README)", db->name, s.version,
			      DB_SCHEMA_VERSION);
			goto out;
		}
		if (!s.missing) {
			rc = 0;
			goto out;
		}
		if (!create) {
			error("database %s lacks table %s: run mpseek-index to complete the schema",
			      db->name, s.missing);
			goto out;
		}
	} else if (s.has_meta) {
		if (!create) {
			error("database %s: the creation of the schema was interrupted: run "
			      "mpseek-index to complete it", db->name);
			goto out;
		}
	} else if (s.n_tables == 0) {
		if (!create) {
			error("database %s has no mpseek tables yet: run mpseek-index to create "
			      "them", db->name);
			goto out;
		}
	} else {
		error("database %s is not an mpseek database: it has %lld tables but no "
		      "mpseek_meta (use an empty database in DBAddr)", db->name, s.n_tables);
		goto out;
	}
	fresh = s.n_tables == 0;
	if (schema_each(apply_statement, &a) || inspect(db, &want, &s))
		goto out;
	if (!s.has_version || s.version != DB_SCHEMA_VERSION || s.missing) {
		error("database %s: sql/schema.sql of this build does not create schema version %d "
		      "(a build error)", db->name, DB_SCHEMA_VERSION);
		goto out;
	}
	info("%s the mpseek schema (version %d) in database %s", fresh ? "created" : "completed",
	     DB_SCHEMA_VERSION, db->name);
	rc = 0;
out:
	if (locked && schema_lock(db, false))
		rc = -1;
	return rc;
}

/* --- seeding --------------------------------------------------------------- */

/* sites row for `site`; its id in *site_id. */
static int add_site(struct db *db, const char *site, unsigned *site_id)
{
	MYSQL_BIND par[1];
	unsigned long len;
	int rc;

	bind_str(&par[0], site, &len);
	rc = st_exec(db, ST_SITE_ADD, par, NULL);
	if (rc)
		return rc;
	*site_id = (unsigned)mysql_stmt_insert_id(db->st[ST_SITE_ADD]);
	if (!*site_id)
		return error("inserting site %s: no site_id", site);
	return 0;
}

/* urlword row for `url` unless known; *added += 1 when it was new. */
static int add_url(struct db *db, unsigned site_id, const char *url, int *added)
{
	MYSQL_BIND par[2];
	unsigned long len;
	int rc;

	bind_uint(&par[0], &site_id);
	bind_str(&par[1], url, &len);
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
};

static int seed_body(struct db *db, void *arg)
{
	struct seed_ctx *s = arg;
	struct buf url = BUF_INIT(MAX_URL_LEN + 1), site = BUF_INIT(MAX_URL_LEN + 1),
		   robots = BUF_INIT(MAX_URL_LEN + 1);
	const char *why = NULL;
	unsigned site_id;
	int rc = 0;

	s->added = 0;
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
		rc = add_site(db, buf_str(&site), &site_id);
		/* robots.txt first: it gets the lower url_id, so a claim (ordered
		 * by next_index_time, url_id) hands it out before the pages. */
		if (!rc && sv->p.robots)
			rc = add_url(db, site_id, buf_str(&robots), &s->added);
		if (!rc)
			rc = add_url(db, site_id, buf_str(&url), &s->added);
	}
	buf_free(&url);
	buf_free(&site);
	buf_free(&robots);
	return rc;
}

int db_seed_servers(struct db *db, const struct conf *c)
{
	struct seed_ctx s = { c, 0 };

	if (in_transaction(db, "inserting the Server URLs", seed_body, &s))
		return -1;
	return s.added;
}

/* --- statistics (index -S) ------------------------------------------------- */

static const char *const index_status_name[] = { "not indexed", "indexed", "being indexed" };

static long long num(const char *s)
{
	return s ? strtoll(s, NULL, 10) : 0;
}

static int stats_by_status(struct db *db, FILE *out)
{
	MYSQL_RES *res;
	MYSQL_ROW row;
	long long exp_sum = 0, tot_sum = 0;

	if (sql_run(db, "SELECT status, SUM(next_index_time <= UNIX_TIMESTAMP()), COUNT(*)"
		    " FROM urlword WHERE deleted = 0 GROUP BY status ORDER BY status", &res))
		return -1;
	fprintf(out, "\n    Status    Expired      Total\n   -----------------------------\n");
	while (res && (row = mysql_fetch_row(res))) {
		long long e = num(row[1]), t = num(row[2]);
		fprintf(out, "%10lld %10lld %10lld %s\n", num(row[0]), e, t,
			http_status_text((int)num(row[0])));
		exp_sum += e;
		tot_sum += t;
	}
	mysql_free_result(res);
	fprintf(out, "   -----------------------------\n%10s %10lld %10lld\n", "Total", exp_sum,
		tot_sum);
	return 0;
}

static int stats_by_index_status(struct db *db, FILE *out)
{
	MYSQL_RES *res;
	MYSQL_ROW row;
	long long t[3] = { 0, 0, 0 }, e[3] = { 0, 0, 0 }, deleted;
	bool found;

	if (sql_run(db, "SELECT index_status, SUM(next_index_time <= UNIX_TIMESTAMP()), COUNT(*)"
		    " FROM urlword WHERE deleted = 0 GROUP BY index_status", &res))
		return -1;
	while (res && (row = mysql_fetch_row(res))) {
		long long k = num(row[0]);
		if (k >= 0 && k < 3) {
			e[k] = num(row[1]);
			t[k] = num(row[2]);
		}
	}
	mysql_free_result(res);
	fprintf(out, "\n%-26s %10s %10s\n   ---------------------------------------------\n",
		"    index_status", "Expired", "Total");
	for (int k = 0; k < 3; k++)
		fprintf(out, "%10d %-15s %10lld %10lld\n", k, index_status_name[k], e[k], t[k]);
	fprintf(out, "   ---------------------------------------------\n");
	if (sql_row(db, "SELECT COUNT(*) FROM urlword WHERE deleted <> 0", &deleted, 1, &found))
		return -1;
	if (deleted)
		fprintf(out, "%10s %-15s %10s %10lld\n", "", "deleted", "", deleted);
	return 0;
}

#define DASHES "---------------------------------------------------------"

static int stats_claims(struct db *db, FILE *out)
{
	MYSQL_RES *res;
	MYSQL_ROW row;
	long long now = (long long)time(NULL);
	int n = 0;

	if (sql_run(db, "SELECT u.claim_rank, COUNT(*), SUM(u.lease_until <= UNIX_TIMESTAMP()),"
		    " MIN(u.lease_until), MAX(u.lease_until),"
		    " (SELECT COUNT(*) FROM sites s WHERE s.claim_rank = u.claim_rank"
		    "  AND s.lease_until > UNIX_TIMESTAMP())"
		    " FROM urlword u WHERE u.index_status = 2"
		    " GROUP BY u.claim_rank ORDER BY u.claim_rank",
		    &res))
		return -1;
	fprintf(out, "\n    Claims (index_status 2)\n      Rank       URLs    Expired      Sites"
		"  Lease ends in (s)\n   %s\n", DASHES);
	while (res && (row = mysql_fetch_row(res))) {
		long long lo = num(row[3]) - now, hi = num(row[4]) - now;
		fprintf(out, "%10lld %10lld %10lld %10lld  ", num(row[0]), num(row[1]), num(row[2]),
			num(row[5]));
		if (lo == hi)
			fprintf(out, "%lld\n", lo);
		else
			fprintf(out, "%lld..%lld\n", lo, hi);
		n++;
	}
	mysql_free_result(res);
	if (!n)
		fprintf(out, "      none\n");
	fprintf(out, "   %s\n", DASHES);
	return 0;
}

int db_print_stats(struct db *db, FILE *out)
{
	long long v[2];
	bool found;

	fprintf(out, "\n          mpseek database statistics (database %s at %s)\n", db->name,
		db->where);
	if (stats_by_status(db, out) || stats_by_index_status(db, out) || stats_claims(db, out))
		return -1;
	if (sql_row(db, "SELECT COUNT(*), SUM(claim_rank >= 0 AND lease_until > UNIX_TIMESTAMP())"
		    " FROM sites", v, 2, &found))
		return -1;
	fprintf(out, "\n    Sites: %lld (%lld leased)\n", v[0], v[1]);
	return fflush(out) ? error_errno("writing the statistics") : 0;
}

/* --- the claim queue ------------------------------------------------------- */

struct claim_ctx {
	int rank, n;
	unsigned site_id;        /* 0 = any site */
	long lease;
	struct db_url *out;
	int got;
};

static int cmp_uint(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return x < y ? -1 : x > y;
}

static int claim_body(struct db *db, void *arg)
{
	struct claim_ctx *c = arg;
	MYSQL_BIND par[5], res[12];
	struct outstr os[4];
	struct db_url row;
	unsigned now = (unsigned)time(NULL), until, lit = 0, *sites = NULL;
	int lim = c->n, rank = c->rank, tag = 0, k = 0, ns = 0, rc, f;
	enum st id = c->site_id ? ST_CLAIM_SITE : ST_CLAIM;

	c->got = 0;
	until = now + (unsigned)c->lease;
	if (c->site_id)
		bind_uint(&par[k++], &c->site_id);
	bind_uint(&par[k++], &now);
	bind_int(&par[k++], &rank);
	bind_uint(&par[k++], &now);
	bind_int(&par[k++], &lim);

	memset(&row, 0, sizeof(row));
	bind_uint(&res[0], &row.url_id);
	bind_uint(&res[1], &row.site_id);
	bind_int(&res[2], &row.status);
	bind_int(&res[3], &row.hops);
	bind_int(&res[4], &row.origin);
	bind_int(&res[5], &tag);
	bind_uint(&res[6], &row.referrer);
	bind_uint(&res[7], &lit);
	bind_outstr(&res[8], row.url, sizeof(row.url), &os[0]);
	bind_outstr(&res[9], row.crc, sizeof(row.crc), &os[1]);
	bind_outstr(&res[10], row.last_modified, sizeof(row.last_modified), &os[2]);
	bind_outstr(&res[11], row.etag, sizeof(row.etag), &os[3]);

	rc = st_exec(db, id, par, res);
	if (rc)
		return rc;
	while (c->got < c->n &&
	       ((f = mysql_stmt_fetch(db->st[id])) == 0 || f == MYSQL_DATA_TRUNCATED)) {
		finish_outstr(row.url, sizeof(row.url), &os[0]);
		finish_outstr(row.crc, sizeof(row.crc), &os[1]);
		finish_outstr(row.last_modified, sizeof(row.last_modified), &os[2]);
		finish_outstr(row.etag, sizeof(row.etag), &os[3]);
		row.tag = tag;
		row.last_index_time = (long)lit;
		c->out[c->got++] = row;
	}
	mysql_stmt_free_result(db->st[id]);

	/* Lease the sites (in ascending order, the order every rank locks in),
	 * then the URLs. */
	sites = xmalloc(sizeof(*sites) * (size_t)(c->got ? c->got : 1));
	for (int i = 0; i < c->got; i++)
		sites[i] = c->out[i].site_id;
	qsort(sites, (size_t)c->got, sizeof(*sites), cmp_uint);
	for (int i = 0; i < c->got; i++)
		if (!ns || sites[ns - 1] != sites[i])
			sites[ns++] = sites[i];
	for (int i = 0; i < ns && !rc; i++) {
		bind_int(&par[0], &rank);
		bind_uint(&par[1], &until);
		bind_uint(&par[2], &sites[i]);
		rc = st_exec(db, ST_TAKE_SITE, par, NULL);
	}
	if (!rc && c->got) {
		/* One statement for the batch (the rows are locked by the
		 * SELECT ... FOR UPDATE above): ids are numbers, no escaping. */
		struct buf sql = BUF_INIT((size_t)c->got * 12 + 256);

		buf_printf(&sql, "UPDATE urlword SET index_status = 2, claim_rank = %d,"
			   " lease_until = %u, next_index_time = %u WHERE url_id IN (",
			   rank, until, until);
		for (int i = 0; i < c->got; i++)
			buf_printf(&sql, "%s%u", i ? "," : "", c->out[i].url_id);
		if (buf_addc(&sql, ')'))
			rc = error("claim: %d URLs do not fit one statement", c->got);
		else
			rc = sql_run(db, buf_str(&sql), NULL);
		buf_free(&sql);
	}
	free(sites);
	return rc;
}

static int claim(struct db *db, int rank, unsigned site_id, int n, long lease_seconds,
		 struct db_url *out)
{
	struct claim_ctx c = { rank, n, site_id, lease_seconds, out, 0 };

	if (n <= 0)
		return 0;
	if (rank < 0 || rank > 32767 || lease_seconds < 1 || lease_seconds > 30L * 86400)
		return error("claim: bad rank %d or lease %ld s", rank, lease_seconds);
	if (in_transaction(db, "claiming URLs", claim_body, &c))
		return -1;
	if (c.got)
		debug("rank %d claimed %d URL(s) for %ld s", rank, c.got, lease_seconds);
	return c.got;
}

int db_claim_urls(struct db *db, int rank, int n, long lease_seconds, struct db_url *out)
{
	return claim(db, rank, 0, n, lease_seconds, out);
}

int db_claim_site_urls(struct db *db, int rank, unsigned site_id, int n, long lease_seconds,
		       struct db_url *out)
{
	if (!site_id)
		return error("claim: site_id 0");
	return claim(db, rank, site_id, n, lease_seconds, out);
}

struct release_ctx {
	int rank;
	long released;
};

static int release_body(struct db *db, void *arg)
{
	struct release_ctx *r = arg;
	MYSQL_BIND par[2];
	unsigned now = (unsigned)time(NULL);
	int rc;

	bind_uint(&par[0], &now);
	bind_int(&par[1], &r->rank);
	rc = st_exec(db, ST_RELEASE_URLS, par, NULL);
	if (rc)
		return rc;
	r->released = (long)mysql_stmt_affected_rows(db->st[ST_RELEASE_URLS]);
	bind_int(&par[0], &r->rank);
	return st_exec(db, ST_RELEASE_SITES, par, NULL);
}

long db_release_claims(struct db *db, int rank)
{
	struct release_ctx r = { rank, 0 };

	if (in_transaction(db, "releasing claims", release_body, &r))
		return -1;
	if (r.released)
		info("rank %d released %ld claimed URL(s)", rank, r.released);
	return r.released;
}

int db_release_site(struct db *db, int rank, unsigned site_id)
{
	MYSQL_BIND par[2];

	bind_uint(&par[0], &site_id);
	bind_int(&par[1], &rank);
	/* One statement in autocommit: its own transaction, retried inside. */
	return st_exec(db, ST_RELEASE_SITE, par, NULL) ? -1 : 0;
}

int db_explain_claim(struct db *db, FILE *out)
{
	static const char *const head[] = { "id", "select_type", "table", "type", "possible_keys",
					    "key", "key_len", "ref", "rows", "Extra" };
	char col[ARRAY_SIZE(head)][256];
	struct outstr os[ARRAY_SIZE(head)];
	MYSQL_BIND par[4], res[ARRAY_SIZE(head)];
	unsigned now = (unsigned)time(NULL);
	int rank = 0, lim = 100, f, rc;

	bind_uint(&par[0], &now);
	bind_int(&par[1], &rank);
	bind_uint(&par[2], &now);
	bind_int(&par[3], &lim);
	for (size_t i = 0; i < ARRAY_SIZE(head); i++)
		bind_outstr(&res[i], col[i], sizeof(col[i]), &os[i]);
	rc = st_exec(db, ST_EXPLAIN_CLAIM, par, res);
	if (rc)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(head); i++)
		fprintf(out, "%s%s", i ? "\t" : "", head[i]);
	fputc('\n', out);
	while ((f = mysql_stmt_fetch(db->st[ST_EXPLAIN_CLAIM])) == 0 || f == MYSQL_DATA_TRUNCATED) {
		for (size_t i = 0; i < ARRAY_SIZE(head); i++) {
			finish_outstr(col[i], sizeof(col[i]), &os[i]);
			fprintf(out, "%s%s", i ? "\t" : "", os[i].is_null ? "NULL" : col[i]);
		}
		fputc('\n', out);
	}
	mysql_stmt_free_result(db->st[ST_EXPLAIN_CLAIM]);
	return 0;
}

/* --- for dbserver.c -------------------------------------------------------- */

int db_server_answers(const char *socket_path, char **why)
{
	struct db *db;
	int ok;

	if (why)
		*why = NULL;
	if (lib_acquire())
		return 0;
	db = db_new_socket(socket_path, NULL);
	db->quiet = true;
	ok = connect_once(db) == 0;
	if (!ok && why)
		*why = xstrdup(db->last_error);
	db_free(db);
	lib_release();
	return ok;
}

int db_server_create_database(const char *socket_path, const char *name)
{
	struct db *db;
	struct buf q = BUF_INIT(256);
	int rc = -1;

	if (strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
	    strlen(name))
		return error("database name '%s': only letters, digits and '_' are allowed", name);
	if (!*name || strlen(name) > 64)
		return error("database name '%s': 1 to 64 characters", name);
	if (lib_acquire())
		return -1;
	db = db_new_socket(socket_path, NULL);
	db->wait = 10;
	db->hint = "is the embedded server running?";
	if (connect_retry(db))
		goto out;
	if (buf_adds(&q, "CREATE DATABASE IF NOT EXISTS ") || quote_name(&q, name) ||
	    buf_adds(&q, " CHARACTER SET utf8mb4"))
		goto out;
	rc = sql_run(db, buf_str(&q), NULL) ? -1 : 0;
out:
	buf_free(&q);
	db_free(db);
	lib_release();
	return rc;
}

/* --- storing what the crawl found ------------------------------------------ */

int db_site_id(struct db *db, const char *site, unsigned *site_id)
{
	return add_site(db, site, site_id) ? -1 : 0;
}

/* Append 'escaped s' to b (the connection's charset rules). */
static int add_quoted(struct db *db, struct buf *b, const char *s, size_t len)
{
	char *tmp = xmalloc(2 * len + 1);
	unsigned long n = mysql_real_escape_string(db->my, tmp, s, (unsigned long)len);
	int rc = buf_addc(b, '\'') || buf_add(b, tmp, n) || buf_addc(b, '\'');

	free(tmp);
	return rc ? -1 : 0;
}

struct links_ctx {
	struct db_link *v;
	size_t n;
	long added;
};

/* Fill the url_id of the links that have none from urlword (one SELECT by
 * url_hash).  Returns 0, -1 or DB_AGAIN. */
static int links_lookup(struct db *db, struct links_ctx *lc, struct buf *sql)
{
	MYSQL_RES *res = NULL;
	MYSQL_ROW row;
	size_t todo = 0;
	int rc;

	buf_reset(sql);
	buf_adds(sql, "SELECT url_id, url FROM urlword WHERE url_hash IN (");
	for (size_t i = 0; i < lc->n; i++) {
		if (lc->v[i].url_id)
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
	/* No lookup first: the crawl asks only for the links its seen-set
	 * does not know, and most of those are new.  A URL that has a row
	 * (another page or rank added it) keeps it: ON DUPLICATE KEY leaves
	 * the row alone. */
	buf_reset(&sql);
	buf_adds(&sql, "INSERT INTO urlword (site_id, url, hops, referrer, next_index_time,"
		       " index_status) VALUES ");
	for (size_t i = 0; i < lc->n; i++) {
		struct db_link *l = &lc->v[i];

		if (l->url_id)
			continue;
		l->added = true;
		if (todo++)
			buf_addc(&sql, ',');
		if (buf_printf(&sql, "(%u,", l->site_id) ||
		    add_quoted(db, &sql, l->url, strlen(l->url)) ||
		    buf_printf(&sql, ",%d,%u,%u,0)",
			       l->hops < 0 ? 0 : l->hops > 65535 ? 65535 : l->hops, l->referrer,
			       now)) {
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
	rc = links_lookup(db, lc, &sql);
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

static void bind_blob(MYSQL_BIND *b, const void *p, unsigned long *len, size_t n)
{
	memset(b, 0, sizeof(*b));
	*len = (unsigned long)n;
	b->buffer_type = MYSQL_TYPE_BLOB;
	b->buffer = (void *)p;
	b->buffer_length = *len;
	b->length = len;
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

/* ", 'text'" for one CASE arm: escaped, as every string from outside. */
static int add_case_str(struct db *db, struct buf *b, unsigned url_id, const char *s)
{
	if (!s)
		s = "";
	return buf_printf(b, " WHEN %u THEN ", url_id) || add_quoted(db, b, s, strlen(s));
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

long db_expire_all(struct db *db)
{
	int rc = sql_run(db, "UPDATE urlword SET next_index_time = 0 WHERE index_status <> 2"
			     " AND deleted = 0", NULL);

	return rc ? -1 : (long)mysql_affected_rows(db->my);
}

/* --- merge: the wordurl mirror of the index dictionary -------------------- */

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

/* --- pagerank: the link graph --- */

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

/* --- cluster: site-spread claims, the queue state for the master ---------- */

/* Statements of this section carry no outside data: only numbers the
 * program computed, printed with %d/%u. */

int db_pick_sites(struct db *db, int rank, int n, unsigned *out)
{
	char sql[640];
	unsigned now = (unsigned)time(NULL);
	MYSQL_RES *res;
	MYSQL_ROW row;
	int got = 0;

	if (n <= 0)
		return 0;
	/* The claim index in order: due URLs, oldest first, of sites nobody
	 * holds (a free site has lease_until 0) or whose lease ran out; DISTINCT
	 * ... LIMIT stops at n sites.  The rank's own unexpired leases are left
	 * out by the same test: it knows its sites. */
	UNUSED(rank);
	snprintf(sql, sizeof(sql),
		 "SELECT STRAIGHT_JOIN DISTINCT u.site_id FROM urlword u FORCE INDEX (claim)"
		 " JOIN sites s ON s.site_id = u.site_id"
		 " WHERE u.deleted = 0 AND u.next_index_time <= %u AND s.lease_until <= %u"
		 " LIMIT %d", now, now, n);
	if (sql_run(db, sql, &res))
		return -1;
	while (res && got < n && (row = mysql_fetch_row(res)))
		if (row[0])
			out[got++] = (unsigned)num(row[0]);
	mysql_free_result(res);
	return got;
}

int db_release_site_after(struct db *db, int rank, unsigned site_id, double after)
{
	char sql[256];
	unsigned now = (unsigned)time(NULL);

	if (after <= 0) {
		snprintf(sql, sizeof(sql), "UPDATE sites SET claim_rank = -1, lease_until = 0"
			 " WHERE site_id = %u AND claim_rank = %d", site_id, rank);
	} else {
		/* Keep the lease until the delay has passed, counted in whole
		 * seconds from the start of this second: no rank starts on the
		 * site before `after` seconds from now. */
		unsigned until = now + 1u + (unsigned)(after > 86400 ? 86400 : after);

		snprintf(sql, sizeof(sql), "UPDATE sites SET lease_until = %u"
			 " WHERE site_id = %u AND claim_rank = %d", until, site_id, rank);
	}
	return sql_run(db, sql, NULL) ? -1 : 0;
}

long db_release_all_claims(struct db *db)
{
	char sql[256];
	long n;
	int rc;

	snprintf(sql, sizeof(sql), "UPDATE urlword SET index_status = IF(last_index_time = 0, 0, 1),"
		 " claim_rank = -1, lease_until = 0, next_index_time = %u WHERE index_status = 2",
		 (unsigned)time(NULL));
	rc = sql_run(db, sql, NULL);
	if (rc)
		return -1;
	n = (long)mysql_affected_rows(db->my);
	if (sql_run(db, "UPDATE sites SET claim_rank = -1, lease_until = 0 WHERE claim_rank <> -1",
		    NULL))
		return -1;
	if (n)
		info("released %ld URL(s) claimed by an earlier run", n);
	return n;
}

int db_queue_state(struct db *db, struct db_queue *q)
{
	char sql[512];
	long long v[3];
	bool found;

	/* One statement, so one read view: `due` and `claimed` are counted at
	 * the same moment (a claim moves a URL from one to the other). */
	snprintf(sql, sizeof(sql),
		 "SELECT (SELECT COUNT(*) FROM urlword FORCE INDEX (claim)"
		 "  WHERE deleted = 0 AND next_index_time <= %u),"
		 " (SELECT COUNT(*) FROM urlword FORCE INDEX (claims) WHERE index_status = 2),"
		 " (SELECT COUNT(*) FROM sites WHERE claim_rank <> -1 AND lease_until > %u)",
		 (unsigned)time(NULL), (unsigned)time(NULL));
	if (sql_row(db, sql, v, 3, &found))
		return -1;
	q->due = v[0];
	q->claimed = v[1];
	q->sites_leased = v[2];
	return 0;
}

/* --- engine: result pages and query filters (search.c) --- */

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

/* --- searchd: the query log (table stat) ---------------------------------- */

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

/* --- crawlpipe: clone lookups from memory ------------------------------------ */

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
