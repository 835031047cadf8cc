/* seen.c - the rank's seen-set (see seen.h): open addressing, linear probing. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "seen.h"
#include "util.h"

struct seen_ent {
	uint64_t h;      /* 0 = empty (a real hash of 0 is stored as 1) */
	uint32_t id;
} __attribute__((packed));

struct seen {
	struct seen_ent *t;
	size_t n, cap, max;  /* cap: a power of two, at least 2 n */
};

static uint64_t seen_hash(const char *s, size_t n)
{
	/* FNV-1a 64, then a final mix (splitmix64) so that the low bits used
	 * for the slot depend on every byte. */
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
	return h ? h : 1;
}

struct seen *seen_new(size_t max)
{
	struct seen *s = xcalloc(1, sizeof(*s));

	s->cap = 1024;
	s->max = max ? max : 1;
	s->t = xcalloc(s->cap, sizeof(*s->t));
	return s;
}

void seen_free(struct seen *s)
{
	if (!s)
		return;
	free(s->t);
	free(s);
}

static struct seen_ent *slot(const struct seen *s, uint64_t h)
{
	size_t i = (size_t)h & (s->cap - 1);

	while (s->t[i].h && s->t[i].h != h)
		i = (i + 1) & (s->cap - 1);
	return &s->t[i];
}

uint32_t seen_get(const struct seen *s, const char *url, size_t len)
{
	struct seen_ent *e = slot(s, seen_hash(url, len));

	return e->h ? e->id : 0;
}

static void grow(struct seen *s)
{
	struct seen_ent *old = s->t;
	size_t oldcap = s->cap;

	s->cap *= 2;
	s->t = xcalloc(s->cap, sizeof(*s->t));
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].h)
			*slot(s, old[i].h) = old[i];
	free(old);
}

void seen_put(struct seen *s, const char *url, size_t len, uint32_t id)
{
	uint64_t h = seen_hash(url, len);
	struct seen_ent *e;

	if (!id)
		return;
	e = slot(s, h);
	if (!e->h) {
		if (s->n >= s->max)
			return;
		if (2 * (s->n + 1) > s->cap) {
			grow(s);
			e = slot(s, h);
		}
		e->h = h;
		s->n++;
	}
	e->id = id;
}

size_t seen_count(const struct seen *s)
{
	return s->n;
}
