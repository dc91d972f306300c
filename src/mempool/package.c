/* Package acceptance (package.h), after Bitcoin Core's AcceptPackage and
 * AcceptMultipleTransactions: the reject reasons, package messages and the order of the
 * checks follow Core's so that submitpackage and testmempoolaccept answer as Core does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consensus/amount.h"
#include "mempool/mempool.h"
#include "mempool/package.h"
#include "mempool/policy.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#define MAX_REPLACEMENT_CLUSTERS 100

static void set_state(struct mempool_accept_result *res, enum mempool_tx_result kind,
                      const char *reason, const char *debug)
{
    vstate_init(&res->st);
    res->st.mode = VSTATE_INVALID;
    res->kind = kind;
    snprintf(res->st.reject, sizeof(res->st.reject), "%s", reason);
    snprintf(res->st.debug, sizeof(res->st.debug), "%s", debug ? debug : "");
}

/* The package verdict and its message: reason, or "reason, debug" (Core's ToString). */
static void package_fail(struct mempool_package *c, enum pkg_state st, const char *reason,
                         const char *debug)
{
    c->pstate = st;
    if (debug && *debug) {
        snprintf(c->msg, sizeof(c->msg), "%s, %s", reason, debug);
    } else {
        snprintf(c->msg, sizeof(c->msg), "%s", reason);
    }
}

/* The number of package transactions before k that tx k spends. */
static size_t package_parent_count(const struct tx *const *txs, size_t k, long *first)
{
    size_t n = 0;
    *first = -1;
    for (size_t i = 0; i < k; i++) {
        for (size_t v = 0; v < txs[k]->vin_count; v++) {
            if (memcmp(txs[k]->vin[v].prevout.txid, txs[i]->txid, 32) == 0) {
                if (*first < 0) {
                    *first = (long)i;
                }
                n++;
                break;
            }
        }
    }
    return n;
}

static void ids_hex(char txid[65], char wtxid[65], const struct tx *tx)
{
    hex_encode_rev(txid, tx->txid, 32);
    hex_encode_rev(wtxid, tx->wtxid, 32);
}

/* Core's PackageTRUCChecks for txs[k], whose in-pool parents are par[0..npar). Returns 1 with
 * detail filled on a violation. */
static int package_truc(struct mempool *mp, const struct tx *const *txs, size_t m, size_t k,
                        struct mempool_entry *const *par, size_t npar, int64_t vsize,
                        char *detail, size_t len)
{
    const struct tx *tx = txs[k];
    char t[65], w[65], pt[65], pw[65];
    ids_hex(t, w, tx);
    long first;
    size_t npkg = package_parent_count(txs, k, &first);
    if (tx->version != POLICY_TRUC_VERSION) {
        for (size_t i = 0; i < npar; i++) {
            if (par[i]->tx.version == POLICY_TRUC_VERSION) {
                ids_hex(pt, pw, &par[i]->tx);
                snprintf(detail, len,
                         "non-version=3 tx %s (wtxid=%s) cannot spend from version=3 tx %s "
                         "(wtxid=%s)",
                         t, w, pt, pw);
                return 1;
            }
        }
        for (size_t i = 0; i < k; i++) {
            int spends = 0;
            for (size_t v = 0; v < tx->vin_count && !spends; v++) {
                spends = memcmp(tx->vin[v].prevout.txid, txs[i]->txid, 32) == 0;
            }
            if (spends && txs[i]->version == POLICY_TRUC_VERSION) {
                ids_hex(pt, pw, txs[i]);
                snprintf(detail, len,
                         "non-version=3 tx %s (wtxid=%s) cannot spend from version=3 tx %s "
                         "(wtxid=%s)",
                         t, w, pt, pw);
                return 1;
            }
        }
        return 0;
    }
    if (npar + npkg + 1 > 2) {
        snprintf(detail, len, "tx %s (wtxid=%s) would have too many ancestors", t, w);
        return 1;
    }
    if (npar) {
        int64_t ac, as, af;
        mempool_ancestor_sums(mp, par[0], &ac, &as, &af);
        if (ac + (int64_t)npkg + 1 > 2) {
            snprintf(detail, len, "tx %s (wtxid=%s) would have too many ancestors", t, w);
            return 1;
        }
    }
    if (npar + npkg == 0) {
        return 0;
    }
    if (vsize > POLICY_TRUC_CHILD_MAX_VSIZE) {
        snprintf(detail, len,
                 "version=3 child tx %s (wtxid=%s) is too big: %lld > %d virtual bytes", t, w,
                 (long long)vsize, POLICY_TRUC_CHILD_MAX_VSIZE);
        return 1;
    }
    const struct tx *parent = npar ? &par[0]->tx : txs[first];
    int has_desc = 0;
    if (npar) {
        int64_t dc, ds, df;
        mempool_descendant_sums(mp, par[0], &dc, &ds, &df);
        has_desc = dc > 1;
    }
    ids_hex(pt, pw, parent);
    if (parent->version != POLICY_TRUC_VERSION) {
        snprintf(detail, len,
                 "version=3 tx %s (wtxid=%s) cannot spend from non-version=3 tx %s (wtxid=%s)", t,
                 w, pt, pw);
        return 1;
    }
    for (size_t j = 0; j < m; j++) {
        if (j == k) {
            continue;
        }
        for (size_t v = 0; v < txs[j]->vin_count; v++) {
            if (memcmp(txs[j]->vin[v].prevout.txid, parent->txid, 32) == 0) {
                snprintf(detail, len, "tx %s (wtxid=%s) would exceed descendant count limit", pt,
                         pw);
                return 1;
            }
            if (memcmp(txs[j]->vin[v].prevout.txid, tx->txid, 32) == 0) {
                char ct[65], cw[65];
                ids_hex(ct, cw, txs[j]);
                snprintf(detail, len, "tx %s (wtxid=%s) would have too many ancestors", ct, cw);
                return 1;
            }
        }
    }
    if (has_desc) {
        snprintf(detail, len, "tx %s (wtxid=%s) would exceed descendant count limit", pt, pw);
        return 1;
    }
    return 0;
}

/* Union-find over the package's transactions. */
static size_t uf_find(size_t *up, size_t i)
{
    while (up[i] != i) {
        up[i] = up[up[i]];
        i = up[i];
    }
    return i;
}

/* Core's CheckMemPoolPolicyLimits for the staged package: the new transactions joined with
 * each other (by spending) and with the in-pool clusters of their parents make clusters that
 * must stay within -limitclustercount and -limitclustersize. 1 if they do. */
static int package_clusters_ok(struct mempool *mp, const struct tx *const *txs, size_t m,
                               struct mempool_stage_info *info)
{
    const struct mempool_options *o = mempool_options(mp);
    size_t up[MEMPOOL_MAX_PACKAGE_COUNT];
    /* Each transaction's in-pool clusters, by their first entry. */
    struct mempool_entry **rep[MEMPOOL_MAX_PACKAGE_COUNT];
    size_t nrep[MEMPOOL_MAX_PACKAGE_COUNT];
    for (size_t i = 0; i < m; i++) {
        up[i] = i;
        rep[i] = xmalloc((info[i].nparents ? info[i].nparents : 1) * sizeof(*rep[i]));
        nrep[i] = 0;
        for (size_t p = 0; p < info[i].nparents; p++) {
            size_t n;
            struct mempool_entry **cl = mempool_cluster(mp, info[i].parents[p], &n);
            struct mempool_entry *r = n ? cl[0] : info[i].parents[p];
            free(cl);
            size_t q = 0;
            while (q < nrep[i] && rep[i][q] != r) {
                q++;
            }
            if (q == nrep[i]) {
                rep[i][nrep[i]++] = r;
            }
        }
    }
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < i; j++) {
            int join = 0;
            for (size_t v = 0; v < txs[i]->vin_count && !join; v++) {
                join = memcmp(txs[i]->vin[v].prevout.txid, txs[j]->txid, 32) == 0;
            }
            for (size_t a = 0; a < nrep[i] && !join; a++) {
                for (size_t b = 0; b < nrep[j] && !join; b++) {
                    join = rep[i][a] == rep[j][b];
                }
            }
            if (join) {
                up[uf_find(up, i)] = uf_find(up, j);
            }
        }
    }
    size_t total_reps = 0;
    for (size_t i = 0; i < m; i++) {
        total_reps += nrep[i];
    }
    struct mempool_entry **seen = xmalloc((total_reps ? total_reps : 1) * sizeof(*seen));
    int ok = 1;
    for (size_t root = 0; root < m && ok; root++) {
        if (uf_find(up, root) != root) {
            continue;
        }
        int64_t count = 0, weight = 0;
        size_t nseen = 0;
        for (size_t i = 0; i < m; i++) {
            if (uf_find(up, i) != root) {
                continue;
            }
            count++;
            weight += info[i].adj_weight;
            for (size_t a = 0; a < nrep[i]; a++) {
                size_t q = 0;
                while (q < nseen && seen[q] != rep[i][a]) {
                    q++;
                }
                if (q < nseen) {
                    continue;
                }
                seen[nseen++] = rep[i][a];
                size_t n;
                struct mempool_entry **cl = mempool_cluster(mp, rep[i][a], &n);
                count += (int64_t)n;
                for (size_t e = 0; e < n; e++) {
                    weight += cl[e]->adj_weight;
                }
                free(cl);
            }
        }
        ok = count <= (int64_t)o->cluster_count && weight <= o->cluster_size_vbytes * 4;
    }
    free(seen);
    for (size_t i = 0; i < m; i++) {
        free(rep[i]);
    }
    return ok;
}

/* A fee rate as Core's CFeeRate::ToString: "0.00001000 BTC/kvB". */
static void feerate_str(char *out, size_t len, int64_t fee, int64_t vsize)
{
    int64_t r = vsize > 0 ? fee * 1000 / vsize : 0;
    snprintf(out, len, "%lld.%08lld BTC/kvB", (long long)(r / 100000000),
             (long long)(r % 100000000));
}

/* Core's PackageRBFChecks for a staged package with conflicts: 1-parent-1-child with no
 * in-pool parents, at most 100 clusters replaced, paying for what it replaces and its own
 * relay, the child raising the package's rate above the parent's, within the cluster limits,
 * and a better fee rate diagram. Fills *all (what goes) or fails the package. */
static int package_rbf(struct mempool_package *c, const struct tx *const *txs, size_t m,
                       struct mempool_stage_info *info, int64_t total_fee, int64_t total_vsize,
                       struct mempool_entry ***all, size_t *nall)
{
    struct mempool *mp = c->mp;
    const char *fail = NULL;
    char debug[VSTATE_DEBUG_LEN] = "";
    long first;
    if (m != 2 || package_parent_count(txs, 1, &first) != 1) {
        fail = "package RBF failed: package must be 1-parent-1-child";
    }
    for (size_t i = 0; i < m && !fail; i++) {
        if (info[i].nparents) {
            fail = "package RBF failed: new transaction cannot have mempool ancestors";
        }
    }
    if (fail) {
        package_fail(c, PKG_STATE_POLICY, fail, NULL);
        return 0;
    }
    size_t cap = 0;
    for (size_t i = 0; i < m; i++) {
        for (size_t k = 0; k < info[i].nconflicts; k++) {
            size_t nd;
            struct mempool_entry **d = mempool_descendants(mp, info[i].conflicts[k], &nd);
            for (size_t j = 0; j <= nd; j++) {
                struct mempool_entry *e = j < nd ? d[j] : info[i].conflicts[k];
                size_t q = 0;
                while (q < *nall && (*all)[q] != e) {
                    q++;
                }
                if (q == *nall) {
                    if (*nall == cap) {
                        cap = cap ? cap * 2 : 8;
                        *all = xrealloc(*all, cap * sizeof(**all));
                    }
                    (*all)[(*nall)++] = e;
                }
            }
            free(d);
        }
    }
    char ct[65], cw[65], a[AMOUNT_FORMAT_LEN], b[AMOUNT_FORMAT_LEN];
    ids_hex(ct, cw, txs[m - 1]);
    size_t nclusters = mempool_count_clusters(mp, *all, *nall);
    if (nclusters > MAX_REPLACEMENT_CLUSTERS) {
        snprintf(debug, sizeof(debug),
                 "rejecting replacement %s; too many conflicting clusters (%zu > %d)", ct,
                 nclusters, MAX_REPLACEMENT_CLUSTERS);
        package_fail(c, PKG_STATE_POLICY, "package RBF failed: too many potential replacements",
                     debug);
        return 0;
    }
    int64_t conf_fees = 0;
    for (size_t i = 0; i < *nall; i++) {
        conf_fees += mempool_entry_modified_fee((*all)[i]);
    }
    int64_t relay = policy_fee_at(mempool_options(mp)->incremental_feerate, total_vsize);
    if (total_fee < conf_fees) {
        amount_format_money(a, total_fee);
        amount_format_money(b, conf_fees);
        snprintf(debug, sizeof(debug),
                 "rejecting replacement %s, less fees than conflicting txs; %s < %s", ct, a, b);
    } else if (total_fee - conf_fees < relay) {
        amount_format_money(a, total_fee - conf_fees);
        amount_format_money(b, relay);
        snprintf(debug, sizeof(debug),
                 "rejecting replacement %s, not enough additional fees to relay; %s < %s", ct, a,
                 b);
    }
    if (debug[0]) {
        package_fail(c, PKG_STATE_POLICY, "package RBF failed: insufficient anti-DoS fees", debug);
        return 0;
    }
    if (mempool_feerate_cmp(total_fee, total_vsize, info[0].modified, info[0].vsize) <= 0) {
        char pr[48], pp[48];
        feerate_str(pr, sizeof(pr), total_fee, total_vsize);
        feerate_str(pp, sizeof(pp), info[0].modified, info[0].vsize);
        snprintf(debug, sizeof(debug), "package feerate %s <= parent feerate is %s", pr, pp);
        package_fail(c, PKG_STATE_POLICY,
                     "package RBF failed: package feerate is less than or equal to parent feerate",
                     debug);
        return 0;
    }
    if (!package_clusters_ok(mp, txs, m, info)) {
        package_fail(c, PKG_STATE_POLICY, "too-large-cluster", NULL);
        return 0;
    }
    mempool_write_lock(mp);
    int improves = mempool_rbf_improves(mp, *all, *nall, NULL, 0, total_fee,
                                        info[0].adj_weight + info[1].adj_weight);
    mempool_write_unlock(mp);
    if (!improves) {
        package_fail(c, PKG_STATE_POLICY,
                     "package RBF failed: insufficient feerate: does not improve feerate diagram",
                     NULL);
        return 0;
    }
    return 1;
}

/* One transaction's failure as the package's: its result replaces what r[i] held. */
static void tx_failed(struct mempool_package *c, size_t i, struct mempool_accept_result *res)
{
    mempool_accept_result_clear(&c->r[i].res);
    c->r[i].res = *res;
    memset(res, 0, sizeof(*res));
    c->r[i].state = PKG_INVALID;
    if (c->pstate == PKG_STATE_OK) {
        package_fail(c, PKG_STATE_TX, "transaction failed", NULL);
    }
}

struct multi {
    const struct tx *txs[MEMPOOL_MAX_PACKAGE_COUNT]; /* the subpackage, in order */
    struct tx flat[MEMPOOL_MAX_PACKAGE_COUNT];       /* shallow copies: the coins before */
    struct mempool_stage *st[MEMPOOL_MAX_PACKAGE_COUNT];
    struct mempool_stage_info info[MEMPOOL_MAX_PACKAGE_COUNT];
    struct mempool_accept_result res[MEMPOOL_MAX_PACKAGE_COUNT];
    struct mempool_entry **all; /* replaced (package RBF) */
    size_t nall;
};

/* Core's AcceptMultipleTransactions' checks before the scripts over idx[0..m) of the
 * package. Returns 0 (the package's verdict set on a failure: c->pstate), or a system error. */
static int multi_checks(struct chainstate *cs, struct mempool_package *c, const size_t *idx,
                        size_t m, struct multi *x, const struct mempool_accept_args *base)
{
    struct mempool *mp = c->mp;
    for (size_t k = 0; k < m; k++) {
        size_t i = idx[k];
        struct mempool_accept_args a = *base;
        a.package = x->flat;
        a.npackage = k;
        int rc = mempool_stage_prechecks(mp, cs, &c->txs[i], &a, &x->res[k], &x->st[k]);
        if (rc) {
            return rc;
        }
        if (!vstate_is_valid(&x->res[k].st)) {
            tx_failed(c, i, &x->res[k]);
            return RC_OK;
        }
        mempool_stage_get(x->st[k], &x->info[k]);
        if (c->max_feerate > 0 &&
            x->info[k].modified * 1000 / x->info[k].vsize > c->max_feerate) {
            set_state(&x->res[k], MEMPOOL_TX_MEMPOOL_POLICY, "max feerate exceeded", NULL);
            tx_failed(c, i, &x->res[k]);
            return RC_OK;
        }
    }
    char detail[VSTATE_DEBUG_LEN];
    for (size_t k = 0; k < m; k++) {
        if (package_truc(mp, x->txs, m, k, x->info[k].parents, x->info[k].nparents,
                         x->info[k].vsize, detail, sizeof(detail))) {
            package_fail(c, PKG_STATE_POLICY, "TRUC-violation", detail);
            return RC_OK;
        }
    }
    c->pkg_fee = c->pkg_vsize = 0;
    int rbf = 0;
    for (size_t k = 0; k < m; k++) {
        c->pkg_fee += x->info[k].modified;
        c->pkg_vsize += x->info[k].vsize;
        rbf |= x->info[k].nconflicts > 0;
    }
    if (base->package_feerate) {
        const struct mempool_options *o = mempool_options(mp);
        mempool_write_lock(mp);
        int64_t minrate = mempool_min_fee(mp, c->now);
        mempool_write_unlock(mp);
        int64_t minfee = policy_fee_at(minrate, c->pkg_vsize);
        int64_t relay = policy_fee_at(o->min_relay_feerate, c->pkg_vsize);
        char d[64];
        if (minfee > 0 && c->pkg_fee < minfee) {
            snprintf(d, sizeof(d), "%lld < %lld", (long long)c->pkg_fee, (long long)minfee);
            set_state(&x->res[m - 1], MEMPOOL_TX_RECONSIDERABLE, "mempool min fee not met", d);
        } else if (c->pkg_fee < relay) {
            snprintf(d, sizeof(d), "%lld < %lld", (long long)c->pkg_fee, (long long)relay);
            set_state(&x->res[m - 1], MEMPOOL_TX_RECONSIDERABLE, "min relay fee not met", d);
        }
        if (!vstate_is_valid(&x->res[m - 1].st)) {
            tx_failed(c, idx[m - 1], &x->res[m - 1]);
            return RC_OK;
        }
    }
    if (rbf && !package_rbf(c, x->txs, m, x->info, c->pkg_fee, c->pkg_vsize, &x->all, &x->nall)) {
        return RC_OK;
    }
    if (!rbf && !package_clusters_ok(mp, x->txs, m, x->info)) {
        package_fail(c, PKG_STATE_POLICY, "too-large-cluster", NULL);
        return RC_OK;
    }
    size_t bad;
    struct mempool_accept_result eph;
    memset(&eph, 0, sizeof(eph));
    if (mempool_options(mp)->require_standard &&
        !mempool_ephemeral_spends_ok(mp, x->flat, m, &bad, &eph)) {
        tx_failed(c, idx[bad], &eph);
        package_fail(c, PKG_STATE_TX, "unspent-dust", NULL);
        return RC_OK;
    }
    for (size_t k = 0; k < m; k++) {
        if (!mempool_stage_scripts(x->st[k])) {
            tx_failed(c, idx[k], &x->res[k]);
            /* Core's test accept keeps the results of those whose scripts passed before. */
            for (size_t j = 0; j < k && base->test_only; j++) {
                mempool_accept_result_clear(&c->r[idx[j]].res);
                c->r[idx[j]].res = x->res[j];
                memset(&x->res[j], 0, sizeof(x->res[j]));
                c->r[idx[j]].state = PKG_VALID;
            }
            return RC_OK;
        }
    }
    return RC_OK;
}

/* Core's AcceptMultipleTransactions over idx[0..m) of the package: every transaction's
 * checks first, then the package's (TRUC, its fee rate when package_feerate, package RBF, the
 * cluster limits, ephemeral dust), then the scripts; unless test_only, all of it into the
 * pool (not trimmed). Results go into c->r[idx[k]]. */
static int accept_multi(struct chainstate *cs, struct mempool_package *c, const size_t *idx,
                        size_t m, const struct mempool_accept_args *base)
{
    struct multi *x = xcalloc(1, sizeof(*x));
    for (size_t k = 0; k < m; k++) {
        x->txs[k] = &c->txs[idx[k]];
        x->flat[k] = c->txs[idx[k]];
    }
    int rc = multi_checks(cs, c, idx, m, x, base);
    if (rc == RC_OK && c->pstate == PKG_STATE_OK) {
        if (!base->test_only) {
            mempool_write_lock(c->mp);
            /* By txid: removing one may take later ones as its descendants. */
            uint8_t (*gone)[32] = x->nall ? xmalloc(x->nall * sizeof(*gone)) : NULL;
            for (size_t i = 0; i < x->nall; i++) {
                memcpy(gone[i], x->all[i]->tx.txid, 32);
            }
            for (size_t i = 0; i < x->nall; i++) {
                struct mempool_entry *e = mempool_get(c->mp, gone[i]);
                if (e) {
                    mempool_remove_with_descendants(c->mp, e, MEMPOOL_REMOVED_REPLACED);
                }
            }
            mempool_write_unlock(c->mp);
            x->res[0].replaced = gone;
            x->res[0].n_replaced = x->nall;
            for (size_t k = 0; k < m; k++) {
                mempool_stage_submit(x->st[k]);
            }
        }
        for (size_t k = 0; k < m; k++) {
            size_t i = idx[k];
            mempool_accept_result_clear(&c->r[i].res);
            c->r[i].res = x->res[k];
            memset(&x->res[k], 0, sizeof(x->res[k]));
            c->r[i].state = PKG_VALID;
            c->r[i].in_package_rate = base->package_feerate;
        }
    }
    for (size_t k = 0; k < m; k++) {
        mempool_stage_free(x->st[k]);
        mempool_accept_result_clear(&x->res[k]);
    }
    free(x->all);
    free(x);
    return rc;
}

/* Core's AcceptPackage's last step: the pool trimmed back to its size once the whole package
 * was tried (not between its transactions, so that a parent is not trimmed before the child
 * that pays for it comes); a transaction of the package trimmed away is "mempool full". */
static void trim_after(struct mempool_package *c)
{
    int evicted;
    mempool_write_lock(c->mp);
    mempool_expire(c->mp, c->now);
    mempool_trim(c->mp, c->now, &evicted);
    for (size_t i = 0; i < c->n; i++) {
        if ((c->r[i].state == PKG_VALID || c->r[i].state == PKG_IN_POOL ||
             c->r[i].state == PKG_OTHER_WITNESS) &&
            !mempool_get(c->mp, c->r[i].txid)) {
            mempool_accept_result_clear(&c->r[i].res);
            c->r[i].state = PKG_INVALID;
            set_state(&c->r[i].res, MEMPOOL_TX_MEMPOOL_POLICY, "mempool full", NULL);
            package_fail(c, PKG_STATE_TX, "transaction failed", NULL);
        }
    }
    mempool_write_unlock(c->mp);
}

int mempool_accept_package(struct chainstate *cs, void *ctx)
{
    struct mempool_package *c = ctx;
    struct mempool *mp = c->mp;
    size_t pending[MEMPOOL_MAX_PACKAGE_COUNT], npending = 0;
    int quit = 0;
    snprintf(c->msg, sizeof(c->msg), "success");
    c->pstate = PKG_STATE_OK;
    /* Every transaction alone first, all of them (a hard failure only rules out the package
     * evaluation, the rest may still be valid alone); none trimmed meanwhile. */
    for (size_t i = 0; i < c->n; i++) {
        struct mempool_entry *have = mempool_get(mp, c->r[i].txid);
        if (have) {
            if (memcmp(have->tx.wtxid, c->r[i].wtxid, 32) == 0) {
                c->r[i].state = PKG_IN_POOL;
                c->r[i].res.fee = have->fee;
                c->r[i].res.vsize = have->vsize;
            } else {
                c->r[i].state = PKG_OTHER_WITNESS;
                memcpy(c->r[i].other_wtxid, have->tx.wtxid, 32);
            }
            continue;
        }
        struct mempool_accept_args a = {.now = c->now, .max_feerate = c->max_feerate, .no_trim = 1};
        int rc = mempool_accept_tx(mp, cs, &c->txs[i], &a, &c->r[i].res);
        if (rc) {
            return rc;
        }
        if (vstate_is_valid(&c->r[i].res.st)) {
            c->r[i].state = PKG_VALID;
            continue;
        }
        c->r[i].state = PKG_INVALID; /* its answer unless the package passes */
        if (c->n > 1 && (c->r[i].res.kind == MEMPOOL_TX_RECONSIDERABLE ||
                         c->r[i].res.kind == MEMPOOL_TX_MISSING_INPUTS)) {
            pending[npending++] = i; /* may pass with the package's fee rate */
        } else {
            quit = 1;
        }
    }
    if (quit) {
        package_fail(c, PKG_STATE_TX, "transaction failed", NULL);
    } else if (npending == 1) {
        size_t i = pending[0];
        struct mempool_accept_args a = {.now = c->now, .max_feerate = c->max_feerate, .no_trim = 1};
        mempool_accept_result_clear(&c->r[i].res);
        int rc = mempool_accept_tx(mp, cs, &c->txs[i], &a, &c->r[i].res);
        if (rc) {
            return rc;
        }
        if (vstate_is_valid(&c->r[i].res.st)) {
            c->r[i].state = PKG_VALID;
        } else {
            package_fail(c, PKG_STATE_TX, "transaction failed", NULL);
        }
    } else if (npending > 1) {
        struct mempool_accept_args a = {.now = c->now,
                                         .max_feerate = c->max_feerate,
                                         .package_feerate = 1,
                                         .no_trim = 1,
                                         .no_sibling_eviction = 1};
        int rc = accept_multi(cs, c, pending, npending, &a);
        if (rc) {
            return rc;
        }
    }
    trim_after(c);
    return RC_OK;
}

int mempool_test_package(struct chainstate *cs, void *ctx)
{
    struct mempool_package *c = ctx;
    size_t idx[MEMPOOL_MAX_PACKAGE_COUNT];
    snprintf(c->msg, sizeof(c->msg), "success");
    c->pstate = PKG_STATE_OK;
    for (size_t i = 0; i < c->n; i++) {
        idx[i] = i;
        c->r[i].state = PKG_NOT_VALIDATED;
    }
    struct mempool_accept_args a = {
        .now = c->now, .test_only = 1, .no_replacement = 1, .no_sibling_eviction = 1};
    return accept_multi(cs, c, idx, c->n, &a);
}
