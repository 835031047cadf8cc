/* rt.c - real-time indexing's side index: the segments of mpseek-index -T
 * moved into DataDir/deltas/, and DataDir/index/rt compacted from them for
 * searchd (include/rt.h; doc/MERGE.md, "Real-time indexing").  Owns those
 * files and their lock; the crawl writes the segments (crawl.c), searchd
 * reads index/rt (search_rt.c), the merge consumes the segments.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "buf.h"
#include "delta.h"
#include "log.h"
#include "rt.h"
#include "util.h"

int rt_lock(const char *data_dir, struct buf *err)
{
	char *dir = xasprintf("%s/index", data_dir);
	char *path = xasprintf("%s/rt.lock", dir);
	int fd = -1;

	if (mkdir_p(dir)) {
		error_into(err, "cannot create %s: %s", dir, strerror(errno));
		goto out;
	}
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		error_into(err, "cannot open %s: %s", path, strerror(errno));
		goto out;
	}
	while (flock(fd, LOCK_EX) < 0) {
		if (errno == EINTR)
			continue;
		error_into(err, "cannot lock %s: %s", path, strerror(errno));
		close(fd);
		fd = -1;
		break;
	}
out:
	free(dir);
	free(path);
	return fd;
}

void rt_unlock(int fd)
{
	if (fd >= 0)
		close(fd); /* drops the flock */
}

int rt_add_segment(const char *data_dir, const char *path, struct buf *err)
{
	char *dir = xasprintf("%s/deltas", data_dir), *to = NULL;
	struct delta_seg *segs = NULL;
	size_t n = 0;
	uint32_t seq = 0;
	int rc = -1;

	if (mkdir_p(dir)) {
		error_into(err, "cannot create %s: %s", dir, strerror(errno));
		goto out;
	}
	if (delta_list(data_dir, &segs, &n, err))
		goto out;
	for (size_t i = 0; i < n; i++)
		if (segs[i].rank == RT_RANK && segs[i].seq > seq)
			seq = segs[i].seq;
	/* link() refuses a name that exists: two writers never share one. */
	for (int tries = 0; tries < 1000; tries++) {
		free(to);
		to = xasprintf("%s/r%d-%06" PRIu32 ".dlt", dir, RT_RANK, ++seq);
		if (link(path, to) == 0)
			break;
		if (errno != EEXIST) {
			error_into(err, "cannot link %s to %s: %s", path, to, strerror(errno));
			goto out;
		}
	}
	if (unlink(path) < 0 || fsync_dir(dir) < 0) {
		error_into(err, "cannot move %s to %s: %s", path, to, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	delta_list_free(segs, n);
	free(dir);
	free(to);
	return rc;
}

/* ---- compaction ---------------------------------------------------------------- */

/* The record of a URL that wins: segment index and offset of its newest DOC
 * or DEL, and its newest LASTMOD after it. */
struct rt_ent {
	uint32_t url_id;             /* 0: empty slot */
	uint32_t seg;
	uint64_t off;
	uint64_t last_modified;
	uint8_t type;                /* DELTA_DOC, DELTA_DEL, 0: a LASTMOD alone */
};

struct rt_map {
	struct rt_ent *v;
	size_t cap, n;
};

static struct rt_ent *map_get(struct rt_map *m, uint32_t url_id)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap) {
		struct rt_map g = { xcalloc(m->cap ? 2 * m->cap : 1024, sizeof(*g.v)),
				    m->cap ? 2 * m->cap : 1024, 0 };

		for (size_t k = 0; k < m->cap; k++)
			if (m->v[k].url_id)
				*map_get(&g, m->v[k].url_id) = m->v[k];
		free(m->v);
		*m = g;
	}
	for (i = (url_id * 2654435761u) & (m->cap - 1); m->v[i].url_id; i = (i + 1) & (m->cap - 1))
		if (m->v[i].url_id == url_id)
			return &m->v[i];
	m->v[i].url_id = url_id;
	m->n++;
	return &m->v[i];
}

static int cmp_seg(const void *a, const void *b)
{
	const struct delta_seg *x = a, *y = b;

	if (x->created != y->created)
		return x->created < y->created ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Pass 1: the winner of every URL over the segments, in (created, seq)
 * order (the merge's order: doc/MERGE.md, "Semantics"). */
static int rt_scan(const struct delta_seg *s, size_t n, struct rt_map *m, struct buf *err)
{
	struct delta_rec rec;
	int k = 0;

	for (size_t i = 0; i < n && k >= 0; i++) {
		struct delta_reader *r = delta_reader_open(s[i].path, err);

		if (!r)
			return -1;
		while ((k = delta_next(r, &rec)) == 1) {
			struct rt_ent *e;

			if (rec.type != DELTA_DOC && rec.type != DELTA_DEL &&
			    rec.type != DELTA_LASTMOD)
				continue;
			e = map_get(m, rec.url_id);
			if (rec.type == DELTA_LASTMOD) {
				e->last_modified = rec.time;
				continue;
			}
			e->seg = (uint32_t)i;
			e->off = rec.offset;
			e->type = (uint8_t)rec.type;
			e->last_modified = 0;
		}
		if (k < 0)
			error_into(err, "%s", delta_reader_msg(r));
		delta_reader_close(r);
	}
	return k < 0 ? -1 : 0;
}

/* Pass 2: the winning records into w.  *docs: URLs written. */
static int rt_copy(const struct delta_seg *s, size_t n, struct rt_map *m,
		   struct delta_writer *w, long *docs, struct buf *err)
{
	struct delta_rec rec;
	int k = 0, rc = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		struct delta_reader *r = delta_reader_open(s[i].path, err);

		if (!r)
			return -1;
		while (!rc && (k = delta_next(r, &rec)) == 1) {
			struct rt_ent *e;

			if (rec.type != DELTA_DOC && rec.type != DELTA_DEL)
				continue;
			e = map_get(m, rec.url_id);
			if (e->seg != i || e->off != rec.offset)
				continue;
			(*docs)++;
			if (rec.type == DELTA_DEL) {
				rc = delta_add_del(w, rec.url_id);
				continue;
			}
			rc = delta_doc_begin(w, rec.url_id, rec.site_id, rec.time);
			for (uint32_t j = 0; j < rec.n_words && !rc; j++)
				rc = delta_doc_word(w, rec.words[j].word, rec.words[j].len,
						    rec.words[j].pos, rec.words[j].n_pos);
			rc = rc ? (delta_doc_abort(w), -1) : delta_doc_end(w);
			if (!rc && e->last_modified)
				rc = delta_add_lastmod(w, rec.url_id, e->last_modified);
		}
		if (k < 0) {
			error_into(err, "%s", delta_reader_msg(r));
			rc = -1;
		}
		delta_reader_close(r);
	}
	if (rc && !buf_str(err)[0])
		error_into(err, "cannot write the real-time index");
	return rc;
}

/* Remove the files a crashed rebuild left in dir (not recursive). */
static void clean_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char *p;

		if (de->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s", dir, de->d_name);
		unlink(p);
		free(p);
	}
	if (d)
		closedir(d);
}

int rt_rebuild(const char *data_dir, long *docs, struct buf *err)
{
	char *index = xasprintf("%s/index", data_dir);
	char *rt = xasprintf("%s/rt", index), *build = xasprintf("%s/rt-build", index);
	char *build_deltas = xasprintf("%s/deltas", build), *path = NULL;
	struct delta_seg *all = NULL;
	struct delta_writer *w = NULL;
	struct rt_map m = { 0 };
	size_t n_all = 0, n = 0;
	long n_docs = 0;
	int rc = -1;

	if (delta_list(data_dir, &all, &n_all, err))
		goto out;
	for (size_t i = 0; i < n_all; i++)
		if (all[i].rank == RT_RANK) {
			struct delta_seg t = all[n];

			all[n++] = all[i];
			all[i] = t;
		}
	if (n) /* qsort() wants a non-NULL base even for no element */
		qsort(all, n, sizeof(*all), cmp_seg);
	if (rt_scan(all, n, &m, err))
		goto out;
	if (!m.n) {
		if (unlink(rt) < 0 && errno != ENOENT) {
			error_into(err, "cannot remove %s: %s", rt, strerror(errno));
			goto out;
		}
		rc = fsync_dir(index) < 0 ? -1 : 0;
		goto out;
	}
	clean_dir(build_deltas);
	if (mkdir_p(build)) {
		error_into(err, "cannot create %s: %s", build, strerror(errno));
		goto out;
	}
	w = delta_open(build, RT_RANK, err);
	if (!w || rt_copy(all, n, &m, w, &n_docs, err))
		goto out;
	/* Closed (synced, its final commit written) before searchd may see it. */
	path = xstrdup(delta_writer_path(w));
	if (delta_close(w)) {
		w = NULL;
		unlink(path);
		error_into(err, "cannot write %s", path);
		goto out;
	}
	w = NULL;
	if (rename(path, rt) < 0) {
		error_into(err, "cannot rename %s to %s: %s", path, rt, strerror(errno));
		unlink(path);
		goto out;
	}
	rc = fsync_dir(index) < 0 ? -1 : 0;
out:
	if (w) {
		unlink(delta_writer_path(w));
		delta_close(w);
	}
	if (docs)
		*docs = n_docs;
	free(m.v);
	delta_list_free(all, n_all);
	free(index);
	free(rt);
	free(build);
	free(build_deltas);
	free(path);
	return rc;
}

int rt_refresh(const char *data_dir)
{
	struct buf err = BUF_INIT(1024);
	int fd = rt_lock(data_dir, &err), rc = -1;

	if (fd >= 0 && rt_rebuild(data_dir, NULL, &err) == 0)
		rc = 0;
	if (rc)
		error("real-time index: %s", buf_str(&err));
	rt_unlock(fd);
	buf_free(&err);
	return rc;
}
