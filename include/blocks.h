/* blocks.h - a page's body text as blocks (src/text/blocks.c): the lines
 * html.c leaves where a block-level tag broke the text, each with its byte
 * range, the body word positions it spans and a hash of its folded words.
 * The merge counts the hashes per site to find boilerplate (navigation,
 * breadcrumbs, footers repeated on many of a site's pages; include/boiler.h)
 * and the snippets drop the lines that fall in boilerplate ranges.  Pure
 * functions of their input: the same text gives the same blocks on both
 * sides, and the positions are those the crawler's tok_run() gave.
 */
#ifndef MPSEEK_BLOCKS_H
#define MPSEEK_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct buf;
struct tokenizer;

/* A range of body word positions [start, end), unsaturated. */
struct pos_range {
	uint32_t start, end;
};

struct block {
	size_t start, end;         /* bytes of the line in the text, without its '\n' */
	uint32_t pos_start, pos_end; /* body positions of its words [start, end) */
	uint64_t hash;             /* FNV-1a of its folded words, never 0; 0: no word */
};

/* Called per line of text, in order; return non-zero to stop. */
typedef int (*block_fn)(const struct block *b, void *arg);

/* The plain body text of a stored document, lines kept: html_parse (or
 * html_parse_text for text/plain) of the bytes, invalid UTF-8 replaced
 * first.  Into out (reset first).  0, or -1 when out's ceiling is hit. */
int blocks_body_text(const char *utf8, size_t len, const char *content_type, struct buf *out);

/* Split text (blocks_body_text()'s) into its lines and call fn for each.
 * Returns 0 or what fn returned. */
int blocks_split(const struct tokenizer *tok, const char *text, size_t len, block_fn fn,
		 void *arg);

/* Is [a, b) inside one of the n ranges (sorted, disjoint)? */
bool blocks_range_covers(const struct pos_range *r, size_t n, uint32_t a, uint32_t b);

/* Text without the lines whose words all lie in the ranges, its newlines
 * made spaces: what snippets are cut from.  Into out (reset first).  0 or
 * -1 (out's ceiling). */
int blocks_drop(const struct tokenizer *tok, const char *text, size_t len,
		const struct pos_range *r, size_t n, struct buf *out);

#endif
