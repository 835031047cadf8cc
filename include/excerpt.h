/* excerpt.h - snippets and highlighting for search results (src/search/excerpt.c):
 * the stored text of a document (urlwordsNN.words, decompressed and turned
 * into plain text by html.c), the best passages with the query's words,
 * highlight spans on UTF-8 boundaries, and whole texts (titles, the cached
 * copy) with every query word highlighted.  Pure functions of their input:
 * no index, no database.  The work is bounded: at most EXCERPT_MAX_SCAN
 * bytes of a text are searched for passages.
 */
#ifndef MPSEEK_EXCERPT_H
#define MPSEEK_EXCERPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

struct buf;
struct tokenizer;

#define EXCERPT_MAX_SCAN (1u << 20)    /* bytes of plain text searched for passages */
#define EXCERPT_MAX_HTML (256u << 10)  /* bytes of a stored page parsed for snippets */
#define EXCERPT_MAX_TERMS 256          /* query words highlighted */

/* The words to highlight: folded (tok_fold), as the index has them. */
struct excerpt_terms {
	const char *const *words;
	size_t n;
};


/* The plain text of a stored document: html_parse (or html_parse_text for
 * text/plain) of the UTF-8 bytes, the body section; its newlines kept when
 * lines (the cached copy), else made spaces (snippets).  Into out (reset
 * first).  Returns 0 or -1 (out's ceiling). */
int excerpt_plain_text(const char *utf8, size_t len, const char *content_type, bool lines,
		       struct buf *out);

/* Up to max passages of at most len bytes each (cut on UTF-8 and word
 * boundaries) from text, the ones with the most distinct query words
 * first, in text order; each word of terms in them highlighted.  A text
 * without any query word gives its beginning, unhighlighted.  *out is a
 * malloc'd array of *n texts (free each with excerpt_text_free(), then the
 * array).  Returns 0. */
int excerpt_passages(const struct tokenizer *tok, const char *text, size_t text_len,
		     const struct excerpt_terms *terms, uint32_t max, uint32_t len,
		     struct proto_text **out, uint32_t *n);

/* The whole text (invalid UTF-8 replaced) with every query word
 * highlighted, into *out (malloc'd; free with excerpt_text_free()).  At most
 * max_spans spans.  Returns 0. */
int excerpt_highlight(const struct tokenizer *tok, const char *text, size_t len,
		      const struct excerpt_terms *terms, uint32_t max_spans, struct proto_text *out);

/* terms made ready for many texts: each word's length and the bytes words
 * start with, worked out once (excerpt_highlight() does it per text). */
struct excerpt_ready {
	const struct excerpt_terms *terms;
	size_t n;                  /* of terms' words used: at most EXCERPT_MAX_TERMS */
	size_t len[EXCERPT_MAX_TERMS];
	bool first[256];           /* a word starts with this byte (all: an empty word) */
};

void excerpt_terms_ready(const struct excerpt_terms *terms, struct excerpt_ready *out);
/* excerpt_highlight() with terms made ready (the page's titles and
 * descriptions). */
int excerpt_highlight_ready(const struct tokenizer *tok, const char *text, size_t len,
			    const struct excerpt_ready *rd, uint32_t max_spans,
			    struct proto_text *out);

void excerpt_text_free(struct proto_text *t); /* accepts a zeroed struct */

#endif
