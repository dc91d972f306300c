#include "util/obfuscation.h"

#include <string.h>

void obfuscation_init(struct obfuscation *o, const uint8_t key[OBFUSCATION_KEY_SIZE])
{
    memcpy(o->key, key, OBFUSCATION_KEY_SIZE);
    o->on = 0;
    for (int k = 0; k < OBFUSCATION_KEY_SIZE; k++) {
        uint8_t b[OBFUSCATION_KEY_SIZE];
        for (int j = 0; j < OBFUSCATION_KEY_SIZE; j++) {
            b[j] = key[(j + k) % OBFUSCATION_KEY_SIZE];
        }
        /* In memory order, whatever the host's byte order: word byte j is key[(j + k) % 8]. */
        memcpy(&o->rot[k], b, OBFUSCATION_KEY_SIZE);
        o->on |= key[k] != 0;
    }
}

void obfuscation_copy(const struct obfuscation *o, uint8_t *dst, const uint8_t *src, size_t len,
                      uint64_t offset)
{
    if (!o->on) {
        if (dst != src) {
            memcpy(dst, src, len);
        }
        return;
    }
    /* A word at any position keeps the phase: 8 bytes on, the key starts at the same byte. */
    uint64_t k = o->rot[offset % OBFUSCATION_KEY_SIZE];
    while (len >= 32) {
        uint64_t a, b, c, d;
        memcpy(&a, src, 8);
        memcpy(&b, src + 8, 8);
        memcpy(&c, src + 16, 8);
        memcpy(&d, src + 24, 8);
        a ^= k;
        b ^= k;
        c ^= k;
        d ^= k;
        memcpy(dst, &a, 8);
        memcpy(dst + 8, &b, 8);
        memcpy(dst + 16, &c, 8);
        memcpy(dst + 24, &d, 8);
        src += 32;
        dst += 32;
        len -= 32;
    }
    while (len >= 8) {
        uint64_t a;
        memcpy(&a, src, 8);
        a ^= k;
        memcpy(dst, &a, 8);
        src += 8;
        dst += 8;
        len -= 8;
    }
    if (len) {
        uint8_t kb[8];
        memcpy(kb, &k, 8);
        for (size_t i = 0; i < len; i++) {
            dst[i] = src[i] ^ kb[i];
        }
    }
}

void obfuscation_apply(const struct obfuscation *o, uint8_t *p, size_t len, uint64_t offset)
{
    obfuscation_copy(o, p, p, len, offset);
}
