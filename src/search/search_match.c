/* search_match.c - which documents answer a query (search_int.h): the
 * postings of its words read into memory (the words every answer must have
 * rarest first, the others only for the documents those have; wildcards
 * expanded through the dictionary), phrases checked position by position,
 * and the query tree evaluated into the set of matching keys.  It neither
 * ranks (search_score.c) nor reads the database (search_filter.c).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "conf.h"
#include "query.h"
#include "search.h"
#include "search_int.h"
#include "stems.h"
#include "storage.h"
#include "tokenize.h"
#include "util.h"

#define SEARCH_MAX_POSITIONS (1u << 26) /* positions one query may load (256 MiB) */
#define SEARCH_MAX_SCANNED   100000     /* dictionary words looked at per wildcard */

/* ---- phrases -------------------------------------------------------------------- */

/* Whether x is in v[0..n), looking from *c on (the values asked for grow
 * from call to call): galloping, then binary search; *c is left at the
 * first value >= x. */
static bool seek_pos(const tok_pos_t *v, uint32_t n, uint32_t *c, tok_pos_t x)
{
	uint32_t lo = *c, hi, step = 1;

	if (lo >= n || v[lo] >= x)
		return lo < n && v[lo] == x;
	hi = lo + 1;
	while (hi < n && v[hi] < x) {
		lo = hi;
		step *= 2;
		hi = n - lo > step ? lo + step : n;
	}
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	*c = lo;
	return lo < n && v[lo] == x;
}

uint32_t search_phrase_count(const tok_pos_t *const *pos, const uint32_t *n, const uint32_t *offs,
			     size_t k, uint32_t per_section[4])
{
	uint32_t total = 0, cur[QUERY_MAX_PHRASE] = { 0 };

	if (per_section)
		memset(per_section, 0, 4 * sizeof(uint32_t));
	if (k == 0)
		return 0;
	/* Word 0's positions ascend, and so does the place each other word
	 * must be at (section in the top bits): each list is walked once. */
	for (uint32_t j = 0; j < n[0]; j++) {
		unsigned sec = tok_pos_section(pos[0][j]), at = tok_pos_position(pos[0][j]);
		size_t i;

		/* A saturated position (the end of a long section) is not a place. */
		if (at >= MAX_POSITION && k > 1)
			continue;
		for (i = 1; i < k; i++) {
			unsigned want = at + offs[i] - offs[0];
			uint32_t from = 0, *c = i < QUERY_MAX_PHRASE ? &cur[i] : &from;

			if (want > MAX_POSITION ||
			    !seek_pos(pos[i], n[i], c, tok_pos_encode((int)sec, want)))
				break;
		}
		if (i == k) {
			total++;
			if (per_section)
				per_section[sec]++;
		}
	}
	return total;
}

/* ---- postings in memory --------------------------------------------------------- */

void plist_free(struct plist *p)
{
	free(p->key);
	free(p->end);
	free(p->pos);
	memset(p, 0, sizeof(*p));
}


enum { OP_AND, OP_OR, OP_SUB };

static struct kset kset_op(struct arena *ar, const struct kset *a, const struct kset *b, int op)
{
	struct kset r;
	size_t i = 0, j = 0, n = 0;
	size_t cap = op == OP_OR ? a->n + b->n : a->n;

	r.k = arena_alloc(ar, cap * sizeof(uint64_t));
	while (i < a->n && j < b->n) {
		if (a->k[i] < b->k[j]) {
			if (op != OP_AND)
				r.k[n++] = a->k[i];
			i++;
		} else if (a->k[i] > b->k[j]) {
			if (op == OP_OR)
				r.k[n++] = b->k[j];
			j++;
		} else {
			if (op != OP_SUB)
				r.k[n++] = a->k[i];
			i++;
			j++;
		}
	}
	if (op != OP_AND)
		while (i < a->n)
			r.k[n++] = a->k[i++];
	if (op == OP_OR)
		while (j < b->n)
			r.k[n++] = b->k[j++];
	r.n = n;
	return r;
}

/* ---- loading ----------------------------------------------------------------------- */

static void plist_push_doc(struct run *r, struct plist *p, uint64_t key)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 64;
		p->key = xrealloc(p->key, p->cap * sizeof(*p->key));
		p->end = xrealloc(p->end, p->cap * sizeof(*p->end));
	}
	p->key[p->n] = key;
	p->end[p->n] = (uint32_t)p->npos;
	p->n++;
	UNUSED(r);
}


/* Room for n more positions in p, doubling as pushing them one by one
 * would (each doubling counts against SEARCH_MAX_POSITIONS): 0, or -1 past
 * the position cap (run_fail() done). */
static int plist_reserve_pos(struct run *r, struct plist *p, size_t n)
{
	while (p->npos + n > p->poscap) {
		if (r->positions + p->poscap >= SEARCH_MAX_POSITIONS) {
			run_fail(r, "ER_TOOCOMPLEX",
			     "The query's words occur too often to search them all at once.");
			return -1;
		}
		r->positions += p->poscap ? p->poscap : 256;
		p->poscap = p->poscap ? 2 * p->poscap : 256;
		p->pos = xrealloc(p->pos, p->poscap * sizeof(*p->pos));
	}
	return 0;
}

static int plist_push_pos(struct run *r, struct plist *p, tok_pos_t v)
{
	if (p->npos == p->poscap && plist_reserve_pos(r, p, 1))
		return -1;
	p->pos[p->npos++] = v;
	return 0;
}

/* One document's positions pos[0..np) that are in a section of mask, and
 * the document itself when any is: 0, or -2 past the position cap.  All
 * sections (the usual mask): one copy, not a test and a push per
 * position. */
static int push_doc(struct run *r, struct plist *p, const tok_pos_t *pos, uint32_t np,
		    uint8_t mask, uint32_t site, uint32_t url)
{
	size_t start = p->npos;

	if (mask == 0xf) {
		if (plist_reserve_pos(r, p, np))
			return -2;
		memcpy(p->pos + p->npos, pos, np * sizeof(*pos));
		p->npos += np;
	} else {
		for (uint32_t i = 0; i < np; i++)
			if ((mask >> tok_pos_section(pos[i])) & 1)
				if (plist_push_pos(r, p, pos[i]))
					return -2;
	}
	if (p->npos > start) {
		plist_push_doc(r, p, (uint64_t)site << 32 | url);
		p->end[p->n - 1] = (uint32_t)p->npos;
	}
	return 0;
}

/* Load the postings of word_id into p, keeping positions in mask. */
static int load_word(struct run *r, uint32_t word_id, uint8_t mask, struct plist *p)
{
	struct storage_cursor *c = r->cur;
	uint32_t site, url, np;
	size_t seen = 0;
	int rc = storage_postings(r->ix->st, word_id, c);

	if (rc <= 0)
		return rc;
	while ((rc = storage_next_site(c, &site)) == 1) {
		while ((rc = storage_next_url(c, &url, &np)) == 1) {
			if (push_doc(r, p, c->pos, np, mask, site, url))
				return -2;
			if (++seen % 4096 == 0 && run_past_deadline(r))
				return -2;
		}
		if (rc < 0)
			break;
	}
	return rc < 0 ? -1 : 0;
}

/* Load the postings of word_id into p only for the documents of keys[0..nk)
 * (ascending): the other words of an AND are read by seeking, without
 * decoding the positions of documents the rarest word does not have. */
static int load_word_in(struct run *r, uint32_t word_id, uint8_t mask, const uint64_t *keys,
			size_t nk, struct plist *p)
{
	struct storage_cursor *c = r->cur;
	uint32_t site, url, np;
	size_t k = 0;
	int rc = storage_postings(r->ix->st, word_id, c);

	if (rc <= 0)
		return rc;
	while (k < nk && (rc = storage_next_site(c, &site)) == 1) {
		while (k < nk && (keys[k] >> 32) < site)
			k++;
		while (k < nk && (keys[k] >> 32) == site) {
			rc = storage_seek_url(c, (uint32_t)keys[k], &url, &np);
			if (rc < 0)
				return -1;
			if (rc == 0)
				break;
			/* The seek may land past the target, on a later key. */
			while (k < nk && (keys[k] >> 32) == site && (uint32_t)keys[k] < url)
				k++;
			if (k < nk && (keys[k] >> 32) == site && (uint32_t)keys[k] == url) {
				if (push_doc(r, p, c->pos, np, mask, site, url))
					return -2;
				k++;
			}
		}
		if (run_past_deadline(r))
			return -2;
	}
	return rc < 0 ? -1 : 0;
}

/* A plain word stands for itself alone. */
static void leaf_own_word(struct leaf *l)
{
	l->words = xmalloc(sizeof(char *));
	l->words[0] = xstrdup(l->node->word);
	l->n_words = 1;
}

/* a = a OR b, documents only: the documents of a word with forms or
 * anchor text (its l->pl), whose positions are read from xpl, fpl and apl;
 * every document of a has no positions. */
static void plist_union_keys(struct plist *a, const struct plist *b)
{
	size_t i = 0, j = 0, n = 0, cap = a->n + b->n;
	uint64_t *k = xmalloc((cap ? cap : 1) * sizeof(*k));

	while (i < a->n && j < b->n) {
		uint64_t x = a->key[i], y = b->key[j];

		k[n++] = x < y ? x : y;
		i += x <= y;
		j += y <= x;
	}
	if (i < a->n)
		memcpy(k + n, a->key + i, (a->n - i) * sizeof(*k));
	n += a->n - i;
	if (j < b->n)
		memcpy(k + n, b->key + j, (b->n - j) * sizeof(*k));
	n += b->n - j;
	plist_free(a);
	a->key = k;
	a->end = xcalloc(cap ? cap : 1, sizeof(*a->end));
	a->n = n;
	a->cap = cap ? cap : 1;
}

/* A word with anchor text (and no forms) ANDed with plain words: its own
 * and its anchor word's postings for the documents keys[0..nk) alone, the
 * ones the plain words all have; its idf counts what a whole read would
 * (the word's documents, or without any its anchor word's).  0, -1
 * (damage) or -2 (the position cap or the deadline, run_fail() done). */
static int drive_anchored(struct run *r, struct leaf *l, const uint64_t *keys, size_t nk)
{
	const char *word = l->node->word;
	char key[MAX_WORD_LEN];
	size_t kl = storage_anchor_key(word, strlen(word), key);
	struct storage_word own, anc;
	int rc = storage_word(r->ix->st, word, strlen(word), &own);

	if (rc < 0)
		return -1;
	if (rc == 0)
		own.n_urls = 0;
	if (storage_word(r->ix->st, key, kl, &anc) <= 0)
		return -1; /* leaf_anchored() found it */
	leaf_own_word(l);
	l->loaded = true;
	l->exact_df = own.n_urls;
	l->df = own.n_urls ? own.n_urls : anc.n_urls;
	rc = own.n_urls ? load_word_in(r, own.word_id, l->mask, keys, nk, &l->xpl) : 0;
	if (rc == 0)
		rc = load_word_in(r, anc.word_id, l->mask, keys, nk, &l->apl);
	if (rc)
		return rc;
	plist_union_keys(&l->pl, &l->xpl);
	plist_union_keys(&l->pl, &l->apl);
	return 0;
}

/* The leaf of kid k when it is a word with anchor text that can be read
 * for an AND's documents alone, else NULL. */
static struct leaf *anchored_kid(struct run *r, const struct qnode *k)
{
	struct leaf *l = k->type == Q_TERM ? &r->leaves[k->id] : NULL;

	return l && l->mask == 0xf && !l->loaded && !l->n_forms && l->anchored ? l : NULL;
}

/* Every such word of kids for the documents of prev: 0 or -1. */
static int drive_rest(struct run *r, struct qnode *const *kids, size_t nk,
		      const struct plist *prev)
{
	for (size_t i = 0; i < nk && !r->err_token; i++) {
		struct leaf *l = anchored_kid(r, kids[i]);

		if (l && drive_anchored(r, l, prev->key, prev->n) == -1)
			return -1;
	}
	return 0;
}

/* An AND of words that all have anchor text: the one with the fewest
 * documents (its own and its anchor word's) read whole, the others for
 * its documents.  0 or -1. */
static int drive_by_anchored(struct run *r, struct qnode *const *kids, size_t nk)
{
	struct leaf *best = NULL;
	uint64_t best_n = UINT64_MAX;

	for (size_t i = 0; i < nk; i++) {
		struct leaf *l = anchored_kid(r, kids[i]);
		char key[MAX_WORD_LEN];
		struct storage_word w;
		uint64_t n = 0;
		int rc;

		if (!l)
			continue;
		rc = storage_word(r->ix->st, l->node->word, strlen(l->node->word), &w);
		if (rc < 0)
			return -1;
		n += rc ? w.n_urls : 0;
		rc = storage_word(r->ix->st, key,
				  storage_anchor_key(l->node->word, strlen(l->node->word), key), &w);
		if (rc < 0)
			return -1;
		n += rc ? w.n_urls : 0;
		if (n < best_n) {
			best_n = n;
			best = l;
		}
	}
	if (!best)
		return 0;
	if (run_load_leaf(r, best))
		return -1;
	/* As a whole read counts it (load_leaves()). */
	best->loaded = true;
	best->df = best->exact_df ? best->exact_df : best->pl.n;
	if (r->err_token)
		return 0;
	return drive_rest(r, kids, nk, &best->pl);
}

struct driven {
	struct leaf *l;
	uint32_t word_id;
	uint64_t df;
};

static int cmp_driven(const void *a, const void *b)
{
	const struct driven *x = a, *y = b;
	return x->df < y->df ? -1 : x->df > y->df;
}

/* Words that must all be in every answer (the plain words of a root AND,
 * the words of a phrase that is the root or one of its ANDed parts), over
 * all sections: load the rarest whole, then each other only for the
 * documents all the rarer ones have.  Marks the leaves loaded; the rest are
 * loaded by run_load_leaf().  Returns 0 or -1 (damage). */
static int drive_group(struct run *r, struct qnode *const *kids, size_t nk)
{
	struct driven d[QUERY_MAX_NODES];
	size_t n = 0, n_anchored = 0;
	const struct plist *prev = NULL;
	bool none = false;

	for (size_t i = 0; i < nk && n < QUERY_MAX_NODES; i++) {
		const struct qnode *k = kids[i];
		struct storage_word w;
		struct leaf *l;
		int rc;

		if (k->type != Q_TERM)
			continue;
		l = &r->leaves[k->id];
		if (l->mask != 0xf || l->loaded || l->n_forms)
			continue;
		if (l->anchored) {
			n_anchored++;
			continue;
		}
		rc = storage_word(r->ix->st, k->word, strlen(k->word), &w);
		if (rc < 0)
			return -1;
		d[n].l = l;
		d[n].word_id = rc ? w.word_id : 0;
		d[n].df = rc ? w.n_urls : 0;
		if (d[n].df == 0)
			none = true;
		n++;
	}
	if (n == 0 && n_anchored >= 2)
		return drive_by_anchored(r, kids, nk);
	if (n < 2 && !(n == 1 && n_anchored))
		return 0;
	qsort(d, n, sizeof(d[0]), cmp_driven);
	for (size_t i = 0; i < n && !run_past_deadline(r); i++) {
		struct leaf *l = d[i].l;
		int rc = 0;

		leaf_own_word(l);
		l->loaded = true;
		l->df = d[i].df;
		/* A word no document has: nothing to read for the others. */
		if (none || (prev && prev->n == 0))
			continue;
		if (!prev)
			rc = load_word(r, d[i].word_id, l->mask, &l->pl);
		else
			rc = load_word_in(r, d[i].word_id, l->mask, prev->key, prev->n, &l->pl);
		if (rc == -1)
			return -1;
		prev = &l->pl;
	}
	/* Then the words with anchor text, for the plain words' documents. */
	return prev && !none ? drive_rest(r, kids, nk, prev) : 0;
}

int run_load_driven(struct run *r)
{
	struct qnode *root = r->q.root;

	/* Every leaf whole: the real-time index is merged into each. */
	if (r->rt)
		return 0;
	if (root->type == Q_PHRASE)
		return drive_group(r, root->kids, root->n_kids);
	if (root->type != Q_AND)
		return 0;
	if (drive_group(r, root->kids, root->n_kids))
		return -1;
	for (size_t i = 0; i < root->n_kids; i++)
		if (root->kids[i]->type == Q_PHRASE &&
		    drive_group(r, root->kids[i]->kids, root->kids[i]->n_kids))
			return -1;
	return 0;
}

/* a = a OR b, positions merged. */
static int plist_union(struct run *r, struct plist *a, struct plist *b)
{
	struct plist m = { 0 };
	size_t i = 0, j = 0;

	while (i < a->n || j < b->n) {
		uint64_t k;
		const tok_pos_t *pa = NULL, *pb = NULL;
		uint32_t na = 0, nb = 0, x = 0, y = 0;

		if (j >= b->n || (i < a->n && a->key[i] < b->key[j])) {
			k = a->key[i];
			pa = plist_pos(a, i++, &na);
		} else if (i >= a->n || b->key[j] < a->key[i]) {
			k = b->key[j];
			pb = plist_pos(b, j++, &nb);
		} else {
			k = a->key[i];
			pa = plist_pos(a, i++, &na);
			pb = plist_pos(b, j++, &nb);
		}
		plist_push_doc(r, &m, k);
		/* One side alone (most documents): a copy. */
		if (!na || !nb) {
			const tok_pos_t *v = na ? pa : pb;
			uint32_t nv = na ? na : nb;

			if (plist_reserve_pos(r, &m, nv)) {
				plist_free(&m);
				return -1;
			}
			memcpy(m.pos + m.npos, v, nv * sizeof(*v));
			m.npos += nv;
		}
		while (na && nb && (x < na || y < nb)) {
			tok_pos_t v;

			if (y >= nb || (x < na && pa[x] < pb[y]))
				v = pa[x++];
			else if (x >= na || pb[y] < pa[x])
				v = pb[y++];
			else {
				v = pa[x++];
				y++;
			}
			if (plist_push_pos(r, &m, v)) {
				plist_free(&m);
				return -1;
			}
		}
		m.end[m.n - 1] = (uint32_t)m.npos;
	}
	plist_free(a);
	*a = m;
	return 0;
}

struct wild_ctx {
	struct run *r;
	struct leaf *l;
	uint32_t *ids;
	size_t n, scanned;
	bool capped;
};

static int wild_word(void *arg, const char *word, size_t len, const struct storage_word *w)
{
	struct wild_ctx *x = arg;
	const char *pat = x->l->node->word;

	if (++x->scanned > SEARCH_MAX_SCANNED) {
		x->capped = true;
		return 1;
	}
	if (!w->n_urls || storage_is_anchor_word(word, len) || storage_is_gram_word(word, len) ||
	    !query_wild_match(pat, word, len))
		return 0;
	if (x->n >= (size_t)x->r->env->c->max_wildcard_words) {
		x->capped = true;
		return 1;
	}
	x->ids[x->n++] = w->word_id;
	x->l->words = xrealloc(x->l->words, (x->l->n_words + 1) * sizeof(char *));
	x->l->words[x->l->n_words++] = xstrndup(word, len);
	return 0;
}

/* Load every word of wildcard leaf l, their postings merged into l->pl. */
static int load_wild(struct run *r, struct leaf *l)
{
	const struct qnode *n = l->node;
	struct wild_ctx x = { r, l, NULL, 0, 0, false };
	size_t plen = query_wild_prefix(n->word);
	int rc;

	x.ids = xmalloc((size_t)r->env->c->max_wildcard_words * sizeof(uint32_t));
	if (storage_words_prefix(r->ix->st, n->word, plen, SIZE_MAX, wild_word, &x) < 0) {
		free(x.ids);
		return -1;
	}
	if (x.capped)
		buf_printf(&r->notes, "%s%s matches more than %ld words: the first %zu are searched.",
			   r->notes.len ? " " : "", n->word, r->env->c->max_wildcard_words, x.n);
	for (size_t i = 0; i < x.n && !r->err_token; i++) {
		struct plist one = { 0 };

		rc = load_word(r, x.ids[i], l->mask, &one);
		if (rc == -1) {
			plist_free(&one);
			free(x.ids);
			return -1;
		}
		if (rc == 0) {
			if (l->pl.n == 0) {
				plist_free(&l->pl);
				l->pl = one;
				continue;
			}
			plist_union(r, &l->pl, &one);
		}
		plist_free(&one);
	}
	free(x.ids);
	return 0;
}

/* The postings of word (the words of a term with forms) into p: 0, or -1
 * (damage) or -2 (the position cap or the deadline, run_fail() done). */
static int load_named(struct run *r, const char *word, uint8_t mask, struct plist *p)
{
	struct storage_word w;
	int rc = storage_word(r->ix->st, word, strlen(word), &w);

	if (rc <= 0)
		return rc;
	return load_word(r, w.word_id, mask, p);
}

/* A term with forms: the exact word into l->xpl, the other forms merged
 * into l->fpl, then both into l->pl. */
static int load_forms(struct run *r, struct leaf *l)
{
	int rc = load_named(r, l->words[0], l->mask, &l->xpl);

	l->exact_df = l->xpl.n;
	for (size_t i = 1; i < l->n_words && rc == 0; i++) {
		struct plist one = { 0 };

		rc = load_named(r, l->words[i], l->mask, &one);
		if (rc == 0 && !l->fpl.n) {
			plist_free(&l->fpl);
			l->fpl = one; /* the first: taken, not copied */
			continue;
		}
		if (rc == 0 && plist_union(r, &l->fpl, &one))
			rc = -2;
		plist_free(&one);
	}
	if (rc == 0) {
		plist_union_keys(&l->pl, &l->xpl);
		plist_union_keys(&l->pl, &l->fpl);
	}
	return rc == -1 ? -1 : 0;
}

/* Word forms (doc/SEARCH.md, "Word forms"): a plain word outside phrases
 * and NOTs stands for the index words of its stem too, when the generation
 * has a stem map.  Sets words and n_forms; nothing is read but the map. */
static void leaf_forms(struct run *r, struct leaf *l)
{
	struct stems_form f[STEMS_MAX_FORMS];
	const char *w = l->node->word, *st;
	size_t len = strlen(w), sl, n;

	/* While a real-time index overrides documents, words are exact: its
	 * overlay replaces a word's posting list, not the exact/forms pair. */
	if (!r->ix->stems || !r->env->c->stemming || r->rt)
		return;
	if (!r->stemmer && stemmer_new(r->env->c->stem_language, &r->stemmer))
		return;
	st = stemmer_stem(r->stemmer, w, len, &sl);
	n = st ? stems_forms(r->ix->stems, st, sl, f, STEMS_MAX_FORMS) : 0;
	if (n > STEMS_MAX_FORMS)
		n = STEMS_MAX_FORMS;
	for (size_t i = 0; i < n; i++) {
		if (f[i].len == len && !memcmp(f[i].word, w, len))
			continue;
		if (!l->n_words)
			leaf_own_word(l);
		l->words = xrealloc(l->words, (l->n_words + 1) * sizeof(char *));
		l->words[l->n_words++] = xstrndup(f[i].word, f[i].len);
		l->n_forms++;
	}
}

/* Anchor text (doc/SEARCH.md, "Anchor text"): a plain word outside
 * phrases and NOTs also finds the documents whose in-links carry it, when
 * AnchorWeight is above 0 and the index has its anchor word. */
static void leaf_anchored(struct run *r, struct leaf *l)
{
	char key[MAX_WORD_LEN];
	struct storage_word w;
	size_t kl;

	if (r->rp.anchor_weight <= 0 || r->rt)
		return;
	kl = storage_anchor_key(l->node->word, strlen(l->node->word), key);
	l->anchored = storage_word(r->ix->st, key, kl, &w) > 0 && w.n_urls > 0;
}

/* The anchored leaf's own postings into l->xpl (the forms path has put
 * them there already), its anchor word's into l->apl, both into l->pl. */
static int load_anchors(struct run *r, struct leaf *l)
{
	char key[MAX_WORD_LEN + 1];
	size_t kl = storage_anchor_key(l->node->word, strlen(l->node->word), key);
	int rc;

	key[kl] = '\0';
	if (!l->n_forms) {
		l->xpl = l->pl;
		memset(&l->pl, 0, sizeof(l->pl));
		l->exact_df = l->xpl.n;
		plist_union_keys(&l->pl, &l->xpl);
	}
	rc = load_named(r, key, l->mask, &l->apl);
	if (rc == 0)
		plist_union_keys(&l->pl, &l->apl);
	return rc;
}

int run_load_leaf(struct run *r, struct leaf *l)
{
	const struct qnode *n = l->node;
	struct storage_word w;
	int rc;

	if (n->type != Q_TERM) {
		rc = load_wild(r, l);
	} else if (l->n_forms) {
		rc = load_forms(r, l);
	} else {
		leaf_own_word(l);
		rc = storage_word(r->ix->st, n->word, strlen(n->word), &w);
		if (rc > 0)
			rc = load_word(r, w.word_id, l->mask, &l->pl) == -1 ? -1 : 0;
	}
	if (rc >= 0 && l->anchored && !r->err_token)
		rc = load_anchors(r, l) == -1 ? -1 : 0;
	if (rc < 0)
		return -1;
	if (r->rt && !r->err_token)
		run_rt_overlay(r, l);
	return 0;
}

void run_leaf_words(struct run *r, struct leaf *l)
{
	struct wild_ctx x = { r, l, NULL, 0, 0, false };

	if (l->node->type == Q_TERM) {
		if (!l->n_forms)
			leaf_own_word(l);
		return;
	}
	x.ids = xmalloc((size_t)r->env->c->max_wildcard_words * sizeof(uint32_t));
	storage_words_prefix(r->ix->st, l->node->word, query_wild_prefix(l->node->word), SIZE_MAX,
			     wild_word, &x);
	free(x.ids);
}

/* Number the leaves and phrases of the tree, note site: and link: nodes. */
void run_collect(struct run *r, struct qnode *n, bool positive, bool in_phrase)
{
	switch (n->type) {
	case Q_TERM:
	case Q_WILD: {
		struct leaf *l;

		r->leaves = xrealloc(r->leaves, (r->n_leaves + 1) * sizeof(*r->leaves));
		l = &r->leaves[r->n_leaves];
		memset(l, 0, sizeof(*l));
		l->node = n;
		l->positive = positive;
		l->in_phrase = in_phrase;
		l->mask = n->sections ? n->sections : r->req->sections ? r->req->sections : 0xf;
		n->id = (int)r->n_leaves++;
		if (n->type == Q_TERM && positive && !in_phrase) {
			leaf_forms(r, l);
			leaf_anchored(r, l);
		}
		return;
	}
	case Q_PHRASE: {
		struct phrase *p;

		r->phrases = xrealloc(r->phrases, (r->n_phrases + 1) * sizeof(*r->phrases));
		p = &r->phrases[r->n_phrases];
		memset(p, 0, sizeof(*p));
		p->node = n;
		p->positive = positive;
		n->id = (int)r->n_phrases++;
		for (size_t k = 0; k < n->n_kids; k++) {
			if (!n->kids[k]->sections)
				n->kids[k]->sections = n->sections;
			run_collect(r, n->kids[k], positive, true);
		}
		return;
	}
	case Q_SITE:
	case Q_LINK:
		r->filters = xrealloc(r->filters, (r->n_filters + 1) * sizeof(*r->filters));
		memset(&r->filters[r->n_filters], 0, sizeof(*r->filters));
		r->filters[r->n_filters].node = n;
		n->id = (int)r->n_filters++;
		return;
	case Q_NOT:
		positive = false;
		break;
	default:
		break;
	}
	for (size_t k = 0; k < n->n_kids; k++)
		run_collect(r, n->kids[k], positive, in_phrase);
}

/* ---- evaluation ---------------------------------------------------------------- */

/* A word's documents, borrowed: no set is changed once made (each
 * operation writes a new one). */
static struct kset keys_of(const struct plist *p)
{
	return (struct kset){ p->key, p->n };
}

static struct kset kset_none(struct run *r)
{
	return (struct kset){ arena_alloc(r->ar, 0), 0 };
}

static struct kset eval_phrase(struct run *r, const struct qnode *n)
{
	struct phrase *ph = &r->phrases[n->id];
	const tok_pos_t *pos[QUERY_MAX_PHRASE];
	uint32_t np[QUERY_MAX_PHRASE], offs[QUERY_MAX_PHRASE];
	struct kset s = { NULL, 0 };
	size_t k = n->n_kids < QUERY_MAX_PHRASE ? n->n_kids : QUERY_MAX_PHRASE;
	struct leaf *l[QUERY_MAX_PHRASE];
	size_t cursor[QUERY_MAX_PHRASE] = { 0 };

	if (k == 0)
		return kset_none(r);
	for (size_t i = 0; i < k; i++) {
		l[i] = &r->leaves[n->kids[i]->id];
		offs[i] = n->offs ? n->offs[i] : (uint32_t)i;
	}
	s = keys_of(&l[0]->pl);
	for (size_t i = 1; i < k; i++) {
		struct kset o = keys_of(&l[i]->pl);

		s = kset_op(r->ar, &s, &o, OP_AND);
	}
	ph->key = arena_alloc(r->ar, s.n * sizeof(uint64_t));
	ph->count = arena_alloc(r->ar, s.n * sizeof(*ph->count));
	for (size_t j = 0; j < s.n; j++) {
		for (size_t i = 0; i < k; i++) {
			size_t at = plist_find(&l[i]->pl, s.k[j], &cursor[i]);
			pos[i] = plist_pos(&l[i]->pl, at, &np[i]);
		}
		if (search_phrase_count(pos, np, offs, k, ph->count[ph->n]))
			ph->key[ph->n++] = s.k[j];
	}
	for (size_t i = 0; i < k; i++)
		ph->idf += l[i]->idf;
	return (struct kset){ ph->key, ph->n };
}

/* The documents of s whose site is (keep) or is not in sites: a new set,
 * s may be a word's own documents. */
static struct kset filter_sites(struct run *r, const struct kset *s, const uint32_t *sites,
				size_t n, bool keep)
{
	struct kset o = { arena_alloc(r->ar, s->n * sizeof(uint64_t)), 0 };

	for (size_t i = 0; i < s->n; i++)
		if (u32_in(sites, n, (uint32_t)(s->k[i] >> 32)) == keep)
			o.k[o.n++] = s->k[i];
	return o;
}

static struct kset eval_and(struct run *r, const struct qnode *n)
{
	struct kset s = { NULL, 0 };
	bool have = false;

	for (size_t i = 0; i < n->n_kids; i++) {
		const struct qnode *k = n->kids[i];
		struct kset o;

		if (k->type == Q_NOT || k->type == Q_SITE)
			continue;
		o = run_eval(r, k);
		if (!have) {
			s = o;
			have = true;
			continue;
		}
		s = kset_op(r->ar, &s, &o, OP_AND);
	}
	if (!have)
		return kset_none(r);
	for (size_t i = 0; i < n->n_kids; i++) {
		const struct qnode *k = n->kids[i];

		if (k->type == Q_SITE) {
			s = filter_sites(r, &s, r->filters[k->id].sites, r->filters[k->id].n_sites,
					 true);
		} else if (k->type == Q_NOT && k->n_kids == 1) {
			const struct qnode *x = k->kids[0];

			if (x->type == Q_SITE) {
				s = filter_sites(r, &s, r->filters[x->id].sites,
						 r->filters[x->id].n_sites, false);
			} else {
				struct kset o = run_eval(r, x);

				s = kset_op(r->ar, &s, &o, OP_SUB);
			}
		}
	}
	return s;
}

struct kset run_eval(struct run *r, const struct qnode *n)
{
	switch (n->type) {
	case Q_TERM:
	case Q_WILD:
		return keys_of(&r->leaves[n->id].pl);
	case Q_PHRASE:
		return eval_phrase(r, n);
	case Q_AND:
		return eval_and(r, n);
	case Q_OR: {
		struct kset s = kset_none(r);

		for (size_t i = 0; i < n->n_kids; i++) {
			struct kset o = run_eval(r, n->kids[i]);

			s = kset_op(r->ar, &s, &o, OP_OR);
		}
		return s;
	}
	case Q_LINK:
		return r->filters[n->id].docs;
	default: /* a NOT or a site: outside an AND selects nothing by itself */
		return kset_none(r);
	}
}
