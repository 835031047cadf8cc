/* blocks.c - a page's body text cut into blocks (include/blocks.h): the
 * lines html.c ends at block-level tags, their body positions from the
 * same tokenizer the crawler indexes with, and a hash of their words, so
 * that text repeated across a site's pages can be recognised by its hash
 * whatever its markup or surrounding whitespace.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "blocks.h"
#include "buf.h"
#include "caps.h"
#include "charset.h"
#include "html.h"
#include "tokenize.h"
#include "util.h"

#define FNV64_OFFSET 0xcbf29ce484222325ull
#define FNV64_PRIME  0x100000001b3ull

int blocks_body_text(const char *utf8, size_t len, const char *content_type, struct buf *out)
{
	struct html_doc *doc = xcalloc(1, sizeof(*doc));
	struct buf clean = BUF_INIT(MAX_DOC_BYTES + 1);
	const struct buf *body;
	int rc = 0;

	buf_reset(out);
	/* What the crawler stored is UTF-8; anything else is made so first. */
	if (!utf8_valid(utf8, len)) {
		utf8_sanitize(utf8, len, &clean, NULL);
		utf8 = buf_str(&clean);
		len = clean.len;
	}
	if (content_type && !ascii_ncasecmp(content_type, "text/plain", 10))
		html_parse_text(utf8, len, doc);
	else
		html_parse(utf8, len, doc);
	body = &doc->text[SECTION_BODY];
	if (body->len && buf_add(out, body->ptr, body->len))
		rc = -1;
	html_doc_free(doc);
	free(doc);
	buf_free(&clean);
	return rc;
}

static int hash_word(const char *word, size_t len, tok_pos_t pos, bool stop, void *arg)
{
	uint64_t *h = arg;

	UNUSED(pos);
	UNUSED(stop);
	for (size_t i = 0; i < len; i++)
		*h = (*h ^ (unsigned char)word[i]) * FNV64_PRIME;
	*h = (*h ^ ' ') * FNV64_PRIME; /* "ab c" is not "a bc" */
	return 0;
}

int blocks_split(const struct tokenizer *tok, const char *text, size_t len, block_fn fn,
		 void *arg)
{
	struct tok_doc *td = xmalloc(sizeof(*td));
	size_t at = 0;
	int rc = 0;

	tok_doc_reset(td);
	while (at < len && !rc) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - text) : len;
		struct block b = { at, end, td->next[TOK_SECTION_BODY], 0, 0 };
		uint64_t h = FNV64_OFFSET;

		/* Separately per line: a line end separates words anyway, so the
		 * positions are those of one tok_run() over the whole text. */
		tok_run(tok, td, TOK_SECTION_BODY, text + at, end - at, hash_word, &h);
		b.pos_end = td->next[TOK_SECTION_BODY];
		if (b.pos_end > b.pos_start)
			b.hash = h ? h : 1;
		rc = fn(&b, arg);
		at = end + 1;
	}
	free(td);
	return rc;
}

bool blocks_range_covers(const struct pos_range *r, size_t n, uint32_t a, uint32_t b)
{
	size_t lo = 0, hi = n;

	while (lo < hi) { /* the first range ending after a */
		size_t mid = lo + (hi - lo) / 2;

		if (r[mid].end <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && r[lo].start <= a && b <= r[lo].end;
}

struct drop_ctx {
	const char *text;
	const struct pos_range *r;
	size_t n;
	struct buf *out;
	int rc;
};

static int drop_line(const struct block *b, void *arg)
{
	struct drop_ctx *x = arg;

	if (b->hash && blocks_range_covers(x->r, x->n, b->pos_start, b->pos_end))
		return 0;
	if (x->out->len && buf_addc(x->out, ' '))
		return x->rc = -1;
	if (buf_add(x->out, x->text + b->start, b->end - b->start))
		return x->rc = -1;
	return 0;
}

int blocks_drop(const struct tokenizer *tok, const char *text, size_t len,
		const struct pos_range *r, size_t n, struct buf *out)
{
	struct drop_ctx x = { text, r, n, out, 0 };

	buf_reset(out);
	blocks_split(tok, text, len, drop_line, &x);
	for (size_t i = 0; i < out->len; i++)
		if (out->ptr[i] == '\r' || out->ptr[i] == '\t')
			out->ptr[i] = ' ';
	return x.rc;
}
