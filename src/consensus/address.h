/* Addresses and WIF private keys for a chain, as Bitcoin Core's key_io.cpp encodes and
 * decodes them.
 *
 * scriptPubKey forms with an address:
 *   P2PKH   OP_DUP OP_HASH160 <20> OP_EQUALVERIFY OP_CHECKSIG  -> Base58Check, pubkey prefix
 *   P2SH    OP_HASH160 <20> OP_EQUAL                         -> Base58Check, script prefix
 *   v0      OP_0 <20 or 32>                                  -> Bech32 (BIP173)
 *   v1..16  OP_n <2..40> (taproot, pay-to-anchor, future)    -> Bech32m (BIP350)
 * Everything else (P2PK, bare multisig, OP_RETURN, v0 programs of other sizes, ...) has
 * none. Decoding follows Core's DecodeDestination, including its rule that a string that
 * starts with the chain's bech32 HRP (in either case) is never tried as Base58.
 */
#ifndef BITNODE_CONSENSUS_ADDRESS_H
#define BITNODE_CONSENSUS_ADDRESS_H

#include <stddef.h>
#include <stdint.h>

#include "consensus/params.h"
#include "util/buf.h"

/* A buffer of this many bytes holds any address or WIF string and its NUL. */
#define ADDRESS_MAX_LEN 91

/** Encodes the address of a scriptPubKey for chain p.
 *
 *  Returns: 0 on success; RC_INVALID if the script has no address form; RC_TOO_LARGE if
 *           out_len is too small (ADDRESS_MAX_LEN always suffices).
 *  Out:     out: the address and a NUL (bech32 addresses in lower case).
 */
int address_from_script(char *out, size_t out_len, const uint8_t *spk, size_t spk_len,
                        const struct chain_params *p);

/** Decodes an address of chain p and appends its scriptPubKey to spk.
 *
 *  Returns: 0, or RC_INVALID (spk unchanged) if addr is not a valid address for p.
 *  In:      addr: NUL-terminated. Bech32 addresses may be all upper or all lower case.
 */
int address_to_script(struct buf *spk, const char *addr, const struct chain_params *p);

/** Same as address_to_script, and on failure writes Bitcoin Core's error message (the
 *  "error" of validateaddress, e.g. "Invalid checksum or length of Base58 address (P2PKH or
 *  P2SH)") to err (may be NULL; truncated to err_len). */
int address_to_script_err(struct buf *spk, const char *addr, const struct chain_params *p,
                          char *err, size_t err_len);

/** Same as address_to_script_err, and for a string that starts with the chain's HRP but is no
 *  valid bech32 string, the likely error positions Core's validateaddress gives as
 *  "error_locations" (bech32_locate_errors).
 *  Out: locs (may be NULL: not wanted): room for strlen(addr) indices; *n_locs their count
 *       (0 unless such an error). */
int address_to_script_err_loc(struct buf *spk, const char *addr, const struct chain_params *p,
                              char *err, size_t err_len, int *locs, size_t *n_locs);

/** Decodes a WIF private key of chain p (Core's DecodeSecret): Base58Check of the secret-key
 *  prefix, 32 key bytes, and an optional 0x01 compression flag; the key must be a valid
 *  secp256k1 secret (1 <= key < the group order).
 *
 *  Returns: 0, or RC_INVALID (outputs unspecified).
 *  Out:     key32: the secret key.  compressed: 1 if the flag byte was present, else 0.
 *  The decoded copy of the key is wiped before returning.
 */
int address_decode_wif(uint8_t key32[32], int *compressed, const char *wif,
                       const struct chain_params *p);

/** Encodes a private key as WIF for chain p (Core's EncodeSecret).
 *  Returns a new string the caller frees (and should wipe), or NULL if key32 is not a valid
 *  secp256k1 secret. */
char *address_encode_wif(const uint8_t key32[32], int compressed, const struct chain_params *p);

#endif
