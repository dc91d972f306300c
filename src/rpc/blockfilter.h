/* The block filter RPCs: getblockfilter. */
#ifndef BITNODE_RPC_BLOCKFILTER_H
#define BITNODE_RPC_BLOCKFILTER_H

#include "rpc/jsonrpc.h"

/** Registers getblockfilter in ctx (before the server starts). */
void rpc_blockfilter_register(struct rpc_context *ctx);

#endif
