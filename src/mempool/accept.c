/* Accepting loose transactions and the pool's block hooks (accept.h). The order of the checks
 * and every reject reason follow Bitcoin Core's MemPoolAccept (PreChecks, ReplacementChecks,
 * PolicyScriptChecks, Finalize), so answers match Core's for the same transaction. */
#include "mempool/accept.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coins/coin.h"
#include "consensus/amount.h"
#include "consensus/tx_check.h"
#include "mempool/policy.h"
#include "script/interpreter.h"
#include "script/script.h"
#include "script/script_error.h"
#include "script/sighash.h"
#include "script/sigops.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/chainstate.h"
#include "validation/tx_verify.h"

#define MAX_REPLACEMENT_CANDIDATES 100

static int reject(struct mempool_accept_result *res, enum mempool_tx_result kind,
                  const char *reason, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int reject(struct mempool_accept_result *res, enum mempool_tx_result kind,
                  const char *reason, const char *fmt, ...)
{
    res->kind = kind;
    res->st.mode = VSTATE_INVALID;
    res->st.result = VRESULT_CONSENSUS;
    snprintf(res->st.reject, sizeof(res->st.reject), "%s", reason);
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(res->st.debug, sizeof(res->st.debug), fmt, ap);
        va_end(ap);
    } else {
        res->st.debug[0] = 0;
    }
    return RC_OK;
}

void mempool_accept_result_clear(struct mempool_accept_result *res)
{
    free(res->replaced);
    res->replaced = NULL;
    res->n_replaced = 0;
}

/* The coins a transaction spends: from the pool's transactions, else from the chain. */
struct spent_coins {
    struct coin *c; /* per input; script borrowed (from_pool) or owned */
    uint8_t *from_pool;
    size_t n;
};

static void spent_coins_clear(struct spent_coins *s)
{
    for (size_t i = 0; i < s->n; i++) {
        if (!s->from_pool[i]) {
            coin_clear(&s->c[i]);
        }
    }
    free(s->c);
    free(s->from_pool);
    memset(s, 0, sizeof(*s));
}

/* Core's CheckSequenceLocksAtTip: the block after the tip must be able to hold tx, whose
 * coins from the pool (or the package) count as created in that block. */
static int sequence_locks_at_tip(const struct tx *tx, const struct spent_coins *sc,
                                 struct block_index *tip)
{
    uint32_t one[8];
    uint32_t *heights = tx->vin_count <= 8 ? one : xmalloc(tx->vin_count * sizeof(*heights));
    for (size_t i = 0; i < tx->vin_count; i++) {
        heights[i] = sc->from_pool[i] ? (uint32_t)tip->height + 1 : sc->c[i].height;
    }
    int ok = tx_verify_sequence_locks(tx, heights, tip, block_index_median_time_past(tip));
    if (heights != one) {
        free(heights);
    }
    return ok;
}

static void txid_hex(char out[65], const uint8_t h[32])
{
    hex_encode_rev(out, h, 32);
}

/* Looks up every input's coin. Returns 0 with *missing set to 1 if one has none. */
static int find_coins(struct mempool *mp, struct chainstate *cs, const struct tx *tx,
                      const struct tx *pkg, size_t npkg, struct spent_coins *sc, int *missing)
{
    sc->n = tx->vin_count;
    sc->c = xcalloc(sc->n ? sc->n : 1, sizeof(*sc->c));
    sc->from_pool = xcalloc(sc->n ? sc->n : 1, 1);
    *missing = 0;
    for (size_t i = 0; i < tx->vin_count; i++) {
        const struct outpoint *op = &tx->vin[i].prevout;
        struct mempool_entry *p = mempool_get(mp, op->txid);
        if (p) {
            if (op->n >= p->tx.vout_count) {
                *missing = 1;
                return RC_OK;
            }
            sc->from_pool[i] = 1;
            sc->c[i].value_sat = p->tx.vout[op->n].value_sat;
            sc->c[i].script_pubkey = p->tx.vout[op->n].script_pubkey; /* borrowed */
            sc->c[i].height = 0x7fffffff;
            sc->c[i].coinbase = 0;
            continue;
        }
        /* An earlier transaction of the package being tested (2: borrowed, not a parent in
         * the pool). */
        const struct tx *ptx = NULL;
        for (size_t k = 0; k < npkg && !ptx; k++) {
            if (memcmp(pkg[k].txid, op->txid, 32) == 0) {
                ptx = &pkg[k];
            }
        }
        if (ptx) {
            if (op->n >= ptx->vout_count) {
                *missing = 1;
                return RC_OK;
            }
            sc->from_pool[i] = 2;
            sc->c[i].value_sat = ptx->vout[op->n].value_sat;
            sc->c[i].script_pubkey = ptx->vout[op->n].script_pubkey; /* borrowed */
            sc->c[i].height = 0x7fffffff;
            continue;
        }
        int rc = chainstate_get_coin(cs, op, &sc->c[i]);
        if (rc == RC_NOT_FOUND) {
            *missing = 1;
            return RC_OK;
        }
        if (rc) {
            return rc;
        }
    }
    return RC_OK;
}

/* Core's "txn-already-known": a missing input, and an output of tx is in the UTXO set. */
static int outputs_in_chain(struct chainstate *cs, const struct tx *tx, int *found)
{
    *found = 0;
    for (size_t o = 0; o < tx->vout_count && !*found; o++) {
        struct outpoint op;
        struct coin c;
        memcpy(op.txid, tx->txid, 32);
        op.n = (uint32_t)o;
        int rc = chainstate_get_coin(cs, &op, &c);
        if (rc == RC_OK) {
            coin_clear(&c);
            *found = 1;
        } else if (rc != RC_NOT_FOUND) {
            return rc;
        }
    }
    return RC_OK;
}

static void add_unique(struct mempool_entry ***arr, size_t *n, size_t *cap, struct mempool_entry *e)
{
    for (size_t i = 0; i < *n; i++) {
        if ((*arr)[i] == e) {
            return;
        }
    }
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 8;
        *arr = xrealloc(*arr, *cap * sizeof(**arr));
    }
    (*arr)[(*n)++] = e;
}

/* The script checks with the standard flags (Core's PolicyScriptChecks): the first failing
 * input decides. Successful signature checks go into the cache. */
static int check_scripts(struct chainstate *cs, const struct tx *tx, const struct spent_coins *sc,
                         struct mempool_accept_result *res)
{
    struct tx_out *spent = xmalloc((tx->vin_count ? tx->vin_count : 1) * sizeof(*spent));
    for (size_t i = 0; i < tx->vin_count; i++) {
        spent[i].value_sat = sc->c[i].value_sat;
        spent[i].script_pubkey = sc->c[i].script_pubkey;
    }
    struct tx_precomputed pd;
    sighash_precompute(&pd, tx, spent, tx->vin_count);
    uint32_t flags = policy_standard_script_flags();
    int ok = 1;
    for (size_t i = 0; i < tx->vin_count && ok; i++) {
        enum script_error err = SCRIPT_ERR_OK;
        if (!script_verify_input(tx, i, &spent[i], &pd, flags, chainstate_sigcache(cs), 1, &err)) {
            ok = 0;
            char txid[65];
            txid_hex(txid, tx->txid);
            enum mempool_tx_result kind = MEMPOOL_TX_NOT_STANDARD;
            if (!tx_has_witness(tx) && policy_spends_witness_program(tx, spent)) {
                kind = MEMPOOL_TX_WITNESS_STRIPPED;
            }
            /* Core's detail names the input and the outpoint it spends. */
            char reason[VSTATE_REJECT_LEN], prev[65], wtxid[65];
            snprintf(reason, sizeof(reason), "mempool-script-verify-flag-failed (%s)",
                     script_error_string(err));
            txid_hex(prev, tx->vin[i].prevout.txid);
            txid_hex(wtxid, tx->wtxid);
            reject(res, kind, reason, "input %zu of %s (wtxid %s), spending %s:%u", i, txid, wtxid,
                   prev, tx->vin[i].prevout.n);
        }
    }
    free(spent);
    return ok;
}

/* Core's SingleTRUCChecks (BIP431): a version-3 transaction has at most one unconfirmed
 * parent, itself version 3 with no other child (unless that child can be evicted: *sibling),
 * is at most 10,000 vB (1,000 as a child); version 3 and other versions do not mix. Returns
 * 1 with detail (Core's text) on a violation. */
static int truc_violation(struct mempool *mp, const struct tx *tx,
                          struct mempool_entry *const *parents, size_t npar,
                          struct mempool_entry *const *conflicts, size_t nconf, int64_t vsize,
                          char *detail, size_t detail_len, struct mempool_entry **sibling)
{
    char txid[65], wtxid[65], ptxid[65], pwtxid[65];
    *sibling = NULL;
    txid_hex(txid, tx->txid);
    txid_hex(wtxid, tx->wtxid);
    for (size_t i = 0; i < npar; i++) {
        int pv3 = parents[i]->tx.version == POLICY_TRUC_VERSION;
        int v3 = tx->version == POLICY_TRUC_VERSION;
        if (pv3 != v3) {
            txid_hex(ptxid, parents[i]->tx.txid);
            txid_hex(pwtxid, parents[i]->tx.wtxid);
            snprintf(detail, detail_len,
                     "%sversion=3 tx %s (wtxid=%s) cannot spend from %sversion=3 tx %s (wtxid=%s)",
                     v3 ? "" : "non-", txid, wtxid, v3 ? "non-" : "", ptxid, pwtxid);
            return 1;
        }
    }
    if (tx->version != POLICY_TRUC_VERSION) {
        return 0;
    }
    if (vsize > POLICY_TRUC_MAX_VSIZE) {
        snprintf(detail, detail_len,
                 "version=3 tx %s (wtxid=%s) is too big: %lld > %d virtual bytes", txid, wtxid,
                 (long long)vsize, POLICY_TRUC_MAX_VSIZE);
        return 1;
    }
    if (npar + 1 > 2) {
        snprintf(detail, detail_len, "tx %s (wtxid=%s) would have too many ancestors", txid, wtxid);
        return 1;
    }
    if (npar == 0) {
        return 0;
    }
    int64_t ac, as, af;
    mempool_ancestor_sums(mp, parents[0], &ac, &as, &af);
    if (ac + 1 > 2) {
        snprintf(detail, detail_len, "tx %s (wtxid=%s) would have too many ancestors", txid, wtxid);
        return 1;
    }
    if (vsize > POLICY_TRUC_CHILD_MAX_VSIZE) {
        snprintf(detail, detail_len,
                 "version=3 child tx %s (wtxid=%s) is too big: %lld > %d virtual bytes", txid,
                 wtxid, (long long)vsize, POLICY_TRUC_CHILD_MAX_VSIZE);
        return 1;
    }
    size_t nd;
    struct mempool_entry **desc = mempool_descendants(mp, parents[0], &nd);
    int replaced = 0;
    for (size_t i = 0; i < nd && !replaced; i++) {
        for (size_t k = 0; k < nconf && !replaced; k++) {
            replaced = desc[i] == conflicts[k];
        }
    }
    int bad = 0;
    if (nd + 1 + 1 > 2 && !replaced) {
        if (nd == 1) {
            int64_t c2, s2, f2;
            mempool_ancestor_sums(mp, desc[0], &c2, &s2, &f2);
            if (c2 == 2) {
                *sibling = desc[0];
            }
        }
        txid_hex(ptxid, parents[0]->tx.txid);
        txid_hex(pwtxid, parents[0]->tx.wtxid);
        snprintf(detail, detail_len, "tx %s (wtxid=%s) would exceed descendant count limit", ptxid,
                 pwtxid);
        bad = 1;
    }
    free(desc);
    return bad;
}

/* What one acceptance carries from stage to stage (Core's MemPoolAccept::Workspace). A
 * stage returns 0 or a system error; a stage that rejects the transaction fills res (its
 * st no longer valid) and returns 0, and the stages after it do not run. */
struct workspace {
    struct mempool *mp;
    struct chainstate *cs;
    struct tx *tx;
    const struct mempool_accept_args *args;
    struct mempool_accept_result *res;
    const struct mempool_options *o;
    struct block_index *tip;
    char txid[65];
    struct spent_coins sc;
    struct mempool_entry **conflicts, **all, **parents; /* all: conflicts and descendants */
    size_t nconf, capconf, nall, capall, npar, cappar;
    int64_t fee, sigops, vsize, modified;
    int spends_coinbase;
    const char *sib; /* " (including sibling eviction)" when a TRUC sibling is replaced */
};

/* Core's PreChecks, the part before policy: the transaction alone, its place in the pool
 * (already there, the inputs it would replace), its coins, BIP68 at the next block, and
 * CheckTxInputs. */
static int pre_checks(struct workspace *ws)
{
    const struct mempool_options *o = ws->o;
    struct tx *tx = ws->tx;
    struct mempool_accept_result *res = ws->res;
    int rc;
    if (consensus_check_tx(&res->st, tx)) {
        res->kind = MEMPOOL_TX_CONSENSUS;
        return RC_OK;
    }
    if (tx_is_coinbase(tx)) {
        return reject(res, MEMPOOL_TX_CONSENSUS, "coinbase", NULL);
    }
    const char *why = NULL;
    if (o->require_standard &&
        !policy_is_standard_tx(tx, o->max_datacarrier, o->permit_bare_multisig,
                               o->dust_relay_feerate, &why)) {
        return reject(res, MEMPOOL_TX_NOT_STANDARD, why, NULL);
    }
    if (tx->size_stripped < POLICY_MIN_STANDARD_TX_NONWITNESS_SIZE) {
        return reject(res, MEMPOOL_TX_NOT_STANDARD, "tx-size-small", NULL);
    }
    struct block_index *tip = ws->tip;
    if (!consensus_tx_is_final(tx, tip->height + 1, block_index_median_time_past(tip))) {
        return reject(res, MEMPOOL_TX_PREMATURE_SPEND, "non-final", NULL);
    }
    if (mempool_get_wtxid(ws->mp, tx->wtxid)) {
        return reject(res, MEMPOOL_TX_CONFLICT, "txn-already-in-mempool", NULL);
    }
    if (mempool_get(ws->mp, tx->txid)) {
        return reject(res, MEMPOOL_TX_CONFLICT, "txn-same-nonwitness-data-in-mempool", NULL);
    }
    for (size_t i = 0; i < tx->vin_count; i++) {
        struct mempool_entry *c = mempool_spender(ws->mp, &tx->vin[i].prevout);
        if (c && ws->args->no_replacement) {
            return reject(res, MEMPOOL_TX_MEMPOOL_POLICY, "bip125-replacement-disallowed", NULL);
        }
        if (c) {
            add_unique(&ws->conflicts, &ws->nconf, &ws->capconf, c);
        }
    }
    int missing;
    if ((rc = find_coins(ws->mp, ws->cs, tx, ws->args->package, ws->args->npackage, &ws->sc,
                         &missing))) {
        return rc;
    }
    if (missing) {
        int known;
        if ((rc = outputs_in_chain(ws->cs, tx, &known))) {
            return rc;
        }
        if (known) {
            return reject(res, MEMPOOL_TX_CONFLICT, "txn-already-known", NULL);
        }
        return reject(res, MEMPOOL_TX_MISSING_INPUTS, "bad-txns-inputs-missingorspent", NULL);
    }
    if (!sequence_locks_at_tip(tx, &ws->sc, tip)) {
        return reject(res, MEMPOOL_TX_PREMATURE_SPEND, "non-BIP68-final", NULL);
    }
    for (size_t i = 0; i < tx->vin_count; i++) {
        ws->spends_coinbase |= ws->sc.c[i].coinbase;
    }
    if (tx_verify_inputs(tx, ws->sc.c, tip->height + 1, &res->st, &ws->fee)) {
        res->kind = res->st.result == VRESULT_TX_PREMATURE_SPEND ? MEMPOOL_TX_PREMATURE_SPEND
                                                                 : MEMPOOL_TX_CONSENSUS;
        res->st.result = VRESULT_CONSENSUS;
        return RC_OK;
    }
    res->fee = ws->fee;
    res->have_fee = 1;
    return RC_OK;
}

/* Core's PreChecks, the policy part: standard inputs and witnesses, sigops, the virtual
 * size and the fee it must pay (dust, the pool's minimum, the relay floor), the parents in
 * the pool, and TRUC (v3) topology, where a sibling may be evicted. */
static int pre_checks_policy(struct workspace *ws)
{
    const struct mempool_options *o = ws->o;
    const struct mempool_accept_args *args = ws->args;
    struct tx *tx = ws->tx;
    struct mempool_accept_result *res = ws->res;
    struct tx_out *spent = xmalloc((tx->vin_count ? tx->vin_count : 1) * sizeof(*spent));
    for (size_t i = 0; i < tx->vin_count; i++) {
        spent[i].value_sat = ws->sc.c[i].value_sat;
        spent[i].script_pubkey = ws->sc.c[i].script_pubkey;
    }
    char detail[VSTATE_DEBUG_LEN];
    if (o->require_standard && !policy_inputs_standard(tx, spent, detail, sizeof(detail))) {
        free(spent);
        return reject(res, MEMPOOL_TX_INPUTS_NOT_STANDARD, "bad-txns-nonstandard-inputs", "%s",
                      detail);
    }
    if (o->require_standard && tx_has_witness(tx) && !policy_witness_standard(tx, spent)) {
        free(spent);
        return reject(res, MEMPOOL_TX_WITNESS_MUTATED, "bad-witness-nonstandard", NULL);
    }
    ws->sigops = tx_sigop_cost(tx, spent, policy_standard_script_flags());
    free(spent);
    ws->vsize = policy_vsize((int64_t)tx_weight(tx), ws->sigops, o->bytes_per_sigop);
    ws->modified = amount_add_saturating(
        amount_add_saturating(ws->fee, mempool_delta(ws->mp, tx->txid)), args->fee_delta);
    res->vsize = ws->vsize;
    res->modified = ws->modified;
    res->weight = (int64_t)tx_weight(tx);
    /* Ephemeral dust: a transaction with a dust output must pay nothing itself. */
    if (o->require_standard && policy_dust_count(tx, o->dust_relay_feerate) > 0 &&
        (ws->fee != 0 || ws->modified != 0)) {
        return reject(res, MEMPOOL_TX_NOT_STANDARD, "dust", "tx with dust output must be 0-fee");
    }
    if (ws->sigops > POLICY_MAX_STANDARD_TX_SIGOPS_COST) {
        return reject(res, MEMPOOL_TX_NOT_STANDARD, "bad-txns-too-many-sigops", "%lld",
                      (long long)ws->sigops);
    }
    if (!args->bypass_limits && !args->package_feerate) {
        mempool_write_lock(ws->mp); /* the rolling fee decays as it is read */
        int64_t minrate = mempool_min_fee(ws->mp, args->now);
        mempool_write_unlock(ws->mp);
        int64_t minfee = policy_fee_at(minrate, ws->vsize);
        if (minfee > 0 && ws->modified < minfee) {
            return reject(res, MEMPOOL_TX_RECONSIDERABLE, "mempool min fee not met",
                          "%lld < %lld", (long long)ws->modified, (long long)minfee);
        }
        int64_t relay = policy_fee_at(o->min_relay_feerate, ws->vsize);
        if (ws->modified < relay) {
            return reject(res, MEMPOOL_TX_RECONSIDERABLE, "min relay fee not met", "%lld < %lld",
                          (long long)ws->modified, (long long)relay);
        }
    }
    for (size_t i = 0; i < tx->vin_count; i++) {
        if (ws->sc.from_pool[i] == 1) {
            add_unique(&ws->parents, &ws->npar, &ws->cappar,
                       mempool_get(ws->mp, tx->vin[i].prevout.txid));
        }
    }
    ws->sib = "";
    struct mempool_entry *sibling = NULL;
    if (!args->bypass_limits &&
        truc_violation(ws->mp, tx, ws->parents, ws->npar, ws->conflicts, ws->nconf, ws->vsize,
                       detail, sizeof(detail), &sibling)) {
        if (!sibling || args->no_sibling_eviction) {
            return reject(res, MEMPOOL_TX_MEMPOOL_POLICY, "TRUC-violation", "%s", detail);
        }
        /* Sibling eviction: the parent's other child is replaced, under the RBF rules. */
        add_unique(&ws->conflicts, &ws->nconf, &ws->capconf, sibling);
        ws->sib = " (including sibling eviction)";
    }
    return RC_OK;
}

/* Core's ReplacementChecks' fee rules (3 and 4): the replacement pays at least what it
 * replaces, and on top of that its own relay fee at the incremental feerate. */
static int replacement_fees(struct workspace *ws)
{
    struct mempool_accept_result *res = ws->res;
    int64_t conf_fees = 0;
    for (size_t i = 0; i < ws->nall; i++) {
        conf_fees += mempool_entry_modified_fee(ws->all[i]);
    }
    char a[AMOUNT_FORMAT_LEN], b[AMOUNT_FORMAT_LEN], rwhy[80];
    snprintf(rwhy, sizeof(rwhy), "insufficient fee%s", ws->sib);
    if (ws->modified < conf_fees) {
        amount_format_money(a, ws->modified);
        amount_format_money(b, conf_fees);
        return reject(res, MEMPOOL_TX_RECONSIDERABLE, rwhy,
                      "rejecting replacement %s, less fees than conflicting txs; %s < %s",
                      ws->txid, a, b);
    }
    int64_t additional = ws->modified - conf_fees;
    int64_t relay = policy_fee_at(ws->o->incremental_feerate, ws->vsize);
    if (additional < relay) {
        amount_format_money(a, additional);
        amount_format_money(b, relay);
        return reject(res, MEMPOOL_TX_RECONSIDERABLE, rwhy,
                      "rejecting replacement %s, not enough additional fees to relay; %s < %s",
                      ws->txid, a, b);
    }
    return RC_OK;
}

/* The weight the pool ranks by: the larger of the weight and the sigops' equivalent. */
static int64_t adjusted_weight(const struct workspace *ws)
{
    int64_t w = (int64_t)tx_weight(ws->tx);
    int64_t s = ws->sigops * (int64_t)ws->o->bytes_per_sigop;
    return w > s ? w : s;
}

/* Core's ReplacementChecks: what is replaced (the conflicts and their descendants) touches
 * at most 100 clusters, is not spent by the replacement, pays less, and leaves the pool's
 * feerate diagram better; and the clusters stay within their limits, with or without a
 * replacement. */
static int replacement_checks(struct workspace *ws)
{
    struct mempool *mp = ws->mp;
    struct mempool_accept_result *res = ws->res;
    if (!ws->nconf) {
        if (!ws->args->bypass_limits &&
            !mempool_cluster_within_limits(mp, ws->parents, ws->npar, NULL, 0,
                                           adjusted_weight(ws))) {
            return reject(res, MEMPOOL_TX_MEMPOOL_POLICY, "too-large-cluster", NULL);
        }
        return RC_OK;
    }
    for (size_t i = 0; i < ws->nconf; i++) {
        add_unique(&ws->all, &ws->nall, &ws->capall, ws->conflicts[i]);
        size_t nd;
        struct mempool_entry **d = mempool_descendants(mp, ws->conflicts[i], &nd);
        for (size_t k = 0; k < nd; k++) {
            add_unique(&ws->all, &ws->nall, &ws->capall, d[k]);
        }
        free(d);
    }
    /* Rule 5 (Core's GetEntriesForConflicts): at most 100 distinct clusters touched. */
    size_t nclusters = mempool_count_clusters(mp, ws->all, ws->nall);
    if (nclusters > MAX_REPLACEMENT_CANDIDATES) {
        char rwhy[80];
        snprintf(rwhy, sizeof(rwhy), "too many potential replacements%s", ws->sib);
        return reject(res, MEMPOOL_TX_MEMPOOL_POLICY, rwhy,
                      "rejecting replacement %s; too many conflicting clusters (%zu > %d)",
                      ws->txid, nclusters, MAX_REPLACEMENT_CANDIDATES);
    }
    /* A replacement may not spend what it replaces. */
    for (size_t i = 0; i < ws->npar; i++) {
        for (size_t k = 0; k < ws->nall; k++) {
            if (ws->parents[i] == ws->all[k]) {
                char ph[65];
                txid_hex(ph, ws->all[k]->tx.txid);
                return reject(res, MEMPOOL_TX_CONSENSUS, "bad-txns-spends-conflicting-tx",
                              "%s spends conflicting transaction %s", ws->txid, ph);
            }
        }
    }
    int rc = replacement_fees(ws);
    if (rc || !vstate_is_valid(&res->st)) {
        return rc;
    }
    if (!mempool_cluster_within_limits(mp, ws->parents, ws->npar, ws->all, ws->nall,
                                       adjusted_weight(ws))) {
        return reject(res, MEMPOOL_TX_MEMPOOL_POLICY, "too-large-cluster", NULL);
    }
    mempool_write_lock(mp); /* recomputing chunks: readers must not see it half done */
    int improves = mempool_rbf_improves(mp, ws->all, ws->nall, ws->parents, ws->npar,
                                        ws->modified, adjusted_weight(ws));
    mempool_write_unlock(mp);
    if (!improves) {
        return reject(res, MEMPOOL_TX_RECONSIDERABLE, "replacement-failed",
                      "insufficient feerate: does not improve feerate diagram");
    }
    return RC_OK;
}

/* Core's Finalize: the replaced transactions go, this one comes in (tx is moved into the
 * pool and left empty), and the pool is trimmed back to its size; a transaction trimmed at
 * once is "mempool full". */
static void finalize(struct workspace *ws)
{
    struct mempool *mp = ws->mp;
    struct mempool_accept_result *res = ws->res;
    const struct mempool_accept_args *args = ws->args;
    mempool_write_lock(mp);
    if (ws->nall) {
        res->replaced = xmalloc(ws->nall * sizeof(*res->replaced));
        for (size_t i = 0; i < ws->nall; i++) {
            memcpy(res->replaced[i], ws->all[i]->tx.txid, 32);
        }
        res->n_replaced = ws->nall;
        /* Remove by txid: each removal may free descendants listed later. */
        for (size_t i = 0; i < ws->nall; i++) {
            struct mempool_entry *c = mempool_get(mp, res->replaced[i]);
            if (c) {
                mempool_remove_with_descendants(mp, c, MEMPOOL_REMOVED_REPLACED);
            }
        }
    }
    struct mempool_entry proto;
    memset(&proto, 0, sizeof(proto));
    struct buf raw;
    buf_init(&raw);
    tx_serialize(ws->tx, &raw, 1);
    proto.raw = raw.data;
    proto.raw_len = raw.len;
    proto.adj_weight = adjusted_weight(ws);
    proto.tx = *ws->tx;
    tx_init(ws->tx);
    proto.fee = ws->fee;
    proto.vsize = ws->vsize;
    proto.weight = res->weight;
    proto.sigop_cost = ws->sigops;
    proto.time = args->now;
    proto.height = ws->tip->height;
    proto.spends_coinbase = ws->spends_coinbase;
    proto.bypassed = args->bypass_limits;
    uint8_t id[32];
    memcpy(id, proto.tx.txid, 32);
    if (args->fee_delta) {
        mempool_prioritise(mp, id, args->fee_delta);
    }
    mempool_add(mp, &proto);
    if (!args->bypass_limits && !args->no_trim) {
        int evicted;
        mempool_expire(mp, args->now);
        mempool_trim(mp, args->now, &evicted);
        if (!mempool_get(mp, id)) {
            /* Core's: reconsiderable, a package paying more may still do. */
            reject(res, MEMPOOL_TX_RECONSIDERABLE, "mempool full", NULL);
        }
    }
    mempool_write_unlock(mp);
}

int mempool_accept_tx(struct mempool *mp, struct chainstate *cs, struct tx *tx,
                      const struct mempool_accept_args *args, struct mempool_accept_result *res)
{
    struct workspace ws = {.mp = mp, .cs = cs, .tx = tx, .args = args, .res = res};
    ws.o = mempool_options(mp);
    ws.tip = chainstate_tip(cs);
    memset(res, 0, sizeof(*res));
    vstate_init(&res->st);
    txid_hex(ws.txid, tx->txid);
    int rc;
    if ((rc = pre_checks(&ws)) || !vstate_is_valid(&res->st) ||
        (rc = pre_checks_policy(&ws)) || !vstate_is_valid(&res->st) ||
        (rc = replacement_checks(&ws)) || !vstate_is_valid(&res->st)) {
        goto out;
    }
    /* Core compares the rates (CFeeRate(fee, vsize) > max), not the fees. */
    if (args->max_feerate > 0 && ws.modified * 1000 / ws.vsize > args->max_feerate) {
        reject(res, MEMPOOL_TX_MEMPOOL_POLICY, "max feerate exceeded", NULL);
        goto out;
    }
    size_t bad;
    if (!args->bypass_limits && ws.o->require_standard &&
        !mempool_ephemeral_spends_ok(mp, tx, 1, &bad, res)) {
        goto out;
    }
    if (!check_scripts(cs, tx, &ws.sc, res)) {
        goto out;
    }
    if (!args->test_only) {
        finalize(&ws);
    }
out:
    spent_coins_clear(&ws.sc);
    free(ws.conflicts);
    free(ws.all);
    free(ws.parents);
    return rc;
}

/* ---- stages, for package.c ---- */
struct mempool_stage {
    struct workspace ws;
    struct mempool_accept_args args;
};

int mempool_stage_prechecks(struct mempool *mp, struct chainstate *cs, struct tx *tx,
                            const struct mempool_accept_args *args,
                            struct mempool_accept_result *res, struct mempool_stage **out)
{
    struct mempool_stage *s = xcalloc(1, sizeof(*s));
    *out = s;
    s->args = *args;
    struct workspace *ws = &s->ws;
    ws->mp = mp;
    ws->cs = cs;
    ws->tx = tx;
    ws->args = &s->args;
    ws->res = res;
    ws->o = mempool_options(mp);
    ws->tip = chainstate_tip(cs);
    memset(res, 0, sizeof(*res));
    vstate_init(&res->st);
    txid_hex(ws->txid, tx->txid);
    int rc;
    if ((rc = pre_checks(ws)) || !vstate_is_valid(&res->st)) {
        return rc;
    }
    return pre_checks_policy(ws);
}

void mempool_stage_get(const struct mempool_stage *s, struct mempool_stage_info *info)
{
    info->parents = s->ws.parents;
    info->nparents = s->ws.npar;
    info->conflicts = s->ws.conflicts;
    info->nconflicts = s->ws.nconf;
    info->fee = s->ws.fee;
    info->modified = s->ws.modified;
    info->vsize = s->ws.vsize;
    info->adj_weight = adjusted_weight(&s->ws);
}

int mempool_stage_scripts(struct mempool_stage *s)
{
    return check_scripts(s->ws.cs, s->ws.tx, &s->ws.sc, s->ws.res);
}

void mempool_stage_submit(struct mempool_stage *s)
{
    s->args.no_trim = 1;
    /* The parents looked up at the checks are in the pool still: nothing was removed but the
     * replaced, which the package rules keep apart from them. */
    finalize(&s->ws);
}

void mempool_stage_free(struct mempool_stage *s)
{
    if (!s) {
        return;
    }
    spent_coins_clear(&s->ws.sc);
    free(s->ws.conflicts);
    free(s->ws.all);
    free(s->ws.parents);
    free(s);
}

/* 1 if txs[i] spends every dust output of each of its parents (in txs or the pool). */
static int spends_parent_dust(struct mempool *mp, const struct tx *txs, size_t n, size_t i,
                              int64_t dust_rate)
{
    const struct tx *tx = &txs[i];
    for (size_t k = 0; k < tx->vin_count; k++) {
        const uint8_t *ptxid = tx->vin[k].prevout.txid;
        int seen = 0;
        for (size_t j = 0; j < k && !seen; j++) {
            seen = memcmp(tx->vin[j].prevout.txid, ptxid, 32) == 0;
        }
        if (seen) {
            continue;
        }
        const struct tx *parent = NULL;
        for (size_t j = 0; j < n && !parent; j++) {
            if (memcmp(txs[j].txid, ptxid, 32) == 0) {
                parent = &txs[j];
            }
        }
        if (!parent) {
            struct mempool_entry *e = mempool_get(mp, ptxid);
            parent = e ? &e->tx : NULL;
        }
        for (size_t o = 0; parent && o < parent->vout_count; o++) {
            if (parent->vout[o].value_sat >=
                policy_dust_threshold(&parent->vout[o], dust_rate)) {
                continue;
            }
            int spent = 0;
            for (size_t j = 0; j < tx->vin_count && !spent; j++) {
                spent = tx->vin[j].prevout.n == o &&
                        memcmp(tx->vin[j].prevout.txid, ptxid, 32) == 0;
            }
            if (!spent) {
                return 0;
            }
        }
    }
    return 1;
}

int mempool_ephemeral_spends_ok(struct mempool *mp, const struct tx *txs, size_t n,
                                size_t *bad, struct mempool_accept_result *res)
{
    int64_t rate = mempool_options(mp)->dust_relay_feerate;
    for (size_t i = 0; i < n; i++) {
        if (!spends_parent_dust(mp, txs, n, i, rate)) {
            char txid[65], wtxid[65];
            txid_hex(txid, txs[i].txid);
            txid_hex(wtxid, txs[i].wtxid);
            *bad = i;
            reject(res, MEMPOOL_TX_MEMPOOL_POLICY, "missing-ephemeral-spends",
                   "tx %s (wtxid=%s) did not spend parent's ephemeral dust", txid, wtxid);
            return 0;
        }
    }
    return 1;
}

/* ---- block hooks ---- */
void mempool_block_connected(struct mempool *mp, struct chainstate *cs, const struct block *b,
                             int64_t now)
{
    (void)cs;
    mempool_reorg_done(mp); /* a counter reset: no lock needed (validation thread only) */
    if (mempool_count(mp) == 0) {
        return;
    }
    mempool_write_lock(mp);
    mempool_remove_for_block(mp, b->txs, b->tx_count, now);
    mempool_write_unlock(mp);
}

/* Core's removeForReorg: entries the new tip cannot hold (non-final, BIP68-locked, spending
 * an immature coinbase or a coin that is gone) leave with their descendants. */
static int remove_for_reorg(struct mempool *mp, struct chainstate *cs)
{
    struct block_index *tip = chainstate_tip(cs);
    for (int again = 1; again;) {
        again = 0;
        size_t n;
        struct mempool_entry *const *v = mempool_entries(mp, &n);
        for (size_t i = 0; i < n; i++) {
            struct mempool_entry *e = v[i];
            struct spent_coins sc = {0};
            int missing, bad = 0;
            int rc = find_coins(mp, cs, &e->tx, NULL, 0, &sc, &missing);
            if (rc) {
                spent_coins_clear(&sc);
                return rc;
            }
            if (missing ||
                !consensus_tx_is_final(&e->tx, tip->height + 1,
                                       block_index_median_time_past(tip)) ||
                !sequence_locks_at_tip(&e->tx, &sc, tip)) {
                bad = 1;
            }
            for (size_t k = 0; k < sc.n && !bad; k++) {
                if (!sc.from_pool[k] && !tx_verify_coin_mature(&sc.c[k], tip->height + 1)) {
                    bad = 1;
                }
            }
            spent_coins_clear(&sc);
            if (bad) {
                mempool_remove_with_descendants(mp, e, MEMPOOL_REMOVED_REORG);
                again = 1;
                break;
            }
        }
    }
    return RC_OK;
}

void mempool_block_disconnected(struct mempool *mp, struct chainstate *cs, const struct block *b,
                                int64_t now)
{
    struct mempool_accept_args args = {.now = now, .bypass_limits = 1};
    uint8_t *skip = xcalloc(b->tx_count ? b->tx_count : 1, 1);
    mempool_write_lock(mp);
    mempool_reorg_queue(mp, b->txs, b->tx_count, skip);
    mempool_write_unlock(mp);
    for (size_t t = 1; t < b->tx_count; t++) {
        if (skip[t]) {
            continue;
        }
        struct tx copy;
        struct mempool_accept_result res;
        tx_copy(&copy, &b->txs[t]);
        if (mempool_accept_tx(mp, cs, &copy, &args, &res) == RC_OK) {
            mempool_accept_result_clear(&res);
        }
        tx_clear(&copy);
    }
    free(skip);
    mempool_write_lock(mp);
    remove_for_reorg(mp, cs);
    mempool_trim_clusters(mp, b->txs, b->tx_count);
    int evicted;
    mempool_trim(mp, now, &evicted);
    mempool_write_unlock(mp);
}

int mempool_accept_job(struct chainstate *cs, void *ctx)
{
    struct mempool_submit *m = ctx;
    return mempool_accept_tx(m->mp, cs, m->tx, &m->args, &m->res);
}
