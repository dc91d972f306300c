/* SHA-256 and double SHA-256 through OpenSSL's low-level interface.
 *
 * The low-level SHA256_* calls are deprecated in OpenSSL 3 in favour of EVP, but they do no
 * provider lookup and no allocation, which matters on the hot paths (txids, merkle nodes,
 * signature hashes). The build defines OPENSSL_SUPPRESS_DEPRECATED so they compile cleanly.
 */
#include <stdalign.h>
#include <string.h>

#include <openssl/sha.h>

#include "crypto/hash.h"

/* struct hash_sha256_ctx is a plain value holding a SHA256_CTX in its opaque bytes. */
_Static_assert(sizeof(SHA256_CTX) <= sizeof(((struct hash_sha256_ctx *)0)->opaque),
               "hash_sha256_ctx too small for SHA256_CTX");
_Static_assert(alignof(SHA256_CTX) <= alignof(struct hash_sha256_ctx),
               "hash_sha256_ctx under-aligned for SHA256_CTX");

static SHA256_CTX *ctx_sha(struct hash_sha256_ctx *ctx)
{
    return (SHA256_CTX *)(void *)ctx->opaque;
}

void hash_sha256_init(struct hash_sha256_ctx *ctx)
{
    memset(ctx, 0, sizeof(*ctx));
    SHA256_Init(ctx_sha(ctx));
}

void hash_sha256_write(struct hash_sha256_ctx *ctx, const void *p, size_t n)
{
    if (n == 0) {
        return;
    }
    SHA256_Update(ctx_sha(ctx), p, n);
}

void hash_sha256_final(struct hash_sha256_ctx *ctx, uint8_t out32[32])
{
    SHA256_Final(out32, ctx_sha(ctx));
}

/* Not OpenSSL 3's one-shot SHA256(): it fetches the algorithm (taking a lock) on every
 * call, which was half the time of parsing a block. The low-level calls do not. */
void hash_sha256(uint8_t out32[32], const void *p, size_t n)
{
    SHA256_CTX c;
    SHA256_Init(&c);
    SHA256_Update(&c, p, n);
    SHA256_Final(out32, &c);
}

void hash_sha256d(uint8_t out32[32], const void *p, size_t n)
{
    uint8_t first[32];
    hash_sha256(first, p, n);
    hash_sha256(out32, first, sizeof(first));
}

void hash_sha256d_64(uint8_t out32[32], const uint8_t left32[32], const uint8_t right32[32])
{
    uint8_t both[64];
    memcpy(both, left32, 32);
    memcpy(both + 32, right32, 32);
    hash_sha256d(out32, both, sizeof(both));
}
