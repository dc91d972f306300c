/* Block-level script verification. See block_verify.h. */
#include "script/block_verify.h"

#include <stdlib.h>
#include <string.h>

#include "script/interpreter.h"
#include "script/sighash.h"
#include "script/sigops.h"
#include "util/rc.h"
#include "util/xmalloc.h"

_Static_assert(SCRIPT_VERIFY_P2SH == CHAIN_SCRIPT_VERIFY_P2SH, "flag numbering");
_Static_assert(SCRIPT_VERIFY_WITNESS == CHAIN_SCRIPT_VERIFY_WITNESS, "flag numbering");

uint32_t script_block_flags(const struct chain_params *p, int height, const uint8_t hash32[32])
{
    uint32_t flags = SCRIPT_VERIFY_P2SH | SCRIPT_VERIFY_WITNESS | SCRIPT_VERIFY_TAPROOT;
    uint32_t exc;
    if (chain_params_script_exception(p, hash32, &exc)) {
        flags = exc;
    }
    if (height >= p->bip66_height) {
        flags |= SCRIPT_VERIFY_DERSIG;
    }
    if (height >= p->bip65_height) {
        flags |= SCRIPT_VERIFY_CHECKLOCKTIMEVERIFY;
    }
    if (height >= p->csv_height) {
        flags |= SCRIPT_VERIFY_CHECKSEQUENCEVERIFY;
    }
    if (height >= p->segwit_height) {
        flags |= SCRIPT_VERIFY_NULLDUMMY;
    }
    return flags;
}

/* An open-addressing table from outpoint to output, for the resolver. */
struct op_slot {
    const struct outpoint *op;
    const struct tx_out *out;
};

static size_t op_hash(const struct outpoint *o, size_t mask)
{
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < 32; i++) {
        h = (h ^ o->txid[i]) * 1099511628211ull;
    }
    h = (h ^ o->n) * 1099511628211ull;
    return (size_t)(h & mask);
}

static void op_put(struct op_slot *t, size_t mask, const struct outpoint *op,
                   const struct tx_out *out)
{
    size_t i = op_hash(op, mask);
    while (t[i].op) {
        if (memcmp(t[i].op->txid, op->txid, 32) == 0 && t[i].op->n == op->n) {
            t[i].out = out;
            return;
        }
        i = (i + 1) & mask;
    }
    t[i].op = op;
    t[i].out = out;
}

static const struct tx_out *op_get(const struct op_slot *t, size_t mask, const struct outpoint *op)
{
    size_t i = op_hash(op, mask);
    while (t[i].op) {
        if (memcmp(t[i].op->txid, op->txid, 32) == 0 && t[i].op->n == op->n) {
            return t[i].out;
        }
        i = (i + 1) & mask;
    }
    return NULL;
}

int script_block_resolve_spent(const struct block *b, const struct spent_entry *view,
                               size_t view_count, struct tx_out **spent, size_t *n_spent,
                               size_t *missing_tx, size_t *missing_in)
{
    size_t nin = 0, nout = 0;
    for (size_t t = 0; t < b->tx_count; t++) {
        if (t > 0) {
            nin += b->txs[t].vin_count;
        }
        nout += b->txs[t].vout_count;
    }
    size_t need = (view_count + nout) * 2 + 16, cap = 16;
    while (cap < need) {
        cap *= 2;
    }
    size_t mask = cap - 1;
    struct op_slot *table = xcalloc(cap, sizeof(*table));
    struct outpoint *own = xcalloc(nout + 1, sizeof(*own));
    struct tx_out *res = xcalloc(nin + 1, sizeof(*res));
    size_t k = 0, o = 0;
    int rc = RC_OK;

    for (size_t i = 0; i < view_count; i++) {
        op_put(table, mask, &view[i].prevout, &view[i].out);
    }
    for (size_t t = 0; t < b->tx_count; t++) {
        const struct tx *tx = &b->txs[t];
        if (t > 0) {
            for (size_t i = 0; i < tx->vin_count; i++) {
                const struct tx_out *src = op_get(table, mask, &tx->vin[i].prevout);
                if (!src) {
                    *missing_tx = t;
                    *missing_in = i;
                    rc = RC_NOT_FOUND;
                    goto out;
                }
                res[k++] = *src;
            }
        }
        /* Outputs become spendable by later transactions of the block. */
        for (size_t i = 0; i < tx->vout_count; i++) {
            memcpy(own[o].txid, tx->txid, 32);
            own[o].n = (uint32_t)i;
            op_put(table, mask, &own[o], &tx->vout[i]);
            o++;
        }
    }
out:
    free(table);
    free(own);
    if (rc != RC_OK) {
        free(res);
        return rc;
    }
    *spent = res;
    *n_spent = nin;
    return RC_OK;
}

int script_verify_block(const struct block *b, const struct tx_out *spent, size_t n_spent,
                        uint32_t flags, struct sigcache *sigcache, int sigcache_store,
                        script_block_fail_fn on_fail, void *ctx, struct script_block_result *res)
{
    size_t nin = 0;
    for (size_t t = 1; t < b->tx_count; t++) {
        nin += b->txs[t].vin_count;
    }
    if (nin != n_spent) {
        return RC_USAGE;
    }
    memset(res, 0, sizeof(*res));
    size_t k = 0;
    for (size_t t = 1; t < b->tx_count; t++) {
        const struct tx *tx = &b->txs[t];
        struct tx_precomputed pd;
        sighash_precompute(&pd, tx, spent + k, tx->vin_count);
        for (size_t i = 0; i < tx->vin_count; i++) {
            enum script_error err;
            res->inputs_checked++;
            if (!script_verify_input(tx, i, &spent[k + i], &pd, flags, sigcache, sigcache_store,
                                     &err)) {
                res->inputs_failed++;
                if (on_fail) {
                    on_fail(ctx, t, i, err);
                }
            }
        }
        k += tx->vin_count;
    }
    return RC_OK;
}

size_t script_verify_tx(const struct tx *tx, const struct tx_out *spent, uint32_t flags,
                        struct sigcache *sigcache, enum script_error *errs)
{
    struct tx_precomputed pd;
    size_t failed = 0;
    sighash_precompute(&pd, tx, spent, tx->vin_count);
    for (size_t i = 0; i < tx->vin_count; i++) {
        enum script_error err;
        if (!script_verify_input(tx, i, &spent[i], &pd, flags, sigcache, 0, &err)) {
            failed++;
        }
        if (errs) {
            errs[i] = err;
        }
    }
    return failed;
}

int64_t script_block_sigop_cost(const struct block *b, const struct tx_out *spent,
                                size_t n_spent, uint32_t flags)
{
    size_t k = 0;
    int64_t cost = 0;
    for (size_t t = 0; t < b->tx_count; t++) {
        const struct tx *tx = &b->txs[t];
        if (t == 0) {
            cost += tx_sigop_cost(tx, NULL, flags);
            continue;
        }
        if (k + tx->vin_count > n_spent) {
            return -1;
        }
        cost += tx_sigop_cost(tx, spent + k, flags);
        k += tx->vin_count;
    }
    return k == n_spent ? cost : -1;
}
