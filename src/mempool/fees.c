/* Fee estimation (fees.h): Bitcoin Core's CBlockPolicyEstimator and its TxConfirmStats
 * (fees_impl.h), computed the same way step by step (the same double arithmetic in the same
 * order, the same unsigned wrap-arounds at low heights), so that the same history gives
 * Core's answers and, through fees_file.c, the same fee_estimates.dat.
 */
#include "mempool/fees.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "consensus/amount.h"
#include "crypto/siphash.h"
#include "mempool/fees_impl.h"
#include "util/buf.h"
#include "util/check.h"
#include "util/random.h"
#include "util/rc.h"
#include "util/xmalloc.h"

/* ---- buckets ------------------------------------------------------------------------- */

static int cmp_key(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return *x < *y ? -1 : *x > *y;
}

/* Rebuilds Core's bucketMap from fe->buckets: bucketMap[buckets[i]] = i for i ascending, so a
 * bound listed twice maps to its last index. */
void fee_map_build(struct fee_estimator *fe)
{
    free(fe->map_keys);
    free(fe->map_idx);
    size_t n = fe->nb;
    double *sorted = xmalloc(n * sizeof(double));
    memcpy(sorted, fe->buckets, n * sizeof(double));
    qsort(sorted, n, sizeof(double), cmp_key);
    fe->map_keys = xmalloc(n * sizeof(double));
    fe->map_idx = xmalloc(n * sizeof(unsigned));
    fe->map_n = 0;
    for (size_t i = 0; i < n; i++) {
        if (fe->map_n == 0 || fe->map_keys[fe->map_n - 1] != sorted[i]) {
            fe->map_keys[fe->map_n++] = sorted[i];
        }
    }
    free(sorted);
    for (size_t i = 0; i < n; i++) {
        /* Binary search of buckets[i] among the keys; the later i overwrites. */
        size_t lo = 0, hi = fe->map_n;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (fe->map_keys[mid] < fe->buckets[i]) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        fe->map_idx[lo] = (unsigned)i;
    }
}

/* Core's bucketMap.lower_bound(feerate)->second: the bucket of the first bound >= feerate.
 * Core's own buckets end at 1e99, so one is always found; for a loaded file without such a
 * bound (where Core would read past its map) the highest bucket is used. */
static unsigned bucket_of(const struct fee_estimator *fe, double feerate)
{
    size_t lo = 0, hi = fe->map_n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (fe->map_keys[mid] < feerate) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo == fe->map_n) {
        lo = fe->map_n - 1;
    }
    return fe->map_idx[lo];
}

/* ---- one horizon (TxConfirmStats) ---------------------------------------------------- */

void fee_stats_clear(struct fee_stats *s)
{
    free(s->feerate_avg);
    free(s->tx_ct_avg);
    free(s->conf_avg);
    free(s->fail_avg);
    free(s->unconf);
    free(s->old_unconf);
    memset(s, 0, sizeof(*s));
}

/* The mempool counters, which the file does not hold: empty, sized to the history. */
void fee_stats_alloc_unconf(struct fee_stats *s)
{
    s->bins = (unsigned)(s->scale * s->periods);
    s->unconf = xcalloc((size_t)s->bins * s->nb, sizeof(int));
    s->old_unconf = xcalloc(s->nb, sizeof(int));
}

static void stats_init(struct fee_stats *s, size_t nb, size_t periods, double decay, unsigned scale)
{
    memset(s, 0, sizeof(*s));
    s->decay = decay;
    s->scale = scale;
    s->periods = periods;
    s->nb = nb;
    s->feerate_avg = xcalloc(nb, sizeof(double));
    s->tx_ct_avg = xcalloc(nb, sizeof(double));
    s->conf_avg = xcalloc(periods * nb, sizeof(double));
    s->fail_avg = xcalloc(periods * nb, sizeof(double));
    fee_stats_alloc_unconf(s);
}

/* Core's GetMaxConfirms. */
static unsigned stats_max_confirms(const struct fee_stats *s)
{
    return (unsigned)(s->scale * s->periods);
}

/* Core's ClearCurrent: the ring row of this height starts over; what it held is now older
 * than the ring. */
static void stats_clear_current(struct fee_stats *s, unsigned height)
{
    int *row = s->unconf + (size_t)(height % s->bins) * s->nb;
    for (size_t j = 0; j < s->nb; j++) {
        s->old_unconf[j] += row[j];
        row[j] = 0;
    }
}

/* Core's Record: a transaction confirmed after blocks_to_confirm (>= 1) blocks. */
static void stats_record(struct fee_stats *s, unsigned bucket, int blocks_to_confirm,
                         double feerate)
{
    if (blocks_to_confirm < 1) {
        return;
    }
    unsigned periods_to_confirm = ((unsigned)blocks_to_confirm + s->scale - 1) / s->scale;
    for (size_t i = periods_to_confirm; i <= s->periods; i++) {
        s->conf_avg[(i - 1) * s->nb + bucket]++;
    }
    s->tx_ct_avg[bucket]++;
    s->feerate_avg[bucket] += feerate;
}

/* Core's UpdateMovingAverages. */
static void stats_decay(struct fee_stats *s)
{
    for (size_t j = 0; j < s->nb; j++) {
        for (size_t i = 0; i < s->periods; i++) {
            s->conf_avg[i * s->nb + j] *= s->decay;
            s->fail_avg[i * s->nb + j] *= s->decay;
        }
        s->feerate_avg[j] *= s->decay;
        s->tx_ct_avg[j] *= s->decay;
    }
}

/* Core's NewTx. */
static void stats_new_tx(struct fee_stats *s, unsigned height, unsigned bucket)
{
    s->unconf[(size_t)(height % s->bins) * s->nb + bucket]++;
}

/* Core's TxConfirmStats::removeTx: best_seen is the estimator's height (already the new
 * block's when called for a block). */
static void stats_remove_tx(struct fee_stats *s, unsigned entry_height, unsigned best_seen,
                            unsigned bucket, bool in_block)
{
    int blocks_ago = (int)(best_seen - entry_height);
    if (best_seen == 0) {
        blocks_ago = 0;
    }
    if (blocks_ago < 0) {
        return; /* cannot happen: no entry is above the best height seen */
    }
    if (blocks_ago >= (int)s->bins) {
        if (s->old_unconf[bucket] > 0) {
            s->old_unconf[bucket]--;
        }
    } else {
        int *c = &s->unconf[(size_t)(entry_height % s->bins) * s->nb + bucket];
        if (*c > 0) {
            (*c)--;
        }
    }
    /* Only a failure if it waited a whole period. */
    if (!in_block && (unsigned)blocks_ago >= s->scale) {
        unsigned periods_ago = (unsigned)blocks_ago / s->scale;
        for (size_t i = 0; i < periods_ago && i < s->periods; i++) {
            s->fail_avg[i * s->nb + bucket]++;
        }
    }
}

static void range_reset(struct fee_bucket_range *r)
{
    *r = (struct fee_bucket_range){.start = -1, .end = -1};
}

void fee_estimation_init(struct fee_estimation *est)
{
    range_reset(&est->pass);
    range_reset(&est->fail);
    est->decay = 0;
    est->scale = 0;
}

/* Core's EstimateMedianVal: walking from the highest feerate bucket down, buckets are merged
 * into ranges holding at least sufficient / (1 - decay) transactions; the answer is the
 * average feerate of the median bucket of the lowest range still confirming at least
 * success_break within conf_target. Returns -1 when no range passes. */
static double stats_estimate_median(const struct fee_stats *s, const double *buckets,
                                    int conf_target, double sufficient, double success_break,
                                    unsigned height, struct fee_estimation *result)
{
    double n_conf = 0, total_num = 0, fail_num = 0;
    int extra_num = 0;
    const unsigned period_target = ((unsigned)conf_target + s->scale - 1) / s->scale;
    const int max_bucket_index = (int)s->nb - 1;
    const unsigned max_confirms = stats_max_confirms(s);

    unsigned cur_near = (unsigned)max_bucket_index, best_near = (unsigned)max_bucket_index;
    unsigned cur_far = (unsigned)max_bucket_index, best_far = (unsigned)max_bucket_index;
    double partial_num = 0;
    bool found_answer = false;
    unsigned bins = s->bins;
    bool new_bucket_range = true;
    bool passing = true;
    struct fee_bucket_range pass_bucket, fail_bucket;
    range_reset(&pass_bucket);
    range_reset(&fail_bucket);
    const double *conf_row = s->conf_avg + (size_t)(period_target - 1) * s->nb;
    const double *fail_row = s->fail_avg + (size_t)(period_target - 1) * s->nb;

    for (int bucket = max_bucket_index; bucket >= 0; --bucket) {
        if (new_bucket_range) {
            cur_near = (unsigned)bucket;
            new_bucket_range = false;
        }
        cur_far = (unsigned)bucket;
        n_conf += conf_row[bucket];
        partial_num += s->tx_ct_avg[bucket];
        total_num += s->tx_ct_avg[bucket];
        fail_num += fail_row[bucket];
        for (unsigned confct = (unsigned)conf_target; confct < max_confirms; confct++) {
            /* Unsigned, as Core's: below the ring's size the row index wraps modulo 2^32. */
            extra_num += s->unconf[(size_t)((height - confct) % bins) * s->nb + bucket];
        }
        extra_num += s->old_unconf[bucket];
        /* Only confirmed data points count toward "enough", so every target looks at the
         * same ranges. */
        if (partial_num < sufficient / (1 - s->decay)) {
            continue;
        }
        partial_num = 0;
        double cur_pct = n_conf / (total_num + fail_num + extra_num);
        if (cur_pct < success_break) {
            if (passing) {
                /* The first failing range is the one reported. */
                unsigned lo = cur_near < cur_far ? cur_near : cur_far;
                unsigned hi = cur_near < cur_far ? cur_far : cur_near;
                fail_bucket.start = lo ? buckets[lo - 1] : 0;
                fail_bucket.end = buckets[hi];
                fail_bucket.within_target = n_conf;
                fail_bucket.total_confirmed = total_num;
                fail_bucket.in_mempool = extra_num;
                fail_bucket.left_mempool = fail_num;
                passing = false;
            }
            continue;
        }
        range_reset(&fail_bucket);
        found_answer = true;
        passing = true;
        pass_bucket.within_target = n_conf;
        n_conf = 0;
        pass_bucket.total_confirmed = total_num;
        total_num = 0;
        pass_bucket.in_mempool = extra_num;
        pass_bucket.left_mempool = fail_num;
        fail_num = 0;
        extra_num = 0;
        best_near = cur_near;
        best_far = cur_far;
        new_bucket_range = true;
    }

    double median = -1;
    double tx_sum = 0;
    unsigned min_bucket = best_near < best_far ? best_near : best_far;
    unsigned max_bucket = best_near < best_far ? best_far : best_near;
    for (unsigned j = min_bucket; j <= max_bucket; j++) {
        tx_sum += s->tx_ct_avg[j];
    }
    if (found_answer && tx_sum != 0) {
        /* The bucket holding the median transaction, and its average feerate. */
        tx_sum = tx_sum / 2;
        for (unsigned j = min_bucket; j <= max_bucket; j++) {
            if (s->tx_ct_avg[j] < tx_sum) {
                tx_sum -= s->tx_ct_avg[j];
            } else {
                median = s->feerate_avg[j] / s->tx_ct_avg[j];
                break;
            }
        }
        pass_bucket.start = min_bucket ? buckets[min_bucket - 1] : 0;
        pass_bucket.end = buckets[max_bucket];
    }

    /* Passing until the last buckets, which had too little data: report those as failed. */
    if (passing && !new_bucket_range) {
        unsigned lo = cur_near < cur_far ? cur_near : cur_far;
        unsigned hi = cur_near < cur_far ? cur_far : cur_near;
        fail_bucket.start = lo ? buckets[lo - 1] : 0;
        fail_bucket.end = buckets[hi];
        fail_bucket.within_target = n_conf;
        fail_bucket.total_confirmed = total_num;
        fail_bucket.in_mempool = extra_num;
        fail_bucket.left_mempool = fail_num;
    }

    if (result) {
        result->pass = pass_bucket;
        result->fail = fail_bucket;
        result->decay = s->decay;
        result->scale = s->scale;
    }
    return median;
}

/* ---- the tracked transactions -------------------------------------------------------- */

static size_t tab_find(const struct fee_estimator *fe, const uint8_t txid[32], uint64_t h)
{
    size_t mask = fe->tab_cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        if (!fe->tab[i].used) {
            return i;
        }
        if (fe->tab[i].hash == h && memcmp(fe->tab[i].txid, txid, 32) == 0) {
            return i;
        }
    }
}

static void tab_grow(struct fee_estimator *fe)
{
    struct fee_tracked *old = fe->tab;
    size_t old_cap = fe->tab_cap;
    fe->tab_cap = old_cap ? old_cap * 2 : 64;
    fe->tab = xcalloc(fe->tab_cap, sizeof(struct fee_tracked));
    for (size_t i = 0; i < old_cap; i++) {
        if (old[i].used) {
            fe->tab[tab_find(fe, old[i].txid, old[i].hash)] = old[i];
        }
    }
    free(old);
}

/* Deletes slot i, shifting later members of its probe run back (no tombstones). */
static void tab_delete(struct fee_estimator *fe, size_t i)
{
    size_t mask = fe->tab_cap - 1;
    size_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (!fe->tab[j].used) {
            break;
        }
        size_t k = (size_t)fe->tab[j].hash & mask;
        /* j's entry may move to i unless its home k lies cyclically in (i, j]. */
        bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (!stays) {
            fe->tab[i] = fe->tab[j];
            i = j;
        }
    }
    fe->tab[i].used = false;
    fe->tab_n--;
}

void fee_tracked_reset(struct fee_estimator *fe)
{
    if (fe->tab_cap) {
        memset(fe->tab, 0, fe->tab_cap * sizeof(struct fee_tracked));
    }
    fe->tab_n = 0;
}

/* Core's _removeTx: stops tracking txid, counting it in every horizon. */
static bool remove_tracked(struct fee_estimator *fe, const uint8_t txid[32], bool in_block,
                           struct fee_tracked *out)
{
    if (fe->tab_n == 0) {
        return false;
    }
    uint64_t h = siphash24_uint256(fe->k0, fe->k1, txid);
    size_t i = tab_find(fe, txid, h);
    if (!fe->tab[i].used) {
        return false;
    }
    struct fee_tracked t = fe->tab[i];
    for (int k = 0; k < FEE_HORIZON_COUNT; k++) {
        stats_remove_tx(&fe->st[k], t.height, fe->best_seen, t.bucket, in_block);
    }
    tab_delete(fe, i);
    if (out) {
        *out = t;
    }
    return true;
}

/* ---- the estimator ------------------------------------------------------------------- */

static void default_stats(struct fee_estimator *fe, struct fee_stats st[FEE_HORIZON_COUNT])
{
    stats_init(&st[FEE_HORIZON_SHORT], fe->nb, SHORT_BLOCK_PERIODS, SHORT_DECAY, SHORT_SCALE);
    stats_init(&st[FEE_HORIZON_MEDIUM], fe->nb, MED_BLOCK_PERIODS, MED_DECAY, MED_SCALE);
    stats_init(&st[FEE_HORIZON_LONG], fe->nb, LONG_BLOCK_PERIODS, LONG_DECAY, LONG_SCALE);
}

struct fee_estimator *fee_estimator_new(void)
{
    struct fee_estimator *fe = xcalloc(1, sizeof(*fe));
    pthread_mutex_init(&fe->mu, NULL);
    size_t n = 0, cap = 256;
    fe->buckets = xmalloc(cap * sizeof(double));
    /* The bounds as Core computes them: repeated multiplication, then the infinite one. */
    for (double b = MIN_BUCKET_FEERATE; b <= MAX_BUCKET_FEERATE; b *= FEE_SPACING) {
        CHECK_ALWAYS(n + 1 < cap);
        fe->buckets[n++] = b;
    }
    fe->buckets[n++] = INF_FEERATE;
    fe->nb = n;
    fee_map_build(fe);
    default_stats(fe, fe->st);
    uint8_t key[16];
    random_bytes(key, sizeof(key));
    fe->k0 = rd_u64le(key);
    fe->k1 = rd_u64le(key + 8);
    return fe;
}

void fee_estimator_free(struct fee_estimator *fe)
{
    if (!fe) {
        return;
    }
    for (int k = 0; k < FEE_HORIZON_COUNT; k++) {
        fee_stats_clear(&fe->st[k]);
    }
    free(fe->buckets);
    free(fe->map_keys);
    free(fe->map_idx);
    free(fe->tab);
    pthread_mutex_destroy(&fe->mu);
    free(fe);
}

/* CFeeRate(fee, vsize).GetFeePerK(): fee * 1000 / vsize rounded down. */
static int64_t fee_per_k(int64_t fee_sat, int64_t vsize)
{
    return fee_sat * 1000 / vsize; /* both non-negative here: truncation is the floor */
}

int fee_estimator_tx_added(struct fee_estimator *fe, bool *tracked, const struct fee_tx_entry *tx)
{
    if (tracked) {
        *tracked = false;
    }
    if (tx->fee_sat < 0 || tx->fee_sat > MAX_MONEY || tx->vsize < 1 || tx->vsize > INT32_MAX) {
        return RC_USAGE;
    }
    pthread_mutex_lock(&fe->mu);
    uint64_t h = siphash24_uint256(fe->k0, fe->k1, tx->txid);
    if (fe->tab_n && fe->tab[tab_find(fe, tx->txid, h)].used) {
        goto out; /* already tracked */
    }
    /* Side chains, reorgs, and an estimator behind the tip: not counted at all (it catches up
     * at the next block). */
    if (tx->height != fe->best_seen) {
        goto out;
    }
    if (tx->mempool_limit_bypassed || tx->submitted_in_package || !tx->chainstate_is_current ||
        !tx->has_no_mempool_parents) {
        fe->untracked_txs++;
        goto out;
    }
    fe->tracked_txs++;
    if ((fe->tab_n + 1) * 2 > fe->tab_cap) {
        tab_grow(fe);
    }
    double feerate = (double)fee_per_k(tx->fee_sat, tx->vsize);
    unsigned bucket = bucket_of(fe, feerate);
    struct fee_tracked *t = &fe->tab[tab_find(fe, tx->txid, h)];
    memcpy(t->txid, tx->txid, 32);
    t->hash = h;
    t->height = tx->height;
    t->bucket = bucket;
    t->feerate = feerate;
    t->used = true;
    fe->tab_n++;
    for (int k = 0; k < FEE_HORIZON_COUNT; k++) {
        stats_new_tx(&fe->st[k], tx->height, bucket);
    }
    if (tracked) {
        *tracked = true;
    }
out:
    pthread_mutex_unlock(&fe->mu);
    return RC_OK;
}

int fee_estimator_tx_removed(struct fee_estimator *fe, bool *was_tracked, const uint8_t txid[32])
{
    pthread_mutex_lock(&fe->mu);
    bool r = remove_tracked(fe, txid, false, NULL);
    pthread_mutex_unlock(&fe->mu);
    if (was_tracked) {
        *was_tracked = r;
    }
    return RC_OK;
}

int fee_estimator_block_connected(struct fee_estimator *fe, size_t *counted, unsigned height,
                                  const uint8_t (*txids)[32], size_t n)
{
    size_t count = 0;
    pthread_mutex_lock(&fe->mu);
    /* Reorgs and side chains are ignored: assumed random, they do not move the estimate. */
    if (height <= fe->best_seen) {
        goto out;
    }
    /* The height moves with the rings, so that the removals below age correctly. */
    fe->best_seen = height;
    for (int k = 0; k < FEE_HORIZON_COUNT; k++) {
        stats_clear_current(&fe->st[k], height);
    }
    for (int k = 0; k < FEE_HORIZON_COUNT; k++) {
        stats_decay(&fe->st[k]);
    }
    for (size_t i = 0; i < n; i++) {
        struct fee_tracked t;
        if (!remove_tracked(fe, txids[i], true, &t)) {
            continue;
        }
        /* 1-based: confirmed in the next block is 1. */
        int blocks_to_confirm = (int)(height - t.height);
        if (blocks_to_confirm <= 0) {
            continue;
        }
        for (int k = 0; k < FEE_HORIZON_COUNT; k++) {
            stats_record(&fe->st[k], bucket_of(fe, t.feerate), blocks_to_confirm, t.feerate);
        }
        count++;
    }
    if (fe->first_recorded == 0 && count > 0) {
        fe->first_recorded = fe->best_seen;
    }
    fe->tracked_txs = 0;
    fe->untracked_txs = 0;
out:
    pthread_mutex_unlock(&fe->mu);
    if (counted) {
        *counted = count;
    }
    return RC_OK;
}

void fee_estimator_flush_unconfirmed(struct fee_estimator *fe)
{
    pthread_mutex_lock(&fe->mu);
    for (size_t i = 0; i < fe->tab_cap; i++) {
        if (fe->tab[i].used) {
            for (int k = 0; k < FEE_HORIZON_COUNT; k++) {
                stats_remove_tx(&fe->st[k], fe->tab[i].height, fe->best_seen, fe->tab[i].bucket,
                                false);
            }
        }
    }
    fee_tracked_reset(fe);
    pthread_mutex_unlock(&fe->mu);
}

/* Core's BlockSpan: blocks recorded since this process started counting. */
unsigned fee_block_span(const struct fee_estimator *fe)
{
    if (fe->first_recorded == 0) {
        return 0;
    }
    CHECK_ALWAYS(fe->best_seen >= fe->first_recorded);
    return fe->best_seen - fe->first_recorded;
}

/* Core's HistoricalBlockSpan: blocks the loaded file had recorded, unless it is too old. */
unsigned fee_historical_span(const struct fee_estimator *fe)
{
    if (fe->historical_first == 0) {
        return 0;
    }
    CHECK_ALWAYS(fe->historical_best >= fe->historical_first);
    if (fe->best_seen - fe->historical_best > OLDEST_ESTIMATE_HISTORY) {
        return 0;
    }
    return fe->historical_best - fe->historical_first;
}

/* Core's MaxUsableEstimate: half the recorded span, so that failures had time to show. */
static unsigned max_usable_estimate(const struct fee_estimator *fe)
{
    unsigned a = fee_block_span(fe), b = fee_historical_span(fe);
    unsigned span = (a > b ? a : b) / 2;
    unsigned lmax = stats_max_confirms(&fe->st[FEE_HORIZON_LONG]);
    return lmax < span ? lmax : span;
}

static double median_of(const struct fee_estimator *fe, enum fee_horizon h, unsigned target,
                        double sufficient, double threshold, struct fee_estimation *result)
{
    return stats_estimate_median(&fe->st[h], fe->buckets, (int)target, sufficient, threshold,
                                 fe->best_seen, result);
}

/* Core's estimateCombinedFee: the estimate at threshold from the shortest horizon tracking
 * the target; with check_shorter, a lower answer of a shorter horizon at its own maximum
 * target wins (keeping estimates monotonic in the target). */
static double estimate_combined(const struct fee_estimator *fe, unsigned target, double threshold,
                                bool check_shorter, struct fee_estimation *result)
{
    const struct fee_stats *sh = &fe->st[FEE_HORIZON_SHORT], *md = &fe->st[FEE_HORIZON_MEDIUM];
    unsigned short_max = stats_max_confirms(sh), med_max = stats_max_confirms(md);
    double estimate = -1;
    if (target < 1 || target > stats_max_confirms(&fe->st[FEE_HORIZON_LONG])) {
        return estimate;
    }
    if (target <= short_max) {
        estimate =
            median_of(fe, FEE_HORIZON_SHORT, target, SUFFICIENT_TXS_SHORT, threshold, result);
    } else if (target <= med_max) {
        estimate = median_of(fe, FEE_HORIZON_MEDIUM, target, SUFFICIENT_FEETXS, threshold, result);
    } else {
        estimate = median_of(fe, FEE_HORIZON_LONG, target, SUFFICIENT_FEETXS, threshold, result);
    }
    if (check_shorter) {
        struct fee_estimation temp;
        fee_estimation_init(&temp);
        if (target > med_max) {
            double med =
                median_of(fe, FEE_HORIZON_MEDIUM, med_max, SUFFICIENT_FEETXS, threshold, &temp);
            if (med > 0 && (estimate == -1 || med < estimate)) {
                estimate = med;
                if (result) {
                    *result = temp;
                }
            }
        }
        if (target > short_max) {
            double shrt =
                median_of(fe, FEE_HORIZON_SHORT, short_max, SUFFICIENT_TXS_SHORT, threshold, &temp);
            if (shrt > 0 && (estimate == -1 || shrt < estimate)) {
                estimate = shrt;
                if (result) {
                    *result = temp;
                }
            }
        }
    }
    return estimate;
}

/* Core's estimateConservativeFee: 95% within double_target on the medium and long horizons
 * too. (Core tests the medium one against the short horizon's maximum, and so does this.) */
static double estimate_conservative(const struct fee_estimator *fe, unsigned double_target,
                                    struct fee_estimation *result)
{
    double estimate = -1;
    struct fee_estimation temp;
    fee_estimation_init(&temp);
    if (double_target <= stats_max_confirms(&fe->st[FEE_HORIZON_SHORT])) {
        estimate = median_of(fe, FEE_HORIZON_MEDIUM, double_target, SUFFICIENT_FEETXS,
                             DOUBLE_SUCCESS_PCT, result);
    }
    if (double_target <= stats_max_confirms(&fe->st[FEE_HORIZON_MEDIUM])) {
        double long_est = median_of(fe, FEE_HORIZON_LONG, double_target, SUFFICIENT_FEETXS,
                                    DOUBLE_SUCCESS_PCT, &temp);
        if (long_est > estimate) {
            estimate = long_est;
            if (result) {
                *result = temp;
            }
        }
    }
    return estimate;
}

int fee_estimator_smart(struct fee_estimator *fe, struct fee_smart_result *out, int conf_target,
                        bool conservative, int64_t mempool_min_sat_kvb, int64_t min_relay_sat_kvb)
{
    memset(out, 0, sizeof(*out));
    fee_estimation_init(&out->est);
    out->reason = FEE_REASON_NONE;
    pthread_mutex_lock(&fe->mu);
    out->desired_target = conf_target;
    out->returned_target = conf_target;
    out->best_height = fe->best_seen;
    double median = -1;
    struct fee_estimation temp;
    fee_estimation_init(&temp);

    if (conf_target <= 0 || (unsigned)conf_target > stats_max_confirms(&fe->st[FEE_HORIZON_LONG])) {
        goto out;
    }
    /* No reasonable estimate exists for the next block alone. */
    if (conf_target == 1) {
        conf_target = 2;
    }
    unsigned max_usable = max_usable_estimate(fe);
    if ((unsigned)conf_target > max_usable) {
        conf_target = (int)max_usable;
    }
    out->returned_target = conf_target;
    if (conf_target <= 1) {
        goto out;
    }
    /* target / 2 and target also look at the shorter horizons' maxima to keep the estimates
     * monotonic; 2 * target does so only when not conservative (conservative takes the max
     * over the horizons instead). */
    unsigned t = (unsigned)conf_target;
    double half_est = estimate_combined(fe, t / 2, HALF_SUCCESS_PCT, true, &temp);
    out->est = temp;
    out->reason = FEE_REASON_HALF_ESTIMATE;
    median = half_est;
    double actual_est = estimate_combined(fe, t, SUCCESS_PCT, true, &temp);
    if (actual_est > median) {
        median = actual_est;
        out->est = temp;
        out->reason = FEE_REASON_FULL_ESTIMATE;
    }
    double double_est = estimate_combined(fe, 2 * t, DOUBLE_SUCCESS_PCT, !conservative, &temp);
    if (double_est > median) {
        median = double_est;
        out->est = temp;
        out->reason = FEE_REASON_DOUBLE_ESTIMATE;
    }
    if (conservative || median == -1) {
        double cons_est = estimate_conservative(fe, 2 * t, &temp);
        if (cons_est > median) {
            median = cons_est;
            out->est = temp;
            out->reason = FEE_REASON_CONSERVATIVE;
        }
    }
out:
    pthread_mutex_unlock(&fe->mu);
    if (median >= 0) {
        int64_t rate = llround(median);
        /* CFeeRate(0) is Core's "no estimate": only a nonzero rate is raised to the floors. */
        if (rate != 0) {
            if (rate < mempool_min_sat_kvb) {
                rate = mempool_min_sat_kvb;
            }
            if (rate < min_relay_sat_kvb) {
                rate = min_relay_sat_kvb;
            }
        }
        out->feerate_sat_kvb = rate;
    }
    return RC_OK;
}

int fee_estimator_raw(struct fee_estimator *fe, int64_t *feerate_sat_kvb,
                      struct fee_estimation *est, int conf_target, double threshold,
                      enum fee_horizon horizon)
{
    *feerate_sat_kvb = 0;
    if (horizon != FEE_HORIZON_SHORT && horizon != FEE_HORIZON_MEDIUM &&
        horizon != FEE_HORIZON_LONG) {
        return RC_USAGE;
    }
    double sufficient = horizon == FEE_HORIZON_SHORT ? SUFFICIENT_TXS_SHORT : SUFFICIENT_FEETXS;
    pthread_mutex_lock(&fe->mu);
    const struct fee_stats *s = &fe->st[horizon];
    if (conf_target <= 0 || (unsigned)conf_target > stats_max_confirms(s) || threshold > 1) {
        goto out;
    }
    double median = stats_estimate_median(s, fe->buckets, conf_target, sufficient, threshold,
                                          fe->best_seen, est);
    if (median >= 0) {
        *feerate_sat_kvb = llround(median);
    }
out:
    pthread_mutex_unlock(&fe->mu);
    return RC_OK;
}

unsigned fee_estimator_max_target(struct fee_estimator *fe, enum fee_horizon horizon)
{
    if (horizon != FEE_HORIZON_SHORT && horizon != FEE_HORIZON_MEDIUM &&
        horizon != FEE_HORIZON_LONG) {
        return 0;
    }
    pthread_mutex_lock(&fe->mu);
    unsigned r = stats_max_confirms(&fe->st[horizon]);
    pthread_mutex_unlock(&fe->mu);
    return r;
}

const char *fee_horizon_name(enum fee_horizon horizon)
{
    switch (horizon) {
    case FEE_HORIZON_SHORT:
        return "short";
    case FEE_HORIZON_MEDIUM:
        return "medium";
    case FEE_HORIZON_LONG:
        return "long";
    }
    return NULL;
}

unsigned fee_estimator_best_height(struct fee_estimator *fe)
{
    pthread_mutex_lock(&fe->mu);
    unsigned r = fe->best_seen;
    pthread_mutex_unlock(&fe->mu);
    return r;
}
