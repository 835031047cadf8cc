/* simhash.h - a document's 64-bit similarity signature (Charikar, "Similarity
 * estimation techniques from rounding algorithms", 2002): near-duplicate
 * texts get signatures a few bits apart (doc/CRAWL.md, "Near-duplicates").
 * Pure: no allocation, no state outside the struct.
 */
#ifndef MPSEEK_SIMHASH_H
#define MPSEEK_SIMHASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Words per shingle. */
#define SIMHASH_SHINGLE 3

/* The signature being built: feed the text in pieces (a piece ends a word),
 * then take simhash_final(). */
struct simhash {
	int32_t v[64];             /* per bit: shingles with it set minus those without */
	uint64_t acc[8];           /* votes not yet in v: byte i of acc[k] counts bit 8k + i */
	unsigned pending;          /* shingles in acc (at most 255: a byte) */
	uint64_t win[SIMHASH_SHINGLE - 1]; /* the previous words' hashes */
	unsigned nwin;             /* words seen, capped at SIMHASH_SHINGLE - 1 */
	uint64_t shingles;         /* shingles added */
	uint64_t word;             /* the hash of the word being read */
	size_t wlen;               /* its bytes so far (0: between words) */
	bool letters;              /* it has a byte that is not a digit */
};

void simhash_init(struct simhash *s);
/* A piece of UTF-8 text: words are runs of ASCII letters and digits (folded
 * to lower case) and of non-ASCII bytes; every other byte separates.  The
 * digits of a word with letters count; a word of digits alone is the word
 * "#" whatever they are: dates, times, counters and session numbers are
 * what changes between fetches of one page, not its content. */
void simhash_feed(struct simhash *s, const char *text, size_t len);
/* The signature: bit i set when more shingles (each occurrence counts, so
 * a shingle weighs its count) had bit i set in their hash than not.  0 for
 * a text without words (0 means "no signature": never grouped). */
uint64_t simhash_final(struct simhash *s);
/* simhash_init(), simhash_feed() and simhash_final() of one text. */
uint64_t simhash_text(const char *text, size_t len);
/* The number of bits in which a and b differ. */
static inline unsigned simhash_distance(uint64_t a, uint64_t b)
{
	return (unsigned)__builtin_popcountll(a ^ b);
}

#endif
