/* bloom.h - a Bloom filter of 64-bit hashes: "certainly not added" or
 * "maybe added", with the false-positive rate it was sized for.
 *
 * The k bit positions come from the one 64-bit hash by double hashing
 * (Kirsch and Mitzenmacher, "Less Hashing, Same Performance: Building a
 * Better Bloom Filter"): g_i = a + i b mod m.  m = -n ln p / (ln 2)^2 bits
 * and k = (m / n) ln 2 for n items at rate p: 9.6 bits an item at 1 %.
 * Not thread-safe.
 */
#ifndef MPSEEK_BLOOM_H
#define MPSEEK_BLOOM_H

#include <stdbool.h>
#include <stdint.h>

struct bloom;

/* A filter for `items` hashes at false-positive rate fp (0 < fp < 1);
 * NULL when items is 0. */
struct bloom *bloom_new(uint64_t items, double fp);
void bloom_free(struct bloom *b);               /* accepts NULL */
void bloom_add(struct bloom *b, uint64_t h);
bool bloom_maybe(const struct bloom *b, uint64_t h);

struct bloom_info {
	uint64_t bits;        /* m */
	uint64_t set;         /* bits set */
	uint64_t added;       /* bloom_add() calls that set a bit (distinct items, but
	                       * for items whose every bit was set already) */
	unsigned k;
	double fill;          /* set / bits */
	double predicted_fp;  /* fill^k: the rate a never-added hash answers "maybe" */
};
void bloom_info(const struct bloom *b, struct bloom_info *bi);

#endif
