/* The insides of the fee estimator (fees.h), shared by its two files: fees.c (the
 * estimator, Core's CBlockPolicyEstimator and TxConfirmStats) and fees_file.c
 * (fee_estimates.dat). Nothing outside src/mempool/fees*.c includes this.
 *
 * One struct fee_stats is Core's TxConfirmStats: for each feerate bucket the decaying count
 * of transactions (tx_ct_avg), their decaying feerate sum (feerate_avg), and per period Y the
 * decaying counts confirmed within Y periods (conf_avg) and left unconfirmed after Y periods
 * (fail_avg); besides, not decayed and not saved, the transactions still in the mempool by
 * the block they entered at (a ring of max-confirms rows, unconf) and those older than the
 * ring (old_unconf).
 */
#ifndef BITNODE_MEMPOOL_FEES_IMPL_H
#define BITNODE_MEMPOOL_FEES_IMPL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mempool/fees.h"

/* Core's constants (block_policy_estimator.h). */
#define SHORT_BLOCK_PERIODS 12
#define SHORT_SCALE 1
#define MED_BLOCK_PERIODS 24
#define MED_SCALE 2
#define LONG_BLOCK_PERIODS 42
#define LONG_SCALE 24
#define OLDEST_ESTIMATE_HISTORY (6 * 1008)
#define SHORT_DECAY .962
#define MED_DECAY .9952
#define LONG_DECAY .99931
#define HALF_SUCCESS_PCT .6
#define SUCCESS_PCT .85
#define DOUBLE_SUCCESS_PCT .95
#define SUFFICIENT_FEETXS 0.1
#define SUFFICIENT_TXS_SHORT 0.5
#define MIN_BUCKET_FEERATE 100.0
#define MAX_BUCKET_FEERATE 1e7
#define FEE_SPACING 1.05
#define INF_FEERATE 1e99

struct fee_stats {
    double decay;
    unsigned scale;
    size_t periods;                  /* rows of conf_avg and fail_avg */
    size_t nb;                       /* buckets */
    double *feerate_avg, *tx_ct_avg; /* [bucket] */
    double *conf_avg, *fail_avg;     /* [period * nb + bucket] */
    unsigned bins;                   /* rows of unconf: scale * periods (max confirms) */
    int *unconf;                     /* [bin * nb + bucket] */
    int *old_unconf;                 /* [bucket] */
};

/* A tracked mempool transaction (Core's mapMemPoolTxs entry, with the feerate Core reads
 * again from the mempool entry when the block comes). */
struct fee_tracked {
    uint8_t txid[32];
    uint64_t hash;
    unsigned height;
    unsigned bucket;
    double feerate; /* sat/kvB, an integer (CFeeRate::GetFeePerK) */
    bool used;
};

struct fee_estimator {
    pthread_mutex_t mu; /* guards everything below; a leaf lock */
    unsigned best_seen, first_recorded, historical_first, historical_best;
    unsigned tracked_txs, untracked_txs; /* since the last block (Core's log counters) */

    size_t nb;
    double *buckets; /* upper bounds, inclusive */
    /* Core's bucketMap: the distinct bounds in ascending order, each with the (last) index
     * that has it. */
    double *map_keys;
    unsigned *map_idx;
    size_t map_n;

    struct fee_stats st[FEE_HORIZON_COUNT]; /* by enum fee_horizon */

    struct fee_tracked *tab; /* open addressing, linear probing, power-of-two capacity */
    size_t tab_cap, tab_n;
    uint64_t k0, k1;
};

/** Frees s's arrays and zeroes it. */
void fee_stats_clear(struct fee_stats *s);
/** Allocates s's mempool counters (empty), sized by its scale, periods and buckets. */
void fee_stats_alloc_unconf(struct fee_stats *s);
/** Rebuilds fe's bucket map from fe->buckets (Core's bucketMap). */
void fee_map_build(struct fee_estimator *fe);
/** Forgets every tracked transaction (their counters must be gone with the horizons). */
void fee_tracked_reset(struct fee_estimator *fe);
/** Core's BlockSpan: blocks recorded since this estimator started counting. fe->mu held. */
unsigned fee_block_span(const struct fee_estimator *fe);
/** Core's HistoricalBlockSpan: blocks the loaded file had recorded, unless it is too old.
 *  fe->mu held. */
unsigned fee_historical_span(const struct fee_estimator *fe);

#endif
