/* -blockfilterindex: the BIP158 basic filter and filter header of every block of the active
 * chain, kept on the shared index thread (base.h) in a store under indexes/blockfilter/basic
 * (doc/files.md "Block filter index"), so that block connection does not wait for it. After
 * a reorg it goes on from the fork point (filters of blocks that left the chain stay, found
 * by hash, and a block connected and disconnected before the thread reached it gets one).
 */
#ifndef BITNODE_INDEX_BLOCKFILTERINDEX_H
#define BITNODE_INDEX_BLOCKFILTERINDEX_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

struct chainstate;
struct kv_ops;
struct blockfilter_index;

/** Opens (creating) the index at dir over cs (borrowed; it outlives the index) and starts its
 *  thread; it listens to cs's tip changes, so call while no thread changes cs (before the
 *  validation thread starts). ops: the store's backend (NULL: the configured one). 0, or an
 *  error with a message in err. */
int blockfilter_index_start(struct blockfilter_index **out, struct chainstate *cs,
                            const struct kv_ops *ops, const char *dir, char *err, size_t err_len);
/** Stops the thread (what it indexed is written), stops listening and closes the store. Call
 *  while no thread changes cs. NULL: no-op. */
void blockfilter_index_stop(struct blockfilter_index *bfi);

/** The filter (encoded, appended to filter) and the filter header of the block hash.
 *  0, RC_NOT_FOUND (not indexed), or a store error. Any thread. */
int blockfilter_index_lookup(struct blockfilter_index *bfi, const uint8_t hash[32],
                             struct buf *filter, uint8_t header[32]);
/** getindexinfo, as Core's summary: whether the index has reached the tip once (it stays
 *  synced while it follows new blocks), and the height it is complete to (0: nothing yet).
 *  Any thread. */
void blockfilter_index_summary(struct blockfilter_index *bfi, int *synced, int *best_height);
/** Core's BlockUntilSyncedToCurrentChain: 0 if the index is not synced yet; otherwise waits
 *  until it has indexed the tip current at the call (or it stopped) and returns 1. Not from
 *  the validation thread. */
int blockfilter_index_wait_synced(struct blockfilter_index *bfi);

#endif
