/* RIPEMD-160 through OpenSSL's low-level interface.
 *
 * OpenSSL 3 moved the EVP RIPEMD-160 digest to the legacy provider, but the low-level
 * RIPEMD160_* calls are implemented in libcrypto itself and needs no provider; the unit tests
 * check it against the reference vectors.
 */
#include <openssl/ripemd.h>

#include "crypto/hash.h"

void hash_ripemd160(uint8_t out20[20], const void *p, size_t n)
{
    RIPEMD160_CTX c;
    RIPEMD160_Init(&c);
    RIPEMD160_Update(&c, p, n);
    RIPEMD160_Final(out20, &c);
}
