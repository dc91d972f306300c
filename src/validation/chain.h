/* The active chain (Core's CChain): the block at each height from genesis to the tip, so
 * that "the block at height h" and "is e on the active chain" are one array read. Owned by
 * the chainstate; changed by the validation thread under the chain's write lock, read under
 * the read lock. */
#ifndef BITNODE_VALIDATION_CHAIN_H
#define BITNODE_VALIDATION_CHAIN_H

#include <stddef.h>
#include <stdint.h>

#include "blockstore/blockindex.h"

struct active_chain {
    struct block_index **v; /* v[h]: the active block at height h, 0 <= h <= height */
    size_t cap;
    int32_t height; /* the tip's height; -1: empty */
};

/** Makes c empty (no allocation). */
void active_chain_init(struct active_chain *c);
/** Frees what c holds and makes it empty. */
void active_chain_clear(struct active_chain *c);
/** Makes tip (NULL: none) the tip: the entries from tip back to the first one already in
 *  place are rewritten, those above the new height dropped. */
void active_chain_set_tip(struct active_chain *c, struct block_index *tip);

/** The tip, or NULL while empty. */
static inline struct block_index *active_chain_tip(const struct active_chain *c)
{
    return c->height >= 0 ? c->v[c->height] : NULL;
}
/** The active block at height h, or NULL when h is out of [0, height]. */
static inline struct block_index *active_chain_at(const struct active_chain *c, int32_t h)
{
    return h >= 0 && h <= c->height ? c->v[h] : NULL;
}
/** 1 if e is on the active chain. */
static inline int active_chain_contains(const struct active_chain *c, const struct block_index *e)
{
    return e && active_chain_at(c, e->height) == e;
}

#endif
