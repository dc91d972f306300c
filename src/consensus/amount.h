/* Amounts in satoshis: the money range, the block subsidy, and the decimal text form that
 * Bitcoin Core's RPC writes and reads. Exact integer arithmetic only (no floating point).
 */
#ifndef BITNODE_CONSENSUS_AMOUNT_H
#define BITNODE_CONSENSUS_AMOUNT_H

#include <stdint.h>

#define COIN 100000000LL
/* Not the total supply (slightly less will ever exist) but Core's sanity bound on any single
 * amount or sum of amounts (MoneyRange). Consensus-critical. */
#define MAX_MONEY (21000000LL * COIN)

/* Bytes amount_format needs, NUL included ("-92233720368.54775808" is 21 characters). */
#define AMOUNT_FORMAT_LEN 32

/** Core's MoneyRange: 1 if 0 <= v <= MAX_MONEY. */
static inline int amount_in_range(int64_t v)
{
    return v >= 0 && v <= MAX_MONEY;
}

/** Core's SaturatingAdd for amounts: a + b, or INT64_MAX / INT64_MIN where it would overflow
 *  (fee deltas from prioritisetransaction and mempool.dat are any int64). */
static inline int64_t amount_add_saturating(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b) {
        return INT64_MAX;
    }
    if (b < 0 && a < INT64_MIN - b) {
        return INT64_MIN;
    }
    return a + b;
}

/** Core's GetBlockSubsidy: 50 BTC halved once every halving_interval blocks (integer shift),
 *  0 from the 64th halving on. height >= 0, halving_interval > 0. */
int64_t amount_block_subsidy(int height, int halving_interval);

/** Formats sat as Core's ValueFromAmount does for RPC: an optional '-', the whole coins, '.',
 *  exactly 8 digits ("0.00000001", "-0.00000001", "21000000.00000000"). Any int64 value,
 *  INT64_MIN included. out must hold AMOUNT_FORMAT_LEN bytes. */
void amount_format(char out[AMOUNT_FORMAT_LEN], int64_t sat);
/** Formats sat as Core's FormatMoney does for messages: amount_format's digits with the
 *  trailing zeros dropped down to two decimals ("1.00", "0.0001", "-0.00000001"). */
void amount_format_money(char out[AMOUNT_FORMAT_LEN], int64_t sat);

/** Core's ParseFixedPoint: parses a decimal number with `decimals` fractional digits into
 *  an integer (the number times 10^decimals), exactly.
 *
 *  Grammar: ['-'] ('0' | [1-9][0-9]*) ['.' [0-9]+] [('e'|'E') ['+'|'-'] [0-9]+], nothing
 *  else (no spaces, no leading '+', no "00.1", no ".5", no "1."). The value must be a whole
 *  multiple of 10^-decimals and its magnitude below 10^(18-decimals).
 *  Returns: 0 with *out set, or RC_INVALID (*out unchanged).
 */
int amount_parse_fixed_point(int64_t *out, const char *s, int decimals);

/** Parses an RPC amount in BTC ("0.1", "1e-8", "21000000") to satoshis the way Core's
 *  AmountFromValue does: ParseFixedPoint with 8 decimals, then MoneyRange.
 *  Returns: 0 with *out_sat set; RC_INVALID if it does not parse ("Invalid amount");
 *           RC_TOO_LARGE if it parses but is negative or above MAX_MONEY ("Amount out of
 *           range"). *out_sat is unchanged on failure.
 */
int amount_parse(int64_t *out_sat, const char *s);

#endif
