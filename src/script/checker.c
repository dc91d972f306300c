/* Signature and lock-time checks the opcode machine calls (Core's
 * TransactionSignatureChecker, CheckSignatureEncoding, CheckPubKeyEncoding,
 * EvalChecksigPreTapscript / EvalChecksigTapscript and FindAndDelete). */
#include "script/checker.h"

#include <string.h>

#include "script/script.h"
#include "script/sigcache.h"
#include "script/sigcheck.h"

int script_find_and_delete(struct buf *out, const uint8_t *script, size_t len,
                           const uint8_t *pattern, size_t pattern_len)
{
    int found = 0;
    if (pattern_len == 0) {
        return 0;
    }
    struct buf result;
    buf_init(&result);
    size_t pc = 0, pc2 = 0;
    uint8_t op;
    do {
        buf_append(&result, script + pc2, pc - pc2);
        while (len - pc >= pattern_len && memcmp(script + pc, pattern, pattern_len) == 0) {
            pc += pattern_len;
            found++;
        }
        pc2 = pc;
    } while (script_get_op(script, len, &pc, &op, NULL, NULL));
    if (found > 0) {
        buf_append(&result, script + pc2, len - pc2);
        buf_reset(out);
        buf_append(out, result.data, result.len);
    }
    buf_clear(&result);
    return found;
}

static int is_compressed_or_uncompressed_pubkey(const uint8_t *pk, size_t len)
{
    if (len < 33) {
        return 0;
    }
    if (pk[0] == 0x04) {
        return len == 65;
    }
    if (pk[0] == 0x02 || pk[0] == 0x03) {
        return len == 33;
    }
    return 0;
}

static int is_compressed_pubkey(const uint8_t *pk, size_t len)
{
    return len == 33 && (pk[0] == 0x02 || pk[0] == 0x03);
}

static int is_defined_hashtype_signature(const uint8_t *sig, size_t len)
{
    if (len == 0) {
        return 0;
    }
    uint8_t ht = sig[len - 1] & (uint8_t)~SIGHASH_ANYONECANPAY;
    return ht >= SIGHASH_ALL && ht <= SIGHASH_SINGLE;
}

/* Core's CheckSignatureEncoding. */
int script_check_sig_encoding(const uint8_t *sig, size_t len, uint32_t flags,
                              enum script_error *err)
{
    if (len == 0) {
        /* A compact way to provide an invalid signature to CHECK(MULTI)SIG. */
        return 1;
    }
    if ((flags & (SCRIPT_VERIFY_DERSIG | SCRIPT_VERIFY_LOW_S | SCRIPT_VERIFY_STRICTENC)) &&
        !script_sig_is_valid_der(sig, len)) {
        *err = SCRIPT_ERR_SIG_DER;
        return 0;
    }
    if (flags & SCRIPT_VERIFY_LOW_S) {
        /* IsLowDERSignature: the encoding was checked above. */
        if (!script_ecdsa_is_low_s(sig, len - 1)) {
            *err = SCRIPT_ERR_SIG_HIGH_S;
            return 0;
        }
    }
    if ((flags & SCRIPT_VERIFY_STRICTENC) && !is_defined_hashtype_signature(sig, len)) {
        *err = SCRIPT_ERR_SIG_HASHTYPE;
        return 0;
    }
    return 1;
}

/* Core's CheckPubKeyEncoding. */
int script_check_pubkey_encoding(const uint8_t *pk, size_t len, uint32_t flags, enum sig_version sv,
                                 enum script_error *err)
{
    if ((flags & SCRIPT_VERIFY_STRICTENC) && !is_compressed_or_uncompressed_pubkey(pk, len)) {
        *err = SCRIPT_ERR_PUBKEYTYPE;
        return 0;
    }
    if ((flags & SCRIPT_VERIFY_WITNESS_PUBKEYTYPE) && sv == SIGVERSION_WITNESS_V0 &&
        !is_compressed_pubkey(pk, len)) {
        *err = SCRIPT_ERR_WITNESS_PUBKEYTYPE;
        return 0;
    }
    return 1;
}

/* TransactionSignatureChecker::CheckECDSASignature (with the signature cache). */
int script_checker_ecdsa(const struct script_checker *chk, const uint8_t *sig, size_t sig_len,
                         const uint8_t *pk, size_t pk_len, const uint8_t *script_code,
                         size_t code_len, enum sig_version sv)
{
    uint8_t sighash[32], entry[32];
    if (!chk || !chk->tx || chk->in_idx >= chk->tx->vin_count) {
        return 0;
    }
    if (pk_len == 0 || sig_len == 0) {
        return 0;
    }
    int32_t hash_type = sig[sig_len - 1];
    if (sv == SIGVERSION_BASE) {
        sighash_legacy(sighash, script_code, code_len, chk->tx, chk->in_idx, hash_type);
    } else {
        sighash_witness_v0(sighash, script_code, code_len, chk->tx, chk->in_idx, hash_type,
                           chk->amount, chk->txdata);
    }
    /* The key is made only when it can be found or will be stored. */
    int cached = chk->sigcache && (chk->sigcache_store || !sigcache_empty(chk->sigcache));
    if (cached) {
        sigcache_entry_ecdsa(chk->sigcache, entry, sighash, sig, sig_len - 1, pk, pk_len);
        if (sigcache_contains(chk->sigcache, entry)) {
            return 1;
        }
    }
    if (!script_ecdsa_verify(sig, sig_len - 1, pk, pk_len, sighash)) {
        return 0;
    }
    if (cached && chk->sigcache_store) {
        sigcache_insert(chk->sigcache, entry);
    }
    return 1;
}

int script_checker_schnorr(const struct script_checker *chk, const uint8_t *sig, size_t sig_len,
                           const uint8_t *pk, enum sig_version sv, const struct script_execdata *ed,
                           enum script_error *err)
{
    uint8_t sighash[32], entry[32];
    uint8_t hash_type = SIGHASH_DEFAULT;
    if (sig_len != 64 && sig_len != 65) {
        *err = SCRIPT_ERR_SCHNORR_SIG_SIZE;
        return 0;
    }
    if (sig_len == 65) {
        hash_type = sig[64];
        if (hash_type == SIGHASH_DEFAULT) {
            *err = SCRIPT_ERR_SCHNORR_SIG_HASHTYPE;
            return 0;
        }
    }
    if (!chk || !chk->tx || !chk->txdata || !chk->txdata->bip341_ready) {
        /* Core's MissingDataBehavior::FAIL: the spent outputs are needed. */
        *err = SCRIPT_ERR_SCHNORR_SIG;
        return 0;
    }
    if (!sighash_taproot(sighash, chk->tx, chk->in_idx, hash_type, sv, ed, chk->txdata, NULL)) {
        *err = SCRIPT_ERR_SCHNORR_SIG_HASHTYPE;
        return 0;
    }
    int cached = chk->sigcache && (chk->sigcache_store || !sigcache_empty(chk->sigcache));
    if (cached) {
        sigcache_entry_schnorr(chk->sigcache, entry, sighash, sig, pk);
        if (sigcache_contains(chk->sigcache, entry)) {
            return 1;
        }
    }
    if (!script_schnorr_verify(sig, pk, sighash)) {
        *err = SCRIPT_ERR_SCHNORR_SIG;
        return 0;
    }
    if (cached && chk->sigcache_store) {
        sigcache_insert(chk->sigcache, entry);
    }
    return 1;
}

int script_checker_locktime(const struct script_checker *chk, int64_t locktime)
{
    if (!chk || !chk->tx || chk->in_idx >= chk->tx->vin_count) {
        return 0;
    }
    int64_t tx_lt = chk->tx->locktime;
    /* Both must be heights or both times. */
    if (!((tx_lt < LOCKTIME_THRESHOLD && locktime < LOCKTIME_THRESHOLD) ||
          (tx_lt >= LOCKTIME_THRESHOLD && locktime >= LOCKTIME_THRESHOLD))) {
        return 0;
    }
    if (locktime > tx_lt) {
        return 0;
    }
    /* A final input disables nLockTime, and with it CHECKLOCKTIMEVERIFY. */
    if (chk->tx->vin[chk->in_idx].sequence == SEQUENCE_FINAL) {
        return 0;
    }
    return 1;
}

int script_checker_sequence(const struct script_checker *chk, int64_t sequence)
{
    if (!chk || !chk->tx || chk->in_idx >= chk->tx->vin_count) {
        return 0;
    }
    int64_t tx_seq = chk->tx->vin[chk->in_idx].sequence;
    /* BIP68 needs version >= 2, compared unsigned. */
    if ((uint32_t)chk->tx->version < 2) {
        return 0;
    }
    if (tx_seq & SEQUENCE_LOCKTIME_DISABLE_FLAG) {
        return 0;
    }
    const int64_t mask = SEQUENCE_LOCKTIME_TYPE_FLAG | SEQUENCE_LOCKTIME_MASK;
    int64_t tx_masked = tx_seq & mask;
    int64_t seq_masked = sequence & mask;
    if (!((tx_masked < SEQUENCE_LOCKTIME_TYPE_FLAG && seq_masked < SEQUENCE_LOCKTIME_TYPE_FLAG) ||
          (tx_masked >= SEQUENCE_LOCKTIME_TYPE_FLAG &&
           seq_masked >= SEQUENCE_LOCKTIME_TYPE_FLAG))) {
        return 0;
    }
    if (seq_masked > tx_masked) {
        return 0;
    }
    return 1;
}

/* EvalChecksigPreTapscript. scratch holds scriptCode when FindAndDelete changed it. */
int script_eval_checksig_pre_tapscript(const uint8_t *sig, size_t sig_len, const uint8_t *pk,
                                       size_t pk_len, const uint8_t *code, size_t code_len,
                                       uint32_t flags, const struct script_checker *chk,
                                       enum sig_version sv, struct buf *scratch,
                                       enum script_error *err, int *success)
{
    if (sv == SIGVERSION_BASE) {
        struct buf pat;
        buf_init(&pat);
        script_push_data(&pat, sig, sig_len);
        int found = script_find_and_delete(scratch, code, code_len, pat.data, pat.len);
        buf_clear(&pat);
        if (found > 0) {
            if (flags & SCRIPT_VERIFY_CONST_SCRIPTCODE) {
                *err = SCRIPT_ERR_SIG_FINDANDDELETE;
                return 0;
            }
            code = scratch->data;
            code_len = scratch->len;
        }
    }
    if (!script_check_sig_encoding(sig, sig_len, flags, err) ||
        !script_check_pubkey_encoding(pk, pk_len, flags, sv, err)) {
        return 0;
    }
    *success = script_checker_ecdsa(chk, sig, sig_len, pk, pk_len, code, code_len, sv);
    if (!*success && (flags & SCRIPT_VERIFY_NULLFAIL) && sig_len) {
        *err = SCRIPT_ERR_SIG_NULLFAIL;
        return 0;
    }
    return 1;
}

/* EvalChecksigTapscript. */
int script_eval_checksig_tapscript(const uint8_t *sig, size_t sig_len, const uint8_t *pk,
                                   size_t pk_len, struct script_execdata *ed, uint32_t flags,
                                   const struct script_checker *chk, enum script_error *err,
                                   int *success)
{
    /* Order matters (consensus): the budget first, then unknown key types pass, then an
     * empty key fails, then a non-empty invalid signature fails. */
    *success = sig_len != 0;
    if (*success) {
        ed->validation_weight_left -= VALIDATION_WEIGHT_PER_SIGOP_PASSED;
        if (ed->validation_weight_left < 0) {
            *err = SCRIPT_ERR_TAPSCRIPT_VALIDATION_WEIGHT;
            return 0;
        }
    }
    if (pk_len == 0) {
        *err = SCRIPT_ERR_TAPSCRIPT_EMPTY_PUBKEY;
        return 0;
    } else if (pk_len == 32) {
        if (*success &&
            !script_checker_schnorr(chk, sig, sig_len, pk, SIGVERSION_TAPSCRIPT, ed, err)) {
            return 0;
        }
    } else {
        /* Upgradable public key type: succeeds as if the signature were valid. */
        if (flags & SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_PUBKEYTYPE) {
            *err = SCRIPT_ERR_DISCOURAGE_UPGRADABLE_PUBKEYTYPE;
            return 0;
        }
    }
    return 1;
}
