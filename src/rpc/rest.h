/* Bitcoin Core's REST interface (-rest; src/rest.cpp there): unauthenticated reads of blocks,
 * headers, transactions, block filters, the UTXO set, the mempool and the chain's state, in
 * .bin, .hex or .json, with Core's paths, status codes, error texts and bytes. The JSON is made
 * by the same builders as the matching RPCs (getblock, getblockheader, getblockchaininfo,
 * getdeploymentinfo, getmempoolinfo, getrawmempool, getblockfilter), so the two cannot drift.
 *
 * No HTTP here: the server (rpc/server.c) hands over the raw request target and the body and
 * sends back what rest_handle_body() fills in, so this file is unit-testable.
 *
 * Locks: the chain's read lock only around block index lookups (an entry is copied, as
 * getblock does, before its block or undo data is read); the mempool's read lock after it
 * when both are needed (getutxos/checkmempool).
 */
#ifndef BITNODE_RPC_REST_H
#define BITNODE_RPC_REST_H

#include <stddef.h>
#include <stdint.h>

struct rpc_context;

struct rest_reply {
    int status;               /* HTTP status */
    const char *content_type; /* static string, e.g. "application/json", "text/plain",
                                 "application/octet-stream"; NULL for the server-level 404
                                 of a path no REST handler takes (Core sends its default
                                 there, with an empty body) */
    char *body;               /* malloc'd (may contain NULs for .bin), caller frees; never
                                 NULL (one NUL byte past len, not counted) */
    size_t len;
    const char *cache_control; /* static string for the Cache-Control header Core sends with
                                  every REST answer, errors included: "no-store" or
                                  "public, immutable, max-age=86400" */
};

/** Answers one REST request. uri: the request URI as received (path plus optional query),
 *  starting with "/rest/". method_get: GET/HEAD/POST/PUT (Core treats them alike; the server
 *  answers 405 for others before calling). warmup: non-NULL while RPC is warming up: the
 *  status text ("Loading block index...") -> 503 "Service temporarily unavailable: <text>".
 *  Fills out; never fails. The same as rest_handle_body with an empty body.
 *  Thread: an HTTP worker; takes and releases the chain's and the mempool's read locks. */
void rest_handle(struct rpc_context *ctx, const char *uri, const char *warmup,
                 struct rest_reply *out);

/** rest_handle with the request body (body_len bytes, borrowed for the call; NULL when
 *  body_len is 0), which only /rest/getutxos reads: its POST forms (.bin: Core's
 *  serialized checkmempool flag and outpoints, .hex: the same in hex). */
void rest_handle_body(struct rpc_context *ctx, const char *uri, const uint8_t *body,
                      size_t body_len, const char *warmup, struct rest_reply *out);

#endif
