/* seen.c - the rank's seen-set (see seen.h): open addressing with linear
 * probing, CLOCK eviction with backward-shift deletion, and a Bloom filter
 * behind it. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "bloom.h"
#include "seen.h"
#include "util.h"

/* Bit 0 of a stored hash is the CLOCK reference bit; a key is the hash with
 * bit 0 clear, never 0 (0 = an empty slot). */
#define REF 1ull

struct seen_ent {
	uint64_t h;
	uint32_t id;
} __attribute__((packed));

struct seen {
	struct seen_ent *t;
	size_t n, cap, max;  /* cap: a power of two, at least 2 n */
	size_t hand;         /* CLOCK hand: the next slot to look at */
	uint64_t evicted;
	uint64_t filter_urls;
	double filter_fp;
	struct bloom *bloom;
	uint64_t asked, maybe, false_pos;
};

uint64_t seen_hash(const char *s, size_t n)
{
	/* FNV-1a 64, then a final mix (splitmix64) so that the bits used for
	 * the slot depend on every byte. */
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	h ^= h >> 31;
	h &= ~REF;
	return h ? h : 2;
}

struct seen *seen_new(size_t max)
{
	struct seen *s = xcalloc(1, sizeof(*s));

	s->cap = 1024;
	s->max = max ? max : 1;
	s->t = xcalloc(s->cap, sizeof(*s->t));
	return s;
}

void seen_filter(struct seen *s, uint64_t urls, double fp)
{
	s->filter_urls = urls;
	s->filter_fp = fp;
}

void seen_free(struct seen *s)
{
	if (!s)
		return;
	bloom_free(s->bloom);
	free(s->t);
	free(s);
}

static size_t home(const struct seen *s, uint64_t key)
{
	return (size_t)(key >> 1) & (s->cap - 1);
}

static size_t slot(const struct seen *s, uint64_t key)
{
	size_t i = home(s, key);

	while (s->t[i].h && (s->t[i].h & ~REF) != key)
		i = (i + 1) & (s->cap - 1);
	return i;
}

uint32_t seen_lookup(struct seen *s, const char *url, size_t len, bool *maybe)
{
	uint64_t key = seen_hash(url, len);
	struct seen_ent *e = &s->t[slot(s, key)];

	*maybe = false;
	if (e->h) {
		e->h |= REF;
		return e->id;
	}
	/* Nothing evicted: the cache holds every URL ever put.  Evicted but no
	 * filter: unknown, answered "new" as before there was a filter. */
	if (!s->bloom)
		return 0;
	s->asked++;
	*maybe = bloom_maybe(s->bloom, key);
	s->maybe += *maybe;
	return 0;
}

uint32_t seen_get(struct seen *s, const char *url, size_t len)
{
	uint64_t key = seen_hash(url, len);
	struct seen_ent *e = &s->t[slot(s, key)];

	if (!e->h)
		return 0;
	e->h |= REF;
	return e->id;
}

static void grow(struct seen *s)
{
	struct seen_ent *old = s->t;
	size_t oldcap = s->cap;

	s->cap *= 2;
	s->t = xcalloc(s->cap, sizeof(*s->t));
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].h)
			s->t[slot(s, old[i].h & ~REF)] = old[i];
	free(old);
	s->hand = 0;
}

/* Empty slot i and close the gap (linear probing's backward shift): an
 * entry after it moves up unless its home lies cyclically in (i, j]. */
static void delete_at(struct seen *s, size_t i)
{
	size_t mask = s->cap - 1, j = i;

	for (;;) {
		size_t h;

		j = (j + 1) & mask;
		if (!s->t[j].h)
			break;
		h = home(s, s->t[j].h & ~REF);
		if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
			continue;
		s->t[i] = s->t[j];
		i = j;
	}
	s->t[i].h = 0;
	s->n--;
}

/* The first eviction: from now on the cache forgets, so the filter starts
 * with every key it holds (all the keys ever put). */
static void filter_start(struct seen *s)
{
	s->bloom = bloom_new(s->filter_urls, s->filter_fp);
	if (!s->bloom)
		return;
	for (size_t i = 0; i < s->cap; i++)
		if (s->t[i].h)
			bloom_add(s->bloom, s->t[i].h & ~REF);
}

/* CLOCK: clear the reference bits the hand passes, drop the first entry
 * without one. */
static void evict(struct seen *s)
{
	if (!s->evicted && s->filter_urls)
		filter_start(s);
	for (;;) {
		size_t i = s->hand;
		struct seen_ent *e = &s->t[i];

		s->hand = (i + 1) & (s->cap - 1);
		if (!e->h)
			continue;
		if (e->h & REF) {
			e->h &= ~REF;
			continue;
		}
		/* The backward shift may move the next entry into slot i: look
		 * at it again rather than skip it. */
		delete_at(s, i);
		s->hand = i;
		break;
	}
	s->evicted++;
}

void seen_put(struct seen *s, const char *url, size_t len, uint32_t id)
{
	uint64_t key = seen_hash(url, len);
	struct seen_ent *e;

	if (!id)
		return;
	e = &s->t[slot(s, key)];
	if (!e->h) {
		if (s->n >= s->max)
			evict(s);
		else if (2 * (s->n + 1) > s->cap)
			grow(s);
		e = &s->t[slot(s, key)];
		e->h = key;
		s->n++;
		if (s->bloom)
			bloom_add(s->bloom, key);
	}
	e->id = id;
}

void seen_false_positives(struct seen *s, uint64_t n)
{
	s->false_pos += n;
}

size_t seen_count(const struct seen *s)
{
	return s->n;
}

void seen_stats(const struct seen *s, struct seen_stats *st)
{
	struct bloom_info bi;
	uint64_t negatives;

	memset(st, 0, sizeof(*st));
	st->entries = s->n;
	st->max = s->max;
	st->evicted = s->evicted;
	st->asked = s->asked;
	st->maybe = s->maybe;
	st->false_pos = s->false_pos;
	negatives = s->asked - s->maybe + s->false_pos;
	st->measured_fp = negatives ? (double)s->false_pos / (double)negatives : -1;
	if (!s->bloom)
		return;
	bloom_info(s->bloom, &bi);
	st->filter = true;
	st->filter_bits = bi.bits;
	st->filter_set = bi.set;
	st->filter_added = bi.added;
	st->filter_k = bi.k;
	st->filter_fill = bi.fill;
	st->predicted_fp = bi.predicted_fp;
}
