/* BIP9 version bits: the state of a deployment (struct chain_bip9_deployment, params.h) at a
 * block, as Bitcoin Core's AbstractThresholdConditionChecker and VersionBitsCache::Info
 * (src/versionbits.cpp there) compute it for getdeploymentinfo.
 *
 * A deployment's state changes only at period boundaries: every block of a period has the
 * state computed from the last block of the period before (the genesis block's period is
 * DEFINED). From DEFINED it is STARTED once that block's median time past reaches
 * start_time; from STARTED, LOCKED_IN when at least threshold blocks of the period just
 * ended signalled (version top bits 001, the deployment's bit set), else FAILED once the
 * median time past reaches timeout; from LOCKED_IN, ACTIVE when the next block is at least
 * at min_activation_height. ACTIVE and FAILED are final.
 *
 * Pure: the chain is read through a struct versionbits_view, so that this works on any
 * chain representation (the block index, a test's array). Core caches a state per period
 * boundary; here each call walks the periods from genesis, which costs one median time
 * past per period plus one version per block of the STARTED periods - fine for the chains a
 * test deployment is active on (regtest). Core's walk goes backwards and stops at the first
 * boundary before start_time; walking forwards gives the same states because the median
 * time past never decreases along a chain (a block's time is above its parent's median).
 */
#ifndef BITNODE_CONSENSUS_VERSIONBITS_H
#define BITNODE_CONSENSUS_VERSIONBITS_H

#include <stdint.h>

#include "consensus/params.h"

/* Core's VERSIONBITS_TOP_MASK / VERSIONBITS_TOP_BITS: a version signals only with the top
 * three bits 001. */
#define VERSIONBITS_TOP_MASK 0xE0000000u
#define VERSIONBITS_TOP_BITS 0x20000000u

/* One chain, seen from its last block: the blocks at heights 0..height of that block. */
struct versionbits_view {
    void *ctx;
    /* The version of the block at height h. */
    int32_t (*version)(void *ctx, int h);
    /* Its median time past (Core's GetMedianTimePast). */
    int64_t (*median_time_past)(void *ctx, int h);
};

/* Core's ThresholdState. */
enum bip9_state {
    BIP9_DEFINED,
    BIP9_STARTED,
    BIP9_LOCKED_IN,
    BIP9_ACTIVE,
    BIP9_FAILED,
};

/** Core's StateName: "defined", "started", "locked_in", "active", "failed". */
const char *bip9_state_name(enum bip9_state s);

/** 1 if a block of this version signals for d (Core's VersionBitsConditionChecker). */
int bip9_signals(const struct chain_bip9_deployment *d, int32_t version);

/* Core's BIP9Stats: signalling in the period of a block, up to and including it. */
struct bip9_stats {
    int period;
    int threshold; /* 0 once locked in */
    int elapsed;   /* blocks of the period so far */
    int count;     /* of which signalled */
    int possible;  /* the threshold can still be reached in this period (0 once locked in) */
};

/* Core's BIP9Info for one block. */
struct bip9_info {
    enum bip9_state state;      /* the block's own */
    enum bip9_state next_state; /* its child's */
    int since;                  /* first height of the run of periods in `state` (0 for
                                   DEFINED, ALWAYS_ACTIVE, NEVER_ACTIVE) */
    int has_stats;              /* state is STARTED or LOCKED_IN: stats and signalling set */
    struct bip9_stats stats;
    int active_since; /* the first height the rules apply at when state or
                         next_state is ACTIVE, else -1 */
};

/** The state of d at the block at height `height` of view's chain (Core's
 *  VersionBitsCache::Info).
 *
 *  Out:  info.  signalling: when info->has_stats, one char per block of the block's period up
 *        to and including it, oldest first, '#' for a signalling block and '-' for another,
 *        NUL-terminated; it needs d->period + 1 bytes (left untouched otherwise).
 *  In:   d: a deployment with period > 0.  height >= 0.
 */
void bip9_info_at(struct bip9_info *info, char *signalling, const struct chain_bip9_deployment *d,
                  const struct versionbits_view *view, int height);

#endif
