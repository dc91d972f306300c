#include "coins/coin.h"

#include <secp256k1.h>
#include <string.h>

#include "primitives/serialize.h"
#include "util/rc.h"
#include "util/xmalloc.h"

void coin_clear(struct coin *c)
{
    free(c->script_pubkey.data);
    memset(c, 0, sizeof(*c));
}

uint64_t coin_compress_amount(uint64_t n)
{
    if (n == 0) {
        return 0;
    }
    int e = 0;
    while ((n % 10) == 0 && e < 9) {
        n /= 10;
        e++;
    }
    if (e < 9) {
        uint64_t d = n % 10;
        n /= 10;
        return 1 + (n * 9 + d - 1) * 10 + (uint64_t)e;
    }
    return 1 + (n - 1) * 10 + 9;
}

uint64_t coin_decompress_amount(uint64_t x)
{
    if (x == 0) {
        return 0;
    }
    x--;
    int e = (int)(x % 10);
    x /= 10;
    uint64_t n;
    if (e < 9) {
        uint64_t d = (x % 9) + 1;
        x /= 9;
        n = x * 10 + d;
    } else {
        n = x + 1;
    }
    while (e) {
        n *= 10;
        e--;
    }
    return n;
}

int coin_script_unspendable(const uint8_t *spk, size_t len)
{
    return (len > 0 && spk[0] == 0x6a) || len > MAX_SCRIPT_SIZE;
}

/* One verify-capable context for parsing and serializing keys; created on first use. */
static const secp256k1_context *key_ctx(void)
{
    static secp256k1_context *ctx;
    static int once;
    if (!__atomic_load_n(&once, __ATOMIC_ACQUIRE)) {
        secp256k1_context *c = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
        secp256k1_context *expected = NULL;
        if (!__atomic_compare_exchange_n(&ctx, &expected, c, 0, __ATOMIC_ACQ_REL,
                                         __ATOMIC_ACQUIRE)) {
            secp256k1_context_destroy(c);
        }
        __atomic_store_n(&once, 1, __ATOMIC_RELEASE);
    }
    return __atomic_load_n(&ctx, __ATOMIC_ACQUIRE);
}

void coin_compress_script(struct buf *out, const uint8_t *s, size_t len)
{
    if (len == 25 && s[0] == 0x76 && s[1] == 0xa9 && s[2] == 20 && s[23] == 0x88 &&
        s[24] == 0xac) {
        buf_put_u8(out, 0x00);
        buf_append(out, s + 3, 20);
        return;
    }
    if (len == 23 && s[0] == 0xa9 && s[1] == 20 && s[22] == 0x87) {
        buf_put_u8(out, 0x01);
        buf_append(out, s + 2, 20);
        return;
    }
    if (len == 35 && s[0] == 33 && s[34] == 0xac && (s[1] == 0x02 || s[1] == 0x03)) {
        buf_append(out, s + 1, 33);
        return;
    }
    if (len == 67 && s[0] == 65 && s[66] == 0xac && s[1] == 0x04) {
        secp256k1_pubkey pk;
        /* Only keys on the curve compress (Core's IsFullyValid). */
        if (secp256k1_ec_pubkey_parse(key_ctx(), &pk, s + 1, 65)) {
            buf_put_u8(out, (uint8_t)(0x04 | (s[65] & 0x01)));
            buf_append(out, s + 2, 32);
            return;
        }
    }
    ser_put_varint(out, (uint64_t)len + 6);
    buf_append(out, s, len);
}

int coin_decompress_script(struct buf *out, struct reader *r)
{
    uint64_t kind;
    const uint8_t *p;
    int rc = ser_get_varint(r, &kind, "script kind");
    if (rc) {
        return rc;
    }
    switch (kind) {
    case 0x00:
        if ((rc = reader_ptr(r, &p, 20, "P2PKH hash"))) {
            return rc;
        }
        buf_append(out, "\x76\xa9\x14", 3);
        buf_append(out, p, 20);
        buf_append(out, "\x88\xac", 2);
        return RC_OK;
    case 0x01:
        if ((rc = reader_ptr(r, &p, 20, "P2SH hash"))) {
            return rc;
        }
        buf_append(out, "\xa9\x14", 2);
        buf_append(out, p, 20);
        buf_put_u8(out, 0x87);
        return RC_OK;
    case 0x02:
    case 0x03:
        if ((rc = reader_ptr(r, &p, 32, "compressed key"))) {
            return rc;
        }
        buf_put_u8(out, 33);
        buf_put_u8(out, (uint8_t)kind);
        buf_append(out, p, 32);
        buf_put_u8(out, 0xac);
        return RC_OK;
    case 0x04:
    case 0x05: {
        uint8_t comp[33], full[65];
        size_t full_len = sizeof(full);
        secp256k1_pubkey pk;
        if ((rc = reader_ptr(r, &p, 32, "uncompressed key"))) {
            return rc;
        }
        comp[0] = (uint8_t)(kind - 2);
        memcpy(comp + 1, p, 32);
        if (!secp256k1_ec_pubkey_parse(key_ctx(), &pk, comp, 33)) {
            return reader_fail(r, RC_CORRUPT, "stored key is not on the curve");
        }
        secp256k1_ec_pubkey_serialize(key_ctx(), full, &full_len, &pk,
                                      SECP256K1_EC_UNCOMPRESSED);
        buf_put_u8(out, 65);
        buf_append(out, full, 65);
        buf_put_u8(out, 0xac);
        return RC_OK;
    }
    default: {
        uint64_t len = kind - 6;
        if (len > MAX_SCRIPT_SIZE) {
            /* Core keeps an unspendable stand-in rather than the bytes. */
            buf_put_u8(out, 0x6a);
            return reader_skip(r, (size_t)len, "oversized script");
        }
        if ((rc = reader_ptr(r, &p, (size_t)len, "script"))) {
            return rc;
        }
        buf_append(out, p, (size_t)len);
        return RC_OK;
    }
    }
}

void coin_serialize(struct buf *out, const struct coin *c)
{
    ser_put_varint(out, (uint64_t)c->height * 2 + (c->coinbase ? 1 : 0));
    ser_put_varint(out, coin_compress_amount((uint64_t)c->value_sat));
    coin_compress_script(out, c->script_pubkey.data, c->script_pubkey.len);
}

int coin_deserialize_buf(struct coin *c, struct buf *spk, const uint8_t *p, size_t len)
{
    struct reader r;
    uint64_t code, amount;
    int rc;

    memset(c, 0, sizeof(*c));
    reader_init(&r, p, len);
    buf_reset(spk);
    if ((rc = ser_get_varint(&r, &code, "coin height")) ||
        (rc = ser_get_varint(&r, &amount, "coin amount")) ||
        (rc = coin_decompress_script(spk, &r)) || (rc = reader_expect_end(&r, "coin"))) {
        return rc == RC_TRUNCATED || rc == RC_TRAILING || rc == RC_TOO_LARGE ? RC_CORRUPT : rc;
    }
    if (code >> 1 > UINT32_MAX) {
        return RC_CORRUPT;
    }
    c->height = (uint32_t)(code >> 1);
    c->coinbase = (int)(code & 1);
    c->value_sat = (int64_t)coin_decompress_amount(amount);
    c->script_pubkey.data = spk->len ? spk->data : NULL;
    c->script_pubkey.len = spk->len;
    return RC_OK;
}

int coin_deserialize(struct coin *c, const uint8_t *p, size_t len)
{
    struct buf spk;
    buf_init(&spk);
    int rc = coin_deserialize_buf(c, &spk, p, len);
    if (rc) {
        buf_clear(&spk);
        memset(c, 0, sizeof(*c));
        return rc;
    }
    if (!c->script_pubkey.data) {
        buf_clear(&spk); /* an empty script owns nothing */
    }
    return RC_OK;
}

size_t coin_key(uint8_t *key, const struct outpoint *op)
{
    key[0] = COIN_KEY_PREFIX;
    memcpy(key + 1, op->txid, 32);
    return 33 + ser_varint_encode(key + 33, op->n);
}

int coin_key_parse(struct outpoint *op, const uint8_t *key, size_t len)
{
    struct reader r;
    uint64_t n;
    if (len < 34 || key[0] != COIN_KEY_PREFIX) {
        return RC_CORRUPT;
    }
    memcpy(op->txid, key + 1, 32);
    reader_init(&r, key + 33, len - 33);
    if (ser_get_varint(&r, &n, "output index") || reader_expect_end(&r, "coin key") ||
        n > UINT32_MAX) {
        return RC_CORRUPT;
    }
    op->n = (uint32_t)n;
    return RC_OK;
}
