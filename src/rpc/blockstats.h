/* The blockstats RPC group: getblockstats. */
#ifndef BITNODE_RPC_BLOCKSTATS_H
#define BITNODE_RPC_BLOCKSTATS_H

#include "rpc/jsonrpc.h"

/** Registers getblockstats in ctx (before the server starts); it answers from the node's
 *  chainstate. */
void rpc_blockstats_register(struct rpc_context *ctx);

#endif
