/* The mempool's wiring: its and the fee estimator's chainstate listener, mempool.dat and
 * fee_estimates.dat at start and at shutdown (mempool.h). */
#include "node/mempool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mempool/accept.h"
#include "mempool/fees.h"
#include "mempool/persist.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/chainstate.h"
#include "validation/validator.h"

static void on_connected(void *ctx, struct chainstate *cs, const struct block_index *e,
                         const struct block *b)
{
    struct node_context *np = ctx;
    if (np->fees) {
        /* First: transactions entering after this block are tracked at its height. */
        uint8_t(*ids)[32] = xmalloc((b->tx_count ? b->tx_count : 1) * 32);
        for (size_t i = 0; i < b->tx_count; i++) {
            memcpy(ids[i], b->txs[i].txid, 32);
        }
        (void)fee_estimator_block_connected(np->fees, NULL, (unsigned)e->height,
                                            (const uint8_t(*)[32])ids, b->tx_count);
        free(ids);
    }
    mempool_block_connected(np->mempool, cs, b, chainstate_now(cs));
}

static void on_disconnected(void *ctx, struct chainstate *cs, const struct block_index *e,
                            const struct block *b)
{
    struct node_context *np = ctx;
    (void)e;
    mempool_block_disconnected(np->mempool, cs, b, chainstate_now(cs));
}

/* The end of an activation or an invalidation (Core ends its DisconnectedBlockTransactions
 * there): the next disconnected block starts a new queue. */
static void on_settled(void *ctx, const struct block_index *tip, int ibd)
{
    struct node_context *np = ctx;
    (void)tip;
    (void)ibd;
    mempool_reorg_done(np->mempool);
}

static void on_added(void *ctx, const struct mempool_entry *e, uint64_t seq)
{
    (void)seq;
    struct node_context *np = ctx;
    chainstate_set_mempool_usage(np->cs, (size_t)mempool_usage(np->mempool));
    if (!np->fees) {
        return;
    }
    struct block_index *tip = chainstate_tip(np->cs);
    struct block_index *best = chainstate_best_header(np->cs);
    struct fee_tx_entry fx = {
        .fee_sat = e->fee,
        .vsize = e->vsize,
        .height = (unsigned)e->height,
        .mempool_limit_bypassed = e->bypassed != 0,
        .submitted_in_package = false,
        /* Core's IsCurrentForFeeEstimation: out of IBD, the tip the best header known. */
        .chainstate_is_current = !chainstate_in_ibd(np->cs) && tip == best,
        .has_no_mempool_parents = e->nparents == 0,
    };
    memcpy(fx.txid, e->tx.txid, 32);
    (void)fee_estimator_tx_added(np->fees, NULL, &fx);
}

static void on_removed(void *ctx, const struct mempool_entry *e, enum mempool_removal why,
                       uint64_t seq)
{
    (void)seq;
    struct node_context *np = ctx;
    /* Called before e leaves the counts: its own usage is subtracted here. */
    int64_t used = mempool_usage(np->mempool) - mempool_entry_usage(e);
    chainstate_set_mempool_usage(np->cs, used > 0 ? (size_t)used : 0);
    if (np->fees && why != MEMPOOL_REMOVED_BLOCK) {
        (void)fee_estimator_tx_removed(np->fees, NULL, e->tx.txid);
    }
}

static struct chainstate_listener block_listener(struct node_context *n)
{
    struct chainstate_listener h = {.block_connected = on_connected,
                                     .block_disconnected = on_disconnected,
                                     .tip_settled = on_settled,
                                     .ctx = n};
    return h;
}

int node_mempool_hook(struct node_context *n)
{
    struct chainstate_listener h = block_listener(n);
    int rc = chainstate_add_listener(n->cs, &h);
    if (rc == RC_OK) {
        struct mempool_listener l = {.added = on_added, .removed = on_removed, .ctx = n};
        rc = mempool_add_listener(n->mempool, &l);
    }
    return rc;
}

void node_mempool_unhook(struct node_context *n)
{
    if (n->cs) {
        struct chainstate_listener h = block_listener(n);
        chainstate_remove_listener(n->cs, &h);
    }
}

void node_fees_load(struct fee_estimator *fe, const char *datadir, int accept_stale)
{
    char *path = fs_path_join(datadir, "fee_estimates.dat");
    char err[256];
    int rc = fee_estimator_load(fe, path, (int64_t)time(NULL), accept_stale, err, sizeof(err));
    if (rc == RC_NOT_FOUND) {
        LOG_INFO("%s is not found. Continue anyway.", path);
    } else if (rc == RC_INVALID && strncmp(err, "Fee estimation file ", 20) == 0) {
        LOG_WARN("%s", err); /* Core's words for a stale file, the path and age in them */
    } else if (rc) {
        LOG_WARN("Failed to read fee estimates from %s. Continue anyway.", path);
        LOG(LOG_CAT_ESTIMATEFEE, LOG_LVL_DEBUG, "fee estimates: %s", err);
    } else {
        LOG_INFO("Fee estimates read from %s", path);
    }
    free(path);
}

void node_fees_save(struct fee_estimator *fe, const char *datadir)
{
    if (!fe) {
        return;
    }
    fee_estimator_flush_unconfirmed(fe);
    node_fees_write(fe, datadir);
}

void node_fees_write(struct fee_estimator *fe, const char *datadir)
{
    if (!fe) {
        return;
    }
    char *path = fs_path_join(datadir, "fee_estimates.dat");
    char err[256];
    /* Core's FlushFeeEstimates' lines (the reason is bitnode's). */
    if (fee_estimator_save(fe, path, err, sizeof(err))) {
        LOG_WARN("Failed to write fee estimates to %s. Continue anyway.", path);
        LOG(LOG_CAT_ESTIMATEFEE, LOG_LVL_DEBUG, "fee estimates: %s", err);
    } else {
        LOG(LOG_CAT_ESTIMATEFEE, LOG_LVL_DEBUG, "Flushed fee estimates to %s.", path);
    }
    free(path);
}

struct load_call {
    struct mempool *mp;
    const char *path;
};

static int load_call(struct chainstate *cs, void *ctx)
{
    struct load_call *c = ctx;
    struct mempool_load_stats st;
    char err[256];
    int rc = mempool_load(c->mp, cs, c->path, chainstate_now(cs), 0, 1, 1, &st, err, sizeof(err));
    if (rc == RC_NOT_FOUND) {
        LOG_INFO("Failed to open mempool file. Continuing anyway.");
    } else if (rc) {
        LOG_INFO("Failed to deserialize mempool data on file: %s. Continuing anyway.", err);
    } else {
        LOG_INFO("Imported mempool transactions from file: %lld succeeded, %lld failed, %lld "
                 "expired, %lld already there, %lld waiting for initial broadcast",
                 (long long)st.succeeded, (long long)st.failed, (long long)st.expired,
                 (long long)st.already_there, (long long)st.unbroadcast);
    }
    return RC_OK;
}

void node_mempool_load(struct mempool *mp, struct validator *val, const char *datadir)
{
    if (!mempool_options(mp)->persist) {
        return;
    }
    char *path = fs_path_join(datadir, "mempool.dat");
    struct load_call c = {.mp = mp, .path = path};
    struct validator_job j = {.work = VALIDATOR_CALL, .fn = load_call, .ctx = &c};
    (void)validator_run(val, &j);
    free(path);
}

void node_mempool_dump(struct mempool *mp, const char *datadir, int version)
{
    if (!mp || !mempool_options(mp)->persist) {
        return;
    }
    char *path = fs_path_join(datadir, "mempool.dat");
    char err[256];
    mempool_read_lock(mp);
    size_t n = mempool_count(mp);
    mempool_read_unlock(mp);
    if (mempool_dump(mp, path, version, err, sizeof(err))) {
        LOG_INFO("Failed to dump mempool: %s. Continuing anyway.", err);
    } else {
        LOG_INFO("Dumped mempool: %zu transactions to %s", n, path);
    }
    free(path);
}
