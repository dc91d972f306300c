/* Producing signatures and final scriptSigs / witnesses for the standard output types, as
 * Bitcoin Core's script/sign.cpp does (ProduceSignature, SignStep, DataFromTransaction,
 * SignTransaction): P2PK, P2PKH, P2SH (with its redeem script), bare / P2SH / P2WSH /
 * P2SH-P2WSH multisig, P2WPKH (native and P2SH-wrapped), P2TR key path (BIP341 tweak of an
 * internal key, or the output key itself) and pay-to-anchor.
 *
 * ECDSA signatures are RFC6979 with Core's low-R grinding, so the bytes equal Core's; Schnorr
 * signatures use all-zero auxiliary randomness, as Core's signer does today.
 *
 * Not here (Core has them): tapscript (script path) signing, miniscript satisfaction of other
 * P2WSH scripts, MuSig2, hash preimages, key origins.
 *
 * Pure: no I/O. Keys are wiped when a provider is cleared.
 */
#ifndef BITNODE_SIGN_SIGN_H
#define BITNODE_SIGN_SIGN_H

#include <stddef.h>
#include <stdint.h>

#include "primitives/tx.h"
#include "script/sighash.h"
#include "util/buf.h"

/* One private key with its public key in the form it is used (Core's CKey + CPubKey). */
struct sign_key {
    uint8_t secret[32];
    int compressed;
    uint8_t pubkey[65];
    size_t pubkey_len;
    uint8_t keyid[20]; /* HASH160 of pubkey */
    uint8_t xonly[32]; /* x coordinate of the key (for taproot lookups) */
};

/* Taproot spend data known for an output key (Core's TaprootSpendData, key path only). */
struct sign_tr_spend {
    uint8_t output[32];
    uint8_t internal[32];
    int has_merkle_root;
    uint8_t merkle_root[32];
};

/* What the signer may use (Core's FlatSigningProvider): keys and scripts. */
struct sign_provider {
    struct sign_key *keys;
    size_t n_keys;
    struct bytes *scripts; /* looked up by HASH160 (P2SH) or by HASH160 of SHA256 (P2WSH) */
    size_t n_scripts;
    struct sign_tr_spend *tr;
    size_t n_tr;
};

/** Makes p empty (no allocation). */
void sign_provider_init(struct sign_provider *p);
/** Wipes the keys and frees everything p owns. */
void sign_provider_clear(struct sign_provider *p);
/** Adds a private key. Returns 0, or RC_INVALID if key32 is not a valid secret. */
int sign_provider_add_key(struct sign_provider *p, const uint8_t key32[32], int compressed);
/** Adds a script (a redeem script or a witness script); a copy is kept. */
void sign_provider_add_script(struct sign_provider *p, const uint8_t *script, size_t len);
/** Adds taproot spend data for the output key of internal32 tweaked with merkle_root32 (NULL:
 *  key-path-only output). Returns 0, or RC_INVALID if internal32 is not a valid x-only key. */
int sign_provider_add_taproot(struct sign_provider *p, const uint8_t internal32[32],
                              const uint8_t *merkle_root32);

/* A signature with the key it is for (Core's SigPair, keyed by CKeyID). */
struct sign_sig {
    uint8_t pubkey[65];
    size_t pubkey_len;
    uint8_t keyid[20];
    struct bytes sig; /* DER with the hash type byte; owned */
};

/* A public key known without its private key (Core's misc_pubkeys). */
struct sign_pubkey {
    uint8_t pubkey[65];
    size_t pubkey_len;
    uint8_t keyid[20];
};

/* Core's SignatureData: what is known about an input's solution, and the result. */
struct sign_data {
    int complete; /* script_sig / witness are final and verified */
    int witness;  /* the solution is (or would be) a witness spend */
    struct bytes script_sig;
    struct bytes *stack; /* the witness (owned), bottom first */
    size_t stack_count;
    struct bytes redeem_script;
    struct bytes witness_script;
    struct sign_sig *sigs;
    size_t n_sigs;
    struct sign_pubkey *pubkeys;
    size_t n_pubkeys;
    /* Taproot key path. */
    struct bytes tap_key_sig;
    int has_internal_key;
    uint8_t internal_key[32];
    int has_merkle_root;
    uint8_t merkle_root[32];
    /* What signing found missing (Core's missing_*), for analyzepsbt. */
    uint8_t (*missing_pubkeys)[20];
    size_t n_missing_pubkeys;
    uint8_t (*missing_sigs)[20];
    size_t n_missing_sigs;
    int has_missing_redeem;
    uint8_t missing_redeem[20]; /* HASH160 of the redeem script */
    int has_missing_witness;
    uint8_t missing_witness[32]; /* SHA256 of the witness script */
};

/** Makes d empty (no allocation). */
void sign_data_init(struct sign_data *d);
/** Frees everything d owns and makes it empty. */
void sign_data_clear(struct sign_data *d);
/** Adds a signature for pubkey unless one for the same key is there (the copy is d's). */
void sign_data_add_sig(struct sign_data *d, const uint8_t *pubkey, size_t pubkey_len,
                       const uint8_t *sig, size_t sig_len);
/** Adds a known public key unless it is there. */
void sign_data_add_pubkey(struct sign_data *d, const uint8_t *pubkey, size_t pubkey_len);
/** Sets *dst to a copy of p[0..n) (freeing what it held). */
void sign_bytes_set(struct bytes *dst, const uint8_t *p, size_t n);

/* How signatures are made (Core's BaseSignatureCreator). */
enum sign_mode {
    SIGN_REAL,  /* MutableTransactionSignatureCreator: real signatures, real verification */
    SIGN_DUMMY, /* DUMMY_SIGNATURE_CREATOR: 71-byte ECDSA and 64-byte Schnorr placeholders for
                   size estimates; "complete" then means "solved" */
};

struct sign_creator {
    enum sign_mode mode;
    const struct tx *tx; /* borrowed; hashes must be current */
    size_t in_idx;
    int64_t amount;                      /* value of the spent output */
    const struct tx_precomputed *txdata; /* may be NULL: then no taproot signature */
    int sighash_type;                    /* SIGHASH_DEFAULT (taproot) or ALL, NONE, ... */
};

/** Core's ProduceSignature: solves script_pubkey with what d and p know, creating the
 *  signatures it can, and sets d->script_sig, d->stack, d->witness and d->complete (a
 *  solution that verifies with SCRIPT_FLAGS_STANDARD). Nothing is done if d->complete is set.
 *  Returns d->complete. */
int sign_produce(const struct sign_provider *p, const struct sign_creator *c,
                 const uint8_t *script_pubkey, size_t spk_len, struct sign_data *d);

/** Core's DataFromTransaction: what input in_idx of tx already holds (complete if it
 *  verifies against spent; else its redeem / witness script and the multisig signatures that
 *  are valid). d must be empty. */
void sign_data_from_tx(struct sign_data *d, const struct tx *tx, size_t in_idx,
                       const struct tx_out *spent);

/** Core's SignatureData::MergeSignatureData: adds src's scripts and signatures to dst (a
 *  complete src replaces dst). */
void sign_data_merge(struct sign_data *dst, const struct sign_data *src);

/** Writes d's scriptSig and witness into in (Core's UpdateInput). */
void sign_data_update_input(struct tx_in *in, const struct sign_data *d);

/** RFC6979 ECDSA with Core's low-R grinding. Appends the DER signature (no hash type) to out.
 *  Returns 0, or RC_INVALID for an invalid key. */
int sign_ecdsa(struct buf *out, const uint8_t key32[32], const uint8_t hash32[32]);

/** BIP340 signature of hash32 by key32 (with all-zero aux randomness unless aux32 is given),
 *  the key first tweaked as BIP341 says when tweak is set (merkle_root32 NULL: key-path-only
 *  tweak). Returns 0, or RC_INVALID. */
int sign_schnorr(uint8_t sig64[64], const uint8_t key32[32], int tweak,
                 const uint8_t *merkle_root32, const uint8_t hash32[32], const uint8_t *aux32);

/* One input's signing failure (Core's input_errors): the message Core reports. */
struct sign_tx_error {
    size_t in_idx;
    char msg[96];
};

/** Core's SignTransaction: signs every input of tx whose spent output is known (spent[i]
 *  NULL: not found), merging what the input already holds, with sighash_type (SIGHASH_DEFAULT
 *  signs ALL outside taproot). Inputs that do not verify afterwards get an error; an input
 *  with a witness whose amount is missing (value MAX_MONEY) gets "Missing amount".
 *  Returns 1 if every input is complete; *errs (new array, caller frees) and *n_errs list the
 *  failures in input order. */
int sign_tx(struct tx *tx, const struct sign_provider *p, const struct tx_out *const *spent,
            int sighash_type, struct sign_tx_error **errs, size_t *n_errs);

#endif
