/* Signature, key-encoding and lock-time checks used by the opcode machine. Internal to the
 * script layer (interpreter.c and verify.c); other layers use interpreter.h. */
#ifndef BITNODE_SCRIPT_CHECKER_H
#define BITNODE_SCRIPT_CHECKER_H

#include <stddef.h>
#include <stdint.h>

#include "script/interpreter.h"
#include "util/buf.h"

/** Core's CheckSignatureEncoding (DERSIG/LOW_S/STRICTENC rules; an empty signature always
 *  passes). Returns 1, or 0 with *err SIG_DER, SIG_HIGH_S or SIG_HASHTYPE. */
int script_check_sig_encoding(const uint8_t *sig, size_t len, uint32_t flags,
                              enum script_error *err);

/** Core's CheckPubKeyEncoding (STRICTENC key types; compressed keys only in witness v0
 *  under WITNESS_PUBKEYTYPE). Returns 1, or 0 with *err PUBKEYTYPE or WITNESS_PUBKEYTYPE. */
int script_check_pubkey_encoding(const uint8_t *pk, size_t len, uint32_t flags, enum sig_version sv,
                                 enum script_error *err);

/** TransactionSignatureChecker::CheckECDSASignature: sig includes its hash type byte;
 *  script_code is the signed script (already without signatures for BASE). Consults and
 *  (if chk->sigcache_store) fills chk->sigcache. Returns 1 if the signature is valid. */
int script_checker_ecdsa(const struct script_checker *chk, const uint8_t *sig, size_t sig_len,
                         const uint8_t *pk, size_t pk_len, const uint8_t *script_code,
                         size_t code_len, enum sig_version sv);

/** CheckLockTime (BIP65) and CheckSequence (BIP112) against chk's transaction input. */
int script_checker_locktime(const struct script_checker *chk, int64_t locktime);
int script_checker_sequence(const struct script_checker *chk, int64_t sequence);

/** EvalChecksigPreTapscript: FindAndDelete (BASE; scratch receives the changed script
 *  code), encoding checks, the signature check, NULLFAIL.
 *  Returns 1 with *success the check's result, or 0 with *err set (script fails). */
int script_eval_checksig_pre_tapscript(const uint8_t *sig, size_t sig_len, const uint8_t *pk,
                                       size_t pk_len, const uint8_t *code, size_t code_len,
                                       uint32_t flags, const struct script_checker *chk,
                                       enum sig_version sv, struct buf *scratch,
                                       enum script_error *err, int *success);

/** EvalChecksigTapscript: validation-weight budget, empty/32-byte/unknown key types,
 *  Schnorr check. Returns 1 with *success, or 0 with *err set. */
int script_eval_checksig_tapscript(const uint8_t *sig, size_t sig_len, const uint8_t *pk,
                                   size_t pk_len, struct script_execdata *ed, uint32_t flags,
                                   const struct script_checker *chk, enum script_error *err,
                                   int *success);

#endif
