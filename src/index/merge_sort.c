/* merge_sort.c - the merge's external sorts (merge_int.h): records of any
 * kind sorted in runs of DeltaBufferSize, runs merged s->fanin at a time, and
 * sorted files moved between ranks.  Memory stays bounded by the arena and
 * s->fanin open runs.  What the records are and their order is merge.c's.
 */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cluster.h"
#include "log.h"
#include "merge_int.h"
#include "util.h"

#define FANIN_MIN 64   /* runs merged at once, at least */
#define FANIN_MAX 1024 /* ... and at most (descriptors) */
#define PREFETCH 8 /* records read ahead in key order */

static int run_next(const struct kind *k, struct run *r)
{
	int got = kind_read(k, &r->in, r->rec);

	r->has = got > 0;
	if (r->has && k->key)
		r->whole = k->key(r->rec, r->key);
	return got;
}

/* Records compared by their keys, and by cmp() where the keys cannot tell
 * (struct kind); equal records in the order of their runs, and a run at its
 * end after every other: a strict order, so the merge's output is one. */
static bool m_less(const struct merger *m, size_t a, size_t b)
{
	const struct run *x = &m->r[a], *y = &m->r[b];
	int c;

	if (!x->has || !y->has)
		return x->has && !y->has;
	if (m->k->key) {
		if (x->key[0] != y->key[0])
			return x->key[0] < y->key[0];
		if (x->whole && y->whole) {
			if (x->key[1] != y->key[1])
				return x->key[1] < y->key[1];
			return a < b;
		}
	}
	c = m->k->cmp(x->rec, y->rec);
	return c < 0 || (c == 0 && a < b);
}

/* The tournament after run w's record changed: one comparison per level
 * on the way from its leaf (n + w) to the root, where a binary heap made
 * two per level on the way down (~6% of a merge's CPU went to the heap). */
static void m_replay(struct merger *m, size_t w)
{
	for (size_t j = (m->n + w) / 2; j >= 1; j /= 2) {
		if (m_less(m, m->loser[j], w)) {
			size_t t = m->loser[j];

			m->loser[j] = w;
			w = t;
		}
	}
	m->win = w;
}

void merger_close(struct merger *m)
{
	for (size_t i = 0; m->r && i < m->n; i++) {
		rd_close(&m->r[i].in);
		free(m->r[i].rec);
	}
	free(m->r);
	free(m->loser);
	memset(m, 0, sizeof(*m));
}

/* Open n files of kind k, each read once (merge_int.h, struct rd).
 * Returns 0, or -1 (then close it anyway). */
int merger_open(struct merger *m, const struct kind *k, char **paths, size_t n)
{
	size_t *win;

	memset(m, 0, sizeof(*m));
	m->k = k;
	m->n = n;
	m->r = xcalloc(n ? n : 1, sizeof(*m->r));
	m->loser = xcalloc(n ? n : 1, sizeof(*m->loser));
	for (size_t i = 0; i < n; i++) {
		/* Zeroed: an encoded file starts after a record of zeroes. */
		m->r[i].rec = xcalloc(1, k->max);
		if (rd_open(&m->r[i].in, paths[i], true))
			return -1;
		if (run_next(k, &m->r[i]) < 0)
			return -1;
	}
	if (n < 2)
		return 0; /* m->win 0: the only run, or none (n is 0) */
	/* A loser tree: leaf n + i is run i, node j (1 <= j < n) keeps the
	 * loser of its two subtrees' winners, the root's winner is m->win. */
	win = xmalloc(2 * n * sizeof(*win));
	for (size_t i = 0; i < n; i++)
		win[n + i] = i;
	for (size_t j = n - 1; j >= 1; j--) {
		size_t a = win[2 * j], b = win[2 * j + 1];
		bool a_first = m_less(m, a, b);

		win[j] = a_first ? a : b;
		m->loser[j] = a_first ? b : a;
	}
	m->win = win[1];
	free(win);
	return 0;
}

/* 1 and *rec (borrowed until the next call), 0 at the end, -1. */
int merger_next(struct merger *m, const unsigned char **rec)
{
	if (!m->n)
		return 0;
	if (m->started && m->r[m->win].has) {
		if (run_next(m->k, &m->r[m->win]) < 0)
			return -1;
		m_replay(m, m->win);
	}
	m->started = true;
	if (!m->r[m->win].has)
		return 0; /* the least run is at its end: all are */
	*rec = m->r[m->win].rec;
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

/* ---- the k-way merge in a thread of its own ------------------------------ */

#define PIPE_CHUNK (1u << 20) /* records handed over at a time (two in flight) */

/* A merging thread fills chunk 0, 1, 0, ... with whole records, the
 * caller's thread empties them in the same order. */
struct pipe {
	const struct kind *k;
	char **paths;
	size_t n;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned char *b[2];
	size_t len[2], cap;
	bool full[2];
	bool done, stop;        /* the merge ended (rc), the caller gave up */
	int rc;
};

/* Wait until chunk i is empty (0) or the caller gave up (-1). */
static int pipe_wait_empty(struct pipe *p, int i)
{
	int rc;

	pthread_mutex_lock(&p->mu);
	while (p->full[i] && !p->stop)
		pthread_cond_wait(&p->cv, &p->mu);
	rc = p->stop ? -1 : 0;
	pthread_mutex_unlock(&p->mu);
	return rc;
}

static void pipe_hand_over(struct pipe *p, int i, bool done, int rc)
{
	pthread_mutex_lock(&p->mu);
	if (p->len[i])
		p->full[i] = true;
	if (done) {
		p->done = true;
		p->rc = rc;
	}
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

static void *pipe_main(void *arg)
{
	struct pipe *p = arg;
	struct merger m;
	const unsigned char *rec = NULL;
	int rc = merger_open(&m, p->k, p->paths, p->n), got = 0, i = 0;

	if (!rc && pipe_wait_empty(p, i))
		rc = -1;
	p->len[i] = 0;
	while (!rc && (got = merger_next(&m, &rec)) > 0) {
		size_t len = p->k->head + (size_t)p->k->extra(rec);

		if (p->len[i] + len > p->cap) {
			pipe_hand_over(p, i, false, 0);
			i ^= 1;
			if (pipe_wait_empty(p, i)) {
				rc = -1;
				break;
			}
			p->len[i] = 0;
		}
		memcpy(p->b[i] + p->len[i], rec, len);
		p->len[i] += len;
	}
	merger_close(&m);
	pipe_hand_over(p, i, true, rc || got < 0 ? -1 : 0);
	return NULL;
}

/* The caller's end of a pipe: the chunk it holds and its next record. */
struct pstream {
	struct pipe *p;
	int i;                  /* the chunk next or held */
	bool holding, have;
	size_t at;
	const unsigned char *rec;
	bool whole;
	uint64_t key[2];
};

/* A current record in s->rec: 1, 0 at the end, -1 (the merge failed). */
static int ps_fill(struct pstream *s)
{
	struct pipe *p = s->p;
	int rc = 1;

	if (s->have)
		return 1;
	if (s->holding && s->at < p->len[s->i]) {
		s->rec = p->b[s->i] + s->at;
	} else {
		pthread_mutex_lock(&p->mu);
		if (s->holding) { /* emptied: back to the merging thread */
			p->full[s->i] = false;
			pthread_cond_broadcast(&p->cv);
			s->i ^= 1;
			s->holding = false;
		}
		while (!p->full[s->i] && !p->done)
			pthread_cond_wait(&p->cv, &p->mu);
		if (!p->full[s->i]) /* done, and every chunk handed over was emptied */
			rc = p->rc ? -1 : 0;
		pthread_mutex_unlock(&p->mu);
		if (rc <= 0)
			return rc;
		s->holding = true;
		s->at = 0;
		s->rec = p->b[s->i];
	}
	s->have = true;
	if (p->k->key)
		s->whole = p->k->key(s->rec, s->key);
	return 1;
}

static void ps_take(struct pstream *s)
{
	s->at += s->p->k->head + (size_t)s->p->k->extra(s->rec);
	s->have = false;
}

/* b's record before a's (m_less()'s order; a first on a tie). */
static bool ps_before(const struct kind *k, const struct pstream *b, const struct pstream *a)
{
	if (k->key) {
		if (b->key[0] != a->key[0])
			return b->key[0] < a->key[0];
		if (b->whole && a->whole)
			return b->key[1] < a->key[1];
	}
	return k->cmp(b->rec, a->rec) < 0;
}

static void pipe_init(struct pipe *p, const struct kind *k, char **paths, size_t n)
{
	memset(p, 0, sizeof(*p));
	p->k = k;
	p->paths = paths;
	p->n = n;
	p->cap = PIPE_CHUNK < k->max ? k->max : PIPE_CHUNK;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->b[0] = xmalloc(p->cap);
	p->b[1] = xmalloc(p->cap);
}

static void pipe_stop(struct pipe *p)
{
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

static void pipe_free(struct pipe *p)
{
	free(p->b[0]);
	free(p->b[1]);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
}

/* merge_files(), the merge in threads and fn(rec) in the caller's: with
 * PIPE_SPLIT runs or more, two threads merge the first and the second half
 * of them and the caller merges their two streams (the k-way merge, which
 * reads, decodes and compares, cost three times what a partition's writer
 * does with the records); fewer are merged by one thread.  Records cross
 * in two chunks of PIPE_CHUNK (at least the largest record) per thread.
 * Without threads, it is merge_files().  Returns 0 or -1. */
#define PIPE_SPLIT 8

int merge_files_piped(const struct kind *k, char **paths, size_t n,
		      int (*fn)(void *arg, const unsigned char *rec), void *arg)
{
	struct pipe p[2];
	struct pstream st[2];
	pthread_t th[2];
	size_t np = n >= PIPE_SPLIT ? 2 : 1, half = np == 2 ? n / 2 : n, started = 0;
	int rc = 0;

	pipe_init(&p[0], k, paths, half);
	if (np == 2)
		pipe_init(&p[1], k, paths + half, n - half);
	for (; started < np; started++)
		if (thread_start(&th[started], pipe_main, &p[started]))
			break;
	if (started < np) {
		for (size_t t = 0; t < started; t++) {
			pipe_stop(&p[t]);
			pthread_join(th[t], NULL);
		}
		rc = merge_files(k, paths, n, fn, arg);
		goto out;
	}
	for (size_t t = 0; t < np; t++)
		st[t] = (struct pstream){ .p = &p[t] };
	for (;;) {
		int g0 = ps_fill(&st[0]), g1 = np == 2 ? ps_fill(&st[1]) : 0, pick;

		if (g0 < 0 || g1 < 0) {
			rc = -1;
			break;
		}
		if (!g0 && !g1)
			break;
		pick = !g0 || (g1 && ps_before(k, &st[1], &st[0]));
		rc = fn(arg, st[pick].rec);
		if (rc)
			break;
		ps_take(&st[pick]);
	}
	for (size_t t = 0; t < np; t++) {
		pipe_stop(&p[t]);
		pthread_join(th[t], NULL);
	}
out:
	for (size_t t = 0; t < np; t++)
		pipe_free(&p[t]);
	return rc;
}

static int write_rec(void *arg, const unsigned char *rec)
{
	return wr_put(arg, rec);
}

/* Runs merged at once: as many as the arena's bytes can buffer when it is
 * gone (a run being read holds MERGE_RD_BUF and a record), so that memory
 * stays within cap; at least FANIN_MIN, and at most FANIN_MAX and half the
 * descriptors the process may open.  Each pass over the runs reads and
 * writes all of them: with 1 MiB runs and 64 at once, a 10^6-page merge
 * read its postings three times.  A run's record buffer is k->max bytes
 * (a posting's: ~256 KiB), but calloc()'d that large it is mapped on
 * demand and holds pages only as far as the run's largest record reaches
 * (a few hundred bytes): charging k->max made the fan-in 204 instead of
 * 963 for a 64 MiB buffer, so that ~1,300 runs of a 10^6-page merge went
 * through a pass more: 85% of them instead of 27%. */
#define RUN_REC_CHARGE 4096 /* a record buffer's pages, as charged */

static size_t sorter_fanin(size_t cap, const struct kind *k)
{
	size_t f = cap / (MERGE_RD_BUF + (k->max < RUN_REC_CHARGE ? k->max : RUN_REC_CHARGE));
	struct rlimit rl;

	if (f > FANIN_MAX)
		f = FANIN_MAX;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    f > rl.rlim_cur / 2)
		f = (size_t)rl.rlim_cur / 2;
	return f < FANIN_MIN ? FANIN_MIN : f;
}

void sorter_init(struct sorter *s, const struct kind *k, const char *dir, const char *tag,
		 size_t cap)
{
	memset(s, 0, sizeof(*s));
	s->k = k;
	s->dir = dir;
	s->tag = tag;
	/* Entries at the top, aligned; offsets fit 32 bits.  The largest
	 * record (a posting of 32,767 positions: ~128 KiB) must fit with its
	 * two entries, whatever DeltaBufferSize says (its floor is 64 KiB). */
	if (cap < k->max + 2 * sizeof(struct sort_ent))
		cap = k->max + 2 * sizeof(struct sort_ent) + sizeof(struct sort_ent);
	if (cap > UINT32_MAX)
		cap = UINT32_MAX;
	s->cap = cap / sizeof(struct sort_ent) * sizeof(struct sort_ent);
	s->arena = xmalloc(s->cap);
	s->fanin = sorter_fanin(s->cap, k);
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
	memset(s, 0, sizeof(*s));
}

/* ---- the in-memory sort: entries by key, records only on ties ------------ */

/* Sorts a[0..n) by key, stably (equal keys keep the arena's order), with
 * tmp[0..n) as scratch; returns the array that holds the result.  An LSD
 * radix sort over the key's 16 bytes, a byte a pass, skipping the bytes
 * every entry shares (the high bytes of site and url, short words' zero
 * padding): each pass is one sequential read and 256 sequential writes.
 * It replaced a bottom-up merge sort whose unpredictable comparisons took
 * a sixth of a merge's CPU (doc/MERGE.md, "Memory"); the order, and so
 * every run, is the same. */
static struct sort_ent *ent_sort(struct sort_ent *a, struct sort_ent *tmp, size_t n)
{
	enum { DIGITS = 16 };
	size_t(*cnt)[256] = xcalloc(DIGITS, sizeof(*cnt));

	for (size_t i = 0; i < n; i++) {
		uint64_t k0 = a[i].k0, k1 = a[i].k1;

		for (unsigned d = 0; d < 8; d++) {
			cnt[d][(k1 >> (8 * d)) & 0xff]++;
			cnt[8 + d][(k0 >> (8 * d)) & 0xff]++;
		}
	}
	for (unsigned d = 0; d < DIGITS && n > 1; d++) {
		unsigned sh = 8 * (d & 7);
		bool hi = d >= 8;
		size_t sum = 0, first = hi ? (a[0].k0 >> sh) & 0xff : (a[0].k1 >> sh) & 0xff;

		if (cnt[d][first] == n)
			continue; /* every entry has this byte: the pass would copy */
		for (unsigned b = 0; b < 256; b++) {
			size_t c = cnt[d][b];

			cnt[d][b] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++) {
			unsigned b = (unsigned)(((hi ? a[i].k0 : a[i].k1) >> sh) & 0xff);

			tmp[cnt[d][b]++] = a[i];
		}
		struct sort_ent *t = a;
		a = tmp;
		tmp = t;
	}
	free(cnt);
	return a;
}

/* The entries of records by cmp() (qsort_r(): s is the argument). */
static int cmp_ent(const void *a, const void *b, void *arg)
{
	const struct sorter *s = arg;
	const struct sort_ent *x = a, *y = b;

	return s->k->cmp(s->arena + x->off, s->arena + y->off);
}

/* Sorted by key, e[0..n) is in cmp()'s order except maybe inside a range of
 * equal k0 that holds a record the key does not hold whole: such a range
 * is checked pair by pair, and sorted by cmp() if it is out of order. */
static void ent_ties(struct sorter *s, struct sort_ent *e, size_t n)
{
	for (size_t i = 0, j; i < n; i = j) {
		bool whole = e[i].whole, sorted = true;

		for (j = i + 1; j < n && e[j].k0 == e[i].k0; j++)
			whole = whole && e[j].whole;
		if (whole || j - i < 2)
			continue;
		for (size_t t = i + 1; t < j && sorted; t++) {
			if (t + PREFETCH < j)
				__builtin_prefetch(s->arena + e[t + PREFETCH].off);
			sorted = s->k->cmp(s->arena + e[t - 1].off, s->arena + e[t].off) <= 0;
		}
		if (!sorted)
			qsort_r(e + i, j - i, sizeof(*e), cmp_ent, s);
	}
}

/* The arena's records in order, as entries (the arena's top). */
static struct sort_ent *sorter_order(struct sorter *s)
{
	struct sort_ent *top = (struct sort_ent *)(void *)(s->arena + s->cap);
	struct sort_ent *e = top - s->n, *sorted;
	size_t off = 0;

	/* The records lie end to end from the arena's start, filled in by
	 * their callers since sorter_room(): their entries are made now. */
	for (size_t i = 0; i < s->n; i++) {
		uint64_t k[2] = { 0, 0 };
		const unsigned char *rec = s->arena + off;

		e[i].whole = s->k->key ? s->k->key(rec, k) : 0;
		e[i].k0 = k[0];
		e[i].k1 = k[1];
		e[i].off = (uint32_t)off;
		off += s->k->head + (size_t)s->k->extra(rec);
	}
	if (!s->k->key) {
		qsort_r(e, s->n, sizeof(*e), cmp_ent, s);
		return e;
	}
	sorted = ent_sort(e, e - s->n, s->n);
	ent_ties(s, sorted, s->n);
	return sorted;
}

static char *run_name(struct sorter *s)
{
	return xasprintf("%s/%s-run-%06zu", s->dir, s->tag, s->next_name++);
}

static int sorter_spill(struct sorter *s)
{
	struct wr out;
	char *path;
	int rc = 0;

	struct sort_ent *e;

	if (!s->n)
		return 0;
	e = sorter_order(s);
	path = run_name(s);
	rc = wr_open(&out, s->k, path);
	/* The records are read in key order, scattered over the arena: ask
	 * for each one a few records ahead of its use (a fourth of a spill's
	 * time went to waiting for them). */
	for (size_t i = 0; i < s->n && !rc; i++) {
		if (i + PREFETCH < s->n)
			__builtin_prefetch(s->arena + e[i + PREFETCH].off);
		rc = wr_put(&out, s->arena + e[i].off);
	}
	if (wr_close(&out))
		rc = -1;
	s->spilled += out.bytes;
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
	const size_t per = 2 * sizeof(struct sort_ent); /* an entry and its scratch */

	if (len + per > s->cap) {
		error("merge: a record of %zu bytes does not fit a sort buffer of %zu", len, s->cap);
		return NULL;
	}
	if (s->used + len + (s->n + 1) * per > s->cap && sorter_spill(s))
		return NULL;
	s->n++;
	s->used += len;
	s->records++;
	s->in_bytes += len;
	return s->arena + s->used - len;
}

/* Merge runs s->fanin at a time until at most s->fanin are left. */
static int sorter_reduce(struct sorter *s)
{
	const size_t fanin = s->fanin;

	while (s->n_runs > fanin) {
		size_t k = s->n_runs < 2 * fanin ? s->n_runs - fanin + 1 : fanin;
		char *path = run_name(s);
		struct wr out;
		int rc = wr_open(&out, s->k, path);

		if (!rc)
			rc = merge_files_piped(s->k, s->runs, k, write_rec, &out);
		if (wr_close(&out))
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

/* The last run written, the arena freed, at most s->fanin runs left. */
int sorter_finish(struct sorter *s)
{
	int rc = sorter_spill(s);

	free(s->arena);
	s->arena = NULL;
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

void files_free(char **p, size_t n)
{
	for (size_t i = 0; p && i < n; i++) {
		unlink(p[i]);
		free(p[i]);
	}
	free(p);
}

void xfer_free(char **p)
{
	files_free(p, (size_t)cluster_size());
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
	struct wr *w;
	int (*dest)(const void *arg, const unsigned char *rec);
	const void *arg;
};

static int split_rec(void *arg, const unsigned char *rec)
{
	struct split *sp = arg;

	return wr_put(&sp->w[sp->dest(sp->arg, rec)], rec);
}

/* Collective: the records of the sorted runs of s, each to the rank dest()
 * names, through files in scratch (no shared filesystem needed); *from gets
 * what this rank received: *n_from sorted files.  With one rank every
 * record stays here and the runs are handed over as they are: no copy.
 * s is freed.  Returns 0 or -1, agreed. */
int sort_exchange(struct sorter *s, const char *scratch, const char *tag,
		  int (*dest)(const void *arg, const unsigned char *rec), const void *arg,
		  char ***from, size_t *n_from)
{
	int size = cluster_size(), rc = 0;
	char **to;
	struct wr *w;

	if (size == 1) {
		*from = s->runs;
		*n_from = s->n_runs;
		s->runs = NULL;
		s->n_runs = 0;
		sorter_free(s);
		return 0;
	}
	to = xfer_paths(scratch, tag, "to");
	w = xcalloc((size_t)size, sizeof(*w));
	for (int r = 0; r < size; r++)
		if (wr_open(&w[r], s->k, to[r]))
			rc = -1;
	if (!rc) {
		struct split sp = { w, dest, arg };

		rc = merge_files(s->k, s->runs, s->n_runs, split_rec, &sp);
	}
	for (int r = 0; r < size; r++)
		if (wr_close(&w[r]))
			rc = -1;
	free(w);
	sorter_free(s);
	rc = xfer_exchange(scratch, tag, to, rc, from);
	*n_from = (size_t)size;
	xfer_free(to);
	return rc;
}
