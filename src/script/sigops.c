/* Sigop counting. See sigops.h. */
#include "script/sigops.h"

#include "script/script.h"
#include "script/script_error.h"

unsigned script_p2sh_sigop_count(const uint8_t *script_pubkey, size_t spk_len,
                                 const uint8_t *script_sig, size_t sig_len)
{
    if (!script_is_p2sh(script_pubkey, spk_len)) {
        return script_sigop_count(script_pubkey, spk_len, 1);
    }
    /* The last item the scriptSig pushes is the redeem script. */
    size_t pc = 0;
    const uint8_t *data = NULL;
    size_t data_len = 0;
    while (pc < sig_len) {
        uint8_t op;
        if (!script_get_op(script_sig, sig_len, &pc, &op, &data, &data_len)) {
            return 0;
        }
        if (op > OP_16) {
            return 0;
        }
    }
    return script_sigop_count(data, data_len, 1);
}

static size_t witness_sigops(int version, size_t plen, const struct bytes *witness, size_t wn)
{
    if (version == 0) {
        if (plen == WITNESS_V0_KEYHASH_SIZE) {
            return 1;
        }
        if (plen == WITNESS_V0_SCRIPTHASH_SIZE && wn > 0) {
            return script_sigop_count(witness[wn - 1].data, witness[wn - 1].len, 1);
        }
    }
    return 0;
}

size_t script_witness_sigop_count(const uint8_t *script_sig, size_t sig_len,
                                  const uint8_t *script_pubkey, size_t spk_len,
                                  const struct bytes *witness, size_t witness_count, uint32_t flags)
{
    int version;
    const uint8_t *program;
    size_t plen;
    if (!(flags & SCRIPT_VERIFY_WITNESS)) {
        return 0;
    }
    if (script_is_witness_program(script_pubkey, spk_len, &version, &program, &plen)) {
        return witness_sigops(version, plen, witness, witness_count);
    }
    if (script_is_p2sh(script_pubkey, spk_len) && script_is_push_only(script_sig, sig_len)) {
        size_t pc = 0;
        const uint8_t *data = NULL;
        size_t data_len = 0;
        while (pc < sig_len) {
            uint8_t op;
            script_get_op(script_sig, sig_len, &pc, &op, &data, &data_len);
        }
        if (script_is_witness_program(data, data_len, &version, &program, &plen)) {
            return witness_sigops(version, plen, witness, witness_count);
        }
    }
    return 0;
}

unsigned tx_sigops_legacy(const struct tx *tx)
{
    unsigned n = 0;
    for (size_t i = 0; i < tx->vin_count; i++) {
        n += script_sigop_count(tx->vin[i].script_sig.data, tx->vin[i].script_sig.len, 0);
    }
    for (size_t i = 0; i < tx->vout_count; i++) {
        n += script_sigop_count(tx->vout[i].script_pubkey.data, tx->vout[i].script_pubkey.len, 0);
    }
    return n;
}

unsigned tx_sigops_p2sh(const struct tx *tx, const struct tx_out *spent)
{
    unsigned n = 0;
    if (tx_is_coinbase(tx)) {
        return 0;
    }
    for (size_t i = 0; i < tx->vin_count; i++) {
        const struct bytes *spk = &spent[i].script_pubkey;
        if (script_is_p2sh(spk->data, spk->len)) {
            n += script_p2sh_sigop_count(spk->data, spk->len, tx->vin[i].script_sig.data,
                                         tx->vin[i].script_sig.len);
        }
    }
    return n;
}

int64_t tx_sigop_cost(const struct tx *tx, const struct tx_out *spent, uint32_t flags)
{
    int64_t cost = (int64_t)tx_sigops_legacy(tx) * WITNESS_SCALE_FACTOR;
    if (tx_is_coinbase(tx)) {
        return cost;
    }
    if (flags & SCRIPT_VERIFY_P2SH) {
        cost += (int64_t)tx_sigops_p2sh(tx, spent) * WITNESS_SCALE_FACTOR;
    }
    for (size_t i = 0; i < tx->vin_count; i++) {
        const struct tx_in *in = &tx->vin[i];
        cost += (int64_t)script_witness_sigop_count(
            in->script_sig.data, in->script_sig.len, spent[i].script_pubkey.data,
            spent[i].script_pubkey.len, in->witness, in->witness_count, flags);
    }
    return cost;
}
