/* Bitcoin Core's REST interface (rest.h): the dispatch from a path to its handler. Each
 * handler follows its counterpart in Core's src/rest.cpp check for check, so that the first
 * failure is the one Core reports; the JSON comes from the RPC builders (rpc/blockjson.h,
 * rpc_block_verbose_json, rpc_call_method, rpc_mempool_info_json) and is written by
 * rpc_json_write, as RPC results are. The handlers live in rest_chain.c (blocks, headers,
 * filters, the chain's state, spent outputs) and rest_txs.c (mempool, transactions,
 * getutxos); what they share, in rest_util.c.
 *
 * Paths are matched and parsed on the raw request target, query included, as Core does
 * (rest_util.h says how): nothing is percent-decoded or normalised in the path.
 */
#include "rpc/rest.h"

#include <string.h>

#include "rpc/protocol.h"
#include "rpc/rest_chain.h"
#include "rpc/rest_txs.h"
#include "rpc/rest_util.h"

/* Core's uri_prefixes, in its order: the first prefix the raw target starts with wins. */
static const struct {
    const char *prefix;
    int (*handler)(struct rest_req *r);
} handlers[] = {
    {"/rest/tx/", rest_tx},
    {"/rest/block/notxdetails/", rest_block_notxdetails},
    {"/rest/block/", rest_block_extended},
    {"/rest/blockpart/", rest_block_part},
    {"/rest/blockfilter/", rest_block_filter},
    {"/rest/blockfilterheaders/", rest_filter_header},
    {"/rest/chaininfo", rest_chaininfo},
    {"/rest/mempool/", rest_mempool},
    {"/rest/headers/", rest_headers},
    {"/rest/getutxos", rest_getutxos},
    {"/rest/deploymentinfo/", rest_deploymentinfo},
    {"/rest/deploymentinfo", rest_deploymentinfo},
    {"/rest/blockhashbyheight/", rest_blockhash_by_height},
    {"/rest/spenttxouts/", rest_spent_txouts},
};

void rest_handle_body(struct rpc_context *ctx, const char *uri, const uint8_t *body,
                      size_t body_len, const char *warmup, struct rest_reply *out)
{
    struct rest_req r = {.ctx = ctx,
                         .uri = uri,
                         .body = body_len ? body : NULL,
                         .body_len = body_len,
                         .warmup = warmup,
                         .out = out};
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++) {
        size_t n = strlen(handlers[i].prefix);
        if (strncmp(uri, handlers[i].prefix, n) == 0) {
            r.part = uri + n;
            (void)handlers[i].handler(&r);
            return;
        }
    }
    /* No handler: the server's own 404 (Core's WriteNoStoreErrorReply: an empty body). */
    rest_reply_bytes(&r, RPC_HTTP_NOT_FOUND, NULL, REST_CACHE_NO_STORE, NULL, 0);
}

void rest_handle(struct rpc_context *ctx, const char *uri, const char *warmup,
                 struct rest_reply *out)
{
    rest_handle_body(ctx, uri, NULL, 0, warmup, out);
}
