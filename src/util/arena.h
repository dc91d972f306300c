/* A bump allocator for many small pieces that die together (a parsed block's scripts,
 * witness items and arrays): one malloc per chunk instead of one per piece, and one free
 * per chunk when they go. Not thread-safe; an arena belongs to one thread at a time. */
#ifndef BITNODE_UTIL_ARENA_H
#define BITNODE_UTIL_ARENA_H

#include <stddef.h>

struct arena_chunk;

struct arena {
    struct arena_chunk *head; /* the chunk being filled; older ones behind it */
    size_t next_bytes;        /* the size of the next chunk */
};

/** An empty arena whose first chunk will have about first_bytes (no allocation yet). */
void arena_init(struct arena *a, size_t first_bytes);
/** n bytes of uninitialised memory, aligned for any type, valid until arena_clear. Never
 *  NULL (aborts when memory is exhausted, as xmalloc); n may be 0. */
void *arena_alloc(struct arena *a, size_t n);
/** n bytes of zeroed memory, aligned for any type, valid until arena_clear. Never NULL
 *  (aborts when memory is exhausted, as xmalloc); n may be 0. */
void *arena_calloc(struct arena *a, size_t n);
/** Frees every piece at once; the arena is empty again (reusable). */
void arena_clear(struct arena *a);

#endif
