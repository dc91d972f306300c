/* The fee estimation RPC methods (Core's rpc/fees.cpp): estimatesmartfee and the hidden
 * estimaterawfee. They answer from the node's estimator (mempool/fees.h); without an estimator they
 * answer as Core's does before it has seen anything. */
#ifndef BITNODE_RPC_FEES_H
#define BITNODE_RPC_FEES_H

struct rpc_context;

/** Adds the methods to ctx's table (before the server starts). */
void rpc_fees_register(struct rpc_context *ctx);

#endif
