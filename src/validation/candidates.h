/* The blocks that could become the tip (Core's setBlockIndexCandidates: data for them and
 * all their ancestors, not failed, at least as good as the tip), the blocks with data that
 * wait for an ancestor's (Core's m_blocks_unlinked), and the candidate the chain heads for.
 * The validation thread's own: no reader touches them. */
#ifndef BITNODE_VALIDATION_CANDIDATES_H
#define BITNODE_VALIDATION_CANDIDATES_H

#include <stddef.h>
#include <stdint.h>

#include "blockstore/blockindex.h"

struct candidates {
    struct block_index **v;
    size_t n, cap;
    struct unlinked {
        struct block_index *parent, *child;
    } * unlinked;
    size_t nunlinked, capunlinked;
    struct block_index *target; /* the best candidate, as last chosen */
    int stale;                  /* the set changed since target was chosen */
    int64_t next_sequence;      /* the next block linked gets it (from CANDIDATES_SEQ_FIRST) */
};

/* Sequence numbers as Core's nSequenceId: the active chain read at start-up, the other
 * blocks read at start-up, then each block as it is linked. preciousblock goes below 0. */
#define CANDIDATES_SEQ_BEST_FROM_DISK 0
#define CANDIDATES_SEQ_FROM_DISK 1
#define CANDIDATES_SEQ_FIRST 2

/** Makes c empty (no allocation). */
void candidates_init(struct candidates *c);
/** Frees what c holds. */
void candidates_clear(struct candidates *c);

/** Core's chain order: more work wins; on equal work, the lower sequence number (the chain
 *  active at start-up, then the blocks read at start-up, then the block linked first: its
 *  data and all its ancestors' complete first); then the lower address, so the order is
 *  total. */
int candidates_better(const struct block_index *a, const struct block_index *b);

/** Adds e (once). */
void candidates_add(struct candidates *c, struct block_index *e);
/** Says the blocks changed (one was marked failed, or is valid again): target is chosen
 *  afresh next time. */
static inline void candidates_changed(struct candidates *c)
{
    c->stale = 1;
}
/** Remembers e, which has data while an ancestor has none, until that ancestor's comes. */
void candidates_add_unlinked(struct candidates *c, struct block_index *e);
/** e lost its data (pruned): it is no candidate, and waits for nothing nor is waited for.
 *  O(size of the set). */
void candidates_forget(struct candidates *c, struct block_index *e);
/** e has data and so do all its ancestors: e gets its chain_tx and the next sequence
 *  number and, unless failed, becomes a candidate; so do the blocks that waited for it, and
 *  theirs, in turn, breadth first in the order their data came. */
void candidates_link(struct candidates *c, struct block_index *e);
/** e got its chain_tx another way (a UTXO snapshot's base, whose ancestors have no data):
 *  the blocks that waited for it are linked, as candidates_link does for e's own. */
void candidates_link_children(struct candidates *c, struct block_index *e);
/** Empties the set and adds every block of tree that could become the tip over tip. */
void candidates_rebuild(struct candidates *c, struct block_tree *tree, struct block_index *tip);

/** The block the chain heads for: chosen again (failed ones and those worse than tip
 *  dropped first) only when the set changed, so a long path costs one pass over it. With
 *  only_under (the best header, while an import reads a file), the best candidate that is an
 *  ancestor of it; the others are kept for later. NULL when there is none. */
struct block_index *candidates_target(struct candidates *c, struct block_index *tip,
                                      struct block_index *only_under);

#endif
