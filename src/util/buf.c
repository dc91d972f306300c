#include "util/buf.h"

#include <stdio.h>
#include <string.h>

#include "util/rc.h"
#include "util/xmalloc.h"

void buf_init(struct buf *b)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}

void buf_clear(struct buf *b)
{
    free(b->data);
    buf_init(b);
}

void buf_reset(struct buf *b)
{
    b->len = 0;
}

void buf_reserve(struct buf *b, size_t n)
{
    if (b->cap - b->len >= n) {
        return;
    }
    size_t cap = b->cap ? b->cap : 64;
    while (cap - b->len < n) {
        cap *= 2;
    }
    b->data = xrealloc(b->data, cap);
    b->cap = cap;
}

void buf_append(struct buf *b, const void *p, size_t n)
{
    if (n == 0) {
        return;
    }
    buf_reserve(b, n);
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

void buf_append_fill(struct buf *b, uint8_t c, size_t n)
{
    if (n == 0) {
        return;
    }
    buf_reserve(b, n);
    memset(b->data + b->len, c, n);
    b->len += n;
}

void buf_put_u8(struct buf *b, uint8_t v)
{
    buf_append(b, &v, 1);
}

void buf_put_u16le(struct buf *b, uint16_t v)
{
    uint8_t t[2];
    wr_u16le(t, v);
    buf_append(b, t, 2);
}

void buf_put_u32le(struct buf *b, uint32_t v)
{
    uint8_t t[4];
    wr_u32le(t, v);
    buf_append(b, t, 4);
}

void buf_put_u64le(struct buf *b, uint64_t v)
{
    uint8_t t[8];
    wr_u64le(t, v);
    buf_append(b, t, 8);
}

void buf_put_u32be(struct buf *b, uint32_t v)
{
    uint8_t t[4];
    wr_u32be(t, v);
    buf_append(b, t, 4);
}

void reader_init(struct reader *r, const uint8_t *p, size_t len)
{
    r->p = p;
    r->len = len;
    r->pos = 0;
    r->rc = RC_OK;
    r->err[0] = '\0';
}

int reader_fail(struct reader *r, int rc, const char *fmt, ...)
{
    if (r->rc == RC_OK) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->err, sizeof(r->err), fmt, ap);
        va_end(ap);
        r->rc = rc;
    }
    return rc;
}

static int need(struct reader *r, size_t n, const char *what)
{
    if (r->rc != RC_OK) {
        return r->rc;
    }
    if (reader_left(r) < n) {
        return reader_fail(r, RC_TRUNCATED,
                           "truncated reading %s at offset %zu: need %zu bytes, %zu left", what,
                           r->pos, n, reader_left(r));
    }
    return RC_OK;
}

int reader_u8(struct reader *r, uint8_t *out, const char *what)
{
    int rc = need(r, 1, what);
    if (rc) {
        return rc;
    }
    *out = r->p[r->pos++];
    return RC_OK;
}

int reader_u16le(struct reader *r, uint16_t *out, const char *what)
{
    int rc = need(r, 2, what);
    if (rc) {
        return rc;
    }
    *out = rd_u16le(r->p + r->pos);
    r->pos += 2;
    return RC_OK;
}

int reader_u32le(struct reader *r, uint32_t *out, const char *what)
{
    int rc = need(r, 4, what);
    if (rc) {
        return rc;
    }
    *out = rd_u32le(r->p + r->pos);
    r->pos += 4;
    return RC_OK;
}

int reader_u64le(struct reader *r, uint64_t *out, const char *what)
{
    int rc = need(r, 8, what);
    if (rc) {
        return rc;
    }
    *out = rd_u64le(r->p + r->pos);
    r->pos += 8;
    return RC_OK;
}

int reader_u32be(struct reader *r, uint32_t *out, const char *what)
{
    int rc = need(r, 4, what);
    if (rc) {
        return rc;
    }
    *out = rd_u32be(r->p + r->pos);
    r->pos += 4;
    return RC_OK;
}

int reader_bytes(struct reader *r, void *out, size_t n, const char *what)
{
    int rc = need(r, n, what);
    if (rc) {
        return rc;
    }
    if (n) {
        memcpy(out, r->p + r->pos, n);
    }
    r->pos += n;
    return RC_OK;
}

int reader_ptr(struct reader *r, const uint8_t **out, size_t n, const char *what)
{
    int rc = need(r, n, what);
    if (rc) {
        return rc;
    }
    *out = r->p + r->pos;
    r->pos += n;
    return RC_OK;
}

int reader_skip(struct reader *r, size_t n, const char *what)
{
    int rc = need(r, n, what);
    if (rc) {
        return rc;
    }
    r->pos += n;
    return RC_OK;
}

int reader_expect_end(struct reader *r, const char *what)
{
    if (r->rc != RC_OK) {
        return r->rc;
    }
    if (r->pos != r->len) {
        return reader_fail(r, RC_TRAILING, "%zu bytes of trailing data after %s at offset %zu",
                           r->len - r->pos, what, r->pos);
    }
    return RC_OK;
}
