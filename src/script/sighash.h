/* Signature hashes: legacy (with SIGHASH_SINGLE's "one" bug), BIP143 (segwit v0) and
 * BIP341/342 (taproot key path and tapscript), plus the per-transaction precomputed
 * hashes they share. Semantics follow Core's script/interpreter.cpp SignatureHash and
 * SignatureHashSchnorr.
 */
#ifndef BITNODE_SCRIPT_SIGHASH_H
#define BITNODE_SCRIPT_SIGHASH_H

#include <stddef.h>
#include <stdint.h>

#include "primitives/tx.h"

#define SIGHASH_DEFAULT 0 /* taproot only: ALL, with a 64-byte signature */
#define SIGHASH_ALL 1
#define SIGHASH_NONE 2
#define SIGHASH_SINGLE 3
#define SIGHASH_ANYONECANPAY 0x80
#define SIGHASH_OUTPUT_MASK 3
#define SIGHASH_INPUT_MASK 0x80

enum sig_version {
    SIGVERSION_BASE = 0,       /* bare scripts and BIP16 P2SH redeem scripts */
    SIGVERSION_WITNESS_V0 = 1, /* BIP141 P2WSH / P2WPKH */
    SIGVERSION_TAPROOT = 2,    /* BIP341 key path */
    SIGVERSION_TAPSCRIPT = 3,  /* BIP342 script path, leaf version 0xc0 */
};

/* What a taproot spend adds to the signature hash (Core's ScriptExecutionData). */
struct script_execdata {
    int tapleaf_hash_init;
    uint8_t tapleaf_hash[32];
    int codeseparator_pos_init;
    uint32_t codeseparator_pos; /* opcode position of the last executed OP_CODESEPARATOR */
    int annex_init;
    int annex_present;
    uint8_t annex_hash[32]; /* SHA256 of the CompactSize-prefixed annex */
    int validation_weight_left_init;
    int64_t validation_weight_left;
};

/* Hashes computed once per transaction (Core's PrecomputedTransactionData). */
struct tx_precomputed {
    /* BIP341: single SHA256 of the concatenations. */
    uint8_t prevouts_single[32];
    uint8_t sequences_single[32];
    uint8_t outputs_single[32];
    uint8_t spent_amounts_single[32];
    uint8_t spent_scripts_single[32];
    /* BIP143: SHA256d of the same (SHA256 of the single hashes). */
    uint8_t hash_prevouts[32];
    uint8_t hash_sequence[32];
    uint8_t hash_outputs[32];
    int bip143_ready;
    int bip341_ready;                   /* set only when every spent output is known */
    const struct tx_out *spent_outputs; /* borrowed; vin_count entries, or NULL */
    size_t spent_count;
};

/** Computes the precomputed hashes of tx.
 *  In:  spent_outputs: the outputs tx's inputs spend, in input order (borrowed: they must
 *       outlive *pd), or NULL when unknown (then taproot signatures cannot be checked).
 *       n: their count (must equal tx->vin_count when spent_outputs is not NULL).
 */
void sighash_precompute(struct tx_precomputed *pd, const struct tx *tx,
                        const struct tx_out *spent_outputs, size_t n);

/** Legacy signature hash (Core's SignatureHash for SigVersion::BASE). script_code has any
 *  signatures already removed (FindAndDelete); OP_CODESEPARATORs are stripped here.
 *  Writes the "one" hash (1, 0, 0, ...) for SIGHASH_SINGLE without a matching output or
 *  an input index out of range. hash_type is the full 32-bit value serialized. */
void sighash_legacy(uint8_t out32[32], const uint8_t *script_code, size_t script_len,
                    const struct tx *tx, size_t in_idx, int32_t hash_type);

/** BIP143 signature hash. pd may be NULL (hashes are then computed on the fly). */
void sighash_witness_v0(uint8_t out32[32], const uint8_t *script_code, size_t script_len,
                        const struct tx *tx, size_t in_idx, int32_t hash_type, int64_t amount,
                        const struct tx_precomputed *pd);

/** BIP341/342 signature hash (Core's SignatureHashSchnorr).
 *  Returns: 1 with out32 set; 0 for an undefined hash type, SIGHASH_SINGLE without a
 *           matching output, or pd without the spent outputs.
 *  In:      sigversion: SIGVERSION_TAPROOT or SIGVERSION_TAPSCRIPT; ed: the annex (both)
 *           and the tapleaf hash and code separator position (tapscript).
 *  Out:     preimage (may be NULL): receives the message hashed after the tag prefix
 *           (BIP341's SigMsg with the epoch byte), for tests.
 */
int sighash_taproot(uint8_t out32[32], const struct tx *tx, size_t in_idx, uint8_t hash_type,
                    enum sig_version sigversion, const struct script_execdata *ed,
                    const struct tx_precomputed *pd, struct buf *preimage);

#endif
