/* fee_estimates.dat (fees.h): the estimator's history in Bitcoin Core's format (its
 * CBlockPolicyEstimator::Write and Read, version 309900), doc/files.md "Fee estimates
 * (fee_estimates.dat)". Reading builds the new horizons apart and swaps them in only when
 * the whole file checked out, with Core's checks in Core's order and Core's messages.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mempool/fees.h"
#include "mempool/fees_impl.h"
#include "primitives/serialize.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#if !defined(__STDC_IEC_559__)
#error "fee_estimates.dat stores IEEE 754 doubles: this code needs them natively"
#endif

/* What Core's Read accepts: 2..1000 buckets, 1..1008 confirmations per horizon. */
#define FILE_MAX_BUCKETS 1000
#define FILE_MAX_CONFIRMS (6 * 24 * 7)
#define FILE_MAX_BYTES (16u << 20)

/* Core's EncodeDouble / DecodeDouble are the IEEE 754 bits on every platform that has them
 * natively (one NaN). */
static void put_double(struct buf *out, double v)
{
    uint64_t bits;
    if (isnan(v)) {
        bits = 0x7ff8000000000000ull;
    } else {
        memcpy(&bits, &v, 8);
    }
    buf_put_u64le(out, bits);
}

static void put_doubles(struct buf *out, const double *v, size_t n)
{
    ser_put_compact(out, n);
    for (size_t i = 0; i < n; i++) {
        put_double(out, v[i]);
    }
}

/* Core's TxConfirmStats::Write. */
static void stats_serialize(const struct fee_stats *s, struct buf *out)
{
    put_double(out, s->decay);
    buf_put_u32le(out, s->scale);
    put_doubles(out, s->feerate_avg, s->nb);
    put_doubles(out, s->tx_ct_avg, s->nb);
    ser_put_compact(out, s->periods);
    for (size_t i = 0; i < s->periods; i++) {
        put_doubles(out, s->conf_avg + i * s->nb, s->nb);
    }
    ser_put_compact(out, s->periods);
    for (size_t i = 0; i < s->periods; i++) {
        put_doubles(out, s->fail_avg + i * s->nb, s->nb);
    }
}

void fee_estimator_serialize(struct fee_estimator *fe, struct buf *out)
{
    pthread_mutex_lock(&fe->mu);
    buf_put_u32le(out, (uint32_t)FEE_FILE_VERSION);
    buf_put_u32le(out, fe->best_seen);
    /* The span worth keeping: this run's, unless the loaded history is more than twice as
     * long. */
    if (fee_block_span(fe) > fee_historical_span(fe) / 2) {
        buf_put_u32le(out, fe->first_recorded);
        buf_put_u32le(out, fe->best_seen);
    } else {
        buf_put_u32le(out, fe->historical_first);
        buf_put_u32le(out, fe->historical_best);
    }
    put_doubles(out, fe->buckets, fe->nb);
    /* Core's order: medium (its feeStats), short, long. */
    stats_serialize(&fe->st[FEE_HORIZON_MEDIUM], out);
    stats_serialize(&fe->st[FEE_HORIZON_SHORT], out);
    stats_serialize(&fe->st[FEE_HORIZON_LONG], out);
    pthread_mutex_unlock(&fe->mu);
}

static int corrupt(struct reader *r, const char *msg)
{
    return reader_fail(r, RC_CORRUPT, "Corrupt estimates file. %s", msg);
}

static int get_double(struct reader *r, double *out, const char *what)
{
    uint64_t bits;
    int rc = reader_u64le(r, &bits, what);
    if (rc != RC_OK) {
        return rc;
    }
    memcpy(out, &bits, 8);
    return RC_OK;
}

/* A vector of doubles: a CompactSize count, then each. *out is a new array (NULL when
 * empty). */
static int get_doubles(struct reader *r, double **out, size_t *n, const char *what)
{
    uint64_t count;
    *out = NULL;
    *n = 0;
    int rc = ser_get_compact(r, &count, what);
    if (rc != RC_OK) {
        return rc;
    }
    if (count > reader_left(r) / 8) {
        return reader_fail(r, RC_TRUNCATED,
                           "truncated reading %s at offset %zu: %" PRIu64 " values need %" PRIu64
                           " bytes, %zu left",
                           what, r->pos, count, count * 8, reader_left(r));
    }
    double *v = count ? xmalloc((size_t)count * sizeof(double)) : NULL;
    for (size_t i = 0; i < count; i++) {
        get_double(r, &v[i], what);
    }
    *out = v;
    *n = (size_t)count;
    return RC_OK;
}

/* A vector of vectors of doubles, each row checked to hold nb values (after the whole was
 * read, as Core checks it) into a periods x nb array. */
struct rows {
    size_t n;
    double **row;
    size_t *len;
};

static void rows_clear(struct rows *rs)
{
    for (size_t i = 0; i < rs->n; i++) {
        free(rs->row[i]);
    }
    free(rs->row);
    free(rs->len);
    memset(rs, 0, sizeof(*rs));
}

static int get_rows(struct reader *r, struct rows *rs, const char *what)
{
    uint64_t count;
    memset(rs, 0, sizeof(*rs));
    int rc = ser_get_compact(r, &count, what);
    if (rc != RC_OK) {
        return rc;
    }
    if (count > reader_left(r)) { /* each row takes at least its count byte */
        return reader_fail(r, RC_TRUNCATED,
                           "truncated reading %s at offset %zu: %" PRIu64 " rows, %zu bytes left",
                           what, r->pos, count, reader_left(r));
    }
    rs->row = xcalloc(count ? (size_t)count : 1, sizeof(double *));
    rs->len = xcalloc(count ? (size_t)count : 1, sizeof(size_t));
    for (size_t i = 0; i < count; i++) {
        rc = get_doubles(r, &rs->row[i], &rs->len[i], what);
        rs->n = i + 1;
        if (rc != RC_OK) {
            return rc;
        }
    }
    return RC_OK;
}

static double *rows_flatten(const struct rows *rs, size_t nb)
{
    size_t cells = rs->n * nb;
    double *a = xcalloc(cells > 0 ? cells : 1, sizeof(double));
    for (size_t i = 0; i < rs->n; i++) {
        memcpy(a + i * nb, rs->row[i], nb * sizeof(double));
    }
    return a;
}

/* Core's TxConfirmStats::Read, with its checks in its order. */
static int stats_deserialize(struct fee_stats *s, struct reader *r, size_t nb, const char *name)
{
    char what[64];
    struct rows conf = {0}, fail = {0};
    memset(s, 0, sizeof(*s));
    s->nb = nb;
    snprintf(what, sizeof(what), "%s decay", name);
    if (get_double(r, &s->decay, what) != RC_OK) {
        goto fail;
    }
    /* NaN is refused too (Core would take it and answer NaN feerates). */
    if (!(s->decay > 0 && s->decay < 1)) {
        corrupt(r, "Decay must be between 0 and 1 (non-inclusive)");
        goto fail;
    }
    snprintf(what, sizeof(what), "%s scale", name);
    if (reader_u32le(r, &s->scale, what) != RC_OK) {
        goto fail;
    }
    if (s->scale == 0) {
        corrupt(r, "Scale must be non-zero");
        goto fail;
    }
    size_t n;
    snprintf(what, sizeof(what), "%s feerate averages", name);
    if (get_doubles(r, &s->feerate_avg, &n, what) != RC_OK) {
        goto fail;
    }
    if (n != nb) {
        corrupt(r, "Mismatch in feerate average bucket count");
        goto fail;
    }
    snprintf(what, sizeof(what), "%s tx count averages", name);
    if (get_doubles(r, &s->tx_ct_avg, &n, what) != RC_OK) {
        goto fail;
    }
    if (n != nb) {
        corrupt(r, "Mismatch in tx count bucket count");
        goto fail;
    }
    snprintf(what, sizeof(what), "%s confirmation averages", name);
    if (get_rows(r, &conf, what) != RC_OK) {
        goto fail;
    }
    uint64_t max_confirms = (uint64_t)s->scale * conf.n;
    if (max_confirms == 0 || max_confirms > FILE_MAX_CONFIRMS) {
        corrupt(r, " Must maintain estimates for between 1 and 1008 (one week) confirms");
        goto fail;
    }
    for (size_t i = 0; i < conf.n; i++) {
        if (conf.len[i] != nb) {
            corrupt(r, "Mismatch in feerate conf average bucket count");
            goto fail;
        }
    }
    snprintf(what, sizeof(what), "%s failure averages", name);
    if (get_rows(r, &fail, what) != RC_OK) {
        goto fail;
    }
    if (fail.n != conf.n) {
        corrupt(r, "Mismatch in confirms tracked for failures");
        goto fail;
    }
    for (size_t i = 0; i < fail.n; i++) {
        if (fail.len[i] != nb) {
            corrupt(r, "Mismatch in one of failure average bucket counts");
            goto fail;
        }
    }
    s->periods = conf.n;
    s->conf_avg = rows_flatten(&conf, nb);
    s->fail_avg = rows_flatten(&fail, nb);
    rows_clear(&conf);
    rows_clear(&fail);
    fee_stats_alloc_unconf(s);
    return RC_OK;
fail:
    rows_clear(&conf);
    rows_clear(&fail);
    fee_stats_clear(s);
    return r->rc != RC_OK ? r->rc : RC_CORRUPT;
}

int fee_estimator_deserialize(struct fee_estimator *fe, const uint8_t *p, size_t len, char *err,
                              size_t err_len)
{
    struct reader r;
    reader_init(&r, p, len);
    struct fee_stats st[FEE_HORIZON_COUNT];
    memset(st, 0, sizeof(st));
    double *buckets = NULL;
    size_t nb = 0;
    int rc;
    uint32_t version, best, hist_first, hist_best;
    if (reader_u32le(&r, &version, "version") != RC_OK) {
        goto fail;
    }
    int32_t v = (int32_t)version;
    if (v > FEE_FILE_VERSION) {
        reader_fail(&r, RC_INVALID, "File version (%d) too high to be read.", (int)v);
        goto fail;
    }
    if (v < FEE_FILE_VERSION) {
        reader_fail(&r, RC_INVALID, "File version (%d) incompatible: Too old to be read", (int)v);
        goto fail;
    }
    if (reader_u32le(&r, &best, "best seen height") != RC_OK ||
        reader_u32le(&r, &hist_first, "historical first height") != RC_OK ||
        reader_u32le(&r, &hist_best, "historical best height") != RC_OK) {
        goto fail;
    }
    if (hist_first > hist_best || hist_best > best) {
        corrupt(&r, "Historical block range for estimates is invalid");
        goto fail;
    }
    if (get_doubles(&r, &buckets, &nb, "buckets") != RC_OK) {
        goto fail;
    }
    if (nb <= 1 || nb > FILE_MAX_BUCKETS) {
        corrupt(&r, "Must have between 2 and 1000 feerate buckets");
        goto fail;
    }
    for (size_t i = 0; i < nb; i++) {
        /* Core's bucket map cannot order a NaN bound. */
        if (isnan(buckets[i])) {
            corrupt(&r, "Feerate bucket bound is not a number");
            goto fail;
        }
    }
    /* Core's order: medium, short, long. */
    if (stats_deserialize(&st[FEE_HORIZON_MEDIUM], &r, nb, "medium") != RC_OK ||
        stats_deserialize(&st[FEE_HORIZON_SHORT], &r, nb, "short") != RC_OK ||
        stats_deserialize(&st[FEE_HORIZON_LONG], &r, nb, "long") != RC_OK) {
        goto fail;
    }

    pthread_mutex_lock(&fe->mu);
    free(fe->buckets);
    fe->buckets = buckets;
    fe->nb = nb;
    fee_map_build(fe);
    for (int k = 0; k < FEE_HORIZON_COUNT; k++) {
        fee_stats_clear(&fe->st[k]);
        fe->st[k] = st[k];
    }
    /* The tracked transactions' counters were in the horizons just replaced. */
    fee_tracked_reset(fe);
    fe->best_seen = best;
    fe->historical_first = hist_first;
    fe->historical_best = hist_best;
    /* This run's span starts over with the loaded height (Core loads only at start-up, where
     * it is 0 already; later, an old first height could lie above the loaded best). */
    fe->first_recorded = 0;
    pthread_mutex_unlock(&fe->mu);
    return RC_OK;

fail:
    rc = r.rc != RC_OK ? r.rc : RC_CORRUPT;
    snprintf(err, err_len, "%s", r.err[0] ? r.err : rc_str(rc));
    for (int k = 0; k < FEE_HORIZON_COUNT; k++) {
        fee_stats_clear(&st[k]);
    }
    free(buckets);
    return rc;
}

int fee_estimator_save(struct fee_estimator *fe, const char *path, char *err, size_t err_len)
{
    struct buf b;
    buf_init(&b);
    fee_estimator_serialize(fe, &b);
    int rc = fs_write_file_atomic(path, b.data, b.len, 0600, err, err_len);
    buf_clear(&b);
    return rc;
}

int fee_estimator_load(struct fee_estimator *fe, const char *path, int64_t now_s, bool accept_stale,
                       char *err, size_t err_len)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        if (errno == ENOENT) {
            snprintf(err, err_len, "%s is not found. Continue anyway.", path);
            return RC_NOT_FOUND;
        }
        snprintf(err, err_len, "cannot stat %s: %s", path, strerror(errno));
        return RC_IO;
    }
    /* Whole hours, truncated, as Core's duration_cast<hours>. */
    int64_t age_h = (now_s - (int64_t)sb.st_mtime) / 3600;
    if (age_h > FEE_MAX_FILE_AGE_HOURS && !accept_stale) {
        snprintf(err, err_len,
                 "Fee estimation file %s too old (age=%lld > %d hours) and will not be used to "
                 "avoid serving stale estimates.",
                 path, (long long)age_h, FEE_MAX_FILE_AGE_HOURS);
        return RC_INVALID;
    }
    struct buf b;
    buf_init(&b);
    char why[256];
    int rc = fs_read_file(path, &b, FILE_MAX_BYTES, why, sizeof(why));
    if (rc == RC_NOT_FOUND) {
        snprintf(err, err_len, "%s is not found. Continue anyway.", path);
    } else if (rc != RC_OK) {
        snprintf(err, err_len, "Failed to read fee estimates from %s: %s", path, why);
    } else {
        rc = fee_estimator_deserialize(fe, b.data, b.len, why, sizeof(why));
        if (rc != RC_OK) {
            snprintf(err, err_len,
                     "Unable to read policy estimator data (non-fatal): %s. Failed to read fee "
                     "estimates from %s. Continue anyway.",
                     why, path);
        }
    }
    buf_clear(&b);
    return rc;
}
