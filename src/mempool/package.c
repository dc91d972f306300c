/* Package acceptance (package.h). */
#include <stdio.h>
#include <string.h>

#include "mempool/mempool.h"
#include "mempool/package.h"
#include "mempool/policy.h"
#include "util/rc.h"

/* The pool trimmed back to its size once the subpackage is in (Core's LimitMempoolSize after
 * a package, not between its transactions, so that a parent is not trimmed before the child
 * that pays for it comes): one trimmed away is "mempool full" and fails the package. */
static void trim_after(struct mempool_package *c, const size_t *pending, size_t npending, int *ok)
{
    int evicted;
    mempool_write_lock(c->mp);
    mempool_expire(c->mp, c->now);
    mempool_trim(c->mp, c->now, &evicted);
    for (size_t k = 0; k < npending; k++) {
        size_t i = pending[k];
        if (c->r[i].state == PKG_VALID && !mempool_get(c->mp, c->r[i].txid)) {
            c->r[i].state = PKG_INVALID;
            vstate_init(&c->r[i].res.st);
            snprintf(c->r[i].res.st.reject, sizeof(c->r[i].res.st.reject), "mempool full");
            c->r[i].res.st.mode = VSTATE_INVALID;
            c->r[i].res.kind = MEMPOOL_TX_MEMPOOL_POLICY;
            *ok = 0;
        }
    }
    mempool_write_unlock(c->mp);
}

/* Core's AcceptPackage (its 1p1c core): each transaction alone first; the ones refused only
 * for their fee rate are then judged together, on the package's fee rate. Validation
 * thread. */
int mempool_accept_package(struct chainstate *cs, void *ctx)
{
    struct mempool_package *c = ctx;
    struct mempool *mp = c->mp;
    size_t pending[MEMPOOL_MAX_PACKAGE_COUNT], npending = 0;
    int quit = 0;
    snprintf(c->msg, sizeof(c->msg), "success");
    /* Core's AcceptPackage: every transaction alone first, all of them (a hard failure only
     * rules out the package evaluation, the rest may still be valid alone). */
    for (size_t i = 0; i < c->n; i++) {
        struct tx *tx = &c->txs[i];
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
        struct mempool_accept_args a = {.now = c->now, .max_feerate = c->max_feerate};
        int rc = mempool_accept_tx(mp, cs, tx, &a, &c->r[i].res);
        if (rc) {
            return rc;
        }
        if (vstate_is_valid(&c->r[i].res.st)) {
            c->r[i].state = PKG_VALID;
        } else if (c->r[i].res.kind == MEMPOOL_TX_RECONSIDERABLE ||
                   c->r[i].res.kind == MEMPOOL_TX_MISSING_INPUTS) {
            pending[npending++] = i;     /* may pass with the package's fee rate */
            c->r[i].state = PKG_INVALID; /* its answer unless the package passes */
        } else {
            c->r[i].state = PKG_INVALID;
            quit = 1;
        }
    }
    if (quit) {
        snprintf(c->msg, sizeof(c->msg), "transaction failed");
        return RC_OK;
    }
    if (npending == 0) {
        return RC_OK;
    }
    for (size_t k = 0; k < npending; k++) {
        mempool_accept_result_clear(&c->r[pending[k]].res);
    }
    /* The subpackage together, fee floors on its aggregate rate. */
    int ok = 1;
    c->pkg_fee = c->pkg_vsize = 0;
    size_t added = 0;
    for (size_t k = 0; k < npending && ok; k++) {
        size_t i = pending[k];
        struct mempool_accept_args a = {
            .now = c->now, .max_feerate = c->max_feerate, .package_feerate = 1, .no_trim = 1};
        int rc = mempool_accept_tx(mp, cs, &c->txs[i], &a, &c->r[i].res);
        if (rc) {
            return rc;
        }
        if (vstate_is_valid(&c->r[i].res.st)) {
            c->r[i].state = PKG_VALID;
            c->pkg_fee += c->r[i].res.modified;
            c->pkg_vsize += c->r[i].res.vsize;
            added++;
        } else {
            c->r[i].state = PKG_INVALID;
            ok = 0;
        }
    }
    const struct mempool_options *o = mempool_options(mp);
    mempool_write_lock(mp);
    int64_t minrate = mempool_min_fee(mp, c->now);
    mempool_write_unlock(mp);
    int64_t floor_rate = minrate > o->min_relay_feerate ? minrate : o->min_relay_feerate;
    if (ok && c->pkg_fee < policy_fee_at(floor_rate, c->pkg_vsize)) {
        /* Not enough together either: the subpackage leaves again. */
        ok = 0;
        mempool_write_lock(mp);
        for (size_t k = 0; k < npending; k++) {
            size_t i = pending[k];
            struct mempool_entry *e = mempool_get(mp, c->r[i].txid);
            if (e) {
                mempool_remove_with_descendants(mp, e, MEMPOOL_REMOVED_SIZELIMIT);
            }
            c->r[i].state = PKG_INVALID;
            vstate_init(&c->r[i].res.st);
            snprintf(c->r[i].res.st.reject, sizeof(c->r[i].res.st.reject), "%s",
                     minrate > o->min_relay_feerate ? "mempool min fee not met"
                                                    : "min relay fee not met");
            snprintf(c->r[i].res.st.debug, sizeof(c->r[i].res.st.debug), "%lld < %lld",
                     (long long)c->pkg_fee, (long long)policy_fee_at(floor_rate, c->pkg_vsize));
            c->r[i].res.st.mode = VSTATE_INVALID;
            c->r[i].res.kind = MEMPOOL_TX_RECONSIDERABLE; /* Core's: a better package may do */
        }
        mempool_write_unlock(mp);
    }
    if (added) {
        trim_after(c, pending, npending, &ok);
    }
    for (size_t k = 0; k < npending; k++) {
        c->r[pending[k]].in_package_rate = ok && added > 1;
    }
    if (!ok) {
        snprintf(c->msg, sizeof(c->msg), "transaction failed");
    }
    return RC_OK;
}
