/* The coins view stack (src/coins/cache.c, coinsdb.c) over an in-memory kv store: a long
 * random simulation against a reference model through a stack of caches (as Bitcoin Core's
 * coins_tests do), then the properties that make it worth having: coins created and spent
 * between flushes never reach the store, untouched coins are not rewritten, a discarded
 * block cache leaves its parent unchanged, store failures are never a missing coin. */
#include "test.h"

#include "coins/view.h"
#include "kv/kv.h"
#include "util/rc.h"
#include "util/xmalloc.h"

/* ---- a reference model -------------------------------------------------------------- */

#define NTX 400
#define NOUT 4

struct ref_coin {
    int live;
    int64_t value;
    uint32_t height;
    int coinbase;
    uint8_t script[40];
    size_t script_len;
};

static struct ref_coin ref[NTX][NOUT];

static uint64_t rng_state = 0x1234567887654321ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void op_of(struct outpoint *op, int t, int n)
{
    memset(op->txid, 0, 32);
    op->txid[0] = (uint8_t)t;
    op->txid[1] = (uint8_t)(t >> 8);
    op->txid[31] = (uint8_t)(t * 7);
    op->n = (uint32_t)n * 1000u; /* multi-byte VARINT keys too */
}

static void make_coin(struct coin *c, struct ref_coin *r)
{
    r->value = (int64_t)(rnd() % 5000000000ull);
    r->height = (uint32_t)(rnd() % 800000);
    r->coinbase = (int)(rnd() & 1);
    r->script_len = 1 + rnd() % 39;
    for (size_t i = 0; i < r->script_len; i++) {
        r->script[i] = (uint8_t)(rnd() | 1); /* never 0x6a first: keep it spendable */
    }
    r->script[0] = 0x51;
    memset(c, 0, sizeof(*c));
    c->value_sat = r->value;
    c->height = r->height;
    c->coinbase = r->coinbase;
    c->script_pubkey.len = r->script_len;
    c->script_pubkey.data = r->script; /* borrowed: the cache copies it */
}

static int coin_matches(const struct coin *c, const struct ref_coin *r)
{
    return c->value_sat == r->value && c->height == r->height && c->coinbase == r->coinbase &&
           c->script_pubkey.len == r->script_len &&
           memcmp(c->script_pubkey.data, r->script, r->script_len) == 0;
}

/* Every coin of the model, read through cache, is what the model says. */
static int check_all(struct coins_cache *c)
{
    int bad = 0;
    for (int t = 0; t < NTX; t++) {
        for (int n = 0; n < NOUT; n++) {
            struct outpoint op;
            const struct coin *got;
            op_of(&op, t, n);
            int rc = coins_cache_get(c, &op, &got);
            if (ref[t][n].live) {
                bad += rc != RC_OK || !coin_matches(got, &ref[t][n]);
            } else {
                bad += rc != RC_NOT_FOUND;
            }
        }
    }
    return bad;
}

/* frozen: the bottom cache is frozen instead of flushed, two times in three
 * (coins_cache_freeze: its writer thread writes in small parts, so that reads land while
 * they are written), and each coin it does not hold then is read from the store, which must
 * already be right about it. */
static void simulate_mode(int frozen)
{
    struct kv *kv = NULL;
    CHECK_EQ_INT(kv_open(&kv, &kv_mem_ops, NULL, NULL), RC_OK);
    struct coins_db *db = coins_db_new(kv);
    if (frozen) {
        coins_db_set_batch(db, 2048, 0);
    }
    struct coins_cache *stack[5];
    int depth = 1, bad = 0, flushes = 0, pushes = 0, freezes = 0, store_reads = 0;
    uint8_t best[32] = {1};
    stack[0] = coins_cache_new(coins_db_view(db));
    memset(ref, 0, sizeof(ref));

    for (int step = 0; step < 40000; step++) {
        struct coins_cache *top = stack[depth - 1];
        int t = (int)(rnd() % NTX), n = (int)(rnd() % NOUT);
        struct outpoint op;
        op_of(&op, t, n);
        uint64_t r = rnd() % 100;
        if (r < 40) {
            /* Add: a new coin where there is none, or an overwrite (BIP30-style). */
            struct coin c;
            int overwrite = ref[t][n].live || (rnd() % 4 == 0);
            make_coin(&c, &ref[t][n]);
            CHECK_EQ_INT(coins_cache_add(top, &op, &c, overwrite), RC_OK);
            ref[t][n].live = 1;
        } else if (r < 75) {
            struct coin moved;
            int rc = coins_cache_spend(top, &op, &moved);
            if (ref[t][n].live) {
                bad += rc != RC_OK || !coin_matches(&moved, &ref[t][n]);
                if (rc == RC_OK) {
                    coin_clear(&moved);
                }
                ref[t][n].live = 0;
            } else {
                bad += rc != RC_NOT_FOUND;
            }
        } else if (r < 95) {
            const struct coin *got;
            int rc = coins_cache_get(top, &op, &got);
            bad += ref[t][n].live ? (rc != RC_OK || !coin_matches(got, &ref[t][n]))
                                  : rc != RC_NOT_FOUND;
        } else if (r < 97 && depth < 5) {
            stack[depth] = coins_cache_new(coins_cache_view(top));
            depth++;
            pushes++;
        } else if (r < 99 && depth > 1) {
            best[1]++;
            coins_cache_set_best_block(top, best);
            CHECK_EQ_INT(coins_cache_flush(top, 0), RC_OK);
            coins_cache_free(top);
            depth--;
            flushes++;
        } else if (frozen && depth == 1 && rnd() % 3 != 0) {
            best[1]++;
            coins_cache_set_best_block(top, best);
            CHECK_EQ_INT(coins_cache_freeze(top), RC_OK);
            freezes++;
            /* The cache (with its frozen generation) or, where it has nothing, the store,
             * whose write may be under way. */
            for (int k = 0; k < 8; k++) {
                struct coin c;
                int cached, rc;
                op_of(&op, (int)(rnd() % NTX), (int)(rnd() % NOUT));
                int t2 = op.txid[0] | op.txid[1] << 8, n2 = (int)(op.n / 1000);
                rc = coins_cache_peek(top, &op, &c, &cached);
                if (!cached) {
                    rc = coins_db_read(db, &op, &c);
                    store_reads++;
                }
                bad += ref[t2][n2].live ? (rc != RC_OK || !coin_matches(&c, &ref[t2][n2]))
                                        : rc != RC_NOT_FOUND;
                if (rc == RC_OK) {
                    coin_clear(&c);
                }
            }
        } else {
            best[1]++;
            coins_cache_set_best_block(top, best);
            CHECK_EQ_INT(coins_cache_flush(top, 0), RC_OK);
            flushes++;
            if (depth == 1) {
                /* Straight from the store (a flush waits for a frozen generation's write). */
                struct coin c;
                int rc = coins_db_read(db, &op, &c);
                bad += ref[t][n].live ? (rc != RC_OK || !coin_matches(&c, &ref[t][n]))
                                      : rc != RC_NOT_FOUND;
                if (rc == RC_OK) {
                    coin_clear(&c);
                }
                uint8_t got[32];
                bad += coins_cache_best_block(top, got) != RC_OK || memcmp(got, best, 32) != 0;
            }
        }
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(flushes > 100 && pushes > 100);
    if (frozen) {
        printf("# frozen: %d freezes, %d reads from the store beside their writes\n", freezes,
               store_reads);
        CHECK(freezes > 100 && store_reads > 100);
    }
    /* Everything down to the store, then a fresh cache over the store agrees. */
    while (depth > 0) {
        CHECK_EQ_INT(coins_cache_flush(stack[depth - 1], 1), RC_OK);
        coins_cache_free(stack[depth - 1]);
        depth--;
    }
    struct coins_cache *fresh = coins_cache_new(coins_db_view(db));
    CHECK_EQ_INT(check_all(fresh), 0);
    uint8_t got[32];
    CHECK_EQ_INT(coins_cache_best_block(fresh, got), RC_OK);
    CHECK_EQ_MEM(got, best, 32);
    coins_cache_free(fresh);

    /* The store holds exactly the live coins, plus the marker. */
    size_t live = 0, stored = 0;
    for (int t = 0; t < NTX; t++) {
        for (int n = 0; n < NOUT; n++) {
            live += ref[t][n].live;
        }
    }
    struct kv_iter *it = NULL;
    CHECK_EQ_INT(kv_iter_new(kv, &it), RC_OK);
    for (kv_iter_seek_first(it); kv_iter_valid(it); kv_iter_next(it)) {
        stored++;
    }
    kv_iter_free(it);
    CHECK_EQ_INT(stored, live + 1);
    if (frozen) {
        printf("# frozen: %llu parts written by the writer thread\n",
               (unsigned long long)coins_db_parts(db));
        CHECK(coins_db_parts(db) > 100);
    }
    coins_db_free(db);
    kv_close(kv);
}

static void test_simulation(void)
{
    simulate_mode(0);
}

static void test_simulation_frozen(void)
{
    simulate_mode(1);
}

static void test_fresh_never_stored(void)
{
    struct kv *kv = NULL;
    uint64_t reads, writes, deletes, batches;
    uint8_t best[32] = {7};
    CHECK_EQ_INT(kv_open(&kv, &kv_mem_ops, NULL, NULL), RC_OK);
    struct coins_db *db = coins_db_new(kv);
    struct coins_cache *c = coins_cache_new(coins_db_view(db));
    struct ref_coin r;
    for (int i = 0; i < 100; i++) {
        struct outpoint op;
        struct coin coin;
        op_of(&op, i, 0);
        make_coin(&coin, &r);
        CHECK_EQ_INT(coins_cache_add(c, &op, &coin, 0), RC_OK);
        CHECK(coin.script_pubkey.data == r.script); /* copied, the caller's untouched */
        CHECK_EQ_INT(coins_cache_spend(c, &op, NULL), RC_OK);
    }
    /* FRESH entries spent before a flush are forgotten at once. */
    CHECK_EQ_INT(coins_cache_count(c), 0);
    coins_cache_set_best_block(c, best);
    CHECK_EQ_INT(coins_cache_flush(c, 0), RC_OK);
    coins_db_counters(db, &reads, &writes, &deletes, &batches);
    CHECK_EQ_U64(writes, 0);
    CHECK_EQ_U64(deletes, 0);
    CHECK_EQ_U64(batches, 1);

    /* A coin read from the store and left alone is not rewritten. */
    struct outpoint op;
    struct coin coin;
    const struct coin *got;
    op_of(&op, 5, 1);
    make_coin(&coin, &r);
    CHECK_EQ_INT(coins_cache_add(c, &op, &coin, 0), RC_OK);
    CHECK_EQ_INT(coins_cache_flush(c, 0), RC_OK);
    CHECK_EQ_INT(coins_cache_get(c, &op, &got), RC_OK);
    CHECK_EQ_INT(coins_cache_dirty_count(c), 0);
    CHECK_EQ_INT(coins_cache_flush(c, 0), RC_OK);
    coins_db_counters(db, &reads, &writes, &deletes, &batches);
    CHECK_EQ_U64(writes, 1);
    CHECK_EQ_U64(reads, 1);

    /* Spending a stored coin deletes it from the store at the next flush. */
    CHECK_EQ_INT(coins_cache_spend(c, &op, NULL), RC_OK);
    CHECK_EQ_INT(coins_cache_spend(c, &op, NULL), RC_NOT_FOUND);
    CHECK_EQ_INT(coins_cache_flush(c, 0), RC_OK);
    coins_db_counters(db, &reads, &writes, &deletes, &batches);
    CHECK_EQ_U64(deletes, 1);
    CHECK_EQ_INT(coins_cache_get(c, &op, &got), RC_NOT_FOUND);

    /* Provably unspendable outputs never enter. */
    coin.value_sat = 1;
    coin.script_pubkey.data = (uint8_t *)"\x6a\x01\x01";
    coin.script_pubkey.len = 3;
    CHECK_EQ_INT(coins_cache_add(c, &op, &coin, 0), RC_OK);
    CHECK_EQ_INT(coins_cache_get(c, &op, &got), RC_NOT_FOUND);
    coins_cache_free(c);
    coins_db_free(db);
    kv_close(kv);
}

static void test_discarded_block_cache(void)
{
    struct kv *kv = NULL;
    struct ref_coin r;
    CHECK_EQ_INT(kv_open(&kv, &kv_mem_ops, NULL, NULL), RC_OK);
    struct coins_db *db = coins_db_new(kv);
    struct coins_cache *main_c = coins_cache_new(coins_db_view(db));
    struct outpoint a, b;
    struct coin coin;
    const struct coin *got;
    op_of(&a, 1, 0);
    op_of(&b, 2, 0);
    make_coin(&coin, &r);
    CHECK_EQ_INT(coins_cache_add(main_c, &a, &coin, 0), RC_OK);
    size_t mem = coins_cache_memory(main_c);

    /* A block spends a and creates b, then turns out invalid: drop its cache. */
    struct coins_cache *blk = coins_cache_new(coins_cache_view(main_c));
    CHECK_EQ_INT(coins_cache_spend(blk, &a, NULL), RC_OK);
    make_coin(&coin, &r);
    CHECK_EQ_INT(coins_cache_add(blk, &b, &coin, 0), RC_OK);
    coins_cache_free(blk);
    CHECK_EQ_INT(coins_cache_get(main_c, &a, &got), RC_OK);
    CHECK_EQ_INT(coins_cache_get(main_c, &b, &got), RC_NOT_FOUND);
    CHECK_EQ_INT(coins_cache_memory(main_c), mem);

    /* The same block, valid: its changes merge into the parent. */
    blk = coins_cache_new(coins_cache_view(main_c));
    CHECK_EQ_INT(coins_cache_spend(blk, &a, NULL), RC_OK);
    make_coin(&coin, &r);
    CHECK_EQ_INT(coins_cache_add(blk, &b, &coin, 0), RC_OK);
    CHECK_EQ_INT(coins_cache_flush(blk, 0), RC_OK);
    coins_cache_free(blk);
    CHECK_EQ_INT(coins_cache_get(main_c, &a, &got), RC_NOT_FOUND);
    CHECK_EQ_INT(coins_cache_get(main_c, &b, &got), RC_OK);
    CHECK(coin_matches(got, &r));
    /* a was FRESH in main (never stored) and is spent: gone from main altogether. */
    CHECK_EQ_INT(coins_cache_count(main_c), 1);
    coins_cache_free(main_c);
    coins_db_free(db);
    kv_close(kv);
}

/* A base that fails: errors must come up as errors, not as "no such coin". */
static int failing_get(struct coins_view *v, const struct outpoint *op, struct coin *out)
{
    return RC_BACKEND;
}
static int failing_best(struct coins_view *v, uint8_t hash32[32])
{
    return RC_BACKEND;
}
static int failing_write(struct coins_view *v, struct coins_cursor *cur, const uint8_t best32[32],
                         int sync)
{
    return RC_BACKEND;
}
static const struct coins_view_ops failing_ops = {failing_get, failing_best, failing_write};

static void test_failures_propagate(void)
{
    struct coins_view failing = {&failing_ops};
    struct coins_cache *c = coins_cache_new(&failing);
    struct outpoint op;
    struct coin coin;
    const struct coin *got;
    struct ref_coin r;
    uint8_t best[32] = {0};
    op_of(&op, 3, 0);
    CHECK_EQ_INT(coins_cache_get(c, &op, &got), RC_BACKEND);
    CHECK_EQ_INT(coins_cache_spend(c, &op, NULL), RC_BACKEND);
    make_coin(&coin, &r);
    CHECK_EQ_INT(coins_cache_add(c, &op, &coin, 0), RC_OK);
    coins_cache_set_best_block(c, best);
    /* A failed flush keeps every change, so that nothing is lost. */
    CHECK_EQ_INT(coins_cache_flush(c, 0), RC_BACKEND);
    CHECK_EQ_INT(coins_cache_dirty_count(c), 1);
    CHECK_EQ_INT(coins_cache_get(c, &op, &got), RC_OK);
    CHECK(coin_matches(got, &r));
    coins_cache_free(c);
}

static void test_memory_accounting(void)
{
    struct kv *kv = NULL;
    struct ref_coin r;
    CHECK_EQ_INT(kv_open(&kv, &kv_mem_ops, NULL, NULL), RC_OK);
    struct coins_db *db = coins_db_new(kv);
    struct coins_cache *c = coins_cache_new(coins_db_view(db));
    size_t empty = coins_cache_memory(c);
    for (int t = 0; t < NTX; t++) {
        struct outpoint op;
        struct coin coin;
        op_of(&op, t, 0);
        make_coin(&coin, &r);
        coins_cache_add(c, &op, &coin, 0);
    }
    CHECK(coins_cache_memory(c) > empty + NTX * 16);
    CHECK_EQ_INT(coins_cache_count(c), NTX);
    uint8_t best[32] = {3};
    coins_cache_set_best_block(c, best);
    CHECK_EQ_INT(coins_cache_flush(c, 0), RC_OK);
    CHECK_EQ_INT(coins_cache_count(c), 0);
    /* The table is given back with the scripts: an emptied cache costs what a new one
     * does (else a cache once full would count as full after every flush). */
    CHECK_EQ_U64(coins_cache_memory(c), empty);
    for (int t = 0; t < NTX; t++) {
        struct outpoint op;
        const struct coin *got;
        op_of(&op, t, 0);
        coins_cache_get(c, &op, &got);
    }
    CHECK_EQ_INT(coins_cache_dirty_count(c), 0);
    CHECK_EQ_INT(coins_cache_count(c), NTX);
    coins_cache_trim_clean(c);
    CHECK_EQ_INT(coins_cache_count(c), 0);
    coins_cache_free(c);
    coins_db_free(db);
    kv_close(kv);
}

/* A sync writes the dirty coins and keeps them, clean: the next reads are hits, nothing is
 * read back from the store, and only what changes after it is written again. */
static void test_sync_keeps_coins(void)
{
    struct kv *kv = NULL;
    struct ref_coin r[200];
    uint64_t reads, writes, deletes, batches, hits, misses;
    uint8_t best[32] = {9};
    CHECK_EQ_INT(kv_open(&kv, &kv_mem_ops, NULL, NULL), RC_OK);
    struct coins_db *db = coins_db_new(kv);
    struct coins_cache *c = coins_cache_new(coins_db_view(db));
    for (int t = 0; t < 200; t++) {
        struct outpoint op;
        struct coin coin;
        op_of(&op, t, 0);
        make_coin(&coin, &r[t]);
        CHECK_EQ_INT(coins_cache_add(c, &op, &coin, 0), RC_OK);
    }
    coins_cache_set_best_block(c, best);
    CHECK_EQ_INT(coins_cache_sync(c, 0, SIZE_MAX), RC_OK);
    CHECK_EQ_INT(coins_cache_count(c), 200);
    CHECK_EQ_INT(coins_cache_dirty_count(c), 0);
    coins_db_counters(db, &reads, &writes, &deletes, &batches);
    CHECK_EQ_U64(writes, 200);
    int bad = 0;
    for (int t = 0; t < 200; t++) {
        struct outpoint op;
        const struct coin *got;
        op_of(&op, t, 0);
        bad += coins_cache_get(c, &op, &got) != RC_OK || !coin_matches(got, &r[t]);
    }
    CHECK_EQ_INT(bad, 0);
    coins_cache_counters(c, &hits, &misses);
    CHECK_EQ_U64(hits, 200);
    CHECK_EQ_U64(misses, 0);
    /* Spending kept coins deletes them at the next sync; the rest are not rewritten. */
    for (int t = 0; t < 50; t++) {
        struct outpoint op;
        op_of(&op, t, 0);
        CHECK_EQ_INT(coins_cache_spend(c, &op, NULL), RC_OK);
    }
    CHECK_EQ_INT(coins_cache_sync(c, 1, SIZE_MAX), RC_OK);
    coins_db_counters(db, &reads, &writes, &deletes, &batches);
    CHECK_EQ_U64(reads, 0);
    CHECK_EQ_U64(writes, 200);
    CHECK_EQ_U64(deletes, 50);
    CHECK_EQ_INT(coins_cache_count(c), 150);
    /* A fresh cache over the store sees the same coins. */
    struct coins_cache *d = coins_cache_new(coins_db_view(db));
    bad = 0;
    for (int t = 0; t < 200; t++) {
        struct outpoint op;
        const struct coin *got;
        op_of(&op, t, 0);
        int rc = coins_cache_get(d, &op, &got);
        bad += t < 50 ? rc != RC_NOT_FOUND : (rc != RC_OK || !coin_matches(got, &r[t]));
    }
    CHECK_EQ_INT(bad, 0);
    coins_cache_free(d);
    coins_cache_free(c);
    coins_db_free(db);
    kv_close(kv);
}

/* A cache over its limit keeps its youngest coins: every coin kept is younger than every
 * coin dropped, the cache ends within the bound, and what was dropped is read back from the
 * store unchanged. */
static void test_sync_drops_oldest(void)
{
    enum { N = 200000 };
    struct kv *kv = NULL;
    static struct ref_coin r[N];
    uint8_t best[32] = {4};
    CHECK_EQ_INT(kv_open(&kv, &kv_mem_ops, NULL, NULL), RC_OK);
    struct coins_db *db = coins_db_new(kv);
    struct coins_cache *c = coins_cache_new(coins_db_view(db));
    for (int t = 0; t < N; t++) {
        struct outpoint op;
        struct coin coin;
        op_of(&op, t % 256, t / 256 + 1);
        make_coin(&coin, &r[t]);
        r[t].height = coin.height = (uint32_t)((t * 7919) % 4000); /* 50 coins per height */
        CHECK_EQ_INT(coins_cache_add(c, &op, &coin, 0), RC_OK);
    }
    coins_cache_set_best_block(c, best);
    size_t full = coins_cache_memory(c), keep = full / 2;
    CHECK_EQ_INT(coins_cache_sync(c, 0, keep), RC_OK);
    CHECK(coins_cache_memory(c) <= keep);
    size_t kept = coins_cache_count(c);
    CHECK(kept > N / 4 && kept < N);
    /* Which stayed: a peek answers from the cache alone. */
    uint32_t oldest_kept = UINT32_MAX, youngest_dropped = 0;
    int bad = 0;
    for (int t = 0; t < N; t++) {
        struct outpoint op;
        struct coin got;
        int cached;
        op_of(&op, t % 256, t / 256 + 1);
        int rc = coins_cache_peek(c, &op, &got, &cached);
        if (cached) {
            bad += rc != RC_OK || !coin_matches(&got, &r[t]);
            coin_clear(&got);
            oldest_kept = r[t].height < oldest_kept ? r[t].height : oldest_kept;
        } else {
            youngest_dropped = r[t].height > youngest_dropped ? r[t].height : youngest_dropped;
        }
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(youngest_dropped <= oldest_kept);
    for (int t = 0; t < N; t++) {
        struct outpoint op;
        const struct coin *got;
        op_of(&op, t % 256, t / 256 + 1);
        bad += coins_cache_get(c, &op, &got) != RC_OK || !coin_matches(got, &r[t]);
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(coins_cache_count(c), N);
    /* Keeping nothing is a flush: the memory of a new cache. */
    struct coins_cache *empty = coins_cache_new(coins_db_view(db));
    CHECK_EQ_INT(coins_cache_sync(c, 0, 0), RC_OK);
    CHECK_EQ_U64(coins_cache_memory(c), coins_cache_memory(empty));
    coins_cache_free(empty);
    coins_cache_free(c);
    coins_db_free(db);
    kv_close(kv);
}

/* What a coin costs, counted from what the cache allocated: at most its entry and its share
 * of the table at its emptiest, for the standard output types (scripts inline). */
static void test_memory_per_coin(void)
{
    enum { N = 100000 };
    struct kv *kv = NULL;
    CHECK_EQ_INT(kv_open(&kv, &kv_mem_ops, NULL, NULL), RC_OK);
    struct coins_db *db = coins_db_new(kv);
    struct coins_cache *c = coins_cache_new(coins_db_view(db));
    uint8_t p2tr[34] = {0x51, 0x20};
    size_t empty = coins_cache_memory(c);
    for (int t = 0; t < N; t++) {
        struct outpoint op;
        struct coin coin = {0};
        memset(op.txid, 0, 32);
        memcpy(op.txid, &t, sizeof(t));
        op.n = 0;
        coin.value_sat = 1000;
        coin.height = 1;
        coin.script_pubkey.data = p2tr;
        coin.script_pubkey.len = sizeof(p2tr);
        CHECK_EQ_INT(coins_cache_add(c, &op, &coin, 0), RC_OK);
    }
    double per = (double)(coins_cache_memory(c) - empty) / N;
    printf("# %.1f bytes per P2TR coin (entry and table)\n", per);
    CHECK(per >= 88.0);
    /* The table at most half empty, the last 2 MiB chunk partly used. */
    CHECK(per <= 88.0 + 22.0 + 2097152.0 / N);
    CHECK(coins_cache_entry_bytes() <= 100);
    coins_cache_free(c);
    coins_db_free(db);
    kv_close(kv);
}

/* A coin read ahead from the store goes into the cache clean, and only where the cache has
 * no entry: a spend the store has not seen yet wins, a coin already there is not replaced,
 * and nothing primed is written back. */
static void test_prime(void)
{
    struct kv *kv = NULL;
    struct ref_coin r[3];
    uint64_t reads, writes, deletes, batches;
    uint8_t best[32] = {5};
    CHECK_EQ_INT(kv_open(&kv, &kv_mem_ops, NULL, NULL), RC_OK);
    struct coins_db *db = coins_db_new(kv);
    CHECK_EQ_U64(coins_db_epoch(db), 0);
    struct coins_cache *w = coins_cache_new(coins_db_view(db));
    struct coin coins[3];
    struct outpoint ops[3];
    for (int t = 0; t < 3; t++) {
        op_of(&ops[t], t + 1, 1);
        make_coin(&coins[t], &r[t]);
        CHECK_EQ_INT(coins_cache_add(w, &ops[t], &coins[t], 0), RC_OK);
    }
    coins_cache_set_best_block(w, best);
    CHECK_EQ_INT(coins_cache_flush(w, 0), RC_OK);
    coins_cache_free(w);
    /* One batch: the epoch went odd and back to even. */
    CHECK_EQ_U64(coins_db_epoch(db), 2);
    /* What another thread reads with its own buffers. */
    struct buf val, spk;
    buf_init(&val);
    buf_init(&spk);
    struct coin got;
    CHECK_EQ_INT(coins_db_read_buf(db, &ops[0], &got, &val, &spk), RC_OK);
    CHECK(coin_matches(&got, &r[0]));
    struct outpoint none;
    op_of(&none, 99, 1);
    CHECK_EQ_INT(coins_db_read_buf(db, &none, &got, &val, &spk), RC_NOT_FOUND);

    struct coins_cache *c = coins_cache_new(coins_db_view(db));
    CHECK_EQ_INT(coins_cache_spend(c, &ops[1], NULL), RC_OK); /* read, then spent */
    const struct coin *cp;
    CHECK_EQ_INT(coins_cache_get(c, &ops[2], &cp), RC_OK); /* read */
    coins_db_counters(db, &reads, &writes, &deletes, &batches);
    CHECK_EQ_U64(reads, 2);
    CHECK_EQ_INT(coins_db_read_buf(db, &ops[0], &got, &val, &spk), RC_OK);
    CHECK_EQ_INT(coins_cache_prime(c, &ops[0], &got), 1);
    CHECK_EQ_INT(coins_db_read_buf(db, &ops[1], &got, &val, &spk), RC_OK);
    CHECK_EQ_INT(coins_cache_prime(c, &ops[1], &got), 0); /* the spend stays */
    struct coin other = coins[0];
    other.value_sat = 1;
    CHECK_EQ_INT(coins_cache_prime(c, &ops[2], &other), 0); /* not replaced */
    CHECK_EQ_INT(coins_cache_dirty_count(c), 1);
    CHECK_EQ_INT(coins_cache_get(c, &ops[0], &cp), RC_OK);
    CHECK(coin_matches(cp, &r[0]));
    CHECK_EQ_INT(coins_cache_get(c, &ops[1], &cp), RC_NOT_FOUND);
    CHECK_EQ_INT(coins_cache_get(c, &ops[2], &cp), RC_OK);
    CHECK(coin_matches(cp, &r[2]));
    coins_db_counters(db, &reads, &writes, &deletes, &batches);
    CHECK_EQ_U64(reads, 2); /* all from the cache */
    CHECK_EQ_INT(coins_cache_flush(c, 0), RC_OK);
    coins_db_counters(db, &reads, &writes, &deletes, &batches);
    CHECK_EQ_U64(writes, 3); /* only the first cache's */
    CHECK_EQ_U64(deletes, 1);
    CHECK_EQ_U64(coins_db_epoch(db), 4);
    buf_clear(&val);
    buf_clear(&spk);
    coins_cache_free(c);
    coins_db_free(db);
    kv_close(kv);
}

/* The presence filter other threads ask: none until the cache first drops coins; then
 * every coin the cache holds answers 1 (no false negatives), most of those it dropped 0;
 * coins added later answer 1; emptying the cache empties it. */
static void test_presence(void)
{
    enum { N = 200000 };
    struct kv *kv = NULL;
    static struct ref_coin r[N];
    uint8_t best[32] = {6};
    CHECK_EQ_INT(kv_open(&kv, &kv_mem_ops, NULL, NULL), RC_OK);
    struct coins_db *db = coins_db_new(kv);
    struct coins_cache *c = coins_cache_new(coins_db_view(db));
    coins_cache_keep_presence(c, (size_t)N * 12 / 8); /* 12 bits a coin */
    for (int t = 0; t < N; t++) {
        struct outpoint op;
        struct coin coin;
        op_of(&op, t % 256, t / 256 + 1);
        make_coin(&coin, &r[t]);
        coin.height = (uint32_t)t; /* the first ones are the oldest */
        CHECK_EQ_INT(coins_cache_add(c, &op, &coin, 0), RC_OK);
    }
    struct outpoint op0;
    op_of(&op0, 0, 1);
    CHECK_EQ_INT(coins_cache_may_have(c, &op0), 0); /* no filter yet */
    coins_cache_set_best_block(c, best);
    size_t before = coins_cache_memory(c);
    CHECK_EQ_INT(coins_cache_sync(c, 0, SIZE_MAX), RC_OK); /* nothing dropped */
    CHECK_EQ_INT(coins_cache_may_have(c, &op0), 0);
    CHECK_EQ_INT(coins_cache_sync(c, 0, before / 2), RC_OK);
    CHECK(coins_cache_memory(c) <= before / 2);
    int missed = 0, false_pos = 0, dropped = 0;
    for (int t = 0; t < N; t++) {
        struct outpoint op;
        struct coin got;
        int cached;
        op_of(&op, t % 256, t / 256 + 1);
        int rc = coins_cache_peek(c, &op, &got, &cached);
        CHECK(cached ? rc == RC_OK : rc == RC_NOT_FOUND);
        if (cached) {
            coin_clear(&got);
        }
        int may = coins_cache_may_have(c, &op);
        if (cached) {
            missed += !may;
        } else {
            dropped++;
            false_pos += may;
        }
    }
    CHECK_EQ_INT(missed, 0);
    CHECK(dropped > N / 4);
    printf("# presence filter: %d false positives of %d coins dropped\n", false_pos, dropped);
    CHECK(false_pos < dropped / 10);
    /* A coin read back goes in again, and into the filter. */
    const struct coin *cp;
    CHECK_EQ_INT(coins_cache_get(c, &op0, &cp), RC_OK);
    CHECK_EQ_INT(coins_cache_may_have(c, &op0), 1);
    CHECK_EQ_INT(coins_cache_flush(c, 0), RC_OK);
    CHECK_EQ_INT(coins_cache_may_have(c, &op0), 0);
    coins_cache_free(c);
    coins_db_free(db);
    kv_close(kv);
}

/* A frozen generation: the cache answers from it while its thread writes it, a spend or a
 * new coin goes into the generation after it, a coin read ahead does not replace it, its
 * memory counts until the next freeze drops it (the store then has it all), and the
 * presence filter then holds the newer generation's coins, not the dropped ones. */
static void test_freeze(void)
{
    enum { N = 20000 };
    struct kv *kv = NULL;
    static struct ref_coin r[N];
    uint64_t reads, writes, deletes, batches, freezes, wns;
    uint8_t best1[32] = {7}, best2[32] = {8}, got32[32];
    CHECK_EQ_INT(kv_open(&kv, &kv_mem_ops, NULL, NULL), RC_OK);
    struct coins_db *db = coins_db_new(kv);
    coins_db_set_batch(db, 4096, 0); /* many parts: reads land beside them */
    struct coins_cache *c = coins_cache_new(coins_db_view(db));
    coins_cache_keep_presence(c, (size_t)N * 2);
    struct outpoint op;
    struct coin coin;
    for (int t = 0; t < N; t++) {
        op_of(&op, t % 256, t / 256 + 1);
        make_coin(&coin, &r[t]);
        CHECK_EQ_INT(coins_cache_add(c, &op, &coin, 0), RC_OK);
    }
    size_t mem1 = coins_cache_memory(c);
    coins_cache_set_best_block(c, best1);
    CHECK_EQ_INT(coins_cache_freeze(c), RC_OK);
    CHECK(coins_cache_frozen_memory(c) == mem1);
    CHECK(coins_cache_memory(c) >= mem1);
    CHECK_EQ_INT(coins_cache_dirty_count(c), 0); /* the new generation's */
    CHECK_EQ_INT(coins_cache_count(c), N);
    /* Reads, a spend and new coins while the write may be under way. */
    const struct coin *cp;
    struct outpoint op0, opn;
    op_of(&op0, 0, 1);
    op_of(&opn, 300, 1); /* a txid of its own */
    CHECK_EQ_INT(coins_cache_get(c, &op0, &cp), RC_OK);
    CHECK(coin_matches(cp, &r[0]));
    CHECK_EQ_INT(coins_cache_spend(c, &op0, NULL), RC_OK);
    CHECK_EQ_INT(coins_cache_get(c, &op0, &cp), RC_NOT_FOUND);
    struct ref_coin rn, rt;
    make_coin(&coin, &rn);
    CHECK_EQ_INT(coins_cache_add(c, &opn, &coin, 0), RC_OK);
    struct outpoint opt;
    op_of(&opt, 301, 1);
    make_coin(&coin, &rt);
    CHECK_EQ_INT(coins_cache_add(c, &opt, &coin, 0), RC_OK); /* created and spent: FRESH */
    CHECK_EQ_INT(coins_cache_spend(c, &opt, NULL), RC_OK);
    struct outpoint op1;
    op_of(&op1, 1, 1);
    struct coin other = coin;
    other.value_sat = 1;
    CHECK_EQ_INT(coins_cache_prime(c, &op1, &other), 0); /* the frozen one stays */
    struct coin pk;
    int cached;
    CHECK_EQ_INT(coins_cache_peek(c, &op1, &pk, &cached), RC_OK);
    CHECK(cached && coin_matches(&pk, &r[1]));
    coin_clear(&pk);
    CHECK_EQ_INT(coins_cache_peek(c, &op0, &pk, &cached), RC_NOT_FOUND);
    CHECK(cached);
    /* A bounded wait sees the write end (well within a minute), and says so. */
    CHECK_EQ_INT(coins_cache_writing_after(c, 60000), 0);
    CHECK_EQ_INT(coins_cache_writing(c), 0);
    CHECK_EQ_INT(coins_cache_writing_after(c, 0), 0);
    /* Its write done, the store has the generation and its best block. */
    CHECK_EQ_INT(coins_cache_wait(c), RC_OK);
    CHECK_EQ_INT(coins_cache_writing(c), 0);
    CHECK_EQ_INT(coins_db_read(db, &op1, &pk), RC_OK);
    CHECK(coin_matches(&pk, &r[1]));
    coin_clear(&pk);
    CHECK_EQ_INT(coins_db_read(db, &op0, &pk), RC_OK); /* its spend is the next one's */
    coin_clear(&pk);
    struct coins_cache *fresh = coins_cache_new(coins_db_view(db));
    CHECK_EQ_INT(coins_cache_best_block(fresh, got32), RC_OK);
    CHECK_EQ_MEM(got32, best1, 32);
    coins_cache_free(fresh);
    coins_db_counters(db, &reads, &writes, &deletes, &batches);
    CHECK_EQ_U64(writes, N);
    CHECK_EQ_U64(batches, 1);
    /* The next freeze drops the written generation. */
    coins_cache_set_best_block(c, best2);
    CHECK_EQ_INT(coins_cache_freeze(c), RC_OK);
    CHECK_EQ_INT(coins_cache_wait(c), RC_OK);
    CHECK(coins_cache_count(c) < 10); /* a chunk each way: memory falls less */
    CHECK(coins_cache_memory(c) < mem1);
    coins_db_counters(db, &reads, &writes, &deletes, &batches);
    CHECK_EQ_U64(writes, N + 1); /* opn; opt never reached the store */
    CHECK_EQ_U64(deletes, 1);
    CHECK_EQ_INT(coins_db_read(db, &op0, &pk), RC_NOT_FOUND);
    CHECK_EQ_INT(coins_db_read(db, &opn, &pk), RC_OK);
    CHECK(coin_matches(&pk, &rn));
    coin_clear(&pk);
    CHECK_EQ_INT(coins_cache_may_have(c, &opn), 1);
    int still = 0;
    for (int t = 1; t < N; t++) {
        op_of(&op, t % 256, t / 256 + 1);
        still += coins_cache_may_have(c, &op);
        CHECK_EQ_INT(coins_cache_get(c, &op, &cp), RC_OK); /* from the store now */
        CHECK(coin_matches(cp, &r[t]));
    }
    printf("# %d of %d dropped coins in the presence filter before each is read back\n", still,
           N - 1);
    CHECK(still < (N - 1) / 4);
    coins_cache_freeze_counters(c, &freezes, &wns);
    CHECK_EQ_U64(freezes, 2);
    CHECK(wns > 0);
    /* Dropped to make room, without a freeze: its coins leave the presence filter too. */
    uint8_t best3[32] = {9};
    coins_cache_set_best_block(c, best3);
    CHECK_EQ_INT(coins_cache_freeze(c), RC_OK); /* the coins just read back */
    CHECK_EQ_INT(coins_cache_drop_frozen(c), RC_OK);
    CHECK_EQ_INT(coins_cache_count(c), 0);
    CHECK_EQ_INT(coins_cache_frozen_memory(c), 0);
    still = 0;
    for (int t = 1; t < N; t++) {
        op_of(&op, t % 256, t / 256 + 1);
        still += coins_cache_may_have(c, &op);
    }
    CHECK(still < (N - 1) / 4);
    /* A sync drops the frozen generation too, and writes the rest. */
    CHECK_EQ_INT(coins_cache_sync(c, 1, SIZE_MAX), RC_OK);
    CHECK_EQ_INT(coins_cache_frozen_memory(c), 0);
    CHECK_EQ_INT(coins_cache_drop_frozen(c), RC_OK); /* nothing frozen: a no-op */
    coins_cache_free(c);
    coins_db_free(db);
    kv_close(kv);
}

/* A flush in many small parts, of coins in hash order and of one transaction with many
 * outputs (one sort bucket, keys of different lengths): every coin is in the store after,
 * once, and nothing else. */
static void test_flush_parts_sorted(void)
{
    enum { N = 3000 };
    struct kv *kv = NULL;
    static struct ref_coin r[2 * N];
    static struct outpoint ops[2 * N];
    uint8_t best[32] = {7};
    CHECK_EQ_INT(kv_open(&kv, &kv_mem_ops, NULL, NULL), RC_OK);
    struct coins_db *db = coins_db_new(kv);
    coins_db_set_batch(db, 4096, 0);
    struct coins_cache *c = coins_cache_new(coins_db_view(db));
    for (int t = 0; t < 2 * N; t++) {
        struct outpoint op;
        struct coin coin;
        if (t < N) {
            op_of(&op, 7, 0);
            op.n = (uint32_t)t * 37u; /* one transaction: 1- to 3-byte VARINTs */
        } else {
            for (int k = 0; k < 32; k++) {
                op.txid[k] = (uint8_t)rnd();
            }
            op.n = (uint32_t)(rnd() % 3);
        }
        make_coin(&coin, &r[t]);
        ops[t] = op;
        CHECK_EQ_INT(coins_cache_add(c, &op, &coin, 1), RC_OK);
    }
    coins_cache_set_best_block(c, best);
    CHECK_EQ_INT(coins_cache_flush(c, 0), RC_OK);
    CHECK(coins_db_parts(db) > 10);
    int bad = 0;
    for (int t = 0; t < 2 * N; t++) {
        const struct coin *got;
        bad += coins_cache_get(c, &ops[t], &got) != RC_OK || !coin_matches(got, &r[t]);
    }
    CHECK_EQ_INT(bad, 0);
    struct kv_iter *it;
    CHECK_EQ_INT(kv_iter_new(kv, &it), RC_OK);
    CHECK_EQ_INT(kv_iter_seek_first(it), RC_OK);
    int records = 0;
    while (kv_iter_valid(it)) {
        records++;
        CHECK_EQ_INT(kv_iter_next(it), RC_OK);
    }
    kv_iter_free(it);
    CHECK_EQ_INT(records, 2 * N + 1); /* and the best-block marker */
    coins_cache_free(c);
    coins_db_free(db);
    kv_close(kv);
}

/* splitmix64: a draw independent of the last (xorshift's outputs in a row are related). */
static uint64_t rnd_mixed(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A store that only checks the order it is handed the entries in. */
struct order_view {
    struct coins_view view; /* first */
    size_t seen, out_of_order;
    unsigned last; /* the last entry's leading 16 bits of txid */
};

static int order_get(struct coins_view *v, const struct outpoint *op, struct coin *out)
{
    return RC_NOT_FOUND;
}

static int order_best(struct coins_view *v, uint8_t hash32[32])
{
    return RC_NOT_FOUND;
}

static int order_write(struct coins_view *v, struct coins_cursor *cur, const uint8_t best32[32],
                       int sync)
{
    struct order_view *o = (struct order_view *)v;
    struct coins_entry e;
    while (cur->next(cur, &e)) {
        unsigned lead = (unsigned)e.op.txid[0] << 8 | e.op.txid[1];
        o->out_of_order += o->seen > 0 && lead < o->last;
        o->last = lead;
        o->seen++;
    }
    return RC_OK;
}

static const struct coins_view_ops order_ops = {order_get, order_best, order_write};

/* A flush hands a store its dirty entries by key (their txid's leading bits), whatever order
 * the cache holds them in after removals shuffled it: each batch, and each table the store
 * makes of it, then covers keys of its own. */
static void test_flush_in_key_order(void)
{
    struct order_view o = {{&order_ops}, 0, 0, 0};
    struct coins_cache *c = coins_cache_new(&o.view);
    struct ref_coin r;
    struct coin coin;
    uint8_t best[32] = {3};
    for (int i = 0; i < 5000; i++) {
        struct outpoint op;
        memset(&op, 0, sizeof(op));
        uint64_t x = rnd_mixed();
        memcpy(op.txid, &x, 8);
        op.n = (uint32_t)(i % 3);
        make_coin(&coin, &r);
        CHECK_EQ_INT(coins_cache_add(c, &op, &coin, 1), RC_OK);
        if (i % 7 == 0) { /* removals move the last entry into the hole */
            CHECK_EQ_INT(coins_cache_spend(c, &op, NULL), RC_OK);
        }
    }
    coins_cache_set_best_block(c, best);
    CHECK_EQ_INT(coins_cache_flush(c, 0), RC_OK);
    CHECK(o.seen > 4000);
    CHECK_EQ_INT(o.out_of_order, 0);
    coins_cache_free(c);
}

int main(void)
{
    TEST(test_simulation);
    TEST(test_simulation_frozen);
    TEST(test_freeze);
    TEST(test_fresh_never_stored);
    TEST(test_discarded_block_cache);
    TEST(test_failures_propagate);
    TEST(test_memory_accounting);
    TEST(test_sync_keeps_coins);
    TEST(test_sync_drops_oldest);
    TEST(test_memory_per_coin);
    TEST(test_prime);
    TEST(test_presence);
    TEST(test_flush_parts_sorted);
    TEST(test_flush_in_key_order);
    return test_done();
}
