/* The mempool's and the miner's options from the command line and bitcoin.conf
 * (mempool_args.h). */
#include "node/mempool_args.h"

#include <stdio.h>
#include <string.h>

#include "consensus/amount.h"
#include "consensus/tx_check.h"
#include "mempool/policy.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/xmalloc.h"

/* A fee rate in BTC/kvB (Core's ParseMoney), into sat/kvB when the option is set. */
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
    /* Core's CheckMiningOptions, in its order and words. */
    long long rw = (long long)o->block_reserved_weight, mw = (long long)o->block_max_weight;
    if (rw < 2000) {
        snprintf(err, err_len,
                 "-blockreservedweight (%lld) is lower than minimum safety value of (%d)", rw,
                 2000);
        return RC_INVALID;
    }
    if (rw > MAX_BLOCK_WEIGHT || mw > MAX_BLOCK_WEIGHT) {
        snprintf(err, err_len, "%s (%lld) exceeds consensus maximum block weight (%d)",
                 rw > MAX_BLOCK_WEIGHT ? "-blockreservedweight" : "-blockmaxweight",
                 rw > MAX_BLOCK_WEIGHT ? rw : mw, MAX_BLOCK_WEIGHT);
        return RC_INVALID;
    }
    if (rw > mw) {
        snprintf(err, err_len, "-blockreservedweight (%lld) exceeds -blockmaxweight (%lld)", rw,
                 mw);
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

void node_rpc_deprecated(struct node_context *n, const struct args *a)
{
    const char **dep;
    size_t ndep = args_get_list(a, "deprecatedrpc", &dep);
    for (size_t i = 0; i < ndep; i++) {
        n->deprecated_fullrbf |= strcmp(dep[i], "fullrbf") == 0;
        n->deprecated_bip125 |= strcmp(dep[i], "bip125") == 0;
        n->deprecated_warnings |= strcmp(dep[i], "warnings") == 0;
    }
    free(dep);
    n->mempool_dat_version = args_get_bool(a, "persistmempoolv1", false) ? 1 : 2;
}
