/* search_hits.c - the result page (search_int.h): the picked documents
 * made hits, their rows (URL, title, description, clones) read from the
 * database in one query and kept in the generation's cache, titles and
 * descriptions highlighted and snippets cut from the stored text
 * (excerpt.c).  It ranks nothing; the SQL is db.c's.
 */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "blocks.h"
#include "boiler.h"
#include "buf.h"
#include "caps.h"
#include "charset.h"
#include "db.h"
#include "docblob.h"
#include "docstore.h"
#include "excerpt.h"
#include "log.h"
#include "search.h"
#include "search_int.h"
#include "util.h"

#define SEARCH_CACHE_SLOTS   (1u << 17) /* result-page rows kept per generation: slots, */
#define SEARCH_CACHE_ROWS    (1u << 16) /* rows (at most half the slots), */
#define SEARCH_CACHE_BYTES   (64u << 20) /* and their bytes */
#define SEARCH_TEXT_SLOTS    (1u << 15) /* snippet texts kept per generation: slots, */
#define SEARCH_TEXT_ROWS     (1u << 14) /* texts (at most half the slots), */
#define SEARCH_TEXT_BYTES    (64u << 20) /* and their bytes */

_Static_assert(DOCSTORE_MAX_TEXT == EXCERPT_MAX_HTML, "the docstore keeps what snippets parse");

/* The distinct positive words, for highlighting (in the query's arena). */
void run_highlight_words(struct run *r, const char ***out, size_t *n)
{
	const char **v = arena_alloc(r->ar, EXCERPT_MAX_TERMS * sizeof(char *));
	size_t k = 0;

	for (size_t i = 0; i < r->n_leaves; i++) {
		if (!r->leaves[i].positive)
			continue;
		for (size_t j = 0; j < r->leaves[i].n_words && k < EXCERPT_MAX_TERMS; j++) {
			size_t m;

			for (m = 0; m < k; m++)
				if (!strcmp(v[m], r->leaves[i].words[j]))
					break;
			if (m == k)
				v[k++] = r->leaves[i].words[j];
		}
	}
	*out = v;
	*n = k;
}

char *valid_dup(const char *s)
{
	struct buf b = BUF_INIT(PROTO_MAX_STRING);
	size_t len = strlen(s);

	if (utf8_valid(s, len))
		return xstrdup(s);
	utf8_sanitize(s, len, &b, NULL);
	if (!b.ptr)
		return xstrdup("");
	return buf_detach(&b, NULL);
}

/* ---- the rows of result pages, cached per generation ------------------------- */

/* What a result page shows of a document besides its snippets: read from
 * the database once per generation and kept (a recrawl changes the rows
 * before the index follows; the cache follows with the next generation,
 * like the index).  Owned strings; clones and near-duplicates owned too.
 * Shared, never changed once made: the cache holds a reference, and so
 * does each page using it, which reads it without the lock and without a
 * copy; the last reference frees it (a cache emptied while a page reads
 * one of its rows). */
struct hit_row {
	uint32_t url_id;
	bool found;                /* the database has the document */
	atomic_uint refs;
	char *url, *site, *title, *description, *keywords, *content_type;
	uint32_t size;
	struct proto_clone *clones;
	uint32_t n_clones;
	struct proto_clone *dups;  /* the near-duplicates' URLs (search_dup.c), after the clones */
	uint32_t n_dups;
	size_t bytes;
};

static void clones_free(struct proto_clone *c, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		free(c[i].url);
	free(c);
}

static void hit_row_unref(struct hit_row *h)
{
	if (!h || atomic_fetch_sub_explicit(&h->refs, 1, memory_order_acq_rel) != 1)
		return;
	free(h->url);
	free(h->site);
	free(h->title);
	free(h->description);
	free(h->keywords);
	free(h->content_type);
	clones_free(h->clones, h->n_clones);
	clones_free(h->dups, h->n_dups);
	free(h);
}

static size_t slot_of(uint32_t url_id, size_t cap)
{
	return (size_t)(url_id * 2654435761u) & (cap - 1);
}

void hit_cache_clear_locked(struct search_index *ix)
{
	for (size_t i = 0; ix->cache && i < SEARCH_CACHE_SLOTS; i++) {
		hit_row_unref(ix->cache[i]);
		ix->cache[i] = NULL;
	}
	ix->cache_rows = 0;
	ix->cache_bytes = 0;
}

void search_index_cache_limit(struct search_index *ix, size_t rows, size_t texts)
{
	pthread_mutex_lock(&ix->cache_mu);
	ix->cache_max = rows < SEARCH_CACHE_ROWS ? rows : SEARCH_CACHE_ROWS;
	ix->text_max = texts < SEARCH_TEXT_ROWS ? texts : SEARCH_TEXT_ROWS;
	pthread_mutex_unlock(&ix->cache_mu);
}

/* The slots are mapped, not malloc'd.  From malloc, a generation's 1 MB
 * table came from the arena of the worker that first cached a row, and each
 * worker's arena kept the high-water mark of the tables it had held: as
 * generations turned over, searchd's RSS grew by up to 2 MB a worker
 * (tests/integration/soak.sh showed the steps).  A mapping goes back to
 * the system with its generation, and only the slots used are touched.
 * NULL when the mapping fails: the generation then caches nothing. */
static struct hit_row **cache_slots_new(void)
{
	void *p = mmap(NULL, SEARCH_CACHE_SLOTS * sizeof(struct hit_row *), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void text_cache_clear_locked(struct search_index *ix);

void hit_cache_free(struct search_index *ix)
{
	hit_cache_clear_locked(ix);
	if (ix->cache)
		munmap(ix->cache, SEARCH_CACHE_SLOTS * sizeof(*ix->cache));
	ix->cache = NULL;
	text_cache_clear_locked(ix);
	if (ix->texts)
		munmap(ix->texts, SEARCH_TEXT_SLOTS * sizeof(*ix->texts));
	ix->texts = NULL;
}

/* Keep row (a reference; nothing when url_id is there already).  A full
 * cache is emptied first: rows are cheap to read again, and nothing is
 * evicted one by one. */
static void cache_put(struct search_index *ix, struct hit_row *row)
{
	size_t i;

	pthread_mutex_lock(&ix->cache_mu);
	if (!ix->cache && !(ix->cache = cache_slots_new()))
		goto out;
	if (ix->cache_rows >= (ix->cache_max ? ix->cache_max : SEARCH_CACHE_ROWS) ||
	    ix->cache_bytes + row->bytes > SEARCH_CACHE_BYTES)
		hit_cache_clear_locked(ix);
	for (i = slot_of(row->url_id, SEARCH_CACHE_SLOTS); ix->cache[i];
	     i = (i + 1) & (SEARCH_CACHE_SLOTS - 1))
		if (ix->cache[i]->url_id == row->url_id)
			goto out;
	atomic_fetch_add_explicit(&row->refs, 1, memory_order_relaxed);
	ix->cache[i] = row;
	ix->cache_rows++;
	ix->cache_bytes += row->bytes;
out:
	pthread_mutex_unlock(&ix->cache_mu);
}

/* A new row (one reference) of url_id from d. */
static struct hit_row *row_from_db(uint32_t url_id, const struct db_hit_doc *d)
{
	struct hit_row *h = xcalloc(1, sizeof(*h));

	atomic_init(&h->refs, 1);
	h->url_id = url_id;
	h->found = d->found;
	h->url = valid_dup(d->found ? d->url : "");
	h->site = valid_dup(d->found ? d->site : "");
	h->title = valid_dup(d->found ? d->title : "");
	h->description = valid_dup(d->found ? d->description : "");
	h->keywords = valid_dup(d->found ? d->keywords : "");
	h->content_type = valid_dup(d->found ? d->content_type : "");
	h->size = d->size;
	h->bytes = sizeof(*h) + strlen(h->url) + strlen(h->site) + strlen(h->title) +
		   strlen(h->description) + strlen(h->keywords) + strlen(h->content_type) + 6;
	return h;
}

struct clone_fill {
	struct hit_row **rows;
	const size_t *which;       /* row of each asked id */
};

/* One more URL (owned) of a row's clones or near-duplicates: *list grows
 * to PROTO_MAX_CLONES at once. */
static void row_add_url(struct hit_row *h, struct proto_clone **list, uint32_t *n, uint32_t url_id,
			char *url)
{
	if (*n >= PROTO_MAX_CLONES) {
		free(url);
		return;
	}
	if (!*list)
		*list = xcalloc(PROTO_MAX_CLONES, sizeof(**list));
	(*list)[*n].url_id = url_id;
	(*list)[*n].url = url;
	h->bytes += sizeof(**list) + strlen((*list)[*n].url) + 1;
	(*n)++;
}

static int clone_cb(void *arg, size_t i, uint32_t clone_id, const char *url)
{
	struct clone_fill *c = arg;
	struct hit_row *h = c->rows[c->which[i]];

	row_add_url(h, &h->clones, &h->n_clones, clone_id, valid_dup(url));
	return 0;
}

static int dup_cb(void *arg, size_t i, uint32_t url_id, const char *url)
{
	struct clone_fill *c = arg;
	struct hit_row *h = c->rows[c->which[i]];

	/* As the database has it (clones' URLs are made valid UTF-8). */
	row_add_url(h, &h->dups, &h->n_dups, url_id, xstrdup(url));
	return 0;
}

/* The stored text of url_id when the docstore lacks it or its block is
 * damaged: from the database (logged; a healthy docstore never asks). */
static int text_from_db(struct run *r, uint32_t url_id, struct buf *raw, char **ctype)
{
	struct db_hit_doc d = { 0 };
	struct buf err = BUF_INIT(256);
	int rc = -1;

	if (db_hit_docs(r->env->db, &url_id, 1, true, &d)) {
		r->db_failed = true;
	} else if (d.found && d.text) {
		rc = docblob_inflate(d.text, d.text_len, EXCERPT_MAX_HTML, raw, &err);
		if (rc)
			warning("url %u: stored text: %s", url_id, buf_str(&err));
		else
			*ctype = xstrdup(d.content_type);
	}
	db_hit_doc_free(&d);
	buf_free(&err);
	return rc;
}

/* ---- snippet texts, cached per generation ---------------------------------- */

/* A hit's docstore entry as the result page uses it: its fields and what
 * snippets are cut from, its stored text inflated, parsed and without its
 * boilerplate lines.  Profiled on the development corpus (doc/SEARCH.md,
 * "Profile of the result page"), making that text was about half of
 * searchd's CPU per result page and decompressing the entry's block a
 * third of the rest, for entries that only change with the generation
 * (the docstore and the boilerplate ranges are the generation's): kept
 * here like the rows, and emptied when full.  Shared like the rows: a
 * page reads an entry through its reference, without a copy (the text
 * can be megabytes) and without the lock while it cuts snippets. */
struct hit_text {
	uint32_t url_id;
	uint32_t size;             /* docstore_doc.size */
	atomic_uint refs;
	size_t len;                /* the plain text: data[0 .. len) */
	size_t bytes;              /* of the whole entry */
	bool plain;                /* the plain text was made; else the fields alone (no snippets asked) */
	uint32_t field[4];         /* title, description, keywords, content type: at data + */
	char data[];               /* the text, a NUL, then the four fields */
};

static void text_unref(struct hit_text *t)
{
	if (t && atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) == 1)
		free(t);
}

static void text_cache_clear_locked(struct search_index *ix)
{
	for (size_t i = 0; ix->texts && i < SEARCH_TEXT_SLOTS; i++) {
		text_unref(ix->texts[i]);
		ix->texts[i] = NULL;
	}
	ix->text_rows = 0;
	ix->text_bytes = 0;
}

/* url_id's kept entry (a reference: text_unref() it), or NULL; cache_mu
 * held. */
static struct hit_text *text_find_locked(struct search_index *ix, uint32_t url_id)
{
	struct hit_text *t = NULL;

	for (size_t i = slot_of(url_id, SEARCH_TEXT_SLOTS); ix->texts && ix->texts[i];
	     i = (i + 1) & (SEARCH_TEXT_SLOTS - 1))
		if (ix->texts[i]->url_id == url_id) {
			t = ix->texts[i];
			atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
			break;
		}
	if (t)
		ix->text_hits++;
	else
		ix->text_misses++;
	return t;
}

static struct hit_text *text_get(struct search_index *ix, uint32_t url_id)
{
	struct hit_text *t;

	pthread_mutex_lock(&ix->cache_mu);
	t = text_find_locked(ix, url_id);
	pthread_mutex_unlock(&ix->cache_mu);
	return t;
}

/* The kept rows of the page's hits into rows[i], and the kept texts of
 * those into texts[i] when texts (a reference each; NULL where there is
 * none): one lock for the page, nothing copied. */
static void cache_get_page(struct search_index *ix, const struct proto_hit *hits, size_t n,
			   struct hit_row **rows, struct hit_text **texts)
{
	pthread_mutex_lock(&ix->cache_mu);
	for (size_t k = 0; k < n; k++) {
		uint32_t url_id = hits[k].url_id;

		rows[k] = NULL;
		for (size_t i = slot_of(url_id, SEARCH_CACHE_SLOTS); ix->cache && ix->cache[i];
		     i = (i + 1) & (SEARCH_CACHE_SLOTS - 1))
			if (ix->cache[i]->url_id == url_id) {
				rows[k] = ix->cache[i];
				atomic_fetch_add_explicit(&rows[k]->refs, 1, memory_order_relaxed);
				break;
			}
		if (rows[k])
			ix->cache_hits++;
		else
			ix->cache_misses++;
		if (texts)
			texts[k] = rows[k] ? text_find_locked(ix, url_id) : NULL;
	}
	pthread_mutex_unlock(&ix->cache_mu);
}

/* The entry's fields as docstore_get() gave them (no stored text: what
 * is kept is the plain text). */
static void text_doc(const struct hit_text *t, struct docstore_doc *d)
{
	memset(d, 0, sizeof(*d));
	d->found = true;
	d->has_text = true;
	d->size = t->size;
	d->title = t->data + t->field[0];
	d->description = t->data + t->field[1];
	d->keywords = t->data + t->field[2];
	d->content_type = t->data + t->field[3];
}

/* Keep url_id's entry: the fields of d (found) and plain, its text made
 * plain, or NULL: the fields alone, for pages without snippets (an entry
 * with the text replaces such a one). */
static void text_put(struct search_index *ix, uint32_t url_id, const struct docstore_doc *d,
		     const struct buf *plain)
{
	static const struct buf none = BUF_INIT(0);
	const char *f[4] = { d->title, d->description, d->keywords, d->content_type };
	bool made = plain != NULL;
	size_t i, at, bytes;
	struct hit_text *t;

	plain = made ? plain : &none;
	bytes = sizeof(struct hit_text) + plain->len + 1;

	for (int k = 0; k < 4; k++)
		bytes += strlen(f[k] ? f[k] : "") + 1;
	if (bytes > SEARCH_TEXT_BYTES / 16)
		return;
	t = xmalloc(bytes);
	atomic_init(&t->refs, 1);
	t->url_id = url_id;
	t->size = d->size;
	t->len = plain->len;
	t->bytes = bytes;
	t->plain = made;
	if (plain->len)
		memcpy(t->data, plain->ptr, plain->len);
	t->data[plain->len] = '\0';
	at = plain->len + 1;
	for (int k = 0; k < 4; k++) {
		size_t n = strlen(f[k] ? f[k] : "") + 1;

		t->field[k] = (uint32_t)at;
		memcpy(t->data + at, f[k] ? f[k] : "", n);
		at += n;
	}
	pthread_mutex_lock(&ix->cache_mu);
	if (!ix->texts) {
		void *p = mmap(NULL, SEARCH_TEXT_SLOTS * sizeof(*ix->texts), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			goto out;
		ix->texts = p;
	}
	if (ix->text_rows >= (ix->text_max ? ix->text_max : SEARCH_TEXT_ROWS) ||
	    ix->text_bytes + bytes > SEARCH_TEXT_BYTES)
		text_cache_clear_locked(ix);
	for (i = slot_of(url_id, SEARCH_TEXT_SLOTS); ix->texts[i]; i = (i + 1) & (SEARCH_TEXT_SLOTS - 1))
		if (ix->texts[i]->url_id == url_id) {
			if (ix->texts[i]->plain || !made)
				goto out;
			ix->text_bytes -= ix->texts[i]->bytes;
			ix->text_rows--;
			text_unref(ix->texts[i]);
			break;
		}
	ix->texts[i] = t;
	t = NULL;
	ix->text_rows++;
	ix->text_bytes += bytes;
out:
	pthread_mutex_unlock(&ix->cache_mu);
	free(t);
}

/* The text snippets of url come from: its stored text (raw, UTF-8) made
 * plain, without the lines in the document's boilerplate (boiler.h), so
 * that a site's navigation never stands for the page.  0, or -1 when the
 * text could not be made (no snippets). */
static int snippet_text(struct run *r, uint32_t url, const struct buf *raw, const char *ctype,
			struct buf *out)
{
	struct buf plain = BUF_INIT(MAX_DOC_BYTES + 1);
	struct pos_range bp[BOILER_MAX_RANGES];
	size_t nbp = r->ix->bp ? boiler_doc(r->ix->bp, url, bp, ARRAY_SIZE(bp)) : 0;
	int rc = -1;

	buf_reset(out);
	if (excerpt_plain_text(raw->ptr ? raw->ptr : "", raw->len, ctype, nbp > 0,
			       nbp ? &plain : out))
		goto out;
	if (nbp && blocks_drop(r->env->tok, buf_str(&plain), plain.len, bp, nbp, out))
		goto out;
	rc = 0;
out:
	buf_free(&plain);
	return rc;
}

/* The snippets of url's stored text (raw, UTF-8) into h. */
static void cut_snippets(struct run *r, uint32_t url, const struct buf *raw, const char *ctype,
			 const struct excerpt_terms *terms, uint32_t max_ex, uint32_t ex_len,
			 struct proto_hit *h)
{
	struct buf text = BUF_INIT(MAX_DOC_BYTES + 1);

	if (!snippet_text(r, url, raw, ctype, &text))
		excerpt_passages(r->env->tok, buf_str(&text), text.len, terms, max_ex, ex_len,
				 &h->excerpts, &h->n_excerpts);
	buf_free(&text);
}

/* s highlighted into *out (s made valid UTF-8 first, copied only when it
 * is not). */
static void highlight_field(struct run *r, const char *s, const struct excerpt_ready *rd,
			    struct proto_text *out)
{
	size_t len = strlen(s);
	char *t;

	if (utf8_valid(s, len)) {
		excerpt_highlight_ready(r->env->tok, s, len, rd, 64, out);
		return;
	}
	t = valid_dup(s);
	excerpt_highlight_ready(r->env->tok, t, strlen(t), rd, 64, out);
	free(t);
}

/* The hit's fields from its docstore entry d (found). */
static void docstore_fields(struct run *r, struct proto_hit *h, const struct docstore_doc *d,
			    const struct excerpt_ready *rd)
{
	highlight_field(r, d->title, rd, &h->title);
	highlight_field(r, d->description, rd, &h->description);
	h->keywords = valid_dup(d->keywords);
	h->content_type = valid_dup(d->content_type);
	h->size = d->size;
}

/* The page's hits from the docstore: urlwordsNN's fields and the snippets
 * cut from its text, one block read per hit (its records alone, not their
 * texts, for a page without snippets; none for an entry kept from an
 * earlier page); the rows (URL, site, clones) come from the cache or
 * the database as before.  texts[i]: hit i's kept entry, looked for here
 * when its row was read by this page (fresh[i]; the caller drops the
 * references); fields[i]
 * is set where the docstore gave hit i's fields (the row's are not used
 * then). */
static int docstore_snippets(struct run *r, struct hit_row *const *rows, const bool *fresh,
			     struct hit_text **texts, const struct excerpt_ready *rd,
			     uint32_t max_ex, uint32_t ex_len, bool *fields)
{
	const struct excerpt_terms *terms = rd->terms;
	struct proto_results *res = r->res;
	struct docstore_cursor cur = { 0 };
	struct buf raw = BUF_INIT(MAX_DOC_BYTES), plain = BUF_INIT(MAX_DOC_BYTES + 1),
		   err = BUF_INIT(256);

	for (size_t i = 0; i < res->n_hits; i++) {
		struct proto_hit *h = &res->hits[i];
		struct hit_text *kept = NULL;
		struct docstore_doc d;
		char *ctype = NULL;
		int got = 1;
		bool tried = true;         /* snippets made: the deadline is checked */

		if (!rows[i]->found)
			continue;
		if (fresh[i])
			texts[i] = text_get(r->ix, h->url_id);
		kept = texts[i];
		if (kept && max_ex && !kept->plain)
			kept = NULL;       /* the fields alone: the text is read now */
		if (kept)
			text_doc(kept, &d);
		else if ((got = (max_ex ? docstore_get : docstore_get_fields)(r->ix->ds, &cur,
									     h->url_id, &d, &err)) < 0)
			warning("url %u: %s", h->url_id, buf_str(&err));
		if (got == 1 && d.found) {
			docstore_fields(r, h, &d, rd);
			fields[i] = true;
		}
		if (kept && max_ex) {
			excerpt_passages(r->env->tok, kept->data, kept->len, terms, max_ex, ex_len,
					 &h->excerpts, &h->n_excerpts);
		} else if (got == 1 && max_ex && d.found && d.has_text) {
			/* The docstore's entry is the generation's: it is
			 * kept, text made plain, for the next page showing it. */
			buf_reset(&raw);
			buf_add(&raw, d.text, d.text_len);
			if (!snippet_text(r, h->url_id, &raw, d.content_type, &plain)) {
				text_put(r->ix, h->url_id, &d, &plain);
				excerpt_passages(r->env->tok, buf_str(&plain), plain.len, terms,
						 max_ex, ex_len, &h->excerpts, &h->n_excerpts);
			}
		} else if (got != 1 && max_ex && !text_from_db(r, h->url_id, &raw, &ctype)) {
			cut_snippets(r, h->url_id, &raw, ctype, terms, max_ex, ex_len, h);
			free(ctype);
		} else {
			/* No snippets asked: the fields are kept all the same,
			 * so that the next page showing it reads no block. */
			if (!kept && got == 1 && d.found && !max_ex)
				text_put(r->ix, h->url_id, &d, NULL);
			tried = false;
		}
		if (tried && run_past_deadline(r))
			break;
	}
	docstore_cursor_free(&cur);
	buf_free(&raw);
	buf_free(&plain);
	buf_free(&err);
	return r->db_failed ? -1 : 0;
}

/* The page's rows not kept (miss[k], of hit which[k]) into rows[]: one
 * SELECT for the rows (with the texts of snippets when texts: then not
 * kept, *dd has them), one for the clones, one for the near-duplicates'
 * URLs; the documents found are kept.  0, or -1 when the database failed. */
static int rows_from_db(struct run *r, const uint32_t *miss, const size_t *which, size_t n_miss,
			bool texts, struct hit_row **rows, struct db_hit_doc **dd)
{
	struct clone_fill cf = { rows, which };

	*dd = xcalloc(n_miss, sizeof(**dd));
	if (db_hit_docs(r->env->db, miss, n_miss, texts, *dd))
		goto fail;
	for (size_t k = 0; k < n_miss; k++)
		rows[which[k]] = row_from_db(miss[k], &(*dd)[k]);
	if (db_hit_clones(r->env->db, miss, n_miss, clone_cb, &cf) ||
	    run_neardup_urls(r, miss, n_miss, dup_cb, &cf))
		goto fail;
	for (size_t k = 0; k < n_miss; k++)
		if (rows[which[k]]->found)
			cache_put(r->ix, rows[which[k]]);
	return 0;
fail:
	r->db_failed = true;
	return -1;
}

/* The row's URL, site and clones (then its near-duplicates) into h, and
 * its fields unless the docstore gave them (fields). */
static void row_to_hit(struct run *r, const struct hit_row *w, const struct excerpt_ready *rd,
		       bool fields, struct proto_hit *h)
{
	uint32_t nc = w->found ? w->n_clones : 0, nd = w->n_dups, k = 0;

	if (nd > PROTO_MAX_CLONES - nc)
		nd = PROTO_MAX_CLONES - nc;
	if (w->found) {
		h->url = xstrdup(w->url);
		h->site = xstrdup(w->site);
	}
	if (w->found && !fields) {
		excerpt_highlight_ready(r->env->tok, w->title, strlen(w->title), rd, 64, &h->title);
		excerpt_highlight_ready(r->env->tok, w->description, strlen(w->description), rd, 64,
					&h->description);
		h->keywords = xstrdup(w->keywords);
		h->content_type = xstrdup(w->content_type);
		h->size = w->size;
	}
	if (nc + nd == 0)
		return;
	h->clones = xmalloc((nc + nd) * sizeof(*h->clones));
	for (uint32_t i = 0; i < nc; i++, k++)
		h->clones[k] = (struct proto_clone){ w->clones[i].url_id, xstrdup(w->clones[i].url) };
	for (uint32_t i = 0; i < nd; i++, k++)
		h->clones[k] = (struct proto_clone){ w->dups[i].url_id, xstrdup(w->dups[i].url) };
	h->n_clones = k;
}

int run_fill_hits(struct run *r, const struct search_doc *docs, const struct search_pick *pk,
		  size_t n)
{
	struct proto_results *res = r->res;
	const struct proto_search *q = r->req;
	struct db_hit_doc *dd = NULL;
	struct hit_row **rows = NULL;
	struct hit_text **texts = NULL;
	uint32_t *miss;
	size_t *which, n_miss = 0;
	bool *fields, *fresh;
	const char **words = NULL;
	struct excerpt_terms terms;
	struct excerpt_ready *rd;
	struct buf raw = BUF_INIT(MAX_DOC_BYTES), err = BUF_INIT(256);
	uint32_t max_ex = q->max_excerpts < PROTO_MAX_EXCERPTS ? q->max_excerpts : PROTO_MAX_EXCERPTS;
	uint32_t ex_len = q->excerpt_len < PROTO_MAX_EXCERPT_LEN ? q->excerpt_len :
			  PROTO_MAX_EXCERPT_LEN;
	int rc = 0;

	res->hits = xcalloc(n ? n : 1, sizeof(*res->hits));
	res->n_hits = (uint32_t)n;
	for (size_t i = 0; i < n; i++) {
		const struct search_doc *d = &docs[pk[i].doc];
		struct proto_hit *h = &res->hits[i];

		h->url_id = d->url_id;
		h->site_id = d->site_id;
		h->score = d->score;
		h->second = pk[i].second;
		h->site_hits = pk[i].site_hits;
		h->last_modified = d->last_modified;
	}
	if (!r->env->db || n == 0)
		goto out;
	/* The rows: from the cache, the rest from the database (with the texts
	 * of snippets when there is no docstore: not cached).  The page's
	 * scratch is in the query's arena. */
	rows = arena_calloc(r->ar, n, sizeof(*rows));
	miss = arena_alloc(r->ar, n * sizeof(*miss));
	which = arena_alloc(r->ar, n * sizeof(*which));
	fields = arena_calloc(r->ar, n, sizeof(*fields));
	fresh = arena_calloc(r->ar, n, sizeof(*fresh));
	texts = r->ix->ds ? arena_calloc(r->ar, n, sizeof(*texts)) : NULL;
	if (!max_ex || r->ix->ds)
		cache_get_page(r->ix, res->hits, n, rows, texts);
	for (size_t i = 0; i < n; i++)
		if (!rows[i]) {
			miss[n_miss] = res->hits[i].url_id;
			which[n_miss++] = i;
			fresh[i] = true;
		}
	if (n_miss && rows_from_db(r, miss, which, n_miss, max_ex > 0 && !r->ix->ds, rows, &dd)) {
		rc = -1;
		goto out;
	}
	run_highlight_words(r, &words, &terms.n);
	terms.words = words;
	/* The words' lengths and first bytes once for the page's titles and
	 * descriptions, not per text. */
	rd = arena_alloc(r->ar, sizeof(*rd));
	excerpt_terms_ready(&terms, rd);
	/* The docstore's fields first: a hit it gives them for needs none of
	 * its row's (highlighted once, not twice). */
	if (r->ix->ds)
		rc = docstore_snippets(r, rows, fresh, texts, rd, max_ex, ex_len, fields);
	for (size_t i = 0; i < n; i++)
		row_to_hit(r, rows[i], rd, fields[i], &res->hits[i]);
	for (size_t k = 0; max_ex && !r->ix->ds && k < n_miss; k++) {
		struct proto_hit *h = &res->hits[which[k]];
		struct db_hit_doc *d = &dd[k];

		if (!d->found || !d->text)
			continue;
		if (docblob_inflate(d->text, d->text_len, EXCERPT_MAX_HTML, &raw, &err)) {
			warning("url %u: stored text: %s", d->url_id, buf_str(&err));
			buf_reset(&err);
		} else {
			cut_snippets(r, h->url_id, &raw, d->content_type, &terms, max_ex, ex_len, h);
		}
		if (run_past_deadline(r))
			break;
	}
out:
	for (size_t k = 0; dd && k < n_miss; k++)
		db_hit_doc_free(&dd[k]);
	free(dd);
	for (size_t i = 0; rows && i < n; i++) {
		hit_row_unref(rows[i]);
		if (texts)
			text_unref(texts[i]);
	}
	buf_free(&raw);
	buf_free(&err);
	return rc;
}
