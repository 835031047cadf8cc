/* search_rt.c - the real-time index in searchd (include/rt.h; doc/SEARCH.md,
 * "Real-time index"): DataDir/index/rt read into memory, and what a query
 * does with it.  A URL the real-time index holds is answered from it alone:
 * its postings in the live generation are dropped from every word the
 * query loads and its own added (a DEL drops them only), and its document
 * facts (site, section lengths, last-modified) come from it.  Collection
 * statistics (N, average lengths) stay the live generation's: a few
 * hundred pages barely move them.  The reload thread loads it
 * (searchd_reload.c); nothing here knows the daemon.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "delta.h"
#include "search.h"
#include "storage.h"
#include "tokenize.h"
#include "util.h"
#include "search_int.h"

/* A URL the real-time index holds: its facts, site_id 0 for a DEL. */
struct rt_doc {
	uint32_t url_id;
	struct storage_doc d;
};

/* One (word, document) pair: the word's bytes in the pool, the document's
 * key (site << 32 | url) and its positions in the positions array. */
struct rt_post {
	uint32_t word, len;          /* pool offset, bytes */
	uint64_t key;
	uint32_t pos, npos;
};

struct search_rt {
	int refs;                    /* __atomic */
	struct rt_doc *docs;         /* by url_id */
	size_t n_docs;
	struct rt_post *posts;       /* by word bytes, then key */
	size_t n_posts;
	char *pool;
	tok_pos_t *pos;
};

static int cmp_doc(const void *a, const void *b)
{
	uint32_t x = ((const struct rt_doc *)a)->url_id, y = ((const struct rt_doc *)b)->url_id;

	return x < y ? -1 : x > y;
}

static int cmp_post_in(const struct search_rt *rt, const struct rt_post *x, const struct rt_post *y)
{
	int c = delta_wordcmp(rt->pool + x->word, x->len, rt->pool + y->word, y->len);

	if (c)
		return c;
	return x->key < y->key ? -1 : x->key > y->key;
}

static void rt_free(struct search_rt *rt)
{
	if (!rt)
		return;
	free(rt->docs);
	free(rt->posts);
	free(rt->pool);
	free(rt->pos);
	free(rt);
}

/* Grow-only arrays of the loader. */
struct rt_load {
	struct search_rt *rt;
	size_t docs_cap, posts_cap, pool_len, pool_cap, pos_len, pos_cap;
};

static void add_doc(struct rt_load *L, const struct delta_rec *rec)
{
	struct search_rt *rt = L->rt;
	struct rt_doc *d;

	if (rt->n_docs == L->docs_cap) {
		L->docs_cap = L->docs_cap ? 2 * L->docs_cap : 64;
		rt->docs = xrealloc(rt->docs, L->docs_cap * sizeof(*rt->docs));
	}
	d = &rt->docs[rt->n_docs++];
	memset(d, 0, sizeof(*d));
	d->url_id = rec->url_id;
	if (rec->type != DELTA_DOC)
		return;
	d->d.site_id = rec->site_id;
	for (uint32_t i = 0; i < rec->n_words; i++) {
		const struct delta_word *w = &rec->words[i];
		struct rt_post *p;

		for (uint32_t k = 0; k < w->n_pos; k++) {
			int s = tok_pos_section(w->pos[k]);
			uint32_t at = tok_pos_position(w->pos[k]) + 1;

			/* docinfo's lengths saturate at 65535, as the merge's */
			if (at > UINT16_MAX)
				at = UINT16_MAX;
			if (s < STORAGE_SECTIONS && at > d->d.len[s])
				d->d.len[s] = (uint16_t)at;
		}
		if (rt->n_posts == L->posts_cap) {
			L->posts_cap = L->posts_cap ? 2 * L->posts_cap : 256;
			rt->posts = xrealloc(rt->posts, L->posts_cap * sizeof(*rt->posts));
		}
		while (L->pool_len + w->len > L->pool_cap) {
			L->pool_cap = L->pool_cap ? 2 * L->pool_cap : 4096;
			rt->pool = xrealloc(rt->pool, L->pool_cap);
		}
		while (L->pos_len + w->n_pos > L->pos_cap) {
			L->pos_cap = L->pos_cap ? 2 * L->pos_cap : 1024;
			rt->pos = xrealloc(rt->pos, L->pos_cap * sizeof(*rt->pos));
		}
		p = &rt->posts[rt->n_posts++];
		p->word = (uint32_t)L->pool_len;
		p->len = (uint32_t)w->len;
		p->key = (uint64_t)rec->site_id << 32 | rec->url_id;
		p->pos = (uint32_t)L->pos_len;
		p->npos = w->n_pos;
		memcpy(rt->pool + L->pool_len, w->word, w->len);
		L->pool_len += w->len;
		memcpy(rt->pos + L->pos_len, w->pos, w->n_pos * sizeof(*w->pos));
		L->pos_len += w->n_pos;
	}
}

/* The postings of rt in order.  A merge sort through an index array keeps
 * qsort's missing context out of the way. */
static void sort_posts(struct search_rt *rt)
{
	size_t n = rt->n_posts;
	struct rt_post *tmp;

	if (n < 2)
		return;
	tmp = xmalloc(n * sizeof(*tmp));
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				tmp[k++] = cmp_post_in(rt, &rt->posts[j], &rt->posts[i]) < 0 ?
						   rt->posts[j++] : rt->posts[i++];
			while (i < mid)
				tmp[k++] = rt->posts[i++];
			while (j < hi)
				tmp[k++] = rt->posts[j++];
		}
		memcpy(rt->posts, tmp, n * sizeof(*tmp));
	}
	free(tmp);
}

int search_rt_open(const char *path, struct search_rt **out, struct buf *err)
{
	struct search_rt *rt = xcalloc(1, sizeof(*rt));
	struct rt_load L = { rt, 0, 0, 0, 0, 0, 0 };
	struct delta_reader *r = delta_reader_open(path, err);
	struct delta_rec rec;
	int k;

	*out = NULL;
	if (!r) {
		rt_free(rt);
		return -1;
	}
	while ((k = delta_next(r, &rec)) == 1) {
		if (rec.type == DELTA_DOC || rec.type == DELTA_DEL)
			add_doc(&L, &rec);
		else if (rec.type == DELTA_LASTMOD && rt->n_docs &&
			 rt->docs[rt->n_docs - 1].url_id == rec.url_id)
			rt->docs[rt->n_docs - 1].d.last_modified = rec.time;
	}
	if (k < 0 || delta_reader_torn(r) >= 0) {
		if (err)
			buf_printf(err, "%s", delta_reader_msg(r));
		delta_reader_close(r);
		rt_free(rt);
		return -1;
	}
	delta_reader_close(r);
	if (rt->n_docs) /* qsort() wants a non-NULL base even for no element */
		qsort(rt->docs, rt->n_docs, sizeof(*rt->docs), cmp_doc);
	sort_posts(rt);
	rt->refs = 1;
	*out = rt;
	return 0;
}

void search_rt_ref(struct search_rt *rt)
{
	__atomic_add_fetch(&rt->refs, 1, __ATOMIC_RELAXED);
}

void search_rt_unref(struct search_rt *rt)
{
	if (rt && __atomic_sub_fetch(&rt->refs, 1, __ATOMIC_ACQ_REL) == 0)
		rt_free(rt);
}

size_t search_rt_urls(const struct search_rt *rt)
{
	return rt ? rt->n_docs : 0;
}

const struct storage_doc *run_rt_doc(const struct search_rt *rt, uint32_t url_id)
{
	size_t lo = 0, hi = rt->n_docs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rt->docs[mid].url_id < url_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < rt->n_docs && rt->docs[lo].url_id == url_id ? &rt->docs[lo].d : NULL;
}

/* The first posting of word (len bytes) in rt. */
static size_t first_post(const struct search_rt *rt, const char *word, size_t len)
{
	size_t lo = 0, hi = rt->n_posts;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct rt_post *p = &rt->posts[mid];

		if (delta_wordcmp(rt->pool + p->word, p->len, word, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void out_doc(struct plist *m, uint64_t key)
{
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 64;
		m->key = xrealloc(m->key, m->cap * sizeof(*m->key));
		m->end = xrealloc(m->end, m->cap * sizeof(*m->end));
	}
	m->key[m->n++] = key;
}

static void out_pos(struct plist *m, tok_pos_t v)
{
	if (m->npos == m->poscap) {
		m->poscap = m->poscap ? 2 * m->poscap : 256;
		m->pos = xrealloc(m->pos, m->poscap * sizeof(*m->pos));
	}
	m->pos[m->npos++] = v;
}

/* The real-time postings of the leaf's words (a wildcard's expansion
 * included) as a plist, positions of the sections of mask only. */
static void rt_plist(const struct search_rt *rt, const struct leaf *l, struct plist *out)
{
	struct plist acc = { 0 };

	for (size_t w = 0; w < l->n_words; w++) {
		size_t len = strlen(l->words[w]);
		struct plist m = { 0 };
		size_t i = 0;

		for (size_t k = first_post(rt, l->words[w], len); k < rt->n_posts; k++) {
			const struct rt_post *p = &rt->posts[k];
			size_t start = m.npos;

			if (delta_wordcmp(rt->pool + p->word, p->len, l->words[w], len))
				break;
			/* Merged with the documents of the previous words. */
			while (i < acc.n && acc.key[i] < p->key) {
				uint32_t n;
				const tok_pos_t *v = plist_pos(&acc, i, &n);

				out_doc(&m, acc.key[i++]);
				for (uint32_t x = 0; x < n; x++)
					out_pos(&m, v[x]);
				m.end[m.n - 1] = (uint32_t)m.npos;
			}
			for (uint32_t x = 0; x < p->npos; x++)
				if ((l->mask >> tok_pos_section(rt->pos[p->pos + x])) & 1)
					out_pos(&m, rt->pos[p->pos + x]);
			if (i < acc.n && acc.key[i] == p->key) {
				/* Two words of a wildcard in one document: positions
				 * merged in order. */
				uint32_t n;
				const tok_pos_t *v = plist_pos(&acc, i++, &n);

				for (uint32_t x = 0; x < n; x++)
					out_pos(&m, v[x]);
				if (m.npos > start) {
					tok_pos_t *s = m.pos + start;
					size_t c = m.npos - start, u = 0;

					for (size_t a = 1; a < c; a++)
						for (size_t b = a; b > 0 && s[b] < s[b - 1]; b--) {
							tok_pos_t t = s[b];
							s[b] = s[b - 1];
							s[b - 1] = t;
						}
					for (size_t a = 0; a < c; a++)
						if (!u || s[u - 1] != s[a])
							s[u++] = s[a];
					m.npos = start + u;
				}
			}
			if (m.npos > start) {
				out_doc(&m, p->key);
				m.end[m.n - 1] = (uint32_t)m.npos;
			}
		}
		while (i < acc.n) {
			uint32_t n;
			const tok_pos_t *v = plist_pos(&acc, i, &n);

			out_doc(&m, acc.key[i++]);
			for (uint32_t x = 0; x < n; x++)
				out_pos(&m, v[x]);
			m.end[m.n - 1] = (uint32_t)m.npos;
		}
		plist_free(&acc);
		acc = m;
	}
	*out = acc;
}

void run_rt_overlay(struct run *r, struct leaf *l)
{
	const struct search_rt *rt = r->rt;
	struct plist add, m = { 0 };
	size_t i = 0, j = 0;

	rt_plist(rt, l, &add);
	while (i < l->pl.n || j < add.n) {
		const struct plist *from;
		size_t at;
		uint32_t n;
		const tok_pos_t *v;

		if (j >= add.n || (i < l->pl.n && l->pl.key[i] < add.key[j])) {
			/* The live generation's copy of a URL the real-time
			 * index holds is out of date: dropped. */
			if (run_rt_doc(rt, (uint32_t)l->pl.key[i])) {
				i++;
				continue;
			}
			from = &l->pl;
			at = i++;
		} else {
			if (i < l->pl.n && l->pl.key[i] == add.key[j])
				i++;
			from = &add;
			at = j++;
		}
		v = plist_pos(from, at, &n);
		out_doc(&m, from->key[at]);
		for (uint32_t x = 0; x < n; x++)
			out_pos(&m, v[x]);
		m.end[m.n - 1] = (uint32_t)m.npos;
	}
	plist_free(&add);
	plist_free(&l->pl);
	l->pl = m;
}
