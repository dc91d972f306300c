/* SHA3-256 (FIPS 202), which Tor v3 onion names use for their two checksum bytes. */
#ifndef BITNODE_CRYPTO_SHA3_H
#define BITNODE_CRYPTO_SHA3_H

#include <stddef.h>
#include <stdint.h>

/** SHA3-256 of p[0..n) into out32. */
void sha3_256(uint8_t out32[32], const void *p, size_t n);

#endif
