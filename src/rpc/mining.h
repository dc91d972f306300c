/* The mining RPC group: submitblock, submitheader. */
#ifndef BITNODE_RPC_MINING_H
#define BITNODE_RPC_MINING_H

#include "rpc/jsonrpc.h"

/** Registers the group's methods in ctx (before the server starts); they hand blocks and
 *  headers to the chainstate of the blockchain group (rpc_blockchain_set_chainstate). */
void rpc_mining_register(struct rpc_context *ctx);

#endif
