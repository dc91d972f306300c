/* net/bloom, consensus/merkleblock and MurmurHash3: Core's vectors (hash_tests.cpp,
 * bloom_tests.cpp) for the hash, the filter's bits, what a transaction matches and how the
 * update flags extend the filter, and the merkleblock of real blocks; partial merkle trees
 * of every shape up to 70 transactions built, serialized, parsed and proven back; malformed
 * payloads refused. */
#include <stdlib.h>
#include <string.h>

#include "consensus/merkle.h"
#include "consensus/merkleblock.h"
#include "crypto/hash.h"
#include "net/bloom.h"
#include "primitives/serialize.h"
#include "test.h"
#include "util/hex.h"
#include "util/rc.h"

#include "bloom_vectors.h"

/* Bytes of a hex string (caller clears). */
static struct buf unhex(const char *hex)
{
    struct buf b;
    buf_init(&b);
    CHECK(hex_decode(&b, hex) == RC_OK);
    return b;
}

static void insert_hex(struct bloom_filter *f, const char *hex)
{
    struct buf b = unhex(hex);
    bloom_filter_insert(f, b.data, b.len);
    buf_clear(&b);
}

static int contains_hex(const struct bloom_filter *f, const char *hex)
{
    struct buf b = unhex(hex);
    int r = bloom_filter_contains(f, b.data, b.len);
    buf_clear(&b);
    return r;
}

/* A uint256 as Core writes it (byte-reversed hex), inserted as its 32 bytes. */
static void insert_u256(struct bloom_filter *f, const char *hex)
{
    uint8_t h[32];
    CHECK(hex_decode_hash32_rev(h, hex) == RC_OK);
    bloom_filter_insert(f, h, 32);
}

static struct outpoint outpoint_of(const char *txid_hex, uint32_t n)
{
    struct outpoint op;
    CHECK(hex_decode_hash32_rev(op.txid, txid_hex) == RC_OK);
    op.n = n;
    return op;
}

static void check_serialized(const struct bloom_filter *f, const char *hex)
{
    struct buf got, want = unhex(hex);
    buf_init(&got);
    bloom_filter_serialize(f, &got);
    CHECK_EQ_INT(got.len, want.len);
    CHECK_EQ_MEM(got.data, want.data, got.len < want.len ? got.len : want.len);
    buf_clear(&got);
    buf_clear(&want);
}

static void test_murmur3(void)
{
    static const struct {
        uint32_t expected, seed;
        const char *data;
    } v[] = {
        {0x00000000u, 0x00000000, ""},
        {0x6a396f08u, 0xFBA4C795, ""},
        {0x81f16f39u, 0xffffffff, ""},
        {0x514e28b7u, 0x00000000, "00"},
        {0xea3f0b17u, 0xFBA4C795, "00"},
        {0xfd6cf10du, 0x00000000, "ff"},
        {0x16c6b7abu, 0x00000000, "0011"},
        {0x8eb51c3du, 0x00000000, "001122"},
        {0xb4471bf8u, 0x00000000, "00112233"},
        {0xe2301fa8u, 0x00000000, "0011223344"},
        {0xfc2e4a15u, 0x00000000, "001122334455"},
        {0xb074502cu, 0x00000000, "00112233445566"},
        {0x8034d2a0u, 0x00000000, "0011223344556677"},
        {0xb4698defu, 0x00000000, "001122334455667788"},
    };
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        struct buf b = unhex(v[i].data);
        CHECK_EQ_U64(hash_murmur3_32(v[i].seed, b.data, b.len), v[i].expected);
        buf_clear(&b);
    }
}

static void test_insert_serialize(void)
{
    struct bloom_filter f;
    bloom_filter_init(&f, 3, 0.01, 0, BLOOM_UPDATE_ALL);
    CHECK(!contains_hex(&f, "99108ad8ed9bb6274d3980bab5a85c048f0950c8"));
    insert_hex(&f, "99108ad8ed9bb6274d3980bab5a85c048f0950c8");
    CHECK(contains_hex(&f, "99108ad8ed9bb6274d3980bab5a85c048f0950c8"));
    CHECK(!contains_hex(&f, "19108ad8ed9bb6274d3980bab5a85c048f0950c8"));
    insert_hex(&f, "b5a2c786d9ef4658287ced5914b37a1b4aa32eee");
    CHECK(contains_hex(&f, "b5a2c786d9ef4658287ced5914b37a1b4aa32eee"));
    insert_hex(&f, "b9300670b4c5366e95b2699e8b18bc75e5f729c5");
    CHECK(contains_hex(&f, "b9300670b4c5366e95b2699e8b18bc75e5f729c5"));
    check_serialized(&f, "03614e9b050000000000000001");
    bloom_filter_clear(&f);

    bloom_filter_init(&f, 3, 0.01, 2147483649u, BLOOM_UPDATE_ALL);
    insert_hex(&f, "99108ad8ed9bb6274d3980bab5a85c048f0950c8");
    CHECK(contains_hex(&f, "99108ad8ed9bb6274d3980bab5a85c048f0950c8"));
    CHECK(!contains_hex(&f, "19108ad8ed9bb6274d3980bab5a85c048f0950c8"));
    insert_hex(&f, "b5a2c786d9ef4658287ced5914b37a1b4aa32eee");
    insert_hex(&f, "b9300670b4c5366e95b2699e8b18bc75e5f729c5");
    check_serialized(&f, "03ce4299050000000100008001");
    bloom_filter_clear(&f);

    /* Core's sizing at the limits: 36,000 bytes and 50 functions at most. */
    bloom_filter_init(&f, 1000000, 0.0000001, 0, 0);
    CHECK_EQ_INT(f.len, BLOOM_MAX_FILTER_SIZE);
    CHECK_EQ_INT(f.n_hash_funcs, 0); /* 288000 / 1000000 bits per element: none */
    bloom_filter_clear(&f);
    bloom_filter_init(&f, 1, 1e-30, 0, 0);
    CHECK_EQ_INT(f.n_hash_funcs, BLOOM_MAX_HASH_FUNCS);
    CHECK(bloom_filter_within_limits(&f));
    bloom_filter_clear(&f);
}

/* A fresh filter for the match tests (Core's CBloomFilter(10, 0.000001, 0, flags)). */
static void fresh(struct bloom_filter *f, uint8_t flags)
{
    bloom_filter_clear(f);
    bloom_filter_init(f, 10, 0.000001, 0, flags);
}

static void parse_tx(struct tx *tx, const char *hex)
{
    struct buf b = unhex(hex);
    char err[160];
    CHECK(tx_deserialize(tx, b.data, b.len, err, sizeof(err)) == RC_OK);
    buf_clear(&b);
}

static void test_match(void)
{
    struct tx tx, spend;
    parse_tx(&tx, TX_B4749F);
    parse_tx(&spend, TX_E2769B);
    struct bloom_filter f = {0};
    fresh(&f, BLOOM_UPDATE_ALL);
    insert_u256(&f, "b4749f017444b051c44dfd2720e88f314ff94f3dd6d56d40ef65854fcd7fff6b");
    CHECK(bloom_filter_relevant_and_update(&f, &tx));
    fresh(&f, BLOOM_UPDATE_ALL);
    insert_hex(&f, "6bff7fcd4f8565ef406dd5d63d4ff94f318fe82027fd4dc451b04474019f74b4");
    CHECK(bloom_filter_relevant_and_update(&f, &tx));
    fresh(&f, BLOOM_UPDATE_ALL); /* an input's signature */
    insert_hex(&f, "30450220070aca44506c5cef3a16ed519d7c3c39f8aab192c4e1c90d065f37b8a4af6141022100"
                   "a8e160b856c2d43d27d8fba71e5aef6405b8643ac4cb7cb3c462aced7f14711a01");
    CHECK(bloom_filter_relevant_and_update(&f, &tx));
    fresh(&f, BLOOM_UPDATE_ALL); /* an input's public key */
    insert_hex(&f, "046d11fee51b0e60666d5049a9101a72741df480b96ee26488a4d3466b95c9a40ac5eeef87e10a"
                   "5cd336c19a84565f80fa6c547957b7700ff4dfbdefe76036c339");
    CHECK(bloom_filter_relevant_and_update(&f, &tx));
    fresh(&f, BLOOM_UPDATE_ALL); /* an output's address: its outpoint added, the spend matches */
    insert_hex(&f, "04943fdd508053c75000106d3bc6e2754dbcff19");
    CHECK(bloom_filter_relevant_and_update(&f, &tx));
    CHECK(bloom_filter_relevant_and_update(&f, &spend));
    fresh(&f, BLOOM_UPDATE_NONE); /* ... unless the filter is not to be updated */
    insert_hex(&f, "04943fdd508053c75000106d3bc6e2754dbcff19");
    CHECK(bloom_filter_relevant_and_update(&f, &tx));
    CHECK(!bloom_filter_relevant_and_update(&f, &spend));
    fresh(&f, BLOOM_UPDATE_ALL);
    insert_hex(&f, "a266436d2965547608b9e15d9032a7b9d64fa431");
    CHECK(bloom_filter_relevant_and_update(&f, &tx));
    fresh(&f, BLOOM_UPDATE_ALL); /* an outpoint it spends */
    struct outpoint op = outpoint_of(
        "90c122d70786e899529d71dbeba91ba216982fb6ba58f3bdaab65e73b7e9260b", 0);
    bloom_filter_insert_outpoint(&f, &op);
    CHECK(bloom_filter_relevant_and_update(&f, &tx));
    fresh(&f, BLOOM_UPDATE_ALL); /* the same, serialized by hand */
    uint8_t k[36];
    memcpy(k, op.txid, 32);
    memset(k + 32, 0, 4);
    bloom_filter_insert(&f, k, sizeof(k));
    CHECK(bloom_filter_relevant_and_update(&f, &tx));
    /* What must not match. */
    fresh(&f, BLOOM_UPDATE_ALL);
    insert_u256(&f, "00000009e784f32f62ef849763d4f45b98e07ba658647343b915ff832b110436");
    CHECK(!bloom_filter_relevant_and_update(&f, &tx));
    fresh(&f, BLOOM_UPDATE_ALL);
    insert_hex(&f, "0000006d2965547608b9e15d9032a7b9d64fa431");
    CHECK(!bloom_filter_relevant_and_update(&f, &tx));
    fresh(&f, BLOOM_UPDATE_ALL);
    op.n = 1;
    bloom_filter_insert_outpoint(&f, &op);
    CHECK(!bloom_filter_relevant_and_update(&f, &tx));
    fresh(&f, BLOOM_UPDATE_ALL);
    op = outpoint_of("000000d70786e899529d71dbeba91ba216982fb6ba58f3bdaab65e73b7e9260b", 0);
    bloom_filter_insert_outpoint(&f, &op);
    CHECK(!bloom_filter_relevant_and_update(&f, &tx));
    bloom_filter_clear(&f);
    tx_clear(&tx);
    tx_clear(&spend);
}

/* The empty filter (CVE-2013-5700): inserting does nothing, everything matches. */
static void test_empty_filter(void)
{
    static const uint8_t payload[] = {0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0};
    struct bloom_filter f;
    CHECK(bloom_filter_parse(&f, payload, sizeof(payload), NULL, 0) == RC_OK);
    CHECK_EQ_INT(f.len, 0);
    CHECK_EQ_INT(f.n_hash_funcs, 1);
    CHECK(bloom_filter_within_limits(&f));
    bloom_filter_insert(&f, (const uint8_t *)"letstrytocrashthisnode", 22);
    CHECK(bloom_filter_contains(&f, (const uint8_t *)"x", 1));
    struct tx tx;
    parse_tx(&tx, TX_B4749F);
    CHECK(bloom_filter_relevant_and_update(&f, &tx));
    tx_clear(&tx);
    bloom_filter_clear(&f);
}

/* The filterload payload: limits are the caller's (36,000 bytes, 50 functions), every
 * truncation is refused, trailing bytes are ignored, a round trip is exact. */
static void test_parse(void)
{
    struct buf b;
    buf_init(&b);
    struct bloom_filter f = {0}, g;
    f.len = BLOOM_MAX_FILTER_SIZE;
    f.data = calloc(f.len, 1);
    f.data[7] = 0xbb;
    f.n_hash_funcs = BLOOM_MAX_HASH_FUNCS;
    f.tweak = 0x12345678;
    f.flags = BLOOM_UPDATE_P2PUBKEY_ONLY;
    bloom_filter_serialize(&f, &b);
    CHECK(bloom_filter_parse(&g, b.data, b.len, NULL, 0) == RC_OK);
    CHECK(bloom_filter_within_limits(&g));
    CHECK_EQ_INT(g.len, f.len);
    CHECK_EQ_MEM(g.data, f.data, f.len);
    CHECK_EQ_U64(g.tweak, f.tweak);
    CHECK_EQ_INT(g.flags, f.flags);
    g.n_hash_funcs++;
    CHECK(!bloom_filter_within_limits(&g));
    bloom_filter_clear(&g);
    for (size_t n = 0; n < b.len; n += (n < 16 || n > b.len - 16) ? 1 : 997) {
        char err[120] = "";
        CHECK(bloom_filter_parse(&g, b.data, n, err, sizeof(err)) < 0);
        CHECK(err[0] != 0);
        CHECK(g.data == NULL);
    }
    buf_put_u8(&b, 0xee); /* trailing */
    CHECK(bloom_filter_parse(&g, b.data, b.len, NULL, 0) == RC_OK);
    bloom_filter_clear(&g);
    bloom_filter_clear(&f);
    /* One byte over. */
    buf_reset(&b);
    f.len = BLOOM_MAX_FILTER_SIZE + 1;
    f.data = calloc(f.len, 1);
    bloom_filter_serialize(&f, &b);
    CHECK(bloom_filter_parse(&g, b.data, b.len, NULL, 0) == RC_OK);
    CHECK(!bloom_filter_within_limits(&g));
    bloom_filter_clear(&g);
    bloom_filter_clear(&f);
    buf_clear(&b);
}

static int parse_block_hex(struct block *b, struct buf *raw, const char *hex)
{
    *raw = unhex(hex);
    char err[160];
    int ok = block_parse(b, raw->data, raw->len, err, sizeof(err)) == RC_OK;
    if (!ok) {
        printf("# block: %s\n", err);
    }
    return ok;
}

/* The merkleblock of b for f: its matches' positions are want[0..n_want), the tree proves
 * them against b's merkle root. */
static void check_merkleblock(struct bloom_filter *f, const struct block *b, const size_t *want,
                              size_t n_want)
{
    struct buf out;
    buf_init(&out);
    size_t *matched, n_matched;
    bloom_filter_merkleblock(f, b, &out, &matched, &n_matched);
    CHECK_EQ_INT(n_matched, n_want);
    for (size_t i = 0; i < n_matched && i < n_want; i++) {
        CHECK_EQ_INT(matched[i], want[i]);
    }
    uint8_t hdr[80];
    block_header_serialize(&b->header, hdr);
    CHECK(out.len > 80 && memcmp(out.data, hdr, 80) == 0);
    struct reader r;
    reader_init(&r, out.data + 80, out.len - 80);
    struct partial_merkle pm;
    partial_merkle_init(&pm);
    CHECK(partial_merkle_parse(&pm, &r) == RC_OK);
    CHECK_EQ_INT(reader_left(&r), 0);
    uint8_t root[32], (*txids)[32];
    uint32_t *index;
    size_t n;
    CHECK(partial_merkle_extract(&pm, root, &txids, &index, &n) == RC_OK);
    CHECK_EQ_MEM(root, b->header.merkle_root, 32);
    CHECK_EQ_INT(n, n_matched);
    for (size_t i = 0; i < n && i < n_matched; i++) {
        CHECK_EQ_INT(index[i], matched[i]);
        CHECK_EQ_MEM(txids[i], b->txs[matched[i]].txid, 32);
    }
    free(txids);
    free(index);
    partial_merkle_clear(&pm);
    free(matched);
    buf_clear(&out);
}

static void test_merkleblock_2(void)
{
    static const char pubkey[] =
        "044a656f065871a353f216ca26cef8dde2f03e8c16202d2e8ad769f02032cb86a5eb5e56842e92e19141"
        "d60a01928f8dd2c875a390f67c1f6c94cfc617c0ea45af";
    struct block b;
    struct buf raw;
    if (!parse_block_hex(&b, &raw, BLOCK_5A4DED)) {
        CHECK(0);
        buf_clear(&raw);
        return;
    }
    struct bloom_filter f = {0};
    fresh(&f, BLOOM_UPDATE_ALL);
    insert_u256(&f, "e980fe9f792d014e73b95203dc1335c5f9ce19ac537a419e6df5b47aecb93b70");
    check_merkleblock(&f, &b, (const size_t[]){0}, 1);
    /* The pubkey of the second transaction's output: the third spends it, the fourth pays
     * it again. */
    insert_hex(&f, pubkey);
    check_merkleblock(&f, &b, (const size_t[]){0, 1, 2, 3}, 4);
    /* Without updates the spend is not seen. */
    fresh(&f, BLOOM_UPDATE_NONE);
    insert_u256(&f, "e980fe9f792d014e73b95203dc1335c5f9ce19ac537a419e6df5b47aecb93b70");
    check_merkleblock(&f, &b, (const size_t[]){0}, 1);
    insert_hex(&f, pubkey);
    check_merkleblock(&f, &b, (const size_t[]){0, 1, 3}, 3);
    bloom_filter_clear(&f);
    block_clear(&b);
    buf_clear(&raw);
}

static void test_merkleblock_3_serialize(void)
{
    struct block b;
    struct buf raw, want = unhex(MERKLEBLOCK_DAB013);
    if (parse_block_hex(&b, &raw, BLOCK_DAB013)) {
        struct bloom_filter f;
        bloom_filter_init(&f, 10, 0.000001, 0, BLOOM_UPDATE_ALL);
        insert_u256(&f, "63194f18be0af63f2c6bc9dc0f777cbefed3d9415c4af83f3ee3a3d669c00cb5");
        struct buf out;
        buf_init(&out);
        size_t *matched, n;
        bloom_filter_merkleblock(&f, &b, &out, &matched, &n);
        CHECK_EQ_INT(n, 1);
        CHECK_EQ_INT(out.len, want.len);
        CHECK_EQ_MEM(out.data, want.data, out.len < want.len ? out.len : want.len);
        free(matched);
        buf_clear(&out);
        bloom_filter_clear(&f);
        block_clear(&b);
    } else {
        CHECK(0);
    }
    buf_clear(&raw);
    buf_clear(&want);
}

/* BLOOM_UPDATE_P2PUBKEY_ONLY adds the outpoint of a pay-to-pubkey output, not of a
 * pay-to-pubkey-hash one; BLOOM_UPDATE_NONE adds neither. */
static void test_merkleblock_4_update_flags(void)
{
    struct block b;
    struct buf raw;
    if (!parse_block_hex(&b, &raw, BLOCK_B731F2)) {
        CHECK(0);
        buf_clear(&raw);
        return;
    }
    struct outpoint gen =
        outpoint_of("147caa76786596590baa4e98f5d9f48b86c7765e489f7a6ff3360fe5c674360b", 0);
    struct outpoint p2pkh =
        outpoint_of("02981fa052f0481dbc5868f4fc2166035a10f27a03cfd2de67326471df5bc041", 0);
    for (int mode = BLOOM_UPDATE_NONE; mode <= BLOOM_UPDATE_P2PUBKEY_ONLY; mode += 2) {
        struct bloom_filter f;
        bloom_filter_init(&f, 10, 0.000001, 0, (uint8_t)mode);
        insert_hex(&f, "04eaafc2314def4ca98ac970241bcab022b9c1e1f4ea423a20f134c876f2c01ec0f0dd5b2e86e"
                       "7168cefe0d81113c3807420ce13ad1357231a2252247d97a46a91");
        insert_hex(&f, "b6efd80d99179f4f4ff6f4dd0a007d018c385d21");
        struct buf out;
        buf_init(&out);
        size_t *matched, n;
        bloom_filter_merkleblock(&f, &b, &out, &matched, &n);
        CHECK_EQ_INT(bloom_filter_contains_outpoint(&f, &gen), mode == BLOOM_UPDATE_P2PUBKEY_ONLY);
        CHECK(!bloom_filter_contains_outpoint(&f, &p2pkh));
        free(matched);
        buf_clear(&out);
        bloom_filter_clear(&f);
    }
    block_clear(&b);
    buf_clear(&raw);
}

/* Trees of n = 1..70 fake txids with several match patterns: the proof gives back exactly
 * the matches and the root merkle_root computes; a tree with a bit or hash too many or too
 * few, or cut short, is refused. */
static void test_partial_merkle_shapes(void)
{
    for (size_t n = 1; n <= 70; n++) {
        uint8_t(*txids)[32] = calloc(n, 32);
        uint8_t *match = calloc(n, 1);
        for (size_t i = 0; i < n; i++) {
            hash_sha256(txids[i], &i, sizeof(i));
        }
        uint8_t root[32];
        merkle_root(root, NULL, (const uint8_t(*)[32])txids, n);
        for (int pattern = 0; pattern < 5; pattern++) {
            size_t want = 0;
            for (size_t i = 0; i < n; i++) {
                match[i] = pattern == 0 ? 0 : pattern == 1 ? 1 : pattern == 2 ? i == n - 1
                           : pattern == 3 ? (i % 3 == 0) : (i * 7 + n) % 5 == 0;
                want += match[i];
            }
            struct partial_merkle pm, back;
            partial_merkle_init(&pm);
            partial_merkle_init(&back);
            partial_merkle_build(&pm, (const uint8_t(*)[32])txids, match, n);
            struct buf ser;
            buf_init(&ser);
            partial_merkle_serialize(&pm, &ser);
            struct reader r;
            reader_init(&r, ser.data, ser.len);
            CHECK(partial_merkle_parse(&back, &r) == RC_OK);
            uint8_t got[32], (*m)[32];
            uint32_t *idx;
            size_t nm;
            CHECK(partial_merkle_extract(&back, got, &m, &idx, &nm) == RC_OK);
            CHECK_EQ_MEM(got, root, 32);
            CHECK_EQ_INT(nm, want);
            for (size_t i = 0, j = 0; i < n && j < nm; i++) {
                if (match[i]) {
                    CHECK_EQ_INT(idx[j], i);
                    CHECK_EQ_MEM(m[j], txids[i], 32);
                    j++;
                }
            }
            free(m);
            free(idx);
            /* Cut short anywhere: the parse or the proof fails. */
            for (size_t cut = 0; cut < ser.len; cut += 1 + cut / 8) {
                reader_init(&r, ser.data, cut);
                if (partial_merkle_parse(&back, &r) == RC_OK) {
                    CHECK(partial_merkle_extract(&back, got, &m, &idx, &nm) != RC_OK);
                }
            }
            /* A hash too few, or a count of transactions off by one. */
            if (pm.n_hashes > 1) {
                pm.n_hashes--;
                CHECK(partial_merkle_extract(&pm, got, &m, &idx, &nm) != RC_OK);
                pm.n_hashes++;
            }
            pm.n_tx = 0;
            CHECK(partial_merkle_extract(&pm, got, &m, &idx, &nm) != RC_OK);
            pm.n_tx = PARTIAL_MERKLE_MAX_TX + 1;
            CHECK(partial_merkle_extract(&pm, got, &m, &idx, &nm) != RC_OK);
            buf_clear(&ser);
            partial_merkle_clear(&pm);
            partial_merkle_clear(&back);
        }
        free(match);
        free(txids);
    }
}

/* Two identical siblings (CVE-2012-2459's duplicated subtree) prove nothing. */
static void test_partial_merkle_duplicate(void)
{
    uint8_t txids[4][32];
    memset(txids, 0, sizeof(txids));
    txids[0][0] = 1;
    txids[1][0] = 2;
    txids[2][0] = 3;
    txids[3][0] = 3; /* as if the last of three had been duplicated */
    uint8_t match[4] = {0, 0, 1, 1};
    struct partial_merkle pm;
    partial_merkle_init(&pm);
    partial_merkle_build(&pm, (const uint8_t(*)[32])txids, match, 4);
    uint8_t root[32], (*m)[32];
    uint32_t *idx;
    size_t nm;
    CHECK(partial_merkle_extract(&pm, root, &m, &idx, &nm) == RC_INVALID);
    CHECK(m == NULL && idx == NULL && nm == 0);
    partial_merkle_clear(&pm);
}

int main(void)
{
    TEST(test_murmur3);
    TEST(test_insert_serialize);
    TEST(test_match);
    TEST(test_empty_filter);
    TEST(test_parse);
    TEST(test_merkleblock_2);
    TEST(test_merkleblock_3_serialize);
    TEST(test_merkleblock_4_update_flags);
    TEST(test_partial_merkle_shapes);
    TEST(test_partial_merkle_duplicate);
    return test_done();
}
