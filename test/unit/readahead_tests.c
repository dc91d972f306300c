/* The block reader thread (src/validation/readahead.c) over a copy of regtest-small's block
 * file: blocks come back parsed, in any order asked, as read by the validation thread
 * itself; a wrong position, a wrong hash or a missing file is an error, never a block; the
 * queue is bounded; blocks handed back are freed on the reader thread (ASan checks that
 * nothing leaks, TSan that nothing races). */
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

#include "consensus/params.h"
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
    while (nblocks < MAXB && off + 8 <= raw.len) {
        uint32_t len = rd_u32le(raw.data + off + 4);
        struct block b;
        block_init(&b);
        CHECK_EQ_INT(block_parse(&b, raw.data + off + 8, len, err, sizeof(err)), RC_OK);
        memcpy(hashes[nblocks], b.hash, 32);
        positions[nblocks] = (uint32_t)(off + 8);
        txcounts[nblocks] = b.tx_count;
        block_clear(&b);
        nblocks++;
        off += 8 + len;
    }
    CHECK(nblocks == MAXB);
    buf_clear(&raw);
}

static void teardown(void)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/blk00000.dat", dir);
    unlink(path);
    rmdir(dir);
}

static struct readahead *new_ra(void)
{
    return readahead_new(dir, chain_params_get("regtest")->magic);
}

static int got(struct readahead *ra, int i)
{
    struct block b;
    block_init(&b);
    int rc = readahead_take(ra, hashes[i], &b);
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

int main(void)
{
    setup();
    TEST(test_in_order);
    TEST(test_skip_and_unknown);
    TEST(test_errors);
    TEST(test_stream);
    teardown();
    return test_done();
}
