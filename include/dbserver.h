/* dbserver.h - the embedded default database: a private mariadbd under
 * DataDir/mysql, on a unix socket (and TCP on request), started on demand.
 *
 * Uses fork/exec: call it before MPI_Init (Open MPI dislikes fork after init).
 */
#ifndef MPSEEK_DBSERVER_H
#define MPSEEK_DBSERVER_H

/* Path of the embedded server's socket for data_dir (malloc'd; caller frees):
 * what a program passes to db_open() for a config without DBAddr. */
char *dbserver_socket_path(const char *data_dir);

/* Make sure the embedded server for data_dir runs: create the MariaDB data
 * directory with mariadb-install-db if needed, start mariadbd if no server
 * answers on the socket, wait until it accepts connections, and create the
 * database `dbname`.  `listen` is NULL (socket only) or "host:port" for TCP.
 * Serialised by a lock file, so concurrent callers start one server.
 * Returns 0 or -1 after logging why. */
int dbserver_ensure(const char *data_dir, const char *listen, long pool_mib, const char *dbname);
/* The buffer pool of EmbeddedDBBufferPool 0: an eighth of the memory,
 * within 128 MiB..4 GiB (MiB). */
long dbserver_pool_auto(void);

/* Stop the embedded server of data_dir (SIGTERM, wait).  0 if it is stopped
 * (or was not running), -1 on failure. */
int dbserver_stop(const char *data_dir);

/* 1 if the embedded server of data_dir answers, 0 if not. */
int dbserver_running(const char *data_dir);

/* CPU seconds (user + system) the embedded server of data_dir has used
 * since it started, from /proc; -1 when unknown (not running, not ours, no
 * /proc).  For the crawl's report of where its CPU went. */
double dbserver_cpu_seconds(const char *data_dir);

#endif
