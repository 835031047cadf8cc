/* searchd.c - the query daemon declared in searchd.h.
 *
 * Threads: the main thread runs one epoll loop that accepts (AllowFrom is
 * checked here), reads request frames of every connection without blocking
 * (an idle connection or one that trickles a frame costs no worker: idle and
 * frame timeouts close it) and hands whole frames to a bounded queue; a
 * fixed pool of MaxThreads workers answers them (search.h), each with its
 * own database connection, and gives the connection back to the loop for
 * its next request.  A reload thread watches index/current and swaps in a
 * new generation that passes its checks; a log thread writes the query log
 * (table stat) in batches, off the query path.  Signals arrive through a
 * signalfd in the loop: SIGHUP forces a reload check, SIGTERM/SIGINT stop.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "caps.h"
#include "conf.h"
#include "db.h"
#include "dbserver.h"
#include "log.h"
#include "proto.h"
#include "search.h"
#include "searchd.h"
#include "tokenize.h"
#include "util.h"

#define MAX_LISTEN 8            /* sockets Listen may resolve to */
#define MAX_ALLOW 1024          /* AllowFrom entries after resolving names */
#define LINGER_MS 1000          /* reading what a refused client still sends */
#define LINGER_BYTES (256u << 10)
#define ADDR_LEN (INET6_ADDRSTRLEN + 1)

/* What an epoll event points to: the first member of each such struct. */
enum ev_kind { EV_LISTEN, EV_SIGNAL, EV_WAKE, EV_CONN };

struct listener {
	enum ev_kind kind;      /* EV_LISTEN */
	int fd;
	char name[ADDR_LEN + 8];
};

struct conn {
	enum ev_kind kind;      /* EV_CONN */
	int fd;
	size_t slot;            /* in server.conns */
	char peer[ADDR_LEN];    /* numeric address of the client */
	/* the frame being read (main thread only, while not busy) */
	uint8_t hdr[PROTO_HEADER_SIZE];
	size_t hdr_got;
	enum proto_type type;
	uint32_t len;
	struct buf payload;
	double deadline;        /* monotonic: idle, frame or linger deadline */
	double arrived;         /* monotonic: when the request frame was complete */
	bool busy;              /* a worker has it: the loop does not touch it */
	bool lingering;         /* refused: reading and dropping until EOF or deadline */
	size_t lingered;
	bool close_after;       /* set by the worker: do not read another request */
	struct conn *next;      /* in the job queue or the return list */
};

struct allow {
	int family;             /* AF_INET or AF_INET6 */
	uint8_t addr[16];
	int bits;
};

/* One row of the query log, owned. */
struct stat_row {
	char *addr, *proxy, *query, *ul, *sp, *referer;
	unsigned site, np, ps, sites;
	uint64_t urls;
	double start, finish;
};

struct server {
	const struct conf *c;
	struct tokenizer *tok;
	int ep;                 /* epoll */
	int sigfd, wakefd;
	enum ev_kind sig_kind, wake_kind;
	struct listener lis[MAX_LISTEN];
	size_t n_lis;
	struct allow *allow;
	size_t n_allow;
	bool allow_all;

	struct conn **conns;    /* max_conns slots */
	size_t n_conns, max_conns;
	bool accept_paused;     /* out of descriptors: listeners out of the epoll set */
	double accept_resume;
	size_t busy;            /* connections with a worker or in the queue */

	/* the job queue: whole request frames waiting for a worker */
	pthread_mutex_t job_mu;
	pthread_cond_t job_cv;
	struct conn *job_head, *job_tail;
	size_t n_jobs, max_jobs;
	bool job_stop;

	/* connections the workers give back */
	pthread_mutex_t ret_mu;
	struct conn *ret_head;

	/* the generation being served */
	pthread_mutex_t ix_mu;
	struct search_index *ix;
	char *ix_link;          /* the link text of index/current it was opened from */

	/* the reload thread */
	pthread_mutex_t rl_mu;
	pthread_cond_t rl_cv;
	bool rl_force, rl_stop;
	char *failed_link;      /* last target refused: not retried until it changes or SIGHUP */
	bool warned_gone;
	int read_errno;         /* the last error reading index/current, logged once */

	/* the query log */
	pthread_mutex_t st_mu;
	pthread_cond_t st_cv;
	struct stat_row *st_rows[SEARCHD_STAT_QUEUE];
	size_t st_head, st_n;
	bool st_stop;
	unsigned long st_dropped;
	struct db *st_db;

	size_t n_workers;
	pthread_t *workers;
	struct db **dbs;
	pthread_t reloader, logger;
	bool reloader_on, logger_on;
	unsigned long queries;
	long test_delay_ms;     /* $MPSEEK_SEARCHD_DELAY_MS: tests only */
};

/* ---- small helpers -------------------------------------------------------- */

/* Lines about misbehaving clients (refused, bad frames, stalls, busy) are
 * limited to RATE_LINES per RATE_WINDOW seconds, so that a flood cannot
 * fill the disk; the next line that passes says how many were dropped. */
#define RATE_LINES 20
#define RATE_WINDOW 10.0

static pthread_mutex_t rate_mu = PTHREAD_MUTEX_INITIALIZER;
static double rate_start;
static unsigned rate_n, rate_dropped;

static void client_log(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void client_log(enum log_level level, const char *fmt, ...)
{
	char line[MAX_LOG_LINE];
	unsigned dropped = 0;
	bool ok;
	double now = now_monotonic();
	va_list ap;

	pthread_mutex_lock(&rate_mu);
	if (now - rate_start >= RATE_WINDOW) {
		rate_start = now;
		rate_n = 0;
	}
	ok = rate_n < RATE_LINES;
	if (ok) {
		rate_n++;
		dropped = rate_dropped;
		rate_dropped = 0;
	} else {
		rate_dropped++;
	}
	pthread_mutex_unlock(&rate_mu);
	if (!ok)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (dropped)
		log_msg(level, "%s (and %u similar line(s) not logged)", line, dropped);
	else
		log_msg(level, "%s", line);
}

static void mutex_init(pthread_mutex_t *m)
{
	pthread_mutex_init(m, NULL);
}

/* A condition variable on the monotonic clock (timed waits ignore
 * changes of the wall clock). */
static void cond_init(pthread_cond_t *cv)
{
	pthread_condattr_t a;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(cv, &a);
	pthread_condattr_destroy(&a);
}

static void deadline_in(struct timespec *ts, long ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static void wake_loop(struct server *s)
{
	uint64_t one = 1;

	while (write(s->wakefd, &one, sizeof(one)) < 0 && errno == EINTR)
		;
}

/* The numeric address of sa into out (an IPv4-mapped IPv6 address as IPv4). */
static void addr_text(const struct sockaddr_storage *sa, char *out, size_t size)
{
	const void *p = NULL;
	int fam = sa->ss_family;

	if (fam == AF_INET) {
		p = &((const struct sockaddr_in *)sa)->sin_addr;
	} else if (fam == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
		if (IN6_IS_ADDR_V4MAPPED(a)) {
			fam = AF_INET;
			p = &a->s6_addr[12];
		} else {
			p = a;
		}
	}
	if (!p || !inet_ntop(fam, p, out, (socklen_t)size))
		snprintf(out, size, "?");
}

/* ---- AllowFrom ------------------------------------------------------------ */

static int allow_push(struct server *s, int family, const void *addr, int bits)
{
	struct allow *a;

	if (s->n_allow >= MAX_ALLOW)
		return error("AllowFrom: more than %d addresses", MAX_ALLOW);
	a = &s->allow[s->n_allow++];
	memset(a, 0, sizeof(*a));
	a->family = family;
	memcpy(a->addr, addr, family == AF_INET ? 4 : 16);
	a->bits = bits;
	return 0;
}

/* One AllowFrom entry: ip, ip/bits, or a host name (every address it
 * resolves to now; names are not looked up again). */
static int allow_add(struct server *s, const char *entry)
{
	char ip[ADDR_LEN];
	const char *slash = strchr(entry, '/');
	uint8_t a[16];
	long bits = -1;
	struct addrinfo hints, *res = NULL, *ai;
	int k, rc = 0;

	if (slash) {
		if ((size_t)(slash - entry) >= sizeof(ip) || parse_long(slash + 1, 0, 128, &bits))
			return error("AllowFrom: bad entry %s", entry);
		memcpy(ip, entry, (size_t)(slash - entry));
		ip[slash - entry] = '\0';
	} else {
		snprintf(ip, sizeof(ip), "%s", entry);
	}
	if (inet_pton(AF_INET, ip, a) == 1)
		return bits > 32 ? error("AllowFrom: bad prefix in %s", entry)
				 : allow_push(s, AF_INET, a, bits < 0 ? 32 : (int)bits);
	if (inet_pton(AF_INET6, ip, a) == 1)
		return allow_push(s, AF_INET6, a, bits < 0 ? 128 : (int)bits);
	if (slash)
		return error("AllowFrom: bad address in %s", entry);
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	k = getaddrinfo(entry, NULL, &hints, &res);
	if (k)
		return error("AllowFrom: cannot resolve %s: %s", entry, gai_strerror(k));
	for (ai = res; ai && !rc; ai = ai->ai_next) {
		if (ai->ai_family == AF_INET)
			rc = allow_push(s, AF_INET, &((struct sockaddr_in *)ai->ai_addr)->sin_addr, 32);
		else if (ai->ai_family == AF_INET6)
			rc = allow_push(s, AF_INET6,
					&((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr, 128);
	}
	freeaddrinfo(res);
	return rc;
}

static bool prefix_match(const uint8_t *a, const uint8_t *b, int bits)
{
	int full = bits / 8, rest = bits % 8;

	if (memcmp(a, b, (size_t)full))
		return false;
	if (!rest)
		return true;
	return ((a[full] ^ b[full]) & (uint8_t)(0xFF << (8 - rest))) == 0;
}

static bool allowed(const struct server *s, const struct sockaddr_storage *sa)
{
	const uint8_t *p;
	int fam = sa->ss_family;

	if (s->allow_all)
		return true;
	if (fam == AF_INET) {
		p = (const uint8_t *)&((const struct sockaddr_in *)sa)->sin_addr;
	} else if (fam == AF_INET6) {
		p = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
		if (IN6_IS_ADDR_V4MAPPED((const struct in6_addr *)p)) {
			fam = AF_INET;
			p += 12;
		}
	} else {
		return false;
	}
	for (size_t i = 0; i < s->n_allow; i++)
		if (s->allow[i].family == fam && prefix_match(s->allow[i].addr, p, s->allow[i].bits))
			return true;
	return false;
}

/* ---- listening ------------------------------------------------------------ */

static int listen_all(struct server *s)
{
	const struct conf *c = s->c;
	struct addrinfo hints, *res = NULL, *ai;
	char port[16];
	int k, one = 1;

	snprintf(port, sizeof(port), "%ld", c->port);
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	k = getaddrinfo(c->listen, port, &hints, &res);
	if (k)
		return error("Listen %s: %s", c->listen, gai_strerror(k));
	for (ai = res; ai && s->n_lis < MAX_LISTEN; ai = ai->ai_next) {
		struct listener *l = &s->lis[s->n_lis];
		char host[ADDR_LEN];
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
				ai->ai_protocol);

		addr_text((const struct sockaddr_storage *)ai->ai_addr, host, sizeof(host));
		snprintf(l->name, sizeof(l->name), ai->ai_family == AF_INET6 ? "[%s]:%s" : "%s:%s",
			 host, port);
		if (fd < 0) {
			error_errno("socket for %s", l->name);
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (ai->ai_family == AF_INET6)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 511)) {
			error_errno("cannot listen on %s", l->name);
			close(fd);
			continue;
		}
		l->kind = EV_LISTEN;
		l->fd = fd;
		s->n_lis++;
	}
	freeaddrinfo(res);
	if (!s->n_lis)
		return error("searchd has no socket to listen on (Listen %s, Port %ld)", c->listen,
			     c->port);
	return 0;
}

/* ---- the served generation ----------------------------------------------- *
 * The pointer holds one reference and each running query one (search.h's
 * counts are atomic); a query takes its reference under ix_mu so that a
 * swap cannot drop the last one between reading the pointer and taking it.
 * A swapped-out generation closes when the last query on it ends. */

static struct search_index *index_get(struct server *s)
{
	struct search_index *ix;

	pthread_mutex_lock(&s->ix_mu);
	ix = s->ix;
	if (ix)
		search_index_ref(ix);
	pthread_mutex_unlock(&s->ix_mu);
	return ix;
}

static void index_put(struct server *s, struct search_index *ix)
{
	UNUSED(s);
	search_index_unref(ix);
}

/* The link text of DataDir/index/current: 1 and *out (malloc'd), 0 when
 * there is none, -1 on another error (logged once until it changes: this
 * runs every SEARCHD_RELOAD_MS). */
static int read_current(struct server *s, char **out)
{
	char *path = xasprintf("%s/index/current", s->c->data_dir);
	char target[PATH_MAX];
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	int rc;

	*out = NULL;
	if (n < 0 && errno == ENOENT) {
		rc = 0;
	} else if (n < 0) {
		rc = -1;
		if (errno != s->read_errno) {
			s->read_errno = errno;
			error_errno("cannot read the symlink %s", path);
		}
	} else {
		s->read_errno = 0;
		target[n] = '\0';
		*out = xstrdup(target);
		rc = 1;
	}
	free(path);
	return rc;
}

/* Look at index/current and swap in what it points to when that is new
 * (or always, with force) and passes its checks.  Reload thread (and once
 * at start-up, before the workers). */
static void reload_check(struct server *s, bool force)
{
	const struct conf *c = s->c;
	struct search_index *ix = NULL, *old;
	struct buf err = BUF_INIT(4096);
	char *link = NULL, *dir = NULL;
	uint64_t was = 0;
	double t0;
	int k;

	k = read_current(s, &link);
	if (k <= 0) {
		if (k == 0 && s->ix_link && !s->warned_gone) {
			warning("%s/index/current is gone: still serving generation %" PRIu64,
				c->data_dir, search_index_generation(s->ix));
			s->warned_gone = true;
		}
		goto out;
	}
	s->warned_gone = false;
	if (!force && ((s->ix_link && !strcmp(link, s->ix_link)) ||
		       (s->failed_link && !strcmp(link, s->failed_link))))
		goto out;
	dir = link[0] == '/' ? xstrdup(link) : xasprintf("%s/index/%s", c->data_dir, link);
	t0 = now_monotonic();
	if (search_index_open(c, c->data_dir, dir, true, &ix, &err)) {
		if (s->ix)
			error("refusing the index generation %s: %s; still serving generation %" PRIu64,
			      dir, buf_str(&err), search_index_generation(s->ix));
		else
			error("refusing the index generation %s: %s; no index to serve (queries get "
			      "ER_NOINDEX)", dir, buf_str(&err));
		free(s->failed_link);
		s->failed_link = link;
		link = NULL;
		goto out;
	}
	free(s->failed_link);
	s->failed_link = NULL;
	pthread_mutex_lock(&s->ix_mu);
	old = s->ix;
	s->ix = ix;
	if (old)
		was = search_index_generation(old);
	pthread_mutex_unlock(&s->ix_mu);
	free(s->ix_link);
	s->ix_link = link;
	link = NULL;
	if (old)
		info("now serving index generation %" PRIu64 " (%s, checked in %.3f s), was %" PRIu64,
		     search_index_generation(ix), search_index_dir(ix), now_monotonic() - t0, was);
	else
		info("serving index generation %" PRIu64 " (%s, checked in %.3f s)",
		     search_index_generation(ix), search_index_dir(ix), now_monotonic() - t0);
	index_put(s, old); /* the pointer's reference: closes after its last query */
out:
	free(link);
	free(dir);
	buf_free(&err);
}

static void *reload_main(void *arg)
{
	struct server *s = arg;
	struct timespec ts;
	bool force;

	for (;;) {
		pthread_mutex_lock(&s->rl_mu);
		deadline_in(&ts, SEARCHD_RELOAD_MS);
		while (!s->rl_stop && !s->rl_force)
			if (pthread_cond_timedwait(&s->rl_cv, &s->rl_mu, &ts) == ETIMEDOUT)
				break;
		force = s->rl_force;
		s->rl_force = false;
		if (s->rl_stop) {
			pthread_mutex_unlock(&s->rl_mu);
			break;
		}
		pthread_mutex_unlock(&s->rl_mu);
		if (force)
			info("SIGHUP: opening %s/index/current again", s->c->data_dir);
		reload_check(s, force);
	}
	return NULL;
}

/* ---- the query log -------------------------------------------------------- */

static void stat_row_free(struct stat_row *r)
{
	if (!r)
		return;
	free(r->addr);
	free(r->proxy);
	free(r->query);
	free(r->ul);
	free(r->sp);
	free(r->referer);
	free(r);
}

/* Queue one row; a full queue (the database is down or slow) drops it. */
static void stat_push(struct server *s, const struct conn *cn, const struct proto_search *q,
		      const struct proto_results *r, double start, double finish)
{
	struct stat_row *row = xcalloc(1, sizeof(*row));
	struct buf sp = BUF_INIT(1024);

	for (uint32_t i = 0; i < q->n_spaces; i++)
		buf_printf(&sp, i ? " %u" : "%u", q->spaces[i]);
	row->addr = xstrdup(q->client ? q->client : "");
	row->proxy = xstrdup(cn->peer);
	row->query = xstrdup(q->q ? q->q : "");
	row->ul = xstrdup(q->ul ? q->ul : "");
	row->sp = xstrdup(buf_str(&sp));
	row->referer = xstrdup(q->referer ? q->referer : "");
	buf_free(&sp);
	row->site = q->site_id;
	row->np = q->page;
	row->ps = q->page_size;
	row->sites = r->total_sites;
	row->urls = r->total_urls;
	row->start = start;
	row->finish = finish;
	pthread_mutex_lock(&s->st_mu);
	if (s->st_n < SEARCHD_STAT_QUEUE && !s->st_stop) {
		s->st_rows[(s->st_head + s->st_n) % SEARCHD_STAT_QUEUE] = row;
		s->st_n++;
		row = NULL;
		pthread_cond_signal(&s->st_cv);
	} else {
		s->st_dropped++;
	}
	pthread_mutex_unlock(&s->st_mu);
	stat_row_free(row);
}

static void *stat_main(void *arg)
{
	struct server *s = arg;
	struct stat_row *rows[DB_STAT_BATCH];
	struct db_stat v[DB_STAT_BATCH];
	unsigned long dropped = 0, failed = 0;
	double last_warn = 0;
	size_t n;

	for (;;) {
		pthread_mutex_lock(&s->st_mu);
		while (!s->st_n && !s->st_stop)
			pthread_cond_wait(&s->st_cv, &s->st_mu);
		if (!s->st_n && s->st_stop) {
			pthread_mutex_unlock(&s->st_mu);
			break;
		}
		for (n = 0; n < DB_STAT_BATCH && s->st_n; n++) {
			rows[n] = s->st_rows[s->st_head];
			s->st_head = (s->st_head + 1) % SEARCHD_STAT_QUEUE;
			s->st_n--;
		}
		dropped += s->st_dropped;
		s->st_dropped = 0;
		pthread_mutex_unlock(&s->st_mu);
		for (size_t i = 0; i < n; i++) {
			const struct stat_row *r = rows[i];
			v[i] = (struct db_stat){
				.addr = r->addr, .proxy = r->proxy, .query = r->query, .ul = r->ul,
				.sp = r->sp, .referer = r->referer, .site = r->site, .np = r->np,
				.ps = r->ps, .sites = r->sites, .urls = r->urls, .start = r->start,
				.finish = r->finish,
			};
		}
		if (db_stat_add(s->st_db, v, n))
			failed += n;
		for (size_t i = 0; i < n; i++)
			stat_row_free(rows[i]);
		if ((dropped || failed) && now_monotonic() - last_warn > 60) {
			warning("query log: %lu row(s) dropped (queue full), %lu not written "
				"(database error) since the last warning", dropped, failed);
			dropped = failed = 0;
			last_warn = now_monotonic();
		}
	}
	if (dropped || failed)
		warning("query log: %lu row(s) dropped, %lu not written", dropped, failed);
	return NULL;
}

/* ---- the workers ---------------------------------------------------------- */

struct worker {
	struct server *s;
	struct db *db;
	struct buf out;         /* the answer frame */
	struct buf err;
};

/* An ERROR frame into w->out. */
static void answer_error(struct worker *w, const char *token, const char *message)
{
	buf_reset(&w->out);
	if (proto_encode_error(&w->out, token, message))
		proto_encode_error(&w->out, token, "(message not representable)");
}

static void do_search(struct worker *w, struct conn *cn)
{
	struct server *s = w->s;
	const struct conf *c = s->c;
	struct proto_search q;
	struct proto_results r;
	struct search_index *ix;
	struct search_env env = { .c = c, .tok = s->tok, .db = w->db };
	double t0 = cn->arrived, start = now_wall() - (now_monotonic() - t0), secs;

	memset(&r, 0, sizeof(r));
	if (proto_decode_search(cn->payload.ptr, cn->payload.len, &q, &w->err)) {
		client_log(LOG_WARN, "%s: %s", cn->peer, buf_str(&w->err));
		answer_error(w, "ER_BADFRAME", buf_str(&w->err));
		cn->close_after = true;
		return;
	}
	/* The time limit counts from the request's arrival: time spent waiting
	 * for a worker is part of it. */
	if (c->query_time_limit > 0)
		env.deadline = t0 + (double)c->query_time_limit / 1000.0;
	ix = index_get(s);
	if (!ix) {
		r.error = xstrdup("ER_NOINDEX");
		r.message = xstrdup("There is no index to search yet.");
	} else if (search_run(ix, &env, &q, &r) && !(r.error && *r.error)) {
		proto_results_free(&r);
		r.error = xstrdup("ER_INTERNAL");
		r.message = xstrdup("The search failed; see the searchd log.");
	}
	if (!r.error)
		r.error = xstrdup("");
	if (ix && !r.generation)
		r.generation = search_index_generation(ix);
	index_put(s, ix);
	secs = now_monotonic() - t0;
	buf_reset(&w->out);
	if (proto_encode_results(&w->out, &r)) {
		error("the answer to \"%s\" breaks a protocol cap", q.q);
		answer_error(w, "ER_INTERNAL", "The answer could not be encoded.");
	}
	if (c->slow_query_time > 0 && secs * 1000.0 >= (double)c->slow_query_time)
		warning("slow query: %.3f s for \"%s\" (page %u, %" PRIu64 " URLs%s%s) from %s/%s",
			secs, q.q, q.page, r.total_urls, *r.error ? ", " : "", r.error, cn->peer,
			q.client);
	else
		debug("query \"%s\" from %s/%s: %" PRIu64 " URLs, %.3f s%s%s", q.q, cn->peer,
		      q.client, r.total_urls, secs, *r.error ? ", " : "", r.error);
	stat_push(s, cn, &q, &r, start, now_wall());
	proto_results_free(&r);
	proto_search_free(&q);
}

static void do_cached(struct worker *w, struct conn *cn)
{
	struct server *s = w->s;
	struct proto_cached_req q;
	struct proto_cached r;
	struct search_index *ix;
	struct search_env env = { .c = s->c, .tok = s->tok, .db = w->db };

	memset(&r, 0, sizeof(r));
	if (proto_decode_cached_req(cn->payload.ptr, cn->payload.len, &q, &w->err)) {
		client_log(LOG_WARN, "%s: %s", cn->peer, buf_str(&w->err));
		answer_error(w, "ER_BADFRAME", buf_str(&w->err));
		cn->close_after = true;
		return;
	}
	if (s->c->query_time_limit > 0)
		env.deadline = cn->arrived + (double)s->c->query_time_limit / 1000.0;
	ix = index_get(s);
	buf_reset(&w->out);
	if (!ix) {
		r.error = xstrdup("ER_NOINDEX");
		if (proto_encode_cached(&w->out, &r))
			answer_error(w, "ER_INTERNAL", "The cached copy could not be encoded.");
	} else if (search_cached(ix, &env, &q, &r) && !(r.error && *r.error)) {
		answer_error(w, "ER_INTERNAL", "The cached copy failed; see the searchd log.");
	} else {
		if (!r.error)
			r.error = xstrdup("");
		if (proto_encode_cached(&w->out, &r)) {
			error("the cached copy of url_id %u breaks a protocol cap", q.url_id);
			answer_error(w, "ER_INTERNAL", "The cached copy could not be encoded.");
		}
	}
	index_put(s, ix);
	proto_cached_free(&r);
	proto_cached_req_free(&q);
}

/* Answer one request of cn and write the answer. */
static void serve(struct worker *w, struct conn *cn)
{
	if (w->s->test_delay_ms > 0) /* test hook: a slow worker (doc/SEARCHD.md) */
		usleep((useconds_t)w->s->test_delay_ms * 1000);
	switch (cn->type) {
	case PROTO_PING:
		buf_reset(&w->out);
		proto_encode_empty(&w->out, PROTO_PONG);
		break;
	case PROTO_SEARCH:
		do_search(w, cn);
		break;
	case PROTO_CACHED:
		do_cached(w, cn);
		break;
	default: /* the loop lets only requests through */
		answer_error(w, "ER_BADFRAME", "not a request");
		cn->close_after = true;
		break;
	}
	if (proto_write_all(cn->fd, w->out.ptr, w->out.len, SEARCHD_WRITE_MS, &w->err)) {
		debug("%s: %s", cn->peer, buf_str(&w->err));
		cn->close_after = true;
	}
	buf_reset(&cn->payload);
	if (w->out.alloc > (256u << 10)) { /* keep no large answer around */
		buf_free(&w->out);
		buf_init(&w->out, PROTO_HEADER_SIZE + PROTO_MAX_FRAME);
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct server *s = w->s;
	struct conn *cn;

	for (;;) {
		pthread_mutex_lock(&s->job_mu);
		while (!s->job_head && !s->job_stop)
			pthread_cond_wait(&s->job_cv, &s->job_mu);
		cn = s->job_head;
		if (cn) {
			s->job_head = cn->next;
			if (!s->job_head)
				s->job_tail = NULL;
			s->n_jobs--;
		}
		pthread_mutex_unlock(&s->job_mu);
		if (!cn)
			break; /* stopping and nothing left */
		cn->next = NULL;
		serve(w, cn);
		pthread_mutex_lock(&s->ret_mu);
		cn->next = s->ret_head;
		s->ret_head = cn;
		pthread_mutex_unlock(&s->ret_mu);
		wake_loop(s);
	}
	buf_free(&w->out);
	buf_free(&w->err);
	free(w);
	return NULL;
}

/* ---- connections (main thread) -------------------------------------------- */

static void conn_close(struct server *s, struct conn *cn)
{
	if (!cn->busy)
		epoll_ctl(s->ep, EPOLL_CTL_DEL, cn->fd, NULL);
	close(cn->fd);
	s->conns[cn->slot] = s->conns[--s->n_conns];
	s->conns[cn->slot]->slot = cn->slot;
	buf_free(&cn->payload);
	free(cn);
}

/* Send an ERROR frame without waiting (it fits any socket buffer). */
static void send_error_now(int fd, const char *token, const char *message)
{
	struct buf f = BUF_INIT(8192);

	if (!proto_encode_error(&f, token, message))
		(void)!send(fd, f.ptr, f.len, MSG_DONTWAIT | MSG_NOSIGNAL);
	buf_free(&f);
}

static void conn_linger(struct conn *cn);

/* Refuse: send the error, then linger (below). */
static void conn_refuse(struct conn *cn, const char *token, const char *msg)
{
	send_error_now(cn->fd, token, msg);
	conn_linger(cn);
}

static void conn_idle(struct conn *cn)
{
	cn->hdr_got = 0;
	cn->len = 0;
	buf_reset(&cn->payload);
	cn->deadline = now_monotonic() + SEARCHD_IDLE_MS / 1000.0;
}

/* Listening sockets in or out of the epoll set (out while no descriptor
 * is left for a new connection: level-triggered, they would spin). */
static void listen_pause(struct server *s, bool pause)
{
	struct epoll_event ev = { .events = EPOLLIN };

	for (size_t i = 0; i < s->n_lis; i++) {
		ev.data.ptr = &s->lis[i];
		epoll_ctl(s->ep, pause ? EPOLL_CTL_DEL : EPOLL_CTL_ADD, s->lis[i].fd, &ev);
	}
	s->accept_paused = pause;
}

static void accept_all(struct server *s, struct listener *l)
{
	for (;;) {
		struct sockaddr_storage sa;
		socklen_t sl = sizeof(sa);
		struct epoll_event ev;
		struct conn *cn;
		char peer[ADDR_LEN];
		int fd = accept4(l->fd, (struct sockaddr *)&sa, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE) {
				warning("accept on %s: %s: not accepting for %d ms", l->name,
					strerror(errno), SEARCHD_RELOAD_MS);
				listen_pause(s, true);
				s->accept_resume = now_monotonic() + SEARCHD_RELOAD_MS / 1000.0;
			} else if (errno != EAGAIN && errno != EWOULDBLOCK) {
				error_errno("accept on %s", l->name);
			}
			return;
		}
		addr_text(&sa, peer, sizeof(peer));
		if (s->n_conns >= s->max_conns) {
			client_log(LOG_WARN, "refused a connection from %s: %zu connections open",
				   peer, s->n_conns);
			send_error_now(fd, "ER_BUSY", "searchd has too many connections; try again.");
			close(fd);
			continue;
		}
		cn = xcalloc(1, sizeof(*cn));
		cn->kind = EV_CONN;
		cn->fd = fd;
		snprintf(cn->peer, sizeof(cn->peer), "%s", peer);
		buf_init(&cn->payload, SEARCHD_MAX_REQUEST);
		conn_idle(cn);
		ev.events = EPOLLIN | EPOLLRDHUP;
		ev.data.ptr = cn;
		if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev)) {
			error_errno("epoll_ctl");
			close(fd);
			buf_free(&cn->payload);
			free(cn);
			continue;
		}
		cn->slot = s->n_conns;
		s->conns[s->n_conns++] = cn;
		if (!allowed(s, &sa)) {
			client_log(LOG_INFO, "refused a connection from %s: not in AllowFrom", peer);
			conn_refuse(cn, "ER_FORBIDDEN", "This address may not use searchd.");
		}
	}
}

/* Hand a whole frame to the workers, or refuse it when the queue is full.
 * Everything the worker reads is set before the connection is queued: from
 * then on it is the worker's. */
static void dispatch(struct server *s, struct conn *cn)
{
	bool queued = false;

	epoll_ctl(s->ep, EPOLL_CTL_DEL, cn->fd, NULL);
	cn->arrived = now_monotonic();
	cn->busy = true;
	cn->close_after = false;
	cn->next = NULL;
	pthread_mutex_lock(&s->job_mu);
	if (s->n_jobs < s->max_jobs) {
		if (s->job_tail)
			s->job_tail->next = cn;
		else
			s->job_head = cn;
		s->job_tail = cn;
		s->n_jobs++;
		queued = true;
		pthread_cond_signal(&s->job_cv);
	}
	pthread_mutex_unlock(&s->job_mu);
	if (queued) {
		s->busy++;
		return;
	}
	/* Not queued: still the loop's. */
	cn->busy = false;
	client_log(LOG_WARN, "%s: %zu requests waiting: answering ER_BUSY", cn->peer, s->max_jobs);
	conn_refuse(cn, "ER_BUSY", "searchd is busy; try again.");
	{
		struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP, .data.ptr = cn };
		if (epoll_ctl(s->ep, EPOLL_CTL_ADD, cn->fd, &ev))
			cn->deadline = 0; /* closed by the next expire() */
	}
}

/* Read what cn has sent.  Returns 0 to keep it, -1 to close it. */
static int conn_read(struct server *s, struct conn *cn)
{
	struct buf err = BUF_INIT(512);
	char chunk[16384];
	int rc = 0;

	for (;;) {
		ssize_t n;

		if (cn->lingering) {
			n = recv(cn->fd, chunk, sizeof(chunk), MSG_DONTWAIT);
			if (n > 0 && (cn->lingered += (size_t)n) < LINGER_BYTES)
				continue;
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				break;
			rc = -1;
			break;
		}
		if (cn->hdr_got < PROTO_HEADER_SIZE) {
			n = recv(cn->fd, cn->hdr + cn->hdr_got, PROTO_HEADER_SIZE - cn->hdr_got,
				 MSG_DONTWAIT);
		} else {
			size_t want = cn->len - cn->payload.len;
			n = recv(cn->fd, chunk, want < sizeof(chunk) ? want : sizeof(chunk),
				 MSG_DONTWAIT);
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			if (n < 0 || cn->hdr_got)
				debug("%s: %s", cn->peer, n < 0 ? strerror(errno)
								: "connection closed inside a frame");
			rc = -1;
			break;
		}
		if (cn->hdr_got < PROTO_HEADER_SIZE) {
			if (cn->hdr_got == 0) /* a frame begins: it must be whole in time */
				cn->deadline = now_monotonic() + SEARCHD_FRAME_MS / 1000.0;
			cn->hdr_got += (size_t)n;
			if (cn->hdr_got < PROTO_HEADER_SIZE)
				continue;
			if (proto_parse_header(cn->hdr, &cn->type, &cn->len, &err)) {
				client_log(LOG_WARN, "%s: %s", cn->peer, buf_str(&err));
				conn_refuse(cn, "ER_BADFRAME", buf_str(&err));
				continue;
			}
			if (cn->type != PROTO_SEARCH && cn->type != PROTO_CACHED &&
			    cn->type != PROTO_PING) {
				client_log(LOG_WARN, "%s: a frame of type %d is not a request", cn->peer,
					   cn->type);
				conn_refuse(cn, "ER_BADFRAME", "not a request");
				continue;
			}
			if (cn->len > SEARCHD_MAX_REQUEST) {
				client_log(LOG_WARN, "%s: a request of %u bytes (at most %u)", cn->peer,
					   cn->len, SEARCHD_MAX_REQUEST);
				conn_refuse(cn, "ER_BADFRAME", "request over the size cap");
				continue;
			}
		} else if (buf_add(&cn->payload, chunk, (size_t)n)) {
			rc = -1; /* cannot happen: len <= the buffer's ceiling */
			break;
		}
		if (cn->payload.len == cn->len) {
			if (!cn->payload.ptr)
				buf_add(&cn->payload, "", 0);
			dispatch(s, cn);
			break; /* the next request is read after the answer */
		}
	}
	buf_free(&err);
	return rc;
}

/* Start lingering: stop writing, read and drop what the client still
 * sends for a moment before closing, so that an ERROR frame just sent is
 * not lost to a reset (closing with unread input sends RST). */
static void conn_linger(struct conn *cn)
{
	shutdown(cn->fd, SHUT_WR);
	cn->lingering = true;
	cn->lingered = 0;
	cn->deadline = now_monotonic() + LINGER_MS / 1000.0;
}

/* Connections the workers are done with: back to reading, lingering after
 * an ERROR answer, or closed when stopping. */
static void take_returns(struct server *s, bool stopping)
{
	struct conn *cn, *next;

	pthread_mutex_lock(&s->ret_mu);
	cn = s->ret_head;
	s->ret_head = NULL;
	pthread_mutex_unlock(&s->ret_mu);
	for (; cn; cn = next) {
		struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP, .data.ptr = cn };

		next = cn->next;
		cn->next = NULL;
		s->busy--;
		s->queries++;
		if (stopping) {
			conn_close(s, cn); /* busy: not in the epoll set */
			continue;
		}
		cn->busy = false;
		if (epoll_ctl(s->ep, EPOLL_CTL_ADD, cn->fd, &ev)) {
			error_errno("epoll_ctl");
			conn_close(s, cn);
		} else if (cn->close_after) {
			conn_linger(cn);
		} else {
			conn_idle(cn);
		}
	}
}

/* Close connections past their deadline (idle, a frame too slow,
 * lingering).  Crowded (over 3/4 of max_conns open), an idle connection
 * gets SEARCHD_CROWDED_IDLE_MS instead of SEARCHD_IDLE_MS, so that idle
 * clients cannot keep new ones out for long. */
static void expire(struct server *s)
{
	double now = now_monotonic();
	bool crowded = s->n_conns > s->max_conns / 4 * 3;
	double cut = (SEARCHD_IDLE_MS - SEARCHD_CROWDED_IDLE_MS) / 1000.0;

	for (size_t i = 0; i < s->n_conns;) {
		struct conn *cn = s->conns[i];
		bool idle = !cn->lingering && !cn->hdr_got;

		if (cn->busy || (cn->deadline > now && !(crowded && idle && cn->deadline - cut <= now))) {
			i++;
			continue;
		}
		if (!idle && !cn->lingering)
			client_log(LOG_WARN, "%s: closing a connection that sent part of a frame "
				   "and stalled", cn->peer);
		else if (idle)
			debug("%s: closing an idle connection", cn->peer);
		conn_close(s, cn); /* moves the last slot to i */
	}
}

/* ---- start-up and the loop ------------------------------------------------ */

/* Room for SEARCHD_MAX_CONNS connections besides the database connections
 * and the rest: raise the soft descriptor limit as far as the hard one
 * allows, and take fewer connections if it stays low. */
static void size_connections(struct server *s)
{
	struct rlimit rl;
	rlim_t want = SEARCHD_MAX_CONNS + 2 * (rlim_t)s->c->max_threads + 64;

	s->max_conns = SEARCHD_MAX_CONNS;
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (rl.rlim_cur < want) {
		rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur < want) {
		rlim_t spare = 2 * (rlim_t)s->c->max_threads + 64;
		s->max_conns = rl.rlim_cur > spare + 16 ? (size_t)(rl.rlim_cur - spare) : 16;
		warning("only %zu client connections: the descriptor limit is %llu", s->max_conns,
			(unsigned long long)rl.rlim_cur);
	}
}

static int load_tokenizer(struct server *s)
{
	const struct conf *c = s->c;

	s->tok = tok_new(c->min_word_length, c->max_word_length);
	for (size_t i = 0; i < c->n_stopword_files; i++)
		if (tok_load_stopwords(s->tok, c->stopword_files[i]))
			return -1;
	return 0;
}

static int start_threads(struct server *s)
{
	const struct conf *c = s->c;
	/* How long a worker waits for a lost database to come back (db.c
	 * reconnects inside each call): about one query's time limit. */
	double db_wait = c->query_time_limit > 10000 ? 10.0
			 : c->query_time_limit < 1000 ? 1.0 : (double)c->query_time_limit / 1000.0;
	char *sock; /* the embedded server's, used when there is no DBAddr */
	int k, rc = 0;

	s->n_workers = (size_t)c->max_threads;
	s->max_jobs = s->n_workers * SEARCHD_QUEUE_PER_THREAD;
	s->workers = xcalloc(s->n_workers, sizeof(*s->workers));
	s->dbs = xcalloc(s->n_workers, sizeof(*s->dbs));
	/* Connections are opened here, one thread at a time (the client
	 * library's start-up is not thread-safe), then handed to the workers:
	 * MaxThreads + 1 of them.  searchd may start before the first crawl:
	 * the schema is created (or its version checked) as mpseek-index does. */
	sock = dbserver_socket_path(c->data_dir);
	if (db_open(c, sock, 30, &s->st_db) || db_schema_check(s->st_db, true))
		rc = -1;
	for (size_t i = 0; !rc && i < s->n_workers; i++)
		if (db_open(c, sock, db_wait, &s->dbs[i]))
			rc = -1;
	free(sock);
	if (rc)
		return -1;
	for (size_t i = 0; i < s->n_workers; i++) {
		struct worker *w = xcalloc(1, sizeof(*w));

		w->s = s;
		w->db = s->dbs[i];
		buf_init(&w->out, PROTO_HEADER_SIZE + PROTO_MAX_FRAME);
		buf_init(&w->err, 1024);
		k = pthread_create(&s->workers[i], NULL, worker_main, w);
		if (k) {
			free(w);
			s->n_workers = i;
			errno = k;
			return error_errno("cannot start a worker thread");
		}
	}
	k = pthread_create(&s->logger, NULL, stat_main, s);
	if (k) {
		errno = k;
		return error_errno("cannot start the query-log thread");
	}
	s->logger_on = true;
	k = pthread_create(&s->reloader, NULL, reload_main, s);
	if (k) {
		errno = k;
		return error_errno("cannot start the reload thread");
	}
	s->reloader_on = true;
	return 0;
}

static void stop_threads(struct server *s)
{
	pthread_mutex_lock(&s->job_mu);
	s->job_stop = true;
	pthread_cond_broadcast(&s->job_cv);
	pthread_mutex_unlock(&s->job_mu);
	for (size_t i = 0; i < s->n_workers; i++)
		pthread_join(s->workers[i], NULL);
	s->n_workers = 0;
	if (s->reloader_on) {
		pthread_mutex_lock(&s->rl_mu);
		s->rl_stop = true;
		pthread_cond_signal(&s->rl_cv);
		pthread_mutex_unlock(&s->rl_mu);
		pthread_join(s->reloader, NULL);
		s->reloader_on = false;
	}
	if (s->logger_on) {
		pthread_mutex_lock(&s->st_mu);
		s->st_stop = true;
		pthread_cond_signal(&s->st_cv);
		pthread_mutex_unlock(&s->st_mu);
		pthread_join(s->logger, NULL);
		s->logger_on = false;
	}
}

static int setup_events(struct server *s)
{
	struct epoll_event ev;
	sigset_t set;

	s->ep = epoll_create1(EPOLL_CLOEXEC);
	if (s->ep < 0)
		return error_errno("epoll_create1");
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	/* Blocked before any thread starts, so every thread inherits the mask
	 * and the signals arrive only through the signalfd. */
	if (pthread_sigmask(SIG_BLOCK, &set, NULL))
		return error("cannot block signals");
	s->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	s->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (s->sigfd < 0 || s->wakefd < 0)
		return error_errno("signalfd/eventfd");
	s->sig_kind = EV_SIGNAL;
	s->wake_kind = EV_WAKE;
	ev.events = EPOLLIN;
	ev.data.ptr = &s->sig_kind;
	if (epoll_ctl(s->ep, EPOLL_CTL_ADD, s->sigfd, &ev))
		return error_errno("epoll_ctl");
	ev.data.ptr = &s->wake_kind;
	if (epoll_ctl(s->ep, EPOLL_CTL_ADD, s->wakefd, &ev))
		return error_errno("epoll_ctl");
	for (size_t i = 0; i < s->n_lis; i++) {
		ev.data.ptr = &s->lis[i];
		if (epoll_ctl(s->ep, EPOLL_CTL_ADD, s->lis[i].fd, &ev))
			return error_errno("epoll_ctl");
	}
	return 0;
}

/* Returns 1 for a stop signal, 0 otherwise. */
/* The log file's absolute path when searchd logs to a file (-D, -l). */
static char *reopen_log_path;

static int read_signals(struct server *s)
{
	struct signalfd_siginfo si;
	int stop = 0;

	while (read(s->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			/* A rotated log file: write to a new one at the same path. */
			if (reopen_log_path && log_reopen(reopen_log_path) == 0)
				info("SIGHUP: log file %s reopened", reopen_log_path);
			pthread_mutex_lock(&s->rl_mu);
			s->rl_force = true;
			pthread_cond_signal(&s->rl_cv);
			pthread_mutex_unlock(&s->rl_mu);
		} else {
			info("%s: stopping (%zu request(s) being answered)",
			     si.ssi_signo == SIGTERM ? "SIGTERM" : "SIGINT", s->busy);
			stop = 1;
		}
	}
	return stop;
}

static void loop(struct server *s)
{
	struct epoll_event evs[64];
	double next_expire = 0;
	bool stopping = false;

	while (!stopping) {
		int n = epoll_wait(s->ep, evs, (int)ARRAY_SIZE(evs), 100);

		if (n < 0 && errno != EINTR) {
			error_errno("epoll_wait");
			break;
		}
		for (int i = 0; i < n; i++) {
			enum ev_kind kind = *(enum ev_kind *)evs[i].data.ptr;

			if (kind == EV_LISTEN) {
				accept_all(s, evs[i].data.ptr);
			} else if (kind == EV_SIGNAL) {
				if (read_signals(s))
					stopping = true;
			} else if (kind == EV_WAKE) {
				uint64_t v;
				(void)!read(s->wakefd, &v, sizeof(v));
			} else {
				struct conn *cn = evs[i].data.ptr;
				if (conn_read(s, cn))
					conn_close(s, cn);
			}
		}
		take_returns(s, false);
		if (s->accept_paused && now_monotonic() >= s->accept_resume)
			listen_pause(s, false);
		if (now_monotonic() >= next_expire) {
			expire(s);
			next_expire = now_monotonic() + 0.1;
		}
	}
}

/* Stop accepting, close what is idle, let the workers finish what they
 * have (queued requests are answered), then close the rest. */
static void shut_down(struct server *s)
{
	for (size_t i = 0; i < s->n_lis; i++) {
		if (!s->accept_paused)
			epoll_ctl(s->ep, EPOLL_CTL_DEL, s->lis[i].fd, NULL);
		close(s->lis[i].fd);
	}
	s->n_lis = 0;
	for (size_t i = 0; i < s->n_conns;) {
		if (s->conns[i]->busy)
			i++;
		else
			conn_close(s, s->conns[i]);
	}
	stop_threads(s);
	take_returns(s, true);
	info("stopped after %lu request(s)", s->queries);
}

static void server_free(struct server *s)
{
	stop_threads(s);
	while (s->n_conns)
		conn_close(s, s->conns[0]);
	for (size_t i = 0; i < s->n_lis; i++)
		close(s->lis[i].fd);
	if (s->dbs)
		for (size_t i = 0; i < (size_t)s->c->max_threads; i++)
			db_close(s->dbs[i]);
	db_close(s->st_db);
	pthread_mutex_lock(&s->st_mu);
	for (; s->st_n; s->st_n--, s->st_head = (s->st_head + 1) % SEARCHD_STAT_QUEUE)
		stat_row_free(s->st_rows[s->st_head]);
	pthread_mutex_unlock(&s->st_mu);
	search_index_unref(s->ix);
	free(s->ix_link);
	free(s->failed_link);
	tok_free(s->tok);
	free(s->allow);
	free(s->conns);
	free(s->workers);
	free(s->dbs);
	if (s->ep >= 0)
		close(s->ep);
	if (s->sigfd >= 0)
		close(s->sigfd);
	if (s->wakefd >= 0)
		close(s->wakefd);
}

/* ---- daemon chores -------------------------------------------------------- */

/* Create and lock the pid file: another searchd holding it is an error. */
static int pid_file_open(const char *path, int *fdp)
{
	char line[32];
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	int n;

	*fdp = -1;
	if (fd < 0)
		return error_errno("cannot open the pid file %s", path);
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		n = (int)read(fd, line, sizeof(line) - 1);
		line[n > 0 ? n : 0] = '\0';
		line[strcspn(line, "\n")] = '\0';
		close(fd);
		return error("another searchd holds %s (pid %s)", path, *line ? line : "?");
	}
	n = snprintf(line, sizeof(line), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, line, (size_t)n, 0) != n) {
		close(fd);
		return error_errno("cannot write the pid file %s", path);
	}
	*fdp = fd;
	return 0;
}

/* Fork into the background.  The parent waits for the child to say it
 * serves (a byte on a pipe) and exits 0, or 1 when the child failed, so
 * that `searchd -D` reports start-up errors in its exit status.  In the
 * child *ready_fd is the pipe to write to. */
static int daemonize(int *ready_fd, const char *log_path)
{
	int p[2];
	pid_t pid;
	char b;

	if (pipe2(p, O_CLOEXEC))
		return error_errno("pipe");
	pid = fork();
	if (pid < 0)
		return error_errno("fork");
	if (pid > 0) {
		ssize_t n;
		close(p[1]);
		do
			n = read(p[0], &b, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			fprintf(stderr, "searchd: the daemon did not start; see %s\n", log_path);
		_exit(n == 1 ? 0 : 1);
	}
	close(p[0]);
	if (setsid() < 0)
		return error_errno("setsid");
	pid = fork(); /* no controlling terminal, ever */
	if (pid < 0)
		return error_errno("fork");
	if (pid > 0)
		_exit(0);
	if (chdir("/"))
		return error_errno("chdir /");
	*ready_fd = p[1];
	return 0;
}

static void detach_stdio(void)
{
	int fd = open("/dev/null", O_RDWR);

	if (fd < 0)
		return;
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
}

int searchd_run(const struct conf *c, const struct searchd_opts *o)
{
	struct server s;
	char *pid_path = NULL, *log_path = NULL;
	int pid_fd = -1, ready_fd = -1, rc = -1;

	memset(&s, 0, sizeof(s));
	s.c = c;
	s.ep = s.sigfd = s.wakefd = -1;
	mutex_init(&s.job_mu);
	cond_init(&s.job_cv);
	mutex_init(&s.ret_mu);
	mutex_init(&s.ix_mu);
	mutex_init(&s.rl_mu);
	cond_init(&s.rl_cv);
	mutex_init(&s.st_mu);
	cond_init(&s.st_cv);
	s.conns = xcalloc(SEARCHD_MAX_CONNS, sizeof(*s.conns));
	s.allow = xcalloc(MAX_ALLOW, sizeof(*s.allow));
	signal(SIGPIPE, SIG_IGN);

	/* Everything that can fail for a reason the admin must see happens
	 * before -D detaches: config, stopwords, the sockets. */
	s.allow_all = c->n_allow_from == 0;
	if (getenv("MPSEEK_SEARCHD_DELAY_MS") &&
	    parse_long(getenv("MPSEEK_SEARCHD_DELAY_MS"), 0, 10000, &s.test_delay_ms))
		s.test_delay_ms = 0;
	if (s.test_delay_ms)
		warning("MPSEEK_SEARCHD_DELAY_MS: every request waits %ld ms (a test hook)",
			s.test_delay_ms);
	for (size_t i = 0; i < c->n_allow_from; i++)
		if (allow_add(&s, c->allow_from[i]))
			goto out;
	size_connections(&s);
	if (!c->db.set && !dbserver_running(c->data_dir)) {
		error("the embedded database of %s is not running (start it with mpseek-index "
		      "--db-start, or set DBAddr)", c->data_dir);
		goto out;
	}
	if (load_tokenizer(&s) || listen_all(&s))
		goto out;
	if (o->daemonize || o->log_file) {
		log_path = o->log_file ? xstrdup(o->log_file) : xasprintf("%s/searchd.log", c->data_dir);
		if (log_open(log_path))
			goto out;
		/* Absolute: -D changes to / before a SIGHUP reopens it. */
		reopen_log_path = realpath(log_path, NULL);
	}
	if (o->pid_file || o->daemonize) {
		pid_path = o->pid_file ? xstrdup(o->pid_file) : xasprintf("%s/searchd.pid", c->data_dir);
		if (pid_path[0] != '/') { /* -D changes to / */
			char cwd[PATH_MAX], *abs;
			if (!getcwd(cwd, sizeof(cwd))) {
				error_errno("getcwd");
				goto out;
			}
			abs = xasprintf("%s/%s", cwd, pid_path);
			free(pid_path);
			pid_path = abs;
		}
	}
	if (o->daemonize && daemonize(&ready_fd, log_path))
		goto out;
	if (pid_path && pid_file_open(pid_path, &pid_fd))
		goto out;
	if (setup_events(&s))
		goto out;
	reload_check(&s, false);
	if (!s.ix && !s.failed_link)
		info("no index under %s/index yet: queries get ER_NOINDEX until mpseek-index "
		     "publishes one", c->data_dir);
	if (start_threads(&s))
		goto out;
	for (size_t i = 0; i < s.n_lis; i++)
		info("listening on %s (%ld worker(s), AllowFrom: %s)", s.lis[i].name, c->max_threads,
		     s.allow_all ? "anyone" : "the listed addresses");
	if (ready_fd >= 0) {
		(void)!write(ready_fd, "1", 1);
		close(ready_fd);
		ready_fd = -1;
		detach_stdio();
	}
	loop(&s);
	shut_down(&s);
	rc = 0;
out:
	if (ready_fd >= 0)
		close(ready_fd);
	server_free(&s);
	if (pid_fd >= 0) {
		unlink(pid_path);
		close(pid_fd);
	}
	free(pid_path);
	if (log_path)
		log_close();
	free(log_path);
	free(reopen_log_path);
	reopen_log_path = NULL;
	return rc;
}
