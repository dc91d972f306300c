#include "consensus/tx_check.h"

#include <stdlib.h>
#include <string.h>

#include "consensus/amount.h"
#include "util/rc.h"
#include "util/xmalloc.h"

static int outpoint_cmp(const void *a, const void *b)
{
    const struct outpoint *x = *(const struct outpoint *const *)a;
    const struct outpoint *y = *(const struct outpoint *const *)b;
    int c = memcmp(x->txid, y->txid, 32);
    if (c) {
        return c;
    }
    return x->n < y->n ? -1 : x->n > y->n;
}

/* Duplicate inputs: a sort for large transactions, a direct comparison for small ones. */
static int has_duplicate_inputs(const struct tx *tx)
{
    size_t n = tx->vin_count;
    if (n < 2) {
        return 0;
    }
    if (n <= 16) {
        for (size_t i = 0; i < n; i++) {
            for (size_t j = i + 1; j < n; j++) {
                const struct outpoint *a = &tx->vin[i].prevout, *b = &tx->vin[j].prevout;
                if (a->n == b->n && memcmp(a->txid, b->txid, 32) == 0) {
                    return 1;
                }
            }
        }
        return 0;
    }
    const struct outpoint **v = xmalloc(n * sizeof(*v));
    int dup = 0;
    for (size_t i = 0; i < n; i++) {
        v[i] = &tx->vin[i].prevout;
    }
    qsort(v, n, sizeof(*v), outpoint_cmp);
    for (size_t i = 1; i < n && !dup; i++) {
        dup = outpoint_cmp(&v[i - 1], &v[i]) == 0;
    }
    free(v);
    return dup;
}

int consensus_check_tx(struct vstate *s, const struct tx *tx)
{
    if (tx->vin_count == 0) {
        return vstate_reject(s, VRESULT_CONSENSUS, REJECT_BAD_TXNS_VIN_EMPTY, "no inputs");
    }
    if (tx->vout_count == 0) {
        return vstate_reject(s, VRESULT_CONSENSUS, REJECT_BAD_TXNS_VOUT_EMPTY, "no outputs");
    }
    if (tx->size_stripped * WITNESS_SCALE_FACTOR > MAX_BLOCK_WEIGHT) {
        return vstate_reject(s, VRESULT_CONSENSUS, REJECT_BAD_TXNS_OVERSIZE, "size %zu",
                              tx->size_stripped);
    }
    int64_t total = 0;
    for (size_t i = 0; i < tx->vout_count; i++) {
        int64_t v = tx->vout[i].value_sat;
        if (v < 0) {
            return vstate_reject(s, VRESULT_CONSENSUS, REJECT_BAD_TXNS_VOUT_NEGATIVE,
                                  "output %zu value %lld", i, (long long)v);
        }
        if (v > MAX_MONEY) {
            return vstate_reject(s, VRESULT_CONSENSUS, REJECT_BAD_TXNS_VOUT_TOOLARGE,
                                  "output %zu value %lld", i, (long long)v);
        }
        total += v; /* both <= MAX_MONEY: no overflow */
        if (!amount_in_range(total)) {
            return vstate_reject(s, VRESULT_CONSENSUS, REJECT_BAD_TXNS_TXOUTTOTAL_TOOLARGE,
                                  "outputs total past output %zu", i);
        }
    }
    if (has_duplicate_inputs(tx)) {
        return vstate_reject(s, VRESULT_CONSENSUS, REJECT_BAD_TXNS_INPUTS_DUPLICATE,
                              "an outpoint is spent twice");
    }
    if (tx_is_coinbase(tx)) {
        size_t len = tx->vin[0].script_sig.len;
        if (len < 2 || len > 100) {
            return vstate_reject(s, VRESULT_CONSENSUS, REJECT_BAD_CB_LENGTH,
                                  "coinbase scriptSig is %zu bytes", len);
        }
    } else {
        for (size_t i = 0; i < tx->vin_count; i++) {
            if (outpoint_is_null(&tx->vin[i].prevout)) {
                return vstate_reject(s, VRESULT_CONSENSUS, REJECT_BAD_TXNS_PREVOUT_NULL,
                                      "input %zu", i);
            }
        }
    }
    return RC_OK;
}

int consensus_tx_is_final(const struct tx *tx, int height, int64_t cutoff_time)
{
    if (tx->locktime == 0) {
        return 1;
    }
    int64_t limit = tx->locktime < LOCKTIME_THRESHOLD ? (int64_t)height : cutoff_time;
    if ((int64_t)tx->locktime < limit) {
        return 1;
    }
    for (size_t i = 0; i < tx->vin_count; i++) {
        if (tx->vin[i].sequence != SEQUENCE_FINAL) {
            return 0;
        }
    }
    return 1;
}

size_t consensus_height_push(uint8_t out[6], int64_t height)
{
    if (height == 0) {
        out[0] = 0x00; /* OP_0 */
        return 1;
    }
    if (height == -1 || (height >= 1 && height <= 16)) {
        out[0] = (uint8_t)(0x50 + height); /* OP_1NEGATE is 0x4f = 0x50 - 1 */
        return 1;
    }
    /* CScriptNum: little-endian magnitude, sign bit in the last byte. */
    uint8_t num[5];
    size_t n = 0;
    int neg = height < 0;
    uint64_t abs = neg ? (uint64_t)(-height) : (uint64_t)height;
    while (abs && n < 4) {
        num[n++] = (uint8_t)(abs & 0xff);
        abs >>= 8;
    }
    if (num[n - 1] & 0x80) {
        num[n++] = neg ? 0x80 : 0x00;
    } else if (neg) {
        num[n - 1] |= 0x80;
    }
    out[0] = (uint8_t)n;
    memcpy(out + 1, num, n);
    return n + 1;
}
