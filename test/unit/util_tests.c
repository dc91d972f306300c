/* Unit tests for src/util and src/primitives/serialize: buffer, reader, hex, CompactSize,
 * VARINT. */
#include "test.h"

#include "primitives/serialize.h"
#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/arena.h"
#include "util/base64.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/hex.h"
#include "util/lockedpool.h"
#include "util/random.h"
#include "util/histo.h"
#include "util/rc.h"
#include "util/scheduler.h"
#include "util/time.h"

static void test_buf_grow(void)
{
    struct buf b;
    buf_init(&b);
    for (int i = 0; i < 1000; i++) {
        buf_put_u32le(&b, (uint32_t)i);
    }
    CHECK_EQ_INT(b.len, 4000);
    CHECK_EQ_INT(rd_u32le(b.data + 4 * 999), 999);
    buf_reset(&b);
    CHECK_EQ_INT(b.len, 0);
    buf_put_u64le(&b, 0x0102030405060708ull);
    CHECK_EQ_MEM(b.data, "\x08\x07\x06\x05\x04\x03\x02\x01", 8);
    buf_clear(&b);
    CHECK(b.data == NULL);
}

static void test_reader_bounds(void)
{
    const uint8_t in[5] = {1, 2, 3, 4, 5};
    struct reader r;
    uint32_t v;
    uint8_t c;
    reader_init(&r, in, sizeof(in));
    CHECK_EQ_INT(reader_u32le(&r, &v, "first"), RC_OK);
    CHECK_EQ_U64(v, 0x04030201u);
    CHECK_EQ_INT(reader_u32le(&r, &v, "second"), RC_TRUNCATED);
    CHECK(strstr(r.err, "second") != NULL);
    CHECK(strstr(r.err, "offset 4") != NULL);
    /* The first failure is kept; later reads fail too. */
    CHECK_EQ_INT(reader_u8(&r, &c, "third"), RC_TRUNCATED);
    CHECK(strstr(r.err, "second") != NULL);

    reader_init(&r, in, sizeof(in));
    CHECK_EQ_INT(reader_skip(&r, 4, "x"), RC_OK);
    CHECK_EQ_INT(reader_expect_end(&r, "thing"), RC_TRAILING);
    CHECK(strstr(r.err, "1 bytes of trailing data after thing") != NULL);
}

static void test_hex(void)
{
    struct buf b;
    char s[16];
    buf_init(&b);
    CHECK_EQ_INT(hex_decode(&b, "00ffA0"), RC_OK);
    CHECK_EQ_INT(b.len, 3);
    CHECK_EQ_MEM(b.data, "\x00\xff\xa0", 3);
    hex_encode(s, b.data, b.len);
    CHECK_EQ_STR(s, "00ffa0");
    hex_encode_rev(s, b.data, b.len);
    CHECK_EQ_STR(s, "a0ff00");
    CHECK_EQ_INT(hex_decode(&b, "abc"), RC_INVALID);
    CHECK_EQ_INT(hex_decode(&b, "zz"), RC_INVALID);
    CHECK_EQ_INT(b.len, 3);
    buf_clear(&b);
}

struct compact_case {
    uint64_t v;
    const char *hex;
};

static void test_compact_roundtrip(void)
{
    static const struct compact_case cases[] = {
        {0, "00"},
        {252, "fc"},
        {253, "fdfd00"},
        {0xffff, "fdffff"},
        {0x10000, "fe00000100"},
        {SER_MAX_SIZE, "fe00000002"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct buf b, want;
        struct reader r;
        uint64_t v = 0;
        buf_init(&b);
        buf_init(&want);
        ser_put_compact(&b, cases[i].v);
        CHECK_EQ_INT(hex_decode(&want, cases[i].hex), RC_OK);
        CHECK_EQ_INT(b.len, want.len);
        CHECK_EQ_MEM(b.data, want.data, want.len);
        CHECK_EQ_INT(ser_compact_len(cases[i].v), b.len);
        reader_init(&r, b.data, b.len);
        CHECK_EQ_INT(ser_get_compact(&r, &v, "n"), RC_OK);
        CHECK_EQ_U64(v, cases[i].v);
        buf_clear(&b);
        buf_clear(&want);
    }
}

static int compact_rc(const char *hex)
{
    struct buf b;
    struct reader r;
    uint64_t v;
    buf_init(&b);
    hex_decode(&b, hex);
    reader_init(&r, b.data, b.len);
    int rc = ser_get_compact(&r, &v, "count");
    buf_clear(&b);
    return rc;
}

static void test_compact_rejects(void)
{
    CHECK_EQ_INT(compact_rc("fdfc00"), RC_NONCANONICAL);
    CHECK_EQ_INT(compact_rc("feffff0000"), RC_NONCANONICAL);
    CHECK_EQ_INT(compact_rc("ffffffffff00000000"), RC_NONCANONICAL);
    CHECK_EQ_INT(compact_rc("fe01000002"), RC_TOO_LARGE);
    CHECK_EQ_INT(compact_rc("ff0000000001000000"), RC_TOO_LARGE);
    CHECK_EQ_INT(compact_rc("fd01"), RC_TRUNCATED);
    CHECK_EQ_INT(compact_rc(""), RC_TRUNCATED);
}

/* Bitcoin Core's serialize_tests varints: 0 -> 00, 0x7f -> 7f, 0x80 -> 8000, 0x1234 -> a334,
 * 0xffff -> 82fe7f, 0x123456 -> c7e756, 0x80123456 -> 86ffc7e756, 0xffffffff -> 8efefefe7f,
 * 0x7fffffffffffffff -> fefefefefefefefe7f, 0xffffffffffffffff -> 80fefefefefefefefe7f. */
static void test_varint(void)
{
    static const struct compact_case cases[] = {
        {0, "00"},
        {0x7f, "7f"},
        {0x80, "8000"},
        {0x1234, "a334"},
        {0xffff, "82fe7f"},
        {0x123456, "c7e756"},
        {0x80123456, "86ffc7e756"},
        {0xffffffff, "8efefefe7f"},
        {0x7fffffffffffffffull, "fefefefefefefefe7f"},
        {0xffffffffffffffffull, "80fefefefefefefefe7f"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct buf b;
        struct reader r;
        uint64_t v = 0;
        char s[64];
        buf_init(&b);
        ser_put_varint(&b, cases[i].v);
        hex_encode(s, b.data, b.len);
        CHECK_EQ_STR(s, cases[i].hex);
        reader_init(&r, b.data, b.len);
        CHECK_EQ_INT(ser_get_varint(&r, &v, "v"), RC_OK);
        CHECK_EQ_U64(v, cases[i].v);
        CHECK_EQ_INT(reader_left(&r), 0);
        buf_clear(&b);
    }
    /* Overflow past 64 bits and truncation are errors, not wraps. */
    {
        struct buf b;
        struct reader r;
        uint64_t v;
        buf_init(&b);
        hex_decode(&b, "80fefefefefefefeff7f");
        reader_init(&r, b.data, b.len);
        CHECK_EQ_INT(ser_get_varint(&r, &v, "v"), RC_TOO_LARGE);
        buf_reset(&b);
        hex_decode(&b, "8080");
        reader_init(&r, b.data, b.len);
        CHECK_EQ_INT(ser_get_varint(&r, &v, "v"), RC_TRUNCATED);
        buf_clear(&b);
    }
}

/* The arena: zeroed, aligned pieces that do not overlap, small and larger than a chunk, and
 * reusable after a clear (ASan sees every chunk freed). */
static void test_arena(void)
{
    struct arena a;
    arena_init(&a, 100); /* rounded up to a minimum */
    uint8_t *prev = NULL;
    size_t prev_n = 0;
    int bad_align = 0, bad_zero = 0, overlap = 0;
    for (int round = 0; round < 2; round++) {
        for (size_t i = 0; i < 3000; i++) {
            size_t n = i % 97 == 0 ? 20000 + i : i % 41;
            uint8_t *p = arena_calloc(&a, n);
            bad_align += ((uintptr_t)p % alignof(max_align_t)) != 0;
            for (size_t k = 0; k < n; k++) {
                bad_zero += p[k] != 0;
            }
            memset(p, 0xa5, n);
            /* The last piece is intact (no later piece landed on it). */
            for (size_t k = 0; prev && k < prev_n; k++) {
                overlap += prev[k] != 0xa5;
            }
            prev = p;
            prev_n = n;
        }
        arena_clear(&a);
        prev = NULL;
        prev_n = 0;
    }
    CHECK_EQ_INT(bad_align, 0);
    CHECK_EQ_INT(bad_zero, 0);
    CHECK_EQ_INT(overlap, 0);
    arena_clear(&a); /* an empty arena clears too */
}

/* Percentiles within the buckets' 2% of the exact ones, the maximum exact. */
static void test_histo(void)
{
    static struct histo h;
    histo_init(&h);
    CHECK_EQ_U64(histo_percentile(&h, 50), 0);
    /* 1..10000 ms, each once: p50 is 5000 ms, p99 9900 ms. */
    for (uint64_t ms = 1; ms <= 10000; ms++) {
        histo_add(&h, ms * 1000000);
    }
    histo_add(&h, 0); /* below a microsecond: the first bucket */
    CHECK_EQ_U64(h.n, 10001);
    CHECK_EQ_U64(h.max_ns, 10000ull * 1000000);
    uint64_t p50 = histo_percentile(&h, 50), p99 = histo_percentile(&h, 99);
    CHECK(p50 >= 5000ull * 1000000 && p50 <= 5100ull * 1000000);
    CHECK(p99 >= 9899ull * 1000000 && p99 <= 10000ull * 1000000);
    CHECK_EQ_U64(histo_percentile(&h, 100), h.max_ns);
    /* A huge sample lands in the last bucket and is still the exact maximum. */
    histo_add(&h, UINT64_C(1) << 62);
    CHECK_EQ_U64(histo_percentile(&h, 100), UINT64_C(1) << 62);
}

static void test_base64(void)
{
    struct buf b;
    buf_init(&b);
    CHECK(base64_decode(&b, "") == RC_OK && b.len == 0);
    CHECK(base64_decode(&b, "Zm9vYg==") == RC_OK);
    CHECK(b.len == 4 && memcmp(b.data, "foob", 4) == 0);
    buf_reset(&b);
    CHECK(base64_decode(&b, "Zm9vYmE=") == RC_OK && b.len == 5);
    buf_reset(&b);
    CHECK(base64_decode(&b, "Zm9vYmFy") == RC_OK && b.len == 6);
    buf_reset(&b);
    CHECK(base64_decode(&b, "Zm9vYmF") != RC_OK);  /* length */
    CHECK(base64_decode(&b, "Zm9vYh==") != RC_OK); /* non-zero padding bits */
    CHECK(base64_decode(&b, "Zm9v=mFy") != RC_OK); /* '=' inside */
    CHECK(base64_decode(&b, "Z===") != RC_OK);     /* too many '=' */
    char *e = base64_encode((const uint8_t *)"foob", 4);
    CHECK_EQ_STR(e, "Zm9vYg==");
    free(e);
    buf_clear(&b);
}

/* The scheduler runs each job every interval, one at a time, and none after stop. */
static atomic_int fast_runs, slow_runs;
static void fast_job(void *ctx)
{
    (void)ctx;
    atomic_fetch_add(&fast_runs, 1);
}
static void slow_job(void *ctx)
{
    atomic_fetch_add(&slow_runs, 1);
    time_sleep_ms(*(int *)ctx);
}

static void test_scheduler(void)
{
    struct scheduler *s = NULL;
    CHECK_EQ_INT(scheduler_start(&s), RC_OK);
    static int sleep_ms = 30;
    scheduler_every(s, 20, fast_job, NULL);
    scheduler_every(s, 100000, slow_job, &sleep_ms); /* not due within the test */
    time_sleep_ms(300);
    scheduler_stop(s);
    int runs = atomic_load(&fast_runs);
    CHECK(runs >= 2 && runs <= 16); /* every 20 ms over 300 ms: more than once, not at once */
    CHECK_EQ_INT(atomic_load(&slow_runs), 0);
    time_sleep_ms(60);
    CHECK_EQ_INT(atomic_load(&fast_runs), runs); /* nothing after stop */
    scheduler_stop(s);                          /* idempotent */
    scheduler_free(s);
    scheduler_free(NULL);
}

/* The locked pool's chunks and statistics, as Core's LockedPool: best fit from the end of a
 * free chunk, 16-byte sizes, neighbours merged on release, a second arena when one is full. */
static void test_locked_pool(void)
{
    struct locked_pool *p = locked_pool_new();
    struct locked_pool_stats st;
    locked_pool_stats(p, &st);
    CHECK(st.total == 0 && st.used == 0 && st.chunks_used == 0 && st.chunks_free == 0);
    CHECK(locked_pool_alloc(p, 0) == NULL);
    CHECK(locked_pool_alloc(p, LOCKED_POOL_ARENA_SIZE + 1) == NULL);
    char *a = locked_pool_strdup(p, "secret");
    void *b = locked_pool_alloc(p, 17);
    void *c = locked_pool_alloc(p, 1000);
    CHECK(strcmp(a, "secret") == 0);
    CHECK(((uintptr_t)a % 16) == 0 && ((uintptr_t)b % 16) == 0 && ((uintptr_t)c % 16) == 0);
    locked_pool_stats(p, &st);
    CHECK(st.total == LOCKED_POOL_ARENA_SIZE);
    CHECK(st.used == 16 + 32 + 1008);
    CHECK(st.used + st.free == st.total);
    CHECK(st.chunks_used == 3 && st.chunks_free == 1);
    CHECK(st.locked == 0 || st.locked == LOCKED_POOL_ARENA_SIZE);
    locked_pool_release(p, b); /* a hole between a and c */
    locked_pool_stats(p, &st);
    CHECK(st.chunks_used == 2 && st.chunks_free == 2);
    void *d = locked_pool_alloc(p, 20); /* best fit: the hole */
    CHECK(d == b);
    locked_pool_release(p, d);
    locked_pool_release(p, a);
    locked_pool_release(p, c);
    locked_pool_stats(p, &st);
    CHECK(st.used == 0 && st.chunks_used == 0 && st.chunks_free == 1);
    void *big = locked_pool_alloc(p, LOCKED_POOL_ARENA_SIZE);
    void *more = locked_pool_alloc(p, 16);
    locked_pool_stats(p, &st);
    CHECK(st.total == 2 * LOCKED_POOL_ARENA_SIZE && st.chunks_used == 2);
    locked_pool_release(p, big);
    locked_pool_release(p, more);
    locked_pool_release(p, NULL);
    locked_pool_free(p);
    locked_pool_free(NULL);
}

/* -dbcrashratio's crash point: 0 never ends the process, 1 always does, with _Exit(0) at
 * once (a child's unflushed stdio is lost, as a kill would lose it); n ends it about one
 * call in n. */
static void test_crash_point(void)
{
    for (int i = 0; i < 1000; i++) {
        random_crash_point(0, "a test");
    }
    int wstatus = 0;
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        random_crash_point(1, "a test");
        _exit(3); /* not reached */
    }
    CHECK(waitpid(pid, &wstatus, 0) == pid);
    CHECK(WIFEXITED(wstatus));
    CHECK_EQ_INT(WEXITSTATUS(wstatus), 0);
    /* About one in four: a child that calls it 200 times ends (all but never survives). */
    pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        for (int i = 0; i < 200; i++) {
            random_crash_point(4, "a test");
        }
        _exit(3);
    }
    CHECK(waitpid(pid, &wstatus, 0) == pid);
    CHECK(WIFEXITED(wstatus));
    CHECK_EQ_INT(WEXITSTATUS(wstatus), 0);
}

/* The wipe marker: an empty file, made (or emptied) and synced; a missing directory is an
 * error. */
static void test_touch_synced(void)
{
    char dir[] = "/tmp/bitnode_util_touch_XXXXXX", path[128], err[256];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof(path), "%s/store.wiping", dir);
    CHECK_EQ_INT(fs_touch_synced(path, err, sizeof(err)), RC_OK);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs("not empty", f);
    fclose(f);
    CHECK_EQ_INT(fs_touch_synced(path, err, sizeof(err)), RC_OK);
    struct stat st;
    CHECK(stat(path, &st) == 0);
    CHECK_EQ_INT((int)st.st_size, 0);
    unlink(path);
    rmdir(dir);
    snprintf(path, sizeof(path), "%s/no/such/dir.wiping", dir);
    CHECK_EQ_INT(fs_touch_synced(path, err, sizeof(err)), RC_IO);
    CHECK(strstr(err, "cannot write") != NULL);
}

int main(void)
{
    TEST(test_crash_point);
    TEST(test_touch_synced);
    TEST(test_base64);
    TEST(test_scheduler);
    TEST(test_buf_grow);
    TEST(test_reader_bounds);
    TEST(test_hex);
    TEST(test_compact_roundtrip);
    TEST(test_compact_rejects);
    TEST(test_varint);
    TEST(test_arena);
    TEST(test_histo);
    TEST(test_locked_pool);
    return test_done();
}
