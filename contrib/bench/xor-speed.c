/* The XOR key's throughput (util/obfuscation.c): in place, into another buffer (the block
 * store's writes), against memcpy, on 1 MiB buffers (a block's size) at odd offsets. Run on
 * purpose, never by the tests:
 *
 *   gcc -O2 -Isrc -o /tmp/xor-speed contrib/bench/xor-speed.c src/util/obfuscation.c
 *   /tmp/xor-speed
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "util/obfuscation.h"
int main(void)
{
    size_t n = 1u << 20;
    uint8_t *p = malloc(n + 8), *q = (uint8_t *)malloc(n + 4096) + 1536;
    memset(p, 7, n + 8);
    const uint8_t key[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    struct obfuscation o;
    obfuscation_init(&o, key);
    for (int mode = 0; mode < 3; mode++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        for (int r = 0; r < 2048; r++) {
            if (mode == 2) {
                memcpy(q + 1, p + 3, n);
            } else if (mode == 0) {
                obfuscation_apply(&o, p + 3, n, 3);
            } else {
                obfuscation_copy(&o, q + 1, p + 3, n, 3);
            }
        }
        clock_gettime(CLOCK_MONOTONIC, &b);
        double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
        printf("%s: %.2f GB/s\n", mode == 2 ? "memcpy" : mode ? "copy" : "in place", 2048.0 * (double)n / s / 1e9);
    }
    return p[5] + q[9] == 0;
}
