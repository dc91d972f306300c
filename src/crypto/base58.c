/* Base58 / Base58Check, following Bitcoin Core's src/base58.cpp digit by digit so that
 * edge cases (whitespace, leading '1's, length limits) behave identically. */
#include <stdint.h>
#include <string.h>

#include "crypto/base58.h"
#include "crypto/hash.h"
#include "util/check.h"
#include "util/rc.h"
#include "util/xmalloc.h"

static const char B58_ALPHABET[] = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/* Value of a base58 digit, or -1. */
static int b58_digit(unsigned char c)
{
    const char *pos;
    if (c == 0) {
        return -1;
    }
    pos = strchr(B58_ALPHABET, c);
    return pos ? (int)(pos - B58_ALPHABET) : -1;
}

/* Core's IsSpace: the C locale's isspace without depending on the locale. */
static int is_space(char c)
{
    return c == ' ' || c == '\f' || c == '\n' || c == '\r' || c == '\t' || c == '\v';
}

char *base58_encode(const uint8_t *p, size_t n)
{
    size_t zeroes = 0, length = 0, size, i, j;
    uint8_t *b58;
    char *str;

    while (zeroes < n && p[zeroes] == 0) {
        zeroes++;
    }
    if (zeroes) { /* p may be NULL when n is 0: NULL + 0 is undefined in C */
        p += zeroes;
        n -= zeroes;
    }
    /* log(256) / log(58) = 1.365..., rounded up. */
    size = n * 138 / 100 + 1;
    b58 = xcalloc(size, 1);
    for (i = 0; i < n; i++) {
        unsigned carry = p[i];
        size_t k = 0;
        /* b58 holds the number so far in its last `length` digits (big-endian). */
        for (j = size; j > 0 && (carry != 0 || k < length); j--, k++) {
            carry += 256u * b58[j - 1];
            b58[j - 1] = (uint8_t)(carry % 58);
            carry /= 58;
        }
        CHECK_ALWAYS(carry == 0);
        length = k;
    }
    /* Skip leading zero digits. */
    j = size - length;
    while (j < size && b58[j] == 0) {
        j++;
    }
    str = xmalloc(zeroes + (size - j) + 1);
    memset(str, '1', zeroes);
    for (i = zeroes; j < size; i++, j++) {
        str[i] = B58_ALPHABET[b58[j]];
    }
    str[i] = '\0';
    free(b58);
    return str;
}

int base58_decode(struct buf *out, const char *s, size_t max_len)
{
    size_t zeroes = 0, length = 0, size, j;
    uint8_t *b256;
    int rc = RC_OK;

    while (*s && is_space(*s)) {
        s++;
    }
    while (*s == '1') {
        zeroes++;
        if (zeroes > max_len) {
            return RC_TOO_LARGE;
        }
        s++;
    }
    /* log(58) / log(256) = 0.732..., rounded up. */
    size = strlen(s) * 733 / 1000 + 1;
    b256 = xcalloc(size, 1);
    while (*s && !is_space(*s)) {
        int digit = b58_digit((unsigned char)*s);
        unsigned carry;
        size_t k = 0;
        if (digit < 0) {
            rc = RC_INVALID;
            goto out_free;
        }
        carry = (unsigned)digit;
        for (j = size; j > 0 && (carry != 0 || k < length); j--, k++) {
            carry += 58u * b256[j - 1];
            b256[j - 1] = (uint8_t)(carry % 256);
            carry /= 256;
        }
        CHECK_ALWAYS(carry == 0);
        length = k;
        if (length + zeroes > max_len) {
            rc = RC_TOO_LARGE;
            goto out_free;
        }
        s++;
    }
    while (is_space(*s)) {
        s++;
    }
    if (*s != '\0') {
        rc = RC_INVALID;
        goto out_free;
    }
    buf_append_fill(out, 0, zeroes);
    buf_append(out, b256 + (size - length), length);
out_free:
    free(b256);
    return rc;
}

char *base58check_encode(const uint8_t *p, size_t n)
{
    uint8_t hash[32];
    uint8_t *tmp = xmalloc(n + 4);
    char *str;

    if (n > 0) {
        memcpy(tmp, p, n);
    }
    hash_sha256d(hash, tmp, n);
    memcpy(tmp + n, hash, 4);
    str = base58_encode(tmp, n + 4);
    free(tmp);
    return str;
}

int base58check_decode(struct buf *out, const char *s, size_t max_len)
{
    struct buf tmp;
    uint8_t hash[32];
    int rc;

    buf_init(&tmp);
    rc = base58_decode(&tmp, s, max_len > SIZE_MAX - 4 ? SIZE_MAX : max_len + 4);
    if (rc != RC_OK) {
        goto out_free;
    }
    if (tmp.len < 4) {
        rc = RC_INVALID;
        goto out_free;
    }
    hash_sha256d(hash, tmp.data, tmp.len - 4);
    if (memcmp(hash, tmp.data + tmp.len - 4, 4) != 0) {
        rc = RC_INVALID;
        goto out_free;
    }
    buf_append(out, tmp.data, tmp.len - 4);
out_free:
    buf_clear(&tmp);
    return rc;
}
