/* Unit tests for src/crypto/: SHA-256, SHA-256d, RIPEMD-160, HASH160, BIP340 tagged hashes,
 * HMAC-SHA512's and HKDF-SHA256's RFC vectors, Base58/Base58Check, Bech32/Bech32m and segwit
 * addresses, SipHash-2-4, MuHash3072, BIP324's ElligatorSwift (decoding, the inverse map,
 * encoding of keys, x-only ECDH).
 *
 * Expected values come from the standards' own vectors (FIPS 180-2 / NIST, the RIPEMD-160
 * page, the SipHash paper, BIP173/BIP341/BIP350) and from Bitcoin Core's unit tests and JSON
 * vectors (../shared/vectors/), so that a wrong implementation cannot pass by agreeing with
 * itself.
 */
#include <jansson.h>
#include <secp256k1.h>

#include "crypto/base58.h"
#include "crypto/bech32.h"
#include "crypto/ellswift.h"
#include "crypto/hash.h"
#include "crypto/muhash.h"
#include "crypto/siphash.h"
#include "util/buf.h"
#include "util/check.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#include "test.h"

/* ---------------------------------------------------------------------------------------- */
/* Helpers                                                                                   */

/* Decodes hex that the test itself wrote; a typo in a test is a test failure. */
static void unhex(struct buf *out, const char *hex)
{
    buf_reset(out);
    if (hex_decode(out, hex) != RC_OK) {
        printf("# bad hex literal in test: %s\n", hex);
        test_case_failed = 1;
    }
}

static void unhex_fixed(uint8_t *p, size_t n, const char *hex)
{
    if (hex_decode_fixed(p, n, hex) != RC_OK) {
        printf("# bad hex literal in test: %s\n", hex);
        test_case_failed = 1;
        memset(p, 0, n);
    }
}

/* Deterministic xorshift64* so that "random" splits are reproducible. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rng_next(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dULL;
}

/* Loads a shared vector file. If the shared folder is absent, reports one skipped case
 * (a failure when BITNODE_REQUIRE_SHARED=1) and returns NULL; a file that is there but does
 * not parse is a failure. Most of this program needs no shared data, so a missing folder
 * skips only the vector cases. */
static json_t *load_vectors(const char *name)
{
    char path[4096];
    json_error_t jerr;
    json_t *j;
    FILE *f;
    const char *req = getenv("BITNODE_REQUIRE_SHARED");

    snprintf(path, sizeof(path), "%s/vectors/%s", test_shared_dir(), name);
    f = fopen(path, "rb");
    if (!f) {
        if (req && strcmp(req, "1") == 0) {
            test_report(0, "%s not found under %s", name, test_shared_dir());
        } else {
            test_report(1, "%s # SKIP not found under %s (set BITNODE_SHARED)", name,
                        test_shared_dir());
        }
        return NULL;
    }
    fclose(f);
    j = json_load_file(path, 0, &jerr);
    if (!j) {
        test_report(0, "%s parses: %s (line %d)", path, jerr.text, jerr.line);
    }
    return j;
}

/* ---------------------------------------------------------------------------------------- */
/* SHA-256                                                                                   */

static void check_sha256_hex(const void *p, size_t n, const char *expect_hex)
{
    uint8_t got[32], want[32];
    unhex_fixed(want, 32, expect_hex);
    hash_sha256(got, p, n);
    CHECK_EQ_MEM(got, want, 32);
}

static void test_sha256_nist(void)
{
    static const char *l448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    static const char *l896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                              "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
    check_sha256_hex("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    check_sha256_hex("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    check_sha256_hex(l448, strlen(l448),
                     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    check_sha256_hex(l896, strlen(l896),
                     "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
    /* NULL with length 0 is allowed. */
    check_sha256_hex(NULL, 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void test_sha256_million_a(void)
{
    /* One million 'a', written incrementally in uneven pieces and in one shot. */
    static const char *want = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
    uint8_t *a = xmalloc(1000000);
    uint8_t got[32], exp[32];
    struct hash_sha256_ctx ctx;
    size_t done = 0;

    memset(a, 'a', 1000000);
    unhex_fixed(exp, 32, want);
    hash_sha256(got, a, 1000000);
    CHECK_EQ_MEM(got, exp, 32);

    hash_sha256_init(&ctx);
    while (done < 1000000) {
        size_t step = 1 + (size_t)(rng_next() % 9999);
        if (step > 1000000 - done) {
            step = 1000000 - done;
        }
        hash_sha256_write(&ctx, a + done, step);
        done += step;
    }
    hash_sha256_final(&ctx, got);
    CHECK_EQ_MEM(got, exp, 32);
    free(a);
}

static void test_sha256_incremental_random_splits(void)
{
    uint8_t data[1000], one[32], inc[32];
    for (size_t i = 0; i < sizeof(data); i++) {
        data[i] = (uint8_t)rng_next();
    }
    for (int round = 0; round < 200; round++) {
        size_t len = (size_t)(rng_next() % (sizeof(data) + 1)), pos = 0;
        struct hash_sha256_ctx ctx;
        hash_sha256(one, data, len);
        hash_sha256_init(&ctx);
        while (pos < len) {
            /* Pieces of 0..130 bytes, so writes straddle the 64-byte block boundary. */
            size_t step = (size_t)(rng_next() % 131);
            if (step > len - pos) {
                step = len - pos;
            }
            hash_sha256_write(&ctx, data + pos, step);
            pos += step;
        }
        hash_sha256_final(&ctx, inc);
        CHECK_EQ_MEM(inc, one, 32);
    }
}

static void test_sha256_ctx_copy_midstate(void)
{
    /* A context is a value: a copy taken after a common prefix finishes independently. */
    static const char prefix[] = "a common prefix longer than one 64-byte block, so that the "
                                 "midstate really is a midstate";
    uint8_t got1[32], got2[32], want1[32], want2[32];
    struct hash_sha256_ctx base, c1, c2;
    char buf1[256], buf2[256];

    hash_sha256_init(&base);
    hash_sha256_write(&base, prefix, strlen(prefix));
    c1 = base;
    c2 = base;
    hash_sha256_write(&c1, "one", 3);
    hash_sha256_write(&c2, "two!", 4);
    hash_sha256_final(&c2, got2);
    hash_sha256_final(&c1, got1);

    snprintf(buf1, sizeof(buf1), "%sone", prefix);
    snprintf(buf2, sizeof(buf2), "%stwo!", prefix);
    hash_sha256(want1, buf1, strlen(buf1));
    hash_sha256(want2, buf2, strlen(buf2));
    CHECK_EQ_MEM(got1, want1, 32);
    CHECK_EQ_MEM(got2, want2, 32);
    CHECK(memcmp(got1, got2, 32) != 0);

    /* The base context is untouched by finishing the copies. */
    hash_sha256_write(&base, "one", 3);
    hash_sha256_final(&base, got1);
    CHECK_EQ_MEM(got1, want1, 32);

    /* Re-initialising a finished context starts afresh. */
    hash_sha256_init(&c1);
    hash_sha256_write(&c1, "abc", 3);
    hash_sha256_final(&c1, got1);
    unhex_fixed(want1, 32, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK_EQ_MEM(got1, want1, 32);
}

static void test_sha256d(void)
{
    struct buf hdr;
    uint8_t got[32], want[32], left[32], right[32], both[64];

    hash_sha256d(got, "", 0);
    unhex_fixed(want, 32, "5df6e0e2761359d30a8275058e299fcc0381534545f55cf43e41983f5d4c9456");
    CHECK_EQ_MEM(got, want, 32);
    hash_sha256d(got, "abc", 3);
    unhex_fixed(want, 32, "4f8b42c22dd3729b519ba6f68d2da7cc5b2d606d05daed5ad5128cc03e6c6358");
    CHECK_EQ_MEM(got, want, 32);

    /* The mainnet genesis block header hashes to Core's famous block hash. */
    buf_init(&hdr);
    unhex(&hdr, "0100000000000000000000000000000000000000000000000000000000000000000000003ba3"
                "edfd7a7b12b27ac72c3e67768f617fc81bc3888a51323a9fb8aa4b1e5e4a29ab5f49ffff001d"
                "1dac2b7c");
    CHECK_EQ_INT(hdr.len, 80);
    hash_sha256d(got, hdr.data, hdr.len);
    CHECK_EQ_INT(hex_decode_hash32_rev(want,
                 "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f"), RC_OK);
    CHECK_EQ_MEM(got, want, 32);
    buf_clear(&hdr);

    /* The merkle node form equals SHA-256d of the 64-byte concatenation. */
    for (int i = 0; i < 20; i++) {
        for (int j = 0; j < 32; j++) {
            left[j] = (uint8_t)rng_next();
            right[j] = (uint8_t)rng_next();
        }
        memcpy(both, left, 32);
        memcpy(both + 32, right, 32);
        hash_sha256d(want, both, 64);
        hash_sha256d_64(got, left, right);
        CHECK_EQ_MEM(got, want, 32);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* RIPEMD-160 and HASH160                                                                    */

static void test_ripemd160_vectors(void)
{
    /* The reference vectors from the RIPEMD-160 home page (Bosselaers). */
    static const struct {
        const char *msg;
        const char *hex;
    } v[] = {
        {"", "9c1185a5c5e9fc54612808977ee8f548b2258d31"},
        {"a", "0bdc9d2d256b3ee9daae347be6f4dc835a467ffe"},
        {"abc", "8eb208f7e05d987a9b044a8e98c6b087f15a0bfc"},
        {"message digest", "5d0689ef49d2fae572b881b123a85ffa21595f36"},
        {"abcdefghijklmnopqrstuvwxyz", "f71c27109c692c1b56bbdceb5b9d2865b3708dbc"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "12a053384a9c0c88e405a06c27dcf49ada62eb2b"},
        {"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
         "b0e20b6e3116640286ed3a87a5713079b21f5189"},
        {"12345678901234567890123456789012345678901234567890123456789012345678901234567890",
         "9b752e45573d4b39f4dbd3323cab82bf63326bfb"},
    };
    uint8_t got[20], want[20];
    uint8_t *a;

    for (size_t i = 0; i < ARRAY_LEN(v); i++) {
        unhex_fixed(want, 20, v[i].hex);
        hash_ripemd160(got, v[i].msg, strlen(v[i].msg));
        CHECK_EQ_MEM(got, want, 20);
    }
    a = xmalloc(1000000);
    memset(a, 'a', 1000000);
    hash_ripemd160(got, a, 1000000);
    unhex_fixed(want, 20, "52783243c1697bdbe16d37f97f68f08325dc1528");
    CHECK_EQ_MEM(got, want, 20);
    free(a);
}

static void test_hash160_pubkey(void)
{
    /* The secp256k1 generator G as a public key. Its compressed HASH160 is the program of
     * BIP173's first example address, its uncompressed one the payload of
     * 1EHNa6Q4Jz2uvNExL497mE43ikXhwF6kZm (private key 1). */
    struct buf pk, dec;
    uint8_t got[20], want[20];

    buf_init(&pk);
    buf_init(&dec);
    unhex(&pk, "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798");
    hash_hash160(got, pk.data, pk.len);
    unhex_fixed(want, 20, "751e76e8199196d454941c45d1b3a323f1433bd6");
    CHECK_EQ_MEM(got, want, 20);

    unhex(&pk, "0479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798483ada7726"
               "a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8");
    hash_hash160(got, pk.data, pk.len);
    unhex_fixed(want, 20, "91b24bf9f5288532960ac687abb035127b1d28a5");
    CHECK_EQ_MEM(got, want, 20);
    CHECK_EQ_INT(base58check_decode(&dec, "1EHNa6Q4Jz2uvNExL497mE43ikXhwF6kZm", 21), RC_OK);
    CHECK_EQ_INT(dec.len, 21);
    if (dec.len == 21) {
        CHECK_EQ_INT(dec.data[0], 0);
        CHECK_EQ_MEM(dec.data + 1, got, 20);
    }
    buf_clear(&pk);
    buf_clear(&dec);
}

/* ---------------------------------------------------------------------------------------- */
/* BIP340/BIP341 tagged hashes                                                               */

static void test_tagged_hash_manual(void)
{
    static const char tag[] = "BIP0340/challenge";
    uint8_t msg[96], tag_hash[32], got[32], want[32];
    struct hash_sha256_ctx ctx;
    uint8_t *pre = xmalloc(64 + sizeof(msg));

    for (size_t i = 0; i < sizeof(msg); i++) {
        msg[i] = (uint8_t)(i * 7 + 1);
    }
    hash_sha256(tag_hash, tag, strlen(tag));
    memcpy(pre, tag_hash, 32);
    memcpy(pre + 32, tag_hash, 32);
    memcpy(pre + 64, msg, sizeof(msg));
    hash_sha256(want, pre, 64 + sizeof(msg));

    hash_tagged(got, tag, msg, sizeof(msg));
    CHECK_EQ_MEM(got, want, 32);

    hash_tagged_init(&ctx, tag);
    hash_sha256_write(&ctx, msg, 10);
    hash_sha256_write(&ctx, msg + 10, sizeof(msg) - 10);
    hash_sha256_final(&ctx, got);
    CHECK_EQ_MEM(got, want, 32);

    /* A different tag gives a different hash. */
    hash_tagged(got, "BIP0340/aux", msg, sizeof(msg));
    CHECK(memcmp(got, want, 32) != 0);

    /* The tag's own SHA-256, a known constant. */
    unhex_fixed(want, 32, "7bb52d7a9fef58323eb1bf7a407db382d2f3f2d81bb1224f49fe518f6d48d37c");
    CHECK_EQ_MEM(tag_hash, want, 32);
    free(pre);
}

/* BIP341: leaf hashes, branch hashes and the tweak are all tagged hashes. Walks a script
 * tree from the wallet vectors; returns the node hash, appends leaf hashes in order. */
static int taptree_hash(const json_t *node, uint8_t out32[32], uint8_t (*leaves)[32],
                        size_t *nleaves, size_t max_leaves)
{
    if (json_is_array(node)) {
        uint8_t a[32], b[32], cat[64];
        if (json_array_size(node) != 2 ||
            taptree_hash(json_array_get(node, 0), a, leaves, nleaves, max_leaves) != 0 ||
            taptree_hash(json_array_get(node, 1), b, leaves, nleaves, max_leaves) != 0) {
            return -1;
        }
        /* Children are hashed in lexicographic order. */
        if (memcmp(a, b, 32) <= 0) {
            memcpy(cat, a, 32);
            memcpy(cat + 32, b, 32);
        } else {
            memcpy(cat, b, 32);
            memcpy(cat + 32, a, 32);
        }
        hash_tagged(out32, "TapBranch", cat, 64);
        return 0;
    } else {
        struct buf script, pre;
        json_t *js = json_object_get(node, "script");
        json_t *jv = json_object_get(node, "leafVersion");
        int rc = 0;
        if (!json_is_string(js) || !json_is_integer(jv) || *nleaves >= max_leaves) {
            return -1;
        }
        buf_init(&script);
        buf_init(&pre);
        if (hex_decode(&script, json_string_value(js)) != RC_OK || script.len >= 253) {
            rc = -1;
        } else {
            buf_put_u8(&pre, (uint8_t)json_integer_value(jv));
            buf_put_u8(&pre, (uint8_t)script.len); /* CompactSize, < 253 */
            buf_append(&pre, script.data, script.len);
            hash_tagged(out32, "TapLeaf", pre.data, pre.len);
            memcpy(leaves[(*nleaves)++], out32, 32);
        }
        buf_clear(&script);
        buf_clear(&pre);
        return rc;
    }
}

static void test_bip341_wallet_vectors(void)
{
    json_t *root = load_vectors("bip341_wallet_vectors.json");
    json_t *spks, *kps;
    size_t i, j;

    if (!root) {
        return;
    }
    spks = json_object_get(root, "scriptPubKey");
    for (i = 0; i < json_array_size(spks); i++) {
        json_t *v = json_array_get(spks, i);
        json_t *given = json_object_get(v, "given");
        json_t *inter = json_object_get(v, "intermediary");
        json_t *expect = json_object_get(v, "expected");
        json_t *tree = json_object_get(given, "scriptTree");
        json_t *jleaves = json_object_get(inter, "leafHashes");
        uint8_t leaves[16][32], root32[32], internal[32], tweak[32], want[32], prog[32];
        uint8_t tw_in[64];
        size_t nleaves = 0;
        char addr[91];
        int ok;

        test_case_failed = 0;
        unhex_fixed(internal, 32, json_string_value(json_object_get(given, "internalPubkey")));
        memcpy(tw_in, internal, 32);
        if (json_is_null(tree) || tree == NULL) {
            hash_tagged(tweak, "TapTweak", internal, 32);
            CHECK(json_is_null(json_object_get(inter, "merkleRoot")));
        } else {
            CHECK_EQ_INT(taptree_hash(tree, root32, leaves, &nleaves, 16), 0);
            CHECK_EQ_INT(nleaves, json_array_size(jleaves));
            for (j = 0; j < nleaves && j < json_array_size(jleaves); j++) {
                unhex_fixed(want, 32, json_string_value(json_array_get(jleaves, j)));
                CHECK_EQ_MEM(leaves[j], want, 32);
            }
            unhex_fixed(want, 32, json_string_value(json_object_get(inter, "merkleRoot")));
            CHECK_EQ_MEM(root32, want, 32);
            memcpy(tw_in + 32, root32, 32);
            hash_tagged(tweak, "TapTweak", tw_in, 64);
        }
        unhex_fixed(want, 32, json_string_value(json_object_get(inter, "tweak")));
        CHECK_EQ_MEM(tweak, want, 32);

        /* The expected address is bech32m of the tweaked key. */
        unhex_fixed(prog, 32, json_string_value(json_object_get(inter, "tweakedPubkey")));
        CHECK_EQ_INT(segwit_addr_encode(addr, sizeof(addr), "bc", 1, prog, 32), RC_OK);
        CHECK_EQ_STR(addr, json_string_value(json_object_get(expect, "bip350Address")));
        ok = !test_case_failed;
        test_report(ok, "bip341 scriptPubKey vector %zu: leaf/branch/tweak hashes, address", i);
    }

    /* keyPathSpending: sigHash = TapSighash-tagged hash of sigMsg (which starts with the
     * epoch byte 0x00). */
    kps = json_object_get(root, "keyPathSpending");
    for (i = 0; i < json_array_size(kps); i++) {
        json_t *ins = json_object_get(json_array_get(kps, i), "inputSpending");
        for (j = 0; j < json_array_size(ins); j++) {
            json_t *inter = json_object_get(json_array_get(ins, j), "intermediary");
            struct buf msg;
            uint8_t got[32], want[32];
            test_case_failed = 0;
            buf_init(&msg);
            unhex(&msg, json_string_value(json_object_get(inter, "sigMsg")));
            hash_tagged(got, "TapSighash", msg.data, msg.len);
            unhex_fixed(want, 32, json_string_value(json_object_get(inter, "sigHash")));
            CHECK_EQ_MEM(got, want, 32);
            buf_clear(&msg);
            test_report(!test_case_failed, "bip341 keyPathSpending %zu input %zu: TapSighash",
                        i, j);
        }
    }
    json_decref(root);
}

/* ---------------------------------------------------------------------------------------- */
/* Base58                                                                                    */

static void test_base58_json_vectors(void)
{
    json_t *root = load_vectors("base58_encode_decode.json");
    size_t i, count = 0;

    if (!root) {
        return;
    }
    for (i = 0; i < json_array_size(root); i++) {
        json_t *v = json_array_get(root, i);
        const char *hex, *b58;
        struct buf bytes, dec;
        char *enc;
        int ok;

        if (json_array_size(v) < 2) {
            continue; /* a comment */
        }
        hex = json_string_value(json_array_get(v, 0));
        b58 = json_string_value(json_array_get(v, 1));
        buf_init(&bytes);
        buf_init(&dec);
        ok = hex && b58 && hex_decode(&bytes, hex) == RC_OK;
        if (ok) {
            enc = base58_encode(bytes.data, bytes.len);
            ok = strcmp(enc, b58) == 0;
            if (!ok) {
                printf("#   encode %s: got \"%s\", want \"%s\"\n", hex, enc, b58);
            }
            free(enc);
        }
        test_report(ok, "base58 encode vector %zu (\"%s\")", i, b58 ? b58 : "?");
        ok = hex && b58 && base58_decode(&dec, b58, 256) == RC_OK && dec.len == bytes.len &&
             (dec.len == 0 || memcmp(dec.data, bytes.data, dec.len) == 0);
        test_report(ok, "base58 decode vector %zu (\"%s\")", i, b58 ? b58 : "?");
        buf_clear(&bytes);
        buf_clear(&dec);
        count++;
    }
    test_report(count == 21, "base58_encode_decode.json has the 21 documented vectors (%zu)",
                count);
    json_decref(root);
}

/* No bytes, given as NULL (what an empty struct buf holds): "", with nothing undefined (the
 * address fuzz target found NULL + 0 here under UBSan). */
static void test_base58_encode_null_empty(void)
{
    char *s = base58_encode(NULL, 0);
    CHECK_EQ_STR(s, "");
    free(s);
    s = base58check_encode(NULL, 0);
    CHECK(s != NULL && strlen(s) > 0);
    free(s);
}

static void test_base58_malformed(void)
{
    struct buf out;
    uint8_t want[3];

    buf_init(&out);
    /* Characters outside the alphabet: 0, I, O, l. Out stays unchanged on failure. */
    buf_put_u8(&out, 0xaa);
    CHECK_EQ_INT(base58_decode(&out, "invalid", 100), RC_INVALID);
    CHECK_EQ_INT(base58_decode(&out, "bad0IOl", 100), RC_INVALID);
    CHECK_EQ_INT(base58_decode(&out, "goodbad0IOl", 100), RC_INVALID);
    CHECK_EQ_INT(base58_decode(&out, "good0", 100), RC_INVALID);
    CHECK_EQ_INT(base58_decode(&out, "goodI", 100), RC_INVALID);
    CHECK_EQ_INT(base58_decode(&out, "goodO", 100), RC_INVALID);
    CHECK_EQ_INT(base58_decode(&out, "goodl", 100), RC_INVALID);
    CHECK_EQ_INT(base58_decode(&out, "go od", 100), RC_INVALID);
    CHECK_EQ_INT(base58_decode(&out, "\xff", 100), RC_INVALID);
    CHECK_EQ_INT(out.len, 1);
    CHECK_EQ_INT(base58_decode(&out, "good", 100), RC_OK);
    CHECK(out.len > 1 && out.data[0] == 0xaa); /* appended after what was there */

    /* Whitespace is skipped at both ends, not accepted in front of other characters. */
    buf_reset(&out);
    CHECK_EQ_INT(base58_decode(&out, " \t\n\v\f\r skip \r\f\v\n\t a", 3), RC_INVALID);
    CHECK_EQ_INT(out.len, 0);
    CHECK_EQ_INT(base58_decode(&out, " \t\n\v\f\r skip \r\f\v\n\t ", 3), RC_OK);
    unhex_fixed(want, 3, "971a55");
    CHECK_EQ_INT(out.len, 3);
    CHECK_EQ_MEM(out.data, want, 3);

    /* Length limits: leading '1's count, and so do the other digits. */
    buf_reset(&out);
    CHECK_EQ_INT(base58_decode(&out, "111", 2), RC_TOO_LARGE);
    CHECK_EQ_INT(base58_decode(&out, "111", 3), RC_OK);
    CHECK_EQ_INT(out.len, 3);
    buf_reset(&out);
    CHECK_EQ_INT(base58_decode(&out, "skip", 2), RC_TOO_LARGE);
    CHECK_EQ_INT(out.len, 0);
    CHECK_EQ_INT(base58_decode(&out, "", 0), RC_OK);
    CHECK_EQ_INT(base58_decode(&out, "   ", 0), RC_OK);
    CHECK_EQ_INT(out.len, 0);

    /* Base58Check from Core's tests: "hello world"-sized payload; a flipped last character
     * breaks the checksum; trailing invalid characters are rejected. */
    buf_reset(&out);
    CHECK_EQ_INT(base58check_decode(&out, "3vQB7B6MrGQZaxCuFg4oh", 100), RC_OK);
    CHECK_EQ_INT(out.len, 11);
    if (out.len == 11) {
        CHECK_EQ_MEM(out.data, "hello world", 11);
    }
    buf_reset(&out);
    CHECK_EQ_INT(base58check_decode(&out, "3vQB7B6MrGQZaxCuFg4oi", 100), RC_INVALID);
    CHECK_EQ_INT(base58check_decode(&out, "3vQB7B6MrGQZaxCuFg4oh0IOl", 100), RC_INVALID);
    CHECK_EQ_INT(base58check_decode(&out, "3vQB7B6MrGQZaxCuFg4oh", 10), RC_TOO_LARGE);
    CHECK_EQ_INT(base58check_decode(&out, "3vQB7B6MrGQZaxCuFg4oh", 11), RC_OK);
    /* Shorter than a checksum. */
    buf_reset(&out);
    CHECK_EQ_INT(base58check_decode(&out, "", 100), RC_INVALID);
    CHECK_EQ_INT(base58check_decode(&out, "1111", 100), RC_INVALID); /* 4 zero bytes: bad sum */
    CHECK_EQ_INT(base58check_decode(&out, "z", 100), RC_INVALID);
    CHECK_EQ_INT(out.len, 0);
    buf_clear(&out);
}

static void test_base58check_roundtrip(void)
{
    /* Core's base58_random_encode_decode: any payload (with or without leading zeros)
     * round-trips, and a limit below its length refuses it. */
    uint8_t data[257];
    for (int n = 0; n < 300; n++) {
        size_t len = 1 + (size_t)(rng_next() % 256);
        size_t zeroes = (rng_next() & 1) ? (size_t)(rng_next() % (len + 1)) : 0;
        struct buf dec;
        char *enc, *enc2;
        for (size_t i = 0; i < len; i++) {
            data[i] = i < zeroes ? 0 : (uint8_t)rng_next();
        }
        enc = base58check_encode(data, len);
        buf_init(&dec);
        CHECK_EQ_INT(base58check_decode(&dec, enc, (size_t)(rng_next() % len)), RC_TOO_LARGE);
        CHECK_EQ_INT(dec.len, 0);
        CHECK_EQ_INT(base58check_decode(&dec, enc, len + (size_t)(rng_next() % (257 - len))),
                     RC_OK);
        CHECK_EQ_INT(dec.len, len);
        if (dec.len == len) {
            CHECK_EQ_MEM(dec.data, data, len);
        }
        /* Leading zero bytes are exactly the leading '1's. */
        for (size_t i = 0; i < zeroes; i++) {
            CHECK(enc[i] == '1');
        }
        CHECK(enc[zeroes] != '1');
        /* Plain base58 round-trips too. */
        enc2 = base58_encode(data, len);
        buf_reset(&dec);
        CHECK_EQ_INT(base58_decode(&dec, enc2, len), RC_OK);
        CHECK_EQ_INT(dec.len, len);
        if (dec.len == len) {
            CHECK_EQ_MEM(dec.data, data, len);
        }
        free(enc);
        free(enc2);
        buf_clear(&dec);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Bech32 / Bech32m                                                                          */

static void lower_copy(char *out, const char *s)
{
    size_t i;
    for (i = 0; s[i]; i++) {
        out[i] = (s[i] >= 'A' && s[i] <= 'Z') ? (char)(s[i] - 'A' + 'a') : s[i];
    }
    out[i] = '\0';
}

static void test_bech32_valid_checksums(void)
{
    static const struct {
        const char *s;
        enum bech32_encoding enc;
    } v[] = {
        /* BIP173 */
        {"A12UEL5L", BECH32_BECH32},
        {"a12uel5l", BECH32_BECH32},
        {"an83characterlonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1"
         "tt5tgs",
         BECH32_BECH32},
        {"abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw", BECH32_BECH32},
        {"11qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq"
         "c8247j",
         BECH32_BECH32},
        {"split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w", BECH32_BECH32},
        {"?1ezyfcl", BECH32_BECH32},
        /* BIP350 */
        {"A1LQFN3A", BECH32_BECH32M},
        {"a1lqfn3a", BECH32_BECH32M},
        {"an83characterlonghumanreadablepartthatcontainsthetheexcludedcharactersbioandnumber1"
         "1sg7hg6",
         BECH32_BECH32M},
        {"abcdef1l7aum6echk45nj3s0wdvt2fg8x9yrzpqzd3ryx", BECH32_BECH32M},
        {"11llllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllll"
         "ludsr8",
         BECH32_BECH32M},
        {"split1checkupstagehandshakeupstreamerranterredcaperredlc445v", BECH32_BECH32M},
        {"?1v759aa", BECH32_BECH32M},
    };
    for (size_t i = 0; i < ARRAY_LEN(v); i++) {
        char hrp[84], re[91], lower[91];
        uint8_t values[90];
        size_t n = 999;
        enum bech32_encoding enc = BECH32_INVALID;
        int rc;

        test_case_failed = 0;
        rc = bech32_decode(hrp, values, &n, &enc, v[i].s);
        CHECK_EQ_INT(rc, RC_OK);
        CHECK_EQ_INT(enc, v[i].enc);
        if (rc == RC_OK) {
            /* Re-encoding gives the lower-case string back. */
            lower_copy(lower, v[i].s);
            CHECK_EQ_INT(strlen(hrp) + 1 + n + 6, strlen(v[i].s));
            CHECK_EQ_INT(bech32_encode(re, sizeof(re), hrp, values, n, enc), RC_OK);
            CHECK_EQ_STR(re, lower);
            /* The other checksum variant does not verify: flip only the constant. */
            CHECK_EQ_INT(bech32_encode(re, sizeof(re), hrp, values, n,
                                       enc == BECH32_BECH32 ? BECH32_BECH32M : BECH32_BECH32),
                         RC_OK);
            CHECK(strcmp(re, lower) != 0);
            /* Every single-character substitution in the data part is caught. */
            lower[strlen(lower) - 1 - (i % 6)] =
                lower[strlen(lower) - 1 - (i % 6)] == 'q' ? 'p' : 'q';
            CHECK_EQ_INT(bech32_decode(hrp, values, &n, &enc, lower), RC_INVALID);
        }
        test_report(!test_case_failed, "bech32 valid checksum %zu (%s)", i,
                    v[i].enc == BECH32_BECH32 ? "bech32" : "bech32m");
    }
    /* The data of one vector, checked value by value. */
    {
        char hrp[84];
        uint8_t values[90];
        size_t n;
        enum bech32_encoding enc;
        test_case_failed = 0;
        CHECK_EQ_INT(bech32_decode(hrp, values, &n, &enc,
                                   "abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw"),
                     RC_OK);
        CHECK_EQ_STR(hrp, "abcdef");
        CHECK_EQ_INT(n, 32);
        for (size_t i = 0; i < n && i < 32; i++) {
            CHECK_EQ_INT(values[i], i);
        }
        CHECK_EQ_INT(bech32_decode(hrp, values, &n, &enc, "A12UEL5L"), RC_OK);
        CHECK_EQ_STR(hrp, "a");
        CHECK_EQ_INT(n, 0);
        test_report(!test_case_failed, "bech32 decoded values and lower-cased hrp");
    }
}

static void test_bech32_invalid(void)
{
    static const char *v[] = {
        /* BIP173 */
        "\x20" "1nwldj5",
        "\x7f" "1axkwrx",
        "\x80" "1eym55h",
        "an84characterslonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1"
        "569pvx",
        "pzry9x0s0muk",
        "1pzry9x0s0muk",
        "x1b4n0q5v",
        "li1dgmt3",
        "de1lg7wt\xff",
        "A1G7SGD8",
        "10a06t8",
        "1qzzfhee",
        /* Core's extra cases: mixed case */
        "a12UEL5L",
        "A12uEL5L",
        /* BIP350 */
        "\x20" "1xj0phk",
        "\x7f" "1g6xzxy",
        "\x80" "1vctc34",
        "an84characterslonghumanreadablepartthatcontainsthetheexcludedcharactersbioandnumber1"
        "1d6pts4",
        "qyrz8wqd2c9m",
        "1qyrz8wqd2c9m",
        "y1b0jsk6g",
        "lt1igcx5c0",
        "in1muywd",
        "mm1crxm3i",
        "au1s5cgom",
        "M1VUXWEZ",
        "16plkw9",
        "1p2gdwpf",
        /* Edge cases of our own */
        "",
        "1",
        "a1",
        "a1qqqqq", /* 5 checksum characters */
    };
    for (size_t i = 0; i < ARRAY_LEN(v); i++) {
        char hrp[84];
        uint8_t values[90];
        size_t n;
        enum bech32_encoding enc = BECH32_BECH32M;
        int rc = bech32_decode(hrp, values, &n, &enc, v[i]);
        test_report(rc == RC_INVALID && enc == BECH32_INVALID, "bech32 invalid string %zu", i);
    }
}

static void test_bech32_encode_errors(void)
{
    char out[120];
    uint8_t values[100] = {0};
    /* The longest hrp, and one past it. */
    char hrp83[84], hrp84[85];
    memset(hrp83, 'a', 83);
    hrp83[83] = '\0';
    memset(hrp84, 'a', 84);
    hrp84[84] = '\0';

    CHECK_EQ_INT(bech32_encode(out, sizeof(out), hrp83, values, 0, BECH32_BECH32), RC_OK);
    CHECK_EQ_INT(strlen(out), 90);
    CHECK_EQ_INT(bech32_encode(out, sizeof(out), hrp84, values, 0, BECH32_BECH32), RC_INVALID);
    CHECK_EQ_INT(bech32_encode(out, sizeof(out), "", values, 0, BECH32_BECH32), RC_INVALID);
    CHECK_EQ_INT(bech32_encode(out, sizeof(out), "Bc", values, 0, BECH32_BECH32), RC_INVALID);
    CHECK_EQ_INT(bech32_encode(out, sizeof(out), "b c", values, 0, BECH32_BECH32), RC_INVALID);
    CHECK_EQ_INT(bech32_encode(out, sizeof(out), "bc", values, 0, BECH32_INVALID), RC_INVALID);
    values[3] = 32;
    CHECK_EQ_INT(bech32_encode(out, sizeof(out), "bc", values, 5, BECH32_BECH32), RC_INVALID);
    values[3] = 0;
    /* 90 characters at most: "bc" + '1' + 81 values + 6 = 90; 82 values is too many. */
    CHECK_EQ_INT(bech32_encode(out, sizeof(out), "bc", values, 81, BECH32_BECH32), RC_OK);
    CHECK_EQ_INT(strlen(out), 90);
    CHECK_EQ_INT(bech32_encode(out, sizeof(out), "bc", values, 82, BECH32_BECH32), RC_TOO_LARGE);
    /* The output buffer must hold the string and its NUL. */
    CHECK_EQ_INT(bech32_encode(out, 9, "a", values, 0, BECH32_BECH32), RC_OK);
    CHECK_EQ_STR(out, "a12uel5l");
    CHECK_EQ_INT(bech32_encode(out, 8, "a", values, 0, BECH32_BECH32), RC_TOO_LARGE);
}

/* Builds the scriptPubKey of a witness program: OP_n, push(prog). */
static void witness_spk(struct buf *out, int witver, const uint8_t *prog, size_t len)
{
    buf_reset(out);
    buf_put_u8(out, (uint8_t)(witver == 0 ? 0 : 0x50 + witver));
    buf_put_u8(out, (uint8_t)len);
    buf_append(out, prog, len);
}

static void check_segwit_valid(const char *hrp, const char *addr, const char *spk_hex)
{
    struct buf spk, want;
    uint8_t prog[40];
    size_t len = 0;
    int ver = -1;
    char re[91], lower[91];

    buf_init(&spk);
    buf_init(&want);
    CHECK_EQ_INT(segwit_addr_decode(&ver, prog, &len, hrp, addr), RC_OK);
    unhex(&want, spk_hex);
    witness_spk(&spk, ver, prog, len);
    CHECK_EQ_INT(spk.len, want.len);
    if (spk.len == want.len) {
        CHECK_EQ_MEM(spk.data, want.data, spk.len);
    }
    CHECK_EQ_INT(segwit_addr_encode(re, sizeof(re), hrp, ver, prog, len), RC_OK);
    lower_copy(lower, addr);
    CHECK_EQ_STR(re, lower);
    buf_clear(&spk);
    buf_clear(&want);
}

static void test_segwit_addr_bip_vectors(void)
{
    static const struct {
        const char *hrp, *addr, *spk;
    } valid[] = {
        /* BIP350 (supersedes BIP173's list: v1+ use bech32m) */
        {"bc", "BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4",
         "0014751e76e8199196d454941c45d1b3a323f1433bd6"},
        {"tb", "tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7",
         "00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262"},
        {"bc", "bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y",
         "5128751e76e8199196d454941c45d1b3a323f1433bd6751e76e8199196d454941c45d1b3a323f1433bd6"},
        {"bc", "BC1SW50QGDZ25J", "6002751e"},
        {"bc", "bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs", "5210751e76e8199196d454941c45d1b3a323"},
        {"tb", "tb1qqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesrxh6hy",
         "0020000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433"},
        {"tb", "tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c",
         "5120000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433"},
        {"bc", "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0",
         "512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"},
    };
    static const char *invalid[] = {
        /* BIP350 */
        "tc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq5zuyut",
        "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd",
        "tb1z0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqglt7rf",
        "BC1S0XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ54WELL",
        "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh",
        "tb1q0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq24jc47",
        "bc1p38j9r5y49hruaue7wxjce0updqjuyyx0kh56v8s25huc6995vvpql3jow4",
        "BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R",
        "bc1pw5dgrnzv",
        "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav253zgeav",
        "BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P",
        "tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47Zagq",
        "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf",
        "tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vpggkg4j",
        "bc1gmk9yu",
        /* BIP173 */
        "tc1qw508d6qejxtdg4y5r3zarvary0c5xw7kg3g4ty",
        "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5",
        "BC13W508D6QEJXTDG4Y5R3ZARVARY0C5XW7KN40WF2",
        "bc1rw5uspcuh",
        "bc10w508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kw5rljs90",
        "tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sL5k7",
        "bc1zw508d6qejxtdg4y5r3zarvaryvqyzf3du",
        "tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3pjxtptv",
    };
    for (size_t i = 0; i < ARRAY_LEN(valid); i++) {
        test_case_failed = 0;
        check_segwit_valid(valid[i].hrp, valid[i].addr, valid[i].spk);
        test_report(!test_case_failed, "segwit address valid %zu (%s)", i, valid[i].addr);
    }
    for (size_t i = 0; i < ARRAY_LEN(invalid); i++) {
        static const char *hrps[] = {"bc", "tb", "bcrt"};
        int ok = 1;
        for (size_t h = 0; h < ARRAY_LEN(hrps); h++) {
            int ver;
            uint8_t prog[40];
            size_t len;
            if (segwit_addr_decode(&ver, prog, &len, hrps[h], invalid[i]) != RC_INVALID) {
                printf("#   %s decoded with hrp %s\n", invalid[i], hrps[h]);
                ok = 0;
            }
        }
        test_report(ok, "segwit address invalid %zu (%s)", i, invalid[i]);
    }
}

static void test_segwit_addr_rules(void)
{
    uint8_t prog[41], dec[40];
    char out[91];
    size_t len;
    int ver;

    for (size_t i = 0; i < sizeof(prog); i++) {
        prog[i] = (uint8_t)(i * 13 + 5);
    }
    /* Encoding refuses what decoding would refuse. */
    CHECK_EQ_INT(segwit_addr_encode(out, sizeof(out), "bc", -1, prog, 20), RC_INVALID);
    CHECK_EQ_INT(segwit_addr_encode(out, sizeof(out), "bc", 17, prog, 20), RC_INVALID);
    CHECK_EQ_INT(segwit_addr_encode(out, sizeof(out), "bc", 1, prog, 1), RC_INVALID);
    CHECK_EQ_INT(segwit_addr_encode(out, sizeof(out), "bc", 1, prog, 41), RC_INVALID);
    CHECK_EQ_INT(segwit_addr_encode(out, sizeof(out), "bc", 0, prog, 21), RC_INVALID);
    CHECK_EQ_INT(segwit_addr_encode(out, sizeof(out), "bc", 0, prog, 31), RC_INVALID);
    CHECK_EQ_INT(segwit_addr_encode(out, 10, "bc", 0, prog, 20), RC_INVALID);
    CHECK_EQ_INT(segwit_addr_encode(out, sizeof(out), "BC", 0, prog, 20), RC_INVALID);

    /* Every version and every allowed length round-trips, with the right checksum. */
    for (int v = 0; v <= 16; v++) {
        for (size_t l = 2; l <= 40; l++) {
            char hrp[84];
            uint8_t values[90];
            size_t n;
            enum bech32_encoding enc;
            if (v == 0 && l != 20 && l != 32) {
                continue;
            }
            CHECK_EQ_INT(segwit_addr_encode(out, sizeof(out), "bcrt", v, prog, l), RC_OK);
            CHECK_EQ_INT(segwit_addr_decode(&ver, dec, &len, "bcrt", out), RC_OK);
            CHECK_EQ_INT(ver, v);
            CHECK_EQ_INT(len, l);
            CHECK_EQ_MEM(dec, prog, l);
            CHECK_EQ_INT(bech32_decode(hrp, values, &n, &enc, out), RC_OK);
            CHECK_EQ_INT(enc, v == 0 ? BECH32_BECH32 : BECH32_BECH32M);
            /* Wrong hrp. */
            CHECK_EQ_INT(segwit_addr_decode(&ver, dec, &len, "bc", out), RC_INVALID);
        }
    }
    /* The expected hrp is compared without regard to case. */
    CHECK_EQ_INT(segwit_addr_decode(&ver, dec, &len, "BC",
                                    "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"),
                 RC_OK);
    /* The same v0 program with a bech32m checksum, and v1 with bech32, are refused. */
    {
        uint8_t values[1 + 32];
        size_t n = 0;
        uint32_t acc = 0;
        int bits = 0;
        values[n++] = 0;
        for (size_t i = 0; i < 20; i++) {
            acc = (acc << 8) | prog[i];
            bits += 8;
            while (bits >= 5) {
                bits -= 5;
                values[n++] = (uint8_t)((acc >> bits) & 31);
            }
        }
        CHECK_EQ_INT(bits, 0);
        CHECK_EQ_INT(bech32_encode(out, sizeof(out), "bc", values, n, BECH32_BECH32M), RC_OK);
        CHECK_EQ_INT(segwit_addr_decode(&ver, dec, &len, "bc", out), RC_INVALID);
        CHECK_EQ_INT(bech32_encode(out, sizeof(out), "bc", values, n, BECH32_BECH32), RC_OK);
        CHECK_EQ_INT(segwit_addr_decode(&ver, dec, &len, "bc", out), RC_OK);
        values[0] = 1;
        CHECK_EQ_INT(bech32_encode(out, sizeof(out), "bc", values, n, BECH32_BECH32), RC_OK);
        CHECK_EQ_INT(segwit_addr_decode(&ver, dec, &len, "bc", out), RC_INVALID);
        CHECK_EQ_INT(bech32_encode(out, sizeof(out), "bc", values, n, BECH32_BECH32M), RC_OK);
        CHECK_EQ_INT(segwit_addr_decode(&ver, dec, &len, "bc", out), RC_OK);
        /* Version above 16. */
        values[0] = 17;
        CHECK_EQ_INT(bech32_encode(out, sizeof(out), "bc", values, n, BECH32_BECH32M), RC_OK);
        CHECK_EQ_INT(segwit_addr_decode(&ver, dec, &len, "bc", out), RC_INVALID);
        /* No data at all beyond the version. */
        values[0] = 1;
        CHECK_EQ_INT(bech32_encode(out, sizeof(out), "bc", values, 1, BECH32_BECH32M), RC_OK);
        CHECK_EQ_INT(segwit_addr_decode(&ver, dec, &len, "bc", out), RC_INVALID);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* key_io vectors: Base58Check and segwit addresses as Core's key_io_tests read them         */

static const char *chain_hrp(const char *chain)
{
    if (strcmp(chain, "main") == 0) {
        return "bc";
    }
    if (strcmp(chain, "regtest") == 0) {
        return "bcrt";
    }
    return "tb"; /* test, testnet4, signet */
}

static void test_key_io_valid(void)
{
    json_t *root = load_vectors("key_io_valid.json");
    size_t i;

    if (!root) {
        return;
    }
    for (i = 0; i < json_array_size(root); i++) {
        json_t *v = json_array_get(root, i);
        const char *str, *hex, *chain;
        json_t *meta;
        int is_priv, is_main;
        struct buf want, dec;

        if (json_array_size(v) < 3) {
            continue;
        }
        test_case_failed = 0;
        str = json_string_value(json_array_get(v, 0));
        hex = json_string_value(json_array_get(v, 1));
        meta = json_array_get(v, 2);
        chain = json_string_value(json_object_get(meta, "chain"));
        is_priv = json_is_true(json_object_get(meta, "isPrivkey"));
        is_main = chain && strcmp(chain, "main") == 0;
        buf_init(&want);
        buf_init(&dec);
        unhex(&want, hex);

        if (is_priv) {
            /* WIF: version 128 / 239, 32-byte key, 0x01 when compressed. */
            int compressed = json_is_true(json_object_get(meta, "isCompressed"));
            CHECK_EQ_INT(base58check_decode(&dec, str, 34), RC_OK);
            CHECK_EQ_INT(dec.len, compressed ? 34 : 33);
            if (dec.len >= 33 && want.len == 32) {
                CHECK_EQ_INT(dec.data[0], is_main ? 128 : 239);
                CHECK_EQ_MEM(dec.data + 1, want.data, 32);
                if (compressed) {
                    CHECK_EQ_INT(dec.data[33], 1);
                }
            }
        } else if ((want.len == 25 && want.data[0] == 0x76) ||
                   (want.len == 23 && want.data[0] == 0xa9)) {
            /* P2PKH (76 a9 14 <20> 88 ac) or P2SH (a9 14 <20> 87). */
            int p2sh = want.data[0] == 0xa9;
            CHECK_EQ_INT(base58check_decode(&dec, str, 21), RC_OK);
            CHECK_EQ_INT(dec.len, 21);
            if (dec.len == 21) {
                CHECK_EQ_INT(dec.data[0], p2sh ? (is_main ? 5 : 196) : (is_main ? 0 : 111));
                CHECK_EQ_MEM(dec.data + 1, want.data + (p2sh ? 2 : 3), 20);
            }
        } else {
            /* Witness program, maybe with upper case to try. */
            check_segwit_valid(chain_hrp(chain), str, hex);
            if (json_is_true(json_object_get(meta, "tryCaseFlip"))) {
                char upper[91];
                size_t k;
                for (k = 0; str[k] && k < 90; k++) {
                    upper[k] = (str[k] >= 'a' && str[k] <= 'z') ? (char)(str[k] - 32) : str[k];
                }
                upper[k] = '\0';
                check_segwit_valid(chain_hrp(chain), upper, hex);
            }
        }
        /* Base58Check strings re-encode to themselves. */
        if (dec.len > 0) {
            char *re = base58check_encode(dec.data, dec.len);
            CHECK_EQ_STR(re, str);
            free(re);
        }
        test_report(!test_case_failed, "key_io_valid %zu (%s, %s)", i, str ? str : "?",
                    chain ? chain : "?");
        buf_clear(&want);
        buf_clear(&dec);
    }
    json_decref(root);
}

static void test_key_io_invalid(void)
{
    /* None of these decodes as a segwit address on any network. (Some are valid Base58Check
     * strings with a wrong version or length, which is the address layer's business.) */
    json_t *root = load_vectors("key_io_invalid.json");
    static const char *hrps[] = {"bc", "tb", "bcrt"};
    size_t i, checked = 0;
    int ok = 1;

    if (!root) {
        return;
    }
    for (i = 0; i < json_array_size(root); i++) {
        const char *s = json_string_value(json_array_get(json_array_get(root, i), 0));
        if (!s) {
            continue;
        }
        for (size_t h = 0; h < ARRAY_LEN(hrps); h++) {
            int ver;
            uint8_t prog[40];
            size_t len;
            if (segwit_addr_decode(&ver, prog, &len, hrps[h], s) != RC_INVALID) {
                printf("#   key_io_invalid %zu (%s) decoded as segwit for %s\n", i, s, hrps[h]);
                ok = 0;
            }
        }
        checked++;
    }
    test_report(ok && checked >= 70, "key_io_invalid: %zu strings are no segwit address",
                checked);
    json_decref(root);
}

/* ---------------------------------------------------------------------------------------- */
/* SipHash                                                                                   */

static void test_siphash_paper_vectors(void)
{
    /* SipHash-2-4 with key 00 01 .. 0f over messages 00 01 .. (len-1), len = 0..63, from the
     * SipHash paper / reference implementation (vectors_sip64), as 64-bit LE values. */
    static const uint64_t expect[64] = {
        0x726fdb47dd0e0e31, 0x74f839c593dc67fd, 0x0d6c8009d9a94f5a, 0x85676696d7fb7e2d,
        0xcf2794e0277187b7, 0x18765564cd99a68d, 0xcbc9466e58fee3ce, 0xab0200f58b01d137,
        0x93f5f5799a932462, 0x9e0082df0ba9e4b0, 0x7a5dbbc594ddb9f3, 0xf4b32f46226bada7,
        0x751e8fbc860ee5fb, 0x14ea5627c0843d90, 0xf723ca908e7af2ee, 0xa129ca6149be45e5,
        0x3f2acc7f57c29bdb, 0x699ae9f52cbe4794, 0x4bc1b3f0968dd39c, 0xbb6dc91da77961bd,
        0xbed65cf21aa2ee98, 0xd0f2cbb02e3b67c7, 0x93536795e3a33e88, 0xa80c038ccd5ccec8,
        0xb8ad50c6f649af94, 0xbce192de8a85b8ea, 0x17d835b85bbb15f3, 0x2f2e6163076bcfad,
        0xde4daaaca71dc9a5, 0xa6a2506687956571, 0xad87a3535c49ef28, 0x32d892fad841c342,
        0x7127512f72f27cce, 0xa7f32346f95978e3, 0x12e0b01abb051238, 0x15e034d40fa197ae,
        0x314dffbe0815a3b4, 0x027990f029623981, 0xcadcd4e59ef40c4d, 0x9abfd8766a33735c,
        0x0e3ea96b5304a7d0, 0xad0c42d6fc585992, 0x187306c89bc215a9, 0xd4a60abcf3792b95,
        0xf935451de4f21df2, 0xa9538f0419755787, 0xdb9acddff56ca510, 0xd06c98cd5c0975eb,
        0xe612a3cb9ecba951, 0xc766e62cfcadaf96, 0xee64435a9752fe72, 0xa192d576b245165a,
        0x0a8787bf8ecb74b2, 0x81b3e73d20b49b6f, 0x7fa8220ba3b2ecea, 0x245731c13ca42499,
        0xb78dbfaf3a8d83bd, 0xea1ad565322a1a0b, 0x60e61c23a3795013, 0x6606d7e446282b93,
        0x6ca4ecb15c5f91e1, 0x9f626da15c9625f3, 0xe51b38608ef25f57, 0x958a324ceb064572,
    };
    const uint64_t k0 = 0x0706050403020100ULL, k1 = 0x0f0e0d0c0b0a0908ULL;
    uint8_t msg[64];
    size_t i;

    for (i = 0; i < 64; i++) {
        msg[i] = (uint8_t)i;
    }
    for (i = 0; i < 64; i++) {
        uint64_t got = siphash24(k0, k1, msg, i);
        if (got != expect[i]) {
            printf("#   len %zu: got %016" PRIx64 ", want %016" PRIx64 "\n", i, got, expect[i]);
        }
        test_report(got == expect[i], "siphash24 paper vector, %zu-byte message", i);
    }
}

static void test_siphash_uint256_forms(void)
{
    const uint64_t k0 = 0x0706050403020100ULL, k1 = 0x0f0e0d0c0b0a0908ULL;
    uint8_t msg[36];
    size_t i;

    for (i = 0; i < 36; i++) {
        msg[i] = (uint8_t)i;
    }
    /* Core's crypto_tests: SipHashUint256 of 00..1f is the 32-byte paper vector, and
     * SipHashUint256Extra with extra 0x23222120 the 36-byte one. */
    CHECK_EQ_U64(siphash24_uint256(k0, k1, msg), 0x7127512f72f27cceULL);
    CHECK_EQ_U64(siphash24_uint256_extra(k0, k1, msg, 0x23222120u), 0x314dffbe0815a3b4ULL);

    /* In general they equal the generic hash over the same bytes. */
    for (int round = 0; round < 100; round++) {
        uint64_t a = rng_next(), b = rng_next();
        uint32_t extra = (uint32_t)rng_next();
        for (i = 0; i < 32; i++) {
            msg[i] = (uint8_t)rng_next();
        }
        wr_u32le(msg + 32, extra);
        CHECK_EQ_U64(siphash24_uint256(a, b, msg), siphash24(a, b, msg, 32));
        CHECK_EQ_U64(siphash24_uint256_extra(a, b, msg, extra), siphash24(a, b, msg, 36));
    }
    /* The key matters. */
    CHECK(siphash24_uint256(k0, k1, msg) != siphash24_uint256(k0 ^ 1, k1, msg));
    CHECK(siphash24_uint256(k0, k1, msg) != siphash24_uint256(k0, k1 ^ 1, msg));
}

/* ---------------------------------------------------------------------------------------- */
/* MuHash3072                                                                                */

/* Core's FromInt(i): the set holding the single 32-byte element {i, 0, ..., 0}. */
static struct muhash *muhash_from_int(uint8_t i)
{
    uint8_t tmp[32] = {0};
    struct muhash *m = muhash_new();
    tmp[0] = i;
    muhash_insert(m, tmp, sizeof(tmp));
    return m;
}

static void test_muhash_core_vectors(void)
{
    /* Core prints this with uint256's ToString (byte-reversed). */
    static const char *expect_rev =
        "10d312b100cbd32ada024a6646e40d3482fcff103668d2625f10002a607d5863";
    uint8_t out[32], want[32], tmp[32] = {0};
    struct muhash *acc, *x;

    CHECK_EQ_INT(hex_decode_hash32_rev(want, expect_rev), RC_OK);

    /* acc = FromInt(0); acc *= FromInt(1); acc /= FromInt(2). */
    acc = muhash_from_int(0);
    x = muhash_from_int(1);
    muhash_combine(acc, x);
    muhash_free(x);
    x = muhash_from_int(2);
    muhash_subtract(acc, x);
    muhash_free(x);
    muhash_finalize(acc, out);
    CHECK_EQ_MEM(out, want, 32);
    muhash_free(acc);

    /* acc2 = FromInt(0); Insert({1,0..}); Remove({2,0..}). */
    acc = muhash_from_int(0);
    tmp[0] = 1;
    muhash_insert(acc, tmp, 32);
    tmp[0] = 2;
    muhash_remove(acc, tmp, 32);
    muhash_finalize(acc, out);
    CHECK_EQ_MEM(out, want, 32);
    /* Finalize leaves the object as the same set. */
    muhash_finalize(acc, out);
    CHECK_EQ_MEM(out, want, 32);
    muhash_free(acc);
}

static void test_muhash_serialization(void)
{
    /* Core's ser_exp: FromInt(1) *= FromInt(2) serialized as num || den (384 bytes each,
     * little-endian); den is 1. This pins the ChaCha20 expansion and the multiplication. */
    static const char *num_hex =
        "1fa093295ea30a6a3acdc7b3f770fa538eff537528e990e2910e40bbcfd7f6696b1256901929094694b5"
        "6316de342f593303dd12ac43e06dce1be1ff8301c845beb15468fff0ef002dbf80c29f26e6452bccc91b"
        "5cb9437ad410d2a67ea847887fa3c6a6553309946880fe20db2c73fe0641adbd4e86edfee0d9f8cd0ee1"
        "230898873dc13ed8ddcaf045c80faa082774279007a2253f8922ee3ef361d378a6af3ddaf180b190ac97"
        "e556888c36b3d1fb1c85aab9ccd46e3deaeb7b7cf5db067a7e9ff86b658cf3acd6662bbcce37232daa75"
        "3c48b794356c020090c831a8304416e2aa7ad633c0ddb2f11be1be316a81be7f7e472071c042cb68faef"
        "549c221ebff209273638b741aba5a81675c45a5fa92fea4ca821d7a324cb1e1a2ccd3b76c4228ec8066d"
        "ad2a5df6e1bd0de45c7dd5de8070bdb46db6c554cf9aefc9b7b2bbf9f75b1864d9f95005314593905c01"
        "09b71f703d49944ae94477b51dac10a816bb6d1c700bafabc8bd86fac8df24be519a2f2836b16392e180"
        "36cb13e48c5c";
    uint8_t ser[MUHASH_SER_BYTES], want[MUHASH_SER_BYTES], out1[32], out2[32];
    struct muhash *m = muhash_from_int(1), *two = muhash_from_int(2), *d = muhash_new();

    muhash_combine(m, two);
    muhash_serialize(m, ser);
    memset(want, 0, sizeof(want));
    unhex_fixed(want, MUHASH_NUM_BYTES, num_hex);
    want[MUHASH_NUM_BYTES] = 1;
    CHECK_EQ_MEM(ser, want, MUHASH_SER_BYTES);

    /* Deserializing gives the same set. */
    muhash_deserialize(d, ser);
    muhash_finalize(m, out1);
    muhash_finalize(d, out2);
    CHECK_EQ_MEM(out1, out2, 32);
    muhash_free(m);
    muhash_free(two);
    muhash_free(d);
}

static void test_muhash_overflow(void)
{
    /* Core: a numerator of 384 0xff bytes (2^3072 - 1 > p) with denominator 1. Core compares
     * HexStr(out), i.e. SHA-256 output order. */
    uint8_t ser[MUHASH_SER_BYTES], out[32], want[32];
    struct muhash *m = muhash_new();
    memset(ser, 0xff, MUHASH_NUM_BYTES);
    memset(ser + MUHASH_NUM_BYTES, 0, MUHASH_NUM_BYTES);
    ser[MUHASH_NUM_BYTES] = 1;
    muhash_deserialize(m, ser);
    muhash_finalize(m, out);
    unhex_fixed(want, 32, "3a31e6903aff0de9f62f9a9f7f8b861de76ce2cda09822b90014319ae5dc2271");
    CHECK_EQ_MEM(out, want, 32);
    muhash_free(m);
}

static void test_muhash_empty_set(void)
{
    /* The empty set: SHA-256 of the number 1 as 384 little-endian bytes. */
    uint8_t one[MUHASH_NUM_BYTES] = {1}, want[32], out[32];
    struct muhash *m = muhash_new();
    hash_sha256(want, one, sizeof(one));
    muhash_finalize(m, out);
    CHECK_EQ_MEM(out, want, 32);
    /* Inserting and removing the same element returns to it, in either order. */
    muhash_remove(m, (const uint8_t *)"coin", 4);
    muhash_insert(m, (const uint8_t *)"coin", 4);
    muhash_finalize(m, out);
    CHECK_EQ_MEM(out, want, 32);
    /* An element changes the hash. */
    muhash_insert(m, (const uint8_t *)"", 0);
    muhash_finalize(m, out);
    CHECK(memcmp(out, want, 32) != 0);
    muhash_free(NULL);
    muhash_free(m);
}

static void test_muhash_identities(void)
{
    /* Core's randomised loop: any order of multiplying/dividing the same four elements gives
     * the same hash; x*y / (y*x) is the empty set. */
    uint8_t empty_out[32], out[32], res[32];
    struct muhash *empty = muhash_new();
    muhash_finalize(empty, empty_out);

    for (int iter = 0; iter < 10; iter++) {
        int table[4];
        for (int i = 0; i < 4; i++) {
            table[i] = (int)(rng_next() & 7);
        }
        for (int order = 0; order < 4; order++) {
            struct muhash *acc = muhash_new();
            for (int i = 0; i < 4; i++) {
                int t = table[i ^ order];
                struct muhash *f = muhash_from_int((uint8_t)(t & 3));
                if (t & 4) {
                    muhash_subtract(acc, f);
                } else {
                    muhash_combine(acc, f);
                }
                muhash_free(f);
            }
            muhash_finalize(acc, out);
            if (order == 0) {
                memcpy(res, out, 32);
            } else {
                CHECK_EQ_MEM(out, res, 32);
            }
            muhash_free(acc);
        }
        {
            struct muhash *x = muhash_from_int((uint8_t)(rng_next() & 15));
            struct muhash *y = muhash_from_int((uint8_t)(rng_next() & 15));
            struct muhash *z = muhash_new();
            muhash_combine(z, x);
            muhash_combine(z, y);
            muhash_combine(y, x);
            muhash_subtract(z, y);
            muhash_finalize(z, out);
            CHECK_EQ_MEM(out, empty_out, 32);
            muhash_free(x);
            muhash_free(y);
            muhash_free(z);
        }
    }

    /* Insert-order independence and combine == inserting the union; remove undoes insert. */
    {
        struct muhash *a = muhash_new(), *b = muhash_new(), *c = muhash_new();
        uint8_t oa[32], ob[32];
        char el[32];
        for (int i = 0; i < 20; i++) {
            snprintf(el, sizeof(el), "element %d", i);
            muhash_insert(a, (const uint8_t *)el, strlen(el));
            snprintf(el, sizeof(el), "element %d", 19 - i);
            if (i % 2) {
                muhash_insert(b, (const uint8_t *)el, strlen(el));
            } else {
                muhash_insert(c, (const uint8_t *)el, strlen(el));
            }
        }
        muhash_combine(b, c);
        muhash_finalize(a, oa);
        muhash_finalize(b, ob);
        CHECK_EQ_MEM(oa, ob, 32);
        muhash_remove(a, (const uint8_t *)"element 7", 9);
        muhash_finalize(a, oa);
        CHECK(memcmp(oa, ob, 32) != 0);
        muhash_insert(a, (const uint8_t *)"element 7", 9);
        muhash_finalize(a, oa);
        CHECK_EQ_MEM(oa, ob, 32);
        /* b - c leaves the elements of the odd rounds only. */
        muhash_subtract(b, c);
        muhash_subtract(a, c);
        muhash_finalize(a, oa);
        muhash_finalize(b, ob);
        CHECK_EQ_MEM(oa, ob, 32);
        muhash_free(a);
        muhash_free(b);
        muhash_free(c);
    }
    muhash_free(empty);
}

/* BIP324's ElligatorSwift decoding: every row of its vector file (76 encodings, among them
 * u or t zero or at/above p, and the u^3 + t^2 + 7 = 0 case). */
static void test_ellswift_decode(void)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/vectors/bip324/ellswift_decode_test_vectors.csv",
             test_shared_dir());
    FILE *f = fopen(path, "r");
    if (!f) {
        test_report(0, "%s not found", path);
        return;
    }
    char line[1024];
    int rows = 0;
    CHECK(fgets(line, sizeof(line), f) != NULL); /* the header */
    while (fgets(line, sizeof(line), f)) {
        char *c1 = strchr(line, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
        if (!c1 || !c2 || c1 - line != 128 || c2 - c1 - 1 != 64) {
            CHECK(0);
            continue;
        }
        uint8_t enc[64], want[32], got[32];
        *c1 = 0;
        *c2 = 0;
        CHECK_EQ_INT(hex_decode_fixed(enc, sizeof(enc), line), RC_OK);
        CHECK_EQ_INT(hex_decode_fixed(want, sizeof(want), c1 + 1), RC_OK);
        ellswift_decode(enc, got);
        CHECK_EQ_MEM(got, want, 32);
        rows++;
    }
    fclose(f);
    CHECK_EQ_INT(rows, 76);
}

/* Splits a CSV line (no quoting: BIP324's files have none) in place into at most max fields,
 * dropping the line end. Returns the number of fields. */
static int csv_split(char *line, char **fields, int max)
{
    int n = 0;
    line[strcspn(line, "\r\n")] = 0;
    while (n < max) {
        fields[n++] = line;
        char *comma = strchr(line, ',');
        if (!comma) {
            break;
        }
        *comma = 0;
        line = comma + 1;
    }
    return n;
}

/* BIP324's inverse map XSwiftECInv(u, x, c): every row of its vector file, all 8 cases each
 * (an empty cell: no solution), and each t found decodes back to x. */
static void test_xswiftec_inv(void)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/vectors/bip324/xswiftec_inv_test_vectors.csv",
             test_shared_dir());
    FILE *f = fopen(path, "r");
    if (!f) {
        printf("# %s not found\n", path);
        CHECK(0);
        return;
    }
    char line[4096], *fld[11];
    int rows = 0, found = 0, none = 0;
    CHECK(fgets(line, sizeof(line), f) != NULL); /* the header */
    CHECK_EQ_INT(csv_split(line, fld, 11), 11);
    CHECK_EQ_STR(fld[2], "case0_t");
    while (fgets(line, sizeof(line), f)) {
        if (csv_split(line, fld, 11) != 11) {
            CHECK(0);
            continue;
        }
        uint8_t u[32], x[32], want[32], got[32], enc[64], back[32];
        CHECK_EQ_INT(hex_decode_fixed(u, 32, fld[0]), RC_OK);
        CHECK_EQ_INT(hex_decode_fixed(x, 32, fld[1]), RC_OK);
        for (int c = 0; c < 8; c++) {
            int rc = ellswift_xswiftec_inv(got, u, x, c);
            if (fld[2 + c][0] == 0) {
                CHECK_EQ_INT(rc, RC_NOT_FOUND);
                none++;
                continue;
            }
            CHECK_EQ_INT(rc, RC_OK);
            CHECK_EQ_INT(hex_decode_fixed(want, 32, fld[2 + c]), RC_OK);
            CHECK_EQ_MEM(got, want, 32);
            memcpy(enc, u, 32);
            memcpy(enc + 32, got, 32);
            ellswift_decode(enc, back);
            CHECK_EQ_MEM(back, x, 32);
            found++;
        }
        rows++;
    }
    fclose(f);
    CHECK_EQ_INT(rows, 32);
    printf("# %d rows: %d cases with a solution, %d without\n", rows, found, none);
    /* the contract's refusals: a case out of range, an x off the curve or at p, u = 0 */
    uint8_t t[32], u[32] = {0}, x[32] = {0}, p[32];
    unhex_fixed(p, 32, "fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f");
    x[31] = 1; /* 1^3 + 7 = 8 is a square: on the curve */
    u[31] = 5;
    CHECK_EQ_INT(ellswift_xswiftec_inv(t, u, x, 8), RC_INVALID);
    CHECK_EQ_INT(ellswift_xswiftec_inv(t, u, p, 0), RC_INVALID);
    x[31] = 5; /* 5^3 + 7 = 132 is not a square modulo p */
    CHECK_EQ_INT(ellswift_xswiftec_inv(t, u, x, 2), RC_INVALID);
    x[31] = 1;
    for (int c = 0; c < 8; c++) {
        CHECK_EQ_INT(ellswift_xswiftec_inv(t, p, x, c), RC_NOT_FOUND); /* u = p = 0 */
    }
}

/* The key's x and y parity, by libsecp256k1 directly. */
static void pubkey_xy(const secp256k1_context *ctx, const uint8_t priv[32], uint8_t x[32],
                      int *y_odd)
{
    secp256k1_pubkey pk;
    uint8_t ser[65];
    size_t len = sizeof(ser);
    CHECK(secp256k1_ec_pubkey_create(ctx, &pk, priv));
    CHECK(secp256k1_ec_pubkey_serialize(ctx, ser, &len, &pk, SECP256K1_EC_UNCOMPRESSED));
    memcpy(x, ser + 1, 32);
    *y_odd = ser[64] & 1;
}

/* Encodings of many keys with many entropies decode to the key's x, carry y's parity in t,
 * and differ with the entropy; invalid keys are refused. */
static void test_ellswift_create(void)
{
    secp256k1_context *ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
    uint8_t p[32];
    unhex_fixed(p, 32, "fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f");
    int n = 0;
    for (uint32_t i = 0; i < 64; i++) {
        uint8_t priv[32], x[32], ent[32], ell[64], prev[64], got[32];
        int y_odd = 0;
        hash_sha256(priv, &i, sizeof(i));
        pubkey_xy(ctx, priv, x, &y_odd);
        for (uint32_t j = 0; j < 4; j++) {
            uint32_t seed[2] = {i, j};
            hash_sha256(ent, seed, sizeof(seed));
            CHECK_EQ_INT(ellswift_create(ell, priv, ent), RC_OK);
            ellswift_decode(ell, got);
            CHECK_EQ_MEM(got, x, 32);
            CHECK_EQ_INT(ell[63] & 1, y_odd);
            CHECK(memcmp(ell + 32, p, 32) < 0);
            if (j > 0) {
                CHECK(memcmp(ell, prev, 32) != 0 && memcmp(ell + 32, prev + 32, 32) != 0);
            }
            /* the same inputs, the same encoding */
            CHECK_EQ_INT(ellswift_create(prev, priv, ent), RC_OK);
            CHECK_EQ_MEM(prev, ell, 64);
            n++;
        }
    }
    CHECK_EQ_INT(n, 256);
    /* zero and the group order are not secret keys; *ell64 stays as it was */
    uint8_t bad[32] = {0}, ent[32] = {0}, ell[64], before[64];
    memset(ell, 0xa5, sizeof(ell));
    memcpy(before, ell, sizeof(ell));
    CHECK_EQ_INT(ellswift_create(ell, bad, ent), RC_INVALID);
    unhex_fixed(bad, 32, "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141");
    CHECK_EQ_INT(ellswift_create(ell, bad, ent), RC_INVALID);
    CHECK_EQ_MEM(ell, before, 64);
    secp256k1_context_destroy(ctx);
}

/* Both sides of x-only ECDH reach the same x and the same BIP324 secret; the roles matter. */
static void test_ellswift_xdh(void)
{
    for (uint32_t i = 0; i < 16; i++) {
        uint8_t a[32], b[32], ent[32], ell_a[64], ell_b[64], xa[32], xb[32], sa[32], sb[32];
        uint32_t seed[2] = {i, 1};
        hash_sha256(a, seed, sizeof(seed));
        seed[1] = 2;
        hash_sha256(b, seed, sizeof(seed));
        hash_sha256(ent, &i, sizeof(i));
        CHECK_EQ_INT(ellswift_create(ell_a, a, ent), RC_OK);
        CHECK_EQ_INT(ellswift_create(ell_b, b, ent), RC_OK);
        CHECK_EQ_INT(ellswift_ecdh_x(xa, ell_b, a), RC_OK);
        CHECK_EQ_INT(ellswift_ecdh_x(xb, ell_a, b), RC_OK);
        CHECK_EQ_MEM(xa, xb, 32);
        CHECK_EQ_INT(ellswift_xdh(sa, ell_a, ell_b, a, 1), RC_OK);
        CHECK_EQ_INT(ellswift_xdh(sb, ell_b, ell_a, b, 0), RC_OK);
        CHECK_EQ_MEM(sa, sb, 32);
        /* the tagged hash of initiator || responder || x, built here by hand */
        uint8_t msg[160], want[32];
        memcpy(msg, ell_a, 64);
        memcpy(msg + 64, ell_b, 64);
        memcpy(msg + 128, xa, 32);
        hash_tagged(want, "bip324_ellswift_xonly_ecdh", msg, sizeof(msg));
        CHECK_EQ_MEM(sa, want, 32);
        /* both claiming to be the initiator disagree */
        CHECK_EQ_INT(ellswift_xdh(sb, ell_b, ell_a, b, 1), RC_OK);
        CHECK(memcmp(sa, sb, 32) != 0);
    }
    uint8_t zero[32] = {0}, ell[64] = {0}, out[32];
    CHECK_EQ_INT(ellswift_ecdh_x(out, ell, zero), RC_INVALID);
    CHECK_EQ_INT(ellswift_xdh(out, ell, ell, zero, 1), RC_INVALID);
}

/* HKDF-SHA256 against RFC 5869's test cases 1 to 3 (PRK in full, OKM's first 32 bytes: one
 * expand block). */
static void test_hkdf_sha256_rfc5869(void)
{
    static const struct {
        const char *ikm, *salt, *info, *prk, *okm32;
    } v[] = {
        {"0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "000102030405060708090a0b0c",
         "f0f1f2f3f4f5f6f7f8f9",
         "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5",
         "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf"},
        {"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a"
         "2b2c2d2e2f303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f",
         "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f808182838485868788898a"
         "8b8c8d8e8f909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeaf",
         "b0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9da"
         "dbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff",
         "06a6b88c5853361a06104c9ceb35b45cef760014904671014a193f40c15fc244",
         "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c"},
        {"0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "", "",
         "19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04",
         "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d"},
    };
    struct buf ikm, salt, info;
    buf_init(&ikm);
    buf_init(&salt);
    buf_init(&info);
    for (size_t i = 0; i < ARRAY_LEN(v); i++) {
        uint8_t prk[32], okm[32], want_prk[32], want_okm[32];
        unhex(&ikm, v[i].ikm);
        unhex(&salt, v[i].salt);
        unhex(&info, v[i].info);
        unhex_fixed(want_prk, 32, v[i].prk);
        unhex_fixed(want_okm, 32, v[i].okm32);
        hash_hkdf_sha256_extract(prk, salt.len ? salt.data : NULL, salt.len, ikm.data, ikm.len);
        CHECK_EQ_MEM(prk, want_prk, 32);
        hash_hkdf_sha256_expand32(okm, prk, info.len ? info.data : NULL, info.len);
        CHECK_EQ_MEM(okm, want_okm, 32);
    }
    buf_clear(&ikm);
    buf_clear(&salt);
    buf_clear(&info);
}

/* SHA3-256 (FIPS 202, OpenSSL's; the checksum of onion names) against Python's hashlib: the empty message, one short block, one
 * byte short of the rate (the pad's two bits in one byte), exactly the rate (a block of pad
 * alone) and several blocks. */
static void test_sha3_256_vectors(void)
{
    static const struct {
        size_t n_a; /* that many 'a' (abc for SIZE_MAX) */
        const char *hex;
    } v[] = {
        {0, "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a"},
        {SIZE_MAX, "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532"},
        {135, "8094bb53c44cfb1e67b7c30447f9a1c33696d2463ecc1d9c92538913392843c9"},
        {136, "3fc5559f14db8e453a0a3091edbd2bc25e11528d81c66fa570a4efdcc2695ee1"},
        {1000, "8f3934e6f7a15698fe0f396b95d8c4440929a8fa6eae140171c068b4549fbf81"},
    };
    uint8_t msg[1000], got[32], want[32];
    memset(msg, 'a', sizeof(msg));
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        unhex_fixed(want, 32, v[i].hex);
        if (v[i].n_a == SIZE_MAX) {
            hash_sha3_256(got, "abc", 3);
        } else {
            hash_sha3_256(got, msg, v[i].n_a);
        }
        CHECK_EQ_MEM(got, want, 32);
    }
}

int main(void)
{
    /* hash.h */
    TEST(test_sha256_nist);
    TEST(test_ellswift_decode);
    TEST(test_sha256_million_a);
    TEST(test_sha256_incremental_random_splits);
    TEST(test_sha256_ctx_copy_midstate);
    TEST(test_sha256d);
    TEST(test_ripemd160_vectors);
    TEST(test_hash160_pubkey);
    TEST(test_tagged_hash_manual);
    test_bip341_wallet_vectors();
    /* base58.h */
    test_base58_json_vectors();
    TEST(test_base58_encode_null_empty);
    TEST(test_base58_malformed);
    TEST(test_base58check_roundtrip);
    /* bech32.h */
    test_bech32_valid_checksums();
    test_bech32_invalid();
    TEST(test_bech32_encode_errors);
    test_segwit_addr_bip_vectors();
    TEST(test_segwit_addr_rules);
    test_key_io_valid();
    test_key_io_invalid();
    /* siphash.h */
    TEST(test_sha3_256_vectors);
    test_siphash_paper_vectors();
    TEST(test_siphash_uint256_forms);
    /* muhash.h */
    TEST(test_muhash_core_vectors);
    TEST(test_muhash_serialization);
    TEST(test_muhash_overflow);
    TEST(test_muhash_empty_set);
    TEST(test_muhash_identities);
    /* ellswift.h */
    TEST(test_xswiftec_inv);
    TEST(test_ellswift_create);
    TEST(test_ellswift_xdh);
    /* HKDF (hash.h) */
    TEST(test_hkdf_sha256_rfc5869);
    return test_done();
}
