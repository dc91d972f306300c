/* The block reader thread (src/validation/readahead.c) over a copy of regtest-small's block
 * file: blocks come back parsed, in any order asked, as read by the validation thread
 * itself; a wrong position, a wrong hash or a missing file is an error, never a block; the
 * queue is bounded; blocks handed back are freed on the reader thread (ASan checks that
 * nothing leaks, TSan that nothing races). */
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

#include "coins/view.h"
#include "consensus/params.h"
#include "kv/kv.h"
#include "primitives/block.h"
#include "util/buf.h"
#include "util/file.h"
#include "util/rc.h"
#include "validation/readahead.h"

#define MAXB 64

static char dir[64];
static uint8_t hashes[MAXB][32];
static uint32_t positions[MAXB];
static size_t txcounts[MAXB];
static int nblocks;
static uint8_t spender_hash[32]; /* the first block with transactions beside its coinbase */
static uint32_t spender_pos;
static struct block spender;

/* Copies regtest-small's blk00000.dat into a new folder and notes its first blocks. */
static void setup(void)
{
    char src[4200], dst[4200], err[256];
    struct buf raw;
    buf_init(&raw);
    snprintf(dir, sizeof(dir), "/tmp/bitnode-readahead-test-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    snprintf(src, sizeof(src), "%s/regtest-small/blk00000.dat", test_data_dir());
    CHECK_EQ_INT(file_read_all(&raw, src, err, sizeof(err)), RC_OK);
    snprintf(dst, sizeof(dst), "%s/blk00000.dat", dir);
    FILE *f = fopen(dst, "wb");
    CHECK(f != NULL);
    CHECK(fwrite(raw.data, 1, raw.len, f) == raw.len);
    fclose(f);
    size_t off = 0;
    int have_spender = 0;
    block_init(&spender);
    while ((nblocks < MAXB || !have_spender) && off + 8 <= raw.len) {
        uint32_t len = rd_u32le(raw.data + off + 4);
        struct block b;
        block_init(&b);
        CHECK_EQ_INT(block_parse(&b, raw.data + off + 8, len, err, sizeof(err)), RC_OK);
        if (nblocks < MAXB) {
            memcpy(hashes[nblocks], b.hash, 32);
            positions[nblocks] = (uint32_t)(off + 8);
            txcounts[nblocks] = b.tx_count;
            nblocks++;
        }
        if (!have_spender && b.tx_count >= 3) {
            memcpy(spender_hash, b.hash, 32);
            spender_pos = (uint32_t)(off + 8);
            spender = b;
            block_init(&b);
            have_spender = 1;
        }
        block_clear(&b);
        off += 8 + len;
    }
    CHECK(nblocks == MAXB);
    CHECK(have_spender);
    buf_clear(&raw);
}

static void teardown(void)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/blk00000.dat", dir);
    unlink(path);
    rmdir(dir);
    block_clear(&spender);
}

static struct readahead *new_ra(void)
{
    return readahead_new(dir, chain_params_get("regtest")->magic);
}

static int got(struct readahead *ra, int i)
{
    struct block b;
    block_init(&b);
    int rc = readahead_take(ra, hashes[i], &b, NULL);
    if (rc == RC_OK) {
        rc = memcmp(b.hash, hashes[i], 32) == 0 && b.tx_count == txcounts[i] ? RC_OK : -999;
        readahead_dispose(ra, &b);
    }
    return rc;
}

static void test_in_order(void)
{
    struct readahead *ra = new_ra();
    for (int i = 0; i < READAHEAD_DEPTH; i++) {
        CHECK_EQ_INT(readahead_want(ra, hashes[i], 0, positions[i]), 1);
    }
    CHECK_EQ_INT(readahead_want(ra, hashes[0], 0, positions[0]), 1); /* held already */
    CHECK_EQ_INT(readahead_want(ra, hashes[READAHEAD_DEPTH], 0, positions[READAHEAD_DEPTH]),
                 0); /* full */
    for (int i = 0; i < READAHEAD_DEPTH; i++) {
        CHECK_EQ_INT(got(ra, i), RC_OK);
    }
    uint64_t nb, ns;
    readahead_counters(ra, &nb, &ns);
    CHECK_EQ_U64(nb, READAHEAD_DEPTH);
    readahead_free(ra);
}

/* The chain went another way: asking for a later block drops the ones before it. */
static void test_skip_and_unknown(void)
{
    struct readahead *ra = new_ra();
    for (int i = 4; i < 8; i++) {
        CHECK_EQ_INT(readahead_want(ra, hashes[i], 0, positions[i]), 1);
    }
    CHECK_EQ_INT(got(ra, 6), RC_OK);
    CHECK_EQ_INT(got(ra, 4), RC_NOT_FOUND); /* dropped: read it yourself */
    CHECK_EQ_INT(got(ra, 7), RC_NOT_FOUND); /* a miss empties the queue */
    CHECK_EQ_INT(readahead_want(ra, hashes[9], 0, positions[9]), 1);
    CHECK_EQ_INT(got(ra, 9), RC_OK);
    /* Asked for and never taken: freed with the reader. */
    CHECK_EQ_INT(readahead_want(ra, hashes[10], 0, positions[10]), 1);
    CHECK_EQ_INT(readahead_want(ra, hashes[11], 0, positions[11]), 1);
    readahead_reset(ra);
    CHECK_EQ_INT(got(ra, 10), RC_NOT_FOUND);
    CHECK_EQ_INT(readahead_want(ra, hashes[12], 0, positions[12]), 1);
    readahead_free(ra);
}

/* Never a block that is not the one asked for. */
static void test_errors(void)
{
    struct readahead *ra = new_ra();
    CHECK_EQ_INT(readahead_want(ra, hashes[3], 0, positions[3] + 1), 1);
    CHECK_EQ_INT(got(ra, 3), RC_CORRUPT); /* no frame there */
    CHECK_EQ_INT(readahead_want(ra, hashes[3], 0, positions[4]), 1);
    CHECK_EQ_INT(got(ra, 3), RC_CORRUPT); /* another block there */
    CHECK_EQ_INT(readahead_want(ra, hashes[3], 7, positions[3]), 1);
    CHECK_EQ_INT(got(ra, 3), RC_IO); /* no blk00007.dat */
    CHECK_EQ_INT(readahead_want(ra, hashes[3], 0, 4), 1);
    CHECK_EQ_INT(got(ra, 3), RC_CORRUPT); /* before the first frame */
    CHECK_EQ_INT(readahead_want(ra, hashes[3], 0, positions[3]), 1);
    CHECK_EQ_INT(got(ra, 3), RC_OK); /* and it still works */
    readahead_free(ra);
}

/* The validation thread's pattern, many times over: keep the queue full, take in order. */
static void test_stream(void)
{
    struct readahead *ra = new_ra();
    int bad = 0;
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < nblocks; i++) {
            for (int k = i; k < i + READAHEAD_DEPTH && k < nblocks; k++) {
                readahead_want(ra, hashes[k], 0, positions[k]);
            }
            bad += got(ra, i) != RC_OK;
        }
    }
    CHECK_EQ_INT(bad, 0);
    /* A block not from the reader is freed where it is. */
    struct block b;
    block_init(&b);
    readahead_dispose(ra, &b);
    readahead_free(ra);
}

/* Does the spender block create the transaction op spends? */
static int made_by_spender(const struct outpoint *op)
{
    for (size_t t = 0; t < spender.tx_count; t++) {
        if (memcmp(spender.txs[t].txid, op->txid, 32) == 0) {
            return 1;
        }
    }
    return 0;
}

/* With a coins store: the coins a block spends come with it, those the store has and only
 * those, read at the store's epoch; off, or without a store, none are read. */
static void test_coins(void)
{
    struct kv *kv = NULL;
    CHECK_EQ_INT(kv_open(&kv, &kv_mem_ops, NULL, NULL), RC_OK);
    struct coins_db *db = coins_db_new(kv);
    struct coins_cache *w = coins_cache_new(coins_db_view(db));
    uint8_t p2tr[34] = {0x51, 0x20, 7};
    size_t spent = 0, stored = 0;
    for (size_t t = 1; t < spender.tx_count; t++) {
        for (size_t i = 0; i < spender.txs[t].vin_count; i++) {
            const struct outpoint *op = &spender.txs[t].vin[i].prevout;
            if (made_by_spender(op)) {
                continue;
            }
            if (spent++ % 2 == 0) { /* every other one in the store */
                struct coin c = {0};
                c.value_sat = 1000 + (int64_t)op->n;
                c.height = 3;
                c.script_pubkey.data = p2tr;
                c.script_pubkey.len = sizeof(p2tr);
                CHECK_EQ_INT(coins_cache_add(w, op, &c, 1), RC_OK);
                stored++;
            }
        }
    }
    CHECK(stored > 0);
    uint8_t best[32] = {1};
    coins_cache_set_best_block(w, best);
    CHECK_EQ_INT(coins_cache_flush(w, 0), RC_OK);
    coins_cache_free(w);

    struct readahead *ra = new_ra();
    struct readahead_coins rc;
    struct block b;
    readahead_coins_init(&rc);
    readahead_set_coins(ra, db, NULL);
    /* Not asked to: none. */
    CHECK_EQ_INT(readahead_want(ra, spender_hash, 0, spender_pos), 1);
    block_init(&b);
    CHECK_EQ_INT(readahead_take(ra, spender_hash, &b, &rc), RC_OK);
    readahead_dispose(ra, &b);
    CHECK_EQ_INT(rc.n, 0);
    readahead_coins_on(ra, 1);
    for (int round = 0; round < 3; round++) {
        CHECK_EQ_INT(readahead_want(ra, spender_hash, 0, spender_pos), 1);
        CHECK_EQ_INT(readahead_want(ra, hashes[1], 0, positions[1]), 1); /* no spends */
        CHECK_EQ_INT(readahead_take(ra, spender_hash, &b, &rc), RC_OK);
        readahead_dispose(ra, &b);
        CHECK_EQ_INT(rc.n, stored);
        CHECK_EQ_U64(rc.epoch, coins_db_epoch(db));
        int bad = 0;
        for (size_t k = 0; k < rc.n; k++) {
            const struct coin *c = &rc.v[k].coin;
            bad += c->value_sat != 1000 + (int64_t)rc.v[k].op.n || c->height != 3 ||
                   c->script_pubkey.len != sizeof(p2tr) ||
                   memcmp(c->script_pubkey.data, p2tr, sizeof(p2tr)) != 0;
        }
        CHECK_EQ_INT(bad, 0);
        CHECK_EQ_INT(readahead_take(ra, hashes[1], &b, &rc), RC_OK);
        readahead_dispose(ra, &b);
        CHECK_EQ_INT(rc.n, 0);
    }
    uint64_t lookups, found, wait;
    readahead_coin_counters(ra, &lookups, &found, &wait);
    CHECK_EQ_U64(lookups, 3 * spent);
    CHECK_EQ_U64(found, 3 * stored);
    readahead_free(ra);
    readahead_coins_clear(&rc);
    coins_db_free(db);
    kv_close(kv);
}

int main(void)
{
    setup();
    TEST(test_in_order);
    TEST(test_skip_and_unknown);
    TEST(test_errors);
    TEST(test_stream);
    TEST(test_coins);
    teardown();
    return test_done();
}
