/* net/invbucket: Core's transaction announcement rate limit on a clock and a pool passed
 * in. A burst drains while the count tokens last (30 seconds' worth), the rest waits in the
 * backlog and drains as the clock refills the bucket, the best first; what left the pool is
 * dropped; duplicates go; the outbound bucket refills 2.5 times faster; the 100 ms pause
 * between unbumped runs; the size bucket limits large transactions; a cleared direction. */
#include <string.h>

#include "net/invbucket.h"
#include "test.h"
#include "util/rc.h"

#define S(x) ((int64_t)((x) * 1000000.0))

/* A pool of up to 512 transactions named by the first two bytes of their wtxid: v. The
 * score decides the mining order (higher first); size their serialized size. */
struct fake_pool {
    int in[512];
    int score[512];
    double size[512];
    int locked;
};

static unsigned name_of(const uint8_t h[32])
{
    return h[0] | (unsigned)h[1] << 8;
}

static void mkhash(uint8_t h[32], unsigned v)
{
    memset(h, 0, 32);
    h[0] = (uint8_t)v;
    h[1] = (uint8_t)(v >> 8);
    h[31] = 0xaa;
}

static const void *fake_get(void *ctx, const uint8_t wtxid[32], uint8_t txid[32], double *size)
{
    struct fake_pool *p = ctx;
    unsigned v = name_of(wtxid);
    CHECK(p->locked);
    if (v >= 512 || !p->in[v]) {
        return NULL;
    }
    mkhash(txid, v);
    txid[31] = 0xbb;
    *size = p->size[v];
    return &p->score[v];
}

static int fake_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x > y ? -1 : x < y;
}

static void fake_lock(void *ctx)
{
    ((struct fake_pool *)ctx)->locked = 1;
}

static void fake_unlock(void *ctx)
{
    ((struct fake_pool *)ctx)->locked = 0;
}

static struct fake_pool pool_v;
static const struct invbucket_pool pool = {fake_get, fake_cmp, fake_lock, fake_unlock, &pool_v};

static void pool_reset(void)
{
    memset(&pool_v, 0, sizeof(pool_v));
}

static void pool_add(unsigned v, int score, double size)
{
    pool_v.in[v] = 1;
    pool_v.score[v] = score;
    pool_v.size[v] = size;
}

static size_t drained(struct invbucket *b, enum invbucket_dir dir, unsigned *names)
{
    size_t n;
    const struct invbucket_tx *t = invbucket_drained(b, dir, &n);
    for (size_t i = 0; i < n && names; i++) {
        names[i] = name_of(t[i].wtxid);
        CHECK_EQ_INT(t[i].txid[31], 0xbb);
    }
    return n;
}

static size_t backlog(struct invbucket *b, enum invbucket_dir dir)
{
    struct invbucket_info info;
    invbucket_info(b, dir, &info);
    return info.backlog;
}

static void add(struct invbucket *b, unsigned v)
{
    uint8_t h[32];
    mkhash(h, v);
    invbucket_add(b, h);
}

static void test_burst_and_drain(void)
{
    struct invbucket *b;
    pool_reset();
    CHECK_EQ_INT(invbucket_new(&b, 2), RC_OK);
    CHECK_EQ_INT(invbucket_rate(b), 2);
    struct invbucket_info info;
    invbucket_info(b, INVBUCKET_INBOUND, &info);
    CHECK(info.count_tok == 60.0 && info.size_tok == 12e6 && info.backlog == 0);
    /* 80 at a frozen clock: the first 60 go one by one, 20 wait. */
    size_t sent = 0;
    for (unsigned v = 0; v < 80; v++) {
        pool_add(v, (int)v, 200);
        add(b, v);
        invbucket_process(b, S(1000), 1, &pool);
        sent += drained(b, INVBUCKET_INBOUND, NULL);
    }
    CHECK_EQ_INT(sent, 60);
    CHECK_EQ_INT(backlog(b, INVBUCKET_INBOUND), 20);
    invbucket_info(b, INVBUCKET_INBOUND, &info);
    CHECK(info.count_tok == 0.0);
    /* A waiting one leaves the pool and a better one comes. */
    pool_v.in[70] = 0;
    pool_add(100, 1000, 200);
    add(b, 100);
    CHECK_EQ_INT(invbucket_process(b, S(1000), 1, &pool), 0);
    CHECK_EQ_INT(backlog(b, INVBUCKET_INBOUND), 21);
    /* Four seconds: 8 tokens, and down to the floor of -10: 18 go, best first. */
    unsigned names[64];
    CHECK_EQ_INT(invbucket_process(b, S(1004), 0, &pool), 1);
    CHECK_EQ_INT(drained(b, INVBUCKET_INBOUND, names), 18);
    CHECK_EQ_INT(names[0], 100);
    CHECK_EQ_INT(names[1], 79);
    CHECK_EQ_INT(names[17], 62);
    /* 20 less the one gone and the 18 sent. */
    CHECK_EQ_INT(backlog(b, INVBUCKET_INBOUND), 2);
    invbucket_info(b, INVBUCKET_INBOUND, &info);
    CHECK(info.count_tok == -10.0);
    /* Below zero: nothing until the bucket is above it again. */
    CHECK_EQ_INT(invbucket_process(b, S(1009), 0, &pool), 0);
    CHECK_EQ_INT(invbucket_process(b, S(1010), 0, &pool), 1);
    CHECK_EQ_INT(drained(b, INVBUCKET_INBOUND, names), 2);
    CHECK_EQ_INT(names[0], 61);
    CHECK_EQ_INT(names[1], 60);
    CHECK_EQ_INT(backlog(b, INVBUCKET_INBOUND), 0);
    invbucket_free(b);
}

static void test_outbound_faster(void)
{
    struct invbucket *b;
    pool_reset();
    invbucket_new(&b, 1);
    for (unsigned v = 0; v < 60; v++) {
        pool_add(v, 0, 100);
        add(b, v);
    }
    invbucket_process(b, S(0), 1, &pool);
    /* 30 tokens and 5 below zero: 35 each way. */
    CHECK_EQ_INT(drained(b, INVBUCKET_INBOUND, NULL), 35);
    CHECK_EQ_INT(drained(b, INVBUCKET_OUTBOUND, NULL), 35);
    /* Within 100 ms of the last run nothing happens unless bumped. */
    CHECK_EQ_INT(invbucket_process(b, S(0.1), 0, &pool), 0);
    /* Ten seconds: 10 inbound tokens (from -5 to 5, and 10 go), 25 outbound. */
    invbucket_process(b, S(10), 0, &pool);
    CHECK_EQ_INT(drained(b, INVBUCKET_INBOUND, NULL), 10);
    CHECK_EQ_INT(drained(b, INVBUCKET_OUTBOUND, NULL), 25);
    CHECK_EQ_INT(backlog(b, INVBUCKET_OUTBOUND), 0);
    CHECK_EQ_INT(backlog(b, INVBUCKET_INBOUND), 15);
    invbucket_clear(b, INVBUCKET_INBOUND);
    CHECK_EQ_INT(backlog(b, INVBUCKET_INBOUND), 0);
    invbucket_free(b);
}

static void test_duplicates_and_size(void)
{
    struct invbucket *b;
    pool_reset();
    invbucket_new(&b, 14);
    /* Spend the size tokens: 12 MB in one transaction. */
    pool_add(1, 5, 12e6);
    add(b, 1);
    invbucket_process(b, S(0), 1, &pool);
    CHECK_EQ_INT(drained(b, INVBUCKET_INBOUND, NULL), 1);
    struct invbucket_info info;
    invbucket_info(b, INVBUCKET_INBOUND, &info);
    CHECK(info.size_tok == 0.0);
    /* No size tokens: the same one three times waits, once. */
    pool_add(2, 5, 100);
    add(b, 2);
    add(b, 2);
    add(b, 2);
    CHECK_EQ_INT(invbucket_process(b, S(0), 1, &pool), 0);
    CHECK_EQ_INT(backlog(b, INVBUCKET_INBOUND), 3);
    /* A second: 20 kB inbound; it goes once, and the duplicates with it. */
    invbucket_process(b, S(1), 0, &pool);
    CHECK_EQ_INT(drained(b, INVBUCKET_INBOUND, NULL), 1);
    CHECK_EQ_INT(backlog(b, INVBUCKET_INBOUND), 0);
    /* A clamped rate. */
    invbucket_free(b);
    invbucket_new(&b, 0);
    CHECK_EQ_INT(invbucket_rate(b), 1);
    invbucket_free(b);
    invbucket_new(&b, 5000);
    CHECK_EQ_INT(invbucket_rate(b), 1000);
    invbucket_free(b);
    invbucket_free(NULL);
}

int main(void)
{
    TEST(test_burst_and_drain);
    TEST(test_outbound_faster);
    TEST(test_duplicates_and_size);
    return test_done();
}
