/* search_hits.c - the result page (search_int.h): the picked documents
 * made hits, their rows (URL, title, description, clones) read from the
 * database in one query and kept in the generation's cache, titles and
 * descriptions highlighted and snippets cut from the stored text
 * (excerpt.c).  It ranks nothing; the SQL is db.c's.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "blocks.h"
#include "boiler.h"
#include "buf.h"
#include "caps.h"
#include "charset.h"
#include "db.h"
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

/* The distinct positive words, for highlighting. */
void run_highlight_words(struct run *r, const char ***out, size_t *n)
{
	const char **v = xmalloc(EXCERPT_MAX_TERMS * sizeof(char *));
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
 * like the index).  Owned strings; clones owned too. */
struct hit_row {
	uint32_t url_id;
	bool found;                /* the database has the document */
	char *url, *site, *title, *description, *keywords, *content_type;
	uint32_t size;
	struct proto_clone *clones;
	uint32_t n_clones;
	size_t bytes;
};

static void hit_row_free(struct hit_row *h)
{
	if (!h)
		return;
	free(h->url);
	free(h->site);
	free(h->title);
	free(h->description);
	free(h->keywords);
	free(h->content_type);
	for (uint32_t i = 0; i < h->n_clones; i++)
		free(h->clones[i].url);
	free(h->clones);
	memset(h, 0, sizeof(*h));
}

static void hit_row_copy(struct hit_row *to, const struct hit_row *from)
{
	*to = *from;
	to->url = xstrdup(from->url);
	to->site = xstrdup(from->site);
	to->title = xstrdup(from->title);
	to->description = xstrdup(from->description);
	to->keywords = xstrdup(from->keywords);
	to->content_type = xstrdup(from->content_type);
	to->clones = from->n_clones ? xmalloc(from->n_clones * sizeof(*to->clones)) : NULL;
	for (uint32_t i = 0; i < from->n_clones; i++) {
		to->clones[i].url_id = from->clones[i].url_id;
		to->clones[i].url = xstrdup(from->clones[i].url);
	}
}

static size_t slot_of(uint32_t url_id, size_t cap)
{
	return (size_t)(url_id * 2654435761u) & (cap - 1);
}

/* Copy the cached row of url_id into *out: true when there is one. */
static bool cache_get(struct search_index *ix, uint32_t url_id, struct hit_row *out)
{
	bool hit = false;

	pthread_mutex_lock(&ix->cache_mu);
	if (ix->cache) {
		for (size_t i = slot_of(url_id, SEARCH_CACHE_SLOTS);; i = (i + 1) & (SEARCH_CACHE_SLOTS - 1)) {
			struct hit_row *h = ix->cache[i];

			if (!h)
				break;
			if (h->url_id == url_id) {
				hit_row_copy(out, h);
				hit = true;
				break;
			}
		}
	}
	if (hit)
		ix->cache_hits++;
	else
		ix->cache_misses++;
	pthread_mutex_unlock(&ix->cache_mu);
	return hit;
}

void hit_cache_clear_locked(struct search_index *ix)
{
	for (size_t i = 0; ix->cache && i < SEARCH_CACHE_SLOTS; i++) {
		hit_row_free(ix->cache[i]);
		free(ix->cache[i]);
		ix->cache[i] = NULL;
	}
	ix->cache_rows = 0;
	ix->cache_bytes = 0;
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

/* Keep a copy of row (nothing when url_id is there already).  A full cache
 * is emptied first: rows are cheap to read again, and nothing is evicted
 * one by one. */
static void cache_put(struct search_index *ix, const struct hit_row *row)
{
	size_t i;

	pthread_mutex_lock(&ix->cache_mu);
	if (!ix->cache && !(ix->cache = cache_slots_new()))
		goto out;
	if (ix->cache_rows >= SEARCH_CACHE_ROWS || ix->cache_bytes + row->bytes > SEARCH_CACHE_BYTES)
		hit_cache_clear_locked(ix);
	for (i = slot_of(row->url_id, SEARCH_CACHE_SLOTS); ix->cache[i];
	     i = (i + 1) & (SEARCH_CACHE_SLOTS - 1))
		if (ix->cache[i]->url_id == row->url_id)
			goto out;
	ix->cache[i] = xmalloc(sizeof(*ix->cache[i]));
	hit_row_copy(ix->cache[i], row);
	ix->cache_rows++;
	ix->cache_bytes += row->bytes;
out:
	pthread_mutex_unlock(&ix->cache_mu);
}

static void row_from_db(struct hit_row *h, const struct db_hit_doc *d)
{
	h->url_id = d->url_id;
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
}

struct clone_fill {
	struct hit_row *rows;
	const size_t *which;       /* row of each asked id */
};

static int clone_cb(void *arg, size_t i, uint32_t clone_id, const char *url)
{
	struct clone_fill *c = arg;
	struct hit_row *h = &c->rows[c->which[i]];

	if (h->n_clones >= PROTO_MAX_CLONES)
		return 0;
	if (!h->clones)
		h->clones = xcalloc(PROTO_MAX_CLONES, sizeof(*h->clones));
	h->clones[h->n_clones].url_id = clone_id;
	h->clones[h->n_clones].url = valid_dup(url);
	h->bytes += sizeof(*h->clones) + strlen(h->clones[h->n_clones].url) + 1;
	h->n_clones++;
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
		rc = excerpt_inflate(d.text, d.text_len, EXCERPT_MAX_HTML, raw, &err);
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
 * here like the rows, and emptied when full. */
struct hit_text {
	uint32_t url_id;
	uint32_t size;             /* docstore_doc.size */
	size_t len;                /* the plain text: data[0 .. len) */
	size_t bytes;              /* of the whole entry */
	bool plain;                /* the plain text was made; else the fields alone (no snippets asked) */
	uint32_t field[4];         /* title, description, keywords, content type: at data + */
	char data[];               /* the text, a NUL, then the four fields */
};

static void text_cache_clear_locked(struct search_index *ix)
{
	for (size_t i = 0; ix->texts && i < SEARCH_TEXT_SLOTS; i++) {
		free(ix->texts[i]);
		ix->texts[i] = NULL;
	}
	ix->text_rows = 0;
	ix->text_bytes = 0;
}

/* A copy of url_id's kept entry (free() it), or NULL. */
static struct hit_text *text_get(struct search_index *ix, uint32_t url_id)
{
	struct hit_text *copy = NULL;

	pthread_mutex_lock(&ix->cache_mu);
	for (size_t i = slot_of(url_id, SEARCH_TEXT_SLOTS); ix->texts && ix->texts[i];
	     i = (i + 1) & (SEARCH_TEXT_SLOTS - 1))
		if (ix->texts[i]->url_id == url_id) {
			copy = xmalloc(ix->texts[i]->bytes);
			memcpy(copy, ix->texts[i], ix->texts[i]->bytes);
			break;
		}
	if (copy)
		ix->text_hits++;
	else
		ix->text_misses++;
	pthread_mutex_unlock(&ix->cache_mu);
	return copy;
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
	if (ix->text_rows >= SEARCH_TEXT_ROWS || ix->text_bytes + bytes > SEARCH_TEXT_BYTES)
		text_cache_clear_locked(ix);
	for (i = slot_of(url_id, SEARCH_TEXT_SLOTS); ix->texts[i]; i = (i + 1) & (SEARCH_TEXT_SLOTS - 1))
		if (ix->texts[i]->url_id == url_id) {
			if (ix->texts[i]->plain || !made)
				goto out;
			ix->text_bytes -= ix->texts[i]->bytes;
			ix->text_rows--;
			free(ix->texts[i]);
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

/* The hit's fields from its docstore entry d (found). */
static void docstore_fields(struct run *r, struct proto_hit *h, const struct docstore_doc *d,
			    const struct excerpt_terms *terms)
{
	char *t = valid_dup(d->title), *ds = valid_dup(d->description);

	excerpt_text_free(&h->title);
	excerpt_text_free(&h->description);
	excerpt_highlight(r->env->tok, t, strlen(t), terms, 64, &h->title);
	excerpt_highlight(r->env->tok, ds, strlen(ds), terms, 64, &h->description);
	free(t);
	free(ds);
	free(h->keywords);
	free(h->content_type);
	h->keywords = valid_dup(d->keywords);
	h->content_type = valid_dup(d->content_type);
	h->size = d->size;
}

/* The page's hits from the docstore: urlwordsNN's fields and the snippets
 * cut from its text, one block read per hit (none for an entry kept from
 * an earlier page); the rows (URL, site, clones) come from the cache or
 * the database as before. */
static int docstore_snippets(struct run *r, struct hit_row *rows, const struct excerpt_terms *terms,
			     uint32_t max_ex, uint32_t ex_len)
{
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

		if (!rows[i].found)
			continue;
		kept = text_get(r->ix, h->url_id);
		if (kept && max_ex && !kept->plain) {
			free(kept);        /* the fields alone: the text is read now */
			kept = NULL;
		}
		if (kept)
			text_doc(kept, &d);
		else if ((got = docstore_get(r->ix->ds, &cur, h->url_id, &d, &err)) < 0)
			warning("url %u: %s", h->url_id, buf_str(&err));
		if (got == 1 && d.found)
			docstore_fields(r, h, &d, terms);
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
		free(kept);
		if (tried && run_past_deadline(r))
			break;
	}
	docstore_cursor_free(&cur);
	buf_free(&raw);
	buf_free(&plain);
	buf_free(&err);
	return r->db_failed ? -1 : 0;
}

int run_fill_hits(struct run *r, const struct search_doc *docs, const struct search_pick *pk,
		  size_t n)
{
	struct proto_results *res = r->res;
	const struct proto_search *q = r->req;
	struct db_hit_doc *dd = NULL;
	struct hit_row *rows = NULL;
	uint32_t *miss = NULL;
	size_t *which = NULL, n_miss = 0;
	const char **words = NULL;
	struct excerpt_terms terms;
	struct buf raw = BUF_INIT(MAX_DOC_BYTES), plain = BUF_INIT(MAX_DOC_BYTES + 1),
		   err = BUF_INIT(256);
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
	/* The rows: from the cache, the rest in one SELECT (with the texts of
	 * snippets when there is no docstore: not cached) and one for clones. */
	rows = xcalloc(n, sizeof(*rows));
	miss = xmalloc(n * sizeof(*miss));
	which = xmalloc(n * sizeof(*which));
	for (size_t i = 0; i < n; i++) {
		if ((!max_ex || r->ix->ds) && cache_get(r->ix, res->hits[i].url_id, &rows[i]))
			continue;
		miss[n_miss] = res->hits[i].url_id;
		which[n_miss++] = i;
	}
	if (n_miss) {
		struct clone_fill cf = { rows, which };

		dd = xcalloc(n_miss, sizeof(*dd));
		if (db_hit_docs(r->env->db, miss, n_miss, max_ex > 0 && !r->ix->ds, dd)) {
			r->db_failed = true;
			rc = -1;
			goto out;
		}
		for (size_t k = 0; k < n_miss; k++) {
			row_from_db(&rows[which[k]], &dd[k]);
			rows[which[k]].url_id = miss[k];
		}
		if (db_hit_clones(r->env->db, miss, n_miss, clone_cb, &cf)) {
			r->db_failed = true;
			rc = -1;
			goto out;
		}
		for (size_t k = 0; k < n_miss; k++)
			if (rows[which[k]].found)
				cache_put(r->ix, &rows[which[k]]);
	}
	run_highlight_words(r, &words, &terms.n);
	terms.words = words;
	for (size_t i = 0; i < n; i++) {
		struct proto_hit *h = &res->hits[i];
		struct hit_row *w = &rows[i];

		if (!w->found)
			continue;
		h->url = xstrdup(w->url);
		h->site = xstrdup(w->site);
		excerpt_highlight(r->env->tok, w->title, strlen(w->title), &terms, 64, &h->title);
		excerpt_highlight(r->env->tok, w->description, strlen(w->description), &terms, 64,
				  &h->description);
		h->keywords = xstrdup(w->keywords);
		h->content_type = xstrdup(w->content_type);
		h->size = w->size;
		/* The clones move over to the hit. */
		h->clones = w->clones;
		h->n_clones = w->n_clones;
		w->clones = NULL;
		w->n_clones = 0;
	}
	if (r->ix->ds)
		rc = docstore_snippets(r, rows, &terms, max_ex, ex_len);
	for (size_t k = 0; max_ex && !r->ix->ds && k < n_miss; k++) {
		struct proto_hit *h = &res->hits[which[k]];
		struct db_hit_doc *d = &dd[k];

		if (!d->found || !d->text)
			continue;
		if (excerpt_inflate(d->text, d->text_len, EXCERPT_MAX_HTML, &raw, &err)) {
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
	for (size_t i = 0; rows && i < n; i++)
		hit_row_free(&rows[i]);
	free(rows);
	free(miss);
	free(which);
	free(words);
	buf_free(&raw);
	buf_free(&plain);
	buf_free(&err);
	return rc;
}
