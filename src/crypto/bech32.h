/* Bech32 (BIP173) and Bech32m (BIP350) strings, and native segwit addresses built on them.
 *
 * A string is hrp '1' data checksum: the human-readable part (1..83 characters in 33..126),
 * the separator, then 5-bit values and a 6-value checksum written with the alphabet
 * "qpzry9x8gf2tvdw0s3jn54khce6mua7l". At most 90 characters, all lower or all upper case.
 * Witness version 0 uses the Bech32 checksum constant (1), versions 1..16 Bech32m's
 * (0x2bc830a3).
 */
#ifndef BITNODE_CRYPTO_BECH32_H
#define BITNODE_CRYPTO_BECH32_H

#include <stddef.h>
#include <stdint.h>

/* Longest string these functions read or write, not counting the NUL. */
#define BECH32_MAX_LEN 90

enum bech32_encoding { BECH32_INVALID = 0, BECH32_BECH32 = 1, BECH32_BECH32M = 2 };

/** Encodes hrp + 5-bit values as bech32 or bech32m.
 *
 *  Returns: 0 on success;
 *           RC_INVALID if hrp is empty, longer than 83, has a character outside 33..126 or an
 *           upper-case letter, a value is >= 32, or enc is not BECH32_BECH32/BECH32M;
 *           RC_TOO_LARGE if the result would pass 90 characters or does not fit out_len.
 *  Out:     out: the lower-case string and a NUL (out_len counts the NUL; 91 is always enough).
 *  In:      values5: n values, each 0..31 (may be NULL when n == 0).
 */
int bech32_encode(char *out, size_t out_len, const char *hrp, const uint8_t *values5,
                  size_t n, enum bech32_encoding enc);

/** Decodes a bech32 or bech32m string.
 *
 *  Rejects: characters outside 33..126, mixed case, more than 90 characters, no separator,
 *  an empty hrp, fewer than 6 checksum characters, a data character outside the alphabet,
 *  and a checksum that is neither bech32 nor bech32m.
 *
 *  Returns: 0 or RC_INVALID (outputs unspecified on failure, *enc = BECH32_INVALID).
 *  Out:     hrp_out: the hrp, lower-cased, NUL-terminated (size >= 84).
 *           values5: the data values without the checksum (size >= 90); *n their count.
 *           enc: which checksum matched.
 */
int bech32_decode(char *hrp_out, uint8_t *values5, size_t *n, enum bech32_encoding *enc,
                  const char *s);

/** Core's bech32::LocateErrors: why s is not a valid bech32 or bech32m string, and where the
 *  likely errors are. For a checksum that is wrong in one or two characters, their positions
 *  are found (as with the BCH code's syndromes), trying both encodings.
 *
 *  Returns: the message ("Bech32 string too long", "Invalid character or mixed case",
 *           "Missing separator", "Invalid separator position", "Invalid Base 32 character",
 *           "Invalid Bech32 checksum", "Invalid Bech32m checksum", "Invalid checksum"), or ""
 *           if s is valid. Static storage.
 *  Out:     locs: the indices into s (must hold strlen(s) entries); *n_locs their count. */
const char *bech32_locate_errors(const char *s, int *locs, size_t *n_locs);

/** Segwit address encode: witver 0 -> bech32, 1..16 -> bech32m.
 *
 *  Returns: 0, or RC_INVALID if witver is outside 0..16, prog_len outside 2..40, version 0
 *           with a program that is not 20 or 32 bytes, a bad hrp, or out too small.
 *  Out:     out: lower-case address and NUL (out_len >= 91 is always enough).
 */
int segwit_addr_encode(char *out, size_t out_len, const char *hrp, int witver,
                       const uint8_t *prog, size_t prog_len);

/** Segwit address decode for the expected hrp (compared case-insensitively), with all
 *  BIP173/BIP350 rules: a witness version 0..16, program length 2..40, version 0 length 20
 *  or 32, bech32 for version 0 and bech32m for 1..16, and at most 4 zero padding bits.
 *
 *  Returns: 0 or RC_INVALID.
 *  Out:     witver: 0..16.  prog: the program (must hold 40 bytes).  prog_len: its length.
 */
int segwit_addr_decode(int *witver, uint8_t *prog, size_t *prog_len, const char *hrp,
                       const char *addr);

#endif
