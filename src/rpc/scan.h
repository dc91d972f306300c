/* scantxoutset (Core's): the UTXO set searched for the scripts of output descriptors. */
#ifndef BITNODE_RPC_SCAN_H
#define BITNODE_RPC_SCAN_H

#include "rpc/jsonrpc.h"
#include "util/buf.h"

/** Registers scantxoutset in ctx (before the server starts). It answers from the blockchain
 *  group's chainstate and validator. */
void rpc_scan_register(struct rpc_context *ctx);

/** Core's EvalDescriptorStringOrObject over every scan object of objs (an array of strings
 *  and {desc, range} objects), with its errors: the scripts, sorted and each once, as *n
 *  buffers in *spks (free with rpc_scan_scripts_free). 0, or -1 after rpc_error. */
int rpc_scan_scripts(struct rpc_request *req, const json_t *objs, struct buf **spks, size_t *n);
/** 1 if s[0..len) is one of the n sorted scripts of rpc_scan_scripts. */
int rpc_scan_scripts_has(const struct buf *spks, size_t n, const uint8_t *s, size_t len);
void rpc_scan_scripts_free(struct buf *spks, size_t n);

#endif
