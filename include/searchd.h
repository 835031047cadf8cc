/* searchd.h - the query daemon (src/search/searchd.c, with searchd_work.c
 * and searchd_reload.c behind searchd_int.h): listening sockets and the
 * AllowFrom list, one event loop that reads request frames from every
 * connection, a fixed pool of workers that answer them through search.h
 * (each with its own database connection), hot reload of index generations
 * and the query log.  Frame bytes are proto.c's, the search is search.c's.
 * Running it: doc/SEARCHD.md.
 */
#ifndef MPSEEK_SEARCHD_H
#define MPSEEK_SEARCHD_H

#include <stdbool.h>

struct conf;

/* Limits of the server side (the protocol's own caps are in proto.h). */
#define SEARCHD_MAX_CONNS 1024        /* open client connections; more get ER_BUSY */
#define SEARCHD_MAX_REQUEST (64u << 10) /* bytes of one request payload */
#define SEARCHD_IDLE_MS 60000         /* a connection may wait this long between requests */
#define SEARCHD_CROWDED_IDLE_MS 5000  /* ... when over 3/4 of the connections are open */
#define SEARCHD_FRAME_MS 5000         /* a frame, once begun, must arrive whole within this */
#define SEARCHD_WRITE_MS 10000        /* an answer must be taken by the client within this */
#define SEARCHD_RELOAD_MS 200         /* index/current is looked at this often */
#define SEARCHD_QUEUE_PER_THREAD 64   /* requests waiting for a worker, per worker */
#define SEARCHD_STAT_QUEUE 4096       /* query-log rows waiting for the database */

struct searchd_opts {
	bool daemonize;           /* -D: fork, detach, log to a file, write a pid file */
	const char *pid_file;     /* -P; NULL: DataDir/searchd.pid with -D, none with -F */
	const char *log_file;     /* -l; NULL: DataDir/searchd.log with -D, stderr with -F */
};

/* Serve until SIGTERM or SIGINT, then finish the running queries.  Returns 0
 * on a clean stop, -1 (logged) when searchd could not start. */
int searchd_run(const struct conf *c, const struct searchd_opts *o);

#endif
