/* HMAC-SHA512 through OpenSSL, for BIP32 (see hash.h). Not on any hot path, so
 * the one-shot EVP calls are good enough. */
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "crypto/hash.h"
#include "util/check.h"

void hash_hmac_sha512(uint8_t out64[64], const void *key, size_t key_len, const void *msg,
                      size_t msg_len)
{
    unsigned int len = 0;
    static const uint8_t empty = 0;
    /* OpenSSL treats a NULL key as "reuse the previous one": give it a real pointer. */
    CHECK_ALWAYS(key_len <= 0x7fffffff);
    CHECK_ALWAYS(HMAC(EVP_sha512(), key ? key : &empty, (int)key_len,
                      msg ? msg : (const void *)&empty, msg_len, out64, &len) != NULL &&
                 len == 64);
}
