/* simhash.c - a document's 64-bit simhash over its 3-word shingles
 * (include/simhash.h).  Each word is hashed (FNV-1a, then a 64-bit
 * finaliser so that every output bit depends on every input bit), each
 * shingle's hash mixes its words' hashes in order, and every shingle votes
 * +1 or -1 on each of the 64 bits.  A changed word changes at most three
 * shingles, so a long page with a changed timestamp line moves few votes and
 * few bits, while unrelated pages differ in about 32.
 */
#include "config.h"

#include <string.h>

#include "simhash.h"

#define FNV_OFFSET 1469598103934665603ull
#define FNV_PRIME 1099511628211ull

/* The finaliser of splitmix64 (Steele, Lea and Flood, "Fast splittable
 * pseudorandom number generators", 2014). */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

void simhash_init(struct simhash *s)
{
	memset(s, 0, sizeof(*s));
}

static void add_shingle(struct simhash *s, uint64_t h)
{
	for (int b = 0; b < 64; b++)
		s->v[b] += (h >> b) & 1 ? 1 : -1;
	s->shingles++;
}

/* The shingle ending with word hash w (and the words before it). */
static uint64_t shingle_hash(const struct simhash *s, uint64_t w)
{
	uint64_t h = FNV_OFFSET;

	for (unsigned i = 0; i < s->nwin; i++)
		h = mix64(h ^ s->win[i]);
	return mix64(h ^ w);
}

static void end_word(struct simhash *s)
{
	uint64_t w;

	if (!s->wlen)
		return;
	/* A number is the word "#" whatever its digits. */
	w = mix64(s->letters ? s->word : (FNV_OFFSET ^ '#') * FNV_PRIME);
	s->wlen = 0;
	s->letters = false;
	if (s->nwin == SIMHASH_SHINGLE - 1)
		add_shingle(s, shingle_hash(s, w));
	/* Slide the window: the oldest word leaves. */
	if (s->nwin == SIMHASH_SHINGLE - 1) {
		memmove(s->win, s->win + 1, (SIMHASH_SHINGLE - 2) * sizeof(s->win[0]));
		s->win[SIMHASH_SHINGLE - 2] = w;
	} else {
		s->win[s->nwin++] = w;
	}
}

void simhash_feed(struct simhash *s, const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c >= 'A' && c <= 'Z')
			c = (unsigned char)(c - 'A' + 'a');
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c >= 0x80) {
			if (!s->wlen)
				s->word = FNV_OFFSET;
			s->word = (s->word ^ c) * FNV_PRIME;
			s->wlen++;
			if (c > '9')
				s->letters = true;
		} else {
			end_word(s);
		}
	}
	end_word(s);
}

uint64_t simhash_final(struct simhash *s)
{
	uint64_t r = 0;

	end_word(s);
	/* A text shorter than a shingle: its few words are one shingle. */
	if (!s->shingles && s->nwin)
		add_shingle(s, shingle_hash(s, 0));
	if (!s->shingles)
		return 0;
	for (int b = 0; b < 64; b++)
		if (s->v[b] > 0)
			r |= 1ull << b;
	return r;
}

uint64_t simhash_text(const char *text, size_t len)
{
	struct simhash s;

	simhash_init(&s);
	simhash_feed(&s, text, len);
	return simhash_final(&s);
}
