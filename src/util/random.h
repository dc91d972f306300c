/* Cryptographically strong random bytes (OpenSSL's RAND_bytes), e.g. for RPC cookies. */
#ifndef BITNODE_UTIL_RANDOM_H
#define BITNODE_UTIL_RANDOM_H

#include <stddef.h>
#include <stdint.h>

/** Fills out with n random bytes. Aborts if the system cannot provide randomness (a node
 *  without a working RNG must not issue credentials). */
void random_bytes(uint8_t *out, size_t n);

#endif
