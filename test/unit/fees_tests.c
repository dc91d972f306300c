/* Fee estimation (mempool/fees.h) and its RPC methods (rpc/fees.c).
 *
 * Synthetic histories (transactions at distinct fee rates that confirm after known delays)
 * check that estimates land in the right buckets, fall as the target grows, and need enough
 * blocks first; fee_estimates.dat round trips and refusals; and a history recorded on
 * Bitcoin Core v31.99 in regtest (test/data/fees, see contrib/fees/core_history.py), replayed
 * here, must give Core's estimatesmartfee and estimaterawfee answers and Core's file byte for
 * byte, and Core's file loaded here must give the answers Core gave from it.
 */
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include "mempool/fees.h"
#include "node/context.h"
#include "rpc/context.h"
#include "rpc/fees.h"
#include "rpc/json.h"
#include "rpc/jsonrpc.h"
#include "test.h"
#include "util/buf.h"
#include "util/file.h"
#include "util/hex.h"
#include "util/rc.h"

/* ---- helpers ------------------------------------------------------------------------- */

static void txid_of(uint8_t out[32], uint32_t n)
{
    memset(out, 0, 32);
    out[0] = (uint8_t)n;
    out[1] = (uint8_t)(n >> 8);
    out[2] = (uint8_t)(n >> 16);
    out[3] = (uint8_t)(n >> 24);
    out[31] = 0xfe;
}

static bool add_tx(struct fee_estimator *fe, uint32_t id, int64_t fee, int64_t vsize,
                   unsigned height)
{
    struct fee_tx_entry e = {.fee_sat = fee,
                             .vsize = vsize,
                             .height = height,
                             .chainstate_is_current = true,
                             .has_no_mempool_parents = true};
    txid_of(e.txid, id);
    bool tracked = false;
    CHECK_EQ_INT(fee_estimator_tx_added(fe, &tracked, &e), RC_OK);
    return tracked;
}

static int64_t smart(struct fee_estimator *fe, int target, bool conservative, int *blocks)
{
    struct fee_smart_result r;
    CHECK_EQ_INT(fee_estimator_smart(fe, &r, target, conservative, 0, 0), RC_OK);
    if (blocks) {
        *blocks = r.returned_target;
    }
    return r.feerate_sat_kvb;
}

static int64_t raw(struct fee_estimator *fe, int target, double thr, enum fee_horizon h,
                   struct fee_estimation *est)
{
    int64_t rate = -1;
    struct fee_estimation tmp;
    fee_estimation_init(est ? est : &tmp);
    CHECK_EQ_INT(fee_estimator_raw(fe, &rate, est ? est : &tmp, target, thr, h), RC_OK);
    return rate;
}

/* The synthetic market: rate k (1000 * 2^k sat/kvB, k = 0..7, each in its own bucket) has
 * three transactions entering every block, confirmed exactly 8 - k blocks later. Runs
 * blocks up to last_height (the first block is height 1); ids continue from *next_id. */
#define N_RATES 8
static int64_t rate_k(int k)
{
    return 1000LL << k;
}
static int delay_k(int k)
{
    return 8 - k;
}

struct market {
    struct fee_estimator *fe;
    unsigned height;
    unsigned start; /* the height before the first market block */
    uint32_t next_id;
    /* ids entered at height h with rate k: first id at ids[h][k], three consecutive */
    uint32_t ids[512][N_RATES];
};

static void market_block(struct market *m)
{
    unsigned h = ++m->height;
    uint8_t(*txids)[32] = calloc(3 * N_RATES, 32);
    size_t n = 0;
    for (int k = 0; k < N_RATES; k++) {
        int entered = (int)h - delay_k(k);
        if (entered > (int)m->start) {
            for (int i = 0; i < 3; i++) {
                txid_of(txids[n++], m->ids[entered][k] + (uint32_t)i);
            }
        }
    }
    size_t counted = 0;
    CHECK_EQ_INT(fee_estimator_block_connected(m->fe, &counted, h, (const uint8_t(*)[32])txids, n),
                 RC_OK);
    CHECK_EQ_U64(counted, n);
    free(txids);
    for (int k = 0; k < N_RATES; k++) {
        m->ids[h][k] = m->next_id;
        for (int i = 0; i < 3; i++) {
            /* vsize 250, fee chosen for the rate: fee * 1000 / 250. */
            CHECK(add_tx(m->fe, m->next_id++, rate_k(k) / 4, 250, h));
        }
    }
}

static struct market *market_new(void)
{
    struct market *m = calloc(1, sizeof(*m));
    m->fe = fee_estimator_new();
    m->next_id = 1;
    return m;
}

static void market_free(struct market *m)
{
    fee_estimator_free(m->fe);
    free(m);
}

/* ---- the estimator ------------------------------------------------------------------- */

/* A new estimator: Core's horizons (12, 48, 1008 blocks) and no answer anywhere; raw
 * estimates report the whole feerate range as the failing one, as Core's do. */
static void test_empty(void)
{
    struct fee_estimator *fe = fee_estimator_new();
    CHECK_EQ_INT(fee_estimator_max_target(fe, FEE_HORIZON_SHORT), 12);
    CHECK_EQ_INT(fee_estimator_max_target(fe, FEE_HORIZON_MEDIUM), 48);
    CHECK_EQ_INT(fee_estimator_max_target(fe, FEE_HORIZON_LONG), 1008);
    CHECK_EQ_INT(fee_estimator_max_target(fe, (enum fee_horizon)7), 0);
    CHECK_EQ_STR(fee_horizon_name(FEE_HORIZON_MEDIUM), "medium");
    int blocks = -1;
    CHECK_EQ_INT(smart(fe, 6, false, &blocks), 0);
    CHECK_EQ_INT(blocks, 0);
    CHECK_EQ_INT(smart(fe, 1009, false, &blocks), 0);
    CHECK_EQ_INT(blocks, 1009);
    struct fee_estimation est;
    CHECK_EQ_INT(raw(fe, 6, 0.95, FEE_HORIZON_SHORT, &est), 0);
    CHECK(est.fail.start == 0 && est.fail.end == 1e99 && est.pass.start == -1);
    CHECK(est.decay == .962 && est.scale == 1);
    /* Outside the horizon: nothing filled in. */
    CHECK_EQ_INT(raw(fe, 13, 0.95, FEE_HORIZON_SHORT, &est), 0);
    CHECK(est.fail.start == -1 && est.scale == 0);
    int64_t r;
    CHECK_EQ_INT(fee_estimator_raw(fe, &r, NULL, 5, 0.5, (enum fee_horizon)3), RC_USAGE);
    /* Bad amounts are refused, not tracked. */
    struct fee_tx_entry e = {
        .fee_sat = -1, .vsize = 100, .chainstate_is_current = true, .has_no_mempool_parents = true};
    bool tracked = true;
    CHECK_EQ_INT(fee_estimator_tx_added(fe, &tracked, &e), RC_USAGE);
    CHECK(!tracked);
    e.fee_sat = 100;
    e.vsize = 0;
    CHECK_EQ_INT(fee_estimator_tx_added(fe, &tracked, &e), RC_USAGE);
    fee_estimator_free(fe);
    fee_estimator_free(NULL);
}

/* Only what Core counts is tracked: at the height the estimator has seen, with none of the
 * four exclusions; a block at or below the last height is ignored. */
static void test_tracking_rules(void)
{
    struct fee_estimator *fe = fee_estimator_new();
    size_t counted = 9;
    CHECK_EQ_INT(fee_estimator_block_connected(fe, &counted, 10, NULL, 0), RC_OK);
    CHECK_EQ_INT(counted, 0);
    CHECK_EQ_INT(fee_estimator_best_height(fe), 10);
    CHECK(!add_tx(fe, 1, 1000, 200, 9));  /* behind */
    CHECK(!add_tx(fe, 2, 1000, 200, 11)); /* ahead of the estimator */
    CHECK(add_tx(fe, 3, 1000, 200, 10));
    CHECK(!add_tx(fe, 3, 1000, 200, 10)); /* already tracked */
    struct fee_tx_entry e = {.fee_sat = 1000,
                             .vsize = 200,
                             .height = 10,
                             .chainstate_is_current = true,
                             .has_no_mempool_parents = true};
    bool tracked;
    e.mempool_limit_bypassed = true;
    txid_of(e.txid, 4);
    fee_estimator_tx_added(fe, &tracked, &e);
    CHECK(!tracked);
    e.mempool_limit_bypassed = false;
    e.submitted_in_package = true;
    fee_estimator_tx_added(fe, &tracked, &e);
    CHECK(!tracked);
    e.submitted_in_package = false;
    e.chainstate_is_current = false;
    fee_estimator_tx_added(fe, &tracked, &e);
    CHECK(!tracked);
    e.chainstate_is_current = true;
    e.has_no_mempool_parents = false;
    fee_estimator_tx_added(fe, &tracked, &e);
    CHECK(!tracked);
    e.has_no_mempool_parents = true;
    fee_estimator_tx_added(fe, &tracked, &e);
    CHECK(tracked);

    uint8_t ids[2][32];
    txid_of(ids[0], 3);
    txid_of(ids[1], 4);
    /* A reorg to a lower height or the same one: ignored, nothing recorded or forgotten. */
    CHECK_EQ_INT(fee_estimator_block_connected(fe, &counted, 10, (const uint8_t(*)[32])ids, 2),
                 RC_OK);
    CHECK_EQ_INT(counted, 0);
    CHECK_EQ_INT(fee_estimator_block_connected(fe, &counted, 11, (const uint8_t(*)[32])ids, 2),
                 RC_OK);
    CHECK_EQ_INT(counted, 2);
    bool was = true;
    CHECK_EQ_INT(fee_estimator_tx_removed(fe, &was, ids[0]), RC_OK);
    CHECK(!was); /* confirmed: no longer tracked */
    fee_estimator_free(fe);
}

/* Many transactions at distinct fee rates, confirmed after delays that shrink as the rate
 * grows: the raw estimate for target t is the lowest rate confirmed within t, in its own
 * bucket; smart estimates fall as the target grows; and the pass range brackets the rate. */
static void test_synthetic_buckets(void)
{
    struct market *m = market_new();
    for (int i = 0; i < 200; i++) {
        market_block(m);
    }
    struct fee_estimation est;
    for (int t = 1; t <= 12; t++) {
        int k = 8 - t < 0 ? 0 : 8 - t;
        int64_t got = raw(m->fe, t, 0.95, FEE_HORIZON_SHORT, &est);
        CHECK_EQ_INT(got, rate_k(k));
        CHECK(est.pass.start < (double)rate_k(k) && (double)rate_k(k) <= est.pass.end);
        CHECK(est.pass.within_target > 0 && est.pass.within_target == est.pass.total_confirmed);
        if (k > 0) {
            /* The next rate down fails: its transactions wait longer than t. */
            CHECK(est.fail.end < (double)rate_k(k) && est.fail.end >= (double)rate_k(k - 1));
            CHECK(est.fail.within_target == 0 && est.fail.in_mempool > 0);
        } else {
            CHECK(est.fail.start == 0 && est.fail.total_confirmed == 0);
        }
    }
    /* The long horizon counts in periods of 24 blocks: everything confirmed within one. */
    CHECK_EQ_INT(raw(m->fe, 24, 0.95, FEE_HORIZON_LONG, &est), rate_k(0));
    CHECK(est.scale == 24 && est.decay == .99931);
    /* None has waited 24 blocks, yet Core counts 24 "in the mempool": below height 1008 its
     * unsigned (height - confirms) % 1008 wraps modulo 2^32 onto the ring rows of heights
     * 193..200, where the lowest rate's last 8 blocks of transactions wait. */
    CHECK(est.pass.in_mempool == 24);

    int64_t prev = INT64_MAX;
    for (int t = 1; t <= 30; t++) {
        int blocks;
        int64_t e = smart(m->fe, t, false, &blocks);
        int64_t c = smart(m->fe, t, true, NULL);
        CHECK_EQ_INT(blocks, t < 2 ? 2 : t);
        /* The 60% estimate at half the target decides here. */
        int half = (t < 2 ? 2 : t) / 2;
        int k = 8 - half < 0 ? 0 : 8 - half;
        CHECK_EQ_INT(e, rate_k(k));
        CHECK(c >= e);
        CHECK(e <= prev);
        prev = e;
    }
    /* Floors: the mempool minimum and the relay minimum raise a found rate. */
    struct fee_smart_result r;
    fee_estimator_smart(m->fe, &r, 20, false, 5000, 100);
    CHECK_EQ_INT(r.feerate_sat_kvb, 5000);
    CHECK_EQ_INT(r.reason, FEE_REASON_HALF_ESTIMATE);
    fee_estimator_smart(m->fe, &r, 20, false, 100, 7000);
    CHECK_EQ_INT(r.feerate_sat_kvb, 7000);
    fee_estimator_smart(m->fe, &r, 2, false, 100, 7000);
    CHECK_EQ_INT(r.feerate_sat_kvb, rate_k(7));
    CHECK_EQ_INT(r.best_height, 200);
    CHECK_EQ_INT(r.desired_target, 2);
    market_free(m);
}

/* No estimate until enough blocks: the usable target is half the blocks recorded, and a
 * bucket needs enough (decayed) transactions. */
static void test_insufficient_data(void)
{
    struct market *m = market_new();
    int blocks;
    market_block(m); /* height 1: nothing confirmed yet */
    CHECK_EQ_INT(smart(m->fe, 2, false, &blocks), 0);
    CHECK_EQ_INT(blocks, 0);
    for (int i = 0; i < 4; i++) {
        market_block(m);
    }
    /* Height 5: the first confirmations came at height 2, three blocks recorded since: the
     * usable target is 1, which has no estimate; and four blocks of three confirmations
     * (11.3 decayed) are short of the 0.5 / (1 - .962) = 13.2 the short horizon needs. */
    CHECK_EQ_INT(smart(m->fe, 6, false, &blocks), 0);
    CHECK_EQ_INT(blocks, 1);
    struct fee_estimation est;
    CHECK_EQ_INT(raw(m->fe, 1, 0.95, FEE_HORIZON_SHORT, &est), 0);
    /* Merged with the next bucket down, it fails: only the top rate confirms in 1 block. */
    CHECK(est.pass.start == -1 && est.fail.end == 1e99 && est.fail.start > (double)rate_k(5));
    CHECK(est.fail.within_target > 11 && est.fail.within_target < 11.5);
    /* Height 6: target 2 is usable, and five blocks (13.9) are enough. */
    market_block(m);
    CHECK_EQ_INT(raw(m->fe, 1, 0.95, FEE_HORIZON_SHORT, NULL), rate_k(7));
    CHECK_EQ_INT(smart(m->fe, 6, false, &blocks), rate_k(7));
    CHECK_EQ_INT(blocks, 2);
    for (int i = 0; i < 6; i++) {
        market_block(m);
    }
    /* Height 12: ten blocks recorded, targets up to 5. */
    int64_t e = smart(m->fe, 100, false, &blocks);
    CHECK_EQ_INT(blocks, 5);
    CHECK_EQ_INT(e, smart(m->fe, 5, false, NULL));
    CHECK(e > 0 && e <= rate_k(7));
    market_free(m);
}

/* Transactions that leave the mempool unmined count as failures after the periods they
 * waited: a bucket whose transactions all get evicted never passes. */
static void test_removed_fail(void)
{
    struct market *m = market_new();
    uint32_t evict_base = 1u << 30;
    for (int i = 0; i < 120; i++) {
        market_block(m);
        /* 600 sat/kvB, in a bucket of its own below the market's: evicted after 10 blocks. */
        for (uint32_t j = 0; j < 3; j++) {
            CHECK(add_tx(m->fe, evict_base + m->height * 3 + j, 150, 250, m->height));
        }
        if (m->height > 10) {
            for (uint32_t j = 0; j < 3; j++) {
                uint8_t id[32];
                bool was = false;
                txid_of(id, evict_base + (m->height - 10) * 3 + j);
                fee_estimator_tx_removed(m->fe, &was, id);
                CHECK(was);
            }
        }
    }
    struct fee_estimation est;
    /* Within 8 blocks: the market's lowest rate passes, and below it the evicted ones fail
     * (never confirmed, so their range never holds enough confirmed data and reaches the
     * bottom bucket): 3 a block left, and the two heights' worth still waiting 8+ blocks. */
    CHECK_EQ_INT(raw(m->fe, 8, 0.95, FEE_HORIZON_SHORT, &est), rate_k(0));
    CHECK(est.fail.start == 0 && est.fail.end < 1000 && est.fail.end >= 600);
    CHECK(est.fail.left_mempool > 30 && est.fail.total_confirmed == 0);
    CHECK(est.fail.in_mempool == 6);
    /* Only a failure for the periods waited: at 12 blocks, those evicted after 10 are not
     * counted as failing; and none still waits 12 blocks. */
    CHECK_EQ_INT(raw(m->fe, 12, 0.95, FEE_HORIZON_SHORT, &est), rate_k(0));
    CHECK(est.fail.left_mempool == 0 && est.fail.in_mempool == 0);
    /* Shutdown: what is still tracked counts as unconfirmed once, and is forgotten. */
    fee_estimator_flush_unconfirmed(m->fe);
    CHECK_EQ_INT(raw(m->fe, 8, 0.95, FEE_HORIZON_SHORT, &est), rate_k(0));
    CHECK(est.fail.in_mempool == 0);
    uint8_t id[32];
    bool was = true;
    txid_of(id, evict_base + m->height * 3);
    fee_estimator_tx_removed(m->fe, &was, id);
    CHECK(!was);
    market_free(m);
}

/* Field by field: the structs' padding may differ. */
static int same_range(const struct fee_bucket_range *a, const struct fee_bucket_range *b)
{
    return a->start == b->start && a->end == b->end && a->within_target == b->within_target &&
           a->total_confirmed == b->total_confirmed && a->in_mempool == b->in_mempool &&
           a->left_mempool == b->left_mempool;
}

static int same_estimation(const struct fee_estimation *a, const struct fee_estimation *b)
{
    return same_range(&a->pass, &b->pass) && same_range(&a->fail, &b->fail) &&
           a->decay == b->decay && a->scale == b->scale;
}

/* Every answer of a and b, over all targets, both modes, all horizons, some thresholds. */
static int same_answers(struct fee_estimator *a, struct fee_estimator *b)
{
    int diffs = 0;
    static const int far[] = {60, 100, 144, 200, 500, 1007, 1008, 1009};
    for (int i = -1; i < 50 + (int)(sizeof(far) / sizeof(far[0])); i++) {
        int t = i < 50 ? i : far[i - 50];
        for (int c = 0; c < 2; c++) {
            struct fee_smart_result ra, rb;
            fee_estimator_smart(a, &ra, t, c, 0, 0);
            fee_estimator_smart(b, &rb, t, c, 0, 0);
            diffs += ra.feerate_sat_kvb != rb.feerate_sat_kvb ||
                     ra.returned_target != rb.returned_target || ra.reason != rb.reason;
        }
    }
    static const double thr[] = {0, 0.5, 0.85, 0.95, 1};
    for (int h = 0; h < FEE_HORIZON_COUNT; h++) {
        for (int t = 1; t <= 48; t++) {
            for (size_t i = 0; i < sizeof(thr) / sizeof(thr[0]); i++) {
                struct fee_estimation ea, eb;
                int64_t xa = raw(a, t, thr[i], (enum fee_horizon)h, &ea);
                int64_t xb = raw(b, t, thr[i], (enum fee_horizon)h, &eb);
                diffs += xa != xb || !same_estimation(&ea, &eb);
            }
        }
    }
    return diffs;
}

/* Save, load: the same bytes again and the same answers for every question. */
static void test_roundtrip(void)
{
    struct market *m = market_new();
    for (int i = 0; i < 150; i++) {
        market_block(m);
    }
    fee_estimator_flush_unconfirmed(m->fe);
    struct buf a, b;
    buf_init(&a);
    buf_init(&b);
    fee_estimator_serialize(m->fe, &a);
    struct fee_estimator *fe2 = fee_estimator_new();
    char err[256] = "";
    CHECK_EQ_INT(fee_estimator_deserialize(fe2, a.data, a.len, err, sizeof(err)), RC_OK);
    CHECK_EQ_STR(err, "");
    fee_estimator_serialize(fe2, &b);
    CHECK_EQ_U64(a.len, b.len);
    CHECK_EQ_MEM(a.data, b.data, a.len);
    CHECK_EQ_INT(same_answers(m->fe, fe2), 0);
    CHECK_EQ_INT(fee_estimator_best_height(fe2), 150);
    /* Trailing bytes are ignored, as Core ignores them. */
    buf_put_u8(&a, 0x55);
    struct fee_estimator *fe3 = fee_estimator_new();
    CHECK_EQ_INT(fee_estimator_deserialize(fe3, a.data, a.len, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(same_answers(fe3, fe2), 0);

    /* Through a file, with its age. */
    char path[] = "/tmp/fees_tests_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    CHECK_EQ_INT(fee_estimator_save(m->fe, path, err, sizeof(err)), RC_OK);
    struct stat sb;
    CHECK(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0600);
    int64_t now = (int64_t)time(NULL);
    struct utimbuf ut = {.actime = now, .modtime = now - 60 * 3600 - 3599};
    CHECK(utime(path, &ut) == 0);
    struct fee_estimator *fe4 = fee_estimator_new();
    CHECK_EQ_INT(fee_estimator_load(fe4, path, now, false, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(same_answers(fe4, fe2), 0);
    ut.modtime = now - 61 * 3600;
    CHECK(utime(path, &ut) == 0);
    struct fee_estimator *fe5 = fee_estimator_new();
    CHECK_EQ_INT(fee_estimator_load(fe5, path, now, false, err, sizeof(err)), RC_INVALID);
    CHECK(strstr(err, "too old (age=61 > 60 hours) and will not be used to avoid serving stale "
                      "estimates.") != NULL);
    CHECK_EQ_INT(fee_estimator_best_height(fe5), 0);
    CHECK_EQ_INT(fee_estimator_load(fe5, path, now, true, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(same_answers(fe5, fe2), 0);
    /* A damaged file: refused with Core's two messages, the estimator kept as it was. */
    FILE *fp = fopen(path, "wb");
    CHECK(fp != NULL);
    fwrite(a.data, 1, a.len / 2, fp);
    fclose(fp);
    struct fee_estimator *fe6 = fee_estimator_new();
    CHECK_EQ_INT(fee_estimator_load(fe6, path, now, false, err, sizeof(err)), RC_TRUNCATED);
    CHECK(strstr(err, "Unable to read policy estimator data (non-fatal): truncated reading ") ==
          err);
    CHECK(strstr(err, ". Continue anyway.") != NULL);
    CHECK_EQ_INT(fee_estimator_best_height(fe6), 0);
    fee_estimator_free(fe6);
    unlink(path);
    CHECK_EQ_INT(fee_estimator_load(fe5, path, now, false, err, sizeof(err)), RC_NOT_FOUND);
    CHECK(strstr(err, "is not found. Continue anyway.") != NULL);

    fee_estimator_free(fe2);
    fee_estimator_free(fe3);
    fee_estimator_free(fe4);
    fee_estimator_free(fe5);
    buf_clear(&a);
    buf_clear(&b);
    market_free(m);
}

/* A small file built field by field (the format of doc/files.md), for the refusals. */
struct horizon_spec {
    double decay;
    uint32_t scale;
    size_t periods;
};

static void put_dvec(struct buf *b, size_t n, double v)
{
    buf_put_u8(b, (uint8_t)n); /* small counts: one-byte CompactSize */
    for (size_t i = 0; i < n; i++) {
        uint64_t bits;
        memcpy(&bits, &v, 8);
        buf_put_u64le(b, bits);
    }
}

/* With bad_row set, the first horizon's first confirmation row (1), or its first failure
 * row (2), holds one value too few; or its failure rows are one fewer (3). */
static int bad_row;

static void build_file(struct buf *b, int32_t version, uint32_t best, uint32_t hf, uint32_t hb,
                       size_t nb, const struct horizon_spec hs[3])
{
    buf_reset(b);
    buf_put_u32le(b, (uint32_t)version);
    buf_put_u32le(b, best);
    buf_put_u32le(b, hf);
    buf_put_u32le(b, hb);
    buf_put_u8(b, (uint8_t)nb);
    for (size_t i = 0; i < nb; i++) {
        double v = i + 1 < nb ? 1000.0 * (double)(i + 1) : 1e99;
        uint64_t bits;
        memcpy(&bits, &v, 8);
        buf_put_u64le(b, bits);
    }
    for (int h = 0; h < 3; h++) {
        uint64_t bits;
        memcpy(&bits, &hs[h].decay, 8);
        buf_put_u64le(b, bits);
        buf_put_u32le(b, hs[h].scale);
        put_dvec(b, nb, 2000.0); /* feerate sums */
        put_dvec(b, nb, 1.0);    /* tx counts */
        bool first = h == 0;
        buf_put_u8(b, (uint8_t)hs[h].periods);
        for (size_t p = 0; p < hs[h].periods; p++) {
            put_dvec(b, nb - (first && p == 0 && bad_row == 1), 1.0);
        }
        size_t fails = hs[h].periods - (first && bad_row == 3);
        buf_put_u8(b, (uint8_t)fails);
        for (size_t p = 0; p < fails; p++) {
            put_dvec(b, nb - (first && p == 0 && bad_row == 2), 0.0);
        }
    }
}

static void expect_refused(struct fee_estimator *fe, const struct buf *f, int rc, const char *msg)
{
    char err[256] = "";
    struct buf before, after;
    buf_init(&before);
    buf_init(&after);
    fee_estimator_serialize(fe, &before);
    CHECK_EQ_INT(fee_estimator_deserialize(fe, f->data, f->len, err, sizeof(err)), rc);
    if (strstr(err, msg) == NULL) {
        printf("#   got \"%s\", want \"%s\"\n", err, msg);
        CHECK(0);
    }
    fee_estimator_serialize(fe, &after);
    CHECK(before.len == after.len && memcmp(before.data, after.data, before.len) == 0);
    buf_clear(&before);
    buf_clear(&after);
}

/* Corrupt and truncated files are refused with Core's messages, and the estimator keeps its
 * state; a valid file's own buckets and horizons replace the defaults. */
static void test_refused_files(void)
{
    struct fee_estimator *fe = fee_estimator_new();
    struct buf f;
    buf_init(&f);
    const struct horizon_spec ok[3] = {{.9952, 2, 24}, {.962, 1, 12}, {.99931, 24, 42}};
    struct horizon_spec hs[3];

    build_file(&f, FEE_FILE_VERSION, 100, 50, 90, 5, ok);
    struct fee_estimator *good = fee_estimator_new();
    char err[256];
    CHECK_EQ_INT(fee_estimator_deserialize(good, f.data, f.len, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(fee_estimator_best_height(good), 100);
    /* Every prefix is refused as truncated. */
    for (size_t n = 0; n < f.len; n++) {
        struct buf p = {.data = f.data, .len = n, .cap = f.len};
        char e2[256] = "";
        int rc = fee_estimator_deserialize(fe, p.data, p.len, e2, sizeof(e2));
        if (rc != RC_TRUNCATED && rc != RC_CORRUPT) {
            printf("#   prefix %zu: rc %d (%s)\n", n, rc, e2);
            CHECK(0);
        }
        CHECK(e2[0] != 0);
    }
    struct buf p = {.data = f.data, .len = f.len - 1, .cap = f.len};
    expect_refused(fe, &p, RC_TRUNCATED, "truncated");

    build_file(&f, FEE_FILE_VERSION + 1, 100, 50, 90, 5, ok);
    expect_refused(fe, &f, RC_INVALID, "File version (309901) too high to be read.");
    build_file(&f, 149900, 100, 50, 90, 5, ok);
    expect_refused(fe, &f, RC_INVALID, "File version (149900) incompatible: Too old to be read");
    build_file(&f, FEE_FILE_VERSION, 100, 91, 90, 5, ok);
    expect_refused(fe, &f, RC_CORRUPT,
                   "Corrupt estimates file. Historical block range for estimates is invalid");
    build_file(&f, FEE_FILE_VERSION, 100, 50, 101, 5, ok);
    expect_refused(fe, &f, RC_CORRUPT, "Historical block range for estimates is invalid");
    build_file(&f, FEE_FILE_VERSION, 100, 50, 90, 1, ok);
    expect_refused(fe, &f, RC_CORRUPT, "Must have between 2 and 1000 feerate buckets");
    memcpy(hs, ok, sizeof(hs));
    hs[1].decay = 1.0;
    build_file(&f, FEE_FILE_VERSION, 100, 50, 90, 5, hs);
    expect_refused(fe, &f, RC_CORRUPT, "Decay must be between 0 and 1 (non-inclusive)");
    hs[1].decay = NAN;
    build_file(&f, FEE_FILE_VERSION, 100, 50, 90, 5, hs);
    expect_refused(fe, &f, RC_CORRUPT, "Decay must be between 0 and 1 (non-inclusive)");
    memcpy(hs, ok, sizeof(hs));
    hs[2].scale = 0;
    build_file(&f, FEE_FILE_VERSION, 100, 50, 90, 5, hs);
    expect_refused(fe, &f, RC_CORRUPT, "Scale must be non-zero");
    memcpy(hs, ok, sizeof(hs));
    hs[0].periods = 0;
    build_file(&f, FEE_FILE_VERSION, 100, 50, 90, 5, hs);
    expect_refused(fe, &f, RC_CORRUPT,
                   "Corrupt estimates file.  Must maintain estimates for between 1 and 1008 "
                   "(one week) confirms");
    memcpy(hs, ok, sizeof(hs));
    hs[2].periods = 43; /* 24 * 43 = 1032 confirms */
    build_file(&f, FEE_FILE_VERSION, 100, 50, 90, 5, hs);
    expect_refused(fe, &f, RC_CORRUPT, "between 1 and 1008 (one week) confirms");

    /* Counts that do not match the buckets: patch the first horizon's vectors. */
    build_file(&f, FEE_FILE_VERSION, 100, 50, 90, 3, ok);
    size_t first = 4 * 4 + 1 + 3 * 8 + 8 + 4; /* the first horizon's feerate sums */
    struct buf g;
    buf_init(&g);
    buf_append(&g, f.data, f.len);
    g.data[first] = 2;
    expect_refused(fe, &g, RC_CORRUPT, "Mismatch in feerate average bucket count");
    buf_reset(&g);
    buf_append(&g, f.data, f.len);
    g.data[first + 1 + 3 * 8] = 4;
    expect_refused(fe, &g, RC_CORRUPT, "Mismatch in tx count bucket count");
    bad_row = 1;
    build_file(&g, FEE_FILE_VERSION, 100, 50, 90, 3, ok);
    expect_refused(fe, &g, RC_CORRUPT, "Mismatch in feerate conf average bucket count");
    bad_row = 2;
    build_file(&g, FEE_FILE_VERSION, 100, 50, 90, 3, ok);
    expect_refused(fe, &g, RC_CORRUPT, "Mismatch in one of failure average bucket counts");
    bad_row = 3;
    build_file(&g, FEE_FILE_VERSION, 100, 50, 90, 3, ok);
    expect_refused(fe, &g, RC_CORRUPT, "Mismatch in confirms tracked for failures");
    bad_row = 0;
    /* A count larger than the file: refused before anything is allocated for it. */
    buf_reset(&g);
    buf_append(&g, f.data, 4 * 4);
    buf_put_u8(&g, 0xfe);
    buf_put_u32le(&g, 0x01000000);
    expect_refused(fe, &g, RC_TRUNCATED, "truncated reading buckets");
    /* A non-canonical CompactSize, as Core's ReadCompactSize refuses it. */
    buf_reset(&g);
    buf_append(&g, f.data, 4 * 4);
    buf_put_u8(&g, 0xfd);
    buf_put_u16le(&g, 3);
    expect_refused(fe, &g, RC_NONCANONICAL, "");

    /* The loaded file's buckets and horizons are the ones used: 5 buckets, and a short
     * horizon of 3 periods of 2 blocks. */
    memcpy(hs, ok, sizeof(hs));
    hs[1].scale = 2;
    hs[1].periods = 3;
    build_file(&f, FEE_FILE_VERSION, 100, 50, 90, 5, hs);
    CHECK_EQ_INT(fee_estimator_deserialize(fe, f.data, f.len, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(fee_estimator_max_target(fe, FEE_HORIZON_SHORT), 6);
    struct fee_estimation est;
    /* One tx per bucket is too little for the short horizon (0.5 / (1 - .962) needed), but
     * the medium one (0.1 / (1 - .9952) = 20.8) merges all five buckets: still short. */
    CHECK_EQ_INT(raw(fe, 4, 0.5, FEE_HORIZON_SHORT, &est), 0);
    CHECK(est.fail.start == 0 && est.fail.end == 1e99 && est.scale == 2);
    struct buf round;
    buf_init(&round);
    fee_estimator_serialize(fe, &round);
    CHECK_EQ_U64(round.len, f.len);
    CHECK_EQ_MEM(round.data, f.data, f.len);
    /* After a block, new transactions land in the file's buckets (bounds 1000..4000). */
    fee_estimator_block_connected(fe, NULL, 101, NULL, 0);
    CHECK(add_tx(fe, 77, 3500, 1000, 101));
    uint8_t id[32];
    txid_of(id, 77);
    size_t counted = 0;
    fee_estimator_block_connected(fe, &counted, 102, (const uint8_t(*)[32])id, 1);
    CHECK_EQ_INT(counted, 1);

    /* Loading over a used estimator (this run recorded from height 152 to 200) a file whose
     * history ends at 100: this run's span starts over, no invariant breaks. */
    struct market *m = market_new();
    fee_estimator_block_connected(m->fe, NULL, 150, NULL, 0);
    m->height = m->start = 150;
    for (int i = 0; i < 50; i++) {
        market_block(m);
    }
    build_file(&f, FEE_FILE_VERSION, 100, 50, 90, 5, ok);
    CHECK_EQ_INT(fee_estimator_deserialize(m->fe, f.data, f.len, err, sizeof(err)), RC_OK);
    int blocks;
    CHECK_EQ_INT(smart(m->fe, 6, false, &blocks), 0);
    CHECK_EQ_INT(blocks, 6); /* the file's span, 40 blocks, halved: 20 */
    fee_estimator_block_connected(m->fe, NULL, 101, NULL, 0);
    fee_estimator_serialize(m->fe, &round);
    market_free(m);

    buf_clear(&round);
    buf_clear(&g);
    buf_clear(&f);
    fee_estimator_free(good);
    fee_estimator_free(fe);
}

/* Feeding from one thread while others read: the mutex keeps every answer consistent
 * (run under ThreadSanitizer to see it). */
struct reader_arg {
    struct fee_estimator *fe;
    int answers;
};

static void *reader_thread(void *p)
{
    struct reader_arg *a = p;
    for (int i = 0; i < 300; i++) {
        struct fee_smart_result r;
        fee_estimator_smart(a->fe, &r, 2 + i % 20, i & 1, 0, 0);
        a->answers += r.feerate_sat_kvb > 0;
        struct buf b;
        buf_init(&b);
        if (i % 50 == 0) {
            fee_estimator_serialize(a->fe, &b);
        }
        buf_clear(&b);
    }
    return NULL;
}

static void test_threads(void)
{
    struct market *m = market_new();
    for (int i = 0; i < 20; i++) {
        market_block(m);
    }
    struct reader_arg a[2] = {{m->fe, 0}, {m->fe, 0}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++) {
        pthread_create(&th[i], NULL, reader_thread, &a[i]);
    }
    for (int i = 0; i < 100; i++) {
        market_block(m);
    }
    for (int i = 0; i < 2; i++) {
        pthread_join(th[i], NULL);
    }
    CHECK(a[0].answers > 0 && a[1].answers > 0);
    market_free(m);
}

/* ---- the RPC methods ----------------------------------------------------------------- */

static struct rpc_context *ctx;
static struct node_context node; /* what the fee methods answer from */

/* Calls method with params (JSON text) and returns the reply body (caller frees). */
static char *call(const char *method, const char *params)
{
    char body[512];
    snprintf(body, sizeof(body), "{\"method\":\"%s\",\"params\":%s,\"id\":1}", method, params);
    struct rpc_reply r;
    rpc_handle_body(ctx, body, strlen(body), "user", "/", &r);
    char *out = r.body ? strdup(r.body) : NULL;
    rpc_reply_clear(&r);
    return out;
}

static void expect_call(const char *method, const char *params, const char *want)
{
    char *got = call(method, params);
    CHECK_EQ_STR(got, want);
    free(got);
}

/* Without an estimator (-blocksonly): Core's EnsureFeeEstimator error. With an empty one:
 * Core's answers before it saw anything, and Core's argument errors (the results checked
 * against their declarations: -rpcdoccheck is on). */
static void test_rpc_no_estimator(void)
{
    node.fees = NULL;
    expect_call("estimatesmartfee", "[6]",
                "{\"result\":null,\"error\":{\"code\":-32603,\"message\":\"Fee estimation "
                "disabled\"},\"id\":1}\n");
    expect_call("estimaterawfee", "[6]",
                "{\"result\":null,\"error\":{\"code\":-32603,\"message\":\"Fee estimation "
                "disabled\"},\"id\":1}\n");
    node.fees = fee_estimator_new();
    expect_call("estimatesmartfee", "[6]",
                "{\"result\":{\"errors\":[\"Insufficient data or no feerate found\"],\"blocks\":0},"
                "\"error\":null,\"id\":1}\n");
    expect_call("estimatesmartfee", "[1008,\"CONSERVATIVE\"]",
                "{\"result\":{\"errors\":[\"Insufficient data or no feerate found\"],\"blocks\":0},"
                "\"error\":null,\"id\":1}\n");
    expect_call("estimatesmartfee", "[1009]",
                "{\"result\":null,\"error\":{\"code\":-8,\"message\":\"Invalid conf_target, must "
                "be between 1 and 1008\"},\"id\":1}\n");
    expect_call("estimatesmartfee", "[0]",
                "{\"result\":null,\"error\":{\"code\":-8,\"message\":\"Invalid conf_target, must "
                "be between 1 and 1008\"},\"id\":1}\n");
    expect_call("estimatesmartfee", "[6,\"foo\"]",
                "{\"result\":null,\"error\":{\"code\":-8,\"message\":\"Invalid estimate_mode "
                "parameter, must be one of: \\\"unset\\\", \\\"economical\\\", "
                "\\\"conservative\\\"\"},\"id\":1}\n");
    expect_call("estimatesmartfee", "[\"6\"]",
                "{\"result\":null,\"error\":{\"code\":-3,\"message\":\"Wrong type passed:\\n{\\n"
                "    \\\"Position 1 (conf_target)\\\": \\\"JSON value of type string is not of "
                "expected type number\\\"\\n}\"},\"id\":1}\n");
    expect_call("estimatesmartfee", "[6,\"economical\\u0000\"]",
                "{\"result\":null,\"error\":{\"code\":-8,\"message\":\"Invalid estimate_mode "
                "parameter, must be one of: \\\"unset\\\", \\\"economical\\\", "
                "\\\"conservative\\\"\"},\"id\":1}\n");
    expect_call("estimaterawfee", "[6,2]",
                "{\"result\":null,\"error\":{\"code\":-8,\"message\":\"Invalid threshold\"},"
                "\"id\":1}\n");
    expect_call("estimaterawfee", "[6,-0.1]",
                "{\"result\":null,\"error\":{\"code\":-8,\"message\":\"Invalid threshold\"},"
                "\"id\":1}\n");
    const char *fail = "\"fail\":{\"startrange\":0,\"endrange\":1e+99,\"withintarget\":0,"
                       "\"totalconfirmed\":0,\"inmempool\":0,\"leftmempool\":0},\"errors\":["
                       "\"Insufficient data or no feerate found which meets threshold\"]}";
    char want[2048];
    snprintf(want, sizeof(want),
             "{\"result\":{\"medium\":{\"decay\":0.9952,\"scale\":2,%s,\"long\":{\"decay\":"
             "0.99931,\"scale\":24,%s},\"error\":null,\"id\":1}\n",
             fail, fail);
    expect_call("estimaterawfee", "[13]", want);
    snprintf(want, sizeof(want),
             "{\"result\":{\"short\":{\"decay\":0.962,\"scale\":1,%s,\"medium\":{\"decay\":"
             "0.9952,\"scale\":2,%s,\"long\":{\"decay\":0.99931,\"scale\":24,%s},\"error\":null,"
             "\"id\":1}\n",
             fail, fail, fail);
    expect_call("estimaterawfee", "[6, 0.5]", want);
    expect_call("estimaterawfee", "[6, 1]", want);
    fee_estimator_free(node.fees);
    node.fees = NULL;
}

/* Core's help for both methods, and the overview's line (estimaterawfee is hidden). */
static void test_rpc_help(void)
{
    char *h = rpc_method_help(rpc_find(ctx, "estimatesmartfee"));
    CHECK(strstr(h, "estimatesmartfee conf_target ( \"estimate_mode\" )\n") == h);
    CHECK(strstr(h, "2. estimate_mode    (string, optional, default=\"economical\") The fee "
                    "estimate mode.\n"
                    "                    unset, economical, conservative \n") != NULL);
    CHECK(strstr(h, "  \"feerate\" : n,    (numeric, optional) estimate fee rate in BTC/kvB "
                    "(only present if no errors were encountered)\n") != NULL);
    CHECK(strstr(h, "    \"str\",          (string) error\n") != NULL);
    free(h);
    h = rpc_method_help(rpc_find(ctx, "estimaterawfee"));
    CHECK(strstr(h, "    \"fail\" : {                 (json object, optional) information about "
                    "the highest range of feerates to fail to meet the threshold\n"
                    "      ...\n"
                    "    },\n") != NULL);
    CHECK(strstr(h, "  \"medium\" : {                 (json object, optional) estimate for "
                    "medium time horizon\n"
                    "    ...\n"
                    "  },\n") != NULL);
    CHECK(strstr(h, "      \"str\",                   (string)\n") != NULL);
    CHECK(strstr(h, "> bitnode-cli estimaterawfee 6 0.9\n") != NULL);
    free(h);
    char *o = rpc_help_overview(ctx);
    CHECK_EQ_STR(o, "== Util ==\nestimatesmartfee conf_target ( \"estimate_mode\" )");
    free(o);
}

/* ---- Bitcoin Core's history ---------------------------------------------------------- */

static json_t *load_xz_json(const char *dir, const char *name)
{
    char path[4096], err[256];
    snprintf(path, sizeof(path), "%s/fees/%s/%s", test_data_dir(), dir, name);
    struct buf b;
    buf_init(&b);
    if (file_read_all(&b, path, err, sizeof(err)) != RC_OK) {
        printf("# %s\n", err);
        buf_clear(&b);
        return NULL;
    }
    json_error_t je;
    json_t *v = json_loadb((const char *)b.data, b.len, 0, &je);
    buf_clear(&b);
    return v;
}

/* Asks the RPC method what Core was asked and compares the answers as JSON values. */
static int compare_answers(const json_t *answers)
{
    int bad = 0;
    json_t *smart_a = json_object_get(answers, "smart"), *raw_a = json_object_get(answers, "raw");
    size_t i;
    json_t *a;
    CHECK(json_array_size(smart_a) > 50 && json_array_size(raw_a) > 50);
    for (int pass = 0; pass < 2; pass++) {
        json_array_foreach(pass ? raw_a : smart_a, i, a)
        {
            char params[128];
            if (pass == 0) {
                snprintf(params, sizeof(params), "[%d,\"%s\"]",
                         (int)json_integer_value(json_object_get(a, "target")),
                         json_string_value(json_object_get(a, "mode")));
            } else {
                snprintf(params, sizeof(params), "[%d,%.17g]",
                         (int)json_integer_value(json_object_get(a, "target")),
                         json_real_value(json_object_get(a, "threshold")));
            }
            char *body = call(pass ? "estimaterawfee" : "estimatesmartfee", params);
            json_error_t je;
            json_t *got = body ? json_loads(body, 0, &je) : NULL;
            json_t *res = got ? json_object_get(got, "result") : NULL;
            if (!res || !json_equal(res, json_object_get(a, "result"))) {
                if (bad++ < 3) {
                    char *w = json_dumps(json_object_get(a, "result"), JSON_COMPACT);
                    printf("# %s %s:\n#   got  %s#   want %s\n",
                           pass ? "estimaterawfee" : "estimatesmartfee", params, body, w);
                    free(w);
                }
            }
            json_decref(got);
            free(body);
        }
    }
    return bad;
}

static int replay(struct fee_estimator *fe, const json_t *events)
{
    size_t i;
    json_t *e;
    int bad = 0;
    json_array_foreach(events, i, e)
    {
        if (json_object_get(e, "block")) {
            json_t *ids = json_object_get(e, "txids");
            size_t n = json_array_size(ids);
            uint8_t(*txids)[32] = calloc(n ? n : 1, 32);
            for (size_t j = 0; j < n; j++) {
                bad += hex_decode_hash32_rev(txids[j], json_string_value(json_array_get(ids, j))) !=
                       RC_OK;
            }
            fee_estimator_block_connected(fe, NULL,
                                          (unsigned)json_integer_value(json_object_get(e, "block")),
                                          (const uint8_t(*)[32])txids, n);
            free(txids);
        } else if (json_object_get(e, "tx")) {
            struct fee_tx_entry t = {
                .fee_sat = json_integer_value(json_object_get(e, "fee")),
                .vsize = json_integer_value(json_object_get(e, "vsize")),
                .height = (unsigned)json_integer_value(json_object_get(e, "height")),
                .chainstate_is_current = true,
                .has_no_mempool_parents = !json_is_true(json_object_get(e, "parents"))};
            bad +=
                hex_decode_hash32_rev(t.txid, json_string_value(json_object_get(e, "tx"))) != RC_OK;
            bool tracked = false;
            fee_estimator_tx_added(fe, &tracked, &t);
            bad += !tracked;
        } else {
            uint8_t id[32];
            bad += hex_decode_hash32_rev(id, json_string_value(json_object_get(e, "removed"))) !=
                   RC_OK;
            bool was = false;
            fee_estimator_tx_removed(fe, &was, id);
            bad += !was;
        }
    }
    return bad;
}

/* Core's history replayed: Core's answers, and after the shutdown flush Core's file, byte
 * for byte. Core's file loaded: the answers Core gave from it after a restart. Two histories:
 * from height 300, and from 110, where Core's unsigned ring arithmetic wraps (below 256). */
static void core_history(const char *dir)
{
    json_t *hist = load_xz_json(dir, "history.json.xz");
    json_t *loaded_answers = load_xz_json(dir, "answers_loaded.json.xz");
    char path[4096], err[256];
    snprintf(path, sizeof(path), "%s/fees/%s/fee_estimates.dat.xz", test_data_dir(), dir);
    struct buf core_file;
    buf_init(&core_file);
    int rc = file_read_all(&core_file, path, err, sizeof(err));
    CHECK(hist && loaded_answers && rc == RC_OK);
    if (!hist || !loaded_answers || rc != RC_OK) {
        goto out;
    }
    struct fee_estimator *fe = fee_estimator_new();
    CHECK_EQ_INT(replay(fe, json_object_get(hist, "events")), 0);
    node.fees = fe;
    CHECK_EQ_INT(compare_answers(json_object_get(hist, "answers")), 0);
    fee_estimator_flush_unconfirmed(fe);
    struct buf mine;
    buf_init(&mine);
    fee_estimator_serialize(fe, &mine);
    CHECK_EQ_U64(mine.len, core_file.len);
    if (mine.len == core_file.len && memcmp(mine.data, core_file.data, mine.len) != 0) {
        for (size_t k = 0; k < mine.len; k++) {
            if (mine.data[k] != core_file.data[k]) {
                printf("# first difference at byte %zu\n", k);
                break;
            }
        }
        CHECK(0);
    }

    struct fee_estimator *fe2 = fee_estimator_new();
    CHECK_EQ_INT(fee_estimator_deserialize(fe2, core_file.data, core_file.len, err, sizeof(err)),
                 RC_OK);
    node.fees = fe2;
    CHECK_EQ_INT(compare_answers(loaded_answers), 0);
    struct buf again;
    buf_init(&again);
    fee_estimator_serialize(fe2, &again);
    CHECK(again.len == core_file.len && memcmp(again.data, core_file.data, again.len) == 0);
    node.fees = NULL;
    buf_clear(&again);
    buf_clear(&mine);
    fee_estimator_free(fe);
    fee_estimator_free(fe2);
out:
    buf_clear(&core_file);
    json_decref(hist);
    json_decref(loaded_answers);
}

static void test_core_history_from_300(void)
{
    core_history("start300");
}

static void test_core_history_from_110(void)
{
    core_history("start110");
}

int main(void)
{
    node_context_init(&node);
    ctx = rpc_context_new(&node);
    rpc_fees_register(ctx);
    rpc_set_doccheck(ctx, true);
    rpc_warmup_finished(ctx);
    TEST(test_empty);
    TEST(test_tracking_rules);
    TEST(test_synthetic_buckets);
    TEST(test_insufficient_data);
    TEST(test_removed_fail);
    TEST(test_roundtrip);
    TEST(test_refused_files);
    TEST(test_threads);
    TEST(test_rpc_no_estimator);
    TEST(test_rpc_help);
    TEST(test_core_history_from_300);
    TEST(test_core_history_from_110);
    rpc_context_free(ctx);
    return test_done();
}
