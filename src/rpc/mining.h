/* The mining and generating RPC groups: submitblock, submitheader, getblocktemplate,
 * getmininginfo, getnetworkhashps, generatetoaddress, generatetodescriptor, generateblock.
 * (prioritisetransaction and getprioritisedtransactions: rpc/mempool.c.) */
#ifndef BITNODE_RPC_MINING_H
#define BITNODE_RPC_MINING_H

#include "rpc/jsonrpc.h"

/** Registers the group's methods in ctx (before the server starts); they hand blocks and
 *  headers to the chainstate of the blockchain group (rpc_blockchain_set_chainstate). */
void rpc_mining_register(struct rpc_context *ctx);

struct miner_options;
/** The block assembly options (-blockmaxweight and friends), copied; before the server
 *  starts. */
void rpc_mining_set_options(struct rpc_context *ctx, const struct miner_options *o);

#endif
