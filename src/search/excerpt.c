/* excerpt.c - snippets and highlighting (excerpt.h): the stored text
 * inflated and made plain by html.c, cut into runs (bytes between ASCII
 * separators and common Unicode punctuation), each run put through the
 * indexer's tokenizer so that a run is highlighted when one of its words is
 * a query word, and the windows with the most distinct query words chosen
 * as passages.  A run is highlighted whole: in text written without spaces
 * (CJK) that can be more than the word.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "blocks.h"
#include "buf.h"
#include "caps.h"
#include "charset.h"
#include "excerpt.h"
#include "tokenize.h"
#include "util.h"

#define EXCERPT_MAX_MATCHES 4096   /* matching runs considered for passages */

void excerpt_text_free(struct proto_text *t)
{
	if (!t)
		return;
	free(t->text);
	free(t->spans);
	memset(t, 0, sizeof(*t));
}

int excerpt_plain_text(const char *utf8, size_t len, const char *content_type, bool lines,
		       struct buf *out)
{
	int rc = blocks_body_text(utf8, len, content_type, out);

	if (!lines)
		for (size_t i = 0; i < out->len; i++)
			if (out->ptr[i] == '\n' || out->ptr[i] == '\r' || out->ptr[i] == '\t')
				out->ptr[i] = ' ';
	return rc;
}

/* ---- runs ------------------------------------------------------------------ */

/* ASCII letters and digits: word bytes; every other ASCII byte separates. */
static bool ascii_alnum(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Is the folded word w (n bytes) the lower-cased start of ASCII text s? */
static bool folded_prefix(const char *w, size_t n, const char *s)
{
	for (size_t k = 0; k < n; k++) {
		char c = s[k];

		if (c >= 'A' && c <= 'Z')
			c = (char)(c + 32);
		if (c != w[k])
			return false;
	}
	return true;
}

/* Bytes of a separator at s (len left), 0 when s starts a word character. */
static size_t sep_len(const unsigned char *s, size_t len)
{
	unsigned char c = s[0];

	if (c < 0x80)
		return ascii_alnum(c) ? 0 : 1;
	/* NBSP, « », general punctuation (U+2000-206F), CJK punctuation
	 * (U+3000-303F), fullwidth forms' punctuation (U+FF01-FF0F). */
	if (c == 0xC2 && len >= 2 && (s[1] == 0xA0 || s[1] == 0xAB || s[1] == 0xBB))
		return 2;
	if (c == 0xE2 && len >= 3 && (s[1] == 0x80 || s[1] == 0x81))
		return 3;
	if (c == 0xE3 && len >= 3 && s[1] == 0x80 && s[2] <= 0xBF)
		return 3;
	if (c == 0xEF && len >= 3 && s[1] == 0xBC && s[2] >= 0x81 && s[2] <= 0x8F)
		return 3;
	return 0;
}

struct match {
	uint32_t start, end;       /* byte range of the run */
	uint32_t term;             /* index of the first query word in it */
};

struct run_ctx {
	const struct excerpt_terms *terms;
	int hit;                   /* term index + 1, 0 = none */
};

static int run_word(const char *word, size_t len, tok_pos_t pos, bool stop, void *arg)
{
	struct run_ctx *x = arg;

	UNUSED(pos);
	UNUSED(stop);
	for (size_t i = 0; i < x->terms->n; i++)
		if (strlen(x->terms->words[i]) == len && !memcmp(x->terms->words[i], word, len)) {
			x->hit = (int)i + 1;
			return 1;
		}
	return 0;
}

/* The runs of text[0..len) holding a query word, at most max of them. */
void excerpt_terms_ready(const struct excerpt_terms *terms, struct excerpt_ready *out)
{
	out->terms = terms;
	out->n = terms ? terms->n : 0;
	if (out->n > EXCERPT_MAX_TERMS)
		out->n = EXCERPT_MAX_TERMS;
	memset(out->first, 0, sizeof(out->first));
	for (size_t t = 0; t < out->n; t++) {
		out->len[t] = strlen(terms->words[t]);
		out->first[(unsigned char)terms->words[t][0]] = true;
		if (!out->len[t]) /* an empty word prefixes every run */
			memset(out->first, 1, sizeof(out->first));
	}
}

static size_t find_matches(const struct tokenizer *tok, const char *text, size_t len,
			   const struct excerpt_ready *rd, struct match *m, size_t max)
{
	const unsigned char *s = (const unsigned char *)text;
	const struct excerpt_terms *terms = rd->terms;
	const size_t *tlen = rd->len;
	const bool *first = rd->first;
	size_t i = 0, n = 0;
	bool ascii;

	if (!rd->n)
		return 0;
	/* Most of a page's bytes are ASCII: they are classed here, and
	 * sep_len() is asked about the others only (the profile of a result
	 * page had this loop first, doc/SEARCH.md). */
	while (i < len && n < max) {
		size_t j, k;
		struct run_ctx x = { terms, 0 };
		struct tok_doc td;

		while (i < len) {
			if (s[i] < 0x80) {
				if (ascii_alnum(s[i]))
					break;
				i++;
			} else if ((k = sep_len(s + i, len - i)) > 0) {
				i += k;
			} else {
				break;
			}
		}
		j = i;
		ascii = true;
		while (j < len && ascii_alnum(s[j]))
			j++;
		while (j < len) {
			if (s[j] < 0x80) {
				if (!ascii_alnum(s[j]))
					break;
			} else {
				if (sep_len(s + j, len - j))
					break;
				ascii = false;
			}
			j++;
		}
		if (j == i)
			break;
		/* A query word matches an ASCII run only from its first byte,
		 * lower-cased: most runs are ruled out by it. */
		if (ascii && !first[(unsigned char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i])]) {
			i = j;
			continue;
		}
		if (ascii) {
			/* One ASCII word: the tokenizer only lower-cases it, and cuts
			 * it to MaxWordLength; a cut word can only equal a query
			 * word that is a prefix of the run, so only then is the
			 * tokenizer asked. */
			bool maybe_cut = false;

			for (size_t t = 0; t < rd->n && !x.hit; t++) {
				if (tlen[t] > j - i || !folded_prefix(terms->words[t], tlen[t], text + i))
					continue;
				if (tlen[t] == j - i)
					x.hit = (int)t + 1;
				else
					maybe_cut = true;
			}
			if (!x.hit && maybe_cut) {
				tok_doc_reset(&td);
				tok_run(tok, &td, TOK_SECTION_BODY, text + i, j - i, run_word, &x);
			}
		} else {
			tok_doc_reset(&td);
			tok_run(tok, &td, TOK_SECTION_BODY, text + i, j - i, run_word, &x);
		}
		if (x.hit) {
			m[n].start = (uint32_t)i;
			m[n].end = (uint32_t)j;
			m[n].term = (uint32_t)x.hit - 1;
			n++;
		}
		i = j;
	}
	return n;
}

static size_t back_to_boundary(const char *s, size_t at)
{
	while (at > 0 && ((unsigned char)s[at] & 0xC0) == 0x80)
		at--;
	return at;
}

/* Build one excerpt of text[a..b) with the matches inside it. */
static void make_text(const char *text, size_t a, size_t b, const struct match *m, size_t nm,
		      struct proto_text *out)
{
	uint32_t n = 0;

	out->text = xmalloc(b - a + 1);
	memcpy(out->text, text + a, b - a);
	out->text[b - a] = '\0';
	/* A NUL is rare (a title or text comes from strings): looked for first. */
	for (char *z = memchr(out->text, '\0', b - a); z; z = memchr(z, '\0', out->text + (b - a) - z))
		*z = ' ';
	out->spans = NULL;
	for (size_t i = 0; i < nm; i++)
		if (m[i].start >= a && m[i].end <= b)
			n++;
	if (n)
		out->spans = xmalloc(2 * (size_t)n * sizeof(uint32_t));
	n = 0;
	for (size_t i = 0; i < nm; i++)
		if (m[i].start >= a && m[i].end <= b) {
			out->spans[2 * n] = (uint32_t)(m[i].start - a);
			out->spans[2 * n + 1] = (uint32_t)(m[i].end - a);
			n++;
		}
	out->n_spans = n;
}

/* The window around match i: about a quarter of len before it, cut at
 * spaces where one is near. */
static void window(const char *text, size_t text_len, size_t start, uint32_t len, size_t *wa,
		   size_t *wb)
{
	size_t a = start > len / 4 ? start - len / 4 : 0, b;

	a = back_to_boundary(text, a);
	if (a > 0) {
		/* start after a space within 24 bytes, not inside a word */
		for (size_t k = a; k < start && k < a + 24; k++)
			if (text[k] == ' ') {
				a = k + 1;
				break;
			}
	}
	b = a + len < text_len ? a + len : text_len;
	if (b < text_len) {
		b = back_to_boundary(text, b);
		for (size_t k = b; k > a + len / 2 && k + 24 > b; k--)
			if (text[k - 1] == ' ') {
				b = k - 1;
				break;
			}
	}
	while (b > a && text[b - 1] == ' ')
		b--;
	*wa = a;
	*wb = b;
}

int excerpt_passages(const struct tokenizer *tok, const char *text, size_t text_len,
		     const struct excerpt_terms *terms, uint32_t max, uint32_t len,
		     struct proto_text **out, uint32_t *n)
{
	struct excerpt_ready rd;
	struct match *m;
	size_t nm, scan = text_len < EXCERPT_MAX_SCAN ? text_len : EXCERPT_MAX_SCAN;
	size_t chosen_a[PROTO_MAX_EXCERPTS], chosen_b[PROTO_MAX_EXCERPTS];
	uint32_t nc = 0;

	*out = NULL;
	*n = 0;
	if (max == 0 || len == 0 || text_len == 0)
		return 0;
	if (max > PROTO_MAX_EXCERPTS)
		max = PROTO_MAX_EXCERPTS;
	excerpt_terms_ready(terms, &rd);
	m = xmalloc(EXCERPT_MAX_MATCHES * sizeof(*m));
	nm = find_matches(tok, text, scan, &rd, m, EXCERPT_MAX_MATCHES);
	while (nc < max) {
		long best = -1;
		size_t ba = 0, bb = 0;

		for (size_t i = 0; i < nm; i++) {
			size_t a, b;
			uint64_t seen[EXCERPT_MAX_TERMS / 64] = { 0 };
			long distinct = 0, count = 0, score;
			bool overlap = false;

			window(text, scan, m[i].start, len, &a, &b);
			for (uint32_t c = 0; c < nc; c++)
				if (a < chosen_b[c] && chosen_a[c] < b)
					overlap = true;
			if (overlap)
				continue;
			size_t j0 = i;

			while (j0 > 0 && m[j0 - 1].start >= a)
				j0--;
			for (size_t j = j0; j < nm && m[j].end <= b; j++) {
				uint32_t t = m[j].term % EXCERPT_MAX_TERMS;

				if (m[j].start < a)
					continue;
				count++;
				if (!(seen[t / 64] >> (t % 64) & 1)) {
					seen[t / 64] |= 1ull << (t % 64);
					distinct++;
				}
			}
			score = distinct * 1000 + count;
			if (score > best) {
				best = score;
				ba = a;
				bb = b;
			}
		}
		if (best < 0)
			break;
		chosen_a[nc] = ba;
		chosen_b[nc] = bb;
		nc++;
	}
	if (nc == 0) {
		/* No query word in the text: its beginning. */
		size_t a, b;

		window(text, scan, 0, len, &a, &b);
		chosen_a[0] = a;
		chosen_b[0] = b;
		nc = 1;
	}
	/* Text order. */
	for (uint32_t i = 1; i < nc; i++)
		for (uint32_t j = i; j > 0 && chosen_a[j - 1] > chosen_a[j]; j--) {
			size_t ta = chosen_a[j], tb = chosen_b[j];
			chosen_a[j] = chosen_a[j - 1];
			chosen_b[j] = chosen_b[j - 1];
			chosen_a[j - 1] = ta;
			chosen_b[j - 1] = tb;
		}
	*out = xcalloc(nc, sizeof(**out));
	for (uint32_t i = 0; i < nc; i++)
		make_text(text, chosen_a[i], chosen_b[i], m, nm, &(*out)[i]);
	*n = nc;
	free(m);
	return 0;
}

int excerpt_highlight(const struct tokenizer *tok, const char *text, size_t len,
		      const struct excerpt_terms *terms, uint32_t max_spans, struct proto_text *out)
{
	struct excerpt_ready rd;

	excerpt_terms_ready(terms, &rd);
	return excerpt_highlight_ready(tok, text, len, &rd, max_spans, out);
}

int excerpt_highlight_ready(const struct tokenizer *tok, const char *text, size_t len,
			    const struct excerpt_ready *rd, uint32_t max_spans,
			    struct proto_text *out)
{
	struct buf clean = BUF_INIT(MAX_DOC_BYTES + 1);
	struct match few[64], *m = few; /* a title's or description's: no malloc */
	size_t nm, cap = max_spans < EXCERPT_MAX_MATCHES * 16 ? max_spans : EXCERPT_MAX_MATCHES * 16;

	memset(out, 0, sizeof(*out));
	if (!text)
		text = "";
	if (!utf8_valid(text, len)) {
		utf8_sanitize(text, len, &clean, NULL);
		text = buf_str(&clean);
		len = clean.len;
	}
	if (cap > ARRAY_SIZE(few))
		m = xmalloc(cap * sizeof(*m));
	nm = find_matches(tok, text, len, rd, m, cap);
	make_text(text, 0, len, m, nm, out);
	if (m != few)
		free(m);
	buf_free(&clean);
	return 0;
}
