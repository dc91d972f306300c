/* Unit tests for descriptor parsing and expansion (src/sign/descriptor_parse.c), BIP32
 * (src/sign/bip32.c) and message signing (src/sign/message.c).
 *
 *  - BIP32 test vectors 1, 2 and 3 (the BIP's): the master key from the seed, each step by
 *    private derivation, public derivation where the step is not hardened, and both string
 *    forms encoded and decoded; a few of the BIP's invalid extended keys (vector 5).
 *  - Bitcoin Core's descriptor_tests.cpp vectors (descriptor_vectors.h, generated): each
 *    valid descriptor parses in its private and public form, prints as the public form, has
 *    private keys only in the private form, is ranged and solvable as Core says, and expands
 *    at each position to Core's scriptPubKeys (a public form that needs hardened derivation
 *    cannot expand); the same with every ' replaced by h; multipath descriptors expand per
 *    alternative; each unparsable one fails with Core's message.
 *  - The checksum rules, and the key_io vectors' WIF keys inside pkh().
 *  - Core's rpc_validateaddress.py addresses: errors and bech32 error locations.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "consensus/address.h"
#include "consensus/params.h"
#include "crypto/hash.h"
#include "sign/bip32.h"
#include "sign/descriptor.h"
#include "sign/message.h"
#include "test.h"
#include "util/buf.h"
#include "util/check.h"
#include "util/hex.h"
#include "util/rc.h"

#define DV_RANGE 1
#define DV_HARDENED 2
#define DV_UNSOLVABLE 4
#include "descriptor_vectors.h"

static const struct chain_params *mainnet(void)
{
    return chain_params_get("main");
}

/* ---- BIP32 ------------------------------------------------------------------------------ */

struct bip32_step {
    const char *pub, *prv;
    uint32_t next; /* the child index to derive for the following step */
};

static const struct bip32_step bip32_v1[] = {
    {"xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg"
     "7usUDFdp6W1EGMcet8",
     "xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGt"
     "RBeJgk33yuGBxrMPHi",
     0x80000000},
    {"xpub68Gmy5EdvgibQVfPdqkBBCHxA5htiqg55crXYuXoQRKfDBFA1WEjWgP6LHhwBZeNK1VTsfTFUHCdrfp1bgwQ9xv5s"
     "ki8PX9rL2dZXvgGDnw",
     "xprv9uHRZZhk6KAJC1avXpDAp4MDc3sQKNxDiPvvkX8Br5ngLNv1TxvUxt4cV1rGL5hj6KCesnDYUhd7oWgT11eZG7Xnx"
     "HrnYeSvkzY7d2bhkJ7",
     1},
    {"xpub6ASuArnXKPbfEwhqN6e3mwBcDTgzisQN1wXN9BJcM47sSikHjJf3UFHKkNAWbWMiGj7Wf5uMash7SyYq527Hqck2A"
     "xYysAA7xmALppuCkwQ",
     "xprv9wTYmMFdV23N2TdNG573QoEsfRrWKQgWeibmLntzniatZvR9BmLnvSxqu53Kw1UmYPxLgboyZQaXwTCg8MSY3H2EU"
     "4pWcQDnRnrVA1xe8fs",
     0x80000002},
    {"xpub6D4BDPcP2GT577Vvch3R8wDkScZWzQzMMUm3PWbmWvVJrZwQY4VUNgqFJPMM3No2dFDFGTsxxpG5uJh7n7epu4trk"
     "rX7x7DogT5Uv6fcLW5",
     "xprv9z4pot5VBttmtdRTWfWQmoH1taj2axGVzFqSb8C9xaxKymcFzXBDptWmT7FwuEzG3ryjH4ktypQSAewRiNMjANTtp"
     "gP4mLTj34bhnZX7UiM",
     2},
    {"xpub6FHa3pjLCk84BayeJxFW2SP4XRrFd1JYnxeLeU8EqN3vDfZmbqBqaGJAyiLjTAwm6ZLRQUMv1ZACTj37sR62cfN7f"
     "e5JnJ7dh8zL4fiyLHV",
     "xprvA2JDeKCSNNZky6uBCviVfJSKyQ1mDYahRjijr5idH2WwLsEd4Hsb2Tyh8RfQMuPh7f7RtyzTtdrbdqqsunu5Mm3wD"
     "vUAKRHSC34sJ7in334",
     1000000000},
    {"xpub6H1LXWLaKsWFhvm6RVpEL9P4KfRZSW7abD2ttkWP3SSQvnyA8FSVqNTEcYFgJS2UaFcxupHiYkro49S8yGasTvXEY"
     "BVPamhGW6cFJodrTHy",
     "xprvA41z7zogVVwxVSgdKUHDy1SKmdb533PjDz7J6N6mV6uS3ze1ai8FHa8kmHScGpWmj4WggLyQjgPie1rFSruoUihUZ"
     "REPSL39UNdE3BBDu76",
     0},
};

static const struct bip32_step bip32_v2[] = {
    {"xpub661MyMwAqRbcFW31YEwpkMuc5THy2PSt5bDMsktWQcFF8syAmRUapSCGu8ED9W6oDMSgv6Zz8idoc4a6mr8BDzTJY"
     "47LJhkJ8UB7WEGuduB",
     "xprv9s21ZrQH143K31xYSDQpPDxsXRTUcvj2iNHm5NUtrGiGG5e2DtALGdso3pGz6ssrdK4PFmM8NSpSBHNqPqm55Qn3L"
     "qFtT2emdEXVYsCzC2U",
     0},
    {"xpub69H7F5d8KSRgmmdJg2KhpAK8SR3DjMwAdkxj3ZuxV27CprR9LgpeyGmXUbC6wb7ERfvrnKZjXoUmmDznezpbZb7ap"
     "6r1D3tgFxHmwMkQTPH",
     "xprv9vHkqa6EV4sPZHYqZznhT2NPtPCjKuDKGY38FBWLvgaDx45zo9WQRUT3dKYnjwih2yJD9mkrocEZXo1ex8G81dwSM"
     "1fwqWpWkeS3v86pgKt",
     0xFFFFFFFF},
    {"xpub6ASAVgeehLbnwdqV6UKMHVzgqAG8Gr6riv3Fxxpj8ksbH9ebxaEyBLZ85ySDhKiLDBrQSARLq1uNRts8RuJiHjaDM"
     "BU4Zn9h8LZNnBC5y4a",
     "xprv9wSp6B7kry3Vj9m1zSnLvN3xH8RdsPP1Mh7fAaR7aRLcQMKTR2vidYEeEg2mUCTAwCd6vnxVrcjfy2kRgVsFawNzm"
     "juHc2YmYRmagcEPdU9",
     1},
    {"xpub6DF8uhdarytz3FWdA8TvFSvvAh8dP3283MY7p2V4SeE2wyWmG5mg5EwVvmdMVCQcoNJxGoWaU9DCWh89LojfZ537w"
     "TfunKau47EL2dhHKon",
     "xprv9zFnWC6h2cLgpmSA46vutJzBcfJ8yaJGg8cX1e5StJh45BBciYTRXSd25UEPVuesF9yog62tGAQtHjXajPPdbRCHu"
     "WS6T8XA2ECKADdw4Ef",
     0xFFFFFFFE},
    {"xpub6ERApfZwUNrhLCkDtcHTcxd75RbzS1ed54G1LkBUHQVHQKqhMkhgbmJbZRkrgZw4koxb5JaHWkY4ALHY2grBGRjaD"
     "MzQLcgJvLJuZZvRcEL",
     "xprvA1RpRA33e1JQ7ifknakTFpgNXPmW2YvmhqLQYMmrj4xJXXWYpDPS3xz7iAxn8L39njGVyuoseXzU6rcxFLJ8HFsTj"
     "SyQbLYnMpCqE2VbFWc",
     2},
    {"xpub6FnCn6nSzZAw5Tw7cgR9bi15UV96gLZhjDstkXXxvCLsUXBGXPdSnLFbdpq8p9HmGsApME5hQTZ3emM2rnY5agb9r"
     "XpVGyy3bdW6EEgAtqt",
     "xprvA2nrNbFZABcdryreWet9Ea4LvTJcGsqrMzxHx98MMrotbir7yrKCEXw7nadnHM8Dq38EGfSh6dqA9QWTyefMLEcBY"
     "JUuekgW4BYPJcr9E7j",
     0},
};

/* Vector 3: the retention of leading zeros of the private key in hardened derivation. */
static const struct bip32_step bip32_v3[] = {
    {"xpub661MyMwAqRbcEZVB4dScxMAdx6d4nFc9nvyvH3v4gJL378CSRZiYmhRoP7mBy6gSPSCYk6SzXPTf3ND1cZAceL7Sf"
     "J1Z3GC8vBgp2epUt13",
     "xprv9s21ZrQH143K25QhxbucbDDuQ4naNntJRi4KUfWT7xo4EKsHt2QJDu7KXp1A3u7Bi1j8ph3EGsZ9Xvz9dGuVrtHHs"
     "7pXeTzjuxBrCmmhgC6",
     0x80000000},
    {"xpub68NZiKmJWnxxS6aaHmn81bvJeTESw724CRDs6HbuccFQN9Ku14VQrADWgqbhhTHBaohPX4CjNLf9fq9MYo6oDaPPL"
     "PxSb7gwQN3ih19Zm4Y",
     "xprv9uPDJpEQgRQfDcW7BkF7eTya6RPxXeJCqCJGHuCJ4GiRVLzkTXBAJMu2qaMWPrS7AANYqdq6vcBcBUdJCVVFceUvJ"
     "FjaPdGZ2y9WACViL4L",
     0},
};

static void run_bip32(const char *seed_hex, const struct bip32_step *steps, size_t n)
{
    struct buf seed;
    buf_init(&seed);
    CHECK(hex_decode(&seed, seed_hex) == RC_OK);
    struct bip32_key k, pubk, dec;
    CHECK(bip32_from_seed(&k, seed.data, seed.len) == RC_OK);
    pubk = k;
    bip32_key_wipe(&pubk);
    for (size_t i = 0; i < n; i++) {
        char *pub = bip32_encode_pub(&k, mainnet()), *prv = bip32_encode_priv(&k, mainnet());
        char *pub2 = bip32_encode_pub(&pubk, mainnet());
        CHECK_EQ_STR(pub, steps[i].pub);
        CHECK_EQ_STR(prv, steps[i].prv);
        CHECK_EQ_STR(pub2, steps[i].pub);
        CHECK(bip32_decode(&dec, steps[i].prv, mainnet()) == RC_OK && dec.has_secret);
        CHECK_EQ_MEM(dec.secret32, k.secret32, 32);
        CHECK_EQ_MEM(dec.chaincode, k.chaincode, 32);
        CHECK(bip32_decode(&dec, steps[i].pub, mainnet()) == RC_OK && !dec.has_secret);
        CHECK_EQ_MEM(dec.pubkey33, k.pubkey33, 33);
        CHECK(dec.depth == k.depth && dec.child == k.child);
        free(pub);
        free(prv);
        free(pub2);
        uint32_t next = steps[i].next;
        CHECK(bip32_derive(&k, &k, next) == RC_OK);
        if (next & BIP32_HARDENED) {
            CHECK(bip32_derive(&dec, &pubk, next) == RC_INVALID);
            pubk = k;
            bip32_key_wipe(&pubk);
        } else {
            CHECK(bip32_derive(&pubk, &pubk, next) == RC_OK);
        }
    }
    bip32_key_wipe(&k);
    buf_clear(&seed);
}

static void test_bip32_vector1(void)
{
    run_bip32("000102030405060708090a0b0c0d0e0f", bip32_v1, ARRAY_LEN(bip32_v1));
}

static void test_bip32_vector2(void)
{
    run_bip32(
        "fffcf9f6f3f0edeae7e4e1dedbd8d5d2cfccc9c6c3c0bdbab7b4b1aeaba8a5a29f9c999693908d8a8784817"
        "e7b7875726f6c696663605d5a5754514e4b484542",
        bip32_v2, ARRAY_LEN(bip32_v2));
}

static void test_bip32_vector3(void)
{
    run_bip32(
        "4b381541583be4423346c643850da4b320e46a87ae3d2a4e6da11eba819cd4acba45d239319ac14f863b8d5"
        "ab5a0d0c64d2e8a1e7d1457df2e5a3c51c73235be",
        bip32_v3, ARRAY_LEN(bip32_v3));
}

/* BIP32 vector 5: invalid extended keys. */
static void test_bip32_invalid(void)
{
    static const char *bad[] = {
        /* pubkey version / prvkey mismatch */
        "xpub661MyMwAqRbcEYS8w7XLSVeEsBXy79zSzH1J8vCdxAZningWLdN3zgtU6LBpB85b3D2yc8sfvZU521AAwdZafE"
        "z7"
        "mnzBBsz4wKY5fTtTQBm",
        /* prvkey version / pubkey mismatch */
        "xprv9s21ZrQH143K24Mfq5zL5MhWK9hUhhGbd45hLXo2Pq2oqzMMo63oStZzFGTQQD3dC4H2D5GBj7vWvSQaaBv5cx"
        "i9"
        "gafk7NF3pnBju6dwKvH",
        /* invalid pubkey prefix 04 */
        "xpub661MyMwAqRbcEYS8w7XLSVeEsBXy79zSzH1J8vCdxAZningWLdN3zgtU6Txnt3siSujt9RCVYsx4qHZGc62TG4"
        "Mc"
        "vMGcAUjeuwZdduYEvFn",
        /* invalid prvkey prefix 04 */
        "xprv9s21ZrQH143K24Mfq5zL5MhWK9hUhhGbd45hLXo2Pq2oqzMMo63oStZzFGpWnsj83BHtEy5Zt8CcDr1UiRXuWC"
        "mT"
        "QLxEK9vbz5gPstX92JQ",
        /* zero depth with non-zero parent fingerprint */
        "xprv9s2SPatNQ9Vc6GTbVMFPFo7jsaZySyzk7L8n2uqKXJen3KUmvQNTuLh3fhZMBoG3G4ZW1N2kZuHEPY53qmbZzC"
        "Hs"
        "hoQnNf4GvELZfqTUrcv",
        /* zero depth with non-zero index */
        "xpub661MyMwAuDcm6CRQ5N4qiHKrJ39Xe1R1NyfouMKTTWcguwVcfrZJaNvhpebzGerh7gucBvzEQWRugZDuDXjNDR"
        "mX"
        "zSZe4c7mnTK97pTvGS8",
        /* unknown version */
        "DMwo58pR1QLEFihHiXPVykYB6fJmsTeHvyTp7hRThAtCX8CvYzgPcn8XnmdfHGMQzT7ayAmfo4z3gY5KfbrZWZ6St2"
        "4U"
        "Vf2Qgo6oujFktLHdHY4",
        /* private key 0 not in 1..n-1 */
        "xprv9s21ZrQH143K24Mfq5zL5MhWK9hUhhGbd45hLXo2Pq2oqzMMo63oStZzF93Y5wvzdUayhgkkFoicQZcP3y52uP"
        "Px"
        "FnfoLZB21Teqt1VvEHx",
        /* invalid pubkey 020000000000000000000000000000000000000000000000000000000000000007 */
        "xpub661MyMwAqRbcEYS8w7XLSVeEsBXy79zSzH1J8vCdxAZningWLdN3zgtU6Q5JXayek4PRsn35jii4veMimro1xe"
        "fs"
        "M58PgBMrvdYre8QyULY",
        /* invalid checksum */
        "xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3"
        "TG"
        "tRBeJgk33yuGBxrMPHL",
    };
    struct bip32_key k;
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        if (bip32_decode(&k, bad[i], mainnet()) != RC_INVALID) {
            printf("# accepted invalid key %zu\n", i);
            CHECK(0);
        }
    }
    /* An xpub of main is not a key on testnet. */
    CHECK(bip32_decode(&k, bip32_v1[0].pub, chain_params_get("test")) == RC_INVALID);
}

/* ---- descriptors ------------------------------------------------------------------------ */

/* Core's EqualDescriptor: a checksum on only one side is ignored. */
static int equal_desc(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    int ca = la > 9 && a[la - 9] == '#', cb = lb > 9 && b[lb - 9] == '#';
    if (ca != cb) {
        la -= ca ? 9 : 0;
        lb -= cb ? 9 : 0;
    }
    return la == lb && memcmp(a, b, la) == 0;
}

/* Replaces every ' by h and drops a checksum (now wrong), as Core's UseHInsteadOfApostrophe
 * does (it recomputes it). */
static char *use_h(const char *s)
{
    char *r = strdup(s);
    size_t n = strlen(r);
    int had = strchr(r, '\'') != NULL;
    for (char *c = r; *c; c++) {
        if (*c == '\'') {
            *c = 'h';
        }
    }
    if (had && n > 9 && r[n - 9] == '#') {
        r[n - 9] = 0;
    }
    return r;
}

static struct script_descriptor *parse_ok(const char *s, const char *what)
{
    struct script_descriptor *d = NULL;
    char *err = NULL;
    if (script_descriptor_parse(&d, s, 0, mainnet(), &err) != RC_OK) {
        printf("# %s: %s fails: %s\n", what, s, err);
        free(err);
        return NULL;
    }
    return d;
}

static char *to_string(const struct script_descriptor *d, size_t alt)
{
    struct buf b;
    buf_init(&b);
    script_descriptor_to_string(&b, d, alt);
    return (char *)b.data;
}

/* Expands d at pos and compares with want (NULL-terminated hex scripts). */
static int expand_matches(const struct script_descriptor *d, size_t alt, uint32_t pos,
                          const char *const *want)
{
    struct buf spks[SCRIPT_DESC_MAX_SCRIPTS];
    size_t n = 0, nw = 0;
    int ok = 1;
    for (size_t i = 0; i < SCRIPT_DESC_MAX_SCRIPTS; i++) {
        buf_init(&spks[i]);
    }
    while (nw < 5 && want[nw]) {
        nw++;
    }
    if (script_descriptor_expand(d, alt, pos, spks, &n) != RC_OK || n != nw) {
        printf("# expand at %u: %zu scripts, want %zu\n", pos, n, nw);
        ok = 0;
    }
    for (size_t i = 0; ok && i < n; i++) {
        char *h = hex_encode_alloc(spks[i].data, spks[i].len);
        if (strcmp(h, want[i]) != 0) {
            printf("# expand at %u script %zu: %s, want %s\n", pos, i, h, want[i]);
            ok = 0;
        }
        free(h);
    }
    for (size_t i = 0; i < SCRIPT_DESC_MAX_SCRIPTS; i++) {
        buf_clear(&spks[i]);
    }
    return ok;
}

static int check_one(const char *prv_in, const char *pub_in, const struct dv_check *v, int h)
{
    char *prv = h ? use_h(prv_in) : strdup(prv_in), *pub = h ? use_h(pub_in) : strdup(pub_in);
    struct script_descriptor *dp = parse_ok(prv, "prv"), *du = parse_ok(pub, "pub");
    int ok = dp && du;
    if (ok) {
        char *s1 = to_string(dp, 0), *s2 = to_string(du, 0);
        if (!equal_desc(pub, s1) || !equal_desc(pub, s2)) {
            printf("# printed %s / %s, want %s\n", s1, s2, pub);
            ok = 0;
        }
        free(s1);
        free(s2);
        ok &= script_descriptor_has_private_keys(dp) && !script_descriptor_has_private_keys(du);
        ok &= script_descriptor_is_range(dp) == !!(v->flags & DV_RANGE);
        ok &= script_descriptor_is_range(du) == !!(v->flags & DV_RANGE);
        ok &= script_descriptor_is_solvable(dp) == !(v->flags & DV_UNSOLVABLE);
        for (size_t pos = 0; pos < v->n_pos; pos++) {
            ok &= expand_matches(dp, 0, (uint32_t)pos, v->scripts[pos]);
            if (v->flags & DV_HARDENED) {
                struct buf spks[SCRIPT_DESC_MAX_SCRIPTS];
                size_t n;
                for (size_t i = 0; i < SCRIPT_DESC_MAX_SCRIPTS; i++) {
                    buf_init(&spks[i]);
                }
                ok &= script_descriptor_expand(du, 0, (uint32_t)pos, spks, &n) == RC_INVALID;
            } else {
                ok &= expand_matches(du, 0, (uint32_t)pos, v->scripts[pos]);
            }
        }
    }
    script_descriptor_free(dp);
    script_descriptor_free(du);
    free(prv);
    free(pub);
    return ok;
}

static void test_core_vectors(void)
{
    for (size_t i = 0; i < ARRAY_LEN(dv_checks); i++) {
        const struct dv_check *v = &dv_checks[i];
        int ok = check_one(v->prv, v->pub, v, 0);
        if (strchr(v->prv, '\'') && strchr(v->pub, '\'')) {
            ok &= check_one(v->prv, v->pub, v, 1);
        }
        test_report(ok, "core vector %zu: %.60s", i, v->pub);
    }
}

static void test_core_multipath(void)
{
    for (size_t i = 0; i < ARRAY_LEN(dv_multis); i++) {
        const struct dv_multi *v = &dv_multis[i];
        struct script_descriptor *dp = parse_ok(v->prv, "prv"), *du = parse_ok(v->pub, "pub");
        int ok = dp && du;
        ok &= ok && script_descriptor_multipath_count(dp) == v->n_alt &&
              script_descriptor_multipath_count(du) == v->n_alt;
        for (size_t a = 0; ok && a < v->n_alt; a++) {
            char *s1 = to_string(dp, a), *s2 = to_string(du, a);
            if (!equal_desc(v->pubs[a], s1) || !equal_desc(v->pubs[a], s2)) {
                printf("# alt %zu printed %s / %s, want %s\n", a, s1, s2, v->pubs[a]);
                ok = 0;
            }
            free(s1);
            free(s2);
            for (size_t pos = 0; pos < v->n_pos; pos++) {
                ok &= expand_matches(dp, a, (uint32_t)pos, v->scripts[a][pos]);
                if (!(v->flags & DV_HARDENED)) {
                    ok &= expand_matches(du, a, (uint32_t)pos, v->scripts[a][pos]);
                }
            }
        }
        script_descriptor_free(dp);
        script_descriptor_free(du);
        test_report(ok, "core multipath vector %zu: %.60s", i, v->pub);
    }
}

static void test_core_unparsable(void)
{
    for (size_t i = 0; i < ARRAY_LEN(dv_bads); i++) {
        const struct dv_bad *v = &dv_bads[i];
        struct script_descriptor *d = NULL;
        char *err = NULL, *err_prv = NULL;
        int ok = script_descriptor_parse(&d, v->prv, 0, mainnet(), &err_prv) == RC_INVALID;
        ok &= script_descriptor_parse(&d, v->pub, 0, mainnet(), &err) == RC_INVALID;
        /* Core's test keeps one error string for both parses: the public one's, unless that
         * one left it untouched. */
        const char *got = err && *err ? err : err_prv ? err_prv : "";
        if (strcmp(got, v->err) != 0) {
            printf("# error \"%s\", want \"%s\"\n", got, v->err);
            ok = 0;
        }
        free(err);
        free(err_prv);
        test_report(ok && !d, "core unparsable %zu: %.60s", i, v->err);
    }
}

static void expect_error(const char *desc, int require_checksum, const char *want)
{
    struct script_descriptor *d = NULL;
    char *err = NULL;
    int rc = script_descriptor_parse(&d, desc, require_checksum, mainnet(), &err);
    CHECK_EQ_INT(rc, RC_INVALID);
    CHECK(d == NULL);
    CHECK_EQ_STR(err, want);
    free(err);
}

static void test_checksum_rules(void)
{
    const char *k = "03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd";
    char desc[200], with[220];
    snprintf(desc, sizeof(desc), "pkh(%s)", k);
    expect_error(desc, 1, "Missing checksum");
    struct script_descriptor *d = parse_ok(desc, "no checksum");
    CHECK(d != NULL);
    char *s = d ? to_string(d, 0) : NULL;
    CHECK(s && strlen(s) == strlen(desc) + 9);
    snprintf(with, sizeof(with), "%s", s ? s : "");
    script_descriptor_free(d);
    free(s);
    /* The printed form's checksum is accepted, also when required. */
    struct script_descriptor *d2 = NULL;
    CHECK(script_descriptor_parse(&d2, with, 1, mainnet(), NULL) == RC_OK);
    script_descriptor_free(d2);
    with[strlen(with) - 1] ^= 1;
    CHECK(script_descriptor_parse(&d2, with, 0, mainnet(), NULL) == RC_INVALID);
    expect_error("raw(00)#", 0, "Expected 8 character checksum, not 0 characters");
    expect_error("raw(00)#a#b", 0, "Multiple '#' symbols");
    /* Trailing text after a whole expression: Core's message is empty. */
    expect_error("raw(00))", 0, "");
    expect_error("raw(00)x", 0, "'raw(00)x' is not a valid descriptor function");
    expect_error("sh(pk(03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd),x)", 0,
                 "");
    expect_error(
        "wsh(and_v(v:pk(03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd),"
        "older(1)))",
        0, "A function is needed within P2WSH");
    expect_error("pk(musig(02,03))", 0, "pk(): musig() is only allowed in tr() and rawtr()");
}

/* pkh() inside tr(): the hash of the x-only key (Core's miniscript pkh in tapscript). */
static void test_tr_pkh_leaf(void)
{
    const char *x = "a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd";
    char desc[300];
    snprintf(desc, sizeof(desc), "tr(%s,pkh(%s))", x, x);
    struct script_descriptor *d = parse_ok(desc, "tr pkh");
    CHECK(d != NULL);
    if (d) {
        char *s = to_string(d, 0);
        CHECK(equal_desc(desc, s));
        free(s);
        struct buf spks[SCRIPT_DESC_MAX_SCRIPTS];
        size_t n = 0;
        for (size_t i = 0; i < SCRIPT_DESC_MAX_SCRIPTS; i++) {
            buf_init(&spks[i]);
        }
        CHECK(script_descriptor_expand(d, 0, 0, spks, &n) == RC_OK && n == 1);
        CHECK(spks[0].len == 34 && spks[0].data[0] == 0x51);
        buf_clear(&spks[0]);
    }
    script_descriptor_free(d);
}

/* Every WIF key of Core's key_io_valid.json works as pkh(KEY) on its chain, and prints as
 * its public key. */
static void test_key_io_wif(void)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/vectors/key_io_valid.json", test_shared_dir());
    json_t *j = json_load_file(path, 0, NULL);
    if (!j) {
        printf("# %s missing: skipped\n", path);
        return;
    }
    size_t i, n_wif = 0;
    json_t *v;
    json_array_foreach(j, i, v)
    {
        json_t *meta = json_array_get(v, 2);
        if (!json_is_true(json_object_get(meta, "isPrivkey"))) {
            continue;
        }
        const char *chain = json_string_value(json_object_get(meta, "chain"));
        const struct chain_params *p = chain_params_get(chain);
        int compressed = json_is_true(json_object_get(meta, "isCompressed"));
        char desc[200];
        snprintf(desc, sizeof(desc), "%s(%s)", compressed ? "wpkh" : "pkh",
                 json_string_value(json_array_get(v, 0)));
        struct script_descriptor *d = NULL;
        char *err = NULL;
        if (script_descriptor_parse(&d, desc, 0, p, &err) != RC_OK) {
            printf("# %s: %s\n", desc, err);
            free(err);
            CHECK(0);
            continue;
        }
        CHECK(script_descriptor_has_private_keys(d));
        char *s = to_string(d, 0);
        CHECK(strstr(s, compressed ? "wpkh(0" : "pkh(04") == s);
        free(s);
        script_descriptor_free(d);
        n_wif++;
    }
    CHECK(n_wif > 0);
    json_decref(j);
}

/* Core's rpc_validateaddress.py data (mainnet): the error and error locations of each
 * invalid address (bech32 error location included), the script of each valid one. */
static void test_validateaddress_vectors(void)
{
    for (size_t i = 0; i < ARRAY_LEN(dv_addr_bads); i++) {
        const struct dv_addr_bad *v = &dv_addr_bads[i];
        struct buf spk;
        char err[256];
        int locs[128];
        size_t n = 99;
        buf_init(&spk);
        int rc = address_to_script_err_loc(&spk, v->addr, mainnet(), err, sizeof(err), locs, &n);
        int ok = rc == RC_INVALID && strcmp(err, v->err) == 0 && n == (size_t)v->n_locs;
        for (size_t j = 0; ok && j < n; j++) {
            ok = locs[j] == v->locs[j];
        }
        if (!ok) {
            printf("# %s: \"%s\" with %zu locations (first %d), want \"%s\" with %d\n", v->addr,
                   err, n, n ? locs[0] : -1, v->err, v->n_locs);
        }
        CHECK(ok);
        buf_clear(&spk);
    }
    for (size_t i = 0; i < ARRAY_LEN(dv_addr_oks); i++) {
        struct buf spk;
        buf_init(&spk);
        CHECK(address_to_script(&spk, dv_addr_oks[i].addr, mainnet()) == RC_OK);
        char *h = hex_encode_alloc(spk.data, spk.len);
        CHECK_EQ_STR(h, dv_addr_oks[i].spk);
        free(h);
        buf_clear(&spk);
    }
}

/* What scantxoutset prints: each script inferred with what its expansion told (Core's
 * InferDescriptor over the expansion's FlatSigningProvider): keys with their origins, the
 * scripts inside sh(). Expected strings from Core's rpc_scantxoutset.py. */
static void test_infer_with_origins(void)
{
    const struct chain_params *tn = chain_params_get("test");
    const char *xprv = "tprv8ZgxMBicQKsPd7Uf69XL1XwhmjHopUGep8GuEiJDZmbQz6o58LninorQAfcKZWARbtRt"
                       "fnLcJ5MQ2AtHcQJCCRUcMRvmDUjyEmNUWwx8UbK";
    char desc[300];
    snprintf(desc, sizeof(desc), "combo(%s/0h/0h/*)", xprv);
    struct script_descriptor *d = NULL;
    CHECK(script_descriptor_parse(&d, desc, 0, tn, NULL) == RC_OK);
    struct buf spks[SCRIPT_DESC_MAX_SCRIPTS], out;
    for (size_t i = 0; i < SCRIPT_DESC_MAX_SCRIPTS; i++) {
        buf_init(&spks[i]);
    }
    buf_init(&out);
    struct script_desc_provider prov;
    script_desc_provider_init(&prov);
    size_t n = 0;
    CHECK(d && script_descriptor_expand_with(d, 0, 1, spks, &n, &prov) == RC_OK && n == 4);
    if (n == 4) {
        script_descriptor_infer_with(&out, spks[1].data, spks[1].len, &prov, tn);
        CHECK_EQ_STR((char *)out.data, "pkh([0c5f9a1e/0h/0h/1]033e6f25d76c00bedb3a8993c7d5739ee806"
                                       "397f0529b1b31dda31ef890f19a60c)#mcjajulr");
        buf_reset(&out);
        script_descriptor_infer_with(&out, spks[3].data, spks[3].len, &prov, tn);
        CHECK(strncmp((char *)out.data, "sh(wpkh([0c5f9a1e/0h/0h/1]033e6f25", 33) == 0);
        buf_reset(&out);
        /* Without the provider: the address, as before. */
        script_descriptor_infer(&out, spks[1].data, spks[1].len, NULL, 0, tn);
        CHECK(strncmp((char *)out.data, "addr(", 5) == 0);
    }
    script_desc_provider_clear(&prov);
    script_descriptor_free(d);
    /* A constant key without an origin gets its key id's first four bytes (Core's
     * ConstPubkeyProvider). */
    const char *pub = "026dbd8b2315f296d36e6b6920b1579ca75569464875c7ebe869b536a7d9503c8c";
    snprintf(desc, sizeof(desc), "pkh(%s)", pub);
    d = NULL;
    CHECK(script_descriptor_parse(&d, desc, 0, tn, NULL) == RC_OK);
    script_desc_provider_init(&prov);
    for (size_t i = 0; i < SCRIPT_DESC_MAX_SCRIPTS; i++) {
        buf_reset(&spks[i]);
    }
    CHECK(d && script_descriptor_expand_with(d, 0, 0, spks, &n, &prov) == RC_OK && n == 1);
    buf_reset(&out);
    script_descriptor_infer_with(&out, spks[0].data, spks[0].len, &prov, tn);
    uint8_t id[20], key[33];
    CHECK(hex_decode_fixed(key, 33, pub) == RC_OK);
    hash_hash160(id, key, 33);
    char want[120], fpr[9];
    hex_encode(fpr, id, 4);
    snprintf(want, sizeof(want), "pkh([%s]%s)", fpr, pub);
    CHECK(strncmp((char *)out.data, want, strlen(want)) == 0);
    script_desc_provider_clear(&prov);
    script_descriptor_free(d);
    for (size_t i = 0; i < SCRIPT_DESC_MAX_SCRIPTS; i++) {
        buf_clear(&spks[i]);
    }
    buf_clear(&out);
}

int main(void)
{
    TEST(test_bip32_vector1);
    TEST(test_bip32_vector2);
    TEST(test_bip32_vector3);
    TEST(test_bip32_invalid);
    test_core_vectors();
    test_core_multipath();
    test_core_unparsable();
    TEST(test_checksum_rules);
    TEST(test_tr_pkh_leaf);
    TEST(test_infer_with_origins);
    TEST(test_key_io_wif);
    TEST(test_validateaddress_vectors);
    return test_done();
}
