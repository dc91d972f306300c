/* Base64 as Bitcoin Core has it (util/strencodings: EncodeBase64, DecodeBase64): the one copy
 * that PSBTs, signed messages and HTTP Basic authentication use. */
#ifndef BITNODE_UTIL_BASE64_H
#define BITNODE_UTIL_BASE64_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/** Core's EncodeBase64: p[0..n) with '=' padding, as a new NUL-terminated string (caller
 *  frees). */
char *base64_encode(const uint8_t *p, size_t n);

/** Core's DecodeBase64: the length a multiple of 4, at most two '=' and only at the end,
 *  nothing outside the alphabet, and the unused low bits of the last character zero.
 *  Appends the bytes to out and returns 0, or returns RC_INVALID with out unchanged. */
int base64_decode(struct buf *out, const char *s);

#endif
