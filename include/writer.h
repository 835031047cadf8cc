/* writer.h - one writer per database and DataDir (doc/DATABASE.md, "One
 * writer"): a crawl, a merge (-D), -K and --seed hold the lock for the whole
 * job; read-only verbs never take it.
 */
#ifndef MPSEEK_WRITER_H
#define MPSEEK_WRITER_H

struct conf;
struct db;
struct writer;

/* Take the lock of c's DataDir (an flock()ed file, DataDir/writer.lock) and
 * of db's database (db_writer_lock()), trying again every second for up to
 * wait_seconds (< 0: without limit), with a "waiting" line now and then.
 * `what` names the job in the messages of others ("crawl", "merge (-D)").
 * Both locks die with the process, so a killed job leaves none behind.
 * Returns 0 and the lock (release with writer_release()); 1 when another
 * job still holds it after the wait (logged, naming that job: host, pid,
 * start time); -1 on error (logged). */
int writer_acquire(const struct conf *c, struct db *db, const char *what, double wait_seconds,
		   struct writer **out);

/* "crawl pid 123 on host started 2026-01-02 03:04:05 UTC": what this job
 * tells the others (borrowed from w). */
const char *writer_who(const struct writer *w);

/* Give up the file lock (the database's goes with db_close()).  NULL is
 * fine. */
void writer_release(struct writer *w);

#endif
