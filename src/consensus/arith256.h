/* 256-bit unsigned arithmetic for proof-of-work targets and chain work.
 *
 * Semantics follow Bitcoin Core's arith_uint256: every operation is modulo 2^256 (add, sub
 * and mul wrap silently), shifts by 256 or more give zero, and the "compact" nBits
 * encoding is Core's SetCompact/GetCompact bit for bit. A struct u256 is a plain value:
 * copy it, compare it, keep it in other structs. Pure functions; no allocation.
 *
 * Byte orders: a block hash in its internal order (as hashed) is the little-endian encoding
 * of the number; the usual hex display (u256_to_hex) is big-endian, most significant first,
 * the same string as the byte-reversed hash.
 */
#ifndef BITNODE_CONSENSUS_ARITH256_H
#define BITNODE_CONSENSUS_ARITH256_H

#include <stdint.h>

struct u256 {
    uint32_t w[8]; /* little-endian words: w[0] holds the least significant 32 bits */
};

/** Sets *x to v. */
void u256_set_u64(struct u256 *x, uint64_t v);
/** Reads 32 little-endian bytes (a hash in internal byte order) into *x. */
void u256_from_le32(struct u256 *x, const uint8_t in32[32]);
/** Writes *x as 32 little-endian bytes (internal byte order). */
void u256_to_le32(uint8_t out32[32], const struct u256 *x);

/** Writes 64 lowercase hex digits, most significant first (Core's GetHex), and a NUL. */
void u256_to_hex(char out65[65], const struct u256 *x);
/** Parses exactly 64 hex digits (either case), most significant first.
 *  Returns 0, or RC_INVALID (*x unchanged) on a wrong length or a non-hex digit. */
int u256_from_hex(struct u256 *x, const char *hex);

/** Returns -1, 0 or 1 as a < b, a == b, a > b. */
int u256_cmp(const struct u256 *a, const struct u256 *b);
/** Returns 1 if x is zero. */
int u256_is_zero(const struct u256 *x);
/** Number of significant bits: 0 for zero, 256 when the top bit is set. */
unsigned u256_bits(const struct u256 *x);
/** The low 64 bits. */
uint64_t u256_low64(const struct u256 *x);

/* Arithmetic. The output may alias any input. */

/** r = a + b (mod 2^256). */
void u256_add(struct u256 *r, const struct u256 *a, const struct u256 *b);
/** r = a + v (mod 2^256). */
void u256_add_u64(struct u256 *r, const struct u256 *a, uint64_t v);
/** r = a - b (mod 2^256). */
void u256_sub(struct u256 *r, const struct u256 *a, const struct u256 *b);
/** r = a * m (mod 2^256). */
void u256_mul_u32(struct u256 *r, const struct u256 *a, uint32_t m);
/** r = a * b (mod 2^256). */
void u256_mul(struct u256 *r, const struct u256 *a, const struct u256 *b);
/** r = a / b, truncated. b must not be zero (Core throws there; here it is a bug and
 *  aborts through CHECK_ALWAYS). */
void u256_div(struct u256 *r, const struct u256 *a, const struct u256 *b);
/** r = ~a (bitwise complement). */
void u256_not(struct u256 *r, const struct u256 *a);
/** r = a << n; any n (n >= 256 gives zero). */
void u256_shl(struct u256 *r, const struct u256 *a, unsigned n);
/** r = a >> n; any n (n >= 256 gives zero). */
void u256_shr(struct u256 *r, const struct u256 *a, unsigned n);

/** Decodes a compact ("nBits") number exactly as Core's arith_uint256::SetCompact.
 *
 *  The top byte is a base-256 exponent (the byte length), bit 23 a sign, bits 0..22 the
 *  mantissa: value = mantissa * 256^(exponent-3), truncated when exponent < 3.
 *  Out: out: the magnitude (modulo 2^256 when it overflows).
 *       negative (may be NULL): 1 if the sign bit is set and the mantissa is non-zero.
 *       overflow (may be NULL): 1 if the value does not fit in 256 bits.
 */
void u256_set_compact(struct u256 *out, uint32_t compact, int *negative, int *overflow);
/** Encodes x as compact, exactly as Core's GetCompact(negative): the mantissa never has
 *  bit 23 set (the exponent grows instead), and the sign bit is set only when negative is
 *  non-zero and the mantissa is non-zero. */
uint32_t u256_get_compact(const struct u256 *x, int negative);

#endif
