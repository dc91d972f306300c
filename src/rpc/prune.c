/* pruneblockchain: a job for the validation thread, which prunes in a flush (flush.c), with
 * Core's checks and words. */
#include "rpc/prune.h"

#include "node/context.h"
#include "rpc/context.h"
#include "rpc/protocol.h"
#include "util/log.h"
#include "util/rc.h"
#include "validation/chainstate.h"
#include "validation/validator.h"

#define TIMESTAMP_WINDOW 7200 /* Core's: blocks up to 2 hours older than a time are taken */

struct prune_call {
    int64_t height; /* in: a height or a time; out: the height pruned to */
    int err;        /* which of Core's errors (0: none) */
    int32_t last_pruned;
};

enum { PRUNE_NO_TIME = 1, PRUNE_TOO_SHORT, PRUNE_TOO_HIGH };

/* Core's CChain::FindEarliestAtLeast(t, 0): the first block of the active chain whose
 * time_max (the greatest header time up to it) is at least t, or NULL. */
static struct block_index *earliest_at_least(struct chainstate *cs, int64_t t)
{
    struct block_index *tip = chainstate_tip(cs);
    if (!tip || tip->time_max < t) {
        return NULL;
    }
    int32_t lo = 0, hi = tip->height;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (chainstate_at_height(cs, mid)->time_max < t) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return chainstate_at_height(cs, lo);
}

static int prune_call(struct chainstate *cs, void *ctx)
{
    struct prune_call *c = ctx;
    if (c->height > 1000000000) {
        struct block_index *e = earliest_at_least(cs, c->height - TIMESTAMP_WINDOW);
        if (!e) {
            c->err = PRUNE_NO_TIME;
            return RC_OK;
        }
        c->height = e->height;
    }
    int32_t chain_height = chainstate_tip(cs) ? chainstate_tip(cs)->height : -1;
    int32_t after = chainstate_prune_after_height(cs);
    if (chain_height < after) {
        c->err = PRUNE_TOO_SHORT;
        return RC_OK;
    }
    if (c->height > chain_height) {
        c->err = PRUNE_TOO_HIGH;
        return RC_OK;
    }
    if (c->height > chain_height - MIN_BLOCKS_TO_KEEP) {
        LOG(LOG_CAT_RPC, LOG_LVL_DEBUG,
            "Attempt to prune blocks close to the tip.  Retaining the minimum number of blocks.");
        c->height = chain_height - MIN_BLOCKS_TO_KEEP;
    }
    int rc = chainstate_prune_manual(cs, (int32_t)c->height);
    struct chainstate_prune_info pi;
    chainstate_prune_info(cs, &pi);
    c->last_pruned = pi.last_pruned;
    return rc;
}

static json_t *rpc_pruneblockchain(struct rpc_request *req)
{
    struct chainstate *cs = req->ctx->node->cs;
    struct chainstate_prune_info pi;
    chainstate_read_lock(cs);
    chainstate_prune_info(cs, &pi);
    chainstate_read_unlock(cs);
    if (!pi.prune_mode) {
        return rpc_error(req, RPC_MISC_ERROR,
                         "Cannot prune blocks because node is not in prune mode.");
    }
    int64_t h;
    if (rpc_value_int(req, rpc_param(req, 0), INT32_MIN, INT32_MAX, &h) != 0) {
        return NULL;
    }
    if (h < 0) {
        return rpc_error(req, RPC_INVALID_PARAMETER, "Negative block height.");
    }
    struct prune_call c = {.height = h};
    struct validator_job j = {.work = VALIDATOR_CALL, .fn = prune_call, .ctx = &c};
    int rc = validator_run(req->ctx->node->val, &j);
    switch (c.err) {
    case PRUNE_NO_TIME:
        return rpc_error(req, RPC_INVALID_PARAMETER,
                         "Could not find block with at least the specified timestamp.");
    case PRUNE_TOO_SHORT:
        return rpc_error(req, RPC_MISC_ERROR, "Blockchain is too short for pruning.");
    case PRUNE_TOO_HIGH:
        return rpc_error(req, RPC_INVALID_PARAMETER,
                         "Blockchain is shorter than the attempted prune height.");
    default:
        break;
    }
    if (rc) {
        return rpc_error(req, RPC_DATABASE_ERROR, "%s", rc_str(rc));
    }
    return json_integer(c.last_pruned);
}

static const struct rpc_method methods[] = {
    {.category = "blockchain",
     .name = "pruneblockchain",
     .handler = rpc_pruneblockchain,
     .description =
         "Attempts to delete block and undo data up to a specified height or timestamp, if "
         "eligible for pruning.\n"
         "Requires `-prune` to be enabled at startup. While pruned data may be re-fetched in "
         "some cases (e.g., via `getblockfrompeer`), local deletion is irreversible.\n",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "height",
                       .type = RPC_ARG_NUM,
                       .description = "The block height to prune up to. May be set to a discrete "
                                      "height, or to a UNIX epoch time\n"
                                      "to prune blocks whose block time is at least 2 hours "
                                      "older than the provided timestamp."}),
     .results = RPC_LIST(struct rpc_result, {.type = RPC_RES_NUM,
                                             .description = "Height of the last block pruned"}),
     .examples = RPC_EXAMPLES("pruneblockchain", "1000", "1000")},
};

void rpc_prune_register(struct rpc_context *ctx)
{
    rpc_register(ctx, methods, sizeof(methods) / sizeof(methods[0]));
}
