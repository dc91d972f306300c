/* The mining and generating RPC groups: submitblock, submitheader, getblocktemplate,
 * getmininginfo, getnetworkhashps, generatetoaddress, generatetodescriptor, generateblock.
 * (prioritisetransaction and getprioritisedtransactions: rpc/mempool.c.) */
#ifndef BITNODE_RPC_MINING_H
#define BITNODE_RPC_MINING_H

#include "rpc/jsonrpc.h"

/** Registers the group's methods in ctx (before the server starts); they hand blocks and
 *  headers to the node's validation thread and assemble blocks with its miner options. */
void rpc_mining_register(struct rpc_context *ctx);

#endif
