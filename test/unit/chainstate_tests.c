/* The chainstate end to end, on every kv backend compiled in (the configured one, then the
 * in-memory B-tree, as kv_tests runs its suite) in a temporary datadir: import the
 * bundled regtest chain and reach Core's tip and UTXO set hashes (hash_serialized_3 and
 * muhash, txouts, amounts); stop and reopen to the same state; -stopatheight; the reorg chain
 * in arrival order and shuffled; -reindex and -reindex-chainstate; invalidate and reconsider;
 * a block with bad data under stored blocks leaves a datadir that opens again. */
#include "test.h"

#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crypto/hash.h"
#include "kv/kv.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/chainstate.h"
#include "validation/import.h"
#include "validation/txindex.h"

static char datadir[200];
static const struct kv_ops *cur_ops; /* the backend of this run of the suite */

/* An empty datadir. The mem backend's named stores outlive kv_close (a reopen sees them):
 * they are dropped too. */
static void wipe(void)
{
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s'", datadir, datadir);
    CHECK_EQ_INT(system(cmd), 0);
    if (cur_ops == &kv_mem_ops) {
        static const char *const stores[] = {"blocks/index", "chainstate", "indexes/txindex"};
        for (size_t i = 0; i < sizeof(stores) / sizeof(stores[0]); i++) {
            char path[400];
            snprintf(path, sizeof(path), "%s/%s", datadir, stores[i]);
            kv_destroy(&kv_mem_ops, path);
        }
    }
}

static struct chainstate *open_cs(int reindex, int reindex_cs, int64_t stop)
{
    struct chainstate *cs = NULL;
    struct chainstate_options o = {
        .params = chain_params_get("regtest"),
        .datadir = datadir,
        .dbcache_bytes = 16u << 20,
        .reindex = reindex,
        .reindex_chainstate = reindex_cs,
        .stop_at_height = stop,
        .kv_ops = cur_ops,
    };
    char err[512] = "";
    int rc = chainstate_open(&cs, &o, err, sizeof(err));
    if (rc) {
        printf("# chainstate_open: %d %s\n", rc, err);
    }
    return cs;
}

/* Imports one file as bitnoded does: the importer on this thread, the chainstate owned by a
 * validation thread for the length of the import. */
static int import_file(struct chainstate *cs, const char *path, struct import_stats *st)
{
    struct validator *v = NULL;
    int rc = validator_new(&v, cs, 0, NULL, NULL);
    if (rc) {
        return rc;
    }
    struct importer *im = importer_new(v, 0);
    struct validator_job j = {.work = VALIDATOR_ACTIVATE};
    rc = validator_run(v, &j);
    if (rc == RC_OK) {
        rc = importer_add_file(im, path, 0);
    }
    int rc2 = importer_finish(im, st);
    rc = rc ? rc : rc2;
    importer_free(im);
    validator_free(v);
    return rc;
}

static void tip_hex(struct chainstate *cs, char out[65])
{
    struct block_index *t = chainstate_tip(cs);
    if (t) {
        hex_encode_rev(out, t->hash, 32);
    } else {
        strcpy(out, "none");
    }
}

/* Compares the chainstate's UTXO statistics with one gettxoutsetinfo answer of Core. */
static void check_stats(struct chainstate *cs, json_t *obj, const char *field, const char *label)
{
    struct coins_stats st;
    uint8_t h[32];
    char got[65];
    enum coins_stats_hash kind =
        strcmp(field, "muhash") == 0 ? COINS_STATS_MUHASH : COINS_STATS_HASH_SERIALIZED;
    int rc = chainstate_utxo_stats(cs, kind, &st, h);
    hex_encode_rev(got, h, 32);
    const char *want = json_string_value(json_object_get(obj, field));
    int ok = rc == RC_OK && want && strcmp(got, want) == 0 &&
             st.txouts == (uint64_t)json_integer_value(json_object_get(obj, "txouts")) &&
             st.total_amount_sat ==
                 (int64_t)llround(json_number_value(json_object_get(obj, "total_amount")) * 1e8);
    if (!ok) {
        printf("# %s: got %s txouts %llu amount %lld (rc %d), want %s\n", label, got,
               (unsigned long long)st.txouts, (long long)st.total_amount_sat, rc,
               want ? want : "?");
    }
    test_report(ok, "%s: %s, txouts and total_amount equal Core's", label, field);
    if (rc == RC_OK) {
        coins_stats_clear(&st);
    }
}

static json_t *expected_small, *expected_reorg;

/* Core's rule for the coins cache: it may grow into the part of -maxmempool the pool does
 * not use, and no further. With a 1 MiB -dbcache the cache is over its own share after the
 * first block; 64 MB of unused pool space is room for all of regtest-small, but a full
 * pool leaves it none, and the cache then flushes as it fills. */
static uint64_t import_small_flushes(size_t pool_used)
{
    char path[4200];
    struct import_stats ist;
    struct chainstate *cs = NULL;
    struct chainstate_counters c;
    struct chainstate_options o = {
        .params = chain_params_get("regtest"),
        .datadir = datadir,
        .dbcache_bytes = 1u << 20,
        .mempool_bytes = 64u << 20,
        .kv_ops = cur_ops,
    };
    char err[512] = "";
    wipe();
    CHECK_EQ_INT(chainstate_open(&cs, &o, err, sizeof(err)), RC_OK);
    if (!cs) {
        return 0;
    }
    chainstate_set_mempool_usage(cs, pool_used);
    snprintf(path, sizeof(path), "%s/regtest-small/blk00000.dat", test_data_dir());
    CHECK_EQ_INT(import_file(cs, path, &ist), RC_OK);
    CHECK_EQ_INT(chainstate_tip(cs)->height, 1300);
    chainstate_get_counters(cs, &c);
    json_t *u = json_object_get(expected_small, "gettxoutsetinfo_tip");
    check_stats(cs, json_object_get(u, "hash_serialized_3"), "hash_serialized_3",
                pool_used ? "tip 1300, pool full" : "tip 1300, pool empty");
    CHECK_EQ_INT(chainstate_close(cs), RC_OK);
    return c.flushes;
}

static void test_mempool_share(void)
{
    uint64_t empty = import_small_flushes(0);
    uint64_t full = import_small_flushes(64u << 20);
    uint64_t over = import_small_flushes(200u << 20); /* counted as the pool's budget at most */
    printf("# flushes importing regtest-small at -dbcache=1: pool empty %llu, full %llu, "
           "over %llu\n",
           (unsigned long long)empty, (unsigned long long)full, (unsigned long long)over);
    CHECK(empty <= 1);
    /* About one per block (1300); a periodic or final flush more or less with timing. */
    CHECK(full > 1000);
    CHECK(over > 1000);
}

static void test_import_regtest_small(void)
{
    char path[4200], tip[65];
    struct import_stats ist;
    wipe();
    struct chainstate *cs = open_cs(0, 0, 0);
    CHECK(cs != NULL);
    if (!cs) {
        return;
    }
    snprintf(path, sizeof(path), "%s/regtest-small/blk00000.dat", test_data_dir());
    CHECK_EQ_INT(import_file(cs, path, &ist), RC_OK);
    CHECK_EQ_U64(ist.invalid, 0);
    CHECK_EQ_U64(ist.orphans, 0);
    tip_hex(cs, tip);
    json_t *t = json_object_get(expected_small, "tip");
    test_report(strcmp(tip, json_string_value(json_object_get(t, "hash"))) == 0,
                "regtest-small imports to Core's tip %s", tip);
    CHECK_EQ_INT(chainstate_tip(cs)->height, 1300);
    json_t *u = json_object_get(expected_small, "gettxoutsetinfo_tip");
    check_stats(cs, json_object_get(u, "hash_serialized_3"), "hash_serialized_3", "tip 1300");
    check_stats(cs, json_object_get(u, "muhash"), "muhash", "tip 1300");
    /* Every 100th block hash of the active chain. */
    json_t *every = json_object_get(expected_small, "getblockhash_every_100");
    const char *k;
    json_t *v;
    int bad = 0;
    json_object_foreach(every, k, v)
    {
        char hx[65];
        struct block_index *e = chainstate_at_height(cs, atoi(k));
        if (!e) {
            bad++;
            continue;
        }
        hex_encode_rev(hx, e->hash, 32);
        bad += strcmp(hx, json_string_value(v)) != 0;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(chainstate_close(cs), RC_OK);

    /* Stop and start: the same state, nothing to do. */
    cs = open_cs(0, 0, 0);
    CHECK(cs != NULL);
    if (!cs) {
        return;
    }
    tip_hex(cs, tip);
    test_report(strcmp(tip, json_string_value(json_object_get(t, "hash"))) == 0,
                "after a restart the tip is still %s", tip);
    CHECK_EQ_INT(chainstate_activate_best_chain(cs), RC_OK);
    check_stats(cs, json_object_get(u, "muhash"), "muhash", "tip after restart");
    /* Importing the same file again adds nothing. */
    CHECK_EQ_INT(import_file(cs, path, &ist), RC_OK);
    CHECK_EQ_U64(ist.accepted, 0);
    CHECK_EQ_INT(chainstate_close(cs), RC_OK);

    /* -reindex-chainstate: the same UTXO set from the stored blocks. */
    cs = open_cs(0, 1, 0);
    CHECK(cs != NULL);
    if (cs) {
        CHECK(chainstate_tip(cs) == NULL);
        CHECK_EQ_INT(chainstate_activate_best_chain(cs), RC_OK);
        tip_hex(cs, tip);
        test_report(strcmp(tip, json_string_value(json_object_get(t, "hash"))) == 0,
                    "-reindex-chainstate reaches the tip again");
        check_stats(cs, json_object_get(u, "hash_serialized_3"), "hash_serialized_3",
                    "after -reindex-chainstate");
        CHECK_EQ_INT(chainstate_close(cs), RC_OK);
    }

    /* -reindex: rebuild the index from our own blk files too. */
    cs = open_cs(1, 0, 0);
    CHECK(cs != NULL);
    if (cs) {
        struct validator *val = NULL;
        CHECK_EQ_INT(validator_new(&val, cs, 0, NULL, NULL), RC_OK);
        struct importer *im = importer_new(val, 1);
        snprintf(path, sizeof(path), "%s/blocks/blk00000.dat", datadir);
        CHECK_EQ_INT(importer_add_file(im, path, 0), RC_OK);
        CHECK_EQ_INT(importer_finish(im, &ist), RC_OK);
        importer_free(im);
        validator_free(val);
        CHECK_EQ_INT(chainstate_activate_best_chain(cs), RC_OK);
        tip_hex(cs, tip);
        test_report(strcmp(tip, json_string_value(json_object_get(t, "hash"))) == 0 &&
                        ist.accepted == 1301,
                    "-reindex reaches the tip again (%llu blocks re-read)",
                    (unsigned long long)ist.accepted);
        check_stats(cs, json_object_get(u, "muhash"), "muhash", "after -reindex");
        CHECK_EQ_INT(chainstate_close(cs), RC_OK);
        /* Reindexing must not have grown our block file. */
        struct stat sb;
        CHECK_EQ_INT(stat(path, &sb), 0);
        CHECK_EQ_INT(sb.st_size, 16 << 20);
    }
}

/* Core's answers at every height expected.json lists (hash_serialized_3 and muhash where
 * recorded, muhash every 100 blocks): one datadir, -stopatheight raised step by step, the
 * import resumed each time from what is stored. */
static void test_every_recorded_height(void)
{
    char path[4200];
    struct import_stats ist;
    json_t *at = json_object_get(expected_small, "gettxoutsetinfo_at_height");
    json_t *every = json_object_get(expected_small, "gettxoutsetinfo_muhash_every_100");
    int heights[32], n = 0;
    for (int h = 100; h <= 1300 && n < 32; h += 50) {
        char key[16];
        snprintf(key, sizeof(key), "%d", h);
        if (json_object_get(at, key) || json_object_get(every, key)) {
            heights[n++] = h;
        }
    }
    CHECK(n >= 14);
    wipe();
    snprintf(path, sizeof(path), "%s/regtest-small/blk00000.dat", test_data_dir());
    for (int i = 0; i < n; i++) {
        char key[16], label[64];
        struct chainstate *cs = open_cs(0, 0, heights[i]);
        CHECK(cs != NULL);
        if (!cs) {
            return;
        }
        CHECK_EQ_INT(import_file(cs, path, &ist), RC_OK);
        CHECK_EQ_INT(chainstate_tip(cs)->height, heights[i]);
        snprintf(key, sizeof(key), "%d", heights[i]);
        json_t *a = json_object_get(at, key), *e = json_object_get(every, key);
        snprintf(label, sizeof(label), "height %d", heights[i]);
        if (a) {
            check_stats(cs, json_object_get(a, "hash_serialized_3"), "hash_serialized_3", label);
            check_stats(cs, json_object_get(a, "muhash"), "muhash", label);
        } else {
            check_stats(cs, e, "muhash", label);
        }
        CHECK_EQ_INT(chainstate_close(cs), RC_OK);
    }
}

static void test_reorg_files(void)
{
    const char *files[] = {"blk-reorg.dat", "blk-shuffled.dat"};
    json_t *t = json_object_get(expected_reorg, "tip");
    json_t *u = json_object_get(expected_reorg, "gettxoutsetinfo_tip");
    for (int i = 0; i < 2; i++) {
        char path[4200], tip[65], label[64];
        struct import_stats ist;
        wipe();
        struct chainstate *cs = open_cs(0, 0, 0);
        CHECK(cs != NULL);
        if (!cs) {
            return;
        }
        snprintf(path, sizeof(path), "%s/data/regtest-reorg/%s", test_shared_dir(), files[i]);
        CHECK_EQ_INT(import_file(cs, path, &ist), RC_OK);
        tip_hex(cs, tip);
        test_report(strcmp(tip, json_string_value(json_object_get(t, "hash"))) == 0 &&
                        ist.orphans == 0 && ist.invalid == 0,
                    "%s imports to Core's tip (held %llu blocks for their parent)", files[i],
                    (unsigned long long)ist.held);
        snprintf(label, sizeof(label), "%s tip", files[i]);
        json_t *hs = json_object_get(u, "hash_serialized_3");
        json_t *mh = json_object_get(u, "muhash");
        if (hs) {
            check_stats(cs, hs, "hash_serialized_3", label);
        }
        if (mh) {
            check_stats(cs, mh, "muhash", label);
        }
        if (i == 0) {
            /* The stale branch is kept: its tip is in the index with valid data. */
            uint8_t stale[32];
            hex_decode_hash32_rev(
                stale, "7c28ae4359ccb840ea8f2e4af9a4201ca0ae0b327b66497803855734f845cfcf");
            struct block_index *s = block_tree_find(chainstate_tree(cs), stale);
            CHECK(s != NULL);
            if (s) {
                CHECK_EQ_INT(s->height, 160);
                CHECK(!chainstate_contains(cs, s));
                CHECK(!block_index_failed(s));
                CHECK(s->status & BLOCK_HAVE_DATA);
                /* Stored but never connected, as Core's import leaves it (valid-headers):
                 * the import connects as it reads, along the file's best header chain. */
                CHECK(!block_index_is_valid(s, BLOCK_VALID_SCRIPTS));
                CHECK(block_index_is_valid(s, BLOCK_VALID_TREE));
            }
            /* invalidateblock on the active branch's first block after the fork brings the
             * stale branch back; reconsiderblock returns to the longer one. */
            struct block_index *tipe = chainstate_tip(cs);
            struct block_index *b151 = block_index_ancestor(tipe, 151);
            CHECK_EQ_INT(chainstate_invalidate_block(cs, b151->hash), RC_OK);
            tip_hex(cs, tip);
            test_report(
                strcmp(tip, "7c28ae4359ccb840ea8f2e4af9a4201ca0ae0b327b66497803855734f845cfcf") ==
                    0,
                "invalidateblock switches to the stale branch (tip %s)", tip);
            CHECK_EQ_INT(chainstate_reconsider_block(cs, b151->hash), RC_OK);
            tip_hex(cs, tip);
            test_report(strcmp(tip, json_string_value(json_object_get(t, "hash"))) == 0,
                        "reconsiderblock switches back (tip %s)", tip);
            if (mh) {
                check_stats(cs, mh, "muhash", "after invalidate and reconsider");
            }
        }
        CHECK_EQ_INT(chainstate_close(cs), RC_OK);
    }
}

/* Bad block data under good blocks: a file of blocks 0-60 in which block 50 is its valid
 * header followed by a body that does not match the header's merkle root (mode 0) or does
 * not parse (mode 1), and blocks 51-60 build on that header. The import ends at block 49
 * with 51-60 stored; block 50 stays a header without data, not marked invalid (as Core
 * leaves a mutated block). The datadir must open again to the same state: a record is never
 * written without its parent's (it used to be: "entry at height 51 has no parent"). */
static void test_bad_block_data_reopens(void)
{
    char src[4200], bad[4200];
    size_t len = 0;
    snprintf(src, sizeof(src), "%s/regtest-small/blk00000.dat", test_data_dir());
    snprintf(bad, sizeof(bad), "%s-bad.dat", datadir);
    uint8_t *raw = test_read_file(src, &len);
    CHECK(raw != NULL);
    if (!raw) {
        return;
    }
    for (int mode = 0; mode < 2; mode++) {
        uint8_t hash50[32], hash60[32];
        struct import_stats ist;
        FILE *f = fopen(bad, "wb");
        CHECK(f != NULL);
        if (!f) {
            break;
        }
        size_t off = 0;
        for (int h = 0; h <= 60 && off + 8 <= len; h++) {
            uint32_t n = (uint32_t)raw[off + 4] | (uint32_t)raw[off + 5] << 8 |
                         (uint32_t)raw[off + 6] << 16 | (uint32_t)raw[off + 7] << 24;
            uint8_t *rec = raw + off + 8;
            if (h == 50) {
                hash_sha256d(hash50, rec, 80);
            }
            if (h == 60) {
                hash_sha256d(hash60, rec, 80);
            }
            if (h == 50 && mode == 0) {
                uint8_t *copy = xmemdup(rec, n);
                copy[n - 1] ^= 1; /* the last transaction's lock time: another txid */
                fwrite(raw + off, 1, 8, f);
                fwrite(copy, 1, n, f);
                free(copy);
            } else if (h == 50) {
                static const uint8_t garbage[] = {0x01, 0xde, 0xad, 0xbe, 0xef};
                uint8_t frame[8];
                memcpy(frame, raw + off, 4);
                uint32_t m = 80 + sizeof(garbage);
                for (int i = 0; i < 4; i++) {
                    frame[4 + i] = (uint8_t)(m >> (8 * i));
                }
                fwrite(frame, 1, 8, f);
                fwrite(rec, 1, 80, f);
                fwrite(garbage, 1, sizeof(garbage), f);
            } else {
                fwrite(raw + off, 1, 8 + n, f);
            }
            off += 8 + n;
        }
        CHECK_EQ_INT(fclose(f), 0);

        wipe();
        struct chainstate *cs = open_cs(0, 0, 0);
        CHECK(cs != NULL);
        if (!cs) {
            break;
        }
        CHECK_EQ_INT(import_file(cs, bad, &ist), RC_OK);
        CHECK_EQ_U64(ist.invalid, 1);
        CHECK_EQ_INT(chainstate_tip(cs)->height, 49);
        CHECK_EQ_INT(chainstate_close(cs), RC_OK);

        cs = open_cs(0, 0, 0);
        test_report(cs != NULL, "%s block 50 under blocks 51-60: the datadir opens again",
                    mode == 0 ? "merkle-mutated" : "undecodable");
        if (!cs) {
            continue;
        }
        CHECK_EQ_INT(chainstate_activate_best_chain(cs), RC_OK);
        CHECK_EQ_INT(chainstate_tip(cs)->height, 49);
        struct block_index *e50 = block_tree_find(chainstate_tree(cs), hash50);
        struct block_index *e60 = block_tree_find(chainstate_tree(cs), hash60);
        CHECK(e50 != NULL && e60 != NULL);
        if (e50 && e60) {
            CHECK(!(e50->status & BLOCK_HAVE_DATA));
            CHECK(!block_index_failed(e50));
            CHECK(e60->status & BLOCK_HAVE_DATA);
            CHECK(block_index_ancestor(e60, 50) == e50);
            CHECK(chainstate_best_header(cs) == e60);
        }
        CHECK_EQ_INT(chainstate_close(cs), RC_OK);
    }
    free(raw);
    unlink(bad);
}

/* The listeners: each is told of every tip, block connected and disconnected and best
 * header, in the order added; a removed one hears nothing more; there is room for
 * CHAINSTATE_MAX_LISTENERS. */
struct heard {
    int tips, connected, disconnected, headers, settled;
    const struct block_index *tip, *header, *settled_tip;
};

static void heard_settled(void *ctx, const struct block_index *tip, int ibd)
{
    struct heard *h = ctx;
    (void)ibd;
    h->settled++;
    h->settled_tip = tip;
}

static void heard_tip(void *ctx, const struct block_index *tip)
{
    struct heard *h = ctx;
    h->tips++;
    h->tip = tip;
}

static void heard_connected(void *ctx, struct chainstate *cs, const struct block_index *e,
                            const struct block *b)
{
    struct heard *h = ctx;
    (void)cs;
    h->connected += memcmp(e->hash, b->hash, 32) == 0 && h->tip == e;
}

static void heard_disconnected(void *ctx, struct chainstate *cs, const struct block_index *e,
                               const struct block *b)
{
    struct heard *h = ctx;
    (void)cs;
    h->disconnected += memcmp(e->hash, b->hash, 32) == 0 && h->tip == e->prev;
}

static void heard_header(void *ctx, const struct block_index *e)
{
    struct heard *h = ctx;
    h->headers++;
    h->header = e;
}

/* Writes byte v at the offset of the block bytes of record n of the node's blk00000.dat plus
 * at (under the file's XOR key, blocks/xor.dat, if there is one). Returns the offset of the
 * block's bytes, or -1. */
static long poke_record(int n, size_t at, int v)
{
    char path[400], keypath[400];
    uint8_t key[8] = {0};
    snprintf(path, sizeof(path), "%s/blocks/blk00000.dat", datadir);
    snprintf(keypath, sizeof(keypath), "%s/blocks/xor.dat", datadir);
    FILE *k = fopen(keypath, "rb");
    if (k) {
        CHECK_EQ_INT(fread(key, 1, 8, k), 8);
        fclose(k);
    }
    FILE *f = fopen(path, "r+b");
    CHECK(f != NULL);
    if (!f) {
        return -1;
    }
    long pos = 0;
    for (int i = 0; i <= n; i++) {
        uint8_t h[8];
        if (fseek(f, pos, SEEK_SET) || fread(h, 1, 8, f) != 8) {
            fclose(f);
            return -1;
        }
        for (int j = 0; j < 8; j++) {
            h[j] ^= key[(pos + j) % 8];
        }
        uint32_t size = (uint32_t)h[4] | (uint32_t)h[5] << 8 | (uint32_t)h[6] << 16 |
                        (uint32_t)h[7] << 24;
        if (i < n) {
            pos += 8 + (long)size;
        }
    }
    long data = pos + 8, off = data + (long)at;
    int old = 0;
    if (fseek(f, off, SEEK_SET) == 0) {
        old = fgetc(f);
    }
    uint8_t b = (uint8_t)(v >= 0 ? (v ^ key[off % 8]) : (old ^ 0x5a));
    CHECK(fseek(f, off, SEEK_SET) == 0 && fwrite(&b, 1, 1, f) == 1);
    fclose(f);
    return data;
}

/* A stored block that does not read back, met by -reindex-chainstate or by a restart that
 * resumes below it (that one used to dereference the NULL a failed read leaves: a
 * segmentation fault): RC_CORRUPT, the tip just below it, nothing marked invalid, the
 * reason naming blk00000.dat, the position and -reindex. Both a record that does not parse
 * and a body that no longer matches its merkle root. */
static void test_unreadable_stored_block(void)
{
    char path[4200], want[64];
    struct import_stats ist;
    wipe();
    struct chainstate *cs = open_cs(0, 0, 0);
    CHECK(cs != NULL);
    if (!cs) {
        return;
    }
    snprintf(path, sizeof(path), "%s/regtest-small/blk00000.dat", test_data_dir());
    CHECK_EQ_INT(import_file(cs, path, &ist), RC_OK);
    CHECK_EQ_INT(chainstate_close(cs), RC_OK);
    for (int mode = 0; mode < 2; mode++) {
        int rec = mode ? 1100 : 1000;
        long data = mode ? poke_record(rec, 82, -1) /* a tx version byte: the merkle root */
                         : poke_record(rec, 80, 0xff); /* tx count: an 8-byte one follows */
        if (!mode) {
            poke_record(rec, 88, 0x7f); /* ... a huge one */
        }
        CHECK(data > 0);
        snprintf(want, sizeof(want), "blk00000.dat at position %ld", data);
        for (int restart = 0; restart < 2; restart++) {
            cs = open_cs(0, !restart, 0);
            CHECK(cs != NULL);
            if (!cs) {
                return;
            }
            CHECK_EQ_INT(chainstate_activate_best_chain(cs), RC_CORRUPT);
            struct block_index *tip = chainstate_tip(cs);
            CHECK(tip != NULL && tip->height == rec - 1);
            const char *why = chainstate_fatal_message(cs);
            CHECK(why[0] && strstr(why, want) && strstr(why, "-reindex"));
            printf("# %s: %s\n", restart ? "restart" : "-reindex-chainstate", why);
            struct block_index *next = chainstate_at_height(cs, rec - 1);
            CHECK(next != NULL && !block_index_failed(next));
            CHECK_EQ_INT(chainstate_close(cs), RC_OK);
        }
        if (!mode) {
            wipe(); /* a fresh datadir for the next case */
            cs = open_cs(0, 0, 0);
            CHECK(cs != NULL);
            if (!cs) {
                return;
            }
            CHECK_EQ_INT(import_file(cs, path, &ist), RC_OK);
            CHECK_EQ_INT(chainstate_close(cs), RC_OK);
        }
    }
}

/* -txindex: a connected block's transactions are found at once (Core's index writes each
 * block as it connects), before the index's next write, and still after it; a later entry
 * for the same txid wins; unknown txids are not found. 3000 transactions grow the table. */
static void test_txindex_pending(void)
{
    char path[4300];
    snprintf(path, sizeof(path), "%s/txindex-pending", datadir);
    mkdir(datadir, 0700);
    struct txindex *ti = NULL;
    char err[256];
    CHECK_EQ_INT(txindex_open(&ti, cur_ops, path, err, sizeof(err)), 0);
    struct block b;
    memset(&b, 0, sizeof(b));
    b.tx_count = 3000;
    b.txs = xcalloc(b.tx_count, sizeof(*b.txs));
    for (size_t i = 0; i < b.tx_count; i++) {
        hash_sha256d(b.txs[i].txid, &i, sizeof(i));
        b.txs[i].size_total = 100 + i % 7;
    }
    struct block_index e;
    memset(&e, 0, sizeof(e));
    e.file = 3;
    e.data_pos = 1000;
    txindex_add_block(ti, &e, &b);
    struct txindex_pos pos;
    uint32_t offset = 3; /* the compact size of 3000 */
    for (int round = 0; round < 2; round++) {
        offset = 3;
        for (size_t i = 0; i < b.tx_count; i++) {
            CHECK_EQ_INT(txindex_find(ti, b.txs[i].txid, &pos), 0);
            CHECK(pos.file == 3 && pos.block_pos == 1000 && pos.tx_offset == offset);
            offset += (uint32_t)b.txs[i].size_total;
        }
        uint8_t none[32] = {1};
        CHECK_EQ_INT(txindex_find(ti, none, &pos), RC_NOT_FOUND);
        uint8_t best[32] = {7};
        CHECK_EQ_INT(txindex_write(ti, best), 0); /* then the same answers from the store */
    }
    struct block b2 = b;
    b2.tx_count = 1; /* the first transaction again, in another block */
    e.data_pos = 5000;
    txindex_add_block(ti, &e, &b2);
    CHECK_EQ_INT(txindex_find(ti, b.txs[0].txid, &pos), 0);
    CHECK_EQ_INT((int)pos.block_pos, 5000);
    CHECK_EQ_INT(txindex_find(ti, b.txs[1].txid, &pos), 0);
    CHECK_EQ_INT((int)pos.block_pos, 1000);
    txindex_close(ti);
    free(b.txs);
    kv_destroy(cur_ops, path);
}

/* The index's writer thread: readers under the (read) chain lock find every transaction
 * of every block handed over, whether its batch is queued, being written or written; the
 * marker of the last batch is stored after txindex_wait; a close with a batch in flight
 * writes it. 40 blocks of 2000 transactions, a write begun after each, two reader threads. */
struct txindex_race {
    struct txindex *ti;
    pthread_rwlock_t *lock;
    const uint8_t (*txids)[32];
    volatile size_t *added; /* transactions handed over so far (read under the lock) */
    size_t total;
    int failures;
};

static void *txindex_reader(void *arg)
{
    struct txindex_race *r = arg;
    uint64_t s = (uint64_t)(uintptr_t)r ^ 0x9e3779b97f4a7c15u;
    for (;;) {
        pthread_rwlock_rdlock(r->lock);
        size_t n = *r->added;
        if (n) {
            for (int k = 0; k < 64; k++) {
                s ^= s << 13, s ^= s >> 7, s ^= s << 17;
                struct txindex_pos pos;
                if (txindex_find(r->ti, r->txids[s % n], &pos) != RC_OK) {
                    r->failures++;
                }
            }
        }
        pthread_rwlock_unlock(r->lock);
        if (n == r->total) {
            return NULL;
        }
    }
}

static void test_txindex_writer_thread(void)
{
    char path[4300];
    snprintf(path, sizeof(path), "%s/txindex-writer", datadir);
    mkdir(datadir, 0700);
    enum { BLOCKS = 40, PER = 2000 };
    struct txindex *ti = NULL;
    char err[256];
    CHECK_EQ_INT(txindex_open(&ti, cur_ops, path, err, sizeof(err)), 0);
    uint8_t(*txids)[32] = xcalloc(BLOCKS * PER, 32);
    struct block b;
    memset(&b, 0, sizeof(b));
    b.tx_count = PER;
    b.txs = xcalloc(PER, sizeof(*b.txs));
    /* Writers preferred, as the chain lock (open.c): glibc's default prefers readers, and two
     * readers taking turns on a slow store (BDB) kept the writer out for good. */
    pthread_rwlock_t lock;
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&lock, &attr);
    pthread_rwlockattr_destroy(&attr);
    volatile size_t added = 0;
    struct txindex_race r = {ti, &lock, (const uint8_t(*)[32])txids, &added, BLOCKS * PER, 0};
    pthread_t readers[2];
    for (int i = 0; i < 2; i++) {
        CHECK(pthread_create(&readers[i], NULL, txindex_reader, &r) == 0);
    }
    uint8_t best[32] = {0};
    for (size_t h = 0; h < BLOCKS; h++) {
        for (size_t i = 0; i < PER; i++) {
            size_t n = h * PER + i;
            hash_sha256d(txids[n], &n, sizeof(n));
            memcpy(b.txs[i].txid, txids[n], 32);
            b.txs[i].size_total = 150;
        }
        struct block_index e;
        memset(&e, 0, sizeof(e));
        e.file = 0;
        e.data_pos = (uint32_t)(h * 1000000);
        best[0] = (uint8_t)h;
        pthread_rwlock_wrlock(&lock);
        txindex_add_block(ti, &e, &b);
        CHECK_EQ_INT(txindex_write_begin(ti, best), 0);
        added = (h + 1) * PER;
        pthread_rwlock_unlock(&lock);
    }
    for (int i = 0; i < 2; i++) {
        pthread_join(readers[i], NULL);
    }
    pthread_rwlock_destroy(&lock);
    CHECK_EQ_INT(r.failures, 0);
    CHECK_EQ_INT(txindex_wait(ti), 0);
    CHECK_EQ_INT((int)txindex_pending(ti), 0);
    CHECK_EQ_STR(txindex_error(ti), "");
    uint8_t got[32];
    CHECK_EQ_INT(txindex_best(ti, got), 0);
    CHECK_EQ_INT(got[0], BLOCKS - 1);
    /* One more block handed over and the index closed at once: the close writes it. */
    struct block_index e;
    memset(&e, 0, sizeof(e));
    b.tx_count = 1;
    memset(b.txs[0].txid, 0xab, 32);
    txindex_add_block(ti, &e, &b);
    best[0] = 200;
    CHECK_EQ_INT(txindex_write_begin(ti, best), 0);
    txindex_close(ti);
    CHECK_EQ_INT(txindex_open(&ti, cur_ops, path, err, sizeof(err)), 0);
    CHECK_EQ_INT(txindex_best(ti, got), 0);
    CHECK_EQ_INT(got[0], 200);
    struct txindex_pos pos;
    CHECK_EQ_INT(txindex_find(ti, b.txs[0].txid, &pos), 0);
    CHECK_EQ_INT(txindex_find(ti, txids[BLOCKS * PER - 1], &pos), 0);
    CHECK_EQ_INT((int)pos.block_pos, (BLOCKS - 1) * 1000000);
    txindex_close(ti);
    free(b.txs);
    free(txids);
    kv_destroy(cur_ops, path);
}

static void test_listeners(void)
{
    struct heard a = {0}, b = {0};
    struct chainstate_listener la = {.tip_changed = heard_tip,
                                     .block_connected = heard_connected,
                                     .block_disconnected = heard_disconnected,
                                     .header_tip = heard_header,
                                     .tip_settled = heard_settled,
                                     .ctx = &a};
    struct chainstate_listener lb = la;
    lb.ctx = &b;
    char path[4200];
    struct import_stats ist;
    wipe();
    struct chainstate *cs = open_cs(0, 0, 0);
    CHECK(cs != NULL);
    if (!cs) {
        return;
    }
    CHECK_EQ_INT(chainstate_add_listener(cs, &la), RC_OK);
    CHECK_EQ_INT(chainstate_add_listener(cs, &lb), RC_OK);
    snprintf(path, sizeof(path), "%s/data/regtest-reorg/blk-reorg.dat", test_shared_dir());
    CHECK_EQ_INT(import_file(cs, path, &ist), RC_OK);
    struct block_index *tip = chainstate_tip(cs);
    CHECK(tip != NULL && a.tip == tip && a.header == chainstate_best_header(cs));
    CHECK(tip != NULL && a.connected - a.disconnected == tip->height + 1);
    CHECK(a.tips > 0 && a.headers > 0);
    CHECK(a.tips == b.tips && a.connected == b.connected && a.headers == b.headers);
    /* Told the tip settled: at most once per block connected, and last at the tip. */
    CHECK(a.settled > 0 && a.settled <= a.connected && a.settled_tip == tip);
    /* Only b hears the invalidation's disconnects and the way back. */
    chainstate_remove_listener(cs, &la);
    struct heard before = a;
    struct block_index *b151 = tip ? block_index_ancestor(tip, 151) : NULL;
    CHECK(b151 != NULL);
    if (b151) {
        int settled = b.settled;
        CHECK_EQ_INT(chainstate_invalidate_block(cs, b151->hash), RC_OK);
        CHECK(b.disconnected > 0 && b.tip == chainstate_tip(cs));
        /* A reorganisation is one step: told once, at its end. */
        CHECK_EQ_INT(b.settled, settled + 1);
        CHECK(b.settled_tip == chainstate_tip(cs));
        CHECK_EQ_INT(chainstate_reconsider_block(cs, b151->hash), RC_OK);
        CHECK(b.tip == chainstate_tip(cs));
        CHECK(b.connected - b.disconnected == chainstate_tip(cs)->height + 1);
    }
    CHECK(memcmp(&before, &a, sizeof(a)) == 0);
    /* Room for CHAINSTATE_MAX_LISTENERS in all. */
    int added = 1; /* b */
    struct heard spare[CHAINSTATE_MAX_LISTENERS];
    for (int i = 0; i < CHAINSTATE_MAX_LISTENERS; i++) {
        struct chainstate_listener l = {.tip_changed = heard_tip, .ctx = &spare[i]};
        added += chainstate_add_listener(cs, &l) == RC_OK;
    }
    CHECK_EQ_INT(added, CHAINSTATE_MAX_LISTENERS);
    CHECK_EQ_INT(chainstate_close(cs), RC_OK);
}

int main(void)
{
    char path[4200];
    json_error_t jerr;
    snprintf(datadir, sizeof(datadir), "/tmp/bitnode-chainstate-test-%d", (int)getpid());
    snprintf(path, sizeof(path), "%s/regtest-small/expected.json", test_data_dir());
    expected_small = json_load_file(path, 0, &jerr);
    snprintf(path, sizeof(path), "%s/data/regtest-reorg/expected.json", test_shared_dir());
    expected_reorg = json_load_file(path, 0, &jerr);
    if (!expected_small) {
        printf("Bail out! cannot read regtest-small/expected.json\n");
        return 1;
    }
    if (!expected_reorg) {
        return test_missing_shared("data/regtest-reorg");
    }
    const struct kv_ops *backends[] = {kv_default_ops(), &kv_mem_ops};
    for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
        cur_ops = backends[i];
        printf("# backend %s\n", kv_ops_name(cur_ops));
        TEST(test_import_regtest_small);
        TEST(test_every_recorded_height);
        TEST(test_reorg_files);
        TEST(test_bad_block_data_reopens);
        TEST(test_unreadable_stored_block);
        TEST(test_mempool_share);
        TEST(test_listeners);
        TEST(test_txindex_pending);
        TEST(test_txindex_writer_thread);
        wipe();
    }
    rmdir(datadir);
    json_decref(expected_small);
    json_decref(expected_reorg);
    return test_done();
}
