/* The UTXO snapshot RPCs: dumptxoutset. */
#ifndef BITNODE_RPC_SNAPSHOT_H
#define BITNODE_RPC_SNAPSHOT_H

#include "rpc/jsonrpc.h"

/** Registers dumptxoutset in ctx (before the server starts). */
void rpc_snapshot_register(struct rpc_context *ctx);

#endif
