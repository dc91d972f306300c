/* Standardness (policy.h): Core's policy/policy.cpp rules, read from its behaviour. */
#include "mempool/policy.h"

#include <stdio.h>
#include <string.h>

#include "script/interpreter.h"
#include "script/script.h"
#include "script/script_error.h"
#include "script/sigops.h"
#include "script/solver.h"

uint32_t policy_mandatory_script_flags(void)
{
    return SCRIPT_VERIFY_P2SH | SCRIPT_VERIFY_DERSIG | SCRIPT_VERIFY_NULLDUMMY |
           SCRIPT_VERIFY_CHECKLOCKTIMEVERIFY | SCRIPT_VERIFY_CHECKSEQUENCEVERIFY |
           SCRIPT_VERIFY_WITNESS | SCRIPT_VERIFY_TAPROOT;
}

uint32_t policy_standard_script_flags(void)
{
    return policy_mandatory_script_flags() | SCRIPT_VERIFY_STRICTENC | SCRIPT_VERIFY_MINIMALDATA |
           SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_NOPS | SCRIPT_VERIFY_CLEANSTACK |
           SCRIPT_VERIFY_MINIMALIF | SCRIPT_VERIFY_NULLFAIL | SCRIPT_VERIFY_LOW_S |
           SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM | SCRIPT_VERIFY_WITNESS_PUBKEYTYPE |
           SCRIPT_VERIFY_CONST_SCRIPTCODE | SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_TAPROOT_VERSION |
           SCRIPT_VERIFY_DISCOURAGE_OP_SUCCESS | SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_PUBKEYTYPE;
}

int64_t policy_fee_at(int64_t rate_kvb, int64_t vsize)
{
    if (rate_kvb == 0 || vsize <= 0) {
        return 0;
    }
    /* FeeFrac's EvaluateFeeUp: the exact fraction, rounded towards +infinity. */
    int64_t num = rate_kvb * vsize;
    int64_t q = num / 1000;
    if (num % 1000 != 0 && num > 0) {
        q++;
    }
    if (q == 0 && rate_kvb < 0) {
        return -1;
    }
    return q;
}

static size_t compact_size_len(uint64_t n)
{
    return n < 253 ? 1 : n <= 0xffff ? 3 : n <= 0xffffffffu ? 5 : 9;
}

int64_t policy_dust_threshold(const struct tx_out *out, int64_t dust_rate_kvb)
{
    const struct bytes *spk = &out->script_pubkey;
    if (script_is_unspendable(spk->data, spk->len)) {
        return 0;
    }
    /* The output itself, plus what spending it costs at least: an input of 148 bytes, or 67.75
     * for a witness program (its signature counted at a quarter). */
    int64_t size = 8 + (int64_t)compact_size_len(spk->len) + (int64_t)spk->len;
    int version;
    const uint8_t *prog;
    size_t prog_len;
    if (script_is_witness_program(spk->data, spk->len, &version, &prog, &prog_len)) {
        size += 32 + 4 + 1 + (107 / 4) + 4;
    } else {
        size += 32 + 4 + 1 + 107 + 4;
    }
    return policy_fee_at(dust_rate_kvb, size);
}

size_t policy_dust_count(const struct tx *tx, int64_t dust_rate_kvb)
{
    size_t n = 0;
    for (size_t o = 0; o < tx->vout_count; o++) {
        if (tx->vout[o].value_sat < policy_dust_threshold(&tx->vout[o], dust_rate_kvb)) {
            n++;
        }
    }
    return n;
}

int64_t policy_vsize(int64_t weight, int64_t sigop_cost, unsigned bytes_per_sigop)
{
    int64_t w = sigop_cost * (int64_t)bytes_per_sigop;
    if (weight > w) {
        w = weight;
    }
    return (w + 3) / 4;
}

/* Core's IsStandard for one scriptPubKey. */
static int spk_standard(const struct bytes *spk, enum script_type *type)
{
    int m = 0, n = 0;
    *type = script_solve(spk->data, spk->len, &m, &n);
    if (*type == SCRIPT_TYPE_NONSTANDARD) {
        return 0;
    }
    if (*type == SCRIPT_TYPE_MULTISIG && (n < 1 || n > 3 || m < 1 || m > n)) {
        return 0;
    }
    return 1;
}

int policy_is_standard_tx(const struct tx *tx, int64_t max_datacarrier, int permit_bare_multisig,
                          int64_t dust_rate_kvb, const char **reason)
{
    if (tx->version > POLICY_TX_MAX_STANDARD_VERSION || tx->version < 1) {
        *reason = "version";
        return 0;
    }
    if (tx_weight(tx) > POLICY_MAX_STANDARD_TX_WEIGHT) {
        *reason = "tx-size";
        return 0;
    }
    for (size_t i = 0; i < tx->vin_count; i++) {
        const struct bytes *ss = &tx->vin[i].script_sig;
        if (ss->len > POLICY_MAX_STANDARD_SCRIPTSIG_SIZE) {
            *reason = "scriptsig-size";
            return 0;
        }
        if (!script_is_push_only(ss->data, ss->len)) {
            *reason = "scriptsig-not-pushonly";
            return 0;
        }
    }
    int64_t left = max_datacarrier < 0 ? 0 : max_datacarrier;
    for (size_t o = 0; o < tx->vout_count; o++) {
        enum script_type type;
        const struct bytes *spk = &tx->vout[o].script_pubkey;
        if (!spk_standard(spk, &type)) {
            *reason = "scriptpubkey";
            return 0;
        }
        if (type == SCRIPT_TYPE_NULL_DATA) {
            if ((int64_t)spk->len > left) {
                *reason = "datacarrier";
                return 0;
            }
            left -= (int64_t)spk->len;
        } else if (type == SCRIPT_TYPE_MULTISIG && !permit_bare_multisig) {
            *reason = "bare-multisig";
            return 0;
        }
    }
    if (policy_dust_count(tx, dust_rate_kvb) > POLICY_MAX_DUST_OUTPUTS_PER_TX) {
        *reason = "dust";
        return 0;
    }
    return 1;
}

/* Evaluates a scriptSig with no flags and no signature checker (Core's EvalScript with
 * BaseSignatureChecker): the stack it leaves, or 0 with *err. */
static int eval_script_sig(struct script_stack *st, const struct bytes *ss, enum script_error *err)
{
    struct script_checker chk = {0};
    struct script_execdata ed = {0};
    return script_eval(st, ss->data, ss->len, SCRIPT_VERIFY_NONE, &chk, SIGVERSION_BASE, &ed, err);
}

int policy_inputs_standard(const struct tx *tx, const struct tx_out *spent, char *detail,
                           size_t detail_len)
{
    /* BIP54's bound on the non-witness sigops of the whole transaction first. */
    unsigned sigops = 0;
    for (size_t i = 0; i < tx->vin_count; i++) {
        const struct bytes *ss = &tx->vin[i].script_sig;
        const struct bytes *spk = &spent[i].script_pubkey;
        sigops += script_sigop_count(ss->data, ss->len, 1);
        sigops += script_p2sh_sigop_count(spk->data, spk->len, ss->data, ss->len);
        if (sigops > POLICY_MAX_TX_LEGACY_SIGOPS) {
            snprintf(detail, detail_len, "non-witness sigops exceed bip54 limit");
            return 0;
        }
    }
    int ok = 1;
    struct script_stack st;
    script_stack_init(&st);
    for (size_t i = 0; i < tx->vin_count && ok; i++) {
        const struct bytes *spk = &spent[i].script_pubkey;
        enum script_type type = script_solve(spk->data, spk->len, NULL, NULL);
        if (type == SCRIPT_TYPE_NONSTANDARD) {
            snprintf(detail, detail_len, "input %zu script unknown", i);
            ok = 0;
        } else if (type == SCRIPT_TYPE_WITNESS_UNKNOWN) {
            snprintf(detail, detail_len, "input %zu witness program is undefined", i);
            ok = 0;
        } else if (type == SCRIPT_TYPE_SCRIPTHASH) {
            enum script_error err = SCRIPT_ERR_OK;
            st.n = 0;
            if (!eval_script_sig(&st, &tx->vin[i].script_sig, &err)) {
                snprintf(detail, detail_len, "p2sh scriptsig malformed (input %zu: %s)", i,
                         script_error_string(err));
                ok = 0;
            } else if (st.n == 0) {
                snprintf(detail, detail_len, "input %zu P2SH redeemscript missing", i);
                ok = 0;
            } else {
                const struct script_item *top = &st.v[st.n - 1];
                unsigned n = script_sigop_count(top->data, top->len, 1);
                if (n > POLICY_MAX_P2SH_SIGOPS) {
                    snprintf(detail, detail_len,
                             "p2sh redeemscript sigops exceed limit (input %zu: %u > %u)", i, n,
                             POLICY_MAX_P2SH_SIGOPS);
                    ok = 0;
                }
            }
        }
    }
    script_stack_clear(&st);
    return ok;
}

/* The P2SH redeem script a scriptSig pushes last, copied to out; 0 if it does not run. */
static int p2sh_redeem_script(const struct bytes *ss, struct buf *out)
{
    struct script_stack st;
    enum script_error err;
    int ok;
    script_stack_init(&st);
    ok = eval_script_sig(&st, ss, &err) && st.n > 0;
    if (ok) {
        buf_reset(out);
        buf_append(out, st.v[st.n - 1].data, st.v[st.n - 1].len);
    }
    script_stack_clear(&st);
    return ok;
}

int policy_witness_standard(const struct tx *tx, const struct tx_out *spent)
{
    struct buf redeem;
    int ok = 1;
    buf_init(&redeem);
    for (size_t i = 0; i < tx->vin_count && ok; i++) {
        const struct tx_in *in = &tx->vin[i];
        if (in->witness_count == 0) {
            continue;
        }
        const uint8_t *spk = spent[i].script_pubkey.data;
        size_t spk_len = spent[i].script_pubkey.len;
        int version, p2sh = 0;
        const uint8_t *prog;
        size_t prog_len;
        if (script_is_witness_program(spk, spk_len, &version, &prog, &prog_len) &&
            script_is_p2a(version, prog, prog_len)) {
            ok = 0;
            break;
        }
        if (script_is_p2sh(spk, spk_len)) {
            if (!p2sh_redeem_script(&in->script_sig, &redeem)) {
                ok = 0;
                break;
            }
            spk = redeem.data;
            spk_len = redeem.len;
            p2sh = 1;
        }
        if (!script_is_witness_program(spk, spk_len, &version, &prog, &prog_len)) {
            ok = 0;
            break;
        }
        const struct bytes *w = in->witness;
        size_t n = in->witness_count;
        if (version == 0 && prog_len == WITNESS_V0_SCRIPTHASH_SIZE) {
            if (w[n - 1].len > 3600 || n - 1 > 100) {
                ok = 0;
                break;
            }
            for (size_t j = 0; j + 1 < n; j++) {
                if (w[j].len > 80) {
                    ok = 0;
                }
            }
        }
        if (version == 1 && prog_len == WITNESS_V1_TAPROOT_SIZE && !p2sh) {
            if (n >= 2 && w[n - 1].len > 0 && w[n - 1].data[0] == ANNEX_TAG) {
                ok = 0; /* annexes are not standard yet */
            } else if (n >= 2) {
                const struct bytes *control = &w[n - 1];
                if (control->len == 0) {
                    ok = 0;
                } else if ((control->data[0] & TAPROOT_LEAF_MASK) == TAPROOT_LEAF_TAPSCRIPT) {
                    for (size_t j = 0; j + 2 < n; j++) {
                        if (w[j].len > 80) {
                            ok = 0;
                        }
                    }
                }
            }
        }
    }
    buf_clear(&redeem);
    return ok;
}

int policy_spends_witness_program(const struct tx *tx, const struct tx_out *spent)
{
    struct buf redeem;
    int found = 0;
    buf_init(&redeem);
    for (size_t i = 0; i < tx->vin_count && !found; i++) {
        const struct bytes *spk = &spent[i].script_pubkey;
        int version;
        const uint8_t *prog;
        size_t prog_len;
        if (script_is_witness_program(spk->data, spk->len, &version, &prog, &prog_len) &&
            !script_is_p2a(version, prog, prog_len)) {
            found = 1;
        } else if (script_is_p2sh(spk->data, spk->len) &&
                   p2sh_redeem_script(&tx->vin[i].script_sig, &redeem) &&
                   script_is_witness_program(redeem.data, redeem.len, &version, &prog, &prog_len)) {
            found = 1;
        }
    }
    buf_clear(&redeem);
    return found;
}
