/* grams.h - pairs of common words (doc/SEARCH.md, "Common-word pairs").
 *
 * A phrase of common words (`"b a b"`) is found by intersecting long
 * posting lists: every document of its rarest word is read to find the few
 * where the words follow each other.  After Williams, Zobel and Bahle
 * ("Fast phrase querying with combined indexes", ACM TOIS 22(4), 2004) and
 * Lucene's CommonGrams, the merge also indexes each adjacent pair of the
 * words listed by `CommonWords` (mpseek.conf) as a dictionary word of its
 * own, x STORAGE_GRAM_MARK y (include/storage.h), posted at x's positions.
 * A pair's list holds only the documents where the two words touch, so it
 * is far shorter than either word's and drives a phrase's walk
 * (src/search/search_prune.c); the phrase is still checked in the words'
 * own positions, so the answers do not change.
 *
 * A generation's `grams` file (doc/FORMATS.md, "grams") lists the words
 * whose pairs every document of it has: searchd uses a pair only when both
 * words are listed.  This file: the word list, the pairs of one document
 * (pure, for the merge and tests/unit/test-grams) and the file.
 */
#ifndef MPSEEK_GRAMS_H
#define MPSEEK_GRAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "caps.h"

struct buf;
struct delta_word;

#define GRAMS_MAX_WORDS MAX_COMMON_WORDS /* caps.h */

/* A sorted set of words (bytes order, a prefix first), each 1..MAX_WORD_LEN - 2
 * bytes without ASCII control characters, spaces or upper-case letters
 * (conf_directives.c checks the same: the index's words are UTF-8, so a
 * word that is not simply never has a pair). */
struct grams;

/* The set of n words (any order, repeats dropped): 0 and *out, or -1 with
 * the reason in err (a bad word, more than GRAMS_MAX_WORDS).  n = 0 gives
 * an empty set. */
int grams_make(const char *const *words, size_t n, struct grams **out, struct buf *err);
void grams_free(struct grams *g); /* accepts NULL */
size_t grams_count(const struct grams *g); /* 0 for NULL */
const char *grams_word(const struct grams *g, size_t i, size_t *len);
/* Whether CommonWords may list the word (len bytes): grams_make()'s rule. */
bool grams_word_ok(const char *word, size_t len);
/* The index of word in g, or -1. */
int grams_find(const struct grams *g, const char *word, size_t len);
/* The words of both (a new set), and whether two sets are equal. */
struct grams *grams_both(const struct grams *a, const struct grams *b);
bool grams_equal(const struct grams *a, const struct grams *b);
/* Whether key (a dictionary word) is a pair, and of two words of g. */
bool grams_key_in(const struct grams *g, const char *key, size_t len);

/* The pairs of one document: for each pair of words of g that touch in it
 * (x at position v, y at v + 1 in the same section), the key and x's
 * positions there, ascending (at most DELTA_MAX_WORD_POSITIONS).  Memory
 * is kept from document to document. */
struct gram_post {
	char key[64];           /* MAX_WORD_LEN bytes, not NUL-terminated */
	uint8_t len;
	uint32_t n_pos;
	const uint32_t *pos;
};
struct grams_doc {
	struct gram_post *posts;
	size_t n, cap;
	uint64_t *occ, *pairs;  /* scratch */
	uint32_t *pos;
	size_t cap_occ, cap_pairs;
};
/* The pairs of the document whose words (sorted by bytes and unique, as a
 * DOC record has them) are w[0..n): d->posts[0..d->n), sorted by key.  A
 * pair whose key would pass MAX_WORD_LEN bytes is left out.  Returns d->n. */
size_t grams_of_doc(const struct grams *g, const struct delta_word *w, uint32_t n,
		    struct grams_doc *d);
void grams_doc_free(struct grams_doc *d);

/* The generation's file: written when g is not empty (none otherwise), read
 * as 1 and *out, 0 when there is none, -1 with "path: what" in err when it
 * is damaged. */
#define GRAMS_FILE "grams"
int grams_write(const char *gen_dir, const struct grams *g, struct buf *err);
int grams_read(const char *gen_dir, struct grams **out, struct buf *err);
/* storage_check()'s look at the file: 1 good, 0 absent, -1 (err). */
int grams_verify(const char *gen_dir, struct buf *err);

#endif
