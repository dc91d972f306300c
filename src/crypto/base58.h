/* Base58 and Base58Check, as Bitcoin Core encodes legacy addresses and WIF keys.
 *
 * The alphabet is 123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz (no 0, O, I, l).
 * Each leading zero byte is written as a leading '1'; the rest is the big-endian number in
 * base 58. Base58Check appends the first 4 bytes of SHA-256d(payload) before encoding.
 */
#ifndef BITNODE_CRYPTO_BASE58_H
#define BITNODE_CRYPTO_BASE58_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/** Base58 of p[0..n) (leading zero bytes become '1').
 *
 *  Returns: a new NUL-terminated string; the caller frees it. "" for n == 0.
 *  In:      p: n bytes (may be NULL when n == 0).
 */
char *base58_encode(const uint8_t *p, size_t n);

/** Decodes s, appending bytes to out.
 *
 *  Leading and trailing whitespace (space, \t, \n, \v, \f, \r) is skipped, as Bitcoin Core's
 *  DecodeBase58 does; whitespace inside the string is not.
 *
 *  Returns: 0 on success;
 *           RC_INVALID on any other non-base58 character;
 *           RC_TOO_LARGE if the decoded length would exceed max_len.
 *           On failure out is unchanged.
 *  In:      s: NUL-terminated.  max_len: limit on the decoded length in bytes.
 *  In/out:  out: the decoded bytes are appended.
 */
int base58_decode(struct buf *out, const char *s, size_t max_len);

/** Base58Check: Base58 of payload || first 4 bytes of SHA-256d(payload).
 *
 *  Returns: a new NUL-terminated string; the caller frees it.
 */
char *base58check_encode(const uint8_t *p, size_t n);

/** Decodes s as Base58Check, verifies the checksum and appends the payload (without the
 *  checksum) to out.
 *
 *  Returns: 0 on success;
 *           RC_INVALID on a bad character, a string shorter than the 4-byte checksum, or a
 *           checksum mismatch;
 *           RC_TOO_LARGE if the payload would exceed max_len bytes.
 *           On failure out is unchanged.
 *  In:      s: NUL-terminated (whitespace rules as base58_decode).  max_len: payload limit.
 */
int base58check_decode(struct buf *out, const char *s, size_t max_len);

#endif
