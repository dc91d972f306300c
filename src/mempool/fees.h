/* Fee estimation as Bitcoin Core's CBlockPolicyEstimator (policy/fees/block_policy_estimator):
 * transactions are grouped into feerate buckets spaced by a factor 1.05 from 100 to 1e7
 * sat/kvB, and for each bucket three exponentially decaying histories (short: 12 blocks at
 * resolution 1, decay .962; medium: 48 blocks at resolution 2, decay .9952; long: 1008 blocks
 * at resolution 24, decay .99931) count how many transactions confirmed within each number of
 * blocks, how many left the mempool unconfirmed, and how many are still waiting. An estimate
 * for a target walks the buckets from the highest feerate down, merging buckets until they
 * hold enough data, and answers the (median) feerate of the lowest range whose confirmation
 * rate still meets the threshold.
 *
 * The mempool and the validation thread feed it (a transaction entered, a transaction left
 * without being mined, a block was connected); RPC threads read it. Every function takes the
 * estimator's own mutex, so any thread may call any of them; no callback runs under it.
 *
 * The state survives restarts in fee_estimates.dat, in Bitcoin Core's format (version 309900),
 * so files move between bitnode and Core: doc/files.md, "Fee estimates (fee_estimates.dat)".
 */
#ifndef BITNODE_MEMPOOL_FEES_H
#define BITNODE_MEMPOOL_FEES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* Core's CURRENT_FEES_FILE_VERSION: the version written, and the only one read. */
#define FEE_FILE_VERSION 309900
/* Core's MAX_FILE_AGE: a file older than this many hours is not read (stale estimates). */
#define FEE_MAX_FILE_AGE_HOURS 60
/* The file's name in the network's datadir, as Core's. */
#define FEE_ESTIMATES_FILENAME "fee_estimates.dat"

/* Core's errors, as estimatesmartfee and estimaterawfee report them. */
#define FEE_ERR_NO_ESTIMATE "Insufficient data or no feerate found"
#define FEE_ERR_NO_ESTIMATE_THRESHOLD "Insufficient data or no feerate found which meets threshold"

struct fee_estimator;

/* Core's FeeEstimateHorizon. */
enum fee_horizon {
    FEE_HORIZON_SHORT = 0,
    FEE_HORIZON_MEDIUM = 1,
    FEE_HORIZON_LONG = 2,
};
#define FEE_HORIZON_COUNT 3

/* Core's FeeReason: which of estimatesmartfee's sub-estimates gave the answer. */
enum fee_reason {
    FEE_REASON_NONE = 0,
    FEE_REASON_HALF_ESTIMATE,   /* 60% within target / 2 */
    FEE_REASON_FULL_ESTIMATE,   /* 85% within target */
    FEE_REASON_DOUBLE_ESTIMATE, /* 95% within 2 * target */
    FEE_REASON_CONSERVATIVE,    /* 95% within 2 * target on the longer horizons */
};

/* Core's EstimatorBucket: a range of buckets and its (decayed) counts. start and end are -1
 * while unset. */
struct fee_bucket_range {
    double start, end;    /* sat/kvB: the range's lower bound (exclusive) and upper bound */
    double within_target; /* confirmed within the target */
    double total_confirmed;
    double in_mempool;   /* still unconfirmed after at least the target */
    double left_mempool; /* left the mempool unconfirmed after the target */
};

/* Core's EstimationResult: the passing and failing ranges of one estimate. */
struct fee_estimation {
    struct fee_bucket_range pass, fail;
    double decay;   /* of the horizon used; 0 while unset */
    unsigned scale; /* blocks per period of that horizon; 0 while unset */
};

/* Core's NewMempoolTransactionInfo: a transaction that entered the mempool. */
struct fee_tx_entry {
    uint8_t txid[32];
    int64_t fee_sat; /* the base fee (not prioritisetransaction's), 0..MAX_MONEY */
    int64_t vsize;   /* virtual size in vbytes, 1..INT32_MAX */
    unsigned height; /* the chain height when it entered */
    /* Core's conditions for counting it (all four as Core names them): */
    bool mempool_limit_bypassed; /* re-added from a disconnected block (reorg) */
    bool submitted_in_package;   /* came in a package (submitpackage, package relay) */
    bool chainstate_is_current;  /* the node is not in initial block download */
    bool has_no_mempool_parents; /* spends no unconfirmed output */
};

/* estimatesmartfee's answer (Core's CFeeRate and FeeCalculation). */
struct fee_smart_result {
    int64_t feerate_sat_kvb; /* 0: no estimate (FEE_ERR_NO_ESTIMATE) */
    int desired_target;      /* the target asked for */
    int returned_target;     /* the target the estimate is for ("blocks") */
    enum fee_reason reason;
    struct fee_estimation est; /* of the sub-estimate that gave the answer */
    unsigned best_height;      /* the highest block the estimator has seen */
};

/** Returns a new, empty estimator (Core's default buckets and horizons; no blocks seen).
 *  Free with fee_estimator_free. */
struct fee_estimator *fee_estimator_new(void);
/** Frees fe (NULL: no-op). */
void fee_estimator_free(struct fee_estimator *fe);

/** A transaction entered the mempool (Core's processTransaction). It is tracked only if it
 *  entered at the height of the last block the estimator processed and all of Core's
 *  conditions hold (not limit-bypassed, not in a package, chain current, no mempool
 *  parents); a txid already tracked is ignored.
 *  Returns: 0, with *tracked (may be NULL) telling whether it is now tracked;
 *           RC_USAGE if fee_sat or vsize is out of range (nothing changes).
 */
int fee_estimator_tx_added(struct fee_estimator *fe, bool *tracked, const struct fee_tx_entry *tx);

/** A transaction left the mempool without being mined: evicted, expired, replaced, or
 *  conflicted (Core's removeTx). If it was tracked, it counts as a failure to confirm within
 *  the periods it waited.
 *  Returns: 0, with *was_tracked (may be NULL) telling whether it was tracked.
 */
int fee_estimator_tx_removed(struct fee_estimator *fe, bool *was_tracked, const uint8_t txid[32]);

/** A block was connected at height, confirming the n transactions txids (Core's
 *  processBlock; every txid of the block may be passed, untracked ones are skipped). Call it
 *  for every block the active chain connects, in initial block download too, before the
 *  mempool announces the transactions that enter after it: a transaction is only tracked
 *  when it enters at the height last passed here. A
 *  height not above the last one processed (a reorg, a side chain) is ignored. Otherwise the
 *  three horizons decay and each tracked transaction among txids records its confirmation
 *  after height - entry height blocks.
 *  Returns: 0, with *counted (may be NULL) the number of tracked transactions recorded.
 *  In:      txids: n hashes of 32 bytes, borrowed for the call (NULL when n == 0).
 */
int fee_estimator_block_connected(struct fee_estimator *fe, size_t *counted, unsigned height,
                                  const uint8_t (*txids)[32], size_t n);

/** Counts every tracked transaction as having left the mempool unconfirmed and stops
 *  tracking them, as Core does at shutdown before the last save (FlushUnconfirmed). */
void fee_estimator_flush_unconfirmed(struct fee_estimator *fe);

/** Core's estimateSmartFee: the feerate needed to confirm within conf_target blocks, the max
 *  of 60% success within target / 2, 85% within target and 95% within 2 * target (each on the
 *  shortest horizon that tracks it); conservative also asks 95% within 2 * target on the
 *  longer horizons. The target is raised to 2 and lowered to what the recorded history
 *  supports (returned_target). A found feerate is raised to mempool_min_sat_kvb and
 *  min_relay_sat_kvb if it is below either (as Core's RPC does).
 *  Returns: 0 with *out filled; out->feerate_sat_kvb is 0 when there is no estimate (also for
 *           a conf_target outside 1..fee_estimator_max_target(fe, FEE_HORIZON_LONG)).
 */
int fee_estimator_smart(struct fee_estimator *fe, struct fee_smart_result *out, int conf_target,
                        bool conservative, int64_t mempool_min_sat_kvb, int64_t min_relay_sat_kvb);

/** Core's estimateRawFee: the feerate at which a share threshold (0..1) of the transactions
 *  of one horizon confirmed within conf_target blocks.
 *  Returns: 0 with *feerate_sat_kvb (0: none found) and *est (may be NULL) describing the
 *           passing and failing ranges; est is left as initialised by fee_estimation_init
 *           when conf_target is outside 1..max_target of that horizon or threshold > 1.
 *           RC_USAGE for an unknown horizon.
 */
int fee_estimator_raw(struct fee_estimator *fe, int64_t *feerate_sat_kvb,
                      struct fee_estimation *est, int conf_target, double threshold,
                      enum fee_horizon horizon);

/** Sets est to Core's defaults: both ranges -1..-1 with zero counts, decay 0, scale 0. */
void fee_estimation_init(struct fee_estimation *est);

/** The highest target a horizon tracks (Core's HighestTargetTracked: 12, 48, 1008 with the
 *  default horizons; a loaded file may carry others). Returns 0 for an unknown horizon. */
unsigned fee_estimator_max_target(struct fee_estimator *fe, enum fee_horizon horizon);

/** Core's StringForFeeEstimateHorizon: "short", "medium", "long" (NULL if unknown). */
const char *fee_horizon_name(enum fee_horizon horizon);

/** The height of the last block processed (0 before any). */
unsigned fee_estimator_best_height(struct fee_estimator *fe);

/** Appends the estimator's state to out in fee_estimates.dat's format (Core's Write): the
 *  version, heights, buckets and the three horizons' histories. Transactions in the mempool
 *  are not part of it. */
void fee_estimator_serialize(struct fee_estimator *fe, struct buf *out);

/** Replaces fe's history with the one in p[0..len) (Core's Read). Bytes after the long
 *  horizon are ignored, as Core ignores them. The tracked mempool transactions are dropped
 *  and this run's recorded span starts over (loading is meant for start-up, where both are
 *  empty, as in Core).
 *  Returns: 0; RC_INVALID for another version ("File version (N) too high to be read." /
 *           "File version (N) incompatible: Too old to be read"); RC_CORRUPT for an
 *           inconsistent field (Core's "Corrupt estimates file. ..." messages);
 *           RC_TRUNCATED for a file that ends early (also a count larger than what is
 *           left), RC_NONCANONICAL or RC_TOO_LARGE for a bad CompactSize (as Core's
 *           ReadCompactSize). err is filled on failure (naming the field and offset), and fe
 *           is unchanged.
 */
int fee_estimator_deserialize(struct fee_estimator *fe, const uint8_t *p, size_t len, char *err,
                              size_t err_len);

/** Writes fee_estimator_serialize's output to path atomically (path.tmp, rename), mode 0600.
 *  Returns: 0 or RC_IO with err filled. */
int fee_estimator_save(struct fee_estimator *fe, const char *path, char *err, size_t err_len);

/** Reads path into fe as Core does at start-up: a file last modified more than
 *  FEE_MAX_FILE_AGE_HOURS whole hours before now_s is refused unless accept_stale
 *  (-acceptstalefeeestimates).
 *  Returns: 0; RC_NOT_FOUND if there is no file; RC_INVALID for a stale file or another
 *           version; RC_CORRUPT as fee_estimator_deserialize; RC_IO or RC_TOO_LARGE if it
 *           cannot be read. err is filled on every failure (the caller logs it and carries
 *           on with fe unchanged, i.e. empty at start-up).
 */
int fee_estimator_load(struct fee_estimator *fe, const char *path, int64_t now_s, bool accept_stale,
                       char *err, size_t err_len);

#endif
