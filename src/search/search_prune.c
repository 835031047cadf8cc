/* search_prune.c - top-k dynamic pruning (doc/SEARCH.md, "Top-k pruning"):
 * a query of ANDed words and phrases (with site: and NOTs of words or sites
 * beside them) walked document by document over the words' postings, the rarest
 * word driving and the others skipped to its documents by their record
 * headers; a word with forms or anchor text is the OR of its posting
 * lists (its own, its forms', its anchor word's), walked together and
 * bounded with StemWeight and AnchorWeight.  Every matching document is
 * counted (the page's counts stay exact), but its positions are decoded
 * and it is scored only when an upper bound of its score, from the record
 * headers, docinfo and PageRank, can still reach the page: a MaxScore-style
 * threshold, the page's k-th best entry so far.  The documents of one site
 * are bounded together and scored best bound first, so that grouping by
 * site (each site's best two) stays exact.  A word the query has twice is
 * walked once.  A phrase is matched in the
 * records' positions in place, its rarest word in the document first: up to
 * its first occurrence for every document that has its words (it must occur
 * for the document to match), its every occurrence only for a document that
 * is scored.  With the generation's site summaries (search_sum.c), a
 * site whose summaries' bound is below the threshold is passed over
 * unvisited and only counted, and the sites with the best such bounds are
 * visited first.  search_score.c owns the formula and its bounds.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "grams.h"
#include "neardup.h"
#include "proto.h"
#include "query.h"
#include "ranks.h"
#include "search.h"
#include "search_int.h"
#include "search_prune.h"
#include "storage.h"
#include "tokenize.h"
#include "util.h"

/* A plain word, or a word with forms or anchor text (an OR of posting
 * lists) whose idf is known without merging them: its own word's, or its
 * anchor word's when it has no forms (as load_leaves() counts it).  A
 * word with forms and none of its own would need the forms' union counted:
 * searched exhaustively. */
static bool term_ok(const struct run *r, const struct qnode *n)
{
	const struct leaf *l = n->type == Q_TERM ? &r->leaves[n->id] : NULL;
	struct storage_word w;

	if (!l || l->mask != 0xf)
		return false;
	return !l->n_forms || storage_word(r->ix->st, n->word, strlen(n->word), &w) > 0;
}

/* A positive phrase of plain words over all sections, its words' offsets
 * ascending (as search_phrase_count() reads them), PhraseBoost not
 * negative (its bound would not hold). */
static bool phrase_ok(const struct run *r, const struct qnode *n)
{
	if (n->type != Q_PHRASE || n->sections || !n->n_kids || n->n_kids > QUERY_MAX_PHRASE ||
	    !r->phrases[n->id].positive || !(r->rp.phrase >= 0))
		return false;
	for (size_t i = 0; i < n->n_kids; i++)
		if (!term_ok(r, n->kids[i]) || (n->offs && i && n->offs[i] < n->offs[i - 1]))
			return false;
	return true;
}

bool run_prune_eligible(const struct run *r)
{
	const struct qnode *root = r->q.root;
	size_t pos = 0;

	if (!r->env->c->pruning || r->req->sort == PROTO_SORT_DATE || !run_bounds_valid(r) ||
	    r->n_leaves > PRUNE_MAX_TERMS || !root)
		return false;
	if (term_ok(r, root) || phrase_ok(r, root))
		return true;
	if (root->type != Q_AND)
		return false;
	for (size_t i = 0; i < root->n_kids; i++) {
		const struct qnode *k = root->kids[i];

		if (term_ok(r, k) || phrase_ok(r, k))
			pos++;
		else if (k->type == Q_NOT && k->n_kids == 1 &&
			 (k->kids[0]->type == Q_SITE || term_ok(r, k->kids[0])))
			continue;
		else if (k->type != Q_SITE)
			return false;
	}
	return pos > 0;
}

/* ---- the threshold ------------------------------------------------------------ */

double prune_theta(const struct prune *p)
{
	return p->nheap == p->k ? p->heap[0] : -HUGE_VAL;
}

static void heap_offer(struct prune *p, double x)
{
	size_t i;

	if (p->nheap < p->k) {
		i = p->nheap++;
		while (i > 0 && p->heap[(i - 1) / 2] > x) {
			p->heap[i] = p->heap[(i - 1) / 2];
			i = (i - 1) / 2;
		}
		p->heap[i] = x;
		return;
	}
	if (!(x > p->heap[0]))
		return;
	i = 0;
	for (;;) {
		size_t l = 2 * i + 1, m = l;

		if (l >= p->nheap)
			break;
		if (l + 1 < p->nheap && p->heap[l + 1] < p->heap[l])
			m = l + 1;
		if (p->heap[m] >= x)
			break;
		p->heap[i] = p->heap[m];
		i = m;
	}
	p->heap[i] = x;
}

/* ---- the words' cursors ------------------------------------------------------- */

static int cmp_cost(const void *a, const void *b)
{
	const struct pterm *x = a, *y = b;
	return x->cost < y->cost ? -1 : x->cost > y->cost;
}

/* Open the postings of word (len bytes) as a list of t: 0, or -1. */
static int sub_open(struct prune *p, struct pterm *t, const char *word, size_t len, int kind,
		    uint64_t *df)
{
	struct storage_word w;
	struct psub *s;
	int rc = storage_word(p->r->ix->st, word, len, &w);

	*df = rc > 0 ? w.n_urls : 0;
	if (rc <= 0 || !w.n_urls)
		return rc < 0 ? -1 : 0;
	s = &p->sub[p->nsub];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->c = arena_alloc(p->r->ar, sizeof(*s->c));
	p->nsub++;
	rc = storage_postings(p->r->ix->st, w.word_id, s->c);
	if (rc < 0)
		return -1;
	s->ended = rc == 0;
	s->word_id = w.word_id;
	s->n_urls = w.n_urls;
	s->n_sites = w.n_sites;
	prune_sub_skips(p, s);
	t->ns++;
	t->cost += w.n_urls;
	return 0;
}

/* A word the query has twice on the same side (`a a`, the phrase "b a
 * b"): t reads the lists of the first, which are at the same records
 * whenever t's would be, rather than walking them a second time.  Its
 * forms and anchor word are the first's (the same word, both over all
 * sections: term_ok()).  Whether t is such a word. */
static bool term_alias(struct prune *p, struct pterm *t)
{
	const struct leaf *l = t->l;

	for (size_t i = 0; i < p->nt; i++) {
		const struct pterm *o = &p->t[i];

		if (o == t || o->l->positive != l->positive || o->l->n_forms != l->n_forms ||
		    o->l->anchored != l->anchored || strcmp(o->l->node->word, l->node->word))
			continue;
		t->first = o->first;
		t->ns = o->ns;
		t->cost = o->cost;
		t->l->df = o->l->df;
		t->l->idf = o->l->idf;
		return true;
	}
	return false;
}

/* Word l's lists: its own word, its forms, its anchor word.  Its idf as
 * load_leaves() gives it (term_ok()).  0 or -1. */
static int term_open(struct prune *p, struct pterm *t, struct leaf *l)
{
	struct run *r = p->r;
	char key[MAX_WORD_LEN];
	uint64_t own, df, anc = 0;

	t->l = l;
	t->first = p->nsub;
	run_leaf_words(r, l);
	if (term_alias(p, t))
		return 0;
	if (sub_open(p, t, l->node->word, strlen(l->node->word), SUB_OWN, &own))
		return -1;
	for (size_t i = 1; i < l->n_words && l->n_forms; i++)
		if (sub_open(p, t, l->words[i], strlen(l->words[i]), SUB_FORM, &df))
			return -1;
	if (l->anchored &&
	    sub_open(p, t, key, storage_anchor_key(l->node->word, strlen(l->node->word), key),
		     SUB_ANCHOR, &anc))
		return -1;
	l->df = own ? own : anc;
	l->idf = search_idf(storage_n_docs(r->ix->st), l->df);
	return 0;
}

/* A word twice in phrase f at different places ("b a b") needs that
 * many positions in the document: need[i] is the number of places of
 * word i's list in f (term_alias() gives a repeated word the same list),
 * a test of the record's count before its positions are searched. */
static void prune_repeats(const struct prune *p, struct pphrase *f)
{
	f->repeats = false;
	for (size_t i = 0; i < f->k; i++) {
		size_t first = p->t[f->term[i]].first;

		f->need[i] = 0;
		for (size_t j = 0; j < f->k; j++) {
			size_t e = 0;

			/* Places, not words: two at one offset need one position. */
			while (e < j && (p->t[f->term[e]].first != first || f->d[e] != f->d[j]))
				e++;
			if (p->t[f->term[j]].first == first && e == j)
				f->need[i]++;
		}
		f->repeats |= f->need[i] > 1;
	}
}

/* Whether phrase f's repeated words have the positions it needs in
 * document url of site: false when one has too few (it cannot occur). */
static bool phrase_may(const struct prune *p, const struct pphrase *f, uint32_t site,
		       uint32_t url)
{
	for (size_t i = 0; f->repeats && i < f->k; i++) {
		const struct psub *s = &p->sub[p->t[f->term[i]].first];

		if (f->need[i] > 1 && s->kind == SUB_OWN && !s->ended && s->site == site &&
		    !s->site_done && s->url == url && s->n < f->need[i])
			return false;
	}
	return true;
}

/* The query's phrases (run_prune_eligible(): each the root or a part of
 * the root AND) over the words opened; the idf as eval_phrase() sums it. */
static void prune_phrases(struct prune *p)
{
	struct run *r = p->r;

	/* In the arena: a struct prune with room for every phrase was 26 KB
	 * to zero for each query (3 % of a two-word query's instructions). */
	if (r->n_phrases)
		p->f = arena_calloc(r->ar, r->n_phrases, sizeof(*p->f));
	for (size_t i = 0; i < r->n_phrases; i++) {
		struct pphrase *f = &p->f[p->nf++];
		const struct qnode *n = r->phrases[i].node;

		f->ph = &r->phrases[i];
		f->k = n->n_kids;
		f->ph->idf = 0;
		for (size_t j = 0; j < f->k; j++) {
			const struct leaf *l = &r->leaves[n->kids[j]->id];

			for (size_t t = 0; t < p->np; t++)
				if (p->t[t].l == l)
					f->term[j] = t;
			f->d[j] = n->offs ? n->offs[j] - n->offs[0] : (uint32_t)j;
			f->ph->idf += l->idf;
		}
		prune_repeats(p, f);
	}
}

/* The pairs of common words (include/grams.h) of the query's phrases
 * that have fewer documents than the rarest word: the one with the fewest
 * drives the walk, and a document must be in each (every document with
 * the phrase has its pairs, so none is missed; the phrase is still checked
 * in its words' positions).  Only pairs of words the generation lists are
 * complete (a query beside a real-time index, whose documents have none,
 * is never pruned: search.c).  0, 1 when a pair no document has rules
 * every match out, -1 on damage. */
static int prune_pairs(struct prune *p)
{
	struct run *r = p->r;
	const struct grams *g = r->ix->grams;
	char key[MAX_WORD_LEN];
	uint64_t df;

	if (!g)
		return 0;
	for (size_t i = 0; i < p->nf; i++) {
		struct pphrase *f = &p->f[i];
		const struct qnode *n = f->ph->node;
		size_t found = 0;

		for (size_t j = 0; j + 1 < f->k && p->npair < PRUNE_MAX_TERMS; j++) {
			const char *x = n->kids[j]->word, *y = n->kids[j + 1]->word;
			size_t xl = strlen(x), yl = strlen(y), len, e;
			struct pterm *t = &p->pair[p->npair];

			if (f->d[j + 1] != f->d[j] + 1 || grams_find(g, x, xl) < 0 ||
			    grams_find(g, y, yl) < 0 || !(len = storage_gram_key(x, xl, y, yl, key)))
				continue;
			for (e = 0; e < p->npair; e++) {
				size_t el;
				const char *ek = storage_word_text(r->ix->st,
								   p->sub[p->pair[e].first].word_id, &el);

				if (ek && el == len && !memcmp(ek, key, len))
					break;
			}
			if (e < p->npair) {
				f->psub[j] = p->pair[e].first;
				found++;
				continue;
			}
			memset(t, 0, sizeof(*t));
			t->first = p->nsub;
			if (sub_open(p, t, key, len, SUB_PAIR, &df))
				return -1;
			if (!t->ns)
				return 1; /* no document has the pair */
			if (t->cost < p->t[0].cost) {
				f->psub[j] = t->first;
				found++;
				p->npair++;
			} else {
				p->nsub--; /* not cheaper than the rarest word */
			}
		}
		f->paired = found + 1 == f->k && f->k > 1;
	}
	if (!p->npair)
		return 0;
	qsort(p->pair, p->npair, sizeof(p->pair[0]), cmp_cost);
	p->drv = &p->pair[0];
	r->work.paired++;
	return 0;
}

/* Look every word up and open its lists, positive words first, cheapest
 * first: 0, 1 when no document can match, -1 on damage. */
static int prune_open(struct prune *p)
{
	struct run *r = p->r;
	size_t cap = 0;
	bool none = false;

	for (size_t i = 0; i < r->n_leaves; i++)
		cap += 1 + r->leaves[i].n_forms + r->leaves[i].anchored;
	for (size_t i = 0; i < r->n_phrases; i++)
		cap += r->phrases[i].node->n_kids; /* pairs of common words (prune_pairs()) */
	p->sub = arena_calloc(r->ar, cap, sizeof(*p->sub));
	for (size_t pass = 0; pass < 2; pass++) {
		size_t first = p->nt;

		for (size_t i = 0; i < r->n_leaves; i++) {
			struct leaf *l = &r->leaves[i];
			struct pterm *t;

			if (l->positive != (pass == 0))
				continue;
			t = &p->t[p->nt++];
			memset(t, 0, sizeof(*t));
			if (term_open(p, t, l))
				return -1;
			if (t->ns == 0 && l->positive)
				none = true;
		}
		if (pass == 0) {
			p->np = p->nt;
			p->npsub = p->nsub;
			qsort(p->t + first, p->nt - first, sizeof(p->t[0]), cmp_cost);
		}
	}
	p->drv = &p->t[0];
	if (!none)
		prune_phrases(p);
	if (!none && p->np && p->nf) {
		int rc = prune_pairs(p);

		if (rc < 0)
			return -1;
		none = rc == 1;
	}
	/* docinfo (20 bytes a document) and the PageRank table past the
	 * caches: 1.8 MB at 65,536 url_ids. */
	p->ahead = storage_max_url_id(r->ix->st) >= PRUNE_AHEAD_DOCS;
	p->prox_all = run_proximity_bound(r, NULL);
	/* The driving word's longest list: its blocks cut a site into
	 * ranges, its summaries count a site passed over. */
	if (p->np) {
		const struct pterm *d = &p->t[0];

		p->bdrv = d->first;
		for (size_t j = d->first; j < d->first + d->ns; j++)
			if (p->sub[j].n_urls > p->sub[p->bdrv].n_urls)
				p->bdrv = j;
	}
	return none || p->np == 0;
}

/* Move s to site (or past it): -1 on damage. */
int prune_sub_to_site(struct psub *s, uint32_t site)
{
	if (!s->ended && s->site < site)
		storage_seek_site(s->c, site);
	while (!s->ended && s->site < site) {
		int rc = storage_next_site(s->c, &s->site);

		if (rc < 0)
			return -1;
		s->ended = rc == 0;
		s->site_done = false;
		s->url = 0;
		if (s->has_sk)
			s->sknext = 0; /* its entries are looked up at its first target */
	}
	return 0;
}

/* s's skip entries (NNw/skips), its word's when the generation has them:
 * before the first site (again after a rewind). */
void prune_sub_skips(struct prune *p, struct psub *s)
{
	const struct storage_skips *k = p->r->ix->skips;

	s->has_sk = k && storage_skip_word(k, s->word_id, &s->sk) > 0;
	s->nsk = 0;
	s->sksite = 0;
	/* 0: the first target of a site looks its entries up (sub_skip());
	 * a list without any is read on. */
	s->sknext = s->has_sk ? 0 : UINT32_MAX;
	s->jumps = &p->r->work.skips;
}

/* s, sent to url at or past its next skip entry's url_id, by its site's
 * skip entries (looked up at the site's first target). */
static __attribute__((noinline)) void sub_skip(struct psub *s, uint32_t site, uint32_t url)
{
	if (s->sksite != site) {
		s->sksite = site;
		s->nsk = storage_skip_site(&s->sk, site, &s->skfirst);
		s->skhint = 0;
	}
	if (storage_skip_ahead(s->c, s->skfirst, s->nsk, url, &s->skhint))
		++*s->jumps;
	s->sknext = storage_skip_entry_url(s->skfirst, s->nsk, s->skhint);
}

/* Whether s's current site has url (its record in s->n, s->pos): 1, 0, -1.
 * A target at or past the next skip entry's record (more than a few
 * records ahead) is jumped to by the site's skip entries first.  Inlined in the
 * walk's loops (term_has()), its hottest path. */
static inline __attribute__((always_inline)) int sub_has(struct psub *s, uint32_t site,
							 uint32_t url)
{
	if (s->ended || s->site != site)
		return 0;
	if (!s->site_done && s->url < url) {
		int rc;

		if (url >= s->sknext)
			sub_skip(s, site, url);
		rc = storage_skip_url(s->c, url, &s->url, &s->n, &s->pos);
		if (rc < 0)
			return -1;
		s->site_done = rc == 0;
		if (rc && s->url == url)
			storage_rec_prefetch_last(s->pos, s->n);
	}
	return !s->site_done && s->url == url;
}

int prune_sub_has(struct psub *s, uint32_t site, uint32_t url)
{
	return sub_has(s, site, url);
}

static int term_to_site(struct prune *p, const struct pterm *t, uint32_t site)
{
	for (size_t j = t->first; j < t->first + t->ns; j++)
		if (prune_sub_to_site(&p->sub[j], site))
			return -1;
	return 0;
}

/* Whether some list of t has url: 1, 0, -1 (inlined where a document's
 * words are looked up, prune_doc_has()). */
static inline __attribute__((always_inline)) int term_has(struct prune *p,
							  const struct pterm *t,
							  uint32_t site, uint32_t url)
{
	int any = 0;

	for (size_t j = t->first; j < t->first + t->ns; j++) {
		int rc = sub_has(&p->sub[j], site, url);

		if (rc < 0)
			return -1;
		any |= rc;
	}
	return any;
}

static bool term_at_site(const struct prune *p, const struct pterm *t, uint32_t site)
{
	for (size_t j = t->first; j < t->first + t->ns; j++)
		if (!p->sub[j].ended && p->sub[j].site == site)
			return true;
	return false;
}

/* The least site (*site, 1) or url (*site given, *url, 1) t's lists are
 * at, 0 when none is. */
static int term_min_site(const struct prune *p, const struct pterm *t, uint32_t *site)
{
	int found = 0;

	for (size_t j = t->first; j < t->first + t->ns; j++) {
		const struct psub *s = &p->sub[j];

		if (!s->ended && (!found || s->site < *site)) {
			*site = s->site;
			found = 1;
		}
	}
	return found;
}

int prune_term_next(struct prune *p, const struct pterm *t, uint32_t site, uint32_t from,
		    uint32_t *url)
{
	int found = 0;

	for (size_t j = t->first; j < t->first + t->ns; j++) {
		struct psub *s = &p->sub[j];

		if (sub_has(s, site, from) < 0)
			return -1;
		if (!s->ended && s->site == site && !s->site_done && (!found || s->url < *url)) {
			*url = s->url;
			found = 1;
		}
	}
	return found;
}

void prune_prefetch_next(const struct prune *p, const struct pterm *t, uint32_t site,
			 uint32_t url)
{
	const struct search_index *ix = p->r->ix;

	if (p->nmatch * 8 < p->nread)
		return;
	for (size_t j = t->first; j < t->first + t->ns; j++) {
		const struct psub *s = &p->sub[j];
		uint32_t next;

		if (s->ended || s->site != site || s->site_done)
			continue;
		next = s->url == url ? storage_peek_url(s->c) : s->url;
		if (!next)
			continue;
		storage_doc_prefetch(ix->st, next);
		if (next < ix->n_pr)
			__builtin_prefetch(&ix->pr[next]);
	}
}

/* site: and -site: of the root AND, and the request's filters of sites. */
static bool site_keeps(const struct run *r, uint32_t site)
{
	const struct qnode *root = r->q.root;
	const struct proto_search *q = r->req;

	if (q->site_id && site != q->site_id)
		return false;
	if (q->n_spaces && !u32_in(r->space_sites, r->n_space_sites, site))
		return false;
	for (size_t i = 0; root->type == Q_AND && i < root->n_kids; i++) {
		const struct qnode *k = root->kids[i];
		bool keep = true;

		if (k->type == Q_NOT && k->kids[0]->type == Q_SITE) {
			k = k->kids[0];
			keep = false;
		}
		if (k->type == Q_SITE &&
		    u32_in(r->filters[k->id].sites, r->filters[k->id].n_sites, site) != keep)
			return false;
	}
	return true;
}

/* ---- phrases, in the records' positions -------------------------------------------- */

/* Whether record x has position v, looking from *c on (the positions
 * asked for grow from call to call): galloping, then binary search, as
 * search_match.c's seek_pos(), over the record in place. */
static bool rec_seek(const struct rec *x, uint32_t *c, tok_pos_t v)
{
	uint32_t lo = *c, hi, step = 1;

	if (lo >= x->n || storage_rec_pos(x->pos, lo) >= v)
		return lo < x->n && storage_rec_pos(x->pos, lo) == v;
	hi = lo + 1;
	while (hi < x->n && storage_rec_pos(x->pos, hi) < v) {
		lo = hi;
		step *= 2;
		hi = x->n - lo > step ? lo + step : x->n;
	}
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (storage_rec_pos(x->pos, mid) < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	*c = lo;
	return lo < x->n && storage_rec_pos(x->pos, lo) == v;
}

/* Phrase f's words' records in the document: from rec (a candidate's),
 * or NULL: where their lists are now. */
static void phrase_recs(const struct prune *p, const struct pphrase *f, const struct rec *rec,
			struct rec *w)
{
	for (size_t i = 0; i < f->k; i++) {
		size_t j = p->t[f->term[i]].first;

		w[i] = rec ? rec[j] : (struct rec){ p->sub[j].pos, p->sub[j].n };
	}
}

/* The occurrences of phrase f in the document (rec as phrase_recs()), as
 * search_phrase_count() counts them (a start after word 0's place in a
 * saturated position is none), into count[] by section; count NULL: 1 at
 * the first, 0 for none.  The word with the fewest positions in the
 * document drives: each of its positions is one place the phrase may
 * start, and the others are looked up there. */
static uint32_t phrase_match(const struct prune *p, const struct pphrase *f, const struct rec *rec,
			     uint32_t count[4])
{
	struct rec w[QUERY_MAX_PHRASE];
	uint32_t cur[QUERY_MAX_PHRASE] = { 0 }, total = 0;
	tok_pos_t prev = 0;
	size_t k = f->k, d = 0;

	phrase_recs(p, f, rec, w);
	for (size_t i = 1; i < k; i++)
		if (w[i].n < w[d].n)
			d = i;
	if (count)
		memset(count, 0, 4 * sizeof(*count));
	for (uint32_t j = 0; j < w[d].n; j++) {
		tok_pos_t v = storage_rec_pos(w[d].pos, j);
		unsigned sec = (unsigned)tok_pos_section(v), at = tok_pos_position(v), start;
		size_t i;

		/* The saturated position repeats; word 0's place counts once. */
		if (k > 1 && j && v == prev)
			continue;
		prev = v;
		if (at < f->d[d])
			continue;
		start = at - f->d[d];
		if (k > 1 && start >= MAX_POSITION)
			continue;
		for (i = 0; i < k; i++) {
			unsigned want = start + f->d[i];

			if (i != d && (want > MAX_POSITION ||
				       !rec_seek(&w[i], &cur[i], tok_pos_encode((int)sec, want))))
				break;
		}
		if (i < k)
			continue;
		if (!count)
			return 1;
		total++;
		count[sec]++;
	}
	return total;
}

/* Whether phrase f (paired) occurs in the document: its pairs' records,
 * where their lists are now, have positions start, start + 1, ... in one
 * section (pair i is posted at word i's position where word i + 1
 * follows, so this is phrase_match()'s answer without the words). */
static bool pairs_match(const struct prune *p, const struct pphrase *f)
{
	struct rec w[QUERY_MAX_PHRASE];
	uint32_t cur[QUERY_MAX_PHRASE] = { 0 };
	size_t m = f->k - 1, d = 0;

	for (size_t i = 0; i < m; i++) {
		const struct psub *s = &p->sub[f->psub[i]];

		w[i] = (struct rec){ s->pos, s->n };
		if (w[i].n < w[d].n)
			d = i;
	}
	for (uint32_t j = 0; j < w[d].n; j++) {
		tok_pos_t v = storage_rec_pos(w[d].pos, j);
		unsigned at = tok_pos_position(v);
		size_t i;

		if (at < d)
			continue;
		for (i = 0; i < m; i++)
			if (i != d && !rec_seek(&w[i], &cur[i],
						tok_pos_encode(tok_pos_section(v), at - d + i)))
				break;
		if (i == m)
			return true;
	}
	return false;
}

/* The bound of the phrase boosts in the document (its words' records where
 * their lists are now): a phrase occurs in a section at most as often as
 * each of its words does there, so its tf~ is at most the least of its
 * words' tf~ bounds. */
static double phrase_bound(const struct prune *p, const double wn[4])
{
	const struct search_rank_params *rp = &p->r->rp;
	double sum = 0;

	for (size_t i = 0; i < p->nf; i++) {
		const struct pphrase *f = &p->f[i];
		struct rec w[QUERY_MAX_PHRASE];
		double t = HUGE_VAL;

		phrase_recs(p, f, NULL, w);
		for (size_t j = 0; j < f->k; j++) {
			int lo = tok_pos_section(storage_rec_pos(w[j].pos, 0));
			int hi = tok_pos_section(storage_rec_pos(w[j].pos, w[j].n - 1));

			t = fmin(t, run_tf_bound(w[j].n, lo, hi, wn));
		}
		sum += rp->phrase * run_sat_bound(p->r, f->ph->idf, t);
	}
	return sum;
}

/* ---- one site ------------------------------------------------------------------- */

/* The bound of positive word t's BM25F in the document its lists'
 * records are at (hit), recorded in rec[..]; *found when it has positions
 * of its own or of its forms (the proximity and title boosts see those),
 * *in_title when its own last position is in the title. */
static double term_bound(struct prune *p, const struct pterm *t, uint32_t site, uint32_t url,
			 const double wn[4], struct rec *rec, bool *found, bool *in_title)
{
	const struct search_rank_params *rp = &p->r->rp;
	double own = 0, forms = 0, anchor = 0;
	bool has_own = false, has_form = false;

	for (size_t j = t->first; j < t->first + t->ns; j++) {
		const struct psub *s = &p->sub[j];
		int lo, hi;

		rec[j] = (struct rec){ NULL, 0 };
		if (s->ended || s->site != site || s->site_done || s->url != url)
			continue;
		rec[j] = (struct rec){ s->pos, s->n };
		if (s->kind == SUB_ANCHOR) {
			anchor = rp->anchor_weight * s->n;
			continue;
		}
		lo = tok_pos_section(storage_rec_pos(s->pos, 0));
		hi = tok_pos_section(storage_rec_pos(s->pos, s->n - 1));
		if (s->kind == SUB_OWN) {
			own = run_tf_bound(s->n, lo, hi, wn);
			has_own = true;
			*in_title = hi == TOK_SECTION_TITLE;
		} else {
			forms += run_tf_bound(s->n, lo, hi, wn);
			has_form = true;
		}
	}
	if (!has_own)
		*in_title = false;
	*found = has_own || has_form;
	/* score_words(): the forms count only where the word itself is not. */
	return run_sat_bound(p->r, t->l->idf,
			     (has_own ? own : rp->stem_weight * forms) + anchor);
}

/* Whether document url of the driving word has every positive word and
 * phrase, no NOT word, and the request's filters of sites and URLs keep
 * it: 1, 0 or -1. */
int prune_doc_has(struct prune *p, uint32_t site, uint32_t url)
{
	struct run *r = p->r;
	int rc;

	if (!run_request_keeps(r, site, url))
		return 0;
	/* The driver has url; a pair drives for every word. */
	for (size_t i = 1; i < p->npair; i++) {
		rc = term_has(p, &p->pair[i], site, url);
		if (rc <= 0)
			return rc;
	}
	/* A phrase of pairs is looked for in them before its words. */
	for (size_t i = 0; i < p->nf; i++) {
		if (!p->f[i].paired)
			continue;
		r->work.phrase_docs++;
		if (!pairs_match(p, &p->f[i]))
			return 0;
	}
	for (size_t i = p->drv == &p->t[0]; i < p->nt; i++) {
		rc = term_has(p, &p->t[i], site, url);
		if (rc < 0)
			return -1;
		if ((rc == 1) != (i < p->np))
			return 0;
	}
	/* A phrase is required: the document matches when each occurs. */
	for (size_t i = 0; i < p->nf; i++) {
		if (p->f[i].paired)
			continue;
		if (!phrase_may(p, &p->f[i], site, url))
			return 0;
		r->work.phrase_docs++;
		if (!phrase_match(p, &p->f[i], NULL, NULL))
			return 0;
	}
	return 1;
}

/* Document url of the driving word: a candidate with its bound when it
 * matches (prune_doc_has()) and docinfo's filters keep it.  0 or -1. */
int prune_doc(struct prune *p, uint32_t site, uint32_t url)
{
	struct run *r = p->r;
	const struct proto_search *q = r->req;
	struct storage_doc d;
	struct cand *c;
	double wn[4], text, pr;
	bool in_title = true, all = true, found[PRUNE_MAX_TERMS];
	int rc = prune_doc_has(p, site, url);

	p->nread++;
	if (rc <= 0)
		return rc;
	p->nmatch++;
	rc = storage_doc(r->ix->st, url, &d);
	if (rc < 0)
		return -1;
	if (rc == 0 || d.site_id == 0)
		return 0;
	if (q->time_from && d.last_modified < q->time_from)
		return 0;
	if (q->time_to && (d.last_modified == 0 || d.last_modified > q->time_to))
		return 0;
	if (p->nrec + p->npsub > p->caprec) {
		size_t old = p->caprec;

		p->caprec = 2 * (p->nrec + p->npsub) + PRUNE_CAND_FIRST * p->npsub;
		p->rec = arena_grow(r->ar, p->rec, old * sizeof(*p->rec), p->caprec * sizeof(*p->rec));
	}
	run_section_factors(r, d.len, wn);
	memset(found, 0, sizeof(found));
	text = 0;
	for (size_t i = 0; i < p->np; i++) {
		const struct pterm *t = &p->t[i];
		bool title = false, *f = &found[t->l - r->leaves];

		text += term_bound(p, t, site, url, wn, p->rec + p->nrec, f, &title);
		in_title &= title;
		all &= *f;
	}
	/* With every word's positions (the usual case) the proximity bound
	 * is the query's own. */
	text += (all ? p->prox_all : run_proximity_bound(r, found)) + phrase_bound(p, wn);
	pr = run_pr(r, url);
	if (p->ncand == p->capcand) {
		size_t old = p->capcand;

		p->capcand = p->capcand ? 2 * p->capcand : PRUNE_CAND_FIRST;
		p->cand = arena_grow(r->ar, p->cand, old * sizeof(*p->cand), p->capcand * sizeof(*p->cand));
	}
	c = &p->cand[p->ncand++];
	c->key = (uint64_t)site << 32 | url;
	c->ub = run_doc_bound(r, text, pr, in_title, d.len[TOK_SECTION_TITLE]);
	c->ub += fabs(c->ub) * PRUNE_MARGIN + PRUNE_MARGIN;
	if (c->ub > p->site_max)
		p->site_max = c->ub;
	c->last_modified = d.last_modified;
	c->at = p->nrec;
	c->scored = false;
	p->nrec += p->npsub;
	return 0;
}

/* pl := document key with the positions of the records x[i] of the lists
 * of kind of word t (none: no document). */
static void plist_one(const struct prune *p, const struct pterm *t, int kind,
		      const struct rec *x, uint64_t key, struct plist *pl)
{
	uint32_t n = 0, lists = 0;

	for (size_t j = t->first; j < t->first + t->ns; j++)
		if (p->sub[j].kind == kind && x[j].n) {
			n += x[j].n;
			lists++;
		}
	if (!pl->cap) {
		pl->key = xmalloc(sizeof(*pl->key));
		pl->end = xmalloc(sizeof(*pl->end));
		pl->cap = 1;
	}
	if (pl->poscap < n) {
		pl->poscap = n;
		pl->pos = xrealloc(pl->pos, pl->poscap * sizeof(*pl->pos));
	}
	n = 0;
	for (size_t j = t->first; j < t->first + t->ns; j++) {
		if (p->sub[j].kind != kind || !x[j].n)
			continue;
		/* Several forms in one document: each record is sorted, so the
		 * next one is merged into what is there, from the back. */
		if (lists > 1 && n) {
			uint32_t a = n, b = x[j].n, o = n + b;

			while (b) {
				tok_pos_t v = storage_rec_pos(x[j].pos, b - 1);

				if (a && pl->pos[a - 1] > v) {
					pl->pos[--o] = pl->pos[--a];
				} else {
					pl->pos[--o] = v;
					b--;
				}
			}
			n += x[j].n;
			continue;
		}
		for (uint32_t i = 0; i < x[j].n; i++)
			pl->pos[n++] = storage_rec_pos(x[j].pos, i);
	}
	pl->key[0] = key;
	pl->end[0] = n;
	pl->n = n ? 1 : 0;
	pl->npos = n;
}

/* Each positive word's postings: the one document of c, in pl for a plain
 * word, in xpl, fpl and apl for one with forms or anchor text (what
 * score_words() reads). */
static void load_cand(struct prune *p, const struct cand *c)
{
	const struct rec *x = p->rec + c->at;

	for (size_t i = 0; i < p->np; i++) {
		const struct pterm *t = &p->t[i];
		struct leaf *l = t->l;

		for (size_t j = t->first; j < t->first + t->ns; j++)
			p->r->work.postings += x[j].n > 0;
		if (!l->n_forms && !l->anchored) {
			plist_one(p, t, SUB_OWN, x, c->key, &l->pl);
			l->cursor = 0;
			continue;
		}
		plist_one(p, t, SUB_OWN, x, c->key, &l->xpl);
		plist_one(p, t, SUB_FORM, x, c->key, &l->fpl);
		plist_one(p, t, SUB_ANCHOR, x, c->key, &l->apl);
		l->xcursor = l->fcursor = l->acursor = 0;
	}
	/* Each phrase's occurrences: score_phrases() finds the document. */
	for (size_t i = 0; i < p->nf; i++) {
		struct pphrase *f = &p->f[i];

		f->key = c->key;
		phrase_match(p, f, x, f->count);
		f->ph->key = &f->key;
		f->ph->count = &f->count;
		f->ph->n = 1;
		f->ph->cursor = 0;
	}
}

static int score_cand(struct prune *p, struct cand *c)
{
	struct search_doc d;
	bool keep;

	load_cand(p, c);
	if (run_score_one(p->r, c->key, &d, &keep))
		return -1;
	c->score = keep ? d.score : -HUGE_VAL;
	c->scored = true;
	return 0;
}

/* The candidates as a max-heap by bound, popped one by one: the site's
 * candidates are taken best bound first, and usually only a few are. */
static void cand_sift(struct cand *v, size_t i, size_t n)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct cand t;

		if (l < n && v[l].ub > v[m].ub)
			m = l;
		if (l + 1 < n && v[l + 1].ub > v[m].ub)
			m = l + 1;
		if (m == i)
			return;
		t = v[i];
		v[i] = v[m];
		v[m] = t;
		i = m;
	}
}

/* Pop the best bound of v[0..*n) to v[*n - 1]; its index. */
static size_t cand_pop(struct cand *v, size_t *n)
{
	struct cand t = v[0];

	v[0] = v[--*n];
	v[*n] = t;
	cand_sift(v, 0, *n);
	return *n;
}

/* True the first time near-duplicate group g (not 0) is offered to the
 * heap: a group stays on the page with one document, so it is one entry
 * of the heap, whichever of its members came first. */
static bool group_first(struct prune *p, uint32_t g)
{
	size_t i;

	if (2 * (p->ngroups + 1) > p->capgroups) {
		uint32_t *old = p->groups;
		size_t n = p->capgroups;

		p->capgroups = n ? 2 * n : 64;
		p->groups = arena_calloc(p->r->ar, p->capgroups, sizeof(*p->groups));
		p->ngroups = 0;
		for (size_t j = 0; j < n; j++)
			if (old[j])
				group_first(p, old[j]);
	}
	for (i = g * 2654435761u & (p->capgroups - 1); p->groups[i]; i = (i + 1) & (p->capgroups - 1))
		if (p->groups[i] == g)
			return false;
	p->groups[i] = g;
	p->ngroups++;
	return true;
}

/* Whether a scored document's score may enter the heap of the page's k
 * best entries.  Near-duplicate folding (search_dup.c) drops every member
 * of a group but its best after the walk, so the heap must hold scores of
 * entries that stay: a document with no near-duplicate always stays; of a
 * group, only its first scored member is offered (a lower bound of the
 * group's best, which stays).  So the threshold never exceeds the folded
 * page's k-th score, and folding cannot leave the page short. */
static bool heap_may_take(struct prune *p, const struct cand *c)
{
	uint32_t g = neardup_group_of(p->r->ix->nd, (uint32_t)c->key);

	return !g || (isfinite(c->score) && group_first(p, g));
}

/* Candidate k (appended after the heap v[0..*n) and the popped ones)
 * into the heap. */
static void cand_push(struct cand *v, size_t *n, size_t k)
{
	size_t i = (*n)++;
	struct cand t = v[k];

	v[k] = v[i];
	while (i > 0 && v[(i - 1) / 2].ub < t.ub) {
		v[i] = v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	v[i] = t;
}

/* Score the candidates of one site that can reach the page, best bound
 * first (none when its best bound is below the threshold).  Grouped, the page shows a site by its best document and its
 * second: a site whose bounds are all below the threshold is out, and in a
 * site that may be in, scoring stops when two exact scores that no
 * near-duplicate can take off the page (documents without one) beat every
 * bound left (or the site's best is below the threshold and so is every
 * bound left); only such a score enters the heap for the site.  Ungrouped,
 * every document is an entry (heap_may_take()).  With ranges (rg, best
 * bound first: search_block.c), the site's candidates are not read yet:
 * a range is read when its bound is the best left, its documents joining
 * the heap, and the ranges left when scoring stops are passed over (each
 * of their documents' bounds is below the range's).  0, -1 or 1
 * (deadline). */
static int rank_site(struct prune *p, uint32_t site, const struct prange *rg, size_t nrg,
		     size_t *seen)
{
	double th = prune_theta(p), best = -HUGE_VAL;
	double sure = -HUGE_VAL, sure2 = -HUGE_VAL; /* of documents without near-duplicates */
	size_t left = rg || p->site_max < th ? 0 : p->ncand, ri = 0;
	int rc;

	for (size_t i = left / 2; i-- > 0;)
		cand_sift(p->cand, i, left);
	while (left || ri < nrg) {
		struct cand *c;
		double ub = left ? p->cand[0].ub : -HUGE_VAL;
		bool range = ri < nrg && !(rg[ri].ub < ub);

		ub = range ? rg[ri].ub : ub;
		if (!p->group) {
			if (ub < prune_theta(p))
				break;
		} else if (ub < sure2 || (best < th && ub < th)) {
			break;
		}
		if (range) {
			size_t n0 = p->ncand;

			rc = prune_blk_expand(p, site, &rg[ri++], seen);
			if (rc)
				return rc;
			for (size_t k = n0; k < p->ncand; k++)
				cand_push(p->cand, &left, k);
			continue;
		}
		c = &p->cand[cand_pop(p->cand, &left)];
		if (score_cand(p, c))
			return -1;
		if (c->score > best)
			best = c->score;
		if (!p->group) {
			if (heap_may_take(p, c))
				heap_offer(p, c->score);
		} else if (neardup_group_of(p->r->ix->nd, (uint32_t)c->key)) {
			continue;
		} else if (c->score > sure) {
			sure2 = sure;
			sure = c->score;
		} else if (c->score > sure2) {
			sure2 = c->score;
		}
	}
	rc = prune_blk_pass(p, site, rg + ri, nrg - ri, p->ncand > 0, seen);
	if (rc)
		return rc;
	/* Folding keeps a group's best, which may be in another site: every
	 * member of such a group is scored, so that the one kept (and with it
	 * the sites' counts) is the one exhaustive scoring keeps. */
	for (size_t j = 0; j < p->ncand && p->r->ix->nd_split; j++) {
		struct cand *c = &p->cand[j];
		uint32_t url = (uint32_t)c->key;

		if (c->scored || url > p->r->ix->nd_split_max ||
		    !(p->r->ix->nd_split[url / 64] >> (url % 64) & 1))
			continue;
		if (score_cand(p, c))
			return -1;
		if (!p->group && heap_may_take(p, c))
			heap_offer(p, c->score);
	}
	if (p->group && sure > -HUGE_VAL)
		heap_offer(p, sure);
	if (p->ndocs + p->ncand > p->capdocs) {
		size_t cap = 2 * (p->ndocs + p->ncand) + 256;

		p->docs = arena_grow(p->r->ar, p->docs, p->ndocs * sizeof(*p->docs),
				     cap * sizeof(*p->docs));
		p->capdocs = cap;
	}
	for (size_t j = 0; j < p->ncand; j++) {
		const struct cand *c = &p->cand[j];

		p->docs[p->ndocs++] = (struct search_doc){
			(uint32_t)(c->key >> 32), (uint32_t)c->key,
			c->scored ? c->score : -HUGE_VAL, c->last_modified };
	}
	return 0;
}

int prune_pairs_align(struct prune *p, const struct pterm *d, uint32_t site, uint32_t *url)
{
	int rc = 1;

	/* Leapfrog: a pair past *url sends the driver to its record. */
	for (size_t i = 1; rc == 1 && i < p->npair;) {
		struct psub *s = &p->sub[p->pair[i].first];

		rc = prune_sub_has(s, site, *url);
		if (rc < 0)
			return -1;
		if (rc == 1) {
			i++;
			continue;
		}
		if (s->ended || s->site != site || s->site_done)
			return 0;
		rc = prune_term_next(p, d, site, s->url, url);
		i = 1;
	}
	return rc;
}

/* The documents of the driving word d in site (the union of its lists'):
 * each a candidate or not.  0, -1 or 1 (deadline). */
static int prune_site(struct prune *p, const struct pterm *d, uint32_t site, size_t *seen)
{
	uint32_t url = 0;

	for (;;) {
		/* Every list of d to its first record after url (with every
		 * pair there when a pair drives). */
		int rc = prune_next_doc(p, d, site, url + 1, &url);

		if (rc <= 0)
			return rc;
		p->r->work.visited++;
		if (p->ahead)
			prune_prefetch_next(p, d, site, url);
		if (prune_doc(p, site, url))
			return -1;
		if (++*seen % 4096 == 0 && run_past_deadline(p->r))
			return 1;
	}
}

/* The next site after *site that the driving word has, every other
 * positive word has too and the site filters keep: 1, 0 at the end, -1. */
int prune_walk_next(struct prune *p, uint32_t *site)
{
	const struct pterm *d = p->drv;

	for (;;) {
		bool skip;

		if (*site == UINT32_MAX || term_to_site(p, d, *site + 1))
			return *site == UINT32_MAX ? 0 : -1;
		if (!term_min_site(p, d, site))
			return 0;
		skip = !site_keeps(p->r, *site);
		for (size_t i = 1; i < p->npair && !skip; i++) {
			uint32_t at;

			if (term_to_site(p, &p->pair[i], *site))
				return -1;
			if (!term_min_site(p, &p->pair[i], &at))
				return 0;
			skip = !term_at_site(p, &p->pair[i], *site);
		}
		for (size_t i = d == &p->t[0]; i < p->nt && !skip; i++) {
			uint32_t at;

			if (term_to_site(p, &p->t[i], *site))
				return -1;
			/* A word whose sites are all behind: nothing matches any more. */
			if (i < p->np && !term_min_site(p, &p->t[i], &at))
				return 0;
			skip = i < p->np && !term_at_site(p, &p->t[i], *site);
		}
		if (!skip)
			return 1;
	}
}

/* Site's candidates, then their scores.  0, -1 or 1 (deadline). */
int prune_visit_site(struct prune *p, uint32_t site, size_t *seen)
{
	int rc;

	p->ncand = p->nrec = 0;
	p->site_max = -HUGE_VAL;
	rc = prune_blk_ranges(p, site);
	if (rc < 0)
		return -1;
	if (rc == 1) {
		rc = rank_site(p, site, p->rg, p->nrg, seen);
	} else {
		rc = prune_site(p, p->drv, site, seen);
		if (rc == 0)
			rc = rank_site(p, site, NULL, 0, seen);
	}
	if (rc)
		return rc;
	return run_past_deadline(p->r) ? 1 : 0;
}

/* Every site of the driving word: its candidates, then their scores.  0,
 * -1 or 1 (deadline). */
static int prune_walk(struct prune *p)
{
	struct run *r = p->r;
	uint32_t site = 0;
	size_t seen = 0, first = 0;
	int rc;

	r->work.lists += p->nsub;
	if (p->use_sum && (rc = prune_first(p, &seen)) != 0)
		return rc;
	while ((rc = prune_walk_next(p, &site)) > 0) {
		/* The sites visited first are not again. */
		while (first < p->nfirst && p->first[first].site < site)
			first++;
		if (first < p->nfirst && p->first[first].site == site)
			continue;
		r->work.sites++;
		rc = p->use_sum ? prune_sum_pass(p, site, &seen) : 0;
		if (rc < 0 || rc == 2)
			return rc < 0 ? -1 : 1;
		if (rc == 0 && (rc = prune_visit_site(p, site, &seen)) != 0)
			return rc;
	}
	return rc;
}

int run_prune(struct run *r, uint32_t page_size, struct search_doc **docs, size_t *n_docs)
{
	struct prune p;
	uint32_t page = r->req->page < PROTO_MAX_PAGE ? r->req->page : PROTO_MAX_PAGE;
	int rc;

	memset(&p, 0, sizeof(p));
	p.r = r;
	p.group = r->req->group;
	p.k = (size_t)(page + 1) * page_size;
	p.heap = arena_alloc(r->ar, p.k * sizeof(*p.heap));
	rc = prune_open(&p);
	if (rc == 0)
		rc = prune_sum_open(&p);
	if (rc == 0)
		rc = prune_blk_open(&p);
	if (rc == 0)
		rc = prune_walk(&p);
	else if (rc == 1)
		rc = 0;
	if (rc < 0)
		run_fail(r, "ER_INDEX", "The index could not be read.");
	r->work.pruned++;
	/* sub, their cursors, heap, cand and rec are in the query's arena. */
	/* The phrases' matches were the last candidate's, in p. */
	for (size_t i = 0; i < r->n_phrases; i++) {
		r->phrases[i].key = NULL;
		r->phrases[i].count = NULL;
		r->phrases[i].n = 0;
	}
	*docs = p.docs;
	*n_docs = p.ndocs;
	return rc;
}
