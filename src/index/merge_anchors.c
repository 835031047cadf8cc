/* merge_anchors.c - the anchor postings of a new generation (doc/SEARCH.md,
 * "Anchor text"; doc/MERGE.md, step 3b): rank 0 reads the anchor text of
 * every live page's links from the database, sorts it by (target, source
 * site, source page) in runs of DeltaBufferSize, and turns each target's
 * anchors into postings under the anchor words of storage.h, at most
 * MaxAnchorWords words from one source site.  They are rebuilt whole at
 * every merge: the anchors table holds each source page's current links
 * only, so the anchors of a page that changed or left are gone with it.
 */
#include "config.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "db.h"
#include "delta.h"
#include "le.h"
#include "log.h"
#include "storage.h"
#include "tokenize.h"
#include "util.h"
#include "merge_int.h"

/* Positions left free between two anchors of a page: a phrase never joins
 * the end of one anchor to the start of the next. */
#define ANCHOR_GAP 4
/* Positions of anchor text a page takes at most (doc/SEARCH.md, "Anchor
 * text"): also bounds one word's positions, below what a posting holds. */
#define ANCHOR_MAX_POSITIONS 16383

/* One anchor: target u32, target site u32, source site u32, source u32,
 * text length u16, then the text. */
#define ANC_HEAD 18

static long anc_extra(const unsigned char *h)
{
	return le_get16(h + 16);
}

static int cmp_u32v(uint32_t a, uint32_t b)
{
	return a < b ? -1 : a > b;
}

static int anc_cmp(const unsigned char *a, const unsigned char *b)
{
	static const int at[] = { 0, 8, 12 };
	size_t la = le_get16(a + 16), lb = le_get16(b + 16);
	int c;

	for (size_t i = 0; i < ARRAY_SIZE(at); i++)
		if ((c = cmp_u32v(le_get32(a + at[i]), le_get32(b + at[i]))))
			return c;
	c = memcmp(a + ANC_HEAD, b + ANC_HEAD, la < lb ? la : lb);
	return c ? c : cmp_u32v((uint32_t)la, (uint32_t)lb);
}

/* The sort key (merge_int.h): target and source site, then the source;
 * the text decides between anchors of one source, through anc_cmp(). */
static bool anc_key(const unsigned char *a, uint64_t k[2])
{
	k[0] = (uint64_t)le_get32(a) << 32 | le_get32(a + 8);
	k[1] = (uint64_t)le_get32(a + 12) << 32;
	return false;
}

static const struct kind K_ANC = { .head = ANC_HEAD, .max = ANC_HEAD + 0xffff, .extra = anc_extra,
				   .cmp = anc_cmp, .key = anc_key };

struct aword {
	tok_pos_t pos;
	uint8_t len;
	char key[MAX_WORD_LEN];
};

/* The anchors being read and the target being built. */
struct anc {
	const struct conf *c;
	struct tokenizer *tok;
	struct sorter in;          /* the anchors, by (target, source site, source) */
	struct sorter *post;       /* the merge's postings */
	uint8_t *live;             /* bit per url_id: the page is in the index */
	size_t live_bytes;
	/* the target */
	uint32_t target, tsite, ssite;
	long site_words;           /* from ssite so far */
	struct tok_doc d;
	struct aword *w;
	size_t n, cap;
	/* totals */
	uint64_t links, targets, postings;
};

static bool is_live(const struct anc *a, uint32_t u)
{
	return (size_t)(u >> 3) < a->live_bytes && (a->live[u >> 3] >> (u & 7)) & 1;
}

static int on_node(void *arg, uint32_t u)
{
	struct anc *a = arg;

	if ((size_t)(u >> 3) >= a->live_bytes) {
		size_t n = ((size_t)(u >> 3) + 1) * 2;

		a->live = xrealloc(a->live, n);
		memset(a->live + a->live_bytes, 0, n - a->live_bytes);
		a->live_bytes = n;
	}
	a->live[u >> 3] |= (uint8_t)(1u << (u & 7));
	return 0;
}

/* One source page's row: its anchors to live pages other than itself. */
static int on_row(void *arg, uint32_t src, uint32_t ssite, const unsigned char *p, size_t len)
{
	struct anc *a = arg;

	for (size_t at = 0; at < len;) {
		uint32_t target, tsite;
		size_t tl;
		unsigned char *r;

		if (len - at < 10 || (tl = le_get16(p + at + 8)) > len - at - 10) {
			warning("merge: the anchors of url %u are damaged: the rest is skipped", src);
			return 0;
		}
		target = le_get32(p + at);
		tsite = le_get32(p + at + 4);
		if (target != src && tl && is_live(a, target)) {
			r = sorter_room(&a->in, ANC_HEAD + tl);
			if (!r)
				return -1;
			le_put32(r, target);
			le_put32(r + 4, tsite);
			le_put32(r + 8, ssite);
			le_put32(r + 12, src);
			le_put16(r + 16, (uint16_t)tl);
			memcpy(r + ANC_HEAD, p + at + 10, tl);
			a->links++;
		}
		at += 10 + tl;
	}
	return 0;
}

static int emit_word(const char *word, size_t len, tok_pos_t pos, bool stop, void *arg)
{
	struct anc *a = arg;
	struct aword *w;

	if (stop)
		return 0;
	if (a->site_words >= a->c->max_anchor_words ||
	    a->d.next[TOK_SECTION_BODY] > ANCHOR_MAX_POSITIONS)
		return 1;
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 256;
		a->w = xrealloc(a->w, a->cap * sizeof(*a->w));
	}
	w = &a->w[a->n++];
	w->pos = pos;
	w->len = (uint8_t)storage_anchor_key(word, len, w->key);
	a->site_words++;
	return 0;
}

static int cmp_aword(const void *x, const void *y)
{
	const struct aword *a = x, *b = y;
	int c = delta_wordcmp(a->key, a->len, b->key, b->len);

	return c ? c : cmp_u32v(a->pos, b->pos);
}

/* The postings of the target built so far into the merge's sorter. */
static int flush_target(struct anc *a)
{
	size_t i = 0;

	if (!a->n)
		return 0;
	qsort(a->w, a->n, sizeof(*a->w), cmp_aword);
	a->targets++;
	while (i < a->n) {
		size_t j = i + 1, np;
		unsigned char *p;

		while (j < a->n && a->w[j].len == a->w[i].len &&
		       !memcmp(a->w[j].key, a->w[i].key, a->w[i].len))
			j++;
		np = j - i;
		p = sorter_room(a->post, POST_FIXED + a->w[i].len + 4 * np);
		if (!p)
			return -1;
		p[0] = (unsigned char)storage_partition(a->w[i].key, a->w[i].len);
		p[1] = a->w[i].len;
		le_put32(p + 2, a->tsite);
		le_put32(p + 6, a->target);
		le_put16(p + 10, (uint16_t)np);
		memcpy(p + POST_FIXED, a->w[i].key, a->w[i].len);
		for (size_t k = 0; k < np; k++)
			le_put32(p + POST_FIXED + a->w[i].len + 4 * k, a->w[i + k].pos);
		a->postings++;
		i = j;
	}
	a->n = 0;
	return 0;
}

static int on_anchor(void *arg, const unsigned char *r)
{
	struct anc *a = arg;
	uint32_t target = le_get32(r), ssite = le_get32(r + 8);

	if (target != a->target) {
		if (flush_target(a))
			return -1;
		a->target = target;
		a->tsite = le_get32(r + 4);
		a->ssite = 0;
		a->site_words = 0;
		tok_doc_reset(&a->d);
	}
	if (ssite != a->ssite) {
		a->ssite = ssite;
		a->site_words = 0;
	}
	if (a->site_words >= a->c->max_anchor_words)
		return 0;
	if (a->d.next[TOK_SECTION_BODY])
		a->d.next[TOK_SECTION_BODY] += ANCHOR_GAP;
	tok_run(a->tok, &a->d, TOK_SECTION_BODY, (const char *)r + ANC_HEAD, le_get16(r + 16),
		emit_word, a);
	return 0;
}

static struct tokenizer *anchor_tokenizer(const struct conf *c)
{
	struct tokenizer *t = tok_new(c->min_word_length, c->max_word_length);

	for (size_t i = 0; i < c->n_stopword_files; i++)
		if (tok_load_stopwords(t, c->stopword_files[i])) {
			tok_free(t);
			return NULL;
		}
	return t;
}

int merge_anchors(const struct conf *c, struct db *db, const char *scratch, size_t cap,
		  struct sorter *post, int *rebuilt)
{
	struct anc a = { .c = c, .post = post, .target = 0 };
	double t0 = now_monotonic();
	int rc = 0;

	*rebuilt = 0;
	if (!db) {
		info("merge: no database: the anchor postings of the live generation are kept");
		return 0;
	}
	*rebuilt = 1;
	if (c->max_anchor_words <= 0)
		return 0;
	a.tok = anchor_tokenizer(c);
	if (!a.tok)
		return -1;
	sorter_init(&a.in, &K_ANC, scratch, "a", cap);
	/* The database is read whole before a posting is added: when it
	 * fails, the old anchor postings stay and the merge goes on. */
	if (db_graph_nodes(db, on_node, &a) || db_anchors_each(db, on_row, &a)) {
		warning("merge: the anchor text could not be read: the anchor postings of the "
			"live generation are kept");
		*rebuilt = 0;
		goto out;
	}
	rc = sorter_finish(&a.in);
	tok_doc_reset(&a.d);
	if (!rc)
		rc = merge_files(&K_ANC, a.in.runs, a.in.n_runs, on_anchor, &a);
	if (!rc)
		rc = flush_target(&a);
	info("merge: anchor text of %" PRIu64 " link(s): %" PRIu64 " posting(s) of %" PRIu64
	     " page(s) (%.2f s)", a.links, a.postings, a.targets, now_monotonic() - t0);
out:
	sorter_free(&a.in);
	tok_free(a.tok);
	free(a.live);
	free(a.w);
	return rc;
}
