/* The block filter RPCs: getblockfilter, and the filter-type check scanblocks shares. */
#ifndef BITNODE_RPC_BLOCKFILTER_H
#define BITNODE_RPC_BLOCKFILTER_H

#include "rpc/jsonrpc.h"

struct blockfilter_index;

/** The index for filter type `type` (Core's BlockFilterTypeByName and GetBlockFilterIndex):
 *  NULL after answering -5 "Unknown filtertype" (only "basic" exists) or -1 "Index is not
 *  enabled for filtertype <type>". */
struct blockfilter_index *rpc_blockfilter_index(struct rpc_request *req, const char *type);

/** Registers getblockfilter in ctx (before the server starts). */
void rpc_blockfilter_register(struct rpc_context *ctx);

#endif
