/* scantxoutset (Core's): the UTXO set searched for the scripts of output descriptors. */
#ifndef BITNODE_RPC_SCAN_H
#define BITNODE_RPC_SCAN_H

#include "rpc/jsonrpc.h"

/** Registers scantxoutset in ctx (before the server starts). It answers from the blockchain
 *  group's chainstate and validator. */
void rpc_scan_register(struct rpc_context *ctx);

#endif
