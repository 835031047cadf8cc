/* proto.c - the searchd wire protocol declared in proto.h: encoders,
 * bounds-checked decoders, frame I/O with timeouts, and the client side
 * (connect, search, cached copy).  The server loop is searchd.c's.
 * Byte layout: doc/PROTOCOL.md.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include "buf.h"
#include "caps.h"
#include "charset.h"
#include "proto.h"
#include "util.h"

/* Caps of single fields, besides those in proto.h. */
#define MAX_TOKEN 64            /* an ER_* token */
#define MAX_MESSAGE 4096        /* a sentence for people */
#define MAX_CLIENT 256          /* the browser's address */
#define MAX_UL 4096             /* ul: URL prefixes separated by spaces */

/* ---- encoding -------------------------------------------------------------- */

struct enc {
	struct buf *b;
	size_t start;   /* where this frame's header begins in b */
	bool bad;
};

static void put(struct enc *e, const void *p, size_t n)
{
	if (!e->bad && buf_add(e->b, p, n))
		e->bad = true;
}

static void put_u8(struct enc *e, uint8_t v)
{
	put(e, &v, 1);
}

static void put_u16(struct enc *e, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)v, (uint8_t)(v >> 8) };
	put(e, b, 2);
}

static void put_u32(struct enc *e, uint32_t v)
{
	uint8_t b[4];
	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	put(e, b, 4);
}

static void put_u64(struct enc *e, uint64_t v)
{
	uint8_t b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	put(e, b, 8);
}

static void put_f64(struct enc *e, double d)
{
	uint64_t v;
	_Static_assert(sizeof(double) == 8, "IEEE-754 binary64 doubles");
	if (!isfinite(d))
		d = 0;
	memcpy(&v, &d, 8);
	put_u64(e, v);
}

/* A string of at most max bytes (NULL is ""); utf8: must be valid UTF-8. */
static void put_str(struct enc *e, const char *s, size_t max, bool utf8)
{
	size_t n = s ? strlen(s) : 0;

	if (n > max || n > PROTO_MAX_STRING || (utf8 && n && !utf8_valid(s, n))) {
		e->bad = true;
		return;
	}
	put_u32(e, (uint32_t)n);
	put(e, s, n);
}

static void put_text(struct enc *e, const struct proto_text *t)
{
	size_t len = t->text ? strlen(t->text) : 0;
	uint32_t prev = 0;

	put_str(e, t->text, PROTO_MAX_STRING, true);
	if (t->n_spans > len || (t->n_spans && !t->spans)) {
		e->bad = true;
		return;
	}
	put_u32(e, t->n_spans);
	for (uint32_t i = 0; i < 2 * t->n_spans; i++) {
		uint32_t v = t->spans[i];
		/* Ascending, not overlapping, non-empty, inside the text, on
		 * character boundaries: what the decoder insists on. */
		if (v > len || (i && (i % 2 ? v <= prev : v < prev)) ||
		    (v < len && ((uint8_t)t->text[v] & 0xC0) == 0x80)) {
			e->bad = true;
			return;
		}
		prev = v;
		put_u32(e, v);
	}
}

static void begin(struct enc *e, struct buf *out, enum proto_type type)
{
	e->b = out;
	e->start = out->len;
	e->bad = false;
	put(e, PROTO_MAGIC, 4);
	put_u16(e, PROTO_VERSION);
	put_u16(e, (uint16_t)type);
	put_u32(e, 0); /* patched by finish() */
}

static int finish(struct enc *e)
{
	size_t len;

	if (!e->bad) {
		len = e->b->len - e->start - PROTO_HEADER_SIZE;
		if (len > PROTO_MAX_FRAME) {
			e->bad = true;
		} else {
			uint8_t *p = (uint8_t *)e->b->ptr + e->start + 8;
			for (int i = 0; i < 4; i++)
				p[i] = (uint8_t)(len >> (8 * i));
		}
	}
	if (e->bad) {
		buf_truncate(e->b, e->start);
		return -1;
	}
	return 0;
}

int proto_encode_search(struct buf *out, const struct proto_search *m)
{
	struct enc e;

	begin(&e, out, PROTO_SEARCH);
	if (m->page > PROTO_MAX_PAGE || m->page_size < 1 || m->page_size > PROTO_MAX_PAGE_SIZE ||
	    m->sort > PROTO_SORT_DATE || m->group > 1 || m->sections > 15 ||
	    m->n_spaces > PROTO_MAX_SPACES || (m->n_spaces && !m->spaces) ||
	    m->max_excerpts > PROTO_MAX_EXCERPTS || m->excerpt_len > PROTO_MAX_EXCERPT_LEN)
		e.bad = true;
	put_str(&e, m->q, PROTO_MAX_QUERY, true);
	put_u32(&e, m->page);
	put_u32(&e, m->page_size);
	put_u8(&e, m->sort);
	put_u8(&e, m->group);
	put_u8(&e, m->sections);
	put_u32(&e, m->site_id);
	put_str(&e, m->ul, MAX_UL, true);
	put_u64(&e, m->time_from);
	put_u64(&e, m->time_to);
	put_u32(&e, m->n_spaces);
	for (uint32_t i = 0; !e.bad && i < m->n_spaces; i++)
		put_u32(&e, m->spaces[i]);
	put_u32(&e, m->max_excerpts);
	put_u32(&e, m->excerpt_len);
	put_str(&e, m->client, MAX_CLIENT, false);
	put_str(&e, m->referer, MAX_URL_LEN, false);
	return finish(&e);
}

static void put_hit(struct enc *e, const struct proto_hit *h)
{
	if (h->n_excerpts > PROTO_MAX_EXCERPTS || h->n_clones > PROTO_MAX_CLONES ||
	    (h->n_excerpts && !h->excerpts) || (h->n_clones && !h->clones) || h->second > 1) {
		e->bad = true;
		return;
	}
	put_u32(e, h->url_id);
	put_u32(e, h->site_id);
	put_f64(e, h->score);
	put_u8(e, h->second);
	put_u32(e, h->site_hits);
	put_str(e, h->url, PROTO_MAX_STRING, false);
	put_str(e, h->site, PROTO_MAX_STRING, false);
	put_text(e, &h->title);
	put_text(e, &h->description);
	put_str(e, h->keywords, PROTO_MAX_STRING, true);
	put_str(e, h->content_type, PROTO_MAX_STRING, false);
	put_u32(e, h->size);
	put_u64(e, h->last_modified);
	put_u32(e, h->n_excerpts);
	for (uint32_t i = 0; !e->bad && i < h->n_excerpts; i++)
		put_text(e, &h->excerpts[i]);
	put_u32(e, h->n_clones);
	for (uint32_t i = 0; !e->bad && i < h->n_clones; i++) {
		put_u32(e, h->clones[i].url_id);
		put_str(e, h->clones[i].url, PROTO_MAX_STRING, false);
	}
}

int proto_encode_results(struct buf *out, const struct proto_results *m)
{
	struct enc e;

	begin(&e, out, PROTO_RESULTS);
	if (m->n_words > PROTO_MAX_WORDS || m->n_hits > PROTO_MAX_HITS ||
	    (m->n_words && !m->words) || (m->n_hits && !m->hits))
		e.bad = true;
	put_str(&e, m->error, MAX_TOKEN, true);
	put_str(&e, m->message, MAX_MESSAGE, true);
	put_u64(&e, m->total_urls);
	put_u32(&e, m->total_sites);
	put_u64(&e, m->total_results);
	put_u8(&e, m->estimated ? 1 : 0);
	put_u32(&e, m->first);
	put_f64(&e, m->seconds);
	put_u64(&e, m->generation);
	put_u32(&e, m->n_words);
	for (uint32_t i = 0; !e.bad && i < m->n_words; i++) {
		const struct proto_word_stat *w = &m->words[i];
		put_str(&e, w->word, PROTO_MAX_QUERY, true);
		put_u32(&e, w->urls);
		put_u64(&e, w->total);
		put_u8(&e, w->stopword ? 1 : 0);
	}
	put_u32(&e, m->n_hits);
	for (uint32_t i = 0; !e.bad && i < m->n_hits; i++)
		put_hit(&e, &m->hits[i]);
	return finish(&e);
}

int proto_encode_cached_req(struct buf *out, const struct proto_cached_req *m)
{
	struct enc e;

	begin(&e, out, PROTO_CACHED);
	put_u32(&e, m->url_id);
	put_str(&e, m->url, MAX_URL_LEN, false);
	put_str(&e, m->q, PROTO_MAX_QUERY, true);
	return finish(&e);
}

int proto_encode_cached(struct buf *out, const struct proto_cached *m)
{
	struct enc e;

	begin(&e, out, PROTO_CACHED_REPLY);
	put_str(&e, m->error, MAX_TOKEN, true);
	put_u32(&e, m->url_id);
	put_str(&e, m->url, PROTO_MAX_STRING, false);
	put_str(&e, m->content_type, PROTO_MAX_STRING, false);
	put_str(&e, m->charset, PROTO_MAX_STRING, false);
	put_u64(&e, m->last_index_time);
	put_text(&e, &m->text);
	return finish(&e);
}

int proto_encode_error(struct buf *out, const char *token, const char *message)
{
	struct enc e;

	begin(&e, out, PROTO_ERROR);
	put_str(&e, token, MAX_TOKEN, true);
	put_str(&e, message, MAX_MESSAGE, true);
	return finish(&e);
}

int proto_encode_empty(struct buf *out, enum proto_type type)
{
	struct enc e;

	begin(&e, out, type);
	return finish(&e);
}

/* ---- decoding -------------------------------------------------------------- */

struct dec {
	const uint8_t *p;
	size_t left;
	size_t size;    /* of the whole payload, for offsets in messages */
	struct buf *err;
	bool bad;
};

static void fail(struct dec *d, const char *what)
{
	if (d->bad)
		return;
	d->bad = true;
	if (d->err) {
		buf_reset(d->err);
		buf_printf(d->err, "bad frame at byte %zu of %zu: %s", d->size - d->left, d->size,
			   what);
	}
}

static bool need(struct dec *d, size_t n)
{
	if (d->bad)
		return false;
	if (n > d->left) {
		fail(d, "truncated");
		return false;
	}
	return true;
}

static uint8_t get_u8(struct dec *d)
{
	uint8_t v;
	if (!need(d, 1))
		return 0;
	v = d->p[0];
	d->p++;
	d->left--;
	return v;
}

static uint32_t get_u32(struct dec *d)
{
	uint32_t v;
	if (!need(d, 4))
		return 0;
	v = (uint32_t)d->p[0] | (uint32_t)d->p[1] << 8 | (uint32_t)d->p[2] << 16 |
	    (uint32_t)d->p[3] << 24;
	d->p += 4;
	d->left -= 4;
	return v;
}

static uint64_t get_u64(struct dec *d)
{
	uint64_t lo = get_u32(d);
	uint64_t hi = get_u32(d);
	return lo | hi << 32;
}

static double get_f64(struct dec *d)
{
	uint64_t v = get_u64(d);
	double x;
	memcpy(&x, &v, 8);
	if (!d->bad && !isfinite(x)) {
		fail(d, "a number that is not finite");
		return 0;
	}
	return x;
}

/* A malloc'd NUL-terminated string (never NULL, "" after a failure). */
static char *get_str(struct dec *d, size_t max, bool utf8, const char *what)
{
	uint32_t n = get_u32(d);
	char *s;

	if (d->bad)
		return xstrdup("");
	if (n > max || n > PROTO_MAX_STRING) {
		char m[128];
		snprintf(m, sizeof(m), "%s: %u bytes, over the cap of %zu", what, n,
			 max < PROTO_MAX_STRING ? max : (size_t)PROTO_MAX_STRING);
		fail(d, m);
		return xstrdup("");
	}
	if (!need(d, n))
		return xstrdup("");
	if (memchr(d->p, '\0', n) || (utf8 && !utf8_valid((const char *)d->p, n))) {
		char m[128];
		snprintf(m, sizeof(m), "%s: %s", what, utf8 ? "not valid UTF-8" : "a NUL byte");
		fail(d, m);
		return xstrdup("");
	}
	s = xstrndup((const char *)d->p, n);
	d->p += n;
	d->left -= n;
	return s;
}

/* An array count: at most cap, and each element needs at least min_size bytes
 * of what is left, so a hostile count cannot make us allocate. */
static uint32_t get_count(struct dec *d, uint32_t cap, size_t min_size, const char *what)
{
	uint32_t n = get_u32(d);

	if (d->bad)
		return 0;
	if (n > cap || (size_t)n * min_size > d->left) {
		char m[128];
		snprintf(m, sizeof(m), "%s: count %u over the cap of %u or the frame", what, n,
			 cap);
		fail(d, m);
		return 0;
	}
	return n;
}

static void text_free(struct proto_text *t)
{
	free(t->text);
	free(t->spans);
	memset(t, 0, sizeof(*t));
}

static void get_text(struct dec *d, struct proto_text *t, const char *what)
{
	size_t len;
	uint32_t n;

	t->text = get_str(d, PROTO_MAX_STRING, true, what);
	len = strlen(t->text);
	n = get_count(d, (uint32_t)(len < UINT32_MAX ? len : UINT32_MAX), 8, "highlight spans");
	if (d->bad || !n)
		return;
	t->spans = xmalloc((size_t)n * 2 * sizeof(uint32_t));
	t->n_spans = n;
	for (uint32_t i = 0; i < 2 * n; i++) {
		uint32_t v = get_u32(d);
		bool bad_order = i && (i % 2 ? v <= t->spans[i - 1] : v < t->spans[i - 1]);
		t->spans[i] = v;
		if (d->bad)
			return;
		/* Ascending, non-empty, inside the text, on character boundaries. */
		if (v > len || bad_order || (v < len && ((uint8_t)t->text[v] & 0xC0) == 0x80)) {
			fail(d, "a highlight span out of order, outside the text or inside a character");
			return;
		}
	}
}

static int dec_end(struct dec *d)
{
	if (!d->bad && d->left)
		fail(d, "trailing bytes");
	return d->bad ? -1 : 0;
}

static void dec_init(struct dec *d, const void *p, size_t len, struct buf *err)
{
	d->p = p;
	d->left = d->size = len;
	d->err = err;
	d->bad = false;
}

int proto_decode_search(const void *p, size_t len, struct proto_search *m, struct buf *err)
{
	struct dec d;

	memset(m, 0, sizeof(*m));
	dec_init(&d, p, len, err);
	m->q = get_str(&d, PROTO_MAX_QUERY, true, "query");
	m->page = get_u32(&d);
	if (!d.bad && m->page > PROTO_MAX_PAGE)
		fail(&d, "page number over the cap");
	m->page_size = get_u32(&d);
	if (!d.bad && (m->page_size < 1 || m->page_size > PROTO_MAX_PAGE_SIZE))
		fail(&d, "page size out of range");
	m->sort = get_u8(&d);
	if (!d.bad && m->sort > PROTO_SORT_DATE)
		fail(&d, "unknown sort");
	m->group = get_u8(&d);
	if (!d.bad && m->group > 1)
		fail(&d, "group flag not 0 or 1");
	m->sections = get_u8(&d);
	if (!d.bad && m->sections > 15)
		fail(&d, "section mask over 4 bits");
	m->site_id = get_u32(&d);
	m->ul = get_str(&d, MAX_UL, true, "ul");
	m->time_from = get_u64(&d);
	m->time_to = get_u64(&d);
	m->n_spaces = get_count(&d, PROTO_MAX_SPACES, 4, "spaces");
	if (m->n_spaces) {
		m->spaces = xmalloc(m->n_spaces * sizeof(uint32_t));
		for (uint32_t i = 0; i < m->n_spaces; i++)
			m->spaces[i] = get_u32(&d);
	}
	m->max_excerpts = get_u32(&d);
	if (!d.bad && m->max_excerpts > PROTO_MAX_EXCERPTS)
		fail(&d, "excerpt count over the cap");
	m->excerpt_len = get_u32(&d);
	if (!d.bad && m->excerpt_len > PROTO_MAX_EXCERPT_LEN)
		fail(&d, "excerpt length over the cap");
	m->client = get_str(&d, MAX_CLIENT, false, "client");
	m->referer = get_str(&d, MAX_URL_LEN, false, "referer");
	if (dec_end(&d)) {
		proto_search_free(m);
		return -1;
	}
	return 0;
}

void proto_search_free(struct proto_search *m)
{
	if (!m)
		return;
	free(m->q);
	free(m->ul);
	free(m->spaces);
	free(m->client);
	free(m->referer);
	memset(m, 0, sizeof(*m));
}

/* The smallest encoded hit: fixed fields and empty strings/arrays. */
#define MIN_HIT (4 + 4 + 8 + 1 + 4 + 4 + 4 + 8 + 8 + 4 + 4 + 4 + 8 + 4 + 4)
#define MIN_TEXT 8
#define MIN_WORD (4 + 4 + 8 + 1)
#define MIN_CLONE 8

static void get_hit(struct dec *d, struct proto_hit *h)
{
	h->url_id = get_u32(d);
	h->site_id = get_u32(d);
	h->score = get_f64(d);
	h->second = get_u8(d);
	if (!d->bad && h->second > 1)
		fail(d, "second flag not 0 or 1");
	h->site_hits = get_u32(d);
	h->url = get_str(d, PROTO_MAX_STRING, false, "url");
	h->site = get_str(d, PROTO_MAX_STRING, false, "site");
	get_text(d, &h->title, "title");
	get_text(d, &h->description, "description");
	h->keywords = get_str(d, PROTO_MAX_STRING, true, "keywords");
	h->content_type = get_str(d, PROTO_MAX_STRING, false, "content type");
	h->size = get_u32(d);
	h->last_modified = get_u64(d);
	h->n_excerpts = get_count(d, PROTO_MAX_EXCERPTS, MIN_TEXT, "excerpts");
	if (h->n_excerpts) {
		h->excerpts = xcalloc(h->n_excerpts, sizeof(*h->excerpts));
		for (uint32_t i = 0; i < h->n_excerpts; i++)
			get_text(d, &h->excerpts[i], "excerpt");
	}
	h->n_clones = get_count(d, PROTO_MAX_CLONES, MIN_CLONE, "clones");
	if (h->n_clones) {
		h->clones = xcalloc(h->n_clones, sizeof(*h->clones));
		for (uint32_t i = 0; i < h->n_clones; i++) {
			h->clones[i].url_id = get_u32(d);
			h->clones[i].url = get_str(d, PROTO_MAX_STRING, false, "clone url");
		}
	}
}

static void hit_free(struct proto_hit *h)
{
	free(h->url);
	free(h->site);
	text_free(&h->title);
	text_free(&h->description);
	free(h->keywords);
	free(h->content_type);
	for (uint32_t i = 0; h->excerpts && i < h->n_excerpts; i++)
		text_free(&h->excerpts[i]);
	free(h->excerpts);
	for (uint32_t i = 0; h->clones && i < h->n_clones; i++)
		free(h->clones[i].url);
	free(h->clones);
}

int proto_decode_results(const void *p, size_t len, struct proto_results *m, struct buf *err)
{
	struct dec d;

	memset(m, 0, sizeof(*m));
	dec_init(&d, p, len, err);
	m->error = get_str(&d, MAX_TOKEN, true, "error token");
	m->message = get_str(&d, MAX_MESSAGE, true, "message");
	m->total_urls = get_u64(&d);
	m->total_sites = get_u32(&d);
	m->total_results = get_u64(&d);
	m->estimated = get_u8(&d);
	if (!d.bad && m->estimated > 1)
		fail(&d, "estimated flag not 0 or 1");
	m->first = get_u32(&d);
	m->seconds = get_f64(&d);
	m->generation = get_u64(&d);
	m->n_words = get_count(&d, PROTO_MAX_WORDS, MIN_WORD, "words");
	if (m->n_words) {
		m->words = xcalloc(m->n_words, sizeof(*m->words));
		for (uint32_t i = 0; i < m->n_words; i++) {
			struct proto_word_stat *w = &m->words[i];
			w->word = get_str(&d, PROTO_MAX_QUERY, true, "word");
			w->urls = get_u32(&d);
			w->total = get_u64(&d);
			w->stopword = get_u8(&d);
			if (!d.bad && w->stopword > 1)
				fail(&d, "stopword flag not 0 or 1");
		}
	}
	m->n_hits = get_count(&d, PROTO_MAX_HITS, MIN_HIT, "hits");
	if (m->n_hits) {
		m->hits = xcalloc(m->n_hits, sizeof(*m->hits));
		for (uint32_t i = 0; i < m->n_hits; i++)
			get_hit(&d, &m->hits[i]);
	}
	if (dec_end(&d)) {
		proto_results_free(m);
		return -1;
	}
	return 0;
}

void proto_results_free(struct proto_results *m)
{
	if (!m)
		return;
	free(m->error);
	free(m->message);
	for (uint32_t i = 0; m->words && i < m->n_words; i++)
		free(m->words[i].word);
	free(m->words);
	for (uint32_t i = 0; m->hits && i < m->n_hits; i++)
		hit_free(&m->hits[i]);
	free(m->hits);
	memset(m, 0, sizeof(*m));
}

int proto_decode_cached_req(const void *p, size_t len, struct proto_cached_req *m,
			    struct buf *err)
{
	struct dec d;

	memset(m, 0, sizeof(*m));
	dec_init(&d, p, len, err);
	m->url_id = get_u32(&d);
	m->url = get_str(&d, MAX_URL_LEN, false, "url");
	m->q = get_str(&d, PROTO_MAX_QUERY, true, "query");
	if (dec_end(&d)) {
		proto_cached_req_free(m);
		return -1;
	}
	return 0;
}

void proto_cached_req_free(struct proto_cached_req *m)
{
	if (!m)
		return;
	free(m->url);
	free(m->q);
	memset(m, 0, sizeof(*m));
}

int proto_decode_cached(const void *p, size_t len, struct proto_cached *m, struct buf *err)
{
	struct dec d;

	memset(m, 0, sizeof(*m));
	dec_init(&d, p, len, err);
	m->error = get_str(&d, MAX_TOKEN, true, "error token");
	m->url_id = get_u32(&d);
	m->url = get_str(&d, PROTO_MAX_STRING, false, "url");
	m->content_type = get_str(&d, PROTO_MAX_STRING, false, "content type");
	m->charset = get_str(&d, PROTO_MAX_STRING, false, "charset");
	m->last_index_time = get_u64(&d);
	get_text(&d, &m->text, "text");
	if (dec_end(&d)) {
		proto_cached_free(m);
		return -1;
	}
	return 0;
}

void proto_cached_free(struct proto_cached *m)
{
	if (!m)
		return;
	free(m->error);
	free(m->url);
	free(m->content_type);
	free(m->charset);
	text_free(&m->text);
	memset(m, 0, sizeof(*m));
}

int proto_decode_error(const void *p, size_t len, struct buf *token, struct buf *message,
		       struct buf *err)
{
	struct dec d;
	char *t, *msg;
	int rc;

	dec_init(&d, p, len, err);
	t = get_str(&d, MAX_TOKEN, true, "error token");
	msg = get_str(&d, MAX_MESSAGE, true, "message");
	rc = dec_end(&d);
	buf_reset(token);
	buf_reset(message);
	if (!rc && (buf_adds(token, t) || buf_adds(message, msg))) {
		if (err) {
			buf_reset(err);
			buf_adds(err, "error message too long for the buffer");
		}
		rc = -1;
	}
	free(t);
	free(msg);
	return rc;
}

int proto_parse_header(const uint8_t hdr[PROTO_HEADER_SIZE], enum proto_type *type,
		       uint32_t *len, struct buf *err)
{
	uint16_t version = (uint16_t)(hdr[4] | hdr[5] << 8);
	uint16_t t = (uint16_t)(hdr[6] | hdr[7] << 8);
	uint32_t n = (uint32_t)hdr[8] | (uint32_t)hdr[9] << 8 | (uint32_t)hdr[10] << 16 |
		     (uint32_t)hdr[11] << 24;
	const char *why = NULL;

	if (memcmp(hdr, PROTO_MAGIC, 4))
		why = "bad magic (not an mpseek frame)";
	else if (version != PROTO_VERSION)
		why = "unsupported protocol version";
	else if (t < PROTO_SEARCH || t > PROTO_PONG)
		why = "unknown message type";
	else if (n > PROTO_MAX_FRAME)
		why = "frame over the size cap";
	if (why) {
		if (err) {
			buf_reset(err);
			buf_printf(err, "%s (version %u, type %u, length %u)", why, version, t, n);
		}
		return -1;
	}
	*type = (enum proto_type)t;
	*len = n;
	return 0;
}

/* ---- socket I/O ------------------------------------------------------------ */

static int set_err(struct buf *err, const char *fmt, const char *arg)
{
	if (err) {
		buf_reset(err);
		buf_printf(err, fmt, arg);
	}
	return -1;
}

/* Milliseconds left until deadline (a monotonic time), at least 0. */
static int left_ms(double deadline)
{
	double l = (deadline - now_monotonic()) * 1000.0;
	return l <= 0 ? 0 : l > 1e9 ? 1000000000 : (int)l + 1;
}

/* Wait until fd is ready for `events` (POLLIN/POLLOUT) or the deadline
 * passes: 0, or -1 with err saying which ("timed out reading a frame"). */
static int wait_ready(int fd, short events, double deadline, const char *doing, struct buf *err)
{
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = events };
		int ms = left_ms(deadline), k;

		if (ms <= 0)
			return set_err(err, "timed out %s a frame", doing);
		k = poll(&pfd, 1, ms);
		if (k > 0)
			return 0;
		if (k == 0)
			return set_err(err, "timed out %s a frame", doing);
		if (errno != EINTR)
			return set_err(err, "poll: %s", strerror(errno));
	}
}

/* Read exactly n bytes by deadline: 0, 1 for EOF before any byte, -1. */
static int read_full(int fd, void *p, size_t n, double deadline, struct buf *err)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r;

		if (wait_ready(fd, POLLIN, deadline, "reading", err))
			return -1;
		r = recv(fd, (char *)p + got, n - got, MSG_DONTWAIT);
		if (r < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
			continue;
		if (r < 0)
			return set_err(err, "read: %s", strerror(errno));
		if (r == 0)
			return got == 0 ? 1 : set_err(err, "connection closed inside a frame%s", "");
		got += (size_t)r;
	}
	return 0;
}

int proto_read_frame(int fd, int timeout_ms, enum proto_type *type, struct buf *payload,
		     struct buf *err)
{
	double deadline = now_monotonic() + timeout_ms / 1000.0;
	uint8_t hdr[PROTO_HEADER_SIZE];
	char chunk[65536];
	uint32_t len, got = 0;
	int rc;

	buf_reset(payload);
	rc = read_full(fd, hdr, sizeof(hdr), deadline, err);
	if (rc)
		return rc;
	if (proto_parse_header(hdr, type, &len, err))
		return -1;
	if (len > payload->max)
		return set_err(err, "frame larger than this side accepts%s", "");
	/* In chunks: a header that lies about the length costs no memory. */
	while (got < len) {
		uint32_t n = len - got < sizeof(chunk) ? len - got : (uint32_t)sizeof(chunk);
		rc = read_full(fd, chunk, n, deadline, err);
		if (rc > 0)
			return set_err(err, "connection closed inside a frame%s", "");
		if (rc)
			return -1;
		if (buf_add(payload, chunk, n))
			return set_err(err, "frame larger than this side accepts%s", "");
		got += n;
	}
	if (!payload->ptr)
		buf_add(payload, "", 0);
	return 0;
}

int proto_write_all(int fd, const void *frame, size_t len, int timeout_ms, struct buf *err)
{
	double deadline = now_monotonic() + timeout_ms / 1000.0;
	size_t done = 0;

	while (done < len) {
		ssize_t w;

		if (wait_ready(fd, POLLOUT, deadline, "writing", err))
			return -1;
		w = send(fd, (const char *)frame + done, len - done, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
			continue;
		if (w < 0)
			return set_err(err, "write: %s", strerror(errno));
		done += (size_t)w;
	}
	return 0;
}

/* ---- the client ------------------------------------------------------------ */

/* Split "host[:port]", "[v6]:port" or a bare IPv6 address. */
static int split_addr(const char *addr, char *host, size_t hsize, char *port, size_t psize)
{
	const char *colon = strrchr(addr, ':');
	size_t hl;

	snprintf(port, psize, "%d", PROTO_DEFAULT_PORT);
	if (addr[0] == '[') {
		const char *end = strchr(addr, ']');
		if (!end)
			return -1;
		hl = (size_t)(end - addr - 1);
		if (hl >= hsize)
			return -1;
		memcpy(host, addr + 1, hl);
		host[hl] = '\0';
		if (end[1] == ':')
			snprintf(port, psize, "%s", end + 2);
		else if (end[1])
			return -1;
		return 0;
	}
	if (colon && strchr(addr, ':') == colon) {
		hl = (size_t)(colon - addr);
		snprintf(port, psize, "%s", colon + 1);
	} else {
		hl = strlen(addr); /* no colon, or an IPv6 address without a port */
	}
	if (hl == 0 || hl >= hsize)
		return -1;
	memcpy(host, addr, hl);
	host[hl] = '\0';
	return 0;
}

static int connect_one(const struct addrinfo *ai, int timeout_ms, struct buf *err)
{
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
			ai->ai_protocol);
	struct pollfd pfd;
	int k, soerr = 0;
	socklen_t sl = sizeof(soerr);

	if (fd < 0)
		return set_err(err, "socket: %s", strerror(errno));
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
		return fd;
	if (errno != EINPROGRESS) {
		set_err(err, "connect: %s", strerror(errno));
		close(fd);
		return -1;
	}
	pfd.fd = fd;
	pfd.events = POLLOUT;
	do
		k = poll(&pfd, 1, timeout_ms);
	while (k < 0 && errno == EINTR);
	if (k <= 0) {
		set_err(err, "connect: %s", k == 0 ? "timed out" : strerror(errno));
		close(fd);
		return -1;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) || soerr) {
		set_err(err, "connect: %s", strerror(soerr ? soerr : errno));
		close(fd);
		return -1;
	}
	return fd;
}

int proto_connect(const char *addr, int timeout_ms, struct buf *err)
{
	char host[256], port[32];
	struct addrinfo hints, *res = NULL, *ai;
	long pn;
	int fd = -1, k;

	if (!addr || split_addr(addr, host, sizeof(host), port, sizeof(port)) ||
	    parse_long(port, 1, 65535, &pn))
		return set_err(err, "bad searchd address \"%s\"", addr ? addr : "");
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	k = getaddrinfo(host, port, &hints, &res);
	if (k)
		return set_err(err, "cannot resolve searchd host: %s", gai_strerror(k));
	for (ai = res; ai && fd < 0; ai = ai->ai_next)
		fd = connect_one(ai, timeout_ms, err);
	freeaddrinfo(res);
	return fd;
}

/* Send one frame and read the answer of the expected type; a PROTO_ERROR
 * answer becomes "TOKEN: message" in err. */
static int exchange(int fd, struct buf *frame, int timeout_ms, enum proto_type want,
		    struct buf *payload, struct buf *err)
{
	double deadline = now_monotonic() + timeout_ms / 1000.0;
	enum proto_type type;
	int rc;

	if (proto_write_all(fd, frame->ptr, frame->len, timeout_ms, err))
		return -1;
	rc = proto_read_frame(fd, left_ms(deadline), &type, payload, err);
	if (rc > 0)
		return set_err(err, "searchd closed the connection%s", "");
	if (rc)
		return -1;
	if (type == PROTO_ERROR) {
		struct buf tok = BUF_INIT(MAX_TOKEN), msg = BUF_INIT(MAX_MESSAGE);
		if (proto_decode_error(payload->ptr, payload->len, &tok, &msg, err) == 0 && err) {
			buf_reset(err);
			buf_printf(err, "%s: %s", buf_str(&tok), buf_str(&msg));
		}
		buf_free(&tok);
		buf_free(&msg);
		return -1;
	}
	if (type != want)
		return set_err(err, "searchd answered with an unexpected message type%s", "");
	return 0;
}

/* One request and its answer: a search (m: struct proto_search, res:
 * struct proto_results) or a cached copy (struct proto_cached_req,
 * struct proto_cached). */
static int round_trip(int fd, bool search, const void *m, void *res, int timeout_ms,
		      struct buf *err)
{
	struct buf frame = BUF_INIT(PROTO_HEADER_SIZE + PROTO_MAX_FRAME);
	struct buf payload = BUF_INIT(PROTO_MAX_FRAME);
	int rc = -1;

	if (search ? proto_encode_search(&frame, m) : proto_encode_cached_req(&frame, m)) {
		set_err(err, "%s request breaks a protocol cap", search ? "search" : "cached-copy");
		goto out;
	}
	if (exchange(fd, &frame, timeout_ms, search ? PROTO_RESULTS : PROTO_CACHED_REPLY,
		     &payload, err))
		goto out;
	rc = search ? proto_decode_results(payload.ptr, payload.len, res, err)
		    : proto_decode_cached(payload.ptr, payload.len, res, err);
out:
	buf_free(&frame);
	buf_free(&payload);
	return rc;
}

int proto_search(int fd, const struct proto_search *req, int timeout_ms,
		 struct proto_results *res, struct buf *err)
{
	memset(res, 0, sizeof(*res));
	return round_trip(fd, true, req, res, timeout_ms, err);
}

int proto_cached(int fd, const struct proto_cached_req *req, int timeout_ms,
		 struct proto_cached *res, struct buf *err)
{
	memset(res, 0, sizeof(*res));
	return round_trip(fd, false, req, res, timeout_ms, err);
}
