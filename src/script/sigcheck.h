/* Signature and key checks through libsecp256k1: ECDSA with Core's lax DER parser (for
 * signatures from before BIP66) and low-S normalisation, BIP340 Schnorr, x-only keys and
 * the BIP341 taproot tweak, and the script-level encoding rules (BIP66 strict DER, STRICTENC
 * hash types and key types).
 */
#ifndef BITNODE_SCRIPT_SIGCHECK_H
#define BITNODE_SCRIPT_SIGCHECK_H

#include <stddef.h>
#include <stdint.h>

#include <secp256k1.h>

/** Creates the process-wide verification context (idempotent, thread-safe). */
void script_secp_init(void);
/** The process-wide context (created on first use). Thread-safe for verification. */
const secp256k1_context *script_secp_ctx(void);

/** Core's ecdsa_signature_parse_der_lax: parses BER-ish encodings that OpenSSL accepted
 *  before BIP66. Returns 1 with *sig set (an R or S that overflows the group order yields
 *  an all-zero, never-valid signature), or 0 if the encoding is unusable. */
int script_ecdsa_parse_der_lax(secp256k1_ecdsa_signature *sig, const uint8_t *in, size_t len);

/** Core's CPubKey::Verify on a DER-ish signature (hash type byte already removed):
 *  the key must have a valid header and length (02/03: 33 bytes; 04/06/07: 65) and parse;
 *  the signature is parsed laxly and normalised to low S before verification. */
int script_ecdsa_verify(const uint8_t *sig, size_t sig_len, const uint8_t *pubkey,
                        size_t pubkey_len, const uint8_t hash32[32]);

/** Core's CPubKey::CheckLowS: 1 if the lax-parsed signature has S <= n/2. */
int script_ecdsa_is_low_s(const uint8_t *sig, size_t sig_len);

/** BIP340 verification of a 64-byte signature with a 32-byte x-only key. */
int script_schnorr_verify(const uint8_t sig64[64], const uint8_t xonly32[32],
                          const uint8_t hash32[32]);

/* How many signature verifications reached libsecp256k1 in this process (keys and
 * signatures that parsed), on every thread, since it started: what an import's signature
 * checks really cost, counted where they happen (benchmarks and tests compare them with
 * what a generated chain needs). */
struct script_verify_counts {
    uint64_t ecdsa;   /* secp256k1_ecdsa_verify calls */
    uint64_t schnorr; /* secp256k1_schnorrsig_verify calls */
    uint64_t tweak;   /* taproot tweak checks (script-path spends) */
};

/** Fills *out with the counts so far. */
void script_verify_counts_get(struct script_verify_counts *out);

/** BIP341: 1 if output32 == internal32 + TapTweak(internal32 || merkle_root)*G with the
 *  given Y parity. merkle_root may be NULL (key-path-only output: tweak over the key
 *  alone). */
int script_taproot_check_tweak(const uint8_t output32[32], int parity, const uint8_t internal32[32],
                               const uint8_t *merkle_root32);

/** Computes the tweaked output key for an internal key and optional merkle root.
 *  Returns 1 with output32 and *parity set, or 0 if internal32 is not a valid x-only key. */
int script_taproot_tweak(uint8_t output32[32], int *parity, const uint8_t internal32[32],
                         const uint8_t *merkle_root32);

/** Core's CPubKey::IsFullyValid: the header byte gives the length (02/03: 33 bytes; 04, 06,
 *  07: 65) and the point is on the curve. Hybrid keys (06/07) pass. */
int script_pubkey_fully_valid(const uint8_t *k, size_t n);

/** The public key of a 32-byte secret, serialized compressed (33 bytes) or not (65).
 *  Returns: 0 with out (size >= 65) and *out_len; RC_INVALID if the secret is 0 or not below
 *  the group order. */
int script_pubkey_from_secret(uint8_t *out, size_t *out_len, const uint8_t secret32[32],
                              int compressed);

/** BIP66 strict DER check of a signature with its hash type byte (Core's
 *  IsValidSignatureEncoding). */
int script_sig_is_valid_der(const uint8_t *sig, size_t len);

#endif
