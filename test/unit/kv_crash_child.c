/* The child of the kv crash test: opens the store of the configured backend and writes
 * batches (layout in kv_crash.h) until it is killed.
 *
 *   kv_crash_child <dir> <first batch>
 *
 * Exits 2 with a message on stderr if a kv call fails; it never exits on its own otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kv/kv.h"
#include "kv_crash.h"
#include "util/buf.h"

int main(int argc, char **argv)
{
    struct kv *kv = NULL;
    struct kv_batch *batch;
    uint32_t b;
    int rc;

    if (argc != 3) {
        fprintf(stderr, "usage: %s <dir> <first batch>\n", argv[0]);
        return 2;
    }
    b = (uint32_t)strtoul(argv[2], NULL, 10);
    rc = kv_open(&kv, kv_default_ops(), argv[1], NULL);
    if (rc != 0) {
        fprintf(stderr, "kv_crash_child: open %s: %s\n", argv[1], kv_last_error(NULL));
        return 2;
    }
    batch = kv_batch_new();
    for (;; b++) {
        uint32_t n = kv_crash_count(b);
        uint8_t key[9], val[80], head[4], count[4];
        char line[16];
        int len;

        kv_batch_clear(batch);
        key[0] = 'd';
        kv_crash_be32(key + 1, b);
        for (uint32_t i = 0; i < n; i++) {
            size_t vlen = kv_crash_value(val, b, i);
            kv_crash_be32(key + 5, i);
            kv_batch_put(batch, key, 9, val, vlen);
        }
        key[0] = 'c';
        count[0] = (uint8_t)n;
        count[1] = (uint8_t)(n >> 8);
        count[2] = (uint8_t)(n >> 16);
        count[3] = (uint8_t)(n >> 24);
        kv_batch_put(batch, key, 5, count, 4);
        kv_crash_be32(head, b);
        kv_batch_put(batch, "h", 1, head, 4);
        if (b > KV_CRASH_KEEP) {
            uint32_t old = b - KV_CRASH_KEEP;
            uint32_t old_n = kv_crash_count(old);
            key[0] = 'd';
            kv_crash_be32(key + 1, old);
            for (uint32_t i = 0; i < old_n; i++) {
                kv_crash_be32(key + 5, i);
                kv_batch_delete(batch, key, 9);
            }
            key[0] = 'c';
            kv_batch_delete(batch, key, 5);
        }
        rc = kv_write(kv, batch, kv_crash_sync(b));
        if (rc != 0) {
            fprintf(stderr, "kv_crash_child: write batch %u: %s\n", b, kv_last_error(kv));
            return 2;
        }
        len = snprintf(line, sizeof(line), "%u\n", b);
        if (write(1, line, (size_t)len) != len) {
            return 2;
        }
    }
}
