/* The "warnings" field of getblockchaininfo, getnetworkinfo and getmininginfo (Core's
 * GetWarningsForRpc). */
#ifndef BITNODE_RPC_WARNINGS_H
#define BITNODE_RPC_WARNINGS_H

#include <jansson.h>

#include "node/context.h"

/** The node's warnings as an array of strings; with -deprecatedrpc=warnings, the last one as
 *  a string ("" when none), as Core's. Returns a new reference. */
json_t *rpc_warnings_json(struct node_context *n);

#endif
