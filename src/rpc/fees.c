/* The fee estimation RPC methods, as Bitcoin Core's rpc/fees.cpp: estimatesmartfee (the
 * util category) and estimaterawfee (hidden), answered from the estimator in ctx->node->fees.
 *
 * Without an estimator (ctx->node->fees NULL: -blocksonly) the methods fail as Core's
 * EnsureFeeEstimator makes them: "Fee estimation disabled" (-32603).
 */
#include "rpc/fees.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mempool/fees.h"
#include "mempool/mempool.h"
#include "rpc/mempool.h"
#include "rpc/context.h"
#include "rpc/json.h"
#include "rpc/jsonrpc.h"
#include "rpc/protocol.h"
#include "util/rc.h"

/* Without a pool (unit tests), the floors are an empty pool's (0) and Core's default
 * -minrelaytxfee. */
#define MIN_RELAY_FEE_SAT_PER_KVB 100

/* The estimator to answer from, or NULL with Core's error (EnsureFeeEstimator). */
static struct fee_estimator *estimator(struct rpc_request *req)
{
    if (!req->ctx->node->fees) {
        rpc_error(req, RPC_INTERNAL_ERROR, "Fee estimation disabled");
    }
    return req->ctx->node->fees;
}

/* Core's ParseConfirmTarget: 1..max_target, else -8. */
static int conf_target(struct rpc_request *req, struct fee_estimator *fe, int *out)
{
    unsigned max_target = fee_estimator_max_target(fe, FEE_HORIZON_LONG);
    int64_t target = rpc_arg_int(req, 0);
    if (target < 1 || (uint64_t)target > max_target) {
        rpc_error(req, RPC_INVALID_PARAMETER, "Invalid conf_target, must be between %u and %u", 1u,
                  max_target);
        return -1;
    }
    *out = (int)target;
    return 0;
}

/* ---- estimatesmartfee ---------------------------------------------------------------- */

/* Core's FeeModeFromString, case-insensitive: "unset" and "economical" are economical. */
static int fee_mode(const char *s, bool *conservative)
{
    if (strcasecmp(s, "unset") == 0 || strcasecmp(s, "economical") == 0) {
        *conservative = false;
        return 0;
    }
    if (strcasecmp(s, "conservative") == 0) {
        *conservative = true;
        return 0;
    }
    return -1;
}

static json_t *rpc_estimatesmartfee(struct rpc_request *req)
{
    struct fee_estimator *fe = estimator(req);
    json_t *r = NULL;
    int target;
    if (!fe || conf_target(req, fe, &target) != 0) {
        goto out;
    }
    bool conservative = false;
    json_t *m = rpc_param(req, 1);
    const char *mode = m ? json_string_value(m) : "economical";
    /* A NUL inside the string makes it no mode name (Core compares the whole string). */
    if (!mode || (m && strlen(mode) != json_string_length(m)) ||
        fee_mode(mode, &conservative) != 0) {
        rpc_error(req, RPC_INVALID_PARAMETER,
                  "Invalid estimate_mode parameter, must be one of: \"unset\", \"economical\", "
                  "\"conservative\"");
        goto out;
    }
    /* The floors the answer is raised to (Core): the pool's minimum fee, -minrelaytxfee. */
    int64_t pool_min = 0, relay_min = MIN_RELAY_FEE_SAT_PER_KVB;
    if (req->ctx->node->mempool) {
        mempool_read_lock(req->ctx->node->mempool);
        pool_min = mempool_min_fee_at(req->ctx->node->mempool, rpc_mempool_now(req->ctx));
        relay_min = mempool_options(req->ctx->node->mempool)->min_relay_feerate;
        mempool_read_unlock(req->ctx->node->mempool);
    }
    struct fee_smart_result res;
    fee_estimator_smart(fe, &res, target, conservative, pool_min, relay_min);
    r = json_object();
    if (res.feerate_sat_kvb != 0) {
        json_object_set_new(r, "feerate", rpc_json_amount(res.feerate_sat_kvb));
    } else {
        json_t *errors = json_array();
        json_array_append_new(errors, json_string(FEE_ERR_NO_ESTIMATE));
        json_object_set_new(r, "errors", errors);
    }
    json_object_set_new(r, "blocks", json_integer(res.returned_target));
out:
    return r;
}

/* ---- estimaterawfee ------------------------------------------------------------------ */

/* Core rounds counts to two decimals and bounds to whole sat/kvB. */
static json_t *bucket_json(const struct fee_bucket_range *b)
{
    json_t *o = json_object();
    json_object_set_new(o, "startrange", json_real(round(b->start)));
    json_object_set_new(o, "endrange", json_real(round(b->end)));
    json_object_set_new(o, "withintarget", json_real(round(b->within_target * 100.0) / 100.0));
    json_object_set_new(o, "totalconfirmed", json_real(round(b->total_confirmed * 100.0) / 100.0));
    json_object_set_new(o, "inmempool", json_real(round(b->in_mempool * 100.0) / 100.0));
    json_object_set_new(o, "leftmempool", json_real(round(b->left_mempool * 100.0) / 100.0));
    return o;
}

static json_t *rpc_estimaterawfee(struct rpc_request *req)
{
    struct fee_estimator *fe = estimator(req);
    json_t *r = NULL;
    int target;
    if (!fe || conf_target(req, fe, &target) != 0) {
        goto out;
    }
    double threshold = 0.95;
    json_t *t = rpc_param(req, 1);
    if (t) {
        int rc = rpc_json_real(t, &threshold);
        if (rc == RC_TOO_LARGE) {
            rpc_error(req, RPC_MISC_ERROR, "JSON double out of range");
            goto out;
        }
        if (rc != RC_OK) {
            rpc_error(req, RPC_MISC_ERROR, "JSON value of type %s is not of expected type number",
                      rpc_json_type_name(t));
            goto out;
        }
    }
    if (threshold < 0 || threshold > 1) {
        rpc_error(req, RPC_INVALID_PARAMETER, "Invalid threshold");
        goto out;
    }
    r = json_object();
    for (int h = 0; h < FEE_HORIZON_COUNT; h++) {
        /* Only the horizons that track the target. */
        if ((unsigned)target > fee_estimator_max_target(fe, (enum fee_horizon)h)) {
            continue;
        }
        int64_t rate;
        struct fee_estimation est;
        fee_estimation_init(&est);
        fee_estimator_raw(fe, &rate, &est, target, threshold, (enum fee_horizon)h);
        json_t *o = json_object();
        if (rate != 0) {
            json_object_set_new(o, "feerate", rpc_json_amount(rate));
            json_object_set_new(o, "decay", json_real(est.decay));
            json_object_set_new(o, "scale", json_integer(est.scale));
            json_object_set_new(o, "pass", bucket_json(&est.pass));
            /* A fail range starting at -1: every bucket passed. */
            if (est.fail.start != -1) {
                json_object_set_new(o, "fail", bucket_json(&est.fail));
            }
        } else {
            /* Only what still means something without an answer. */
            json_object_set_new(o, "decay", json_real(est.decay));
            json_object_set_new(o, "scale", json_integer(est.scale));
            json_object_set_new(o, "fail", bucket_json(&est.fail));
            json_t *errors = json_array();
            json_array_append_new(errors, json_string(FEE_ERR_NO_ESTIMATE_THRESHOLD));
            json_object_set_new(o, "errors", errors);
        }
        json_object_set_new(r, fee_horizon_name((enum fee_horizon)h), o);
    }
out:
    return r;
}

/* ---- declarations -------------------------------------------------------------------- */

#define FEE_MODES_DETAIL                                                                           \
    "unset, economical, conservative \n"                                                           \
    "unset means no mode set (default mode will be used). \n"                                      \
    "economical estimates use a shorter time horizon, making them more\n"                          \
    "responsive to short-term drops in the prevailing fee market. This mode\n"                     \
    "potentially returns a lower fee rate estimate.\n"                                             \
    "conservative estimates use a longer time horizon, making them\n"                              \
    "less responsive to short-term drops in the prevailing fee market. This mode\n"                \
    "potentially returns a higher fee rate estimate.\n"

/* Core's FeeRateBucketDoc; elided (all but the first field skipped, the first printed as
 * "...") where Core's ElideGroup is used. */
#define BUCKET_DOC(el_first, el_rest)                                                              \
    {.type = RPC_RES_NUM,                                                                          \
     .key = "startrange",                                                                          \
     .description = "start of feerate range",                                                      \
     .elision = el_first},                                                                         \
        {.type = RPC_RES_NUM,                                                                      \
         .key = "endrange",                                                                        \
         .description = "end of feerate range",                                                    \
         .elision = el_rest},                                                                      \
        {.type = RPC_RES_NUM,                                                                      \
         .key = "withintarget",                                                                    \
         .description = "number of txs over history horizon in the feerate range that were "       \
                        "confirmed within target",                                                 \
         .elision = el_rest},                                                                      \
        {.type = RPC_RES_NUM,                                                                      \
         .key = "totalconfirmed",                                                                  \
         .description = "number of txs over history horizon in the feerate range that were "       \
                        "confirmed at any point",                                                  \
         .elision = el_rest},                                                                      \
        {.type = RPC_RES_NUM,                                                                      \
         .key = "inmempool",                                                                       \
         .description = "current number of txs in mempool in the feerate range unconfirmed for "   \
                        "at least target blocks",                                                  \
         .elision = el_rest},                                                                      \
    {                                                                                              \
        .type = RPC_RES_NUM, .key = "leftmempool",                                                 \
        .description = "number of txs over history horizon in the feerate range that left "        \
                       "mempool unconfirmed after target",                                         \
        .elision = el_rest                                                                         \
    }

static const struct rpc_result bucket_doc[] = {BUCKET_DOC(RPC_ELIDE_NONE, RPC_ELIDE_NONE)};
static const struct rpc_result bucket_doc_elided[] = {BUCKET_DOC(RPC_ELIDE_TEXT, RPC_ELIDE_SKIP)};

/* Core's FeeEstimateHorizonDoc. */
#define HORIZON_DOC(el_first, el_rest)                                                             \
    {.type = RPC_RES_NUM,                                                                          \
     .key = "feerate",                                                                             \
     .optional = true,                                                                             \
     .description = "estimate fee rate in BTC/kvB",                                                \
     .elision = el_first},                                                                         \
        {.type = RPC_RES_NUM,                                                                      \
         .key = "decay",                                                                           \
         .description = "exponential decay (per block) for historical moving average of "          \
                        "confirmation data",                                                       \
         .elision = el_rest},                                                                      \
        {.type = RPC_RES_NUM,                                                                      \
         .key = "scale",                                                                           \
         .description = "The resolution of confirmation targets at this time horizon",             \
         .elision = el_rest},                                                                      \
        {.type = RPC_RES_OBJ,                                                                      \
         .key = "pass",                                                                            \
         .optional = true,                                                                         \
         .description = "information about the lowest range of feerates to succeed in meeting "    \
                        "the threshold",                                                           \
         .inner = bucket_doc,                                                                      \
         .n_inner = sizeof(bucket_doc) / sizeof(bucket_doc[0]),                                    \
         .elision = el_rest},                                                                      \
        {.type = RPC_RES_OBJ,                                                                      \
         .key = "fail",                                                                            \
         .optional = true,                                                                         \
         .description = "information about the highest range of feerates to fail to meet the "     \
                        "threshold",                                                               \
         .inner = bucket_doc_elided,                                                               \
         .n_inner = sizeof(bucket_doc_elided) / sizeof(bucket_doc_elided[0]),                      \
         .elision = el_rest},                                                                      \
    {                                                                                              \
        .type = RPC_RES_ARR, .key = "errors", .optional = true,                                    \
        .description = "Errors encountered during processing (if there are any)",                  \
        .inner = RPC_LIST(struct rpc_result, {.type = RPC_RES_STR, .key = "error"}),               \
        .elision = el_rest                                                                         \
    }

static const struct rpc_result horizon_doc[] = {HORIZON_DOC(RPC_ELIDE_NONE, RPC_ELIDE_NONE)};
static const struct rpc_result horizon_doc_elided[] = {HORIZON_DOC(RPC_ELIDE_TEXT, RPC_ELIDE_SKIP)};

static const struct rpc_method methods[] = {
    {.category = "util",
     .name = "estimatesmartfee",
     .handler = rpc_estimatesmartfee,
     .description =
         "Estimates the approximate fee per kilobyte needed for a transaction to begin\n"
         "confirmation within conf_target blocks if possible and return the number of blocks\n"
         "for which the estimate is valid. Uses virtual transaction size as defined\n"
         "in BIP 141 (witness data is discounted).\n",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "conf_target",
                       .type = RPC_ARG_NUM,
                       .description = "Confirmation target in blocks (1 - 1008)",
                       .conv = RPC_CONV_INT},
                      {.names = "estimate_mode",
                       .type = RPC_ARG_STR,
                       .fallback = RPC_ARG_DEFAULT,
                       .default_value = "\"economical\"",
                       .description = "The fee estimate mode.\n" FEE_MODES_DETAIL}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .inner = RPC_LIST(
              struct rpc_result,
              {.type = RPC_RES_NUM,
               .key = "feerate",
               .optional = true,
               .description = "estimate fee rate in BTC/kvB (only present if no errors were "
                              "encountered)"},
              {.type = RPC_RES_ARR,
               .key = "errors",
               .optional = true,
               .description = "Errors encountered during processing (if there are any)",
               .inner = RPC_LIST(struct rpc_result,
                                 {.type = RPC_RES_STR, .key = "", .description = "error"})},
              {.type = RPC_RES_NUM,
               .key = "blocks",
               .description =
                   "block number where estimate was found\n"
                   "The request target will be clamped between 2 and the highest target\n"
                   "fee estimation is able to return based on how long it has been running.\n"
                   "An error is returned if not enough transactions and blocks\n"
                   "have been observed to make an estimate for any number of blocks."})}),
     .examples = RPC_EXAMPLES("estimatesmartfee", "6", "6")},
    {.category = "hidden",
     .name = "estimaterawfee",
     .handler = rpc_estimaterawfee,
     .description =
         "WARNING: This interface is unstable and may disappear or change!\n"
         "\n"
         "WARNING: This is an advanced API call that is tightly coupled to the specific\n"
         "implementation of fee estimation. The parameters it can be called with\n"
         "and the results it returns will change if the internal implementation changes.\n"
         "\n"
         "Estimates the approximate fee per kilobyte needed for a transaction to begin\n"
         "confirmation within conf_target blocks if possible. Uses virtual transaction size as\n"
         "defined in BIP 141 (witness data is discounted).\n",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "conf_target",
                       .type = RPC_ARG_NUM,
                       .description = "Confirmation target in blocks (1 - 1008)",
                       .conv = RPC_CONV_INT},
                      {.names = "threshold",
                       .type = RPC_ARG_NUM,
                       .fallback = RPC_ARG_DEFAULT,
                       .default_value = "0.95",
                       .description =
                           "The proportion of transactions in a given feerate range that must have "
                           "been\n"
                           "confirmed within conf_target in order to consider those feerates as "
                           "high enough and proceed to check\n"
                           "lower buckets."}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .description =
              "Results are returned for any horizon which tracks blocks up to the confirmation "
              "target",
          .inner =
              RPC_LIST(struct rpc_result,
                       {.type = RPC_RES_OBJ,
                        .key = "short",
                        .optional = true,
                        .description = "estimate for short time horizon",
                        .inner = horizon_doc,
                        .n_inner = sizeof(horizon_doc) / sizeof(horizon_doc[0])},
                       {.type = RPC_RES_OBJ,
                        .key = "medium",
                        .optional = true,
                        .description = "estimate for medium time horizon",
                        .inner = horizon_doc_elided,
                        .n_inner = sizeof(horizon_doc_elided) / sizeof(horizon_doc_elided[0])},
                       {.type = RPC_RES_OBJ,
                        .key = "long",
                        .optional = true,
                        .description = "estimate for long time horizon",
                        .inner = horizon_doc_elided,
                        .n_inner = sizeof(horizon_doc_elided) / sizeof(horizon_doc_elided[0])})}),
     .examples = RPC_EXAMPLE_CLI("estimaterawfee", "6 0.9"),
     .flags = RPC_METHOD_HIDDEN},
};

void rpc_fees_register(struct rpc_context *ctx)
{
    rpc_register(ctx, methods, sizeof(methods) / sizeof(methods[0]));
}
