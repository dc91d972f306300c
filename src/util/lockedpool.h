/* Memory for secrets that must not be swapped to disk (Core's LockedPool): arenas of 256 KiB
 * mapped and mlock()ed (a failed lock is counted, not fatal), carved into chunks aligned to
 * 16 bytes, best fit, freed chunks merged with their free neighbours. getmemoryinfo reports
 * its statistics as Core's "locked" object. Thread-safe (one mutex). */
#ifndef BITNODE_UTIL_LOCKEDPOOL_H
#define BITNODE_UTIL_LOCKEDPOOL_H

#include <stddef.h>

#define LOCKED_POOL_ARENA_SIZE (256 * 1024)

struct locked_pool;

/* Core's LockedPool::Stats. */
struct locked_pool_stats {
    size_t used;        /* bytes in used chunks */
    size_t free;        /* bytes in free chunks of the arenas */
    size_t total;       /* bytes of all arenas */
    size_t locked;      /* bytes of the arenas whose mlock succeeded */
    size_t chunks_used; /* used chunks */
    size_t chunks_free; /* free chunks */
};

/** An empty pool (no arena yet). Free with locked_pool_free. */
struct locked_pool *locked_pool_new(void);
/** Frees p (NULL: no-op), wiping and unmapping its arenas. Every allocation must be gone. */
void locked_pool_free(struct locked_pool *p);
/** n bytes (n > 0, at most an arena) of locked memory, zeroed; a new arena when none has
 *  room. Returns NULL for n == 0 or too large; aborts when no arena can be mapped. */
void *locked_pool_alloc(struct locked_pool *p, size_t n);
/** Wipes and releases ptr (NULL: no-op), got from locked_pool_alloc of p. */
void locked_pool_release(struct locked_pool *p, void *ptr);
/** A copy of s (NUL-terminated) in p. */
char *locked_pool_strdup(struct locked_pool *p, const char *s);
/** Locks the arenas again (after fork(), whose child inherits no memory lock); p NULL:
 *  no-op. */
void locked_pool_relock(struct locked_pool *p);
/** The statistics now into *out. */
void locked_pool_stats(struct locked_pool *p, struct locked_pool_stats *out);

#endif
