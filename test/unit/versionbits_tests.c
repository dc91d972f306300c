/* Unit tests for src/consensus/versionbits: the BIP9 state machine.
 *
 * test_core_scenarios replays the chains of Bitcoin Core's versionbits_tests.cpp
 * (versionbits_test: DEFINED -> STARTED -> FAILED, LOCKED_IN after the timeout, LOCKED_IN
 * before it, a delayed min_activation_height, ALWAYS_ACTIVE and NEVER_ACTIVE beside each)
 * with the states and since-heights Core expects. test_regtest_testdummy builds the chain
 * Core's rpc_blockchain.py reads getdeploymentinfo from (regtest's testdummy, every block
 * from 144 on signalling) and checks the statistics and signalling string it expects, then
 * goes on through LOCKED_IN to ACTIVE.
 */
#include <stdlib.h>
#include <string.h>

#include "consensus/params.h"
#include "consensus/versionbits.h"
#include "test.h"

/* A fake chain: version and time per height; median time past as Core's CBlockIndex. */
struct chain {
    int32_t *version;
    int64_t *time;
    int n, cap;
};

static void chain_reset(struct chain *c)
{
    c->n = 0;
}

/* Core's VersionBitsTester::Mine: appends blocks until the chain has `count` of them. */
static void mine(struct chain *c, int count, int64_t time, int32_t version)
{
    while (c->n < count) {
        if (c->n == c->cap) {
            c->cap = c->cap ? c->cap * 2 : 1024;
            c->version = realloc(c->version, (size_t)c->cap * sizeof(*c->version));
            c->time = realloc(c->time, (size_t)c->cap * sizeof(*c->time));
            CHECK(c->version && c->time);
        }
        c->version[c->n] = version;
        c->time[c->n] = time;
        c->n++;
    }
}

/* Heights at and past the end read as the last block (a block about to be mined: its own
 * fields never decide its state). */
static int clamp(const struct chain *c, int h)
{
    return h < c->n ? h : c->n - 1;
}

static int32_t view_version(void *ctx, int h)
{
    const struct chain *c = ctx;
    return c->n ? c->version[clamp(c, h)] : 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int64_t view_mtp(void *ctx, int h)
{
    const struct chain *c = ctx;
    if (!c->n) {
        return 0;
    }
    h = clamp(c, h);
    int64_t w[11];
    int n = 0;
    for (int i = h; i >= 0 && n < 11; i--) {
        w[n++] = c->time[i];
    }
    qsort(w, (size_t)n, sizeof(w[0]), cmp_i64);
    return w[n / 2];
}

/* Core's TestTime: one block per 10 minutes after Nov 14 2014. */
static int64_t test_time(int h)
{
    return 1415926536 + 600 * (int64_t)h;
}

enum { NORMAL, DELAYED, ALWAYS, NEVER, N_DEP };

static struct chain_bip9_deployment deps[N_DEP];

static void deps_init(void)
{
    deps[NORMAL] = (struct chain_bip9_deployment){.name = "normal",
                                                  .bit = 8,
                                                  .start_time = test_time(10000),
                                                  .timeout = test_time(20000),
                                                  .min_activation_height = 0,
                                                  .period = 1000,
                                                  .threshold = 900};
    deps[DELAYED] = deps[NORMAL];
    deps[DELAYED].min_activation_height = 15000;
    deps[ALWAYS] = deps[NORMAL];
    deps[ALWAYS].start_time = CHAIN_BIP9_ALWAYS_ACTIVE;
    deps[NEVER] = deps[NORMAL];
    deps[NEVER].start_time = CHAIN_BIP9_NEVER_ACTIVE;
}

/* The state and since-height of the block that would come next (Core's StateFor(tip) and
 * StateSinceHeightFor(tip)), for the normal and the delayed deployment; ALWAYS and NEVER are
 * checked beside them every time. */
static void expect(struct chain *c, enum bip9_state want, enum bip9_state want_delayed, int since,
                   int since_delayed, int line)
{
    struct versionbits_view v = {.ctx = c, .version = view_version, .median_time_past = view_mtp};
    static char sig[1001];
    struct bip9_info info;
    const enum bip9_state wants[N_DEP] = {want, want_delayed, BIP9_ACTIVE, BIP9_FAILED};
    const int sinces[N_DEP] = {since, since_delayed, 0, 0};
    for (int d = 0; d < N_DEP; d++) {
        bip9_info_at(&info, sig, &deps[d], &v, c->n);
        if (info.state != wants[d] || info.since != sinces[d]) {
            printf("# line %d, %s at height %d: %s since %d, wanted %s since %d\n", line,
                   deps[d].name, c->n, bip9_state_name(info.state), info.since,
                   bip9_state_name(wants[d]), sinces[d]);
            test_case_failed = 1;
        }
    }
}

#define EXPECT(c, st, since) expect(c, st, st, since, since, __LINE__)
#define EXPECT2(c, st, st_delayed, since, since_delayed)                                           \
    expect(c, st, st_delayed, since, since_delayed, __LINE__)

static void test_core_scenarios(void)
{
    const int32_t top = (int32_t)VERSIONBITS_TOP_BITS;
    struct chain c = {0};
    deps_init();

    /* DEFINED -> STARTED after timeout reached -> FAILED */
    EXPECT(&c, BIP9_DEFINED, 0);
    mine(&c, 1, test_time(1), top | 0x100), EXPECT(&c, BIP9_DEFINED, 0);
    mine(&c, 11, test_time(11), top | 0x100), EXPECT(&c, BIP9_DEFINED, 0);
    mine(&c, 989, test_time(989), top | 0x100), EXPECT(&c, BIP9_DEFINED, 0);
    mine(&c, 999, test_time(20000), top | 0x100), EXPECT(&c, BIP9_DEFINED, 0);
    mine(&c, 1000, test_time(20000), top), EXPECT(&c, BIP9_STARTED, 1000);
    mine(&c, 1999, test_time(30001), top), EXPECT(&c, BIP9_STARTED, 1000);
    mine(&c, 2000, test_time(30002), top | 0x100), EXPECT(&c, BIP9_FAILED, 2000);
    mine(&c, 2001, test_time(30003), top | 0x100), EXPECT(&c, BIP9_FAILED, 2000);
    mine(&c, 2999, test_time(30004), top | 0x100), EXPECT(&c, BIP9_FAILED, 2000);
    mine(&c, 3000, test_time(30005), top | 0x100), EXPECT(&c, BIP9_FAILED, 2000);
    mine(&c, 4000, test_time(30006), top | 0x100), EXPECT(&c, BIP9_FAILED, 2000);

    /* DEFINED -> STARTED -> FAILED */
    chain_reset(&c), EXPECT(&c, BIP9_DEFINED, 0);
    mine(&c, 1, test_time(1), top), EXPECT(&c, BIP9_DEFINED, 0);
    mine(&c, 1000, test_time(10000) - 1, top | 0x100), EXPECT(&c, BIP9_DEFINED, 0);
    mine(&c, 2000, test_time(10000), top | 0x100), EXPECT(&c, BIP9_STARTED, 2000);
    mine(&c, 2051, test_time(10010), top), EXPECT(&c, BIP9_STARTED, 2000);
    mine(&c, 2950, test_time(10020), top | 0x100), EXPECT(&c, BIP9_STARTED, 2000);
    mine(&c, 3000, test_time(20000), top), EXPECT(&c, BIP9_FAILED, 3000);
    mine(&c, 4000, test_time(20010), top | 0x100), EXPECT(&c, BIP9_FAILED, 3000);

    /* DEFINED -> STARTED -> LOCKEDIN after timeout reached -> ACTIVE */
    chain_reset(&c), EXPECT(&c, BIP9_DEFINED, 0);
    mine(&c, 1, test_time(1), top), EXPECT(&c, BIP9_DEFINED, 0);
    mine(&c, 1000, test_time(10000) - 1, top | 0x101), EXPECT(&c, BIP9_DEFINED, 0);
    mine(&c, 2000, test_time(10000), top | 0x101), EXPECT(&c, BIP9_STARTED, 2000);
    mine(&c, 2999, test_time(30000), top | 0x100), EXPECT(&c, BIP9_STARTED, 2000);
    mine(&c, 3000, test_time(30000), top | 0x100), EXPECT(&c, BIP9_LOCKED_IN, 3000);
    mine(&c, 3999, test_time(30001), top), EXPECT(&c, BIP9_LOCKED_IN, 3000);
    mine(&c, 4000, test_time(30002), top), EXPECT2(&c, BIP9_ACTIVE, BIP9_LOCKED_IN, 4000, 3000);
    mine(&c, 14333, test_time(30003), top), EXPECT2(&c, BIP9_ACTIVE, BIP9_LOCKED_IN, 4000, 3000);
    mine(&c, 24000, test_time(40000), top), EXPECT2(&c, BIP9_ACTIVE, BIP9_ACTIVE, 4000, 15000);

    /* DEFINED -> STARTED -> LOCKEDIN before timeout -> ACTIVE */
    chain_reset(&c), EXPECT(&c, BIP9_DEFINED, 0);
    mine(&c, 1, test_time(1), top), EXPECT(&c, BIP9_DEFINED, 0);
    mine(&c, 1000, test_time(10000) - 1, top | 0x101), EXPECT(&c, BIP9_DEFINED, 0);
    mine(&c, 2000, test_time(10000), top | 0x101), EXPECT(&c, BIP9_STARTED, 2000);
    mine(&c, 2050, test_time(10010), top | 0x200), EXPECT(&c, BIP9_STARTED, 2000);
    mine(&c, 2950, test_time(10020), top | 0x100), EXPECT(&c, BIP9_STARTED, 2000);
    mine(&c, 2999, test_time(19999), top | 0x200), EXPECT(&c, BIP9_STARTED, 2000);
    mine(&c, 3000, test_time(29999), top | 0x200), EXPECT(&c, BIP9_LOCKED_IN, 3000);
    mine(&c, 3999, test_time(30001), top), EXPECT(&c, BIP9_LOCKED_IN, 3000);
    mine(&c, 4000, test_time(30002), top), EXPECT2(&c, BIP9_ACTIVE, BIP9_LOCKED_IN, 4000, 3000);
    mine(&c, 14333, test_time(30003), top), EXPECT2(&c, BIP9_ACTIVE, BIP9_LOCKED_IN, 4000, 3000);
    mine(&c, 15000, test_time(40000), top), EXPECT2(&c, BIP9_ACTIVE, BIP9_ACTIVE, 4000, 15000);
    mine(&c, 24000, test_time(40000), top), EXPECT2(&c, BIP9_ACTIVE, BIP9_ACTIVE, 4000, 15000);

    /* DEFINED multiple periods -> STARTED multiple periods -> FAILED */
    chain_reset(&c), EXPECT(&c, BIP9_DEFINED, 0);
    mine(&c, 999, test_time(999), top), EXPECT(&c, BIP9_DEFINED, 0);
    mine(&c, 1000, test_time(1000), top), EXPECT(&c, BIP9_DEFINED, 0);
    mine(&c, 2000, test_time(2000), top), EXPECT(&c, BIP9_DEFINED, 0);
    mine(&c, 3000, test_time(10000), top), EXPECT(&c, BIP9_STARTED, 3000);
    mine(&c, 4000, test_time(10000), top), EXPECT(&c, BIP9_STARTED, 3000);
    mine(&c, 5000, test_time(10000), top), EXPECT(&c, BIP9_STARTED, 3000);
    mine(&c, 5999, test_time(20000), top), EXPECT(&c, BIP9_STARTED, 3000);
    mine(&c, 6000, test_time(20000), top), EXPECT(&c, BIP9_FAILED, 6000);
    mine(&c, 7000, test_time(20000), top | 0x100), EXPECT(&c, BIP9_FAILED, 6000);
    mine(&c, 24000, test_time(20000), top | 0x100), EXPECT(&c, BIP9_FAILED, 6000);

    free(c.version);
    free(c.time);
}

static void test_signals(void)
{
    struct chain_bip9_deployment d = {.bit = 28};
    CHECK(bip9_signals(&d, 0x30000000));
    CHECK(!bip9_signals(&d, 0x20000000));
    CHECK(!bip9_signals(&d, 4));
    CHECK(!bip9_signals(&d, (int32_t)0xF0000000u)); /* top bits not 001 */
    d.bit = 0;
    CHECK(bip9_signals(&d, 0x20000001));
    CHECK(!bip9_signals(&d, 0x00000001));
    CHECK_EQ_STR(bip9_state_name(BIP9_LOCKED_IN), "locked_in");
}

/* The chain of Core's rpc_blockchain.py: regtest's testdummy (start 0, period 144, threshold
 * 108), blocks 0..143 not signalling (DEFINED: Core's miner does not set the bit), every
 * block from 144 on signalling. */
static void test_regtest_testdummy(void)
{
    const struct chain_bip9_deployment *d =
        &chain_params_get("regtest")->deployments[CHAIN_DEPLOYMENT_TESTDUMMY];
    CHECK_EQ_STR(d->name, "testdummy");
    CHECK_EQ_INT(d->period, 144);
    CHECK_EQ_INT(d->threshold, 108);
    CHECK_EQ_INT(d->start_time, 0);
    CHECK(d->timeout == INT64_MAX);
    CHECK_EQ_INT(chain_params_get("main")->deployments[0].start_time, CHAIN_BIP9_NEVER_ACTIVE);

    struct chain c = {0};
    mine(&c, 144, 1296688602, 4);
    mine(&c, 600, 1296688603, (int32_t)(VERSIONBITS_TOP_BITS | (1u << 28)));
    struct versionbits_view v = {.ctx = &c, .version = view_version, .median_time_past = view_mtp};
    char sig[145];
    struct bip9_info info;

    bip9_info_at(&info, sig, d, &v, 0);
    CHECK_EQ_INT(info.state, BIP9_DEFINED);
    CHECK_EQ_INT(info.next_state, BIP9_DEFINED);
    CHECK_EQ_INT(info.since, 0);
    CHECK(!info.has_stats);
    CHECK_EQ_INT(info.active_since, -1);

    bip9_info_at(&info, sig, d, &v, 143);
    CHECK_EQ_INT(info.state, BIP9_DEFINED);
    CHECK_EQ_INT(info.next_state, BIP9_STARTED);
    CHECK(!info.has_stats);

    const int heights[] = {144, 207, 286, 287};
    for (size_t i = 0; i < sizeof(heights) / sizeof(heights[0]); i++) {
        int height = heights[i];
        bip9_info_at(&info, sig, d, &v, height);
        CHECK_EQ_INT(info.state, BIP9_STARTED);
        CHECK_EQ_INT(info.next_state, height == 287 ? BIP9_LOCKED_IN : BIP9_STARTED);
        CHECK_EQ_INT(info.since, 144);
        CHECK(info.has_stats);
        CHECK_EQ_INT(info.stats.period, 144);
        CHECK_EQ_INT(info.stats.threshold, 108);
        CHECK_EQ_INT(info.stats.elapsed, height - 143);
        CHECK_EQ_INT(info.stats.count, height - 143);
        CHECK(info.stats.possible);
        CHECK_EQ_INT(strlen(sig), height - 143);
        CHECK(strspn(sig, "#") == strlen(sig));
        CHECK_EQ_INT(info.active_since, -1);
    }
    bip9_info_at(&info, sig, d, &v, 288);
    CHECK_EQ_INT(info.state, BIP9_LOCKED_IN);
    CHECK_EQ_INT(info.since, 288);
    CHECK(info.has_stats);
    CHECK_EQ_INT(info.stats.threshold, 0);
    CHECK(!info.stats.possible);
    CHECK_EQ_STR(sig, "#");

    bip9_info_at(&info, sig, d, &v, 431);
    CHECK_EQ_INT(info.state, BIP9_LOCKED_IN);
    CHECK_EQ_INT(info.next_state, BIP9_ACTIVE);
    CHECK_EQ_INT(info.active_since, 432);

    bip9_info_at(&info, sig, d, &v, 500);
    CHECK_EQ_INT(info.state, BIP9_ACTIVE);
    CHECK_EQ_INT(info.since, 432);
    CHECK_EQ_INT(info.active_since, 432);
    CHECK(!info.has_stats);

    /* Not enough signalling left in the period: possible is false. */
    chain_reset(&c);
    mine(&c, 144, 1296688602, 4);
    mine(&c, 144 + 37, 1296688603, 4);
    bip9_info_at(&info, sig, d, &v, 144 + 36);
    CHECK_EQ_INT(info.state, BIP9_STARTED);
    CHECK_EQ_INT(info.stats.elapsed, 37);
    CHECK_EQ_INT(info.stats.count, 0);
    CHECK(!info.stats.possible); /* 144 - 108 = 36 misses allowed, 37 seen */
    CHECK(strspn(sig, "-") == 37);

    free(c.version);
    free(c.time);
}

int main(void)
{
    TEST(test_signals);
    TEST(test_core_scenarios);
    TEST(test_regtest_testdummy);
    return test_done();
}
