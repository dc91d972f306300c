/* Hash functions: SHA-256 (OpenSSL), double SHA-256, RIPEMD-160, HASH160, BIP340 tagged
 * hashes, HMAC-SHA512 and HKDF-SHA256 (OpenSSL), and MurmurHash3 (BIP37's bloom filters,
 * not a cryptographic hash). All are pure functions of their input.
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
/** SHA3-256 of p (FIPS 202, OpenSSL's): the checksum of Tor v3 onion names. */
void hash_sha3_256(uint8_t out32[32], const void *p, size_t n);

/** Starts a BIP340 tagged hash: the context after SHA256(tag) || SHA256(tag) is written. */
void hash_tagged_init(struct hash_sha256_ctx *ctx, const char *tag);
/** One-shot tagged hash of p with tag. */
void hash_tagged(uint8_t out32[32], const char *tag, const void *p, size_t n);

/** HMAC-SHA512 (RFC 2104) of msg under key: BIP32 key derivation. */
void hash_hmac_sha512(uint8_t out64[64], const void *key, size_t key_len, const void *msg,
                      size_t msg_len);

/** HKDF-SHA256's extract step (RFC 5869): prk32 = HMAC-SHA256 of ikm under the key salt
 *  (salt may be NULL when salt_len is 0: the RFC's default of 32 zero bytes gives the same
 *  HMAC key). BIP324 extracts its session's key material so, once. */
void hash_hkdf_sha256_extract(uint8_t prk32[32], const void *salt, size_t salt_len, const void *ikm,
                              size_t ikm_len);
/** HKDF-SHA256's expand step for 32 bytes of output (L = 32, one block): okm32 =
 *  HMAC-SHA256 of info || 0x01 under prk32. info_len is at most 255 (a bug otherwise). */
void hash_hkdf_sha256_expand32(uint8_t okm32[32], const uint8_t prk32[32], const void *info,
                               size_t info_len);

/** MurmurHash3's x86 32-bit variant of p under seed (Core's MurmurHash3): the hash BIP37
 *  bloom filters set their bits with. */
uint32_t hash_murmur3_32(uint32_t seed, const void *p, size_t n);

#endif
