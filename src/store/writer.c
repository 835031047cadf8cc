/* writer.c - one writer per database and DataDir (include/writer.h).
 *
 * Two jobs writing at once lose pages for good: the second gives back the
 * first's claims and fetches them again, and two merges consume each
 * other's open delta segments.  The DataDir lock is a file held with
 * flock() (it covers two jobs on one DataDir with different databases), the
 * database's a MariaDB named lock (it covers jobs on different hosts); both
 * are freed by the kernel or the server when the process dies.  The file
 * and mpseek_meta's 'writer' row say who holds them, for the refusal.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "db.h"
#include "log.h"
#include "util.h"
#include "writer.h"

#define WRITER_NOTE_EVERY 60.0 /* seconds between two "waiting" lines */

struct writer {
	int fd;             /* DataDir/writer.lock, flock()ed */
	char *path;
	char who[256];
};

const char *writer_who(const struct writer *w)
{
	return w->who;
}

void writer_release(struct writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd); /* the flock goes with the last descriptor */
	free(w->path);
	free(w);
}

static void sleep_1s(void)
{
	struct timespec ts = { 1, 0 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* What the holder of the file wrote into it (malloc'd), or NULL. */
static char *file_holder(int fd)
{
	char buf[256];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf[0] ? xstrdup(buf) : NULL;
}

/* Take the file lock: 1 taken, 0 held by another (*holder set), -1 error. */
static int file_lock(struct writer *w, char **holder)
{
	size_t n = strlen(w->who);

	*holder = NULL;
	if (flock(w->fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK)
			return error_errno("cannot lock %s", w->path);
		*holder = file_holder(w->fd);
		return 0;
	}
	if (ftruncate(w->fd, 0) || pwrite(w->fd, w->who, n, 0) != (ssize_t)n ||
	    pwrite(w->fd, "\n", 1, (off_t)n) != 1)
		return error_errno("cannot write %s", w->path);
	return 1;
}

static void set_who(struct writer *w, const char *what)
{
	char host[128], when[64];
	time_t now = time(NULL);
	struct tm tm;

	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "?");
	host[sizeof(host) - 1] = '\0';
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %Z", localtime_r(&now, &tm));
	snprintf(w->who, sizeof(w->who), "%s pid %ld on %s started %s", what, (long)getpid(),
		 host, when);
}

int writer_acquire(const struct conf *c, struct db *db, const char *what, double wait_seconds,
		   struct writer **out)
{
	struct writer *w = xcalloc(1, sizeof(*w));
	double start = now_monotonic(), noted = start - WRITER_NOTE_EVERY;
	bool have_file = false;
	char *holder = NULL, *where = NULL;
	int rc = -1, k;

	*out = NULL;
	w->fd = -1;
	set_who(w, what);
	w->path = xasprintf("%s/writer.lock", c->data_dir);
	if (mkdir_p(c->data_dir))
		goto out;
	w->fd = open(w->path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		error_errno("cannot open %s", w->path);
		goto out;
	}
	for (;;) {
		free(holder);
		holder = NULL;
		/* File first, then database, in every job: no two jobs can
		 * each hold one and wait for the other. */
		k = have_file ? 1 : file_lock(w, &holder);
		if (k < 0)
			goto out;
		have_file = k == 1;
		if (have_file && (k = db_writer_lock(db, &holder)) != 0) {
			rc = k > 0 ? 0 : -1;
			goto out;
		}
		free(where);
		where = have_file ? xasprintf("database %s", c->db.set ? c->db.name : "mpseek")
				  : xasprintf("DataDir %s", c->data_dir);
		double t = now_monotonic();
		if (wait_seconds >= 0 && t - start >= wait_seconds)
			break;
		if (t - noted >= WRITER_NOTE_EVERY) {
			info("the writer lock of %s is held by %s: waiting for it", where,
			     holder ? holder : "another job");
			noted = t;
		}
		sleep_1s();
	}
	rc = 1;
	error("%s is in use by another mpseek-index job: %s; this %s is refused (wait for it "
	      "with --lock-wait SECONDS; a crawl stops with mpseek-index -E)", where,
	      holder ? holder : "(who is not known)", what);
out:
	free(holder);
	free(where);
	if (rc)
		writer_release(w);
	else
		*out = w;
	return rc;
}
