/* -txindex: where every transaction of the active chain is, so getrawtransaction finds it
 * without a block hash. A store of its own (indexes/txindex, doc/files.md "Transaction
 * index"):
 *
 *   't' txid[32]  ->  varint(file) varint(block_pos) varint(tx_offset)
 *   'B'           ->  hash[32] of the block the index is complete up to
 *
 * (Core's CDiskTxPos: tx_offset counts from the end of the 80-byte header.) Entries are
 * added as blocks connect and written, by a thread of the index's own, when the tip settles,
 * after every 2^19 and after the coins at each flush; a crash leaves the index behind the
 * chain, and it catches up at the next start. Entries of blocks that are
 * disconnected stay (as in Core): a lookup checks the block is still in the active chain.
 */
#ifndef BITNODE_VALIDATION_TXINDEX_H
#define BITNODE_VALIDATION_TXINDEX_H

#include <stdint.h>

#include "blockstore/blockindex.h"
#include "kv/kv.h"
#include "primitives/block.h"

struct txindex;

struct txindex_pos {
    int file;
    uint32_t block_pos;
    uint32_t tx_offset;
};

/** Opens (creating) the index store at path. 0, or an error with a message in err. */
int txindex_open(struct txindex **out, const struct kv_ops *ops, const char *path, char *err,
                 size_t err_len);
void txindex_close(struct txindex *ti);
/** Queues the transactions of block b (entry e, which has data) for the next write; lookups
 *  find them at once. Same lock as txindex_find (the chain lock: this under it for writing,
 *  lookups under it for reading). */
void txindex_add_block(struct txindex *ti, const struct block_index *e, const struct block *b);
/** How many transactions are queued (the caller writes once there are many: each costs
 *  about 60 bytes of memory until then). Under the chain lock. */
size_t txindex_pending(const struct txindex *ti);
/** Hands the queued entries and the marker best32 to the index's writer thread, which writes
 *  them in one batch while lookups still find them (waits first for a write in progress).
 *  Under the chain lock, held for writing. 0, or the error of an earlier write that failed
 *  (RC_BACKEND...; its message in txindex_error). */
int txindex_write_begin(struct txindex *ti, const uint8_t best32[32]);
/** Waits until what was handed over is written: 0 or a failed write's error. Any thread. */
int txindex_wait(struct txindex *ti);
/** txindex_write_begin, then txindex_wait. */
int txindex_write(struct txindex *ti, const uint8_t best32[32]);
/** The store's message for the write that failed, "" if none. Valid while ti is open. */
const char *txindex_error(struct txindex *ti);
/** The block the stored index is complete up to: 0, or RC_NOT_FOUND for a new index. */
int txindex_best(struct txindex *ti, uint8_t best32[32]);
/** Looks a transaction up, the queued entries first, then the store. 0 with *pos,
 *  RC_NOT_FOUND, or a store error. */
int txindex_find(struct txindex *ti, const uint8_t txid32[32], struct txindex_pos *pos);

#endif
