/* Fuzz target: a damaged store of the configured persistent backend, opened and read. A
 * store of a few hundred records (small and large values, some deleted, several batches) is
 * written once per process; each input is a list of patches, 5 bytes each: a 4-byte
 * little-endian offset into the store's files laid end to end (sorted by name; taken modulo
 * their total size) and a byte XORed there. The damaged copy is opened (with paranoid
 * checks when the first byte is odd, and always on LevelDB, as the node opens every store:
 * without them LevelDB reads a table's index block unverified, and Debian's build fails an
 * assertion on a damaged one, dbformat.h:96, found by this target) and read whole by an iterator, then every written key
 * is looked up, on LevelDB, RocksDB and Berkeley DB. On LMDB the iterator is its page reader
 * (src/kv/lmdb_pages.c, which checks every page and record it walks) and the lookups are
 * left out: LMDB's own get trusts branch pages and may stop the process on an assertion, as
 * lmdb_pages.c documents. Nothing may crash, hang, leak or read out of bounds; damage that is
 * seen is an error (RC_BACKEND and a message), never wrong bytes: every value read back must
 * be the one written for its key, or the store must have failed the read. A deleted key may
 * come back on RocksDB, Berkeley DB and LMDB (with the value it was written with), an
 * earlier state rather than wrong bytes: RocksDB's and BDB's stores keep the last batches in
 * their write-ahead logs after a clean close, and their recovery takes a damaged log record
 * for the log's end (a torn write), dropping the batches from there (RocksDB's point-in-time
 * recovery, BDB's DB_RECOVER); LMDB keeps two meta pages and opens the one with the higher
 * transaction number, so a damaged one can open the transaction before the last (LMDB 0.9
 * has no page checksums: see lmdb_pages.c). LevelDB's close writes its log out as a table,
 * and with paranoid checks it refuses a damaged log record.
 *
 * libFuzzer (clang -fsanitize=fuzzer) or standalone: the replayer (the default) runs files
 * and directories given on the command line, or, with none, a fixed number of damage
 * patterns made by a seeded generator.
 */
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kv/kv.h"
#include "util/buf.h"
#include "util/file.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define N_KEYS 300
#define MAX_FILES 64

/* The store as written: its files' names and bytes. */
static char *names[MAX_FILES];
static struct buf files[MAX_FILES];
static size_t n_files, total;
static uint8_t deleted[N_KEYS];

static void key_of(unsigned i, uint8_t k[6])
{
    memcpy(k, "key", 3);
    k[3] = (uint8_t)(i >> 8), k[4] = (uint8_t)i, k[5] = 'k';
}

/* The value of key i: its length varies (some take overflow pages on LMDB) and it names i. */
static size_t value_of(unsigned i, uint8_t *v)
{
    size_t n = (i % 17 == 0) ? 5000 + i : 10 + (i % 50);
    for (size_t j = 0; j < n; j++) {
        v[j] = (uint8_t)(i * 31 + j);
    }
    return n;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void make_store(void)
{
    char dir[600];
    snprintf(dir, sizeof(dir), "%s/orig", fuzz_tmpdir());
    struct kv_options o;
    kv_options_init(&o);
    o.create_if_missing = 1;
    struct kv *kv;
    if (kv_open(&kv, kv_default_ops(), dir, &o) != 0) {
        fprintf(stderr, "cannot make the store: %s\n", kv_last_error(NULL));
        exit(1);
    }
    static uint8_t v[6000];
    struct kv_batch *b = kv_batch_new();
    for (unsigned i = 0; i < N_KEYS; i++) {
        uint8_t k[6];
        key_of(i, k);
        kv_batch_put(b, k, 6, v, value_of(i, v));
        if (i % 50 == 49) {
            kv_write(kv, b, 1);
            kv_batch_clear(b);
        }
    }
    for (unsigned i = 0; i < N_KEYS; i += 7) {
        uint8_t k[6];
        key_of(i, k);
        kv_batch_delete(b, k, 6);
        deleted[i] = 1;
    }
    kv_write(kv, b, 1);
    kv_batch_free(b);
    kv_close(kv);
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) && n_files < MAX_FILES) {
        char path[1200];
        struct stat sb;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if (e->d_name[0] != '.' && stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
            names[n_files++] = strdup(e->d_name);
        }
    }
    if (d) {
        closedir(d);
    }
    qsort(names, n_files, sizeof(names[0]), cmp_str);
    for (size_t i = 0; i < n_files; i++) {
        char path[1200], err[256];
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        buf_init(&files[i]);
        if (file_read_all(&files[i], path, err, sizeof(err)) != 0) {
            fprintf(stderr, "%s\n", err);
            exit(1);
        }
        total += files[i].len;
    }
}

/* Writes the damaged copy into <tmp>/work (a new directory each time). */
static void write_damaged(char *dir, size_t dir_len, const uint8_t *p, size_t n)
{
    snprintf(dir, dir_len, "%s/work", fuzz_tmpdir());
    char cmd[1300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir '%s'", dir, dir);
    if (system(cmd) != 0) {
        exit(1);
    }
    struct buf copy[MAX_FILES];
    for (size_t i = 0; i < n_files; i++) {
        buf_init(&copy[i]);
        buf_append(&copy[i], files[i].data, files[i].len);
    }
    for (size_t k = 0; k + 5 <= n && total; k += 5) {
        size_t off = (size_t)(p[k] | p[k + 1] << 8 | p[k + 2] << 16 | (uint32_t)p[k + 3] << 24) % total;
        for (size_t i = 0; i < n_files; i++) {
            if (off < copy[i].len) {
                copy[i].data[off] ^= p[k + 4];
                break;
            }
            off -= copy[i].len;
        }
    }
    for (size_t i = 0; i < n_files; i++) {
        char path[1200];
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        FILE *f = fopen(path, "wb");
        if (!f || (copy[i].len && fwrite(copy[i].data, 1, copy[i].len, f) != copy[i].len)) {
            exit(1);
        }
        fclose(f);
        buf_clear(&copy[i]);
    }
}

/* A value read back for key k (6 bytes) must be the one written, and k one that is there. */
static void check_value(const uint8_t *k, size_t kl, const uint8_t *v, size_t vl)
{
    static uint8_t want[6000];
    if (kl != 6 || memcmp(k, "key", 3) != 0 || k[5] != 'k') {
        fprintf(stderr, "a key that was never written came back\n");
        abort();
    }
    unsigned i = (unsigned)k[3] << 8 | k[4];
    static int taken_back_ok = -1; /* an earlier state: see the top of the file */
    if (taken_back_ok < 0) {
        taken_back_ok = strcmp(kv_backend_name(), "leveldb") != 0;
    }
    if (i >= N_KEYS || (deleted[i] && !taken_back_ok) || value_of(i, want) != vl ||
        memcmp(want, v, vl) != 0) {
        fprintf(stderr, "key %u came back with the wrong value (%zu bytes)\n", i, vl);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_quiet_log();
    if (!n_files) {
        make_store();
    }
    char dir[600];
    write_damaged(dir, sizeof(dir), size ? data + 1 : data, size ? size - 1 : 0);
    struct kv_options o;
    kv_options_init(&o);
    o.paranoid_checks = (size && (data[0] & 1)) || strcmp(kv_backend_name(), "leveldb") == 0;
    struct kv *kv;
    if (kv_open(&kv, kv_default_ops(), dir, &o) != 0) {
        if (!kv_last_error(NULL)[0]) {
            abort();
        }
        return 0;
    }
    struct kv_iter *it;
    if (kv_iter_new(kv, &it) == 0) {
        if (kv_iter_seek_first(it) == 0) {
            for (size_t steps = 0; kv_iter_valid(it) && steps <= N_KEYS; steps++) {
                size_t kl, vl;
                const uint8_t *k = kv_iter_key(it, &kl);
                const uint8_t *v = kv_iter_value(it, &vl);
                check_value(k, kl, v, vl);
                if (kv_iter_next(it) != 0) {
                    break;
                }
            }
        }
        kv_iter_free(it);
    }
    if (strcmp(kv_backend_name(), "lmdb") != 0) {
        struct buf v;
        buf_init(&v);
        for (unsigned i = 0; i < N_KEYS; i++) {
            uint8_t k[6];
            key_of(i, k);
            if (kv_get(kv, &v, k, 6) == 0) {
                check_value(k, 6, v.data, v.len);
            }
        }
        buf_clear(&v);
    }
    kv_close(kv);
    return 0;
}

#ifndef FUZZ_LIBFUZZER
#include "replay.h"

static size_t builtin_inputs(void)
{
    size_t count = 0;
    uint64_t s = 0x2545f4914f6cdd1du;
    uint8_t in[1 + 5 * 8];
    for (int i = 0; i < 60; i++) {
        size_t n = 1 + 5 * (size_t)(1 + i % 8);
        for (size_t k = 0; k < n; k++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            in[k] = (uint8_t)s;
        }
        LLVMFuzzerTestOneInput(in, n);
        count++;
    }
    return count;
}

int main(int argc, char **argv)
{
    return fuzz_replay_main(argc, argv, builtin_inputs, NULL);
}
#endif
