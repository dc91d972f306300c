/* Hash functions: SHA-256 (OpenSSL), double SHA-256, RIPEMD-160, HASH160, BIP340 tagged
 * hashes, HMAC-SHA512 (OpenSSL). All are pure functions of their input.
 */
#ifndef BITNODE_CRYPTO_HASH_H
#define BITNODE_CRYPTO_HASH_H

#include <stddef.h>
#include <stdint.h>

/* Incremental SHA-256. A plain value: it may be copied to save a midstate (tagged hashes,
 * BIP143/BIP341 precomputation). The storage is large enough for OpenSSL's SHA256_CTX; only
 * sha256.c looks inside. */
struct hash_sha256_ctx {
    _Alignas(8) uint8_t opaque[128];
};

void hash_sha256_init(struct hash_sha256_ctx *ctx);
void hash_sha256_write(struct hash_sha256_ctx *ctx, const void *p, size_t n);
/** Writes the digest; ctx must be initialised again before reuse. */
void hash_sha256_final(struct hash_sha256_ctx *ctx, uint8_t out32[32]);

/** SHA-256 of p. */
void hash_sha256(uint8_t out32[32], const void *p, size_t n);
/** SHA-256(SHA-256(p)): txids, block hashes, merkle nodes, base58 checksums. */
void hash_sha256d(uint8_t out32[32], const void *p, size_t n);
/** SHA-256d of the 64-byte concatenation of two 32-byte hashes (merkle node). */
void hash_sha256d_64(uint8_t out32[32], const uint8_t left32[32], const uint8_t right32[32]);
/** RIPEMD-160 of p. */
void hash_ripemd160(uint8_t out20[20], const void *p, size_t n);
/** RIPEMD-160(SHA-256(p)). */
void hash_hash160(uint8_t out20[20], const void *p, size_t n);

/** Starts a BIP340 tagged hash: the context after SHA256(tag) || SHA256(tag) is written. */
void hash_tagged_init(struct hash_sha256_ctx *ctx, const char *tag);
/** One-shot tagged hash of p with tag. */
void hash_tagged(uint8_t out32[32], const char *tag, const void *p, size_t n);

/** HMAC-SHA512 (RFC 2104) of msg under key: BIP32 key derivation. */
void hash_hmac_sha512(uint8_t out64[64], const void *key, size_t key_len, const void *msg,
                      size_t msg_len);

#endif
