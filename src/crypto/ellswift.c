#include "crypto/ellswift.h"

#include <pthread.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <secp256k1.h>
#include <secp256k1_ecdh.h>

#include "crypto/hash.h"
#include "util/check.h"
#include "util/random.h"
#include "util/rc.h"

/* The field: p = 2^256 - 2^32 - 977, and sqrt(-3) (the root libsecp256k1 uses; BIP324's
 * map gives the same x with either root, but its inverse's cases are numbered for this
 * one). */
static const char P_HEX[] = "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F";
static const char C_HEX[] = "0A2D2BA93507F1DF233770C2A797962CC61F6D15DA14ECD47D8D27AE1CD5F852";

struct field {
    BN_CTX *ctx;
    BIGNUM *p;
    BIGNUM *half;    /* (p - 1) / 2, Euler's exponent */
    BIGNUM *quarter; /* (p + 1) / 4: a^quarter is a square root of a square a, as p = 3 mod 4 */
    BIGNUM *c;       /* sqrt(-3) */
};

/* A BN_CTX with the field's constants; field_close frees it. */
static void field_open(struct field *f)
{
    f->ctx = BN_CTX_new();
    CHECK_ALWAYS(f->ctx != NULL);
    BN_CTX_start(f->ctx);
    f->p = BN_CTX_get(f->ctx);
    f->half = BN_CTX_get(f->ctx);
    f->quarter = BN_CTX_get(f->ctx);
    f->c = BN_CTX_get(f->ctx);
    CHECK_ALWAYS(f->c != NULL && BN_hex2bn(&f->p, P_HEX) && BN_hex2bn(&f->c, C_HEX));
    CHECK_ALWAYS(BN_rshift1(f->half, f->p) && BN_add_word(f->half, 1) &&
                 BN_rshift1(f->quarter, f->half) && BN_sub_word(f->half, 1));
}

static void field_close(struct field *f)
{
    BN_CTX_end(f->ctx);
    BN_CTX_free(f->ctx);
}

/* Whether a (reduced) is a square modulo p, zero included. */
static int is_square(struct field *f, const BIGNUM *a)
{
    BN_CTX_start(f->ctx);
    BIGNUM *e = BN_CTX_get(f->ctx);
    CHECK_ALWAYS(e != NULL && BN_mod_exp(e, a, f->half, f->p, f->ctx));
    int square = BN_is_zero(a) || BN_is_one(e);
    BN_CTX_end(f->ctx);
    return square;
}

/* r = a^((p+1)/4), the square root of a that is itself a square (the one BIP324's reference
 * and libsecp256k1 take); 0 when a (reduced) is not a square. r may not be a. */
static int field_sqrt(struct field *f, BIGNUM *r, const BIGNUM *a)
{
    BN_CTX_start(f->ctx);
    BIGNUM *r2 = BN_CTX_get(f->ctx);
    CHECK_ALWAYS(r2 != NULL && BN_mod_exp(r, a, f->quarter, f->p, f->ctx) &&
                 BN_mod_sqr(r2, r, f->p, f->ctx));
    int ok = BN_cmp(r2, a) == 0;
    BN_CTX_end(f->ctx);
    return ok;
}

/* g = x^3 + 7. */
static void curve_g(struct field *f, BIGNUM *g, const BIGNUM *x)
{
    CHECK_ALWAYS(BN_mod_sqr(g, x, f->p, f->ctx) && BN_mod_mul(g, g, x, f->p, f->ctx) &&
                 BN_add_word(g, 7) && BN_nnmod(g, g, f->p, f->ctx));
}

/* Whether x^3 + 7 is a square: x is the x coordinate of a point of the curve. */
static int on_curve(struct field *f, const BIGNUM *x)
{
    BN_CTX_start(f->ctx);
    BIGNUM *y2 = BN_CTX_get(f->ctx);
    CHECK_ALWAYS(y2 != NULL);
    curve_g(f, y2, x);
    int square = is_square(f, y2);
    BN_CTX_end(f->ctx);
    return square;
}

/* a = a / 2 modulo p, a reduced. */
static void half_mod(struct field *f, BIGNUM *a)
{
    if (BN_is_odd(a)) {
        CHECK_ALWAYS(BN_add(a, a, f->p));
    }
    CHECK_ALWAYS(BN_rshift1(a, a));
}

/* XSwiftEC(u, t) of BIP324, into x. */
static void xswiftec(struct field *f, BIGNUM *u, BIGNUM *t, BIGNUM *x)
{
    BN_CTX_start(f->ctx);
    BIGNUM *u3 = BN_CTX_get(f->ctx), *a = BN_CTX_get(f->ctx), *X = BN_CTX_get(f->ctx),
           *Y = BN_CTX_get(f->ctx), *q = BN_CTX_get(f->ctx);
    CHECK_ALWAYS(q != NULL);
    if (BN_is_zero(u)) {
        CHECK_ALWAYS(BN_one(u));
    }
    if (BN_is_zero(t)) {
        CHECK_ALWAYS(BN_one(t));
    }
    /* u^3 + 7, and u^3 + t^2 + 7 == 0 doubles t */
    curve_g(f, u3, u);
    CHECK_ALWAYS(BN_mod_sqr(a, t, f->p, f->ctx) && BN_mod_add(q, u3, a, f->p, f->ctx));
    if (BN_is_zero(q)) {
        CHECK_ALWAYS(BN_mod_lshift1(t, t, f->p, f->ctx) && BN_mod_sqr(a, t, f->p, f->ctx));
    }
    /* X = (u^3 + 7 - t^2) / (2t); Y = (X + t) / (c u) */
    CHECK_ALWAYS(BN_mod_sub(X, u3, a, f->p, f->ctx) && BN_mod_lshift1(q, t, f->p, f->ctx) &&
                 BN_mod_inverse(q, q, f->p, f->ctx) && BN_mod_mul(X, X, q, f->p, f->ctx));
    CHECK_ALWAYS(BN_mod_mul(q, f->c, u, f->p, f->ctx) && BN_mod_inverse(q, q, f->p, f->ctx) &&
                 BN_mod_add(Y, X, t, f->p, f->ctx) && BN_mod_mul(Y, Y, q, f->p, f->ctx));
    /* x1 = u + 4 Y^2 */
    CHECK_ALWAYS(BN_mod_sqr(x, Y, f->p, f->ctx) && BN_mod_lshift(x, x, 2, f->p, f->ctx) &&
                 BN_mod_add(x, x, u, f->p, f->ctx));
    if (!on_curve(f, x)) {
        /* x2 = (-X/Y - u) / 2, else x3 = (X/Y - u) / 2 */
        CHECK_ALWAYS(BN_mod_inverse(q, Y, f->p, f->ctx) && BN_mod_mul(q, X, q, f->p, f->ctx));
        CHECK_ALWAYS(BN_mod_sub(x, f->p, q, f->p, f->ctx) && BN_mod_sub(x, x, u, f->p, f->ctx));
        half_mod(f, x);
        if (!on_curve(f, x)) {
            CHECK_ALWAYS(BN_mod_sub(x, q, u, f->p, f->ctx));
            half_mod(f, x);
        }
    }
    BN_CTX_end(f->ctx);
}

void ellswift_decode(const uint8_t enc64[64], uint8_t x32[32])
{
    struct field f;
    field_open(&f);
    BIGNUM *u = BN_CTX_get(f.ctx), *t = BN_CTX_get(f.ctx), *x = BN_CTX_get(f.ctx);
    CHECK_ALWAYS(x != NULL);
    CHECK_ALWAYS(BN_bin2bn(enc64, 32, u) && BN_nnmod(u, u, f.p, f.ctx));
    CHECK_ALWAYS(BN_bin2bn(enc64 + 32, 32, t) && BN_nnmod(t, t, f.p, f.ctx));
    xswiftec(&f, u, t, x);
    CHECK_ALWAYS(BN_bn2binpad(x, x32, 32) == 32);
    field_close(&f);
}

/* The (v, w^2) of XSwiftECInv's x3 branch (c is 2, 3, 6 or 7): s = x - u,
 * r = sqrt(-s (4 (u^3 + 7) + 3 s u^2)), v = (r/s - u) / 2. 0 when there is none. */
static int inv_x3_branch(struct field *f, BIGNUM *v, BIGNUM *s, const BIGNUM *u, const BIGNUM *x,
                         int c)
{
    BN_CTX_start(f->ctx);
    BIGNUM *g = BN_CTX_get(f->ctx), *q = BN_CTX_get(f->ctx), *r = BN_CTX_get(f->ctx);
    CHECK_ALWAYS(r != NULL);
    int ok = 0;
    CHECK_ALWAYS(BN_mod_sub(s, x, u, f->p, f->ctx));
    if (BN_is_zero(s)) {
        goto out;
    }
    curve_g(f, g, u);
    CHECK_ALWAYS(BN_mod_lshift(g, g, 2, f->p, f->ctx) && BN_mod_sqr(q, u, f->p, f->ctx) &&
                 BN_mod_mul(q, q, s, f->p, f->ctx) && BN_mul_word(q, 3) &&
                 BN_mod_add(q, q, g, f->p, f->ctx) && BN_mod_mul(q, q, s, f->p, f->ctx) &&
                 BN_mod_sub(q, f->p, q, f->p, f->ctx));
    if (!field_sqrt(f, r, q) || ((c & 1) && BN_is_zero(r))) {
        /* r = 0 would give cases 3 and 7 the t of cases 2 and 6: a bias */
        goto out;
    }
    CHECK_ALWAYS(BN_mod_inverse(v, s, f->p, f->ctx) && BN_mod_mul(v, v, r, f->p, f->ctx) &&
                 BN_mod_sub(v, v, u, f->p, f->ctx));
    half_mod(f, v);
    ok = 1;
out:
    BN_CTX_end(f->ctx);
    return ok;
}

/* XSwiftECInv(u, x, c) into t; 0 when case c has no solution. u nonzero, x on the curve,
 * both reduced. The formulas are those of BIP324's reference and libsecp256k1's
 * secp256k1_ellswift_xswiftec_inv_var (doc/ellswift.md there derives them). */
static int xswiftec_inv(struct field *f, BIGNUM *t, const BIGNUM *u, const BIGNUM *x, int c)
{
    BN_CTX_start(f->ctx);
    BIGNUM *s = BN_CTX_get(f->ctx), *v = BN_CTX_get(f->ctx), *w = BN_CTX_get(f->ctx),
           *m = BN_CTX_get(f->ctx);
    CHECK_ALWAYS(m != NULL);
    int ok = 0;
    if (!(c & 2)) {
        /* x as x1 (c 0, 4) or x2 (c 1, 5). When -x - u is on the curve, (u, t) would decode
         * through x3, which takes precedence. */
        CHECK_ALWAYS(BN_mod_add(m, u, x, f->p, f->ctx) && BN_mod_sub(m, f->p, m, f->p, f->ctx));
        if (on_curve(f, m)) {
            goto out;
        }
        /* s = -(u^3 + 7) / (u^2 + u x + x^2); the divisor is not 0, as -x - u is off the curve */
        CHECK_ALWAYS(BN_mod_sqr(s, u, f->p, f->ctx) && BN_mod_mul(w, u, x, f->p, f->ctx) &&
                     BN_mod_add(s, s, w, f->p, f->ctx) && BN_mod_sqr(w, x, f->p, f->ctx) &&
                     BN_mod_add(s, s, w, f->p, f->ctx) && BN_mod_inverse(s, s, f->p, f->ctx));
        curve_g(f, m, u);
        CHECK_ALWAYS(BN_mod_mul(s, s, m, f->p, f->ctx) && BN_mod_sub(s, f->p, s, f->p, f->ctx));
        CHECK_ALWAYS(BN_copy(v, x));
    } else if (!inv_x3_branch(f, v, s, u, x, c)) {
        goto out;
    }
    if (!field_sqrt(f, w, s)) {
        goto out;
    }
    /* t = +-w (k u + v), with k = (1 - sqrt(-3)) / 2 for even c and (1 + sqrt(-3)) / 2 for odd;
     * minus for (c & 5) 0 and 5 */
    CHECK_ALWAYS(BN_one(m));
    CHECK_ALWAYS((c & 1) ? BN_mod_add(m, m, f->c, f->p, f->ctx)
                         : BN_mod_sub(m, m, f->c, f->p, f->ctx));
    half_mod(f, m);
    CHECK_ALWAYS(BN_mod_mul(m, m, u, f->p, f->ctx) && BN_mod_add(m, m, v, f->p, f->ctx) &&
                 BN_mod_mul(t, m, w, f->p, f->ctx));
    if ((c & 5) == 0 || (c & 5) == 5) {
        CHECK_ALWAYS(BN_mod_sub(t, f->p, t, f->p, f->ctx));
    }
    ok = 1;
out:
    BN_CTX_end(f->ctx);
    return ok;
}

int ellswift_xswiftec_inv(uint8_t t32[32], const uint8_t u32[32], const uint8_t x32[32], int c)
{
    if (c < 0 || c > 7) {
        return RC_INVALID;
    }
    struct field f;
    field_open(&f);
    BIGNUM *u = BN_CTX_get(f.ctx), *x = BN_CTX_get(f.ctx), *t = BN_CTX_get(f.ctx);
    CHECK_ALWAYS(t != NULL && BN_bin2bn(u32, 32, u) && BN_nnmod(u, u, f.p, f.ctx));
    CHECK_ALWAYS(BN_bin2bn(x32, 32, x));
    int rc = RC_OK;
    if (BN_cmp(x, f.p) >= 0 || !on_curve(&f, x)) {
        rc = RC_INVALID;
    } else if (BN_is_zero(u) || !xswiftec_inv(&f, t, u, x, c)) {
        rc = RC_NOT_FOUND;
    } else {
        CHECK_ALWAYS(BN_bn2binpad(t, t32, 32) == 32);
    }
    field_close(&f);
    return rc;
}

/* One context for the secret-key operations, blinded once with fresh randomness. */
static secp256k1_context *g_ctx;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void ctx_create(void)
{
    uint8_t seed[32];
    g_ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
    CHECK_ALWAYS(g_ctx != NULL);
    random_bytes(seed, sizeof(seed));
    CHECK_ALWAYS(secp256k1_context_randomize(g_ctx, seed));
    OPENSSL_cleanse(seed, sizeof(seed));
}

static const secp256k1_context *secp_ctx(void)
{
    pthread_once(&g_once, ctx_create);
    return g_ctx;
}

/* The encoder's randomness: SHA256(hasher's input || cnt as 4 bytes little-endian). */
static void prng(uint8_t out32[32], const struct hash_sha256_ctx *hasher, uint32_t cnt)
{
    struct hash_sha256_ctx h = *hasher;
    uint8_t le[4] = {(uint8_t)cnt, (uint8_t)(cnt >> 8), (uint8_t)(cnt >> 16), (uint8_t)(cnt >> 24)};
    hash_sha256_write(&h, le, sizeof(le));
    hash_sha256_final(&h, out32);
}

/* Finds (u32, t) for x: counter 0 fills a pool of 64 4-bit values whose low 3 bits are the
 * cases, the counters after it each give a u, as libsecp256k1 draws them. */
static void encode_x(struct field *f, uint8_t u32[32], BIGNUM *t, const BIGNUM *x,
                     const struct hash_sha256_ctx *hasher)
{
    BN_CTX_start(f->ctx);
    BIGNUM *u = BN_CTX_get(f->ctx);
    CHECK_ALWAYS(u != NULL);
    uint8_t pool[32];
    int left = 0;
    uint32_t cnt = 0;
    for (;;) {
        if (left == 0) {
            prng(pool, hasher, cnt++);
            left = 64;
        }
        left--;
        int c = (pool[left >> 1] >> ((left & 1) << 2)) & 7;
        /* u32 is sent as hashed, also when it is at or above p: uniform bytes, not a uniform u */
        prng(u32, hasher, cnt++);
        CHECK_ALWAYS(BN_bin2bn(u32, 32, u) && BN_nnmod(u, u, f->p, f->ctx));
        if (!BN_is_zero(u) && xswiftec_inv(f, t, u, x, c)) {
            break;
        }
    }
    OPENSSL_cleanse(pool, sizeof(pool));
    BN_CTX_end(f->ctx);
}

int ellswift_create(uint8_t ell64[64], const uint8_t priv32[32], const uint8_t ent32[32])
{
    static const uint8_t zero32[32] = {0};
    const secp256k1_context *ctx = secp_ctx();
    secp256k1_pubkey pk;
    uint8_t ser65[65];
    size_t len = sizeof(ser65);
    if (!secp256k1_ec_pubkey_create(ctx, &pk, priv32)) {
        return RC_INVALID;
    }
    CHECK_ALWAYS(secp256k1_ec_pubkey_serialize(ctx, ser65, &len, &pk, SECP256K1_EC_UNCOMPRESSED) &&
                 len == 65);
    struct hash_sha256_ctx hasher;
    hash_tagged_init(&hasher, "secp256k1_ellswift_create");
    hash_sha256_write(&hasher, priv32, 32);
    hash_sha256_write(&hasher, zero32, sizeof(zero32));
    hash_sha256_write(&hasher, ent32, 32);

    struct field f;
    field_open(&f);
    BIGNUM *x = BN_CTX_get(f.ctx), *t = BN_CTX_get(f.ctx);
    CHECK_ALWAYS(t != NULL && BN_bin2bn(ser65 + 1, 32, x));
    encode_x(&f, ell64, t, x, &hasher);
    /* (u, t) and (u, -t) decode to the same x; t's parity carries y's, as in libsecp256k1,
     * which keeps the encoding of the full point and costs no extra randomness */
    if (BN_is_odd(t) != (ser65[64] & 1)) {
        CHECK_ALWAYS(BN_mod_sub(t, f.p, t, f.p, f.ctx));
    }
    CHECK_ALWAYS(BN_bn2binpad(t, ell64 + 32, 32) == 32);
    field_close(&f);
    OPENSSL_cleanse(&hasher, sizeof(hasher));
    return RC_OK;
}

/* secp256k1_ecdh's hash function: the product's x, unhashed. */
static int ecdh_copy_x(unsigned char *output, const unsigned char *x32, const unsigned char *y32,
                       void *data)
{
    (void)y32;
    (void)data;
    memcpy(output, x32, 32);
    return 1;
}

int ellswift_ecdh_x(uint8_t x32[32], const uint8_t their64[64], const uint8_t priv32[32])
{
    const secp256k1_context *ctx = secp_ctx();
    uint8_t ser33[33] = {0x02};
    secp256k1_pubkey pk;
    if (!secp256k1_ec_seckey_verify(ctx, priv32)) {
        return RC_INVALID;
    }
    ellswift_decode(their64, ser33 + 1);
    /* every decoded x is on the curve, so parsing cannot fail */
    CHECK_ALWAYS(secp256k1_ec_pubkey_parse(ctx, &pk, ser33, sizeof(ser33)));
    CHECK_ALWAYS(secp256k1_ecdh(ctx, x32, &pk, priv32, ecdh_copy_x, NULL));
    return RC_OK;
}

int ellswift_xdh(uint8_t secret32[32], const uint8_t ours64[64], const uint8_t their64[64],
                 const uint8_t priv32[32], int initiator)
{
    uint8_t x32[32];
    int rc = ellswift_ecdh_x(x32, their64, priv32);
    if (rc != RC_OK) {
        return rc;
    }
    struct hash_sha256_ctx h;
    hash_tagged_init(&h, "bip324_ellswift_xonly_ecdh");
    hash_sha256_write(&h, initiator ? ours64 : their64, 64);
    hash_sha256_write(&h, initiator ? their64 : ours64, 64);
    hash_sha256_write(&h, x32, sizeof(x32));
    hash_sha256_final(&h, secret32);
    OPENSSL_cleanse(x32, sizeof(x32));
    OPENSSL_cleanse(&h, sizeof(h));
    return RC_OK;
}
