/* The block filter RPCs: getblockfilter answers from the block filter index
 * (index/blockfilterindex.h) with Core's words. */
#include "rpc/blockfilter.h"

#include <stdlib.h>
#include <string.h>

#include "blockstore/blockindex.h"
#include "index/blockfilterindex.h"
#include "node/context.h"
#include "rpc/blockjson.h"
#include "rpc/context.h"
#include "rpc/json.h"
#include "rpc/protocol.h"
#include "util/hex.h"
#include "util/rc.h"
#include "validation/chainstate.h"

struct blockfilter_index *rpc_blockfilter_index(struct rpc_request *req, const char *type)
{
    if (!type || strcmp(type, "basic") != 0) {
        rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Unknown filtertype");
        return NULL;
    }
    if (!req->ctx->node->blockfilters) {
        rpc_error(req, RPC_MISC_ERROR, "Index is not enabled for filtertype %s", type);
        return NULL;
    }
    return req->ctx->node->blockfilters;
}

static json_t *rpc_getblockfilter(struct rpc_request *req)
{
    uint8_t hash[32];
    if (rpc_value_hash(req, rpc_param(req, 0), "blockhash", hash) != 0) {
        return NULL;
    }
    struct blockfilter_index *bfi =
        rpc_blockfilter_index(req, json_string_value(rpc_param(req, 1)));
    if (!bfi) {
        return NULL;
    }
    struct chainstate *cs = req->ctx->node->cs;
    chainstate_read_lock(cs);
    struct block_index *e = block_tree_find(chainstate_tree(cs), hash);
    int connected = e && block_index_is_valid(e, BLOCK_VALID_SCRIPTS);
    chainstate_read_unlock(cs);
    if (!e) {
        return rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Block not found");
    }
    int ready = blockfilter_index_wait_synced(bfi);
    struct buf f;
    uint8_t header[32];
    buf_init(&f);
    int rc = blockfilter_index_lookup(bfi, hash, &f, header);
    if (rc != RC_OK) {
        buf_clear(&f);
        if (!connected) {
            return rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY,
                             "Filter not found. Block was not connected to active chain.");
        }
        if (!ready) {
            return rpc_error(req, RPC_MISC_ERROR,
                             "Filter not found. Block filters are still in "
                             "the process of being indexed.");
        }
        return rpc_error(req, RPC_INTERNAL_ERROR,
                         "Filter not found. This error is unexpected "
                         "and indicates index corruption.");
    }
    json_t *r = json_object();
    char *hex = hex_encode_alloc(f.data, f.len);
    json_object_set_new(r, "filter", json_string(hex));
    free(hex);
    json_object_set_new(r, "header", rpc_hash_json(header));
    buf_clear(&f);
    return r;
}

static const struct rpc_method methods[] = {
    {.category = "blockchain",
     .name = "getblockfilter",
     .handler = rpc_getblockfilter,
     .description = "Retrieve a BIP 157 content filter for a particular block.\n",
     .args = RPC_LIST(
         struct rpc_arg,
         {.names = "blockhash", .type = RPC_ARG_STR_HEX, .description = "The hash of the block"},
         {.names = "filtertype",
          .type = RPC_ARG_STR,
          .fallback = RPC_ARG_DEFAULT,
          .default_value = "\"basic\"",
          .description = "The type name of the filter"}),
     .results = RPC_LIST(struct rpc_result,
                         {.type = RPC_RES_OBJ,
                          .inner = RPC_LIST(struct rpc_result,
                                            {.type = RPC_RES_STR_HEX,
                                             .key = "filter",
                                             .description = "the hex-encoded filter data"},
                                            {.type = RPC_RES_STR_HEX,
                                             .key = "header",
                                             .description = "the hex-encoded filter header"})}),
     .examples = RPC_EXAMPLES("getblockfilter",
                              "\"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09"
                              "\" \"basic\"",
                              "\"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09"
                              "\", \"basic\"")},
};

void rpc_blockfilter_register(struct rpc_context *ctx)
{
    rpc_register(ctx, methods, sizeof(methods) / sizeof(methods[0]));
}
