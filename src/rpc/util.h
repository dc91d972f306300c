/* The util RPC group: getindexinfo; and getzmqnotifications, Core's zmq group (always an
 * empty list: bitnode has no ZeroMQ publishers). */
#ifndef BITNODE_RPC_UTIL_H
#define BITNODE_RPC_UTIL_H

#include "rpc/jsonrpc.h"

/** Registers the group's methods in ctx (before the server starts). */
void rpc_util_register(struct rpc_context *ctx);

#endif
