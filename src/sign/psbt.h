/* Partially signed transactions (BIP174 version 0, and BIP370 version 2) as Bitcoin Core's
 * psbt.{h,cpp} and node/psbt.cpp handle them: parsing with Core's checks and messages,
 * serialization in Core's canonical order (so a round trip through bitnode gives Core's bytes),
 * combining, finalizing, extracting, analyzing, and filling inputs from known outputs.
 *
 * Every field Core knows is parsed and checked; the ones bitnode only carries (BIP32
 * derivations, preimages, tapscript data, MuSig2, global xpubs) are kept as records, and
 * proprietary and unknown records are round-tripped byte for byte. Wire format: BIP174.
 *
 * Pure: no I/O.
 */
#ifndef BITNODE_SIGN_PSBT_H
#define BITNODE_SIGN_PSBT_H

#include <stddef.h>
#include <stdint.h>

#include "primitives/tx.h"
#include "sign/sign.h"
#include "util/buf.h"

/* Key types (BIP174, BIP370, BIP371, BIP373). */
#define PSBT_GLOBAL_UNSIGNED_TX 0x00
#define PSBT_GLOBAL_XPUB 0x01
#define PSBT_GLOBAL_TX_VERSION 0x02
#define PSBT_GLOBAL_FALLBACK_LOCKTIME 0x03
#define PSBT_GLOBAL_INPUT_COUNT 0x04
#define PSBT_GLOBAL_OUTPUT_COUNT 0x05
#define PSBT_GLOBAL_TX_MODIFIABLE 0x06
#define PSBT_GLOBAL_VERSION 0xfb
#define PSBT_GLOBAL_PROPRIETARY 0xfc

#define PSBT_IN_NON_WITNESS_UTXO 0x00
#define PSBT_IN_WITNESS_UTXO 0x01
#define PSBT_IN_PARTIAL_SIG 0x02
#define PSBT_IN_SIGHASH 0x03
#define PSBT_IN_REDEEMSCRIPT 0x04
#define PSBT_IN_WITNESSSCRIPT 0x05
#define PSBT_IN_BIP32_DERIVATION 0x06
#define PSBT_IN_SCRIPTSIG 0x07
#define PSBT_IN_SCRIPTWITNESS 0x08
#define PSBT_IN_RIPEMD160 0x0a
#define PSBT_IN_SHA256 0x0b
#define PSBT_IN_HASH160 0x0c
#define PSBT_IN_HASH256 0x0d
#define PSBT_IN_PREVIOUS_TXID 0x0e
#define PSBT_IN_OUTPUT_INDEX 0x0f
#define PSBT_IN_SEQUENCE 0x10
#define PSBT_IN_REQUIRED_TIME_LOCKTIME 0x11
#define PSBT_IN_REQUIRED_HEIGHT_LOCKTIME 0x12
#define PSBT_IN_TAP_KEY_SIG 0x13
#define PSBT_IN_TAP_SCRIPT_SIG 0x14
#define PSBT_IN_TAP_LEAF_SCRIPT 0x15
#define PSBT_IN_TAP_BIP32_DERIVATION 0x16
#define PSBT_IN_TAP_INTERNAL_KEY 0x17
#define PSBT_IN_TAP_MERKLE_ROOT 0x18
#define PSBT_IN_MUSIG2_PARTICIPANT_PUBKEYS 0x1a
#define PSBT_IN_MUSIG2_PUB_NONCE 0x1b
#define PSBT_IN_MUSIG2_PARTIAL_SIG 0x1c
#define PSBT_IN_PROPRIETARY 0xfc

#define PSBT_OUT_REDEEMSCRIPT 0x00
#define PSBT_OUT_WITNESSSCRIPT 0x01
#define PSBT_OUT_BIP32_DERIVATION 0x02
#define PSBT_OUT_AMOUNT 0x03
#define PSBT_OUT_SCRIPT 0x04
#define PSBT_OUT_TAP_INTERNAL_KEY 0x05
#define PSBT_OUT_TAP_TREE 0x06
#define PSBT_OUT_TAP_BIP32_DERIVATION 0x07
#define PSBT_OUT_MUSIG2_PARTICIPANT_PUBKEYS 0x08
#define PSBT_OUT_PROPRIETARY 0xfc

/* One key-value record: key is the key type (a CompactSize) and the key data. */
struct psbt_kv {
    struct bytes key;
    struct bytes value;
};

/* Records of a map that are not held as typed fields below, in no particular order. */
struct psbt_map {
    struct psbt_kv *v;
    size_t n;
};

struct psbt_input {
    struct outpoint prevout;
    int has_sequence; /* v2: PSBT_IN_SEQUENCE present; v0: always (from the tx) */
    uint32_t sequence;
    int has_time_locktime;
    uint32_t time_locktime;
    int has_height_locktime;
    uint32_t height_locktime;
    struct tx *non_witness_utxo; /* owned, or NULL */
    int has_witness_utxo;
    struct tx_out witness_utxo; /* script owned */
    int has_sighash;
    int32_t sighash;
    struct bytes redeem_script;    /* empty: absent */
    struct bytes witness_script;   /* empty: absent */
    struct bytes final_script_sig; /* empty: absent */
    struct bytes *final_witness;   /* no items: absent */
    size_t final_witness_count;
    struct bytes tap_key_sig; /* empty: absent */
    int has_tap_internal_key;
    uint8_t tap_internal_key[32];
    int has_tap_merkle_root;
    uint8_t tap_merkle_root[32];
    /* Partial signatures, BIP32 derivations, preimages, tapscript and MuSig2 records,
     * proprietary and unknown records. */
    struct psbt_map fields;
};

struct psbt_output {
    int64_t amount;
    struct bytes script;
    struct bytes redeem_script;  /* empty: absent */
    struct bytes witness_script; /* empty: absent */
    /* BIP32 derivations, taproot and MuSig2 records, proprietary and unknown records. */
    struct psbt_map fields;
};

struct psbt {
    uint32_t version; /* PSBT version: 0 or 2 */
    uint32_t tx_version;
    int has_fallback_locktime; /* v0: always (the tx's locktime) */
    uint32_t fallback_locktime;
    int has_tx_modifiable;
    uint8_t tx_modifiable;
    struct psbt_input *inputs;
    size_t n_inputs;
    struct psbt_output *outputs;
    size_t n_outputs;
    struct psbt_map fields; /* global xpubs, proprietary and unknown records */
};

/* Which kind of map a record is in. */
enum psbt_map_kind {
    PSBT_MAP_GLOBAL,
    PSBT_MAP_INPUT,
    PSBT_MAP_OUTPUT,
};

/** The records of m with key type t (-1: the records of types Core does not know for this
 *  kind of map) in Core's order (its std::map key order). Returns a new array of *n borrowed
 *  pointers (caller frees the array). */
const struct psbt_kv **psbt_map_sorted(const struct psbt_map *m, enum psbt_map_kind kind, int t,
                                       size_t *n);

/** Makes p empty (no allocation). */
void psbt_init(struct psbt *p);
/** Frees everything p owns and makes it empty. */
void psbt_clear(struct psbt *p);
/** Deep copy: dst (uninitialised) becomes an independent copy of src. */
void psbt_copy(struct psbt *dst, const struct psbt *src);

/** A PSBT of the given version (0 or 2) for an unsigned transaction (Core's constructor):
 *  the inputs' scripts and witnesses are ignored. */
void psbt_from_tx(struct psbt *p, const struct tx *tx, uint32_t version);

/** Parses a PSBT (Core's DecodeRawPSBT).
 *  Returns: 0 with *p filled (caller clears); RC_INVALID with err set to Core's message
 *           ("Invalid PSBT magic bytes: iostream error", "extra data after PSBT", ...), *p
 *           empty. */
int psbt_parse(struct psbt *p, const uint8_t *data, size_t len, char *err, size_t err_len);
/** Core's DecodeBase64PSBT: base64 (Core's DecodeBase64 rules), then psbt_parse; bad base64
 *  is "invalid base64". */
int psbt_parse_base64(struct psbt *p, const char *b64, char *err, size_t err_len);
/** Appends the serialization of p in Core's field order. */
void psbt_serialize(const struct psbt *p, struct buf *out);
/** The base64 of the serialization (caller frees). */
char *psbt_to_base64(const struct psbt *p);

/** Core's GetUnsignedTx: the transaction the PSBT describes (no scripts or witnesses), with
 *  hashes computed. Returns 0 with *tx (caller clears), or RC_INVALID when the v2 inputs'
 *  lock times cannot be satisfied together. */
int psbt_get_unsigned_tx(const struct psbt *p, struct tx *tx);

/** Core's PSBTInput::GetUTXO: the output the input spends from its non-witness UTXO (which
 *  must match the outpoint) or its witness UTXO. Returns a borrowed pointer, or NULL. */
const struct tx_out *psbt_input_utxo(const struct psbt_input *in);
/** Core's PSBTInputSigned: 1 if the input has a final scriptSig or witness. */
int psbt_input_is_final(const struct psbt_input *in);

/** Core's PartiallySignedTransaction::Merge over several PSBTs (CombinePSBTs): into *out
 *  (uninitialised). Returns 0, or RC_INVALID when they are not for the same transaction. */
int psbt_combine(struct psbt *out, const struct psbt *const *ps, size_t n);

/* Core's PSBTError values that callers tell apart. */
enum psbt_sign_result {
    PSBT_SIGN_OK = 0,
    PSBT_SIGN_INCOMPLETE,
    PSBT_SIGN_MISSING_INPUTS,
    PSBT_SIGN_SIGHASH_MISMATCH,
    PSBT_SIGN_INVALID_TX,
};

/** Core's SignPSBTInput for input idx: fills it from provider (may be NULL) and what it holds,
 *  signing what the provider's keys can, finalizing when finalize is set and the solution is
 *  complete. txdata NULL makes placeholder signatures (size estimates). sighash < 0: none
 *  requested. missing (may be NULL) receives what was found missing (caller clears). */
enum psbt_sign_result psbt_sign_input(struct psbt *p, size_t idx, const struct sign_provider *prov,
                                      const struct tx_precomputed *txdata, int sighash,
                                      int finalize, struct sign_data *missing);

/** Core's FinalizePSBT: finalizes every input that can be. Returns 1 if all are final. */
int psbt_finalize(struct psbt *p);
/** Core's FinalizeAndExtractPSBT: 1 with *tx (uninitialised; caller clears) the signed
 *  transaction, or 0 (p finalized as far as it goes, *tx untouched). */
int psbt_finalize_extract(struct psbt *p, struct tx *tx);

/** Core's RemoveUnnecessaryTransactions: drops the non-witness UTXOs when every input is
 *  segwit v1+ and none signs with ANYONECANPAY. */
void psbt_remove_unneeded_utxos(struct psbt *p);

/* Core's PSBTRole. */
enum psbt_role {
    PSBT_ROLE_CREATOR = 0,
    PSBT_ROLE_UPDATER,
    PSBT_ROLE_SIGNER,
    PSBT_ROLE_FINALIZER,
    PSBT_ROLE_EXTRACTOR,
};

/** "creator", "updater", "signer", "finalizer", "extractor". */
const char *psbt_role_name(enum psbt_role r);

struct psbt_input_analysis {
    int has_utxo;
    int is_final;
    enum psbt_role next;
    struct sign_data missing; /* missing_* fields only */
};

/* Core's PSBTAnalysis. */
struct psbt_analysis {
    struct psbt_input_analysis *inputs;
    size_t n_inputs;
    int has_estimate; /* estimated_vsize and estimated_feerate_per_kvb are set */
    size_t estimated_vsize;
    int64_t estimated_feerate_per_kvb; /* sat per 1000 vbytes (CFeeRate::GetFeePerK) */
    int has_fee;
    int64_t fee_sat;
    enum psbt_role next;
    char error[96]; /* "" when none */
};

/** Core's AnalyzePSBT (a copy of p is worked on). Fill *a; clear with psbt_analysis_clear. */
void psbt_analyze(const struct psbt *p, struct psbt_analysis *a);
void psbt_analysis_clear(struct psbt_analysis *a);


#endif
