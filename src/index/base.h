/* What every optional index shares (Core's BaseIndex): a store of its own under indexes/,
 * a thread that follows the active chain block by block from the block files (so block
 * connection never waits for it), a rewind to the fork point after a reorg, a restart from
 * the last block written, a prune lock at that block, and the summary getindexinfo shows.
 *
 * An index gives a table of callbacks (struct index_ops) and a context; they run on the
 * index's thread (load also in index_base_start). The base writes, with each batch, the
 * record 'B' -> hash[32] of the block the index is complete to, after the index's own state
 * records (ops->commit): a kill leaves a consistent store that the next start continues.
 */
#ifndef BITNODE_INDEX_BASE_H
#define BITNODE_INDEX_BASE_H

#include <stddef.h>
#include <stdint.h>

struct block;
struct block_index;
struct block_undo;
struct chainstate;
struct kv;
struct kv_batch;
struct kv_ops;
struct index_base;

struct index_ops {
    /* Core's name of the index: the logs, the prune lock and getindexinfo use it. */
    const char *name;
    /* Core's name of the index's thread ("txospenderidx"): its start and exit lines. */
    const char *thread_name;
    /* Also index the blocks that were connected and disconnected before the thread reached
     * them (Core keeps a filter for every block it connected), each on top of its parent's
     * state; needs has. 0: such blocks are left out. */
    int index_stale;
    /* append and remove do not need the undo data (it is not read; u is empty). */
    int no_undo;
    /* Sets the context's state to that after block e (NULL: before genesis), reading the
     * store: at start, after a rewind when remove is NULL, around a stale block. 0, or an
     * error (RC_CORRUPT: the records do not agree). */
    int (*load)(void *ctx, struct kv *kv, const struct block_index *e);
    /* Adds block e (its parent is the state's block; u: its undo data, empty for genesis)
     * to the state, its records into b. */
    int (*append)(void *ctx, struct kv *kv, struct kv_batch *b, const struct block_index *e,
                  const struct block *blk, const struct block_undo *u);
    /* Takes block e, the state's block, off the state (a rewind, newest first), its changes
     * into b. NULL: a rewind loads the fork point's state instead. */
    int (*remove)(void *ctx, struct kv *kv, struct kv_batch *b, const struct block_index *e,
                  const struct block *blk, const struct block_undo *u);
    /* Puts the state's own records into b before each write (NULL: it has none). */
    void (*commit)(void *ctx, struct kv_batch *b);
    /* 1 if the store holds block hash's record (index_stale only). */
    int (*has)(void *ctx, struct kv *kv, const uint8_t hash[32]);
};

/** Opens (creating) the store at dir (ops_kv: its backend, NULL the configured one), loads
 *  where a previous run stopped (a best block the tree no longer knows counts as none), and
 *  starts the thread over cs (borrowed; it outlives the index). It listens to cs, so call
 *  while no thread changes cs. Refused with Core's "... best block of the index goes beyond
 *  pruned data ..." when a block it would still need was pruned. iops and ctx are borrowed
 *  until index_base_stop. 0, or an error with a message in err. */
int index_base_start(struct index_base **out, struct chainstate *cs, const struct kv_ops *ops_kv,
                     const char *dir, const struct index_ops *iops, void *ctx, char *err,
                     size_t err_len);
/** Stops the thread (what it indexed is written), drops the prune lock and closes the store.
 *  Call while no thread changes cs. NULL: no-op. */
void index_base_stop(struct index_base *x);

/** The last block whose records are written (NULL: none): after blocks were only
 *  disconnected, still the old tip until a block is connected (Core's lazy rewind), so an
 *  index's records name blocks among its ancestors. Any thread. */
struct block_index *index_base_best(struct index_base *x);
/** The store, for lookups from any thread (only written batches are seen). */
struct kv *index_base_kv(struct index_base *x);
/** getindexinfo, as Core's summary: whether the index has reached the tip once (it stays
 *  synced while it follows new blocks) and the height its written records reach (0 before
 *  any). Any thread. */
void index_base_summary(struct index_base *x, int *synced, int *best_height);
/** Core's BlockUntilSyncedToCurrentChain: 0 if the index is not synced yet; otherwise waits
 *  until the records of the tip current at the call are written (or the index stopped) and
 *  returns 1; meanwhile the thread indexes without waiting for a still tip. Not from the
 *  validation thread. */
int index_base_wait_synced(struct index_base *x);

#endif
