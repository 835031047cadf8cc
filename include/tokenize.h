/* tokenize.h - words, case folding, stopwords and positions with section bits.
 *
 * Owns the one definition of "a word" for both sides of the engine: the
 * indexer runs every section of every page through tok_run(), and the query
 * parser runs the user's terms through the same tok_run() (with the same
 * MinWordLength/MaxWordLength/StopwordFile), so a query word matches exactly
 * what was indexed.  It does not parse HTML, detect charsets or store postings.
 *
 * What a word is (the rules are the contract; tests/data/tokenize/words.tsv
 * pins them):
 *  - A maximal run of letters and digits (Unicode L* and N*), with combining
 *    marks (Mn, Mc) kept inside it.  Everything else separates words:
 *    spaces, punctuation, symbols, emoji, controls, enclosing marks (Me),
 *    unassigned and private-use code points, U+200B, and invalid UTF-8 bytes
 *    (input should already be sanitised by charset.c; a stray byte must not
 *    glue two words together).  A mark with no letter before it is dropped.
 *  - Apostrophes and hyphens separate, like ASPseek: "don't" is don + t,
 *    "e-mail" is e + mail.  Without a stemmer this keeps "john's" findable as
 *    "john"; the query side splits the same way, so the query parser turns a
 *    term that yields several words into a phrase and "don't" still matches
 *    exactly.  Underscores, dots and commas separate too ("foo_bar", "3.14").
 *  - Default-ignorable code points (soft hyphen, ZWJ/ZWNJ, word joiner,
 *    variation selectors, bidi marks) are dropped without splitting: "hy&shy;
 *    phen" is one word.
 *  - Han, Hiragana, Katakana, Bopomofo and Hangul, and the scripts written
 *    without spaces (Thai, Lao, Khmer, Myanmar), give one word per character
 *    (with its combining marks), so text in them is searchable as phrases of
 *    single characters without a segmentation dictionary.  MinWordLength
 *    does not apply to these one-character words.
 *  - Folding: full Unicode case folding, then NFC (utf8proc CASEFOLD |
 *    COMPOSE | STABLE), so NFC and NFD input give the same words and
 *    "Straße" is "strasse".  Accents are kept ("café" is not "cafe").  Two
 *    additions: fullwidth ASCII (U+FF01..FF5E) folds to ASCII, and a combining
 *    dot above after i/j is dropped, so Turkish "İstanbul" is "istanbul".
 *  - Length, in code points after folding: words shorter than min_len are not
 *    indexed (reported like stopwords); words longer than max_len are
 *    truncated to max_len code points (ASPseek truncated at 32) and never
 *    exceed MAX_WORD_LEN bytes, always cut on a code point boundary.  The
 *    query side truncates the same way, so a long query word still matches.
 *
 * Positions (as ASPseek 1.2's): each section has its own counter starting at 0,
 * and every word advances it, including stopwords and too-short words, so
 * phrase distances survive their removal ("many * ago").  The 32-bit value
 * (tok_pos_t) is (section << 24) | position; positions past MAX_POSITION
 * (16,777,215; ASPseek had 14 bits, 16,383) saturate at MAX_POSITION while
 * the counters keep counting.  Three section bits hold 8 section values (4
 * used); the top 5 bits are zero.  Code outside this header and the storage
 * codecs uses tok_pos_section()/tok_pos_position(), never the bit layout.
 */
#ifndef MPSEEK_TOKENIZE_H
#define MPSEEK_TOKENIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "caps.h"

/* Sections, in the order of enum section in html.h (bits 24..26). */
enum {
	TOK_SECTION_BODY = 0,
	TOK_SECTION_DESCRIPTION = 1,
	TOK_SECTION_KEYWORDS = 2,
	TOK_SECTION_TITLE = 3,
	TOK_SECTIONS = 4
};

/* An encoded position: section and position within it (doc/INDEX.md). */
typedef uint32_t tok_pos_t;

#define TOK_POSITION_BITS 24
#define TOK_SECTION_BITS  3
_Static_assert(MAX_POSITION == (1ul << TOK_POSITION_BITS) - 1,
	       "MAX_POSITION must fill the position bits");
_Static_assert(TOK_SECTIONS <= 1 << TOK_SECTION_BITS, "every section fits the section bits");
_Static_assert(TOK_POSITION_BITS + TOK_SECTION_BITS <= 32, "a position fits tok_pos_t");

/* Bounds on stopword files (loaded from config, but still bounded). */
#define TOK_MAX_STOPWORDS      65536
#define TOK_MAX_STOPFILE_BYTES (1L << 20)

/* Scratch sizes of struct tok_doc: a word keeps at most TOK_MAX_RAW code
 * points of its input (enough for any word that survives truncation, even
 * written decomposed); the rest of a longer run is skipped. */
#define TOK_MAX_RAW     (4 * MAX_WORD_LEN)
#define TOK_SCRATCH     (4 * TOK_MAX_RAW)

/* Encode a section and a position into the posting value. */
static inline tok_pos_t tok_pos_encode(int section, unsigned long position)
{
	if (position > MAX_POSITION)
		position = MAX_POSITION;
	return (tok_pos_t)(((unsigned)section & ((1u << TOK_SECTION_BITS) - 1))
			   << TOK_POSITION_BITS) | (tok_pos_t)position;
}

static inline int tok_pos_section(tok_pos_t pos)
{
	return (int)(pos >> TOK_POSITION_BITS);
}

static inline unsigned tok_pos_position(tok_pos_t pos)
{
	return pos & MAX_POSITION;
}

/* The configuration: length limits and the stopword set.  Immutable once the
 * stopwords are loaded, so one tokenizer may be shared by threads, each with
 * its own struct tok_doc. */
struct tokenizer;

/* Per-document (or per-query) state: the position counters and scratch
 * space, so that tok_run() allocates nothing per word.  Fine on the stack;
 * owns no heap memory, so there is no destructor.  Reset per document. */
struct tok_doc {
	uint32_t next[TOK_SECTIONS]; /* next position per section, unsaturated */
	uint64_t tokens;             /* every word seen, stopwords included */
	uint64_t indexed;            /* words reported with stop == false */
	/* private scratch: the current word, folded */
	int32_t scratch[TOK_SCRATCH + 1];
};

void tok_doc_reset(struct tok_doc *d);

/* min_len/max_len are MinWordLength/MaxWordLength in code points; they are
 * clamped to 1 <= min_len <= max_len <= MAX_WORD_LEN.  Never NULL. */
struct tokenizer *tok_new(long min_len, long max_len);
/* Accepts NULL. */
void tok_free(struct tokenizer *t);

/* Add the words of a stopword file (UTF-8, one word per line, '#' starts a
 * comment, blank lines ignored, folded on load).  Several files may be
 * loaded.  Returns 0, or -1 after logging "path:line: reason" (missing file,
 * too big, invalid UTF-8, a line that is not exactly one word or is longer
 * than max_len, more than TOK_MAX_STOPWORDS words); on error the words of
 * the lines before the bad one stay loaded. */
int tok_load_stopwords(struct tokenizer *t, const char *path);
/* Add one stopword (any case, folded here); 0, or -1 if it is not exactly
 * one word or the set is full. */
int tok_add_stopword(struct tokenizer *t, const char *word, size_t len);
/* Is this already-folded word (NUL-terminated) a stopword? */
bool tok_is_stopword(const struct tokenizer *t, const char *folded);
size_t tok_stopword_count(const struct tokenizer *t);

/* Called once per word, in order.  word is folded, NUL-terminated, valid
 * UTF-8, 1..MAX_WORD_LEN bytes, borrowed until the callback returns.  pos is
 * the encoded position.  stop is true for words that must not be
 * indexed (stopwords and words shorter than min_len); they still took a
 * position.  Return 0 to go on; any other value stops tok_run(), which
 * returns it. */
typedef int (*tok_emit_fn)(const char *word, size_t len, tok_pos_t pos, bool stop, void *arg);

/* Split len bytes of UTF-8 text of one section (0..3) into words, continuing
 * that section's position counter in d.  A call boundary is a word boundary:
 * pass whole text runs.  emit may be NULL (only d's counters move).
 * Returns 0, -1 for a bad section, or what emit returned. */
int tok_run(const struct tokenizer *t, struct tok_doc *d, int section, const char *utf8,
	    size_t len, tok_emit_fn emit, void *arg);

/* Fold a string the way words are folded (case fold, NFC, ignorables
 * dropped) without splitting or truncating it, appending to out: for the
 * query side (wildcard patterns, lookups).  Returns 0, or -1 for invalid
 * UTF-8 or when out would pass its ceiling (out is then unchanged). */
int tok_fold(const char *in, size_t len, struct buf *out);

#endif
