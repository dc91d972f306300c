/* Hashes built from SHA-256 and RIPEMD-160: HASH160 and BIP340 tagged hashes; and
 * MurmurHash3 (x86, 32 bits), which BIP37 names. */
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

static uint32_t rotl32(uint32_t x, int r)
{
    return (x << r) | (x >> (32 - r));
}

uint32_t hash_murmur3_32(uint32_t seed, const void *p, size_t n)
{
    /* Austin Appleby's MurmurHash3_x86_32, blocks read little-endian as BIP37 specifies. */
    const uint8_t *d = p;
    const uint32_t c1 = 0xcc9e2d51, c2 = 0x1b873593;
    uint32_t h = seed;
    size_t nblocks = n / 4;
    for (size_t i = 0; i < nblocks; i++) {
        uint32_t k = (uint32_t)d[4 * i] | (uint32_t)d[4 * i + 1] << 8 |
                     (uint32_t)d[4 * i + 2] << 16 | (uint32_t)d[4 * i + 3] << 24;
        k *= c1;
        k = rotl32(k, 15);
        k *= c2;
        h ^= k;
        h = rotl32(h, 13);
        h = h * 5 + 0xe6546b64;
    }
    const uint8_t *tail = d + nblocks * 4;
    uint32_t k1 = 0;
    switch (n & 3) {
    case 3:
        k1 ^= (uint32_t)tail[2] << 16;
        /* fall through */
    case 2:
        k1 ^= (uint32_t)tail[1] << 8;
        /* fall through */
    case 1:
        k1 ^= tail[0];
        k1 *= c1;
        k1 = rotl32(k1, 15);
        k1 *= c2;
        h ^= k1;
    }
    h ^= (uint32_t)n;
    h ^= h >> 16;
    h *= 0x85ebca6b;
    h ^= h >> 13;
    h *= 0xc2b2ae35;
    h ^= h >> 16;
    return h;
}
