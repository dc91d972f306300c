/* VerifyScript: scriptSig then scriptPubKey, BIP16 P2SH, BIP141 witness programs, BIP341
 * taproot (key path and script path) and the BIP342 tapscript entry checks. Taproot's own
 * hashes and tapscript's OP_SUCCESS set: taproot.c. */
#include "script/interpreter.h"

#include <string.h>

#include "crypto/hash.h"
#include "primitives/serialize.h"
#include "script/script.h"
#include "script/sigcheck.h"
#include "util/xmalloc.h"

/* Loads witness items into a fresh interpreter stack. */
static void stack_from_items(struct script_stack *st, const struct bytes *items, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        script_stack_push(st, items[i].data, items[i].len);
    }
}

/* Core's ExecuteWitnessScript. items: the witness stack without script/control/annex. */
static int execute_witness_script(const struct bytes *items, size_t n, const uint8_t *script,
                                  size_t len, uint32_t flags, enum sig_version sv,
                                  const struct script_checker *chk, struct script_execdata *ed,
                                  enum script_error *err)
{
    if (sv == SIGVERSION_TAPSCRIPT) {
        /* OP_SUCCESSx overrides everything, including the stack limits below. */
        size_t pc = 0;
        while (pc < len) {
            uint8_t op;
            if (!script_get_op(script, len, &pc, &op, NULL, NULL)) {
                *err = SCRIPT_ERR_BAD_OPCODE;
                return 0;
            }
            if (script_is_op_success(op)) {
                if (flags & SCRIPT_VERIFY_DISCOURAGE_OP_SUCCESS) {
                    *err = SCRIPT_ERR_DISCOURAGE_OP_SUCCESS;
                    return 0;
                }
                *err = SCRIPT_ERR_OK;
                return 1;
            }
        }
        if (n > MAX_STACK_SIZE) {
            *err = SCRIPT_ERR_STACK_SIZE;
            return 0;
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (items[i].len > MAX_SCRIPT_ELEMENT_SIZE) {
            *err = SCRIPT_ERR_PUSH_SIZE;
            return 0;
        }
    }
    struct script_stack st;
    int ok = 0;
    script_stack_init(&st);
    stack_from_items(&st, items, n);
    if (!script_eval(&st, script, len, flags, chk, sv, ed, err)) {
        goto out;
    }
    /* Witness scripts imply clean stack. */
    if (st.n != 1) {
        *err = SCRIPT_ERR_CLEANSTACK;
        goto out;
    }
    if (!script_cast_to_bool(st.v[0].data, st.v[0].len)) {
        *err = SCRIPT_ERR_EVAL_FALSE;
        goto out;
    }
    *err = SCRIPT_ERR_OK;
    ok = 1;
out:
    script_stack_clear(&st);
    return ok;
}

static size_t witness_serialized_size(const struct bytes *items, size_t n)
{
    size_t s = ser_compact_len(n);
    for (size_t i = 0; i < n; i++) {
        s += ser_compact_len(items[i].len) + items[i].len;
    }
    return s;
}

/* Core's VerifyWitnessProgram. */
static int verify_witness_program(const struct bytes *witness, size_t wn, int version,
                                  const uint8_t *program, size_t plen, uint32_t flags,
                                  const struct script_checker *chk, int is_p2sh,
                                  enum script_error *err)
{
    struct script_execdata ed;
    memset(&ed, 0, sizeof(ed));
    size_t n = wn;

    if (version == 0) {
        if (plen == WITNESS_V0_SCRIPTHASH_SIZE) {
            if (n == 0) {
                *err = SCRIPT_ERR_WITNESS_PROGRAM_WITNESS_EMPTY;
                return 0;
            }
            const struct bytes *ws = &witness[n - 1];
            uint8_t h[32];
            hash_sha256(h, ws->data, ws->len);
            if (memcmp(h, program, 32) != 0) {
                *err = SCRIPT_ERR_WITNESS_PROGRAM_MISMATCH;
                return 0;
            }
            return execute_witness_script(witness, n - 1, ws->data, ws->len, flags,
                                          SIGVERSION_WITNESS_V0, chk, &ed, err);
        } else if (plen == WITNESS_V0_KEYHASH_SIZE) {
            if (n != 2) {
                *err = SCRIPT_ERR_WITNESS_PROGRAM_MISMATCH;
                return 0;
            }
            /* DUP HASH160 <program> EQUALVERIFY CHECKSIG */
            uint8_t s[25];
            s[0] = OP_DUP;
            s[1] = OP_HASH160;
            s[2] = 20;
            memcpy(s + 3, program, 20);
            s[23] = OP_EQUALVERIFY;
            s[24] = OP_CHECKSIG;
            return execute_witness_script(witness, n, s, sizeof(s), flags, SIGVERSION_WITNESS_V0,
                                          chk, &ed, err);
        } else {
            *err = SCRIPT_ERR_WITNESS_PROGRAM_WRONG_LENGTH;
            return 0;
        }
    } else if (version == 1 && plen == WITNESS_V1_TAPROOT_SIZE && !is_p2sh) {
        if (!(flags & SCRIPT_VERIFY_TAPROOT)) {
            *err = SCRIPT_ERR_OK;
            return 1;
        }
        if (n == 0) {
            *err = SCRIPT_ERR_WITNESS_PROGRAM_WITNESS_EMPTY;
            return 0;
        }
        if (n >= 2 && witness[n - 1].len > 0 && witness[n - 1].data[0] == ANNEX_TAG) {
            /* Drop the annex; it is committed to by the signature hash. */
            const struct bytes *annex = &witness[n - 1];
            struct hash_sha256_ctx h;
            struct buf pre;
            buf_init(&pre);
            ser_put_compact(&pre, annex->len);
            hash_sha256_init(&h);
            hash_sha256_write(&h, pre.data, pre.len);
            hash_sha256_write(&h, annex->data, annex->len);
            hash_sha256_final(&h, ed.annex_hash);
            buf_clear(&pre);
            ed.annex_present = 1;
            n--;
        } else {
            ed.annex_present = 0;
        }
        ed.annex_init = 1;
        if (n == 1) {
            /* Key path spend. */
            if (!script_checker_schnorr(chk, witness[0].data, witness[0].len, program,
                                        SIGVERSION_TAPROOT, &ed, err)) {
                return 0;
            }
            *err = SCRIPT_ERR_OK;
            return 1;
        }
        /* Script path spend. */
        const struct bytes *control = &witness[n - 1];
        const struct bytes *script = &witness[n - 2];
        n -= 2;
        if (control->len < TAPROOT_CONTROL_BASE_SIZE || control->len > TAPROOT_CONTROL_MAX_SIZE ||
            (control->len - TAPROOT_CONTROL_BASE_SIZE) % TAPROOT_CONTROL_NODE_SIZE != 0) {
            *err = SCRIPT_ERR_TAPROOT_WRONG_CONTROL_SIZE;
            return 0;
        }
        uint8_t leaf_version = control->data[0] & TAPROOT_LEAF_MASK;
        script_tapleaf_hash(ed.tapleaf_hash, leaf_version, script->data, script->len);
        uint8_t root[32];
        script_taproot_merkle_root(root, control->data, control->len, ed.tapleaf_hash);
        if (!script_taproot_check_tweak(program, control->data[0] & 1, control->data + 1, root)) {
            *err = SCRIPT_ERR_WITNESS_PROGRAM_MISMATCH;
            return 0;
        }
        ed.tapleaf_hash_init = 1;
        if (leaf_version == TAPROOT_LEAF_TAPSCRIPT) {
            ed.validation_weight_left =
                (int64_t)witness_serialized_size(witness, wn) + VALIDATION_WEIGHT_OFFSET;
            ed.validation_weight_left_init = 1;
            return execute_witness_script(witness, n, script->data, script->len, flags,
                                          SIGVERSION_TAPSCRIPT, chk, &ed, err);
        }
        if (flags & SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_TAPROOT_VERSION) {
            *err = SCRIPT_ERR_DISCOURAGE_UPGRADABLE_TAPROOT_VERSION;
            return 0;
        }
        *err = SCRIPT_ERR_OK;
        return 1;
    } else if (!is_p2sh && script_is_p2a(version, program, plen)) {
        *err = SCRIPT_ERR_OK;
        return 1;
    } else {
        if (flags & SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM) {
            *err = SCRIPT_ERR_DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM;
            return 0;
        }
        /* Other versions and sizes are anyone-can-spend, for future soft forks. */
        *err = SCRIPT_ERR_OK;
        return 1;
    }
}

int script_verify(const uint8_t *script_sig, size_t script_sig_len, const uint8_t *script_pubkey,
                  size_t script_pubkey_len, const struct bytes *witness, size_t witness_count,
                  uint32_t flags, const struct script_checker *chk, enum script_error *err)
{
    struct script_stack stack, copy;
    struct script_execdata ed;
    int had_witness = 0, ok = 0;
    int version;
    const uint8_t *program;
    size_t plen;
    uint8_t *redeem = NULL;

    memset(&ed, 0, sizeof(ed));
    script_stack_init(&stack);
    script_stack_init(&copy);
    *err = SCRIPT_ERR_UNKNOWN_ERROR;

    if ((flags & SCRIPT_VERIFY_SIGPUSHONLY) && !script_is_push_only(script_sig, script_sig_len)) {
        *err = SCRIPT_ERR_SIG_PUSHONLY;
        goto out;
    }
    /* scriptSig and scriptPubKey run one after the other on the same stack, never
     * concatenated (CVE-2010-5141). */
    if (!script_eval(&stack, script_sig, script_sig_len, flags, chk, SIGVERSION_BASE, &ed, err)) {
        goto out;
    }
    if (flags & SCRIPT_VERIFY_P2SH) {
        for (size_t i = 0; i < stack.n; i++) {
            script_stack_push(&copy, stack.v[i].data, stack.v[i].len);
        }
    }
    if (!script_eval(&stack, script_pubkey, script_pubkey_len, flags, chk, SIGVERSION_BASE, &ed,
                     err)) {
        goto out;
    }
    if (stack.n == 0 || !script_cast_to_bool(stack.v[stack.n - 1].data, stack.v[stack.n - 1].len)) {
        *err = SCRIPT_ERR_EVAL_FALSE;
        goto out;
    }

    /* Bare witness programs. */
    if ((flags & SCRIPT_VERIFY_WITNESS) &&
        script_is_witness_program(script_pubkey, script_pubkey_len, &version, &program, &plen)) {
        had_witness = 1;
        if (script_sig_len != 0) {
            /* The scriptSig must be exactly empty, or malleability returns. */
            *err = SCRIPT_ERR_WITNESS_MALLEATED;
            goto out;
        }
        if (!verify_witness_program(witness, witness_count, version, program, plen, flags, chk, 0,
                                    err)) {
            goto out;
        }
        /* Bypass the clean stack check below: keep exactly one item. */
        stack.n = 1;
    }

    /* BIP16 pay-to-script-hash. */
    if ((flags & SCRIPT_VERIFY_P2SH) && script_is_p2sh(script_pubkey, script_pubkey_len)) {
        if (!script_is_push_only(script_sig, script_sig_len)) {
            *err = SCRIPT_ERR_SIG_PUSHONLY;
            goto out;
        }
        struct script_stack t = stack;
        stack = copy;
        copy = t;
        /* Cannot be empty: the HASH160 <> EQUAL above would have failed. */
        struct script_item *last = &stack.v[stack.n - 1];
        size_t redeem_len = last->len;
        redeem = xmemdup(last->data, last->len);
        stack.n--;
        if (!script_eval(&stack, redeem, redeem_len, flags, chk, SIGVERSION_BASE, &ed, err)) {
            goto out;
        }
        if (stack.n == 0 ||
            !script_cast_to_bool(stack.v[stack.n - 1].data, stack.v[stack.n - 1].len)) {
            *err = SCRIPT_ERR_EVAL_FALSE;
            goto out;
        }
        /* P2SH-wrapped witness program. */
        if ((flags & SCRIPT_VERIFY_WITNESS) &&
            script_is_witness_program(redeem, redeem_len, &version, &program, &plen)) {
            had_witness = 1;
            /* The scriptSig must be exactly one canonical push of the redeem script. */
            struct buf exp;
            buf_init(&exp);
            script_push_data(&exp, redeem, redeem_len);
            int same = exp.len == script_sig_len && memcmp(exp.data, script_sig, exp.len) == 0;
            buf_clear(&exp);
            if (!same) {
                *err = SCRIPT_ERR_WITNESS_MALLEATED_P2SH;
                goto out;
            }
            if (!verify_witness_program(witness, witness_count, version, program, plen, flags, chk,
                                        1, err)) {
                goto out;
            }
            stack.n = 1;
        }
    }

    /* CLEANSTACK only after P2SH and witness evaluation (their inputs remain otherwise). */
    if (flags & SCRIPT_VERIFY_CLEANSTACK) {
        if (stack.n != 1) {
            *err = SCRIPT_ERR_CLEANSTACK;
            goto out;
        }
    }
    if (flags & SCRIPT_VERIFY_WITNESS) {
        if (!had_witness && witness_count > 0) {
            *err = SCRIPT_ERR_WITNESS_UNEXPECTED;
            goto out;
        }
    }
    *err = SCRIPT_ERR_OK;
    ok = 1;
out:
    free(redeem);
    script_stack_clear(&stack);
    script_stack_clear(&copy);
    return ok;
}

int script_verify_input(const struct tx *tx, size_t in_idx, const struct tx_out *spent,
                        const struct tx_precomputed *txdata, uint32_t flags,
                        struct sigcache *sigcache, int sigcache_store, enum script_error *err)
{
    struct script_checker chk = {
        .tx = tx,
        .in_idx = in_idx,
        .amount = spent->value_sat,
        .txdata = txdata,
        .sigcache = sigcache,
        .sigcache_store = sigcache_store,
    };
    const struct tx_in *in = &tx->vin[in_idx];
    return script_verify(in->script_sig.data, in->script_sig.len, spent->script_pubkey.data,
                         spent->script_pubkey.len, in->witness, in->witness_count, flags, &chk,
                         err);
}
