/* getopenrpcinfo and rpc.discover (Core's rpc/server.cpp): an OpenRPC 1.4.1 document
 * generated from the method declarations (struct rpc_method: their arguments and results
 * as JSON Schemas), the way Core builds it from its RPCMethod metadata. */
#ifndef BITNODE_RPC_OPENRPC_H
#define BITNODE_RPC_OPENRPC_H

#include <jansson.h>
#include <stdbool.h>

struct rpc_context;

/** Core's CRPCTable::buildOpenRPCDoc: the document of every registered method of ctx sorted
 *  by name (with include_hidden, also the hidden ones and hidden arguments). New object. */
json_t *rpc_openrpc_doc(const struct rpc_context *ctx, bool include_hidden);

/** Registers getopenrpcinfo and rpc.discover (category control). */
void rpc_openrpc_register(struct rpc_context *ctx);

#endif
