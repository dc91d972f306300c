/* BIP324's ElligatorSwift encoding of secp256k1 x coordinates: 64 uniformly random-looking
 * bytes (u, t, each a 32-byte big-endian field element) that decode to a point's x. The
 * v2 transport sends its ephemeral public keys so, and derives its shared secret from them
 * by x-only ECDH. Debian's libsecp256k1 0.2.0 has no ElligatorSwift module: the maps of
 * BIP324 ("XSwiftEC" and its inverse) are here on OpenSSL's BIGNUM, checked against every
 * row of ../shared/vectors/bip324/ellswift_decode_test_vectors.csv and of
 * xswiftec_inv_test_vectors.csv; the curve arithmetic on secret keys (public key, ECDH) is
 * libsecp256k1's.
 *
 * The field arithmetic is not constant-time. It only ever sees public values: the peer's
 * bytes, our public key, and the u values the encoder tries (hashes of the secret key; as
 * in libsecp256k1, they reveal nothing usable about it).
 */
#ifndef BITNODE_CRYPTO_ELLSWIFT_H
#define BITNODE_CRYPTO_ELLSWIFT_H

#include <stdint.h>

/** Decodes enc64 (u || t; values at or above the field's prime are taken modulo it) to the
 *  x coordinate, 32 bytes big-endian, of a point on secp256k1. Every input decodes. */
void ellswift_decode(const uint8_t enc64[64], uint8_t x32[32]);

/** BIP324's XSwiftECInv(u, x, c): the t (32 bytes big-endian, below the prime) for which
 *  (u, t) decodes to x, by the formula that case c (0..7) selects.
 *
 *  Returns: 0 with *t32 filled; RC_NOT_FOUND when case c has no solution for this u (about
 *           half of them have none), or when u is 0 modulo the prime (the decoder reads
 *           u = 0 as 1); RC_INVALID when x32 is not the x coordinate of a point below the
 *           prime, or c is outside 0..7.
 *  In:      u32: taken modulo the prime.  x32: big-endian. */
int ellswift_xswiftec_inv(uint8_t t32[32], const uint8_t u32[32], const uint8_t x32[32], int c);

/** The ElligatorSwift encoding of priv32's public key: u from a hash of priv32 and ent32,
 *  t from the inverse map with a case drawn from the same hash, tried until one has a
 *  solution (four tries on average), t's parity then that of the point's y. The derivation
 *  is libsecp256k1's secp256k1_ellswift_create with ent32 as its auxiliary randomness, so
 *  fresh entropy gives an encoding indistinguishable from 64 uniform bytes.
 *
 *  Returns: 0 with *ell64 filled; RC_INVALID when priv32 is not a valid secret key (zero
 *           or not below the group order), *ell64 untouched.
 *  In:      priv32: the secret key, big-endian.  ent32: any bytes; distinct values give
 *           independent encodings.
 *  Thread:  any. */
int ellswift_create(uint8_t ell64[64], const uint8_t priv32[32], const uint8_t ent32[32]);

/** The x coordinate of priv32 times the point that their64 decodes to (either of the two
 *  points with that x: the x of the product is the same).
 *
 *  Returns: 0 with *x32 filled; RC_INVALID for an invalid priv32 (*x32 untouched).
 *  Thread:  any. */
int ellswift_ecdh_x(uint8_t x32[32], const uint8_t their64[64], const uint8_t priv32[32]);

/** BIP324's shared secret: the tagged hash "bip324_ellswift_xonly_ecdh" of the initiator's
 *  encoding, the responder's, and ellswift_ecdh_x(their64, priv32). initiator says whether
 *  ours64 (our encoding of priv32's public key) is the initiator's.
 *
 *  Returns: 0 with *secret32 filled; RC_INVALID for an invalid priv32 (*secret32 untouched).
 *  Thread:  any. */
int ellswift_xdh(uint8_t secret32[32], const uint8_t ours64[64], const uint8_t their64[64],
                 const uint8_t priv32[32], int initiator);

#endif
