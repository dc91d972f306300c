/* A transaction against the coins it spends and the chain (tx_verify.h). */
#include "validation/tx_verify.h"

#include "consensus/amount.h"
#include "util/rc.h"

int tx_verify_inputs(const struct tx *tx, const struct coin *spent, int32_t spend_height,
                     struct vstate *st, int64_t *fee)
{
    int64_t value_in = 0, value_out = 0;
    for (size_t i = 0; i < tx->vin_count; i++) {
        const struct coin *c = &spent[i];
        if (!tx_verify_coin_mature(c, spend_height)) {
            return vstate_reject(st, VRESULT_TX_PREMATURE_SPEND, REJECT_BAD_TXNS_PREMATURE_SPEND_OF_COINBASE,
                "tried to spend coinbase at depth %d", spend_height - (int32_t)c->height);
        }
        value_in += c->value_sat;
        if (!amount_in_range(c->value_sat) || !amount_in_range(value_in)) {
            return vstate_reject(st, VRESULT_CONSENSUS, REJECT_BAD_TXNS_INPUTVALUES_OUTOFRANGE, "%s",
                                  "");
        }
    }
    for (size_t o = 0; o < tx->vout_count; o++) {
        value_out += tx->vout[o].value_sat; /* each in range: CheckTransaction */
    }
    if (value_in < value_out) {
        char a[AMOUNT_FORMAT_LEN], b[AMOUNT_FORMAT_LEN];
        amount_format_money(a, value_in);
        amount_format_money(b, value_out);
        return vstate_reject(st, VRESULT_CONSENSUS, REJECT_BAD_TXNS_IN_BELOWOUT,
                              "value in (%s) < value out (%s)", a, b);
    }
    if (!amount_in_range(value_in - value_out)) {
        return vstate_reject(st, VRESULT_CONSENSUS, REJECT_BAD_TXNS_FEE_OUTOFRANGE, "%s", "");
    }
    *fee = value_in - value_out;
    return RC_OK;
}

int tx_verify_sequence_locks(const struct tx *tx, const uint32_t *prev_heights,
                             struct block_index *parent, int64_t parent_mtp)
{
    if (tx->version < 2) {
        return 1;
    }
    int64_t height = (int64_t)parent->height + 1;
    int64_t min_height = -1, min_time = -1;
    for (size_t i = 0; i < tx->vin_count; i++) {
        uint32_t seq = tx->vin[i].sequence;
        if (seq & SEQUENCE_LOCKTIME_DISABLE_FLAG) {
            continue;
        }
        int64_t coin_height = prev_heights[i];
        int64_t lock = seq & SEQUENCE_LOCKTIME_MASK;
        if (seq & SEQUENCE_LOCKTIME_TYPE_FLAG) {
            /* Time locks count from the median time past of the block before the coin's. */
            int32_t h = (int32_t)(coin_height - 1 > 0 ? coin_height - 1 : 0);
            int64_t coin_time = block_index_median_time_past(block_index_ancestor(parent, h));
            int64_t t = coin_time + (lock << SEQUENCE_LOCKTIME_GRANULARITY) - 1;
            if (t > min_time) {
                min_time = t;
            }
        } else if (coin_height + lock - 1 > min_height) {
            min_height = coin_height + lock - 1;
        }
    }
    return !(min_height >= height || min_time >= parent_mtp);
}
