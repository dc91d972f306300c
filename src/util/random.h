/* Cryptographically strong random bytes (OpenSSL's RAND_bytes), e.g. for RPC cookies. */
#ifndef BITNODE_UTIL_RANDOM_H
#define BITNODE_UTIL_RANDOM_H

#include <stddef.h>
#include <stdint.h>

/** Fills out with n random bytes. Aborts if the system cannot provide randomness (a node
 *  without a working RNG must not issue credentials). */
void random_bytes(uint8_t *out, size_t n);

/** Tests' simulated crash (Core's -dbcrashratio): with probability 1/ratio (never for 0),
 *  logs where ("dbcrashratio: crash point in <where>") and Core's "Simulating a crash.
 *  Goodbye." and ends the process at once with _Exit(0), as a kill would: no flush, no
 *  clean-up. Called after each write a crash may interrupt (a coins flush's parts, block
 *  and undo records, the block index batch, each index's batch). Any thread. */
void random_crash_point(uint32_t ratio, const char *where);

#endif
