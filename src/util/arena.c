/* The bump allocator (arena.h). */
#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/check.h"
#include "util/xmalloc.h"

#define ARENA_MIN_CHUNK ((size_t)4096)
#define ARENA_ALIGN alignof(max_align_t)

struct arena_chunk {
    struct arena_chunk *prev;
    size_t cap, used;
    alignas(max_align_t) unsigned char data[];
};

void arena_init(struct arena *a, size_t first_bytes)
{
    a->head = NULL;
    a->next_bytes = first_bytes < ARENA_MIN_CHUNK ? ARENA_MIN_CHUNK : first_bytes;
}

void *arena_alloc(struct arena *a, size_t n)
{
    size_t need = (n + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
    CHECK_ALWAYS(need >= n); /* no wrap */
    struct arena_chunk *c = a->head;
    if (!c || c->cap - c->used < need) {
        size_t cap = a->next_bytes > need ? a->next_bytes : need;
        c = xmalloc(sizeof(*c) + cap);
        c->prev = a->head;
        c->cap = cap;
        c->used = 0;
        a->head = c;
        /* Doubling: a parse that outgrows its guess makes few chunks. */
        if (a->next_bytes <= SIZE_MAX / 4) {
            a->next_bytes *= 2;
        }
    }
    void *p = c->data + c->used;
    c->used += need;
    return p;
}

void *arena_calloc(struct arena *a, size_t n)
{
    return memset(arena_alloc(a, n), 0, n);
}

void arena_clear(struct arena *a)
{
    struct arena_chunk *c = a->head;
    while (c) {
        struct arena_chunk *prev = c->prev;
        free(c);
        c = prev;
    }
    a->head = NULL;
}
