/* getdeploymentinfo: the consensus changes in force at a block, in Bitcoin Core's shape
 * (src/rpc/blockchain.cpp there: getdeploymentinfo, DeploymentInfo, SoftForkDescPushBack).
 * The buried deployments come from the chain parameters' heights, the version-bits ones
 * from consensus/versionbits.c walking the block index, the script flags from
 * script_block_flags (the flags the block's scripts are checked with). */
#include "rpc/deployment.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blockstore/blockindex.h"
#include "consensus/versionbits.h"
#include "rpc/blockjson.h"
#include "rpc/context.h"
#include "rpc/protocol.h"
#include "script/block_verify.h"
#include "script/script_error.h"
#include "util/xmalloc.h"
#include "validation/chainstate.h"

/* The block index as a versionbits_view: the ancestors of one block. Every read of a
 * period walks heights downwards, so the last entry found is kept and stepped back from. */
struct index_view {
    struct block_index *block;
    struct block_index *last;
};

static struct block_index *entry_at(struct index_view *iv, int h)
{
    struct block_index *e = iv->last;
    if (e && e->height >= h && e->height - h <= 16) {
        while (e && e->height > h) {
            e = e->prev;
        }
    } else {
        e = block_index_ancestor(iv->block, h);
    }
    iv->last = e;
    return e;
}

/* An anchored tree (tests) may not reach down to h: such blocks count as version 0 at time 0,
 * which neither signal nor start a deployment. */
static int32_t view_version(void *ctx, int h)
{
    struct block_index *e = entry_at(ctx, h);
    return e ? e->header.version : 0;
}

static int64_t view_mtp(void *ctx, int h)
{
    struct block_index *e = entry_at(ctx, h);
    return e ? block_index_median_time_past(e) : 0;
}

/* Core's SoftForkDescPushBack for a buried deployment: active for the block after e. */
static void push_buried(json_t *out, const char *name, const struct block_index *e, int height)
{
    if (height == INT_MAX) {
        return; /* Core's DeploymentEnabled */
    }
    json_object_set_new(out, name,
                        json_pack("{s:s,s:b,s:i}", "type", "buried", "active",
                                  e->height + 1 >= height, "height", height));
}

/* Core's SoftForkDescPushBack for a version-bits deployment. */
static void push_bip9(json_t *out, const struct chain_bip9_deployment *d, struct block_index *e)
{
    if (d->start_time == CHAIN_BIP9_NEVER_ACTIVE) {
        return;
    }
    struct index_view iv = {.block = e};
    struct versionbits_view view = {
        .ctx = &iv, .version = view_version, .median_time_past = view_mtp};
    struct bip9_info info;
    char *signalling = xmalloc((size_t)d->period + 1);
    bip9_info_at(&info, signalling, d, &view, e->height);

    json_t *bip9 = json_object();
    if (info.has_stats) {
        json_object_set_new(bip9, "bit", json_integer(d->bit));
    }
    json_object_set_new(bip9, "start_time", json_integer(d->start_time));
    json_object_set_new(bip9, "timeout", json_integer(d->timeout));
    json_object_set_new(bip9, "min_activation_height", json_integer(d->min_activation_height));
    json_object_set_new(bip9, "status", json_string(bip9_state_name(info.state)));
    json_object_set_new(bip9, "since", json_integer(info.since));
    json_object_set_new(bip9, "status_next", json_string(bip9_state_name(info.next_state)));
    if (info.has_stats) {
        json_t *st = json_pack("{s:i,s:i,s:i}", "period", info.stats.period, "elapsed",
                               info.stats.elapsed, "count", info.stats.count);
        if (info.stats.threshold > 0 || info.stats.possible) {
            json_object_set_new(st, "threshold", json_integer(info.stats.threshold));
            json_object_set_new(st, "possible", json_boolean(info.stats.possible));
        }
        json_object_set_new(bip9, "statistics", st);
        json_object_set_new(bip9, "signalling", json_string(signalling));
    }
    free(signalling);

    json_t *rv = json_object();
    json_object_set_new(rv, "type", json_string("bip9"));
    int active = 0;
    if (info.active_since >= 0) {
        json_object_set_new(rv, "height", json_integer(info.active_since));
        active = info.active_since <= e->height + 1;
    }
    json_object_set_new(rv, "active", json_boolean(active));
    json_object_set_new(rv, "bip9", bip9);
    json_object_set_new(out, d->name, rv);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Core's GetScriptFlagNames: the names of the flags set, alphabetical (Core iterates a
 * std::map by name), then any bits without a name as one "0x%08x". */
static json_t *script_flag_names(uint32_t flags)
{
    const char *names[32];
    size_t n = 0;
    uint32_t leftover = flags;
    for (int bit = 0; bit < 32; bit++) {
        uint32_t f = 1u << bit;
        const char *name = (flags & f) ? script_flag_name(f) : NULL;
        if (name) {
            names[n++] = name;
            leftover &= ~f;
        }
    }
    qsort(names, n, sizeof(names[0]), cmp_name);
    json_t *r = json_array();
    for (size_t i = 0; i < n; i++) {
        json_array_append_new(r, json_string(names[i]));
    }
    if (leftover) {
        char hx[11];
        snprintf(hx, sizeof(hx), "0x%08x", leftover);
        json_array_append_new(r, json_string(hx));
    }
    return r;
}

static json_t *rpc_getdeploymentinfo(struct rpc_request *req)
{
    struct chainstate *cs = req->ctx->node->cs;
    const uint8_t *hash = rpc_arg_hash(req, 0);
    chainstate_read_lock(cs);
    const struct chain_params *p = chainstate_params(cs);
    struct block_index *e = hash ? block_tree_find(chainstate_tree(cs), hash) : chainstate_tip(cs);
    if (!e) {
        chainstate_read_unlock(cs);
        return hash ? rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Block not found")
                    : rpc_error(req, RPC_MISC_ERROR, "The chain has no blocks yet");
    }
    json_t *r = json_object();
    json_object_set_new(r, "hash", rpc_hash_json(e->hash));
    json_object_set_new(r, "height", json_integer(e->height));
    json_object_set_new(r, "script_flags",
                        script_flag_names(script_block_flags(p, e->height, e->hash)));
    /* Core's DeploymentInfo order. */
    json_t *d = json_object();
    push_buried(d, "bip34", e, p->bip34_height);
    push_buried(d, "bip66", e, p->bip66_height);
    push_buried(d, "bip65", e, p->bip65_height);
    push_buried(d, "csv", e, p->csv_height);
    push_buried(d, "segwit", e, p->segwit_height);
    for (int i = 0; i < CHAIN_DEPLOYMENT_COUNT; i++) {
        push_bip9(d, &p->deployments[i], e);
    }
    json_object_set_new(r, "deployments", d);
    chainstate_read_unlock(cs);
    return r;
}

/* ---- declarations -------------------------------------------------------------------- */

/* Core's RPCHelpForDeployment. */
#define DEPLOYMENT_RESULTS                                                                         \
    RPC_LIST(struct rpc_result,                                                                    \
             {.type = RPC_RES_STR, .key = "type", .description = "one of \"buried\", \"bip9\""},   \
             {.type = RPC_RES_NUM,                                                                 \
              .key = "height",                                                                     \
              .optional = true,                                                                    \
              .description =                                                                       \
                  "height of the first block which the rules are or will be enforced "             \
                  "(only for \"buried\" type, or \"bip9\" type with \"active\" status)"},          \
             {.type = RPC_RES_BOOL,                                                                \
              .key = "active",                                                                     \
              .description = "true if the rules are enforced for the mempool and the next block"}, \
             {.type = RPC_RES_OBJ,                                                                 \
              .key = "bip9",                                                                       \
              .optional = true,                                                                    \
              .description = "status of bip9 softforks (only for \"bip9\" type)",                  \
              .inner = BIP9_RESULTS})

#define BIP9_RESULTS                                                                               \
    RPC_LIST(                                                                                      \
        struct rpc_result,                                                                         \
        {.type = RPC_RES_NUM,                                                                      \
         .key = "bit",                                                                             \
         .optional = true,                                                                         \
         .description = "the bit (0-28) in the block version field used to signal this "           \
                        "softfork (only for \"started\" and \"locked_in\" status)"},               \
        {.type = RPC_RES_NUM_TIME,                                                                 \
         .key = "start_time",                                                                      \
         .description = "the minimum median time past of a block at which the bit gains its "      \
                        "meaning"},                                                                \
        {.type = RPC_RES_NUM_TIME,                                                                 \
         .key = "timeout",                                                                         \
         .description = "the median time past of a block at which the deployment is considered "   \
                        "failed if not yet locked in"},                                            \
        {.type = RPC_RES_NUM,                                                                      \
         .key = "min_activation_height",                                                           \
         .description = "minimum height of blocks for which the rules may be enforced"},           \
        {.type = RPC_RES_STR,                                                                      \
         .key = "status",                                                                          \
         .description = "status of deployment at specified block (one of \"defined\", "            \
                        "\"started\", \"locked_in\", \"active\", \"failed\")"},                    \
        {.type = RPC_RES_NUM,                                                                      \
         .key = "since",                                                                           \
         .description = "height of the first block to which the status applies"},                  \
        {.type = RPC_RES_STR,                                                                      \
         .key = "status_next",                                                                     \
         .description = "status of deployment at the next block"},                                 \
        {.type = RPC_RES_OBJ,                                                                      \
         .key = "statistics",                                                                      \
         .optional = true,                                                                         \
         .description = "numeric statistics about signalling for a softfork (only for "            \
                        "\"started\" and \"locked_in\" status)",                                   \
         .inner = STATISTICS_RESULTS},                                                             \
        {.type = RPC_RES_STR,                                                                      \
         .key = "signalling",                                                                      \
         .optional = true,                                                                         \
         .description = "indicates blocks that signalled with a # and blocks that did not with "   \
                        "a -"})

#define STATISTICS_RESULTS                                                                         \
    RPC_LIST(                                                                                      \
        struct rpc_result,                                                                         \
        {.type = RPC_RES_NUM,                                                                      \
         .key = "period",                                                                          \
         .description = "the length in blocks of the signalling period"},                          \
        {.type = RPC_RES_NUM,                                                                      \
         .key = "threshold",                                                                       \
         .optional = true,                                                                         \
         .description = "the number of blocks with the version bit set required to activate the "  \
                        "feature (only for \"started\" status)"},                                  \
        {.type = RPC_RES_NUM,                                                                      \
         .key = "elapsed",                                                                         \
         .description = "the number of blocks elapsed since the beginning of the current "         \
                        "period"},                                                                 \
        {.type = RPC_RES_NUM,                                                                      \
         .key = "count",                                                                           \
         .description = "the number of blocks with the version bit set in the current period"},    \
        {.type = RPC_RES_BOOL,                                                                     \
         .key = "possible",                                                                        \
         .optional = true,                                                                         \
         .description = "returns false if there are not enough blocks left in this period to "     \
                        "pass activation threshold (only for \"started\" status)"})

static const struct rpc_method methods[] = {
    {.category = "blockchain",
     .name = "getdeploymentinfo",
     .handler = rpc_getdeploymentinfo,
     .description = "Returns an object containing various state info regarding deployments of "
                    "consensus changes.\n"
                    "Consensus changes for which the new rules are enforced from genesis are not "
                    "listed in \"deployments\".",
     /* Core declares Default{"hash of current chain tip"} but reads the parameter itself
      * (null: the tip), so the text is a hint here: the handler must not get it. */
     .args = RPC_LIST(struct rpc_arg, {.names = "blockhash",
                                       .type = RPC_ARG_STR_HEX,
                                       .fallback = RPC_ARG_DEFAULT_HINT,
                                       .default_value = "\"hash of current chain tip\"",
                                       .description = "The block hash at which to query "
                                                      "deployment state",
                                       .conv = RPC_CONV_HASH,
                                       .conv_name = "blockhash"}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .inner = RPC_LIST(
              struct rpc_result,
              {.type = RPC_RES_STR, .key = "hash", .description = "requested block hash (or tip)"},
              {.type = RPC_RES_NUM,
               .key = "height",
               .description = "requested block height (or tip)"},
              {.type = RPC_RES_ARR,
               .key = "script_flags",
               .description = "script verify flags for the block",
               .inner = RPC_LIST(
                   struct rpc_result,
                   {.type = RPC_RES_STR, .key = "flag", .description = "a script verify flag"})},
              {.type = RPC_RES_OBJ_DYN,
               .key = "deployments",
               .inner = RPC_LIST(struct rpc_result, {.type = RPC_RES_OBJ,
                                                     .key = "xxxx",
                                                     .description = "name of the deployment",
                                                     .inner = DEPLOYMENT_RESULTS})})}),
     .examples = RPC_EXAMPLES("getdeploymentinfo", "", "")},
};

void rpc_deployment_register(struct rpc_context *ctx)
{
    rpc_register(ctx, methods, sizeof(methods) / sizeof(methods[0]));
}
