/* Connecting and disconnecting one block against the UTXO set (Core's ConnectBlock and
 * DisconnectBlock): BIP30, inputs present and mature, amounts, BIP68 sequence locks, sigop
 * cost, the coinbase amount, and every input script with the flags of the block's height.
 * Everything the block changes goes into a view the caller throws away if the block is
 * invalid. */
#include <stdio.h>
#include <string.h>

#include "consensus/amount.h"
#include "consensus/tx_check.h"
#include "script/block_verify.h"
#include "script/script_error.h"
#include "script/sigops.h"
#include "util/hex.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/time.h"
#include "util/xmalloc.h"
#include "validation/chainstate_impl.h"
#include "validation/tx_verify.h"

#define BIP34_IMPLIES_BIP30_LIMIT 1983702

struct first_failure {
    int failed;
    size_t tx, in;
    enum script_error err;
};

static void on_script_fail(void *ctx, size_t tx_idx, size_t in_idx, enum script_error err)
{
    struct first_failure *f = ctx;
    if (!f->failed) {
        f->failed = 1;
        f->tx = tx_idx;
        f->in = in_idx;
        f->err = err;
    }
}

static int have_coin(struct coins_cache *view, const struct outpoint *op, int *have)
{
    const struct coin *c;
    int rc = coins_cache_get(view, op, &c);
    if (rc == RC_NOT_FOUND) {
        *have = 0;
        return RC_OK;
    }
    *have = rc == RC_OK;
    return rc;
}

/* BIP30: no transaction may overwrite an unspent output of an earlier one, except in the
 * two historical blocks; BIP34 made it impossible until its height wraps. */
static int check_bip30(const struct chain_params *p, struct block_index *e, const struct block *b,
                       struct coins_cache *view, struct vstate *st)
{
    int enforce = !chain_params_is_bip30_exception(p, e->height, e->hash);
    struct block_index *bip34 = block_index_ancestor(e->prev, p->bip34_height);
    if (bip34 && memcmp(bip34->hash, p->bip34_hash, 32) == 0) {
        enforce = 0;
    }
    if (!enforce && e->height < BIP34_IMPLIES_BIP30_LIMIT) {
        return RC_OK;
    }
    for (size_t t = 0; t < b->tx_count; t++) {
        for (size_t o = 0; o < b->txs[t].vout_count; o++) {
            struct outpoint op;
            int have, rc;
            memcpy(op.txid, b->txs[t].txid, 32);
            op.n = (uint32_t)o;
            if ((rc = have_coin(view, &op, &have))) {
                return rc;
            }
            if (have) {
                return vstate_reject(st, VRESULT_CONSENSUS, REJECT_BAD_TXNS_BIP30,
                                      "tried to overwrite transaction");
            }
        }
    }
    return RC_OK;
}

/* What a block's inputs need: the heights of the coins one transaction spends (BIP68),
 * grown as needed, and the block's fees so far. */
struct spend_ctx {
    struct block_index *e;
    int csv;          /* BIP68 active */
    int64_t prev_mtp; /* the parent's median time past (once per block) */
    uint32_t *heights;
    size_t heights_cap;
    int64_t fees;
};

/* Spends the inputs of tx (not a coinbase) into u (its undo coins), then Core's checks of
 * them (tx_verify_inputs: maturity, value ranges, value in >= value out), the accumulated
 * fees, and BIP68. */
static int spend_inputs(struct spend_ctx *sc, const struct tx *tx, struct coins_cache *view,
                        struct tx_undo *u, struct vstate *st)
{
    struct block_index *e = sc->e;
    char txid[65];
    if (sc->heights_cap < tx->vin_count) {
        sc->heights_cap = tx->vin_count;
        sc->heights = xrealloc(sc->heights, sc->heights_cap * sizeof(*sc->heights));
    }
    u->prev = xcalloc(tx->vin_count ? tx->vin_count : 1, sizeof(struct coin));
    for (size_t i = 0; i < tx->vin_count; i++) {
        int rc = coins_cache_spend(view, &tx->vin[i].prevout, &u->prev[i]);
        if (rc == RC_NOT_FOUND) {
            hex_encode_rev(txid, tx->txid, 32);
            return vstate_reject(st, VRESULT_CONSENSUS, REJECT_BAD_TXNS_INPUTS_MISSINGORSPENT,
                                  "CheckTxInputs: inputs missing/spent in transaction %s", txid);
        }
        if (rc) {
            return rc;
        }
        u->n = i + 1;
        sc->heights[i] = u->prev[i].height;
    }
    int64_t fee;
    struct vstate txst;
    vstate_init(&txst);
    if (tx_verify_inputs(tx, u->prev, e->height, &txst, &fee)) {
        hex_encode_rev(txid, tx->txid, 32);
        return vstate_invalid(st, VRESULT_CONSENSUS, txst.reject, "%s in transaction %s",
                              txst.debug, txid);
    }
    sc->fees += fee;
    if (!amount_in_range(sc->fees)) {
        return vstate_reject(st, VRESULT_CONSENSUS, REJECT_BAD_TXNS_ACCUMULATED_FEE_OUTOFRANGE,
                              "accumulated fee in the block out of range");
    }
    if (sc->csv && !tx_verify_sequence_locks(tx, sc->heights, e->prev, sc->prev_mtp)) {
        hex_encode_rev(txid, tx->txid, 32);
        return vstate_reject(st, VRESULT_CONSENSUS, REJECT_BAD_TXNS_NONFINAL,
                              "contains a non-BIP68-final transaction %s", txid);
    }
    return RC_OK;
}

/* The outputs tx's inputs spend, borrowed from its undo coins (which do not move until the
 * block is done): what the check pool reads. Caller frees the array. */
static struct tx_out *spent_outputs(const struct tx *tx, const struct tx_undo *u)
{
    struct tx_out *so = xmalloc((tx->vin_count ? tx->vin_count : 1) * sizeof(*so));
    for (size_t i = 0; i < tx->vin_count; i++) {
        so[i].value_sat = u->prev[i].value_sat;
        so[i].script_pubkey = u->prev[i].script_pubkey; /* borrowed */
    }
    return so;
}

int chainstate_add_outputs(struct coins_cache *view, const struct tx *tx, int height, int coinbase,
                           int possible_overwrite)
{
    for (size_t o = 0; o < tx->vout_count; o++) {
        struct outpoint op;
        struct coin c = {0};
        const struct bytes *spk = &tx->vout[o].script_pubkey;
        if (coin_script_unspendable(spk->data, spk->len)) {
            continue;
        }
        memcpy(op.txid, tx->txid, 32);
        op.n = (uint32_t)o;
        c.value_sat = tx->vout[o].value_sat;
        c.height = (uint32_t)height;
        c.coinbase = coinbase;
        c.script_pubkey = *spk; /* borrowed: the cache copies it */
        int rc = coins_cache_add(view, &op, &c, possible_overwrite);
        if (rc) {
            return rc;
        }
    }
    return RC_OK;
}

/* The coinbase may pay at most the subsidy and the fees. */
static int check_coinbase_amount(const struct chain_params *p, int height, const struct block *b,
                                 int64_t fees, struct vstate *st)
{
    int64_t reward = fees + amount_block_subsidy(height, p->subsidy_halving_interval);
    int64_t cb_out = 0;
    for (size_t o = 0; o < b->txs[0].vout_count; o++) {
        cb_out += b->txs[0].vout[o].value_sat;
    }
    if (cb_out > reward) {
        return vstate_reject(st, VRESULT_CONSENSUS, REJECT_BAD_CB_AMOUNT,
                              "coinbase pays too much (actual=%lld vs limit=%lld)",
                              (long long)cb_out, (long long)reward);
    }
    return RC_OK;
}

/* A block between chainstate_block_begin and chainstate_block_finish: its inputs spent into
 * the caller's view, its scripts on the pool (or left for finish when there is none). */
struct chainstate_block_connect {
    const struct block *b;
    struct block_undo *undo;
    struct tx_out **spent; /* per transaction, borrowed from undo: what the pool reads */
    size_t nspent_tx;
    uint32_t flags;
    int check_scripts;
    int pooled; /* a block is open on the check pool: finish or cancel it */
};

static void connect_free(struct chainstate *cs, struct chainstate_block_connect *c)
{
    if (c->pooled) {
        checkqueue_block_cancel(cs->checkq); /* before the undo coins it reads go away */
    }
    for (size_t i = 0; i < c->nspent_tx; i++) {
        free(c->spent[i]);
    }
    free(c->spent);
    free(c);
}

/* The scripts' verdict: the pool is joined (the validation thread checks beside the
 * workers), or the checks run here when there is no pool. The verdict is the first failing
 * input in block order, as serial checking gives. */
static int finish_scripts(struct chainstate *cs, struct chainstate_block_connect *c,
                          struct vstate *st)
{
    const struct block *b = c->b;
    struct checkqueue_result res = {0};
    int rc;
    if (!c->check_scripts) {
        cs->scratch.blocks_assumed_valid++;
        return RC_OK;
    }
    if (c->pooled) {
        c->pooled = 0;
        if ((rc = checkqueue_block_finish(cs->checkq, &res))) {
            return rc;
        }
    } else {
        /* No pool (a chainstate made by hand in a test): one call on this thread. */
        size_t n = 0, k = 0;
        for (size_t t = 1; t < b->tx_count; t++) {
            n += b->txs[t].vin_count;
        }
        struct tx_out *all = xmalloc((n + 1) * sizeof(*all));
        for (size_t t = 1; t < b->tx_count; t++) {
            memcpy(all + k, c->spent[t - 1], b->txs[t].vin_count * sizeof(*all));
            k += b->txs[t].vin_count;
        }
        rc = checkqueue_verify_block(NULL, &res, b, all, n, c->flags, cs->sigcache, 0);
        free(all);
        if (rc) {
            return rc;
        }
    }
    struct first_failure ff = {0};
    if (res.failed) {
        on_script_fail(&ff, res.fail_tx, res.fail_in, res.err);
    }
    cs->scratch.inputs_checked += res.inputs_checked;
    if (ff.failed) {
        char txid[65], reject[VSTATE_REJECT_LEN + 64];
        hex_encode_rev(txid, b->txs[ff.tx].txid, 32);
        snprintf(reject, sizeof(reject), REJECT_FMT_BLOCK_SCRIPT_VERIFY_FLAG_FAILED,
                 script_error_string(ff.err));
        return vstate_invalid(st, VRESULT_CONSENSUS, reject, "tx %s input %zu: %s", txid, ff.in,
                              script_error_name(ff.err));
    }
    return RC_OK;
}

/* Core's lines when script checking starts or stops (an -assumevalid boundary), once per
 * change of reason, the first block connected included. */
static void log_script_check_reason(struct chainstate *cs, const struct block_index *e,
                                    const char *why)
{
    if (cs->script_reason_logged && cs->last_script_reason == why) {
        return;
    }
    char hx[65];
    hex_encode_rev(hx, e->hash, 32);
    if (why) {
        LOG_INFO("Enabling script verification at block #%d (%s): %s.", e->height, hx, why);
    } else {
        LOG_INFO("Disabling script verification at block #%d (%s).", e->height, hx);
    }
    cs->script_reason_logged = 1;
    cs->last_script_reason = why;
}

int chainstate_block_begin(struct chainstate *cs, struct block_index *e, const struct block *b,
                           struct coins_cache *view, struct block_undo *undo, struct vstate *st,
                           struct chainstate_block_connect **out)
{
    const struct chain_params *p = cs->p;
    int rc = RC_OK;
    struct spend_ctx sc = {.e = e};
    struct chainstate_block_connect *c = xcalloc(1, sizeof(*c));
    c->b = b;
    c->undo = undo;
    c->check_scripts = 0; /* the genesis block: nothing to check */
    *out = NULL;

    block_undo_init(undo);
    if (e->height == 0) {
        *out = c; /* the genesis outputs are not spendable */
        return RC_OK;
    }
    if ((rc = check_bip30(p, e, b, view, st))) {
        goto fail;
    }
    c->flags = script_block_flags(p, e->height, e->hash);
    sc.csv = e->height >= p->csv_height;
    sc.prev_mtp = sc.csv ? block_index_median_time_past(e->prev) : 0;
    size_t nontrivial = b->tx_count ? b->tx_count - 1 : 0;
    struct tx_undo *tu = block_undo_resize(undo, nontrivial);
    int64_t sigop_cost = 0;
    const char *why = chainstate_script_check_reason(cs, e); /* -assumevalid: scripts only */
    c->check_scripts = why != NULL;
    log_script_check_reason(cs, e, why);
    c->spent = xcalloc(nontrivial + 1, sizeof(*c->spent));
    /* Script checks run on the pool while this thread does the UTXO work of the next
     * transactions (Core's CCheckQueueControl). */
    if (c->check_scripts && cs->checkq) {
        if ((rc = checkqueue_block_begin(cs->checkq, b, c->flags, cs->sigcache, 0))) {
            goto fail;
        }
        c->pooled = 1;
    }
    for (size_t t = 0; t < b->tx_count; t++) {
        const struct tx *tx = &b->txs[t];
        int coinbase = (t == 0);
        if (!coinbase) {
            if ((rc = spend_inputs(&sc, tx, view, &tu[t - 1], st))) {
                goto fail;
            }
            c->spent[c->nspent_tx++] = spent_outputs(tx, &tu[t - 1]);
        }
        /* Sigop cost per transaction, as Core counts it before queueing the scripts. */
        sigop_cost += tx_sigop_cost(tx, coinbase ? NULL : c->spent[t - 1], c->flags);
        if (sigop_cost > MAX_BLOCK_SIGOPS_COST) {
            rc = vstate_reject(st, VRESULT_CONSENSUS, REJECT_BAD_BLK_SIGOPS, "too many sigops");
            goto fail;
        }
        if (c->pooled && !coinbase &&
            (rc = checkqueue_block_add_tx(cs->checkq, t, c->spent[t - 1], tx->vin_count))) {
            goto fail;
        }
        /* Only a coinbase may overwrite (the BIP30 exceptions). */
        if ((rc = chainstate_add_outputs(view, tx, e->height, coinbase, coinbase))) {
            goto fail;
        }
    }
    if ((rc = check_coinbase_amount(p, e->height, b, sc.fees, st))) {
        goto fail;
    }
    free(sc.heights);
    *out = c;
    return RC_OK;
fail:
    free(sc.heights);
    connect_free(cs, c);
    block_undo_clear(undo);
    return rc;
}

void chainstate_block_cancel(struct chainstate *cs, struct chainstate_block_connect *c)
{
    struct block_undo *undo = c->undo;
    connect_free(cs, c); /* the pool's block cancelled before the undo coins it reads go */
    block_undo_clear(undo);
}

int chainstate_block_pooled(const struct chainstate_block_connect *c)
{
    return c->pooled;
}

int chainstate_block_finish(struct chainstate *cs, struct chainstate_block_connect *c,
                            struct vstate *st)
{
    int rc = finish_scripts(cs, c, st);
    if (rc) {
        block_undo_clear(c->undo);
    }
    connect_free(cs, c);
    return rc;
}

int chainstate_connect_block(struct chainstate *cs, struct block_index *e, const struct block *b,
                             struct coins_cache *view, struct block_undo *undo, struct vstate *st)
{
    struct chainstate_block_connect *c;
    int rc = chainstate_block_begin(cs, e, b, view, undo, st, &c);
    return rc ? rc : chainstate_block_finish(cs, c, st);
}

static int same_coin(const struct coin *a, const struct tx_out *out, uint32_t height,
                     int coinbase)
{
    return a->value_sat == out->value_sat && a->height == height && a->coinbase == coinbase &&
           a->script_pubkey.len == out->script_pubkey.len &&
           (out->script_pubkey.len == 0 ||
            memcmp(a->script_pubkey.data, out->script_pubkey.data, out->script_pubkey.len) == 0);
}

int chainstate_disconnect_block(struct chainstate *cs, struct block_index *e, const struct block *b,
                                const struct block_undo *undo, struct coins_cache *view,
                                int unclean)
{
    if (e->height == 0) {
        return RC_OK;
    }
    if (undo->n + 1 != b->tx_count) {
        return RC_CORRUPT;
    }
    for (size_t t = b->tx_count; t-- > 0;) {
        const struct tx *tx = &b->txs[t];
        /* Remove the outputs it created (they must be there, unspent, as created). */
        for (size_t o = 0; o < tx->vout_count; o++) {
            const struct tx_out *out = &tx->vout[o];
            struct outpoint op;
            struct coin moved;
            if (coin_script_unspendable(out->script_pubkey.data, out->script_pubkey.len)) {
                continue;
            }
            memcpy(op.txid, tx->txid, 32);
            op.n = (uint32_t)o;
            int rc = coins_cache_spend(view, &op, &moved);
            if (rc == RC_NOT_FOUND) {
                /* Core tolerates this only for the BIP30 duplicates (and in a replay);
                 * anything else means the UTXO set does not match the chain. */
                if (unclean || chain_params_is_bip30_exception(cs->p, e->height, e->hash)) {
                    continue;
                }
                return RC_CORRUPT;
            }
            if (rc) {
                return rc;
            }
            int ok = same_coin(&moved, out, (uint32_t)e->height, t == 0);
            coin_clear(&moved);
            if (!ok && !unclean) {
                return RC_CORRUPT;
            }
        }
        if (t == 0) {
            break;
        }
        /* Restore what its inputs spent, last input first. */
        const struct tx_undo *u = &undo->txs[t - 1];
        if (u->n != tx->vin_count) {
            return RC_CORRUPT;
        }
        for (size_t i = tx->vin_count; i-- > 0;) {
            int rc = coins_cache_add(view, &tx->vin[i].prevout, &u->prev[i], 1);
            if (rc) {
                return rc;
            }
        }
    }
    return RC_OK;
}

int chainstate_store_undo(struct chainstate *cs, struct block_index *e,
                          const struct block_undo *undo)
{
    if (e->height == 0 || (e->status & BLOCK_HAVE_UNDO)) {
        return RC_OK;
    }
    struct buf ser;
    uint32_t pos;
    buf_init(&ser);
    block_undo_serialize(&ser, undo);
    int rc = blockstore_append_undo(cs->store, e->file, e->prev->hash, ser.data, ser.len, &pos);
    buf_clear(&ser);
    if (rc) {
        LOG_ERROR("writing undo data: %s", blockstore_error(cs->store));
        return rc;
    }
    e->undo_pos = pos;
    e->status |= BLOCK_HAVE_UNDO;
    chainstate_crash_point(cs, "an undo write");
    return RC_OK;
}
