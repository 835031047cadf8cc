/* db.c - the SQL layer's core (include/db.h; the private parts in db_int.h):
 * connecting with back-off, reconnecting and retrying, running statements
 * and transactions for the other db_*.c files, and the schema check.  What
 * each program reads and writes is in db_claim.c, db_store.c, db_links.c,
 * db_wordurl.c, db_search.c, db_admin.c and db_stats.c (`-S`).
 *
 * It knows nothing of MPI, HTTP, files or the embedded server: callers pass
 * ranks, URLs and the socket to connect to.  Statements use placeholders or
 * carry no outside data at all.  Errors are sorted by what InnoDB and the
 * client library undid (doc/DATABASE.md, "Connections"):
 *   2006/2013 (and kin) the connection is gone: reconnect with back-off and
 *       retry the statement, or the whole transaction when inside one;
 *   1213 deadlock: InnoDB rolled the transaction back: retry all of it;
 *   1205 lock wait timeout: only the statement was rolled back: retry it.
 * Sessions run READ COMMITTED, so rows a locking read looked at but did not
 * keep are unlocked at once and inserts take no gap locks.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <mysql.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <mysqld_error.h>
#include <pthread.h>
#include <errmsg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "conf.h"
#include "db.h"
#include "db_int.h"
#include "log.h"
#include "util.h"

extern const char schema_sql[]; /* src/schema_sql.c, generated from sql/schema.sql */

#define DB_MAX_RETRIES  8       /* per statement or transaction */
#define DB_MAX_BACKOFF  2.0     /* seconds between two attempts, at most */
#define DB_RETRY_NOTE   5.0     /* seconds between two "retrying" lines, at least */

/* Every connection gets the same rules, whatever the server's defaults:
 * strict (an over-long value is an error, never silently cut), no engine
 * substitution (a table that cannot be InnoDB is an error). */
#define SESSION_SQL_MODE "SET SESSION sql_mode = 'STRICT_ALL_TABLES,ERROR_FOR_DIVISION_BY_ZERO," \
	"NO_ZERO_DATE,NO_ZERO_IN_DATE,NO_ENGINE_SUBSTITUTION'"
#define SESSION_ISOLATION "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"

/* The prepared statements' texts live beside the code that runs them; this
 * only maps the ids to them. */
static const char *const st_sql[ST_DOC_PUT] = {
	[ST_SITE_ADD] = st_sql_site_add,
	[ST_URL_ADD] = st_sql_url_add,
	[ST_CLAIM] = st_sql_claim,
	[ST_CLAIM_SITE] = st_sql_claim_site,
	[ST_TAKE_SITE] = st_sql_take_site,
	[ST_RELEASE_URLS] = st_sql_release_urls,
	[ST_RELEASE_SITES] = st_sql_release_sites,
	[ST_RELEASE_SITE] = st_sql_release_site,
	[ST_EXPLAIN_CLAIM] = st_sql_explain_claim,
	[ST_CLAIM_TAG] = st_sql_claim_tag,
	[ST_CLAIM_SITE_TAG] = st_sql_claim_site_tag,
	[ST_FIND_ORIGIN] = st_sql_find_origin,
	[ST_ROBOTS_GET] = st_sql_robots_get,
	[ST_ROBOTS_PUT] = st_sql_robots_put,
};

/* The text of statement id: the table above, or a statement of urlwordsNN. */
static const char *st_text(enum st id)
{
	return id < ST_DOC_PUT ? st_sql[id] : st_doc_text(id);
}

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

bool err_connection_lost(unsigned e)
{
	return e == CR_SERVER_GONE_ERROR || e == CR_SERVER_LOST || e == ER_CONNECTION_KILLED ||
	       e == CR_SERVER_LOST_EXTENDED || e == ER_SERVER_SHUTDOWN;
}

/* Errors after which waiting may help: no server yet, a server starting or
 * restarting, too many connections for a moment (the server's, or the
 * user's MAX_USER_CONNECTIONS: 1203 and 1226). */
static bool err_transient_connect(unsigned e)
{
	return e == CR_CONNECTION_ERROR || e == CR_CONN_HOST_ERROR || err_connection_lost(e) ||
	       e == ER_CON_COUNT_ERROR || e == ER_TOO_MANY_USER_CONNECTIONS ||
	       e == ER_USER_LIMIT_REACHED;
}

void set_last_error(struct db *db, unsigned e, const char *msg)
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
		/* The database does not exist yet: create it (a fresh server
		 * is all an administrator has to provide: doc/DATABASE.md). */
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

/* Does a connect() to addr fail with ECONNREFUSED (or, for a unix socket,
 * ENOENT)?  A probe of at most 2 s. */
static bool addr_refused(const struct sockaddr *addr, socklen_t addr_len, int family)
{
	int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), err = 0;
	socklen_t len = sizeof(err);
	struct pollfd p = { .fd = fd, .events = POLLOUT };

	if (fd < 0)
		return false;
	if (connect(fd, addr, addr_len) == 0)
		err = 0;
	else if (errno != EINPROGRESS)
		err = errno;
	else if (poll(&p, 1, 2000) != 1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len))
		err = ETIMEDOUT;
	close(fd);
	return err == ECONNREFUSED || (family == AF_UNIX && err == ENOENT);
}

/* Does the server's address refuse us: every address of a TCP host:port,
 * or the unix socket of DBAddr?  Then no server listens there and waiting
 * cannot help.  The client library's message does not tell a refusal from
 * a timeout (it reports the errno of its non-blocking connect), so we ask
 * the kernel ourselves. */
static bool server_refuses(const struct db *db)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	char service[16];
	bool refused = false;

	if (db->socket) {
		if (strlen(db->socket) >= sizeof(un.sun_path))
			return false;
		memcpy(un.sun_path, db->socket, strlen(db->socket) + 1);
		return addr_refused((const struct sockaddr *)&un, sizeof(un), AF_UNIX);
	}
	/* "localhost" is the client library's default socket: not ours to guess. */
	if (!db->host || !ascii_casecmp(db->host, "localhost"))
		return false;
	snprintf(service, sizeof(service), "%u", db->port ? db->port : 3306);
	if (getaddrinfo(db->host, service, &hints, &ai))
		return false;
	for (struct addrinfo *a = ai; a; a = a->ai_next)
		if (!(refused = addr_refused(a->ai_addr, a->ai_addrlen, a->ai_family)))
			break;
	freeaddrinfo(ai);
	return refused;
}

/* Errors that waiting cannot cure: access denied, unknown database, and
 * when first opening DBAddr, a server address that refuses.  The embedded
 * server's socket stays transient (it refuses until the server has
 * started), and so does a reconnect during a run (a server that restarts). */
static bool err_permanent(struct db *db)
{
	unsigned e = db->last_errno;

	if (!err_transient_connect(e))
		return true;
	if (!db->opening || db->embedded || (e != CR_CONNECTION_ERROR && e != CR_CONN_HOST_ERROR) ||
	    !server_refuses(db))
		return false;
	set_last_error(db, e, "connection refused (no server listens there)");
	return true;
}

/* Try until `deadline` (monotonic) has passed, backing off, with a
 * "retrying" line every DB_RETRY_NOTE seconds; errors that waiting cannot
 * cure fail at once, and so does every attempt after db_give_up().  The
 * failure is logged unless db->quiet or quiet_end (the caller says it). */
static int connect_retry(struct db *db, double deadline, bool quiet_end)
{
	double noted = -DB_RETRY_NOTE;

	for (int attempt = 0;; attempt++) {
		if (!connect_once(db)) {
			if (attempt)
				info("connected to MySQL at %s after %d attempts", db->where,
				     attempt + 1);
			return 0;
		}
		double d = backoff(attempt), t = now_monotonic();
		if (err_permanent(db) || t >= deadline || atomic_load(&db->out->gave_up))
			break;
		if (t + d > deadline)
			d = deadline - t;       /* a last attempt at the deadline */
		if (!db->quiet && t - noted >= DB_RETRY_NOTE) {
			warning("MySQL at %s: %s; retrying for up to %.0f s more", db->where,
				db->last_error, deadline - t);
			noted = t;
		}
		sleep_seconds(d);
	}
	if (db->quiet || quiet_end)
		return -1;
	if (db->hint)
		return error("cannot connect to MySQL at %s: %s (%s)", db->where, db->last_error,
			     db->hint);
	return error("cannot connect to MySQL at %s: %s", db->where, db->last_error);
}

/* Reconnect after the server was lost.  With a grace (DBGrace) the waits of
 * all statements together end grace seconds after the loss; once that is
 * over each call tries once, quietly: the caller (the crawl) stops the job
 * and says why in one line. */
static int reconnect(struct db *db)
{
	double now = now_monotonic(), since = atomic_load(&db->out->since);
	double deadline = now + db->wait;
	bool quiet = db->quiet;
	long long v;
	bool found;
	int rc;

	if (!since) {
		since = now;
		atomic_store(&db->out->since, since);
		warning("lost the connection to MySQL at %s (%s): reconnecting", db->where,
			db->last_error);
	}
	if (db->grace > 0)
		deadline = since + db->grace;
	if (atomic_load(&db->out->gave_up) || (db->grace > 0 && now >= deadline)) {
		atomic_store(&db->out->gave_up, true);
		deadline = 0;   /* one attempt */
	}
	/* Past the grace the caller says why the job ends: no line per try. */
	db->quiet = quiet || deadline == 0;
	rc = connect_retry(db, deadline, db->grace > 0);
	db->quiet = quiet;
	if (rc) {
		if (db->grace <= 0 || quiet)
			return -1;
		if (now_monotonic() < since + db->grace)  /* an error waiting cannot cure */
			return error("cannot connect to MySQL at %s: %s", db->where,
				     db->last_error);
		if (!atomic_exchange(&db->out->gave_up, true))
			warning("MySQL at %s unreachable for %.0f s (%s), past DBGrace: giving up",
				db->where, now_monotonic() - since, db->last_error);
		return -1;
	}
	atomic_store(&db->out->since, 0.0);
	atomic_store(&db->out->gave_up, false);
	/* A named lock dies with its connection: take the writer lock again
	 * (doc/DATABASE.md, "One writer"). */
	if (db->writer_lock &&
	    (sql_row(db, "SELECT GET_LOCK(CONCAT('mpseek_writer.', DATABASE()), 0)", &v, 1,
		     &found) || v != 1)) {
		db->writer_lock = false;
		return error("lost the writer lock of database %s with the connection, and "
			     "another job holds it now", db->name);
	}
	return 0;
}

void db_set_grace(struct db *db, double seconds)
{
	db->grace = seconds > 0 ? seconds : 0;
}

void db_share_outage(struct db *db, struct db *with)
{
	db->out = with->out;
}

double db_unreachable_seconds(struct db *db)
{
	double since = db ? atomic_load(&db->out->since) : 0;

	return since > 0 ? now_monotonic() - since : 0;
}

bool db_gave_up(struct db *db)
{
	return db && atomic_load(&db->out->gave_up) && atomic_load(&db->out->since) > 0;
}

void db_give_up(struct db *db)
{
	if (db)
		atomic_store(&db->out->gave_up, true);
}

const char *db_where(const struct db *db)
{
	return db->where;
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
	db->out = &db->own;
	return db;
}

int db_open(const struct conf *c, const char *embedded_socket, double wait_seconds,
	    struct db **out)
{
	struct db *db;

	*out = NULL;
	if (!c->db.set && !embedded_socket)
		return error("no DBAddr and no socket of an embedded server to connect to");
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
		db = db_new_socket(embedded_socket, "mpseek");
		db->embedded = true;
		db->hint = "is the server running? start it with mpseek-index --db-start";
	}
	db->wait = wait_seconds;
	db->out = &db->own;
	db->create_db = true;
	db->opening = true;
	db->tag = -1;
	if (connect_retry(db, now_monotonic() + db->wait, false)) {
		db_free(db);
		lib_release();
		return -1;
	}
	db->opening = false;
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

int db_describe(struct db *db, struct buf *out)
{
	if (ensure_connected(db))
		return -1;
	/* MariaDB 10 may announce itself as "5.5.5-10.x" to old clients. */
	const char *v = mysql_get_server_info(db->my);

	if (!strncmp(v, "5.5.5-", 6))
		v += 6;
	return buf_printf(out, "%s at %s, database %s", v, db->where, db->name) < 0 ? -1 : 0;
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
int ensure_connected(struct db *db)
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
int sql_run(struct db *db, const char *sql, MYSQL_RES **res)
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
int st_exec(struct db *db, enum st id, MYSQL_BIND *par, MYSQL_BIND *res)
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
int in_transaction(struct db *db, const char *what, int (*body)(struct db *, void *),
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


/* First row of a query without parameters into vals[0..n-1] (NULL = 0).
 * *found tells whether there was a row.  Returns 0, -1 or DB_AGAIN. */
int sql_row(struct db *db, const char *sql, long long *vals, int n, bool *found)
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

/* Append 'escaped s' to b (the connection's charset rules). */
int add_quoted(struct db *db, struct buf *b, const char *s, size_t len)
{
	char *tmp = xmalloc(2 * len + 1);
	unsigned long n = mysql_real_escape_string(db->my, tmp, s, (unsigned long)len);
	int rc = buf_addc(b, '\'') || buf_add(b, tmp, n) || buf_addc(b, '\'');

	free(tmp);
	return rc ? -1 : 0;
}

/* --- root on the embedded server's socket (for dbserver.c) ---------------- */

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
	if (connect_retry(db, now_monotonic() + db->wait, false))
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
	bool trigger[64];        /* names[i] is a trigger, not a table */
	int n;
};

/* The name after "CREATE TABLE IF NOT EXISTS" or "CREATE TRIGGER IF NOT
 * EXISTS" in a statement: the objects schema.sql makes. */
static int collect_table(void *arg, const char *stmt)
{
	static const char lead[] = "CREATE TABLE IF NOT EXISTS ";
	static const char tlead[] = "CREATE TRIGGER IF NOT EXISTS ";
	struct table_list *t = arg;
	const char *p = stmt;
	size_t n = 0;
	bool trigger = false;

	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (!ascii_ncasecmp(p, tlead, sizeof(tlead) - 1)) {
		trigger = true;
		p += sizeof(tlead) - 1;
	} else if (!ascii_ncasecmp(p, lead, sizeof(lead) - 1)) {
		p += sizeof(lead) - 1;
	} else {
		return 0;
	}
	while (p[n] && p[n] != ' ' && p[n] != '(' && p[n] != '\n' && n < 64)
		n++;
	if (t->n >= (int)ARRAY_SIZE(t->names))
		return error("sql/schema.sql: more than %zu tables", ARRAY_SIZE(t->names));
	memcpy(t->names[t->n], p, n);
	t->names[t->n][n] = '\0';
	t->trigger[t->n++] = trigger;
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
	const char *missing;     /* "table X" or "trigger X" of schema.sql that is not there */
	char missing_buf[96];
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
	/* Tables and triggers: a database without the triggers that keep
	 * sites.next_due is incomplete (db_claim.c, "the frontier"). */
	if (sql_run(db, "SELECT table_name, 0 FROM information_schema.tables"
		    " WHERE table_schema = DATABASE() UNION ALL"
		    " SELECT trigger_name, 1 FROM information_schema.triggers"
		    " WHERE trigger_schema = DATABASE()", &res))
		return -1;
	while (res && (row = mysql_fetch_row(res)))
		for (int i = 0; i < want->n; i++)
			if (row[0] && row[1] && !strcmp(row[0], want->names[i]) &&
			    want->trigger[i] == (row[1][0] == '1'))
				have[i] = 1;
	mysql_free_result(res);
	for (int i = 0; i < want->n; i++)
		if (!have[i]) {
			snprintf(s->missing_buf, sizeof(s->missing_buf), "%s %s",
				 want->trigger[i] ? "trigger" : "table", want->names[i]);
			s->missing = s->missing_buf;
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

/* --- one writer per database (doc/DATABASE.md, "One writer") ------------- */

int db_writer_lock(struct db *db, char **holder)
{
	MYSQL_RES *res = NULL;
	MYSQL_ROW row;
	long long v[2];
	bool found;

	*holder = NULL;
	if (sql_row(db, "SELECT GET_LOCK(CONCAT('mpseek_writer.', DATABASE()), 0)", v, 1,
		    &found))
		return -1;
	if (v[0] == 1) {
		db->writer_lock = true;
		return 1;
	}
	/* Who holds it: the row its holder wrote, when the schema exists. */
	if (sql_row(db, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = "
			"DATABASE() AND table_name = 'mpseek_meta'", v, 1, &found))
		return -1;
	if (v[0] && !sql_run(db, "SELECT value FROM mpseek_meta WHERE name = 'writer'", &res) &&
	    res && (row = mysql_fetch_row(res)) && row[0])
		*holder = xstrdup(row[0]);
	mysql_free_result(res);
	return 0;
}

int db_writer_note(struct db *db, const char *who)
{
	struct buf q = BUF_INIT(512);
	int rc = -1;

	if (!buf_adds(&q, "REPLACE INTO mpseek_meta (name, value) VALUES ('writer', ") &&
	    !add_quoted(db, &q, who, strnlen(who, 255)) && !buf_addc(&q, ')'))
		rc = sql_run(db, buf_str(&q), NULL) ? -1 : 0;
	buf_free(&q);
	return rc;
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
			error("database %s lacks %s: run mpseek-index to complete the schema",
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
