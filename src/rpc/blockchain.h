/* The blockchain RPC group (getblockcount, getblockchaininfo, getchaintips, gettxoutsetinfo,
 * getblock, the waits, invalidateblock, ...), answering in Bitcoin Core's shapes from the
 * chainstate, and the helpers the other chain-reading groups share. Reference: doc/rpc.md. */
#ifndef BITNODE_RPC_BLOCKCHAIN_H
#define BITNODE_RPC_BLOCKCHAIN_H

#include <jansson.h>
#include <stdint.h>

#include "primitives/block.h"
#include "rpc/blockjson.h"
#include "rpc/jsonrpc.h"
#include "util/buf.h"
#include "validation/chainstate.h"
#include "validation/validator.h"

/** Registers the group's methods in ctx (before the server starts). They answer from the
 *  chainstate set with rpc_blockchain_set_chainstate, which must happen before warm-up ends
 *  (until then the dispatcher answers -28). A handler that reads takes the chain's read
 *  lock; one that changes the chain queues a job for the validation thread. */
void rpc_blockchain_register(struct rpc_context *ctx);

/** Waits until every job queued for the validation thread before the call is done (Core's
 *  SyncWithValidationInterfaceQueue: what syncwithvalidationinterfacequeue and
 *  mockscheduler wait for). Do not hold the chain lock. */
void rpc_sync_validation_queue(struct rpc_context *ctx);
/** Core's ParseHashOrHeight: the block of v, a height on the active chain or a block hash
 *  (name: the parameter, for the hash's errors); NULL after rpc_error with Core's message
 *  ("Target block height H is negative", "... after current tip T", "Block not found").
 *  Caller holds the chain lock. */
struct block_index *rpc_block_by_hash_or_height(struct rpc_request *req, const json_t *v,
                                                const char *name);
/** What the block index knows about e (confirmations, median time, next block).
 *  Caller holds the chain lock. */
void rpc_block_facts_of(struct chainstate *cs, struct rpc_block_facts *f, struct block_index *e);
/** Reads and parses the stored block of e into b (caller clears b) and raw.
 *  Returns 0, or an error code after rpc_error with Core's message ("Block not available
 *  (not fully downloaded)", "Block not found on disk"). e is an entry of the tree (the
 *  caller holds the chain lock) or a copy of one taken under it (no lock needed: blk files
 *  are only appended to). */
int rpc_load_block(struct rpc_request *req, struct block_index *e, struct block *b,
                   struct buf *raw);

/** getblock's object at verbosity 1, 2 or 3 (Core's blockToJSON) of b, the parsed block of
 *  `at`: an entry of the tree or a copy of one taken under the chain lock, whose facts f
 *  were taken with it (rpc_block_facts_of). At verbosity 2 and 3 it reads the block's undo
 *  data (no lock needed). Returns a new object, or NULL after rpc_error with Core's
 *  "Undo data expected but can't be read. ..." when undo data the index promises cannot be
 *  read or does not fit the block. Any thread; the chain lock need not be held. */
json_t *rpc_block_verbose_json(struct rpc_request *req, const struct block_index *at,
                               const struct rpc_block_facts *f, const struct block *b,
                               int verbosity);

#endif
