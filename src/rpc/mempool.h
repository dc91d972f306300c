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
struct mempool;
/** Gives the group its pool (before warm-up ends; NULL at shutdown), the chain's data
 *  directory (for savemempool) and the mempool.dat version to write. */
void rpc_mempool_set(struct rpc_context *ctx, struct mempool *mp, const char *datadir,
                     int dat_version);
/** -deprecatedrpc=fullrbf / =bip125: getmempoolinfo's fullrbf, the entries'
 *  bip125-replaceable (before the server starts). */
void rpc_mempool_set_deprecated(struct rpc_context *ctx, int fullrbf, int bip125);
/** Marks the load of mempool.dat finished (getmempoolinfo's "loaded"). */
void rpc_mempool_set_loaded(struct rpc_context *ctx);
/** getmempoolinfo's object (ctx->mempool must be set). */
json_t *rpc_mempool_info_json(struct rpc_context *ctx);
/** The clock transactions are stamped with: setmocktime's, else the system's (s). */
int64_t rpc_mempool_now(struct rpc_context *ctx);

#endif
