/* crawl_analyse.c - a fetched page body into an analysis: what page_commit() stores.
 *
 * Owns content sniffing, the MD5 and unchanged check, charset conversion,
 * parsing, the page's links (admitted through crawl_admit.c), its words in
 * DOC record order and its compressed text.  Pure: no database, delta log,
 * seen-set or counters, so it runs on an analysis thread (crawl_threads.c)
 * or inline; committing the result is crawl_commit.c's.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "caps.h"
#include "charset.h"
#include "conf.h"
#include "delta.h"
#include "docblob.h"
#include "html.h"
#include "log.h"
#include "simhash.h"
#include "tokenize.h"
#include "url.h"
#include "util.h"
#include "crawl_int.h"

/* Copy s into a column of at most max bytes, cut on a UTF-8 boundary;
 * NULL becomes "". */
static char *col_dup(const char *s, size_t max)
{
	if (!s)
		return xstrdup("");
	return xstrndup(s, utf8_cut(s, strlen(s), max));
}

/* The media type of a Content-Type value, lowercase, without parameters. */
void media_type(const char *ctype, char *out, size_t size)
{
	size_t n = 0;

	out[0] = '\0';
	if (!ctype)
		return;
	while (*ctype == ' ' || *ctype == '\t')
		ctype++;
	while (ctype[n] && ctype[n] != ';' && ctype[n] != ' ' && n + 1 < size) {
		char ch = ctype[n];

		out[n] = (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
		if ((unsigned char)out[n] < 0x21 || (unsigned char)out[n] > 0x7e)
			out[n] = '_';
		n++;
	}
	out[n] = '\0';
}

bool is_html_type(const char *mt)
{
	return !strcmp(mt, "text/html") || !strcmp(mt, "application/xhtml+xml");
}

static bool is_text_type(const char *mt)
{
	return !strcmp(mt, "text/plain") || !strcmp(mt, "text/css") ||
	       !strcmp(mt, "text/tab-separated-values");
}

void doc_cols_free(struct doc_cols *k)
{
	free(k->content_type);
	free(k->charset);
	free(k->title);
	free(k->txt);
	free(k->keywords);
	free(k->description);
	memset(k, 0, sizeof(*k));
}

/* ---- words ------------------------------------------------------------------------ */

/* Forget the words, keep the memory: only the slots in use are cleared (a
 * page of 30,000 words left a table that one memset per page paid for). */
static void words_reset(struct word_tab *w)
{
	for (size_t i = 0; i < w->n; i++) {
		w->ents[i].n = 0;
		w->slots[w->ents[i].slot] = 0;
	}
	w->n = 0;
	w->total = 0;
	w->full = false;
}

/* The hash of a word: 8 bytes at a time, finished as MurmurHash3's fmix64
 * (the table takes the low bits). */
static uint64_t word_hash(const char *s, size_t n)
{
	uint64_t h = (uint64_t)n * 0x9E3779B97F4A7C15ull, v;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&v, s, 8);
		h = (h ^ v) * 0xFF51AFD7ED558CCDull;
		h ^= h >> 32;
	}
	if (n >= 4) {           /* the last 4..7 bytes as two loads that may overlap */
		uint32_t a, b;

		memcpy(&a, s, 4);
		memcpy(&b, s + n - 4, 4);
		h = (h ^ ((uint64_t)a << 32 | b)) * 0xFF51AFD7ED558CCDull;
	} else if (n) {
		h = (h ^ ((uint64_t)(unsigned char)s[0] << 16 |
			  (uint64_t)(unsigned char)s[n / 2] << 8 | (unsigned char)s[n - 1])) *
		    0xFF51AFD7ED558CCDull;
	}
	h ^= h >> 33;
	h *= 0xC4CEB9FE1A85EC53ull;
	return h ^ (h >> 33);
}

/* The first 8 bytes of a word as a number that orders as memcmp() does,
 * a shorter prefix first (words hold no NUL). */
static uint64_t word_key(const char *s, size_t n)
{
	uint64_t k = 0;

	for (size_t i = 0; i < 8; i++)
		k = k << 8 | (i < n ? (unsigned char)s[i] : 0);
	return k;
}

static void words_free(struct word_tab *w)
{
	for (size_t i = 0; i < w->cap; i++)
		free(w->ents[i].pos);
	free(w->ents);
	free(w->sorted);
	free(w->keys);
	free(w->slots);
	memset(w, 0, sizeof(*w));
}

static void words_rehash(struct word_tab *w, size_t nslots)
{
	free(w->slots);
	w->nslots = nslots;
	w->slots = xcalloc(nslots, sizeof(*w->slots));
	for (size_t i = 0; i < w->n; i++) {
		size_t h = (size_t)word_hash(w->ents[i].word, w->ents[i].len) & (nslots - 1);

		while (w->slots[h])
			h = (h + 1) & (nslots - 1);
		w->slots[h] = (uint32_t)i + 1;
		w->ents[i].slot = (uint32_t)h;
	}
}

/* a[0..n) == b[0..n), n >= 1: words are short, so two loads that may
 * overlap instead of a call to memcmp() up to 16 bytes (no byte outside
 * either word is read). */
static inline bool word_eq(const char *a, const char *b, size_t n)
{
	if (n >= 8) {
		uint64_t a0, a1, b0, b1;

		if (n > 16)
			return !memcmp(a, b, n);
		memcpy(&a0, a, 8);
		memcpy(&b0, b, 8);
		memcpy(&a1, a + n - 8, 8);
		memcpy(&b1, b + n - 8, 8);
		return !((a0 ^ b0) | (a1 ^ b1));
	}
	if (n >= 4) {
		uint32_t a0, a1, b0, b1;

		memcpy(&a0, a, 4);
		memcpy(&b0, b, 4);
		memcpy(&a1, a + n - 4, 4);
		memcpy(&b1, b + n - 4, 4);
		return !((a0 ^ b0) | (a1 ^ b1));
	}
	return a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1];
}

static int word_emit(const char *word, size_t len, tok_pos_t pos, bool stop, void *arg)
{
	struct word_tab *w = arg;
	struct word_ent *e;
	size_t h;

	if (stop || len > MAX_WORD_LEN)
		return 0;
	if (!w->slots)
		words_rehash(w, 1024);
	h = (size_t)word_hash(word, len) & (w->nslots - 1);
	while (w->slots[h]) {
		e = &w->ents[w->slots[h] - 1];
		if (e->len == len && word_eq(e->word, word, len))
			goto found;
		h = (h + 1) & (w->nslots - 1);
	}
	if (w->n >= DELTA_MAX_DOC_WORDS) {
		w->full = true;
		return 0;
	}
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 256;

		w->ents = xrealloc(w->ents, cap * sizeof(*w->ents));
		memset(w->ents + w->cap, 0, (cap - w->cap) * sizeof(*w->ents));
		w->cap = cap;
	}
	e = &w->ents[w->n];
	memcpy(e->word, word, len);
	e->word[len] = '\0';
	e->len = (uint8_t)len;
	e->n = 0;
	e->slot = (uint32_t)h;
	e->key = word_key(word, len);
	w->slots[h] = (uint32_t)++w->n;
	if (2 * w->n > w->nslots)
		words_rehash(w, 2 * w->nslots);
found:
	if (e->n == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 4;
		e->pos = xrealloc(e->pos, e->cap * sizeof(*e->pos));
	}
	if (e->n < DELTA_MAX_WORD_POSITIONS + 1u)
		e->pos[e->n++] = pos;
	w->total++;
	return 0;
}

struct text_ctx {
	const struct tokenizer *tok;
	struct word_tab *words;
	struct tok_doc td;
	struct simhash sh;           /* the page's signature, from the same text */
};

static void text_cb(enum section sec, const char *utf8, size_t len, void *arg)
{
	struct text_ctx *x = arg;

	tok_run(x->tok, &x->td, (int)sec, utf8, len, word_emit, x->words);
	simhash_feed(&x->sh, utf8, len);
}

static int cmp_pos(const void *a, const void *b)
{
	tok_pos_t x = *(const tok_pos_t *)a, y = *(const tok_pos_t *)b;

	return x < y ? -1 : x > y;
}

/* delta_wordcmp() order of two words, by their keys first. */
static inline bool word_less(const struct word_ent *x, const struct word_ent *y)
{
	if (x->key != y->key)
		return x->key < y->key;
	if (x->len <= 8 || y->len <= 8)
		return x->len < y->len;
	return delta_wordcmp(x->word + 8, x->len - 8u, y->word + 8, y->len - 8u) < 0;
}

/* A word to sort: its key beside it, so that most comparisons read no
 * word_ent (a page's few thousand words are scattered in ents). */
struct word_key {
	uint64_t key;
	const struct word_ent *e;
};

static inline bool key_less(const struct word_key *x, const struct word_key *y)
{
	return x->key != y->key ? x->key < y->key : word_less(x->e, y->e);
}

/* Sort v[0..n) by key_less(): quicksort, median of three, the smaller side
 * first by recursion (depth at most log2 n), insertion sort below 16.  Half
 * of what qsort() with delta_wordcmp() cost, and half of that again with
 * the keys beside the pointers. */
static void word_sort(struct word_key *v, size_t n)
{
	while (n > 16) {
		struct word_key t, p;
		size_t a = 0, b = n / 2, c = n - 1, i, j;

		if (key_less(&v[b], &v[a])) { t = v[a]; v[a] = v[b]; v[b] = t; }
		if (key_less(&v[c], &v[b])) { t = v[b]; v[b] = v[c]; v[c] = t; }
		if (key_less(&v[b], &v[a])) { t = v[a]; v[a] = v[b]; v[b] = t; }
		p = v[b];
		i = 0;
		j = n - 1;
		for (;;) {
			while (key_less(&v[i], &p))
				i++;
			while (key_less(&p, &v[j]))
				j--;
			if (i >= j)
				break;
			t = v[i]; v[i] = v[j]; v[j] = t;
			i++;
			j--;
		}
		/* v[0..j] <= p <= v[j+1..n) */
		if (j + 1 < n - j - 1) {
			word_sort(v, j + 1);
			v += j + 1;
			n -= j + 1;
		} else {
			word_sort(v + j + 1, n - j - 1);
			n = j + 1;
		}
	}
	for (size_t i = 1; i < n; i++) {
		struct word_key x = v[i];
		size_t k = i;

		for (; k > 0 && key_less(&x, &v[k - 1]); k--)
			v[k] = v[k - 1];
		v[k] = x;
	}
}

/* Reverse v[0..n) in place. */
static void reverse_pos(tok_pos_t *v, size_t n)
{
	for (size_t i = 0, j = n; i + 1 < j; i++, j--) {
		tok_pos_t t = v[i];

		v[i] = v[j - 1];
		v[j - 1] = t;
	}
}

/* Sort a word's positions.  They come as ascending runs, one per section
 * in the order html_foreach_text() visits them (title, description,
 * keywords, body): descending by the section bits.  When every run lies
 * wholly above the next, the runs in reverse order are sorted: reverse the
 * whole, then each run back (no comparison sort).  Else qsort().  Most
 * words are in order already (in one section): one pass, nothing moved. */
static void positions_sort(tok_pos_t *pos, size_t n)
{
	size_t cut[SECTION_COUNT + 1], ncut = 0;

	for (size_t m = 1; m < n; m++) {
		if (pos[m - 1] <= pos[m])
			continue;
		/* A descent: the run before must lie wholly above the run
		 * after it, checked once the latter ends (below). */
		if (ncut == SECTION_COUNT)
			goto fallback;
		cut[ncut++] = m;
	}
	if (!ncut)
		return;
	cut[ncut] = n;
	for (size_t k = 0; k < ncut; k++) {
		size_t from = k ? cut[k - 1] : 0;

		/* run k is pos[from, cut[k]), run k + 1 pos[cut[k], cut[k + 1]) */
		if (pos[cut[k + 1] - 1] > pos[from])
			goto fallback;
	}
	reverse_pos(pos, n);
	/* The runs now stand in reverse order, each reversed. */
	for (size_t k = 0; k <= ncut; k++) {
		size_t from = k ? cut[k - 1] : 0;

		/* Run k of the input, pos[from, cut[k]), sits reversed at
		 * pos[n - cut[k], n - from). */
		reverse_pos(pos + (n - cut[k]), cut[k] - from);
	}
	return;
fallback:
	qsort(pos, n, sizeof(*pos), cmp_pos);
}

/* Sort the positions of every word and make them unique (saturated
 * positions repeat), at most DELTA_MAX_WORD_POSITIONS; list the words in
 * the order of a DOC record (here, on an analysis thread, rather than in
 * the delta writer on the crawl loop). */
static void words_finish(struct word_tab *w)
{
	struct word_key *keys;

	if (w->n > w->sorted_cap) {
		w->sorted_cap = w->n;
		w->sorted = xrealloc(w->sorted, w->sorted_cap * sizeof(*w->sorted));
		w->keys = xrealloc(w->keys, w->sorted_cap * sizeof(*keys));
	}
	keys = w->keys;
	for (size_t i = 0; i < w->n; i++)
		keys[i] = (struct word_key){ w->ents[i].key, &w->ents[i] };
	word_sort(keys, w->n);
	for (size_t i = 0; i < w->n; i++)
		w->sorted[i] = keys[i].e;
	for (size_t i = 0; i < w->n; i++) {
		struct word_ent *e = &w->ents[i];
		size_t k = 0;

		positions_sort(e->pos, e->n);
		for (size_t m = 0; m < e->n; m++)
			if (!k || e->pos[k - 1] != e->pos[m])
				e->pos[k++] = e->pos[m];
		e->n = (uint32_t)(k > DELTA_MAX_WORD_POSITIONS ? DELTA_MAX_WORD_POSITIONS : k);
	}
}

/* ---- links ------------------------------------------------------------------------ */

static void linklist_init(struct linklist *l)
{
	memset(l, 0, sizeof(*l));
	buf_init(&l->pool, (size_t)MAX_HTML_LINKS * 2 * (MAX_URL_LEN + 1));
}

static void linklist_reset(struct linklist *l)
{
	buf_reset(&l->pool);
	l->n = 0;
	if (l->slots)
		memset(l->slots, 0, l->nslots * sizeof(*l->slots));
}

static void linklist_free(struct linklist *l)
{
	buf_free(&l->pool);
	free(l->off);
	free(l->slots);
	memset(l, 0, sizeof(*l));
}

static void linklist_rehash(struct linklist *l, size_t nslots)
{
	free(l->slots);
	l->nslots = nslots;
	l->slots = xcalloc(nslots, sizeof(*l->slots));
	for (size_t i = 0; i < l->n; i++) {
		const char *u = linklist_url(l, i);
		size_t h = (size_t)hash64(u, strlen(u)) & (nslots - 1);

		while (l->slots[h])
			h = (h + 1) & (nslots - 1);
		l->slots[h] = (uint32_t)i + 1;
	}
}

/* Add url (normalised) with its site key and anchor text (NULL: none),
 * unless it is there already: the first link to a URL gives its anchor.
 * false when it was (or there is no room left). */
static bool linklist_add(struct linklist *l, const char *url, const char *site,
			 const char *anchor)
{
	size_t len = strlen(url), off, h;

	if (!l->slots || 2 * (l->n + 1) > l->nslots)
		linklist_rehash(l, l->nslots ? 2 * l->nslots : 256);
	h = (size_t)hash64(url, len) & (l->nslots - 1);
	for (; l->slots[h]; h = (h + 1) & (l->nslots - 1))
		if (!strcmp(linklist_url(l, l->slots[h] - 1), url))
			return false;
	off = l->pool.len;
	if (!anchor)
		anchor = "";
	if (buf_add(&l->pool, url, len + 1) || buf_add(&l->pool, site, strlen(site) + 1) ||
	    (buf_add(&l->pool, anchor, strlen(anchor) + 1) && buf_add(&l->pool, "", 1))) {
		buf_truncate(&l->pool, off);
		return false;
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->off = xrealloc(l->off, l->cap * sizeof(*l->off));
	}
	l->off[l->n] = (uint32_t)off;
	l->slots[h] = (uint32_t)++l->n;
	return true;
}

/* A converted body above this size does not keep its buffer for the next
 * page. */
#define UTF8_KEEP (1u << 20)

static struct refent *refset_slot(struct refset *r, const char *p, size_t len)
{
	size_t h = (size_t)hash64(p, len) & (r->nslots - 1);

	while (r->v[h].p && (r->v[h].len != len || memcmp(r->v[h].p, p, len)))
		h = (h + 1) & (r->nslots - 1);
	return &r->v[h];
}

/* Was a reference with ref's text before '#' added? */
static bool refset_has(struct refset *r, const char *ref)
{
	return r->n && refset_slot(r, ref, strcspn(ref, "#"))->p;
}

static void refset_add(struct refset *r, const char *ref)
{
	size_t len = strcspn(ref, "#");
	struct refent *e;

	if (2 * (r->n + 1) > r->nslots) {
		struct refset g = { xcalloc(r->nslots ? 2 * r->nslots : 256, sizeof(*r->v)),
				    r->nslots ? 2 * r->nslots : 256, r->n };

		for (size_t i = 0; i < r->nslots; i++)
			if (r->v[i].p)
				*refset_slot(&g, r->v[i].p, r->v[i].len) = r->v[i];
		free(r->v);
		*r = g;
	}
	e = refset_slot(r, ref, len);
	if (!e->p) {
		e->p = ref;
		e->len = len;
		r->n++;
	}
}

/* Empty the set; a table grown by a page of thousands of links shrinks back
 * rather than be cleared whole for every page after it. */
static void refset_reset(struct refset *r)
{
	if (r->nslots > 256 && 16 * r->n < r->nslots) {
		free(r->v);
		r->v = NULL;
		r->nslots = 0;
	} else if (r->n) {
		memset(r->v, 0, r->nslots * sizeof(*r->v));
	}
	r->n = 0;
}

/* The length of base up to and with its last '/' before any query. */
static size_t base_dir_len(const char *base)
{
	size_t n = strcspn(base, "?#");

	while (n && base[n - 1] != '/')
		n--;
	return n;
}

/* ---- the analysis and the analyser ------------------------------------------------- */

#define SLOT_KEEP (256u << 10)

void analysis_init(struct analysis *a)
{
	memset(a, 0, sizeof(*a));
	linklist_init(&a->links);
	delta_words_init(&a->dw);
}

void analyser_init(struct analyser *an)
{
	memset(an, 0, sizeof(*an));
	linkcache_init(&an->lc);
	buf_init(&an->utf8, (size_t)MAX_DOC_BYTES * 2);
	an->zbuf = xmalloc(DOCBLOB_SCRATCH);
}

void analyser_free(struct analyser *an)
{
	linkcache_free(&an->lc);
	buf_free(&an->utf8);
	free(an->zbuf);
	an->zbuf = NULL;
	free(an->refs.v);
	memset(&an->refs, 0, sizeof(an->refs));
	words_free(&an->words);
}

/* Forget the last page (what page_commit() did not take), keep the memory
 * of the tables. */
void analysis_clear(struct analysis *a)
{
	doc_cols_free(&a->cols);
	free(a->ref);
	free(a->ref_url);
	free(a->z);
	a->ref = a->ref_url = NULL;
	a->z = NULL;
	a->zlen = 0;
	a->noindex = a->nofollow = a->ref_meta = a->words_bad = false;
	a->nwords = 0;
	a->total = 0;
	a->simhash = 0;
	memset(&a->lcount, 0, sizeof(a->lcount));
	/* A slot keeps a page's tables for the next, unless a huge page grew
	 * them: slots are many (8 per thread), huge pages few. */
	if (a->links.pool.alloc > SLOT_KEEP || a->links.nslots > 4096) {
		linklist_free(&a->links);
		linklist_init(&a->links);
	} else {
		linklist_reset(&a->links);
	}
	if (a->dw.bytes.alloc > SLOT_KEEP) {
		delta_words_free(&a->dw);
		delta_words_init(&a->dw);
	} else {
		delta_words_reset(&a->dw);
	}
}

void analysis_free(struct analysis *a)
{
	analysis_clear(a);
	linklist_free(&a->links);
	delta_words_free(&a->dw);
}

/* ---- a page body, phase by phase ----------------------------------------------------- */

/* Phase 1: what the body is.  Its media type (sniffed when the response
 * gives none), MD5 and size, and a->kind: a type not indexed, unchanged
 * since the last fetch, or a document to parse. */
static void classify_body(bool force, const struct job *j, const struct fetch_result *r,
			  const char *body, size_t blen, struct analysis *a)
{
	media_type(r->content_type, a->mt, sizeof(a->mt));
	if (!a->mt[0]) {
		/* No Content-Type: sniff like a browser would for the two we parse. */
		size_t k = 0;

		while (k < blen && k < 512 && (body[k] == ' ' || body[k] == '\n' ||
					       body[k] == '\r' || body[k] == '\t'))
			k++;
		strlcpy_(a->mt, k < blen && body[k] == '<' ? "text/html" : "text/plain",
			 sizeof(a->mt));
	}
	docblob_md5(body, blen, a->crc);
	a->blen = blen;
	if (!is_html_type(a->mt) && !is_text_type(a->mt))
		a->kind = AN_TYPE;
	else if (!force && j->row.status == 200 && !strcmp(a->crc, j->row.crc))
		a->kind = AN_UNCHANGED;
	else
		a->kind = AN_DOC;
}

/* Phase 2: the body converted to UTF-8 (into utf8, its charset in *ci) and
 * parsed as HTML or as text into *doc. */
static void parse_body(const struct job *j, const struct fetch_result *r, bool html,
		       const char *body, size_t blen, struct buf *utf8, struct charset_info *ci,
		       struct html_doc *doc)
{
	buf_reset(utf8);
	charset_to_utf8(body, blen, r->content_type, j->p->charset, html ? 0 : CHARSET_NO_META,
			utf8, ci);
	if (ci->note[0])
		debug("%s: charset %s (%s): %s", j->row.url, ci->name,
		      charset_source_name(ci->source), ci->note);
	memset(doc, 0, sizeof(*doc));
	if (html)
		html_parse(buf_str(utf8), utf8->len, doc);
	else
		html_parse_text(buf_str(utf8), utf8->len, doc);
}

/* Phase 3: the page's links, resolved against <base href> and admitted,
 * into a->links (also from clones and noindex pages: they are still pages
 * of the site; page_commit() drops those of clones), unless nofollow or
 * Follow no.  a->lcount says what became of each. */
static void collect_links(const struct conf *c, const struct job *j, const struct html_doc *doc,
			  struct analysis *a, struct analyser *an)
{
	const struct conf_server_params *sp = j->p;
	struct buf basebuf = BUF_INIT(MAX_URL_LEN + 1), lk = BUF_INIT(MAX_URL_LEN + 1);
	struct buf site = BUF_INIT(MAX_URL_LEN + 1), fsite = BUF_INIT(MAX_URL_LEN + 1);
	struct link_counts *lc = &a->lcount;
	const char *base = j->row.url;

	lc->found = doc->nlinks;
	if (doc->base && url_resolve(j->row.url, doc->base, &basebuf, NULL) == 0)
		base = buf_str(&basebuf);
	if (a->nofollow || !sp->follow) {
		lc->n[LINK_NOFOLLOW] = doc->nlinks;
	} else if (url_site(j->row.url, &fsite, NULL) == 0) {
		size_t bdir = base_dir_len(base);

		refset_reset(&an->refs);
		for (size_t i = 0; i < doc->nlinks; i++) {
			const char *href = doc->links[i].url, *u, *us;
			int v;

			if (doc->links[i].nofollow) {
				lc->n[LINK_NOFOLLOW]++;
				continue;
			}
			if (refset_has(&an->refs, href)) {
				lc->n[LINK_REPEATED]++;
				continue;
			}
			v = admit_page_link_cached(&an->lc, c, sp, j->row.url, buf_str(&fsite),
						   base, bdir, href, j->row.hops + 1, &lk, &site,
						   &u, &us);
			if (v == LINK_ADMITTED &&
			    (!strcmp(u, j->row.url) || !linklist_add(&a->links, u, us, doc->links[i].anchor)))
				v = LINK_REPEATED;
			lc->n[v]++;
			/* Admitted, dropped or the page itself: the same for
			 * every reference with this text before '#' (a page's
			 * "#section" links). */
			refset_add(&an->refs, href);
		}
		refset_reset(&an->refs);  /* it points into doc */
	} else {
		lc->n[LINK_BAD] = doc->nlinks;
	}
	buf_free(&basebuf);
	buf_free(&lk);
	buf_free(&site);
	buf_free(&fsite);
}

/* Phase 4: a META refresh or script redirect goes where a browser would
 * go: the target is admitted here, counted and inserted by page_commit(). */
static void find_refresh(const struct conf *c, const struct job *j, const struct html_doc *doc,
			 struct analysis *a)
{
	const struct conf_server_params *sp = j->p;
	const char *ref = doc->refresh_url ? doc->refresh_url : doc->js_redirect;
	struct buf lk = BUF_INIT(MAX_URL_LEN + 1);

	if (ref && !a->nofollow) {
		int hops = j->row.hops + (sp->increment_hops_on_redirect ? 1 : 0);

		a->ref = xstrdup(ref);
		a->ref_meta = doc->refresh_url != NULL;
		if (admit_link(c, sp, j->row.url, j->row.url, ref, hops, &lk) == 0 &&
		    strcmp(buf_str(&lk), j->row.url))
			a->ref_url = xstrdup(buf_str(&lk));
	}
	buf_free(&lk);
}

/* Phase 5: the document row's columns, and its text compressed. */
static void keep_columns(const struct html_doc *doc, const struct charset_info *ci,
			 struct analysis *a, struct analyser *an)
{
	a->cols.content_type = col_dup(a->mt, 48);
	a->cols.charset = col_dup(ci->name, 32);
	a->cols.title = col_dup(doc->title, MAX_TITLE_LEN);
	a->cols.txt = col_dup(doc->txt, MAX_TXT_LEN);
	a->cols.keywords = col_dup(doc->keywords, MAX_KEYWORDS_LEN);
	a->cols.description = col_dup(doc->description, MAX_DESCRIPTION_LEN);
	a->z = docblob_compress(an->zbuf, buf_str(&an->utf8), an->utf8.len, &a->zlen);
}

/* Phase 6: the page's words with their positions, encoded as the DOC
 * record's words here rather than by the loop (page_commit() appends them,
 * or drops them for a clone: which page is a clone is known only then). */
static void collect_words(const struct tokenizer *tok, const struct html_doc *doc,
			  struct analysis *a, struct analyser *an)
{
	struct word_tab *w = &an->words;
	struct text_ctx x = { .tok = tok, .words = w };

	tok_doc_reset(&x.td);
	simhash_init(&x.sh);
	html_foreach_text(doc, text_cb, &x);
	a->simhash = simhash_final(&x.sh);
	words_finish(w);
	for (size_t i = 0; i < w->n && !a->words_bad; i++) {
		const struct word_ent *e = w->sorted[i];

		a->words_bad = delta_words_add(&a->dw, e->word, e->len, e->pos, e->n) != 0;
	}
	a->nwords = w->n;
	a->total = w->total;
	/* The table stays with the thread, unless a huge page grew it. */
	if (w->cap > 4096)
		words_free(w);
	else
		words_reset(w);
}

/* Everything about the body of page j (a 2xx GET) that needs nothing but
 * the config: type, MD5, charset, parse, links resolved and admitted, words,
 * compressed text.  No database, delta log, seen-set or counters: it runs
 * on an analysis thread (or inline) while the crawl loop goes on.  j->p is
 * set (job_params()). */
void analyse_page(const struct conf *c, const struct tokenizer *tok, bool force,
		  const struct job *j, const struct fetch_result *r, struct analysis *a,
		  struct analyser *an)
{
	struct buf *utf8 = &an->utf8;
	struct charset_info ci;
	struct html_doc doc;
	const char *body = r->body.ptr ? r->body.ptr : "";
	size_t blen = r->body.len;

	analysis_clear(a);
	classify_body(force, j, r, body, blen, a);
	if (a->kind != AN_DOC)
		return;
	parse_body(j, r, is_html_type(a->mt), body, blen, utf8, &ci, &doc);
	a->noindex = doc.robots & HTML_ROBOTS_NOINDEX;
	a->nofollow = doc.robots & HTML_ROBOTS_NOFOLLOW;
	collect_links(c, j, &doc, a, an);
	find_refresh(c, j, &doc, a);
	keep_columns(&doc, &ci, a, an);
	/* Index no (the page's Server): fetched, its links followed, its
	 * words not indexed. */
	if (!a->noindex && j->p->index)
		collect_words(tok, &doc, a, an);  /* clones keep no words either: page_commit() */
	html_doc_free(&doc);
	if (utf8->alloc > UTF8_KEEP) {
		buf_free(utf8);
		buf_init(utf8, (size_t)MAX_DOC_BYTES * 2);
	}
}
