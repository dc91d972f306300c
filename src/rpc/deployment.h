/* The getdeploymentinfo method of the blockchain RPC group: the buried and version-bits
 * deployments and the script flags at a block, in Bitcoin Core's shape. Reference:
 * doc/rpc.md. */
#ifndef BITNODE_RPC_DEPLOYMENT_H
#define BITNODE_RPC_DEPLOYMENT_H

#include "rpc/jsonrpc.h"

/** Registers getdeploymentinfo in ctx (before the server starts). rpc_blockchain_register
 *  calls it: it answers from the blockchain group's chainstate, under the chain's read
 *  lock. */
void rpc_deployment_register(struct rpc_context *ctx);

#endif
