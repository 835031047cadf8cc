/* storage_sum.c - the site summaries of a generation (storage.h, "site
 * summaries"; doc/FORMATS.md, "Site summaries"): NNw/sitesum, written
 * after the partitions and docinfo (a summary needs each document's
 * section lengths, which the partitions' writers do not have), read by
 * top-k pruning to pass over a site without visiting its documents, and
 * verified by storage_check() against what this file would write.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binfile.h"
#include "buf.h"
#include "le.h"
#include "storage.h"
#include "storage_int.h"
#include "util.h"

#define SUM_WORD 16  /* word k u32, site count u32, index of its first summary u64 */
#define SUM_ENTRY 56 /* doc/FORMATS.md, "Site summaries" */

_Static_assert(SUM_ENTRY == 4 + 4 + 4 + 1 + 1 + 2 + 4 * STORAGE_SUM_HULL +
				4 * STORAGE_SECTIONS + 4,
	       "sitesum entry layout");

/* ---- building ------------------------------------------------------------ */

struct pt {
	uint16_t len, n;
};

/* One (word, site) being summed up. */
struct acc {
	struct storage_sum s;
	struct pt *pts;            /* the body-only documents */
	size_t npts, cap;
};

/* A growable array of bytes: the words table and the entries of a file. */
struct bytes {
	unsigned char *p;
	size_t n, cap;
};

static unsigned char *bytes_room(struct bytes *b, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = 2 * (b->n + n) + 4096;
		b->p = xrealloc(b->p, b->cap);
	}
	b->n += n;
	return b->p + b->n - n;
}

static int cmp_pt(const void *a, const void *b)
{
	const struct pt *x = a, *y = b;

	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return (x->n < y->n) - (x->n > y->n); /* most occurrences first */
}

static int64_t cross(struct pt o, struct pt a, struct pt b)
{
	return ((int64_t)a.len - o.len) * ((int64_t)b.n - o.n) -
	       ((int64_t)a.n - o.n) * ((int64_t)b.len - o.len);
}

/* The points of a's body-only documents that bound n / (lambda + len) for
 * every lambda >= 0: the maximum is at a vertex of the upper hull, between
 * the vertex of the best n / len and the one of the most occurrences (a
 * point left of the former never wins: fewer occurrences, a worse
 * ratio).  More than STORAGE_SUM_HULL vertices: two neighbours become one
 * point (the left one's length, the right one's occurrences) that
 * dominates both, the pair that adds the least area first. */
static void sum_hull(struct acc *a)
{
	struct pt *v = a->pts, *h;
	size_t n = 0, nh = 0, best = 0;

	a->s.n_hull = 0;
	if (!a->npts)
		return;
	qsort(v, a->npts, sizeof(*v), cmp_pt);
	/* The staircase: a point with no more occurrences than a shorter one
	 * never wins. */
	for (size_t i = 0; i < a->npts; i++)
		if (!n || v[i].n > v[n - 1].n)
			v[n++] = v[i];
	h = v; /* the hull overwrites the staircase it has read */
	for (size_t i = 0; i < n; i++) {
		struct pt p = v[i];

		while (nh >= 2 && cross(h[nh - 2], h[nh - 1], p) >= 0)
			nh--;
		h[nh++] = p;
	}
	for (size_t i = 1; i < nh; i++)
		if ((uint64_t)h[i].n * h[best].len >= (uint64_t)h[best].n * h[i].len)
			best = i;
	h += best;
	nh -= best;
	while (nh > STORAGE_SUM_HULL) {
		size_t m = 0;
		int64_t least = INT64_MAX;

		for (size_t i = 0; i + 1 < nh; i++) {
			int64_t area = ((int64_t)h[i + 1].n - h[i].n) * ((int64_t)h[i + 1].len - h[i].len);

			if (area < least) {
				least = area;
				m = i;
			}
		}
		h[m].n = h[m + 1].n;
		memmove(h + m + 1, h + m + 2, (nh - m - 2) * sizeof(*h));
		nh--;
	}
	for (size_t i = 0; i < nh; i++) {
		a->s.hull_n[i] = h[i].n;
		a->s.hull_len[i] = h[i].len;
	}
	a->s.n_hull = (uint32_t)nh;
}

static void sum_pack(unsigned char *e, const struct storage_sum *s)
{
	memset(e, 0, SUM_ENTRY);
	le_put32(e, s->site_id);
	le_put32(e + 4, s->n_docs);
	le_put32(e + 8, s->min_url);
	e[12] = (unsigned char)s->n_hull;
	e[13] = s->sec_mask;
	le_put16(e + 14, s->title_len);
	for (int i = 0; i < STORAGE_SUM_HULL; i++) {
		le_put16(e + 16 + 4 * i, s->hull_n[i]);
		le_put16(e + 18 + 4 * i, s->hull_len[i]);
	}
	for (int i = 0; i < STORAGE_SECTIONS; i++) {
		le_put16(e + 36 + 4 * i, s->sec_n[i]);
		le_put16(e + 38 + 4 * i, s->sec_len[i]);
	}
}

/* One URL record of the site: n positions of document d, the first in
 * section lo, the last in section hi. */
static void acc_add(struct acc *a, uint32_t url, uint32_t n, int lo, int hi,
		    const struct storage_doc *d)
{
	if (!a->s.n_docs++)
		a->s.min_url = url;
	if (hi == STORAGE_SECTIONS - 1 && d->len[hi] < a->s.title_len)
		a->s.title_len = d->len[hi];
	if (hi == 0) {
		if (a->npts == a->cap) {
			a->cap = a->cap ? 2 * a->cap : 256;
			a->pts = xrealloc(a->pts, a->cap * sizeof(*a->pts));
		}
		a->pts[a->npts++] = (struct pt){ d->len[0], (uint16_t)n };
		return;
	}
	for (int s = lo; s <= hi; s++) {
		if (!(a->s.sec_mask & 1u << s) || n > a->s.sec_n[s])
			a->s.sec_n[s] = (uint16_t)n;
		if (!(a->s.sec_mask & 1u << s) || d->len[s] < a->s.sec_len[s])
			a->s.sec_len[s] = d->len[s];
		a->s.sec_mask |= (uint8_t)(1u << s);
	}
}

/* The summaries of word_id into words and ents: 0, 1 when it gets none
 * (positions outside the four sections: its sites are visited), -1 on
 * damage. */
static int word_sums(const struct storage *st, uint32_t word_id, uint32_t n_sites, uint64_t first,
		     struct storage_cursor *c, struct acc *a, struct bytes *words, struct bytes *ents)
{
	size_t mark = ents->n;
	uint32_t site, url, n;
	const uint8_t *pos;
	unsigned char *w;
	int rc;

	if (storage_postings(st, word_id, c) < 0)
		return -1;
	while ((rc = storage_next_site(c, &site)) > 0) {
		memset(&a->s, 0, sizeof(a->s));
		a->s.site_id = site;
		a->s.title_len = STORAGE_SUM_NO_TITLE;
		a->npts = 0;
		/* Only a record's count and its first and last positions
		 * matter: read in place, the others not decoded. */
		while ((rc = storage_skip_url(c, 0, &url, &n, &pos)) > 0) {
			struct storage_doc d;
			uint32_t hi = storage_rec_pos(pos, n - 1) >> STORAGE_POS_SHIFT;

			if (hi >= STORAGE_SECTIONS) {
				ents->n = mark;
				return 1;
			}
			if (storage_doc(st, url, &d) != 1)
				return -1;
			acc_add(a, url, n, (int)(storage_rec_pos(pos, 0) >> STORAGE_POS_SHIFT), (int)hi,
				&d);
		}
		if (rc < 0)
			return -1;
		sum_hull(a);
		sum_pack(bytes_room(ents, SUM_ENTRY), &a->s);
	}
	if (rc < 0 || (ents->n - mark) / SUM_ENTRY != n_sites)
		return -1;
	w = bytes_room(words, SUM_WORD);
	le_put32(w, word_id / STORAGE_PARTITIONS);
	le_put32(w + 4, n_sites);
	le_put64(w + 8, first);
	return 0;
}

/* The bytes of partition pn's file after its header: the words table,
 * then the entries; *n_words.  0 or -1 (err). */
static int part_sums(const struct storage *st, unsigned pn, struct bytes *out, uint64_t *n_words,
		     struct buf *err)
{
	struct bytes words = { 0 }, ents = { 0 };
	struct storage_cursor *c = xmalloc(sizeof(*c));
	struct acc a = { 0 };
	uint32_t nw = storage_part_words(st, pn);
	int rc = 0;

	for (uint32_t k = 0; k < nw && !rc; k++) {
		uint32_t id = k * STORAGE_PARTITIONS + pn;
		struct storage_word w;

		if (storage_word_info(st, id, &w) < 0) {
			rc = -1;
			break;
		}
		if (w.n_urls < STORAGE_SUM_MIN_URLS ||
		    w.n_urls < (uint64_t)STORAGE_SUM_PER_SITE * w.n_sites)
			continue;
		rc = word_sums(st, id, w.n_sites, ents.n / SUM_ENTRY, c, &a, &words, &ents);
		if (rc > 0)
			rc = 0;
	}
	if (rc)
		error_into(err, "%s/%02uw: the postings or docinfo are damaged: no site summaries",
			   storage_dir(st), pn);
	*n_words = words.n / SUM_WORD;
	out->n = 0;
	if (!rc && words.n) {
		memcpy(bytes_room(out, words.n), words.p, words.n);
		memcpy(bytes_room(out, ents.n), ents.p, ents.n);
	}
	free(words.p);
	free(ents.p);
	free(a.pts);
	free(c);
	return rc;
}

/* The mapped files of a generation (storage_sums_open()). */
struct storage_sums {
	struct map m[STORAGE_PARTITIONS];
	uint64_t n_words[STORAGE_PARTITIONS];
};

/* Partition pn's file from its postings: 0 or -1 (why). */
static int write_part(const struct storage *st, const char *gen_dir, unsigned pn,
		      struct bytes *data, struct buf *why)
{
	struct binfile f;
	unsigned char h[HDR] = { 0 };
	uint64_t n_words;
	char *path = xasprintf("%s/%02uw/sitesum", gen_dir, pn);
	int rc = part_sums(st, pn, data, &n_words, why);

	if (!rc && binfile_create(&f, path)) {
		rc = error_into(why, "%s: cannot create", path);
	} else if (!rc) {
		storage_hdr_pack(h, F_SITESUM, pn, n_words,
				 data->n ? binfile_crc_update(0, data->p, data->n) : 0);
		if (binfile_write(&f, h, HDR) || (data->n && binfile_write(&f, data->p, data->n))) {
			binfile_abort(&f);
			rc = error_into(why, "%s: cannot write", path);
		} else if (binfile_commit(&f)) {
			rc = error_into(why, "%s: cannot write", path);
		}
	}
	free(path);
	return rc;
}

/* Partition pn's file against what write_part() would write: 0, or -1
 * (why) when it differs.  Postings or docinfo that cannot be read are not
 * reported here: their own files are. */
static int verify_part(const struct storage *st, const struct storage_sums *s,
		       const char *gen_dir, unsigned pn, struct bytes *data, struct buf *why)
{
	const struct map *m = &s->m[pn];
	struct buf skip = BUF_INIT(1024);
	uint64_t nw;
	int rc = 0;

	if (binfile_crc_update(0, m->data, m->len) != m->crc)
		rc = error_into(why, "%s/%02uw/sitesum: offset 24: data crc mismatch: bytes %d..%zu "
				"are not what was written", gen_dir, pn, HDR, m->size);
	else if (part_sums(st, pn, data, &nw, &skip) == 0 &&
		 (nw != m->count || data->n != m->len ||
		  (data->n && memcmp(data->p, m->data, m->len))))
		rc = error_into(why, "%s/%02uw/sitesum: offset %d: the summaries are not those of "
				"the partition's postings and docinfo", gen_dir, pn, HDR);
	buf_free(&skip);
	return rc;
}

/* The partitions shared by two threads (a merge's rank 0 has the cores to
 * itself by then; each partition is read and written on its own): the
 * first problem stops both. */
struct parts_job {
	const char *gen_dir;
	const struct storage *st;
	const struct storage_sums *have; /* verify against these; NULL: write */
	atomic_uint next;
	pthread_mutex_t mu;
	int rc;
	struct buf *err;
};

static void *parts_worker(void *arg)
{
	struct parts_job *j = arg;
	struct bytes data = { 0 };
	struct buf why = BUF_INIT(1024);
	unsigned pn;

	while ((pn = atomic_fetch_add(&j->next, 1)) < STORAGE_PARTITIONS) {
		int rc;

		buf_reset(&why);
		rc = j->have ? verify_part(j->st, j->have, j->gen_dir, pn, &data, &why)
			     : write_part(j->st, j->gen_dir, pn, &data, &why);
		storage_release_part(j->st, pn);
		if (rc) {
			pthread_mutex_lock(&j->mu);
			if (!j->rc) {
				j->rc = -1;
				buf_printf(j->err, "%s", buf_str(&why));
			}
			pthread_mutex_unlock(&j->mu);
			atomic_store(&j->next, STORAGE_PARTITIONS);
		}
	}
	free(data.p);
	buf_free(&why);
	return NULL;
}

static int run_parts(struct parts_job *j)
{
	sigset_t all, old;
	pthread_t th;
	int e;

	atomic_init(&j->next, 0);
	pthread_mutex_init(&j->mu, NULL);
	/* Signals stay with the calling thread (the stop handlers, MPI's). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&th, NULL, parts_worker, j);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	parts_worker(j);
	if (!e)
		pthread_join(th, NULL);
	pthread_mutex_destroy(&j->mu);
	return j->rc;
}

int storage_sums_write(const char *gen_dir, struct buf *err)
{
	struct storage *st = NULL;
	struct parts_job j = { .gen_dir = gen_dir, .err = err };
	int rc = storage_open_dir(gen_dir, &st, err);

	if (!rc) {
		j.st = st;
		rc = run_parts(&j);
	}
	storage_close(st);
	return rc;
}

/* ---- reading ------------------------------------------------------------- */

/* The shape of a mapped file: the words table (ids ascending, each word's
 * first summary where the one before ends) fills it with the entries.
 * 0, or -1 with "path: offset N: what" in err. */
static int shape(const struct map *m, const char *path, uint64_t *n_words, struct buf *err)
{
	uint64_t nw = m->count, next = 0;
	uint32_t prev = 0;

	if (nw > m->len / SUM_WORD)
		return error_into(err, "%s: offset 16: %" PRIu64 " words do not fit %zu bytes", path,
				  nw, m->len);
	for (uint64_t i = 0; i < nw; i++) {
		const unsigned char *w = m->data + i * SUM_WORD;

		if ((i && le_get32(w) <= prev) || le_get64(w + 8) != next)
			return error_into(err, "%s: offset %" PRIu64 ": word %" PRIu64
					  " is out of order or its summaries do not follow the last",
					  path, HDR + i * SUM_WORD, i);
		prev = le_get32(w);
		next += le_get32(w + 4);
	}
	if ((m->len - nw * SUM_WORD) / SUM_ENTRY != next || (m->len - nw * SUM_WORD) % SUM_ENTRY)
		return error_into(err, "%s: offset 16: %" PRIu64 " summaries do not fill %zu bytes",
				  path, next, m->len - nw * SUM_WORD);
	*n_words = nw;
	return 0;
}

int storage_sums_open(const char *gen_dir, struct storage_sums **out, struct buf *err)
{
	struct storage_sums *s = xcalloc(1, sizeof(*s));
	int rc = 0;

	*out = NULL;
	for (unsigned pn = 0; pn < STORAGE_PARTITIONS && !rc; pn++) {
		char *path = xasprintf("%s/%02uw/sitesum", gen_dir, pn);

		if (pn == 0 && access(path, F_OK) < 0 && errno == ENOENT) {
			free(path);
			free(s);
			return 0;
		}
		rc = storage_map_file(path, F_SITESUM, pn, STORAGE_FORMAT_VERSION, &s->m[pn], err);
		if (!rc)
			rc = shape(&s->m[pn], path, &s->n_words[pn], err);
		free(path);
	}
	if (rc) {
		storage_sums_close(s);
		return -1;
	}
	*out = s;
	return 1;
}

void storage_sums_close(struct storage_sums *s)
{
	if (!s)
		return;
	for (unsigned pn = 0; pn < STORAGE_PARTITIONS; pn++)
		storage_map_free(&s->m[pn]);
	free(s);
}

int storage_sum_word(const struct storage_sums *s, uint32_t word_id, struct storage_sum_cursor *c)
{
	unsigned pn = word_id % STORAGE_PARTITIONS;
	uint32_t k = word_id / STORAGE_PARTITIONS;
	const struct map *m = &s->m[pn];
	uint64_t lo = 0, hi = s->n_words[pn];

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		uint32_t at = le_get32(m->data + mid * SUM_WORD);

		if (at == k) {
			const unsigned char *w = m->data + mid * SUM_WORD;
			const unsigned char *e = m->data + s->n_words[pn] * SUM_WORD;

			c->e = e + le_get64(w + 8) * SUM_ENTRY;
			c->end = c->e + (size_t)le_get32(w + 4) * SUM_ENTRY;
			return 1;
		}
		if (at < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

int storage_sum_site(struct storage_sum_cursor *c, uint32_t site, struct storage_sum *out)
{
	const unsigned char *e;

	while (c->e < c->end && le_get32(c->e) < site)
		c->e += SUM_ENTRY;
	if (c->e >= c->end || le_get32(c->e) != site)
		return 0;
	e = c->e;
	out->site_id = site;
	out->n_docs = le_get32(e + 4);
	out->min_url = le_get32(e + 8);
	out->n_hull = e[12];
	out->sec_mask = e[13];
	out->title_len = le_get16(e + 14);
	for (int i = 0; i < STORAGE_SUM_HULL; i++) {
		out->hull_n[i] = le_get16(e + 16 + 4 * i);
		out->hull_len[i] = le_get16(e + 18 + 4 * i);
	}
	for (int i = 0; i < STORAGE_SECTIONS; i++) {
		out->sec_n[i] = le_get16(e + 36 + 4 * i);
		out->sec_len[i] = le_get16(e + 38 + 4 * i);
	}
	/* A hull longer than the entry holds is a damaged entry: no summary. */
	return out->n_hull <= STORAGE_SUM_HULL && !(out->sec_mask & 0xf0);
}

/* ---- verifying ----------------------------------------------------------- */

int storage_sums_verify(const char *gen_dir, struct buf *err)
{
	struct storage_sums *s = NULL;
	struct storage *st = NULL;
	struct buf why = BUF_INIT(1024);
	struct parts_job j = { .gen_dir = gen_dir, .err = err };
	int rc = storage_sums_open(gen_dir, &s, err);

	if (rc <= 0)
		return rc;
	/* A generation that does not open: its own files report the damage. */
	if (!storage_open_dir(gen_dir, &st, &why)) {
		j.st = st;
		j.have = s;
		if (run_parts(&j))
			rc = -1;
	}
	buf_free(&why);
	storage_close(st);
	storage_sums_close(s);
	return rc;
}
