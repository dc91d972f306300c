/* Core's base64 (base64.h). */
#include "util/base64.h"

#include <string.h>

#include "util/rc.h"
#include "util/xmalloc.h"

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *base64_encode(const uint8_t *p, size_t n)
{
    char *s = xmalloc((n + 2) / 3 * 4 + 1), *o = s;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        *o++ = B64[v >> 18];
        *o++ = B64[(v >> 12) & 63];
        *o++ = i + 1 < n ? B64[(v >> 6) & 63] : '=';
        *o++ = i + 2 < n ? B64[v & 63] : '=';
    }
    *o = 0;
    return s;
}

int base64_decode(struct buf *out, const char *s)
{
    size_t n = strlen(s);
    if (n % 4) {
        return RC_INVALID;
    }
    if (n && s[n - 1] == '=') {
        n--;
    }
    if (n && s[n - 1] == '=') {
        n--;
    }
    size_t start = out->len;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        const char *c = s[i] ? strchr(B64, s[i]) : NULL;
        if (!c) {
            out->len = start;
            return RC_INVALID;
        }
        acc = (acc << 6) | (uint32_t)(c - B64);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            buf_put_u8(out, (uint8_t)(acc >> bits));
        }
        acc &= (1u << bits) - 1;
    }
    /* ConvertBits<6, 8, false>: what is left must be fewer than 6 bits, all zero. */
    if (bits >= 6 || acc != 0) {
        out->len = start;
        return RC_INVALID;
    }
    return RC_OK;
}
