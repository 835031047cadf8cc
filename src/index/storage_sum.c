/* storage_sum.c - the site summaries of a generation (storage.h, "site
 * summaries"; doc/FORMATS.md, "NNw/sitesum"): NNw/sitesum, written
 * after the partitions and docinfo (a summary needs each document's
 * section lengths, which the partitions' writers do not have), read by
 * top-k pruning to pass over a site without visiting its documents, and
 * verified by storage_check() against what this file would write.  The
 * same pass writes and verifies the block summaries NNw/blocksum (their
 * reader: storage_block.c) and the skip entries NNw/skips (storage_skip.c).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binfile.h"
#include "buf.h"
#include "le.h"
#include "storage.h"
#include "storage_int.h"
#include "util.h"

_Static_assert(SUM_ENTRY == 4 + 4 + 4 + 1 + 1 + 2 + 4 * STORAGE_SUM_HULL +
				4 * STORAGE_SECTIONS + 4,
	       "sitesum entry layout");
_Static_assert(BLOCK_ENTRY == SUM_ENTRY + 8, "blocksum entry layout: a summary, off u32, window u32");

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

/* A block: its records' summary, with max_url in the summary's reserved
 * u32, then its offset and the first url_id of its window. */
static void block_pack(unsigned char *e, const struct storage_sum *s, uint32_t max_url,
		       uint32_t off, uint32_t win_lo)
{
	sum_pack(e, s);
	le_put32(e + 52, max_url);
	le_put32(e + 56, off);
	le_put32(e + 60, win_lo);
}

/* ---- the sites' windows --------------------------------------------------
 *
 * A site's documents (docinfo's, in url_id order) cut into windows of
 * STORAGE_BLOCK_DOCS: every word's blocks in the site are cut at the same
 * url_ids, so that a range of url_ids searchd bounds from one word's blocks
 * holds exactly one block of each other word (doc/FORMATS.md,
 * "NNw/blocksum"). */
struct windows {
	uint32_t n_sites;           /* distinct sites with documents */
	uint32_t *site;             /* their ids, ascending */
	uint64_t *first;            /* per site: its first window in start[]; n_sites + 1 */
	uint32_t *start;            /* each window's first url_id */
};

static void windows_free(struct windows *w)
{
	free(w->site);
	free(w->first);
	free(w->start);
	memset(w, 0, sizeof(*w));
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* The index of site in w->site[], or -1: a binary search, so that memory
 * follows the number of sites, not their largest id (a damaged docinfo can
 * name site 2^32 - 1). */
static int64_t windows_site(const struct windows *w, uint32_t site)
{
	const uint32_t *at = w->n_sites ? bsearch(&site, w->site, w->n_sites, sizeof(*w->site),
						   cmp_u32) : NULL;

	return at ? at - w->site : -1;
}

/* Two passes over docinfo: the documents' sites (sorted, then counted),
 * then the windows' first url_ids. */
static void windows_make(const struct storage *st, struct windows *w)
{
	uint32_t max = storage_max_url_id(st), *ids = NULL, *seen;
	size_t n = 0, cap = 0;

	memset(w, 0, sizeof(*w));
	for (uint32_t url = 1; url && url <= max; url++) {
		struct storage_doc d;

		if (storage_doc(st, url, &d) != 1)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			ids = xrealloc(ids, cap * sizeof(*ids));
		}
		ids[n++] = d.site_id;
	}
	if (n)
		qsort(ids, n, sizeof(*ids), cmp_u32);
	/* ids[] becomes the distinct sites, seen[] their document counts. */
	seen = xcalloc(n + 1, sizeof(*seen));
	for (size_t i = 0; i < n; i++) {
		if (!w->n_sites || ids[w->n_sites - 1] != ids[i])
			ids[w->n_sites++] = ids[i];
		seen[w->n_sites - 1]++;
	}
	w->site = ids;
	w->first = xcalloc((size_t)w->n_sites + 1, sizeof(*w->first));
	for (uint32_t s = 0; s < w->n_sites; s++) {
		w->first[s + 1] = w->first[s] + (seen[s] + STORAGE_BLOCK_DOCS - 1) / STORAGE_BLOCK_DOCS;
		seen[s] = 0;
	}
	w->start = xmalloc((w->first[w->n_sites] + 1) * sizeof(*w->start));
	for (uint32_t url = 1; url && url <= max; url++) {
		struct storage_doc d;
		int64_t k;

		if (storage_doc(st, url, &d) != 1 || (k = windows_site(w, d.site_id)) < 0)
			continue;
		if (seen[k] % STORAGE_BLOCK_DOCS == 0)
			w->start[w->first[k] + seen[k] / STORAGE_BLOCK_DOCS] = url;
		seen[k]++;
	}
	free(seen);
}

static void acc_reset(struct acc *a, uint32_t site)
{
	memset(&a->s, 0, sizeof(a->s));
	a->s.site_id = site;
	a->s.title_len = STORAGE_SUM_NO_TITLE;
	a->npts = 0;
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

/* One file being built: its words table and its entries. */
struct file_out {
	struct bytes words, ents;
};

/* The pass over a partition's summarized words (part_sums()). */
struct pass {
	const struct storage *st;
	const struct windows *win;
	struct storage_cursor *c;
	struct acc site, block;    /* the current site and its current block */
	uint32_t block_last;       /* the block's last url_id */
	uint64_t block_off;        /* its first record's offset in the site's */
	uint32_t block_win;        /* the first url_id of its window */
	struct file_out sum, blk;  /* NNw/sitesum, NNw/blocksum */
	struct file_out skp;       /* NNw/skips */
};

static void word_put(struct bytes *words, uint32_t word_id, uint64_t n, uint64_t first)
{
	unsigned char *w = bytes_room(words, SUM_WORD);

	le_put32(w, word_id / STORAGE_PARTITIONS);
	le_put32(w + 4, (uint32_t)n);
	le_put64(w + 8, first);
}

static void skip_put(struct pass *p, uint32_t site, uint32_t url, uint32_t off)
{
	unsigned char *e = bytes_room(&p->skp.ents, SKIP_ENTRY);

	le_put32(e, site);
	le_put32(e + 4, url);
	le_put32(e + 8, off);
}

static void block_flush(struct pass *p)
{
	sum_hull(&p->block);
	block_pack(bytes_room(&p->blk.ents, BLOCK_ENTRY), &p->block.s, p->block_last,
		   (uint32_t)p->block_off, p->block_win);
	acc_reset(&p->block, p->block.s.site_id);
}

/* Whether the site's blocks (from bmark) are kept: a site of more than
 * STORAGE_BLOCK records in two windows or more, STORAGE_BLOCK_FILL records
 * a block on average (a sparse word's blocks would cost more bytes than
 * its records). */
static bool blocks_pay(const struct pass *p, size_t bmark)
{
	size_t n = (p->blk.ents.n - bmark) / BLOCK_ENTRY;

	return n >= 2 && p->site.s.n_docs > STORAGE_BLOCK &&
	       (uint64_t)n * STORAGE_BLOCK_FILL <= p->site.s.n_docs;
}

/* The records of the current site into p->site, and into p->blk by the
 * site's windows when that pays (blocks_pay()): 0, 1 when a position is
 * outside the four sections, -1 on damage. */
static int site_sums(struct pass *p, uint32_t site)
{
	struct storage_cursor *c = p->c;
	size_t bmark = p->blk.ents.n, smark = p->skp.ents.n;
	const uint32_t *ws = NULL;
	uint32_t url, n, nw = 0, wi = 0;
	const uint8_t *pos;
	bool blocks = false;
	int64_t k;
	int rc;

	if (p->win && (k = windows_site(p->win, site)) >= 0) {
		ws = p->win->start + p->win->first[k];
		nw = (uint32_t)(p->win->first[k + 1] - p->win->first[k]);
		blocks = nw >= 2;
	}
	acc_reset(&p->site, site);
	acc_reset(&p->block, site);
	/* Only a record's count and its first and last positions matter:
	 * read in place, the others not decoded. */
	for (uint64_t i = 0;; i++) {
		uint64_t off = (uint64_t)(c->urls - c->urls_site);
		struct storage_doc d;
		uint32_t hi;
		int lo;

		if ((rc = storage_skip_url(c, 0, &url, &n, &pos)) <= 0)
			break;
		if (i && i % STORAGE_SKIP == 0 && off <= UINT32_MAX)
			skip_put(p, site, url, (uint32_t)off);
		hi = storage_rec_pos(pos, n - 1) >> STORAGE_POS_SHIFT;
		if (hi >= STORAGE_SECTIONS)
			return 1;
		if (storage_doc(p->st, url, &d) != 1)
			return -1;
		lo = (int)(storage_rec_pos(pos, 0) >> STORAGE_POS_SHIFT);
		acc_add(&p->site, url, n, lo, (int)hi, &d);
		if (!blocks)
			continue;
		/* A record of another site's docinfo, or an offset past a u32:
		 * the site gets no blocks. */
		if (d.site_id != site || url < ws[0] || off > UINT32_MAX) {
			blocks = false;
			continue;
		}
		while (wi + 1 < nw && url >= ws[wi + 1])
			wi++;
		if (p->block.s.n_docs && ws[wi] != p->block_win)
			block_flush(p);
		if (!p->block.s.n_docs) {
			p->block_off = off;
			p->block_win = ws[wi];
		}
		acc_add(&p->block, url, n, lo, (int)hi, &d);
		p->block_last = url;
	}
	if (rc < 0)
		return -1;
	if (blocks && p->block.s.n_docs)
		block_flush(p);
	if (!blocks || !blocks_pay(p, bmark))
		p->blk.ents.n = bmark;
	if (p->site.s.n_docs < STORAGE_SKIP_MIN)
		p->skp.ents.n = smark;
	sum_hull(&p->site);
	sum_pack(bytes_room(&p->sum.ents, SUM_ENTRY), &p->site.s);
	return 0;
}

/* The summaries and blocks of word_id: 0, 1 when it gets none (positions
 * outside the four sections: its sites are visited), -1 on damage. */
static int word_sums(struct pass *p, uint32_t word_id, uint32_t n_sites)
{
	size_t mark = p->sum.ents.n, bmark = p->blk.ents.n, smark = p->skp.ents.n;
	uint32_t site;
	int rc;

	if (storage_postings(p->st, word_id, p->c) < 0)
		return -1;
	while ((rc = storage_next_site(p->c, &site)) > 0)
		if ((rc = site_sums(p, site)) != 0)
			break;
	if (rc > 0) {
		p->sum.ents.n = mark;
		p->blk.ents.n = bmark;
		p->skp.ents.n = smark;
		return 1;
	}
	if (rc < 0 || (p->sum.ents.n - mark) / SUM_ENTRY != n_sites)
		return -1;
	word_put(&p->sum.words, word_id, n_sites, mark / SUM_ENTRY);
	if (p->blk.ents.n > bmark)
		word_put(&p->blk.words, word_id, (p->blk.ents.n - bmark) / BLOCK_ENTRY,
			 bmark / BLOCK_ENTRY);
	if (p->skp.ents.n > smark)
		word_put(&p->skp.words, word_id, (p->skp.ents.n - smark) / SKIP_ENTRY,
			 smark / SKIP_ENTRY);
	return 0;
}

/* Whether word w gets summaries (and blocks and skip entries). */
static bool sum_wanted(const struct storage_word *w)
{
	return w->n_urls >= STORAGE_SUM_MIN_URLS &&
	       w->n_urls >= (uint64_t)STORAGE_SUM_PER_SITE * w->n_sites;
}

/* Whether some word of st gets summaries (or a word's entry cannot be
 * read: the pass reports it). */
static bool any_wanted(const struct storage *st)
{
	for (unsigned pn = 0; pn < STORAGE_PARTITIONS; pn++) {
		uint32_t nw = storage_part_words(st, pn);

		for (uint32_t k = 0; k < nw; k++) {
			struct storage_word w;

			if (storage_word_info(st, k * STORAGE_PARTITIONS + pn, &w) < 0 ||
			    sum_wanted(&w))
				return true;
		}
	}
	return false;
}

/* The files of partition pn (p's file_outs, emptied first): 0 or -1
 * (err). */
static int part_sums(const struct storage *st, unsigned pn, struct pass *p, struct buf *err)
{
	uint32_t nw = storage_part_words(st, pn);
	int rc = 0;

	p->st = st;
	p->sum.words.n = p->sum.ents.n = p->blk.words.n = p->blk.ents.n = 0;
	p->skp.words.n = p->skp.ents.n = 0;
	for (uint32_t k = 0; k < nw && !rc; k++) {
		uint32_t id = k * STORAGE_PARTITIONS + pn;
		struct storage_word w;

		if (storage_word_info(st, id, &w) < 0) {
			rc = -1;
			break;
		}
		if (!sum_wanted(&w))
			continue;
		rc = word_sums(p, id, w.n_sites);
		if (rc > 0)
			rc = 0;
	}
	if (rc)
		error_into(err, "%s/%02uw: the postings or docinfo are damaged: no site summaries",
			   storage_dir(st), pn);
	return rc;
}

static void pass_free(struct pass *p)
{
	free(p->c);
	free(p->site.pts);
	free(p->block.pts);
	free(p->sum.words.p);
	free(p->sum.ents.p);
	free(p->blk.words.p);
	free(p->blk.ents.p);
	free(p->skp.words.p);
	free(p->skp.ents.p);
}

/* The mapped files of a generation (storage_sums_open()). */
struct storage_sums {
	struct sum_files f;
};

static uint32_t file_crc(const struct file_out *o)
{
	return binfile_crc_update(binfile_crc_update(0, o->words.p, o->words.n), o->ents.p,
				  o->ents.n);
}

/* Partition pn's file of type from o: 0 or -1 (why). */
static int write_file(const char *gen_dir, unsigned pn, enum ftype type, const struct file_out *o,
		      struct buf *why)
{
	struct binfile f;
	unsigned char h[HDR];
	char *path = xasprintf("%s/%02uw/%s", gen_dir, pn, storage_fname[type]);
	int rc = 0;

	if (binfile_create(&f, path)) {
		rc = error_into(why, "%s: cannot create", path);
	} else {
		storage_hdr_pack(h, type, pn, o->words.n / SUM_WORD, file_crc(o));
		if (binfile_write(&f, h, HDR) || binfile_write(&f, o->words.p, o->words.n) ||
		    binfile_write(&f, o->ents.p, o->ents.n)) {
			binfile_abort(&f);
			rc = error_into(why, "%s: cannot write", path);
		} else if (binfile_commit(&f)) {
			rc = error_into(why, "%s: cannot write", path);
		}
	}
	free(path);
	return rc;
}

/* Partition pn's mapped file of type against o, what write_file() would
 * write: 0, or -1 (why) when it differs (o NULL: the data crc alone). */
static int verify_file(const char *gen_dir, unsigned pn, enum ftype type, const struct map *m,
		       const struct file_out *o, struct buf *why)
{
	const char *name = storage_fname[type];
	size_t nw = o ? o->words.n : 0;

	if (binfile_crc_update(0, m->data, m->len) != m->crc)
		return error_into(why, "%s/%02uw/%s: offset 24: data crc mismatch: bytes %d..%zu "
				  "are not what was written", gen_dir, pn, name, HDR, m->size);
	if (o && (nw / SUM_WORD != m->count || nw + o->ents.n != m->len ||
		  (nw && memcmp(o->words.p, m->data, nw)) ||
		  (o->ents.n && memcmp(o->ents.p, m->data + nw, o->ents.n))))
		return error_into(why, "%s/%02uw/%s: offset %d: the summaries are not those of "
				  "the partition's postings and docinfo", gen_dir, pn, name, HDR);
	return 0;
}

/* The partitions shared by two threads (a merge's rank 0 has the cores to
 * itself by then; each partition is read and written on its own): the
 * first problem stops both. */
struct parts_job {
	const char *gen_dir;
	const struct storage *st;
	struct windows win;
	bool verify;                     /* against these (either may be NULL); else write */
	const struct sum_files *sums, *blocks, *skips;
	atomic_uint next;
	pthread_mutex_t mu;
	int rc;
	struct buf *err;
};

/* Partition pn's files written or verified: 0 or -1 (why).  Postings or
 * docinfo that cannot be read are not reported by the verifier: their own
 * files are. */
static int do_part(struct parts_job *j, struct pass *p, unsigned pn, struct buf *why)
{
	struct buf skip = BUF_INIT(1024);
	int rc, ok;

	if (!j->verify) {
		rc = part_sums(j->st, pn, p, why);
		if (!rc)
			rc = write_file(j->gen_dir, pn, F_SITESUM, &p->sum, why);
		if (!rc)
			rc = write_file(j->gen_dir, pn, F_BLOCKSUM, &p->blk, why);
		if (!rc)
			rc = write_file(j->gen_dir, pn, F_SKIPS, &p->skp, why);
		return rc;
	}
	ok = part_sums(j->st, pn, p, &skip) == 0;
	buf_free(&skip);
	rc = j->sums ? verify_file(j->gen_dir, pn, F_SITESUM, &j->sums->m[pn], ok ? &p->sum : NULL,
				   why) : 0;
	if (!rc && j->blocks)
		rc = verify_file(j->gen_dir, pn, F_BLOCKSUM, &j->blocks->m[pn], ok ? &p->blk : NULL,
				 why);
	if (!rc && j->skips)
		rc = verify_file(j->gen_dir, pn, F_SKIPS, &j->skips->m[pn], ok ? &p->skp : NULL,
				 why);
	return rc;
}

static void *parts_worker(void *arg)
{
	struct parts_job *j = arg;
	struct pass p = { .c = xmalloc(sizeof(*p.c)), .win = &j->win };
	struct buf why = BUF_INIT(1024);
	unsigned pn;

	while ((pn = atomic_fetch_add(&j->next, 1)) < STORAGE_PARTITIONS) {
		int rc;

		buf_reset(&why);
		rc = do_part(j, &p, pn, &why);
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
	pass_free(&p);
	buf_free(&why);
	return NULL;
}
static int run_parts(struct parts_job *j)
{
	pthread_t th;
	int e;

	atomic_init(&j->next, 0);
	pthread_mutex_init(&j->mu, NULL);
	windows_make(j->st, &j->win);
	e = thread_start(&th, parts_worker, j);
	parts_worker(j);
	if (!e)
		pthread_join(th, NULL);
	pthread_mutex_destroy(&j->mu);
	windows_free(&j->win);
	return j->rc;
}

int storage_sums_write(const char *gen_dir, struct buf *err)
{
	struct storage *st = NULL;
	struct parts_job j = { .gen_dir = gen_dir, .err = err };
	int rc = storage_open_dir(gen_dir, &st, err);

	/* A generation none of whose words would get any (a small one) gets
	 * no files, rather than three hundred empty ones: read as none. */
	if (!rc && any_wanted(st)) {
		j.st = st;
		rc = run_parts(&j);
	}
	storage_close(st);
	return rc;
}

/* ---- reading ------------------------------------------------------------- */

/* The shape of a mapped file: the words table (ids ascending, each word's
 * first entry where the one before ends) fills it with the entries of
 * `entry` bytes.  0, or -1 with "path: offset N: what" in err. */
static int shape(const struct map *m, const char *path, size_t entry, uint64_t *n_words,
		 struct buf *err)
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
	if ((m->len - nw * SUM_WORD) / entry != next || (m->len - nw * SUM_WORD) % entry)
		return error_into(err, "%s: offset 16: %" PRIu64 " summaries do not fill %zu bytes",
				  path, next, m->len - nw * SUM_WORD);
	*n_words = nw;
	return 0;
}

/* Whether path is a blocksum file of the first format (blocks of 32
 * records, before windows): read as none, as a generation written before
 * block summaries is (doc/FORMATS.md, "NNw/blocksum"). */
static bool first_blocks(const char *path)
{
	static const unsigned char first[8] = { 'M', 'P', 'S', 'B', 'L', 'K', 0, 1 };
	unsigned char h[8];
	FILE *fp = fopen(path, "rb");
	bool old = fp && fread(h, 1, sizeof(h), fp) == sizeof(h) && !memcmp(h, first, sizeof(h));

	if (fp)
		fclose(fp);
	return old;
}

int storage_sum_files_open(const char *gen_dir, enum ftype type, size_t entry,
			   struct sum_files *f, struct buf *err)
{
	int rc = 0;

	memset(f, 0, sizeof(*f));
	for (unsigned pn = 0; pn < STORAGE_PARTITIONS && !rc; pn++) {
		char *path = xasprintf("%s/%02uw/%s", gen_dir, pn, storage_fname[type]);

		if (pn == 0 && ((access(path, F_OK) < 0 && errno == ENOENT) ||
				(type == F_BLOCKSUM && first_blocks(path)))) {
			free(path);
			return 0;
		}
		rc = storage_map_file(path, type, pn, STORAGE_FORMAT_VERSION, &f->m[pn], err);
		if (!rc)
			rc = shape(&f->m[pn], path, entry, &f->n_words[pn], err);
		free(path);
	}
	if (rc) {
		storage_sum_files_close(f);
		return -1;
	}
	return 1;
}

void storage_sum_files_close(struct sum_files *f)
{
	for (unsigned pn = 0; pn < STORAGE_PARTITIONS; pn++)
		storage_map_free(&f->m[pn]);
}

int storage_sum_files_word(const struct sum_files *f, uint32_t word_id, size_t entry,
			   const unsigned char **e, const unsigned char **end)
{
	unsigned pn = word_id % STORAGE_PARTITIONS;
	uint32_t k = word_id / STORAGE_PARTITIONS;
	const struct map *m = &f->m[pn];
	uint64_t lo = 0, hi = f->n_words[pn];

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		const unsigned char *w = m->data + mid * SUM_WORD;
		uint32_t at = le_get32(w);

		if (at == k) {
			*e = m->data + f->n_words[pn] * SUM_WORD + le_get64(w + 8) * entry;
			*end = *e + (size_t)le_get32(w + 4) * entry;
			return 1;
		}
		if (at < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

int storage_sums_open(const char *gen_dir, struct storage_sums **out, struct buf *err)
{
	struct storage_sums *s = xmalloc(sizeof(*s));
	int rc = storage_sum_files_open(gen_dir, F_SITESUM, SUM_ENTRY, &s->f, err);

	*out = rc > 0 ? s : NULL;
	if (rc <= 0)
		free(s);
	return rc;
}

void storage_sums_close(struct storage_sums *s)
{
	if (!s)
		return;
	storage_sum_files_close(&s->f);
	free(s);
}

int storage_sum_word(const struct storage_sums *s, uint32_t word_id, struct storage_sum_cursor *c)
{
	return storage_sum_files_word(&s->f, word_id, SUM_ENTRY, &c->e, &c->end);
}

int storage_sum_unpack(const unsigned char *e, struct storage_sum *out)
{
	out->site_id = le_get32(e);
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
	return !storage_sum_bad(e);
}

int storage_sum_site(struct storage_sum_cursor *c, uint32_t site, struct storage_sum *out)
{
	c->e = storage_gallop(c->e, c->end, SUM_ENTRY, site);
	if (c->e >= c->end || le_get32(c->e) != site)
		return 0;
	/* A hull longer than the entry holds is a damaged entry: no summary. */
	return storage_sum_unpack(c->e, out);
}

/* ---- verifying ----------------------------------------------------------- */

int storage_sums_verify(const char *gen_dir, struct buf *err)
{
	struct storage_sums *s = NULL;
	struct storage_blocks *b = NULL;
	struct storage_skips *k = NULL;
	struct storage *st = NULL;
	struct buf why = BUF_INIT(1024);
	struct parts_job j = { .gen_dir = gen_dir, .err = err, .verify = true };
	int rs = storage_sums_open(gen_dir, &s, err);
	int rb = rs < 0 ? 0 : storage_blocks_open(gen_dir, &b, err);
	int rk = rs < 0 || rb < 0 ? 0 : storage_skips_open(gen_dir, &k, err);
	int rc = rs < 0 || rb < 0 || rk < 0 ? -1 : rs || rb || rk;

	/* A generation that does not open: its own files report the damage. */
	if (rc > 0 && !storage_open_dir(gen_dir, &st, &why)) {
		j.st = st;
		j.sums = s ? &s->f : NULL;
		j.blocks = b ? &b->f : NULL;
		j.skips = k ? &k->f : NULL;
		if (run_parts(&j))
			rc = -1;
	}
	buf_free(&why);
	storage_close(st);
	storage_skips_close(k);
	storage_blocks_close(b);
	storage_sums_close(s);
	return rc;
}
