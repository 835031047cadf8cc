/* test-arena.c - the query arena (arena.h): aligned allocations that keep
 * their contents, growth in place for the latest one, a copy otherwise, and
 * a reset that keeps one chunk for the next query. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "tap.h"
#include "util.h"

int main(void)
{
	struct arena a = ARENA_INIT;
	unsigned char *p, *q, *g;
	uint64_t *big;
	bool same = true;

	p = arena_alloc(&a, 3);
	q = arena_alloc(&a, 5);
	ok(p && q && q != p, "two allocations differ");
	ok((uintptr_t)p % 16 == 0 && (uintptr_t)q % 16 == 0, "both 16-byte aligned");
	ok(arena_alloc(&a, 0) != NULL, "a zero-byte allocation is a pointer");
	memset(p, 0xaa, 3);
	memset(q, 0xbb, 5);

	/* The latest allocation grows where it is. */
	g = arena_alloc(&a, 100);
	memset(g, 7, 100);
	ok(arena_grow(&a, g, 100, 4000) == g, "the latest allocation grows in place");
	ok(g[99] == 7, "and keeps its bytes");
	/* An earlier one is copied. */
	g = arena_grow(&a, q, 5, 64);
	ok(g != q && g[0] == 0xbb && g[4] == 0xbb, "an earlier allocation is copied on growth");
	ok(p[0] == 0xaa && p[2] == 0xaa, "the others are untouched");
	ok(arena_grow(&a, NULL, 0, 8) != NULL, "growing NULL allocates");

	/* Past the first chunk: a larger chunk, the contents of the old kept. */
	big = arena_alloc(&a, 1 << 20);
	for (size_t i = 0; i < (1 << 20) / sizeof(*big); i++)
		big[i] = i;
	big = arena_grow(&a, big, 1 << 20, 3 << 20);
	for (size_t i = 0; i < (1 << 20) / sizeof(*big); i++)
		same &= big[i] == i;
	ok(same, "a megabyte grown past its chunk keeps its contents");
	ok(p[1] == 0xaa, "the first chunk's allocations survive");

	/* Reset makes one chunk as large as all the chunks the task used: the
	 * same task then runs in it, bump after bump, with no malloc, and
	 * keeps it across the next reset. */
	arena_reset(&a);
	p = arena_alloc(&a, 4 << 20); /* the largest chunk's size: more did not fit before */
	ok(arena_alloc(&a, 1 << 20) == p + (4 << 20), "after reset, the task's memory is one chunk");
	arena_reset(&a);
	ok(arena_alloc(&a, 2 << 20) == p, "... reused from its start after the next reset");
	ok(arena_calloc(&a, 10, 8) && ((uint64_t *)arena_calloc(&a, 4, 8))[3] == 0,
	   "calloc zeroes");
	arena_free(&a);
	ok(a.head == NULL, "freed");
	arena_reset(&a);
	ok(a.head == NULL, "reset of an empty arena");
	return done_testing();
}
