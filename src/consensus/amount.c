/* Amounts: subsidy, RPC formatting and parsing (Core's ValueFromAmount / ParseFixedPoint). */
#include "consensus/amount.h"

#include <stdio.h>
#include <string.h>

#include "util/check.h"
#include "util/rc.h"

int64_t amount_block_subsidy(int height, int halving_interval)
{
    CHECK_ALWAYS(height >= 0 && halving_interval > 0);
    int halvings = height / halving_interval;
    /* Shifting a 64-bit value by 64 or more is undefined; Core stops the subsidy there. */
    if (halvings >= 64) {
        return 0;
    }
    return (50 * COIN) >> halvings;
}

void amount_format(char out[AMOUNT_FORMAT_LEN], int64_t sat)
{
    /* Quotient and remainder of a negative value are both <= 0 in C, and their negations
     * fit even for INT64_MIN, so the magnitude is printed without ever negating sat. */
    int64_t quotient = sat / COIN;
    int64_t remainder = sat % COIN;
    if (sat < 0) {
        quotient = -quotient;
        remainder = -remainder;
    }
    snprintf(out, AMOUNT_FORMAT_LEN, "%s%lld.%08lld", sat < 0 ? "-" : "", (long long)quotient,
             (long long)remainder);
}

/* 10^18 - 1: the largest run of arbitrary decimal digits that fits in an int64. */
#define FP_UPPER_BOUND (1000000000000000000LL - 1LL)

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Adds one mantissa digit. Zeros are counted rather than multiplied in at once, so that
 * trailing zeros ("1.10000000000000000000") never overflow. Returns 0 on overflow. */
static int mantissa_digit(char c, int64_t *mantissa, int *tzeros)
{
    if (c == '0') {
        ++*tzeros;
        return 1;
    }
    for (int i = 0; i <= *tzeros; i++) {
        if (*mantissa > FP_UPPER_BOUND / 10) {
            return 0;
        }
        *mantissa *= 10;
    }
    *mantissa += c - '0';
    *tzeros = 0;
    return 1;
}

int amount_parse_fixed_point(int64_t *out, const char *s, int decimals)
{
    int64_t mantissa = 0, exponent = 0;
    int tzeros = 0, negative = 0, exp_negative = 0, point_ofs = 0;
    const char *p = s;

    if (*p == '-') {
        negative = 1;
        p++;
    }
    if (*p == '0') {
        p++; /* a single leading zero only */
    } else if (*p >= '1' && *p <= '9') {
        while (is_digit(*p)) {
            if (!mantissa_digit(*p, &mantissa, &tzeros)) {
                return RC_INVALID;
            }
            p++;
        }
    } else {
        return RC_INVALID; /* empty, a lone '-', or no digit first */
    }
    if (*p == '.') {
        p++;
        if (!is_digit(*p)) {
            return RC_INVALID;
        }
        while (is_digit(*p)) {
            if (!mantissa_digit(*p, &mantissa, &tzeros)) {
                return RC_INVALID;
            }
            p++;
            point_ofs++;
        }
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+') {
            p++;
        } else if (*p == '-') {
            exp_negative = 1;
            p++;
        }
        if (!is_digit(*p)) {
            return RC_INVALID;
        }
        while (is_digit(*p)) {
            if (exponent > FP_UPPER_BOUND / 10) {
                return RC_INVALID;
            }
            exponent = exponent * 10 + (*p - '0');
            p++;
        }
    }
    if (*p != '\0') {
        return RC_INVALID; /* trailing garbage */
    }

    if (exp_negative) {
        exponent = -exponent;
    }
    exponent = exponent - point_ofs + tzeros;
    if (negative) {
        mantissa = -mantissa;
    }
    exponent += decimals;
    if (exponent < 0 || exponent >= 18) {
        return RC_INVALID; /* finer than 10^-decimals, or not below 10^(18-decimals) */
    }
    for (int64_t i = 0; i < exponent; i++) {
        if (mantissa > FP_UPPER_BOUND / 10 || mantissa < -(FP_UPPER_BOUND / 10)) {
            return RC_INVALID;
        }
        mantissa *= 10;
    }
    if (mantissa > FP_UPPER_BOUND || mantissa < -FP_UPPER_BOUND) {
        return RC_INVALID;
    }
    *out = mantissa;
    return RC_OK;
}

int amount_parse(int64_t *out_sat, const char *s)
{
    int64_t v;
    int rc = amount_parse_fixed_point(&v, s, 8);
    if (rc != RC_OK) {
        return rc;
    }
    if (!amount_in_range(v)) {
        return RC_TOO_LARGE;
    }
    *out_sat = v;
    return RC_OK;
}

void amount_format_money(char out[AMOUNT_FORMAT_LEN], int64_t sat)
{
    amount_format(out, sat);
    size_t n = strlen(out);
    while (n >= 3 && out[n - 1] == '0' && out[n - 3] != '.') {
        out[--n] = 0;
    }
}
