/* The handlers of the rawtransactions group that build, sign and combine transactions and
 * PSBTs (Core's rpc/rawtransaction.cpp and rawtransaction_util.cpp). Internal to src/rpc/:
 * their declarations (arguments, results) are in rawtransaction.c's method table. */
#ifndef BITNODE_RPC_RAWTRANSACTION_SIGN_H
#define BITNODE_RPC_RAWTRANSACTION_SIGN_H

#include <jansson.h>

#include "primitives/tx.h"
#include "rpc/jsonrpc.h"

/* Each is an rpc_handler_fn (see jsonrpc.h). */
json_t *rpc_createrawtransaction(struct rpc_request *req);
json_t *rpc_combinerawtransaction(struct rpc_request *req);
json_t *rpc_signrawtransactionwithkey(struct rpc_request *req);
json_t *rpc_createpsbt(struct rpc_request *req);
json_t *rpc_decodepsbt(struct rpc_request *req);
json_t *rpc_combinepsbt(struct rpc_request *req);
json_t *rpc_finalizepsbt(struct rpc_request *req);
json_t *rpc_analyzepsbt(struct rpc_request *req);
json_t *rpc_converttopsbt(struct rpc_request *req);
json_t *rpc_utxoupdatepsbt(struct rpc_request *req);

/** Core's DecodeHexTx as decoderawtransaction uses it: the extended serialization first
 *  (when try_witness), then the legacy one (when try_legacy); either must use every byte.
 *  Returns 1 with *tx (caller clears), else 0. */
int rpc_decode_hex_tx(struct tx *tx, const char *hex, int try_legacy, int try_witness);

#endif
