/* The record layout shared by the kv crash test (kv_tests.c) and its child process
 * (kv_crash_child.c).
 *
 * The child writes batches numbered 1, 2, 3, ... Batch b
 *   - puts KV_CRASH_COUNT(b) data records  'd' be32(b) be32(i) -> crash_value(b, i),
 *   - puts a count record                  'c' be32(b)          -> le32(count),
 *   - puts the head record                 'h'                  -> be32(b),
 *   - deletes every record of batch b - 3 (data and count),
 * and after kv_write() returns it reports "b\n" on stdout. So a store where every batch is
 * all-or-nothing holds exactly batches M-2..M for some M, each complete, with head = M, and M
 * is the last reported batch or the one after it.
 */
#ifndef BITNODE_TEST_KV_CRASH_H
#define BITNODE_TEST_KV_CRASH_H

#include <stddef.h>
#include <stdint.h>

#define KV_CRASH_KEEP 3 /* batches alive at once */

/* Most batches are a few thousand records; every seventh is large (a flush-sized burst). */
static inline uint32_t kv_crash_count(uint32_t b)
{
    if (b % 7 == 0) {
        return 30000;
    }
    return 200 + (uint32_t)(((uint64_t)b * 2654435761u) >> 7) % 3000;
}

static inline int kv_crash_sync(uint32_t b)
{
    return b % 4 == 0;
}

/* A value of 16..79 bytes determined by (b, i). Returns its length. */
static inline size_t kv_crash_value(uint8_t out[80], uint32_t b, uint32_t i)
{
    uint64_t x = ((uint64_t)b << 32 | i) * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    size_t len = 16 + (size_t)(x >> 58);
    for (size_t k = 0; k < len; k++) {
        x ^= x >> 29;
        x *= 0xbf58476d1ce4e5b9ull;
        out[k] = (uint8_t)(x >> 56);
    }
    return len;
}

static inline void kv_crash_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline uint32_t kv_crash_rd_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

#endif
