/* bloom.c - a Bloom filter of 64-bit hashes (see bloom.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "bloom.h"
#include "util.h"

#define BLOOM_MAX_K 16
#define LN2 0.69314718055994530942

struct bloom {
	uint64_t *w;
	uint64_t m;           /* bits, a multiple of 64 */
	uint64_t set, added;
	unsigned k;
};

struct bloom *bloom_new(uint64_t items, double fp)
{
	struct bloom *b;
	double m, k;

	if (!items)
		return NULL;
	if (!(fp > 0 && fp < 1))
		fp = 0.01;
	m = ceil(-(double)items * log(fp) / (LN2 * LN2));
	k = round(m / (double)items * LN2);
	b = xcalloc(1, sizeof(*b));
	b->m = ((uint64_t)m + 63) / 64 * 64;
	b->k = k < 1 ? 1 : k > BLOOM_MAX_K ? BLOOM_MAX_K : (unsigned)k;
	b->w = xcalloc(b->m / 64, sizeof(*b->w));
	return b;
}

void bloom_free(struct bloom *b)
{
	if (!b)
		return;
	free(b->w);
	free(b);
}

/* The two hashes of double hashing, a = h / 2 mod m and b in [1, m): bit 0
 * is left out of a because the seen-set's keys have it clear (with an even
 * m, a would always be even, and the even bits would take 4 of k = 7
 * positions: 6 % more false positives on test-seen's URLs); b is a
 * bijective mix of h (murmur3's finaliser). */
static void two_hashes(const struct bloom *b, uint64_t h, uint64_t *a, uint64_t *d)
{
	*a = (h >> 1) % b->m;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	*d = h % (b->m - 1) + 1;
}

void bloom_add(struct bloom *b, uint64_t h)
{
	uint64_t a, d;
	bool fresh = false;

	two_hashes(b, h, &a, &d);

	for (unsigned i = 0; i < b->k; i++) {
		uint64_t bit = 1ull << (a & 63), *w = &b->w[a >> 6];

		if (!(*w & bit)) {
			*w |= bit;
			b->set++;
			fresh = true;
		}
		a += d;
		if (a >= b->m)
			a -= b->m;
	}
	b->added += fresh;
}

bool bloom_maybe(const struct bloom *b, uint64_t h)
{
	uint64_t a, d;

	two_hashes(b, h, &a, &d);
	for (unsigned i = 0; i < b->k; i++) {
		if (!(b->w[a >> 6] & (1ull << (a & 63))))
			return false;
		a += d;
		if (a >= b->m)
			a -= b->m;
	}
	return true;
}

void bloom_info(const struct bloom *b, struct bloom_info *bi)
{
	bi->bits = b->m;
	bi->set = b->set;
	bi->added = b->added;
	bi->k = b->k;
	bi->fill = (double)b->set / (double)b->m;
	bi->predicted_fp = pow(bi->fill, b->k);
}
