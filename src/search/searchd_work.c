/* searchd_work.c - the threads that answer: a fixed pool of workers, each
 * with its own database connection, takes whole request frames from the
 * loop's queue, answers them through search.h, writes the answer and gives
 * the connection back; the query-log thread writes table stat in batches
 * off the query path.  The sockets and the loop are searchd.c's.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "buf.h"
#include "conf.h"
#include "db.h"
#include "dbserver.h"
#include "log.h"
#include "proto.h"
#include "search.h"
#include "searchd.h"
#include "searchd_int.h"
#include "util.h"

static void wake_loop(struct server *s)
{
	uint64_t one = 1;

	while (write(s->wakefd, &one, sizeof(one)) < 0 && errno == EINTR)
		;
}


/* ---- the query log -------------------------------------------------------- */

void stat_row_free(struct stat_row *r)
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
	struct arena arena;     /* the queries' memory, kept from one to the next */
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
	struct search_env env = { .c = c, .tok = s->tok, .db = w->db, .arena = &w->arena };
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
	env.rt = rt_get(s);
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
	if (ix && !strcmp(r.error, "ER_INDEX") && search_index_damaged(ix)) {
		free(r.message);
		r.message = xstrdup("The index is damaged (see the searchd log); the administrator "
				    "must run mpseek-index --check and a merge.");
	}
	if (ix && search_index_faults(ix))
		reload_revalidate(s, search_index_generation(ix));
	index_put(s, ix);
	search_rt_unref(env.rt);
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
	struct search_env env = { .c = s->c, .tok = s->tok, .db = w->db, .arena = &w->arena };

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
	arena_free(&w->arena);
	free(w);
	return NULL;
}

int threads_start(struct server *s)
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

void threads_stop(struct server *s)
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
