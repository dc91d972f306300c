/* The pruning RPC: pruneblockchain. */
#ifndef BITNODE_RPC_PRUNE_H
#define BITNODE_RPC_PRUNE_H

#include "rpc/jsonrpc.h"

/** Registers pruneblockchain in ctx (before the server starts). */
void rpc_prune_register(struct rpc_context *ctx);

#endif
