/* searchd_reload.c - the generation searchd serves: the pointer and its
 * references, and the reload thread that watches index/current and swaps
 * in a new generation once it passes its checks (search_index_open()).
 * It answers no query (searchd_work.c) and owns no socket (searchd.c).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "conf.h"
#include "log.h"
#include "search.h"
#include "searchd.h"
#include "searchd_int.h"
#include "storage.h"
#include "util.h"

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

/* ---- the served generation ----------------------------------------------- *
 * The pointer holds one reference and each running query one (search.h's
 * counts are atomic); a query takes its reference under ix_mu so that a
 * swap cannot drop the last one between reading the pointer and taking it.
 * A swapped-out generation closes when the last query on it ends. */

struct search_index *index_get(struct server *s)
{
	struct search_index *ix;

	pthread_mutex_lock(&s->ix_mu);
	ix = s->ix;
	if (ix)
		search_index_ref(ix);
	pthread_mutex_unlock(&s->ix_mu);
	return ix;
}

void index_put(struct server *s, struct search_index *ix)
{
	UNUSED(s);
	search_index_unref(ix);
}

struct search_rt *rt_get(struct server *s)
{
	struct search_rt *rt;

	pthread_mutex_lock(&s->ix_mu);
	rt = s->rt;
	if (rt)
		search_rt_ref(rt);
	pthread_mutex_unlock(&s->ix_mu);
	return rt;
}

static void rt_swap(struct server *s, struct search_rt *rt)
{
	struct search_rt *old;

	pthread_mutex_lock(&s->ix_mu);
	old = s->rt;
	s->rt = rt;
	pthread_mutex_unlock(&s->ix_mu);
	search_rt_unref(old); /* the pointer's reference: freed after its last query */
}

/* DataDir/index/rt, the real-time index of mpseek-index -T (include/rt.h):
 * read again when its inode, time or size changed (a writer renames a new
 * file over it), dropped when a merge folded it in and removed it.  A file
 * that does not read is logged once and the previous one kept. */
static void rt_check(struct server *s)
{
	char *path = xasprintf("%s/index/rt", s->c->data_dir);
	struct buf err = BUF_INIT(1024);
	struct search_rt *rt = NULL;
	struct stat st;
	uint64_t id[3];

	if (stat(path, &st) < 0) {
		if (s->rt_ident[0]) {
			info("the real-time index is gone (a merge folded it in)");
			memset(s->rt_ident, 0, sizeof(s->rt_ident));
			rt_swap(s, NULL);
		}
		goto out;
	}
	id[0] = (uint64_t)st.st_ino;
	id[1] = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
	id[2] = (uint64_t)st.st_size;
	if (!memcmp(id, s->rt_ident, sizeof(id)))
		goto out;
	memcpy(s->rt_ident, id, sizeof(id));
	if (search_rt_open(path, &rt, &err)) {
		error("refusing the real-time index %s: %s", path, buf_str(&err));
		goto out;
	}
	info("real-time index: %zu URL(s) override the generation", search_rt_urls(rt));
	rt_swap(s, rt);
out:
	buf_free(&err);
	free(path);
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

/* Serve ix (opened and checked at t0) instead of the generation served now. */
static void swap_in(struct server *s, struct search_index *ix, double t0)
{
	struct search_index *old;
	uint64_t was = 0;

	pthread_mutex_lock(&s->ix_mu);
	old = s->ix;
	s->ix = ix;
	if (old)
		was = search_index_generation(old);
	pthread_mutex_unlock(&s->ix_mu);
	if (old)
		info("now serving index generation %" PRIu64 " (%s, checked in %.3f s), was %" PRIu64,
		     search_index_generation(ix), search_index_dir(ix), now_monotonic() - t0, was);
	else
		info("serving index generation %" PRIu64 " (%s, checked in %.3f s)",
		     search_index_generation(ix), search_index_dir(ix), now_monotonic() - t0);
	index_put(s, old); /* the pointer's reference: closes after its last query */
}

/* Look at index/current and swap in what it points to when that is new
 * (or always, with force) and passes its checks.  Reload thread (and once
 * at start-up, before the workers). */
void reload_check(struct server *s, bool force)
{
	const struct conf *c = s->c;
	struct search_index *ix = NULL;
	struct buf err = BUF_INIT(4096);
	char *link = NULL, *dir = NULL;
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
	swap_in(s, ix, t0);
	free(s->ix_link);
	s->ix_link = link;
	link = NULL;
out:
	/* The real-time index after the generation: a merge publishes the
	 * generation that folds the real-time pages in, then removes index/rt;
	 * dropping rt first would hide those pages while the new generation
	 * opens. */
	rt_check(s);
	free(link);
	free(dir);
	buf_free(&err);
}

void reload_revalidate(struct server *s, uint64_t gen)
{
	pthread_mutex_lock(&s->rl_mu);
	if (s->revalidated != gen && s->rl_revalidate != gen) {
		s->rl_revalidate = gen;
		pthread_cond_signal(&s->rl_cv);
	}
	pthread_mutex_unlock(&s->rl_mu);
}

/* Queries met read errors in the served generation: check it again, whole
 * (storage_check(), every checksum).  Damaged: serve the previous generation
 * if it is still on disk and checks clean, else keep this one marked
 * damaged (ER_INDEX then says so).  Reload thread. */
static void revalidate(struct server *s, uint64_t gen)
{
	struct search_index *ix = index_get(s), *prev = NULL;
	struct buf rep = BUF_INIT(64 * 1024), err = BUF_INIT(4096);
	uint64_t pg;
	char *dir = NULL;
	double t0 = now_monotonic();
	int k;

	if (!ix || search_index_generation(ix) != gen)
		goto out; /* already replaced */
	warning("read errors in index generation %" PRIu64 ": checking %s again", gen,
		search_index_dir(ix));
	k = storage_check(search_index_dir(ix), &rep);
	if (k == 0) {
		warning("index generation %" PRIu64 " checks clean (%.3f s): still serving it", gen,
			now_monotonic() - t0);
		goto out;
	}
	error("index generation %" PRIu64 " is damaged: %.600s", gen, buf_str(&rep));
	k = storage_gen_previous(s->c->data_dir, gen, &pg);
	if (k == 1) {
		dir = storage_gen_path(s->c->data_dir, pg);
		if (search_index_open(s->c, s->c->data_dir, dir, true, &prev, &err) == 0) {
			warning("falling back to the previous index generation %" PRIu64, pg);
			swap_in(s, prev, t0);
			goto out;
		}
		error("cannot fall back to generation %" PRIu64 ": %s", pg, buf_str(&err));
	}
	search_index_set_damaged(ix);
	error("no earlier generation to fall back to: still serving the damaged generation %" PRIu64
	      " (queries that read the damage get ER_INDEX saying so); run mpseek-index --check and a "
	      "merge", gen);
out:
	index_put(s, ix);
	free(dir);
	buf_free(&rep);
	buf_free(&err);
}

void *reload_main(void *arg)
{
	struct server *s = arg;
	struct timespec ts;
	uint64_t reval;
	bool force;

	for (;;) {
		pthread_mutex_lock(&s->rl_mu);
		deadline_in(&ts, SEARCHD_RELOAD_MS);
		while (!s->rl_stop && !s->rl_force && !s->rl_revalidate)
			if (pthread_cond_timedwait(&s->rl_cv, &s->rl_mu, &ts) == ETIMEDOUT)
				break;
		force = s->rl_force;
		s->rl_force = false;
		reval = s->rl_revalidate;
		s->rl_revalidate = 0;
		if (reval)
			s->revalidated = reval;
		if (s->rl_stop) {
			pthread_mutex_unlock(&s->rl_mu);
			break;
		}
		pthread_mutex_unlock(&s->rl_mu);
		if (reval)
			revalidate(s, reval);
		if (force)
			info("SIGHUP: opening %s/index/current again", s->c->data_dir);
		reload_check(s, force);
	}
	return NULL;
}

