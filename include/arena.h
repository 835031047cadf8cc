/* arena.h - a bump allocator for the memory of one task (one query of
 * searchd): many allocations, freed together.  Reset keeps the largest
 * chunk, so a thread that answers query after query reuses memory already
 * mapped instead of asking malloc (and the kernel's page faults) again.
 */
#ifndef MPSEEK_ARENA_H
#define MPSEEK_ARENA_H

#include <stddef.h>

struct arena_chunk;

struct arena {
	struct arena_chunk *head;  /* the chunk allocated from; older ones after it */
	void *last;                /* the latest allocation (arena_grow() extends it in place) */
};

#define ARENA_INIT { NULL, NULL }

/* n bytes aligned for any type (n 0: a valid pointer); never NULL. */
void *arena_alloc(struct arena *a, size_t n);
/* n zeroed bytes. */
void *arena_calloc(struct arena *a, size_t n, size_t size);
/* p (old bytes, from a, or NULL) with room for n >= old: in place when p
 * is the latest allocation and its chunk has room, else a copy. */
void *arena_grow(struct arena *a, void *p, size_t old, size_t n);
/* Forget every allocation; keep the largest chunk for the next task. */
void arena_reset(struct arena *a);
/* Free every chunk. */
void arena_free(struct arena *a);

#endif
