/* Hex encoding, and the byte-reversed "display order" used for hashes. */
#ifndef BITNODE_UTIL_HEX_H
#define BITNODE_UTIL_HEX_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/** The value of one hex digit (either case), or -1. */
int hex_digit(char c);

/** Writes 2*n lowercase hex digits and a NUL to out (size >= 2*n+1). */
void hex_encode(char *out, const uint8_t *p, size_t n);
/** Same, bytes in reverse order (how txids and block hashes are shown). */
void hex_encode_rev(char *out, const uint8_t *p, size_t n);
/** Appends the 2*n lowercase hex digits of p to out (no NUL). */
void hex_append(struct buf *out, const uint8_t *p, size_t n);
/** Returns a new NUL-terminated hex string of p (caller frees). */
char *hex_encode_alloc(const uint8_t *p, size_t n);
/** Decodes an even-length hex string (either case) and appends it to out.
 *  Returns 0, or RC_INVALID (out unchanged) on an odd length or a non-hex digit. */
int hex_decode(struct buf *out, const char *hex);
/** Decodes exactly 2*n hex digits into p. Returns 0 or RC_INVALID. */
int hex_decode_fixed(uint8_t *p, size_t n, const char *hex);
/** Decodes a 64-digit display-order hash into its 32 internal bytes. 0 or RC_INVALID. */
int hex_decode_hash32_rev(uint8_t hash32[32], const char *hex);

#endif
