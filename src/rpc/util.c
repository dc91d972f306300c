/* The util RPC group: getindexinfo; and getzmqnotifications (Core's zmq group). */
#include "rpc/util.h"

#include <string.h>

#include "rpc/context.h"
#include "validation/chainstate.h"

static json_t *rpc_getindexinfo(struct rpc_request *req)
{
    struct chainstate *cs = req->ctx->cs;
    const char *name = json_string_value(rpc_param(req, 0));
    json_t *r = json_object();
    int synced = -1;
    chainstate_read_lock(cs);
    struct block_index *tip = chainstate_tip(cs);
    /* An empty name filters nothing, as Core's. */
    if (chainstate_txindex_info(cs, &synced) && (!name || !*name || strcmp(name, "txindex") == 0)) {
        json_object_set_new(r, "txindex",
                            json_pack("{s:b,s:i}", "synced", tip && synced >= tip->height,
                                      "best_block_height", synced));
    }
    chainstate_read_unlock(cs);
    return r;
}

/* getzmqnotifications: bitnode has no ZeroMQ publishers, so the answer is Core's for a node
 * built with ZMQ and started without any -zmqpub option: an empty array. */
static json_t *rpc_getzmqnotifications(struct rpc_request *req)
{
    (void)req;
    return json_array();
}

static const struct rpc_method methods[] = {
    {.category = "util",
     .name = "getindexinfo",
     .handler = rpc_getindexinfo,
     .description =
         "Returns the status of one or all available indices currently running in the node.\n",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "index_name",
                       .type = RPC_ARG_STR,
                       .fallback = RPC_ARG_OMITTED,
                       .description = "Filter results for an index with a specific name."}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ_DYN,
          .inner = RPC_LIST(struct rpc_result,
                            {.type = RPC_RES_OBJ,
                             .key = "name",
                             .description = "The name of the index",
                             .inner = RPC_LIST(struct rpc_result,
                                               {.type = RPC_RES_BOOL,
                                                .key = "synced",
                                                .description = "Whether the index is synced or not"},
                                               {.type = RPC_RES_NUM,
                                                .key = "best_block_height",
                                                .description = "The block height to which the "
                                                               "index is synced"})})}),
     .examples = RPC_EXAMPLES("getindexinfo", "", "") RPC_EXAMPLES("getindexinfo", "txindex",
                                                                  "txindex")},
    {.category = "zmq",
     .name = "getzmqnotifications",
     .handler = rpc_getzmqnotifications,
     .description = "Returns information about the active ZeroMQ notifications.\n",
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_ARR,
          .inner = RPC_LIST(
              struct rpc_result,
              {.type = RPC_RES_OBJ,
               .inner = RPC_LIST(struct rpc_result,
                                 {.type = RPC_RES_STR,
                                  .key = "type",
                                  .description = "Type of notification"},
                                 {.type = RPC_RES_STR,
                                  .key = "address",
                                  .description = "Address of the publisher"},
                                 {.type = RPC_RES_NUM,
                                  .key = "hwm",
                                  .description = "Outbound message high water mark"})})}),
     .examples = RPC_EXAMPLES("getzmqnotifications", "", "")},
};

void rpc_util_register(struct rpc_context *ctx)
{
    rpc_register(ctx, methods, sizeof(methods) / sizeof(methods[0]));
}
