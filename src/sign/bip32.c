/* BIP32 extended keys and child key derivation. See bip32.h. */
#include "sign/bip32.h"

#include <string.h>

#include <secp256k1.h>

#include "crypto/base58.h"
#include "crypto/hash.h"
#include "script/sigcheck.h"
#include "util/buf.h"
#include "util/rc.h"

/* Serialized size without the version prefix (Core's BIP32_EXTKEY_SIZE). */
#define EXTKEY_SIZE 74

static void wipe(void *p, size_t n)
{
    volatile uint8_t *v = p;
    while (n--) {
        *v++ = 0;
    }
}

void bip32_key_wipe(struct bip32_key *k)
{
    wipe(k->secret32, sizeof(k->secret32));
    k->has_secret = 0;
}

void bip32_fingerprint(uint8_t out4[4], const struct bip32_key *k)
{
    uint8_t h[20];
    hash_hash160(h, k->pubkey33, 33);
    memcpy(out4, h, 4);
}

/* Sets the key part of k from a secret; 0 or RC_INVALID. */
static int set_secret(struct bip32_key *k, const uint8_t secret32[32])
{
    size_t len = 0;
    uint8_t pub[65];
    if (script_pubkey_from_secret(pub, &len, secret32, 1) != RC_OK) {
        return RC_INVALID;
    }
    memcpy(k->pubkey33, pub, 33);
    memcpy(k->secret32, secret32, 32);
    k->has_secret = 1;
    return RC_OK;
}

int bip32_from_seed(struct bip32_key *out, const uint8_t *seed, size_t seed_len)
{
    static const char tag[] = "Bitcoin seed";
    uint8_t i64[64];
    memset(out, 0, sizeof(*out));
    hash_hmac_sha512(i64, tag, sizeof(tag) - 1, seed, seed_len);
    memcpy(out->chaincode, i64 + 32, 32);
    int rc = set_secret(out, i64);
    wipe(i64, sizeof(i64));
    return rc;
}

int bip32_decode(struct bip32_key *out, const char *s, const struct chain_params *p)
{
    const struct base58_prefix *pub = &p->base58[BASE58_EXT_PUBLIC_KEY];
    const struct base58_prefix *prv = &p->base58[BASE58_EXT_SECRET_KEY];
    struct buf data;
    int rc = RC_INVALID;

    memset(out, 0, sizeof(*out));
    buf_init(&data);
    if (base58check_decode(&data, s, 78) != RC_OK || data.len < 4) {
        goto out;
    }
    int is_pub = data.len == EXTKEY_SIZE + pub->len && memcmp(data.data, pub->bytes, pub->len) == 0;
    int is_prv = data.len == EXTKEY_SIZE + prv->len && memcmp(data.data, prv->bytes, prv->len) == 0;
    if (!is_pub && !is_prv) {
        goto out;
    }
    const uint8_t *c = data.data + (is_pub ? pub->len : prv->len);
    out->depth = c[0];
    memcpy(out->parent_fpr, c + 1, 4);
    out->child = rd_u32be(c + 5);
    memcpy(out->chaincode, c + 9, 32);
    static const uint8_t zero4[4] = {0};
    if (out->depth == 0 && (out->child != 0 || memcmp(out->parent_fpr, zero4, 4) != 0)) {
        goto out;
    }
    if (is_pub) {
        secp256k1_pubkey pk;
        if ((c[41] != 2 && c[41] != 3) ||
            !secp256k1_ec_pubkey_parse(script_secp_ctx(), &pk, c + 41, 33)) {
            goto out;
        }
        memcpy(out->pubkey33, c + 41, 33);
        rc = RC_OK;
    } else if (c[41] == 0) {
        rc = set_secret(out, c + 42);
    }
out:
    wipe(data.data, data.cap);
    buf_clear(&data);
    if (rc != RC_OK) {
        bip32_key_wipe(out);
    }
    return rc;
}

static char *encode(const struct bip32_key *k, const struct base58_prefix *prefix, int priv)
{
    uint8_t b[4 + EXTKEY_SIZE];
    size_t n = prefix->len;
    memcpy(b, prefix->bytes, n);
    b[n] = k->depth;
    memcpy(b + n + 1, k->parent_fpr, 4);
    wr_u32be(b + n + 5, k->child);
    memcpy(b + n + 9, k->chaincode, 32);
    if (priv) {
        b[n + 41] = 0;
        memcpy(b + n + 42, k->secret32, 32);
    } else {
        memcpy(b + n + 41, k->pubkey33, 33);
    }
    char *s = base58check_encode(b, n + EXTKEY_SIZE);
    wipe(b, sizeof(b));
    return s;
}

char *bip32_encode_pub(const struct bip32_key *k, const struct chain_params *p)
{
    return encode(k, &p->base58[BASE58_EXT_PUBLIC_KEY], 0);
}

char *bip32_encode_priv(const struct bip32_key *k, const struct chain_params *p)
{
    return encode(k, &p->base58[BASE58_EXT_SECRET_KEY], 1);
}

int bip32_derive(struct bip32_key *child, const struct bip32_key *parent, uint32_t index)
{
    const secp256k1_context *ctx = script_secp_ctx();
    uint8_t msg[37], i64[64];
    int rc = RC_INVALID;

    if (parent->depth == 255 || ((index & BIP32_HARDENED) && !parent->has_secret)) {
        return RC_INVALID;
    }
    if (index & BIP32_HARDENED) {
        msg[0] = 0;
        memcpy(msg + 1, parent->secret32, 32);
    } else {
        memcpy(msg, parent->pubkey33, 33);
    }
    wr_u32be(msg + 33, index);
    hash_hmac_sha512(i64, parent->chaincode, 32, msg, sizeof(msg));

    struct bip32_key k;
    memset(&k, 0, sizeof(k));
    k.depth = (uint8_t)(parent->depth + 1);
    bip32_fingerprint(k.parent_fpr, parent);
    k.child = index;
    memcpy(k.chaincode, i64 + 32, 32);
    if (parent->has_secret) {
        uint8_t sec[32];
        memcpy(sec, parent->secret32, 32);
        /* tweak_add fails when IL >= n or the sum is 0: BIP32's "invalid child". */
        if (secp256k1_ec_seckey_tweak_add(ctx, sec, i64)) {
            rc = set_secret(&k, sec);
        }
        wipe(sec, sizeof(sec));
    } else {
        secp256k1_pubkey pk;
        size_t len = 33;
        if (secp256k1_ec_pubkey_parse(ctx, &pk, parent->pubkey33, 33) &&
            secp256k1_ec_pubkey_tweak_add(ctx, &pk, i64)) {
            secp256k1_ec_pubkey_serialize(ctx, k.pubkey33, &len, &pk, SECP256K1_EC_COMPRESSED);
            rc = RC_OK;
        }
    }
    wipe(msg, sizeof(msg));
    wipe(i64, sizeof(i64));
    if (rc == RC_OK) {
        *child = k;
    }
    wipe(&k, sizeof(k));
    return rc;
}
