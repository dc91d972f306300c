/* Fuzz target: the key-value interface (kv/kv.h), the configured persistent backend against
 * the in-memory B-tree (kv_mem_ops) as the oracle. The input is a program of operations,
 * each applied to both stores and the answers compared, op by op:
 *   byte % 8: 0 put, 1 delete, 2 a batch of up to 16 puts and deletes (atomic), 3 get,
 *   4 an iterator from a key for up to 16 steps, 5 a whole scan, 6 an iterator opened, then a
 *   write, then the iterator read (snapshot isolation), 7 close and reopen the persistent
 *   store (every 16th program only: it costs milliseconds).
 *   A key is 0-7 bytes drawn from the input (mostly masked to a 4-letter alphabet so that
 *   keys repeat), a value 0-255 bytes whose length and first byte the input gives.
 * Any difference in a return code, a value, or an iterator's keys and values is a failure,
 * and neither store may crash, leak or read out of bounds. The persistent store lives in the
 * scratch directory, open across inputs and emptied at the start of each; the mem store is
 * new for each input. kv_mem_check() checks the B-tree's invariants after each program.
 *
 * libFuzzer (clang -fsanitize=fuzzer) or standalone: the replayer (the default) runs files
 * and directories given on the command line, or, with none, a fixed number of programs made
 * by a seeded generator.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv/kv.h"
#include "util/buf.h"
#include "util/rc.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct prog {
    const uint8_t *p;
    size_t n, pos;
};

static uint8_t next(struct prog *g)
{
    return g->pos < g->n ? g->p[g->pos++] : 0;
}

static void take_key(struct prog *g, uint8_t key[8], size_t *len)
{
    uint8_t b = next(g);
    *len = b & 7;
    uint8_t mask = (b & 0x80) ? 0xff : 0x03; /* mostly a tiny alphabet: keys collide */
    for (size_t i = 0; i < *len; i++) {
        key[i] = next(g) & mask;
    }
}

static void take_val(struct prog *g, uint8_t val[256], size_t *len)
{
    *len = next(g);
    uint8_t fill = next(g);
    for (size_t i = 0; i < *len; i++) {
        val[i] = (uint8_t)(fill + i);
    }
}

static struct kv *disk; /* the persistent store, open across inputs */
static char disk_path[600];

static void fail(const char *what, size_t step)
{
    fprintf(stderr, "kv %s differs from mem at op %zu: %s\n", kv_backend_name(), step, what);
    abort();
}

static void open_disk(void)
{
    struct kv_options o;
    kv_options_init(&o);
    o.create_if_missing = 1;
    o.cache_bytes = 1u << 20;
    if (kv_open(&disk, kv_default_ops(), disk_path, &o) != 0) {
        fprintf(stderr, "cannot open %s: %s\n", disk_path, kv_last_error(NULL));
        exit(1);
    }
}

/* Empties the persistent store (one batch of deletes over a scan). */
static void wipe_disk(void)
{
    struct kv_iter *it;
    struct kv_batch *b = kv_batch_new();
    if (kv_iter_new(disk, &it) != 0 || kv_iter_seek_first(it) != 0) {
        fail("wipe", 0);
    }
    for (; kv_iter_valid(it); kv_iter_next(it)) {
        size_t kl;
        const uint8_t *k = kv_iter_key(it, &kl);
        kv_batch_delete(b, k, kl);
    }
    kv_iter_free(it);
    if (kv_batch_count(b) && kv_write(disk, b, 0) != 0) {
        fail("wipe write", 0);
    }
    kv_batch_free(b);
}

/* Steps both iterators up to max times (0: to the end), comparing. */
static void compare_iters(struct kv_iter *a, struct kv_iter *m, size_t max, size_t step)
{
    for (size_t i = 0; max == 0 || i < max; i++) {
        int va = kv_iter_valid(a), vm = kv_iter_valid(m);
        if (va != vm) {
            fail("iterator validity", step);
        }
        if (!va) {
            return;
        }
        size_t ka, km, la, lm;
        const uint8_t *pka = kv_iter_key(a, &ka), *pkm = kv_iter_key(m, &km);
        const uint8_t *pva = kv_iter_value(a, &la), *pvm = kv_iter_value(m, &lm);
        if (ka != km || (ka && memcmp(pka, pkm, ka) != 0)) {
            fail("iterator key", step);
        }
        if (la != lm || (la && memcmp(pva, pvm, la) != 0)) {
            fail("iterator value", step);
        }
        if (kv_iter_next(a) != 0 || kv_iter_next(m) != 0) {
            fail("iterator next", step);
        }
    }
}

static void both_write(struct kv *mem, struct kv_batch *b, size_t step)
{
    if (kv_write(disk, b, 0) != kv_write(mem, b, 0)) {
        fail("write", step);
    }
}

static void add_op(struct prog *g, struct kv_batch *b)
{
    uint8_t key[8], val[256];
    size_t kl, vl;
    int del = next(g) & 1;
    take_key(g, key, &kl);
    if (del) {
        kv_batch_delete(b, key, kl);
    } else {
        take_val(g, val, &vl);
        kv_batch_put(b, key, kl, val, vl);
    }
}

static void iter_from(struct kv *mem, struct prog *g, size_t step, int whole)
{
    struct kv_iter *a = NULL, *m = NULL;
    if (kv_iter_new(disk, &a) != 0 || kv_iter_new(mem, &m) != 0) {
        fail("iterator", step);
    }
    uint8_t key[8];
    size_t kl;
    if (whole) {
        if (kv_iter_seek_first(a) != 0 || kv_iter_seek_first(m) != 0) {
            fail("seek first", step);
        }
    } else {
        take_key(g, key, &kl);
        if (kv_iter_seek(a, key, kl) != 0 || kv_iter_seek(m, key, kl) != 0) {
            fail("seek", step);
        }
    }
    compare_iters(a, m, whole ? 0 : 1 + next(g) % 16, step);
    kv_iter_free(a);
    kv_iter_free(m);
}

/* An iterator made before a write sees the store as it was. */
static void snapshot(struct kv *mem, struct prog *g, struct kv_batch *b, size_t step)
{
    struct kv_iter *a = NULL, *m = NULL;
    if (kv_iter_new(disk, &a) != 0 || kv_iter_new(mem, &m) != 0) {
        fail("iterator", step);
    }
    kv_batch_clear(b);
    add_op(g, b);
    add_op(g, b);
    both_write(mem, b, step);
    if (kv_iter_seek_first(a) != 0 || kv_iter_seek_first(m) != 0) {
        fail("seek first", step);
    }
    compare_iters(a, m, 0, step);
    kv_iter_free(a);
    kv_iter_free(m);
}

static void run(struct kv *mem, struct prog *g, int may_reopen)
{
    struct kv_batch *b = kv_batch_new();
    struct buf va, vm;
    buf_init(&va);
    buf_init(&vm);
    for (size_t step = 0; g->pos < g->n && step < 256; step++) {
        uint8_t op = next(g) % 8;
        uint8_t key[8];
        size_t kl;
        kv_batch_clear(b);
        switch (op) {
        case 0:
        case 1:
            g->pos--; /* add_op reads the kind from the same byte */
            add_op(g, b);
            both_write(mem, b, step);
            break;
        case 2: {
            size_t k = next(g) % 17;
            for (size_t i = 0; i < k; i++) {
                add_op(g, b);
            }
            both_write(mem, b, step);
            break;
        }
        case 3: {
            take_key(g, key, &kl);
            int ra = kv_get(disk, &va, key, kl), rm = kv_get(mem, &vm, key, kl);
            if (ra != rm || va.len != vm.len || (va.len && memcmp(va.data, vm.data, va.len))) {
                fail("get", step);
            }
            break;
        }
        case 4:
        case 5:
            iter_from(mem, g, step, op == 5);
            break;
        case 6:
            snapshot(mem, g, b, step);
            break;
        default:
            if (may_reopen) {
                if (kv_close(disk) != 0) {
                    fail("close", step);
                }
                open_disk();
                may_reopen = 0;
            }
        }
    }
    buf_clear(&va);
    buf_clear(&vm);
    kv_batch_free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static unsigned count;
    fuzz_quiet_log();
    if (!disk) {
        snprintf(disk_path, sizeof(disk_path), "%s/store", fuzz_tmpdir());
        open_disk();
    }
    wipe_disk();
    struct kv *mem;
    if (kv_open(&mem, &kv_mem_ops, NULL, NULL) != 0) {
        abort();
    }
    struct prog g = {data, size, 0};
    run(mem, &g, (count++ % 16) == 0);
    iter_from(mem, &g, (size_t)-1, 1); /* the end states agree */
    if (kv_mem_check(mem) != 0) {
        fprintf(stderr, "mem B-tree invariants: %s\n", kv_last_error(mem));
        abort();
    }
    kv_close(mem);
    return 0;
}

#ifndef FUZZ_LIBFUZZER
#include "replay.h"

static size_t builtin_inputs(void)
{
    size_t count = 0;
    uint64_t s = 0x9e3779b97f4a7c15u;
    uint8_t prog[512];
    for (int i = 0; i < 200; i++) {
        size_t n = 16 + i * 2;
        for (size_t k = 0; k < n; k++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            prog[k] = (uint8_t)s;
        }
        LLVMFuzzerTestOneInput(prog, n);
        count++;
    }
    return count;
}

int main(int argc, char **argv)
{
    int rc = fuzz_replay_main(argc, argv, builtin_inputs, NULL);
    if (disk) {
        kv_close(disk);
    }
    return rc;
}
#endif
