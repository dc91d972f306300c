/* The mempool RPC group: sendrawtransaction, testmempoolaccept, getmempoolinfo,
 * getrawmempool, getmempoolentry, getmempoolancestors, getmempooldescendants,
 * gettxspendingprevout, savemempool, prioritisetransaction, getprioritisedtransactions. */
#ifndef BITNODE_RPC_MEMPOOL_H
#define BITNODE_RPC_MEMPOOL_H

#include <jansson.h>
#include <stdint.h>

#include "rpc/jsonrpc.h"

/** Registers the group's methods in ctx (before the server starts). */
void rpc_mempool_register(struct rpc_context *ctx);
/** getmempoolinfo's object (the node's mempool must be set). */
json_t *rpc_mempool_info_json(struct rpc_context *ctx);
/** The clock transactions are stamped with: setmocktime's, else the system's (s). */
int64_t rpc_mempool_now(struct rpc_context *ctx);

#endif
