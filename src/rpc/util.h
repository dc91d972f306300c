/* The util RPC group: getindexinfo; and getzmqnotifications, Core's zmq group (always an
 * empty list: bitnode has no ZeroMQ publishers). */
#ifndef BITNODE_RPC_UTIL_H
#define BITNODE_RPC_UTIL_H

#include "rpc/jsonrpc.h"

/** Core's ParseDescriptorRange (deriveaddresses, scantxoutset): v is an end (the range
 *  [0, v]) or [begin, end]; both within 0 .. 2^31-1, begin not after end, fewer than 1,000,000
 *  indexes. Returns 0 with *lo and *hi, or -1 after rpc_error with Core's message. */
int rpc_parse_descriptor_range(struct rpc_request *req, const json_t *v, int64_t *lo, int64_t *hi);

/** Registers the group's methods in ctx (before the server starts). */
void rpc_util_register(struct rpc_context *ctx);

#endif
