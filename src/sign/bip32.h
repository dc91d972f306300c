/* BIP32 hierarchical deterministic keys: extended keys (xpub/xprv and the other chains'
 * tpub/tprv), their Base58Check strings, and child key derivation (CKD), as Bitcoin Core's
 * CExtKey / CExtPubKey and key_io.cpp's DecodeExtKey / EncodeExtKey do them.
 *
 * An extended key string is Base58Check of 78 bytes: the chain's 4-byte version (its
 * BASE58_EXT_PUBLIC_KEY or BASE58_EXT_SECRET_KEY prefix), depth (1 byte), the parent's
 * fingerprint (4), the child number (4, big-endian), the chain code (32), and the key (33: a
 * compressed public key, or 0x00 and the 32-byte secret). Pure: no I/O.
 */
#ifndef BITNODE_SIGN_BIP32_H
#define BITNODE_SIGN_BIP32_H

#include <stddef.h>
#include <stdint.h>

#include "consensus/params.h"

/* The bit that marks a hardened child number (written "h" or "'" in paths). */
#define BIP32_HARDENED 0x80000000u

/* An extended key: plain data. has_secret says whether secret32 holds the private key
 * (then pubkey33 is its public key); wipe a key with a secret with bip32_key_wipe. */
struct bip32_key {
    uint8_t depth;
    uint8_t parent_fpr[4];
    uint32_t child;
    uint8_t chaincode[32];
    uint8_t pubkey33[33];
    int has_secret;
    uint8_t secret32[32];
};

/** The master key of a seed (BIP32's "master key generation": HMAC-SHA512 keyed with
 *  "Bitcoin seed").
 *  Returns: 0, or RC_INVALID for the (astronomically unlikely) seed whose key is invalid. */
int bip32_from_seed(struct bip32_key *out, const uint8_t *seed, size_t seed_len);

/** Decodes an extended public or private key string of chain p (Core's DecodeExtPubKey, then
 *  DecodeExtKey): the right version prefix, 78 bytes, a depth-0 key with a zero fingerprint
 *  and child number, a valid point (public) or a 0x00 byte and a valid secret (private).
 *  Returns: 0 with *out filled (has_secret says which kind it was), or RC_INVALID. */
int bip32_decode(struct bip32_key *out, const char *s, const struct chain_params *p);

/** Encodes the public form of k (an "xpub" on main). Returns a new string; the caller frees. */
char *bip32_encode_pub(const struct bip32_key *k, const struct chain_params *p);

/** Encodes the private form of k (an "xprv" on main); k must have a secret.
 *  Returns a new string the caller frees (and should wipe). */
char *bip32_encode_priv(const struct bip32_key *k, const struct chain_params *p);

/** CKD: the child of parent at index (hardened when index has BIP32_HARDENED). Private
 *  derivation if parent has a secret (the child has one too), else public derivation, which
 *  cannot do hardened steps.
 *  Returns: 0 with *child; RC_INVALID if the step is hardened and parent has no secret, the
 *           parent is at depth 255, or the derived key is invalid (probability < 2^-127).
 *  child may be parent. */
int bip32_derive(struct bip32_key *child, const struct bip32_key *parent, uint32_t index);

/** The first 4 bytes of HASH160 of k's public key: the fingerprint its children store. */
void bip32_fingerprint(uint8_t out4[4], const struct bip32_key *k);

/** Drops k's secret (Core's Neuter). */
void bip32_key_wipe(struct bip32_key *k);

#endif
