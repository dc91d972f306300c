/* The rawtransactions RPC group: getrawtransaction, decoderawtransaction, decodescript. */
#ifndef BITNODE_RPC_RAWTRANSACTION_H
#define BITNODE_RPC_RAWTRANSACTION_H

#include "rpc/jsonrpc.h"

/** Registers the group's methods in ctx (before the server starts). They answer from the
 *  chainstate of the blockchain group (rpc_blockchain_set_chainstate); the decoders work
 *  without one (main chain addresses). */
void rpc_rawtransaction_register(struct rpc_context *ctx);

#endif
