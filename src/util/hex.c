#include "util/hex.h"

#include <string.h>

#include "util/rc.h"
#include "util/xmalloc.h"

static const char digits[] = "0123456789abcdef";

void hex_encode(char *out, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[p[i] >> 4];
        out[2 * i + 1] = digits[p[i] & 15];
    }
    out[2 * n] = '\0';
}

void hex_encode_rev(char *out, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t c = p[n - 1 - i];
        out[2 * i] = digits[c >> 4];
        out[2 * i + 1] = digits[c & 15];
    }
    out[2 * n] = '\0';
}

void hex_append(struct buf *out, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        buf_put_u8(out, (uint8_t)digits[p[i] >> 4]);
        buf_put_u8(out, (uint8_t)digits[p[i] & 15]);
    }
}

char *hex_encode_alloc(const uint8_t *p, size_t n)
{
    char *s = xmalloc(2 * n + 1);
    hex_encode(s, p, n);
    return s;
}

int hex_digit(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

int hex_decode(struct buf *out, const char *hex)
{
    size_t n = strlen(hex);
    if (n % 2) {
        return RC_INVALID;
    }
    for (size_t i = 0; i < n; i++) {
        if (hex_digit(hex[i]) < 0) {
            return RC_INVALID;
        }
    }
    buf_reserve(out, n / 2);
    for (size_t i = 0; i < n; i += 2) {
        buf_put_u8(out, (uint8_t)(hex_digit(hex[i]) << 4 | hex_digit(hex[i + 1])));
    }
    return RC_OK;
}

int hex_decode_fixed(uint8_t *p, size_t n, const char *hex)
{
    if (strlen(hex) != 2 * n) {
        return RC_INVALID;
    }
    for (size_t i = 0; i < n; i++) {
        int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            return RC_INVALID;
        }
        p[i] = (uint8_t)(hi << 4 | lo);
    }
    return RC_OK;
}

int hex_decode_hash32_rev(uint8_t hash32[32], const char *hex)
{
    uint8_t t[32];
    int rc = hex_decode_fixed(t, 32, hex);
    if (rc) {
        return rc;
    }
    for (int i = 0; i < 32; i++) {
        hash32[i] = t[31 - i];
    }
    return RC_OK;
}
