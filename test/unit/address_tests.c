/* Unit tests for src/consensus/address: Bitcoin Core's key_io_valid.json and
 * key_io_invalid.json (one line per vector), plus script forms without an address.
 *
 * For each valid vector (Core's key_io_valid_parse and key_io_valid_gen):
 *   address: decodes to the scriptPubKey on its chain; the scriptPubKey encodes back to the
 *            same string; the case-flipped string decodes (to the same script) exactly when
 *            tryCaseFlip is set; it is not a WIF key.
 *   WIF key: decodes to the key with the right compression flag; encodes back to the same
 *            string; it is not an address.
 * Each invalid vector must fail both as an address and as a WIF key on every chain.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "consensus/address.h"
#include "consensus/params.h"
#include "test.h"
#include "util/buf.h"
#include "util/check.h"
#include "util/hex.h"
#include "util/rc.h"

static const char *all_chains[] = {"main", "test", "testnet4", "signet", "regtest"};

static json_t *load_vectors(const char *name)
{
    char path[4096];
    json_error_t err;
    snprintf(path, sizeof(path), "%s/vectors/%s", test_shared_dir(), name);
    json_t *j = json_load_file(path, 0, &err);
    if (j && !json_is_array(j)) {
        json_decref(j);
        j = NULL;
    }
    return j;
}

static void flip_case(char *s)
{
    for (; *s; s++) {
        if (*s >= 'a' && *s <= 'z') {
            *s = (char)(*s - 'a' + 'A');
        } else if (*s >= 'A' && *s <= 'Z') {
            *s = (char)(*s - 'A' + 'a');
        }
    }
}

static void check_address_vector(const char *addr, const char *spk_hex, int try_case_flip,
                                 const struct chain_params *p)
{
    struct buf expect, got;
    char out[ADDRESS_MAX_LEN];
    uint8_t key[32];
    int compressed;

    buf_init(&expect);
    buf_init(&got);
    CHECK_EQ_INT(hex_decode(&expect, spk_hex), RC_OK);

    /* Parse. */
    CHECK_EQ_INT(address_to_script(&got, addr, p), RC_OK);
    CHECK_EQ_INT(got.len, expect.len);
    if (got.len == expect.len) {
        CHECK_EQ_MEM(got.data, expect.data, expect.len);
    }

    /* Generate. */
    CHECK_EQ_INT(address_from_script(out, sizeof(out), expect.data, expect.len, p), RC_OK);
    CHECK_EQ_STR(out, addr);
    /* A buffer one byte short is refused, not overrun. */
    size_t need = strlen(addr) + 1;
    CHECK_EQ_INT(address_from_script(out, need - 1, expect.data, expect.len, p), RC_TOO_LARGE);
    CHECK_EQ_INT(address_from_script(out, need, expect.data, expect.len, p), RC_OK);

    /* Case flip: valid only for bech32 (and to the same script). */
    char flipped[256];
    snprintf(flipped, sizeof(flipped), "%s", addr);
    flip_case(flipped);
    buf_reset(&got);
    int rc = address_to_script(&got, flipped, p);
    CHECK_EQ_INT(rc == RC_OK, try_case_flip);
    if (rc == RC_OK) {
        CHECK_EQ_INT(got.len, expect.len);
        if (got.len == expect.len) {
            CHECK_EQ_MEM(got.data, expect.data, expect.len);
        }
    } else {
        CHECK_EQ_INT(got.len, 0); /* nothing appended on failure */
    }

    /* An address is not a private key, on this chain or any other. */
    CHECK_EQ_INT(address_decode_wif(key, &compressed, addr, p), RC_INVALID);
    CHECK_EQ_INT(address_decode_wif(key, &compressed, flipped, p), RC_INVALID);

    buf_clear(&expect);
    buf_clear(&got);
}

static void check_wif_vector(const char *wif, const char *key_hex, int is_compressed,
                             const struct chain_params *p)
{
    uint8_t expect[32], key[32];
    int compressed = -1;
    struct buf spk;

    CHECK_EQ_INT(hex_decode_fixed(expect, 32, key_hex), RC_OK);
    CHECK_EQ_INT(address_decode_wif(key, &compressed, wif, p), RC_OK);
    CHECK_EQ_MEM(key, expect, 32);
    CHECK_EQ_INT(compressed, is_compressed);

    char *enc = address_encode_wif(expect, is_compressed, p);
    CHECK_EQ_STR(enc, wif);
    free(enc);

    /* A private key is not an address. */
    buf_init(&spk);
    CHECK_EQ_INT(address_to_script(&spk, wif, p), RC_INVALID);
    CHECK_EQ_INT(spk.len, 0);
    buf_clear(&spk);
}

static int run_valid_vectors(void)
{
    json_t *v = load_vectors("key_io_valid.json");
    if (!v) {
        return -1;
    }
    size_t i, count = 0;
    json_t *t;
    json_array_foreach(v, i, t)
    {
        if (!json_is_array(t) || json_array_size(t) < 3) {
            continue; /* a comment */
        }
        const char *s = json_string_value(json_array_get(t, 0));
        const char *payload = json_string_value(json_array_get(t, 1));
        json_t *meta = json_array_get(t, 2);
        const char *chain = json_string_value(json_object_get(meta, "chain"));
        int is_priv = json_is_true(json_object_get(meta, "isPrivkey"));
        int saved = test_case_failed;
        test_case_failed = 0;
        const struct chain_params *p = chain_params_get(chain);
        CHECK(s != NULL && payload != NULL && p != NULL);
        if (s && payload && p) {
            if (is_priv) {
                int comp = json_is_true(json_object_get(meta, "isCompressed"));
                check_wif_vector(s, payload, comp, p);
            } else {
                int flip = json_is_true(json_object_get(meta, "tryCaseFlip"));
                check_address_vector(s, payload, flip, p);
            }
        }
        test_report(!test_case_failed, "key_io_valid %zu (%s, %s): %s", i, chain ? chain : "?",
                    is_priv ? "key" : "address", s ? s : "?");
        test_case_failed = saved;
        count++;
    }
    json_decref(v);
    return (int)count;
}

static int run_invalid_vectors(void)
{
    json_t *v = load_vectors("key_io_invalid.json");
    if (!v) {
        return -1;
    }
    size_t i, count = 0;
    json_t *t;
    json_array_foreach(v, i, t)
    {
        /* Every entry is a one-element array holding the string (no comments here). */
        const char *s = json_string_value(json_array_get(t, 0));
        int saved = test_case_failed;
        test_case_failed = 0;
        CHECK(s != NULL);
        for (size_t c = 0; s && c < ARRAY_LEN(all_chains); c++) {
            const struct chain_params *p = chain_params_get(all_chains[c]);
            struct buf spk;
            uint8_t key[32];
            int compressed;
            char err[256] = "";
            buf_init(&spk);
            int rc = address_to_script_err(&spk, s, p, err, sizeof(err));
            CHECK_EQ_INT(rc, RC_INVALID);
            CHECK_EQ_INT(spk.len, 0);
            CHECK(err[0] != '\0');
            if (rc == RC_OK) {
                printf("#   accepted as an address on %s\n", all_chains[c]);
            }
            CHECK_EQ_INT(address_decode_wif(key, &compressed, s, p), RC_INVALID);
            buf_clear(&spk);
        }
        test_report(!test_case_failed, "key_io_invalid %zu: \"%s\"", i, s ? s : "?");
        test_case_failed = saved;
        count++;
    }
    json_decref(v);
    return (int)count;
}

static void check_no_address(const char *spk_hex, const struct chain_params *p)
{
    struct buf spk;
    char out[ADDRESS_MAX_LEN];
    buf_init(&spk);
    CHECK_EQ_INT(hex_decode(&spk, spk_hex), RC_OK);
    int rc = address_from_script(out, sizeof(out), spk.data, spk.len, p);
    CHECK_EQ_INT(rc, RC_INVALID);
    if (rc != RC_INVALID) {
        printf("#   script %s gave an address\n", spk_hex);
    }
    buf_clear(&spk);
}

static void test_scripts_without_address(void)
{
    const struct chain_params *m = chain_params_get("main");
    /* P2PK (uncompressed and compressed). */
    check_no_address("4104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc"
                     "3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac",
                     m);
    check_no_address("2102a1633cafcc01ebfb6d78e39f687a1f0995c62fc95f51ead10a02ee0be551b5dcac", m);
    /* Bare 1-of-1 multisig, OP_RETURN, empty, OP_TRUE. */
    check_no_address("512102a1633cafcc01ebfb6d78e39f687a1f0995c62fc95f51ead10a02ee0be551b5dc51ae",
                     m);
    check_no_address("6a0568656c6c6f", m);
    check_no_address("", m);
    check_no_address("51", m);
    /* v0 programs of a size other than 20 or 32. */
    check_no_address("0015000102030405060708090a0b0c0d0e0f1011121314", m);
    check_no_address("0002abcd", m);
    /* Witness-like but malformed: a 1-byte or 41-byte program, a push of the wrong size. */
    check_no_address("5101ab", m);
    check_no_address("5129000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20212223"
                     "2425262728",
                     m);
    check_no_address("51200001", m);
    /* P2PKH/P2SH look-alikes off by one byte. */
    check_no_address("76a914a31c06bd463e3923bc1aadbde48b16976c08071788ad", m);
    check_no_address("a914373b819a068f32b7a6b38b6b38729647cfde01c288", m);
    check_no_address("a914373b819a068f32b7a6b38b6b38729647cfde01c28700", m);
}

static void test_special_addresses(void)
{
    const struct chain_params *m = chain_params_get("main");
    const struct chain_params *r = chain_params_get("regtest");
    struct buf spk;
    char out[ADDRESS_MAX_LEN];
    char err[256];

    /* Pay-to-anchor (v1, program 4e73) is an address. */
    buf_init(&spk);
    CHECK_EQ_INT(hex_decode(&spk, "51024e73"), RC_OK);
    CHECK_EQ_INT(address_from_script(out, sizeof(out), spk.data, spk.len, m), RC_OK);
    CHECK_EQ_STR(out, "bc1pfeessrawgf");
    CHECK_EQ_INT(address_from_script(out, sizeof(out), spk.data, spk.len, r), RC_OK);
    CHECK_EQ_STR(out, "bcrt1pfeesnyr2tx");
    buf_reset(&spk);
    CHECK_EQ_INT(address_to_script(&spk, "bc1pfeessrawgf", m), RC_OK);
    CHECK_EQ_INT(spk.len, 4);
    CHECK_EQ_MEM(spk.data, "\x51\x02\x4e\x73", 4);

    /* Mainnet addresses are not regtest addresses and the other way round. */
    buf_reset(&spk);
    CHECK_EQ_INT(
        address_to_script_err(&spk, "1FsSia9rv4NeEwvJ2GvXrX7LyxYspbN2mo", r, err, sizeof(err)),
        RC_INVALID);
    CHECK_EQ_STR(err, "Invalid or unsupported Base58-encoded address.");
    CHECK_EQ_INT(address_to_script_err(&spk, "bc1qvyq0cc6rahyvsazfdje0twl7ez82ndmuac2lhv",
                                       chain_params_get("test"), err, sizeof(err)),
                 RC_INVALID);
    CHECK_EQ_STR(err, "Invalid or unsupported Segwit (Bech32) or Base58 encoding.");
    /* "bcrt1..." on mainnet starts with "bc": read as bech32 with the wrong HRP. */
    CHECK_EQ_INT(address_to_script_err(&spk, "bcrt1qdavt4j2sd7dlhqsavtnfxvzppw6k7qy97tmnu9", m, err,
                                       sizeof(err)),
                 RC_INVALID);
    CHECK_EQ_STR(err, "Invalid or unsupported prefix for Segwit (Bech32) address (expected bc, "
                      "got bcrt).");
    /* A broken checksum in a Base58 address. */
    CHECK_EQ_INT(
        address_to_script_err(&spk, "1FsSia9rv4NeEwvJ2GvXrX7LyxYspbN2mp", m, err, sizeof(err)),
        RC_INVALID);
    CHECK_EQ_STR(err, "Invalid checksum or length of Base58 address (P2PKH or P2SH)");
    CHECK_EQ_INT(spk.len, 0);
    buf_clear(&spk);

    /* WIF: an out-of-range key is refused both ways. */
    uint8_t key[32];
    memset(key, 0, sizeof(key));
    CHECK(address_encode_wif(key, 1, m) == NULL);
    memset(key, 0xff, sizeof(key));
    CHECK(address_encode_wif(key, 1, m) == NULL);
    /* A mainnet key is not a testnet key. */
    int compressed;
    CHECK_EQ_INT(address_decode_wif(key, &compressed,
                                    "L5nJeqKmpHp4P7F8ZYyjwc5a7P4d8EabuGAzfGJk7yC1BJyzNaEd",
                                    chain_params_get("test")),
                 RC_INVALID);
    CHECK_EQ_INT(address_decode_wif(key, &compressed,
                                    "L5nJeqKmpHp4P7F8ZYyjwc5a7P4d8EabuGAzfGJk7yC1BJyzNaEd", m),
                 RC_OK);
    CHECK_EQ_INT(compressed, 1);
}

int main(void)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/vectors/key_io_valid.json", test_shared_dir());
    FILE *f = fopen(path, "rb");
    if (!f) {
        return test_missing_shared("vectors/key_io_valid.json");
    }
    fclose(f);

    int nvalid = run_valid_vectors();
    int ninvalid = run_invalid_vectors();
    test_report(nvalid == 70, "key_io_valid.json: %d vectors read", nvalid);
    test_report(ninvalid == 70, "key_io_invalid.json: %d vectors read", ninvalid);
    TEST(test_scripts_without_address);
    TEST(test_special_addresses);
    return test_done();
}
