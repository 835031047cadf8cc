/* merge_sort.c - the merge's external sorts (merge_int.h): records of any
 * kind sorted in runs of DeltaBufferSize, runs merged FANIN at a time, and
 * sorted files moved between ranks.  Memory stays bounded by the arena and
 * FANIN open runs.  What the records are and their order is merge.c's.
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster.h"
#include "log.h"
#include "merge_int.h"
#include "util.h"

#define FANIN 64 /* runs merged at once */

static size_t rec_size(const struct kind *k, const unsigned char *p)
{
	return k->head + (size_t)k->extra(p);
}

static int run_next(const struct kind *k, struct run *r)
{
	long extra;

	r->has = 0;
	if (fread(r->rec, 1, k->head, r->fp) != k->head)
		return ferror(r->fp) ? error_errno("merge: cannot read a run") : 0;
	extra = k->extra(r->rec);
	if (extra < 0 || fread(r->rec + k->head, 1, (size_t)extra, r->fp) != (size_t)extra)
		return error("merge: a run file is damaged");
	r->has = 1;
	return 1;
}

static bool m_less(const struct merger *m, size_t a, size_t b)
{
	int c = m->k->cmp(m->r[a].rec, m->r[b].rec);

	return c < 0 || (c == 0 && a < b);
}

static void m_down(struct merger *m, size_t j)
{
	for (;;) {
		size_t a = 2 * j + 1, b = a + 1, s = j, t;

		if (a < m->hn && m_less(m, m->heap[a], m->heap[s]))
			s = a;
		if (b < m->hn && m_less(m, m->heap[b], m->heap[s]))
			s = b;
		if (s == j)
			return;
		t = m->heap[j];
		m->heap[j] = m->heap[s];
		m->heap[s] = t;
		j = s;
	}
}

void merger_close(struct merger *m)
{
	for (size_t i = 0; m->r && i < m->n; i++) {
		if (m->r[i].fp)
			fclose(m->r[i].fp);
		free(m->r[i].rec);
	}
	free(m->r);
	free(m->heap);
	memset(m, 0, sizeof(*m));
}

/* Open n files of kind k.  Returns 0, or -1 (then close it anyway). */
int merger_open(struct merger *m, const struct kind *k, char **paths, size_t n)
{
	memset(m, 0, sizeof(*m));
	m->k = k;
	m->n = n;
	m->r = xcalloc(n ? n : 1, sizeof(*m->r));
	m->heap = xmalloc((n ? n : 1) * sizeof(*m->heap));
	for (size_t i = 0; i < n; i++) {
		m->r[i].fp = fopen(paths[i], "rb");
		if (!m->r[i].fp)
			return error_errno("merge: cannot open %s", paths[i]);
		m->r[i].rec = xmalloc(k->max);
		if (run_next(k, &m->r[i]) < 0)
			return -1;
		if (m->r[i].has)
			m->heap[m->hn++] = i;
	}
	for (size_t j = m->hn / 2; j-- > 0;)
		m_down(m, j);
	return 0;
}

/* 1 and *rec (borrowed until the next call), 0 at the end, -1. */
int merger_next(struct merger *m, const unsigned char **rec)
{
	if (m->started && m->hn) {
		struct run *top = &m->r[m->heap[0]];

		if (run_next(m->k, top) < 0)
			return -1;
		if (!top->has)
			m->heap[0] = m->heap[--m->hn];
		m_down(m, 0);
	}
	m->started = true;
	if (!m->hn)
		return 0;
	*rec = m->r[m->heap[0]].rec;
	return 1;
}

/* k-way merge of files into fn(rec) calls, in order.  Returns 0 or -1. */
int merge_files(const struct kind *k, char **paths, size_t n,
		int (*fn)(void *arg, const unsigned char *rec), void *arg)
{
	struct merger m;
	const unsigned char *rec;
	int rc = merger_open(&m, k, paths, n), got = 0;

	while (!rc && (got = merger_next(&m, &rec)) > 0)
		rc = fn(arg, rec);
	merger_close(&m);
	return rc || got < 0 ? -1 : 0;
}

struct sink {
	const struct kind *k;
	FILE *fp;
};

static int write_rec(void *arg, const unsigned char *rec)
{
	struct sink *s = arg;
	size_t len = rec_size(s->k, rec);

	return fwrite(rec, 1, len, s->fp) == len ? 0 : error_errno("merge: cannot write a run");
}

void sorter_init(struct sorter *s, const struct kind *k, const char *dir, const char *tag,
		 size_t cap)
{
	memset(s, 0, sizeof(*s));
	s->k = k;
	s->dir = dir;
	s->tag = tag;
	s->cap = cap;
	s->arena = xmalloc(cap + k->max);
}

/* Remove the runs, free everything.  Accepts a zeroed sorter. */
void sorter_free(struct sorter *s)
{
	for (size_t i = 0; i < s->n_runs; i++) {
		unlink(s->runs[i]);
		free(s->runs[i]);
	}
	free(s->runs);
	free(s->arena);
	free(s->idx);
	memset(s, 0, sizeof(*s));
}

/* The arena's records by their offsets in s->idx (qsort_r(): s is the
 * argument, no file-static context). */
static int cmp_idx(const void *a, const void *b, void *arg)
{
	const struct sorter *s = arg;

	return s->k->cmp(s->arena + *(const size_t *)a, s->arena + *(const size_t *)b);
}

static char *run_name(struct sorter *s)
{
	return xasprintf("%s/%s-run-%06zu", s->dir, s->tag, s->next_name++);
}

static int sorter_spill(struct sorter *s)
{
	struct sink out = { s->k, NULL };
	char *path;
	int rc = 0;

	if (!s->n)
		return 0;
	qsort_r(s->idx, s->n, sizeof(*s->idx), cmp_idx, s);
	path = run_name(s);
	out.fp = fopen(path, "wb");
	if (!out.fp) {
		rc = error_errno("merge: cannot create %s", path);
		free(path);
		return rc;
	}
	for (size_t i = 0; i < s->n && !rc; i++) {
		const unsigned char *r = s->arena + s->idx[i];

		rc = write_rec(&out, r);
		s->spilled += rec_size(s->k, r);
	}
	if (fclose(out.fp) != 0 && !rc)
		rc = error_errno("merge: cannot write %s", path);
	s->runs = xrealloc(s->runs, (s->n_runs + 1) * sizeof(*s->runs));
	s->runs[s->n_runs++] = path;
	s->n = s->used = 0;
	s->spills++;
	return rc;
}

/* Room for a record of len bytes (at most k->max), to be filled by the
 * caller; NULL when a spill failed. */
unsigned char *sorter_room(struct sorter *s, size_t len)
{
	if (s->used + len > s->cap && sorter_spill(s))
		return NULL;
	if (s->n == s->idx_cap) {
		s->idx_cap = s->idx_cap ? 2 * s->idx_cap : 4096;
		s->idx = xrealloc(s->idx, s->idx_cap * sizeof(*s->idx));
	}
	s->idx[s->n++] = s->used;
	s->used += len;
	s->records++;
	return s->arena + s->used - len;
}

/* Merge runs FANIN at a time until at most FANIN are left. */
static int sorter_reduce(struct sorter *s)
{
	while (s->n_runs > FANIN) {
		size_t k = s->n_runs < 2 * FANIN ? s->n_runs - FANIN + 1 : FANIN;
		char *path = run_name(s);
		struct sink out = { s->k, fopen(path, "wb") };
		int rc;

		if (!out.fp) {
			free(path);
			return error_errno("merge: cannot create a run");
		}
		rc = merge_files(s->k, s->runs, k, write_rec, &out);
		if (fclose(out.fp) != 0)
			rc = -1;
		for (size_t i = 0; i < k; i++) {
			unlink(s->runs[i]);
			free(s->runs[i]);
		}
		memmove(s->runs, s->runs + k, (s->n_runs - k) * sizeof(*s->runs));
		s->n_runs -= k;
		s->runs[s->n_runs++] = path;
		if (rc)
			return -1;
	}
	return 0;
}

/* The last run written, the arena freed, at most FANIN runs left. */
int sorter_finish(struct sorter *s)
{
	int rc = sorter_spill(s);

	free(s->arena);
	s->arena = NULL;
	free(s->idx);
	s->idx = NULL;
	s->idx_cap = 0;
	return rc ? rc : sorter_reduce(s);
}

/* ---- moving sorted files between ranks ------------------------------------ */

/* <scratch>/<tag>-<dir>-<r> for every rank r (malloc'd). */
char **xfer_paths(const char *scratch, const char *tag, const char *dir)
{
	int size = cluster_size();
	char **p = xcalloc((size_t)size, sizeof(*p));

	for (int r = 0; r < size; r++)
		p[r] = xasprintf("%s/%s-%s-%d", scratch, tag, dir, r);
	return p;
}

void xfer_free(char **p)
{
	for (int r = 0; p && r < cluster_size(); r++) {
		unlink(p[r]);
		free(p[r]);
	}
	free(p);
}

/* Open one file per rank for writing; NULL slots on failure. */
int xfer_open(char **paths, FILE **f)
{
	int rc = 0;

	for (int r = 0; r < cluster_size(); r++) {
		f[r] = fopen(paths[r], "wb");
		if (!f[r])
			rc = error_errno("merge: cannot create %s", paths[r]);
	}
	return rc;
}

int xfer_close(char **paths, FILE **f)
{
	int rc = 0;

	for (int r = 0; r < cluster_size(); r++)
		if (f[r] && fclose(f[r]) != 0)
			rc = error_errno("merge: cannot write %s", paths[r]);
	return rc;
}

/* Collective: to[r] (this rank's file for rank r) goes to rank r; *from
 * gets the files received in scratch (from[r] came from rank r; malloc'd,
 * free with xfer_free()).  The to files are removed.  Returns 0 or -1,
 * agreed. */
int xfer_exchange(const char *scratch, const char *tag, char **to, int rc, char ***from)
{
	int me = cluster_rank(), size = cluster_size();
	char **fr = xfer_paths(scratch, tag, "from");

	if (cluster_agree(rc)) {
		*from = fr;
		return -1;
	}
	if (rename(to[me], fr[me]) < 0)
		rc = error_errno("merge: rename %s", to[me]);
	/* Every step runs even after an error: the peer waits for it. */
	for (int step = 1; step < size; step++) {
		int t = (me + step) % size, f = (me - step + size) % size;

		if (cluster_exchange_file(to[t], t, fr[f], f))
			rc = -1;
		unlink(to[t]);
	}
	*from = fr;
	return cluster_agree(rc);
}

/* Records of a sorted stream to the file of the rank dest() names. */
struct split {
	const struct kind *k;
	FILE **f;
	int (*dest)(const void *arg, const unsigned char *rec);
	const void *arg;
};

static int split_rec(void *arg, const unsigned char *rec)
{
	struct split *sp = arg;
	struct sink s = { sp->k, sp->f[sp->dest(sp->arg, rec)] };

	return write_rec(&s, rec);
}

/* Collective: the records of the sorted runs of s, each to the rank dest()
 * names, through files in scratch (no shared filesystem needed); *from gets
 * what this rank received: cluster_size() files, each sorted.  The runs are
 * removed.  Returns 0 or -1, agreed. */
int sort_exchange(struct sorter *s, const char *scratch, const char *tag,
		  int (*dest)(const void *arg, const unsigned char *rec), const void *arg,
		  char ***from)
{
	char **to = xfer_paths(scratch, tag, "to");
	FILE **f = xcalloc((size_t)cluster_size(), sizeof(*f));
	int rc = xfer_open(to, f);

	if (!rc) {
		struct split sp = { s->k, f, dest, arg };

		rc = merge_files(s->k, s->runs, s->n_runs, split_rec, &sp);
	}
	if (xfer_close(to, f))
		rc = -1;
	free(f);
	sorter_free(s);
	rc = xfer_exchange(scratch, tag, to, rc, from);
	xfer_free(to);
	return rc;
}
