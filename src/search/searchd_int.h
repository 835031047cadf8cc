/* searchd_int.h - what the files of searchd share (searchd.h is the
 * daemon's face): the server and its connections.  searchd.c owns the
 * sockets and the event loop, searchd_work.c the threads that answer
 * (workers, query log), searchd_reload.c the generation being served.
 */
#ifndef MPSEEK_SEARCHD_INT_H
#define MPSEEK_SEARCHD_INT_H

#include <arpa/inet.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "buf.h"
#include "log.h"
#include "proto.h"
#include "searchd.h"

struct conf;
struct db;
struct search_index;
struct tokenizer;

#define MAX_LISTEN 8            /* sockets Listen may resolve to */
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
	struct search_rt *rt;   /* the real-time index, NULL: none (under ix_mu) */
	uint64_t rt_ident[3];   /* index/rt's inode, mtime (ns), size when (re)read */

	/* the reload thread */
	pthread_mutex_t rl_mu;
	pthread_cond_t rl_cv;
	bool rl_force, rl_stop;
	char *failed_link;      /* last target refused: not retried until it changes or SIGHUP */
	uint64_t rl_revalidate; /* generation with read errors to re-validate (0: none) */
	uint64_t revalidated;   /* the last generation re-validated: once each */
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


/* searchd.c: a line about a misbehaving client, rate-limited. */
void client_log(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* searchd_reload.c: the served generation with a reference for the caller
 * (NULL: none yet), given back with index_put(). */
struct search_index *index_get(struct server *s);
void index_put(struct server *s, struct search_index *ix);
/* The real-time index with a reference (NULL: none); search_rt_unref() it. */
struct search_rt *rt_get(struct server *s);
/* searchd_reload.c: look at index/current and swap in a new generation
 * (always with force); the reload thread's loop. */
void reload_check(struct server *s, bool force);
/* searchd_reload.c: a query met read errors in generation gen: ask the
 * reload thread to re-validate it (once per generation) and fall back to
 * the previous one if it is damaged.  Any thread. */
void reload_revalidate(struct server *s, uint64_t gen);
void *reload_main(void *arg);

/* searchd_work.c: open the database connections, start the workers, the
 * query-log thread and the reload thread (-1 logged); stop and join them
 * (queued requests are answered first; accepts a partial start). */
int threads_start(struct server *s);
void threads_stop(struct server *s);
void stat_row_free(struct stat_row *r);   /* accepts NULL */

#endif
