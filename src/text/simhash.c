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

/* Byte b spread over the 8 bytes of a word: byte i is bit i of b. */
#define SPREAD(b)                                                                                  \
	((((((uint64_t)(b)*0x0101010101010101ull) & 0x8040201008040201ull) +                       \
	   0x7f7f7f7f7f7f7f7full) >>                                                               \
	  7) &                                                                                     \
	 0x0101010101010101ull)
#define SPREAD4(b) SPREAD(b), SPREAD((b) + 1), SPREAD((b) + 2), SPREAD((b) + 3)
#define SPREAD16(b) SPREAD4(b), SPREAD4((b) + 4), SPREAD4((b) + 8), SPREAD4((b) + 12)
#define SPREAD64(b) SPREAD16(b), SPREAD16((b) + 16), SPREAD16((b) + 32), SPREAD16((b) + 48)
static const uint64_t spread[256] = { SPREAD64(0), SPREAD64(64), SPREAD64(128), SPREAD64(192) };

/* The votes counted in bytes (acc) go into v. */
static void flush_votes(struct simhash *s)
{
	for (int k = 0; k < 8; k++) {
		for (int i = 0; i < 8; i++)
			s->v[8 * k + i] +=
			    2 * (int32_t)((s->acc[k] >> (8 * i)) & 0xff) - (int32_t)s->pending;
		s->acc[k] = 0;
	}
	s->pending = 0;
}

/* A shingle votes +1 on each bit set in h and -1 on each clear one: counted
 * as the bits set, 8 counters of a byte at a time, a byte of h picking its
 * spread from the table (64 additions a shingle took 20 times longer). */
static void add_shingle(struct simhash *s, uint64_t h)
{
	for (int k = 0; k < 8; k++)
		s->acc[k] += spread[(h >> (8 * k)) & 0xff];
	s->shingles++;
	if (++s->pending == 255)
		flush_votes(s);
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

/* A byte as a word sees it: ASCII letters folded to lower case, digits and
 * non-ASCII bytes as they are, 0 for a separator. */
#define FOLD(c)                                                                                    \
	((c) >= 'A' && (c) <= 'Z'                                                  ? (c) + 32      \
	 : ((c) >= 'a' && (c) <= 'z') || ((c) >= '0' && (c) <= '9') || (c) >= 0x80 ? (c)           \
	                                                                           : 0)
#define FOLD4(c) FOLD(c), FOLD((c) + 1), FOLD((c) + 2), FOLD((c) + 3)
#define FOLD16(c) FOLD4(c), FOLD4((c) + 4), FOLD4((c) + 8), FOLD4((c) + 12)
#define FOLD64(c) FOLD16(c), FOLD16((c) + 16), FOLD16((c) + 32), FOLD16((c) + 48)
static const unsigned char fold[256] = { FOLD64(0), FOLD64(64), FOLD64(128), FOLD64(192) };

void simhash_feed(struct simhash *s, const char *text, size_t len)
{
	/* The word being read is kept in locals: stores through s would be
	 * reloaded after every byte (a char may alias anything). */
	uint64_t word = s->word;
	size_t wlen = s->wlen;
	bool letters = s->letters;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = fold[(unsigned char)text[i]];

		if (c) {
			if (!wlen)
				word = FNV_OFFSET;
			word = (word ^ c) * FNV_PRIME;
			wlen++;
			letters |= c > '9';
		} else if (wlen) {
			s->word = word;
			s->wlen = wlen;
			s->letters = letters;
			end_word(s);
			wlen = 0;
			letters = false;
		}
	}
	s->word = word;
	s->wlen = wlen;
	s->letters = letters;
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
	flush_votes(s);
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
