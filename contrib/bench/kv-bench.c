/* kv-bench: the UTXO-shaped storage benchmark (results in doc/benchmarks.md).
 *
 *   contrib/bench/kv-bench [--keys N] [--reads N] [--deletes N] [--scans N]
 *                          [--backend mem|default|all] [--dir DIR]
 *
 * For each backend and option set (bloom filter on/off and cache 8/64 MiB where the backend
 * uses them) it runs, in a fresh child process so that peak RSS is per configuration:
 *   insert   N random 36-byte keys with 40-byte values, in batches of 5,000
 *   hit      random reads of present keys
 *   miss     random reads of absent keys
 *   scan     range scans of 10,000 consecutive keys from random start points
 *   delete   random present keys, in batches of 5,000
 * and prints one table row: ops/s for each phase, ms per scan, on-disk size after close and
 * peak RSS. Built by make, never run by the tests.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kv/kv.h"
#include "util/buf.h"
#include "util/rc.h"

#define KEY_BYTES 36
#define VAL_BYTES 40
#define BATCH_OPS 5000
#define SCAN_KEYS 10000

struct bench_cfg {
    const struct kv_ops *ops;
    int bloom_bits;
    size_t cache_mib;
};

static uint64_t n_keys = 1000000, n_reads = 200000, n_deletes = 100000, n_scans = 50;
static const char *bench_dir = NULL;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Key number i: 36 bytes that look random (a txid and an output index, in effect). Keys
 * i >= n_keys are never inserted: they are the absent keys. */
static void make_key(uint8_t out[KEY_BYTES], uint64_t i)
{
    uint64_t s = i * 0x2545f4914f6cdd1dull + 12345;
    for (int w = 0; w < 4; w++) {
        uint64_t v = splitmix(&s);
        memcpy(out + 8 * w, &v, 8);
    }
    out[32] = (uint8_t)i;
    out[33] = (uint8_t)(i >> 8);
    out[34] = 0;
    out[35] = 0;
}

static void make_val(uint8_t out[VAL_BYTES], uint64_t i)
{
    uint64_t s = i ^ 0x5bd1e995u;
    for (int w = 0; w < VAL_BYTES / 8; w++) {
        uint64_t v = splitmix(&s);
        memcpy(out + 8 * w, &v, 8);
    }
}

static uint64_t dir_bytes(const char *path)
{
    char cmd[1200];
    FILE *p;
    unsigned long long kib = 0;
    snprintf(cmd, sizeof(cmd), "du -sk '%s' 2>/dev/null", path);
    p = popen(cmd, "r");
    if (p) {
        if (fscanf(p, "%llu", &kib) != 1) {
            kib = 0;
        }
        pclose(p);
    }
    return (uint64_t)kib * 1024;
}

static void die(const char *what, struct kv *kv)
{
    fprintf(stderr, "kv-bench: %s: %s\n", what, kv_last_error(kv));
    exit(1);
}

/* Runs every phase on one configuration; prints one row. Runs in a child process. */
static void run_cfg(const struct bench_cfg *cfg)
{
    char path[1024];
    struct kv_options opt;
    struct kv *kv = NULL;
    struct kv_batch *b = kv_batch_new();
    struct buf val;
    uint8_t key[KEY_BYTES], v[VAL_BYTES];
    uint64_t rng = 42, found = 0;
    double t0, t_ins, t_hit, t_miss, t_scan, t_del;
    uint64_t disk = 0, scanned = 0;
    struct rusage ru;
    int persistent = cfg->ops != &kv_mem_ops;

    buf_init(&val);
    kv_options_init(&opt);
    opt.cache_bytes = cfg->cache_mib << 20;
    opt.bloom_bits_per_key = cfg->bloom_bits;
    snprintf(path, sizeof(path), "%s/%s-bloom%d-cache%zu", bench_dir, kv_ops_name(cfg->ops),
             cfg->bloom_bits, cfg->cache_mib);
    kv_destroy(cfg->ops, path);
    if (kv_open(&kv, cfg->ops, persistent ? path : NULL, &opt) != 0) {
        die("open", NULL);
    }

    t0 = now_s();
    for (uint64_t i = 0; i < n_keys; i++) {
        make_key(key, i);
        make_val(v, i);
        kv_batch_put(b, key, KEY_BYTES, v, VAL_BYTES);
        if (kv_batch_count(b) == BATCH_OPS || i + 1 == n_keys) {
            if (kv_write(kv, b, 0) != 0) {
                die("insert", kv);
            }
            kv_batch_clear(b);
        }
    }
    t_ins = now_s() - t0;

    t0 = now_s();
    for (uint64_t r = 0; r < n_reads; r++) {
        uint64_t i = splitmix(&rng) % n_keys;
        make_key(key, i);
        if (kv_get(kv, &val, key, KEY_BYTES) != 0) {
            die("read of a present key", kv);
        }
        found += val.len == VAL_BYTES;
    }
    t_hit = now_s() - t0;

    t0 = now_s();
    for (uint64_t r = 0; r < n_reads; r++) {
        uint64_t i = n_keys + splitmix(&rng) % n_keys;
        make_key(key, i);
        if (kv_get(kv, &val, key, KEY_BYTES) != RC_NOT_FOUND) {
            die("read of an absent key", kv);
        }
    }
    t_miss = now_s() - t0;

    t0 = now_s();
    for (uint64_t s = 0; s < n_scans; s++) {
        struct kv_iter *it = NULL;
        uint64_t i = splitmix(&rng) % n_keys;
        int n = 0;
        make_key(key, i);
        if (kv_iter_new(kv, &it) != 0 || kv_iter_seek(it, key, KEY_BYTES) != 0) {
            die("scan", kv);
        }
        while (n < SCAN_KEYS && kv_iter_valid(it)) {
            size_t kl, vl;
            kv_iter_key(it, &kl);
            kv_iter_value(it, &vl);
            scanned += kl + vl > 0;
            n++;
            if (kv_iter_next(it) != 0) {
                die("scan", kv);
            }
        }
        kv_iter_free(it);
    }
    t_scan = now_s() - t0;

    t0 = now_s();
    kv_batch_clear(b);
    for (uint64_t d = 0; d < n_deletes && d < n_keys; d++) {
        /* Key numbers are already random positions in key order: delete 0, 1, 2, ... */
        make_key(key, d);
        kv_batch_delete(b, key, KEY_BYTES);
        if (kv_batch_count(b) == BATCH_OPS || d + 1 == n_deletes || d + 1 == n_keys) {
            if (kv_write(kv, b, 0) != 0) {
                die("delete", kv);
            }
            kv_batch_clear(b);
        }
    }
    t_del = now_s() - t0;

    if (kv_close(kv) != 0) {
        die("close", NULL);
    }
    if (persistent) {
        disk = dir_bytes(path);
        kv_destroy(cfg->ops, path);
    }
    getrusage(RUSAGE_SELF, &ru);
    if (found != n_reads) {
        fprintf(stderr, "kv-bench: %llu of %llu reads returned a wrong size\n",
                (unsigned long long)(n_reads - found), (unsigned long long)n_reads);
        exit(1);
    }
    {
        int is_lsm = strcmp(kv_ops_name(cfg->ops), "leveldb") == 0 ||
                     strcmp(kv_ops_name(cfg->ops), "rocksdb") == 0;
        char cache[16];
        if (persistent) {
            snprintf(cache, sizeof(cache), "%zu MiB", cfg->cache_mib);
        } else {
            snprintf(cache, sizeof(cache), "-");
        }
        printf("| %-7s | %-5s | %-8s | %9llu | %9.0f | %9.0f | %9.0f | %8.2f | %9.0f | %8.1f | "
               "%7.0f |\n",
               kv_ops_name(cfg->ops), is_lsm ? (cfg->bloom_bits ? "on" : "off") : "-", cache,
               (unsigned long long)n_keys, (double)n_keys / t_ins, (double)n_reads / t_hit,
               (double)n_reads / t_miss, n_scans ? t_scan * 1000.0 / (double)n_scans : 0.0,
               (double)n_deletes / t_del, (double)disk / 1048576.0, (double)ru.ru_maxrss / 1024.0);
    }
    fflush(stdout);
    (void)scanned;
    buf_clear(&val);
    kv_batch_free(b);
}

static void usage(const char *argv0)
{
    fprintf(stderr,
            "usage: %s [--keys N] [--reads N] [--deletes N] [--scans N]\n"
            "          [--backend mem|default|all] [--dir DIR]\n",
            argv0);
    exit(2);
}

int main(int argc, char **argv)
{
    const char *which = "all";
    char tmpl[1024];
    struct bench_cfg cfgs[8];
    int n = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (i + 1 >= argc) {
            usage(argv[0]);
        }
        if (strcmp(a, "--keys") == 0) {
            n_keys = strtoull(argv[++i], NULL, 10);
        } else if (strcmp(a, "--reads") == 0) {
            n_reads = strtoull(argv[++i], NULL, 10);
        } else if (strcmp(a, "--deletes") == 0) {
            n_deletes = strtoull(argv[++i], NULL, 10);
        } else if (strcmp(a, "--scans") == 0) {
            n_scans = strtoull(argv[++i], NULL, 10);
        } else if (strcmp(a, "--backend") == 0) {
            which = argv[++i];
        } else if (strcmp(a, "--dir") == 0) {
            bench_dir = argv[++i];
        } else {
            usage(argv[0]);
        }
    }
    if (n_keys == 0) {
        usage(argv[0]);
    }
    if (n_deletes > n_keys) {
        n_deletes = n_keys;
    }
    if (!bench_dir) {
        const char *t = getenv("TMPDIR");
        snprintf(tmpl, sizeof(tmpl), "%s/kv-bench-XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(tmpl)) {
            fprintf(stderr, "kv-bench: mkdtemp: %s\n", strerror(errno));
            return 1;
        }
        bench_dir = tmpl;
    }
    if (strcmp(which, "mem") == 0 || strcmp(which, "all") == 0) {
        cfgs[n++] = (struct bench_cfg){&kv_mem_ops, 0, 0};
    }
    if (strcmp(which, "default") == 0 || strcmp(which, "all") == 0) {
        const struct kv_ops *d = kv_default_ops();
        /* The LSM engines have a bloom filter to try; LMDB and BDB have none. */
        if (strcmp(kv_backend_name(), "leveldb") == 0 ||
            strcmp(kv_backend_name(), "rocksdb") == 0) {
            cfgs[n++] = (struct bench_cfg){d, 10, 8};
            cfgs[n++] = (struct bench_cfg){d, 0, 8};
            cfgs[n++] = (struct bench_cfg){d, 10, 64};
            cfgs[n++] = (struct bench_cfg){d, 0, 64};
        } else {
            cfgs[n++] = (struct bench_cfg){d, 0, 8};
            cfgs[n++] = (struct bench_cfg){d, 0, 64};
        }
    }
    if (n == 0) {
        usage(argv[0]);
    }
    printf("kv-bench: %llu keys (36-byte keys, 40-byte values, batches of %d), %llu reads, "
           "%llu scans of %d keys, %llu deletes; data in %s\n\n",
           (unsigned long long)n_keys, BATCH_OPS, (unsigned long long)n_reads,
           (unsigned long long)n_scans, SCAN_KEYS, (unsigned long long)n_deletes, bench_dir);
    printf("| backend | bloom | cache    | keys      | insert/s  | hit/s     | miss/s    | "
           "scan ms  | delete/s  | disk MiB | RSS MiB |\n");
    printf("|---------|-------|----------|-----------|-----------|-----------|-----------|---"
           "-------|-----------|----------|---------|\n");
    fflush(stdout);
    for (int i = 0; i < n; i++) {
        pid_t pid = fork();
        int status = 0;
        if (pid == 0) {
            run_cfg(&cfgs[i]);
            _exit(0);
        }
        waitpid(pid, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "kv-bench: configuration %d failed\n", i);
        }
    }
    if (bench_dir == tmpl) {
        rmdir(tmpl);
    }
    return 0;
}
