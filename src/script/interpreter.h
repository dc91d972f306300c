/* The consensus script interpreter (Core's EvalScript / VerifyScript): legacy scripts, BIP16
 * P2SH, BIP141 segwit v0, BIP341 taproot key path and BIP342 tapscript.
 *
 * A verdict is the return value (1 valid, 0 invalid) plus an enum script_error naming the
 * reason; nothing here does I/O or logs. Thread-safe: every call works on its own stacks,
 * the shared secp256k1 context is read-only, and the optional signature cache locks.
 */
#ifndef BITNODE_SCRIPT_INTERPRETER_H
#define BITNODE_SCRIPT_INTERPRETER_H

#include <stddef.h>
#include <stdint.h>

#include "primitives/tx.h"
#include "script/script_error.h"
#include "script/sighash.h"

struct sigcache;

/* What signatures and lock times are checked against (Core's
 * TransactionSignatureChecker). All pointers are borrowed for the call. */
struct script_checker {
    const struct tx *tx;                 /* NULL: every signature and lock-time check fails */
    size_t in_idx;                       /* the input being verified */
    int64_t amount;                      /* value of the output it spends (BIP143) */
    const struct tx_precomputed *txdata; /* may be NULL; needed for taproot signatures */
    struct sigcache *sigcache;           /* may be NULL */
    int sigcache_store;                  /* 1: remember successful checks in sigcache */
};

/* One item of an interpreter stack. The buffers are reused after a pop, so a stack
 * allocates only when it grows past its previous high-water mark. */
struct script_item {
    uint8_t *data;
    size_t len;
    size_t cap;
};

struct script_stack {
    struct script_item *v;
    size_t n;   /* live items */
    size_t cap; /* slots allocated (items past n keep their buffers) */
};

/** Makes st empty (no allocation). */
void script_stack_init(struct script_stack *st);
/** Frees every buffer st owns. */
void script_stack_clear(struct script_stack *st);
/** Pushes a copy of p[0..len). p may point into another item of st. */
void script_stack_push(struct script_stack *st, const uint8_t *p, size_t len);

/** Runs one script on stack (Core's EvalScript).
 *  Returns: 1 on success; 0 with *err set on failure.
 *  In:      sigversion: BASE, WITNESS_V0 or TAPSCRIPT. ed: execution data (tapscript needs
 *           the tapleaf hash and validation weight set; codeseparator_pos is set here).
 */
int script_eval(struct script_stack *stack, const uint8_t *script, size_t len, uint32_t flags,
                const struct script_checker *chk, enum sig_version sigversion,
                struct script_execdata *ed, enum script_error *err);

/** Verifies that script_sig (plus witness) satisfies script_pubkey (Core's VerifyScript).
 *  Returns: 1 valid; 0 invalid with *err the reason (SCRIPT_ERR_OK on success).
 *  In:      witness: the input's witness items, bottom first (NULL when count is 0).
 *           flags: SCRIPT_VERIFY_*; callers pass CLEANSTACK only with P2SH and WITNESS,
 *           and WITNESS only with P2SH, as Core requires (other combinations are evaluated
 *           as written, never aborted on, so arbitrary flags are safe to fuzz).
 *  Thread:  any; concurrent calls share nothing but the read-only secp256k1 context and
 *           the (locked) signature cache.
 */
int script_verify(const uint8_t *script_sig, size_t script_sig_len, const uint8_t *script_pubkey,
                  size_t script_pubkey_len, const struct bytes *witness, size_t witness_count,
                  uint32_t flags, const struct script_checker *chk, enum script_error *err);

/** Verifies input in_idx of tx against the output it spends. A convenience over
 *  script_verify. txdata may be NULL (then taproot spends fail); sigcache may be NULL. */
int script_verify_input(const struct tx *tx, size_t in_idx, const struct tx_out *spent,
                        const struct tx_precomputed *txdata, uint32_t flags,
                        struct sigcache *sigcache, int sigcache_store, enum script_error *err);

/** Core's TransactionSignatureChecker::CheckSchnorrSignature: sig is 64 bytes, or 65 with
 *  an explicit non-zero hash type; pk32 is an x-only key. Returns 1 if valid, else 0 with
 *  *err SCHNORR_SIG_SIZE, SCHNORR_SIG_HASHTYPE or SCHNORR_SIG. */
int script_checker_schnorr(const struct script_checker *chk, const uint8_t *sig, size_t sig_len,
                           const uint8_t *pk32, enum sig_version sigversion,
                           const struct script_execdata *ed, enum script_error *err);

/** BIP342: 1 for the OP_SUCCESSx opcodes. */
int script_is_op_success(uint8_t opcode);

/** BIP341 TapLeaf hash of (leaf_version, script). */
void script_tapleaf_hash(uint8_t out32[32], uint8_t leaf_version, const uint8_t *script,
                         size_t len);
/** BIP341 TapBranch hash of two child hashes (ordered lexicographically inside). */
void script_tapbranch_hash(uint8_t out32[32], const uint8_t a32[32], const uint8_t b32[32]);
/** Merkle root from a control block's path (control[33..]) and the leaf hash. control_len
 *  must be 33 + 32k. */
void script_taproot_merkle_root(uint8_t out32[32], const uint8_t *control, size_t control_len,
                                const uint8_t leaf32[32]);

/** Core's FindAndDelete: removes every occurrence of pattern that starts at an opcode
 *  boundary of script. Returns the number removed; when > 0, out receives the result
 *  (out is untouched otherwise). */
int script_find_and_delete(struct buf *out, const uint8_t *script, size_t len,
                           const uint8_t *pattern, size_t pattern_len);

#endif
