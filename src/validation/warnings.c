/* The settled tip and the chain's warnings (chainstate_impl.h, chainstate_tip_settled):
 *
 * - unknown rules: Core's CheckUnknownActivations over BIP 323's five version bits (0-4). Each
 *   bit runs BIP9's state machine with no start and no timeout, counting a block that sets
 *   it with the version's top bits 001 while the block's expected version (the deployments
 *   STARTED or LOCKED_IN) does not, at or above min_bip9_warning_height; a period of 2016
 *   blocks with threshold 1815 on mainnet, the retarget interval with three quarters of it on
 *   the test chains. A bit ACTIVE at the tip raises the warning. The states are kept per
 *   period of the active chain (cs->vbwarn), checked against each period's last block so
 *   that a reorganisation recomputes only the periods it changed.
 * - large work invalid chain: Core's CheckForkWarningConditions: the best invalid block has
 *   more work than the tip plus six times the tip's proof.
 *
 * The validation thread's, with the chain lock held for writing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consensus/pow.h"
#include "consensus/versionbits.h"
#include "util/log.h"
#include "util/xmalloc.h"
#include "validation/chainstate_impl.h"

#define VB_WARN_BITS 5 /* BIP 323: bits 5-28 are extra nonce space, never warned about */

static void vb_period(const struct chain_params *p, int *period, int *threshold)
{
    if (p->id == CHAIN_MAIN) {
        *period = 2016;
        *threshold = 1815; /* 90%, as BIP 341 */
    } else {
        *period = (int)(p->pow_target_timespan / p->pow_target_spacing);
        *threshold = *period * 3 / 4;
    }
}

static int32_t view_version(void *ctx, int h)
{
    const struct block_index *e = block_index_ancestor((struct block_index *)ctx, h);
    return e ? e->header.version : 0;
}

static int64_t view_mtp(void *ctx, int h)
{
    const struct block_index *e = block_index_ancestor((struct block_index *)ctx, h);
    return e ? block_index_median_time_past(e) : 0;
}

/* The bits below VB_WARN_BITS a child of parent is expected to set (Core's
 * ComputeBlockVersion: the deployments STARTED or LOCKED_IN). No deployment uses one of
 * those bits today, so this costs nothing unless one is added. */
static uint32_t expected_bits(struct chainstate *cs, const struct block_index *parent)
{
    uint32_t mask = 0;
    for (size_t i = 0; i < CHAIN_DEPLOYMENT_COUNT && parent; i++) {
        const struct chain_bip9_deployment *d = &cs->p->deployments[i];
        if (d->bit >= VB_WARN_BITS || d->start_time == CHAIN_BIP9_NEVER_ACTIVE ||
            d->period <= 0) {
            continue;
        }
        struct versionbits_view view = {
            .ctx = (void *)parent, .version = view_version, .median_time_past = view_mtp};
        struct bip9_info info;
        char *sig = xmalloc((size_t)d->period + 1);
        bip9_info_at(&info, sig, d, &view, parent->height);
        free(sig);
        if (info.next_state == BIP9_STARTED || info.next_state == BIP9_LOCKED_IN) {
            mask |= 1u << d->bit;
        }
    }
    return mask;
}

/* Counts per bit the blocks of the period ending at last (period blocks) that signal it. */
static void count_period(struct chainstate *cs, const struct block_index *last, int period,
                         int counts[VB_WARN_BITS])
{
    memset(counts, 0, sizeof(int) * VB_WARN_BITS);
    const struct block_index *e = last;
    for (int k = 0; k < period && e; k++, e = e->prev) {
        uint32_t v = (uint32_t)e->header.version;
        if (e->height < cs->p->min_bip9_warning_height ||
            (v & VERSIONBITS_TOP_MASK) != VERSIONBITS_TOP_BITS) {
            continue;
        }
        uint32_t expected = expected_bits(cs, e->prev);
        for (int b = 0; b < VB_WARN_BITS; b++) {
            counts[b] += ((v >> b) & 1) && !((expected >> b) & 1);
        }
    }
}

/* The states of the bits for the block after tip (Core's GetStateFor(tip)). */
static const uint8_t *vb_states(struct chainstate *cs, const struct block_index *tip)
{
    struct vbwarn_cache *c = &cs->vbwarn;
    int period, threshold;
    vb_period(cs->p, &period, &threshold);
    size_t want = (size_t)(tip->height + 1) / (size_t)period; /* the next block's period */
    while (c->n > 1 && (c->n - 1 > want || block_index_ancestor((struct block_index *)tip,
                                                                (int)(c->n - 1) * period - 1) !=
                                               c->boundary[c->n - 1])) {
        c->n--;
    }
    if (c->cap < want + 1) {
        c->cap = want + 1 + 64;
        c->boundary = xrealloc(c->boundary, c->cap * sizeof(*c->boundary));
        c->state = xrealloc(c->state, c->cap * sizeof(*c->state));
    }
    if (c->n == 0) {
        c->boundary[0] = NULL;
        memset(c->state[0], BIP9_DEFINED, VB_WARN_BITS);
        c->n = 1;
    }
    for (; c->n <= want; c->n++) {
        size_t p = c->n;
        const struct block_index *last =
            block_index_ancestor((struct block_index *)tip, (int)p * period - 1);
        int counts[VB_WARN_BITS];
        int counted = 0;
        c->boundary[p] = last;
        for (int b = 0; b < VB_WARN_BITS; b++) {
            uint8_t s = c->state[p - 1][b];
            if (s == BIP9_DEFINED) {
                s = BIP9_STARTED; /* no start time: the median time past is always past 0 */
            } else if (s == BIP9_STARTED) {
                if (!counted) {
                    count_period(cs, last, period, counts);
                    counted = 1;
                }
                s = counts[b] >= threshold ? BIP9_LOCKED_IN : BIP9_STARTED;
            } else if (s == BIP9_LOCKED_IN) {
                s = BIP9_ACTIVE;
            }
            c->state[p][b] = s;
        }
    }
    return c->state[want];
}

static void tell_warning(struct chainstate *cs, enum chainstate_warning id, const char *msg)
{
    for (size_t i = 0; i < cs->n_listeners; i++) {
        if (cs->listeners[i].warning) {
            cs->listeners[i].warning(cs->listeners[i].ctx, id, msg);
        }
    }
}

static void check_unknown_rules(struct chainstate *cs, const struct block_index *tip)
{
    const uint8_t *st = vb_states(cs, tip);
    for (int b = 0; b < VB_WARN_BITS; b++) {
        if (st[b] == BIP9_ACTIVE) {
            char msg[64];
            snprintf(msg, sizeof(msg), "Unknown new rules activated (versionbit %d)", b);
            tell_warning(cs, CHAINSTATE_WARNING_UNKNOWN_RULES, msg);
        } else if (st[b] == BIP9_LOCKED_IN) {
            LOG_INFO("Warning: unknown new rules are about to activate (versionbit %d)", b);
        }
    }
}

static void check_fork_warning(struct chainstate *cs, const struct block_index *tip)
{
    if (cs->best_invalid && !block_index_failed(cs->best_invalid)) {
        cs->best_invalid = NULL; /* reconsidered */
    }
    int warn = 0;
    if (cs->best_invalid) {
        struct u256 proof, limit;
        pow_block_proof(&proof, tip->header.bits);
        u256_mul_u32(&proof, &proof, 6);
        u256_add(&limit, &tip->chain_work, &proof);
        warn = u256_cmp(&cs->best_invalid->chain_work, &limit) > 0;
    }
    if (warn) {
        if (!cs->large_work_warned) {
            LOG_WARN("Found invalid chain more than 6 blocks longer than our best chain. This "
                     "could be due to database corruption or consensus incompatibility with "
                     "peers.");
        }
        tell_warning(cs, CHAINSTATE_WARNING_LARGE_WORK,
                     "Warning: Found invalid chain more than 6 blocks longer than our best "
                     "chain. This could be due to database corruption or consensus "
                     "incompatibility with peers.");
    } else if (cs->large_work_warned) {
        tell_warning(cs, CHAINSTATE_WARNING_LARGE_WORK, NULL);
    }
    cs->large_work_warned = warn;
}

void chainstate_tip_settled(struct chainstate *cs)
{
    const struct block_index *tip = chainstate_tip(cs);
    if (!tip) {
        return;
    }
    check_fork_warning(cs, tip); /* an invalid chain may have come without a new tip */
    if (tip == cs->settled_tip) {
        return;
    }
    cs->settled_tip = tip;
    int ibd = chainstate_in_ibd(cs) || chainstate_reindexing_now(cs);
    if (!ibd) {
        check_unknown_rules(cs, tip);
    }
    for (size_t i = 0; i < cs->n_listeners; i++) {
        if (cs->listeners[i].tip_settled) {
            cs->listeners[i].tip_settled(cs->listeners[i].ctx, tip, ibd);
        }
    }
}
