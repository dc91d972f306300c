/* 256-bit unsigned arithmetic with Bitcoin Core's arith_uint256 semantics. */
#include "consensus/arith256.h"

#include <string.h>

#include "util/buf.h"
#include "util/check.h"
#include "util/hex.h"
#include "util/rc.h"

#define U256_WORDS 8

void u256_set_u64(struct u256 *x, uint64_t v)
{
    memset(x, 0, sizeof(*x));
    x->w[0] = (uint32_t)v;
    x->w[1] = (uint32_t)(v >> 32);
}

void u256_from_le32(struct u256 *x, const uint8_t in32[32])
{
    for (int i = 0; i < U256_WORDS; i++) {
        x->w[i] = rd_u32le(in32 + 4 * i);
    }
}

void u256_to_le32(uint8_t out32[32], const struct u256 *x)
{
    for (int i = 0; i < U256_WORDS; i++) {
        wr_u32le(out32 + 4 * i, x->w[i]);
    }
}

void u256_to_hex(char out65[65], const struct u256 *x)
{
    uint8_t le[32];
    u256_to_le32(le, x);
    hex_encode_rev(out65, le, 32);
}

int u256_from_hex(struct u256 *x, const char *hex)
{
    struct u256 t;
    memset(&t, 0, sizeof(t));
    for (int i = 0; i < 64; i++) {
        int d = hex[i] ? hex_digit(hex[i]) : -1;
        if (d < 0) {
            return RC_INVALID;
        }
        int nib = 63 - i;
        t.w[nib / 8] |= (uint32_t)d << (4 * (nib % 8));
    }
    if (hex[64] != '\0') {
        return RC_INVALID;
    }
    *x = t;
    return RC_OK;
}

int u256_cmp(const struct u256 *a, const struct u256 *b)
{
    for (int i = U256_WORDS - 1; i >= 0; i--) {
        if (a->w[i] < b->w[i]) {
            return -1;
        }
        if (a->w[i] > b->w[i]) {
            return 1;
        }
    }
    return 0;
}

int u256_is_zero(const struct u256 *x)
{
    for (int i = 0; i < U256_WORDS; i++) {
        if (x->w[i]) {
            return 0;
        }
    }
    return 1;
}

unsigned u256_bits(const struct u256 *x)
{
    for (int i = U256_WORDS - 1; i >= 0; i--) {
        if (x->w[i]) {
            for (int b = 31; b >= 0; b--) {
                if (x->w[i] & (1u << b)) {
                    return (unsigned)(32 * i + b + 1);
                }
            }
        }
    }
    return 0;
}

uint64_t u256_low64(const struct u256 *x)
{
    return (uint64_t)x->w[0] | ((uint64_t)x->w[1] << 32);
}

void u256_add(struct u256 *r, const struct u256 *a, const struct u256 *b)
{
    uint64_t carry = 0;
    for (int i = 0; i < U256_WORDS; i++) {
        uint64_t n = carry + a->w[i] + b->w[i];
        r->w[i] = (uint32_t)n;
        carry = n >> 32;
    }
}

void u256_add_u64(struct u256 *r, const struct u256 *a, uint64_t v)
{
    struct u256 t;
    u256_set_u64(&t, v);
    u256_add(r, a, &t);
}

void u256_sub(struct u256 *r, const struct u256 *a, const struct u256 *b)
{
    uint64_t borrow = 0;
    for (int i = 0; i < U256_WORDS; i++) {
        uint64_t n = (uint64_t)a->w[i] - b->w[i] - borrow;
        r->w[i] = (uint32_t)n;
        borrow = (n >> 32) ? 1 : 0;
    }
}

void u256_mul_u32(struct u256 *r, const struct u256 *a, uint32_t m)
{
    uint64_t carry = 0;
    for (int i = 0; i < U256_WORDS; i++) {
        uint64_t n = carry + (uint64_t)a->w[i] * m;
        r->w[i] = (uint32_t)n;
        carry = n >> 32;
    }
}

void u256_mul(struct u256 *r, const struct u256 *a, const struct u256 *b)
{
    struct u256 t;
    memset(&t, 0, sizeof(t));
    for (int j = 0; j < U256_WORDS; j++) {
        uint64_t carry = 0;
        for (int i = 0; i + j < U256_WORDS; i++) {
            uint64_t n = carry + t.w[i + j] + (uint64_t)a->w[j] * b->w[i];
            t.w[i + j] = (uint32_t)n;
            carry = n >> 32;
        }
    }
    *r = t;
}

void u256_not(struct u256 *r, const struct u256 *a)
{
    for (int i = 0; i < U256_WORDS; i++) {
        r->w[i] = ~a->w[i];
    }
}

void u256_shl(struct u256 *r, const struct u256 *a, unsigned n)
{
    struct u256 t;
    memset(&t, 0, sizeof(t));
    if (n < 256) {
        unsigned k = n / 32, s = n % 32;
        for (unsigned i = 0; i < U256_WORDS; i++) {
            if (i + k + 1 < U256_WORDS && s != 0) {
                t.w[i + k + 1] |= a->w[i] >> (32 - s);
            }
            if (i + k < U256_WORDS) {
                t.w[i + k] |= a->w[i] << s;
            }
        }
    }
    *r = t;
}

void u256_shr(struct u256 *r, const struct u256 *a, unsigned n)
{
    struct u256 t;
    memset(&t, 0, sizeof(t));
    if (n < 256) {
        unsigned k = n / 32, s = n % 32;
        for (unsigned i = 0; i < U256_WORDS; i++) {
            if (i >= k + 1 && s != 0) {
                t.w[i - k - 1] |= a->w[i] << (32 - s);
            }
            if (i >= k) {
                t.w[i - k] |= a->w[i] >> s;
            }
        }
    }
    *r = t;
}

void u256_div(struct u256 *r, const struct u256 *a, const struct u256 *b)
{
    struct u256 num = *a, div = *b, q;
    unsigned num_bits = u256_bits(&num), div_bits = u256_bits(&div);

    CHECK_ALWAYS(div_bits != 0);
    memset(&q, 0, sizeof(q));
    if (div_bits <= num_bits) {
        /* Schoolbook binary long division: line the divisor up with the dividend's top bit
         * and subtract it wherever it fits, one quotient bit per step. */
        int shift = (int)(num_bits - div_bits);
        u256_shl(&div, &div, (unsigned)shift);
        while (shift >= 0) {
            if (u256_cmp(&num, &div) >= 0) {
                u256_sub(&num, &num, &div);
                q.w[shift / 32] |= 1u << (shift % 32);
            }
            u256_shr(&div, &div, 1);
            shift--;
        }
    }
    *r = q;
}

void u256_set_compact(struct u256 *out, uint32_t compact, int *negative, int *overflow)
{
    unsigned size = compact >> 24;
    uint32_t word = compact & 0x007fffff;

    if (size <= 3) {
        word >>= 8 * (3 - size);
        u256_set_u64(out, word);
    } else {
        u256_set_u64(out, word);
        u256_shl(out, out, 8 * (size - 3));
    }
    if (negative) {
        *negative = word != 0 && (compact & 0x00800000) != 0;
    }
    if (overflow) {
        *overflow = word != 0 &&
                    ((size > 34) || (word > 0xff && size > 33) || (word > 0xffff && size > 32));
    }
}

uint32_t u256_get_compact(const struct u256 *x, int negative)
{
    unsigned size = (u256_bits(x) + 7) / 8;
    uint32_t compact;

    if (size <= 3) {
        compact = (uint32_t)(u256_low64(x) << (8 * (3 - size)));
    } else {
        struct u256 t;
        u256_shr(&t, x, 8 * (size - 3));
        compact = (uint32_t)u256_low64(&t);
    }
    /* The 0x00800000 bit is the sign: if the mantissa would use it, shift one byte more
     * into the exponent. */
    if (compact & 0x00800000) {
        compact >>= 8;
        size++;
    }
    CHECK_ALWAYS((compact & ~0x007fffffu) == 0);
    CHECK_ALWAYS(size < 256);
    compact |= (uint32_t)size << 24;
    if (negative && (compact & 0x007fffff)) {
        compact |= 0x00800000;
    }
    return compact;
}
