/* HMAC-SHA512 for BIP32 and HKDF-SHA256 for BIP324 through OpenSSL (see hash.h). Neither is
 * on a hot path (a key derivation, a connection's handshake), so the one-shot HMAC() is good
 * enough. */
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "crypto/hash.h"
#include "util/check.h"

static const uint8_t empty = 0;

void hash_hmac_sha512(uint8_t out64[64], const void *key, size_t key_len, const void *msg,
                      size_t msg_len)
{
    unsigned int len = 0;
    /* OpenSSL treats a NULL key as "reuse the previous one": give it a real pointer. */
    CHECK_ALWAYS(key_len <= 0x7fffffff);
    CHECK_ALWAYS(HMAC(EVP_sha512(), key ? key : &empty, (int)key_len,
                      msg ? msg : (const void *)&empty, msg_len, out64, &len) != NULL &&
                 len == 64);
}

void hash_hkdf_sha256_extract(uint8_t prk32[32], const void *salt, size_t salt_len, const void *ikm,
                              size_t ikm_len)
{
    unsigned int len = 0;
    CHECK_ALWAYS(salt_len <= 0x7fffffff);
    CHECK_ALWAYS(HMAC(EVP_sha256(), salt ? salt : &empty, (int)salt_len,
                      ikm ? ikm : (const void *)&empty, ikm_len, prk32, &len) != NULL &&
                 len == 32);
}

void hash_hkdf_sha256_expand32(uint8_t okm32[32], const uint8_t prk32[32], const void *info,
                               size_t info_len)
{
    uint8_t msg[256];
    unsigned int len = 0;
    CHECK_ALWAYS(info_len < sizeof(msg));
    if (info_len) {
        memcpy(msg, info, info_len);
    }
    msg[info_len] = 0x01; /* T(1) = HMAC(PRK, T(0) || info || 0x01), T(0) empty */
    CHECK_ALWAYS(HMAC(EVP_sha256(), prk32, 32, msg, info_len + 1, okm32, &len) != NULL &&
                 len == 32);
}

void hash_sha3_256(uint8_t out32[32], const void *p, size_t n)
{
    unsigned int len = 0;
    static const uint8_t none = 0;
    CHECK_ALWAYS(EVP_Digest(p ? p : (const void *)&none, n, out32, &len, EVP_sha3_256(), NULL) &&
                 len == 32);
}
