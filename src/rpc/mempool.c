/* The mempool RPC group (Core's rpc/mempool.cpp): submitting and testing transactions, and
 * what the pool holds. Acceptance runs on the validation thread as a job; reads take the
 * pool's read lock (after the chain's, when both are needed). */
#include "rpc/mempool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coins/coin.h"
#include "consensus/amount.h"
#include "mempool/accept.h"
#include "index/txospenderindex.h"
#include "mempool/mempool.h"
#include "mempool/package.h"
#include "mempool/persist.h"
#include "mempool/policy.h"
#include "net/net.h"
#include "rpc/blockchain.h"
#include "rpc/blockjson.h"
#include "rpc/context.h"
#include "rpc/json.h"
#include "rpc/protocol.h"
#include "script/script.h"
#include "util/fs.h"
#include "util/hex.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/chainstate.h"
#include "validation/validator.h"

#define DEFAULT_MAX_RAW_TX_FEE_RATE 10000000 /* sat/kvB: 0.10 BTC/kvB */
#define MAX_PACKAGE_COUNT MEMPOOL_MAX_PACKAGE_COUNT

static struct mempool *pool_or_error(struct rpc_request *req)
{
    if (!req->ctx->node->mempool) {
        rpc_error(req, RPC_CLIENT_MEMPOOL_DISABLED, "Mempool disabled or instance not found");
        return NULL;
    }
    return req->ctx->node->mempool;
}

int64_t rpc_mempool_now(struct rpc_context *ctx)
{
    int64_t t = ctx->node->cs ? chainstate_now(ctx->node->cs) : 0;
    return t ? t : (int64_t)time(NULL);
}

/* Core's ParseFeeRate: an amount per kvB below 1 BTC. Returns 0 with *rate, or -1 after
 * rpc_error. */
static int parse_fee_rate(struct rpc_request *req, const json_t *v, int64_t *rate)
{
    const char *err;
    if (rpc_json_amount_parse(v, rate, &err)) {
        rpc_error(req, RPC_TYPE_ERROR, "%s", err);
        return -1;
    }
    if (*rate >= 100000000) {
        rpc_error(req, RPC_INVALID_PARAMETER,
                  "Fee rates larger than or equal to 1BTC/kvB are not accepted");
        return -1;
    }
    return 0;
}

static int decode_tx(struct tx *tx, const char *hex)
{
    struct buf raw;
    buf_init(&raw);
    if (hex_decode(&raw, hex)) {
        buf_clear(&raw);
        return RC_INVALID;
    }
    int rc = tx_deserialize(tx, raw.data, raw.len, NULL, 0);
    buf_clear(&raw);
    return rc;
}

/* Runs acceptance on the validation thread. */
static int submit(struct rpc_context *ctx, struct mempool_submit *m)
{
    struct validator_job j = {.work = VALIDATOR_CALL, .fn = mempool_accept_job, .ctx = m};
    return validator_run(ctx->node->val, &j);
}

static void state_string(char *out, size_t len, const struct vstate *st)
{
    if (st->debug[0]) {
        snprintf(out, len, "%s, %s", st->reject, st->debug);
    } else {
        snprintf(out, len, "%s", st->reject);
    }
}

static json_t *rpc_sendrawtransaction(struct rpc_request *req)
{
    struct rpc_context *ctx = req->ctx;
    struct mempool *mp = pool_or_error(req);
    struct tx tx;
    int64_t max_rate = DEFAULT_MAX_RAW_TX_FEE_RATE, max_burn = 0;
    const char *err;
    if (!mp) {
        return NULL;
    }
    if (decode_tx(&tx, json_string_value(rpc_param(req, 0)))) {
        return rpc_error(req, RPC_DESERIALIZATION_ERROR,
                         "TX decode failed. Make sure the tx has at least one input.");
    }
    json_t *burn = rpc_param(req, 2);
    if (burn && !json_is_null(burn) && rpc_json_amount_parse(burn, &max_burn, &err)) {
        tx_clear(&tx);
        return rpc_error(req, RPC_TYPE_ERROR, "%s", err);
    }
    for (size_t o = 0; o < tx.vout_count; o++) {
        const struct bytes *spk = &tx.vout[o].script_pubkey;
        if ((script_is_unspendable(spk->data, spk->len) ||
             !script_has_valid_ops(spk->data, spk->len)) &&
            tx.vout[o].value_sat > max_burn) {
            tx_clear(&tx);
            return rpc_error(req, RPC_VERIFY_ERROR,
                             "Unspendable output exceeds maximum configured by user "
                             "(maxburnamount)");
        }
    }
    json_t *fr = rpc_param(req, 1);
    if (fr && !json_is_null(fr) && parse_fee_rate(req, fr, &max_rate)) {
        tx_clear(&tx);
        return NULL;
    }
    uint8_t txid[32], wtxid[32];
    memcpy(txid, tx.txid, 32);
    memcpy(wtxid, tx.wtxid, 32);
    /* Core's BroadcastTransaction: outputs already in the UTXO set, then the pool. */
    for (size_t o = 0; o < tx.vout_count; o++) {
        struct outpoint op;
        struct coin c;
        memcpy(op.txid, txid, 32);
        op.n = (uint32_t)o;
        chainstate_read_lock(ctx->node->cs);
        int rc = chainstate_get_coin(ctx->node->cs, &op, &c);
        chainstate_read_unlock(ctx->node->cs);
        if (rc == RC_OK) {
            coin_clear(&c);
            tx_clear(&tx);
            return rpc_error(req, RPC_VERIFY_ALREADY_IN_CHAIN,
                             "Transaction outputs already in utxo set");
        }
    }
    mempool_read_lock(mp);
    struct mempool_entry *have = mempool_get(mp, txid);
    if (have) {
        memcpy(wtxid, have->tx.wtxid, 32);
    }
    mempool_read_unlock(mp);
    if (!have) {
        int64_t vsize = (int64_t)tx_vsize(&tx);
        int64_t max_fee = max_rate ? (max_rate * vsize + 999) / 1000 : 0;
        struct mempool_submit m = {.mp = mp, .tx = &tx};
        m.args.now = rpc_mempool_now(ctx);
        if (max_fee > 0) {
            m.args.test_only = 1;
            int rc = submit(ctx, &m);
            if (rc) {
                tx_clear(&tx);
                return rpc_error(req, RPC_VERIFY_ERROR, "Mempool internal error (%s)", rc_str(rc));
            }
            if (vstate_is_valid(&m.res.st) && m.res.fee > max_fee) {
                tx_clear(&tx);
                mempool_accept_result_clear(&m.res);
                return rpc_error(req, RPC_VERIFY_ERROR,
                                 "Fee exceeds maximum configured by user (e.g. -maxtxfee, "
                                 "maxfeerate)");
            }
            if (vstate_is_valid(&m.res.st)) {
                mempool_accept_result_clear(&m.res);
                m.args.test_only = 0;
            }
        }
        if (!m.args.test_only) {
            int rc = submit(ctx, &m);
            if (rc) {
                tx_clear(&tx);
                return rpc_error(req, RPC_VERIFY_ERROR, "Mempool internal error (%s)", rc_str(rc));
            }
        }
        if (!vstate_is_valid(&m.res.st)) {
            char msg[VSTATE_REJECT_LEN + VSTATE_DEBUG_LEN + 4];
            state_string(msg, sizeof(msg), &m.res.st);
            int code =
                m.res.kind == MEMPOOL_TX_MISSING_INPUTS ? RPC_VERIFY_ERROR : RPC_VERIFY_REJECTED;
            tx_clear(&tx);
            mempool_accept_result_clear(&m.res);
            return rpc_error(req, code, "%s", msg);
        }
        mempool_accept_result_clear(&m.res);
        mempool_unbroadcast_add(mp, txid); /* until a peer asks for it */
    }
    tx_clear(&tx);
    if (ctx->node->net) {
        net_relay_transaction(ctx->node->net, txid, wtxid);
    }
    return rpc_hash_json(txid);
}

/* ---- submitpackage ---- */

#define MAX_PACKAGE_WEIGHT 404000

/* Core's IsChildWithParentsTree: the last transaction spends every other one, and no other
 * spends another. */
static int child_with_parents_tree(const struct tx *txs, size_t n)
{
    const struct tx *child = &txs[n - 1];
    for (size_t i = 0; i + 1 < n; i++) {
        int spent = 0;
        for (size_t k = 0; k < child->vin_count && !spent; k++) {
            spent = memcmp(child->vin[k].prevout.txid, txs[i].txid, 32) == 0;
        }
        if (!spent) {
            return 0;
        }
        for (size_t j = 0; j + 1 < n; j++) {
            for (size_t k = 0; k < txs[j].vin_count; k++) {
                if (memcmp(txs[j].vin[k].prevout.txid, txs[i].txid, 32) == 0) {
                    return 0;
                }
            }
        }
    }
    return 1;
}

/* Core's IsWellFormedPackage: NULL, or the package-wide reject reason. */
static const char *package_malformed(const struct tx *txs, size_t n)
{
    size_t weight = 0;
    for (size_t i = 0; i < n; i++) {
        weight += tx_weight(&txs[i]);
    }
    if (n > MAX_PACKAGE_COUNT) {
        return "package-too-many-transactions";
    }
    if (n > 1 && weight > MAX_PACKAGE_WEIGHT) {
        return "package-too-large";
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t j = i + 1; j < n; j++) {
            if (memcmp(txs[i].txid, txs[j].txid, 32) == 0) {
                return "package-contains-duplicates";
            }
        }
    }
    for (size_t i = 0; i < n; i++) { /* a transaction spending a later one */
        for (size_t k = 0; k < txs[i].vin_count; k++) {
            for (size_t j = i + 1; j < n; j++) {
                if (memcmp(txs[i].vin[k].prevout.txid, txs[j].txid, 32) == 0) {
                    return "package-not-sorted";
                }
            }
        }
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t j = i; j < n; j++) {
            for (size_t a = 0; a < txs[i].vin_count; a++) {
                for (size_t b = (i == j ? a + 1 : 0); b < txs[j].vin_count; b++) {
                    if (memcmp(&txs[i].vin[a].prevout, &txs[j].vin[b].prevout,
                               sizeof(struct outpoint)) == 0) {
                        return "conflict-in-package";
                    }
                }
            }
        }
    }
    return NULL;
}

static json_t *rpc_testmempoolaccept(struct rpc_request *req)
{
    struct rpc_context *ctx = req->ctx;
    struct mempool *mp = pool_or_error(req);
    json_t *raws = rpc_param(req, 0);
    int64_t max_rate = DEFAULT_MAX_RAW_TX_FEE_RATE;
    if (!mp) {
        return NULL;
    }
    size_t n = json_array_size(raws);
    if (n < 1 || n > MAX_PACKAGE_COUNT) {
        return rpc_error(req, RPC_INVALID_PARAMETER,
                         "Array must contain between 1 and %d transactions.", MAX_PACKAGE_COUNT);
    }
    json_t *fr = rpc_param(req, 1);
    if (fr && !json_is_null(fr) && parse_fee_rate(req, fr, &max_rate)) {
        return NULL;
    }
    struct tx *txs = xcalloc(n, sizeof(*txs));
    for (size_t i = 0; i < n; i++) {
        const char *hex = json_string_value(json_array_get(raws, i));
        if (!hex || decode_tx(&txs[i], hex)) {
            for (size_t k = 0; k < i; k++) {
                tx_clear(&txs[k]);
            }
            free(txs);
            return rpc_error(req, RPC_DESERIALIZATION_ERROR,
                             "TX decode failed: %s Make sure the tx has at least one input.",
                             hex ? hex : "");
        }
    }
    /* Several: a package (Core's ProcessNewPackage with test_accept): well formed, then all
     * of it checked together (mempool_test_package); one alone: Core's ProcessTransaction. */
    const char *pkg_error = n > 1 ? package_malformed(txs, n) : NULL;
    struct mempool_package c = {.mp = mp, .txs = txs, .n = n, .now = rpc_mempool_now(ctx)};
    c.r = xcalloc(n, sizeof(*c.r));
    int rc = RC_OK;
    if (n == 1) {
        struct mempool_submit m = {.mp = mp, .tx = &txs[0]};
        m.args.now = c.now;
        m.args.test_only = 1;
        rc = submit(ctx, &m);
        c.r[0].res = m.res;
        c.r[0].state = vstate_is_valid(&m.res.st) ? PKG_VALID : PKG_INVALID;
    } else if (!pkg_error) {
        struct validator_job j = {.work = VALIDATOR_CALL, .fn = mempool_test_package, .ctx = &c};
        rc = validator_run(ctx->node->val, &j);
        if (c.pstate == PKG_STATE_POLICY) {
            pkg_error = c.msg;
        }
    }
    if (rc) {
        for (size_t k = 0; k < n; k++) {
            tx_clear(&txs[k]);
            mempool_accept_result_clear(&c.r[k].res);
        }
        free(txs);
        free(c.r);
        return rpc_error(req, RPC_VERIFY_ERROR, "Mempool internal error (%s)", rc_str(rc));
    }
    json_t *out = json_array();
    int stop = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_object();
        struct mempool_accept_result *res = &c.r[i].res;
        json_object_set_new(o, "txid", rpc_hash_json(txs[i].txid));
        json_object_set_new(o, "wtxid", rpc_hash_json(txs[i].wtxid));
        if (pkg_error) {
            json_object_set_new(o, "package-error", json_string(pkg_error));
        }
        if (pkg_error || stop || c.r[i].state == PKG_NOT_VALIDATED) {
            json_array_append_new(out, o);
            continue;
        }
        if (c.r[i].state == PKG_VALID) {
            int64_t max_fee = max_rate ? (max_rate * res->vsize + 999) / 1000 : 0;
            if (max_fee && res->fee > max_fee) {
                json_object_set_new(o, "allowed", json_false());
                json_object_set_new(o, "reject-reason", json_string("max-fee-exceeded"));
                stop = 1;
            } else {
                json_object_set_new(o, "allowed", json_true());
                json_object_set_new(o, "vsize_adjusted", json_integer(res->vsize));
                json_object_set_new(o, "vsize", json_integer(res->vsize));
                json_object_set_new(o, "vsize_bip141", json_integer((json_int_t)tx_vsize(&txs[i])));
                json_t *fees = json_object();
                json_object_set_new(fees, "base", rpc_json_amount(res->fee));
                json_object_set_new(fees, "effective-feerate",
                                    rpc_json_amount(res->modified * 1000 / res->vsize));
                json_t *inc = json_array();
                json_array_append_new(inc, rpc_hash_json(txs[i].wtxid));
                json_object_set_new(fees, "effective-includes", inc);
                json_object_set_new(o, "fees", fees);
            }
        } else {
            json_object_set_new(o, "allowed", json_false());
            if (res->kind == MEMPOOL_TX_MISSING_INPUTS) {
                json_object_set_new(o, "reject-reason", json_string("missing-inputs"));
            } else {
                char msg[VSTATE_REJECT_LEN + VSTATE_DEBUG_LEN + 4];
                state_string(msg, sizeof(msg), &res->st);
                json_object_set_new(o, "reject-reason", json_string(res->st.reject));
                json_object_set_new(o, "reject-details", json_string(msg));
            }
        }
        json_array_append_new(out, o);
    }
    for (size_t k = 0; k < n; k++) {
        mempool_accept_result_clear(&c.r[k].res);
    }
    free(c.r);
    for (size_t k = 0; k < n; k++) {
        tx_clear(&txs[k]);
    }
    free(txs);
    return out;
}

static json_t *rpc_submitpackage(struct rpc_request *req)
{
    struct rpc_context *ctx = req->ctx;
    struct mempool *mp = pool_or_error(req);
    json_t *raws = rpc_param(req, 0);
    int64_t max_rate = DEFAULT_MAX_RAW_TX_FEE_RATE, max_burn = 0;
    const char *err;
    if (!mp) {
        return NULL;
    }
    size_t n = json_array_size(raws);
    if (n < 1 || n > MAX_PACKAGE_COUNT) {
        return rpc_error(req, RPC_INVALID_PARAMETER,
                         "Array must contain between 1 and %d transactions.", MAX_PACKAGE_COUNT);
    }
    json_t *fr = rpc_param(req, 1);
    if (fr && !json_is_null(fr) && parse_fee_rate(req, fr, &max_rate)) {
        return NULL;
    }
    json_t *burn = rpc_param(req, 2);
    if (burn && !json_is_null(burn) && rpc_json_amount_parse(burn, &max_burn, &err)) {
        return rpc_error(req, RPC_TYPE_ERROR, "%s", err);
    }
    struct mempool_package c = {.mp = mp, .n = n, .max_feerate = max_rate};
    c.txs = xcalloc(n, sizeof(*c.txs));
    c.r = xcalloc(n, sizeof(*c.r));
    c.now = rpc_mempool_now(ctx);
    json_t *r = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *hex = json_string_value(json_array_get(raws, i));
        if (!hex || decode_tx(&c.txs[i], hex)) {
            rpc_error(req, RPC_DESERIALIZATION_ERROR,
                      "TX decode failed: %s Make sure the tx has at least one input.",
                      hex ? hex : "");
            goto out;
        }
        memcpy(c.r[i].txid, c.txs[i].txid, 32);
        memcpy(c.r[i].wtxid, c.txs[i].wtxid, 32);
        c.r[i].vsize_bip141 = (int64_t)tx_vsize(&c.txs[i]);
        for (size_t o = 0; o < c.txs[i].vout_count; o++) {
            const struct bytes *spk = &c.txs[i].vout[o].script_pubkey;
            if ((script_is_unspendable(spk->data, spk->len) ||
                 !script_has_valid_ops(spk->data, spk->len)) &&
                c.txs[i].vout[o].value_sat > max_burn) {
                rpc_error(req, RPC_VERIFY_ERROR,
                          "Unspendable output exceeds maximum configured by user "
                          "(maxburnamount)");
                goto out;
            }
        }
    }
    if (n > 1 && !child_with_parents_tree(c.txs, n)) {
        rpc_error(req, RPC_VERIFY_ERROR,
                  "package topology disallowed. not child-with-parents or parents depend on each "
                  "other.");
        goto out;
    }
    const char *bad = package_malformed(c.txs, n);
    if (bad) {
        snprintf(c.msg, sizeof(c.msg), "%s", bad);
    } else {
        struct validator_job j = {.work = VALIDATOR_CALL, .fn = mempool_accept_package, .ctx = &c};
        int rc = validator_run(ctx->node->val, &j);
        if (rc) {
            rpc_error(req, RPC_VERIFY_ERROR, "Mempool internal error (%s)", rc_str(rc));
            goto out;
        }
    }
    r = json_object();
    json_object_set_new(r, "package_msg", json_string(c.msg));
    json_t *map = json_object();
    json_t *replaced = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_object();
        char wh[65];
        hex_encode_rev(wh, c.r[i].wtxid, 32);
        json_object_set_new(o, "txid", rpc_hash_json(c.r[i].txid));
        switch (c.r[i].state) {
        case PKG_NOT_VALIDATED:
            json_object_set_new(o, "error", json_string("package-not-validated"));
            break;
        case PKG_OTHER_WITNESS:
            json_object_set_new(o, "other-wtxid", rpc_hash_json(c.r[i].other_wtxid));
            break;
        case PKG_INVALID: {
            char msg[VSTATE_REJECT_LEN + VSTATE_DEBUG_LEN + 4];
            state_string(msg, sizeof(msg), &c.r[i].res.st);
            json_object_set_new(o, "error", json_string(msg));
            break;
        }
        case PKG_VALID:
        case PKG_IN_POOL: {
            json_object_set_new(o, "vsize_adjusted", json_integer(c.r[i].res.vsize));
            json_object_set_new(o, "vsize", json_integer(c.r[i].res.vsize));
            json_object_set_new(o, "vsize_bip141", json_integer(c.r[i].vsize_bip141));
            json_t *fees = json_object();
            json_object_set_new(fees, "base", rpc_json_amount(c.r[i].res.fee));
            if (c.r[i].state == PKG_VALID) {
                json_t *inc = json_array();
                int64_t rate;
                if (c.r[i].in_package_rate) {
                    rate = c.pkg_fee * 1000 / c.pkg_vsize;
                    for (size_t k = 0; k < n; k++) {
                        if (c.r[k].in_package_rate) {
                            json_array_append_new(inc, rpc_hash_json(c.r[k].wtxid));
                        }
                    }
                } else {
                    rate = c.r[i].res.modified * 1000 / c.r[i].res.vsize;
                    json_array_append_new(inc, rpc_hash_json(c.r[i].wtxid));
                }
                json_object_set_new(fees, "effective-feerate", rpc_json_amount(rate));
                json_object_set_new(fees, "effective-includes", inc);
                for (size_t k = 0; k < c.r[i].res.n_replaced; k++) {
                    json_array_append_new(replaced, rpc_hash_json(c.r[i].res.replaced[k]));
                }
            }
            json_object_set_new(o, "fees", fees);
            break;
        }
        }
        json_object_set_new(map, wh, o);
    }
    json_object_set_new(r, "tx-results", map);
    json_object_set_new(r, "replaced-transactions", replaced);
    /* Broadcast what is in the pool now. */
    for (size_t i = 0; i < n; i++) {
        if (c.r[i].state == PKG_VALID || c.r[i].state == PKG_IN_POOL) {
            mempool_unbroadcast_add(mp, c.r[i].txid);
            if (ctx->node->net) {
                net_relay_transaction(ctx->node->net, c.r[i].txid, c.r[i].wtxid);
            }
        }
    }
out:
    for (size_t i = 0; i < n; i++) {
        tx_clear(&c.txs[i]);
        mempool_accept_result_clear(&c.r[i].res);
    }
    free(c.txs);
    free(c.r);
    return r;
}

json_t *rpc_mempool_info_json(struct rpc_context *ctx)
{
    struct mempool *mp = ctx->node->mempool;
    const struct mempool_options *o = mempool_options(mp);
    json_t *r = json_object();
    mempool_read_lock(mp);
    int64_t minfee = mempool_min_fee_at(mp, rpc_mempool_now(ctx));
    if (minfee < o->min_relay_feerate) {
        minfee = o->min_relay_feerate;
    }
    json_object_set_new(r, "loaded", json_boolean(ctx->node->mempool_loaded));
    json_object_set_new(r, "size", json_integer((json_int_t)mempool_count(mp)));
    json_object_set_new(r, "bytes", json_integer(mempool_total_vsize(mp)));
    json_object_set_new(r, "usage", json_integer(mempool_usage(mp)));
    json_object_set_new(r, "total_fee", rpc_json_amount(mempool_total_fee(mp)));
    json_object_set_new(r, "maxmempool", json_integer(o->max_size_bytes));
    json_object_set_new(r, "mempoolminfee", rpc_json_amount(minfee));
    json_object_set_new(r, "minrelaytxfee", rpc_json_amount(o->min_relay_feerate));
    json_object_set_new(r, "incrementalrelayfee", rpc_json_amount(o->incremental_feerate));
    json_object_set_new(r, "unbroadcastcount",
                        json_integer((json_int_t)mempool_unbroadcast_count(mp)));
    json_object_set_new(r, "permitbaremultisig", json_boolean(o->permit_bare_multisig));
    json_object_set_new(r, "maxdatacarriersize",
                        json_integer(o->max_datacarrier < 0 ? 0 : o->max_datacarrier));
    json_object_set_new(r, "limitclustercount", json_integer(o->cluster_count));
    json_object_set_new(r, "limitclustersize", json_integer(o->cluster_size_vbytes));
    json_object_set_new(r, "optimal", json_true());
    if (ctx->node->deprecated_fullrbf) {
        json_object_set_new(r, "fullrbf", json_true());
    }
    mempool_read_unlock(mp);
    return r;
}

static json_t *rpc_getmempoolinfo(struct rpc_request *req)
{
    if (!pool_or_error(req)) {
        return NULL;
    }
    return rpc_mempool_info_json(req->ctx);
}

/* Core's entryToJSON. Pool read lock held. */
/* BIP125 signalling (Core's IsRBFOptIn): the transaction or an in-pool ancestor has an input
 * sequence below 0xfffffffe. */
static int signals_rbf(struct mempool *mp, const struct mempool_entry *e)
{
    for (size_t i = 0; i < e->tx.vin_count; i++) {
        if (e->tx.vin[i].sequence < 0xfffffffeu) {
            return 1;
        }
    }
    size_t n;
    struct mempool_entry **a = mempool_ancestors(mp, e, &n);
    int yes = 0;
    for (size_t k = 0; k < n && !yes; k++) {
        for (size_t i = 0; i < a[k]->tx.vin_count && !yes; i++) {
            yes = a[k]->tx.vin[i].sequence < 0xfffffffeu;
        }
    }
    free(a);
    return yes;
}

static json_t *entry_json(struct mempool *mp, struct mempool_entry *e, int bip125)
{
    json_t *o = json_object();
    int64_t ac, as, af, dc, ds, df, cf, cw;
    mempool_ancestor_sums(mp, e, &ac, &as, &af);
    mempool_descendant_sums(mp, e, &dc, &ds, &df);
    mempool_chunk(mp, e, &cf, &cw);
    json_object_set_new(o, "vsize_adjusted", json_integer(e->vsize));
    json_object_set_new(o, "vsize", json_integer(e->vsize));
    json_object_set_new(o, "vsize_bip141", json_integer((json_int_t)tx_vsize(&e->tx)));
    json_object_set_new(o, "weight", json_integer(e->weight));
    json_object_set_new(o, "time", json_integer(e->time));
    json_object_set_new(o, "height", json_integer(e->height));
    json_object_set_new(o, "descendantcount", json_integer(dc));
    json_object_set_new(o, "descendantsize", json_integer(ds));
    json_object_set_new(o, "ancestorcount", json_integer(ac));
    json_object_set_new(o, "ancestorsize", json_integer(as));
    json_object_set_new(o, "wtxid", rpc_hash_json(e->tx.wtxid));
    json_object_set_new(o, "chunkweight", json_integer(cw));
    json_t *fees = json_object();
    json_object_set_new(fees, "base", rpc_json_amount(e->fee));
    json_object_set_new(fees, "modified", rpc_json_amount(mempool_entry_modified_fee(e)));
    json_object_set_new(fees, "ancestor", rpc_json_amount(af));
    json_object_set_new(fees, "descendant", rpc_json_amount(df));
    json_object_set_new(fees, "chunk", rpc_json_amount(cf));
    json_object_set_new(o, "fees", fees);
    /* depends: a set of txid strings, so sorted as strings. */
    char **dep = xmalloc((e->nparents ? e->nparents : 1) * sizeof(*dep));
    for (size_t i = 0; i < e->nparents; i++) {
        dep[i] = xmalloc(65);
        hex_encode_rev(dep[i], e->parents[i]->tx.txid, 32);
    }
    for (size_t i = 1; i < e->nparents; i++) {
        for (size_t j = i; j > 0 && strcmp(dep[j - 1], dep[j]) > 0; j--) {
            char *t = dep[j];
            dep[j] = dep[j - 1];
            dep[j - 1] = t;
        }
    }
    json_t *d = json_array();
    for (size_t i = 0; i < e->nparents; i++) {
        json_array_append_new(d, json_string(dep[i]));
        free(dep[i]);
    }
    free(dep);
    json_object_set_new(o, "depends", d);
    json_t *sp = json_array();
    for (size_t i = 0; i < e->nchildren; i++) {
        json_array_append_new(sp, rpc_hash_json(e->children[i]->tx.txid));
    }
    json_object_set_new(o, "spentby", sp);
    json_object_set_new(o, "unbroadcast", json_boolean(mempool_unbroadcast_has(mp, e->tx.txid)));
    if (bip125) {
        json_object_set_new(o, "bip125-replaceable", json_boolean(signals_rbf(mp, e)));
    }
    return o;
}

/* Entries in the pool's order of arrival (Core's entryAll is in its own index order). */
static int by_sequence(const void *a, const void *b)
{
    const struct mempool_entry *x = *(struct mempool_entry *const *)a;
    const struct mempool_entry *y = *(struct mempool_entry *const *)b;
    return x->sequence < y->sequence ? -1 : x->sequence > y->sequence;
}

static json_t *rpc_getrawmempool(struct rpc_request *req)
{
    struct mempool *mp = pool_or_error(req);
    if (!mp) {
        return NULL;
    }
    int verbose = json_is_true(rpc_param(req, 0));
    int with_seq = json_is_true(rpc_param(req, 1));
    if (verbose && with_seq) {
        return rpc_error(req, RPC_INVALID_PARAMETER,
                         "Verbose results cannot contain mempool sequence values.");
    }
    mempool_read_lock(mp);
    size_t n;
    struct mempool_entry *const *v = mempool_entries(mp, &n);
    struct mempool_entry **s = xmalloc((n ? n : 1) * sizeof(*s));
    if (n) {
        memcpy(s, v, n * sizeof(*s));
    }
    qsort(s, n, sizeof(*s), by_sequence);
    json_t *r;
    if (verbose) {
        r = json_object();
        for (size_t i = 0; i < n; i++) {
            char h[65];
            hex_encode_rev(h, s[i]->tx.txid, 32);
            json_object_set_new(r, h, entry_json(mp, s[i], req->ctx->node->deprecated_bip125));
        }
    } else {
        json_t *a = json_array();
        for (size_t i = 0; i < n; i++) {
            json_array_append_new(a, rpc_hash_json(s[i]->tx.txid));
        }
        if (with_seq) {
            r = json_object();
            json_object_set_new(r, "txids", a);
            json_object_set_new(r, "mempool_sequence",
                                json_integer((json_int_t)mempool_sequence(mp)));
        } else {
            r = a;
        }
    }
    mempool_read_unlock(mp);
    free(s);
    return r;
}

static json_t *rpc_getmempoolentry(struct rpc_request *req)
{
    struct mempool *mp = pool_or_error(req);
    if (!mp) {
        return NULL;
    }
    mempool_read_lock(mp);
    struct mempool_entry *e = mempool_get(mp, rpc_arg_hash(req, 0));
    json_t *r = e ? entry_json(mp, e, req->ctx->node->deprecated_bip125) : NULL;
    mempool_read_unlock(mp);
    if (!r) {
        return rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Transaction not in mempool");
    }
    return r;
}

static json_t *relatives(struct rpc_request *req, int up)
{
    struct mempool *mp = pool_or_error(req);
    if (!mp) {
        return NULL;
    }
    int verbose = json_is_true(rpc_param(req, 1));
    mempool_read_lock(mp);
    struct mempool_entry *e = mempool_get(mp, rpc_arg_hash(req, 0));
    if (!e) {
        mempool_read_unlock(mp);
        return rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Transaction not in mempool");
    }
    size_t n;
    struct mempool_entry **a = up ? mempool_ancestors(mp, e, &n) : mempool_descendants(mp, e, &n);
    json_t *r = verbose ? json_object() : json_array();
    for (size_t i = 0; i < n; i++) {
        if (verbose) {
            char h[65];
            hex_encode_rev(h, a[i]->tx.txid, 32);
            json_object_set_new(r, h, entry_json(mp, a[i], req->ctx->node->deprecated_bip125));
        } else {
            json_array_append_new(r, rpc_hash_json(a[i]->tx.txid));
        }
    }
    free(a);
    mempool_read_unlock(mp);
    return r;
}

static json_t *rpc_getmempoolancestors(struct rpc_request *req)
{
    return relatives(req, 1);
}

static json_t *rpc_getmempooldescendants(struct rpc_request *req)
{
    return relatives(req, 0);
}

/* gettxspendingprevout's spendingtxid, and with return_spending_tx its spendingtx. */
static void put_spender(json_t *o, const uint8_t txid[32], const uint8_t *raw, size_t len,
                        int with_tx)
{
    json_object_set_new(o, "spendingtxid", rpc_hash_json(txid));
    if (with_tx) {
        char *hx = hex_encode_alloc(raw, len);
        json_object_set_new(o, "spendingtx", json_string(hx));
        free(hx);
    }
}

/* The confirmed spender of op from -txospenderindex into o (nothing when unspent). 0, or an
 * error set on req. */
static int confirmed_spender(struct rpc_request *req, struct txospender_index *spenders,
                             const struct outpoint *op, int with_tx, json_t *o)
{
    int found;
    uint8_t txid[32], block[32];
    struct buf raw;
    buf_init(&raw);
    int rc = txospender_index_find(spenders, op, &found, txid, &raw, block);
    if (rc != RC_OK) {
        char hex[65];
        hex_encode_rev(hex, op->txid, 32);
        rpc_error(req, RPC_MISC_ERROR, "IO error finding spending tx for outpoint %s:%u.", hex,
                  op->n);
    } else if (found) {
        put_spender(o, txid, raw.data, raw.len, with_tx);
        json_object_set_new(o, "blockhash", rpc_hash_json(block));
    }
    buf_clear(&raw);
    return rc;
}

/* gettxspendingprevout's outputs, as Core checks them; NULL after rpc_error. */
static struct outpoint *spent_outpoints(struct rpc_request *req, const json_t *outs, size_t n)
{
    static const struct rpc_obj_key keys[] = {{"txid", JSON_STRING}, {"vout", JSON_INTEGER}};
    struct outpoint *ops = xmalloc(n * sizeof(*ops));
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_array_get(outs, i);
        int64_t vout;
        if (!json_is_object(o)) {
            rpc_error(req, RPC_TYPE_ERROR, "JSON value of type %s is not of expected type object",
                      rpc_json_type_name(o));
        } else if (rpc_check_obj(req, o, keys, 2, 0, 1) == 0 &&
                   rpc_value_hash(req, json_object_get(o, "txid"), "txid", ops[i].txid) == 0 &&
                   rpc_value_int(req, json_object_get(o, "vout"), INT32_MIN, INT32_MAX, &vout) ==
                       0) {
            if (vout >= 0) {
                ops[i].n = (uint32_t)vout;
                continue;
            }
            rpc_error(req, RPC_INVALID_PARAMETER, "Invalid parameter, vout cannot be negative");
        }
        free(ops);
        return NULL;
    }
    return ops;
}

static json_t *rpc_gettxspendingprevout(struct rpc_request *req)
{
    static const struct rpc_obj_key opt_keys[] = {{"mempool_only", JSON_TRUE},
                                                  {"return_spending_tx", JSON_TRUE}};
    struct mempool *mp = pool_or_error(req);
    json_t *outs = rpc_param(req, 0);
    json_t *opts = rpc_param(req, 1);
    if (!mp) {
        return NULL;
    }
    size_t n = json_array_size(outs);
    if (n == 0) {
        return rpc_error(req, RPC_INVALID_PARAMETER, "Invalid parameter, outputs are missing");
    }
    if (opts && rpc_check_obj(req, opts, opt_keys, 2, 1, 1) != 0) {
        return NULL;
    }
    struct outpoint *ops = spent_outpoints(req, outs, n);
    if (!ops) {
        return NULL;
    }
    /* options: mempool_only (default: true without -txospenderindex), return_spending_tx. */
    json_t *mo = json_object_get(opts, "mempool_only");
    json_t *rs = json_object_get(opts, "return_spending_tx");
    struct txospender_index *spenders = req->ctx->node->spenders;
    int mempool_only = mo && !json_is_null(mo) ? json_is_true(mo) : !spenders;
    int with_tx = rs && json_is_true(rs);
    json_t *r = json_array();
    int *unresolved = xcalloc(n, sizeof(*unresolved));
    size_t n_unresolved = 0;
    mempool_read_lock(mp);
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "txid", rpc_hash_json(ops[i].txid));
        json_object_set_new(o, "vout", json_integer(ops[i].n));
        struct mempool_entry *e = mempool_spender(mp, &ops[i]);
        if (e) {
            put_spender(o, e->tx.txid, e->raw, e->raw_len, with_tx);
        } else if (!mempool_only) {
            unresolved[i] = 1;
            n_unresolved++;
        }
        json_array_append_new(r, o);
    }
    mempool_read_unlock(mp);
    if (n_unresolved && (!spenders || !txospender_index_wait_synced(spenders))) {
        free(ops);
        free(unresolved);
        json_decref(r);
        return rpc_error(req, RPC_MISC_ERROR,
                         "Mempool lacks a relevant spend, and txospenderindex is unavailable.");
    }
    for (size_t i = 0; i < n && n_unresolved; i++) {
        if (unresolved[i] && confirmed_spender(req, spenders, &ops[i], with_tx,
                                               json_array_get(r, i)) != RC_OK) {
            json_decref(r);
            r = NULL;
            break;
        }
    }
    free(ops);
    free(unresolved);
    return r;
}

static json_t *rpc_savemempool(struct rpc_request *req)
{
    struct rpc_context *ctx = req->ctx;
    struct mempool *mp = pool_or_error(req);
    char err[256];
    if (!mp) {
        return NULL;
    }
    if (!ctx->node->mempool_loaded) {
        return rpc_error(req, RPC_MISC_ERROR, "The mempool was not loaded yet");
    }
    char *path = fs_path_join(ctx->node->net_dir, "mempool.dat");
    int rc = mempool_dump(mp, path, ctx->node->mempool_dat_version, err, sizeof(err));
    if (rc) {
        free(path);
        return rpc_error(req, RPC_MISC_ERROR, "Unable to dump mempool to disk");
    }
    json_t *r = json_object();
    json_object_set_new(r, "filename", json_string(path));
    free(path);
    return r;
}

struct import_call {
    struct mempool *mp;
    const char *path;
    int use_current_time, apply_deltas, apply_unbroadcast;
    int rc;
    char err[256];
    struct mempool_load_stats st;
};

static int import_call(struct chainstate *cs, void *ctx)
{
    struct import_call *c = ctx;
    c->rc = mempool_load(c->mp, cs, c->path, chainstate_now(cs), c->use_current_time,
                         c->apply_deltas, c->apply_unbroadcast, &c->st, c->err, sizeof(c->err));
    if (c->rc) {
        LOG_INFO("Failed to import mempool file %s: %s", c->path, c->err);
    } else {
        LOG_INFO("Imported mempool transactions from file: %lld succeeded, %lld failed, %lld "
                 "expired, %lld already there, %lld waiting for initial broadcast",
                 (long long)c->st.succeeded, (long long)c->st.failed, (long long)c->st.expired,
                 (long long)c->st.already_there, (long long)c->st.unbroadcast);
    }
    return RC_OK;
}

static json_t *rpc_importmempool(struct rpc_request *req)
{
    struct mempool *mp = pool_or_error(req);
    if (!mp) {
        return NULL;
    }
    if (chainstate_in_ibd(req->ctx->node->cs)) {
        return rpc_error(req, RPC_CLIENT_IN_INITIAL_DOWNLOAD,
                         "Can only import the mempool after the block download and sync is "
                         "done.");
    }
    json_t *opts = rpc_param(req, 1);
    json_t *t = json_object_get(opts, "use_current_time");
    json_t *d = json_object_get(opts, "apply_fee_delta_priority");
    json_t *u = json_object_get(opts, "apply_unbroadcast_set");
    struct import_call c = {.mp = mp,
                            .path = json_string_value(rpc_param(req, 0)),
                            .use_current_time = !json_is_false(t),
                            .apply_deltas = json_is_true(d),
                            .apply_unbroadcast = json_is_true(u)};
    struct validator_job j = {.work = VALIDATOR_CALL, .fn = import_call, .ctx = &c};
    int rc = validator_run(req->ctx->node->val, &j);
    if (rc || c.rc) {
        return rpc_error(req, RPC_MISC_ERROR,
                         "Unable to import mempool file, see debug log for details.");
    }
    return json_object();
}

/* Core's clusterToJSON: the cluster's weight, size and chunks in mining order. */
static json_t *rpc_getmempoolcluster(struct rpc_request *req)
{
    struct mempool *mp = pool_or_error(req);
    if (!mp) {
        return NULL;
    }
    mempool_read_lock(mp);
    struct mempool_entry *e = mempool_get(mp, rpc_arg_hash(req, 0));
    if (!e) {
        mempool_read_unlock(mp);
        return rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Transaction not in mempool");
    }
    size_t n;
    struct mempool_entry **cl = mempool_cluster(mp, e, &n);
    int64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        total += cl[i]->adj_weight;
    }
    json_t *r = json_object();
    json_object_set_new(r, "clusterweight", json_integer(total));
    json_object_set_new(r, "txcount", json_integer((json_int_t)n));
    json_t *chunks = json_array();
    for (size_t i = 0; i < n;) {
        size_t j = i;
        json_t *txs = json_array();
        while (j < n && cl[j]->chunk_id_ == cl[i]->chunk_id_) {
            json_array_append_new(txs, rpc_hash_json(cl[j]->tx.txid));
            j++;
        }
        json_t *c = json_object();
        json_object_set_new(c, "chunkfee", rpc_json_amount(cl[i]->chunk_fee_));
        json_object_set_new(c, "chunkweight", json_integer(cl[i]->chunk_weight_));
        json_object_set_new(c, "txs", txs);
        json_array_append_new(chunks, c);
        i = j;
    }
    json_object_set_new(r, "chunks", chunks);
    free(cl);
    mempool_read_unlock(mp);
    return r;
}

/* The whole pool's fee-rate diagram: cumulative (weight, fee) over its chunks in mining
 * order, from (0, 0). */
static json_t *rpc_getmempoolfeeratediagram(struct rpc_request *req)
{
    struct mempool *mp = pool_or_error(req);
    if (!mp) {
        return NULL;
    }
    mempool_read_lock(mp);
    size_t nc;
    struct mempool_chunk *ch = mempool_all_chunks(mp, &nc);
    mempool_read_unlock(mp);
    json_t *r = json_array();
    int64_t w = 0, f = 0;
    json_array_append_new(
        r, json_pack("{s:I,s:o}", "weight", (json_int_t)0, "fee", rpc_json_amount(0)));
    for (size_t i = 0; i < nc; i++) {
        w += ch[i].weight;
        f += ch[i].fee;
        json_array_append_new(
            r, json_pack("{s:I,s:o}", "weight", (json_int_t)w, "fee", rpc_json_amount(f)));
    }
    mempool_chunks_free(ch, nc);
    return r;
}

struct prio_call {
    struct mempool *mp;
    uint8_t txid[32];
    int64_t delta;
};

static int prio_call(struct chainstate *cs, void *ctx)
{
    struct prio_call *c = ctx;
    (void)cs;
    mempool_write_lock(c->mp);
    mempool_prioritise(c->mp, c->txid, c->delta);
    mempool_write_unlock(c->mp);
    return RC_OK;
}

static json_t *rpc_prioritisetransaction(struct rpc_request *req)
{
    struct mempool *mp = pool_or_error(req);
    if (!mp) {
        return NULL;
    }
    json_t *dummy = rpc_param(req, 1);
    if (dummy && !json_is_null(dummy) && json_number_value(dummy) != 0) {
        return rpc_error(req, RPC_INVALID_PARAMETER,
                         "Priority is no longer supported, dummy argument to "
                         "prioritisetransaction must be 0.");
    }
    struct prio_call c = {.mp = mp, .delta = rpc_arg_int(req, 2)};
    memcpy(c.txid, rpc_arg_hash(req, 0), 32);
    const struct mempool_options *o = mempool_options(mp);
    mempool_read_lock(mp);
    struct mempool_entry *e = mempool_get(mp, c.txid);
    int dust = e && o->require_standard && policy_dust_count(&e->tx, o->dust_relay_feerate) > 0;
    mempool_read_unlock(mp);
    if (dust) {
        return rpc_error(req, RPC_INVALID_PARAMETER,
                         "Priority is not supported for transactions with dust outputs.");
    }
    struct validator_job j = {.work = VALIDATOR_CALL, .fn = prio_call, .ctx = &c};
    int rc = validator_run(req->ctx->node->val, &j);
    if (rc) {
        return rpc_error(req, RPC_MISC_ERROR, "%s", rc_str(rc));
    }
    return json_true();
}

static json_t *rpc_getprioritisedtransactions(struct rpc_request *req)
{
    struct mempool *mp = pool_or_error(req);
    if (!mp) {
        return NULL;
    }
    json_t *r = json_object();
    mempool_read_lock(mp);
    size_t n;
    struct mempool_delta *d = mempool_deltas(mp, &n);
    for (size_t i = 0; i < n; i++) {
        char h[65];
        hex_encode_rev(h, d[i].txid, 32);
        json_t *o = json_object();
        struct mempool_entry *e = mempool_get(mp, d[i].txid);
        json_object_set_new(o, "fee_delta", json_integer(d[i].delta));
        json_object_set_new(o, "in_mempool", json_boolean(e != NULL));
        if (e) {
            json_object_set_new(o, "modified_fee", json_integer(mempool_entry_modified_fee(e)));
        }
        json_object_set_new(r, h, o);
    }
    free(d);
    mempool_read_unlock(mp);
    return r;
}

#define RES(t, k, d)                                                                               \
    {                                                                                              \
        .type = (t), .key = (k), .description = (d)                                                \
    }
#define RES_OPT(t, k, d)                                                                           \
    {                                                                                              \
        .type = (t), .key = (k), .optional = true, .description = (d)                              \
    }

#define ENTRY_RESULTS                                                                              \
    RES(RPC_RES_NUM, "vsize_adjusted",                                                             \
        "Maximum of sigop-adjusted size (-bytespersigop) and virtual transaction size as "         \
        "defined in BIP 141."),                                                                    \
        RES(RPC_RES_NUM, "vsize",                                                                  \
            "(DEPRECATED) Was previously erroneously described as the BIP 141 vsize, but is "      \
            "actually sigops-adjusted vsize.\nUse vsize_bip141 to actually get that behavior or "  \
            "switch to the explicit vsize_adjusted for retained behavior."),                       \
        RES(RPC_RES_NUM, "vsize_bip141",                                                           \
            "Virtual transaction size as defined in BIP 141.\nThis is different from actual "      \
            "serialized size for witness transactions as witness data is discounted."),            \
        RES(RPC_RES_NUM, "weight", "transaction weight as defined in BIP 141."),                   \
        RES(RPC_RES_NUM_TIME, "time",                                                              \
            "local time transaction entered pool in seconds since 1 Jan 1970 GMT"),                \
        RES(RPC_RES_NUM, "height", "block height when transaction entered pool"),                  \
        RES(RPC_RES_NUM, "descendantcount",                                                        \
            "number of in-mempool descendant transactions (including this one)"),                  \
        RES(RPC_RES_NUM, "descendantsize",                                                         \
            "virtual transaction size of in-mempool descendants (including this one)"),            \
        RES(RPC_RES_NUM, "ancestorcount",                                                          \
            "number of in-mempool ancestor transactions (including this one)"),                    \
        RES(RPC_RES_NUM, "ancestorsize",                                                           \
            "virtual transaction size of in-mempool ancestors (including this one)"),              \
        RES(RPC_RES_STR_HEX, "wtxid", "hash of serialized transaction, including witness data"),   \
        RES(RPC_RES_NUM, "chunkweight",                                                            \
            "sigops-adjusted weight (as defined in BIP 141 and modified by '-bytespersigop') of "  \
            "this transaction's chunk"),                                                           \
        {.type = RPC_RES_OBJ,                                                                      \
         .key = "fees",                                                                            \
         .description = "",                                                                        \
         .inner = RPC_LIST(                                                                        \
             struct rpc_result,                                                                    \
             RES(RPC_RES_STR_AMOUNT, "base", "transaction fee, denominated in BTC"),               \
             RES(RPC_RES_STR_AMOUNT, "modified",                                                   \
                 "transaction fee with fee deltas used for mining priority, "                      \
                 "denominated in BTC"),                                                            \
             RES(RPC_RES_STR_AMOUNT, "ancestor",                                                   \
                 "transaction fees of in-mempool ancestors (including this one) "                  \
                 "with fee deltas used for mining priority, denominated in BTC"),                  \
             RES(RPC_RES_STR_AMOUNT, "descendant",                                                 \
                 "transaction fees of in-mempool descendants (including this one) "                \
                 "with fee deltas used for mining priority, denominated in BTC"),                  \
             RES(RPC_RES_STR_AMOUNT, "chunk", "transaction fees of chunk, denominated in BTC"))},  \
        {.type = RPC_RES_ARR,                                                                      \
         .key = "depends",                                                                         \
         .description = "unconfirmed transactions used as inputs for this transaction",            \
         .inner = RPC_LIST(struct rpc_result,                                                      \
                           RES(RPC_RES_STR_HEX, "transactionid", "parent transaction id"))},       \
        {.type = RPC_RES_ARR,                                                                      \
         .key = "spentby",                                                                         \
         .description = "unconfirmed transactions spending outputs from this transaction",         \
         .inner = RPC_LIST(struct rpc_result,                                                      \
                           RES(RPC_RES_STR_HEX, "transactionid", "child transaction id"))},        \
        RES(RPC_RES_BOOL, "unbroadcast",                                                           \
            "Whether this transaction is currently unbroadcast (initial broadcast not yet "        \
            "acknowledged by any peers)"),                                                         \
        RES_OPT(RPC_RES_BOOL, "bip125-replaceable",                                                \
                "Whether this transaction signals BIP125 replaceability or has an unconfirmed "    \
                "ancestor signaling BIP125 replaceability. (DEPRECATED)\n")

#define MAXFEERATE_ARG                                                                             \
    {                                                                                              \
        .names = "maxfeerate", .type = RPC_ARG_AMOUNT, .fallback = RPC_ARG_DEFAULT,                \
        .default_value = "0.10",                                                                   \
        .description =                                                                             \
            "Reject transactions whose fee rate is higher than the specified value, "              \
            "expressed in BTC/kvB.\nFee rates larger than 1BTC/kvB are rejected.\nSet to "         \
            "0 to accept any fee rate."                                                            \
    }

static const struct rpc_method methods[] = {
    {.category = "rawtransactions",
     .name = "sendrawtransaction",
     .handler = rpc_sendrawtransaction,
     .description =
         "Submit a raw transaction (serialized, hex-encoded) to the network.\n\nThe transaction "
         "will be put into the local mempool of the node and will be sent unconditionally to "
         "all currently\nconnected peers, so using sendrawtransaction for manual rebroadcast "
         "will degrade\nprivacy by leaking the transaction's origin, as nodes will normally not\n"
         "rebroadcast non-wallet transactions already in their mempool.\n\nA specific "
         "exception, RPC_TRANSACTION_ALREADY_IN_UTXO_SET, may throw if the transaction cannot "
         "be added to the mempool.\n\nRelated RPCs: createrawtransaction, "
         "signrawtransactionwithkey\n",
     .args = RPC_LIST(
         struct rpc_arg,
         {.names = "hexstring",
          .type = RPC_ARG_STR_HEX,
          .description = "The hex string of the raw transaction"},
         MAXFEERATE_ARG,
         {.names = "maxburnamount",
          .type = RPC_ARG_AMOUNT,
          .fallback = RPC_ARG_DEFAULT,
          .default_value = "0.00",
          .description = "Reject transactions with provably unspendable outputs (e.g. "
                         "'datacarrier' outputs that use the OP_RETURN opcode) greater than the "
                         "specified value, expressed in BTC.\nIf burning funds through "
                         "unspendable outputs is desired, increase this value.\nThis check is "
                         "based on heuristics and does not guarantee spendability of outputs.\n"}),
     .results =
         RPC_LIST(struct rpc_result, RES(RPC_RES_STR_HEX, "", "The transaction hash in hex")),
     .examples = RPC_EXAMPLES("sendrawtransaction", "\"signedhex\"", "\"signedhex\"")},
    {.category = "rawtransactions",
     .name = "testmempoolaccept",
     .handler = rpc_testmempoolaccept,
     .description =
         "Returns result of mempool acceptance tests indicating if raw transaction(s) "
         "(serialized, hex-encoded) would be accepted by mempool.\n\nIf multiple transactions "
         "are passed in, parents must come before children and package policies apply: the "
         "transactions cannot conflict with any mempool transactions or each other.\n\nIf one "
         "transaction fails, other transactions may not be fully validated (the 'allowed' key "
         "will be blank).\n\nThe maximum number of transactions allowed is 25.\n\nThis checks "
         "if transactions violate the consensus or policy rules.\n\nSee sendrawtransaction "
         "call.\n",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "rawtxs",
                       .type = RPC_ARG_ARR,
                       .description = "An array of hex strings of raw transactions.",
                       .inner = RPC_LIST(struct rpc_arg, {.names = "rawtx",
                                                          .type = RPC_ARG_STR_HEX,
                                                          .fallback = RPC_ARG_OMITTED,
                                                          .description = ""})},
                      MAXFEERATE_ARG),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_ARR,
          .key = "",
          .description = "The result of the mempool acceptance test for each raw transaction in "
                         "the input array.\nReturns results for each transaction in the same "
                         "order they were passed in.\nTransactions that cannot be fully validated "
                         "due to failures in other transactions will not contain an 'allowed' "
                         "result.\n",
          .inner = RPC_LIST(
              struct rpc_result,
              {.type = RPC_RES_OBJ,
               .key = "",
               .description = "",
               .inner = RPC_LIST(
                   struct rpc_result, RES(RPC_RES_STR_HEX, "txid", "The transaction hash in hex"),
                   RES(RPC_RES_STR_HEX, "wtxid", "The transaction witness hash in hex"),
                   RES_OPT(RPC_RES_STR, "package-error",
                           "Package validation error, if any (only possible if rawtxs had more "
                           "than 1 transaction)."),
                   RES_OPT(RPC_RES_BOOL, "allowed",
                           "Whether this tx would be accepted to the mempool and pass "
                           "client-specified maxfeerate. If not present, the tx was not fully "
                           "validated due to a failure in another tx in the list."),
                   RES_OPT(RPC_RES_NUM, "vsize_adjusted",
                           "Maximum of sigop-adjusted size (-bytespersigop) and virtual "
                           "transaction size as defined in BIP 141 (only present when 'allowed' "
                           "is true)."),
                   RES_OPT(RPC_RES_NUM, "vsize",
                           "(DEPRECATED) Was previously erroneously described as the BIP 141 "
                           "vsize, but is actually sigops-adjusted vsize."),
                   RES_OPT(RPC_RES_NUM, "vsize_bip141",
                           "Virtual transaction size as defined in BIP 141."),
                   {.type = RPC_RES_OBJ,
                    .key = "fees",
                    .optional = true,
                    .description = "Transaction fees (only present if 'allowed' is true)",
                    .inner = RPC_LIST(
                        struct rpc_result,
                        RES(RPC_RES_STR_AMOUNT, "base", "transaction fee in BTC"),
                        RES(RPC_RES_STR_AMOUNT, "effective-feerate",
                            "the effective feerate in BTC per KvB. May differ from the base "
                            "feerate if, for example, there are modified fees from "
                            "prioritisetransaction or a package feerate was used."),
                        {.type = RPC_RES_ARR,
                         .key = "effective-includes",
                         .description = "transactions whose fees and vsizes are included in "
                                        "effective-feerate.",
                         .inner = RPC_LIST(struct rpc_result,
                                           RES(RPC_RES_STR_HEX, "", "transaction wtxid in hex"))})},
                   RES_OPT(RPC_RES_STR, "reject-reason",
                           "Rejection reason (only present when 'allowed' is false)"),
                   RES_OPT(RPC_RES_STR, "reject-details",
                           "Rejection details (only present when 'allowed' is false and "
                           "rejection details exist)"))})}),
     .examples = RPC_EXAMPLES("testmempoolaccept", "'[\"signedhex\"]'", "[\"signedhex\"]")},
    {.category = "rawtransactions",
     .name = "submitpackage",
     .handler = rpc_submitpackage,
     .description =
         "Submit a package of raw transactions (serialized, hex-encoded) to local node.\nThe "
         "package will be validated according to consensus and mempool policy rules. If any "
         "transaction passes, it will be accepted to mempool.\nThis RPC is experimental and the "
         "interface may be unstable. Refer to doc/policy/packages.md for documentation on "
         "package policies.\nWarning: successful submission does not mean the transactions "
         "will propagate throughout the network.\n",
     .args = RPC_LIST(
         struct rpc_arg,
         {.names = "package",
          .type = RPC_ARG_ARR,
          .description = "An array of raw transactions.\nThe package must consist of a "
                         "transaction with (some, all, or none of) its unconfirmed parents. A "
                         "single transaction is permitted.\nNone of the parents may depend on "
                         "each other. Parents that are already in mempool do not need to be "
                         "present in the package.\nThe package must be topologically sorted, "
                         "with the child being the last element in the array if there are "
                         "multiple elements.",
          .inner = RPC_LIST(struct rpc_arg, {.names = "rawtx",
                                             .type = RPC_ARG_STR_HEX,
                                             .fallback = RPC_ARG_OMITTED,
                                             .description = ""})},
         MAXFEERATE_ARG,
         {.names = "maxburnamount",
          .type = RPC_ARG_AMOUNT,
          .fallback = RPC_ARG_DEFAULT,
          .default_value = "0.00",
          .description = "Reject transactions with provably unspendable outputs (e.g. "
                         "'datacarrier' outputs that use the OP_RETURN opcode) greater than the "
                         "specified value, expressed in BTC.\nIf burning funds through "
                         "unspendable outputs is desired, increase this value.\nThis check is "
                         "based on heuristics and does not guarantee spendability of outputs.\n"}),
     .results =
         RPC_LIST(struct rpc_result,
                  {.type = RPC_RES_OBJ, .key = "", .description = "", .skip_type_check = true}),
     .examples = RPC_EXAMPLES("submitpackage", "'[\"raw-parent-tx\", \"raw-child-tx\"]'",
                              "[\"raw-parent-tx\", \"raw-child-tx\"]")},
    {.category = "blockchain",
     .name = "getmempoolinfo",
     .handler = rpc_getmempoolinfo,
     .description = "Returns details on the active state of the TX memory pool.\n",
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .key = "",
          .description = "",
          .inner = RPC_LIST(
              struct rpc_result,
              RES(RPC_RES_BOOL, "loaded",
                  "True if the initial load attempt of the persisted mempool finished"),
              RES(RPC_RES_NUM, "size", "Current tx count"),
              RES(RPC_RES_NUM, "bytes",
                  "Sum of all virtual transaction sizes as defined in BIP 141. Differs from "
                  "actual serialized size because witness data is discounted"),
              RES(RPC_RES_NUM, "usage", "Total memory usage for the mempool"),
              RES(RPC_RES_STR_AMOUNT, "total_fee",
                  "Total fees for the mempool in BTC, ignoring modified fees through "
                  "prioritisetransaction"),
              RES(RPC_RES_NUM, "maxmempool", "Maximum memory usage for the mempool"),
              RES(RPC_RES_STR_AMOUNT, "mempoolminfee",
                  "Minimum fee rate in BTC/kvB for tx to be accepted. Is the maximum of "
                  "minrelaytxfee and minimum mempool fee"),
              RES(RPC_RES_STR_AMOUNT, "minrelaytxfee",
                  "Current minimum relay fee for transactions"),
              RES(RPC_RES_NUM, "incrementalrelayfee",
                  "minimum fee rate increment for mempool limiting or replacement in BTC/kvB"),
              RES(RPC_RES_NUM, "unbroadcastcount",
                  "Current number of transactions that haven't passed initial broadcast yet"),
              RES(RPC_RES_BOOL, "permitbaremultisig",
                  "True if the mempool accepts transactions with bare multisig outputs"),
              RES(RPC_RES_NUM, "maxdatacarriersize",
                  "Maximum number of bytes that can be used by OP_RETURN outputs in the mempool"),
              RES(RPC_RES_NUM, "limitclustercount",
                  "Maximum number of transactions that can be in a cluster (configured by "
                  "-limitclustercount)"),
              RES(RPC_RES_NUM, "limitclustersize",
                  "Maximum size of a cluster in virtual bytes (configured by -limitclustersize)"),
              RES(RPC_RES_BOOL, "optimal",
                  "If the mempool is in a known-optimal transaction ordering"),
              RES_OPT(RPC_RES_BOOL, "fullrbf",
                      "True if the mempool accepts RBF without replaceability signaling "
                      "inspection (DEPRECATED)"))}),
     .examples = RPC_EXAMPLES("getmempoolinfo", "", "")},
    {.category = "blockchain",
     .name = "getrawmempool",
     .handler = rpc_getrawmempool,
     .description = "Returns all transaction ids in memory pool as a json array of string "
                    "transaction ids.\n\nHint: use getmempoolentry to fetch a specific "
                    "transaction from the mempool.\n",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "verbose",
                       .type = RPC_ARG_BOOL,
                       .fallback = RPC_ARG_DEFAULT,
                       .default_value = "false",
                       .description = "True for a json object, false for array of transaction ids"},
                      {.names = "mempool_sequence",
                       .type = RPC_ARG_BOOL,
                       .fallback = RPC_ARG_DEFAULT,
                       .default_value = "false",
                       .description = "If verbose=false, returns a json object with transaction "
                                      "list and mempool sequence number attached."}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_ARR,
          .key = "",
          .description = "",
          .cond = "for verbose = false",
          .inner = RPC_LIST(struct rpc_result, RES(RPC_RES_STR_HEX, "", "The transaction id"))},
         {.type = RPC_RES_OBJ_DYN,
          .key = "",
          .description = "",
          .cond = "for verbose = true",
          .inner =
              RPC_LIST(struct rpc_result, {.type = RPC_RES_OBJ,
                                           .key = "transactionid",
                                           .description = "",
                                           .inner = RPC_LIST(struct rpc_result, ENTRY_RESULTS)})},
         {.type = RPC_RES_OBJ,
          .key = "",
          .description = "",
          .cond = "for verbose = false and mempool_sequence = true",
          .inner = RPC_LIST(struct rpc_result,
                            {.type = RPC_RES_ARR,
                             .key = "txids",
                             .description = "",
                             .inner = RPC_LIST(struct rpc_result,
                                               RES(RPC_RES_STR_HEX, "", "The transaction id"))},
                            RES(RPC_RES_NUM, "mempool_sequence", "The mempool sequence value."))}),
     .examples = RPC_EXAMPLES("getrawmempool", "true", "true")},
    {.category = "blockchain",
     .name = "getmempoolentry",
     .handler = rpc_getmempoolentry,
     .description = "Returns mempool data for given transaction\n",
     .args = RPC_LIST(struct rpc_arg, {.names = "txid",
                                       .type = RPC_ARG_STR_HEX,
                                       .description = "The transaction id (must be in mempool)",
                                       .conv = RPC_CONV_HASH,
                                       .conv_name = "txid"}),
     .results = RPC_LIST(struct rpc_result, {.type = RPC_RES_OBJ,
                                             .key = "",
                                             .description = "",
                                             .inner = RPC_LIST(struct rpc_result, ENTRY_RESULTS)}),
     .examples = RPC_EXAMPLES("getmempoolentry", "\"mytxid\"", "\"mytxid\"")},
    {.category = "blockchain",
     .name = "getmempoolancestors",
     .handler = rpc_getmempoolancestors,
     .description = "If txid is in the mempool, returns all in-mempool ancestors.\n",
     .args =
         RPC_LIST(struct rpc_arg,
                  {.names = "txid",
                   .type = RPC_ARG_STR_HEX,
                   .description = "The transaction id (must be in mempool)",
                   .conv = RPC_CONV_HASH,
                   .conv_name = "txid"},
                  {.names = "verbose",
                   .type = RPC_ARG_BOOL,
                   .fallback = RPC_ARG_DEFAULT,
                   .default_value = "false",
                   .description = "True for a json object, false for array of transaction ids"}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_ARR,
          .key = "",
          .description = "",
          .cond = "for verbose = false",
          .inner = RPC_LIST(struct rpc_result,
                            RES(RPC_RES_STR_HEX, "",
                                "The transaction id of an in-mempool ancestor transaction"))},
         {.type = RPC_RES_OBJ_DYN,
          .key = "",
          .description = "",
          .cond = "for verbose = true",
          .inner =
              RPC_LIST(struct rpc_result, {.type = RPC_RES_OBJ,
                                           .key = "transactionid",
                                           .description = "",
                                           .inner = RPC_LIST(struct rpc_result, ENTRY_RESULTS)})}),
     .examples = RPC_EXAMPLES("getmempoolancestors", "\"mytxid\"", "\"mytxid\"")},
    {.category = "blockchain",
     .name = "getmempooldescendants",
     .handler = rpc_getmempooldescendants,
     .description = "If txid is in the mempool, returns all in-mempool descendants.\n",
     .args =
         RPC_LIST(struct rpc_arg,
                  {.names = "txid",
                   .type = RPC_ARG_STR_HEX,
                   .description = "The transaction id (must be in mempool)",
                   .conv = RPC_CONV_HASH,
                   .conv_name = "txid"},
                  {.names = "verbose",
                   .type = RPC_ARG_BOOL,
                   .fallback = RPC_ARG_DEFAULT,
                   .default_value = "false",
                   .description = "True for a json object, false for array of transaction ids"}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_ARR,
          .key = "",
          .description = "",
          .cond = "for verbose = false",
          .inner = RPC_LIST(struct rpc_result,
                            RES(RPC_RES_STR_HEX, "",
                                "The transaction id of an in-mempool descendant transaction"))},
         {.type = RPC_RES_OBJ_DYN,
          .key = "",
          .description = "",
          .cond = "for verbose = true",
          .inner =
              RPC_LIST(struct rpc_result, {.type = RPC_RES_OBJ,
                                           .key = "transactionid",
                                           .description = "",
                                           .inner = RPC_LIST(struct rpc_result, ENTRY_RESULTS)})}),
     .examples = RPC_EXAMPLES("getmempooldescendants", "\"mytxid\"", "\"mytxid\"")},
    {.category = "blockchain",
     .name = "gettxspendingprevout",
     .handler = rpc_gettxspendingprevout,
     .description = "Scans the mempool (and the txospenderindex, if available) to find "
                    "transactions spending any of the given outputs",
     .args = RPC_LIST(
         struct rpc_arg,
         {.names = "outputs",
          .type = RPC_ARG_ARR,
          .description = "The transaction outputs that we want to check, and within each, the "
                         "txid (string) vout (numeric).",
          .inner = RPC_LIST(
              struct rpc_arg,
              {.names = "",
               .type = RPC_ARG_OBJ,
               .fallback = RPC_ARG_OMITTED,
               .description = "",
               .inner = RPC_LIST(
                   struct rpc_arg,
                   {.names = "txid", .type = RPC_ARG_STR_HEX, .description = "The transaction id"},
                   {.names = "vout", .type = RPC_ARG_NUM, .description = "The output number"})})},
         {.names = "options",
          .type = RPC_ARG_OBJ_NAMED_PARAMS,
          .fallback = RPC_ARG_OMITTED,
          .description = "",
          .inner =
              RPC_LIST(struct rpc_arg,
                       {.names = "mempool_only",
                        .type = RPC_ARG_BOOL,
                        .fallback = RPC_ARG_DEFAULT_HINT,
                        .default_value = "true if txospenderindex unavailable, otherwise false",
                        .description = "If false and mempool lacks a relevant spend, use "
                                       "txospenderindex (throws an exception if not available)."},
                       {.names = "return_spending_tx",
                        .type = RPC_ARG_BOOL,
                        .fallback = RPC_ARG_DEFAULT_HINT,
                        .default_value = "false",
                        .description = "If true, return the full spending tx."})}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_ARR,
          .key = "",
          .description = "",
          .inner = RPC_LIST(
              struct rpc_result,
              {.type = RPC_RES_OBJ,
               .key = "",
               .description = "",
               .inner = RPC_LIST(
                   struct rpc_result,
                   RES(RPC_RES_STR_HEX, "txid", "the transaction id of the checked output"),
                   RES(RPC_RES_NUM, "vout", "the vout value of the checked output"),
                   RES_OPT(RPC_RES_STR_HEX, "spendingtxid",
                           "the transaction id of the mempool transaction spending this "
                           "output (omitted if unspent)"),
                   RES_OPT(RPC_RES_STR_HEX, "spendingtx",
                           "the transaction spending this output (only if return_spending_tx "
                           "is set, omitted if unspent)"),
                   RES_OPT(RPC_RES_STR_HEX, "blockhash",
                           "the hash of the spending block (omitted if unspent or the spending "
                           "tx is not confirmed)"))})}),
     .examples =
         RPC_EXAMPLES("gettxspendingprevout",
                      "\"[{\\\"txid\\\":\\\"a08e6907dbbd3d809776dbfc5d82e371b764ed838b5655e72f"
                      "463568df1aadf0\\\",\\\"vout\\\":3}]\"",
                      "\"[{\\\"txid\\\":\\\"a08e6907dbbd3d809776dbfc5d82e371b764ed838b5655e72f"
                      "463568df1aadf0\\\",\\\"vout\\\":3}]\"")
             RPC_EXAMPLE_CLI("-named gettxspendingprevout",
                             "outputs='[{\"txid\":\"a08e6907dbbd3d809776dbfc5d82e371b764ed838b5655e"
                             "72f463568df1aadf0\",\"vout\":3}]' return_spending_tx=true")},
    {.category = "blockchain",
     .name = "savemempool",
     .handler = rpc_savemempool,
     .description = "Dumps the mempool to disk. It will fail until the previous dump is fully "
                    "loaded.\n",
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .key = "",
          .description = "",
          .inner = RPC_LIST(struct rpc_result, RES(RPC_RES_STR, "filename",
                                                   "the directory and file where the mempool was "
                                                   "saved"))}),
     .examples = RPC_EXAMPLES("savemempool", "", "")},
    {.category = "blockchain",
     .name = "getmempoolcluster",
     .handler = rpc_getmempoolcluster,
     .description = "Returns mempool data for given cluster\n",
     .args = RPC_LIST(struct rpc_arg, {.names = "txid",
                                       .type = RPC_ARG_STR_HEX,
                                       .description = "The txid of a transaction in the cluster",
                                       .conv = RPC_CONV_HASH,
                                       .conv_name = "txid"}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .key = "",
          .description = "",
          .inner = RPC_LIST(
              struct rpc_result,
              RES(RPC_RES_NUM, "clusterweight",
                  "total sigops-adjusted weight (as defined in BIP 141 and modified by "
                  "'-bytespersigop')"),
              RES(RPC_RES_NUM, "txcount", "number of transactions"),
              {.type = RPC_RES_ARR,
               .key = "chunks",
               .description = "chunks in this cluster (in mining order)",
               .inner = RPC_LIST(
                   struct rpc_result,
                   {.type = RPC_RES_OBJ,
                    .key = "chunk",
                    .description = "",
                    .inner = RPC_LIST(
                        struct rpc_result,
                        RES(RPC_RES_NUM, "chunkfee", "fees of the transactions in this chunk"),
                        RES(RPC_RES_NUM, "chunkweight",
                            "sigops-adjusted weight of all transactions in this chunk"),
                        {.type = RPC_RES_ARR,
                         .key = "txs",
                         .description = "transactions in this chunk in mining order",
                         .inner = RPC_LIST(struct rpc_result,
                                           RES(RPC_RES_STR_HEX, "txid", "transaction id"))})})})}),
     .examples = RPC_EXAMPLES("getmempoolcluster", "txid", "txid")},
    {.category = "hidden",
     .name = "getmempoolfeeratediagram",
     .handler = rpc_getmempoolfeeratediagram,
     .description = "Returns the feerate diagram for the whole mempool.",
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_ARR,
          .key = "",
          .description = "",
          .cond = "mempool chunks",
          .inner = RPC_LIST(
              struct rpc_result,
              {.type = RPC_RES_OBJ,
               .key = "",
               .description = "",
               .inner = RPC_LIST(struct rpc_result,
                                 RES(RPC_RES_NUM, "weight", "cumulative sigops-adjusted weight"),
                                 RES(RPC_RES_NUM, "fee", "cumulative fee"))})}),
     .examples = RPC_EXAMPLES("getmempoolfeeratediagram", "", ""),
     .flags = RPC_METHOD_HIDDEN},
    {.category = "blockchain",
     .name = "importmempool",
     .handler = rpc_importmempool,
     .description = "Import a mempool.dat file and attempt to add its contents to the mempool.\n"
                    "Warning: Importing untrusted files is dangerous, especially if metadata from "
                    "the file is taken over.",
     .args = RPC_LIST(
         struct rpc_arg,
         {.names = "filepath", .type = RPC_ARG_STR, .description = "The mempool file"},
         {.names = "options",
          .type = RPC_ARG_OBJ_NAMED_PARAMS,
          .fallback = RPC_ARG_OMITTED,
          .description = "",
          .oneline = "options",
          .inner = RPC_LIST(
              struct rpc_arg,
              {.names = "use_current_time",
               .type = RPC_ARG_BOOL,
               .fallback = RPC_ARG_DEFAULT,
               .default_value = "true",
               .description = "Whether to use the current system time or use the entry time "
                              "metadata from the mempool file.\nWarning: Importing untrusted "
                              "metadata may lead to unexpected issues and undesirable behavior."},
              {.names = "apply_fee_delta_priority",
               .type = RPC_ARG_BOOL,
               .fallback = RPC_ARG_DEFAULT,
               .default_value = "false",
               .description = "Whether to apply the fee delta metadata from the mempool file.\n"
                              "It will be added to any existing fee deltas.\nThe fee delta can "
                              "be set by the prioritisetransaction RPC.\nWarning: Importing "
                              "untrusted metadata may lead to unexpected issues and undesirable "
                              "behavior.\nOnly set this bool if you understand what it does."},
              {.names = "apply_unbroadcast_set",
               .type = RPC_ARG_BOOL,
               .fallback = RPC_ARG_DEFAULT,
               .default_value = "false",
               .description = "Whether to apply the unbroadcast set metadata from the mempool "
                              "file.\nWarning: Importing untrusted metadata may lead to "
                              "unexpected issues and undesirable behavior."})}),
     .results = RPC_LIST(struct rpc_result, {.type = RPC_RES_OBJ, .key = "", .description = ""}),
     .examples = RPC_EXAMPLES("importmempool", "/path/to/mempool.dat", "/path/to/mempool.dat")},
    {.category = "mining",
     .name = "prioritisetransaction",
     .handler = rpc_prioritisetransaction,
     .description = "Accepts the transaction into mined blocks at a higher (or lower) priority\n",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "txid",
                       .type = RPC_ARG_STR_HEX,
                       .description = "The transaction id.",
                       .conv = RPC_CONV_HASH,
                       .conv_name = "txid"},
                      {.names = "dummy",
                       .type = RPC_ARG_NUM,
                       .fallback = RPC_ARG_OMITTED,
                       .description = "API-Compatibility for previous API. Must be zero or null.\n"
                                      "DEPRECATED. For forward compatibility use named arguments "
                                      "and omit this parameter."},
                      {.names = "fee_delta",
                       .type = RPC_ARG_NUM,
                       .description = "The fee value (in satoshis) to add (or subtract, if "
                                      "negative).\nNote, that this value is not a fee rate. It is "
                                      "a value to modify absolute fee of the TX.\nThe fee is not "
                                      "actually paid, only the algorithm for selecting "
                                      "transactions into a block\nconsiders the transaction as it "
                                      "would have paid a higher (or lower) fee.",
                       .conv = RPC_CONV_INT64}),
     .results = RPC_LIST(struct rpc_result, RES(RPC_RES_BOOL, "", "Returns true")),
     .examples =
         RPC_EXAMPLES("prioritisetransaction", "\"txid\" 0.0 10000", "\"txid\", 0.0, 10000")},
    {.category = "mining",
     .name = "getprioritisedtransactions",
     .handler = rpc_getprioritisedtransactions,
     .description = "Returns a map of all user-created (see prioritisetransaction) fee deltas by "
                    "txid, and whether the tx is present in mempool.",
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ_DYN,
          .key = "",
          .description = "prioritisation keyed by txid",
          .inner = RPC_LIST(
              struct rpc_result,
              {.type = RPC_RES_OBJ,
               .key = "<transactionid>",
               .description = "",
               .inner = RPC_LIST(struct rpc_result,
                                 RES(RPC_RES_NUM, "fee_delta", "transaction fee delta in satoshis"),
                                 RES(RPC_RES_BOOL, "in_mempool",
                                     "whether this transaction is currently in mempool"),
                                 RES_OPT(RPC_RES_NUM, "modified_fee",
                                         "modified fee in satoshis. Only returned if "
                                         "in_mempool=true"))})}),
     .examples = RPC_EXAMPLES("getprioritisedtransactions", "", "")},
};

void rpc_mempool_register(struct rpc_context *ctx)
{
    rpc_register(ctx, methods, sizeof(methods) / sizeof(methods[0]));
}
