/* BIP324's ElligatorSwift encoding of secp256k1 x coordinates: 64 uniformly random-looking
 * bytes (u, t, each a 32-byte big-endian field element) that decode to a point's x. The
 * v2 transport sends its ephemeral public keys so. Debian's libsecp256k1 0.2.0 has no
 * ElligatorSwift module; this is the map of BIP324 ("XSwiftEC") on OpenSSL's BIGNUM,
 * checked against every row of ../shared/vectors/bip324/ellswift_decode_test_vectors.csv.
 * Not constant-time: decoding handles the peer's public bytes only.
 */
#ifndef BITNODE_CRYPTO_ELLSWIFT_H
#define BITNODE_CRYPTO_ELLSWIFT_H

#include <stdint.h>

/** Decodes enc64 (u || t; values at or above the field's prime are taken modulo it) to the
 *  x coordinate, 32 bytes big-endian, of a point on secp256k1. Every input decodes. */
void ellswift_decode(const uint8_t enc64[64], uint8_t x32[32]);

#endif
