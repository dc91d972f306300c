/* See lockedpool.h. Each arena keeps its chunks in an array sorted by offset; the arenas are
 * few (one for a node's secrets) and hold few chunks, so linear walks are enough. */
#include "util/lockedpool.h"

#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include "util/check.h"
#include "util/xmalloc.h"

#define ALIGN 16

struct chunk {
    size_t off, size;
    int used;
};

struct arena {
    unsigned char *base;
    int locked;
    struct chunk *chunks; /* sorted by off, covering the arena */
    size_t n, cap;
};

struct locked_pool {
    pthread_mutex_t mu;
    struct arena *arenas;
    size_t n_arenas;
};

struct locked_pool *locked_pool_new(void)
{
    struct locked_pool *p = xcalloc(1, sizeof(*p));
    pthread_mutex_init(&p->mu, NULL);
    return p;
}

void locked_pool_free(struct locked_pool *p)
{
    if (!p) {
        return;
    }
    for (size_t i = 0; i < p->n_arenas; i++) {
        struct arena *a = &p->arenas[i];
        explicit_bzero(a->base, LOCKED_POOL_ARENA_SIZE);
        if (a->locked) {
            munlock(a->base, LOCKED_POOL_ARENA_SIZE);
        }
        munmap(a->base, LOCKED_POOL_ARENA_SIZE);
        free(a->chunks);
    }
    free(p->arenas);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

static void chunk_insert(struct arena *a, size_t at, struct chunk c)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 8;
        a->chunks = xrealloc(a->chunks, a->cap * sizeof(*a->chunks));
    }
    memmove(&a->chunks[at + 1], &a->chunks[at], (a->n - at) * sizeof(*a->chunks));
    a->chunks[at] = c;
    a->n++;
}

static void chunk_remove(struct arena *a, size_t at)
{
    memmove(&a->chunks[at], &a->chunks[at + 1], (a->n - at - 1) * sizeof(*a->chunks));
    a->n--;
}

static struct arena *arena_add(struct locked_pool *p)
{
    void *m = mmap(NULL, LOCKED_POOL_ARENA_SIZE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK_ALWAYS(m != MAP_FAILED);
    p->arenas = xrealloc(p->arenas, (p->n_arenas + 1) * sizeof(*p->arenas));
    struct arena *a = &p->arenas[p->n_arenas++];
    memset(a, 0, sizeof(*a));
    a->base = m;
    a->locked = mlock(m, LOCKED_POOL_ARENA_SIZE) == 0;
#ifdef MADV_DONTDUMP
    (void)madvise(m, LOCKED_POOL_ARENA_SIZE, MADV_DONTDUMP);
#endif
    chunk_insert(a, 0, (struct chunk){.off = 0, .size = LOCKED_POOL_ARENA_SIZE, .used = 0});
    return a;
}

/* Core's Arena::alloc: the smallest free chunk that fits; the allocation is its end. */
static void *arena_alloc(struct arena *a, size_t n)
{
    size_t best = a->n;
    for (size_t i = 0; i < a->n; i++) {
        if (!a->chunks[i].used && a->chunks[i].size >= n &&
            (best == a->n || a->chunks[i].size < a->chunks[best].size)) {
            best = i;
        }
    }
    if (best == a->n) {
        return NULL;
    }
    struct chunk *c = &a->chunks[best];
    if (c->size == n) {
        c->used = 1;
        return a->base + c->off;
    }
    c->size -= n;
    struct chunk u = {.off = c->off + c->size, .size = n, .used = 1};
    chunk_insert(a, best + 1, u);
    return a->base + u.off;
}

void *locked_pool_alloc(struct locked_pool *p, size_t n)
{
    if (n == 0 || n > LOCKED_POOL_ARENA_SIZE) {
        return NULL;
    }
    n = (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    pthread_mutex_lock(&p->mu);
    void *r = NULL;
    for (size_t i = 0; i < p->n_arenas && !r; i++) {
        r = arena_alloc(&p->arenas[i], n);
    }
    if (!r) {
        r = arena_alloc(arena_add(p), n);
    }
    pthread_mutex_unlock(&p->mu);
    memset(r, 0, n);
    return r;
}

void locked_pool_release(struct locked_pool *p, void *ptr)
{
    if (!ptr) {
        return;
    }
    unsigned char *q = ptr;
    pthread_mutex_lock(&p->mu);
    for (size_t i = 0; i < p->n_arenas; i++) {
        struct arena *a = &p->arenas[i];
        if (q < a->base || q >= a->base + LOCKED_POOL_ARENA_SIZE) {
            continue;
        }
        size_t k = 0;
        while (k < a->n && a->chunks[k].off != (size_t)(q - a->base)) {
            k++;
        }
        CHECK_ALWAYS(k < a->n && a->chunks[k].used);
        explicit_bzero(q, a->chunks[k].size);
        a->chunks[k].used = 0;
        if (k + 1 < a->n && !a->chunks[k + 1].used) {
            a->chunks[k].size += a->chunks[k + 1].size;
            chunk_remove(a, k + 1);
        }
        if (k > 0 && !a->chunks[k - 1].used) {
            a->chunks[k - 1].size += a->chunks[k].size;
            chunk_remove(a, k);
        }
        pthread_mutex_unlock(&p->mu);
        return;
    }
    CHECK_ALWAYS(!"locked_pool_release: not from this pool");
}

char *locked_pool_strdup(struct locked_pool *p, const char *s)
{
    size_t n = strlen(s) + 1;
    char *r = locked_pool_alloc(p, n);
    memcpy(r, s, n);
    return r;
}

void locked_pool_stats(struct locked_pool *p, struct locked_pool_stats *out)
{
    memset(out, 0, sizeof(*out));
    pthread_mutex_lock(&p->mu);
    for (size_t i = 0; i < p->n_arenas; i++) {
        const struct arena *a = &p->arenas[i];
        out->total += LOCKED_POOL_ARENA_SIZE;
        out->locked += a->locked ? LOCKED_POOL_ARENA_SIZE : 0;
        for (size_t k = 0; k < a->n; k++) {
            if (a->chunks[k].used) {
                out->used += a->chunks[k].size;
                out->chunks_used++;
            } else {
                out->free += a->chunks[k].size;
                out->chunks_free++;
            }
        }
    }
    pthread_mutex_unlock(&p->mu);
}

void locked_pool_relock(struct locked_pool *p)
{
    if (!p) {
        return;
    }
    pthread_mutex_lock(&p->mu);
    for (size_t i = 0; i < p->n_arenas; i++) {
        p->arenas[i].locked = mlock(p->arenas[i].base, LOCKED_POOL_ARENA_SIZE) == 0;
    }
    pthread_mutex_unlock(&p->mu);
}
