/* bitnoded's mempool wiring (bitnoded-mempool.h). */
#include "bitnoded-mempool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "consensus/amount.h"
#include "consensus/tx_check.h"
#include "mempool/accept.h"
#include "mempool/fees.h"
#include "mempool/miner.h"
#include "mempool/persist.h"
#include "mempool/policy.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/chainstate.h"
#include "validation/validator.h"

static int fee_arg(const struct args *a, const char *name, int64_t *out, char *err, size_t err_len)
{
    if (!args_is_set(a, name)) {
        return RC_OK;
    }
    const char *s = args_get(a, name, "");
    int64_t v;
    if (amount_parse_fixed_point(&v, s, 8) || v < 0 || v > 21000000LL * 100000000LL) {
        snprintf(err, err_len, "Invalid amount for -%s=<amount>: '%s'", name, s);
        return RC_INVALID;
    }
    *out = v;
    return RC_OK;
}

int node_mempool_options(struct mempool_options *o, const struct args *a,
                         const struct chain_params *p, int64_t max_mb, char *err, size_t err_len)
{
    mempool_options_default(o);
    o->max_size_bytes = max_mb * 1000000;
    o->expiry_s = args_get_int(a, "mempoolexpiry", 336) * 3600;
    if (fee_arg(a, "incrementalrelayfee", &o->incremental_feerate, err, err_len)) {
        return RC_INVALID;
    }
    if (args_is_set(a, "minrelaytxfee")) {
        if (fee_arg(a, "minrelaytxfee", &o->min_relay_feerate, err, err_len)) {
            return RC_INVALID;
        }
    } else if (o->incremental_feerate > o->min_relay_feerate) {
        o->min_relay_feerate = o->incremental_feerate;
        LOG_INFO("Increasing minrelaytxfee to %lld sat/kvB to match incrementalrelayfee",
                 (long long)o->min_relay_feerate);
    }
    if (fee_arg(a, "dustrelayfee", &o->dust_relay_feerate, err, err_len)) {
        return RC_INVALID;
    }
    o->permit_bare_multisig = args_get_bool(a, "permitbaremultisig", true);
    if (args_get_bool(a, "datacarrier", true)) {
        o->max_datacarrier = args_get_int(a, "datacarriersize", POLICY_MAX_OP_RETURN_RELAY);
    } else {
        o->max_datacarrier = -1;
    }
    o->require_standard = !args_get_bool(a, "acceptnonstdtxn", false);
    if (!o->require_standard && strcmp(p->name, "main") == 0) {
        snprintf(err, err_len, "acceptnonstdtxn is not currently supported for %s chain", p->name);
        return RC_INVALID;
    }
    o->bytes_per_sigop = (unsigned)args_get_int(a, "bytespersigop", POLICY_DEFAULT_BYTES_PER_SIGOP);
    o->cluster_count = (unsigned)args_get_int(a, "limitclustercount", 64);
    if (o->cluster_count > 64) {
        snprintf(err, err_len, "limitclustercount must be less than or equal to %d", 64);
        return RC_INVALID;
    }
    o->cluster_size_vbytes = args_get_int(a, "limitclustersize", 101) * 1000;
    o->persist = args_get_bool(a, "persistmempool", true);
    return RC_OK;
}

int node_miner_options(struct miner_options *o, const struct args *a, const struct chain_params *p,
                       char *err, size_t err_len)
{
    miner_options_default(o);
    o->block_max_weight = args_get_int(a, "blockmaxweight", MAX_BLOCK_WEIGHT);
    o->block_reserved_weight = args_get_int(a, "blockreservedweight", 8000);
    if (o->block_reserved_weight > MAX_BLOCK_WEIGHT) {
        snprintf(err, err_len,
                 "blockreservedweight (%lld) exceeds consensus maximum block "
                 "weight (%d)",
                 (long long)o->block_reserved_weight, MAX_BLOCK_WEIGHT);
        return RC_INVALID;
    }
    if (o->block_reserved_weight < 2000) {
        snprintf(err, err_len, "blockreservedweight (%lld) must be at least %d weight units",
                 (long long)o->block_reserved_weight, 2000);
        return RC_INVALID;
    }
    if (o->block_max_weight > MAX_BLOCK_WEIGHT) {
        snprintf(err, err_len,
                 "Specified -blockmaxweight (%lld) exceeds consensus maximum "
                 "block weight (%d)",
                 (long long)o->block_max_weight, MAX_BLOCK_WEIGHT);
        return RC_INVALID;
    }
    if (fee_arg(a, "blockmintxfee", &o->block_min_feerate, err, err_len)) {
        return RC_INVALID;
    }
    if (strcmp(p->name, "regtest") == 0 && args_is_set(a, "blockversion")) {
        o->have_block_version = 1;
        o->block_version = (int32_t)args_get_int(a, "blockversion", 0);
    }
    return RC_OK;
}

static void on_connected(void *ctx, struct chainstate *cs, const struct block_index *e,
                         const struct block *b)
{
    struct node_pool *np = ctx;
    if (np->fe) {
        /* First: transactions entering after this block are tracked at its height. */
        uint8_t(*ids)[32] = xmalloc((b->tx_count ? b->tx_count : 1) * 32);
        for (size_t i = 0; i < b->tx_count; i++) {
            memcpy(ids[i], b->txs[i].txid, 32);
        }
        (void)fee_estimator_block_connected(np->fe, NULL, (unsigned)e->height,
                                            (const uint8_t(*)[32])ids, b->tx_count);
        free(ids);
    }
    mempool_block_connected(np->mp, cs, b, chainstate_now(cs));
}

static void on_disconnected(void *ctx, struct chainstate *cs, const struct block_index *e,
                            const struct block *b)
{
    struct node_pool *np = ctx;
    (void)e;
    mempool_block_disconnected(np->mp, cs, b, chainstate_now(cs));
}

static void on_added(void *ctx, const struct mempool_entry *e)
{
    struct node_pool *np = ctx;
    chainstate_set_mempool_usage(np->cs, (size_t)mempool_usage(np->mp));
    if (!np->fe) {
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
    (void)fee_estimator_tx_added(np->fe, NULL, &fx);
}

static void on_removed(void *ctx, const struct mempool_entry *e, enum mempool_removal why)
{
    struct node_pool *np = ctx;
    /* Called before e leaves the counts: its own usage is subtracted here. */
    int64_t used = mempool_usage(np->mp) - mempool_entry_usage(e);
    chainstate_set_mempool_usage(np->cs, used > 0 ? (size_t)used : 0);
    if (np->fe && why != MEMPOOL_REMOVED_BLOCK) {
        (void)fee_estimator_tx_removed(np->fe, NULL, e->tx.txid);
    }
}

void node_mempool_hook(struct node_pool *np)
{
    struct chainstate_block_hooks h = {
        .connected = on_connected, .disconnected = on_disconnected, .ctx = np};
    chainstate_set_block_hooks(np->cs, &h);
    struct mempool_listener l = {.added = on_added, .removed = on_removed, .ctx = np};
    mempool_set_listener(np->mp, &l);
}

void node_fees_load(struct fee_estimator *fe, const char *datadir, int accept_stale)
{
    char *path = fs_path_join(datadir, "fee_estimates.dat");
    char err[256];
    int rc = fee_estimator_load(fe, path, (int64_t)time(NULL), accept_stale, err, sizeof(err));
    if (rc == RC_NOT_FOUND) {
        LOG_INFO("%s is not found. Continue anyway.", path);
    } else if (rc) {
        LOG_INFO("Failed to read fee estimates from %s (%s). Continue anyway.", path, err);
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
    char *path = fs_path_join(datadir, "fee_estimates.dat");
    char err[256];
    fee_estimator_flush_unconfirmed(fe);
    if (fee_estimator_save(fe, path, err, sizeof(err))) {
        LOG_INFO("Failed to write fee estimates to %s: %s", path, err);
    } else {
        LOG_INFO("Flushed fee estimates to %s", path);
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
