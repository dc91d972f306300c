/* MuHash3072 with OpenSSL: BIGNUM for the arithmetic modulo p, EVP ChaCha20 for turning an
 * element into a number. Matches Bitcoin Core's src/crypto/muhash.cpp. */
#include <pthread.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/evp.h>

#include "crypto/hash.h"
#include "crypto/muhash.h"
#include "util/check.h"
#include "util/xmalloc.h"

/* p = 2^3072 - MUHASH_PRIME_DIFF, the largest 3072-bit safe prime of that form. */
#define MUHASH_PRIME_DIFF 1103717

struct muhash {
    BIGNUM *num; /* < 2^3072 always; < p after any multiplication */
    BIGNUM *den;
    BN_CTX *bn_ctx;
    EVP_CIPHER_CTX *chacha; /* reused for every element: re-keyed each time */
};

/* Built once, then only read (which OpenSSL allows from many threads): the modulus, and the
 * ChaCha20 implementation fetched explicitly so that keying a context does no lookup. */
static BIGNUM *g_prime;
static EVP_CIPHER *g_chacha20;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void globals_init(void)
{
    g_prime = BN_new();
    CHECK_ALWAYS(g_prime != NULL);
    CHECK_ALWAYS(BN_set_bit(g_prime, 3072) == 1);
    CHECK_ALWAYS(BN_sub_word(g_prime, MUHASH_PRIME_DIFF) == 1);
    g_chacha20 = EVP_CIPHER_fetch(NULL, "ChaCha20", NULL);
    CHECK_ALWAYS(g_chacha20 != NULL);
}

static const BIGNUM *prime(void)
{
    CHECK_ALWAYS(pthread_once(&g_once, globals_init) == 0);
    return g_prime;
}

static const EVP_CIPHER *chacha20(void)
{
    CHECK_ALWAYS(pthread_once(&g_once, globals_init) == 0);
    return g_chacha20;
}

static BIGNUM *bn_new_checked(void)
{
    BIGNUM *bn = BN_new();
    CHECK_ALWAYS(bn != NULL);
    return bn;
}

/* Core's ToNum3072: SHA-256 of the element keys ChaCha20 (nonce 0, counter 0); the first
 * 384 bytes of keystream, little-endian, are the number. */
static void element_to_num(struct muhash *m, BIGNUM *out, const uint8_t *data, size_t n)
{
    uint8_t key[32];
    /* EVP_chacha20's IV: a 4-byte little-endian block counter, then the 12-byte nonce. */
    static const uint8_t iv[16];
    static const uint8_t zeros[MUHASH_NUM_BYTES];
    uint8_t stream[MUHASH_NUM_BYTES];
    EVP_CIPHER_CTX *c = m->chacha;
    int len = 0, fin_len = 0;

    hash_sha256(key, data, n);
    CHECK_ALWAYS(EVP_EncryptInit_ex2(c, chacha20(), key, iv, NULL) == 1);
    /* Encrypting zeros yields the keystream itself. */
    CHECK_ALWAYS(EVP_EncryptUpdate(c, stream, &len, zeros, (int)sizeof(zeros)) == 1);
    CHECK_ALWAYS(EVP_EncryptFinal_ex(c, stream + len, &fin_len) == 1);
    CHECK_ALWAYS(len + fin_len == MUHASH_NUM_BYTES);
    CHECK_ALWAYS(BN_lebin2bn(stream, MUHASH_NUM_BYTES, out) != NULL);
}

/* Folds x < 2^(3072+k) once: x = hi * 2^3072 + lo == lo + hi * MUHASH_PRIME_DIFF (mod p). */
static void fold(BIGNUM *x, BIGNUM *hi)
{
    CHECK_ALWAYS(BN_rshift(hi, x, 3072) == 1);
    /* Fails (harmlessly, leaving x as it is) when x is already shorter than 3072 bits. */
    (void)BN_mask_bits(x, 3072);
    CHECK_ALWAYS(BN_mul_word(hi, MUHASH_PRIME_DIFF) == 1);
    CHECK_ALWAYS(BN_add(x, x, hi) == 1);
}

/* a = a * b mod p, fully reduced, for a, b < 2^3072. Uses p's special form instead of a
 * division (four times faster than BN_mod_mul): after two folds the product is below
 * 2^3072 + 2^42, and one conditional subtraction of p brings it below p. */
static void mul_mod(struct muhash *m, BIGNUM *a, const BIGNUM *b)
{
    BIGNUM *prod, *hi;

    BN_CTX_start(m->bn_ctx);
    prod = BN_CTX_get(m->bn_ctx);
    hi = BN_CTX_get(m->bn_ctx);
    CHECK_ALWAYS(hi != NULL);
    CHECK_ALWAYS(BN_mul(prod, a, b, m->bn_ctx) == 1);
    fold(prod, hi);
    fold(prod, hi);
    if (BN_cmp(prod, prime()) >= 0) {
        CHECK_ALWAYS(BN_sub(prod, prod, prime()) == 1);
    }
    CHECK_ALWAYS(BN_copy(a, prod) != NULL);
    BN_CTX_end(m->bn_ctx);
}

struct muhash *muhash_new(void)
{
    struct muhash *m = xcalloc(1, sizeof(*m));
    m->num = bn_new_checked();
    m->den = bn_new_checked();
    m->bn_ctx = BN_CTX_new();
    CHECK_ALWAYS(m->bn_ctx != NULL);
    m->chacha = EVP_CIPHER_CTX_new();
    CHECK_ALWAYS(m->chacha != NULL);
    CHECK_ALWAYS(BN_one(m->num) == 1);
    CHECK_ALWAYS(BN_one(m->den) == 1);
    return m;
}

void muhash_free(struct muhash *m)
{
    if (m == NULL) {
        return;
    }
    BN_free(m->num);
    BN_free(m->den);
    BN_CTX_free(m->bn_ctx);
    EVP_CIPHER_CTX_free(m->chacha);
    free(m);
}

void muhash_insert(struct muhash *m, const uint8_t *data, size_t n)
{
    BIGNUM *x = bn_new_checked();
    element_to_num(m, x, data, n);
    mul_mod(m, m->num, x);
    BN_free(x);
}

void muhash_remove(struct muhash *m, const uint8_t *data, size_t n)
{
    BIGNUM *x = bn_new_checked();
    element_to_num(m, x, data, n);
    mul_mod(m, m->den, x);
    BN_free(x);
}

void muhash_combine(struct muhash *m, const struct muhash *other)
{
    mul_mod(m, m->num, other->num);
    mul_mod(m, m->den, other->den);
}

void muhash_subtract(struct muhash *m, const struct muhash *other)
{
    mul_mod(m, m->num, other->den);
    mul_mod(m, m->den, other->num);
}

void muhash_finalize(struct muhash *m, uint8_t out32[32])
{
    uint8_t bytes[MUHASH_NUM_BYTES];
    BIGNUM *inv = bn_new_checked();

    /* den is 0 mod p only if a ChaCha20 output was a multiple of p (never, in practice) or a
     * deserialized state said so; like Core's inverse of 0, treat the inverse as 0. */
    CHECK_ALWAYS(BN_nnmod(inv, m->den, prime(), m->bn_ctx) == 1);
    if (BN_is_zero(inv)) {
        BN_zero(m->num);
    } else {
        CHECK_ALWAYS(BN_mod_inverse(inv, inv, prime(), m->bn_ctx) != NULL);
        mul_mod(m, m->num, inv);
    }
    BN_free(inv);
    /* Keep the object valid as the same set: num/den == (num/den)/1. */
    CHECK_ALWAYS(BN_one(m->den) == 1);
    /* num < p here: mul_mod fully reduces. */
    CHECK_ALWAYS(BN_bn2lebinpad(m->num, bytes, MUHASH_NUM_BYTES) == MUHASH_NUM_BYTES);
    hash_sha256(out32, bytes, sizeof(bytes));
}

void muhash_serialize(const struct muhash *m, uint8_t out768[MUHASH_SER_BYTES])
{
    CHECK_ALWAYS(BN_bn2lebinpad(m->num, out768, MUHASH_NUM_BYTES) == MUHASH_NUM_BYTES);
    CHECK_ALWAYS(BN_bn2lebinpad(m->den, out768 + MUHASH_NUM_BYTES, MUHASH_NUM_BYTES) ==
                 MUHASH_NUM_BYTES);
}

void muhash_deserialize(struct muhash *m, const uint8_t in768[MUHASH_SER_BYTES])
{
    CHECK_ALWAYS(BN_lebin2bn(in768, MUHASH_NUM_BYTES, m->num) != NULL);
    CHECK_ALWAYS(BN_lebin2bn(in768 + MUHASH_NUM_BYTES, MUHASH_NUM_BYTES, m->den) != NULL);
}
