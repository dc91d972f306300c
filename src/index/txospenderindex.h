/* -txospenderindex: which confirmed transaction spent an output (Core's txospenderindex, for
 * gettxspendingprevout). Kept on the shared index thread (base.h) in a store under
 * indexes/txospenderindex/db (doc/files.md "Spender index"): one small key per input of the
 * active chain, naming the block height and the transaction's place in it; a lookup reads
 * that block back and checks the input. A reorg erases the keys of the blocks that left.
 * Not with pruning (Core refuses -prune with it: the blocks must stay readable).
 */
#ifndef BITNODE_INDEX_TXOSPENDERINDEX_H
#define BITNODE_INDEX_TXOSPENDERINDEX_H

#include <stddef.h>
#include <stdint.h>

#include "primitives/tx.h"
#include "util/buf.h"

struct chainstate;
struct kv_ops;
struct txospender_index;

/** Opens (creating, with a new random SipHash key) the index at dir over cs (borrowed; it
 *  outlives the index) and starts its thread (index_base_start's rules). ops: the store's
 *  backend (NULL: the configured one). 0, or an error with a message in err. */
int txospender_index_start(struct txospender_index **out, struct chainstate *cs,
                           const struct kv_ops *ops, const char *dir, char *err, size_t err_len);
/** Stops the thread (what it indexed is written) and closes the store. NULL: no-op. */
void txospender_index_stop(struct txospender_index *x);

/** The transaction of the active chain that spends op, as the index has it: 0 with *found 1,
 *  the spender's txid, its serialization with witness appended to raw, and its block's
 *  hash; 0 with *found 0 when none spends it; RC_IO when a block the index names cannot be
 *  read (Core's "IO error finding spending tx"), or a store error. Any thread. */
int txospender_index_find(struct txospender_index *x, const struct outpoint *op, int *found,
                          uint8_t txid[32], struct buf *raw, uint8_t block_hash[32]);
/** getindexinfo's synced and best_block_height (index_base_summary). Any thread. */
void txospender_index_summary(struct txospender_index *x, int *synced, int *best_height);
/** Core's BlockUntilSyncedToCurrentChain (index_base_wait_synced). Not from the validation
 *  thread. */
int txospender_index_wait_synced(struct txospender_index *x);

#endif
