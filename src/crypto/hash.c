/* Hashes built from SHA-256 and RIPEMD-160: HASH160 and BIP340 tagged hashes. */
#include <string.h>

#include "crypto/hash.h"

void hash_hash160(uint8_t out20[20], const void *p, size_t n)
{
    uint8_t sha[32];
    hash_sha256(sha, p, n);
    hash_ripemd160(out20, sha, sizeof(sha));
}

void hash_tagged_init(struct hash_sha256_ctx *ctx, const char *tag)
{
    uint8_t tag_hash[32];
    hash_sha256(tag_hash, tag, strlen(tag));
    hash_sha256_init(ctx);
    hash_sha256_write(ctx, tag_hash, sizeof(tag_hash));
    hash_sha256_write(ctx, tag_hash, sizeof(tag_hash));
}

void hash_tagged(uint8_t out32[32], const char *tag, const void *p, size_t n)
{
    struct hash_sha256_ctx ctx;
    hash_tagged_init(&ctx, tag);
    hash_sha256_write(&ctx, p, n);
    hash_sha256_final(&ctx, out32);
}
