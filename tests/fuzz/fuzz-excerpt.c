/* fuzz-excerpt.c - libFuzzer target for excerpt.c, which eats stored HTML.
 *
 * The bytes are tried as a stored urlwordsNN.words value (docblob_inflate
 * must refuse or inflate within its cap), then sanitised to UTF-8 (as the
 * crawler stores it) and made plain text as HTML and as text/plain; words
 * taken from the input are the query.  Passages must respect their count
 * and length, and every text its spans: ascending, not overlapping,
 * non-empty, inside the text, on UTF-8 boundaries, the text valid UTF-8.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "caps.h"
#include "charset.h"
#include "docblob.h"
#include "excerpt.h"
#include "tokenize.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct tokenizer *tok;

static void check_text(const struct proto_text *t, size_t max)
{
	size_t n = strlen(t->text);

	if (n > max || !utf8_valid(t->text, n))
		abort();
	for (uint32_t i = 0; i < t->n_spans; i++) {
		uint32_t a = t->spans[2 * i], b = t->spans[2 * i + 1];

		if (a >= b || b > n || (i && a < t->spans[2 * i - 1]))
			abort();
		if (((unsigned char)t->text[a] & 0xC0) == 0x80 ||
		    (b < n && ((unsigned char)t->text[b] & 0xC0) == 0x80))
			abort();
	}
}

struct words {
	char w[4][MAX_WORD_LEN + 1];
	const char *v[4];
	size_t n;
};

static int take(const char *word, size_t len, tok_pos_t pos, bool stop, void *arg)
{
	struct words *x = arg;

	(void)pos;
	(void)stop;
	if (x->n >= 4 || len > MAX_WORD_LEN)
		return 1;
	memcpy(x->w[x->n], word, len);
	x->w[x->n][len] = '\0';
	x->v[x->n] = x->w[x->n];
	x->n++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf raw = BUF_INIT(MAX_DOC_BYTES), err = BUF_INIT(256);
	struct buf utf8 = BUF_INIT(MAX_DOC_BYTES + 1), plain = BUF_INIT(MAX_DOC_BYTES + 1);
	struct words qw = { .n = 0 };
	struct excerpt_terms terms;
	struct tok_doc td;
	uint32_t max = size ? data[0] % 5 : 1, len = size > 1 ? 1 + data[1] * 4u : 200;

	if (!tok)
		tok = tok_new(1, 32);
	{
		size_t cap = size > 2 ? data[2] * 64u : MAX_DOC_BYTES;

		if (docblob_inflate(data, size, cap, &raw, &err) == 0) {
			if (raw.len > cap || strlen(raw.ptr ? raw.ptr : "") > raw.len)
				abort();
			/* Stored UTF-8 (as the crawler writes it) into the parser. */
			excerpt_plain_text(buf_str(&raw), raw.len, "text/html", false, &plain);
			if (!utf8_valid(buf_str(&plain), plain.len))
				abort();
		}
	}
	utf8_sanitize((const char *)data, size, &utf8, NULL);
	tok_doc_reset(&td);
	tok_run(tok, &td, 0, buf_str(&utf8), utf8.len < 256 ? utf8.len : 256, take, &qw);
	terms.words = qw.v;
	terms.n = qw.n;
	for (int mode = 0; mode < 2; mode++) {
		struct proto_text *ex = NULL, whole;
		uint32_t n = 0;

		excerpt_plain_text(buf_str(&utf8), utf8.len, mode ? "text/plain" : "text/html", mode,
				   &plain);
		if (!utf8_valid(buf_str(&plain), plain.len))
			abort();
		excerpt_passages(tok, buf_str(&plain), plain.len, &terms, max, len, &ex, &n);
		if (n > (max ? max : 0) || (max && plain.len && !n))
			abort();
		for (uint32_t i = 0; i < n; i++) {
			check_text(&ex[i], len);
			excerpt_text_free(&ex[i]);
		}
		free(ex);
		excerpt_highlight(tok, buf_str(&plain), plain.len, &terms, 1000, &whole);
		check_text(&whole, plain.len);
		excerpt_text_free(&whole);
	}
	/* The raw bytes straight into the highlighter (titles come from the database). */
	{
		struct proto_text t;

		excerpt_highlight(tok, (const char *)data, size, &terms, 64, &t);
		check_text(&t, 3 * size + 1);
		excerpt_text_free(&t);
	}
	buf_free(&raw);
	buf_free(&err);
	buf_free(&utf8);
	buf_free(&plain);
	return 0;
}
