/* BIP9 version bits. See versionbits.h. */
#include "consensus/versionbits.h"

#include "util/check.h"

const char *bip9_state_name(enum bip9_state s)
{
    switch (s) {
    case BIP9_DEFINED:
        return "defined";
    case BIP9_STARTED:
        return "started";
    case BIP9_LOCKED_IN:
        return "locked_in";
    case BIP9_ACTIVE:
        return "active";
    case BIP9_FAILED:
        return "failed";
    }
    return "invalid";
}

int bip9_signals(const struct chain_bip9_deployment *d, int32_t version)
{
    uint32_t v = (uint32_t)version;
    return (v & VERSIONBITS_TOP_MASK) == VERSIONBITS_TOP_BITS && ((v >> d->bit) & 1u) != 0;
}

/* Signalling blocks among heights first..last. */
static int count_signals(const struct chain_bip9_deployment *d, const struct versionbits_view *view,
                         int first, int last)
{
    int count = 0;
    /* Newest first: a view that walks parent links serves that order best. */
    for (int h = last; h >= first; h--) {
        count += bip9_signals(d, view->version(view->ctx, h));
    }
    return count;
}

/* The state of the period after the one ending at height `boundary`, from the state of the
 * period that ends there (Core's GetStateFor, one step forward). */
static enum bip9_state step(const struct chain_bip9_deployment *d,
                            const struct versionbits_view *view, enum bip9_state state,
                            int boundary)
{
    switch (state) {
    case BIP9_DEFINED:
        if (view->median_time_past(view->ctx, boundary) >= d->start_time) {
            return BIP9_STARTED;
        }
        return BIP9_DEFINED;
    case BIP9_STARTED:
        if (count_signals(d, view, boundary - d->period + 1, boundary) >= d->threshold) {
            return BIP9_LOCKED_IN;
        }
        if (view->median_time_past(view->ctx, boundary) >= d->timeout) {
            return BIP9_FAILED;
        }
        return BIP9_STARTED;
    case BIP9_LOCKED_IN:
        return boundary + 1 >= d->min_activation_height ? BIP9_ACTIVE : BIP9_LOCKED_IN;
    case BIP9_FAILED:
    case BIP9_ACTIVE:
        break;
    }
    return state;
}

void bip9_info_at(struct bip9_info *info, char *signalling, const struct chain_bip9_deployment *d,
                  const struct versionbits_view *view, int height)
{
    CHECK_ALWAYS(d->period > 0 && height >= 0);
    info->has_stats = 0;
    info->active_since = -1;
    info->since = 0;
    if (d->start_time == CHAIN_BIP9_ALWAYS_ACTIVE || d->start_time == CHAIN_BIP9_NEVER_ACTIVE) {
        info->state = info->next_state =
            d->start_time == CHAIN_BIP9_ALWAYS_ACTIVE ? BIP9_ACTIVE : BIP9_FAILED;
        if (info->state == BIP9_ACTIVE) {
            info->active_since = 0;
        }
        return;
    }

    /* Period k holds heights k*period .. (k+1)*period - 1; its state follows from the block
     * at k*period - 1. Walk from the genesis period (DEFINED) to the child's period, noting
     * the block's period on the way and where its run of equal states began. */
    int k_block = height / d->period, k_child = (height + 1) / d->period;
    enum bip9_state state = BIP9_DEFINED, block_state = BIP9_DEFINED;
    int run_start = 0, block_run_start = 0;
    for (int k = 1; k <= k_child; k++) {
        enum bip9_state next = step(d, view, state, k * d->period - 1);
        if (next != state) {
            run_start = k;
        }
        state = next;
        if (k == k_block) {
            block_state = state;
            block_run_start = run_start;
        }
    }
    info->state = block_state;
    info->next_state = state;
    /* Core's GetStateSinceHeightFor: 0 while DEFINED. */
    info->since = block_state == BIP9_DEFINED ? 0 : block_run_start * d->period;

    if (block_state == BIP9_STARTED || block_state == BIP9_LOCKED_IN) {
        /* Core's GetStateStatisticsFor. */
        int first = height - height % d->period;
        struct bip9_stats *s = &info->stats;
        s->period = d->period;
        s->threshold = d->threshold;
        s->elapsed = height - first + 1;
        s->count = 0;
        for (int h = height; h >= first; h--) {
            int sig = bip9_signals(d, view->version(view->ctx, h));
            s->count += sig;
            signalling[h - first] = sig ? '#' : '-';
        }
        signalling[s->elapsed] = '\0';
        s->possible = (s->period - s->threshold) >= (s->elapsed - s->count);
        if (block_state == BIP9_LOCKED_IN) {
            s->threshold = 0;
            s->possible = 0;
        }
        info->has_stats = 1;
    }
    if (block_state == BIP9_ACTIVE) {
        info->active_since = info->since;
    } else if (info->next_state == BIP9_ACTIVE) {
        info->active_since = height + 1;
    }
}
