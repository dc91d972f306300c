/* The block index: every header the node knows, in memory, as a tree keyed by block hash.
 * Entries are never freed while the tree lives (pointers to them stay valid), and each knows
 * its parent, height, cumulative chain work and validation status, like Core's CBlockIndex.
 * Persisted in the blocks/index store (doc/files.md, "Block index").
 *
 * Thread: the tree is owned by the validation thread; readers elsewhere hold the chain lock.
 */
#ifndef BITNODE_BLOCKSTORE_BLOCKINDEX_H
#define BITNODE_BLOCKSTORE_BLOCKINDEX_H

#include <stddef.h>
#include <stdint.h>

#include "consensus/arith256.h"
#include "primitives/block.h"

/* Status bits (Core's BlockStatus values, so that the meaning carries over). */
enum block_status {
    BLOCK_VALID_UNKNOWN = 0,
    BLOCK_VALID_RESERVED = 1,     /* parsed, version ok, hash satisfies claimed pow */
    BLOCK_VALID_TREE = 2,         /* all parents found, contextual header checks pass */
    BLOCK_VALID_TRANSACTIONS = 3, /* block body checked without the UTXO set */
    BLOCK_VALID_CHAIN = 4,        /* outputs do not overspend, no double spends, sigops */
    BLOCK_VALID_SCRIPTS = 5,      /* scripts and signatures checked */
    BLOCK_VALID_MASK = 7,
    BLOCK_HAVE_DATA = 8,   /* full block in a blk file */
    BLOCK_HAVE_UNDO = 16,  /* undo data in a rev file */
    BLOCK_FAILED_VALID = 32, /* the block itself is invalid */
    BLOCK_FAILED_CHILD = 64, /* descends from an invalid block */
    BLOCK_FAILED_MASK = 96,
    BLOCK_OPT_WITNESS = 128, /* stored while segwit was active at its height (Core's): its
                                witness data was checked */
};

struct block_index {
    uint8_t hash[32];
    struct block_index *prev; /* NULL for genesis and for an anchor */
    struct block_index *skip; /* an ancestor further back, for O(log n) ancestor lookups */
    int32_t height;
    struct block_header header; /* header.prev_hash equals prev->hash */
    struct u256 chain_work;     /* total work up to and including this block */
    uint32_t status;
    int32_t file;      /* blk/rev file number, -1 while unknown */
    uint32_t data_pos; /* offset of the block bytes in blk<file>.dat (HAVE_DATA) */
    uint32_t undo_pos; /* offset of the undo record in rev<file>.dat (HAVE_UNDO) */
    uint32_t tx_count;
    uint64_t chain_tx;   /* transactions up to and including this block, 0 if unknown */
    int64_t sequence_id; /* candidates.h: ties in work go to the lower (Core's nSequenceId) */
    int64_t time_max;    /* max header time up to here */
    uint8_t dirty;       /* changed since last written to the index store (not stored) */
    uint8_t stored;      /* has a record in the index store (a flag in memory only) */
};

struct block_tree;

/** A new empty tree. Caller frees with block_tree_free. */
struct block_tree *block_tree_new(void);
/** Frees the tree and every entry (NULL is a no-op). */
void block_tree_free(struct block_tree *t);

/** Looks up an entry by hash (internal order). Returns a borrowed pointer or NULL. */
struct block_index *block_tree_find(const struct block_tree *t, const uint8_t hash32[32]);

/** Adds a header whose parent is prev (NULL only for genesis) and returns its entry,
 *  computing hash, height, chain work, skip pointer and time_max. If the hash is already in
 *  the tree the existing entry is returned unchanged. The status starts as given.
 *  CHECK_ALWAYS: prev, when given, is in this tree and is the header's parent. */
struct block_index *block_tree_add(struct block_tree *t, const struct block_header *h,
                                   struct block_index *prev, uint32_t status);

/** Adds an entry with no parent in the tree at a given height and chain work: the first
 *  header of a header file that starts mid-chain (a trusted anchor). Tests use it. */
struct block_index *block_tree_add_anchor(struct block_tree *t, const struct block_header *h,
                                          int32_t height, const struct u256 *chain_work);

/** Number of entries. */
size_t block_tree_size(const struct block_tree *t);
/** Calls fn for every entry (in no particular order); stops early if fn returns non-zero,
 *  and returns that value. */
int block_tree_foreach(const struct block_tree *t, int (*fn)(void *ctx, struct block_index *e),
                       void *ctx);

/** The ancestor of e at height (e itself when equal), or NULL if height is out of range or
 *  the chain below e does not reach that far (anchored trees). */
struct block_index *block_index_ancestor(struct block_index *e, int32_t height);
/** Median of the timestamps of e and up to 10 of its ancestors (Core's GetMedianTimePast). */
int64_t block_index_median_time_past(const struct block_index *e);
/** 1 if status says the block or an ancestor is known invalid. */
static inline int block_index_failed(const struct block_index *e)
{
    return (e->status & BLOCK_FAILED_MASK) != 0;
}
/** 1 if the entry has reached at least validity level (BLOCK_VALID_*) and has not failed. */
int block_index_is_valid(const struct block_index *e, uint32_t level);
/** Raises the validity level to level (never lowers it). Returns 1 if it changed. */
int block_index_raise_validity(struct block_index *e, uint32_t level);
/** The last common ancestor of a and b, or NULL if they do not share one. */
struct block_index *block_index_fork_point(struct block_index *a, struct block_index *b);

#endif
