/* A growable byte buffer (writer) and a bounds-checked reader.
 *
 * The reader never reads past its input. On the first failure it records a message naming
 * the field being read and the offset ("truncated reading tx version at offset 4: need 4
 * bytes, 2 left"); later reads fail without overwriting it, so the first cause is kept.
 */
#ifndef BITNODE_UTIL_BUF_H
#define BITNODE_UTIL_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

struct buf {
    uint8_t *data; /* owned; NULL while cap == 0 */
    size_t len;
    size_t cap;
};

/** Makes b empty with no allocation. */
void buf_init(struct buf *b);
/** Frees b's storage and makes it empty again. */
void buf_clear(struct buf *b);
/** Sets the length to 0, keeping the storage. */
void buf_reset(struct buf *b);
/** Makes room for at least n more bytes. */
void buf_reserve(struct buf *b, size_t n);
/** Appends n bytes of p (p may be NULL when n == 0). */
void buf_append(struct buf *b, const void *p, size_t n);
/** Appends n copies of byte c. */
void buf_append_fill(struct buf *b, uint8_t c, size_t n);
void buf_put_u8(struct buf *b, uint8_t v);
void buf_put_u16le(struct buf *b, uint16_t v);
void buf_put_u32le(struct buf *b, uint32_t v);
void buf_put_u64le(struct buf *b, uint64_t v);
void buf_put_u32be(struct buf *b, uint32_t v);

/* Little/big-endian helpers on raw memory. */
static inline uint16_t rd_u16le(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t rd_u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}
static inline uint64_t rd_u64le(const uint8_t *p)
{
    return (uint64_t)rd_u32le(p) | ((uint64_t)rd_u32le(p + 4) << 32);
}
static inline uint32_t rd_u32be(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) |
           (uint32_t)p[3];
}
static inline void wr_u16le(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void wr_u32le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}
static inline void wr_u64le(uint8_t *p, uint64_t v)
{
    wr_u32le(p, (uint32_t)v);
    wr_u32le(p + 4, (uint32_t)(v >> 32));
}
static inline void wr_u32be(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

#define READER_ERR_LEN 192

struct reader {
    const uint8_t *p; /* borrowed */
    size_t len;
    size_t pos;
    int rc;                     /* first failure's code, RC_OK while none */
    char err[READER_ERR_LEN];   /* first failure's message, "" while none */
};

/** Starts reading len bytes at p (borrowed for the reader's life). */
void reader_init(struct reader *r, const uint8_t *p, size_t len);
static inline size_t reader_left(const struct reader *r)
{
    return r->len - r->pos;
}
/** Records a failure (only the first is kept) and returns rc. what names the field. */
int reader_fail(struct reader *r, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/** Each reads one field named what; returns 0, or RC_TRUNCATED (recorded) if too short. */
int reader_u8(struct reader *r, uint8_t *out, const char *what);
int reader_u16le(struct reader *r, uint16_t *out, const char *what);
int reader_u32le(struct reader *r, uint32_t *out, const char *what);
int reader_u64le(struct reader *r, uint64_t *out, const char *what);
int reader_u32be(struct reader *r, uint32_t *out, const char *what);
/** Copies n bytes into out. */
int reader_bytes(struct reader *r, void *out, size_t n, const char *what);
/** Borrows n bytes: *out points into the input. */
int reader_ptr(struct reader *r, const uint8_t **out, size_t n, const char *what);
/** Advances n bytes. */
int reader_skip(struct reader *r, size_t n, const char *what);
/** Returns 0 if every byte was consumed, else RC_TRAILING (recorded) naming what. */
int reader_expect_end(struct reader *r, const char *what);

#endif
