#include "crypto/ellswift.h"

#include <openssl/bn.h>

#include "util/check.h"

/* The field: p = 2^256 - 2^32 - 977, and sqrt(-3) (the root libsecp256k1 uses; BIP324's
 * map gives the same x with either root). */
static const char P_HEX[] = "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F";
static const char C_HEX[] = "0A2D2BA93507F1DF233770C2A797962CC61F6D15DA14ECD47D8D27AE1CD5F852";

struct field {
    BN_CTX *ctx;
    BIGNUM *p, *half; /* half: (p - 1) / 2, Euler's exponent */
};

/* Whether x^3 + 7 is a square: x is the x coordinate of a point of the curve. */
static int on_curve(struct field *f, const BIGNUM *x)
{
    BN_CTX_start(f->ctx);
    BIGNUM *y2 = BN_CTX_get(f->ctx), *e = BN_CTX_get(f->ctx);
    CHECK_ALWAYS(e != NULL);
    CHECK_ALWAYS(BN_mod_sqr(y2, x, f->p, f->ctx) && BN_mod_mul(y2, y2, x, f->p, f->ctx) &&
                 BN_add_word(y2, 7) && BN_nnmod(y2, y2, f->p, f->ctx));
    CHECK_ALWAYS(BN_mod_exp(e, y2, f->half, f->p, f->ctx));
    int square = BN_is_zero(y2) || BN_is_one(e);
    BN_CTX_end(f->ctx);
    return square;
}

/* XSwiftEC(u, t) of BIP324, into x. */
static void xswiftec(struct field *f, BIGNUM *u, BIGNUM *t, BIGNUM *x)
{
    BN_CTX_start(f->ctx);
    BIGNUM *c = BN_CTX_get(f->ctx), *u3 = BN_CTX_get(f->ctx), *a = BN_CTX_get(f->ctx),
           *X = BN_CTX_get(f->ctx), *Y = BN_CTX_get(f->ctx), *q = BN_CTX_get(f->ctx),
           *two_inv = BN_CTX_get(f->ctx);
    CHECK_ALWAYS(two_inv != NULL && BN_hex2bn(&c, C_HEX));
    if (BN_is_zero(u)) {
        CHECK_ALWAYS(BN_one(u));
    }
    if (BN_is_zero(t)) {
        CHECK_ALWAYS(BN_one(t));
    }
    /* u^3 + 7, and u^3 + t^2 + 7 == 0 doubles t */
    CHECK_ALWAYS(BN_mod_sqr(u3, u, f->p, f->ctx) && BN_mod_mul(u3, u3, u, f->p, f->ctx) &&
                 BN_add_word(u3, 7) && BN_nnmod(u3, u3, f->p, f->ctx));
    CHECK_ALWAYS(BN_mod_sqr(a, t, f->p, f->ctx) && BN_mod_add(q, u3, a, f->p, f->ctx));
    if (BN_is_zero(q)) {
        CHECK_ALWAYS(BN_mod_lshift1(t, t, f->p, f->ctx) && BN_mod_sqr(a, t, f->p, f->ctx));
    }
    /* X = (u^3 + 7 - t^2) / (2t); Y = (X + t) / (c u) */
    CHECK_ALWAYS(BN_set_word(two_inv, 2) && BN_mod_inverse(two_inv, two_inv, f->p, f->ctx));
    CHECK_ALWAYS(BN_mod_sub(X, u3, a, f->p, f->ctx) && BN_mod_lshift1(q, t, f->p, f->ctx) &&
                 BN_mod_inverse(q, q, f->p, f->ctx) && BN_mod_mul(X, X, q, f->p, f->ctx));
    CHECK_ALWAYS(BN_mod_mul(q, c, u, f->p, f->ctx) && BN_mod_inverse(q, q, f->p, f->ctx) &&
                 BN_mod_add(Y, X, t, f->p, f->ctx) && BN_mod_mul(Y, Y, q, f->p, f->ctx));
    /* x1 = u + 4 Y^2 */
    CHECK_ALWAYS(BN_mod_sqr(x, Y, f->p, f->ctx) && BN_mod_lshift(x, x, 2, f->p, f->ctx) &&
                 BN_mod_add(x, x, u, f->p, f->ctx));
    if (!on_curve(f, x)) {
        /* x2 = (-X/Y - u) / 2, else x3 = (X/Y - u) / 2 */
        CHECK_ALWAYS(BN_mod_inverse(q, Y, f->p, f->ctx) && BN_mod_mul(q, X, q, f->p, f->ctx));
        CHECK_ALWAYS(BN_mod_sub(x, f->p, q, f->p, f->ctx) && BN_mod_sub(x, x, u, f->p, f->ctx) &&
                     BN_mod_mul(x, x, two_inv, f->p, f->ctx));
        if (!on_curve(f, x)) {
            CHECK_ALWAYS(BN_mod_sub(x, q, u, f->p, f->ctx) &&
                         BN_mod_mul(x, x, two_inv, f->p, f->ctx));
        }
    }
    BN_CTX_end(f->ctx);
}

void ellswift_decode(const uint8_t enc64[64], uint8_t x32[32])
{
    struct field f = {.ctx = BN_CTX_new()};
    CHECK_ALWAYS(f.ctx != NULL);
    BN_CTX_start(f.ctx);
    f.p = BN_CTX_get(f.ctx);
    f.half = BN_CTX_get(f.ctx);
    BIGNUM *u = BN_CTX_get(f.ctx), *t = BN_CTX_get(f.ctx), *x = BN_CTX_get(f.ctx);
    CHECK_ALWAYS(x != NULL && BN_hex2bn(&f.p, P_HEX));
    CHECK_ALWAYS(BN_rshift1(f.half, f.p));
    CHECK_ALWAYS(BN_bin2bn(enc64, 32, u) && BN_nnmod(u, u, f.p, f.ctx));
    CHECK_ALWAYS(BN_bin2bn(enc64 + 32, 32, t) && BN_nnmod(t, t, f.p, f.ctx));
    xswiftec(&f, u, t, x);
    CHECK_ALWAYS(BN_bn2binpad(x, x32, 32) == 32);
    BN_CTX_end(f.ctx);
    BN_CTX_free(f.ctx);
}
