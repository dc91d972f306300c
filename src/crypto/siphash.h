/* SipHash-2-4 (Aumasson and Bernstein), the keyed hash behind the salted hash tables
 * (coins cache, signature cache, block index), with Bitcoin Core's specialised forms. */
#ifndef BITNODE_CRYPTO_SIPHASH_H
#define BITNODE_CRYPTO_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

/** SipHash-2-4 of p[0..n) under the 128-bit key (k0, k1); k0 holds key bytes 0..7 and k1
 *  bytes 8..15, each read little-endian (the paper's key 00 01 .. 0f is
 *  k0 = 0x0706050403020100, k1 = 0x0f0e0d0c0b0a0908).
 *  Returns: the 64-bit hash (the paper's output bytes read little-endian). */
uint64_t siphash24(uint64_t k0, uint64_t k1, const void *p, size_t n);

/** SipHash-2-4 of the 32 bytes h32, equal to siphash24(k0, k1, h32, 32) and to Bitcoin
 *  Core's SipHashUint256 (a txid or block hash, internal byte order). */
uint64_t siphash24_uint256(uint64_t k0, uint64_t k1, const uint8_t h32[32]);

/** SipHash-2-4 of h32 followed by extra as 4 little-endian bytes (36 bytes), equal to
 *  Bitcoin Core's SipHashUint256Extra (an outpoint: txid and output index). */
uint64_t siphash24_uint256_extra(uint64_t k0, uint64_t k1, const uint8_t h32[32],
                                 uint32_t extra);

#endif
