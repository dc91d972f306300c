#include "primitives/serialize.h"

#include "util/rc.h"

void ser_put_compact(struct buf *b, uint64_t v)
{
    if (v < 253) {
        buf_put_u8(b, (uint8_t)v);
    } else if (v <= 0xffff) {
        buf_put_u8(b, 253);
        buf_put_u16le(b, (uint16_t)v);
    } else if (v <= 0xffffffffu) {
        buf_put_u8(b, 254);
        buf_put_u32le(b, (uint32_t)v);
    } else {
        buf_put_u8(b, 255);
        buf_put_u64le(b, v);
    }
}

size_t ser_compact_len(uint64_t v)
{
    return v < 253 ? 1 : v <= 0xffff ? 3 : v <= 0xffffffffu ? 5 : 9;
}

int ser_get_compact(struct reader *r, uint64_t *out, const char *what)
{
    uint8_t first;
    uint64_t v;
    int rc = reader_u8(r, &first, what);
    if (rc) {
        return rc;
    }
    if (first < 253) {
        v = first;
    } else if (first == 253) {
        uint16_t t;
        if ((rc = reader_u16le(r, &t, what))) {
            return rc;
        }
        v = t;
        if (v < 253) {
            return reader_fail(r, RC_NONCANONICAL, "non-canonical ReadCompactSize(): %s at offset %zu",
                               what, r->pos - 3);
        }
    } else if (first == 254) {
        uint32_t t;
        if ((rc = reader_u32le(r, &t, what))) {
            return rc;
        }
        v = t;
        if (v <= 0xffff) {
            return reader_fail(r, RC_NONCANONICAL, "non-canonical ReadCompactSize(): %s at offset %zu",
                               what, r->pos - 5);
        }
    } else {
        if ((rc = reader_u64le(r, &v, what))) {
            return rc;
        }
        if (v <= 0xffffffffu) {
            return reader_fail(r, RC_NONCANONICAL, "non-canonical ReadCompactSize(): %s at offset %zu",
                               what, r->pos - 9);
        }
    }
    if (v > SER_MAX_SIZE) {
        return reader_fail(r, RC_TOO_LARGE, "ReadCompactSize(): size too large: %s of %llu over 32 MiB at offset %zu",
                           what, (unsigned long long)v, r->pos);
    }
    *out = v;
    return RC_OK;
}

void ser_put_varbytes(struct buf *b, const uint8_t *p, size_t n)
{
    ser_put_compact(b, n);
    buf_append(b, p, n);
}

int ser_get_varbytes(struct reader *r, const uint8_t **p, size_t *n, const char *what)
{
    uint64_t len;
    int rc = ser_get_compact(r, &len, what);
    if (rc) {
        return rc;
    }
    if ((rc = reader_ptr(r, p, (size_t)len, what))) {
        return rc;
    }
    *n = (size_t)len;
    return RC_OK;
}

size_t ser_varint_encode(uint8_t out[10], uint64_t v)
{
    uint8_t tmp[10];
    int len = 0;
    for (;;) {
        tmp[len] = (uint8_t)((v & 0x7f) | (len ? 0x80 : 0x00));
        if (v <= 0x7f) {
            break;
        }
        v = (v >> 7) - 1;
        len++;
    }
    for (int i = 0; i <= len; i++) {
        out[i] = tmp[len - i];
    }
    return (size_t)len + 1;
}

void ser_put_varint(struct buf *b, uint64_t v)
{
    uint8_t tmp[10];
    buf_append(b, tmp, ser_varint_encode(tmp, v));
}

int ser_get_varint(struct reader *r, uint64_t *out, const char *what)
{
    uint64_t v = 0;
    for (;;) {
        uint8_t c;
        int rc = reader_u8(r, &c, what);
        if (rc) {
            return rc;
        }
        if (v > (UINT64_MAX >> 7)) {
            return reader_fail(r, RC_TOO_LARGE, "VARINT for %s too large at offset %zu", what,
                               r->pos);
        }
        v = (v << 7) | (c & 0x7f);
        if (c & 0x80) {
            if (v == UINT64_MAX) {
                return reader_fail(r, RC_TOO_LARGE, "VARINT for %s too large at offset %zu",
                                   what, r->pos);
            }
            v++;
        } else {
            *out = v;
            return RC_OK;
        }
    }
}
