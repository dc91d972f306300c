/* net/txrequest: Core's TxRequestTracker rules on a clock passed in. Delayed candidates are
 * not requestable before their time; a preferred ready candidate wins over a non-preferred
 * one; one request per hash at a time, the next announcer after an expiry, a notfound or a
 * disconnect; completed hashes go; counts per peer; order of announcement kept; time going
 * backwards delays again; many announcements (the slab and the table grow). */
#include <stdlib.h>
#include <string.h>

#include "net/txrequest.h"
#include "test.h"
#include "util/rc.h"

static void mkhash(uint8_t h[32], unsigned v)
{
    memset(h, 0, 32);
    h[0] = (uint8_t)v;
    h[1] = (uint8_t)(v >> 8);
    h[2] = (uint8_t)(v >> 16);
}

/* The hashes requestable from peer at now (their first byte pairs, v), and the number
 * expired: *n_expired. Returns how many are requestable; fills vs[0..]. */
static size_t requestable(struct txrequest *t, int64_t peer, int64_t now, unsigned *vs,
                          size_t *n_expired)
{
    struct txrequest_gtxid *out, *exp;
    size_t n, ne;
    CHECK_EQ_INT(txrequest_get_requestable(t, &out, &n, &exp, &ne, peer, now), RC_OK);
    for (size_t i = 0; i < n && vs; i++) {
        vs[i] = out[i].hash[0] | (unsigned)out[i].hash[1] << 8 | (unsigned)out[i].hash[2] << 16;
    }
    if (n_expired) {
        *n_expired = ne;
    }
    free(out);
    free(exp);
    return n;
}

static void test_delay(void)
{
    struct txrequest *t;
    uint8_t h[32];
    txrequest_new(&t, 1);
    mkhash(h, 1);
    txrequest_received_inv(t, 7, h, 1, 0, 2000000);
    CHECK_EQ_INT(requestable(t, 7, 1999999, NULL, NULL), 0);
    CHECK_EQ_INT(requestable(t, 8, 2000000, NULL, NULL), 0);
    CHECK_EQ_INT(requestable(t, 7, 2000000, NULL, NULL), 1);
    /* Time goes backwards: delayed again. */
    CHECK_EQ_INT(requestable(t, 7, 1000000, NULL, NULL), 0);
    /* A second announcement by the same peer is ignored. */
    txrequest_received_inv(t, 7, h, 1, 1, 0);
    CHECK_EQ_INT(txrequest_count(t, 7), 1);
    CHECK_EQ_INT(requestable(t, 7, 1000000, NULL, NULL), 0);
    txrequest_free(t);
}

static void test_preferred_wins(void)
{
    struct txrequest *t;
    uint8_t h[32];
    txrequest_new(&t, 0);
    mkhash(h, 2);
    for (int64_t p = 1; p <= 10; p++) {
        txrequest_received_inv(t, p, h, 1, 0, 0);
    }
    txrequest_received_inv(t, 11, h, 1, 1, 0);
    for (int64_t p = 1; p <= 10; p++) {
        CHECK_EQ_INT(requestable(t, p, 5, NULL, NULL), 0);
    }
    CHECK_EQ_INT(requestable(t, 11, 5, NULL, NULL), 1);
    /* Exactly one of the non-preferred ones is the best once 11 is gone. */
    txrequest_disconnected_peer(t, 11);
    int best = 0;
    for (int64_t p = 1; p <= 10; p++) {
        best += (int)requestable(t, p, 5, NULL, NULL);
    }
    CHECK_EQ_INT(best, 1);
    txrequest_free(t);
}

/* The peer (1 or 2) hash is requestable from at now, 0 if none. */
static int64_t who(struct txrequest *t, int64_t now)
{
    int64_t w = 0;
    for (int64_t p = 1; p <= 2; p++) {
        if (requestable(t, p, now, NULL, NULL)) {
            CHECK(w == 0);
            w = p;
        }
    }
    return w;
}

static void test_one_request_and_fallback(void)
{
    struct txrequest *t;
    uint8_t h[32];
    size_t ne;
    txrequest_new(&t, 0);
    mkhash(h, 3);
    txrequest_received_inv(t, 1, h, 1, 0, 0);
    txrequest_received_inv(t, 2, h, 1, 0, 0);
    int64_t first = who(t, 0);
    CHECK(first != 0);
    txrequest_requested(t, first, h, 60);
    CHECK_EQ_INT(txrequest_count_in_flight(t, first), 1);
    CHECK_EQ_INT(who(t, 59), 0);
    /* Expiry: the other one. */
    CHECK_EQ_INT(requestable(t, 3 - first, 60, NULL, &ne), 1);
    CHECK_EQ_INT(ne, 1);
    CHECK_EQ_INT(txrequest_count_in_flight(t, first), 0);
    CHECK_EQ_INT(txrequest_count(t, first), 1); /* completed, still counted */
    txrequest_requested(t, 3 - first, h, 200);
    /* A notfound from it: every announcement completed, the hash goes. */
    txrequest_received_response(t, 3 - first, h);
    CHECK_EQ_INT(txrequest_size(t), 0);
    CHECK_EQ_INT(txrequest_count(t, first), 0);

    /* Fallback on a notfound and on a disconnect. */
    txrequest_received_inv(t, 1, h, 1, 0, 0);
    txrequest_received_inv(t, 2, h, 1, 0, 0);
    first = who(t, 0);
    txrequest_requested(t, first, h, 60);
    txrequest_received_response(t, first, h);
    CHECK_EQ_INT(who(t, 1), 3 - first);
    txrequest_forget(t, h);
    CHECK_EQ_INT(txrequest_size(t), 0);
    txrequest_received_inv(t, 1, h, 1, 0, 0);
    txrequest_received_inv(t, 2, h, 1, 0, 0);
    first = who(t, 0);
    txrequest_requested(t, first, h, 60);
    txrequest_disconnected_peer(t, first);
    CHECK_EQ_INT(who(t, 1), 3 - first);
    txrequest_free(t);
}

static void test_order_and_candidates(void)
{
    struct txrequest *t;
    uint8_t h[32];
    unsigned vs[8];
    txrequest_new(&t, 1);
    unsigned order[5] = {50, 10, 40, 20, 30};
    for (int i = 0; i < 5; i++) {
        mkhash(h, order[i]);
        txrequest_received_inv(t, 4, h, 0, 1, 0);
    }
    CHECK_EQ_INT(requestable(t, 4, 0, vs, NULL), 5);
    for (int i = 0; i < 5; i++) {
        CHECK_EQ_INT(vs[i], order[i]);
    }
    mkhash(h, 40);
    txrequest_received_inv(t, 9, h, 1, 0, 100);
    int64_t *peers = NULL;
    size_t n = 0;
    txrequest_candidate_peers(t, &peers, &n, h);
    CHECK_EQ_INT(n, 2);
    free(peers);
    txrequest_free(t);
}

static void test_many(void)
{
    struct txrequest *t;
    uint8_t h[32];
    txrequest_new(&t, 0);
    for (unsigned v = 0; v < 6000; v++) {
        mkhash(h, v);
        txrequest_received_inv(t, 1, h, 1, 0, 0);
        txrequest_received_inv(t, 2, h, 1, 1, 10);
    }
    CHECK_EQ_INT(txrequest_count(t, 1), 6000);
    CHECK_EQ_INT(requestable(t, 1, 5, NULL, NULL), 6000);
    CHECK_EQ_INT(requestable(t, 2, 5, NULL, NULL), 0);
    /* Once ready, the preferred peer takes every one of them. */
    CHECK_EQ_INT(requestable(t, 1, 10, NULL, NULL), 0);
    CHECK_EQ_INT(requestable(t, 2, 10, NULL, NULL), 6000);
    txrequest_disconnected_peer(t, 2);
    CHECK_EQ_INT(txrequest_size(t), 6000);
    for (unsigned v = 0; v < 6000; v += 2) {
        mkhash(h, v);
        txrequest_forget(t, h);
    }
    CHECK_EQ_INT(txrequest_size(t), 3000);
    CHECK_EQ_INT(requestable(t, 1, 10, NULL, NULL), 3000);
    txrequest_disconnected_peer(t, 1);
    CHECK_EQ_INT(txrequest_size(t), 0);
    txrequest_free(t);
}

int main(void)
{
    TEST(test_delay);
    TEST(test_preferred_wins);
    TEST(test_one_request_and_fallback);
    TEST(test_order_and_candidates);
    TEST(test_many);
    return test_done();
}
