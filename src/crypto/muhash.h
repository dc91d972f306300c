/* MuHash3072: a rolling hash of a set, as Bitcoin Core computes the UTXO set's "muhash".
 *
 * Each element is mapped to a number modulo the prime p = 2^3072 - 1103717: SHA-256 of the
 * element is a ChaCha20 key, and 384 bytes of its keystream (nonce 0, block counter 0) read
 * as a little-endian number are the element's value. The set is a fraction num/den:
 * inserting multiplies num, removing multiplies den, so order does not matter and removing
 * an inserted element restores the previous state. Finalize writes num/den mod p as 384
 * little-endian bytes and returns SHA-256 of those bytes.
 *
 * A struct muhash is not thread-safe; distinct objects may be used from distinct threads.
 */
#ifndef BITNODE_CRYPTO_MUHASH_H
#define BITNODE_CRYPTO_MUHASH_H

#include <stddef.h>
#include <stdint.h>

/* Size of one 3072-bit number in bytes, and of a serialized struct muhash (num || den). */
#define MUHASH_NUM_BYTES 384
#define MUHASH_SER_BYTES (2 * MUHASH_NUM_BYTES)

struct muhash; /* opaque */

/** Returns a new empty set (num = den = 1); free with muhash_free. */
struct muhash *muhash_new(void);
/** Frees m; NULL is a no-op. */
void muhash_free(struct muhash *m);
/** Adds the element data[0..n) to the set (Core's Insert). */
void muhash_insert(struct muhash *m, const uint8_t *data, size_t n);
/** Removes the element data[0..n) from the set (Core's Remove); it need not be present:
 *  the state is a fraction, and a later insert of the same element cancels it. */
void muhash_remove(struct muhash *m, const uint8_t *data, size_t n);
/** Set union: m becomes m * other (Core's operator*=). other is only read. */
void muhash_combine(struct muhash *m, const struct muhash *other);
/** Set difference: m becomes m / other (Core's operator/=). other is only read. */
void muhash_subtract(struct muhash *m, const struct muhash *other);
/** Writes the set's hash (SHA-256 of num/den mod p as 384 little-endian bytes) to out32, in
 *  SHA-256 output order (Core shows it byte-reversed, as a uint256). m stays usable: like
 *  Core, the fraction is folded into num and den is reset to 1, which keeps the same set. */
void muhash_finalize(struct muhash *m, uint8_t out32[32]);
/** Core's serialization: num then den, each 384 bytes little-endian, as stored (not
 *  necessarily reduced mod p). */
void muhash_serialize(const struct muhash *m, uint8_t out768[MUHASH_SER_BYTES]);
/** Replaces m's state with a serialization (any 3072-bit values are accepted, as in Core;
 *  values >= p are reduced when used). */
void muhash_deserialize(struct muhash *m, const uint8_t in768[MUHASH_SER_BYTES]);

#endif
