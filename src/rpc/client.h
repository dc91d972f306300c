/* bitnode-cli's side of JSON-RPC: which arguments of which method are JSON rather than
 * strings (Bitcoin Core's vRPCConvertParams in src/rpc/client.cpp), and turning command-line
 * words into positional or named params. Later method groups add their rows to the table in
 * client.c. */
#ifndef BITNODE_RPC_CLIENT_H
#define BITNODE_RPC_CLIENT_H

#include <jansson.h>
#include <stddef.h>

/** Builds the params array for method from words (positional). Arguments listed in the
 *  conversion table are parsed as JSON, the others kept as strings.
 *  Returns a new array, or NULL with err filled ("Error parsing JSON: ..."). */
json_t *rpc_client_params_positional(const char *method, char *const *words, size_t n, char *err,
                                     size_t err_len);
/** Builds the params object for -named from "name=value" words; words without '=' become
 *  the "args" array of leading positional arguments (as bitcoin-cli does).
 *  Returns a new object, or NULL with err filled. */
json_t *rpc_client_params_named(const char *method, char *const *words, size_t n, char *err,
                                size_t err_len);

#endif
