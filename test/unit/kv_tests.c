/* The kv conformance suite: every case runs against the in-memory B-tree (kv_mem_ops) and
 * against the configured backend (kv_default_ops()), so that each build covers mem plus
 * leveldb or bdb. Each TAP line names the backend. The crash test (a child process killed
 * with SIGKILL at random moments) runs against the configured backend.
 *
 * Environment: KV_TEST_SEED=<n> replays a run (the seed is printed); TMPDIR picks where the
 * stores are made (removed at the end).
 */
#include "test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kv/kv.h"
#include "kv_crash.h"
#include "util/buf.h"
#include "util/check.h"
#include "util/rc.h"

/* LeakSanitizer: Berkeley DB cannot free a private environment that panicked (the damaged
 * store in test_corruption_is_error): its close returns DB_RUNRECOVERY and leaves the region
 * memory behind. The node stops on such an error anyway; the leak is BDB's, so it is
 * suppressed for libdb only. (Called by the sanitizer runtime when it is linked in.) */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libdb-5.3.so\n";
}

static const struct kv_ops *cur_ops;
static const char *cur_name;
static char base_dir[512];
static char child_path[1024];
static uint64_t rng_state;

/* ---- helpers ------------------------------------------------------------------------ */

static uint64_t rnd(void)
{
    /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

static void rnd_bytes(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        p[i] = (uint8_t)(rnd() >> 56);
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The path of store name for the current backend (mem uses it as the store's name). */
static void store_path(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s-%s", base_dir, cur_name, name);
}

/* Opens a new, empty store called name (destroying what was there). */
static struct kv *open_fresh(const char *name, const struct kv_options *opt)
{
    char path[700];
    struct kv *kv = NULL;
    int rc;
    store_path(path, sizeof(path), name);
    rc = kv_destroy(cur_ops, path);
    CHECK_EQ_INT(rc, 0);
    rc = kv_open(&kv, cur_ops, path, opt);
    if (rc != 0) {
        printf("# open %s: %s\n", path, kv_last_error(NULL));
    }
    CHECK_EQ_INT(rc, 0);
    return kv;
}

static struct kv *reopen(const char *name, const struct kv_options *opt)
{
    char path[700];
    struct kv *kv = NULL;
    int rc;
    store_path(path, sizeof(path), name);
    rc = kv_open(&kv, cur_ops, path, opt);
    if (rc != 0) {
        printf("# reopen %s: %s\n", path, kv_last_error(NULL));
    }
    CHECK_EQ_INT(rc, 0);
    return kv;
}

static void close_ok(struct kv *kv)
{
    int rc = kv_close(kv);
    if (rc != 0) {
        printf("# close: %s\n", kv_last_error(kv));
    }
    CHECK_EQ_INT(rc, 0);
}

static void put1(struct kv *kv, const void *k, size_t kl, const void *v, size_t vl, int sync)
{
    struct kv_batch *b = kv_batch_new();
    kv_batch_put(b, k, kl, v, vl);
    CHECK_EQ_INT(kv_write(kv, b, sync), 0);
    kv_batch_free(b);
}

static void del1(struct kv *kv, const void *k, size_t kl)
{
    struct kv_batch *b = kv_batch_new();
    kv_batch_delete(b, k, kl);
    CHECK_EQ_INT(kv_write(kv, b, 0), 0);
    kv_batch_free(b);
}

/* Checks that key holds exactly val. */
static void expect_val(struct kv *kv, const void *k, size_t kl, const void *v, size_t vl)
{
    struct buf got;
    int rc;
    buf_init(&got);
    rc = kv_get(kv, &got, k, kl);
    CHECK_EQ_INT(rc, 0);
    if (rc == 0) {
        CHECK_EQ_INT(got.len, vl);
        if (got.len == vl && vl > 0) {
            CHECK_EQ_MEM(got.data, v, vl);
        }
    }
    buf_clear(&got);
}

static void expect_missing(struct kv *kv, const void *k, size_t kl)
{
    struct buf got;
    buf_init(&got);
    buf_append(&got, "junk", 4);
    CHECK_EQ_INT(kv_get(kv, &got, k, kl), RC_NOT_FOUND);
    CHECK_EQ_INT(got.len, 0);
    CHECK_EQ_INT(kv_get(kv, NULL, k, kl), RC_NOT_FOUND);
    buf_clear(&got);
}

/* Counts the entries of a fresh iterator. */
static size_t count_entries(struct kv *kv)
{
    struct kv_iter *it = NULL;
    size_t n = 0;
    CHECK_EQ_INT(kv_iter_new(kv, &it), 0);
    if (!it) {
        return 0;
    }
    CHECK_EQ_INT(kv_iter_seek_first(it), 0);
    while (kv_iter_valid(it)) {
        n++;
        CHECK_EQ_INT(kv_iter_next(it), 0);
    }
    kv_iter_free(it);
    return n;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static void rm_rf(const char *path)
{
    nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- cases -------------------------------------------------------------------------- */

static void test_put_get_delete(void)
{
    struct kv *kv = open_fresh("basic", NULL);
    struct buf got;
    buf_init(&got);
    expect_missing(kv, "k1", 2);
    put1(kv, "k1", 2, "value one", 9, 0);
    put1(kv, "k2", 2, "value two", 9, 1);
    expect_val(kv, "k1", 2, "value one", 9);
    expect_val(kv, "k2", 2, "value two", 9);
    CHECK_EQ_INT(kv_get(kv, NULL, "k1", 2), 0);
    expect_missing(kv, "k", 1);
    expect_missing(kv, "k10", 3);
    del1(kv, "k1", 2);
    expect_missing(kv, "k1", 2);
    expect_val(kv, "k2", 2, "value two", 9);
    /* Deleting an absent key is not an error. */
    del1(kv, "nothing", 7);
    CHECK_EQ_INT(count_entries(kv), 1);
    buf_clear(&got);
    close_ok(kv);
}

static void test_not_found_vs_error(void)
{
    char path[700];
    struct kv_options opt;
    struct kv *kv = NULL;
    int rc;
    /* A miss is RC_NOT_FOUND and leaves no error message behind. */
    kv = open_fresh("notfound", NULL);
    CHECK_EQ_INT(kv_get(kv, NULL, "x", 1), RC_NOT_FOUND);
    close_ok(kv);
    /* Opening a store that does not exist without create_if_missing: RC_NOT_FOUND. */
    store_path(path, sizeof(path), "does-not-exist");
    CHECK_EQ_INT(kv_destroy(cur_ops, path), 0);
    kv_options_init(&opt);
    opt.create_if_missing = 0;
    rc = kv_open(&kv, cur_ops, path, &opt);
    CHECK_EQ_INT(rc, RC_NOT_FOUND);
    CHECK(kv == NULL);
    CHECK(strstr(kv_last_error(NULL), "does-not-exist") != NULL);
    /* The same store opened twice at once is refused, with a message. */
    kv = open_fresh("twice", NULL);
    {
        struct kv *kv2 = NULL;
        store_path(path, sizeof(path), "twice");
        rc = kv_open(&kv2, cur_ops, path, NULL);
        CHECK_EQ_INT(rc, RC_BACKEND);
        CHECK(kv2 == NULL);
        CHECK(strlen(kv_last_error(NULL)) > 0);
        printf("# second open refused: %s\n", kv_last_error(NULL));
        kv_close(kv2);
    }
    close_ok(kv);
}

/* Overwrites the files of a closed persistent store with garbage: gets must then fail with
 * RC_BACKEND (or the open must fail), never answer "not found" for a key that was written. */
static void test_corruption_is_error(void)
{
    char path[700];
    struct kv *kv = open_fresh("corrupt", NULL);
    struct kv_batch *b = kv_batch_new();
    uint8_t key[32], val[100];
    int errors = 0, misses = 0, hits = 0, rc;
    DIR *d;
    struct dirent *e;

    for (uint32_t i = 0; i < 20000; i++) {
        memset(key, 0, sizeof(key));
        kv_crash_be32(key, i);
        memset(val, (int)(i & 0xff), sizeof(val));
        kv_batch_put(b, key, sizeof(key), val, sizeof(val));
    }
    CHECK_EQ_INT(kv_write(kv, b, 1), 0);
    kv_batch_free(b);
    close_ok(kv);
    /* leveldb moves its log into a table file at the next open: do that before damage. */
    kv = reopen("corrupt", NULL);
    close_ok(kv);

    store_path(path, sizeof(path), "corrupt");
    d = opendir(path);
    CHECK(d != NULL);
    while (d && (e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        size_t nl = strlen(n);
        /* Data files only: leveldb and rocksdb tables, the bdb database past its first two
         * pages, the lmdb database past its two meta pages (4096 bytes each). */
        int is_table =
            nl > 4 && (strcmp(n + nl - 4, ".ldb") == 0 || strcmp(n + nl - 4, ".sst") == 0);
        int is_bdb = strcmp(n, "data.db") == 0;
        int is_lmdb = strcmp(n, "data.mdb") == 0;
        char fp[1024];
        struct stat st;
        int fd;
        if (!is_table && !is_bdb && !is_lmdb) {
            continue;
        }
        snprintf(fp, sizeof(fp), "%s/%s", path, n);
        fd = open(fp, O_RDWR);
        CHECK(fd >= 0);
        if (fd < 0 || fstat(fd, &st) != 0) {
            continue;
        }
        {
            off_t start = is_bdb ? 2 * 8192 : is_lmdb ? 2 * 4096 : 0;
            static uint8_t junk[4096];
            memset(junk, 0xa5, sizeof(junk));
            for (off_t off = start; off < st.st_size; off += (off_t)sizeof(junk)) {
                size_t n2 = (size_t)(st.st_size - off) < sizeof(junk) ? (size_t)(st.st_size - off)
                                                                      : sizeof(junk);
                CHECK(pwrite(fd, junk, n2, off) == (ssize_t)n2);
            }
        }
        close(fd);
    }
    if (d) {
        closedir(d);
    }
    kv = NULL;
    rc = kv_open(&kv, cur_ops, path, NULL);
    if (rc != 0) {
        /* Refusing to open a damaged store is an acceptable answer. */
        CHECK_EQ_INT(rc, RC_BACKEND);
        printf("# damaged store refused at open: %s\n", kv_last_error(NULL));
        return;
    }
    for (uint32_t i = 0; i < 20000; i += 97) {
        memset(key, 0, sizeof(key));
        kv_crash_be32(key, i);
        rc = kv_get(kv, NULL, key, sizeof(key));
        if (rc == RC_BACKEND) {
            if (errors == 0) {
                printf("# get on damaged store: %s\n", kv_last_error(kv));
            }
            errors++;
        } else if (rc == RC_NOT_FOUND) {
            misses++;
        } else if (rc == 0) {
            hits++;
        }
    }
    printf("# damaged store: %d errors, %d misses, %d hits\n", errors, misses, hits);
    CHECK(errors > 0);
    CHECK_EQ_INT(misses, 0);
    kv_close(kv);
}

/* A LevelDB/RocksDB table's varint64 at *pos of p (len bytes); -1 past the end. */
static int bitrot_varint(const uint8_t *p, size_t len, size_t *pos, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; shift <= 63 && *pos < len; shift += 7) {
        uint8_t c = p[(*pos)++];
        *v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            return 0;
        }
    }
    return -1;
}

/* Where to flip one byte in a data file (size bytes): for a table, inside its index block
 * (index=1, from the footer) or its first data block; for LMDB and BDB (index ignored), near
 * the end of a page in the middle of the file, where records are kept. -1 if not known. */
static off_t bitrot_spot(int fd, off_t size, int is_table, int is_sst, int index)
{
    if (!is_table) {
        /* The end of a 4 KiB page in the middle: LMDB and BDB pack records there. */
        return (size / 2 & ~(off_t)4095) + 4090;
    }
    /* LevelDB's footer: 48 bytes; RocksDB's (format_version >= 1): 53, a checksum type
     * byte before the same two handles. */
    uint8_t footer[53];
    size_t flen = is_sst ? 53 : 48, pos = is_sst ? 1 : 0;
    uint64_t v[4];
    if (size < (off_t)flen || pread(fd, footer, flen, size - (off_t)flen) != (ssize_t)flen) {
        return -1;
    }
    for (int i = 0; i < 4; i++) {
        if (bitrot_varint(footer, flen - 8, &pos, &v[i])) {
            return -1;
        }
    }
    return index ? (off_t)(v[2] + v[3] / 2) : 10;
}

/* One flipped byte in a closed persistent store's data file (bit rot, not garbage): every
 * get answers the value written or RC_BACKEND, never a wrong value. LevelDB and RocksDB
 * must find it (checksums verified on every read, paranoid checks on table open) and name
 * the damaged file; LMDB (a checksum per value) and BDB (page checksums) are counted and
 * reported, since a flip in free space or in a key's bytes may go unseen there. */
static void bitrot_case(int index)
{
    char path[700], name[32], damaged[300] = "";
    snprintf(name, sizeof(name), "bitrot%d", index);
    struct kv *kv = open_fresh(name, NULL);
    struct kv_batch *b = kv_batch_new();
    uint8_t key[32], val[100];
    int errors = 0, misses = 0, wrong = 0, hits = 0, named = 0, tables = 0;
    for (uint32_t i = 0; i < 20000; i++) {
        memset(key, 0, sizeof(key));
        kv_crash_be32(key, i);
        memset(val, (int)(i & 0xff), sizeof(val));
        kv_batch_put(b, key, sizeof(key), val, sizeof(val));
    }
    CHECK_EQ_INT(kv_write(kv, b, 1), 0);
    kv_batch_free(b);
    close_ok(kv);
    kv = reopen(name, NULL); /* LevelDB writes its log out as a table at an open */
    close_ok(kv);
    store_path(path, sizeof(path), name);
    DIR *d = opendir(path);
    struct dirent *e;
    CHECK(d != NULL);
    while (d && !damaged[0] && (e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        size_t nl = strlen(n);
        int is_table = nl > 4 && (!strcmp(n + nl - 4, ".ldb") || !strcmp(n + nl - 4, ".sst"));
        if (!is_table && strcmp(n, "data.db") && strcmp(n, "data.mdb")) {
            continue;
        }
        tables += is_table;
        char fp[1024];
        struct stat st;
        snprintf(fp, sizeof(fp), "%s/%s", path, n);
        int fd = open(fp, O_RDWR);
        CHECK(fd >= 0);
        if (fd >= 0 && fstat(fd, &st) == 0) {
            off_t at = bitrot_spot(fd, st.st_size, is_table, !strcmp(n + nl - 4, ".sst"), index);
            uint8_t c;
            if (at >= 0 && at < st.st_size && pread(fd, &c, 1, at) == 1) {
                c ^= 0x5a;
                CHECK(pwrite(fd, &c, 1, at) == 1);
                snprintf(damaged, sizeof(damaged), "%s", n);
                printf("# flipped byte %lld of %s\n", (long long)at, n);
            }
        }
        if (fd >= 0) {
            close(fd);
        }
    }
    if (d) {
        closedir(d);
    }
    CHECK(damaged[0] != 0);
    kv = NULL;
    int rc = kv_open(&kv, cur_ops, path, NULL);
    if (rc != 0) {
        CHECK_EQ_INT(rc, RC_BACKEND);
        printf("# damaged store refused at open: %s\n", kv_last_error(NULL));
        CHECK(strstr(kv_last_error(NULL), damaged) != NULL || !tables);
        return;
    }
    struct buf got;
    buf_init(&got);
    for (uint32_t i = 0; i < 20000; i++) {
        memset(key, 0, sizeof(key));
        kv_crash_be32(key, i);
        rc = kv_get(kv, &got, key, sizeof(key));
        if (rc == RC_BACKEND) {
            if (errors++ == 0) {
                printf("# get on a damaged store: %s\n", kv_last_error(kv));
            }
            named += strstr(kv_last_error(kv), damaged) != NULL;
        } else if (rc == RC_NOT_FOUND) {
            misses++;
        } else if (rc == 0) {
            memset(val, (int)(i & 0xff), sizeof(val));
            if (got.len != sizeof(val) || memcmp(got.data, val, sizeof(val)) != 0) {
                wrong++;
            } else {
                hits++;
            }
        }
    }
    buf_clear(&got);
    printf("# one flipped byte (%s block): %d errors (%d naming %s), %d misses, %d wrong, %d "
           "hits\n", index ? "index" : "data", errors, named, damaged, misses, wrong, hits);
    CHECK_EQ_INT(wrong, 0);
    if (tables) {
        CHECK(errors > 0);
        CHECK_EQ_INT(misses, 0);
        CHECK_EQ_INT(named, errors);
    }
    kv_close(kv);
}

static void test_bitrot_is_error(void)
{
    bitrot_case(1);
    bitrot_case(0);
}

static void test_overwrite(void)
{
    struct kv *kv = open_fresh("overwrite", NULL);
    struct kv_batch *b = kv_batch_new();
    put1(kv, "k", 1, "first", 5, 0);
    put1(kv, "k", 1, "second value", 12, 0);
    expect_val(kv, "k", 1, "second value", 12);
    /* Within one batch, the last operation on a key wins. */
    kv_batch_put(b, "k", 1, "x", 1);
    kv_batch_put(b, "k", 1, "yy", 2);
    kv_batch_put(b, "gone", 4, "v", 1);
    kv_batch_delete(b, "gone", 4);
    kv_batch_delete(b, "back", 4);
    kv_batch_put(b, "back", 4, "again", 5);
    CHECK_EQ_INT(kv_batch_count(b), 6);
    CHECK_EQ_INT(kv_batch_bytes(b), 1 + 1 + 1 + 2 + 4 + 1 + 4 + 4 + 4 + 5);
    CHECK_EQ_INT(kv_write(kv, b, 0), 0);
    expect_val(kv, "k", 1, "yy", 2);
    expect_missing(kv, "gone", 4);
    expect_val(kv, "back", 4, "again", 5);
    /* A shorter value replaces a longer one completely. */
    put1(kv, "back", 4, "a", 1, 0);
    expect_val(kv, "back", 4, "a", 1);
    CHECK_EQ_INT(count_entries(kv), 2);
    kv_batch_clear(b);
    CHECK_EQ_INT(kv_batch_count(b), 0);
    CHECK_EQ_INT(kv_batch_bytes(b), 0);
    /* An empty batch is fine. */
    CHECK_EQ_INT(kv_write(kv, b, 1), 0);
    kv_batch_free(b);
    close_ok(kv);
}

static void test_empty_values_and_keys(void)
{
    struct kv *kv = open_fresh("empty", NULL);
    struct buf got;
    buf_init(&got);
    put1(kv, "e", 1, "", 0, 0);
    buf_append(&got, "junk", 4);
    CHECK_EQ_INT(kv_get(kv, &got, "e", 1), 0);
    CHECK_EQ_INT(got.len, 0);
    CHECK_EQ_INT(kv_get(kv, NULL, "e", 1), 0);
    /* The empty key is a key like any other, and sorts first. */
    put1(kv, "", 0, "empty key", 9, 0);
    expect_val(kv, "", 0, "empty key", 9);
    {
        struct kv_iter *it = NULL;
        const uint8_t *k;
        size_t kl = 99, vl = 99;
        CHECK_EQ_INT(kv_iter_new(kv, &it), 0);
        CHECK_EQ_INT(kv_iter_seek_first(it), 0);
        CHECK(kv_iter_valid(it));
        k = kv_iter_key(it, &kl);
        CHECK(k != NULL);
        CHECK_EQ_INT(kl, 0);
        kv_iter_value(it, &vl);
        CHECK_EQ_INT(vl, 9);
        CHECK_EQ_INT(kv_iter_next(it), 0);
        CHECK(kv_iter_valid(it));
        kv_iter_key(it, &kl);
        CHECK_EQ_INT(kl, 1);
        kv_iter_value(it, &vl);
        CHECK_EQ_INT(vl, 0);
        CHECK_EQ_INT(kv_iter_next(it), 0);
        CHECK(!kv_iter_valid(it));
        kv_iter_free(it);
    }
    del1(kv, "", 0);
    expect_missing(kv, "", 0);
    expect_val(kv, "e", 1, "", 0);
    buf_clear(&got);
    close_ok(kv);
}

static void test_large_values(void)
{
    const size_t mib = (size_t)1 << 20;
    struct kv *kv = open_fresh("large", NULL);
    uint8_t *v[3];
    struct kv_batch *b = kv_batch_new();
    for (int i = 0; i < 3; i++) {
        v[i] = malloc(mib + (size_t)i);
        rnd_bytes(v[i], mib + (size_t)i);
    }
    put1(kv, "big0", 4, v[0], mib, 1);
    kv_batch_put(b, "big1", 4, v[1], mib + 1);
    kv_batch_put(b, "big2", 4, v[2], mib + 2);
    kv_batch_put(b, "small", 5, "s", 1);
    CHECK_EQ_INT(kv_write(kv, b, 0), 0);
    for (int round = 0; round < 2; round++) {
        char key[8];
        for (int i = 0; i < 3; i++) {
            snprintf(key, sizeof(key), "big%d", i);
            expect_val(kv, key, 4, v[i], mib + (size_t)i);
        }
        expect_val(kv, "small", 5, "s", 1);
        {
            struct kv_iter *it = NULL;
            size_t vl = 0;
            CHECK_EQ_INT(kv_iter_new(kv, &it), 0);
            CHECK_EQ_INT(kv_iter_seek(it, "big1", 4), 0);
            CHECK(kv_iter_valid(it));
            CHECK_EQ_MEM(kv_iter_value(it, &vl), v[1], mib + 1);
            CHECK_EQ_INT(vl, mib + 1);
            kv_iter_free(it);
        }
        close_ok(kv);
        kv = reopen("large", NULL);
    }
    for (int i = 0; i < 3; i++) {
        free(v[i]);
    }
    kv_batch_free(b);
    close_ok(kv);
}

static void test_binary_keys(void)
{
    static const struct {
        const char *k;
        size_t len;
    } keys[] = {
        {"\0", 1},   {"\0\0", 2}, {"\0\0\0", 3}, {"a\0b", 3},
        {"a\0c", 3}, {"a\0", 2},  {"\xff\0", 2}, {"\0\xff", 2},
    };
    struct kv *kv = open_fresh("binary", NULL);
    struct kv_batch *b = kv_batch_new();
    for (size_t i = 0; i < ARRAY_LEN(keys); i++) {
        uint8_t v = (uint8_t)i;
        kv_batch_put(b, keys[i].k, keys[i].len, &v, 1);
    }
    CHECK_EQ_INT(kv_write(kv, b, 0), 0);
    for (size_t i = 0; i < ARRAY_LEN(keys); i++) {
        uint8_t v = (uint8_t)i;
        expect_val(kv, keys[i].k, keys[i].len, &v, 1);
    }
    /* "a" alone, and "a\0" with a different tail, are different keys. */
    expect_missing(kv, "a", 1);
    expect_missing(kv, "a\0d", 3);
    expect_missing(kv, "\0\0\0\0", 4);
    CHECK_EQ_INT(count_entries(kv), ARRAY_LEN(keys));
    /* The longest key allowed, and one byte shorter: both stored, the shorter first. */
    {
        uint8_t longk[KV_MAX_KEY_BYTES];
        struct kv_iter *it = NULL;
        size_t kl = 0;
        memset(longk, 0xfe, sizeof(longk));
        kv_batch_clear(b);
        kv_batch_put(b, longk, sizeof(longk), "L", 1);
        kv_batch_put(b, longk, sizeof(longk) - 1, "l", 1);
        CHECK_EQ_INT(kv_write(kv, b, 0), 0);
        expect_val(kv, longk, sizeof(longk), "L", 1);
        expect_val(kv, longk, sizeof(longk) - 1, "l", 1);
        CHECK_EQ_INT(kv_iter_new(kv, &it), 0);
        CHECK_EQ_INT(kv_iter_seek(it, longk, 1), 0);
        CHECK(kv_iter_valid(it));
        kv_iter_key(it, &kl);
        CHECK_EQ_INT(kl, sizeof(longk) - 1);
        CHECK_EQ_INT(kv_iter_next(it), 0);
        CHECK(kv_iter_valid(it));
        CHECK_EQ_MEM(kv_iter_key(it, &kl), longk, sizeof(longk));
        CHECK_EQ_INT(kl, sizeof(longk));
        kv_iter_free(it);
    }
    kv_batch_free(b);
    close_ok(kv);
}

/* Keys in the exact order every backend must iterate them: unsigned bytes, a prefix before
 * its extensions. */
static const struct {
    const char *k;
    size_t len;
} ordered_keys[] = {
    {"", 0},         {"\x00", 1},   {"\x00\x00", 2}, {"\x00\x01", 2}, {"\x01", 1},
    {"a", 1},        {"a\x00", 2},  {"a\x01", 2},    {"aa", 2},       {"ab", 2},
    {"abc", 3},      {"ab\xff", 3}, {"b", 1},        {"ba", 2},       {"c\x00z", 3},
    {"c\x01", 2},    {"\x7f", 1},   {"\x7f\xff", 2}, {"\x80", 1},     {"\x80\x00", 2},
    {"\xfe\xff", 2}, {"\xff", 1},   {"\xff\x00", 2}, {"\xff\xff", 2}, {"\xff\xff\xff", 3},
};

static void test_iteration_order(void)
{
    struct kv *kv = open_fresh("order", NULL);
    struct kv_batch *b = kv_batch_new();
    size_t n = ARRAY_LEN(ordered_keys);
    size_t perm[ARRAY_LEN(ordered_keys)];
    struct kv_iter *it = NULL;
    size_t i;

    /* Insert in a random order, half in one batch and half in another. */
    for (i = 0; i < n; i++) {
        perm[i] = i;
    }
    for (i = n - 1; i > 0; i--) {
        size_t j = (size_t)(rnd() % (i + 1)), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (i = 0; i < n; i++) {
        uint8_t v = (uint8_t)perm[i];
        kv_batch_put(b, ordered_keys[perm[i]].k, ordered_keys[perm[i]].len, &v, 1);
        if (i == n / 2) {
            CHECK_EQ_INT(kv_write(kv, b, 0), 0);
            kv_batch_clear(b);
        }
    }
    CHECK_EQ_INT(kv_write(kv, b, 0), 0);

    CHECK_EQ_INT(kv_iter_new(kv, &it), 0);
    CHECK(!kv_iter_valid(it)); /* not positioned yet */
    CHECK_EQ_INT(kv_iter_seek_first(it), 0);
    for (i = 0; i < n && kv_iter_valid(it); i++) {
        size_t kl, vl;
        const uint8_t *k = kv_iter_key(it, &kl);
        const uint8_t *v = kv_iter_value(it, &vl);
        CHECK_EQ_INT(kl, ordered_keys[i].len);
        if (kl == ordered_keys[i].len && kl > 0) {
            CHECK_EQ_MEM(k, ordered_keys[i].k, kl);
        }
        CHECK_EQ_INT(vl, 1);
        CHECK_EQ_INT(v[0], i);
        CHECK_EQ_INT(kv_iter_next(it), 0);
    }
    CHECK_EQ_INT(i, n);
    CHECK(!kv_iter_valid(it));

    /* A prefix scan: every key starting with "a", and nothing else. */
    {
        static const char *want[] = {"a", "a\x00", "a\x01", "aa", "ab", "abc", "ab\xff"};
        static const size_t want_len[] = {1, 2, 2, 2, 2, 3, 3};
        size_t got = 0;
        CHECK_EQ_INT(kv_iter_seek(it, "a", 1), 0);
        while (kv_iter_valid(it)) {
            size_t kl;
            const uint8_t *k = kv_iter_key(it, &kl);
            if (kl < 1 || k[0] != 'a') {
                break;
            }
            CHECK(got < ARRAY_LEN(want));
            if (got < ARRAY_LEN(want)) {
                CHECK_EQ_INT(kl, want_len[got]);
                CHECK_EQ_MEM(k, want[got], kl);
            }
            got++;
            CHECK_EQ_INT(kv_iter_next(it), 0);
        }
        CHECK_EQ_INT(got, ARRAY_LEN(want));
    }
    kv_iter_free(it);
    kv_batch_free(b);
    close_ok(kv);
}

static void expect_seek(struct kv_iter *it, const void *k, size_t kl, const void *want,
                        size_t want_len)
{
    CHECK_EQ_INT(kv_iter_seek(it, k, kl), 0);
    if (!want) {
        CHECK(!kv_iter_valid(it));
        return;
    }
    CHECK(kv_iter_valid(it));
    if (kv_iter_valid(it)) {
        size_t gl;
        const uint8_t *g = kv_iter_key(it, &gl);
        CHECK_EQ_INT(gl, want_len);
        if (gl == want_len && gl > 0) {
            CHECK_EQ_MEM(g, want, gl);
        }
    }
}

static void test_seek_absent(void)
{
    struct kv *kv = open_fresh("seek", NULL);
    struct kv_batch *b = kv_batch_new();
    struct kv_iter *it = NULL;
    /* On an empty store every seek is past the end. */
    CHECK_EQ_INT(kv_iter_new(kv, &it), 0);
    expect_seek(it, "", 0, NULL, 0);
    expect_seek(it, "m", 1, NULL, 0);
    CHECK_EQ_INT(kv_iter_seek_first(it), 0);
    CHECK(!kv_iter_valid(it));
    kv_iter_free(it);

    for (int i = 0; i < 1000; i++) {
        char k[16];
        int n = snprintf(k, sizeof(k), "k%05d", i * 10);
        kv_batch_put(b, k, (size_t)n, "v", 1);
    }
    CHECK_EQ_INT(kv_write(kv, b, 0), 0);
    CHECK_EQ_INT(kv_iter_new(kv, &it), 0);
    expect_seek(it, "k00000", 6, "k00000", 6); /* exact */
    expect_seek(it, "k00001", 6, "k00010", 6); /* between two keys */
    expect_seek(it, "k0000", 5, "k00000", 6);  /* a prefix of the first */
    expect_seek(it, "a", 1, "k00000", 6);      /* before everything */
    expect_seek(it, "", 0, "k00000", 6);
    expect_seek(it, "k05555", 6, "k05560", 6);
    expect_seek(it, "k05550\x00", 7, "k05560", 6); /* just after an existing key */
    expect_seek(it, "k09990", 6, "k09990", 6);     /* the last */
    expect_seek(it, "k09991", 6, NULL, 0);         /* after everything */
    expect_seek(it, "l", 1, NULL, 0);
    /* Seeking backwards after reaching the end works. */
    expect_seek(it, "k00500", 6, "k00500", 6);
    CHECK_EQ_INT(kv_iter_next(it), 0);
    CHECK(kv_iter_valid(it));
    {
        size_t kl;
        const uint8_t *k = kv_iter_key(it, &kl);
        CHECK_EQ_INT(kl, 6);
        CHECK_EQ_MEM(k, "k00510", 6);
    }
    kv_iter_free(it);
    kv_batch_free(b);
    close_ok(kv);
}

static void snap_key(char *k, int i)
{
    snprintf(k, 16, "s%04d", i);
}

/* An iterator sees the store as it was when it was created, whatever is written while it is
 * open, and writing while it is open neither blocks nor fails. */
static void test_iter_snapshot(void)
{
    struct kv *kv = open_fresh("snapshot", NULL);
    struct kv_batch *b = kv_batch_new();
    struct kv_iter *it = NULL, *it2 = NULL;
    char k[16];
    int i, seen = 0;

    for (i = 0; i < 2000; i++) {
        snap_key(k, i);
        kv_batch_put(b, k, 5, "old", 3);
    }
    CHECK_EQ_INT(kv_write(kv, b, 0), 0);
    CHECK_EQ_INT(kv_iter_new(kv, &it), 0);
    CHECK_EQ_INT(kv_iter_seek_first(it), 0);
    /* Read a part, then change everything: delete even keys, rewrite odd ones, add new. */
    for (i = 0; i < 500 && kv_iter_valid(it); i++) {
        CHECK_EQ_INT(kv_iter_next(it), 0);
        seen++;
    }
    kv_batch_clear(b);
    for (i = 0; i < 2000; i++) {
        snap_key(k, i);
        if (i % 2 == 0) {
            kv_batch_delete(b, k, 5);
        } else {
            kv_batch_put(b, k, 5, "new!", 4);
        }
        snap_key(k, 5000 + i);
        kv_batch_put(b, k, 5, "added", 5);
    }
    CHECK_EQ_INT(kv_write(kv, b, 1), 0);
    CHECK_EQ_INT(kv_iter_new(kv, &it2), 0);
    while (kv_iter_valid(it)) {
        size_t kl, vl;
        const uint8_t *key = kv_iter_key(it, &kl);
        const uint8_t *v = kv_iter_value(it, &vl);
        snap_key(k, seen);
        CHECK_EQ_INT(kl, 5);
        CHECK_EQ_MEM(key, k, 5);
        CHECK_EQ_INT(vl, 3);
        CHECK_EQ_MEM(v, "old", 3);
        seen++;
        CHECK_EQ_INT(kv_iter_next(it), 0);
    }
    CHECK_EQ_INT(seen, 2000);
    /* A seek on the old iterator still sees the old state. */
    snap_key(k, 1000);
    expect_seek(it, k, 5, k, 5);
    kv_iter_free(it);
    /* The new iterator sees the new state: 1000 odd keys rewritten and 2000 added. */
    CHECK_EQ_INT(kv_iter_seek_first(it2), 0);
    seen = 0;
    while (kv_iter_valid(it2)) {
        size_t vl;
        const uint8_t *v = kv_iter_value(it2, &vl);
        CHECK(vl == 4 || vl == 5);
        CHECK(vl != 4 || memcmp(v, "new!", 4) == 0);
        seen++;
        CHECK_EQ_INT(kv_iter_next(it2), 0);
    }
    CHECK_EQ_INT(seen, 3000);
    /* Writes with the second iterator still open also go through. */
    put1(kv, "zzz", 3, "last", 4, 0);
    expect_val(kv, "zzz", 3, "last", 4);
    kv_iter_free(it2);
    CHECK_EQ_INT(count_entries(kv), 3001);
    kv_batch_free(b);
    close_ok(kv);
}

/* Batch atomicity as other threads see it: a writer rewrites 300 keys to generation g in each
 * batch; readers' snapshots must always show one generation across all 300 keys. */
struct atomic_ctx {
    struct kv *kv;
    atomic_int stop;
};

struct atomic_reader_state {
    struct atomic_ctx *c;
    int torn;
    int snapshots;
    int errors;
};

#define ATOMIC_KEYS 300

static void *atomic_reader(void *arg)
{
    struct atomic_reader_state *st = arg;
    struct atomic_ctx *c = st->c;
    /* At least one snapshot, however late this thread starts. */
    do {
        struct kv_iter *it = NULL;
        uint32_t gen = 0;
        int n = 0;
        if (kv_iter_new(c->kv, &it) != 0) {
            st->errors++;
            break;
        }
        if (kv_iter_seek(it, "g", 1) != 0) {
            st->errors++;
        }
        while (kv_iter_valid(it)) {
            size_t kl, vl;
            const uint8_t *k = kv_iter_key(it, &kl);
            const uint8_t *v = kv_iter_value(it, &vl);
            if (kl < 1 || k[0] != 'g') {
                break;
            }
            if (vl != 4) {
                st->torn++;
                break;
            }
            if (n == 0) {
                gen = kv_crash_rd_be32(v);
            } else if (kv_crash_rd_be32(v) != gen) {
                st->torn++;
                break;
            }
            n++;
            if (kv_iter_next(it) != 0) {
                st->errors++;
                break;
            }
        }
        if (n != ATOMIC_KEYS) {
            st->torn++;
        }
        kv_iter_free(it);
        st->snapshots++;
    } while (!atomic_load(&c->stop));
    return NULL;
}

static void test_batch_atomic_visibility(void)
{
    struct atomic_ctx c;
    struct atomic_reader_state st[2];
    struct kv_batch *b = kv_batch_new();
    pthread_t th[2];
    int snapshots = 0;
    c.kv = open_fresh("atomic", NULL);
    atomic_init(&c.stop, 0);
    memset(st, 0, sizeof(st));
    for (uint32_t g = 0; g < 200; g++) {
        kv_batch_clear(b);
        for (int i = 0; i < ATOMIC_KEYS; i++) {
            uint8_t k[5], v[4];
            k[0] = 'g';
            kv_crash_be32(k + 1, (uint32_t)i);
            kv_crash_be32(v, g);
            kv_batch_put(b, k, 5, v, 4);
        }
        /* Unrelated keys in the same batch, to make it larger than the generation set. */
        for (int i = 0; i < 100; i++) {
            uint8_t k[5];
            k[0] = 'x';
            kv_crash_be32(k + 1, (uint32_t)(g * 100 + (uint32_t)i));
            kv_batch_put(b, k, 5, "filler", 6);
        }
        CHECK_EQ_INT(kv_write(c.kv, b, 0), 0);
        if (g == 0) {
            for (int t = 0; t < 2; t++) {
                st[t].c = &c;
                CHECK_EQ_INT(pthread_create(&th[t], NULL, atomic_reader, &st[t]), 0);
            }
        }
    }
    atomic_store(&c.stop, 1);
    for (int t = 0; t < 2; t++) {
        pthread_join(th[t], NULL);
        CHECK_EQ_INT(st[t].torn, 0);
        CHECK_EQ_INT(st[t].errors, 0);
        snapshots += st[t].snapshots;
    }
    printf("# %d snapshots read while writing\n", snapshots);
    CHECK(snapshots >= 2);
    kv_batch_free(b);
    close_ok(c.kv);
}

/* Gets while a large batch is written (kv.h: a persistent backend's get does not wait for
 * it, and sees the store before or after the batch, never part of it). The batch rewrites
 * GW_KEYS keys from "old" to "new" and deletes GW_KEYS others, between GW_FILLER puts of
 * unrelated keys; readers get random keys of both sets, and once one of them has read the
 * batch's value of any key, no later get may read a value from before it. */
#define GW_KEYS 2000
#define GW_FILLER 200000

struct gw_ctx {
    struct kv *kv;
    atomic_int writing; /* 1 while kv_write runs */
    atomic_int stop;
};

struct gw_reader {
    struct gw_ctx *c;
    uint64_t rng;
    int torn, errors, gets, during;
};

static void gw_key(uint8_t *k, char set, uint32_t i)
{
    k[0] = (uint8_t)set;
    kv_crash_be32(k + 1, i);
}

static void *gw_read(void *arg)
{
    struct gw_reader *r = arg;
    struct buf v;
    int seen_after = 0;
    buf_init(&v);
    while (!atomic_load(&r->c->stop)) {
        uint8_t k[5];
        int del, rc, after, writing;
        r->rng = r->rng * 6364136223846793005ull + 1442695040888963407ull;
        del = (int)((r->rng >> 40) & 1);
        gw_key(k, del ? 'd' : 'a', (uint32_t)((r->rng >> 20) % GW_KEYS));
        writing = atomic_load(&r->c->writing);
        rc = kv_get(r->c->kv, &v, k, sizeof(k));
        if (del) {
            if (rc != 0 && rc != RC_NOT_FOUND) {
                r->errors++;
                continue;
            }
            after = rc == RC_NOT_FOUND;
        } else {
            if (rc != 0) {
                r->errors++;
                continue;
            }
            after = v.len == 3 && memcmp(v.data, "new", 3) == 0;
            if (!after && !(v.len == 3 && memcmp(v.data, "old", 3) == 0)) {
                r->torn++;
            }
        }
        if (after) {
            seen_after = 1;
        } else if (seen_after) {
            r->torn++;
        }
        r->gets++;
        if (writing && atomic_load(&r->c->writing)) {
            r->during++;
        }
    }
    buf_clear(&v);
    return NULL;
}

static void test_get_during_big_write(void)
{
    struct gw_ctx c;
    struct gw_reader r[2];
    struct kv_batch *b = kv_batch_new();
    pthread_t th[2];
    uint8_t k[5];
    int during = 0;
    c.kv = open_fresh("getwrite", NULL);
    atomic_init(&c.writing, 0);
    atomic_init(&c.stop, 0);
    for (uint32_t i = 0; i < GW_KEYS; i++) {
        gw_key(k, 'a', i);
        kv_batch_put(b, k, sizeof(k), "old", 3);
        gw_key(k, 'd', i);
        kv_batch_put(b, k, sizeof(k), "old", 3);
    }
    CHECK_EQ_INT(kv_write(c.kv, b, 0), 0);
    kv_batch_clear(b);
    for (uint32_t i = 0; i < GW_FILLER; i++) {
        uint8_t fk[9], fv[40];
        fk[0] = 'f';
        kv_crash_be32(fk + 1, (uint32_t)rnd());
        kv_crash_be32(fk + 5, i);
        memset(fv, (int)(i & 0xff), sizeof(fv));
        kv_batch_put(b, fk, sizeof(fk), fv, sizeof(fv));
        if (i % (GW_FILLER / GW_KEYS) == 0) {
            /* The batch's keys in an order unrelated to the readers'. */
            uint32_t j = (uint32_t)((uint64_t)i * 7919 / (GW_FILLER / GW_KEYS)) % GW_KEYS;
            gw_key(k, 'a', j);
            kv_batch_put(b, k, sizeof(k), "mid", 3); /* overwritten below: never seen */
            kv_batch_put(b, k, sizeof(k), "new", 3);
            gw_key(k, 'd', j);
            kv_batch_delete(b, k, sizeof(k));
        }
    }
    memset(r, 0, sizeof(r));
    for (int t = 0; t < 2; t++) {
        r[t].c = &c;
        r[t].rng = rnd();
        CHECK_EQ_INT(pthread_create(&th[t], NULL, gw_read, &r[t]), 0);
    }
    while (r[0].gets == 0 && r[1].gets == 0) {
        sched_yield();
    }
    atomic_store(&c.writing, 1);
    CHECK_EQ_INT(kv_write(c.kv, b, 0), 0);
    atomic_store(&c.writing, 0);
    atomic_store(&c.stop, 1);
    for (int t = 0; t < 2; t++) {
        pthread_join(th[t], NULL);
        CHECK_EQ_INT(r[t].torn, 0);
        CHECK_EQ_INT(r[t].errors, 0);
        during += r[t].during;
    }
    printf("# %s: %d gets (%d of them while the batch was written)\n", cur_name,
           r[0].gets + r[1].gets, during);
    if (cur_ops != &kv_mem_ops) {
        CHECK(during > 0);
    }
    for (uint32_t i = 0; i < GW_KEYS; i += 97) {
        gw_key(k, 'a', i);
        expect_val(c.kv, k, sizeof(k), "new", 3);
        gw_key(k, 'd', i);
        CHECK_EQ_INT(kv_get(c.kv, NULL, k, sizeof(k)), RC_NOT_FOUND);
    }
    kv_batch_free(b);
    close_ok(c.kv);
}

static void test_persistence(void)
{
    char path[700];
    struct kv_options opt;
    struct kv *kv = open_fresh("persist", NULL);
    struct kv_batch *b = kv_batch_new();
    for (int i = 0; i < 5000; i++) {
        char k[16], v[32];
        int kl = snprintf(k, sizeof(k), "p%d", i);
        int vl = snprintf(v, sizeof(v), "value-%d", i * 7);
        kv_batch_put(b, k, (size_t)kl, v, (size_t)vl);
        if (i % 1000 == 999) {
            CHECK_EQ_INT(kv_write(kv, b, i % 2000 == 999), 0);
            kv_batch_clear(b);
        }
    }
    del1(kv, "p17", 3);
    close_ok(kv);
    for (int round = 0; round < 2; round++) {
        kv_options_init(&opt);
        opt.create_if_missing = 0;
        kv = reopen("persist", &opt);
        if (!kv) {
            break;
        }
        expect_val(kv, "p0", 2, "value-0", 7);
        expect_val(kv, "p4999", 5, "value-34993", 11);
        expect_missing(kv, "p17", 3);
        CHECK_EQ_INT(count_entries(kv), 4999 + (size_t)round);
        put1(kv, "round", 5, "r", 1, 0);
        close_ok(kv);
    }
    /* kv_destroy removes it: without create_if_missing it is then not found. */
    store_path(path, sizeof(path), "persist");
    CHECK_EQ_INT(kv_destroy(cur_ops, path), 0);
    kv = NULL;
    CHECK_EQ_INT(kv_open(&kv, cur_ops, path, &opt), RC_NOT_FOUND);
    if (cur_ops != &kv_mem_ops) {
        struct stat st;
        CHECK(stat(path, &st) != 0 && errno == ENOENT);
    }
    kv_batch_free(b);
}

/* The size of a full coins-cache flush: 500,000 puts of 36-byte keys and 40-byte values in
 * one batch must commit (a backend limit must never fail a valid block, BIP 50), and so must
 * the batch that deletes them all. */
static void test_big_batch(void)
{
    const uint32_t n = 500000;
    struct kv_options opt;
    struct kv *kv;
    /* The node's chainstate gets a cache of this order (-dbcache); with the 8 MiB default a
     * BDB batch of this size still commits, but spends ~10 s evicting pages. */
    kv_options_init(&opt);
    opt.cache_bytes = (size_t)64 << 20;
    kv = open_fresh("bigbatch", &opt);
    struct kv_batch *b = kv_batch_new();
    uint8_t key[36], val[40];
    double t0;
    int rc;

    for (uint32_t i = 0; i < n; i++) {
        rnd_bytes(key, 32);
        kv_crash_be32(key + 32, i);
        memset(val, (int)(i & 0xff), sizeof(val));
        kv_crash_be32(val, i);
        kv_batch_put(b, key, sizeof(key), val, sizeof(val));
    }
    CHECK_EQ_INT(kv_batch_count(b), n);
    t0 = now_s();
    rc = kv_write(kv, b, 1);
    if (rc != 0) {
        printf("# big batch: %s\n", kv_last_error(kv));
    }
    CHECK_EQ_INT(rc, 0);
    printf("# %s: 500,000-put batch committed in %.2f s\n", cur_name, now_s() - t0);
    CHECK_EQ_INT(count_entries(kv), n);
    /* Spot check: the last key written (still in key/val) reads back. */
    expect_val(kv, key, sizeof(key), val, sizeof(val));
    /* Now delete them all in one batch, by iterating. */
    {
        struct kv_batch *d = kv_batch_new();
        struct kv_iter *it = NULL;
        CHECK_EQ_INT(kv_iter_new(kv, &it), 0);
        CHECK_EQ_INT(kv_iter_seek_first(it), 0);
        while (kv_iter_valid(it)) {
            size_t kl;
            const uint8_t *k = kv_iter_key(it, &kl);
            kv_batch_delete(d, k, kl);
            CHECK_EQ_INT(kv_iter_next(it), 0);
        }
        kv_iter_free(it);
        CHECK_EQ_INT(kv_batch_count(d), n);
        t0 = now_s();
        rc = kv_write(kv, d, 0);
        if (rc != 0) {
            printf("# big delete batch: %s\n", kv_last_error(kv));
        }
        CHECK_EQ_INT(rc, 0);
        printf("# %s: 500,000-delete batch committed in %.2f s\n", cur_name, now_s() - t0);
        kv_batch_free(d);
    }
    CHECK_EQ_INT(count_entries(kv), 0);
    kv_batch_free(b);
    close_ok(kv);
}

/* Random batches of puts and deletes over a small key space, checked against a model: for
 * mem the model is a plain sorted array (and the B-tree's invariants are checked after each
 * batch); for the configured backend the model is a mem store fed the same batches. */
struct model_entry {
    uint8_t key[8];
    size_t klen;
    uint8_t val[24];
    size_t vlen;
};

static int model_find(struct model_entry *m, size_t n, const uint8_t *k, size_t kl, int *eq)
{
    size_t lo = 0, hi = n;
    *eq = 0;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        size_t ml = m[mid].klen < kl ? m[mid].klen : kl;
        int c = memcmp(m[mid].key, k, ml);
        if (c == 0) {
            c = m[mid].klen < kl ? -1 : m[mid].klen > kl ? 1 : 0;
        }
        if (c < 0) {
            lo = mid + 1;
        } else {
            if (c == 0) {
                *eq = 1;
            }
            hi = mid;
        }
    }
    return (int)lo;
}

static void test_random_model(void)
{
    const int rounds = 300;
    struct kv *kv = open_fresh("model", NULL);
    struct kv *ref = NULL;
    struct model_entry *m = calloc(70000, sizeof(*m));
    size_t mn = 0;
    struct kv_batch *b = kv_batch_new();
    int mismatches = 0;

    if (cur_ops != &kv_mem_ops) {
        CHECK_EQ_INT(kv_open(&ref, &kv_mem_ops, NULL, NULL), 0);
    }
    for (int r = 0; r < rounds; r++) {
        int ops = 1 + (int)(rnd() % (r % 10 == 0 ? 3000 : 200));
        kv_batch_clear(b);
        for (int i = 0; i < ops; i++) {
            uint8_t k[8], v[24];
            /* Keys of 1..3 bytes from a small alphabet: many prefixes and collisions. */
            size_t kl = 1 + (size_t)(rnd() % 3), vl = (size_t)(rnd() % 24);
            int eq, pos;
            for (size_t j = 0; j < kl; j++) {
                static const uint8_t alpha[] = {0x00, 0x01, 0x41, 0x7f, 0x80, 0xfe, 0xff,
                                                0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70,
                                                0x90, 0xa0, 0xb0, 0xc0, 0xd0, 0xe0};
                k[j] = alpha[rnd() % sizeof(alpha)];
            }
            rnd_bytes(v, vl);
            pos = model_find(m, mn, k, kl, &eq);
            /* Deletes outweigh puts in some phases so the tree also shrinks. */
            if (rnd() % 100 < (uint64_t)((r / 50) % 2 ? 65 : 35)) {
                kv_batch_delete(b, k, kl);
                if (eq) {
                    memmove(m + pos, m + pos + 1, (mn - (size_t)pos - 1) * sizeof(*m));
                    mn--;
                }
            } else {
                kv_batch_put(b, k, kl, v, vl);
                if (!eq) {
                    memmove(m + pos + 1, m + pos, (mn - (size_t)pos) * sizeof(*m));
                    mn++;
                    memcpy(m[pos].key, k, kl);
                    m[pos].klen = kl;
                }
                memcpy(m[pos].val, v, vl);
                m[pos].vlen = vl;
            }
        }
        CHECK_EQ_INT(kv_write(kv, b, 0), 0);
        if (ref) {
            CHECK_EQ_INT(kv_write(ref, b, 0), 0);
        } else {
            int rc = kv_mem_check(kv);
            if (rc != 0) {
                printf("# round %d: %s\n", r, kv_last_error(kv));
            }
            CHECK_EQ_INT(rc, 0);
        }
        if (r % 25 == 24 || r == rounds - 1) {
            /* Compare everything: iteration against the model, and gets. */
            struct kv_iter *it = NULL;
            size_t i = 0;
            CHECK_EQ_INT(kv_iter_new(kv, &it), 0);
            CHECK_EQ_INT(kv_iter_seek_first(it), 0);
            while (kv_iter_valid(it) && i < mn) {
                size_t kl, vl;
                const uint8_t *k = kv_iter_key(it, &kl);
                const uint8_t *v = kv_iter_value(it, &vl);
                if (kl != m[i].klen || memcmp(k, m[i].key, kl) != 0 || vl != m[i].vlen ||
                    (vl && memcmp(v, m[i].val, vl) != 0)) {
                    mismatches++;
                }
                i++;
                CHECK_EQ_INT(kv_iter_next(it), 0);
            }
            CHECK_EQ_INT(i, mn);
            CHECK(!kv_iter_valid(it));
            kv_iter_free(it);
            for (size_t j = 0; j < mn; j += 7) {
                expect_val(kv, m[j].key, m[j].klen, m[j].val, m[j].vlen);
            }
        }
    }
    CHECK_EQ_INT(mismatches, 0);
    printf("# %s: model holds %zu keys after %d batches\n", cur_name, mn, rounds);
    if (ref) {
        /* The reference mem store agrees too: same keys, same order. */
        struct kv_iter *a = NULL, *c = NULL;
        size_t n = 0;
        CHECK_EQ_INT(kv_iter_new(kv, &a), 0);
        CHECK_EQ_INT(kv_iter_new(ref, &c), 0);
        kv_iter_seek_first(a);
        kv_iter_seek_first(c);
        while (kv_iter_valid(a) && kv_iter_valid(c)) {
            size_t al, cl;
            const uint8_t *ak = kv_iter_key(a, &al);
            const uint8_t *ck = kv_iter_key(c, &cl);
            CHECK_EQ_INT(al, cl);
            if (al == cl && al > 0) {
                CHECK_EQ_MEM(ak, ck, al);
            }
            n++;
            kv_iter_next(a);
            kv_iter_next(c);
        }
        CHECK(!kv_iter_valid(a) && !kv_iter_valid(c));
        CHECK_EQ_INT(n, mn);
        kv_iter_free(a);
        kv_iter_free(c);
        close_ok(ref);
    }
    free(m);
    kv_batch_free(b);
    close_ok(kv);
}

/* Many keys in the mem B-tree, removed in an order unlike insertion, with snapshots taken in
 * the middle: the copy-on-write paths must keep every snapshot intact and free everything. */
static void test_mem_btree_snapshots(void)
{
    struct kv *kv = NULL;
    struct kv_batch *b = kv_batch_new();
    struct kv_iter *snaps[4] = {NULL, NULL, NULL, NULL};
    size_t expect[4];
    const uint32_t n = 60000;

    CHECK_EQ_INT(kv_open(&kv, &kv_mem_ops, NULL, NULL), 0);
    for (int phase = 0; phase < 4; phase++) {
        kv_batch_clear(b);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t x = (uint32_t)((uint64_t)i * 7919 % n); /* a permutation of 0..n-1 */
            uint8_t k[4];
            kv_crash_be32(k, x);
            if (phase % 2 == 0) {
                kv_batch_put(b, k, 4, &phase, 1);
            } else if (x % 3 != 0) {
                kv_batch_delete(b, k, 4);
            }
        }
        CHECK_EQ_INT(kv_iter_new(kv, &snaps[phase]), 0);
        expect[phase] = count_entries(kv);
        CHECK_EQ_INT(kv_write(kv, b, 0), 0);
        CHECK_EQ_INT(kv_mem_check(kv), 0);
    }
    CHECK_EQ_INT(expect[0], 0);
    CHECK_EQ_INT(expect[1], n);
    CHECK_EQ_INT(expect[2], (n + 2) / 3);
    CHECK_EQ_INT(expect[3], n);
    for (int phase = 0; phase < 4; phase++) {
        size_t c = 0;
        CHECK_EQ_INT(kv_iter_seek_first(snaps[phase]), 0);
        while (kv_iter_valid(snaps[phase])) {
            c++;
            kv_iter_next(snaps[phase]);
        }
        CHECK_EQ_INT(c, expect[phase]);
        kv_iter_free(snaps[phase]);
        CHECK_EQ_INT(kv_mem_check(kv), 0);
    }
    {
        struct kv_stats st;
        CHECK_EQ_INT(kv_stats(kv, &st), 0);
        CHECK_EQ_U64(st.entries, (n + 2) / 3);
    }
    kv_batch_free(b);
    close_ok(kv);
}

static void test_stats_and_size(void)
{
    struct kv *kv = open_fresh("stats", NULL);
    struct kv_batch *b = kv_batch_new();
    struct kv_stats st;
    uint64_t all = 0, part = 0, none = 1;
    for (uint32_t i = 0; i < 20000; i++) {
        uint8_t k[5], v[60];
        k[0] = i < 10000 ? 'a' : 'b';
        kv_crash_be32(k + 1, i);
        rnd_bytes(v, sizeof(v));
        kv_batch_put(b, k, 5, v, sizeof(v));
    }
    CHECK_EQ_INT(kv_write(kv, b, 1), 0);
    close_ok(kv);
    /* Reopened, so that leveldb's log became a table that size estimates can see. */
    kv = reopen("stats", NULL);
    CHECK_EQ_INT(kv_stats(kv, &st), 0);
    printf("# %s\n", st.text);
    CHECK(strstr(st.text, cur_name) != NULL);
    /* The LSM engines say how long they compacted; the others have no such thing. */
    if (strcmp(cur_name, "leveldb") == 0 || strcmp(cur_name, "rocksdb") == 0) {
        CHECK(st.compaction_seconds >= 0);
    } else {
        CHECK(st.compaction_seconds == -1);
    }
    if (cur_ops == &kv_mem_ops) {
        CHECK_EQ_U64(st.disk_bytes, 0);
        CHECK_EQ_U64(st.entries, 20000);
        CHECK(st.mem_bytes > 20000 * 65);
    } else {
        CHECK(st.disk_bytes > 20000 * 40);
    }
    CHECK_EQ_INT(kv_approximate_size(kv, &all, "", 0, NULL, 0), 0);
    CHECK_EQ_INT(kv_approximate_size(kv, &part, "b", 1, "c", 1), 0);
    CHECK_EQ_INT(kv_approximate_size(kv, &none, "x", 1, "y", 1), 0);
    printf("# approximate sizes: all %llu, b-range %llu, empty range %llu\n",
           (unsigned long long)all, (unsigned long long)part, (unsigned long long)none);
    if (cur_ops == &kv_mem_ops) {
        CHECK_EQ_U64(all, 20000 * 65);
        CHECK_EQ_U64(part, 10000 * 65);
    } else {
        CHECK(all > 20000 * 30);
        CHECK(part > all / 4 && part < all * 3 / 4);
    }
    CHECK(none < all / 50);
    kv_batch_free(b);
    close_ok(kv);
}

/* ---- persistent backends only -------------------------------------------------------- */

static void write_file(const char *dir, const char *name, const char *text)
{
    char p[1024];
    FILE *f;
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    f = fopen(p, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Each persistent backend and a file only it creates (kv.c recognizes a store by these when
 * its marker is gone). RocksDB writes LevelDB's CURRENT as well, and its OPTIONS files. */
static const struct {
    const char *name;
    const char *files[2];
} foreign_files[] = {
    {"leveldb", {"CURRENT", NULL}},
    {"rocksdb", {"CURRENT", "OPTIONS-000005"}},
    {"bdb", {"data.db", NULL}},
    {"lmdb", {"data.mdb", NULL}},
};

static void test_backend_marker(void)
{
    const char *other = strcmp(cur_name, "leveldb") == 0 ? "bdb" : "leveldb";
    char path[700], want[64], marker[1024];
    struct kv *kv = open_fresh("marker", NULL);
    size_t len = 0;
    uint8_t *text;
    int rc;
    put1(kv, "k", 1, "v", 1, 0);
    close_ok(kv);
    store_path(path, sizeof(path), "marker");
    snprintf(marker, sizeof(marker), "%s/BACKEND", path);
    text = test_read_file(marker, &len);
    CHECK(text != NULL);
    snprintf(want, sizeof(want), "%s\n", cur_name);
    CHECK_EQ_STR((const char *)(text ? (char *)text : ""), want);
    free(text);

    /* The other backend's marker: refused, saying who wrote it and what to do. */
    snprintf(want, sizeof(want), "%s\n", other);
    write_file(path, "BACKEND", want);
    kv = NULL;
    rc = kv_open(&kv, cur_ops, path, NULL);
    CHECK_EQ_INT(rc, RC_BACKEND);
    CHECK(kv == NULL);
    printf("# %s\n", kv_last_error(NULL));
    snprintf(want, sizeof(want), "written by the %s backend", other);
    CHECK(strstr(kv_last_error(NULL), want) != NULL);
    snprintf(want, sizeof(want), "--with-backend=%s", other);
    CHECK(strstr(kv_last_error(NULL), want) != NULL);
    CHECK(strstr(kv_last_error(NULL), "-reindex-chainstate") != NULL);
    /* Nor may kv_destroy() remove another backend's store. */
    CHECK_EQ_INT(kv_destroy(cur_ops, path), RC_BACKEND);

    /* A lost marker is restored when the files are ours. */
    snprintf(want, sizeof(want), "%s\n", cur_name);
    CHECK_EQ_INT(unlink(marker), 0);
    kv = reopen("marker", NULL);
    expect_val(kv, "k", 1, "v", 1);
    close_ok(kv);
    text = test_read_file(marker, &len);
    CHECK(text != NULL);
    CHECK_EQ_STR((const char *)(text ? (char *)text : ""), want);
    free(text);

    /* No marker but another backend's files: refused too, naming that backend. */
    store_path(path, sizeof(path), "foreign");
    for (size_t i = 0; i < ARRAY_LEN(foreign_files); i++) {
        if (strcmp(foreign_files[i].name, cur_name) == 0) {
            continue;
        }
        rm_rf(path);
        CHECK_EQ_INT(mkdir(path, 0755), 0);
        for (size_t j = 0; j < 2 && foreign_files[i].files[j]; j++) {
            write_file(path, foreign_files[i].files[j], "x");
        }
        rc = kv_open(&kv, cur_ops, path, NULL);
        CHECK_EQ_INT(rc, RC_BACKEND);
        snprintf(want, sizeof(want), "written by the %s backend", foreign_files[i].name);
        if (strstr(kv_last_error(NULL), want) == NULL) {
            printf("# %s files: %s\n", foreign_files[i].name, kv_last_error(NULL));
            CHECK(0);
        }
    }
    rm_rf(path);
}

/* A store Bitcoin Core wrote (its blocks/index, chainstate, indexes: LevelDB, no BACKEND
 * marker, Core's obfuscation key "\x0e\0obfuscate_key") is never opened as ours, nor given
 * our marker: the error names Bitcoin Core and what to do. kv_destroy (what -reindex does)
 * still removes it. Built here with our own LevelDB backend, the marker taken away. */
static void test_core_store(void)
{
    static const char core_key[] = "\x0e\x00obfuscate_key";
    char path[700], marker[1024];
    struct kv *kv;
    int rc;
    store_path(path, sizeof(path), "core");
    snprintf(marker, sizeof(marker), "%s/BACKEND", path);
    if (strcmp(cur_name, "leveldb") != 0) {
        /* Another backend cannot look into LevelDB's files: refused as LevelDB's, and the
         * message says it may be Core's. */
        rm_rf(path);
        CHECK_EQ_INT(mkdir(path, 0755), 0);
        write_file(path, "CURRENT", "MANIFEST-000002\n");
        kv = NULL;
        CHECK_EQ_INT(kv_open(&kv, cur_ops, path, NULL), RC_BACKEND);
        CHECK(strstr(kv_last_error(NULL), "Bitcoin Core") != NULL);
        rm_rf(path);
        return;
    }
    kv = open_fresh("core", NULL);
    put1(kv, core_key, 15, "\x08\x01\x02\x03\x04\x05\x06\x07\x08", 9, 0);
    put1(kv, "B", 1, "tip", 3, 0);
    close_ok(kv);
    CHECK_EQ_INT(unlink(marker), 0);
    kv = NULL;
    rc = kv_open(&kv, cur_ops, path, NULL);
    CHECK_EQ_INT(rc, RC_FOREIGN);
    CHECK(kv == NULL);
    printf("# %s\n", kv_last_error(NULL));
    CHECK(strstr(kv_last_error(NULL), path) != NULL);
    CHECK(strstr(kv_last_error(NULL), "written by Bitcoin Core") != NULL);
    CHECK(strstr(kv_last_error(NULL), "-datadir") != NULL);
    CHECK(strstr(kv_last_error(NULL), "-reindex") != NULL);
    CHECK(access(marker, F_OK) != 0); /* not taken as ours: no marker written */
    /* Refused again on the next try, and its data is still there to refuse. */
    CHECK_EQ_INT(kv_open(&kv, cur_ops, path, NULL), RC_FOREIGN);
    /* A store with our marker that happens to hold the key is ours (bitnode writes no such
     * key; only a store without the marker is looked into). */
    write_file(path, "BACKEND", "leveldb\n");
    kv = reopen("core", NULL);
    expect_val(kv, "B", 1, "tip", 3);
    close_ok(kv);
    CHECK_EQ_INT(unlink(marker), 0);
    /* -reindex deletes it; a new store of ours takes its place. */
    CHECK_EQ_INT(kv_destroy(cur_ops, path), 0);
    kv = reopen("core", NULL);
    expect_missing(kv, "B", 1);
    close_ok(kv);
    CHECK_EQ_INT(access(marker, F_OK), 0);
    rm_rf(path);
}

/* A cleanly closed store's directory, copied elsewhere, opens with all its data (the BDB
 * environment is checkpointed and holds nothing tied to the process). */
static void test_copy_after_close(void)
{
    char src[700], dst[700], cmd[1600];
    struct kv *kv = open_fresh("copysrc", NULL);
    struct kv_batch *b = kv_batch_new();
    for (uint32_t i = 0; i < 30000; i++) {
        uint8_t k[4];
        kv_crash_be32(k, i);
        kv_batch_put(b, k, 4, "copied", 6);
    }
    CHECK_EQ_INT(kv_write(kv, b, 0), 0);
    close_ok(kv);
    store_path(src, sizeof(src), "copysrc");
    store_path(dst, sizeof(dst), "copydst");
    rm_rf(dst);
    snprintf(cmd, sizeof(cmd), "cp -r '%s' '%s'", src, dst);
    CHECK_EQ_INT(system(cmd), 0);
    rm_rf(src);
    kv = reopen("copydst", NULL);
    if (kv) {
        uint8_t k[4];
        kv_crash_be32(k, 29999);
        expect_val(kv, k, 4, "copied", 6);
        CHECK_EQ_INT(count_entries(kv), 30000);
        close_ok(kv);
    }
    kv_batch_free(b);
}

/* ---- crash atomicity ---------------------------------------------------------------- */

struct crash_view {
    uint32_t max_batch; /* 0 = no batch */
    uint32_t head;      /* 0 = no head record */
    int ok;
};

/* Checks the store against kv_crash.h's rules; *v gets the highest batch present. */
static void crash_verify(struct kv *kv, struct crash_view *v)
{
    struct kv_iter *it = NULL;
    uint32_t batches[64], counts[64], records[64];
    int nb = 0;
    v->max_batch = 0;
    v->head = 0;
    v->ok = 1;
    if (kv_iter_new(kv, &it) != 0) {
        printf("# crash verify: %s\n", kv_last_error(kv));
        v->ok = 0;
        return;
    }
    kv_iter_seek_first(it);
    while (kv_iter_valid(it)) {
        size_t kl, vl;
        const uint8_t *k = kv_iter_key(it, &kl);
        const uint8_t *val = kv_iter_value(it, &vl);
        int slot = -1;
        if (kl == 1 && k[0] == 'h' && vl == 4) {
            v->head = kv_crash_rd_be32(val);
        } else if ((kl == 5 && k[0] == 'c') || (kl == 9 && k[0] == 'd')) {
            uint32_t bn = kv_crash_rd_be32(k + 1);
            for (int i = 0; i < nb; i++) {
                if (batches[i] == bn) {
                    slot = i;
                }
            }
            if (slot < 0) {
                if (nb == 64) {
                    printf("# crash verify: too many batches present\n");
                    v->ok = 0;
                    break;
                }
                slot = nb++;
                batches[slot] = bn;
                counts[slot] = UINT32_MAX;
                records[slot] = 0;
            }
            if (k[0] == 'c') {
                counts[slot] = vl == 4 ? rd_u32le(val) : UINT32_MAX - 1;
            } else {
                uint8_t want[80];
                size_t wl = kv_crash_value(want, bn, kv_crash_rd_be32(k + 5));
                if (wl != vl || memcmp(want, val, vl) != 0) {
                    printf("# crash verify: batch %u record %u has a wrong value\n", bn,
                           kv_crash_rd_be32(k + 5));
                    v->ok = 0;
                }
                records[slot]++;
            }
        } else {
            printf("# crash verify: unexpected key of %zu bytes\n", kl);
            v->ok = 0;
        }
        kv_iter_next(it);
    }
    kv_iter_free(it);
    for (int i = 0; i < nb; i++) {
        if (batches[i] > v->max_batch) {
            v->max_batch = batches[i];
        }
    }
    for (int i = 0; i < nb; i++) {
        uint32_t bn = batches[i];
        if (counts[i] != kv_crash_count(bn) || records[i] != kv_crash_count(bn)) {
            printf("# crash verify: batch %u torn: count record %u, %u of %u records\n", bn,
                   counts[i], records[i], kv_crash_count(bn));
            v->ok = 0;
        }
        if (bn + KV_CRASH_KEEP <= v->max_batch) {
            printf("# crash verify: batch %u should have been deleted by batch %u\n", bn,
                   bn + KV_CRASH_KEEP);
            v->ok = 0;
        }
    }
    {
        /* Exactly the batches max-2..max, all present. */
        uint32_t want = v->max_batch < KV_CRASH_KEEP ? v->max_batch : KV_CRASH_KEEP;
        if ((uint32_t)nb != want) {
            printf("# crash verify: %d batches present, expected %u below %u\n", nb, want,
                   v->max_batch);
            v->ok = 0;
        }
    }
    if (v->head != v->max_batch) {
        printf("# crash verify: head record %u but highest batch %u\n", v->head, v->max_batch);
        v->ok = 0;
    }
}

static void test_crash_atomicity(void)
{
    const int rounds = 24;
    char path[700];
    uint32_t verified = 0; /* highest batch known to be committed */
    int killed_mid_write = 0;
    store_path(path, sizeof(path), "crash");
    CHECK_EQ_INT(kv_destroy(cur_ops, path), 0);

    for (int round = 0; round < rounds; round++) {
        int fds[2];
        pid_t pid;
        int status = 0;
        char first[16], acks[8192];
        size_t alen = 0;
        ssize_t got;
        uint32_t acked = verified;
        struct kv *kv = NULL;
        struct crash_view v;
        /* Kill at a random moment: in some rounds during open and recovery, in the others
         * while batches are being written (after the child's first acknowledgement, so that
         * slow builds such as ASan's get there too). */
        int during_open = rnd() % 100 < 15;
        long delay_us = (long)(during_open ? rnd() % 30000 : rnd() % 150000);

        CHECK_EQ_INT(pipe(fds), 0);
        snprintf(first, sizeof(first), "%u", verified + 1);
        pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
            dup2(fds[1], 1);
            close(fds[0]);
            close(fds[1]);
            execl(child_path, child_path, path, first, (char *)NULL);
            _exit(127);
        }
        close(fds[1]);
        if (!during_open) {
            struct pollfd pfd = {fds[0], POLLIN, 0};
            /* Up to 20 s for the first batch; an exited child makes the pipe readable too. */
            if (poll(&pfd, 1, 20000) == 1) {
                got = read(fds[0], acks, sizeof(acks) - 1);
                alen = got > 0 ? (size_t)got : 0;
            }
        }
        usleep((useconds_t)delay_us);
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
            printf("# round %d: child ended by itself (status %d): see its stderr\n", round,
                   status);
            CHECK(0);
            close(fds[0]);
            break;
        }
        while ((got = read(fds[0], acks + alen, sizeof(acks) - 1 - alen)) > 0) {
            alen += (size_t)got;
        }
        close(fds[0]);
        acks[alen] = 0;
        for (char *p = acks; *p;) {
            char *end;
            unsigned long bn = strtoul(p, &end, 10);
            if (end == p) {
                break;
            }
            if (bn > acked) {
                acked = (uint32_t)bn;
            }
            p = end + (*end == '\n');
        }

        if (kv_open(&kv, cur_ops, path, NULL) != 0) {
            printf("# round %d: reopen after SIGKILL failed: %s\n", round, kv_last_error(NULL));
            CHECK(0);
            break;
        }
        crash_verify(kv, &v);
        kv_close(kv);
        /* Every acknowledged batch survived; at most the one in flight is extra. */
        if (!v.ok || v.max_batch < acked || v.max_batch > acked + 1) {
            printf("# round %d: killed after %ld us: acked %u, store holds up to %u (%s)\n", round,
                   delay_us, acked, v.max_batch, v.ok ? "complete" : "broken");
            CHECK(0);
            break;
        }
        if (v.max_batch == acked + 1 || acked > verified) {
            killed_mid_write++;
        }
        verified = v.max_batch;
    }
    printf("# %s: %d kills, %u batches committed, %d kills after writing began\n", cur_name, rounds,
           verified, killed_mid_write);
    CHECK(verified > 0);
    /* 85% of the rounds kill after writing began; allow for the odd one that lands right
     * after a commit and before the next batch starts. */
    CHECK(killed_mid_write >= rounds / 2);
    kv_destroy(cur_ops, path);
}

/* ---- driver ------------------------------------------------------------------------- */

#define RUN(fn)                                                                                    \
    do {                                                                                           \
        double t0_ = now_s();                                                                      \
        test_case_failed = 0;                                                                      \
        fn();                                                                                      \
        test_report(!test_case_failed, "%s: %s (%.2f s)", cur_name, #fn, now_s() - t0_);           \
    } while (0)

/* The process's resident file-backed pages (kB), from /proc/self/status. */
static long rss_file_kb(void)
{
    char line[256];
    long kb = -1;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) {
        return -1;
    }
    while (fgets(line, sizeof(line), f)) {
        if (sscanf(line, "RssFile: %ld", &kb) == 1) {
            break;
        }
    }
    fclose(f);
    return kb;
}

/* kv_release_mapped: the pages of the table files LevelDB mapped leave the resident set and
 * every value still reads back; a backend that maps nothing (and a sanitizer build, whose
 * runtime interposes mmap itself) releases nothing. */
static void test_release_mapped(void)
{
    enum { N = 6000, VLEN = 4000 }; /* 24 MB: several table files */
    struct kv *kv = open_fresh("mapped", NULL);
    uint8_t v[VLEN];
    for (int i = 0; i < N; i++) {
        char k[16];
        snprintf(k, sizeof(k), "k%07d", i);
        memset(v, (uint8_t)i, sizeof(v));
        put1(kv, k, strlen(k), v, sizeof(v), 0);
    }
    close_ok(kv);
    kv = reopen("mapped", NULL); /* the log becomes tables */
    for (int pass = 0; pass < 2; pass++) {
        int bad = 0;
        for (int i = 0; i < N; i++) {
            char k[16];
            struct buf got;
            buf_init(&got);
            snprintf(k, sizeof(k), "k%07d", i);
            bad += kv_get(kv, &got, k, strlen(k)) != 0 || got.len != VLEN ||
                   got.data[0] != (uint8_t)i || got.data[VLEN - 1] != (uint8_t)i;
            buf_clear(&got);
        }
        CHECK_EQ_INT(bad, 0);
        long before = rss_file_kb();
        size_t released = kv_release_mapped(0);
        long after = rss_file_kb();
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
        (void)before;
        (void)after;
        CHECK_EQ_U64(released, 0);
#else
        if (strcmp(cur_name, "leveldb") == 0) {
            printf("# pass %d: %zu bytes of table mappings released, RssFile %ld -> %ld kB\n", pass,
                   released, before, after);
            CHECK(released >= (size_t)N * VLEN / 2);
            CHECK(before - after >= (long)N * VLEN / 2 / 1024);
        } else {
            CHECK_EQ_U64(released, 0);
        }
#endif
        /* Above what the process maps: nothing to do. */
        CHECK_EQ_U64(kv_release_mapped(SIZE_MAX / 2), 0);
    }
    close_ok(kv);
}

static void run_suite(const struct kv_ops *ops)
{
    cur_ops = ops;
    cur_name = kv_ops_name(ops);
    RUN(test_put_get_delete);
    RUN(test_not_found_vs_error);
    RUN(test_overwrite);
    RUN(test_empty_values_and_keys);
    RUN(test_large_values);
    RUN(test_binary_keys);
    RUN(test_iteration_order);
    RUN(test_seek_absent);
    RUN(test_iter_snapshot);
    RUN(test_batch_atomic_visibility);
    RUN(test_get_during_big_write);
    RUN(test_persistence);
    RUN(test_random_model);
    RUN(test_stats_and_size);
    RUN(test_big_batch);
    if (ops == &kv_mem_ops) {
        RUN(test_mem_btree_snapshots);
    } else {
        RUN(test_backend_marker);
        RUN(test_core_store);
        RUN(test_corruption_is_error);
        RUN(test_bitrot_is_error);
        RUN(test_copy_after_close);
        RUN(test_crash_atomicity);
        RUN(test_release_mapped);
    }
}

int main(int argc, char **argv)
{
    const char *tmp = getenv("TMPDIR");
    const char *seed_env = getenv("KV_TEST_SEED");
    uint64_t seed;
    char *self = strdup(argv[0]);

    seed = seed_env && *seed_env ? strtoull(seed_env, NULL, 10) : (uint64_t)time(NULL);
    rng_state = seed * 0x9e3779b97f4a7c15ull + 1;
    printf("# KV_TEST_SEED=%llu backend=%s\n", (unsigned long long)seed, kv_backend_name());
    snprintf(base_dir, sizeof(base_dir), "%s/bitnode-kv-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(base_dir)) {
        printf("Bail out! cannot create a temporary directory: %s\n", strerror(errno));
        return 1;
    }
    snprintf(child_path, sizeof(child_path), "%s/kv_crash_child", dirname(self));
    free(self);

    run_suite(&kv_mem_ops);
    run_suite(kv_default_ops());

    rm_rf(base_dir);
    return test_done();
}
