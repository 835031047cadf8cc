/* arena.c - the bump allocator of arena.h: chunks of 64 KiB or more, each
 * twice the last, allocations rounded to 16 bytes. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "util.h"

#define ARENA_ALIGN 16
#define ARENA_FIRST (64 * 1024)
#define ARENA_KEEP (64 * 1024 * 1024) /* a larger chunk goes back to malloc */

struct arena_chunk {
	struct arena_chunk *next;
	size_t size, used;         /* bytes of data[] */
	_Alignas(ARENA_ALIGN) unsigned char data[];
};

static size_t round_up(size_t n)
{
	return (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
}

void *arena_alloc(struct arena *a, size_t n)
{
	struct arena_chunk *c = a->head;

	n = round_up(n ? n : 1);
	if (!c || c->size - c->used < n) {
		size_t size = c ? 2 * c->size : ARENA_FIRST;

		while (size < n)
			size *= 2;
		c = xmalloc(sizeof(*c) + size);
		c->size = size;
		c->used = 0;
		c->next = a->head;
		a->head = c;
	}
	a->last = c->data + c->used;
	c->used += n;
	return a->last;
}

void *arena_calloc(struct arena *a, size_t n, size_t size)
{
	void *p;

	if (size && n > SIZE_MAX / size)
		xmalloc(SIZE_MAX); /* aborts: out of memory, as xcalloc would */
	p = arena_alloc(a, n * size);
	memset(p, 0, n * size);
	return p;
}

void *arena_grow(struct arena *a, void *p, size_t old, size_t n)
{
	struct arena_chunk *c = a->head;
	void *q;

	if (p && p == a->last) {
		size_t at = (size_t)((unsigned char *)p - c->data);

		if (c->size - at >= round_up(n)) {
			c->used = at + round_up(n);
			return p;
		}
	}
	q = arena_alloc(a, n);
	if (old)
		memcpy(q, p, old);
	return q;
}

void arena_reset(struct arena *a)
{
	struct arena_chunk *keep = a->head, *c, *next;
	size_t total = 0;

	for (c = a->head; c; c = c->next) {
		total += c->size;
		if (c->size > keep->size)
			keep = c;
	}
	/* A task that needed several chunks gets one chunk of their total
	 * size next time: the same task then runs in one chunk, already
	 * mapped, with no malloc and no page fault. */
	if (keep && keep->size < total && total <= ARENA_KEEP) {
		size_t size = keep->size;

		while (size < total)
			size *= 2;
		arena_free(a);
		keep = xmalloc(sizeof(*keep) + size);
		keep->size = size;
		keep->next = NULL;
		a->head = keep;
	}
	for (c = a->head; c; c = next) {
		next = c->next;
		if (c != keep)
			free(c);
	}
	if (keep && keep->size > ARENA_KEEP) {
		free(keep);
		keep = NULL;
	}
	if (keep) {
		keep->used = 0;
		keep->next = NULL;
	}
	a->head = keep;
	a->last = NULL;
}

void arena_free(struct arena *a)
{
	struct arena_chunk *c, *next;

	for (c = a->head; c; c = next) {
		next = c->next;
		free(c);
	}
	a->head = NULL;
	a->last = NULL;
}
